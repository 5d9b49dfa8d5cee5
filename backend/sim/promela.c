/*
 * backend/sim/promela.c - the Promela emitter: an equivalent model of a
 * validated graph for SPIN, to cross-check the checker.
 *
 * The model:
 * - one active proctype per (rank, stream) running that stream's unrolled ops
 *   (blocks in order, a graph block's ops once per replay); with connections
 *   N > 0 one proctype per (rank, hardware queue) running the ops of the
 *   streams s with s mod N == q in enqueue order, so a blocked op blocks
 *   everything behind it on its queue;
 * - a slot is a global byte holding the index of its value in the sorted set
 *   of values the program can store there (0 is always index 0).  A wait is a
 *   guard over the indices whose value satisfies it, computed here with the
 *   exact semantics (u32 `>=` is the cyclic compare, u64 `>=` plain, `==`
 *   exact), so wrap-around is modelled faithfully at no cost in states;
 * - copies of one batch complete in any order (a do-loop over a bit mask);
 * - record/await: each await is bound to the latest record of its event
 *   before it in the rank's enqueue order, and blocks until it ran;
 * - stop faults (a whole rank's as its streams'): a stopped stream's ops
 *   from its stop on are left out (never enqueued: an await binds to the
 *   latest record enqueued before it, and with none passes at once), and
 *   the process serving it then blocks for good (a stream that never
 *   finishes: an invalid end state);
 * - a rank's streams meet at its block and replay boundaries (the checker's
 *   links): a stream's first op of a block or replay waits for the last
 *   earlier ops of the rank's other streams, bound like records;
 * - delay faults: the model is of the graph the checker derives for them
 *   (delay.c), whose delayed writes' streams take no part in the links and
 *   have a proctype, a hardware queue, of their own;
 * - deadlocks and hangs are SPIN's invalid end states (a proctype blocked
 *   before its end);
 * - races: vector clocks, one per (rank, stream) thread.  A write or record
 *   ticks its thread's clock and leaves a snapshot with the slot or event; a
 *   satisfied wait or await joins the snapshot.  Per data unit (the gcd of all
 *   region bounds) the last write's (thread, epoch) and each thread's last
 *   read epoch; an access not ordered after them fails an assertion;
 * - data: per unit its provenance (the unit it came from + 1, 0 = its own
 *   initial bytes) and generation (a produce stamps its iteration);
 *   `consume A == B@q` in iteration I asserts that each unit of A holds B's
 *   unit with the generation of the last produce of it up to iteration I.
 */
#include "internal.h" /* cesync.h and core's string builder */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The race clocks keep a byte per (rank, stream) thread in each thread's
 * clock, each slot's and event's snapshot and each unit's reads: at most
 * 64 threads, as vclk alone is threads^2 bytes.  A model without clocks
 * has no threads. */
#define PML_MAX_THREADS 64u
/* SPIN (6.5, pan.h's MAXPROC) runs at most 255 processes; a 256th stops
 * ./pan with "too many processes". */
#define PML_MAX_PROCS 255u
#define PML_MAX_UNITS 16384u
#define PML_MAX_SLOTS 4096u
#define PML_MAX_VALUES 250u
#define PML_MAX_CLOCK 250u
#define PML_MAX_BATCH 30u
/* SPIN (6.5, dstep.c's MAXDSTEP) keeps the statements of the d_step it
 * compiles and the exit of every d_step before it in one table of 2048
 * entries; past it `spin -a` stops with "d_step sequence too long". */
#define PML_MAX_DSTEP 2047u
/* pan's state vector holds at most VECTORSZ bytes (1024 unless pan.c is
 * compiled with -DVECTORSZ=N); a larger one stops ./pan with "VECTORSZ too
 * small".  Beside the globals SPIN 6.5 keeps a few bytes of its own and,
 * per process, its header and locals (here at most an int), padded to 8:
 * the header's estimate counts 16 per process. */
#define PML_SPIN_VECTORSZ 1024u
#define PML_SPIN_VECTOR_BASE 64u
#define PML_SPIN_PROC_BYTES 16u

/* --- the unrolled program ---------------------------------------------- */

/* One op instance of a rank's unrolled enqueue list. */
struct pml_inst {
    const struct ces_op *op;
    uint64_t iter;    /* global iteration */
    uint32_t k;       /* index in its stream's unrolled program */
    int32_t bind;     /* await: instance index of its record; -1 if none enqueued */
    bool gone;        /* at or after its stream's stop: never enqueued */
    int32_t rec;      /* record: event storage index; -1 if no await uses it */
    int32_t snap;     /* the last op of its stream before a later (block, replay): the
                         event storage that a link to it reads; -1 if none */
    uint32_t link, nlink; /* the first op of its stream in a (block, replay): its
                             links, m->links[link .. link + nlink) (event storages) */
};

struct pml_slot {
    uint32_t dense;  /* rank * slots_per_rank + signal base + idx */
    uint32_t nvals;
    uint64_t *vals;  /* sorted, vals[0] == 0 */
};

/* A produce of one unit in one iteration, for expected generations. */
struct pml_gen {
    uint32_t unit;
    uint64_t iter;
};

struct pml {
    struct ces_ctx *ctx;
    const struct ces_graph *g;
    struct ces_promela_opts o;
    struct sim_delayed d; /* the delay faults' graph (g), if any */
    struct sim_expanded ex; /* the rank stops as stream stops, if any */
    uint32_t *stop;      /* [R * S] each stream's stop: its ops from it on are gone */
    uint32_t R, S, P, N; /* ranks, streams, threads, connections */
    uint32_t Q;          /* the streams in links and on shared hardware queues: the
                            schedule's, not the delayed writes' (S - Q) */
    /* per-rank unrolled lists */
    struct pml_inst **inst;
    uint32_t *ninst;
    /* data units */
    uint64_t unit;  /* bytes per unit */
    uint32_t *ubase; /* per buffer: first unit within a rank */
    uint32_t upr;    /* units per rank */
    uint32_t nunits;
    /* slots */
    uint32_t *sbase; /* per signal: first slot within a rank */
    uint32_t spr;    /* slots per rank */
    int32_t *slot_of; /* dense -> index into slots, -1 if never used */
    struct pml_slot *slots;
    uint32_t nslots;
    uint32_t nrec;   /* event storages */
    struct ces_vec links; /* int32_t: the event storages the links read */
    /* produce records sorted by (unit, iter) */
    struct pml_gen *prods;
    size_t nprods;
    uint32_t nproc; /* proctypes emitted */
    /* the d_steps emitted, and the statements of the longest */
    uint32_t ndstep;
    size_t most_stmts;
};

static uint64_t pml_gcd(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t t = a % b;

        a = b;
        b = t;
    }
    return a;
}

static int pml_cmp_gen(const void *a, const void *b)
{
    const struct pml_gen *x = a, *y = b;

    if (x->unit != y->unit)
        return x->unit < y->unit ? -1 : 1;
    return x->iter < y->iter ? -1 : x->iter > y->iter;
}

static uint32_t pml_tid(const struct pml *m, uint32_t rank, uint32_t stream)
{
    return rank * m->S + stream;
}

static uint32_t pml_unit(const struct pml *m, uint32_t rank, uint32_t buf, uint64_t off)
{
    return rank * m->upr + m->ubase[buf] + (uint32_t)(off / m->unit);
}

