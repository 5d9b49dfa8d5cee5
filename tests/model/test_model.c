/*
 * tests/model/test_model.c - the built-in machine kinds (model/model.c).
 */
#include "ces_test.h"

#include <string.h>

static void test_h200_table(void **state)
{
    const struct ces_model *m = ces_model_find("h200");

    (void)state;
    assert_non_null(m);
    assert_string_equal(m->kind, "h200");
    assert_int_equal(m->max_memops_per_batch, 255);
    assert_int_equal(m->flag_widths, CES_MODEL_W32 | CES_MODEL_W64);
    assert_int_equal(m->can_flush_remote_writes, 0);
    assert_int_equal(m->has_64bit_memops, 1);
    assert_int_equal(m->has_wait_nor, 1);
    assert_int_equal(m->copy_engines, 3);
    assert_int_equal(m->batch_engines, 1);
    assert_int_equal(m->max_ranks, 8);
    assert_true(m->peer_copy_gbps == 394.0);
    assert_true(m->local_copy_gbps == 2036.0);
    assert_true(m->signal_hop_us == 0.9);
    assert_true(m->signal_push_us == 4.2);
    assert_true(m->memop_batch_us == 2.4);
}

static void test_kind_listing(void **state)
{
    (void)state;
    assert_string_equal(ces_model_kind_name(0), "h200");
    assert_null(ces_model_kind_name(1));
    assert_null(ces_model_find("h100x"));
    assert_null(ces_model_find(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h200_table),
        cmocka_unit_test(test_kind_listing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
