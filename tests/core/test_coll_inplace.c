/*
 * tests/core/test_coll_inplace.c - the in-place forms (CES_COLL_F_INPLACE,
 * core/coll/inplace.c): golden texts, the flag errors, and what lets every
 * rank choose for itself: each rank's ops are those of the out-of-place
 * form with its own part where it belongs and the copy of it gone.
 */
#include "coll_check.h"

static const uint32_t inplace_colls[] = {CES_COLL_ALLGATHER, CES_COLL_GATHER, CES_COLL_SCATTER,
                                         CES_COLL_BROADCAST};

/* golden/<coll>_inplace_<proto>[_graph]_r4_b256_x2.ces, root 2 where the
 * collective has one: mono eager and pull graph. */
static void test_golden(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof(inplace_colls) / sizeof(inplace_colls[0]); c++) {
        for (int graph = 0; graph < 2; graph++) {
            struct ces_coll_params p =
                coll_params(inplace_colls[c], graph ? CES_PROTO_PULL : CES_PROTO_MONO, 4, 256, 2,
                            graph ? CES_PHASE_GRAPH : CES_PHASE_EAGER);
            char name[128];

            p.flags = CES_COLL_F_INPLACE;
            p.root = inplace_colls[c] == CES_COLL_ALLGATHER ? 0 : 2;
            snprintf(name, sizeof(name), "%s_inplace_%s_r4_b256_x2.ces",
                     ces_coll_name((int)inplace_colls[c]), graph ? "pull_graph" : "mono");
            coll_golden(&p, name);
        }
    }
    coll_golden_end();
}

/* What cannot run in place says so, as the variants do; what the
 * collective lacks comes before what excludes what. */
static void test_errors(void **state)
{
    struct ces_coll_params p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_MONO, 2, 1024, 1,
                                           CES_PHASE_EAGER);

    (void)state;
    p.flags = CES_COLL_F_INPLACE;
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "alltoall: in place applies to allgather, gather, scatter and broadcast only");
    p.flags = CES_COLL_F_INPLACE | CES_COLL_F_EARLY;
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "alltoall: in place applies to allgather, gather, scatter and broadcast only");
    p.coll = CES_COLL_SENDRECV;
    p.flags = CES_COLL_F_INPLACE;
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "sendrecv: in place applies to allgather, gather, scatter and broadcast only");
    p.coll = CES_COLL_BARRIER;
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "barrier: in place applies to allgather, gather, scatter and broadcast only");
    p.coll = CES_COLL_ALLGATHER;
    p.flags = CES_COLL_F_INPLACE | CES_COLL_F_OVERLAP;
    coll_error(&p, CES_ERR_INVALID,
               "allgather: in place and the overlap variant exclude each other (in place there "
               "is no local copy to move)");
    p.flags = CES_COLL_F_INPLACE | CES_COLL_F_EARLY;
    coll_error(&p, CES_ERR_INVALID,
               "allgather: in place and the early variant exclude each other (in place there "
               "is no local copy to move)");
    p.flags = CES_COLL_F_INPLACE | CES_COLL_F_OVERLAP | CES_COLL_F_EARLY;
    coll_error(&p, CES_ERR_INVALID, "allgather: the overlap and early variants exclude each other");
    p.coll = CES_COLL_GATHER;
    p.flags = CES_COLL_F_INPLACE | CES_COLL_F_OVERLAP;
    coll_error(&p, CES_ERR_INVALID,
               "gather: in place and the overlap variant exclude each other (in place there is "
               "no local copy to move)");
    p.flags = CES_COLL_F_INPLACE | CES_COLL_F_EARLY;
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "gather: the early variant applies to alltoall and allgather only");
    p.flags = CES_COLL_F_INPLACE;
    p.root = 2;
    coll_error(&p, CES_ERR_INVALID, "gather: root must be a rank (0..1), not 2");
    p.flags = UINT32_C(1) << 4;
    coll_error(&p, CES_ERR_INVALID, "gather: unknown algorithm flags 0x10");
}

/* The in-place forms check what their collectives check: the root (of
 * broadcast too, which has no part of ranks x bytes), and ranks x bytes
 * past 2^48 (allgather, gather, scatter), each naming the collective. */
