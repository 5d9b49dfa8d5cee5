/*
 * tests/core/test_expand.c - expansion of programs into concrete graphs:
 * r*, over p / over p*, eager and graph phases, frozen $i, the u32 wrap,
 * events, semantic errors with file:line:col, the concrete printer's text
 * parsing back to an equal graph, ces_graph_load, allocation failures.
 */
#include "ces_test.h"
#include "prog.h"

#include <stdlib.h>
#include <string.h>

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');

    return s != NULL ? s + 1 : path;
}

/* Parses and expands text; fails the test on error. */
static struct ces_graph *build(struct ces_ctx *ctx, const char *text)
{
    struct ces_prog *p = NULL;
    struct ces_graph *g = NULL;

    if (ces_prog_parse(ctx, text, strlen(text), "t.ces", &p) != CES_OK)
        fail_msg("parse: %s", ces_ctx_last_error(ctx));
    if (ces_prog_expand(ctx, p, &g) != CES_OK)
        fail_msg("expand: %s", ces_ctx_last_error(ctx));
    ces_prog_destroy(p);
    return g;
}

static struct ces_graph *load_fixture(struct ces_ctx *ctx, const char *name)
{
    char path[1024];
    struct ces_graph *g = NULL;

    snprintf(path, sizeof(path), "%s/good/%s", CES_FIXTURES, name);
    if (ces_graph_load(ctx, path, &g) != CES_OK)
        fail_msg("%s: %s", name, ces_ctx_last_error(ctx));
    return g;
}

static void expect_expand_error(const char *text, int status, const char *msg)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = NULL;
    struct ces_graph *g = (struct ces_graph *)1;

    if (ces_prog_parse(ctx, text, strlen(text), "t.ces", &p) != CES_OK)
        fail_msg("parse: %s", ces_ctx_last_error(ctx));
    assert_int_equal(ces_prog_expand(ctx, p, &g), status);
    assert_null(g);
    assert_string_equal(ces_ctx_last_error(ctx), msg);
    ces_prog_destroy(p);
    ces_test_ctx_end(ctx, &st);
}

/* The text of one op, for compact assertions: OP(g, b, r, k) formats into
 * the calling test's `char t[256]`. */
#define OP(g, b, r, k) op_text(g, b, r, k, t)

static const char *op_text(const struct ces_graph *g, uint32_t b, uint32_t r, uint32_t k,
                           char *buf)
{
    uint32_t n;
    const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

    assert_true(k < n);
    ces_op_format(g, r, &ops[k], buf, 256);
    return buf;
}

