/*
 * tests/core/test_parse.c - the .ces parser: every good fixture parses and
 * is canonical, every malformed fixture fails with exactly the message its
 * `# expect-error:` line names and the status (syntax or semantic) and
 * stage (parse or expansion) listed for it, the AST of small inputs, file input, and
 * allocation failures.
 */
#include "ces_test.h"
#include "prog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');

    return s != NULL ? s + 1 : path;
}

/* Parses text; returns the status and leaves the program in *out. */
static int parse(struct ces_ctx *ctx, const char *text, struct ces_prog **out)
{
    return ces_prog_parse(ctx, text, strlen(text), "t.ces", out);
}

static void expect_parse_error(const char *text, int status, const char *msg)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = (struct ces_prog *)1;

    assert_int_equal(parse(ctx, text, &p), status);
    assert_null(p);
    assert_string_equal(ces_ctx_last_error(ctx), msg);
    ces_test_ctx_end(ctx, &st);
}

static void test_good_fixtures_are_canonical(void **state)
{
    char **paths;
    size_t n = ces_test_list("good", ".ces", &paths);

    (void)state;
    assert_true(n >= 10);
    for (size_t k = 0; k < n; k++) {
        struct ces_test_alloc st;
        struct ces_ctx *ctx = ces_test_ctx(&st);
        size_t len;
        char *text = ces_test_read_file(paths[k], &len);
        struct ces_prog *p = NULL;
        char *out = NULL;
        size_t olen = 0;

        if (ces_prog_parse(ctx, text, len, base_name(paths[k]), &p) != CES_OK)
            fail_msg("%s: %s", paths[k], ces_ctx_last_error(ctx));
        assert_int_equal(ces_prog_print(ctx, p, &out, &olen), CES_OK);
        if (strcmp(out, text) != 0)
            fail_msg("%s is not canonical; printed:\n%s", paths[k], out);
        assert_int_equal(olen, len);
        ces_free(ctx, out);
        ces_prog_destroy(p);
        free(text);
        ces_test_ctx_end(ctx, &st);
    }
    ces_test_list_free(paths, n);
}

/* Each malformed fixture's status, and whether the expansion refuses it
 * (1) or the parser already does (0). */
static const struct {
    const char *name;
    int status, expand;
} malformed[] = {
    {"await_without_record", CES_ERR_SEMANTIC, 1},
    {"bad_phase_kind", CES_ERR_PARSE, 0},
    {"bad_version", CES_ERR_PARSE, 0},
    {"bad_width", CES_ERR_PARSE, 0},
    {"batch_overlap", CES_ERR_SEMANTIC, 1},
    {"batch_without_end", CES_ERR_SEMANTIC, 1},
    {"connections_any_garbage", CES_ERR_PARSE, 0},
    {"connections_range", CES_ERR_SEMANTIC, 0},
    {"copy_overlap", CES_ERR_SEMANTIC, 1},
    {"copy_size_mismatch", CES_ERR_SEMANTIC, 1},
    {"division_by_zero", CES_ERR_SEMANTIC, 1},
    {"end_without_batch", CES_ERR_SEMANTIC, 1},
    {"garbage_after_buffer", CES_ERR_PARSE, 0},
    {"garbage_after_op", CES_ERR_PARSE, 0},
    {"header_after_phase", CES_ERR_PARSE, 0},
    {"integer_too_big", CES_ERR_PARSE, 0},
    {"missing_arrow", CES_ERR_PARSE, 0},
    {"missing_colon", CES_ERR_PARSE, 0},
    {"missing_ranks", CES_ERR_PARSE, 0},
    {"missing_rbracket", CES_ERR_PARSE, 0},
    {"modulo_by_zero", CES_ERR_SEMANTIC, 1},
    {"n_before_ranks", CES_ERR_SEMANTIC, 0},
    {"negative_offset", CES_ERR_SEMANTIC, 1},
    {"negative_value", CES_ERR_SEMANTIC, 1},
    {"no_cesync", CES_ERR_PARSE, 0},
    {"no_phase", CES_ERR_PARSE, 0},
    {"op_before_phase", CES_ERR_PARSE, 0},
    {"overflow", CES_ERR_SEMANTIC, 0},
    {"p_outside_over", CES_ERR_SEMANTIC, 0},
    {"r_in_header", CES_ERR_SEMANTIC, 0},
    {"rank_out_of_range", CES_ERR_SEMANTIC, 1},
    {"ranks_twice", CES_ERR_PARSE, 0},
    {"ranks_zero", CES_ERR_SEMANTIC, 0},
    {"region_out_of_range", CES_ERR_SEMANTIC, 1},
    {"repeat_x0", CES_ERR_PARSE, 0},
    {"reserved_let", CES_ERR_SEMANTIC, 0},
    {"size_over_2_48", CES_ERR_SEMANTIC, 0},
    {"slot_out_of_range", CES_ERR_SEMANTIC, 1},
    {"stream_out_of_range", CES_ERR_SEMANTIC, 0},
    {"unclosed_paren", CES_ERR_PARSE, 0},
    {"undeclared_buffer", CES_ERR_SEMANTIC, 0},
    {"undeclared_signal", CES_ERR_SEMANTIC, 0},
    {"undefined_constant", CES_ERR_SEMANTIC, 0},
    {"unknown_keyword", CES_ERR_PARSE, 0},
    {"unknown_op", CES_ERR_PARSE, 0},
    {"wait_all_ranks", CES_ERR_SEMANTIC, 0},
    {"wait_inside_batch", CES_ERR_SEMANTIC, 1},
    {"who_out_of_range", CES_ERR_SEMANTIC, 0},
};

