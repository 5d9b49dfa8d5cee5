/*
 * tests/sim/test_differential.c - the reduced search and the reference search
 * without any reduction (CES_CHECK_NO_REDUCTION) agree on every verdict class,
 * on 1000 generated schedules (ces_gen_graph, seeds 0..999) and on every
 * fixture under tests/fixtures/good and tests/fixtures/bad.  The generated
 * corpus must also cover every verdict class, and every good fixture must
 * check OK.  And the two agree under a delay at every write of 80
 * generated schedules, and on the generated ones of two streams declared
 * `connections any`, on 300 generated with three streams and on 230 of
 * hand-offs (`cesync gen --shapes handoff`); and on two
 * families of schedules whose HANG the reduced search finds only through
 * its shortcuts for slots with sorted writes (over 8 writes to a slot, runs
 * of `==` waits), and on one whose u64 writer counts by one across 2^64
 * (2^64-1, then 0).  Each reduced search runs a second time trying sliced
 * searches from its first state on (docs/SEMANTICS.md section 10, "Data judged
 * without some signals"), and again running random executions from its first
 * state on (section 10, "Classes found by sampling"), also under each delay,
 * with the same verdict.  And the reduced search reports the same with
 * the answers it keeps under their keys all in one entry of their tables,
 * and with those of consumes_race in one entry per program counters.
 */
#include "ces_test.h"
#include "../../backend/sim/internal.h" /* ces_sim_slice_at, ces_sim_kept_slot/vals, the report */

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEEDS 1000u

/* The verdict of g under `flags` and fault f (NULL: none), and the states
 * the search stored. */
static uint32_t check_bounded(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t flags,
                              const struct ces_fault *f, uint64_t max_states, uint64_t *states)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    uint32_t v;

    ces_check_opts_init(&o);
    o.flags = flags;
    o.faults = f;
    o.nfaults = f != NULL;
    o.max_states = max_states;
    o.max_seconds = 20;
    if (ces_check(ctx, g, &o, &r) != CES_OK)
        fail_msg("ces_check: %s", ces_ctx_last_error(ctx));
    v = ces_check_report_verdict(r);
    *states = ces_check_report_stats(r).states;
    ces_check_report_destroy(r);
    return v;
}

static uint32_t check(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t flags,
                      const struct ces_fault *f, uint64_t *states)
{
    return check_bounded(ctx, g, flags, f, 2000000, states);
}

/* Of the reduced searches of check_sliced so far, those whose sliced
 * searches proved that no RACE or MISMATCH can occur, and those whose
 * sliced searches could not. */
static uint32_t proofs, unproved;

/* The reduced search of g under fault f (NULL: none) with the search's
 * knobs *k1 = v1 and *k2 = v2 (put back after): its report. */
static struct ces_check_report *check_knobs(struct ces_ctx *ctx, const struct ces_graph *g,
                                            const struct ces_fault *f, uint64_t max_states,
                                            uint64_t *k1, uint64_t v1, uint64_t *k2, uint64_t v2)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    uint64_t was1 = *k1, was2 = *k2;
    int rc;

    ces_check_opts_init(&o);
    o.faults = f;
    o.nfaults = f != NULL;
    o.max_states = max_states;
    o.max_seconds = 20;
    *k1 = v1;
    *k2 = v2;
    rc = ces_check(ctx, g, &o, &r);
    *k1 = was1;
    *k2 = was2;
    if (rc != CES_OK)
        fail_msg("ces_check: %s", ces_ctx_last_error(ctx));
    return r;
}

/* The reduced search of g trying sliced searches once a HANG is found,
 * not only past 4096 states, each try storing at least `least` states (1:
 * most tries do not finish): its verdict. */
static uint32_t check_sliced(struct ces_ctx *ctx, const struct ces_graph *g,
                             const struct ces_fault *f, uint64_t max_states, uint64_t least)
{
    struct ces_check_report *r = check_knobs(ctx, g, f, max_states, &ces_sim_slice_at, 1,
                                             &ces_sim_slice_least, least);
    uint32_t v = ces_check_report_verdict(r);

    proofs += r->sliced != 0;
    unproved += r->sliced == 0 && r->stats.slice_states > 0;
    ces_check_report_destroy(r);
    return v;
}

/* Of the reduced searches of check_sampled so far, the classes that a
 * random execution within the search found first. */
static uint32_t sampled;

/* The reduced search of g under fault f (NULL: none) running random
 * executions from its first state on, a burst of one at each doubling of
 * its states: its verdict. */
