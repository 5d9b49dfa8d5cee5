/*
 * tools/run.c - `cesync run`: runs a schedule (a .ces file or a built-in
 * collective) on the GPUs of this machine, one process per GPU (forked here,
 * joined over a Unix-socket bootstrap at an abstract name, which leaves no
 * file behind however the command ends) or one process for all
 * (--single-process).  Every buffer starts with the pattern of iteration 0
 * and every `produce` region is filled with the pattern of (rank, buffer,
 * offset, iteration); every byte of every `consume A == B` region is
 * compared with the pattern B held in that iteration, the checker's
 * expected value; each iteration's time and verdict is printed.
 */
#include "tool.h"
#include "internal.h" /* ces_now */

#include "args.h"  /* ces_cuda_settings_read */
#include "lower.h" /* ces_cuda_lower, ces_cuda_queues_check */

#if defined(CES_HAVE_CUDA)
#include "runtime.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char run_usage[] =
    "usage: cesync run SCHEDULE [builder options] [--single-process]\n"
    "\n"
    "Runs the schedule on this machine's GPUs (rank r on GPU r) with no kernel: copies\n"
    "on the copy engines, synchronization by stream memory operations.  Fills every\n"
    "produce region with a known pattern, checks every byte of every consume, prints\n"
    "each iteration's time and verdict, and a last line PASSED or FAILED.\n"
    "\n"
    "  --single-process   one process drives every rank (default: one process per rank)\n"
    "  --help             this text\n"
    "  -- SCHEDULE        the schedule, even one whose name starts with '-'\n"
    "\n"
    "Environment: CES_TIMEOUT_MS (watchdog, default 10000), CES_DUMP_SCHEDULE=DIR,\n"
    "CES_SHARE_GPUS=1 (more ranks than GPUs), CUDA_DEVICE_MAX_CONNECTIONS.\n"
    "\n";

static const char run_tail[] =
    "\n"
    "Exit: 0 every byte matched, 1 a mismatch or a timeout, 2 bad usage or setup error.\n"
    "Example: cesync run alltoall --ranks 2 --bytes 1M --iterations 10\n"
    "Full reference: docs/CLI.md, section \"run\".\n";

/* --help: the same text, builder options included, with CUDA or without */
static int run_help(void)
{
    fputs(run_usage, stdout);
    ces_tool_builder_help(1);
    fputs(run_tail, stdout);
    return CES_EXIT_OK;
}

/* The most ranks one run drives (the per-rank arrays below; tool.h). */
#define RUN_MAX_RANKS CES_TOOL_RUN_RANKS

/* What a child of this process found of the GPUs (ces_devices_query):
 * its status, the message of a failure, and the description. */
struct probe {
    int rc;
    char why[1024];
    struct ces_devices d;
};

#if defined(CES_HAVE_CUDA)