static void test_malformed_fixtures(void **state)
{
    char **paths;
    size_t n = ces_test_list("malformed", ".ces", &paths);

    (void)state;
    assert_int_equal(n, sizeof(malformed) / sizeof(malformed[0]));
    for (size_t k = 0; k < n; k++) {
        struct ces_test_alloc st;
        struct ces_ctx *ctx = ces_test_ctx(&st);
        size_t len;
        char *text = ces_test_read_file(paths[k], &len);
        char *want = ces_test_directive(text, "# expect-error: ");
        struct ces_prog *p = NULL;
        struct ces_graph *g = NULL;
        char file[64];
        int rc;

        if (want == NULL)
            fail_msg("%s has no '# expect-error: ' line", paths[k]);
        /* the message names the file as it was given: the base name here */
        assert_int_equal(strncmp(want, base_name(paths[k]), strlen(base_name(paths[k]))), 0);
        /* listed in name order, as ces_test_list sorts them */
        snprintf(file, sizeof(file), "%s.ces", malformed[k].name);
        assert_string_equal(base_name(paths[k]), file);
        rc = ces_prog_parse(ctx, text, len, base_name(paths[k]), &p);
        if (rc == CES_OK) {
            if (!malformed[k].expand)
                fail_msg("%s: parsed (expected %s from the parser)", paths[k], want);
            rc = ces_prog_expand(ctx, p, &g);
            assert_null(g);
        } else if (malformed[k].expand) {
            fail_msg("%s: refused by the parser (expected by the expansion): %s", paths[k],
                     ces_ctx_last_error(ctx));
        }
        if (rc == CES_OK)
            fail_msg("%s: no error (expected %s)", paths[k], want);
        if (rc != malformed[k].status)
            fail_msg("%s: %s (expected %s)", paths[k], ces_status_str(rc),
                     ces_status_str(malformed[k].status));
        if (strcmp(ces_ctx_last_error(ctx), want) != 0)
            fail_msg("%s:\n  got:      %s\n  expected: %s", paths[k], ces_ctx_last_error(ctx),
                     want);
        ces_prog_destroy(p);
        free(want);
        free(text);
        ces_test_ctx_end(ctx, &st);
    }
    ces_test_list_free(paths, n);
}

static void test_header_values(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = NULL;
    const char *text = "# leading comment\n\n  cesync 1   # version\n"
                       "let R = 2*3\nranks $R-2\nstreams $n/2\nconnections 1\n"
                       "let BYTES = $n*1024\nbuffer data $BYTES\nsignal flag u64 $n+1\n"
                       "phase eager x3\nphase graph x4294967295\n";

    (void)state;
    assert_int_equal(parse(ctx, text, &p), CES_OK);
    assert_int_equal(p->ranks, 4);
    assert_int_equal(p->streams, 2);
    assert_int_equal(p->connections, 1);
    assert_int_equal(p->lets.len, 2);
    assert_string_equal(CES_VEC_AT(&p->lets, struct ces_plet, 1).name, "BYTES");
    assert_int_equal(CES_VEC_AT(&p->lets, struct ces_plet, 1).value, 4096);
    assert_int_equal(CES_VEC_AT(&p->buffers, struct ces_pbuf, 0).size, 4096);
    assert_int_equal(CES_VEC_AT(&p->signals, struct ces_psig, 0).width, CES_U64);
    assert_int_equal(CES_VEC_AT(&p->signals, struct ces_psig, 0).slots, 5);
    assert_int_equal(p->phases.len, 2);
    assert_int_equal(CES_VEC_AT(&p->phases, struct ces_pphase, 0).kind, CES_PHASE_EAGER);
    assert_int_equal(CES_VEC_AT(&p->phases, struct ces_pphase, 0).reps, 3);
    assert_int_equal(CES_VEC_AT(&p->phases, struct ces_pphase, 1).kind, CES_PHASE_GRAPH);
    assert_int_equal(CES_VEC_AT(&p->phases, struct ces_pphase, 1).reps, 4294967295u);
    assert_int_equal(CES_VEC_AT(&p->phases, struct ces_pphase, 1).line, 12);
    ces_prog_destroy(p);
    ces_test_ctx_end(ctx, &st);
}

/* A signal's slot count: 1..2^24, both ends accepted. */
static void test_signal_slots(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = NULL;

    (void)state;
    assert_int_equal(parse(ctx,
                           "cesync 1\nranks 2\nsignal a u32 16777216\nsignal b u64 1\n"
                           "phase eager x1\n",
                           &p),
                     CES_OK);
    assert_int_equal(p->signals.len, 2);
    assert_int_equal(CES_VEC_AT(&p->signals, struct ces_psig, 0).slots, 16777216);
    assert_int_equal(CES_VEC_AT(&p->signals, struct ces_psig, 1).slots, 1);
    ces_prog_destroy(p);
    ces_test_ctx_end(ctx, &st);
}

static void test_op_ast(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = NULL;
    const struct ces_pop *op;
    const struct ces_pexpr *e;
    const char *text = "cesync 1\nranks 2\nstreams 2\nbuffer a 64\nsignal s u32 2\n"
                       "phase graph x2\n"
                       "r* s1 over p* : copy a[0:8] -> a[8:16]@$p\n"
                       "r1 over p : write s[$p]@* = $i+1-2*3\n"
                       "r0 : wait s[1]@(1) >= 7\n"
                       "r0 : record E\nr0 s1 : await E\n"
                       "r0 : consume a[0:8] == a[0:8]@1\n";

    (void)state;
    assert_int_equal(parse(ctx, text, &p), CES_OK);
    assert_int_equal(p->ops.len, 6);
    op = &CES_VEC_AT(&p->ops, struct ces_pop, 0);
    assert_int_equal(op->kind, CES_OP_COPY);
    assert_true(op->all_ranks);
    assert_int_equal(op->stream, 1);
    assert_int_equal(op->over, CES_OVER_ALL);
    assert_int_equal(op->line, 7);
    assert_int_equal(op->col, 17);
    assert_int_equal(op->who_col, 1);
    assert_int_equal(op->a.rank, CES_EX_NONE);
    assert_int_equal(op->b.col, 32);
    e = CES_PEXPR(p, op->b.rank);
    assert_int_equal(e->kind, CES_EX_VAR);
    assert_int_equal(e->var, CES_VAR_P);
    assert_false(op->uses_i);
    op = &CES_VEC_AT(&p->ops, struct ces_pop, 1);
    assert_int_equal(op->rank, 1);
    assert_int_equal(op->over, CES_OVER_PEERS);
    assert_true(op->slot.all);
    assert_true(op->uses_i);
    /* $i+1-2*3 is ((($i+1)-(2*3))) */
    e = CES_PEXPR(p, op->value);
    assert_int_equal(e->kind, CES_EX_SUB);
    assert_int_equal(e->col, 29);
    assert_int_equal(e->opcol, 33);
    assert_int_equal(CES_PEXPR(p, e->a)->kind, CES_EX_ADD);
    assert_int_equal(CES_PEXPR(p, e->b)->kind, CES_EX_MUL);
    op = &CES_VEC_AT(&p->ops, struct ces_pop, 2);
    assert_int_equal(op->kind, CES_OP_WAIT);
    assert_int_equal(op->cmp, CES_CMP_GEQ);
    assert_int_equal(CES_PEXPR(p, op->slot.rank)->kind, CES_EX_INT);
    op = &CES_VEC_AT(&p->ops, struct ces_pop, 4);
    assert_int_equal(op->kind, CES_OP_AWAIT);
    assert_int_equal(op->event, 0);
    assert_int_equal(p->events.len, 1);
    op = &CES_VEC_AT(&p->ops, struct ces_pop, 5);
    assert_true(op->expect);
    ces_prog_destroy(p);
    ces_test_ctx_end(ctx, &st);
}