static uint32_t check_sampled(struct ces_ctx *ctx, const struct ces_graph *g,
                              const struct ces_fault *f, uint64_t max_states)
{
    struct ces_check_report *r = check_knobs(ctx, g, f, max_states, &ces_sim_sample_at, 1,
                                             &ces_sim_sample_least, 1);
    uint32_t v = ces_check_report_verdict(r);

    for (uint32_t b = r->sampled; b != 0; b &= b - 1)
        sampled++;
    ces_check_report_destroy(r);
    return v;
}

/* Counts verdict v into count: OK, DEADLOCK, HANG, RACE, MISMATCH. */
static void tally(uint32_t count[5], uint32_t v)
{
    count[0] += v == CES_V_OK;
    count[1] += (v & CES_V_DEADLOCK) != 0;
    count[2] += (v & CES_V_HANG) != 0;
    count[3] += (v & CES_V_RACE) != 0;
    count[4] += (v & CES_V_MISMATCH) != 0;
}

/* Compares the two searches on g, and the reduced one trying sliced
 * searches early; returns the verdict, or fails.  `what` names the
 * schedule in messages. */
static uint32_t compare(struct ces_ctx *ctx, const struct ces_graph *g, const char *what,
                        uint64_t *reduced_states, uint64_t *full_states)
{
    uint64_t sr = 0, sf = 0;
    uint32_t vr = check(ctx, g, 0, NULL, &sr);
    uint32_t vf = check(ctx, g, CES_CHECK_NO_REDUCTION, NULL, &sf);
    uint32_t vs = check_sliced(ctx, g, NULL, 2000000, 4096);
    uint32_t vt = check_sliced(ctx, g, NULL, 2000000, 1);
    uint32_t vp = check_sampled(ctx, g, NULL, 2000000);
    char a[64], b[64];

    ces_verdict_format(vr, a, sizeof(a));
    ces_verdict_format(vf, b, sizeof(b));
    if ((vr & CES_V_INCOMPLETE) || (vf & CES_V_INCOMPLETE))
        fail_msg("%s: a search hit its bound (reduced %s, unreduced %s): the corpus must stay "
                 "small enough to exhaust", what, a, b);
    if (vr != vf)
        fail_msg("%s: the reduced search says %s, the unreduced one %s", what, a, b);
    if (vs != vf || vt != vf) {
        ces_verdict_format(vs != vf ? vs : vt, a, sizeof(a));
        fail_msg("%s: the reduced search trying sliced searches early (of at least %d states) "
                 "says %s, the unreduced one %s", what, vs != vf ? 4096 : 1, a, b);
    }
    if (vp != vf) {
        ces_verdict_format(vp, a, sizeof(a));
        fail_msg("%s: the reduced search running random executions from its first state "
                 "says %s, the unreduced one %s", what, a, b);
    }
    /* the reduction may only shrink the search */
    if (sr > sf)
        fail_msg("%s: the reduced search stored %llu states, the unreduced %llu", what,
                 (unsigned long long)sr, (unsigned long long)sf);
    *reduced_states += sr;
    *full_states += sf;
    return vr;
}

static void test_generated(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    uint32_t count[5] = {0, 0, 0, 0, 0}; /* OK, DEADLOCK, HANG, RACE, MISMATCH */
    uint64_t sr = 0, sf = 0;

    (void)state;
    proofs = unproved = sampled = 0;
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        struct ces_graph *g = NULL;
        char what[64];
        uint32_t v;

        assert_int_equal(ces_gen_graph(ctx, seed, NULL, &g), CES_OK);
        snprintf(what, sizeof(what), "cesync gen --seed %llu", (unsigned long long)seed);
        v = compare(ctx, g, what, &sr, &sf);
        tally(count, v);
        ces_graph_destroy(g);
    }
    printf("%u generated schedules: OK %u, DEADLOCK %u, HANG %u, RACE %u, MISMATCH %u; "
           "states reduced %llu, unreduced %llu; sliced searches proved no RACE or MISMATCH "
           "%u times, could not %u times; random executions within the search found %u "
           "classes first\n", SEEDS, count[0], count[1], count[2], count[3], count[4],
           (unsigned long long)sr, (unsigned long long)sf, proofs, unproved, sampled);
    assert_true(proofs >= SEEDS / 100 && unproved >= SEEDS / 100);
    assert_true(sampled >= SEEDS / 10);
    /* a good share OK, and every defect class well represented */
    assert_true(count[0] >= SEEDS / 5);
    for (int c = 1; c < 5; c++)
        assert_true(count[c] >= SEEDS / 20);
    ces_test_ctx_end(ctx, &st);
}

