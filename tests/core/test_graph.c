/*
 * tests/core/test_graph.c - the concrete op graph: construction, range
 * checks, validation, printing, allocation failures.
 */
#include "ces_test.h"
#include "internal.h"

#include <inttypes.h>
#include <string.h>

static struct ces_graph *tiny(struct ces_ctx *ctx)
{
    struct ces_graph *g = NULL;
    uint32_t send, recv, ready;

    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "send", 64, &send), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "recv", 64, &recv), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "ready", CES_U32, 2, &ready), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    for (uint32_t r = 0; r < 2; r++) {
        struct ces_op w = {.kind = CES_OP_WRITE, .slot = {ready, 1 - r, r}, .value = 1};
        struct ces_op wt = {.kind = CES_OP_WAIT, .cmp = CES_CMP_EQ, .slot = {ready, r, 1 - r},
                            .value = 1};
        struct ces_op c = {.kind = CES_OP_COPY, .a = {send, r, 0, 32}, .b = {recv, 1 - r, 0, 32}};

        assert_int_equal(ces_graph_add_op(g, r, &w), CES_OK);
        assert_int_equal(ces_graph_add_op(g, r, &wt), CES_OK);
        assert_int_equal(ces_graph_add_op(g, r, &c), CES_OK);
    }
    return g;
}

static void test_build_and_print(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    char *text = NULL;

    (void)state;
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_graph_print(ctx, g, 0, &text, NULL), CES_OK);
    assert_string_equal(text, "cesync 1\nranks 2\nstreams 1\nbuffer send 64\nbuffer recv 64\n"
                              "signal ready u32 2\nphase eager x1\n"
                              "r0 : write ready[0]@1 = 1\nr0 : wait ready[1] == 1\n"
                              "r0 : copy send[0:32] -> recv[0:32]@1\n"
                              "r1 : write ready[1]@0 = 1\nr1 : wait ready[0] == 1\n"
                              "r1 : copy send[0:32] -> recv[0:32]@0\n");
    ces_free(ctx, text);
    assert_int_equal(ces_graph_iterations(g), 1);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_range_errors(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    struct ces_op bad = {.kind = CES_OP_COPY, .a = {0, 0, 0, 65}, .b = {1, 1, 0, 65}};
    struct ces_op slot = {.kind = CES_OP_WRITE, .slot = {0, 0, 2}, .value = 1};
    struct ces_op rank = {.kind = CES_OP_WRITE, .slot = {0, 2, 0}, .value = 1};
    struct ces_op mwait = {.kind = CES_OP_WAIT, .slot = {0, CES_RANK_ALL, 0}, .value = 1};

    (void)state;
    assert_int_equal(ces_graph_add_op(g, 0, &bad), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r0.s0: source region send[0:65] is out of range: expected 0 <= lo <= hi "
                        "<= 64");
    assert_int_equal(ces_graph_add_op(g, 0, &slot), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r0.s0: slot ready[2] out of range: ready has 2 slots");
    assert_int_equal(ces_graph_add_op(g, 0, &rank), CES_ERR_INVALID);
    assert_int_equal(ces_graph_add_op(g, 0, &mwait), CES_ERR_INVALID);
    assert_int_equal(ces_graph_add_op(g, 2, &slot), CES_ERR_INVALID);
    assert_int_equal(ces_graph_add_buffer(g, "send", 8, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_graph_add_buffer(g, "big", CES_MAX_BYTES + 1, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_graph_add_signal(g, "s", 16, 1, NULL), CES_ERR_INVALID);
    /* a region backwards (its size would wrap around), a compare that is
     * neither >= nor ==, one slot more than a signal may have */
    {
        struct ces_op back = {.kind = CES_OP_PRODUCE, .a = {0, 0, 40, 32}};
        struct ces_op cmp = {.kind = CES_OP_WAIT, .cmp = 2, .slot = {0, 0, 1}, .value = 1};

        assert_int_equal(ces_graph_add_op(g, 0, &back), CES_ERR_INVALID);
        assert_string_equal(ces_ctx_last_error(ctx), "r0.s0: produced region send[40:32] is out "
                                                     "of range: expected 0 <= lo <= hi <= 64");
        assert_int_equal(ces_graph_add_op(g, 0, &cmp), CES_ERR_INVALID);
        assert_string_equal(ces_ctx_last_error(ctx), "r0.s0: wait compare must be >= or ==");
        assert_int_equal(ces_graph_add_signal(g, "s", CES_U32, (1u << 24) + 1, NULL),
                         CES_ERR_INVALID);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "signal 's': slots must be 1..16777216, not 16777217");
    }
    /* an eager block runs once: its replays are blocks of their own */
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 2), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "a block repeats 1 time (eager) or K >= 1 times (graph), not 2");
    assert_int_equal(ces_graph_nblocks(g), 1);
    ces_graph_destroy(g);
    /* one past the largest graph */
    g = (struct ces_graph *)1;
    assert_int_equal(ces_graph_create(ctx, CES_MAX_RANKS + 1, 1, &g), CES_ERR_INVALID);
    assert_null(g);
    assert_string_equal(ces_ctx_last_error(ctx), "ranks must be 1..1024, not 1025");
    assert_int_equal(ces_graph_create(ctx, 2, CES_MAX_STREAMS + 1, &g), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "streams must be 1..64, not 65");
    ces_test_ctx_end(ctx, &st);
}

static void test_u32_wraps(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    struct ces_op w = {.kind = CES_OP_WRITE, .slot = {0, 1, 0}, .value = (UINT64_C(1) << 32) + 5};
    uint32_t n;

    (void)state;
    assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
    assert_int_equal(ces_graph_ops(g, 0, 0, &n)[n - 1].value, 5);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_validate_batches(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    struct ces_op b = {.kind = CES_OP_BATCH};
    struct ces_op c1 = {.kind = CES_OP_COPY, .a = {0, 0, 0, 16}, .b = {1, 1, 0, 16}};
    struct ces_op c2 = {.kind = CES_OP_COPY, .a = {0, 0, 16, 32}, .b = {1, 1, 8, 24}};
    struct ces_op e = {.kind = CES_OP_END};

    (void)state;
    assert_int_equal(ces_graph_add_op(g, 0, &b), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &c1), CES_OK);
    assert_int_equal(ces_graph_validate(g, "x.ces"), CES_ERR_SEMANTIC);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "x.ces: r0.s0#3: 'batch' without 'end': a batch must end in the phase it "
                        "starts");
    assert_int_equal(ces_graph_add_op(g, 0, &c2), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &e), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_ERR_SEMANTIC);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r0.s0#5: copies in one batch overlap: both write recv@1 bytes [0:16) and "
                        "[8:24)");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A copy that reads what another copy of its batch writes, either way round:
 * the message names the shared region. */
