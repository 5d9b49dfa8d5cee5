/*
 * tests/core/test_coll_alltoall.c - the alltoall builder: golden texts for
 * every protocol, and the expanded graph checked against NCCL 2.28's unicast
 * CE alltoall step for step.
 */
#include "coll_check.h"

static void test_golden(void **state)
{
    struct ces_coll_params p;

    (void)state;
    p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_NCCL, 4, 1024, 2, CES_PHASE_EAGER);
    coll_golden(&p, "alltoall_nccl_r4_b1024_x2.ces");
    p.phase = CES_PHASE_GRAPH;
    coll_golden(&p, "alltoall_nccl_graph_r4_b1024_x2.ces");
    p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_MONO, 4, 1024, 2, CES_PHASE_EAGER);
    coll_golden(&p, "alltoall_mono_r4_b1024_x2.ces");
    p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_CREDIT, 4, 1024, 2, CES_PHASE_EAGER);
    coll_golden(&p, "alltoall_credit_r4_b1024_x2.ces");
    p.phase = CES_PHASE_GRAPH;
    coll_golden(&p, "alltoall_credit_graph_r4_b1024_x2.ces");
    p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_PULL, 4, 1024, 2, CES_PHASE_GRAPH);
    coll_golden(&p, "alltoall_pull_graph_r4_b1024_x2.ces");
    coll_golden_end();
}

/* One NCCL 2.28 UCSync as seen by rank r: writes of v into every peer's
 * array[r] in rotated order, then EQ waits on array[p] in rotated order. */
static uint32_t expect_sync(const struct ces_graph *g, uint32_t b, uint32_t r, uint32_t k,
                            const char *arr, uint64_t v, int graph)
{
    char buf[160], want[160];

    for (uint32_t j = 1; j < 4; j++, k++) {
        snprintf(want, sizeof(want), "write %s[%u]@%u = %llu", arr, r, (r + j) % 4,
                 (unsigned long long)v);
        assert_string_equal(coll_op(g, b, r, k, buf, sizeof(buf)), want);
    }
    for (uint32_t j = 1; j < 4; j++, k++) {
        snprintf(want, sizeof(want), "wait %s[%u] == %llu", arr, (r + j) % 4,
                 (unsigned long long)v);
        assert_string_equal(coll_op(g, b, r, k, buf, sizeof(buf)), want);
    }
    if (graph) {
        /* under capture: all n local slots reset to 0 after the waits */
        for (uint32_t j = 0; j < 4; j++, k++) {
            snprintf(want, sizeof(want), "write %s[%u] = 0", arr, (r + j) % 4);
            assert_string_equal(coll_op(g, b, r, k, buf, sizeof(buf)), want);
        }
    }
    return k;
}

static void expect_iteration(const struct ces_graph *g, uint32_t b, uint64_t seq, int graph)
{
    char buf[160], want[160];

    for (uint32_t r = 0; r < 4; r++) {
        uint32_t n = 0, k = 0;
        const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

        assert_int_equal(n, graph ? 31 : 23);
        assert_string_equal(coll_op(g, b, r, k++, buf, sizeof(buf)), "produce send[0:1024]");
        k = expect_sync(g, b, r, k, "ready", graph ? 1 : seq, graph);
        /* one batch of n copies, peers in rotated order starting at self */
        assert_string_equal(coll_op(g, b, r, k++, buf, sizeof(buf)), "batch");
        for (uint32_t j = 0; j < 4; j++, k++) {
            uint32_t p = (r + j) % 4;

            if (p == r)
                snprintf(want, sizeof(want), "copy send[%u:%u] -> recv[%u:%u]", p * 256,
                         p * 256 + 256, r * 256, r * 256 + 256);
            else
                snprintf(want, sizeof(want), "copy send[%u:%u] -> recv[%u:%u]@%u", p * 256,
                         p * 256 + 256, r * 256, r * 256 + 256, p);
            assert_string_equal(coll_op(g, b, r, k, buf, sizeof(buf)), want);
            assert_int_equal(ops[k].kind, CES_OP_COPY);
        }
        assert_string_equal(coll_op(g, b, r, k++, buf, sizeof(buf)), "end");
        k = expect_sync(g, b, r, k, "complete", graph ? 1 : seq + 1, graph);
        for (uint32_t j = 0; j < 4; j++, k++) {
            uint32_t p = (r + j) % 4;

            snprintf(want, sizeof(want), "consume recv[%u:%u] == send[%u:%u]@%u", p * 256,
                     p * 256 + 256, r * 256, r * 256 + 256, p);
            assert_string_equal(coll_op(g, b, r, k, buf, sizeof(buf)), want);
        }
        assert_int_equal(k, n);
        for (uint32_t i = 0; i < n; i++)
            assert_int_equal(ops[i].stream, 0);
    }
}