/* Four ranks, one step per phase: larger state spaces, so a schedule whose
 * searches hit a bound of 400,000 states is skipped. */
static void test_generated_four_ranks(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_gen_opts go;
    uint32_t compared = 0, defects = 0;

    (void)state;
    ces_gen_opts_init(&go);
    go.ranks = 4;
    go.steps = 1;
    for (uint64_t seed = 0; seed < 60; seed++) {
        struct ces_graph *g = NULL;
        uint64_t sr = 0, sf = 0;
        uint32_t vr, vf;
        char a[64], b[64];

        assert_int_equal(ces_gen_graph(ctx, seed, &go, &g), CES_OK);
        vr = check_bounded(ctx, g, 0, NULL, 400000, &sr);
        vf = check_bounded(ctx, g, CES_CHECK_NO_REDUCTION, NULL, 400000, &sf);
        ces_verdict_format(vr, a, sizeof(a));
        ces_verdict_format(vf, b, sizeof(b));
        if (!(vr & CES_V_INCOMPLETE) && !(vf & CES_V_INCOMPLETE)) {
            if (vr != vf)
                fail_msg("4-rank seed %u: the reduced search says %s, the unreduced one %s",
                         (unsigned)seed, a, b);
            vr = check_sliced(ctx, g, NULL, 400000, 4096);
            ces_verdict_format(vr, a, sizeof(a));
            if (vr != vf)
                fail_msg("4-rank seed %u: the reduced search trying sliced searches early "
                         "says %s, the unreduced one %s", (unsigned)seed, a, b);
            vr = check_sampled(ctx, g, NULL, 400000);
            ces_verdict_format(vr, a, sizeof(a));
            if (vr != vf)
                fail_msg("4-rank seed %u: the reduced search running random executions from "
                         "its first state says %s, the unreduced one %s", (unsigned)seed, a, b);
            compared++;
            defects += vr != CES_V_OK;
        }
        ces_graph_destroy(g);
    }
    printf("60 generated 4-rank schedules: %u compared (%u with defects)\n", compared, defects);
    assert_true(compared >= 45);
    assert_true(defects >= 10);
    ces_test_ctx_end(ctx, &st);
}

/* Three streams (cesync gen --streams 3, 2-3 ranks, seeds 0..299): the
 * reduced and unreduced searches agree on each, as declared (a third
 * share hardware queues) and, for the first 60, as `connections any`
 * (five ways to split a rank's three streams over queues, every
 * assignment checked); every verdict class is among them. */
static void test_generated_three_streams(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_gen_opts go;
    uint32_t count[5] = {0, 0, 0, 0, 0}; /* OK, DEADLOCK, HANG, RACE, MISMATCH */
    uint64_t sr = 0, sf = 0, ar = 0, af = 0;

    (void)state;
    ces_gen_opts_init(&go);
    go.streams = 3;
    for (uint64_t seed = 0; seed < 300; seed++) {
        struct ces_graph *g = NULL;
        char what[80];
        uint32_t v;

        assert_int_equal(ces_gen_graph(ctx, seed, &go, &g), CES_OK);
        snprintf(what, sizeof(what), "cesync gen --seed %llu --streams 3",
                 (unsigned long long)seed);
        v = compare(ctx, g, what, &sr, &sf);
        tally(count, v);
        if (seed < 60) {
            assert_int_equal(ces_graph_set_connections(g, CES_CONNECTIONS_ANY), CES_OK);
            snprintf(what, sizeof(what), "cesync gen --seed %llu --streams 3, connections any",
                     (unsigned long long)seed);
            (void)compare(ctx, g, what, &ar, &af);
        }
        ces_graph_destroy(g);
    }
    printf("300 generated schedules of three streams: OK %u, DEADLOCK %u, HANG %u, RACE %u, "
           "MISMATCH %u; states reduced %llu, unreduced %llu (60 as connections any: %llu, "
           "%llu)\n", count[0], count[1], count[2], count[3], count[4], (unsigned long long)sr,
           (unsigned long long)sf, (unsigned long long)ar, (unsigned long long)af);
    assert_true(count[0] >= 50);
    for (int c = 1; c < 5; c++)
        assert_true(count[c] >= 10);
    ces_test_ctx_end(ctx, &st);
}

