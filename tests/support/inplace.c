/*
 * tests/support/inplace.c - what "in place" means, said once for the
 * tests: an out-of-place collective in which some ranks run in place.
 *
 * On a rank in place the region that holds its own part out of place is
 * the block where that part belongs (allgather: any rank's send is its
 * block of recv; gather: the root's send is its block of recv; scatter:
 * the root's recv is its block of send; broadcast: the root's send is its
 * recv).  Renaming that region there turns the rank's local copy into a
 * copy onto itself, which goes away; nothing else changes.  So with every
 * rank in place this is what the in-place builder must write, op for op,
 * and with some ranks in place it is the mix that the CUDA backend lets
 * the ranks choose.
 */
#include "ces_test.h"

#include <string.h>

/* Rank q's alias: the buffer `from` is, from `shift` on, the buffer `to`;
 * from = -1 where q keeps its regions. */
struct alias {
    int64_t from, to;
    uint64_t shift;
};

static void move(const struct alias *al, uint32_t ranks, struct ces_region *x)
{
    const struct alias *a;

    if (x->rank >= ranks)
        return;
    a = &al[x->rank];
    if (a->from < 0 || (int64_t)x->buf != a->from)
        return;
    x->buf = (uint32_t)a->to;
    x->lo += a->shift;
    x->hi += a->shift;
}

static int same_region(const struct ces_region *x, const struct ces_region *y)
{
    return x->buf == y->buf && x->rank == y->rank && x->lo == y->lo && x->hi == y->hi;
}

void ces_test_copy_tables(const struct ces_graph *out, struct ces_graph *g)
{
    for (uint32_t i = 0; i < ces_graph_nbuffers(out); i++) {
        struct ces_buffer_info b = ces_graph_buffer(out, i);

        assert_int_equal(ces_graph_add_buffer(g, b.name, b.size, NULL), CES_OK);
    }
    for (uint32_t i = 0; i < ces_graph_nsignals(out); i++) {
        struct ces_signal_info s = ces_graph_signal(out, i);

        assert_int_equal(ces_graph_add_signal(g, s.name, s.width, s.slots, NULL), CES_OK);
    }
    for (uint32_t i = 0; i < ces_graph_nevents(out); i++)
        assert_int_equal(ces_graph_add_event(g, ces_graph_event(out, i), NULL), CES_OK);
    for (uint32_t i = 0; i < ces_graph_nconsts(out); i++) {
        int64_t v;
        const char *name = ces_graph_const(out, i, &v);

        assert_int_equal(ces_graph_add_const(g, name, v), CES_OK);
    }
}

struct ces_graph *ces_test_in_place_on(struct ces_ctx *ctx, const struct ces_coll_params *p,
                                       uint64_t mask)
{
    struct ces_coll_params q = *p;
    struct ces_graph *out = NULL, *g = NULL;
    struct alias al[64];
    uint32_t n = p->ranks;

    assert_true(n <= 64);
    q.flags &= ~CES_COLL_F_INPLACE;
    if (ces_coll_build(ctx, &q, &out) != CES_OK)
        fail_msg("build: %s", ces_ctx_last_error(ctx));
    for (uint32_t r = 0; r < n; r++) {
        int here = (mask >> r & 1u) && (p->coll == CES_COLL_ALLGATHER || r == p->root);
        int scatter = p->coll == CES_COLL_SCATTER;

        al[r].from = here ? ces_graph_find_buffer(out, scatter ? "recv" : "send") : -1;
        al[r].to = ces_graph_find_buffer(out, scatter ? "send" : "recv");
        al[r].shift = p->coll == CES_COLL_BROADCAST ? 0 : (uint64_t)r * p->bytes;
    }
    assert_int_equal(ces_graph_create(ctx, n, ces_graph_streams(out), &g), CES_OK);
    assert_int_equal(ces_graph_set_connections(g, ces_graph_connections(out)), CES_OK);
    ces_test_copy_tables(out, g);
    for (uint32_t b = 0; b < ces_graph_nblocks(out); b++) {
        struct ces_block_info bi = ces_graph_block(out, b);

        assert_int_equal(ces_graph_add_block(g, bi.kind, bi.reps), CES_OK);
        for (uint32_t r = 0; r < n; r++) {
            uint32_t nops = 0;
            const struct ces_op *ops = ces_graph_ops(out, b, r, &nops);
            const struct ces_op *batch = NULL; /* a batch not yet added: empty so far */

            for (uint32_t k = 0; k < nops; k++) {
                struct ces_op op = ops[k];

                if (op.kind == CES_OP_COPY || op.kind == CES_OP_PRODUCE ||
                    op.kind == CES_OP_CONSUME)
                    move(al, n, &op.a);
                if (op.kind == CES_OP_COPY ||
                    (op.kind == CES_OP_CONSUME && (op.flags & CES_OPF_EXPECT)))
                    move(al, n, &op.b);
                if (op.kind == CES_OP_BATCH) {
                    batch = &ops[k];
                    continue;
                }
                if ((op.kind == CES_OP_END && batch != NULL) ||
                    (op.kind == CES_OP_COPY && same_region(&op.a, &op.b))) {
                    if (op.kind == CES_OP_END)
                        batch = NULL;
                    continue;
                }
                if (batch != NULL)
                    assert_int_equal(ces_graph_add_op(g, r, batch), CES_OK);
                batch = NULL;
                assert_int_equal(ces_graph_add_op(g, r, &op), CES_OK);
            }
        }
    }
    ces_graph_destroy(out);
    if (ces_graph_validate(g, NULL) != CES_OK)
        fail_msg("in place on 0x%llx: %s", (unsigned long long)mask, ces_ctx_last_error(ctx));
    return g;
}
