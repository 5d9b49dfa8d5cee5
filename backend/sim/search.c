/*
 * backend/sim/search.c - the search: exhaustive depth-first search over
 * states with a visited set of 128-bit fingerprints and a partial-order
 * reduction (invisible steps executed eagerly, persistent sets over slot
 * operations computed with a horizon analysis), the unreduced reference
 * mode, random executions, replays, bounds and progress.  The reduction and
 * why it is sound are explained in docs/SEMANTICS.md.
 */
#include "internal.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The signal sets whose sliced searches found a RACE or MISMATCH, kept so
 * that a later try skips them. */
#define SLICE_REFUTED 64

/* Every defect class of a verdict (CES_V_ bits). */
#define CLASSES_ALL (CES_V_DEADLOCK | CES_V_HANG | CES_V_RACE | CES_V_MISMATCH)

/* Random executions at scale: the status of a process changes only when it
 * steps, when a write lands on the slot of the wait it stands at, or (with
 * shared hardware queues or events) when another stream of its rank steps;
 * so only those are re-examined after a step. */
struct fast {
    uint32_t *vis;  /* processes with an enabled visible step */
    uint32_t *vpos; /* index in vis, SIM_NONE if absent */
    uint32_t nvis;
    uint32_t *inv;  /* processes with an enabled invisible step (a stack) */
    uint8_t *ininv;
    uint32_t ninv;
};

/* A data access race_sure looks at: process proc's op at position pos
 * touches [lo, hi) of map `map` (rank * buffers + buffer); head: no op of
 * proc from its program counter up to it may take a happens-before edge
 * from a later step; tail: none from it on may give one. */
struct sure_acc {
    uint64_t lo, hi;
    uint32_t proc, pos, map;
    bool write, head, tail;
};

/* The most accesses race_sure looks at, and ops past a clock's join */
#define SURE_ACCS 64
#define SURE_WORK 4096

/* A data access consumes_race looks at: op pos of process proc. */
struct ran_acc {
    uint32_t proc, pos;
};

/* The most accesses consumes_race looks at, and ops and writes in all;
 * how many of its answers it keeps (a power of two), and the most words of
 * program counters and slot values one is kept under */
#define RAN_ACCS 64
#define RAN_WORK 65536
#define RAN_KEPT 256
#define RAN_KEY 1024
/* consumes_race looks on past its first RAN_TRIAL looks of a search only
 * while one in RAN_RATE of them proved */
#define RAN_TRIAL 4096
#define RAN_RATE 256

struct frame {
    struct sim_state st;
    uint32_t trace_len;
    uint32_t nchoice, next;
    uint32_t *choice;
};

struct search {
    struct ces_ctx *ctx;
    const struct ces_graph *g;
    const struct sim_model *m;
    const struct ces_check_opts *o;
    bool reduce;
    /* The reduction's item 3 runs a stable wait with a rising join while
     * clocks are live (lift); how many of those could have observed a
     * later store (lifted); the second search, over race-free executions
     * for a MISMATCH alone (race_free; docs/SEMANTICS.md section 10). */
    bool lift, race_free;
    uint64_t lifted;
    /* The reduction's item 4 in the first search where an execution it
     * leaves out may have a MISMATCH that the one kept leaves unjudged
     * (data_kept): unkept for the closure being built, unjudged counting
     * the states whose choices it made so; the second search runs then
     * too, without such steps. */
    bool unkept;
    uint64_t unjudged;
    int ends; /* ends_found's answer for the state being expanded */
    /* Data judged without some signals (docs/SEMANTICS.md section 10):
     * data_only, a search of a sliced graph for a RACE or MISMATCH alone;
     * race_only, such a search for a RACE alone (a MISMATCH was found);
     * sliced, nonzero once no RACE or MISMATCH can occur, proved by the
     * search without those signals (bit i: signal i); slice_next, the
     * states stored before the next try (UINT64_MAX: none); refuted, the
     * signal sets whose searches found one. */
    bool data_only, race_only;
    uint64_t sliced, slice_next;
    uint64_t refuted[SLICE_REFUTED];
    bool refuted_race[SLICE_REFUTED]; /* by a RACE (else by a MISMATCH alone) */
    uint32_t nrefuted;
    /* Classes found by sampling (docs/SEMANTICS.md section 10): sample_next,
     * the states stored before the next burst of random executions
     * (UINT64_MAX: none); sampling, while one runs, on strace; sampled, the
     * classes a random execution found first (bit d: SIM_D d).  Random
     * executions (here and --random) run on run, copied from init, with
     * fast's scratch and the generator rng; sample_over, what the last burst
     * took past its budget (0 once it has covered the next one: sample). */
    uint64_t sample_next, rng, sample_over;
    bool sampling;
    uint32_t sampled;
    struct sim_state init, run;
    struct fast fast;
    struct ces_vec strace;
    struct ces_vec trace; /* uint32_t process ids */
    struct ces_vec best[SIM_D_COUNT];
    bool have[SIM_D_COUNT];
    /* visited set: open addressing over 128-bit fingerprints, TAB_FIRST
     * entries at first, doubled while more than half full */
    uint64_t *tab;
    size_t tabcap, tabn;
    /* closure and horizon scratch */
    uint32_t *hz;      /* [P*P] */
    uint32_t *hz_gen;  /* [P] */
    uint32_t gen;
    uint8_t *inT;
    uint32_t *work;
    uint32_t *enabled;
    /* cycle_possible's answers, PRUNE_KEPT entries of P + 2 words: the
     * first blocking positions a graph was built for, the writes it looked
     * at, whether it has a cycle (SIM_NONE first: an empty entry) */
    uint32_t *cyc;
    /* wait_for_cycle's scratch, for at most wf_ops positions and wf_work
     * ops they wait for (PRUNE_OPS and PRUNE_WORK, or fewer where the
     * model has fewer: wf_size) */
    uint32_t *wf;
    uint32_t wf_ops, wf_work;
    /* race_sure's: each process's position past its last op that may send a
     * happens-before edge (src_end), the positions it surely passes (reach),
     * the accesses it looks at, the position of its first data access,
     * that races with its bytes' history (hist, SIM_NONE: none); per clock
     * slot of a record or a link, the one process whose ops read it (a
     * record's, or those of several: nproc) and the first of them (rd_pos) */
    uint32_t *src_end, *reach, *hist, *rd_proc, *rd_pos;
    struct sure_acc *sure;
    /* consumes_race's: per process, the ops that surely ran before an access
     * (ran), those ran_before looked at (seen), the first position where it
     * could be left after them (left), its first op that may follow the
     * access in happens-before (after) or another access (back); the
     * accesses looked at (racc), and those that ran before each (below) */
    uint32_t *ran, *seen, *left, *after, *back;
    struct ran_acc *racc;
    uint64_t *below;
    uint32_t *ran_kept; /* its answers (RAN_KEPT entries, NULL: none kept) */
    size_t ran_kept_bytes; /* their size (0: none to keep) */
    bool ran_alloc;        /* its first look allocated all these, or tried */
    uint64_t ran_looks, ran_sure; /* the looks it made in this search, and
                                     those that proved */
    /* frames */
    struct frame *frames;
    size_t nframes, capframes;
    size_t nalloc; /* frames holding a state */
    struct sim_state tmp;
    /* stats and bounds */
    struct ces_check_stats stats;
    double t0, next_progress;
    double last_clock;    /* when tick last read the clock */
    uint64_t tick_mask;   /* tick reads the clock every tick_mask + 1 transitions */
    uint64_t tick_max;    /* the most tick_mask may grow to (2^k - 1) */
    size_t frame_bytes;
    size_t scratch_bytes; /* hz, hz_gen, inT, work, enabled, cyc, wf, ...,
                             and consumes_race's once allocated */
    uint32_t bound; /* nonzero once a bound stopped the search: 1 states, time or
                       memory (the search stops short at once), 2 --first, 3 the
                       second search found its MISMATCH (not a bound: reset) */
    const char *bound_what; /* bound 1: "states", "time" or "memory" */
    bool cut;       /* max_depth left a state unexplored (the search goes on) */
    /* open_classes' look at the initial state, taken where the first
     * exhaustive search made it (a second one would pass the bounds that
     * stopped the search): init_seen once taken, init_cycle its answer */
    bool init_seen, init_cycle;
    char why[384];  /* what the memory bound refused ("" otherwise) */
    int rc;
};

double ces_sim_progress_every(const struct ces_check_opts *o)
{
    return o->progress_seconds > 0 ? o->progress_seconds : 2.0;
}

static size_t mem_now(const struct search *S)
{
    return S->m->bytes + *S->m->rheld + S->scratch_bytes + S->tabcap * 2 * sizeof(uint64_t) +
           S->capframes * (sizeof(struct frame) + S->m->nproc * sizeof(uint32_t)) +
           (S->nalloc + (S->tmp.w != NULL)) * S->frame_bytes +
           (S->trace.cap + S->strace.cap) * sizeof(uint32_t);
}

/* Stops the search for the memory bound and says why: `what` (NULL: the
 * search as it stands) needs `more` bytes next to those held. */
static void memory_bound(struct search *S, size_t held, const char *what, size_t more)
{
    char bound[24], need[24], have[24], model[24], tab[24], frame[24], pages[64] = "";
    size_t copies = S->nalloc + (S->tmp.w != NULL);

    if (held > S->stats.peak_memory)
        S->stats.peak_memory = held;
    if (S->bound != 0)
        return;
    S->bound = 1;
    S->bound_what = "memory";
    ces_sim_fmt_bytes(bound, sizeof(bound), S->o->max_memory);
    ces_sim_fmt_bytes(need, sizeof(need), more);
    ces_sim_fmt_bytes(have, sizeof(have), held);
    ces_sim_fmt_bytes(model, sizeof(model), S->m->bytes);
    ces_sim_fmt_bytes(tab, sizeof(tab), S->tabcap * 2 * sizeof(uint64_t));
    ces_sim_fmt_bytes(frame, sizeof(frame), S->frame_bytes);
    if (*S->m->rheld > 0) {
        char held_pages[24];

        ces_sim_fmt_bytes(held_pages, sizeof(held_pages), *S->m->rheld);
        snprintf(pages, sizeof(pages), " and their record clocks' pages %s", held_pages);
    }
    if (what != NULL)
        snprintf(S->why, sizeof(S->why),
                 "memory bound %s reached after %" PRIu64 " states: %s needs %s next to the "
                 "%s held (the model %s, the visited set %s, %zu state%s of %s%s)",
                 bound, S->stats.states, what, need, have, model, tab, copies,
                 ces_plural(copies), frame, pages);
    else
        snprintf(S->why, sizeof(S->why),
                 "memory bound %s reached after %" PRIu64 " states: the search holds %s (the "
                 "model %s, the visited set %s, %zu state%s of %s%s)",
                 bound, S->stats.states, have, model, tab, copies, ces_plural(copies),
                 frame, pages);
}

/* Whether `more` bytes fit under the memory bound next to the `held`. */
static bool room(const struct search *S, size_t held, size_t more)
{
    size_t max = (size_t)S->o->max_memory;

    return max == 0 || (held <= max && more <= max - held);
}

/* Whether `more` bytes for `what` fit under the memory bound; when not, the
 * search stops (INCOMPLETE) before allocating them.  Called before every
 * allocation that grows with the schedule or the search. */
static bool fits(struct search *S, size_t more, const char *what)
{
    size_t held;

    if (S->o->max_memory == 0)
        return true;
    held = mem_now(S);
    if (room(S, held, more))
        return true;
    memory_bound(S, held, what, more);
    return false;
}

/* The most transitions between two readings of the clock.  An exhaustive
 * search walks every state it stores (copy, hash, the reduction's P x P
 * horizons) at about a word a nanosecond, so a transition may cost that much:
 * about 2^20 words of such work pass between readings, so that the time
 * bound holds within milliseconds even when one state is hundreds of MiB,
 * and small states read the clock every 256 transitions only.  The record
 * clocks count too: a copy shares their pages, but the step where the last
 * conflicting access ends takes every word of them out of the hash's sums.
 * Random executions and replays step without copying or hashing. */
static uint64_t tick_max(const struct sim_model *m, bool exhaustive)
{
    size_t words = m->w_fixed + (size_t)m->nrec * m->nproc + (size_t)m->nproc * m->nproc;
    uint64_t n = 256;

    while (exhaustive && n > 1 && n * words > (UINT64_C(1) << 20))
        n /= 2;
    return n - 1;
}

/* When the time bound passes (ces_now's; 0: no bound): what
 * spent_seconds left of max_seconds after the clock's start. */
static double deadline(const struct search *S)
{
    return S->o->max_seconds > 0 ? S->t0 + S->o->max_seconds - S->o->spent_seconds : 0;
}

/* The initial state into st within the bounds: the memory bound refuses it
 * before it is allocated, the time bound stops it while its words are
 * cleared (hundreds of MiB where the model has hundreds of streams);
 * either sets S->bound, CES_OK, st left empty. */
static int initial_state(struct search *S, struct sim_state *st)
{
    int rc;

    if (!fits(S, ces_sim_state_init_bytes(S->m), "the initial state"))
        return CES_OK;
    rc = ces_sim_state_init_by(S->m, st, deadline(S));
    if (rc == SIM_LATE && S->bound == 0) {
        S->bound = 1;
        S->bound_what = "time";
    }
    return rc == SIM_LATE ? CES_OK : rc;
}

/* Bounds and progress, after every transition.  The clock is read about
 * every millisecond: up to every 256th transition when transitions are
 * fast, every one when they are slow (measured between readings, within
 * tick_max), so the time bound holds closely and small searches do not pay
 * for the clock. */
static void tick(struct search *S)
{
    double t, dt;
    size_t mem;

    if ((S->stats.transitions & S->tick_mask) != 0)
        return;
    t = ces_now();
    dt = t - S->last_clock;
    S->last_clock = t;
    if (dt > 2e-3)
        S->tick_mask >>= 1;
    else if (dt < 5e-4 && S->tick_mask < S->tick_max)
        S->tick_mask = 2 * S->tick_mask + 1;
    S->stats.seconds = t - S->t0;
    mem = mem_now(S);
    if (mem > S->stats.peak_memory)
        S->stats.peak_memory = mem;
    if (S->o->max_seconds > 0 &&
        S->stats.seconds + S->o->spent_seconds >= S->o->max_seconds && S->bound == 0) {
        S->bound = 1;
        S->bound_what = "time";
    }
    if (S->o->max_memory > 0 && mem >= S->o->max_memory)
        memory_bound(S, mem, NULL, 0);
    if (S->o->progress != NULL && t >= S->next_progress) {
        S->o->progress(S->o->progress_ud, &S->stats);
        S->next_progress = t + ces_sim_progress_every(S->o);
    }
}

static int push_trace(struct search *S, uint32_t p)
{
    return ces_vec_push(S->ctx, &S->trace, sizeof(uint32_t), &p);
}

static int step(struct search *S, struct sim_state *st, uint32_t p)
{
    int rc = ces_sim_exec(S->m, st, p, NULL);

    if (rc == CES_OK)
        rc = push_trace(S, p);
    S->stats.transitions++;
    tick(S);
    return rc;
}

/* The first access of group g (an index into acc) at or after position pos;
 * g->hi when none. */
