/*
 * tests/core/test_coll_inplace.c - the in-place forms (CES_COLL_F_INPLACE,
 * core/coll/inplace.c): golden texts, the flag errors, and what lets every
 * rank choose for itself: a rank's barriers and the destinations of its
 * copies to peers are those of the out-of-place form, op for op.
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
}

static void test_errors(void **state)
{
    struct ces_coll_params p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_MONO, 2, 1024, 1,
                                           CES_PHASE_EAGER);

    (void)state;
    p.flags = CES_COLL_F_INPLACE;
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "alltoall cannot run in place (allgather, gather, scatter and broadcast can)");
    p.coll = CES_COLL_SENDRECV;
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "sendrecv cannot run in place (allgather, gather, scatter and broadcast can)");
    p.coll = CES_COLL_BARRIER;
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "barrier cannot run in place (allgather, gather, scatter and broadcast can)");
    p.coll = CES_COLL_ALLGATHER;
    p.flags = CES_COLL_F_INPLACE | CES_COLL_F_OVERLAP;
    coll_error(&p, CES_ERR_INVALID,
               "allgather: in place there is no local copy for the overlap variant to move");
    p.flags = CES_COLL_F_INPLACE | CES_COLL_F_EARLY;
    coll_error(&p, CES_ERR_INVALID,
               "allgather: in place there is no local copy for the early variant to move");
    p.coll = CES_COLL_GATHER;
    p.flags = CES_COLL_F_INPLACE;
    p.root = 2;
    coll_error(&p, CES_ERR_INVALID, "gather: root must be a rank (0..1), not 2");
    p.flags = UINT32_C(1) << 3;
    coll_error(&p, CES_ERR_INVALID, "unknown algorithm flags 0x8");
}

/* Rank r's ops in the form that a rank issues them: no produce or consume
 * (the application's), no copy within the rank (its local copy) and no
 * batch left empty by that, and of a copy to a peer only its destination. */
static char *issued(const struct ces_graph *g, uint32_t r)
{
    char *text = coll_ops_text(g, 0, r), *out = malloc(strlen(text) + 1);
    size_t len = 0;

    assert_non_null(out);
    for (char *l = text; *l != '\0';) {
        char *nl = strchr(l, '\n');
        const char *arrow = strstr(l, " -> ");

        *nl = '\0';
        if (strncmp(l, "produce ", 8) == 0 || strncmp(l, "consume ", 8) == 0 ||
            (strncmp(l, "copy ", 5) == 0 && strchr(arrow, '@') == NULL)) {
            l = nl + 1;
            continue;
        }
        if (strcmp(l, "end") == 0 && len >= 6 && strcmp(out + len - 6, "batch\n") == 0) {
            len -= 6;
            l = nl + 1;
            continue;
        }
        len += (size_t)sprintf(out + len, "%s\n", strncmp(l, "copy ", 5) == 0 ? arrow + 4 : l);
        l = nl + 1;
    }
    out[len] = '\0';
    free(text);
    return out;
}

static void test_same_as_out_of_place(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    unsigned compared = 0;

    (void)state;
    for (size_t c = 0; c < sizeof(inplace_colls) / sizeof(inplace_colls[0]); c++)
        for (uint32_t pr = 0; pr < CES_PROTO__COUNT; pr++)
            for (uint32_t n = 2; n <= 4; n++)
                for (uint32_t root = 0; root < n; root++) {
                    uint32_t phase = pr == CES_PROTO_MONO ? CES_PHASE_EAGER : CES_PHASE_GRAPH;
                    struct ces_coll_params p = coll_params(inplace_colls[c], pr, n, 96, 2, phase);
                    struct ces_graph *in, *out;

                    p.root = root;
                    out = coll_graph(ctx, &p);
                    p.flags = CES_COLL_F_INPLACE;
                    in = coll_graph(ctx, &p);
                    for (uint32_t r = 0; r < n; r++) {
                        char *a = issued(in, r), *b = issued(out, r);

                        assert_string_equal(a, b);
                        /* the barriers are there */
                        assert_non_null(strstr(a, "wait "));
                        free(a);
                        free(b);
                        compared++;
                    }
                    ces_graph_destroy(in);
                    ces_graph_destroy(out);
                }
    assert_int_equal(compared, 4 * CES_PROTO__COUNT * (4 + 9 + 16));
    ces_test_ctx_end(ctx, &st);
}

/* The in-place allgather's own block is never copied: rank 1 of 3 pushes
 * its block of recv to its two peers and reads the others' blocks. */
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
                    "consume recv[128:192] == recv[128:192]@2\n"
                    "consume recv[0:64] == recv[0:64]@0\n"
                    "consume recv[64:128]\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_same_as_out_of_place),
        cmocka_unit_test(test_allgather_ops),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
