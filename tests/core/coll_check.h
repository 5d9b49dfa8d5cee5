/*
 * tests/core/coll_check.h - helpers the collective builder tests share:
 * generate a schedule, compare it with its golden file, check that it
 * round-trips through parse/print and that it expands into a valid graph.
 * Set CES_UPDATE_GOLDEN=1 to rewrite the golden files from the builders:
 * each test that compares with golden files then rewrites them all and ends
 * skipped (coll_golden_end), never passed.
 */
#ifndef CES_TEST_COLL_CHECK_H
#define CES_TEST_COLL_CHECK_H

#include "ces_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parameters in one call (the short name these tests use). */
static inline struct ces_coll_params coll_params(uint32_t coll, uint32_t proto, uint32_t ranks,
                                                 uint64_t bytes, uint32_t iterations,
                                                 uint32_t phase)
{
    return ces_test_coll_params(coll, proto, ranks, bytes, iterations, phase);
}

/* Generates the text; asserts CES_OK.  Free with ces_free. */
static inline char *coll_text(struct ces_ctx *ctx, const struct ces_coll_params *p)
{
    char *text = NULL;
    size_t len = 0;
    int rc = ces_coll_source(ctx, p, &text, &len);

    if (rc != CES_OK)
        fail_msg("ces_coll_source: %s", ces_ctx_last_error(ctx));
    assert_non_null(text);
    assert_int_equal(strlen(text), len);
    return text;
}

/* A body for ces_test_alloc_failures: the program of the collective
 * `arg` (a struct ces_coll_params), generated and parsed, then freed. */
static inline int coll_program_body(struct ces_ctx *ctx, void *arg)
{
    struct ces_prog *prog = NULL;
    int rc = ces_coll_program(ctx, arg, &prog);

    ces_prog_destroy(prog);
    return rc;
}

/* print(parse(text)) == text */
static inline void coll_roundtrip(struct ces_ctx *ctx, const char *text)
{
    struct ces_prog *prog = NULL;
    char *again = NULL;

    if (ces_prog_parse(ctx, text, strlen(text), "golden", &prog) != CES_OK)
        fail_msg("parse: %s", ces_ctx_last_error(ctx));
    assert_int_equal(ces_prog_print(ctx, prog, &again, NULL), CES_OK);
    assert_string_equal(again, text);
    ces_free(ctx, again);
    ces_prog_destroy(prog);
}

/* Whether this run rewrites the golden files (CES_UPDATE_GOLDEN set). */
static inline int coll_golden_update(void)
{
    return getenv("CES_UPDATE_GOLDEN") != NULL;
}

/* The end of a test that called coll_golden: where it rewrote the golden
 * files it compared with nothing, so it is skipped rather than passed. */
static inline void coll_golden_end(void)
{
    if (coll_golden_update())
        skip();
}

/* The builder's text equals tests/fixtures/golden/<name> (or, with
 * CES_UPDATE_GOLDEN, is written there: the test then ends with
 * coll_golden_end), round-trips, and ces_coll_build gives a valid graph
 * equal to expanding the text. */
static inline void coll_golden(const struct ces_coll_params *p, const char *name)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char path[512];
    char *text = coll_text(ctx, p);
    char *want;
    struct ces_graph *g = NULL;

    snprintf(path, sizeof(path), "%s/golden/%s", CES_FIXTURES, name);
    if (coll_golden_update()) {
        FILE *f = fopen(path, "w");

        assert_non_null(f);
        fputs(text, f);
        fclose(f);
    } else {
        want = ces_test_read_file(path, NULL);
        assert_string_equal(text, want);
        free(want);
    }
    coll_roundtrip(ctx, text);
    if (ces_coll_build(ctx, p, &g) != CES_OK)
        fail_msg("build %s: %s", name, ces_ctx_last_error(ctx));
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_graph_ranks(g), p->ranks);
    assert_int_equal(ces_graph_iterations(g), p->iterations);
    ces_graph_destroy(g);
    ces_free(ctx, text);
    ces_test_ctx_end(ctx, &st);
}

/* The five golden schedules of a collective at 4 ranks, 256 bytes, 2
 * iterations: nccl eager and graph, mono eager, credit graph, pull graph, in
 * golden/<coll>_<proto>[_graph]_r4_b256_x2.ces. */
static inline void coll_golden_protocols(uint32_t coll)
{
    static const struct {
        uint32_t proto, phase;
        const char *suffix;
    } v[] = {
        {CES_PROTO_NCCL, CES_PHASE_EAGER, "nccl"},
        {CES_PROTO_NCCL, CES_PHASE_GRAPH, "nccl_graph"},
        {CES_PROTO_MONO, CES_PHASE_EAGER, "mono"},
        {CES_PROTO_CREDIT, CES_PHASE_GRAPH, "credit_graph"},
        {CES_PROTO_PULL, CES_PHASE_GRAPH, "pull_graph"},
    };

    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        struct ces_coll_params p = coll_params(coll, v[i].proto, 4, 256, 2, v[i].phase);
        char name[128];

        snprintf(name, sizeof(name), "%s_%s_r4_b256_x2.ces", ces_coll_name((int)coll),
                 v[i].suffix);
        coll_golden(&p, name);
    }
}

