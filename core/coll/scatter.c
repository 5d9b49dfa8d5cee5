/*
 * core/coll/scatter.c - scatter as NCCL 2.28 runs it on copy engines:
 * barrier, one batch in which the root pushes slice p of its send buffer into
 * rank p's recv buffer (its own slice locally), barrier; every rank reads.
 *
 * Sizes: recv holds C = params.bytes bytes, send n*C (read on the root).
 */
#include "coll.h"

#include <inttypes.h>

static void scatter_decls(struct ces_cgen *cg)
{
    ces_sb_printf(&cg->sb,
                  "let C = %" PRIu64 "\nbuffer send %" PRIu64 "\nbuffer recv %" PRIu64 "\n",
                  cg->p.bytes, cg->p.bytes * cg->p.ranks, cg->p.bytes);
}

static void scatter_body(struct ces_cgen *cg)
{
    uint32_t root = cg->p.root;

    ces_sb_printf(&cg->sb, "r%" PRIu32 " : produce send[0:$n*$C]\n", root);
    ces_coll_sync(cg, 0);
    ces_sb_printf(&cg->sb,
                  "r%" PRIu32 " : batch\n"
                  "r%" PRIu32 " over p* : copy send[$p*$C:($p+1)*$C] -> recv[0:$C]@$p\n"
                  "r%" PRIu32 " : end\n",
                  root, root, root);
    ces_coll_sync(cg, 1);
    ces_sb_printf(&cg->sb, "r* : consume recv[0:$C] == send[$r*$C:($r+1)*$C]@%" PRIu32 "\n",
                  root);
}

const struct ces_coll_desc ces_coll_scatter_desc = {
    .nsyncs = 2,
    .streams = 1,
    .check = ces_coll_check_rooted,
    .decls = scatter_decls,
    .body = scatter_body,
};
