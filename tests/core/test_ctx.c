/*
 * tests/core/test_ctx.c - core/ctx.c: the last error (also the one every
 * entry point that takes a context sets when it refuses an argument), and
 * the small containers: the growable array's size arithmetic.
 */
#include "ces_test.h"
#include "internal.h"

#include <stdint.h>
#include <string.h>

/* A request whose item count or byte size does not fit in size_t is
 * CES_ERR_NOMEM and leaves the vector as it was (the count used to wrap and
 * report room that was never allocated). */
static void test_vec_reserve_overflow(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_vec v = {NULL, 0, 0};
    uint64_t x = 7;
    size_t cap;

    (void)state;
    assert_int_equal(ces_vec_push(ctx, &v, sizeof(x), &x), CES_OK);
    assert_int_equal(ces_vec_push(ctx, &v, sizeof(x), &x), CES_OK);
    cap = v.cap;
    assert_int_equal(ces_vec_reserve(ctx, &v, sizeof(x), SIZE_MAX - 1), CES_ERR_NOMEM);
    assert_int_equal(ces_vec_reserve(ctx, &v, sizeof(x), SIZE_MAX / sizeof(x)), CES_ERR_NOMEM);
    assert_int_equal(ces_vec_reserve(ctx, &v, sizeof(x), SIZE_MAX / sizeof(x) - 2),
                     CES_ERR_NOMEM);
    assert_int_equal(v.len, 2);
    assert_int_equal(v.cap, cap);
    assert_int_equal(CES_VEC_AT(&v, uint64_t, 1), 7);
    assert_int_equal(ces_vec_reserve(ctx, &v, sizeof(x), 100), CES_OK);
    assert_true(v.cap >= 102);
    ces_vec_free(ctx, &v);
    ces_test_ctx_end(ctx, &st);
}

/* The last error passed back to ces_ctx_error to add context to it: it
 * used to be read by vsnprintf while vsnprintf wrote over it, which left
 * the prefix where the old message should be ("loading x: loading x: ..."). */
static void test_error_wraps_last_error(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 0, 1, &g), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "ranks must be 1..1024, not 0");
    assert_int_equal(ces_ctx_error(ctx, CES_ERR_IO, "loading x: %s", ces_ctx_last_error(ctx)),
                     CES_ERR_IO);
    assert_string_equal(ces_ctx_last_error(ctx), "loading x: ranks must be 1..1024, not 0");
    ces_test_ctx_end(ctx, &st);
}

/* --- refused arguments ------------------------------------------------- */

/* Each entry point that takes a context and refuses an argument, called
 * with a valid context and one argument it refuses (NULL unless the row
 * says otherwise).  They returned CES_ERR_INVALID and left the context's
 * message as it was, so a caller read the last, unrelated error as the
 * reason. */
static int refuse_graph_create(struct ces_ctx *ctx)
{
    return ces_graph_create(ctx, 1, 1, NULL);
}

/* the graph's context: the one it was created with */
static int refuse_graph_add_op(struct ces_ctx *ctx)
{
    struct ces_graph *g = NULL;
    int rc = ces_graph_create(ctx, 1, 1, &g);

    if (rc == CES_OK)
        rc = ces_graph_add_op(g, 0, NULL);
    ces_graph_destroy(g);
    return rc;
}

/* a table entry without a name (its message quoted the name as "(null)") */
static int refuse_graph_add_buffer(struct ces_ctx *ctx)
{
    struct ces_graph *g = NULL;
    int rc = ces_graph_create(ctx, 1, 1, &g);

    if (rc == CES_OK)
        rc = ces_graph_add_buffer(g, NULL, 0, NULL);
    ces_graph_destroy(g);
    return rc;
}

static int refuse_graph_add_signal(struct ces_ctx *ctx)
{
    struct ces_graph *g = NULL;
    int rc = ces_graph_create(ctx, 1, 1, &g);

    if (rc == CES_OK)
        rc = ces_graph_add_signal(g, NULL, 7, 1, NULL);
    ces_graph_destroy(g);
    return rc;
}

static int refuse_graph_add_event(struct ces_ctx *ctx)
{
    struct ces_graph *g = NULL;
    int rc = ces_graph_create(ctx, 1, 1, &g);

    if (rc == CES_OK)
        rc = ces_graph_add_event(g, NULL, NULL);
    ces_graph_destroy(g);
    return rc;
}

static int refuse_graph_add_const(struct ces_ctx *ctx)
{
    struct ces_graph *g = NULL;
    int rc = ces_graph_create(ctx, 1, 1, &g);

    if (rc == CES_OK)
        rc = ces_graph_add_const(g, NULL, 1);
    ces_graph_destroy(g);
    return rc;
}

