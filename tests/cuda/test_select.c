/*
 * tests/cuda/test_select.c - what the collectives run (backend/cuda/select.c),
 * on the CPU: the parameters each call builds with (alltoall and allgather
 * take the overlap variant, eager and captured; gather, scatter and
 * broadcast the wake chain, eager and captured, and its length; captured
 * calls but the barrier `pull` in a graph phase), the exact lowered plan of an
 * eager overlap alltoall, the shape of every selected plan (the local copy
 * alone on s1 between an await and a record, no batch call under capture),
 * every selected schedule proved by the checker (2..8 ranks, every root,
 * one call and three, the wake chain's lengths and both places of the
 * local fork), the cached plan's value patching (linear in the call
 * number) equal to a fresh build, and
 * the in-place calls: which pointers make one, their plans, and that they
 * issue what the out-of-place calls issue at the same pointers; the rooted
 * collectives' selected plans out of place, eager and captured, proved;
 * every selected schedule with fewer hardware queues than streams: the same
 * plans, proved under the shared queues; the patching's own rules (u32
 * values modulo 2^32, calls compared) and the settings the communicators
 * read from the environment.
 */
#include "ces_test.h"
#include "lower.h"

#include <stdlib.h>
#include <string.h>

static const struct ces_cuda_caps h200 = {0, 1, 0, CES_CUDA_SPLIT_WAIT_BYTES};

static const uint32_t all_colls[] = {CES_COLL_ALLTOALL, CES_COLL_ALLGATHER, CES_COLL_GATHER,
                                     CES_COLL_SCATTER,  CES_COLL_BROADCAST, CES_COLL_BARRIER};

static void test_params(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(all_colls) / sizeof(all_colls[0]); i++) {
        for (int cap = 0; cap < 2; cap++) {
            struct ces_coll_params p;
            uint32_t c = all_colls[i];
            int overlap = c == CES_COLL_ALLTOALL || c == CES_COLL_ALLGATHER;
            int rooted = c == CES_COLL_GATHER || c == CES_COLL_SCATTER || c == CES_COLL_BROADCAST;

            memset(&p, 0xa5, sizeof(p));
            ces_cuda_coll_select(&p, c, 3, 3000, 2, cap);
            assert_int_equal(p.coll, c);
            /* captured calls with two barriers: pull; the captured
             * barrier (one): credit; eager: mono */
            assert_int_equal(p.proto, !cap                      ? CES_PROTO_MONO
                                      : c != CES_COLL_BARRIER ? CES_PROTO_PULL
                                                                : CES_PROTO_CREDIT);
            assert_int_equal(p.ranks, 3);
            assert_int_equal(p.bytes, c == CES_COLL_BARRIER ? 1 : 3000);
            assert_int_equal(p.root, 2);
            assert_int_equal(p.iterations, 1);
            assert_int_equal(p.phase,
                             cap && c != CES_COLL_BARRIER ? CES_PHASE_GRAPH : CES_PHASE_EAGER);
            assert_int_equal(p.first_iter, 1);
            assert_int_equal(p.npairs, 0);
            assert_int_equal(p.flags, overlap || rooted ? CES_COLL_F_OVERLAP : 0u);
            /* the wake chain: gather, scatter and broadcast */
            assert_int_equal(p.wake, rooted ? 2u : 0u);
        }
    }
    assert_int_equal(ces_cuda_coll_lower_flags(0, 0), 0u);
    assert_int_equal(ces_cuda_coll_lower_flags(0, 1), CES_LOWER_PROGRESS);
    assert_int_equal(ces_cuda_coll_lower_flags(1, 0), CES_LOWER_CAPTURE);
    assert_int_equal(ces_cuda_coll_lower_flags(1, 1), CES_LOWER_CAPTURE | CES_LOWER_FLIGHT);
}

/* The wake chain's length: CES_CUDA_WAKE_SHARE of the root's copies (the
 * peer copy's start and (n-1) x bytes at the peer rate) at
 * CES_CUDA_WAKE_COPY_US a copy, rounded, 1..CES_CUDA_WAKE_MAX_COPIES: on 2
 * ranks 2, 5 and 14 copies at 1, 4 and 16 MiB (what scripts/probe_memops.sh
 * one-way-light ran), 53 at 64 MiB, the most from 80 MiB, 2 for a byte (the
 * start alone), 7 on 8 ranks at 1 MiB. */
static void test_wake_copies(void **state)
{
    (void)state;
    assert_int_equal(ces_cuda_wake_copies(2, 1), 2);
    assert_int_equal(ces_cuda_wake_copies(2, UINT64_C(1) << 20), 2);
    assert_int_equal(ces_cuda_wake_copies(2, UINT64_C(4) << 20), 5);
    assert_int_equal(ces_cuda_wake_copies(2, UINT64_C(16) << 20), 14);
    assert_int_equal(ces_cuda_wake_copies(2, UINT64_C(64) << 20), 53);
    assert_int_equal(ces_cuda_wake_copies(2, UINT64_C(80) << 20), 64);
    assert_int_equal(ces_cuda_wake_copies(2, UINT64_C(256) << 20), CES_CUDA_WAKE_MAX_COPIES);
    assert_int_equal(ces_cuda_wake_copies(8, UINT64_C(1) << 20), 7);
    assert_int_equal(ces_cuda_wake_copies(3, 3000), 2);
    assert_int_equal(ces_cuda_wake_copies(2, UINT64_C(1) << 30), CES_CUDA_WAKE_MAX_COPIES);
    assert_int_equal(ces_cuda_wake_copies(8, CES_MAX_BYTES), CES_CUDA_WAKE_MAX_COPIES);
}

/* A setting as the communicators read it (ces_cuda_env_setting): unset or
 * empty the default; digits, in bytes then K, M or G either case; the
 * bounds taken, one past them refused, naming the variable and value. */