static void test_validate_batch_read_write(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_op b = {.kind = CES_OP_BATCH};
    struct ces_op c1 = {.kind = CES_OP_COPY, .a = {0, 0, 0, 16}, .b = {1, 1, 0, 16}};
    /* reads recv@1 [8:24), which c1 writes */
    struct ces_op rd = {.kind = CES_OP_COPY, .a = {1, 1, 8, 24}, .b = {1, 0, 0, 16}};
    /* writes send@0 [8:24), which c1 reads */
    struct ces_op wr = {.kind = CES_OP_COPY, .a = {1, 0, 32, 48}, .b = {0, 0, 8, 24}};
    struct ces_op e = {.kind = CES_OP_END};
    const struct ces_op *second[2] = {&rd, &wr};
    const char *want[2] = {
        "r0.s0#5: copies in one batch overlap: one reads bytes of recv@1 that another writes",
        "r0.s0#5: copies in one batch overlap: one reads bytes of send@0 that another writes"};

    (void)state;
    for (int t = 0; t < 2; t++) {
        struct ces_graph *g = tiny(ctx);

        assert_int_equal(ces_graph_add_op(g, 0, &b), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, &c1), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, second[t]), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, &e), CES_OK);
        assert_int_equal(ces_graph_validate(g, NULL), CES_ERR_SEMANTIC);
        assert_string_equal(ces_ctx_last_error(ctx), want[t]);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* A copy of no bytes touches none: in a batch it overlaps no other copy,
 * even with its bounds inside another's region (it was refused as reading
 * what the other writes, where the checker sees no access to race with),
 * and it hides no clash of the copies after it. */
static void test_validate_batch_empty_copy(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_op b = {.kind = CES_OP_BATCH};
    struct ces_op c1 = {.kind = CES_OP_COPY, .a = {0, 0, 0, 16}, .b = {1, 1, 0, 16}};
    /* reads recv@1 [8:8), inside what c1 writes; writes send@0 [4:4), inside what it reads */
    struct ces_op empty = {.kind = CES_OP_COPY, .a = {1, 1, 8, 8}, .b = {0, 0, 4, 4}};
    /* writes recv@1 [8:24), which c1 writes */
    struct ces_op clash = {.kind = CES_OP_COPY, .a = {0, 1, 0, 16}, .b = {1, 1, 8, 24}};
    struct ces_op e = {.kind = CES_OP_END};
    const struct ces_op *ok[3][2] = {{&c1, &empty}, {&empty, &c1}, {&empty, &empty}};
    struct ces_graph *g;

    (void)state;
    /* an empty region shares no byte, whichever side of the test it is on */
    assert_false(ces_region_overlap(&c1.b, &empty.a));
    assert_false(ces_region_overlap(&empty.a, &c1.b));
    assert_true(ces_region_overlap(&c1.b, &clash.b));
    for (int t = 0; t < 3; t++) {
        g = tiny(ctx);
        assert_int_equal(ces_graph_add_op(g, 0, &b), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, ok[t][0]), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, ok[t][1]), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, &e), CES_OK);
        assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
        ces_graph_destroy(g);
    }
    g = tiny(ctx);
    assert_int_equal(ces_graph_add_op(g, 0, &b), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &empty), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &c1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &clash), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &e), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_ERR_SEMANTIC);
    assert_string_equal(ces_ctx_last_error(ctx), "r0.s0#6: copies in one batch overlap: both "
                                                 "write recv@1 bytes [0:16) and [8:24)");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A graph of one batch on r0.s0 of n copies, each reading send@0 [0:1) (reads
 * may overlap) and writing its own byte of recv@1; copy `clash` (1-based,
 * 0 for none) writes byte 3 instead, which copy 4 writes. */
static struct ces_graph *long_batch(struct ces_ctx *ctx, uint32_t n, uint32_t clash)
{
    struct ces_graph *g = NULL;
    struct ces_op b = {.kind = CES_OP_BATCH};
    struct ces_op e = {.kind = CES_OP_END};

    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "send", 1, NULL), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "recv", n > 0 ? n : 1, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &b), CES_OK);
    for (uint32_t k = 1; k <= n; k++) {
        uint64_t at = k == clash ? 3 : k - 1;
        struct ces_op c = {.kind = CES_OP_COPY, .a = {0, 0, 0, 1}, .b = {1, 1, at, at + 1}};

        assert_int_equal(ces_graph_add_op(g, 0, &c), CES_OK);
    }
    assert_int_equal(ces_graph_add_op(g, 0, &e), CES_OK);
    return g;
}

/* A batch of 2^19 copies: comparing every pair of them took minutes (the
 * test's timeout fails it), sorting their regions takes a fraction of a
 * second.  A clash late in a long batch is still named as the first copy
 * that meets an earlier one, with the earliest copy it meets. */
static void test_validate_long_batch(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = long_batch(ctx, 1u << 19, 0);

    (void)state;
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_graph_destroy(g);
    g = long_batch(ctx, 0, 0); /* 'batch' right before 'end': nothing to sort */
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_graph_destroy(g);
    g = long_batch(ctx, 1u << 16, 60000);
    assert_int_equal(ces_graph_validate(g, NULL), CES_ERR_SEMANTIC);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r0.s0#60000: copies in one batch overlap: both write recv@1 bytes [3:4) "
                        "and [3:4)");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_overlapping_copy(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    struct ces_op c = {.kind = CES_OP_COPY, .a = {0, 1, 0, 16}, .b = {0, 1, 8, 24}};
    struct ces_op far = {.kind = CES_OP_COPY, .a = {0, 1, 0, 16}, .b = {0, 0, 8, 24}};
    /* ranges are half-open: [0:16) and [16:32) share no byte, either way round */
    struct ces_op up = {.kind = CES_OP_COPY, .a = {0, 1, 0, 16}, .b = {0, 1, 16, 32}};
    struct ces_op down = {.kind = CES_OP_COPY, .a = {0, 1, 16, 32}, .b = {0, 1, 0, 16}};

    (void)state;
    assert_int_equal(ces_graph_add_op(g, 1, &far), CES_OK); /* other rank's bytes: fine */
    assert_int_equal(ces_graph_add_op(g, 1, &up), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 1, &down), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 1, &c), CES_OK);
    assert_int_equal(ces_graph_validate(g, "c.ces"), CES_ERR_SEMANTIC);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "c.ces: r1.s0#6: a copy's source and destination overlap (send@1 bytes "
                        "[0:16) and [8:24)): the copy engines leave the result undefined");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Rank 0's ops of a graph phase replayed 3 times (a fence on s0, one on s1,
 * a fence on s0), then an eager block of a fence on s1 and `last` on
 * rank 0; buffer b of 64 bytes for it. */
