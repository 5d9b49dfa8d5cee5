/*
 * core/coll/alltoall.c - alltoall as NCCL 2.28 runs it on copy engines:
 * barrier, one batch in which every rank pushes chunk p of its send buffer
 * into chunk r of rank p's recv buffer (peers in rotated order starting at
 * itself, the copy to itself local), barrier.
 *
 * Sizes: send and recv hold B = params.bytes bytes; the chunk for one peer is
 * C = B/n bytes, so B must be divisible by the number of ranks.
 */
#include "coll.h"

#include <inttypes.h>

static int alltoall_check(struct ces_ctx *ctx, const struct ces_coll_params *p)
{
    if (p->bytes % p->ranks != 0)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "alltoall: bytes (%" PRIu64 ") must be divisible by ranks (%" PRIu32
                             ")", p->bytes, p->ranks);
    return CES_OK;
}

static void alltoall_decls(struct ces_cgen *cg)
{
    ces_sb_printf(&cg->sb,
                  "let C = %" PRIu64 "\nbuffer send %" PRIu64 "\nbuffer recv %" PRIu64 "\n",
                  cg->p.bytes / cg->p.ranks, cg->p.bytes, cg->p.bytes);
}

static void alltoall_body(struct ces_cgen *cg)
{
    ces_sb_puts(&cg->sb, "r* : produce send[0:$n*$C]\n");
    ces_coll_sync(cg, 0);
    /* The ready barrier orders these copies after every peer consumed the
     * previous iteration's recv; the complete barrier orders each consume
     * after every peer's copy into it. */
    ces_sb_puts(&cg->sb, "r* : batch\n"
                         "r* over p* : copy send[$p*$C:($p+1)*$C] -> recv[$r*$C:($r+1)*$C]@$p\n"
                         "r* : end\n");
    ces_coll_sync(cg, 1);
    ces_sb_puts(&cg->sb,
                "r* over p* : consume recv[$p*$C:($p+1)*$C] == send[$r*$C:($r+1)*$C]@$p\n");
}

const struct ces_coll_desc ces_coll_alltoall_desc = {
    .nsyncs = 2,
    .streams = 1,
    .check = alltoall_check,
    .decls = alltoall_decls,
    .body = alltoall_body,
};
