/*
 * tests/core/test_coll_sendrecv.c - the sendrecv builder: chunked messages
 * through the receiver's staging slots with credits, one stream for sends
 * and one for receives, flags in each protocol's style.
 */
#include "coll_check.h"

static void test_golden(void **state)
{
    struct ces_coll_params p;

    (void)state;
    p = coll_params(CES_COLL_SENDRECV, CES_PROTO_NCCL, 3, 1024, 2, CES_PHASE_EAGER);
    coll_golden(&p, "sendrecv_nccl_r3_b1024_x2.ces");
    p = coll_params(CES_COLL_SENDRECV, CES_PROTO_MONO, 3, 1024, 2, CES_PHASE_EAGER);
    coll_golden(&p, "sendrecv_mono_r3_b1024_x2.ces");
    p = coll_params(CES_COLL_SENDRECV, CES_PROTO_CREDIT, 3, 1024, 2, CES_PHASE_EAGER);
    coll_golden(&p, "sendrecv_credit_r3_b1024_x2.ces");
    p.phase = CES_PHASE_GRAPH;
    coll_golden(&p, "sendrecv_credit_graph_r3_b1024_x2.ces");
    /* both sides send first: 0 -> 1 and 1 -> 0, plus 2 -> 1 (two messages in) */
    p = coll_params(CES_COLL_SENDRECV, CES_PROTO_NCCL, 3, 512, 1, CES_PHASE_EAGER);
    p.npairs = 3;
    p.pairs[0][0] = 0, p.pairs[0][1] = 1;
    p.pairs[1][0] = 1, p.pairs[1][1] = 0;
    p.pairs[2][0] = 2, p.pairs[2][1] = 1;
    p.chunks = 2;
    p.slots = 1;
    coll_golden(&p, "sendrecv_nccl_pairs_r3_b512_x1.ces");
    coll_golden_end();
}

/* The middle rank of the pipeline sends on s0 and receives on s1; a chunk
 * reuses a slot only after the credit of its previous use. */
static void test_credit_pipeline_rank(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_SENDRECV, CES_PROTO_CREDIT, 3, 1024, 1,
                                           CES_PHASE_GRAPH);
    struct ces_graph *g;
    char *ops;

    (void)state;
    g = coll_graph(ctx, &p);
    assert_int_equal(ces_graph_streams(g), 2);
    assert_int_equal(ces_graph_buffer(g, 2).size, 512); /* stage: 2 slots of 256 */
    ops = coll_ops_text(g, 0, 1);
    assert_string_equal(ops, "produce send[0:1024]\n"
                             "s1 wait full[0] == 1\n"
                             "s1 write full[0] = 0\n"
                             "s1 copy stage[0:256] -> recv[0:256]\n"
                             "s1 write credit[0]@0 = 1\n"
                             "copy send[0:256] -> stage[0:256]@2\n"
                             "write full[0]@2 = 1\n"
                             "s1 wait full[1] == 1\n"
                             "s1 write full[1] = 0\n"
                             "s1 copy stage[256:512] -> recv[256:512]\n"
                             "s1 write credit[1]@0 = 1\n"
                             "copy send[256:512] -> stage[256:512]@2\n"
                             "write full[1]@2 = 1\n"
                             "s1 wait full[0] == 1\n"
                             "s1 write full[0] = 0\n"
                             "s1 copy stage[0:256] -> recv[512:768]\n"
                             "s1 write credit[0]@0 = 1\n"
                             "wait credit[0] == 1\n"
                             "write credit[0] = 0\n"
                             "copy send[512:768] -> stage[0:256]@2\n"
                             "write full[0]@2 = 1\n"
                             "s1 wait full[1] == 1\n"
                             "s1 write full[1] = 0\n"
                             "s1 copy stage[256:512] -> recv[768:1024]\n"
                             "s1 write credit[1]@0 = 1\n"
                             "wait credit[1] == 1\n"
                             "write credit[1] = 0\n"
                             "copy send[768:1024] -> stage[256:512]@2\n"
                             "write full[1]@2 = 1\n"
                             "s1 consume recv[0:1024] == send[0:1024]@0\n"
                             "wait credit[0] == 1\n"
                             "write credit[0] = 0\n"
                             "wait credit[1] == 1\n"
                             "write credit[1] = 0\n");
    free(ops);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* nccl: use counts with ==; chunks are numbered across iterations, so the
 * second iteration holds chunks 3..5, chunk g fills slot g % 2 for the
 * (g / 2 + 1)-th time, and after announcing chunk g the sender waits for the
 * credit of chunk g + 1's slot. */