/* The pattern: deterministic in (rank, buffer, offset, iteration). */
static uint64_t pat_word(uint32_t rank, uint32_t buf, uint64_t w, uint64_t gen)
{
    uint64_t x = w ^ ((uint64_t)rank << 56) ^ ((uint64_t)buf << 48) ^ (gen * 0x100000001b3ull);

    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint8_t pat_byte(uint32_t rank, uint32_t buf, uint64_t off, uint64_t gen)
{
    return (uint8_t)(pat_word(rank, buf, off >> 3, gen) >> ((off & 7) * 8));
}

static void pat_fill(uint8_t *dst, uint64_t n, uint32_t rank, uint32_t buf, uint64_t off,
                     uint64_t gen)
{
    for (uint64_t i = 0; i < n; i++) {
        if (((off + i) & 7) == 0 && i + 8 <= n) {
            uint64_t w = pat_word(rank, buf, (off + i) >> 3, gen);

            for (int k = 0; k < 8; k++)
                dst[i + (uint64_t)k] = (uint8_t)(w >> (8 * k));
            i += 7;
        } else {
            dst[i] = pat_byte(rank, buf, off + i, gen);
        }
    }
}

struct stage {
    uint32_t b, i;
    int consume, expect;
    struct ces_region reg, exp;
    uint8_t *host;
    uint64_t n;
};

struct rrank {
    struct ces_ctx *ctx;
    const char *place; /* the schedule's file as its places name it; NULL: a collective */
    struct ces_comm *c;
    cudaStream_t s;
    struct ces_cuda_run *run;
    const struct ces_graph *g;
    void **bufs;
    struct stage *st;
    size_t nst, cap;
    uint64_t bad_bytes;
    int failed;
};

static struct stage *stage_get(struct rrank *r, const struct ces_cuda_call *call, uint32_t b,
                               uint32_t i, int consume)
{
    struct stage *s;
    uint64_t n = call->a.hi - call->a.lo;

    for (size_t k = 0; k < r->nst; k++)
        if (r->st[k].b == b && r->st[k].i == i)
            return &r->st[k];
    if (r->nst == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        struct stage *ns = realloc(r->st, cap * sizeof(*ns));

        if (ns == NULL)
            return NULL;
        r->st = ns;
        r->cap = cap;
    }
    s = &r->st[r->nst];
    memset(s, 0, sizeof(*s));
    s->b = b;
    s->i = i;
    s->consume = consume;
    s->expect = call->expect;
    s->reg = call->a;
    s->exp = call->b;
    s->n = n;
    if (cudaMallocHost((void **)&s->host, n ? n : 1) != cudaSuccess)
        return NULL;
    r->nst++;
    return s;
}

static void *dev_addr(struct rrank *r, const struct ces_region *reg)
{
    return (char *)ces_mem_peer(r->c, r->bufs[reg->buf], reg->rank) + reg->lo;
}

static int hook_produce(void *ud, struct ces_comm *c, const struct ces_cuda_call *call, uint32_t b,
                        uint32_t i, uint64_t iter, CUstream s)
{
    struct rrank *r = ud;
    struct stage *st = stage_get(r, call, b, i, 0);

    (void)c;
    if (st == NULL)
        return ces_ctx_error(r->ctx, CES_ERR_NOMEM, "out of host memory for a produce region");
    pat_fill(st->host, st->n, st->reg.rank, st->reg.buf, st->reg.lo, iter);
    if (st->n > 0 && cudaMemcpyAsync(dev_addr(r, &st->reg), st->host, st->n,
                                     cudaMemcpyHostToDevice, (cudaStream_t)s) != cudaSuccess)
        return ces_ctx_error(r->ctx, CES_ERR_CUDA, "produce: cudaMemcpyAsync failed");
    return CES_OK;
}

static int hook_consume(void *ud, struct ces_comm *c, const struct ces_cuda_call *call, uint32_t b,
                        uint32_t i, uint64_t iter, CUstream s)
{
    struct rrank *r = ud;
    struct stage *st;

    (void)c;
    (void)iter;
    if (!call->expect)
        return CES_OK;
    st = stage_get(r, call, b, i, 1);
    if (st == NULL)
        return ces_ctx_error(r->ctx, CES_ERR_NOMEM, "out of host memory for a consume region");
    if (st->n > 0 && cudaMemcpyAsync(st->host, dev_addr(r, &st->reg), st->n,
                                     cudaMemcpyDeviceToHost, (cudaStream_t)s) != cudaSuccess)
        return ces_ctx_error(r->ctx, CES_ERR_CUDA, "consume: cudaMemcpyAsync failed");
    return CES_OK;
}

/* Bytes [lo, hi) of a region that hold the pattern of iteration `gen`. */
struct grun {
    uint64_t lo, hi, gen;
};

/* Raises the generation of [lo, hi) to at least gen in the sorted, disjoint
 * runs *runs (*n of them, covering the region), splitting runs at its ends.
 * Returns false when out of memory. */
static bool raise_gen(struct grun **runs, size_t *n, uint64_t lo, uint64_t hi, uint64_t gen)
{
    struct grun *out = malloc((*n + 2) * sizeof(*out));
    size_t m = 0;

    if (out == NULL)
        return false;
    for (size_t i = 0; i < *n; i++) {
        struct grun x = (*runs)[i];
        uint64_t a = x.lo > lo ? x.lo : lo, z = x.hi < hi ? x.hi : hi;

        if (a >= z || x.gen >= gen) { /* untouched */
            out[m++] = x;
            continue;
        }
        if (x.lo < a)
            out[m++] = (struct grun){x.lo, a, x.gen};
        out[m++] = (struct grun){a, z, gen};
        if (z < x.hi)
            out[m++] = (struct grun){z, x.hi, x.gen};
    }
    free(*runs);
    *runs = out;
    *n = m;
    return true;
}

/* Whether a produce has covered every byte of the runs. */
static bool all_produced(const struct grun *runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (runs[i].gen == 0)
            return false;
    return true;
}

/* What region e holds at iteration iter of block `blk`: per byte, the
 * latest iteration <= iter at which a produce covered it, 0 (the initial
 * pattern) if none - the checker's expected value (docs/SEMANTICS.md
 * section 5).  The blocks are walked from blk back, until every byte has
 * been produced (earlier blocks hold only earlier iterations): one block
 * for a region produced every iteration.  The runs are malloc'ed (NULL:
 * out of memory). */
static struct grun *expected_gens(const struct ces_graph *g, const struct ces_region *e,
                                  uint32_t blk, uint64_t iter, size_t *n)
{
    struct grun *runs = malloc(sizeof(*runs));

    *n = 1;
    if (runs == NULL)
        return NULL;
    runs[0] = (struct grun){e->lo, e->hi, 0};
    for (uint32_t b = blk + 1; b-- > 0 && !all_produced(runs, *n);) {
        struct ces_block_info bi = ces_graph_block(g, b);
        uint64_t last = bi.first_iter + bi.reps - 1;

        for (uint32_t r = 0; r < ces_graph_ranks(g); r++) {
            uint32_t nops;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &nops);

            for (uint32_t i = 0; i < nops; i++) {
                const struct ces_region *a = &ops[i].a;

                if (ops[i].kind != CES_OP_PRODUCE || a->rank != e->rank || a->buf != e->buf ||
                    a->hi <= e->lo || a->lo >= e->hi)
                    continue;
                if (!raise_gen(&runs, n, a->lo, a->hi, last < iter ? last : iter)) {
                    free(runs);
                    return NULL;
                }
            }
        }
    }
    return runs;
}