static void test_env_setting(void **state)
{
    static const struct {
        const char *env;
        uint64_t v; /* UINT64_MAX: refused */
    } bytes[] = {
        {NULL, 7}, {"", 7}, {"0", 0}, {"9", 9}, {"90", 90}, {"1k", 1024}, {"2K", 2048},
        {"3m", UINT64_C(3) << 20}, {"3M", UINT64_C(3) << 20}, {"5g", UINT64_C(5) << 30},
        {"5G", UINT64_C(5) << 30}, {"262144G", CES_MAX_BYTES},
        {"281474976710656", CES_MAX_BYTES}, {"262145G", UINT64_MAX},
        {"281474976710657", UINT64_MAX}, {"1T", UINT64_MAX}, {"K", UINT64_MAX},
        {"a9", UINT64_MAX}, {"9 ", UINT64_MAX},
    }, ms[] = {
        {"1", 1}, {"4294967295", 4294967295u}, {"0", UINT64_MAX}, {"4294967296", UINT64_MAX},
        {"5K", UINT64_MAX},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char want[160];

    (void)state;
    for (size_t i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++) {
        uint64_t v = 0;
        int rc;

        if (bytes[i].env != NULL)
            setenv("CES_TEST_SETTING", bytes[i].env, 1);
        else
            unsetenv("CES_TEST_SETTING");
        rc = ces_cuda_env_setting(ctx, "CES_TEST_SETTING", "0..2^48", "bytes", 0, CES_MAX_BYTES,
                                  7, &v);
        if (bytes[i].v == UINT64_MAX) {
            assert_int_equal(rc, CES_ERR_INVALID);
            snprintf(want, sizeof(want), "CES_TEST_SETTING must be 0..2^48 bytes (digits, then "
                                         "K, M or G if wanted), not '%s'", bytes[i].env);
            assert_string_equal(ces_ctx_last_error(ctx), want);
        } else {
            if (rc != CES_OK || v != bytes[i].v)
                fail_msg("'%s': %d, %llu", bytes[i].env == NULL ? "(unset)" : bytes[i].env, rc,
                         (unsigned long long)v);
        }
    }
    for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
        uint64_t v = 0;
        int rc;

        setenv("CES_TEST_SETTING", ms[i].env, 1);
        rc = ces_cuda_env_setting(ctx, "CES_TEST_SETTING", "1..4294967295", "milliseconds", 1,
                                  UINT32_MAX, 5000, &v);
        if (ms[i].v == UINT64_MAX) {
            assert_int_equal(rc, CES_ERR_INVALID);
            snprintf(want, sizeof(want), "CES_TEST_SETTING must be 1..4294967295 milliseconds "
                                         "(digits), not '%s'", ms[i].env);
            assert_string_equal(ces_ctx_last_error(ctx), want);
        } else {
            assert_int_equal(rc, CES_OK);
            assert_int_equal(v, ms[i].v);
        }
    }
    unsetenv("CES_TEST_SETTING");
    ces_test_ctx_end(ctx, &st);
}

static void build_lower(struct ces_ctx *ctx, const struct ces_coll_params *p, uint64_t first,
                        uint32_t rank, unsigned flags, struct ces_graph **g,
                        struct ces_cuda_plan **plan)
{
    struct ces_coll_params q = *p;

    q.first_iter = first;
    assert_int_equal(ces_coll_build(ctx, &q, g), CES_OK);
    assert_int_equal(ces_cuda_lower(ctx, *g, rank, &h200, flags, plan), CES_OK);
}

/* The exact plan of an eager alltoall of 2 ranks, rank 0: the local chunk
 * on s1 between the fork event and the join event, everything else on s0;
 * the progress write ends the complete barrier only. */
