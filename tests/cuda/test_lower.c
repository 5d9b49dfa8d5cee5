/*
 * tests/cuda/test_lower.c - the lowering of graphs into CUDA calls
 * (backend/cuda/lower.c), on the CPU: exact memop splits at 255, eager vs
 * capture copies, flag writes after their batch, @* as unicast writes,
 * refusal of flush, u64 without 64-bit memops, u64 values that CUDA's cyclic
 * 64-bit >= would judge otherwise than the checker, frozen waits under capture,
 * progress writes, a barrier behind long copies as two calls (u64 flags too,
 * counting the copies since the last memop run), shared queues,
 * each memop naming its op as the checker numbers it (rR.sS#K, every earlier
 * block counted),
 * allocation failures; the process's hardware queues and the rule that a
 * graph runs only under the queue model it was checked for (every case);
 * and the point-to-point group graph (backend/cuda/group.c) with its
 * one-process arrivals; and every builder graph, fixture and selected
 * collective schedule lowered in every mode, checked op for op against its
 * graph (check_plan).
 */
#include "ces_test.h"
#include "lower.h"

#include <stdlib.h>
#include <string.h>

static const struct ces_cuda_caps h200 = {0, 1, 0, CES_CUDA_SPLIT_WAIT_BYTES};

/* 2 ranks, buffers send/recv of 64 bytes, signal ready u32 x4; each rank:
 * write ready[r]@peer = 1, wait ready[peer] == 1, batch of 2 copies, end,
 * write ready[2+r]@peer = 2, produce, consume. */
static struct ces_graph *xchg(struct ces_ctx *ctx, uint32_t kind, uint32_t reps, uint8_t flags)
{
    struct ces_graph *g = NULL;
    uint32_t send, recv, ready;

    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "send", 64, &send), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "recv", 64, &recv), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "ready", CES_U32, 4, &ready), CES_OK);
    assert_int_equal(ces_graph_add_block(g, kind, reps), CES_OK);
    for (uint32_t r = 0; r < 2; r++) {
        uint32_t p = 1 - r;
        struct ces_op ops[] = {
            {.kind = CES_OP_PRODUCE, .a = {send, r, 0, 64}},
            {.kind = CES_OP_WRITE, .slot = {ready, p, r}, .value = 1, .flags = flags},
            {.kind = CES_OP_WAIT, .cmp = CES_CMP_EQ, .slot = {ready, r, p}, .value = 1,
             .flags = flags},
            {.kind = CES_OP_BATCH},
            {.kind = CES_OP_COPY, .a = {send, r, 0, 32}, .b = {recv, r, 32, 64}},
            {.kind = CES_OP_COPY, .a = {send, r, 32, 64}, .b = {recv, p, 0, 32}},
            {.kind = CES_OP_END},
            {.kind = CES_OP_WRITE, .slot = {ready, p, 2 + r}, .value = 2},
            {.kind = CES_OP_WAIT, .slot = {ready, r, 2 + p}, .value = 2},
            {.kind = CES_OP_CONSUME, .flags = CES_OPF_EXPECT, .a = {recv, r, 0, 32},
             .b = {send, p, 32, 64}},
        };

        for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
            assert_int_equal(ces_graph_add_op(g, r, &ops[i]), CES_OK);
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    return g;
}


static char *lower_text(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t rank,
                        const struct ces_cuda_caps *caps, unsigned flags)
{
    struct ces_cuda_plan *p = NULL;
    char *text = NULL;

    assert_int_equal(ces_cuda_lower(ctx, g, rank, caps, flags, &p), CES_OK);
    assert_int_equal(ces_cuda_plan_format(ctx, g, p, &text), CES_OK);
    ces_cuda_plan_destroy(p);
    return text;
}

/* Rank `rank`'s plan of g (H200, lowering flags, no watchdog words) must
 * read `want`. */
static void expect_lowered(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t rank,
                           unsigned flags, const char *want)
{
    char *text = lower_text(ctx, g, rank, &h200, flags);

    assert_string_equal(text, want);
    ces_free(ctx, text);
}

