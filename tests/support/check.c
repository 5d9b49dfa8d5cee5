/*
 * tests/support/check.c - the checker's verdict on a schedule, for tests
 * that build one and want it proved, and schedules written as .ces text.
 */
#include "ces_test.h"

#include <string.h>

struct ces_graph *ces_test_text_graph(struct ces_ctx *ctx, const char *text)
{
    struct ces_prog *prog = NULL;
    struct ces_graph *g = NULL;

    assert_int_equal(ces_prog_parse(ctx, text, strlen(text), "written.ces", &prog), CES_OK);
    assert_int_equal(ces_prog_expand(ctx, prog, &g), CES_OK);
    ces_prog_destroy(prog);
    return g;
}

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