static uint32_t seek(const struct sim_access *acc, const struct sim_group *g, uint32_t pos)
{
    uint32_t lo = g->lo, hi = g->hi;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (acc[mid].pos < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether every write wr[i, j) of group g (to the slot of wait o, i < j)
 * satisfies o: looked at by their ends where g's values never decrease
 * (the ones between lie within them: for a u32 `>=`, an arc shorter than
 * half the circle whose ends lie in the half it accepts), else one by one. */
static bool writes_hold(const struct sim_model *m, const struct sim_group *g, uint32_t i,
                        uint32_t j, const struct sim_op *o)
{
    uint32_t width = m->slot_width[o->slot];

    if (!ces_wait_holds(width, o->op->cmp, m->wr[i].value, o->op->value) ||
        !ces_wait_holds(width, o->op->cmp, m->wr[j - 1].value, o->op->value))
        return false;
    for (i++; !g->sorted && i + 1 < j; i++)
        if (!ces_wait_holds(width, o->op->cmp, m->wr[i].value, o->op->value))
            return false;
    return true;
}

/* Whether the eager run takes p's next op as a wait that no store another
 * process can still make to its slot can fail (so nothing can disable it;
 * item 3 of the reduction): with every clock dead, or where no other
 * process can still store to the slot (its join is the one it would make
 * later), or, where the first search lifts that, with a join that cannot
 * shrink by running later (every process that can still store to the slot
 * holds a clock at least the slot's, and a process's clock only grows);
 * those that could have observed a later store are counted (writes_hold
 * judges each writer's stores left). */
static bool eager_wait(struct search *S, const struct sim_state *st, uint32_t p, bool dead)
{
    const struct sim_model *m = S->m;
    const uint32_t *pc = SIM_PC(m, st);
    const struct sim_op *o = &m->ops[p][pc[p]];
    const uint32_t *sc;
    bool later = false;

    if (ces_sim_status(m, st, p) != SIM_S_VISIBLE || o->cls != SIM_C_WAIT)
        return false;
    sc = SIM_SCLK(m, st, o->slot);
    for (uint32_t gi = m->wg_off[o->slot]; gi < m->wg_off[o->slot + 1]; gi++) {
        const struct sim_group *g = &m->wg[gi];
        const uint32_t *c = SIM_PCLK(m, st, g->proc);
        uint32_t i = seek(m->wr, g, pc[g->proc]), j = seek(m->wr, g, m->stop[g->proc]);

        if (g->proc == p || i == j)
            continue;
        /* (the second search runs a wait that could observe a later
         * store as a choice) */
        if (!writes_hold(m, g, i, j, o) || (!dead && !S->lift))
            return false;
        later = true;
        for (uint32_t k = 0; !dead && k < m->nproc; k++)
            if (c[k] < sc[k])
                return false;
    }
    S->lifted += !dead && later;
    return true;
}

/* Process p's next op is an enabled write to a slot no wait is left on. */
static bool dead_write(const struct sim_model *m, const struct sim_state *st, uint32_t p)
{
    const struct sim_op *o;

    if (ces_sim_status(m, st, p) != SIM_S_VISIBLE)
        return false;
    o = &m->ops[p][SIM_PC(m, st)[p]];
    return o->cls == SIM_C_WRITE && !ces_sim_slot_live(m, SIM_PC(m, st), o->slot);
}

/* Executes enabled invisible steps (lowest process first) until none is
 * left, or a resource bound stops the search (its callers then stop: the
 * state is not judged).  They commute with every step of other processes
 * that is not a racing data access (docs/SEMANTICS.md), so one order
 * suffices.  The exhaustive reduced search (`stable`) also runs writes to
 * slots no wait is left on, and enabled waits that no store left can
 * disable, once no data access that can conflict is left (every clock
 * dead), where no other process can store to the slot any more, or, in the
 * first search, where the join cannot shrink by waiting:
 * in the canonical state space (ces_sim_state_canon) they commute with
 * every step, up to clocks that a later run would only raise
 * (docs/SEMANTICS.md, section 10, the reduction's item 3). */
static int eager(struct search *S, struct sim_state *st, bool stable)
{
    const struct sim_model *m = S->m;
    bool progress = true;
    int rc = CES_OK;

    while (progress && rc == CES_OK && S->bound != 1) {
        bool dead = stable && ces_sim_clocks_dead(m, SIM_PC(m, st));

        progress = false;
        for (uint32_t p = 0; p < m->nproc && rc == CES_OK && S->bound != 1; p++) {
            while (rc == CES_OK && S->bound != 1 &&
                   (ces_sim_status(m, st, p) == SIM_S_INVISIBLE ||
                    (stable && (dead_write(m, st, p) || eager_wait(S, st, p, dead))))) {
                rc = step(S, st, p);
                progress = true;
            }
        }
    }
    return rc;
}

static void note(struct search *S, int d)
{
    /* the second search adds a MISMATCH, the one class the first may miss;
     * a sliced one looks for a RACE or MISMATCH, and stops at the first */
    if (S->rc != CES_OK || (S->race_free && d != SIM_D_MISMATCH) ||
        (S->data_only && d != SIM_D_RACE && (d != SIM_D_MISMATCH || S->race_only)))
        return;
    if (!S->have[d] && S->sampling)
        S->sampled |= 1u << d;
    if (!S->have[d] || S->trace.len < S->best[d].len) {
        S->best[d].len = 0;
        S->rc = ces_vec_reserve(S->ctx, &S->best[d], sizeof(uint32_t), S->trace.len);
        if (S->rc == CES_OK) {
            if (S->trace.len > 0) /* an empty trace may have no storage yet */
                memcpy(S->best[d].data, S->trace.data, S->trace.len * sizeof(uint32_t));
            S->best[d].len = S->trace.len;
            S->have[d] = true;
        }
    }
    if ((S->o->flags & CES_CHECK_FIRST) && d != SIM_D_ABORTED)
        S->bound = 2;
    if (S->race_free)
        S->bound = 3; /* found what it looked for */
    if (S->data_only)
        S->bound = 2;
}

bool ces_sim_stuck(const struct sim_model *m, const struct sim_state *s)
{
    bool any = false;

    for (uint32_t p = 0; p < m->nproc; p++) {
        int st = ces_sim_status(m, s, p);

        if (st == SIM_S_VISIBLE || st == SIM_S_INVISIBLE)
            return false;
        if (st != SIM_S_DONE)
            any = true;
    }
    return any;
}

/* An end state (nothing enabled): classify it and note its defects.  The
 * trace is left as it was found. */
static int terminal(struct search *S, const struct sim_state *st)
{
    const struct sim_model *m = S->m;
    size_t tl = S->trace.len;
    uint32_t cls = 0;
    const struct sim_state *fin = st;
    int rc = CES_OK;

    S->stats.executions++;
    if (S->trace.len > S->stats.max_depth)
        S->stats.max_depth = S->trace.len;
    if (m->abort_mode && !(SIM_FLAGS(st) & SIM_F_ABORTED) && ces_sim_stuck(m, st)) {
        /* The watchdog fires: every blocked wait/await is released with an
         * error and the streams drain (one order: nothing is judged any
         * more, so the drain's interleavings cannot differ in a verdict). */
        if (S->tmp.w == NULL && !fits(S, S->frame_bytes, "the copy of a state the watchdog "
                                      "drains"))
            return S->rc;
        rc = ces_sim_state_copy(m, &S->tmp, st);
        if (rc != CES_OK)
            return rc;
        SIM_FLAGS(&S->tmp) |= SIM_F_ABORTED;
        rc = eager(S, &S->tmp, false);
        if (rc != CES_OK)
            return rc;
        if (S->bound == 1) { /* a drain cut short is no end state to judge */
            S->trace.len = tl;
            return S->rc;
        }
        fin = &S->tmp;
    }
    if (SIM_FLAGS(fin) & SIM_F_ABORTED) {
        /* (a replayed trace may already have crossed the watchdog; the
         * second search's are counted by the first) */
        S->stats.aborted += !S->race_free;
        note(S, SIM_D_ABORTED);
    } else {
        rc = ces_sim_end_class(m, st, &cls, NULL);
        if (rc != CES_OK)
            return rc;
        if (cls == CES_V_DEADLOCK)
            note(S, SIM_D_DEADLOCK);
        else if (cls == CES_V_HANG)
            note(S, SIM_D_HANG);
    }
    /* Data is judged on race-free executions only (a race makes it
     * undefined); see docs/SEMANTICS.md. */
    if ((SIM_FLAGS(fin) & SIM_F_MISMATCH) && !(SIM_FLAGS(fin) & SIM_F_RACE))
        note(S, SIM_D_MISMATCH);
    S->trace.len = tl;
    return S->rc;
}

/* --- the visited set ----------------------------------------------------- */

/* The visited set's first table: 256 entries (4 KiB).  Most checks store
 * a few hundred states, and a sweep runs thousands of checks, each with a
 * table of its own: a larger first table is memory cleared for nothing. */
#define TAB_FIRST 256u

/* The bits of the fingerprint's two words that the visited set keeps: all
 * (internal.h; a test keeps fewer of one, so that distinct states share
 * the other or a slot of the table). */
uint64_t ces_sim_fp_keep[2] = {UINT64_MAX, UINT64_MAX};

static int visit(struct search *S, struct sim_state *st, bool *seen)
{
    uint64_t h[2];
    size_t mask, i;

    ces_sim_state_hash(S->m, st, h);
    h[0] &= ces_sim_fp_keep[0];
    h[1] &= ces_sim_fp_keep[1];
    if (h[0] == 0 && h[1] == 0)
        h[1] = 1;
    if (2 * (S->tabn + 1) > S->tabcap) {
        size_t ncap = S->tabcap ? S->tabcap * 2 : TAB_FIRST;
        uint64_t *nt;

        if (!fits(S, ncap * 2 * sizeof(uint64_t), "growing the visited set")) {
            *seen = true;
            return CES_OK;
        }
        nt = ces_malloc(S->ctx, ncap * 2 * sizeof(uint64_t));
        if (nt == NULL)
            return CES_ERR_NOMEM;
        memset(nt, 0, ncap * 2 * sizeof(uint64_t));
        for (size_t j = 0; j < S->tabcap; j++) {
            uint64_t a = S->tab[2 * j], b = S->tab[2 * j + 1];

            if (a == 0 && b == 0)
                continue;
            for (i = a & (ncap - 1); nt[2 * i] != 0 || nt[2 * i + 1] != 0; i = (i + 1) & (ncap - 1))
                ;
            nt[2 * i] = a;
            nt[2 * i + 1] = b;
        }
        ces_free(S->ctx, S->tab);
        S->tab = nt;
        S->tabcap = ncap;
    }
    mask = S->tabcap - 1;
    for (i = h[0] & mask; S->tab[2 * i] != 0 || S->tab[2 * i + 1] != 0; i = (i + 1) & mask) {
        if (S->tab[2 * i] == h[0] && S->tab[2 * i + 1] == h[1]) {
            *seen = true;
            return CES_OK;
        }
    }
    if (S->o->max_states > 0 && S->stats.states >= S->o->max_states) {
        /* A state beyond the bound: the search stops unfinished.  (Stopping
         * when the bound's last state is stored instead would call a search
         * of exactly max_states states incomplete.) */
        S->bound = 1;
        S->bound_what = "states";
        *seen = true;
        return CES_OK;
    }
    S->tab[2 * i] = h[0];
    S->tab[2 * i + 1] = h[1];
    S->tabn++;
    S->stats.states++;
    S->stats.race_free_states += S->race_free;
    *seen = false;
    return CES_OK;
}

/* --- the reduction ---------------------------------------------------------- */

static uint64_t sval(const struct sim_model *m, const struct sim_state *s, uint32_t x)
{
    const uint32_t *w = s->w + m->w_val + 2 * (size_t)x;

    return (uint64_t)w[0] | ((uint64_t)w[1] << 32);
}

/* The position of the first write of group g with value v at or after
 * position from; SIM_NONE when none. */
static uint32_t first_eq(const struct sim_model *m, const struct sim_group *g, uint64_t v,
                         uint32_t from)
{
    uint32_t lo = g->lo, hi = g->hi;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const struct sim_access *e = &m->wr[m->wv[mid]];

        if (e->value < v || (e->value == v && e->pos < from))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->hi && m->wr[m->wv[lo]].value == v ? m->wr[m->wv[lo]].pos : SIM_NONE;
}

/* Whether a write of group g (to slot x) at a position in [from, end)
 * satisfies `cmp value`; any write there when cmp is SIM_NONE. */
static inline bool group_writes(const struct sim_model *m, const struct sim_group *g,
                                uint32_t x, uint32_t from, uint32_t end, uint32_t cmp,
                                uint64_t value)
{
    const struct sim_access *w = m->wr;
    uint32_t width = m->slot_width[x], i, j;

    if (cmp == CES_CMP_EQ) {
        uint32_t at = first_eq(m, g, value, from);

        return at != SIM_NONE && at < end;
    }
    i = seek(w, g, from);
    if (i == g->hi || w[i].pos >= end)
        return false;
    if (cmp == SIM_NONE)
        return true;
    j = seek(w, g, end);
    if (!g->sorted) {
        for (; i < j; i++) {
            if (ces_wait_holds(width, cmp, w[i].value, value))
                return true;
        }
        return false;
    }
    /* values that never decrease, no wrap between them: >= holds for some
     * of them iff for the first or the last (u32: the values it accepts are
     * half the circle, these an arc shorter than half from the first to the
     * last, so the two arcs meet, if at all, at an end of the shorter) */
    return ces_wait_holds(width, cmp, w[i].value, value) ||
           ces_wait_holds(width, cmp, w[j - 1].value, value);
}

/* Whether a write to slot x satisfying `cmp value` lies ahead of its
 * process (from its pc, below h, or below pos for process q), other than
 * process `except`'s. */
static inline bool can_write(const struct sim_model *m, const uint32_t *pc,
                             const uint32_t *h, uint32_t x, uint32_t cmp, uint64_t value,
                             uint32_t except, uint32_t q, uint32_t pos)
{
    if (m->wr_off[x + 1] - m->wr_off[x] <= 8) { /* short schedules: one pass */
        for (uint32_t i = m->wr_off[x]; i < m->wr_off[x + 1]; i++) {
            const struct sim_access *w = &m->wr[i];

            if (w->proc != except && w->pos >= pc[w->proc] &&
                w->pos < (w->proc == q ? pos : h[w->proc]) &&
                ces_wait_holds(m->slot_width[x], cmp, w->value, value))
                return true;
        }
        return false;
    }
    for (uint32_t gi = m->wg_off[x]; gi < m->wg_off[x + 1]; gi++) {
        const struct sim_group *g = &m->wg[gi];

        if (g->proc != except &&
            group_writes(m, g, x, pc[g->proc], g->proc == q ? pos : h[g->proc], cmp, value))
            return true;
    }
    return false;
}

/* Whether the guard (wait or await) at position pos of process q can pass
 * while the processes stay below the horizons h. */
static inline bool guard_passes(const struct sim_model *m, const struct sim_state *st,
                                const uint32_t *h, uint32_t q, uint32_t pos)
{
    const uint32_t *pc = SIM_PC(m, st);
    const struct sim_op *o = &m->ops[q][pos];
    const struct sim_link *rec;

    if (o->cls == SIM_C_WAIT)
        return ces_wait_holds(m->slot_width[o->slot], o->op->cmp, sval(m, st, o->slot),
                              o->op->value) ||
               can_write(m, pc, h, o->slot, o->op->cmp, o->op->value, SIM_NONE, q, pos);
    rec = ces_sim_await_rec(m, o);
    return pc[rec->proc] > rec->pos || rec->pos < (rec->proc == q ? pos : h[rec->proc]);
}

/* The first wait of group t from index i whose value is above v; t->hi
 * when none (the group's values never decrease). */
static uint32_t wait_above(const struct sim_model *m, const struct sim_group *t, uint32_t i,
                           uint64_t v)
{
    uint32_t hi = t->hi;

    while (i < hi) {
        uint32_t mid = i + (hi - i) / 2;

        if (m->wt[mid].value <= v)
            i = mid + 1;
        else
            hi = mid;
    }
    return i;
}

/* The first wait of ws (SIM_WS_GEQ, of process q) at or after
 * position from that no value reachable below the horizons satisfies, if
 * below bound; else bound. */
static uint32_t geq_block(const struct sim_model *m, const struct sim_state *st,
                          const uint32_t *h, const struct sim_wslot *ws, uint32_t from,
                          uint32_t bound)
{
    const uint32_t *pc = SIM_PC(m, st);
    const struct sim_group *t = &m->tg[ws->grp];
    uint64_t most = sval(m, st, ws->slot);
    uint32_t i;

    for (uint32_t gi = m->wg_off[ws->slot]; gi < m->wg_off[ws->slot + 1]; gi++) {
        const struct sim_group *g = &m->wg[gi];
        uint32_t lo = seek(m->wr, g, pc[g->proc]), end = seek(m->wr, g, h[g->proc]);

        if (lo < end && m->wr[end - 1].value > most)
            most = m->wr[end - 1].value;
    }
    i = wait_above(m, t, seek(m->wt, t, from), most);
    return i < t->hi && m->wt[i].pos < bound ? m->wt[i].pos : bound;
}

/* The first wait of ws (SIM_WS_EQ: every one `==` the same value v, of
 * process q) at or after position from that cannot pass, if below bound;
 * else bound.  A wait there passes when the slot holds v, when another
 * process can write v below its horizon, or when q itself writes v between
 * its pc and the wait: only the first wait from `from` can be the first to
 * fail, and it fails unless one of these holds. */
static uint32_t eq_block(const struct sim_model *m, const struct sim_state *st,
                         const uint32_t *h, const struct sim_wslot *ws, uint32_t from,
                         uint32_t bound)
{
    const uint32_t *pc = SIM_PC(m, st);
    const struct sim_group *t = &m->tg[ws->grp];
    uint32_t q = t->proc, i = seek(m->wt, t, from), own = SIM_NONE;
    uint64_t v = m->wt[t->lo].value;

    if (i == t->hi || m->wt[i].pos >= bound || sval(m, st, ws->slot) == v)
        return bound;
    for (uint32_t gi = m->wg_off[ws->slot]; gi < m->wg_off[ws->slot + 1]; gi++) {
        const struct sim_group *g = &m->wg[gi];
        uint32_t at = first_eq(m, g, v, pc[g->proc]);

        if (g->proc == q)
            own = at;
        else if (at != SIM_NONE && at < h[g->proc])
            return bound;
    }
    return own != SIM_NONE && own < m->wt[i].pos ? bound : m->wt[i].pos;
}

/* The first wait of ws (SIM_WS_EQRUN) at or after position from that
 * cannot pass, if below bound; else bound.  A wait passes when the slot
 * holds its value or a writer can reach it: the values a writer can write
 * below its horizon are the range from its first to its last one there. */
static uint32_t eqrun_block(const struct sim_model *m, const struct sim_state *st,
                            const uint32_t *h, const struct sim_wslot *ws, uint32_t from,
                            uint32_t bound)
{
    const uint32_t *pc = SIM_PC(m, st);
    const struct sim_group *t = &m->tg[ws->grp];
    uint64_t lo[SIM_WS_RUNS + 1], hi[SIM_WS_RUNS + 1];
    uint32_t n = 1, i = seek(m->wt, t, from);

    lo[0] = hi[0] = sval(m, st, ws->slot);
    for (uint32_t gi = m->wg_off[ws->slot]; gi < m->wg_off[ws->slot + 1]; gi++) {
        const struct sim_group *g = &m->wg[gi];
        uint32_t a = seek(m->wr, g, pc[g->proc]), b = seek(m->wr, g, h[g->proc]);

        if (a < b) {
            lo[n] = m->wr[a].value;
            hi[n++] = m->wr[b - 1].value;
        }
    }
    while (i < t->hi && m->wt[i].pos < bound) {
        uint64_t v = m->wt[i].value;
        uint32_t k = 0;

        while (k < n && (v < lo[k] || v > hi[k]))
            k++;
        if (k == n)
            return m->wt[i].pos;
        i = wait_above(m, t, i, hi[k]); /* past the waits that range lets pass */
    }
    return bound;
}

/* How far process q can get below h[q]: its first guard from pc[q] that
 * cannot pass, or h[q].  The guards are walked in order, but past four
 * times as many as the slots q waits on (plus 8) the rest is searched slot
 * by slot (the first that cannot pass is the earliest of each slot's and of
 * the awaits' first, enum sim_ws_kind): a long program costs its
 * slots, not its length. */
static uint32_t reach(const struct sim_model *m, const struct sim_state *st, const uint32_t *h,
                      uint32_t q)
{
    uint32_t lo = m->guard_off[q], hi = m->guard_off[q + 1], from, bound = h[q];
    uint32_t walk = 4 * (m->ws_off[q + 1] - m->ws_off[q]) + 8;

    /* first guard at or after pc[q] */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;

        if (m->guard[mid] < SIM_PC(m, st)[q])
            lo = mid + 1;
        else
            hi = mid;
    }
    hi = m->guard_off[q + 1];
    for (; lo < hi && m->guard[lo] < bound && walk > 0; lo++, walk--) {
        if (!guard_passes(m, st, h, q, m->guard[lo]))
            return m->guard[lo];
    }
    if (lo == hi || m->guard[lo] >= bound)
        return bound;
    from = m->guard[lo];
    for (uint32_t w = m->ws_off[q]; w < m->ws_off[q + 1]; w++) {
        const struct sim_wslot *ws = &m->ws[w];
        const struct sim_group *t = &m->tg[ws->grp];

        switch (ws->kind) {
        case SIM_WS_GEQ:
            bound = geq_block(m, st, h, ws, from, bound);
            break;
        case SIM_WS_EQ:
            bound = eq_block(m, st, h, ws, from, bound);
            break;
        case SIM_WS_EQRUN:
            bound = eqrun_block(m, st, h, ws, from, bound);
            break;
        default:
            for (uint32_t i = seek(m->wt, t, from); i < t->hi && m->wt[i].pos < bound; i++) {
                if (!guard_passes(m, st, h, q, m->wt[i].pos)) {
                    bound = m->wt[i].pos;
                    break;
                }
            }
        }
    }
    /* q's awaits from `from` on, group by group (struct sim_awgroup): the
     * first at or after `from`, then the first there whose record is at or
     * past both its process's pc and horizon (guard_passes), by bisection.
     * A record on q itself comes before its await, which passes. */
    for (uint32_t gi = m->awg_off[q]; gi < m->awg_off[q + 1]; gi++) {
        const struct sim_awgroup *g = &m->awg[gi];
        uint32_t rp = g->rec_proc, thr;

        if (rp == q)
            continue;
        thr = SIM_PC(m, st)[rp] > h[rp] ? SIM_PC(m, st)[rp] : h[rp];
        lo = g->lo;
        hi = g->hi;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;

            if (m->aw[mid] < from)
                lo = mid + 1;
            else
                hi = mid;
        }
        hi = g->hi;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;

            if (ces_sim_await_rec(m, &m->ops[q][m->aw[mid]])->pos < thr)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < g->hi && m->aw[lo] < bound)
            bound = m->aw[lo];
    }
    return bound;
}

/* The horizon of every process while process f stands still: h[q] is a
 * position q cannot pass (a wait no value reachable in the meantime can
 * satisfy, an await whose record cannot run) unless f moves.  It
 * over-approximates how far each process can get, so every op below it may
 * run before f's next op and every op at or beyond it cannot. */
static const uint32_t *horizon(struct search *S, const struct sim_state *st, uint32_t f)
{
    const struct sim_model *m = S->m;
    const uint32_t *pc = SIM_PC(m, st);
    uint32_t *h = S->hz + (size_t)f * m->nproc;
    uint32_t quiet = 0; /* processes walked in a row since the last change */

    if (S->hz_gen[f] == S->gen)
        return h;
    S->hz_gen[f] = S->gen;
    for (uint32_t q = 0; q < m->nproc; q++)
        h[q] = q == f ? (pc[f] < m->stop[f] ? pc[f] : m->stop[f]) : m->stop[q];
    /* Shrinking one horizon can only shrink others (the walk is monotone),
     * so the processes are walked round and round until a whole round of
     * them, counted from the last change, changed nothing: the greatest
     * fixpoint, whatever the order. */
    for (uint32_t q = 0; quiet < m->nproc; q = q + 1 < m->nproc ? q + 1 : 0) {
        uint32_t r;

        quiet++;
        if (q == f || pc[q] >= h[q])
            continue;
        r = reach(m, st, h, q);
        if (r < h[q]) {
            h[q] = r;
            quiet = 1;
        }
    }
    return h;
}

static void add(struct search *S, uint32_t q, uint32_t *nwork)
{
    if (!S->inT[q]) {
        S->inT[q] = 1;
        S->work[(*nwork)++] = q;
    }
}

/* Adds every process whose reachable future writes slot x (positions below
 * the horizon h), except `self`; with `cond_op` only writes satisfying it. */
static void add_writers(struct search *S, const struct sim_state *st, uint32_t x,
                        uint32_t self, const uint32_t *h, const struct sim_op *cond_op,
                        uint32_t *nwork)
{
    const struct sim_model *m = S->m;
    const uint32_t *pc = SIM_PC(m, st);

    for (uint32_t gi = m->wg_off[x]; gi < m->wg_off[x + 1]; gi++) {
        const struct sim_group *g = &m->wg[gi];

        if (g->proc != self && !S->inT[g->proc] &&
            group_writes(m, g, x, pc[g->proc], h[g->proc],
                         cond_op != NULL ? cond_op->op->cmp : SIM_NONE,
                         cond_op != NULL ? cond_op->op->value : 0))
            add(S, g->proc, nwork);
    }
}

