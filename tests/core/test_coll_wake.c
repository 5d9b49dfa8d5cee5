/*
 * tests/core/test_coll_wake.c - the wake chain (struct
 * ces_coll_params.wake, core/coll/coll.c): its exact text; that it runs on
 * every rank of alltoall and allgather and on the ranks of gather, scatter
 * and broadcast that copy nothing (every rank but the root of scatter and
 * broadcast, the root of gather in place) and changes nothing else, rank for
 * rank; the checker's OK for every protocol, phase, root and form on 2-4
 * ranks, the overlap fork before and after the ready barrier; the exact
 * verdict of a chain that touches the collective's buffers; and the errors.
 */
#include "coll_check.h"

static const uint32_t protos[][2] = {
    {CES_PROTO_MONO, CES_PHASE_EAGER},   {CES_PROTO_NCCL, CES_PHASE_EAGER},
    {CES_PROTO_NCCL, CES_PHASE_GRAPH},   {CES_PROTO_CREDIT, CES_PHASE_EAGER},
    {CES_PROTO_CREDIT, CES_PHASE_GRAPH}, {CES_PROTO_PULL, CES_PHASE_EAGER},
    {CES_PROTO_PULL, CES_PHASE_GRAPH}};

static const uint32_t forms[] = {0,
                                 CES_COLL_F_OVERLAP,
                                 CES_COLL_F_INPLACE,
                                 CES_COLL_F_DIRECTED,
                                 CES_COLL_F_OVERLAP | CES_COLL_F_DIRECTED,
                                 CES_COLL_F_INPLACE | CES_COLL_F_DIRECTED};

/* golden/broadcast_wake_mono_r4_b256_x2.ces: what an eager ces_broadcast
 * runs (overlap, mono), root 2, 2 copies; golden/
 * gather_inplace_wake_credit_graph_r4_b256_x2.ces: gather in place under a
 * graph phase, root 2, 3 copies. */
static void test_golden(void **state)
{
    struct ces_coll_params p =
        coll_params(CES_COLL_BROADCAST, CES_PROTO_MONO, 4, 256, 2, CES_PHASE_EAGER);

    (void)state;
    p.flags = CES_COLL_F_OVERLAP;
    p.root = 2;
    p.wake = 2;
    coll_golden(&p, "broadcast_wake_mono_r4_b256_x2.ces");
    p = coll_params(CES_COLL_GATHER, CES_PROTO_CREDIT, 4, 256, 2, CES_PHASE_GRAPH);
    p.flags = CES_COLL_F_INPLACE;
    p.root = 2;
    p.wake = 3;
    coll_golden(&p, "gather_inplace_wake_credit_graph_r4_b256_x2.ces");
    coll_golden_end();
}

/* The lines of coll_ops_text's `ops` that are not the chain's (its events'
 * ops on s0, and everything on its stream `w`), into a fresh string; *copies
 * gets the chain's copies. */
static char *without_chain(const char *ops, uint32_t w, unsigned *copies)
{
    char *out = malloc(strlen(ops) + 1), prefix[16];
    size_t len = 0;

    assert_non_null(out);
    snprintf(prefix, sizeof(prefix), "s%u ", w);
    *copies = 0;
    for (const char *l = ops; *l != '\0';) {
        const char *nl = strchr(l, '\n');
        size_t n = (size_t)(nl - l) + 1;

        if (strncmp(l, prefix, strlen(prefix)) == 0)
            *copies += strncmp(l + strlen(prefix), "copy wake[", 10) == 0;
        else if (strncmp(l, "record wake\n", n) != 0 && strncmp(l, "await woke\n", n) != 0) {
            memcpy(out + len, l, n);
            len += n;
        }
        l = nl + 1;
    }
    out[len] = '\0';
    return out;
}

/* Whether rank r runs the chain: every rank of alltoall and allgather; of
 * the rooted collectives the ranks that copy nothing. */
static int chain_rank(const struct ces_coll_params *p, uint32_t r)
{
    if (p->coll == CES_COLL_ALLTOALL || p->coll == CES_COLL_ALLGATHER)
        return 1;
    if (p->coll == CES_COLL_GATHER)
        return r == p->root && (p->flags & CES_COLL_F_INPLACE) != 0;
    return r != p->root;
}