static void test_checks(void **state)
{
    struct ces_coll_params p = coll_params(CES_COLL_BROADCAST, CES_PROTO_MONO, 4, 256, 1,
                                           CES_PHASE_EAGER);
    char msg[128];

    (void)state;
    p.flags = CES_COLL_F_INPLACE;
    p.root = 4;
    coll_error(&p, CES_ERR_INVALID, "broadcast: root must be a rank (0..3), not 4");
    p.root = 0;
    for (size_t c = 0; c < 3; c++) {
        p.coll = inplace_colls[c];
        p.bytes = CES_MAX_BYTES / 4 + 1;
        snprintf(msg, sizeof(msg), "%s: ranks x bytes (4 x 70368744177665) exceeds 2^48 bytes",
                 ces_coll_name((int)p.coll));
        coll_error(&p, CES_ERR_INVALID, msg);
    }
}

/* The in-place form is the out-of-place one with every rank in place
 * (ces_test_in_place_on: each rank's own part renamed to where it belongs,
 * the copy onto itself dropped), op for op on every rank in every block:
 * the same barriers, the same copies to peers from the same bytes, the
 * same reads - the own block read `==` itself, as out of place it is read
 * against the part that was copied into it.  Every protocol and phase the
 * builder takes, 2-8 ranks, every root. */
static void test_same_as_out_of_place(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    unsigned compared = 0;

    (void)state;
    for (size_t c = 0; c < sizeof(inplace_colls) / sizeof(inplace_colls[0]); c++)
        for (uint32_t pr = 0; pr < CES_PROTO_COUNT; pr++)
            for (uint32_t ph = CES_PHASE_EAGER; ph <= CES_PHASE_GRAPH; ph++)
                for (uint32_t n = 2; n <= 8; n++)
                    for (uint32_t root = 0; root < (inplace_colls[c] == CES_COLL_ALLGATHER ? 1 : n);
                         root++) {
                        struct ces_coll_params p = coll_params(inplace_colls[c], pr, n, 96, 2, ph);
                        struct ces_graph *in, *want;

                        if (pr == CES_PROTO_MONO && ph == CES_PHASE_GRAPH)
                            continue;
                        p.root = root;
                        want = ces_test_in_place_on(ctx, &p, (UINT64_C(1) << n) - 1);
                        p.flags = CES_COLL_F_INPLACE;
                        in = coll_graph(ctx, &p);
                        assert_int_equal(ces_graph_nblocks(in), ces_graph_nblocks(want));
                        for (uint32_t b = 0; b < ces_graph_nblocks(in); b++)
                            for (uint32_t r = 0; r < n; r++) {
                                char *a = coll_ops_text(in, b, r), *w = coll_ops_text(want, b, r);

                                if (strcmp(a, w) != 0)
                                    fail_msg("%s in place, %s %s, %u ranks, root %u, block %u, "
                                             "rank %u:\n%s\nwant:\n%s",
                                             ces_coll_name((int)p.coll), ces_proto_name((int)pr),
                                             ph == CES_PHASE_GRAPH ? "graph" : "eager", n, root,
                                             b, r, a, w);
                                free(a);
                                free(w);
                                compared++;
                            }
                        ces_graph_destroy(in);
                        ces_graph_destroy(want);
                    }
    /* 7 protocol/phase pairs, 2 blocks eager and 1 in a graph phase: per
     * pair and rank count n, n ranks once (allgather) or n roots x n ranks */
    assert_int_equal(compared, (4 * 2 + 3 * 1) * (35 + 3 * 203));
    ces_test_ctx_end(ctx, &st);
}

/* The in-place allgather's own block is never copied: rank 1 of 3 pushes
 * its block of recv to its two peers and reads every block, its own against
 * itself (it must still hold what the rank produced). */
static void test_allgather_ops(void **state)
{
    struct ces_coll_params p = coll_params(CES_COLL_ALLGATHER, CES_PROTO_MONO, 3, 64, 1,
                                           CES_PHASE_EAGER);

    (void)state;
    p.flags = CES_COLL_F_INPLACE;
    coll_expect_ops(&p, 0, 1,
                    "produce recv[64:128]\n"
                    "write ready[0] = 1\n"
                    "wait ready[0]@2 >= 1\n"
                    "wait ready[0]@0 >= 1\n"
                    "batch\n"
                    "copy recv[64:128] -> recv[64:128]@2\n"
                    "copy recv[64:128] -> recv[64:128]@0\n"
                    "end\n"
                    "write complete[0] = 1\n"
                    "wait complete[0]@2 >= 1\n"
                    "wait complete[0]@0 >= 1\n"
                    "consume recv[64:128] == recv[64:128]@1\n"
                    "consume recv[128:192] == recv[128:192]@2\n"
                    "consume recv[0:64] == recv[0:64]@0\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_same_as_out_of_place),
        cmocka_unit_test(test_allgather_ops),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