static struct ces_graph *replayed_then(struct ces_ctx *ctx, const struct ces_op *last)
{
    struct ces_graph *g = NULL;
    struct ces_op f0 = {.kind = CES_OP_FENCE}, f1 = {.kind = CES_OP_FENCE, .stream = 1};
    uint32_t b;

    assert_int_equal(ces_graph_create(ctx, 2, 2, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "b", 64, &b), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 3), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &f0), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &f1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &f0), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &f1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, last), CES_OK);
    return g;
}

/* An op after a graph phase is named as the checker, the faults and dot
 * name it: #K counts every replay of the earlier blocks, stream by stream
 * (it counted each op once: r0.s0#2 for the checker's r0.s0#6). */
static void test_validate_counts_replays(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g;
    struct ces_op end1 = {.kind = CES_OP_END, .stream = 1};
    struct ces_op c = {.kind = CES_OP_COPY, .a = {0, 0, 0, 16}, .b = {0, 0, 8, 24}};

    (void)state;
    g = replayed_then(ctx, &c);
    assert_int_equal(ces_graph_validate(g, NULL), CES_ERR_SEMANTIC);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r0.s0#6: a copy's source and destination overlap (b@0 bytes [0:16) "
                        "and [8:24)): the copy engines leave the result undefined");
    ces_graph_destroy(g);
    /* the other stream counts its own: one op a replay, then the fence */
    g = replayed_then(ctx, &end1);
    assert_int_equal(ces_graph_validate(g, NULL), CES_ERR_SEMANTIC);
    assert_string_equal(ces_ctx_last_error(ctx), "r0.s1#4: 'end' without 'batch'");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_await_needs_record(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    uint32_t ev;
    struct ces_op aw = {.kind = CES_OP_AWAIT, .line = 9, .col = 3};
    struct ces_op rec = {.kind = CES_OP_RECORD};

    (void)state;
    assert_int_equal(ces_graph_add_event(g, "E", &ev), CES_OK);
    aw.event = rec.event = ev;
    assert_int_equal(ces_graph_add_op(g, 1, &aw), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 1, &rec), CES_OK);
    assert_int_equal(ces_graph_validate(g, "f.ces"), CES_ERR_SEMANTIC);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "f.ces:9:3: 'await E' has no 'record E' before it on rank 1 (r1.s0#3)");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static int build_body(struct ces_ctx *ctx, void *arg)
{
    struct ces_graph *g = NULL;
    struct ces_graph *h = NULL;
    char *text = NULL;
    int rc;

    (void)arg;
    rc = ces_graph_create(ctx, 2, 2, &g);
    if (rc == CES_OK)
        rc = ces_graph_add_buffer(g, "b", 16, NULL);
    if (rc == CES_OK)
        rc = ces_graph_add_signal(g, "s", CES_U64, 4, NULL);
    if (rc == CES_OK)
        rc = ces_graph_add_event(g, "E", NULL);
    if (rc == CES_OK)
        rc = ces_graph_add_const(g, "C", 3);
    if (rc == CES_OK)
        rc = ces_graph_add_block(g, CES_PHASE_GRAPH, 3);
    for (uint32_t i = 0; rc == CES_OK && i < 20; i++) {
        struct ces_op w = {.kind = CES_OP_WRITE, .slot = {0, 1, i % 4}, .value = i};

        rc = ces_graph_add_op(g, 0, &w);
    }
    if (rc == CES_OK)
        rc = ces_graph_validate(g, NULL);
    if (rc == CES_OK)
        rc = ces_graph_print(ctx, g, CES_PRINT_EXPLAIN, &text, NULL);
    if (rc == CES_OK)
        rc = ces_graph_create(ctx, 1, 1, &h);
    ces_free(ctx, text);
    ces_graph_destroy(h);
    ces_graph_destroy(g);
    return rc;
}

static void test_alloc_failures(void **state)
{
    (void)state;
    assert_true(ces_test_alloc_failures(build_body, NULL) > 10);
}

/* The ops of block b (of 205) for rank r: a 1 MiB block of 12,003 ops,
 * a block without ops, 200 small ones, a last one of rank 1 alone. */
static uint32_t stored_count(uint32_t b, uint32_t r)
{
    static const uint32_t first[4][3] = {{2, 0, 1}, {12000, 0, 3}, {0, 0, 0}, {1, 1, 1}};

    return b < 4 ? first[b][r] : b < 204 ? 1 : r == 1 ? 5 : 0;
}

static int stored_graph(struct ces_ctx *ctx, struct ces_graph **out)
{
    struct ces_graph *g = NULL;
    int rc = ces_graph_create(ctx, 3, 1, &g);

    if (rc == CES_OK)
        rc = ces_graph_add_signal(g, "s", CES_U64, 1, NULL);
    for (uint32_t b = 0; rc == CES_OK && b < 205; b++) {
        uint32_t most = b == 1 ? 12000 : 5;

        rc = ces_graph_add_block(g, CES_PHASE_EAGER, 1);
        /* the ranks' ops interleaved, as ces_graph_add_op may take them */
        for (uint32_t k = 0; rc == CES_OK && k < most; k++) {
            for (uint32_t r = 0; rc == CES_OK && r < 3; r++) {
                struct ces_op w = {.kind = CES_OP_WRITE, .slot = {0, r, 0},
                                   .value = (uint64_t)b << 32 | (uint64_t)r << 24 | k};

                if (k < stored_count(b, r))
                    rc = ces_graph_add_op(g, r, &w);
            }
        }
    }
    *out = g;
    return rc;
}

/* The blocks' ops as the graph stores them (struct ces_gblock): the last
 * block's in a list per rank, an earlier block's moved into the graph's
 * arena, one of more than 1 MiB of ops keeping the lists' own arrays, a
 * block without ops; each read back whole by ces_graph_ops and compared by
 * ces_graph_equal, and the graph validated and printed, allocation failing
 * at each of its allocations. */