static void pml_free(struct pml *m)
{
    struct ces_ctx *ctx = m->ctx;

    if (m->inst != NULL) {
        for (uint32_t r = 0; r < m->R; r++)
            ces_free(ctx, m->inst[r]);
    }
    ces_free(ctx, m->inst);
    ces_free(ctx, m->ninst);
    ces_free(ctx, m->ubase);
    ces_free(ctx, m->sbase);
    ces_free(ctx, m->slot_of);
    for (uint32_t i = 0; m->slots != NULL && i < m->nslots; i++)
        ces_free(ctx, m->slots[i].vals);
    ces_free(ctx, m->slots);
    ces_free(ctx, m->prods);
    ces_vec_free(ctx, &m->links);
    ces_free(ctx, m->stop);
    ces_sim_delayed_free(ctx, &m->d);
    ces_sim_expanded_free(ctx, &m->ex);
}

static void *pml_calloc(struct pml *m, size_t n, size_t size)
{
    void *p;

    if (n == 0)
        n = 1;
    p = ces_malloc(m->ctx, n * size);
    if (p != NULL)
        memset(p, 0, n * size);
    return p;
}

static int pml_nomem(struct pml *m)
{
    return ces_ctx_error(m->ctx, CES_ERR_NOMEM, "promela: out of memory");
}

/* "r0.s1#4 (line 9:6)", op i of rank r's unrolled list as a refusal names
 * it (ces_op_where: its file's place where it has one). */
static void pml_where(const struct pml *m, char *buf, size_t size, uint32_t r, uint32_t i)
{
    const struct pml_inst *in = &m->inst[r][i];

    ces_op_where(buf, size, r, in->op->stream, in->k, in->op);
}

/* Builds the per-rank unrolled lists and binds awaits to records. */
static int pml_unroll(struct pml *m)
{
    const struct ces_graph *g = m->g;
    uint32_t nev = ces_graph_nevents(g);
    int32_t *last = NULL;
    uint32_t kcount[CES_MAX_STREAMS];
    int rc = CES_OK;

    m->inst = pml_calloc(m, m->R, sizeof(*m->inst));
    m->ninst = pml_calloc(m, m->R, sizeof(*m->ninst));
    last = pml_calloc(m, nev, sizeof(*last));
    if (m->inst == NULL || m->ninst == NULL || last == NULL) {
        rc = pml_nomem(m);
        goto out;
    }
    for (uint32_t r = 0; r < m->R; r++) {
        size_t total = 0, at = 0;

        for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
            uint32_t n;

            (void)ces_graph_ops(g, b, r, &n);
            total += (size_t)n * ces_graph_block(g, b).reps;
        }
        if (total > 100000) {
            rc = ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                               "promela: rank %" PRIu32 " has %zu unrolled ops (at most 100000)",
                               r, total);
            goto out;
        }
        m->inst[r] = pml_calloc(m, total, sizeof(struct pml_inst));
        if (m->inst[r] == NULL) {
            rc = pml_nomem(m);
            goto out;
        }
        memset(kcount, 0, sizeof(kcount));
        for (uint32_t e = 0; e < nev; e++)
            last[e] = -1;
        for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
            struct ces_block_info bi = ces_graph_block(g, b);
            uint32_t n;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

            for (uint32_t rep = 0; rep < bi.reps && n > 0; rep++) {
                for (uint32_t i = 0; i < n; i++, at++) {
                    struct pml_inst *in = &m->inst[r][at];

                    in->op = &ops[i];
                    in->iter = bi.first_iter + rep;
                    in->k = kcount[ops[i].stream]++;
                    in->bind = -1;
                    in->rec = -1;
                    in->snap = -1;
                    in->gone = in->k >= m->stop[r * m->S + ops[i].stream];
                    if (in->gone)
                        continue;
                    if (ops[i].kind == CES_OP_RECORD) {
                        last[ops[i].event] = (int32_t)at;
                    } else if (ops[i].kind == CES_OP_AWAIT) {
                        in->bind = last[ops[i].event];
                        if (in->bind >= 0 && m->inst[r][in->bind].rec < 0)
                            m->inst[r][in->bind].rec = (int32_t)m->nrec++;
                    }
                }
            }
        }
        m->ninst[r] = (uint32_t)total;
    }
out:
    ces_free(m->ctx, last);
    return rc;
}

/* Binds one link of rank r (ces_sim_links_each): `where` maps stream s's
 * position k to its instance, where[base[s] + k]. */
struct pml_linking {
    struct pml *m;
    uint32_t r;
    uint32_t *where;
    uint32_t base[CES_MAX_STREAMS];
};

static int pml_link(void *ud, uint32_t s, uint32_t pos, uint32_t q, uint32_t qpos)
{
    struct pml_linking *L = ud;
    struct pml *m = L->m;
    struct pml_inst *in = &m->inst[L->r][L->where[L->base[s] + pos]];
    struct pml_inst *to = &m->inst[L->r][L->where[L->base[q] + qpos]];

    if (in->nlink == 0)
        in->link = (uint32_t)m->links.len;
    if (to->snap < 0)
        to->snap = (int32_t)m->nrec++;
    if (ces_vec_push(m->ctx, &m->links, sizeof(int32_t), &to->snap) != CES_OK)
        return pml_nomem(m);
    in->nlink++;
    return CES_OK;
}

/* The links at each rank's block and replay boundaries, as the checker
 * makes them (docs/SEMANTICS.md, section 1). */
static int pml_links(struct pml *m)
{
    struct pml_linking L;
    int rc = CES_OK;

    memset(&L, 0, sizeof(L));
    L.m = m;
    for (L.r = 0; L.r < m->R && rc == CES_OK; L.r++) {
        uint32_t n = m->ninst[L.r], fill[CES_MAX_STREAMS];

        L.where = pml_calloc(m, n, sizeof(uint32_t));
        if (L.where == NULL)
            return pml_nomem(m);
        memset(fill, 0, sizeof(fill));
        for (uint32_t i = 0; i < n; i++)
            fill[m->inst[L.r][i].op->stream]++;
        for (uint32_t s = 0, at = 0; s < m->S; s++) {
            L.base[s] = at;
            at += fill[s];
        }
        for (uint32_t i = 0; i < n; i++) {
            const struct pml_inst *in = &m->inst[L.r][i];

            L.where[L.base[in->op->stream] + in->k] = i;
        }
        rc = ces_sim_links_each(m->g, L.r, m->Q, pml_link, &L);
        ces_free(m->ctx, L.where);
    }
    return rc;
}

static bool pml_has_regions(const struct ces_op *op, uint32_t *n)
{
    switch (op->kind) {
    case CES_OP_COPY:
        *n = 2;
        return true;
    case CES_OP_PRODUCE:
        *n = 1;
        return true;
    case CES_OP_CONSUME:
        *n = (op->flags & CES_OPF_EXPECT) ? 2 : 1;
        return true;
    default:
        *n = 0;
        return false;
    }
}

/* Whether the model keeps anything per data unit: race clocks or data. */
static bool pml_tracks_units(const struct pml *m)
{
    return m->o.races != 0 || m->o.data != 0;
}

