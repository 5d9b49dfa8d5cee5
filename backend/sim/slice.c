/*
 * backend/sim/slice.c - a schedule without the writes and waits of some of
 * its signals, every stream on a hardware queue of its own.  Its executions
 * include every execution of the schedule, less those ops, and its
 * happens-before is at most the schedule's, so where it shows no RACE and
 * no MISMATCH the schedule shows none (docs/SEMANTICS.md section 10, "Data
 * judged without some signals"); search.c asks that of it.
 */
#include "internal.h"

int ces_sim_copy_tables(const struct ces_graph *g, struct ces_graph *h)
{
    int rc = CES_OK;

    for (uint32_t i = 0; i < ces_graph_nbuffers(g) && rc == CES_OK; i++)
        rc = ces_graph_add_buffer(h, ces_graph_buffer(g, i).name, ces_graph_buffer(g, i).size,
                                  NULL);
    for (uint32_t i = 0; i < ces_graph_nsignals(g) && rc == CES_OK; i++) {
        struct ces_signal_info si = ces_graph_signal(g, i);

        rc = ces_graph_add_signal(h, si.name, si.width, si.slots, NULL);
    }
    for (uint32_t i = 0; i < ces_graph_nevents(g) && rc == CES_OK; i++)
        rc = ces_graph_add_event(h, ces_graph_event(g, i), NULL);
    for (uint32_t i = 0; i < ces_graph_nconsts(g) && rc == CES_OK; i++) {
        int64_t v;
        const char *name = ces_graph_const(g, i, &v);

        rc = ces_graph_add_const(h, name, v);
    }
    return rc;
}

bool ces_sim_slot_op(const struct ces_op *op, uint64_t drop)
{
    return (op->kind == CES_OP_WRITE || op->kind == CES_OP_WAIT) && op->slot.sig < 64 &&
           ((drop >> op->slot.sig) & 1u);
}

int ces_sim_slice(struct ces_ctx *ctx, const struct ces_graph *g, uint64_t drop,
                  struct ces_graph **out)
{
    struct ces_graph *h = NULL;
    int rc = ces_graph_create(ctx, ces_graph_ranks(g), ces_graph_streams(g), &h);

    if (rc == CES_OK)
        rc = ces_sim_copy_tables(g, h);
    for (uint32_t b = 0; b < ces_graph_nblocks(g) && rc == CES_OK; b++) {
        struct ces_block_info bi = ces_graph_block(g, b);

        rc = ces_graph_add_block(h, bi.kind, bi.reps);
        for (uint32_t r = 0; r < ces_graph_ranks(g) && rc == CES_OK; r++) {
            uint32_t n;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

            for (uint32_t i = 0; i < n && rc == CES_OK; i++)
                if (!ces_sim_slot_op(&ops[i], drop))
                    rc = ces_graph_add_op(h, r, &ops[i]);
        }
    }
    if (rc == CES_OK)
        rc = ces_graph_validate(h, NULL);
    if (rc != CES_OK) {
        ces_graph_destroy(h);
        h = NULL;
    }
    *out = h;
    return rc;
}