/* Compares the consumed bytes of block b, iteration iter; prints the first
 * difference of each region.  Returns the bytes that differ, or UINT64_MAX
 * when out of host memory. */
static uint64_t check_block(struct rrank *r, uint32_t b, uint64_t iter)
{
    uint64_t bad = 0;

    for (size_t k = 0; k < r->nst; k++) {
        struct stage *s = &r->st[k];
        uint64_t first = UINT64_MAX, firstgen = 0, here = 0;
        size_t nruns;
        struct grun *runs;

        if (s->b != b || !s->consume || !s->expect)
            continue;
        runs = expected_gens(r->g, &s->exp, b, iter, &nruns);
        if (runs == NULL)
            return UINT64_MAX;
        for (size_t i = 0; i < nruns; i++) {
            for (uint64_t x = runs[i].lo; x < runs[i].hi; x++) {
                uint64_t j = x - s->exp.lo;

                if (s->host[j] != pat_byte(s->exp.rank, s->exp.buf, x, runs[i].gen)) {
                    if (first == UINT64_MAX) { /* (the runs are in order) */
                        first = j;
                        firstgen = runs[i].gen;
                    }
                    here++;
                }
            }
        }
        free(runs);
        if (here > 0) {
            printf("rank %" PRIu32 ": iteration %" PRIu64 ": consume %s[%" PRIu64 ":%" PRIu64
                   "] == %s[%" PRIu64 ":%" PRIu64 "]@%" PRIu32 ": %" PRIu64
                   " bytes differ, first at +%" PRIu64 " (0x%02x, expected 0x%02x of iteration %"
                   PRIu64 ")\n",
                   ces_comm_rank(r->c), iter, ces_graph_buffer(r->g, s->reg.buf).name, s->reg.lo,
                   s->reg.hi, ces_graph_buffer(r->g, s->exp.buf).name, s->exp.lo, s->exp.hi,
                   s->exp.rank, here, first, s->host[first],
                   pat_byte(s->exp.rank, s->exp.buf, s->exp.lo + first, firstgen), firstgen);
            bad += here;
        }
    }
    return bad;
}

static uint64_t consumed_bytes(const struct rrank *r, uint32_t b)
{
    uint64_t n = 0;

    for (size_t k = 0; k < r->nst; k++)
        if (r->st[k].b == b && r->st[k].consume && r->st[k].expect)
            n += r->st[k].n;
    return n;
}

/* A timeout or a failed peer is the schedule's defect (exit 1), anything
 * else a setup error (2). */
static int rank_fail_exit(int rc)
{
    return rc == CES_ERR_TIMEOUT || rc == CES_ERR_PEER_FAILED ? CES_EXIT_DEFECT : CES_EXIT_USAGE;
}

/* A message that names an op of the file by its place (the lowering's
 * refusal of what this GPU cannot do, "r0.s0#3 (line 9:6): ...") says it as
 * an error of the file there, "FILE:9:6: rank 0: ...", as the parser says
 * its own. */
static int rank_fail(struct rrank *r, const char *what, int rc)
{
    const char *why = ces_ctx_last_error(r->ctx);
    uint32_t rank = r->c ? ces_comm_rank(r->c) : 0;
    char lead[160], *msg;

    snprintf(lead, sizeof(lead), "rank %" PRIu32 ": %s", rank, what);
    msg = ces_tool_op_message("run", r->place, why, lead);
    if (msg != NULL)
        ces_tool_say("%s (%s)", msg, ces_status_str(rc));
    else
        ces_tool_say("run: %s: %s (%s)", lead, why, ces_status_str(rc));
    free(msg);
    return rank_fail_exit(rc);
}

/* A communicator that failed under the run (the watchdog, a peer): the
 * message ces_comm_check left says why ("rank 0: the communicator failed:
 * no progress for ..."). */
static int comm_failed(struct rrank *r, int rc)
{
    ces_tool_say("run: %s (%s)", ces_ctx_last_error(r->ctx), ces_status_str(rc));
    return rank_fail_exit(rc);
}

/* Every buffer of the m local ranks starts with the pattern of iteration 0
 * (what a consume expects of bytes never produced); a barrier then tells
 * every rank that its peers' buffers hold it too.  Returns the exit code. */
