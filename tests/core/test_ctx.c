/*
 * tests/core/test_ctx.c - core/ctx.c: the last error, and the small
 * containers: the growable array's size arithmetic.
 */
#include "ces_test.h"
#include "internal.h"

#include <stdint.h>

/* A request whose item count or byte size does not fit in size_t is
 * CES_ERR_NOMEM and leaves the vector as it was (the count used to wrap and
 * report room that was never allocated). */
static void test_vec_reserve_overflow(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_vec v = {NULL, 0, 0};
    uint64_t x = 7;
    size_t cap;

    (void)state;
    assert_int_equal(ces_vec_push(ctx, &v, sizeof(x), &x), CES_OK);
    assert_int_equal(ces_vec_push(ctx, &v, sizeof(x), &x), CES_OK);
    cap = v.cap;
    assert_int_equal(ces_vec_reserve(ctx, &v, sizeof(x), SIZE_MAX - 1), CES_ERR_NOMEM);
    assert_int_equal(ces_vec_reserve(ctx, &v, sizeof(x), SIZE_MAX / sizeof(x)), CES_ERR_NOMEM);
    assert_int_equal(ces_vec_reserve(ctx, &v, sizeof(x), SIZE_MAX / sizeof(x) - 2),
                     CES_ERR_NOMEM);
    assert_int_equal(v.len, 2);
    assert_int_equal(v.cap, cap);
    assert_int_equal(CES_VEC_AT(&v, uint64_t, 1), 7);
    assert_int_equal(ces_vec_reserve(ctx, &v, sizeof(x), 100), CES_OK);
    assert_true(v.cap >= 102);
    ces_vec_free(ctx, &v);
    ces_test_ctx_end(ctx, &st);
}

/* The last error passed back to ces_ctx_error to add context to it: it
 * used to be read by vsnprintf while vsnprintf wrote over it, which left
 * the prefix where the old message should be ("loading x: loading x: ..."). */
static void test_error_wraps_last_error(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 0, 1, &g), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "ranks must be 1..1024, not 0");
    assert_int_equal(ces_ctx_error(ctx, CES_ERR_IO, "loading x: %s", ces_ctx_last_error(ctx)),
                     CES_ERR_IO);
    assert_string_equal(ces_ctx_last_error(ctx), "loading x: ranks must be 1..1024, not 0");
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vec_reserve_overflow),
        cmocka_unit_test(test_error_wraps_last_error),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