static void test_syntax_errors(void **state)
{
    static const struct {
        const char *text, *msg;
        int status;
    } cases[] = {
        {"", "t.ces:1:1: expected 'cesync 1' as the first statement, found end of input",
         CES_ERR_PARSE},
        {"cesync 1\n", "t.ces:1:9: expected 'ranks N' in the header, found end of input",
         CES_ERR_PARSE},
        /* the end of input is just past the last line's last character:
         * no final newline, a CRLF, a BOM (line 1 counts from after it),
         * a comment, trailing blanks */
        {"cesync 1", "t.ces:1:9: expected 'ranks N' in the header, found end of input",
         CES_ERR_PARSE},
        {"\xef\xbb\xbf" "cesync 1\r\n", "t.ces:1:9: expected 'ranks N' in the header, found "
         "end of input", CES_ERR_PARSE},
        {"\xef\xbb\xbf", "t.ces:1:1: expected 'cesync 1' as the first statement, found end of "
         "input", CES_ERR_PARSE},
        {"# a schedule\n\n# to come\n", "t.ces:3:10: expected 'cesync 1' as the first statement, "
         "found end of input", CES_ERR_PARSE},
        {"cesync 1\nranks 2\n\n", "t.ces:3:1: expected 'phase eager xK' or 'phase graph xK', "
         "found end of input", CES_ERR_PARSE},
        {"cesync 1\nranks 2  \n", "t.ces:2:10: expected 'phase eager xK' or 'phase graph xK', "
         "found end of input", CES_ERR_PARSE},
        {"cesync 1 2\n", "t.ces:1:10: expected end of line after 'cesync 1', found '2'",
         CES_ERR_PARSE},
        {"cesync\n", "t.ces:1:7: expected the format version after 'cesync', found end of line",
         CES_ERR_PARSE},
        /* a CRLF's end of line is where an LF's is (it was one column on) */
        {"cesync\r\n", "t.ces:1:7: expected the format version after 'cesync', found end of "
         "line", CES_ERR_PARSE},
        {"cesync 1\r\nranks \r\n", "t.ces:2:7: expected an expression (a number, a $name or "
         "'('), found end of line", CES_ERR_PARSE},
        {"cesync\r", "t.ces:1:7: expected the format version after 'cesync', found end of line",
         CES_ERR_PARSE},
        {"cesync 1\ncesync 1\n", "t.ces:2:1: 'cesync' given twice: it is only the first statement",
         CES_ERR_PARSE},
        {"cesync 1\n[\n", "t.ces:2:1: expected a statement (ranks, streams, connections, let, "
                          "buffer, signal, phase or an op line 'rN : op'), found '['",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2 3\n", "t.ces:2:9: expected end of line after 'ranks N', found '3'",
         CES_ERR_PARSE},
        /* 'any' is offered where it may stand (it was not: "expected an
         * expression (a number, a $name or '('), found 'Any'") */
        {"cesync 1\nranks 2\nconnections Any\n",
         "t.ces:3:13: expected a queue count or 'any' after 'connections', found 'Any'",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nconnections\n",
         "t.ces:3:12: expected a queue count or 'any' after 'connections', found end of line",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nconnections (\n",
         "t.ces:3:14: expected an expression (a number, a $name or '('), found end of line",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nstreams 65\n", "t.ces:3:9: streams must be 1..64, not 65",
         CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nlet = 3\n",
         "t.ces:3:5: expected a constant name after 'let', found '='", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nlet A 3\n",
         "t.ces:3:7: expected '=' after the constant's name, found '3'", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nlet A = 1\nlet A = 2\n",
         "t.ces:4:5: constant 'A' is defined twice", CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nbuffer a 8\nsignal a u32 1\n",
         "t.ces:4:8: 'a' is already declared as a buffer", CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nbuffer a 8\nbuffer a 8\n",
         "t.ces:4:8: 'a' is already declared as a buffer", CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nsignal a u32 1\nbuffer a 8\n",
         "t.ces:4:8: 'a' is already declared as a signal", CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nsignal a u32 1\nsignal a u64 1\n",
         "t.ces:4:8: 'a' is already declared as a signal", CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nlet a = 1\nbuffer a 8\nsignal A u32 1\nphase eager x1\n"
         "r0 : produce A[0:8]\n",
         "t.ces:7:14: 'A' is a signal: a region needs a buffer", CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nsignal a u32 0\n",
         "t.ces:3:14: signal a has 0 slots: expected 1..16777216", CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nsignal a u32 16777217\n",
         "t.ces:3:14: signal a has 16777217 slots: expected 1..16777216", CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nsignal a u64 4096*4096+1\n",
         "t.ces:3:14: signal a has 16777217 slots: expected 1..16777216", CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nbuffer a 1+\n",
         "t.ces:3:12: expected an expression (a number, a $name or '('), found end of line",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a 12ab\n",
         "t.ces:3:10: expected an expression (a number, a $name or '('), found '12ab'",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a $\n",
         "t.ces:3:10: expected an expression (a number, a $name or '('), found '$'",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a -(-9223372036854775807-1)\n",
         "t.ces:3:10: integer overflow: -(-9223372036854775808) does not fit in 64 bits",
         CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nbuffer a 8\nphase eager\n",
         "t.ces:4:12: expected a repeat count 'xK' (K >= 1) after the phase kind, found end of "
         "line", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nphase eager x99999999999\n",
         "t.ces:3:13: expected a repeat count x1..x4294967295, found 'x99999999999'",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nphase eager x1 now\n",
         "t.ces:3:16: expected end of line after the phase's repeat count, found 'now'",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nphase eager x1\nr : fence\n",
         "t.ces:4:3: expected '*' or a rank number after 'r', found ':'", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nphase eager x1\nr0 sx : fence\n",
         "t.ces:4:4: expected a stream 'sN', 'over' or ':', found 'sx'", CES_ERR_PARSE},
        /* a rank apart from its r was "expected a rank number, found '0'" */
        {"cesync 1\nranks 2\nphase eager x1\nr 0 : fence\n",
         "t.ces:4:3: expected '*' after 'r' (a rank is one token: r0, r1, ...), found '0'",
         CES_ERR_PARSE},
        /* a second stream is not offered where one was given */
        {"cesync 1\nranks 2\nstreams 2\nphase eager x1\nr0 s1 s1 : fence\n",
         "t.ces:5:7: expected 'over' or ':', found 's1'", CES_ERR_PARSE},
        /* a found token is cut at 48 bytes (it was cut at 37) */
        {"cesync 1\nranks 2\nphase eager x1\nr0 : fence abcdefghijabcdefghijabcdefghijabcdefghij"
         "abcde\n",
         "t.ces:4:12: expected end of line after the op, found "
         "'abcdefghijabcdefghijabcdefghijabcdefghijabcde'", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nphase eager x1\nr0 over q : fence\n",
         "t.ces:4:9: expected 'p' or 'p*' after 'over', found 'q'", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nphase eager x1\nr0 over p fence\n",
         "t.ces:4:11: expected ':' before the op, found 'fence'", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nsignal s u32 1\nphase eager x1\nr0 : write s[0] 1\n",
         "t.ces:5:17: expected '@' (a rank or '*') or '=' after the written slot, found '1'",
         CES_ERR_PARSE},
        /* what may follow a slot or region, '@' and its rank too where none
         * was given (they offered '=', '->' or the end of the line only) */
        {"cesync 1\nranks 2\nsignal s u32 1\nphase eager x1\nr0 : write s[0]@1 1 = 2\n",
         "t.ces:5:19: expected '=' after the written slot, found '1'", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nsignal s u32 1\nphase eager x1\nr0 : wait s[0] = 1\n",
         "t.ces:5:16: expected '@' (a rank), '>=' or '==' after the awaited slot, found '='",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nsignal s u32 1\nphase eager x1\nr0 : wait s[0] > 1\n",
         "t.ces:5:16: expected '@' (a rank), '>=' or '==' after the awaited slot, found '>'",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr0 : copy a[0:8] a[0:8]@1\n",
         "t.ces:5:18: expected '@' (a rank) or '->' between the copy's source and destination, "
         "found 'a'", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr0 : copy a[0:8]@1 a[0:8]\n",
         "t.ces:5:20: expected '->' between the copy's source and destination, found 'a'",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr0 : copy a[0:8] -> a[0:8] 1\n",
         "t.ces:5:28: expected '@' (a rank) or end of line after the op, found '1'",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr0 : copy a[0:8] -> a[0:8]@1 1\n",
         "t.ces:5:30: expected end of line after the op, found '1'", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr0 : consume a[0:8]@1 = a[0:8]\n",
         "t.ces:5:23: expected '==' and the expected region, or end of line, after the consumed "
         "region, found '='", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr0 : consume a[0:8] == a[0:8] 1\n",
         "t.ces:5:31: expected '@' (a rank) or end of line after the op, found '1'",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nsignal s u32 1\nphase eager x1\nr0 : wait s(0) == 1\n",
         "t.ces:5:12: expected '[' after the signal name, found '('", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nsignal s u32 1\nphase eager x1\nr0 : wait s[0 == 1\n",
         "t.ces:5:15: expected ']' after the slot index, found '=='", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nsignal s u32 1\nphase eager x1\nr0 : wait s[0]@$r+1 == 1\n",
         "t.ces:5:18: expected '>=' or '==' after the awaited slot, found '+'", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nsignal s u32 1\nphase eager x1\nr0 : wait s[0]@ == 1\n",
         "t.ces:5:17: expected a rank after '@' (a number, a $name or a parenthesised "
         "expression), found '=='", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr0 : produce a[0]\n",
         "t.ces:5:17: expected ':' between the region's lower and upper bounds, found ']'",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr0 : produce a 0:8\n",
         "t.ces:5:16: expected '[' after the buffer name, found '0'", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr0 : copy -> a[0:8]\n",
         "t.ces:5:11: expected a source region 'NAME[lo:hi]', found '->'", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr0 : consume a[0:8] ==\n",
         "t.ces:5:23: expected an expected region 'NAME[lo:hi]', found end of line",
         CES_ERR_PARSE},
        /* '==' is offered after a consumed region (it was "expected end of
         * line after the op, found '='") */
        {"cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr0 : consume a[0:8] = a[0:8]@1\n",
         "t.ces:5:21: expected '@' (a rank), '==' and the expected region, or end of line, after "
         "the consumed region, found '='", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr0 : produce a[0:8] == a[0:8]@1\n",
         "t.ces:5:21: expected '@' (a rank) or end of line after the op, found '=='",
         CES_ERR_PARSE},
        {"cesync 1\nranks 2\nphase eager x1\nr0 : record 3\n",
         "t.ces:4:13: expected an event name, found '3'", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nphase eager x1\nr0 : fence\nr0 : wait\n",
         "t.ces:5:10: expected a slot 'NAME[index]', found end of line", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nsignal s u32 1\nphase eager x1\nr0 : write s[$i]@$p = 1\n",
         "t.ces:5:18: $p is only defined in an op line with 'over p' or 'over p*'",
         CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nlet X = $i\n",
         "t.ces:3:9: $i is not defined in a header statement: only $n and constants are",
         CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nlet X = $p\n",
         "t.ces:3:9: $p is not defined in a header statement: only $n and constants are",
         CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nphase eager x1\nr0 s99999999999 : fence\n",
         "t.ces:4:4: stream s99999999999 is out of range: streams are s0..s0", CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nbuffer a 8\nsignal s u32 1\nphase eager x1\nr0 : produce s[0:1]\n",
         "t.ces:6:14: 's' is a signal: a region needs a buffer", CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nbuffer a 8\nsignal s u32 1\nphase eager x1\n"
         "r0 : copy a[0:1] -> s[0:1]\n",
         "t.ces:6:21: 's' is a signal: a destination region needs a buffer", CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nbuffer a 8\nsignal s u32 1\nphase eager x1\nr0 : write a[0] = 1\n",
         "t.ces:6:12: 'a' is a buffer: a slot needs a signal", CES_ERR_SEMANTIC},
        {"cesync 1\nranks 2\nstreams 2\nphase eager x1\nr0 s1 fence\n",
         "t.ces:5:7: expected ':' before the op, found 'fence'", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a 1<2\n",
         "t.ces:3:11: expected end of line after the buffer's size, found '<'", CES_ERR_PARSE},
        {"cesync 1\nranks 2\nbuffer a 8\nphase eager x1\nr0 : produce a[0:8]@*\n",
         "t.ces:5:21: expected a rank after '@' (a number, a $name or a parenthesised "
         "expression), found '*'", CES_ERR_PARSE},
        /* a '$' before a digit names nothing: the token is bad, not an
         * undefined constant */
        {"cesync 1\nranks 2\nbuffer a $1\n",
         "t.ces:3:10: expected an expression (a number, a $name or '('), found '$1'",
         CES_ERR_PARSE},
        /* DEL is no printable character: it is named by its value */
        {"cesync 1\nranks 2\nbuffer a \x7f\n",
         "t.ces:3:10: expected an expression (a number, a $name or '('), found byte 0x7f",
         CES_ERR_PARSE},
        /* a negative queue count is out of range, not a missing count */
        {"cesync 1\nranks 2\nconnections -1\n",
         "t.ces:3:13: connections must be 0..64 or any, not -1", CES_ERR_SEMANTIC},
        /* a rank number that wraps around 64 bits (2^64) is still too big */
        {"cesync 1\nranks 2\nphase eager x1\nr18446744073709551616 : fence\n",
         "t.ces:4:1: rank r18446744073709551616 is out of range: ranks are r0..r1",
         CES_ERR_SEMANTIC},
        /* a rank after '@' too big for 64 bits says so */
        {"cesync 1\nranks 2\nsignal s u32 1\nphase eager x1\n"
         "r0 : wait s[0]@99999999999999999999 == 1\n",
         "t.ces:5:16: integer 99999999999999999999 does not fit in 64 bits", CES_ERR_PARSE},
    };

    (void)state;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
        expect_parse_error(cases[k].text, cases[k].status, cases[k].msg);
}

static void test_nesting_limits(void **state)
{
    char text[20000];
    size_t n;

    (void)state;
    n = (size_t)snprintf(text, sizeof(text), "cesync 1\nranks 2\nbuffer a ");
    for (int k = 0; k < 100; k++)
        text[n++] = '(';
    text[n++] = '1';
    for (int k = 0; k < 100; k++)
        text[n++] = ')';
    memcpy(text + n, "\n", 2);
    /* said at the 64th '(', whose level is the 65th (the line's own the
     * first) */
    expect_parse_error(text, CES_ERR_LIMIT,
                       "t.ces:3:73: expression nested too deeply (over 64 levels)");
    n = (size_t)snprintf(text, sizeof(text), "cesync 1\nranks 2\nbuffer a 1");
    for (int k = 0; k < 4100; k++) {
        text[n++] = '+';
        text[n++] = '1';
    }
    memcpy(text + n, "\n", 2);
    expect_parse_error(text, CES_ERR_LIMIT,
                       "t.ces:3:4105: statement too long: more than 4096 expression nodes "
                       "(numbers, names and operators)");
    /* a rank after '@' nests as deep as a line: 64 parentheses are over */
    for (int deep = 63; deep <= 64; deep++) {
        n = (size_t)snprintf(text, sizeof(text),
                             "cesync 1\nranks 2\nsignal f u32 1\nphase eager x1\nr0 : write f[0]@");
        for (int k = 0; k < deep; k++)
            text[n++] = '(';
        text[n++] = '0';
        for (int k = 0; k < deep; k++)
            text[n++] = ')';
        n += (size_t)snprintf(text + n, sizeof(text) - n, " = 1\n");
        if (deep == 64) {
            expect_parse_error(text, CES_ERR_LIMIT,
                               "t.ces:5:80: expression nested too deeply (over 64 levels)");
        } else {
            struct ces_test_alloc st;
            struct ces_ctx *ctx = ces_test_ctx(&st);
            struct ces_prog *p = NULL;

            assert_int_equal(ces_prog_parse(ctx, text, n, "t.ces", &p), CES_OK);
            ces_prog_destroy(p);
            ces_test_ctx_end(ctx, &st);
        }
    }
    /* -2^63, a literal of its own, leaves the nesting depth as it found
     * it: a line of 70 of them parses (the depth grew by one for each) */
    n = (size_t)snprintf(text, sizeof(text), "cesync 1\nranks 2\nbuffer a 1");
    for (int k = 0; k < 70; k++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "+0*-9223372036854775808");
    snprintf(text + n, sizeof(text) - n, "\nphase eager x1\n");
    {
        struct ces_test_alloc st;
        struct ces_ctx *ctx = ces_test_ctx(&st);
        struct ces_prog *p = NULL;

        if (ces_prog_parse(ctx, text, strlen(text), "t.ces", &p) != CES_OK)
            fail_msg("%s", ces_ctx_last_error(ctx));
        assert_int_equal(CES_VEC_AT(&p->buffers, struct ces_pbuf, 0).size, 1);
        ces_prog_destroy(p);
        ces_test_ctx_end(ctx, &st);
    }
    /* a long name is cut in the message, which still says what is wrong */
    n = (size_t)snprintf(text, sizeof(text), "cesync 1\nranks 2\n");
    for (int d = 0; d < 2; d++) {
        n += (size_t)snprintf(text + n, sizeof(text) - n, "buffer ");
        memset(text + n, 'b', 5000);
        n += 5000;
        n += (size_t)snprintf(text + n, sizeof(text) - n, " 16\n");
    }
    expect_parse_error(text, CES_ERR_SEMANTIC,
                       "t.ces:4:8: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb...' is already "
                       "declared as a buffer");
    /* so is the name of a buffer or signal of a size out of range (the
     * whole name left no room for the range) */
    for (int sig = 0; sig < 2; sig++) {
        n = (size_t)snprintf(text, sizeof(text), "cesync 1\nranks 2\n%s ",
                             sig ? "signal" : "buffer");
        memset(text + n, 'b', 5000);
        n += 5000;
        snprintf(text + n, sizeof(text) - n, "%s 0\n", sig ? " u32" : "");
        expect_parse_error(text, CES_ERR_SEMANTIC,
                           sig ? "t.ces:3:5013: signal "
                                 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb... has 0 slots: "
                                 "expected 1..16777216"
                               : "t.ces:3:5009: buffer "
                                 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb... has size 0: "
                                 "expected 1..2^48 bytes");
    }
}

/* The hint of a carriage return alone (test_crlf_and_no_final_newline)
 * looks at a line's first CR alone: it scanned the blanks after each byte
 * before the error, and a line of 200000 spaces, or of 200000 CRs, before
 * its error took 16 s to be refused. */
static void test_long_blank_run_before_an_error(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = NULL;
    size_t n = 200000;
    char *text = malloc(n + 32);
    struct timespec t0, t1;
    double s;

    (void)state;
    assert_non_null(text);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memcpy(text, "cesync 1", 8);
    memset(text + 8, ' ', n);
    memcpy(text + 8 + n, "x\n", 3);
    assert_int_equal(ces_prog_parse(ctx, text, n + 10, "t.ces", &p), CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "t.ces:1:200009: expected end of line after 'cesync 1', found 'x'");
    memcpy(text, "cesync 1\nranks", 14);
    memset(text + 14, '\r', n);
    text[14 + n] = '\n';
    assert_int_equal(ces_prog_parse(ctx, text, n + 15, "t.ces", &p), CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx), "t.ces:2:200005: expected an expression (a "
                                                 "number, a $name or '('), found end of line");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (s >= 5.0)
        fail_msg("refused after %.3f s", s);
    free(text);
    ces_test_ctx_end(ctx, &st);
}

static void test_crlf_and_no_final_newline(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = NULL;
    const char *text = "cesync 1\r\nranks 2\r\n\tphase eager x1\r\nr* : fence";

    (void)state;
    assert_int_equal(parse(ctx, text, &p), CES_OK);
    assert_int_equal(p->ops.len, 1);
    ces_prog_destroy(p);
    /* lines ended by CR alone (old Mac files) read as one line: its error
     * says where the first CR alone stands and why it ends no line (it
     * said "found 'ranks'" alone); a CR with blanks and CRs after it up to
     * the newline, and one after the error, are no such line end */
    assert_int_equal(parse(ctx, "cesync 1\rranks 2\rphase eager x1\rr* : fence\r", &p),
                     CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "t.ces:1:10: expected end of line after 'cesync 1', found 'ranks' "
                        "(column 9 is a carriage return alone, which ends no line: lines end "
                        "with LF or CRLF, not with CR as in old Mac files)");
    assert_int_equal(parse(ctx, "# a\r\rcesync 1\rranks 2\r", &p), CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "t.ces:1:22: expected 'cesync 1' as the first statement, found end of "
                        "input (column 4 is a carriage return alone, which ends no line: lines "
                        "end with LF or CRLF, not with CR as in old Mac files)");
    assert_int_equal(parse(ctx, "cesync 1\nranks\r \r\n", &p), CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx), "t.ces:2:8: expected an expression (a number, a "
                                                 "$name or '('), found end of line");
    assert_int_equal(parse(ctx, "cesync 1\nranks 2 2\rx\n", &p), CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "t.ces:2:9: expected end of line after 'ranks N', found '2'");
    /* an embedded NUL is said where it is, not taken for the end of the
     * text or a token's end */
    assert_int_equal(ces_prog_parse(ctx, "cesync 1\nranks 2\0\n", 18, "n.ces", &p), CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "n.ces:2:8: a NUL byte: a schedule is text (is this a binary file?)");
    assert_int_equal(ces_prog_parse(ctx, "cesync 1\nranks 2\nbuff\0er b 16\n", 28, "n.ces", &p),
                     CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "n.ces:3:5: a NUL byte: a schedule is text (is this a binary file?)");
    /* a UTF-8 byte order mark first is skipped, columns count after it */
    assert_int_equal(parse(ctx, "\xef\xbb\xbf" "cesync 1\nranks 2\nphase eager x1\nr* : fence\n",
                           &p), CES_OK);
    ces_prog_destroy(p);
    assert_int_equal(parse(ctx, "\xef\xbb\xbf" "cesync 2\n", &p), CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "t.ces:1:8: unsupported format version 2: expected 'cesync 1'");
    assert_int_equal(ces_prog_parse(ctx, "\xef\xbb\xbf" "cesync\0", 10, "n.ces", &p),
                     CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "n.ces:1:7: a NUL byte: a schedule is text (is this a binary file?)");
    /* a byte order mark anywhere else is no blank */
    assert_int_equal(parse(ctx, "cesync 1\n\xef\xbb\xbfranks 2\n", &p), CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "t.ces:2:1: expected a statement (ranks, streams, connections, let, "
                        "buffer, signal, phase or an op line 'rN : op'), found byte 0xef");
    ces_test_ctx_end(ctx, &st);
}

