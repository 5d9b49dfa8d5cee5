/*
 * tests/sim/test_dot_edges.c - the picture's order edges against every
 * execution.  Above 1,000 write -> wait pairs within blocks the picture
 * (ces_dot_emit_sized) draws a wait from its nearest writes alone, by an
 * order of writes and waits that holds in every execution; a record ->
 * await edge goes to the record each await waits for.  Small generated
 * handshake schedules (2-3 ranks, 2 streams, flags set, counted up by $i
 * and reset, waits == and >=, records and awaits, 1-2 phases, graph phases
 * replayed 2-4 times) are drawn as `cesync dot` and `cesync check --dot`
 * draw them, plain, on one hardware queue a rank (--queues 0,0) and with a
 * write delayed (--fault delay:...), and every execution of the same check
 * is walked through the step function (ces_sim_status, ces_sim_exec,
 * states told apart by their fingerprint and what the walk tracks): the
 * writes each wait passes on, those since its slot's latest write that
 * fails it, and the record each await waits for.  No edge may be wrong (a
 * write that runs and a wait that passes, never on it), and the edges
 * drawn and the passes that none explains (missing) are counted and
 * pinned; an edge that a chain of waits leaves out (drawn in the picture
 * drawn again unchained) from a write the wait passes on counts as
 * missing too.  An extra rank counts a flag c of its own to 46 and waits for
 * each value, 1,081 pairs within its block, so that the schedule's
 * pictures are drawn from nearest writes; the executions are walked with
 * it counting to 1 (the other ranks' ops and places are the same).
 * CES_EDGE_SEEDS=N checks seeds 0..N-1 and CES_EDGE_SEED=S seed S alone
 * (the counts pinned for the default alone); CES_EDGE_PRINT=1 prints each
 * schedule (counting to 1), its delay and its states.  A second generator
 * (edge_mixed, test_mixed_edges) puts more waits of one rank into one slot;
 * CES_EDGE_MIXED, CES_EDGE_MIXED_FROM and CES_EDGE_FILE pick what it checks.
 */
#include "ces_test.h"
#include "../../backend/sim/internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The schedules checked, seeds 0..EDGE_SEEDS-1 (CES_EDGE_SEEDS). */
#define EDGE_SEEDS 100u
/* The counting rank's writes and waits in the pictures: 46 * 47 / 2 =
 * 1,081 pairs within its block, past the picture's 1,000. */
#define EDGE_COUNTER 46u
/* The most writes, waits, records, awaits and wait conditions of one
 * schedule as the walk knows them (each a bit of a uint64_t). */
#define EDGE_MAX 64u
/* The passes of a wait on writes of its block told apart (by the wait and
 * those writes) that edge_truth.miss has room for at first, per schedule
 * and configuration; it doubles as needed. */
#define EDGE_MISSES 64u
/* The mixed schedules checked by default: seeds 0..EDGE_MIXED-1 and
 * edge_mixed_seeds (CES_EDGE_MIXED=N: 0..N-1 alone). */
#define EDGE_MIXED 100u

static uint64_t edge_rand(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A number below n. */
static uint32_t edge_pick(uint64_t *s, uint32_t n)
{
    return (uint32_t)(edge_rand(s) % n);
}

struct edge_text {
    char buf[8192];
    size_t len;
};

static void put(struct edge_text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof(t->buf) - t->len);
    t->len += (size_t)n;
}

/* The ops of one rank in one phase, as text. */
struct edge_list {
    char line[8][48];
    uint32_t n;
};

/* Adds an op of rank r (stream `sn`, "" or " s1") to its list, where the
 * list has room. */
static bool edge_add(struct edge_list *l, uint32_t r, const char *sn, const char *op)
{
    if (l->n == sizeof(l->line) / sizeof(l->line[0]))
        return false;
    snprintf(l->line[l->n++], sizeof(l->line[0]), "r%u%s : %s\n", r, sn, op);
    return true;
}

/* The schedule of `seed` with its counting rank (the last, *ranks of them
 * in all) counting to `counter`: then 1-2 phases, each a graph phase
 * replayed 2-4 times or an eager one of 1-2 iterations, made of steps:
 * a handshake (a rank writes 1 or 2, in an eager phase of 2 iterations
 * also $i, into f[0] or g[0] of another rank, or of its own from its other
 * stream, which waits == or >= for it there), a reset of a slot to 0, a
 * write or a wait of no handshake, a record of e0 or e1 and an await of
 * it on the rank's other stream; each on s0 or s1, at most 8 ops a rank
 * in a phase. */
static void edge_schedule(uint64_t seed, uint32_t counter, struct edge_text *t,
                          uint32_t *ranks)
{
    uint64_t s = seed;
    uint32_t nr = 2 + edge_pick(&s, 2), nph = 1 + edge_pick(&s, 2);

    t->len = 0;
    *ranks = nr + 1;
    put(t, "cesync 1\nranks %u\nstreams 2\nsignal f u32 1\nsignal g u32 1\nsignal c u32 1\n"
           "phase eager x1\n", nr + 1);
    for (uint32_t k = 1; k <= counter; k++)
        put(t, "r%u : write c[0]@%u = %u\n", nr, nr, k);
    for (uint32_t k = 1; k <= counter; k++)
        put(t, "r%u s1 : wait c[0] >= %u\n", nr, k);
    for (uint32_t ph = 0; ph < nph; ph++) {
        bool graph = edge_pick(&s, 4) != 0;
        uint32_t reps = graph ? 2 + edge_pick(&s, 3) : 1 + edge_pick(&s, 2);
        uint32_t steps = nr + 1 + edge_pick(&s, nph == 1 ? 2 * nr : nr);
        struct edge_list list[3];

        memset(list, 0, sizeof(list));
        put(t, "phase %s x%u\n", graph ? "graph" : "eager", reps);
        for (uint32_t k = 0; k < steps; k++) {
            uint32_t what = edge_pick(&s, 20), a = edge_pick(&s, nr), b = edge_pick(&s, nr);
            uint32_t sa = edge_pick(&s, 3) == 0, sb = edge_pick(&s, 3) == 0;
            char sig = "fg"[edge_pick(&s, 2)], v[8], op[32];
            const char *cmp = edge_pick(&s, 3) == 2 ? ">=" : "==";
            const char *sn[2] = {"", " s1"};

            if (!graph && reps > 1 && edge_pick(&s, 3) == 0)
                snprintf(v, sizeof(v), "$i");
            else
                snprintf(v, sizeof(v), "%u", 1 + (edge_pick(&s, 3) == 2));
            if (what < 10) { /* a handshake: a into b's slot */
                if (a == b)
                    sb = !sa;
                snprintf(op, sizeof(op), "write %c[0]@%u = %s", sig, b, v);
                if (edge_add(&list[a], a, sn[sa], op)) {
                    snprintf(op, sizeof(op), "wait %c[0] %s %s", sig, cmp, v);
                    edge_add(&list[b], b, sn[sb], op);
                }
            } else if (what < 13) {
                snprintf(op, sizeof(op), "write %c[0]@%u = 0", sig, b);
                edge_add(&list[a], a, sn[sa], op);
            } else if (what < 15) {
                snprintf(op, sizeof(op), "write %c[0]@%u = %s", sig, b, v);
                edge_add(&list[a], a, sn[sa], op);
            } else if (what < 17) {
                snprintf(op, sizeof(op), "wait %c[0] %s %s", sig, cmp, v);
                edge_add(&list[a], a, sn[sa], op);
            } else {
                uint32_t e = edge_pick(&s, 2);

                snprintf(op, sizeof(op), "record e%u", e);
                if (edge_add(&list[a], a, sn[sa], op)) {
                    snprintf(op, sizeof(op), "await e%u", e);
                    edge_add(&list[a], a, sn[!sa], op);
                }
            }
        }
        for (uint32_t r = 0; r < nr; r++) {
            for (uint32_t k = 0; k < list[r].n; k++)
                put(t, "%s", list[r].line[k]);
        }
    }
}

/* The text of a schedule whose rank 3 counts c to `counter`, then `tail`. */
static void edge_counted(struct edge_text *t, uint32_t counter, const char *tail)
{
    t->len = 0;
    put(t, "cesync 1\nranks 4\nstreams 2\nsignal f u32 1\nsignal g u32 1\nsignal c u32 1\n"
           "phase eager x1\n");
    for (uint32_t k = 1; k <= counter; k++)
        put(t, "r3 : write c[0]@3 = %u\n", k);
    for (uint32_t k = 1; k <= counter; k++)
        put(t, "r3 s1 : wait c[0] >= %u\n", k);
    put(t, "%s", tail);
}

/* The mixed schedule of `seed` (test_mixed_edges), its rank 3 counting c
 * to `counter` as edge_schedule's: 1-2 phases, each a graph phase replayed
 * 2-3 times or an eager one of 1-2 iterations.  r1 and r2 (1-3 ops each)
 * write f[0] or g[0] of r0 (0 to 3, $i in an eager phase of 2, or a run
 * counting up: v then v + 1), from either stream, wait for r0's 1 in
 * their own f[0], or record on one stream and await on the other; r0
 * waits 2-5 times, `==` or `>=` (one in three), for values written into
 * f[0] (g[0] one in eight), now and then from s1 or writing one itself,
 * and writes the 1 that r1 or r2 waits for among its waits. */