static void test_alltoall(void **state)
{
    char t[256];
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = load_fixture(ctx, "alltoall.ces");
    const struct ces_op *ops;
    uint32_t n;

    (void)state;
    assert_int_equal(ces_graph_ranks(g), 4);
    assert_int_equal(ces_graph_streams(g), 1);
    assert_int_equal(ces_graph_nblocks(g), 2);
    assert_int_equal(ces_graph_iterations(g), 2);
    assert_int_equal(ces_graph_block(g, 1).kind, CES_PHASE_EAGER);
    assert_int_equal(ces_graph_block(g, 1).reps, 1);
    assert_int_equal(ces_graph_block(g, 1).first_iter, 2);
    assert_int_equal(ces_graph_nconsts(g), 1);
    ops = ces_graph_ops(g, 1, 1, &n);
    assert_int_equal(n, 1 + 3 + 3 + 1 + 4 + 1 + 3 + 3 + 4);
    assert_string_equal(OP(g, 1, 1, 0), "produce send[0:1024]");
    /* over p: the other ranks in rotated order $r+1, $r+2, ... */
    assert_string_equal(OP(g, 1, 1, 1), "write ready[1]@2 = 3");
    assert_string_equal(OP(g, 1, 1, 2), "write ready[1]@3 = 3");
    assert_string_equal(OP(g, 1, 1, 3), "write ready[1]@0 = 3");
    assert_string_equal(OP(g, 1, 1, 4), "wait ready[2] == 3");
    assert_string_equal(OP(g, 1, 1, 7), "batch");
    /* over p*: $r itself first */
    assert_string_equal(OP(g, 1, 1, 8), "copy send[256:512] -> recv[256:512]");
    assert_string_equal(OP(g, 1, 1, 9), "copy send[512:768] -> recv[256:512]@2");
    assert_string_equal(OP(g, 1, 1, 11), "copy send[0:256] -> recv[256:512]@0");
    assert_string_equal(OP(g, 1, 1, 12), "end");
    assert_string_equal(OP(g, 1, 1, 13), "write complete[1]@2 = 4");
    assert_string_equal(OP(g, 0, 1, 13), "write complete[1]@2 = 2");
    assert_string_equal(OP(g, 1, 1, 19), "consume recv[256:512] == send[256:512]@1");
    assert_string_equal(OP(g, 1, 1, 22), "consume recv[0:256] == send[256:512]@0");
    /* every op remembers its line and the column of its keyword */
    assert_int_equal(ops[8].line, 14);
    assert_int_equal(ops[8].col, 14);
    assert_int_equal(ops[0].line, 10);
    assert_int_equal(ops[0].col, 6);
    assert_int_equal(ops[0].flags, 0);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_phases_and_frozen_i(void **state)
{
    char t[256];
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = load_fixture(ctx, "phases_mixed.ces");
    const struct ces_op *ops;
    char *text = NULL;
    uint32_t n;

    (void)state;
    assert_int_equal(ces_graph_nblocks(g), 4);
    assert_int_equal(ces_graph_iterations(g), 6);
    assert_int_equal(ces_graph_block(g, 0).kind, CES_PHASE_EAGER);
    assert_int_equal(ces_graph_block(g, 1).first_iter, 2);
    assert_int_equal(ces_graph_block(g, 2).kind, CES_PHASE_GRAPH);
    assert_int_equal(ces_graph_block(g, 2).reps, 3);
    assert_int_equal(ces_graph_block(g, 2).first_iter, 3);
    assert_int_equal(ces_graph_block(g, 3).first_iter, 6);
    /* eager: $i is the iteration; never frozen */
    assert_string_equal(OP(g, 1, 0, 0), "write s[0]@1 = 2");
    ops = ces_graph_ops(g, 1, 0, &n);
    assert_int_equal(ops[0].flags & CES_OPF_FROZEN, 0);
    /* graph: evaluated once with $i = 3, the ops that read $i are frozen */
    assert_string_equal(OP(g, 2, 1, 0), "write epoch[0] = 30");
    ops = ces_graph_ops(g, 2, 1, &n);
    assert_int_equal(n, 10);
    assert_int_equal(ops[0].flags, CES_OPF_FROZEN);
    for (uint32_t k = 1; k < n; k++)
        assert_int_equal(ops[k].flags & CES_OPF_FROZEN, 0);
    assert_int_equal(ops[9].flags, CES_OPF_EXPECT);
    /* after the graph phase $i goes on counting from 6 */
    assert_string_equal(OP(g, 3, 1, 0), "write s[1]@0 = 6");
    assert_int_equal(ces_graph_print(ctx, g, CES_PRINT_EXPLAIN, &text, NULL), CES_OK);
    assert_non_null(strstr(text, "phase graph x3  # iterations 3..5\n"
                                 "r0 : write epoch[0] = 30  # $i frozen at 3 for all 3 replays\n"
                                 "r0 : produce x[0:64]\n"));
    ces_free(ctx, text);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_u32_wrap(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = load_fixture(ctx, "u32_wrap.ces");
    const struct ces_op *ops;
    uint32_t n;

    (void)state;
    ops = ces_graph_ops(g, 0, 0, &n);
    assert_int_equal(n, 2);
    assert_int_equal(ops[0].value, 5);
    assert_int_equal(ops[1].value, (UINT64_C(1) << 32) + 5);
    ops = ces_graph_ops(g, 0, 1, &n);
    assert_int_equal(ops[1].value, UINT64_C(1) << 32);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* x % -1 is 0 for every x, -2^63 included (whose C remainder traps). */
static void test_remainder_minus_one(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g =
        build(ctx, "cesync 1\nranks 2\nsignal s u64 2\nphase eager x1\n"
                   "r0 : write s[0]@1 = (-9223372036854775807-1)%(-1)+7%(-1)+5\n");
    const struct ces_op *ops;
    uint32_t n;

    (void)state;
    ops = ces_graph_ops(g, 0, 0, &n);
    assert_int_equal(n, 1);
    assert_int_equal(ops[0].value, 5);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_multicast_and_ranks(void **state)
{
    char t[256];
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = load_fixture(ctx, "multicast.ces");
    uint32_t n;

    (void)state;
    /* a write to @* is one unicast write per rank, rank 0 first */
    for (uint32_t q = 0; q < 4; q++)
        assert_int_equal(ces_graph_ops(g, 1, 2, &n)[q].slot.rank, q);
    assert_string_equal(OP(g, 1, 2, 0), "write arrive[2]@0 = 2");
    assert_string_equal(OP(g, 1, 2, 2), "write arrive[2] = 2");
    assert_string_equal(OP(g, 1, 2, 3), "write arrive[2]@3 = 2");
    assert_string_equal(OP(g, 1, 0, 7), "write go[0] = 2");
    assert_string_equal(OP(g, 1, 0, 10), "write go[0]@3 = 2");
    /* an rN line adds to that rank only */
    ces_graph_ops(g, 0, 0, &n);
    assert_int_equal(n, 13);
    ces_graph_ops(g, 0, 3, &n);
    assert_int_equal(n, 9);
    ces_graph_destroy(g);
    g = load_fixture(ctx, "single_rank.ces");
    /* over p with one rank repeats zero times; over p* once */
    assert_string_equal(OP(g, 0, 0, 1), "copy a[0:128] -> b[0:128]");
    assert_string_equal(OP(g, 0, 0, 2), "record e0");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_events(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = build(ctx, "cesync 1\nranks 2\nstreams 2\nphase eager x2\n"
                                     "r1 : record B\nr0 : record A\nr0 s1 : await A\n"
                                     "r1 s1 : await B\nr* s1 : record B\nr* : await B\n");
    uint32_t n;
    const struct ces_op *ops;

    (void)state;
    /* the table follows the concrete order: rank 0 first */
    assert_int_equal(ces_graph_nevents(g), 2);
    assert_string_equal(ces_graph_event(g, 0), "A");
    assert_string_equal(ces_graph_event(g, 1), "B");
    ops = ces_graph_ops(g, 1, 1, &n);
    assert_int_equal(n, 4);
    assert_int_equal(ops[0].kind, CES_OP_RECORD);
    assert_int_equal(ops[0].event, 1);
    assert_int_equal(ops[1].stream, 1);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* ces_graph_print's text parses and expands back to an equal graph. */
static void test_concrete_roundtrip(void **state)
{
    char **paths;
    size_t n = ces_test_list("good", ".ces", &paths);

    (void)state;
    assert_true(n >= 10);
    for (size_t k = 0; k < n; k++) {
        for (unsigned flags = 0; flags <= CES_PRINT_EXPLAIN; flags += CES_PRINT_EXPLAIN) {
            struct ces_test_alloc st;
            struct ces_ctx *ctx = ces_test_ctx(&st);
            struct ces_graph *g = NULL, *h = NULL;
            struct ces_prog *p = NULL;
            char *text = NULL, *again = NULL;
            size_t len = 0;

            if (ces_graph_load(ctx, paths[k], &g) != CES_OK)
                fail_msg("%s: %s", paths[k], ces_ctx_last_error(ctx));
            assert_int_equal(ces_graph_print(ctx, g, flags, &text, &len), CES_OK);
            if (ces_prog_parse(ctx, text, len, base_name(paths[k]), &p) != CES_OK ||
                ces_prog_expand(ctx, p, &h) != CES_OK)
                fail_msg("%s (concrete): %s\n%s", paths[k], ces_ctx_last_error(ctx), text);
            if (!ces_graph_equal(g, h))
                fail_msg("%s: the concrete text expands to a different graph", paths[k]);
            /* and the concrete text of the copy is the same text (without the
             * explanations: concrete text has no $i left to freeze) */
            if (flags == 0) {
                assert_int_equal(ces_graph_print(ctx, h, flags, &again, NULL), CES_OK);
                assert_string_equal(again, text);
            }
            ces_free(ctx, again);
            ces_free(ctx, text);
            ces_prog_destroy(p);
            ces_graph_destroy(h);
            ces_graph_destroy(g);
            ces_test_ctx_end(ctx, &st);
        }
    }
    ces_test_list_free(paths, n);
}

/* A declared name in an expansion's message shows its first 48 bytes and
 * "...": two names of 600 bytes took the message past its 1 KiB and cut
 * off what was wrong (the sizes). */
static void test_long_names_cut(void **state)
{
    char a[601], b[601], text[2600], want[256];

    (void)state;
    memset(a, 'a', 600);
    memset(b, 'b', 600);
    a[600] = b[600] = '\0';
    snprintf(text, sizeof(text), "cesync 1\nranks 2\nbuffer %s 64\nbuffer %s 64\n"
             "phase eager x1\nr0 : copy %s[0:8] -> %s[0:16]\n", a, b, a, b);
    snprintf(want, sizeof(want), "t.ces:6:6: copy sizes differ: source %.48s...[0:8]@0 has 8 "
             "bytes, destination %.48s...[0:16]@0 has 16", a, b);
    expect_expand_error(text, CES_ERR_SEMANTIC, want);
    snprintf(text, sizeof(text), "cesync 1\nranks 2\nbuffer %s 64\nphase eager x1\n"
             "r1 : produce %s[0:65]\n", a, a);
    snprintf(want, sizeof(want), "t.ces:5:14: region %.48s...[0:65]@1 is out of range: %.48s... "
             "has 64 bytes", a, a);
    expect_expand_error(text, CES_ERR_SEMANTIC, want);
}

static void test_semantic_errors(void **state)
{
    (void)state;
    expect_expand_error("cesync 1\nranks 2\nbuffer a 64\nphase eager x1\n"
                        "r* : consume a[0:8] == a[0:16]@1\n", CES_ERR_SEMANTIC,
                        "t.ces:5:6: consume sizes differ: a[0:8]@0 has 8 bytes, the expected "
                        "a[0:16]@1 has 16");
    expect_expand_error("cesync 1\nranks 2\nbuffer a 64\nphase eager x1\n"
                        "r1 : produce a[16:8]\n", CES_ERR_SEMANTIC,
                        "t.ces:5:14: region a[16:8]@1 is backwards: its lower bound is above its "
                        "upper bound");
    /* one byte backwards is backwards too */
    expect_expand_error("cesync 1\nranks 2\nbuffer a 64\nphase eager x1\n"
                        "r1 : produce a[9:8]\n", CES_ERR_SEMANTIC,
                        "t.ces:5:14: region a[9:8]@1 is backwards: its lower bound is above its "
                        "upper bound");
    expect_expand_error("cesync 1\nranks 2\nbuffer a 64\nphase eager x1\n"
                        "r1 : produce a[0:281474976710657]\n", CES_ERR_SEMANTIC,
                        "t.ces:5:18: the region's upper bound 281474976710657 is over 2^48 (the "
                        "largest buffer size)");
    expect_expand_error("cesync 1\nranks 2\nsignal s u32 2\nphase eager x1\n"
                        "r* : write s[0]@* = 9223372036854775807*($r+1)\n", CES_ERR_SEMANTIC,
                        "t.ces:5:40: integer overflow: 9223372036854775807*2 does not fit in 64 "
                        "bits");
    expect_expand_error("cesync 1\nranks 2\nsignal s u32 2\nphase eager x1\n"
                        "r* : write s[0]@* = (-9223372036854775807-1)/($r-1)\n", CES_ERR_SEMANTIC,
                        "t.ces:5:45: integer overflow: -9223372036854775808/(-1) does not fit in "
                        "64 bits");
    expect_expand_error("cesync 1\nranks 2\nsignal s u32 2\nphase eager x1\n"
                        "r* : write s[0]@* = 9223372036854775807+($r+1)\n", CES_ERR_SEMANTIC,
                        "t.ces:5:40: integer overflow: 9223372036854775807+1 does not fit in 64 "
                        "bits");
    expect_expand_error("cesync 1\nranks 2\nsignal s u32 2\nphase eager x1\n"
                        "r* : write s[0]@* = (-9223372036854775807-1)-($r+1)\n", CES_ERR_SEMANTIC,
                        "t.ces:5:45: integer overflow: -9223372036854775808-1 does not fit in 64 "
                        "bits");
    /* each sign of the operands overflows: a sum below -2^63, products of
     * either sign past 64 bits */
    expect_expand_error("cesync 1\nranks 2\nsignal s u32 2\nphase eager x1\n"
                        "r* : write s[0]@* = (-9223372036854775807-1)+(-$r-1)\n", CES_ERR_SEMANTIC,
                        "t.ces:5:45: integer overflow: -9223372036854775808+(-1) does not fit in "
                        "64 bits");
    expect_expand_error("cesync 1\nranks 2\nsignal s u32 2\nphase eager x1\n"
                        "r* : write s[0]@* = 4611686018427387905*(-$r-2)\n", CES_ERR_SEMANTIC,
                        "t.ces:5:40: integer overflow: 4611686018427387905*(-2) does not fit in 64 "
                        "bits");
    expect_expand_error("cesync 1\nranks 2\nsignal s u32 2\nphase eager x1\n"
                        "r* : write s[0]@* = (-$r-1)*(-9223372036854775807-1)\n", CES_ERR_SEMANTIC,
                        "t.ces:5:28: integer overflow: -1*(-9223372036854775808) does not fit in "
                        "64 bits");
    expect_expand_error("cesync 1\nranks 2\nsignal s u32 2\nphase eager x1\n"
                        "r* : write s[0]@* = (-4611686018427387905)*($r+2)\n", CES_ERR_SEMANTIC,
                        "t.ces:5:43: integer overflow: -4611686018427387905*2 does not fit in 64 "
                        "bits");
    expect_expand_error("cesync 1\nranks 2\nsignal s u32 2\nphase eager x1\n"
                        "r* : write s[-$r]@* = 1\n", CES_ERR_SEMANTIC,
                        "t.ces:5:12: slot s[-1]@* is out of range: s has 2 slots");
    expect_expand_error("cesync 1\nranks 2\nsignal s u32 2\nphase eager x1\n"
                        "r* over p : wait s[0]@($p-2) == 1\n", CES_ERR_SEMANTIC,
                        "t.ces:5:24: rank -1 is out of range: ranks are 0..1");
}

/* ces_prog_expand reports to the context it is given, also when the program
 * was parsed with another (a program shared by threads that expand it with
 * contexts of their own): its range and arithmetic errors went to the
 * parse's context, leaving the caller's without a message. */
static void test_errors_on_callers_context(void **state)
{
    static const char *const texts[2] = {
        "cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr1 : produce a[0:9]\n",
        "cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr1 : produce a[0:8/($r-1)]\n"};
    static const char *const want[2] = {
        "t.ces:5:14: region a[0:9]@1 is out of range: a has 8 bytes",
        "t.ces:5:19: division by zero: 8/0"};
    struct ces_test_alloc st1, st2;
    struct ces_ctx *parsing = ces_test_ctx(&st1);
    struct ces_ctx *expanding = ces_test_ctx(&st2);

    (void)state;
    for (int t = 0; t < 2; t++) {
        struct ces_prog *p = NULL;
        struct ces_graph *g = (struct ces_graph *)1;

        assert_int_equal(ces_prog_parse(parsing, texts[t], strlen(texts[t]), "t.ces", &p),
                         CES_OK);
        ces_ctx_error(parsing, CES_ERR_IO, "the parse's last error");
        assert_int_equal(ces_prog_expand(expanding, p, &g), CES_ERR_SEMANTIC);
        assert_null(g);
        assert_string_equal(ces_ctx_last_error(expanding), want[t]);
        assert_string_equal(ces_ctx_last_error(parsing), "the parse's last error");
        ces_prog_destroy(p);
    }
    ces_test_ctx_end(expanding, &st2);
    ces_test_ctx_end(parsing, &st1);
}

/* Values and regions at the edges the expansion allows: a product of two
 * negatives and a sum that are exactly 2^63-1 (no overflow), a region
 * bound of exactly 2^48 (not over 2^48) and an empty region [8:8] (not a
 * backwards one). */
static void test_value_edges(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g =
        build(ctx, "cesync 1\nranks 2\nbuffer a 281474976710656\nsignal s u64 2\n"
                   "phase eager x1\n"
                   "r0 : write s[0] = (-$r-1)*(-9223372036854775807)\n"
                   "r0 : write s[1] = 9223372036854775806+($r+1)\n"
                   "r0 : produce a[0:281474976710656]\n"
                   "r1 : produce a[8:8]\n");
    const struct ces_op *ops;
    uint32_t n;

    (void)state;
    ops = ces_graph_ops(g, 0, 0, &n);
    assert_int_equal(n, 3);
    assert_int_equal(ops[0].value, (uint64_t)INT64_MAX);
    assert_int_equal(ops[1].value, (uint64_t)INT64_MAX);
    assert_int_equal(ops[2].a.lo, 0);
    assert_int_equal(ops[2].a.hi, CES_MAX_BYTES);
    ops = ces_graph_ops(g, 0, 1, &n);
    assert_int_equal(n, 1);
    assert_int_equal(ops[0].a.lo, 8);
    assert_int_equal(ops[0].a.hi, 8);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Expects text to parse and its expansion to fail with CES_ERR_LIMIT and msg
 * before any allocation: the bounds follow from the program, so a few lines
 * past them must not fill memory before they are refused. */
static void expect_bound_error(const char *text, const char *msg)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = NULL;
    struct ces_graph *g = (struct ces_graph *)1;

    if (ces_prog_parse(ctx, text, strlen(text), "t.ces", &p) != CES_OK)
        fail_msg("parse: %s", ces_ctx_last_error(ctx));
    st.fail_at = st.calls + 1;
    assert_int_equal(ces_prog_expand(ctx, p, &g), CES_ERR_LIMIT);
    st.fail_at = 0;
    assert_null(g);
    assert_string_equal(ces_ctx_last_error(ctx), msg);
    ces_prog_destroy(p);
    ces_test_ctx_end(ctx, &st);
}

static void test_expansion_bounds(void **state)
{
    (void)state;
    expect_bound_error("cesync 1\nranks 2\nphase eager x2000000\n",
                       "t.ces:3:1: the schedule expands to more than 1048576 blocks: use a graph "
                       "phase or fewer iterations");
    /* an empty block still holds an op list per rank: 2^20 blocks of 1024
     * ranks were 24 GiB of lists before the block bound tripped */
    expect_bound_error("cesync 1\nranks 1024\nphase eager x4294967295\n",
                       "t.ces:3:1: the schedule expands to more than 16384 blocks of 1024 ranks: "
                       "use a graph phase or fewer iterations");
    expect_bound_error("cesync 1\nranks 1024\nphase eager x16384\nphase graph x9\n",
                       "t.ces:4:1: the schedule expands to more than 16384 blocks of 1024 ranks: "
                       "use a graph phase or fewer iterations");
    /* 2^24 ops were 1.6 GB and seconds of expansion before the op bound
     * tripped; it names the line of the first op past it */
    expect_bound_error("cesync 1\nranks 1024\nphase eager x17\nr0 : fence\n"
                       "r* over p* : fence\nr1 : flush\n",
                       "t.ces:5:1: the schedule expands to more than 16777216 ops: use a graph "
                       "phase or fewer iterations");
    expect_bound_error("cesync 1\nranks 1024\nphase graph x1\nr* over p* : fence\n"
                       "phase eager x15\nr* over p : fence\nr2 : fence\nr3 : fence\n"
                       "phase eager x1\nr* over p* : fence\n",
                       "t.ces:10:1: the schedule expands to more than 16777216 ops: use a graph "
                       "phase or fewer iterations");
    /* graph phases only: more of them, or more ops in them, is the one
     * way past the bounds (it advised a graph phase) */
    {
        static const char head[] = "cesync 1\nranks 1024\n";
        char *text = malloc(sizeof(head) + 16385 * 15 + 17 * 19);
        size_t n = strlen(head);

        assert_non_null(text);
        memcpy(text, head, n);
        for (int k = 0; k < 16385; k++, n += 15)
            memcpy(text + n, "phase graph x1\n", 15);
        text[n] = '\0';
        expect_bound_error(text, "t.ces:16387:1: the schedule expands to more than 16384 "
                                 "blocks of 1024 ranks: use fewer phases");
        n = strlen(head);
        memcpy(text + n, "phase graph x9\n", 15);
        n += 15;
        for (int k = 0; k < 17; k++, n += 19)
            memcpy(text + n, "r* over p* : fence\n", 19);
        text[n] = '\0';
        expect_bound_error(text, "t.ces:20:1: the schedule expands to more than 16777216 ops: "
                                 "use fewer ops");
        free(text);
    }
    /* the bounds themselves are allowed: 2^20 blocks pass the bound (the
     * division by zero in the first one is what stops them), and an eager
     * phase of two iterations is advised a graph phase too */
    expect_expand_error("cesync 1\nranks 1\nsignal s u32 1\nphase eager x1048576\n"
                        "r0 : write s[0] = 1/0\n", CES_ERR_SEMANTIC,
                        "t.ces:5:20: division by zero: 1/0");
    expect_bound_error("cesync 1\nranks 1024\nphase eager x2\nr* over p* : fence\n"
                       "r* over p* : fence\nr* over p* : fence\nr* over p* : fence\n"
                       "r* over p* : fence\nr* over p* : fence\nr* over p* : fence\n"
                       "r* over p* : fence\nr* over p* : fence\n",
                       "t.ces:11:1: the schedule expands to more than 16777216 ops: use a graph "
                       "phase or fewer iterations");
    /* a write to @* counts one write per rank: 64 * 64 * 64 * 70 ops, not
     * 64 * 64 * 70 (it passed the bound, and 256 ranks filled memory) */
    expect_bound_error("cesync 1\nranks 64\nsignal s u32 1\nphase eager x70\n"
                       "r* over p* : write s[0]@* = 1\n",
                       "t.ces:5:1: the schedule expands to more than 16777216 ops: use a graph "
                       "phase or fewer iterations");
    /* eager phases of one iteration only: fewer ops is the advice, as for
     * graph phases, not a graph phase, which would not make them fewer */
    expect_bound_error("cesync 1\nranks 1024\nphase eager x1\n"
                       "r* over p* : fence\nr* over p* : fence\nr* over p* : fence\n"
                       "r* over p* : fence\nr* over p* : fence\nr* over p* : fence\n"
                       "r* over p* : fence\nr* over p* : fence\nr* over p* : fence\n"
                       "r* over p* : fence\nr* over p* : fence\nr* over p* : fence\n"
                       "r* over p* : fence\nr* over p* : fence\nr* over p* : fence\n"
                       "r* over p* : fence\nr* over p* : fence\n",
                       "t.ces:20:1: the schedule expands to more than 16777216 ops: use fewer "
                       "ops");
}

static void test_load_errors(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = (struct ces_graph *)1;
    char path[1024];

    (void)state;
    assert_int_equal(ces_graph_load(ctx, "/nonexistent.ces", &g), CES_ERR_IO);
    assert_null(g);
    snprintf(path, sizeof(path), "%s/malformed/batch_overlap.ces", CES_FIXTURES);
    assert_int_equal(ces_graph_load(ctx, path, &g), CES_ERR_SEMANTIC);
    assert_null(g);
    assert_non_null(strstr(ces_ctx_last_error(ctx), "/malformed/batch_overlap.ces:9:6: copies in "
                                                    "one batch overlap"));
    assert_int_equal(ces_graph_load(ctx, NULL, &g), CES_ERR_INVALID);
    assert_int_equal(ces_prog_expand(ctx, NULL, &g), CES_ERR_INVALID);
    ces_test_ctx_end(ctx, &st);
}

static int roundtrip_body(struct ces_ctx *ctx, void *arg)
{
    const char *text = arg;
    struct ces_prog *p = NULL, *q = NULL;
    struct ces_graph *g = NULL, *h = NULL;
    char *canon = NULL, *conc = NULL;
    size_t len = 0;
    int rc = ces_prog_parse(ctx, text, strlen(text), "t.ces", &p);

    if (rc == CES_OK)
        rc = ces_prog_print(ctx, p, &canon, NULL);
    if (rc == CES_OK)
        rc = ces_prog_expand(ctx, p, &g);
    if (rc == CES_OK)
        rc = ces_graph_print(ctx, g, CES_PRINT_EXPLAIN, &conc, &len);
    if (rc == CES_OK)
        rc = ces_prog_parse(ctx, conc, len, "c.ces", &q);
    if (rc == CES_OK)
        rc = ces_prog_expand(ctx, q, &h);
    if (rc == CES_OK && !ces_graph_equal(g, h))
        rc = CES_ERR_INTERNAL;
    ces_free(ctx, canon);
    ces_free(ctx, conc);
    ces_graph_destroy(g);
    ces_graph_destroy(h);
    ces_prog_destroy(p);
    ces_prog_destroy(q);
    return rc;
}

/* ces_graph_load of a path: reading the file, parsing, expanding and
 * validating; an allocation that fails is said as such. */
static int load_body(struct ces_ctx *ctx, void *arg)
{
    struct ces_graph *g = NULL;
    int rc = ces_graph_load(ctx, arg, &g);

    ces_graph_destroy(g);
    if (rc == CES_ERR_NOMEM && strstr(ces_ctx_last_error(ctx), "out of memory") == NULL)
        fail_msg("CES_ERR_NOMEM with '%s'", ces_ctx_last_error(ctx));
    return rc;
}

static void test_alloc_failures(void **state)
{
    /* alltoall.ces: batches, whose overlap check allocates */
    const char *names[] = {"streams_events.ces", "phases_mixed.ces", "alltoall.ces"};

    (void)state;
    for (size_t k = 0; k < 3; k++) {
        char path[1024];
        char *text;

        snprintf(path, sizeof(path), "%s/good/%s", CES_FIXTURES, names[k]);
        text = ces_test_read_file(path, NULL);
        assert_true(ces_test_alloc_failures(roundtrip_body, text) > 20);
        free(text);
        assert_true(ces_test_alloc_failures(load_body, path) > 20);
    }
}

/* The watched expansion (ces_prog_expand_watched, for `cesync check
 * --max-seconds`): its watcher is called every 65,536 ops made, then
 * validated, with how far it came; a nonzero return stops it with
 * CES_ERR_TIMEOUT, no graph and a message saying how far; one that never
 * stops it gives the graph ces_prog_expand gives. */
struct watched {
    int stop_at;  /* the call that stops it (1: the first), 0: none */
    int calls;
    int validating; /* the calls with ops validated */
    struct ces_expand_done last;
};

static int watch_stop(void *ud, const struct ces_expand_done *d)
{
    struct watched *w = ud;

    w->calls++;
    w->validating += d->validated > 0;
    assert_true(d->blocks <= d->blocks_all && d->ops <= d->ops_all);
    assert_true(d->validated <= d->ops_all);
    w->last = *d;
    return w->calls == w->stop_at;
}

static void test_expand_watched(void **state)
{
    static const char text[] = "cesync 1\nranks 4\nsignal f u32 1\nphase eager x50000\n"
                               "r* : write f[0] = $i\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = NULL;
    struct ces_graph *g = (struct ces_graph *)1, *h = build(ctx, text);
    struct watched w = {1, 0, 0, {0, 0, 0, 0, 0}};

    (void)state;
    assert_int_equal(ces_prog_parse(ctx, text, strlen(text), "t.ces", &p), CES_OK);
    /* stopped at the first call: 16,384 blocks of 4 ops made */
    assert_int_equal(ces_prog_expand_watched(ctx, p, watch_stop, &w, &g), CES_ERR_TIMEOUT);
    assert_null(g);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "t.ces: 16383 of 50000 blocks (65536 of 200000 ops) expanded");
    /* 3 calls while it expands (65,536, 131,072, 196,608 ops), then 3 as it
     * validates: stopped at the fourth, the first of validation */
    w.stop_at = 4;
    w.calls = 0;
    assert_int_equal(ces_prog_expand_watched(ctx, p, watch_stop, &w, &g), CES_ERR_TIMEOUT);
    assert_null(g);
    assert_int_equal(w.validating, 1);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "t.ces: every block expanded, 65536 of its 200000 ops validated");
    /* never stopped: the same graph */
    w.stop_at = 0;
    w.calls = 0;
    w.validating = 0;
    assert_int_equal(ces_prog_expand_watched(ctx, p, watch_stop, &w, &g), CES_OK);
    assert_int_equal(w.calls, 6);
    assert_int_equal(w.validating, 3);
    assert_true(ces_graph_equal(g, h));
    ces_graph_destroy(g);
    ces_graph_destroy(h);
    ces_prog_destroy(p);
    ces_test_ctx_end(ctx, &st);
}

/* The validation's watcher is told the ops validated, each one's checks
 * done: it was called at the 65,536th op before that op's checks, so a
 * graph of exactly 65,536 ops was stopped there as '65536 of its 65536
 * ops validated', one op and the end of the validation still to come.
 * Now it is called before the next op, none after the last: the watcher's
 * one call is the expansion's, and the graph comes whole. */
static void test_expand_watched_exact(void **state)
{
    static const char text[] = "cesync 1\nranks 4\nsignal f u32 1\nphase eager x16384\n"
                               "r* : write f[0] = $i\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = NULL;
    struct ces_graph *g = NULL, *h = build(ctx, text);
    struct watched w = {2, 0, 0, {0, 0, 0, 0, 0}};

    (void)state;
    assert_int_equal(ces_prog_parse(ctx, text, strlen(text), "t.ces", &p), CES_OK);
    assert_int_equal(ces_prog_expand_watched(ctx, p, watch_stop, &w, &g), CES_OK);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.validating, 0);
    assert_true(w.last.ops == 65536 && w.last.ops_all == 65536);
    assert_true(ces_graph_equal(g, h));
    ces_graph_destroy(g);
    ces_graph_destroy(h);
    ces_prog_destroy(p);
    ces_test_ctx_end(ctx, &st);
}

/* A graph keeps where its file gives ranks, streams and connections (the
 * value's line and column), for the messages that refuse them: none for a
 * setting left at its default, one given again by
 * ces_graph_set_connections, a collective's (made from builder options, no
 * file) or an unknown setting. */
static void test_setting_lines(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, "cesync 1\n# four\n  ranks  2*2\n"
                                                   "connections\tany\nsignal f u32 1\n"
                                                   "phase eager x1\nr* : write f[0] = 1\n");
    struct ces_coll_params p;
    uint32_t col = 7;

    (void)state;
    assert_int_equal(ces_graph_setting_line(g, CES_SETTING_RANKS, &col), 3);
    assert_int_equal(col, 10);
    assert_int_equal(ces_graph_setting_line(g, CES_SETTING_CONNECTIONS, &col), 4);
    assert_int_equal(col, 13);
    assert_int_equal(ces_graph_setting_line(g, CES_SETTING_CONNECTIONS, NULL), 4);
    assert_int_equal(ces_graph_setting_line(g, CES_SETTING_STREAMS, &col), 0);
    assert_int_equal(col, 0);
    assert_int_equal(ces_graph_setting_line(g, 3, &col), 0);
    assert_int_equal(ces_graph_set_connections(g, 1), CES_OK);
    assert_int_equal(ces_graph_setting_line(g, CES_SETTING_CONNECTIONS, &col), 0);
    assert_int_equal(ces_graph_setting_line(g, CES_SETTING_RANKS, &col), 3);
    ces_graph_destroy(g);
    ces_coll_params_init(&p, CES_COLL_ALLTOALL);
    p.ranks = 2;
    p.bytes = 64;
    p.flags = CES_COLL_F_OVERLAP;
    assert_int_equal(ces_coll_build(ctx, &p, &g), CES_OK);
    assert_int_equal(ces_graph_streams(g), 2);
    for (uint32_t k = CES_SETTING_RANKS; k <= CES_SETTING_CONNECTIONS; k++)
        assert_int_equal(ces_graph_setting_line(g, k, &col), 0);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_setting_lines),
        cmocka_unit_test(test_alltoall),
        cmocka_unit_test(test_phases_and_frozen_i),
        cmocka_unit_test(test_u32_wrap),
        cmocka_unit_test(test_remainder_minus_one),
        cmocka_unit_test(test_value_edges),
        cmocka_unit_test(test_multicast_and_ranks),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_concrete_roundtrip),
        cmocka_unit_test(test_semantic_errors),
        cmocka_unit_test(test_long_names_cut),
        cmocka_unit_test(test_errors_on_callers_context),
        cmocka_unit_test(test_expansion_bounds),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_expand_watched),
        cmocka_unit_test(test_expand_watched_exact),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