/* With the chain (3 copies) each rank that runs it runs exactly the ops it
 * runs without it, plus the chain (its fork and join on s0, the copies on a
 * stream of its own); every other rank runs exactly what it runs without
 * it; the schedule has one stream and one buffer more where a rank runs
 * the chain (none in gather out of place: then the same schedule), and it
 * is OK over all interleavings.  *ranks counts the ranks compared. */
static void chain_adds_only_itself(struct ces_ctx *ctx, struct ces_coll_params p, unsigned *ranks)
{
    struct ces_graph *g0, *g1;
    uint32_t w, v, any = 0;

    p.wake = 0;
    g0 = coll_graph(ctx, &p);
    p.wake = 3;
    g1 = coll_graph(ctx, &p);
    w = ces_graph_streams(g0);
    for (uint32_t r = 0; r < p.ranks; r++)
        any |= (uint32_t)chain_rank(&p, r);
    assert_int_equal(ces_graph_streams(g1), w + any);
    assert_int_equal(ces_graph_nbuffers(g1), ces_graph_nbuffers(g0) + any);
    assert_int_equal(ces_graph_nblocks(g1), ces_graph_nblocks(g0));
    for (uint32_t r = 0; r < p.ranks; r++) {
        int runs = chain_rank(&p, r);

        for (uint32_t b = 0; b < ces_graph_nblocks(g0); b++) {
            char *t0 = coll_ops_text(g0, b, r), *t1 = coll_ops_text(g1, b, r);
            unsigned copies = 0;
            char *rest = without_chain(t1, w, &copies);

            assert_int_equal(copies, runs ? 3 : 0);
            assert_string_equal(rest, t0);
            if (!runs)
                assert_string_equal(t1, t0);
            free(rest);
            free(t0);
            free(t1);
        }
        (*ranks)++;
    }
    v = ces_test_verdict(ctx, g1);
    if (v != CES_V_OK)
        fail_msg("%s %s flags 0x%x, %u ranks, root %u: verdict 0x%x", ces_coll_name((int)p.coll),
                 ces_proto_name((int)p.proto), p.flags, p.ranks, p.root, v);
    ces_graph_destroy(g0);
    ces_graph_destroy(g1);
}

/* Every form, protocol, phase and root of gather, scatter and broadcast on
 * 2-4 ranks, 2 iterations (replays), at 64 bytes and at 16 MiB (where an
 * eager overlap forks the root's local copy after the ready barrier, as
 * ces_gather & co. run it from 8 MiB): chain_adds_only_itself. */
static void test_every_form(void **state)
{
    static const uint64_t sizes[] = {64, UINT64_C(16) << 20};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    unsigned ranks = 0, proved = 0;

    (void)state;
    for (size_t b = 0; b < sizeof(sizes) / sizeof(sizes[0]); b++)
        for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++)
            for (uint32_t c = CES_COLL_GATHER; c <= CES_COLL_BROADCAST; c++)
                for (size_t k = 0; k < sizeof(protos) / sizeof(protos[0]); k++)
                    for (uint32_t n = 2; n <= 4; n++)
                        for (uint32_t root = 0; root < n; root++) {
                            struct ces_coll_params p =
                                coll_params(c, protos[k][0], n, sizes[b], 2, protos[k][1]);

                            p.flags = forms[f];
                            p.root = root;
                            chain_adds_only_itself(ctx, p, &ranks);
                            proved++;
                        }
    /* 2 sizes x 6 forms x 3 collectives x 7 protocol/phase pairs x (2 + 3 +
     * 4) roots, each of n ranks */
    assert_int_equal(proved, 2 * 6 * 3 * 7 * 9);
    assert_int_equal(ranks, 2 * 6 * 3 * 7 * 29);
    ces_test_ctx_end(ctx, &st);
}

/* alltoall (plain, overlap, early) and allgather (those and in place), every
 * protocol and phase, 2-4 ranks, 2 iterations, at 48 bytes and with a
 * chunk of 16 MiB (where an eager overlap forks its local copy after the
 * ready barrier): chain_adds_only_itself, on every rank. */
