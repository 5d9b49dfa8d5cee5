/*
 * tests/core/test_dot.c - the Graphviz emitter: deterministic text, a golden
 * picture of a tiny schedule, overlay styling, write -> wait edges exactly
 * the satisfying ones (u32 cyclic >=, u64 plain >=, ==), data edges, and
 * writing .dot, .svg and .png files (replaced only when complete).
 */
#include "ces_test.h"
#include "internal.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char tiny_text[] =
    "cesync 1\n"
    "ranks 2\n"
    "streams 1\n"
    "buffer send 8\n"
    "buffer recv 8\n"
    "signal ready u32 2\n"
    "phase eager x1\n"
    "r* : produce send[0:8]\n"
    "r* over p : write ready[$r]@$p = $i\n"
    "r* over p : wait ready[$p] == $i\n"
    "r* : batch\n"
    "r* over p : copy send[0:8] -> recv[0:8]@$p\n"
    "r* : end\n"
    "r* over p : write ready[$r]@$p = 7\n"
    "r* over p : wait ready[$p] == 7\n"
    "r* : consume recv[0:8] == send[0:8]@(1-$r)\n"
    "phase graph x2\n"
    "r0 : write ready[0]@1 = 9\n"
    "r1 : wait ready[0] >= 9\n";

static struct ces_graph *tiny(struct ces_ctx *ctx)
{
    struct ces_prog *prog = NULL;
    struct ces_graph *g = NULL;

    if (ces_prog_parse(ctx, tiny_text, strlen(tiny_text), "tiny", &prog) != CES_OK ||
        ces_prog_expand(ctx, prog, &g) != CES_OK)
        fail_msg("tiny: %s", ces_ctx_last_error(ctx));
    ces_prog_destroy(prog);
    return g;
}

static char *emit(struct ces_ctx *ctx, const struct ces_graph *g,
                  const struct ces_dot_overlay *ov)
{
    /* static: ces_dot_emit is given its address, and with a local GCC 12
     * at -O3 takes the returned text for a pointer that may point to that
     * local (-Wdangling-pointer, an error under -Werror) */
    static char *text;
    size_t len = 0;

    text = NULL;
    if (ces_dot_emit(ctx, g, ov, &text, &len) != CES_OK)
        fail_msg("emit: %s", ces_ctx_last_error(ctx));
    assert_int_equal(strlen(text), len);
    return text;
}

static void test_golden_and_deterministic(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    char *a = emit(ctx, g, NULL), *b = emit(ctx, g, NULL), *want;
    char path[512];
    int update = getenv("CES_UPDATE_GOLDEN") != NULL;

    (void)state;
    assert_string_equal(a, b);
    snprintf(path, sizeof(path), "%s/golden/dot_tiny_r2.dot", CES_FIXTURES);
    if (update) {
        FILE *f = fopen(path, "w");

        assert_non_null(f);
        fputs(a, f);
        fclose(f);
    } else {
        want = ces_test_read_file(path, NULL);
        assert_string_equal(a, want);
        free(want);
    }
    ces_free(ctx, a);
    ces_free(ctx, b);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
    /* rewritten, the golden file was compared with nothing */
    if (update)
        skip();
}

/* The structure of the tiny picture, independent of styling. */
static void test_structure(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    char *t = emit(ctx, g, NULL);

    (void)state;
    assert_non_null(strstr(t, "subgraph cluster_r0 {\nlabel=\"rank 0\""));
    assert_non_null(strstr(t, "subgraph cluster_r1_s0 {\nlabel=\"stream 0\""));
    assert_non_null(strstr(t, "label=\"iteration 1\""));
    assert_non_null(strstr(t, "label=\"graph, replayed x2 (iterations 2..3)\""));
    /* node labels: position and op text; the batch is a box, not a node */
    assert_non_null(strstr(t, "n0_0_1 [label=\"r0.s0#1\\nwrite ready[0]@1 = 1\""));
    assert_non_null(strstr(t, "n0_1_4 [label=\"r1.s0#4\\ncopy send[0:8] -> recv[0:8]@0\""));
    assert_non_null(strstr(t, "subgraph cluster_batch_0_0_3 {\nlabel=\"batch\""));
    assert_null(strstr(t, "n0_0_3 ["));
    assert_null(strstr(t, "n0_0_5 ["));
    /* graph block drawn once: its op is at #K in every replay, as the
     * report and the faults name it (it said only the first replay's) */
    assert_non_null(strstr(t, "n1_0_0 [label=\"r0.s0#9,#10\\nwrite ready[0]@1 = 9\""));
    /* program order enters and leaves the batch box */
    assert_non_null(strstr(t, "n0_0_2 -> n0_0_4 [color=\"#888888\", lhead=cluster_batch_0_0_3];"));
    assert_non_null(strstr(t, "n0_0_4 -> n0_0_6 [color=\"#888888\", ltail=cluster_batch_0_0_3];"));
    /* program order continues across blocks */
    assert_non_null(strstr(t, "n0_0_8 -> n1_0_0 [color=\"#888888\"];"));
    /* data edge: r0's copy into r1's recv -> r1's consume */
    assert_non_null(strstr(t, "n0_0_4 -> n0_1_8 [color="));
    assert_non_null(strstr(t, "n0_1_4 -> n0_0_8 [color="));
    assert_non_null(strstr(t, "legend [shape=note"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The edges of t whose attributes contain `mark`, "from->to" joined by ';',
 * in output order. */
static void marked_edges(const char *t, const char *mark, char *out, size_t size)
{
    size_t len = 0;

    out[0] = '\0';
    for (const char *line = t; line != NULL && *line != '\0';) {
        const char *nl = strchr(line, '\n');
        char from[64], to[64];

        const char *d = strstr(line, mark);

        if (d != NULL && (nl == NULL || d < nl) && sscanf(line, "%63s -> %63s", from, to) == 2)
            len += (size_t)snprintf(out + len, size - len, "%s->%s;", from, to);
        line = nl != NULL ? nl + 1 : NULL;
    }
}

/* The dashed edges of t in output order. */
static void dashed_edges(const char *t, char *out, size_t size)
{
    marked_edges(t, "style=dashed", out, size);
}

/* Writes on rank 0; waits on rank 1 over u32 slot a[0] and u64 slot b[0]. */
static void test_write_wait_edges(void **state)
{
    static const uint64_t wvals[] = {5, 0xffffffffu, 3, 0x80000003u};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    uint32_t a, b;
    char *t, got[1024];

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "a", CES_U32, 1, &a), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "b", CES_U64, 1, &b), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    for (uint32_t k = 0; k < 4; k++) { /* n0_0_0..3 on a, n0_0_4..7 on b */
        struct ces_op w = {.kind = CES_OP_WRITE, .slot = {a, 1, 0}, .value = wvals[k]};

        assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
    }
    for (uint32_t k = 0; k < 4; k++) {
        struct ces_op w = {.kind = CES_OP_WRITE, .slot = {b, 1, 0}, .value = wvals[k]};

        assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
    }
    {
        struct ces_op waits[] = {
            {.kind = CES_OP_WAIT, .cmp = CES_CMP_GEQ, .slot = {a, 1, 0}, .value = 4},
            {.kind = CES_OP_WAIT, .cmp = CES_CMP_EQ, .slot = {a, 1, 0}, .value = 3},
            {.kind = CES_OP_WAIT, .cmp = CES_CMP_GEQ, .slot = {b, 1, 0}, .value = 4},
            {.kind = CES_OP_WAIT, .cmp = CES_CMP_EQ, .slot = {b, 1, 0}, .value = 3},
            {.kind = CES_OP_WAIT, .cmp = CES_CMP_EQ, .slot = {a, 0, 0}, .value = 3},
        };

        for (size_t k = 0; k < 4; k++)
            assert_int_equal(ces_graph_add_op(g, 1, &waits[k]), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, &waits[4]), CES_OK); /* other rank's slot */
    }
    t = emit(ctx, g, NULL);
    dashed_edges(t, got, sizeof(got));
    /* u32 >= 4 is cyclic: 5 and 0x80000003 satisfy it, 0xffffffff (= -1) and
     * 3 do not; == 3 only 3; u64 >= 4 is plain: 5, 0xffffffff, 0x80000003;
     * the wait on rank 0's slot has no writer. */
    assert_string_equal(got, "n0_0_0->n0_1_0;n0_0_2->n0_1_1;n0_0_3->n0_1_0;"
                             "n0_0_4->n0_1_2;n0_0_5->n0_1_2;n0_0_6->n0_1_3;"
                             "n0_0_7->n0_1_2;");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Writes with no wait in the whole graph: the writes are drawn, with no
 * write -> wait edge (the list of waits is empty, not merely unmatched). */
static void test_writes_without_waits(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    uint32_t a;
    char *t, got[64];

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "a", CES_U32, 1, &a), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    for (uint32_t r = 0; r < 2; r++) {
        struct ces_op w = {.kind = CES_OP_WRITE, .slot = {a, 1 - r, 0}, .value = 1};

        assert_int_equal(ces_graph_add_op(g, r, &w), CES_OK);
    }
    t = emit(ctx, g, NULL);
    dashed_edges(t, got, sizeof(got));
    assert_string_equal(got, "");
    assert_non_null(strstr(t, "n0_0_0 ["));
    assert_non_null(strstr(t, "n0_1_0 ["));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A node's #K counts every earlier replay, past 2^32 too: after 3e9
 * replays of two ops the fence of the next block is r0.s0#6000000000 (it
 * was labelled with the count cut to 32 bits), and the second op's last
 * replay is #5999999999. */