static void test_nccl_counts(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_SENDRECV, CES_PROTO_NCCL, 2, 300, 2,
                                           CES_PHASE_EAGER);
    struct ces_graph *g;
    char *ops;

    (void)state;
    p.chunks = 3;
    g = coll_graph(ctx, &p);
    ops = coll_ops_text(g, 1, 0);
    assert_string_equal(ops, "produce send[0:300]\n"
                             "copy send[0:100] -> stage[100:200]@1\n"
                             "write full[1]@1 = 2\n"
                             "wait credit[0] == 2\n"
                             "copy send[100:200] -> stage[0:100]@1\n"
                             "write full[0]@1 = 3\n"
                             "wait credit[1] == 2\n"
                             "copy send[200:300] -> stage[100:200]@1\n"
                             "write full[1]@1 = 3\n"
                             "wait credit[0] == 3\n");
    free(ops);
    ops = coll_ops_text(g, 1, 1);
    assert_string_equal(ops, "s1 wait full[1] == 2\n"
                             "s1 copy stage[100:200] -> recv[0:100]\n"
                             "s1 write credit[1]@0 = 2\n"
                             "s1 wait full[0] == 3\n"
                             "s1 copy stage[0:100] -> recv[100:200]\n"
                             "s1 write credit[0]@0 = 3\n"
                             "s1 wait full[1] == 3\n"
                             "s1 copy stage[100:200] -> recv[200:300]\n"
                             "s1 write credit[1]@0 = 3\n"
                             "s1 consume recv[0:300] == send[0:300]@0\n");
    free(ops);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Both sides of a pair send first, a rank receives two messages, one
 * staging slot: the checker finds no deadlock, hang, race or mismatch. */
static void test_checker_send_first(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (uint32_t pr = 0; pr < CES_PROTO_COUNT; pr++) {
        for (uint32_t ph = 0; ph < 2; ph++) {
            struct ces_coll_params p = coll_params(CES_COLL_SENDRECV, pr, 3, 64, 3, ph);
            struct ces_check_report *r = NULL;
            struct ces_check_opts o;
            struct ces_graph *g = NULL;

            p.npairs = 3;
            p.pairs[0][0] = 0, p.pairs[0][1] = 1;
            p.pairs[1][0] = 1, p.pairs[1][1] = 0;
            p.pairs[2][0] = 2, p.pairs[2][1] = 1;
            p.chunks = 2;
            p.slots = 1;
            if (ces_coll_build(ctx, &p, &g) != CES_OK)
                continue; /* nccl and mono are eager only */
            ces_check_opts_init(&o);
            o.max_seconds = 60;
            assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
            assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
            ces_check_report_destroy(r);
            ces_graph_destroy(g);
        }
    }
    ces_test_ctx_end(ctx, &st);
}

/* The pairs of shape k on n ranks: 0 the default pipeline, 1 the ring
 * both ways (0->1->...->n-1->0 and back; on 2 ranks 0->1, 1->0), 2 every
 * rank to the last, 3 the first to every rank. */
static void shape_pairs(struct ces_coll_params *p, uint32_t k, uint32_t n)
{
    p->npairs = 0;
    for (uint32_t r = 0; r < n && k != 0; r++) {
        if (k == 1 && (n > 2 || r == 0)) {
            p->pairs[p->npairs][0] = r, p->pairs[p->npairs][1] = (r + 1) % n;
            p->npairs++;
            p->pairs[p->npairs][0] = (r + 1) % n, p->pairs[p->npairs][1] = r;
            p->npairs++;
        } else if (k != 1 && r + 1 < n) {
            p->pairs[p->npairs][0] = k == 2 ? r : 0;
            p->pairs[p->npairs][1] = k == 2 ? n - 1 : r + 1;
            p->npairs++;
        }
    }
}

