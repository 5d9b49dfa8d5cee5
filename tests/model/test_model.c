/*
 * tests/model/test_model.c - the built-in machine kinds and what a machine
 * can run (model/model.c).
 */
#include "ces_test.h"
#include "../../model/internal.h" /* ces_model_require_file */

#include <string.h>

static void test_h200_table(void **state)
{
    const struct ces_model *m = ces_model_find("h200");

    (void)state;
    assert_non_null(m);
    assert_string_equal(m->kind, "h200");
    assert_int_equal(m->max_memops_per_batch, 255);
    assert_int_equal(m->flag_widths, CES_MODEL_W32 | CES_MODEL_W64);
    assert_int_equal(m->can_flush_remote_writes, 0);
    assert_int_equal(m->has_64bit_memops, 1);
    assert_int_equal(m->has_wait_nor, 1);
    assert_int_equal(m->copy_engines, 3);
    assert_int_equal(m->batch_engines, 1);
    assert_int_equal(m->max_ranks, 8);
    assert_true(m->peer_copy_gbps == 394.0);
    assert_true(m->link_gbps == 394.0); /* as far as two GPUs can tell */
    assert_true(m->local_copy_gbps == 2036.0);
    assert_true(m->signal_hop_us == 0.9);
    assert_true(m->signal_push_us == 4.2);
    assert_true(m->memop_batch_us == 2.4);
}

static void test_kind_listing(void **state)
{
    (void)state;
    assert_string_equal(ces_model_kind_name(0), "h200");
    assert_null(ces_model_kind_name(1));
    assert_null(ces_model_find("h100x"));
    assert_null(ces_model_find(NULL));
}

/* Three replays of a u32 write on r0.s1, then a u64 write on r0.s0, a u32
 * write and a flush on r0.s1: the flush is r0.s1#4, as the checker numbers
 * it (every earlier replay counted). */
static const char supports_text[] =
    "cesync 1\n"
    "ranks 2\n"
    "streams 2\n"
    "signal f u32 1\n"
    "signal w u64 1\n"
    "phase eager x3\n"
    "r0 s1 : write f[0]@1 = $i\n"
    "r1 s1 : wait f[0] >= $i\n"
    "phase eager x1\n"
    "r0 : write w[0]@1 = 4\n"
    "r0 s1 : write f[0]@1 = 5\n"
    "r0 s1 : flush\n";

/* 2^64-1 written into a slot a `>=` wait reads: the machine's 64-bit waits
 * compare cyclically, so the wait >= 1 the checker passes would block
 * there; the model refuses it as the CUDA backend does (2^63-1 it takes),
 * and so does the prediction, under its own name. */