static int fill_initial(struct rrank *rr, uint32_t m, const struct ces_graph *g)
{
    const uint64_t chunk = UINT64_C(1) << 20;
    uint8_t *host = malloc(chunk);
    int rc = CES_OK;

    if (host == NULL) {
        ces_tool_say("run: out of host memory for the initial pattern");
        return CES_EXIT_USAGE;
    }
    for (uint32_t k = 0; k < m; k++) {
        uint32_t rank = ces_comm_rank(rr[k].c);

        cudaSetDevice(ces_comm_device(rr[k].c));
        for (uint32_t i = 0; i < ces_graph_nbuffers(g) && rc == CES_OK; i++) {
            uint64_t size = ces_graph_buffer(g, i).size;

            for (uint64_t off = 0; off < size && rc == CES_OK; off += chunk) {
                uint64_t n = size - off < chunk ? size - off : chunk;

                pat_fill(host, n, rank, i, off, 0);
                if (cudaMemcpy((char *)rr[k].bufs[i] + off, host, n, cudaMemcpyHostToDevice) !=
                    cudaSuccess)
                    rc = ces_ctx_error(rr[k].ctx, CES_ERR_CUDA,
                                       "cudaMemcpy of the initial pattern failed");
            }
        }
        /* a copy from pageable memory may return before its bytes land, and
         * the barrier's stream does not wait for the default one */
        if (rc == CES_OK && cudaDeviceSynchronize() != cudaSuccess)
            rc = ces_ctx_error(rr[k].ctx, CES_ERR_CUDA,
                               "cudaDeviceSynchronize after the initial pattern failed");
        if (rc != CES_OK) {
            free(host);
            return rank_fail(&rr[k], "filling the buffers", rc);
        }
    }
    free(host);
    for (uint32_t k = 0; k < m; k++) {
        rc = ces_barrier(rr[k].c, (ces_stream_t)rr[k].s);
        if (rc != CES_OK)
            return rank_fail(&rr[k], "the barrier after the initial pattern", rc);
    }
    for (uint32_t k = 0; k < m; k++) {
        cudaSetDevice(ces_comm_device(rr[k].c));
        if (cudaStreamSynchronize(rr[k].s) != cudaSuccess)
            return rank_fail(&rr[k], "cudaStreamSynchronize", CES_ERR_CUDA);
    }
    return CES_EXIT_OK;
}

/* What a run of some ranks counted: iterations, their host time, the
 * consumed bytes checked and those that differed; how many ranks ran to
 * the end of it, and the first of them. */
struct tally {
    uint64_t iters, checked, bad;
    double sum, best;
    uint32_t ranks, rank;
};

/* The PASSED or FAILED line of a run whose exit code so far is ec. */
static void print_tally(const struct tally *t, int ec, const char *where)
{
    printf("%s: %" PRIu64 " iteration%s, mean %.1f us, best %.1f us (host time, issue to "
           "stream sync), %" PRIu64 " consumed bytes checked on %s, %" PRIu64 " differ\n",
           t->bad || ec != CES_EXIT_OK ? "FAILED" : "PASSED", t->iters, ces_plural(t->iters),
           t->iters ? t->sum / (double)t->iters : 0.0, t->iters ? t->best : 0.0, t->checked,
           where, t->bad);
}

/* Runs the whole graph on the m local ranks rr[0..m), printing each
 * iteration's line where `print`, counting into *out (left as it was
 * where the run did not reach its end).  Returns the exit code. */
static int run_local(struct rrank *rr, uint32_t m, const struct ces_graph *g, int print,
                     struct tally *out)
{
    struct ces_cuda_hooks hooks[RUN_MAX_RANKS];
    uint32_t nb = ces_graph_nblocks(g);
    uint64_t total_bad = 0, iters = 0, checked = 0;
    double sum = 0, best = 1e300;
    int ec = CES_EXIT_OK, rc;

    for (uint32_t k = 0; k < m; k++) {
        struct rrank *r = &rr[k];

        r->g = g;
        cudaSetDevice(ces_comm_device(r->c));
        if (cudaStreamCreateWithFlags(&r->s, cudaStreamNonBlocking) != cudaSuccess)
            return rank_fail(r, "cudaStreamCreate", CES_ERR_CUDA);
        r->bufs = calloc(ces_graph_nbuffers(g) + 1, sizeof(void *));
        if (r->bufs == NULL)
            return CES_EXIT_USAGE;
        for (uint32_t i = 0; i < ces_graph_nbuffers(g); i++) {
            rc = ces_mem_alloc(r->c, ces_graph_buffer(g, i).size, &r->bufs[i]);
            if (rc != CES_OK)
                return rank_fail(r, "ces_mem_alloc", rc);
        }
    }
    rc = fill_initial(rr, m, g);
    if (rc != CES_EXIT_OK)
        return rc;
    for (uint32_t k = 0; k < m; k++) {
        struct rrank *r = &rr[k];
        struct ces_binding *bind = calloc(ces_graph_nbuffers(g) + 1, sizeof(*bind));

        if (bind == NULL)
            return CES_EXIT_USAGE;
        for (uint32_t i = 0; i < ces_graph_nbuffers(g); i++) {
            bind[i].name = ces_graph_buffer(g, i).name;
            bind[i].ptr = r->bufs[i];
        }
        hooks[k].produce = hook_produce;
        hooks[k].consume = hook_consume;
        hooks[k].ud = r;
        rc = ces_cuda_run_prepare(r->c, g, bind, ces_graph_nbuffers(g), (CUstream)r->s, &hooks[k],
                                  &r->run);
        free(bind);
        if (rc != CES_OK)
            return rank_fail(r, "preparing the schedule", rc);
    }
    for (uint32_t b = 0; b < nb && ec == CES_EXIT_OK; b++) {
        struct ces_block_info bi = ces_graph_block(g, b);

        for (uint32_t rep = 0; rep < bi.reps && ec == CES_EXIT_OK; rep++) {
            uint64_t iter = bi.first_iter + rep, bad = 0;
            double t0, t;

            /* A graph block's produce stages were captured at its first
             * replay: refresh their bytes for this iteration. */
            for (uint32_t k = 0; k < m; k++)
                for (size_t s = 0; s < rr[k].nst; s++)
                    if (rr[k].st[s].b == b && !rr[k].st[s].consume)
                        pat_fill(rr[k].st[s].host, rr[k].st[s].n, rr[k].st[s].reg.rank,
                                 rr[k].st[s].reg.buf, rr[k].st[s].reg.lo, iter);
            t0 = 1e6 * ces_now();
            for (uint32_t k = 0; k < m && ec == CES_EXIT_OK; k++) {
                rc = ces_cuda_run_block(rr[k].run, b, rep);
                if (rc != CES_OK)
                    ec = rank_fail(&rr[k], "running the schedule", rc);
            }
            for (uint32_t k = 0; k < m; k++) {
                cudaSetDevice(ces_comm_device(rr[k].c));
                if (cudaStreamSynchronize(rr[k].s) != cudaSuccess && ec == CES_EXIT_OK)
                    ec = rank_fail(&rr[k], "cudaStreamSynchronize", CES_ERR_CUDA);
                rc = ces_comm_check(rr[k].c); /* its message names the cause */
                if (rc != CES_OK && ec == CES_EXIT_OK)
                    ec = comm_failed(&rr[k], rc);
            }
            t = 1e6 * ces_now() - t0;
            for (uint32_t k = 0; k < m; k++) {
                uint64_t d = check_block(&rr[k], b, iter);

                if (d == UINT64_MAX) {
                    ces_tool_say("run: out of host memory checking the data");
                    return CES_EXIT_USAGE;
                }
                bad += d;
                checked += consumed_bytes(&rr[k], b);
            }
            total_bad += bad;
            iters++;
            sum += t;
            if (t < best)
                best = t;
            if (print && (iters <= 20 || bi.reps * nb <= 100))
                printf("iteration %" PRIu64 " (%s): %.1f us, %s\n", iter,
                       bi.kind == CES_PHASE_GRAPH ? "graph replay" : "eager", t,
                       bad ? "MISMATCH" : ec != CES_EXIT_OK ? "FAILED" : "ok");
        }
    }
    *out = (struct tally){iters, checked, total_bad, sum, best, m, 0};
    if (ec == CES_EXIT_OK && total_bad > 0)
        ec = CES_EXIT_DEFECT;
    return ec;
}

