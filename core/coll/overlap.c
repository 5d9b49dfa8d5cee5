/*
 * core/coll/overlap.c - the local-chunk variants of alltoall and allgather
 * (CES_COLL_F_OVERLAP, CES_COLL_F_EARLY): the same barriers and peer copies
 * as core/coll/alltoall.c and core/coll/allgather.c, with the copy a rank
 * makes into its own recv moved off the path of the peer copies.
 *
 * Why: cudaMemcpyBatchAsync runs the copies of one batch one after another on
 * H200 (NCCL's CE alltoall, local and peer chunk in one batch, takes the
 * serial sum of both at 1 GiB), so the local chunk adds its whole time.
 *
 *   OVERLAP  stream s1 copies the local chunk.  s0 records `go` after the
 *            produce (and so after the previous iteration's consume, which
 *            precedes it on s0), s1 awaits `go`, copies, records `local`; s0
 *            awaits `local` before the consume.  The local copy touches only
 *            this rank's send and recv, in a region no peer writes.  Where
 *            `go` sits was measured on 2x H200 (scripts/probe_memops.sh,
 *            docs/PERFORMANCE.md): before the ready barrier for small chunks
 *            (1 MiB alltoall median 15.2 vs 23.7 us), after it for large ones
 *            (128 MiB 195.7 vs 200.5 us), so an eager local chunk of
 *            OVERLAP_LATE_BYTES or more forks after it.  Under a graph phase
 *            the fork always comes first: a captured fork after a memop
 *            node costs 10-18 us an iteration more than eagerly
 *            (scripts/probe_memops.sh, "captured fork": 64 MiB alltoall 127.1
 *            vs 110.0 us eager; forked first 116.9 captured, 117.9 eager).
 *   EARLY    one stream: the local copy sits between the ready barrier's flag
 *            writes and its waits, so it runs while the flags travel.  Stream
 *            order alone keeps it after the previous consume and before the
 *            next produce.
 */
#include "coll.h"

#include <inttypes.h>
#include <string.h>

/* From this local chunk size on, an eager local copy forks after the ready
 * barrier (measured at 0.5 and 64 MiB; the switch lies between). */
#define OVERLAP_LATE_BYTES (8u << 20)

/* The local copy of each collective, as an op without WHO. */
static const char *local_copy(const struct ces_cgen *cg)
{
    return cg->p.coll == CES_COLL_ALLTOALL ? "copy send[$r*$C:($r+1)*$C] -> recv[$r*$C:($r+1)*$C]"
                                           : "copy send[0:$C] -> recv[$r*$C:($r+1)*$C]";
}

static void produce(struct ces_cgen *cg)
{
    ces_sb_puts(&cg->sb, cg->p.coll == CES_COLL_ALLTOALL ? "r* : produce send[0:$n*$C]\n"
                                                         : "r* : produce send[0:$C]\n");
}

static void peer_batch_and_consume(struct ces_cgen *cg, int await_local)
{
    /* The ready barrier orders the peer copies after every peer consumed the
     * previous iteration's recv; the complete barrier orders each consume
     * after every peer's copy into it. */
    if (cg->p.coll == CES_COLL_ALLTOALL)
        ces_sb_puts(&cg->sb,
                    "r* : batch\n"
                    "r* over p : copy send[$p*$C:($p+1)*$C] -> recv[$r*$C:($r+1)*$C]@$p\n"
                    "r* : end\n");
    else
        ces_sb_puts(&cg->sb, "r* : batch\n"
                             "r* over p : copy send[0:$C] -> recv[$r*$C:($r+1)*$C]@$p\n"
                             "r* : end\n");
    ces_coll_sync(cg, 1);
    if (await_local)
        ces_sb_puts(&cg->sb, "r* : await local\n");
    if (cg->p.coll == CES_COLL_ALLTOALL)
        ces_sb_puts(&cg->sb,
                    "r* over p* : consume recv[$p*$C:($p+1)*$C] == send[$r*$C:($r+1)*$C]@$p\n");
    else
        ces_sb_puts(&cg->sb, "r* over p* : consume recv[$p*$C:($p+1)*$C] == send[0:$C]@$p\n");
}