static void test_file_input(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = NULL;
    char path[1024];

    (void)state;
    snprintf(path, sizeof(path), "%s/good/alltoall.ces", CES_FIXTURES);
    assert_int_equal(ces_prog_parse_file(ctx, path, &p), CES_OK);
    assert_string_equal(p->file, path);
    assert_int_equal(p->ranks, 4);
    ces_prog_destroy(p);
    assert_int_equal(ces_prog_parse_file(ctx, "/nonexistent/x.ces", &p), CES_ERR_IO);
    assert_null(p);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "/nonexistent/x.ces: cannot open: No such file or directory");
    {
        /* a path of 8405 bytes, 4200 "a/" and x.ces, is more than a message
         * holds: its middle is left out, not why it cannot be opened (the
         * message ended within the path) */
        char *longpath = malloc(8406), *want = malloc(CES_ERRMSG_MAX);
        size_t k;

        assert_non_null(longpath);
        assert_non_null(want);
        k = ces_test_repeat(longpath, 8406, 0, "a/", 4200);
        ces_test_repeat(longpath, 8406, k, "x.ces", 1);
        k = ces_test_repeat(want, CES_ERRMSG_MAX, 0, "a/", 1024);
        k = ces_test_repeat(want, CES_ERRMSG_MAX, k, "...", 1);
        k = ces_test_repeat(want, CES_ERRMSG_MAX, k, "a/", 3051);
        ces_test_repeat(want, CES_ERRMSG_MAX, k, "x.ces: cannot open: File name too long", 1);
        assert_int_equal(ces_prog_parse_file(ctx, longpath, &p), CES_ERR_IO);
        assert_null(p);
        assert_int_equal(strlen(want), CES_ERRMSG_MAX - 1);
        assert_string_equal(ces_ctx_last_error(ctx), want);
        free(longpath);
        free(want);
    }
    assert_int_equal(ces_prog_parse_file(ctx, "", &p), CES_ERR_INVALID);
    assert_null(p);
    assert_string_equal(ces_ctx_last_error(ctx), "'': a schedule file's path is empty");
    /* "-" reads standard input */
    assert_non_null(freopen(path, "rb", stdin));
    assert_int_equal(ces_prog_parse_file(ctx, "-", &p), CES_OK);
    assert_string_equal(p->file, "<stdin>");
    assert_int_equal(p->ops.len, 9);
    ces_prog_destroy(p);
    assert_int_equal(ces_prog_parse(ctx, NULL, 0, NULL, &p), CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "<input>:1:1: expected 'cesync 1' as the first statement, found end of "
                        "input");
    assert_int_equal(ces_prog_parse(ctx, "x", 1, NULL, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_prog_parse(NULL, "x", 1, NULL, &p), CES_ERR_INVALID);
    assert_int_equal(ces_prog_parse_file(ctx, NULL, &p), CES_ERR_INVALID);
    ces_prog_destroy(NULL);
    ces_test_ctx_end(ctx, &st);
}