static void rank_free(struct rrank *r, const struct ces_graph *g)
{
    if (r->c == NULL)
        return;
    cudaSetDevice(ces_comm_device(r->c));
    if (r->s != NULL)
        cudaStreamSynchronize(r->s);
    ces_cuda_run_free(r->run);
    for (size_t k = 0; k < r->nst; k++)
        cudaFreeHost(r->st[k].host);
    free(r->st);
    for (uint32_t i = 0; r->bufs != NULL && i < ces_graph_nbuffers(g); i++)
        if (r->bufs[i] != NULL)
            ces_mem_free(r->c, r->bufs[i]);
    free(r->bufs);
    if (r->s != NULL)
        cudaStreamDestroy(r->s);
    ces_comm_destroy(r->c);
}

/* One rank of a run of one process per rank: rank 0 prints the
 * iterations' lines; each sends what it counted to the parent through
 * `tally_fd` (one write of less than PIPE_BUF: whole or not at all). */
static int run_forked_rank(const struct ces_graph *g, const char *place, uint32_t rank,
                           uint32_t n, uint32_t gpus, const char *path, int tally_fd)
{
    struct rrank r;
    struct tally t = {0, 0, 0, 0.0, 0.0, 0, 0};
    int ec;

    memset(&r, 0, sizeof(r));
    r.place = place;
    if (ces_ctx_create(NULL, &r.ctx) != CES_OK)
        return CES_EXIT_USAGE;
    ec = ces_comm_init(r.ctx, rank, n, (int)(rank % gpus), path, &r.c);
    if (ec != CES_OK) {
        ces_tool_say("run: rank %" PRIu32 ": %s", rank, ces_ctx_last_error(r.ctx));
        ces_ctx_destroy(r.ctx);
        return CES_EXIT_USAGE;
    }
    ec = run_local(&r, 1, g, rank == 0, &t);
    fflush(stdout);
    t.rank = rank;
    if (t.ranks > 0 && write(tally_fd, &t, sizeof(t)) != (ssize_t)sizeof(t))
        ec = CES_EXIT_USAGE; /* (the parent counts this rank as one that did not finish) */
    rank_free(&r, g);
    ces_ctx_destroy(r.ctx);
    return ec;
}

/* The tallies of a run of one process per rank, from the pipe `fd` whose
 * writers have all exited: summed, the iterations and their time the
 * lowest rank's; printed where every rank sent its own, else the run
 * failed, saying how many did. */
static int forked_tally(int fd, uint32_t n, int ec)
{
    struct tally t, sum = {0, 0, 0, 0.0, 0.0, 0, UINT32_MAX};
    uint64_t checked = 0, bad = 0;
    uint32_t ranks = 0;

    while (read(fd, &t, sizeof(t)) == (ssize_t)sizeof(t)) {
        checked += t.checked;
        bad += t.bad;
        ranks += t.ranks;
        if (t.rank < sum.rank)
            sum = t;
    }
    sum.checked = checked;
    sum.bad = bad;
    sum.ranks = ranks;
    if (sum.ranks < n) {
        ces_tool_say("run: %" PRIu32 " of %" PRIu32 " ranks ran to the end",
                     sum.ranks, n);
        return ec == CES_EXIT_OK ? CES_EXIT_USAGE : ec;
    }
    print_tally(&sum, ec, "all ranks");
    if (ec == CES_EXIT_OK && sum.bad > 0)
        ec = CES_EXIT_DEFECT;
    return ec;
}