static void overlap_body(struct ces_cgen *cg)
{
    uint64_t chunk = cg->p.coll == CES_COLL_ALLTOALL ? cg->p.bytes / cg->p.ranks : cg->p.bytes;
    int late = chunk >= OVERLAP_LATE_BYTES && cg->p.phase != CES_PHASE_GRAPH;

    produce(cg);
    if (late)
        ces_coll_sync(cg, 0);
    ces_sb_printf(&cg->sb,
                  "r* : record go\n"
                  "r* s1 : await go\n"
                  "r* s1 : %s\n"
                  "r* s1 : record local\n",
                  local_copy(cg));
    if (!late)
        ces_coll_sync(cg, 0);
    peer_batch_and_consume(cg, 1);
}

/* Barrier 0 with the local copy inserted before its first wait line: the
 * protocol's text is generated as usual, then split there. */
static void early_body(struct ces_cgen *cg)
{
    size_t start, cut;
    char *tail;
    const char *w;

    produce(cg);
    start = cg->sb.len;
    ces_coll_sync(cg, 0);
    if (cg->sb.status != CES_OK)
        return;
    w = strstr(cg->sb.buf + start, " : wait ");
    cut = cg->sb.len;
    if (w != NULL) {
        /* back to the start of that line */
        cut = (size_t)(w - cg->sb.buf);
        while (cut > start && cg->sb.buf[cut - 1] != '\n')
            cut--;
    }
    tail = ces_strdup(cg->sb.ctx, cg->sb.buf + cut);
    if (tail == NULL) {
        cg->sb.status = CES_ERR_NOMEM;
        return;
    }
    cg->sb.len = cut;
    cg->sb.buf[cut] = '\0';
    ces_sb_printf(&cg->sb, "r* : %s\n", local_copy(cg));
    ces_sb_puts(&cg->sb, tail);
    ces_free(cg->sb.ctx, tail);
    peer_batch_and_consume(cg, 0);
}

/* OVERLAP for gather, scatter and broadcast: only the root has a local copy
 * (gather: its part into its block of recv; scatter: its block of send;
 * broadcast: its send), moved to s1 between `go` and `local` as above; the
 * copies to and from peers and the barriers are the plain collective's. */
static void rooted_overlap_body(struct ces_cgen *cg)
{
    uint32_t root = cg->p.root, coll = cg->p.coll;
    int late = cg->p.bytes >= OVERLAP_LATE_BYTES && cg->p.phase != CES_PHASE_GRAPH;
    const char *local = coll == CES_COLL_GATHER    ? "send[0:$C] -> recv[$r*$C:($r+1)*$C]"
                        : coll == CES_COLL_SCATTER ? "send[$r*$C:($r+1)*$C] -> recv[0:$C]"
                                                   : "send[0:$C] -> recv[0:$C]";

    if (coll == CES_COLL_GATHER)
        ces_sb_puts(&cg->sb, "r* : produce send[0:$C]\n");
    else
        ces_sb_printf(&cg->sb, "r%" PRIu32 " : produce send[0:%s]\n", root,
                      coll == CES_COLL_SCATTER ? "$n*$C" : "$C");
    if (late)
        ces_coll_sync(cg, 0);
    ces_sb_printf(&cg->sb,
                  "r%" PRIu32 " : record go\n"
                  "r%" PRIu32 " s1 : await go\n"
                  "r%" PRIu32 " s1 : copy %s\n"
                  "r%" PRIu32 " s1 : record local\n",
                  root, root, root, local, root);
    if (!late)
        ces_coll_sync(cg, 0);
    if (coll == CES_COLL_GATHER)
        ces_coll_gather_pushes(cg);
    else
        ces_coll_root_pushes(cg, coll == CES_COLL_SCATTER ? "send[$p*$C:($p+1)*$C]" : "send[0:$C]");
    ces_coll_sync(cg, 1);
    ces_sb_printf(&cg->sb, "r%" PRIu32 " : await local\n", root);
    if (coll == CES_COLL_GATHER)
        ces_sb_printf(&cg->sb,
                      "r%" PRIu32 " over p* : consume recv[$p*$C:($p+1)*$C] == send[0:$C]@$p\n",
                      root);
    else
        ces_sb_printf(&cg->sb, "r* : consume recv[0:$C] == send[%s]@%" PRIu32 "\n",
                      coll == CES_COLL_SCATTER ? "$r*$C:($r+1)*$C" : "0:$C", root);
}