/* ces_coll_source fails with `status` and exactly `msg` (text NULL, length
 * 0). */
static inline void coll_error(const struct ces_coll_params *p, int status, const char *msg)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *text = (char *)1;
    size_t len = 7;
    struct ces_graph *g = (struct ces_graph *)1;

    assert_int_equal(ces_coll_source(ctx, p, &text, NULL), status);
    assert_null(text);
    assert_string_equal(ces_ctx_last_error(ctx), msg);
    text = (char *)1;
    assert_int_equal(ces_coll_source(ctx, p, &text, &len), status);
    assert_null(text);
    assert_int_equal(len, 0);
    assert_int_equal(ces_coll_build(ctx, p, &g), status);
    assert_null(g);
    assert_string_equal(ces_ctx_last_error(ctx), msg);
    ces_test_ctx_end(ctx, &st);
}

/* A rooted collective (gather, scatter, broadcast) with root 2 matches
 * golden/<coll>_nccl_root2_r4_b256_x1.ces, and root 4 of 4 ranks is refused
 * with the exact message. */
static inline void coll_root_checks(uint32_t coll)
{
    struct ces_coll_params p = coll_params(coll, CES_PROTO_NCCL, 4, 256, 1, CES_PHASE_EAGER);
    char name[128], msg[128];

    p.root = 2;
    snprintf(name, sizeof(name), "%s_nccl_root2_r4_b256_x1.ces", ces_coll_name((int)coll));
    coll_golden(&p, name);
    p.root = 4;
    snprintf(msg, sizeof(msg), "%s: root must be a rank (0..3), not 4", ces_coll_name((int)coll));
    coll_error(&p, CES_ERR_INVALID, msg);
}

/* The checker's verdict (ces_test_verdict) on p's schedule with the first
 * `from` in its text replaced by `to` ("" drops it). */
static inline uint32_t coll_verdict_with(struct ces_ctx *ctx, const struct ces_coll_params *p,
                                         const char *from, const char *to)
{
    char *text = coll_text(ctx, p);
    size_t n = strlen(text), a = 0, b = strlen(from), t = strlen(to);
    char *mut = malloc(n + t + 1);
    struct ces_prog *prog = NULL;
    struct ces_graph *g = NULL;
    uint32_t v;

    while (a < n && strncmp(text + a, from, b) != 0)
        a++;
    if (a == n)
        fail_msg("no '%s' in\n%s", from, text);
    assert_non_null(mut);
    memcpy(mut, text, a);
    memcpy(mut + a, to, t);
    memcpy(mut + a + t, text + a + b, n - a - b + 1);
    ces_free(ctx, text);
    if (ces_prog_parse(ctx, mut, strlen(mut), "mutant", &prog) != CES_OK ||
        ces_prog_expand(ctx, prog, &g) != CES_OK)
        fail_msg("mutant: %s", ces_ctx_last_error(ctx));
    v = ces_test_verdict(ctx, g);
    ces_graph_destroy(g);
    ces_prog_destroy(prog);
    free(mut);
    return v;
}

/* Builds the graph; asserts CES_OK. */
static inline struct ces_graph *coll_graph(struct ces_ctx *ctx, const struct ces_coll_params *p)
{
    struct ces_graph *g = NULL;

    if (ces_coll_build(ctx, p, &g) != CES_OK)
        fail_msg("build: %s", ces_ctx_last_error(ctx));
    return g;
}

/* Formats op k of rank r in block b (asserts it exists). */
static inline const char *coll_op(const struct ces_graph *g, uint32_t b, uint32_t r, uint32_t k,
                                  char *buf, size_t size)
{
    uint32_t n = 0;
    const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

    assert_true(k < n);
    ces_op_format(g, r, &ops[k], buf, size);
    return buf;
}

/* Every op of rank r in block b, formatted, one per line ("s1 " prefixed for
 * stream 1 and up).  Free with free(). */
static inline char *coll_ops_text(const struct ces_graph *g, uint32_t b, uint32_t r)
{
    uint32_t n = 0;
    const struct ces_op *ops = ces_graph_ops(g, b, r, &n);
    size_t cap = 256 * (size_t)(n + 1), len = 0;
    char *out = malloc(cap);

    assert_non_null(out);
    out[0] = '\0';
    for (uint32_t k = 0; k < n; k++) {
        char line[200];

        if (ops[k].stream != 0)
            len += (size_t)snprintf(out + len, cap - len, "s%u ", ops[k].stream);
        ces_op_format(g, r, &ops[k], line, sizeof(line));
        len += (size_t)snprintf(out + len, cap - len, "%s\n", line);
    }
    return out;
}

/* Builds the collective and asserts that rank r's ops in block b are exactly
 * `want` (coll_ops_text's form). */
static inline void coll_expect_ops(const struct ces_coll_params *p, uint32_t b, uint32_t r,
                                   const char *want)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = coll_graph(ctx, p);
    char *ops = coll_ops_text(g, b, r);

    assert_string_equal(ops, want);
    free(ops);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

#endif
