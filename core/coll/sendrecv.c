/*
 * core/coll/sendrecv.c - point-to-point messages between pairs of ranks, the
 * pattern of pipeline parallelism: each message of B bytes goes in `chunks`
 * chunks through `slots` staging slots in the RECEIVER's memory, with flow
 * control by credits, so no send ever waits for its receive to be posted.
 *
 * Every rank sends on stream s0 and receives on stream s1, so a rank that
 * sends and receives (both sides sending first included) never blocks its
 * receives behind its own sends: s0 waits only for credits, which s1 of the
 * peer returns without waiting for anything on the peer's s0.
 *
 * Per chunk c of a message s -> d, staged in slot t = c % slots:
 *   s0 of s:  wait until the slot is free, copy the chunk into d's staging
 *             slot, write d's `full[t]`;
 *   s1 of d:  wait `full[t]`, copy the slot into recv, return the credit by
 *             writing s's `credit[t]`.
 * Flags in the protocol's style:
 *   nccl    u32 use counts with `==` (a flag never runs ahead of its reader:
 *           the next fill of a slot waits for the credit of the previous);
 *   mono    the same counts on u64 slots with `>=`;
 *   credit  the constant 1: the receiver resets `full` before it returns the
 *           credit, the sender resets `credit` before it refills the slot and
 *           collects the credits still out at the end of the body, so every
 *           body starts with all slots free (safe for graph replays).
 * nccl and mono leave the last credits of a body out: the next body's first
 * use of each slot waits for them, so a send never waits for its receiver to
 * drain.  Collecting them at the end of every body as well was measured 11 %
 * slower (64 MiB one way on 2x H200: 211.6 vs 190.4 us), so the credits of
 * the last iteration of a finite schedule are the only writes nothing awaits
 * (`cesync check --fault-sweep` shows their loss as tolerated).
 *
 * Sizes: send holds B = params.bytes bytes; recv holds one B-byte message per
 * incoming pair of the rank with the most incoming pairs (K of them); stage
 * holds K*slots chunks of B/chunks bytes.  Messages to the same receiver use
 * consecutive recv and stage areas in pair order; flag slots likewise.
 */
#include "coll.h"

#include <inttypes.h>

#define SENDRECV_MAX_CHUNKS 1024u

/* The pairs to use: params.pairs, or the pipeline 0->1->...->n-1. */
static uint32_t pairs_of(const struct ces_coll_params *p, uint32_t pairs[][2])
{
    uint32_t np = p->npairs;

    if (np == 0) {
        for (uint32_t r = 0; r + 1 < p->ranks && r < CES_MAX_PAIRS; r++) {
            pairs[np][0] = r;
            pairs[np][1] = r + 1;
            np++;
        }
        return np;
    }
    for (uint32_t q = 0; q < np; q++) {
        pairs[q][0] = p->pairs[q][0];
        pairs[q][1] = p->pairs[q][1];
    }
    return np;
}

/* in[q] / out[q]: index of pair q among the pairs with the same receiver /
 * sender; returns the largest count of incoming pairs (*maxout: outgoing). */
static uint32_t index_pairs(uint32_t np, uint32_t pairs[][2], uint32_t *in, uint32_t *out,
                            uint32_t *maxout)
{
    uint32_t maxin = 0;

    *maxout = 0;
    for (uint32_t q = 0; q < np; q++) {
        in[q] = 0;
        out[q] = 0;
        for (uint32_t e = 0; e < q; e++) {
            if (pairs[e][1] == pairs[q][1])
                in[q]++;
            if (pairs[e][0] == pairs[q][0])
                out[q]++;
        }
        if (in[q] + 1 > maxin)
            maxin = in[q] + 1;
        if (out[q] + 1 > *maxout)
            *maxout = out[q] + 1;
    }
    return maxin;
}

