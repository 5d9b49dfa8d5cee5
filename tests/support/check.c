/*
 * tests/support/check.c - the checker's verdict on a schedule, for tests
 * that build one and want it proved, and schedules written as .ces text.
 */
#include "ces_test.h"

#include <inttypes.h>
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

struct ces_graph *ces_test_u64_pair(struct ces_ctx *ctx, uint64_t w, uint8_t cmp, uint64_t v)
{
    struct ces_graph *g = NULL;
    uint32_t f;
    struct ces_op wr = {.kind = CES_OP_WRITE, .value = w};
    struct ces_op wt = {.kind = CES_OP_WAIT, .cmp = cmp, .value = v};

    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U64, 1, &f), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    wr.slot = (struct ces_slot){f, 1, 0};
    wt.slot = (struct ces_slot){f, 1, 0};
    assert_int_equal(ces_graph_add_op(g, 0, &wr), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 1, &wt), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
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

void ces_test_same_report(const char *what, const char *cut, const struct ces_check_report *r,
                          const struct ces_check_report *w)
{
    struct ces_check_stats a = ces_check_report_stats(r), b = ces_check_report_stats(w);

    if (ces_check_report_verdict(r) != ces_check_report_verdict(w) ||
        a.states != b.states || a.transitions != b.transitions)
        fail_msg("%s: verdict %u, %" PRIu64 " states, %" PRIu64 " transitions; with %s: "
                 "verdict %u, %" PRIu64 " states, %" PRIu64 " transitions",
                 what, ces_check_report_verdict(r), a.states, a.transitions, cut,
                 ces_check_report_verdict(w), b.states, b.transitions);
    assert_int_equal(a.complete, b.complete);
    assert_int_equal(a.executions, b.executions);
    assert_int_equal(a.aborted, b.aborted);
    assert_int_equal(a.max_depth, b.max_depth);
    assert_int_equal(a.race_free_states, b.race_free_states);
    assert_int_equal(a.slice_states, b.slice_states);
    assert_int_equal(a.sample_executions, b.sample_executions);
    assert_int_equal(ces_check_report_ndefects(r), ces_check_report_ndefects(w));
    for (size_t i = 0; i < ces_check_report_ndefects(r); i++) {
        const struct ces_check_defect *d = ces_check_report_defect(r, i);
        const struct ces_check_defect *e = ces_check_report_defect(w, i);

        assert_int_equal(d->cls, e->cls);
        assert_string_equal(d->replay, e->replay);
    }
}

struct ces_coll_params ces_test_coll_params(uint32_t coll, uint32_t proto, uint32_t ranks,
                                            uint64_t bytes, uint32_t iterations, uint32_t phase)
{
    struct ces_coll_params p;

    ces_coll_params_init(&p, coll);
    p.proto = proto;
    p.ranks = ranks;
    p.bytes = bytes;
    p.iterations = iterations;
    p.phase = phase;
    return p;
}