static void test_supports_u64_cyclic(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_model m = *ces_model_find("h200");
    struct ces_graph *g = ces_test_u64_pair(ctx, UINT64_MAX, CES_CMP_GEQ, 1);

    (void)state;
    assert_int_equal(ces_model_supports(ctx, &m, g), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r0.s0#0: write f[0]@1 = 18446744073709551615: a u64 value above "
                        "2^63-1 in a signal that a >= wait reads: CUDA compares 64-bit values "
                        "cyclically, (int64_t)(cur - v) >= 0, where the check compares them "
                        "as plain numbers, so the wait could pass or block otherwise than "
                        "checked; keep u64 values below 2^63");
    /* the prediction names itself, as its other refusals do */
    {
        struct ces_predict p;

        assert_int_equal(ces_model_predict(ctx, &m, g, &p), CES_ERR_UNSUPPORTED);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "predict: r0.s0#0: write f[0]@1 = 18446744073709551615: a u64 value "
                            "above 2^63-1 in a signal that a >= wait reads: CUDA compares 64-bit "
                            "values cyclically, (int64_t)(cur - v) >= 0, where the check "
                            "compares them as plain numbers, so the wait could pass or block "
                            "otherwise than checked; keep u64 values below 2^63");
    }
    ces_graph_destroy(g);
    g = ces_test_u64_pair(ctx, INT64_MAX, CES_CMP_GEQ, 1);
    assert_int_equal(ces_model_supports(ctx, &m, g), CES_OK);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_supports(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *prog = NULL;
    struct ces_graph *g = NULL;
    struct ces_model m = *ces_model_find("h200");

    (void)state;
    assert_int_equal(ces_prog_parse(ctx, supports_text, strlen(supports_text), "s", &prog),
                     CES_OK);
    assert_int_equal(ces_prog_expand(ctx, prog, &g), CES_OK);
    assert_int_equal(ces_model_supports(ctx, &m, g), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx), "r0.s1#4 (line 12:9): flush is not supported "
                                                 "on h200 (can_flush_remote_writes = 0)");
    m.can_flush_remote_writes = 1;
    assert_int_equal(ces_model_supports(ctx, &m, g), CES_OK);
    m.has_64bit_memops = 0;
    assert_int_equal(ces_model_supports(ctx, &m, g), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r0.s0#0 (line 10:6): w is u64, which h200 has no memops for");
    m.has_64bit_memops = 1;
    m.flag_widths = CES_MODEL_W64;
    assert_int_equal(ces_model_supports(ctx, &m, g), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r0.s1#0 (line 7:9): f is u32, which h200 has no memops for");
    m.flag_widths = CES_MODEL_W32 | CES_MODEL_W64;
    m.max_ranks = 1;
    assert_int_equal(ces_model_supports(ctx, &m, g), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "2 ranks (line 2:7), the h200 model has at most 1 GPU");
    m.max_ranks = 2;
    assert_int_equal(ces_model_supports(ctx, &m, g), CES_OK);
    /* a machine whose memop calls hold no wait and the watchdog's writes
     * runs nothing (predict refused it, supports said every op ran) */
    m.max_memops_per_batch = 2;
    assert_int_equal(ces_model_supports(ctx, &m, g), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "the model's max_memops_per_batch is 2: the CUDA backend needs 3 or more "
                        "(a memop call that waits carries the watchdog's writes besides the "
                        "wait: eagerly a progress write, captured an enter and an exit write)");
    m.max_memops_per_batch = 3;
    assert_int_equal(ces_model_supports(ctx, &m, g), CES_OK);
    memset(m.kind, 'k', sizeof(m.kind));
    assert_int_equal(ces_model_supports(ctx, &m, g), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "the model's kind is not a NUL-terminated "
                                                 "string of at most 31 bytes");
    strcpy(m.kind, "h200");
    assert_int_equal(ces_model_supports(NULL, &m, g), CES_ERR_INVALID);
    assert_int_equal(ces_model_supports(ctx, NULL, g), CES_ERR_INVALID);
    assert_int_equal(ces_model_supports(ctx, &m, NULL), CES_ERR_INVALID);
    /* a model loaded from a file is named as such where it lacks something:
     * its values, not the kind's, may be what it lacks (it said "the h200
     * model has at most 1 GPU" of a file's max_ranks = 1) */
    m = *ces_model_find("h200");
    m.can_flush_remote_writes = 1;
    m.max_ranks = 1;
    assert_int_equal(ces_model_require_file(ctx, &m, g, "predict", "mr.model"),
                     CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "predict: 2 ranks (line 2:7), the model of mr.model (kind h200) has at "
                        "most 1 GPU");
    /* a long path keeps its last 128 bytes, marked cut */
    {
        char path[300], want[400];

        memset(path, 'd', 200);
        strcpy(path + 200, "/x.model");
        assert_int_equal(ces_model_require_file(ctx, &m, g, NULL, path), CES_ERR_UNSUPPORTED);
        snprintf(want, sizeof(want),
                 "2 ranks (line 2:7), the model of ...%s (kind h200) has at most 1 GPU",
                 path + strlen(path) - 128);
        assert_string_equal(ces_ctx_last_error(ctx), want);
    }
    /* no file: the kind's wording */
    assert_int_equal(ces_model_require_file(ctx, &m, g, NULL, NULL), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "2 ranks (line 2:7), the h200 model has at most 1 GPU");
    m.max_ranks = 2;
    m.flag_widths = CES_MODEL_W32;
    m.has_64bit_memops = 0;
    assert_int_equal(ces_model_require_file(ctx, &m, g, NULL, "w.model"), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx), "r0.s0#0 (line 10:6): w is u64, which the model "
                                                 "of w.model (kind h200) has no memops for");
    m.flag_widths = CES_MODEL_W32 | CES_MODEL_W64;
    m.has_64bit_memops = 1;
    m.can_flush_remote_writes = 0;
    assert_int_equal(ces_model_require_file(ctx, &m, g, NULL, "f.model"), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r0.s1#4 (line 12:9): flush is not supported on the model of f.model "
                        "(kind h200) (can_flush_remote_writes = 0)");
    m.can_flush_remote_writes = 1;
    assert_int_equal(ces_model_require_file(ctx, &m, g, NULL, "f.model"), CES_OK);
    ces_graph_destroy(g);
    ces_prog_destroy(prog);
    ces_test_ctx_end(ctx, &st);
}

/* A position past 2^32 (a graph phase of 3e9 replays of two ops before the
 * flush) is named in full: the flush is r0.s0#6000000000, as dot labels it
 * (it was cut to 32 bits, r0.s0#1705032704). */
static void test_supports_far_position(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    uint32_t f;
    struct ces_op w = {.kind = CES_OP_WRITE, .value = 1}, fence = {.kind = CES_OP_FENCE};
    struct ces_op flush = {.kind = CES_OP_FLUSH};

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U32, 1, &f), CES_OK);
    w.slot.sig = f;
    w.slot.rank = 1;
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 3000000000u), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &fence), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &flush), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_model_supports(ctx, ces_model_find("h200"), g), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx), "r0.s0#6000000000: flush is not supported on "
                                                 "h200 (can_flush_remote_writes = 0)");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h200_table),
        cmocka_unit_test(test_kind_listing),
        cmocka_unit_test(test_supports),
        cmocka_unit_test(test_supports_u64_cyclic),
        cmocka_unit_test(test_supports_far_position),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
