/*
 * tests/support/alloc.c - the counting, failure-injecting allocator.
 */
#include "ces_test.h"

#include <stdlib.h>

/* Each block carries a header so realloc/free can be checked and counted. */
static void *t_malloc(void *ud, size_t size)
{
    struct ces_test_alloc *st = ud;

    st->calls++;
    if (size > st->largest)
        st->largest = size;
    if (st->fail_at != 0 && st->calls == st->fail_at)
        return NULL;
    void *p = malloc(size);
    if (p != NULL)
        st->live++;
    return p;
}

static void *t_realloc(void *ud, void *ptr, size_t size)
{
    struct ces_test_alloc *st = ud;

    if (ptr == NULL)
        return t_malloc(ud, size);
    st->calls++;
    if (size > st->largest)
        st->largest = size;
    if (st->fail_at != 0 && st->calls == st->fail_at)
        return NULL;
    return realloc(ptr, size);
}

static void t_free(void *ud, void *ptr)
{
    struct ces_test_alloc *st = ud;

    if (ptr == NULL)
        return;
    st->live--;
    free(ptr);
}

struct ces_alloc ces_test_hooks(struct ces_test_alloc *state)
{
    struct ces_alloc h = {t_malloc, t_realloc, t_free, state};

    return h;
}

struct ces_ctx *ces_test_ctx(struct ces_test_alloc *state)
{
    struct ces_alloc h = ces_test_hooks(state);
    struct ces_ctx *ctx = NULL;

    state->live = state->calls = state->fail_at = 0;
    state->largest = 0;
    assert_int_equal(ces_ctx_create(&h, &ctx), CES_OK);
    return ctx;
}

void ces_test_ctx_end(struct ces_ctx *ctx, struct ces_test_alloc *state)
{
    ces_ctx_destroy(ctx);
    assert_int_equal(state->live, 0);
}

long ces_test_alloc_failures(int (*body)(struct ces_ctx *ctx, void *arg), void *arg)
{
    for (long k = 1;; k++) {
        struct ces_test_alloc st = {0, 0, 0, 0};
        struct ces_alloc h = ces_test_hooks(&st);
        struct ces_ctx *ctx = NULL;
        int rc;

        assert_int_equal(ces_ctx_create(&h, &ctx), CES_OK);
        st.fail_at = st.calls + k;
        rc = body(ctx, arg);
        /* the failure is said (every error leaves a message) */
        if (rc != CES_OK && ces_ctx_last_error(ctx)[0] == '\0')
            fail_msg("allocation %ld failed without a message", k);
        ces_ctx_destroy(ctx);
        assert_int_equal(st.live, 0);
        if (st.calls < st.fail_at) {
            /* No allocation failed: the body ran to the end. */
            assert_int_equal(rc, CES_OK);
            return k - 1;
        }
        assert_int_equal(rc, CES_ERR_NOMEM);
    }
}