static void test_eager(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = xchg(ctx, CES_PHASE_EAGER, 1, 0);
    char *t = lower_text(ctx, g, 1, &h200, 0);

    (void)state;
    /* The copies go out as one batch call; the flag that announces them is
     * a later memop call, never inside the unordered batch. */
    assert_string_equal(t, "block 0 eager x1 first 1\n"
                           "s0 produce send[0:64]@1\n"
                           "s0 memops 2 [write32 ready[1]@0 = 1; wait32 ready[0]@1 == 1]\n"
                           "s0 copy_batch 2 [send[0:32]@1 -> recv[32:64]@1, "
                           "send[32:64]@1 -> recv[0:32]@0]\n"
                           "s0 memops 2 [write32 ready[3]@0 = 2; wait32 ready[2]@1 >= 2]\n"
                           "s0 consume recv[0:32]@1 == send[32:64]@0\n");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_capture(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = xchg(ctx, CES_PHASE_EAGER, 1, 0);
    char *t = lower_text(ctx, g, 0, &h200, CES_LOWER_CAPTURE | CES_LOWER_PROGRESS);

    (void)state;
    /* Under capture: one cudaMemcpyAsync per copy, no progress words. */
    assert_string_equal(t, "block 0 eager x1 first 1 capture\n"
                           "s0 produce send[0:64]@0\n"
                           "s0 memops 2 [write32 ready[0]@1 = 1; wait32 ready[1]@0 == 1]\n"
                           "s0 copy 1 [send[0:32]@0 -> recv[32:64]@0]\n"
                           "s0 copy 1 [send[32:64]@0 -> recv[0:32]@1]\n"
                           "s0 memops 2 [write32 ready[2]@1 = 2; wait32 ready[3]@0 >= 2]\n"
                           "s0 consume recv[0:32]@0 == send[32:64]@1\n");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    /* A graph phase is always lowered for capture. */
    g = xchg(ctx, CES_PHASE_GRAPH, 5, 0);
    t = lower_text(ctx, g, 0, &h200, 0);
    assert_non_null(strstr(t, "block 0 graph x5 first 1 capture\n"));
    assert_null(strstr(t, "copy_batch"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_progress(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = xchg(ctx, CES_PHASE_EAGER, 1, 0);
    char *t = lower_text(ctx, g, 0, &h200, CES_LOWER_PROGRESS);

    (void)state;
    /* The stream's last call that waits writes progress; the one before
     * does not (the watchdog reads its slots). */
    assert_string_equal(t, "block 0 eager x1 first 1\n"
                           "s0 produce send[0:64]@0\n"
                           "s0 memops 2 [write32 ready[0]@1 = 1; wait32 ready[1]@0 == 1]\n"
                           "s0 copy_batch 2 [send[0:32]@0 -> recv[32:64]@0, "
                           "send[32:64]@0 -> recv[0:32]@1]\n"
                           "s0 memops 3 [write32 ready[2]@1 = 2; wait32 ready[3]@0 >= 2; "
                           "progress]\n"
                           "s0 consume recv[0:32]@0 == send[32:64]@1\n");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* 2 ranks; each copies 32 bytes to the peer (no batch) in `pieces` copies
 * (1 or 2), writes a[r]@peer = 1 and waits for a[peer] (same) or b[peer]
 * (!same) to reach 1. */
static struct ces_graph *after_copy(struct ces_ctx *ctx, int same, uint32_t pieces)
{
    struct ces_graph *g = NULL;
    uint32_t send, recv, a, b;

    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "send", 64, &send), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "recv", 64, &recv), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "a", CES_U32, 2, &a), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "b", CES_U32, 2, &b), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    for (uint32_t r = 0; r < 2; r++) {
        uint32_t p = 1 - r, len = 32 / pieces;
        struct ces_op ops[] = {
            {.kind = CES_OP_WRITE, .slot = {a, p, r}, .value = 1},
            {.kind = CES_OP_WAIT, .slot = {same ? a : b, r, p}, .value = 1},
        };

        for (uint32_t k = 0; k < pieces; k++) {
            struct ces_op c = {.kind = CES_OP_COPY,
                               .a = {send, r, k * len, (k + 1) * len},
                               .b = {recv, p, k * len, (k + 1) * len}};

            assert_int_equal(ces_graph_add_op(g, r, &c), CES_OK);
        }
        for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
            assert_int_equal(ces_graph_add_op(g, r, &ops[i]), CES_OK);
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    return g;
}

/* Eager, a barrier right behind copies of at least split_wait_bytes
 * between ranks goes out as two calls, its writes, then its waits with the
 * progress write; not below the threshold, not under capture, not the ready
 * barrier (no copies before it), not a run whose wait is on another signal
 * array than its writes (a credit pipeline's announce and credit wait). */
static void test_split_barrier(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = xchg(ctx, CES_PHASE_EAGER, 1, 0);
    struct ces_cuda_caps caps = h200;
    char *t;

    (void)state;
    caps.split_wait_bytes = 32; /* the batch's one copy between ranks */
    t = lower_text(ctx, g, 0, &caps, CES_LOWER_PROGRESS);
    assert_string_equal(t, "block 0 eager x1 first 1\n"
                           "s0 produce send[0:64]@0\n"
                           "s0 memops 2 [write32 ready[0]@1 = 1; wait32 ready[1]@0 == 1]\n"
                           "s0 copy_batch 2 [send[0:32]@0 -> recv[32:64]@0, "
                           "send[32:64]@0 -> recv[0:32]@1]\n"
                           "s0 memops 1 [write32 ready[2]@1 = 2]\n"
                           "s0 memops 2 [wait32 ready[3]@0 >= 2; progress]\n"
                           "s0 consume recv[0:32]@0 == send[32:64]@1\n");
    ces_free(ctx, t);
    caps.split_wait_bytes = 33;
    t = lower_text(ctx, g, 0, &caps, CES_LOWER_PROGRESS);
    assert_non_null(strstr(t, "s0 memops 3 [write32 ready[2]@1 = 2; wait32 ready[3]@0 >= 2; "
                              "progress]\n"));
    ces_free(ctx, t);
    caps.split_wait_bytes = 32;
    t = lower_text(ctx, g, 0, &caps, CES_LOWER_CAPTURE);
    assert_non_null(strstr(t, "s0 memops 2 [write32 ready[2]@1 = 2; wait32 ready[3]@0 >= 2]\n"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    g = after_copy(ctx, 1, 1);
    t = lower_text(ctx, g, 1, &caps, 0);
    assert_string_equal(t, "block 0 eager x1 first 1\n"
                           "s0 copy 1 [send[0:32]@1 -> recv[0:32]@0]\n"
                           "s0 memops 1 [write32 a[1]@0 = 1]\n"
                           "s0 memops 1 [wait32 a[0]@1 >= 1]\n");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    /* copies without memops between them count together */
    g = after_copy(ctx, 1, 2);
    t = lower_text(ctx, g, 1, &caps, 0);
    assert_string_equal(t, "block 0 eager x1 first 1\n"
                           "s0 copy 1 [send[0:16]@1 -> recv[0:16]@0]\n"
                           "s0 copy 1 [send[16:32]@1 -> recv[16:32]@0]\n"
                           "s0 memops 1 [write32 a[1]@0 = 1]\n"
                           "s0 memops 1 [wait32 a[0]@1 >= 1]\n");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    g = after_copy(ctx, 0, 1);
    t = lower_text(ctx, g, 1, &caps, 0);
    assert_non_null(strstr(t, "s0 memops 2 [write32 a[1]@0 = 1; wait32 b[0]@1 >= 1]\n"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* What the split reads: a barrier of u64 flags splits as one of u32 flags
 * (the builders' barriers are u64), and the bytes counted are those of the
 * copies since the stream's last memop run: two copies of 16 bytes with a
 * barrier after each are below 32 bytes each time, and each reaches 16. */
static void test_split_inputs(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nbuffer b 64\n"
                                                   "signal f u64 2\nphase eager x1\n"
                                                   "r* over p : copy b[0:32] -> b[32:64]@$p\n"
                                                   "r* over p : write f[$r]@$p = 1\n"
                                                   "r* over p : wait f[$p] >= 1\n");
    struct ces_cuda_caps caps = h200;
    char *t;

    (void)state;
    caps.split_wait_bytes = 32;
    t = lower_text(ctx, g, 0, &caps, 0);
    assert_string_equal(t, "block 0 eager x1 first 1\n"
                           "s0 copy 1 [b[0:32]@0 -> b[32:64]@1]\n"
                           "s0 memops 1 [write64 f[0]@1 = 1]\n"
                           "s0 memops 1 [wait64 f[1]@0 >= 1]\n");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nbuffer b 64\nsignal f u32 2\n"
                                 "phase eager x1\n"
                                 "r* over p : copy b[0:16] -> b[32:48]@$p\n"
                                 "r* over p : write f[$r]@$p = 1\n"
                                 "r* over p : wait f[$p] >= 1\n"
                                 "r* over p : copy b[16:32] -> b[48:64]@$p\n"
                                 "r* over p : write f[$r]@$p = 2\n"
                                 "r* over p : wait f[$p] >= 2\n");
    t = lower_text(ctx, g, 1, &caps, 0);
    assert_string_equal(t, "block 0 eager x1 first 1\n"
                           "s0 copy 1 [b[0:16]@1 -> b[32:48]@0]\n"
                           "s0 memops 2 [write32 f[1]@0 = 1; wait32 f[0]@1 >= 1]\n"
                           "s0 copy 1 [b[16:32]@1 -> b[48:64]@0]\n"
                           "s0 memops 2 [write32 f[1]@0 = 2; wait32 f[0]@1 >= 2]\n");
    ces_free(ctx, t);
    caps.split_wait_bytes = 16;
    t = lower_text(ctx, g, 1, &caps, 0);
    assert_string_equal(t, "block 0 eager x1 first 1\n"
                           "s0 copy 1 [b[0:16]@1 -> b[32:48]@0]\n"
                           "s0 memops 1 [write32 f[1]@0 = 1]\n"
                           "s0 memops 1 [wait32 f[0]@1 >= 1]\n"
                           "s0 copy 1 [b[16:32]@1 -> b[48:64]@0]\n"
                           "s0 memops 1 [write32 f[1]@0 = 2]\n"
                           "s0 memops 1 [wait32 f[0]@1 >= 2]\n");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Captured with the watchdog's writes: every memop call that waits starts
 * with enter and ends with exit; a call that only writes gets neither; an
 * eager block keeps its progress writes; max_memops 2 leaves no room. */
static void test_flight(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = xchg(ctx, CES_PHASE_EAGER, 1, 0);
    char *t = lower_text(ctx, g, 0, &h200, CES_LOWER_CAPTURE | CES_LOWER_FLIGHT);
    struct ces_cuda_caps two = h200;
    struct ces_cuda_plan *p = NULL;

    (void)state;
    assert_string_equal(t, "block 0 eager x1 first 1 capture\n"
                           "s0 produce send[0:64]@0\n"
                           "s0 memops 4 [enter; write32 ready[0]@1 = 1; wait32 ready[1]@0 == 1; "
                           "exit]\n"
                           "s0 copy 1 [send[0:32]@0 -> recv[32:64]@0]\n"
                           "s0 copy 1 [send[32:64]@0 -> recv[0:32]@1]\n"
                           "s0 memops 4 [enter; write32 ready[2]@1 = 2; wait32 ready[3]@0 >= 2; "
                           "exit]\n"
                           "s0 consume recv[0:32]@0 == send[32:64]@1\n");
    ces_free(ctx, t);
    /* eager: flight asks for nothing, progress as before */
    t = lower_text(ctx, g, 0, &h200, CES_LOWER_PROGRESS | CES_LOWER_FLIGHT);
    assert_null(strstr(t, "enter"));
    assert_non_null(strstr(t, "wait32 ready[3]@0 >= 2; progress]\n"));
    ces_free(ctx, t);
    two.max_memops = 2;
    assert_int_equal(ces_cuda_lower(ctx, g, 0, &two, CES_LOWER_CAPTURE | CES_LOWER_FLIGHT, &p),
                     CES_ERR_INVALID);
    assert_null(p);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "max_memops must be 3..255 or 0 with enter/exit writes");
    ces_graph_destroy(g);
    /* a graph phase is captured, so it gets enter/exit under flight */
    g = xchg(ctx, CES_PHASE_GRAPH, 3, 0);
    t = lower_text(ctx, g, 1, &h200, CES_LOWER_PROGRESS | CES_LOWER_FLIGHT);
    assert_non_null(strstr(t, "block 0 graph x3 first 1 capture\n"));
    assert_non_null(strstr(t, "s0 memops 4 [enter; write32 ready[1]@0 = 1; "
                              "wait32 ready[0]@1 == 1; exit]\n"));
    assert_null(strstr(t, "progress"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* One rank, n writes (and waits when `waits`) on one stream. */
static struct ces_graph *many(struct ces_ctx *ctx, uint32_t n, int waits)
{
    struct ces_graph *g = NULL;
    uint32_t sig;

    assert_int_equal(ces_graph_create(ctx, 1, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U64, 1, &sig), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    for (uint32_t i = 0; i < n; i++) {
        struct ces_op op = {.kind = waits ? CES_OP_WAIT : CES_OP_WRITE,
                            .slot = {sig, 0, 0},
                            .value = i};

        assert_int_equal(ces_graph_add_op(g, 0, &op), CES_OK);
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    return g;
}

static void check_splits(struct ces_ctx *ctx, uint32_t n, int waits, unsigned flags,
                         const uint32_t *want, size_t nwant)
{
    struct ces_graph *g = many(ctx, n, waits);
    struct ces_cuda_plan *p = NULL;
    const struct ces_cuda_pblock *b;

    assert_int_equal(ces_cuda_lower(ctx, g, 0, &h200, flags, &p), CES_OK);
    b = &p->blocks[0];
    assert_int_equal(b->calls.len, nwant);
    for (size_t i = 0; i < nwant; i++) {
        const struct ces_cuda_call *c = &CES_VEC_AT(&b->calls, struct ces_cuda_call, i);

        assert_int_equal(c->kind, CES_CALL_MEMOPS);
        assert_int_equal(c->count, want[i]);
        assert_true(c->count <= CES_CUDA_MAX_MEMOPS);
    }
    ces_cuda_plan_destroy(p);
    ces_graph_destroy(g);
}

/* One stream waits in ten calls (a copy after each), another in two:
 * progress writes end the first stream's 8th and 10th and the other's
 * 2nd; the memops stay in call order without gaps. */
static void test_progress_span(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_cuda_plan *p = NULL;
    const struct ces_cuda_pblock *b;
    uint32_t sig, buf, next = 0, progress[2][16], nw[2] = {0, 0};

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 1, 2, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U64, 2, &sig), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "b", 64, &buf), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    for (uint32_t i = 0; i < 10; i++) {
        struct ces_op w = {.kind = CES_OP_WAIT, .slot = {sig, 0, 0}, .value = i};
        struct ces_op c = {.kind = CES_OP_COPY,
                           .a = {buf, 0, 0, 32},
                           .b = {buf, 0, 32, 64}};

        assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, &c), CES_OK);
        if (i == 3 || i == 6) {
            w.stream = 1;
            w.slot.idx = 1;
            c.stream = 1;
            assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
            assert_int_equal(ces_graph_add_op(g, 0, &c), CES_OK);
        }
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_cuda_lower(ctx, g, 0, &h200, CES_LOWER_PROGRESS, &p), CES_OK);
    b = &p->blocks[0];
    for (size_t i = 0; i < b->calls.len; i++) {
        const struct ces_cuda_call *c = &CES_VEC_AT(&b->calls, struct ces_cuda_call, i);

        if (c->kind != CES_CALL_MEMOPS)
            continue;
        assert_int_equal(c->first, next);
        next += c->count;
        assert_true(c->waits);
        progress[c->stream][nw[c->stream]++] =
            CES_VEC_AT(&b->memops, struct ces_cuda_memop, c->first + c->count - 1).kind ==
            CES_MEMOP_PROGRESS;
    }
    assert_int_equal(next, b->memops.len);
    assert_int_equal(nw[0], 10);
    assert_int_equal(nw[1], 2);
    for (uint32_t k = 0; k < 10; k++)
        assert_int_equal(progress[0][k], k == 7 || k == 9);
    assert_int_equal(progress[1][0], 0);
    assert_int_equal(progress[1][1], 1);
    assert_int_equal(CES_PROGRESS_SPAN, 8);
    ces_cuda_plan_destroy(p);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_splits(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    static const uint32_t w1[] = {1}, w255[] = {255}, w256[] = {255, 1}, w510[] = {255, 255},
                          w511[] = {255, 255, 1}, p255[] = {254, 2}, p254[] = {255},
                          f255[] = {255, 4}, f253[] = {255}, f254[] = {255, 3};

    (void)state;
    check_splits(ctx, 1, 0, 0, w1, 1);
    check_splits(ctx, 255, 0, 0, w255, 1);
    check_splits(ctx, 256, 0, 0, w256, 2);
    check_splits(ctx, 510, 0, 0, w510, 2);
    check_splits(ctx, 511, 0, 0, w511, 3);
    /* With progress words: room for 254 waits + 1 progress write per call;
     * only the last call keeps its progress write. */
    check_splits(ctx, 255, 1, CES_LOWER_PROGRESS, p255, 2);
    check_splits(ctx, 254, 1, CES_LOWER_PROGRESS, p254, 1);
    /* Writes only: nothing to report, so no progress write. */
    check_splits(ctx, 255, 0, CES_LOWER_PROGRESS, w255, 1);
    /* Captured with enter/exit: 253 waits + 2 writes per call. */
    check_splits(ctx, 255, 1, CES_LOWER_CAPTURE | CES_LOWER_FLIGHT, f255, 2);
    check_splits(ctx, 253, 1, CES_LOWER_CAPTURE | CES_LOWER_FLIGHT, f253, 1);
    check_splits(ctx, 254, 1, CES_LOWER_CAPTURE | CES_LOWER_FLIGHT, f254, 2);
    check_splits(ctx, 255, 0, CES_LOWER_CAPTURE | CES_LOWER_FLIGHT, w255, 1);
    ces_test_ctx_end(ctx, &st);
}

static void test_multicast_and_fence(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    uint32_t sig;
    struct ces_op w = {.kind = CES_OP_WRITE, .value = 7};
    struct ces_op f = {.kind = CES_OP_FENCE};
    char *t;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 4, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "go", CES_U32, 4, &sig), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    w.slot = (struct ces_slot){sig, CES_RANK_ALL, 2};
    assert_int_equal(ces_graph_add_op(g, 2, &f), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 2, &w), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    t = lower_text(ctx, g, 2, &h200, 0);
    assert_string_equal(t, "block 0 eager x1 first 1\n"
                           "s0 memops 5 [barrier; write32 go[2]@0 = 7; write32 go[2]@1 = 7; "
                           "write32 go[2]@2 = 7; write32 go[2]@3 = 7]\n");
    ces_free(ctx, t);
    t = lower_text(ctx, g, 0, &h200, 0);
    assert_string_equal(t, "block 0 eager x1 first 1\n");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_refusals(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_cuda_plan *p = NULL;
    struct ces_op fl = {.kind = CES_OP_FLUSH};
    static const struct ces_cuda_caps flushy = {1, 1, 0, 0}, no64 = {0, 0, 0, 0},
                                      bad = {0, 1, 256, 0}, one = {1, 1, 1, 0},
                                      two = {1, 1, 2, 0};
    char *t;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 1, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &fl), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_cuda_lower(ctx, g, 0, &h200, 0, &p), CES_ERR_UNSUPPORTED);
    assert_null(p);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r0.s0#0: flush: this device cannot flush remote writes "
                        "(CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES is 0)");
    t = lower_text(ctx, g, 0, &flushy, 0);
    assert_string_equal(t, "block 0 eager x1 first 1\ns0 memops 1 [flush]\n");
    ces_free(ctx, t);
    assert_int_equal(ces_cuda_lower(ctx, g, 1, &h200, 0, &p), CES_ERR_INVALID);
    assert_int_equal(ces_cuda_lower(ctx, g, 0, &bad, 0, &p), CES_ERR_INVALID);
    /* one memop a call leaves no room for a progress write: refused; two
     * are taken */
    assert_int_equal(ces_cuda_lower(ctx, g, 0, &one, 0, &p), CES_ERR_INVALID);
    assert_null(p);
    assert_string_equal(ces_ctx_last_error(ctx), "max_memops must be 2..255 or 0");
    t = lower_text(ctx, g, 0, &two, 0);
    assert_string_equal(t, "block 0 eager x1 first 1\ns0 memops 1 [flush]\n");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    /* after three graph replays of two fences, the flush is #6, as the
     * checker numbers it (every replay of the earlier blocks counted) */
    assert_int_equal(ces_graph_create(ctx, 1, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 3), CES_OK);
    fl.kind = CES_OP_FENCE;
    assert_int_equal(ces_graph_add_op(g, 0, &fl), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &fl), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    fl.kind = CES_OP_FLUSH;
    assert_int_equal(ces_graph_add_op(g, 0, &fl), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_cuda_lower(ctx, g, 0, &h200, 0, &p), CES_ERR_UNSUPPORTED);
    assert_null(p);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r0.s0#6: flush: this device cannot flush remote writes "
                        "(CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES is 0)");
    /* an op added after the validation: a batch left open */
    fl.kind = CES_OP_BATCH;
    assert_int_equal(ces_graph_add_op(g, 0, &fl), CES_OK);
    assert_int_equal(ces_cuda_lower(ctx, g, 0, &flushy, 0, &p), CES_ERR_SEMANTIC);
    assert_null(p);
    assert_non_null(strstr(ces_ctx_last_error(ctx), "lower: the graph does not validate: "));
    assert_non_null(strstr(ces_ctx_last_error(ctx), "'batch' without 'end'"));
    ces_graph_destroy(g);

    g = many(ctx, 3, 0);
    assert_int_equal(ces_cuda_lower(ctx, g, 0, &no64, 0, &p), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r0.s0#0: write f[0] = 0: u64 signals need 64-bit stream memory "
                        "operations, which this device does not support");
    ces_graph_destroy(g);

    /* A wait whose value came from $i, frozen by a graph phase: replays would
     * pass on stale flags, so it is refused; eager it is fine. */
    g = xchg(ctx, CES_PHASE_GRAPH, 3, CES_OPF_FROZEN);
    assert_int_equal(ces_cuda_lower(ctx, g, 1, &h200, 0, &p), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r1.s0#2: wait ready[0] == 1: the wait reads $i (in its slot or its "
                        "value) but graph capture freezes it, so replays would pass on stale "
                        "flags; use a graph-safe protocol: pull (every captured collective's "
                        "but the barrier's) or credit (the barrier's)");
    ces_graph_destroy(g);
    /* an eager block with the same waits lowers as written, and is refused
     * only when its caller's stream is captured */
    g = xchg(ctx, CES_PHASE_EAGER, 1, CES_OPF_FROZEN);
    t = lower_text(ctx, g, 1, &h200, 0);
    assert_non_null(strstr(t, "s0 memops 2 [write32 ready[1]@0 = 1; wait32 ready[0]@1 == 1]\n"));
    ces_free(ctx, t);
    assert_int_equal(ces_cuda_lower(ctx, g, 1, &h200, CES_LOWER_CAPTURE, &p), CES_ERR_UNSUPPORTED);
    assert_null(p);
    ces_graph_destroy(g);
    /* $i in the slot alone (a value of 1): the message must not say that
     * the awaited value depends on $i */
    g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nsignal f u32 2\nphase graph x2\n"
                        "r* over p : write f[$i % 2]@$p = 1\n"
                        "r* over p : wait f[$i % 2] >= 1\n"
                        "r* over p : write f[$i % 2] = 0\n");
    assert_int_equal(ces_cuda_lower(ctx, g, 0, &h200, 0, &p), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r0.s0#1 (line 6:13): wait f[1] >= 1: the wait reads $i (in its slot or "
                        "its value) but graph capture freezes it, so replays would pass on stale "
                        "flags; use a graph-safe protocol: pull (every captured collective's "
                        "but the barrier's) or credit (the barrier's)");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* CUDA's 64-bit `>=` wait is cyclic, (int64_t)(cur - v) >= 0, where the
 * checker compares u64 values as plain numbers: the two agree while every
 * value is below 2^63.  A `>=` wait on a larger value, or such a value
 * written into a signal that a `>=` wait reads, is refused, on every rank
 * alike (rank 0 only writes): written 2^64-1, a wait >= 1 that the check
 * passes would block for ever on the GPU. */
static void test_u64_cyclic(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_cuda_plan *p = NULL;
    const uint64_t big = UINT64_C(1) << 63;
    struct ces_graph *g;

    (void)state;
    g = ces_test_u64_pair(ctx, UINT64_MAX, CES_CMP_GEQ, 1);
    for (uint32_t r = 0; r < 2; r++) {
        assert_int_equal(ces_cuda_lower(ctx, g, r, &h200, 0, &p), CES_ERR_UNSUPPORTED);
        assert_null(p);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "r0.s0#0: write f[0]@1 = 18446744073709551615: a u64 value above "
                            "2^63-1 in a signal that a >= wait reads: CUDA compares 64-bit values "
                            "cyclically, (int64_t)(cur - v) >= 0, where the check compares them "
                            "as plain numbers, so the wait could pass or block otherwise than "
                            "checked; keep u64 values below 2^63");
    }
    ces_graph_destroy(g);
    g = ces_test_u64_pair(ctx, 1, CES_CMP_GEQ, big);
    assert_int_equal(ces_cuda_lower(ctx, g, 0, &h200, 0, &p), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "r1.s0#0: wait f[0] >= 9223372036854775808: a u64 value above "
                        "2^63-1 in a signal that a >= wait reads: CUDA compares 64-bit values "
                        "cyclically, (int64_t)(cur - v) >= 0, where the check compares them "
                        "as plain numbers, so the wait could pass or block otherwise than "
                        "checked; keep u64 values below 2^63");
    ces_graph_destroy(g);
    /* 2^63-1 compares alike; == is exact on both; so are large values that
     * only == waits read */
    g = ces_test_u64_pair(ctx, big - 1, CES_CMP_GEQ, big - 1);
    assert_int_equal(ces_cuda_lower(ctx, g, 1, &h200, 0, &p), CES_OK);
    ces_cuda_plan_destroy(p);
    ces_graph_destroy(g);
    g = ces_test_u64_pair(ctx, UINT64_MAX, CES_CMP_EQ, UINT64_MAX);
    assert_int_equal(ces_cuda_lower(ctx, g, 1, &h200, 0, &p), CES_OK);
    ces_cuda_plan_destroy(p);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* ces_graph_add_op keeps, per signal, whether a >= wait reads it and
 * whether a write or a >= wait of it holds a value above 2^63-1, and the
 * lowering looks at the ops only where one signal is both.  Per signal:
 * 2^64-1 written into h, which only == waits read, beside f, which a >=
 * wait reads at 1, lowers (and so does an == wait of 2^64-1 on f); the
 * >= wait added first (test_u64_cyclic adds the write first), a later
 * block's write @* of 2^64-1 into f (one write per rank) is refused on
 * every rank at its first write, to rank 0, #K counted across the blocks
 * (3 replays of 3 ops, then the write of 1). */
static void test_u64_cyclic_kept(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_cuda_plan *p = NULL;
    struct ces_graph *g = NULL;
    uint32_t f, h;
    struct ces_op small = {.kind = CES_OP_WRITE, .value = 1};
    struct ces_op geq = {.kind = CES_OP_WAIT, .cmp = CES_CMP_GEQ, .value = 1};
    struct ces_op big = {.kind = CES_OP_WRITE, .value = UINT64_MAX};
    struct ces_op eq = {.kind = CES_OP_WAIT, .cmp = CES_CMP_EQ, .value = UINT64_MAX};

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U64, 1, &f), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "h", CES_U64, 1, &h), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 3), CES_OK);
    small.slot = geq.slot = eq.slot = (struct ces_slot){f, 1, 0};
    big.slot = (struct ces_slot){h, 1, 0};
    assert_int_equal(ces_graph_add_op(g, 0, &small), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &big), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 1, &geq), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 1, &eq), CES_OK);
    eq.slot = big.slot;
    assert_int_equal(ces_graph_add_op(g, 1, &eq), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    for (uint32_t r = 0; r < 2; r++) {
        assert_int_equal(ces_cuda_lower(ctx, g, r, &h200, 0, &p), CES_OK);
        ces_cuda_plan_destroy(p);
    }
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    big.slot = (struct ces_slot){f, CES_RANK_ALL, 0};
    assert_int_equal(ces_graph_add_op(g, 1, &small), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 1, &big), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    for (uint32_t r = 0; r < 2; r++) {
        assert_int_equal(ces_cuda_lower(ctx, g, r, &h200, 0, &p), CES_ERR_UNSUPPORTED);
        assert_null(p);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "r1.s0#10: write f[0]@0 = 18446744073709551615: a u64 value above "
                            "2^63-1 in a signal that a >= wait reads: CUDA compares 64-bit values "
                            "cyclically, (int64_t)(cur - v) >= 0, where the check compares them "
                            "as plain numbers, so the wait could pass or block otherwise than "
                            "checked; keep u64 values below 2^63");
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Two streams on one rank with events; interleaved memops merge per stream
 * with independent queues and do not merge across another stream's op with
 * shared queues (connections 1). */
static struct ces_graph *two_streams(struct ces_ctx *ctx, uint32_t connections)
{
    struct ces_graph *g = NULL;
    uint32_t sig, ev, buf;
    struct ces_op ops[] = {
        {.kind = CES_OP_WRITE, .stream = 0, .value = 1},
        {.kind = CES_OP_WRITE, .stream = 1, .value = 2},
        {.kind = CES_OP_WRITE, .stream = 0, .value = 3},
        {.kind = CES_OP_COPY, .stream = 0},
        {.kind = CES_OP_RECORD, .stream = 0},
        {.kind = CES_OP_AWAIT, .stream = 1},
        {.kind = CES_OP_WAIT, .stream = 1, .value = 3},
    };

    assert_int_equal(ces_graph_create(ctx, 1, 2, &g), CES_OK);
    assert_int_equal(ces_graph_set_connections(g, connections), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "b", 16, &buf), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "s", CES_U32, 2, &sig), CES_OK);
    assert_int_equal(ces_graph_add_event(g, "e", &ev), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        ops[i].slot = (struct ces_slot){sig, 0, (uint32_t)ops[i].stream};
        ops[i].a = (struct ces_region){buf, 0, 0, 8};
        ops[i].b = (struct ces_region){buf, 0, 8, 16};
        ops[i].event = ev;
        if (ops[i].kind == CES_OP_RECORD || ops[i].kind == CES_OP_AWAIT ||
            ops[i].kind == CES_OP_WRITE || ops[i].kind == CES_OP_WAIT) {
            ops[i].a = (struct ces_region){0, 0, 0, 0};
            ops[i].b = ops[i].a;
        }
        if (ops[i].kind == CES_OP_COPY || ops[i].kind == CES_OP_RECORD ||
            ops[i].kind == CES_OP_AWAIT)
            ops[i].slot = (struct ces_slot){0, 0, 0};
        if (ops[i].kind != CES_OP_RECORD && ops[i].kind != CES_OP_AWAIT)
            ops[i].event = 0;
        assert_int_equal(ces_graph_add_op(g, 0, &ops[i]), CES_OK);
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    return g;
}

