/*
 * tests/cuda/test_sequence.c - consecutive calls of DIFFERENT collectives on
 * one communicator, proved as the backend issues them (backend/cuda/exec.c,
 * coll_issue), on the CPU.
 *
 * What the calls share: their signal arrays are keyed by protocol, name,
 * width and slots ("mono:ready:u64x1", "mono:complete:u64x1" for every
 * eager call, the eager barrier using `ready` only; "pull:ready:u32xN",
 * "pull:complete:u32xN" for every captured call but the barrier;
 * "credit:ready:u32xN", "credit:ready_ack:u32xN" for the captured
 * barrier), the wake chain's buffer ("buffer:wake:2097152", of every
 * protocol), the call number k counted per protocol (c->calls[proto]),
 * the internal streams c->streams[1..2], the events c->events[i] by the
 * graph's event index, and the fork and join events.
 *
 * Each call is composed into ONE checker graph the way coll_issue issues
 * it on each rank: the parameters ces_cuda_coll_select picks (in place
 * where that rank's pointers say so, ces_cuda_coll_in_place), the plan
 * cached from the build at call 1 lowered for that rank, its memop values
 * patched to the call's number (va + vb * (k - 1), from the builds at calls
 * 1, 2, 3: ces_cuda_plan_linear), or the plan built at k where they are
 * not linear; every CUDA call of the plan in its enqueue order turned back
 * into graph ops, on stream s (the caller's stream s0, the shared internal
 * s1, s2); the backend's fork and join of the plan's streams as explicit
 * record / await ops of events `fork` and `joinS`; the graph's events
 * e0, e1, ... by index; a signal array per backend key; all user and
 * internal buffers as offsets in one buffer `mem` a rank (the flat
 * symmetric range), so that a buffer the user reuses, an in-place call's
 * aliasing and the shared wake buffer are the same bytes.  Eager calls
 * are a block each (each its own iteration, so its produces are a
 * generation of their own); captured calls are one graph block replayed
 * `reps` times.  A consume expects each rank's part where that rank's
 * own pointers put it (from the out-of-place form: ranks may differ in
 * place).  Checked with CES_CHECK_UNLINKED (the composed graph's own
 * events are its only links between streams, nothing the checker adds at
 * block boundaries) and without, each search complete.
 *
 * Proved OK, 2, 3 and 4 ranks: eager mono sequences (the question's
 * alltoall, broadcast from 1, barrier, allgather, scatter from 0 over
 * reused buffers; in place; ranks differing in place), captured pull
 * sequences replayed three times, the captured barrier's credit among
 * them, eager and captured in turn, and all six collectives in each
 * rotation, eager and captured; each with a queue per stream, over one
 * and two hardware queues (the queues adopted per call), and on 2 ranks
 * without the reduction and under every queue assignment of its three
 * streams.  Mutants of the composition (a call number taken twice, a
 * call's `complete` waits dropped) are RACE,MISMATCH.
 */
#include "ces_test.h"
#include "lower.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const struct ces_cuda_caps h200 = {0, 1, 0, CES_CUDA_SPLIT_WAIT_BYTES};

#define MAX_RANKS 4u
#define BYTES 24u /* a rank's bytes: a multiple of 2, 3 and 4 (alltoall) */
#define USER_BYTES 2048u /* the user's buffers lie below, the internal ones above */
#define MEM_BYTES (USER_BYTES + CES_COLL_WAKE_BYTES)
#define STREAMS 3u
#define ROOT_LAST UINT32_MAX /* the root n - 1 */
#define MAX_KEYS 16u

/* One call as a user makes it: the collective, its root, and where its
 * buffers lie in every rank's memory (the same offsets on every rank); the
 * ranks of `inplace` (bit r: rank r) pass the in-place pointers of their
 * rank instead (allgather and gather: send = recv + r*bytes; broadcast:
 * send = recv; scatter: recv = send + root*bytes), from `recv` (scatter:
 * from `send`). */
struct call {
    uint32_t coll, root;
    uint64_t send, recv;
    uint32_t inplace;
};
#define IP_ALL 0xfu /* every rank in place */

/* A part of the sequence: eager calls (a block each), or calls captured
 * into one CUDA graph replayed `reps` times. */
struct part {
    int cap;
    uint32_t reps;
    size_t ncalls;
    const struct call *calls;
};

/* Mutants of the composition, to show it can fail. */
enum {
    MUT_NONE = 0,
    MUT_SAME_K,    /* the call `target` takes its protocol's previous number again */
    MUT_NO_COMPLETE /* the call `target` loses its waits on `complete` */
};