static int stored_body(struct ces_ctx *ctx, void *arg)
{
    struct ces_graph *g = NULL, *h = NULL;
    struct ces_op w = {.kind = CES_OP_WRITE, .value = 7};
    char *text = NULL;
    int rc = stored_graph(ctx, &g);

    (void)arg;
    if (rc == CES_OK)
        rc = stored_graph(ctx, &h);
    if (rc == CES_OK) {
        assert_int_equal(ces_graph_nblocks(g), 205);
        for (uint32_t b = 0; b < 205; b++) {
            for (uint32_t r = 0; r < 3; r++) {
                uint32_t n = 99;
                const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

                assert_int_equal(n, stored_count(b, r));
                for (uint32_t k = 0; k < n; k++)
                    assert_true(ops[k].value == ((uint64_t)b << 32 | (uint64_t)r << 24 | k));
            }
        }
        assert_int_equal(ces_graph_equal(g, h), 1);
        rc = ces_graph_add_op(h, 2, &w);
    }
    if (rc == CES_OK) {
        assert_int_equal(ces_graph_equal(g, h), 0);
        rc = ces_graph_validate(g, NULL);
    }
    if (rc == CES_OK)
        rc = ces_graph_print(ctx, g, 0, &text, NULL);
    if (rc == CES_OK)
        assert_non_null(strstr(text, "\nr2 : write s[0] = 4328521730\nphase eager x1\nphase "
                                     "eager x1\nr0 : write s[0] = 12884901888\n"));
    ces_free(ctx, text);
    ces_graph_destroy(h);
    ces_graph_destroy(g);
    return rc;
}

static void test_block_storage(void **state)
{
    (void)state;
    assert_true(ces_test_alloc_failures(stored_body, NULL) > 50);
}

/* What ces_graph_ops returns for a block before the last stays as it is
 * while the graph grows (cesync.h): 64 ranks of one op or none each, then
 * blocks enough for several arena chunks and one of more than 1 MiB of ops
 * keeping its arrays, those blocks' arrays too. */
static void test_ops_kept(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    const struct ces_op *kept[3][64];
    uint32_t n;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 64, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "s", CES_U64, 1, NULL), CES_OK);
    for (uint32_t b = 0; b < 300; b++) {
        /* block 1 of 11,000 ops (above 1 MiB), the others of one op on
         * every other rank */
        assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
        for (uint32_t r = 0; r < 64; r++) {
            uint32_t most = b == 1 ? (r == 0 ? 10937 : 1) : (r + b) % 2;

            for (uint32_t k = 0; k < most; k++) {
                struct ces_op w = {.kind = CES_OP_WRITE, .slot = {0, r, 0},
                                   .value = (uint64_t)b << 32 | (uint64_t)r << 16 | k};

                assert_int_equal(ces_graph_add_op(g, r, &w), CES_OK);
            }
        }
        if (b == 3) {
            for (uint32_t x = 0; x < 3; x++)
                for (uint32_t r = 0; r < 64; r++)
                    kept[x][r] = ces_graph_ops(g, x, r, &n);
        }
    }
    for (uint32_t x = 0; x < 3; x++) {
        for (uint32_t r = 0; r < 64; r++) {
            const struct ces_op *ops = ces_graph_ops(g, x, r, &n);

            assert_ptr_equal(ops, kept[x][r]);
            assert_int_equal(n, x == 1 ? (r == 0 ? 10937 : 1) : (r + x) % 2);
            for (uint32_t k = 0; k < n; k++)
                assert_true(ops[k].value == ((uint64_t)x << 32 | (uint64_t)r << 16 | k));
        }
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Block b of sharing_graph: rank r's ops are sharing_count(b, r) writes,
 * op k of sharing_value(b, r, k). */
static uint32_t sharing_count(uint32_t b, uint32_t r)
{
    /* block 5: rank 0 one op more, rank 1 one fewer, as many in all */
    return b == 5 ? (r == 0 ? 3 : r == 1 ? 1 : 2) : 2;
}

static uint64_t sharing_value(uint32_t b, uint32_t r, uint32_t k)
{
    /* blocks 0 and 1 alike, 2 to 4 alike (rank 2's second op differs) */
    return b < 2 ? k : b < 5 ? (r == 2 && k == 1 ? 9 : k) : b;
}

/* A block whose ops are the block's before it shares that block's array
 * (struct ces_gblock): blocks 1, 3 and 4 (a graph block of 3 replays after
 * eager ones) share their predecessor's, a block differing in one op (2), in
 * how the ranks' ops are split (5), or the last (6) not; each block's ops
 * read back whole, the graph equal to itself rebuilt, validated, printed. */
static int sharing_graph(struct ces_ctx *ctx, struct ces_graph **out)
{
    struct ces_graph *g = NULL;
    int rc = ces_graph_create(ctx, 3, 1, &g);

    if (rc == CES_OK)
        rc = ces_graph_add_signal(g, "s", CES_U64, 1, NULL);
    for (uint32_t b = 0; b < 7 && rc == CES_OK; b++) {
        rc = b == 4 ? ces_graph_add_block(g, CES_PHASE_GRAPH, 3)
                    : ces_graph_add_block(g, CES_PHASE_EAGER, 1);
        for (uint32_t r = 0; r < 3 && rc == CES_OK; r++) {
            for (uint32_t k = 0; k < sharing_count(b, r) && rc == CES_OK; k++) {
                struct ces_op w = {.kind = CES_OP_WRITE, .slot = {0, r, 0},
                                   .value = sharing_value(b, r, k)};

                rc = ces_graph_add_op(g, r, &w);
            }
        }
    }
    *out = g;
    return rc;
}

static void test_blocks_shared(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL, *h = NULL;
    char *text = NULL;

    (void)state;
    assert_int_equal(sharing_graph(ctx, &g), CES_OK);
    assert_int_equal(sharing_graph(ctx, &h), CES_OK);
    for (uint32_t b = 0; b < 7; b++) {
        for (uint32_t r = 0; r < 3; r++) {
            uint32_t n = 99, m = 99;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);
            const struct ces_op *before = b > 0 ? ces_graph_ops(g, b - 1, r, &m) : NULL;
            bool shared = b == 1 || b == 3 || b == 4;

            assert_int_equal(n, sharing_count(b, r));
            for (uint32_t k = 0; k < n; k++)
                assert_true(ops[k].value == sharing_value(b, r, k));
            if (shared)
                assert_ptr_equal(ops, before);
            else
                assert_true(ops != before);
        }
    }
    assert_int_equal(ces_graph_block(g, 4).reps, 3);
    assert_int_equal(ces_graph_equal(g, h), 1);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_graph_print(ctx, g, 0, &text, NULL), CES_OK);
    assert_non_null(strstr(text, "phase graph x3\nr0 : write s[0] = 0\nr0 : write s[0] = 1\n"
                                 "r1 : write s[0] = 0\nr1 : write s[0] = 1\n"
                                 "r2 : write s[0] = 0\nr2 : write s[0] = 9\n"
                                 "phase eager x1\nr0 : write s[0] = 5\n"));
    ces_free(ctx, text);
    ces_graph_destroy(h);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* ces_graph_add_op stores ops field by field into zeroed bytes: the bytes
 * between struct ces_op's fields that a caller's op holds (here 0xa5 and
 * 0x5a in two blocks of the same write) neither stop the second block from
 * sharing the first's array (seal_last compares ops byte by byte) nor are
 * read there (under Valgrind, uninitialised). */
