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
 * Per chunk of a message s -> d, staged in slot t:
 *   s0 of s:  (once the slot is free) copy the chunk into d's staging slot,
 *             write d's `full[t]`;
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
 * nccl and mono number the chunks across bodies and rotate the slots with
 * them (see counted_chunks): with chunks = 1 and slots = 2 consecutive
 * messages alternate slots, and a send never waits for its receiver to drain
 * the previous message.  The credits of the last chunks of a finite schedule
 * are the only writes nothing awaits (`cesync check --fault-sweep` shows their
 * loss as tolerated).
 *
 * Sizes: send holds B = params.bytes bytes; recv holds one B-byte message per
 * incoming pair of the rank with the most incoming pairs (K of them); stage
 * holds K*slots chunks of B/chunks bytes (nccl and mono allow more slots
 * than chunks: stage may outgrow recv; both must fit in 2^48 bytes).
 * Messages to the same receiver use consecutive recv and stage areas in pair
 * order; flag slots likewise.
 */
#include "coll.h"

#include <inttypes.h>
#include <string.h>

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

    if (p->ranks < 2)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "sendrecv: ranks must be 2..%u for a pair, not %" PRIu32,
                             CES_MAX_RANKS, p->ranks);
    /* a graph phase takes credit alone (below): suggest only that there */
    if (p->proto == CES_PROTO_PULL)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED, "sendrecv has no pull protocol; use %s",
                             p->phase == CES_PHASE_GRAPH
                                 ? "CES_PROTO_CREDIT for graph phases"
                                 : "CES_PROTO_NCCL, CES_PROTO_MONO or CES_PROTO_CREDIT");
    if (p->proto != CES_PROTO_CREDIT && p->phase == CES_PHASE_GRAPH)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "sendrecv: %s flags are use counts computed from $i, which a graph "
                             "replay freezes; use CES_PROTO_CREDIT for graph phases",
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
    if (p->chunks > CES_COLL_MAX_CHUNKS)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "sendrecv: chunks must be 1..%u, not %" PRIu32,
                             CES_COLL_MAX_CHUNKS, p->chunks);
    if (p->bytes % p->chunks != 0)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "sendrecv: bytes (%" PRIu64 ") must be divisible by chunks (%" PRIu32
                             ")", p->bytes, p->chunks);
    if (p->proto == CES_PROTO_CREDIT && p->slots > p->chunks)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "sendrecv: slots must be at most chunks (%" PRIu32
                             ") with CES_PROTO_CREDIT, not %" PRIu32, p->chunks, p->slots);
    if (p->slots > CES_COLL_MAX_CHUNKS)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "sendrecv: slots must be 1..%u, not %" PRIu32,
                             CES_COLL_MAX_CHUNKS, p->slots);
    np = pairs_of(p, pairs);
    maxin = index_pairs(np, pairs, in, out, &maxout);
    if (p->bytes > CES_MAX_BYTES / maxin)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "sendrecv: %" PRIu32 " incoming messages x bytes (%" PRIu64
                             ") exceed 2^48 bytes", maxin, p->bytes);
    /* more slots than chunks (nccl, mono) stage more than the messages */
    if (p->bytes / p->chunks > CES_MAX_BYTES / ((uint64_t)maxin * p->slots))
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "sendrecv: the staging buffer, %" PRIu32
                             " incoming messages x %" PRIu32 " slots x a chunk of %" PRIu64
                             " bytes, exceeds 2^48 bytes",
                             maxin, p->slots, p->bytes / p->chunks);
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

/* credit: chunk k of every body uses slot k % slots, so every body starts
 * with all slots free and a graph replay may repeat it. */
static void credit_chunks(struct ces_cgen *cg, uint32_t np, uint32_t pairs[][2], const uint32_t *in,
                          const uint32_t *out)
{
    uint32_t m = cg->p.chunks, S = cg->p.slots;
    uint64_t b = cg->p.bytes, c = b / m;

    for (uint32_t k = 0; k < m; k++) {
        uint32_t t = k % S;

        for (uint32_t q = 0; q < np; q++) {
            uint32_t s = pairs[q][0], d = pairs[q][1];
            uint32_t fs = in[q] * S + t, cs = out[q] * S + t;
            uint64_t lo = (uint64_t)fs * c, rlo = in[q] * b + k * c;

            if (k >= S)
                ces_sb_printf(&cg->sb,
                              "r%" PRIu32 " : wait credit[%" PRIu32 "] == 1\n"
                              "r%" PRIu32 " : write credit[%" PRIu32 "] = 0\n",
                              s, cs, s, cs);
            ces_sb_printf(&cg->sb,
                          "r%" PRIu32 " : copy send[%" PRIu64 ":%" PRIu64 "] -> stage[%" PRIu64
                          ":%" PRIu64 "]@%" PRIu32 "\n"
                          "r%" PRIu32 " : write full[%" PRIu32 "]@%" PRIu32 " = 1\n",
                          s, k * c, (k + 1) * c, lo, lo + c, d, s, fs, d);
            ces_sb_printf(&cg->sb,
                          "r%" PRIu32 " s1 : wait full[%" PRIu32 "] == 1\n"
                          "r%" PRIu32 " s1 : write full[%" PRIu32 "] = 0\n"
                          "r%" PRIu32 " s1 : copy stage[%" PRIu64 ":%" PRIu64 "] -> recv[%" PRIu64
                          ":%" PRIu64 "]\n"
                          "r%" PRIu32 " s1 : write credit[%" PRIu32 "]@%" PRIu32 " = 1\n",
                          d, fs, d, fs, d, lo, lo + c, rlo, rlo + c, d, cs, s);
        }
    }
}