/* Data units: the gcd of every buffer size and region bound. */
static int pml_units(struct pml *m)
{
    const struct ces_graph *g = m->g;
    uint32_t nb = ces_graph_nbuffers(g);
    uint64_t gc = 0, total = 0;

    for (uint32_t i = 0; i < nb; i++)
        gc = pml_gcd(gc, ces_graph_buffer(g, i).size);
    for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
        for (uint32_t r = 0; r < m->R; r++) {
            uint32_t n, nr;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

            for (uint32_t i = 0; i < n; i++) {
                if (!pml_has_regions(&ops[i], &nr))
                    continue;
                gc = pml_gcd(pml_gcd(gc, ops[i].a.lo), ops[i].a.hi);
                if (nr == 2)
                    gc = pml_gcd(pml_gcd(gc, ops[i].b.lo), ops[i].b.hi);
            }
        }
    }
    m->unit = gc != 0 ? gc : 1;
    m->ubase = pml_calloc(m, nb, sizeof(*m->ubase));
    if (m->ubase == NULL)
        return pml_nomem(m);
    for (uint32_t i = 0; i < nb; i++) {
        m->ubase[i] = (uint32_t)total;
        total += ces_graph_buffer(g, i).size / m->unit;
        if (total * m->R > PML_MAX_UNITS)
            return ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                                 "promela: the buffers hold %" PRIu64 " units of %" PRIu64
                                 " byte%s (at most %u): use smaller buffers",
                                 total * m->R, m->unit, ces_plural(m->unit), PML_MAX_UNITS);
    }
    m->upr = (uint32_t)total;
    m->nunits = m->upr * m->R;
    return CES_OK;
}

/* The Promela index of a slot the graph uses. */
static uint32_t pml_slot_index(const struct pml *m, const struct ces_slot *s)
{
    return (uint32_t)m->slot_of[s->rank * m->spr + m->sbase[s->sig] + s->idx];
}

/* Collects the values each used slot can hold. */
static int pml_slots(struct pml *m)
{
    const struct ces_graph *g = m->g;
    uint32_t ns = ces_graph_nsignals(g);
    uint64_t total = 0;
    uint32_t *cnt = NULL;
    int rc = CES_OK;

    m->sbase = pml_calloc(m, ns, sizeof(*m->sbase));
    if (m->sbase == NULL)
        return pml_nomem(m);
    for (uint32_t i = 0; i < ns; i++) {
        m->sbase[i] = (uint32_t)total;
        total += ces_graph_signal(g, i).slots;
    }
    if (total * m->R > (UINT64_C(1) << 22))
        return ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                             "promela: the signal arrays declare %" PRIu64 " slots over all "
                             "ranks (at most 4194304: the model maps every declared slot, in "
                             "use or not): declare smaller arrays",
                             total * m->R);
    m->spr = (uint32_t)total;
    m->slot_of = pml_calloc(m, (size_t)total * m->R, sizeof(*m->slot_of));
    if (m->slot_of == NULL)
        return pml_nomem(m);
    for (uint64_t i = 0; i < total * m->R; i++)
        m->slot_of[i] = -1;
    /* pass 1: which slots are used, and how many writes each has */
    for (uint32_t pass = 0; pass < 2 && rc == CES_OK; pass++) {
        for (uint32_t r = 0; r < m->R; r++) {
            for (uint32_t i = 0; i < m->ninst[r]; i++) {
                const struct ces_op *op = m->inst[r][i].op;
                uint32_t d;

                if (op->kind != CES_OP_WRITE && op->kind != CES_OP_WAIT)
                    continue;
                d = op->slot.rank * m->spr + m->sbase[op->slot.sig] + op->slot.idx;
                if (pass == 0) {
                    if (m->slot_of[d] < 0) {
                        if (m->nslots >= PML_MAX_SLOTS) {
                            char where[96];

                            pml_where(m, where, sizeof(where), r, i);
                            return ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                                                 "promela: more than %u slots are used, the "
                                                 "next by %s",
                                                 PML_MAX_SLOTS, where);
                        }
                        m->slot_of[d] = (int32_t)m->nslots++;
                    }
                } else if (op->kind == CES_OP_WRITE) {
                    struct pml_slot *sl = &m->slots[m->slot_of[d]];

                    sl->vals[sl->nvals++] = op->value;
                }
            }
        }
        if (pass == 0) {
            m->slots = pml_calloc(m, m->nslots, sizeof(*m->slots));
            cnt = pml_calloc(m, m->nslots, sizeof(*cnt));
            if (m->slots == NULL || cnt == NULL) {
                rc = pml_nomem(m);
                break;
            }
            /* count writes per slot to size the value lists */
            for (uint32_t r = 0; r < m->R; r++) {
                for (uint32_t i = 0; i < m->ninst[r]; i++) {
                    const struct ces_op *op = m->inst[r][i].op;

                    if (op->kind == CES_OP_WRITE)
                        cnt[pml_slot_index(m, &op->slot)]++;
                }
            }
            for (uint32_t s = 0; s < m->nslots && rc == CES_OK; s++) {
                m->slots[s].vals = pml_calloc(m, cnt[s] + 1, sizeof(uint64_t));
                if (m->slots[s].vals == NULL)
                    rc = pml_nomem(m);
                m->slots[s].nvals = 1; /* the initial 0 */
            }
        }
    }
    for (uint64_t d = 0; d < total * m->R && rc == CES_OK; d++) {
        struct pml_slot *sl;
        uint32_t u = 1;

        if (m->slot_of[d] < 0)
            continue;
        sl = &m->slots[m->slot_of[d]];
        sl->dense = (uint32_t)d;
        qsort(sl->vals, sl->nvals, sizeof(uint64_t), ces_cmp_u64);
        for (uint32_t i = 1; i < sl->nvals; i++) {
            if (sl->vals[i] != sl->vals[u - 1])
                sl->vals[u++] = sl->vals[i];
        }
        sl->nvals = u;
        if (u > PML_MAX_VALUES)
            rc = ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                               "promela: a slot takes %" PRIu32 " distinct values (at most %u)", u,
                               PML_MAX_VALUES);
    }
    ces_free(m->ctx, cnt);
    return rc;
}

/* Produce records, for generation numbers. */
static int pml_prods(struct pml *m)
{
    size_t n = 0;

    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t r = 0; r < m->R; r++) {
            for (uint32_t i = 0; i < m->ninst[r]; i++) {
                const struct ces_op *op = m->inst[r][i].op;

                if (op->kind != CES_OP_PRODUCE)
                    continue;
                for (uint64_t off = op->a.lo; off < op->a.hi; off += m->unit, n++) {
                    if (pass == 1) {
                        struct pml_gen *pg = &m->prods[n];

                        pg->unit = pml_unit(m, op->a.rank, op->a.buf, off);
                        pg->iter = m->inst[r][i].iter;
                    }
                }
            }
        }
        if (pass == 0) {
            m->prods = pml_calloc(m, n, sizeof(*m->prods));
            if (m->prods == NULL)
                return pml_nomem(m);
            m->nprods = n;
            n = 0;
        }
    }
    qsort(m->prods, m->nprods, sizeof(*m->prods), pml_cmp_gen);
    return CES_OK;
}

/* The generation a consume in iteration `iter` expects on `unit`: the
 * iteration of the last produce of that unit up to `iter`, 0 if none (a
 * produce stamps its iteration). */
static uint32_t pml_expected_gen(const struct pml *m, uint32_t unit, uint64_t iter)
{
    size_t lo = 0, hi = m->nprods;

    /* the first record after (unit, iter); the one before it is the answer */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct pml_gen *pg = &m->prods[mid];

        if (pg->unit < unit || (pg->unit == unit && pg->iter <= iter))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0 && m->prods[lo - 1].unit == unit)
        return (uint32_t)m->prods[lo - 1].iter;
    return 0;
}

/* --- emitting ----------------------------------------------------------- */

/* One check: `mode` 1 asserts cond, 2 sets the sticky bit `flag` when cond
 * is false. */