static void test_alltoall_plan(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p;
    struct ces_graph *g = NULL;
    struct ces_cuda_plan *pl = NULL;
    char *t = NULL;

    (void)state;
    ces_cuda_coll_select(&p, CES_COLL_ALLTOALL, 2, 1024, 0, 0);
    build_lower(ctx, &p, 1, 0, ces_cuda_coll_lower_flags(0, 1), &g, &pl);
    assert_int_equal(ces_graph_streams(g), 2);
    assert_int_equal(ces_graph_nevents(g), 2);
    assert_int_equal(ces_cuda_plan_format(ctx, g, pl, &t), CES_OK);
    assert_string_equal(t, "block 0 eager x1 first 1\n"
                           "s0 produce send[0:1024]@0\n"
                           "s0 record go\n"
                           "s1 await go\n"
                           "s1 copy 1 [send[0:512]@0 -> recv[0:512]@0]\n"
                           "s1 record local\n"
                           "s0 memops 2 [write64 ready[0]@0 = 1; wait64 ready[0]@1 >= 1]\n"
                           "s0 copy_batch 1 [send[512:1024]@0 -> recv[0:512]@1]\n"
                           "s0 memops 3 [write64 complete[0]@0 = 1; wait64 complete[0]@1 >= 1; "
                           "progress]\n"
                           "s0 await local\n"
                           "s0 consume recv[0:512]@0 == send[0:512]@0\n"
                           "s0 consume recv[512:1024]@0 == send[0:512]@1\n");
    ces_free(ctx, t);
    ces_cuda_plan_destroy(pl);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The selected schedule g (built from p) proved OK for one call and for
 * three in a row (three replays when captured: the resets of one never
 * erase the flags of the next). */
static void prove_calls(struct ces_ctx *ctx, const struct ces_coll_params *p,
                        const struct ces_graph *g)
{
    struct ces_coll_params q = *p;
    struct ces_graph *g3 = NULL;

    assert_int_equal(ces_test_verdict(ctx, g), CES_V_OK);
    q.iterations = 3;
    assert_int_equal(ces_coll_build(ctx, &q, &g3), CES_OK);
    assert_int_equal(ces_test_verdict(ctx, g3), CES_V_OK);
    ces_graph_destroy(g3);
}

/* Every selected schedule of alltoall and allgather, 2..8 ranks, eager and
 * captured, with the local copy forked before the ready barrier (3840
 * bytes; captured, 60 MiB too; eager alltoall of 8 ranks at 60 MiB, whose
 * 7.5 MiB chunk is under the 8 MiB switch) and after it (60 MiB, eager):
 * two streams; on s1 exactly await, one local copy (source and destination
 * on this rank), record; no batch under capture; progress writes only
 * eager, enter/exit writes around each waiting call only captured; every
 * one proved OK by the checker, for one call and three in a row (every
 * rank count the collectives support: the largest, 8 ranks, stays well
 * under a second). */
static void test_selected_plans(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    unsigned plans = 0, proved = 0;

    (void)state;
    for (uint32_t c = 0; c < 2; c++) {
        for (int cap = 0; cap < 2; cap++) {
            for (uint32_t shape = 0; shape < 14; shape++) {
                static const uint64_t sizes[] = {60 * 64, UINT64_C(60) << 20};
                uint32_t n = 2 + shape % 7;
                struct ces_coll_params p;
                struct ces_graph *g = NULL;

                /* the bytes a multiple of the ranks, as alltoall needs:
                 * on 7 ranks 3836 and 60 MiB - 2 */
                ces_cuda_coll_select(&p, c == 0 ? CES_COLL_ALLTOALL : CES_COLL_ALLGATHER, n,
                                     sizes[shape / 7] / n * n, 0, cap);
                assert_int_equal(ces_coll_build(ctx, &p, &g), CES_OK);
                assert_int_equal(ces_graph_streams(g), 2);
                prove_calls(ctx, &p, g);
                proved++;
                for (uint32_t r = 0; r < n; r++) {
                    struct ces_cuda_plan *pl = NULL;
                    const struct ces_cuda_pblock *b;
                    uint32_t s1[8], ns1 = 0, batches = 0, enters = 0;

                    assert_int_equal(ces_cuda_lower(ctx, g, r, &h200,
                                                    ces_cuda_coll_lower_flags(cap, 1), &pl),
                                     CES_OK);
                    b = &pl->blocks[0];
                    assert_int_equal(pl->nblocks, 1);
                    assert_int_equal(b->capture, cap);
                    for (size_t i = 0; i < b->calls.len; i++) {
                        const struct ces_cuda_call *k =
                            &CES_VEC_AT(&b->calls, struct ces_cuda_call, i);

                        batches += k->kind == CES_CALL_COPY_BATCH;
                        if (k->stream == 1) {
                            assert_true(ns1 < 8);
                            s1[ns1++] = k->kind;
                            if (k->kind == CES_CALL_COPY) {
                                const struct ces_cuda_copy *cp =
                                    &CES_VEC_AT(&b->copies, struct ces_cuda_copy, k->first);

                                assert_int_equal(k->count, 1);
                                assert_int_equal(cp->src.rank, r);
                                assert_int_equal(cp->dst.rank, r);
                            }
                        }
                        if (k->kind == CES_CALL_MEMOPS) {
                            uint8_t first = CES_VEC_AT(&b->memops, struct ces_cuda_memop,
                                                       k->first).kind;
                            uint8_t last = CES_VEC_AT(&b->memops, struct ces_cuda_memop,
                                                      k->first + k->count - 1).kind;

                            for (uint32_t m = 0; m < k->count; m++)
                                if (CES_VEC_AT(&b->memops, struct ces_cuda_memop, k->first + m)
                                        .kind == CES_MEMOP_PROGRESS)
                                    assert_false(cap);
                            /* captured: a call that waits is framed by
                             * enter ... exit, and only such a call */
                            assert_int_equal(first == CES_MEMOP_ENTER, cap && k->waits);
                            assert_int_equal(last == CES_MEMOP_EXIT, cap && k->waits);
                            enters += first == CES_MEMOP_ENTER;
                        }
                    }
                    assert_int_equal(ns1, 3);
                    assert_int_equal(s1[0], CES_CALL_AWAIT);
                    assert_int_equal(s1[1], CES_CALL_COPY);
                    assert_int_equal(s1[2], CES_CALL_RECORD);
                    /* eager: the peer copies in one batch call; under
                     * capture never a batch */
                    assert_int_equal(batches, cap ? 0 : 1);
                    /* every captured rank waits at least once */
                    assert_true(cap ? enters >= 1 : enters == 0);
                    ces_cuda_plan_destroy(pl);
                    plans++;
                }
                ces_graph_destroy(g);
            }
        }
    }
    /* 2 collectives x 2 phases x 2 sizes: every rank of 2..8, and each
     * schedule proved (one call and three) */
    assert_int_equal(plans, 2 * 2 * 2 * (2 + 3 + 4 + 5 + 6 + 7 + 8));
    assert_int_equal(proved, 2 * 2 * 2 * 7);
    ces_test_ctx_end(ctx, &st);
}

/* The cache builds calls 1, 2, 3, finds the values linear, and patches call
 * k from them: equal, memop by memop, to the plan built for k. */
static void test_patching(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t ci = 0; ci < sizeof(all_colls) / sizeof(all_colls[0]); ci++) {
        for (int cap = 0; cap < 2; cap++) {
            struct ces_coll_params p;
            struct ces_graph *g[4] = {NULL, NULL, NULL, NULL};
            struct ces_cuda_plan *pl[4] = {NULL, NULL, NULL, NULL};
            static const uint64_t first[4] = {1, 2, 3, 77};
            uint64_t *va, *vb;
            size_t nm;
            unsigned flags = ces_cuda_coll_lower_flags(cap, 1);

            ces_cuda_coll_select(&p, all_colls[ci], 3, 3 * 1000, 1, cap);
            for (int i = 0; i < 4; i++)
                build_lower(ctx, &p, first[i], 1, flags, &g[i], &pl[i]);
            nm = pl[0]->blocks[0].memops.len;
            assert_true(nm > 0);
            va = ces_malloc(ctx, sizeof(uint64_t) * nm);
            vb = ces_malloc(ctx, sizeof(uint64_t) * nm);
            assert_non_null(va);
            assert_non_null(vb);
            assert_int_equal(ces_cuda_plan_linear(pl[0], pl[1], pl[2], va, vb), 1);
            for (size_t i = 0; i < nm; i++) {
                const struct ces_cuda_memop *m =
                    &CES_VEC_AT(&pl[3]->blocks[0].memops, struct ces_cuda_memop, i);
                uint64_t mask = m->kind == CES_MEMOP_WRITE32 || m->kind == CES_MEMOP_WAIT32
                                    ? UINT32_MAX
                                    : UINT64_MAX;

                assert_int_equal(ces_cuda_patched_value(va, vb, i, 77) & mask, m->value & mask);
                /* eager mono counts calls; credit's values never change */
                if (cap && m->kind != CES_MEMOP_PROGRESS)
                    assert_int_equal(vb[i], 0);
                /* the watchdog's enter/exit values are set when issued */
                if (m->kind == CES_MEMOP_ENTER || m->kind == CES_MEMOP_EXIT)
                    assert_true(cap && va[i] == 0 && vb[i] == 0);
            }
            /* a plan of another shape is not a patch of this one */
            if (all_colls[ci] != CES_COLL_BARRIER) {
                struct ces_coll_params q = p;
                struct ces_graph *gq = NULL;
                struct ces_cuda_plan *pq = NULL;

                q.bytes = p.bytes * 2;
                build_lower(ctx, &q, 2, 1, flags, &gq, &pq);
                assert_int_equal(ces_cuda_plan_linear(pl[0], pq, pl[2], va, vb), 0);
                ces_cuda_plan_destroy(pq);
                ces_graph_destroy(gq);
            }
            ces_free(ctx, va);
            ces_free(ctx, vb);
            for (int i = 0; i < 4; i++) {
                ces_cuda_plan_destroy(pl[i]);
                ces_graph_destroy(g[i]);
            }
        }
    }
    ces_test_ctx_end(ctx, &st);
}