static const struct ces_coll_desc rooted_overlap_desc = {
    .nsyncs = 2,
    .streams = 2,
    .check = ces_coll_plain_check,
    .decls = ces_coll_plain_decls,
    .body = rooted_overlap_body,
};

static const struct ces_coll_desc overlap_desc = {
    .nsyncs = 2,
    .streams = 2,
    .check = ces_coll_plain_check,
    .decls = ces_coll_plain_decls,
    .body = overlap_body,
};

static const struct ces_coll_desc early_desc = {
    .nsyncs = 2,
    .streams = 1,
    .check = ces_coll_plain_check,
    .decls = ces_coll_plain_decls,
    .body = early_body,
};

int ces_coll_variant(struct ces_ctx *ctx, const struct ces_coll_params *p,
                     const struct ces_coll_desc **d)
{
    const uint32_t local = CES_COLL_F_OVERLAP | CES_COLL_F_EARLY;
    const uint32_t known = local | CES_COLL_F_INPLACE | CES_COLL_F_DIRECTED;
    const char *name = ces_coll_name((int)p->coll);
    const char *variant = (p->flags & CES_COLL_F_OVERLAP) != 0 ? "overlap" : "early";

    if (p->flags == 0)
        return CES_OK;
    if ((p->flags & ~known) != 0)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "%s: unknown algorithm flags 0x%" PRIx32,
                             name, p->flags & ~known);
    /* what the collective lacks first, then what excludes what */
    if ((p->flags & CES_COLL_F_INPLACE) != 0 && ces_coll_inplace(p->coll) == NULL)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "%s: in place applies to allgather, gather, scatter and broadcast "
                             "only",
                             name);
    if ((p->flags & CES_COLL_F_EARLY) != 0 && p->coll != CES_COLL_ALLTOALL &&
        p->coll != CES_COLL_ALLGATHER)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "%s: the early variant applies to alltoall and allgather only", name);
    if ((p->flags & CES_COLL_F_OVERLAP) != 0 &&
        (p->coll == CES_COLL_SENDRECV || p->coll == CES_COLL_BARRIER))
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "%s: the overlap variant applies to alltoall, allgather, gather, "
                             "scatter and broadcast only",
                             name);
    if ((p->flags & CES_COLL_F_DIRECTED) != 0 && p->coll != CES_COLL_GATHER &&
        p->coll != CES_COLL_SCATTER && p->coll != CES_COLL_BROADCAST)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "%s: directed barriers apply to gather, scatter and broadcast only",
                             name);
    if ((p->flags & local) == local)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "%s: the overlap and early variants exclude each other", name);
    /* directed barriers change the sync text only (core/coll/sync.c) */
    if ((p->flags & CES_COLL_F_INPLACE) == 0) {
        if ((p->flags & local) != 0)
            *d = (p->flags & CES_COLL_F_EARLY) != 0 ? &early_desc
                 : p->coll == CES_COLL_ALLTOALL || p->coll == CES_COLL_ALLGATHER
                     ? &overlap_desc
                     : &rooted_overlap_desc;
    } else if ((p->flags & local) == 0)
        *d = ces_coll_inplace(p->coll);
    else
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "%s: in place and the %s variant exclude each other (in place "
                             "there is no local copy to move)",
                             name, variant);
    return CES_OK;
}
