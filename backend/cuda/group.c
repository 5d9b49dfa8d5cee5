/*
 * backend/cuda/group.c - the graph of a point-to-point group (ces_send /
 * ces_recv between ces_group_start and ces_group_end), built from what every
 * rank declared.  Pure, like the lowering: tested and model-checked on the
 * CPU (tests/cuda/test_lower.c).
 */
#include "lower.h"

#include <assert.h>
#include <inttypes.h>
#include <string.h>

static const struct ces_p2p_desc *group_find(const struct ces_p2p_table *t, uint32_t rank, uint32_t peer,
                                         uint32_t send)
{
    for (uint64_t i = 1; i <= t->d[rank][0].bytes; i++)
        if (t->d[rank][i].peer == peer && t->d[rank][i].send == send)
            return &t->d[rank][i];
    return NULL;
}

/* Checks that every send has its receive (same size) and builds the group's
 * graph over one buffer `mem` that spans the stride, so that any symmetric
 * offsets can be named.  Per rank: post every receive (write posted), wait
 * until every receiver posted, one batch of copies, announce them (write done,
 * a later stream op than the batch), wait for every incoming message.  Flags
 * are written into the peer's memory and awaited locally: polling them in
 * the writer's memory instead (as the mono barrier does) made the one-way
 * group 3-4 us slower from 1 to 16 MiB on 2x H200 (docs/PERFORMANCE.md).  No
 * wait depends on a later op of another rank, so no order of the declared
 * sends and receives can deadlock. */
int ces_cuda_group_graph(struct ces_ctx *ctx, uint32_t n, uint64_t stride,
                         const struct ces_p2p_table *t, uint64_t k, struct ces_graph **out)
{
    struct ces_graph *g = NULL;
    uint32_t mem, posted, done;
    int rc;

    *out = NULL;
    if (n < 1 || n > CES_P2P_MAX_RANKS)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "ces_group_end: groups are supported up to %u ranks", CES_P2P_MAX_RANKS);
    for (uint32_t r = 0; r < n; r++)
        if (t->d[r][0].bytes > CES_MAX_PAIRS)
            return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_group_end: rank %" PRIu32
                                 " declared more than %u sends and receives", r, CES_MAX_PAIRS);
    for (uint32_t r = 0; r < n; r++) {
        for (uint64_t i = 1; i <= t->d[r][0].bytes; i++) {
            const struct ces_p2p_desc *e = &t->d[r][i];
            const struct ces_p2p_desc *m = group_find(t, e->peer, r, !e->send);

            if (m == NULL || m->bytes != e->bytes)
                return ces_ctx_error(ctx, CES_ERR_INVALID,
                                     "ces_group_end: rank %" PRIu32 " %s %" PRIu64
                                     " bytes %s rank %" PRIu32 ", which %s",
                                     r, e->send ? "sends" : "receives", e->bytes,
                                     e->send ? "to" : "from", e->peer,
                                     m == NULL ? (e->send ? "posted no matching receive"
                                                          : "posted no matching send")
                                               : "declared another size");
        }
    }
    rc = ces_graph_create(ctx, n, 1, &g);
    if (rc == CES_OK)
        rc = ces_graph_add_buffer(g, "mem", stride, &mem);
    if (rc == CES_OK)
        rc = ces_graph_add_signal(g, "posted", CES_U64, n, &posted);
    if (rc == CES_OK)
        rc = ces_graph_add_signal(g, "done", CES_U64, n, &done);
    if (rc == CES_OK)
        rc = ces_graph_add_block(g, CES_PHASE_EAGER, 1);
    for (uint32_t r = 0; r < n && rc == CES_OK; r++) {
        const struct ces_p2p_desc *row = t->d[r];
        uint64_t cnt = row[0].bytes, nsend = 0;

        for (uint64_t i = 1; i <= cnt && rc == CES_OK; i++) {
            struct ces_op op = {.kind = CES_OP_WRITE, .slot = {posted, row[i].peer, r}, .value = k};

            if (!row[i].send)
                rc = ces_graph_add_op(g, r, &op);
        }
        for (uint64_t i = 1; i <= cnt && rc == CES_OK; i++) {
            struct ces_op op = {.kind = CES_OP_WAIT, .slot = {posted, r, row[i].peer}, .value = k};

            if (row[i].send) {
                rc = ces_graph_add_op(g, r, &op);
                nsend++;
            }
        }
        if (nsend > 1 && rc == CES_OK) {
            struct ces_op op = {.kind = CES_OP_BATCH};

            rc = ces_graph_add_op(g, r, &op);
        }
        for (uint64_t i = 1; i <= cnt && rc == CES_OK; i++) {
            const struct ces_p2p_desc *m = group_find(t, row[i].peer, r, 0);
            struct ces_op op = {.kind = CES_OP_COPY};

            if (!row[i].send)
                continue;
            op.a = (struct ces_region){mem, r, row[i].off, row[i].off + row[i].bytes};
            op.b = (struct ces_region){mem, row[i].peer, m->off, m->off + m->bytes};
            rc = ces_graph_add_op(g, r, &op);
        }
        if (nsend > 1 && rc == CES_OK) {
            struct ces_op op = {.kind = CES_OP_END};

            rc = ces_graph_add_op(g, r, &op);
        }
        for (uint64_t i = 1; i <= cnt && rc == CES_OK; i++) {
            struct ces_op op = {.kind = CES_OP_WRITE, .slot = {done, row[i].peer, r}, .value = k};

            if (row[i].send)
                rc = ces_graph_add_op(g, r, &op);
        }
        for (uint64_t i = 1; i <= cnt && rc == CES_OK; i++) {
            struct ces_op op = {.kind = CES_OP_WAIT, .slot = {done, r, row[i].peer}, .value = k};

            if (!row[i].send)
                rc = ces_graph_add_op(g, r, &op);
        }
    }
    if (rc == CES_OK)
        rc = ces_graph_validate(g, NULL);
    if (rc != CES_OK) {
        ces_graph_destroy(g);
        return rc;
    }
    *out = g;
    return CES_OK;
}


int ces_cuda_group_arrive(struct ces_ctx *ctx, uint32_t *arrived, uint32_t idx, uint32_t nlocal,
                          int *last)
{
    uint32_t all = nlocal >= 32 ? UINT32_MAX : (1u << nlocal) - 1u;

    assert(idx < nlocal && nlocal <= 32);
    *last = 0;
    if ((*arrived & (1u << idx)) != 0) {
        uint32_t missing = 0;

        while (missing < nlocal && (*arrived & (1u << missing)) != 0)
            missing++;
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "ces_group_end: rank %" PRIu32 " ended a second group before rank %" PRIu32
                             " ended the first (in one process, end each group on every "
                             "communicator in turn)",
                             idx, missing);
    }
    *arrived |= 1u << idx;
    if (*arrived == all) {
        *arrived = 0;
        *last = 1;
    }
    return CES_OK;
}