/* Hand-offs (cesync gen --shapes handoff): seeds 0..199 at 2-3 ranks, and
 * the 30 seeds of 200000..202999 (at 2 + seed % 3 ranks) on which a
 * reverted reduction (f0637c9: a consume whose every execution seemed to
 * race left unfollowed) missed the MISMATCH that the unreduced search
 * finds, where the classic shapes' 3,000 seeds showed it nothing: the
 * reduced and unreduced searches agree on each, and the corpus holds every
 * class. */
static void test_generated_handoff(void **state)
{
    static const uint64_t missed[] = {
        200349, 200516, 200606, 200616, 200801, 200885, 200893, 200924, 200947, 200969,
        201047, 201110, 201285, 201401, 201593, 201638, 201666, 201693, 202069, 202122,
        202226, 202240, 202415, 202506, 202745, 202831, 202840, 202895, 202922, 202966,
    };
    const uint32_t nmissed = (uint32_t)(sizeof(missed) / sizeof(missed[0]));
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_gen_opts go;
    uint32_t count[5] = {0, 0, 0, 0, 0}; /* OK, DEADLOCK, HANG, RACE, MISMATCH */
    uint32_t racy_mismatch = 0;
    uint64_t sr = 0, sf = 0;

    (void)state;
    ces_gen_opts_init(&go);
    go.shapes = CES_GEN_HANDOFF;
    for (uint32_t i = 0; i < 200 + nmissed; i++) {
        uint64_t seed = i < 200 ? i : missed[i - 200];
        struct ces_graph *g = NULL;
        char what[96];
        uint32_t v;

        go.ranks = i < 200 ? 0 : (uint32_t)(2 + seed % 3);
        assert_int_equal(ces_gen_graph(ctx, seed, &go, &g), CES_OK);
        snprintf(what, sizeof(what), "cesync gen --seed %llu --ranks %u --shapes handoff",
                 (unsigned long long)seed, (unsigned)go.ranks);
        v = compare(ctx, g, what, &sr, &sf);
        tally(count, v);
        /* the reverted reduction's misses: a MISMATCH beside a RACE */
        if (i >= 200 && (v & (CES_V_RACE | CES_V_MISMATCH)) == (CES_V_RACE | CES_V_MISMATCH))
            racy_mismatch++;
        ces_graph_destroy(g);
    }
    printf("%u generated hand-off schedules: OK %u, DEADLOCK %u, HANG %u, RACE %u, MISMATCH %u; "
           "states reduced %llu, unreduced %llu\n", 200 + nmissed, count[0], count[1], count[2],
           count[3], count[4], (unsigned long long)sr, (unsigned long long)sf);
    assert_int_equal(racy_mismatch, nmissed);
    assert_true(count[0] >= 20);
    for (int c = 1; c < 5; c++)
        assert_true(count[c] >= 5);
    ces_test_ctx_end(ctx, &st);
}

/* `connections any`: the generated schedules of two streams (seeds
 * 0..999) declared so, every assignment checked reduced and unreduced
 * alike; some of those OK with a queue per stream fail under another
 * assignment, and each such one fails under one of its queue maps. */
static void test_generated_any(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    uint64_t sr = 0, sf = 0, states = 0;
    uint32_t compared = 0, only_any = 0;

    (void)state;
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        struct ces_graph *g = NULL;
        char what[64];
        uint32_t v0, vany;

        assert_int_equal(ces_gen_graph(ctx, seed, NULL, &g), CES_OK);
        if (ces_graph_streams(g) < 2) {
            ces_graph_destroy(g);
            continue;
        }
        assert_int_equal(ces_graph_set_connections(g, 0), CES_OK);
        v0 = check(ctx, g, 0, NULL, &states);
        assert_int_equal(ces_graph_set_connections(g, CES_CONNECTIONS_ANY), CES_OK);
        snprintf(what, sizeof(what), "cesync gen --seed %llu, connections any",
                 (unsigned long long)seed);
        vany = compare(ctx, g, what, &sr, &sf);
        if (v0 == CES_V_OK && vany != CES_V_OK) {
            struct ces_check_opts o;
            struct ces_check_report *r = NULL;
            const uint32_t *map;

            ces_check_opts_init(&o);
            assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
            map = ces_check_report_queue_map(r);
            assert_non_null(map);
            o.queue_map = map;
            {
                struct ces_check_report *r1 = NULL;

                assert_int_equal(ces_check(ctx, g, &o, &r1), CES_OK);
                assert_int_equal(ces_check_report_verdict(r1), vany);
                ces_check_report_destroy(r1);
            }
            ces_check_report_destroy(r);
            only_any++;
        }
        compared++;
        ces_graph_destroy(g);
    }
    printf("%u generated schedules of two streams as connections any: %u fail only under a "
           "shared queue\n", compared, only_any);
    assert_true(compared >= 300);
    assert_true(only_any >= 3);
    ces_test_ctx_end(ctx, &st);
}

