/*
 * tests/sim/test_state.c - the checker's state value: the fingerprint kept
 * with cached sums (slot clocks) and per-map hashes equals the one computed
 * from scratch after every step of many random executions (writes to
 * every rank's slot, rewritten slots, copies, produces, consumes, events, two
 * streams); copies hash equally; different states hash differently;
 * forgetting what nothing will read commutes with every step; the model's
 * op records say each op's position as a walk of the graph does.
 */
#include "ces_test.h"
#include "../../backend/sim/internal.h"

#include <stdlib.h>
#include <string.h>

static struct ces_graph *busy(struct ces_ctx *ctx)
{
    struct ces_graph *g = NULL;

    assert_int_equal(ces_graph_create(ctx, 3, 2, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "a", 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "b", 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U32, 3, NULL), CES_OK);
    assert_int_equal(ces_graph_add_event(g, "e", NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    for (uint32_t r = 0; r < 3; r++) {
        for (uint32_t k = 0; k < 3; k++) {
            struct ces_op pr = {.kind = CES_OP_PRODUCE, .a = {0, r, 16 * k, 16 * k + 16}};
            struct ces_op w = {.kind = CES_OP_WRITE, .slot = {0, (r + 1) % 3, r}, .value = k + 1};
            struct ces_op mc = {.kind = CES_OP_WRITE, .stream = 1,
                                .slot = {0, CES_RANK_ALL, 2}, .value = 10 * r + k};
            struct ces_op wt = {.kind = CES_OP_WAIT, .cmp = CES_CMP_GEQ,
                                .slot = {0, r, (r + 2) % 3}, .value = k + 1};
            struct ces_op cp = {.kind = CES_OP_COPY, .stream = 1,
                                .a = {0, (r + 2) % 3, 16 * k, 16 * k + 8},
                                .b = {1, r, 8 * k, 8 * k + 8}};
            struct ces_op co = {.kind = CES_OP_CONSUME, .a = {1, r, 0, 24}};
            struct ces_op rec = {.kind = CES_OP_RECORD, .event = 0};
            struct ces_op aw = {.kind = CES_OP_AWAIT, .stream = 1, .event = 0};

            assert_int_equal(ces_graph_add_op(g, r, &pr), CES_OK);
            assert_int_equal(ces_graph_add_op(g, r, &w), CES_OK);
            assert_int_equal(ces_graph_add_op(g, r, &rec), CES_OK);
            assert_int_equal(ces_graph_add_op(g, r, &aw), CES_OK);
            assert_int_equal(ces_graph_add_op(g, r, &mc), CES_OK);
            assert_int_equal(ces_graph_add_op(g, r, &wt), CES_OK);
            assert_int_equal(ces_graph_add_op(g, r, &cp), CES_OK);
            assert_int_equal(ces_graph_add_op(g, r, &co), CES_OK);
        }
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    return g;
}

/* Steps after the last data access that can conflict (every clock dead):
 * writes, waits, records and awaits, phases' boundaries, writes to slots
 * no wait is left on. */
static struct ces_graph *tail(struct ces_ctx *ctx)
{
    return ces_test_text_graph(ctx, "cesync 1\nranks 2\nstreams 2\nbuffer src 32\n"
                                    "buffer dst 32\nsignal flag u64 2\nsignal done u64 2\n"
                                    "phase eager x2\nr* : produce src[0:32]\n"
                                    "r* : record staged\nr* s1 : await staged\n"
                                    "r* s1 : copy src[0:32] -> dst[0:32]@(1-$r)\n"
                                    "r* s1 : write flag[$r]@(1-$r) = $i\n"
                                    "r* : wait flag[1-$r] >= $i\n"
                                    "r* : consume dst[0:32] == src[0:32]@(1-$r)\n"
                                    "phase eager x1\nr* : write done[$r]@(1-$r) = 1\n"
                                    "r* : record tail\nr* s1 : await tail\n"
                                    "r* s1 : write done[$r] = 2\nr* s1 : write flag[$r] = 9\n"
                                    "r* : wait done[1-$r] >= 1\nr* s1 : wait done[$r] >= 2\n"
                                    "phase eager x1\nr* : write done[$r] = 3\n");
}

static void test_cached_hash_equals_full(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = busy(ctx);
    struct ces_check_opts o;
    struct sim_model *m = NULL;
    uint64_t rng = 12345, steps = 0;

    (void)state;
    ces_check_opts_init(&o);
    assert_int_equal(ces_sim_model_build(ctx, g, &o, ces_graph_streams(g), &m, NULL), CES_OK);
    m->hashed = true;
    for (int run = 0; run < 40; run++) {
        struct sim_state s = {0}, c = {0};
        uint32_t en[16];

        assert_int_equal(ces_sim_state_init(m, &s), CES_OK);
        for (;;) {
            uint32_t ne = 0;
            uint64_t a[2], b[2];

            ces_sim_state_hash(m, &s, a);
            ces_sim_state_hash_full(m, &s, b);
            assert_memory_equal(a, b, sizeof(a));
            for (uint32_t p = 0; p < m->nproc; p++) {
                int stt = ces_sim_status(m, &s, p);

                if (stt == SIM_S_VISIBLE || stt == SIM_S_INVISIBLE)
                    en[ne++] = p;
            }
            if (ne == 0)
                break;
            rng = rng * 6364136223846793005u + 1442695040888963407u;
            assert_int_equal(ces_sim_exec(m, &s, en[(rng >> 33) % ne], NULL), CES_OK);
            steps++;
            if ((rng >> 20) % 5 == 0) {
                /* a copy carries the caches along */
                assert_int_equal(ces_sim_state_copy(m, &c, &s), CES_OK);
                ces_sim_state_hash(m, &c, b);
                ces_sim_state_hash(m, &s, a);
                assert_memory_equal(a, b, sizeof(a));
            }
        }
        ces_sim_state_free(m, &s);
        if (c.w != NULL)
            ces_sim_state_free(m, &c);
    }
    assert_true(steps > 40 * 20);
    ces_sim_model_destroy(m);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_different_states_differ(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = busy(ctx);
    struct ces_check_opts o;
    struct sim_model *m = NULL;
    struct sim_state s = {0}, t = {0};
    uint64_t a[2], b[2];

    (void)state;
    ces_check_opts_init(&o);
    assert_int_equal(ces_sim_model_build(ctx, g, &o, ces_graph_streams(g), &m, NULL), CES_OK);
    m->hashed = true;
    assert_int_equal(ces_sim_state_init(m, &s), CES_OK);
    assert_int_equal(ces_sim_state_init(m, &t), CES_OK);
    ces_sim_state_hash(m, &s, a);
    ces_sim_state_hash(m, &t, b);
    assert_memory_equal(a, b, sizeof(a));
    /* r0.s0 produces then writes; r1.s0 produces: same content either order */
    assert_int_equal(ces_sim_exec(m, &s, 0, NULL), CES_OK);
    assert_int_equal(ces_sim_exec(m, &s, 2, NULL), CES_OK);
    assert_int_equal(ces_sim_exec(m, &t, 2, NULL), CES_OK);
    ces_sim_state_hash(m, &s, a);
    ces_sim_state_hash(m, &t, b);
    assert_memory_not_equal(a, b, sizeof(a));
    assert_int_equal(ces_sim_exec(m, &t, 0, NULL), CES_OK);
    ces_sim_state_hash(m, &t, b);
    assert_memory_equal(a, b, sizeof(a));
    /* a write changes the slot value and its clock */
    assert_int_equal(ces_sim_exec(m, &t, 0, NULL), CES_OK);
    ces_sim_state_hash(m, &t, b);
    assert_memory_not_equal(a, b, sizeof(a));
    /* a record's clock enters the hash (through the sums the cached hash
     * keeps: the full hash, which recomputes them, must see it) */
    assert_true(m->nrec > 0);
    assert_int_equal(ces_sim_state_copy(m, &s, &t), CES_OK);
    ces_sim_state_hash_full(m, &t, a);
    assert_non_null(ces_sim_rclk_own(m, &s, m->nrec - 1));
    ces_sim_rclk_own(m, &s, m->nrec - 1)[m->nproc - 1] += 1;
    ces_sim_state_hash_full(m, &s, b);
    assert_memory_not_equal(a, b, sizeof(a));
    ces_sim_state_free(m, &s);
    ces_sim_state_free(m, &t);
    ces_sim_model_destroy(m);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* Whether the record clocks of a and b are equal. */
static bool same_rclk(const struct sim_model *m, const struct sim_state *a,
                      const struct sim_state *b)
{
    for (uint32_t x = 0; x < m->nrec; x++)
        if (memcmp(ces_sim_rclk(m, a, x), ces_sim_rclk(m, b, x), m->nproc * sizeof(uint32_t)))
            return false;
    return true;
}

static void assert_same_state(const struct sim_model *m, const struct sim_state *a,
                              const struct sim_state *b)
{
    assert_memory_equal(a->w, b->w, m->w_fixed * sizeof(uint32_t));
    assert_true(same_rclk(m, a, b));
    for (uint32_t i = 0; i < m->nmaps; i++) {
        assert_int_equal(a->maps[i].n, b->maps[i].n);
        if (a->maps[i].n > 0)
            assert_memory_equal(a->maps[i].seg, b->maps[i].seg,
                                (size_t)a->maps[i].n * m->seg_w * sizeof(uint32_t));
    }
}

/* The words of two states but the sums that stand for the clocks in the
 * hash. */
static void assert_same_but_sums(const struct sim_model *m, const struct sim_state *a,
                                 const struct sim_state *b)
{
    size_t hs = m->w_hsum;

    assert_memory_equal(a->w, b->w, hs * sizeof(uint32_t));
    assert_memory_equal(a->w + hs + 4, b->w + hs + 4, (m->w_fixed - hs - 4) * sizeof(uint32_t));
    assert_true(same_rclk(m, a, b));
    for (uint32_t i = 0; i < m->nmaps; i++) {
        assert_int_equal(a->maps[i].n, b->maps[i].n);
        if (a->maps[i].n > 0)
            assert_memory_equal(a->maps[i].seg, b->maps[i].seg,
                                (size_t)a->maps[i].n * m->seg_w * sizeof(uint32_t));
    }
}

/* Forgetting what nothing will read commutes with every step: along random
 * executions, the state the step function keeps canonical (states hashed)
 * equals the canonical form, from scratch, of the state never made
 * canonical (states not hashed), is left as it is by that form, and its
 * cached fingerprint equals the one computed from scratch.  Some steps do
 * change it (clocks floored, slots nobody waits on cleared). */
static void canon_commutes(struct ces_graph *(*build)(struct ces_ctx *ctx))
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = build(ctx);
    struct ces_check_opts o;
    struct sim_model *m = NULL;
    uint64_t rng = 777, steps = 0, changed = 0;

    ces_check_opts_init(&o);
    assert_int_equal(ces_sim_model_build(ctx, g, &o, ces_graph_streams(g), &m, NULL), CES_OK);
    for (int run = 0; run < 40; run++) {
        struct sim_state s = {0}, c = {0}, t = {0};
        uint32_t en[16];

        assert_int_equal(ces_sim_state_init(m, &s), CES_OK);
        assert_int_equal(ces_sim_state_init(m, &c), CES_OK);
        for (;;) {
            uint32_t ne = 0, p;
            uint64_t a[2], b[2];

            for (uint32_t q = 0; q < m->nproc; q++) {
                int stt = ces_sim_status(m, &s, q);

                assert_int_equal(ces_sim_status(m, &c, q), stt);
                if (stt == SIM_S_VISIBLE || stt == SIM_S_INVISIBLE)
                    en[ne++] = q;
            }
            if (ne == 0)
                break;
            rng = rng * 6364136223846793005u + 1442695040888963407u;
            p = en[(rng >> 33) % ne];
            m->hashed = false;
            assert_int_equal(ces_sim_exec(m, &s, p, NULL), CES_OK);
            m->hashed = true;
            assert_int_equal(ces_sim_exec(m, &c, p, NULL), CES_OK);
            assert_int_equal(ces_sim_state_copy(m, &t, &s), CES_OK);
            ces_sim_state_canon(m, &t);
            changed += memcmp(t.w, s.w, m->w_fixed * sizeof(uint32_t)) != 0 ||
                       !same_rclk(m, &t, &s);
            assert_same_but_sums(m, &t, &c);
            assert_int_equal(ces_sim_state_copy(m, &t, &c), CES_OK);
            ces_sim_state_canon(m, &t);
            assert_same_state(m, &t, &c);
            ces_sim_state_hash(m, &c, a);
            ces_sim_state_hash_full(m, &c, b);
            assert_memory_equal(a, b, sizeof(a));
            steps++;
        }
        assert_int_equal(SIM_FLAGS(&s), SIM_FLAGS(&c));
        ces_sim_state_free(m, &s);
        ces_sim_state_free(m, &c);
        ces_sim_state_free(m, &t);
    }
    assert_true(steps > 40 * 20);
    assert_true(changed > steps / 4);
    ces_sim_model_destroy(m);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_canon_commutes_with_steps(void **state)
{
    (void)state;
    canon_commutes(busy);
    canon_commutes(tail);
}

/* 16 streams of one rank, each producing its part of a buffer in every
 * one of K replays of a graph phase, then stream 1 copying stream 0's part:
 * every stream's last op of a replay keeps its clock for the 15 links of
 * the next one, 16 record clocks a replay, and the clocks stay live to the
 * end. */
static struct ces_graph *linked(struct ces_ctx *ctx, uint32_t reps)
{
    struct ces_graph *g = NULL;
    struct ces_op cp = {.kind = CES_OP_COPY, .stream = 1, .a = {0, 0, 0, 4},
                        .b = {0, 0, 64, 68}};

    assert_int_equal(ces_graph_create(ctx, 1, 16, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, "a", 128, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_GRAPH, reps), CES_OK);
    for (uint32_t k = 0; k < 16; k++) {
        struct ces_op pr = {.kind = CES_OP_PRODUCE, .stream = k, .a = {0, 0, 4 * k, 4 * k + 4}};

        assert_int_equal(ces_graph_add_op(g, 0, &pr), CES_OK);
    }
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    assert_int_equal(ces_graph_add_op(g, 0, &cp), CES_OK);
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    return g;
}

/* Runs the lowest enabled process of s n times (fewer at an end state). */
static int run_lowest(const struct sim_model *m, struct sim_state *s, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = 0;

        while (p < m->nproc && ces_sim_status(m, s, p) != SIM_S_VISIBLE &&
               ces_sim_status(m, s, p) != SIM_S_INVISIBLE)
            p++;
        if (p == m->nproc)
            return CES_OK;
        if (ces_sim_exec(m, s, p, NULL) != CES_OK)
            return CES_ERR_NOMEM;
    }
    return CES_OK;
}

/* The record clocks are kept in pages that copies of a state share until
 * one of them writes: a copy holds no page of its own, the pages it writes
 * become its own while the state it was copied from keeps its clocks, and
 * every page is counted once in *m->rheld, let go with the last state
 * holding it; over more than one directory of pages (2,500 replays of 16
 * record clocks, 32,768 a directory at 16 streams). */
static void test_rclk_pages_shared(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = linked(ctx, 2500);
    struct ces_check_opts o;
    struct sim_model *m = NULL;
    struct sim_state s = {0}, c = {0};
    uint32_t *before, later = 0;
    uint64_t a[2], b[2];
    size_t held;

    (void)state;
    ces_check_opts_init(&o);
    assert_int_equal(ces_sim_model_build(ctx, g, &o, ces_graph_streams(g), &m, NULL), CES_OK);
    m->hashed = true;
    assert_int_equal(m->nrec, 16 * 2499 + 15); /* (the copy's links: 15 more) */
    assert_true(m->nrdir >= 2);
    assert_int_equal(ces_sim_state_init(m, &s), CES_OK);
    assert_int_equal(*m->rheld, 0);
    assert_int_equal(run_lowest(m, &s, 16 * 2100), CES_OK);
    held = *m->rheld;
    assert_true(held > 0);
    assert_int_equal(ces_sim_state_copy(m, &c, &s), CES_OK);
    assert_int_equal(*m->rheld, held);
    before = malloc((size_t)m->nrec * m->nproc * sizeof(uint32_t));
    assert_non_null(before);
    for (uint32_t x = 0; x < m->nrec; x++)
        memcpy(before + (size_t)x * m->nproc, ces_sim_rclk(m, &s, x),
               m->nproc * sizeof(uint32_t));
    /* the copy runs on into the second directory */
    assert_int_equal(run_lowest(m, &c, 16 * 300), CES_OK);
    assert_true(*m->rheld > held);
    for (uint32_t x = 0; x < m->nrec; x++) {
        assert_memory_equal(before + (size_t)x * m->nproc, ces_sim_rclk(m, &s, x),
                            m->nproc * sizeof(uint32_t));
        later += memcmp(ces_sim_rclk(m, &s, x), m->rzero, m->nproc * sizeof(uint32_t)) == 0 &&
                 memcmp(ces_sim_rclk(m, &c, x), m->rzero, m->nproc * sizeof(uint32_t)) != 0;
    }
    assert_int_equal(later, 16 * 300); /* (the replays' last ops the copy ran on) */
    ces_sim_state_hash(m, &c, a);
    ces_sim_state_hash_full(m, &c, b);
    assert_memory_equal(a, b, sizeof(a));
    ces_sim_state_hash(m, &s, a);
    ces_sim_state_hash_full(m, &s, b);
    assert_memory_equal(a, b, sizeof(a));
    /* at its end every clock is dead: the copy lets its pages go */
    assert_int_equal(run_lowest(m, &c, UINT32_MAX), CES_OK);
    assert_int_equal(SIM_PC(m, &c)[1], m->len[1]);
    assert_int_equal(*m->rheld, held);
    ces_sim_state_free(m, &c);
    assert_int_equal(*m->rheld, held);
    ces_sim_state_free(m, &s);
    assert_int_equal(*m->rheld, 0);
    free(before);
    ces_sim_model_destroy(m);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* A step whose record clock's page (or directory) is shared or not there
 * yet allocates it: where that fails, the step says CES_ERR_NOMEM and the
 * states hold nothing the last free leaves. */
static int rclk_body(struct ces_ctx *ctx, void *arg)
{
    struct ces_check_opts o;
    struct sim_model *m = NULL;
    struct sim_state s = {0}, c = {0};
    int rc;

    ces_check_opts_init(&o);
    rc = ces_sim_model_build(ctx, arg, &o, ces_graph_streams(arg), &m, NULL);
    if (rc != CES_OK)
        return rc;
    m->hashed = true;
    rc = ces_sim_state_init(m, &s);
    if (rc == CES_OK)
        rc = run_lowest(m, &s, 40);
    if (rc == CES_OK)
        rc = ces_sim_state_copy(m, &c, &s);
    if (rc == CES_OK)
        rc = run_lowest(m, &c, 40);
    if (rc == CES_OK)
        rc = run_lowest(m, &s, UINT32_MAX);
    if (rc != CES_OK)
        ces_ctx_error(ctx, rc, "out of memory");
    if (c.w != NULL)
        ces_sim_state_free(m, &c);
    if (s.w != NULL)
        ces_sim_state_free(m, &s);
    ces_sim_model_destroy(m);
    return rc;
}

static void test_rclk_alloc_failures(void **state)
{
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g;

    (void)state;
    assert_int_equal(ces_ctx_create(NULL, &ctx), CES_OK);
    g = linked(ctx, 6);
    assert_true(ces_test_alloc_failures(rclk_body, g) > 5);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
}

/* Graph phases of several replays between eager ones, two streams with
 * different counts of ops a replay, one without ops in some blocks, events
 * recorded and awaited, and consumes of expected data: an op's replay and
 * iteration come from its process's graph blocks (m->greps), an await's
 * record from m->awrec, a consume's runs from m->exp_at. */
static const char *replays_text =
    "cesync 1\nranks 2\nstreams 2\nbuffer x 64\nbuffer y 64\n"
    "phase graph x3\nr* : produce x[0:64]\nr* : record e\nr* s1 : await e\n"
    "r* s1 : copy x[0:32] -> y[0:32]\nr* s1 : record f\n"
    "phase eager x2\nr* s1 : produce y[32:64]\n"
    "phase graph x4\nr* : await f\nr* : consume y[0:32] == x[0:32]\n"
    "r* : produce x[0:64]\nr* s1 : record g\nr1 : await g\n"
    "phase graph x1\nr0 : consume y[32:64] == y[32:64]\n"
    "phase graph x5\nr* s1 : produce y[0:16]\nr* s1 : consume y[0:16] == y[0:16]\n";

static void test_op_positions(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = ces_test_text_graph(ctx, replays_text);
    struct ces_check_opts o;
    struct sim_model *m = NULL;
    uint32_t nb = ces_graph_nblocks(g), awaits = 0, consumes = 0;

    (void)state;
    ces_check_opts_init(&o);
    assert_int_equal(ces_sim_model_build(ctx, g, &o, ces_graph_streams(g), &m, NULL), CES_OK);
    for (uint32_t r = 0; r < 2; r++) {
        /* each event's latest record on the rank, by enqueue order */
        uint32_t pos[2] = {0, 0}, rec[3][2];

        memset(rec, 0xff, sizeof(rec));
        for (uint32_t b = 0; b < nb; b++) {
            struct ces_block_info bi = ces_graph_block(g, b);
            uint32_t n;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

            for (uint32_t j = 0; j < bi.reps; j++) {
                for (uint32_t i = 0; i < n; i++) {
                    uint32_t s = ops[i].stream, p = r * 2 + s, k = pos[s]++;
                    const struct sim_op *so = &m->ops[p][k];
                    struct ces_check_pos at;

                    ces_sim_pos(m, p, k, &at);
                    assert_int_equal(at.block, b);
                    assert_int_equal(at.rep, j);
                    assert_int_equal(at.op, i);
                    assert_int_equal(at.iteration, bi.first_iter + j);
                    assert_int_equal(ces_sim_op_iter(m, p, k), bi.first_iter + j);
                    assert_ptr_equal(so->op, &ops[i]);
                    if (ops[i].kind == CES_OP_RECORD) {
                        rec[ops[i].event][0] = p;
                        rec[ops[i].event][1] = k;
                    } else if (ops[i].kind == CES_OP_AWAIT) {
                        assert_int_equal(so->cls, SIM_C_AWAIT);
                        assert_int_equal(ces_sim_await_rec(m, so)->proc, rec[ops[i].event][0]);
                        assert_int_equal(ces_sim_await_rec(m, so)->pos, rec[ops[i].event][1]);
                        awaits++;
                    } else if (ops[i].kind == CES_OP_CONSUME) {
                        /* one run each: the bytes' one produce before it,
                         * or none (generation 0) */
                        assert_int_equal(m->exp_at[so->aux + 1] - m->exp_at[so->aux], 1);
                        consumes++;
                    }
                }
            }
        }
        assert_int_equal(pos[0], m->len[r * 2]);
        assert_int_equal(pos[1], m->len[r * 2 + 1]);
    }
    assert_int_equal(awaits, m->nawait);
    assert_int_equal(awaits, 2 * 3 + 2 * 4 + 4);
    assert_int_equal(consumes, 2 * 4 + 1 + 2 * 5);
    ces_sim_model_destroy(m);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static int positions_body(struct ces_ctx *ctx, void *arg)
{
    struct ces_check_opts o;
    struct sim_model *m = NULL;
    int rc;

    ces_check_opts_init(&o);
    rc = ces_sim_model_build(ctx, arg, &o, ces_graph_streams(arg), &m, NULL);
    ces_sim_model_destroy(m);
    return rc;
}

/* The model of that schedule with each of its allocations failing in turn
 * (the graph blocks', the awaits' and the consumes' tables among them). */
static void test_op_positions_alloc_failures(void **state)
{
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g;

    (void)state;
    assert_int_equal(ces_ctx_create(NULL, &ctx), CES_OK);
    g = ces_test_text_graph(ctx, replays_text);
    assert_true(ces_test_alloc_failures(positions_body, g) > 20);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cached_hash_equals_full),
        cmocka_unit_test(test_different_states_differ),
        cmocka_unit_test(test_canon_commutes_with_steps),
        cmocka_unit_test(test_rclk_pages_shared),
        cmocka_unit_test(test_rclk_alloc_failures),
        cmocka_unit_test(test_op_positions),
        cmocka_unit_test(test_op_positions_alloc_failures),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