static int refuse_graph_print(struct ces_ctx *ctx)
{
    char *text = NULL;

    return ces_graph_print(ctx, NULL, 0, &text, NULL);
}

static int refuse_prog_parse(struct ces_ctx *ctx)
{
    struct ces_prog *p = NULL;

    return ces_prog_parse(ctx, NULL, 5, NULL, &p);
}

static int refuse_prog_parse_file(struct ces_ctx *ctx)
{
    struct ces_prog *p = NULL;

    return ces_prog_parse_file(ctx, NULL, &p);
}

static int refuse_prog_print(struct ces_ctx *ctx)
{
    char *text = NULL;

    return ces_prog_print(ctx, NULL, &text, NULL);
}

static int refuse_prog_expand(struct ces_ctx *ctx)
{
    struct ces_graph *g = NULL;

    return ces_prog_expand(ctx, NULL, &g);
}

static int refuse_graph_load(struct ces_ctx *ctx)
{
    struct ces_graph *g = NULL;

    return ces_graph_load(ctx, NULL, &g);
}

static int refuse_coll_source(struct ces_ctx *ctx)
{
    char *text = NULL;

    return ces_coll_source(ctx, NULL, &text, NULL);
}

/* p NULL: the message named ces_coll_source, which it calls */
static int refuse_coll_program(struct ces_ctx *ctx)
{
    struct ces_prog *p = NULL;

    return ces_coll_program(ctx, NULL, &p);
}

static int refuse_coll_build(struct ces_ctx *ctx)
{
    struct ces_graph *g = NULL;

    return ces_coll_build(ctx, NULL, &g);
}

static int refuse_dot_emit(struct ces_ctx *ctx)
{
    char *text = NULL;

    return ces_dot_emit(ctx, NULL, NULL, &text, NULL);
}

static int refuse_dot_write(struct ces_ctx *ctx)
{
    return ces_dot_write(ctx, NULL, "x.dot");
}

static int refuse_fault_parse(struct ces_ctx *ctx)
{
    struct ces_fault f;

    return ces_fault_parse(ctx, NULL, &f);
}

static int refuse_queue_map_parse(struct ces_ctx *ctx)
{
    uint32_t map[1];

    return ces_queue_map_parse(ctx, NULL, 1, 1, map);
}

static int refuse_queue_map_parse_ranks(struct ces_ctx *ctx)
{
    uint32_t map[1];

    return ces_queue_map_parse(ctx, "0", 0, 1, map);
}

static int refuse_check(struct ces_ctx *ctx)
{
    struct ces_check_report *r = NULL;

    return ces_check(ctx, NULL, NULL, &r);
}

static int refuse_check_report_text(struct ces_ctx *ctx)
{
    char *text = NULL;

    return ces_check_report_text(ctx, NULL, &text, NULL);
}

/* r NULL: the message would have named ces_check_report_text */
static int refuse_check_report_print(struct ces_ctx *ctx)
{
    return ces_check_report_print(ctx, NULL, stderr);
}

static int refuse_check_report_json(struct ces_ctx *ctx)
{
    char *text = NULL;

    return ces_check_report_json(ctx, NULL, &text, NULL);
}

static int refuse_check_fault_sweep(struct ces_ctx *ctx)
{
    struct ces_check_sweep_row *rows = NULL;
    size_t n = 0;

    return ces_check_fault_sweep(ctx, NULL, NULL, &rows, &n);
}

static int refuse_check_sweep_text(struct ces_ctx *ctx)
{
    char *text = NULL;

    return ces_check_sweep_text(ctx, NULL, 1, &text, NULL);
}

static int refuse_gen_graph(struct ces_ctx *ctx)
{
    return ces_gen_graph(ctx, 1, NULL, NULL);
}

static int refuse_gen_source(struct ces_ctx *ctx)
{
    return ces_gen_source(ctx, 1, NULL, NULL, NULL);
}

static int refuse_promela_emit(struct ces_ctx *ctx)
{
    char *text = NULL;

    return ces_promela_emit(ctx, NULL, NULL, &text, NULL);
}

static int refuse_sim_prepare(struct ces_ctx *ctx)
{
    void *st = NULL;

    return ces_backend_find("sim")->prepare(ctx, NULL, NULL, &st);
}

static int refuse_model_parse(struct ces_ctx *ctx)
{
    struct ces_model m;

    return ces_model_parse(ctx, NULL, 5, NULL, NULL, &m);
}