/* The fault sweep's rows of 80 generated schedules.  Delayed writes: a
 * delay at every write (the sweep's rows, reduced), each checked again
 * unreduced, with and without the watchdog model: the derived graph adds a
 * stream, which the reduction must treat as any other.  Drops and stops at
 * every position: the reduced search trying sliced searches from its first
 * HANG on (docs/SEMANTICS.md section 10, "Data judged without some
 * signals", the faults carried into the sliced schedule) against the
 * unreduced one. */
static void test_generated_faults(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    size_t delays = 0, shown = 0, others = 0;

    (void)state;
    proofs = unproved = 0;
    for (uint64_t seed = 0; seed < 80; seed++) {
        struct ces_graph *g = NULL;
        struct ces_check_sweep_row *rows = NULL;
        struct ces_check_sweep_rest rest;
        size_t n = 0;

        assert_int_equal(ces_gen_graph(ctx, seed, NULL, &g), CES_OK);
        assert_int_equal(ces_check_fault_sweep(ctx, g, NULL, &rows, &n, &rest), CES_OK);
        for (size_t i = 0; i < n; i++) {
            const struct ces_check_sweep_row *w = &rows[i];
            const struct ces_fault *f = &w->fault;
            uint64_t states;
            uint32_t v = check(ctx, g, CES_CHECK_NO_REDUCTION, f, &states), va;

            if (f->kind != CES_FAULT_DELAY) {
                if (check_sliced(ctx, g, f, 2000000, 4096) != v ||
                    check_sliced(ctx, g, f, 2000000, 1) != v)
                    fail_msg("seed %u, %s:r%u.s%u#%u: the reduced search trying sliced "
                             "searches early differs from the unreduced one (%#x)",
                             (unsigned)seed, ces_fault_kind_name(f->kind), f->rank, f->stream,
                             f->index, v);
                others++;
                continue;
            }
            va = check(ctx, g, CES_CHECK_NO_REDUCTION | CES_CHECK_ABORT, f, &states);
            if (check_sampled(ctx, g, f, 2000000) != v)
                fail_msg("seed %u, delay:r%u.s%u#%u: the reduced search running random "
                         "executions from its first state differs from the unreduced one",
                         (unsigned)seed, f->rank, f->stream, f->index);
            if (v != w->verdict || va != w->verdict_abort)
                fail_msg("seed %u, delay:r%u.s%u#%u: the reduced search says %#x (%#x with "
                         "the watchdog), the unreduced one %#x (%#x)",
                         (unsigned)seed, f->rank, f->stream, f->index, w->verdict,
                         w->verdict_abort, v, va);
            assert_int_equal(v & CES_V_INCOMPLETE, 0);
            delays++;
            shown += v != CES_V_OK;
        }
        ces_free(ctx, rows);
        ces_graph_destroy(g);
    }
    printf("80 generated schedules: %zu delayed writes, %zu not OK; %zu drops and stops, "
           "sliced searches proved no RACE or MISMATCH %u times, could not %u times\n",
           delays, shown, others, proofs, unproved);
    assert_true(delays >= 400);
    assert_true(shown >= delays / 5);
    assert_true(others >= 1000);
    assert_true(proofs >= 10);
    ces_test_ctx_end(ctx, &st);
}

/* A schedule text, line by line. */
struct text {
    char buf[4096];
    size_t len;
};

static void line(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n + 1 < sizeof(t->buf) - t->len);
    t->len += (size_t)n;
    t->buf[t->len++] = '\n';
    t->buf[t->len] = '\0';
}

/* Both searches on the schedule `t` give `want`. */
static void compare_text(struct ces_ctx *ctx, const struct text *t, const char *what,
                         uint32_t want, uint64_t *sr, uint64_t *sf)
{
    struct ces_prog *p = NULL;
    struct ces_graph *g = NULL;

    if (ces_prog_parse(ctx, t->buf, t->len, "t.ces", &p) != CES_OK ||
        ces_prog_expand(ctx, p, &g) != CES_OK)
        fail_msg("%s: %s", what, ces_ctx_last_error(ctx));
    if (compare(ctx, g, what, sr, sf) != want)
        fail_msg("%s: not the verdict known for it (%#x)\n%s", what, want, t->buf);
    ces_graph_destroy(g);
    ces_prog_destroy(p);
}