static void test_nccl_eager_steps(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_NCCL, 4, 1024, 2,
                                           CES_PHASE_EAGER);
    struct ces_graph *g = coll_graph(ctx, &p);
    int64_t ready = ces_graph_find_signal(g, "ready");

    (void)state;
    assert_true(ready >= 0);
    assert_int_equal(ces_graph_signal(g, (uint32_t)ready).width, CES_U32);
    assert_int_equal(ces_graph_signal(g, (uint32_t)ready).slots, 4);
    assert_int_equal(ces_graph_nblocks(g), 2);
    for (uint32_t b = 0; b < 2; b++) {
        assert_int_equal(ces_graph_block(g, b).kind, CES_PHASE_EAGER);
        assert_int_equal(ces_graph_block(g, b).reps, 1);
    }
    /* sequence numbers 1, 2 in the first iteration, 3, 4 in the second */
    expect_iteration(g, 0, 1, 0);
    expect_iteration(g, 1, 3, 0);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_nccl_graph_steps(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_NCCL, 4, 1024, 2,
                                           CES_PHASE_GRAPH);
    struct ces_graph *g = coll_graph(ctx, &p);

    (void)state;
    assert_int_equal(ces_graph_nblocks(g), 1);
    assert_int_equal(ces_graph_block(g, 0).kind, CES_PHASE_GRAPH);
    assert_int_equal(ces_graph_block(g, 0).reps, 2);
    expect_iteration(g, 0, 1, 1);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* first_iter k: the schedule of NCCL's k-th call continues its sequence. */
static void test_first_iter(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_NCCL, 4, 1024, 2,
                                           CES_PHASE_EAGER);
    struct ces_graph *g;
    char *text;

    (void)state;
    p.first_iter = 5;
    text = coll_text(ctx, &p);
    assert_non_null(strstr(text, "\nlet I0 = 4\n"));
    assert_non_null(strstr(text, "\nr* over p : write ready[$r]@$p = 2*($i+$I0)-1\n"));
    assert_non_null(strstr(text, "\nr* over p : wait complete[$p] == 2*($i+$I0)\n"));
    coll_roundtrip(ctx, text);
    ces_free(ctx, text);
    g = coll_graph(ctx, &p);
    expect_iteration(g, 0, 9, 0);
    expect_iteration(g, 1, 11, 0);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_errors(void **state)
{
    struct ces_coll_params p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_NCCL, 3, 1024, 1,
                                           CES_PHASE_EAGER);

    (void)state;
    coll_error(&p, CES_ERR_INVALID, "alltoall: bytes (1024) must be divisible by ranks (3)");
    p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_MONO, 4, 1024, 1, CES_PHASE_GRAPH);
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "alltoall: mono is not graph-safe: its counters grow with $i, which a graph "
               "replay freezes; use CES_PROTO_CREDIT for graph phases");
}

static int source_body(struct ces_ctx *ctx, void *arg)
{
    char *text = NULL;
    int rc = ces_coll_source(ctx, arg, &text, NULL);

    ces_free(ctx, text);
    return rc;
}

static int build_body(struct ces_ctx *ctx, void *arg)
{
    struct ces_graph *g = NULL;
    int rc = ces_coll_build(ctx, arg, &g);

    ces_graph_destroy(g);
    return rc;
}

static void test_alloc_failures(void **state)
{
    struct ces_coll_params p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_NCCL, 4, 1024, 2,
                                           CES_PHASE_EAGER);

    (void)state;
    assert_true(ces_test_alloc_failures(source_body, &p) > 0);
    assert_true(ces_test_alloc_failures(coll_program_body, &p) > 3);
    assert_true(ces_test_alloc_failures(build_body, &p) > 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),          cmocka_unit_test(test_nccl_eager_steps),
        cmocka_unit_test(test_nccl_graph_steps), cmocka_unit_test(test_first_iter),
        cmocka_unit_test(test_errors),          cmocka_unit_test(test_alloc_failures),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