static void test_blocks_shared_padding(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    const struct ces_op *ops[2];
    uint32_t n = 0;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 1, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "s", CES_U64, 1, NULL), CES_OK);
    for (int b = 0; b < 3; b++) {
        struct ces_op w;

        memset(&w, b == 0 ? 0xa5 : 0x5a, sizeof(w));
        w.kind = CES_OP_WRITE;
        w.cmp = 0;
        w.flags = 0;
        w.pad_ = 0;
        w.stream = 0;
        memset(&w.a, 0, sizeof(w.a));
        memset(&w.b, 0, sizeof(w.b));
        w.slot.sig = 0;
        w.slot.rank = 0;
        w.slot.idx = 0;
        w.value = 7;
        w.event = 0;
        w.line = 0;
        w.col = 0;
        assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
    }
    for (uint32_t b = 0; b < 2; b++) {
        ops[b] = ces_graph_ops(g, b, 0, &n);
        assert_int_equal(n, 1);
        assert_true(ops[b][0].value == 7);
    }
    assert_ptr_equal(ops[1], ops[0]);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(ces_op_kind_name(CES_OP_WAIT), "wait");
    assert_null(ces_op_kind_name(CES_OP_COUNT));
    assert_string_equal(ces_status_str(CES_ERR_PARSE), "syntax error");
    assert_string_equal(ces_status_str(12345), "unknown status");
    assert_int_equal(ces_coll_from_name("sendrecv"), CES_COLL_SENDRECV);
    assert_int_equal(ces_proto_from_name("credit"), CES_PROTO_CREDIT);
    assert_int_equal(ces_proto_from_name("nope"), -1);
}

/* Names the graph's text could not hold are refused at the API edge: a
 * buffer and a signal of one name (the .ces format, and ces_launch's
 * bindings, name both alike) and a constant named like a built-in
 * variable (constants print as `let` lines), so that what ces_graph_print
 * writes parses back. */