struct comp {
    struct ces_ctx *ctx;
    struct ces_graph *g;
    uint32_t n, mem;
    uint64_t k[MAX_RANKS][CES_PROTO_COUNT]; /* c->calls[proto] of each rank */
    char sigkey[MAX_KEYS][64];
    uint32_t sig[MAX_KEYS];
    size_t nsig;
    char bufkey[MAX_KEYS][64];
    uint64_t bufoff[MAX_KEYS];
    size_t nbuf;
    uint64_t top;
    uint32_t queues; /* ces_cuda_queues_shared: 0, or the process's fewer queues */
    unsigned mutant;
    uint32_t target, ncall; /* the call the mutant changes; calls composed so far */
    unsigned patched, rebuilt; /* calls issued from the patched cached plan, rebuilt at k */
    char declared[MAX_RANKS][128]; /* the internal buffers of each rank's cached graph */
};

static void add_op(struct comp *c, uint32_t r, const struct ces_op *op)
{
    if (ces_graph_add_op(c->g, r, op) != CES_OK)
        fail_msg("add_op: %s", ces_ctx_last_error(c->ctx));
}

static uint32_t event(struct comp *c, const char *name)
{
    int64_t e = ces_graph_find_event(c->g, name);
    uint32_t idx = 0;

    if (e >= 0)
        return (uint32_t)e;
    assert_int_equal(ces_graph_add_event(c->g, name, &idx), CES_OK);
    return idx;
}

static void event_op(struct comp *c, uint32_t r, uint8_t kind, uint32_t stream, const char *name)
{
    struct ces_op op;

    memset(&op, 0, sizeof(op));
    op.kind = kind;
    op.stream = stream;
    op.event = event(c, name);
    add_op(c, r, &op);
}

/* The composed signal of the backend's key (signal_off: "%s:%s:u%ux%u" of
 * the protocol, name, width and slots). */
static uint32_t signal_of(struct comp *c, const struct ces_graph *g, uint32_t proto,
                          uint32_t sig)
{
    struct ces_signal_info si = ces_graph_signal(g, sig);
    char key[64], name[64];

    snprintf(key, sizeof(key), "%s:%s:u%" PRIu32 "x%" PRIu32, ces_proto_name((int)proto),
             si.name, si.width, si.slots);
    for (size_t i = 0; i < c->nsig; i++)
        if (strcmp(c->sigkey[i], key) == 0)
            return c->sig[i];
    assert_true(c->nsig < MAX_KEYS);
    snprintf(name, sizeof(name), "%s_%s_u%" PRIu32 "x%" PRIu32, ces_proto_name((int)proto),
             si.name, si.width, si.slots);
    assert_int_equal(ces_graph_add_signal(c->g, name, si.width, si.slots, &c->sig[c->nsig]),
                     CES_OK);
    snprintf(c->sigkey[c->nsig], sizeof(c->sigkey[0]), "%s", key);
    return c->sig[c->nsig++];
}

/* A region of g (buffer send, recv or internal) in `mem`: send and recv at
 * the offsets given, an internal buffer where its key ("buffer:%s:%llu",
 * no protocol: shared by every protocol) was first placed. */
static struct ces_region region_of(struct comp *c, const struct ces_graph *g,
                                   const struct ces_region *x, uint64_t soff, uint64_t roff)
{
    struct ces_buffer_info bi = ces_graph_buffer(g, x->buf);
    struct ces_region out;
    uint64_t off = 0;

    if (strcmp(bi.name, "send") == 0) {
        off = soff;
    } else if (strcmp(bi.name, "recv") == 0) {
        off = roff;
    } else {
        char key[64];
        size_t i = 0;

        snprintf(key, sizeof(key), "buffer:%s:%" PRIu64, bi.name, bi.size);
        while (i < c->nbuf && strcmp(c->bufkey[i], key) != 0)
            i++;
        if (i == c->nbuf) {
            assert_true(c->nbuf < MAX_KEYS);
            snprintf(c->bufkey[i], sizeof(c->bufkey[0]), "%s", key);
            c->bufoff[i] = c->top;
            c->top += (bi.size + 7) / 8 * 8;
            assert_true(c->top <= MEM_BYTES);
            c->nbuf++;
        }
        off = c->bufoff[i];
    }
    if (off + bi.size > (off < USER_BYTES ? USER_BYTES : MEM_BYTES))
        fail_msg("buffer %s of %" PRIu64 " bytes at %" PRIu64 " does not fit", bi.name, bi.size,
                 off);
    out.buf = c->mem;
    out.rank = x->rank;
    out.lo = off + x->lo;
    out.hi = off + x->hi;
    return out;
}