/* Text over CES_SOURCE_MAX is refused through the API as from a file, before
 * a byte of it is read: the text is 256 MiB + 1 of /dev/zero mapped (no
 * memory behind it), which the parser would otherwise call a NUL byte. */
static void test_source_limit(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = NULL;
    int fd = open("/dev/zero", O_RDONLY);
    char *text;

    (void)state;
    assert_true(fd >= 0);
    text = mmap(NULL, CES_SOURCE_MAX + 1, PROT_READ, MAP_PRIVATE, fd, 0);
    assert_true(text != MAP_FAILED);
    assert_int_equal(ces_prog_parse(ctx, text, CES_SOURCE_MAX + 1, "big.ces", &p),
                     CES_ERR_LIMIT);
    assert_null(p);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "big.ces: larger than 268435456 bytes, more than it may hold");
    assert_int_equal(ces_prog_parse(ctx, text, CES_SOURCE_MAX + 1, NULL, &p), CES_ERR_LIMIT);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "<input>: larger than 268435456 bytes, more than it may hold");
    /* at the limit the text is read (the first byte is a NUL) */
    assert_int_equal(ces_prog_parse(ctx, text, CES_SOURCE_MAX, "big.ces", &p), CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "big.ces:1:1: a NUL byte: a schedule is text (is this a binary file?)");
    assert_int_equal(munmap(text, CES_SOURCE_MAX + 1), 0);
    close(fd);
    /* the device itself as a file: said at its first byte, without reading
     * 256 MiB first */
    assert_int_equal(ces_prog_parse_file(ctx, "/dev/zero", &p), CES_ERR_PARSE);
    assert_null(p);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "/dev/zero:1:1: a NUL byte: a schedule is text (is this a binary file?)");
    ces_test_ctx_end(ctx, &st);
}

