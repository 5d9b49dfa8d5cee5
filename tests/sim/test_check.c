/*
 * tests/sim/test_check.c - the model checker on hand-built graphs whose
 * verdict is known: handshake, deadlock with its cycle, hang, deadlocks
 * found after a hang, the shortest counterexample kept, the states left
 * after a hang, race, mismatch, head-of-line blocking, u32 cyclic
 * compares, batches, graph replays, faults and the watchdog model, replay
 * strings, bounds, reports;
 * every verdict checked with and without the reduction.
 */
#include "ces_test.h"
#include "../../backend/sim/internal.h" /* ces_sim_sb_stats */

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Tables of every test graph: buffers send, recv (64 bytes), signals f (u32,
 * 4 slots), c (u64, 4 slots), event e. */
enum { SEND = 0, RECV = 1, F = 0, C = 1, EV = 0 };

static struct ces_graph *mk(struct ces_ctx *ctx, uint32_t ranks, uint32_t streams)
{
    struct ces_graph *g = NULL;

    assert_int_equal(ces_graph_create(ctx, ranks, streams, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "send", 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "recv", 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U32, 4, NULL), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "c", CES_U64, 4, NULL), CES_OK);
    assert_int_equal(ces_graph_add_event(g, "e", NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    return g;
}

static void op(struct ces_graph *g, uint32_t rank, struct ces_op o)
{
    assert_int_equal(ces_graph_add_op(g, rank, &o), CES_OK);
}

static struct ces_op W(uint32_t s, uint32_t sig, uint32_t at, uint32_t idx, uint64_t v)
{
    struct ces_op o = {.kind = CES_OP_WRITE, .stream = s, .slot = {sig, at, idx}, .value = v};
    return o;
}

static struct ces_op WT(uint32_t s, uint32_t sig, uint32_t at, uint32_t idx, uint32_t cmp,
                        uint64_t v)
{
    struct ces_op o = {.kind = CES_OP_WAIT, .stream = s, .cmp = (uint8_t)cmp,
                       .slot = {sig, at, idx}, .value = v};
    return o;
}

static struct ces_op CP(uint32_t s, uint32_t sb, uint32_t sr, uint64_t slo, uint32_t db,
                        uint32_t dr, uint64_t dlo, uint64_t n)
{
    struct ces_op o = {.kind = CES_OP_COPY, .stream = s, .a = {sb, sr, slo, slo + n},
                       .b = {db, dr, dlo, dlo + n}};
    return o;
}

static struct ces_op PR(uint32_t s, uint32_t b, uint32_t r, uint64_t lo, uint64_t hi)
{
    struct ces_op o = {.kind = CES_OP_PRODUCE, .stream = s, .a = {b, r, lo, hi}};
    return o;
}

static struct ces_op CO(uint32_t s, uint32_t b, uint32_t r, uint64_t lo, uint64_t hi,
                        uint32_t eb, uint32_t er, uint64_t elo)
{
    struct ces_op o = {.kind = CES_OP_CONSUME, .stream = s, .flags = CES_OPF_EXPECT,
                       .a = {b, r, lo, hi}, .b = {eb, er, elo, elo + (hi - lo)}};
    return o;
}

static struct ces_op K(uint32_t kind, uint32_t s)
{
    struct ces_op o = {.kind = (uint8_t)kind, .stream = s};
    return o;
}

static struct ces_op EVOP(uint32_t kind, uint32_t s)
{
    struct ces_op o = {.kind = (uint8_t)kind, .stream = s, .event = EV};
    return o;
}

/* Checks g with the given options, reduced and unreduced; both must give
 * `verdict`; returns the reduced report. */
static struct ces_check_report *check2(struct ces_ctx *ctx, struct ces_graph *g,
                                       const struct ces_check_opts *base, uint32_t verdict)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL, *u = NULL;

    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    if (base != NULL)
        o = *base;
    else
        ces_check_opts_init(&o);
    o.flags |= CES_CHECK_NO_REDUCTION;
    assert_int_equal(ces_check(ctx, g, &o, &u), CES_OK);
    assert_int_equal(ces_check_report_verdict(u), verdict);
    assert_true(ces_check_report_stats(u).complete);
    o.flags &= ~(uint32_t)CES_CHECK_NO_REDUCTION;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), verdict);
    assert_true(ces_check_report_stats(r).states <= ces_check_report_stats(u).states);
    ces_check_report_destroy(u);
    return r;
}

static const struct ces_check_defect *find(const struct ces_check_report *r, uint32_t cls)
{
    for (size_t i = 0; i < ces_check_report_ndefects(r); i++)
        if (ces_check_report_defect(r, i)->cls == cls)
            return ces_check_report_defect(r, i);
    fail_msg("no defect of class %u", cls);
    return NULL;
}

static char *text_of(struct ces_ctx *ctx, const struct ces_check_report *r)
{
    char *t = NULL;

    assert_int_equal(ces_check_report_text(ctx, r, &t, NULL), CES_OK);
    return t;
}

/* The report's text holds `text`, and its JSON `json1` and `json2`. */
static void report_has(struct ces_ctx *ctx, const struct ces_check_report *r, const char *text,
                       const char *json1, const char *json2)
{
    char *t = text_of(ctx, r);

    assert_non_null(strstr(t, text));
    ces_free(ctx, t);
    assert_int_equal(ces_check_report_json(ctx, r, &t, NULL), CES_OK);
    assert_non_null(strstr(t, json1));
    assert_non_null(strstr(t, json2));
    ces_free(ctx, t);
}

/* Re-runs a defect's replay string: same verdict class, same steps. */
static void replays(struct ces_ctx *ctx, struct ces_graph *g, const struct ces_check_opts *base,
                    const struct ces_check_defect *d)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    const struct ces_check_defect *d2;

    if (base != NULL)
        o = *base;
    else
        ces_check_opts_init(&o);
    o.replay = d->replay;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    if (d->cls == CES_CHECK_ABORTED)
        assert_int_equal(ces_check_report_stats(r).aborted, 1);
    else
        assert_true(ces_check_report_verdict(r) & d->cls);
    d2 = find(r, d->cls);
    assert_int_equal(d2->nsteps, d->nsteps);
    for (size_t i = 0; i < d->nsteps; i++) {
        assert_int_equal(d2->steps[i].pos.rank, d->steps[i].pos.rank);
        assert_int_equal(d2->steps[i].pos.stream, d->steps[i].pos.stream);
        assert_int_equal(d2->steps[i].pos.index, d->steps[i].pos.index);
    }
    assert_int_equal(ces_check_report_stats(r).mode, CES_CHECK_REPLAY);
    ces_check_report_destroy(r);
}

/* ces_check refuses g under o (CES_ERR_INVALID, no report) with message
 * `msg` (NULL: any). */
static void refused(struct ces_ctx *ctx, const struct ces_graph *g, const struct ces_check_opts *o,
                    const char *msg)
{
    struct ces_check_report *r = NULL;

    assert_int_equal(ces_check(ctx, g, o, &r), CES_ERR_INVALID);
    assert_null(r);
    if (msg != NULL)
        assert_string_equal(ces_ctx_last_error(ctx), msg);
}

/* ces_check and the fault sweep both refuse g as past what the checker
 * takes (CES_ERR_LIMIT: no report, no rows), with message `msg`. */
static void past_limit(struct ces_ctx *ctx, const struct ces_graph *g, const char *msg)
{
    struct ces_check_report *r = NULL;
    struct ces_check_sweep_row *rows = NULL;
    struct ces_check_sweep_rest rest;
    size_t n = 1;

    assert_int_equal(ces_check(ctx, g, NULL, &r), CES_ERR_LIMIT);
    assert_null(r);
    assert_string_equal(ces_ctx_last_error(ctx), msg);
    assert_int_equal(ces_check_fault_sweep(ctx, g, NULL, &rows, &n, &rest), CES_ERR_LIMIT);
    assert_null(rows);
    assert_int_equal(n, 0);
    assert_string_equal(ces_ctx_last_error(ctx), msg);
}

/* r writes f[r]@peer = 1 and waits f[peer] == 1 on its own rank, then copies
 * its send to the peer's recv; after a second handshake (c) the peer
 * consumes it. */
static struct ces_graph *handshake(struct ces_ctx *ctx, bool wait_first)
{
    struct ces_graph *g = mk(ctx, 2, 1);

    for (uint32_t r = 0; r < 2; r++) {
        uint32_t p = 1 - r;

        op(g, r, PR(0, SEND, r, 0, 32));
        if (wait_first) {
            op(g, r, WT(0, F, r, p, CES_CMP_EQ, 1));
            op(g, r, W(0, F, p, r, 1));
        } else {
            op(g, r, W(0, F, p, r, 1));
            op(g, r, WT(0, F, r, p, CES_CMP_EQ, 1));
        }
        op(g, r, CP(0, SEND, r, 0, RECV, p, 0, 32));
        op(g, r, W(0, C, p, r, 1));
        op(g, r, WT(0, C, r, p, CES_CMP_GEQ, 1));
        op(g, r, CO(0, RECV, r, 0, 32, SEND, p, 0));
    }
    return g;
}

static void test_handshake_ok(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, false);
    struct ces_check_report *r = check2(ctx, g, NULL, CES_V_OK);
    char *t = text_of(ctx, r);

    (void)state;
    assert_int_equal(ces_check_report_ndefects(r), 0);
    assert_true(ces_check_report_stats(r).executions >= 1);
    assert_memory_equal(t, "verdict: OK\nstatistics: ", 24);
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The statistics line: a rate only of a time it shows as more than
 * 0.000 s, and none of a replay, its one execution.  It printed "0.000 s,
 * 40155.8 executions/s" of a replay and of a sample of a few executions,
 * and "0.0 executions/s" (or "0 states/s") of no time at all. */
static void test_stats_line(void **state)
{
    static const struct {
        struct ces_check_stats s;
        const char *line;
    } rows[] = {
        {{CES_CHECK_REPLAY, 1, 0, 12, 1, 0, 12, 0.0, 4812, 0, 0, 0},
         "statistics: 1 execution, 12 transitions, 0.000 s, peak memory 4.7 KiB\n"},
        {{CES_CHECK_REPLAY, 1, 0, 12, 1, 0, 12, 2.5, 4812, 0, 0, 0},
         "statistics: 1 execution, 12 transitions, 2.500 s, peak memory 4.7 KiB\n"},
        {{CES_CHECK_RANDOM, 0, 0, 36, 3, 0, 12, 0.0, 7578, 0, 0, 0},
         "statistics: 3 executions, 36 transitions, 0.000 s, peak memory 7.4 KiB\n"},
        {{CES_CHECK_RANDOM, 0, 0, 36, 3, 0, 12, 0.0004, 7578, 0, 0, 0},
         "statistics: 3 executions, 36 transitions, 0.000 s, peak memory 7.4 KiB\n"},
        {{CES_CHECK_RANDOM, 0, 0, 36, 3, 0, 12, 0.002, 7578, 0, 0, 0},
         "statistics: 3 executions, 36 transitions, 0.002 s, 1500.0 executions/s, peak memory "
         "7.4 KiB\n"},
        {{CES_CHECK_RANDOM, 0, 0, 12, 1, 0, 12, 5.0, 7578, 0, 0, 0},
         "statistics: 1 execution, 12 transitions, 5.000 s, 0.2 executions/s, peak memory "
         "7.4 KiB\n"},
        {{CES_CHECK_EXHAUSTIVE, 1, 12, 20, 2, 0, 6, 0.0, 1048576, 0, 0, 0},
         "statistics: 12 states, 20 transitions, 2 end states, 0.000 s, peak memory 1.0 MiB\n"},
        {{CES_CHECK_EXHAUSTIVE, 1, 12, 20, 2, 0, 6, 0.5, 1048576, 0, 0, 0},
         "statistics: 12 states, 20 transitions, 2 end states, 0.500 s, 24 states/s, peak "
         "memory 1.0 MiB\n"},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, false);
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    char *t = NULL;
    const char *at;
    bool at_rate, at_time;

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct ces_sb sb;

        ces_sb_init(&sb, ctx);
        ces_sim_sb_stats(&sb, &rows[i].s);
        assert_int_equal(sb.status, CES_OK);
        assert_string_equal(sb.buf, rows[i].line);
        ces_sb_free(&sb);
    }
    /* a replay's report, whatever its time */
    ces_check_opts_init(&o);
    o.replay = "0.1";
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_text(ctx, r, &t, NULL), CES_OK);
    at = strstr(t, "statistics: 1 execution, ");
    assert_non_null(at);
    at_rate = strstr(at, "/s") != NULL;
    at_time = strstr(at, " s, peak memory ") != NULL;
    ces_free(ctx, t);
    assert_false(at_rate);
    assert_true(at_time);
    /* the JSON report: a rate of a measured time, null of none */
    r->stats.states = 12;
    r->stats.seconds = 0.5;
    assert_int_equal(ces_check_report_json(ctx, r, &t, NULL), CES_OK);
    assert_non_null(strstr(t, ",\"seconds\":0.500000,\"states_per_second\":24.0,\"peak_memory\":"));
    ces_free(ctx, t);
    r->stats.seconds = 0.0;
    assert_int_equal(ces_check_report_json(ctx, r, &t, NULL), CES_OK);
    assert_non_null(strstr(t, ",\"seconds\":0.000000,\"states_per_second\":null,\"peak_memory\":"));
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* ces_check_report_print writes the text report, and says a failed write
 * (to a device that is full: within the stream's buffer, it was CES_OK). */
static void test_report_print(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, true);
    struct ces_check_report *r = check2(ctx, g, NULL, CES_V_DEADLOCK);
    char *t = text_of(ctx, r), *got;
    FILE *f = tmpfile();
    size_t n;

    (void)state;
    assert_non_null(f);
    assert_int_equal(ces_check_report_print(ctx, r, f), CES_OK);
    n = (size_t)ftell(f);
    assert_int_equal(n, strlen(t));
    got = malloc(n + 1);
    assert_non_null(got);
    rewind(f);
    assert_int_equal(fread(got, 1, n, f), n);
    got[n] = '\0';
    assert_string_equal(got, t);
    free(got);
    fclose(f);
    f = fopen("/dev/full", "w");
    if (f != NULL) {
        assert_int_equal(ces_check_report_print(ctx, r, f), CES_ERR_IO);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "writing the report failed: No space left on device");
        fclose(f);
    }
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_deadlock_cycle(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, true);
    struct ces_check_report *r = check2(ctx, g, NULL, CES_V_DEADLOCK);
    const struct ces_check_defect *d = find(r, CES_V_DEADLOCK);
    char *t = text_of(ctx, r), *json = NULL;

    (void)state;
    assert_int_equal(d->nblocked, 2);
    assert_int_equal(d->ncycle, 2);
    for (uint32_t i = 0; i < 2; i++) {
        assert_int_equal(d->blocked[i].reason, CES_BLOCK_WAIT);
        assert_int_equal(d->blocked[i].pos.rank, i);
        assert_int_equal(d->blocked[i].pos.index, 1);
        assert_int_equal(d->blocked[i].held, 0);
        assert_int_equal(d->blocked[i].awaited, 1);
        assert_int_equal(d->blocked[i].nedges, 1);
        assert_int_equal(d->blocked[i].edges[0].pos.rank, 1 - i);
        assert_int_equal(d->blocked[i].edges[0].pos.index, 2);
        assert_int_equal(d->blocked[i].edges[0].to, 1 - i);
    }
    assert_int_equal(d->nsteps, 2); /* both produces, then stuck */
    assert_non_null(strstr(t, "verdict: DEADLOCK\nDEADLOCK: counterexample of 2 steps\n"
                              "    1 r0.s0#0 produce send[0:32]\n"
                              "    2 r1.s0#0 produce send[0:32]\n"
                              "  replay: 0.1\n  blocked:\n"
                              "    r0.s0#1 wait f[1] == 1: f[1]@0 holds 0, awaits == 1\n"
                              "      could be written by r1.s0#2 write f[1]@0 = 1, but r1.s0 is "
                              "blocked at r1.s0#1\n"));
    assert_non_null(strstr(t, "  cycle: r0.s0#1 -> r1.s0#1 -> r0.s0#1\n"));
    replays(ctx, g, NULL, d);
    assert_int_equal(ces_check_report_json(ctx, r, &json, NULL), CES_OK);
    assert_memory_equal(json, "{\"verdict\":\"DEADLOCK\",\"bits\":1,", 31);
    ces_free(ctx, json);
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_hang_nobody_writes(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, 1);
    struct ces_check_report *r;
    const struct ces_check_defect *d;

    (void)state;
    op(g, 0, W(0, F, 1, 0, 1));
    op(g, 1, WT(0, F, 1, 0, CES_CMP_GEQ, 2));
    r = check2(ctx, g, NULL, CES_V_HANG);
    d = find(r, CES_V_HANG);
    assert_int_equal(d->nblocked, 1);
    assert_int_equal(d->blocked[0].pos.rank, 1);
    assert_int_equal(d->blocked[0].held, 1);
    assert_int_equal(d->blocked[0].nedges, 0);
    assert_int_equal(d->ncycle, 0);
    replays(ctx, g, NULL, d);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A DEADLOCK found after a HANG: r2 waits for r0's f[0]@2 = 1, which r1's
 * 2 may overwrite (a HANG, the search's first execution); where r2 passes,
 * it and r3 each wait for what the other writes only afterwards (a cycle).
 * The search follows no state from which nothing but the classes found can
 * come (docs/SEMANTICS.md, section 10, "Classes already found"); past the
 * HANG the state where r1 wrote first can still reach the cycle, and its
 * wait-for over-approximation says so. */
static void test_deadlock_after_hang(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 4, 1);
    struct ces_check_report *r;

    (void)state;
    op(g, 0, W(0, F, 2, 0, 1));
    op(g, 1, W(0, F, 2, 0, 2));
    op(g, 2, WT(0, F, 2, 0, CES_CMP_EQ, 1));
    op(g, 2, WT(0, F, 2, 1, CES_CMP_EQ, 1));
    op(g, 2, W(0, F, 3, 2, 1));
    op(g, 3, WT(0, F, 3, 2, CES_CMP_EQ, 1));
    op(g, 3, W(0, F, 2, 1, 1));
    r = check2(ctx, g, NULL, CES_V_DEADLOCK | CES_V_HANG);
    assert_int_equal(find(r, CES_V_DEADLOCK)->ncycle, 2);
    replays(ctx, g, NULL, find(r, CES_V_DEADLOCK));
    replays(ctx, g, NULL, find(r, CES_V_HANG));
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Checks g once under o (NULL: defaults) with `flags` added; the verdict
 * must be `verdict` and the statistics `states` states and `executions`
 * end states reached. */
static struct ces_check_report *check1(struct ces_ctx *ctx, const struct ces_graph *g,
                                       const struct ces_check_opts *base, uint32_t flags,
                                       uint32_t verdict, uint64_t states, uint64_t executions)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;

    if (base != NULL)
        o = *base;
    else
        ces_check_opts_init(&o);
    o.flags |= flags;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), verdict);
    assert_int_equal(ces_check_report_stats(r).states, states);
    assert_int_equal(ces_check_report_stats(r).executions, executions);
    return r;
}

/* The counterexample of a class is the shortest found.  r2 writes f[0] =
 * 1, 2, 3; r0 waits for 1, r1 for 2.  Without the reduction every end
 * state is reached: the first HANG, r0 passed and r1 missed its value (4
 * steps), comes before the one where both missed theirs (3 steps, 2*3),
 * which is reported.  The reduced search follows nothing once its first
 * HANG is found, for nothing else can come (docs/SEMANTICS.md, section 10,
 * "Classes already found"): that one is reported, 4 steps, after 7
 * states. */
static void test_shortest_kept(void **state)
{
    static const char text[] = "cesync 1\nranks 3\nsignal f u32 1\nphase eager x1\n"
                               "r0 : wait f[0] == 1\n"
                               "r1 : wait f[0]@0 == 2\n"
                               "r2 : write f[0]@0 = 1\n"
                               "r2 : write f[0]@0 = 2\n"
                               "r2 : write f[0]@0 = 3\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_check_report *r;
    const struct ces_check_defect *d;

    (void)state;
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    r = check1(ctx, g, NULL, CES_CHECK_NO_REDUCTION, CES_V_HANG, 11, 4);
    d = find(r, CES_V_HANG);
    assert_string_equal(d->replay, "2*3");
    assert_int_equal(d->nblocked, 2);
    ces_check_report_destroy(r);
    r = check1(ctx, g, NULL, 0, CES_V_HANG, 7, 2);
    d = find(r, CES_V_HANG);
    assert_string_equal(d->replay, "2.0.2*2");
    assert_int_equal(d->nblocked, 1);
    assert_int_equal(d->blocked[0].pos.rank, 1);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Of equally short counterexamples the first found is kept.  r0 waits for
 * f[0] = 1, which r2 overwrites with 2, and then sets f[1]@1, which r1
 * waits to stay 0: one of the two hangs, after 4 steps either way.  The
 * unreduced search, lowest process first, reaches r0's hang first (r1
 * runs to its end, then r2) and then r1's. */
static void test_first_of_shortest_kept(void **state)
{
    static const char text[] = "cesync 1\nranks 3\nsignal f u32 3\nphase eager x1\n"
                               "r0 : wait f[0] == 1\n"
                               "r0 : write f[1]@1 = 1\n"
                               "r1 : wait f[1] == 0\n"
                               "r1 : write f[2] = 1\n"
                               "r2 : write f[0]@0 = 1\n"
                               "r2 : write f[0]@0 = 2\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_check_report *r;
    const struct ces_check_defect *d;

    (void)state;
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    r = check1(ctx, g, NULL, CES_CHECK_NO_REDUCTION, CES_V_HANG, 21, 3);
    d = find(r, CES_V_HANG);
    assert_string_equal(d->replay, "1*2.2*2");
    assert_int_equal(d->nblocked, 1);
    assert_int_equal(d->blocked[0].pos.rank, 0);
    ces_check_report_destroy(r);
    /* reduced, the first HANG is the only one followed */
    r = check1(ctx, g, NULL, 0, CES_V_HANG, 6, 1);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* DEADLOCKs of every kind of wait-for edge, each found after a HANG: r0
 * and r1 write f[0]@2 = 1 and 2, and r2 hangs where 2 comes last (the
 * search's first execution); where r2 passes, it is left in a cycle.
 * After the HANG the search follows a state only while its wait-for
 * over-approximation has a cycle (docs/SEMANTICS.md, section 10): it must
 * see each of these, through a rank's wait for its own later write (a
 * cycle of one), an await of a record, a shared hardware queue and a
 * replay boundary (the write of the second replay needs the first
 * replay's wait done; with the first block $i counts 2 and 3 there), and
 * through two waits, each left blocked where its rank's second reset lands
 * after the peer's raise: each raise follows its rank's first reset but
 * precedes its second, so the order in time allows the cycle (section 10,
 * "Cycles the order in time rules out"; judged by the first resets, it
 * would not). */
static void test_cycles_after_hang(void **state)
{
#define AFTER_HANG "phase eager x1\nr0 : write f[0]@2 = 1\nr1 : write f[0]@2 = 2\n"
    static const struct {
        const char *text;
        size_t ncycle;
        uint64_t states; /* stored, and steps taken (equal here: a state from
                            which only classes already found can come is left
                            without a step once the DEADLOCK is found too) */
    } rows[] = {
        {"cesync 1\nranks 3\nsignal f u32 2\n" AFTER_HANG
         "r2 : wait f[0] == 1\nr2 : wait f[1] == 1\nr2 : write f[1] = 1\n",
         1, 5},
        {"cesync 1\nranks 3\nstreams 2\nsignal f u32 1\nsignal g u32 1\n" AFTER_HANG
         "r2 s1 : wait g[0] == 1\nr2 s1 : record e\n"
         "r2 s0 : wait f[0] == 1\nr2 s0 : await e\nr2 s0 : write g[0] = 1\n",
         2, 5},
        {"cesync 1\nranks 4\nstreams 2\nconnections 1\nsignal f u32 1\nsignal g u32 1\n"
         "signal h u32 1\n" AFTER_HANG
         "r2 s0 : wait f[0] == 1\nr2 s0 : wait g[0] >= 1\nr2 s1 : write h[0]@3 = 1\n"
         "r3 : wait h[0] >= 1\nr3 : write g[0]@2 = 1\n",
         3, 5},
        {"cesync 1\nranks 3\nstreams 2\nsignal f u32 1\nsignal g u64 1\n" AFTER_HANG
         "r2 s0 : wait f[0] == 1\nphase eager x2\n"
         "r2 s0 : wait g[0] >= 3\nr2 s1 : write g[0] = $i\n",
         2, 6},
        {"cesync 1\nranks 4\nsignal f u32 1\nsignal x u32 1\nsignal y u32 1\n" AFTER_HANG
         "r2 : wait f[0] == 1\nr2 : write x[0] = 0\nr2 : write y[0]@3 = 1\n"
         "r2 : write x[0] = 0\nr2 : wait x[0] == 1\nr2 : write y[0]@3 = 1\n"
         "r3 : write y[0] = 0\nr3 : write x[0]@2 = 1\nr3 : write y[0] = 0\n"
         "r3 : wait y[0] == 1\nr3 : write x[0]@2 = 1\n",
         2, 17},
    };
#undef AFTER_HANG
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct ces_graph *g = ces_test_text_graph(ctx, rows[i].text);
        struct ces_check_report *r = check2(ctx, g, NULL, CES_V_DEADLOCK | CES_V_HANG);
        const struct ces_check_defect *d = find(r, CES_V_DEADLOCK);

        assert_int_equal(d->ncycle, rows[i].ncycle);
        assert_int_equal(d->blocked[d->cycle[0]].pos.rank, 2);
        assert_int_equal(ces_check_report_stats(r).states, rows[i].states);
        assert_int_equal(ces_check_report_stats(r).transitions, rows[i].states);
        assert_int_equal(ces_check_report_stats(r).executions, 2);
        replays(ctx, g, NULL, d);
        replays(ctx, g, NULL, find(r, CES_V_HANG));
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* With --max-depth the search follows every state past a HANG: a state cut
 * at the bound below one that only classes already found could follow
 * must still make the verdict INCOMPLETE.  r1 passes f[0] == 1 where r0's
 * 2 comes after (r1 hangs at the search's first execution, 2 steps
 * deep); from the state after r1's wait and r0's 2, 3 steps deep, nothing
 * but a HANG can come, and its successors lie 4 steps deep.  (Without
 * the reduction, where r0's 2 is a choice too, a step deeper.) */
static void test_depth_bound_after_hang(void **state)
{
    static const char text[] = "cesync 1\nranks 3\nsignal f u32 1\nsignal g u32 1\n"
                               "phase eager x1\n"
                               "r0 : write f[0]@1 = 1\n"
                               "r0 : write f[0]@1 = 2\n"
                               "r1 : wait f[0] == 1\n"
                               "r1 : write g[0]@2 = 1\n"
                               "r1 : write g[0]@2 = 2\n"
                               "r2 : wait g[0] == 1\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;

    (void)state;
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    for (uint32_t i = 0; i < 2; i++) {
        ces_check_opts_init(&o);
        o.flags = i ? CES_CHECK_NO_REDUCTION : 0;
        o.max_depth = 4 + i;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_HANG | CES_V_INCOMPLETE);
        assert_false(ces_check_report_stats(r).complete);
        ces_check_report_destroy(r);
        o.max_depth = 5 + i;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_HANG);
        assert_true(ces_check_report_stats(r).complete);
        ces_check_report_destroy(r);
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* --first stops at the first defect, and the watchdog model's execution is
 * none: r1 misses f[0] = 1 at the search's first execution (the watchdog
 * releases it), and the search goes on to the RACE of r1's copy into b@0
 * with r0's consume of it. */
static void test_first_past_watchdog(void **state)
{
    static const char text[] = "cesync 1\nranks 2\nbuffer a 8\nbuffer b 8\nsignal f u32 1\n"
                               "phase eager x1\n"
                               "r0 : write f[0]@1 = 1\n"
                               "r0 : write f[0]@1 = 2\n"
                               "r0 : consume b[0:8]\n"
                               "r1 : wait f[0] == 1\n"
                               "r1 : copy a[0:8] -> b[0:8]@0\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_check_report *r;

    (void)state;
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    for (uint32_t i = 0; i < 2; i++) {
        uint32_t flags = (i ? CES_CHECK_NO_REDUCTION : 0) | CES_CHECK_ABORT | CES_CHECK_FIRST;

        /* every step is a choice without the reduction: 8 states */
        r = check1(ctx, g, NULL, flags, CES_V_RACE | CES_V_INCOMPLETE, i ? 8 : 4, 2);
        assert_int_equal(ces_check_report_stats(r).aborted, 1);
        ces_check_report_destroy(r);
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* r1 waits for f[0]@1 = 1, which r0 overwrites with 2, then for g[0] from
 * r2, which waits for h[0]@2 = 1, which r3 overwrites with 2.  Where
 * `waits`, `writes` or `fences` is not 0, a fifth rank r4 waits `waits`
 * times for its f[0] = 1, then writes it `writes` times with 2 and has
 * `fences` fences: it never moves, its ops stay left. */
static struct ces_graph *chain(struct ces_ctx *ctx, uint32_t waits, uint32_t writes,
                               uint32_t fences)
{
    static const char head[] = "cesync 1\nranks %u\nsignal f u32 1\nsignal g u32 1\n"
                               "signal h u32 1\nphase eager x1\n"
                               "r0 : write f[0]@1 = 1\nr0 : write f[0]@1 = 2\n"
                               "r1 : wait f[0] == 1\nr1 : wait g[0] == 1\n"
                               "r2 : wait h[0] == 1\nr2 : write g[0]@1 = 1\n"
                               "r3 : write h[0]@2 = 1\nr3 : write h[0]@2 = 2\n";
    static char text[65536];
    size_t n = (size_t)snprintf(text, sizeof(text), head, waits + writes + fences > 0 ? 5u : 4u);
    struct ces_graph *g;

    for (uint32_t i = 0; i < waits + writes + fences; i++) {
        const char *line = i < waits ? "r4 : wait f[0] == 1\n"
                           : i < waits + writes ? "r4 : write f[0] = 2\n"
                                                : "r4 : fence\n";

        assert_true(n + strlen(line) < sizeof(text));
        memcpy(text + n, line, strlen(line) + 1);
        n += strlen(line);
    }
    g = ces_test_text_graph(ctx, text);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    return g;
}

/* After a HANG the search follows no state whose wait-for
 * over-approximation has no cycle, and a chain is none: in chain(), r1
 * hangs at the first execution (0.3.0.2.3.2), and every state after it is
 * left, the first being r0 and r3 finished, where r1 waits for r2's write
 * of g[0] and r2 for no one: 8 states.  Followed, that state is the HANG
 * of both.  The look is taken only while at most
 * 4,096 ops are left there (4,091 fences of r4 after its wait) and it
 * scans at most 32,768 ops and writes (179 waits of r4 on a slot r4 writes
 * 179 times, and 360 fences: 722 ops left, 5 writes to the waits of r1 and
 * r2, 179 x 179 to those of r4): one more fence, and that state is
 * followed (docs/SEMANTICS.md, section 10). */
static void test_chain_left_after_hang(void **state)
{
    static const struct {
        uint32_t waits, writes, fences;
        uint64_t states, executions;
        size_t nblocked; /* of the HANG reported, the shortest found */
    } rows[] = {
        {0, 0, 0, 8, 1, 1},
        {1, 0, 4091, 8, 1, 2},
        {1, 0, 4092, 10, 2, 3},
        {179, 179, 360, 8, 1, 2},
        {179, 179, 361, 8, 2, 3},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct ces_graph *g = chain(ctx, rows[i].waits, rows[i].writes, rows[i].fences);
        struct ces_check_report *r = check2(ctx, g, NULL, CES_V_HANG);

        assert_int_equal(ces_check_report_stats(r).states, rows[i].states);
        assert_int_equal(ces_check_report_stats(r).executions, rows[i].executions);
        assert_int_equal(find(r, CES_V_HANG)->nblocked, rows[i].nblocked);
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* An op a stop keeps from running is no op left: a write neither disturbs
 * a wait nor satisfies one, a data access keeps no clock.  With r0 stopped
 * before its write of 2 and its produce, no clock is read again once 1 is
 * written, and r1's wait for 1 can run at once, with no choice: 2 states.
 * r1 and r2 would wait for each other (r1 writes h[0]@2 after its wait
 * for g[0]@1, r2 writes that after its wait for h[0]@2), but with r2
 * stopped before its write they wait in a chain, not a cycle, and the
 * search follows nothing past its first HANG: 6 states. */
static void test_stopped_ops_left_out(void **state)
{
    static const char stable[] = "cesync 1\nranks 2\nbuffer a 8\nsignal f u32 1\n"
                                 "phase eager x1\n"
                                 "r0 : write f[0]@1 = 1\n"
                                 "r0 : write f[0]@1 = 2\n"
                                 "r0 : produce a[0:8]\n"
                                 "r1 : wait f[0] == 1\n";
    static const char cycle[] = "cesync 1\nranks 4\nsignal f u32 1\nsignal g u32 1\n"
                                "signal h u32 1\nphase eager x1\n"
                                "r0 : write f[0]@1 = 1\nr0 : write f[0]@1 = 2\n"
                                "r1 : wait f[0] == 1\nr1 : wait g[0] == 1\n"
                                "r1 : write h[0]@2 = 1\n"
                                "r2 : wait h[0] == 1\nr2 : write g[0]@1 = 1\n"
                                "r3 : write h[0]@2 = 2\nr3 : write h[0]@2 = 3\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_fault f = {CES_FAULT_STOP, 0, 0, 1};
    struct ces_check_opts o;
    struct ces_graph *g;
    struct ces_check_report *r;

    (void)state;
    ces_check_opts_init(&o);
    o.faults = &f;
    o.nfaults = 1;
    g = ces_test_text_graph(ctx, stable);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    r = check2(ctx, g, &o, CES_V_HANG);
    assert_int_equal(ces_check_report_stats(r).states, 2);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    f.rank = 2;
    g = ces_test_text_graph(ctx, cycle);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    r = check2(ctx, g, &o, CES_V_HANG);
    assert_int_equal(ces_check_report_stats(r).states, 6);
    assert_int_equal(ces_check_report_stats(r).executions, 1);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A stopped op was never enqueued, so it leaves its hardware queue: with
 * connections 1, r0's write on s0 comes first in the queue, and stopped
 * before it, s0 holds nothing back: s1's produce of a@0 runs and races
 * with r1's copy of it (HANG for the stopped stream, and RACE).  Left in
 * the queue, the write held the produce behind it for ever: HANG only. */
static void test_stopped_op_leaves_queue(void **state)
{
    static const char text[] = "cesync 1\nranks 2\nstreams 2\nconnections 1\n"
                               "buffer a 16\nbuffer b 16\nsignal f u32 1\nphase eager x1\n"
                               "r0 : write f[0]@1 = 1\n"
                               "r0 s1 : produce a[0:16]\n"
                               "r1 : copy a[0:16]@0 -> b[0:16]\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_fault f;
    struct ces_check_opts o;
    struct ces_check_report *r;
    const struct ces_check_defect *d;

    (void)state;
    ces_check_opts_init(&o);
    o.faults = &f;
    o.nfaults = 1;
    assert_int_equal(ces_fault_parse(ctx, "stop:r0.s0#0", &f), CES_OK);
    r = check2(ctx, g, &o, CES_V_HANG | CES_V_RACE);
    d = find(r, CES_V_RACE);
    assert_int_equal(d->race[0].pos.rank, 0);
    assert_int_equal(d->race[0].pos.stream, 1);
    assert_int_equal(d->race[1].pos.rank, 1);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Of two stops of one stream the earlier position counts, in whatever
 * order they are given: stopped before op 0, r0.s0 never produces a, so
 * r1's copy of it races with nothing (HANG only); the stop before op 1 let
 * the produce run (HANG and RACE).  Two stops reach one stream as a
 * stream's own stop before its rank's (stop:r0#1 stops s0 before #1, s1
 * before #0); two stops of the stream itself are refused (a stream stops
 * once: test_faults_together). */
static void test_two_stops_earlier_counts(void **state)
{
    static const char text[] = "cesync 1\nranks 2\nstreams 2\nbuffer a 16\nbuffer b 16\n"
                               "signal f u32 2\nphase eager x1\n"
                               "r0 : produce a[0:16]\n"
                               "r0 : write f[0]@1 = 1\n"
                               "r0 s1 : write f[1]@1 = 1\n"
                               "r1 : copy a[0:16]@0 -> b[0:16]\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_fault f[2];
    struct ces_check_opts o;
    struct ces_check_report *r;

    (void)state;
    ces_check_opts_init(&o);
    o.faults = f;
    o.nfaults = 2;
    assert_int_equal(ces_fault_parse(ctx, "stop:r0.s0#0", &f[0]), CES_OK);
    assert_int_equal(ces_fault_parse(ctx, "stop:r0#1", &f[1]), CES_OK);
    r = check2(ctx, g, &o, CES_V_HANG);
    ces_check_report_destroy(r);
    assert_int_equal(ces_fault_parse(ctx, "stop:r0#1", &f[0]), CES_OK);
    assert_int_equal(ces_fault_parse(ctx, "stop:r0.s0#0", &f[1]), CES_OK);
    r = check2(ctx, g, &o, CES_V_HANG);
    ces_check_report_destroy(r);
    /* the rank's stop alone lets the produce run */
    o.nfaults = 1;
    r = check2(ctx, g, &o, CES_V_HANG | CES_V_RACE);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Two awaits of one record instance both take its clock: s1 and s2 each
 * await the record after s0's produce and then copy what it wrote, so
 * neither copy races with it (OK).  Had one await a clock slot of its own
 * that the record never stores, its copy would race. */
static void test_two_awaits_one_record(void **state)
{
    static const char text[] = "cesync 1\nranks 1\nstreams 3\nbuffer a 32\nbuffer b 32\n"
                               "phase eager x1\n"
                               "r0 : produce a[0:32]\n"
                               "r0 : record e\n"
                               "r0 s1 : await e\n"
                               "r0 s1 : copy a[0:16] -> b[0:16]\n"
                               "r0 s2 : await e\n"
                               "r0 s2 : copy a[16:32] -> b[16:32]\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_check_report *r;

    (void)state;
    r = check2(ctx, g, NULL, CES_V_OK);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The reduction's horizon judges each of a process's `==` waits on a slot
 * by its own value.  r1 waits for f[0] == 1 and then 13 times for 2 (past
 * the guards it walks one by one), r0 writes 1 then 2: from its second
 * wait on, r1 can pass as long as r0 can write 2 (r0 also raises f[1]@2
 * and produces a, which its stream s1 reads after an event and then
 * writes f[0] = 3: a store left that fails the waits, so no wait is run
 * eagerly as a stable one).  The search stores 37 states; with the waits
 * taken as one `==` value (the first's, 1, which r0 cannot write again,
 * so that r1 looked stuck there), or each judged by the first's value in
 * the runs' search, 8. */
static void test_eq_waits_own_values(void **state)
{
    char text[1024] = "cesync 1\nranks 3\nstreams 2\nbuffer a 16\nsignal f u64 2\n"
                      "phase eager x1\n"
                      "r0 : write f[0]@1 = 1\nr0 : write f[0]@1 = 2\nr0 : write f[1]@2 = 1\n"
                      "r0 : produce a[0:16]\nr0 : record e\nr0 s1 : await e\n"
                      "r0 s1 : consume a[0:16] == a[0:16]@0\nr0 s1 : write f[0]@1 = 3\n"
                      "r1 : wait f[0] == 1\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g;
    struct ces_check_report *r;

    (void)state;
    for (int i = 0; i < 13; i++)
        strcat(text, "r1 : wait f[0] == 2\n");
    strcat(text, "r1 : write f[1]@2 = 2\nr2 : wait f[1] >= 2\n");
    g = ces_test_text_graph(ctx, text);
    r = check1(ctx, g, NULL, 0, CES_V_HANG, 37, 1);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A writer's values that fall by one do not count as never decreasing:
 * r2 writes f[0]@1 = 1 then 0, and r1's wait for 1 passes only between
 * the two; r0 waits for a 1 nobody writes (HANG).  The reduced search
 * stores 7 states; with the fall taken for order, 6. */
static void test_falling_writes_unsorted(void **state)
{
    static const char text[] = "cesync 1\nranks 3\nsignal f u64 2\nphase eager x1\n"
                               "r0 : write f[0]@0 = 0\nr0 : wait f[0] == 1\n"
                               "r1 : wait f[0] == 1\nr1 : write f[0]@0 = 0\n"
                               "r2 : write f[0]@1 = 1\nr2 : write f[0]@1 = 0\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_check_report *r;

    (void)state;
    r = check1(ctx, g, NULL, 0, CES_V_HANG, 7, 1);
    ces_check_report_destroy(r);
    r = check1(ctx, g, NULL, CES_CHECK_NO_REDUCTION, CES_V_HANG, 14, 2);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The reduction's horizon reads `>=` on a u32 slot cyclically: r1's 13
 * waits for f[0] >= 0xf0000000 are more than 2^31 ahead of the values
 * f[0]@1 takes first (0, then r0's 1), so they pass at once; r0's stream
 * s1 then writes 0x70000000, 2^31 behind, which fails them (so that none
 * is run eagerly as a stable wait).  The search stores 59 states; with the
 * horizon comparing as plain u64, which holds them blocked, 4. */
static void test_u32_waits_horizon(void **state)
{
    char text[1024] = "cesync 1\nranks 3\nstreams 2\nbuffer a 16\nsignal f u32 2\n"
                      "phase eager x1\n"
                      "r0 : write f[0]@1 = 1\nr0 : write f[1]@2 = 1\nr0 : produce a[0:16]\n"
                      "r0 : record e\nr0 s1 : await e\nr0 s1 : consume a[0:16] == a[0:16]@0\n"
                      "r0 s1 : write f[0]@1 = 1879048192\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g;
    struct ces_check_report *r;

    (void)state;
    for (int i = 0; i < 13; i++)
        strcat(text, "r1 : wait f[0] >= 4026531840\n");
    strcat(text, "r1 : write f[1]@2 = 2\nr2 : wait f[1] >= 2\n");
    g = ces_test_text_graph(ctx, text);
    r = check1(ctx, g, NULL, 0, CES_V_HANG, 59, 1);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Clocks are read only by data accesses that another process's can
 * conflict with (docs/SEMANTICS.md, section 10, "What nothing will
 * read"): two `mono` barriers, whose waits may each observe the first
 * barrier's store or the second's (with different clocks), then data on
 * rank 1.  A produce no other process touches, or bytes two streams only
 * read, or two streams' produces of adjacent bytes leave the clocks dead
 * from the start: the unreduced search at 3 ranks stores 118 or 136
 * states, where a produce read by a second stream after an event, or a
 * copy whose destination is read so, keeps them live (1,042), as does a
 * produce that races with the read (926).  The reduced search runs the
 * barriers' waits early either way (their joins only rise, section 10,
 * "Waits run early"): 9 states at 4 ranks and 17 at 8 (3,939 at 4 and
 * over 10 million unfinished at 8 while the clocks stayed live); the race
 * adds a second search for a MISMATCH among race-free executions, which
 * follows no state once both accesses are sure to run (section 10, "Races
 * every execution has"): 13 states at 4 ranks, 25 at 8 (3,947 and past the
 * bound of 100,000 before). */
static void test_clocks_conflicts_only(void **state)
{
    static const struct {
        const char *tail;
        uint32_t verdict;
        uint64_t states4, states8, unreduced3;
    } cases[] = {
        {"r1 : produce a[0:16]\n", CES_V_OK, 9, 17, 118},
        {"r1 : consume a[0:16] == a[0:16]@1\nr1 s1 : consume a[0:16] == a[0:16]@1\n", CES_V_OK,
         9, 17, 136},
        {"r1 : produce a[0:16]\nr1 : record e\nr1 s1 : await e\n"
         "r1 s1 : consume a[0:16] == a[0:16]@1\n",
         CES_V_OK, 9, 17, 1042},
        {"r1 : produce a[0:16]\nr1 s1 : consume a[0:16] == a[0:16]@1\n", CES_V_RACE, 13, 25, 926},
        {"r1 : produce a[0:8]\nr1 s1 : produce a[8:16]\n", CES_V_OK, 9, 17, 136},
        {"r1 : copy a[0:8] -> a[8:16]\nr1 : record e\nr1 s1 : await e\n"
         "r1 s1 : consume a[8:16] == a[0:8]@1\n",
         CES_V_OK, 9, 17, 1042},
    };
    static const struct {
        uint32_t ranks, flags;
    } runs[] = {{4, 0}, {8, 0}, {3, CES_CHECK_NO_REDUCTION}};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_check_opts o;

    (void)state;
    ces_check_opts_init(&o);
    o.max_states = 100000; /* INCOMPLETE, not a long wait, where clocks live too long */
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const uint64_t states[] = {cases[i].states4, cases[i].states8, cases[i].unreduced3};

        for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
            char text[512];
            struct ces_graph *g;
            struct ces_check_report *r = NULL;
            uint32_t verdict = cases[i].verdict;

            snprintf(text, sizeof(text),
                     "cesync 1\nranks %u\nstreams 2\nbuffer a 16\nsignal ready u64 1\n"
                     "phase eager x2\nr* : write ready[0] = $i\n"
                     "r* over p : wait ready[0]@$p >= $i\nphase eager x1\n%s",
                     (unsigned)runs[k].ranks, cases[i].tail);
            g = ces_test_text_graph(ctx, text);
            o.flags = runs[k].flags;
            assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
            if (states[k] == o.max_states)
                verdict |= CES_V_INCOMPLETE;
            assert_int_equal(ces_check_report_verdict(r), verdict);
            assert_int_equal(ces_check_report_stats(r).states, states[k]);
            ces_check_report_destroy(r);
            ces_graph_destroy(g);
        }
    }
    ces_test_ctx_end(ctx, &st);
}

/* A `cesync gen` schedule (seed, ranks, --mutate) and what its check must
 * say. */
struct gen_row {
    uint64_t seed;
    uint32_t ranks, mutate, verdict;
    uint64_t states, transitions, executions;
    uint32_t streams, steps; /* (0: cesync gen's default, at random) */
};

/* Checks each row's schedule (with the unreduced search's verdict too where
 * `unreduced`), its exact statistics, and the replay of its HANG. */
static void check_gen_rows(struct ces_ctx *ctx, const struct gen_row *rows, size_t n,
                           bool unreduced)
{
    for (size_t i = 0; i < n; i++) {
        struct ces_gen_opts go;
        struct ces_graph *g = NULL;
        struct ces_check_report *r;

        ces_gen_opts_init(&go);
        go.ranks = rows[i].ranks;
        go.mutate_pct = rows[i].mutate;
        go.streams = rows[i].streams;
        go.steps = rows[i].steps;
        assert_int_equal(ces_gen_graph(ctx, rows[i].seed, &go, &g), CES_OK);
        r = unreduced ? check2(ctx, g, NULL, rows[i].verdict)
                      : check1(ctx, g, NULL, 0, rows[i].verdict, rows[i].states,
                               rows[i].executions);
        assert_int_equal(ces_check_report_stats(r).states, rows[i].states);
        assert_int_equal(ces_check_report_stats(r).transitions, rows[i].transitions);
        assert_int_equal(ces_check_report_stats(r).executions, rows[i].executions);
        replays(ctx, g, NULL, find(r, CES_V_HANG));
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
}

/* After a HANG, a state is followed only where the wait-for
 * over-approximation keeps a cycle (docs/SEMANTICS.md, section 10,
 * "Classes already found"), so its answers show in the states stored.  In
 * `cesync gen --seed 20280 --ranks 4` a blocked wait waits for a writer's
 * last satisfying write, after that writer's first blocking position (by
 * its first such write, 361 states: cycles missed; judging a wait's slot
 * free of other writers' failing stores without a look, 34).  In `mixed`
 * r2 writes x = 1, then 2, before its wait, so r3's wait for 1 can be left
 * blocked (by r2's first value alone it could not, and the DEADLOCK after
 * the HANG is missed).  In `cesync gen --seed 30061 --ranks 4 --streams 2
 * --steps 3 --mutate 60` the answers kept under one hash of the positions
 * belong to other positions too (taken for them, 13,152 states; 7,737,
 * its transitions and executions counting the 610 random executions run
 * within the search, section 10, "Classes found by sampling", which find
 * no class first; 10,051 while a state whose every consume runs only in
 * racing executions was followed for a MISMATCH, section 10, "Consumes
 * that only racing executions run", `test_consumes_race`; 12,279 while a
 * state whose execution had raced was followed for a MISMATCH after the
 * RACE, section 10, "Races every execution has"; 8,546 while the second search, 3,663 of them, left out
 * raises lost under writes no wait reads with data left to race,
 * `test_unread_writes_first`; 10,441 while a state was taken as one whose
 * every execution races only by two accesses not yet run, not by one
 * racing with its bytes' history, `test_races_sure`). */
static void test_wait_for_refined(void **state)
{
    static const char mixed[] =
        "cesync 1\nranks 4\nsignal f u32 1\nsignal x u32 1\nsignal y u32 1\nphase eager x1\n"
        "r0 : write f[0]@2 = 1\nr1 : write f[0]@2 = 2\nr2 : wait f[0] == 1\n"
        "r2 : write x[0]@3 = 1\nr2 : write x[0]@3 = 2\nr2 : wait y[0] == 1\n"
        "r2 : write x[0]@3 = 1\nr3 : wait x[0] == 1\nr3 : write y[0]@2 = 1\n";
    static const struct gen_row rows[] = {{20280, 4, 45, CES_V_HANG, 794, 1293, 24, 0, 0}};
    static const struct gen_row kept[] = {
        {30061, 4, 60, CES_V_HANG | CES_V_RACE | CES_V_MISMATCH, 7737, 81394, 619, 2, 3}};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g;
    struct ces_check_report *r;

    (void)state;
    check_gen_rows(ctx, rows, sizeof(rows) / sizeof(rows[0]), true);
    check_gen_rows(ctx, kept, sizeof(kept) / sizeof(kept[0]), false);
    g = ces_test_text_graph(ctx, mixed);
    r = check2(ctx, g, NULL, CES_V_DEADLOCK | CES_V_HANG);
    assert_int_equal(ces_check_report_stats(r).states, 8);
    replays(ctx, g, NULL, find(r, CES_V_DEADLOCK));
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A cycle of waits left blocked by resets needs each reset after a peer's
 * raise, and where each raise follows its rank's own reset, each reset
 * would come after itself (docs/SEMANTICS.md, section 10, "Cycles the
 * order in time rules out").  In `apart`, r2 and r3 each reset their own
 * flag, then raise the other's, then wait: a HANG (r2's first wait) and no
 * DEADLOCK, 7 states (9 while such cycles were kept).  `cesync gen --seed
 * 5030 --ranks 8 --mutate 0`, barriers whose ranks reset their flags in
 * successive replays: HANG in 565 states (over 1.5 million unfinished in
 * 8 s while they were kept). */
static void test_cycles_in_time(void **state)
{
    static const char apart[] =
        "cesync 1\nranks 4\nsignal f u32 1\nsignal x u32 1\nsignal y u32 1\nphase eager x1\n"
        "r0 : write f[0]@2 = 1\nr1 : write f[0]@2 = 2\nr2 : wait f[0] == 1\n"
        "r2 : write x[0] = 0\nr2 : write y[0]@3 = 1\nr2 : wait x[0] == 1\n"
        "r2 : write y[0]@3 = 1\nr3 : write y[0] = 0\nr3 : write x[0]@2 = 1\n"
        "r3 : wait y[0] == 1\nr3 : write x[0]@2 = 1\n";
    static const struct gen_row rows[] = {{5030, 8, 0, CES_V_HANG, 565, 814, 1, 0, 0}};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g;
    struct ces_check_report *r;

    (void)state;
    check_gen_rows(ctx, rows, sizeof(rows) / sizeof(rows[0]), false);
    g = ces_test_text_graph(ctx, apart);
    r = check2(ctx, g, NULL, CES_V_HANG);
    assert_int_equal(ces_check_report_stats(r).states, 7);
    replays(ctx, g, NULL, find(r, CES_V_HANG));
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A hand-made schedule whose DEADLOCK comes after a HANG, in exact states,
 * with a cycle of ncycle ops. */
struct deadlock_row {
    const char *text;
    uint64_t states;
    size_t ncycle;
};

/* Checks generated rows (`rows` with the unreduced search's verdict too,
 * `far` without) and hand-made DEADLOCK rows (with the unreduced search's
 * verdict, and the DEADLOCK's replay). */
static void check_cycle_rows(const struct gen_row *rows, size_t nrows, const struct gen_row *far,
                             size_t nfar, const struct deadlock_row *hand, size_t nhand)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    check_gen_rows(ctx, rows, nrows, true);
    check_gen_rows(ctx, far, nfar, false);
    for (size_t i = 0; i < nhand; i++) {
        struct ces_graph *g = ces_test_text_graph(ctx, hand[i].text);
        struct ces_check_report *r = check2(ctx, g, NULL, CES_V_DEADLOCK | CES_V_HANG);
        const struct ces_check_defect *d = find(r, CES_V_DEADLOCK);

        assert_int_equal(ces_check_report_stats(r).states, hand[i].states);
        assert_int_equal(d->ncycle, hand[i].ncycle);
        replays(ctx, g, NULL, d);
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* With shared hardware queues the wait-for over-approximation holds a
 * process at an op behind its queue's head too (docs/SEMANTICS.md, section
 * 10, "Classes already found"), waiting there for another process's op
 * ahead of it at or after that process's first blocking position.  `cesync
 * gen --seed 40186 --ranks 3 --streams 2 --steps 3 --mutate 60` and `--seed
 * 30267 --ranks 4`: HANG in 15 and 61 states (62 and 130 while a DEADLOCK
 * was taken as always possible with a shared queue; 223 and 2,987
 * unreduced); `--seed 30371 --ranks 4`: 542 (650 with an op taken as held
 * behind any op ahead of it, even one that surely runs; 655 before; 2,680
 * unreduced); `--seed 30132 --ranks 4`: HANG,MISMATCH in 162 (775 with no
 * timing taken from a wait that may be held, "Cycles the order in time
 * rules out"; 1,122 before); `cesync gen --seed 5115 --ranks 8 --mutate 0`
 * (barriers whose ranks reset flags, `connections 1`): HANG in 872 states
 * (over 1.8 million unfinished in 5 s before).  In `held` r2 s0's wait for
 * x, which only r2 s1's 1 reaches, can be left only behind s1's wait for z
 * in their queue, never at the wait: the DEADLOCK after the HANG (r2 s1
 * waits for r3, r3 for r2 s0's second raise of y, r2 s0 for s1) is found
 * only where a wait that cannot fail is still held in its queue, and only
 * where s0 waits for s1's last op ahead of it, not its first blocking
 * position (s1's wait for f, dropped: no write left to wait for). */
static void test_queues_held(void **state)
{
    static const char held[] =
        "cesync 1\nranks 4\nstreams 2\nconnections 1\nsignal f u32 1\nsignal x u32 1\n"
        "signal y u32 1\nsignal z u32 1\nphase eager x1\n"
        "r0 : write f[0]@2 = 1\nr1 : write f[0]@2 = 2\nr2 s1 : write x[0] = 1\n"
        "r2 : wait f[0] == 1\nr2 : write y[0]@3 = 1\nr2 s1 : wait f[0] == 1\n"
        "r2 s1 : wait z[0] == 1\n"
        "r2 : wait x[0] == 1\nr2 : write y[0]@3 = 1\nr3 : write y[0] = 0\n"
        "r3 : wait y[0] == 1\nr3 : write z[0]@2 = 1\n";
    static const struct gen_row rows[] = {
        {40186, 3, 60, CES_V_HANG, 15, 21, 1, 2, 3},
        {30267, 4, 60, CES_V_HANG, 61, 79, 4, 2, 3},
        {30371, 4, 60, CES_V_HANG, 542, 687, 15, 2, 3},
    };
    static const struct gen_row far[] = {
        {30132, 4, 60, CES_V_HANG | CES_V_MISMATCH, 162, 438, 5, 2, 3},
        {5115, 8, 0, CES_V_HANG, 872, 1337, 1, 0, 0},
    };
    static const struct deadlock_row hand[] = {{held, 13, 3}};

    (void)state;
    check_cycle_rows(rows, sizeof(rows) / sizeof(rows[0]), far, sizeof(far) / sizeof(far[0]), hand,
                     sizeof(hand) / sizeof(hand[0]));
}

/* A wait held before it runs (at a block boundary, behind its queue's
 * head) tells the order in time for the writes its wait waits for, where
 * the wait fails there too; what it waits for before it runs is never
 * timed (docs/SEMANTICS.md, section 10, "Cycles the order in time rules
 * out").  `cesync gen --seed 20243 --ranks 4 --mutate 45`: HANG in 300
 * states (1,116 with a boundary's wait untimed), and `--streams 2 --steps
 * 3 --mutate 60` seeds 30063 and 31231 (2,925 and 29,146 before; 31231
 * stores 71 of its 2,901 since a state whose execution has raced, or whose
 * every execution races, is not followed for a MISMATCH, section 10,
 * "Races every execution has").  In
 * `link` r0 s1's first op of the second block waits for c, which r0 s0
 * stores before its wait for a: judged as a wait, r0 s1 cannot be left
 * there beside r0 s0, but it is held at the boundary by r0 s0's wait, and
 * the DEADLOCK (r0 s0 waits for r1's a, r1 for r0 s1's b) comes after the
 * HANG that r2's 1 overwritten by r3's 2 leaves r1 in.  In `timed` r0 s0's
 * wait for x, left by its reset after r0 s1's raise, waits for r0 s1's
 * raise of the second block, a timed edge; judged as a wait on y, r0 s1's
 * boundary would be timed too (r0 s0 stores y after its reset of x, r0 s1
 * raised x after its reset of y), and the DEADLOCK after the HANG of y
 * reset under r0 s0's 1 would be missed. */
static void test_holds_untimed(void **state)
{
    static const char link[] =
        "cesync 1\nranks 4\nstreams 2\nsignal a u32 1\nsignal b u32 1\nsignal c u32 1\n"
        "signal g u32 1\nsignal h u32 1\nphase eager x1\nr0 : write c[0] = 1\n"
        "r0 : wait a[0] >= 1\nr2 : write g[0]@1 = 1\nr3 : write g[0]@1 = 2\n"
        "r3 : write h[0]@1 = 1\nr1 : wait h[0] >= 1\nr1 : wait g[0] == 1\n"
        "r1 : write c[0]@0 = 1\nr1 : wait b[0] >= 1\nr1 : write a[0]@0 = 1\n"
        "phase eager x1\nr0 s1 : wait c[0] >= 1\nr0 s1 : write b[0]@1 = 1\n";
    static const char timed[] =
        "cesync 1\nranks 2\nstreams 2\nsignal x u32 1\nsignal y u32 1\nphase eager x1\n"
        "r0 : write x[0] = 0\nr0 : write y[0] = 1\nr0 : wait x[0] >= 1\n"
        "r0 s1 : write y[0] = 0\nr0 s1 : write x[0] = 1\nphase eager x1\n"
        "r0 s1 : wait y[0] >= 1\nr0 s1 : write x[0] = 1\n";
    static const struct deadlock_row hand[] = {{link, 11, 3}, {timed, 10, 2}};
    static const struct gen_row rows[] = {
        {20243, 4, 45, CES_V_HANG, 300, 429, 15, 0, 0},
    };
    static const struct gen_row far[] = {
        {30063, 4, 60, CES_V_HANG | CES_V_MISMATCH, 169, 413, 4, 2, 3},
        {31231, 4, 60, CES_V_HANG | CES_V_RACE, 71, 166, 1, 2, 3},
    };

    (void)state;
    check_cycle_rows(rows, sizeof(rows) / sizeof(rows[0]), far, sizeof(far) / sizeof(far[0]), hand,
                     sizeof(hand) / sizeof(hand[0]));
}

/* Progress reports of a sliced search: the most of its states told. */
static void slice_seen(void *ud, const struct ces_check_stats *s)
{
    uint64_t *most = ud;

    assert_true(s->states >= s->slice_states);
    if (s->slice_states > *most)
        *most = s->slice_states;
}

/* sliced_two (test_data_sliced) but its consume; mismatch_two
 * (test_classes_sampled): r0 takes the copy for its own data */
#define TWO_PUSH                                                                                   \
    "cesync 1\nranks 2\nbuffer src 16\nbuffer dst 16\nsignal d u64 1\nsignal h u64 1\n"         \
    "phase eager x1\nr0 : write h[0]@1 = 1\nr0 : write h[0]@1 = 2\nr1 : wait h[0] == 1\n"        \
    "r1 : produce src[0:16]\nr1 : write d[0]@0 = 1\nr1 : write d[0]@0 = 2\n"                     \
    "r0 : wait d[0] >= 1\nr0 : wait d[0] >= 2\nr0 : copy src[0:16]@1 -> dst[0:16]\n"
static const char sliced_two[] = TWO_PUSH "r0 : consume dst[0:16] == src[0:16]@1\n";
static const char mismatch_two[] = TWO_PUSH "r0 : consume dst[0:16] == src[0:16]\n";

/* Where only a RACE or MISMATCH is left to find, the schedule without some
 * signals' writes and waits may show that none can occur (docs/SEMANTICS.md
 * section 10, "Data judged without some signals").  `cesync gen --ranks 8
 * --mutate 0` seeds 5032, 5050, 5072 and 5149, barriers that HANG around a
 * push with its own ready/done handshake: without the barrier's signal the
 * push's data is judged in a handful of states, and each check is a HANG
 * in about 4,160 (over 1.4 million unfinished in 10 s before).  In
 * `sliced_two`, r1 waits for a value of h that r0 overwrites (a HANG), and
 * only d orders r0's copy after r1's produce: tried from the first HANG
 * on, the search without d, the signal of most ops, finds a RACE; without
 * h, none (6 states in all; 4 of the search's own, 6 without a sliced
 * search); where each try may store 1 state, none finishes (2 in all).
 * In `four`, the pair as r2 and r3, r0 and r1 beside them can DEADLOCK
 * (r1 overwrites the value r0 waits for, then waits for r0), in a branch
 * followed after the data is proved (without x; d, of as many ops, is
 * tried first): the DEADLOCK is still looked for.
 * In `apart`, checked with the streams passing boundaries apart
 * (CES_CHECK_UNLINKED), r1's produces of two blocks race, and so they do
 * in its search without h.  Under a drop and a stop, seed 5032 is a HANG in
 * 4,143 states, the search without bar carrying them (unfinished before).
 * All without random executions within the search (section 10, "Classes
 * found by sampling"; test_classes_sampled), whose executions would count
 * beside these.  Allocation failures in them: test_alloc_failures_modes. */
static void test_data_sliced(void **state)
{
    static const struct gen_row rows[] = {
        {5032, 8, 0, CES_V_HANG, 4164, 6377, 372, 0, 0},
        {5050, 8, 0, CES_V_HANG, 4174, 6408, 372, 0, 0},
        {5072, 8, 0, CES_V_HANG, 4160, 4812, 518, 0, 0},
        {5149, 8, 0, CES_V_HANG, 4163, 5808, 372, 0, 0},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_gen_opts go;
    struct ces_check_opts o;
    struct ces_graph *g = NULL;
    struct ces_check_report *r;
    static const char four[] =
        "cesync 1\nranks 4\nbuffer src 16\nbuffer dst 16\nsignal d u64 1\nsignal h u64 1\n"
        "signal x u64 1\nsignal y u64 1\nphase eager x1\nr0 : wait x[0] == 1\n"
        "r0 : write y[0]@1 = 1\nr1 : write x[0]@0 = 1\nr1 : write x[0]@0 = 2\n"
        "r1 : wait y[0] == 1\nr1 : write x[0]@0 = 1\nr2 : write h[0]@3 = 1\n"
        "r2 : write h[0]@3 = 2\nr3 : wait h[0] == 1\nr3 : produce src[0:16]\n"
        "r3 : write d[0]@2 = 1\nr3 : write d[0]@2 = 2\nr2 : wait d[0] >= 1\n"
        "r2 : wait d[0] >= 2\nr2 : copy src[0:16]@3 -> dst[0:16]\n"
        "r2 : consume dst[0:16] == src[0:16]@3\n";
    static const char apart[] =
        "cesync 1\nranks 2\nstreams 2\nbuffer a 16\nsignal h u64 1\nsignal k u64 1\n"
        "phase eager x1\nr0 : write h[0]@1 = 1\nr0 : write h[0]@1 = 2\nr0 : write k[0]@1 = 1\n"
        "r1 : wait h[0] == 1\nr1 : wait k[0] >= 1\nr1 s1 : produce a[0:16]\n"
        "phase eager x1\nr1 : produce a[0:16]\n";
    const struct ces_fault faults[2] = {{CES_FAULT_DROP, 3, 0, 2}, {CES_FAULT_STOP, 2, 0, 30}};
    uint64_t at = ces_sim_slice_at, told = 0;
    int rc;

    (void)state;
    ces_sim_sample_at = UINT64_MAX; /* (knobs_back puts it back) */
    check_gen_rows(ctx, rows, sizeof(rows) / sizeof(rows[0]), false);
    ces_gen_opts_init(&go);
    go.ranks = 8;
    go.mutate_pct = 0;
    assert_int_equal(ces_gen_graph(ctx, 5032, &go, &g), CES_OK);
    r = check1(ctx, g, NULL, 0, CES_V_HANG, 4164, 372);
    assert_int_equal(ces_check_report_stats(r).slice_states, 5);
    report_has(ctx, r,
               "\ncoverage: no RACE or MISMATCH can occur: the schedule without the writes and "
               "waits of signal bar shows none (5 of the states below searched it)\n",
               ",\"slice_states\":5,\"sample_executions\":0},", "\"sliced\":[\"bar\"],");
    ces_check_report_destroy(r);
    /* the bound on states holds the sliced searches too: none at the
     * bound (no bound left to give it), 4 short of it */
    ces_check_opts_init(&o);
    for (uint64_t k = 0; k < 2; k++) {
        o.max_states = 4096 + 4 * k;
        r = check1(ctx, g, &o, 0, CES_V_HANG | CES_V_INCOMPLETE, o.max_states, 372);
        assert_int_equal(ces_check_report_stats(r).slice_states, 4 * k);
        ces_check_report_destroy(r);
    }
    /* under a drop and a stop, carried into the search without bar */
    ces_check_opts_init(&o);
    o.faults = faults;
    o.nfaults = 2;
    r = check1(ctx, g, &o, 0, CES_V_HANG, 4143, 146);
    assert_int_equal(ces_check_report_stats(r).slice_states, 5);
    assert_int_equal(r->sliced, 1u << 2); /* bar */
    ces_check_report_destroy(r);
    ces_graph_destroy(g);

    g = ces_test_text_graph(ctx, sliced_two);
    r = check1(ctx, g, NULL, 0, CES_V_HANG, 6, 1); /* 4096 states not reached: none tried */
    assert_int_equal(ces_check_report_stats(r).slice_states, 0);
    ces_check_report_destroy(r);
    ces_check_opts_init(&o);
    o.progress = slice_seen;
    o.progress_ud = &told;
    o.progress_seconds = 1e-9;
    ces_sim_slice_at = 1;
    rc = ces_check(ctx, g, &o, &r);
    ces_sim_slice_at = at; /* (before an assertion can leave) */
    assert_int_equal(rc, CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_HANG);
    assert_int_equal(ces_check_report_stats(r).states, 10);
    assert_int_equal(ces_check_report_stats(r).slice_states, 6);
    assert_true(told > 0 && told <= 6);
    report_has(ctx, r,
               "\ncoverage: no RACE or MISMATCH can occur: the schedule without the writes and "
               "waits of signal h shows none (6 of the states below searched it)\n",
               ",\"slice_states\":6,\"sample_executions\":0},", "\"sliced\":[\"h\"],");
    replays(ctx, g, NULL, find(r, CES_V_HANG));
    ces_check_report_destroy(r);
    ces_sim_slice_at = ces_sim_slice_least = 1; /* each try too short to finish */
    rc = ces_check(ctx, g, NULL, &r);
    ces_sim_slice_at = ces_sim_slice_least = at;
    assert_int_equal(rc, CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_HANG);
    assert_int_equal(ces_check_report_stats(r).states, 8);
    report_has(ctx, r,
               "\ncoverage: 2 of the states below were searches without some signals' writes "
               "and waits, which could not rule out a RACE or MISMATCH\n",
               ",\"slice_states\":2,\"sample_executions\":0},", "\"defects\":");
    ces_check_report_destroy(r);
    r = check2(ctx, g, NULL, CES_V_HANG);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);

    /* with a pair that can DEADLOCK beside */
    g = ces_test_text_graph(ctx, four);
    ces_sim_slice_at = 1;
    rc = ces_check(ctx, g, NULL, &r);
    ces_sim_slice_at = at;
    assert_int_equal(rc, CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_DEADLOCK | CES_V_HANG);
    assert_int_equal(ces_check_report_stats(r).states, 23);
    report_has(ctx, r,
               "\ncoverage: no RACE or MISMATCH can occur: the schedule without the writes and "
               "waits of signal x shows none (13 of the states below searched it)\n",
               ",\"slice_states\":13,\"sample_executions\":0},", "\"sliced\":[\"x\"],");
    ces_check_report_destroy(r);
    r = check2(ctx, g, NULL, CES_V_DEADLOCK | CES_V_HANG);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);

    g = ces_test_text_graph(ctx, apart);
    ces_check_opts_init(&o);
    o.flags = CES_CHECK_UNLINKED;
    ces_sim_slice_at = 1;
    rc = ces_check(ctx, g, &o, &r);
    ces_sim_slice_at = at;
    assert_int_equal(rc, CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_HANG | CES_V_RACE);
    assert_int_equal(ces_check_report_stats(r).states, 12);
    assert_int_equal(ces_check_report_stats(r).slice_states, 6);
    ces_check_report_destroy(r);
    r = check2(ctx, g, &o, CES_V_HANG | CES_V_RACE);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);

    /* a MISMATCH found, the searches without some signals that failed
     * looked for a RACE alone: said so (it said "a RACE or MISMATCH");
     * `cesync gen --seed 60185 --ranks 6 --steps 3` */
    {
        struct ces_gen_opts six;

        ces_gen_opts_init(&six);
        six.ranks = 6;
        six.steps = 3;
        six.mutate_pct = 45;
        g = NULL;
        assert_int_equal(ces_gen_graph(ctx, 60185, &six, &g), CES_OK);
        assert_int_equal(ces_check(ctx, g, NULL, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r),
                         CES_V_DEADLOCK | CES_V_HANG | CES_V_MISMATCH);
        assert_int_equal(ces_check_report_stats(r).slice_states, 676);
        report_has(ctx, r,
                   "\ncoverage: 676 of the states below were searches without some signals' "
                   "writes and waits, which could not rule out a RACE\n",
                   ",\"slice_states\":676,", "\"complete\":true,");
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* A state whose every execution races is not followed for a MISMATCH
 * (docs/SEMANTICS.md section 10, "Races every execution has"), and the
 * accesses of such a race must be sure to run.  In each schedule below r0
 * HANGs at once (r1 overwrites the value it waits for), r2 passes its wait
 * for g or not (r3 writes 1, then 2), and r1, once r3 has written k, copies
 * r2's a and takes it as what r2 produces: where r2 s1's produce runs it
 * races with the copy, where it does not the execution is race-free and
 * the copy's data a MISMATCH.  In the branch followed after the HANG and
 * the RACE are found, the produce cannot run: r2 s1 is behind r2's wait at
 * a block boundary (`link`), at an await of the record after it (`await`),
 * in their shared hardware queue (`queue`); in `snap` r4's produce and
 * consume are ordered by a boundary's link from the produce, so they do
 * not race.  Taking any of those as passed, or the link as no edge, loses
 * the MISMATCH (HANG, RACE in 6 or 7 states). */
#define SURE_DECL                                                                                  \
    "streams 2\nbuffer a 16\nbuffer b 16\nsignal h u64 1\nsignal g u64 1\nsignal k u64 1\n"
#define SURE_HANG "phase eager x1\nr0 : wait h[0] == 1\nr1 : write h[0]@0 = 2\nr2 : wait g[0] == 1\n"
#define SURE_G "r3 : write g[0]@2 = 1\nr3 : write g[0]@2 = 2\nr3 : write k[0]@1 = 1\n"
#define SURE_COPY                                                                                  \
    "r1 : wait k[0] >= 1\nr1 : copy a[0:16]@2 -> b[0:16]\nr1 : consume b[0:16] == a[0:16]@2\n"
#define SURE_SEAL                                                                                  \
    "cesync 1\nranks 4\nstreams 2\nbuffer a 16\nbuffer b 16\nsignal h u64 1\nsignal g u64 1\n"  \
    "signal k u64 1\n"
#define SURE_SEAL_G                                                                                \
    "r0 : wait h[0] == 1\nr1 : write h[0]@0 = 2\nr3 : write g[0]@1 = 1\nr3 : write g[0]@1 = 2\n"  \
    "r3 : write k[0]@2 = 1\n"
#define SURE_SEAL_COPY "r1 : wait g[0] == 1\nr1 : copy a[0:16]@2 -> b[0:16]\n"
static void test_races_sure(void **state)
{
    static const struct {
        const char *text;
        uint64_t states;
    } rows[] = {
        {"cesync 1\nranks 4\n" SURE_DECL SURE_HANG SURE_G
         "phase eager x1\nr2 s1 : produce a[0:16]\n" SURE_COPY, 7},
        {"cesync 1\nranks 4\n" SURE_DECL SURE_HANG
         "r2 : record e\nr2 s1 : await e\nr2 s1 : produce a[0:16]\n" SURE_G SURE_COPY, 7},
        {"cesync 1\nranks 4\nconnections 1\n" SURE_DECL SURE_HANG
         "r2 s1 : produce a[0:16]\n" SURE_G SURE_COPY, 7},
        {"cesync 1\nranks 5\n" SURE_DECL "buffer c 16\nsignal z u64 1\n" SURE_HANG SURE_G
         "r3 : write z[0]@4 = 1\nr4 s1 : wait z[0] >= 1\nr4 s1 : produce c[0:16]\n"
         "phase eager x1\nr2 s1 : produce a[0:16]\n" SURE_COPY "r4 : consume c[0:16] == c[0:16]\n",
         9},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct ces_graph *g = ces_test_text_graph(ctx, rows[i].text);
        struct ces_check_report *r = check2(ctx, g, NULL, CES_V_HANG | CES_V_RACE | CES_V_MISMATCH);

        assert_int_equal(ces_check_report_stats(r).states, rows[i].states);
        replays(ctx, g, NULL, find(r, CES_V_MISMATCH));
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    /* a state whose execution has raced already is not followed for a
     * MISMATCH once a RACE is found either: `cesync gen --seed 31303
     * --ranks 4 --streams 2 --steps 3 --mutate 60`, its DEADLOCK and HANG
     * found, was unfinished past 1.3 million states */
    {
        static const struct gen_row raced[] = {
            {31303, 4, 60, CES_V_DEADLOCK | CES_V_HANG | CES_V_RACE, 173, 257, 4, 2, 3}};

        check_gen_rows(ctx, raced, 1, false);
    }
    /* nor one with an access to come that races with its bytes' history:
     * in `cesync gen --seed 30163 --ranks 4 --streams 2 --steps 3 --mutate
     * 60` r1's stream 1 copies src[32:48] at once, and its stream 0
     * produces into those bytes after a write, with no wait between: from
     * the first state on every execution races, and the second search
     * follows no state (HANG, RACE in 8 states; 10, 2 of them the second
     * search's, while only accesses not yet run were paired) */
    {
        struct ces_gen_opts go;
        struct ces_graph *g = NULL;
        struct ces_check_report *r;

        ces_gen_opts_init(&go);
        go.ranks = 4;
        go.streams = 2;
        go.steps = 3;
        go.mutate_pct = 60;
        assert_int_equal(ces_gen_graph(ctx, 30163, &go, &g), CES_OK);
        r = check2(ctx, g, NULL, CES_V_HANG | CES_V_RACE);
        assert_int_equal(ces_check_report_stats(r).states, 8);
        assert_int_equal(ces_check_report_stats(r).race_free_states, 0);
        replays(ctx, g, NULL, find(r, CES_V_RACE));
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    /* but where a clock that the access joins first can order it, the
     * state is followed: r2's stream 1 produces into a after a wait that
     * surely passes, and its stream 0 read a at once; the produce's clock
     * holds the read's through the link at the block boundary (at the
     * wait, and at the produce itself), the record it awaits, or r3, which
     * waited for stream 0's write after the read (the slot then forgotten,
     * no wait being left on it).  r1's copy, which races with the produce,
     * runs only where r1 sees g's first value, and the execution where it
     * does not is race-free, with the consume's MISMATCH: 7 or 8 states,
     * HANG, RACE and no MISMATCH where that clock is not looked at (four
     * hand-made mutants).  In the fifth r2's stream 1 has no op in the
     * middle block: stream 0's wait there links to stream 1's fence, the
     * op just before the produce, and the produce's link joins the wait's
     * clock, which holds the read; taking that link for one to the
     * produce or after it, so that stream 0 could keep no such clock
     * before the produce runs, lost the MISMATCH (HANG, RACE in 6) */
    {
        static const char *ordered[] = {
            SURE_SEAL "phase eager x1\nr2 : consume a[0:16] == b[0:16]\n" SURE_SEAL_G
            "phase eager x1\nr2 s1 : wait k[0] >= 1\nr2 s1 : produce a[0:16]\n" SURE_SEAL_COPY,
            SURE_SEAL "phase eager x1\nr2 : consume a[0:16] == b[0:16]\nr2 s1 : wait k[0] >= 1\n"
            SURE_SEAL_G
            "phase eager x1\nr2 s1 : produce a[0:16]\n" SURE_SEAL_COPY,
            SURE_SEAL "phase eager x1\nr2 : consume a[0:16] == b[0:16]\nr2 : record e\n"
            "r2 s1 : wait k[0] >= 1\n"
            "r2 s1 : await e\nr2 s1 : produce a[0:16]\n" SURE_SEAL_G SURE_SEAL_COPY,
            SURE_SEAL "signal f u64 1\nsignal m u64 1\nphase eager x1\nr0 : wait h[0] == 1\n"
            "r1 : write h[0]@0 = 2\nr2 : consume a[0:16] == b[0:16]\nr2 : write f[0]@3 = 1\n"
            "r3 : write g[0]@1 = 1\nr3 : write g[0]@1 = 2\nr3 : wait f[0] == 1\n"
            "r3 : write m[0]@2 = 1\nr2 s1 : wait m[0] >= 1\nr2 s1 : produce a[0:16]\n"
            SURE_SEAL_COPY,
            SURE_SEAL "phase eager x1\nr2 : consume a[0:16] == b[0:16]\nr2 s1 : fence\n"
            SURE_SEAL_G "phase eager x1\nr2 : wait k[0] >= 1\n"
            "phase eager x1\nr2 s1 : produce a[0:16]\n" SURE_SEAL_COPY,
        };
        static const uint64_t states[] = {7, 7, 7, 8, 7};

        for (size_t i = 0; i < sizeof(ordered) / sizeof(ordered[0]); i++) {
            struct ces_graph *g = ces_test_text_graph(ctx, ordered[i]);
            struct ces_check_report *r =
                check2(ctx, g, NULL, CES_V_HANG | CES_V_RACE | CES_V_MISMATCH);

            assert_int_equal(ces_check_report_stats(r).states, states[i]);
            replays(ctx, g, NULL, find(r, CES_V_MISMATCH));
            ces_check_report_destroy(r);
            ces_graph_destroy(g);
        }
    }
    /* nor one with such an access after waits that surely pass, where no
     * clock it can join first can order its bytes' history: in `cesync gen
     * --seed 60038 --ranks 6 --steps 3 --mutate 45` r2's stream 1 reads
     * src[32:48] at once, and its stream 0 produces into those bytes after
     * a barrier's waits; stream 1's next op links to stream 0's last of the
     * replay, after the produce, so no clock holds stream 1's read before
     * it (HANG, RACE in 131 states, none of them the second search's;
     * 883,465 before, 883,334 of them the second search's) */
    {
        struct ces_gen_opts go;
        struct ces_graph *g = NULL;
        struct ces_check_report *r;

        ces_gen_opts_init(&go);
        go.ranks = 6;
        go.steps = 3;
        go.mutate_pct = 45;
        assert_int_equal(ces_gen_graph(ctx, 60038, &go, &g), CES_OK);
        r = check1(ctx, g, NULL, 0, CES_V_HANG | CES_V_RACE, 131, 1);
        assert_int_equal(ces_check_report_stats(r).race_free_states, 0);
        replays(ctx, g, NULL, find(r, CES_V_RACE));
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    /* nor where the op that stream 0's next write (a store whose clock
     * holds the read) waits for at the boundary is the produce itself:
     * the write runs only after the produce (HANG, RACE in 6 states; 7
     * where only a link to an op after the access was taken so) */
    {
        struct ces_graph *g = ces_test_text_graph(
            ctx, SURE_SEAL "signal m u64 1\nphase eager x1\nr2 : consume a[0:16] == b[0:16]\n"
                           "r2 s1 : wait k[0] >= 1\nr2 s1 : produce a[0:16]\n" SURE_SEAL_G
                           SURE_SEAL_COPY "phase eager x1\nr2 : write m[0]@3 = 1\n");
        struct ces_check_report *r = check2(ctx, g, NULL, CES_V_HANG | CES_V_RACE);

        assert_int_equal(ces_check_report_stats(r).states, 6);
        replays(ctx, g, NULL, find(r, CES_V_RACE));
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* A state none of whose consumes runs in a race-free execution is not
 * followed for a MISMATCH (docs/SEMANTICS.md section 10, "Consumes that
 * only racing executions run").  `cesync gen --seed 30111 --ranks 4
 * --streams 2 --steps 3 --mutate 60` and `cesync gen --seed 20153 --ranks
 * 4`: a push writes `done` before its copy, so the consume its peer makes
 * after waiting for `done` races with the copy, behind barriers whose
 * flag resets can lose a raise (the HANG); the second search followed the
 * barriers' race-free interleavings, which hang before the consume:
 * HANG, RACE in 129 states (26,309 before, 26,137 of them the second
 * search's) and 5,868 (66,867; seed 20153 keeps executions where rank 0's
 * wait of the next barrier observes the copying rank's raise of the next
 * replay, made after the copy: the consume is ordered after the copy
 * there).  In `later`, r0's wait for g may observe r1's second store,
 * made after the copy, which orders the copy before the consume: that
 * execution is race-free, and the copy of src before its produce leaves
 * a MISMATCH (with that path taken as impossible, HANG, RACE).  In
 * `linked`, r1 s1's produce into dst is its stream's last op of the first
 * block, and r1 s0's first op of the second links to it, so the consume
 * after it is ordered after the produce (race-free: a MISMATCH, src@0
 * never produced); r0's streams race on b in the executions where r0 s1's
 * wait observes s0's store, and r0 s0 hangs at the end.  The fixpoint from
 * the produce must start at the produce itself, the source of the link:
 * started one op past it (as the rule first did), it took the produce and
 * the consume for a race and said HANG, RACE. */
static const char consumes_later[] =
    "cesync 1\nranks 2\nbuffer src 8\nbuffer dst 8\nsignal g u32 1\nsignal done u32 1\n"
    "signal h u32 1\nphase eager x1\nr1 : write g[0]@0 = 1\nr1 : write done[0]@0 = 1\n"
    "r1 : copy src[0:8] -> dst[0:8]@0\nr1 : produce src[0:8]\nr1 : write g[0]@0 = 2\n"
    "r1 : wait h[0] >= 1\nr0 : wait done[0] >= 1\nr0 : wait g[0] >= 1\n"
    "r0 : consume dst[0:8] == src[0:8]@1\n";

static void test_consumes_race(void **state)
{
    static const char *const later = consumes_later;
    static const char linked[] =
        "cesync 1\nranks 2\nstreams 3\nbuffer src 8\nbuffer dst 8\nbuffer b 8\n"
        "signal f u32 1\nsignal g u32 1\nsignal h u32 1\nphase eager x1\n"
        "r1 s1 : wait g[0] >= 1\nr1 s1 : produce dst[0:8]\nr0 s0 : write f[0] = 1\n"
        "r0 s2 : produce b[0:8]\nr0 s2 : write f[0] = 1\nr0 s1 : wait f[0] >= 1\n"
        "r0 s1 : produce b[0:8]\nr0 s1 : write g[0]@1 = 1\nphase eager x1\n"
        "r1 s0 : wait g[0] >= 1\nr1 s0 : consume dst[0:8] == src[0:8]@0\n"
        "r0 s0 : wait h[0] >= 1\n";
    static const struct gen_row cut[] = {
        {30111, 4, 60, CES_V_HANG | CES_V_RACE, 129, 240, 5, 2, 3},
    };
    static const struct gen_row kept[] = {
        {20153, 4, 45, CES_V_HANG | CES_V_RACE, 5868, 77823, 760, 0, 0},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g;
    struct ces_check_report *r;

    (void)state;
    check_gen_rows(ctx, cut, sizeof(cut) / sizeof(cut[0]), true);
    check_gen_rows(ctx, kept, sizeof(kept) / sizeof(kept[0]), false);
    /* each: HANG, RACE and MISMATCH in 7 states, the MISMATCH replayed */
    for (int k = 0; k < 2; k++) {
        g = ces_test_text_graph(ctx, k == 0 ? later : linked);
        r = check2(ctx, g, NULL, CES_V_HANG | CES_V_RACE | CES_V_MISMATCH);
        assert_int_equal(ces_check_report_stats(r).states, 7);
        replays(ctx, g, NULL, find(r, CES_V_MISMATCH));
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* consumes_race's scratch, its kept answers among them (256 entries of
 * the program counters and slot values: 808 KiB with 200 flags of padding),
 * is allocated at its first look, which a check that finds no RACE never
 * makes: with that padding, r1 waiting for r0's write is OK within 768 KiB
 * of peak memory (above 808 KiB where the answers came with the
 * reduction's scratch), and `later` of test_consumes_race, whose searches look, holds
 * them (above 768 KiB); under a 768 KiB bound (which stopped it before its
 * first state where they came with the scratch) it looks without them:
 * the same verdict and states, complete, within the bound. */
static void test_consumes_race_memory(void **state)
{
    static const char ok[] = "cesync 1\nranks 2\nsignal f u32 1\nsignal pad u32 200\n"
                             "phase eager x1\nr0 : write f[0]@1 = 1\nr1 : wait f[0] >= 1\n";
    static const char later[] =
        "cesync 1\nranks 2\nbuffer src 8\nbuffer dst 8\nsignal g u32 1\nsignal done u32 1\n"
        "signal h u32 1\nsignal pad u32 200\nphase eager x1\nr1 : write g[0]@0 = 1\n"
        "r1 : write done[0]@0 = 1\nr1 : copy src[0:8] -> dst[0:8]@0\nr1 : produce src[0:8]\n"
        "r1 : write g[0]@0 = 2\nr1 : wait h[0] >= 1\nr0 : wait done[0] >= 1\n"
        "r0 : wait g[0] >= 1\nr0 : consume dst[0:8] == src[0:8]@1\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_check_opts o;
    struct ces_graph *g;
    struct ces_check_report *r;

    (void)state;
    g = ces_test_text_graph(ctx, ok);
    r = check2(ctx, g, NULL, CES_V_OK);
    assert_int_equal(ces_check_report_stats(r).states, 2);
    assert_true(ces_check_report_stats(r).peak_memory < (UINT64_C(768) << 10));
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    g = ces_test_text_graph(ctx, later);
    for (int bound = 0; bound < 2; bound++) {
        struct ces_check_stats s;

        ces_check_opts_init(&o);
        o.max_memory = bound ? UINT64_C(768) << 10 : 0;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_HANG | CES_V_RACE | CES_V_MISMATCH);
        s = ces_check_report_stats(r);
        assert_true(s.complete);
        assert_int_equal(s.states, 7);
        if (bound)
            assert_true(s.peak_memory <= o.max_memory);
        else
            assert_true(s.peak_memory > (UINT64_C(768) << 10));
        ces_check_report_destroy(r);
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Random executions within the search find classes that its depth-first
 * order reaches late, and the pruning uses them (docs/SEMANTICS.md section
 * 10, "Classes found by sampling").  `cesync gen --seed 60094 --ranks 6
 * --steps 3 --mutate 45`: its MISMATCH among race-free executions is in
 * the first burst, at 4,096 states, which ends the search (HANG, RACE,
 * MISMATCH; 50 end states, 166 while states whose consumes run only in
 * racing executions were followed, `test_consumes_race`); without the
 * bursts the second search has not found it in 100,000 states (nor in 6
 * million, 20 s).  `mismatch_two` is `sliced_two`
 * whose r0 takes the copy for its own data (a MISMATCH wherever r1
 * produced): with bursts of 64 transitions from the first state on, the
 * first finds the HANG and the MISMATCH, and the search without h then
 * proves that no RACE can occur (for a RACE alone: looking for a MISMATCH
 * too, it would find this one; d, of more ops, is tried first and finds a
 * RACE).  With --first, bursts of one execution, the search stops at the
 * HANG of the first.  And without bursts, a search without a signal that
 * found a MISMATCH (and no RACE) is tried again, for a RACE alone, once the
 * search has found its own: `cesync gen --seed 57 --ranks 4 --streams 2
 * --steps 2 --mutate 60`, tries from the first HANG on, HANG and MISMATCH
 * in 59 states, no RACE without signal bar (1,164 states without the try
 * again). */
static void test_classes_sampled(void **state)
{
    uint64_t at = ces_sim_sample_at, least = ces_sim_sample_least, slice_at = ces_sim_slice_at;
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_gen_opts go;
    struct ces_check_opts o;
    struct ces_graph *g = NULL;
    struct ces_check_report *r;
    int rc;

    (void)state;
    ces_gen_opts_init(&go);
    go.ranks = 6;
    go.steps = 3;
    go.mutate_pct = 45;
    assert_int_equal(ces_gen_graph(ctx, 60094, &go, &g), CES_OK);
    r = check1(ctx, g, NULL, 0, CES_V_HANG | CES_V_RACE | CES_V_MISMATCH, 4096, 50);
    assert_int_equal(ces_check_report_stats(r).sample_executions, 36);
    report_has(ctx, r,
               "\ncoverage: 36 random executions within the search, counted among the end states "
               "below, "
               "which found MISMATCH first\n",
               ",\"sample_executions\":36},", "\"sampled\":\"MISMATCH\",");
    replays(ctx, g, NULL, find(r, CES_V_MISMATCH));
    ces_check_report_destroy(r);
    ces_check_opts_init(&o);
    o.max_states = 100000;
    ces_sim_sample_at = UINT64_MAX;
    rc = ces_check(ctx, g, &o, &r);
    ces_sim_sample_at = at;
    assert_int_equal(rc, CES_OK);
    assert_int_equal(ces_check_report_verdict(r),
                     CES_V_HANG | CES_V_RACE | CES_V_INCOMPLETE);
    assert_int_equal(ces_check_report_stats(r).sample_executions, 0);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);

    go.ranks = 4;
    go.streams = 2;
    go.steps = 2;
    go.mutate_pct = 60;
    assert_int_equal(ces_gen_graph(ctx, 57, &go, &g), CES_OK);
    ces_sim_sample_at = UINT64_MAX;
    ces_sim_slice_at = 1;
    r = check2(ctx, g, NULL, CES_V_HANG | CES_V_MISMATCH);
    ces_sim_sample_at = at;
    ces_sim_slice_at = slice_at;
    assert_int_equal(ces_check_report_stats(r).states, 59);
    report_has(ctx, r,
               "\ncoverage: no RACE can occur: the schedule without the writes and waits of "
               "signal bar shows none (2 of the states below searched it)\n",
               ",\"sample_executions\":0},", "\"sliced\":[\"bar\"],");
    ces_check_report_destroy(r);
    ces_graph_destroy(g);

    g = ces_test_text_graph(ctx, mismatch_two);
    ces_sim_sample_at = ces_sim_slice_at = 1;
    ces_sim_sample_least = 64;
    rc = ces_check(ctx, g, NULL, &r);
    ces_sim_sample_at = at;
    ces_sim_sample_least = least;
    ces_sim_slice_at = slice_at;
    assert_int_equal(rc, CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_HANG | CES_V_MISMATCH);
    assert_int_equal(ces_check_report_stats(r).states, 5);
    assert_int_equal(ces_check_report_stats(r).slice_states, 4);
    assert_int_equal(ces_check_report_stats(r).sample_executions, 12);
    report_has(ctx, r,
               "\ncoverage: no RACE can occur: the schedule without the writes and waits of "
               "signal h shows none (4 of the states below searched it)\n",
               "\"sliced\":[\"h\"],", "\"sampled\":\"HANG,MISMATCH\",");
    replays(ctx, g, NULL, find(r, CES_V_HANG));
    replays(ctx, g, NULL, find(r, CES_V_MISMATCH));
    ces_check_report_destroy(r);
    r = check2(ctx, g, NULL, CES_V_HANG | CES_V_MISMATCH);
    ces_check_report_destroy(r);
    ces_check_opts_init(&o);
    o.flags = CES_CHECK_FIRST;
    ces_sim_sample_at = ces_sim_sample_least = 1;
    rc = ces_check(ctx, g, &o, &r);
    ces_sim_sample_at = at;
    ces_sim_sample_least = least;
    assert_int_equal(rc, CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_HANG | CES_V_INCOMPLETE);
    assert_int_equal(ces_check_report_stats(r).states, 1);
    assert_int_equal(ces_check_report_stats(r).sample_executions, 1);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A collective's graph: coll over `ranks` ranks with protocol proto, phase
 * kind phase and `iters` calls (768 bytes a rank). */
static struct ces_graph *coll_graph(struct ces_ctx *ctx, uint32_t coll, uint32_t proto,
                                    uint32_t phase, uint32_t ranks, uint32_t iters)
{
    struct ces_coll_params p = ces_test_coll_params(coll, proto, ranks, 768, iters, phase);
    struct ces_graph *g = NULL;

    assert_int_equal(ces_coll_build(ctx, &p, &g), CES_OK);
    return g;
}

/* r's JSON has `want`, or (want NULL) no "open" key. */
static void json_open(struct ces_ctx *ctx, const struct ces_check_report *r, const char *want)
{
    char *t = NULL;

    assert_int_equal(ces_check_report_json(ctx, r, &t, NULL), CES_OK);
    if (want != NULL)
        assert_non_null(strstr(t, want));
    else
        assert_null(strstr(t, "\"open\""));
    ces_free(ctx, t);
}

/* Checks g under o (the knob ces_sim_sample_at set to `sample_at` for the
 * check): its verdict must be `verdict`, the classes it leaves open `open`,
 * and where `second`, its second search must have run. */
static struct ces_check_report *stopped(struct ces_ctx *ctx, const struct ces_graph *g,
                                        const struct ces_check_opts *o, uint64_t sample_at,
                                        uint32_t verdict, uint32_t open, bool second)
{
    uint64_t at = ces_sim_sample_at;
    struct ces_check_report *r = NULL;
    int rc;

    ces_sim_sample_at = sample_at;
    rc = ces_check(ctx, g, o, &r);
    ces_sim_sample_at = at;
    assert_int_equal(rc, CES_OK);
    assert_int_equal(ces_check_report_verdict(r), verdict);
    assert_int_equal(ces_check_report_open(r), open);
    assert_int_equal(ces_check_report_stats(r).race_free_states > 0, second);
    return r;
}

/* The generated schedule of `seed` at 6 ranks with 3 steps a phase. */
static struct ces_graph *six_ranks(struct ces_ctx *ctx, uint64_t seed)
{
    struct ces_gen_opts go;
    struct ces_graph *g = NULL;

    ces_gen_opts_init(&go);
    go.ranks = 6;
    go.steps = 3;
    go.mutate_pct = 45;
    assert_int_equal(ces_gen_graph(ctx, seed, &go, &g), CES_OK);
    return g;
}

/* What an exhaustive check a bound stopped could still be missing
 * (docs/SEMANTICS.md section 10, "Random mode, replays, bounds"): the
 * classes neither found nor ruled out.  The nccl graph barrier of 3 calls
 * at 8 ranks (HANG) has no data access, and its initial state's wait-for
 * over-approximation no cycle: stopped after 100 states, a HANG at most,
 * and under the watchdog model (which ends a HANG) nothing, a RACE or a
 * MISMATCH where the memory bound stopped it before the search; the 4-rank
 * mono alltoall (OK) likewise no DEADLOCK, stopped after 5 states or cut
 * at depth 5; `cesync gen --seed 60145 --ranks 6 --steps 3` (HANG found at
 * once, no RACE or MISMATCH by the search without signal bar, from about
 * 299,400 states) stopped after 300,000 a DEADLOCK alone; seed 60094
 * (without bursts) and `cesync gen --seed 30108 --ranks 4 --streams 2
 * --steps 3 --mutate 60`, stopped in their second searches (the first
 * finished: HANG,RACE and DEADLOCK,RACE), a MISMATCH alone, but 30108 cut
 * at depth 20 a DEADLOCK, HANG or MISMATCH (seed 60115 at 6 ranks did so
 * until its second search came to store no state, section 10, "Races
 * every execution has"); the 2-rank nccl graph
 * barrier stopped at its first defect (HANG) nothing; a complete check
 * says nothing of it. */
static void test_open_classes(void **state)
{
    const uint64_t at = ces_sim_sample_at;
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_check_opts o;
    struct ces_graph *g;
    struct ces_check_report *r;
    char *t;

    (void)state;
    g = coll_graph(ctx, CES_COLL_BARRIER, CES_PROTO_NCCL, CES_PHASE_GRAPH, 8, 3);
    ces_check_opts_init(&o);
    o.max_states = 100;
    r = stopped(ctx, g, &o, at, CES_V_INCOMPLETE, CES_V_HANG, false);
    report_has(ctx, r,
               "\ncoverage: the bound on states stopped the search after 100 states\n"
               "coverage: neither found nor ruled out: HANG\n",
               "\"open\":\"HANG\",", "\"bound\":\"states\"");
    ces_check_report_destroy(r);
    o.flags = CES_CHECK_ABORT; /* (the watchdog ends a HANG: nothing left) */
    r = stopped(ctx, g, &o, at, CES_V_INCOMPLETE, 0, false);
    report_has(ctx, r, "\ncoverage: every class not found is ruled out\n", "\"open\":\"\",",
               "\"bound\":\"states\"");
    ces_check_report_destroy(r);
    /* stopped before the search, its model past the memory bound: no
     * DEADLOCK or HANG either (it said every class) */
    o.max_states = 0;
    o.max_memory = 1024;
    r = stopped(ctx, g, &o, at, CES_V_INCOMPLETE, CES_V_RACE | CES_V_MISMATCH, false);
    report_has(ctx, r, "\ncoverage: neither found nor ruled out: RACE,MISMATCH\n",
               "\"open\":\"RACE,MISMATCH\",", "\"bound\":\"memory\"");
    ces_check_report_destroy(r);
    ces_graph_destroy(g);

    g = coll_graph(ctx, CES_COLL_ALLTOALL, CES_PROTO_MONO, CES_PHASE_EAGER, 4, 1);
    ces_check_opts_init(&o);
    o.max_states = 5;
    r = stopped(ctx, g, &o, at, CES_V_INCOMPLETE, CES_V_HANG | CES_V_RACE | CES_V_MISMATCH,
                false);
    json_open(ctx, r, "\"open\":\"HANG,RACE,MISMATCH\",");
    ces_check_report_destroy(r);
    o.max_states = 0;
    o.max_depth = 5;
    r = stopped(ctx, g, &o, at, CES_V_INCOMPLETE, CES_V_HANG | CES_V_RACE | CES_V_MISMATCH,
                false);
    report_has(ctx, r,
               "\ncoverage: some executions were cut at the depth bound and not followed "
               "further\ncoverage: neither found nor ruled out: HANG,RACE,MISMATCH\n",
               "\"depth_cut\":true", "\"open\":\"HANG,RACE,MISMATCH\",");
    ces_check_report_destroy(r);
    r = check2(ctx, g, NULL, CES_V_OK);
    assert_int_equal(ces_check_report_open(r), 0);
    t = text_of(ctx, r);
    assert_null(strstr(t, "ruled out"));
    ces_free(ctx, t);
    json_open(ctx, r, NULL);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);

    g = six_ranks(ctx, 60145);
    ces_check_opts_init(&o);
    o.max_states = 300000;
    r = stopped(ctx, g, &o, at, CES_V_HANG | CES_V_INCOMPLETE, CES_V_DEADLOCK, false);
    report_has(ctx, r,
               "shows none (13 of the states below searched it)\n"
               "coverage: neither found nor ruled out: DEADLOCK\n",
               "\"open\":\"DEADLOCK\",", "\"sliced\":[\"bar\"],");
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    g = six_ranks(ctx, 60094);
    o.max_states = 20000;
    r = stopped(ctx, g, &o, UINT64_MAX, CES_V_HANG | CES_V_RACE | CES_V_INCOMPLETE,
                CES_V_MISMATCH, true);
    report_has(ctx, r, "\ncoverage: neither found nor ruled out: MISMATCH\n",
               "\"open\":\"MISMATCH\",", "\"race_free_states\":");
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    /* seed 30108: DEADLOCK and RACE found, its second search stopped: no
     * HANG either; cut at depth 20, the first search's classes are not
     * final, though the second search ran */
    {
        struct ces_gen_opts go;

        ces_gen_opts_init(&go);
        go.ranks = 4;
        go.streams = 2;
        go.steps = 3;
        go.mutate_pct = 60;
        assert_int_equal(ces_gen_graph(ctx, 30108, &go, &g), CES_OK);
    }
    o.max_states = 30;
    r = stopped(ctx, g, &o, at, CES_V_DEADLOCK | CES_V_RACE | CES_V_INCOMPLETE, CES_V_MISMATCH,
                true);
    ces_check_report_destroy(r);
    o.max_depth = 20;
    r = stopped(ctx, g, &o, at, CES_V_RACE | CES_V_INCOMPLETE,
                CES_V_DEADLOCK | CES_V_HANG | CES_V_MISMATCH, true);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);

    g = coll_graph(ctx, CES_COLL_BARRIER, CES_PROTO_NCCL, CES_PHASE_GRAPH, 2, 2);
    ces_check_opts_init(&o);
    o.flags = CES_CHECK_FIRST;
    r = stopped(ctx, g, &o, at, CES_V_HANG | CES_V_INCOMPLETE, 0, false);
    report_has(ctx, r, "\ncoverage: every class not found is ruled out\n", "\"open\":\"\",",
               "\"first_defect\":true");
    ces_check_report_destroy(r);
    o.flags = 0;
    o.random = 3;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_open(r), 0);
    json_open(ctx, r, NULL);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Once no end state can add a class, a write of a value no wait left reads
 * needs no other writer of its slot (docs/SEMANTICS.md, section 10,
 * "Writes nothing reads"): a flag reset runs before a peer's raise of the
 * next call, not both orders.  `cesync gen --seed 5005 --ranks 8 --mutate
 * 0` (flag-reset barriers around pushes) HANGs where a raise is lost:
 * 2,311 states (over 25 million unfinished in 100 s before).  The DEADLOCK
 * condition: in `cesync gen --seed 200013 --ranks 4` a DEADLOCK needs a
 * raise lost under a reset after the first HANG; its search keeps both
 * orders while the wait-for over-approximation has a cycle, and finds it
 * (449 states; 23,666 with both orders everywhere; with the reset first
 * regardless, HANG,RACE,MISMATCH in 409).  A value that a wait of
 * any stream left reads keeps both orders: in `read`, r2's 7 (once r1's 5
 * has killed r2 in the first branch: HANG) is read by r0 s1's second wait,
 * which r0 s1 reaches only after r3's 2, so only the order 2 then 7 lets
 * r0 s1 produce beside r0 s0 (RACE; r0 s0's wait for 9, the slot's first
 * waits, reads neither; 10 states, below: the second search, for a
 * MISMATCH, follows none, as no consume is left, `test_consumes_race`; 20
 * and 10 of them the second search's before, 22 and 12 while an access
 * after a wait was not taken as racing with its bytes' history,
 * `test_races_sure`).
 * The order left out may hold a MISMATCH that the one kept leaves
 * unjudged: in `lost` r1 raises f and consumes b, which nobody filled, in
 * each of two iterations, and r0 lowers f, waits for it and copies into b.
 * Where r0 lowers f after both raises it hangs, and that execution is
 * race-free (a MISMATCH); with the lowering first, as the write nothing
 * reads runs, r0 passes and copies, unordered with r1's consume (a RACE),
 * so the consume's data is not judged.  Where a race could still follow,
 * such a choice sends the search on to its second one, which keeps both
 * orders there: HANG, RACE, MISMATCH in 17 states, 7 of them the second
 * search's (HANG, RACE before; at one iteration the raise comes first in
 * the order kept).  Found comparing the searches on an expanded `scatter
 * --sync pull --graph --iterations 3` with two lines swapped. */
static void test_unread_writes_first(void **state)
{
    static const char read[] =
        "cesync 1\nranks 4\nstreams 2\nbuffer a 16\nsignal k u64 1\nsignal x u64 1\n"
        "signal y u64 1\nphase eager x1\nr0 : write k[0]@2 = 1\nr0 : produce a[0:16]\n"
        "r0 : wait x[0] == 9\nr1 : write k[0]@2 = 5\nr2 : wait k[0] == 1\n"
        "r2 : write x[0]@0 = 7\nr3 : write x[0]@0 = 2\nr3 : write y[0]@0 = 1\n"
        "r0 s1 : wait y[0] == 1\nr0 s1 : wait x[0] == 7\nr0 s1 : produce a[0:16]\n";
    static const char lost[] =
        "cesync 1\nranks 2\nbuffer a 8\nbuffer b 8\nsignal f u32 1\nphase eager x2\n"
        "r0 : write f[0]@1 = 0\nr0 : wait f[0]@1 == 1\nr0 : copy a[0:8] -> b[0:8]@1\n"
        "r1 : write f[0] = 1\nr1 : consume b[0:8] == a[0:8]@0\n";
    static const struct gen_row rows[] = {
        {5005, 8, 0, CES_V_HANG, 2311, 3483, 1, 0, 0},
        {200013, 4, 45, CES_V_DEADLOCK | CES_V_HANG | CES_V_RACE | CES_V_MISMATCH, 449, 768, 6, 0,
         0},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g;
    struct ces_check_report *r;

    (void)state;
    check_gen_rows(ctx, rows, sizeof(rows) / sizeof(rows[0]), false);
    g = ces_test_text_graph(ctx, read);
    r = check2(ctx, g, NULL, CES_V_HANG | CES_V_RACE);
    assert_int_equal(ces_check_report_stats(r).states, 10);
    assert_int_equal(ces_check_report_stats(r).race_free_states, 0);
    replays(ctx, g, NULL, find(r, CES_V_RACE));
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    g = ces_test_text_graph(ctx, lost);
    r = check2(ctx, g, NULL, CES_V_HANG | CES_V_RACE | CES_V_MISMATCH);
    assert_int_equal(ces_check_report_stats(r).states, 17);
    assert_int_equal(ces_check_report_stats(r).race_free_states, 7);
    replays(ctx, g, NULL, find(r, CES_V_MISMATCH));
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A stable wait runs early while clocks are live where its join can only
 * rise (docs/SEMANTICS.md, section 10, "Waits run early").  Two `mono`
 * barriers around a push from rank 1 to rank 2 with a ready/done
 * handshake: 11, 13 and 21 states at 3, 4 and 8 ranks (111, 1,798 and over
 * 5 million unfinished in 10 s while each wait could observe either
 * barrier's store with a different clock; 488 unreduced at 3).  r0 raises
 * f once before copying the wrong buffer into r1's a and once after: the
 * first search runs r1's wait at the first store, which leaves the copy
 * unordered (RACE); the race-free executions, where the wait observes the
 * second store, deliver the wrong bytes, which the second search finds
 * (MISMATCH; 3 of 5 states, its wait run at once where no store is left
 * to observe, 4 of 6 while it was a choice there too; the first alone said
 * RACE, and so does --first, which runs no second search); it stops at that
 * MISMATCH (with r1 raising g for r0 after the consume, 7 states and 16
 * transitions; 19 went on).
 * With the right buffer copied the race-free executions deliver the right
 * bytes, and the second search follows no state once no data access is
 * left (2 of 8 states, r0 then waiting for an h r1 overwrites: HANG; the
 * second search runs r0's store of 2 to h, which no wait reads, before
 * r1's store of 1, the order that cannot hang).  A
 * race before the barriers, in every execution, leaves it no state at all
 * (9 in all; 3,947 with the racing states followed).  A join that could
 * fall stays a choice: r0's copy then store, r2's store without it (RACE in
 * 5 states, no second search; run early, the wait stored 8 with one).
 * The stores left are judged at their ends only where a writer's values
 * never decrease: r0's 1, 2, 0, 3 keep r1's wait for 1 a choice, its 0
 * between failing it (5 states, 12 transitions; by the ends, 2 and 5),
 * and both ends count: r0's 1, 1, 2 fail r1's wait for == 1 at the last
 * (HANG where r1 waits after it; by the first end alone, OK). */
static void test_waits_run_early(void **state)
{
    static const char push[] =
        "buffer src 16\nbuffer dst 16\nsignal bar u64 1\nsignal rdy u64 1\nsignal done u64 1\n"
        "phase eager x2\nr* : write bar[0] = $i\nr* over p : wait bar[0]@$p >= $i\n"
        "r1 : produce src[0:16]\nr1 : wait rdy[0] >= $i\nr1 : copy src[0:16] -> dst[0:16]@2\n"
        "r1 : write done[0]@2 = $i\nr2 : write rdy[0]@1 = $i\nr2 : wait done[0] >= $i\n"
        "r2 : consume dst[0:16] == src[0:16]@1\n";
    static const struct {
        uint32_t ranks, flags;
        uint64_t states;
    } runs[] = {{3, 0, 11}, {4, 0, 13}, {8, 0, 21}, {3, CES_CHECK_NO_REDUCTION, 488}};
    static const char early[] =
        "cesync 1\nranks 2\nbuffer a 16\nbuffer b 16\nsignal f u64 1\nphase eager x1\n"
        "r0 : produce a[0:16]\nr0 : write f[0]@1 = 1\nr0 : copy b[0:16] -> a[0:16]@1\n"
        "r0 : write f[0]@1 = 2\nr1 : wait f[0] >= 1\nr1 : consume a[0:16] == a[0:16]@0\n";
    static const char falls[] =
        "cesync 1\nranks 3\nbuffer src 16\nbuffer dst 16\nsignal f u64 1\nphase eager x1\n"
        "r0 : produce src[0:16]\nr0 : copy src[0:16] -> dst[0:16]@1\nr0 : write f[0]@1 = 1\n"
        "r1 : wait f[0] >= 1\nr1 : consume dst[0:16] == src[0:16]@0\nr2 : write f[0]@1 = 1\n";
    static const char right[] =
        "cesync 1\nranks 2\nbuffer a 16\nbuffer b 16\nsignal f u64 1\nsignal h u64 1\n"
        "phase eager x1\nr0 : produce b[0:16]\nr0 : write f[0]@1 = 1\n"
        "r0 : copy b[0:16] -> a[0:16]@1\nr0 : write f[0]@1 = 2\nr0 : write h[0]@0 = 2\n"
        "r0 : wait h[0] == 1\nr1 : wait f[0] >= 1\nr1 : consume a[0:16] == b[0:16]@0\n"
        "r1 : write h[0]@0 = 1\n";
    static const char falling[] =
        "cesync 1\nranks 2\nsignal f u64 1\nphase eager x1\nr0 : write f[0]@1 = 1\n"
        "r0 : write f[0]@1 = 2\nr0 : write f[0]@1 = 0\nr0 : write f[0]@1 = 3\n"
        "r1 : wait f[0] >= 1\n";
    static const char last[] =
        "cesync 1\nranks 2\nsignal f u64 1\nphase eager x1\nr0 : write f[0]@1 = 1\n"
        "r0 : write f[0]@1 = 1\nr0 : write f[0]@1 = 2\nr1 : wait f[0] == 1\n";
    static const char before[] =
        "cesync 1\nranks 4\nstreams 2\nbuffer a 16\nsignal ready u64 1\nphase eager x1\n"
        "r1 : produce a[0:8]\nr1 s1 : consume a[0:8] == a[0:8]@1\nphase eager x2\n"
        "r* : write ready[0] = $i\nr* over p : wait ready[0]@$p >= $i\nphase eager x1\n"
        "r1 : produce a[8:16]\nr1 : record e\nr1 s1 : await e\n"
        "r1 s1 : consume a[8:16] == a[8:16]@1\n";
    static const struct {
        const char *text;
        uint32_t verdict;
        uint64_t states, transitions, race_free;
    } more[] = {
        {right, CES_V_HANG | CES_V_RACE, 8, 20, 2},
        {before, CES_V_RACE, 9, 40, 0},
        {falling, CES_V_OK, 5, 12, 0},
        {last, CES_V_HANG, 5, 8, 0},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_check_opts o;
    struct ces_check_report *r;
    struct ces_graph *g;
    char text[1024];

    (void)state;
    ces_check_opts_init(&o);
    for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
        snprintf(text, sizeof(text), "cesync 1\nranks %u\n%s", (unsigned)runs[k].ranks, push);
        g = ces_test_text_graph(ctx, text);
        r = check1(ctx, g, NULL, runs[k].flags, CES_V_OK, runs[k].states, 1);
        assert_int_equal(ces_check_report_stats(r).race_free_states, 0);
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    g = ces_test_text_graph(ctx, early);
    r = check1(ctx, g, NULL, 0, CES_V_RACE | CES_V_MISMATCH, 5, 2);
    assert_int_equal(ces_check_report_stats(r).race_free_states, 3);
    report_has(ctx, r,
               "\ncoverage: 3 of the states below were a second search, for a MISMATCH among "
               "race-free executions\n",
               ",\"peak_memory\":",
               ",\"race_free_states\":3,\"slice_states\":0,\"sample_executions\":0},");
    replays(ctx, g, NULL, find(r, CES_V_MISMATCH));
    ces_check_report_destroy(r);
    r = check1(ctx, g, NULL, CES_CHECK_NO_REDUCTION, CES_V_RACE | CES_V_MISMATCH, 15, 3);
    ces_check_report_destroy(r);
    o.flags = CES_CHECK_FIRST;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_RACE | CES_V_INCOMPLETE);
    assert_int_equal(ces_check_report_stats(r).race_free_states, 0);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    snprintf(text, sizeof(text), "%.*ssignal g u64 1\n%sr1 : write g[0]@0 = 1\nr0 : wait g[0] == 1\n",
             (int)(strstr(early, "phase") - early), early, strstr(early, "phase"));
    g = ces_test_text_graph(ctx, text);
    r = check1(ctx, g, NULL, 0, CES_V_RACE | CES_V_MISMATCH, 7, 2);
    assert_int_equal(ces_check_report_stats(r).transitions, 16);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    for (size_t k = 0; k < sizeof(more) / sizeof(more[0]); k++) {
        g = ces_test_text_graph(ctx, more[k].text);
        o.flags = 0;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), more[k].verdict);
        assert_int_equal(ces_check_report_stats(r).states, more[k].states);
        assert_int_equal(ces_check_report_stats(r).transitions, more[k].transitions);
        assert_int_equal(ces_check_report_stats(r).race_free_states, more[k].race_free);
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    g = ces_test_text_graph(ctx, falls);
    r = check1(ctx, g, NULL, 0, CES_V_RACE, 5, 2);
    assert_int_equal(ces_check_report_stats(r).race_free_states, 0);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_race_copy_produce(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, 1);
    struct ces_check_report *r;
    const struct ces_check_defect *d;
    char *t;

    (void)state;
    op(g, 0, PR(0, SEND, 0, 0, 64));
    op(g, 1, CP(0, SEND, 0, 16, RECV, 1, 0, 16));
    r = check2(ctx, g, NULL, CES_V_RACE);
    d = find(r, CES_V_RACE);
    assert_int_equal(d->race[0].pos.rank, 0);
    assert_int_equal(d->race[0].pos.index, 0);
    assert_int_equal(d->race[0].write, 1);
    assert_int_equal(d->race[1].pos.rank, 1);
    assert_int_equal(d->race[1].write, 0);
    assert_int_equal(d->race[1].region.lo, 16);
    assert_int_equal(d->race[1].region.hi, 32);
    assert_int_equal(d->race[0].step, 1);
    assert_int_equal(d->race[1].step, 2);
    t = text_of(ctx, r);
    assert_non_null(strstr(t, "  race, not ordered by happens-before:\n"
                              "    r0.s0#0 produce send[0:64]  writes send@0[16:32] (step 1)\n"
                              "    r1.s0#0 copy send[16:32]@0 -> recv[0:16]  reads "
                              "send@0[16:32] (step 2)\n"));
    ces_free(ctx, t);
    assert_int_equal(ces_check_report_json(ctx, r, &t, NULL), CES_OK);
    assert_non_null(strstr(t, ",\"race\":[{\"pos\":\"r0.s0#0\",\"op\":\"produce send[0:64]\","
                              "\"iteration\":1,\"write\":true,\"step\":1,\"region\":{\"buffer\":"
                              "\"send\",\"rank\":0,\"lo\":16,\"hi\":32}},{\"pos\":\"r1.s0#0\","
                              "\"op\":\"copy send[16:32]@0 -> recv[0:16]\",\"iteration\":1,"
                              "\"write\":false,\"step\":2,\"region\":{\"buffer\":\"send\","
                              "\"rank\":0,\"lo\":16,\"hi\":32}}]}"));
    ces_free(ctx, t);
    replays(ctx, g, NULL, d);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* An op's text in the report is whole, however long its names: it was cut
 * at 255 bytes (in the text and in JSON), dropping the region a long
 * buffer name is followed by. */
static void test_long_name_whole(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_check_report *r;
    char name[301], want[400], *t;

    (void)state;
    memset(name, 'b', 300);
    name[300] = '\0';
    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "send", 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, name, 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    op(g, 0, PR(0, SEND, 0, 0, 64));
    op(g, 0, CP(0, SEND, 0, 0, RECV, 1, 0, 32));
    op(g, 1, PR(0, RECV, 1, 16, 48));
    r = check2(ctx, g, NULL, CES_V_RACE);
    t = text_of(ctx, r);
    snprintf(want, sizeof(want), "r0.s0#1 copy send[0:32] -> %s[0:32]@1  writes ", name);
    assert_non_null(strstr(t, want));
    snprintf(want, sizeof(want), "r1.s0#0 produce %s[16:48]  writes ", name);
    assert_non_null(strstr(t, want));
    ces_free(ctx, t);
    assert_int_equal(ces_check_report_json(ctx, r, &t, NULL), CES_OK);
    snprintf(want, sizeof(want), "\"op\":\"produce %s[16:48]\"", name);
    assert_non_null(strstr(t, want));
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The race counterexample keeps only the causal past of the two accesses:
 * r0's later local copies and r2's handshake are not part of it. */
static void test_race_minimized(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 3, 1);
    struct ces_check_report *r;
    const struct ces_check_defect *d;

    (void)state;
    op(g, 0, PR(0, SEND, 0, 0, 64));
    for (uint32_t i = 0; i < 4; i++)
        op(g, 0, CP(0, SEND, 0, 0, RECV, 0, 16 * i, 16));
    op(g, 2, W(0, C, 2, 0, 1));
    op(g, 2, WT(0, C, 2, 0, CES_CMP_GEQ, 1));
    op(g, 1, W(0, F, 1, 0, 1));
    op(g, 1, WT(0, F, 1, 0, CES_CMP_GEQ, 1));
    op(g, 1, CP(0, SEND, 0, 32, RECV, 1, 0, 16));
    r = check2(ctx, g, NULL, CES_V_RACE);
    d = find(r, CES_V_RACE);
    assert_int_equal(d->nsteps, 4);
    assert_int_equal(d->steps[0].pos.rank, 0);
    assert_int_equal(d->steps[0].pos.index, 0);
    assert_int_equal(d->steps[1].pos.rank, 1);
    assert_int_equal(d->steps[3].pos.index, 2);
    assert_int_equal(d->race[0].step, 1);
    assert_int_equal(d->race[1].step, 4);
    replays(ctx, g, NULL, d);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_mismatch_previous_generation(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, 1);
    struct ces_check_report *r;
    const struct ces_check_defect *d;
    struct ces_dot_overlay ov;
    char *t;

    (void)state;
    /* iteration 1: produce, copy, signal; iteration 2: produce, no copy */
    for (uint32_t it = 1; it <= 2; it++) {
        if (it == 2)
            assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
        op(g, 0, PR(0, SEND, 0, 0, 32));
        if (it == 1)
            op(g, 0, CP(0, SEND, 0, 0, RECV, 1, 0, 32));
        op(g, 0, W(0, C, 1, 0, it));
        op(g, 1, WT(0, C, 1, 0, CES_CMP_GEQ, it));
        op(g, 1, CO(0, RECV, 1, 0, 32, SEND, 0, 0));
    }
    r = check2(ctx, g, NULL, CES_V_MISMATCH);
    d = find(r, CES_V_MISMATCH);
    assert_int_equal(d->mismatch.pos.rank, 1);
    assert_int_equal(d->mismatch.pos.index, 3);
    assert_int_equal(d->mismatch.expected.gen, 2);
    assert_int_equal(d->mismatch.found.gen, 1);
    assert_int_equal(d->mismatch.region.lo, 0);
    assert_int_equal(d->mismatch.region.hi, 32);
    t = text_of(ctx, r);
    assert_non_null(strstr(t, "  mismatch at r1.s0#3 consume recv[0:32] == send[0:32]@0:\n"
                              "    recv@1[0:32] holds send@0[0:32] of iteration 1\n"
                              "    expected send@0[0:32] of iteration 2\n"));
    ces_free(ctx, t);
    assert_int_equal(ces_check_report_json(ctx, r, &t, NULL), CES_OK);
    assert_non_null(strstr(t, ",\"mismatch\":{\"pos\":\"r1.s0#3\",\"op\":\"consume recv[0:32] "
                              "== send[0:32]@0\",\"iteration\":2,\"region\":{\"buffer\":\"recv\","
                              "\"rank\":1,\"lo\":0,\"hi\":32},\"expected\":{\"buffer\":\"send\","
                              "\"rank\":0,\"offset\":0,\"generation\":2},\"found\":{\"buffer\":"
                              "\"send\",\"rank\":0,\"offset\":0,\"generation\":1}}}]}\n"));
    ces_free(ctx, t);
    /* the picture marks the consume (block 1, rank 1's op 1) after the steps */
    assert_int_equal(ces_check_report_overlay(r, 0, &ov), CES_OK);
    assert_int_equal(ov.nmarks, d->nsteps + 1);
    assert_int_equal(ov.marks[d->nsteps].block, 1);
    assert_int_equal(ov.marks[d->nsteps].rank, 1);
    assert_int_equal(ov.marks[d->nsteps].index, 1);
    assert_int_equal(ov.marks[d->nsteps].step, 0);
    assert_int_equal(ov.marks[d->nsteps].style, CES_DOT_MISMATCH);
    /* and its title what was found there (the picture said where alone) */
    assert_string_equal(ov.title, "MISMATCH counterexample\nmismatch at r1.s0#3 consume "
                                  "recv[0:32] == send[0:32]@0: recv@1[0:32] holds send@0[0:32] "
                                  "of iteration 1, expected send@0[0:32] of iteration 2");
    replays(ctx, g, NULL, d);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Iterations count on across phases past 2^32 (here behind an empty graph
 * phase of 2^32 - 1 replays): a produce stamps its full 64-bit iteration,
 * so the generations of iterations 2^32 and 2^32 + 1 are neither 0 nor 1. */
static void test_generation_past_2_32(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_check_report *r;
    const struct ces_check_defect *d;
    const uint64_t first = UINT64_C(4294967296);

    (void)state;
    for (int bad = 0; bad < 2; bad++) {
        assert_int_equal(ces_graph_create(ctx, 1, 1, &g), CES_OK);
        assert_int_equal(ces_graph_add_buffer(g, "send", 64, NULL), CES_OK);
        assert_int_equal(ces_graph_add_buffer(g, "recv", 64, NULL), CES_OK);
        assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, UINT32_MAX), CES_OK);
        /* iteration 2^32: produce, copy, consume */
        assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
        op(g, 0, PR(0, SEND, 0, 0, 32));
        op(g, 0, CP(0, SEND, 0, 0, RECV, 0, 0, 32));
        op(g, 0, CO(0, RECV, 0, 0, 32, SEND, 0, 0));
        /* iteration 2^32 + 1: produce again; copy only when good */
        assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
        op(g, 0, PR(0, SEND, 0, 0, 32));
        if (!bad)
            op(g, 0, CP(0, SEND, 0, 0, RECV, 0, 0, 32));
        op(g, 0, CO(0, RECV, 0, 0, 32, SEND, 0, 0));
        r = check2(ctx, g, NULL, bad ? CES_V_MISMATCH : CES_V_OK);
        if (bad) {
            d = find(r, CES_V_MISMATCH);
            assert_int_equal(d->mismatch.pos.index, 4);
            assert_true(d->mismatch.expected.gen == first + 1);
            assert_true(d->mismatch.found.gen == first);
        }
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* A produce of an inner part of the expected region: the expected
 * generations split into three runs, and only the middle one is stale. */
static void test_mismatch_inner_run(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, 1);
    struct ces_check_report *r;
    const struct ces_check_defect *d;
    char *t;

    (void)state;
    op(g, 0, PR(0, SEND, 0, 0, 64));
    op(g, 0, CP(0, SEND, 0, 0, RECV, 0, 0, 64));
    op(g, 0, CO(0, RECV, 0, 0, 64, SEND, 0, 0));
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    op(g, 0, CP(0, SEND, 0, 0, RECV, 0, 0, 64));
    op(g, 0, PR(0, SEND, 0, 16, 32)); /* after the copy: recv[16:32] is stale */
    op(g, 0, CO(0, RECV, 0, 0, 64, SEND, 0, 0));
    r = check2(ctx, g, NULL, CES_V_MISMATCH);
    d = find(r, CES_V_MISMATCH);
    assert_int_equal(d->mismatch.pos.index, 5);
    assert_int_equal(d->mismatch.region.lo, 16);
    assert_int_equal(d->mismatch.region.hi, 32);
    assert_int_equal(d->mismatch.expected.off, 16);
    assert_int_equal(d->mismatch.expected.gen, 2);
    assert_int_equal(d->mismatch.found.off, 16);
    assert_int_equal(d->mismatch.found.gen, 1);
    t = text_of(ctx, r);
    assert_non_null(strstr(t, "  mismatch at r0.s0#5 consume recv[0:64] == send[0:64]@0:\n"
                              "    recv@0[16:32] holds send@0[16:32] of iteration 1\n"
                              "    expected send@0[16:32] of iteration 2\n"));
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The expected generations of a produce that starts where an earlier run
 * starts: send[0:16] and send[16:32] produced apart in iteration 1, then
 * send[16:24] in iteration 2; the copy of send[0:32] consumed in iteration
 * 2 matches (1, 2, 1 by runs).  An empty run of iteration 1 left at 16
 * made the consume expect iteration 1 there: a MISMATCH.  Likewise a
 * produce that ends where an earlier run ends: send[0:16] in iteration 1,
 * send[16:32] and then send[0:16] in iteration 2 (all of it 2). */
static void test_expected_run_edges(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 1);
    struct ces_check_report *r;

    (void)state;
    op(g, 0, PR(0, SEND, 0, 0, 16));
    op(g, 0, PR(0, SEND, 0, 16, 32));
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    op(g, 0, PR(0, SEND, 0, 16, 24));
    op(g, 0, CP(0, SEND, 0, 0, RECV, 0, 0, 32));
    op(g, 0, CO(0, RECV, 0, 0, 32, SEND, 0, 0));
    r = check2(ctx, g, NULL, CES_V_OK);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    g = mk(ctx, 1, 1);
    op(g, 0, PR(0, SEND, 0, 0, 16));
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    op(g, 0, PR(0, SEND, 0, 16, 32));
    op(g, 0, PR(0, SEND, 0, 0, 16));
    op(g, 0, CP(0, SEND, 0, 0, RECV, 0, 0, 32));
    op(g, 0, CO(0, RECV, 0, 0, 32, SEND, 0, 0));
    r = check2(ctx, g, NULL, CES_V_OK);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Bytes never produced are expected as the initial contents (generation
 * 0), before a produced run as after it: only send[16:32] is produced, and
 * the consume of a copy of send[0:32] matches.  Without the run of
 * generation 0 at its start it expected iteration 1 there: a MISMATCH. */
static void test_expected_gap_before_run(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 1);
    struct ces_check_report *r;

    (void)state;
    op(g, 0, PR(0, SEND, 0, 16, 32));
    op(g, 0, CP(0, SEND, 0, 0, RECV, 0, 0, 32));
    op(g, 0, CO(0, RECV, 0, 0, 32, SEND, 0, 0));
    r = check2(ctx, g, NULL, CES_V_OK);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Two runs of one copy's destination with contiguous provenance and one
 * writer but different generations stay apart: send[0:16] of iteration 1
 * and send[16:32] of iteration 2 copied as one, then consumed in iteration
 * 2, match.  Merged into one run, recv[16:32] would show iteration 1. */
static void test_copy_keeps_generations(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 1);
    struct ces_check_report *r;

    (void)state;
    op(g, 0, PR(0, SEND, 0, 0, 32));
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    op(g, 0, PR(0, SEND, 0, 16, 32));
    op(g, 0, CP(0, SEND, 0, 0, RECV, 0, 0, 32));
    op(g, 0, CO(0, RECV, 0, 0, 32, SEND, 0, 0));
    r = check2(ctx, g, NULL, CES_V_OK);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Two runs whose offsets do not follow on stay apart too: recv[0:32]
 * holds send's halves swapped, and one copy of it to recv[32:64] keeps
 * them apart, so recv[48:64] holds send[0:16].  Merged into one run from
 * send[16:], recv[48:64] would have held send[32:48]. */
static void test_copy_keeps_offsets(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 1);
    struct ces_check_report *r;

    (void)state;
    op(g, 0, PR(0, SEND, 0, 0, 32));
    op(g, 0, CP(0, SEND, 0, 16, RECV, 0, 0, 16));
    op(g, 0, CP(0, SEND, 0, 0, RECV, 0, 16, 16));
    op(g, 0, CP(0, RECV, 0, 0, RECV, 0, 32, 32));
    op(g, 0, CO(0, RECV, 0, 48, 64, SEND, 0, 0));
    r = check2(ctx, g, NULL, CES_V_OK);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Bytes of the right buffer, offset and generation but of another rank
 * are a MISMATCH: r1 copies its own send[0:32] where send@0 was expected,
 * both produced in iteration 1. */
static void test_mismatch_other_rank(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, 1);
    struct ces_check_report *r;
    const struct ces_check_defect *d;

    (void)state;
    op(g, 0, PR(0, SEND, 0, 0, 32));
    op(g, 1, PR(0, SEND, 1, 0, 32));
    op(g, 1, CP(0, SEND, 1, 0, RECV, 1, 0, 32));
    op(g, 1, CO(0, RECV, 1, 0, 32, SEND, 0, 0));
    r = check2(ctx, g, NULL, CES_V_MISMATCH);
    d = find(r, CES_V_MISMATCH);
    assert_int_equal(d->mismatch.pos.rank, 1);
    assert_int_equal(d->mismatch.pos.index, 2);
    assert_int_equal(d->mismatch.expected.rank, 0);
    assert_int_equal(d->mismatch.found.rank, 1);
    assert_int_equal(d->mismatch.found.off, 0);
    assert_int_equal(d->mismatch.found.gen, 1);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A write starts the bytes' access history afresh: the reads before it
 * are gone.  s0 produces send[0:16] while s1 reads it, unordered: a RACE in
 * both orders, and the two end states differ only in s1's read (kept when
 * it came after the produce, cleared by the produce when before), so the
 * unreduced search stores 5 states and reaches 2 end states.  Kept across
 * the write, the read made them one. */
static void test_write_clears_reads(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 2);
    struct ces_op co = {.kind = CES_OP_CONSUME, .stream = 1, .a = {SEND, 0, 0, 16}};
    struct ces_check_report *r;

    (void)state;
    op(g, 0, PR(0, SEND, 0, 0, 16));
    op(g, 0, co);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    r = check1(ctx, g, NULL, CES_CHECK_NO_REDUCTION, CES_V_RACE, 5, 2);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A wait on s0 enqueued before the write on s1 that satisfies it. */
static struct ces_graph *hol(struct ces_ctx *ctx, uint32_t connections)
{
    struct ces_graph *g = mk(ctx, 1, 2);

    assert_int_equal(ces_graph_set_connections(g, connections), CES_OK);
    op(g, 0, WT(0, F, 0, 0, CES_CMP_EQ, 1));
    op(g, 0, W(1, F, 0, 0, 1));
    return g;
}

static void test_head_of_line(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g0 = hol(ctx, 0), *g1 = hol(ctx, 1), *g2 = hol(ctx, 2);
    struct ces_check_report *r;
    const struct ces_check_defect *d;

    (void)state;
    r = check2(ctx, g0, NULL, CES_V_OK);
    ces_check_report_destroy(r);
    r = check2(ctx, g2, NULL, CES_V_OK);
    ces_check_report_destroy(r);
    r = check2(ctx, g1, NULL, CES_V_DEADLOCK);
    d = find(r, CES_V_DEADLOCK);
    assert_int_equal(d->nblocked, 2);
    assert_int_equal(d->blocked[0].reason, CES_BLOCK_WAIT);
    assert_int_equal(d->blocked[1].reason, CES_BLOCK_QUEUE);
    assert_int_equal(d->blocked[1].edges[0].pos.stream, 0);
    assert_int_equal(d->ncycle, 2);
    ces_check_report_destroy(r);
    ces_graph_destroy(g0);
    ces_graph_destroy(g1);
    ces_graph_destroy(g2);
    ces_test_ctx_end(ctx, &st);
}

/* An op behind a blocked queue head whose own op is blocked too waits for
 * both: a cycle through its own wait, or its boundary, is a DEADLOCK.  Only
 * the queue head's edge was drawn, so a queue head blocked for good hid the
 * cycle and the verdict was HANG (DEADLOCK with a queue per stream).  So
 * does a wait at a boundary whose link waits for good (`own`): only the
 * links' edges were drawn.  The report gives the values of such a wait
 * as of one blocked on its condition alone (it gave none). */
static void test_queue_and_own_block(void **state)
{
    static const char wait[] = "cesync 1\nranks 2\nstreams 2\nconnections 1\n"
                               "signal f u32 1\nsignal g u32 1\nsignal h u32 1\n"
                               "phase eager x1\n"
                               "r0 s0 : wait g[0] >= 1\n"
                               "r0 s1 : wait f[0] >= 1\n"
                               "r0 s1 : write h[0]@1 = 1\n"
                               "r1 : wait h[0] >= 1\n"
                               "r1 : write f[0]@0 = 1\n";
    static const char link[] = "cesync 1\nranks 1\nstreams 3\nconnections 2\n"
                               "signal f u32 1\nsignal g u32 1\n"
                               "phase eager x1\n"
                               "r0 s0 : wait g[0] >= 1\n"
                               "r0 s1 : wait f[0] >= 1\n"
                               "phase eager x1\n"
                               "r0 s2 : write f[0] = 1\n";
    static const char own[] = "cesync 1\nranks 2\nstreams 2\n"
                              "signal f u32 1\nsignal g u32 1\nsignal h u32 1\n"
                              "phase eager x1\n"
                              "r0 s1 : wait g[0] >= 1\n"
                              "phase eager x1\n"
                              "r0 s0 : wait f[0] >= 1\n"
                              "r0 s0 : write h[0]@1 = 1\n"
                              "r1 : wait h[0] >= 1\n"
                              "r1 : write f[0]@0 = 1\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_check_report *r;
    const struct ces_check_defect *d;
    struct ces_graph *g;
    char *t;

    (void)state;
    g = ces_test_text_graph(ctx, wait);
    r = check2(ctx, g, NULL, CES_V_DEADLOCK);
    d = find(r, CES_V_DEADLOCK);
    assert_int_equal(d->nblocked, 3);
    assert_int_equal(d->blocked[1].reason, CES_BLOCK_QUEUE);
    assert_int_equal(d->blocked[1].nedges, 2);
    assert_int_equal(d->blocked[1].edges[0].pos.stream, 0);
    assert_int_equal(d->blocked[1].edges[1].pos.rank, 1);
    assert_int_equal(d->blocked[1].edges[1].pos.index, 1);
    assert_int_equal(d->ncycle, 2);
    t = text_of(ctx, r);
    /* with the values of its own wait, blocked past the head too */
    assert_int_equal(d->blocked[1].waits, 1);
    assert_int_equal(d->blocked[1].held, 0);
    assert_int_equal(d->blocked[1].awaited, 1);
    assert_non_null(strstr(t, "    r0.s1#0 wait f[0] >= 1 (line 10:9): behind the head of its "
                              "hardware queue; past that, its wait: f[0]@0 holds 0, awaits >= "
                              "1\n"
                              "      queue head r0.s0#0 wait g[0] >= 1 (line 9:9), but r0.s0 is "
                              "blocked at r0.s0#0\n"
                              "      and its op needs r1.s0#1 write f[0]@0 = 1 (line 13:6), but "
                              "r1.s0 is blocked at r1.s0#0\n"));
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    g = ces_test_text_graph(ctx, link);
    r = check2(ctx, g, NULL, CES_V_DEADLOCK);
    d = find(r, CES_V_DEADLOCK);
    assert_int_equal(d->blocked[2].reason, CES_BLOCK_QUEUE);
    assert_int_equal(d->blocked[2].nedges, 3);
    assert_int_equal(d->blocked[2].edges[2].pos.stream, 1);
    assert_int_equal(d->blocked[2].waits, 0); /* a write: no values */
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    g = ces_test_text_graph(ctx, own);
    r = check2(ctx, g, NULL, CES_V_DEADLOCK);
    d = find(r, CES_V_DEADLOCK);
    assert_int_equal(d->blocked[0].reason, CES_BLOCK_LINK);
    assert_int_equal(d->blocked[0].nedges, 2);
    assert_int_equal(d->blocked[0].waits, 1);
    assert_int_equal(d->ncycle, 2);
    t = text_of(ctx, r);
    assert_non_null(strstr(t, "      needs first r0.s1#0 wait g[0] >= 1 (line 8:9), but r0.s1 is "
                              "blocked at r0.s1#0\n"
                              "      and its op needs r1.s0#1 write f[0]@0 = 1 (line 13:6), but "
                              "r1.s0 is blocked at r1.s0#0\n"));
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A rank's streams pass block and replay boundaries together, as the CUDA
 * backend forks them from stream 0 before each block or replay and joins
 * them into it after.  A wait that only a later iteration of another
 * stream satisfies was proved OK, and hung on the GPU: it is a DEADLOCK
 * through the boundary (CES_BLOCK_LINK).  The order the boundary gives
 * is happens-before too: a copy of stream 1 and a consume of stream 0 in
 * the next block, or replay, do not race.  CES_CHECK_UNLINKED (a run of
 * eager groups, which the backend neither forks nor joins) checks the
 * streams apart, as before. */
static void test_links_at_boundaries(void **state)
{
    static const char later[] = "cesync 1\nranks 2\nstreams 2\nsignal f u64 1\n"
                                "phase eager x2\n"
                                "r0 s0 : wait f[0] >= 2\n"
                                "r0 s1 : write f[0] = $i\n";
    static const char blocks[] = "cesync 1\nranks 2\nstreams 2\nbuffer a 64\nbuffer b 64\n"
                                 "phase eager x1\n"
                                 "r* s1 : copy a[0:64] -> b[0:64]\n"
                                 "phase eager x1\n"
                                 "r* : consume b[0:64] == a[0:64]\n";
    static const char replays[] = "cesync 1\nranks 2\nstreams 2\nbuffer a 64\n"
                                  "phase graph x2\n"
                                  "r* s1 : produce a[0:64]\n"
                                  "r* s1 : record e\n"
                                  "r* : await e\n"
                                  "r* : consume a[0:64]\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, later);
    struct ces_check_opts apart;
    struct ces_check_report *r;
    const struct ces_check_defect *d;
    char *t;

    (void)state;
    ces_check_opts_init(&apart);
    apart.flags = CES_CHECK_UNLINKED;
    r = check2(ctx, g, NULL, CES_V_DEADLOCK);
    d = find(r, CES_V_DEADLOCK);
    assert_int_equal(d->nblocked, 2);
    assert_int_equal(d->blocked[0].reason, CES_BLOCK_WAIT);
    assert_int_equal(d->blocked[1].reason, CES_BLOCK_LINK);
    assert_int_equal(d->blocked[1].pos.stream, 1);
    assert_int_equal(d->blocked[1].pos.index, 1);
    assert_int_equal(d->blocked[1].nedges, 1);
    assert_int_equal(d->blocked[1].edges[0].pos.stream, 0);
    assert_int_equal(d->blocked[1].edges[0].pos.index, 0);
    assert_int_equal(d->ncycle, 2);
    t = text_of(ctx, r);
    assert_non_null(strstr(t, "    r0.s1#1 write f[0] = 2 (line 7:9): the first of its stream in a "
                              "block or replay, which starts after the rank's other streams "
                              "finish the earlier ones\n"
                              "      needs first r0.s0#0 wait f[0] >= 2 (line 6:9), but r0.s0 "
                              "is blocked at r0.s0#0\n"));
    ces_free(ctx, t);
    assert_int_equal(ces_check_report_json(ctx, r, &t, NULL), CES_OK);
    assert_non_null(strstr(t, "{\"pos\":\"r0.s1#1\",\"op\":\"write f[0] = 2\",\"iteration\":2,"
                              "\"line\":7,\"col\":9,\"reason\":\"link\",\"edges\":[{\"pos\":"
                              "\"r0.s0#0\""));
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    r = check2(ctx, g, &apart, CES_V_OK);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    for (int i = 0; i < 2; i++) {
        g = ces_test_text_graph(ctx, i == 0 ? blocks : replays);
        r = check2(ctx, g, NULL, CES_V_OK);
        ces_check_report_destroy(r);
        r = check2(ctx, g, &apart, CES_V_RACE);
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* The edges of an op blocked at a boundary name its links "needs first" and
 * the writes its own wait needs "and its op needs".  A write that was the
 * last op of another stream in an earlier block, but not that stream's
 * last before the boundary (`earlier`), or that lands from a delayed
 * write's stream, which passes no boundary (`delayed`), was called a link
 * too. */
static void test_link_edge_names(void **state)
{
    static const char earlier[] = "cesync 1\nranks 1\nstreams 2\n"
                                  "signal f u32 1\nsignal g u32 1\nsignal h u32 1\n"
                                  "phase eager x1\n"
                                  "r0 s1 : wait g[0] >= 1\n"
                                  "r0 s1 : write f[0] = 1\n"
                                  "phase eager x1\n"
                                  "r0 s1 : write h[0] = 1\n"
                                  "phase eager x1\n"
                                  "r0 s0 : wait f[0] >= 1\n";
    static const char delayed[] = "cesync 1\nranks 1\nstreams 2\n"
                                  "signal f u32 1\nsignal g u32 1\n"
                                  "phase eager x1\n"
                                  "r0 s0 : wait g[0] >= 1\n"
                                  "r0 s0 : write f[0] = 1\n"
                                  "phase eager x1\n"
                                  "r0 s1 : wait f[0] >= 1\n";
    static const char head[] = ": the first of its stream in a block or replay, which starts "
                               "after the rank's other streams finish the earlier ones; past "
                               "that, its wait: f[0]@0 holds 0, awaits >= 1\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, earlier);
    struct ces_fault delay = {CES_FAULT_DELAY, 0, 0, 1};
    struct ces_check_opts o;
    struct ces_check_report *r;
    const struct ces_check_defect *d;
    char *t, want[512];

    (void)state;
    r = check2(ctx, g, NULL, CES_V_HANG);
    d = find(r, CES_V_HANG);
    assert_int_equal(d->blocked[0].reason, CES_BLOCK_LINK);
    assert_int_equal(d->blocked[0].nedges, 2);
    t = text_of(ctx, r);
    snprintf(want, sizeof(want),
             "    r0.s0#0 wait f[0] >= 1 (line 13:9)%s"
             "      needs first r0.s1#2 write h[0] = 1 (line 11:9), but r0.s1 is blocked at "
             "r0.s1#0\n"
             "      and its op needs r0.s1#1 write f[0] = 1 (line 9:9), but r0.s1 is blocked at "
             "r0.s1#0\n", head);
    assert_non_null(strstr(t, want));
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    g = ces_test_text_graph(ctx, delayed);
    ces_check_opts_init(&o);
    o.faults = &delay;
    o.nfaults = 1;
    r = check2(ctx, g, &o, CES_V_HANG);
    d = find(r, CES_V_HANG);
    assert_int_equal(d->blocked[1].reason, CES_BLOCK_LINK);
    assert_int_equal(d->blocked[1].nedges, 2);
    t = text_of(ctx, r);
    snprintf(want, sizeof(want),
             "    r0.s1#0 wait f[0] >= 1 (line 10:9)%s"
             "      needs first r0.s0#1 record delay0 (line 8:9), but r0.s0 is blocked at "
             "r0.s0#0\n"
             "      and its op needs r0.s2#1 write f[0] = 1 (line 8:9), but r0.s2 is blocked at "
             "r0.s2#0\n", head);
    assert_non_null(strstr(t, want));
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The watchdog releases an op blocked at a boundary as it releases a wait:
 * it is one of the ops the report lists (it listed none, "released with an
 * error: 0 waits/awaits", though the write below had been held there), a
 * dropped write as well. */
static void test_watchdog_releases_link(void **state)
{
    static const char text[] = "cesync 1\nranks 1\nstreams 2\nsignal f u32 1\n"
                               "phase eager x1\n"
                               "r0 s1 : wait f[0] >= 1\n"
                               "phase eager x1\n"
                               "r0 s0 : write f[0] = 1\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_fault drop = {CES_FAULT_DROP, 0, 0, 0};
    struct ces_check_opts o;
    struct ces_check_report *r;
    const struct ces_check_defect *d;
    char *t;

    (void)state;
    r = check2(ctx, g, NULL, CES_V_DEADLOCK);
    ces_check_report_destroy(r);
    ces_check_opts_init(&o);
    o.flags = CES_CHECK_ABORT;
    r = check2(ctx, g, &o, CES_V_OK);
    d = find(r, CES_CHECK_ABORTED);
    assert_int_equal(d->nsteps, 2);
    assert_int_equal(d->steps[0].pos.stream, 0);
    assert_int_equal(d->steps[0].kind, CES_STEP_ABORTED);
    assert_int_equal(d->naborted, 1);
    assert_int_equal(d->aborted[0].stream, 0);
    assert_int_equal(d->aborted[0].index, 0);
    t = text_of(ctx, r);
    assert_non_null(strstr(t, "    1 r0.s0#0 write f[0] = 1 (line 8:9)  (released by the "
                              "watchdog)\n"));
    assert_non_null(strstr(t, "  released with an error: 1 blocked op r0.s0#0\n"));
    /* one end state, said in the singular */
    assert_non_null(strstr(t, "\nwatchdog: fired in 1 end state; every blocked stream was "
                              "released with an error\n"));
    ces_free(ctx, t);
    replays(ctx, g, &o, d);
    ces_check_report_destroy(r);
    /* a dropped write released at its boundary is one of them too (its
     * step says it was dropped; the list left it out) */
    o.faults = &drop;
    o.nfaults = 1;
    r = check2(ctx, g, &o, CES_V_OK);
    d = find(r, CES_CHECK_ABORTED);
    assert_int_equal(d->nsteps, 2);
    assert_int_equal(d->steps[0].kind, CES_STEP_DROPPED);
    assert_int_equal(d->steps[1].kind, CES_STEP_ABORTED);
    assert_int_equal(d->naborted, 2);
    assert_int_equal(d->aborted[0].stream, 0);
    assert_int_equal(d->aborted[1].stream, 1);
    t = text_of(ctx, r);
    assert_non_null(strstr(t, "    1 r0.s0#0 write f[0] = 1 (line 8:9)  (dropped by a fault)\n"));
    assert_non_null(strstr(t, "  released with an error: 2 blocked ops r0.s0#0, r0.s1#0\n"));
    ces_free(ctx, t);
    replays(ctx, g, &o, d);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_u32_cyclic(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, 1), *far = mk(ctx, 2, 1);
    struct ces_check_report *r;

    (void)state;
    /* across the wrap: 0xffffffff is before 3, so the wait holds until 3 */
    op(g, 0, W(0, F, 1, 0, 0xffffffffu));
    op(g, 0, PR(0, SEND, 0, 0, 32));
    op(g, 0, CP(0, SEND, 0, 0, RECV, 1, 0, 32));
    op(g, 0, W(0, F, 1, 0, 3));
    op(g, 1, WT(0, F, 1, 0, CES_CMP_GEQ, 2));
    op(g, 1, CO(0, RECV, 1, 0, 32, SEND, 0, 0));
    r = check2(ctx, g, NULL, CES_V_OK);
    ces_check_report_destroy(r);
    /* a target more than 2^31 ahead of the initial 0 is already "reached" */
    op(far, 0, PR(0, SEND, 0, 0, 32));
    op(far, 0, CP(0, SEND, 0, 0, RECV, 1, 0, 32));
    op(far, 0, W(0, F, 1, 0, 0x80000001u));
    op(far, 1, WT(0, F, 1, 0, CES_CMP_GEQ, 0x80000001u));
    op(far, 1, CO(0, RECV, 1, 0, 32, SEND, 0, 0));
    r = check2(ctx, far, NULL, CES_V_RACE);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_graph_destroy(far);
    ces_test_ctx_end(ctx, &st);
}

static void test_batch_any_order(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, 1), *early = mk(ctx, 2, 1);
    struct ces_check_report *r;

    (void)state;
    for (int bad = 0; bad < 2; bad++) {
        struct ces_graph *x = bad ? early : g;

        op(x, 0, PR(0, SEND, 0, 0, 64));
        op(x, 0, K(CES_OP_BATCH, 0));
        op(x, 0, CP(0, SEND, 0, 0, RECV, 1, 32, 32));
        if (bad) /* the flag inside the batch window: before the copies complete */
            op(x, 0, K(CES_OP_END, 0));
        op(x, 0, CP(0, SEND, 0, 32, RECV, 1, 0, 32));
        if (!bad)
            op(x, 0, K(CES_OP_END, 0));
        else
            op(x, 1, CO(0, RECV, 1, 0, 32, SEND, 0, 32));
        op(x, 0, W(0, C, 1, 0, 1));
        op(x, 1, WT(0, C, 1, 0, CES_CMP_GEQ, 1));
        op(x, 1, CO(0, RECV, 1, 0, 32, SEND, 0, 32));
        op(x, 1, CO(0, RECV, 1, 32, 64, SEND, 0, 0));
    }
    r = check2(ctx, g, NULL, CES_V_OK);
    ces_check_report_destroy(r);
    /* a read of a copy's destination before the flag: a race */
    r = check2(ctx, early, NULL, CES_V_RACE);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_graph_destroy(early);
    ces_test_ctx_end(ctx, &st);
}

/* A graph block replayed `reps` times; r0 signals 1, r1 waits == 1 and
 * resets its slot to 0 (NCCL's graph-mode flags). */
static struct ces_graph *replayed(struct ces_ctx *ctx, uint32_t reps, bool ack)
{
    struct ces_graph *g = NULL;

    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "send", 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "recv", 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U32, 4, NULL), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "c", CES_U64, 4, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, reps), CES_OK);
    op(g, 0, W(0, F, 1, 0, 1));
    op(g, 1, WT(0, F, 1, 0, CES_CMP_EQ, 1));
    op(g, 1, W(0, F, 1, 0, 0));
    if (ack) {
        op(g, 1, W(0, F, 0, 1, 1));
        op(g, 0, WT(0, F, 0, 1, CES_CMP_EQ, 1));
        op(g, 0, W(0, F, 0, 1, 0));
    }
    return g;
}

static void test_graph_replays(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *bad = replayed(ctx, 3, false), *good = replayed(ctx, 3, true);
    struct ces_check_report *r;
    const struct ces_check_defect *d;

    (void)state;
    r = check2(ctx, bad, NULL, CES_V_HANG);
    d = find(r, CES_V_HANG);
    /* r1 is stuck at the wait of a later replay: index 2 or 4 */
    assert_int_equal(d->blocked[0].pos.rank, 1);
    assert_true(d->blocked[0].pos.index == 2 || d->blocked[0].pos.index == 4);
    assert_int_equal(d->blocked[0].pos.rep, d->blocked[0].pos.index / 2);
    assert_int_equal(d->blocked[0].pos.iteration, 1 + d->blocked[0].pos.index / 2);
    replays(ctx, bad, NULL, d);
    ces_check_report_destroy(r);
    r = check2(ctx, good, NULL, CES_V_OK);
    ces_check_report_destroy(r);
    ces_graph_destroy(bad);
    ces_graph_destroy(good);
    ces_test_ctx_end(ctx, &st);
}

/* A delayed write lands at any moment after its position.  In `replayed`
 * (r0 raises r1's flag, r1 takes it and resets it, acks; r0 takes the ack
 * and resets it; three replays) a late reset that lands after the next
 * replay raised the flag again wipes it: r1 waits for good, and r0 for its
 * ack (DEADLOCK), or r0 has finished (HANG).  The last reset and every
 * raise may come late without harm. */
static void test_delay_fault(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = replayed(ctx, 3, true);
    struct ces_fault f[2];
    struct ces_check_opts o;
    struct ces_check_report *r;
    const struct ces_check_defect *d;
    const struct ces_graph *h;
    char buf[64], *t;

    (void)state;
    assert_int_equal(ces_fault_parse(ctx, "delay:r1.s0#1", &f[0]), CES_OK);
    assert_int_equal(f[0].kind, CES_FAULT_DELAY);
    assert_string_equal(ces_fault_kind_name(CES_FAULT_DELAY), "delay");
    assert_null(ces_fault_kind_name(CES_FAULT_DELAY + 1));
    assert_int_equal(ces_fault_format(&f[0], buf, sizeof(buf)), 13);
    assert_string_equal(buf, "delay:r1.s0#1");
    assert_int_equal(ces_fault_parse(ctx, "delay:r1s0#1", &f[1]), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "fault 'delay:r1s0#1': expected a position rR.sS#K after 'delay:'");
    ces_check_opts_init(&o);
    o.faults = f;
    o.nfaults = 1;
    /* r1's first reset (replay 1); the report's graph has the write on
     * r1.s1 and the replays split in two blocks (1 + 2 replays) */
    r = check2(ctx, g, &o, CES_V_DEADLOCK | CES_V_HANG);
    d = find(r, CES_V_DEADLOCK);
    assert_int_equal(d->nblocked, 2);
    assert_int_equal(d->blocked[0].pos.rank, 0); /* the ack of replay 2 */
    assert_int_equal(d->blocked[0].pos.index, 4);
    assert_int_equal(d->blocked[1].pos.rank, 1); /* the flag of replay 2 */
    assert_int_equal(d->blocked[1].pos.index, 3);
    assert_int_equal(d->blocked[1].pos.stream, 0);
    h = ces_check_report_graph(r);
    assert_ptr_not_equal(h, g);
    assert_int_equal(ces_graph_streams(h), 2);
    assert_int_equal(ces_graph_nblocks(h), 2);
    assert_int_equal(ces_graph_block(h, 1).reps, 2);
    assert_int_equal(ces_graph_block(h, 1).first_iter, 2);
    t = text_of(ctx, r);
    assert_non_null(strstr(t, "fault delay:r1.s0#1: r1.s0#1 records an event in place of the "
                              "write; the write lands from r1.s1, a stream of its own, at any "
                              "moment after that\n"));
    assert_non_null(strstr(t, " r1.s1#1 write f[0] = 0"));
    ces_free(ctx, t);
    replays(ctx, g, &o, d);
    ces_check_report_destroy(r);
    /* with the watchdog nothing stays blocked */
    o.flags = CES_CHECK_ABORT;
    r = check2(ctx, g, &o, CES_V_OK);
    assert_true(ces_check_report_stats(r).aborted > 0);
    ces_check_report_destroy(r);
    o.flags = 0;
    /* r1's last reset (replay 3), and r0's raise in replay 2: OK; the
     * latter splits the replays 1 + 1 + 1 */
    f[0].index = 7;
    r = check2(ctx, g, &o, CES_V_OK);
    assert_int_equal(ces_graph_nblocks(ces_check_report_graph(r)), 2);
    ces_check_report_destroy(r);
    f[0] = (struct ces_fault){CES_FAULT_DELAY, 0, 0, 3};
    r = check2(ctx, g, &o, CES_V_OK);
    h = ces_check_report_graph(r);
    assert_int_equal(ces_graph_nblocks(h), 3);
    assert_int_equal(ces_graph_block(h, 2).first_iter, 3);
    ces_check_report_destroy(r);
    /* a stop before the delayed write: its record is never enqueued, so
     * neither is the write's stream */
    f[1] = (struct ces_fault){CES_FAULT_STOP, 0, 0, 3};
    o.nfaults = 2;
    r = check2(ctx, g, &o, CES_V_HANG);
    d = find(r, CES_V_HANG);
    for (size_t i = 0; i < d->nblocked; i++)
        assert_true(d->blocked[i].pos.stream == 0 || d->blocked[i].reason == CES_BLOCK_STOPPED);
    ces_check_report_destroy(r);
    /* what cannot be delayed */
    f[1] = f[0];
    f[1].kind = CES_FAULT_DROP;
    refused(ctx, g, &o, "faults delay:r0.s0#3 and drop:r0.s0#3: expected a write dropped or "
                        "delayed, not both");
    f[1].kind = CES_FAULT_DELAY;
    refused(ctx, g, &o, "fault delay:r0.s0#3 given twice: expected each fault once");
    o.nfaults = 1;
    f[0].index = 4;
    refused(ctx, g, &o, "fault delay:r0.s0#4: expected a write at that position, found 'wait'");
    f[0].index = 9;
    refused(ctx, g, &o, "fault delay:r0.s0#9: r0.s0 has 9 ops (#0..#8)");
    f[0].stream = 1;
    refused(ctx, g, &o, "fault delay:r0.s1#9: no such stream (ranks 0..1, streams 0..0)");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* No fault to format: -1 and "", as ces_op_format and ces_queue_map_format
 * do (it read through the NULL); nor a fault of a kind ces_fault_parse
 * does not know (it wrote "?:r1.s2#3"). */
static void test_fault_format_null(void **state)
{
    char buf[16] = "x";
    struct ces_fault odd = {9, 1, 2, 3};

    (void)state;
    assert_int_equal(ces_fault_format(NULL, buf, sizeof(buf)), -1);
    assert_string_equal(buf, "");
    assert_int_equal(ces_fault_format(NULL, NULL, 0), -1);
    buf[0] = 'x';
    assert_int_equal(ces_fault_format(&odd, buf, sizeof(buf)), -1);
    assert_string_equal(buf, "");
}

/* A verdict's names in their order; bits no verdict has as a number (they
 * were dropped: CES_CHECK_ABORTED alone was "OK"); snprintf's length. */
static void test_verdict_format(void **state)
{
    char buf[64];

    (void)state;
    assert_int_equal(ces_verdict_format(CES_V_OK, buf, sizeof(buf)), 2);
    assert_string_equal(buf, "OK");
    assert_int_equal(ces_verdict_format(CES_V_RACE | CES_V_DEADLOCK, buf, sizeof(buf)), 13);
    assert_string_equal(buf, "DEADLOCK,RACE");
    assert_int_equal(ces_verdict_format(UINT32_MAX, buf, sizeof(buf)), 49);
    assert_string_equal(buf, "DEADLOCK,HANG,RACE,MISMATCH,INCOMPLETE,0xffffffe0");
    assert_int_equal(ces_verdict_format(CES_CHECK_ABORTED, buf, sizeof(buf)), 7);
    assert_string_equal(buf, "0x10000");
    assert_int_equal(ces_verdict_format(CES_V_HANG | CES_V_INCOMPLETE, buf, 5), 15);
    assert_string_equal(buf, "HANG");
}

/* A fault's text is the whole position: nothing may follow K (the message
 * names what does), a number beyond 32 bits says which is out of range and
 * its most, and the stream number that stands for a whole rank is no
 * stream's.  Leading zeros are read as the .ces format reads them (r01 is
 * r1), and formatted without. */
static void test_fault_parse_strict(void **state)
{
    static const struct {
        const char *spec, *message;
    } refused[] = {
        {"stop:r0.s0#1x", "fault 'stop:r0.s0#1x': unexpected 'x' after 'stop:r0.s0#1'"},
        {"drop:r0.s0#1 ", "fault 'drop:r0.s0#1 ': unexpected ' ' after 'drop:r0.s0#1'"},
        {"delay:r0.s0#1#2", "fault 'delay:r0.s0#1#2': unexpected '#' after 'delay:r0.s0#1'"},
        {"stop:r3#7.s0", "fault 'stop:r3#7.s0': unexpected '.' after 'stop:r3#7'"},
        {"drop:r0.s0#1\n", "fault 'drop:r0.s0#1\n': unexpected byte 0x0a after 'drop:r0.s0#1'"},
        {"drop:r4294967296.s0#0",
         "fault 'drop:r4294967296.s0#0': rank r4294967296 is out of range: at most r4294967295"},
        {"stop:r99999999999999999999#0",
         "fault 'stop:r99999999999999999999#0': rank r99999999999999999999 is out of range: at "
         "most r4294967295"},
        {"drop:r0.s4294967295#0",
         "fault 'drop:r0.s4294967295#0': stream s4294967295 is out of range: at most s4294967294"},
        {"stop:r0.s0#99999999999999999999",
         "fault 'stop:r0.s0#99999999999999999999': op index #99999999999999999999 is out of "
         "range: at most #4294967295"},
        {"delay:r0.s0#0004294967296",
         "fault 'delay:r0.s0#0004294967296': op index #0004294967296 is out of range: at most "
         "#4294967295"},
        /* the number as written, cut as every message cuts one */
        {"drop:r0.s0#99999999999999999999999999999999999999999999999999999999999x",
         "fault 'drop:r0.s0#9999999999999999999999999999999999999...': op index "
         "#999999999999999999999999999999999999999999999999... is out of range: at most "
         "#4294967295"},
        {"drop:r0.s0#000000000000000000000000000000000000000000000000000000000001x",
         "fault 'drop:r0.s0#0000000000000000000000000000000000000...': unexpected 'x' after "
         "'drop:r0.s0#0000000000000000000000000000000000000...'"},
        {"drop:r0.s0#", "fault 'drop:r0.s0#': expected a position rR.sS#K after 'drop:'"},
        {"drop:r0.s#1", "fault 'drop:r0.s#1': expected a position rR.sS#K after 'drop:'"},
        {"drop:r+1.s0#1", "fault 'drop:r+1.s0#1': expected a position rR.sS#K after 'drop:'"},
        {"drop:r 1.s0#1", "fault 'drop:r 1.s0#1': expected a position rR.sS#K after 'drop:'"},
    };
    static const struct {
        const char *spec, *formatted;
    } accepted[] = {
        {"drop:r01.s0#1", "drop:r1.s0#1"},
        {"delay:r0.s007#000", "delay:r0.s7#0"},
        {"stop:r00#0012", "stop:r0#12"},
        {"drop:r4294967295.s4294967294#4294967295", "drop:r4294967295.s4294967294#4294967295"},
        {"stop:r0000000000000000000000004294967295#0", "stop:r4294967295#0"},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_fault f;
    char buf[64];

    (void)state;
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        memset(&f, 0x5a, sizeof(f));
        assert_int_equal(ces_fault_parse(ctx, refused[i].spec, &f), CES_ERR_INVALID);
        assert_string_equal(ces_ctx_last_error(ctx), refused[i].message);
        assert_int_equal(f.kind, 0x5a5a5a5a); /* untouched */
    }
    for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++) {
        assert_int_equal(ces_fault_parse(ctx, accepted[i].spec, &f), CES_OK);
        assert_int_equal(ces_fault_format(&f, buf, sizeof(buf)),
                         (int)strlen(accepted[i].formatted));
        assert_string_equal(buf, accepted[i].formatted);
    }
    assert_int_equal(ces_fault_parse(ctx, "drop:r0.s4294967294#0", &f), CES_OK);
    assert_int_equal(f.stream, 4294967294u);
    ces_test_ctx_end(ctx, &st);
}

/* stop:rR#K, a rank's process that dies before its K-th op in enqueue
 * order: r0 enqueues f[0] on s0, f[1] on s1, f[2] on s0; dying before its
 * second op stops s0 before #1 and s1 before #0, so r1 hangs at its wait
 * for f[1], where a stop of s0 alone lets it reach the wait for f[2]. */
static void test_rank_stop(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, 2);
    struct ces_fault f;
    struct ces_check_opts o;
    struct ces_check_report *r;
    const struct ces_check_defect *d;
    char buf[32], *t;

    (void)state;
    for (uint32_t i = 0; i < 3; i++) {
        op(g, 0, W(i == 1, F, 1, i, 1));
        op(g, 1, WT(0, F, 1, i, CES_CMP_GEQ, 1));
    }
    assert_int_equal(ces_fault_parse(ctx, "stop:r0#1", &f), CES_OK);
    assert_int_equal(f.stream, CES_FAULT_RANK);
    assert_int_equal(ces_fault_format(&f, buf, sizeof(buf)), 9);
    assert_string_equal(buf, "stop:r0#1");
    ces_check_opts_init(&o);
    o.faults = &f;
    o.nfaults = 1;
    r = check2(ctx, g, &o, CES_V_HANG);
    d = find(r, CES_V_HANG);
    assert_int_equal(d->nblocked, 3);
    assert_int_equal(d->blocked[0].reason, CES_BLOCK_STOPPED);
    assert_int_equal(d->blocked[0].pos.stream, 0);
    assert_int_equal(d->blocked[0].pos.index, 1);
    assert_int_equal(d->blocked[1].reason, CES_BLOCK_STOPPED);
    assert_int_equal(d->blocked[1].pos.stream, 1);
    assert_int_equal(d->blocked[1].pos.index, 0);
    assert_int_equal(d->blocked[2].pos.rank, 1);
    assert_int_equal(d->blocked[2].pos.index, 1);
    t = text_of(ctx, r);
    assert_non_null(strstr(t, "\nfault stop:r0#1: r0 dies before its op #1 in enqueue order: "
                              "r0.s0 stops before #1, r0.s1 stops before #0\n"));
    ces_free(ctx, t);
    assert_int_equal(ces_check_report_json(ctx, r, &t, NULL), CES_OK);
    assert_non_null(strstr(t, ",\"rank_stops\":[{\"fault\":\"stop:r0#1\",\"stops\":"
                              "[\"stop:r0.s0#1\",\"stop:r0.s1#0\"]}],"));
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    f = (struct ces_fault){CES_FAULT_STOP, 0, 0, 1};
    r = check2(ctx, g, &o, CES_V_HANG);
    d = find(r, CES_V_HANG);
    assert_int_equal(d->nblocked, 2);
    assert_int_equal(d->blocked[1].pos.index, 2);
    ces_check_report_destroy(r);
    /* after its last op the rank has nothing left to lose: no #3 */
    f = (struct ces_fault){CES_FAULT_STOP, 0, CES_FAULT_RANK, 3};
    refused(ctx, g, &o, "fault stop:r0#3: r0 has 3 ops (#0..#2)");
    f.rank = 2;
    refused(ctx, g, &o, "fault stop:r2#3: no such rank (ranks 0..1)");
    f = (struct ces_fault){CES_FAULT_DROP, 0, CES_FAULT_RANK, 0};
    refused(ctx, g, &o, "fault kind 0: only a stop names a whole rank");
    /* before #2 s1 has no op left: it goes on, and only s0 stops */
    f = (struct ces_fault){CES_FAULT_STOP, 0, CES_FAULT_RANK, 2};
    r = check2(ctx, g, &o, CES_V_HANG);
    d = find(r, CES_V_HANG);
    assert_int_equal(d->nblocked, 2);
    t = text_of(ctx, r);
    assert_non_null(strstr(t, "\nfault stop:r0#2: r0 dies before its op #2 in enqueue order: "
                              "r0.s0 stops before #1\n"));
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    assert_int_equal(ces_fault_parse(ctx, "drop:r0#1", &f), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "fault 'drop:r0#1': expected a position rR.sS#K after 'drop:'");
    assert_int_equal(ces_fault_parse(ctx, "stop:r0#", &f), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "fault 'stop:r0#': expected a position rR.sS#K or rR#K after 'stop:'");
    /* the sweep stops r0 as a whole where that stops both its streams (#0,
     * #1; at #2 s1 is done: the stop of s0 alone, already swept), after the
     * rows of its streams */
    {
        struct ces_check_sweep_row *rows = NULL;
        struct ces_check_sweep_rest rest;
        size_t n = 0, whole = 0;

        assert_int_equal(ces_check_fault_sweep(ctx, g, NULL, &rows, &n, &rest), CES_OK);
        for (size_t i = 0; i < n; i++) {
            if (rows[i].fault.stream != CES_FAULT_RANK)
                continue;
            assert_int_equal(rows[i].fault.rank, 0);
            assert_int_equal(rows[i].fault.index, whole);
            assert_int_equal(rows[i].verdict, CES_V_HANG);
            assert_int_equal(rows[i].verdict_abort, CES_V_OK);
            assert_int_equal(rows[i - whole - 1].fault.stream, 1); /* r0.s1's rows first */
            whole++;
        }
        /* the options' faults and abort flag are ignored: the same rows */
        {
            struct ces_check_sweep_row *again = NULL;
            struct ces_check_opts o2;
            size_t n2 = 0;

            ces_check_opts_init(&o2);
            o2.flags = CES_CHECK_ABORT;
            o2.faults = &f;
            o2.nfaults = 1;
            assert_int_equal(ces_check_fault_sweep(ctx, g, &o2, &again, &n2, &rest), CES_OK);
            assert_int_equal(n2, n);
            for (size_t i = 0; i < n; i++) {
                assert_int_equal(again[i].verdict, rows[i].verdict);
                assert_int_equal(again[i].verdict_abort, rows[i].verdict_abort);
                assert_int_equal(again[i].aborted, rows[i].aborted);
            }
            ces_free(ctx, again);
        }
        assert_int_equal(whole, 2);
        assert_int_equal(ces_check_sweep_text(ctx, rows, n, NULL, &t, NULL), CES_OK);
        assert_non_null(strstr(t, "\nr0#1           stop  HANG                   OK (watchdog"));
        ces_free(ctx, t);
        ces_free(ctx, rows);
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Faults together: refused where one repeats another, contradicts it or
 * changes nothing beside it, whatever kinds the others are (the same drop
 * twice was checked, the same delay twice refused, as only the delays'
 * graph compared them); kept where each does something.  r0 enqueues f[0]
 * on s0 (its #0), f[1] on s1 (#0), f[2] on s0 (#1); r1 waits for each. */
static void test_faults_together(void **state)
{
    static const struct {
        const char *a, *b, *msg; /* msg NULL: checked, HANG */
    } cases[] = {
        {"drop:r0.s0#1", "drop:r0.s0#1", "fault drop:r0.s0#1 given twice: expected each fault "
                                         "once"},
        {"delay:r0.s0#1", "delay:r0.s0#1", "fault delay:r0.s0#1 given twice: expected each fault "
                                           "once"},
        {"stop:r0.s0#1", "stop:r0.s0#1", "fault stop:r0.s0#1 given twice: expected each fault "
                                         "once"},
        {"stop:r0#1", "stop:r0#1", "fault stop:r0#1 given twice: expected each fault once"},
        /* in either order, the faults named as given */
        {"drop:r0.s0#1", "delay:r0.s0#1", "faults drop:r0.s0#1 and delay:r0.s0#1: expected a "
                                          "write dropped or delayed, not both"},
        {"delay:r0.s0#1", "drop:r0.s0#1", "faults delay:r0.s0#1 and drop:r0.s0#1: expected a "
                                          "write dropped or delayed, not both"},
        /* a stream, or a rank, stops once */
        {"stop:r0.s0#1", "stop:r0.s0#0", "faults stop:r0.s0#1 and stop:r0.s0#0: expected one "
                                         "stop of r0.s0 (a stream stops once; stop:r0.s0#0 "
                                         "alone is the same check)"},
        {"stop:r0#0", "stop:r0#2", "faults stop:r0#0 and stop:r0#2: expected one stop of r0 (a "
                                   "rank stops once; stop:r0#0 alone is the same check)"},
        /* stop:r0#1 stops s0 before its #1 and s1 before its #0: a stream's
         * own stop there or later changes nothing */
        {"stop:r0#1", "stop:r0.s0#1", "faults stop:r0#1 and stop:r0.s0#1: stop:r0#1 already "
                                      "stops r0.s0 before its op #1, so stop:r0.s0#1 changes "
                                      "nothing (expected a stream's own stop before where its "
                                      "rank's stop leaves it)"},
        {"stop:r0.s1#0", "stop:r0#1", "faults stop:r0.s1#0 and stop:r0#1: stop:r0#1 already "
                                      "stops r0.s1 before its op #0, so stop:r0.s1#0 changes "
                                      "nothing (expected a stream's own stop before where its "
                                      "rank's stop leaves it)"},
        /* stop:r0#2 stops s0 alone (before its #1: s1 has no op left), which
         * its own stop stops first */
        {"stop:r0.s0#0", "stop:r0#2", "fault stop:r0#2: every stream it stops has an earlier "
                                      "stop of its own (stop:r0.s0#0), so it changes nothing "
                                      "(expected a rank's stop that stops one of its streams "
                                      "first)"},
        /* kept: s0 dies first, then the rest of the rank (s1 before #0) */
        {"stop:r0.s0#0", "stop:r0#1", NULL},
        /* kept: different writes, streams, ranks */
        {"drop:r0.s0#0", "delay:r0.s0#1", NULL},
        {"stop:r0.s0#0", "stop:r0.s1#0", NULL},
        {"stop:r0.s0#0", "stop:r1.s0#0", NULL},
        {"stop:r0#0", "stop:r1#1", NULL},
        /* a write a stop leaves unenqueued, dropped: kept (section 9) */
        {"stop:r0.s0#0", "drop:r0.s0#1", NULL},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, 2);
    struct ces_fault f[2];
    struct ces_check_opts o;

    (void)state;
    for (uint32_t i = 0; i < 3; i++) {
        op(g, 0, W(i == 1, F, 1, i, 1));
        op(g, 1, WT(0, F, 1, i, CES_CMP_GEQ, 1));
    }
    ces_check_opts_init(&o);
    o.faults = f;
    o.nfaults = 2;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(ces_fault_parse(ctx, cases[i].a, &f[0]), CES_OK);
        assert_int_equal(ces_fault_parse(ctx, cases[i].b, &f[1]), CES_OK);
        if (cases[i].msg != NULL) {
            refused(ctx, g, &o, cases[i].msg);
            /* with the watchdog model: alike */
            o.flags = CES_CHECK_ABORT;
            refused(ctx, g, &o, cases[i].msg);
            o.flags = 0;
        } else {
            ces_check_report_destroy(check2(ctx, g, &o, CES_V_HANG));
        }
    }
    /* a third fault of another kind does not change the refusal */
    {
        struct ces_fault three[3] = {{CES_FAULT_STOP, 1, 0, 2}, {CES_FAULT_DROP, 0, 0, 1},
                                     {CES_FAULT_DROP, 0, 0, 1}};

        o.faults = three;
        o.nfaults = 3;
        refused(ctx, g, &o, "fault drop:r0.s0#1 given twice: expected each fault once");
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A schedule without ops has no fault to sweep: no rows, and its text is a
 * line that says so, not the header of an empty table. */
static void test_fault_sweep_no_ops(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 1);
    struct ces_check_sweep_row *rows = NULL;
    struct ces_check_sweep_rest rest;
    size_t n = 1;
    char *t = NULL;

    (void)state;
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_check_fault_sweep(ctx, g, NULL, &rows, &n, &rest), CES_OK);
    assert_int_equal(n, 0);
    assert_null(rows);
    assert_int_equal(rest.n, 0);
    assert_int_equal(ces_check_sweep_text(ctx, rows, n, &rest, &t, NULL), CES_OK);
    assert_string_equal(t, "no op to fault: the schedule has none (a stop comes before an op, a "
                           "drop or delay hits a write)\n");
    ces_free(ctx, t);
    /* its options' times are checked though no check runs (a NaN passed) */
    {
        struct ces_check_opts o;

        ces_check_opts_init(&o);
        o.progress_seconds = NAN;
        assert_int_equal(ces_check_fault_sweep(ctx, g, &o, &rows, &n, &rest), CES_ERR_INVALID);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "check options: progress_seconds must be a finite number >= 0");
        o.progress_seconds = 0;
        o.max_seconds = -1;
        assert_int_equal(ces_check_fault_sweep(ctx, g, &o, &rows, &n, &rest), CES_ERR_INVALID);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "check options: max_seconds must be a finite number >= 0");
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A rank's stop past a block: r0 enqueues f[0] on s1 in the first block,
 * then f[1] on s0 and f[2] on s1 in the second; dying before its op #2
 * (f[2]) finishes s0 and stops s1 before #1, its second op.  The block
 * before counted once, not once for each op of the rank it lies before
 * (then s1's stop fell past its end and no stream stopped). */
static void test_rank_stop_blocks(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, 2);
    struct ces_fault f = {CES_FAULT_STOP, 0, CES_FAULT_RANK, 2};
    struct ces_check_opts o;
    struct ces_check_report *r;
    const struct ces_check_defect *d;
    char *t;

    (void)state;
    op(g, 0, W(1, F, 1, 0, 1));
    op(g, 1, WT(0, F, 1, 0, CES_CMP_GEQ, 1));
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    op(g, 0, W(0, F, 1, 1, 1));
    op(g, 0, W(1, F, 1, 2, 1));
    op(g, 1, WT(0, F, 1, 1, CES_CMP_GEQ, 1));
    op(g, 1, WT(0, F, 1, 2, CES_CMP_GEQ, 1));
    ces_check_opts_init(&o);
    o.faults = &f;
    o.nfaults = 1;
    r = check2(ctx, g, &o, CES_V_HANG);
    d = find(r, CES_V_HANG);
    assert_int_equal(d->nblocked, 2);
    assert_int_equal(d->blocked[0].reason, CES_BLOCK_STOPPED);
    assert_int_equal(d->blocked[0].pos.stream, 1);
    assert_int_equal(d->blocked[0].pos.index, 1);
    t = text_of(ctx, r);
    assert_non_null(strstr(t, "\nfault stop:r0#2: r0 dies before its op #2 in enqueue order: "
                              "r0.s1 stops before #1\n"));
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The same in graph replays: with one stream, stop:r1#K is stop:r1.s0#K. */
static void test_rank_stop_replays(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = replayed(ctx, 3, true);
    struct ces_check_opts o;

    (void)state;
    ces_check_opts_init(&o);
    for (uint32_t k = 0; k < 9; k++) {
        struct ces_fault whole = {CES_FAULT_STOP, 1, CES_FAULT_RANK, k};
        struct ces_fault one = {CES_FAULT_STOP, 1, 0, k};
        struct ces_check_report *a = NULL, *b = NULL;
        const struct ces_check_defect *da, *db;

        o.faults = &whole;
        o.nfaults = 1;
        assert_int_equal(ces_check(ctx, g, &o, &a), CES_OK);
        o.faults = &one;
        assert_int_equal(ces_check(ctx, g, &o, &b), CES_OK);
        /* the peer waits for good: r0 for an ack, or r1's own stream */
        assert_int_equal(ces_check_report_verdict(a), CES_V_HANG);
        assert_int_equal(ces_check_report_verdict(a), ces_check_report_verdict(b));
        da = ces_check_report_defect(a, 0);
        db = ces_check_report_defect(b, 0);
        assert_string_equal(da->replay, db->replay);
        assert_int_equal(da->nblocked, db->nblocked);
        ces_check_report_destroy(a);
        ces_check_report_destroy(b);
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A delayed write leaves its stream's hardware queue: with one queue for
 * two streams (connections 1), r0's first raise may still land after its
 * second, and r1's wait for 2 then waits for good.  In the queue, the write
 * would land before r0's next op and the schedule would pass. */
static void test_delay_own_queue(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_fault f = {CES_FAULT_DELAY, 0, 0, 0};
    struct ces_check_opts o;
    struct ces_check_report *r;

    (void)state;
    for (uint32_t c = 0; c <= 1; c++) {
        struct ces_graph *g = mk(ctx, 2, 2);

        assert_int_equal(ces_graph_set_connections(g, c), CES_OK);
        op(g, 0, W(0, F, 1, 0, 1));
        op(g, 0, W(0, F, 1, 0, 2));
        op(g, 1, WT(0, F, 1, 0, CES_CMP_GEQ, 1));
        op(g, 1, WT(0, F, 1, 0, CES_CMP_GEQ, 2));
        r = check2(ctx, g, NULL, CES_V_OK);
        ces_check_report_destroy(r);
        ces_check_opts_init(&o);
        o.faults = &f;
        o.nfaults = 1;
        r = check2(ctx, g, &o, CES_V_HANG);
        assert_int_equal(ces_graph_streams(ces_check_report_graph(r)), 3);
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* A stop at the delayed write's own position stops before its record, so
 * the write never lands either: r1's wait for it stays blocked beside the
 * stopped streams (r0.s0 and the write's, r0.s1). */
static void test_delay_stopped_at(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, 1);
    struct ces_fault f[2] = {{CES_FAULT_DELAY, 0, 0, 0}, {CES_FAULT_STOP, 0, 0, 0}};
    struct ces_check_opts o;
    struct ces_check_report *r;
    const struct ces_check_defect *d;

    (void)state;
    op(g, 0, W(0, F, 1, 0, 1));
    op(g, 1, WT(0, F, 1, 0, CES_CMP_GEQ, 1));
    ces_check_opts_init(&o);
    o.faults = f;
    o.nfaults = 2;
    r = check2(ctx, g, &o, CES_V_HANG);
    d = find(r, CES_V_HANG);
    assert_int_equal(d->nblocked, 3);
    assert_int_equal(d->blocked[0].reason, CES_BLOCK_STOPPED);
    assert_int_equal(d->blocked[0].pos.stream, 0);
    assert_int_equal(d->blocked[1].reason, CES_BLOCK_STOPPED);
    assert_int_equal(d->blocked[1].pos.stream, 1);
    assert_int_equal(d->blocked[1].pos.index, 0);
    assert_int_equal(d->blocked[2].reason, CES_BLOCK_WAIT);
    assert_int_equal(d->blocked[2].pos.rank, 1);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Each delayed write's event is named after its added stream: the N-th
 * delay given lands from stream S + N and records delayN, whatever the
 * delays' positions (the names followed position order: the second delay
 * given, which comes first, recorded delay0 and landed from stream 2). */
static void test_delay_names(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = replayed(ctx, 3, true);
    struct ces_fault f[2] = {{CES_FAULT_DELAY, 1, 0, 1}, {CES_FAULT_DELAY, 0, 0, 0}};
    struct ces_check_opts o;
    struct ces_check_report *r;
    const struct ces_graph *h;
    uint32_t awaits = 0;

    (void)state;
    ces_check_opts_init(&o);
    o.faults = f;
    o.nfaults = 2;
    r = check2(ctx, g, &o, CES_V_DEADLOCK | CES_V_HANG);
    h = ces_check_report_graph(r);
    for (uint32_t b = 0; b < ces_graph_nblocks(h); b++) {
        for (uint32_t k = 0; k < ces_graph_ranks(h); k++) {
            uint32_t n;
            const struct ces_op *ops = ces_graph_ops(h, b, k, &n);

            for (uint32_t i = 0; i < n; i++) {
                char name[16];

                if (ops[i].kind != CES_OP_AWAIT)
                    continue;
                snprintf(name, sizeof(name), "delay%u", (unsigned)ops[i].stream - 1);
                assert_string_equal(ces_graph_event(h, ops[i].event), name);
                awaits++;
            }
        }
    }
    assert_int_equal(awaits, 2);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A delayed write's event takes underscores until its name is new, the
 * schedule's first event's name too; and delays in two blocks, the later
 * block's in an earlier replay, split each block at its own replay. */
static void test_delay_name_taken(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_fault f[2] = {{CES_FAULT_DELAY, 0, 0, 1}, {CES_FAULT_DELAY, 0, 0, 2}};
    struct ces_check_opts o;
    struct ces_check_report *r;
    const struct ces_graph *h;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U32, 4, NULL), CES_OK);
    assert_int_equal(ces_graph_add_event(g, "delay0", NULL), CES_OK);
    /* block 0: two replays of r0's raise f[0], r1's wait; block 1: one of
     * r0's raise f[1], r1's wait */
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 2), CES_OK);
    op(g, 0, W(0, F, 1, 0, 1));
    op(g, 1, WT(0, F, 1, 0, CES_CMP_GEQ, 1));
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    op(g, 0, W(0, F, 1, 1, 1));
    op(g, 1, WT(0, F, 1, 1, CES_CMP_GEQ, 1));
    ces_check_opts_init(&o);
    /* block 1's raise (r0.s0#2) given first, then block 0's second (#1) */
    f[0].index = 2;
    f[1].index = 1;
    o.faults = f;
    o.nfaults = 2;
    r = check2(ctx, g, &o, CES_V_OK);
    h = ces_check_report_graph(r);
    assert_int_equal(ces_graph_nevents(h), 3);
    assert_string_equal(ces_graph_event(h, 0), "delay0");
    assert_true(ces_graph_find_event(h, "delay0_") >= 0);
    assert_true(ces_graph_find_event(h, "delay1") >= 0);
    /* block 0 as replay 1, replay 2 (its delay), then block 1 */
    assert_int_equal(ces_graph_nblocks(h), 3);
    assert_int_equal(ces_graph_block(h, 0).reps, 1);
    assert_int_equal(ces_graph_block(h, 1).reps, 1);
    assert_int_equal(ces_graph_block(h, 1).first_iter, 2);
    assert_int_equal(ces_graph_block(h, 2).first_iter, 3);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A schedule of CES_MAX_STREAMS streams leaves no stream for a delayed
 * write: the fault sweep tries no delay there, and its drops and stops
 * (the whole sweep failed on the first delay, CES_ERR_LIMIT). */
static void test_delay_sweep_no_stream(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, CES_MAX_STREAMS);
    struct ces_check_sweep_row *rows = NULL;
    struct ces_check_sweep_rest rest;
    size_t n = 0;

    (void)state;
    op(g, 0, W(0, F, 1, 0, 1));
    op(g, 1, WT(0, F, 1, 0, CES_CMP_EQ, 1));
    assert_int_equal(ces_check_fault_sweep(ctx, g, NULL, &rows, &n, &rest), CES_OK);
    assert_int_equal(n, 3); /* the write's drop and stop, the wait's stop */
    assert_int_equal(rows[0].fault.kind, CES_FAULT_DROP);
    assert_int_equal(rows[1].fault.kind, CES_FAULT_STOP);
    assert_int_equal(rows[2].fault.kind, CES_FAULT_STOP);
    ces_free(ctx, rows);
    /* a delay given there is refused, in the singular */
    {
        struct ces_fault f = {CES_FAULT_DELAY, 0, 0, 0};
        struct ces_check_opts o;
        struct ces_check_report *r = NULL;

        ces_check_opts_init(&o);
        o.faults = &f;
        o.nfaults = 1;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_ERR_LIMIT);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "1 delay fault needs 65 streams a rank; a graph has at most 64");
    }
    ces_graph_destroy(g);
    /* one stream fewer leaves the 64th for it: the sweep delays the write,
     * and a check of the delay runs on 64 streams */
    g = mk(ctx, 2, CES_MAX_STREAMS - 1);
    op(g, 0, W(0, F, 1, 0, 1));
    op(g, 1, WT(0, F, 1, 0, CES_CMP_EQ, 1));
    assert_int_equal(ces_check_fault_sweep(ctx, g, NULL, &rows, &n, &rest), CES_OK);
    assert_int_equal(n, 4);
    assert_int_equal(rows[1].fault.kind, CES_FAULT_DELAY);
    assert_int_equal(rows[1].verdict, CES_V_OK);
    ces_free(ctx, rows);
    {
        struct ces_fault f = {CES_FAULT_DELAY, 0, 0, 0};
        struct ces_check_opts o;
        struct ces_check_report *r;

        ces_check_opts_init(&o);
        o.faults = &f;
        o.nfaults = 1;
        r = check2(ctx, g, &o, CES_V_OK);
        assert_int_equal(ces_graph_streams(ces_check_report_graph(r)), CES_MAX_STREAMS);
        ces_check_report_destroy(r);
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_events(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 2), *bad = mk(ctx, 1, 2);
    struct ces_check_report *r;

    (void)state;
    op(g, 0, PR(0, SEND, 0, 0, 64));
    op(g, 0, EVOP(CES_OP_RECORD, 0));
    op(g, 0, EVOP(CES_OP_AWAIT, 1));
    op(g, 0, CP(1, SEND, 0, 0, RECV, 0, 0, 64));
    r = check2(ctx, g, NULL, CES_V_OK);
    ces_check_report_destroy(r);
    /* without the event edge the copy on s1 races the produce on s0 */
    op(bad, 0, PR(0, SEND, 0, 0, 64));
    op(bad, 0, EVOP(CES_OP_RECORD, 0));
    op(bad, 0, CP(1, SEND, 0, 0, RECV, 0, 0, 64));
    r = check2(ctx, bad, NULL, CES_V_RACE);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_graph_destroy(bad);
    ces_test_ctx_end(ctx, &st);
}

static void test_faults_and_abort(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, false);
    struct ces_fault f[2];
    struct ces_check_opts o;
    struct ces_check_report *r;
    const struct ces_check_defect *d;
    struct ces_dot_overlay ov;
    char *t;

    (void)state;
    assert_int_equal(ces_fault_parse(ctx, "drop:r0.s0#1", &f[0]), CES_OK);
    assert_int_equal(f[0].kind, CES_FAULT_DROP);
    assert_int_equal(f[0].index, 1);
    assert_int_equal(ces_fault_parse(ctx, "stop:r1.s0#4", &f[1]), CES_OK);
    assert_int_equal(ces_fault_parse(ctx, "drop:r0s0#1", &f[0]), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "fault 'drop:r0s0#1': expected a position rR.sS#K after 'drop:'");
    assert_int_equal(ces_fault_parse(ctx, "kill:r0.s0#1", &f[0]), CES_ERR_INVALID);
    assert_int_equal(ces_fault_parse(ctx, "drop:r0.s0#1", &f[0]), CES_OK);
    ces_check_opts_init(&o);
    o.faults = f;
    o.nfaults = 1;
    r = check2(ctx, g, &o, CES_V_HANG);
    d = find(r, CES_V_HANG);
    assert_int_equal(d->steps[1].kind, CES_STEP_DROPPED);
    t = text_of(ctx, r);
    assert_non_null(strstr(t, "\n    2 r0.s0#1 write f[0]@1 = 1  (dropped by a fault)\n"));
    ces_free(ctx, t);
    assert_int_equal(ces_check_report_json(ctx, r, &t, NULL), CES_OK);
    assert_non_null(strstr(t, ",{\"n\":2,\"pos\":\"r0.s0#1\",\"op\":\"write f[0]@1 = 1\","
                              "\"iteration\":1,\"kind\":\"dropped\",\"value\":1},"));
    ces_free(ctx, t);
    /* the picture's title says the step's write was dropped (it was drawn
     * as any step, as if it had landed) */
    assert_int_equal(ces_check_report_overlay(r, 0, &ov), CES_OK);
    assert_string_equal(ov.title, "HANG counterexample\nstep 2: r0.s0#1 write f[0]@1 = 1, "
                                  "dropped by a fault");
    replays(ctx, g, &o, d);
    ces_check_report_destroy(r);
    /* a stopped stream: its peer hangs, the stream itself is reported */
    o.faults = &f[1];
    r = check2(ctx, g, &o, CES_V_HANG);
    d = find(r, CES_V_HANG);
    assert_int_equal(d->nblocked, 2);
    /* r0 waits at #5 for r1's write #4, which lies behind the stop: nothing
     * can release it, so it has no wait-for edge */
    assert_int_equal(d->blocked[0].reason, CES_BLOCK_WAIT);
    assert_int_equal(d->blocked[0].pos.rank, 0);
    assert_int_equal(d->blocked[0].pos.index, 5);
    assert_int_equal(d->blocked[0].nedges, 0);
    assert_int_equal(d->blocked[1].reason, CES_BLOCK_STOPPED);
    assert_int_equal(d->blocked[1].pos.rank, 1);
    assert_int_equal(d->blocked[1].pos.index, 4);
    assert_int_equal(d->ncycle, 0);
    ces_check_report_destroy(r);
    /* with the watchdog: nothing stays blocked */
    o.faults = f;
    o.flags = CES_CHECK_ABORT;
    r = check2(ctx, g, &o, CES_V_OK);
    assert_true(ces_check_report_stats(r).aborted > 0);
    d = find(r, CES_CHECK_ABORTED);
    /* both blocked waits are released: r0 at the second handshake, r1 at
     * the first (whose flag was dropped) */
    assert_int_equal(d->naborted, 2);
    assert_int_equal(d->aborted[0].rank, 0);
    assert_int_equal(d->aborted[0].index, 5);
    assert_int_equal(d->aborted[1].rank, 1);
    assert_int_equal(d->aborted[1].index, 2);
    t = text_of(ctx, r);
    assert_memory_equal(t, "verdict: OK\nwatchdog: fired in ", 31);
    ces_free(ctx, t);
    replays(ctx, g, &o, d);
    /* after the watchdog fires nothing is judged: the released streams run
     * on unordered (r1 copies into r0's recv, r0 consumes it), yet the
     * replayed execution is OK */
    {
        struct ces_check_opts ro = o;
        struct ces_check_report *rr = NULL;

        ro.replay = d->replay;
        assert_int_equal(ces_check(ctx, g, &ro, &rr), CES_OK);
        assert_int_equal(ces_check_report_verdict(rr), CES_V_OK);
        assert_int_equal(ces_check_report_stats(rr).aborted, 1);
        ces_check_report_destroy(rr);
    }
    ces_check_report_destroy(r);
    /* bad fault positions */
    f[0].index = 0;
    o.faults = f;
    refused(ctx, g, &o, "fault drop:r0.s0#0: expected a write at that position, found 'produce'");
    f[0].index = 99;
    refused(ctx, g, &o, "fault drop:r0.s0#99: r0.s0 has 7 ops (#0..#6)");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* An await whose record lies at or after a stop of the recording stream:
 * that record was never enqueued, so the await waits for the event's
 * latest record enqueued before it, or passes at once when there is none
 * (an event never recorded holds no work), as cuStreamWaitEvent does.  It
 * blocked for good, and what the awaiting stream does after it went
 * unchecked: here a produce that races with the stopped stream's. */
static void test_stop_await(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_fault f;
    struct ces_check_opts o;
    struct ces_check_report *r;
    const struct ces_check_defect *d;

    (void)state;
    ces_check_opts_init(&o);
    o.faults = &f;
    o.nfaults = 1;
    for (int earlier = 0; earlier < 2; earlier++) {
        /* r0 s0: [record e,] produce send, record e; r0 s1: await e, produce
         * send.  Without a fault s1 produces after s0. */
        struct ces_graph *g = mk(ctx, 1, 2);
        uint32_t stop = earlier ? 2 : 1;
        char spec[32];

        if (earlier)
            op(g, 0, EVOP(CES_OP_RECORD, 0));
        op(g, 0, PR(0, SEND, 0, 0, 64));
        op(g, 0, EVOP(CES_OP_RECORD, 0));
        op(g, 0, EVOP(CES_OP_AWAIT, 1));
        op(g, 0, PR(1, SEND, 0, 0, 64));
        ces_check_report_destroy(check2(ctx, g, NULL, CES_V_OK));
        /* s0 stops before its last record: s1's await passes at once (no
         * record before), or on s0's first record; either way its produce
         * is unordered with s0's */
        snprintf(spec, sizeof(spec), "stop:r0.s0#%u", stop);
        assert_int_equal(ces_fault_parse(ctx, spec, &f), CES_OK);
        o.flags = 0;
        r = check2(ctx, g, &o, CES_V_HANG | CES_V_RACE);
        d = find(r, CES_V_RACE);
        assert_int_equal(d->race[0].pos.stream, 0);
        assert_int_equal(d->race[0].pos.index, stop - 1);
        assert_int_equal(d->race[1].pos.stream, 1);
        assert_int_equal(d->race[1].pos.index, 1);
        replays(ctx, g, &o, d);
        d = find(r, CES_V_HANG);
        /* only the stopped stream is left: s1 finished */
        assert_int_equal(d->nblocked, 1);
        assert_int_equal(d->blocked[0].reason, CES_BLOCK_STOPPED);
        assert_int_equal(d->blocked[0].pos.stream, 0);
        assert_int_equal(d->blocked[0].pos.index, stop);
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* The watchdog model when a stop leaves streams unfinished: it fires
 * whether or not an op is blocked (the collective never completes), the
 * verdict is the watchdog's, not a HANG, and the report names the ops it
 * released, or says it released none, and the streams it left stopped.
 * It said "released with an error: 0 blocked ops" and named no stopped
 * stream. */
static void test_watchdog_stopped(void **state)
{
    static const char hs[] = "cesync 1\nranks 2\nsignal f u32 2\nphase eager x1\n"
                             "r0 : write f[0]@1 = 1\nr1 : wait f[0] >= 1\n"
                             "r1 : write f[1]@0 = 1\nr0 : wait f[1] >= 1\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, hs);
    struct ces_fault f;
    struct ces_check_opts o;
    struct ces_check_report *r;
    const struct ces_check_defect *d;
    char *t;

    (void)state;
    ces_check_opts_init(&o);
    o.faults = &f;
    o.nfaults = 1;
    o.flags = CES_CHECK_ABORT;
    /* r0 stops after its write: r1 finishes, nothing is blocked */
    assert_int_equal(ces_fault_parse(ctx, "stop:r0.s0#1", &f), CES_OK);
    r = check2(ctx, g, &o, CES_V_OK);
    assert_int_equal(ces_check_report_stats(r).aborted, 1);
    d = find(r, CES_CHECK_ABORTED);
    assert_int_equal(d->naborted, 0);
    assert_int_equal(d->nblocked, 1);
    assert_int_equal(d->blocked[0].reason, CES_BLOCK_STOPPED);
    assert_int_equal(d->blocked[0].pos.rank, 0);
    assert_int_equal(d->blocked[0].pos.index, 1);
    report_has(ctx, r,
               "  replay: 0.1*2\n"
               "  released nothing: no op was blocked\n"
               "  left stopped: r0.s0#1\n",
               "\"defects\":[{\"class\":\"WATCHDOG\",\"replay\":\"0.1*2\",",
               "\"stopped\":[{\"pos\":\"r0.s0#1\",\"op\":\"wait f[1] >= 1\",");
    replays(ctx, g, &o, d);
    ces_check_report_destroy(r);
    /* r1 stops before its write: r0's wait is released, r1 stays stopped */
    assert_int_equal(ces_fault_parse(ctx, "stop:r1.s0#1", &f), CES_OK);
    r = check2(ctx, g, &o, CES_V_OK);
    d = find(r, CES_CHECK_ABORTED);
    assert_int_equal(d->naborted, 1);
    assert_int_equal(d->nblocked, 1);
    t = text_of(ctx, r);
    assert_non_null(strstr(t, "  released with an error: 1 blocked op r0.s0#1\n"
                              "  left stopped: r1.s0#1\n"));
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    /* no stop: nothing is left stopped, and the report says nothing of it */
    assert_int_equal(ces_fault_parse(ctx, "drop:r0.s0#0", &f), CES_OK);
    r = check2(ctx, g, &o, CES_V_OK);
    d = find(r, CES_CHECK_ABORTED);
    assert_int_equal(d->nblocked, 0);
    t = text_of(ctx, r);
    assert_null(strstr(t, "left stopped"));
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The sweep's progress: every call's faults checked and total. */
struct sweep_seen {
    size_t calls, last, total;
    double seconds;
};

/* The watchdog's lists in the text name eight ops, then "...": r0 has n
 * streams, each a wait that never passes; the watchdog releases all n, and
 * under stop:r0#0 none, leaving the n streams stopped. */
static void test_watchdog_lists(void **state)
{
    static const char *const released[] = {
        "  released with an error: 8 blocked ops r0.s0#0, r0.s1#0, r0.s2#0, r0.s3#0, r0.s4#0, "
        "r0.s5#0, r0.s6#0, r0.s7#0\n",
        "  released with an error: 9 blocked ops r0.s0#0, r0.s1#0, r0.s2#0, r0.s3#0, r0.s4#0, "
        "r0.s5#0, r0.s6#0, r0.s7#0 ...\n"};
    static const char *const stopped[] = {
        "  left stopped: r0.s0#0, r0.s1#0, r0.s2#0, r0.s3#0, r0.s4#0, r0.s5#0, r0.s6#0, "
        "r0.s7#0\n",
        "  left stopped: r0.s0#0, r0.s1#0, r0.s2#0, r0.s3#0, r0.s4#0, r0.s5#0, r0.s6#0, "
        "r0.s7#0 ...\n"};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (uint32_t n = 8; n <= 9; n++) {
        struct ces_graph *g = mk(ctx, 1, n);
        struct ces_fault f = {CES_FAULT_STOP, 0, CES_FAULT_RANK, 0};
        struct ces_check_opts o;
        struct ces_check_report *r;
        const struct ces_check_defect *d;
        char *t;

        for (uint32_t s = 0; s < n; s++)
            op(g, 0, WT(s, F, 0, 0, CES_CMP_GEQ, 1));
        ces_check_opts_init(&o);
        o.flags = CES_CHECK_ABORT;
        r = check2(ctx, g, &o, CES_V_OK);
        d = find(r, CES_CHECK_ABORTED);
        assert_int_equal(d->naborted, n);
        t = text_of(ctx, r);
        assert_non_null(strstr(t, released[n - 8]));
        ces_free(ctx, t);
        ces_check_report_destroy(r);
        o.faults = &f;
        o.nfaults = 1;
        r = check2(ctx, g, &o, CES_V_OK);
        d = find(r, CES_CHECK_ABORTED);
        assert_int_equal(d->nblocked, n);
        t = text_of(ctx, r);
        assert_non_null(strstr(t, "  released nothing: no op was blocked\n"));
        assert_non_null(strstr(t, stopped[n - 8]));
        ces_free(ctx, t);
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

static void sweep_seen(void *ud, size_t done, size_t total, double seconds)
{
    struct sweep_seen *w = ud;

    assert_true(done > w->last);
    assert_true(seconds >= w->seconds);
    w->calls++;
    w->last = done;
    w->total = total;
    w->seconds = seconds;
}

static void test_fault_sweep(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, false);
    struct ces_check_sweep_row *rows = NULL;
    struct ces_check_sweep_rest rest;
    struct ces_check_opts o;
    struct sweep_seen seen = {0};
    size_t n = 0;
    char *t = NULL;

    (void)state;
    /* progress every fault (any time is past 1 ns), the last at the end */
    ces_check_opts_init(&o);
    o.sweep_progress = sweep_seen;
    o.progress_ud = &seen;
    o.progress_seconds = 1e-9;
    assert_int_equal(ces_check_fault_sweep(ctx, g, &o, &rows, &n, &rest), CES_OK);
    assert_int_equal(n, 2 * (7 + 2 + 2)); /* 7 stops, 2 drops and 2 delays per rank */
    assert_int_equal(seen.calls, n);
    assert_int_equal(seen.last, n);
    assert_int_equal(seen.total, n);
    ces_free(ctx, rows);
    rows = NULL;
    /* with an hour between calls, only the one at the end */
    memset(&seen, 0, sizeof(seen));
    o.progress_seconds = 3600;
    assert_int_equal(ces_check_fault_sweep(ctx, g, &o, &rows, &n, &rest), CES_OK);
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.last, n);
    assert_int_equal(seen.total, n);
    ces_free(ctx, rows);
    rows = NULL;
    assert_int_equal(ces_check_fault_sweep(ctx, g, NULL, &rows, &n, &rest), CES_OK);
    assert_int_equal(n, 2 * (7 + 2 + 2));
    for (size_t i = 0; i < n; i++) {
        /* rows in position order, a write's drop, then its delay, then its
         * stop: per rank stop #0, drop #1, delay #1, stop #1, stop #2,
         * stop #3, drop #4, delay #4, stop #4, stop #5, stop #6 */
        static const uint32_t index[11] = {0, 1, 1, 1, 2, 3, 4, 4, 4, 5, 6};
        size_t j = i % 11;

        assert_int_equal(rows[i].fault.rank, i / 11);
        assert_int_equal(rows[i].fault.stream, 0);
        assert_int_equal(rows[i].fault.index, index[j]);
        assert_int_equal(rows[i].fault.kind, j == 1 || j == 6   ? CES_FAULT_DROP
                                             : j == 2 || j == 7 ? CES_FAULT_DELAY
                                                                : CES_FAULT_STOP);
        if (rows[i].fault.kind == CES_FAULT_DELAY) {
            /* each slot is written once: a late flag only makes its waiter
             * wait longer, and carries the copy's order all the same */
            assert_int_equal(rows[i].verdict, CES_V_OK);
            assert_int_equal(rows[i].verdict_abort, CES_V_OK);
            assert_int_equal(rows[i].aborted, 0);
            continue;
        }
        /* Every fault leaves a stream waiting for good: a lost flag, a
         * stream that stopped before its flag, or (stopped at #5 or #6,
         * after both its flags) the stopped stream itself.  Nothing waits
         * on a stopped stream or a dropped write in a cycle, so HANG and
         * never DEADLOCK; no data is read early, so nothing else. */
        assert_int_equal(rows[i].verdict, CES_V_HANG);
        /* the watchdog fires in every one (a stopped stream alone makes it
         * fire, releasing nothing) and releases every blocked wait; what
         * runs after it is not judged */
        assert_int_equal(rows[i].verdict_abort, CES_V_OK);
        assert_true(rows[i].aborted > 0);
    }
    assert_int_equal(ces_check_sweep_text(ctx, rows, n, NULL, &t, NULL), CES_OK);
    assert_non_null(strstr(t, "r0.s0#1        drop  HANG                   OK (watchdog fired "));
    assert_non_null(strstr(t, "r0.s0#1        delay OK                     OK\n"));
    ces_free(ctx, t);
    ces_free(ctx, rows);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_bounds_incomplete(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, false);
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    char *t;

    (void)state;
    ces_check_opts_init(&o);
    o.max_states = 2;
    o.flags = CES_CHECK_NO_REDUCTION;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_false(ces_check_report_stats(r).complete);
    t = text_of(ctx, r);
    {
        /* (without the reduction no over-approximation rules out a
         * DEADLOCK) */
        static const char want[] = "verdict: INCOMPLETE\ncoverage: the bound on states stopped "
                                   "the search after 2 states\ncoverage: neither found nor ruled "
                                   "out: DEADLOCK,HANG,RACE,MISMATCH\nstatistics: 2 states, ";

        assert_memory_equal(t, want, sizeof(want) - 1);
    }
    assert_int_equal(ces_check_report_open(r),
                     CES_V_DEADLOCK | CES_V_HANG | CES_V_RACE | CES_V_MISMATCH);
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    /* a bound of exactly the states the search needs stops nothing; one
     * less stops it */
    for (uint32_t flags = 0; flags <= CES_CHECK_NO_REDUCTION; flags += CES_CHECK_NO_REDUCTION) {
        uint64_t n;

        o.max_states = 0;
        o.flags = flags;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
        n = ces_check_report_stats(r).states;
        ces_check_report_destroy(r);
        assert_true(n >= 2);
        o.max_states = n;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
        assert_true(ces_check_report_stats(r).complete);
        assert_true(ces_check_report_stats(r).states == n);
        ces_check_report_destroy(r);
        o.max_states = n - 1;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
        assert_false(ces_check_report_stats(r).complete);
        assert_true(ces_check_report_stats(r).states == n - 1);
        ces_check_report_destroy(r);
    }
    ces_graph_destroy(g);
    /* stopping at the first defect */
    g = handshake(ctx, true);
    o.max_states = 0;
    o.flags = CES_CHECK_FIRST;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_DEADLOCK | CES_V_INCOMPLETE);
    t = text_of(ctx, r);
    assert_memory_equal(t, "verdict: DEADLOCK,INCOMPLETE\ncoverage: stopped at the first defect",
                        64);
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* max_depth: a state reached after that many steps that could go on is
 * neither followed nor judged (INCOMPLETE); an end state there is judged. */
static void test_depth_bound(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, false);
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    uint64_t longest;
    char *t;

    (void)state;
    for (uint32_t flags = 0; flags <= CES_CHECK_NO_REDUCTION; flags += CES_CHECK_NO_REDUCTION) {
        ces_check_opts_init(&o);
        o.flags = flags;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
        longest = ces_check_report_stats(r).max_depth;
        assert_int_equal(longest, 14); /* 7 ops a rank */
        ces_check_report_destroy(r);
        o.max_depth = longest; /* every execution ends within it */
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
        assert_true(ces_check_report_stats(r).complete);
        ces_check_report_destroy(r);
    }
    /* without the reduction every step is a choice: depth 1 cuts them all */
    o.max_depth = 1;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_false(ces_check_report_stats(r).complete);
    assert_int_equal(ces_check_report_stats(r).executions, 0);
    assert_int_equal(ces_check_report_stats(r).max_depth, 1);
    t = text_of(ctx, r);
    assert_memory_equal(t, "verdict: INCOMPLETE\ncoverage: some executions were cut at the depth "
                           "bound and not followed further\n", 94);
    ces_free(ctx, t);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    /* both ranks wait first: after the two produces, a deadlock - cut at
     * depth 1, judged at depth 2 */
    g = handshake(ctx, true);
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    ces_check_report_destroy(r);
    o.max_depth = 2;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_DEADLOCK);
    assert_true(ces_check_report_stats(r).complete);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void count_progress(void *ud, const struct ces_check_stats *s)
{
    long *calls = ud;

    assert_true(s->transitions > 0);
    (*calls)++;
}

static void test_progress_and_time_bound(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 5, 1);
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    long calls = 0;

    (void)state;
    /* five ranks racing on one slot with many stores: millions of states */
    for (uint32_t rk = 0; rk < 5; rk++)
        for (uint32_t i = 0; i < 12; i++)
            op(g, rk, W(0, C, 0, 0, i + rk));
    ces_check_opts_init(&o);
    o.flags = CES_CHECK_NO_REDUCTION;
    o.progress = count_progress;
    o.progress_ud = &calls;
    o.progress_seconds = 1e-6;
    o.max_seconds = 0.2;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_true(calls > 0);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_true(ces_check_report_stats(r).seconds >= 0.2);
    assert_true(ces_check_report_stats(r).seconds < 5.0);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* max_seconds must be a number the clock can reach: NaN compared false
 * with everything and ran unbounded, infinity never stops. */
static void test_max_seconds_finite(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, false);
    const double bad[] = {NAN, INFINITY, -INFINITY, -1.0};
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ces_check_opts_init(&o);
        o.max_seconds = bad[i];
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_ERR_INVALID);
        assert_null(r);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "check options: max_seconds must be a finite number >= 0");
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* progress_seconds alike: -1 and NaN were taken (as the default, 2 s),
 * so a caller's mistake went unseen.  0 is the default too, not "every
 * step": a check the time bound stops after 0.2 s makes no call. */
static void test_progress_seconds_finite(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, false), *big = mk(ctx, 5, 1);
    const double bad[] = {NAN, INFINITY, -INFINITY, -1.0, -1e-300};
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    long calls = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ces_check_opts_init(&o);
        o.progress_seconds = bad[i];
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_ERR_INVALID);
        assert_null(r);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "check options: progress_seconds must be a finite number >= 0");
    }
    ces_check_opts_init(&o);
    assert_true(o.progress_seconds == 2.0);
    o.progress_seconds = 0;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
    ces_check_report_destroy(r);
    /* the graph of test_progress_and_time_bound: millions of states */
    for (uint32_t rk = 0; rk < 5; rk++)
        for (uint32_t i = 0; i < 12; i++)
            op(big, rk, W(0, C, 0, 0, i + rk));
    o.flags = CES_CHECK_NO_REDUCTION;
    o.progress = count_progress;
    o.build_progress = NULL;
    o.progress_ud = &calls;
    o.max_seconds = 0.2;
    assert_int_equal(ces_check(ctx, big, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_int_equal(calls, 0);
    ces_check_report_destroy(r);
    ces_graph_destroy(big);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A flag bit that enum ces_check_flags does not name is refused, not
 * ignored (a caller's newer flag would silently do nothing). */
static void test_unknown_flags(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, false);
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;

    (void)state;
    ces_check_opts_init(&o);
    o.flags = CES_CHECK_ABORT | (1u << 4);
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_ERR_INVALID);
    assert_null(r);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "check options: flags 0x12 has bits no enum ces_check_flags names");
    o.flags = CES_CHECK_NO_REDUCTION | CES_CHECK_ABORT | CES_CHECK_FIRST | CES_CHECK_UNLINKED;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_non_null(r);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A graph built op by op that the caller never validated: an open batch
 * (and, after a valid graph is extended, an overlapping copy) used to be
 * searched as if valid and pass with verdict OK; the checker and the fault
 * sweep now validate it first and refuse it with validate's message. */
static void test_unvalidated_graph(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_op batch = {.kind = CES_OP_BATCH};
    struct ces_op c = {.kind = CES_OP_COPY, .a = {0, 0, 0, 8}, .b = {0, 1, 0, 8}};
    struct ces_op self = {.kind = CES_OP_COPY, .a = {0, 0, 0, 8}, .b = {0, 0, 4, 12}};
    struct ces_op end = {.kind = CES_OP_END};
    struct ces_check_report *r = NULL;
    struct ces_check_sweep_row *rows = NULL;
    struct ces_check_sweep_rest rest;
    size_t n = 1;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "b", 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &batch), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &c), CES_OK);
    assert_int_equal(ces_check(ctx, g, NULL, &r), CES_ERR_SEMANTIC);
    assert_null(r);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "check: the graph does not validate: r0.s0#0: 'batch' without 'end': a "
                        "batch must end in the phase it starts");
    assert_int_equal(ces_check_fault_sweep(ctx, g, NULL, &rows, &n, &rest), CES_ERR_SEMANTIC);
    assert_null(rows);
    assert_int_equal(n, 0);
    assert_non_null(strstr(ces_ctx_last_error(ctx), "fault sweep: the graph does not validate"));
    /* validated, then extended: the check validates again */
    assert_int_equal(ces_graph_add_op(g, 0, &end), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_check(ctx, g, NULL, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
    ces_check_report_destroy(r);
    r = NULL;
    assert_int_equal(ces_graph_add_op(g, 0, &self), CES_OK);
    assert_int_equal(ces_check(ctx, g, NULL, &r), CES_ERR_SEMANTIC);
    assert_null(r);
    assert_non_null(strstr(ces_ctx_last_error(ctx), "a copy's source and destination overlap"));
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The clock is read every transition when states are large (here 4 MiB:
 * 2^18 slots, each with a value and a clock per stream; each rank's last
 * wait keeps the written slot's value read, so its writes stay choices),
 * so a time bound
 * cannot overshoot by 256 slow transitions; and only about every 256th
 * when they are small.  The progress callback, asked for at every reading,
 * counts the readings. */
static void test_clock_follows_state_size(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, 1);
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    struct ces_check_stats s;
    long calls = 0;

    (void)state;
    assert_int_equal(ces_graph_add_signal(g, "big", CES_U64, UINT32_C(1) << 17, NULL), CES_OK);
    for (uint32_t rk = 0; rk < 2; rk++) {
        for (uint32_t i = 0; i < 3; i++)
            op(g, rk, W(0, 2, 0, 0, i + rk));
        op(g, rk, WT(0, 2, 0, 0, CES_CMP_GEQ, 0)); /* the values stay read */
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_check_opts_init(&o);
    o.flags = CES_CHECK_NO_REDUCTION;
    o.progress = count_progress;
    o.progress_ud = &calls;
    o.progress_seconds = 1e-9;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    s = ces_check_report_stats(r);
    assert_true(s.complete);
    assert_true(s.transitions > 10 && s.transitions < 256);
    assert_true(calls >= (long)s.transitions / 2);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    /* small states: the clock is not read at every transition */
    g = mk(ctx, 3, 1);
    for (uint32_t rk = 0; rk < 3; rk++) {
        for (uint32_t i = 0; i < 6; i++)
            op(g, rk, W(0, C, 0, 0, i + rk));
        op(g, rk, WT(0, C, 0, 0, CES_CMP_GEQ, 0));
    }
    calls = 0;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    s = ces_check_report_stats(r);
    assert_true(s.complete);
    assert_true(s.transitions > 1000);
    assert_true(calls <= (long)s.transitions / 8 + 16);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* An allocator that refuses every block over 64 MiB: a check bounded to
 * 64 MiB must never ask for one. */
struct small_alloc {
    struct ces_test_alloc count;
    struct ces_alloc inner;
    long refused;
};

#define SMALL_MAX ((size_t)64 << 20)

static void *small_malloc(void *ud, size_t size)
{
    struct small_alloc *a = ud;

    if (size > SMALL_MAX) {
        a->refused++;
        return NULL;
    }
    return a->inner.malloc(a->inner.ud, size);
}

static void *small_realloc(void *ud, void *ptr, size_t size)
{
    struct small_alloc *a = ud;

    if (size > SMALL_MAX) {
        a->refused++;
        return NULL;
    }
    return a->inner.realloc(a->inner.ud, ptr, size);
}

static void small_free(void *ud, void *ptr)
{
    struct small_alloc *a = ud;

    a->inner.free(a->inner.ud, ptr);
}

/* 8 ranks of 2^24 slots: the model's slot tables take GiBs and one state
 * 5 GiB; under max_memory 64 MiB the check ends INCOMPLETE before building
 * them (it used to allocate them all and fail or be killed), in every mode,
 * and says what needed the memory. */
static void test_memory_bound_model(void **state)
{
    struct small_alloc a;
    struct ces_alloc h;
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g;
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    const char *want = "memory bound 64.0 MiB reached before the search: the checker's model "
                       "(8 streams, 134217792 signal slots) needs more than 3.50 GiB and each "
                       "state 5.00 GiB";

    (void)state;
    memset(&a, 0, sizeof(a));
    a.inner = ces_test_hooks(&a.count);
    h.malloc = small_malloc;
    h.realloc = small_realloc;
    h.free = small_free;
    h.ud = &a;
    assert_int_equal(ces_ctx_create(&h, &ctx), CES_OK);
    g = mk(ctx, 8, 1);
    assert_int_equal(ces_graph_add_signal(g, "big", CES_U64, UINT32_C(1) << 24, NULL), CES_OK);
    op(g, 0, W(0, 2, 1, 0, 1));
    op(g, 1, WT(0, 2, 1, 0, CES_CMP_GEQ, 1));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    for (int mode = 0; mode < 3; mode++) {
        struct ces_check_stats s;

        ces_check_opts_init(&o);
        o.max_memory = (uint64_t)64 << 20;
        o.random = mode == 1 ? 3 : 0;
        o.replay = mode == 2 ? "0.1" : NULL;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
        s = ces_check_report_stats(r);
        assert_false(s.complete);
        assert_int_equal(s.states, 0);
        assert_int_equal(s.transitions, 0);
        assert_true(s.peak_memory <= o.max_memory);
        assert_int_equal(s.mode, mode == 0   ? CES_CHECK_EXHAUSTIVE
                                 : mode == 1 ? CES_CHECK_RANDOM
                                             : CES_CHECK_REPLAY);
        assert_string_equal(ces_ctx_last_error(ctx), want);
        ces_check_report_destroy(r);
    }
    assert_int_equal(a.refused, 0);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    assert_int_equal(a.count.live, 0);
}

/* A graph block of 2^22 replays unrolls to 12.6 million ops: under
 * max_seconds 0.05 the check ends INCOMPLETE, stopped by the bound on
 * time, while it builds the model (the bound held the search only, after
 * a build of seconds and GiBs), in every mode, and says how far it came. */
static void test_time_bound_model(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nstreams 2\n"
                                                   "signal f u64 1\nphase graph x4194304\n"
                                                   "r0 : write f[0]@1 = 1\n"
                                                   "r1 s1 : write f[0]@1 = 1\n"
                                                   "r1 s1 : wait f[0] >= 1\n");
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    char *t = NULL;

    (void)state;
    for (int mode = 0; mode < 3; mode++) {
        struct ces_check_stats s;

        ces_check_opts_init(&o);
        o.max_seconds = 0.05;
        o.random = mode == 1 ? 3 : 0;
        o.replay = mode == 2 ? "0.1" : NULL;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
        assert_int_equal(ces_check_report_open(r), CES_V_DEADLOCK | CES_V_HANG | CES_V_RACE |
                                                       CES_V_MISMATCH);
        s = ces_check_report_stats(r);
        assert_false(s.complete);
        assert_int_equal(s.states, 0);
        assert_int_equal(s.transitions, 0);
        assert_true(s.seconds >= 0.05);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "time bound 0.05 s reached before the search: the checker's model "
                            "(4 streams, 12582912 ops unrolled) was not built by then");
        if (mode == 0) {
            assert_int_equal(ces_check_report_text(ctx, r, &t, NULL), CES_OK);
            assert_non_null(strstr(t, "coverage: the bound on time stopped the search after 0 "
                                      "states\n"));
            ces_free(ctx, t);
        }
        ces_check_report_destroy(r);
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The peak memory of a check the time bound stopped while it built the
 * model counts what the building held: 2 million unrolled ops take a table
 * of 45.8 MiB, whose clearing reads the clock between 64 MiB chunks and
 * stops at the first (a bound of 1 ns), the table freed - the report said
 * 576 B after a build that held GiBs.  The building calls build_progress,
 * not progress, each call a step of its own with the ops unrolled so far;
 * a call that is due at the look that finds the bound passed is made
 * before it stops (there was none: the bound was judged first). */
struct seen_calls {
    long builds, searches;
};

static void seen_build(void *ud, const struct ces_check_build *b)
{
    struct seen_calls *c = ud;

    assert_int_equal(c->searches, 0); /* the building comes first */
    assert_non_null(b->step);
    assert_true(b->unrolled <= b->ops);
    assert_true(b->step_total == 0 || b->step_done <= b->step_total);
    assert_true(b->memory > 0);
    c->builds++;
}

static void seen_search(void *ud, const struct ces_check_stats *s)
{
    struct seen_calls *c = ud;

    (void)s;
    c->searches++;
}

/* A long program of awaits, whose horizon's reach finds the first of a
 * process's awaits that cannot pass by bisection in groups of awaits (it
 * walked them from the first, a cost that grew with the square of the
 * program: docs/PERFORMANCE.md, "Awaits in a long program", where the
 * time is measured; no time is asserted here): the verdict and every state
 * of the search, 4N - 1 for N replays. */
static const char awaits_long[] = "cesync 1\nranks 2\nstreams 2\n"
                                  "buffer x 64\nbuffer y 64\nbuffer z 64\n"
                                  "signal f u32 1\n"
                                  "phase graph x4000\n"
                                  "r* : write f[0] = 1\n"
                                  "r* s1 : copy x[0:64] -> y[0:64]\n"
                                  "r* s1 : record e\n"
                                  "r* : await e\n"
                                  "r* : copy y[0:64] -> z[0:64]\n"
                                  "r* : wait f[0] == 1\n"
                                  "r* : write f[0] = 0\n";

static void test_awaits_long_program(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, awaits_long);
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;

    (void)state;
    ces_check_opts_init(&o);
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
    assert_int_equal(ces_check_report_stats(r).states, 15999);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The bursts of random executions within a search of a long program: each
 * execution of test_awaits_long_program's graph takes 56,000 transitions,
 * past the budget of a burst (the states stored, ces_sim_sample_least set
 * to 1): the first burst, at 4,096 states, takes one, whose excess covers
 * the burst at 8,192, which is not run.  Each burst ran one execution,
 * taking the program's length again at every doubling of the states (2
 * executions here, 7 at x100000 in PERFORMANCE.md's "Awaits in a long
 * program"); the states and verdict are the same. */
static void test_sample_long_executions(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, awaits_long);
    struct ces_check_report *r = NULL;
    struct ces_check_stats s;

    (void)state;
    ces_sim_sample_least = 1; /* (knobs_back puts it back) */
    assert_int_equal(ces_check(ctx, g, NULL, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
    s = ces_check_report_stats(r);
    assert_int_equal(s.states, 15999);
    assert_int_equal(s.sample_executions, 1);
    assert_int_equal(s.transitions, 2 * 56000); /* (the search's and the execution's) */
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* ... and covers that one burst alone: 2 ranks of `cesync gen --seed 133
 * --streams 2 --shapes handoff`, replayed 20000 times, whose MISMATCH the
 * search alone has not found in 320,000 states; the burst at 4,096 states
 * finds its HANG, the one at 16,384 its MISMATCH.  Where the excess paid for
 * every later burst, the next ran at 131,072 states, and a search bounded
 * to 16,385 said HANG, RACE, INCOMPLETE. */
static void test_sample_excess_one_burst(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(
        ctx, "cesync 1\nranks 2\nstreams 2\nbuffer src 48\nbuffer dst 48\n"
             "signal rdy u32 3\nsignal done u32 3\nphase graph x20000\n"
             "r0 s1 : produce dst[0:16]\nr0 s1 : write rdy[0]@1 = 1\n"
             "r0 s1 : wait done[0] >= 1\nr0 s1 : write done[0] = 0\nr0 s1 : record e0\n"
             "r0 : await e0\nr0 : consume dst[0:16] == src[0:16]@1\n"
             "r1 : write done[0]@0 = 1\nr1 : produce src[0:16]\nr1 : wait rdy[0] >= 1\n"
             "r1 : write rdy[0] = 0\nr1 : copy src[0:16] -> dst[0:16]@0\n"
             "r1 s1 : produce src[16:32]\nr1 s1 : batch\n"
             "r1 s1 : copy src[16:24] -> dst[16:24]\nr1 s1 : copy src[24:32] -> dst[24:32]\n"
             "r1 s1 : end\nr1 s1 : consume dst[16:32] == src[16:32]@0\n");
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;

    (void)state;
    ces_check_opts_init(&o);
    o.max_states = 16385;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r),
                     CES_V_HANG | CES_V_RACE | CES_V_MISMATCH | CES_V_INCOMPLETE);
    assert_int_equal(ces_check_report_stats(r).sample_executions, 2);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_time_bound_model_peak(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, "cesync 1\nranks 1\nsignal f u32 1\n"
                                                   "phase graph x2000000\n"
                                                   "r0 : write f[0] = 1\n");
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    struct ces_check_stats s;
    struct seen_calls c = {0, 0};

    (void)state;
    ces_check_opts_init(&o);
    o.max_seconds = 1e-9;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "time bound 1e-09 s reached before the search: the checker's model "
                        "(1 stream, 2000000 ops unrolled) was not built by then");
    s = ces_check_report_stats(r);
    assert_int_equal(s.states, 0);
    assert_true(s.peak_memory > (UINT64_C(40) << 20));
    ces_check_report_destroy(r);
    /* the line due at that first look, the search's none */
    o.build_progress = seen_build;
    o.progress = seen_search;
    o.progress_ud = &c;
    o.progress_seconds = 1e-9;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_int_equal(c.builds, 1);
    assert_int_equal(c.searches, 0);
    ces_check_report_destroy(r);
    c.builds = 0;
    /* built, with a line every time the clock is read: the building's first
     * (the table's clearing, then every 65,536 ops of each pass), the
     * search's after */
    ces_check_opts_init(&o);
    o.build_progress = seen_build;
    o.progress = seen_search;
    o.progress_ud = &c;
    o.progress_seconds = 1e-9;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
    assert_true(c.builds >= 2000000 / 65536);
    assert_true(c.searches > 0);
    assert_true(ces_check_report_stats(r).peak_memory > (UINT64_C(64) << 20));
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A building line that takes 0.15 s. */
static void slow_build(void *ud, const struct ces_check_build *b)
{
    struct timespec pause = {0, 150000000};

    (void)ud;
    (void)b;
    nanosleep(&pause, NULL);
}

/* A delay fault's check derives the graph checked in the schedule's place
 * (delay.c) before its model, and that derivation neither read the clock
 * nor counted in the bound: 2 ranks of 300,000 eager blocks of one write
 * took 0.8 s to derive, and the model then had the whole bound again
 * (`check --fault delay:r0.s0#299990 --max-seconds 1` ended after 1.8 s,
 * a fault sweep's delay in flight at the bound 1.7 s past --max-seconds
 * 3.5, each of its two checks deriving).  With the bound spent before the
 * check, as for a sweep's fault checked after its bound passed, nothing is
 * derived: INCOMPLETE, every class open, the schedule's own graph in the
 * report, which still names the delay, and the message says so. */
static void test_time_bound_delay_graph(void **state)
{
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g;
    struct ces_fault delay = {CES_FAULT_DELAY, 0, 0, 1};
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    char *text = NULL;

    (void)state;
    assert_int_equal(ces_ctx_create(NULL, &ctx), CES_OK);
    g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nsignal f u32 1\nphase eager x3\n"
                                 "r* : write f[0] = $i\n");
    ces_check_opts_init(&o);
    o.faults = &delay;
    o.nfaults = 1;
    o.max_seconds = 1;
    o.spent_seconds = 1;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_int_equal(ces_check_report_open(r),
                     CES_V_DEADLOCK | CES_V_HANG | CES_V_RACE | CES_V_MISMATCH);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "time bound 1 s reached before the search (1 s of it spent before the "
                        "check): the graph checked in the schedule's place for its delay faults "
                        "(0 of 3 blocks copied) was not derived by then");
    assert_ptr_equal(ces_check_report_graph(r), g);
    assert_int_equal(ces_check_report_stats(r).transitions, 0);
    assert_int_equal(ces_check_report_text(ctx, r, &text, NULL), CES_OK);
    assert_non_null(strstr(text, "\nfault delay:r0.s0#1: r0.s0#1 records an event in place of "
                                 "the write; the write lands from r0.s1, a stream of its own, at "
                                 "any moment after that\n"));
    ces_free(ctx, text);
    ces_check_report_destroy(r);
    /* with the bound left, derived and checked as before */
    o.spent_seconds = 0;
    o.max_seconds = 0;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
    assert_ptr_not_equal(ces_check_report_graph(r), g);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    /* derived within the bound, whose model's building then passes it (a
     * building line that takes 0.15 s): the model's bound counted the
     * derivation as spent before it, which its message says (it had the
     * whole bound, and said none spent) */
    g = ces_test_text_graph(ctx, "cesync 1\nranks 1\nsignal f u32 1\nphase graph x200000\n"
                                 "r0 : write f[0] = 1\n");
    delay.index = 5;
    o.max_seconds = 0.1;
    o.build_progress = slow_build;
    o.progress_seconds = 1e-9;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    text = strstr(ces_ctx_last_error(ctx), " s of it spent before the check): the checker's model "
                                           "(2 streams, 200002 ops unrolled) was not built by "
                                           "then");
    assert_non_null(text);
    assert_true(strncmp(ces_ctx_last_error(ctx),
                        "time bound 0.1 s reached before the search (", 44) == 0);
    assert_true(strtod(ces_ctx_last_error(ctx) + 44, NULL) > 0);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    /* one block of 65,280 ops, copied in three parts around its delayed
     * replay: the clock is read within it too, so a bound of 1 ms, not
     * passed at the first look, stops the copy in its first block (the
     * clock was read only between blocks, and its first part alone,
     * 65,280 ops, takes a few ms or more: the whole block was copied and
     * the model's building said the bound) */
    g = ces_test_text_graph(ctx, "cesync 1\nranks 256\nsignal f u32 1\nphase graph x3\n"
                                 "r* over p : write f[0]@$p = 1\n");
    delay.index = 300; /* (replay 1 of r0's 255 writes a replay) */
    o.max_seconds = 0.001;
    o.build_progress = NULL;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "time bound 0.001 s reached before the search: the graph checked in the "
                        "schedule's place for its delay faults (0 of 1 block copied) was not "
                        "derived by then");
    assert_ptr_equal(ces_check_report_graph(r), g);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
}

/* Sixteen streams of a million unrolled ops each take a table of 22.9 MiB
 * apiece (30.5 MiB when ops took 32 bytes, 46 when 48, 61 when 64), each
 * cleared in one part of 64 MiB: the clock was read only
 * between parts, so a bound of 1 ns let all sixteen be allocated and
 * cleared (976.6 MiB, 6 s on a loaded 2-core machine under a bound of 2)
 * before the first pass over the ops read it; the clock is now read before
 * the first part of a table of 1 MiB or more, and the check stops at the
 * first stream's table. */
static void test_time_bound_model_tables(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, "cesync 1\nranks 16\nsignal f u32 1\n"
                                                   "phase graph x1000000\n"
                                                   "r* : write f[0] = 1\n");
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    struct ces_check_stats s;

    (void)state;
    ces_check_opts_init(&o);
    o.max_seconds = 1e-9;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "time bound 1e-09 s reached before the search: the checker's model "
                        "(16 streams, 16000000 ops unrolled) was not built by then");
    s = ces_check_report_stats(r);
    assert_int_equal(s.states, 0);
    /* the first stream's table, not sixteen */
    assert_true(s.peak_memory > (UINT64_C(20) << 20));
    assert_true(s.peak_memory < (UINT64_C(128) << 20));
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The building's last step that read the clock, and for a test of the
 * sweep of the data accesses, a sleep past the time bound (`bound`, s) at
 * the first reading within that step. */
struct last_step {
    const char *step;
    double bound;
    bool slept;
    const char *at; /* the step whose first line sleeps past the bound */
};

static void last_step_build(void *ud, const struct ces_check_build *b)
{
    struct last_step *l = ud;

    l->step = b->step;
    if (l->bound > 0 && !l->slept && strcmp(b->step, l->at) == 0) {
        double d = l->bound - b->seconds + 0.05;
        struct timespec pause = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};

        l->slept = true;
        nanosleep(&pause, NULL);
    }
}

/* The runs that the consumes with '==' expect were read without a look at
 * the clock: 500 produces of every other byte of a buffer of 1,000, then
 * 300 consumes of [0, 1000 - i), 255,000 runs, read no clock (and
 * `cesync check --max-seconds 1` of one rank's 2,000 such produces and a
 * consume of the whole buffer replayed 10,000 times, 40 million runs, took
 * 1.4 s, and 20,000 replays 4.2 s, the search stopping at once).  The
 * reading now ticks a run at a time: with the whole bound spent before the
 * check, the building stops at its first look, in that step. */
static void test_time_bound_expected_runs(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 1);
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    struct last_step l = {NULL, 0, false, NULL};
    uint32_t big;

    (void)state;
    assert_int_equal(ces_graph_add_buffer(g, "big", 1000, &big), CES_OK);
    for (uint64_t k = 0; k < 500; k++)
        op(g, 0, PR(0, big, 0, 2 * k, 2 * k + 1));
    for (uint64_t i = 0; i < 300; i++)
        op(g, 0, CO(0, big, 0, 0, 1000 - i, big, 0, 0));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_check_opts_init(&o);
    o.max_seconds = 600;
    o.spent_seconds = 600;
    o.build_progress = last_step_build;
    o.progress_ud = &l;
    o.progress_seconds = 1e-9;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "time bound 600 s reached before the search (600 s of it spent before "
                        "the check): the checker's model (1 stream, 800 ops unrolled) was not "
                        "built by then");
    assert_string_equal(l.step, "reading the expected data");
    assert_int_equal(ces_check_report_stats(r).states, 0);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Checks g (one stream, `unrolled` ops once unrolled) under a bound of 1 s
 * whose progress sleeps past it at its first line in the building step
 * `at`: the building stops in that step with the bound's message.  Ends
 * g and ctx. */
static void building_stops(struct ces_ctx *ctx, struct ces_test_alloc *st, struct ces_graph *g,
                           const char *at, unsigned unrolled)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    struct last_step l = {NULL, 1, false, at};
    char want[160];

    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_check_opts_init(&o);
    o.max_seconds = l.bound;
    o.build_progress = last_step_build;
    o.progress_ud = &l;
    o.progress_seconds = 1e-9;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_true(l.slept);
    snprintf(want, sizeof(want),
             "time bound 1 s reached before the search: the checker's model (1 stream, %u ops "
             "unrolled) was not built by then",
             unrolled);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    assert_string_equal(l.step, at);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, st);
}

/* 9,000 one-byte copies in a graph phase of 8 replays, 144,000 data
 * accesses, the building stopped in step `at` (building_stops). */
static void data_accesses_stop(const char *at)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 1);

    assert_int_equal(ces_graph_add_buffer(g, "a", 9000, NULL), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "b", 9000, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 8), CES_OK);
    for (uint64_t k = 0; k < 9000; k++)
        op(g, 0, CP(0, 2, 0, k, 3, 0, k, 1));
    building_stops(ctx, &st, g, at, 72000);
}

/* The sweep of the data accesses (data_ends: each map's, sorted, for the
 * accesses that can conflict) read no clock, and a bound that passed in
 * that sweep was seen by the search only.  It now ticks for each segment
 * and access: the building stops in the sweep with the bound's message. */
static void test_time_bound_data_sweep(void **state)
{
    (void)state;
    data_accesses_stop("sweeping the data accesses");
}

/* The sort of the data accesses by map and start (data_ends) was qsort(3),
 * which reads no clock: a bound that passed in it was seen in the sweep
 * after it only.  It is now sort_late, a step of its own: the building
 * stops there with the bound's message. */
static void test_time_bound_data_sort(void **state)
{
    (void)state;
    data_accesses_stop("sorting the data accesses");
}

/* The produces and the consumes with '==' of every replay were sorted for
 * expected_runs by qsort(3), which reads no clock: 6 million of them (one
 * rank's 2,000 produces and a consume, replayed 3,000 times) took 2.1 s,
 * so `cesync check --max-seconds 1.6` stopped at 3.9 s.  The sort now
 * ticks for each item a partition passes, a step of its own: a graph
 * phase of a produce, a copy and a consume replayed 100,000 times, the
 * progress sleeping past a bound of 1 s at its first line in the sort,
 * and the building stops there with the bound's message. */
static void test_time_bound_expected_sort(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 1);

    (void)state;
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 100000), CES_OK);
    op(g, 0, PR(0, SEND, 0, 0, 16));
    op(g, 0, CP(0, SEND, 0, 0, RECV, 0, 0, 16));
    op(g, 0, CO(0, RECV, 0, 0, 16, SEND, 0, 0));
    building_stops(ctx, &st, g, "sorting the expected data", 300000);
}

/* An item of test_sort_late_as_qsort: a key with ties and the item's
 * place before the sort (unique, so that the order by both is total). */
struct sort_item {
    uint64_t key;
    uint32_t at, pad;
};

static uint64_t sort_cmps;

static int cmp_sort_key(const void *pa, const void *pb)
{
    const struct sort_item *a = pa, *b = pb;

    sort_cmps++;
    return a->key < b->key ? -1 : a->key > b->key;
}

static int cmp_sort_item(const void *pa, const void *pb)
{
    const struct sort_item *a = pa, *b = pb;
    int c = cmp_sort_key(pa, pb);

    return c != 0 ? c : a->at < b->at ? -1 : a->at > b->at;
}

/* McIlroy's adversary ("A killer adversary for quicksort", 1999): the
 * values of the items (indices into sort_val) are fixed only as a sort
 * compares them, each pair of unfixed ones so that the pivot candidate
 * stays the least; sort_gas marks an unfixed one. */
static uint32_t *sort_val, sort_gas, sort_fixed, sort_cand;

static int cmp_sort_killer(const void *pa, const void *pb)
{
    uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;

    sort_cmps++;
    if (sort_val[x] == sort_gas && sort_val[y] == sort_gas)
        sort_val[x == sort_cand ? x : y] = sort_fixed++;
    if (sort_val[x] == sort_gas)
        sort_cand = x;
    else if (sort_val[y] == sort_gas)
        sort_cand = y;
    return sort_val[x] < sort_val[y] ? -1 : sort_val[x] > sort_val[y];
}

/* ces_sim_sort_late, the building's sort that reads the time bound, gives
 * what qsort(3) gives for an order that is total (the building's are: a
 * sequence number, an index or a position breaks the ties), and sorts by
 * an order with ties: sizes 0 to 5,000 (its insertion sort under 16
 * items, its partitions above), random keys of 8 and 1,000 values, all
 * equal, sorted, reversed, organ-pipe and sawtooth.  The adversary that
 * drives a quicksort of median of three to n^2 / 4 comparisons gets its
 * heapsort, under 5 n log2 n of them for 20,000 items; a passed bound
 * stops it at its first partition, every item still there. */
static void test_sort_late_as_qsort(void **state)
{
    static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 15, 16, 17, 18, 33, 100, 1000, 5000};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 1);
    struct ces_check_opts o;
    struct sim_model *m = NULL;
    struct sort_item *a = malloc(5000 * sizeof(*a)), *b = malloc(5000 * sizeof(*b));
    uint32_t *k = malloc(20000 * sizeof(*k));
    uint64_t rng = 71, lg = 0;

    (void)state;
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(k);
    op(g, 0, K(CES_OP_FENCE, 0));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_check_opts_init(&o);
    assert_int_equal(ces_sim_model_build(ctx, g, &o, ces_graph_streams(g), &m, NULL), CES_OK);
    for (int kind = 0; kind < 7; kind++) {
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
            size_t n = sizes[si];

            for (size_t i = 0; i < n; i++) {
                uint64_t v = kind == 0 ? (rng = rng * 6364136223846793005u + 1) >> 61
                           : kind == 1 ? (rng = rng * 6364136223846793005u + 1) >> 33
                           : kind == 2 ? 7
                           : kind == 3 ? i
                           : kind == 4 ? n - i
                           : kind == 5 ? (i < n / 2 ? i : n - i)
                                       : i % 2 == 0 ? i : n - i;

                a[i] = (struct sort_item){v % 1000, (uint32_t)i, 0};
            }
            memcpy(b, a, n * sizeof(*a));
            qsort(b, n, sizeof(*b), cmp_sort_item);
            assert_int_equal(ces_sim_sort_late(m, a, n, sizeof(*a), cmp_sort_item), CES_OK);
            assert_memory_equal(a, b, n * sizeof(*a));
            /* by the key alone: sorted, and the same items */
            for (size_t i = 0; i < n; i++)
                a[i] = b[(i * 7919) % n];
            assert_int_equal(ces_sim_sort_late(m, a, n, sizeof(*a), cmp_sort_key), CES_OK);
            for (size_t i = 1; i < n; i++)
                assert_true(a[i - 1].key <= a[i].key);
            qsort(a, n, sizeof(*a), cmp_sort_item);
            assert_memory_equal(a, b, n * sizeof(*a));
        }
    }
    sort_val = malloc(20000 * sizeof(*sort_val));
    assert_non_null(sort_val);
    sort_gas = 20000;
    for (uint32_t i = 0; i < 20000; i++) {
        k[i] = i;
        sort_val[i] = sort_gas;
    }
    sort_cmps = 0;
    assert_int_equal(ces_sim_sort_late(m, k, 20000, sizeof(*k), cmp_sort_killer), CES_OK);
    for (size_t x = 20000; x > 1; x /= 2)
        lg++;
    assert_true(sort_cmps < 5 * 20000 * lg);
    for (uint32_t i = 1; i < 20000; i++)
        assert_true(sort_val[k[i - 1]] < sort_val[k[i]]);
    /* a passed bound: SIM_LATE, the items only moved */
    for (size_t i = 0; i < 5000; i++)
        b[i] = a[i] = (struct sort_item){5000 - i, (uint32_t)i, 0};
    m->timed_out = true;
    assert_int_equal(ces_sim_sort_late(m, a, 5000, sizeof(*a), cmp_sort_item), SIM_LATE);
    m->timed_out = false;
    qsort(a, 5000, sizeof(*a), cmp_sort_item);
    qsort(b, 5000, sizeof(*b), cmp_sort_item);
    assert_memory_equal(a, b, 5000 * sizeof(*a));
    free(sort_val);
    free(k);
    free(b);
    free(a);
    ces_sim_model_destroy(m);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The model whose ticks cmp_sort_ticked watches, the ticks it saw last,
 * and those of the partitions (each more than 64 items for the adversary
 * of 2,000; the heap ticks 64 at a time): their sum and the last one. */
static const struct sim_model *sort_m;
static uint32_t sort_ticks, sort_part_ticks, sort_last_part;

static int cmp_sort_ticked(const void *pa, const void *pb)
{
    uint32_t d = sort_m->ticks - sort_ticks;

    assert_true(d == 0 || d == 64 || d > 1000);
    if (d > 64) {
        sort_part_ticks += d;
        sort_last_part = d;
    }
    sort_ticks = sort_m->ticks;
    return cmp_sort_killer(pa, pb);
}

/* McIlroy's adversary of n items afresh in k[0, n) (sort_val: n entries),
 * the ticks of m from `ticks` on. */
static void sort_killer_reset(struct sim_model *m, uint32_t *k, uint32_t n, uint32_t ticks)
{
    sort_gas = n;
    sort_fixed = sort_cand = 0;
    for (uint32_t i = 0; i < n; i++) {
        k[i] = i;
        sort_val[i] = sort_gas;
    }
    m->ticks = sort_ticks = ticks;
    sort_part_ticks = sort_last_part = 0;
    sort_m = m;
}

/* ces_sim_sort_late's heapsort ticks the time bound for each item its
 * build sifts down, as its partitions tick for each item they pass: the
 * adversary of 2,000 items takes it to its heap after 2 log2 n partitions
 * (P ticks, the last of s items), and where the bound has passed and the
 * ticks are s + 1 short of the clock's next reading after them, the
 * heap's build and extraction (1.5 times its s - 2 or so items) reach that
 * reading, SIM_LATE, every item still there.  Its build read no clock: the
 * sort went on to the end (the extraction alone s - 64 ticks at most) and
 * gave CES_OK past the bound. */
static void test_sort_late_heap_bound(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 1);
    struct ces_check_opts o;
    struct sim_model *m = NULL;
    uint32_t *k = malloc(2000 * sizeof(*k)), p, s;

    (void)state;
    sort_val = malloc(2000 * sizeof(*sort_val));
    assert_non_null(k);
    assert_non_null(sort_val);
    op(g, 0, K(CES_OP_FENCE, 0));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_check_opts_init(&o);
    assert_int_equal(ces_sim_model_build(ctx, g, &o, ces_graph_streams(g), &m, NULL), CES_OK);
    /* no bound: the partitions' ticks, and the heap's (built and given out) */
    sort_killer_reset(m, k, 2000, 0);
    assert_int_equal(ces_sim_sort_late(m, k, 2000, sizeof(*k), cmp_sort_ticked), CES_OK);
    for (uint32_t i = 1; i < 2000; i++)
        assert_true(sort_val[k[i - 1]] < sort_val[k[i]]);
    p = sort_part_ticks;
    s = sort_last_part;
    assert_true(p + s < 65536 && s > 1900);
    assert_true(m->ticks - p >= s + s / 2 - 200);
    /* a passed bound, the clock read next at the 65,536th tick */
    sort_killer_reset(m, k, 2000, 65536 - p - s - 1);
    m->deadline = 1e-9;
    assert_int_equal(ces_sim_sort_late(m, k, 2000, sizeof(*k), cmp_sort_ticked), SIM_LATE);
    assert_int_equal(sort_part_ticks, p);
    assert_true(m->timed_out);
    m->timed_out = false;
    m->deadline = 0;
    memset(sort_val, 0, 2000 * sizeof(*sort_val)); /* each item once */
    for (uint32_t i = 0; i < 2000; i++)
        assert_int_equal(sort_val[k[i]]++, 0);
    free(sort_val);
    free(k);
    ces_sim_model_destroy(m);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* spent_seconds (`cesync check` passes the seconds its expansion of the
 * schedule took): the time bound leaves the check what they left, and a
 * check they left none stops before its search, the message saying so;
 * a value that is no finite number >= 0 is refused. */
static void test_time_bound_spent(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, "cesync 1\nranks 1\nsignal f u32 1\n"
                                                   "phase graph x2000000\n"
                                                   "r0 : write f[0] = 1\n");
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;

    (void)state;
    ces_check_opts_init(&o);
    o.max_seconds = 600;
    o.spent_seconds = 600;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "time bound 600 s reached before the search (600 s of it spent before "
                        "the check): the checker's model (1 stream, 2000000 ops unrolled) was "
                        "not built by then");
    assert_int_equal(ces_check_report_stats(r).states, 0);
    ces_check_report_destroy(r);
    /* what they left is the check's: it finishes */
    o.spent_seconds = 1;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
    ces_check_report_destroy(r);
    o.spent_seconds = -1;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "check options: spent_seconds must be a finite number >= 0");
    ces_graph_destroy(g);
    /* a model too small for its building to look at the clock: the
     * search stops as its initial state is made (it stored that state and
     * stopped at its first look after it: the bound did not hold the
     * search's start-up), the random walks alike, and a `connections any`
     * check's first assignment as the search does, the others unsearched
     * (each ran to the end with the bound whole) */
    g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nstreams 2\nconnections any\n"
                                 "signal f u32 1\nphase eager x1\nr0 : write f[0]@1 = 1\n"
                                 "r0 s1 : write f[0]@1 = 2\nr1 : wait f[0] >= 1\n");
    for (int c = 0; c < 3; c++) {
        uint32_t map[4] = {0, 0, 0, 0};

        o.spent_seconds = 600;
        o.random = c == 1 ? 10 : 0;
        o.queue_map = c < 2 ? map : NULL;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
        assert_int_equal(c == 1 ? ces_check_report_stats(r).executions
                                : ces_check_report_stats(r).states,
                         0);
        ces_check_report_destroy(r);
        o.spent_seconds = 0;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
        ces_check_report_destroy(r);
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The seconds a progress call was given, and those its first call slept
 * (0.2 s) before the later ones. */
struct since_seen {
    double slept;
    int calls;
    int short_calls; /* calls whose seconds were fewer than those slept */
};

static void since_progress_seen(void *ud, const struct ces_check_stats *s)
{
    struct since_seen *seen = ud;
    struct timespec pause = {0, 200000000};

    seen->short_calls += s->seconds < seen->slept;
    if (seen->calls++ == 0) {
        nanosleep(&pause, NULL);
        seen->slept = 0.2;
    }
}

/* Progress calls count their seconds from the check's call, the start its
 * time bound counts from: a `connections any` check's second assignment
 * (one rank's two streams, each a write, on one queue or two) says the
 * 0.2 s its first one's first call slept, where its search's clock began
 * at 0 again (its seconds fewer than those already spent).  A delay
 * fault's derivation counts so too, before the model's clock begins. */
static void test_progress_since_call(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, "cesync 1\nranks 1\nstreams 2\n"
                                                   "connections any\nsignal f u32 1\n"
                                                   "phase eager x1\nr0 : write f[0] = 1\n"
                                                   "r0 s1 : write f[0] = 2\n");
    struct since_seen seen = {0, 0, 0};
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;

    (void)state;
    ces_check_opts_init(&o);
    o.progress = since_progress_seen;
    o.progress_ud = &seen;
    o.progress_seconds = 1e-9;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
    assert_true(seen.calls >= 2);
    assert_int_equal(seen.short_calls, 0);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* An allocator that keeps the bytes held and the most held at once (each
 * block headed by its size). */
struct held_alloc {
    size_t held, peak;
};

static void *held_realloc(void *ud, void *ptr, size_t size)
{
    struct held_alloc *h = ud;
    size_t *b = ptr != NULL ? (size_t *)ptr - 2 : NULL;
    size_t old = b != NULL ? b[0] : 0;

    b = realloc(b, size + 2 * sizeof(size_t));
    if (b == NULL)
        return NULL;
    b[0] = size;
    h->held += size - old;
    if (h->held > h->peak)
        h->peak = h->held;
    return b + 2;
}

static void *held_malloc(void *ud, size_t size)
{
    return held_realloc(ud, NULL, size);
}

static void held_free(void *ud, void *ptr)
{
    struct held_alloc *h = ud;

    if (ptr == NULL)
        return;
    h->held -= ((size_t *)ptr - 2)[0];
    free((size_t *)ptr - 2);
}

/* The search's start-up within the bounds, its initial state made once.
 * 256 ranks, a state of 515 KiB: under the least memory bound that holds
 * the model and the reduction's scratch, the initial state is refused and
 * what the check holds at most stays within the bound (the classes the
 * bound left open were judged from an initial state made past it: 860 KB
 * held under a bound of 560 KiB, and under what --max-memory allows a
 * search of 512 streams held 811 MiB more), a DEADLOCK left open, no state
 * to judge it by.  Where the time bound has passed, a model too small for
 * its building to read the clock is built and its initial state is not
 * made (it was, and stored, the search stopping at its first look after
 * it). */
static void test_bound_initial_state(void **state)
{
    struct held_alloc h = {0, 0};
    struct ces_alloc hooks = {held_malloc, held_realloc, held_free, &h};
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g;
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    size_t base;

    (void)state;
    assert_int_equal(ces_ctx_create(&hooks, &ctx), CES_OK);
    g = ces_test_text_graph(ctx, "cesync 1\nranks 256\nsignal f u32 1\nphase eager x1\n"
                                 "r1 : write f[0]@0 = 1\nr1 : write f[0]@0 = 0\n"
                                 "r2 : write f[0]@0 = 1\nr2 : write f[0]@0 = 0\n"
                                 "r3 : write f[0]@0 = 1\nr3 : write f[0]@0 = 0\n"
                                 "r4 : write f[0]@0 = 1\nr4 : write f[0]@0 = 0\n"
                                 "r0 : wait f[0] == 1\n");
    ces_check_opts_init(&o);
    /* the least bound that holds the model and the reduction's scratch but
     * not the initial state besides */
    for (o.max_memory = 4096;; o.max_memory += 4096) {
        assert_true(o.max_memory < (UINT64_C(8) << 20));
        base = h.held;
        h.peak = h.held;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        if (strstr(ces_ctx_last_error(ctx), "the initial state needs") != NULL)
            break;
        ces_check_report_destroy(r);
    }
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_int_equal(ces_check_report_stats(r).states, 0);
    assert_true(h.peak - base <= o.max_memory);
    /* no state to judge a DEADLOCK by */
    assert_int_equal(ces_check_report_open(r), CES_V_DEADLOCK | CES_V_HANG);
    ces_check_report_destroy(r);
    /* the time bound passed before the search: no initial state */
    ces_graph_destroy(g);
    g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nsignal f u32 1\nphase eager x1\n"
                                 "r0 : write f[0]@1 = 1\nr1 : wait f[0] >= 1\n");
    ces_check_opts_init(&o);
    o.max_seconds = 1;
    o.spent_seconds = 1;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_int_equal(ces_check_report_stats(r).states, 0);
    assert_int_equal(ces_check_report_stats(r).transitions, 0);
    assert_int_equal(ces_check_report_open(r), CES_V_DEADLOCK | CES_V_HANG);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    assert_int_equal(h.held, 0);
}

/* The same message for one stream, one slot and one op: each counted in
 * the singular ("1 streams, 1 signal slots" was written). */
static void test_memory_bound_model_one(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 1, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U32, 1, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, UINT32_MAX - 1), CES_OK);
    op(g, 0, W(0, 0, 0, 0, 1));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_check_opts_init(&o);
    o.max_memory = (uint64_t)64 << 20;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "memory bound 64.0 MiB reached before the search: the checker's model "
                        "(1 stream, 1 signal slot, 4294967294 ops unrolled) needs more than "
                        "96.00 GiB and each state 80 B");
    assert_int_equal(ces_check_report_open(r),
                     CES_V_DEADLOCK | CES_V_HANG | CES_V_RACE | CES_V_MISMATCH);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    assert_int_equal(st.live, 0);
}

/* Checks g under o's memory bound, which the model's building must stop at
 * with msg, holding (in h) no more than the bound; then without a bound,
 * where it passes and its peak memory counts more than 24 MiB. */
static void model_bound_then_none(struct ces_ctx *ctx, const struct ces_graph *g,
                                  struct held_alloc *h, struct ces_check_opts *o,
                                  const char *msg)
{
    struct ces_check_report *r = NULL;
    size_t base = h->held;

    h->peak = h->held;
    assert_int_equal(ces_check(ctx, g, o, &r), CES_OK);
    assert_true(h->peak - base <= o->max_memory);
    assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
    assert_int_equal(ces_check_report_stats(r).states, 0);
    assert_true(ces_check_report_stats(r).peak_memory <= o->max_memory);
    assert_string_equal(ces_ctx_last_error(ctx), msg);
    ces_check_report_destroy(r);
    o->max_memory = 0;
    assert_int_equal(ces_check(ctx, g, o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
    assert_true(ces_check_report_stats(r).peak_memory > (UINT64_C(24) << 20));
    ces_check_report_destroy(r);
}

/* The runs of generations that the consumes with '==' expect grow under
 * the memory bound: 1,000 produces of every other byte of a buffer, then
 * 1,000 consumes of its first 2,000 - i bytes, expect 2,000 - i runs each,
 * 1.5 million in all (36 MB; 500 such produces and a consume of the whole
 * buffer replayed 1,000 times expected a million, which the replays now
 * share); under a
 * bound of 4 MiB the model's building stops with the bound's message and
 * holds no more than the bound (it held 25.3 MB of the replays' million:
 * the runs grew unbounded and were weighed once they stood).  Unbounded,
 * the check passes and its peak counts the runs. */
static void test_memory_bound_expected_runs(void **state)
{
    struct held_alloc h = {0, 0};
    struct ces_alloc hooks = {held_malloc, held_realloc, held_free, &h};
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g;
    struct ces_check_opts o;
    uint32_t big;

    (void)state;
    assert_int_equal(ces_ctx_create(&hooks, &ctx), CES_OK);
    g = mk(ctx, 1, 1);
    assert_int_equal(ces_graph_add_buffer(g, "big", 2000, &big), CES_OK);
    for (uint64_t k = 0; k < 1000; k++)
        op(g, 0, PR(0, big, 0, 2 * k, 2 * k + 1));
    for (uint64_t i = 0; i < 1000; i++)
        op(g, 0, CO(0, big, 0, 0, 2000 - i, big, 0, 0));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_check_opts_init(&o);
    o.max_memory = (uint64_t)4 << 20;
    model_bound_then_none(ctx, g, &h, &o,
                          "memory bound 4.0 MiB reached before the search: the checker's model "
                          "(1 stream, 8 signal slots, 2000 ops unrolled) needs more than 6.1 MiB "
                          "and each state 868 B");
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    assert_int_equal(h.held, 0);
}

/* The model of g (built alone): how many lists of expected runs, how
 * many runs, and whether every consume with '==' takes one of them; the
 * runs that ces_sim_runs_check counts as kept are those (the building's
 * count before it keeps any), a bound of one fewer refused with its
 * message, and the same of the sweep that keeps them (the bound passed
 * at the last list it keeps). */
static void runs_of(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t lists, size_t runs)
{
    struct ces_check_opts o;
    struct sim_model *m = NULL;
    uint32_t consumes = 0;
    uint64_t kept = 0;
    char want[320];

    ces_check_opts_init(&o);
    assert_int_equal(ces_sim_model_build(ctx, g, &o, ces_graph_streams(g), &m, NULL), CES_OK);
    for (uint32_t p = 0; p < m->nproc; p++) {
        for (uint32_t k = 0; k < m->len[p]; k++) {
            const struct sim_op *x = &m->ops[p][k];

            if (x->op->kind == CES_OP_CONSUME && (x->op->flags & CES_OPF_EXPECT)) {
                assert_true(x->aux < lists);
                consumes++;
            }
        }
    }
    assert_true(consumes > 0);
    assert_int_equal(m->exp_at[lists], runs);
    assert_int_equal(m->nruns, runs);
    snprintf(want, sizeof(want), "the consumes with '==' keep %zu runs of generations (a run: "
             "bytes of one buffer produced in one iteration) in their lists of the runs they "
             "expect once graph replays are unrolled; the checker takes at most %zu", runs,
             runs - 1);
    for (int keep = 0; keep < 2; keep++) {
        assert_int_equal(ces_sim_runs_check(m, (uint32_t)runs, keep, &kept), CES_OK);
        assert_int_equal(kept, runs);
        assert_int_equal(ces_sim_runs_check(m, (uint32_t)runs - 1, keep, &kept),
                         CES_ERR_LIMIT);
        assert_int_equal(kept, runs);
        assert_string_equal(ces_ctx_last_error(ctx), want);
    }
    ces_sim_model_destroy(m);
}

/* The replays of a consume with '==' that expect the same runs share one
 * list of them: 500 produces of every other byte of a buffer, then a
 * consume of the whole buffer replayed 1,000 times, keep 1,000 runs, not a
 * million (24 MB, each replay's list its own: under a bound of 4 MiB the
 * model's building stopped, the check INCOMPLETE), unread after the first
 * (no produce came between); 50 such produces in the graph phase, each
 * replay's consume expecting the data of its own replay, keep 100 runs,
 * the produced ones relative to the consume's iteration (SIM_RUN_REL;
 * 100,000 before); both check OK under 4 MiB.  A consume in a graph
 * phase that finds the data of the replay before (its copy comes after the
 * produce and the consume) is a MISMATCH whose expected generation is its
 * own iteration, the list's relative run read back as that. */
static void test_expected_runs_shared(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g;
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    const struct ces_check_defect *d;
    uint32_t big;

    (void)state;
    for (int inside = 0; inside < 2; inside++) {
        uint64_t n = inside ? 50 : 500;

        g = mk(ctx, 1, 1);
        assert_int_equal(ces_graph_add_buffer(g, "big", 2 * n, &big), CES_OK);
        if (inside)
            assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 1000), CES_OK);
        for (uint64_t k = 0; k < n; k++)
            op(g, 0, PR(0, big, 0, 2 * k, 2 * k + 1));
        if (!inside)
            assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 1000), CES_OK);
        op(g, 0, CO(0, big, 0, 0, 2 * n, big, 0, 0));
        assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
        runs_of(ctx, g, 1, 2 * n);
        ces_check_opts_init(&o);
        o.max_memory = (uint64_t)4 << 20;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
        assert_true(ces_check_report_stats(r).peak_memory < ((uint64_t)4 << 20));
        ces_check_report_destroy(r);
        ces_graph_destroy(g);
    }
    /* iteration 1 produces and copies; each replay (iterations 2 to 4)
     * consumes, then produces and copies */
    g = mk(ctx, 1, 1);
    op(g, 0, PR(0, SEND, 0, 0, 16));
    op(g, 0, CP(0, SEND, 0, 0, RECV, 0, 0, 16));
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 3), CES_OK);
    op(g, 0, CO(0, RECV, 0, 0, 16, SEND, 0, 0));
    op(g, 0, PR(0, SEND, 0, 0, 16));
    op(g, 0, CP(0, SEND, 0, 0, RECV, 0, 0, 16));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    runs_of(ctx, g, 1, 1);
    r = check2(ctx, g, NULL, CES_V_MISMATCH);
    d = find(r, CES_V_MISMATCH);
    assert_int_equal(d->mismatch.pos.index, 2);
    assert_int_equal(d->mismatch.expected.gen, 2);
    assert_int_equal(d->mismatch.found.gen, 1);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The data accesses whose sweep finds each process's last one that can
 * conflict (data_ends) are held under the memory bound, with the table of
 * an op's accesses already pushed and the sweep's counts and scratch: a
 * graph phase of 9,000 one-byte copies replayed 20 times, more distinct
 * ops than that table keeps, pushes two accesses for each of its 180,000
 * unrolled copies (11 MB) and sorts each buffer's in a block of 48 bytes
 * an access (8.6 MB); under a bound of 16 MiB, which the rest of the
 * model fits, the building stops with the bound's message, 12.8 MB held
 * at most (29.7 MB, the accesses grown and the blocks allocated beside
 * the bound, and the check went on, its peak memory 5.6 MiB).  Unbounded,
 * the check passes and its peak counts them. */
static void test_memory_bound_data_ends(void **state)
{
    struct held_alloc h = {0, 0};
    struct ces_alloc hooks = {held_malloc, held_realloc, held_free, &h};
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g = NULL;
    struct ces_check_opts o;

    (void)state;
    assert_int_equal(ces_ctx_create(&hooks, &ctx), CES_OK);
    g = mk(ctx, 1, 1);
    assert_int_equal(ces_graph_add_buffer(g, "a", 9000, NULL), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "b", 9000, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 20), CES_OK);
    for (uint64_t k = 0; k < 9000; k++)
        op(g, 0, CP(0, 2, 0, k, 3, 0, k, 1));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_check_opts_init(&o);
    o.max_memory = (uint64_t)16 << 20;
    o.max_states = 1;
    model_bound_then_none(ctx, g, &h, &o,
                          "memory bound 16.0 MiB reached before the search: the checker's model "
                          "(1 stream, 8 signal slots, 180000 ops unrolled) needs more than 20.2 "
                          "MiB and each state 1.1 KiB");
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    assert_int_equal(h.held, 0);
}

/* Bounds that stop the search itself, in every mode, from too small for
 * the visited set up to enough: either the verdict of the unbounded check
 * or INCOMPLETE with the message naming what needed the memory, and the
 * largest (2 MiB) always enough; nothing leaks on any of the early
 * exits. */
/* The record and link clocks lie in pages that states share (state.c):
 * the memory bound counts each page once beside the states, and its
 * message says the pages' bytes where the search holds any (a rank's two
 * streams handing a copy over by an event, replayed 40 times: the link and
 * record clocks live to the end), and nothing of them where a schedule has
 * none (one stream a rank). */
static void test_memory_bound_rclk_pages(void **state)
{
    static const char *const text[2] = {
        "cesync 1\nranks 2\nstreams 2\nbuffer x 64\nbuffer y 64\nbuffer z 64\n"
        "signal f u32 1\nphase graph x40\nr* : write f[0] = 1\n"
        "r* s1 : copy x[0:64] -> y[0:64]\nr* s1 : record e\nr* s0 : await e\n"
        "r* s0 : copy y[0:64] -> z[0:64]\nr* : wait f[0] == 1\nr* : write f[0] = 0\n",
        "cesync 1\nranks 2\nbuffer x 64\nbuffer y 64\nsignal f u32 1\nphase eager x40\n"
        "r* : write f[0] = 1\nr* : copy x[0:64] -> y[0:64]\nr* : wait f[0] == 1\n"
        "r* : write f[0] = 0\n"};

    (void)state;
    for (int k = 0; k < 2; k++) {
        struct ces_test_alloc st;
        struct ces_ctx *ctx = ces_test_ctx(&st);
        struct ces_graph *g = ces_test_text_graph(ctx, text[k]);
        struct ces_check_opts o;
        struct ces_check_report *r = NULL;
        uint64_t peak;
        int said = 0, stopped = 0;

        ces_check_opts_init(&o);
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
        peak = ces_check_report_stats(r).peak_memory;
        ces_check_report_destroy(r);
        for (o.max_memory = peak / 2; o.max_memory < peak; o.max_memory += peak / 64) {
            const char *msg;

            ces_ctx_error(ctx, CES_OK, "%s", "");
            assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
            msg = ces_ctx_last_error(ctx);
            if (ces_check_report_verdict(r) & CES_V_INCOMPLETE) {
                stopped++;
                assert_memory_equal(msg, "memory bound ", 13);
                said += strstr(msg, " and their record clocks' pages ") != NULL;
            }
            ces_check_report_destroy(r);
        }
        assert_true(stopped > 0);
        if (k == 0)
            assert_true(said > 0);
        else
            assert_int_equal(said, 0);
        ces_graph_destroy(g);
        ces_test_ctx_end(ctx, &st);
    }
}

static void test_memory_bound_search(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, true);
    struct ces_fault stop = {CES_FAULT_STOP, 0, 0, 2};
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;

    (void)state;
    for (int mode = 0; mode < 4; mode++) {
        uint32_t full;

        ces_check_opts_init(&o);
        o.random = mode == 1 ? 3 : 0;
        o.replay = mode == 2 ? "0.1" : NULL;
        if (mode == 3) {
            o.flags = CES_CHECK_ABORT;
            o.faults = &stop;
            o.nfaults = 1;
        }
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        full = ces_check_report_verdict(r);
        ces_check_report_destroy(r);
        /* both ranks wait first: a DEADLOCK, which the watchdog model ends */
        assert_int_equal(full, mode == 3 ? CES_V_OK : CES_V_DEADLOCK);
        for (uint64_t kib = 1; kib <= 2048; kib *= 2) {
            const char *msg;

            o.max_memory = kib << 10;
            ces_ctx_error(ctx, CES_OK, "%s", "");
            assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
            msg = ces_ctx_last_error(ctx);
            /* 2 MiB holds every mode's search */
            if (kib == 2048)
                assert_int_equal(ces_check_report_verdict(r), full);
            if (ces_check_report_verdict(r) & CES_V_INCOMPLETE) {
                assert_false(ces_check_report_stats(r).complete);
                assert_memory_equal(msg, "memory bound ", 13);
            } else {
                assert_int_equal(ces_check_report_verdict(r), full);
                assert_string_equal(msg, "");
            }
            ces_check_report_destroy(r);
        }
        /* the visited set's first table is 4 KiB (it was 1 MiB), and the
         * wait-for scratch is sized to the model (it was 458 KiB for every
         * model): the search of a few states holds under 128 KiB */
        if (mode == 0) {
            uint64_t peak;
            int stack = 0, table = 0;

            o.max_memory = 0;
            assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
            assert_int_equal(ces_check_report_verdict(r), full);
            peak = ces_check_report_stats(r).peak_memory;
            assert_true(peak < (128u << 10));
            ces_check_report_destroy(r);
            /* every bound of the last 24 KiB below that peak, 128 bytes
             * apart: the search's first allocations each stop it in turn,
             * the search stack's first frames too (a bound that refused
             * them crashed the search: it read the frame it was refused),
             * and the peak stays within the bound */
            for (uint64_t b = peak - (24u << 10); b < peak; b += 128) {
                const char *msg;

                o.max_memory = b;
                ces_ctx_error(ctx, CES_OK, "%s", "");
                assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
                assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
                assert_true(ces_check_report_stats(r).peak_memory <= b);
                msg = ces_ctx_last_error(ctx);
                assert_memory_equal(msg, "memory bound ", 13);
                stack += strstr(msg, " 0 states: growing the search stack needs ") != NULL;
                table += strstr(msg, " 0 states: growing the visited set needs 4.0 KiB ") != NULL;
                ces_check_report_destroy(r);
            }
            assert_true(stack > 0);
            assert_true(table > 0);
        }
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A fault sweep runs a check per fault, each with a visited set of its
 * own: none asks for a block as large as the visited set's first table
 * was (1 MiB, cleared in every check: under AddressSanitizer most of the
 * sweep's time went to the page faults of clearing it).  The largest block
 * now is the reduction's scratch, under 512 KiB. */
static void test_sweep_table_small(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, false);
    struct ces_check_sweep_row *rows = NULL;
    struct ces_check_sweep_rest rest;
    size_t n = 0;

    (void)state;
    assert_int_equal(ces_check_fault_sweep(ctx, g, NULL, &rows, &n, &rest), CES_OK);
    assert_int_equal(n, 22);
    assert_true(st.largest < (1u << 19));
    /* every fault but a delay leaves the other rank waiting: a HANG the
     * watchdog ends */
    for (size_t i = 0; i < n; i++) {
        bool delay = rows[i].fault.kind == CES_FAULT_DELAY;

        assert_int_equal(rows[i].verdict, delay ? CES_V_OK : CES_V_HANG);
        assert_int_equal(rows[i].verdict_abort, CES_V_OK);
        assert_int_equal(rows[i].aborted, delay ? 0 : 1);
    }
    ces_free(ctx, rows);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The time bound of a fault sweep is the whole sweep's (each of its
 * checks had the whole bound, and a schedule replayed a million times made
 * millions of faults of seconds each): spent before the sweep, it checks
 * nothing, and says so, every fault in the rest (never OK); with time
 * left, it checks every one. */
/* sweep_seen, its first call sleeping 1.1 s: past a bound of 1 s. */
static void sweep_seen_late(void *ud, size_t done, size_t total, double seconds)
{
    struct sweep_seen *w = ud;

    sweep_seen(ud, done, total, seconds);
    if (w->calls == 1)
        ces_test_sleep_ms(1100);
}

static void test_sweep_time_bound(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, false);
    struct ces_check_sweep_row *rows = NULL;
    struct ces_check_sweep_rest rest, part;
    struct sweep_seen seen = {0};
    struct ces_check_opts o;
    size_t n = 0;
    char *t = NULL;

    (void)state;
    ces_check_opts_init(&o);
    o.max_seconds = 600;
    o.spent_seconds = 600;
    assert_int_equal(ces_check_fault_sweep(ctx, g, &o, &rows, &n, &rest), CES_OK);
    assert_int_equal(n, 0);
    assert_null(rows);
    assert_int_equal(rest.n, 22);
    assert_int_equal(rest.kinds[CES_FAULT_DROP], 4);
    assert_int_equal(rest.kinds[CES_FAULT_DELAY], 4);
    assert_int_equal(rest.kinds[CES_FAULT_STOP], 14);
    assert_string_equal(rest.bound, "time");
    assert_int_equal(ces_check_sweep_text(ctx, rows, n, &rest, &t, NULL), CES_OK);
    assert_string_equal(t, "not checked (the time bound had passed): 22 faults, r0.s0#0 stop to "
                           "r1.s0#6 stop in position order\n");
    ces_free(ctx, t);
    /* time left: every fault checked, none left */
    o.spent_seconds = 0;
    assert_int_equal(ces_check_fault_sweep(ctx, g, &o, &rows, &n, &rest), CES_OK);
    assert_int_equal(n, 22);
    assert_int_equal(rest.n, 0);
    assert_null(rest.bound);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(rows[i].verdict,
                         rows[i].fault.kind == CES_FAULT_DELAY ? CES_V_OK : CES_V_HANG);
    /* the first two checked, the rest not: the table of the two, then the
     * line of the rest, its bound's */
    part = (struct ces_check_sweep_rest){20, {2, 14, 4}, rows[2].fault, rows[21].fault, "time"};
    assert_int_equal(ces_check_sweep_text(ctx, rows, 2, &part, &t, NULL), CES_OK);
    assert_string_equal(t, "position       fault verdict                with --abort\n"
                           "r0.s0#0        stop  HANG                   OK (watchdog fired in 1 "
                           "end state)\n"
                           "r0.s0#1        drop  HANG                   OK (watchdog fired in 1 "
                           "end state)\n"
                           "not checked (the time bound had passed): 20 faults, r0.s0#1 delay "
                           "to r1.s0#6 stop in position order\n");
    ces_free(ctx, t);
    part.bound = NULL; /* (a rest of faults says its bound) */
    assert_int_equal(ces_check_sweep_text(ctx, rows, 2, &part, &t, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_check_sweep_text: NULL argument");
    ces_free(ctx, rows);
    /* the bound passing just after a progress call (every fault's, here):
     * the faults checked are said once, not again at the bound (sweep_seen
     * fails a call that says no more than the last) */
    o.max_seconds = 1;
    o.progress_seconds = 1e-9;
    o.sweep_progress = sweep_seen_late;
    o.progress_ud = &seen;
    assert_int_equal(ces_check_fault_sweep(ctx, g, &o, &rows, &n, &rest), CES_OK);
    assert_int_equal(n, 1);
    assert_int_equal(rest.n, 21);
    assert_string_equal(rest.bound, "time");
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.last, 1);
    assert_int_equal(seen.total, 22);
    ces_free(ctx, rows);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The sweep makes each fault as its turn comes, counting the rest: it
 * listed every fault before its first check, a row each, so a graph phase
 * replayed a million times (the 2-rank barrier's 28 million faults) took
 * some 10 s and 1.1 GB (one block of 28 million rows) before it found the
 * time bound passed.  Now the rest is counted, its first and last fault
 * named, and nothing the size of the faults is allocated. */
static void test_sweep_unlisted(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g =
        coll_graph(ctx, CES_COLL_BARRIER, CES_PROTO_CREDIT, CES_PHASE_GRAPH, 2, 1000000);
    struct ces_check_sweep_row *rows = NULL;
    struct ces_check_sweep_rest rest;
    struct ces_check_opts o;
    size_t n = 1;
    char *t = NULL;

    (void)state;
    ces_check_opts_init(&o);
    o.max_seconds = 1;
    o.spent_seconds = 1;
    st.largest = 0;
    assert_int_equal(ces_check_fault_sweep(ctx, g, &o, &rows, &n, &rest), CES_OK);
    assert_true(st.largest < 4096);
    assert_int_equal(n, 0);
    assert_null(rows);
    assert_int_equal(rest.n, 28000000);
    assert_int_equal(rest.kinds[CES_FAULT_DROP], 8000000);
    assert_int_equal(rest.kinds[CES_FAULT_DELAY], 8000000);
    assert_int_equal(rest.kinds[CES_FAULT_STOP], 12000000);
    assert_int_equal(ces_check_sweep_text(ctx, rows, n, &rest, &t, NULL), CES_OK);
    assert_string_equal(t, "not checked (the time bound had passed): 28000000 faults, r0.s0#0 "
                           "drop to r1.s0#5999999 stop in position order\n");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The memory bound holds the sweep's rows and a check together: each
 * check has what the rows leave, and where one more row would not stay
 * below the bound, that fault and the rest are not checked, said as the
 * time bound's are.  Four ranks that write their pair's flag and wait for
 * their own have 16 faults; under 256 bytes 7 rows of 32 fit (a check left
 * 32 bytes: INCOMPLETE, its model refused), and the 9 after them are not
 * checked. */
static void test_sweep_memory_bound(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 4, 1);
    struct ces_check_sweep_row *rows = NULL;
    struct ces_check_sweep_rest rest;
    struct ces_check_opts o;
    size_t n = 0;
    char *t = NULL;

    (void)state;
    for (uint32_t r = 0; r < 4; r++) {
        op(g, r, W(0, F, r ^ 1, r, 1));
        op(g, r, WT(0, F, r, r ^ 1, CES_CMP_EQ, 1));
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_check_opts_init(&o);
    o.max_memory = 256;
    assert_int_equal(sizeof(*rows), 32);
    assert_int_equal(ces_check_fault_sweep(ctx, g, &o, &rows, &n, &rest), CES_OK);
    assert_int_equal(n, 7);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rows[i].verdict, CES_V_INCOMPLETE);
        assert_int_equal(rows[i].verdict_abort, CES_V_INCOMPLETE);
    }
    assert_int_equal(rest.n, 9);
    assert_int_equal(rest.kinds[CES_FAULT_DROP], 2);
    assert_int_equal(rest.kinds[CES_FAULT_DELAY], 2);
    assert_int_equal(rest.kinds[CES_FAULT_STOP], 5);
    assert_string_equal(rest.bound, "memory");
    assert_int_equal(ces_check_sweep_text(ctx, NULL, 0, &rest, &t, NULL), CES_OK);
    assert_string_equal(t, "not checked (the memory bound had been reached): 9 faults, r1.s0#1 "
                           "stop to r3.s0#1 stop in position order\n");
    ces_free(ctx, t);
    ces_free(ctx, rows);
    /* no bound: every fault, each check whole */
    o.max_memory = 0;
    assert_int_equal(ces_check_fault_sweep(ctx, g, &o, &rows, &n, &rest), CES_OK);
    assert_int_equal(n, 16);
    assert_int_equal(rest.n, 0);
    assert_int_equal(rows[0].verdict, CES_V_HANG);
    ces_free(ctx, rows);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A stop of a rank as a whole names the rank's op in enqueue order, a
 * 32-bit position like a stream's, though the rank's streams together may
 * hold more ops than one stream may: 2^31 replays of a fence on each of two
 * streams, then one more fence on s0, make stops r0#0 to r0#4294967295, the
 * last a position takes; one more fence on s1 would make a stop r0#4294967296,
 * which no fault names (the sweep counted it and named r0#0, its position
 * wrapped, as its last; 6 billion ops named r0#1705032702). */
static void test_sweep_rank_positions(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 2);
    struct ces_check_sweep_row *rows = NULL;
    struct ces_check_sweep_rest rest;
    struct ces_check_opts o;
    size_t n = 1;
    char *t = NULL;

    (void)state;
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, UINT32_C(1) << 31), CES_OK);
    op(g, 0, K(CES_OP_FENCE, 0));
    op(g, 0, K(CES_OP_FENCE, 1));
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    op(g, 0, K(CES_OP_FENCE, 0));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_check_opts_init(&o);
    o.max_seconds = 1;
    o.spent_seconds = 1;
    assert_int_equal(ces_check_fault_sweep(ctx, g, &o, &rows, &n, &rest), CES_OK);
    assert_int_equal(n, 0);
    assert_int_equal(rest.n, (UINT64_C(1) << 33) + 1);
    assert_int_equal(rest.kinds[CES_FAULT_STOP], rest.n);
    assert_int_equal(ces_check_sweep_text(ctx, rows, n, &rest, &t, NULL), CES_OK);
    assert_string_equal(t, "not checked (the time bound had passed): 8589934593 faults, r0.s0#0 "
                           "stop to r0#4294967295 stop in position order\n");
    ces_free(ctx, t);
    op(g, 0, K(CES_OP_FENCE, 1));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_check_fault_sweep(ctx, g, &o, &rows, &n, &rest), CES_ERR_LIMIT);
    assert_null(rows);
    assert_int_equal(n, 0);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r0: 4294967297 stops of the rank as a whole once graph replays are "
                        "unrolled (stop:r0#0 to stop:r0#4294967296); a fault's position takes "
                        "at most 4294967295");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The rows a check's memory bound is charged with are no more than the
 * sweep's faults: the 8 of `cesync check barrier --ranks 2` took 64 rows
 * (2 KiB) at once, so under 28,000 bytes each check had 25,952 and all 8
 * were INCOMPLETE, where with the 8 rows' 256 bytes charged 6 finish. */
static void test_sweep_rows_fit_faults(void **state)
{
    static const char src[] = "cesync 1\nranks 2\nstreams 1\nsignal ready u64 1\n"
                              "phase eager x1\n"
                              "r* : write ready[0] = $i\n"
                              "r* over p : wait ready[0]@$p >= $i\n";
    static const uint32_t want[8] = {CES_V_HANG, CES_V_INCOMPLETE, CES_V_HANG, CES_V_HANG,
                                     CES_V_HANG, CES_V_INCOMPLETE, CES_V_HANG, CES_V_HANG};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = NULL;
    struct ces_graph *g = NULL;
    struct ces_check_sweep_row *rows = NULL;
    struct ces_check_sweep_rest rest;
    struct ces_check_opts o;
    size_t n = 0;

    (void)state;
    assert_int_equal(ces_prog_parse(ctx, src, sizeof(src) - 1, NULL, &p), CES_OK);
    assert_int_equal(ces_prog_expand(ctx, p, &g), CES_OK);
    ces_check_opts_init(&o);
    o.max_memory = 28000;
    assert_int_equal(ces_check_fault_sweep(ctx, g, &o, &rows, &n, &rest), CES_OK);
    assert_int_equal(n, 8);
    assert_int_equal(rest.n, 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(rows[i].verdict, want[i]);
    ces_free(ctx, rows);
    ces_graph_destroy(g);
    ces_prog_destroy(p);
    ces_test_ctx_end(ctx, &st);
}

static void test_random_mode(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, true);
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    char *t;

    (void)state;
    ces_check_opts_init(&o);
    o.random = 5;
    o.seed = 7;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_DEADLOCK);
    assert_int_equal(ces_check_report_stats(r).executions, 5);
    assert_int_equal(ces_check_report_stats(r).mode, CES_CHECK_RANDOM);
    t = text_of(ctx, r);
    assert_memory_equal(t, "verdict: DEADLOCK\ncoverage: 5 random executions - a sample, not a "
                           "proof\n", 72);
    ces_free(ctx, t);
    replays(ctx, g, NULL, find(r, CES_V_DEADLOCK));
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* 2^31 replays of two ops: 2^32 positions, which do not fit the checker's
 * 32-bit positions (the count once wrapped to 0 and the unrolling wrote past
 * a one-op array). */
static void test_unrolled_too_long(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, 1);

    (void)state;
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, UINT32_C(1) << 31), CES_OK);
    op(g, 0, K(CES_OP_FENCE, 0));
    op(g, 0, K(CES_OP_FENCE, 0));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    /* (the fault sweep says so before it lists a fault at every position) */
    past_limit(ctx, g, "r0.s0: 4294967296 ops once graph replays are unrolled; the checker "
                       "takes at most 4294967294");
    /* one op fewer than the positions hold is refused too, before a fault
     * is listed (under an allocator of at most 64 MiB a block, which the
     * list of 4294967295 stops would pass) */
    {
        struct small_alloc a;
        struct ces_alloc h;
        struct ces_ctx *c2 = NULL;
        struct ces_graph *g2 = NULL;
        struct ces_check_sweep_row *rows = NULL;
        struct ces_check_sweep_rest rest;
        size_t n = 1;

        memset(&a, 0, sizeof(a));
        a.inner = ces_test_hooks(&a.count);
        h.malloc = small_malloc;
        h.realloc = small_realloc;
        h.free = small_free;
        h.ud = &a;
        assert_int_equal(ces_ctx_create(&h, &c2), CES_OK);
        assert_int_equal(ces_graph_create(c2, 1, 1, &g2), CES_OK);
        assert_int_equal(ces_graph_add_block(g2, CES_PHASE_GRAPH, UINT32_MAX), CES_OK);
        op(g2, 0, K(CES_OP_FENCE, 0));
        assert_int_equal(ces_graph_validate(g2, NULL), CES_OK);
        assert_int_equal(ces_check_fault_sweep(c2, g2, NULL, &rows, &n, &rest), CES_ERR_LIMIT);
        assert_string_equal(ces_ctx_last_error(c2),
                            "r0.s0: 4294967295 ops once graph replays are unrolled; the checker "
                            "takes at most 4294967294");
        assert_int_equal(a.refused, 0);
        ces_graph_destroy(g2);
        ces_ctx_destroy(c2);
        assert_int_equal(a.count.live, 0);
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* 2^31 replays of a record on s0 and an await on s1 and on s2: 2^32 awaits,
 * whose entries (an await's index in the model's table of records) do not
 * fit 32 bits, though each stream's 2^31 ops do.  Refused before any op's
 * record is allocated (the refusal came after them: under a bound of 1 GiB
 * the model's memory stopped the check first, INCOMPLETE, and without one
 * 144 GiB of records were cleared before the refusal). */
static void test_too_many_awaits(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 3);
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;

    (void)state;
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, UINT32_C(1) << 31), CES_OK);
    op(g, 0, EVOP(CES_OP_RECORD, 0));
    op(g, 0, EVOP(CES_OP_AWAIT, 1));
    op(g, 0, EVOP(CES_OP_AWAIT, 2));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_check_opts_init(&o);
    o.max_memory = (uint64_t)1 << 30;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_ERR_LIMIT);
    assert_null(r);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "4294967296 awaits once graph replays are unrolled; the checker takes "
                        "at most 4294967294");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Checks g under a memory bound of 1 GiB, with an allocator that refuses
 * any block over 64 MiB: refused with msg (CES_ERR_LIMIT), before any op's
 * record is allocated where msg is of the unrolled ops' tables (without the
 * refusal the bound, or the allocator, stopped the check first: INCOMPLETE,
 * or CES_ERR_NOMEM). */
static void refused_early(struct ces_graph *(*build)(struct ces_ctx *ctx), const char *msg)
{
    struct small_alloc a;
    struct ces_alloc h;
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g;
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;

    memset(&a, 0, sizeof(a));
    a.inner = ces_test_hooks(&a.count);
    h.malloc = small_malloc;
    h.realloc = small_realloc;
    h.free = small_free;
    h.ud = &a;
    assert_int_equal(ces_ctx_create(&h, &ctx), CES_OK);
    g = build(ctx);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_check_opts_init(&o);
    o.max_memory = (uint64_t)1 << 30;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_ERR_LIMIT);
    assert_null(r);
    assert_string_equal(ces_ctx_last_error(ctx), msg);
    assert_int_equal(a.refused, 0);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    assert_int_equal(a.count.live, 0);
}

/* One rank of `streams` streams, a graph phase of `reps` replays. */
static struct ces_graph *mk_reps(struct ces_ctx *ctx, uint32_t streams, uint32_t reps)
{
    struct ces_graph *g = mk(ctx, 1, streams);

    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, reps), CES_OK);
    return g;
}

static struct ces_graph *many_writes(struct ces_ctx *ctx)
{
    struct ces_graph *g = mk_reps(ctx, 2, UINT32_C(1) << 31);

    op(g, 0, W(0, F, 0, 0, 1));
    op(g, 0, W(1, F, 0, 1, 1));
    return g;
}

static struct ces_graph *many_waits(struct ces_ctx *ctx)
{
    struct ces_graph *g = mk_reps(ctx, 2, UINT32_C(1) << 31);

    op(g, 0, WT(0, F, 0, 0, CES_CMP_GEQ, 0));
    op(g, 0, WT(1, F, 0, 1, CES_CMP_GEQ, 0));
    return g;
}

static struct ces_graph *many_guards(struct ces_ctx *ctx)
{
    struct ces_graph *g = mk_reps(ctx, 3, UINT32_C(1) << 31);

    op(g, 0, EVOP(CES_OP_RECORD, 0));
    op(g, 0, WT(1, F, 0, 0, CES_CMP_GEQ, 0));
    op(g, 0, EVOP(CES_OP_AWAIT, 2));
    return g;
}

static struct ces_graph *many_consumes(struct ces_ctx *ctx)
{
    struct ces_graph *g = mk_reps(ctx, 2, UINT32_C(1) << 31);

    op(g, 0, CO(0, RECV, 0, 0, 8, SEND, 0, 0));
    op(g, 0, CO(1, RECV, 0, 8, 16, SEND, 0, 8));
    return g;
}

static struct ces_graph *many_queued(struct ces_ctx *ctx)
{
    struct ces_graph *g = mk_reps(ctx, 2, UINT32_C(1) << 31);

    assert_int_equal(ces_graph_set_connections(g, 1), CES_OK);
    op(g, 0, K(CES_OP_FENCE, 0));
    op(g, 0, K(CES_OP_FENCE, 1));
    return g;
}

static struct ces_graph *many_links(struct ces_ctx *ctx)
{
    struct ces_graph *g = mk_reps(ctx, 3, UINT32_C(1) << 30);

    for (uint32_t s = 0; s < 3; s++)
        op(g, 0, K(CES_OP_FENCE, s));
    return g;
}

static struct ces_graph *many_clocks(struct ces_ctx *ctx)
{
    struct ces_graph *g = mk_reps(ctx, 2, (UINT32_C(1) << 31) - 1);

    op(g, 0, EVOP(CES_OP_RECORD, 0));
    op(g, 0, EVOP(CES_OP_AWAIT, 1));
    return g;
}

/* 65,536 produces of one byte each, then a consume of all of them in
 * 65,537 replays: each replay's consume expects 65,536 runs, and the
 * replays keep one list of them (test_runs_kept_bound). */
static struct ces_graph *many_runs(struct ces_ctx *ctx)
{
    struct ces_graph *g = mk(ctx, 1, 1);
    uint32_t big;

    assert_int_equal(ces_graph_add_buffer(g, "big", 65536, &big), CES_OK);
    for (uint32_t i = 0; i < 65536; i++)
        op(g, 0, PR(0, big, 0, i, i + 1));
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 65537), CES_OK);
    op(g, 0, CO(0, big, 0, 0, 65536, big, 0, 0));
    return g;
}

/* Counts of the model's tables, over all processes, that their 32-bit
 * indices and offsets do not hold, though each stream's ops do (2^31 or
 * fewer): refused before any op's record is allocated.  Each of these came
 * after them or not at all: under a bound of 1 GiB the model's memory
 * stopped the check first (INCOMPLETE; without it the counts wrapped, the
 * slot tables' offsets and a shared queue's list written past their end),
 * the stream links refused once 72 GiB of records were cleared.  (The runs
 * that the consumes with '==' keep: test_runs_kept_bound.) */
static void test_too_many_model_entries(void **state)
{
    const char *most = "; the checker takes at most 4294967294";
    char want[320];

    (void)state;
    snprintf(want, sizeof(want), "4294967296 writes once graph replays are unrolled%s", most);
    refused_early(many_writes, want);
    snprintf(want, sizeof(want), "4294967296 waits once graph replays are unrolled%s", most);
    refused_early(many_waits, want);
    snprintf(want, sizeof(want),
             "4294967296 waits and awaits once graph replays are unrolled%s", most);
    refused_early(many_guards, want);
    snprintf(want, sizeof(want),
             "4294967296 consumes with '==' once graph replays are unrolled%s", most);
    refused_early(many_consumes, want);
    snprintf(want, sizeof(want), "r0: hardware queue 0 takes 4294967296 ops of its streams "
             "once graph replays are unrolled%s", most);
    refused_early(many_queued, want);
    /* 6 links in each replay after the first */
    snprintf(want, sizeof(want), "the schedule has 6442450938 stream links at its block and "
             "replay boundaries%s", most);
    refused_early(many_links, want);
    /* the first replay's record, then 3 in each replay after it: its
     * record, awaited and kept for s1's link, and s1's await kept for
     * s0's (4,294,967,292 links, within the bound) */
    snprintf(want, sizeof(want), "the schedule has 6442450939 record clocks (a record that an "
             "await refers to, an op whose clock a block or replay boundary keeps) once graph "
             "replays are unrolled%s", most);
    refused_early(many_clocks, want);
}

/* The bound of 2^32 - 2 on the runs that the consumes with '==' expect
 * counts those the lists keep (their offsets are 32-bit), counted before
 * any is kept as the lists share them.  It counted each consume's runs,
 * though the replays that expect the same runs keep one list: many_runs'
 * 65,537 replays of a consume of 65,536 one-byte produces keep 65,536
 * runs, yet were refused ("expect 4295032832 runs"); they build, and
 * ces_sim_runs_check, the building's count with a bound a test can lower,
 * counts 65,536 and refuses 65,535 with the message.  20 blocks of a
 * produce of byte 0, 2, ..., 38 of a buffer and a consume of its first
 * 40 bytes (each block's run relative, read and compared, each list
 * another: 2, 4, ..., 40 runs) keep 420 (runs_of, as for
 * test_expected_runs_shared's schedules, whose lists the replays share
 * after reading and comparing them).  The sweep that keeps the runs
 * refuses too, for where the count is short (two lists' hashes equal):
 * under a bound of 100 it stops at the tenth list, 110 runs kept, where
 * the count says 420, and frees what it kept (the allocator ends at zero
 * blocks); without its refusal it kept the 420 and gave CES_OK. */
static void test_runs_kept_bound(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = many_runs(ctx);
    struct ces_check_opts o;
    struct sim_model *m = NULL;
    uint64_t kept = 0;
    uint32_t big;

    (void)state;
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    runs_of(ctx, g, 1, 65536);
    ces_graph_destroy(g);
    g = mk(ctx, 1, 1);
    assert_int_equal(ces_graph_add_buffer(g, "big", 40, &big), CES_OK);
    for (uint32_t k = 0; k < 20; k++) {
        if (k > 0)
            assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
        op(g, 0, PR(0, big, 0, 2 * k, 2 * k + 1));
        op(g, 0, CO(0, big, 0, 0, 40, big, 0, 0));
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    runs_of(ctx, g, 20, 420);
    ces_check_opts_init(&o);
    assert_int_equal(ces_sim_model_build(ctx, g, &o, ces_graph_streams(g), &m, NULL), CES_OK);
    assert_int_equal(ces_sim_runs_check(m, 100, false, &kept), CES_ERR_LIMIT);
    assert_int_equal(kept, 420);
    assert_int_equal(ces_sim_runs_check(m, 100, true, &kept), CES_ERR_LIMIT);
    assert_int_equal(kept, 110);
    assert_non_null(strstr(ces_ctx_last_error(ctx), "'==' keep 110 runs of generations"));
    assert_non_null(strstr(ces_ctx_last_error(ctx), "the checker takes at most 100"));
    ces_sim_model_destroy(m);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The verdict of a reduced check of g, the runs its model keeps and those
 * that ces_sim_runs_check counts before any is kept, with the bits `keep`
 * of the runs' hash (ces_sim_runs_hash_keep, put back before any assertion
 * can leave). */
static uint32_t runs_hashed(struct ces_ctx *ctx, const struct ces_graph *g, uint64_t keep,
                            size_t *runs, uint64_t *counted)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    struct sim_model *m = NULL;
    uint32_t verdict;
    int rc, built, count = CES_OK;

    ces_check_opts_init(&o);
    ces_sim_runs_hash_keep = keep;
    rc = ces_check(ctx, g, &o, &r);
    built = ces_sim_model_build(ctx, g, &o, ces_graph_streams(g), &m, NULL);
    if (built == CES_OK)
        count = ces_sim_runs_check(m, 100, false, counted);
    ces_sim_runs_hash_keep = UINT64_MAX;
    assert_int_equal(rc, CES_OK);
    assert_int_equal(built, CES_OK);
    assert_int_equal(count, CES_OK);
    *runs = m->nruns;
    verdict = ces_check_report_verdict(r);
    ces_sim_model_destroy(m);
    ces_check_report_destroy(r);
    return verdict;
}

/* The building shares a consume's list of expected runs with the list
 * sweep_runs last kept for the same bytes (one entry while fewer than 8
 * consumes expect: each consume below meets the one before it there) only
 * where that list is of the same buffer (its rank and buffer), lo and hi,
 * and then, unread, where no produce of the buffer came between and no
 * run of it is relative, or read, where its runs are the list's.  Each
 * schedule's second consume would take the first's list were one of those
 * not compared: `buffers` (a and b produced in iterations 1 and 2), `lo`
 * (a[0:16], then a[8:16]), `produced` (a produced again between) and
 * `relative` (the first consume in the produce's iteration) would each be
 * a MISMATCH of data as expected, and `hi` (a[0:8], then a[0:16]; d[8:16]
 * never copied into) would lose its MISMATCH at d[8:16].  With the runs'
 * hash cut to nothing (ces_sim_runs_hash_keep), the runs read still tell
 * apart `produced`'s two lists (generations 1 and 3) and `runs`' (a[4:8]
 * produced again: one run, then two): the same verdict and runs kept;
 * the count before any is kept takes `produced`'s two lists of one run
 * for one (1 run where 2 are kept: fewer where hashes collide, as
 * expected_runs says) and counts `runs`' 3, their numbers of runs apart. */
static void test_expected_runs_keys(void **state)
{
    static const struct {
        const char *body;
        uint32_t verdict, lists;
        size_t runs;
        uint64_t counted; /* with the hash cut to nothing; 0: not tried */
    } cases[] = {
        {/* buffers */
         "r0 : produce a[0:8]\nr0 : copy a[0:8] -> d[0:8]@0\nphase eager x1\n"
         "r0 : produce b[0:8]\nr0 : copy b[0:8] -> e[0:8]@0\nphase eager x1\n"
         "r0 : consume d[0:8] == a[0:8]@0\nr0 : consume e[0:8] == b[0:8]@0\n",
         CES_V_OK, 2, 2, 0},
        {/* lo */
         "r0 : produce a[0:8]\nphase eager x1\nr0 : produce a[8:16]\n"
         "r0 : copy a[0:16] -> d[0:16]@0\nphase eager x1\n"
         "r0 : consume d[0:16] == a[0:16]@0\nr0 : consume d[8:16] == a[8:16]@0\n",
         CES_V_OK, 2, 3, 0},
        {/* hi */
         "r0 : produce a[0:16]\nr0 : copy a[0:8] -> d[0:8]@0\nphase eager x1\n"
         "r0 : consume d[0:8] == a[0:8]@0\nr0 : consume d[0:16] == a[0:16]@0\n",
         CES_V_MISMATCH, 2, 2, 0},
        {/* produced */
         "r0 : produce a[0:8]\nr0 : copy a[0:8] -> d[0:8]@0\nphase eager x1\n"
         "r0 : consume d[0:8] == a[0:8]@0\nphase eager x1\nr0 : produce a[0:8]\n"
         "r0 : copy a[0:8] -> d[0:8]@0\nphase eager x1\nr0 : consume d[0:8] == a[0:8]@0\n",
         CES_V_OK, 2, 2, 1},
        {/* relative */
         "r0 : produce a[0:8]\nr0 : copy a[0:8] -> d[0:8]@0\n"
         "r0 : consume d[0:8] == a[0:8]@0\nphase eager x1\nr0 : consume d[0:8] == a[0:8]@0\n",
         CES_V_OK, 2, 2, 0},
        {/* runs */
         "r0 : produce a[0:8]\nr0 : copy a[0:8] -> d[0:8]@0\nphase eager x1\n"
         "r0 : consume d[0:8] == a[0:8]@0\nphase eager x1\nr0 : produce a[4:8]\n"
         "r0 : copy a[4:8] -> d[4:8]@0\nphase eager x1\nr0 : consume d[0:8] == a[0:8]@0\n",
         CES_V_OK, 2, 3, 3},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[640];
        struct ces_graph *g;
        struct ces_check_report *r;
        size_t runs = 0;
        uint64_t counted = 0;

        snprintf(text, sizeof(text),
                 "cesync 1\nranks 1\nbuffer a 16\nbuffer b 16\nbuffer d 16\nbuffer e 16\n"
                 "phase eager x1\n%s",
                 cases[i].body);
        g = ces_test_text_graph(ctx, text);
        r = check2(ctx, g, NULL, cases[i].verdict);
        if (cases[i].verdict == CES_V_MISMATCH) {
            const struct ces_check_defect *d = find(r, CES_V_MISMATCH);

            assert_int_equal(d->mismatch.pos.index, 3);
            assert_int_equal(d->mismatch.region.lo, 8);
            assert_int_equal(d->mismatch.region.hi, 16);
            assert_int_equal(d->mismatch.expected.gen, 1);
            assert_int_equal(d->mismatch.found.gen, 0);
        }
        ces_check_report_destroy(r);
        runs_of(ctx, g, cases[i].lists, cases[i].runs);
        if (cases[i].counted > 0) {
            assert_int_equal(runs_hashed(ctx, g, 0, &runs, &counted), cases[i].verdict);
            assert_int_equal(runs, cases[i].runs);
            assert_int_equal(counted, cases[i].counted);
        }
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* The building's progress while the runs that the consumes with '==' expect
 * are counted before any is stored: 65,536 produces of a buffer and 16,385
 * consumes of one byte of it (each a graph phase of that many replays)
 * pass the bound of 4 runs a produce for each consume, so the sweep counts
 * the runs the lists keep (one list of one run, the replays reading none
 * after the first), reading the clock every 65,536 events.  Its events
 * were counted as more work of the step that had visited every unrolled
 * op ("finding the expected data"), so that each line it gave was past its
 * step's total (seen_build asserts the work done within the total; a line
 * every time the clock is read). */
static void test_runs_count_progress(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 1);
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    struct seen_calls c = {0, 0};
    uint32_t big;

    (void)state;
    assert_int_equal(ces_graph_add_buffer(g, "big", 16, &big), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 65536), CES_OK);
    op(g, 0, PR(0, big, 0, 0, 1));
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 16385), CES_OK);
    op(g, 0, CO(0, 1, 0, 0, 1, big, 0, 0));
    ces_check_opts_init(&o);
    o.max_states = 1;
    o.build_progress = seen_build;
    o.progress = seen_search;
    o.progress_ud = &c;
    o.progress_seconds = 1e-9;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_true(c.builds >= 81921 / 65536);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* 2^23 + 1 blocks, built through the API (a schedule expands to 2^20 at
 * most, and each of its delay faults adds 2): more than an op's block
 * field holds, refused before the model is built (a block past it would
 * name another) and before the fault sweep lists a fault; 2^23 blocks are
 * checked, a wait in the last one reported there: the only block past
 * 2^22 checked (test_delay_most_blocks' last is 1,048,577), so that a
 * field of 22 bits, which passed every other test, is caught.  (The graph
 * alone takes 320 MiB; the check of 2^23 blocks about 0.4 s of CPU.) */
static void test_too_many_blocks(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 1, 1);
    struct ces_check_report *r = NULL;
    const struct ces_check_defect *d;

    (void)state;
    for (uint32_t b = 1; b < UINT32_C(1) << 23; b++)
        assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    op(g, 0, K(CES_OP_FENCE, 0));
    op(g, 0, WT(0, 0, 0, 0, CES_CMP_EQ, 1));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_check(ctx, g, NULL, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_HANG);
    d = find(r, CES_V_HANG);
    assert_int_equal(d->nblocked, 1);
    assert_int_equal(d->blocked[0].pos.block, (UINT32_C(1) << 23) - 1);
    assert_int_equal(d->blocked[0].pos.op, 1);
    assert_int_equal(d->blocked[0].pos.index, 1);
    ces_check_report_destroy(r);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    op(g, 0, K(CES_OP_FENCE, 0));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    past_limit(ctx, g, "the schedule has 8388609 blocks; the checker takes at most 8388608");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A delay fault in a replay of a graph phase splits its block in three
 * (docs/SEMANTICS.md, section 9): a schedule of 2^20 blocks, the most one
 * expands to, is checked under it as a graph of 2^20 + 2 blocks, past the
 * 20 bits an op's block once had (the check refused it: "the schedule has
 * 1048578 blocks"); the wait after the phase hangs in the last block, at
 * iteration 2^20 + 2. */
static void test_delay_most_blocks(void **state)
{
    static const char text[] = "cesync 1\nranks 1\nstreams 1\nsignal f u32 1\n"
                               "phase eager x1048574\n"
                               "r0 : fence\n"
                               "phase graph x3\n"
                               "r0 : write f[0] = 1\n"
                               "phase eager x1\n"
                               "r0 : wait f[0] == 2\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_fault delay = {CES_FAULT_DELAY, 0, 0, 1048575};
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    const struct ces_check_defect *d;

    (void)state;
    assert_int_equal(ces_graph_nblocks(g), UINT32_C(1) << 20);
    ces_check_opts_init(&o);
    o.faults = &delay;
    o.nfaults = 1;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_HANG);
    d = find(r, CES_V_HANG);
    assert_int_equal(d->nblocked, 1);
    assert_int_equal(d->blocked[0].pos.block, (UINT32_C(1) << 20) + 1);
    assert_int_equal(d->blocked[0].pos.iteration, (UINT32_C(1) << 20) + 2);
    assert_int_equal(d->blocked[0].pos.index, 1048577);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* 256 ranks of 2^24 + 8 slots: 2^32 + 2048 slots, more than the checker's
 * 32-bit slot ids (the count once wrapped to 2048 and the slot tables were
 * written past their end). */
static void test_too_many_slots(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 256, 1);
    struct ces_check_report *r = NULL;

    (void)state;
    assert_int_equal(ces_graph_add_signal(g, "big", CES_U32, UINT32_C(1) << 24, NULL), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_check(ctx, g, NULL, &r), CES_ERR_LIMIT);
    assert_null(r);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "the signals have 4294969344 slots or more over all ranks; the checker "
                        "takes at most 4294967294");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_replay_errors(void **state)
{
    static const struct {
        const char *replay, *msg;
    } bad_strings[] = {
        {"0.x", "replay string, offset 2: expected a stream number, found 'x'"},
        {"0.", "replay string, offset 2: expected a stream number, found the end"},
        {"0*", "replay string, offset 2: expected a repeat count after '*', found the end"},
        {"0,1", "replay string, offset 1: expected '.' or the end, found ','"},
        {"1.0*0", "replay string, offset 4: a repeat count is at least 1"},
        {"0.1*16777216", "replay string: more than 16777216 steps"},
        {"0*99999999999999999999999", "replay string: more than 16777216 steps"},
        {"5", "replay string, offset 0: stream number 5 out of range (0..1)"},
        /* the number as written (strtoull gave 18446744073709551615) */
        {"0.99999999999999999999", "replay string, offset 2: stream number 99999999999999999999 "
                                   "out of range (0..1)"},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, true);
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;

    (void)state;
    ces_check_opts_init(&o);
    o.replay = "0.0";
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "replay step 2: r0.s0 cannot take a step there (it is blocked; a replay "
                        "of a watchdog's execution needs --abort, and the same --fault and "
                        "--queues options as its check)");
    /* with the watchdog model too: r1 can still run its produce, so nothing
     * is stuck and the watchdog does not fire to release r0; --abort was
     * given, so the hint does not ask for it */
    o.flags = CES_CHECK_ABORT;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "replay step 2: r0.s0 cannot take a step there (it is blocked; a replay "
                        "needs the same --fault and --queues options as its check)");
    o.flags = 0;
    for (size_t i = 0; i < sizeof(bad_strings) / sizeof(bad_strings[0]); i++) {
        o.replay = bad_strings[i].replay;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_ERR_INVALID);
        assert_string_equal(ces_ctx_last_error(ctx), bad_strings[i].msg);
    }
    assert_null(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A replay of the watchdog's execution without the watchdog model: its
 * step that the watchdog had released is blocked, and the message says a
 * replay needs --abort, and the options of its check (it said "it is
 * blocked" and no more).  With --abort and the same fault it runs. */
static void test_replay_watchdog_hint(void **state)
{
    static const char text[] = "cesync 1\nranks 2\nbuffer a 64\nbuffer b 64\n"
                               "signal f u32 1\nphase eager x1\n"
                               "r0 : produce a[0:64]\n"
                               "r0 : copy a[0:64] -> b[0:64]@1\n"
                               "r0 : write f[0]@1 = 1\n"
                               "r1 : wait f[0] >= 1\n"
                               "r1 : consume b[0:64] == a[0:64]@0\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_fault f = {CES_FAULT_STOP, 0, CES_FAULT_RANK, 1};
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    const struct ces_check_defect *d;
    char replay[64];

    (void)state;
    ces_check_opts_init(&o);
    o.faults = &f;
    o.nfaults = 1;
    o.flags = CES_CHECK_ABORT;
    r = check2(ctx, g, &o, CES_V_OK);
    assert_int_equal(ces_check_report_ndefects(r), 1);
    d = ces_check_report_defect(r, 0);
    assert_int_equal(d->cls, CES_CHECK_ABORTED);
    snprintf(replay, sizeof(replay), "%s", d->replay);
    assert_string_equal(replay, "0.1*2");
    ces_check_report_destroy(r);
    r = NULL;
    o.replay = replay;
    o.flags = 0;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_ERR_INVALID);
    assert_null(r);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "replay step 2: r1.s0 cannot take a step there (it is blocked; a replay "
                        "of a watchdog's execution needs --abort, and the same --fault and "
                        "--queues options as its check)");
    /* with the watchdog model, as its check ran: the same execution */
    o.flags = CES_CHECK_ABORT;
    r = check2(ctx, g, &o, CES_V_OK);
    ces_check_report_destroy(r);
    /* a step of a stream a fault stopped: no --abort in the hint, which
     * would not let it step */
    o.replay = "0.0";
    o.flags = 0;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "replay step 2: r0.s0 cannot take a step there (it is stopped by a "
                        "fault; a replay needs the same --fault and --queues options as its "
                        "check)");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Overlays of two defects of one report: both live until the report is
 * destroyed.  Asking for the second used to rebuild the first's marks and
 * title in place (one array and one title per report), so the first
 * overlay then drew the second defect, or pointed at freed marks once the
 * array moved. */
static void test_overlays_both_live(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = mk(ctx, 2, 2);
    struct ces_check_report *r;
    struct ces_dot_overlay hang, race, again;
    struct ces_dot_mark first[8];
    size_t n;

    (void)state;
    op(g, 0, CP(0, SEND, 0, 0, RECV, 1, 0, 8));
    op(g, 0, CP(1, SEND, 0, 8, RECV, 1, 0, 8));
    op(g, 1, WT(0, F, 1, 0, CES_CMP_GEQ, 1));
    r = check2(ctx, g, NULL, CES_V_HANG | CES_V_RACE);
    assert_int_equal(ces_check_report_ndefects(r), 2);
    assert_int_equal(ces_check_report_overlay(r, 0, &hang), CES_OK);
    n = hang.nmarks;
    assert_true(n > 0 && n <= 8);
    memcpy(first, hang.marks, n * sizeof(first[0]));
    assert_string_equal(hang.title, "HANG counterexample");
    assert_int_equal(ces_check_report_overlay(r, 1, &race), CES_OK);
    assert_string_equal(race.title, "RACE counterexample");
    assert_true(race.marks != hang.marks);
    assert_string_equal(hang.title, "HANG counterexample");
    assert_int_equal(hang.nmarks, n);
    assert_memory_equal(hang.marks, first, n * sizeof(first[0]));
    /* asking again gives the same overlay */
    assert_int_equal(ces_check_report_overlay(r, 0, &again), CES_OK);
    assert_ptr_equal(again.marks, hang.marks);
    assert_int_equal(again.nmarks, n);
    /* a refusal says why (the context kept an unrelated earlier message) */
    assert_int_equal(ces_check_report_overlay(r, 9, &again), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_check_report_overlay: defect 9 of 2");
    assert_int_equal(ces_check_report_overlay(r, 0, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_check_report_overlay: NULL argument");
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_overlay_and_backend(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = handshake(ctx, true);
    struct ces_check_report *r = check2(ctx, g, NULL, CES_V_DEADLOCK);
    struct ces_dot_overlay ov;
    const struct ces_backend_ops *be = ces_backend_find("sim");
    void *bs = NULL;
    uint32_t v = 99;

    (void)state;
    assert_int_equal(ces_check_report_overlay(r, 0, &ov), CES_OK);
    assert_int_equal(ov.nmarks, 4); /* 2 steps + 2 blocked */
    assert_int_equal(ov.marks[0].step, 1);
    assert_int_equal(ov.marks[2].style, CES_DOT_BLOCKED);
    /* the wait-for cycle, which the marks draw as blocked ops alone */
    assert_string_equal(ov.title, "DEADLOCK counterexample\ncycle: r0.s0#1 -> r1.s0#1 -> r0.s0#1");
    /* and as the overlay's cycle, which the picture draws as edges */
    assert_int_equal(ov.ncycle, 2);
    assert_int_equal(ov.cycle[0].rank, 0);
    assert_int_equal(ov.cycle[0].index, 1);
    assert_int_equal(ov.cycle[1].rank, 1);
    assert_int_equal(ov.cycle[1].index, 1);
    assert_int_equal(ces_check_report_overlay(r, 1, &ov), CES_ERR_INVALID);
    ces_check_report_destroy(r);
    assert_non_null(be);
    assert_int_equal(be->probe(ctx), CES_OK);
    assert_int_equal(be->prepare(ctx, g, NULL, &bs), CES_OK);
    assert_int_equal(be->poll(bs, &v), 1);
    assert_int_equal(be->launch(bs), CES_OK);
    assert_int_equal(be->poll(bs, &v), CES_OK);
    assert_int_equal(v, CES_V_DEADLOCK);
    be->destroy(bs);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static int check_body(struct ces_ctx *ctx, void *arg)
{
    struct ces_graph *g = arg;
    struct ces_check_report *r = NULL;
    char *t = NULL;
    int rc;

    (void)ctx;
    rc = ces_check(ctx, g, NULL, &r);
    if (rc == CES_OK) {
        rc = ces_check_report_text(ctx, r, &t, NULL);
        ces_free(ctx, t);
    }
    ces_check_report_destroy(r);
    return rc;
}

/* Parses, expands and checks src on ctx (each result kept for the caller to
 * destroy, also on failure): the allocation-failure bodies' first steps. */
static int check_text(struct ces_ctx *ctx, const char *src, size_t len, struct ces_prog **p,
                      struct ces_graph **g, struct ces_check_report **r)
{
    int rc = ces_prog_parse(ctx, src, len, NULL, p);

    if (rc == CES_OK)
        rc = ces_prog_expand(ctx, *p, g);
    if (rc == CES_OK)
        rc = ces_check(ctx, *g, NULL, r);
    return rc;
}

/* A hang and a race, with the graph on the failing context: the reports
 * format ops through it, and ces_op_format's failure used to be dropped
 * (CES_OK with the op's text missing from the report). */
static int report_body(struct ces_ctx *ctx, void *arg)
{
    static const char src[] = "cesync 1\nranks 2\nstreams 2\nbuffer b 64\nsignal f u32 2\n"
                              "phase eager x1\n"
                              "r0 s0 : copy b[0:8] -> b[0:8]@1\n"
                              "r0 s1 : copy b[8:16] -> b[0:8]@1\n"
                              "r1 s0 : wait f[0] >= 1\n";
    struct ces_prog *p = NULL;
    struct ces_graph *g = NULL;
    struct ces_check_report *r = NULL;
    struct ces_dot_overlay ov;
    char *t = NULL;
    int rc;

    (void)arg;
    rc = check_text(ctx, src, sizeof(src) - 1, &p, &g, &r);
    if (rc == CES_OK) {
        assert_int_equal(ces_check_report_verdict(r), CES_V_HANG | CES_V_RACE);
        rc = ces_check_report_text(ctx, r, &t, NULL);
        ces_free(ctx, t);
        t = NULL;
    }
    if (rc == CES_OK) {
        rc = ces_check_report_json(ctx, r, &t, NULL);
        ces_free(ctx, t);
        t = NULL;
    }
    if (rc == CES_OK)
        rc = ces_check_report_overlay(r, 1, &ov);
    if (rc == CES_OK) {
        rc = ces_dot_emit(ctx, g, &ov, &t, NULL);
        ces_free(ctx, t);
    }
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_prog_destroy(p);
    return rc;
}

/* A deadlock whose blocked wait on r0 has two writes on r1 that would
 * satisfy it: the wait-for graph's edge list grows once per writer, and a
 * failed push followed by one that succeeded used to be CES_OK with the
 * edge missing (the cycle lost: HANG, not DEADLOCK; found by fuzzing). */
static int two_writers_body(struct ces_ctx *ctx, void *arg)
{
    static const char src[] = "cesync 1\nranks 2\nsignal f u32 1\nsignal h u32 1\n"
                              "phase eager x1\n"
                              "r0 : wait f[0] >= 1\n"
                              "r0 : write h[0]@1 = 1\n"
                              "r1 : wait h[0] >= 1\n"
                              "r1 : write f[0]@0 = 1\n"
                              "r1 : write f[0]@0 = 2\n";
    struct ces_prog *p = NULL;
    struct ces_graph *g = NULL;
    struct ces_check_report *r = NULL;
    int rc;

    (void)arg;
    rc = check_text(ctx, src, sizeof(src) - 1, &p, &g, &r);
    if (rc == CES_OK)
        assert_int_equal(ces_check_report_verdict(r), CES_V_DEADLOCK);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_prog_destroy(p);
    return rc;
}

static void test_alloc_failures(void **state)
{
    struct ces_graph *g = NULL;
    struct ces_ctx *ctx = NULL;

    (void)state;
    assert_int_equal(ces_ctx_create(NULL, &ctx), CES_OK);
    g = handshake(ctx, true);
    /* the graph lives on a plain context; each failing run uses its own */
    assert_true(ces_test_alloc_failures(check_body, g) > 10);
    assert_true(ces_test_alloc_failures(report_body, NULL) > 50);
    assert_true(ces_test_alloc_failures(two_writers_body, NULL) > 20);
    ces_graph_destroy(g);
    g = ces_test_text_graph(ctx, consumes_later);
    assert_true(ces_test_alloc_failures(check_body, g) > 10);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
}

/* The other modes under allocation failures: random executions, a replay,
 * the watchdog model with a stop fault, the unreduced search. */
struct mode_arg {
    struct ces_graph *g;
    struct ces_check_opts o;
};

static int check_mode_body(struct ces_ctx *ctx, void *arg)
{
    struct mode_arg *a = arg;
    struct ces_check_report *r = NULL;
    int rc = ces_check(ctx, a->g, &a->o, &r);

    ces_check_report_destroy(r);
    return rc;
}

static void test_alloc_failures_modes(void **state)
{
    struct ces_fault stop = {CES_FAULT_STOP, 1, 0, 0};
    /* a delayed write (its graph derived on the failing context), a stop
     * before it on its stream, and a rank that dies */
    struct ces_fault delay[3] = {{CES_FAULT_DELAY, 0, 0, 2}, {CES_FAULT_STOP, 0, 0, 1},
                                 {CES_FAULT_STOP, 1, CES_FAULT_RANK, 3}};
    struct mode_arg a;
    struct ces_ctx *ctx = NULL;
    uint64_t at = ces_sim_slice_at;
    long n;

    (void)state;
    assert_int_equal(ces_ctx_create(NULL, &ctx), CES_OK);
    a.g = handshake(ctx, true);
    ces_check_opts_init(&a.o);
    a.o.random = 3;
    assert_true(ces_test_alloc_failures(check_mode_body, &a) > 5);
    ces_check_opts_init(&a.o);
    a.o.replay = "0.1";
    assert_true(ces_test_alloc_failures(check_mode_body, &a) > 5);
    ces_check_opts_init(&a.o);
    a.o.flags = CES_CHECK_ABORT;
    a.o.faults = &stop;
    a.o.nfaults = 1;
    assert_true(ces_test_alloc_failures(check_mode_body, &a) > 5);
    ces_check_opts_init(&a.o);
    a.o.flags = CES_CHECK_NO_REDUCTION;
    assert_true(ces_test_alloc_failures(check_mode_body, &a) > 5);
    /* a search the bound stops, then judges what it left open from the
     * initial state (whose failed allocation was CES_OK: found by
     * fuzzing) */
    {
        struct mode_arg b;
        struct ces_check_report *r = NULL;

        b.g = handshake(ctx, false);
        ces_check_opts_init(&b.o);
        b.o.max_states = 1;
        assert_int_equal(ces_check(ctx, b.g, &b.o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_INCOMPLETE);
        assert_int_equal(ces_check_report_open(r), CES_V_HANG | CES_V_RACE | CES_V_MISMATCH);
        ces_check_report_destroy(r);
        assert_true(ces_test_alloc_failures(check_mode_body, &b) > 5);
        ces_graph_destroy(b.g);
    }
    ces_check_opts_init(&a.o);
    a.o.faults = delay;
    a.o.nfaults = 3;
    assert_true(ces_test_alloc_failures(check_mode_body, &a) > 20);
    ces_graph_destroy(a.g);
    /* sliced searches: their graphs, models and searches */
    a.g = ces_test_text_graph(ctx, sliced_two);
    ces_check_opts_init(&a.o);
    ces_sim_slice_at = 1;
    n = ces_test_alloc_failures(check_mode_body, &a);
    ces_sim_slice_at = at;
    assert_true(n > 40);
    /* random executions within the search, and a sliced search after them
     * for a RACE alone (test_classes_sampled's mismatch_two) */
    ces_graph_destroy(a.g);
    a.g = ces_test_text_graph(ctx, mismatch_two);
    ces_sim_sample_at = ces_sim_slice_at = 1;
    ces_sim_sample_least = 64;
    n = ces_test_alloc_failures(check_mode_body, &a);
    assert_true(n > 40);
    ces_graph_destroy(a.g);
    /* the model's tables that only some schedules take: the queue indexes
     * of two streams on one hardware queue, and the table that sorts a
     * flag's writes set and reset (values not in their order) */
    a.g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nstreams 2\nconnections 1\n"
                                   "buffer x 64\nbuffer y 64\nsignal f u32 1\n"
                                   "phase eager x2\n"
                                   "r* : write f[0] = 1\n"
                                   "r* s1 : copy x[0:64] -> y[0:64]\n"
                                   "r* : wait f[0] == 1\n"
                                   "r* : write f[0] = 0\n");
    ces_check_opts_init(&a.o);
    assert_true(ces_test_alloc_failures(check_mode_body, &a) > 20);
    ces_graph_destroy(a.g);
    ces_ctx_destroy(ctx);
}

/* The search's knobs as a test found them (main), put back after each test
 * that sets them, also one that fails before it could. */
static uint64_t knobs[4];

static int knobs_back(void **state)
{
    (void)state;
    ces_sim_slice_at = knobs[0];
    ces_sim_slice_least = knobs[1];
    ces_sim_sample_at = knobs[2];
    ces_sim_sample_least = knobs[3];
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handshake_ok),
        cmocka_unit_test(test_stats_line),
        cmocka_unit_test(test_report_print),
        cmocka_unit_test(test_verdict_format),
        cmocka_unit_test(test_deadlock_cycle),
        cmocka_unit_test(test_hang_nobody_writes),
        cmocka_unit_test(test_deadlock_after_hang),
        cmocka_unit_test(test_shortest_kept),
        cmocka_unit_test(test_first_of_shortest_kept),
        cmocka_unit_test(test_cycles_after_hang),
        cmocka_unit_test(test_depth_bound_after_hang),
        cmocka_unit_test(test_first_past_watchdog),
        cmocka_unit_test(test_chain_left_after_hang),
        cmocka_unit_test(test_stopped_ops_left_out),
        cmocka_unit_test(test_stopped_op_leaves_queue),
        cmocka_unit_test(test_two_stops_earlier_counts),
        cmocka_unit_test(test_two_awaits_one_record),
        cmocka_unit_test(test_eq_waits_own_values),
        cmocka_unit_test(test_falling_writes_unsorted),
        cmocka_unit_test(test_u32_waits_horizon),
        cmocka_unit_test(test_clocks_conflicts_only),
        cmocka_unit_test(test_wait_for_refined),
        cmocka_unit_test(test_cycles_in_time),
        cmocka_unit_test(test_queues_held),
        cmocka_unit_test(test_holds_untimed),
        cmocka_unit_test_teardown(test_data_sliced, knobs_back),
        cmocka_unit_test(test_races_sure),
        cmocka_unit_test(test_consumes_race),
        cmocka_unit_test(test_consumes_race_memory),
        cmocka_unit_test_teardown(test_classes_sampled, knobs_back),
        cmocka_unit_test_teardown(test_open_classes, knobs_back),
        cmocka_unit_test(test_unread_writes_first),
        cmocka_unit_test(test_waits_run_early),
        cmocka_unit_test(test_race_copy_produce),
        cmocka_unit_test(test_race_minimized),
        cmocka_unit_test(test_long_name_whole),
        cmocka_unit_test(test_mismatch_previous_generation),
        cmocka_unit_test(test_mismatch_inner_run),
        cmocka_unit_test(test_copy_keeps_generations),
        cmocka_unit_test(test_copy_keeps_offsets),
        cmocka_unit_test(test_expected_run_edges),
        cmocka_unit_test(test_expected_gap_before_run),
        cmocka_unit_test(test_mismatch_other_rank),
        cmocka_unit_test(test_write_clears_reads),
        cmocka_unit_test(test_generation_past_2_32),
        cmocka_unit_test(test_head_of_line),
        cmocka_unit_test(test_queue_and_own_block),
        cmocka_unit_test(test_links_at_boundaries),
        cmocka_unit_test(test_link_edge_names),
        cmocka_unit_test(test_watchdog_releases_link),
        cmocka_unit_test(test_u32_cyclic),
        cmocka_unit_test(test_batch_any_order),
        cmocka_unit_test(test_graph_replays),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_faults_and_abort),
        cmocka_unit_test(test_stop_await),
        cmocka_unit_test(test_watchdog_stopped),
        cmocka_unit_test(test_watchdog_lists),
        cmocka_unit_test(test_fault_sweep),
        cmocka_unit_test(test_delay_fault),
        cmocka_unit_test(test_fault_format_null),
        cmocka_unit_test(test_fault_parse_strict),
        cmocka_unit_test(test_delay_own_queue),
        cmocka_unit_test(test_delay_names),
        cmocka_unit_test(test_delay_stopped_at),
        cmocka_unit_test(test_delay_name_taken),
        cmocka_unit_test(test_delay_sweep_no_stream),
        cmocka_unit_test(test_rank_stop),
        cmocka_unit_test(test_faults_together),
        cmocka_unit_test(test_fault_sweep_no_ops),
        cmocka_unit_test(test_rank_stop_replays),
        cmocka_unit_test(test_rank_stop_blocks),
        cmocka_unit_test(test_bounds_incomplete),
        cmocka_unit_test(test_depth_bound),
        cmocka_unit_test(test_progress_and_time_bound),
        cmocka_unit_test(test_max_seconds_finite),
        cmocka_unit_test(test_progress_seconds_finite),
        cmocka_unit_test(test_unknown_flags),
        cmocka_unit_test(test_unvalidated_graph),
        cmocka_unit_test(test_clock_follows_state_size),
        cmocka_unit_test(test_memory_bound_model),
        cmocka_unit_test(test_time_bound_model),
        cmocka_unit_test(test_awaits_long_program),
        cmocka_unit_test_teardown(test_sample_long_executions, knobs_back),
        cmocka_unit_test(test_sample_excess_one_burst),
        cmocka_unit_test(test_time_bound_model_peak),
        cmocka_unit_test(test_time_bound_delay_graph),
        cmocka_unit_test(test_time_bound_model_tables),
        cmocka_unit_test(test_time_bound_expected_runs),
        cmocka_unit_test(test_time_bound_expected_sort),
        cmocka_unit_test(test_sort_late_as_qsort),
        cmocka_unit_test(test_sort_late_heap_bound),
        cmocka_unit_test(test_time_bound_data_sweep),
        cmocka_unit_test(test_time_bound_data_sort),
        cmocka_unit_test(test_time_bound_spent),
        cmocka_unit_test(test_bound_initial_state),
        cmocka_unit_test(test_progress_since_call),
        cmocka_unit_test(test_memory_bound_model_one),
        cmocka_unit_test(test_memory_bound_expected_runs),
        cmocka_unit_test(test_expected_runs_shared),
        cmocka_unit_test(test_runs_kept_bound),
        cmocka_unit_test(test_expected_runs_keys),
        cmocka_unit_test(test_memory_bound_data_ends),
        cmocka_unit_test(test_memory_bound_search),
        cmocka_unit_test(test_memory_bound_rclk_pages),
        cmocka_unit_test(test_sweep_table_small),
        cmocka_unit_test(test_sweep_time_bound),
        cmocka_unit_test(test_sweep_unlisted),
        cmocka_unit_test(test_sweep_rank_positions),
        cmocka_unit_test(test_sweep_memory_bound),
        cmocka_unit_test(test_sweep_rows_fit_faults),
        cmocka_unit_test(test_random_mode),
        cmocka_unit_test(test_replay_errors),
        cmocka_unit_test(test_replay_watchdog_hint),
        cmocka_unit_test(test_unrolled_too_long),
        cmocka_unit_test(test_too_many_awaits),
        cmocka_unit_test(test_too_many_model_entries),
        cmocka_unit_test(test_runs_count_progress),
        cmocka_unit_test(test_too_many_blocks),
        cmocka_unit_test(test_delay_most_blocks),
        cmocka_unit_test(test_too_many_slots),
        cmocka_unit_test(test_overlays_both_live),
        cmocka_unit_test(test_overlay_and_backend),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test_teardown(test_alloc_failures_modes, knobs_back),
    };

    knobs[0] = ces_sim_slice_at;
    knobs[1] = ces_sim_slice_least;
    knobs[2] = ces_sim_sample_at;
    knobs[3] = ces_sim_sample_least;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