/* Rank 0's plan of the one-rank schedule `body` (a stream and signal f
 * u32 x1 declared), eager. */
static struct ces_cuda_plan *text_plan(struct ces_ctx *ctx, const char *body,
                                       struct ces_graph **g)
{
    char text[256];
    struct ces_cuda_plan *pl = NULL;

    snprintf(text, sizeof(text), "cesync 1\nranks 1\nstreams 2\nsignal f u32 1\n"
                                 "phase eager x1\n%s", body);
    *g = ces_test_text_graph(ctx, text);
    assert_int_equal(ces_cuda_lower(ctx, *g, 0, &h200, 0, &pl), CES_OK);
    return pl;
}

/* ces_cuda_plan_linear on plans of its own: u32 values linear modulo 2^32
 * (a wait and a write passing 2^32 - 1 to 0 from call to call) are
 * patched; the same memops issued on another stream are not a patch (the
 * calls differ, not the memops). */
static void test_linear_rules(void **state)
{
    static const char *const wrap[] = {
        "r0 : write f[0] = 4294967294\nr0 : wait f[0] == 4294967294\n",
        "r0 : write f[0] = 4294967295\nr0 : wait f[0] == 4294967295\n",
        "r0 : write f[0] = 0\nr0 : wait f[0] == 0\n",
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g[3];
    struct ces_cuda_plan *pl[3];
    uint64_t va[2], vb[2];

    (void)state;
    for (int k = 0; k < 3; k++)
        pl[k] = text_plan(ctx, wrap[k], &g[k]);
    assert_int_equal(pl[0]->blocks[0].memops.len, 2);
    assert_int_equal(ces_cuda_plan_linear(pl[0], pl[1], pl[2], va, vb), 1);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(va[i], 4294967294u);
        assert_int_equal(vb[i], 1);
        assert_int_equal(ces_cuda_patched_value(va, vb, i, 3) & UINT32_MAX, 0);
    }
    ces_cuda_plan_destroy(pl[1]);
    ces_graph_destroy(g[1]);
    pl[1] = text_plan(ctx, "r0 s1 : write f[0] = 4294967295\nr0 s1 : wait f[0] == 4294967295\n",
                      &g[1]);
    assert_int_equal(pl[1]->blocks[0].memops.len, 2);
    assert_int_equal(ces_cuda_plan_linear(pl[0], pl[1], pl[2], va, vb), 0);
    for (int k = 0; k < 3; k++) {
        ces_cuda_plan_destroy(pl[k]);
        ces_graph_destroy(g[k]);
    }
    ces_test_ctx_end(ctx, &st);
}

/* Which calls run in place, by each rank's own pointers. */
static void test_in_place_relation(void **state)
{
    const uintptr_t r = 0x10000, b = 0x100;

    (void)state;
    /* allgather: send is this rank's block of recv */
    assert_true(ces_cuda_coll_in_place(CES_COLL_ALLGATHER, 0, b, 0, r, r));
    assert_true(ces_cuda_coll_in_place(CES_COLL_ALLGATHER, 2, b, 0, r + 2 * b, r));
    assert_false(ces_cuda_coll_in_place(CES_COLL_ALLGATHER, 2, b, 0, r + b, r));
    assert_false(ces_cuda_coll_in_place(CES_COLL_ALLGATHER, 2, b, 2, r - 2 * b, r));
    /* gather: send is the root's block of recv, on any rank; on a rank but
     * the root its own block too (NCCL's layout: its recv is never written) */
    assert_true(ces_cuda_coll_in_place(CES_COLL_GATHER, 0, b, 3, r + 3 * b, r));
    assert_true(ces_cuda_coll_in_place(CES_COLL_GATHER, 3, b, 3, r + 3 * b, r));
    assert_true(ces_cuda_coll_in_place(CES_COLL_GATHER, 3, b, 0, r + 3 * b, r));
    assert_false(ces_cuda_coll_in_place(CES_COLL_GATHER, 3, b, 0, r + 2 * b, r));
    assert_false(ces_cuda_coll_in_place(CES_COLL_GATHER, 3, b, 0, r - 3 * b, r));
    /* scatter: recv is the root's block of send */
    assert_true(ces_cuda_coll_in_place(CES_COLL_SCATTER, 1, b, 1, r, r + b));
    assert_false(ces_cuda_coll_in_place(CES_COLL_SCATTER, 1, b, 1, r + b, r));
    /* broadcast: send is recv */
    assert_true(ces_cuda_coll_in_place(CES_COLL_BROADCAST, 1, b, 0, r, r));
    assert_false(ces_cuda_coll_in_place(CES_COLL_BROADCAST, 1, b, 0, r, r + b));
    /* never alltoall, never NULL */
    assert_false(ces_cuda_coll_in_place(CES_COLL_ALLTOALL, 0, b, 0, r, r));
    assert_false(ces_cuda_coll_in_place(CES_COLL_BROADCAST, 0, b, 0, 0, 0));
    assert_false(ces_cuda_coll_in_place(CES_COLL_ALLGATHER, 0, b, 0, 0, 0));
    /* the rule that the error for overlapping send and recv adds */
    assert_string_equal(ces_cuda_coll_in_place_rule(CES_COLL_ALLGATHER),
                        "send is recv + rank*bytes");
    assert_string_equal(ces_cuda_coll_in_place_rule(CES_COLL_GATHER),
                        "send is recv + root*bytes, or recv + rank*bytes on a rank but the root");
    assert_string_equal(ces_cuda_coll_in_place_rule(CES_COLL_SCATTER),
                        "recv is send + root*bytes, on every rank");
    assert_string_equal(ces_cuda_coll_in_place_rule(CES_COLL_BROADCAST), "send is recv");
    assert_null(ces_cuda_coll_in_place_rule(CES_COLL_ALLTOALL));
    assert_null(ces_cuda_coll_in_place_rule(CES_COLL_SENDRECV));
    assert_null(ces_cuda_coll_in_place_rule(CES_COLL_BARRIER));
}

/* A lowered copy as addresses: rank and offset (the buffer's offset, by
 * its name, plus the region's) of both ends, and its length. */
struct addr_copy {
    uint32_t src_rank, dst_rank;
    uint64_t src, dst, len;
};

static uint64_t addr_of(const struct ces_graph *g, const struct ces_region *x, uint64_t send,
                        uint64_t recv)
{
    const char *name = ces_graph_buffer(g, x->buf).name;

    assert_true(strcmp(name, "send") == 0 || strcmp(name, "recv") == 0);
    return (strcmp(name, "send") == 0 ? send : recv) + x->lo;
}

