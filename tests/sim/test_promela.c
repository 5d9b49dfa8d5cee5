/*
 * tests/sim/test_promela.c - the Promela emitter: its encoding (pinned on
 * small graphs, options, limits, allocation failures), then the cross-check
 * with SPIN: for small fixtures and generated schedules the models are run
 * through `spin -a`, `cc` and `./pan`, and SPIN's verdicts must equal the
 * checker's: RACE (race assertions alone), MISMATCH (data judged at end
 * states on race-free executions) and DEADLOCK or HANG (an invalid end
 * state; SPIN does not tell the two apart); also on schedules under delay
 * faults, and under hardware queue maps (every assignment of the
 * `connections any` fixtures, and maps that differ between ranks for two
 * generated schedules).  Without `spin` (or `cc`) on PATH, or with
 * CES_PROMELA_SPIN=0 (CI's sanitizer stage: SPIN is no code of ours), every
 * model of the cross-check is still checked and emitted, but none goes
 * through SPIN, and the test says so and exits 77 (skipped).
 */
#include "ces_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- the encoding ------------------------------------------------------- */

/* r0 sends 16 bytes to r1 with a u32 flag that wraps; r1 waits >= 2^32-1. */
static struct ces_graph *wrap_graph(struct ces_ctx *ctx)
{
    struct ces_graph *g = NULL;
    uint32_t src, dst, flag;
    struct ces_op p = {.kind = CES_OP_PRODUCE, .a = {0, 0, 0, 16}};
    struct ces_op c = {.kind = CES_OP_COPY, .a = {0, 0, 0, 16}, .b = {1, 1, 0, 16}};
    struct ces_op w1 = {.kind = CES_OP_WRITE, .slot = {0, 1, 0}, .value = UINT32_MAX};
    struct ces_op w2 = {.kind = CES_OP_WRITE, .slot = {0, 1, 0}, .value = 1};
    struct ces_op wt = {.kind = CES_OP_WAIT, .cmp = CES_CMP_GEQ, .slot = {0, 1, 0},
                        .value = UINT32_MAX};
    struct ces_op cs = {.kind = CES_OP_CONSUME, .flags = CES_OPF_EXPECT, .a = {1, 1, 0, 16},
                        .b = {0, 0, 0, 16}};

    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "src", 16, &src), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "dst", 16, &dst), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "flag", CES_U32, 1, &flag), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &p), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &c), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &w1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &w2), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 1, &wt), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 1, &cs), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    return g;
}

static const char wrap_pml[] =
    "/* Promela model of a cesync schedule: 2 ranks, 1 stream, connections 0, 1 iteration.\n"
    " * Deadlock and hang: invalid end states.\n"
    " * Races (vector clocks): assertions.\n"
    " * Wrong data (provenance, generation): assertions.\n"
    " * Data units of 16 bytes: unit u = rank * 2 + buffer base + offset / 16.\n"
    " *   buffer src: base 0\n"
    " *   buffer dst: base 1\n"
    " * Slots (fv[i] holds the index of the value):\n"
    " *   fv[0] = flag[0]@1: 0=0 1=1 2=4294967295\n"
    " */\n"
    "\n"
    "byte fv[1];\n"
    "short dprov[4];\n"
    "byte dgen[4];\n"
    "byte vclk[4];\n"
    "byte fvc[2];\n"
    "byte wthr[4];\n"
    "byte wclk[4];\n"
    "byte rclk[8];\n"
    "\n"
    "active proctype r0s0()\n"
    "{\n"
    "  /* r0.s0#0 produce src[0:16] (iteration 1) */\n"
    "  d_step {\n"
    "    assert(wthr[0] == 0 || wthr[0] == 1 || vclk[0 + wthr[0] - 1] >= wclk[0]);\n"
    "    assert(rclk[1] == 0 || vclk[1] >= rclk[1]);\n"
    "    wthr[0] = 1; wclk[0] = vclk[0] + 1;\n"
    "    rclk[0] = 0;\n"
    "    rclk[1] = 0;\n"
    "    dprov[0] = 1; dgen[0] = 1;\n"
    "    skip\n"
    "  }\n"
    "  /* r0.s0#1 copy src[0:16] -> dst[0:16]@1 (iteration 1) */\n"
    "  d_step {\n"
    "    assert(wthr[0] == 0 || wthr[0] == 1 || vclk[0 + wthr[0] - 1] >= wclk[0]);\n"
    "    rclk[0] = vclk[0] + 1;\n"
    "    assert(wthr[3] == 0 || wthr[3] == 1 || vclk[0 + wthr[3] - 1] >= wclk[3]);\n"
    "    assert(rclk[7] == 0 || vclk[1] >= rclk[7]);\n"
    "    wthr[3] = 1; wclk[3] = vclk[0] + 1;\n"
    "    rclk[6] = 0;\n"
    "    rclk[7] = 0;\n"
    "    dprov[3] = (dprov[0] == 0 -> 1 : dprov[0]); dgen[3] = dgen[0];\n"
    "    skip\n"
    "  }\n"
    "  /* r0.s0#2 write flag[0]@1 = 4294967295 (iteration 1) */\n"
    "  d_step {\n"
    "    fv[0] = 2;\n"
    "    vclk[0]++;\n"
    "    fvc[0] = vclk[0];\n"
    "    fvc[1] = vclk[1];\n"
    "  }\n"
    "  /* r0.s0#3 write flag[0]@1 = 1 (iteration 1) */\n"
    "  d_step {\n"
    "    fv[0] = 1;\n"
    "    vclk[0]++;\n"
    "    fvc[0] = vclk[0];\n"
    "    fvc[1] = vclk[1];\n"
    "  }\n"
    "  skip\n"
    "}\n"
    "\n"
    "active proctype r1s0()\n"
    "{\n"
    "  /* r1.s0#0 wait flag[0] >= 4294967295 (iteration 1) */\n"
    "  d_step {\n"
    "    (fv[0] == 0 || fv[0] == 1 || fv[0] == 2) ->\n"
    "    vclk[2] = (fvc[0] > vclk[2] -> fvc[0] : vclk[2]);\n"
    "    skip\n"
    "  }\n"
    "  /* r1.s0#1 consume dst[0:16] == src[0:16]@0 (iteration 1) */\n"
    "  d_step {\n"
    "    assert(wthr[3] == 0 || wthr[3] == 2 || vclk[2 + wthr[3] - 1] >= wclk[3]);\n"
    "    rclk[7] = vclk[3] + 1;\n"
    "    assert(dprov[3] == 1 && dgen[3] == 1);\n"
    "    skip\n"
    "  }\n"
    "  skip\n"
    "}\n";

static void test_pinned(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = wrap_graph(ctx);
    char *text = NULL;
    size_t len = 0;

    (void)state;
    assert_int_equal(ces_promela_emit(ctx, g, NULL, &text, &len), CES_OK);
    assert_string_equal(text, wrap_pml);
    assert_int_equal(len, strlen(wrap_pml));
    ces_free(ctx, text);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The u32 cyclic compare decides which value indices satisfy a wait. */
static void test_wait_guards(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    char *text = NULL;
    /* values 0, 5, 0x7fffffff, 0x80000005, 0xffffffff on a u32 and a u64 */
    static const uint64_t vals[] = {5, 0x7fffffff, 0x80000005, 0xffffffff};
    struct ces_op w = {.kind = CES_OP_WRITE}, wt = {.kind = CES_OP_WAIT};

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "a", CES_U32, 1, NULL), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "b", CES_U64, 1, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    for (uint32_t sig = 0; sig < 2; sig++) {
        for (size_t i = 0; i < 4; i++) {
            w.slot.sig = sig;
            w.slot.rank = 1;
            w.value = vals[i];
            assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
        }
        wt.slot.sig = sig;
        wt.slot.rank = 1;
        wt.cmp = CES_CMP_GEQ;
        wt.value = 5;
        assert_int_equal(ces_graph_add_op(g, 1, &wt), CES_OK);
        wt.cmp = CES_CMP_EQ;
        wt.value = 0x80000005;
        assert_int_equal(ces_graph_add_op(g, 1, &wt), CES_OK);
    }
    assert_int_equal(ces_promela_emit(ctx, g, NULL, &text, NULL), CES_OK);
    assert_non_null(strstr(text, " *   fv[0] = a[0]@1: 0=0 1=5 2=2147483647 3=2147483653 "
                                 "4=4294967295\n"));
    assert_non_null(strstr(text, " *   fv[1] = b[0]@1: 0=0 1=5 2=2147483647 3=2147483653 "
                                 "4=4294967295\n"));
    /* u32 >= 5: 5 and 0x7fffffff are ahead or equal; 0x80000005 is exactly
     * 2^31 past 5, so (int32_t)(cur - 5) is negative there; 0xffffffff and 0
     * are behind */
    assert_non_null(strstr(text, "    (fv[0] == 1 || fv[0] == 2) ->\n"));
    assert_non_null(strstr(text, "    (fv[0] == 3) ->\n"));
    /* u64 >= 5: plain */
    assert_non_null(strstr(text, "    (fv[1] == 1 || fv[1] == 2 || fv[1] == 3 || fv[1] == 4) ->\n"));
    assert_non_null(strstr(text, "    (fv[1] == 3) ->\n"));
    /* no data: no data arrays */
    assert_null(strstr(text, "dprov"));
    ces_free(ctx, text);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Two ranks, one eager iteration, no ops. */
static struct ces_graph *empty_graph(struct ces_ctx *ctx)
{
    struct ces_graph *g = NULL;

    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    return g;
}

/* Schedules whose verdict the links at block and replay boundaries decide
 * (docs/SEMANTICS.md, section 1): a wait that only a later iteration of
 * another stream satisfies (DEADLOCK, also on one hardware queue), and a
 * copy, or a batch, whose reader on another stream comes a block or a
 * replay later (OK). */
static const char *const link_schedules[] = {
    "cesync 1\nranks 2\nstreams 2\nsignal f u64 1\nphase eager x2\n"
    "r0 s0 : wait f[0] >= 2\nr0 s1 : write f[0] = $i\n",
    "cesync 1\nranks 2\nstreams 2\nconnections 1\nsignal f u64 1\nphase eager x2\n"
    "r0 s0 : wait f[0] >= 2\nr0 s1 : write f[0] = $i\n",
    "cesync 1\nranks 2\nstreams 2\nbuffer a 64\nbuffer b 64\nphase eager x1\n"
    "r* s1 : batch\nr* s1 : copy a[0:32] -> b[0:32]@$r\nr* s1 : copy a[32:64] -> b[32:64]\n"
    "r* s1 : end\nphase eager x1\nr* : consume b[0:64] == a[0:64]\n",
    "cesync 1\nranks 2\nstreams 2\nbuffer a 64\nphase graph x2\nr* s1 : produce a[0:64]\n"
    "r* s1 : record e\nr* : await e\nr* : consume a[0:64]\n",
};

/* More ranks x streams than the race clocks keep threads for (64), in
 * models of a few processes: a flag's hand-over from r0.s32 to r1.s0 (OK),
 * a wait for a value never written (HANG), half the buffer copied
 * (MISMATCH), and every stream busy on one hardware queue per rank. */
static const char *const wide_schedules[] = {
    "cesync 1\nranks 2\nstreams 33\nbuffer a 64\nbuffer b 64\nsignal f u32 1\nphase eager x1\n"
    "r0 s32 : produce a[0:64]\nr0 s32 : copy a[0:64] -> b[0:64]@1\nr0 s32 : write f[0]@1 = 1\n"
    "r1 : wait f[0] == 1\nr1 : consume b[0:64] == a[0:64]@0\n",
    "cesync 1\nranks 2\nstreams 33\nbuffer a 64\nbuffer b 64\nsignal f u32 1\nphase eager x1\n"
    "r0 s32 : produce a[0:64]\nr0 s32 : copy a[0:64] -> b[0:64]@1\nr0 s32 : write f[0]@1 = 1\n"
    "r1 : wait f[0] == 2\nr1 : consume b[0:64] == a[0:64]@0\n",
    "cesync 1\nranks 2\nstreams 33\nbuffer a 64\nbuffer b 64\nsignal f u32 1\nphase eager x1\n"
    "r0 s32 : produce a[0:64]\nr0 s32 : copy a[0:32] -> b[0:32]@1\nr0 s32 : write f[0]@1 = 1\n"
    "r1 : wait f[0] == 1\nr1 : consume b[0:64] == a[0:64]@0\n",
    "cesync 1\nranks 2\nstreams 40\nconnections 1\nbuffer a 320\nphase eager x1\n"
    "r* s0 : produce a[0:8]\nr* s13 : produce a[104:112]\nr* s39 : produce a[312:320]\n",
};

/* As many threads as the race clocks keep (2 ranks x 32 streams): a model
 * whose state vector outgrows pan's default; its header says by how much.
 * The flag's hand-over from r0.s31 (OK), a wait for a value never written
 * (HANG), half the buffer copied (MISMATCH). */
static const char *const clocked_wide_schedules[] = {
    "cesync 1\nranks 2\nstreams 32\nbuffer a 64\nbuffer b 64\nsignal f u32 1\nphase eager x1\n"
    "r0 s31 : produce a[0:64]\nr0 s31 : copy a[0:64] -> b[0:64]@1\nr0 s31 : write f[0]@1 = 1\n"
    "r1 : wait f[0] == 1\nr1 : consume b[0:64] == a[0:64]@0\n",
    "cesync 1\nranks 2\nstreams 32\nbuffer a 64\nbuffer b 64\nsignal f u32 1\nphase eager x1\n"
    "r0 s31 : produce a[0:64]\nr0 s31 : copy a[0:64] -> b[0:64]@1\nr0 s31 : write f[0]@1 = 1\n"
    "r1 : wait f[0] == 2\nr1 : consume b[0:64] == a[0:64]@0\n",
    "cesync 1\nranks 2\nstreams 32\nbuffer a 64\nbuffer b 64\nsignal f u32 1\nphase eager x1\n"
    "r0 s31 : produce a[0:64]\nr0 s31 : copy a[0:32] -> b[0:32]@1\nr0 s31 : write f[0]@1 = 1\n"
    "r1 : wait f[0] == 1\nr1 : consume b[0:64] == a[0:64]@0\n",
};

/* r0 copies 52 bytes to r1 as a batch of two copies of 26 one-byte units
 * (a produce of one byte sets the unit), then flags r1, which consumes. */
static struct ces_graph *batch_graph(struct ces_ctx *ctx)
{
    struct ces_graph *g = NULL;
    struct ces_op p = {.kind = CES_OP_PRODUCE, .a = {0, 0, 0, 1}};
    struct ces_op b = {.kind = CES_OP_BATCH}, e = {.kind = CES_OP_END};
    struct ces_op c0 = {.kind = CES_OP_COPY, .a = {0, 0, 0, 26}, .b = {0, 1, 0, 26}};
    struct ces_op c1 = {.kind = CES_OP_COPY, .a = {0, 0, 26, 52}, .b = {0, 1, 26, 52}};
    struct ces_op w = {.kind = CES_OP_WRITE, .slot = {0, 1, 0}, .value = 1};
    struct ces_op wt = {.kind = CES_OP_WAIT, .slot = {0, 1, 0}, .value = 1};
    struct ces_op cs = {.kind = CES_OP_CONSUME, .flags = CES_OPF_EXPECT, .a = {0, 1, 0, 1},
                        .b = {0, 0, 0, 1}};

    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "x", 52, NULL), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U32, 1, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &p), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &b), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &c0), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &c1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &e), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 1, &wt), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 1, &cs), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    return g;
}

