/*
 * tests/sim/test_mutate.c - every stage on broken input: 20,000 inputs made
 * from the good and bad fixtures by a few random edits each (a byte
 * changed, the text cut short, a span cut out, a keyword or symbol of the
 * language inserted, a digit put in), seeded, so the same inputs every run.
 * Each goes through the parser, the printer, the expansion, the dot
 * emitter and a bounded check, on a counting allocator.  Whatever the
 * input: no crash (the sanitizer build runs this too), no block left
 * allocated, a refused input refused with a status of bad input and a
 * message that starts with "t.ces:LINE:COLUMN: " inside the text, a parsed
 * one printed into text that parses and prints the same again (the printer
 * and the parser agree), every expanded schedule drawn and checked (both
 * verdicts, OK and a defect, in good numbers).
 */
#include "ces_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MUTANTS 20000
#define ROOM 4096 /* bytes an input may grow by */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Words and symbols of the language, and a few values at its limits. */
static const char *const pieces[] = {
    "r*", "over", "p*", "$i", "$r", "$n", "@", "@*", "==", ">=", "batch", "end", "copy",
    "write", "wait", "fence", "flush", "record", "await", "produce", "consume", "signal",
    "buffer", "phase", "graph", "eager", "x0", "x65536", "let", "-1",
    "99999999999999999999", "[", "]", ":", "->", "#", "\n", "u32", "u64", "0x", "(", ")",
    "*", "/", "%", "+", " ", "\t", "\\", "\"", "ranks 0", "ranks 9", "cesync 2", "s7",
};

/* Edits text[0:*n] (room for ROOM more bytes) one to four times. */
static void mutate(char *text, size_t *n)
{
    int edits = 1 + (int)(next() % 4);

    for (int e = 0; e < edits; e++) {
        size_t at = *n ? next() % *n : 0;

        switch (next() % 5) {
        case 0:
            if (*n)
                text[at] = (char)(next() % 256);
            break;
        case 1:
            *n = at;
            break;
        case 2:
            if (*n > at + 1) {
                size_t to = at + next() % (*n - at);

                memmove(text + at, text + to, *n - to);
                *n -= to - at;
            }
            break;
        case 3: {
            const char *p = pieces[next() % (sizeof(pieces) / sizeof(pieces[0]))];
            size_t len = strlen(p);

            memmove(text + at + len, text + at, *n - at);
            memcpy(text + at, p, len);
            *n += len;
            break;
        }
        default:
            if (*n)
                text[at] = (char)('0' + next() % 10);
            break;
        }
    }
}

/* A refusal: a status of bad input and "t.ces:LINE:COLUMN: WHAT" with LINE
 * within the text's lines (or the line after its last). */
static void expect_located(struct ces_ctx *ctx, int rc, const char *text, size_t n)
{
    const char *msg = ces_ctx_last_error(ctx);
    unsigned line = 0, col = 0, lines = 1;
    int used = 0;

    for (size_t i = 0; i < n; i++)
        lines += text[i] == '\n';
    if (rc != CES_ERR_PARSE && rc != CES_ERR_SEMANTIC && rc != CES_ERR_LIMIT)
        fail_msg("status %d (%s) for the input:\n%.*s", rc, msg, (int)n, text);
    if (sscanf(msg, "t.ces:%u:%u: %n", &line, &col, &used) != 2 || used == 0 || line < 1 ||
        line > lines + 1 || col < 1 || msg[used] == '\0')
        fail_msg("unlocated message '%s' for the input:\n%.*s", msg, (int)n, text);
}

/* The printed program parses and prints the same. */
static void expect_round_trip(struct ces_ctx *ctx, const struct ces_prog *p)
{
    char *once = NULL, *twice = NULL;
    size_t n1 = 0, n2 = 0;
    struct ces_prog *q = NULL;

    assert_int_equal(ces_prog_print(ctx, p, &once, &n1), CES_OK);
    if (ces_prog_parse(ctx, once, n1, "printed.ces", &q) != CES_OK)
        fail_msg("the printed program does not parse: %s\n%s", ces_ctx_last_error(ctx), once);
    assert_int_equal(ces_prog_print(ctx, q, &twice, &n2), CES_OK);
    if (n1 != n2 || memcmp(once, twice, n1) != 0)
        fail_msg("printed twice differently:\n%s\n---\n%s", once, twice);
    ces_free(ctx, once);
    ces_free(ctx, twice);
    ces_prog_destroy(q);
}

static void test_mutants(void **state)
{
    char **good, **bad;
    size_t ng = ces_test_list("good", ".ces", &good), nb = ces_test_list("bad", ".ces", &bad);
    long parsed = 0, expanded = 0, ok = 0, defects = 0, cut = 0;

    (void)state;
    assert_true(ng >= 10 && nb >= 10);
    for (int m = 0; m < MUTANTS; m++) {
        uint64_t pick = next() % (ng + nb);
        const char *path = pick < ng ? good[pick] : bad[pick - ng];
        size_t n;
        char *orig = ces_test_read_file(path, &n);
        char *text = malloc(n + ROOM);
        struct ces_test_alloc st;
        struct ces_ctx *ctx = ces_test_ctx(&st);
        struct ces_prog *p = NULL;
        struct ces_graph *g = NULL;
        int rc;

        assert_non_null(text);
        memcpy(text, orig, n);
        mutate(text, &n);
        rc = ces_prog_parse(ctx, text, n, "t.ces", &p);
        if (rc != CES_OK) {
            assert_null(p);
            expect_located(ctx, rc, text, n);
        } else {
            parsed++;
            expect_round_trip(ctx, p);
            rc = ces_prog_expand(ctx, p, &g);
            if (rc != CES_OK) {
                expect_located(ctx, rc, text, n);
            } else {
                struct ces_check_opts o;
                struct ces_check_report *r = NULL;
                char *dot = NULL;
                size_t len = 0;

                expanded++;
                assert_int_equal(ces_dot_emit(ctx, g, NULL, &dot, &len), CES_OK);
                ces_free(ctx, dot);
                ces_check_opts_init(&o);
                o.max_states = 3000;
                if (ces_check(ctx, g, &o, &r) != CES_OK)
                    fail_msg("the check failed: %s\n%.*s", ces_ctx_last_error(ctx), (int)n, text);
                if (ces_check_report_verdict(r) & CES_V_INCOMPLETE)
                    cut++;
                else if (ces_check_report_verdict(r) == CES_V_OK)
                    ok++;
                else
                    defects++;
                ces_check_report_destroy(r);
                ces_graph_destroy(g);
            }
            ces_prog_destroy(p);
        }
        ces_test_ctx_end(ctx, &st);
        free(text);
        free(orig);
    }
    /* the edits leave enough intact to reach every stage, and the check
     * judges what reaches it: a tenth or more of the schedules OK, a tenth
     * or more with a defect, at most a tenth cut short by the bound */
    printf("%d mutants: %ld parsed, %ld expanded and checked: %ld OK, %ld with a defect, %ld "
           "stopped by the bound on states\n",
           MUTANTS, parsed, expanded, ok, defects, cut);
    assert_true(parsed >= MUTANTS / 20);
    assert_true(expanded >= MUTANTS / 40);
    assert_true(ok >= expanded / 10 && defects >= expanded / 10 && cut <= expanded / 10);
    ces_test_list_free(good, ng);
    ces_test_list_free(bad, nb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutants),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