/* The offsets of a call's send and recv on rank r, as its pointers are. */
static void offsets(const struct comp *c, const struct call *cl, uint32_t r, uint64_t *soff,
                    uint64_t *roff)
{
    uint32_t root = cl->root == ROOT_LAST ? c->n - 1 : cl->root;

    *soff = cl->send;
    *roff = cl->recv;
    if (!((cl->inplace >> r) & 1))
        return;
    switch (cl->coll) {
    case CES_COLL_ALLGATHER:
    case CES_COLL_GATHER:
        *soff = cl->recv + (uint64_t)r * BYTES;
        break;
    case CES_COLL_SCATTER:
        *roff = cl->send + (uint64_t)root * BYTES;
        break;
    case CES_COLL_BROADCAST:
        *soff = cl->recv;
        break;
    default:
        fail_msg("%s has no in-place form", ces_coll_name((int)cl->coll));
    }
}

static void build_lower(struct comp *c, const struct ces_coll_params *p, uint64_t first,
                        uint32_t rank, unsigned flags, struct ces_graph **g,
                        struct ces_cuda_plan **plan)
{
    struct ces_coll_params q = *p;

    q.first_iter = first;
    assert_int_equal(ces_coll_build(c->ctx, &q, g), CES_OK);
    /* fewer hardware queues than streams: the graph declares them and is
     * lowered in queue order (build_lower in exec.c) */
    assert_int_equal(ces_cuda_queues_adopt(*g, c->queues), CES_OK);
    assert_int_equal(ces_cuda_lower(c->ctx, *g, rank, &h200, flags, plan), CES_OK);
}