/* Every chunk and slot shape - one chunk in one slot, one chunk through two
 * slots (the bench's one-way staging), as many slots as chunks, more
 * chunks than slots, more slots than chunks (nccl and mono; credit refuses
 * both with more slots) - with every protocol and phase that claims it, the pipeline, the
 * ring both ways, fan-in and fan-out on 2-4 ranks, 2 iterations
 * (replays): OK over all interleavings. */
static void test_checker_shapes(void **state)
{
    static const uint32_t protos[][2] = {{CES_PROTO_NCCL, CES_PHASE_EAGER},
                                         {CES_PROTO_MONO, CES_PHASE_EAGER},
                                         {CES_PROTO_CREDIT, CES_PHASE_EAGER},
                                         {CES_PROTO_CREDIT, CES_PHASE_GRAPH}};
    static const uint32_t shapes[][2] = {{1, 1}, {1, 2}, {2, 2}, {3, 2}, {2, 3}};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    unsigned proved = 0, refused = 0;

    (void)state;
    for (size_t k = 0; k < sizeof(protos) / sizeof(protos[0]); k++)
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
            for (uint32_t pairs = 0; pairs < 4; pairs++)
                for (uint32_t n = 2; n <= 4; n++) {
                    struct ces_coll_params p =
                        coll_params(CES_COLL_SENDRECV, protos[k][0], n, 48, 2, protos[k][1]);
                    struct ces_graph *g = NULL;
                    uint32_t v;
                    int rc;

                    p.chunks = shapes[s][0];
                    p.slots = shapes[s][1];
                    shape_pairs(&p, pairs, n);
                    rc = ces_coll_build(ctx, &p, &g);
                    if (p.proto == CES_PROTO_CREDIT && p.slots > p.chunks) {
                        assert_int_equal(rc, CES_ERR_INVALID);
                        refused++;
                        continue;
                    }
                    if (rc != CES_OK)
                        fail_msg("%s: %s", ces_proto_name((int)p.proto), ces_ctx_last_error(ctx));
                    v = ces_test_verdict(ctx, g);
                    if (v != CES_V_OK)
                        fail_msg("%s %s chunks %u slots %u pairs shape %u, %u ranks: verdict 0x%x",
                                 ces_proto_name((int)p.proto), p.phase ? "graph" : "eager",
                                 p.chunks, p.slots, pairs, n, v);
                    ces_graph_destroy(g);
                    proved++;
                }
    /* 4 protocol/phase pairs x 5 shapes x 4 pair shapes x 3 rank counts,
     * less credit's 2 x 2 shapes with more slots than chunks x 12 */
    assert_int_equal(proved, 4 * 5 * 4 * 3 - 48);
    assert_int_equal(refused, 48);
    ces_test_ctx_end(ctx, &st);
}

/* A message built alone with first_iter = F (as the CUDA backend builds one
 * call at a time) is exactly the F-th message of the schedule from 1: same
 * slots, same counts, every rank, for chunk/slot shapes with and without a
 * common divisor; its text is canonical (print(parse(text)) == text). */