static void test_streams(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = two_streams(ctx, 0);
    char *t = lower_text(ctx, g, 0, &h200, 0);

    (void)state;
    assert_string_equal(t, "block 0 eager x1 first 1\n"
                           "s1 fork\n"
                           "s0 memops 2 [write32 s[0]@0 = 1; write32 s[0]@0 = 3]\n"
                           "s0 copy 1 [b[0:8]@0 -> b[8:16]@0]\n"
                           "s0 record e\n"
                           "s1 memops 1 [write32 s[1]@0 = 2]\n"
                           "s1 await e\n"
                           "s1 memops 1 [wait32 s[1]@0 >= 3]\n"
                           "s1 join\n");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    /* shared queues, or any (`connections any`): in line order */
    for (int any = 0; any < 2; any++) {
        g = two_streams(ctx, any ? CES_CONNECTIONS_ANY : 1);
        t = lower_text(ctx, g, 0, &h200, 0);
        assert_string_equal(t, "block 0 eager x1 first 1\n"
                               "s1 fork\n"
                               "s0 memops 1 [write32 s[0]@0 = 1]\n"
                               "s1 memops 1 [write32 s[1]@0 = 2]\n"
                               "s0 memops 1 [write32 s[0]@0 = 3]\n"
                               "s0 copy 1 [b[0:8]@0 -> b[8:16]@0]\n"
                               "s0 record e\n"
                               "s1 await e\n"
                               "s1 memops 1 [wait32 s[1]@0 >= 3]\n"
                               "s1 join\n");
        ces_free(ctx, t);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* A memop carries its op's position as the checker numbers it, rR.sS#K
 * with K counting the stream's ops in every replay of the earlier blocks
 * (for a graph phase: in its first replay), which the watchdog prints for
 * a blocked wait: a hang in the second block of a launch must not be
 * reported at the position of an op of the first. */
static void test_positions(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_cuda_plan *p = NULL;
    uint32_t f;
    const struct ces_cuda_pblock *b1;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 1, 2, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U32, 4, &f), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 3), CES_OK);
    {
        struct ces_op ops[] = {
            {.kind = CES_OP_WRITE, .slot = {f, 0, 0}, .value = 1},
            {.kind = CES_OP_WAIT, .slot = {f, 0, 0}, .value = 1},
            {.kind = CES_OP_WRITE, .stream = 1, .slot = {f, 0, 1}, .value = 1},
        };

        for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
            assert_int_equal(ces_graph_add_op(g, 0, &ops[i]), CES_OK);
    }
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    {
        struct ces_op ops[] = {
            {.kind = CES_OP_WAIT, .stream = 1, .slot = {f, 0, 1}, .value = 1},
            {.kind = CES_OP_WRITE, .slot = {f, 0, 2}, .value = 1},
            {.kind = CES_OP_WAIT, .slot = {f, 0, 2}, .value = 1},
        };

        for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
            assert_int_equal(ces_graph_add_op(g, 0, &ops[i]), CES_OK);
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_cuda_lower(ctx, g, 0, &h200, 0, &p), CES_OK);
    assert_int_equal(p->blocks[0].memops.len, 3);
    assert_int_equal(CES_VEC_AT(&p->blocks[0].memops, struct ces_cuda_memop, 1).spos, 1);
    b1 = &p->blocks[1];
    assert_int_equal(b1->memops.len, 3);
    /* s0: two ops in each of 3 replays before; s1: one */
    assert_int_equal(CES_VEC_AT(&b1->memops, struct ces_cuda_memop, 0).spos, 6);
    assert_int_equal(CES_VEC_AT(&b1->memops, struct ces_cuda_memop, 1).spos, 7);
    assert_int_equal(CES_VEC_AT(&b1->memops, struct ces_cuda_memop, 2).spos, 3);
    ces_cuda_plan_destroy(p);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Every builder, every protocol it supports, 2..5 ranks, every rank: the
 * lowering keeps every op (copies, writes, waits, fences),
 * never puts more than 255 ops in a memop call, batches copies only when
 * eager, puts progress writes only in eager plans that wait (on the last
 * call that waits of each stream, and on at least every
 * CES_PROGRESS_SPAN-th before it), and frames
 * every captured call that waits (and only such a call) by enter ... exit. */
static void test_builders(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    static const uint32_t colls[] = {CES_COLL_ALLTOALL, CES_COLL_ALLGATHER, CES_COLL_GATHER,
                                     CES_COLL_SCATTER, CES_COLL_BROADCAST, CES_COLL_SENDRECV,
                                     CES_COLL_BARRIER};
    unsigned plans = 0;

    (void)state;
    for (size_t ci = 0; ci < sizeof(colls) / sizeof(colls[0]); ci++) {
        for (uint32_t proto = 0; proto < CES_PROTO_COUNT; proto++) {
            for (uint32_t phase = 0; phase < 2; phase++) {
                for (uint32_t n = 2; n <= 5; n++) {
                    struct ces_coll_params p;
                    struct ces_graph *g = NULL;

                    ces_coll_params_init(&p, colls[ci]);
                    p.proto = proto;
                    p.phase = phase;
                    p.ranks = n;
                    p.bytes = 60 * 64;
                    p.iterations = 2;
                    if (ces_coll_build(ctx, &p, &g) != CES_OK)
                        continue; /* a combination the builder refuses */
                    for (uint32_t r = 0; r < n; r++) {
                        struct ces_cuda_plan *pl = NULL;
                        uint64_t want_copies = 0, want_memops = 0, got_copies = 0, got_memops = 0;

                        assert_int_equal(ces_cuda_lower(ctx, g, r, &h200,
                                                        CES_LOWER_PROGRESS | CES_LOWER_FLIGHT,
                                                        &pl),
                                         CES_OK);
                        for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
                            uint32_t nops = 0;
                            const struct ces_op *ops = ces_graph_ops(g, b, r, &nops);
                            const struct ces_cuda_pblock *blk = &pl->blocks[b];
                            /* eager, per stream: calls that wait since the
                             * last progress write; -1: none waits */
                            int since[CES_MAX_STREAMS];

                            for (uint32_t s = 0; s < CES_MAX_STREAMS; s++)
                                since[s] = -1;
                            for (uint32_t i = 0; i < nops; i++) {
                                want_copies += ops[i].kind == CES_OP_COPY;
                                want_memops += ops[i].kind == CES_OP_WRITE ||
                                               ops[i].kind == CES_OP_WAIT ||
                                               ops[i].kind == CES_OP_FENCE;
                            }
                            for (size_t i = 0; i < blk->calls.len; i++) {
                                const struct ces_cuda_call *c =
                                    &CES_VEC_AT(&blk->calls, struct ces_cuda_call, i);

                                /* a captured call that waits is framed */
                                if (c->kind == CES_CALL_MEMOPS && blk->capture && c->waits) {
                                    assert_int_equal(CES_VEC_AT(&blk->memops,
                                                                struct ces_cuda_memop, c->first)
                                                         .kind,
                                                     CES_MEMOP_ENTER);
                                    assert_int_equal(CES_VEC_AT(&blk->memops,
                                                                struct ces_cuda_memop,
                                                                c->first + c->count - 1)
                                                         .kind,
                                                     CES_MEMOP_EXIT);
                                }
                                if (c->kind == CES_CALL_COPY || c->kind == CES_CALL_COPY_BATCH)
                                    got_copies += c->count;
                                assert_false(blk->capture && c->kind == CES_CALL_COPY_BATCH);
                                if (c->kind != CES_CALL_MEMOPS)
                                    continue;
                                assert_true(c->count >= 1 && c->count <= CES_CUDA_MAX_MEMOPS);
                                if (!blk->capture && c->waits) {
                                    since[c->stream] =
                                        CES_VEC_AT(&blk->memops, struct ces_cuda_memop,
                                                   c->first + c->count - 1)
                                                    .kind == CES_MEMOP_PROGRESS
                                            ? 0
                                            : since[c->stream] < 0 ? 1 : since[c->stream] + 1;
                                    assert_true(since[c->stream] < (int)CES_PROGRESS_SPAN);
                                }
                                for (uint32_t k = 0; k < c->count; k++) {
                                    uint8_t kind = CES_VEC_AT(&blk->memops, struct ces_cuda_memop,
                                                              c->first + k).kind;

                                    if (kind == CES_MEMOP_PROGRESS) {
                                        assert_false(blk->capture);
                                        assert_true(c->waits);
                                        assert_int_equal(k, c->count - 1);
                                    } else if (kind == CES_MEMOP_ENTER) {
                                        assert_true(blk->capture && c->waits);
                                        assert_int_equal(k, 0);
                                    } else if (kind == CES_MEMOP_EXIT) {
                                        assert_true(blk->capture && c->waits);
                                        assert_int_equal(k, c->count - 1);
                                    } else {
                                        got_memops++;
                                    }
                                }
                            }
                            /* the last call that waits of each stream writes progress */
                            for (uint32_t s = 0; s < CES_MAX_STREAMS; s++)
                                assert_true(since[s] <= 0);
                        }
                        assert_int_equal(got_copies, want_copies);
                        assert_int_equal(got_memops, want_memops);
                        ces_cuda_plan_destroy(pl);
                        plans++;
                    }
                    ces_graph_destroy(g);
                }
            }
        }
    }
    assert_true(plans > 100);
    ces_test_ctx_end(ctx, &st);
}

static void declare(struct ces_p2p_table *t, uint32_t r, uint32_t peer, int send, uint64_t off,
                    uint64_t bytes)
{
    uint64_t i = ++t->d[r][0].bytes;

    t->d[r][i] = (struct ces_p2p_desc){peer, (uint32_t)send, off, bytes};
}

/* The graph of ncalls group calls in a row over n ranks of `stride` bytes,
 * the staged pairs' counts advancing after each; verdict of the checker,
 * whose streams pass the calls' boundaries apart, as the backend issues
 * eager groups (neither forked nor joined: CES_CHECK_UNLINKED). */
static uint32_t calls_verdict(struct ces_ctx *ctx, uint32_t n,
                              const struct ces_p2p_table *const *calls, uint32_t ncalls,
                              struct ces_p2p_stages *st, uint64_t stride)
{
    struct ces_graph *g = NULL;
    uint32_t v;

