/*
 * tests/core/test_coll_overlap.c - the local-chunk variants of alltoall and
 * allgather (core/coll/overlap.c): their exact text, that every protocol and
 * phase builds a valid graph for 2-4 ranks, the flag errors, and that the
 * cost model predicts each to win where the backend selects it.
 */
#include "coll_check.h"

static void test_overlap_text(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_MONO, 2, 1024, 2,
                                           CES_PHASE_EAGER);
    char *text;

    (void)state;
    p.flags = CES_COLL_F_OVERLAP;
    text = coll_text(ctx, &p);
    assert_string_equal(text,
                        "cesync 1\nranks 2\nstreams 2\nlet C = 512\nbuffer send 1024\n"
                        "buffer recv 1024\nsignal ready u64 1\nsignal complete u64 1\n"
                        "phase eager x2\n"
                        "r* : produce send[0:$n*$C]\n"
                        "r* : record go\n"
                        "r* s1 : await go\n"
                        "r* s1 : copy send[$r*$C:($r+1)*$C] -> recv[$r*$C:($r+1)*$C]\n"
                        "r* s1 : record local\n"
                        "r* : write ready[0] = $i\n"
                        "r* over p : wait ready[0]@$p >= $i\n"
                        "r* : batch\n"
                        "r* over p : copy send[$p*$C:($p+1)*$C] -> recv[$r*$C:($r+1)*$C]@$p\n"
                        "r* : end\n"
                        "r* : write complete[0] = $i\n"
                        "r* over p : wait complete[0]@$p >= $i\n"
                        "r* : await local\n"
                        "r* over p* : consume recv[$p*$C:($p+1)*$C] == "
                        "send[$r*$C:($r+1)*$C]@$p\n");
    coll_roundtrip(ctx, text);
    ces_free(ctx, text);
    ces_test_ctx_end(ctx, &st);
}

/* An eager local chunk of 8 MiB or more forks after the ready barrier;
 * below, before it (allgather and the rooted collectives: the local chunk
 * is the whole message).  Under a graph phase it always forks before. */
static void test_overlap_fork_point(void **state)
{
    static const struct {
        uint32_t coll, proto, phase;
        uint64_t bytes;
        int late;
    } cases[] = {
        {CES_COLL_ALLTOALL, CES_PROTO_MONO, CES_PHASE_EAGER, 16u << 20, 1},
        {CES_COLL_ALLTOALL, CES_PROTO_MONO, CES_PHASE_EAGER, (16u << 20) - 2, 0},
        {CES_COLL_ALLGATHER, CES_PROTO_MONO, CES_PHASE_EAGER, 8u << 20, 1},
        {CES_COLL_ALLGATHER, CES_PROTO_MONO, CES_PHASE_EAGER, (8u << 20) - 1, 0},
        {CES_COLL_ALLTOALL, CES_PROTO_NCCL, CES_PHASE_GRAPH, 64u << 20, 0},
        {CES_COLL_ALLGATHER, CES_PROTO_NCCL, CES_PHASE_GRAPH, 8u << 20, 0},
        {CES_COLL_ALLTOALL, CES_PROTO_NCCL, CES_PHASE_EAGER, 64u << 20, 1},
        {CES_COLL_ALLTOALL, CES_PROTO_PULL, CES_PHASE_GRAPH, 64u << 20, 0},
        {CES_COLL_ALLGATHER, CES_PROTO_PULL, CES_PHASE_GRAPH, 8u << 20, 0},
        {CES_COLL_ALLTOALL, CES_PROTO_PULL, CES_PHASE_EAGER, 64u << 20, 1},
        {CES_COLL_GATHER, CES_PROTO_MONO, CES_PHASE_EAGER, 8u << 20, 1},
        {CES_COLL_GATHER, CES_PROTO_MONO, CES_PHASE_EAGER, (8u << 20) - 1, 0},
        {CES_COLL_BROADCAST, CES_PROTO_CREDIT, CES_PHASE_EAGER, 8u << 20, 1},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        struct ces_coll_params p = coll_params(cases[c].coll, cases[c].proto, 2, cases[c].bytes, 1,
                                               cases[c].phase);
        char *text, *go, *ready;

        p.flags = CES_COLL_F_OVERLAP;
        text = coll_text(ctx, &p);
        go = strstr(text, " : record go\n"); /* on r* or on the root */
        /* the ready barrier's wait: the first wait of the body */
        ready = strstr(text, " : wait ready[");
        assert_non_null(go);
        assert_non_null(ready);
        assert_int_equal(go > ready, cases[c].late);
        ces_free(ctx, text);
    }
    ces_test_ctx_end(ctx, &st);
}