static int run_single(const struct ces_graph *g, const char *place, uint32_t n)
{
    struct rrank rr[RUN_MAX_RANKS];
    struct ces_comm *comms[RUN_MAX_RANKS];
    struct ces_ctx *ctx = NULL;
    struct tally t = {0, 0, 0, 0.0, 0.0, 0, 0};
    int ec;

    memset(rr, 0, sizeof(rr));
    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return CES_EXIT_USAGE;
    if (ces_comm_init_all(ctx, n, NULL, comms) != CES_OK) {
        ces_tool_say("run: %s", ces_ctx_last_error(ctx));
        ces_ctx_destroy(ctx);
        return CES_EXIT_USAGE;
    }
    for (uint32_t k = 0; k < n; k++) {
        rr[k].ctx = ctx;
        rr[k].place = place;
        rr[k].c = comms[k];
    }
    ec = run_local(rr, n, g, 1, &t);
    if (t.ranks > 0)
        print_tally(&t, ec, n > 1 ? "all ranks" : "rank 0");
    for (uint32_t k = 0; k < n; k++)
        rank_free(&rr[k], g);
    ces_ctx_destroy(ctx);
    return ec;
}

/* The GPUs, described in a child so that this process can still fork ranks
 * that use CUDA (ces_devices_query calls cuInit).  The child sends its
 * struct probe whole through a pipe, which this process reads to the end
 * before it reaps the child (it is larger than the pipe holds).  NULL when
 * the pipe cannot be made, the child cannot be forked or memory runs out
 * (printed); a child that dies before it said is said as no GPU, one that
 * dies while it says as a failure. */
static struct probe *probe_gpus(void)
{
    struct probe *p = calloc(1, sizeof(*p));
    size_t got = 0;
    int fds[2];
    pid_t pid;