    assert_int_equal(ces_cuda_group_graph(ctx, n, stride, calls[0], 1, st, &g), CES_OK);
    ces_cuda_group_count(calls[0], st, n);
    for (uint32_t k = 1; k < ncalls; k++) {
        assert_int_equal(ces_cuda_group_add(ctx, g, calls[k], k + 1, st), CES_OK);
        ces_cuda_group_count(calls[k], st, n);
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    assert_int_equal(ces_graph_nblocks(g), ncalls);
    v = ces_test_verdict_flags(ctx, g, CES_CHECK_UNLINKED);
    ces_graph_destroy(g);
    return v;
}

/* Point-to-point groups: a ring and all pairs of 3 ranks, proved free of
 * deadlock, hang, race and mismatch by the checker for every interleaving,
 * lowered with the flags after the copies (pushed: each flag in its
 * waiter's memory at slot writer); the ring of CES_P2P_POLLED_MIN-byte
 * messages with polled flags (in the writer's memory at slot n + waiter);
 * calls in a row mixing both rings with one-way messages written in place
 * (pushed at any size) and with a message both ways; unmatched
 * declarations refused; groups of 8 ranks and 64 declarations a rank taken,
 * more refused. */
static void test_group(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_p2p_table *t = calloc(1, sizeof(*t));
    struct ces_graph *g = NULL;
    char *text;

    (void)state;
    for (uint32_t r = 0; r < 3; r++) {
        declare(t, r, (r + 1) % 3, 1, 0, 96);
        declare(t, r, (r + 2) % 3, 0, 128, 96);
    }
    assert_int_equal(ces_cuda_group_graph(ctx, 3, 4096, t, 7, NULL, &g), CES_OK);
    assert_int_equal(ces_test_verdict(ctx, g), CES_V_OK);
    expect_lowered(ctx, g, 1, CES_LOWER_UNLINKED, "block 0 eager x1 first 1\n"
                              "s0 produce mem[0:96]@1\n"
                              "s0 memops 2 [write64 posted[1]@0 = 7; wait64 posted[2]@1 >= 7]\n"
                              "s0 copy 1 [mem[0:96]@1 -> mem[128:224]@2]\n"
                              "s0 memops 2 [write64 done[1]@2 = 7; wait64 done[0]@1 >= 7]\n"
                              "s0 consume mem[128:224]@1 == mem[0:96]@0\n");
    ces_graph_destroy(g);
    {
        const uint64_t M = CES_P2P_POLLED_MIN;
        struct ces_p2p_table *big = calloc(1, sizeof(*big));
        struct ces_p2p_table *way01 = calloc(1, sizeof(*way01)), *way10 = calloc(1, sizeof(*way10));
        struct ces_p2p_table *both = calloc(1, sizeof(*both));
        const struct ces_p2p_table *calls[] = {t, big, way01, big, t, way10, both, way01, both};

        for (uint32_t r = 0; r < 3; r++) {
            declare(big, r, (r + 1) % 3, 1, 0, M);
            declare(big, r, (r + 2) % 3, 0, 2 * M, M);
        }
        assert_int_equal(ces_cuda_group_graph(ctx, 3, 4 * M, big, 7, NULL, &g), CES_OK);
        expect_lowered(ctx, g, 1, CES_LOWER_UNLINKED, "block 0 eager x1 first 1\n"
                                  "s0 produce mem[0:8388608]@1\n"
                                  "s0 memops 2 [write64 posted[3]@1 = 7; wait64 posted[4]@2 >= 7]\n"
                                  "s0 copy 1 [mem[0:8388608]@1 -> mem[16777216:25165824]@2]\n"
                                  "s0 memops 2 [write64 done[5]@1 = 7; wait64 done[4]@0 >= 7]\n"
                                  "s0 consume mem[16777216:25165824]@1 == mem[0:8388608]@0\n");
        ces_graph_destroy(g);
        declare(way01, 0, 1, 1, 0, M);
        declare(way01, 1, 0, 0, 2 * M, M);
        declare(way10, 1, 0, 1, 0, 96);
        declare(way10, 0, 1, 0, 128, 96);
        declare(both, 0, 1, 1, 0, M);
        declare(both, 0, 1, 0, 2 * M, M);
        declare(both, 1, 0, 1, 0, M);
        declare(both, 1, 0, 0, 2 * M, M);
        assert_int_equal(calls_verdict(ctx, 3, calls, 9, NULL, 4 * M), CES_V_OK);
        assert_int_equal(ces_cuda_group_graph(ctx, 3, 4 * M, way01, 2, NULL, &g), CES_OK);
        expect_lowered(ctx, g, 0, CES_LOWER_UNLINKED, "block 0 eager x1 first 1\n"
                                  "s0 produce mem[0:8388608]@0\n"
                                  "s0 memops 1 [wait64 posted[1]@0 >= 2]\n"
                                  "s0 copy 1 [mem[0:8388608]@0 -> mem[16777216:25165824]@1]\n"
                                  "s0 memops 1 [write64 done[0]@1 = 2]\n");
        ces_graph_destroy(g);
        free(big);
        free(way01);
        free(way10);
        free(both);
    }

    /* All pairs: each rank sends one buffer to both peers (one batch). */
    memset(t, 0, sizeof(*t));
    for (uint32_t r = 0; r < 3; r++) {
        for (uint32_t q = 0; q < 3; q++) {
            if (q == r)
                continue;
            declare(t, r, q, 1, 0, 64);
            declare(t, r, q, 0, 256 + 64 * q, 64);
        }
    }
    assert_int_equal(ces_cuda_group_graph(ctx, 3, 4096, t, 1, NULL, &g), CES_OK);
    assert_int_equal(ces_test_verdict(ctx, g), CES_V_OK);
    text = lower_text(ctx, g, 0, &h200, 0);
    assert_non_null(strstr(text, "s0 copy_batch 2 [mem[0:64]@0 -> mem[256:320]@1, "
                                 "mem[0:64]@0 -> mem[256:320]@2]\n"));
    ces_free(ctx, text);
    ces_graph_destroy(g);

    /* A send without its receive, and sizes that differ. */
    memset(t, 0, sizeof(*t));
    declare(t, 0, 1, 1, 0, 64);
    assert_int_equal(ces_cuda_group_graph(ctx, 2, 4096, t, 1, NULL, &g), CES_ERR_INVALID);
    assert_null(g);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_group_end: rank 0 sends 64 bytes to rank 1, "
                                                 "which posted no matching receive");
    declare(t, 1, 0, 0, 0, 32);
    assert_int_equal(ces_cuda_group_graph(ctx, 2, 4096, t, 1, NULL, &g), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_group_end: rank 0 sends 64 bytes to rank 1, "
                                                 "which declared another size");
    assert_int_equal(ces_cuda_group_graph(ctx, 9, 4096, t, 1, NULL, &g), CES_ERR_UNSUPPORTED);
    assert_null(g);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "ces_group_end: groups are supported up to 8 ranks");
    /* a ring of CES_P2P_MAX_RANKS is built (proved: test_group_ranks) */
    memset(t, 0, sizeof(*t));
    for (uint32_t r = 0; r < CES_P2P_MAX_RANKS; r++) {
        declare(t, r, (r + 1) % CES_P2P_MAX_RANKS, 1, 0, 96);
        declare(t, r, (r + CES_P2P_MAX_RANKS - 1) % CES_P2P_MAX_RANKS, 0, 128, 96);
    }
    assert_int_equal(ces_cuda_group_graph(ctx, CES_P2P_MAX_RANKS, 4096, t, 1, NULL, &g), CES_OK);
    assert_int_equal(ces_graph_ranks(g), CES_P2P_MAX_RANKS);
    ces_graph_destroy(g);
    /* CES_MAX_PAIRS sends and receives of a rank are taken, one more is
     * refused (before its entries are read) */
    memset(t, 0, sizeof(*t));
    for (uint32_t i = 0; i < CES_MAX_PAIRS; i++) {
        declare(t, 0, 1, 1, 8 * i, 8);
        declare(t, 1, 0, 0, 8 * i, 8);
    }
    assert_int_equal(ces_cuda_group_check(ctx, 2, t), CES_OK);
    t->d[1][0].bytes = CES_MAX_PAIRS + 1;
    assert_int_equal(ces_cuda_group_check(ctx, 2, t), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "ces_group_end: rank 1 declared more than 64 sends and receives");
    free(t);
    ces_test_ctx_end(ctx, &st);
}

/* The staging exec.c gives pair s -> d of n ranks: area (s - d) mod n at
 * 2048 + 256 * area, two slots of 128 bytes; messages of side_min bytes or
 * more go the side way. */
static struct ces_p2p_stages *stages(uint32_t n, uint64_t side_min)
{
    struct ces_p2p_stages *st = calloc(1, sizeof(*st));

    for (uint32_t s = 0; s < n; s++)
        for (uint32_t d = 0; d < n; d++)
            st->p[s][d] = (struct ces_p2p_stage){2048 + 256 * ((s + n - d) % n), 128, 0, 0};
    st->side_min = side_min;
    return st;
}

/* Staged groups: six calls in a row - rank 0 sends to both others, rank 1
 * sends to both others, a ring (ranks exchange: direct), rank 0's messages
 * too big for the slots (direct), the first two again - with every staged
 * pair's count advanced by ces_cuda_group_count, as exec.c counts them,
 * proved free of deadlock, hang, race and mismatch over every interleaving; four one-way messages
 * between 2 ranks (a RACE without the sender's credit wait); the exact ops
 * of a staged call; a chain 0 -> 1 -> 2, whose messages are not one way,
 * direct. */
static void test_group_staged(void **state)
{
    struct ces_test_alloc ta;
    struct ces_ctx *ctx = ces_test_ctx(&ta);
    struct ces_p2p_table *fan0 = calloc(1, sizeof(*fan0)), *fan1 = calloc(1, sizeof(*fan1));
    struct ces_p2p_table *ring = calloc(1, sizeof(*ring)), *big = calloc(1, sizeof(*big));
    const struct ces_p2p_table *calls[] = {fan0, fan1, ring, big, fan0, fan1};
    struct ces_p2p_stages *st = stages(3, UINT64_MAX);
    struct ces_graph *g = NULL;

    (void)state;
    for (uint32_t r = 0; r < 3; r++) {
        declare(ring, r, (r + 1) % 3, 1, 0, 96);
        declare(ring, r, (r + 2) % 3, 0, 128, 96);
        if (r != 0) {
            declare(fan0, 0, r, 1, 0, 96);
            declare(fan0, r, 0, 0, 128, 96);
            declare(big, 0, r, 1, 0, 200);
            declare(big, r, 0, 0, 512, 200);
        }
        if (r != 1) {
            declare(fan1, 1, r, 1, 0, 64);
            declare(fan1, r, 1, 0, 256, 64);
        }
    }
    assert_true(ces_cuda_group_one_way(fan0, 0, 2));
    assert_false(ces_cuda_group_one_way(ring, 0, 1));
    assert_false(ces_cuda_group_staged(ring, st, 0, 1, 96));
    assert_false(ces_cuda_group_staged(big, st, 0, 1, 200));
    assert_true(ces_cuda_group_staged(fan0, st, 0, 1, 96));
    /* a chain 0 -> 1 -> 2: 1 sends, so 0 -> 1 is not one way; 1 receives,
     * so 1 -> 2 is not either: both go direct, slots or not */
    {
        struct ces_p2p_table *chain = calloc(1, sizeof(*chain));

        declare(chain, 0, 1, 1, 0, 96);
        declare(chain, 1, 0, 0, 128, 96);
        declare(chain, 1, 2, 1, 0, 96);
        declare(chain, 2, 1, 0, 128, 96);
        assert_false(ces_cuda_group_one_way(chain, 0, 1));
        assert_false(ces_cuda_group_one_way(chain, 1, 2));
        assert_false(ces_cuda_group_staged(chain, st, 0, 1, 96));
        assert_false(ces_cuda_group_staged(chain, st, 1, 2, 96));
        assert_int_equal(ces_cuda_group_graph(ctx, 3, 4096, chain, 4, st, &g), CES_OK);
        assert_int_equal(ces_test_verdict(ctx, g), CES_V_OK);
        expect_lowered(ctx, g, 1, CES_LOWER_UNLINKED, "block 0 eager x1 first 1\n"
                                  "s0 produce mem[0:96]@1\n"
                                  "s0 memops 2 [write64 posted[1]@0 = 4; wait64 posted[2]@1 >= 4]\n"
                                  "s0 copy 1 [mem[0:96]@1 -> mem[128:224]@2]\n"
                                  "s0 memops 2 [write64 done[1]@2 = 4; wait64 done[0]@1 >= 4]\n"
                                  "s0 consume mem[128:224]@1 == mem[0:96]@0\n");
        ces_graph_destroy(g);
        free(chain);
    }
    assert_int_equal(calls_verdict(ctx, 3, calls, 6, st, 4096), CES_V_OK);
    assert_int_equal(st->p[0][1].sent, 2);
    assert_int_equal(st->p[1][2].sent, 2);
    assert_int_equal(st->p[2][0].sent, 0);

    /* One way, rank 0 -> rank 1, four messages: only the credits keep the
     * sender from refilling a slot its receiver still copies out. */
    {
        struct ces_p2p_table *one = calloc(1, sizeof(*one));
        const struct ces_p2p_table *four[] = {one, one, one, one};
        struct ces_p2p_stages *s2 = stages(2, UINT64_MAX);

        declare(one, 0, 1, 1, 0, 96);
        declare(one, 1, 0, 0, 128, 96);
        assert_int_equal(calls_verdict(ctx, 2, four, 4, s2, 4096), CES_V_OK);
        free(s2);
        free(one);
    }

    /* Rank 0's third message to each peer (count 2: slot 0 again, after two
     * releases): both copies in one batch, into area (0 - 1) mod 3 = 2 of
     * rank 1 and area 1 of rank 2; then the credits of slot 1 for the
     * fourth. */
    assert_int_equal(ces_cuda_group_graph(ctx, 3, 4096, fan0, 9, st, &g), CES_OK);
    expect_lowered(ctx, g, 0, CES_LOWER_UNLINKED, "block 0 eager x1 first 1\n"
                              "s0 produce mem[0:96]@0\n"
                              "s0 produce mem[0:96]@0\n"
                              "s0 copy_batch 2 [mem[0:96]@0 -> mem[2560:2656]@1, "
                              "mem[0:96]@0 -> mem[2304:2400]@2]\n"
                              "s0 memops 4 [write64 full[0]@1 = 2; write64 full[0]@2 = 2; "
                              "wait64 credit[3]@0 >= 1; wait64 credit[5]@0 >= 1]\n");
    expect_lowered(ctx, g, 2, CES_LOWER_UNLINKED, "block 0 eager x1 first 1\n"
                              "s0 memops 1 [wait64 full[0]@2 >= 2]\n"
                              "s0 copy 1 [mem[2304:2400]@2 -> mem[128:224]@2]\n"
                              "s0 memops 1 [write64 credit[4]@0 = 2]\n"
                              "s0 consume mem[128:224]@2 == mem[0:96]@0\n");
    ces_graph_destroy(g);
    free(st);
    free(fan0);
    free(fan1);
    free(ring);
    free(big);
    ces_test_ctx_end(ctx, &ta);
}

static int lower_body(struct ces_ctx *ctx, void *arg)
{
    struct ces_graph *g = arg;
    struct ces_cuda_plan *p = NULL;
    char *text = NULL;
    int rc = ces_cuda_lower(ctx, g, 0, &h200, CES_LOWER_PROGRESS, &p);

    if (rc == CES_OK)
        rc = ces_cuda_plan_format(ctx, g, p, &text);
    ces_free(ctx, text);
    ces_cuda_plan_destroy(p);
    return rc;
}

/* A one-way pair 0 -> 1 whose messages of `bytes` start at offset 0 on the
 * sender and 128 on the receiver. */
static struct ces_p2p_table *one_way(uint64_t bytes)
{
    struct ces_p2p_table *t = calloc(1, sizeof(*t));

    declare(t, 0, 1, 1, 0, bytes);
    declare(t, 1, 0, 0, 128, bytes);
    return t;
}