/* The reduction's shortcuts for a slot whose writers' values never
 * decrease.  While a process stands still, whether another can pass a
 * wait, or which writers can meet a blocked wait, is judged from the first
 * and the last value each writer can still write (over 8 writes to the
 * slot, writer by writer); and past the first guards of a process (4 per
 * slot it waits on, plus 8) a run of `==` waits for values that never
 * decrease is crossed range by range, a range being the value the slot
 * holds or the values a writer can still write, whose upper end a wait may
 * equal.  Two families, each HANG by a race the reduced search finds only
 * if those judgements hold:
 * - r1 raises r2's f to 1, 2, ..., n (u32 or u64); r2 waits f >= k, then
 *   writes r0's t = 1; r0 waits t == 0 first, which r2's write may beat.
 *   With k above 1 the first value r1 can write does not meet r2's wait,
 *   the last does.
 * - r1 raises r2's f to 1, waits for r2's ack and raises it to 2; r2 waits
 *   f == 1 m1 times, acks, waits f == 2 m2 times, then writes r0's g = 2;
 *   r0 writes its g = 1, then waits g == 2, which r2's write may have
 *   preceded. */
static void test_sorted_writes(void **state)
{
    static const uint32_t m1s[] = {1, 8, 11, 12, 13, 14}, m2s[] = {1, 2, 12, 13, 14};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    uint64_t sr = 0, sf = 0;
    unsigned checked = 0;

    (void)state;
    for (int w = 0; w < 2; w++) {
        for (uint32_t n = 1; n <= 12; n++) {
            for (uint32_t k = 1; k <= n; k++) {
                struct text t = {.len = 0};
                char what[64];

                line(&t, "cesync 1\nranks 3\nsignal f %s 1\nsignal t u64 1\nphase eager x1",
                     w ? "u64" : "u32");
                line(&t, "r0 : wait t[0] == 0");
                for (uint32_t v = 1; v <= n; v++)
                    line(&t, "r1 : write f[0]@2 = %u", v);
                line(&t, "r2 : wait f[0] >= %u\nr2 : write t[0]@0 = 1", k);
                snprintf(what, sizeof(what), "%u writes up to %u (%s), wait >= %u", n, n,
                         w ? "u64" : "u32", k);
                compare_text(ctx, &t, what, CES_V_HANG, &sr, &sf);
                checked++;
            }
        }
    }
    for (size_t i = 0; i < sizeof(m1s) / sizeof(m1s[0]); i++) {
        for (size_t j = 0; j < sizeof(m2s) / sizeof(m2s[0]); j++) {
            struct text t = {.len = 0};
            char what[64];

            line(&t, "cesync 1\nranks 3\nsignal f u64 1\nsignal g u64 1\nsignal ack u64 1\n"
                     "phase eager x1");
            line(&t, "r0 : write g[0] = 1\nr0 : wait g[0] == 2");
            line(&t, "r1 : write f[0]@2 = 1\nr1 : wait ack[0] >= 1\nr1 : write f[0]@2 = 2");
            for (uint32_t k = 0; k < m1s[i]; k++)
                line(&t, "r2 : wait f[0] == 1");
            line(&t, "r2 : write ack[0]@1 = 1");
            for (uint32_t k = 0; k < m2s[j]; k++)
                line(&t, "r2 : wait f[0] == 2");
            line(&t, "r2 : write g[0]@0 = 2");
            snprintf(what, sizeof(what), "%u waits == 1, %u waits == 2", m1s[i], m2s[j]);
            compare_text(ctx, &t, what, CES_V_HANG, &sr, &sf);
            checked++;
        }
    }
    printf("%u schedules of sorted writes and runs of == waits: states reduced %llu, "
           "unreduced %llu\n", checked, (unsigned long long)sr, (unsigned long long)sf);
    assert_int_equal(checked, 2 * 78 + 30);
    ces_test_ctx_end(ctx, &st);
}

/* Adds to rank r a write (kind) into slot 0 of signal x of rank `at`, or a
 * wait (kind, cmp) on it. */
static void slot_op(struct ces_graph *g, uint32_t r, uint8_t kind, uint32_t x, uint32_t at,
                    uint8_t cmp, uint64_t value)
{
    struct ces_op o = {.kind = kind, .cmp = cmp, .slot = {x, at, 0}, .value = value};

    assert_int_equal(ces_graph_add_op(g, r, &o), CES_OK);
}

