/*
 * tests/support/check.c - the checker's verdict on a schedule, for tests
 * that build one and want it proved.
 */
#include "ces_test.h"

uint32_t ces_test_verdict(struct ces_ctx *ctx, const struct ces_graph *g)
{
    return ces_test_verdict_flags(ctx, g, 0);
}

uint32_t ces_test_verdict_flags(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t flags)
{
    struct ces_check_opts o;
    struct ces_check_report *rep = NULL;
    uint32_t v;

    ces_check_opts_init(&o);
    o.flags = flags;
    o.max_seconds = 30;
    assert_int_equal(ces_check(ctx, g, &o, &rep), CES_OK);
    assert_int_equal(ces_check_report_stats(rep).complete, 1);
    v = ces_check_report_verdict(rep);
    ces_check_report_destroy(rep);
    return v;
}