/* Staged messages the side way (side_min): the sender's memops off the
 * caller's stream, which is neither forked nor joined, so its
 * announcements overlap the next calls - proved over calls in a row: all
 * the side way, mixed with messages below side_min (the first of those
 * after a side message awaits its own slot; without that wait the checker
 * finds the sender refilling a slot its receiver still copies out, and the
 * side stream's late announcement of the slot's previous fill overwriting
 * the new one, which leaves the receiver waiting, or, without a race, lets
 * it copy out the smaller message in place of the one it awaited:
 * HANG,RACE,MISMATCH), 3 ranks fanning out and
 * two pairs of 4 ranks; the exact ops of a side call, of one of exactly
 * side_min bytes at either slot's first fill, and of a smaller one after a
 * side one filling its own slot for the first time. */
static void test_group_side(void **state)
{
    struct ces_test_alloc ta;
    struct ces_ctx *ctx = ces_test_ctx(&ta);
    struct ces_p2p_table *lg = one_way(128), *sm = one_way(64);
    struct ces_p2p_table *fan = calloc(1, sizeof(*fan));
    const struct ces_p2p_table *side[] = {lg, lg, lg, lg, lg};
    const struct ces_p2p_table *mixed[] = {lg, lg, sm, sm, lg, sm, lg, lg, sm};
    const struct ces_p2p_table *fans[] = {fan, fan, fan, fan};
    struct ces_p2p_stages *st = stages(2, 100);
    struct ces_graph *g = NULL;

    (void)state;
    assert_int_equal(calls_verdict(ctx, 2, side, 5, st, 4096), CES_V_OK);
    assert_int_equal(st->p[0][1].sent, 5);
    assert_int_equal(st->p[0][1].own_wait, 1);
    free(st);
    st = stages(2, 100);
    assert_int_equal(calls_verdict(ctx, 2, mixed, 9, st, 4096), CES_V_OK);
    assert_int_equal(st->p[0][1].own_wait, 0);
    free(st);
    for (uint32_t r = 1; r < 3; r++) {
        declare(fan, 0, r, 1, 0, 96);
        declare(fan, r, 0, 0, 128, 96);
    }
    st = stages(3, 0);
    assert_int_equal(calls_verdict(ctx, 3, fans, 4, st, 4096), CES_V_OK);
    free(st);
    /* 4 ranks: two one-way pairs, 0 -> 2 and 1 -> 3, three calls */
    memset(fan, 0, sizeof(*fan));
    for (uint32_t r = 0; r < 2; r++) {
        declare(fan, r, r + 2, 1, 0, 96);
        declare(fan, r + 2, r, 0, 128, 96);
    }
    st = stages(4, 0);
    assert_int_equal(calls_verdict(ctx, 4, fans, 3, st, 4096), CES_V_OK);
    assert_int_equal(st->p[1][3].sent, 3);
    free(st);

    /* A small message after a side one, its own-slot wait dropped. */
    st = stages(2, 100);
    assert_int_equal(ces_cuda_group_graph(ctx, 2, 4096, lg, 1, st, &g), CES_OK);
    ces_cuda_group_count(lg, st, 2);
    for (uint32_t k = 2; k <= 4; k++) {
        const struct ces_p2p_table *t = k == 4 ? sm : lg;

        if (k == 4)
            st->p[0][1].own_wait = 0;
        assert_int_equal(ces_cuda_group_add(ctx, g, t, k, st), CES_OK);
        ces_cuda_group_count(t, st, 2);
    }
    assert_int_equal(ces_test_verdict_flags(ctx, g, CES_CHECK_UNLINKED),
                     CES_V_RACE | CES_V_HANG | CES_V_MISMATCH);
    ces_graph_destroy(g);

    /* A message of exactly side_min bytes goes the side way.  The first
     * (count 0) and second (count 1) fill each a slot for the first time:
     * no credit to await, so s1 has nothing to do and records nothing. */
    free(st);
    st = stages(2, 128);
    for (uint64_t u = 0; u < 2; u++) {
        char want[512];

        st->p[0][1].sent = u;
        assert_int_equal(ces_cuda_group_graph(ctx, 2, 4096, lg, 5, st, &g), CES_OK);
        snprintf(want, sizeof(want), "block 0 eager x1 first 1\n"
                                     "s0 produce mem[0:128]@0\n"
                                     "s0 copy 1 [mem[0:128]@0 -> mem[%u:%u]@1]\n"
                                     "s0 record copied\n"
                                     "s2 await copied\n"
                                     "s2 memops 1 [write64 full[%u]@1 = 1]\n",
                 2304 + 128 * (unsigned)u, 2432 + 128 * (unsigned)u, (unsigned)u);
        expect_lowered(ctx, g, 0, CES_LOWER_UNLINKED, want);
        ces_graph_destroy(g);
    }
    /* A smaller message after the side one (count 1, own_wait): its own
     * slot 1 is filled for the first time, so it awaits no credit for it,
     * only, after its announcement, slot 0's first release. */
    free(st);
    st = stages(2, 100);
    st->p[0][1].sent = 1;
    st->p[0][1].own_wait = 1;
    assert_int_equal(ces_cuda_group_graph(ctx, 2, 4096, sm, 5, st, &g), CES_OK);
    expect_lowered(ctx, g, 0, CES_LOWER_UNLINKED, "block 0 eager x1 first 1\n"
                              "s0 produce mem[0:64]@0\n"
                              "s0 copy 1 [mem[0:64]@0 -> mem[2432:2496]@1]\n"
                              "s0 memops 2 [write64 full[1]@1 = 1; wait64 credit[2]@0 >= 1]\n");
    ces_graph_destroy(g);

    /* The fourth message (count 3): slot 1 after one release. */
    st->p[0][1].sent = 3;
    st->p[0][1].own_wait = 1;
    assert_int_equal(ces_cuda_group_graph(ctx, 2, 4096, lg, 9, st, &g), CES_OK);
    expect_lowered(ctx, g, 0, CES_LOWER_UNLINKED, "block 0 eager x1 first 1\n"
                              "s0 produce mem[0:128]@0\n"
                              "s1 memops 1 [wait64 credit[3]@0 >= 1]\n"
                              "s1 record slots\n"
                              "s0 await slots\n"
                              "s0 copy 1 [mem[0:128]@0 -> mem[2432:2560]@1]\n"
                              "s0 record copied\n"
                              "s2 await copied\n"
                              "s2 memops 1 [write64 full[1]@1 = 2]\n");
    expect_lowered(ctx, g, 1, CES_LOWER_UNLINKED, "block 0 eager x1 first 1\n"
                              "s0 memops 1 [wait64 full[1]@1 >= 2]\n"
                              "s0 copy 1 [mem[2432:2560]@1 -> mem[128:256]@1]\n"
                              "s0 memops 1 [write64 credit[3]@0 = 2]\n"
                              "s0 consume mem[128:256]@1 == mem[0:128]@0\n");
    ces_graph_destroy(g);
    free(st);
    free(lg);
    free(sm);
    free(fan);
    ces_test_ctx_end(ctx, &ta);
}

/* The checker's verdict on a schedule written as .ces text. */
static uint32_t text_verdict(struct ces_ctx *ctx, const char *text)
{
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    uint32_t v = ces_test_verdict(ctx, g);

    ces_graph_destroy(g);
    return v;
}

/* Which streams the backend forks and joins (ces_graph_links): none that
 * the block's own events link to stream 0 - the overlap variant's local
 * stream awaits `go` first and records `local` last for stream 0 - nor one
 * without ops; a stream that awaits a record of an earlier block is forked,
 * one whose record another stream awaits, or which is recorded again before
 * stream 0 awaits it, is joined; groups (CES_LOWER_UNLINKED) never.  An
 * eager block issues its await of an earlier block's record. */