/* The most waits unread looks at: past them a value is taken as one that
 * a wait may read. */
#define UNREAD_WAITS 256

/* Whether no wait left on slot x (of any process, from its pc to its stop)
 * holds on the value v: a store of v is then read by no wait before the
 * next store overwrites it. */
static bool unread(const struct sim_model *m, const uint32_t *pc, uint32_t x, uint64_t v)
{
    uint32_t budget = UNREAD_WAITS;

    for (uint32_t gi = m->tg_off[x]; gi < m->tg_off[x + 1]; gi++) {
        const struct sim_group *g = &m->tg[gi];
        uint32_t i = seek(m->wt, g, pc[g->proc]), j = seek(m->wt, g, m->stop[g->proc]);

        for (; i < j; i++) {
            if (budget-- == 0 ||
                ces_wait_holds(m->slot_width[x], m->wt_cmp[i], v, m->wt[i].value))
                return false;
        }
    }
    return true;
}

static bool cycle_possible(struct search *S, const struct sim_state *st);

/* Whether no end state reachable from st can add a class to the verdict
 * (S->ends: 1 yes, 0 no, -1 not yet known for this state): the second
 * search and a sliced one look for a RACE or MISMATCH only; the first,
 * once a HANG is found, where a DEADLOCK is found too or none is possible. */
static bool ends_found(struct search *S, const struct sim_state *st)
{
    if (S->ends < 0)
        S->ends = S->have[SIM_D_DEADLOCK] || !cycle_possible(S, st);
    return S->ends;
}

/* Whether an execution that item 4 leaves out at st keeps its data's
 * classes in the one kept in its place: that has the same races and data up
 * to where the one left out ends, but may go on there (the raise kept lets
 * a wait pass), and a race after that leaves the left-out one's MISMATCH,
 * on a race-free execution, unjudged.  So no MISMATCH may be left to find,
 * or no race may come after st: no process has a data access left that
 * can conflict with another's (every clock dead).  A sliced search stops
 * at a RACE as at a MISMATCH, either refuting its signals. */
static bool data_kept(const struct search *S, const struct sim_state *st)
{
    return S->data_only || S->have[SIM_D_MISMATCH] || S->sliced != 0 ||
           ces_sim_clocks_dead(S->m, SIM_PC(S->m, st));
}

/* The persistent-set closure from `seed`; returns how many of its
 * processes have an enabled next step.  Where no end state can add a
 * class (ends_found), a write of a value no wait left reads needs no other
 * writer of its slot (docs/SEMANTICS.md section 10, the reduction's
 * item 4): in the second search only where the data's classes stay
 * (data_kept); in the first, where they may not, noted in S->unkept. */
static uint32_t closure(struct search *S, const struct sim_state *st, uint32_t seed)
{
    const struct sim_model *m = S->m;
    const uint32_t *pc = SIM_PC(m, st);
    uint32_t nwork = 0, nen = 0;

    memset(S->inT, 0, m->nproc);
    add(S, seed, &nwork);
    while (nwork > 0) {
        uint32_t x = S->work[--nwork];
        int status = ces_sim_status(m, st, x);
        const struct sim_op *o = pc[x] < m->len[x] ? &m->ops[x][pc[x]] : NULL;

        if (status == SIM_S_VISIBLE) {
            const uint32_t *h = horizon(S, st, x);

            nen++;
            if (o->cls == SIM_C_WRITE) {
                uint32_t t = o->slot;
                uint64_t cur = sval(m, st, t);

                /* waits on t that could run before this write */
                for (uint32_t gi = m->tg_off[t]; gi < m->tg_off[t + 1]; gi++) {
                    const struct sim_group *g = &m->tg[gi];

                    if (g->proc == x || S->inT[g->proc])
                        continue;
                    for (uint32_t i = seek(m->wt, g, pc[g->proc]);
                         i < g->hi && m->wt[i].pos < h[g->proc]; i++) {
                        const struct sim_access *u = &m->wt[i];

                        if (ces_wait_holds(m->slot_width[t], m->wt_cmp[i], cur, u->value) ||
                            can_write(m, pc, h, t, m->wt_cmp[i], u->value, x, u->proc,
                                      u->pos)) {
                            add(S, u->proc, &nwork);
                            break;
                        }
                    }
                }
                /* other writes to t that could run before it, unless its
                 * store, read by nothing, can only end an execution sooner */
                if (!S->ends || !unread(m, pc, t, o->op->value) || !ends_found(S, st) ||
                    (S->race_free && !data_kept(S, st)))
                    add_writers(S, st, t, x, h, NULL, &nwork);
                else if (!data_kept(S, st))
                    S->unkept = true;
            } else {
                assert(o->cls == SIM_C_WAIT);
                add_writers(S, st, o->slot, x, h, NULL, &nwork);
            }
        } else if (status == SIM_S_WAIT) {
            add_writers(S, st, o->slot, x, horizon(S, st, x), o, &nwork);
        } else if (status == SIM_S_AWAIT) {
            add(S, ces_sim_await_rec(m, o)->proc, &nwork);
        } else if (status == SIM_S_LINK) {
            for (uint32_t i = 0; i < o->nlink; i++) {
                const struct sim_link *l = &m->links[o->link + i];

                if (pc[l->proc] <= l->pos)
                    add(S, l->proc, &nwork);
            }
        } else if (status == SIM_S_QUEUE) {
            uint32_t q = m->queue[x];

            add(S, ces_sim_queue_proc(m, q, ces_sim_queue_done(m, pc, q)), &nwork);
        }
    }
    return nen;
}

/* Process p's next op is enabled (visible or not). */
static bool can_step(const struct sim_model *m, const struct sim_state *st, uint32_t p)
{
    int s = ces_sim_status(m, st, p);

    return s == SIM_S_VISIBLE || s == SIM_S_INVISIBLE;
}

/* Fills the frame's choices; 0 choices = an end state. */
static void choose(struct search *S, struct frame *f)
{
    const struct sim_model *m = S->m;
    uint32_t ne = 0, best = SIM_NONE, bestn = UINT32_MAX;

    /* not with the watchdog model (it releases blocked waits, whatever
     * the slot holds) nor --max-depth (as nothing_new) */
    S->ends = m->abort_mode || S->o->max_depth > 0 ? 0
              : S->race_free || S->data_only        ? 1
              : S->have[SIM_D_HANG]                 ? -1
                                                    : 0;
    for (uint32_t p = 0; p < m->nproc; p++)
        if (can_step(m, &f->st, p))
            S->enabled[ne++] = p;
    f->nchoice = 0;
    f->next = 0;
    if (ne == 0)
        return;
    if (!S->reduce || ne == 1) {
        memcpy(f->choice, S->enabled, ne * sizeof(uint32_t));
        f->nchoice = ne;
        return;
    }
    /* A new state: every cached horizon is stale.  After 2^32 states the
     * generation would come round to a stamp still held by some process, so
     * the stamps are cleared when it wraps. */
    if (++S->gen == 0) {
        memset(S->hz_gen, 0, m->nproc * sizeof(uint32_t));
        S->gen = 1;
    }
    for (uint32_t i = 0; i < ne && bestn > 1; i++) {
        uint32_t n = closure(S, &f->st, S->enabled[i]);

        if (n < bestn) {
            bestn = n;
            best = S->enabled[i];
        }
    }
    S->unkept = false;
    closure(S, &f->st, best);
    S->unjudged += S->unkept;
    for (uint32_t i = 0; i < ne; i++)
        if (S->inT[S->enabled[i]])
            f->choice[f->nchoice++] = S->enabled[i];
}

/* --- classes already found ------------------------------------------------- */

/* The most ops left, over all processes, for which a state's wait-for
 * over-approximation is built, and the most writes it looks at: it costs
 * about as much as a few steps then, where a state of a long program
 * would pay for it many times over in every state. */
#define PRUNE_OPS 4096
#define PRUNE_WORK (8 * PRUNE_OPS)
/* How many answers cycle_possible keeps (a power of two) */
#define PRUNE_KEPT 1024

/* The bits of the hash that picks an entry of cycle_possible's and
 * consumes_race's tables: all (internal.h; none in a test, so that every
 * key takes one entry and the compare alone tells keys apart). */
uint64_t ces_sim_kept_slot = UINT64_MAX;

/* Whether consumes_race's hash takes the slot values: it does (internal.h;
 * not in a test, so that keys of the same program counters take one entry
 * and the compare of the values tells them apart). */
bool ces_sim_kept_vals = true;

/* Whether an op of another process precedes position k of process q (before
 * q's stop) in their shared hardware queue: q's ops all lie in its queue, so
 * the op's index there exceeds k just then. */
static inline bool queue_behind(const struct sim_model *m, uint32_t q, uint32_t k)
{
    return m->shared_queues && ces_sim_qidx(m, q, k) > k;
}

/* How many ops of process r, from its first, lie before queue index qi in
 * its hardware queue (its ops up to its stop, in the queue's order). */
static uint32_t queue_ahead(const struct sim_model *m, uint32_t r, uint32_t qi)
{
    uint32_t lo = 0, hi = m->stop[r];

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (ces_sim_qidx(m, r, mid) < qi)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether process q could be left blocked at position k behind the head of
 * its hardware queue: the head is then another process r's op ahead of k
 * at which r is left blocked, so at or after fb[r] (r's ops before fb[r]
 * surely run).  Appends each such r's last op ahead of k to t (pairs, at
 * index *n) where t is not NULL. */
static bool queue_held(const struct sim_model *m, const uint32_t *fb, uint32_t q, uint32_t k,
                       uint32_t *t, uint32_t *n)
{
    uint32_t qu = m->queue[q], qi = ces_sim_qidx(m, q, k);
    bool held = false;

    if (!queue_behind(m, q, k))
        return false;
    for (uint32_t i = m->qproc_at[qu]; i < m->qproc_at[qu + 1]; i++) {
        uint32_t r = m->qproc[i], ahead = r == q ? 0 : queue_ahead(m, r, qi);

        if (ahead <= fb[r])
            continue;
        held = true;
        if (t == NULL)
            break;
        t[2 * *n] = r;
        t[2 * (*n)++ + 1] = ahead - 1;
    }
    return held;
}

/* The first position at or after position k of process q, before its
 * stop, where it could be left blocked: a wait, an await, the first op of
 * a block or replay with links, or an op that another process's precedes
 * in a shared hardware queue; its stop if none.  From q's program
 * counter: q's first blocking position. */
static uint32_t first_block(const struct sim_model *m, uint32_t q, uint32_t k)
{
    while (k < m->stop[q] && m->ops[q][k].cls != SIM_C_WAIT &&
           m->ops[q][k].cls != SIM_C_AWAIT && m->ops[q][k].nlink == 0 && !queue_behind(m, q, k))
        k++;
    return k;
}

/* Whether process q could be left blocked at its wait at position k (op
 * o) in an end state reached from st: the slot then holds its current
 * value or a store left of another process (of q only before k), and the
 * wait fails on it.  It cannot where every such store satisfies the wait
 * and the current value does too or one of the stores surely runs: one of
 * q's before k, or one of another process p before fb[p] (p is left
 * blocked, if at all, at or after fb[p]).  Past *budget writes looked at,
 * taken as possible (a writer whose values never decrease counting as one). */
static bool blockable(const struct sim_model *m, const struct sim_state *st,
                      const uint32_t *fb, uint32_t q, uint32_t k, uint64_t *budget)
{
    const struct sim_op *o = &m->ops[q][k];
    const uint32_t *pc = SIM_PC(m, st);
    bool sure = ces_wait_holds(m->slot_width[o->slot], o->op->cmp, sval(m, st, o->slot),
                               o->op->value);

    for (uint32_t gi = m->wg_off[o->slot]; gi < m->wg_off[o->slot + 1]; gi++) {
        const struct sim_group *g = &m->wg[gi];
        uint32_t i = seek(m->wr, g, pc[g->proc]);
        uint32_t j = seek(m->wr, g, g->proc == q ? k : m->stop[g->proc]);
        uint64_t cost = g->sorted ? 1 : j - i;

        if (i == j)
            continue;
        if (*budget < cost || !writes_hold(m, g, i, j, o))
            return true;
        *budget -= cost;
        sure |= g->proc == q || m->wr[i].pos < fb[g->proc];
    }
    return !sure;
}

/* The first position at or after fb[q] where process q could be left
 * blocked in an end state reached from st: first_block's, past the ops
 * that nothing can hold there, neither their queue (queue_held) nor a
 * wait that can fail (blockable), nor an await or a link. */
static uint32_t first_blockable(const struct sim_model *m, const struct sim_state *st,
                                const uint32_t *fb, uint32_t q, uint64_t *budget)
{
    uint32_t k = fb[q];

    while (k < m->stop[q] && m->ops[q][k].nlink == 0 && m->ops[q][k].cls != SIM_C_AWAIT &&
           !queue_held(m, fb, q, k, NULL, NULL) &&
           (m->ops[q][k].cls != SIM_C_WAIT || !blockable(m, st, fb, q, k, budget)))
        k = first_block(m, q, k + 1);
    return k;
}

/* Whether a model's wait-for over-approximation is worth building: not
 * past PRUNE_WORK pairs of processes. */
static bool graph_fits(const struct sim_model *m)
{
    return (uint64_t)m->nproc * m->nproc <= PRUNE_WORK;
}

/* How many ops the wait-for over-approximation of the states whose first
 * blocking positions are fb looks at: every write to the slot of every wait
 * from a process's first blocking position, every link and every await,
 * and the other processes of the queue of an op behind theirs.  fb NULL:
 * from every process's first op (the most of any fb). */
static uint64_t graph_ops(const struct sim_model *m, const uint32_t *fb)
{
    uint64_t n = 0;

    for (uint32_t p = 0; p < m->nproc; p++) {
        uint32_t qu = m->queue[p], others = m->qproc_at[qu + 1] - m->qproc_at[qu] - 1;

        for (uint32_t k = fb != NULL ? fb[p] : 0; k < m->stop[p]; k++) {
            const struct sim_op *o = &m->ops[p][k];

            n += o->nlink + (o->cls == SIM_C_AWAIT);
            if (queue_behind(m, p, k))
                n += others;
            if (o->cls == SIM_C_WAIT)
                n += m->wr_off[o->slot + 1] - m->wr_off[o->slot];
        }
    }
    return n;
}

/* The last op of process q before its stop, at or after position from,
 * that a blocked wait (op o of process p at position k) waits for: a write
 * to its slot that satisfies it, after k where q is p; SIM_NONE if none. */
static uint32_t last_writer(const struct sim_model *m, const struct sim_group *g,
                            const struct sim_op *o, uint32_t p, uint32_t k, uint32_t from)
{
    uint32_t lo = seek(m->wr, g, g->proc == p && k + 1 > from ? k + 1 : from);

    for (uint32_t i = seek(m->wr, g, m->stop[g->proc]); i > lo; i--)
        if (ces_wait_holds(m->slot_width[o->slot], o->op->cmp, m->wr[i - 1].value,
                           o->op->value))
            return m->wr[i - 1].pos;
    return SIM_NONE;
}

/* Appends to the scratch the ops that process p, left blocked at position
 * k (op o), waits for before its op runs at all: the heads of its queue
 * ahead of it (queue_held), the links of a block or replay boundary and
 * an await's record, as (process, position) pairs, each of them at or after
 * that process's first blocking position in fb. */
static uint32_t hold_targets(const struct sim_model *m, const uint32_t *fb, uint32_t p,
                             uint32_t k, uint32_t *t, uint32_t n)
{
    const struct sim_op *o = &m->ops[p][k];

    queue_held(m, fb, p, k, t, &n);
    for (uint32_t i = 0; i < o->nlink; i++) {
        const struct sim_link *l = &m->links[o->link + i];

        if (fb[l->proc] <= l->pos) {
            t[2 * n] = l->proc;
            t[2 * n++ + 1] = l->pos;
        }
    }
    if (o->cls == SIM_C_AWAIT) {
        const struct sim_link *rec = ces_sim_await_rec(m, o);

        if (fb[rec->proc] <= rec->pos) {
            t[2 * n] = rec->proc;
            t[2 * n++ + 1] = rec->pos;
        }
    }
    return n;
}

/* Appends to the scratch the writes that process p, left at position k
 * (op o) with its wait there failing, waits for, as hold_targets does
 * (none where o is no wait). */
static uint32_t wait_targets(const struct sim_model *m, const uint32_t *fb, uint32_t p,
                             uint32_t k, uint32_t *t, uint32_t n)
{
    const struct sim_op *o = &m->ops[p][k];

    if (o->cls != SIM_C_WAIT)
        return n;
    for (uint32_t gi = m->wg_off[o->slot]; gi < m->wg_off[o->slot + 1]; gi++) {
        const struct sim_group *g = &m->wg[gi];
        uint32_t at = last_writer(m, g, o, p, k, fb[g->proc]);

        if (at != SIM_NONE) {
            t[2 * n] = g->proc;
            t[2 * n++ + 1] = at;
        }
    }
    return n;
}

/* What a process left at position k, its wait there failing, tells of the
 * order in time (timed_cycle): where k is a wait on a slot to which no
 * other process stores a value failing it, the slot's last store failed
 * it, so that store was the process's own, at or before its last store to
 * the slot before k that fails the wait: that position, or TIMED_NONE
 * where it has none (no store to the slot can have run).  So whether the
 * process is blocked at the wait or held before it (its queue, a link),
 * as long as the wait fails.  TIMED_NO for any other blocking position, or
 * once *budget (writes looked at) runs out. */
#define TIMED_NO SIM_NONE
#define TIMED_NONE (SIM_NONE - 1)

static uint32_t timed_at(const struct sim_model *m, uint32_t p, uint32_t k, uint64_t *budget)
{
    const struct sim_op *o = &m->ops[p][k];
    uint32_t at = TIMED_NONE;

    if (o->cls != SIM_C_WAIT)
        return TIMED_NO;
    for (uint32_t gi = m->wg_off[o->slot]; gi < m->wg_off[o->slot + 1]; gi++) {
        const struct sim_group *g = &m->wg[gi];

        if (g->proc != p) {
            uint64_t cost = g->sorted ? 1 : g->hi - g->lo;

            if (*budget < cost || !writes_hold(m, g, g->lo, g->hi, o))
                return TIMED_NO;
            *budget -= cost;
            continue;
        }
        for (uint32_t i = seek(m->wr, g, k); i > g->lo && at == TIMED_NONE; i--) {
            if (*budget == 0)
                return TIMED_NO;
            --*budget;
            if (!ces_wait_holds(m->slot_width[o->slot], o->op->cmp, m->wr[i - 1].value,
                                o->op->value))
                at = m->wr[i - 1].pos;
        }
    }
    return at;
}

/* An edge of timed_cycle's graph for a write that process p, left at its
 * position k with its wait there failing (timed_at's answer tp), waits
 * for, to process q != p left at k2 (tq): EDGE_NONE where the two cannot
 * be left there at once (p's wait needs a slot no store has reached, and q
 * stored to it before k2), EDGE_TIMED where the last store to p's slot,
 * p's, at or before tp, ran after q's last store to it before k2, which q
 * ran after tq where q's wait fails too: tp's store then ran after tq's,
 * EDGE_PLAIN otherwise.  Groups looked at are taken from *budget. */
enum { EDGE_NONE, EDGE_PLAIN, EDGE_TIMED };

static int edge_kind(const struct sim_model *m, uint32_t p, uint32_t k, uint32_t tp, uint32_t q,
                     uint32_t k2, uint32_t tq, uint64_t *budget)
{
    uint32_t x = m->ops[p][k].slot;

    if (tp == TIMED_NO)
        return EDGE_PLAIN;
    for (uint32_t gi = m->wg_off[x]; gi < m->wg_off[x + 1] && *budget > 0; gi++, --*budget) {
        const struct sim_group *g = &m->wg[gi];
        uint32_t i;

        if (g->proc != q)
            continue;
        i = seek(m->wr, g, k2);
        if (i == g->lo)
            return EDGE_PLAIN;
        if (tp == TIMED_NONE)
            return EDGE_NONE;
        return tq < TIMED_NONE && m->wr[i - 1].pos >= tq ? EDGE_TIMED : EDGE_PLAIN;
    }
    return EDGE_PLAIN;
}