/* Rank r's part of call `cl` (captured or not), as coll_issue issues it. */
static void issue(struct comp *c, const struct call *cl, int cap, uint32_t r)
{
    struct ces_coll_params p;
    struct ces_graph *g[3] = {NULL, NULL, NULL}, *gk = NULL, *g0, *gout = NULL;
    struct ces_cuda_plan *pout = NULL;
    const struct ces_op *outops;
    uint32_t nout = 0, iout = 0;
    struct ces_cuda_plan *pl[3] = {NULL, NULL, NULL}, *pk = NULL;
    const struct ces_cuda_pblock *blk;
    const uint64_t base = UINT64_C(1) << 32; /* where `mem` lies in the process */
    uint64_t va[512], vb[512], soff, roff, k;
    unsigned flags = ces_cuda_coll_lower_flags(cap, 1);
    uint32_t root = cl->root == ROOT_LAST ? c->n - 1 : cl->root, streams;
    int in_place, linear;

    offsets(c, cl, r, &soff, &roff);
    ces_cuda_coll_select(&p, cl->coll, c->n, BYTES, root, cap);
    in_place = ces_cuda_coll_in_place(cl->coll, r, BYTES, root, (uintptr_t)(base + soff),
                                      (uintptr_t)(base + roff));
    assert_int_equal(in_place, (cl->inplace >> r) & 1);
    /* what a consume expects, from the out-of-place form: every rank's
     * part as its send (that rank's own pointer), whichever form the
     * rank that sent it ran; the in-place form names it as its block of
     * recv, where only an in-place sender put it */
    build_lower(c, &p, 1, r, 0, &gout, &pout);
    outops = ces_graph_ops(gout, 0, r, &nout);
    if (in_place)
        p.flags = CES_COLL_F_INPLACE;
    /* the cache: the build at call 1, lowered; its values linear? */
    for (int i = 0; i < 3; i++)
        build_lower(c, &p, (uint64_t)i + 1, r, flags, &g[i], &pl[i]);
    assert_int_equal(pl[0]->nblocks, 1);
    assert_true(pl[0]->blocks[0].memops.len <= sizeof(va) / sizeof(va[0]));
    linear = ces_cuda_plan_linear(pl[0], pl[1], pl[2], va, vb);
    /* the internal buffers the cache entry takes (cache_get: every buffer
     * of its graph but send and recv, symmetric memory allocated in step
     * by every rank) */
    c->declared[r][0] = '\0';
    for (uint32_t b = 0; b < ces_graph_nbuffers(g[0]); b++) {
        struct ces_buffer_info bi = ces_graph_buffer(g[0], b);
        size_t len = strlen(c->declared[r]);

        if (strcmp(bi.name, "send") != 0 && strcmp(bi.name, "recv") != 0)
            snprintf(c->declared[r] + len, sizeof(c->declared[r]) - len, "%s:%" PRIu64 ";",
                     bi.name, bi.size);
    }
    /* and the wake chain's buffer wherever the call selects a chain: a
     * gather out of place declares none, and takes it all the same */
    if (p.wake > 0 && ces_graph_find_buffer(g[0], "wake") < 0) {
        size_t len = strlen(c->declared[r]);

        snprintf(c->declared[r] + len, sizeof(c->declared[r]) - len, "wake:%u;",
                 CES_COLL_WAKE_BYTES);
    }
    /* the call's number, taken per protocol */
    k = c->k[r][p.proto] + 1;
    if (c->mutant == MUT_SAME_K && c->ncall == c->target && k > 1)
        k--;
    c->k[r][p.proto] = k;
    if (linear) {
        g0 = g[0];
        blk = &pl[0]->blocks[0];
        c->patched += r == 0;
    } else {
        build_lower(c, &p, k, r, flags, &gk, &pk);
        g0 = gk;
        blk = &pk->blocks[0];
        c->rebuilt += r == 0;
    }
    streams = ces_graph_streams(g0);
    assert_true(streams <= STREAMS);
    /* fork_streams: stream 0 records `fork`, the forked streams await it */
    if (blk->fork != 0)
        event_op(c, r, CES_OP_RECORD, 0, "fork");
    for (uint32_t s = 1; s < streams; s++)
        if (blk->fork & (UINT64_C(1) << s))
            event_op(c, r, CES_OP_AWAIT, s, "fork");
    /* issue_block: every call of the plan in its order */
    for (size_t i = 0; i < blk->calls.len; i++) {
        const struct ces_cuda_call *call = &CES_VEC_AT(&blk->calls, struct ces_cuda_call, i);
        struct ces_op op;
        char name[16];

        memset(&op, 0, sizeof(op));
        op.stream = call->stream;
        switch (call->kind) {
        case CES_CALL_COPY_BATCH:
        case CES_CALL_COPY:
            if (call->kind == CES_CALL_COPY_BATCH) {
                op.kind = CES_OP_BATCH;
                add_op(c, r, &op);
            }
            for (uint32_t j = 0; j < call->count; j++) {
                const struct ces_cuda_copy *cp =
                    &CES_VEC_AT(&blk->copies, struct ces_cuda_copy, call->first + j);

                op.kind = CES_OP_COPY;
                op.a = region_of(c, g0, &cp->src, soff, roff);
                op.b = region_of(c, g0, &cp->dst, soff, roff);
                add_op(c, r, &op);
            }
            if (call->kind == CES_CALL_COPY_BATCH) {
                memset(&op.a, 0, sizeof(op.a));
                memset(&op.b, 0, sizeof(op.b));
                op.kind = CES_OP_END;
                add_op(c, r, &op);
            }
            break;
        case CES_CALL_MEMOPS:
            for (uint32_t j = 0; j < call->count; j++) {
                uint32_t mi = call->first + j;
                const struct ces_cuda_memop *m =
                    &CES_VEC_AT(&blk->memops, struct ces_cuda_memop, mi);
                /* issue_memops: the cached plan's value patched to call k */
                uint64_t v = linear ? ces_cuda_patched_value(va, vb, mi, k) : m->value;

                memset(&op, 0, sizeof(op));
                op.stream = call->stream;
                switch (m->kind) {
                case CES_MEMOP_WRITE32:
                case CES_MEMOP_WRITE64:
                case CES_MEMOP_WAIT32:
                case CES_MEMOP_WAIT64:
                    op.kind = m->kind == CES_MEMOP_WRITE32 || m->kind == CES_MEMOP_WRITE64
                                  ? CES_OP_WRITE
                                  : CES_OP_WAIT;
                    if (c->mutant == MUT_NO_COMPLETE && c->ncall == c->target &&
                        op.kind == CES_OP_WAIT &&
                        strcmp(ces_graph_signal(g0, m->slot.sig).name, "complete") == 0)
                        continue;
                    op.cmp = m->cmp;
                    op.slot = m->slot;
                    op.slot.sig = signal_of(c, g0, p.proto, m->slot.sig);
                    op.value = m->kind == CES_MEMOP_WRITE32 || m->kind == CES_MEMOP_WAIT32
                                   ? (v & UINT32_MAX)
                                   : v;
                    break;
                case CES_MEMOP_BARRIER:
                    op.kind = CES_OP_FENCE;
                    break;
                case CES_MEMOP_FLUSH:
                    op.kind = CES_OP_FLUSH;
                    break;
                default:
                    continue; /* the watchdog's own words: nothing reads them */
                }
                add_op(c, r, &op);
            }
            break;
        case CES_CALL_RECORD:
        case CES_CALL_AWAIT:
            /* c->events[call->event]: one CUDA event per index, every call */
            snprintf(name, sizeof(name), "e%" PRIu32, call->event);
            event_op(c, r, call->kind == CES_CALL_RECORD ? CES_OP_RECORD : CES_OP_AWAIT,
                     call->stream, name);
            break;
        case CES_CALL_PRODUCE:
            op.kind = CES_OP_PRODUCE;
            op.a = region_of(c, g0, &call->a, soff, roff);
            add_op(c, r, &op);
            break;
        default: {
            /* a consume reads its own bytes against rank q's, where q's
             * pointers put them */
            uint64_t qs = 0, qr = 0;
            struct ces_region a;

            op.kind = CES_OP_CONSUME;
            op.a = region_of(c, g0, &call->a, soff, roff);
            while (iout < nout && outops[iout].kind != CES_OP_CONSUME)
                iout++;
            assert_true(iout < nout);
            /* the out-of-place form's consume reads the same bytes */
            a = region_of(c, gout, &outops[iout].a, soff, roff);
            assert_memory_equal(&a, &op.a, sizeof(a));
            assert_int_equal(call->expect, (outops[iout].flags & CES_OPF_EXPECT) != 0);
            if (call->expect) {
                offsets(c, cl, outops[iout].b.rank, &qs, &qr);
                op.b = region_of(c, gout, &outops[iout].b, qs, qr);
                op.flags = CES_OPF_EXPECT;
            }
            iout++;
            add_op(c, r, &op);
            break;
        }
        }
    }
    /* join_streams: each joined stream records `joinS`, stream 0 awaits it */
    for (uint32_t s = 1; s < streams; s++) {
        char name[16];

        if (!(blk->join & (UINT64_C(1) << s)))
            continue;
        snprintf(name, sizeof(name), "join%" PRIu32, s);
        event_op(c, r, CES_OP_RECORD, s, name);
        event_op(c, r, CES_OP_AWAIT, 0, name);
    }
    for (int i = 0; i < 3; i++) {
        ces_cuda_plan_destroy(pl[i]);
        ces_graph_destroy(g[i]);
    }
    while (iout < nout && outops[iout].kind != CES_OP_CONSUME)
        iout++;
    assert_int_equal(iout, nout); /* as many consumes in either form */
    ces_cuda_plan_destroy(pk);
    ces_graph_destroy(gk);
    ces_cuda_plan_destroy(pout);
    ces_graph_destroy(gout);
}

