/*
 * tests/core/test_print.c - the canonical printer of programs: spacing,
 * comments, header order, minimal parentheses; print(parse(x)) is a fixed
 * point; allocation failures.
 */
#include "ces_test.h"
#include "prog.h"

#include <stdlib.h>
#include <string.h>

/* Parses `in`, prints it, compares with `want`, then checks that the
 * printed text is a fixed point. */
static void check_canonical(const char *in, const char *want)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = NULL, *q = NULL;
    char *out = NULL, *again = NULL;
    size_t len = 0;

    if (ces_prog_parse(ctx, in, strlen(in), "in.ces", &p) != CES_OK)
        fail_msg("parse: %s", ces_ctx_last_error(ctx));
    assert_int_equal(ces_prog_print(ctx, p, &out, &len), CES_OK);
    assert_string_equal(out, want);
    assert_int_equal(len, strlen(want));
    if (ces_prog_parse(ctx, out, len, "out.ces", &q) != CES_OK)
        fail_msg("reparse: %s", ces_ctx_last_error(ctx));
    assert_int_equal(ces_prog_print(ctx, q, &again, NULL), CES_OK);
    assert_string_equal(again, out);
    ces_free(ctx, again);
    ces_free(ctx, out);
    ces_prog_destroy(q);
    ces_prog_destroy(p);
    ces_test_ctx_end(ctx, &st);
}

#define HDR "cesync 1\nranks 4\nstreams 1\n"

static void test_spacing_and_comments(void **state)
{
    (void)state;
    check_canonical("# a schedule\n\ncesync   1 # v1\n  ranks\t4\n\nphase   eager   x2   # go\n"
                    "r*   :fence\nr0 s0:flush\n   r3 over p:fence\n",
                    HDR "phase eager x2\nr* : fence\nr0 : flush\nr3 over p : fence\n");
}

static void test_header_order(void **state)
{
    (void)state;
    /* signals and buffers interleaved, lets after them, counts as values */
    check_canonical("cesync 1\nsignal s u32 2\nlet R = 2\nbuffer b 64\nstreams $R+1\n"
                    "ranks 2*$R\nconnections 0\nlet C = $n*8\nbuffer c $C\nsignal t u64 $R\n"
                    "phase graph x1\nr0 : fence\n",
                    "cesync 1\nranks 4\nstreams 3\nlet R = 2\nlet C = $n*8\nbuffer b 64\n"
                    "buffer c $C\nsignal s u32 2\nsignal t u64 $R\nphase graph x1\n"
                    "r0 : fence\n");
    check_canonical("cesync 1\nranks 2\nconnections 2\nstreams 4\nphase eager x1\n",
                    "cesync 1\nranks 2\nstreams 4\nconnections 2\nphase eager x1\n");
}

static void test_expressions(void **state)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"( 1 + 2 ) * 3", "(1+2)*3"},
        {"1 + (2 * 3)", "1+2*3"},
        {"((1 + 2) + 3)", "1+2+3"},
        {"1 + (2 + 3)", "1+(2+3)"},
        {"1 - (2 - 3)", "1-(2-3)"},
        {"(8 / 4) / 2", "8/4/2"},
        {"8 / (4 / 2)", "8/(4/2)"},
        {"8 % (3 * 2)", "8%(3*2)"},
        {"(8 % 3) * 2", "8%3*2"},
        {"- 5", "-5"},
        {"-(5)", "-5"},
        {"-(2 * 3)", "-(2*3)"},
        {"(-2) * 3", "-2*3"},
        {"2 * -3", "2*-3"},
        {"2 - - 3", "2--3"},
        {"- - 3", "--3"},
        {"-(-(3))", "--3"},
        {"2 * (- - 3)", "2*--3"},
        {"((((7))))", "7"},
        {"$C*2-1", "$C*2-1"},
        {"2*$C - 1", "2*$C-1"},
        {"($n - 1) * ($C + 1)", "($n-1)*($C+1)"},
        {"007", "7"},
        {"-9223372036854775808", "-9223372036854775808"},
        {"- 9223372036854775808 * 1", "-9223372036854775808*1"},
        {"-1 - (-9223372036854775807 - 1)", "-1-(-9223372036854775807-1)"},
        {"-(-9223372036854775808 / 2)", "-(-9223372036854775808/2)"},
        {"1 * -9223372036854775808 / 4", "1*-9223372036854775808/4"},
    };

    (void)state;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        char in[256], want[256];

        snprintf(in, sizeof(in), "cesync 1\nranks 4\nlet C = 3\nlet X = %s\nphase eager x1\n",
                 cases[k].in);
        snprintf(want, sizeof(want), HDR "let C = 3\nlet X = %s\nphase eager x1\n", cases[k].out);
        check_canonical(in, want);
    }
}

/* The longest chain of negations the parser takes (63 within a let's
 * expression, whose own level is the 64th) prints as text it takes again,
 * and so does the deepest `1*-(1*-(...))`: with a negation after an
 * operator parenthesised (`-(-3)`, `1*(-(...))`) the canonical text nested
 * deeper than its source and was refused (found by fuzzing). */
