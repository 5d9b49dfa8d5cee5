/*
 * tests/core/test_ctx.c - core/ctx.c: the last error (also the one every
 * entry point that takes a context sets when it refuses an argument), and
 * the small containers: the growable array's size arithmetic.
 */
#include "ces_test.h"
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
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

/* A message longer than the buffer keeps its first 2048 bytes, "..." and
 * its last bytes, each part whole characters of UTF-8: of "x", 5000 "é"
 * and "!" (10002 bytes) the head is "x" and 1023 "é" (2047 bytes, as byte
 * 2048 is the middle of an "é"), the end 3070 "é" and "!" (6141); of bytes
 * that are no UTF-8 at most 3 fewer at each cut. */
static void test_error_keeps_its_end(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *text = malloc(10003), *want = malloc(CES_ERRMSG_MAX);
    const char *e;
    size_t k;

    (void)state;
    assert_non_null(text);
    assert_non_null(want);
    k = ces_test_repeat(text, 10003, 0, "x", 1);
    k = ces_test_repeat(text, 10003, k, "\xc3\xa9", 5000);
    ces_test_repeat(text, 10003, k, "!", 1);
    k = ces_test_repeat(want, CES_ERRMSG_MAX, 0, "x", 1);
    k = ces_test_repeat(want, CES_ERRMSG_MAX, k, "\xc3\xa9", 1023);
    k = ces_test_repeat(want, CES_ERRMSG_MAX, k, "...", 1);
    k = ces_test_repeat(want, CES_ERRMSG_MAX, k, "\xc3\xa9", 3070);
    ces_test_repeat(want, CES_ERRMSG_MAX, k, "!", 1);
    assert_int_equal(ces_ctx_error(ctx, CES_ERR_IO, "%s", text), CES_ERR_IO);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    assert_int_equal(strlen(want), 2047 + 3 + 6141);
    /* bytes that are no UTF-8, "x", 10000 continuation bytes and
     * "/x.ces: cannot open" (10020): each cut moves over 3 of them at most
     * (it moved over all, down to "..." and the 19 bytes of the end) */
    text[0] = 'x';
    memset(text + 1, 0x80, 10000);
    text[10001] = '\0';
    assert_int_equal(ces_ctx_error(ctx, CES_ERR_IO, "%s/x.ces: cannot open", text), CES_ERR_IO);
    e = ces_ctx_last_error(ctx);
    assert_int_equal(strlen(e), 2045 + 3 + 6140);
    assert_int_equal(e[0], 'x');
    assert_int_equal(strspn(e + 1, "\x80"), 2044);
    assert_memory_equal(e + 2045, "...", 3);
    assert_int_equal(strspn(e + 2048, "\x80"), 6121);
    assert_string_equal(e + 2048 + 6121, "/x.ces: cannot open");
    free(text);
    free(want);
    ces_test_ctx_end(ctx, &st);
}

/* The counting allocator's realloc, which refuses a request over 1 GiB
 * without passing it on (a sanitizer aborts on such a size) and keeps its
 * size in huge_size. */
static void *(*counted_realloc)(void *ud, void *ptr, size_t size);
static size_t huge_size;

static void *refuse_huge(void *ud, void *ptr, size_t size)
{
    if (size > ((size_t)1 << 30)) {
        huge_size = size;
        return NULL;
    }
    return counted_realloc(ud, ptr, size);
}

/* A growable array of 1-byte items: a request whose count wraps size_t
 * (len + extra past SIZE_MAX) is CES_ERR_NOMEM, not room to spare; one
 * whose doubled capacity would wrap asks for len + extra (which the
 * allocator refuses) instead of doubling for ever; ces_vec_free leaves an
 * empty vector that takes items again. */
