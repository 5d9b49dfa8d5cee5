/*
 * tests/core/test_coll_directed.c - directed barriers (CES_COLL_F_DIRECTED,
 * core/coll/sync.c): gather, scatter and broadcast with each barrier one
 * way.  Their exact text for every protocol, the checker's OK for every
 * protocol, phase, root and form (plain, overlap, in place) on 2-4 ranks,
 * the exact verdict when any one of their waits or resets is dropped (none
 * is spare), the exact verdict of every fault at their flags, and the flag
 * errors.
 */
#include "coll_check.h"

#include <stdbool.h>

static const uint32_t protos[][2] = {
    {CES_PROTO_MONO, CES_PHASE_EAGER},   {CES_PROTO_NCCL, CES_PHASE_EAGER},
    {CES_PROTO_NCCL, CES_PHASE_GRAPH},   {CES_PROTO_CREDIT, CES_PHASE_EAGER},
    {CES_PROTO_CREDIT, CES_PHASE_GRAPH}, {CES_PROTO_PULL, CES_PHASE_EAGER},
    {CES_PROTO_PULL, CES_PHASE_GRAPH}};

/* golden/<coll>_directed_<proto>[_graph]_r4_b256_x2.ces, root 2: the
 * five forms coll_golden_protocols covers for the plain collectives. */
static void test_golden(void **state)
{
    static const struct {
        uint32_t proto, phase;
        const char *suffix;
    } v[] = {{CES_PROTO_NCCL, CES_PHASE_EAGER, "nccl"},
             {CES_PROTO_NCCL, CES_PHASE_GRAPH, "nccl_graph"},
             {CES_PROTO_MONO, CES_PHASE_EAGER, "mono"},
             {CES_PROTO_CREDIT, CES_PHASE_GRAPH, "credit_graph"},
             {CES_PROTO_PULL, CES_PHASE_GRAPH, "pull_graph"}};

    (void)state;
    for (uint32_t c = CES_COLL_GATHER; c <= CES_COLL_BROADCAST; c++)
        for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
            struct ces_coll_params p = coll_params(c, v[i].proto, 4, 256, 2, v[i].phase);
            char name[128];

            p.flags = CES_COLL_F_DIRECTED;
            p.root = 2;
            snprintf(name, sizeof(name), "%s_directed_%s_r4_b256_x2.ces", ces_coll_name((int)c),
                     v[i].suffix);
            coll_golden(&p, name);
        }
    coll_golden_end();
}

/* Every form with directed barriers is OK over all interleavings, 2
 * iterations (replays), every root; 64 bytes forks the overlap copy before
 * the first barrier, 16 MiB after it (eager). */
static void test_checker_proves(void **state)
{
    static const uint32_t forms[] = {0, CES_COLL_F_OVERLAP, CES_COLL_F_INPLACE};
    static const uint64_t sizes[] = {64, 16u << 20};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    unsigned proved = 0;

    (void)state;
    for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++)
        for (size_t b = 0; b < 2; b++)
            for (uint32_t c = CES_COLL_GATHER; c <= CES_COLL_BROADCAST; c++)
                for (size_t k = 0; k < sizeof(protos) / sizeof(protos[0]); k++)
                    for (uint32_t n = 2; n <= 4; n++)
                        for (uint32_t root = 0; root < n; root++) {
                            struct ces_coll_params p =
                                coll_params(c, protos[k][0], n, sizes[b], 2, protos[k][1]);
                            struct ces_graph *g = NULL;
                            uint32_t v;

                            p.flags = forms[f] | CES_COLL_F_DIRECTED;
                            p.root = root;
                            assert_int_equal(ces_coll_build(ctx, &p, &g), CES_OK);
                            v = ces_test_verdict(ctx, g);
                            if (v != CES_V_OK)
                                fail_msg("%s %s form 0x%x %s ranks %u root %u bytes %llu: "
                                         "verdict 0x%x",
                                         ces_coll_name((int)c), ces_proto_name((int)p.proto),
                                         forms[f], p.phase ? "graph" : "eager", n, root,
                                         (unsigned long long)sizes[b], v);
                            ces_graph_destroy(g);
                            proved++;
                        }
    /* 3 forms x 2 sizes x 3 collectives x 7 protocol/phase pairs x (2 + 3 +
     * 4) roots */
    assert_int_equal(proved, 3 * 2 * 3 * 7 * 9);
    ces_test_ctx_end(ctx, &st);
}