static void edge_mixed(uint64_t seed, uint32_t counter, struct edge_text *t)
{
    uint64_t s = seed ^ UINT64_C(0x5851f42d4c957f2d);
    uint32_t nph = 1 + (edge_pick(&s, 3) == 0);

    edge_counted(t, counter, "");
    for (uint32_t ph = 0; ph < nph; ph++) {
        uint32_t kind = edge_pick(&s, 4), nw = 2 + edge_pick(&s, nph == 1 ? 4 : 2);
        uint32_t reps = kind == 0 ? 2 + edge_pick(&s, 2) : kind == 1 ? 2 : 1, nv = 0;
        uint32_t hand[2], nh = 0;
        char vals[8][4], w[512];
        size_t wl = 0;

        put(t, "phase %s x%u\n", kind == 0 ? "graph" : "eager", reps);
        w[0] = '\0';
        for (uint32_t r = 1; r < 3; r++) {
            uint32_t n = 1 + edge_pick(&s, nph == 1 ? 3 : 2);
            bool waited = false;

            for (uint32_t k = 0; k < n; k++) {
                uint32_t what = edge_pick(&s, 14), v = edge_pick(&s, 7);
                const char *sn = edge_pick(&s, 6) == 0 ? " s1" : "";
                char sig = edge_pick(&s, 8) == 0 ? 'g' : 'f', val[4];

                v = v < 1 ? 0 : v < 3 ? 1 : v < 5 ? 2 : 3;
                if (kind == 1 && v > 0 && edge_pick(&s, 4) == 0)
                    snprintf(val, sizeof(val), "$i");
                else
                    snprintf(val, sizeof(val), "%u", v);
                if (what == 0) {
                    wl += (size_t)snprintf(w + wl, sizeof(w) - wl,
                                           "r%u%s : record e0\nr%u%s : await e0\n", r, sn, r,
                                           sn[0] != '\0' ? "" : " s1");
                } else if (what == 1 && !waited) {
                    wl += (size_t)snprintf(w + wl, sizeof(w) - wl, "r%u%s : wait f[0] >= 1\n",
                                           r, sn);
                    hand[nh++] = r;
                    waited = true;
                } else if (what == 2 && v > 0 && v < 3) {
                    wl += (size_t)snprintf(w + wl, sizeof(w) - wl,
                                           "r%u%s : write %c[0]@0 = %u\nr%u%s : write "
                                           "%c[0]@0 = %u\n", r, sn, sig, v, r, sn, sig, v + 1);
                    if (nv < 7) {
                        snprintf(vals[nv++], sizeof(vals[0]), "%u", v);
                        snprintf(vals[nv++], sizeof(vals[0]), "%u", v + 1);
                    }
                } else {
                    wl += (size_t)snprintf(w + wl, sizeof(w) - wl, "r%u%s : write %c[0]@0 = %s\n",
                                           r, sn, sig, val);
                    if (nv < 8)
                        snprintf(vals[nv++], sizeof(vals[0]), "%s", val);
                }
                assert_true(wl < sizeof(w));
            }
        }
        for (uint32_t k = 0, h = 0; k < nw || h < nh; k++) {
            const char *v = nv > 0 ? vals[edge_pick(&s, nv)] : "1";
            const char *sn = edge_pick(&s, 10) == 0 ? " s1" : "";
            char sig = edge_pick(&s, 8) == 0 ? 'g' : 'f';

            if (h < nh && (k >= nw || edge_pick(&s, 3) == 0)) {
                put(t, "r0 : write f[0]@%u = 1\n", hand[h++]);
                continue;
            }
            if (k >= nw)
                continue;
            if (edge_pick(&s, 8) == 0) {
                put(t, "r0%s : write %c[0]@0 = %s\n", edge_pick(&s, 2) ? " s1" : "", sig, v);
                continue;
            }
            if (strcmp(v, "0") == 0 && edge_pick(&s, 2) == 0)
                v = "1";
            put(t, "r0%s : wait %c[0] %s %s\n", sn, sig, edge_pick(&s, 3) == 0 ? ">=" : "==",
                v);
        }
        put(t, "%s", w);
    }
}

/* A write, wait, record or await as the walk and the picture name it:
 * block, rank, index in the rank's list of the block; `nth` among those
 * of its kind. */
struct edge_op {
    uint32_t block, rank, index, kind, nth;
};

/* A pass of wait `wait` that no drawn edge explains: the writes of its
 * block that it passed on. */
struct edge_miss {
    uint32_t wait;
    uint64_t writes;
};

/* What the walk of every execution found, and the picture drew. */
struct edge_truth {
    struct sim_model *m;
    uint32_t skip;        /* the counting rank: its waits and awaits not judged */
    struct edge_op op[4 * EDGE_MAX];
    uint32_t nop, count[4]; /* count[i]: writes, waits, records, awaits */
    uint32_t wblock[EDGE_MAX]; /* each write's block */
    uint32_t slot[EDGE_MAX], cmp[EDGE_MAX]; /* the wait conditions */
    uint64_t value[EDGE_MAX];
    uint32_t ncond;
    uint64_t mask[EDGE_MAX]; /* per condition: the writes since one that fails it */
    uint32_t last[EDGE_MAX]; /* per condition: the latest of them */
    uint64_t held;           /* bit c: condition c holds */
    uint64_t seen[EDGE_MAX]; /* per wait (await): the writes (records) it passed on */
    uint64_t drawn[EDGE_MAX]; /* per wait (await): the writes (records) drawn to it */
    uint64_t unchained[EDGE_MAX]; /* those drawn where no chain of waits leaves one out */
    uint64_t passed[2];      /* bit i: wait (await) i passed in some execution */
    uint64_t ran[2];         /* bit i: write (record) i ran in some execution */
    struct edge_miss *miss;  /* nmiss of them, room for cmiss */
    uint32_t nmiss, cmiss;
    uint64_t *set;           /* the states walked: fingerprint pairs, 0 0 empty */
    size_t cap, len;
    uint32_t *at;            /* per op of the model (at[p] + k): its place in op, or none */
    uint32_t *at_off;        /* per process: where its ops begin in at */
    struct sim_state *next;  /* per depth of the walk: the state after a step, kept */
    size_t depth;            /* entries of next: one more than the model's ops */
};

/* The kinds the walk knows, as edge_op.kind. */
enum { EDGE_WRITE, EDGE_WAIT, EDGE_RECORD, EDGE_AWAIT };

static int edge_kind(uint32_t kind)
{
    switch (kind) {
    case CES_OP_WRITE:
        return EDGE_WRITE;
    case CES_OP_WAIT:
        return EDGE_WAIT;
    case CES_OP_RECORD:
        return EDGE_RECORD;
    case CES_OP_AWAIT:
        return EDGE_AWAIT;
    default:
        return -1;
    }
}

/* The op at (b, r, k) of kind `kind`, added where new; its place in t->op. */
static uint32_t edge_find(struct edge_truth *t, uint32_t b, uint32_t r, uint32_t k, int kind,
                          bool add)
{
    uint32_t i;

    for (i = 0; i < t->nop; i++) {
        if (t->op[i].block == b && t->op[i].rank == r && t->op[i].index == k)
            return i;
    }
    if (!add)
        return UINT32_MAX;
    assert_true(t->nop < 4 * EDGE_MAX && t->count[kind] < EDGE_MAX);
    if (kind == EDGE_WRITE)
        t->wblock[t->count[kind]] = b;
    t->op[i] = (struct edge_op){b, r, k, (uint32_t)kind, t->count[kind]++};
    t->nop++;
    return i;
}

/* The place in t->op of op k of process p, a write, wait, record or await
 * (found once, by edge_truth, in a fixed order; looked up after). */
static uint32_t edge_at(struct edge_truth *t, uint32_t p, uint32_t k)
{
    struct ces_check_pos pos;
    uint32_t *x = &t->at[t->at_off[p] + k];

    if (*x == UINT32_MAX) {
        ces_sim_pos(t->m, p, k, &pos);
        *x = edge_find(t, pos.block, pos.rank, pos.op, edge_kind(t->m->ops[p][k].op->kind),
                       true);
    }
    return *x;
}

static uint64_t edge_mix(uint64_t h, uint64_t v)
{
    h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
    return h * UINT64_C(0xff51afd7ed558ccd);
}

/* Whether the state of fingerprint (a, b) is new, added if so. */
static bool edge_visit(struct edge_truth *t, uint64_t a, uint64_t b)
{
    size_t h;

    if (a == 0 && b == 0)
        a = 1;
    if (2 * (t->len + 1) > t->cap) {
        size_t cap = t->cap > 0 ? 2 * t->cap : 4096;
        uint64_t *set = calloc(2 * cap, sizeof(*set));

        assert_non_null(set);
        for (size_t i = 0; i < t->cap; i++) {
            if (t->set[2 * i] == 0 && t->set[2 * i + 1] == 0)
                continue;
            for (h = t->set[2 * i] & (cap - 1); set[2 * h] != 0 || set[2 * h + 1] != 0;)
                h = (h + 1) & (cap - 1);
            set[2 * h] = t->set[2 * i];
            set[2 * h + 1] = t->set[2 * i + 1];
        }
        free(t->set);
        t->set = set;
        t->cap = cap;
    }
    for (h = a & (t->cap - 1); t->set[2 * h] != 0 || t->set[2 * h + 1] != 0;
         h = (h + 1) & (t->cap - 1)) {
        if (t->set[2 * h] == a && t->set[2 * h + 1] == b)
            return false;
    }
    t->set[2 * h] = a;
    t->set[2 * h + 1] = b;
    t->len++;
    return true;
}