/* Whether the positions wait_for_cycle kept (n in all, process p's from
 * cur[p]) hold a cycle that the order in time allows: the graph of those
 * positions, an edge from b to each position of another process at or
 * before an op b waits for (EDGE_PLAIN for the ops b waits for before it
 * runs, from wt[b] on edge_kind's for the writes its wait does), or to b
 * itself where b waits for a write of its own.  A cycle of an end state is
 * a cycle of this graph, one position per process, each edge one of what
 * its position waits for there.  Along an EDGE_TIMED edge from b to c
 * where c's edge on the cycle is a write its wait waits for (the wait
 * failing), the store of timed_at(b) ran after that of timed_at(c), so a
 * cycle of such edges alone would run each store after itself: some edge
 * of a cycle is of another kind (where c's edge is one it waits for before
 * it runs, that one is).  So the strongly connected components (Tarjan's,
 * without recursion) are asked for an edge inside one that is not
 * EDGE_TIMED.  True where the edges looked at exceed the budget.  Scratch:
 * after wait_for_cycle's. */
static bool timed_cycle(struct search *S, uint32_t n)
{
    const struct sim_model *m = S->m;
    uint32_t P = m->nproc, *cur = S->wf + P, *first = cur + P, *pos = first + P + 1;
    uint32_t *toff = pos + S->wf_ops, *wt = toff + S->wf_ops + 1, *tgt = wt + S->wf_ops;
    uint32_t *tp = tgt + 2 * S->wf_work, *who = tp + S->wf_ops, *num = who + S->wf_ops;
    uint32_t *low = num + S->wf_ops, *comp = low + S->wf_ops, *stk = comp + S->wf_ops;
    uint32_t *fv = stk + S->wf_ops, *ft = fv + S->wf_ops, *fc = ft + S->wf_ops;
    uint32_t count = 0, sp = 0;
    uint64_t budget = 4 * PRUNE_WORK;

    for (uint32_t p = 0; p < P; p++)
        for (uint32_t b = first[p]; b < first[p + 1]; b++) {
            who[b] = p;
            num[b] = 0;
            tp[b] = b < cur[p] ? TIMED_NO : timed_at(m, p, pos[b], &budget);
        }
    /* Each frame walks its position's edges: target ft, candidate fc. */
    for (uint32_t s = 0; s < n; s++) {
        uint32_t top = 0;

        if (s < cur[who[s]] || num[s] != 0)
            continue;
        fv[0] = s;
        ft[0] = toff[s];
        fc[0] = SIM_NONE;
        num[s] = low[s] = ++count;
        comp[s] = SIM_NONE;
        stk[sp++] = s;
        for (;;) {
            uint32_t v = fv[top], w = SIM_NONE;

            while (w == SIM_NONE && ft[top] < toff[v + 1]) {
                uint32_t t = ft[top], q = tgt[2 * t], at = tgt[2 * t + 1];
                uint32_t c = fc[top] == SIM_NONE ? cur[q] : fc[top] + 1;

                if (q == who[v])
                    return true; /* (at > pos[v]: v waits for itself) */
                if (budget == 0)
                    return true;
                budget--;
                if (c < first[q + 1] && pos[c] <= at) {
                    fc[top] = c;
                    if (t < wt[v] ||
                        edge_kind(m, who[v], pos[v], tp[v], q, pos[c], tp[c], &budget) !=
                            EDGE_NONE)
                        w = c;
                } else {
                    ft[top]++;
                    fc[top] = SIM_NONE;
                }
            }
            if (w != SIM_NONE && num[w] == 0) {
                top++;
                fv[top] = w;
                ft[top] = toff[w];
                fc[top] = SIM_NONE;
                num[w] = low[w] = ++count;
                comp[w] = SIM_NONE;
                stk[sp++] = w;
                continue;
            }
            if (w != SIM_NONE) {
                if (comp[w] == SIM_NONE && num[w] < low[v])
                    low[v] = num[w];
                continue;
            }
            if (low[v] == num[v]) {
                uint32_t u;

                do {
                    u = stk[--sp];
                    comp[u] = v;
                } while (u != v);
            }
            if (top == 0)
                break;
            top--;
            if (low[v] < low[fv[top]])
                low[fv[top]] = low[v];
        }
    }
    /* Every edge inside a component, asked for its kind. */
    for (uint32_t v = 0; v < n; v++)
        for (uint32_t t = toff[v]; v >= cur[who[v]] && t < toff[v + 1]; t++) {
            uint32_t q = tgt[2 * t], at = tgt[2 * t + 1];

            for (uint32_t c = cur[q]; c < first[q + 1] && pos[c] <= at; c++) {
                if (budget == 0)
                    return true;
                budget--;
                if (comp[c] == comp[v] &&
                    (t < wt[v] || edge_kind(m, who[v], pos[v], tp[v], q, pos[c], tp[c],
                                            &budget) == EDGE_PLAIN))
                    return true;
            }
        }
    return false;
}

/* Whether the wait-for over-approximation of the states whose first
 * blocking positions are fb has a cycle (cycle_possible).  Process p can be
 * left blocked at any of its blocking positions from fb[p] (a wait, an
 * await, a linked op, an op held behind its queue's head), and there waits
 * for certain ops of other processes (hold_targets, wait_targets), or for a
 * write of its own after it.  In an end state with a cycle, each process q on it is
 * blocked at a position b_q, and the op that the previous one waits for
 * lies at or after b_q.  So a position is dropped when no op it waits for
 * lies at or after the first position still held by that op's process
 * (none held: the process cannot be on a cycle), until nothing changes:
 * the positions of a cycle are never dropped, and where none is left no
 * end state has a cycle.  Scratch: S->wf after fb (each process's first
 * position held, the positions, where the ops each waits for begin and
 * where the writes among them begin, those ops). */
static bool wait_for_cycle(struct search *S, const uint32_t *fb)
{
    const struct sim_model *m = S->m;
    uint32_t P = m->nproc, *cur = S->wf + P, *first = cur + P, *pos = first + P + 1;
    uint32_t *toff = pos + S->wf_ops, *wt = toff + S->wf_ops + 1, *tgt = wt + S->wf_ops;
    uint32_t n = 0, nt = 0;
    bool changed = true;

    for (uint32_t p = 0; p < P; p++) {
        first[p] = n;
        for (uint32_t k = fb[p]; k < m->stop[p]; k++) {
            const struct sim_op *o = &m->ops[p][k];
            uint32_t t0 = nt, w0 = hold_targets(m, fb, p, k, tgt, nt);

            nt = wait_targets(m, fb, p, k, tgt, w0);
            assert(nt <= S->wf_work); /* (cycle_at: left + graph_ops) */
            if (o->cls != SIM_C_WAIT && o->cls != SIM_C_AWAIT && o->nlink == 0 && nt == t0)
                continue; /* (not held behind its queue's head either) */
            assert(n < S->wf_ops);
            pos[n] = k;
            wt[n] = w0;
            toff[n++] = t0;
        }
        cur[p] = first[p];
    }
    first[P] = n;
    toff[n] = nt;
    while (changed) {
        changed = false;
        for (uint32_t p = 0; p < P; p++) {
            for (; cur[p] < first[p + 1]; cur[p]++, changed = true) {
                uint32_t b = cur[p], i = toff[b];

                while (i < toff[b + 1]) {
                    uint32_t q = tgt[2 * i], at = tgt[2 * i + 1];

                    if (cur[q] < first[q + 1] && at >= pos[cur[q]])
                        break; /* (q = p: at > pos[b], last_writer) */
                    i++;
                }
                if (i < toff[b + 1])
                    break; /* b waits for an op that can be left to run */
            }
        }
    }
    for (uint32_t p = 0; p < P; p++)
        if (cur[p] < first[p + 1])
            return timed_cycle(S, n);
    return false;
}

/* wait_for_cycle's answer for the first blocking positions fb (with
 * `left` ops left), kept in S->cyc (one entry per hash of the positions, a
 * later replacing an earlier); true without a look where the ops left and
 * the ops to look at exceed PRUNE_WORK. */
static bool cycle_at(struct search *S, const uint32_t *fb, uint64_t left)
{
    uint32_t P = S->m->nproc, *e;
    uint64_t writes, h = 0;

    for (uint32_t q = 0; q < P; q++)
        h = (h ^ fb[q]) * UINT64_C(0x9E3779B97F4A7C15);
    h &= ces_sim_kept_slot;
    e = S->cyc + (size_t)((h >> 32) & (PRUNE_KEPT - 1)) * (P + 2);
    if (memcmp(fb, e, P * sizeof(uint32_t)) == 0)
        return left + e[P] > PRUNE_WORK || e[P + 1];
    writes = graph_ops(S->m, fb);
    if (left + writes > PRUNE_WORK)
        return true; /* (not kept: the graph was not built) */
    memcpy(e, fb, P * sizeof(uint32_t));
    e[P] = (uint32_t)writes;
    e[P + 1] = wait_for_cycle(S, e);
    return e[P + 1];
}

/* Whether some end state reachable from st could hold a wait-for cycle
 * (a DEADLOCK; docs/SEMANTICS.md section 10, "Classes already found"):
 * the wait-for over-approximation from each process's first blocking
 * position, first_block's, and, where that has a cycle, from the ones
 * past the waits that cannot be left blocked (first_blockable; later
 * positions, so a graph of the first's without a cycle has none).  The
 * graph depends on the positions only, which few combinations take in a
 * search, so its answer is kept under them (cycle_at).  Taken as
 * possible, without a look, where more than PRUNE_OPS ops are left. */
static bool cycle_possible(struct search *S, const struct sim_state *st)
{
    const struct sim_model *m = S->m;
    const uint32_t *pc = SIM_PC(m, st);
    uint32_t P = m->nproc, *fb = S->wf;
    uint64_t left = 0, budget = PRUNE_WORK;
    bool raised = false;

    if (!graph_fits(m))
        return true;
    assert(S->cyc != NULL);
    for (uint32_t q = 0; q < P; q++) {
        left += pc[q] < m->stop[q] ? m->stop[q] - pc[q] : 0;
        if (left > PRUNE_OPS)
            return true; /* too long to look at for every state: taken as possible */
    }
    for (uint32_t q = 0; q < P; q++)
        fb[q] = first_block(m, q, pc[q]);
    if (!cycle_at(S, fb, left))
        return false;
    /* Each position is a lower bound, and a raised one may let another's
     * waits pass: round robin until P in a row stay where they are. */
    for (uint32_t q = 0, still = 0; still < P; q = q + 1 < P ? q + 1 : 0) {
        uint32_t k = first_blockable(m, st, fb, q, &budget);

        still = k == fb[q] ? still + 1 : 1;
        raised |= k != fb[q];
        fb[q] = k;
    }
    return raised ? cycle_at(S, fb, left) : true;
}

/* --- races every execution has (docs/SEMANTICS.md section 10) ------------ */

/* Whether op k of process q may take a happens-before edge from a step not
 * yet run at st: a wait, or an await or an op with links unless it is q's
 * next op and enabled (its record, or the ops it links to, ran). */
static bool takes_edge(const struct sim_model *m, const struct sim_state *st, uint32_t q,
                       uint32_t k)
{
    const struct sim_op *o = &m->ops[q][k];
    int s;

    if (o->cls == SIM_C_WAIT)
        return true;
    if (o->cls != SIM_C_AWAIT && o->nlink == 0)
        return false;
    if (k != SIM_PC(m, st)[q])
        return true;
    s = ces_sim_status(m, st, q);
    return s != SIM_S_VISIBLE && s != SIM_S_INVISIBLE;
}

/* Appends region r of op k of process q as an access (head, tail) to S->sure
 * at *n; false where SURE_ACCS are taken. */
static bool sure_add(struct search *S, const struct ces_region *r, uint32_t q, uint32_t k,
                     bool write, bool head, bool tail, uint32_t *n)
{
    struct sure_acc *a = &S->sure[*n];

    if (r->lo == r->hi)
        return true;
    if (*n == SURE_ACCS)
        return false;
    a->lo = r->lo;
    a->hi = r->hi;
    a->proc = q;
    a->pos = k;
    a->map = r->rank * S->m->nbuf + r->buf;
    a->write = write;
    a->head = head;
    a->tail = tail;
    (*n)++;
    return true;
}

/* Whether accesses a and b conflict and no execution can order them:
 * neither can reach the other through a happens-before edge (the one
 * gives none from it on, or the other takes none up to it). */
static bool sure_pair(const struct sure_acc *a, const struct sure_acc *b)
{
    return a->proc != b->proc && a->map == b->map && a->lo < b->hi && b->lo < a->hi &&
           (a->write || b->write) && (a->tail || b->head) && (b->tail || a->head);
}

/* Raises each position of fb (first_block's at first, from positions
 * each process surely passes) past the ops that cannot be where its
 * process is left in an end state from st: a wait none of whose stores
 * left can fail it where one surely runs (blockable), an await whose
 * record surely runs, an op with links whose ops surely run, none held in
 * a shared queue; round robin until P in a row stay. */
static void reach_raise(struct search *S, const struct sim_state *st, uint32_t *fb)
{
    const struct sim_model *m = S->m;
    uint32_t P = m->nproc;
    uint64_t budget = PRUNE_WORK;

    for (uint32_t q = 0, still = 0; still < P; q = q + 1 < P ? q + 1 : 0) {
        uint32_t k = fb[q];

        for (;;) {
            const struct sim_op *o = k < m->stop[q] ? &m->ops[q][k] : NULL;
            bool pass = o != NULL && !queue_held(m, fb, q, k, NULL, NULL);

            /* (fb is at least pc: an op that ran lies before it) */
            for (uint32_t i = 0; pass && i < o->nlink; i++) {
                const struct sim_link *l = &m->links[o->link + i];

                pass = l->pos < fb[l->proc];
            }
            if (pass && o->cls == SIM_C_AWAIT) {
                const struct sim_link *rec = ces_sim_await_rec(m, o);

                pass = rec->pos < fb[rec->proc];
            }
            if (pass && o->cls == SIM_C_WAIT)
                pass = !blockable(m, st, fb, q, k, &budget);
            if (!pass)
                break;
            k = first_block(m, q, k + 1);
        }
        still = k == fb[q] ? still + 1 : 1;
        fb[q] = k;
    }
}

/* Whether no clock but r's own can hold r's entry e or above (r's from its
 * op e - 1 on) before op i of process p runs, from st: no other process's
 * does at st; no write, record or op a link keeps the clock of that r ran
 * from e - 1 on left one that another may still join (a link's only where
 * ops of p after i alone read it); and r runs no such op before p passes i
 * (an op of r that links to p's op at i or later comes first).  Past
 * *work ops looked at, false. */
static bool sealed(const struct search *S, const struct sim_state *st, uint32_t r, uint32_t e,
                   uint32_t p, uint32_t i, uint32_t *work)
{
    const struct sim_model *m = S->m;
    const uint32_t *pc = SIM_PC(m, st);

    for (uint32_t t = 0; t < m->nproc; t++)
        if (t != r && SIM_PCLK(m, st, t)[r] >= e)
            return false;
    for (uint32_t k = e - 1; k < pc[r]; k++) {
        const struct sim_op *o = &m->ops[r][k];

        if (*work == 0)
            return false;
        (*work)--;
        if (o->cls == SIM_C_WRITE && SIM_SCLK(m, st, o->slot)[r] >= e)
            return false;
        if (o->op->kind == CES_OP_RECORD && o->aux != SIM_NONE &&
            ces_sim_rclk(m, st, o->aux)[r] >= e)
            return false;
        if (o->snap != SIM_NONE && ces_sim_rclk(m, st, o->snap)[r] >= e &&
            (S->rd_proc[o->snap] != p || S->rd_pos[o->snap] <= i))
            return false;
    }
    for (uint32_t k = pc[r]; k < m->stop[r]; k++) {
        const struct sim_op *o = &m->ops[r][k];

        if (*work == 0)
            return false;
        (*work)--;
        for (uint32_t j = 0; j < o->nlink; j++) {
            const struct sim_link *l = &m->links[o->link + j];

            if (l->proc == p && l->pos >= i)
                return true;
        }
        if (o->cls == SIM_C_WRITE || o->op->kind == CES_OP_RECORD || o->snap != SIM_NONE)
            return false;
    }
    return true;
}

struct sealing {
    const struct search *S;
    const struct sim_state *st;
    uint32_t p, i, *work;
};

static bool sealed_at(void *ud, uint32_t r, uint32_t e)
{
    const struct sealing *c = ud;

    return sealed(c->S, c->st, r, e, c->p, c->i, c->work);
}

/* The first position of a data access of process q, from its program
 * counter up to its last that can conflict with another process's
 * (clock_end), that finds a race, with q's clock in st, in the access
 * history its bytes hold in st: with any access there before q's first
 * op that joins a clock into its own (a wait, an await, an op with
 * links), with one that no clock q can join first can order (sealed)
 * after it; SIM_NONE where there is none.  Past *budget regions, or
 * *work ops looked at past the first join, none. */
static uint32_t history_race(const struct search *S, const struct sim_state *st, uint32_t q,
                             uint32_t *budget, uint32_t *work)
{
    const struct sim_model *m = S->m;
    uint32_t end = m->clock_end[q] < m->stop[q] ? m->clock_end[q] : m->stop[q];
    bool joined = false;

    for (uint32_t k = SIM_PC(m, st)[q]; k < end && *budget > 0; k++) {
        const struct sim_op *o = &m->ops[q][k];
        const struct ces_op *op = o->op;
        struct sealing c = {S, st, q, k, work};
        bool (*keep)(void *, uint32_t, uint32_t);
        bool race = false;

        joined = joined || o->cls == SIM_C_WAIT || o->cls == SIM_C_AWAIT || o->nlink > 0;
        if (joined && *work == 0)
            break;
        if (joined)
            (*work)--;
        keep = joined ? sealed_at : NULL;
        if (op->kind == CES_OP_COPY) {
            *budget -= *budget > 1 ? 2 : 1;
            race = ces_sim_history_races(m, st, q, &op->a, false, keep, &c) ||
                   ces_sim_history_races(m, st, q, &op->b, true, keep, &c);
        } else if (op->kind == CES_OP_PRODUCE || op->kind == CES_OP_CONSUME) {
            (*budget)--;
            race = ces_sim_history_races(m, st, q, &op->a, op->kind == CES_OP_PRODUCE, keep,
                                         &c);
        }
        if (race)
            return k;
    }
    return SIM_NONE;
}

/* Whether every execution from st has a RACE (docs/SEMANTICS.md section
 * 10, "Races every execution has"): two accesses that conflict, that no
 * execution can order, and that every end state has run (each before its
 * process's first position where it could be left, reach_raise's), or one
 * access that every end state has run and that races with an access its
 * bytes' history holds already (history_race).  Looks at no pair where
 * more than SURE_ACCS accesses would be looked at. */
static bool race_sure(struct search *S, const struct sim_state *st)
{
    const struct sim_model *m = S->m;
    const uint32_t *pc = SIM_PC(m, st);
    uint32_t n = 0, nhist = 0, budget = SURE_ACCS, work = SURE_WORK;
    bool paired = false, ok = true;

    for (uint32_t q = 0; q < m->nproc; q++) {
        S->hist[q] = history_race(S, st, q, &budget, &work);
        nhist += S->hist[q] != SIM_NONE;
    }
    for (uint32_t q = 0; ok && q < m->nproc; q++) {
        uint32_t end = m->clock_end[q] < m->stop[q] ? m->clock_end[q] : m->stop[q];
        uint32_t head = pc[q];

        while (head < end && !takes_edge(m, st, q, head))
            head++;
        for (uint32_t k = pc[q]; ok && k < end; k++) {
            const struct ces_op *op = m->ops[q][k].op;
            bool h = k < head, t = k >= S->src_end[q];

            if (!h && !t) { /* (to the tail) */
                k = S->src_end[q] - 1;
                continue;
            }
            if (op->kind == CES_OP_COPY)
                ok = sure_add(S, &op->a, q, k, false, h, t, &n) &&
                     sure_add(S, &op->b, q, k, true, h, t, &n);
            else if (op->kind == CES_OP_PRODUCE || op->kind == CES_OP_CONSUME)
                ok = sure_add(S, &op->a, q, k, op->kind == CES_OP_PRODUCE, h, t, &n);
        }
    }
    if (!ok) {
        if (nhist == 0)
            return false;
        n = 0;
    }
    /* the positions each process surely passes: first_block's, made at the
     * first pair or access racing with the history, then raised once if
     * none lies before them */
    for (int round = 0; round < 2; round++) {
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++) {
                const struct sure_acc *a = &S->sure[i], *b = &S->sure[j];

                if (!sure_pair(a, b))
                    continue;
                for (uint32_t q = 0; !paired && q < m->nproc; q++)
                    S->reach[q] = first_block(m, q, pc[q]);
                paired = true;
                if (a->pos < S->reach[a->proc] && b->pos < S->reach[b->proc])
                    return true;
            }
        for (uint32_t q = 0; nhist > 0 && q < m->nproc; q++) {
            if (!paired) {
                for (uint32_t r = 0; r < m->nproc; r++)
                    S->reach[r] = first_block(m, r, pc[r]);
                paired = true;
            }
            if (S->hist[q] != SIM_NONE && S->hist[q] < S->reach[q])
                return true;
        }
        if (!paired)
            return false;
        if (round == 0)
            reach_raise(S, st, S->reach);
    }
    return false;
}