/* The graph of the sequence `parts` on n ranks. */
static struct ces_graph *compose(struct comp *c, struct ces_ctx *ctx, uint32_t n,
                                 uint32_t queues, const struct part *parts, size_t nparts,
                                 unsigned mutant, uint32_t target)
{
    memset(c, 0, sizeof(*c));
    c->ctx = ctx;
    c->n = n;
    c->queues = queues;
    c->mutant = mutant;
    c->target = target;
    c->top = USER_BYTES;
    assert_true(n <= MAX_RANKS);
    assert_int_equal(ces_graph_create(ctx, n, STREAMS, &c->g), CES_OK);
    /* the process's streams on its queues: s0 (the caller's), s1, s2 */
    if (queues > 0 && queues < STREAMS)
        assert_int_equal(ces_graph_set_connections(c->g, queues), CES_OK);
    assert_int_equal(ces_graph_add_buffer(c->g, "mem", MEM_BYTES, &c->mem), CES_OK);
    for (size_t i = 0; i < nparts; i++) {
        const struct part *pt = &parts[i];

        if (pt->cap)
            assert_int_equal(ces_graph_add_block(c->g, CES_PHASE_GRAPH, pt->reps), CES_OK);
        for (size_t j = 0; j < pt->ncalls; j++, c->ncall++) {
            if (!pt->cap)
                assert_int_equal(ces_graph_add_block(c->g, CES_PHASE_EAGER, 1), CES_OK);
            for (uint32_t r = 0; r < n; r++)
                issue(c, &pt->calls[j], pt->cap, r);
            /* every rank's entry takes the same internal buffers, so that
             * one offset per key is every rank's */
            for (uint32_t r = 1; r < n; r++)
                assert_string_equal(c->declared[r], c->declared[0]);
        }
    }
    if (ces_graph_validate(c->g, NULL) != CES_OK)
        fail_msg("the composed graph does not validate: %s", ces_ctx_last_error(ctx));
    return c->g;
}