struct fixture_arg {
    const char *text;
    size_t len;
};

static int parse_body(struct ces_ctx *ctx, void *arg)
{
    const struct fixture_arg *a = arg;
    struct ces_prog *p = NULL;
    int rc = ces_prog_parse(ctx, a->text, a->len, "alltoall.ces", &p);

    ces_prog_destroy(p);
    return rc;
}

/* A file's path as long as a path may be (PATH_MAX, 4096 bytes) does not
 * push the line, the column and what is wrong out of the message (the
 * message was cut at 1,023 bytes). */
static void test_long_file_name(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *p = NULL;
    static char name[4096], want[4200];

    (void)state;
    for (size_t i = 0; i + 1 < sizeof(name); i += 2)
        memcpy(name + i, i + 2 < sizeof(name) - 1 ? "d/" : "f", i + 2 < sizeof(name) - 1 ? 2 : 1);
    name[sizeof(name) - 1] = '\0';
    assert_int_equal(ces_prog_parse(ctx, "cesync 1\nranks 0\n", 17, name, &p), CES_ERR_SEMANTIC);
    snprintf(want, sizeof(want), "%s:2:7: ranks must be 1..1024, not 0", name);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    ces_test_ctx_end(ctx, &st);
}

static void test_alloc_failures(void **state)
{
    char path[1024];
    struct fixture_arg a;
    char *text;

    (void)state;
    snprintf(path, sizeof(path), "%s/good/streams_events.ces", CES_FIXTURES);
    text = ces_test_read_file(path, &a.len);
    a.text = text;
    assert_true(ces_test_alloc_failures(parse_body, &a) > 10);
    free(text);
    /* tables of names that grow: each a few times */
    {
        static char many[8192];
        size_t n = (size_t)snprintf(many, sizeof(many), "cesync 1\nranks 2\nstreams 2\n");

        for (int k = 0; k < 40; k++)
            n += (size_t)snprintf(many + n, sizeof(many) - n,
                                  "let c%d = %d\nbuffer b%d 8\nsignal f%d u32 1\n", k, k, k, k);
        n += (size_t)snprintf(many + n, sizeof(many) - n, "phase eager x1\n");
        for (int k = 0; k < 40; k++)
            n += (size_t)snprintf(many + n, sizeof(many) - n,
                                  "r0 : record e%d\nr0 s1 : await e%d\n", k, k);
        assert_true(n < sizeof(many));
        a.text = many;
        a.len = n;
        assert_true(ces_test_alloc_failures(parse_body, &a) > 4 * 40);
    }
}