static void test_links(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, "cesync 1\n"
                                          "ranks 2\n"
                                          "streams 4\n"
                                          "buffer b 64\n"
                                          "phase eager x1\n"
                                          "r* : record go\n"
                                          "r* s1 : await go\n"
                                          "r* s1 : copy b[0:8] -> b[8:16]\n"
                                          "r* s1 : record local\n"
                                          "r* s2 : copy b[16:24] -> b[24:32]\n"
                                          "r* : await local\n");

    (void)state;
    expect_lowered(ctx, g, 1, 0, "block 0 eager x1 first 1\n"
                                 "s2 fork\n"
                                 "s0 record go\n"
                                 "s1 await go\n"
                                 "s1 copy 1 [b[0:8]@1 -> b[8:16]@1]\n"
                                 "s1 record local\n"
                                 "s2 copy 1 [b[16:24]@1 -> b[24:32]@1]\n"
                                 "s0 await local\n"
                                 "s2 join\n");
    expect_lowered(ctx, g, 1, CES_LOWER_UNLINKED | CES_LOWER_CAPTURE,
                   "block 0 eager x1 first 1 capture\n"
                   "s0 record go\n"
                   "s1 await go\n"
                   "s1 copy 1 [b[0:8]@1 -> b[8:16]@1]\n"
                   "s1 record local\n"
                   "s2 copy 1 [b[16:24]@1 -> b[24:32]@1]\n"
                   "s0 await local\n");
    ces_graph_destroy(g);
    g = ces_test_text_graph(ctx, "cesync 1\n"
                        "ranks 1\n"
                        "streams 4\n"
                        "buffer b 64\n"
                        "phase eager x1\n"
                        "r* s3 : record x\n"
                        "phase graph x2\n"
                        "r* s1 : await x\n"
                        "r* s1 : record y\n"
                        "r* s2 : await y\n"
                        "r* s2 : record z\n"
                        "r* s3 : record z\n"
                        "r* : await z\n");
    /* the captured block leaves out `await x`, whose record ran in block 0
     * (the fork and join order it before; CUDA refused the wait on work
     * outside the capture: CUDA_ERROR_STREAM_CAPTURE_ISOLATION) */
    expect_lowered(ctx, g, 0, 0, "block 0 eager x1 first 1\n"
                                 "s3 fork\n"
                                 "s3 record x\n"
                                 "s3 join\n"
                                 "block 1 graph x2 first 2 capture\n"
                                 "s1 fork\n"
                                 "s3 fork\n"
                                 "s1 record y\n"
                                 "s2 await y\n"
                                 "s2 record z\n"
                                 "s3 record z\n"
                                 "s0 await z\n"
                                 "s1 join\n"
                                 "s2 join\n");
    ces_graph_destroy(g);
    /* eager, an await of a record of an earlier block is issued (the event
     * is there to wait on); captured it is left out */
    g = ces_test_text_graph(ctx, "cesync 1\n"
                        "ranks 1\n"
                        "streams 2\n"
                        "phase eager x1\n"
                        "r* s1 : record x\n"
                        "phase eager x1\n"
                        "r* : await x\n");
    expect_lowered(ctx, g, 0, 0, "block 0 eager x1 first 1\n"
                                 "s1 fork\n"
                                 "s1 record x\n"
                                 "s1 join\n"
                                 "block 1 eager x1 first 2\n"
                                 "s0 await x\n");
    expect_lowered(ctx, g, 0, CES_LOWER_CAPTURE, "block 0 eager x1 first 1 capture\n"
                                                 "s1 fork\n"
                                                 "s1 record x\n"
                                                 "s1 join\n"
                                                 "block 1 eager x1 first 2 capture\n");
    ces_graph_destroy(g);
    /* the overlap collectives, as the backend builds them, eager and captured */
    for (uint32_t k = 0; k < 2; k++) {
        struct ces_coll_params p;
        char *t;

        ces_cuda_coll_select(&p, k == 0 ? CES_COLL_ALLTOALL : CES_COLL_ALLGATHER, 2, 4096, 0,
                             (int)k);
        assert_int_equal(ces_coll_build(ctx, &p, &g), CES_OK);
        t = lower_text(ctx, g, 1, &h200, ces_cuda_coll_lower_flags((int)k, 1));
        assert_non_null(strstr(t, "s1 await go\n"));
        assert_null(strstr(t, " fork\n"));
        assert_null(strstr(t, " join\n"));
        ces_free(ctx, t);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* A captured one-way group 0 -> 1 of 96 bytes written out, two replays, as
 * ces_cuda_group_graph_captured builds it; without the sender's reset of
 * its post flag when `reset` is 0. */
static uint32_t captured_text_verdict(struct ces_ctx *ctx, int reset)
{
    char text[1024];

    snprintf(text, sizeof(text),
             "cesync 1\nranks 2\nbuffer mem 4096\nsignal cposted u64 2\nsignal cdone u64 2\n"
             "phase graph x2\n"
             "r0 : produce mem[0:96]\n"
             "r1 : write cposted[1]@0 = 1\n"
             "r0 : wait cposted[1] == 1\n"
             "%s"
             "r0 : copy mem[0:96] -> mem[128:224]@1\n"
             "r0 : write cdone[0]@1 = 1\n"
             "r1 : wait cdone[0] == 1\n"
             "r1 : write cdone[0] = 0\n"
             "r1 : consume mem[128:224] == mem[0:96]@0\n",
             reset ? "r0 : write cposted[1] = 0\n" : "");
    return text_verdict(ctx, text);
}

/* Groups captured into CUDA graphs: every message in place with flags a
 * replay repeats, proved over replays for a ring of 3 and of 4 ranks (2 to
 * 8: test_group_ranks), all pairs of 3 and one way (every send's buffer
 * written before, every receive's read after and checked to hold its
 * sender's bytes of that replay, each replay); the same protocol written
 * out is OK, and without the sender's reset of its post flag a replay
 * copies into a buffer its receiver still reads, its announcement can land
 * before the receiver's reset of the last one, which then erases it, and
 * without a race the receiver can read the next replay's bytes
 * (RACE,HANG,MISMATCH); the exact ops as captured. */
static void test_group_captured(void **state)
{
    struct ces_test_alloc ta;
    struct ces_ctx *ctx = ces_test_ctx(&ta);
    struct ces_p2p_table *t = calloc(1, sizeof(*t));
    struct ces_graph *g = NULL;

    (void)state;
    for (uint32_t n = 3; n <= 4; n++) {
        memset(t, 0, sizeof(*t));
        for (uint32_t r = 0; r < n; r++) {
            declare(t, r, (r + 1) % n, 1, 0, 96);
            declare(t, r, (r + n - 1) % n, 0, 128, 96);
        }
        assert_int_equal(ces_cuda_group_graph_captured(ctx, n, 4096, t, 1, 2, NULL, &g), CES_OK);
        assert_int_equal(ces_test_verdict(ctx, g), CES_V_OK);
        ces_graph_destroy(g);
    }
    memset(t, 0, sizeof(*t));
    for (uint32_t r = 0; r < 3; r++)
        for (uint32_t q = 0; q < 3; q++)
            if (q != r) {
                declare(t, r, q, 1, 0, 64);
                declare(t, r, q, 0, 256 + 64 * q, 64);
            }
    assert_int_equal(ces_cuda_group_graph_captured(ctx, 3, 4096, t, 1, 2, NULL, &g), CES_OK);
    assert_int_equal(ces_test_verdict(ctx, g), CES_V_OK);
    ces_graph_destroy(g);
    assert_int_equal(captured_text_verdict(ctx, 1), CES_V_OK);
    assert_int_equal(captured_text_verdict(ctx, 0), CES_V_RACE | CES_V_HANG | CES_V_MISMATCH);

    memset(t, 0, sizeof(*t));
    declare(t, 0, 1, 1, 0, 96);
    declare(t, 1, 0, 0, 128, 96);
    assert_int_equal(ces_cuda_group_graph_captured(ctx, 2, 4096, t, 1, 3, NULL, &g), CES_OK);
    assert_int_equal(ces_test_verdict(ctx, g), CES_V_OK);
    expect_lowered(ctx, g, 0, CES_LOWER_CAPTURE | CES_LOWER_UNLINKED,
                   "block 0 graph x3 first 1 capture\n"
                   "s0 produce mem[0:96]@0\n"
                   "s0 memops 2 [wait64 cposted[1]@0 == 1; write64 cposted[1]@0 = 0]\n"
                   "s0 copy 1 [mem[0:96]@0 -> mem[128:224]@1]\n"
                   "s0 memops 1 [write64 cdone[0]@1 = 1]\n");
    expect_lowered(ctx, g, 1, CES_LOWER_CAPTURE | CES_LOWER_UNLINKED,
                   "block 0 graph x3 first 1 capture\n"
                   "s0 memops 3 [write64 cposted[1]@0 = 1; wait64 cdone[0]@1 == 1; "
                   "write64 cdone[0]@1 = 0]\n"
                   "s0 consume mem[128:224]@1 == mem[0:96]@0\n");
    ces_graph_destroy(g);
    free(t);
    ces_test_ctx_end(ctx, &ta);
}

/* A captured staged message 0 -> 1 of 96 bytes written out, three replays
 * of one call (one slot), as ces_cuda_group_graph_captured builds it;
 * without the sender's free-slot wait when `wait` is 0. */
static uint32_t captured_staged_text_verdict(struct ces_ctx *ctx, int wait)
{
    char text[1024];

    snprintf(text, sizeof(text),
             "cesync 1\nranks 2\nbuffer mem 4096\nsignal cfull u64 4\nsignal cbusy u64 4\n"
             "phase graph x3\n"
             "r0 : produce mem[0:96]\n"
             "%s"
             "r0 : write cbusy[2] = 1\n"
             "r0 : copy mem[0:96] -> mem[2304:2400]@1\n"
             "r0 : write cfull[0]@1 = 1\n"
             "r1 : wait cfull[0] == 1\n"
             "r1 : write cfull[0] = 0\n"
             "r1 : copy mem[2304:2400] -> mem[128:224]\n"
             "r1 : write cbusy[2]@0 = 0\n"
             "r1 : consume mem[128:224] == mem[0:96]@0\n",
             wait ? "r0 : wait cbusy[2] == 0\n" : "");
    return text_verdict(ctx, text);
}

/* Captured groups with staged one-way messages, proved over replays of
 * graphs that hold 1, 2 and 3 calls (the slots alternate by call, so an
 * odd count reuses a slot from one replay to the next) and starting at
 * either slot, a rank sending one way to two others, and a staged pair
 * beside an exchanging one (0 -> 1 one way, 2 and 3 in place); the same
 * protocol written out is OK, and without the sender's free-slot wait a
 * replay refills the slot its receiver still copies out (RACE), its
 * announcement can be erased by the receiver's reset of the last one
 * (HANG), and without a race the receiver can copy out a later replay's
 * bytes (MISMATCH); the exact ops of a call at slot 1. */
static void test_group_captured_staged(void **state)
{
    struct ces_test_alloc ta;
    struct ces_ctx *ctx = ces_test_ctx(&ta);
    struct ces_p2p_table *t = one_way(96);
    struct ces_p2p_stages *st = stages(4, UINT64_MAX);
    struct ces_graph *g = NULL;

    (void)state;
    for (uint32_t calls = 1; calls <= 3; calls++) {
        for (uint64_t first = 0; first < 2; first++) {
            st->p[0][1].sent = first;
            assert_int_equal(ces_cuda_group_graph_captured(ctx, 2, 4096, t, calls, 2, st, &g),
                             CES_OK);
            assert_int_equal(ces_test_verdict(ctx, g), CES_V_OK);
            ces_graph_destroy(g);
        }
    }
    memset(t, 0, sizeof(*t));
    for (uint32_t r = 1; r < 3; r++) {
        declare(t, 0, r, 1, 64 * r, 64);
        declare(t, r, 0, 0, 512, 64);
    }
    assert_int_equal(ces_cuda_group_graph_captured(ctx, 3, 4096, t, 2, 2, st, &g), CES_OK);
    assert_int_equal(ces_test_verdict(ctx, g), CES_V_OK);
    ces_graph_destroy(g);
    memset(t, 0, sizeof(*t));
    declare(t, 0, 1, 1, 0, 96);
    declare(t, 1, 0, 0, 128, 96);
    declare(t, 2, 3, 1, 0, 96);
    declare(t, 2, 3, 0, 128, 96);
    declare(t, 3, 2, 1, 0, 96);
    declare(t, 3, 2, 0, 128, 96);
    assert_int_equal(ces_cuda_group_graph_captured(ctx, 4, 4096, t, 2, 2, st, &g), CES_OK);
    assert_int_equal(ces_test_verdict(ctx, g), CES_V_OK);
    ces_graph_destroy(g);
    assert_int_equal(captured_staged_text_verdict(ctx, 1), CES_V_OK);
    assert_int_equal(captured_staged_text_verdict(ctx, 0),
                     CES_V_RACE | CES_V_HANG | CES_V_MISMATCH);

    free(t);
    t = one_way(96);
    st->p[0][1].sent = 1;
    assert_int_equal(ces_cuda_group_graph_captured(ctx, 2, 4096, t, 1, 2, st, &g), CES_OK);
    expect_lowered(ctx, g, 0, CES_LOWER_CAPTURE | CES_LOWER_UNLINKED,
                   "block 0 graph x2 first 1 capture\n"
                   "s0 produce mem[0:96]@0\n"
                   "s0 memops 2 [wait64 cbusy[3]@0 == 0; write64 cbusy[3]@0 = 1]\n"
                   "s0 copy 1 [mem[0:96]@0 -> mem[2944:3040]@1]\n"
                   "s0 memops 1 [write64 cfull[1]@1 = 1]\n");
    expect_lowered(ctx, g, 1, CES_LOWER_CAPTURE | CES_LOWER_UNLINKED,
                   "block 0 graph x2 first 1 capture\n"
                   "s0 memops 2 [wait64 cfull[1]@1 == 1; write64 cfull[1]@1 = 0]\n"
                   "s0 copy 1 [mem[2944:3040]@1 -> mem[128:224]@1]\n"
                   "s0 memops 1 [write64 cbusy[3]@0 = 0]\n"
                   "s0 consume mem[128:224]@1 == mem[0:96]@0\n");
    ces_graph_destroy(g);
    free(st);
    free(t);
    ces_test_ctx_end(ctx, &ta);
}

/* A ring of n ranks: rank r sends `bytes` from offset 0 to r + 1 and
 * receives them from r - 1 at offset 2 * bytes (2 ranks: an exchange). */
static struct ces_p2p_table *ring_of(uint32_t n, uint64_t bytes)
{
    struct ces_p2p_table *t = calloc(1, sizeof(*t));

    for (uint32_t r = 0; r < n; r++) {
        declare(t, r, (r + 1) % n, 1, 0, bytes);
        declare(t, r, (r + n - 1) % n, 0, 2 * bytes, bytes);
    }
    return t;
}

/* Rank 0 sends `bytes` from offset 0 to every other rank, which receives
 * them at offset 2 * bytes (out), or every other rank sends them to rank
 * 0, which receives rank r's at 256 + 128 * r (in): one-way messages. */
static struct ces_p2p_table *fan_of(uint32_t n, uint64_t bytes, int out)
{
    struct ces_p2p_table *t = calloc(1, sizeof(*t));

    for (uint32_t r = 1; r < n; r++) {
        declare(t, out ? 0 : r, out ? r : 0, 1, 0, bytes);
        declare(t, out ? r : 0, out ? 0 : r, 0, out ? 2 * bytes : 256 + 128 * r, bytes);
    }
    return t;
}

/* Three eager calls of t in a row over n ranks, as ces_group_end builds
 * them (calls 1..3, the staged pairs of st counted after each from 0):
 * proved OK by a complete search. */
static void three_calls_ok(struct ces_ctx *ctx, uint32_t n, const struct ces_p2p_table *t,
                           struct ces_p2p_stages *st, uint64_t stride)
{
    const struct ces_p2p_table *calls[] = {t, t, t};

    assert_int_equal(calls_verdict(ctx, n, calls, 3, st, stride), CES_V_OK);
}

/* One captured call of t replayed twice over n ranks, as ces_group_end
 * builds it (the staged pairs of st at slot `first`), lowered unlinked:
 * proved OK by a complete search. */
static void captured_ok(struct ces_ctx *ctx, uint32_t n, const struct ces_p2p_table *t,
                        struct ces_p2p_stages *st, uint64_t first)
{
    struct ces_graph *g = NULL;

    for (uint32_t s = 0; s < n && st != NULL; s++)
        for (uint32_t d = 0; d < n; d++)
            st->p[s][d].sent = first;
    assert_int_equal(ces_cuda_group_graph_captured(ctx, n, 4096, t, 1, 2, st, &g), CES_OK);
    assert_int_equal(ces_graph_nblocks(g), 1);
    assert_int_equal(ces_test_verdict_flags(ctx, g, CES_CHECK_UNLINKED), CES_V_OK);
    ces_graph_destroy(g);
}

/* Every group schedule ces_group_end selects, proved for 2 to
 * CES_P2P_MAX_RANKS ranks (groups of more are refused): eager, three calls
 * in a row, a ring (not one way: direct) of messages below
 * CES_P2P_POLLED_MIN (pushed flags) and of CES_P2P_POLLED_MIN bytes
 * (polled), rank 0 fanning out one-way messages too big for the slots
 * (direct, pushed), and fanning out and in one-way messages that fit them
 * (staged; fanning out the side way too, all of them and mixed with
 * smaller ones); captured, one call replayed twice, a ring, a fan-out too
 * big for the slots and one staged at either slot.  Each a complete search
 * with verdict OK: no deadlock, hang or race, and every receive buffer
 * holds its sender's bytes of that call (no mismatch). */
static void test_group_ranks(void **state)
{
    struct ces_test_alloc ta;
    struct ces_ctx *ctx = ces_test_ctx(&ta);
    const uint64_t M = CES_P2P_POLLED_MIN;

    (void)state;
    for (uint32_t n = 2; n <= CES_P2P_MAX_RANKS; n++) {
        struct ces_p2p_table *ring = ring_of(n, 96), *big = ring_of(n, M);
        struct ces_p2p_table *out = fan_of(n, 96, 1), *in = fan_of(n, 96, 0);
        struct ces_p2p_table *lg = fan_of(n, 128, 1), *sm = fan_of(n, 64, 1);
        struct ces_p2p_table *far = fan_of(n, 200, 1);
        const struct ces_p2p_table *mixed[] = {lg, sm, lg};
        struct ces_p2p_stages *st = stages(n, UINT64_MAX);

        /* direct: pushed (ring, fan-out past the slots) and polled */
        three_calls_ok(ctx, n, ring, NULL, 4096);
        three_calls_ok(ctx, n, big, NULL, 4 * M);
        assert_false(ces_cuda_group_staged(far, st, 0, n - 1, 200));
        three_calls_ok(ctx, n, far, st, 4096);
        /* staged */
        assert_true(ces_cuda_group_staged(out, st, 0, n - 1, 96));
        three_calls_ok(ctx, n, out, st, 4096);
        three_calls_ok(ctx, n, in, st, 4096);
        /* staged, the side way */
        free(st);
        st = stages(n, 0);
        three_calls_ok(ctx, n, out, st, 4096);
        free(st);
        st = stages(n, 100);
        assert_int_equal(calls_verdict(ctx, n, mixed, 3, st, 4096), CES_V_OK);
        assert_int_equal(st->p[0][n - 1].sent, 3);
        assert_int_equal(st->p[0][n - 1].own_wait, 1);
        free(st);
        /* captured */
        st = stages(n, UINT64_MAX);
        captured_ok(ctx, n, ring, NULL, 0);
        captured_ok(ctx, n, far, st, 0);
        for (uint64_t first = 0; first < 2; first++)
            captured_ok(ctx, n, out, st, first);
        free(st);
        free(ring);
        free(big);
        free(out);
        free(in);
        free(lg);
        free(sm);
        free(far);
    }
    ces_test_ctx_end(ctx, &ta);
}

/* ces_group_end in one process: the last of the communicators to arrive
 * issues the group; a second arrival before the others is refused, naming
 * the rank that has not ended the first group; 32 communicators too. */
static void test_group_arrive(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    uint32_t arrived = 0;
    int last = -1;

    (void)state;
    for (uint32_t round = 0; round < 2; round++) {
        assert_int_equal(ces_cuda_group_arrive(ctx, &arrived, 2, 3, &last), CES_OK);
        assert_int_equal(last, 0);
        assert_int_equal(ces_cuda_group_arrive(ctx, &arrived, 0, 3, &last), CES_OK);
        assert_int_equal(last, 0);
        assert_int_equal(arrived, 5u);
        assert_int_equal(ces_cuda_group_arrive(ctx, &arrived, 1, 3, &last), CES_OK);
        assert_int_equal(last, 1);
        assert_int_equal(arrived, 0u);
    }
    assert_int_equal(ces_cuda_group_arrive(ctx, &arrived, 0, 3, &last), CES_OK);
    assert_int_equal(ces_cuda_group_arrive(ctx, &arrived, 0, 3, &last), CES_ERR_INVALID);
    assert_int_equal(last, 0);
    assert_int_equal(arrived, 1u);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "ces_group_end: rank 0 ended a second group before rank 1 ended the first "
                        "(in one process, end each group on every communicator in turn)");
    /* 32 communicators, the most: only the last arrival issues */
    arrived = 0;
    for (uint32_t i = 0; i < 32; i++) {
        assert_int_equal(ces_cuda_group_arrive(ctx, &arrived, i, 32, &last), CES_OK);
        assert_int_equal(last, i == 31);
    }
    assert_int_equal(arrived, 0u);
    /* one communicator: every arrival is the last */
    arrived = 0;
    assert_int_equal(ces_cuda_group_arrive(ctx, &arrived, 0, 1, &last), CES_OK);
    assert_int_equal(last, 1);
    assert_int_equal(arrived, 0u);
    ces_test_ctx_end(ctx, &st);
}

static void test_alloc_failures(void **state)
{
    struct ces_graph *g = NULL;
    struct ces_ctx *gctx = NULL;

    (void)state;
    assert_int_equal(ces_ctx_create(NULL, &gctx), CES_OK);
    g = xchg(gctx, CES_PHASE_EAGER, 1, 0);
    /* The lowering allocates from the context it is given, not the graph's. */
    assert_true(ces_test_alloc_failures(lower_body, g) > 5);
    ces_graph_destroy(g);
    /* and the look at its u64 values */
    g = ces_test_u64_pair(gctx, 1, CES_CMP_GEQ, 1);
    assert_true(ces_test_alloc_failures(lower_body, g) > 5);
    ces_graph_destroy(g);
    ces_ctx_destroy(gctx);
}

/* An empty graph of `streams` streams per rank checked with `connections`:
 * the queue rule reads nothing else. */
static struct ces_graph *queued(struct ces_ctx *ctx, uint32_t streams, uint32_t connections)
{
    struct ces_graph *g = NULL;

    assert_int_equal(ces_graph_create(ctx, 2, streams, &g), CES_OK);
    assert_int_equal(ces_graph_set_connections(g, connections), CES_OK);
    return g;
}

/* The process's hardware queues, as CUDA_DEVICE_MAX_CONNECTIONS gives
 * them: 1..32 as written, anything else (unset included) CUDA's 8. */
static void test_queues_env(void **state)
{
    static const struct {
        const char *env;
        uint32_t queues;
    } cases[] = {{NULL, 8}, {"", 8},   {"1", 1},  {"7", 7},   {"8", 8},     {"32", 32},
                 {"33", 8}, {"0", 8}, {"-1", 8}, {"4x", 8}, {"many", 8}, {"16", 16}};

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_int_equal(ces_cuda_queues(cases[i].env), cases[i].queues);
}