/* Whether a copy is one of the wake chain's (within the rank's buffer
 * `wake`). */
static int wake_copy(const struct ces_graph *g, const struct ces_cuda_copy *cp)
{
    int src = strcmp(ces_graph_buffer(g, cp->src.buf).name, "wake") == 0;

    assert_int_equal(strcmp(ces_graph_buffer(g, cp->dst.buf).name, "wake") == 0, src);
    if (src)
        assert_int_equal(cp->src.rank, cp->dst.rank);
    return src;
}

/* The copies of block 0 of pl (graph g) as addresses, those onto
 * themselves left out and counted in *self, the wake chain's left out and
 * counted in *wake. */
static size_t addr_copies(const struct ces_graph *g, const struct ces_cuda_plan *pl,
                          uint64_t send, uint64_t recv, struct addr_copy *out, size_t cap,
                          unsigned *self, unsigned *wake)
{
    const struct ces_cuda_pblock *b = &pl->blocks[0];
    size_t n = 0;

    *self = 0;
    *wake = 0;
    for (size_t i = 0; i < b->copies.len; i++) {
        const struct ces_cuda_copy *cp = &CES_VEC_AT(&b->copies, struct ces_cuda_copy, i);
        struct addr_copy a;

        if (wake_copy(g, cp)) {
            (*wake)++;
            continue;
        }
        a = (struct addr_copy){cp->src.rank, cp->dst.rank, addr_of(g, &cp->src, send, recv),
                               addr_of(g, &cp->dst, send, recv), cp->src.hi - cp->src.lo};

        if (a.src_rank == a.dst_rank && a.src == a.dst) {
            (*self)++;
            continue;
        }
        assert_true(n < cap);
        out[n++] = a;
    }
    return n;
}

static unsigned memop_calls(const struct ces_cuda_pblock *b)
{
    unsigned n = 0;

    for (size_t i = 0; i < b->calls.len; i++)
        n += CES_VEC_AT(&b->calls, struct ces_cuda_call, i).kind == CES_CALL_MEMOPS;
    return n;
}

/* The memops of block bi (graph gi) are those of bo (graph go), op for op,
 * but for the in-flight words' enter and exit writes, which frame each
 * captured memop call: the calls may group the memops differently. */
static void same_memops(const struct ces_graph *go, const struct ces_cuda_pblock *bo,
                        const struct ces_graph *gi, const struct ces_cuda_pblock *bi)
{
    size_t i = 0, o = 0;

    for (;;) {
        const struct ces_cuda_memop *x = NULL, *y = NULL;

        while (o < bo->memops.len &&
               (x = &CES_VEC_AT(&bo->memops, struct ces_cuda_memop, o))->kind >= CES_MEMOP_ENTER)
            o++;
        while (i < bi->memops.len &&
               (y = &CES_VEC_AT(&bi->memops, struct ces_cuda_memop, i))->kind >= CES_MEMOP_ENTER)
            i++;
        assert_int_equal(i < bi->memops.len, o < bo->memops.len);
        if (o == bo->memops.len)
            return;
        assert_int_equal(y->kind, x->kind);
        assert_int_equal(y->cmp, x->cmp);
        assert_int_equal(y->value, x->value);
        assert_int_equal(y->slot.rank, x->slot.rank);
        assert_int_equal(y->slot.idx, x->slot.idx);
        if (x->kind <= CES_MEMOP_WAIT64)
            assert_string_equal(ces_graph_signal(gi, y->slot.sig).name,
                                ces_graph_signal(go, x->slot.sig).name);
        i++;
        o++;
    }
}

/* What a rank issues in place is what it issues out of place at the same
 * pointers, less its copy onto itself: the schedule the backend selects
 * (overlap for allgather; mono eager, pull captured) and the
 * in-place one, lowered for each rank of 2..8 at every root, eager and
 * captured, small and past the split of the barrier behind large copies:
 * the same memops, op for op (the barriers and the watchdog's progress
 * writes: it sees the same waits; only the gather root, which in place
 * copies nothing between its barriers, issues both in one memop call, so
 * captured it frames them with one pair of in-flight writes, not two), and
 * the same copies from the same bytes to the same bytes, in the same
 * order, but for the one local copy out of place (allgather on every rank,
 * the others on the root; on the other ranks of gather, scatter and
 * broadcast, whose pointers satisfy the relation too, nothing changes, nor
 * on those of gather that pass their own block), and but for the wake
 * chain, which the ranks that copy nothing run either way (gather's root in
 * place only).  So any rank may run in place while any other does
 * not. */
