/*
 * tests/core/test_coll_barrier.c - the barrier builder: one sync per
 * iteration; nccl alternates ready/complete across iterations (one eager
 * phase each) and freezes one array in a graph phase.
 */
#include "coll_check.h"

#include <time.h>

static void test_golden(void **state)
{
    struct ces_coll_params p;

    (void)state;
    p = coll_params(CES_COLL_BARRIER, CES_PROTO_NCCL, 3, 1, 3, CES_PHASE_EAGER);
    coll_golden(&p, "barrier_nccl_r3_x3.ces");
    p.phase = CES_PHASE_GRAPH;
    coll_golden(&p, "barrier_nccl_graph_r3_x3.ces");
    p = coll_params(CES_COLL_BARRIER, CES_PROTO_MONO, 3, 1, 3, CES_PHASE_EAGER);
    coll_golden(&p, "barrier_mono_r3_x3.ces");
    p = coll_params(CES_COLL_BARRIER, CES_PROTO_CREDIT, 3, 1, 3, CES_PHASE_EAGER);
    coll_golden(&p, "barrier_credit_r3_x3.ces");
    p.phase = CES_PHASE_GRAPH;
    coll_golden(&p, "barrier_credit_graph_r3_x3.ces");
    coll_golden_end();
}

/* nccl eager: sync s (1-based, global) uses ready when s is odd, with
 * value s; first_iter shifts both. */
static void expect_nccl_eager(uint64_t first_iter)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_BARRIER, CES_PROTO_NCCL, 3, 1, 4,
                                           CES_PHASE_EAGER);
    struct ces_graph *g;

    p.first_iter = first_iter;
    g = coll_graph(ctx, &p);
    assert_int_equal(ces_graph_nblocks(g), 4);
    assert_int_equal(ces_graph_nbuffers(g), 0);
    for (uint32_t b = 0; b < 4; b++) {
        uint64_t s = first_iter + b;
        const char *arr = (s & 1) ? "ready" : "complete";
        char *ops = coll_ops_text(g, b, 2), want[512];

        assert_int_equal(ces_graph_block(g, b).reps, 1);
        snprintf(want, sizeof(want),
                 "write %s[2]@0 = %llu\nwrite %s[2]@1 = %llu\n"
                 "wait %s[0] == %llu\nwait %s[1] == %llu\n",
                 arr, (unsigned long long)s, arr, (unsigned long long)s, arr,
                 (unsigned long long)s, arr, (unsigned long long)s);
        assert_string_equal(ops, want);
        free(ops);
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_nccl_eager_alternates(void **state)
{
    (void)state;
    expect_nccl_eager(1);
    expect_nccl_eager(2);
}

static void test_nccl_graph_freezes_one_array(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_BARRIER, CES_PROTO_NCCL, 3, 1, 4,
                                           CES_PHASE_GRAPH);
    struct ces_graph *g;
    char *ops;

    (void)state;
    p.first_iter = 2; /* one sync before: the capture uses complete */
    g = coll_graph(ctx, &p);
    assert_int_equal(ces_graph_nblocks(g), 1);
    assert_int_equal(ces_graph_block(g, 0).reps, 4);
    ops = coll_ops_text(g, 0, 1);
    assert_string_equal(ops, "write complete[1]@2 = 1\nwrite complete[1]@0 = 1\n"
                             "wait complete[2] == 1\nwait complete[0] == 1\n"
                             "write complete[1] = 0\nwrite complete[2] = 0\n"
                             "write complete[0] = 0\n");
    free(ops);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_credit_ops(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_BARRIER, CES_PROTO_CREDIT, 3, 1, 2,
                                           CES_PHASE_EAGER);
    struct ces_graph *g;
    char *ops;

    (void)state;
    g = coll_graph(ctx, &p);
    assert_int_equal(ces_graph_nblocks(g), 2);
    ops = coll_ops_text(g, 1, 0);
    assert_string_equal(ops, "write ready[0]@1 = 1\nwrite ready[0]@2 = 1\n"
                             "wait ready[1] == 1\nwait ready[2] == 1\n"
                             "write ready[1] = 0\nwrite ready[2] = 0\n"
                             "write ready_ack[0]@1 = 1\nwrite ready_ack[0]@2 = 1\n"
                             "wait ready_ack[1] == 1\nwait ready_ack[2] == 1\n"
                             "write ready_ack[1] = 0\nwrite ready_ack[2] = 0\n");
    free(ops);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A barrier moves no data: params.bytes is ignored, whatever it holds. */
static void test_bytes_ignored(void **state)
{
    static const uint64_t bytes[] = {0, CES_MAX_BYTES + 1, UINT64_MAX};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_BARRIER, CES_PROTO_MONO, 3, 1, 2,
                                           CES_PHASE_EAGER);
    char *want = coll_text(ctx, &p);

    (void)state;
    for (size_t i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++) {
        char *text;

        p.bytes = bytes[i];
        text = coll_text(ctx, &p);
        assert_string_equal(text, want);
        ces_free(ctx, text);
    }
    ces_free(ctx, want);
    ces_test_ctx_end(ctx, &st);
}