static void test_first_iter_continues(void **state)
{
    static const uint32_t shapes[][2] = {{1, 2}, {2, 2}, {3, 2}, {1, 3}, {4, 3}};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (uint32_t proto = 0; proto < 2; proto++) {
        for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
            for (uint64_t F = 2; F <= 7; F += 5) {
                struct ces_coll_params all = coll_params(
                    CES_COLL_SENDRECV, proto == 0 ? CES_PROTO_MONO : CES_PROTO_NCCL, 3, 1200,
                    (uint32_t)F, CES_PHASE_EAGER);
                struct ces_coll_params one = all;
                struct ces_graph *ga, *g1;
                char *text;

                all.chunks = one.chunks = shapes[k][0];
                all.slots = one.slots = shapes[k][1];
                one.iterations = 1;
                one.first_iter = F;
                text = coll_text(ctx, &one);
                coll_roundtrip(ctx, text);
                ces_free(ctx, text);
                ga = coll_graph(ctx, &all);
                g1 = coll_graph(ctx, &one);
                for (uint32_t r = 0; r < 3; r++) {
                    char *a = coll_ops_text(ga, (uint32_t)F - 1, r);
                    char *b = coll_ops_text(g1, 0, r);

                    assert_string_equal(b, a);
                    free(a);
                    free(b);
                }
                ces_graph_destroy(ga);
                ces_graph_destroy(g1);
            }
        }
    }
    ces_test_ctx_end(ctx, &st);
}

/* Built alone from first_iter 2, a sender of nccl or mono with two slots
 * first awaits the credit of the previous call's last chunk in the other
 * slot, which nothing writes: nccl HANGs; mono DEADLOCKs (its `>=` wait
 * would take this call's credit of that slot, which comes only after the
 * send the wait holds back).  With one slot it awaits only its own chunks'
 * credits (OK), and credit starts every call with its slots free. */