static void pml_check(struct ces_sb *sb, uint32_t mode, const char *flag, const char *cond)
{
    if (mode == 1)
        ces_sb_printf(sb, "    assert(%s);\n", cond);
    else
        ces_sb_printf(sb, "    %s = (%s -> %s : 1);\n", flag, cond, flag);
}

/* Race check of one access to unit u by thread t. */
static void pml_race(struct pml *m, struct ces_sb *sb, uint32_t t, uint32_t u, bool write)
{
    uint32_t P = m->P;
    char cond[256];

    if (!m->o.races)
        return;
    snprintf(cond, sizeof(cond), "wthr[%" PRIu32 "] == 0 || wthr[%" PRIu32 "] == %" PRIu32
             " || vclk[%" PRIu32 " + wthr[%" PRIu32 "] - 1] >= wclk[%" PRIu32 "]", u, u, t + 1,
             t * P, u, u);
    pml_check(sb, m->o.races, "racy", cond);
    if (write) {
        for (uint32_t q = 0; q < P; q++) {
            if (q == t)
                continue;
            snprintf(cond, sizeof(cond), "rclk[%" PRIu32 "] == 0 || vclk[%" PRIu32 "] >= rclk[%"
                     PRIu32 "]", u * P + q, t * P + q, u * P + q);
            pml_check(sb, m->o.races, "racy", cond);
        }
        ces_sb_printf(sb, "    wthr[%" PRIu32 "] = %" PRIu32 "; wclk[%" PRIu32 "] = vclk[%" PRIu32
                      "] + 1;\n", u, t + 1, u, t * P + t);
        for (uint32_t q = 0; q < P; q++)
            ces_sb_printf(sb, "    rclk[%" PRIu32 "] = 0;\n", u * P + q);
    } else {
        ces_sb_printf(sb, "    rclk[%" PRIu32 "] = vclk[%" PRIu32 "] + 1;\n", u * P + t, t * P + t);
    }
}

/* The body of one copy (inside a d_step). */
static void pml_copy_body(struct pml *m, struct ces_sb *sb, uint32_t t, const struct ces_op *op)
{
    uint64_t n = pml_tracks_units(m) ? (op->a.hi - op->a.lo) / m->unit : 0;
    bool down = op->a.buf == op->b.buf && op->a.rank == op->b.rank && op->b.lo > op->a.lo;

    for (uint64_t j = 0; j < n; j++) {
        uint64_t jj = down ? n - 1 - j : j;
        uint32_t s = pml_unit(m, op->a.rank, op->a.buf, op->a.lo + jj * m->unit);
        uint32_t d = pml_unit(m, op->b.rank, op->b.buf, op->b.lo + jj * m->unit);

        pml_race(m, sb, t, s, false);
        pml_race(m, sb, t, d, true);
        if (s != d && m->o.data)
            ces_sb_printf(sb, "    dprov[%" PRIu32 "] = (dprov[%" PRIu32 "] == 0 -> %" PRIu32
                          " : dprov[%" PRIu32 "]); dgen[%" PRIu32 "] = dgen[%" PRIu32 "];\n",
                          d, s, s + 1, s, d, s);
    }
}

/* The release half of a write or record: tick and snapshot into dst[base..]. */
static void pml_release(struct pml *m, struct ces_sb *sb, uint32_t t, const char *dst,
                        uint32_t base)
{
    if (!m->o.races)
        return;
    ces_sb_printf(sb, "    vclk[%" PRIu32 "]++;\n", t * m->P + t);
    for (uint32_t q = 0; q < m->P; q++)
        ces_sb_printf(sb, "    %s[%" PRIu32 "] = vclk[%" PRIu32 "];\n", dst, base + q, t * m->P + q);
}

static void pml_acquire(struct pml *m, struct ces_sb *sb, uint32_t t, const char *src,
                        uint32_t base)
{
    if (!m->o.races)
        return;
    for (uint32_t q = 0; q < m->P; q++) {
        uint32_t v = t * m->P + q;

        if (q == t)
            continue;
        ces_sb_printf(sb, "    vclk[%" PRIu32 "] = (%s[%" PRIu32 "] > vclk[%" PRIu32 "] -> %s[%" PRIu32
                      "] : vclk[%" PRIu32 "]);\n", v, src, base + q, v, src, base + q, v);
    }
}

/* The op in a comment, whole (its names may be long). */
static void pml_comment(struct pml *m, struct ces_sb *sb, uint32_t rank,
                        const struct pml_inst *in, const char *indent)
{
    ces_sb_printf(sb, "%s/* r%" PRIu32 ".s%" PRIu32 "#%" PRIu32 " ", indent, rank, in->op->stream,
                  in->k);
    ces_sb_op(sb, m->g, rank, in->op);
    ces_sb_printf(sb, " (iteration %" PRIu64 ") */\n", in->iter);
}

/* Opens a d_step; returns where its body starts. */
static size_t pml_dstep_open(struct ces_sb *sb)
{
    ces_sb_puts(sb, "  d_step {\n");
    return sb->len;
}

/* Closes the d_step whose body starts at `body`, counting its statements
 * for SPIN's limit: one per ';', and `bare` more (a guard ending in ->, a
 * last skip). */
static void pml_dstep_close(struct pml *m, struct ces_sb *sb, size_t body, uint32_t bare)
{
    size_t n = bare;

    for (size_t i = body; sb->status == CES_OK && i < sb->len; i++)
        n += sb->buf[i] == ';';
    m->ndstep++;
    if (n > m->most_stmts)
        m->most_stmts = n;
    ces_sb_puts(sb, "  }\n");
}

/* Before op idx: the links it waits for, if any. */
static void pml_link_in(struct pml *m, struct ces_sb *sb, uint32_t rank, uint32_t idx)
{
    const struct pml_inst *in = &m->inst[rank][idx];
    const int32_t *rec = m->links.data;
    uint32_t t = pml_tid(m, rank, in->op->stream);
    size_t body;

    if (in->nlink == 0)
        return;
    ces_sb_printf(sb, "  /* r%" PRIu32 ".s%" PRIu32 "#%" PRIu32 " starts a block or replay: "
                  "after the rank's other streams finish the earlier ones */\n",
                  rank, in->op->stream, in->k);
    body = pml_dstep_open(sb);
    ces_sb_puts(sb, "    ");
    for (uint32_t i = 0; i < in->nlink; i++)
        ces_sb_printf(sb, "%sevdone[%" PRId32 "] == 1", i > 0 ? " && " : "", rec[in->link + i]);
    ces_sb_puts(sb, " ->\n");
    for (uint32_t i = 0; i < in->nlink; i++)
        pml_acquire(m, sb, t, "evclk", (uint32_t)rec[in->link + i] * m->P);
    ces_sb_printf(sb, "    skip\n");
    pml_dstep_close(m, sb, body, 2);
}

/* After op idx: where a later link finds that it ran, if one does. */
static void pml_link_out(struct pml *m, struct ces_sb *sb, uint32_t rank, uint32_t idx)
{
    const struct pml_inst *in = &m->inst[rank][idx];
    size_t body;

    if (in->snap < 0 || in->gone)
        return;
    body = pml_dstep_open(sb);
    ces_sb_printf(sb, "    evdone[%" PRId32 "] = 1;\n", in->snap);
    pml_release(m, sb, pml_tid(m, rank, in->op->stream), "evclk", (uint32_t)in->snap * m->P);
    pml_dstep_close(m, sb, body, 0);
}