/* The rule: a graph runs where its checked queue model is the process's.
 * Every case: connections 0 (and N at least the streams, the same model)
 * runs with queues for every stream, not with fewer; N below the streams
 * runs with exactly N queues, not with more (enough for every stream) nor
 * with fewer or other shared ones. */
static void test_queues_rule(void **state)
{
    static const struct {
        uint32_t streams, connections, queues;
        int ok;
    } cases[] = {
        /* one stream: every model is a queue of its own */
        {1, 0, 1, 1}, {1, 0, 8, 1}, {1, 1, 1, 1}, {1, 1, 8, 1}, {1, 4, 1, 1},
        /* connections 0: queues for every stream, or refused */
        {2, 0, 8, 1}, {2, 0, 2, 1}, {2, 0, 32, 1}, {2, 0, 1, 0}, {3, 0, 2, 0},
        {8, 0, 8, 1}, {9, 0, 8, 0}, {33, 0, 32, 0},
        /* connections at least the streams: the same as 0 */
        {2, 2, 2, 1}, {2, 2, 8, 1}, {2, 8, 32, 1}, {2, 8, 1, 0}, {3, 3, 2, 0},
        /* shared: exactly the queues checked */
        {2, 1, 1, 1}, {2, 1, 2, 0}, {2, 1, 8, 0}, {3, 2, 2, 1}, {3, 2, 1, 0},
        {3, 2, 3, 0}, {3, 2, 8, 0}, {3, 1, 2, 0}, {40, 32, 32, 1}, {40, 8, 8, 1},
        {40, 8, 32, 0},
        /* any: checked under every assignment, so every number of queues */
        {1, CES_CONNECTIONS_ANY, 1, 1}, {2, CES_CONNECTIONS_ANY, 1, 1},
        {2, CES_CONNECTIONS_ANY, 8, 1}, {3, CES_CONNECTIONS_ANY, 2, 1},
        {40, CES_CONNECTIONS_ANY, 32, 1}, {40, CES_CONNECTIONS_ANY, 7, 1},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ces_graph *g = queued(ctx, cases[i].streams, cases[i].connections);
        int rc = ces_cuda_queues_check(ctx, g, cases[i].queues);

        if (rc != (cases[i].ok ? CES_OK : CES_ERR_UNSUPPORTED))
            fail_msg("streams %u, connections %u, %u queues: %s", cases[i].streams,
                     cases[i].connections, cases[i].queues, ces_status_str(rc));
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* ces_cuda_queues_check's refusal of g under `queues` hardware queues:
 * checked with `checked` where this process has `have`, asking for
 * `connections conn` or CUDA_DEVICE_MAX_CONNECTIONS=`set`. */
static void queues_said(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t queues,
                        const char *checked, const char *have, const char *conn, const char *set)
{
    char want[1024];

    snprintf(want, sizeof(want), "ces_launch: the schedule was checked with %s but this process "
             "has %s per GPU (CUDA_DEVICE_MAX_CONNECTIONS; 8 when unset), so the check did not "
             "model how its streams are queued here; check it with `connections %s` (or "
             "`connections any`: every assignment), or run it with CUDA_DEVICE_MAX_CONNECTIONS=%s",
             checked, have, conn, set);
    assert_int_equal(ces_cuda_queues_check(ctx, g, queues), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx), want);
}

/* The refusal names both numbers and the two ways out; the fixtures pair
 * (bad/cross_stream_conn0.ces OK, conn1 DEADLOCK) runs only where its
 * model holds. */
static void test_queues_message(void **state)
{
    static const struct {
        uint32_t streams, connections, queues;
        const char *msg;
    } cases[] = {
        {2, 0, 1,
         "ces_launch: the schedule was checked with connections 0 (each of its 2 streams on a "
         "queue of its own) but this process has 1 hardware queue per GPU "
         "(CUDA_DEVICE_MAX_CONNECTIONS; 8 when unset), so the check did not model how its "
         "streams are queued here; check it with `connections 1` (or `connections any`: every assignment), or run it with "
         "CUDA_DEVICE_MAX_CONNECTIONS=2 or more"},
        {3, 1, 8,
         "ces_launch: the schedule was checked with connections 1 (its 3 streams sharing 1 "
         "queue) but this process has 8 hardware queues per GPU (CUDA_DEVICE_MAX_CONNECTIONS; "
         "8 when unset), so the check did not model how its streams are queued here; check it "
         "with `connections 0` (or `connections any`: every assignment), or run it with CUDA_DEVICE_MAX_CONNECTIONS=1"},
        {4, 2, 3,
         "ces_launch: the schedule was checked with connections 2 (its 4 streams sharing 2 "
         "queues) but this process has 3 hardware queues per GPU (CUDA_DEVICE_MAX_CONNECTIONS; "
         "8 when unset), so the check did not model how its streams are queued here; check it "
         "with `connections 3` (or `connections any`: every assignment), or run it with "
         "CUDA_DEVICE_MAX_CONNECTIONS=2"},
        /* the most streams CUDA_DEVICE_MAX_CONNECTIONS gives a queue each */
        {32, 0, 8,
         "ces_launch: the schedule was checked with connections 0 (each of its 32 streams on a "
         "queue of its own) but this process has 8 hardware queues per GPU "
         "(CUDA_DEVICE_MAX_CONNECTIONS; 8 when unset), so the check did not model how its "
         "streams are queued here; check it with `connections 8` (or `connections any`: "
         "every assignment), or run it with CUDA_DEVICE_MAX_CONNECTIONS=32 or more"},
        /* no CUDA_DEVICE_MAX_CONNECTIONS gives 33 streams a queue each */
        {33, 64, 32,
         "ces_launch: the schedule was checked with connections 64 (each of its 33 streams on a "
         "queue of its own) but this process has 32 hardware queues per GPU "
         "(CUDA_DEVICE_MAX_CONNECTIONS; 8 when unset), so the check did not model how its "
         "streams are queued here; check it with `connections 32` (or `connections any`: "
         "every assignment)"},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        g = queued(ctx, cases[i].streams, cases[i].connections);
        assert_int_equal(ces_cuda_queues_check(ctx, g, cases[i].queues), CES_ERR_UNSUPPORTED);
        assert_string_equal(ces_ctx_last_error(ctx), cases[i].msg);
        ces_graph_destroy(g);
    }
    /* a file's names the line of its connections, or where it has none,
     * of its streams (the built graphs above have neither) */
    assert_int_equal(ces_graph_load(ctx, CES_FIXTURES "/bad/cross_stream_conn0.ces", &g), CES_OK);
    assert_int_equal(ces_cuda_queues_check(ctx, g, 8), CES_OK);
    queues_said(ctx, g, 1,
                "connections 0 (line 10:13) (each of its 2 streams on a queue of its own)",
                "1 hardware queue", "1", "2 or more");
    ces_graph_destroy(g);
    assert_int_equal(ces_graph_load(ctx, CES_FIXTURES "/bad/cross_stream_conn1.ces", &g), CES_OK);
    assert_int_equal(ces_cuda_queues_check(ctx, g, 1), CES_OK);
    queues_said(ctx, g, 8, "connections 1 (line 12:13) (its 2 streams sharing 1 queue)",
                "8 hardware queues", "0", "1");
    ces_graph_destroy(g);
    g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nstreams 2\nsignal f u32 1\n"
                                 "phase eager x1\nr* s1 : write f[0] = 1\n");
    queues_said(ctx, g, 1, "connections 0 (each of its 2 streams (line 3:9) on a queue of its own)",
                "1 hardware queue", "1", "2 or more");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A builder's graph declares the process's queues where its streams
 * outnumber them, and then passes the rule; elsewhere it stays as built.
 * Every collective and variant the bench and `cesync run` build. */
static void test_queues_adopt(void **state)
{
    static const uint32_t flags[] = {0, CES_COLL_F_OVERLAP, CES_COLL_F_EARLY};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    unsigned adopted = 0;

    (void)state;
    for (uint32_t c = 0; c < CES_COLL_COUNT; c++) {
        for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
            for (uint32_t wake = 0; wake <= 2; wake += 2) {
                for (uint32_t q = 1; q <= CES_CUDA_QUEUES_DEFAULT; q++) {
                    struct ces_coll_params p;
                    struct ces_graph *g = NULL;
                    uint32_t streams;

                    ces_coll_params_init(&p, c);
                    p.ranks = 2;
                    p.bytes = 4096;
                    p.flags = flags[f];
                    p.wake = wake;
                    if (ces_coll_build(ctx, &p, &g) != CES_OK)
                        continue; /* a variant this collective does not have */
                    streams = ces_graph_streams(g);
                    assert_int_equal(ces_cuda_queues_adopt(g, q), CES_OK);
                    assert_int_equal(ces_graph_connections(g), q < streams ? q : 0);
                    assert_int_equal(ces_cuda_queues_check(ctx, g, q), CES_OK);
                    adopted += q < streams;
                    /* a graph checked under every assignment stays so */
                    assert_int_equal(ces_graph_set_connections(g, CES_CONNECTIONS_ANY), CES_OK);
                    assert_int_equal(ces_cuda_queues_adopt(g, q), CES_OK);
                    assert_int_equal(ces_graph_connections(g), CES_CONNECTIONS_ANY);
                    ces_graph_destroy(g);
                }
            }
        }
    }
    assert_true(adopted >= 10);
    ces_test_ctx_end(ctx, &st);
}

/* --- the lowered program against its graph, checked independently -------- */

/* One stream-ordered effect: what a graph op does, or what a lowered call
 * does for it.  op, spos: the graph op's index in the rank's block list and
 * its place in its stream (as a memop or call of the plan names them). */
struct effect {
    uint8_t kind; /* enum ces_op_kind */
    uint8_t cmp, expect;
    struct ces_region a, b;
    struct ces_slot slot;
    uint64_t value;
    uint32_t event;
    uint32_t op, spos;
};

static int same_region(const struct ces_region *x, const struct ces_region *y)
{
    return x->buf == y->buf && x->rank == y->rank && x->lo == y->lo && x->hi == y->hi;
}

/* The effects of graph ops ops[0..n) on stream s (batch and end make none:
 * they only group the copies between them). */
/* Whether op i awaits a record made outside the block (no op before it
 * records its event): a captured block leaves it out. */
static bool await_outside(const struct ces_op *ops, uint32_t i)
{
    if (ops[i].kind != CES_OP_AWAIT)
        return false;
    for (uint32_t j = 0; j < i; j++)
        if (ops[j].kind == CES_OP_RECORD && ops[j].event == ops[i].event)
            return false;
    return true;
}

static size_t graph_effects(const struct ces_op *ops, uint32_t n, uint32_t s, int capture,
                            struct effect *out)
{
    size_t k = 0;
    uint32_t spos = 0;

    for (uint32_t i = 0; i < n; i++) {
        const struct ces_op *o = &ops[i];
        struct effect *e = &out[k];

        if (o->stream != s)
            continue;
        spos++;
        if (o->kind == CES_OP_BATCH || o->kind == CES_OP_END || (capture && await_outside(ops, i)))
            continue;
        memset(e, 0, sizeof(*e));
        e->kind = o->kind;
        e->op = i;
        e->spos = spos - 1;
        switch (o->kind) {
        case CES_OP_WRITE:
        case CES_OP_WAIT:
            e->slot = o->slot;
            e->value = o->value;
            e->cmp = o->kind == CES_OP_WAIT ? o->cmp : 0;
            break;
        case CES_OP_COPY:
            e->a = o->a;
            e->b = o->b;
            break;
        case CES_OP_RECORD:
        case CES_OP_AWAIT:
            e->event = o->event;
            break;
        case CES_OP_PRODUCE:
        case CES_OP_CONSUME:
            e->a = o->a;
            e->expect = (o->flags & CES_OPF_EXPECT) != 0;
            if (e->expect)
                e->b = o->b;
            break;
        default:
            break;
        }
        k++;
    }
    return k;
}

/* The index of the op of stream s before (dir -1) or after (dir 1) op i. */
static uint32_t stream_op(const struct ces_op *ops, uint32_t n, uint32_t i, uint32_t s, int dir)
{
    do
        i = dir < 0 ? i - 1 : i + 1;
    while (i < n && ops[i].stream != s);
    assert_true(i < n);
    return i;
}

static int is_wait(uint8_t kind)
{
    return kind == CES_MEMOP_WAIT32 || kind == CES_MEMOP_WAIT64;
}

/* Rank r's plan p of graph g (lowered with caps and flags) performs, block
 * by block and stream by stream, exactly the graph's ops in their order with
 * their slots, values, regions and events; copy calls and memop calls keep
 * CUDA's limits and the watchdog's framing; a batch is one call (eager) or
 * one call per copy (capture) holding that batch alone; every memop of the
 * block is in exactly one call, each naming its op's position as the
 * checker does (rR.sS#K); records and awaits go out in the rank's
 * line order; and with shared queues every call goes out in line order
 * (a memop call holds consecutive ops of the rank's list; a batch call goes
 * out at its `end`). */