static int sendrecv_check(struct ces_ctx *ctx, const struct ces_coll_params *p)
{
    uint32_t pairs[CES_MAX_PAIRS][2], in[CES_MAX_PAIRS], out[CES_MAX_PAIRS];
    uint32_t np, maxin, maxout;

    if (p->proto != CES_PROTO_CREDIT && p->phase == CES_PHASE_GRAPH)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "sendrecv: %s flags are use counts computed from $i, which a graph "
                             "replay freezes; use --sync credit for graph phases",
                             ces_proto_name((int)p->proto));
    if (p->npairs > CES_MAX_PAIRS)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "sendrecv: at most %u pairs, not %" PRIu32,
                             CES_MAX_PAIRS, p->npairs);
    if (p->npairs == 0 && p->ranks - 1 > CES_MAX_PAIRS)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "sendrecv: the default pipeline of %" PRIu32 " ranks has more than "
                             "%u pairs; give the pairs", p->ranks, CES_MAX_PAIRS);
    for (uint32_t q = 0; q < p->npairs; q++) {
        uint32_t s = p->pairs[q][0], d = p->pairs[q][1];

        if (s >= p->ranks || d >= p->ranks || s == d)
            return ces_ctx_error(ctx, CES_ERR_INVALID,
                                 "sendrecv: pair %" PRIu32 " (%" PRIu32 "->%" PRIu32
                                 ") must name two different ranks of 0..%" PRIu32,
                                 q, s, d, p->ranks - 1);
    }
    if (p->chunks > SENDRECV_MAX_CHUNKS)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "sendrecv: chunks must be 1..%u, not %" PRIu32,
                             SENDRECV_MAX_CHUNKS, p->chunks);
    if (p->bytes % p->chunks != 0)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "sendrecv: bytes (%" PRIu64 ") must be divisible by chunks (%" PRIu32
                             ")", p->bytes, p->chunks);
    if (p->slots > p->chunks)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "sendrecv: slots must be 1..chunks (%" PRIu32 "), not %" PRIu32,
                             p->chunks, p->slots);
    np = pairs_of(p, pairs);
    maxin = index_pairs(np, pairs, in, out, &maxout);
    if (p->bytes > CES_MAX_BYTES / maxin)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "sendrecv: %" PRIu32 " incoming messages x bytes (%" PRIu64
                             ") exceed 2^48 bytes", maxin, p->bytes);
    return CES_OK;
}

static void sendrecv_decls(struct ces_cgen *cg)
{
    uint32_t pairs[CES_MAX_PAIRS][2], in[CES_MAX_PAIRS], out[CES_MAX_PAIRS];
    uint32_t np = pairs_of(&cg->p, pairs), maxout;
    uint32_t maxin = index_pairs(np, pairs, in, out, &maxout);
    uint64_t b = cg->p.bytes, c = b / cg->p.chunks;
    const char *w = cg->p.proto == CES_PROTO_MONO ? "u64" : "u32";

    ces_sb_printf(&cg->sb,
                  "buffer send %" PRIu64 "\nbuffer recv %" PRIu64 "\nbuffer stage %" PRIu64 "\n"
                  "signal full %s %" PRIu32 "\nsignal credit %s %" PRIu32 "\n",
                  b, b * maxin, c * cg->p.slots * maxin, w, maxin * cg->p.slots, w,
                  maxout * cg->p.slots);
}

