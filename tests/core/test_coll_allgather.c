/*
 * tests/core/test_coll_allgather.c - the allgather builder: golden texts for every
 * protocol, the data movement of the expanded graph, parameter errors.
 */
#include "coll_check.h"

static void test_golden(void **state)
{
    (void)state;
    coll_golden_protocols(CES_COLL_ALLGATHER);
    coll_golden_end();
}

static void test_rank1_ops(void **state)
{
    struct ces_coll_params p = coll_params(CES_COLL_ALLGATHER, CES_PROTO_NCCL, 3, 64, 1,
                                           CES_PHASE_EAGER);

    (void)state;
    p.root = 0;
    coll_expect_ops(&p, 0, 1,
                    "produce send[0:64]\n"
                    "write ready[1]@2 = 1\n"
                    "write ready[1]@0 = 1\n"
                    "wait ready[2] == 1\n"
                    "wait ready[0] == 1\n"
                    "batch\n"
                    "copy send[0:64] -> recv[64:128]\n"
                    "copy send[0:64] -> recv[64:128]@2\n"
                    "copy send[0:64] -> recv[64:128]@0\n"
                    "end\n"
                    "write complete[1]@2 = 2\n"
                    "write complete[1]@0 = 2\n"
                    "wait complete[2] == 2\n"
                    "wait complete[0] == 2\n"
                    "consume recv[64:128] == send[0:64]@1\n"
                    "consume recv[128:192] == send[0:64]@2\n"
                    "consume recv[0:64] == send[0:64]@0\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_rank1_ops),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