static void test_in_place_calls(void **state)
{
    static const uint32_t colls[] = {CES_COLL_ALLGATHER, CES_COLL_GATHER, CES_COLL_SCATTER,
                                     CES_COLL_BROADCAST};
    static const uint64_t sizes[] = {3000, UINT64_C(80) << 20};
    const uint64_t base = UINT64_C(1) << 40;
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    unsigned ranks = 0;

    (void)state;
    for (size_t ci = 0; ci < sizeof(colls) / sizeof(colls[0]); ci++)
        for (int cap = 0; cap < 2; cap++)
            for (size_t si = 0; si < 2; si++)
                for (uint32_t n = 2; n <= 8; n++)
                    for (uint32_t root = 0; root < (colls[ci] == CES_COLL_ALLGATHER ? 1 : n);
                         root++) {
                        uint32_t c = colls[ci];
                        uint64_t C = sizes[si];
                        unsigned flags = ces_cuda_coll_lower_flags(cap, 1);
                        struct ces_coll_params po, pi;
                        struct ces_graph *go = NULL, *gi = NULL;

                        ces_cuda_coll_select(&po, c, n, C, root, cap);
                        pi = po;
                        pi.flags = CES_COLL_F_INPLACE;
                        assert_int_equal(ces_coll_build(ctx, &po, &go), CES_OK);
                        assert_int_equal(ces_coll_build(ctx, &pi, &gi), CES_OK);
                        /* gather twice: the ranks but the root pass the
                         * root's block, then their own */
                        for (uint32_t k = 0; k < (c == CES_COLL_GATHER ? 2 * n : n); k++) {
                            /* the in-place pointers (offsets) of rank r */
                            uint32_t r = k % n, own = k >= n ? r : root;
                            uint64_t recv = c == CES_COLL_SCATTER ? base + root * C : base;
                            uint64_t send = c == CES_COLL_ALLGATHER ? recv + r * C
                                            : c == CES_COLL_GATHER ? recv + own * C
                                                                   : base;
                            struct ces_cuda_plan *plo = NULL, *pli = NULL;
                            const struct ces_cuda_pblock *bo, *bi;
                            struct addr_copy co[16], cin[16];
                            size_t nco, nci;
                            unsigned self_o, self_i, wake_o, wake_i;
                            /* the wake chain: on the ranks that copy
                             * nothing (in place the gather root too) */
                            unsigned chain = c != CES_COLL_ALLGATHER &&
                                                     (c == CES_COLL_GATHER) == (r == root)
                                                 ? ces_cuda_wake_copies(n, C)
                                                 : 0;

                            assert_true(ces_cuda_coll_in_place(c, r, C, root, send, recv));
                            assert_int_equal(ces_cuda_lower(ctx, go, r, &h200, flags, &plo),
                                             CES_OK);
                            assert_int_equal(ces_cuda_lower(ctx, gi, r, &h200, flags, &pli),
                                             CES_OK);
                            bo = &plo->blocks[0];
                            bi = &pli->blocks[0];
                            same_memops(go, bo, gi, bi);
                            /* the gather root, with no copy between its
                             * barriers in place, may issue them in fewer
                             * memop calls (out of place its local copy's
                             * events can part them); every other rank in
                             * as many */
                            if (c == CES_COLL_GATHER && r == root)
                                assert_true(memop_calls(bi) <= memop_calls(bo));
                            else
                                assert_int_equal(memop_calls(bi), memop_calls(bo));
                            nco = addr_copies(go, plo, send, recv, co, 16, &self_o, &wake_o);
                            nci = addr_copies(gi, pli, send, recv, cin, 16, &self_i, &wake_i);
                            assert_int_equal(wake_o, c == CES_COLL_GATHER ? 0 : chain);
                            assert_int_equal(wake_i, chain);
                            assert_int_equal(self_i, 0);
                            assert_int_equal(self_o, c == CES_COLL_ALLGATHER || r == root);
                            assert_int_equal(nci, nco);
                            for (size_t j = 0; j < nco; j++) {
                                assert_int_equal(cin[j].src_rank, co[j].src_rank);
                                assert_int_equal(cin[j].dst_rank, co[j].dst_rank);
                                assert_int_equal(cin[j].src, co[j].src);
                                assert_int_equal(cin[j].dst, co[j].dst);
                                assert_int_equal(cin[j].len, co[j].len);
                            }
                            ces_cuda_plan_destroy(plo);
                            ces_cuda_plan_destroy(pli);
                            ranks++;
                        }
                        ces_graph_destroy(go);
                        ces_graph_destroy(gi);
                    }
    /* 2 x 2 lowerings per rank: allgather 2+...+8 ranks, the others n roots
     * of n ranks, gather twice */
    assert_int_equal(ranks, 2 * 2 * (35 + 4 * 203));
    ces_test_ctx_end(ctx, &st);
}

/* The in-place calls: every rank's plan, eager and captured, 2..8 ranks,
 * every root, at 3,000 bytes and 60 MiB (another wake chain: 2 copies at
 * 3,000 bytes, 49..64 at 60 MiB), runs one stream and copies nothing within
 * the rank but the wake chain of the ranks that copy nothing (one stream
 * more, its copies within the rank's buffer `wake`: gather's root,
 * scatter's and broadcast's other ranks); the schedule is proved OK by the
 * checker for one call and three in a row (three replays when captured),
 * every one of them (the in-place schedules have no local fork, so the
 * size changes only the chain's length); its values are linear in the call
 * number (so the cache patches them). */
static void test_in_place_plans(void **state)
{
    static const uint32_t colls[] = {CES_COLL_ALLGATHER, CES_COLL_GATHER, CES_COLL_SCATTER,
                                     CES_COLL_BROADCAST};
    static const uint64_t sizes[] = {3000, UINT64_C(60) << 20};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    unsigned plans = 0, proved = 0;

    (void)state;
    for (size_t ci = 0; ci < sizeof(colls) / sizeof(colls[0]); ci++)
        for (int cap = 0; cap < 2; cap++)
            for (size_t si = 0; si < 2; si++)
                for (uint32_t n = 2; n <= 8; n++)
                    for (uint32_t root = 0; root < (colls[ci] == CES_COLL_ALLGATHER ? 1 : n);
                         root++) {
                        struct ces_coll_params p;
                        struct ces_graph *g = NULL;
                        unsigned flags = ces_cuda_coll_lower_flags(cap, 1);

                        ces_cuda_coll_select(&p, colls[ci], n, sizes[si], root, cap);
                        p.flags = CES_COLL_F_INPLACE;
                        assert_int_equal(ces_coll_build(ctx, &p, &g), CES_OK);
                        /* the wake chain, but for allgather, on a stream of
                         * its own */
                        assert_int_equal(p.wake, colls[ci] != CES_COLL_ALLGATHER
                                                     ? ces_cuda_wake_copies(n, sizes[si])
                                                     : 0);
                        assert_int_equal(ces_graph_streams(g), p.wake > 0 ? 2 : 1);
                        prove_calls(ctx, &p, g);
                        proved++;
                        for (uint32_t r = 0; r < n; r++) {
                            struct ces_cuda_plan *pl[3] = {NULL, NULL, NULL};
                            struct ces_graph *gk[3] = {NULL, NULL, NULL};
                            const struct ces_cuda_pblock *blk;
                            uint64_t va[64], vb[64];
                            unsigned chain = 0;
                            /* a rank that copies nothing: gather's root, the
                             * other collectives' other ranks */
                            int idle = (colls[ci] == CES_COLL_GATHER) == (r == root);

                            for (int k = 0; k < 3; k++)
                                build_lower(ctx, &p, (uint64_t)k + 1, r, flags, &gk[k], &pl[k]);
                            blk = &pl[0]->blocks[0];
                            assert_int_equal(pl[0]->streams, p.wake > 0 ? 2 : 1);
                            for (size_t i = 0; i < blk->copies.len; i++) {
                                const struct ces_cuda_copy *cp =
                                    &CES_VEC_AT(&blk->copies, struct ces_cuda_copy, i);

                                if (wake_copy(gk[0], cp)) {
                                    assert_int_equal(cp->src.rank, r);
                                    chain++;
                                    continue;
                                }
                                assert_int_equal(cp->src.rank, r);
                                assert_int_not_equal(cp->dst.rank, r);
                            }
                            assert_int_equal(chain, p.wake > 0 && idle ? p.wake : 0);
                            assert_true(blk->memops.len <= 64);
                            assert_int_equal(ces_cuda_plan_linear(pl[0], pl[1], pl[2], va, vb), 1);
                            for (int k = 0; k < 3; k++) {
                                ces_cuda_plan_destroy(pl[k]);
                                ces_graph_destroy(gk[k]);
                            }
                            plans++;
                        }
                        ces_graph_destroy(g);
                    }
    /* per phase and size: allgather 2+...+8 ranks, the others n roots of n
     * ranks (4 + 9 + ... + 64 = 203) */
    assert_int_equal(plans, 2 * 2 * (35 + 3 * 203));
    /* proved: allgather 7 shapes, the others 2 + ... + 8 = 35 roots */
    assert_int_equal(proved, 2 * 2 * (7 + 3 * 35));
    ces_test_ctx_end(ctx, &st);
}