static void pml_op(struct pml *m, struct ces_sb *sb, uint32_t rank, uint32_t idx)
{
    const struct pml_inst *in = &m->inst[rank][idx];
    const struct ces_op *op = in->op;
    uint32_t t = pml_tid(m, rank, op->stream);
    size_t body;

    switch (op->kind) {
    case CES_OP_WRITE: {
        uint32_t s = pml_slot_index(m, &op->slot), vi = 0;

        while (m->slots[s].vals[vi] != op->value)
            vi++;
        pml_comment(m, sb, rank, in, "  ");
        body = pml_dstep_open(sb);
        ces_sb_printf(sb, "    fv[%" PRIu32 "] = %" PRIu32 ";\n", s, vi);
        pml_release(m, sb, t, "fvc", s * m->P);
        pml_dstep_close(m, sb, body, 0);
        break;
    }
    case CES_OP_WAIT: {
        uint32_t s = pml_slot_index(m, &op->slot);
        const struct pml_slot *sl = &m->slots[s];
        uint32_t width = ces_graph_signal(m->g, op->slot.sig).width;
        bool any = false;

        pml_comment(m, sb, rank, in, "  ");
        body = pml_dstep_open(sb);
        ces_sb_printf(sb, "    (");
        for (uint32_t vi = 0; vi < sl->nvals; vi++) {
            if (!ces_wait_holds(width, op->cmp, sl->vals[vi], op->value))
                continue;
            ces_sb_printf(sb, "%sfv[%" PRIu32 "] == %" PRIu32, any ? " || " : "", s, vi);
            any = true;
        }
        ces_sb_printf(sb, "%s) ->\n", any ? "" : "0");
        pml_acquire(m, sb, t, "fvc", s * m->P);
        ces_sb_printf(sb, "    skip\n");
        pml_dstep_close(m, sb, body, 2);
        break;
    }
    case CES_OP_RECORD:
        if (in->rec < 0)
            break;
        pml_comment(m, sb, rank, in, "  ");
        body = pml_dstep_open(sb);
        ces_sb_printf(sb, "    evdone[%" PRId32 "] = 1;\n", in->rec);
        pml_release(m, sb, t, "evclk", (uint32_t)in->rec * m->P);
        pml_dstep_close(m, sb, body, 0);
        break;
    case CES_OP_AWAIT: {
        int32_t rec;

        pml_comment(m, sb, rank, in, "  ");
        if (in->bind < 0) {
            ces_sb_puts(sb, "  /* no record of its event enqueued before it: passes */\n");
            break;
        }
        rec = m->inst[rank][in->bind].rec;
        body = pml_dstep_open(sb);
        ces_sb_printf(sb, "    evdone[%" PRId32 "] == 1 ->\n", rec);
        pml_acquire(m, sb, t, "evclk", (uint32_t)rec * m->P);
        ces_sb_printf(sb, "    skip\n");
        pml_dstep_close(m, sb, body, 2);
        break;
    }
    case CES_OP_COPY:
        pml_comment(m, sb, rank, in, "  ");
        body = pml_dstep_open(sb);
        pml_copy_body(m, sb, t, op);
        ces_sb_printf(sb, "    skip\n");
        pml_dstep_close(m, sb, body, 1);
        break;
    case CES_OP_PRODUCE:
        pml_comment(m, sb, rank, in, "  ");
        body = pml_dstep_open(sb);
        for (uint64_t off = op->a.lo; pml_tracks_units(m) && off < op->a.hi; off += m->unit) {
            uint32_t u = pml_unit(m, op->a.rank, op->a.buf, off);

            pml_race(m, sb, t, u, true);
            if (m->o.data)
                ces_sb_printf(sb, "    dprov[%" PRIu32 "] = %" PRIu32 "; dgen[%" PRIu32 "] = %" PRIu32
                              ";\n", u, u + 1, u, (uint32_t)in->iter);
        }
        ces_sb_printf(sb, "    skip\n");
        pml_dstep_close(m, sb, body, 1);
        break;
    case CES_OP_CONSUME:
        pml_comment(m, sb, rank, in, "  ");
        body = pml_dstep_open(sb);
        for (uint64_t off = op->a.lo; pml_tracks_units(m) && off < op->a.hi; off += m->unit) {
            uint32_t u = pml_unit(m, op->a.rank, op->a.buf, off);

            pml_race(m, sb, t, u, false);
            if (m->o.data && (op->flags & CES_OPF_EXPECT)) {
                uint32_t e = pml_unit(m, op->b.rank, op->b.buf, op->b.lo + (off - op->a.lo));

                uint32_t want = pml_expected_gen(m, e, in->iter);
                char cond[256];

                if (e == u)
                    snprintf(cond, sizeof(cond), "(dprov[%" PRIu32 "] == %" PRIu32 " || dprov[%"
                             PRIu32 "] == 0) && dgen[%" PRIu32 "] == %" PRIu32, u, e + 1, u, u,
                             want);
                else
                    snprintf(cond, sizeof(cond), "dprov[%" PRIu32 "] == %" PRIu32 " && dgen[%"
                             PRIu32 "] == %" PRIu32, u, e + 1, u, want);
                pml_check(sb, m->o.data, "mism", cond);
            }
        }
        ces_sb_printf(sb, "    skip\n");
        pml_dstep_close(m, sb, body, 1);
        break;
    default: /* fence, flush: no effect in the model */
        break;
    }
}

/* Whether the proctypes serve hardware queues (connections N > 0, or a
 * queue map) rather than streams. */
static bool pml_queued(const struct pml *m)
{
    return m->N != 0 || m->o.queue_map != NULL;
}

/* True if the op at idx of `rank` runs in the process that serves `sel`
 * (a stream, or a hardware queue: stream s on s mod N, or on the queue map's
 * queue; a delayed write's stream s >= Q on a queue of its own, sel s). */
static bool pml_mine(const struct pml *m, uint32_t rank, const struct ces_op *op, uint32_t sel)
{
    if (op->stream >= m->Q)
        return op->stream == sel;
    if (m->o.queue_map != NULL)
        return m->o.queue_map[rank * m->Q + op->stream] == sel;
    return m->N == 0 ? op->stream == sel : op->stream % m->N == sel;
}

static void pml_batch(struct pml *m, struct ces_sb *sb, uint32_t rank, uint32_t at, bool *done)
{
    const struct pml_inst *in = &m->inst[rank][at];
    uint32_t stream = in->op->stream, copies[PML_MAX_BATCH], nc = 0;
    uint32_t t = pml_tid(m, rank, stream);

    for (uint32_t i = at + 1; i < m->ninst[rank]; i++) {
        const struct ces_op *op = m->inst[rank][i].op;

        if (op->stream != stream)
            continue;
        if (m->inst[rank][i].gone) /* the stream stopped in the batch */
            break;
        done[i] = true;
        if (op->kind == CES_OP_END)
            break;
        copies[nc++] = i; /* the caller checked that nc <= PML_MAX_BATCH */
    }
    if (nc == 1) {
        pml_op(m, sb, rank, copies[0]);
        return;
    }
    if (nc == 0)
        return;
    pml_comment(m, sb, rank, in, "  ");
    ces_sb_printf(sb, "  do\n");
    /* each copy a d_step: SPIN compiles no atomic of more than 256
     * statements ("merge requires more than 256 bups"), 26 units of a copy */
    for (uint32_t c = 0; c < nc; c++) {
        size_t body;

        pml_comment(m, sb, rank, &m->inst[rank][copies[c]], "  ");
        ces_sb_puts(sb, "  :: d_step {\n");
        body = sb->len;
        ces_sb_printf(sb, "    !(bm & %" PRIu32 ") -> bm = bm | %" PRIu32 ";\n", 1u << c, 1u << c);
        pml_copy_body(m, sb, t, m->inst[rank][copies[c]].op);
        pml_dstep_close(m, sb, body, 1);
    }
    /* break lands on a plain statement: SPIN forbids jumps into a d_step */
    ces_sb_printf(sb, "  :: bm == %" PRIu32 " -> break\n  od;\n  bm = 0;\n",
                  (1u << nc) - 1);
}