/* An op's comment in the model holds its whole text: it was cut at 255
 * bytes, so a long buffer name lost the region and the rest. */
static void test_long_op_comment(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char name[301], src[800], want[400];
    struct ces_graph *g;
    char *text = NULL;

    (void)state;
    memset(name, 'n', 300);
    name[300] = '\0';
    snprintf(src, sizeof(src), "cesync 1\nranks 2\nbuffer %s 64\nphase eager x1\n"
             "r0 : produce %s[0:64]\n", name, name);
    g = ces_test_text_graph(ctx, src);
    assert_int_equal(ces_promela_emit(ctx, g, NULL, &text, NULL), CES_OK);
    snprintf(want, sizeof(want), "/* r0.s0#0 produce %s[0:64] (iteration 1) */\n", name);
    assert_non_null(strstr(text, want));
    ces_free(ctx, text);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_options_and_limits(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = wrap_graph(ctx), *big = NULL;
    struct ces_promela_opts o;
    struct ces_op p = {.kind = CES_OP_PRODUCE, .a = {0, 0, 0, 1}};
    char *text = NULL;

    (void)state;
    ces_promela_opts_init(&o);
    assert_int_equal(o.races, 1);
    assert_int_equal(o.data, 1);
    /* the header says what the model checks, as the options left it (it
     * promised race and data assertions that the options had left out) */
    o.races = 0;
    assert_int_equal(ces_promela_emit(ctx, g, &o, &text, NULL), CES_OK);
    assert_null(strstr(text, "vclk"));
    assert_null(strstr(text, "wthr"));
    assert_non_null(strstr(text, "assert(dprov[3] == 1 && dgen[3] == 1);"));
    assert_non_null(strstr(text, "\n * Races: not checked (no vector clocks).\n"
                                 " * Wrong data (provenance, generation): assertions.\n"
                                 " * Data units of 16 bytes: "));
    ces_free(ctx, text);
    o.races = 1;
    o.data = 0;
    assert_int_equal(ces_promela_emit(ctx, g, &o, &text, NULL), CES_OK);
    assert_null(strstr(text, "dprov"));
    assert_non_null(strstr(text, "vclk"));
    assert_non_null(strstr(text, "\n * Races (vector clocks): assertions.\n"
                                 " * Wrong data: not checked (no provenance).\n"
                                 " * Data units of 16 bytes: "));
    ces_free(ctx, text);
    o.races = 0;
    assert_int_equal(ces_promela_emit(ctx, g, &o, &text, NULL), CES_OK);
    assert_non_null(strstr(text, " * Deadlock and hang: invalid end states.\n"
                                 " * Races: not checked (no vector clocks).\n"
                                 " * Wrong data: not checked (no provenance).\n"
                                 " * Slots (fv[i] holds the index of the value):\n"));
    assert_null(strstr(text, "assert"));
    assert_null(strstr(text, "Data units"));
    ces_free(ctx, text);
    o.races = 2;
    assert_int_equal(ces_promela_emit(ctx, g, &o, &text, NULL), CES_OK);
    assert_non_null(strstr(text, " * Races (vector clocks): set the bit racy, not asserted.\n"
                                 " * Wrong data: not checked (no provenance).\n"));
    ces_free(ctx, text);
    o.races = 1;
    /* flags judged at end states */
    o.races = 2;
    o.data = 2;
    assert_int_equal(ces_promela_emit(ctx, g, &o, &text, NULL), CES_OK);
    assert_non_null(strstr(text, "bit racy;\nbit mism;\n"));
    assert_non_null(strstr(text, "    racy = (rclk[7] == 0 || vclk[1] >= rclk[7] -> racy : 1);\n"));
    assert_non_null(strstr(text, "    mism = (dprov[3] == 1 && dgen[3] == 1 -> mism : 1);\n"));
    assert_non_null(strstr(text, "\nactive proctype judge()\n{\n  timeout -> assert(!mism || "
                                 "racy)\n}\n"));
    assert_null(strstr(text, "assert(rclk"));
    assert_non_null(strstr(text, " * Races (vector clocks): set the bit racy, not asserted; wrong "
                                 "data is\n *   judged on race-free executions only.\n"
                                 " * Wrong data (provenance, generation): set the bit mism, "
                                 "asserted at end\n *   states by the proctype judge (timeout -> "
                                 "assert(!mism || racy)).\n"));
    ces_free(ctx, text);
    o.races = 0;
    assert_int_equal(ces_promela_emit(ctx, g, &o, &text, NULL), CES_OK);
    assert_non_null(strstr(text, "  timeout -> assert(!mism)\n"));
    assert_null(strstr(text, "racy"));
    assert_non_null(strstr(text, "(timeout -> assert(!mism)).\n"));
    ces_free(ctx, text);
    o.data = 3;
    assert_int_equal(ces_promela_emit(ctx, g, &o, &text, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "promela: races and data take 0, 1 or 2, not 0 "
                                                  "and 3");
    /* a byte-granular region over a big buffer: too many units */
    assert_int_equal(ces_graph_create(ctx, 2, 1, &big), CES_OK);
    assert_int_equal(ces_graph_add_buffer(big, "x", 1u << 20, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(big, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(big, 0, &p), CES_OK);
    assert_int_equal(ces_promela_emit(ctx, big, NULL, &text, NULL), CES_ERR_LIMIT);
    assert_null(text);
    assert_string_equal(ces_ctx_last_error(ctx), "promela: the buffers hold 2097152 units of 1 "
                                                  "byte (at most 16384): use smaller buffers");
    ces_graph_destroy(big);
    /* SPIN compiles no model of more than 2047 d_steps (`d_step sequence
     * too long`), which the emitter wrote without a word: 2047 writes (a
     * d_step of one statement each) pass, 2048 are refused; and so is one
     * d_step of more statements than that (a copy of 205 units of a byte
     * with its race checks) */
    assert_int_equal(ces_graph_create(ctx, 2, 1, &big), CES_OK);
    assert_int_equal(ces_graph_add_signal(big, "f", CES_U32, 1, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(big, CES_PHASE_EAGER, 1), CES_OK);
    {
        struct ces_op w = {.kind = CES_OP_WRITE, .slot = {0, 1, 0}, .value = 1};

        for (int i = 0; i < 2047; i++)
            assert_int_equal(ces_graph_add_op(big, 0, &w), CES_OK);
        assert_int_equal(ces_graph_validate(big, NULL), CES_OK);
        o.races = 0;
        o.data = 1;
        assert_int_equal(ces_promela_emit(ctx, big, &o, &text, NULL), CES_OK);
        ces_free(ctx, text);
        assert_int_equal(ces_graph_add_op(big, 1, &w), CES_OK);
        assert_int_equal(ces_graph_validate(big, NULL), CES_OK);
        assert_int_equal(ces_promela_emit(ctx, big, &o, &text, NULL), CES_ERR_LIMIT);
        assert_null(text);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "promela: d_step 2048 of the model, or its longest so far (1 "
                            "statement), is past what SPIN compiles at r1.s0#0: at most 2047 of "
                            "the d_steps before one and its statements together (use fewer ops "
                            "or data units)");
    }
    ces_graph_destroy(big);
    assert_int_equal(ces_graph_create(ctx, 2, 1, &big), CES_OK);
    assert_int_equal(ces_graph_add_buffer(big, "x", 205, NULL), CES_OK);
    assert_int_equal(ces_graph_add_buffer(big, "y", 205, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(big, CES_PHASE_EAGER, 1), CES_OK);
    {
        struct ces_op c = {.kind = CES_OP_COPY, .a = {0, 0, 0, 205}, .b = {1, 1, 0, 205}};
        struct ces_op one = {.kind = CES_OP_PRODUCE, .a = {0, 0, 0, 1}};

        assert_int_equal(ces_graph_add_op(big, 0, &one), CES_OK);
        assert_int_equal(ces_graph_add_op(big, 0, &c), CES_OK);
        assert_int_equal(ces_graph_validate(big, NULL), CES_OK);
        assert_int_equal(ces_promela_emit(ctx, big, NULL, &text, NULL), CES_ERR_LIMIT);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "promela: d_step 2 of the model, or its longest so far (2051 "
                            "statements), is past what SPIN compiles at r0.s0#1: at most 2047 of "
                            "the d_steps before one and its statements together (use fewer ops "
                            "or data units, or --no-races)");
    }
    ces_graph_destroy(big);
    /* the copies of a batch are d_steps: an atomic of more than 256
     * statements, 26 units of a copy with their race checks, stopped spin -a
     * ("merge requires more than 256 bups") */
    big = batch_graph(ctx);
    assert_int_equal(ces_promela_emit(ctx, big, NULL, &text, NULL), CES_OK);
    assert_non_null(strstr(text, "  :: d_step {\n    !(bm & 1) -> bm = bm | 1;\n"));
    assert_null(strstr(text, "atomic"));
    ces_free(ctx, text);
    ces_graph_destroy(big);
    /* more iterations than generations fit a byte: refused where the model
     * keeps generations, not without data (it said "generations are kept in
     * bytes" of a model that keeps none) */
    assert_int_equal(ces_graph_create(ctx, 2, 1, &big), CES_OK);
    assert_int_equal(ces_graph_add_block(big, CES_PHASE_GRAPH, 251), CES_OK);
    assert_int_equal(ces_graph_validate(big, NULL), CES_OK);
    o.races = 1;
    o.data = 1;
    assert_int_equal(ces_promela_emit(ctx, big, &o, &text, NULL), CES_ERR_LIMIT);
    assert_string_equal(ces_ctx_last_error(ctx), "promela: 251 iterations (at most 250: "
                                                  "generations are kept in bytes)");
    o.data = 0;
    assert_int_equal(ces_promela_emit(ctx, big, &o, &text, NULL), CES_OK);
    assert_non_null(strstr(text, ", 251 iterations.\n"));
    ces_free(ctx, text);
    ces_graph_destroy(big);
    /* too many threads of the race clocks, named in the singular where
     * there is one stream (it said "65 ranks x 1 streams") */
    assert_int_equal(ces_graph_create(ctx, 65, 1, &big), CES_OK);
    assert_int_equal(ces_graph_add_block(big, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_validate(big, NULL), CES_OK);
    assert_int_equal(ces_promela_emit(ctx, big, NULL, &text, NULL), CES_ERR_LIMIT);
    assert_string_equal(ces_ctx_last_error(ctx), "promela: 65 ranks x 1 stream is more than 64 "
                                                  "threads of the race clocks (--no-races keeps "
                                                  "none)");
    ces_graph_destroy(big);
    /* a model without clocks has no threads: 2 ranks x 33 streams run 2
     * processes (it was refused as 66 threads); with the clocks it is not */
    big = ces_test_text_graph(ctx, wide_schedules[0]);
    o.races = 1;
    o.data = 1;
    assert_int_equal(ces_promela_emit(ctx, big, &o, &text, NULL), CES_ERR_LIMIT);
    assert_string_equal(ces_ctx_last_error(ctx), "promela: 2 ranks (line 2:7) x 33 streams is "
                                                  "more than 64 threads of the race clocks "
                                                  "(--no-races keeps none)");
    o.races = 0;
    assert_int_equal(ces_promela_emit(ctx, big, &o, &text, NULL), CES_OK);
    assert_non_null(strstr(text, "\nactive proctype r0s32()\n"));
    assert_non_null(strstr(text, "\nactive proctype r1s0()\n"));
    assert_null(strstr(strstr(strstr(text, "active") + 1, "active") + 1, "active"));
    ces_free(ctx, text);
    ces_graph_destroy(big);
    /* what SPIN runs at most is 255 processes: 255 ranks of one op run
     * 255, and with the judge of --data-at-end 256 */
    big = ces_test_text_graph(ctx, "cesync 1\nranks 255\nbuffer a 8\nphase eager x1\n"
                                   "r* : produce a[0:8]\n");
    o.data = 1;
    assert_int_equal(ces_promela_emit(ctx, big, &o, &text, NULL), CES_OK);
    assert_non_null(strstr(text, "\nactive proctype r254s0()\n"));
    ces_free(ctx, text);
    o.data = 2;
    assert_int_equal(ces_promela_emit(ctx, big, &o, &text, NULL), CES_ERR_LIMIT);
    assert_string_equal(ces_ctx_last_error(ctx), "promela: the model of 255 ranks (line 2:7) "
                                                  "runs 256 processes (SPIN runs at most 255)");
    ces_graph_destroy(big);
    /* a graph without ops: SPIN reads no model without a process ("no
     * runable process"), so r0.s0 runs its no ops */
    big = empty_graph(ctx);
    assert_int_equal(ces_promela_emit(ctx, big, NULL, &text, NULL), CES_OK);
    assert_non_null(strstr(text, " */\n\nbyte vclk[4];\n\nactive proctype r0s0()\n{\n  skip\n}\n"));
    ces_free(ctx, text);
    assert_int_equal(ces_promela_emit(NULL, g, NULL, &text, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_promela_emit(ctx, NULL, NULL, &text, NULL), CES_ERR_INVALID);
    ces_graph_destroy(big);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* An await with no record before it in a graph that was never validated:
 * the emitter read the record of instance -1 (a heap overflow); it now
 * validates the graph first and refuses it. */
/* A delayed write lands at any later moment: after its rank's next block
 * has begun (schedule 0), and after the writes queued behind it on its
 * stream's hardware queue (schedule 1).  Both HANG when the 1 lands over
 * the 2; the model must let it (the derived graph's own model joined the
 * delayed write's stream at the block boundary, or queued it behind its
 * stream's later writes, and SPIN found no hang). */
static const char *const late_schedules[] = {
    "cesync 1\nranks 2\nsignal f u32 1\nphase eager x1\nr0 : write f[0]@1 = 1\n"
    "phase eager x1\nr0 : write f[0]@1 = 2\nr1 : wait f[0] == 2\n",
    "cesync 1\nranks 2\nconnections 1\nsignal f u32 1\nphase eager x1\n"
    "r0 : write f[0]@1 = 1\nr0 : write f[0]@1 = 2\nr1 : wait f[0] == 2\n",
};

/* A delayed write is modelled as the checker checks it: on a stream of its
 * own, in no link (schedule 0: no link joins r0.s1's write before r0's
 * second block, so the one record is the only event) and on no shared
 * hardware queue (schedule 1: r0.s1 a proctype of its own, not on queue 0);
 * the header names where it lands from.  A drop has no model. */
static void test_delays(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g0 = ces_test_text_graph(ctx, late_schedules[0]);
    struct ces_graph *g1 = ces_test_text_graph(ctx, late_schedules[1]);
    struct ces_fault f = {CES_FAULT_DELAY, 0, 0, 0};
    struct ces_promela_opts o;
    char *text = NULL;

    (void)state;
    ces_promela_opts_init(&o);
    assert_null(o.faults);
    assert_int_equal(o.nfaults, 0);
    o.faults = &f;
    o.nfaults = 1;
    assert_int_equal(ces_promela_emit(ctx, g0, &o, &text, NULL), CES_OK);
    assert_non_null(strstr(text, "2 ranks, 2 streams, connections 0, 2 iterations.\n"
                                 " * Fault delay:r0.s0#0: a record in place of the write; the "
                                 "write lands from r0s1, at any moment after it.\n"));
    assert_non_null(strstr(text, "\nbit evdone[1];\n"));
    assert_non_null(strstr(text, "  /* r0.s0#0 record delay0 (iteration 1) */\n"));
    assert_non_null(strstr(text, "active proctype r0s1()\n{\n  /* r0.s1#0 await delay0 "
                                 "(iteration 1) */\n"));
    ces_free(ctx, text);
    assert_int_equal(ces_promela_emit(ctx, g1, &o, &text, NULL), CES_OK);
    assert_non_null(strstr(text, "active proctype r0q0()\n{\n  /* r0.s0#0 record delay0 "
                                 "(iteration 1) */\n"));
    assert_non_null(strstr(text, "active proctype r0s1()\n{\n  /* r0.s1#0 await delay0 "
                                 "(iteration 1) */\n"));
    assert_null(strstr(text, "r0q1"));
    ces_free(ctx, text);
    f.kind = CES_FAULT_DROP;
    assert_int_equal(ces_promela_emit(ctx, g0, &o, &text, NULL), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx), "promela: fault drop:r0.s0#0: only a delay or "
                                                 "a stop is modelled (check a drop with cesync "
                                                 "check)");
    f = (struct ces_fault){CES_FAULT_DELAY, 1, 0, 0};
    assert_int_equal(ces_promela_emit(ctx, g0, &o, &text, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "promela: fault delay:r1.s0#0: expected a write "
                                                 "at that position, found 'wait'");
    o.faults = NULL;
    assert_int_equal(ces_promela_emit(ctx, g0, &o, &text, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "promela: nfaults > 0 but no faults");
    assert_null(text);
    ces_graph_destroy(g1);
    ces_graph_destroy(g0);
    ces_test_ctx_end(ctx, &st);
}

/* Stops (docs/SEMANTICS.md, sections 5 and 9): s0 stops before its last
 * record e; s1 awaits e and then produces what s0 produced.  Schedule 0:
 * no record of e enqueued before the await, which passes at once; 1: the
 * await waits for s0's first record; 2: the stopped wait leaves the one
 * hardware queue, so s1's write behind it runs. */
static const char *const stop_schedules[] = {
    "cesync 1\nranks 1\nstreams 2\nbuffer x 64\nphase eager x1\nr0 : produce x[0:64]\n"
    "r0 : record e\nr0 s1 : await e\nr0 s1 : produce x[0:64]\n",
    "cesync 1\nranks 1\nstreams 2\nbuffer x 64\nphase eager x1\nr0 : record e\n"
    "r0 : produce x[0:64]\nr0 : record e\nr0 s1 : await e\nr0 s1 : produce x[0:64]\n",
    "cesync 1\nranks 1\nstreams 2\nconnections 1\nsignal f u32 1\nphase eager x1\n"
    "r0 : wait f[0] >= 1\nr0 s1 : write f[0] = 1\n",
};

/* A stop's model: the stopped ops left out, an await bound to the latest
 * record enqueued before it (none: it passes), the process of a stopped
 * stream blocked at its end; a whole rank's stop as its streams'. */
static void test_stops(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g[3];
    struct ces_fault f;
    struct ces_promela_opts o;
    char *text = NULL;

    (void)state;
    for (int i = 0; i < 3; i++)
        g[i] = ces_test_text_graph(ctx, stop_schedules[i]);
    ces_promela_opts_init(&o);
    o.faults = &f;
    o.nfaults = 1;
    assert_int_equal(ces_fault_parse(ctx, "stop:r0.s0#1", &f), CES_OK);
    assert_int_equal(ces_promela_emit(ctx, g[0], &o, &text, NULL), CES_OK);
    assert_non_null(strstr(text, " * Fault stop:r0.s0#1: the stopped ops left out (never "
                                 "enqueued); a process serving a stopped\n *   stream ends "
                                 "blocked.\n"));
    assert_null(strstr(text, "r0.s0#1 record"));
    assert_non_null(strstr(text, "    skip\n  }\n  /* stopped */\n  false\n}\n"));
    assert_non_null(strstr(text, "active proctype r0s1()\n{\n  /* r0.s1#0 await e (iteration "
                                 "1) */\n  /* no record of its event enqueued before it: passes "
                                 "*/\n  /* r0.s1#1 produce"));
    assert_null(strstr(text, "evdone"));
    ces_free(ctx, text);
    /* the whole rank at its op #1: s0 before its #1, s1 before its #0 */
    assert_int_equal(ces_fault_parse(ctx, "stop:r0#1", &f), CES_OK);
    assert_int_equal(ces_promela_emit(ctx, g[0], &o, &text, NULL), CES_OK);
    assert_non_null(strstr(text, "active proctype r0s1()\n{\n  /* stopped */\n  false\n}\n"));
    ces_free(ctx, text);
    assert_int_equal(ces_fault_parse(ctx, "stop:r0.s0#2", &f), CES_OK);
    assert_int_equal(ces_promela_emit(ctx, g[1], &o, &text, NULL), CES_OK);
    assert_non_null(strstr(text, "  /* r0.s0#0 record e (iteration 1) */\n  d_step {\n"
                                 "    evdone[0] = 1;\n"));
    assert_null(strstr(text, "r0.s0#2 record"));
    assert_non_null(strstr(text, "  /* r0.s1#0 await e (iteration 1) */\n  d_step {\n"
                                 "    evdone[0] == 1 ->\n"));
    ces_free(ctx, text);
    assert_int_equal(ces_fault_parse(ctx, "stop:r0.s0#0", &f), CES_OK);
    assert_int_equal(ces_promela_emit(ctx, g[2], &o, &text, NULL), CES_OK);
    assert_non_null(strstr(text, "active proctype r0q0()\n{\n  /* r0.s1#0 write f[0] = 1 "
                                 "(iteration 1) */\n"));
    assert_non_null(strstr(text, "  }\n  /* stopped */\n  false\n}\n"));
    assert_null(strstr(text, "r0.s0#0 wait"));
    ces_free(ctx, text);
    text = NULL;
    /* faults together are refused as the check refuses them (two stops of
     * one stream were exported, the earlier counting) */
    {
        struct ces_fault two[2];

        o.faults = two;
        o.nfaults = 2;
        assert_int_equal(ces_fault_parse(ctx, "stop:r0.s0#1", &two[0]), CES_OK);
        two[1] = two[0];
        assert_int_equal(ces_promela_emit(ctx, g[0], &o, &text, NULL), CES_ERR_INVALID);
        assert_string_equal(ces_ctx_last_error(ctx), "promela: fault stop:r0.s0#1 given twice: "
                                                     "expected each fault once");
        assert_int_equal(ces_fault_parse(ctx, "stop:r0.s0#0", &two[1]), CES_OK);
        assert_int_equal(ces_promela_emit(ctx, g[0], &o, &text, NULL), CES_ERR_INVALID);
        assert_string_equal(ces_ctx_last_error(ctx), "promela: faults stop:r0.s0#1 and "
                                                     "stop:r0.s0#0: expected one stop of r0.s0 "
                                                     "(a stream stops once; stop:r0.s0#0 alone "
                                                     "is the same check)");
        assert_null(text);
        /* a stream's own stop where its rank's stops it: refused; before: kept */
        assert_int_equal(ces_fault_parse(ctx, "stop:r0#1", &two[1]), CES_OK);
        assert_int_equal(ces_fault_parse(ctx, "stop:r0.s1#0", &two[0]), CES_OK);
        assert_int_equal(ces_promela_emit(ctx, g[0], &o, &text, NULL), CES_ERR_INVALID);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "promela: faults stop:r0.s1#0 and stop:r0#1: stop:r0#1 already stops "
                            "r0.s1 before its op #0, so stop:r0.s1#0 changes nothing (expected a "
                            "stream's own stop before where its rank's stop leaves it)");
        assert_int_equal(ces_fault_parse(ctx, "stop:r0.s0#0", &two[0]), CES_OK);
        assert_int_equal(ces_promela_emit(ctx, g[0], &o, &text, NULL), CES_OK);
        assert_null(strstr(text, "r0.s0#0 produce"));
        ces_free(ctx, text);
    }
    for (int i = 0; i < 3; i++)
        ces_graph_destroy(g[i]);
    ces_test_ctx_end(ctx, &st);
}

static void test_unvalidated_graph(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_op aw = {.kind = CES_OP_AWAIT, .stream = 1};
    char *text = NULL;

    (void)state;
    assert_int_equal(ces_graph_create(ctx, 2, 2, &g), CES_OK);
    assert_int_equal(ces_graph_add_event(g, "e", NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 1, &aw), CES_OK);
    assert_int_equal(ces_promela_emit(ctx, g, NULL, &text, NULL), CES_ERR_SEMANTIC);
    assert_null(text);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "promela: the graph does not validate: r1.s1#0: 'await e' has no "
                        "'record e' before it on rank 1");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* With connections 1 the streams of a rank share one proctype. */
static void test_queues(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_gen_opts go;
    struct ces_graph *g = NULL;
    char *text = NULL;
    bool seen = false;

    (void)state;
    ces_gen_opts_init(&go);
    go.streams = 2;
    for (uint64_t seed = 0; seed < 50 && !seen; seed++) {
        assert_int_equal(ces_gen_graph(ctx, seed, &go, &g), CES_OK);
        if (ces_graph_connections(g) == 1) {
            assert_int_equal(ces_promela_emit(ctx, g, NULL, &text, NULL), CES_OK);
            assert_non_null(strstr(text, "active proctype r0q0()"));
            assert_null(strstr(text, "proctype r0q1()"));
            assert_null(strstr(text, "proctype r0s"));
            ces_free(ctx, text);
            seen = true;
        }
        ces_graph_destroy(g);
    }
    assert_true(seen);
    /* a batch with another stream's op enqueued inside it: on one queue the
     * ops run in enqueue order, so the copies are emitted in their places */
    {
        struct ces_op b = {.kind = CES_OP_BATCH};
        struct ces_op c0 = {.kind = CES_OP_COPY, .a = {0, 0, 0, 16}, .b = {0, 1, 0, 16}};
        struct ces_op c1 = {.kind = CES_OP_COPY, .a = {0, 0, 16, 32}, .b = {0, 1, 16, 32}};
        struct ces_op e = {.kind = CES_OP_END};
        struct ces_op w = {.kind = CES_OP_WRITE, .stream = 1, .slot = {0, 1, 0}, .value = 1};
        struct ces_op wt = {.kind = CES_OP_WAIT, .slot = {0, 1, 0}, .value = 1};

        assert_int_equal(ces_graph_create(ctx, 2, 2, &g), CES_OK);
        assert_int_equal(ces_graph_add_buffer(g, "x", 32, NULL), CES_OK);
        assert_int_equal(ces_graph_add_signal(g, "f", CES_U64, 1, NULL), CES_OK);
        assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, &b), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, &c0), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, &c1), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, &e), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 1, &wt), CES_OK);
        assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
        assert_int_equal(ces_promela_emit(ctx, g, NULL, &text, NULL), CES_OK);
        assert_non_null(strstr(text, "  do\n")); /* two streams, own queues: a batch */
        ces_free(ctx, text);
        assert_int_equal(ces_graph_set_connections(g, 1), CES_OK);
        assert_int_equal(ces_promela_emit(ctx, g, NULL, &text, NULL), CES_OK);
        assert_null(strstr(text, "  do\n"));
        assert_non_null(strstr(text, "r0.s0#1 copy x[0:16] -> x[0:16]@1 (iteration 1) */\n"
                                     "  d_step {\n"));
        assert_true(strstr(text, "r0.s1#0 write") < strstr(text, "r0.s0#2 copy"));
        ces_free(ctx, text);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* A file past a limit of the model: "cesync 1", head, n lines of the
 * format `line` (op k given k and k + 1 twice) and tail, which `cesync
 * promela x.ces ARGS` refuses with "cesync: promela: x.ces:" and `want`. */
struct past_limit {
    const char *head, *line;
    unsigned n;
    const char *tail, *args, *want;
};

/* its ranks, or the op: a batch of 31 copies, the 251st write of a
 * stream's clock, the 4097th slot in use, the write whose d_step is the
 * 2048th */
static const struct past_limit past[] = {
    {"ranks 65\nphase eager x1\n", "", 0, "", "",
     "2:7: 65 ranks x 1 stream is more than 64 threads of the race clocks (--no-races keeps "
     "none)"},
    {"ranks 2\nbuffer a 64\nbuffer b 64\nphase eager x1\nr0 : batch\n",
     "r0 : copy a[%u:%u] -> b[%u:%u]@1\n", 31, "r0 : end\n", "",
     "6:6: the batch r0.s0#0 holds 31 copies (at most 30)"},
    {"ranks 2\nsignal f u64 1\nphase eager x1\n", "r0 : write f[0]@1 = 1\n", 251, "", "",
     "255:6: stream r0.s0 has more than 250 writes and records, past them at r0.s0#250 (the "
     "model keeps clocks in bytes)"},
    {"ranks 2\nsignal f u64 4097\nphase eager x1\n", "r0 : write f[%u]@1 = 1\n", 4097, "",
     " --no-races", "4101:6: more than 4096 slots are used, the next by r0.s0#4096"},
    {"ranks 2\nsignal f u64 1\nphase eager x1\n", "r0 : write f[0]@1 = 1\n", 2048, "",
     " --no-races",
     "2052:6: d_step 2048 of the model, or its longest so far (1 statement), is past what SPIN "
     "compiles at r0.s0#2047: at most 2047 of the d_steps before one and its statements "
     "together (use fewer ops or data units)"},
};

/* Writes p's x.ces in dir, asserts its refusal and removes it. */
static void file_refused(const char *dir, const struct past_limit *p)
{
    char path[256], cmd[128], *out = NULL, *said;
    FILE *f;

    snprintf(path, sizeof(path), "%s/x.ces", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "cesync 1\n%s", p->head);
    for (unsigned k = 0; k < p->n; k++)
        fprintf(f, p->line, k, k + 1, k, k + 1);
    fprintf(f, "%s", p->tail);
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, sizeof(cmd), "promela x.ces%s", p->args);
    assert_int_equal(ces_test_tool(dir, cmd, &out), 2);
    said = malloc(strlen(p->want) + 32);
    assert_non_null(said);
    sprintf(said, "cesync: promela: x.ces:%s\n", p->want);
    assert_string_equal(out, said);
    free(said);
    free(out);
    assert_int_equal(remove(path), 0);
}

/* `cesync promela`: the library's text, its options, -o, errors. */
static void test_tool(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    char *out = NULL, *text = NULL, *dir, cmd[512], path[256];

    (void)state;
    assert_int_equal(ces_graph_load(ctx, CES_FIXTURES "/bad/relay_reuse.ces", &g), CES_OK);
    assert_int_equal(ces_promela_emit(ctx, g, NULL, &text, NULL), CES_OK);
    assert_int_equal(ces_test_tool(NULL, "promela bad/relay_reuse.ces", &out), 0);
    assert_string_equal(out, text);
    free(out);
    ces_free(ctx, text);
    assert_int_equal(ces_test_tool(NULL, "promela bad/relay_reuse.ces --data-at-end", &out), 0);
    assert_non_null(strstr(out, "  timeout -> assert(!mism || racy)\n"));
    free(out);
    assert_int_equal(ces_test_tool(NULL, "promela bad/relay_reuse.ces --no-races --data-at-end",
                                   &out), 0);
    assert_non_null(strstr(out, "  timeout -> assert(!mism)\n"));
    assert_null(strstr(out, "vclk"));
    free(out);
    /* that model judges racy executions too, which the help said it did not
     * (`cesync gen --seed 102 --ranks 2 --streams 2 --steps 3 --mutate 100`
     * checks as RACE alone; SPIN fails its !mism: test_spin, spin_racy_data) */
    /* (the help said both until the sixty-seventh session cut it to a
     * screen, which names the limits and points to the reference) */
    ces_test_cli_doc_says("## promela", "With `--no-races` it judges every execution, racy ones "
                          "too, since no clocks tell them apart. Not with `--no-data`, which "
                          "leaves the data out.");
    /* the encoding's limits are said before a schedule runs into one (the
     * help named none, and 8 ranks of 64 streams were refused unannounced) */
    assert_int_equal(ces_test_tool(NULL, "promela --help", &out), 0);
    assert_non_null(strstr(out, "\nThe model has limits (255 processes, 100,000 ops a rank, "
                                "...); past one, exit 2.\n"));
    free(out);
    ces_test_cli_doc_says("## promela", "The model has limits; past one, the command names it and "
                          "exits 2: at most 255 processes (as SPIN runs them; `--data-at-end` "
                          "adds one), 100,000 unrolled ops per rank, 30 copies in a batch, "
                          "4,194,304 signal slots declared over all ranks and 4096 in use, 250 "
                          "values a slot takes; with races or data 16,384 data units (bytes "
                          "divided by the gcd of all region bounds, over all ranks); with data "
                          "250 iterations; with races 64 ranks × streams and 250 writes and "
                          "records per stream. Before most of these, SPIN's `d_step` table "
                          "binds: each write, wait and copy is a `d_step`, and SPIN compiles at "
                          "most 2,047 of them together with the statements of the longest.");
    ces_test_tool_says("promela barrier --ranks 65", 2,
                       "cesync: promela: 65 ranks x 1 stream is more than 64 threads of the race "
                       "clocks (--no-races keeps none)\n");
    /* a built-in's op at its line of `cesync print`'s text (the reference
     * said it was named as r0.s0#0 alone) */
    ces_test_tool_says("promela alltoall --ranks 33", 2,
                       "cesync: promela: the batch r0.s0#34 (line 13:6) holds 33 copies (at "
                       "most 30)\n");
    ces_test_cli_doc_says("## promela", "A built-in, which has no file, names no header line and "
                          "the op at its line of the text `cesync print` writes (`promela "
                          "alltoall --ranks 33`: `promela: the batch r0.s0#34 (line 13:6) holds 33 "
                          "copies (at most 30)`).");
    /* --fault: the model of the schedule under the delay, as the library
     * writes it; a drop has none */
    {
        struct ces_fault f;
        struct ces_promela_opts o;

        ces_promela_opts_init(&o);
        assert_int_equal(ces_fault_parse(ctx, "delay:r0.s0#2", &f), CES_OK);
        o.faults = &f;
        o.nfaults = 1;
        assert_int_equal(ces_promela_emit(ctx, g, &o, &text, NULL), CES_OK);
        assert_int_equal(ces_test_tool(NULL, "promela bad/relay_reuse.ces --fault delay:r0.s0#2",
                                       &out), 0);
        assert_string_equal(out, text);
        assert_non_null(strstr(out, " * Fault delay:r0.s0#2: "));
        free(out);
        ces_free(ctx, text);
        ces_test_tool_says("promela bad/relay_reuse.ces --fault drop:r0.s0#2", 2,
                           "cesync: promela: fault drop:r0.s0#2: only a delay or a stop is "
                           "modelled (check a drop with cesync check)\n");
        ces_test_tool_says("promela bad/relay_reuse.ces --fault", 2,
                           "cesync: promela: --fault expects delay:rR.sS#K, stop:rR.sS#K or "
                           "stop:rR#K\n");
    }
    ces_test_tool_says("promela bad/relay_reuse.ces --bogus", 2,
                       "cesync: promela: unknown option '--bogus' (see cesync promela --help)\n");
    /* the header of a model without races and data says so (it promised
     * their assertions and described data units) */
    assert_int_equal(ces_test_tool(NULL, "promela bad/relay_reuse.ces --no-races --no-data", &out),
                     0);
    assert_non_null(strstr(out, " * Races: not checked (no vector clocks).\n"
                                " * Wrong data: not checked (no provenance).\n"));
    assert_null(strstr(out, "Races (vector clocks)"));
    assert_null(strstr(out, "Data units"));
    assert_null(strstr(out, "assert"));
    free(out);
    /* --data-at-end judges the data that --no-data leaves out: refused (the
     * model was --no-data's, unsaid) */
    /* one stream, one queue: the wording of several holds (it said "a
     * rank's 1 stream take queues 0..0") */
    ces_test_tool_says("promela bad/relay_reuse.ces --queues 1", 2,
                       "cesync: promela: --queues: queue map '1': queue 1 at column 1; expected a "
                       "queue number less than the streams per rank, 1\n");
    /* judged as each option is read, as check judges them, before the
     * schedule is (one of the wrong version said its error, a long one's
     * expansion came first): --queues' syntax and what no schedule allows,
     * each --fault with those before it, its rank and stream against what
     * a schedule may have, a drop; the largest against the schedule */
    {
        static const char *const as_read[][2] = {
            {"--queues 0/x", "--queues: queue map '0/x': expected a queue number at column 3"},
            {"--queues 0,0/0", "--queues: queue map '0,0/0': list 2 has 1 number, list 1 2; "
                               "expected one per stream in every list"},
            {"--queues 0/64", "--queues: queue map '0/64': queue 64 at column 3; expected a "
                              "queue number less than the streams per rank, of which a rank "
                              "has at most 64"},
            {"--fault stop:r1#2 --fault stop:r1#0", "faults stop:r1#2 and stop:r1#0: expected "
                                                    "one stop of r1 (a rank stops once; "
                                                    "stop:r1#0 alone is the same check)"},
            {"--fault stop:r1024#0", "fault stop:r1024#0: no such rank (a schedule has at most "
                                     "1024 ranks)"},
            {"--fault delay:r0.s64#0", "fault delay:r0.s64#0: no such stream (a schedule has "
                                       "at most 1024 ranks of 64 streams)"},
            {"--fault drop:r0.s0#02", "fault drop:r0.s0#2: only a delay or a stop is modelled "
                                      "(check a drop with cesync check)"},
        };
        char want[256];

        for (size_t i = 0; i < sizeof(as_read) / sizeof(as_read[0]); i++) {
            snprintf(cmd, sizeof(cmd), "promela malformed/bad_version.ces %s", as_read[i][0]);
            snprintf(want, sizeof(want), "cesync: promela: %s\n", as_read[i][1]);
            ces_test_tool_says(cmd, 2, want);
        }
    }
    ces_test_tool_says("promela bad/relay_reuse.ces --queues 63", 2,
                       "cesync: promela: --queues: queue map '63': queue 63 at column 1; "
                       "expected a queue number less than the streams per rank, 1\n");
    ces_test_tool_says("promela bad/relay_reuse.ces --fault stop:r1023#0", 2,
                       "cesync: promela: fault stop:r1023#0: no such rank (ranks 0..2)\n");
    ces_test_tool_says("promela bad/relay_reuse.ces --fault delay:r1023.s63#0", 2,
                       "cesync: promela: fault delay:r1023.s63#0: no such stream (ranks 0..2, "
                       "streams 0..0)\n");
    ces_test_tool_says("promela bad/relay_reuse.ces --no-data --data-at-end", 2,
                       "cesync: promela: --data-at-end judges the data at end states, which "
                       "--no-data leaves out: give one of them\n");
    dir = ces_test_tmpdir();
    /* a value that is another option is refused, as by every command
     * (ces_tool_load: -o --no-races wrote a file named --no-races), and a
     * missing one is named */
    {
        char got[64];

        snprintf(cmd, sizeof(cmd), "promela '%s/bad/relay_reuse.ces' -o --no-races", CES_FIXTURES);
        assert_int_equal(ces_test_tool(dir, cmd, &out), 2);
        assert_string_equal(out, "cesync: promela: -o expects a file name, not the option "
                                 "'--no-races'\n");
        free(out);
        snprintf(cmd, sizeof(cmd), "promela '%s/bad/relay_reuse.ces' --queues --no-data",
                 CES_FIXTURES);
        assert_int_equal(ces_test_tool(dir, cmd, &out), 2);
        assert_string_equal(out, "cesync: promela: --queues expects a queue number per stream, like 0,0,1, not the option "
                                 "'--no-data'\n");
        free(out);
        snprintf(cmd, sizeof(cmd), "promela '%s/bad/relay_reuse.ces' --queues", CES_FIXTURES);
        assert_int_equal(ces_test_tool(dir, cmd, &out), 2);
        assert_string_equal(out, "cesync: promela: --queues expects a queue number per stream, "
                                 "like 0,0,1\n");
        free(out);
        ces_test_dir_entries(dir, got, sizeof(got));
        assert_string_equal(got, "");
    }
    /* a file past a limit of the model at the place the refusal names (it
     * named none): its `connections any`, then `past` */
    ces_test_tool_says("promela bad/cross_stream_any.ces", 2,
                       "cesync: promela: bad/cross_stream_any.ces:14:13: `connections any` is a "
                       "check of every queue assignment; export one (a queue map, --queues)\n");
    for (size_t i = 0; i < sizeof(past) / sizeof(past[0]); i++)
        file_refused(dir, &past[i]);
    snprintf(path, sizeof(path), "%s/a2a.pml", dir);
    snprintf(cmd, sizeof(cmd), "promela alltoall --ranks 2 --bytes 32 --sync nccl -o '%s'", path);
    assert_int_equal(ces_test_tool(NULL, cmd, &out), 0);
    free(out);
    text = ces_test_read_file(path, NULL);
    assert_non_null(strstr(text, "active proctype r1s0()"));
    free(text);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static int emit_body(struct ces_ctx *ctx, void *arg)
{
    struct ces_graph *g = NULL;
    char *text = NULL;
    int rc = ces_gen_graph(ctx, *(uint64_t *)arg, NULL, &g);

    if (rc == CES_OK)
        rc = ces_promela_emit(ctx, g, NULL, &text, NULL);
    ces_free(ctx, text);
    ces_graph_destroy(g);
    return rc;
}

/* The model of late schedule 0 under its delay (the derived graph too). */
static int emit_delay_body(struct ces_ctx *ctx, void *arg)
{
    struct ces_graph *g = NULL;
    struct ces_fault f = {CES_FAULT_DELAY, 0, 0, 0};
    struct ces_promela_opts o;
    struct ces_prog *prog = NULL;
    char *text = NULL;
    int rc = ces_prog_parse(ctx, arg, strlen(arg), "late.ces", &prog);

    if (rc == CES_OK)
        rc = ces_prog_expand(ctx, prog, &g);
    ces_prog_destroy(prog);
    ces_promela_opts_init(&o);
    o.faults = &f;
    o.nfaults = 1;
    if (rc == CES_OK)
        rc = ces_promela_emit(ctx, g, &o, &text, NULL);
    ces_free(ctx, text);
    ces_graph_destroy(g);
    return rc;
}

static void test_alloc_failures(void **state)
{
    uint64_t seed = 3;

    (void)state;
    assert_true(ces_test_alloc_failures(emit_body, &seed) > 10);
    assert_true(ces_test_alloc_failures(emit_delay_body, (void *)late_schedules[0]) > 10);
}

/* --- limits at their bounds, and the encoding of small schedules ----------- */

/* The message of the emitter on g under races/data, or NULL if it emits. */
static const char *emit_says(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t races,
                             uint32_t data)
{
    struct ces_promela_opts o;
    char *text = NULL;
    int rc;

    ces_promela_opts_init(&o);
    o.races = races;
    o.data = data;
    rc = ces_promela_emit(ctx, g, &o, &text, NULL);
    ces_free(ctx, text);
    return rc == CES_OK ? NULL : ces_ctx_last_error(ctx);
}

/* Two ranks of one stream, one eager block; r0 writes the values 1..n into
 * slot f[0]@1, or (distinct_slots) 1 into each of the slots f[0..n)@1. */
static struct ces_graph *writes_graph(struct ces_ctx *ctx, uint32_t n, bool distinct_slots)
{
    struct ces_graph *g = NULL;

    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U64, distinct_slots ? n : 1, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    for (uint32_t i = 0; i < n; i++) {
        struct ces_op w = {.kind = CES_OP_WRITE, .slot = {0, 1, distinct_slots ? i : 0},
                           .value = distinct_slots ? 1 : i + 1};

        assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    return g;
}

/* r0 copies `n` units of 8 bytes in one batch on s0. */
static struct ces_graph *wide_batch_graph(struct ces_ctx *ctx, uint32_t n)
{
    struct ces_graph *g = NULL;
    struct ces_op b = {.kind = CES_OP_BATCH}, e = {.kind = CES_OP_END};

    assert_int_equal(ces_graph_create(ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "x", 8 * (uint64_t)n, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &b), CES_OK);
    for (uint32_t i = 0; i < n; i++) {
        struct ces_op c = {.kind = CES_OP_COPY, .a = {0, 0, 8 * (uint64_t)i, 8 * (uint64_t)i + 8},
                           .b = {0, 1, 8 * (uint64_t)i, 8 * (uint64_t)i + 8}};

        assert_int_equal(ces_graph_add_op(g, 0, &c), CES_OK);
    }
    assert_int_equal(ces_graph_add_op(g, 0, &e), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    return g;
}

/* Each limit takes its bound and refuses one more: unrolled ops (a graph
 * phase's replays count), data units, signal slots, slots in use, values of
 * a slot, copies of a batch, clock ticks of a stream (records no await
 * reads and stopped ops tick none, a link's snapshot ticks one), iterations
 * with data; and races and data take 0, 1 or 2 each. */
static void test_limits_at_bounds(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    char src[160];

    (void)state;
    /* 100000 unrolled ops of a fence replayed */
    for (uint32_t reps = 100000; reps <= 100001; reps++) {
        snprintf(src, sizeof(src), "cesync 1\nranks 2\nphase graph x%u\nr0 : fence\n",
                 (unsigned)reps);
        g = ces_test_text_graph(ctx, src);
        if (reps == 100000)
            assert_null(emit_says(ctx, g, 0, 0));
        else
            assert_string_equal(emit_says(ctx, g, 0, 0), "promela: rank 0 has 100001 unrolled "
                                                         "ops (at most 100000)");
        ces_graph_destroy(g);
    }
    /* 16384 units of a byte over both ranks, then 16386 */
    g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nbuffer a 8192\nphase eager x1\n"
                                 "r0 : produce a[0:1]\n");
    assert_null(emit_says(ctx, g, 0, 1));
    ces_graph_destroy(g);
    g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nbuffer a 8193\nphase eager x1\n"
                                 "r0 : produce a[0:1]\n");
    assert_string_equal(emit_says(ctx, g, 0, 1), "promela: the buffers hold 16386 units of 1 "
                                                 "byte (at most 16384): use smaller buffers");
    assert_string_equal(emit_says(ctx, g, 1, 0), "promela: the buffers hold 16386 units of 1 "
                                                 "byte (at most 16384): use smaller buffers");
    /* without races and data the model keeps nothing per unit: no limit
     * (a gigabyte of single bytes was refused there too) */
    assert_null(emit_says(ctx, g, 0, 0));
    ces_graph_destroy(g);
    g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nlet G = 1073741824\nbuffer a $G\n"
                                 "phase eager x1\nr0 : produce a[0:1]\n"
                                 "r0 : copy a[0:$G] -> a[0:$G]@1\n"
                                 "r1 : consume a[0:1] == a[0:1]@0\n");
    assert_null(emit_says(ctx, g, 0, 0));
    ces_graph_destroy(g);
    /* 2^22 signal slots over the ranks, then more */
    g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nsignal f u64 2097152\nphase eager x1\n"
                                 "r0 : write f[0]@1 = 1\n");
    assert_null(emit_says(ctx, g, 0, 0));
    ces_graph_destroy(g);
    g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nsignal f u64 2097153\nphase eager x1\n"
                                 "r0 : write f[0]@1 = 1\n");
    assert_string_equal(emit_says(ctx, g, 0, 0),
                        "promela: the signal arrays declare 4194306 slots over all ranks (at "
                        "most 4194304: the model maps every declared slot, in use or not): "
                        "declare smaller arrays");
    ces_graph_destroy(g);
    /* 4096 slots in use pass that limit (and meet the d_steps'), 4097 not;
     * data units are named where the model keeps them */
    g = writes_graph(ctx, 4096, true);
    assert_string_equal(emit_says(ctx, g, 0, 0),
                        "promela: d_step 2048 of the model, or its longest so far (1 statement), "
                        "is past what SPIN compiles at r0.s0#2047: at most 2047 of the d_steps "
                        "before one and its statements together (use fewer ops)");
    assert_string_equal(emit_says(ctx, g, 0, 1),
                        "promela: d_step 2048 of the model, or its longest so far (1 statement), "
                        "is past what SPIN compiles at r0.s0#2047: at most 2047 of the d_steps "
                        "before one and its statements together (use fewer ops or data units)");
    ces_graph_destroy(g);
    g = writes_graph(ctx, 4097, true);
    assert_string_equal(emit_says(ctx, g, 0, 0), "promela: more than 4096 slots are used, the "
                                                 "next by r0.s0#4096");
    ces_graph_destroy(g);
    /* 250 values of a slot (0 and 249 written), then 251 */
    g = writes_graph(ctx, 249, false);
    assert_null(emit_says(ctx, g, 0, 0));
    ces_graph_destroy(g);
    g = writes_graph(ctx, 250, false);
    assert_string_equal(emit_says(ctx, g, 0, 0), "promela: a slot takes 251 distinct values (at "
                                                 "most 250)");
    ces_graph_destroy(g);
    /* 30 copies in a batch, then 31 */
    g = wide_batch_graph(ctx, 30);
    assert_null(emit_says(ctx, g, 0, 0));
    ces_graph_destroy(g);
    g = wide_batch_graph(ctx, 31);
    assert_string_equal(emit_says(ctx, g, 0, 0), "promela: the batch r0.s0#0 holds 31 copies (at "
                                                 "most 30)");
    ces_graph_destroy(g);
    /* 250 writes of a stream tick its clock 250 times; a record that no
     * await reads ticks none, nor does a stopped write; a write before a
     * later block's link ticks twice */
    g = writes_graph(ctx, 250, true);
    assert_null(emit_says(ctx, g, 1, 0));
    ces_graph_destroy(g);
    g = writes_graph(ctx, 251, true);
    assert_string_equal(emit_says(ctx, g, 1, 0), "promela: stream r0.s0 has more than 250 writes "
                                                 "and records, past them at r0.s0#250 (the "
                                                 "model keeps clocks in bytes)");
    {
        struct ces_promela_opts o;
        struct ces_fault f = {CES_FAULT_STOP, 0, 0, 250};
        char *text = NULL;

        ces_promela_opts_init(&o);
        o.data = 0;
        o.faults = &f;
        o.nfaults = 1;
        assert_int_equal(ces_promela_emit(ctx, g, &o, &text, NULL), CES_OK);
        ces_free(ctx, text);
    }
    ces_graph_destroy(g);
    {
        struct ces_op rec = {.kind = CES_OP_RECORD}, w = {.kind = CES_OP_WRITE, .stream = 1,
                                                          .slot = {0, 1, 0}, .value = 1};

        assert_int_equal(ces_graph_create(ctx, 2, 2, &g), CES_OK);
        assert_int_equal(ces_graph_add_signal(g, "f", CES_U64, 250, NULL), CES_OK);
        assert_int_equal(ces_graph_add_event(g, "e", NULL), CES_OK);
        assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
        for (uint32_t i = 0; i < 250; i++) {
            struct ces_op wi = {.kind = CES_OP_WRITE, .slot = {0, 1, i}, .value = 1};

            assert_int_equal(ces_graph_add_op(g, 0, &wi), CES_OK);
        }
        assert_int_equal(ces_graph_add_op(g, 0, &rec), CES_OK);
        assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
        assert_null(emit_says(ctx, g, 1, 0));
        /* s1 in a second block: s0's last op is where its link finds s0 done */
        assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
        assert_int_equal(ces_graph_add_op(g, 0, &w), CES_OK);
        assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
        assert_string_equal(emit_says(ctx, g, 1, 0), "promela: stream r0.s0 has more than 250 "
                                                     "writes and records, past them at r0.s0#250 "
                                                     "(the model keeps clocks in bytes)");
        ces_graph_destroy(g);
    }
    /* 250 iterations with data */
    g = ces_test_text_graph(ctx, "cesync 1\nranks 2\nphase graph x250\n");
    assert_null(emit_says(ctx, g, 1, 1));
    ces_graph_destroy(g);
    g = wrap_graph(ctx);
    assert_string_equal(emit_says(ctx, g, 3, 1), "promela: races and data take 0, 1 or 2, not 3 "
                                                 "and 1");
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The statements SPIN counts in each kind of d_step (one per ';', and the
 * guard and the last skip): r0's 2046 writes of one statement each, then
 * r1's op past the limit (checked after each op's d_steps) names the
 * statements of its longest d_step. */