static void test_early_text(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_ALLGATHER, CES_PROTO_CREDIT, 3, 1024, 2,
                                           CES_PHASE_GRAPH);
    char *text;

    (void)state;
    p.flags = CES_COLL_F_EARLY;
    text = coll_text(ctx, &p);
    assert_string_equal(text,
                        "cesync 1\nranks 3\nstreams 1\nlet C = 1024\nbuffer send 1024\n"
                        "buffer recv 3072\nsignal ready u32 3\nsignal complete u32 3\n"
                        "signal ready_ack u32 3\nsignal complete_ack u32 3\n"
                        "phase graph x2\n"
                        "r* : produce send[0:$C]\n"
                        "r* over p : write ready[$r]@$p = 1\n"
                        "r* : copy send[0:$C] -> recv[$r*$C:($r+1)*$C]\n"
                        "r* over p : wait ready[$p] == 1\n"
                        "r* over p : write ready[$p] = 0\n"
                        "r* over p : write ready_ack[$r]@$p = 1\n"
                        "r* : batch\n"
                        "r* over p : copy send[0:$C] -> recv[$r*$C:($r+1)*$C]@$p\n"
                        "r* : end\n"
                        "r* over p : write complete[$r]@$p = 1\n"
                        "r* over p : wait complete[$p] == 1\n"
                        "r* over p : write complete[$p] = 0\n"
                        "r* over p : write complete_ack[$r]@$p = 1\n"
                        "r* over p* : consume recv[$p*$C:($p+1)*$C] == send[0:$C]@$p\n"
                        "r* over p : wait ready_ack[$p] == 1\n"
                        "r* over p : write ready_ack[$p] = 0\n"
                        "r* over p : wait complete_ack[$p] == 1\n"
                        "r* over p : write complete_ack[$p] = 0\n");
    coll_roundtrip(ctx, text);
    ces_free(ctx, text);
    ces_test_ctx_end(ctx, &st);
}

/* Every variant x collective x protocol/phase x 2..4 ranks builds a valid
 * graph. */
static void test_all_build(void **state)
{
    static const uint32_t protos[][2] = {{CES_PROTO_MONO, CES_PHASE_EAGER},
                                         {CES_PROTO_NCCL, CES_PHASE_EAGER},
                                         {CES_PROTO_CREDIT, CES_PHASE_EAGER},
                                         {CES_PROTO_CREDIT, CES_PHASE_GRAPH},
                                         {CES_PROTO_PULL, CES_PHASE_EAGER},
                                         {CES_PROTO_PULL, CES_PHASE_GRAPH}};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (uint32_t f = CES_COLL_F_OVERLAP; f <= CES_COLL_F_EARLY; f <<= 1)
        for (uint32_t c = 0; c < 2; c++)
            for (size_t k = 0; k < sizeof(protos) / sizeof(protos[0]); k++)
                for (uint32_t n = 2; n <= 4; n++) {
                    struct ces_coll_params p = coll_params(
                        c == 0 ? CES_COLL_ALLTOALL : CES_COLL_ALLGATHER, protos[k][0], n,
                        1024 * n, 3, protos[k][1]);
                    struct ces_graph *g = NULL;

                    p.flags = f;
                    if (ces_coll_build(ctx, &p, &g) != CES_OK)
                        fail_msg("flags %u coll %u proto %u ranks %u: %s", f, c, protos[k][0], n,
                                 ces_ctx_last_error(ctx));
                    assert_int_equal(ces_graph_streams(g), f == CES_COLL_F_OVERLAP ? 2 : 1);
                    assert_int_equal(ces_graph_iterations(g), 3);
                    ces_graph_destroy(g);
                }
    ces_test_ctx_end(ctx, &st);
}

