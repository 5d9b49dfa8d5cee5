/*
 * tests/core/test_coll_sync.c - the four barrier protocols as every
 * collective uses them: op shapes (writes then waits in one memop group),
 * widths, compares, values and resets.
 */
#include "coll_check.h"

/* One letter per op of rank r in block b: P produce, W write, T wait,
 * B batch, C copy, E end, N consume. */
static void kinds(const struct ces_graph *g, uint32_t b, uint32_t r, char *out)
{
    static const char letters[] = "CBEWTFLRAPN";
    uint32_t n = 0;
    const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

    for (uint32_t k = 0; k < n; k++)
        out[k] = letters[ops[k].kind];
    out[n] = '\0';
}

static void test_shapes(void **state)
{
    static const struct {
        uint32_t proto, phase;
        const char *want;
    } cases[] = {
        {CES_PROTO_NCCL, CES_PHASE_EAGER, "PWWWTTTBCCCCEWWWTTTNNNN"},
        {CES_PROTO_NCCL, CES_PHASE_GRAPH, "PWWWTTTWWWWBCCCCEWWWTTTWWWWNNNN"},
        {CES_PROTO_MONO, CES_PHASE_EAGER, "PWTTTBCCCCEWTTTNNNN"},
        {CES_PROTO_CREDIT, CES_PHASE_EAGER, "PWWWTTTWWWWWWBCCCCEWWWTTTWWWWWWNNNNTTTWWWTTTWWW"},
        {CES_PROTO_CREDIT, CES_PHASE_GRAPH, "PWWWTTTWWWWWWBCCCCEWWWTTTWWWWWWNNNNTTTWWWTTTWWW"},
        {CES_PROTO_PULL, CES_PHASE_EAGER, "PWWWTTTWWWBCCCCEWWWTTTWWWNNNN"},
        {CES_PROTO_PULL, CES_PHASE_GRAPH, "PWWWTTTWWWBCCCCEWWWTTTWWWNNNN"},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char got[128];

    (void)state;
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        struct ces_coll_params p = coll_params(CES_COLL_ALLTOALL, cases[c].proto, 4, 1024, 2,
                                               cases[c].phase);
        struct ces_graph *g = coll_graph(ctx, &p);

        for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
            for (uint32_t r = 0; r < 4; r++) {
                kinds(g, b, r, got);
                assert_string_equal(got, cases[c].want);
            }
        }
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* Widths, compares and values of every write and wait of a protocol. */
static void expect_flags(uint32_t coll, uint32_t proto, uint32_t phase)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(coll, proto, 3, 192, 3, phase);
    struct ces_graph *g = coll_graph(ctx, &p);

    for (uint32_t s = 0; s < ces_graph_nsignals(g); s++)
        assert_int_equal(ces_graph_signal(g, s).width, proto == CES_PROTO_MONO ? 64 : 32);
    for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
        for (uint32_t r = 0; r < 3; r++) {
            uint32_t n = 0;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);
            uint64_t it = ces_graph_block(g, b).first_iter;

            for (uint32_t k = 0; k < n; k++) {
                const struct ces_op *op = &ops[k];

                if (op->kind != CES_OP_WRITE && op->kind != CES_OP_WAIT)
                    continue;
                if (op->kind == CES_OP_WAIT)
                    assert_int_equal(op->cmp,
                                     proto == CES_PROTO_MONO ? CES_CMP_GEQ : CES_CMP_EQ);
                switch (proto) {
                case CES_PROTO_MONO:
                    /* never reset: the value is the iteration */
                    assert_int_equal(op->value, it);
                    break;
                case CES_PROTO_CREDIT:
                    assert_true(op->value <= 1);
                    /* a 0 is only ever written to the writer's own slots */
                    if (op->value == 0)
                        assert_int_equal(op->slot.rank, r);
                    break;
                case CES_PROTO_PULL:
                    /* a 1 into the writer's own memory, read there by the
                     * peer, which writes the 0 */
                    assert_true(op->value <= 1);
                    if (op->kind == CES_OP_WAIT || op->value == 0)
                        assert_int_not_equal(op->slot.rank, r);
                    else
                        assert_int_equal(op->slot.rank, r);
                    break;
                default:
                    if (phase == CES_PHASE_GRAPH)
                        assert_true(op->value <= 1);
                    else
                        assert_true(op->value == 2 * it - 1 || op->value == 2 * it);
                    break;
                }
            }
        }
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_flags(void **state)
{
    (void)state;
    for (uint32_t c = CES_COLL_ALLTOALL; c <= CES_COLL_BROADCAST; c++) {
        expect_flags(c, CES_PROTO_NCCL, CES_PHASE_EAGER);
        expect_flags(c, CES_PROTO_NCCL, CES_PHASE_GRAPH);
        expect_flags(c, CES_PROTO_MONO, CES_PHASE_EAGER);
        expect_flags(c, CES_PROTO_CREDIT, CES_PHASE_EAGER);
        expect_flags(c, CES_PROTO_CREDIT, CES_PHASE_GRAPH);
        expect_flags(c, CES_PROTO_PULL, CES_PHASE_EAGER);
        expect_flags(c, CES_PROTO_PULL, CES_PHASE_GRAPH);
    }
}

/* credit and pull never depend on $i: their graph bodies equal their eager
 * ones (pull but for the barrier, which it refuses). */
static void test_constant_protocols(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (uint32_t c = 0; c < CES_COLL_COUNT; c++) {
        for (uint32_t pr = CES_PROTO_CREDIT; pr <= CES_PROTO_PULL; pr++) {
            struct ces_coll_params p = coll_params(c, pr, 3, 192, 2, CES_PHASE_GRAPH);
            char *text = NULL;

            if (pr == CES_PROTO_PULL && c == CES_COLL_BARRIER) {
                assert_int_equal(ces_coll_source(ctx, &p, &text, NULL), CES_ERR_UNSUPPORTED);
                assert_non_null(strstr(ces_ctx_last_error(ctx), "two barriers per iteration"));
                continue;
            }
            if (pr == CES_PROTO_PULL && c == CES_COLL_SENDRECV)
                continue; /* graph sendrecv is credit's alone */
            text = coll_text(ctx, &p);
            assert_null(strstr(text, "$i"));
            ces_free(ctx, text);
        }
    }
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_constant_protocols),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