/* Wait o (t->op[x]) passes: the writes it passes on are those since its
 * slot's latest write that fails its condition; where the latest of them
 * is of its block, those of its block are kept in t->miss (once each) to
 * be judged against the picture's edges (which leave out the pairs
 * across blocks). */
static void edge_pass(struct edge_truth *t, const struct sim_op *o, uint32_t x)
{
    const struct edge_op *w = &t->op[x];
    uint32_t c = 0, i;
    uint64_t own = 0;

    while (c < t->ncond && (t->slot[c] != o->slot || t->cmp[c] != o->op->cmp ||
                            t->value[c] != o->op->value))
        c++;
    assert_true(c < t->ncond && (t->held >> c & 1));
    t->passed[0] |= UINT64_C(1) << w->nth;
    t->seen[w->nth] |= t->mask[c];
    if (t->mask[c] == 0 || t->wblock[t->last[c]] != w->block)
        return;
    for (uint32_t k = 0; k < t->count[EDGE_WRITE]; k++)
        own |= (t->mask[c] >> k & 1) && t->wblock[k] == w->block ? UINT64_C(1) << k : 0;
    for (i = 0; i < t->nmiss && (t->miss[i].wait != w->nth || t->miss[i].writes != own); i++)
        ;
    if (own == 0 || i < t->nmiss)
        return;
    if (t->nmiss == t->cmiss) {
        uint32_t cap = t->cmiss > 0 ? 2 * t->cmiss : EDGE_MISSES;
        struct edge_miss *miss = realloc(t->miss, cap * sizeof(*miss));

        assert_non_null(miss);
        t->miss = miss;
        t->cmiss = cap;
    }
    t->miss[t->nmiss++] = (struct edge_miss){w->nth, own};
}

/* Walks every execution from s, each state (with what is tracked) once,
 * the states after a step from s in t->next[d] (kept from walk to walk:
 * a copy into it reuses its memory). */
static void edge_walk(struct edge_truth *t, struct sim_state *s, size_t d)
{
    const struct sim_model *m = t->m;
    uint64_t h[2], mask[EDGE_MAX], held = t->held;
    uint32_t last[EDGE_MAX];
    uint32_t *pc;

    ces_sim_state_hash(t->m, s, h);
    for (uint32_t c = 0; c < t->ncond; c++) {
        h[0] = edge_mix(h[0], t->mask[c]);
        h[1] = edge_mix(h[1], t->last[c]);
    }
    h[1] = edge_mix(h[1], t->held);
    if (!edge_visit(t, h[0], h[1]))
        return;
    memcpy(mask, t->mask, t->ncond * sizeof(*mask));
    memcpy(last, t->last, t->ncond * sizeof(*last));
    pc = SIM_PC(m, s);
    for (uint32_t p = 0; p < m->nproc; p++) {
        int st = ces_sim_status(m, s, p);
        const struct sim_op *o;
        struct sim_state *n = &t->next[d];
        uint32_t x;

        if (st != SIM_S_VISIBLE && st != SIM_S_INVISIBLE)
            continue;
        o = &m->ops[p][pc[p]];
        x = edge_kind(o->op->kind) >= 0 ? edge_at(t, p, pc[p]) : UINT32_MAX;
        if (x != UINT32_MAX && t->op[x].rank != t->skip) {
            if (t->op[x].kind == EDGE_WAIT) {
                edge_pass(t, o, x);
            } else if (t->op[x].kind == EDGE_AWAIT) {
                const struct sim_link *l = ces_sim_await_rec(m, o);
                uint32_t y = edge_at(t, l->proc, l->pos);

                t->passed[1] |= UINT64_C(1) << t->op[x].nth;
                t->seen[t->count[EDGE_WAIT] + t->op[x].nth] |= UINT64_C(1) << t->op[y].nth;
            }
        }
        if (x != UINT32_MAX && t->op[x].kind == EDGE_RECORD)
            t->ran[1] |= UINT64_C(1) << t->op[x].nth;
        if (x != UINT32_MAX && t->op[x].kind == EDGE_WRITE) {
            t->ran[0] |= UINT64_C(1) << t->op[x].nth;
            for (uint32_t c = 0; c < t->ncond; c++) {
                if (t->slot[c] != o->slot)
                    continue;
                if (ces_wait_holds(m->slot_width[o->slot], t->cmp[c], o->op->value,
                                   t->value[c])) {
                    t->mask[c] = (t->held >> c & 1 ? t->mask[c] : 0) |
                                 UINT64_C(1) << t->op[x].nth;
                    t->last[c] = t->op[x].nth;
                    t->held |= UINT64_C(1) << c;
                } else {
                    t->mask[c] = 0;
                    t->last[c] = 0;
                    t->held &= ~(UINT64_C(1) << c);
                }
            }
        }
        assert_true(d + 1 < t->depth);
        assert_int_equal(ces_sim_state_copy(m, n, s), CES_OK);
        assert_int_equal(ces_sim_exec(m, n, p, NULL), CES_OK);
        edge_walk(t, n, d + 1);
        memcpy(t->mask, mask, t->ncond * sizeof(*mask));
        memcpy(t->last, last, t->ncond * sizeof(*last));
        t->held = held;
    }
}

/* Builds the model of g under o (streams from `queued` on a queue each)
 * and walks every execution: t's ops and conditions, what each wait and
 * await passed on. */
static void edge_truth(struct ces_ctx *ctx, const struct ces_graph *g,
                       const struct ces_check_opts *o, uint32_t queued, struct edge_truth *t)
{
    struct sim_state s;

    memset(t, 0, sizeof(*t));
    assert_int_equal(ces_sim_model_build(ctx, g, o, queued, &t->m, NULL), CES_OK);
    t->m->hashed = true;
    t->skip = ces_graph_ranks(g) - 1;
    t->at_off = calloc(t->m->nproc + 1, sizeof(*t->at_off));
    assert_non_null(t->at_off);
    for (uint32_t p = 0; p < t->m->nproc; p++)
        t->at_off[p + 1] = t->at_off[p] + t->m->len[p];
    t->depth = (size_t)t->at_off[t->m->nproc] + 1; /* a step runs an op */
    t->at = malloc(t->at_off[t->m->nproc] * sizeof(*t->at) + 1);
    t->next = calloc(t->depth, sizeof(*t->next));
    assert_non_null(t->at);
    assert_non_null(t->next);
    memset(t->at, 0xff, t->at_off[t->m->nproc] * sizeof(*t->at));
    /* every op the pictures name, so that their edges map, in a fixed order;
     * the conditions of the waits */
    for (uint32_t p = 0; p < t->m->nproc; p++) {
        for (uint32_t k = 0; k < t->m->len[p]; k++) {
            const struct sim_op *op = &t->m->ops[p][k];
            uint32_t c = 0;

            if (edge_kind(op->op->kind) >= 0)
                edge_at(t, p, k);
            if (op->op->kind != CES_OP_WAIT)
                continue;
            while (c < t->ncond && (t->slot[c] != op->slot || t->cmp[c] != op->op->cmp ||
                                    t->value[c] != op->op->value))
                c++;
            if (c < t->ncond)
                continue;
            assert_true(t->ncond < EDGE_MAX);
            t->slot[c] = op->slot;
            t->cmp[c] = op->op->cmp;
            t->value[c] = op->op->value;
            if (ces_wait_holds(t->m->slot_width[op->slot], op->op->cmp, 0, op->op->value))
                t->held |= UINT64_C(1) << c;
            t->ncond++;
        }
    }
    assert_true(t->count[EDGE_WAIT] + t->count[EDGE_AWAIT] <= EDGE_MAX);
    memset(&s, 0, sizeof(s));
    assert_int_equal(ces_sim_state_init(t->m, &s), CES_OK);
    edge_walk(t, &s, 0);
    ces_sim_state_free(t->m, &s);
    for (size_t d = 0; d < t->depth; d++) {
        if (t->next[d].w != NULL)
            ces_sim_state_free(t->m, &t->next[d]);
    }
    free(t->next);
    free(t->at);
    free(t->at_off);
    free(t->set);
    t->set = NULL;
    ces_sim_model_destroy(t->m);
    t->m = NULL;
}

/* One configuration's totals over the schedules. */
struct edge_sum {
    const char *name;
    uint64_t states, passes, edges, await_edges, idle, wrong, missing;
};

/* The edges of picture `text` (write -> wait dashed, record -> await
 * dotted) into drawn[] (as edge_truth.drawn), counted into sum (where not
 * NULL), each of a wait or await of the counting rank left out; every
 * other one must name ops the walk knows. */
static void edge_drawn(struct edge_truth *t, const char *text, struct edge_sum *sum,
                       uint64_t *drawn)
{
    memset(drawn, 0, EDGE_MAX * sizeof(*drawn));
    for (const char *l = text; l != NULL && *l != '\0'; l = strchr(l, '\n'), l += l != NULL) {
        unsigned a[3], b[3];
        char style[8];
        uint32_t x, y;

        if (sscanf(l, "n%u_%u_%u -> n%u_%u_%u [style=%7[a-z]", &a[0], &a[1], &a[2], &b[0],
                   &b[1], &b[2], style) != 7 ||
            (strcmp(style, "dashed") != 0 && strcmp(style, "dotted") != 0) || b[1] == t->skip)
            continue;
        x = edge_find(t, a[0], a[1], a[2], 0, false);
        y = edge_find(t, b[0], b[1], b[2], 0, false);
        assert_true(x != UINT32_MAX && y != UINT32_MAX);
        if (strcmp(style, "dashed") == 0) {
            assert_true(t->op[x].kind == EDGE_WRITE && t->op[y].kind == EDGE_WAIT);
            drawn[t->op[y].nth] |= UINT64_C(1) << t->op[x].nth;
            if (sum != NULL)
                sum->edges++;
        } else {
            assert_true(t->op[x].kind == EDGE_RECORD && t->op[y].kind == EDGE_AWAIT);
            drawn[t->count[EDGE_WAIT] + t->op[y].nth] |= UINT64_C(1) << t->op[x].nth;
            if (sum != NULL)
                sum->await_edges++;
        }
    }
}

