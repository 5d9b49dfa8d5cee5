/*
 * protocol_test.c - the unit-test example of docs/API.md ("Checking a
 * protocol in a unit test"): a cmocka test outside the tree that proves a
 * sync protocol over every interleaving with the installed library, and
 * pins the exact verdict of two broken ones.  tests/install/check.sh builds
 * it against the installed package and runs it.
 */
#include <cesync.h>

#include <setjmp.h> /* cmocka.h wants these first */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

/* Two ranks push 4 KiB to each other three times: "your buffer is free"
 * before the copy, "your data is there" after it, 64-bit counters. */
static const char push[] =
    "cesync 1\n"
    "ranks 2\n"
    "buffer send 4096\n"
    "buffer recv 4096\n"
    "signal ready u64 1\n"
    "signal done u64 1\n"
    "phase eager x3\n"
    "r* : produce send[0:4096]\n"
    "r* : write ready[0]@(1-$r) = $i\n"
    "r* : wait ready[0] >= $i\n"
    "r* : copy send[0:4096] -> recv[0:4096]@(1-$r)\n"
    "r* : write done[0]@(1-$r) = $i\n"
    "r* : wait done[0] >= $i\n"
    "r* : consume recv[0:4096] == send[0:4096]@(1-$r)\n";

/* Checks a schedule and returns its verdict (enum ces_verdict bits); when
 * it is not `expect`, prints the report: each defect's counterexample, its
 * replay string and what blocked or raced. */
static uint32_t verdict_of(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t expect)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    uint32_t v;

    ces_check_opts_init(&o);
    if (ces_check(ctx, g, &o, &r) != CES_OK)
        fail_msg("ces_check: %s", ces_ctx_last_error(ctx));
    v = ces_check_report_verdict(r);
    if (v != expect)
        ces_check_report_print(ctx, r, stderr);
    ces_check_report_destroy(r);
    return v;
}

/* The verdict of .ces text; a syntax or semantic error fails the test with
 * its "name:line:col: expected ..." message. */
static uint32_t verdict_of_text(const char *name, const char *text, uint32_t expect)
{
    struct ces_ctx *ctx = NULL;
    struct ces_prog *p = NULL;
    struct ces_graph *g = NULL;
    uint32_t v;

    assert_int_equal(ces_ctx_create(NULL, &ctx), CES_OK);
    if (ces_prog_parse(ctx, text, strlen(text), name, &p) != CES_OK ||
        ces_prog_expand(ctx, p, &g) != CES_OK)
        fail_msg("%s", ces_ctx_last_error(ctx));
    v = verdict_of(ctx, g, expect);
    ces_graph_destroy(g);
    ces_prog_destroy(p);
    ces_ctx_destroy(ctx);
    return v;
}

/* The verdict of a built-in collective: a barrier of `ranks`, captured once
 * and replayed `replays` times, with sync protocol `proto`. */
static uint32_t verdict_of_barrier(uint32_t proto, uint32_t ranks, uint32_t replays,
                                   uint32_t expect)
{
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g = NULL;
    struct ces_coll_params p;
    uint32_t v;

    assert_int_equal(ces_ctx_create(NULL, &ctx), CES_OK);
    ces_coll_params_init(&p, CES_COLL_BARRIER);
    p.proto = proto;
    p.ranks = ranks;
    p.phase = CES_PHASE_GRAPH;
    p.iterations = replays;
    if (ces_coll_build(ctx, &p, &g) != CES_OK)
        fail_msg("%s", ces_ctx_last_error(ctx));
    v = verdict_of(ctx, g, expect);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    return v;
}

static void test_push_is_safe(void **state)
{
    (void)state;
    assert_int_equal(verdict_of_text("push", push, CES_V_OK), CES_V_OK);
}

/* Without "your buffer is free" a fast rank's next copy lands while its
 * peer still reads the last one: a race, and wrong data read. */
static void test_push_without_ready_races(void **state)
{
    char text[sizeof(push)];
    const char *cut = strstr(push, "r* : wait ready");
    const char *next = strchr(cut, '\n') + 1;

    (void)state;
    memcpy(text, push, (size_t)(cut - push));
    strcpy(text + (cut - push), next);
    assert_int_equal(verdict_of_text("push-no-ready", text, CES_V_RACE | CES_V_MISMATCH),
                     CES_V_RACE | CES_V_MISMATCH);
}

/* NCCL 2.28's captured barrier (the constant 1, reset after the wait):
 * replayed twice, a fast rank's next flag can be reset away; the
 * reset-then-acknowledge protocol is safe. */
static void test_captured_barrier(void **state)
{
    (void)state;
    assert_int_equal(verdict_of_barrier(CES_PROTO_NCCL, 2, 2, CES_V_HANG), CES_V_HANG);
    assert_int_equal(verdict_of_barrier(CES_PROTO_CREDIT, 3, 3, CES_V_OK), CES_V_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_push_is_safe),
        cmocka_unit_test(test_push_without_ready_races),
        cmocka_unit_test(test_captured_barrier),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
