/*
 * tests/cuda/test_no_comm.c - the CUDA backend's calls where no communicator
 * exists, on the CPU: every call on a communicator given NULL answers as
 * docs/API.md says (CES_ERR_INVALID, 0 ranks, device -1, no peer address,
 * a NULL destroyed as nothing).  In a cesync built without CUDA
 * (CES_TEST_NO_CUDA; backend/cuda/absent.c) every one of those calls links,
 * and the constructors fail with CES_ERR_UNSUPPORTED saying why, their
 * outputs NULL, their argument checks those of the build with CUDA.
 */
#include "ces_test.h"

#include <string.h>

static void test_null_comm(void **state)
{
    int x = 0;
    void *p = &x;

    (void)state;
    assert_int_equal(ces_comm_destroy(NULL), CES_OK);
    assert_int_equal(ces_comm_abort(NULL), CES_ERR_INVALID);
    assert_int_equal(ces_comm_status(NULL), CES_ERR_INVALID);
    assert_int_equal(ces_comm_rank(NULL), 0);
    assert_int_equal(ces_comm_size(NULL), 0);
    assert_int_equal(ces_comm_device(NULL), -1);
    assert_int_equal(ces_mem_alloc(NULL, 64, &p), CES_ERR_INVALID);
    assert_ptr_equal(p, &x); /* nothing written */
    assert_int_equal(ces_mem_free(NULL, &x), CES_ERR_INVALID);
    assert_null(ces_mem_peer(NULL, &x, 0));
    assert_int_equal(ces_launch(NULL, NULL, NULL, 0, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_alltoall(NULL, &x, &x, 4, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_allgather(NULL, &x, &x, 4, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_barrier(NULL, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_broadcast(NULL, &x, &x, 4, 0, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_gather(NULL, &x, &x, 4, 0, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_scatter(NULL, &x, &x, 4, 0, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_group_start(NULL), CES_ERR_INVALID);
    assert_int_equal(ces_group_end(NULL, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_send(NULL, &x, 4, 1), CES_ERR_INVALID);
    assert_int_equal(ces_recv(NULL, &x, 4, 1), CES_ERR_INVALID);
}

#ifdef CES_TEST_NO_CUDA
static void test_constructors_refuse(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_comm *c = (struct ces_comm *)&st, *all[3];

    (void)state;
    assert_int_equal(ces_comm_init(ctx, 0, 2, 0, "@x", &c), CES_ERR_UNSUPPORTED);
    assert_null(c);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_comm_init: this cesync was built without "
                                                 "CUDA (no GPU can be used)");
    for (int i = 0; i < 3; i++)
        all[i] = (struct ces_comm *)&st;
    assert_int_equal(ces_comm_init_all(ctx, 2, NULL, all), CES_ERR_UNSUPPORTED);
    assert_null(all[0]);
    assert_null(all[1]);
    assert_ptr_equal(all[2], &st); /* past ndev: untouched */
    assert_string_equal(ces_ctx_last_error(ctx), "ces_comm_init_all: this cesync was built "
                                                 "without CUDA (no GPU can be used)");
    c = (struct ces_comm *)&st;
    assert_int_equal(ces_comm_init_env(ctx, NULL, &c), CES_ERR_UNSUPPORTED);
    assert_null(c);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_comm_init_env: this cesync was built "
                                                 "without CUDA (no GPU can be used)");
    /* the argument checks of the build with CUDA */
    assert_int_equal(ces_comm_init(NULL, 0, 2, 0, NULL, &c), CES_ERR_INVALID);
    assert_int_equal(ces_comm_init(ctx, 0, 2, 0, NULL, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_comm_init: NULL argument");
    assert_int_equal(ces_comm_init_all(NULL, 2, NULL, all), CES_ERR_INVALID);
    assert_int_equal(ces_comm_init_all(ctx, 2, NULL, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_comm_init_all: NULL argument");
    assert_int_equal(ces_comm_init_env(NULL, NULL, &c), CES_ERR_INVALID);
    assert_int_equal(ces_comm_init_env(ctx, NULL, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_comm_init_env: NULL argument");
    ces_test_ctx_end(ctx, &st);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_comm),
#ifdef CES_TEST_NO_CUDA
        cmocka_unit_test(test_constructors_refuse),
#endif
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