static void edge_name(char *buf, size_t size, const struct edge_truth *t, uint32_t kind,
                      uint32_t nth)
{
    for (uint32_t i = 0; i < t->nop; i++) {
        if (t->op[i].kind == kind && t->op[i].nth == nth)
            snprintf(buf, size, "n%u_%u_%u", t->op[i].block, t->op[i].rank, t->op[i].index);
    }
}

/* Judges picture `text` by t: an edge from a write (record) that runs in
 * some execution to a wait (await) that passes in some execution, but
 * never on it, is wrong, said and counted; one from a write or record
 * that runs in no execution, or to a wait or await that passes in none,
 * is counted apart (idle: which ops run is the checker's to say); a
 * wait's passes whose writes of its block none of its edges names are
 * missing, said and counted, and so is a write the wait passes on in some
 * execution (t->seen) whose edge a chain of waits left out: drawn in
 * `unchained` (the picture drawn without chain_over and taken_apart) and
 * not in `text`.  Those rules say the wait never passes on it; a pass
 * that another of its writes explains would hide it from the first test
 * (the wait passing on a write that lands after it too). */
static void edge_judge(struct edge_truth *t, const char *text, const char *unchained,
                       struct edge_sum *sum, uint64_t seed)
{
    uint32_t nw = t->count[EDGE_WAIT], na = t->count[EDGE_AWAIT];
    char from[32], to[32];

    assert_non_null(strstr(text, "write -> wait edges within a block not drawn"));
    edge_drawn(t, text, sum, t->drawn);
    edge_drawn(t, unchained, NULL, t->unchained);
    for (uint32_t i = 0; i < nw; i++) {
        uint64_t left = t->unchained[i] & ~t->drawn[i] & t->seen[i];

        for (uint32_t k = 0; k < EDGE_MAX; k++) {
            if (!(left >> k & 1))
                continue;
            edge_name(from, sizeof(from), t, EDGE_WRITE, k);
            edge_name(to, sizeof(to), t, EDGE_WAIT, i);
            printf("seed %llu, %s: %s passes on %s, whose edge a chain of waits left out\n",
                   (unsigned long long)seed, sum->name, to, from);
            sum->missing++;
        }
    }
    for (uint32_t i = 0; i < nw + na; i++) {
        uint32_t kind = i < nw ? EDGE_WAIT : EDGE_AWAIT, nth = i < nw ? i : i - nw;
        uint64_t idle = t->drawn[i] & ~t->ran[kind == EDGE_AWAIT], wrong;

        if (!(t->passed[kind == EDGE_AWAIT] >> nth & 1))
            idle = t->drawn[i];
        for (uint64_t d = idle; d != 0; d &= d - 1)
            sum->idle++;
        wrong = t->drawn[i] & ~t->seen[i] & ~idle;
        for (uint32_t k = 0; k < EDGE_MAX; k++) {
            if (!(wrong >> k & 1))
                continue;
            edge_name(from, sizeof(from), t, kind == EDGE_WAIT ? EDGE_WRITE : EDGE_RECORD, k);
            edge_name(to, sizeof(to), t, kind, nth);
            printf("seed %llu, %s: wrong edge %s -> %s\n", (unsigned long long)seed,
                   sum->name, from, to);
            sum->wrong++;
        }
    }
    for (uint32_t i = 0; i < t->nmiss; i++) {
        const struct edge_miss *m = &t->miss[i];

        if ((m->writes & t->drawn[m->wait]) != 0)
            continue;
        edge_name(to, sizeof(to), t, EDGE_WAIT, m->wait);
        printf("seed %llu, %s: %s passes on", (unsigned long long)seed, sum->name, to);
        for (uint32_t k = 0; k < EDGE_MAX; k++) {
            if (m->writes >> k & 1) {
                edge_name(from, sizeof(from), t, EDGE_WRITE, k);
                printf(" %s", from);
            }
        }
        printf(", no edge drawn from them\n");
        sum->missing++;
    }
}

/* Walks every execution of `small` under o (streams from `queued` on a
 * queue each) and judges by it the pictures of `big` drawn as checked by
 * chk[0..n) (NULL: as `cesync dot` draws it), into sum[0..n). */
static void edge_config(struct ces_ctx *ctx, const struct ces_graph *big,
                        const struct ces_graph *small, const struct ces_check_opts *o,
                        uint32_t queued, const struct ces_dot_checked *const *chk, size_t n,
                        struct edge_sum *sum, uint64_t seed)
{
    struct edge_truth *t = calloc(1, sizeof(*t));

    assert_non_null(t);
    edge_truth(ctx, small, o, queued, t);
    if (getenv("CES_EDGE_PRINT") != NULL)
        printf("seed %llu, %s: %zu states\n", (unsigned long long)seed, sum->name, t->len);
    for (size_t i = 0; i < n; i++) {
        char *text = NULL;
        size_t len = 0;

        sum[i].states += t->len;
        sum[i].passes += t->nmiss;
        struct ces_dot_checked un = {NULL, ces_graph_streams(big), true};
        char *all = NULL;

        if (chk[i] != NULL)
            un = (struct ces_dot_checked){chk[i]->queue_map, chk[i]->linked, true};
        assert_int_equal(ces_dot_emit_sized(ctx, big, NULL, chk[i], &text, &len, NULL, 0),
                         CES_OK);
        assert_int_equal(ces_dot_emit_sized(ctx, big, NULL, &un, &all, &len, NULL, 0), CES_OK);
        edge_judge(t, text, all, &sum[i], seed);
        ces_free(ctx, text);
        ces_free(ctx, all);
    }
    free(t->miss);
    free(t);
}

/* A delay of one of g's writes, but the counting rank's (its last), picked
 * by seed: "delay:rR.sS#K" into buf; false where g has none. */
static bool edge_delay(const struct ces_graph *g, uint64_t seed, char *buf, size_t size)
{
    uint64_t s = seed ^ UINT64_C(0xd1b54a32d192ed03), n = 0, pick = 0;

    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t r = 0; r + 1 < ces_graph_ranks(g); r++) {
            for (uint32_t sn = 0; sn < ces_graph_streams(g); sn++) {
                uint32_t b, rep, k;
                uint64_t len;
                const struct ces_op *op;

                for (uint64_t i = 0; (op = ces_sim_op_at(g, r, sn, i, &b, &rep, &k, &len)); i++) {
                    if (op->kind != CES_OP_WRITE)
                        continue;
                    if (pass == 1 && pick-- == 0)
                        snprintf(buf, size, "delay:r%u.s%u#%llu", r, sn, (unsigned long long)i);
                    n += pass == 0;
                }
            }
        }
        if (pass == 0)
            pick = n > 0 ? edge_rand(&s) % n : 0;
    }
    return n > 0;
}

/* Judges the pictures of `big` (its counting rank counting to 46) by
 * every execution of `small` (to 1), both of `ranks` ranks on 2 streams,
 * into sum[0..4): as `cesync dot` and `cesync check --dot` draw them, on
 * one hardware queue a rank, and with a write delayed (picked by seed). */
static void edge_seed(struct ces_ctx *ctx, const struct ces_graph *big,
                      const struct ces_graph *small, uint32_t ranks, uint64_t seed,
                      struct edge_sum *sum)
{
    struct ces_check_opts o;
    struct ces_fault f;
    struct sim_delayed db, ds;
    uint32_t map[2 * 4];
    struct ces_dot_checked plain = {NULL, 2, false}, queues = {map, 2, false};
    const struct ces_dot_checked *pics[2] = {NULL, &plain};
    const struct ces_dot_checked *qpic = &queues;
    char spec[64];

    ces_check_opts_init(&o);
    edge_config(ctx, big, small, &o, 2, pics, 2, &sum[0], seed);
    /* every rank's streams on one hardware queue */
    assert_int_equal(ces_queue_map_parse(ctx, "0,0", ranks, 2, map), CES_OK);
    o.queue_map = map;
    edge_config(ctx, big, small, &o, 2, &qpic, 1, &sum[2], seed);
    /* a write delayed: the graph checked in the schedule's place */
    ces_check_opts_init(&o);
    if (!edge_delay(small, seed, spec, sizeof(spec)))
        return;
    if (getenv("CES_EDGE_PRINT") != NULL)
        printf("--fault %s\n", spec);
    assert_int_equal(ces_fault_parse(ctx, spec, &f), CES_OK);
    o.faults = &f;
    o.nfaults = 1;
    assert_int_equal(ces_sim_faults_check(ctx, small, o.faults, o.nfaults), CES_OK);
    assert_int_equal(ces_sim_delay_derive(ctx, big, &o, &db), CES_OK);
    assert_int_equal(ces_sim_delay_derive(ctx, small, &o, &ds), CES_OK);
    assert_true(db.g != NULL && ds.g != NULL);
    o.faults = ds.faults;
    o.nfaults = ds.nfaults;
    edge_config(ctx, db.g, ds.g, &o, ds.streams, &pics[1], 1, &sum[3], seed);
    ces_sim_delayed_free(ctx, &db);
    ces_sim_delayed_free(ctx, &ds);
}