    if (p == NULL) {
        ces_tool_fail("out of memory");
        return NULL;
    }
    if (pipe(fds) != 0) {
        ces_tool_fail("run: cannot make a pipe: %s", strerror(errno));
        free(p);
        return NULL;
    }
    pid = fork();
    if (pid < 0) {
        int e = errno;

        close(fds[0]);
        close(fds[1]);
        free(p);
        ces_tool_fail("run: cannot fork: %s", strerror(e));
        return NULL;
    }
    if (pid == 0) {
        struct ces_ctx *ctx = NULL;
        const char *b = (const char *)p;
        size_t put = 0;

        close(fds[0]);
        if (ces_ctx_create(NULL, &ctx) != CES_OK)
            _exit(1);
        p->rc = ces_devices_query(ctx, &p->d);
        if (p->rc != CES_OK)
            snprintf(p->why, sizeof(p->why), "%s", ces_ctx_last_error(ctx));
        while (put < sizeof(*p)) {
            ssize_t n = write(fds[1], b + put, sizeof(*p) - put);

            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                _exit(1);
            put += (size_t)n;
        }
        _exit(0);
    }
    close(fds[1]);
    while (got < sizeof(*p)) {
        ssize_t n = read(fds[0], (char *)p + got, sizeof(*p) - got);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ; /* reaped whatever it said */
    close(fds[0]);
    if (got == 0) { /* a child that died before it said */
        memset(p, 0, sizeof(*p));
    } else if (got < sizeof(*p)) {
        p->rc = CES_ERR_CUDA;
        snprintf(p->why, sizeof(p->why),
                 "the process that described the GPUs ended after %zu bytes of its "
                 "description, before its end",
                 got);
    }
    return p;
}

/* Runs g (place: its file, NULL for a collective) on the GPUs the probe
 * found, once the command line, the schedule, the settings and the
 * lowering have been judged (ces_cmd_run): one process per rank, or this
 * one for all (single).  Returns the exit code (printed). */
static int run_gpus(struct ces_ctx *ctx, const struct probe *probe, const struct ces_graph *g,
                    const char *place, int single)
{
    char path[96], at[32];
    pid_t pids[RUN_MAX_RANKS], parent = getpid();
    uint32_t n = ces_graph_ranks(g), gpus = probe->d.count, started = 0;
    struct timespec now = {0, 0}; /* (the PID alone where the clock fails) */
    int tally[2], ec;

    /* as cesync devices --ranks N says them, before a rank starts: a pair
     * of GPUs that are not peers failed the ranks' first allocation */
    if (probe->rc != CES_OK)
        return ces_tool_fail("run: %s", probe->why);
    if (gpus == 0)
        return ces_tool_fail("run: no CUDA GPU is available on this machine");
    /* too few GPUs for a file's ranks at its `ranks` line */
    ces_setting_where(at, sizeof(at), g, CES_SETTING_RANKS);
    if (ces_cuda_fit(ctx, &probe->d, n, at, single) != CES_OK)
        return ces_tool_fail_at("run", place, ces_ctx_last_error(ctx));
    printf("cesync run: %" PRIu32 " ranks, %s, %" PRIu64 " iteration%s in %" PRIu32 " block%s\n",
           n, single ? "one process" : "one process per rank", ces_graph_iterations(g),
           ces_plural(ces_graph_iterations(g)),
           ces_graph_nblocks(g), ces_plural(ces_graph_nblocks(g)));
    fflush(stdout);
    if (single)
        return run_single(g, place, n);
    if (pipe(tally) != 0)
        return ces_tool_fail("run: cannot make a pipe: %s", strerror(errno));
    /* An abstract name: no file, so none is left where the command is
     * killed before its ranks joined.  Such names belong to the network
     * namespace, which processes of another PID namespace may share
     * (containers of one pod), one of them a run with this PID: the time
     * makes the name this run's. */
    clock_gettime(CLOCK_REALTIME, &now);
    snprintf(path, sizeof(path), "@cesync-run-%ld-%" PRIx64, (long)parent,
             (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec);
    ec = CES_EXIT_OK;
    for (uint32_t r = 0; r < n; r++) {
        pids[r] = fork();
        if (pids[r] == 0) {
            /* A signal that ends this command (kill PID, not only a
             * terminal's Ctrl-C to the whole group) ends its ranks: they
             * ran on to their last iteration. */
            if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
                _exit(CES_EXIT_USAGE);
            close(tally[0]);
            _exit(run_forked_rank(g, place, r, n, gpus, path, tally[1]));
        }
        if (pids[r] < 0) {
            /* the ranks started would wait for it in the bootstrap */
            ec = ces_tool_fail("run: cannot start rank %" PRIu32 ": %s", r, strerror(errno));
            for (uint32_t k = 0; k < r; k++)
                kill(pids[k], SIGTERM);
            break;
        }
        started++;
    }
    close(tally[1]);
    for (uint32_t r = 0; r < started; r++) {
        int st = 0, code;

        if (waitpid(pids[r], &st, 0) != pids[r] || started < n)
            continue; /* (reaped only where the run never started whole) */
        code = WIFEXITED(st) ? WEXITSTATUS(st) : CES_EXIT_DEFECT;
        if (!WIFEXITED(st))
            ces_tool_say("run: rank %" PRIu32 " died (signal %d)", r,
                         WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        if (code != CES_EXIT_OK && (ec == CES_EXIT_OK || code == CES_EXIT_DEFECT))
            ec = code;
    }
    if (started == n)
        ec = forked_tally(tally[0], n, ec);
    close(tally[0]);
    return ec;
}

#endif /* CES_HAVE_CUDA */

/* Lowers every rank of g as a GPU that has every stream memory operation
 * would, as the ranks lower it again for their GPUs: what no GPU can run (a
 * graph phase's wait that reads $i) is refused before the GPUs are asked,
 * once (each rank said it, then that none ran to the end), and where none
 * can be used; an op of the file at its place, FILE:LINE:COL, as the parser
 * says its own errors.  Returns the exit code (printed). */
static int lower_ranks(struct ces_ctx *ctx, const struct ces_graph *g, const char *place)
{
    const struct ces_cuda_caps every = {1, 1, 0, CES_CUDA_SPLIT_WAIT_BYTES};

    for (uint32_t r = 0; r < ces_graph_ranks(g); r++) {
        struct ces_cuda_plan *p = NULL;
        const char *why;
        char *msg;
        int rc = ces_cuda_lower(ctx, g, r, &every, CES_LOWER_PROGRESS | CES_LOWER_FLIGHT, &p);

        ces_cuda_plan_destroy(p);
        if (rc == CES_OK)
            continue;
        why = ces_ctx_last_error(ctx);
        msg = ces_tool_op_message("run", place, why, NULL);
        if (msg == NULL)
            return ces_tool_fail("run: %s", why);
        ces_tool_say("%s", msg);
        free(msg);
        return CES_EXIT_USAGE;
    }
    return CES_EXIT_OK;
}

int ces_cmd_run(int argc, char **argv)
{
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g = NULL;
    char **args = NULL, ranks_buf[16];
    const char *input, *place;
    int nargs = 0, single = 0, has_ranks = 0, ec;
    struct probe *probe = NULL;
    struct ces_cuda_settings settings;
    uint32_t n, gpus, queues;

    if (ces_tool_wants_help(argc, argv))
        return run_help();
    /* each argument judged in its place, as ces_tool_load judges them, the
     * first wrong one said: a value missing, or another option in its
     * place (run --sync asked "which schedule?"), a value the option does
     * not take (run --bytes 1q --bogus said --bogus), an unknown option
     * (run --bogus asked "which schedule?" too), a second schedule, and
     * --ranks past the ranks a run drives (it said 1..1024, what a
     * schedule may have); the argument after -- is the schedule, whatever
     * its name (ces_tool_input), and a -- after it is refused here: left
     * to ces_tool_load, a --single-process after it was taken for the
     * option and the -- for one that ends the line (run barrier --
     * --single-process ran the barrier) */
    input = ces_tool_input(argc, argv, NULL);
    place = ces_tool_input_place(argc, argv, NULL);
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint32_t ranks;

        if (argv[i] == input || (strcmp(argv[i], "--") == 0 && v == NULL))
            continue;
        if (strcmp(argv[i], "--") == 0 && v != input)
            return ces_tool_second_schedule("run", input);
        if (strcmp(argv[i], "--") == 0) {
            i++;
            continue;
        }
        if (argv[i][0] != '-' || argv[i][1] == '\0' ||
            (!ces_tool_builder_valued(argv[i]) && !ces_tool_builder_flag(argv[i]) &&
             strcmp(argv[i], "--single-process") != 0))
            return ces_tool_unexpected("run", argv[i]);
        has_ranks |= strcmp(argv[i], "--ranks") == 0;
        if (!ces_tool_builder_valued(argv[i]))
            continue;
        if (strcmp(argv[i], "--ranks") == 0
                ? ces_tool_count("run", argv[i], v, 1, RUN_MAX_RANKS, &ranks) != CES_EXIT_OK
                : ces_tool_builder_value("run", argv[i], v) != CES_EXIT_OK)
            return CES_EXIT_USAGE;
        i++;
    }
    /* the schedule wherever it stands; an option alone names none (run
     * --single-process ran the other commands' default) */
    if (input == NULL)
        return ces_tool_fail("run: which schedule? (a .ces file or a collective; --help)");
    /* Our options out; --ranks = the GPUs present for a collective, unless
     * given (at least 2: a collective needs them, and the schedule is
     * checked before the GPUs are), put first: a -- that ends the line
     * names no schedule after it (run barrier -- said "'--' names the
     * schedule, but 'barrier' is one already").  --graph takes --sync
     * credit unless --sync is given, as in every command (ces_tool_load). */
    args = calloc((size_t)argc + 3, sizeof(char *));
    if (args == NULL)
        return ces_tool_fail("out of memory");
    if (!has_ranks && ces_coll_from_name(input) >= 0) {
        args[nargs++] = "--ranks";
        args[nargs++] = ranks_buf; /* (written once the GPUs are counted) */
    }
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--single-process") == 0 && argv[i] != input)
            single = 1;
        else
            args[nargs++] = argv[i];
    }
#if defined(CES_HAVE_CUDA)
    probe = probe_gpus();
    if (probe == NULL) {
        ec = CES_EXIT_USAGE;
        goto out;
    }
    gpus = probe->d.count;
#else
    gpus = 0; /* (as a build with CUDA counts them on a machine without a GPU) */
#endif
    snprintf(ranks_buf, sizeof(ranks_buf), "%" PRIu32, ces_tool_run_ranks(gpus));
    if (ces_ctx_create(NULL, &ctx) != CES_OK) {
        ec = ces_tool_fail("out of memory");
        goto out;
    }
    /* the input first: a wrong file or option is said as such, GPUs or not */
    ec = ces_tool_load("run", ctx, nargs, args, NULL, NULL, NULL, NULL, &g, NULL);
    if (ec != CES_EXIT_OK)
        goto out;
    /* A collective's graph declares the hardware queues its streams will
     * share here (the builders are proved for them too); a file's must have
     * been checked for them: refused here as ces_cuda_run_prepare refuses
     * it in every rank, once, GPUs or not, naming the file (the rank's
     * words name the call, "ces_launch: ") */
    queues = ces_cuda_queues(getenv("CUDA_DEVICE_MAX_CONNECTIONS"));
    if (ces_coll_from_name(input) >= 0 && ces_cuda_queues_adopt(g, queues) != CES_OK) {
        ec = ces_tool_fail("run: %s", ces_ctx_last_error(ctx));
        goto out;
    }
    if (ces_cuda_queues_check(ctx, g, queues) != CES_OK) {
        const char *why = ces_ctx_last_error(ctx);

        if (strncmp(why, "ces_launch: ", 12) == 0)
            why += 12;
        ec = ces_tool_fail_at("run", place, why);
        goto out;
    }
    n = ces_graph_ranks(g);
    if (n > RUN_MAX_RANKS) {
        char why[128], at[32];

        ces_setting_where(at, sizeof(at), g, CES_SETTING_RANKS);
        snprintf(why, sizeof(why), "the schedule has %" PRIu32 " ranks%s; at most %u can run", n,
                 at, RUN_MAX_RANKS);
        ec = ces_tool_fail_at("run", place, why);
        goto out;
    }
    /* the environment every rank reads (CES_TIMEOUT_MS, ...), as the input,
     * GPUs or not, and once: each forked rank said a malformed one; before
     * the lowering, which a large schedule takes seconds for */
    if (ces_cuda_settings_read(ctx, &settings) != CES_OK) {
        ec = ces_tool_fail("run: %s", ces_ctx_last_error(ctx));
        goto out;
    }
    ec = lower_ranks(ctx, g, place);
    if (ec != CES_EXIT_OK)
        goto out;
#if defined(CES_HAVE_CUDA)
    ec = run_gpus(ctx, probe, g, place, single);
#else
    /* every check above is the one a build with CUDA makes, GPUs or not
     * (the same words, in the same order): the GPUs come after them */
    (void)single;
    ec = ces_tool_fail("run: this cesync was built without CUDA");
#endif
out:
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    free(probe);
    free(args);
    return ec;
}
