/*
 * core/coll/gather.c - gather as NCCL 2.28 runs it on copy engines: barrier,
 * every rank copies its send buffer into slice r of the root's recv buffer
 * (the root's own copy is local), one batch each, barrier; the root reads.
 *
 * Sizes: send holds C = params.bytes bytes, recv n*C (filled on the root).
 */
#include "coll.h"

#include <inttypes.h>

static void gather_decls(struct ces_cgen *cg)
{
    ces_sb_printf(&cg->sb,
                  "let C = %" PRIu64 "\nbuffer send %" PRIu64 "\nbuffer recv %" PRIu64 "\n",
                  cg->p.bytes, cg->p.bytes, cg->p.bytes * cg->p.ranks);
}

static void gather_body(struct ces_cgen *cg)
{
    uint32_t root = cg->p.root;

    ces_sb_puts(&cg->sb, "r* : produce send[0:$C]\n");
    ces_coll_sync(cg, 0);
    ces_sb_printf(&cg->sb,
                  "r* : batch\n"
                  "r* : copy send[0:$C] -> recv[$r*$C:($r+1)*$C]@%" PRIu32 "\n"
                  "r* : end\n",
                  root);
    ces_coll_sync(cg, 1);
    ces_sb_printf(&cg->sb,
                  "r%" PRIu32 " over p* : consume recv[$p*$C:($p+1)*$C] == send[0:$C]@$p\n", root);
}

const struct ces_coll_desc ces_coll_gather_desc = {
    .nsyncs = 2,
    .streams = 1,
    .check = ces_coll_check_rooted,
    .decls = gather_decls,
    .body = gather_body,
};