/* CES_ERR_LIMIT once SPIN could not compile the d_steps emitted so far, the
 * ones before the longest taken as compiled before it (SPIN's order is its
 * own), named at op i of `rank`, the last emitted; checked op by op, as the
 * text of a model past it may be large. */
static int pml_dstep_limit(const struct pml *m, uint32_t rank, uint32_t i)
{
    char where[96];

    if (m->ndstep == 0 || m->ndstep - 1 + m->most_stmts <= PML_MAX_DSTEP)
        return CES_OK;
    pml_where(m, where, sizeof(where), rank, i);
    return ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                         "promela: d_step %" PRIu32 " of the model, or its longest so far (%zu "
                         "statement%s), is past what SPIN compiles at %s: at most %u of the "
                         "d_steps before one and its statements together (use fewer ops%s%s)",
                         m->ndstep, m->most_stmts, ces_plural(m->most_stmts), where,
                         PML_MAX_DSTEP, pml_tracks_units(m) ? " or data units" : "",
                         m->o.races ? ", or --no-races" : "");
}

/* True if, on a shared hardware queue, ops of another stream were enqueued
 * between this batch and its end: the queue then runs everything in
 * enqueue order, so the copies are emitted one by one in their places. */
static bool pml_split_batch(const struct pml *m, uint32_t rank, uint32_t at, uint32_t sel)
{
    uint32_t stream = m->inst[rank][at].op->stream;

    if (!pml_queued(m))
        return false;
    for (uint32_t i = at + 1; i < m->ninst[rank]; i++) {
        const struct ces_op *op = m->inst[rank][i].op;

        if (op->stream == stream && op->kind == CES_OP_END)
            return false;
        if (op->stream != stream && !m->inst[rank][i].gone && pml_mine(m, rank, op, sel))
            return true;
    }
    return false;
}

/* True if the process serving `sel` of `rank` has an op, one a stop left
 * out too: a `sel` that serves none has no process. */
static bool pml_serves(const struct pml *m, uint32_t rank, uint32_t sel)
{
    for (uint32_t i = 0; i < m->ninst[rank]; i++)
        if (pml_mine(m, rank, m->inst[rank][i].op, sel))
            return true;
    return false;
}

/* The processes the model runs: one per (rank, stream or queue) it serves,
 * at least one (ces_promela_emit), and the judge of data at end states. */
static uint32_t pml_nprocs(const struct pml *m)
{
    uint32_t n = 0;

    for (uint32_t r = 0; r < m->R; r++)
        for (uint32_t sel = 0; sel < m->S; sel++)
            n += pml_serves(m, r, sel);
    return (n > 0 ? n : 1) + (m->o.data == 2);
}

static int pml_process(struct pml *m, struct ces_sb *sb, uint32_t rank, uint32_t sel, bool *done)
{
    bool batch = false, stopped = false;
    uint32_t width = 0;
    int rc = CES_OK;

    /* batch sizes */
    for (uint32_t i = 0; i < m->ninst[rank]; i++) {
        const struct ces_op *op = m->inst[rank][i].op;
        uint32_t nc = 0;

        if (!pml_mine(m, rank, op, sel) || op->kind != CES_OP_BATCH)
            continue;
        for (uint32_t j = i + 1; j < m->ninst[rank]; j++) {
            const struct ces_op *o = m->inst[rank][j].op;

            if (o->stream != op->stream)
                continue;
            if (o->kind == CES_OP_END)
                break;
            nc++;
        }
        if (nc > PML_MAX_BATCH) {
            char where[96];

            pml_where(m, where, sizeof(where), rank, i);
            return ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                                 "promela: the batch %s holds %" PRIu32 " copies (at most %u)",
                                 where, nc, PML_MAX_BATCH);
        }
        if (nc >= 2)
            batch = true;
        if (nc > width)
            width = nc;
    }
    if (!pml_serves(m, rank, sel))
        return CES_OK;
    for (uint32_t i = 0; i < m->ninst[rank]; i++)
        stopped |= pml_mine(m, rank, m->inst[rank][i].op, sel) && m->inst[rank][i].gone;
    m->nproc++;
    ces_sb_printf(sb, "\nactive proctype r%" PRIu32 "%c%" PRIu32 "()\n{\n", rank,
                  pml_queued(m) && sel < m->Q ? 'q' : 's', sel);
    if (batch)
        ces_sb_printf(sb, "  %s bm;\n", width > 7 ? "int" : "byte");
    memset(done, 0, m->ninst[rank] * sizeof(*done));
    for (uint32_t i = 0; i < m->ninst[rank] && rc == CES_OK; i++) {
        const struct ces_op *op = m->inst[rank][i].op;

        if (done[i] || m->inst[rank][i].gone || !pml_mine(m, rank, op, sel))
            continue;
        pml_link_in(m, sb, rank, i);
        if (op->kind == CES_OP_BATCH && !pml_split_batch(m, rank, i, sel)) {
            pml_batch(m, sb, rank, i, done);
            /* the batch's end may close a (block, replay) */
            for (uint32_t j = i + 1; j < m->ninst[rank]; j++) {
                if (m->inst[rank][j].op->stream == op->stream &&
                    m->inst[rank][j].op->kind == CES_OP_END) {
                    pml_link_out(m, sb, rank, j);
                    break;
                }
            }
        } else if (op->kind != CES_OP_END && op->kind != CES_OP_BATCH) {
            pml_op(m, sb, rank, i);
        }
        pml_link_out(m, sb, rank, i);
        rc = pml_dstep_limit(m, rank, i);
    }
    if (stopped) /* a stream it serves stopped: it never finishes */
        ces_sb_printf(sb, "  /* stopped */\n  false\n}\n");
    else
        ces_sb_printf(sb, "  skip\n}\n");
    return rc;
}

/* Clock ticks per thread must fit a byte. */
static int pml_check_clocks(struct pml *m)
{
    for (uint32_t r = 0; r < m->R && m->o.races; r++) {
        uint32_t ticks[CES_MAX_STREAMS];

        memset(ticks, 0, sizeof(ticks));
        for (uint32_t i = 0; i < m->ninst[r]; i++) {
            const struct pml_inst *in = &m->inst[r][i];

            if (in->gone)
                continue;
            if (in->op->kind == CES_OP_WRITE || (in->op->kind == CES_OP_RECORD && in->rec >= 0))
                ticks[in->op->stream]++;
            if (in->snap >= 0)
                ticks[in->op->stream]++;
            if (ticks[in->op->stream] > PML_MAX_CLOCK) {
                char where[96];

                pml_where(m, where, sizeof(where), r, i);
                return ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                                     "promela: stream r%" PRIu32 ".s%" PRIu32
                                     " has more than %u writes and records, past them at %s "
                                     "(the model keeps clocks in bytes)",
                                     r, in->op->stream, PML_MAX_CLOCK, where);
            }
        }
    }
    return CES_OK;
}

/* One global array of the model. */
struct pml_global {
    const char *type, *name;
    uint32_t n, size; /* elements, bytes each */
};

static size_t pml_global(struct pml_global *gl, size_t n, const char *type, const char *name,
                         uint32_t count, uint32_t size)
{
    if (count == 0)
        return n;
    gl[n] = (struct pml_global){type, name, count, size};
    return n + 1;
}