/* --- consumes that only racing executions run (docs/SEMANTICS.md section 10) */

/* The first write of group g in [from, end) that satisfies wait o;
 * SIM_NONE where there is none, or past *work writes looked at (*work is 0
 * then, and the answer unusable). */
static uint32_t first_hold(const struct sim_model *m, const struct sim_group *g,
                           const struct sim_op *o, uint32_t from, uint32_t end, uint32_t *work)
{
    if (o->op->cmp == CES_CMP_EQ) {
        uint32_t at = first_eq(m, g, o->op->value, from);

        return at < end ? at : SIM_NONE;
    }
    for (uint32_t i = seek(m->wr, g, from); i < g->hi && m->wr[i].pos < end; i++) {
        if (*work == 0)
            return SIM_NONE;
        (*work)--;
        if (ces_wait_holds(m->slot_width[o->slot], o->op->cmp, m->wr[i].value, o->op->value))
            return m->wr[i].pos;
    }
    return SIM_NONE;
}

/* Raises ran[w] past op pos of process w, which ran; false where that op
 * lies at or past w's stop (it never runs). */
static bool ran_past(const struct sim_model *m, uint32_t *ran, uint32_t w, uint32_t pos,
                     bool *moved)
{
    if (pos >= m->stop[w])
        return false;
    if (pos >= ran[w]) {
        ran[w] = pos + 1;
        *moved = true;
    }
    return true;
}

/* What wait o (op k of process r) needs to have run before it passes, in
 * an execution from st: where its slot's value at st fails it and one
 * process alone, not r, can still store a value it passes on, that
 * process's first such store (S->ran raised past it).  Returns 1 where no
 * store left passes it (it never passes), 0 otherwise, -1 past *work. */
static int wait_needs(struct search *S, const struct sim_state *st, uint32_t r, uint32_t k,
                      uint32_t *work, bool *moved)
{
    const struct sim_model *m = S->m;
    const uint32_t *pc = SIM_PC(m, st);
    const struct sim_op *o = &m->ops[r][k];
    uint32_t w = SIM_NONE, at = SIM_NONE;

    if (ces_wait_holds(m->slot_width[o->slot], o->op->cmp, sval(m, st, o->slot), o->op->value))
        return 0;
    for (uint32_t gi = m->wg_off[o->slot]; gi < m->wg_off[o->slot + 1]; gi++) {
        const struct sim_group *g = &m->wg[gi];
        uint32_t pos = first_hold(m, g, o, pc[g->proc], g->proc == r ? k : m->stop[g->proc],
                                  work);

        if (*work == 0)
            return -1;
        if (pos == SIM_NONE)
            continue;
        if (g->proc == r || w != SIM_NONE)
            return 0; /* several may store it: nothing certain */
        w = g->proc;
        at = pos;
    }
    if (w == SIM_NONE)
        return 1;
    ran_past(m, S->ran, w, at, moved);
    return 0;
}

/* Fills S->ran with the ops of each process that surely ran before op i of
 * process p runs, in an execution from st: those below its program counter
 * (i for p), raised past what an op below it needed to run (wait_needs; an
 * await's record; the ops its links wait for; the ops ahead of it in a
 * shared hardware queue) until nothing moves.  Returns 1 where op i never
 * runs (a wait below it never passes, a link waits for an op past a stop),
 * 0 otherwise, -1 past *work ops and writes looked at. */
static int ran_before(struct search *S, const struct sim_state *st, uint32_t p, uint32_t i,
                      uint32_t *work)
{
    const struct sim_model *m = S->m;
    const uint32_t *pc = SIM_PC(m, st);
    uint32_t *ran = S->ran, *seen = S->seen;
    bool moved = true;

    for (uint32_t r = 0; r < m->nproc; r++)
        ran[r] = seen[r] = pc[r];
    ran[p] = i;
    while (moved) {
        moved = false;
        for (uint32_t r = 0; r < m->nproc; r++)
            for (; seen[r] < ran[r]; seen[r]++) {
                uint32_t k = seen[r];
                const struct sim_op *o = &m->ops[r][k];
                bool ok = true;
                int rc = 0;

                if (*work == 0)
                    return -1;
                (*work)--;
                for (uint32_t j = 0; ok && j < o->nlink; j++)
                    ok = ran_past(m, ran, m->links[o->link + j].proc, m->links[o->link + j].pos,
                                  &moved);
                if (ok && o->cls == SIM_C_AWAIT) {
                    const struct sim_link *rec = ces_sim_await_rec(m, o);

                    ok = ran_past(m, ran, rec->proc, rec->pos, &moved);
                }
                if (ok && queue_behind(m, r, k)) {
                    uint32_t qu = m->queue[r];

                    for (uint32_t j = m->qproc_at[qu]; j < m->qproc_at[qu + 1]; j++) {
                        uint32_t w = m->qproc[j];
                        uint32_t ahead = w == r ? 0 : queue_ahead(m, w, ces_sim_qidx(m, r, k));

                        if (ahead > 0)
                            ran_past(m, ran, w, ahead - 1, &moved);
                    }
                }
                if (ok && o->cls == SIM_C_WAIT)
                    rc = wait_needs(S, st, r, k, work, &moved);
                if (!ok || rc != 0)
                    return ok ? rc : 1;
            }
    }
    return 0;
}

/* Whether op k of process r may take a happens-before edge from an op at
 * or after after[w] of its process w (SIM_NONE: none): a wait on a slot
 * such an op of another process stores a value to that passes it, an
 * await of such a record, an op with a link to such an op. */
static bool takes_from(const struct sim_model *m, const uint32_t *after, uint32_t r, uint32_t k)
{
    const struct sim_op *o = &m->ops[r][k];

    for (uint32_t j = 0; j < o->nlink; j++) {
        const struct sim_link *l = &m->links[o->link + j];

        if (l->pos >= after[l->proc])
            return true;
    }
    if (o->cls == SIM_C_AWAIT) {
        const struct sim_link *rec = ces_sim_await_rec(m, o);

        return rec->pos >= after[rec->proc];
    }
    if (o->cls != SIM_C_WAIT)
        return false;
    for (uint32_t gi = m->wg_off[o->slot]; gi < m->wg_off[o->slot + 1]; gi++) {
        const struct sim_group *g = &m->wg[gi];

        if (g->proc != r && after[g->proc] < m->stop[g->proc] &&
            group_writes(m, g, o->slot, after[g->proc], m->stop[g->proc], o->op->cmp,
                         o->op->value))
            return true;
    }
    return false;
}

/* Fills after with each process's first position whose op is op i of
 * process p or may come after it in happens-before, in an execution from st
 * in which each process r's ops below lo[r] ran before op i (lo NULL: none
 * known): i for p (op i is a source too: the first op of another stream
 * past a block or replay boundary links to it where it is its stream's
 * last before the boundary); for another, its first op at or after its
 * program counter and lo[r] that may take an edge from such an op
 * (takes_from), SIM_NONE
 * where none; by a fixpoint over the processes, stopped early once op k of
 * process q may come after (q SIM_NONE: never).  False past *work ops
 * looked at. */
static bool hb_after(const struct search *S, const struct sim_state *st, uint32_t p,
                     uint32_t i, const uint32_t *lo, uint32_t *after, uint32_t q, uint32_t k,
                     uint32_t *work)
{
    const struct sim_model *m = S->m;
    const uint32_t *pc = SIM_PC(m, st);
    bool moved = true;

    for (uint32_t r = 0; r < m->nproc; r++)
        after[r] = SIM_NONE;
    after[p] = i;
    while (moved) {
        moved = false;
        for (uint32_t r = 0; r < m->nproc; r++) {
            uint32_t j = lo != NULL && lo[r] > pc[r] ? lo[r] : pc[r];
            uint32_t end = after[r] < m->stop[r] ? after[r] : m->stop[r];

            for (; r != p && j < end; j++) {
                if (*work == 0)
                    return false;
                (*work)--;
                if (takes_from(m, after, r, j)) {
                    after[r] = j;
                    moved = true;
                    break;
                }
            }
            if (q != SIM_NONE && after[q] <= k)
                return true;
        }
    }
    return true;
}

/* The regions op touches (a copy's source read, its destination written,
 * a produce's written, a consume's read): how many, into r and w. */
static uint32_t op_regions(const struct ces_op *op, const struct ces_region **r, bool *w)
{
    switch (op->kind) {
    case CES_OP_COPY:
        r[0] = &op->a;
        w[0] = false;
        r[1] = &op->b;
        w[1] = true;
        return 2;
    case CES_OP_PRODUCE:
    case CES_OP_CONSUME:
        r[0] = &op->a;
        w[0] = op->kind == CES_OP_PRODUCE;
        return 1;
    default:
        return 0;
    }
}

/* Whether ops a and b touch a byte in common, one of them writing it. */
static bool ops_conflict(const struct ces_op *a, const struct ces_op *b)
{
    const struct ces_region *ra[2], *rb[2];
    bool wa[2], wb[2];
    uint32_t na = op_regions(a, ra, wa), nb = op_regions(b, rb, wb);

    for (uint32_t x = 0; x < na; x++)
        for (uint32_t y = 0; y < nb; y++)
            if ((wa[x] || wb[y]) && ra[x]->rank == rb[y]->rank && ra[x]->buf == rb[y]->buf &&
                ra[x]->lo < ra[x]->hi && rb[y]->lo < rb[y]->hi && ra[x]->lo < rb[y]->hi &&
                rb[y]->lo < ra[x]->hi)
                return true;
    return false;
}

/* Whether every execution from st that runs data access x (S->racc) races,
 * or none runs it, and which of the accesses run before it (S->below[x]):
 * 1, 0, or -1 past *work.  It races where an access z of another process
 * conflicts with it, every such execution runs z too (before the first
 * position from S->ran where z's process could be left, reach_raise's),
 * and neither can reach the other in happens-before (hb_after: x's ops
 * that ran before it take no edge from it). */
static int runs_racing(struct search *S, const struct sim_state *st, uint32_t x, uint32_t n,
                       uint32_t *work)
{
    const struct sim_model *m = S->m;
    const struct ran_acc *a = &S->racc[x];
    const struct ces_op *op = m->ops[a->proc][a->pos].op;
    int rc = ran_before(S, st, a->proc, a->pos, work);
    bool reached = false;

    S->below[x] = (uint64_t)1 << x;
    if (rc != 0)
        return rc;
    for (uint32_t y = 0; y < n; y++)
        if (S->racc[y].pos < S->ran[S->racc[y].proc])
            S->below[x] |= (uint64_t)1 << y;
    for (uint32_t y = 0; y < n; y++) {
        const struct ran_acc *z = &S->racc[y];

        if (z->proc == a->proc || !ops_conflict(op, m->ops[z->proc][z->pos].op))
            continue;
        if (!reached) { /* (at the first such z) */
            if (!hb_after(S, st, a->proc, a->pos, S->ran, S->after, SIM_NONE, 0, work))
                return -1;
            for (uint32_t q = 0; q < m->nproc; q++)
                S->left[q] = first_block(m, q, S->ran[q]);
            reach_raise(S, st, S->left);
            reached = true;
        }
        if (z->pos >= S->left[z->proc] || S->after[z->proc] <= z->pos)
            continue;
        if (!hb_after(S, st, z->proc, z->pos, NULL, S->back, a->proc, a->pos, work))
            return -1;
        if (S->back[a->proc] > a->pos)
            return 1;
    }
    return 0;
}

/* Whether every consume left that checks its data runs only in
 * executions from st that race, as it does (runs_racing) or an access that
 * ran before it does.  Looks at none where more than RAN_ACCS data
 * accesses are left (up to each process's last that can conflict, and its
 * consumes), or past RAN_WORK ops and writes. */
static bool consumes_race_at(struct search *S, const struct sim_state *st)
{
    const struct sim_model *m = S->m;
    const uint32_t *pc = SIM_PC(m, st);
    uint32_t n = 0, work = RAN_WORK;
    uint64_t consumes = 0, tried = 0, sure = 0;

    for (uint32_t q = 0; q < m->nproc; q++) {
        uint32_t end = m->data_end[q] < m->stop[q] ? m->data_end[q] : m->stop[q];

        for (uint32_t k = pc[q]; k < end; k++) {
            const struct ces_op *op = m->ops[q][k].op;
            bool checks = op->kind == CES_OP_CONSUME && (op->flags & CES_OPF_EXPECT) &&
                          op->a.lo < op->a.hi;

            if (!checks && (k >= m->clock_end[q] || (op->kind != CES_OP_COPY &&
                                                     op->kind != CES_OP_PRODUCE &&
                                                     op->kind != CES_OP_CONSUME)))
                continue;
            if (n == RAN_ACCS)
                return false;
            consumes |= (uint64_t)checks << n;
            S->racc[n].proc = q;
            S->racc[n++].pos = k;
        }
    }
    for (uint32_t x = 0; x < n; x++) {
        int rc;

        if (!(consumes >> x & 1))
            continue;
        rc = runs_racing(S, st, x, n, &work);
        if (rc < 0)
            return false;
        tried |= (uint64_t)1 << x;
        sure |= (uint64_t)(rc > 0) << x;
    }
    for (uint32_t x = 0; x < n; x++) {
        if (!(consumes >> x & 1) || (S->below[x] & sure))
            continue;
        for (uint32_t y = 0; y < n && !(S->below[x] & sure); y++) {
            int rc;

            if (!(S->below[x] >> y & 1) || (tried >> y & 1))
                continue;
            rc = runs_racing(S, st, y, n, &work);
            if (rc < 0)
                return false;
            tried |= (uint64_t)1 << y;
            sure |= (uint64_t)(rc > 0) << y;
        }
        if (!(S->below[x] & sure))
            return false;
    }
    return true;
}

/* Whether consumes_race still looks in this search: within its first
 * RAN_TRIAL looks, or while one in RAN_RATE proved. */
static bool ran_looking(const struct search *S)
{
    return S->ran_looks < RAN_TRIAL || S->ran_sure * RAN_RATE >= S->ran_looks;
}

/* Allocates consumes_race's scratch at its first look, which most checks
 * never make (a reduced exhaustive search of a correct schedule, none):
 * none where it does not fit under the memory bound (it then proves
 * nothing, and the search goes on), and its kept answers, every entry
 * empty, where they fit next to it (it looks without them where not).  An
 * allocation that fails sets S->rc, CES_ERR_NOMEM, as the search's own. */
static void ran_scratch(struct search *S)
{
    size_t P = S->m->nproc, kept = S->ran_kept_bytes, held = mem_now(S);
    size_t need =
        5 * P * sizeof(uint32_t) + RAN_ACCS * (sizeof(struct ran_acc) + sizeof(uint64_t));

    S->ran_alloc = true;
    if (!room(S, held, need))
        return;
    S->ran = ces_malloc(S->ctx, P * sizeof(uint32_t));
    S->seen = ces_malloc(S->ctx, P * sizeof(uint32_t));
    S->left = ces_malloc(S->ctx, P * sizeof(uint32_t));
    S->after = ces_malloc(S->ctx, P * sizeof(uint32_t));
    S->back = ces_malloc(S->ctx, P * sizeof(uint32_t));
    S->racc = ces_malloc(S->ctx, RAN_ACCS * sizeof(struct ran_acc));
    S->below = ces_malloc(S->ctx, RAN_ACCS * sizeof(uint64_t));
    if (S->ran == NULL || S->seen == NULL || S->left == NULL || S->after == NULL ||
        S->back == NULL || S->racc == NULL || S->below == NULL) {
        ces_free(S->ctx, S->racc);
        S->racc = NULL; /* (consumes_race: none; the rest freed with S) */
        if (S->rc == CES_OK)
            S->rc = CES_ERR_NOMEM;
        return;
    }
    S->scratch_bytes += need;
    if (kept > 0 && room(S, held + need, kept)) {
        S->ran_kept = ces_malloc(S->ctx, kept);
        if (S->ran_kept == NULL && S->rc == CES_OK)
            S->rc = CES_ERR_NOMEM;
    }
    if (S->ran_kept != NULL) {
        memset(S->ran_kept, 0xff, kept); /* SIM_NONE last: every entry empty */
        S->scratch_bytes += kept;
    }
    if (mem_now(S) > S->stats.peak_memory)
        S->stats.peak_memory = mem_now(S);
}

/* Whether no execution from st sets a MISMATCH without a race
 * (docs/SEMANTICS.md section 10, "Consumes that only racing executions
 * run"): none is pending, and consumes_race_at.  Its answer depends on the
 * program counters and the slot values alone, and is kept under them in
 * S->ran_kept (one entry per hash, a later replacing an earlier) where
 * they are at most RAN_KEY words and the table fit at the first look.
 * Keys of the same program counters meet with other values of a slot a
 * wait is left on, which tell them apart: two stores to it in either
 * order (a flag's reset and a peer's raise; test_kept_values).  They do
 * so only where the hash puts them in one entry and no key came between:
 * with every key in one entry (ces_sim_kept_slot none), the next key
 * with s's program counters after s's is that of a state t reached from
 * a state on s's path (the initial state, or one looked at before s: one
 * entered after s would have taken the entry, unless every execution
 * from it, and so from t, races) by at most one step and the eager ones;
 * those store only to slots no wait is left on, so of those with one (all
 * that consumes_race_at reads) at most the step's slot changed, by the
 * store that the path to s made too: the values are s's. */
static bool consumes_race(struct search *S, const struct sim_state *st)
{
    const struct sim_model *m = S->m;
    const uint32_t *pc = SIM_PC(m, st), *val = st->w + m->w_val;
    size_t P = m->nproc, nv = 2 * (size_t)m->nslots;
    size_t nh = ces_sim_kept_vals ? nv : 0; /* (the words hashed) */
    uint64_t h = 0;
    uint32_t *e;
    bool sure;

    if ((SIM_FLAGS(st) & SIM_F_MISMATCH) || !ran_looking(S))
        return false;
    if (!S->ran_alloc)
        ran_scratch(S);
    if (S->racc == NULL)
        return false;
    if (S->ran_kept == NULL) {
        S->ran_looks++;
        sure = consumes_race_at(S, st);
        S->ran_sure += sure;
        return sure;
    }
    for (size_t i = 0; i < P; i++)
        h = (h ^ pc[i]) * UINT64_C(0x9E3779B97F4A7C15);
    for (size_t i = 0; i < nh; i++)
        h = (h ^ val[i]) * UINT64_C(0x9E3779B97F4A7C15);
    h &= ces_sim_kept_slot;
    e = S->ran_kept + (size_t)((h >> 32) & (RAN_KEPT - 1)) * (P + nv + 1);
    if (e[P + nv] != SIM_NONE && memcmp(e, pc, P * sizeof(uint32_t)) == 0 &&
        memcmp(e + P, val, nv * sizeof(uint32_t)) == 0)
        return e[P + nv] != 0;
    S->ran_looks++;
    sure = consumes_race_at(S, st);
    S->ran_sure += sure;
    memcpy(e, pc, P * sizeof(uint32_t));
    memcpy(e + P, val, nv * sizeof(uint32_t));
    e[P + nv] = sure;
    return sure;
}

static int slice_try(struct search *S);
static int sample(struct search *S);

/* Whether every class of defect an execution from st could still show has
 * been found already, so that following st cannot change the verdict
 * (docs/SEMANTICS.md, section 10, "Classes already found").  A RACE or
 * MISMATCH needs a data access left (or a mismatch pending), unless a
 * sliced search proved that none can occur (tried here once enough states
 * are stored, where it is all that keeps st going), a MISMATCH left alone a
 * race-free execution (none where st's has raced already or every execution
 * from st races), a DEADLOCK a cycle
 * (cycle_possible), a HANG a process left.  A sliced search takes a
 * DEADLOCK and a HANG as found.  Not with the watchdog model (its execution
 * is reported) nor with --max-depth (a cut must be seen). */