static void edge_print(const struct edge_sum *sum)
{
    printf("%s: %llu states, %llu passes (of a wait on writes of its block), %llu edges to "
           "waits, %llu to awaits (%llu from an op that never runs or to one that never "
           "passes), %llu wrong, %llu passes missing\n", sum->name,
           (unsigned long long)sum->states, (unsigned long long)sum->passes,
           (unsigned long long)sum->edges, (unsigned long long)sum->await_edges,
           (unsigned long long)sum->idle, (unsigned long long)sum->wrong,
           (unsigned long long)sum->missing);
}

static void test_order_edges(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct edge_text *text = malloc(sizeof(*text));
    uint64_t first = 0, seeds = EDGE_SEEDS;
    static const char *const names[4] = {"dot", "check", "check --queues 0,0",
                                         "check --fault delay"};
    struct edge_sum sum[4];
    /* edges to waits, to awaits, passes missing */
    static const uint64_t pinned[4][3] = {{389, 116, 0}, {389, 116, 0}, {356, 116, 0},
                                          {634, 304, 0}};

    (void)state;
    assert_non_null(text);
    memset(sum, 0, sizeof(sum));
    for (uint32_t i = 0; i < 4; i++)
        sum[i].name = names[i];
    if (getenv("CES_EDGE_SEEDS") != NULL)
        seeds = strtoull(getenv("CES_EDGE_SEEDS"), NULL, 10);
    if (getenv("CES_EDGE_SEED") != NULL) { /* one seed alone */
        first = strtoull(getenv("CES_EDGE_SEED"), NULL, 10);
        seeds = first + 1;
    }
    for (uint64_t seed = first; seed < seeds; seed++) {
        uint32_t ranks;
        struct ces_graph *big, *small;

        edge_schedule(seed, EDGE_COUNTER, text, &ranks);
        big = ces_test_text_graph(ctx, text->buf);
        edge_schedule(seed, 1, text, &ranks);
        small = ces_test_text_graph(ctx, text->buf);
        if (getenv("CES_EDGE_PRINT") != NULL)
            printf("seed %llu:\n%s", (unsigned long long)seed, text->buf);
        edge_seed(ctx, big, small, ranks, seed, sum);
        ces_graph_destroy(big);
        ces_graph_destroy(small);
    }
    for (uint32_t i = 0; i < 4; i++) {
        edge_print(&sum[i]);
        assert_int_equal(sum[i].wrong, 0);
    }
    /* the default seeds' edges and missing passes, pinned: a picture drawn
     * more or less precisely changes them */
    for (uint32_t i = 0; i < 4 && first == 0 && seeds == EDGE_SEEDS; i++) {
        assert_int_equal(sum[i].edges, pinned[i][0]);
        assert_int_equal(sum[i].await_edges, pinned[i][1]);
        assert_int_equal(sum[i].missing, pinned[i][2]);
    }
    free(text);
    ces_test_ctx_end(ctx, &st);
}

/* An edge the picture drew wrong, held right: r0 waits f == 2, then
 * f == 1, then f >= 2; r1 writes 1 and then 2, r2 writes 2.  The first
 * wait can pass on r1's 2 only where r1's 1 came before, and then the
 * second never passes; so in every execution where the third passes, the
 * first passed on r2's 2, the second on r1's 1 after it, and the third on
 * r1's 2.  The order drew r2's write to the third wait as well (n1_2_0 ->
 * n1_0_2, 5 edges, 1 wrong) where it did not follow the second wait's
 * value back to which write the first took (order_taken).  The same in a
 * graph phase replayed 3 times, where the second replay's first wait may
 * pass on the first replay's writes: no edge wrong, none missing. */
static void test_taken_write_edge(void **state)
{
    static const char *const tails[2] = {
        "phase eager x1\nr0 : wait f[0] == 2\nr0 : wait f[0] == 1\nr0 : wait f[0] >= 2\n"
        "r1 : write f[0]@0 = 1\nr1 : write f[0]@0 = 2\nr2 : write f[0]@0 = 2\n",
        "phase graph x3\nr0 : wait f[0] == 2\nr0 : wait f[0] == 1\nr0 : wait f[0] >= 2\n"
        "r1 : write f[0]@0 = 1\nr1 : write f[0]@0 = 2\nr2 : write f[0]@0 = 2\n"};
    static const uint64_t edges[2] = {4, 5};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct edge_text *text = malloc(sizeof(*text));

    (void)state;
    assert_non_null(text);
    for (uint32_t i = 0; i < 2; i++) {
        struct edge_sum sum;
        struct ces_check_opts o;
        struct ces_graph *big, *small;
        const struct ces_dot_checked *pic = NULL;

        memset(&sum, 0, sizeof(sum));
        sum.name = "dot";
        edge_counted(text, EDGE_COUNTER, tails[i]);
        big = ces_test_text_graph(ctx, text->buf);
        edge_counted(text, 1, tails[i]);
        small = ces_test_text_graph(ctx, text->buf);
        ces_check_opts_init(&o);
        edge_config(ctx, big, small, &o, 2, &pic, 1, &sum, i);
        edge_print(&sum);
        assert_int_equal(sum.edges, edges[i]);
        assert_int_equal(sum.wrong, 0);
        assert_int_equal(sum.missing, 0);
        ces_graph_destroy(big);
        ces_graph_destroy(small);
    }
    free(text);
    ces_test_ctx_end(ctx, &st);
}

/* Judges the pictures of edge_counted's schedule of `tail` as edge_seed
 * does (its write delayed picked by `seed`) into sum[0..4), named as
 * test_order_edges names them, and prints them. */
static void edge_tail_sums(struct ces_ctx *ctx, const char *tail, uint64_t seed,
                           struct edge_sum sum[4])
{
    static const char *const names[4] = {"dot", "check", "check --queues 0,0",
                                         "check --fault delay"};
    struct edge_text *text = malloc(sizeof(*text));
    struct ces_graph *big, *small;

    assert_non_null(text);
    memset(sum, 0, 4 * sizeof(*sum));
    for (uint32_t i = 0; i < 4; i++)
        sum[i].name = names[i];
    edge_counted(text, EDGE_COUNTER, tail);
    big = ces_test_text_graph(ctx, text->buf);
    edge_counted(text, 1, tail);
    small = ces_test_text_graph(ctx, text->buf);
    edge_seed(ctx, big, small, 4, seed, sum);
    for (uint32_t i = 0; i < 4; i++)
        edge_print(&sum[i]);
    ces_graph_destroy(big);
    ces_graph_destroy(small);
    free(text);
}

/* Pins the edges to waits of the pictures of edge_counted's schedule of
 * `tail` (edge_tail_sums, the delay of seed 0): edges[k] in configuration
 * k, wrong[k] of them wrong (NULL: none), none missing. */
static void edge_tail(struct ces_ctx *ctx, const char *tail, const uint64_t edges[4],
                      const uint64_t wrong[4])
{
    struct edge_sum sum[4];

    edge_tail_sums(ctx, tail, 0, sum);
    for (uint32_t k = 0; k < 4; k++) {
        assert_int_equal(sum[k].edges, edges[k]);
        assert_int_equal(sum[k].wrong, wrong != NULL ? wrong[k] : 0);
        assert_int_equal(sum[k].missing, 0);
    }
}

/* Edges the picture drew wrong where a wait may pass on the slot's
 * initial 0 by its own condition but an earlier wait of its process
 * passed on a write (written_before): r0 waits f == 1, f == 0, f >= 1;
 * r1 writes 1, r2 writes 1 and then 0.  The second wait passes on r2's 0,
 * not on the initial 0, as the first passed on a 1; so the third passes on
 * a 1 after r2's 0, r1's alone, and r2's 1 was drawn to it as well
 * (n1_2_0 -> n1_0_2, 5 edges, 1 wrong, in each configuration).  Now 4
 * edges, none wrong or missing; in a graph phase replayed 3 times 5, 5, 5
 * and 9 edges, none wrong or missing (the delayed write's picture drew 10,
 * 1 wrong). */
static void test_written_before_edge(void **state)
{
    static const char *const tails[2] = {
        "phase eager x1\nr0 : wait f[0] == 1\nr0 : wait f[0] == 0\nr0 : wait f[0] >= 1\n"
        "r1 : write f[0]@0 = 1\nr2 : write f[0]@0 = 1\nr2 : write f[0]@0 = 0\n",
        "phase graph x3\nr0 : wait f[0] == 1\nr0 : wait f[0] == 0\nr0 : wait f[0] >= 1\n"
        "r1 : write f[0]@0 = 1\nr2 : write f[0]@0 = 1\nr2 : write f[0]@0 = 0\n"};
    static const uint64_t edges[2][4] = {{4, 4, 4, 4}, {5, 5, 5, 9}};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (uint32_t i = 0; i < 2; i++)
        edge_tail(ctx, tails[i], edges[i], NULL);
    ces_test_ctx_end(ctx, &st);
}