/* The checker's verdict on one variant is OK: no deadlock, hang, race or
 * wrong data over all interleavings. */
static void prove(struct ces_ctx *ctx, uint32_t flags, uint32_t coll, uint32_t proto,
                  uint32_t phase, uint32_t n, uint64_t bytes, uint32_t root)
{
    struct ces_coll_params p = coll_params(coll, proto, n, bytes, 2, phase);
    struct ces_graph *g = NULL;
    struct ces_check_report *r = NULL;
    struct ces_check_opts o;

    p.flags = flags;
    p.root = root;
    ces_check_opts_init(&o);
    o.max_seconds = 20.0;
    assert_int_equal(ces_coll_build(ctx, &p, &g), CES_OK);
    if (ces_check(ctx, g, &o, &r) != CES_OK)
        fail_msg("check: %s", ces_ctx_last_error(ctx));
    if (ces_check_report_verdict(r) != CES_V_OK) {
        char v[64];

        ces_verdict_format(ces_check_report_verdict(r), v, sizeof(v));
        fail_msg("flags %u coll %u proto %u phase %u ranks %u bytes %llu root %u: verdict %s",
                 flags, coll, proto, phase, n, (unsigned long long)bytes, root, v);
    }
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
}

/* Every variant, protocol and phase for 2-4 ranks and 2 iterations (pull's
 * graph form is what captured alltoall/allgather run); 64
 * bytes per peer forks the overlap copy before the ready barrier, 16 MiB
 * after it (eager; a graph phase forks before it at every size). */
static void test_checker_proves_variants(void **state)
{
    static const uint32_t protos[][2] = {{CES_PROTO_MONO, CES_PHASE_EAGER},
                                         {CES_PROTO_NCCL, CES_PHASE_EAGER},
                                         {CES_PROTO_NCCL, CES_PHASE_GRAPH},
                                         {CES_PROTO_CREDIT, CES_PHASE_EAGER},
                                         {CES_PROTO_CREDIT, CES_PHASE_GRAPH},
                                         {CES_PROTO_PULL, CES_PHASE_EAGER},
                                         {CES_PROTO_PULL, CES_PHASE_GRAPH}};
    static const uint64_t per_peer[] = {64, 16u << 20};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (uint32_t f = CES_COLL_F_OVERLAP; f <= CES_COLL_F_EARLY; f <<= 1)
        for (size_t b = 0; b < 2; b++)
            for (uint32_t c = 0; c < 2; c++)
                for (size_t k = 0; k < sizeof(protos) / sizeof(protos[0]); k++)
                    for (uint32_t n = 2; n <= 4; n++)
                        prove(ctx, f, c == 0 ? CES_COLL_ALLTOALL : CES_COLL_ALLGATHER,
                              protos[k][0], protos[k][1], n, per_peer[b] * n, 0);
    /* the overlap variant of gather, scatter and broadcast (the root's
     * local copy on s1), every root, forked before and after the ready
     * barrier */
    for (size_t b = 0; b < 2; b++)
        for (uint32_t c = CES_COLL_GATHER; c <= CES_COLL_BROADCAST; c++)
            for (size_t k = 0; k < sizeof(protos) / sizeof(protos[0]); k++)
                for (uint32_t n = 2; n <= 4; n++)
                    for (uint32_t root = 0; root < n; root++)
                        prove(ctx, CES_COLL_F_OVERLAP, c, protos[k][0], protos[k][1], n,
                              per_peer[b], root);
    ces_test_ctx_end(ctx, &st);
}