/* Totals over every check that proved a sequence OK. */
static unsigned total_checks;
static uint64_t total_states;
static double total_seconds;

/* The checker's verdict on g (flags: enum ces_check_flags; map: a queue
 * map or NULL), the search complete; prints the report where it is not
 * `want`. */
static uint32_t verdict(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t flags,
                        const uint32_t *map, uint32_t want)
{
    struct ces_check_opts o;
    struct ces_check_report *rep = NULL;
    struct ces_check_stats st;
    uint32_t v;

    ces_check_opts_init(&o);
    o.flags = flags;
    o.queue_map = map;
    o.max_seconds = 60;
    if (ces_check(ctx, g, &o, &rep) != CES_OK)
        fail_msg("check: %s", ces_ctx_last_error(ctx));
    st = ces_check_report_stats(rep);
    assert_int_equal(st.complete, 1);
    v = ces_check_report_verdict(rep);
    if (v != want)
        ces_check_report_print(ctx, rep, stderr);
    if (v == CES_V_OK) {
        total_checks++;
        total_states += st.states;
        total_seconds += st.seconds;
    }
    ces_check_report_destroy(rep);
    return v;
}

/* g proved OK unlinked (its own events its only links between streams)
 * and linked (the checker's links at block and replay boundaries too). */
static void prove_graph(struct ces_ctx *ctx, const struct ces_graph *g, const uint32_t *map)
{
    assert_int_equal(verdict(ctx, g, CES_CHECK_UNLINKED, map, CES_V_OK), CES_V_OK);
    assert_int_equal(verdict(ctx, g, 0, map, CES_V_OK), CES_V_OK);
}

/* The sequence proved OK on n ranks: with a queue per stream; over one
 * hardware queue and over two (CUDA_DEVICE_MAX_CONNECTIONS=1, 2: each
 * call's graph adopts them and is lowered in queue order); on 2 ranks
 * also without the reduction, and under every assignment of the three
 * streams to queues that CUDA may make (queues per stream: the plans
 * unchanged). */
static void prove_n(struct ces_ctx *ctx, const char *what, uint32_t n, const struct part *parts,
                    size_t nparts)
{
    struct comp c;
    struct ces_graph *g = compose(&c, ctx, n, 0, parts, nparts, MUT_NONE, 0);
    unsigned checks = total_checks;
    uint64_t states = total_states;
    double seconds = total_seconds;

    assert_int_equal(c.rebuilt, 0); /* every call issued from its patched plan */
    assert_int_equal(c.patched, c.ncall);
    prove_graph(ctx, g, NULL);
    if (n == 2) {
        uint32_t map[2 * STREAMS] = {0};

        assert_int_equal(verdict(ctx, g, CES_CHECK_UNLINKED | CES_CHECK_NO_REDUCTION, NULL,
                                 CES_V_OK),
                         CES_V_OK);
        while (ces_queue_map_next(n, STREAMS, STREAMS, map))
            prove_graph(ctx, g, map);
    }
    ces_graph_destroy(g);
    for (uint32_t q = 1; q < STREAMS; q++) {
        g = compose(&c, ctx, n, q, parts, nparts, MUT_NONE, 0);
        prove_graph(ctx, g, NULL);
        ces_graph_destroy(g);
    }
    print_message("%s, %" PRIu32 " ranks, %u calls: OK in %u checks, %" PRIu64
                  " states, %.3f s\n",
                  what, n, c.ncall, total_checks - checks, total_states - states,
                  total_seconds - seconds);
}

/* The sequence proved OK on 2, 3 and 4 ranks. */
static void prove(const char *what, const struct part *parts, size_t nparts)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    for (uint32_t n = 2; n <= MAX_RANKS; n++)
        prove_n(ctx, what, n, parts, nparts);
    ces_test_ctx_end(ctx, &st);
}

#define NCALLS(a) (sizeof(a) / sizeof((a)[0]))

/* The sequence of the question, eager (mono, counted 1..5 by every rank):
 * alltoall, broadcast from 1, barrier, allgather, scatter from 0, every
 * call with the same send and recv (a user reusing them). */