static bool nothing_new(struct search *S, const struct sim_state *st)
{
    const struct sim_model *m = S->m;
    bool ends = S->have[SIM_D_DEADLOCK] || S->data_only;

    if (m->abort_mode || S->o->max_depth > 0 || !(S->have[SIM_D_HANG] || S->data_only))
        return false;
    if ((!S->have[SIM_D_RACE] || !S->have[SIM_D_MISMATCH]) && S->sliced == 0 &&
        (ces_sim_data_left(m, SIM_PC(m, st)) || (SIM_FLAGS(st) & SIM_F_MISMATCH)) &&
        !(S->have[SIM_D_RACE] &&
          ((SIM_FLAGS(st) & SIM_F_RACE) || race_sure(S, st) || consumes_race(S, st)))) {
        int rc;

        /* (the schedule without some signals has every RACE it has: once
         * one is found, a MISMATCH cannot be ruled out so) */
        if (S->have[SIM_D_RACE] || S->stats.states - S->stats.slice_states < S->slice_next ||
            (!ends && cycle_possible(S, st)))
            return false;
        rc = slice_try(S);
        if (rc != CES_OK && S->rc == CES_OK)
            S->rc = rc;
        return S->sliced != 0;
    }
    return ends || !cycle_possible(S, st);
}

/* --- exhaustive search ------------------------------------------------------ */

/* Makes frame i exist (its state not yet); the memory bound may refuse
 * (S->bound set, CES_OK). */
static int frame_at(struct search *S, size_t i)
{
    if (i >= S->capframes) {
        size_t ncap = S->capframes ? 2 * S->capframes : 64;
        struct frame *nf;

        if (!fits(S, (ncap - S->capframes) * (sizeof(struct frame) +
                                              S->m->nproc * sizeof(uint32_t)),
                  "growing the search stack"))
            return CES_OK;
        nf = ces_realloc(S->ctx, S->frames, ncap * sizeof(struct frame));
        if (nf == NULL)
            return CES_ERR_NOMEM;
        memset(nf + S->capframes, 0, (ncap - S->capframes) * sizeof(struct frame));
        S->frames = nf;
        S->capframes = ncap;
    }
    if (S->frames[i].choice == NULL) {
        S->frames[i].choice = ces_malloc(S->ctx, S->m->nproc * sizeof(uint32_t));
        if (S->frames[i].choice == NULL)
            return CES_ERR_NOMEM;
    }
    return CES_OK;
}

/* No process can step: an end state. */
static bool at_end(const struct sim_model *m, const struct sim_state *st)
{
    for (uint32_t p = 0; p < m->nproc; p++)
        if (can_step(m, st, p))
            return false;
    return true;
}

/* A new frame's state was just reached by a step: run its invisible steps,
 * look it up, and either mark it done or list its choices. */
static int enter(struct search *S, struct frame *f, uint32_t parent_flags)
{
    bool seen;
    int rc = CES_OK;

    if (S->reduce)
        rc = eager(S, &f->st, true);
    if (rc != CES_OK)
        return rc;
    f->trace_len = (uint32_t)S->trace.len;
    if ((SIM_FLAGS(&f->st) & SIM_F_RACE) && !(parent_flags & SIM_F_RACE))
        note(S, SIM_D_RACE);
    f->nchoice = 0;
    f->next = 0;
    if (S->bound == 1) /* (eager may have stopped short: the search ends here) */
        return CES_OK;
    /* The second search follows race-free executions that can still set a
     * mismatch (none where every execution races), and stores nothing
     * else. */
    if (S->race_free && ((SIM_FLAGS(&f->st) & SIM_F_RACE) ||
                         (!(SIM_FLAGS(&f->st) & SIM_F_MISMATCH) &&
                          !ces_sim_data_left(S->m, SIM_PC(S->m, &f->st))) ||
                         (!S->m->abort_mode && race_sure(S, &f->st)) ||
                         (!S->m->abort_mode && S->o->max_depth == 0 &&
                          consumes_race(S, &f->st))))
        return CES_OK;
    if (S->o->max_depth > 0 && S->trace.len >= S->o->max_depth && !at_end(S->m, &f->st)) {
        /* not followed further, not judged, not stored (a shorter path
         * to it may still come); an end state at the bound is judged */
        S->cut = true;
        if (S->trace.len > S->stats.max_depth)
            S->stats.max_depth = S->trace.len;
        return CES_OK;
    }
    rc = visit(S, &f->st, &seen);
    if (rc != CES_OK || seen)
        return rc;
    if (S->stats.states - S->stats.slice_states >= S->sample_next) {
        rc = sample(S);
        if (rc != CES_OK || S->bound)
            return rc;
    }
    if (S->reduce && nothing_new(S, &f->st))
        return S->rc;
    choose(S, f);
    if (f->nchoice == 0)
        rc = terminal(S, &f->st);
    return rc;
}

static int exhaustive(struct search *S)
{
    const struct sim_model *m = S->m;
    int rc;

    rc = frame_at(S, 0);
    if (rc == CES_OK && !S->bound && S->frames[0].st.w != NULL) { /* the second search */
        ces_sim_state_free(m, &S->frames[0].st);
        S->nalloc--;
    }
    if (rc == CES_OK && !S->bound)
        rc = initial_state(S, &S->frames[0].st);
    if (rc != CES_OK || S->bound)
        return rc;
    if (!S->init_seen && S->cyc != NULL) /* (the state is stepped in place from here) */
        S->init_cycle = cycle_possible(S, &S->frames[0].st);
    S->init_seen = true;
    S->frame_bytes = ces_sim_state_bytes(m, &S->frames[0].st);
    S->nframes = 1;
    S->nalloc++;
    rc = enter(S, &S->frames[0], 0);
    while (rc == CES_OK && S->nframes > 0 && !S->bound) {
        struct frame *f = &S->frames[S->nframes - 1];
        struct frame *g;
        uint32_t p;

        if (f->next >= f->nchoice) {
            S->nframes--;
            continue;
        }
        p = f->choice[f->next++];
        if (f->nchoice == 1) {
            /* The only choice: the frame is never revisited, so its state
             * becomes its child's in place (the stack holds branch points
             * only). */
            uint32_t flags = SIM_FLAGS(&f->st);

            S->trace.len = f->trace_len;
            rc = step(S, &f->st, p);
            if (rc == CES_OK)
                rc = enter(S, f, flags);
            continue;
        }
        rc = frame_at(S, S->nframes);
        if (rc != CES_OK || S->bound)
            break;
        f = &S->frames[S->nframes - 1];
        g = &S->frames[S->nframes];
        if (g->st.w == NULL) {
            /* a new frame state: respect the memory bound before taking it */
            if (!fits(S, S->frame_bytes, "one more state on the search stack"))
                break;
            S->nalloc++;
        }
        S->nframes++;
        rc = ces_sim_state_copy(m, &g->st, &f->st);
        if (rc != CES_OK)
            break;
        S->trace.len = f->trace_len;
        rc = step(S, &g->st, p);
        if (rc == CES_OK)
            rc = enter(S, g, SIM_FLAGS(&f->st));
        if (S->nframes > S->stats.max_depth)
            S->frame_bytes = ces_sim_state_bytes(m, &g->st);
    }
    if (rc == CES_OK && S->rc != CES_OK)
        rc = S->rc;
    S->stats.complete = rc == CES_OK && !S->bound && !S->cut;
    return rc;
}

/* The second search (docs/SEMANTICS.md section 10, "Waits run early"):
 * where the first ran a wait early that could have observed a later store,
 * or left out a raise lost under a write that no wait reads while a race
 * could still follow (item 4 where data_kept fails), and found a RACE but
 * no MISMATCH, a race-free execution it left for one with a race may hold
 * a MISMATCH.  The search without those, over race-free executions only,
 * looks for one, and stops at the first. */
static int race_free_search(struct search *S)
{
    int rc;

    if ((S->lifted == 0 && S->unjudged == 0) || !S->have[SIM_D_RACE] ||
        S->have[SIM_D_MISMATCH] || S->bound)
        return CES_OK;
    S->lift = false;
    S->race_free = true;
    S->ran_looks = 0;
    S->ran_sure = 0;
    if (S->tab != NULL)
        memset(S->tab, 0, S->tabcap * 2 * sizeof(uint64_t));
    S->tabn = 0;
    S->trace.len = 0;
    rc = exhaustive(S);
    S->race_free = false;
    if (S->bound == 3)
        S->bound = 0;
    S->stats.complete = rc == CES_OK && !S->bound && !S->cut;
    return rc;
}

/* --- random executions and replays ------------------------------------------ */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));

    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Runs from st to an end state: eager invisible steps, then at each choice
 * the lowest enabled process (random executions have run_fast below). */
static int run_out(struct search *S, struct sim_state *st)
{
    const struct sim_model *m = S->m;
    int rc = CES_OK;

    for (;;) {
        uint32_t ne = 0, before = SIM_FLAGS(st);

        rc = eager(S, st, false);
        if (rc != CES_OK)
            return rc;
        if ((SIM_FLAGS(st) & SIM_F_RACE) && !(before & SIM_F_RACE))
            note(S, SIM_D_RACE);
        if (S->bound == 1) /* (eager may have stopped short of an end state) */
            return CES_OK;
        for (uint32_t p = 0; p < m->nproc; p++)
            if (ces_sim_status(m, st, p) == SIM_S_VISIBLE)
                S->enabled[ne++] = p;
        if (ne == 0)
            return terminal(S, st);
        before = SIM_FLAGS(st);
        rc = step(S, st, S->enabled[0]);
        if (rc != CES_OK)
            return rc;
        if ((SIM_FLAGS(st) & SIM_F_RACE) && !(before & SIM_F_RACE))
            note(S, SIM_D_RACE);
        if (S->bound)
            return CES_OK;
    }
}

static void fast_eval(const struct sim_model *m, const struct sim_state *st, struct fast *F,
                      uint32_t q)
{
    int s = ces_sim_status(m, st, q);

    if (s == SIM_S_VISIBLE && F->vpos[q] == SIM_NONE) {
        F->vpos[q] = F->nvis;
        F->vis[F->nvis++] = q;
    } else if (s != SIM_S_VISIBLE && F->vpos[q] != SIM_NONE) {
        uint32_t i = F->vpos[q], last = F->vis[--F->nvis];

        F->vis[i] = last;
        F->vpos[last] = i;
        F->vpos[q] = SIM_NONE;
    }
    if (s == SIM_S_INVISIBLE && !F->ininv[q]) {
        F->ininv[q] = 1;
        F->inv[F->ninv++] = q;
    }
}

/* Re-examines whoever p's last step (its op at position k) may have
 * changed. */
static void fast_after(const struct sim_model *m, const struct sim_state *st, struct fast *F,
                       uint32_t p, uint32_t k)
{
    const struct sim_op *o = &m->ops[p][k];
    const uint32_t *pc = SIM_PC(m, st);

    fast_eval(m, st, F, p);
    if (m->shared_queues || m->nrec > 0) {
        uint32_t r = p / m->streams;

        for (uint32_t y = 0; y < m->streams; y++)
            fast_eval(m, st, F, r * m->streams + y);
    }
    if (o->cls == SIM_C_WRITE && !o->dropped) {
        for (uint32_t gi = m->tg_off[o->slot]; gi < m->tg_off[o->slot + 1]; gi++) {
            const struct sim_group *g = &m->tg[gi];
            uint32_t i = seek(m->wt, g, pc[g->proc]);

            if (i < g->hi && m->wt[i].pos == pc[g->proc])
                fast_eval(m, st, F, g->proc);
        }
    }
}

static int run_fast(struct search *S, struct sim_state *st, struct fast *F, uint64_t *rng)
{
    const struct sim_model *m = S->m;
    int rc = CES_OK;

    F->nvis = 0;
    F->ninv = 0;
    for (uint32_t p = 0; p < m->nproc; p++) {
        F->vpos[p] = SIM_NONE;
        F->ininv[p] = 0;
    }
    for (uint32_t p = 0; p < m->nproc; p++)
        fast_eval(m, st, F, p);
    for (;;) {
        uint32_t p, k, before = SIM_FLAGS(st);

        if (F->ninv > 0) {
            p = F->inv[--F->ninv];
            F->ininv[p] = 0;
            if (ces_sim_status(m, st, p) != SIM_S_INVISIBLE) {
                fast_eval(m, st, F, p);
                continue;
            }
        } else if (F->nvis > 0) {
            p = F->vis[rng_next(rng) % F->nvis];
        } else {
            return terminal(S, st);
        }
        k = SIM_PC(m, st)[p];
        rc = step(S, st, p);
        if (rc != CES_OK)
            return rc;
        if ((SIM_FLAGS(st) & SIM_F_RACE) && !(before & SIM_F_RACE))
            note(S, SIM_D_RACE);
        fast_after(m, st, F, p, k);
        if (S->bound)
            return CES_OK;
    }
}

/* Readies random executions (once): fast's scratch, the initial state and
 * the state an execution runs on; the memory bound may refuse (S->bound
 * set, CES_OK). */
static int random_setup(struct search *S)
{
    struct fast *F = &S->fast;
    uint32_t P = S->m->nproc;
    int rc;

    if (S->run.w != NULL)
        return CES_OK;
    if (F->vis == NULL) {
        F->vis = ces_malloc(S->ctx, P * sizeof(uint32_t));
        F->vpos = ces_malloc(S->ctx, P * sizeof(uint32_t));
        F->inv = ces_malloc(S->ctx, P * sizeof(uint32_t));
        F->ininv = ces_malloc(S->ctx, P);
    }
    if (F->vis == NULL || F->vpos == NULL || F->inv == NULL || F->ininv == NULL)
        return CES_ERR_NOMEM;
    if (S->init.w == NULL) {
        rc = initial_state(S, &S->init);
        if (rc != CES_OK || S->bound)
            return rc;
        if (S->frame_bytes == 0) /* (random mode: no search stack measured it) */
            S->frame_bytes = ces_sim_state_bytes(S->m, &S->init);
        S->nalloc++;
    }
    if (!fits(S, S->frame_bytes, "the state an execution runs on"))
        return CES_OK;
    S->nalloc++;
    return ces_sim_state_copy(S->m, &S->run, &S->init);
}

/* One random execution from the initial state (random_setup done). */
static int random_one(struct search *S)
{
    int rc = ces_sim_state_copy(S->m, &S->run, &S->init);

    S->trace.len = 0;
    return rc == CES_OK ? run_fast(S, &S->run, &S->fast, &S->rng) : rc;
}

static int random_mode(struct search *S)
{
    int rc = random_setup(S);

    S->rng = S->o->seed;
    for (uint64_t i = 0; rc == CES_OK && i < S->o->random && !S->bound; i++)
        rc = random_one(S);
    S->stats.complete = rc == CES_OK && !S->bound;
    return rc;
}

/* --- classes found by sampling (docs/SEMANTICS.md section 10) ------------- */

/* An exhaustive search runs a burst of random executions once it has stored
 * 4096 states of its own (ces_sim_sample_at), and again each time they have
 * doubled; a burst takes as many transitions as the search has stored
 * states, at least 65536 (ces_sim_sample_least), and what an execution
 * longer than that takes past it pays for the bursts after it (sample).
 * (Tests set both lower.) */
uint64_t ces_sim_sample_at = 4096, ces_sim_sample_least = 65536;

/* A burst: random executions from the initial state, on a trace of their
 * own, until they have taken their transitions or found every class the
 * search looks for; what they find is found (and prunes as such).  An
 * execution runs to its end, past the budget where it is longer: the next
 * burst, where that excess covers its budget, is not run, so that the bursts
 * of a long program, each one execution of its length, take that length at
 * every other doubling of the states (2 ranks of 'Awaits in a long program'
 * x100000 in docs/PERFORMANCE.md: 7 bursts of one execution of 1.4 million
 * transitions each, where their budgets were 720,896; now 4).  The excess
 * covers one burst at most: a class that only a random execution finds in
 * a long program is found one doubling later, not many. */
static int sample(struct search *S)
{
    uint64_t own = S->stats.states - S->stats.slice_states;
    uint64_t budget = own > ces_sim_sample_least ? own : ces_sim_sample_least;
    uint64_t t0 = S->stats.transitions, x0 = S->stats.executions, taken;
    struct ces_vec keep = S->trace;
    int rc;

    S->sample_next = 2 * own;
    if (S->sample_over >= budget) {
        S->sample_over = 0;
        return CES_OK;
    }
    rc = random_setup(S);
    S->trace = S->strace;
    S->sampling = true;
    /* (an execution counts a step at least: the initial state may be an
     * end state) */
    while (rc == CES_OK && !S->bound &&
           S->stats.transitions - t0 + S->stats.executions - x0 < budget &&
           !(S->have[SIM_D_DEADLOCK] && S->have[SIM_D_HANG] && S->have[SIM_D_RACE] &&
             S->have[SIM_D_MISMATCH]))
        rc = random_one(S);
    S->sampling = false;
    taken = S->stats.transitions - t0 + S->stats.executions - x0;
    S->sample_over = taken > budget ? taken - budget : 0;
    S->strace = S->trace;
    S->trace = keep;
    S->stats.sample_executions += S->stats.executions - x0;
    return rc;
}

int ces_sim_follow(const struct sim_model *m, struct sim_state *st, const uint32_t *trace,
                   size_t n, struct sim_detail *d, struct ces_vec *steps, struct ces_vec *aborted)
{
    int rc = CES_OK;

    for (size_t i = 0; i < n && rc == CES_OK; i++) {
        uint32_t p = trace[i];
        int status;

        if (p >= m->nproc)
            return ces_ctx_error(m->ctx, CES_ERR_INVALID,
                                 "replay step %zu: process %" PRIu32 " does not exist (%" PRIu32
                                 " streams in all)", i + 1, p, m->nproc);
        status = ces_sim_status(m, st, p);
        if (status != SIM_S_VISIBLE && status != SIM_S_INVISIBLE && m->abort_mode &&
            !(SIM_FLAGS(st) & SIM_F_ABORTED) && ces_sim_stuck(m, st)) {
            SIM_FLAGS(st) |= SIM_F_ABORTED;
            status = ces_sim_status(m, st, p);
        }
        if (status != SIM_S_VISIBLE && status != SIM_S_INVISIBLE) {
            /* A step the string has where the process cannot take one: most
             * often a replay under other options than its check's.  Where
             * it is held back, the watchdog model would have released it
             * once nothing could step, so without it the hint names it
             * first. */
            bool held = status != SIM_S_DONE && status != SIM_S_STOPPED;

            return ces_ctx_error(m->ctx, CES_ERR_INVALID,
                                 "replay step %zu: r%" PRIu32 ".s%" PRIu32
                                 " cannot take a step there (it is %s; a replay %s the same "
                                 "--fault and --queues options as its check)",
                                 i + 1, p / m->streams, p % m->streams,
                                 status == SIM_S_DONE      ? "finished"
                                 : status == SIM_S_STOPPED ? "stopped by a fault"
                                 : status == SIM_S_QUEUE   ? "behind its queue head"
                                 : status == SIM_S_LINK    ? "waiting for its rank's other "
                                                             "streams to finish the earlier "
                                                             "blocks and replays"
                                                           : "blocked",
                                 held && !m->abort_mode ? "of a watchdog's execution needs "
                                                          "--abort, and"
                                                        : "needs");
        }
        if (d != NULL)
            d->step = (uint32_t)i + 1;
        {
            uint32_t k = SIM_PC(m, st)[p];

            rc = ces_sim_exec(m, st, p, d);
            if (rc == CES_OK && steps != NULL && d != NULL) {
                struct ces_check_step s;

                memset(&s, 0, sizeof(s));
                ces_sim_pos(m, p, k, &s.pos);
                s.kind = d->kind;
                s.has_value = d->has_value;
                s.value = d->value;
                rc = ces_vec_push(m->ctx, steps, sizeof(s), &s);
                if (rc == CES_OK && aborted != NULL && d->released)
                    rc = ces_vec_push(m->ctx, aborted, sizeof(s.pos), &s.pos);
            }
        }
    }
    return rc;
}