static void test_dstep_statements(void **state)
{
    static const struct {
        const char *ops, *says;
    } cases[] = {
        /* a wait: its guard and skip */
        {"r1 : wait g[0] >= 1\n", "d_step 2047 of the model, or its longest so far (2 statements)"},
        /* an await: its guard and skip, after its record's one */
        {"r1 : record e\nr1 : await e\n", "d_step 2048 of the model, or its longest so far (2 "
                                          "statements)"},
        /* a link at a block's start: its guard and skip (before its op's one) */
        {"r1 s1 : write g[0]@0 = 1\nphase eager x1\nr1 : write g[0]@0 = 2\n",
         "d_step 2048 of the model, or its longest so far (2 statements)"},
        /* a copy of a batch: its guard with the mask's update, its two data
         * updates and skip (a d_step per copy) */
        {"r1 : batch\nr1 : copy x[0:8] -> x[0:8]@0\nr1 : copy x[8:16] -> x[8:16]@0\nr1 : end\n",
         "d_step 2048 of the model, or its longest so far (4 statements)"},
        /* a copy with data: its two updates and skip */
        {"r1 : copy x[0:16] -> x[0:16]@0\n", "d_step 2047 of the model, or its longest so far "
                                             "(3 statements)"},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        static const char head[] = "cesync 1\nranks 2\nstreams 2\nbuffer x 16\nsignal f u64 1\n"
                                   "signal g u64 1\nphase eager x1\n";
        static const char w[] = "r0 : write f[0]@1 = 1\n";
        size_t n = strlen(head) + 2046 * strlen(w) + strlen(cases[i].ops) + 1, at;
        char *src = malloc(n);
        struct ces_graph *g;
        const char *says;

        assert_non_null(src);
        at = (size_t)snprintf(src, n, "%s", head);
        for (int k = 0; k < 2046; k++)
            at += (size_t)snprintf(src + at, n - at, "%s", w);
        snprintf(src + at, n - at, "%s", cases[i].ops);
        g = ces_test_text_graph(ctx, src);
        says = emit_says(ctx, g, 0, 1);
        if (says == NULL || strstr(says, cases[i].says) == NULL)
            fail_msg("case %zu: '%s', expected '%s'", i, says != NULL ? says : "(emitted)",
                     cases[i].says);
        free(src);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* The header's estimate of pan's state vector: 64 bytes, 16 per process
 * of each (rank, stream) and the judge's, and the globals; past 1024 it
 * names -DVECTORSZ, rounded up to a KiB (2 ranks, no clocks, no data: the
 * slots alone, 912 of them make 1024). */
static void test_vector_note(void **state)
{
    static const struct {
        uint32_t slots;
        const char *note;
    } cases[] = {{912, NULL}, {913, "2048"}, {1936, "2048"}, {1937, "3072"}};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ces_graph *g = writes_graph(ctx, cases[i].slots, true);
        struct ces_promela_opts o;
        char *text = NULL, want[160];

        ces_promela_opts_init(&o);
        o.races = 0;
        o.data = 0;
        assert_int_equal(ces_promela_emit(ctx, g, &o, &text, NULL), CES_OK);
        if (cases[i].note == NULL) {
            assert_null(strstr(text, "VECTORSZ"));
        } else {
            snprintf(want, sizeof(want), " * Its state vector outgrows pan's default 1024 bytes: "
                     "compile pan.c with\n *   -DVECTORSZ=%s.\n */\n", cases[i].note);
            if (strstr(text, want) == NULL)
                fail_msg("%u slots: no '%s'", (unsigned)cases[i].slots, want);
        }
        ces_free(ctx, text);
        ces_graph_destroy(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* The model of text under races/data and faults given as specs. */
static char *model_of(struct ces_ctx *ctx, const char *text, uint32_t races, uint32_t data,
                      const char *const *specs, size_t nspecs)
{
    struct ces_graph *g = ces_test_text_graph(ctx, text);
    struct ces_promela_opts o;
    struct ces_fault f[4];
    char *model = NULL;

    assert_true(nspecs <= 4);
    for (size_t i = 0; i < nspecs; i++)
        assert_int_equal(ces_fault_parse(ctx, specs[i], &f[i]), CES_OK);
    ces_promela_opts_init(&o);
    o.races = races;
    o.data = data;
    o.faults = nspecs > 0 ? f : NULL;
    o.nfaults = nspecs;
    if (ces_promela_emit(ctx, g, &o, &model, NULL) != CES_OK)
        fail_msg("%s", ces_ctx_last_error(ctx));
    ces_graph_destroy(g);
    return model;
}

/* Fails unless `want` is in the model. */
static void has(const char *model, const char *want)
{
    if (strstr(model, want) == NULL)
        fail_msg("no\n%s\nin\n%s", want, model);
}

/* Data units and generations: a unit is the gcd of the buffers and every
 * region bound (a region's end, a consume's expected region); a copy down
 * its own buffer goes unit by unit from the end; a consume's expected unit
 * is the one at the same offset into its region, its own bytes when it is
 * the consumed one (initial, generation 0), and a unit never produced has
 * generation 0 though another before it was. */
static void test_units_and_generations(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *m;

    (void)state;
    m = model_of(ctx, "cesync 1\nranks 1\nbuffer a 32\nphase eager x1\nr0 : produce a[0:16]\n",
                 0, 1, NULL, 0);
    has(m, " * Data units of 16 bytes: unit u = rank * 2 + buffer base + offset / 16.\n");
    ces_free(ctx, m);
    m = model_of(ctx, "cesync 1\nranks 1\nbuffer a 32\nbuffer b 32\nphase eager x1\n"
                      "r0 : consume a[0:16] == b[8:24]\n", 0, 1, NULL, 0);
    has(m, " * Data units of 8 bytes: unit u = rank * 8 + buffer base + offset / 8.\n");
    ces_free(ctx, m);
    m = model_of(ctx, "cesync 1\nranks 1\nbuffer x 48\nbuffer y 32\nphase eager x1\n"
                      "r0 : produce x[0:16]\nr0 : copy x[0:16] -> x[32:48]\n"
                      "r0 : consume y[16:32] == x[0:16]\nr0 : consume y[0:16] == y[0:16]\n"
                      "r0 : consume y[0:8] == x[16:24]\n", 0, 1, NULL, 0);
    has(m, "  /* r0.s0#1 copy x[0:16] -> x[32:48] (iteration 1) */\n  d_step {\n"
           "    dprov[5] = (dprov[1] == 0 -> 2 : dprov[1]); dgen[5] = dgen[1];\n"
           "    dprov[4] = (dprov[0] == 0 -> 1 : dprov[0]); dgen[4] = dgen[0];\n    skip\n  }\n");
    has(m, "    assert(dprov[8] == 1 && dgen[8] == 1);\n"
           "    assert(dprov[9] == 2 && dgen[9] == 1);\n");
    has(m, "    assert((dprov[6] == 7 || dprov[6] == 0) && dgen[6] == 0);\n"
           "    assert((dprov[7] == 8 || dprov[7] == 0) && dgen[7] == 0);\n");
    has(m, "    assert(dprov[6] == 3 && dgen[6] == 0);\n");
    ces_free(ctx, m);
    ces_test_ctx_end(ctx, &st);
}

/* A stream's first op of a block waits for each other stream's last op
 * before it, and joins each one's clock; two awaits of one record read
 * one event. */
static void test_links_and_events(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *m;

    (void)state;
    m = model_of(ctx, "cesync 1\nranks 1\nstreams 3\nsignal f u64 3\nphase eager x1\n"
                      "r0 s1 : write f[1] = 1\nr0 s2 : write f[2] = 1\nphase eager x1\n"
                      "r0 s0 : write f[0] = 1\n", 1, 0, NULL, 0);
    has(m, "\nbit evdone[2];\n");
    has(m, "active proctype r0s0()\n{\n  /* r0.s0#0 starts a block or replay: after the rank's "
           "other streams finish the earlier ones */\n  d_step {\n"
           "    evdone[0] == 1 && evdone[1] == 1 ->\n"
           "    vclk[1] = (evclk[1] > vclk[1] -> evclk[1] : vclk[1]);\n"
           "    vclk[2] = (evclk[2] > vclk[2] -> evclk[2] : vclk[2]);\n"
           "    vclk[1] = (evclk[4] > vclk[1] -> evclk[4] : vclk[1]);\n"
           "    vclk[2] = (evclk[5] > vclk[2] -> evclk[5] : vclk[2]);\n    skip\n  }\n");
    ces_free(ctx, m);
    m = model_of(ctx, "cesync 1\nranks 1\nstreams 2\nphase eager x1\nr0 : record e\n"
                      "r0 s1 : await e\nr0 s1 : await e\n", 0, 0, NULL, 0);
    has(m, " */\n\nbit evdone[1];\n\nactive proctype r0s0()\n");
    has(m, "  /* r0.s1#1 await e (iteration 1) */\n  d_step {\n    evdone[0] == 1 ->\n");
    ces_free(ctx, m);
    ces_test_ctx_end(ctx, &st);
}

/* Batches: the do-loop over the copies' mask, the mask reset after it and
 * the batch's end where a later block's link finds it; a batch of one
 * copy is the copy; the mask a byte up to 7 copies, an int at 9; a stop in
 * the batch keeps the copies before it, and its end never runs (the
 * process of the rank's other stream is not a stopped one). */
static void test_batch_shapes(void **state)
{
    static const char two[] = "cesync 1\nranks 1\nstreams 2\nbuffer x 32\nbuffer y 32\n"
                              "phase eager x1\nr0 : batch\nr0 : copy x[0:16] -> y[0:16]\n"
                              "r0 : copy x[16:32] -> y[16:32]\nr0 : end\nphase eager x1\n"
                              "r0 s1 : produce x[0:32]\n";
    static const char *const stop[] = {"stop:r0.s0#2"};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g;
    char *m;

    (void)state;
    m = model_of(ctx, two, 0, 0, NULL, 0);
    has(m, "active proctype r0s0()\n{\n  byte bm;\n  /* r0.s0#0 batch (iteration 1) */\n  do\n"
           "  /* r0.s0#1 copy x[0:16] -> y[0:16] (iteration 1) */\n  :: d_step {\n"
           "    !(bm & 1) -> bm = bm | 1;\n  }\n"
           "  /* r0.s0#2 copy x[16:32] -> y[16:32] (iteration 1) */\n  :: d_step {\n"
           "    !(bm & 2) -> bm = bm | 2;\n  }\n  :: bm == 3 -> break\n  od;\n  bm = 0;\n"
           "  d_step {\n    evdone[0] = 1;\n  }\n  skip\n}\n");
    ces_free(ctx, m);
    m = model_of(ctx, two, 0, 0, stop, 1);
    has(m, "active proctype r0s0()\n{\n  byte bm;\n"
           "  /* r0.s0#1 copy x[0:16] -> y[0:16] (iteration 1) */\n  d_step {\n    skip\n  }\n"
           "  /* stopped */\n  false\n}\n");
    /* the other stream, not stopped, ends (blocked at its link) */
    has(m, "  /* r0.s1#0 produce x[0:32] (iteration 2) */\n  d_step {\n    skip\n  }\n"
           "  skip\n}\n");
    ces_free(ctx, m);
    m = model_of(ctx, "cesync 1\nranks 1\nbuffer x 16\nphase eager x1\nr0 : batch\n"
                      "r0 : copy x[0:8] -> x[8:16]\nr0 : end\n", 0, 0, NULL, 0);
    has(m, "active proctype r0s0()\n{\n  /* r0.s0#1 copy x[0:8] -> x[8:16] (iteration 1) */\n"
           "  d_step {\n    skip\n  }\n  skip\n}\n");
    assert_null(strstr(m, "bm"));
    ces_free(ctx, m);
    g = wide_batch_graph(ctx, 7);
    assert_int_equal(ces_promela_emit(ctx, g, NULL, &m, NULL), CES_OK);
    has(m, "active proctype r0s0()\n{\n  byte bm;\n");
    has(m, "  :: bm == 127 -> break\n");
    ces_free(ctx, m);
    ces_graph_destroy(g);
    g = wide_batch_graph(ctx, 9);
    assert_int_equal(ces_promela_emit(ctx, g, NULL, &m, NULL), CES_OK);
    has(m, "active proctype r0s0()\n{\n  int bm;\n");
    has(m, "  :: bm == 511 -> break\n");
    ces_free(ctx, m);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Faults together: of two stops of a stream (its own before its rank's:
 * two of the stream itself are refused) the earlier holds, whatever their
 * order; a stop at a delayed write stops the write's own stream too; a
 * delay's model names no stop. */
static void test_faults_together(void **state)
{
    static const char ops[] = "cesync 1\nranks 1\nstreams 2\nbuffer x 64\nphase eager x1\n"
                              "r0 : produce x[0:8]\nr0 : produce x[8:16]\nr0 : produce x[16:24]\n"
                              "r0 s1 : produce x[24:32]\n";
    /* stop:r0#2 stops s0 before its #2 and s1 before its #0 */
    static const char *const stops[2][2] = {{"stop:r0.s0#1", "stop:r0#2"},
                                            {"stop:r0#2", "stop:r0.s0#1"}};
    static const char *const both[] = {"delay:r0.s0#0", "stop:r0.s0#0"};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *m;

    (void)state;
    for (int i = 0; i < 2; i++) {
        m = model_of(ctx, ops, 0, 0, stops[i], 2);
        has(m, "  /* r0.s0#0 produce x[0:8] (iteration 1) */\n  d_step {\n    skip\n  }\n"
               "  /* stopped */\n  false\n}\n");
        has(m, "active proctype r0s1()\n{\n  /* stopped */\n  false\n}\n");
        ces_free(ctx, m);
    }
    m = model_of(ctx, late_schedules[0], 0, 0, both, 1);
    assert_null(strstr(m, "the stopped ops left out"));
    ces_free(ctx, m);
    m = model_of(ctx, late_schedules[0], 0, 0, both, 2);
    has(m, " * Fault delay:r0.s0#0: a record in place of the write; the write lands from r0s1, "
           "at any moment after it.\n * Fault stop:r0.s0#0: the stopped ops left out");
    has(m, "active proctype r0s0()\n{\n  /* stopped */\n  false\n}\n\n"
           "active proctype r0s1()\n{\n  /* stopped */\n  false\n}\n");
    ces_free(ctx, m);
    ces_test_ctx_end(ctx, &st);
}

/* Replays and clocks: a graph phase's replays are iterations of their own
 * (a produce stamps its own, a consume expects the last one up to its
 * own); two streams whose links read one stream's last op read one event;
 * a thread's write ticks its own clock; a wait no value meets is a guard
 * that never holds; a record no await reads is no part of the model. */
static void test_replays_and_clocks(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *m;

    (void)state;
    m = model_of(ctx, "cesync 1\nranks 1\nstreams 3\nbuffer x 8\nsignal f u64 3\n"
                      "phase eager x1\nr0 s0 : write f[0] = 1\nphase graph x2\n"
                      "r0 s1 : write f[1] = 1\nr0 s2 : produce x[0:8]\n"
                      "r0 s2 : consume x[0:8] == x[0:8]\nr0 s2 : wait f[0] == 2\n"
                      "r0 s1 : record e\n", 1, 1, NULL, 0);
    has(m, "\nbit evdone[3];\n");
    has(m, "active proctype r0s1()\n{\n  /* r0.s1#0 starts a block or replay: after the rank's "
           "other streams finish the earlier ones */\n  d_step {\n    evdone[0] == 1 ->\n");
    has(m, "active proctype r0s2()\n{\n  /* r0.s2#0 starts a block or replay: after the rank's "
           "other streams finish the earlier ones */\n  d_step {\n    evdone[0] == 1 ->\n");
    has(m, "  /* r0.s1#0 write f[1] = 1 (iteration 2) */\n  d_step {\n    fv[1] = 1;\n"
           "    vclk[4]++;\n");
    has(m, "  /* r0.s2#3 produce x[0:8] (iteration 3) */\n");
    has(m, "    dprov[0] = 1; dgen[0] = 2;\n");
    has(m, "    assert((dprov[0] == 1 || dprov[0] == 0) && dgen[0] == 2);\n");
    has(m, "    dprov[0] = 1; dgen[0] = 3;\n");
    has(m, "    assert((dprov[0] == 1 || dprov[0] == 0) && dgen[0] == 3);\n");
    has(m, "  /* r0.s2#2 wait f[0] == 2 (iteration 2) */\n  d_step {\n    (0) ->\n");
    assert_null(strstr(m, "record e"));
    ces_free(ctx, m);
    ces_test_ctx_end(ctx, &st);
}

/* Hardware queues: a queue map names the processes by queue where the
 * graph says connections 0; a batch on a shared queue stays one where the
 * other stream's op inside it was stopped (never enqueued); and 64 threads
 * are as many as the race clocks keep. */
static void test_queue_processes(void **state)
{
    static const char batch[] = "cesync 1\nranks 1\nstreams 2\nconnections 1\nbuffer x 32\n"
                                "signal f u64 1\nphase eager x1\nr0 : batch\n"
                                "r0 : copy x[0:8] -> x[16:24]\nr0 s1 : write f[0] = 1\n"
                                "r0 : copy x[8:16] -> x[24:32]\nr0 : end\n";
    static const char *const stop[] = {"stop:r0.s1#0"};
    static const uint32_t map[] = {0, 1};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_promela_opts o;
    struct ces_graph *g;
    char *m;

    (void)state;
    g = ces_test_text_graph(ctx, "cesync 1\nranks 1\nstreams 2\nbuffer x 16\nphase eager x1\n"
                                 "r0 : produce x[0:8]\nr0 s1 : produce x[8:16]\n");
    ces_promela_opts_init(&o);
    o.queue_map = map;
    assert_int_equal(ces_promela_emit(ctx, g, &o, &m, NULL), CES_OK);
    has(m, ", hardware queues ");
    has(m, "\nactive proctype r0q0()\n");
    has(m, "\nactive proctype r0q1()\n");
    assert_null(strstr(m, "proctype r0s"));
    ces_free(ctx, m);
    ces_graph_destroy(g);
    m = model_of(ctx, batch, 0, 0, stop, 1);
    has(m, "active proctype r0q0()\n{\n  byte bm;\n  /* r0.s0#0 batch (iteration 1) */\n  do\n");
    has(m, "  :: bm == 3 -> break\n  od;\n  bm = 0;\n  /* stopped */\n  false\n}\n");
    ces_free(ctx, m);
    g = ces_test_text_graph(ctx, clocked_wide_schedules[0]);
    assert_int_equal(ces_promela_emit(ctx, g, NULL, &m, NULL), CES_OK);
    has(m, "\nbyte vclk[4096];\n");
    ces_free(ctx, m);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A graph without ops: the header of a model with units of a byte and no
 * slot, and its one process a queue's where the streams share queues. */
static void test_empty_header(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *m;

    (void)state;
    m = model_of(ctx, "cesync 1\nranks 2\nconnections 1\nphase eager x1\n", 1, 1, NULL, 0);
    assert_string_equal(m, "/* Promela model of a cesync schedule: 2 ranks, 1 stream, "
                           "connections 1, 1 iteration.\n"
                           " * Deadlock and hang: invalid end states.\n"
                           " * Races (vector clocks): assertions.\n"
                           " * Wrong data (provenance, generation): assertions.\n"
                           " * Data units of 1 byte: unit u = rank * 0 + buffer base + offset / "
                           "1.\n"
                           " * Slots (fv[i] holds the index of the value):\n */\n\n"
                           "byte vclk[4];\n\nactive proctype r0q0()\n{\n  skip\n}\n");
    ces_free(ctx, m);
    ces_test_ctx_end(ctx, &st);
}

/* --- the cross-check with SPIN ------------------------------------------ */

struct spin_env {
    char dir[256];
    int models;
    bool run; /* false: each model emitted, none run through SPIN */
};

/* Runs a shell command; returns its exit status. */
static int sh(const char *cmd)
{
    int rc = system(cmd);

    return rc == -1 ? -1 : (rc >> 8) & 0xff;
}

/* The `errors: N` count of a pan log, -1 if the run did not finish. */
static long pan_errors(const char *log)
{
    char *text = ces_test_read_file(log, NULL);
    const char *e = strstr(text, "errors: ");
    long n = e != NULL ? strtol(e + 8, NULL, 10) : -1;

    /* pan stops at the first error it finds ("Search not completed" then
     * too); a search it gave up ("VECTORSZ too small ... aborting", out of
     * memory, too shallow) counts errors: 1 as well, and proves nothing */
    if (n < 0 || strstr(text, ": aborting") != NULL || strstr(text, "out of memory") != NULL ||
        strstr(text, "max search depth too small") != NULL)
        n = -1;
    free(text);
    return n;
}

/* Emits g with `races`/`data` modes into DIR/model.pml and builds pan. */
static void spin_build(struct spin_env *E, struct ces_ctx *ctx, const struct ces_graph *g,
                       const uint32_t *map, const struct ces_fault *faults, size_t nfaults,
                       const char *what, uint32_t races, uint32_t data)
{
    struct ces_promela_opts po;
    char *text = NULL, cmd[1024], path[512];
    const char *vectorsz;
    size_t len = 0;
    FILE *f;

    ces_promela_opts_init(&po);
    po.races = races;
    po.data = data;
    po.queue_map = map;
    po.faults = faults;
    po.nfaults = nfaults;
    if (ces_promela_emit(ctx, g, &po, &text, &len) != CES_OK)
        fail_msg("%s: %s", what, ces_ctx_last_error(ctx));
    if (!E->run) {
        ces_free(ctx, text);
        return;
    }
    snprintf(path, sizeof(path), "%s/model.pml", E->dir);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
    /* the state vector's size where the header asks for one: too small a
     * one stops pan, and the comparison fails */
    vectorsz = strstr(text, " *   -DVECTORSZ=");
    snprintf(cmd, sizeof(cmd),
             "cd %s && rm -f pan pan.c && spin -a model.pml >spin.log 2>&1 && "
             "cc -O0 -w -DSAFETY -DNOFAIR -DCOLLAPSE -DVECTORSZ=%lu -o pan pan.c >cc.log 2>&1",
             E->dir, vectorsz != NULL ? strtoul(vectorsz + 16, NULL, 10) : 1024ul);
    ces_free(ctx, text);
    if (sh(cmd) != 0)
        fail_msg("%s: spin -a or cc failed (see %s)", what, E->dir);
}

/* Runs pan with `flags` (-E: assertions only, -A: invalid end states only);
 * 1 if it found an error, 0 if not; fails when the search did not finish.
 * Where SPIN does not run, 0, which spin_compare_as compares with nothing. */
static int spin_run(struct spin_env *E, const char *what, const char *flags)
{
    char cmd[1024], path[512];
    long errors;

    if (!E->run)
        return 0;
    snprintf(cmd, sizeof(cmd), "cd %s && ./pan %s -m200000 -w20 >pan.log 2>&1; true", E->dir,
             flags);
    sh(cmd);
    snprintf(path, sizeof(path), "%s/pan.log", E->dir);
    errors = pan_errors(path);
    if (errors < 0)
        fail_msg("%s: pan %s did not finish its search (see %s)", what, flags, E->dir);
    return errors > 0;
}

/* Checks one graph with the checker and SPIN, under the queue map `map`
 * (NULL: its connections); fails on a disagreement.  Three SPIN verdicts:
 * races alone asserted (RACE); data judged at end states on race-free
 * executions (MISMATCH); invalid end states (DEADLOCK or HANG: SPIN does
 * not tell a cycle from a hang).  Without `clocks` the model has none: the
 * checker must find no race, and SPIN judges the data on every execution. */
static void spin_compare_as(struct spin_env *E, struct ces_ctx *ctx, const struct ces_graph *g,
                            const uint32_t *map, const struct ces_fault *faults, size_t nfaults,
                            const char *what, bool clocks)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    char v[64];
    uint32_t verdict;
    int race, mismatch, end;

    ces_check_opts_init(&o);
    o.max_seconds = 30;
    o.queue_map = map;
    o.faults = faults;
    o.nfaults = nfaults;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    verdict = ces_check_report_verdict(r);
    ces_check_report_destroy(r);
    assert_false(verdict & CES_V_INCOMPLETE);
    if (clocks) {
        spin_build(E, ctx, g, map, faults, nfaults, what, 1, 0);
        race = spin_run(E, what, "-E");
        spin_build(E, ctx, g, map, faults, nfaults, what, 2, 2);
    } else {
        /* no race to find; the data judged on every execution is then
         * judged on race-free ones */
        assert_false(verdict & CES_V_RACE);
        race = 0;
        spin_build(E, ctx, g, map, faults, nfaults, what, 0, 2);
    }
    mismatch = spin_run(E, what, "-E");
    end = spin_run(E, what, "-A");
    E->models++;
    if (!E->run)
        return;
    ces_verdict_format(verdict, v, sizeof(v));
    printf("%-44s checker %-22s SPIN: race %s, mismatch %s, invalid end state %s\n", what, v,
           race ? "yes" : "no", mismatch ? "yes" : "no", end ? "yes" : "no");
    if (race != ((verdict & CES_V_RACE) != 0) || mismatch != ((verdict & CES_V_MISMATCH) != 0) ||
        end != ((verdict & (CES_V_DEADLOCK | CES_V_HANG)) != 0))
        fail_msg("%s: the checker says %s but SPIN finds race %s, mismatch %s, invalid end "
                 "state %s", what, v, race ? "yes" : "no", mismatch ? "yes" : "no",
                 end ? "yes" : "no");
}

static void spin_compare_on(struct spin_env *E, struct ces_ctx *ctx, const struct ces_graph *g,
                            const uint32_t *map, const struct ces_fault *faults, size_t nfaults,
                            const char *what)
{
    spin_compare_as(E, ctx, g, map, faults, nfaults, what, true);
}

static void spin_compare(struct spin_env *E, struct ces_ctx *ctx, const struct ces_graph *g,
                         const char *what)
{
    spin_compare_on(E, ctx, g, NULL, NULL, 0, what);
}

/* g (of at most 4 ranks and 2 streams) under every queue assignment that
 * differs between ranks (the others are what `connections` 0 and 1 say,
 * compared elsewhere), or under all of them; returns how many. */
static int spin_maps(struct spin_env *E, struct ces_ctx *ctx, const struct ces_graph *g,
                     const char *what, bool all)
{
    uint32_t R = ces_graph_ranks(g), S = ces_graph_streams(g), map[4 * 2] = {0};
    int n = 0;

    assert_true(R <= 4 && S == 2);
    do {
        bool same = true;
        char name[128], text[32];

        for (uint32_t i = S; i < R * S; i++)
            same = same && map[i] == map[i % S];
        if (same && !all)
            continue;
        ces_queue_map_format(R, S, map, text, sizeof(text));
        snprintf(name, sizeof(name), "%s --queues %s", what, text);
        spin_compare_on(E, ctx, g, map, NULL, 0, name);
        n++;
    } while (ces_queue_map_next(R, S, S, map));
    return n;
}

/* Fixtures whose unreduced search stays small are "small". */
static bool small(struct ces_ctx *ctx, const struct ces_graph *g)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    uint64_t states;

    ces_check_opts_init(&o);
    o.flags = CES_CHECK_NO_REDUCTION;
    o.max_states = 20000;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    states = ces_check_report_verdict(r) & CES_V_INCOMPLETE ? UINT64_MAX
                                                              : ces_check_report_stats(r).states;
    ces_check_report_destroy(r);
    return states <= 20000;
}

static void spin_fixtures(struct spin_env *E, const char *subdir)
{
    char **paths = NULL;
    size_t n = ces_test_list(subdir, ".ces", &paths);

    for (size_t i = 0; i < n; i++) {
        struct ces_test_alloc st;
        struct ces_ctx *ctx = ces_test_ctx(&st);
        struct ces_graph *g = NULL;

        if (ces_graph_load(ctx, paths[i], &g) != CES_OK)
            fail_msg("%s: %s", paths[i], ces_ctx_last_error(ctx));
        if (ces_graph_connections(g) == CES_CONNECTIONS_ANY) {
            /* Promela models one assignment of streams to queues: each of
             * those `connections any` checks */
            assert_int_equal(spin_maps(E, ctx, g, strrchr(paths[i], '/') + 1, true), 4);
        } else if (small(ctx, g)) {
            spin_compare(E, ctx, g, strrchr(paths[i], '/') + 1);
        }
        ces_graph_destroy(g);
        ces_test_ctx_end(ctx, &st);
    }
    ces_test_list_free(paths, n);
}

/* Delayed writes: of the first generated schedules whose streams have a
 * queue each, one delay apiece (the first that changes the verdict, else
 * the first): SPIN on the model of the schedule under the delay must agree
 * with the checker. */
static void spin_delays(struct spin_env *E, struct ces_ctx *ctx)
{
    int done = 0;

    for (uint64_t seed = 0; done < 6; seed++) {
        struct ces_graph *g = NULL;
        struct ces_check_sweep_row *rows = NULL;
        struct ces_check_sweep_rest rest;
        struct ces_check_report *r = NULL;
        const struct ces_fault *f = NULL, *first = NULL;
        size_t n = 0;
        char what[96], spec[48];

        assert_int_equal(ces_gen_graph(ctx, seed, NULL, &g), CES_OK);
        if (ces_graph_connections(g) == 0) {
            uint32_t v;

            assert_int_equal(ces_check(ctx, g, NULL, &r), CES_OK);
            v = ces_check_report_verdict(r);
            ces_check_report_destroy(r);
            assert_int_equal(ces_check_fault_sweep(ctx, g, NULL, &rows, &n, &rest), CES_OK);
            for (size_t i = 0; i < n; i++) {
                if (rows[i].fault.kind != CES_FAULT_DELAY)
                    continue;
                if (first == NULL)
                    first = &rows[i].fault;
                if (f == NULL && rows[i].verdict != v)
                    f = &rows[i].fault;
            }
            if (f == NULL)
                f = first;
        }
        if (f != NULL) {
            ces_fault_format(f, spec, sizeof(spec));
            snprintf(what, sizeof(what), "cesync gen --seed %llu, %s", (unsigned long long)seed,
                     spec);
            spin_compare_on(E, ctx, g, NULL, f, 1, what);
            done++;
        }
        ces_free(ctx, rows);
        ces_graph_destroy(g);
    }
}

static void spin_late(struct spin_env *E, struct ces_ctx *ctx)
{
    for (size_t i = 0; i < sizeof(late_schedules) / sizeof(late_schedules[0]); i++) {
        struct ces_graph *g = ces_test_text_graph(ctx, late_schedules[i]);
        struct ces_fault f = {CES_FAULT_DELAY, 0, 0, 0};
        struct ces_check_opts o;
        struct ces_check_report *r = NULL;
        char what[64];

        ces_check_opts_init(&o);
        o.faults = &f;
        o.nfaults = 1;
        assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
        assert_int_equal(ces_check_report_verdict(r), CES_V_HANG);
        ces_check_report_destroy(r);
        snprintf(what, sizeof(what), "late delay, schedule %zu", i);
        spin_compare_on(E, ctx, g, NULL, &f, 1, what);
        ces_graph_destroy(g);
    }
}

/* Stops: of the stop schedules, the awaits' stops (an await that passes
 * at once, one bound to the earlier record, one whose record ran), the
 * stopped queue head, a whole rank's stop; and of the first generated
 * schedules of two streams, the stops the fault sweep finds more than a
 * HANG under (two apiece at most): SPIN on the model under the stop must
 * agree with the checker. */
static void spin_stops(struct spin_env *E, struct ces_ctx *ctx)
{
    static const struct {
        size_t schedule;
        const char *fault;
    } chosen[] = {{0, "stop:r0.s0#1"}, {0, "stop:r0#1"},    {1, "stop:r0.s0#1"},
                  {1, "stop:r0.s0#2"}, {2, "stop:r0.s0#0"}};
    int done = 0;

    for (size_t i = 0; i < sizeof(chosen) / sizeof(chosen[0]); i++) {
        struct ces_graph *g = ces_test_text_graph(ctx, stop_schedules[chosen[i].schedule]);
        struct ces_fault f;
        char what[96];

        assert_int_equal(ces_fault_parse(ctx, chosen[i].fault, &f), CES_OK);
        snprintf(what, sizeof(what), "stop schedule %zu, %s", chosen[i].schedule,
                 chosen[i].fault);
        spin_compare_on(E, ctx, g, NULL, &f, 1, what);
        ces_graph_destroy(g);
    }
    for (uint64_t seed = 0; done < 3; seed++) {
        struct ces_graph *g = NULL;
        struct ces_check_sweep_row *rows = NULL;
        struct ces_check_sweep_rest rest;
        size_t n = 0;
        int picked = 0;

        assert_int_equal(ces_gen_graph(ctx, seed, NULL, &g), CES_OK);
        if (ces_graph_streams(g) == 2 && small(ctx, g)) {
            assert_int_equal(ces_check_fault_sweep(ctx, g, NULL, &rows, &n, &rest), CES_OK);
            for (size_t j = 0; j < n && picked < 2; j++) {
                char what[96], spec[48];

                if (rows[j].fault.kind != CES_FAULT_STOP || rows[j].verdict == CES_V_HANG)
                    continue;
                ces_fault_format(&rows[j].fault, spec, sizeof(spec));
                snprintf(what, sizeof(what), "cesync gen --seed %llu, %s",
                         (unsigned long long)seed, spec);
                spin_compare_on(E, ctx, g, NULL, &rows[j].fault, 1, what);
                picked++;
            }
            done += picked > 0;
        }
        ces_free(ctx, rows);
        ces_graph_destroy(g);
    }
}

/* --no-races --data-at-end judges racy executions' data too: the schedule
 * of `cesync gen --seed 102 --ranks 2 --streams 2 --steps 3 --mutate 100`
 * checks as RACE alone (its mismatches are in racy executions only), and
 * SPIN fails the !mism of that model, not that of the one with races
 * (--data-at-end alone), which judges race-free executions as the checker
 * does. */
static void spin_racy_data(struct spin_env *E, struct ces_ctx *ctx)
{
    struct ces_gen_opts go;
    struct ces_graph *g = NULL;
    struct ces_check_report *r = NULL;
    const char *what = "cesync gen --seed 102 --ranks 2 --streams 2 --steps 3 --mutate 100";

    ces_gen_opts_init(&go);
    go.ranks = 2;
    go.streams = 2;
    go.steps = 3;
    go.mutate_pct = 100;
    assert_int_equal(ces_gen_graph(ctx, 102, &go, &g), CES_OK);
    assert_int_equal(ces_check(ctx, g, NULL, &r), CES_OK);
    assert_int_equal(ces_check_report_verdict(r), CES_V_RACE);
    ces_check_report_destroy(r);
    spin_build(E, ctx, g, NULL, NULL, 0, what, 0, 2);
    assert_int_equal(spin_run(E, what, "-E"), E->run); /* (0 where SPIN does not run) */
    spin_build(E, ctx, g, NULL, NULL, 0, what, 2, 2);
    assert_int_equal(spin_run(E, what, "-E"), 0);
    ces_graph_destroy(g);
}

/* The cross-check's models beside the fixtures and the generated
 * schedules: faults, schedules of more streams than clocks and of as many,
 * no ops, a batch, links at boundaries, queue maps that differ between
 * ranks. */
static void spin_more(struct spin_env *E, struct ces_ctx *ctx)
{
    spin_delays(E, ctx);
    spin_late(E, ctx);
    spin_stops(E, ctx);
    spin_racy_data(E, ctx);
    for (size_t i = 0; i < sizeof(wide_schedules) / sizeof(wide_schedules[0]); i++) {
        struct ces_graph *g = ces_test_text_graph(ctx, wide_schedules[i]);
        char what[64];

        snprintf(what, sizeof(what), "more streams than clocks, schedule %zu", i);
        spin_compare_as(E, ctx, g, NULL, NULL, 0, what, false);
        ces_graph_destroy(g);
    }
    for (size_t i = 0; i < sizeof(clocked_wide_schedules) / sizeof(clocked_wide_schedules[0]);
         i++) {
        struct ces_graph *g = ces_test_text_graph(ctx, clocked_wide_schedules[i]);
        char what[64];

        snprintf(what, sizeof(what), "as many streams as clocks, schedule %zu", i);
        spin_compare(E, ctx, g, what);
        ces_graph_destroy(g);
    }
    {
        struct ces_graph *g = empty_graph(ctx);

        spin_compare(E, ctx, g, "no ops");
        ces_graph_destroy(g);
        g = batch_graph(ctx);
        spin_compare(E, ctx, g, "a batch of two copies of 26 units");
        ces_graph_destroy(g);
        for (size_t i = 0; i < sizeof(link_schedules) / sizeof(link_schedules[0]); i++) {
            char what[64];

            g = ces_test_text_graph(ctx, link_schedules[i]);
            snprintf(what, sizeof(what), "links at boundaries, schedule %zu", i);
            spin_compare(E, ctx, g, what);
            ces_graph_destroy(g);
        }
    }
    /* queue maps that differ between ranks, which no `connections` says:
     * the first two generated schedules of two streams and two ranks */
    for (uint64_t seed = 0, done = 0; done < 2; seed++) {
        struct ces_graph *g = NULL;
        char what[64];

        assert_int_equal(ces_gen_graph(ctx, seed, NULL, &g), CES_OK);
        if (ces_graph_streams(g) == 2 && ces_graph_ranks(g) == 2 && small(ctx, g)) {
            snprintf(what, sizeof(what), "cesync gen --seed %llu", (unsigned long long)seed);
            assert_int_equal(spin_maps(E, ctx, g, what, false), 2);
            done++;
        }
        ces_graph_destroy(g);
    }
}

/* A part of the SPIN cross-check, each its own ctest entry (a pan.c
 * compiled for each model takes most of its time: the whole took 130 s on
 * an idle machine of two cores, past 600 s under a load of 10 to 13), with
 * the fewest models it runs. */
struct spin_part {
    const char *name;
    int min_models; /* -1: one a generated schedule */
};

static const struct spin_part spin_parts[] = {
    {"bad", 30},   /* the bad fixtures */
    {"good", 15},  /* the good fixtures */
    {"seeds", -1}, /* generated schedules (CES_PROMELA_SEEDS) */
    {"more", 36},  /* spin_more */
};

/* test_spin's state: whether SPIN runs, and the part (NULL: every part). */
struct spin_state {
    bool run;
    const struct spin_part *part;
};

/* Whether part P (NULL: every part) is `name`. */
static bool spin_part_is(const struct spin_part *P, const char *name)
{
    return P == NULL || strcmp(P->name, name) == 0;
}

static void test_spin(void **state)
{
    const struct spin_state *S = *state;
    struct spin_env E;
    struct ces_test_alloc st;
    struct ces_ctx *ctx;
    char cmd[512];
    uint64_t seeds = 12;
    int least = 0;

    memset(&E, 0, sizeof(E));
    E.run = S->run;
    snprintf(E.dir, sizeof(E.dir), "%s/cesync-promela-XXXXXX", ces_test_tmp_base());
    if (E.run)
        assert_non_null(mkdtemp(E.dir));
    if (spin_part_is(S->part, "bad"))
        spin_fixtures(&E, "bad");
    if (spin_part_is(S->part, "good"))
        spin_fixtures(&E, "good");
    /* and a few generated schedules with streams, queues and graph phases
     * (CES_PROMELA_SEEDS=N checks seeds 0..N-1 instead of 12) */
    if (getenv("CES_PROMELA_SEEDS") != NULL)
        seeds = strtoull(getenv("CES_PROMELA_SEEDS"), NULL, 10);
    ctx = ces_test_ctx(&st);
    for (uint64_t seed = 0; spin_part_is(S->part, "seeds") && seed < seeds; seed++) {
        struct ces_graph *g = NULL;
        char what[64];

        assert_int_equal(ces_gen_graph(ctx, seed, NULL, &g), CES_OK);
        snprintf(what, sizeof(what), "cesync gen --seed %llu", (unsigned long long)seed);
        spin_compare(&E, ctx, g, what);
        ces_graph_destroy(g);
    }
    if (spin_part_is(S->part, "more"))
        spin_more(&E, ctx);
    ces_test_ctx_end(ctx, &st);
    for (size_t i = 0; i < sizeof(spin_parts) / sizeof(spin_parts[0]); i++)
        if (spin_part_is(S->part, spin_parts[i].name))
            least += spin_parts[i].min_models >= 0 ? spin_parts[i].min_models : (int)seeds;
    /* a part that ran no model (CES_PROMELA_SEEDS=0) checked nothing */
    assert_true(least > 0 && E.models >= least);
    if (!E.run) {
        printf("%d models checked and emitted, none run through SPIN\n", E.models);
        return;
    }
    printf("%d models agree with SPIN\n", E.models);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", E.dir);
    assert_int_equal(sh(cmd), 0);
}

/* With no argument every test; with one, the encoding's tests alone
 * ("encoding") or a part of the SPIN cross-check (spin_parts' names). */
int main(int argc, char **argv)
{
    const struct CMUnitTest encoding[] = {
        cmocka_unit_test(test_pinned),        cmocka_unit_test(test_wait_guards),
        cmocka_unit_test(test_long_op_comment),
        cmocka_unit_test(test_options_and_limits), cmocka_unit_test(test_unvalidated_graph),
        cmocka_unit_test(test_queues),         cmocka_unit_test(test_delays),
        cmocka_unit_test(test_stops),
        cmocka_unit_test(test_alloc_failures), cmocka_unit_test(test_tool),
        cmocka_unit_test(test_limits_at_bounds), cmocka_unit_test(test_dstep_statements),
        cmocka_unit_test(test_vector_note), cmocka_unit_test(test_units_and_generations),
        cmocka_unit_test(test_links_and_events), cmocka_unit_test(test_batch_shapes),
        cmocka_unit_test(test_faults_together), cmocka_unit_test(test_empty_header),
        cmocka_unit_test(test_replays_and_clocks), cmocka_unit_test(test_queue_processes),
    };
    const char *want = getenv("CES_PROMELA_SPIN");
    struct spin_state S = {true, NULL};
    const struct CMUnitTest cross[] = {
        cmocka_unit_test_prestate(test_spin, &S),
    };
    const char *only = argc > 1 ? argv[1] : NULL;
    int rc = 0;

    if (only != NULL && strcmp(only, "encoding") != 0) {
        for (size_t i = 0; i < sizeof(spin_parts) / sizeof(spin_parts[0]); i++)
            if (strcmp(spin_parts[i].name, only) == 0)
                S.part = &spin_parts[i];
        if (S.part == NULL) {
            fprintf(stderr, "usage: %s [encoding|bad|good|seeds|more]\n", argv[0]);
            return 2;
        }
    }
    if (only == NULL || strcmp(only, "encoding") == 0)
        rc = cmocka_run_group_tests_name("promela encoding", encoding, NULL, NULL);
    if (rc != 0 || (only != NULL && S.part == NULL))
        return rc;
    if (want != NULL && strcmp(want, "0") == 0) {
        printf("CES_PROMELA_SPIN=0: the SPIN cross-check's models are emitted, not run\n");
        S.run = false;
    } else if (sh("command -v spin >/dev/null 2>&1 && command -v cc >/dev/null 2>&1") != 0) {
        printf("spin (or cc) is not on PATH: the SPIN cross-check's models are emitted, not "
               "run (Debian: apt-get install spin)\n");
        S.run = false;
    }
    rc = cmocka_run_group_tests_name(S.run ? "promela vs SPIN" : "promela models, SPIN skipped",
                                     cross, NULL, NULL);
    if (rc == 0 && !S.run)
        printf("SKIPPED: the SPIN cross-check (exit 77)\n");
    return rc == 0 && !S.run ? 77 : rc;
}