/* A chain of three waits.  r0 waits f >= 3, f == 2, f == 3; r1 writes 3
 * and then 2, r2 writes 2 and then 3.  Where the second wait took r1's 2,
 * r1's 3 came before it; where it took r2's 2, the first took r1's 3 (r2's
 * 3 comes after r2's 2), which r2's 2 overwrote: the third passes on r2's
 * 3 alone.  order_taken follows the second wait back to what it may take,
 * not the first wait back to which of them it took; chain_over does, so
 * r1's 3 is no longer drawn to the third (n1_1_0 -> n1_0_2 was: 6 edges,
 * 1 wrong, but under the delay, 6 and none).  Now 5 edges and none wrong
 * (6 under the delay); no execution misses an edge. */
static void test_three_waits_edge(void **state)
{
    static const uint64_t edges[4] = {5, 5, 5, 6};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    edge_tail(ctx, "phase eager x1\nr0 : wait f[0] >= 3\nr0 : wait f[0] == 2\n"
                   "r0 : wait f[0] == 3\nr1 : write f[0]@0 = 3\nr1 : write f[0]@0 = 2\n"
                   "r2 : write f[0]@0 = 2\nr2 : write f[0]@0 = 3\n", edges, NULL);
    ces_test_ctx_end(ctx, &st);
}

/* A chain of four waits.  r0 waits f == 1, f >= 3, f == 1, f == 3; r1
 * writes 3 and then 1, r1 s1 writes 3, r2 writes 3 and then 1.  The
 * fourth passes on r1 s1's 3 alone: where the third took r2's 1, the
 * first did not (the second, between them, fails 1), so it took r1's 1,
 * after r1's 3, and r2's 3 comes before r2's 1; where the third took
 * r1's 1, r1's 3 came before it.  chain_over asked whether the first
 * took r2's 1 too and could not rule it out: r1's 3 and r2's 3 were drawn
 * to the fourth as well (n1_1_0 and n1_2_0 -> n1_0_3; 10, 10, 10 and 10
 * edges, 2, 2, 2 and 1 wrong).  Now 8, 8, 8 and 9 edges, none wrong or
 * missing. */
static void test_four_waits_edge(void **state)
{
    static const uint64_t edges[4] = {8, 8, 8, 9};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    edge_tail(ctx, "phase eager x1\nr0 : wait f[0] == 1\nr0 : wait f[0] >= 3\n"
                   "r0 : wait f[0] == 1\nr0 : wait f[0] == 3\nr1 : write f[0]@0 = 3\n"
                   "r1 : write f[0]@0 = 1\nr1 s1 : write f[0]@0 = 3\n"
                   "r2 : write f[0]@0 = 3\nr2 : write f[0]@0 = 1\n", edges, NULL);
    ces_test_ctx_end(ctx, &st);
}

/* A chain whose earlier wait may take a later replay's write.  r1 writes 1
 * then 5 in a graph phase replayed 3 times; then r0 waits f == 5, f == 1,
 * f == 2, f == 1, f == 3, r2 writes 2 then 3.  The second wait cannot take
 * the first replay's 1 (its 5, before the first wait, overwrote it) and
 * the fourth takes a 1 of a later replay: chain_over took it that both
 * took the same write, which the third, failing 1, rules out, so that the
 * fourth never took it and r2's 3 lands before it; but the second may
 * take the second replay's 1, the third r2's 2 and the fourth the third
 * replay's 1, after which the fifth passes on r2's 3, whose edge was left
 * out (n2_0_4 passes on n2_2_1, no edge drawn, in dot, check and
 * --queues 0,0).  Now 2 edges to waits in each, none wrong or missing. */
static void test_later_replays_chain_edge(void **state)
{
    static const uint64_t edges[4] = {2, 2, 2, 2};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    edge_tail(ctx, "phase graph x3\nr1 : write f[0]@0 = 1\nr1 : write f[0]@0 = 5\n"
                   "phase eager x1\nr0 : wait f[0] == 5\nr0 : wait f[0] == 1\n"
                   "r0 : wait f[0] == 2\nr0 : wait f[0] == 1\nr0 : wait f[0] == 3\n"
                   "r2 : write f[0]@0 = 2\nr2 : write f[0]@0 = 3\n", edges, NULL);
    ces_test_ctx_end(ctx, &st);
}

/* Pins the edges to waits of the schedule that `tail` ends (edge_tail) in
 * each configuration: edges[k], wrong[k] of them, none missing; and in
 * the picture of its counted text (edge_counted) the edges `drawn` and
 * not those `left` (each list NULL-ended; "a -> b" names a dashed edge). */
static void pin_tail(const char *tail, const uint64_t edges[4], const uint64_t wrong[4],
                     const char *const *drawn, const char *const *left)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct edge_text *text = malloc(sizeof(*text));
    struct ces_graph *g;
    char *dot = NULL, name[64];
    size_t len = 0;

    assert_non_null(text);
    edge_tail(ctx, tail, edges, wrong);
    edge_counted(text, EDGE_COUNTER, tail);
    g = ces_test_text_graph(ctx, text->buf);
    assert_int_equal(ces_dot_emit_sized(ctx, g, NULL, NULL, &dot, &len, NULL, 0), CES_OK);
    for (const char *const *e = drawn; *e != NULL; e++) {
        snprintf(name, sizeof(name), "%s [style=dashed", *e);
        if (strstr(dot, name) == NULL)
            fail_msg("%s not drawn", *e);
    }
    for (const char *const *e = left; *e != NULL; e++) {
        snprintf(name, sizeof(name), "%s [style=dashed", *e);
        if (strstr(dot, name) != NULL)
            fail_msg("%s drawn", *e);
    }
    ces_free(ctx, dot);
    ces_graph_destroy(g);
    free(text);
    ces_test_ctx_end(ctx, &st);
}

/* Waits of one process that take apart every write they may take
 * (taken_apart).  r0 waits f == 1 then f >= 2 in two eager iterations,
 * r2 writing 2 in each; then r0 s1 writes 1 and r0 waits f == 1, r1 writes
 * 1, r2 1 and from s1 2.  r0 s1's 1 comes after the iterations (the block
 * boundary), so their two `== 1`, each overwritten (the `>= 2` after it
 * fails 1), take r1's and r2's 1, one each, and the last passes on r0's
 * 1 alone; r1's and r2's were drawn to it too (n3_1_0 -> n3_0_1 and
 * n3_2_0 -> n3_0_1: 4 edges, 2 wrong, in each configuration).  Now 2
 * edges to waits in each, none wrong or missing, and the picture draws
 * n3_0_0 -> n3_0_1 alone to the last wait. */
static void test_apart_waits_edge(void **state)
{
    static const char tail[] =
        "phase eager x2\nr0 : wait f[0] == 1\nr0 : wait f[0] >= 2\nr2 : write f[0]@0 = 2\n"
        "phase eager x1\nr0 s1 : write f[0]@0 = 1\nr0 : wait f[0] == 1\n"
        "r1 : write f[0]@0 = 1\nr2 : write f[0]@0 = 1\nr2 s1 : write f[0]@0 = 2\n";
    static const uint64_t edges[4] = {2, 2, 2, 2}, wrong[4] = {0, 0, 0, 0};
    static const char *const drawn[] = {"n3_0_0 -> n3_0_1", NULL};
    static const char *const left[] = {"n3_1_0 -> n3_0_1", "n3_2_0 -> n3_0_1", NULL};

    (void)state;
    pin_tail(tail, edges, wrong, drawn, left);
}

/* Waits apart by the order their writes land in (taken_apart): r0 waits
 * f >= 3, f == 1, f == $i in two eager iterations ($i 2, then 3), r1
 * writes 3 in each, r2 1 then $i.  The second iteration's `== 1` takes a
 * 1 that lands after the first's `== 2` took r2's 2, so after r2's first
 * 1, and each `>= 3` takes a 3 that lands before the `== 1` after it: not
 * r2's 3, which lands after both of r2's 1.  So the two `>= 3`, apart,
 * take r1's two 3, and the last wait (`== 3`) passes on r2's 3 alone; r1's
 * second 3 was drawn to it too (n2_1_0 -> n2_0_2: 8 edges, 1 wrong, in
 * each configuration).  Now 7 edges, none wrong or missing (under the
 * delayed write, its write on a stream of its own, 8 and 1 wrong before
 * the run of waits apart took writes landing one after another), and the
 * picture draws n2_2_1 -> n2_0_2 and not n2_1_0 -> n2_0_2. */
static void test_apart_order_edge(void **state)
{
    static const char tail[] =
        "phase eager x2\nr0 : wait f[0] >= 3\nr0 : wait f[0] == 1\nr0 : wait f[0] == $i\n"
        "r1 : write f[0]@0 = 3\nr2 : write f[0]@0 = 1\nr2 : write f[0]@0 = $i\n";
    static const uint64_t edges[4] = {7, 7, 7, 7}, wrong[4] = {0, 0, 0, 0};
    static const char *const drawn[] = {"n2_2_1 -> n2_0_2", NULL};
    static const char *const left[] = {"n2_1_0 -> n2_0_2", NULL};

    (void)state;
    pin_tail(tail, edges, wrong, drawn, left);
}

