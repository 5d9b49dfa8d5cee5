/*
 * tests/tools/test_common.c - the shared parts of the cesync command: sizes
 * with suffixes and the builder options of ces_tool_load.
 */
#include "ces_test.h"
#include "tool.h"

#include <string.h>

static void test_parse_size(void **state)
{
    uint64_t v = 0;

    (void)state;
    assert_int_equal(ces_tool_parse_size("4096", &v), CES_OK);
    assert_int_equal(v, 4096);
    assert_int_equal(ces_tool_parse_size("64K", &v), CES_OK);
    assert_int_equal(v, 65536);
    assert_int_equal(ces_tool_parse_size("1M", &v), CES_OK);
    assert_int_equal(v, 1048576);
    assert_int_equal(ces_tool_parse_size("1G", &v), CES_OK);
    assert_int_equal(v, 1073741824);
    assert_int_equal(ces_tool_parse_size("1T", &v), CES_ERR_INVALID);
    assert_int_equal(ces_tool_parse_size("-1", &v), CES_ERR_INVALID);
    assert_int_equal(ces_tool_parse_size("12x", &v), CES_ERR_INVALID);
    assert_int_equal(ces_tool_parse_size("", &v), CES_ERR_INVALID);
    assert_int_equal(ces_tool_parse_size("99999999999999999999", &v), CES_ERR_INVALID);
    assert_int_equal(ces_tool_parse_size("17179869184G", &v), CES_ERR_INVALID);
}

static void test_wants_help(void **state)
{
    char a0[] = "alltoall", a1[] = "--ranks", a2[] = "2", a3[] = "-h", a4[] = "--help";
    char *argv[] = {a0, a1, a2, a3, a4};

    (void)state;
    assert_int_equal(ces_tool_wants_help(3, argv), 0);
    assert_int_equal(ces_tool_wants_help(4, argv), 1);
    assert_int_equal(ces_tool_wants_help(1, argv + 4), 1);
    assert_int_equal(ces_tool_wants_help(0, argv + 4), 0);
}

/* Builder options are taken out of argv wherever they are; the rest stays in
 * order for the subcommand. */
static void test_load_collective(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_prog *p = NULL;
    char a0[] = "alltoall", a1[] = "--dot", a2[] = "x.svg", a3[] = "--ranks", a4[] = "3",
         a5[] = "--bytes", a6[] = "3K", a7[] = "--json", a8[] = "--sync", a9[] = "nccl";
    char *argv[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
    int rest = -1;

    (void)state;
    assert_int_equal(ces_tool_load(ctx, 10, argv, &rest, &g, &p), CES_EXIT_OK);
    assert_int_equal(rest, 3);
    assert_string_equal(argv[0], "--dot");
    assert_string_equal(argv[1], "x.svg");
    assert_string_equal(argv[2], "--json");
    assert_int_equal(ces_graph_ranks(g), 3);
    assert_int_equal(ces_graph_buffer(g, (uint32_t)ces_graph_find_buffer(g, "send")).size, 3072);
    assert_non_null(p);
    ces_prog_destroy(p);
    ces_graph_destroy(g);
    {
        char b0[] = "allgather", b1[] = "--variant", b2[] = "overlap";
        char *bargv[] = {b0, b1, b2};

        assert_int_equal(ces_tool_load(ctx, 3, bargv, &rest, &g, NULL), CES_EXIT_OK);
        assert_int_equal(rest, 0);
        assert_int_equal(ces_graph_streams(g), 2);
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_load_errors(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    char a0[] = "alltoall", a1[] = "--ranks", a2[] = "1";
    char *argv[] = {a0, a1, a2};
    char b0[] = "alltoall", b1[] = "--sync", b2[] = "fast";
    char *bargv[] = {b0, b1, b2};
    char c0[] = "alltoall", c1[] = "--bytes";
    char *cargv[] = {c0, c1};
    char v0[] = "alltoall", v1[] = "--variant", v2[] = "fastest";
    char *vargv[] = {v0, v1, v2};
    char d0[] = CES_FIXTURES "/no-such-file.ces";
    char *dargv[] = {d0};
    int rest;

    (void)state;
    assert_int_equal(ces_tool_load(ctx, 3, argv, &rest, &g, NULL), CES_EXIT_USAGE);
    assert_null(g);
    assert_int_equal(ces_tool_load(ctx, 3, bargv, &rest, &g, NULL), CES_EXIT_USAGE);
    assert_int_equal(ces_tool_load(ctx, 2, cargv, &rest, &g, NULL), CES_EXIT_USAGE);
    assert_int_equal(ces_tool_load(ctx, 3, vargv, &rest, &g, NULL), CES_EXIT_USAGE);
    {
        char p0[] = "sendrecv", p1[] = "--pairs", p2[] = "0:1,";
        char *pargv[] = {p0, p1, p2};

        assert_int_equal(ces_tool_load(ctx, 3, pargv, &rest, &g, NULL), CES_EXIT_USAGE);
        assert_null(g);
    }
    assert_int_equal(ces_tool_load(ctx, 1, dargv, &rest, &g, NULL), CES_EXIT_USAGE);
    assert_null(g);
    ces_test_ctx_end(ctx, &st);
}

/* --chunks 1 alone: one staging slot, not the default 2 (which would exceed
 * the chunks). */
static void test_slots_follow_chunks(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    char a0[] = "sendrecv", a1[] = "--chunks", a2[] = "1", a3[] = "--ranks", a4[] = "2";
    char *argv[] = {a0, a1, a2, a3, a4};
    int rest;

    (void)state;
    assert_int_equal(ces_tool_load(ctx, 5, argv, &rest, &g, NULL), CES_EXIT_OK);
    assert_int_equal(ces_graph_buffer(g, (uint32_t)ces_graph_find_buffer(g, "stage")).size, 1024);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* No schedule named: the built-in 4-rank alltoall. */
static void test_load_default(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    int rest;

    (void)state;
    assert_int_equal(ces_tool_load(ctx, 0, NULL, &rest, &g, NULL), CES_EXIT_OK);
    assert_int_equal(rest, 0);
    assert_int_equal(ces_graph_ranks(g), 4);
    assert_true(ces_graph_find_buffer(g, "recv") >= 0);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_wants_help),
        cmocka_unit_test(test_load_collective),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_load_default),
        cmocka_unit_test(test_slots_follow_chunks),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