static int replay_mode(struct search *S)
{
    struct ces_vec tr = {0};
    struct sim_state st = {0};
    int rc;

    rc = ces_sim_replay_parse(S->ctx, S->m, S->o->replay, &tr);
    if (rc == CES_OK)
        rc = initial_state(S, &st);
    if (rc == CES_OK && S->bound)
        goto out;
    if (rc == CES_OK) {
        S->frame_bytes = ces_sim_state_bytes(S->m, &st);
        S->nalloc = 1;
        rc = ces_sim_follow(S->m, &st, tr.data, tr.len, NULL, NULL, NULL);
    }
    if (rc == CES_OK) {
        rc = ces_vec_reserve(S->ctx, &S->trace, sizeof(uint32_t), tr.len);
        if (rc == CES_OK) {
            if (tr.len > 0) /* an empty replay string has no storage */
                memcpy(S->trace.data, tr.data, tr.len * sizeof(uint32_t));
            S->trace.len = tr.len;
            S->stats.transitions = tr.len;
            if (SIM_FLAGS(&st) & SIM_F_RACE)
                note(S, SIM_D_RACE);
            /* on to an end state (a trace that stopped inside a drain
             * finishes it: everything is invisible once aborted) */
            rc = run_out(S, &st);
        }
    }
out:
    S->stats.complete = rc == CES_OK && !S->bound;
    ces_sim_state_free(S->m, &st);
    ces_vec_free(S->ctx, &tr);
    return rc;
}

/* --- replay strings ---------------------------------------------------------- */

/* Format: process numbers (rank * streams + stream) separated by '.', a run
 * of one process written Pn*K; e.g. "0.1*3.2". */
int ces_sim_replay_format(struct ces_ctx *ctx, const uint32_t *trace, size_t n, char **out)
{
    struct ces_sb sb;

    ces_sb_init(&sb, ctx);
    for (size_t i = 0; i < n;) {
        size_t j = i;

        while (j < n && trace[j] == trace[i])
            j++;
        ces_sb_printf(&sb, "%s%" PRIu32, i == 0 ? "" : ".", trace[i]);
        if (j - i > 1)
            ces_sb_printf(&sb, "*%zu", j - i);
        i = j;
    }
    if (n == 0)
        ces_sb_puts(&sb, "");
    return ces_sb_finish(&sb, out, NULL);
}

/* Steps a replay string may give: far more than any execution the checker
 * reports, and 64 MiB of trace at most. */
#define REPLAY_MAX_STEPS (1u << 24)

/* "replay string, offset N: WHAT, found 'C'" (or "found the end"). */
static int replay_error(struct ces_ctx *ctx, const char *text, const char *at, const char *what)
{
    if (*at == '\0')
        return ces_ctx_error(ctx, CES_ERR_INVALID, "replay string, offset %zu: %s, found the end",
                             (size_t)(at - text), what);
    return ces_ctx_error(ctx, CES_ERR_INVALID, "replay string, offset %zu: %s, found '%c'",
                         (size_t)(at - text), what, *at);
}

int ces_sim_replay_parse(struct ces_ctx *ctx, const struct sim_model *m, const char *text,
                         struct ces_vec *trace)
{
    const char *s = text;
    size_t steps = 0;
    int rc = CES_OK;

    while (*s != '\0' && rc == CES_OK) {
        char *end;
        const char *ps = s; /* the number as written (strtoull saturates) */
        size_t plen;
        unsigned long long p, k = 1;

        if (*s < '0' || *s > '9')
            return replay_error(ctx, text, s, "expected a stream number");
        p = strtoull(s, &end, 10);
        s = end;
        plen = (size_t)(s - ps);
        if (*s == '*') {
            s++;
            if (*s < '0' || *s > '9')
                return replay_error(ctx, text, s, "expected a repeat count after '*'");
            k = strtoull(s, &end, 10);
            if (k == 0)
                return ces_ctx_error(ctx, CES_ERR_INVALID,
                                     "replay string, offset %zu: a repeat count is at least 1",
                                     (size_t)(s - text));
            s = end;
        }
        if (m != NULL && p >= m->nproc)
            return ces_ctx_error(ctx, CES_ERR_INVALID,
                                 "replay string, offset %zu: stream number %.*s%s out of range "
                                 "(0..%" PRIu32 ")", (size_t)(ps - text), CES_SHOWN_LEN(plen), ps,
                                 CES_SHOWN_MORE(plen), m->nproc - 1);
        if (m == NULL && p >= (unsigned long long)CES_MAX_RANKS * CES_MAX_STREAMS)
            return ces_ctx_error(ctx, CES_ERR_INVALID,
                                 "replay string, offset %zu: stream number %.*s%s out of range "
                                 "(0..%u: a schedule has at most %u ranks of %u streams)",
                                 (size_t)(ps - text), CES_SHOWN_LEN(plen), ps,
                                 CES_SHOWN_MORE(plen), CES_MAX_RANKS * CES_MAX_STREAMS - 1,
                                 CES_MAX_RANKS, CES_MAX_STREAMS);
        if (k > REPLAY_MAX_STEPS - steps)
            return ces_ctx_error(ctx, CES_ERR_INVALID, "replay string: more than %u steps",
                                 REPLAY_MAX_STEPS);
        steps += (size_t)k;
        for (unsigned long long i = 0; i < k && rc == CES_OK && trace != NULL; i++) {
            uint32_t v = (uint32_t)p;

            rc = ces_vec_push(ctx, trace, sizeof(v), &v);
        }
        if (*s == '.') {
            s++;
            if (*s == '\0') /* a '.' joins two steps: it does not end the string */
                return replay_error(ctx, text, s, "expected a stream number");
        } else if (*s != '\0')
            return replay_error(ctx, text, s, "expected '.' or the end");
    }
    return rc;
}

/* --- the entry point ------------------------------------------------------------ */

void ces_check_opts_init(struct ces_check_opts *o)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof(*o));
    o->progress_seconds = 2.0;
}

static void search_free(struct search *S)
{
    for (size_t i = 0; i < S->capframes && S->frames != NULL; i++) {
        if (S->frames[i].st.w != NULL)
            ces_sim_state_free(S->m, &S->frames[i].st);
        ces_free(S->ctx, S->frames[i].choice);
    }
    ces_free(S->ctx, S->frames);
    if (S->tmp.w != NULL)
        ces_sim_state_free(S->m, &S->tmp);
    for (int d = 0; d < SIM_D_COUNT; d++)
        ces_vec_free(S->ctx, &S->best[d]);
    ces_vec_free(S->ctx, &S->trace);
    ces_vec_free(S->ctx, &S->strace);
    if (S->init.w != NULL)
        ces_sim_state_free(S->m, &S->init);
    if (S->run.w != NULL)
        ces_sim_state_free(S->m, &S->run);
    ces_free(S->ctx, S->fast.vis);
    ces_free(S->ctx, S->fast.vpos);
    ces_free(S->ctx, S->fast.inv);
    ces_free(S->ctx, S->fast.ininv);
    ces_free(S->ctx, S->tab);
    ces_free(S->ctx, S->hz);
    ces_free(S->ctx, S->hz_gen);
    ces_free(S->ctx, S->inT);
    ces_free(S->ctx, S->work);
    ces_free(S->ctx, S->enabled);
    ces_free(S->ctx, S->cyc);
    ces_free(S->ctx, S->wf);
    ces_free(S->ctx, S->src_end);
    ces_free(S->ctx, S->reach);
    ces_free(S->ctx, S->hist);
    ces_free(S->ctx, S->rd_proc);
    ces_free(S->ctx, S->rd_pos);
    ces_free(S->ctx, S->sure);
    ces_free(S->ctx, S->ran);
    ces_free(S->ctx, S->seen);
    ces_free(S->ctx, S->left);
    ces_free(S->ctx, S->after);
    ces_free(S->ctx, S->back);
    ces_free(S->ctx, S->racc);
    ces_free(S->ctx, S->below);
    ces_free(S->ctx, S->ran_kept);
}

/* Sizes wait_for_cycle's scratch to S's model: its positions are ops
 * before a stop, at most PRUNE_OPS (cycle_possible), and the ops they wait
 * for at most those ops and graph_ops of every op (cycle_at), at most
 * PRUNE_WORK. */
static void wf_size(struct search *S)
{
    const struct sim_model *m = S->m;
    uint64_t ops = 0, work;

    for (uint32_t p = 0; p < m->nproc; p++)
        ops += m->stop[p];
    work = ops + graph_ops(m, NULL);
    S->wf_ops = (uint32_t)(ops < PRUNE_OPS ? ops : PRUNE_OPS);
    S->wf_work = (uint32_t)(work < PRUNE_WORK ? work : PRUNE_WORK);
}

/* Starts the clock and allocates the reduction's scratch for S (its ctx,
 * o, m, reduce and stats.mode set); the memory bound may refuse it (S->bound
 * set, CES_OK). */
static int search_setup(struct search *S)
{
    struct sim_model *m = (struct sim_model *)S->m;
    const struct ces_check_opts *o = S->o;
    bool exhaustive = S->stats.mode == CES_CHECK_EXHAUSTIVE;
    size_t P = m->nproc, cyc, wf = 0, kept, scratch;

    m->hashed = exhaustive;
    /* the clock counts from the model's building on where the caller
     * started it there (the time bound holds it too) */
    if (S->t0 == 0)
        S->t0 = ces_now();
    S->last_clock = S->t0;
    S->tick_max = tick_max(m, exhaustive);
    S->next_progress = S->t0 + ces_sim_progress_every(o);
    /* the building's progress lines go on at their pace, and its memory
     * counts in the peak (a table it cleared and freed again included) */
    if (m->next_progress > S->next_progress)
        S->next_progress = m->next_progress;
    if (m->peak > S->stats.peak_memory)
        S->stats.peak_memory = m->peak;
    /* cycle_possible's answers, in the reduced exhaustive search only */
    cyc = S->reduce && exhaustive && graph_fits(m) ? PRUNE_KEPT * (P + 2) * sizeof(uint32_t) : 0;
    if (cyc > 0) {
        wf_size(S);
        wf = (3 * P + 12 * (size_t)S->wf_ops + 2 + 2 * (size_t)S->wf_work) * sizeof(uint32_t);
    }
    /* and consumes_race's (their size: they are allocated at its first
     * look, ran_scratch, with its other scratch) */
    kept = S->reduce && exhaustive && P + 2 * (size_t)m->nslots + 1 <= RAN_KEY
               ? RAN_KEPT * (P + 2 * (size_t)m->nslots + 1) * sizeof(uint32_t)
               : 0;
    scratch = P * P * sizeof(uint32_t) + 6 * P * sizeof(uint32_t) + P + cyc + wf +
              SURE_ACCS * sizeof(struct sure_acc) + 2 * (size_t)m->nrec * sizeof(uint32_t);
    if (!fits(S, scratch, "the reduction's scratch"))
        return CES_OK;
    S->hz = ces_malloc(S->ctx, P * P * sizeof(uint32_t));
    S->hz_gen = ces_malloc(S->ctx, P * sizeof(uint32_t));
    S->inT = ces_malloc(S->ctx, P);
    S->work = ces_malloc(S->ctx, P * sizeof(uint32_t));
    S->enabled = ces_malloc(S->ctx, P * sizeof(uint32_t));
    S->cyc = cyc > 0 ? ces_malloc(S->ctx, cyc) : NULL;
    S->wf = wf > 0 ? ces_malloc(S->ctx, wf) : NULL;
    S->src_end = ces_malloc(S->ctx, P * sizeof(uint32_t));
    S->reach = ces_malloc(S->ctx, P * sizeof(uint32_t));
    S->hist = ces_malloc(S->ctx, P * sizeof(uint32_t));
    S->sure = ces_malloc(S->ctx, SURE_ACCS * sizeof(struct sure_acc));
    S->rd_proc = ces_malloc(S->ctx, (m->nrec ? m->nrec : 1) * sizeof(uint32_t));
    S->rd_pos = ces_malloc(S->ctx, (m->nrec ? m->nrec : 1) * sizeof(uint32_t));
    if (S->hz == NULL || S->hz_gen == NULL || S->inT == NULL || S->work == NULL ||
        S->enabled == NULL || (cyc > 0 && (S->cyc == NULL || S->wf == NULL)) ||
        S->src_end == NULL || S->reach == NULL || S->hist == NULL || S->sure == NULL ||
        S->rd_proc == NULL || S->rd_pos == NULL)
        return ces_ctx_error(S->ctx, CES_ERR_NOMEM, "out of memory starting the check");
    /* race_sure's: past each process's last write, record or op that a
     * later block's links wait for */
    for (uint32_t p = 0; p < P; p++) {
        S->src_end[p] = 0;
        for (uint32_t k = 0; k < m->stop[p]; k++) {
            const struct sim_op *op = &m->ops[p][k];

            if (op->cls == SIM_C_WRITE || op->op->kind == CES_OP_RECORD || op->snap != SIM_NONE)
                S->src_end[p] = k + 1;
        }
    }
    /* and who reads each record's and link's clock: an await several */
    for (uint32_t y = 0; y < m->nrec; y++)
        S->rd_proc[y] = SIM_NONE;
    for (uint32_t p = 0; p < P; p++)
        for (uint32_t k = 0; k < m->len[p]; k++) {
            const struct sim_op *op = &m->ops[p][k];

            if (op->cls == SIM_C_AWAIT) {
                const struct sim_link *rec = ces_sim_await_rec(m, op);

                S->rd_proc[m->ops[rec->proc][rec->pos].aux] = (uint32_t)P;
            }
            for (uint32_t i = 0; i < op->nlink; i++) {
                uint32_t y = ces_sim_link_rclk(m, &m->links[op->link + i]);

                if (S->rd_proc[y] == SIM_NONE) {
                    S->rd_proc[y] = p;
                    S->rd_pos[y] = k;
                } else if (S->rd_proc[y] != p) {
                    S->rd_proc[y] = (uint32_t)P;
                }
            }
        }
    S->scratch_bytes = scratch;
    S->ran_kept_bytes = kept;
    memset(S->hz_gen, 0, P * sizeof(uint32_t));
    if (cyc > 0)
        memset(S->cyc, 0xff, cyc); /* SIM_NONE first: every entry empty */
    return CES_OK;
}

/* --- data judged without some signals (docs/SEMANTICS.md section 10) ------- */

/* The search first tries sliced searches once it has stored 4096 states
 * of its own (ces_sim_slice_at); a try's sliced searches may store half as
 * many as the search has, at least 4096 (ces_sim_slice_least), and a try
 * that did not finish waits until the search has doubled, so that they
 * never store more states than the search itself.  (Tests set both lower.) */
uint64_t ces_sim_slice_at = 4096, ces_sim_slice_least = 4096;

/* A sliced search's progress, told as the search's. */
static void slice_progress(void *ud, const struct ces_check_stats *t)
{
    const struct search *S = ud;
    struct ces_check_stats s = S->stats;

    s.states += t->states;
    s.slice_states += t->states;
    s.transitions += t->transitions;
    s.seconds = ces_now() - S->t0;
    S->o->progress(S->o->progress_ud, &s);
}

/* S's faults (drops and stops) where they fall in the schedule without the
 * writes and waits of the signals in `drop`: each at the position of its
 * op there (a stop before a left-out op before the next op kept), a drop
 * of a write left out none.  Returns how many there are. */
static uint32_t slice_faults(const struct search *S, uint64_t drop, struct ces_fault *out)
{
    const struct sim_model *m = S->m;
    uint32_t n = 0;

    for (size_t i = 0; i < S->o->nfaults; i++) {
        struct ces_fault f = S->o->faults[i];
        uint32_t p = f.rank * m->streams + f.stream, k = 0;

        if (f.kind == CES_FAULT_DROP && ces_sim_slot_op(m->ops[p][f.index].op, drop))
            continue;
        for (uint32_t j = 0; j < f.index && j < m->len[p]; j++)
            k += !ces_sim_slot_op(m->ops[p][j].op, drop);
        f.index = k;
        out[n++] = f;
    }
    return n;
}

/* The search of S's graph without the writes and waits of the signals in
 * `drop`, every stream on a queue of its own, for a RACE or MISMATCH alone,
 * (a RACE alone once S found a MISMATCH) within `cap` states and what is
 * left of S's bounds: *res 1 where it finished and found neither, -2 where
 * it found a RACE, -1 a MISMATCH (and no RACE), 0 where a bound stopped it.
 * Its states and transitions count as S's. */
static int slice_search(struct search *S, uint64_t drop, uint64_t cap, int *res)
{
    const struct ces_check_opts *so = S->o;
    struct ces_check_opts o;
    struct ces_graph *h = NULL;
    struct sim_model *m = NULL;
    struct search T;
    struct ces_fault *faults = NULL;
    size_t held = 0, mem = mem_now(S);
    double left = so->max_seconds - so->spent_seconds - (ces_now() - S->t0);
    int rc;

    *res = 0;
    if ((so->max_states > 0 && S->stats.states >= so->max_states) ||
        (so->max_seconds > 0 && left <= 0) || (so->max_memory > 0 && mem >= so->max_memory))
        return CES_OK; /* (a bound of 0 would be none) */
    ces_check_opts_init(&o);
    o.flags = so->flags & CES_CHECK_UNLINKED;
    if (so->nfaults > 0) {
        faults = ces_malloc(S->ctx, so->nfaults * sizeof(*faults));
        if (faults == NULL)
            return CES_ERR_NOMEM;
        o.faults = faults;
        o.nfaults = slice_faults(S, drop, faults);
    }
    o.max_states = so->max_states > 0 && so->max_states - S->stats.states < cap
                       ? so->max_states - S->stats.states
                       : cap;
    o.max_seconds = so->max_seconds > 0 ? left : 0;
    o.max_memory = so->max_memory > 0 ? so->max_memory - mem : 0;
    if (so->progress != NULL) {
        o.progress = slice_progress;
        o.progress_ud = S;
        o.progress_seconds = so->progress_seconds;
    }
    rc = ces_sim_slice(S->ctx, S->g, drop, &h);
    if (rc == CES_OK)
        rc = ces_sim_model_build(S->ctx, h, &o, ces_graph_streams(h), &m, &held);
    memset(&T, 0, sizeof(T));
    if (rc == CES_OK) {
        T.ctx = S->ctx;
        T.o = &o;
        T.g = h;
        T.m = m;
        T.reduce = true;
        T.lift = true;
        T.data_only = true;
        T.race_only = S->have[SIM_D_MISMATCH];
        T.slice_next = UINT64_MAX;
        T.sample_next = ces_sim_sample_at;
        T.stats.mode = CES_CHECK_EXHAUSTIVE;
        rc = search_setup(&T);
        if (rc == CES_OK && !T.bound)
            rc = exhaustive(&T);
        if (rc == CES_OK)
            rc = T.rc;
        *res = T.have[SIM_D_RACE] ? -2 : T.have[SIM_D_MISMATCH] ? -1 : T.stats.complete ? 1 : 0;
        S->stats.states += T.stats.states;
        S->stats.slice_states += T.stats.states;
        S->stats.transitions += T.stats.transitions;
        if (mem_now(&T) > T.stats.peak_memory)
            T.stats.peak_memory = mem_now(&T);
        if (mem + T.stats.peak_memory > S->stats.peak_memory)
            S->stats.peak_memory = mem + T.stats.peak_memory;
    } else if (rc == SIM_BOUND || rc == SIM_LATE) { /* the model alone did not fit, or in time */
        rc = CES_OK;
    }
    search_free(&T);
    ces_sim_model_destroy(m);
    ces_graph_destroy(h);
    ces_free(S->ctx, faults);
    return rc;
}

/* Tries to prove that no execution shows a RACE or MISMATCH (a RACE alone
 * once a MISMATCH is found) by a sliced search: adding the signals with the
 * most writes and waits first, one at a time, to the set left out, keeping
 * one where its search did not finish (a smaller graph may) and not where
 * it found a RACE or MISMATCH (a set that did is not searched again, nor
 * one that found a MISMATCH until the search finds one).  Sets S->sliced on
 * the first search that finishes and finds neither. */
