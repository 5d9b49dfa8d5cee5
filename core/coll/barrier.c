/*
 * core/coll/barrier.c - a barrier: one sync of the chosen protocol per
 * iteration and no data.  With nccl an odd barrier count per iteration makes
 * consecutive iterations alternate between `ready` and `complete` (eager: one
 * phase per iteration); a graph phase freezes one array for every replay,
 * which is NCCL's odd-sync replay race that the checker must report.
 *
 * Sizes: none (params.bytes is ignored).
 */
#include "coll.h"

static void barrier_decls(struct ces_cgen *cg)
{
    (void)cg;
}

static void barrier_body(struct ces_cgen *cg)
{
    ces_coll_sync(cg, 0);
}

const struct ces_coll_desc ces_coll_barrier_desc = {
    .nsyncs = 1,
    .streams = 1,
    .check = NULL,
    .decls = barrier_decls,
    .body = barrier_body,
};