static void test_flag_errors(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_BROADCAST, CES_PROTO_MONO, 2, 1024, 1,
                                           CES_PHASE_EAGER);
    char *text = NULL;

    (void)state;
    p.flags = CES_COLL_F_EARLY;
    assert_int_equal(ces_coll_source(ctx, &p, &text, NULL), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "broadcast: the early variant applies to alltoall and allgather only");
    p.coll = CES_COLL_SENDRECV;
    p.flags = CES_COLL_F_OVERLAP;
    assert_int_equal(ces_coll_source(ctx, &p, &text, NULL), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "sendrecv: the overlap variant applies to alltoall, allgather, gather, "
                        "scatter and broadcast only");
    /* both where one of them does not apply: that one is refused first */
    p.coll = CES_COLL_BROADCAST;
    p.flags = CES_COLL_F_OVERLAP | CES_COLL_F_EARLY;
    assert_int_equal(ces_coll_source(ctx, &p, &text, NULL), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "broadcast: the early variant applies to alltoall and allgather only");
    p.coll = CES_COLL_ALLTOALL;
    assert_int_equal(ces_coll_source(ctx, &p, &text, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "alltoall: the overlap and early variants exclude each other");
    p.flags = 1u << 7;
    assert_int_equal(ces_coll_source(ctx, &p, &text, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "alltoall: unknown algorithm flags 0x80");
    p.flags = CES_COLL_F_EARLY;
    p.bytes = 1023;
    assert_int_equal(ces_coll_source(ctx, &p, &text, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "alltoall: bytes (1023) must be divisible by ranks (2)");
    p.coll = CES_COLL_ALLGATHER;
    p.flags = CES_COLL_F_OVERLAP;
    p.bytes = CES_MAX_BYTES;
    assert_int_equal(ces_coll_source(ctx, &p, &text, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "allgather: ranks x bytes (2 x 281474976710656) exceeds 2^48 bytes");
    assert_null(text);
    ces_test_ctx_end(ctx, &st);
}

static double predict_us(struct ces_ctx *ctx, uint32_t coll, uint32_t flags, uint64_t bytes)
{
    struct ces_coll_params p = coll_params(coll, CES_PROTO_MONO, 2, bytes, 4, CES_PHASE_EAGER);
    struct ces_graph *g = NULL;
    struct ces_predict r;

    p.flags = flags;
    assert_int_equal(ces_coll_build(ctx, &p, &g), CES_OK);
    assert_int_equal(ces_model_predict(ctx, ces_model_find("h200"), g, &r), CES_OK);
    ces_graph_destroy(g);
    return r.iter_us;
}

/* The h200 model ranks the variants as measured on 2x H200 (docs/
 * PERFORMANCE.md): overlap beats plain at every size, most at large ones. */
static void test_model_ranks_variants(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (uint32_t c = 0; c < 2; c++) {
        uint32_t coll = c == 0 ? CES_COLL_ALLTOALL : CES_COLL_ALLGATHER;

        for (uint64_t b = UINT64_C(1) << 20; b <= UINT64_C(1) << 30; b <<= 7)
            assert_true(predict_us(ctx, coll, CES_COLL_F_OVERLAP, b) <
                        predict_us(ctx, coll, 0, b));
        assert_true(predict_us(ctx, coll, CES_COLL_F_OVERLAP, UINT64_C(1) << 30) <
                    0.9 * predict_us(ctx, coll, 0, UINT64_C(1) << 30));
    }
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlap_text),  cmocka_unit_test(test_overlap_fork_point),
        cmocka_unit_test(test_early_text),
        cmocka_unit_test(test_all_build),     cmocka_unit_test(test_checker_proves_variants),
        cmocka_unit_test(test_flag_errors),
        cmocka_unit_test(test_model_ranks_variants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