static const struct call eager_mix[] = {
    {CES_COLL_ALLTOALL, 0, 0, 128, 0},  {CES_COLL_BROADCAST, 1, 0, 128, 0},
    {CES_COLL_BARRIER, 0, 0, 128, 0},   {CES_COLL_ALLGATHER, 0, 0, 128, 0},
    {CES_COLL_SCATTER, 0, 0, 128, 0},
};

static void test_eager_mix(void **state)
{
    const struct part parts[] = {{0, 1, NCALLS(eager_mix), eager_mix}};

    (void)state;
    prove("eager mono", parts, 1);
}

/* Eager, gather to the last rank, then in place (every rank's pointers):
 * allgather, broadcast from 0, a barrier, scatter from 1 (the wake chain
 * on s1, where the out-of-place calls run their local copy), then an
 * out-of-place alltoall, all over the same bytes. */
static const struct call eager_inplace[] = {
    {CES_COLL_GATHER, ROOT_LAST, 0, 128, 0},   {CES_COLL_ALLGATHER, 0, 0, 128, IP_ALL},
    {CES_COLL_BROADCAST, 0, 0, 128, IP_ALL},   {CES_COLL_BARRIER, 0, 0, 128, 0},
    {CES_COLL_SCATTER, 1, 0, 0, IP_ALL},       {CES_COLL_ALLTOALL, 0, 0, 128, 0},
};

static void test_eager_inplace(void **state)
{
    const struct part parts[] = {{0, 1, NCALLS(eager_inplace), eager_inplace}};

    (void)state;
    prove("eager mono in place", parts, 1);
}

/* Captured pull calls, each over buffers of its own (so that bytes a call
 * left are told from the next call's of the same replay), in one graph
 * replayed three times: alltoall, broadcast from 1, allgather, scatter
 * from 0, gather to 1. */
static const struct call captured_pull[] = {
    {CES_COLL_ALLTOALL, 0, 0, 96, 0},     {CES_COLL_BROADCAST, 1, 192, 288, 0},
    {CES_COLL_ALLGATHER, 0, 384, 480, 0}, {CES_COLL_SCATTER, 0, 576, 672, 0},
    {CES_COLL_GATHER, 1, 768, 864, 0},
};

static void test_captured_pull(void **state)
{
    const struct part parts[] = {{1, 3, NCALLS(captured_pull), captured_pull}};

    (void)state;
    prove("captured pull", parts, 1);
}

/* The captured barrier (credit) among captured pull calls over the same
 * buffers, in one graph replayed three times: barrier, broadcast from 0,
 * two barriers in a row, alltoall. */
static const struct call captured_credit[] = {
    {CES_COLL_BARRIER, 0, 0, 128, 0},  {CES_COLL_BROADCAST, 0, 0, 128, 0},
    {CES_COLL_BARRIER, 0, 0, 128, 0},  {CES_COLL_BARRIER, 0, 0, 128, 0},
    {CES_COLL_ALLTOALL, 0, 0, 128, 0},
};

static void test_captured_credit(void **state)
{
    const struct part parts[] = {{1, 3, NCALLS(captured_credit), captured_credit}};

    (void)state;
    prove("captured credit", parts, 1);
}

/* Eager and captured in turn over the same buffers: an eager alltoall
 * (mono 1), a graph of a barrier (credit) and an in-place allgather (pull)
 * replayed twice, an eager barrier and broadcast from 1 (mono 2, 3), a
 * graph of a scatter from 0 (pull) replayed twice, an eager in-place
 * gather to 0 (mono 4). */
static const struct call turn_a[] = {{CES_COLL_ALLTOALL, 0, 0, 128, 0}};
static const struct call turn_b[] = {{CES_COLL_BARRIER, 0, 0, 128, 0},
                                     {CES_COLL_ALLGATHER, 0, 0, 128, IP_ALL}};
static const struct call turn_c[] = {{CES_COLL_BARRIER, 0, 0, 128, 0},
                                     {CES_COLL_BROADCAST, 1, 0, 128, 0}};
static const struct call turn_d[] = {{CES_COLL_SCATTER, 0, 0, 128, 0}};
static const struct call turn_e[] = {{CES_COLL_GATHER, 0, 0, 128, IP_ALL}};

static void test_eager_captured(void **state)
{
    const struct part parts[] = {{0, 1, NCALLS(turn_a), turn_a}, {1, 2, NCALLS(turn_b), turn_b},
                                 {0, 1, NCALLS(turn_c), turn_c}, {1, 2, NCALLS(turn_d), turn_d},
                                 {0, 1, NCALLS(turn_e), turn_e}};

    (void)state;
    prove("eager and captured", parts, NCALLS(parts));
}