static void sendrecv_body(struct ces_cgen *cg)
{
    uint32_t pairs[CES_MAX_PAIRS][2], in[CES_MAX_PAIRS], out[CES_MAX_PAIRS];
    uint32_t np = pairs_of(&cg->p, pairs), maxout;
    uint32_t m = cg->p.chunks, S = cg->p.slots;
    uint64_t b = cg->p.bytes, c = b / m;
    bool credit = cg->p.proto == CES_PROTO_CREDIT;
    const char *cmp = cg->p.proto == CES_PROTO_MONO ? ">=" : "==";

    index_pairs(np, pairs, in, out, &maxout);
    for (uint32_t r = 0; r < cg->p.ranks; r++) {
        for (uint32_t q = 0; q < np; q++) {
            if (pairs[q][0] == r) {
                ces_sb_printf(&cg->sb, "r%" PRIu32 " : produce send[0:%" PRIu64 "]\n", r, b);
                break;
            }
        }
    }
    for (uint32_t k = 0; k < m; k++) {
        uint32_t t = k % S;
        /* Slot t is used U times per body; chunk k is its use number k/S. */
        int64_t U = (int64_t)((m - t + S - 1) / S), use = (int64_t)(k / S);
        char freed[96], filled[96];

        if (credit) {
            snprintf(filled, sizeof(filled), "1");
        } else {
            /* Before use u the sender needs u releases of the slot; use u
             * fills it to count u+1. */
            ces_coll_lin(cg, freed, sizeof(freed), U, use - U);
            ces_coll_lin(cg, filled, sizeof(filled), U, use - U + 1);
        }
        for (uint32_t q = 0; q < np; q++) {
            uint32_t s = pairs[q][0], d = pairs[q][1];
            uint32_t fs = in[q] * S + t, cs = out[q] * S + t;
            uint64_t lo = (uint64_t)fs * c, rlo = in[q] * b + k * c;

            if (!credit)
                ces_sb_printf(&cg->sb, "r%" PRIu32 " : wait credit[%" PRIu32 "] %s %s\n", s, cs,
                              cmp, freed);
            else if (k >= S)
                ces_sb_printf(&cg->sb,
                              "r%" PRIu32 " : wait credit[%" PRIu32 "] == 1\n"
                              "r%" PRIu32 " : write credit[%" PRIu32 "] = 0\n",
                              s, cs, s, cs);
            ces_sb_printf(&cg->sb,
                          "r%" PRIu32 " : copy send[%" PRIu64 ":%" PRIu64 "] -> stage[%" PRIu64
                          ":%" PRIu64 "]@%" PRIu32 "\n"
                          "r%" PRIu32 " : write full[%" PRIu32 "]@%" PRIu32 " = %s\n",
                          s, k * c, (k + 1) * c, lo, lo + c, d, s, fs, d, filled);
            ces_sb_printf(&cg->sb, "r%" PRIu32 " s1 : wait full[%" PRIu32 "] %s %s\n", d, fs, cmp,
                          filled);
            if (credit)
                ces_sb_printf(&cg->sb, "r%" PRIu32 " s1 : write full[%" PRIu32 "] = 0\n", d, fs);
            ces_sb_printf(&cg->sb,
                          "r%" PRIu32 " s1 : copy stage[%" PRIu64 ":%" PRIu64 "] -> recv[%" PRIu64
                          ":%" PRIu64 "]\n"
                          "r%" PRIu32 " s1 : write credit[%" PRIu32 "]@%" PRIu32 " = %s\n",
                          d, lo, lo + c, rlo, rlo + c, d, cs, s, filled);
        }
    }
    for (uint32_t q = 0; q < np; q++)
        ces_sb_printf(&cg->sb,
                      "r%" PRIu32 " s1 : consume recv[%" PRIu64 ":%" PRIu64 "] == send[0:%" PRIu64
                      "]@%" PRIu32 "\n",
                      pairs[q][1], in[q] * b, (in[q] + 1) * b, b, pairs[q][0]);
    if (!credit)
        return;
    /* The last use of every slot is still out: collect its credit so the
     * next body (or replay) starts with every slot free and reset. */
    for (uint32_t q = 0; q < np; q++) {
        for (uint32_t t = 0; t < S; t++)
            ces_sb_printf(&cg->sb,
                          "r%" PRIu32 " : wait credit[%" PRIu32 "] == 1\n"
                          "r%" PRIu32 " : write credit[%" PRIu32 "] = 0\n",
                          pairs[q][0], out[q] * S + t, pairs[q][0], out[q] * S + t);
    }
}

const struct ces_coll_desc ces_coll_sendrecv_desc = {
    .nsyncs = 0,
    .streams = 2,
    .check = sendrecv_check,
    .decls = sendrecv_decls,
    .body = sendrecv_body,
};