static void test_name_spaces(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    uint32_t idx = 99;

    (void)state;
    assert_int_equal(ces_graph_add_signal(g, "send", CES_U32, 1, &idx), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "signal 'send': the name is already a "
                                                 "buffer's (buffers and signals share one name "
                                                 "space)");
    assert_int_equal(ces_graph_add_buffer(g, "ready", 8, &idx), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "buffer 'ready': the name is already a "
                                                 "signal's (buffers and signals share one name "
                                                 "space)");
    assert_int_equal(idx, 99);
    assert_int_equal(ces_graph_nbuffers(g), 2);
    assert_int_equal(ces_graph_nsignals(g), 1);
    /* events and constants have tables of their own */
    assert_int_equal(ces_graph_add_event(g, "send", NULL), CES_OK);
    assert_int_equal(ces_graph_add_const(g, "ready", 1), CES_OK);
    for (const char *c = "rnpi"; *c != '\0'; c++) {
        char name[2] = {*c, '\0'};

        assert_int_equal(ces_graph_add_const(g, name, 1), CES_ERR_INVALID);
        assert_non_null(strstr(ces_ctx_last_error(ctx), "is reserved"));
    }
    assert_int_equal(ces_graph_add_const(g, "rr", 1), CES_OK);
    assert_int_equal(ces_graph_nconsts(g), 2);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A name in the graph's messages shows its first 48 bytes and "...", as
 * the parser's do: a long one took the message's room. */
static void test_long_names_cut(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    char name[1100], want[160];

    (void)state;
    memset(name, 'q', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    assert_int_equal(ces_graph_add_buffer(g, name, 8, NULL), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, name, 8, NULL), CES_ERR_INVALID);
    snprintf(want, sizeof(want), "buffer '%.48s...' is declared twice", name);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    assert_int_equal(ces_graph_add_signal(g, name, CES_U32, 1, NULL), CES_ERR_INVALID);
    snprintf(want, sizeof(want), "signal '%.48s...': the name is already a buffer's (buffers "
             "and signals share one name space)", name);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    name[0] = '9';
    assert_int_equal(ces_graph_add_signal(g, name, CES_U32, 1, NULL), CES_ERR_INVALID);
    snprintf(want, sizeof(want), "signal name '%.48s...' is not an identifier", name);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Each table finds every one of many names at its place and refuses a
 * name given again with the message of a small table; running out of
 * memory while a table grows leaves nothing allocated. */
static int many_names_body(struct ces_ctx *ctx, void *arg)
{
    struct ces_graph *g = NULL;
    uint32_t n = *(const uint32_t *)arg, idx = 0;
    int rc = ces_graph_create(ctx, 2, 1, &g);

    for (uint32_t k = 0; rc == CES_OK && k < n; k++) {
        char name[16];

        snprintf(name, sizeof(name), "b%" PRIu32, k);
        rc = ces_graph_add_buffer(g, name, 8, &idx);
        if (rc == CES_OK) {
            assert_int_equal(idx, k);
            name[0] = 's';
            rc = ces_graph_add_signal(g, name, CES_U32, 1, &idx);
        }
        if (rc == CES_OK) {
            assert_int_equal(idx, k);
            name[0] = 'e';
            rc = ces_graph_add_event(g, name, &idx);
        }
        if (rc == CES_OK) {
            assert_int_equal(idx, k);
            name[0] = 'c';
            rc = ces_graph_add_const(g, name, k);
        }
    }
    ces_graph_destroy(g);
    return rc;
}

static void test_many_names(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    uint32_t n = 40;
    char name[16];

    (void)state;
    assert_true(ces_test_alloc_failures(many_names_body, &n) > 4 * 40);
    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    for (uint32_t k = 0; k < 5000; k++) {
        snprintf(name, sizeof(name), "b%" PRIu32, k);
        assert_int_equal(ces_graph_add_buffer(g, name, 8, NULL), CES_OK);
        name[0] = 's';
        assert_int_equal(ces_graph_add_signal(g, name, CES_U32, 1, NULL), CES_OK);
        name[0] = 'e';
        assert_int_equal(ces_graph_add_event(g, name, NULL), CES_OK);
        name[0] = 'c';
        assert_int_equal(ces_graph_add_const(g, name, k), CES_OK);
    }
    for (uint32_t k = 0; k < 5000; k++) {
        snprintf(name, sizeof(name), "b%" PRIu32, k);
        assert_int_equal(ces_graph_find_buffer(g, name), k);
        assert_int_equal(ces_graph_find_signal(g, name), -1);
        name[0] = 's';
        assert_int_equal(ces_graph_find_signal(g, name), k);
        assert_int_equal(ces_graph_find_event(g, name), -1);
        name[0] = 'e';
        assert_int_equal(ces_graph_find_event(g, name), k);
    }
    assert_int_equal(ces_graph_find_buffer(g, "b"), -1);
    assert_int_equal(ces_graph_find_buffer(g, "b50000"), -1);
    assert_int_equal(ces_graph_find_buffer(g, "b4999x"), -1);
    assert_int_equal(ces_graph_find_buffer(g, NULL), -1);
    assert_int_equal(ces_graph_add_buffer(g, "b4999", 8, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "buffer 'b4999' is declared twice");
    assert_int_equal(ces_graph_add_signal(g, "s0", CES_U32, 1, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "signal 's0' is declared twice");
    assert_int_equal(ces_graph_add_signal(g, "b2500", CES_U32, 1, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "signal 'b2500': the name is already a "
                                                 "buffer's (buffers and signals share one name "
                                                 "space)");
    assert_int_equal(ces_graph_add_buffer(g, "s4999", 8, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "buffer 's4999': the name is already a "
                                                 "signal's (buffers and signals share one name "
                                                 "space)");
    assert_int_equal(ces_graph_add_event(g, "e17", NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "event 'e17' is declared twice");
    assert_int_equal(ces_graph_add_const(g, "c4998", 1), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "constant 'c4998' is declared twice");
    assert_int_equal(ces_graph_nbuffers(g), 5000);
    assert_int_equal(ces_graph_nsignals(g), 5000);
    assert_int_equal(ces_graph_nevents(g), 5000);
    assert_int_equal(ces_graph_nconsts(g), 5000);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Constants are a table of the graph (they print as `let` lines): equality
 * compares their names and values too. */
static void test_equal_consts(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *a = tiny(ctx), *b = tiny(ctx);

    (void)state;
    assert_true(ces_graph_equal(a, b));
    assert_int_equal(ces_graph_add_const(a, "C", 8), CES_OK);
    assert_false(ces_graph_equal(a, b));
    assert_int_equal(ces_graph_add_const(b, "C", 9), CES_OK);
    assert_false(ces_graph_equal(a, b));
    ces_graph_destroy(b);
    b = tiny(ctx);
    assert_int_equal(ces_graph_add_const(b, "C", 8), CES_OK);
    assert_true(ces_graph_equal(a, b));
    /* no graph equals only no graph (NULL was dereferenced) */
    assert_false(ces_graph_equal(NULL, b));
    assert_false(ces_graph_equal(a, NULL));
    assert_true(ces_graph_equal(NULL, NULL));
    ces_graph_destroy(a);
    ces_graph_destroy(b);
    ces_test_ctx_end(ctx, &st);
}

/* The wait predicate every consumer of the graph shares. */
static void test_wait_holds(void **state)
{
    (void)state;
    assert_true(ces_wait_holds(CES_U32, CES_CMP_EQ, 5, 5));
    assert_false(ces_wait_holds(CES_U32, CES_CMP_EQ, 6, 5));
    assert_true(ces_wait_holds(CES_U32, CES_CMP_GEQ, 6, 5));
    assert_false(ces_wait_holds(CES_U32, CES_CMP_GEQ, 4, 5));
    /* u32 >= is cyclic: 1 is "after" 0xffffffff, 0x80000000 is "before" 0 */
    assert_true(ces_wait_holds(CES_U32, CES_CMP_GEQ, 1, UINT32_MAX));
    assert_false(ces_wait_holds(CES_U32, CES_CMP_GEQ, UINT32_C(0x80000000), 0));
    assert_true(ces_wait_holds(CES_U32, CES_CMP_GEQ, UINT32_C(0x7fffffff), 0));
    /* u64 >= is plain */
    assert_false(ces_wait_holds(CES_U64, CES_CMP_GEQ, 1, UINT64_MAX));
    assert_true(ces_wait_holds(CES_U64, CES_CMP_GEQ, UINT64_C(0x80000000), 0));
}

/* Fields an op's kind does not use are stored as zero: a graph built from
 * ops that carried something there equals the graph its printed text
 * expands to, and the same ops without it. */
static void test_unused_fields_cleared(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL, *clean = NULL, *back = NULL;
    struct ces_prog *prog = NULL;
    struct ces_op noisy[] = {
        {.kind = CES_OP_FENCE, .cmp = 1, .flags = 0xfd, .a = {0, 1, 0, 8}, .value = 5, .event = 2},
        {.kind = CES_OP_WRITE, .cmp = CES_CMP_EQ, .slot = {0, 1, 0}, .value = 1, .event = 3,
         .b = {0, 1, 8, 16}},
        {.kind = CES_OP_CONSUME, .flags = CES_OPF_FROZEN, .a = {0, 0, 0, 8}, .b = {0, 1, 0, 8},
         .slot = {0, 0, 0}, .value = 9},
        {.kind = CES_OP_WAIT, .cmp = CES_CMP_GEQ, .slot = {0, 0, 0}, .value = 1,
         .a = {0, 0, 0, 8}},
    };
    struct ces_op plain[] = {
        {.kind = CES_OP_FENCE},
        {.kind = CES_OP_WRITE, .slot = {0, 1, 0}, .value = 1},
        {.kind = CES_OP_CONSUME, .flags = CES_OPF_FROZEN, .a = {0, 0, 0, 8}},
        {.kind = CES_OP_WAIT, .cmp = CES_CMP_GEQ, .slot = {0, 0, 0}, .value = 1},
    };
    char *text = NULL;
    size_t len = 0;
    uint32_t n;
    const struct ces_op *ops;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_create(ctx, 2, 1, &clean), CES_OK);
    for (int k = 0; k < 2; k++) {
        struct ces_graph *h = k == 0 ? g : clean;
        const struct ces_op *list = k == 0 ? noisy : plain;

        assert_int_equal(ces_graph_add_buffer(h, "b", 64, NULL), CES_OK);
        assert_int_equal(ces_graph_add_signal(h, "f", CES_U32, 1, NULL), CES_OK);
        assert_int_equal(ces_graph_add_block(h, CES_PHASE_EAGER, 1), CES_OK);
        for (size_t i = 0; i < sizeof(noisy) / sizeof(noisy[0]); i++)
            assert_int_equal(ces_graph_add_op(h, 0, &list[i]), CES_OK);
    }
    ops = ces_graph_ops(g, 0, 0, &n);
    assert_int_equal(n, 4);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(ops[i].cmp, plain[i].cmp);
        assert_int_equal(ops[i].flags, plain[i].flags);
        assert_int_equal(ops[i].pad_, 0);
        assert_memory_equal(&ops[i].a, &plain[i].a, sizeof(ops[i].a));
        assert_memory_equal(&ops[i].b, &plain[i].b, sizeof(ops[i].b));
        assert_memory_equal(&ops[i].slot, &plain[i].slot, sizeof(ops[i].slot));
        assert_int_equal(ops[i].value, plain[i].value);
        assert_int_equal(ops[i].event, plain[i].event);
    }
    assert_true(ces_graph_equal(g, clean));
    assert_int_equal(ces_graph_print(ctx, g, 0, &text, &len), CES_OK);
    assert_int_equal(ces_prog_parse(ctx, text, len, "printed", &prog), CES_OK);
    assert_int_equal(ces_prog_expand(ctx, prog, &back), CES_OK);
    assert_true(ces_graph_equal(g, back));
    ces_free(ctx, text);
    ces_prog_destroy(prog);
    ces_graph_destroy(back);
    ces_graph_destroy(clean);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* ces_op_format with an op that is not from g: a buffer, signal or event
 * index past g's tables used to be read out of bounds (a crash), and an
 * unknown kind printed "(null)"; each is now -1 with an empty buffer, as
 * are a slot index past its signal's and a wait's unknown compare (both
 * were printed, the compare as ">="); a write to every rank is "@*" (it
 * was "@4294967295"). */
static void test_op_format_foreign_op(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_op w = {.kind = CES_OP_WRITE, .slot = {0, 1, 0}, .value = 3};
    struct ces_op bad[] = {
        {.kind = CES_OP_COPY, .a = {0, 0, 0, 8}, .b = {7, 1, 0, 8}},
        {.kind = CES_OP_CONSUME, .flags = CES_OPF_EXPECT, .a = {0, 0, 0, 8},
         .b = {1000000, 1, 0, 8}},
        {.kind = CES_OP_WAIT, .slot = {3, 1, 0}},
        {.kind = CES_OP_AWAIT, .event = 0},
        {.kind = 99},
        {.kind = CES_OP_WRITE, .slot = {0, 1, 1}, .value = 3},
        {.kind = CES_OP_WAIT, .cmp = 7, .slot = {0, 1, 0}, .value = 3},
    };
    struct ces_op all = {.kind = CES_OP_WRITE, .slot = {0, CES_RANK_ALL, 0}, .value = 3};
    char buf[64];

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "b", 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U32, 1, NULL), CES_OK);
    assert_int_equal(ces_op_format(g, 0, &w, buf, sizeof(buf)), 16);
    assert_string_equal(buf, "write f[0]@1 = 3");
    assert_int_equal(ces_op_format(g, 0, &all, buf, sizeof(buf)), 16);
    assert_string_equal(buf, "write f[0]@* = 3");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        buf[0] = 'x';
        assert_int_equal(ces_op_format(g, 0, &bad[i], buf, sizeof(buf)), -1);
        assert_string_equal(buf, "");
    }
    assert_int_equal(ces_op_format(NULL, 0, &w, buf, sizeof(buf)), -1);
    assert_int_equal(ces_op_format(g, 0, NULL, buf, sizeof(buf)), -1);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Each range check of an op at its bound: the first index, rank, stream or
 * kind past a table is refused with its message (a check off by one would
 * take it for the last valid one and read past the table), the expected
 * region of a consume is checked as its own, and sizes that differ by a
 * byte are refused; nothing is added. */
static void test_range_edges(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    struct ces_op bad[] = {
        {.kind = CES_OP_COPY, .a = {2, 0, 0, 8}, .b = {1, 1, 0, 8}},
        {.kind = CES_OP_COPY, .a = {0, 0, 0, 8}, .b = {2, 1, 0, 8}},
        {.kind = CES_OP_PRODUCE, .a = {0, 2, 0, 8}},
        {.kind = CES_OP_FENCE, .stream = 1},
        {.kind = CES_OP_COPY, .a = {0, 0, 0, 16}, .b = {1, 1, 0, 15}},
        {.kind = CES_OP_CONSUME, .flags = CES_OPF_EXPECT, .a = {0, 0, 0, 16}, .b = {1, 1, 1, 16}},
        {.kind = CES_OP_CONSUME, .flags = CES_OPF_EXPECT, .a = {0, 0, 0, 8}, .b = {0, 1, 60, 68}},
        {.kind = CES_OP_WRITE, .slot = {1, 0, 0}, .value = 1},
        {.kind = CES_OP_WAIT, .cmp = CES_CMP_EQ, .slot = {0, 2, 0}, .value = 1},
        {.kind = CES_OP_RECORD, .event = 0},
        {.kind = CES_OP_AWAIT, .event = 0, .line = 7, .col = 2},
        {.kind = CES_OP_COUNT},
    };
    char unknown[64];
    const char *want[] = {
        "r0.s0: source region names buffer #2 but the graph has 2 buffers",
        "r0.s0: destination region names buffer #2 but the graph has 2 buffers",
        "r0.s0: produced region send@2: rank out of range (ranks are 0..1)",
        "r0.s1: stream s1 out of range (streams are s0..s0)",
        "r0.s0: copy sizes differ: source 16 bytes, destination 15",
        "r0.s0: consume sizes differ: 16 bytes read, 15 expected",
        "r0.s0: expected region send[60:68] is out of range: expected 0 <= lo <= hi <= 64",
        "r0.s0: slot names signal #1 but the graph has 1",
        "r0.s0: slot ready[0]@2: rank out of range (ranks are 0..1)",
        "r0.s0: event #0 but the graph has 0 events",
        "7:2: event #0 but the graph has 0 events",
        unknown,
    };
    uint32_t n;

    (void)state;
    snprintf(unknown, sizeof(unknown), "r0.s0: unknown op kind %u", (unsigned)CES_OP_COUNT);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(ces_graph_add_op(g, 0, &bad[i]), CES_ERR_INVALID);
        assert_string_equal(ces_ctx_last_error(ctx), want[i]);
    }
    (void)ces_graph_ops(g, 0, 0, &n);
    assert_int_equal(n, 3);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The bounds at their largest: a buffer of 2^48 bytes, CES_MAX_STREAMS
 * connections and a graph of CES_MAX_RANKS ranks and CES_MAX_STREAMS
 * streams are taken (a bound taken as excluded would refuse each), one
 * more connection is not; an op for the rank one past the last is refused
 * even when the op itself is valid. */
static void test_table_bounds(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    struct ces_op fence = {.kind = CES_OP_FENCE};
    uint32_t idx = 0;

    (void)state;
    assert_int_equal(ces_graph_add_buffer(g, "max", CES_MAX_BYTES, &idx), CES_OK);
    assert_int_equal(idx, 2);
    assert_int_equal(ces_graph_buffer(g, 2).size, CES_MAX_BYTES);
    assert_int_equal(ces_graph_set_connections(g, CES_MAX_STREAMS), CES_OK);
    assert_int_equal(ces_graph_connections(g), CES_MAX_STREAMS);
    assert_int_equal(ces_graph_set_connections(g, CES_MAX_STREAMS + 1), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "connections must be 0..64 or CES_CONNECTIONS_ANY, not 65");
    assert_int_equal(ces_graph_connections(g), CES_MAX_STREAMS);
    assert_int_equal(ces_graph_add_op(g, 2, &fence), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "rank r2 out of range (ranks are r0..r1)");
    assert_int_equal(ces_graph_add_op(g, 1, &fence), CES_OK);
    ces_graph_destroy(g);
    assert_int_equal(ces_graph_create(ctx, CES_MAX_RANKS, CES_MAX_STREAMS, &g), CES_OK);
    assert_int_equal(ces_graph_ranks(g), CES_MAX_RANKS);
    assert_int_equal(ces_graph_streams(g), CES_MAX_STREAMS);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A graph that failed ces_graph_validate is not taken as validated: the
 * consumers' ces_graph_require_valid validates it again and refuses it
 * with the reason (were a failed validation to mark it valid, it would
 * pass). */
static void test_require_valid_after_failure(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    struct ces_op e = {.kind = CES_OP_END};

    (void)state;
    assert_int_equal(ces_graph_add_op(g, 0, &e), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_ERR_SEMANTIC);
    assert_string_equal(ces_ctx_last_error(ctx), "r0.s0#3: 'end' without 'batch'");
    assert_int_equal(ces_graph_require_valid(ctx, g, "ces_check"), CES_ERR_SEMANTIC);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_check: the graph does not validate: "
                                                 "r0.s0#3: 'end' without 'batch'");
    ces_graph_destroy(g);
    g = tiny(ctx);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_graph_require_valid(ctx, g, "ces_check"), CES_OK);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The batch sweep keeps buffers and ranks apart: copies of one batch that
 * write the same bytes of one buffer on two ranks, or of two buffers on one
 * rank, do not overlap, and such a pair does not hide a later clash (a
 * sweep taking the pair for the first clash would leave the real one
 * unchecked); a batch's copies are its stream's, with other streams' ops
 * between them (a batch cut at another stream's op would miss the clash
 * after it). */
static void test_validate_batch_apart(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_op b = {.kind = CES_OP_BATCH};
    struct ces_op e = {.kind = CES_OP_END};
    struct ces_op f1 = {.kind = CES_OP_FENCE, .stream = 1};
    struct ces_op c0 = {.kind = CES_OP_COPY, .a = {0, 0, 0, 16}, .b = {1, 0, 0, 16}};
    struct ces_op c1 = {.kind = CES_OP_COPY, .a = {0, 0, 16, 32}, .b = {1, 1, 0, 16}};
    struct ces_op c2 = {.kind = CES_OP_COPY, .a = {0, 0, 32, 48}, .b = {2, 1, 0, 16}};
    struct ces_op clash = {.kind = CES_OP_COPY, .a = {0, 0, 48, 64}, .b = {1, 1, 8, 24}};

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 2, 2, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "send", 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "recv", 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "more", 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &b), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &c0), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &f1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &c1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &c2), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &e), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_graph_destroy(g);
    assert_int_equal(ces_graph_create(ctx, 2, 2, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "send", 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "recv", 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &b), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &c0), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &c1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &f1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &clash), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &e), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_ERR_SEMANTIC);
    assert_string_equal(ces_ctx_last_error(ctx), "r0.s0#3: copies in one batch overlap: both "
                                                 "write recv@1 bytes [0:16) and [8:24)");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_and_print), cmocka_unit_test(test_range_errors),
        cmocka_unit_test(test_u32_wraps),       cmocka_unit_test(test_validate_batches),
        cmocka_unit_test(test_await_needs_record),
        cmocka_unit_test(test_overlapping_copy), cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_validate_counts_replays),
        cmocka_unit_test(test_names),           cmocka_unit_test(test_equal_consts),
        cmocka_unit_test(test_name_spaces),
        cmocka_unit_test(test_long_names_cut),
        cmocka_unit_test(test_many_names),
        cmocka_unit_test(test_wait_holds),
        cmocka_unit_test(test_validate_batch_read_write),
        cmocka_unit_test(test_validate_batch_empty_copy),
        cmocka_unit_test(test_validate_long_batch),
        cmocka_unit_test(test_op_format_foreign_op),
        cmocka_unit_test(test_unused_fields_cleared),
        cmocka_unit_test(test_range_edges),
        cmocka_unit_test(test_table_bounds),
        cmocka_unit_test(test_require_valid_after_failure),
        cmocka_unit_test(test_validate_batch_apart),
        cmocka_unit_test(test_block_storage),
        cmocka_unit_test(test_ops_kept),
        cmocka_unit_test(test_blocks_shared),
        cmocka_unit_test(test_blocks_shared_padding),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