/* A write that taken_apart's waits take and a later one overwrites, but
 * with a write that the wait passes too: r0 waits f == 1, f == 2, f == 1,
 * f == 2, then f >= 1; r1 writes 1 then 2, r2 the same.  The two `== 1`
 * take r1's and r2's 1, one each, and each `== 2` after them fails 1, so
 * neither 1 is the latest as the last wait passes; but the 2 it passes
 * on lands after a 1 with no write that it fails between, so it passes
 * on that 1 too (r1 1, `== 1`, r1 2, `== 2`, r2 1, `== 1`, r2 2, `== 2`,
 * `>= 1` passes on all four).  Reading a pass as on the latest write
 * alone, taken_apart left out both 1 -> n1_0_4, and each process's 2,
 * drawn only where a write the wait fails may come after its 1, with
 * them: no edge to the last wait (and under a delayed write one left out
 * where another of the pass was drawn, which edge_judge's first test does
 * not see).  10 edges to waits (11 under the delay), none wrong or
 * missing, n1_1_0 -> n1_0_4 and n1_2_0 -> n1_0_4 among them. */
static void test_apart_overwrite_edge(void **state)
{
    static const char tail[] =
        "phase eager x1\nr0 : wait f[0] == 1\nr0 : wait f[0] == 2\nr0 : wait f[0] == 1\n"
        "r0 : wait f[0] == 2\nr0 : wait f[0] >= 1\nr1 : write f[0]@0 = 1\n"
        "r1 : write f[0]@0 = 2\nr2 : write f[0]@0 = 1\nr2 : write f[0]@0 = 2\n";
    static const uint64_t edges[4] = {10, 10, 10, 11}, wrong[4] = {0, 0, 0, 0};
    static const char *const drawn[] = {"n1_1_0 -> n1_0_4", "n1_2_0 -> n1_0_4", NULL};
    static const char *const left[] = {NULL};

    (void)state;
    pin_tail(tail, edges, wrong, drawn, left);
}

/* Waits of the rank's other stream that the block boundary orders first
 * use up writes too, and a run of waits apart takes writes that land one
 * after another (taken_apart): r0 waits f == 3 then f == 1, r1 writing 3
 * and r2 1; then r0 s1 waits f == 3 then f == 1 in two eager iterations,
 * r2 writing 1 then 3 in each.  r0's four waits up to the first
 * iteration's `== 1` take writes that land one after another (3, 1, 3,
 * 1), each failing the wait after it.  For that `== 1` to take r2's 1 of
 * the first iteration, the `== 3` before it takes a 3 landing before it,
 * r1's (r2's come after that 1), and the first `== 3` one of r2's, which
 * land after that 1 as well: no 1 is left to land between the two 3.  So
 * it passes on the second iteration's 1 alone, and the first's was drawn
 * to it (n2_2_0 -> n2_0_1; under the delay n3_2_0 -> n3_0_1 of the
 * second iteration: 6, 6, 5 and 6 edges, 1, 1, 0 and 1 wrong).  Now 4, 4,
 * 4 and 5 edges, none wrong or missing. */
static void test_apart_streams_edge(void **state)
{
    static const char tail[] =
        "phase eager x1\nr0 : wait f[0] == 3\nr0 : wait f[0] == 1\nr1 : write f[0]@0 = 3\n"
        "r2 : write f[0]@0 = 1\nphase eager x2\nr0 s1 : wait f[0] == 3\n"
        "r0 s1 : wait f[0] == 1\nr2 : write f[0]@0 = 1\nr2 : write f[0]@0 = 3\n";
    static const uint64_t edges[4] = {4, 4, 4, 5}, wrong[4] = {0, 0, 0, 0};
    static const char *const drawn[] = {"n2_2_1 -> n2_0_0", NULL};
    static const char *const left[] = {"n2_2_0 -> n2_0_1", NULL};

    (void)state;
    pin_tail(tail, edges, wrong, drawn, left);
}

/* Past its 1,024 tries (DOT_APART_TRIES) apart_fits takes it that the run
 * of waits may take writes landing one after another, and the edge is
 * kept: r0 waits f == 3, then == 1 and == 2 by turns, seven of them, then
 * f == 3; r1 writes 1, 2, 1, 2, 1, 2, 3, r2 1, 2, 1, 2, 1, 2, 1 and r2 s1
 * 3.  The last wait passes on r2 s1's 3 where the first takes r1's 3 and
 * the seven between take r2's seven writes in turn.  apart_fits tries r1's
 * writes first for the seven, and each run that takes one of them leaves
 * the first wait no 3 landing before it (r1's 3 comes after them): it
 * finds r2's run after 2,585 tries.  Taking the write as one the wait
 * never passes on past the cap leaves n1_2_7 -> n1_0_8 out, and under
 * --queues 0,0 n1_2_6 -> n1_0_7 too (49, 49, 29 and 49 edges, 2, 2, 4 and
 * 2 passes missing).  So 50, 50, 32 and 50 edges, none missing; the one
 * wrong under --queues 0,0, r1's 3 drawn to the last wait, the cap leaves
 * too (a search without it rules it out: 31 edges, none wrong). */
static void test_apart_tries_edge(void **state)
{
    static const char tail[] =
        "phase eager x1\nr0 : wait f[0] == 3\nr0 : wait f[0] == 1\nr0 : wait f[0] == 2\n"
        "r0 : wait f[0] == 1\nr0 : wait f[0] == 2\nr0 : wait f[0] == 1\nr0 : wait f[0] == 2\n"
        "r0 : wait f[0] == 1\nr0 : wait f[0] == 3\nr1 : write f[0]@0 = 1\n"
        "r1 : write f[0]@0 = 2\nr1 : write f[0]@0 = 1\nr1 : write f[0]@0 = 2\n"
        "r1 : write f[0]@0 = 1\nr1 : write f[0]@0 = 2\nr1 : write f[0]@0 = 3\n"
        "r2 : write f[0]@0 = 1\nr2 : write f[0]@0 = 2\nr2 : write f[0]@0 = 1\n"
        "r2 : write f[0]@0 = 2\nr2 : write f[0]@0 = 1\nr2 : write f[0]@0 = 2\n"
        "r2 : write f[0]@0 = 1\nr2 s1 : write f[0]@0 = 3\n";
    static const uint64_t edges[4] = {50, 50, 32, 50}, wrong[4] = {0, 0, 1, 0};
    static const char *const drawn[] = {"n1_2_7 -> n1_0_8", NULL};
    static const char *const left[] = {NULL};

    (void)state;
    pin_tail(tail, edges, wrong, drawn, left);
}

/* A wait whose write is decided by a wait of another slot before it
 * (order_across): r0 waits f == 3, g == 3, f == 0 in two eager
 * iterations, r1 writing f 0 in each, r2 f 3 and g $i (2, then 3); then
 * r1 writes g 3 and from s1 f 2, r2 from s1 f 0, r0 waits f == 1 and
 * f >= 2.  The second iteration's f == 3 takes a 3 landing after the first
 * iteration's f == 0 passes, and both of r2's 3 come before r2's g 3: so
 * the first iteration's g == 3 took r1's g 3, after both of r1's 0, and
 * the second iteration's f == 0 never passes on r1's second 0, which was
 * drawn to it (n2_1_0 -> n2_0_2: 5 edges, 1, 1, 0 and 1 wrong).  Now 4
 * edges in each configuration, none wrong or missing. */
static void test_across_slots_edge(void **state)
{
    static const char tail[] =
        "phase eager x2\nr0 : wait f[0] == 3\nr0 : wait g[0] == 3\nr0 : wait f[0] == 0\n"
        "r1 : write f[0]@0 = 0\nr2 : write f[0]@0 = 3\nr2 : write g[0]@0 = $i\n"
        "phase eager x1\nr0 : wait f[0] == 1\nr0 : wait f[0] >= 2\nr1 s1 : write f[0]@0 = 2\n"
        "r1 : write g[0]@0 = 3\nr2 s1 : write f[0]@0 = 0\n";
    static const uint64_t edges[4] = {4, 4, 4, 4}, wrong[4] = {0, 0, 0, 0};
    static const char *const drawn[] = {"n2_2_0 -> n2_0_0", NULL};
    static const char *const left[] = {"n2_1_0 -> n2_0_2", NULL};

    (void)state;
    pin_tail(tail, edges, wrong, drawn, left);
}

/* Where written_before takes a wait that the initial 0 passes to pass on a
 * write, no pass goes missing: an earlier wait on the rank's other stream
 * (ordered by a record and an await; one process only under --queues 0,0,
 * another elsewhere, whose waits before it written_before reads too: r2's
 * 1 was drawn to the third wait as well, 5 edges, 1 wrong), an earlier wait of
 * the block's previous replay, a reset to 0 in an earlier phase, a reset by
 * the wait's own rank from its other stream, the earlier wait that fails 0
 * nine waits back (past DOT_TAKEN_LOOK: r2's 1 drawn too) and one of the
 * previous block's later replay.  Edges to waits and the wrong ones pinned
 * per configuration (dot, check, --queues 0,0, a delayed write). */
