/*
 * core/coll/allgather.c - allgather as NCCL 2.28 runs it on copy engines:
 * barrier, one batch in which every rank pushes its send buffer into slice r
 * of every rank's recv buffer (its own slice locally), barrier.
 *
 * Sizes: send holds C = params.bytes bytes (each rank's part), recv n*C.
 */
#include "coll.h"

#include <inttypes.h>

static void allgather_decls(struct ces_cgen *cg)
{
    ces_sb_printf(&cg->sb,
                  "let C = %" PRIu64 "\nbuffer send %" PRIu64 "\nbuffer recv %" PRIu64 "\n",
                  cg->p.bytes, cg->p.bytes, cg->p.bytes * cg->p.ranks);
}

static void allgather_body(struct ces_cgen *cg)
{
    ces_sb_puts(&cg->sb, "r* : produce send[0:$C]\n");
    ces_coll_sync(cg, 0);
    ces_sb_puts(&cg->sb, "r* : batch\n"
                         "r* over p* : copy send[0:$C] -> recv[$r*$C:($r+1)*$C]@$p\n"
                         "r* : end\n");
    ces_coll_sync(cg, 1);
    ces_sb_puts(&cg->sb, "r* over p* : consume recv[$p*$C:($p+1)*$C] == send[0:$C]@$p\n");
}

const struct ces_coll_desc ces_coll_allgather_desc = {
    .nsyncs = 2,
    .streams = 1,
    .check = ces_coll_check_total,
    .decls = allgather_decls,
    .body = allgather_body,
};