/* 3 ranks, root 1, 2 iterations: each wait, and each reset the graph
 * protocols make, is needed.  Without the root's wait for the peers' free
 * recv, broadcast's second push can land before a peer read the first
 * (RACE, and the peer reads the second: MISMATCH); without a peer's wait
 * for the root's pushes it reads while they land (RACE).  Gather the other
 * way round.  A reset lost under pull or nccl's graph form leaves a flag at
 * 1 for the next replay, whose wait then passes before its writer arrived
 * (RACE), and on the first barrier also lets a push overwrite unread data
 * (MISMATCH) and leaves a later wait without its flag (HANG). */
static void test_every_wait_is_needed(void **state)
{
    static const struct {
        uint32_t coll, proto, phase;
        const char *drop;
        uint32_t verdict;
    } cases[] = {
        {CES_COLL_BROADCAST, CES_PROTO_MONO, CES_PHASE_EAGER, "r1 over p : wait ready[0]@$p >= $i\n",
         CES_V_RACE | CES_V_MISMATCH},
        {CES_COLL_BROADCAST, CES_PROTO_MONO, CES_PHASE_EAGER, "r0 : wait complete[0]@1 >= $i\n",
         CES_V_RACE},
        {CES_COLL_BROADCAST, CES_PROTO_MONO, CES_PHASE_EAGER, "r2 : wait complete[0]@1 >= $i\n",
         CES_V_RACE},
        {CES_COLL_GATHER, CES_PROTO_MONO, CES_PHASE_EAGER, "r0 : wait ready[0]@1 >= $i\n",
         CES_V_RACE | CES_V_MISMATCH},
        {CES_COLL_GATHER, CES_PROTO_MONO, CES_PHASE_EAGER, "r2 : wait ready[0]@1 >= $i\n",
         CES_V_RACE | CES_V_MISMATCH},
        {CES_COLL_GATHER, CES_PROTO_MONO, CES_PHASE_EAGER, "r1 over p : wait complete[0]@$p >= $i\n",
         CES_V_RACE},
        {CES_COLL_BROADCAST, CES_PROTO_PULL, CES_PHASE_GRAPH,
         "r1 over p : wait ready[$r]@$p == 1\n", CES_V_HANG | CES_V_RACE | CES_V_MISMATCH},
        {CES_COLL_BROADCAST, CES_PROTO_PULL, CES_PHASE_GRAPH,
         "r1 over p : write ready[$r]@$p = 0\n", CES_V_HANG | CES_V_RACE | CES_V_MISMATCH},
        {CES_COLL_BROADCAST, CES_PROTO_PULL, CES_PHASE_GRAPH, "r2 : wait complete[$r]@1 == 1\n",
         CES_V_HANG | CES_V_RACE},
        {CES_COLL_BROADCAST, CES_PROTO_PULL, CES_PHASE_GRAPH, "r2 : write complete[$r]@1 = 0\n",
         CES_V_RACE},
        {CES_COLL_GATHER, CES_PROTO_PULL, CES_PHASE_GRAPH, "r0 : wait ready[$r]@1 == 1\n",
         CES_V_HANG | CES_V_RACE | CES_V_MISMATCH},
        {CES_COLL_GATHER, CES_PROTO_PULL, CES_PHASE_GRAPH, "r0 : write ready[$r]@1 = 0\n",
         CES_V_HANG | CES_V_RACE | CES_V_MISMATCH},
        {CES_COLL_GATHER, CES_PROTO_PULL, CES_PHASE_GRAPH,
         "r1 over p : wait complete[$r]@$p == 1\n", CES_V_HANG | CES_V_RACE},
        {CES_COLL_GATHER, CES_PROTO_PULL, CES_PHASE_GRAPH,
         "r1 over p : write complete[$r]@$p = 0\n", CES_V_RACE},
        {CES_COLL_BROADCAST, CES_PROTO_NCCL, CES_PHASE_GRAPH, "r1 over p : write ready[$p] = 0\n",
         CES_V_HANG | CES_V_RACE | CES_V_MISMATCH},
        {CES_COLL_GATHER, CES_PROTO_NCCL, CES_PHASE_GRAPH, "r1 over p : write complete[$p] = 0\n",
         CES_V_RACE},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ces_coll_params p =
            coll_params(cases[i].coll, cases[i].proto, 3, 64, 2, cases[i].phase);
        uint32_t v;

        p.flags = CES_COLL_F_DIRECTED;
        p.root = 1;
        v = coll_verdict_with(ctx, &p, cases[i].drop, "");
        if (v != cases[i].verdict)
            fail_msg("%s %s without '%s': verdict 0x%x, expected 0x%x",
                     ces_coll_name((int)p.coll), ces_proto_name((int)p.proto), cases[i].drop, v,
                     cases[i].verdict);
    }
    ces_test_ctx_end(ctx, &st);
}