static void test_written_before_shapes(void **state)
{
    static const char *const tails[] = {
        "phase eager x1\nr0 s1 : wait f[0] == 1\nr0 s1 : record e0\nr0 : await e0\n"
        "r0 : wait f[0] == 0\nr0 : wait f[0] >= 1\nr1 : write f[0]@0 = 1\n"
        "r2 : write f[0]@0 = 1\nr2 : write f[0]@0 = 0\n",
        "phase graph x3\nr0 : wait f[0] == 0\nr0 : wait f[0] == 1\nr0 : wait f[0] >= 1\n"
        "r1 : write f[0]@0 = 1\nr1 : write f[0]@0 = 0\nr2 : write f[0]@0 = 1\n",
        "phase eager x1\nr0 : wait f[0] == 1\nr1 : write f[0]@0 = 1\nr2 : write f[0]@0 = 0\n"
        "phase eager x1\nr0 : wait f[0] == 0\nr0 : wait f[0] >= 1\nr2 : write f[0]@0 = 1\n"
        "r1 : write f[0]@0 = 1\n",
        "phase eager x1\nr0 : wait f[0] == 1\nr0 s1 : write f[0]@0 = 0\nr0 : wait f[0] == 0\n"
        "r0 : wait f[0] >= 1\nr1 : write f[0]@0 = 1\nr2 : write f[0]@0 = 1\n",
        "phase eager x1\nr0 : wait f[0] == 1\nr0 : wait f[0] >= 0\nr0 : wait f[0] >= 0\n"
        "r0 : wait f[0] >= 0\nr0 : wait f[0] >= 0\nr0 : wait f[0] >= 0\n"
        "r0 : wait f[0] >= 0\nr0 : wait f[0] >= 0\nr0 : wait f[0] >= 0\n"
        "r0 : wait f[0] == 0\nr0 : wait f[0] >= 1\nr1 : write f[0]@0 = 1\n"
        "r2 : write f[0]@0 = 1\nr2 : write f[0]@0 = 0\n",
        "phase graph x3\nr0 : wait f[0] == 1\nr1 : write f[0]@0 = 1\nr2 : write f[0]@0 = 0\n"
        "phase eager x1\nr0 : wait f[0] == 0\nr0 : wait f[0] >= 1\nr1 : write f[0]@0 = 0\n"
        "r2 : write f[0]@0 = 1\n"};
    static const uint64_t edges[][4] = {{4, 4, 4, 4}, {5, 5, 5, 10},     {3, 3, 3, 3},
                                        {5, 5, 5, 5}, {21, 21, 21, 21}, {3, 3, 3, 4}};
    static const uint64_t wrong[][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0},
                                        {0, 0, 0, 0}, {1, 1, 1, 1}, {0, 0, 0, 0}};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (uint32_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++)
        edge_tail(ctx, tails[i], edges[i], wrong[i]);
    ces_test_ctx_end(ctx, &st);
}

/* Seeds of edge_mixed that test_mixed_edges checks besides 0..EDGE_MIXED-1,
 * found among 0..999 with a wrong edge before written_before (269 and 845)
 * or with one left (see test_mixed_edges). */
static const uint64_t edge_mixed_seeds[] = {207, 269, 392, 541, 645, 764, 769, 845, 885};

/* The mixed schedules (edge_mixed) of seeds 0..EDGE_MIXED-1 and
 * edge_mixed_seeds (CES_EDGE_MIXED=N: 0..N-1 alone; CES_EDGE_MIXED_FROM=F:
 * from F on; CES_EDGE_FILE=PATH: the phases in PATH alone, after the
 * counting rank's, ranks 4 and signals f, g and c as edge_mixed's) judged
 * as test_order_edges judges its own: no pass missing, and the edges and
 * those wrong pinned for the default seeds: none wrong (816 edges under
 * the delayed write, 818 and 2 wrong, 645 and 845, before taken_apart's
 * run of waits apart took writes landing one after another).  Before
 * chain_over 690, 690, 611 and 820 edges, 3, 3, 5 and 4
 * wrong: chains of waits, where which write an earlier wait took is
 * decided by a wait before it (as test_three_waits_edge: 207, 392, 764,
 * 769, and 885 under --queues 0,0), and a wait whose process's latest
 * earlier wait into the slot is of a later replay, which order_taken does
 * not read (541: three replays' waits of 2 and 3 leave the next block's
 * first wait r1's 3 alone; chain_over reads the second replay's). */
static void test_mixed_edges(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct edge_text *text = malloc(sizeof(*text));
    uint64_t first = 0, seeds = EDGE_MIXED, extra = sizeof(edge_mixed_seeds) /
                                                    sizeof(edge_mixed_seeds[0]);
    static const char *const names[4] = {"dot", "check", "check --queues 0,0",
                                         "check --fault delay"};
    /* edges to waits, wrong, passes missing */
    static const uint64_t pinned[4][3] = {{686, 0, 0}, {686, 0, 0}, {605, 0, 0}, {816, 0, 0}};
    const char *file = getenv("CES_EDGE_FILE");
    struct edge_sum sum[4];
    char tail[2048];

    (void)state;
    assert_non_null(text);
    memset(sum, 0, sizeof(sum));
    for (uint32_t i = 0; i < 4; i++)
        sum[i].name = names[i];
    if (getenv("CES_EDGE_MIXED") != NULL) {
        seeds = strtoull(getenv("CES_EDGE_MIXED"), NULL, 10);
        extra = 0;
    }
    if (getenv("CES_EDGE_MIXED_FROM") != NULL) {
        first = strtoull(getenv("CES_EDGE_MIXED_FROM"), NULL, 10);
        extra = 0;
    }
    if (file != NULL) {
        FILE *f = fopen(file, "r");
        size_t n;

        assert_non_null(f);
        n = fread(tail, 1, sizeof(tail) - 1, f);
        tail[n] = '\0';
        fclose(f);
        first = 0;
        seeds = 1;
        extra = 0;
    }
    for (uint64_t k = first; k < seeds + extra; k++) {
        uint64_t seed = k < seeds ? k : edge_mixed_seeds[k - seeds];
        struct ces_graph *big, *small;

        if (file != NULL)
            edge_counted(text, EDGE_COUNTER, tail);
        else
            edge_mixed(seed, EDGE_COUNTER, text);
        big = ces_test_text_graph(ctx, text->buf);
        if (file != NULL)
            edge_counted(text, 1, tail);
        else
            edge_mixed(seed, 1, text);
        small = ces_test_text_graph(ctx, text->buf);
        if (getenv("CES_EDGE_PRINT") != NULL)
            printf("seed %llu:\n%s", (unsigned long long)seed, text->buf);
        edge_seed(ctx, big, small, 4, seed, sum);
        ces_graph_destroy(big);
        ces_graph_destroy(small);
    }
    for (uint32_t i = 0; i < 4; i++) {
        edge_print(&sum[i]);
        assert_int_equal(sum[i].missing, 0);
    }
    for (uint32_t i = 0; i < 4 && extra > 0; i++) { /* the default seeds', pinned */
        assert_int_equal(sum[i].edges, pinned[i][0]);
        assert_int_equal(sum[i].wrong, pinned[i][1]);
        assert_int_equal(sum[i].missing, pinned[i][2]);
    }
    free(text);
    ces_test_ctx_end(ctx, &st);
}

/* Mixed seed 17,492 (edge_mixed), whose passes outgrew the 256 the walk
 * kept room for (the sweep of seeds 12,000..17,999 stopped there): r0
 * waits f == $i three times in two eager iterations ($i 2, then 3, the
 * counting rank's phase the first), r0 s1, r1 twice, r2 twice (after an
 * await of a record on its s1) write $i and r1 s1 3.  Each wait of the
 * first iteration may pass on any of the 31 nonempty sets of its five 2
 * (r1 s1's 3 fails == 2), each of the second on any of the 63 of its six
 * writes, which all pass == 3: 282 passes told apart (111 under
 * --queues 0,0), 33, 33, 27 and 33 edges to waits, none wrong or
 * missing. */
static void test_many_passes_edge(void **state)
{
    static const char tail[] =
        "phase eager x2\nr0 : wait f[0] == $i\nr0 : wait f[0] == $i\nr0 : wait f[0] == $i\n"
        "r0 s1 : write f[0]@0 = $i\nr1 : write f[0]@0 = $i\nr1 s1 : write f[0]@0 = 3\n"
        "r1 : write f[0]@0 = $i\nr2 : write f[0]@0 = $i\nr2 s1 : record e0\nr2 : await e0\n"
        "r2 : write f[0]@0 = $i\n";
    static const uint64_t passes[4] = {282, 282, 111, 282}, edges[4] = {33, 33, 27, 33};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct edge_text *text = malloc(sizeof(*text)), *mixed = malloc(sizeof(*mixed));
    struct edge_sum sum[4];

    (void)state;
    assert_non_null(text);
    assert_non_null(mixed);
    edge_counted(text, 1, tail);
    edge_mixed(17492, 1, mixed);
    assert_string_equal(text->buf, mixed->buf);
    edge_tail_sums(ctx, tail, 17492, sum);
    for (uint32_t k = 0; k < 4; k++) {
        assert_int_equal(sum[k].passes, passes[k]);
        assert_int_equal(sum[k].edges, edges[k]);
        assert_int_equal(sum[k].wrong, 0);
        assert_int_equal(sum[k].missing, 0);
    }
    free(text);
    free(mixed);
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_edges),
        cmocka_unit_test(test_taken_write_edge),
        cmocka_unit_test(test_written_before_edge),
        cmocka_unit_test(test_written_before_shapes),
        cmocka_unit_test(test_three_waits_edge),
        cmocka_unit_test(test_four_waits_edge),
        cmocka_unit_test(test_later_replays_chain_edge),
        cmocka_unit_test(test_apart_waits_edge),
        cmocka_unit_test(test_apart_order_edge),
        cmocka_unit_test(test_apart_overwrite_edge),
        cmocka_unit_test(test_apart_streams_edge),
        cmocka_unit_test(test_apart_tries_edge),
        cmocka_unit_test(test_across_slots_edge),
        cmocka_unit_test(test_mixed_edges),
        cmocka_unit_test(test_many_passes_edge),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