/* A writer whose u64 values count by one across 2^64 (2^64-1, then 0) can
 * write both, not the values between them the other way round: a run of
 * `==` waits on the slot is crossed with that in mind (past the first 12
 * guards of r2, where the runs take over from the walk).  r0 raises r2's
 * x to 2^64-1 once r2 acks, and to 0 after its second ack; r2 waits x == 0
 * 12 times, acks, waits x == 2^64-1, acks and writes r3's y = 2, which r1's
 * y = 1 may follow: then r3's wait y == 2 hangs. */
static void test_unit_wrap(void **state)
{
    enum { X = 0, Y = 1, A = 2 };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    uint64_t sr = 0, sf = 0;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 4, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "x", CES_U64, 1, NULL), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "y", CES_U64, 1, NULL), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "a", CES_U64, 1, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    slot_op(g, 0, CES_OP_WAIT, A, 0, CES_CMP_GEQ, 1);
    slot_op(g, 0, CES_OP_WRITE, X, 2, 0, UINT64_MAX);
    slot_op(g, 0, CES_OP_WAIT, A, 0, CES_CMP_GEQ, 2);
    slot_op(g, 0, CES_OP_WRITE, X, 2, 0, 0);
    slot_op(g, 1, CES_OP_WRITE, Y, 3, 0, 1);
    for (int k = 0; k < 12; k++)
        slot_op(g, 2, CES_OP_WAIT, X, 2, CES_CMP_EQ, 0);
    slot_op(g, 2, CES_OP_WRITE, A, 0, 0, 1);
    slot_op(g, 2, CES_OP_WAIT, X, 2, CES_CMP_EQ, UINT64_MAX);
    slot_op(g, 2, CES_OP_WRITE, A, 0, 0, 2);
    slot_op(g, 2, CES_OP_WRITE, Y, 3, 0, 2);
    slot_op(g, 3, CES_OP_WAIT, Y, 3, CES_CMP_EQ, 2);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(compare(ctx, g, "u64 writes 2^64-1, 0", &sr, &sf), CES_V_HANG);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Compares the searches on every fixture of subdir; with `all_ok`, each
 * must also check OK (the good fixtures are correct schedules: agreeing on
 * a wrong verdict is no pass).  The bad ones' verdicts are pinned by
 * test_fixtures. */
static void fixtures(const char *subdir, bool all_ok)
{
    char **paths = NULL;
    size_t n = ces_test_list(subdir, ".ces", &paths);
    uint64_t sr = 0, sf = 0;

    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
        struct ces_test_alloc st;
        struct ces_ctx *ctx = ces_test_ctx(&st);
        struct ces_graph *g = NULL;
        uint32_t v;

        if (ces_graph_load(ctx, paths[i], &g) != CES_OK)
            fail_msg("%s: %s", paths[i], ces_ctx_last_error(ctx));
        v = compare(ctx, g, paths[i], &sr, &sf);
        if (all_ok && v != CES_V_OK) {
            char a[64];

            ces_verdict_format(v, a, sizeof(a));
            fail_msg("%s: a correct schedule, but the checker says %s", paths[i], a);
        }
        ces_graph_destroy(g);
        ces_test_ctx_end(ctx, &st);
    }
    printf("%zu fixtures in %s: states reduced %llu, unreduced %llu\n", n, subdir,
           (unsigned long long)sr, (unsigned long long)sf);
    ces_test_list_free(paths, n);
}

static void test_good_fixtures(void **state)
{
    (void)state;
    fixtures("good", true);
}

static void test_bad_fixtures(void **state)
{
    (void)state;
    fixtures("bad", false);
}

/* The report of a reduced check of g with the kept answers' slot bits
 * `slot` (ces_sim_kept_slot) and consumes_race's hash of the slot values
 * or not (`vals`, ces_sim_kept_vals), both put back before any assertion
 * can leave. */
static struct ces_check_report *check_slot(struct ces_ctx *ctx, const struct ces_graph *g,
                                           uint64_t slot, bool vals)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    int rc;

    ces_check_opts_init(&o);
    o.max_states = 400000;
    o.max_seconds = 20;
    ces_sim_kept_slot = slot;
    ces_sim_kept_vals = vals;
    rc = ces_check(ctx, g, &o, &r);
    ces_sim_kept_slot = UINT64_MAX;
    ces_sim_kept_vals = true;
    if (rc != CES_OK)
        fail_msg("ces_check: %s", ces_ctx_last_error(ctx));
    return r;
}