static void test_far_position(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_op fence = {.kind = CES_OP_FENCE};
    char *t;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 1, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 3000000000u), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &fence), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &fence), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &fence), CES_OK);
    t = emit(ctx, g, NULL);
    assert_non_null(strstr(t, "r0.s0#1,#3,...,#5999999999\\n"));
    assert_non_null(strstr(t, "r0.s0#6000000000\\n"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A graph phase's op names its place in each replay: a lane's replays lie
 * as many ops apart as the lane has in the phase (a batch and its end
 * among them), each stream its own; three replays are listed whole. */
static void test_replay_positions(void **state)
{
    static const char text[] = "cesync 1\n"
                               "ranks 2\n"
                               "streams 2\n"
                               "buffer a 8\n"
                               "signal f u32 1\n"
                               "phase eager x1\n"
                               "r0 : fence\n"
                               "phase graph x3\n"
                               "r0 : batch\n"
                               "r0 : copy a[0:8] -> a[0:8]@1\n"
                               "r0 : end\n"
                               "r0 : write f[0]@1 = 1\n"
                               "r0 s1 : fence\n"
                               "r1 : wait f[0] >= 1\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    char *t = emit(ctx, g, NULL);

    (void)state;
    assert_non_null(strstr(t, "n1_0_1 [label=\"r0.s0#2,#6,#10\\ncopy a[0:8] -> a[0:8]@1\""));
    assert_non_null(strstr(t, "n1_0_3 [label=\"r0.s0#4,#8,#12\\nwrite f[0]@1 = 1\""));
    assert_non_null(strstr(t, "n1_0_4 [label=\"r0.s1#0,#1,#2\\nfence\""));
    assert_non_null(strstr(t, "n1_1_0 [label=\"r1.s0#0,#1,#2\\nwait f[0] >= 1\""));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Data edges: a remote copy points at the ops of its destination rank that
 * read an overlapping region (copies and consumes, partial overlaps and an
 * empty region too); when as many copies write the region as ops read it,
 * the i-th writer (ranks, then indices, local copies included) goes to the
 * i-th reader only. */
static void test_data_edges(void **state)
{
    static const char text[] =
        "cesync 1\nranks 3\n"
        "buffer src 32\nbuffer stage 8\nbuffer out 32\nbuffer pair 8\nbuffer mixed 8\n"
        "phase eager x1\n"
        /* a staging slot: three writers, three readers, paired in order */
        "r0 : copy src[0:8] -> stage[0:8]@1\n"
        "r0 : copy src[8:16] -> stage[0:8]@1\n"
        "r0 : copy src[16:24] -> stage[0:8]@1\n"
        "r1 : copy stage[0:8] -> out[0:8]\n"
        "r1 : copy stage[0:8] -> out[8:16]\n"
        "r1 : copy stage[0:8] -> out[16:24]\n"
        /* two writers, one reader: both point at it */
        "r0 : copy src[0:8] -> out[0:8]@2\n"
        "r1 : copy src[0:8] -> out[0:8]@2\n"
        "r2 : consume out[0:8]\n"
        /* partial overlaps; r1's src is not the one written */
        "r0 : copy src[0:8] -> src[4:12]@2\n"
        "r2 : consume src[0:8]\n"
        "r2 : consume src[8:16]\n"
        "r2 : consume src[12:16]\n"
        "r1 : consume src[4:12]\n"
        /* an empty region inside another overlaps it */
        "r0 : copy src[0:0] -> out[30:30]@1\n"
        "r1 : consume out[24:32]\n"
        /* writers paired by rank, not by position in the text */
        "r2 : copy src[0:8] -> pair[0:8]@1\n"
        "r0 : copy src[8:16] -> pair[0:8]@1\n"
        "r1 : consume pair[0:8]\n"
        "r1 : consume pair[0:8]\n"
        /* a local copy counts as a writer */
        "r1 : copy src[0:8] -> mixed[0:8]\n"
        "r0 : copy src[0:8] -> mixed[0:8]@1\n"
        "r1 : consume mixed[0:8]\n"
        "r1 : consume mixed[0:8]\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *prog = NULL;
    struct ces_graph *g = NULL;
    char *t, got[1024];

    (void)state;
    if (ces_prog_parse(ctx, text, strlen(text), "data", &prog) != CES_OK ||
        ces_prog_expand(ctx, prog, &g) != CES_OK)
        fail_msg("data: %s", ces_ctx_last_error(ctx));
    ces_prog_destroy(prog);
    t = emit(ctx, g, NULL);
    marked_edges(t, "#c0392b", got, sizeof(got));
    /* r0: 0-2 stage, 3 out@2, 4 src@2, 5 out[30:30]@1, 6 pair@1, 7 mixed@1;
     * r1: 0-2 stage readers, 3 out@2, 4 src, 5 out[24:32], 6-7 pair, 8 mixed
     * (local), 9-10 mixed readers; r2: 0 out, 1-3 src, 4 copy from src[0:8] */
    assert_string_equal(got, "n0_0_0->n0_1_0;n0_0_1->n0_1_1;n0_0_2->n0_1_2;"
                             "n0_0_3->n0_2_0;n0_0_4->n0_2_1;n0_0_4->n0_2_2;n0_0_4->n0_2_4;"
                             "n0_0_5->n0_1_5;n0_0_6->n0_1_6;n0_0_7->n0_1_9;"
                             "n0_1_3->n0_2_0;n0_2_4->n0_1_7;");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Too many write -> wait pairs: those across blocks (mono's counters of a
 * later iteration satisfy every earlier >= wait) are left out and counted. */
static void test_many_edges(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p;
    struct ces_graph *g = NULL;
    char *t;

    (void)state;
    ces_coll_params_init(&p, CES_COLL_BARRIER);
    p.ranks = 8;
    p.iterations = 10;
    assert_int_equal(ces_coll_build(ctx, &p, &g), CES_OK);
    t = emit(ctx, g, NULL);
    /* 56 writes per block; the write of block j satisfies the waits of
     * blocks 0..j: 560 pairs within a block, 56 * 45 across blocks */
    assert_non_null(strstr(t, "(2520 write -> wait edges between different blocks not drawn)"));
    assert_int_equal(ces_test_count(t, "[style=dashed"), 560);
    assert_non_null(strstr(t, "graph [splines=line"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    /* two iterations: 112 + 56 pairs, all drawn */
    p.iterations = 2;
    assert_int_equal(ces_coll_build(ctx, &p, &g), CES_OK);
    t = emit(ctx, g, NULL);
    assert_null(strstr(t, "not drawn"));
    assert_int_equal(ces_test_count(t, "[style=dashed"), 168);
    assert_null(strstr(t, "graph [splines=line"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_overlay(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    struct ces_dot_mark marks[] = {
        {0, 0, 1, 1, CES_DOT_STEP, 0},    {0, 1, 2, 2, CES_DOT_STEP, 0},
        {0, 1, 1, 0, CES_DOT_BLOCKED, 0}, {0, 0, 8, 5, CES_DOT_STEP, 0},
        {0, 0, 8, 5, CES_DOT_RACE, 0},    {1, 1, 0, 3, CES_DOT_STEP, 0},
        {1, 1, 0, 4, CES_DOT_STEP, 1},
    };
    struct ces_dot_overlay ov = {marks, 7, "verdict: HANG \"x\"", NULL, 0};
    char *t;

    (void)state;
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "label=\"verdict: HANG \\\"x\\\"\""));
    assert_non_null(strstr(t, "n0_0_1 [label=\"r0.s0#1\\nwrite ready[0]@1 = 1\\nstep 1\""));
    assert_non_null(strstr(t, "n0_1_2 [label=\"r1.s0#2\\nwait ready[0] == 1\\nstep 2\""));
    assert_non_null(strstr(t, "n0_1_1 [label=\"r1.s0#1\\nwrite ready[1]@0 = 1\", "
                              "fillcolor=\"#ff9a9a\", color=\"#cc0000\""));
    /* a step and a race mark of the same step: the number once */
    assert_non_null(strstr(t, "n0_0_8 [label=\"r0.s0#8\\nconsume recv[0:8] == send[0:8]@1"
                              "\\nstep 5\", fillcolor=\"#ffc680\", color=\"#e67300\""));
    assert_non_null(strstr(t, "n1_1_0 [label=\"r1.s0#9,#10\\nwait ready[0] >= 9\\nsteps 3,4\""));
    assert_non_null(strstr(t, "overlay: steps numbered, red = blocked (or released by the "
                              "watchdog), teal = stopped by a fault, orange = race, "
                              "magenta = found wrong bytes\\l"));
    ces_free(ctx, t);

    marks[6].index = 1;
    assert_int_equal(ces_dot_emit(ctx, g, &ov, &t, NULL), CES_ERR_INVALID);
    assert_null(t);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "dot overlay: mark 6 names op 1 of rank 1 in block 1, which has 1 ops");
    marks[6].index = 0;
    marks[6].block = 2;
    assert_int_equal(ces_dot_emit(ctx, g, &ov, &t, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "dot overlay: mark 6 names block 2 rank 1, but "
                                                 "the graph has 2 blocks and 2 ranks");
    marks[6].block = 1;
    marks[6].rep = 2;
    assert_int_equal(ces_dot_emit(ctx, g, &ov, &t, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "dot overlay: mark 6 names replay 2 of block 1, "
                                                 "which has 2 replays");
    marks[6].rep = 1;
    marks[6].style = 7;
    assert_int_equal(ces_dot_emit(ctx, g, &ov, &t, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "dot overlay: mark 6 has unknown style 7");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A wait-for cycle of one op, a wait that only a later op of its own
 * stream could satisfy, is a loop on its node: the legend named an edge
 * from an op to the op it waits for alone, and no loop. */
static void test_overlay_cycle_self(void **state)
{
    static const char text[] = "cesync 1\n"
                               "ranks 1\n"
                               "signal f u32 1\n"
                               "phase eager x1\n"
                               "r0 : wait f[0] >= 1\n"
                               "r0 : write f[0]@0 = 1\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *prog = NULL;
    struct ces_graph *g = NULL;
    struct ces_dot_mark wait = {0, 0, 0, 0, CES_DOT_BLOCKED, 0};
    struct ces_dot_overlay ov = {&wait, 1, "DEADLOCK counterexample", &wait, 1};
    char *t;

    (void)state;
    assert_int_equal(ces_prog_parse(ctx, text, strlen(text), "s.ces", &prog), CES_OK);
    assert_int_equal(ces_prog_expand(ctx, prog, &g), CES_OK);
    ces_prog_destroy(prog);
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "n0_0_0 -> n0_0_0 [color=\"#8b0000\", penwidth=3.5, arrowsize=1, "
                              "constraint=false];\n"));
    assert_non_null(strstr(t, "thick dark red loop: the deadlock's cycle of one op, which waits "
                              "for itself (for a later op of its own stream)\\l"));
    assert_null(strstr(t, "an op -> the op it waits for"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A rank with nothing to draw keeps its place among the others, level
 * with their first ops and saying "no ops" (its box, chained to nothing,
 * floated above the others, after the last rank: 'cesync dot sendrecv
 * --ranks 4 --pairs 0:1' drew ranks 2 and 3 as empty boxes over rank 1);
 * one of batches without copies alone says nothing. */
static void test_empty_rank_in_order(void **state)
{
    static const char text[] = "cesync 1\n"
                               "ranks 4\n"
                               "buffer a 16\n"
                               "phase eager x1\n"
                               "r0 : produce a[0:8]\n"
                               "r2 : produce a[0:8]\n"
                               "r3 : batch\n"
                               "r3 : end\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    char *t = emit(ctx, g, NULL);

    (void)state;
    assert_non_null(strstr(t, "subgraph cluster_r1 {\nlabel=\"rank 1\"; style=rounded; "
                              "color=\"#333333\"; penwidth=1.5; fontsize=14;\nrank_root1 "
                              "[style=invis, ordering=out, label=\"\", width=0, height=0];\n"
                              "rank_empty1 [label=\"no ops\", shape=plaintext, style=\"\", "
                              "fontcolor=\"#777777\"];\n}\n"));
    assert_non_null(strstr(t, "rank_empty3 [label=\"\", shape=plaintext"));
    assert_null(strstr(t, "rank_empty0"));
    assert_null(strstr(t, "rank_empty2"));
    assert_non_null(strstr(t, "order_root -> rank_root0 [style=invis];\n"
                              "rank_root0 -> n0_0_0 [style=invis];\n"
                              "order_root -> rank_root1 [style=invis];\n"
                              "rank_root1 -> rank_empty1 [style=invis];\n"
                              "order_root -> rank_root2 [style=invis];\n"
                              "rank_root2 -> n0_2_0 [style=invis];\n"
                              "order_root -> rank_root3 [style=invis];\n"
                              "rank_root3 -> rank_empty3 [style=invis];\n"));
    assert_non_null(strstr(t, "{ rank=same; n0_0_0; rank_empty1; n0_2_0; rank_empty3; legend; }"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A graph phase replayed once names its one iteration: its box said
 * "replayed x1 (iterations 2..2)". */
static void test_single_replay_label(void **state)
{
    static const char text[] = "cesync 1\n"
                               "ranks 1\n"
                               "buffer a 16\n"
                               "phase eager x1\n"
                               "r0 : produce a[0:8]\n"
                               "phase graph x1\n"
                               "r0 : produce a[0:8]\n"
                               "phase graph x2\n"
                               "r0 : produce a[0:8]\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    char *t = emit(ctx, g, NULL);

    (void)state;
    assert_non_null(strstr(t, "label=\"graph, replayed x1 (iteration 2)\"; "
                              "style=\"rounded,filled\"; fillcolor=\"#f4f0fa\"; "
                              "color=\"#8a6bbf\";\n"));
    assert_non_null(strstr(t, "label=\"graph, replayed x2 (iterations 3..4)\""));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A label holds the op's whole text, however long its names: it was cut
 * at 511 bytes, dropping the regions after a long buffer name. */
static void test_long_name_label(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_op cp = {.kind = CES_OP_COPY, .a = {0, 0, 0, 8}, .b = {1, 1, 0, 8}};
    char name[601], want[700], *t;

    (void)state;
    memset(name, 'b', 600);
    name[600] = '\0';
    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, name, 8, NULL), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "x", 8, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &cp), CES_OK);
    t = emit(ctx, g, NULL);
    snprintf(want, sizeof(want), "n0_0_0 [label=\"r0.s0#0\\ncopy %s[0:8] -> x[0:8]@1\"", name);
    assert_non_null(strstr(t, want));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A stream blocked at a `batch` or an `end` (behind its hardware queue's
 * head, or stopped there by a fault) has no node to paint: the batch's box
 * is drawn red instead, saying which.  The mark was dropped, so the
 * picture showed fewer blocked streams than the report.  Steps at a batch
 * or an end are numbered in the box's title. */
static void test_overlay_blocked_batch(void **state)
{
    static const char text[] = "cesync 1\n"
                               "ranks 1\n"
                               "streams 2\n"
                               "buffer a 16\n"
                               "phase eager x1\n"
                               "r0 s1 : batch\n"
                               "r0 s1 : copy a[0:8] -> a[8:16]\n"
                               "r0 s1 : end\n"
                               "r0 : batch\n"
                               "r0 : copy a[0:4] -> a[4:8]\n"
                               "r0 : end\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_prog *prog = NULL;
    struct ces_graph *g = NULL;
    struct ces_dot_mark marks[] = {{0, 0, 0, 0, CES_DOT_BLOCKED, 0}, {0, 0, 5, 0, CES_DOT_BLOCKED, 0}};
    struct ces_dot_overlay ov = {marks, 2, "DEADLOCK counterexample", NULL, 0};
    char *t;

    (void)state;
    assert_int_equal(ces_prog_parse(ctx, text, strlen(text), "b.ces", &prog), CES_OK);
    assert_int_equal(ces_prog_expand(ctx, prog, &g), CES_OK);
    ces_prog_destroy(prog);
    t = emit(ctx, g, &ov);
    assert_null(strstr(t, "#8b0000")); /* no cycle: no edge of one, no legend line */
    assert_null(strstr(t, "thick dark red"));
    assert_non_null(strstr(t, "subgraph cluster_batch_0_0_0 {\nlabel=\"batch\\nblocked before "
                              "its copies\"; style=\"rounded,filled\"; fillcolor=\"#ffe0e0\"; "
                              "color=\"#cc0000\"; penwidth=2.5;\n"));
    assert_non_null(strstr(t, "subgraph cluster_batch_0_0_3 {\nlabel=\"batch\\nblocked at "
                              "its end\"; style=\"rounded,filled\"; fillcolor=\"#ffe0e0\"; "
                              "color=\"#cc0000\"; penwidth=2.5;\n"));
    ces_free(ctx, t);
    /* a wait-for cycle through the batch blocked before its copies and the
     * one blocked at its end, which have no nodes: edges between their
     * copies, clipped at their boxes */
    ov.cycle = marks;
    ov.ncycle = 2;
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "n0_0_1 -> n0_0_4 [color=\"#8b0000\", penwidth=3.5, arrowsize=1, "
                              "constraint=false, ltail=cluster_batch_0_0_0, "
                              "lhead=cluster_batch_0_0_3];\n"));
    assert_non_null(strstr(t, "n0_0_4 -> n0_0_1 [color=\"#8b0000\", penwidth=3.5, arrowsize=1, "
                              "constraint=false, ltail=cluster_batch_0_0_3, "
                              "lhead=cluster_batch_0_0_0];\n"));
    assert_non_null(strstr(t, "thick dark red: the deadlock's cycle, an op -> the op it waits "
                              "for\\l"));
    ces_free(ctx, t);
    /* an op of the cycle the graph does not have, a cycle without ops */
    {
        struct ces_dot_mark far = {0, 0, 6, 0, CES_DOT_BLOCKED, 0};

        ov.cycle = &far;
        ov.ncycle = 1;
        assert_int_equal(ces_dot_emit(ctx, g, &ov, &t, NULL), CES_ERR_INVALID);
        assert_string_equal(ces_ctx_last_error(ctx), "dot overlay: op 0 of the cycle names op 6 "
                                                     "of rank 0 in block 0, which has 6 ops");
        ov.cycle = NULL;
        assert_int_equal(ces_dot_emit(ctx, g, &ov, &t, NULL), CES_ERR_INVALID);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "dot overlay: ncycle is 1 but cycle is NULL");
        ov.ncycle = 0;
    }
    /* without marks the boxes are green */
    t = emit(ctx, g, NULL);
    assert_int_equal(ces_test_count(t, "label=\"batch\"; style=\"rounded,filled\"; "
                                     "fillcolor=\"#f3fbf3\"; color=\"#4a9a4a\";\n"), 2);
    ces_free(ctx, t);
    /* the steps of a batch and its end, which have no node, are in its
     * box's title, blocked or not (the picture skipped their numbers) */
    {
        struct ces_dot_mark steps[] = {{0, 0, 0, 1, CES_DOT_STEP, 0},
                                       {0, 0, 2, 3, CES_DOT_STEP, 0},
                                       {0, 0, 3, 4, CES_DOT_STEP, 0},
                                       {0, 0, 5, 0, CES_DOT_BLOCKED, 0}};
        struct ces_dot_overlay sov = {steps, 4, "HANG counterexample", NULL, 0};

        t = emit(ctx, g, &sov);
        assert_non_null(strstr(t, "subgraph cluster_batch_0_0_0 {\nlabel=\"batch\\nstep 1\\n"
                                  "end: step 3\"; style=\"rounded,filled\"; "
                                  "fillcolor=\"#f3fbf3\";"));
        assert_non_null(strstr(t, "subgraph cluster_batch_0_0_3 {\nlabel=\"batch\\nblocked at "
                                  "its end\\nstep 4\"; style=\"rounded,filled\"; "
                                  "fillcolor=\"#ffe0e0\";"));
        ces_free(ctx, t);
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static char *tmp_path(const char *suffix);

/* A wait and a batch on another stream, replayed 4 times: the marks of
 * test_overlay_blocked_replay and test_overlay_stopped. */
static const char replayed_batch[] = "cesync 1\n"
                                     "ranks 1\n"
                                     "streams 2\n"
                                     "buffer a 16\n"
                                     "signal f u32 1\n"
                                     "phase graph x4\n"
                                     "r0 : wait f[0] >= 1\n"
                                     "r0 s1 : batch\n"
                                     "r0 s1 : copy a[0:8] -> a[8:16]\n"
                                     "r0 s1 : end\n";

/* A node of a graph phase stands for its op in every replay, named at the
 * first two and the last: a blocked one says in which ("blocked at #7"),
 * and so does a blocked batch's box.  Nothing in the picture named the
 * replay the report's position is in. */
static void test_overlay_blocked_replay(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, replayed_batch);
    struct ces_dot_mark marks[] = {{0, 0, 0, 1, CES_DOT_STEP, 0},
                                   {0, 0, 0, 0, CES_DOT_BLOCKED, 3},
                                   {0, 0, 3, 0, CES_DOT_BLOCKED, 2}};
    struct ces_dot_overlay ov = {marks, 3, "HANG counterexample", NULL, 0};
    char *t, *svg;
    int rc;

    (void)state;
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "n0_0_0 [label=\"r0.s0#0,#1,...,#3\\nwait f[0] >= 1\\n"
                              "blocked at #3\\nstep 1\", fillcolor=\"#ff9a9a\""));
    assert_non_null(strstr(t, "subgraph cluster_batch_0_0_1 {\nlabel=\"batch\\nblocked at "
                              "its end (#8)\"; style=\"rounded,filled\"; fillcolor=\"#ffe0e0\"; "
                              "color=\"#cc0000\"; penwidth=2.5;\n"));
    marks[2].index = 1;
    ces_free(ctx, t);
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "label=\"batch\\nblocked before its copies (#6)\";"));
    /* Graphviz draws it, where it is installed */
    svg = tmp_path(".svg");
    rc = ces_dot_write(ctx, t, svg);
    if (rc == CES_ERR_UNSUPPORTED)
        print_message("dot not installed; skipping rendering\n");
    else
        assert_int_equal(rc, CES_OK);
    unlink(svg);
    free(svg);
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A stream stopped by a fault is drawn apart from one that is blocked:
 * its node (or its batch's box) in teal, saying "stopped before #K" in a
 * block of more than one replay.  It was red and "blocked at #K", like a
 * stream that hangs on a wait. */
static void test_overlay_stopped(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, replayed_batch);
    struct ces_dot_mark marks[] = {{0, 0, 0, 1, CES_DOT_STEP, 0},
                                   {0, 0, 0, 0, CES_DOT_STOPPED, 3},
                                   {0, 0, 3, 0, CES_DOT_STOPPED, 2}};
    struct ces_dot_overlay ov = {marks, 3, "HANG counterexample", NULL, 0};
    char *t;

    (void)state;
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "n0_0_0 [label=\"r0.s0#0,#1,...,#3\\nwait f[0] >= 1\\n"
                              "stopped before #3\\nstep 1\", fillcolor=\"#8fd6cf\", "
                              "color=\"#00736b\", penwidth=2.5];\n"));
    assert_non_null(strstr(t, "subgraph cluster_batch_0_0_1 {\nlabel=\"batch\\nstopped at "
                              "its end (#8)\"; style=\"rounded,filled\"; fillcolor=\"#dff3f1\"; "
                              "color=\"#00736b\"; penwidth=2.5;\n"));
    assert_null(strstr(t, "#ff9a9a"));
    assert_null(strstr(t, "#ffe0e0"));
    assert_non_null(strstr(t, "teal = stopped by a fault"));
    assert_null(strstr(t, "halves"));
    ces_free(ctx, t);
    marks[2].index = 1;
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "label=\"batch\\nstopped before its copies (#6)\";"));
    ces_free(ctx, t);
    /* the style after it is unknown */
    marks[2].style = CES_DOT_STOPPED + 1;
    assert_int_equal(ces_dot_emit(ctx, g, &ov, &t, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "dot overlay: mark 2 has unknown style 5");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* An op blocked (or released by the watchdog) in one replay and stopped
 * by a fault before another is drawn in red and teal halves, saying both,
 * and the legend says what the halves mean; so is a batch's box.  It was
 * red alone, the stop shown only in its label. */
static void test_overlay_blocked_and_stopped(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, replayed_batch);
    struct ces_dot_mark marks[] = {{0, 0, 0, 1, CES_DOT_STEP, 0},
                                   {0, 0, 0, 0, CES_DOT_BLOCKED, 0},
                                   {0, 0, 0, 0, CES_DOT_BLOCKED, 1},
                                   {0, 0, 0, 0, CES_DOT_STOPPED, 2},
                                   {0, 0, 3, 0, CES_DOT_BLOCKED, 0},
                                   {0, 0, 3, 0, CES_DOT_STOPPED, 1}};
    struct ces_dot_overlay ov = {marks, 6, "WATCHDOG counterexample", NULL, 0};
    char *t, *svg;
    int rc;

    (void)state;
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "n0_0_0 [label=\"r0.s0#0,#1,...,#3\\nwait f[0] >= 1\\n"
                              "blocked at #0,#1\\nstopped before #2\\nstep 1\", "
                              "fillcolor=\"#ff9a9a;0.5:#8fd6cf\", color=\"#00736b\", "
                              "penwidth=2.5];\n"));
    assert_non_null(strstr(t, "subgraph cluster_batch_0_0_1 {\nlabel=\"batch\\nblocked at "
                              "its end (#2)\\nstopped at its end (#5)\"; "
                              "style=\"rounded,filled\"; fillcolor=\"#ffe0e0;0.5:#dff3f1\"; "
                              "color=\"#00736b\"; penwidth=2.5;\n"));
    assert_non_null(strstr(t, "magenta = found wrong bytes\\lred and teal halves: blocked (or "
                              "released by the watchdog) in one replay, stopped by a fault "
                              "before another\\l"));
    /* Graphviz draws the halves, where it is installed */
    svg = tmp_path(".svg");
    rc = ces_dot_write(ctx, t, svg);
    if (rc == CES_ERR_UNSUPPORTED)
        print_message("dot not installed; skipping rendering\n");
    else
        assert_int_equal(rc, CES_OK);
    unlink(svg);
    free(svg);
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A blocked batch without copies (its stream stopped at a link) gets a
 * node in its box and leads its lane's order: Graphviz draws no empty
 * cluster, so the mark was lost and the lane left out.  Unblocked, an
 * empty batch is not drawn. */
static void test_overlay_blocked_empty_batch(void **state)
{
    static const char text[] = "cesync 1\n"
                               "ranks 1\n"
                               "streams 2\n"
                               "signal f u32 1\n"
                               "phase eager x1\n"
                               "r0 s0 : wait f[0] >= 1\n"
                               "phase eager x1\n"
                               "r0 s1 : batch\n"
                               "r0 s1 : end\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_dot_mark marks[] = {{0, 0, 0, 0, CES_DOT_BLOCKED, 0}, {1, 0, 0, 0, CES_DOT_BLOCKED, 0}};
    struct ces_dot_overlay ov = {marks, 2, "HANG counterexample", NULL, 0};
    char *t;

    (void)state;
    t = emit(ctx, g, &ov);
    /* the wait's lane has no op in block 1: no cluster of that block */
    assert_non_null(strstr(t, "subgraph cluster_b0_r0_s0 {"));
    assert_null(strstr(t, "cluster_b1_r0_s0"));
    assert_non_null(strstr(t, "subgraph cluster_batch_1_0_0 {\nlabel=\"batch\\nblocked before "
                              "its copies\"; style=\"rounded,filled\"; fillcolor=\"#ffe0e0\"; "
                              "color=\"#cc0000\"; penwidth=2.5;\nempty_b1_r0_k0 [shape=plaintext, "
                              "style=\"\", label=\"no copies\"];\n}\n"));
    assert_non_null(strstr(t, "rank_root0 -> empty_b1_r0_k0 [style=invis];\n"));
    ces_free(ctx, t);
    t = emit(ctx, g, NULL);
    assert_null(strstr(t, "cluster_r0_s1"));
    assert_null(strstr(t, "empty_b"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A blocked batch without copies in the middle of its lane keeps its
 * place in program order: the gray edges run into its node and out of it.
 * They went past it, and Graphviz drew it at the top of the lane, above
 * the write that precedes it. */
static void test_overlay_blocked_empty_batch_order(void **state)
{
    static const char text[] = "cesync 1\n"
                               "ranks 1\n"
                               "streams 2\n"
                               "signal f u32 1\n"
                               "phase eager x1\n"
                               "r0 s1 : write f[0] = 1\n"
                               "r0 s1 : batch\n"
                               "r0 s1 : end\n"
                               "r0 s1 : write f[0] = 2\n"
                               "r0 s0 : wait f[0] >= 2\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_dot_mark marks[] = {{0, 0, 0, 1, CES_DOT_STEP, 0}, {0, 0, 1, 0, CES_DOT_BLOCKED, 0},
                                   {0, 0, 4, 0, CES_DOT_BLOCKED, 0}};
    struct ces_dot_overlay ov = {marks, 3, "HANG counterexample", NULL, 0};
    char *t;

    (void)state;
    t = emit(ctx, g, &ov);
    assert_int_equal(ces_test_count(t, " [color=\"#888888\""), 2);
    assert_non_null(strstr(t, "n0_0_0 -> empty_b0_r0_k1 [color=\"#888888\", "
                              "lhead=cluster_batch_0_0_1];\n"));
    assert_non_null(strstr(t, "empty_b0_r0_k1 -> n0_0_3 [color=\"#888888\", "
                              "ltail=cluster_batch_0_0_1];\n"));
    ces_free(ctx, t);
    /* unblocked, the empty batch is not drawn: the write leads to the write */
    t = emit(ctx, g, NULL);
    assert_int_equal(ces_test_count(t, " [color=\"#888888\""), 1);
    assert_non_null(strstr(t, "n0_0_0 -> n0_0_3 [color=\"#888888\"];\n"));
    assert_null(strstr(t, "empty_b"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* An await points at the record it waits for (SEMANTICS.md section 5):
 * the latest record of its event before it in the rank's enqueue order, in
 * an earlier block too; in a graph phase replayed more than once, an await
 * ahead of the phase's records also at the phase's last one (its second
 * replay's).  No edge linked them: the order two streams take from an
 * event, and the delayed write's stream of a delay fault, did not show. */
static void test_event_edges(void **state)
{
    static const char text[] = "cesync 1\n"
                               "ranks 1\n"
                               "streams 2\n"
                               "phase eager x2\n"
                               "r0 s0 : record e\n"
                               "r0 s1 : await e\n"
                               "phase graph x%d\n"
                               "r0 s1 : await e\n"
                               "r0 s0 : record e\n"
                               "r0 s1 : await e\n";
    static const char style[] = " [style=dotted, color=\"#7b3fa0\", penwidth=1.5, "
                                "constraint=false];\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char buf[512], want[512];

    (void)state;
    for (int reps = 1; reps <= 2; reps++) {
        static const char *const edges[] = {"n0_0_0 -> n0_0_1", "n1_0_0 -> n1_0_1",
                                            "n1_0_0 -> n2_0_0", "n2_0_1 -> n2_0_2",
                                            "n2_0_1 -> n2_0_0"};
        struct ces_graph *g;
        char *t;

        snprintf(buf, sizeof(buf), text, reps);
        g = ces_test_text_graph(ctx, buf);
        t = emit(ctx, g, NULL);
        /* the last edge only when the phase is replayed */
        assert_int_equal(ces_test_count(t, style), reps == 1 ? 4 : 5);
        for (int i = 0; i < (reps == 1 ? 4 : 5); i++) {
            snprintf(want, sizeof(want), "%s%s", edges[i], style);
            assert_non_null(strstr(t, want));
        }
        assert_non_null(strstr(t, "dotted purple: record -> an await that waits for it\\l"));
        ces_free(ctx, t);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* The consume that found wrong bytes (a MISMATCH) is painted, as blocked
 * ops and racing accesses are: among a counterexample's numbered steps it
 * was not told from the other consumes.  Blocked and race marks win. */
static void test_overlay_mismatch(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    struct ces_dot_mark marks[] = {{0, 0, 8, 7, CES_DOT_STEP, 0}, {0, 0, 8, 0, CES_DOT_MISMATCH, 0},
                                   {0, 1, 8, 0, CES_DOT_MISMATCH, 0}, {0, 1, 8, 0, CES_DOT_RACE, 0}};
    struct ces_dot_overlay ov = {marks, 2, "MISMATCH counterexample", NULL, 0};
    char *t;

    (void)state;
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "n0_0_8 [label=\"r0.s0#8\\nconsume recv[0:8] == send[0:8]@1\\n"
                              "step 7\", fillcolor=\"#f0a8f0\", color=\"#a0229f\", "
                              "penwidth=2.5];\n"));
    assert_non_null(strstr(t, "red = blocked (or released by the watchdog), teal = stopped by "
                              "a fault, orange = race, magenta = found wrong bytes\\l"));
    ces_free(ctx, t);
    ov.nmarks = 4;
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "n0_1_8 [label=\"r1.s0#8\\nconsume recv[0:8] == send[0:8]@0\", "
                              "fillcolor=\"#ffc680\", color=\"#e67300\", penwidth=2.5];\n"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_null_arguments(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *t = NULL;

    (void)state;
    assert_int_equal(ces_dot_emit(NULL, NULL, NULL, &t, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_dot_emit(ctx, NULL, NULL, &t, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_dot_emit: NULL argument");
    assert_int_equal(ces_dot_write(ctx, NULL, "x.dot"), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_dot_write: NULL argument");
    ces_test_ctx_end(ctx, &st);
}

/* An allocator that puts a guard after every block and checks it when the
 * block is freed: a write past a block's end fails the test even without
 * a sanitizer. */
#define GUARD_BYTES 64

static void *guard_malloc(void *ud, size_t size)
{
    unsigned char *p = malloc(sizeof(size_t) + size + GUARD_BYTES);

    (void)ud;
    if (p == NULL)
        return NULL;
    memcpy(p, &size, sizeof(size));
    memset(p + sizeof(size_t) + size, 0xa5, GUARD_BYTES);
    return p + sizeof(size_t);
}

static void guard_free(void *ud, void *ptr)
{
    unsigned char *p;
    size_t size;

    (void)ud;
    if (ptr == NULL)
        return;
    p = (unsigned char *)ptr - sizeof(size_t);
    memcpy(&size, p, sizeof(size));
    for (size_t i = 0; i < GUARD_BYTES; i++)
        assert_int_equal(p[sizeof(size_t) + size + i], 0xa5);
    free(p);
}

static void *guard_realloc(void *ud, void *ptr, size_t size)
{
    unsigned char *q;
    size_t old;

    if (ptr == NULL)
        return guard_malloc(ud, size);
    memcpy(&old, (unsigned char *)ptr - sizeof(size_t), sizeof(old));
    q = guard_malloc(ud, size);
    if (q != NULL) {
        memcpy(q, ptr, old < size ? old : size);
        guard_free(ud, ptr);
    }
    return q;
}

/* A graph without a block (built but never given a phase) draws as its
 * ranks' empty clusters; the emitter wrote a row of per-stream counters
 * into a block table sized for no blocks. */
static void test_no_blocks(void **state)
{
    struct ces_alloc h = {guard_malloc, guard_realloc, guard_free, NULL};
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g = NULL;
    char *t = NULL;
    size_t len = 0;

    (void)state;
    assert_int_equal(ces_ctx_create(&h, &ctx), CES_OK);
    assert_int_equal(ces_graph_create(ctx, 2, CES_MAX_STREAMS, &g), CES_OK);
    assert_int_equal(ces_dot_emit(ctx, g, NULL, &t, &len), CES_OK);
    assert_int_equal(strncmp(t, "digraph cesync {\n", 17), 0);
    assert_non_null(strstr(t, "subgraph cluster_r1 {"));
    assert_int_equal(strcmp(t + len - 2, "}\n"), 0);
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
}

/* The graph lives in its own context; only the emitter's allocations fail. */
static int emit_body(struct ces_ctx *ctx, void *arg)
{
    char *t = NULL;
    int rc = ces_dot_emit(ctx, arg, NULL, &t, NULL);

    ces_free(ctx, t);
    return rc;
}

static void test_alloc_failures(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);

    (void)state;
    assert_true(ces_test_alloc_failures(emit_body, g) > 3);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static char *tmp_path(const char *suffix)
{
    char *p = malloc(256);

    assert_non_null(p);
    snprintf(p, 256, "%s/ces_test_dot_%ld%s", ces_test_tmp_base(), (long)getpid(), suffix);
    return p;
}

static void test_write(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    char *t = emit(ctx, g, NULL), *dotp = tmp_path(".dot"), *svg = tmp_path(".svg");
    char *png = tmp_path(".png"), *back, *path_env;
    size_t len = 0;

    (void)state;
    assert_int_equal(ces_dot_write(ctx, t, dotp), CES_OK);
    back = ces_test_read_file(dotp, NULL);
    assert_string_equal(back, t);
    free(back);
    unlink(dotp);

    assert_int_equal(ces_dot_write(ctx, t, "/tmp/x.txt"), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "cannot write /tmp/x.txt: the name must end in .dot, .svg or .png");
    assert_int_equal(ces_dot_write(ctx, t, "/nonexistent-dir/x.dot"), CES_ERR_IO);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "cannot create /nonexistent-dir/x.dot: No such file or directory");

    /* without dot on PATH: a clear UNSUPPORTED error */
    path_env = ces_test_env_save("PATH");
    assert_int_equal(setenv("PATH", "/nonexistent-dir", 1), 0);
    assert_int_equal(ces_dot_write(ctx, t, svg), CES_ERR_UNSUPPORTED);
    {
        char want[512];

        snprintf(want, sizeof(want), "cannot write %s: Graphviz 'dot' is not installed (not "
                 "found on PATH); install graphviz or write a .dot file", svg);
        assert_string_equal(ces_ctx_last_error(ctx), want);
    }
    ces_test_env_restore("PATH", path_env);

    if (ces_dot_write(ctx, t, svg) == CES_ERR_UNSUPPORTED) {
        /* Graphviz missing on this machine: the rest cannot run. */
        print_message("dot not installed; skipping rendering\n");
    } else {
        back = ces_test_read_file(svg, &len);
        assert_non_null(strstr(back, "<svg"));
        assert_non_null(strstr(back, "rank 0"));
        free(back);
        assert_int_equal(ces_dot_write(ctx, t, png), CES_OK);
        back = ces_test_read_file(png, &len);
        assert_true(len > 8);
        assert_memory_equal(back, "\x89PNG\r\n\x1a\n", 8);
        free(back);
        /* dot rejects broken input: an IO error, not a crash */
        assert_int_equal(ces_dot_write(ctx, "digraph {", svg), CES_ERR_IO);
        {
            char want[512];

            snprintf(want, sizeof(want), "dot -Tsvg failed drawing %s (exit status 1)", svg);
            assert_string_equal(ces_ctx_last_error(ctx), want);
        }
    }
    unlink(svg);
    unlink(png);
    free(dotp);
    free(svg);
    free(png);
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The ending names the format in either case: x.SVG and x.Png are drawn,
 * x.DOT written as is (they were refused as names that say no format);
 * another ending still is. */
static void test_write_any_case(void **state)
{
    /* each name's ending, and what its file starts with or holds */
    static const char *const ends[] = {".DOT", ".SVG", ".Png"};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    char *t = emit(ctx, g, NULL);

    (void)state;
    assert_int_equal(ces_dot_write(ctx, t, "/tmp/x.SVGZ"), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "cannot write /tmp/x.SVGZ: the name must end in .dot, .svg or .png");
    for (size_t k = 0; k < sizeof(ends) / sizeof(ends[0]); k++) {
        char *path = tmp_path(ends[k]), *back;
        size_t len = 0;
        int rc = ces_dot_write(ctx, t, path);

        if (k > 0 && rc == CES_ERR_UNSUPPORTED) {
            print_message("dot not installed; skipping %s\n", ends[k]);
        } else {
            assert_int_equal(rc, CES_OK);
            back = ces_test_read_file(path, &len);
            if (k == 0)
                assert_string_equal(back, t);
            else if (k == 1)
                assert_non_null(strstr(back, "<svg"));
            else
                assert_true(len > 8 && memcmp(back, "\x89PNG\r\n\x1a\n", 8) == 0);
            free(back);
            assert_int_equal(unlink(path), 0);
        }
        free(path);
    }
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The pipe-stall tests' text, len - 1 bytes of '#', and a named pipe
 * p.dot in a new directory (in *dir, its path in fifo), which this
 * process opens to read without blocking: the descriptor in *fd. */
static char *stall_fifo(size_t len, char **dir, char fifo[256], int *fd)
{
    char *text = malloc(len);

    assert_non_null(text);
    memset(text, '#', len - 1);
    text[len - 1] = '\0';
    *dir = ces_test_tmpdir();
    snprintf(fifo, 256, "%s/p.dot", *dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    *fd = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(*fd >= 0);
    return text;
}

/* Forks a reader of the named pipe open at fd, then closes fd here: the
 * child reads `some` bytes at a time, 100 ms apart, `slow` times, then
 * 64 KiB at a time, 10 ms apart, until the writer closes the pipe or
 * after `turns` reads in all, and exits 0 where it took `want` bytes. */
static pid_t stall_reader(int fd, size_t want, size_t some, int slow, int turns)
{
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        static char buf[64 << 10];
        size_t got = 0;

        for (int t = 0; t < turns; t++) {
            ssize_t n;

            ces_test_sleep_ms(t < slow ? 100 : 10);
            n = read(fd, buf, t < slow ? some : sizeof(buf));
            if (n > 0)
                got += (size_t)n;
            else if (n == 0 && got > 0) /* (none before: no writer yet) */
                break;
            else if (n < 0 && errno != EAGAIN)
                _exit(2);
        }
        _exit(got == want ? 0 : 1);
    }
    assert_int_equal(close(fd), 0);
    return pid;
}

/* ces_dot_write_by with a stall of 2 s (cesync dot's 60 s, where no
 * --max-seconds is given): into a named pipe whose reader (this process)
 * holds it open and never reads, the write stops 2 s after the pipe took
 * its last bytes, and into one that no reader opens, 2 s after it began,
 * each CES_ERR_TIMEOUT in words that say which; a reader that takes
 * 16 KiB every 100 ms, 1.6 s in all, never still that long, takes the
 * 256 KiB whole.  Nothing bounded either: the write waited
 * for the reader (the open for one) for ever. */
static void test_write_stall(void **state)
{
    static const struct ces_dot_bounds stall = {0, 2.0, 0};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    size_t len = 256 << 10;
    char *dir, fifo[256], want[512];
    int fd, status;
    char *text = stall_fifo(len, &dir, fifo, &fd);
    pid_t pid;

    (void)state;
    assert_int_equal(ces_dot_write_by(ctx, text, fifo, &stall), CES_ERR_TIMEOUT);
    assert_string_equal(ces_ctx_last_error(ctx), "its reader took none of its dot text for 2 s");
    assert_int_equal(close(fd), 0);
    assert_int_equal(ces_dot_write_by(ctx, text, fifo, &stall), CES_ERR_TIMEOUT);
    snprintf(want, sizeof(want), "no reader opened %s in 2 s", fifo);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    fd = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(fd >= 0);
    /* a slow reader: 16 KiB a time, 100 ms apart, to the end */
    pid = stall_reader(fd, len - 1, 16 << 10, 300, 300);
    assert_int_equal(ces_dot_write_by(ctx, text, fifo, &stall), CES_OK);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(text);
    ces_test_remove_in(dir, "p.dot\0");
    ces_test_ctx_end(ctx, &st);
}

/* ces_dot_write_by's stall counts what the reader takes, not the room it
 * leaves: a reader that takes 64 bytes every 100 ms for 3 s, less than the
 * page (4 KiB) that a pipe frees once it is read whole, then the rest, is
 * given the 96 KiB whole under a stall of 2 s.  The write waited for room
 * alone, and said after 2 s that the reader took none (cesync dot's 60 s:
 * a reader of 60 bytes a second, a line a second, that took some every
 * second). */
static void test_write_stall_slow_reader(void **state)
{
    static const struct ces_dot_bounds stall = {0, 2.0, 0};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    size_t len = 96 << 10;
    char *dir, fifo[256];
    int fd, status;
    char *text = stall_fifo(len, &dir, fifo, &fd);
    /* 64 bytes a time, 100 ms apart, 30 times; then the rest */
    pid_t pid = stall_reader(fd, len - 1, 64, 30, 600);

    (void)state;
    if (ces_dot_write_by(ctx, text, fifo, &stall) != CES_OK)
        fail_msg("%s", ces_ctx_last_error(ctx));
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(text);
    ces_test_remove_in(dir, "p.dot\0");
    ces_test_ctx_end(ctx, &st);
}

/* ces_dot_write under a file size limit of `limit` bytes (SIGXFSZ ignored,
 * so writes fail with EFBIG; Graphviz inherits both). */
static int write_limited(struct ces_ctx *ctx, const char *text, const char *path, rlim_t limit)
{
    struct rlimit old, low;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    int rc;

    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    low = old;
    low.rlim_cur = limit;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &low), 0);
    rc = ces_dot_write(ctx, text, path);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, old_handler);
    return rc;
}

/* A write that fails leaves the file it was to replace as it was, and no
 * temporary file behind; one that succeeds keeps the file's mode; a
 * relative name that starts with '-' is not an option to Graphviz. */
static void test_write_replaces_when_complete(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    char *t = emit(ctx, g, NULL), *dir = ces_test_tmpdir(), *back;
    char dotp[256], svg[256], got[512], want[512], cwd[4096];
    struct stat sb;
    bool have_dot;

    (void)state;
    snprintf(dotp, sizeof(dotp), "%s/g.dot", dir);
    snprintf(svg, sizeof(svg), "%s/g.svg", dir);
    ces_test_put_file(dotp, "keep\n");
    assert_true(strlen(t) > 2048);
    assert_int_equal(write_limited(ctx, t, dotp, 2048), CES_ERR_IO);
    snprintf(want, sizeof(want), "cannot write %s: File too large", dotp);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    back = ces_test_read_file(dotp, NULL);
    assert_string_equal(back, "keep\n");
    free(back);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "g.dot;");

    /* complete: replaced, with the mode of the file it replaces */
    assert_int_equal(chmod(dotp, 0640), 0);
    assert_int_equal(ces_dot_write(ctx, t, dotp), CES_OK);
    back = ces_test_read_file(dotp, NULL);
    assert_string_equal(back, t);
    free(back);
    assert_int_equal(stat(dotp, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0640);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "g.dot;");

    ces_test_put_file(svg, "keep\n");
    have_dot = ces_dot_write(ctx, "digraph {", svg) != CES_ERR_UNSUPPORTED;
    if (!have_dot) {
        print_message("dot not installed; skipping rendering\n");
    } else {
        /* Graphviz fails: on bad input, and on output past the limit */
        back = ces_test_read_file(svg, NULL);
        assert_string_equal(back, "keep\n");
        free(back);
        assert_int_equal(write_limited(ctx, t, svg, 2 * strlen(t)), CES_ERR_IO);
        snprintf(want, sizeof(want), "dot -Tsvg failed drawing %s (exit status 1)", svg);
        assert_string_equal(ces_ctx_last_error(ctx), want);
        back = ces_test_read_file(svg, NULL);
        assert_string_equal(back, "keep\n");
        free(back);
        ces_test_dir_entries(dir, got, sizeof(got));
        assert_string_equal(got, "g.dot;g.svg;");
    }

    /* "-x.svg" in the current directory is a file, not an option */
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(dir), 0);
    assert_int_equal(ces_dot_write(ctx, t, "-x.dot"), CES_OK);
    if (have_dot)
        assert_int_equal(ces_dot_write(ctx, t, "-x.svg"), CES_OK);
    assert_int_equal(chdir(cwd), 0);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, have_dot ? "-x.dot;-x.svg;g.dot;g.svg;" : "-x.dot;g.dot;g.svg;");
    if (have_dot) {
        snprintf(want, sizeof(want), "%s/-x.svg", dir);
        back = ces_test_read_file(want, NULL);
        assert_non_null(strstr(back, "<svg"));
        free(back);
        assert_int_equal(unlink(want), 0);
    }
    snprintf(want, sizeof(want), "%s/-x.dot", dir);
    assert_int_equal(unlink(want), 0);
    assert_int_equal(unlink(dotp), 0);
    assert_int_equal(unlink(svg), 0);
    assert_int_equal(rmdir(dir), 0);
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The longest double-quoted string of dot text t (its bytes between the
 * quotes, escapes counted as written). */
static size_t longest_string(const char *t)
{
    size_t most = 0;

    for (; *t != '\0'; t++) {
        const char *q;

        if (*t != '"')
            continue;
        for (q = t + 1; *q != '"'; q++) {
            assert_true(*q != '\0');
            if (*q == '\\')
                q++;
        }
        most = (size_t)(q - t - 1) > most ? (size_t)(q - t - 1) : most;
        t = q;
    }
    return most;
}

/* Graphviz refuses a quoted string of 16384 bytes or more, and a node
 * wider than 65535 points: a label of a longer name is lines of 4096 bytes,
 * each in a string of its own, the strings joined by '+', and the picture
 * shows the whole name.  `dot -Tsvg` failed on a name of 8,200 bytes. */
static void test_very_long_name_renders(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_op cp = {.kind = CES_OP_COPY, .a = {0, 0, 0, 8}, .b = {1, 1, 0, 8}};
    char *name = malloc(20001), *want = malloc(20100), *t, *svg = NULL, *back;
    size_t len = 0;
    int rc;

    (void)state;
    assert_non_null(name);
    assert_non_null(want);
    memset(name, 'b', 20000);
    name[20000] = '\0';
    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, name, 8, NULL), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "x", 8, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &cp), CES_OK);
    t = emit(ctx, g, NULL);
    /* the op's position, a line of 4096 bytes and its end */
    assert_int_equal(longest_string(t), strlen("r0.s0#0\\n") + 4096 + strlen("\\n"));
    /* "copy " and the name's first 4,091 bytes, 4096 more three times,
     * then the name's last 3,621 bytes and the regions */
    snprintf(want, 20100, "n0_0_0 [label=\"r0.s0#0\\ncopy %.4091s\\n\" + \"%.4096s\\n\" + "
             "\"%.4096s\\n\" + \"%.4096s\\n\" + \"%s[0:8] -> x[0:8]@1\", ", name, name, name,
             name, name + 20000 - 3621);
    assert_non_null(strstr(t, want));
    svg = tmp_path(".svg");
    rc = ces_dot_write(ctx, t, svg);
    if (rc == CES_ERR_UNSUPPORTED) {
        print_message("dot not installed; skipping rendering\n");
    } else {
        assert_int_equal(rc, CES_OK);
        back = ces_test_read_file(svg, &len);
        snprintf(want, 20100, ">copy %.4091s</text>", name);
        assert_non_null(strstr(back, want));
        snprintf(want, 20100, ">%.4096s</text>", name);
        assert_int_equal(ces_test_count(back, want), 3);
        snprintf(want, 20100, ">%.3621s[0:8] &#45;&gt; x[0:8]@1</text>", name);
        assert_non_null(strstr(back, want));
        free(back);
        unlink(svg);
    }
    free(svg);
    free(want);
    free(name);
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The title is shown as written: quotes, backslashes, a newline (a line
 * break), '<', '{', '|', UTF-8, and '&', which Graphviz reads as the
 * start of an entity in any label: "&amp;" was drawn as "&" and "&#65;"
 * as "A". */
static void test_title_escaped(void **state)
{
    static const char title[] = "R&amp;D \"q\" \\ <b>&#65; \xc3\xa9 {x|y}\nline 2";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    struct ces_dot_overlay ov = {NULL, 0, title, NULL, 0};
    char *t = emit(ctx, g, &ov), *svg = tmp_path(".svg"), *back;
    int rc;

    (void)state;
    assert_non_null(strstr(t, ", labelloc=t, fontsize=16, label=\"R&amp;amp;D \\\"q\\\" \\\\ "
                              "<b>&amp;#65; \xc3\xa9 {x|y}\\nline 2\"];\n"));
    rc = ces_dot_write(ctx, t, svg);
    if (rc == CES_ERR_UNSUPPORTED) {
        print_message("dot not installed; skipping rendering\n");
    } else {
        assert_int_equal(rc, CES_OK);
        back = ces_test_read_file(svg, NULL);
        assert_non_null(strstr(back, ">R&amp;amp;D &quot;q&quot; \\ &lt;b&gt;&amp;#65; "
                                     "\xc3\xa9 {x|y}</text>"));
        assert_non_null(strstr(back, ">line 2</text>"));
        free(back);
        unlink(svg);
    }
    free(svg);
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Graphviz out of its data segment is known by what it says on standard
 * error, which ces_dot_write_by passes on: 4 nodes at 6,000 dpi, a bitmap
 * of about 750 MB, drawn as a .png under a bound of 256 MiB, where
 * Graphviz 2.43 says "failure to create cairo surface: out of memory" and
 * dies of SIGSEGV holding 12 MB, are CES_ERR_LIMIT; by the peak alone, far
 * under half the bound, they were CES_ERR_IO, "dot -Tpng failed drawing
 * ... (signal 11)".  Nothing is left behind.  Skipped without Graphviz. */
static void test_write_memory_said(void **state)
{
    static const struct ces_dot_bounds bound = {0, 0, (uint64_t)256 << 20};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *dir = ces_test_tmpdir(), png[256], err[256], *said;
    int saved, fd, rc;

    (void)state;
    snprintf(png, sizeof(png), "%s/x.png", dir);
    snprintf(err, sizeof(err), "%s/err.txt", dir);
    fflush(stderr);
    saved = dup(STDERR_FILENO);
    fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
    rc = ces_dot_write_by(ctx, "digraph g { dpi=6000; a -> b; b -> c; a -> c; c -> d; d -> a }\n",
                          png, &bound);
    assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
    assert_int_equal(close(saved), 0);
    assert_int_equal(close(fd), 0);
    said = ces_test_read_file(err, NULL);
    if (rc == CES_ERR_UNSUPPORTED) {
        free(said);
        ces_test_remove_in(dir, "err.txt\0");
        ces_test_ctx_end(ctx, &st);
        skip();
    }
    if (rc != CES_ERR_LIMIT || strstr(said, "out of memory") == NULL)
        fail_msg("%d: %s; Graphviz said:\n%s", rc, ces_ctx_last_error(ctx), said);
    free(said);
    ces_test_remove_in(dir, "err.txt\0");
    ces_test_ctx_end(ctx, &st);
}

/* A named pipe is written in place, for .svg as for .dot: its reader
 * gets the whole picture before the end of the stream.  The pipe was
 * opened and closed before Graphviz opened it again by name, so a reader
 * saw an empty stream, and Graphviz then waited for another reader. */
static void test_write_svg_to_pipe(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    char *t = emit(ctx, g, NULL), *dir = ces_test_tmpdir(), fifo[256];
    int status = 0, rc;
    pid_t pid;

    (void)state;
    snprintf(fifo, sizeof(fifo), "%s/p.svg", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* the reader: what comes before the first end of the stream, then
         * a reader and writer of its own, so that a writer that opens the
         * pipe again does not wait */
        static char got[1 << 20];
        size_t len = 0;
        ssize_t n;
        int fd = open(fifo, O_RDONLY);
        struct pollfd pfd;
        bool whole;

        while (fd >= 0 && len < sizeof(got) - 1 &&
               (n = read(fd, got + len, sizeof(got) - 1 - len)) > 0)
            len += (size_t)n;
        got[len] = '\0';
        whole = strstr(got, "<svg") != NULL && strstr(got, "</svg>") != NULL;
        pfd.fd = open(fifo, O_RDWR);
        pfd.events = POLLIN;
        while (pfd.fd >= 0 && poll(&pfd, 1, 500) > 0 && read(pfd.fd, got, sizeof(got)) > 0)
            continue;
        _exit(whole ? 0 : 1);
    }
    rc = ces_dot_write(ctx, t, fifo);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (rc == CES_ERR_UNSUPPORTED) {
        print_message("dot not installed; skipping rendering\n");
    } else {
        assert_int_equal(rc, CES_OK);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    assert_int_equal(unlink(fifo), 0);
    assert_int_equal(rmdir(dir), 0);
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A label is cut into strings of 4096 bytes as written: an escape counts
 * its two bytes, and a UTF-8 character is never split, the cut coming
 * after it. */
static void test_label_pieces(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    struct ces_dot_overlay ov = {NULL, 0, NULL, NULL, 0};
    char *title = malloc(8192), *want = malloc(8192), *t;
    size_t n = 0;

    (void)state;
    assert_non_null(title);
    assert_non_null(want);
    /* 4095 bytes, then a two-byte character across the 4096th */
    memset(title, 'a', 4095);
    strcpy(title + 4095, "\xc3\xa9z");
    ov.title = title;
    t = emit(ctx, g, &ov);
    snprintf(want, 8192, "label=\"%.4095s\xc3\xa9\\n\" + \"z\"];\n", title);
    assert_non_null(strstr(t, want));
    ces_free(ctx, t);
    /* 2100 quotes: 2048 of them fill the first string */
    memset(title, '"', 2100);
    strcpy(title + 2100, "z");
    t = emit(ctx, g, &ov);
    n = (size_t)snprintf(want, 8192, "label=\"");
    for (int i = 0; i < 2100; i++)
        n += (size_t)snprintf(want + n, 8192 - n, "%s\\\"", i == 2048 ? "\\n\" + \"" : "");
    snprintf(want + n, 8192 - n, "z\"];\n");
    assert_non_null(strstr(t, want));
    ces_free(ctx, t);
    free(want);
    free(title);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The replays a node or a batch's box names: the first four, then "..."
 * past four; a replay marked twice in a row is named once, the fifth
 * distinct one only as "...". */
static void test_overlay_replay_lists(void **state)
{
    static const char text[] = "cesync 1\n"
                               "ranks 1\n"
                               "streams 2\n"
                               "buffer a 16\n"
                               "signal f u32 1\n"
                               "phase graph x6\n"
                               "r0 : wait f[0] >= 1\n"
                               "r0 s1 : batch\n"
                               "r0 s1 : copy a[0:8] -> a[8:16]\n"
                               "r0 s1 : end\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_dot_mark marks[] = {
        {0, 0, 0, 0, CES_DOT_BLOCKED, 0}, {0, 0, 0, 0, CES_DOT_BLOCKED, 1},
        {0, 0, 0, 0, CES_DOT_BLOCKED, 1}, {0, 0, 0, 0, CES_DOT_BLOCKED, 2},
        {0, 0, 0, 0, CES_DOT_BLOCKED, 3}, {0, 0, 0, 0, CES_DOT_BLOCKED, 3},
        {0, 0, 3, 0, CES_DOT_STOPPED, 0}, {0, 0, 3, 0, CES_DOT_STOPPED, 1},
        {0, 0, 3, 0, CES_DOT_STOPPED, 2}, {0, 0, 3, 0, CES_DOT_STOPPED, 3},
        {0, 0, 3, 0, CES_DOT_STOPPED, 4},
    };
    struct ces_dot_overlay ov = {marks, 11, "HANG counterexample", NULL, 0};
    char *t;

    (void)state;
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "n0_0_0 [label=\"r0.s0#0,#1,...,#5\\nwait f[0] >= 1\\n"
                              "blocked at #0,#1,#2,#3\", fillcolor=\"#ff9a9a\", "
                              "color=\"#cc0000\", penwidth=2.5];\n"));
    assert_non_null(strstr(t, "subgraph cluster_batch_0_0_1 {\nlabel=\"batch\\nstopped at its "
                              "end (#2,#5,#8,#11,...)\"; style=\"rounded,filled\"; "
                              "fillcolor=\"#dff3f1\"; color=\"#00736b\"; penwidth=2.5;\n"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* In an eager block (one replay) a stopped op or batch names no replay:
 * teal, "stopped before its copies" and nothing after. */
static void test_overlay_stopped_eager(void **state)
{
    static const char text[] = "cesync 1\n"
                               "ranks 1\n"
                               "streams 2\n"
                               "buffer a 16\n"
                               "signal f u32 1\n"
                               "phase eager x1\n"
                               "r0 s1 : batch\n"
                               "r0 s1 : copy a[0:8] -> a[8:16]\n"
                               "r0 s1 : end\n"
                               "r0 : wait f[0] >= 1\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_dot_mark marks[] = {{0, 0, 0, 0, CES_DOT_STOPPED, 0},
                                   {0, 0, 3, 0, CES_DOT_STOPPED, 0}};
    struct ces_dot_overlay ov = {marks, 2, "HANG counterexample", NULL, 0};
    char *t;

    (void)state;
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "subgraph cluster_batch_0_0_0 {\nlabel=\"batch\\nstopped before "
                              "its copies\"; style=\"rounded,filled\"; fillcolor=\"#dff3f1\"; "
                              "color=\"#00736b\"; penwidth=2.5;\n"));
    assert_non_null(strstr(t, "n0_0_3 [label=\"r0.s0#0\\nwait f[0] >= 1\", "
                              "fillcolor=\"#8fd6cf\", color=\"#00736b\", penwidth=2.5];\n"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A node's steps: four listed, "..." past four, a step marked twice in a
 * row once; a stepped node has a black border of 2; a blocked mark wins
 * over a race mark. */
static void test_overlay_steps(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    struct ces_dot_mark marks[] = {
        {0, 0, 1, 1, CES_DOT_STEP, 0},  {0, 0, 1, 2, CES_DOT_STEP, 0},
        {0, 0, 1, 3, CES_DOT_STEP, 0},  {0, 0, 1, 4, CES_DOT_STEP, 0},
        {0, 0, 1, 4, CES_DOT_RACE, 0},  {0, 0, 2, 5, CES_DOT_STEP, 0},
        {0, 0, 2, 6, CES_DOT_STEP, 0},  {0, 0, 2, 7, CES_DOT_STEP, 0},
        {0, 0, 2, 8, CES_DOT_STEP, 0},  {0, 0, 2, 9, CES_DOT_STEP, 0},
        {0, 1, 2, 0, CES_DOT_RACE, 0},  {0, 1, 2, 0, CES_DOT_BLOCKED, 0},
    };
    struct ces_dot_overlay ov = {marks, 12, "RACE counterexample", NULL, 0};
    char *t;

    (void)state;
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "n0_0_1 [label=\"r0.s0#1\\nwrite ready[0]@1 = 1\\nsteps 1,2,3,4\", "
                              "fillcolor=\"#ffc680\", color=\"#e67300\", penwidth=2.5];\n"));
    assert_non_null(strstr(t, "n0_0_2 [label=\"r0.s0#2\\nwait ready[1] == 1\\n"
                              "steps 5,6,7,8,...\", fillcolor=\"#fff2b3\", color=\"#000000\", "
                              "penwidth=2];\n"));
    assert_non_null(strstr(t, "n0_1_2 [label=\"r1.s0#2\\nwait ready[0] == 1\", "
                              "fillcolor=\"#ff9a9a\", color=\"#cc0000\", penwidth=2.5];\n"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Batches of two streams interleaved in a rank's list: each batch's end,
 * its emptiness and its position are its own stream's. */
static void test_overlay_interleaved_batches(void **state)
{
    static const char text[] = "cesync 1\n"
                               "ranks 1\n"
                               "streams 2\n"
                               "buffer a 32\n"
                               "phase graph x2\n"
                               "r0 s0 : batch\n"
                               "r0 s1 : batch\n"
                               "r0 s1 : copy a[0:8] -> a[8:16]\n"
                               "r0 s1 : end\n"
                               "r0 s0 : copy a[16:24] -> a[24:32]\n"
                               "r0 s0 : end\n"
                               "r0 s1 : batch\n"
                               "r0 s0 : fence\n"
                               "r0 s1 : end\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_dot_mark marks[] = {{0, 0, 5, 0, CES_DOT_BLOCKED, 1},
                                   {0, 0, 6, 0, CES_DOT_BLOCKED, 0}};
    struct ces_dot_overlay ov = {marks, 2, "HANG counterexample", NULL, 0};
    char *t;

    (void)state;
    t = emit(ctx, g, &ov);
    /* s0: batch #0, copy #1, end #2, fence #3: its end in replay 1 is #6 */
    assert_non_null(strstr(t, "subgraph cluster_batch_0_0_0 {\nlabel=\"batch\\nblocked at its "
                              "end (#6)\";"));
    assert_non_null(strstr(t, "subgraph cluster_batch_0_0_1 {\nlabel=\"batch\"; "
                              "style=\"rounded,filled\"; fillcolor=\"#f3fbf3\";"));
    /* s1's second batch holds no copy (the fence is s0's) */
    assert_non_null(strstr(t, "subgraph cluster_batch_0_0_6 {\nlabel=\"batch\\nblocked before "
                              "its copies (#3)\"; style=\"rounded,filled\"; fillcolor=\"#ffe0e0\"; "
                              "color=\"#cc0000\"; penwidth=2.5;\nempty_b0_r0_k6 [shape=plaintext, "
                              "style=\"\", label=\"no copies\"];\n}\n"));
    /* each lane led by its first node: s0's copy, not its blocked box */
    assert_non_null(strstr(t, "rank_root0 -> n0_0_4 [style=invis];\n"
                              "rank_root0 -> n0_0_2 [style=invis];\n"));
    assert_int_equal(ces_test_count(t, "order_root -> rank_root0 "), 1);
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* n waits of rank 1 on a[0] in block 0, satisfied there by rank 0's write;
 * with `far`, rank 0's writes of block 0 and the waits of block 1 on
 * u32 b[0] and c[0] and u64 d[0], ten of which they satisfy: 3 satisfies
 * u32 >= 0x80000004 (2^31 - 1 below, not 2^31), >= 0xffffffff, >= 2,
 * >= 3 and == 3; 0x90000000 >= 0x10000001 and >= 0x90000000; 5 u64 >= 0,
 * >= 5 and == 5. */
static struct ces_graph *signal_pairs(struct ces_ctx *ctx, uint32_t n, bool far)
{
    static const struct {
        uint32_t sig, cmp;
        uint64_t value;
    } waits[] = {
        {1, CES_CMP_GEQ, 0x80000004u}, {1, CES_CMP_GEQ, 0x80000003u}, {1, CES_CMP_GEQ, 0xffffffffu},
        {1, CES_CMP_GEQ, 2},           {1, CES_CMP_GEQ, 3},           {1, CES_CMP_GEQ, 4},
        {1, CES_CMP_EQ, 3},            {1, CES_CMP_EQ, 4},            {2, CES_CMP_GEQ, 0x10000001u},
        {2, CES_CMP_GEQ, 0x10000000u}, {2, CES_CMP_GEQ, 0x90000000u}, {2, CES_CMP_GEQ, 0x90000001u},
        {3, CES_CMP_GEQ, 5},           {3, CES_CMP_GEQ, 6},           {3, CES_CMP_GEQ, 0},
        {3, CES_CMP_EQ, 5},            {3, CES_CMP_GEQ, 0x100000000u},
    };
    static const uint64_t writes[] = {1, 3, 0x90000000u, 5};
    struct ces_graph *g = NULL;
    uint32_t sig;

    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "a", CES_U32, 1, &sig), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "b", CES_U32, 1, &sig), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "c", CES_U32, 1, &sig), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "d", CES_U64, 1, &sig), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    for (uint32_t s = 0; s < (far ? 4u : 1u); s++) {
        struct ces_op w = {.kind = CES_OP_WRITE, .slot = {s, 1, 0}, .value = writes[s]};

        assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
    }
    for (uint32_t i = 0; i < n; i++) {
        struct ces_op w = {.kind = CES_OP_WAIT, .cmp = CES_CMP_GEQ, .slot = {0, 1, 0}, .value = 1};

        assert_int_equal(ces_graph_add_op(g, 1, &w), CES_OK);
    }
    if (far) {
        assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
        for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++) {
            struct ces_op w = {.kind = CES_OP_WAIT, .cmp = waits[i].cmp,
                               .slot = {waits[i].sig, 1, 0}, .value = waits[i].value};

            assert_int_equal(ces_graph_add_op(g, 1, &w), CES_OK);
        }
    }
    return g;
}

/* The write -> wait pairs across blocks are left out above 1000 pairs in
 * all (not at 1000), and only when there is one: the legend counts them
 * exactly (each u32 window's edges, u64 and ==).  Edges are drawn straight
 * above 500 cross edges, not at 500. */
static void test_signal_pair_counts(void **state)
{
    static const struct {
        uint32_t n;
        bool far;
        size_t dashed;
        const char *legend;
        bool straight;
    } cases[] = {
        {490, true, 500, NULL, false},
        {491, true, 501, NULL, true},
        {990, true, 1000, NULL, true},
        {991, true, 991, "(10 write -> wait edges between different blocks not drawn)\\l", true},
        {1001, false, 1001, NULL, true},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ces_graph *g = signal_pairs(ctx, cases[i].n, cases[i].far);
        char *t = emit(ctx, g, NULL);

        assert_int_equal(ces_test_count(t, "[style=dashed"), cases[i].dashed);
        if (cases[i].legend != NULL)
            assert_non_null(strstr(t, cases[i].legend));
        else
            assert_null(strstr(t, "not drawn"));
        if (cases[i].straight)
            assert_non_null(strstr(t, "graph [splines=line"));
        else
            assert_null(strstr(t, "graph [splines=line"));
        ces_free(ctx, t);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* Rank 0 writes n values into u32 a[0] (from 0xffffffe0, wrapping past
 * 2^32) and n into u64 d[0] (1..n), one block; rank 1 waits for each of
 * them with `>=`, and with `==` for the last u64 value; then rank 0 sets
 * u32 f[0] to 1 n times, and rank 1 waits n times for `== 1`. */
static struct ces_graph *counter_pairs(struct ces_ctx *ctx, uint32_t n)
{
    struct ces_graph *g = NULL;
    uint32_t sig;

    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "a", CES_U32, 1, &sig), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "d", CES_U64, 1, &sig), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U32, 1, &sig), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    for (uint32_t s = 0; s < 2; s++) {
        for (uint32_t k = 0; k < n; k++) {
            uint64_t v = s == 0 ? (uint32_t)(0xffffffe0u + k) : k + 1u;
            struct ces_op w = {.kind = CES_OP_WRITE, .slot = {s, 1, 0}, .value = v};
            struct ces_op t = {.kind = CES_OP_WAIT, .cmp = CES_CMP_GEQ, .slot = {s, 1, 0},
                               .value = v};

            assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
            assert_int_equal(ces_graph_add_op(g, 1, &t), CES_OK);
        }
    }
    {
        struct ces_op t = {.kind = CES_OP_WAIT, .cmp = CES_CMP_EQ, .slot = {1, 1, 0}, .value = n};

        assert_int_equal(ces_graph_add_op(g, 1, &t), CES_OK);
    }
    for (uint32_t k = 0; k < n; k++) {
        struct ces_op w = {.kind = CES_OP_WRITE, .slot = {2, 1, 0}, .value = 1};
        struct ces_op t = {.kind = CES_OP_WAIT, .cmp = CES_CMP_EQ, .slot = {2, 1, 0}, .value = 1};

        assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 1, &t), CES_OK);
    }
    return g;
}

/* A counter written again and again in one block satisfies every earlier
 * `>=` wait of its block, and a flag set again and again every `==` wait
 * of its value: above 1000 such pairs each `>=` wait keeps only the edge
 * of the write nearest above its value (u32: across the wrap too), and
 * each `==` wait of f, which nothing resets, the edge of the first write
 * (every wait may pass on it), and the legend counts the rest.  Every pair was drawn: the 8-rank sendrecv of 64
 * chunks had 15,001 (7,168 with --sync credit), and dot had not laid it
 * out after 5 minutes. */
static void test_counter_pairs_nearest(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = counter_pairs(ctx, 22);
    char *t = emit(ctx, g, NULL), edge[96];

    (void)state;
    /* 2 * (22 * 23 / 2) + 1 + 22 * 22 = 991 pairs: all drawn */
    assert_int_equal(ces_test_count(t, "[style=dashed"), 991);
    assert_null(strstr(t, "not drawn"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    g = counter_pairs(ctx, 40); /* 2 * 820 + 1 + 40 * 40 = 3241 pairs, 121 nearest */
    t = emit(ctx, g, NULL);
    assert_int_equal(ces_test_count(t, "[style=dashed"), 121);
    assert_non_null(strstr(t, "(3120 write -> wait edges within a block not drawn: a wait from "
                              "its nearest writes alone)\\l"));
    for (uint32_t k = 0; k < 80; k++) {
        snprintf(edge, sizeof(edge), "n0_0_%u -> n0_1_%u [style=dashed", k, k);
        assert_non_null(strstr(t, edge));
    }
    assert_non_null(strstr(t, "n0_0_79 -> n0_1_80 [style=dashed"));
    for (uint32_t k = 0; k < 40; k++) {
        snprintf(edge, sizeof(edge), "n0_0_80 -> n0_1_%u [style=dashed", 81 + k);
        assert_non_null(strstr(t, edge));
    }
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Appends to text (n bytes of `size` written) the 46 values of counter c
 * written by `writer` into rank dst's slot and awaited `>=` by `waiter`
 * (rank dst): 1081 pairs of a block, each wait's nearest write kept;
 * the new length. */
static size_t add_counter(char *text, size_t n, size_t size, const char *writer,
                          const char *waiter, uint32_t dst)
{
    for (uint32_t k = 1; k <= 46; k++)
        n += (size_t)snprintf(text + n, size - n, "%s : write c[0]@%u = %u\n", writer, dst, k);
    for (uint32_t k = 1; k <= 46; k++)
        n += (size_t)snprintf(text + n, size - n, "%s : wait c[0] >= %u\n", waiter, k);
    assert_true(n < size);
    return n;
}

/* The picture of three ranks with signals f, g and c: the eager phase's
 * head, the counter of 46 values of c (r2 to r2 s1), then tail (1081
 * pairs with nothing else); *g is its graph. */
static char *counter_case(struct ces_ctx *ctx, struct ces_graph **g, const char *head,
                          const char *tail)
{
    char text[8192];
    size_t n = (size_t)snprintf(text, sizeof(text),
                                "cesync 1\nranks 3\nstreams 2\nsignal f u32 1\n"
                                "signal g u32 1\nsignal c u32 1\nphase eager x1\n%s",
                                head);

    n = add_counter(text, n, sizeof(text), "r2", "r2 s1", 2);
    n += (size_t)snprintf(text + n, sizeof(text) - n, "%s", tail);
    assert_true(n < sizeof(text));
    *g = ces_test_text_graph(ctx, text);
    return emit(ctx, *g, NULL);
}

/* t draws dashed write -> wait edges and says hidden ones are not drawn. */
static void counter_drawn(const char *t, size_t dashed, unsigned hidden)
{
    char line[64];

    assert_int_equal(ces_test_count(t, "[style=dashed"), dashed);
    snprintf(line, sizeof(line), "(%u write -> wait edges within a block not drawn", hidden);
    assert_non_null(strstr(t, line));
}

/* The picture of counter_case's schedule of `tail` draws dashed write ->
 * wait edges `drawn` (NULL-ended, or NULL), none of `absent` (" -> n2_0_0"
 * for any edge to a wait), `dashed` in all, and says `hidden` not drawn. */
static void counter_says(const char *tail, const char *const *drawn, const char *const *absent,
                         size_t dashed, unsigned hidden)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g;
    char *t = counter_case(ctx, &g, "", tail), edge[64];

    for (size_t i = 0; drawn != NULL && drawn[i] != NULL; i++) {
        snprintf(edge, sizeof(edge), "%s [style=dashed", drawn[i]);
        if (strstr(t, edge) == NULL)
            fail_msg("not drawn: %s", drawn[i]);
    }
    for (size_t i = 0; absent != NULL && absent[i] != NULL; i++) {
        snprintf(edge, sizeof(edge), "%s [style=dashed", absent[i]);
        if (strstr(t, edge) != NULL)
            fail_msg("drawn: %s", absent[i]);
    }
    counter_drawn(t, dashed, hidden);
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Nearest in value or in ordinal is nearest in time only along one
 * stream: r0's two `== 1` waits of f, with a reset between, are satisfied
 * by r1's write (the first) and then r0 s1's (behind the reset), and r1's
 * `>= 1` wait of x by r0's write of 2, r0 s1 writing 1 only after it.
 * Above 1000 pairs (a counter of 46 values, 1081) the picture paired the
 * writes of f with the waits by rank and index, drawing r0 s1's write to
 * the first wait and r1's to the second, and the write of 1 alone to the
 * wait of x: each wait's edges were ones it cannot have.  Then every pair
 * of writes of several streams was drawn, these impossible ones too; a
 * wait now keeps only writes it may see, by the order every execution
 * has. */
static void test_counter_pairs_other_streams(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g;
    char text[8192], *t;
    size_t n;

    (void)state;
    n = (size_t)snprintf(text, sizeof(text),
                         "cesync 1\nranks 2\nstreams 2\nsignal f u32 1\nsignal h u32 1\n"
                         "signal x u64 1\nsignal y u32 1\nsignal c u32 1\nphase eager x1\n"
                         "r1 : write f[0]@0 = 1\nr0 : wait f[0] == 1\nr0 : write f[0] = 0\n"
                         "r0 : write h[0] = 1\nr0 : wait f[0] == 1\nr0 s1 : wait h[0] == 1\n"
                         "r0 s1 : write f[0] = 1\nr0 : write x[0]@1 = 2\nr1 : wait x[0] >= 1\n"
                         "r1 : write y[0]@0 = 1\nr0 s1 : wait y[0] == 1\n"
                         "r0 s1 : write x[0]@1 = 1\n");
    add_counter(text, n, sizeof(text), "r1 s1", "r0 s1", 0);
    g = ces_test_text_graph(ctx, text);
    t = emit(ctx, g, NULL);
    /* f: r1's write (n0_1_0) to the first wait (n0_0_0), r0 s1's (n0_0_5)
     * to the second (n0_0_3); x: r0's write of 2 (n0_0_6) to r1's wait */
    assert_non_null(strstr(t, "n0_1_0 -> n0_0_0 [style=dashed"));
    assert_null(strstr(t, "n0_1_0 -> n0_0_3 [style=dashed"));
    assert_null(strstr(t, "n0_0_5 -> n0_0_0 [style=dashed"));
    assert_non_null(strstr(t, "n0_0_5 -> n0_0_3 [style=dashed"));
    assert_non_null(strstr(t, "n0_0_6 -> n0_1_1 [style=dashed"));
    assert_null(strstr(t, "n0_0_8 -> n0_1_1 [style=dashed"));
    /* the counter's waits from its nearest write alone: 46 + 2 + 1 + h, y */
    counter_drawn(t, 51, 1038);
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The text of a schedule of 2 ranks and 2 streams with signals f, g, h,
 * x and c (u32, one slot each), one block of the ops in `ops`, and the 46
 * values of c written by r0 s1 and awaited with `>=` by r1 s1 (1081 pairs
 * of the block, each wait's nearest write kept). */
static struct ces_graph *counter_with(struct ces_ctx *ctx, const char *ops)
{
    char text[8192];
    size_t n = (size_t)snprintf(text, sizeof(text),
                                "cesync 1\nranks 2\nstreams 2\nsignal f u32 1\nsignal g u32 1\n"
                                "signal h u32 1\nsignal x u32 1\nsignal c u32 1\n"
                                "phase eager x1\n%s",
                                ops);

    add_counter(text, n, sizeof(text), "r0 s1", "r1 s1", 1);
    return ces_test_text_graph(ctx, text);
}

/* Above 1000 pairs a wait keeps writes it may see, at least one where it
 * sees one of its block.  r0 sets f twice, the second time once r1 s1 has
 * reset it, behind r1's two `== 1` waits; both waits see the first write
 * (with the second written 2 and the second wait `== 2`, cesync check
 * finds a DEADLOCK).  The pairing of the k-th write with the k-th wait
 * drew the second write to the second wait and left out the first.  And
 * r0 writes x 1, then 2, then h, which r1 awaits before its `>= 1` wait
 * of x: the write of the nearest value (1) was drawn, though the wait
 * sees 2 alone. */
static void test_counter_pairs_possible(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g;
    char *t;

    (void)state;
    g = counter_with(ctx, "r0 : write f[0]@1 = 1\nr0 : wait g[0] == 1\nr0 : write f[0]@1 = 1\n"
                          "r1 : wait f[0] == 1\nr1 : wait f[0] == 1\nr1 : write h[0] = 1\n"
                          "r1 s1 : wait h[0] == 1\nr1 s1 : write f[0] = 0\n"
                          "r1 s1 : write g[0]@0 = 1\n");
    t = emit(ctx, g, NULL);
    /* the writes n0_0_0 and n0_0_2, the waits n0_1_0 and n0_1_1 */
    assert_non_null(strstr(t, "n0_0_0 -> n0_1_0 [style=dashed"));
    assert_non_null(strstr(t, "n0_0_0 -> n0_1_1 [style=dashed"));
    assert_null(strstr(t, "n0_0_2 -> n0_1_0 [style=dashed"));
    assert_null(strstr(t, "n0_0_2 -> n0_1_1 [style=dashed"));
    assert_non_null(strstr(t, "(1037 write -> wait edges within a block not drawn"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    g = counter_with(ctx, "r0 : write x[0]@1 = 1\nr0 : write x[0]@1 = 2\nr0 : write h[0]@1 = 1\n"
                          "r1 : wait h[0] == 1\nr1 : wait x[0] >= 1\n");
    t = emit(ctx, g, NULL);
    assert_non_null(strstr(t, "n0_0_1 -> n0_1_1 [style=dashed"));
    assert_null(strstr(t, "n0_0_0 -> n0_1_1 [style=dashed"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Above 1000 pairs a wait's first write of a stream is one it may see by
 * every order of the schedule: records and awaits, shared hardware queues,
 * block boundaries.  r0 s0 writes f 1 (n0_0_0), then s1 resets it behind
 * an await of s0's record (or behind s0 on one queue: connections 1),
 * tells r1 through h and s0 through g, and s0 writes f 1 again; r1 waits
 * for h, then `f == 1`: it sees the second write alone (written 2 and the
 * wait `== 1`, cesync check finds a HANG).  Or r0 s1 resets f in the next
 * block, then tells r1 through h and r2 through k, and r2 writes f 1 after
 * its waits of m (r0 s0's, after its write of f) and k: the wait sees r2's
 * write alone, and r0 s0's write came before it.  Without the record's
 * order (the queue's, the block boundary's) the first write was drawn to
 * the wait, the second left out.  Over an overlay of a check not known,
 * which may be of other queues, of delayed writes' streams, or of a stop,
 * a drop or the watchdog model (a stopped record lets its await pass at
 * once, a dropped reset overwrites nothing), every pair is drawn: the
 * wait from both writes (the record's order left the first out, though a
 * stop of r0 s0 before its record lets the wait see it), none counted as
 * not drawn. */
static void test_counter_pairs_ordered(void **state)
{
    static const char *const heads[] = {"connections 0\n", "connections 1\n",
                                        "connections 0\n"};
    static const char *const bodies[] = {
        "r0 s0 : write f[0]@1 = 1\nr0 s0 : record E\nr0 s1 : await E\n"
        "r0 s1 : write f[0]@1 = 0\nr0 s1 : write g[0] = 1\nr0 s1 : write h[0]@1 = 1\n"
        "r0 s0 : wait g[0] == 1\nr0 s0 : write f[0]@1 = 1\n",
        "r0 s0 : write f[0]@1 = 1\nr0 s1 : write f[0]@1 = 0\nr0 s1 : write g[0] = 1\n"
        "r0 s1 : write h[0]@1 = 1\nr0 s0 : wait g[0] == 1\nr0 s0 : write f[0]@1 = 1\n",
        "r0 s0 : write f[0]@1 = 1\nr0 s0 : write m[0]@2 = 1\nr2 : wait m[0] == 1\n"
        "r2 : wait k[0] == 1\nr2 : write f[0]@1 = 1\n"};
    static const char *const tails[] = {"", "",
                                        "phase eager x1\nr0 s1 : write f[0]@1 = 0\n"
                                        "r0 s1 : write h[0]@1 = 1\nr0 s1 : write k[0]@2 = 1\n"};
    static const char *const second[] = {"n0_0_7 -> n0_1_1 [style=dashed",
                                          "n0_0_5 -> n0_1_1 [style=dashed",
                                          "n0_2_2 -> n0_1_1 [style=dashed"};
    struct ces_dot_overlay ov = {NULL, 0, "HANG counterexample", NULL, 0};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (int c = 0; c < 3; c++) {
        char text[8192], *t;
        size_t n = (size_t)snprintf(text, sizeof(text),
                                    "cesync 1\nranks 5\nstreams 2\n%ssignal f u32 5\n"
                                    "signal g u32 5\nsignal h u32 5\nsignal k u32 5\n"
                                    "signal m u32 5\nsignal c u32 5\nphase eager x1\n"
                                    "%sr1 : wait h[0] == 1\nr1 : wait f[0] == 1\n",
                                    heads[c], bodies[c]);
        struct ces_graph *g;

        n = add_counter(text, n, sizeof(text), "r3", "r4", 4);
        n += (size_t)snprintf(text + n, sizeof(text) - n, "%s", tails[c]);
        assert_true(n < sizeof(text));
        g = ces_test_text_graph(ctx, text);
        t = emit(ctx, g, NULL);
        assert_non_null(strstr(t, second[c]));
        assert_null(strstr(t, "n0_0_0 -> n0_1_1 [style=dashed"));
        assert_non_null(strstr(t, "within a block not drawn"));
        ces_free(ctx, t);
        t = emit(ctx, g, &ov);
        assert_non_null(strstr(t, second[c]));
        assert_non_null(strstr(t, "n0_0_0 -> n0_1_1 [style=dashed"));
        assert_int_equal(ces_test_count(t, " -> n0_1_1 [style=dashed"), 2);
        assert_null(strstr(t, "within a block not drawn"));
        ces_free(ctx, t);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* Above 1000 pairs a wait keeps no write that it sees in no execution,
 * also where executions end blocked (a counter of 46 values beside it,
 * 1081 pairs).  r0 waits `f == 1` in a phase replayed twice, sets f 1,
 * then waits for g, which nothing writes: the second replay never starts,
 * so the wait sees the first block's write alone (across blocks, not
 * drawn), but the phase's write was drawn to it, by the second replay's
 * order.  And r0 writes f 2, waits `f == 3`, then `f >= 1`, r1 writing
 * f 3: the first wait passes only on r1's write once it has overwritten
 * the 2 (written before the 2, it hangs), so the second sees 3 alone, but
 * the 2 was drawn to it too (cesync check: HANG for both). */
static void test_counter_pairs_blocked(void **state)
{
    static const char *const heads[] = {
        "r0 : write f[0] = 1\n",
        "r0 : write f[0] = 2\nr0 : wait f[0] == 3\nr0 : wait f[0] >= 1\n"
        "r1 : write f[0]@0 = 3\n"};
    static const char *const tails[] = {
        "phase graph x2\nr0 : wait f[0] == 1\nr0 : write f[0] = 1\nr0 : wait g[0] == 1\n", ""};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (int c = 0; c < 2; c++) {
        struct ces_graph *g;
        char *t = counter_case(ctx, &g, heads[c], tails[c]);

        /* the counter's 46 waits from their nearest writes, and these */
        counter_drawn(t, c == 0 ? 46 : 48, 1036);
        if (c == 0) {
            assert_null(strstr(t, " -> n1_0_0 [style=dashed"));
        } else {
            assert_non_null(strstr(t, "n0_1_0 -> n0_0_1 [style=dashed"));
            assert_non_null(strstr(t, "n0_1_0 -> n0_0_2 [style=dashed"));
            assert_int_equal(ces_test_count(t, " -> n0_0_2 [style=dashed"), 1);
        }
        ces_free(ctx, t);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* A wait that passes on another write than an earlier wait of its slot
 * comes after two writes (beside a counter of 46 values, 1081 pairs).  r0
 * waits `f == 1`, sets f 3 and waits `f == 1` again, then writes h 3; r2
 * and r3 set f 1 once r1 has written them g, r3's only after r1's wait of
 * h, which r4's write of h satisfies.  The second wait needs both writes
 * of 1, the first whichever it sees and the second the other, so r0's
 * write of h comes after r1's wait; it was drawn to it, by the clock of
 * the second wait, which knew it after one of them alone (cesync check:
 * HANG). */
static void test_counter_pairs_two_writes(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g;
    char text[8192], *t;
    size_t n;

    (void)state;
    n = (size_t)snprintf(text, sizeof(text),
                         "cesync 1\nranks 6\nstreams 2\nsignal f u32 1\nsignal g u32 1\n"
                         "signal h u32 1\nsignal c u32 1\nphase eager x1\n"
                         "r1 : write g[0]@2 = 1\nr1 : wait h[0] >= 1\nr1 : write g[0]@3 = 1\n"
                         "r2 : wait g[0] == 1\nr2 : write f[0]@0 = 1\nr3 : wait g[0] == 1\n"
                         "r3 : write f[0]@0 = 1\nr0 : wait f[0] == 1\nr0 : write f[0] = 3\n"
                         "r0 : wait f[0] == 1\nr0 : write h[0]@1 = 3\nr4 : write h[0]@1 = 1\n");
    add_counter(text, n, sizeof(text), "r5", "r5 s1", 5);
    g = ces_test_text_graph(ctx, text);
    t = emit(ctx, g, NULL);
    /* r1's wait (n0_1_1) from r4's write alone; r0's waits from both */
    assert_non_null(strstr(t, "n0_4_0 -> n0_1_1 [style=dashed"));
    assert_int_equal(ces_test_count(t, " -> n0_1_1 [style=dashed"), 1);
    assert_non_null(strstr(t, "n0_2_1 -> n0_0_0 [style=dashed"));
    assert_non_null(strstr(t, "n0_3_1 -> n0_0_0 [style=dashed"));
    assert_non_null(strstr(t, "n0_2_1 -> n0_0_2 [style=dashed"));
    assert_non_null(strstr(t, "n0_3_1 -> n0_0_2 [style=dashed"));
    /* and g's, and the counter's 46 */
    counter_drawn(t, 53, 1036);
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A later replay's write is one a wait of another rank may see where the
 * wait comes after the second replay's events of its block alone (beside
 * a counter of 46 values, 1081 pairs).  r0 writes f 2 then 1 in a phase
 * replayed 3 times; r1 waits `f == 1` then `f >= 2` in the next, replayed
 * twice; then r0 writes g 2 and r1 waits `g >= 2`.  r1's second replay
 * passes `f >= 2` on r0's third replay's 2 (before its 1), so it goes on
 * to r1's wait of g, which r0's write satisfies; but the analysis took
 * that `f >= 2` to come after the last replay's 1 (it comes after the
 * second's, which stands for the later ones), so to pass on nothing, and
 * drew no edge to the wait of g (cesync check: HANG). */
static void test_counter_pairs_later_replays(void **state)
{
    (void)state;
    /* the counter's 46, and the write of g to its wait */
    counter_says("phase graph x3\nr0 : write f[0]@1 = 2\nr0 : write f[0]@1 = 1\n"
                 "phase graph x2\nr1 : wait f[0] == 1\nr1 : wait f[0] >= 2\n"
                 "phase graph x3\nr1 : wait g[0] >= 2\nr0 : write g[0]@1 = 2\n",
                 (const char *const[]){"n3_0_0 -> n3_1_0", NULL},
                 NULL, 47, 1035);
}

/* A wait of a phase's second replay stands for its later replays' waits
 * too, which may see a write that comes after the second's (beside a
 * counter of 46 values, 1081 pairs).  r1 writes g 1 and waits `f == 2` in
 * a phase replayed 3 times; in the next, replayed 3 times, r0 waits
 * `g >= 1` and writes f 1 then 2, r1 waits `f == 1` and writes g 2.  r1
 * passes its three waits on r0's first replay's 2, then its `f == 1` on
 * r0's second replay's 1, and writes g 2, which r0's third `g >= 1` sees;
 * but r1's write of g comes after r0's second replay's 1, so after that
 * replay's wait, and no edge was drawn from it (cesync check: HANG). */
static void test_counter_pairs_later_waits(void **state)
{
    (void)state;
    /* the counter's 46, r0's write of 1 to r1's wait, r1's write to r0's */
    counter_says("phase graph x3\nr1 : write g[0]@0 = 1\nr1 : wait f[0] == 2\n"
                 "phase graph x3\nr0 : wait g[0] >= 1\nr0 : write f[0]@1 = 1\n"
                 "r1 : wait f[0] == 1\nr1 : write g[0]@0 = 2\nr0 : write f[0]@1 = 2\n",
                 (const char *const[]){"n2_0_1 -> n2_1_0", "n2_1_1 -> n2_0_0", NULL},
                 NULL, 48, 1035);
}

/* A wait of a later block comes after every replay of its rank's earlier
 * ones (beside a counter of 46 values, 1081 pairs).  r0 writes f 2, f 0
 * and g 1 in a phase replayed 3 times; in the next, replayed 3 times, r0
 * waits `g == 1` and writes g 1, r0 s1 waits `f == 2`, which never passes
 * (the last replay leaves f 0), so the phase's second replay never starts
 * and r0's write of g is not one its wait sees; the analysis took r0 s1's
 * wait to come after the second replay's events alone (its link), so to
 * pass on the third replay's 2, and drew the write to the wait (cesync
 * check: HANG). */
static void test_counter_pairs_later_block(void **state)
{
    (void)state;
    /* the counter's 46 alone */
    counter_says("phase graph x3\nr0 : write f[0] = 2\nr0 : write f[0] = 0\n"
                 "r0 : write g[0] = 1\nphase graph x3\nr0 : wait g[0] == 1\n"
                 "r0 s1 : wait f[0] == 2\nr0 : write g[0] = 1\n",
                 NULL,
                 (const char *const[]){" -> n2_0_0", NULL}, 46, 1036);
}

/* A later replay's write may come after another process's latest write
 * before a wait, which the second replay's comes before (beside a counter
 * of 46 values, 1081 pairs).  r0 waits `f == 1` and writes f 2 in a phase
 * replayed twice, then waits `f == 1` in the next, replayed 3 times, where
 * r1 writes f 1: r0's second wait of the first phase passes on r1's
 * second 1, after r0's 2, so r0's 2 came after r1's second replay's
 * write and was taken to overwrite r1's writes for r0's later wait, which
 * sees r1's third; no edge was drawn to it (cesync check: HANG). */
static void test_counter_pairs_later_overwritten(void **state)
{
    (void)state;
    /* the counter's 46, and r1's write to r0's wait of its block */
    counter_says("phase graph x2\nr0 : wait f[0] == 1\nr0 : write f[0] = 2\n"
                 "phase graph x3\nr0 : wait f[0] == 1\nr1 : write f[0]@0 = 1\n",
                 (const char *const[]){"n2_1_0 -> n2_0_0", NULL},
                 NULL, 47, 1035);
}

/* A later replay's write is one its own process's later wait never sees
 * where a wait between them fails its value (beside a counter of 46
 * values, 1081 pairs).  In a phase replayed 3 times r0 writes f 1, waits
 * `f == 2`, then `f >= 1`, and r0 s1 writes f 2: each replay's `f == 2`
 * passes only on r0 s1's 2 written after its 1, so its `f >= 1` never sees
 * the 1, but the second replay's write, which stands for the later ones,
 * was not taken to be overwritten, and the 1 was drawn to the wait (cesync
 * check: DEADLOCK,HANG). */
static void test_counter_pairs_later_own(void **state)
{
    (void)state;
    /* the counter's 46, and r0 s1's write to both waits */
    counter_says("phase graph x3\nr0 : write f[0] = 1\nr0 : wait f[0] == 2\n"
                 "r0 : wait f[0] >= 1\nr0 s1 : write f[0] = 2\n",
                 (const char *const[]){"n1_0_3 -> n1_0_1", "n1_0_3 -> n1_0_2", NULL},
                 NULL, 48, 1036);
}

/* A later replay's write is not one a wait passes on where it is its
 * process's latest before the wait and a wait between them, after its
 * every replay, fails its value (beside a counter of 46 values, 1081
 * pairs).  r0 writes f 2 in a phase replayed 3 times, waits `f == 3` then
 * `f == 2` in the next, and `f == 3` in the one after (replayed twice),
 * where r1 s1 writes f 3: the `f == 3` passes only on r1 s1's 3, written
 * after r0's every 2, so the `f == 2` never passes and the last phase's
 * wait never runs; slot_overwritten said so of the 2, but the wait was
 * still taken to pass on the third replay's, and r1 s1's write was drawn
 * to the last wait (cesync check: HANG). */
static void test_counter_pairs_later_failed(void **state)
{
    (void)state;
    /* the counter's 46 alone */
    counter_says("phase graph x3\nr0 : write f[0] = 2\nphase eager x1\n"
                 "r0 : wait f[0] == 3\nr0 : wait f[0] == 2\nphase graph x2\n"
                 "r0 : wait f[0] == 3\nr1 s1 : write f[0]@0 = 3\n",
                 NULL,
                 (const char *const[]){" -> n3_0_0", NULL}, 46, 1036);
}

/* A block's first events come after every replay of its rank's earlier
 * blocks, so a wait after one of them comes after every replay of a write
 * of another stream of that rank (beside a counter of 46 values, 1081
 * pairs).  In a phase replayed 3 times r1 waits `f == 1` then `f >= 1`
 * and r0 s1 writes f 2 to r1; r0 writes f 1 to r1 in the next phase:
 * each of r1's waits passes only on that 1, written after r0 s1's every 2,
 * so no wait sees a 2; but the analysis took a wait to come after every
 * replay of r0 s1's write only past an event of r0 s1 of a later block
 * (it has none), and drew r0 s1's write to r1's `f >= 1` (cesync check:
 * OK). */
static void test_counter_pairs_later_linked(void **state)
{
    (void)state;
    /* the counter's 46 alone */
    counter_says("phase graph x3\nr1 : wait f[0] == 1\nr0 s1 : write f[0]@1 = 2\n"
                 "r1 : wait f[0] >= 1\nphase eager x1\nr0 : write f[0]@1 = 1\n",
                 NULL,
                 (const char *const[]){" -> n1_1_1", NULL}, 46, 1036);
}

/* A later replay's write is overwritten for a wait after every replay of
 * a wait of the write's process and replay that fails its value (beside a
 * counter of 46 values, 1081 pairs).  In a phase replayed 3 times r0 s1
 * writes g 1 and waits `g >= 2`, r1 s1 writes g 2; in the next r0 s1 waits
 * `g == 1`, r1 s1 writes f 1 and r0 s1 waits `f >= 1`: each replay's
 * `g >= 2` passes only on a 2 written after that replay's 1, so the `g ==
 * 1` never passes and the wait of f never runs; but the second replay's
 * 1, which stands for the third's, was taken to be one the `g == 1` may
 * pass on, and r1 s1's write of f was drawn to the wait of f (cesync
 * check: HANG). */
static void test_counter_pairs_later_each(void **state)
{
    (void)state;
    /* the counter's 46, and r1 s1's 2 to the `g >= 2` */
    counter_says("phase graph x3\nr0 s1 : write g[0]@0 = 1\nr0 s1 : wait g[0] >= 2\n"
                 "r1 s1 : write g[0]@0 = 2\nphase eager x1\nr0 s1 : wait g[0] == 1\n"
                 "r1 s1 : write f[0]@0 = 1\nr0 s1 : wait f[0] >= 1\n",
                 (const char *const[]){"n1_1_0 -> n1_0_1", NULL},
                 (const char *const[]){" -> n2_0_1", NULL}, 47, 1036);
}

/* A later replay's write is one a wait after every replay of its block
 * may see though a write of another process comes after it in the second
 * replay, which the order's clocks tell, not in each (beside a counter of
 * 46 values, 1081 pairs).  In a phase replayed 3 times r1 waits `f >= 2`,
 * r1 s1 writes f 2 and r1 then f 1; in the next, replayed twice, r1 s1
 * waits `f >= 2` and writes f 2: the last replay leaves f 1, so the `f >=
 * 2` never passes (cesync check: DEADLOCK), which the order does not see;
 * r1 s1's own 2 was drawn to it (its second replay), where it passes on
 * none of r1 s1's 2s of the first phase, and is not since chain_over
 * finds no write its first replay may take.  And in a phase replayed 3 times r0 s1 writes f 2,
 * f 1 and g 1, r1 s1 waits `g >= 1` and `f == 2` and writes f 2, then r1
 * s1 waits `f == 1` and `f == 2`, then r1 s1 waits `g >= 1` where r0 s1
 * writes g 1: r1 s1's first `f == 2` passes on r0 s1's second 2, so its
 * 2 of the second replay comes after that one, but r1 s1 may run its
 * three replays before r0 s1's third, whose 1 and 2 the next phase's
 * waits pass on; r0 s1's 2 was taken to come before r1 s1's in each
 * replay, the `f == 2` to pass on none, and the last phase was not drawn
 * (the last phase's edge missing; cesync check: DEADLOCK and HANG, some
 * executions passing every wait).  r0 s1's 1 may land between r1 s1's 2
 * and its next replay's `f == 2`, which then passes on a 2 after it: r1
 * s1's own 2 is drawn to that wait too. */
static void test_counter_pairs_later_other(void **state)
{
    (void)state;
    /* the counter's 46, r1 s1's 2 to the first phase's wait, its own to
     * the second's */
    counter_says("phase graph x3\nr1 : wait f[0] >= 2\nr1 s1 : write f[0]@1 = 2\n"
                 "r1 : write f[0]@1 = 1\nphase graph x2\nr1 s1 : wait f[0] >= 2\n"
                 "r1 s1 : write f[0]@1 = 2\n",
                 (const char *const[]){"n1_1_1 -> n1_1_0", NULL},
                 (const char *const[]){"n1_1_1 -> n2_1_0", "n2_1_1 -> n2_1_0", NULL}, 47, 1036);
    counter_says("phase graph x3\nr0 s1 : write f[0]@1 = 2\nr0 s1 : write f[0]@1 = 1\n"
                 "r0 s1 : write g[0]@1 = 1\nr1 s1 : wait g[0] >= 1\n"
                 "r1 s1 : wait f[0] == 2\nr1 s1 : write f[0]@1 = 2\nphase eager x1\n"
                 "r1 s1 : wait f[0] == 1\nr1 s1 : wait f[0] == 2\nphase eager x1\n"
                 "r1 s1 : wait g[0] >= 1\nr0 s1 : write g[0]@1 = 1\n",
                 (const char *const[]){"n3_0_0 -> n3_1_0", "n1_1_2 -> n1_1_1", NULL}, NULL,
                 50, 1035);
}

/* A wait of a phase replayed 3 times whose every replay needs a write no
 * other replay's wait passes on, with fewer such writes, never passes in
 * its last replay, so its rank's later phases never run (beside a counter
 * of 46 values, 1081 pairs).  r1 writes f 1 and waits `f == 3` in a phase
 * replayed 3 times, waits `f == 3` in the next (replayed twice), where r0
 * writes f 3 to r1: each replay of the first wait needs a 3 written after
 * its replay's 1, and r0 writes two; and r1 waits `f == 1` in a phase
 * replayed 3 times while r1 s1 writes f 0, then in the next r0 s1 writes
 * f 1 to r1, r1 s1 f 1 to r0 and r0 s1 waits `f >= 1`: r1 s1's 0 of the
 * second replay comes between the first and the third replays' waits, and
 * r0 s1 writes one 1.  The analysis took the second replay to stand for
 * the third, and drew r0's 3 to r1's later wait and r1 s1's 1 to r0 s1's
 * wait (cesync check: HANG).  The phase cut is not: the first case with
 * r1 waiting `g == 1` first in it, which r0 writes each replay, keeps that
 * edge (no test had an edge within the cut phase, and taking its own
 * events for ones no execution runs failed none). */
static void test_counter_pairs_later_count(void **state)
{
    static const char *const tails[] = {
        "phase graph x3\nr1 : write f[0]@1 = 1\nr1 : wait f[0] == 3\nphase graph x2\n"
        "r1 : wait f[0] == 3\nr0 : write f[0]@1 = 3\n",
        "phase graph x3\nr1 : wait f[0] == 1\nr1 s1 : write f[0]@1 = 0\nphase eager x1\n"
        "r0 s1 : write f[0]@1 = 1\nr1 s1 : write f[0]@0 = 1\nr0 s1 : wait f[0] >= 1\n",
        "phase graph x3\nr0 : write g[0]@1 = 1\nr1 : wait g[0] == 1\nr1 : write f[0]@1 = 1\n"
        "r1 : wait f[0] == 3\nphase graph x2\nr1 : wait f[0] == 3\nr0 : write f[0]@1 = 3\n",
    };
    static const char *const wrong[] = {"n2_0_0 -> n2_1_0 [", "n2_1_0 -> n2_0_1 [",
                                        "n2_0_0 -> n2_1_0 ["};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t c = 0; c < 3; c++) {
        struct ces_graph *g;
        char *t = counter_case(ctx, &g, "", tails[c]);

        assert_null(strstr(t, wrong[c]));
        /* the counter's 46, and in the third r0's g to r1's wait of it in
         * the phase cut: its replays before the last run */
        if (c == 2)
            assert_non_null(strstr(t, "n1_0_0 -> n1_1_0 [style=dashed"));
        counter_drawn(t, c == 2 ? 47 : 46, 1036);
        ces_free(ctx, t);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* A later replay's write is one a wait never sees where another process's
 * write comes after its every replay and before the wait (beside a
 * counter of 46 values, 1081 pairs).  r1 s1 writes g 2 in a phase
 * replayed 3 times, r1 writes g 1 in the next, and r1 s1 waits `g >= 2`
 * and writes g 2 in the one after (replayed twice): the 1 comes after the
 * first phase's every 2, so the wait never passes; but the first phase's
 * third replay's 2 (its second's standing for it) was taken to be one the
 * wait may pass on, and the last phase's 2 was drawn to its wait, which
 * only its second replay, never started, would show (cesync check:
 * DEADLOCK). */
static void test_counter_pairs_later_reset(void **state)
{
    (void)state;
    counter_says("phase graph x3\nr1 s1 : write g[0]@1 = 2\nphase eager x1\n"
                 "r1 : write g[0]@1 = 1\nphase graph x2\nr1 s1 : wait g[0] >= 2\n"
                 "r1 s1 : write g[0]@1 = 2\n",
                 NULL, (const char *const[]){" -> n3_1_0", NULL}, 46, 1036);
}

/* A process's waits into a slot whose latest write of the process before
 * each fails it need a write of another process each, but for waits
 * after one write of the process, which may pass on one; where fewer
 * such writes are there, the last of the waits never passes (beside a
 * counter of 46 values, 1081 pairs).  r1 waits `f == 3` and writes f 1 in
 * a phase replayed 4 times and waits `f == 3` in the next (replayed 4
 * times), where r0 writes f 3 to r1: the five waits before and after r1's
 * four 1s need five 3s, and r0 writes four, so the last phase's first wait
 * never passes; and r1 waits `f == 2`, writes f 1 and waits `f == 2` in a
 * phase replayed 3 times where r0 writes f 2 to r1, then r1 writes f 1 to
 * r2, which waits `f >= 1`: the first wait, and the second of each replay
 * with the next replay's first, need four 2s, and r0 writes three, so r1
 * never writes to r2.  The analysis counted a write for each replay of
 * the first phase alone, and drew r0's 3 to r1's wait of the next phase
 * and r1's 1 to r2's wait (cesync check: HANG both). */
static void test_counter_pairs_chain(void **state)
{
    (void)state;
    counter_says("phase graph x4\nr1 : wait f[0] == 3\nr1 : write f[0]@1 = 1\n"
                 "phase graph x4\nr1 : wait f[0] == 3\nr0 : write f[0]@1 = 3\n",
                 NULL, (const char *const[]){" -> n2_1_0", NULL}, 46, 1036);
    /* r0's 2 to r1's waits, of the replays before the last */
    counter_says("phase graph x3\nr1 : wait f[0] == 2\nr1 : write f[0]@1 = 1\n"
                 "r1 : wait f[0] == 2\nr0 : write f[0]@1 = 2\nphase eager x1\n"
                 "r1 : write f[0]@2 = 1\nr2 : wait f[0] >= 1\n",
                 (const char *const[]){"n1_0_0 -> n1_1_0", "n1_0_0 -> n1_1_2", NULL},
                 (const char *const[]){" -> n2_2_0", NULL}, 48, 1036);
}

/* Where the replays of a phase's wait use up the writes they may pass on,
 * its rank's later phases come after every one (beside a counter of 46
 * values, 1081 pairs).  r1 waits `f >= 1` while r1 s1 writes f 0 in a
 * phase replayed 3 times, waits `g == 2` in the next, where r0 writes g 2,
 * and in the one after r0 writes g 1 then f 1 and r0 s1 f 1: the first
 * and third replays' waits need a 1 each, so the replays use both of r0's,
 * and r1's `g == 2` comes after r0's 1 of f and so after its 1 of g, and
 * never passes; but the phase was taken to end after one of the 1s alone,
 * and r0's 2 was drawn to the wait of g (cesync check: HANG). */
static void test_counter_pairs_later_spent(void **state)
{
    (void)state;
    counter_says("phase graph x3\nr1 : wait f[0] >= 1\nr1 s1 : write f[0]@1 = 0\n"
                 "phase eager x1\nr0 : write g[0]@1 = 2\nr1 : wait g[0] == 2\n"
                 "phase eager x1\nr0 : write g[0]@1 = 1\nr0 : write f[0]@1 = 1\n"
                 "r0 s1 : write f[0]@1 = 1\n",
                 NULL, (const char *const[]){" -> n2_1_0", NULL}, 46, 1036);
}

/* The phases after counter_case's counter of test_counter_pairs_later_paired
 * and of test_counter_pairs_chain_order (test_counter_pairs_alloc_failures
 * draws both too). */
static const char later_paired_tail[] =
    "phase graph x4\nr1 : wait f[0] == 2\nr1 s1 : write f[0]@1 = 1\n"
    "phase graph x2\nr1 : wait f[0] >= 1\nr0 : write f[0]@1 = 2\n";

static const char chain_order_tail[] =
    "phase graph x3\nr0 : wait f[0] >= 1\nr1 : write f[0]@0 = 3\n"
    "r0 : write f[0]@0 = 0\nr0 : wait f[0] >= 3\nr1 : write f[0]@0 = 2\n"
    "phase graph x2\nr0 : wait f[0] == 2\nr0 : write f[0]@0 = 2\n";

/* Where the replays of a phase's wait, an even count, use up half as
 * many writes, as where another stream of its rank writes a value it
 * fails in each replay, each write passes two replays' waits, the last
 * replay's with the one before, so comes before that stream's write of
 * the last replay, which comes after the one before's wait (beside a
 * counter of 46 values, 1081 pairs).  r1 waits `f == 2` while r1 s1
 * writes f 1 in a phase replayed 4 times, and waits `f >= 1` in the next
 * (replayed twice), where r0 writes f 2: the four waits need both of r0's
 * 2s, and the next phase's wait comes after both and after the last 1, so
 * sees a 1; but r0's 2 was drawn to it (cesync check: HANG, where r0's 2s
 * come before r1 s1's first 1). */
static void test_counter_pairs_later_paired(void **state)
{
    (void)state;
    counter_says(later_paired_tail, NULL, (const char *const[]){" -> n2_1_0", NULL}, 46, 1036);
}

/* Where the writes a stream's waits into a slot may pass on are all of
 * one other stream, the waits that need a write (each after a write of
 * its stream that fails it, or before its first) pass on that stream's
 * writes in order, those after a write of their stream on a later one
 * than those before it (beside a counter of 46 values, 1081 pairs).  r0
 * waits `f >= 1`, writes f 0 and waits `f >= 3` in a phase replayed 3
 * times, while r1 writes f 3 then f 2: each `f >= 3` needs a 3 after r0's
 * 0 of its replay, so the three take r1's three 3s in turn, and the first
 * `f >= 1`, before r0's first 0, needs a write of r1's before the first
 * of them, which there is not: the phase's last replay never ends, and
 * its next phase, where r0 waits `f == 2` and writes f 2 (replayed
 * twice), never runs; but the write of f was drawn to the wait (cesync
 * check: HANG).  The first replay's edges, r1's first 3 to both waits,
 * which the executions that end blocked show, are kept, and r1's 2 to the
 * `f >= 1`: where r0's 0 comes after r1's 3, the second replay's `f >= 1`
 * passes on r1's 2 of the first. */
static void test_counter_pairs_chain_order(void **state)
{
    (void)state;
    counter_says(chain_order_tail,
                 (const char *const[]){"n1_1_0 -> n1_0_0", "n1_1_0 -> n1_0_2",
                                       "n1_1_1 -> n1_0_0", NULL},
                 (const char *const[]){" -> n2_0_0", NULL}, 49, 1036);
}

/* A write of a phase's first replay that comes after another process's
 * write of its second replay may come before that write's later replays
 * (beside a counter of 46 values, 1081 pairs).  r1 waits `f >= 1`, writes
 * f 0, waits `f >= 1`, writes f 0 and waits `f >= 1` in a phase replayed
 * 3 times, where r0 writes f 1 to r1: the second wait passes on r0's
 * second 1, so r1's second 0 comes after r0's second replay's write, and
 * was taken to come after r0's later replays' too, though the third wait
 * passes on r0's third 1, written after that 0 (the last replay never
 * ends, cesync check: HANG); no edge was drawn to it. */
static void test_counter_pairs_later_first(void **state)
{
    (void)state;
    counter_says("phase graph x3\nr0 : write f[0]@1 = 1\nr1 : wait f[0] >= 1\n"
                 "r1 : write f[0] = 0\nr1 : wait f[0] >= 1\nr1 : write f[0] = 0\n"
                 "r1 : wait f[0] >= 1\n",
                 (const char *const[]){"n1_0_0 -> n1_1_0", "n1_0_0 -> n1_1_2",
                                       "n1_0_0 -> n1_1_4", NULL},
                 NULL, 49, 1035);
}

/* A wait that comes after a process's write of a phase's second replay,
 * its latest write before the wait, may still pass on a write of that
 * process before it in a later replay (beside a counter of 46 values,
 * 1081 pairs).  r1 waits `f == 3`, `f == 2`, `f >= 3` and `f == 2` in a
 * phase replayed 3 times where r0 writes f 2, then f 3, to r1: the first
 * replay's second wait comes after r0's first 3, so passes on a later
 * replay's 2, and its third on a 3 after that, so its last wait comes
 * after r0's second replay's 3 in every execution, and was taken to see
 * no write of r0 before that 3, though where the second and third waits
 * pass on r0's second replay's 2 and 3, the last passes on its third
 * replay's 2; no edge was drawn to it (the second replay never passes
 * its first `f == 2`, cesync check: HANG).  The drawn edges are exactly
 * these four.  Not so a write of another stream of the wait's rank,
 * whose next replay comes after the wait's replay: r1 s1 writing f 0, r1
 * writing f 1, r1 s1 waiting `f >= 2`, r1 writing f 2 and r1 s1 waiting
 * `f >= 1` in a phase replayed 3 times, both waits see the 2 of their
 * replay alone.  Nor a write that the replays of an earlier phase's wait
 * of the rank use up (test_counter_pairs_later_spent), after whose every
 * replay the wait comes: r0 writing f 1 and waiting `f >= 2` in a phase
 * replayed 3 times, then waiting `f >= 1` in the next (replayed 3 times)
 * where r1 writes f 1 then f 2, the three `f >= 2` take r1's three 2s,
 * and the next phase's wait sees the last; r1's 1 was drawn to it. */
static void test_counter_pairs_later_latest(void **state)
{
    (void)state;
    counter_says("phase graph x3\nr1 : wait f[0] == 3\nr0 : write f[0]@1 = 2\n"
                 "r0 : write f[0]@1 = 3\nr1 : wait f[0] == 2\nr1 : wait f[0] >= 3\n"
                 "r1 : wait f[0] == 2\n",
                 (const char *const[]){"n1_0_0 -> n1_1_1", "n1_0_0 -> n1_1_3",
                                       "n1_0_1 -> n1_1_0", "n1_0_1 -> n1_1_2", NULL},
                 NULL, 50, 1035);
    counter_says("phase graph x3\nr1 s1 : write f[0]@1 = 0\nr1 : write f[0]@1 = 1\n"
                 "r1 s1 : wait f[0] >= 2\nr1 : write f[0]@1 = 2\nr1 s1 : wait f[0] >= 1\n",
                 (const char *const[]){"n1_1_3 -> n1_1_2", "n1_1_3 -> n1_1_4", NULL}, NULL,
                 48, 1036);
    counter_says("phase graph x3\nr0 : write f[0]@0 = 1\nr0 : wait f[0] >= 2\n"
                 "phase graph x3\nr0 : wait f[0] >= 1\nr1 : write f[0]@0 = 1\n"
                 "r1 : write f[0]@0 = 2\n",
                 (const char *const[]){"n2_1_1 -> n2_0_0", NULL},
                 (const char *const[]){"n2_1_0 -> n2_0_0", NULL}, 47, 1036);
}

/* A wait comes after every replay of the writes that an earlier wait's
 * replays use up, where that wait comes after the last of its replays,
 * though the clocks, of a later replay's second alone, do not say so
 * (beside a counter of 46 values, 1081 pairs).  r0 waiting `f == 3`,
 * writing f 0 and waiting `f == 2` in a phase replayed 3 times, then r0
 * s1 waiting `f >= 1` in the next (replayed 3 times) where r1 writes f 3
 * and r2 f 1 then f 2: the three `f == 3` take r1's three 3s and the
 * three `f == 2` r2's three 2s, so the next phase's wait sees r2's last
 * 2 alone; r1's 3 and r2's 1 were drawn to it (the rank's first such
 * wait, o->spent, raised the clocks of its later phases, the second's
 * writes were taken to be of any replay). */
static void test_counter_pairs_later_past(void **state)
{
    (void)state;
    counter_says("phase graph x3\nr0 : wait f[0] == 3\nr0 : write f[0]@0 = 0\n"
                 "r0 : wait f[0] == 2\nphase graph x3\nr0 s1 : wait f[0] >= 1\n"
                 "r1 : write f[0]@0 = 3\nr2 : write f[0]@0 = 1\nr2 : write f[0]@0 = 2\n",
                 (const char *const[]){"n2_2_1 -> n2_0_0", NULL},
                 (const char *const[]){"n2_1_0 -> n2_0_0", "n2_2_0 -> n2_0_0", NULL}, 47, 1037);
}

/* A later replay's wait passes on a write of its own in each replay where
 * another wait of its process and block passes on no value it passes on
 * (its own `==` value the other fails, or the other's `==` value it
 * fails): between two replays of the one the other passes, on a write
 * after the one the first replay's passed on (beside a counter of 46
 * values, 1081 pairs).  r0 waiting `f == 2` then `f == 1` in a phase
 * replayed 3 times, then r0 s1 waiting `f == 1` in the next (replayed 3
 * times) where r1 writes f 1, f 2 and f 1: the three `f == 2` take r1's
 * three 2s, so the next phase's wait sees r1's last 1 alone (of its third
 * replay, after its 2); r1's first 1 was drawn to it (the replays' waits
 * were counted as needing no write of their own). */
static void test_counter_pairs_later_disjoint(void **state)
{
    (void)state;
    counter_says("phase graph x3\nr0 : wait f[0] == 2\nr0 : wait f[0] == 1\n"
                 "phase graph x3\nr1 : write f[0]@0 = 1\nr1 : write f[0]@0 = 2\n"
                 "r0 s1 : wait f[0] == 1\nr1 : write f[0]@0 = 1\n",
                 (const char *const[]){"n2_1_2 -> n2_0_0", NULL},
                 (const char *const[]){"n2_1_0 -> n2_0_0", NULL}, 47, 1036);
}

/* A wait whose process's waits into its slot need as many writes of
 * other processes as they may pass on comes after every replay of each,
 * where it is not of a later replay too (beside a counter of 46 values,
 * 1081 pairs).  r1 waiting `f >= 1`, writing f 0 and waiting `f >= 1` in a
 * phase replayed twice, then r1 s1 writing f 0 and waiting `f >= 1` in
 * the next (replayed 3 times) where r0 writes f 1: r1's four waits need
 * three 1s, r0's three, so r1 s1's wait, after its 0 and every 1, never
 * passes; r0's 1 was drawn to it (cesync check: HANG). */
static void test_counter_pairs_first_past(void **state)
{
    (void)state;
    /* the counter's 46 alone */
    counter_says("phase graph x2\nr1 : wait f[0] >= 1\nr1 : write f[0]@1 = 0\n"
                 "r1 : wait f[0] >= 1\nphase graph x3\nr0 : write f[0]@1 = 1\n"
                 "r1 s1 : write f[0]@1 = 0\nr1 s1 : wait f[0] >= 1\n",
                 NULL, (const char *const[]){" -> n2_1_1", NULL}, 46, 1036);
}

/* A later replay's wait that passes on a write of its own in each replay
 * (replays_left) counts the writes that come before its first replay as
 * one among them all, and none of those that come before its process's
 * latest write into the slot before that replay, which the replay sees
 * or one after (beside a counter of 46 values, 1081 pairs).  r0 s1
 * waiting `f >= 1` in a phase replayed twice where r1 writes f 2 twice,
 * then r0 writing f 1 and waiting `f >= 2` in the next (replayed 4
 * times), then r0 waiting `f >= 1` and r0 s1 writing f 1: r1's first 2
 * comes before r0 s1's first wait, so before r0's first 1, and the four
 * `f >= 2` have three 2s left, so the last phase never runs (cesync check
 * without the counter: HANG); r0 s1's 1 was drawn to r0's wait.  And r0
 * s1 writing f 0 and waiting `f == 1` where r1 s1 writes f 1 twice and r0
 * f 2, in a phase replayed twice, then r0 s1 writing f 0 and waiting `f
 * >= 1` in the next (3 times), then writing f 1 and waiting `f == 1`: the
 * first phase's waits take two of r1's four 1s before the next phase's
 * first 0, which leaves two for its three waits (DEADLOCK); the last
 * phase's 1 was drawn to its wait. */
static void test_counter_pairs_later_before(void **state)
{
    (void)state;
    counter_says("phase graph x2\nr0 s1 : wait f[0] >= 1\nr1 : write f[0]@0 = 2\n"
                 "r1 : write f[0]@0 = 2\nphase graph x4\nr0 : write f[0]@0 = 1\n"
                 "r0 : wait f[0] >= 2\nphase eager x1\nr0 : wait f[0] >= 1\n"
                 "r0 s1 : write f[0]@0 = 1\n",
                 (const char *const[]){"n1_1_0 -> n1_0_0", NULL},
                 (const char *const[]){" -> n3_0_0", NULL}, 47, 1037);
    counter_says("phase graph x2\nr0 s1 : write f[0]@0 = 0\nr0 s1 : wait f[0] == 1\n"
                 "r1 s1 : write f[0]@0 = 1\nr0 : write f[0]@0 = 2\nr1 s1 : write f[0]@0 = 1\n"
                 "phase graph x3\nr0 s1 : write f[0]@0 = 0\nr0 s1 : wait f[0] >= 1\n"
                 "phase eager x1\nr0 s1 : write f[0]@0 = 1\nr0 s1 : wait f[0] == 1\n",
                 (const char *const[]){"n1_1_0 -> n1_0_1", "n1_1_1 -> n1_0_1", NULL},
                 (const char *const[]){" -> n3_0_1", NULL}, 48, 1036);
}

/* The order keeps up to DOT_PAST_FACTS facts of each process that a wait
 * comes after every replay of its first events, where it kept the first
 * one taken (beside a counter of 46 values, 1081 pairs).  r0 s1 waiting
 * `f >= 1`, writing f 1 and waiting `f >= 2` in a phase replayed 3 times
 * where r1 writes f 1, then r0 writing f 1 and waiting `f >= 2` in the
 * next (replayed 3 times) where r1 writes f 2: the first phase's three `f
 * >= 2` take r1's three 2s, so the next phase, after its last replay,
 * comes after every one, and its waits, each after a 1 of their own, have
 * none left (cesync check without the counter: HANG); r1's 2 was drawn to
 * r0's wait, the fact of r1's 2s that the next phase's wait took, its
 * process's events looked at first, standing for r1 in place of the
 * first phase's. */
static void test_counter_pairs_past_facts(void **state)
{
    (void)state;
    counter_says("phase graph x3\nr0 s1 : wait f[0] >= 1\nr0 s1 : write f[0]@0 = 1\n"
                 "r1 : write f[0]@0 = 1\nr0 s1 : wait f[0] >= 2\nphase graph x3\n"
                 "r0 : write f[0]@0 = 1\nr1 : write f[0]@0 = 2\nr0 : wait f[0] >= 2\n",
                 (const char *const[]){"n1_1_0 -> n1_0_0", NULL},
                 (const char *const[]){" -> n2_0_1", NULL}, 47, 1037);
}

/* A wait's nearest write of a process is not the only one of it that may
 * let the wait pass: where a write whose value the wait fails may land
 * after it and before the wait, the process's next write may be what
 * passes the wait (beside a counter of 46 values, 1081 pairs).  r1 writes
 * f 1, 0 and 1 to r0, which waits `f == 1`: it passes on either 1.  In a
 * phase replayed twice r1 writes g 1 twice to r0, which waits `g >= 1`,
 * writes g 0, waits `g == 1` and writes g 0: where both 1s land before
 * r0's first 0, the `g == 1` passes on the next replay's first 1, and
 * that replay's `g >= 1` on its second.  Each wait was drawn from the
 * nearest write of r1 alone, these three edges missing (cesync check
 * without the counter: HANG, executions passing every wait). */
static void test_counter_pairs_reset_between(void **state)
{
    (void)state;
    counter_says("phase eager x1\nr1 : write f[0]@0 = 1\nr1 : write f[0]@0 = 0\n"
                 "r1 : write f[0]@0 = 1\nr0 : wait f[0] == 1\nphase graph x2\n"
                 "r0 : wait g[0] >= 1\nr0 : write g[0] = 0\nr0 : wait g[0] == 1\n"
                 "r0 : write g[0] = 0\nr1 : write g[0]@0 = 1\nr1 : write g[0]@0 = 1\n",
                 (const char *const[]){"n1_1_0 -> n1_0_0", "n1_1_2 -> n1_0_0",
                                       "n2_1_0 -> n2_0_0", "n2_1_1 -> n2_0_0",
                                       "n2_1_0 -> n2_0_2", "n2_1_1 -> n2_0_2", NULL},
                 NULL, 52, 1035);
}

/* A write of a later replay may be what a wait of the replay before it
 * passes on, in a phase replayed 3 or more times (beside a counter of 46
 * values, 1081 pairs): the phase's second replay stands for its later
 * ones.  In a phase replayed 3 times r0 waits `f == 1`, writes f 0 and g
 * 1, waits `f >= 1` and writes f 0, and r1 writes f 1, waits `g == 1`
 * and writes f 1: r1's second replay passes its `g == 1` on r0's first
 * 1, so both its 1s may land before r0's second 0, and r0's second `f >=
 * 1` passes on r1's third replay's first 1.  A write was taken never to
 * be seen past another process's write of the block's later replays that
 * comes after it, as in each replay, though its next replay comes after
 * that write; the wait was drawn from r1's second 1 alone (cesync check:
 * HANG). */
static void test_counter_pairs_next_replay(void **state)
{
    (void)state;
    /* the counter's 46, r1's 1s to r0's waits, r0's 1 to r1's */
    counter_says("phase graph x3\nr0 : wait f[0] == 1\nr0 : write f[0] = 0\n"
                 "r0 : write g[0]@1 = 1\nr0 : wait f[0] >= 1\nr0 : write f[0] = 0\n"
                 "r1 : write f[0]@0 = 1\nr1 : wait g[0] == 1\nr1 : write f[0]@0 = 1\n",
                 (const char *const[]){"n1_1_0 -> n1_0_3", "n1_1_2 -> n1_0_3",
                                       "n1_0_2 -> n1_1_1", NULL},
                 NULL, 51, 1035);
}

/* A write of a wait's own process after it in its replay comes before the
 * wait's next replay, in a phase replayed 3 or more times, so may land
 * between two writes the wait may see (beside a counter of 46 values,
 * 1081 pairs).  In a phase replayed 3 times r0 waits `g == 1`, writes g
 * 0 and f 1 to r2, waits `g == 1` and writes c 1 to r1; r1 waits `c == 1`
 * and writes g 1 to r0; r2 writes g 1 to r0 and waits `f == 1`.  r1's
 * write of the first replay may land after r0's 0 of the second, where
 * r0's second `g == 1` of the second replay and its first of the third
 * pass on it.  The 0 of the second replay, after the wait's second
 * replay, was taken to come after its every replay, so no write failing
 * the wait to come between r2's 1 and r1's; the wait was drawn from
 * r2's 1 alone (cesync check: HANG). */
static void test_counter_pairs_next_fails(void **state)
{
    (void)state;
    /* the counter's 46, r1's and r2's 1s to r0's first wait */
    counter_says("phase graph x3\nr0 : wait g[0] == 1\nr0 : write g[0] = 0\n"
                 "r0 : write f[0]@2 = 1\nr0 : wait g[0] == 1\nr0 : write c[0]@1 = 1\n"
                 "r1 : wait c[0] == 1\nr1 : write g[0]@0 = 1\nr2 : write g[0]@0 = 1\n"
                 "r2 : wait f[0] == 1\n",
                 (const char *const[]){"n1_1_1 -> n1_0_0", "n1_2_0 -> n1_0_0", NULL},
                 NULL, 52, 1035);
}

/* Whether a write whose value a wait fails may come between two writes
 * is asked of each process's first such write that may, not of every
 * write of the slot for every later write of a run: r1 writes a counter
 * 1 to 2,000 to r0, which waits `c >= 1` to `c >= 2000` (2,001,000 pairs),
 * each wait's nearest write the one of its value, each later write
 * looked at, and each against every write of the slot (the counter's
 * values below the wait's among them), so the order passed its bound of
 * work and every pair was drawn (140 MiB of dot text after 10 s; 0.07 s
 * before such writes were asked of, as now). */
static void test_counter_pairs_fails_work(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    size_t size = 131072, n;
    char *text = ces_malloc(ctx, size), *t;
    struct ces_graph *g;

    (void)state;
    assert_non_null(text);
    n = (size_t)snprintf(text, size, "cesync 1\nranks 2\nsignal c u32 1\nphase eager x1\n");
    for (uint32_t k = 1; k <= 2000; k++)
        n += (size_t)snprintf(text + n, size - n, "r1 : write c[0]@0 = %u\n", k);
    for (uint32_t k = 1; k <= 2000; k++)
        n += (size_t)snprintf(text + n, size - n, "r0 : wait c[0] >= %u\n", k);
    assert_true(n < size);
    g = ces_test_text_graph(ctx, text);
    t = emit(ctx, g, NULL);
    assert_non_null(strstr(t, "n0_1_0 -> n0_0_0 [style=dashed"));
    assert_non_null(strstr(t, "n0_1_1999 -> n0_0_1999 [style=dashed"));
    counter_drawn(t, 2000, 1999000);
    ces_free(ctx, t);
    ces_free(ctx, text);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A wait of a later replay finds its first replay's event at a place of
 * its own, not by looking back over the events between: r0 writing f 1
 * twice and waiting `f == 1` 30,000 times in a phase replayed 3 times
 * looked back 30,000 events for each of its second replay's waits, each
 * pass of the order, and passed the order's bound of work (all 60,000
 * pairs drawn, 4.5 s of CPU), where each wait is drawn from the second 1
 * alone in 0.4 s. */
static void test_counter_pairs_first_replay_work(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    size_t size = 1048576, n;
    char *text = ces_malloc(ctx, size), *t;
    struct ces_graph *g;

    (void)state;
    assert_non_null(text);
    n = (size_t)snprintf(text, size, "cesync 1\nranks 1\nsignal f u32 1\nphase graph x3\n"
                                     "r0 : write f[0] = 1\nr0 : write f[0] = 1\n");
    for (uint32_t k = 0; k < 30000; k++)
        n += (size_t)snprintf(text + n, size - n, "r0 : wait f[0] == 1\n");
    assert_true(n < size);
    g = ces_test_text_graph(ctx, text);
    t = emit(ctx, g, NULL);
    assert_non_null(strstr(t, "n0_0_1 -> n0_0_29999 [style=dashed"));
    assert_null(strstr(t, "n0_0_0 -> n0_0_2 [style=dashed"));
    counter_drawn(t, 30000, 30000);
    ces_free(ctx, t);
    ces_free(ctx, text);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The order's work grows with a counter's values about as they do, not
 * with their square: r0 counting itself to 16,000 and waiting `>=` each
 * value in a phase replayed 3 times (128 million pairs) passed the order's
 * bound of work (replays_left counted every write of the slot for each
 * wait and pass, the writes a wait passes on were looked for among all of
 * them, the writes that fail it were listed for each wait, and the pairs
 * of each write counted over its block's waits), so every pair was drawn:
 * 49 s of CPU and 2 GB of dot text before memory ran out, where each wait
 * is drawn from its own write in 0.3 s. */
static void test_counter_pairs_self_counter_work(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    size_t size = 1048576, n;
    char *text = ces_malloc(ctx, size), *t;
    struct ces_graph *g;

    (void)state;
    assert_non_null(text);
    n = (size_t)snprintf(text, size, "cesync 1\nranks 1\nsignal c u32 1\nphase graph x3\n");
    for (uint32_t k = 1; k <= 16000; k++)
        n += (size_t)snprintf(text + n, size - n, "r0 : write c[0] = %u\nr0 : wait c[0] >= %u\n",
                              k, k);
    assert_true(n < size);
    g = ces_test_text_graph(ctx, text);
    t = emit(ctx, g, NULL);
    assert_non_null(strstr(t, "n0_0_0 -> n0_0_1 [style=dashed"));
    assert_non_null(strstr(t, "n0_0_31998 -> n0_0_31999 [style=dashed"));
    assert_null(strstr(t, "n0_0_2 -> n0_0_1 [style=dashed"));
    counter_drawn(t, 16000, 127992000);
    ces_free(ctx, t);
    ces_free(ctx, text);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The picture of a counter of n values in a phase replayed 3 times (head:
 * the ranks and streams), `writer` writing each into `slot` and `waiter`
 * waiting `>=` it after that write; *work the order's
 * (ces_dot_size.order). */
static char *counter_work(struct ces_ctx *ctx, const char *head, const char *writer,
                          const char *slot, const char *waiter, uint32_t n, uint64_t *work)
{
    size_t size = (size_t)n * 64 + 256, len = 0, m;
    char *text = ces_malloc(ctx, size), *t = NULL;
    struct ces_graph *g;
    struct ces_dot_size sz;

    assert_non_null(text);
    m = (size_t)snprintf(text, size, "cesync 1\n%ssignal c u32 1\nphase graph x3\n", head);
    for (uint32_t k = 1; k <= n; k++)
        m += (size_t)snprintf(text + m, size - m, "%s : write %s = %u\n%s : wait c[0] >= %u\n",
                              writer, slot, k, waiter, k);
    assert_true(m < size);
    g = ces_test_text_graph(ctx, text);
    assert_int_equal(ces_dot_emit_sized(ctx, g, NULL, NULL, &t, &len, &sz, 0), CES_OK);
    *work = sz.order;
    ces_graph_destroy(g);
    ces_free(ctx, text);
    return t;
}

/* The order's work grows with a counter's values about as they do where
 * another rank or another stream writes it, not with their square: r1
 * writing r0's counter 1 to 3,000, r0 waiting `>=` each value after its
 * write, in a phase replayed 3 times, took 40,732,496 work (keep_nearest
 * walked, for each wait, every later write of r1's block, while the next
 * replay's smaller values may fail it between), and r0 s0 counting to
 * 4,000 with r0 s1 waiting likewise 24,361,986 (slot_overwritten went, for
 * each wait, over every earlier wait of s1 that comes after the write it
 * sees, each passing that write's value); each wait is now drawn from its
 * value's write and the block's last, within 200 work a value. */
static void test_counter_pairs_other_counter_work(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    uint64_t work;
    char *t = counter_work(ctx, "ranks 2\n", "r1", "c[0]@0", "r0", 3000, &work);

    (void)state;
    assert_non_null(strstr(t, "n0_1_0 -> n0_0_0 [style=dashed"));
    assert_non_null(strstr(t, "n0_1_1500 -> n0_0_1500 [style=dashed"));
    assert_non_null(strstr(t, "n0_1_2999 -> n0_0_1500 [style=dashed"));
    assert_null(strstr(t, "n0_1_1501 -> n0_0_1500 [style=dashed"));
    counter_drawn(t, 5999, 4495501);
    assert_true(work > 0 && work < 200 * 3000);
    ces_free(ctx, t);
    t = counter_work(ctx, "ranks 1\nstreams 2\n", "r0", "c[0]", "r0 s1", 4000, &work);
    assert_non_null(strstr(t, "n0_0_0 -> n0_0_1 [style=dashed"));
    assert_non_null(strstr(t, "n0_0_4000 -> n0_0_4001 [style=dashed"));
    assert_non_null(strstr(t, "n0_0_7998 -> n0_0_4001 [style=dashed"));
    assert_null(strstr(t, "n0_0_4002 -> n0_0_4001 [style=dashed"));
    counter_drawn(t, 7999, 7994001);
    assert_true(work > 0 && work < 200 * 4000);
    ces_free(ctx, t);
    ces_test_ctx_end(ctx, &st);
}

/* A graph, its picture drawn without failures, and emit_same's runs. */
struct dot_want {
    const struct ces_graph *g;
    const char *text;
    long runs;
};

/* Draws want's graph as emit_body does; a picture drawn is exactly
 * want's text (run k of ces_test_alloc_failures fails allocation k). */
static int emit_same(struct ces_ctx *ctx, void *arg)
{
    struct dot_want *want = arg;
    char *t = NULL;
    int rc = ces_dot_emit(ctx, want->g, NULL, &t, NULL);

    want->runs++;
    if (rc == CES_OK && strcmp(t, want->text) != 0)
        fail_msg("allocation %ld: the picture differs from the one drawn without failures",
                 want->runs);
    ces_free(ctx, t);
    return rc;
}

/* Above 1000 pairs within a block, each allocation of the picture, those
 * of the order that draws a wait from its nearest writes (order_build,
 * order_chains, keep_nearest) among them, failing in turn: each says
 * CES_ERR_NOMEM with a message and leaves nothing allocated, and without
 * a failure the picture is the one drawn with none (test_alloc_failures's
 * tiny schedule stays below 1000 pairs, where no order is worked out).
 * The schedules of test_counter_pairs_later_paired and
 * test_counter_pairs_chain_order: their chains are paired (chain_pair)
 * and their replays' writes counted (replays_left, writes_left). */
static void test_counter_pairs_alloc_failures(void **state)
{
    const struct {
        const char *tail;
        size_t dashed;
        unsigned hidden;
    } cases[] = {{later_paired_tail, 46, 1036}, {chain_order_tail, 49, 1036}};

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ces_test_alloc st;
        struct ces_ctx *ctx = ces_test_ctx(&st);
        struct ces_graph *g;
        char *t = counter_case(ctx, &g, "", cases[i].tail);
        struct dot_want want = {g, t, 0};

        counter_drawn(t, cases[i].dashed, cases[i].hidden);
        assert_true(ces_test_alloc_failures(emit_same, &want) > 100);
        ces_free(ctx, t);
        ces_graph_destroy(g);
        ces_test_ctx_end(ctx, &st);
    }
}

/* The order is given up past a bound of work, every pair drawn: each of
 * r0's 1,000 `== 1` waits of a slot that 1,000 ranks write 2 looks at the
 * writes of every rank, each against every other's (a slot 1,000 ranks
 * write and 8,000 waits await took 37 s where drawing its pairs takes 3).
 * The counter beside it then has its 1081 pairs drawn, none left out. */
static void test_counter_pairs_work(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    size_t size = 65536, n;
    char *text = ces_malloc(ctx, size), *t;
    struct ces_graph *g;

    (void)state;
    assert_non_null(text);
    n = (size_t)snprintf(text, size,
                         "cesync 1\nranks 1000\nstreams 2\nsignal f u32 1\nsignal c u32 1\n"
                         "phase eager x1\nr* : write f[0]@0 = 2\n");
    for (uint32_t k = 0; k < 1000; k++)
        n += (size_t)snprintf(text + n, size - n, "r0 : wait f[0] == 1\n");
    add_counter(text, n, size, "r1 s1", "r2 s1", 2);
    g = ces_test_text_graph(ctx, text);
    t = emit(ctx, g, NULL);
    assert_int_equal(ces_test_count(t, "[style=dashed"), 1081);
    assert_null(strstr(t, "not drawn"));
    ces_free(ctx, t);
    ces_free(ctx, text);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The order of writes and waits above 1000 pairs reads the picture's
 * clock (ces_dot_emit_sized's deadline) where it begins and every so much
 * work after: a deadline already passed stops it at once, no text, the
 * error saying where (it read none, so a check's --dot under --max-seconds
 * worked out the whole order of test_counter_pairs_work's schedule, 0.85 s
 * on a loaded machine, past a bound of 0.8 s, and the text's first reading
 * of the clock said the bound had passed while it was written). */
static void test_counter_pairs_deadline(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g;
    char *t = counter_case(ctx, &g, "", ""), *late = t;
    size_t len = 1;

    (void)state;
    counter_drawn(t, 46, 1035); /* the order worked out, without a deadline */
    assert_int_equal(ces_dot_emit_sized(ctx, g, NULL, NULL, &late, &len, NULL, ces_now()),
                     CES_ERR_TIMEOUT);
    assert_null(late);
    assert_int_equal(len, 0);
    assert_string_equal(ces_ctx_last_error(ctx), "the time bound passed while the order of its "
                                                 "writes and waits was worked out");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* An await drawn from a record of its own rank only, in a graph built
 * without validation too: rank 1's await, with no record of its own, was
 * linked to rank 0's record in the same replayed phase (the phase's last
 * record of each event was kept across ranks, and read uninitialized for
 * an event no rank had recorded yet). */
static void test_event_edges_own_rank(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_op rec = {.kind = CES_OP_RECORD}, aw = {.kind = CES_OP_AWAIT};
    uint32_t e;
    char *t;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_event(g, "e", &e), CES_OK);
    rec.event = aw.event = e;
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 2), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &rec), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 1, &aw), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &aw), CES_OK);
    t = emit(ctx, g, NULL);
    /* rank 0's await, after its record: that one edge */
    assert_int_equal(ces_test_count(t, "[style=dotted"), 1);
    assert_non_null(strstr(t, "n0_0_0 -> n0_0_1 [style=dotted"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* An allocator whose blocks start zeroed: what the emitter reads before it
 * writes shows as a zero. */
static void *zero_malloc(void *ud, size_t size)
{
    (void)ud;
    return calloc(1, size > 0 ? size : 1);
}

static void *zero_realloc(void *ud, void *ptr, size_t size)
{
    (void)ud;
    return realloc(ptr, size > 0 ? size : 1);
}

static void zero_free(void *ud, void *ptr)
{
    (void)ud;
    free(ptr);
}

/* An await with no record of its event before it, in a replayed phase of
 * a graph built without validation, has no event edge; the phase's last
 * record of the event was read before any was written. */
static void test_event_edges_unrecorded(void **state)
{
    struct ces_alloc h = {zero_malloc, zero_realloc, zero_free, NULL};
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g = NULL;
    struct ces_op aw = {.kind = CES_OP_AWAIT};
    char *t = NULL;
    size_t len = 0;

    (void)state;
    assert_int_equal(ces_ctx_create(&h, &ctx), CES_OK);
    assert_int_equal(ces_graph_create(ctx, 1, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_event(g, "e", &aw.event), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, 2), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &aw), CES_OK);
    assert_int_equal(ces_dot_emit(ctx, g, NULL, &t, &len), CES_OK);
    assert_null(strstr(t, "[style=dotted"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
}

/* Puts an executable `dot` into dir that copies its input to its output,
 * for the search on PATH. */
static void fake_dot(const char *dir)
{
    char path[512];

    assert_true(snprintf(path, sizeof(path), "%s/dot", dir) < (int)sizeof(path));
    ces_test_put_file(path, "#!/bin/sh\nexec /bin/cat\n");
    assert_int_equal(chmod(path, 0755), 0);
}

/* PATH and TMPDIR as a test found them, to put back after it set its own. */
struct saved_env {
    char *path, *tmpdir;
};

static struct saved_env env_save(void)
{
    struct saved_env e = {ces_test_env_save("PATH"), ces_test_env_save("TMPDIR")};

    return e;
}

static void env_restore(struct saved_env *e)
{
    ces_test_env_restore("PATH", e->path);
    ces_test_env_restore("TMPDIR", e->tmpdir);
}

/* Graphviz is looked for on PATH as a shell does: a directory named dot
 * and a file named dot that cannot be run are passed over, an empty
 * element is the current directory; its temporary input is gone from
 * TMPDIR once drawn; a .dot file needs no Graphviz, and ".dot" is a
 * name that ends in .dot. */
static void test_write_finds_dot(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *dir = ces_test_tmpdir(), *back, *t = "digraph { a -> b }\n";
    struct saved_env env = env_save();
    char p[512], q[512], cwd[4096], got[256];

    (void)state;
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    snprintf(p, sizeof(p), "%s/a", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof(p), "%s/a/dot", dir); /* a directory */
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof(p), "%s/b", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof(p), "%s/b/dot", dir); /* not executable */
    ces_test_put_file(p, "#!/bin/sh\nexit 1\n");
    assert_int_equal(chmod(p, 0644), 0);
    snprintf(p, sizeof(p), "%s/c", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    fake_dot(p);
    snprintf(p, sizeof(p), "%s/tmp", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    assert_int_equal(setenv("TMPDIR", p, 1), 0);
    snprintf(p, sizeof(p), "%s/a:%s/b:%s/c", dir, dir, dir);
    assert_int_equal(setenv("PATH", p, 1), 0);
    snprintf(q, sizeof(q), "%s/x.svg", dir);
    assert_int_equal(ces_dot_write(ctx, t, q), CES_OK);
    back = ces_test_read_file(q, NULL);
    assert_string_equal(back, t);
    free(back);
    assert_int_equal(unlink(q), 0);
    snprintf(p, sizeof(p), "%s/tmp", dir);
    ces_test_dir_entries(p, got, sizeof(got));
    assert_string_equal(got, "");
    assert_int_equal(rmdir(p), 0);
    /* an empty TMPDIR is /tmp: the input Graphviz reads, unlinked */
    snprintf(p, sizeof(p), "%s/d", dir);
    ces_test_put_program(p, "dot", "#!/bin/sh\nexec /bin/readlink /proc/self/fd/0\n");
    assert_int_equal(setenv("PATH", p, 1), 0);
    assert_int_equal(setenv("TMPDIR", "", 1), 0);
    snprintf(q, sizeof(q), "%s/z.svg", dir);
    assert_int_equal(ces_dot_write(ctx, t, q), CES_OK);
    back = ces_test_read_file(q, NULL);
    assert_int_equal(strncmp(back, "/tmp/cesync-dot-", 16), 0);
    assert_non_null(strstr(back, " (deleted)\n"));
    free(back);
    assert_int_equal(unlink(q), 0);
    assert_int_equal(setenv("TMPDIR", dir, 1), 0); /* /tmp no more */
    /* an empty element of PATH: the current directory */
    snprintf(p, sizeof(p), "%s/c", dir);
    assert_int_equal(chdir(p), 0);
    assert_int_equal(setenv("PATH", ":/nonexistent-dir", 1), 0);
    assert_int_equal(ces_dot_write(ctx, t, "y.svg"), CES_OK);
    back = ces_test_read_file("y.svg", NULL);
    assert_string_equal(back, t);
    free(back);
    assert_int_equal(unlink("y.svg"), 0);
    /* no Graphviz at all: a .dot file is still written */
    assert_int_equal(setenv("PATH", "/nonexistent-dir", 1), 0);
    assert_int_equal(ces_dot_write(ctx, t, ".dot"), CES_OK);
    back = ces_test_read_file(".dot", NULL);
    assert_string_equal(back, t);
    free(back);
    assert_int_equal(unlink(".dot"), 0);
    assert_int_equal(chdir(cwd), 0);
    env_restore(&env);
    ces_test_remove_in(dir, "c/dot\0b/dot\0d/dot\0a/dot\0a\0b\0c\0d\0");
    ces_test_ctx_end(ctx, &st);
}

/* What keeps a picture from being written is said before Graphviz runs,
 * naming the picture: an output that is a directory (dot laid the picture
 * out, for minutes when large, and then "cannot replace d.svg: Is a
 * directory"), and a TMPDIR that cannot hold dot's input (the message named
 * the directory alone, or neither the file nor the directory where the
 * input did not fit);
 * nothing is left beside either. */
static void test_write_refused_before_dot(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *dir = ces_test_tmpdir(), *t = "digraph { a -> b }\n";
    struct saved_env env = env_save();
    char p[512], q[512], want[1536], got[256];

    (void)state;
    /* a dot that leaves a mark when it runs */
    snprintf(p, sizeof(p), "%s/bin", dir);
    snprintf(want, sizeof(want), "#!/bin/sh\n: > %s/ran\nexec /bin/cat\n", dir);
    ces_test_put_program(p, "dot", want);
    assert_int_equal(setenv("PATH", p, 1), 0);
    assert_int_equal(setenv("TMPDIR", dir, 1), 0);

    snprintf(q, sizeof(q), "%s/d.svg", dir);
    assert_int_equal(mkdir(q, 0755), 0);
    assert_int_equal(ces_dot_write(ctx, t, q), CES_ERR_IO);
    snprintf(want, sizeof(want), "cannot write %s: Is a directory", q);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "bin;d.svg;");
    assert_int_equal(rmdir(q), 0);

    assert_int_equal(setenv("TMPDIR", "/nonexistent-dir", 1), 0);
    snprintf(q, sizeof(q), "%s/x.png", dir);
    assert_int_equal(ces_dot_write(ctx, t, q), CES_ERR_IO);
    snprintf(want, sizeof(want),
             "cannot write %s: cannot create a temporary file in /nonexistent-dir (TMPDIR): "
             "No such file or directory",
             q);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "bin;");

    /* nor one that cannot take the whole input (a full TMPDIR; here a
     * file size limit) */
    assert_int_equal(setenv("TMPDIR", dir, 1), 0);
    assert_int_equal(write_limited(ctx, t, q, 4), CES_ERR_IO);
    snprintf(want, sizeof(want),
             "cannot write %s: cannot write a temporary file in %s (TMPDIR): File too large", q,
             dir);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "bin;");

    env_restore(&env);
    snprintf(p, sizeof(p), "%s/bin/dot", dir);
    assert_int_equal(unlink(p), 0);
    snprintf(p, sizeof(p), "%s/bin", dir);
    assert_int_equal(rmdir(p), 0);
    assert_int_equal(rmdir(dir), 0);
    ces_test_ctx_end(ctx, &st);
}

/* A `dot` that exits 0 having written nothing fails the write, CES_ERR_IO
 * naming the picture, and leaves the file it was to replace as it was, no
 * temporary file beside it (an empty keep.svg took the place of the old
 * one, reported written); a new picture is not created.  A device written
 * in place (a link to /dev/null) has no size to tell: written. */
static void test_write_empty_picture(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *dir = ces_test_tmpdir(), *t = "digraph { a -> b }\n", *back;
    struct saved_env env = env_save();
    char p[512], q[512], want[1024], got[256];

    (void)state;
    snprintf(p, sizeof(p), "%s/bin", dir);
    ces_test_put_program(p, "dot", "#!/bin/sh\nexit 0\n");
    assert_int_equal(setenv("PATH", p, 1), 0);
    assert_int_equal(setenv("TMPDIR", dir, 1), 0);

    snprintf(q, sizeof(q), "%s/keep.svg", dir);
    ces_test_put_file(q, "keep\n");
    assert_int_equal(ces_dot_write(ctx, t, q), CES_ERR_IO);
    snprintf(want, sizeof(want), "cannot write %s: Graphviz 'dot' wrote nothing", q);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    back = ces_test_read_file(q, NULL);
    assert_string_equal(back, "keep\n");
    free(back);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "bin;keep.svg;");

    snprintf(q, sizeof(q), "%s/new.png", dir);
    assert_int_equal(ces_dot_write(ctx, t, q), CES_ERR_IO);
    snprintf(want, sizeof(want), "cannot write %s: Graphviz 'dot' wrote nothing", q);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "bin;keep.svg;");

    snprintf(q, sizeof(q), "%s/null.svg", dir);
    assert_int_equal(symlink("/dev/null", q), 0);
    assert_int_equal(ces_dot_write(ctx, t, q), CES_OK);
    assert_int_equal(unlink(q), 0);

    env_restore(&env);
    ces_test_remove_in(dir, "keep.svg\0bin/dot\0bin\0");
    ces_test_ctx_end(ctx, &st);
}

/* Graphviz gets the picture's input as its standard input and the file it
 * writes as its standard output, and no other descriptor of ours: the
 * temporary files behind them stayed open in `dot` under their own
 * numbers too (the picture's x.svg.XXXXXX and the unlinked cesync-dot-XXXXXX;
 * a file written in place, the file itself), two descriptors fewer for
 * Graphviz under a limit on them (`ulimit -n 5`: dot could not load its
 * libraries), and in a program that runs other children the files stayed
 * open in theirs.  A stand-in for `dot` writes the names of its
 * descriptors past 2. */
static void test_write_dot_gets_no_other_descriptor(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *dir = ces_test_tmpdir(), *t = "digraph { a -> b }\n", *back;
    struct saved_env env = env_save();
    char p[512], q[512], got[256];
    int status = 0;
    pid_t pid;

    (void)state;
    snprintf(p, sizeof(p), "%s/bin", dir);
    ces_test_put_program(p, "dot",
                         "#!/bin/sh\n"
                         "for f in /proc/$$/fd/*; do\n"
                         "  [ \"${f##*/}\" -gt 2 ] && /bin/readlink \"$f\"\n"
                         "done\n"
                         "echo drawn\n");
    assert_int_equal(setenv("PATH", p, 1), 0);
    assert_int_equal(setenv("TMPDIR", dir, 1), 0);

    /* a file replaced whole: neither temporary file */
    snprintf(q, sizeof(q), "%s/x.svg", dir);
    assert_int_equal(ces_dot_write(ctx, t, q), CES_OK);
    back = ces_test_read_file(q, NULL);
    assert_non_null(strstr(back, "drawn\n"));
    assert_null(strstr(back, "cesync-dot-"));
    snprintf(p, sizeof(p), "%s/x.svg.", dir);
    assert_null(strstr(back, p));
    free(back);
    assert_int_equal(unlink(q), 0);

    /* a named pipe written in place: not the pipe (its reader copies what
     * it reads into got.txt) */
    snprintf(q, sizeof(q), "%s/p.svg", dir);
    assert_int_equal(mkfifo(q, 0600), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char buf[4096];
        ssize_t n;
        int in = open(q, O_RDONLY), out;

        snprintf(p, sizeof(p), "%s/got.txt", dir);
        out = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
            if (write(out, buf, (size_t)n) != n)
                _exit(1);
        _exit(in >= 0 && out >= 0 && close(out) == 0 ? 0 : 1);
    }
    assert_int_equal(ces_dot_write(ctx, t, q), CES_OK);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    snprintf(p, sizeof(p), "%s/got.txt", dir);
    back = ces_test_read_file(p, NULL);
    assert_non_null(strstr(back, "drawn\n"));
    assert_null(strstr(back, "cesync-dot-"));
    assert_null(strstr(back, q));
    free(back);

    env_restore(&env);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "bin;got.txt;p.svg;");
    ces_test_remove_in(dir, "bin/dot\0bin\0got.txt\0p.svg\0");
    ces_test_ctx_end(ctx, &st);
}

/* ces_dot_write in a process started without standard input, output or
 * error (cesync dot ... <&-): its files take those numbers, and Graphviz
 * got the picture's input as its output too (the spawn's dup2 onto 0
 * first replaced the output, which had 0, with the input: "Graphviz 'dot'
 * wrote nothing"); one that has 2 took the process's error messages.
 * Each stream closed in turn, then all three, around one write (the
 * picture as a stand-in `dot` copies it). */
static void test_write_without_standard_streams(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *dir = ces_test_tmpdir(), *t = "digraph { a -> b }\n", *back;
    struct saved_env env = env_save();
    static const int closed[][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
    char p[512], q[512], got[256];

    (void)state;
    snprintf(p, sizeof(p), "%s/bin", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    fake_dot(p);
    assert_int_equal(setenv("PATH", p, 1), 0);
    assert_int_equal(setenv("TMPDIR", dir, 1), 0);
    snprintf(q, sizeof(q), "%s/x.svg", dir);
    for (size_t k = 0; k < sizeof(closed) / sizeof(closed[0]); k++) {
        int saved[3], rc;

        fflush(stdout);
        fflush(stderr);
        for (int s = 0; s < 3; s++) {
            saved[s] = -1;
            if (closed[k][s]) {
                saved[s] = fcntl(s, F_DUPFD_CLOEXEC, 10);
                assert_true(saved[s] >= 10);
                assert_int_equal(close(s), 0);
            }
        }
        rc = ces_dot_write(ctx, t, q);
        for (int s = 0; s < 3; s++) {
            if (saved[s] >= 0) {
                assert_int_equal(dup2(saved[s], s), s);
                assert_int_equal(close(saved[s]), 0);
            }
        }
        if (rc != CES_OK)
            print_message("closed %d%d%d: %s\n", closed[k][0], closed[k][1], closed[k][2],
                          ces_ctx_last_error(ctx));
        assert_int_equal(rc, CES_OK);
        back = ces_test_read_file(q, NULL);
        assert_string_equal(back, t);
        free(back);
        assert_int_equal(unlink(q), 0);
    }
    env_restore(&env);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "bin;");
    ces_test_remove_in(dir, "bin/dot\0bin\0");
    ces_test_ctx_end(ctx, &st);
}

/* The copies of a batch are stacked in a chain of invisible edges (they
 * have no order); program order enters the box at the first and leaves it
 * from the last. */
static void test_batch_copies_stacked(void **state)
{
    static const char text[] = "cesync 1\n"
                               "ranks 1\n"
                               "buffer a 48\n"
                               "phase eager x1\n"
                               "r0 : fence\n"
                               "r0 : batch\n"
                               "r0 : copy a[0:8] -> a[24:32]\n"
                               "r0 : copy a[8:16] -> a[32:40]\n"
                               "r0 : copy a[16:24] -> a[40:48]\n"
                               "r0 : end\n"
                               "r0 : fence\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    char *t = emit(ctx, g, NULL);

    (void)state;
    assert_non_null(strstr(t, "n0_0_0 -> n0_0_2 [color=\"#888888\", lhead=cluster_batch_0_0_1];\n"
                              "n0_0_2 -> n0_0_3 [style=invis];\n"
                              "n0_0_3 -> n0_0_4 [style=invis];\n"
                              "n0_0_4 -> n0_0_6 [color=\"#888888\", "
                              "ltail=cluster_batch_0_0_1];\n"));
    assert_int_equal(ces_test_count(t, "[style=invis];\nn"), 2);
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A write's edges to the waits of its slot go out block after block, and
 * within a block by rank, then by place in the rank's list. */
static void test_write_wait_edge_order(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_op w = {.kind = CES_OP_WRITE, .slot = {0, 2, 0}, .value = 5};
    struct ces_op wt = {.kind = CES_OP_WAIT, .cmp = CES_CMP_GEQ, .slot = {0, 2, 0}, .value = 1};
    uint32_t a;
    char *t, got[256];

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 3, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "a", CES_U32, 1, &a), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
    for (uint32_t k = 0; k < 2; k++) {
        assert_int_equal(ces_graph_add_op(g, 2, &wt), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 1, &wt), CES_OK);
    }
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 2, &wt), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
    t = emit(ctx, g, NULL);
    dashed_edges(t, got, sizeof(got));
    assert_string_equal(got, "n0_0_0->n0_1_0;n0_0_0->n0_1_1;n0_0_0->n0_2_0;n0_0_0->n0_2_1;"
                             "n0_0_0->n1_2_0;"
                             "n1_0_0->n0_1_0;n1_0_0->n0_1_1;n1_0_0->n0_2_0;n1_0_0->n0_2_1;"
                             "n1_0_0->n1_2_0;");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Event and data edges count toward the 500 cross edges above which edges
 * are drawn straight: a record awaited, and a copy into rank 1 read, 500
 * times, then 501 times. */
static void test_cross_edges_straight(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (int data = 0; data <= 1; data++) {
        for (uint32_t n = 500; n <= 501; n++) {
            struct ces_graph *g = NULL;
            struct ces_op rec = {.kind = CES_OP_RECORD}, aw = {.kind = CES_OP_AWAIT};
            struct ces_op cp = {.kind = CES_OP_COPY, .a = {0, 0, 0, 8}, .b = {0, 1, 0, 8}};
            struct ces_op use = {.kind = CES_OP_CONSUME, .a = {0, 1, 0, 8}};
            uint32_t id;
            char *t;

            assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
            assert_int_equal(ces_graph_add_event(g, "e", &id), CES_OK);
            assert_int_equal(ces_graph_add_buffer(g, "a", 8, &id), CES_OK);
            assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
            assert_int_equal(ces_graph_add_op(g, 0, data ? &cp : &rec), CES_OK);
            for (uint32_t i = 0; i < n; i++)
                assert_int_equal(ces_graph_add_op(g, data ? 1 : 0, data ? &use : &aw), CES_OK);
            t = emit(ctx, g, NULL);
            assert_int_equal(ces_test_count(t, data ? "[color=\"#c0392bb0\"" : "[style=dotted"), n);
            if (n > 500)
                assert_non_null(strstr(t, "graph [splines=line"));
            else
                assert_null(strstr(t, "graph [splines=line"));
            ces_free(ctx, t);
            ces_graph_destroy(g);
        }
    }
    ces_test_ctx_end(ctx, &st);
}

/* The readers of a copy into rank 1 are rank 1's ops that read bytes it
 * wrote: rank 2's copy that pulls them from rank 1 is not one of them,
 * nor are regions that only touch it; a region that starts before a
 * shorter one and ends past the copy's is. */
static void test_data_edges_pull(void **state)
{
    static const char text[] = "cesync 1\nranks 3\n"
                               "buffer src 8\nbuffer stage 16\nbuffer out 8\n"
                               "phase eager x1\n"
                               "r0 : copy src[0:8] -> stage[4:12]@1\n"
                               "r2 : copy stage[4:12]@1 -> out[0:8]\n"
                               "r1 : consume stage[0:4]\n"
                               "r1 : consume stage[12:16]\n"
                               "r1 : consume stage[0:16]\n"
                               "r1 : consume stage[2:4]\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    char *t = emit(ctx, g, NULL), got[256];

    (void)state;
    marked_edges(t, "#c0392b", got, sizeof(got));
    assert_string_equal(got, "n0_0_0->n0_1_2;");
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* An overlay's marks refused: NULL with marks counted, a rank one past
 * the graph's; an op marked blocked and stopped keeps the legend's line
 * for the halves whatever marks follow. */
static void test_overlay_marks_checked(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, replayed_batch);
    struct ces_dot_mark marks[] = {{0, 0, 0, 0, CES_DOT_BLOCKED, 0},
                                   {0, 0, 0, 0, CES_DOT_STOPPED, 1},
                                   {0, 0, 3, 0, CES_DOT_BLOCKED, 0}};
    struct ces_dot_overlay ov = {NULL, 1, "HANG counterexample", NULL, 0};
    char *t = NULL;
    size_t len = 99;

    (void)state;
    assert_int_equal(ces_dot_emit(ctx, g, &ov, &t, &len), CES_ERR_INVALID);
    assert_null(t);
    assert_int_equal(len, 0);
    assert_string_equal(ces_ctx_last_error(ctx), "dot overlay: nmarks is 1 but marks is NULL");
    ov.marks = marks;
    ov.nmarks = 3;
    marks[2].rank = 1;
    assert_int_equal(ces_dot_emit(ctx, g, &ov, &t, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "dot overlay: mark 2 names block 0 rank 1, but "
                                                 "the graph has 1 blocks and 1 ranks");
    marks[2].rank = 0;
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "\\lred and teal halves: blocked"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* An overlay's title and its marks each bring their own lines: a title
 * alone no overlay line in the legend, marks without a title no label. */
static void test_overlay_title_or_marks(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = tiny(ctx);
    struct ces_dot_mark mark = {0, 0, 1, 1, CES_DOT_STEP, 0};
    struct ces_dot_overlay ov = {NULL, 0, "HANG counterexample", NULL, 0};
    char *t;

    (void)state;
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, ", labelloc=t, fontsize=16, label=\"HANG counterexample\"];\n"));
    assert_null(strstr(t, "overlay:"));
    ces_free(ctx, t);
    ov.marks = &mark;
    ov.nmarks = 1;
    ov.title = NULL;
    t = emit(ctx, g, &ov);
    assert_non_null(strstr(t, "fontname=\"Helvetica\", fontsize=11];\n"));
    assert_null(strstr(t, "labelloc"));
    assert_non_null(strstr(t, "overlay: steps numbered"));
    ces_free(ctx, t);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_and_deterministic),
        cmocka_unit_test(test_structure),
        cmocka_unit_test(test_write_wait_edges),
        cmocka_unit_test(test_writes_without_waits),
        cmocka_unit_test(test_far_position),
        cmocka_unit_test(test_replay_positions),
        cmocka_unit_test(test_data_edges),
        cmocka_unit_test(test_many_edges),
        cmocka_unit_test(test_overlay),
        cmocka_unit_test(test_overlay_blocked_replay),
        cmocka_unit_test(test_overlay_stopped),
        cmocka_unit_test(test_overlay_blocked_and_stopped),
        cmocka_unit_test(test_long_name_label),
        cmocka_unit_test(test_very_long_name_renders),
        cmocka_unit_test(test_title_escaped),
        cmocka_unit_test(test_overlay_blocked_batch),
        cmocka_unit_test(test_overlay_cycle_self),
        cmocka_unit_test(test_empty_rank_in_order),
        cmocka_unit_test(test_single_replay_label),
        cmocka_unit_test(test_overlay_blocked_empty_batch),
        cmocka_unit_test(test_overlay_blocked_empty_batch_order),
        cmocka_unit_test(test_event_edges),
        cmocka_unit_test(test_overlay_mismatch),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_no_blocks),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_write),
        cmocka_unit_test(test_write_any_case),
        cmocka_unit_test(test_write_stall),
        cmocka_unit_test(test_write_stall_slow_reader),
        cmocka_unit_test(test_write_replaces_when_complete),
        cmocka_unit_test(test_write_svg_to_pipe),
        cmocka_unit_test(test_write_memory_said),
        cmocka_unit_test(test_label_pieces),
        cmocka_unit_test(test_overlay_replay_lists),
        cmocka_unit_test(test_overlay_stopped_eager),
        cmocka_unit_test(test_overlay_steps),
        cmocka_unit_test(test_overlay_interleaved_batches),
        cmocka_unit_test(test_signal_pair_counts),
        cmocka_unit_test(test_counter_pairs_nearest),
        cmocka_unit_test(test_counter_pairs_other_streams),
        cmocka_unit_test(test_counter_pairs_possible),
        cmocka_unit_test(test_counter_pairs_ordered),
        cmocka_unit_test(test_counter_pairs_blocked),
        cmocka_unit_test(test_counter_pairs_two_writes),
        cmocka_unit_test(test_counter_pairs_later_replays),
        cmocka_unit_test(test_counter_pairs_later_waits),
        cmocka_unit_test(test_counter_pairs_later_block),
        cmocka_unit_test(test_counter_pairs_later_overwritten),
        cmocka_unit_test(test_counter_pairs_later_own),
        cmocka_unit_test(test_counter_pairs_later_failed),
        cmocka_unit_test(test_counter_pairs_later_linked),
        cmocka_unit_test(test_counter_pairs_later_each),
        cmocka_unit_test(test_counter_pairs_later_other),
        cmocka_unit_test(test_counter_pairs_later_count),
        cmocka_unit_test(test_counter_pairs_later_reset),
        cmocka_unit_test(test_counter_pairs_chain),
        cmocka_unit_test(test_counter_pairs_later_spent),
        cmocka_unit_test(test_counter_pairs_later_paired),
        cmocka_unit_test(test_counter_pairs_chain_order),
        cmocka_unit_test(test_counter_pairs_later_first),
        cmocka_unit_test(test_counter_pairs_later_latest),
        cmocka_unit_test(test_counter_pairs_later_past),
        cmocka_unit_test(test_counter_pairs_later_disjoint),
        cmocka_unit_test(test_counter_pairs_first_past),
        cmocka_unit_test(test_counter_pairs_later_before),
        cmocka_unit_test(test_counter_pairs_past_facts),
        cmocka_unit_test(test_counter_pairs_reset_between),
        cmocka_unit_test(test_counter_pairs_next_replay),
        cmocka_unit_test(test_counter_pairs_next_fails),
        cmocka_unit_test(test_counter_pairs_fails_work),
        cmocka_unit_test(test_counter_pairs_first_replay_work),
        cmocka_unit_test(test_counter_pairs_self_counter_work),
        cmocka_unit_test(test_counter_pairs_other_counter_work),
        cmocka_unit_test(test_counter_pairs_alloc_failures),
        cmocka_unit_test(test_counter_pairs_work),
        cmocka_unit_test(test_counter_pairs_deadline),
        cmocka_unit_test(test_event_edges_own_rank),
        cmocka_unit_test(test_event_edges_unrecorded),
        cmocka_unit_test(test_write_finds_dot),
        cmocka_unit_test(test_write_refused_before_dot),
        cmocka_unit_test(test_write_empty_picture),
        cmocka_unit_test(test_write_dot_gets_no_other_descriptor),
        cmocka_unit_test(test_write_without_standard_streams),
        cmocka_unit_test(test_batch_copies_stacked),
        cmocka_unit_test(test_write_wait_edge_order),
        cmocka_unit_test(test_cross_edges_straight),
        cmocka_unit_test(test_data_edges_pull),
        cmocka_unit_test(test_overlay_marks_checked),
        cmocka_unit_test(test_overlay_title_or_marks),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
