/*
 * tests/core/test_coll_broadcast.c - the broadcast builder: golden texts for every
 * protocol, the data movement of the expanded graph, parameter errors.
 */
#include "coll_check.h"

static void test_golden(void **state)
{
    (void)state;
    coll_golden_protocols(CES_COLL_BROADCAST);
    coll_golden_end();
}

static void test_root(void **state)
{
    (void)state;
    coll_root_checks(CES_COLL_BROADCAST);
    coll_golden_end();
}

static void test_root_ops(void **state)
{
    struct ces_coll_params p = coll_params(CES_COLL_BROADCAST, CES_PROTO_CREDIT, 3, 64, 1,
                                           CES_PHASE_GRAPH);

    (void)state;
    p.root = 1;
    coll_expect_ops(&p, 0, 1,
                    "produce send[0:64]\n"
                    "write ready[1]@2 = 1\n"
                    "write ready[1]@0 = 1\n"
                    "wait ready[2] == 1\n"
                    "wait ready[0] == 1\n"
                    "write ready[2] = 0\n"
                    "write ready[0] = 0\n"
                    "write ready_ack[1]@2 = 1\n"
                    "write ready_ack[1]@0 = 1\n"
                    "batch\n"
                    "copy send[0:64] -> recv[0:64]\n"
                    "copy send[0:64] -> recv[0:64]@2\n"
                    "copy send[0:64] -> recv[0:64]@0\n"
                    "end\n"
                    "write complete[1]@2 = 1\n"
                    "write complete[1]@0 = 1\n"
                    "wait complete[2] == 1\n"
                    "wait complete[0] == 1\n"
                    "write complete[2] = 0\n"
                    "write complete[0] = 0\n"
                    "write complete_ack[1]@2 = 1\n"
                    "write complete_ack[1]@0 = 1\n"
                    "consume recv[0:64] == send[0:64]@1\n"
                    "wait ready_ack[2] == 1\n"
                    "wait ready_ack[0] == 1\n"
                    "write ready_ack[2] = 0\n"
                    "write ready_ack[0] = 0\n"
                    "wait complete_ack[2] == 1\n"
                    "wait complete_ack[0] == 1\n"
                    "write complete_ack[2] = 0\n"
                    "write complete_ack[0] = 0\n");
}

static void test_nonroot_ops(void **state)
{
    struct ces_coll_params p = coll_params(CES_COLL_BROADCAST, CES_PROTO_CREDIT, 3, 64, 1,
                                           CES_PHASE_GRAPH);

    (void)state;
    p.root = 1;
    coll_expect_ops(&p, 0, 0,
                    "write ready[0]@1 = 1\n"
                    "write ready[0]@2 = 1\n"
                    "wait ready[1] == 1\n"
                    "wait ready[2] == 1\n"
                    "write ready[1] = 0\n"
                    "write ready[2] = 0\n"
                    "write ready_ack[0]@1 = 1\n"
                    "write ready_ack[0]@2 = 1\n"
                    "write complete[0]@1 = 1\n"
                    "write complete[0]@2 = 1\n"
                    "wait complete[1] == 1\n"
                    "wait complete[2] == 1\n"
                    "write complete[1] = 0\n"
                    "write complete[2] = 0\n"
                    "write complete_ack[0]@1 = 1\n"
                    "write complete_ack[0]@2 = 1\n"
                    "consume recv[0:64] == send[0:64]@1\n"
                    "wait ready_ack[1] == 1\n"
                    "wait ready_ack[2] == 1\n"
                    "write ready_ack[1] = 0\n"
                    "write ready_ack[2] = 0\n"
                    "wait complete_ack[1] == 1\n"
                    "wait complete_ack[2] == 1\n"
                    "write complete_ack[1] = 0\n"
                    "write complete_ack[2] = 0\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_root),
        cmocka_unit_test(test_root_ops),
        cmocka_unit_test(test_nonroot_ops),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