/* Chunk k of the body as a global chunk number g = chunks*(G-1) + k: the
 * expressions of its slot (g % slots) and of its use count (g / slots). */
struct chunk_ref {
    char slot[96];
    char use[96];
};

/* Whether expression e has a + or - outside parentheses. */
static bool top_level_sum(const char *e)
{
    int depth = 0;

    for (size_t i = 0; e[i] != '\0'; i++) {
        if (e[i] == '(')
            depth++;
        else if (e[i] == ')')
            depth--;
        else if (depth == 0 && i > 0 && (e[i] == '+' || e[i] == '-'))
            return true;
    }
    return false;
}

static void chunk_ref(const struct ces_cgen *cg, struct chunk_ref *r, int64_t k)
{
    uint32_t m = cg->p.chunks, S = cg->p.slots;
    char g[80];
    const char *fmt_slot, *fmt_use;

    ces_coll_lin(cg, g, sizeof(g), m, k - (int64_t)m);
    /* parentheses only where the printer keeps them: around a sum */
    fmt_slot = top_level_sum(g) ? "(%s)%%%" PRIu32 : "%s%%%" PRIu32;
    fmt_use = top_level_sum(g) ? "(%s)/%" PRIu32 : "%s/%" PRIu32;
    if (S == 1) {
        snprintf(r->slot, sizeof(r->slot), "0");
        snprintf(r->use, sizeof(r->use), "%s", g);
        return;
    }
    snprintf(r->slot, sizeof(r->slot), fmt_slot, g, S);
    snprintf(r->use, sizeof(r->use), fmt_use, g, S);
}

/* base + slot, without a "0+". */
static void slot_at(char *buf, size_t size, uint32_t base, const char *slot)
{
    if (base == 0)
        snprintf(buf, size, "%s", slot);
    else
        snprintf(buf, size, "%" PRIu32 "+%s", base, slot);
}

/* nccl, mono: chunks are numbered across bodies, g = (G-1)*chunks + k for
 * the global iteration G, and chunk g uses slot g % slots for the
 * (g / slots)-th time, so consecutive messages alternate slots.  The sender
 * waits for the credit of chunk g+1's slot right after announcing chunk g,
 * in the same memop call: that credit was returned a chunk earlier, so the
 * wait is already satisfied in a steady stream and costs no call of its own.
 * Chunk g = 0 needs no credit (every slot starts free). */
static void counted_chunks(struct ces_cgen *cg, uint32_t np, uint32_t pairs[][2],
                           const uint32_t *in, const uint32_t *out)
{
    uint32_t m = cg->p.chunks, S = cg->p.slots;
    uint64_t b = cg->p.bytes, c = b / m;
    const char *cmp = cg->p.proto == CES_PROTO_MONO ? ">=" : "==";

    for (uint32_t k = 0; k < m; k++) {
        struct chunk_ref g, g1;

        chunk_ref(cg, &g, (int64_t)k);
        chunk_ref(cg, &g1, (int64_t)k + 1);
        for (uint32_t q = 0; q < np; q++) {
            uint32_t s = pairs[q][0], d = pairs[q][1];
            uint64_t rlo = in[q] * b + k * c;
            char fs[128], cs[128], cs1[128], lo[160], hi[160];

            slot_at(fs, sizeof(fs), in[q] * S, g.slot);
            slot_at(cs, sizeof(cs), out[q] * S, g.slot);
            slot_at(cs1, sizeof(cs1), out[q] * S, g1.slot);
            snprintf(lo, sizeof(lo), top_level_sum(fs) ? "(%s)*%" PRIu64 : "%s*%" PRIu64, fs, c);
            snprintf(hi, sizeof(hi), "(%s+1)*%" PRIu64, fs, c);
            ces_sb_printf(&cg->sb,
                          "r%" PRIu32 " : copy send[%" PRIu64 ":%" PRIu64 "] -> stage[%s:%s]@%" PRIu32
                          "\n"
                          "r%" PRIu32 " : write full[%s]@%" PRIu32 " = %s+1\n"
                          "r%" PRIu32 " : wait credit[%s] %s %s\n"
                          "r%" PRIu32 " s1 : wait full[%s] %s %s+1\n"
                          "r%" PRIu32 " s1 : copy stage[%s:%s] -> recv[%" PRIu64 ":%" PRIu64 "]\n"
                          "r%" PRIu32 " s1 : write credit[%s]@%" PRIu32 " = %s+1\n",
                          s, k * c, (k + 1) * c, lo, hi, d,
                          s, fs, d, g.use,
                          s, cs1, cmp, g1.use,
                          d, fs, cmp, g.use,
                          d, lo, hi, rlo, rlo + c,
                          d, cs, s, g.use);
        }
    }
}

static void sendrecv_body(struct ces_cgen *cg)
{
    uint32_t pairs[CES_MAX_PAIRS][2], in[CES_MAX_PAIRS], out[CES_MAX_PAIRS];
    uint32_t np = pairs_of(&cg->p, pairs), maxout;
    uint32_t S = cg->p.slots;
    uint64_t b = cg->p.bytes;
    bool credit = cg->p.proto == CES_PROTO_CREDIT;

    index_pairs(np, pairs, in, out, &maxout);
    for (uint32_t r = 0; r < cg->p.ranks; r++) {
        for (uint32_t q = 0; q < np; q++) {
            if (pairs[q][0] == r) {
                ces_sb_printf(&cg->sb, "r%" PRIu32 " : produce send[0:%" PRIu64 "]\n", r, b);
                break;
            }
        }
    }
    if (credit)
        credit_chunks(cg, np, pairs, in, out);
    else
        counted_chunks(cg, np, pairs, in, out);
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