/* Every selected schedule of gather, scatter and broadcast out of place,
 * 2..8 ranks, every root, eager and captured, at 3,000 bytes and 1, 4, 16,
 * 60 and 256 MiB: proved OK by the checker for one call and for three in a
 * row (three replays when captured), every one: so every wake chain the
 * backend selects at these sizes (2..64 copies, 17 lengths, counted
 * below) and the root's local copy forked both before the ready barrier
 * (under 8 MiB, and always captured) and after it (eager from 16 MiB,
 * checked in the root's plan); its streams s0, the root's local copy on
 * s1, and the wake chain on s2 where a rank copies nothing (scatter,
 * broadcast: every rank but the root; gather out of place: none, so two
 * streams); lowered for every rank at every size (from 3 ranks at 60 MiB
 * the root's copies pass 64 MiB, so a barrier splits): the chain's copies,
 * within the rank's `wake`, exactly on the ranks that copy nothing, as
 * many as selected, and no batch call under capture. */
static void test_rooted_plans(void **state)
{
    static const uint32_t colls[] = {CES_COLL_GATHER, CES_COLL_SCATTER, CES_COLL_BROADCAST};
    static const uint64_t sizes[] = {3000,
                                     UINT64_C(1) << 20,
                                     UINT64_C(4) << 20,
                                     UINT64_C(16) << 20,
                                     UINT64_C(60) << 20,
                                     UINT64_C(256) << 20};
    const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    unsigned plans = 0, proved = 0, late = 0, lengths = 0;
    unsigned char chained_at[CES_CUDA_WAKE_MAX_COPIES + 1] = {0};

    (void)state;
    for (size_t ci = 0; ci < sizeof(colls) / sizeof(colls[0]); ci++)
        for (int cap = 0; cap < 2; cap++)
            for (uint32_t n = 2; n <= 8; n++)
                for (uint32_t root = 0; root < n; root++)
                    for (size_t si = 0; si < nsizes; si++) {
                        uint32_t c = colls[ci];
                        int chained = c != CES_COLL_GATHER;
                        struct ces_coll_params p;
                        struct ces_graph *g = NULL;

                        ces_cuda_coll_select(&p, c, n, sizes[si], root, cap);
                        assert_int_equal(p.wake, ces_cuda_wake_copies(n, sizes[si]));
                        assert_true(p.wake >= 1 && p.wake <= CES_CUDA_WAKE_MAX_COPIES);
                        assert_int_equal(ces_coll_build(ctx, &p, &g), CES_OK);
                        assert_int_equal(ces_graph_streams(g), chained ? 3 : 2);
                        prove_calls(ctx, &p, g);
                        proved++;
                        if (chained)
                            chained_at[p.wake] = 1;
                        for (uint32_t r = 0; r < n; r++) {
                            struct ces_cuda_plan *pl = NULL;
                            const struct ces_cuda_pblock *b;
                            unsigned chain = 0, batches = 0;
                            size_t fork = SIZE_MAX, barrier = SIZE_MAX;

                            assert_int_equal(ces_cuda_lower(ctx, g, r, &h200,
                                                            ces_cuda_coll_lower_flags(cap, 1),
                                                            &pl),
                                             CES_OK);
                            b = &pl->blocks[0];
                            for (size_t i = 0; i < b->copies.len; i++) {
                                const struct ces_cuda_copy *cp =
                                    &CES_VEC_AT(&b->copies, struct ces_cuda_copy, i);

                                if (wake_copy(g, cp)) {
                                    assert_int_equal(cp->src.rank, r);
                                    chain++;
                                }
                            }
                            for (size_t i = 0; i < b->calls.len; i++) {
                                const struct ces_cuda_call *k =
                                    &CES_VEC_AT(&b->calls, struct ces_cuda_call, i);

                                batches += k->kind == CES_CALL_COPY_BATCH;
                                /* the root's fork (`record go` on s0) and
                                 * its first barrier call */
                                if (k->stream == 0 && k->kind == CES_CALL_RECORD &&
                                    fork == SIZE_MAX)
                                    fork = i;
                                if (k->kind == CES_CALL_MEMOPS && barrier == SIZE_MAX)
                                    barrier = i;
                            }
                            assert_int_equal(chain, chained && r != root ? p.wake : 0);
                            if (cap)
                                assert_int_equal(batches, 0);
                            /* the root forks its local copy after the ready
                             * barrier exactly when eager from 8 MiB */
                            if (r == root) {
                                int after = !cap && sizes[si] >= (UINT64_C(8) << 20);

                                assert_true(fork != SIZE_MAX && barrier != SIZE_MAX);
                                assert_int_equal(barrier < fork, after);
                                late += after;
                            }
                            ces_cuda_plan_destroy(pl);
                            plans++;
                        }
                        ces_graph_destroy(g);
                    }
    for (uint32_t k = 0; k <= CES_CUDA_WAKE_MAX_COPIES; k++)
        lengths += chained_at[k];
    /* 3 collectives x 2 phases x 6 sizes x (4 + 9 + ... + 64 = 203)
     * rank-roots lowered, (2 + ... + 8 = 35) roots proved (one call and
     * three); the late fork eager at 16, 60 and 256 MiB, on every root */
    assert_int_equal(plans, 3 * 2 * 6 * 203);
    assert_int_equal(proved, 3 * 2 * 6 * 35);
    assert_int_equal(late, 3 * 3 * 35);
    /* the chain lengths proved (scatter, broadcast): 2, 3, 4, 5, 6, 7, 8,
     * 11, 14, 18, 21, 24, 27, 40, 49, 53 and 64 */
    assert_int_equal(lengths, 17);
    assert_true(chained_at[2] && chained_at[CES_CUDA_WAKE_MAX_COPIES]);
    ces_test_ctx_end(ctx, &st);
}

/* The plan of rank r of g, as text. */
static char *plan_text(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t r, int cap)
{
    struct ces_cuda_plan *pl = NULL;
    char *t = NULL;

    assert_int_equal(ces_cuda_lower(ctx, g, r, &h200, ces_cuda_coll_lower_flags(cap, 1), &pl),
                     CES_OK);
    assert_int_equal(ces_cuda_plan_format(ctx, g, pl, &t), CES_OK);
    ces_cuda_plan_destroy(pl);
    return t;
}