/* cycle_possible and consumes_race keep their answers under their keys
 * (the first blocking positions; the program counters and slot values),
 * in tables whose entry a hash of the key picks, told apart from the key
 * already there by a compare.  With the hash cut to nothing
 * (ces_sim_kept_slot), every key takes the one entry and the compare alone
 * tells it from the last: the 1,000 generated schedules and the 200
 * hand-offs still get the same verdict, counts and counterexamples. */
static void test_kept_collisions(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_gen_opts go;

    (void)state;
    ces_gen_opts_init(&go);
    for (uint32_t i = 0; i < SEEDS + 200; i++) {
        struct ces_graph *g = NULL;
        struct ces_check_report *r, *w;
        char what[64];

        go.shapes = i < SEEDS ? CES_GEN_CLASSIC : CES_GEN_HANDOFF;
        assert_int_equal(ces_gen_graph(ctx, i < SEEDS ? i : i - SEEDS, &go, &g), CES_OK);
        r = check_slot(ctx, g, UINT64_MAX, true);
        w = check_slot(ctx, g, 0, true);
        snprintf(what, sizeof what, "cesync gen --seed %u%s", i < SEEDS ? i : i - SEEDS,
                 i < SEEDS ? "" : " --shapes handoff");
        ces_test_same_report(what, "the kept answers in one entry", r, w);
        ces_check_report_destroy(r);
        ces_check_report_destroy(w);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* consumes_race's answers meet keys of their program counters and other
 * slot values, which the compare of the values tells apart (with every key
 * in one entry they never do: the next key with those program counters
 * has the same values where a wait reads them, search.c).  r0 raises r1's
 * flag f[0]@1 and resets its own, f[1]@0, then waits for it and copies
 * into r1's dst; r1 resets its flag and raises r0's, then waits for it
 * and consumes dst.  The first search found the RACE of the copy with the
 * consume and no MISMATCH; the second looks at both processes past their
 * first write twice: r0's raise before r1's reset, f[0]@1 0, where r1
 * never consumes, then the reset before the raise, f[0]@1 1, where r1
 * consumes while r0 may hang (its reset after r1's raise): race-free, a
 * MISMATCH (dst never copied).  With the values left out of the hash
 * (ces_sim_kept_vals), the two keys take one entry: HANG, RACE and
 * MISMATCH in 17 states, 6 of them the second search's, as with the whole
 * hash (without the compare of the values, the second key took the
 * first's answer: HANG, RACE in 14). */
static void test_kept_values(void **state)
{
    static const char text[] =
        "cesync 1\nranks 2\nbuffer src 16\nbuffer dst 16\nsignal f u32 2\nphase eager x1\n"
        "r0 : write f[0]@1 = 1\nr0 : write f[1] = 0\nr0 : wait f[1] == 1\n"
        "r0 : copy src[0:16] -> dst[0:16]@1\nr1 : write f[0] = 0\nr1 : write f[1]@0 = 1\n"
        "r1 : wait f[0] == 1\nr1 : consume dst[0:16] == src[0:16]@0\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_check_report *r = check_slot(ctx, g, UINT64_MAX, true);
    struct ces_check_report *w = check_slot(ctx, g, UINT64_MAX, false);
    struct ces_check_stats s = ces_check_report_stats(w);

    (void)state;
    assert_int_equal(ces_check_report_verdict(w), CES_V_HANG | CES_V_RACE | CES_V_MISMATCH);
    assert_true(s.complete);
    assert_int_equal(s.states, 17);
    assert_int_equal(s.race_free_states, 6);
    ces_test_same_report("the consumes' answers by program counters", "their values unhashed",
                         r, w);
    ces_check_report_destroy(r);
    ces_check_report_destroy(w);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated),
        cmocka_unit_test(test_generated_four_ranks),
        cmocka_unit_test(test_generated_three_streams),
        cmocka_unit_test(test_generated_handoff),
        cmocka_unit_test(test_generated_any),
        cmocka_unit_test(test_generated_faults),
        cmocka_unit_test(test_sorted_writes),
        cmocka_unit_test(test_unit_wrap),
        cmocka_unit_test(test_good_fixtures),
        cmocka_unit_test(test_bad_fixtures),
        cmocka_unit_test(test_kept_collisions),
        cmocka_unit_test(test_kept_values),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