/* Every flag a directed barrier writes is awaited: stopping any stream
 * leaves a peer waiting for it (HANG).  The root's streams order its local
 * copy by events (s0: record go ... await local, consume; s1: await go,
 * copy, record local, per call): a stop of one before its record lets the
 * other's await pass on the record before (the stopped one was never
 * enqueued), or at once in the first call, so besides the HANG the copy
 * races with s0's produce (s0 stopped at a record go; s1 before its copy's
 * record local, #2 or #5) or s0 consumes what s1 never copied (s1 stopped
 * before a call's copy: #0, #1, #3, #4; MISMATCH).  Dropping any one flag blocks a rank
 * for good - under mono, whose flags are counters, the first call's flags
 * as a DEADLOCK (the second call's raise would do, behind the wait for the
 * first), the second call's as a HANG; under nccl every one as a HANG; and
 * the watchdog model ends every such run.  Delaying any one is tolerated:
 * a flag is written again only after its waiter has seen it. */
/* The kind of op k of rank r's stream s once replays are unrolled. */
static uint32_t op_kind(const struct ces_graph *g, uint32_t r, uint32_t s, uint32_t k)
{
    uint32_t left = k;

    for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
        uint32_t n;
        const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

        for (uint64_t j = 0; j < ces_graph_block(g, b).reps; j++)
            for (uint32_t i = 0; i < n; i++)
                if (ops[i].stream == s && left-- == 0)
                    return ops[i].kind;
    }
    fail_msg("r%u.s%u has no op #%u", r, s, k);
    return 0;
}