static void check_plan(const struct ces_graph *g, uint32_t r, const struct ces_cuda_caps *caps,
                       unsigned flags, const struct ces_cuda_plan *p)
{
    uint32_t max = caps->max_memops ? caps->max_memops : CES_CUDA_MAX_MEMOPS;
    int shared = ces_graph_connections(g) > 0;
    uint64_t before[CES_MAX_STREAMS] = {0}; /* each stream's ops in the earlier blocks */

    assert_int_equal(p->nblocks, ces_graph_nblocks(g));
    assert_int_equal(p->streams, ces_graph_streams(g));
    for (uint32_t b = 0; b < p->nblocks; b++) {
        const struct ces_cuda_pblock *blk = &p->blocks[b];
        struct ces_block_info info = ces_graph_block(g, b);
        int capture = (flags & CES_LOWER_CAPTURE) || info.kind == CES_PHASE_GRAPH;
        int progress = (flags & CES_LOWER_PROGRESS) && !capture;
        int flight = (flags & CES_LOWER_FLIGHT) && capture;
        uint32_t n = 0;
        const struct ces_op *ops = ces_graph_ops(g, b, r, &n);
        struct effect *want = calloc((size_t)n + 1, sizeof(*want));
        struct effect *got = calloc((size_t)n + 1, sizeof(*got));
        size_t next_memop = 0;
        uint64_t last_pos = 0; /* shared queues: the line position of the last call */
        int any_pos = 0;
        uint32_t ev_next = 0; /* records and awaits: the next in line order */

        assert_non_null(want);
        assert_non_null(got);
        assert_int_equal(blk->capture, capture);
        for (uint32_t s = 0; s < p->streams; s++) {
            size_t nw = graph_effects(ops, n, s, capture, want), ng = 0;
            uint32_t in_stream = 0;
            int last_waits = -1; /* eager, progress: whether the last call that waited wrote it */

            for (uint32_t i = 0; i < n; i++)
                in_stream += ops[i].stream == s;
            assert_int_equal(blk->stream_ops[s], in_stream);
            for (size_t ci = 0; ci < blk->calls.len; ci++) {
                const struct ces_cuda_call *c = &CES_VEC_AT(&blk->calls, struct ces_cuda_call, ci);

                if (c->stream != s)
                    continue;
                switch (c->kind) {
                case CES_CALL_COPY_BATCH:
                case CES_CALL_COPY:
                    assert_true(c->count >= 1);
                    assert_true((size_t)c->first + c->count <= blk->copies.len);
                    assert_false(capture && c->kind == CES_CALL_COPY_BATCH);
                    if (c->kind == CES_CALL_COPY)
                        assert_int_equal(c->count, 1);
                    for (uint32_t k = 0; k < c->count; k++) {
                        const struct ces_cuda_copy *cp =
                            &CES_VEC_AT(&blk->copies, struct ces_cuda_copy, c->first + k);

                        assert_true(ng < nw);
                        memset(&got[ng], 0, sizeof(got[ng]));
                        got[ng].kind = CES_OP_COPY;
                        got[ng].a = cp->src;
                        got[ng].b = cp->dst;
                        got[ng].op = want[ng].op;
                        /* a batch call holds the copies of one batch (all
                         * of them: the op before the first is its batch,
                         * the op after the last its end) */
                        if (c->kind == CES_CALL_COPY_BATCH && k == 0)
                            assert_true(stream_op(ops, n, want[ng].op, s, -1) == c->op &&
                                        ops[c->op].kind == CES_OP_BATCH);
                        if (c->kind == CES_CALL_COPY_BATCH && k + 1 == c->count)
                            assert_int_equal(ops[stream_op(ops, n, want[ng].op, s, 1)].kind,
                                             CES_OP_END);
                        ng++;
                    }
                    break;
                case CES_CALL_MEMOPS: {
                    int waits = 0, framed = 0;

                    assert_true(c->count >= 1 && c->count <= max);
                    assert_true((size_t)c->first + c->count <= blk->memops.len);
                    for (uint32_t k = 0; k < c->count; k++)
                        waits |= is_wait(CES_VEC_AT(&blk->memops, struct ces_cuda_memop,
                                                    c->first + k).kind);
                    assert_int_equal(c->waits, waits);
                    for (uint32_t k = 0; k < c->count; k++) {
                        const struct ces_cuda_memop *m =
                            &CES_VEC_AT(&blk->memops, struct ces_cuda_memop, c->first + k);

                        switch (m->kind) {
                        case CES_MEMOP_ENTER:
                            assert_true(flight && waits && k == 0);
                            framed |= 1;
                            continue;
                        case CES_MEMOP_EXIT:
                            assert_true(flight && waits && k + 1 == c->count);
                            framed |= 2;
                            continue;
                        case CES_MEMOP_PROGRESS:
                            assert_true(progress && waits && k + 1 == c->count);
                            framed |= 4;
                            continue;
                        default:
                            break;
                        }
                        assert_true(ng < nw);
                        memset(&got[ng], 0, sizeof(got[ng]));
                        got[ng].op = m->op;
                        got[ng].spos = m->spos;
                        assert_true(m->slot.rank != CES_RANK_ALL);
                        switch (m->kind) {
                        case CES_MEMOP_WRITE32:
                        case CES_MEMOP_WRITE64:
                        case CES_MEMOP_WAIT32:
                        case CES_MEMOP_WAIT64:
                            got[ng].kind = is_wait(m->kind) ? CES_OP_WAIT : CES_OP_WRITE;
                            got[ng].slot = m->slot;
                            got[ng].value = m->value;
                            got[ng].cmp = is_wait(m->kind) ? m->cmp : 0;
                            assert_int_equal(m->kind == CES_MEMOP_WRITE64 ||
                                                 m->kind == CES_MEMOP_WAIT64,
                                             ces_graph_signal(g, m->slot.sig).width == CES_U64);
                            break;
                        case CES_MEMOP_BARRIER:
                            got[ng].kind = CES_OP_FENCE;
                            break;
                        case CES_MEMOP_FLUSH:
                            got[ng].kind = CES_OP_FLUSH;
                            break;
                        default:
                            fail_msg("memop kind %u", m->kind);
                        }
                        /* the memop names the graph op it performs */
                        assert_int_equal(m->op, want[ng].op);
                        assert_int_equal(m->spos, before[s] + want[ng].spos);
                        if (shared && k > 0 && !(framed & 1 && k == 1))
                            assert_int_equal(
                                m->op, CES_VEC_AT(&blk->memops, struct ces_cuda_memop,
                                                  c->first + k - 1).op + 1);
                        ng++;
                    }
                    if (flight && waits)
                        assert_int_equal(framed, 3);
                    if (progress && waits)
                        last_waits = (framed & 4) != 0;
                    break;
                }
                case CES_CALL_RECORD:
                case CES_CALL_AWAIT:
                case CES_CALL_PRODUCE:
                case CES_CALL_CONSUME:
                    assert_true(ng < nw);
                    memset(&got[ng], 0, sizeof(got[ng]));
                    got[ng].kind = c->kind == CES_CALL_RECORD    ? CES_OP_RECORD
                                   : c->kind == CES_CALL_AWAIT   ? CES_OP_AWAIT
                                   : c->kind == CES_CALL_PRODUCE ? CES_OP_PRODUCE
                                                                 : CES_OP_CONSUME;
                    got[ng].op = c->op;
                    if (c->kind == CES_CALL_RECORD || c->kind == CES_CALL_AWAIT) {
                        got[ng].event = c->event;
                    } else {
                        got[ng].a = c->a;
                        got[ng].expect = c->expect;
                        if (c->expect)
                            got[ng].b = c->b;
                    }
                    assert_int_equal(c->op, want[ng].op);
                    ng++;
                    break;
                default:
                    fail_msg("call kind %u", c->kind);
                }
            }
            /* the stream's effects, one for one */
            assert_int_equal(ng, nw);
            for (size_t k = 0; k < nw; k++) {
                const struct effect *x = &want[k], *y = &got[k];

                assert_int_equal(y->kind, x->kind);
                assert_true(same_region(&y->a, &x->a));
                assert_true(same_region(&y->b, &x->b));
                assert_int_equal(y->slot.sig, x->slot.sig);
                assert_int_equal(y->slot.rank, x->slot.rank);
                assert_int_equal(y->slot.idx, x->slot.idx);
                assert_int_equal(y->value, x->value);
                assert_int_equal(y->cmp, x->cmp);
                assert_int_equal(y->event, x->event);
                assert_int_equal(y->expect, x->expect);
            }
            /* eager with progress: the stream's last call that waits reports */
            assert_true(last_waits != 0);
        }
        /* every memop in exactly one call, in call order, without gaps */
        for (size_t ci = 0; ci < blk->calls.len; ci++) {
            const struct ces_cuda_call *c = &CES_VEC_AT(&blk->calls, struct ces_cuda_call, ci);

            if (c->kind != CES_CALL_MEMOPS)
                continue;
            assert_int_equal(c->first, next_memop);
            next_memop += c->count;
        }
        assert_int_equal(next_memop, blk->memops.len);
        /* records and awaits in line order; with shared queues every call */
        for (size_t ci = 0; ci < blk->calls.len; ci++) {
            const struct ces_cuda_call *c = &CES_VEC_AT(&blk->calls, struct ces_cuda_call, ci);
            uint64_t pos = c->op;

            if (c->kind == CES_CALL_RECORD || c->kind == CES_CALL_AWAIT) {
                while (ev_next < n && ((ops[ev_next].kind != CES_OP_RECORD &&
                                        ops[ev_next].kind != CES_OP_AWAIT) ||
                                       (capture && await_outside(ops, ev_next))))
                    ev_next++;
                assert_int_equal(c->op, ev_next);
                ev_next++;
            }
            if (!shared)
                continue;
            if (c->kind == CES_CALL_MEMOPS) {
                pos = 0;
                for (uint32_t k = 0; k < c->count; k++) {
                    const struct ces_cuda_memop *m =
                        &CES_VEC_AT(&blk->memops, struct ces_cuda_memop, c->first + k);

                    pos = m->op > pos ? m->op : pos;
                }
            } else if (c->kind == CES_CALL_COPY_BATCH ||
                       (c->kind == CES_CALL_COPY && ops[c->op].kind == CES_OP_BATCH)) {
                /* at the batch's end */
                pos = c->op + 1;
                while (ops[pos].stream != c->stream || ops[pos].kind != CES_OP_END)
                    pos++;
            }
            assert_true(!any_pos || pos >= last_pos);
            last_pos = pos;
            any_pos = 1;
        }
        while (ev_next < n && ops[ev_next].kind != CES_OP_RECORD &&
               ops[ev_next].kind != CES_OP_AWAIT)
            ev_next++;
        assert_int_equal(ev_next, n);
        for (uint32_t s = 0; s < p->streams; s++)
            before[s] += (uint64_t)blk->stream_ops[s] * info.reps;
        free(want);
        free(got);
    }
}

/* check_plan on rank r of g for each lowering mode (eager, eager with
 * progress writes, captured with enter/exit writes) and memop limit (CUDA's
 * 255, and small ones that split every run); a mode the lowering refuses
 * (flush, u64 without 64-bit memops, a frozen wait under capture) is
 * skipped.  Returns the plans checked. */
static unsigned check_rank(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t r)
{
    static const unsigned modes[] = {0, CES_LOWER_PROGRESS, CES_LOWER_CAPTURE,
                                     CES_LOWER_CAPTURE | CES_LOWER_FLIGHT,
                                     CES_LOWER_PROGRESS | CES_LOWER_FLIGHT};
    static const uint32_t maxes[] = {0, 3, 4, 7};
    unsigned plans = 0;

    for (size_t mi = 0; mi < sizeof(modes) / sizeof(modes[0]); mi++) {
        for (size_t xi = 0; xi < sizeof(maxes) / sizeof(maxes[0]); xi++) {
            struct ces_cuda_caps caps = {1, 1, maxes[xi], CES_CUDA_SPLIT_WAIT_BYTES};
            struct ces_cuda_plan *p = NULL;
            int rc = ces_cuda_lower(ctx, g, r, &caps, modes[mi], &p);

            if (rc == CES_ERR_UNSUPPORTED)
                continue;
            assert_int_equal(rc, CES_OK);
            check_plan(g, r, &caps, modes[mi], p);
            ces_cuda_plan_destroy(p);
            plans++;
        }
    }
    return plans;
}

/* Every builder's graph (every collective, protocol, phase, variant, 2..5
 * ranks, two iterations, first_iter 1 and far along) lowers, on every rank,
 * into exactly its ops. */
static void test_plans_builders(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    static const uint32_t variants[] = {0, CES_COLL_F_OVERLAP, CES_COLL_F_INPLACE,
                                        CES_COLL_F_DIRECTED, CES_COLL_F_EARLY};
    unsigned plans = 0;

    (void)state;
    for (uint32_t coll = 0; coll < CES_COLL_COUNT; coll++) {
        for (uint32_t proto = 0; proto < CES_PROTO_COUNT; proto++) {
            for (uint32_t phase = 0; phase < 2; phase++) {
                for (size_t vi = 0; vi < sizeof(variants) / sizeof(variants[0]); vi++) {
                    for (uint32_t n = 2; n <= 5; n++) {
                        struct ces_coll_params p =
                            ces_test_coll_params(coll, proto, n, 60 * 64, 2, phase);
                        struct ces_graph *g = NULL;

                        p.flags = variants[vi];
                        p.root = n - 1;
                        p.wake = vi == 0 ? 3 : 0;
                        p.first_iter = n == 3 ? (UINT64_C(1) << 32) - 1 : 1;
                        if (ces_coll_build(ctx, &p, &g) != CES_OK)
                            continue; /* a combination the builder refuses */
                        for (uint32_t r = 0; r < n; r++)
                            plans += check_rank(ctx, g, r);
                        if (n == 4 && ces_graph_streams(g) > 1) {
                            /* shared queues: lowered in line order */
                            assert_int_equal(ces_graph_set_connections(g, 1), CES_OK);
                            for (uint32_t r = 0; r < n; r++)
                                plans += check_rank(ctx, g, r);
                        }
                        ces_graph_destroy(g);
                    }
                }
            }
        }
    }
    assert_true(plans > 1000);
    ces_test_ctx_end(ctx, &st);
}

/* Every fixture that validates, good and bad (a bad one is lowered as
 * faithfully: the checker is what refuses it), on every rank. */
static void test_plans_fixtures(void **state)
{
    static const char *const dirs[] = {"good", "bad", "golden"};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    unsigned plans = 0;

    (void)state;
    for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
        char **paths = NULL;
        size_t np = ces_test_list(dirs[d], ".ces", &paths);

        for (size_t i = 0; i < np; i++) {
            struct ces_graph *g = NULL;

            if (ces_graph_load(ctx, paths[i], &g) != CES_OK)
                continue;
            if (ces_graph_validate(g, NULL) == CES_OK)
                for (uint32_t r = 0; r < ces_graph_ranks(g); r++)
                    plans += check_rank(ctx, g, r);
            ces_graph_destroy(g);
        }
        ces_test_list_free(paths, np);
    }
    assert_true(plans > 500);
    ces_test_ctx_end(ctx, &st);
}

/* The collectives' selected schedules (ces_cuda_coll_select, eager and
 * captured, in place too), up to 258 ranks, whose barriers fill several
 * memop calls, on the ranks at either end and the root. */
static void test_plans_selected(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    static const uint32_t colls[] = {CES_COLL_ALLTOALL, CES_COLL_ALLGATHER, CES_COLL_GATHER,
                                     CES_COLL_SCATTER, CES_COLL_BROADCAST, CES_COLL_BARRIER};
    static const uint32_t ranks[] = {2, 3, 8, 258};
    unsigned plans = 0;

    (void)state;
    for (size_t ci = 0; ci < sizeof(colls) / sizeof(colls[0]); ci++) {
        for (size_t ni = 0; ni < sizeof(ranks) / sizeof(ranks[0]); ni++) {
            for (int cap = 0; cap < 2; cap++) {
                for (int inplace = 0; inplace < 2; inplace++) {
                    uint32_t n = ranks[ni], root = n / 2, who[] = {0, 1, root, n - 1};
                    struct ces_coll_params p;
                    struct ces_graph *g = NULL;

                    ces_cuda_coll_select(&p, colls[ci], n, (uint64_t)n * 64, root, cap);
                    if (inplace)
                        p.flags = CES_COLL_F_INPLACE;
                    if (ces_coll_build(ctx, &p, &g) != CES_OK)
                        continue;
                    for (size_t w = 0; w < sizeof(who) / sizeof(who[0]); w++)
                        plans += check_rank(ctx, g, who[w]);
                    ces_graph_destroy(g);
                }
            }
        }
    }
    assert_true(plans > 500);
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eager),     cmocka_unit_test(test_capture),
        cmocka_unit_test(test_progress),  cmocka_unit_test(test_progress_span),
        cmocka_unit_test(test_flight),
        cmocka_unit_test(test_splits),    cmocka_unit_test(test_split_barrier),
        cmocka_unit_test(test_split_inputs),
        cmocka_unit_test(test_multicast_and_fence), cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_u64_cyclic),
        cmocka_unit_test(test_u64_cyclic_kept),
        cmocka_unit_test(test_streams),   cmocka_unit_test(test_links),
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_builders),  cmocka_unit_test(test_group),
        cmocka_unit_test(test_group_staged),
        cmocka_unit_test(test_group_side),
        cmocka_unit_test(test_group_captured),
        cmocka_unit_test(test_group_captured_staged),
        cmocka_unit_test(test_group_ranks),
        cmocka_unit_test(test_group_arrive),
        cmocka_unit_test(test_queues_env),
        cmocka_unit_test(test_queues_rule),
        cmocka_unit_test(test_queues_message),
        cmocka_unit_test(test_queues_adopt),
        cmocka_unit_test(test_plans_builders),
        cmocka_unit_test(test_plans_fixtures),
        cmocka_unit_test(test_plans_selected),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