/* The model's global arrays, in the order they are declared (at most 10). */
static size_t pml_globals(const struct pml *m, struct pml_global *gl)
{
    size_t n = pml_global(gl, 0, "byte", "fv", m->nslots, 1);

    if (m->o.data) {
        n = pml_global(gl, n, "short", "dprov", m->nunits, 2);
        n = pml_global(gl, n, "byte", "dgen", m->nunits, 1);
    }
    n = pml_global(gl, n, "bit", "evdone", m->nrec, 1);
    if (m->o.races) {
        n = pml_global(gl, n, "byte", "vclk", m->P * m->P, 1);
        n = pml_global(gl, n, "byte", "fvc", m->nslots * m->P, 1);
        n = pml_global(gl, n, "byte", "evclk", m->nrec * m->P, 1);
        n = pml_global(gl, n, "byte", "wthr", m->nunits, 1);
        n = pml_global(gl, n, "byte", "wclk", m->nunits, 1);
        n = pml_global(gl, n, "byte", "rclk", m->nunits * m->P, 1);
    }
    return n;
}

static void pml_header(struct pml *m, struct ces_sb *sb)
{
    const struct ces_graph *g = m->g;
    struct pml_global gl[10];
    size_t ngl = pml_globals(m, gl);
    /* the state vector, from above: the globals, and each process's
     * header and locals (a process per stream and the judge) */
    uint64_t vector = PML_SPIN_VECTOR_BASE + PML_SPIN_PROC_BYTES * ((uint64_t)m->R * m->S + 1);

    for (size_t i = 0; i < ngl; i++)
        vector += (uint64_t)gl[i].n * gl[i].size;

    ces_sb_printf(sb, "/* Promela model of a cesync schedule: %" PRIu32 " rank%s, %" PRIu32
                  " stream%s, ", m->R, ces_plural(m->R), m->S, ces_plural(m->S));
    if (m->o.queue_map != NULL) {
        ces_sb_puts(sb, "hardware queues ");
        ces_sim_sb_queue_map(sb, m->R, m->Q, m->o.queue_map);
    } else {
        ces_sb_printf(sb, "connections %" PRIu32, m->N);
    }
    ces_sb_printf(sb, ", %" PRIu64 " iteration%s.\n", ces_graph_iterations(g),
                  ces_plural(ces_graph_iterations(g)));
    for (size_t i = 0; i < m->d.ndelays; i++) {
        const struct sim_delay *dl = &m->d.delays[i];
        char spec[96];

        ces_fault_format(&dl->fault, spec, sizeof(spec));
        ces_sb_printf(sb, " * Fault %s: a record in place of the write; the write lands from "
                      "r%" PRIu32 "s%" PRIu32 ", at any moment after it.\n", spec,
                      dl->fault.rank, dl->stream);
    }
    for (size_t i = 0; i < m->o.nfaults; i++) {
        char spec[96];

        if (m->o.faults[i].kind != CES_FAULT_STOP)
            continue;
        ces_fault_format(&m->o.faults[i], spec, sizeof(spec));
        ces_sb_printf(sb, " * Fault %s: the stopped ops left out (never enqueued); a process "
                      "serving a stopped\n *   stream ends blocked.\n", spec);
    }
    /* what the model checks, as the options left it */
    ces_sb_puts(sb, " * Deadlock and hang: invalid end states.\n");
    if (m->o.races == 1)
        ces_sb_puts(sb, " * Races (vector clocks): assertions.\n");
    else if (m->o.races == 2 && m->o.data == 2)
        ces_sb_puts(sb, " * Races (vector clocks): set the bit racy, not asserted; wrong data is\n"
                        " *   judged on race-free executions only.\n");
    else if (m->o.races == 2)
        ces_sb_puts(sb, " * Races (vector clocks): set the bit racy, not asserted.\n");
    else
        ces_sb_puts(sb, " * Races: not checked (no vector clocks).\n");
    if (m->o.data == 1)
        ces_sb_puts(sb, " * Wrong data (provenance, generation): assertions.\n");
    else if (m->o.data == 2)
        ces_sb_printf(sb, " * Wrong data (provenance, generation): set the bit mism, asserted at end\n"
                          " *   states by the proctype judge (timeout -> assert(!mism%s)).\n",
                      m->o.races == 2 ? " || racy" : "");
    else
        ces_sb_puts(sb, " * Wrong data: not checked (no provenance).\n");
    /* the units index what the race and data checks keep per byte range */
    if (pml_tracks_units(m)) {
        ces_sb_printf(sb, " * Data units of %" PRIu64 " byte%s: unit u = rank * %" PRIu32
                      " + buffer base + offset / %" PRIu64 ".\n",
                      m->unit, ces_plural(m->unit), m->upr, m->unit);
        for (uint32_t b = 0; b < ces_graph_nbuffers(g); b++)
            ces_sb_printf(sb, " *   buffer %s: base %" PRIu32 "\n", ces_graph_buffer(g, b).name,
                          m->ubase[b]);
    }
    ces_sb_printf(sb, " * Slots (fv[i] holds the index of the value):\n");
    for (uint32_t i = 0; i < m->nslots; i++) {
        const struct pml_slot *sl = &m->slots[i];
        uint32_t rank = sl->dense / m->spr, rest = sl->dense % m->spr, sig = 0;

        while (sig + 1 < ces_graph_nsignals(g) && m->sbase[sig + 1] <= rest)
            sig++;
        ces_sb_printf(sb, " *   fv[%" PRIu32 "] = %s[%" PRIu32 "]@%" PRIu32 ":", i,
                      ces_graph_signal(g, sig).name, rest - m->sbase[sig], rank);
        for (uint32_t v = 0; v < sl->nvals; v++)
            ces_sb_printf(sb, " %" PRIu32 "=%" PRIu64, v, sl->vals[v]);
        ces_sb_printf(sb, "\n");
    }
    if (vector > PML_SPIN_VECTORSZ)
        ces_sb_printf(sb, " * Its state vector outgrows pan's default %u bytes: compile pan.c with\n"
                      " *   -DVECTORSZ=%" PRIu64 ".\n", PML_SPIN_VECTORSZ,
                      (vector + 1023) / 1024 * 1024);
    ces_sb_printf(sb, " */\n\n");
    for (size_t i = 0; i < ngl; i++)
        ces_sb_printf(sb, "%s %s[%" PRIu32 "];\n", gl[i].type, gl[i].name, gl[i].n);
    if (m->o.races == 2)
        ces_sb_printf(sb, "bit racy;\n");
    if (m->o.data == 2)
        ces_sb_printf(sb, "bit mism;\n");
}

/* The checker's message of rc as this command's: "promela: " before it. */
static int pml_reword(struct pml *m, int rc)
{
    char msg[512];

    snprintf(msg, sizeof(msg), "%s", ces_ctx_last_error(m->ctx));
    return ces_ctx_error(m->ctx, rc, "promela: %s", msg);
}

/* The faults: checked against the graph, alone and together, as a check's
 * are; a whole rank's stop as its streams' (fault.c); then the graph the
 * checker derives for the delays in m->g's place (delay.c), and each
 * stream's stop in it (m->stop).  A drop has no model here. */