static int refuse_model_load(struct ces_ctx *ctx)
{
    struct ces_model m;

    return ces_model_load(ctx, NULL, NULL, &m);
}

static int refuse_model_print(struct ces_ctx *ctx)
{
    char *text = NULL;

    return ces_model_print(ctx, NULL, &text, NULL);
}

static int refuse_model_supports(struct ces_ctx *ctx)
{
    return ces_model_supports(ctx, NULL, NULL);
}

static int refuse_model_predict(struct ces_ctx *ctx)
{
    struct ces_predict pr;

    return ces_model_predict(ctx, ces_model_find("h200"), NULL, &pr);
}

static void test_refusal_says_why(void **state)
{
    static const struct {
        int (*call)(struct ces_ctx *ctx);
        const char *error;
    } rows[] = {
        {refuse_graph_create, "ces_graph_create: NULL argument"},
        {refuse_graph_add_op, "ces_graph_add_op: NULL argument"},
        {refuse_graph_add_buffer, "ces_graph_add_buffer: NULL argument"},
        {refuse_graph_add_signal, "ces_graph_add_signal: NULL argument"},
        {refuse_graph_add_event, "ces_graph_add_event: NULL argument"},
        {refuse_graph_add_const, "ces_graph_add_const: NULL argument"},
        {refuse_graph_print, "ces_graph_print: NULL argument"},
        {refuse_prog_parse, "ces_prog_parse: NULL argument"},
        {refuse_prog_parse_file, "ces_prog_parse_file: NULL argument"},
        {refuse_prog_print, "ces_prog_print: NULL argument"},
        {refuse_prog_expand, "ces_prog_expand: NULL argument"},
        {refuse_graph_load, "ces_graph_load: NULL argument"},
        {refuse_coll_source, "ces_coll_source: NULL argument"},
        {refuse_coll_program, "ces_coll_program: NULL argument"},
        {refuse_coll_build, "ces_coll_build: NULL argument"},
        {refuse_dot_emit, "ces_dot_emit: NULL argument"},
        {refuse_dot_write, "ces_dot_write: NULL argument"},
        {refuse_fault_parse, "ces_fault_parse: NULL argument"},
        {refuse_queue_map_parse, "ces_queue_map_parse: NULL argument"},
        {refuse_queue_map_parse_ranks,
         "ces_queue_map_parse: ranks and streams must be at least 1, not 0 and 1"},
        {refuse_check, "ces_check: NULL argument"},
        {refuse_check_report_text, "ces_check_report_text: NULL argument"},
        {refuse_check_report_print, "ces_check_report_print: NULL argument"},
        {refuse_check_report_json, "ces_check_report_json: NULL argument"},
        {refuse_check_fault_sweep, "ces_check_fault_sweep: NULL argument"},
        {refuse_check_sweep_text, "ces_check_sweep_text: NULL argument"},
        {refuse_gen_graph, "ces_gen_graph: NULL argument"},
        {refuse_gen_source, "ces_gen_source: NULL argument"},
        {refuse_promela_emit, "ces_promela_emit: NULL argument"},
        {refuse_sim_prepare, "the sim backend's prepare: NULL argument"},
        {refuse_model_parse, "ces_model_parse: NULL argument"},
        {refuse_model_load, "ces_model_load: NULL argument"},
        {refuse_model_print, "ces_model_print: NULL argument"},
        {refuse_model_supports, "ces_model_supports: NULL argument"},
        {refuse_model_predict, "ces_model_predict: NULL argument"},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        ces_ctx_error(ctx, CES_ERR_IO, "an earlier error");
        assert_int_equal(rows[i].call(ctx), CES_ERR_INVALID);
        if (strcmp(ces_ctx_last_error(ctx), rows[i].error) != 0)
            fail_msg("row %zu: '%s', expected '%s'", i, ces_ctx_last_error(ctx), rows[i].error);
        /* without a context the same call is refused alike, with nowhere to say why */
        assert_int_equal(rows[i].call(NULL), CES_ERR_INVALID);
    }
    /* every backend's prepare, given no place for its state (cuda's stored
     * through it) */
    for (const struct ces_backend_ops *const *b = ces_backends(); *b != NULL; b++) {
        ces_ctx_error(ctx, CES_ERR_IO, "an earlier error");
        assert_true((*b)->prepare(ctx, NULL, NULL, NULL) < 0);
        assert_string_not_equal(ces_ctx_last_error(ctx), "an earlier error");
    }
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vec_reserve_overflow),
        cmocka_unit_test(test_error_wraps_last_error),
        cmocka_unit_test(test_refusal_says_why),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