/* Ranks that differ in place, each judging by its own pointers: an
 * allgather with rank 0 alone in place, a broadcast from 1 with the root
 * alone in place (send = recv; the others' send elsewhere), a gather to 0
 * with the root alone in place (only its graph declares the wake chain's
 * buffer, which every rank takes), a barrier, an alltoall; eager, then
 * captured and replayed twice, over the same bytes. */
static const struct call mixed[] = {
    {CES_COLL_ALLGATHER, 0, 0, 128, 1u},
    {CES_COLL_BROADCAST, 1, 0, 128, 2u},
    {CES_COLL_GATHER, 0, 0, 128, 1u},
    {CES_COLL_BARRIER, 0, 0, 128, 0},
    {CES_COLL_ALLTOALL, 0, 0, 128, 0},
};

static void test_mixed_in_place(void **state)
{
    const struct part parts[] = {{0, 1, NCALLS(mixed), mixed}, {1, 2, NCALLS(mixed), mixed}};

    (void)state;
    prove("mixed in place", parts, NCALLS(parts));
}

/* All six collectives in a row, in each of their six rotations, every
 * rooted call's root the next rank in turn: eager over the same buffers,
 * and captured (replayed twice) over buffers of each call's own. */
static void test_rotations(void **state)
{
    static const uint32_t colls[] = {CES_COLL_ALLTOALL, CES_COLL_BROADCAST, CES_COLL_GATHER,
                                     CES_COLL_BARRIER,  CES_COLL_ALLGATHER, CES_COLL_SCATTER};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (int cap = 0; cap < 2; cap++)
        for (uint32_t rot = 0; rot < 6; rot++)
            for (uint32_t n = 2; n <= MAX_RANKS; n++) {
                struct call calls[6];
                struct part part = {cap, cap ? 2 : 1, 6, calls};
                char what[64];

                for (uint32_t i = 0; i < 6; i++) {
                    calls[i].coll = colls[(i + rot) % 6];
                    calls[i].root = (i + rot) % n;
                    calls[i].send = cap ? 192u * i : 0;
                    calls[i].recv = cap ? 192u * i + 96 : 128;
                    calls[i].inplace = 0;
                }
                snprintf(what, sizeof(what), "%s rotation %" PRIu32,
                         cap ? "captured" : "eager", rot);
                prove_n(ctx, what, n, &part, 1);
            }
    ces_test_ctx_end(ctx, &st);
}

/* The composition can fail: the eager sequence of the question with the
 * broadcast (call 2) taking the alltoall's number 1 again, so that its
 * waits pass on the alltoall's flags; and with the allgather (call 4)
 * without its waits on `complete`, so that a rank consumes while its
 * peers' copies may still land: RACE,MISMATCH each, 2 to 4 ranks. */
static void test_mutants(void **state)
{
    const struct part parts[] = {{0, 1, NCALLS(eager_mix), eager_mix}};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (uint32_t n = 2; n <= MAX_RANKS; n++) {
        static const unsigned mutants[2][2] = {{MUT_SAME_K, 1}, {MUT_NO_COMPLETE, 3}};

        for (int i = 0; i < 2; i++) {
            struct comp c;
            struct ces_graph *g =
                compose(&c, ctx, n, 0, parts, 1, mutants[i][0], mutants[i][1]);

            for (uint32_t flags = 0; flags <= CES_CHECK_UNLINKED; flags += CES_CHECK_UNLINKED)
                assert_int_equal(verdict(ctx, g, flags, NULL, CES_V_RACE | CES_V_MISMATCH),
                                 CES_V_RACE | CES_V_MISMATCH);
            ces_graph_destroy(g);
        }
    }
    ces_test_ctx_end(ctx, &st);
}

static int totals(void **state)
{
    (void)state;
    print_message("proved: %u checks OK, %" PRIu64 " states, %.3f s in the checker\n",
                  total_checks, total_states, total_seconds);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eager_mix),      cmocka_unit_test(test_eager_inplace),
        cmocka_unit_test(test_captured_pull),  cmocka_unit_test(test_captured_credit),
        cmocka_unit_test(test_eager_captured), cmocka_unit_test(test_mixed_in_place),
        cmocka_unit_test(test_rotations),
        cmocka_unit_test(test_mutants),
    };

    return cmocka_run_group_tests(tests, NULL, totals);
}