static int pml_faults(struct pml *m)
{
    struct ces_check_opts co;
    const struct ces_fault *f;
    size_t nf;
    uint32_t S;
    int rc;

    if (m->o.nfaults > 0 && m->o.faults == NULL)
        return ces_ctx_error(m->ctx, CES_ERR_INVALID, "promela: nfaults > 0 but no faults");
    rc = ces_sim_faults_check(m->ctx, m->g, m->o.faults, m->o.nfaults);
    if (rc != CES_OK)
        return pml_reword(m, rc);
    for (size_t i = 0; i < m->o.nfaults; i++) {
        char spec[96];

        ces_fault_format(&m->o.faults[i], spec, sizeof(spec));
        if (m->o.faults[i].kind == CES_FAULT_DROP)
            return ces_ctx_error(m->ctx, CES_ERR_UNSUPPORTED,
                                 "promela: fault %s: only a delay or a stop is modelled (check "
                                 "a drop with cesync check)", spec);
    }
    ces_check_opts_init(&co);
    co.faults = m->o.faults;
    co.nfaults = m->o.nfaults;
    rc = ces_sim_faults_expand(m->ctx, m->g, &co, &m->ex);
    if (rc != CES_OK)
        return pml_reword(m, rc);
    if (m->ex.faults != NULL) {
        co.faults = m->ex.faults;
        co.nfaults = m->ex.nfaults;
    }
    rc = ces_sim_delay_derive(m->ctx, m->g, &co, &m->d);
    if (rc != CES_OK)
        return pml_reword(m, rc);
    f = co.faults;
    nf = co.nfaults;
    if (m->d.g != NULL) {
        m->g = m->d.g;
        f = m->d.faults;
        nf = m->d.nfaults;
    }
    S = ces_graph_streams(m->g);
    m->stop = pml_calloc(m, (size_t)m->R * S, sizeof(uint32_t));
    if (m->stop == NULL)
        return pml_nomem(m);
    for (size_t i = 0; i < (size_t)m->R * S; i++)
        m->stop[i] = UINT32_MAX;
    for (size_t i = 0; i < nf; i++)
        if (f[i].kind == CES_FAULT_STOP && f[i].index < m->stop[f[i].rank * S + f[i].stream])
            m->stop[f[i].rank * S + f[i].stream] = f[i].index;
    return CES_OK;
}

void ces_promela_opts_init(struct ces_promela_opts *o)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof(*o));
    o->races = 1;
    o->data = 1;
}

int ces_promela_emit(struct ces_ctx *ctx, const struct ces_graph *g,
                     const struct ces_promela_opts *opts, char **text, size_t *len)
{
    struct pml m;
    struct ces_sb sb;
    bool *done = NULL;
    uint32_t most = 0, nprocs = 0;
    char at[32];
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (g == NULL || text == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_promela_emit: NULL argument");
    *text = NULL;
    memset(&m, 0, sizeof(m));
    ces_sb_init(&sb, ctx);
    m.ctx = ctx;
    m.g = g;
    if (opts != NULL)
        m.o = *opts;
    else
        ces_promela_opts_init(&m.o);
    m.R = ces_graph_ranks(g);
    m.Q = ces_graph_streams(g);
    m.N = ces_graph_connections(g);
    rc = ces_graph_require_valid(ctx, g, "promela");
    if (rc != CES_OK)
        goto out;
    if (m.o.races > 2 || m.o.data > 2) {
        rc = ces_ctx_error(ctx, CES_ERR_INVALID, "promela: races and data take 0, 1 or 2, not %"
                           PRIu32 " and %" PRIu32, m.o.races, m.o.data);
        goto out;
    }
    rc = ces_sim_queue_map_check(ctx, "promela: the queue map", m.R, m.Q, m.o.queue_map);
    if (rc == CES_OK)
        rc = pml_faults(&m);
    if (rc != CES_OK)
        goto out;
    m.S = ces_graph_streams(m.g);
    m.P = m.R * m.S;
    /* a header setting refused is named where g's file gives it */
    if (m.N == CES_CONNECTIONS_ANY && m.o.queue_map == NULL) {
        ces_setting_where(at, sizeof(at), g, CES_SETTING_CONNECTIONS);
        rc = ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                           "promela: `connections any`%s is a check of every queue assignment; "
                           "export one (a queue map, --queues)",
                           at);
        goto out;
    }
    ces_setting_where(at, sizeof(at), g, CES_SETTING_RANKS);
    if (m.o.data != 0 && ces_graph_iterations(g) > PML_MAX_CLOCK) {
        rc = ces_ctx_error(ctx, CES_ERR_LIMIT, "promela: %" PRIu64 " iterations (at most %u: "
                           "generations are kept in bytes)", ces_graph_iterations(g),
                           PML_MAX_CLOCK);
        goto out;
    }
    if (m.o.races != 0 && m.P > PML_MAX_THREADS) {
        rc = ces_ctx_error(ctx, CES_ERR_LIMIT, "promela: %" PRIu32 " ranks%s x %" PRIu32
                           " stream%s is more than %u threads of the race clocks (--no-races "
                           "keeps none)", m.R, at, m.S, ces_plural(m.S), PML_MAX_THREADS);
        goto out;
    }
    rc = pml_unroll(&m);
    if (rc == CES_OK)
        nprocs = pml_nprocs(&m);
    if (rc == CES_OK && nprocs > PML_MAX_PROCS)
        rc = ces_ctx_error(ctx, CES_ERR_LIMIT, "promela: the model of %" PRIu32 " ranks%s runs %"
                           PRIu32 " processes (SPIN runs at most %u)", m.R, at, nprocs,
                           PML_MAX_PROCS);
    if (rc == CES_OK)
        rc = pml_links(&m);
    /* without races and data nothing is kept per unit: no unit limit */
    if (rc == CES_OK && pml_tracks_units(&m))
        rc = pml_units(&m);
    if (rc == CES_OK)
        rc = pml_slots(&m);
    if (rc == CES_OK && m.o.data != 0)
        rc = pml_prods(&m);
    if (rc == CES_OK)
        rc = pml_check_clocks(&m);
    if (rc != CES_OK)
        goto out;
    for (uint32_t r = 0; r < m.R; r++)
        most = m.ninst[r] > most ? m.ninst[r] : most;
    done = pml_calloc(&m, most, sizeof(*done));
    if (done == NULL) {
        rc = pml_nomem(&m);
        goto out;
    }
    pml_header(&m, &sb);
    /* a process per stream or queue (each below the streams), and one per
     * delayed write's stream; a `sel` that serves no op emits none */
    for (uint32_t r = 0; r < m.R && rc == CES_OK; r++)
        for (uint32_t sel = 0; sel < m.S && rc == CES_OK; sel++)
            rc = pml_process(&m, &sb, r, sel, done);
    /* a graph without ops still needs a process: SPIN refuses a model
     * without one ("no runable process") */
    if (m.nproc == 0)
        ces_sb_printf(&sb, "\nactive proctype r0%c0()\n{\n  skip\n}\n",
                      pml_queued(&m) ? 'q' : 's');
    if (m.o.data == 2)
        /* At an end state (nothing else can move) the data is judged, on
         * race-free executions only when races are flagged. */
        ces_sb_printf(&sb, "\nactive proctype judge()\n{\n  timeout -> assert(!mism%s)\n}\n",
                      m.o.races == 2 ? " || racy" : "");
    if (rc == CES_OK && sb.status != CES_OK)
        rc = sb.status == CES_ERR_NOMEM ? pml_nomem(&m) : sb.status;
    if (rc == CES_OK) {
        rc = ces_sb_finish(&sb, text, len);
        if (rc == CES_ERR_NOMEM)
            rc = pml_nomem(&m);
    }
out:
    ces_sb_free(&sb);
    ces_free(ctx, done);
    pml_free(&m);
    return rc;
}