static void test_vec_reserve_bytes(void **state)
{
    struct ces_test_alloc st = {0, 0, 0, 0};
    struct ces_alloc h = ces_test_hooks(&st);
    struct ces_ctx *ctx = NULL;
    struct ces_vec v = {NULL, 0, 0};
    char c = 'a';

    (void)state;
    counted_realloc = h.realloc;
    h.realloc = refuse_huge;
    huge_size = 0;
    assert_int_equal(ces_ctx_create(&h, &ctx), CES_OK);
    assert_int_equal(ces_vec_push(ctx, &v, 1, &c), CES_OK);
    assert_int_equal(ces_vec_push(ctx, &v, 1, &c), CES_OK);
    assert_int_equal(v.cap, 2);
    assert_int_equal(ces_vec_reserve(ctx, &v, 1, SIZE_MAX - 1), CES_ERR_NOMEM);
    assert_int_equal(huge_size, 0);
    assert_int_equal(ces_vec_reserve(ctx, &v, 1, SIZE_MAX / 2 + 1), CES_ERR_NOMEM);
    assert_true(huge_size == SIZE_MAX / 2 + 3);
    assert_int_equal(v.len, 2);
    assert_int_equal(v.cap, 2);
    ces_vec_free(ctx, &v);
    assert_null(v.data);
    assert_int_equal(v.len, 0);
    assert_int_equal(v.cap, 0);
    assert_int_equal(ces_vec_push(ctx, &v, 1, &c), CES_OK);
    assert_int_equal(v.len, 1);
    assert_int_equal(v.cap, 1);
    ces_vec_free(ctx, &v);
    ces_test_ctx_end(ctx, &st);
}

/* The index of names finds a name only whole: "bufd4T3T3" hashes as "buf"
 * does (FNV-1a), so a lookup of "buf" that compared the first three bytes
 * and the hash found it; a lookup in an empty index finds nothing;
 * ces_names_free leaves an empty index that takes names again. */
static void test_names_whole(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_names ix = {NULL, 0, 0};

    (void)state;
    assert_int_equal(ces_names_find(&ix, "buf", 3), -1);
    assert_int_equal(ces_names_reserve(ctx, &ix), CES_OK);
    ces_names_add(&ix, "bufd4T3T3", 5);
    assert_int_equal(ces_names_find(&ix, "bufd4T3T3", 9), 5);
    assert_int_equal(ces_names_find(&ix, "buf", 3), -1);
    assert_int_equal(ces_names_find(&ix, "bufd4T3T3x", 9), 5);
    ces_names_free(ctx, &ix);
    assert_null(ix.slots);
    assert_int_equal(ix.len, 0);
    assert_int_equal(ix.cap, 0);
    assert_int_equal(ces_names_find(&ix, "buf", 3), -1);
    assert_int_equal(ces_names_reserve(ctx, &ix), CES_OK);
    ces_names_add(&ix, "buf", 1);
    assert_int_equal(ces_names_find(&ix, "buf", 3), 1);
    assert_int_equal(ix.len, 1);
    ces_names_free(ctx, &ix);
    ces_test_ctx_end(ctx, &st);
}

/* Hooks that record what the library asks of them. */
struct rec_alloc {
    size_t last_size;
    long frees;
};

static void *rec_malloc(void *ud, size_t size)
{
    ((struct rec_alloc *)ud)->last_size = size;
    return malloc(size > 0 ? size : 1);
}

static void *rec_realloc(void *ud, void *ptr, size_t size)
{
    ((struct rec_alloc *)ud)->last_size = size;
    return realloc(ptr, size > 0 ? size : 1);
}

static void rec_free(void *ud, void *ptr)
{
    ((struct rec_alloc *)ud)->frees++;
    free(ptr);
}

/* A context: hooks lacking any of the three are refused, as is nowhere to
 * put it (*out NULL on a refusal); a new one's last error is ""; a NULL
 * one's last error is "" and destroying it does nothing.  The hooks are
 * never asked for 0 bytes (ces_malloc and ces_realloc ask for 1) nor to
 * free NULL. */