static int slice_try(struct search *S)
{
    uint32_t n = ces_graph_nsignals(S->g) < 64 ? ces_graph_nsignals(S->g) : 64, order[64];
    uint64_t own = S->stats.states - S->stats.slice_states, count[64], drop = 0;
    uint64_t cap = own / 2 > ces_sim_slice_least ? own / 2 : ces_sim_slice_least;
    uint64_t spent = S->stats.slice_states;
    uint32_t k = 0;
    bool unknown = false, race_only = S->have[SIM_D_MISMATCH];
    int rc = CES_OK;

    memset(count, 0, sizeof(count));
    for (uint32_t b = 0; b < ces_graph_nblocks(S->g); b++)
        for (uint32_t r = 0; r < ces_graph_ranks(S->g); r++) {
            uint32_t len;
            const struct ces_op *ops = ces_graph_ops(S->g, b, r, &len);

            for (uint32_t i = 0; i < len; i++)
                if (ces_sim_slot_op(&ops[i], UINT64_MAX))
                    count[ops[i].slot.sig]++;
        }
    for (uint32_t i = 0; i < n; i++) { /* by count, most first (insertion sort) */
        uint32_t j = k;

        if (count[i] == 0)
            continue;
        for (; j > 0 && count[order[j - 1]] < count[i]; j--)
            order[j] = order[j - 1];
        order[j] = i;
        k++;
    }
    for (uint32_t i = 0; i < k && rc == CES_OK && S->sliced == 0; i++) {
        uint64_t d = drop | UINT64_C(1) << order[i];
        bool known = false;
        int res;

        for (uint32_t j = 0; j < S->nrefuted; j++) {
            known |= S->refuted[j] == d && (S->refuted_race[j] || !race_only);
            unknown |= S->refuted[j] == d && !race_only && !S->refuted_race[j];
        }
        if (known)
            continue;
        if (S->stats.slice_states - spent >= cap) {
            unknown = true;
            break;
        }
        rc = slice_search(S, d, cap - (S->stats.slice_states - spent), &res);
        if (res > 0) {
            S->sliced = d;
        } else if (res < 0 && S->nrefuted < SLICE_REFUTED) {
            S->refuted_race[S->nrefuted] = res == -2;
            S->refuted[S->nrefuted++] = d;
            unknown |= res == -1; /* (a later try, once a MISMATCH is found, may not) */
        } else if (res == 0) {
            unknown = true;
            drop = d;
        }
    }
    S->slice_next = unknown ? 2 * own : UINT64_MAX;
    return rc;
}

/* The classes a search under opts can find: under the watchdog model no
 * DEADLOCK or HANG, which it ends (every blocked execution). */
static uint32_t classes_possible(const struct ces_check_opts *opts)
{
    return opts->flags & CES_CHECK_ABORT ? CES_V_RACE | CES_V_MISMATCH : CLASSES_ALL;
}

/* The defect classes an exhaustive search that a bound stopped neither
 * found nor ruled out (CES_V_ bits; docs/SEMANTICS.md section 10, "Random
 * mode, replays, bounds"): where the second search was stopped, the first
 * finished, so a MISMATCH at most; under the watchdog model no DEADLOCK
 * or HANG is judged (it ends them); a sliced search rules out a RACE or
 * MISMATCH, a schedule without data accesses both (every process at its
 * first op, as the initial state has it), and the initial state's wait-for
 * over-approximation without a cycle a DEADLOCK, as the search found it
 * when it made that state (not made again past the bound that stopped
 * it: where a bound refused it, a DEADLOCK stays open). */
static uint32_t open_classes(const struct search *S, uint32_t found)
{
    const struct sim_model *m = S->m;
    uint32_t o = classes_possible(S->o) & ~found;
    bool data = false;

    if (S->stats.race_free_states > 0 && !S->cut)
        o &= CES_V_MISMATCH;
    if (S->sliced != 0)
        o &= ~(uint32_t)(CES_V_RACE | CES_V_MISMATCH);
    for (uint32_t p = 0; p < m->nproc; p++)
        data |= m->data_end[p] > 0;
    if (!data)
        o &= ~(uint32_t)(CES_V_RACE | CES_V_MISMATCH);
    if (S->init_seen && S->cyc != NULL && !S->init_cycle)
        o &= ~(uint32_t)CES_V_DEADLOCK;
    return o;
}

/* The report of a check of g that searched nothing: its model did not fit
 * the memory bound (why SIM_BOUND) or the time bound passed before the
 * search (SIM_LATE), having held `held` bytes over `seconds`; the
 * context's message says how far it came. */
static int unsearched(struct ces_ctx *ctx, const struct ces_graph *g,
                      const struct ces_check_opts *opts, int why, size_t held, double seconds,
                      struct ces_check_report **out)
{
    struct ces_check_report *rep = ces_malloc(ctx, sizeof(*rep));

    if (rep == NULL)
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory starting the check");
    memset(rep, 0, sizeof(*rep));
    rep->ctx = ctx;
    rep->g = g;
    rep->stats.mode = opts->replay != NULL ? CES_CHECK_REPLAY
                      : opts->random > 0   ? CES_CHECK_RANDOM
                                           : CES_CHECK_EXHAUSTIVE;
    rep->stats.peak_memory = held;
    rep->stats.seconds = seconds;
    rep->verdict = CES_V_INCOMPLETE;
    rep->open = classes_possible(opts);
    rep->stopped = why == SIM_LATE ? "time" : "memory";
    *out = rep;
    return CES_OK;
}

/* The check of a valid graph g under opts, whose faults are drops and
 * stops; streams from `queued` on are delayed writes' (delay.c). */
static int check_graph(struct ces_ctx *ctx, const struct ces_graph *g,
                       const struct ces_check_opts *opts, uint32_t queued,
                       struct ces_check_report **out)
{
    struct sim_model *m = NULL;
    struct search S;
    struct ces_check_report *rep = NULL;
    size_t held = 0;
    int rc;

    memset(&S, 0, sizeof(S));
    S.ctx = ctx;
    S.o = opts;
    S.stats.mode = opts->replay != NULL ? CES_CHECK_REPLAY
                   : opts->random > 0   ? CES_CHECK_RANDOM
                                        : CES_CHECK_EXHAUSTIVE;
    S.t0 = ces_now();
    rc = ces_sim_model_build(ctx, g, opts, queued, &m, &held);
    if (rc == SIM_BOUND || rc == SIM_LATE) /* the model alone does not fit, or took the time */
        return unsearched(ctx, g, opts, rc, held, ces_now() - S.t0, out);
    if (rc != CES_OK)
        return rc;
    rep = ces_malloc(ctx, sizeof(*rep));
    if (rep == NULL) {
        rc = ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory starting the check");
        goto fail;
    }
    memset(rep, 0, sizeof(*rep));
    rep->ctx = ctx;
    rep->g = g;
    S.g = g;
    S.m = m;
    S.reduce = !(opts->flags & CES_CHECK_NO_REDUCTION);
    /* a sliced search proves data right where only data keeps the search
     * going: not with delays (their streams are no schedule's) */
    S.slice_next = S.reduce && S.stats.mode == CES_CHECK_EXHAUSTIVE &&
                           queued == ces_graph_streams(g)
                       ? ces_sim_slice_at
                       : UINT64_MAX;
    /* random executions within the search find classes to prune by: not
     * with the watchdog model or --max-depth (nothing is pruned there) */
    S.sample_next = S.reduce && S.stats.mode == CES_CHECK_EXHAUSTIVE &&
                            !(opts->flags & CES_CHECK_ABORT) && opts->max_depth == 0
                        ? ces_sim_sample_at
                        : UINT64_MAX;
    rc = search_setup(&S);
    if (rc != CES_OK)
        goto fail;
    if (!S.bound) {
        if (opts->replay != NULL)
            rc = replay_mode(&S);
        else if (opts->random > 0)
            rc = random_mode(&S);
        else {
            S.lift = S.reduce;
            rc = exhaustive(&S);
            if (rc == CES_OK && S.rc == CES_OK)
                rc = race_free_search(&S);
        }
    }
    if (rc == CES_OK && S.rc != CES_OK)
        rc = S.rc;
    if (rc != CES_OK) {
        if (rc == CES_ERR_NOMEM)
            ces_ctx_error(ctx, rc, "out of memory while checking");
        goto fail;
    }
    S.stats.seconds = ces_now() - S.t0;
    {
        size_t mem = mem_now(&S);

        if (mem > S.stats.peak_memory)
            S.stats.peak_memory = mem;
    }
    rep->stats = S.stats;
    rep->sliced = S.sliced;
    for (int d = 0; d < SIM_D_COUNT; d++)
        if (S.sampled & 1u << d)
            rep->sampled |= ces_sim_class_bit(d);
    for (int d = 0; d < SIM_D_COUNT && rc == CES_OK; d++) {
        if (S.have[d])
            rc = ces_sim_report_add(rep, m, d, S.best[d].data, S.best[d].len);
    }
    if (rc != CES_OK)
        goto fail;
    if (S.cut) {
        rep->verdict |= CES_V_INCOMPLETE;
        rep->depth_cut = true;
    }
    if (S.bound) {
        rep->verdict |= CES_V_INCOMPLETE;
        rep->stopped_first = S.bound == 2;
        rep->stopped = S.bound == 1 ? S.bound_what : NULL;
        if (S.why[0] != '\0') /* the memory bound: say what needed it */
            ces_ctx_error(ctx, CES_OK, "%s", S.why);
    }
    if ((rep->verdict & CES_V_INCOMPLETE) && S.stats.mode == CES_CHECK_EXHAUSTIVE)
        rep->open = open_classes(&S, rep->verdict);
    search_free(&S);
    ces_sim_model_destroy(m);
    *out = rep;
    return CES_OK;
fail:
    search_free(&S);
    ces_sim_model_destroy(m);
    ces_check_report_destroy(rep);
    return rc;
}

static void add_stats(struct ces_check_stats *sum, const struct ces_check_stats *s)
{
    sum->complete = sum->complete && s->complete;
    sum->states += s->states;
    sum->race_free_states += s->race_free_states;
    sum->slice_states += s->slice_states;
    sum->sample_executions += s->sample_executions;
    sum->transitions += s->transitions;
    sum->executions += s->executions;
    sum->aborted += s->aborted;
    sum->seconds += s->seconds;
    sum->max_depth = s->max_depth > sum->max_depth ? s->max_depth : sum->max_depth;
    sum->peak_memory = s->peak_memory > sum->peak_memory ? s->peak_memory : sum->peak_memory;
}

/* `connections any`: g under every assignment of each rank's streams to
 * hardware queues (ces_queue_map_next), each checked as its queue map.
 * The report is the first assignment's whose verdict has a defect (its map
 * in the report), or else the last one's with the totals of all (and
 * INCOMPLETE if any was, or if the bounds on states and seconds, which
 * count over all of them, stopped the loop): of the last whose watchdog
 * fired, where one did, its execution and the map it ran on.  The time
 * bound counts from t0, the check's call: each assignment's delay
 * derivation and report too, which its search's seconds leave out. */
static int check_any(struct ces_ctx *ctx, const struct ces_graph *g,
                     const struct ces_check_opts *opts, double t0,
                     struct ces_check_report **out)
{
    uint32_t R = ces_graph_ranks(g), S = ces_graph_streams(g), *map;
    uint64_t total = ces_queue_map_count(R, S, S), done = 0;
    struct ces_check_opts o = *opts;
    struct ces_check_report *r = NULL, *fired = NULL;
    struct ces_check_stats sum;
    uint32_t incomplete = 0, open = 0;
    bool depth_cut = false;
    char at[32];
    int rc = CES_OK;

    /* where its file says `connections any`, the setting refused */
    ces_setting_where(at, sizeof(at), g, CES_SETTING_CONNECTIONS);
    if (opts->replay != NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "a replay of a `connections any`%s schedule needs the hardware "
                             "queues it ran on: give the map the report names (its hardware "
                             "queues line, JSON queues) as --queues, or opts.queue_map",
                             at);
    if (total > CES_QUEUE_MAPS_MAX) /* (the count saturates at UINT64_MAX) */
        return ces_ctx_error(ctx, CES_ERR_LIMIT,
                             "connections any%s: %" PRIu64 "%s assignments of %" PRIu32
                             " %s %" PRIu32 " streams to hardware queues, more than %u "
                             "checks; name the queues (connections N, or a queue map)",
                             at, total, total == UINT64_MAX ? " or more" : "", R,
                             R == 1 ? "rank's" : "ranks'", S, CES_QUEUE_MAPS_MAX);
    map = ces_malloc(ctx, (size_t)R * S * sizeof(uint32_t));
    if (map == NULL)
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory checking every queue assignment");
    memset(map, 0, (size_t)R * S * sizeof(uint32_t));
    memset(&sum, 0, sizeof(sum));
    sum.complete = 1;
    o.queue_map = map;
    do {
        bool states = opts->max_states > 0 && sum.states >= opts->max_states;

        double spent = opts->spent_seconds + (ces_now() - t0);

        if (r != NULL && (states || (opts->max_seconds > 0 && spent >= opts->max_seconds))) {
            /* the states or time bound spent by the assignments before:
             * this one stopped at its start, as a search stops at a state
             * beyond it, and searched not at all, so any class is open in
             * it that any search can find (the memory bound holds each
             * search, which frees what it held before the next) */
            r->verdict |= CES_V_INCOMPLETE;
            r->stopped = states ? "states" : "time";
            sum.complete = 0;
            open = classes_possible(opts);
            break;
        }
        if (r != NULL && r->ndefects > 0) { /* the watchdog's execution: kept */
            ces_check_report_destroy(fired);
            fired = r;
        } else {
            ces_check_report_destroy(r);
        }
        r = NULL;
        o.spent_seconds = spent;
        if (opts->max_states > 0)
            o.max_states = opts->max_states - sum.states;
        rc = ces_check(ctx, g, &o, &r);
        if (rc != CES_OK)
            break;
        sum.mode = r->stats.mode;
        add_stats(&sum, &r->stats);
        incomplete |= r->verdict & CES_V_INCOMPLETE;
        open |= r->open;
        depth_cut |= r->depth_cut;
        if (r->verdict & ~(uint32_t)CES_V_INCOMPLETE) {
            done++; /* a defect: this assignment's report, done its number */
            break;
        }
        if (r->stopped)
            break; /* a bound ran out: this one and the rest not checked in full */
        done++;
    } while (ces_queue_map_next(R, S, S, map));
    ces_free(ctx, map);
    if (rc != CES_OK) {
        ces_check_report_destroy(fired);
        return rc;
    }
    if (!(r->verdict & ~(uint32_t)CES_V_INCOMPLETE) && r->ndefects == 0 && fired != NULL) {
        /* the watchdog fired under an earlier assignment only: its report,
         * with what the last one says of the search */
        fired->verdict = r->verdict;
        fired->stopped_first = r->stopped_first;
        fired->stopped = r->stopped;
        fired->sliced = r->sliced;
        fired->sampled = r->sampled;
        ces_check_report_destroy(r);
        r = fired;
    } else {
        ces_check_report_destroy(fired);
    }
    r->assignments = done;
    r->assignments_all = total;
    r->verdict |= incomplete;
    r->depth_cut = depth_cut; /* whichever assignment the depth bound cut */
    if (!(r->verdict & ~(uint32_t)CES_V_INCOMPLETE)) {
        /* every assignment OK (or incomplete): the totals, no one map */
        /* an assignment a bound left unchecked could show any class its
         * search can find (the one it stopped in those its search left
         * open) */
        r->open = done + (r->stopped != NULL) < total ? classes_possible(opts) : open;
        r->stats = sum;
        if (r->ndefects == 0) { /* the watchdog's execution keeps the map it ran on */
            ces_free(ctx, r->qmap);
            r->qmap = NULL;
        }
    } else if (incomplete) {
        /* a defect past an assignment the depth bound cut (no other bound
         * lets the loop go on), which may fail beyond it: what that one
         * left open is open still, but the classes this one found */
        r->open = open & ~r->verdict;
        r->stats.complete = 0;
    }
    *out = r;
    return CES_OK;
}

int ces_sim_opts_times_check(struct ces_ctx *ctx, const struct ces_check_opts *opts)
{
    if (!(opts->max_seconds >= 0) || !isfinite(opts->max_seconds))
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "check options: max_seconds must be a finite number >= 0");
    if (!(opts->progress_seconds >= 0) || !isfinite(opts->progress_seconds))
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "check options: progress_seconds must be a finite number >= 0");
    if (!(opts->spent_seconds >= 0) || !isfinite(opts->spent_seconds))
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "check options: spent_seconds must be a finite number >= 0");
    return CES_OK;
}

/* A check's progress callbacks, their seconds counted from its call, the
 * start its time bound counts from (past spent_seconds): a delay fault's
 * derivation of the graph checked, and a `connections any` check's
 * assignments before, included (a model's building and its search start
 * their own clocks, which the bound adds to what came before). */
struct since_call {
    const struct ces_check_opts *opts; /* the caller's callbacks */
    double t0;
};

static void since_progress(void *ud, const struct ces_check_stats *stats)
{
    const struct since_call *c = ud;
    struct ces_check_stats s = *stats;

    s.seconds = ces_now() - c->t0;
    c->opts->progress(c->opts->progress_ud, &s);
}

static void since_build(void *ud, const struct ces_check_build *build)
{
    const struct since_call *c = ud;
    struct ces_check_build b = *build;

    b.seconds = ces_now() - c->t0;
    c->opts->build_progress(c->opts->progress_ud, &b);
}

int ces_check(struct ces_ctx *ctx, const struct ces_graph *g, const struct ces_check_opts *opts,
              struct ces_check_report **out)
{
    struct ces_check_opts defaults, o;
    struct sim_delayed d;
    struct sim_expanded ex;
    double t0 = ces_now();
    struct since_call since;
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (g == NULL || out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_check: NULL argument");
    *out = NULL;
    if (opts == NULL) {
        ces_check_opts_init(&defaults);
        opts = &defaults;
    }
    if (opts->nfaults > 0 && opts->faults == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "check options: nfaults > 0 but no faults");
    if (opts->flags & ~(uint32_t)(CES_CHECK_NO_REDUCTION | CES_CHECK_ABORT | CES_CHECK_FIRST |
                                  CES_CHECK_UNLINKED))
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "check options: flags 0x%" PRIx32 " has bits no enum ces_check_flags "
                             "names",
                             opts->flags);
    rc = ces_sim_opts_times_check(ctx, opts);
    if (rc != CES_OK)
        return rc;
    if (opts->random > 0 && opts->replay != NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "check options: random mode and a replay exclude each other");
    rc = ces_graph_require_valid(ctx, g, "check");
    if (rc == CES_OK)
        rc = ces_sim_queue_map_check(ctx, "check options: queue_map", ces_graph_ranks(g),
                                     ces_graph_streams(g), opts->queue_map);
    if (rc == CES_OK)
        rc = ces_sim_faults_check(ctx, g, opts->faults, opts->nfaults);
    if (rc != CES_OK)
        return rc;
    o = *opts;
    since.opts = opts;
    since.t0 = t0;
    if (opts->progress != NULL || opts->build_progress != NULL) {
        o.progress = opts->progress != NULL ? since_progress : NULL;
        o.build_progress = opts->build_progress != NULL ? since_build : NULL;
        o.progress_ud = &since;
    }
    if (ces_graph_connections(g) == CES_CONNECTIONS_ANY && opts->queue_map == NULL)
        return check_any(ctx, g, &o, t0, out);
    rc = ces_sim_faults_expand(ctx, g, &o, &ex);
    if (ex.faults != NULL) {
        o.faults = ex.faults;
        o.nfaults = ex.nfaults;
    }
    if (rc == CES_OK)
        rc = ces_sim_delay_derive(ctx, g, &o, &d);
    if (rc == CES_OK && d.g == NULL) {
        rc = check_graph(ctx, g, &o, ces_graph_streams(g), out);
    } else if (rc == CES_OK || rc == SIM_LATE) {
        o.faults = d.faults;
        o.nfaults = d.nfaults;
        /* the time bound passed while the graph checked in g's place was
         * derived: nothing searched, as where it passes in the model's
         * building, the report of g naming the delays (its message the
         * derivation's) */
        if (rc == CES_OK && o.max_seconds > 0) /* the bound counts the derivation */
            o.spent_seconds = opts->spent_seconds + (ces_now() - t0);
        rc = rc == SIM_LATE ? unsearched(ctx, g, &o, SIM_LATE, 0, ces_now() - t0, out)
                            : check_graph(ctx, d.g, &o, d.streams, out);
        if (rc == CES_OK)
            (*out)->delayed = d;
        else
            ces_sim_delayed_free(ctx, &d);
    }
    if (rc == CES_OK)
        (*out)->expanded = ex;
    else
        ces_sim_expanded_free(ctx, &ex);
    if (rc == CES_OK && opts->queue_map != NULL) {
        size_t n = (size_t)ces_graph_ranks(g) * ces_graph_streams(g);

        (*out)->qmap = ces_malloc(ctx, n * sizeof(uint32_t));
        if ((*out)->qmap == NULL) {
            ces_check_report_destroy(*out);
            *out = NULL;
            return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory writing the report");
        }
        memcpy((*out)->qmap, opts->queue_map, n * sizeof(uint32_t));
        (*out)->qstreams = ces_graph_streams(g);
    }
    return rc;
}