static void test_first_iter_alone(void **state)
{
    static const struct {
        uint32_t proto, slots, verdict;
    } cases[] = {{CES_PROTO_NCCL, 2, CES_V_HANG},    {CES_PROTO_MONO, 2, CES_V_DEADLOCK},
                 {CES_PROTO_NCCL, 1, CES_V_OK},      {CES_PROTO_MONO, 1, CES_V_OK},
                 {CES_PROTO_CREDIT, 2, CES_V_OK}};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ces_coll_params p =
            coll_params(CES_COLL_SENDRECV, cases[i].proto, 2, 64, 1, CES_PHASE_EAGER);
        struct ces_graph *g;
        uint32_t v;

        p.slots = cases[i].slots;
        p.first_iter = 2;
        g = coll_graph(ctx, &p);
        v = ces_test_verdict(ctx, g);
        if (v != cases[i].verdict)
            fail_msg("%s, %u slots: verdict 0x%x, expected 0x%x",
                     ces_proto_name((int)cases[i].proto), cases[i].slots, v, cases[i].verdict);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

static void test_errors(void **state)
{
    struct ces_coll_params p = coll_params(CES_COLL_SENDRECV, CES_PROTO_NCCL, 3, 1002, 1,
                                           CES_PHASE_EAGER);

    (void)state;
    coll_error(&p, CES_ERR_INVALID, "sendrecv: bytes (1002) must be divisible by chunks (4)");
    p.bytes = 1024;
    p.slots = 1025;
    coll_error(&p, CES_ERR_INVALID, "sendrecv: slots must be 1..1024, not 1025");
    p.proto = CES_PROTO_CREDIT;
    p.slots = 5;
    coll_error(&p, CES_ERR_INVALID,
               "sendrecv: slots must be at most chunks (4) with CES_PROTO_CREDIT, not 5");
    p.proto = CES_PROTO_NCCL;
    p.slots = 2;
    p.chunks = 2048;
    coll_error(&p, CES_ERR_INVALID, "sendrecv: chunks must be 1..1024, not 2048");
    /* more slots than chunks: the staging buffer (3 slots of the whole
     * message, for each of 2 incoming pairs) is over 2^48 bytes */
    p.bytes = UINT64_C(1) << 46;
    p.chunks = 1;
    p.slots = 3;
    p.npairs = 2;
    p.pairs[0][0] = 0, p.pairs[0][1] = 2;
    p.pairs[1][0] = 1, p.pairs[1][1] = 2;
    coll_error(&p, CES_ERR_INVALID,
               "sendrecv: the staging buffer, 2 incoming messages x 3 slots x a chunk of "
               "70368744177664 bytes, exceeds 2^48 bytes");
    p.bytes = 1024;
    p.slots = 2;
    p.chunks = 4;
    p.npairs = 1;
    p.pairs[0][0] = 1;
    p.pairs[0][1] = 1;
    coll_error(&p, CES_ERR_INVALID,
               "sendrecv: pair 0 (1->1) must name two different ranks of 0..2");
    p.pairs[0][1] = 3;
    coll_error(&p, CES_ERR_INVALID,
               "sendrecv: pair 0 (1->3) must name two different ranks of 0..2");
    p.npairs = 65;
    coll_error(&p, CES_ERR_INVALID, "sendrecv: at most 64 pairs, not 65");
    /* one chunk more than the most; a message one byte more than two of
     * them fit in 2^48 bytes (rank 2 receives two) */
    p = coll_params(CES_COLL_SENDRECV, CES_PROTO_MONO, 3, 1024, 1, CES_PHASE_EAGER);
    p.chunks = CES_COLL_MAX_CHUNKS + 1;
    coll_error(&p, CES_ERR_INVALID, "sendrecv: chunks must be 1..1024, not 1025");
    p.chunks = 1;
    p.npairs = 2;
    p.pairs[0][0] = 0;
    p.pairs[0][1] = 2;
    p.pairs[1][0] = 1;
    p.pairs[1][1] = 2;
    p.bytes = CES_MAX_BYTES / 2 + 1;
    coll_error(&p, CES_ERR_INVALID,
               "sendrecv: 2 incoming messages x bytes (140737488355329) exceed 2^48 bytes");
    p = coll_params(CES_COLL_SENDRECV, CES_PROTO_NCCL, 3, 1024, 1, CES_PHASE_GRAPH);
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "sendrecv: nccl flags are use counts computed from $i, which a graph replay "
               "freezes; use CES_PROTO_CREDIT for graph phases");
    /* pull built nccl's schedule under another name */
    p = coll_params(CES_COLL_SENDRECV, CES_PROTO_PULL, 3, 1024, 1, CES_PHASE_EAGER);
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "sendrecv has no pull protocol; use CES_PROTO_NCCL, "
               "CES_PROTO_MONO or CES_PROTO_CREDIT");
    /* in a graph phase only credit builds: the others are not suggested */
    p = coll_params(CES_COLL_SENDRECV, CES_PROTO_PULL, 3, 1024, 1, CES_PHASE_GRAPH);
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "sendrecv has no pull protocol; use CES_PROTO_CREDIT for graph phases");
    /* one rank has no pair to send between */
    p = coll_params(CES_COLL_SENDRECV, CES_PROTO_MONO, 1, 1024, 1, CES_PHASE_EAGER);
    coll_error(&p, CES_ERR_INVALID, "sendrecv: ranks must be 2..1024 for a pair, not 1");
    p = coll_params(CES_COLL_SENDRECV, CES_PROTO_CREDIT, 100, 1024, 1, CES_PHASE_GRAPH);
    coll_error(&p, CES_ERR_INVALID,
               "sendrecv: the default pipeline of 100 ranks has more than 64 pairs; give the "
               "pairs");
    /* the longest default pipeline, 64 pairs of 65 ranks, is built; a rank
     * more is refused */
    p.ranks = 65;
    {
        struct ces_test_alloc st;
        struct ces_ctx *ctx = ces_test_ctx(&st);

        char *text = coll_text(ctx, &p);

        assert_non_null(strstr(text, "r63 : produce send[0:1024]\n"));
        ces_free(ctx, text);
        ces_test_ctx_end(ctx, &st);
    }
    p.ranks = 66;
    coll_error(&p, CES_ERR_INVALID,
               "sendrecv: the default pipeline of 66 ranks has more than 64 pairs; give the "
               "pairs");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_credit_pipeline_rank),
        cmocka_unit_test(test_nccl_counts),
        cmocka_unit_test(test_checker_send_first),
        cmocka_unit_test(test_checker_shapes),
        cmocka_unit_test(test_first_iter_continues),
        cmocka_unit_test(test_first_iter_alone),
        cmocka_unit_test(test_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