static void test_ctx_hooks(void **state)
{
    struct rec_alloc rec = {0, 0};
    struct ces_alloc h = {rec_malloc, rec_realloc, rec_free, &rec}, bad;
    struct ces_ctx *ctx = (struct ces_ctx *)&rec;
    void *p;

    (void)state;
    for (int k = 0; k < 3; k++) {
        bad = h;
        if (k == 0)
            bad.malloc = NULL;
        else if (k == 1)
            bad.realloc = NULL;
        else
            bad.free = NULL;
        ctx = (struct ces_ctx *)&rec;
        assert_int_equal(ces_ctx_create(&bad, &ctx), CES_ERR_INVALID);
        assert_null(ctx);
    }
    assert_int_equal(ces_ctx_create(&h, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_ctx_create(NULL, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(NULL), "");
    ces_ctx_destroy(NULL);
    assert_int_equal(ces_ctx_create(&h, &ctx), CES_OK);
    assert_string_equal(ces_ctx_last_error(ctx), "");
    p = ces_malloc(ctx, 0);
    assert_non_null(p);
    assert_int_equal(rec.last_size, 1);
    p = ces_realloc(ctx, p, 0);
    assert_non_null(p);
    assert_int_equal(rec.last_size, 1);
    ces_free(ctx, p);
    assert_int_equal(rec.frees, 1);
    ces_free(ctx, NULL);
    assert_int_equal(rec.frees, 1);
    ces_ctx_destroy(ctx);
    assert_int_equal(rec.frees, 2);
}

/* Names and tables: an identifier starts with a letter or '_' and goes on
 * with letters, digits and '_'; a status, op kind, collective or protocol
 * out of its table has no name ("unknown status" for a status), and the
 * names map back. */
static void test_names_and_tables(void **state)
{
    (void)state;
    assert_true(ces_is_ident("_"));
    assert_true(ces_is_ident("_a0"));
    assert_true(ces_is_ident("Z9_z"));
    assert_false(ces_is_ident("0a"));
    assert_false(ces_is_ident(""));
    assert_false(ces_is_ident(NULL));
    assert_false(ces_is_ident("a-b"));
    assert_string_equal(ces_status_str(CES_OK), "ok");
    assert_string_equal(ces_status_str(12345), "unknown status");
    assert_null(ces_op_kind_name(-1));
    assert_null(ces_op_kind_name(CES_OP_COUNT));
    assert_null(ces_op_kind_synopsis(-1));
    assert_null(ces_op_kind_synopsis(CES_OP_COUNT));
    assert_non_null(ces_op_kind_synopsis(CES_OP_COUNT - 1));
    assert_null(ces_coll_name(-1));
    assert_null(ces_coll_name(CES_COLL_COUNT));
    assert_null(ces_proto_name(-1));
    assert_null(ces_proto_name(CES_PROTO_COUNT));
    for (int c = 0; c < CES_COLL_COUNT; c++)
        assert_int_equal(ces_coll_from_name(ces_coll_name(c)), c);
    for (int pr = 0; pr < CES_PROTO_COUNT; pr++)
        assert_int_equal(ces_proto_from_name(ces_proto_name(pr)), pr);
    assert_string_equal(ces_proto_name(CES_PROTO_PULL), "pull");
    assert_int_equal(ces_coll_from_name(NULL), -1);
    assert_int_equal(ces_proto_from_name(NULL), -1);
    assert_int_equal(ces_coll_from_name("all"), -1);
    assert_int_equal(ces_proto_from_name("credit "), -1);
}

/* The string builder: nothing written is the empty text, not NULL; a
 * builder whose allocation failed hands out nothing and says so. */
static void test_sb(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_sb sb;
    char *text = (char *)1;
    size_t len = 7;

    (void)state;
    ces_sb_init(&sb, ctx);
    assert_int_equal(ces_sb_finish(&sb, &text, &len), CES_OK);
    assert_non_null(text);
    assert_string_equal(text, "");
    assert_int_equal(len, 0);
    ces_free(ctx, text);
    ces_sb_init(&sb, ctx);
    st.fail_at = st.calls + 1;
    ces_sb_printf(&sb, "%d", 42);
    text = NULL;
    assert_int_equal(ces_sb_finish(&sb, &text, &len), CES_ERR_NOMEM);
    assert_null(text);
    assert_string_equal(ces_ctx_last_error(ctx), "out of memory while building text");
    ces_test_ctx_end(ctx, &st);
}

/* ces_spell, as messages say text given: UTF-8 and tabs as they are;
 * each byte of a control, of a bidirectional formatting character and of
 * no valid UTF-8 sequence (they passed raw: a lone 0x9b is CSI on a
 * terminal of 8-bit characters) as \xNN; a backslash as \\ (a name's own
 * "\x1b" read as an ESC's).  A sequence cut short by the string's end is
 * read no further than the NUL.  ces_sb_spelled appends a whole string so,
 * as the CUDA backend says the CES_DUMP_SCHEDULE path. */
static void test_spell(void **state)
{
    static const char *const said[][2] = {
        {"a", "a"}, {"\t", "\t"}, {"\\", "\\\\"}, {"\033", "\\x1b"}, {"\n", "\\x0a"},
        {"\177", "\\x7f"}, {"\302\233", "\\xc2\\x9b"}, {"\302\240", "\302\240"},
        {"\303\251", "\303\251"}, {"\330\234", "\\xd8\\x9c"},
        {"\342\200\256", "\\xe2\\x80\\xae"}, {"\342\201\251", "\\xe2\\x81\\xa9"},
        {"\342\200\257", "\342\200\257"}, {"\360\237\230\200", "\360\237\230\200"},
        {"\364\217\277\277", "\364\217\277\277"}, {"\233", "\\x9b"}, {"\200", "\\x80"},
        {"\377", "\\xff"}, {"\300", "\\xc0"}, {"\301", "\\xc1"}, {"\365", "\\xf5"},
        {"\340", "\\xe0"}, {"\355", "\\xed"}, {"\364", "\\xf4"},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_sb sb;
    char out[CES_SPELL_MAX], *text = NULL;
    size_t used;

    (void)state;
    for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
        size_t n = ces_spell(said[i][0], out, &used);

        assert_int_equal(used, strlen(said[i][0]));
        assert_int_equal(n, strlen(said[i][1]));
        assert_memory_equal(out, said[i][1], n);
    }
    /* whole strings: overlong forms (0xc0 0xaf, 0xe0 0x80 0xaf), a
     * surrogate (0xed 0xa0 0x80), past U+10FFFF (0xf4 0x90 0x80 0x80), a
     * continuation alone and sequences cut short, one byte at a time */
    ces_sb_init(&sb, ctx);
    ces_sb_spelled(&sb, "a\\x1b\033\300\257\340\200\257\355\240\200\364\220\200\200\277"
                        "\342\200x\360\237\230\303");
    assert_int_equal(ces_sb_finish(&sb, &text, NULL), CES_OK);
    assert_string_equal(text, "a\\\\x1b\\x1b\\xc0\\xaf\\xe0\\x80\\xaf\\xed\\xa0\\x80\\xf4"
                              "\\x90\\x80\\x80\\xbf\\xe2\\x80x\\xf0\\x9f\\x98\\xc3");
    ces_free(ctx, text);
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
    struct ces_check_sweep_rest rest;
    size_t n = 0;

    return ces_check_fault_sweep(ctx, NULL, NULL, &rows, &n, &rest);
}

static int refuse_check_sweep_text(struct ces_ctx *ctx)
{
    char *text = NULL;

    return ces_check_sweep_text(ctx, NULL, 1, NULL, &text, NULL);
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

/* A NULL context is refused with CES_ERR_INVALID by every call that takes
 * one, its other arguments all valid (cesync.h: a NULL pointer argument is
 * CES_ERR_INVALID; the context's own NULL leaves nowhere to say it), and
 * nothing is written through them: ces_queue_map_parse read the map into
 * `map` and returned CES_OK without a context, while ces_fault_parse, its
 * sibling, refused one. */
static void test_null_context_refused(void **state)
{
    static const char text[] = "cesync 1\nranks 2\nbuffer b 8\nphase eager x1\n"
                               "r0 : copy b[0:8] -> b[0:8]@1\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_fault f = {99, 99, 99, 99};
    uint32_t map[2] = {7, 7};

    (void)state;
    g = ces_test_text_graph(ctx, text);
    assert_int_equal(ces_queue_map_parse(NULL, "0,1", 1, 2, map), CES_ERR_INVALID);
    assert_int_equal(map[0], 7);
    assert_int_equal(map[1], 7);
    assert_int_equal(ces_fault_parse(NULL, "drop:r0.s0#0", &f), CES_ERR_INVALID);
    assert_int_equal(f.kind, 99);
    /* with a context both read their text */
    assert_int_equal(ces_queue_map_parse(ctx, "0,1", 1, 2, map), CES_OK);
    assert_int_equal(map[1], 1);
    assert_int_equal(ces_fault_parse(ctx, "drop:r0.s0#0", &f), CES_OK);
    assert_int_equal(f.kind, CES_FAULT_DROP);
    {
        struct ces_prog *p = NULL;
        struct ces_graph *g2 = NULL;
        struct ces_check_report *r = NULL;
        char *out = NULL;
        size_t len = 0;
        struct ces_coll_params cp;
        struct ces_model m = *ces_model_find("h200");
        struct ces_predict pr;

        ces_coll_params_init(&cp, CES_COLL_ALLTOALL);
        assert_int_equal(ces_prog_parse(NULL, text, strlen(text), NULL, &p), CES_ERR_INVALID);
        assert_int_equal(ces_graph_create(NULL, 1, 1, &g2), CES_ERR_INVALID);
        assert_int_equal(ces_graph_print(NULL, g, 0, &out, &len), CES_ERR_INVALID);
        assert_int_equal(ces_coll_build(NULL, &cp, &g2), CES_ERR_INVALID);
        assert_int_equal(ces_dot_emit(NULL, g, NULL, &out, &len), CES_ERR_INVALID);
        assert_int_equal(ces_check(NULL, g, NULL, &r), CES_ERR_INVALID);
        assert_int_equal(ces_gen_graph(NULL, 1, NULL, &g2), CES_ERR_INVALID);
        assert_int_equal(ces_promela_emit(NULL, g, NULL, &out, &len), CES_ERR_INVALID);
        assert_int_equal(ces_model_parse(NULL, "", 0, NULL, NULL, &m), CES_ERR_INVALID);
        assert_int_equal(ces_model_predict(NULL, &m, g, &pr), CES_ERR_INVALID);
        assert_null(p);
        assert_null(g2);
        assert_null(r);
        assert_null(out);
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Calls that return nothing do nothing given NULL (the options' inits
 * wrote through it); memory without a context is none; a NULL format is
 * an empty message (vsnprintf read through it). */
static void test_null_does_nothing(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    const char *none = NULL;

    (void)state;
    ces_check_opts_init(NULL);
    ces_gen_opts_init(NULL);
    ces_promela_opts_init(NULL);
    ces_coll_params_init(NULL, CES_COLL_ALLTOALL);
    ces_model_slow_mode(NULL);
    assert_null(ces_malloc(NULL, 8));
    assert_null(ces_realloc(NULL, NULL, 8));
    ces_free(NULL, NULL);
    ces_ctx_error(ctx, CES_ERR_IO, "an earlier error");
    assert_int_equal(ces_ctx_error(ctx, CES_ERR_INVALID, none), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "");
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vec_reserve_overflow),
        cmocka_unit_test(test_error_wraps_last_error),
        cmocka_unit_test(test_error_keeps_its_end),
        cmocka_unit_test(test_refusal_says_why),
        cmocka_unit_test(test_null_does_nothing),
        cmocka_unit_test(test_null_context_refused),
        cmocka_unit_test(test_vec_reserve_bytes),
        cmocka_unit_test(test_names_whole),
        cmocka_unit_test(test_ctx_hooks),
        cmocka_unit_test(test_names_and_tables),
        cmocka_unit_test(test_sb),
        cmocka_unit_test(test_spell),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
