/*
 * core/coll/broadcast.c - broadcast in the style of NCCL's copy-engine
 * collectives (NCCL 2.28 has no CE broadcast; this is the same shape):
 * barrier, one batch in which the root pushes its send buffer into every
 * rank's recv buffer (its own locally), barrier; every rank reads.
 *
 * Sizes: send and recv hold C = params.bytes bytes.
 */
#include "coll.h"

#include <inttypes.h>

static void broadcast_decls(struct ces_cgen *cg)
{
    ces_sb_printf(&cg->sb,
                  "let C = %" PRIu64 "\nbuffer send %" PRIu64 "\nbuffer recv %" PRIu64 "\n",
                  cg->p.bytes, cg->p.bytes, cg->p.bytes);
}

static void broadcast_body(struct ces_cgen *cg)
{
    uint32_t root = cg->p.root;

    ces_sb_printf(&cg->sb, "r%" PRIu32 " : produce send[0:$C]\n", root);
    ces_coll_sync(cg, 0);
    ces_sb_printf(&cg->sb,
                  "r%" PRIu32 " : batch\n"
                  "r%" PRIu32 " over p* : copy send[0:$C] -> recv[0:$C]@$p\n"
                  "r%" PRIu32 " : end\n",
                  root, root, root);
    ces_coll_sync(cg, 1);
    ces_sb_printf(&cg->sb, "r* : consume recv[0:$C] == send[0:$C]@%" PRIu32 "\n", root);
}

const struct ces_coll_desc ces_coll_broadcast_desc = {
    .nsyncs = 2,
    .streams = 1,
    .check = ces_coll_check_root,
    .decls = broadcast_decls,
    .body = broadcast_body,
};