static void test_every_write_is_awaited(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (uint32_t c = CES_COLL_GATHER; c <= CES_COLL_BROADCAST; c++)
        for (size_t k = 0; k < 2; k++) {
            /* mono and nccl eager: the writes of both barriers */
            struct ces_coll_params p = coll_params(c, protos[k][0], 3, 64, 2, protos[k][1]);
            struct ces_graph *g = NULL;
            struct ces_check_sweep_row *rows = NULL;
            struct ces_check_sweep_rest rest;
            size_t n = 0, stops = 0, drops = 0, delays = 0, deadlocks = 0, more = 0, writes;

            p.flags = CES_COLL_F_DIRECTED | CES_COLL_F_OVERLAP;
            p.root = 2;
            assert_int_equal(ces_coll_build(ctx, &p, &g), CES_OK);
            assert_int_equal(ces_check_fault_sweep(ctx, g, NULL, &rows, &n, &rest), CES_OK);
            for (size_t i = 0; i < n; i++) {
                assert_int_equal(rows[i].verdict_abort & (CES_V_DEADLOCK | CES_V_HANG), 0);
                if (rows[i].fault.kind == CES_FAULT_DELAY) {
                    assert_int_equal(rows[i].verdict, CES_V_OK);
                    delays++;
                } else if (rows[i].fault.kind == CES_FAULT_DROP) {
                    assert_true(rows[i].verdict == CES_V_DEADLOCK ||
                                rows[i].verdict == CES_V_HANG);
                    deadlocks += rows[i].verdict == CES_V_DEADLOCK;
                    drops++;
                } else if (rows[i].verdict != CES_V_HANG) {
                    const struct ces_fault *f = &rows[i].fault;
                    bool copied = f->stream == 1 && (f->index == 2 || f->index == 5);

                    assert_int_equal(f->rank, p.root);
                    if (f->stream == 0)
                        assert_int_equal(op_kind(g, f->rank, 0, f->index), CES_OP_RECORD);
                    else
                        assert_true(f->index < 6);
                    assert_int_equal(rows[i].verdict,
                                     CES_V_HANG | (f->stream == 0 || copied ? CES_V_RACE
                                                                            : CES_V_MISMATCH));
                    more++;
                    stops++;
                } else {
                    stops++;
                }
            }
            /* per call the 2 peers' flags + the root's: one counter under
             * mono, one write per peer under nccl */
            writes = 2 + (k == 0 ? 1 : 2);
            assert_int_equal(drops, 2 * writes);
            assert_int_equal(deadlocks, k == 0 ? writes : 0);
            assert_int_equal(delays, drops);
            assert_true(stops > 0);
            assert_int_equal(more, 8);
            ces_free(ctx, rows);
            ces_graph_destroy(g);
        }
    ces_test_ctx_end(ctx, &st);
}

/* What the other collectives lack says so; with in place, overlap and the
 * plain form it combines; early, which gather, scatter and broadcast lack,
 * is named first. */
static void test_flag_errors(void **state)
{
    static const uint32_t others[] = {CES_COLL_ALLTOALL, CES_COLL_ALLGATHER, CES_COLL_SENDRECV,
                                      CES_COLL_BARRIER};
    struct ces_coll_params p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_MONO, 2, 1024, 1,
                                           CES_PHASE_EAGER);
    char msg[128];

    (void)state;
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        p.coll = others[i];
        p.flags = CES_COLL_F_DIRECTED;
        snprintf(msg, sizeof(msg),
                 "%s: directed barriers apply to gather, scatter and broadcast only",
                 ces_coll_name((int)others[i]));
        coll_error(&p, CES_ERR_UNSUPPORTED, msg);
        p.flags = CES_COLL_F_DIRECTED | CES_COLL_F_OVERLAP;
        if (others[i] == CES_COLL_ALLTOALL || others[i] == CES_COLL_ALLGATHER)
            coll_error(&p, CES_ERR_UNSUPPORTED, msg);
    }
    p.coll = CES_COLL_SCATTER;
    p.flags = CES_COLL_F_DIRECTED | CES_COLL_F_EARLY;
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "scatter: the early variant applies to alltoall and allgather only");
    p.flags = CES_COLL_F_DIRECTED | CES_COLL_F_INPLACE | CES_COLL_F_OVERLAP;
    coll_error(&p, CES_ERR_INVALID,
               "scatter: in place and the overlap variant exclude each other (in place there "
               "is no local copy to move)");
}

/* Every allocation of generating and parsing a directed barrier's
 * collective may fail, the text of the ranks but the root included: each
 * failure is CES_ERR_NOMEM, never a program with lines missing. */
static void test_alloc_failures(void **state)
{
    (void)state;
    for (uint32_t c = CES_COLL_GATHER; c <= CES_COLL_BROADCAST; c++) {
        struct ces_coll_params p = coll_params(c, CES_PROTO_CREDIT, 3, 64, 1, CES_PHASE_EAGER);

        p.flags = CES_COLL_F_DIRECTED;
        p.root = 1;
        assert_true(ces_test_alloc_failures(coll_program_body, &p) > 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_checker_proves),
        cmocka_unit_test(test_every_wait_is_needed),
        cmocka_unit_test(test_every_write_is_awaited),
        cmocka_unit_test(test_flag_errors),
        cmocka_unit_test(test_alloc_failures),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