/* nccl's eager barrier is a phase per iteration: past the expander's bound
 * on blocks (2^20, and 2^24 blocks times ranks) it is refused before its
 * text is written (4294967295 iterations filled memory with it), naming
 * the iterations; one more iteration of a graph phase is one block still. */
static void test_nccl_eager_iterations_bound(void **state)
{
    struct ces_coll_params p = coll_params(CES_COLL_BARRIER, CES_PROTO_NCCL, 1024, 8, 16385,
                                           CES_PHASE_EAGER);
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;

    (void)state;
    coll_error(&p, CES_ERR_LIMIT,
               "barrier: nccl runs each eager iteration in a phase of its own (an odd number "
               "of barriers alternates its arrays): at most 16384 iterations of 1024 ranks "
               "expand, not 16385");
    p.ranks = 2;
    p.iterations = UINT32_MAX;
    coll_error(&p, CES_ERR_LIMIT,
               "barrier: nccl runs each eager iteration in a phase of its own (an odd number "
               "of barriers alternates its arrays): at most 1048576 iterations of 2 ranks "
               "expand, not 4294967295");
    p.phase = CES_PHASE_GRAPH;
    p.iterations = UINT32_MAX;
    g = coll_graph(ctx, &p);
    assert_int_equal(ces_graph_nblocks(g), 1);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Past the expander's bound on ops (2^24) nccl's eager barrier is refused
 * at once, from one iteration's text, with the expander's message naming
 * the line of the first op past the bound (it was refused only once 10 s
 * of text were written and read); every iteration's phase is a
 * `phase eager x1` line, the write line and the wait line, each line of
 * n * (n - 1) ops. */
static void test_nccl_eager_ops_bound(void **state)
{
    /* 8 ranks: 112 ops per iteration, 149796 iterations fit, and 64 ops
     * more: the next iteration's write line (56) fits, its wait line, at
     * 5 + 3 * 149796 + 3, does not */
    struct ces_coll_params p = coll_params(CES_COLL_BARRIER, CES_PROTO_NCCL, 8, 8, 1000000,
                                           CES_PHASE_EAGER);
    struct timespec t0, t1;
    double s;

    (void)state;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    coll_error(&p, CES_ERR_LIMIT,
               "barrier:449396:1: the schedule expands to more than 16777216 ops: use fewer ops");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (s >= 0.5)
        fail_msg("refused after %.3f s", s);
    p.iterations = 149797;
    coll_error(&p, CES_ERR_LIMIT,
               "barrier:449396:1: the schedule expands to more than 16777216 ops: use fewer ops");
    /* 1024 ranks: 8 iterations fit, the ninth's write line is past it
     * (line 7 + 3 * 8), and one line later after a `let I0` line */
    p = coll_params(CES_COLL_BARRIER, CES_PROTO_NCCL, 1024, 8, 9, CES_PHASE_EAGER);
    coll_error(&p, CES_ERR_LIMIT,
               "barrier:31:1: the schedule expands to more than 16777216 ops: use fewer ops");
    p.first_iter = 5;
    coll_error(&p, CES_ERR_LIMIT,
               "barrier:32:1: the schedule expands to more than 16777216 ops: use fewer ops");
    /* 16384 iterations of 1024 ranks are within the bound on phases: the
     * bound on ops refuses them */
    p.first_iter = 1;
    p.iterations = 16384;
    coll_error(&p, CES_ERR_LIMIT,
               "barrier:31:1: the schedule expands to more than 16777216 ops: use fewer ops");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_nccl_eager_alternates),
        cmocka_unit_test(test_nccl_graph_freezes_one_array),
        cmocka_unit_test(test_credit_ops),
        cmocka_unit_test(test_bytes_ignored),
        cmocka_unit_test(test_nccl_eager_iterations_bound),
        cmocka_unit_test(test_nccl_eager_ops_bound),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