static void test_deepest_negation(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx;
    struct ces_prog *p = NULL;
    char chain[66], in[160], want[400];

    (void)state;
    memset(chain, '-', 64);
    strcpy(chain + 64, "3");
    snprintf(in, sizeof(in), "cesync 1\nranks 4\nlet X = %s\nphase eager x1\n", chain);
    ctx = ces_test_ctx(&st);
    assert_int_equal(ces_prog_parse(ctx, in, strlen(in), "in.ces", &p), CES_ERR_LIMIT);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "in.ces:3:72: expression nested too deeply (over 64 levels)");
    ces_test_ctx_end(ctx, &st);
    snprintf(in, sizeof(in), "cesync 1\nranks 4\nlet X = %s\nphase eager x1\n", chain + 1);
    snprintf(want, sizeof(want), HDR "let X = %s\nphase eager x1\n", chain + 1);
    check_canonical(in, want);
    {
        /* 31 times 1*-( ... ) around 1*-1: 64 levels with the let's own */
        char deep[31 * 5 + 8], src[sizeof(deep) + 64];
        size_t n = 0;

        for (int k = 0; k < 31; k++, n += 4)
            memcpy(deep + n, "1*-(", 4);
        memcpy(deep + n, "1*-1", 4);
        n += 4;
        for (int k = 0; k < 31; k++)
            deep[n++] = ')';
        deep[n] = '\0';
        snprintf(src, sizeof(src), "cesync 1\nranks 4\nlet X = %s\nphase eager x1\n", deep);
        snprintf(want, sizeof(want), HDR "let X = %s\nphase eager x1\n", deep);
        check_canonical(src, want);
    }
}

static void test_ops(void **state)
{
    (void)state;
    check_canonical(
        "cesync 1\nranks 4\nstreams 2\nlet C = 8\nbuffer a 64\nsignal s u32 4\n"
        "phase eager x1\n"
        "r* s1 over p* : copy a[ $p * $C : ( $p + 1 ) * $C ] -> a[0:$C] @ $p\n"
        "r* over p : copy a[0:8]@($p) -> a[8:16]@(($r+1)%$n)\n"
        "r0 : copy a[0:8]@2 -> a[8:16]@$C\n"
        "r1 s0 over p : write s[$r] @* = 2 * $i - 1\n"
        "r1 : write s[0]@(-1+2) = 0\n"
        "r1 : write s[0]@(-9223372036854775808+1) = 0\n"
        /* -2^63 is one literal, a negative one: it keeps its parentheses */
        "r1 : write s[0]@(-9223372036854775808) = 0\n"
        "r2 : wait s[ 1 ]@(0) >= 1\nr2 : wait s[1] == (4294967296 + 1)\n"
        "r* : batch\nr* : end\nr* : fence\nr* : flush\n"
        "r0 : record go\nr0 s1 : await go\n"
        "r0 : produce a[0:64]\nr0 : consume a[0:64]\nr0 : consume a[0:8] == a[8:16]@1\n",
        "cesync 1\nranks 4\nstreams 2\nlet C = 8\nbuffer a 64\nsignal s u32 4\n"
        "phase eager x1\n"
        "r* s1 over p* : copy a[$p*$C:($p+1)*$C] -> a[0:$C]@$p\n"
        "r* over p : copy a[0:8]@$p -> a[8:16]@(($r+1)%$n)\n"
        "r0 : copy a[0:8]@2 -> a[8:16]@$C\n"
        "r1 over p : write s[$r]@* = 2*$i-1\n"
        "r1 : write s[0]@(-1+2) = 0\n"
        "r1 : write s[0]@(-9223372036854775808+1) = 0\n"
        "r1 : write s[0]@(-9223372036854775808) = 0\n"
        "r2 : wait s[1]@0 >= 1\nr2 : wait s[1] == 4294967296+1\n"
        "r* : batch\nr* : end\nr* : fence\nr* : flush\n"
        "r0 : record go\nr0 s1 : await go\n"
        "r0 : produce a[0:64]\nr0 : consume a[0:64]\nr0 : consume a[0:8] == a[8:16]@1\n");
}

/* print(parse(print(parse(x)))) == print(parse(x)) for every fixture,
 * including the malformed ones that parse (their errors come later). */
static void test_fixed_point_over_fixtures(void **state)
{
    const char *dirs[] = {"good", "malformed"};
    size_t checked = 0;

    (void)state;
    for (size_t d = 0; d < 2; d++) {
        char **paths;
        size_t n = ces_test_list(dirs[d], ".ces", &paths);

        for (size_t k = 0; k < n; k++) {
            struct ces_test_alloc st;
            struct ces_ctx *ctx = ces_test_ctx(&st);
            size_t len;
            char *text = ces_test_read_file(paths[k], &len);
            struct ces_prog *p = NULL, *q = NULL;
            char *a = NULL, *b = NULL;
            size_t alen = 0;

            if (ces_prog_parse(ctx, text, len, "x.ces", &p) == CES_OK) {
                assert_int_equal(ces_prog_print(ctx, p, &a, &alen), CES_OK);
                assert_int_equal(ces_prog_parse(ctx, a, alen, "y.ces", &q), CES_OK);
                assert_int_equal(ces_prog_print(ctx, q, &b, NULL), CES_OK);
                assert_string_equal(a, b);
                checked++;
            }
            ces_free(ctx, a);
            ces_free(ctx, b);
            ces_prog_destroy(p);
            ces_prog_destroy(q);
            free(text);
            ces_test_ctx_end(ctx, &st);
        }
        ces_test_list_free(paths, n);
    }
    assert_true(checked >= 20);
}

