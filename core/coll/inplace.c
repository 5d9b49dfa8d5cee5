/*
 * core/coll/inplace.c - the in-place forms (CES_COLL_F_INPLACE) of the
 * collectives that copy a rank's own block locally: that copy goes away,
 * because the block already lies where it belongs.
 *
 *   allgather  every rank's part is its block of recv (recv + r*C): no send
 *              buffer; rank r pushes recv[r*C:(r+1)*C] into every peer's.
 *   gather     the root's part is its block of recv: the root copies nothing.
 *   scatter    the root's recv is its block of send (send + root*C): the
 *              root copies to its peers only.
 *   broadcast  the root's send is its recv: no send buffer.
 *
 * The barriers, and every copy a rank makes to a peer, are those of the
 * out-of-place collective (core/coll/allgather.c, gather.c, scatter.c,
 * broadcast.c): the ops a rank issues change only where it runs in place,
 * so ranks may choose in place or not each for itself, as with NCCL (the
 * CUDA backend decides per rank from the pointers).  A rank reads its own
 * block `==` itself where out of place it reads it against the part copied
 * there: it must still hold what the rank produced, which no copy may have
 * overwritten.  The root's lines of gather and scatter name each other
 * rank (ces_coll_each_but_root).  gather and scatter declare what the
 * out-of-place forms declare: the ranks not in place use both buffers.
 */
#include "coll.h"

#include <inttypes.h>

static void allgather_decls(struct ces_cgen *cg)
{
    ces_sb_printf(&cg->sb, "let C = %" PRIu64 "\nbuffer recv %" PRIu64 "\n", cg->p.bytes,
                  cg->p.bytes * cg->p.ranks);
}

static void allgather_body(struct ces_cgen *cg)
{
    ces_sb_puts(&cg->sb, "r* : produce recv[$r*$C:($r+1)*$C]\n");
    ces_coll_sync(cg, 0);
    ces_sb_puts(&cg->sb,
                "r* : batch\n"
                "r* over p : copy recv[$r*$C:($r+1)*$C] -> recv[$r*$C:($r+1)*$C]@$p\n"
                "r* : end\n");
    ces_coll_sync(cg, 1);
    ces_sb_puts(&cg->sb,
                "r* over p* : consume recv[$p*$C:($p+1)*$C] == recv[$p*$C:($p+1)*$C]@$p\n");
}

static void gather_body(struct ces_cgen *cg)
{
    uint32_t root = cg->p.root;

    ces_coll_each_but_root(cg, "produce send[0:$C]\n");
    ces_sb_printf(&cg->sb, "r%" PRIu32 " : produce recv[$r*$C:($r+1)*$C]\n", root);
    ces_coll_sync(cg, 0);
    ces_coll_gather_pushes(cg);
    ces_coll_sync(cg, 1);
    ces_sb_printf(&cg->sb,
                  "r%" PRIu32 " : consume recv[$r*$C:($r+1)*$C] == recv[$r*$C:($r+1)*$C]\n"
                  "r%" PRIu32 " over p : consume recv[$p*$C:($p+1)*$C] == send[0:$C]@$p\n",
                  root, root);
}

/* The root's part of scatter and broadcast: it produces `produce`, pushes
 * `src` into every peer's recv between the barriers, and every rank reads
 * `part` (the root's region $r stands for) in the end: the peers from the
 * root, the root its own against itself. */
static void root_to_peers(struct ces_cgen *cg, const char *produce, const char *src,
                          const char *part)
{
    char line[128];
    uint32_t root = cg->p.root;

    ces_sb_printf(&cg->sb, "r%" PRIu32 " : produce %s\n", root, produce);
    ces_coll_sync(cg, 0);
    ces_coll_root_pushes(cg, src);
    ces_coll_sync(cg, 1);
    snprintf(line, sizeof(line), "consume recv[0:$C] == %s@%" PRIu32 "\n", part, root);
    ces_coll_each_but_root(cg, line);
    ces_sb_printf(&cg->sb, "r%" PRIu32 " : consume %s == %s\n", root, part, part);
}

static void scatter_body(struct ces_cgen *cg)
{
    root_to_peers(cg, "send[0:$n*$C]", "send[$p*$C:($p+1)*$C]", "send[$r*$C:($r+1)*$C]");
}

static void broadcast_decls(struct ces_cgen *cg)
{
    ces_sb_printf(&cg->sb, "let C = %" PRIu64 "\nbuffer recv %" PRIu64 "\n", cg->p.bytes,
                  cg->p.bytes);
}

static void broadcast_body(struct ces_cgen *cg)
{
    root_to_peers(cg, "recv[0:$C]", "recv[0:$C]", "recv[0:$C]");
}

static const struct ces_coll_desc inplace_descs[] = {
    {.nsyncs = 2,
     .streams = 1,
     .check = ces_coll_check_total,
     .decls = allgather_decls,
     .body = allgather_body},
    {.nsyncs = 2, .streams = 1, .check = ces_coll_check_rooted, .decls = ces_coll_plain_decls, .body = gather_body},
    {.nsyncs = 2, .streams = 1, .check = ces_coll_check_rooted, .decls = ces_coll_plain_decls, .body = scatter_body},
    {.nsyncs = 2,
     .streams = 1,
     .check = ces_coll_check_root,
     .decls = broadcast_decls,
     .body = broadcast_body},
};

const struct ces_coll_desc *ces_coll_inplace(uint32_t coll)
{
    switch (coll) {
    case CES_COLL_ALLGATHER:
        return &inplace_descs[0];
    case CES_COLL_GATHER:
        return &inplace_descs[1];
    case CES_COLL_SCATTER:
        return &inplace_descs[2];
    case CES_COLL_BROADCAST:
        return &inplace_descs[3];
    default:
        return NULL;
    }
}