/* The loaders' files are opened close-on-exec (a child that another thread
 * started, Graphviz among them, held them); a file that is not there is
 * NULL with fopen's errno. */
static void test_fopen_read(void **state)
{
    char *dir = ces_test_tmpdir(), path[128];
    FILE *f;
    int c;

    (void)state;
    snprintf(path, sizeof(path), "%s/x.ces", dir);
    ces_test_put_file(path, "x");
    f = ces_fopen_read(path);
    assert_non_null(f);
    assert_true((fcntl(fileno(f), F_GETFD) & FD_CLOEXEC) != 0);
    c = fgetc(f);
    assert_int_equal(c, 'x');
    fclose(f);
    assert_int_equal(unlink(path), 0);
    errno = 0;
    assert_null(ces_fopen_read(path));
    assert_int_equal(errno, ENOENT);
    assert_int_equal(rmdir(dir), 0);
}

/* The whole-stream reader shared by the .ces and model file loaders: every
 * byte, a NUL after them, the length; more than one buffer's worth grows. */
static void test_read_stream(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    FILE *f = tmpfile();
    char *text = NULL;
    size_t len = 0;

    (void)state;
    assert_non_null(f);
    for (int k = 0; k < 5000; k++)
        fputs("abc", f);
    rewind(f);
    assert_int_equal(ces_read_stream(ctx, f, "t", CES_SOURCE_MAX, &text, &len), CES_OK);
    assert_int_equal(len, 15000);
    assert_int_equal(text[15000], '\0');
    assert_memory_equal(text + 14997, "abc", 3);
    ces_free(ctx, text);
    /* out of memory on the second buffer: nothing is left allocated */
    rewind(f);
    st.fail_at = st.calls + 2;
    assert_int_equal(ces_read_stream(ctx, f, "t", CES_SOURCE_MAX, &text, &len), CES_ERR_NOMEM);
    assert_null(text);
    assert_string_equal(ces_ctx_last_error(ctx), "t: out of memory reading");
    st.fail_at = 0;
    /* past the bound: refused while reading, nothing left allocated */
    rewind(f);
    st.largest = 0;
    assert_int_equal(ces_read_stream(ctx, f, "t", 10000, &text, &len), CES_ERR_LIMIT);
    assert_null(text);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "t: larger than 10000 bytes, more than it may hold");
    /* the buffer grows no larger than the bound needs (max bytes, one
     * past them, the NUL): doubling, it held 16,384 bytes to refuse more
     * than 10,000, 512 MiB for CES_SOURCE_MAX's 256 MiB */
    assert_int_equal(st.largest, 10002);
    /* the bound itself: a stream of exactly max bytes is read, one more
     * byte is refused */
    rewind(f);
    st.largest = 0;
    assert_int_equal(ces_read_stream(ctx, f, "t", 15000, &text, &len), CES_OK);
    assert_int_equal(len, 15000);
    assert_int_equal(st.largest, 15002);
    ces_free(ctx, text);
    rewind(f);
    assert_int_equal(ces_read_stream(ctx, f, "t", 14999, &text, &len), CES_ERR_LIMIT);
    assert_null(text);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "t: larger than 14999 bytes, more than it may hold");
    /* a read that holds a NUL byte is the last: no text has one (a device
     * of zeros was read to the bound first) */
    rewind(f);
    fseek(f, 100, SEEK_SET);
    fputc('\0', f);
    rewind(f);
    assert_int_equal(ces_read_stream(ctx, f, "t", 14999, &text, &len), CES_OK);
    assert_true(len > 100 && len < 15000);
    assert_int_equal(text[100], '\0');
    ces_free(ctx, text);
    fclose(f);
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fopen_read),
        cmocka_unit_test(test_read_stream),
        cmocka_unit_test(test_good_fixtures_are_canonical),
        cmocka_unit_test(test_malformed_fixtures),
        cmocka_unit_test(test_header_values),
        cmocka_unit_test(test_signal_slots),
        cmocka_unit_test(test_op_ast),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_nesting_limits),
        cmocka_unit_test(test_crlf_and_no_final_newline),
        cmocka_unit_test(test_long_blank_run_before_an_error),
        cmocka_unit_test(test_file_input),
        cmocka_unit_test(test_source_limit),
        cmocka_unit_test(test_long_file_name),
        cmocka_unit_test(test_alloc_failures),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