/* Deterministic mutations of the good fixtures (a byte deleted, doubled or
 * replaced): whatever parses must print to a fixed point and expand without
 * crashing; whatever fails must say file:line:col. */
static void test_mutations(void **state)
{
    static const char alphabet[] = " \n#[]():@*+-/%=<>$0123456789rspxabcdefghijklmnopqrstuvwxyz";
    char **paths;
    size_t n = ces_test_list("good", ".ces", &paths);
    uint64_t seed = 12345;
    long parsed = 0, failed = 0;

    (void)state;
    for (size_t k = 0; k < n; k++) {
        size_t len;
        char *text = ces_test_read_file(paths[k], &len);
        char *mut = malloc(len + 2);

        assert_non_null(mut);
        for (int round = 0; round < 300; round++) {
            struct ces_test_alloc st;
            struct ces_ctx *ctx = ces_test_ctx(&st);
            struct ces_prog *p = NULL, *q = NULL;
            struct ces_graph *g = NULL;
            char *a = NULL, *b = NULL;
            size_t alen = 0, mlen = len, at;
            int what;

            seed = seed * 6364136223846793005u + 1442695040888963407u;
            at = (size_t)(seed >> 33) % len;
            what = (int)((seed >> 20) % 3);
            memcpy(mut, text, len);
            if (what == 0) { /* delete */
                memmove(mut + at, mut + at + 1, len - at - 1);
                mlen--;
            } else if (what == 1) { /* double */
                memmove(mut + at + 1, mut + at, len - at);
                mlen++;
            } else { /* replace */
                mut[at] = alphabet[(seed >> 40) % (sizeof(alphabet) - 1)];
            }
            if (ces_prog_parse(ctx, mut, mlen, "m.ces", &p) == CES_OK) {
                parsed++;
                assert_int_equal(ces_prog_print(ctx, p, &a, &alen), CES_OK);
                if (ces_prog_parse(ctx, a, alen, "m.ces", &q) != CES_OK)
                    fail_msg("canonical text does not parse: %s\n%s", ces_ctx_last_error(ctx), a);
                assert_int_equal(ces_prog_print(ctx, q, &b, NULL), CES_OK);
                assert_string_equal(a, b);
                if (ces_prog_expand(ctx, p, &g) != CES_OK)
                    assert_int_equal(strncmp(ces_ctx_last_error(ctx), "m.ces:", 6), 0);
            } else {
                failed++;
                assert_int_equal(strncmp(ces_ctx_last_error(ctx), "m.ces:", 6), 0);
            }
            ces_graph_destroy(g);
            ces_free(ctx, a);
            ces_free(ctx, b);
            ces_prog_destroy(p);
            ces_prog_destroy(q);
            ces_test_ctx_end(ctx, &st);
        }
        free(mut);
        free(text);
    }
    ces_test_list_free(paths, n);
    /* both kinds happen: the test exercises printing and errors */
    assert_true(parsed > 100);
    assert_true(failed > 100);
}

static int print_body(struct ces_ctx *ctx, void *arg)
{
    const char *text = arg;
    struct ces_prog *p = NULL;
    char *out = NULL;
    int rc = ces_prog_parse(ctx, text, strlen(text), "t.ces", &p);

    if (rc == CES_OK)
        rc = ces_prog_print(ctx, p, &out, NULL);
    if (rc == CES_OK && strcmp(out, text) != 0)
        rc = CES_ERR_INTERNAL;
    ces_free(ctx, out);
    ces_prog_destroy(p);
    return rc;
}

static void test_alloc_failures(void **state)
{
    char path[1024];
    char *text;

    (void)state;
    snprintf(path, sizeof(path), "%s/good/alltoall.ces", CES_FIXTURES);
    text = ces_test_read_file(path, NULL);
    assert_true(ces_test_alloc_failures(print_body, text) > 10);
    free(text);
}

static void test_bad_arguments(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *out = NULL;

    (void)state;
    assert_int_equal(ces_prog_print(ctx, NULL, &out, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_prog_print(NULL, NULL, &out, NULL), CES_ERR_INVALID);
    assert_null(out);
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spacing_and_comments),
        cmocka_unit_test(test_header_order),
        cmocka_unit_test(test_expressions),
        cmocka_unit_test(test_deepest_negation),
        cmocka_unit_test(test_ops),
        cmocka_unit_test(test_fixed_point_over_fixtures),
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_bad_arguments),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