/* Under fewer hardware queues than a selected schedule has streams (CUDA_
 * DEVICE_MAX_CONNECTIONS=1, or 2 for the wake chain's three) a call runs
 * the graph with the queues adopted (`connections q`, queue order): every
 * selected schedule, out of place and in place, 2..8 ranks, every root,
 * eager and captured, at 3,000 bytes and 60 MiB (rounded down to a multiple
 * of the ranks, as alltoall needs: on 7 ranks 2996 and 60 MiB - 2), for
 * every q below its streams: the graph declares q, passes the launch's
 * check for q queues, lowers for every rank to the very plan it lowers to
 * with a queue per stream (so a shared-queue call issues what the figures
 * measured), and at 3,000 bytes is proved OK under q for one call and three
 * in a row; and at 3,000 bytes with 2 and 3 ranks, proved OK under every
 * assignment of each rank's streams to hardware queues that CUDA may make
 * (only 2 and 3 ranks: three streams have 5 assignments a rank, 5^n in
 * all). */
static void test_shared_queues(void **state)
{
    static const uint64_t sizes[] = {3000, UINT64_C(60) << 20};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    unsigned lowered = 0, proved = 0, mapped = 0;

    (void)state;
    for (size_t ci = 0; ci < sizeof(all_colls) / sizeof(all_colls[0]); ci++)
        for (int inplace = 0; inplace < 2; inplace++)
            for (int cap = 0; cap < 2; cap++)
                for (uint32_t n = 2; n <= 8; n++)
                    for (uint32_t root = 0; root < n; root++)
                        for (size_t si = 0; si < 2; si++) {
                            uint32_t c = all_colls[ci];
                            int rooted = c == CES_COLL_GATHER || c == CES_COLL_SCATTER ||
                                         c == CES_COLL_BROADCAST;
                            struct ces_coll_params p;
                            struct ces_graph *g = NULL;
                            uint32_t streams;

                            if ((root > 0 && !rooted) ||
                                (inplace && ces_cuda_coll_in_place_rule(c) == NULL))
                                continue;
                            ces_cuda_coll_select(&p, c, n, sizes[si] / n * n, root, cap);
                            if (inplace)
                                p.flags = CES_COLL_F_INPLACE;
                            assert_int_equal(ces_coll_build(ctx, &p, &g), CES_OK);
                            streams = ces_graph_streams(g);
                            for (uint32_t q = 1; q < streams; q++) {
                                struct ces_graph *gq = NULL;

                                assert_int_equal(ces_coll_build(ctx, &p, &gq), CES_OK);
                                assert_int_equal(ces_cuda_queues_check(ctx, gq, q),
                                                 CES_ERR_UNSUPPORTED);
                                assert_int_equal(ces_cuda_queues_adopt(gq, q), CES_OK);
                                assert_int_equal(ces_graph_connections(gq), q);
                                assert_int_equal(ces_cuda_queues_check(ctx, gq, q), CES_OK);
                                for (uint32_t r = 0; r < n; r++) {
                                    char *t0 = plan_text(ctx, g, r, cap);
                                    char *tq = plan_text(ctx, gq, r, cap);

                                    assert_string_equal(tq, t0);
                                    ces_free(ctx, t0);
                                    ces_free(ctx, tq);
                                    lowered++;
                                }
                                if (si == 0) {
                                    struct ces_coll_params p3 = p;
                                    struct ces_graph *g3 = NULL;

                                    assert_int_equal(ces_test_verdict(ctx, gq), CES_V_OK);
                                    p3.iterations = 3;
                                    assert_int_equal(ces_coll_build(ctx, &p3, &g3), CES_OK);
                                    assert_int_equal(ces_cuda_queues_adopt(g3, q), CES_OK);
                                    assert_int_equal(ces_test_verdict(ctx, g3), CES_V_OK);
                                    ces_graph_destroy(g3);
                                    proved++;
                                }
                                ces_graph_destroy(gq);
                            }
                            /* any assignment of the streams to queues that CUDA
                             * may make (2-3 ranks; one call) */
                            if (si == 0 && n <= 3 && streams > 1) {
                                uint32_t map[3 * 3] = {0};
                                struct ces_check_opts o;

                                ces_check_opts_init(&o);
                                o.queue_map = map;
                                do {
                                    struct ces_check_report *r = NULL;

                                    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
                                    assert_int_equal(ces_check_report_verdict(r), CES_V_OK);
                                    ces_check_report_destroy(r);
                                    mapped++;
                                } while (ces_queue_map_next(n, streams, streams, map));
                            }
                            /* as many queues as streams: nothing to adopt */
                            assert_int_equal(ces_cuda_queues_adopt(g, streams), CES_OK);
                            assert_int_equal(ces_graph_connections(g), 0);
                            ces_graph_destroy(g);
                        }
    /* two streams (q = 1): alltoall, allgather, gather out of place, and
     * gather, scatter, broadcast in place; three (q = 1, 2): scatter and
     * broadcast out of place; one: the barrier, allgather in place.  Per
     * phase and size, sum over n of n ranks (x n roots if rooted): 35, 203 */
    assert_int_equal(lowered, 2 * 2 * (35 + 35 + 203 + 2 * 203 + 2 * 203 + 3 * 203));
    /* proved at one size: 7 and 35 shapes per phase, per q */
    assert_int_equal(proved, 2 * (7 + 7 + 35 + 2 * 35 + 2 * 35 + 3 * 35));
    /* per phase, two streams: 2^2 + 2^3 assignments, three: 5^2 + 5^3, times
     * the roots (2 + 3) where rooted: alltoall, allgather, gather out of
     * place, the three in place; scatter and broadcast out of place */
    assert_int_equal(mapped, 2 * ((4 + 8) * 2 + (2 * 4 + 3 * 8) * 4 + (2 * 25 + 3 * 125) * 2));
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_wake_copies),
        cmocka_unit_test(test_env_setting),
        cmocka_unit_test(test_alltoall_plan),
        cmocka_unit_test(test_selected_plans),
        cmocka_unit_test(test_patching),
        cmocka_unit_test(test_linear_rules),
        cmocka_unit_test(test_in_place_relation),
        cmocka_unit_test(test_in_place_plans),
        cmocka_unit_test(test_rooted_plans),
        cmocka_unit_test(test_in_place_calls),
        cmocka_unit_test(test_shared_queues),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