static void test_every_rank(void **state)
{
    static const uint32_t all_forms[] = {0, CES_COLL_F_OVERLAP, CES_COLL_F_EARLY,
                                         CES_COLL_F_INPLACE};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    unsigned ranks = 0, proved = 0;

    (void)state;
    for (size_t b = 0; b < 2; b++)
        for (uint32_t c = CES_COLL_ALLTOALL; c <= CES_COLL_ALLGATHER; c++)
            for (size_t f = 0; f < (c == CES_COLL_ALLTOALL ? 3u : 4u); f++)
                for (size_t k = 0; k < sizeof(protos) / sizeof(protos[0]); k++)
                    for (uint32_t n = 2; n <= 4; n++) {
                        /* alltoall's bytes are n chunks */
                        uint64_t big = (UINT64_C(16) << 20) * (c == CES_COLL_ALLTOALL ? n : 1);
                        struct ces_coll_params p = coll_params(c, protos[k][0], n,
                                                               b == 0 ? 48 : big, 2, protos[k][1]);

                        p.flags = all_forms[f];
                        chain_adds_only_itself(ctx, p, &ranks);
                        proved++;
                    }
    /* 2 sizes x (3 + 4) forms x 7 protocol/phase pairs x 3 rank counts */
    assert_int_equal(proved, 2 * 7 * 7 * 3);
    assert_int_equal(ranks, 2 * 7 * 7 * 9);
    ces_test_ctx_end(ctx, &st);
}

/* The checker sees the chain: broadcast of 3 ranks, root 1, 2 iterations,
 * mono.  Its first copy (rank 0's) writing into rank 0's recv, which the
 * root's push fills at the same time, is a RACE, and so is reading it
 * there; the chain's await of `wake` moved to s0 (its copies then start
 * with s1, unordered after the previous iteration's, which touch other
 * bytes) is still OK: nothing it touches is shared; so is leaving out its
 * join (the chain only keeps a copy in flight; the join keeps it within
 * its iteration). */
static void test_chain_is_checked(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p =
        coll_params(CES_COLL_BROADCAST, CES_PROTO_MONO, 3, 8192, 2, CES_PHASE_EAGER);

    (void)state;
    p.root = 1;
    p.wake = 2;
    assert_int_equal(coll_verdict_with(ctx, &p, "-> wake[1048576:1052672]", "-> recv[0:4096]"),
                     CES_V_RACE);
    assert_int_equal(coll_verdict_with(ctx, &p, "copy wake[0:4096]", "copy recv[0:4096]"),
                     CES_V_RACE);
    assert_int_equal(coll_verdict_with(ctx, &p, "r0 s1 : await wake", "r0 : await wake"), CES_V_OK);
    assert_int_equal(coll_verdict_with(ctx, &p, "r0 : await woke\n", ""), CES_V_OK);
    ces_test_ctx_end(ctx, &st);
}

/* The other collectives refuse a chain; more than CES_COLL_MAX_WAKE copies
 * is invalid; CES_COLL_MAX_WAKE builds. */
static void test_errors(void **state)
{
    static const uint32_t others[] = {CES_COLL_SENDRECV, CES_COLL_BARRIER};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p =
        coll_params(CES_COLL_ALLTOALL, CES_PROTO_MONO, 2, 1024, 1, CES_PHASE_EAGER);
    struct ces_graph *g;
    char msg[128];

    (void)state;
    p.wake = 1;
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        p.coll = others[i];
        snprintf(msg, sizeof(msg),
                 "%s: the wake chain applies to alltoall, allgather, gather, scatter and "
                 "broadcast only",
                 ces_coll_name((int)others[i]));
        coll_error(&p, CES_ERR_UNSUPPORTED, msg);
    }
    p.coll = CES_COLL_SCATTER;
    p.wake = CES_COLL_MAX_WAKE + 1;
    coll_error(&p, CES_ERR_INVALID, "scatter: wake must be 0..256 copies, not 257");
    p.wake = CES_COLL_MAX_WAKE;
    g = coll_graph(ctx, &p);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_every_form),
        cmocka_unit_test(test_every_rank),
        cmocka_unit_test(test_chain_is_checked),
        cmocka_unit_test(test_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
