/*
 * backend/sim/gen.c - the random schedule generator: small valid schedules
 * (2-3 ranks, 1-2 streams or 3 on request, 1-2 phases) built from protocol
 * steps that are correct on their own (a push transfer with a ready/done
 * handshake, a local copy, a barrier; on request a hand-off of a peer's
 * copy to another stream, CES_GEN_HANDOFF), instantiated per iteration with
 * either growing ("mono") or constant-and-reset flag values, and then
 * mutated at random so that a good share of the schedules hit each defect
 * class.  Deterministic from the seed: the generator owns its PRNG
 * (splitmix64) and keeps no global state.
 */
#include "cesync.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define GEN_MAX_STEPS 3u
#define GEN_CHUNK 16u /* bytes per chunk; a step k uses chunk k of a phase */

/* Mutations of a step (bits). */
enum gen_mut {
    GM_NO_READY_WAIT = 1u << 0,  /* the sender does not wait for "ready" */
    GM_NO_DONE_WAIT = 1u << 1,   /* the receiver does not wait for "done" */
    GM_HIGH_TARGET = 1u << 2,    /* a wait for a value nobody writes */
    GM_WAIT_FIRST = 1u << 3,     /* the receiver waits for "done" before it writes "ready" */
    GM_EARLY_DONE = 1u << 4,     /* "done" is written before the copy */
    GM_WRONG_EXPECT = 1u << 5,   /* consume expects the wrong source region */
    GM_NO_AWAIT = 1u << 6,       /* the cross-stream hand-off lacks its await */
    GM_FAR_TARGET = 1u << 7,     /* u32 >= target more than 2^31 ahead */
    GM_SHARE_CHUNK = 1u << 8,    /* the destination chunk is another step's */
    GM_OTHER_STREAM = 1u << 9,   /* local step: the copy runs on another stream */
    GM_LATE_FILL = 1u << 10      /* hand-off: the receiver fills its landing buffer after a
                                    wait for the sender's arrival flag, raised after the copy */
};
#define GM_LAST GM_LATE_FILL

/* GS_HANDOFF (CES_GEN_HANDOFF only): the receiver's waiting stream fills
 * the landing buffer, says "ready", waits for "done", resets it and hands
 * over by record and await to the consuming stream; the sender produces,
 * waits for "ready", copies and writes "done". */
enum gen_step_kind { GS_PUSH, GS_LOCAL, GS_BARRIER, GS_HANDOFF };

struct gen_step {
    uint32_t kind;
    uint32_t src, dst;    /* push: sender and receiver; local: the rank */
    uint32_t sstream;     /* the sender's stream (local: the stream) */
    uint32_t wstream;     /* receiver: the stream that waits for "done" */
    uint32_t cstream;     /* receiver: the stream that consumes and writes "ready" */
    uint32_t ostream;     /* local, GM_OTHER_STREAM: the stream the copy moves to */
    uint32_t cmp;         /* enum ces_cmp of the waits */
    uint32_t pieces;      /* 1 = one plain copy, 2 = a batch of two halves, 3 = a batch of one */
    uint32_t handshake;   /* push: the receiver says "ready" before each transfer */
    uint32_t mut;         /* enum gen_mut bits */
    uint32_t chunk_dst;   /* destination chunk (normally the step's own) */
    uint32_t fence;       /* a fence after the transfer */
};

struct gen_phase {
    uint32_t kind; /* enum ces_phase_kind */
    uint32_t reps; /* iterations */
    uint32_t reset; /* flag style: 0 = growing values, 1 = constant value reset after the wait */
    uint32_t nsteps;
    struct gen_step steps[GEN_MAX_STEPS];
};

struct gen {
    uint64_t rng;
    uint32_t shapes; /* enum ces_gen_shapes */
    uint32_t ranks, streams, connections;
    uint32_t width;   /* of the rdy array (values are taken mod 2^32 by u32 slots) */
    uint32_t width_done, width_bar;
    uint32_t mcast;   /* barriers write with @* (every rank's slot, rank 0 first) */
    uint64_t stride;  /* flag values are multiples of it */
    uint32_t nphases;
    struct gen_phase phases[2];
    uint32_t buf_src, buf_dst, sig_rdy, sig_done, sig_bar;
    uint32_t sig_arr; /* the hand-off's arrival flags, declared where GM_LATE_FILL is drawn */
    uint32_t events[GEN_MAX_STEPS];
    uint64_t bar_seq; /* barriers of the phase instantiated so far (mono values) */
};

/* splitmix64 (Steele, Lea, Flood 2014). */
static uint64_t gen_next(struct gen *gn)
{
    uint64_t z = (gn->rng += UINT64_C(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static uint32_t gen_below(struct gen *gn, uint32_t n)
{
    return (uint32_t)(gen_next(gn) % n);
}

/* True with probability pct/100. */
static bool gen_chance(struct gen *gn, uint32_t pct)
{
    return gen_below(gn, 100) < pct;
}

/* A stream of the rank other than s (streams > 1): of two the one left,
 * without a draw, so that the seeds of 1 and 2 streams draw as before 3
 * were possible; of three one of the other two at random. */
static uint32_t gen_other_stream(struct gen *gn, uint32_t s)
{
    if (gn->streams == 2)
        return 1 - s;
    return (s + 1 + gen_below(gn, gn->streams - 1)) % gn->streams;
}

void ces_gen_opts_init(struct ces_gen_opts *o)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof(*o));
    o->mutate_pct = 45;
}

/* --- choosing the shape ------------------------------------------------ */

static void gen_choose_step(struct gen *gn, const struct ces_gen_opts *o, uint32_t k,
                            struct gen_step *st)
{
    uint32_t roll = gen_below(gn, 100);
    bool handoff;

    memset(st, 0, sizeof(*st));
    if (gn->shapes == CES_GEN_HANDOFF)
        st->kind = roll < 35 ? GS_PUSH : roll < 45 ? GS_LOCAL : roll < 60 ? GS_BARRIER : GS_HANDOFF;
    else
        st->kind = roll < 65 ? GS_PUSH : roll < 82 ? GS_LOCAL : GS_BARRIER;
    handoff = st->kind == GS_HANDOFF;
    st->src = gen_below(gn, gn->ranks);
    st->dst = (st->src + 1 + gen_below(gn, gn->ranks - 1)) % gn->ranks;
    st->sstream = gen_below(gn, gn->streams);
    st->wstream = gen_below(gn, gn->streams);
    /* a hand-off step mostly hands over to another stream */
    st->cstream = gn->streams > 1 && gen_chance(gn, handoff ? 85 : 40)
                      ? gen_other_stream(gn, st->wstream)
                      : st->wstream;
    st->cmp = gen_chance(gn, 50) ? CES_CMP_EQ : CES_CMP_GEQ;
    st->pieces = 1 + gen_below(gn, 3);
    st->handshake = gen_chance(gn, 85);
    st->chunk_dst = k;
    st->fence = gen_chance(gn, 10);
    if (!gen_chance(gn, o->mutate_pct))
        return;
    /* One mutation, sometimes two (a hand-off step's as often as not: its
     * defects hide behind one another) */
    for (uint32_t m = 0, n = gen_chance(gn, handoff ? 50 : 20) ? 2 : 1; m < n; m++) {
        switch (gen_below(gn, gn->shapes == CES_GEN_HANDOFF ? 11 : 10)) {
        case 0: st->mut |= GM_NO_READY_WAIT; break;
        case 1: st->mut |= GM_NO_DONE_WAIT; break;
        case 2: st->mut |= GM_HIGH_TARGET; break;
        case 3: st->mut |= GM_WAIT_FIRST; break;
        case 4: st->mut |= GM_EARLY_DONE; break;
        case 5: st->mut |= GM_WRONG_EXPECT; break;
        case 6: st->mut |= GM_NO_AWAIT; break;
        case 7: st->mut |= GM_FAR_TARGET; break;
        case 8: st->mut |= GM_SHARE_CHUNK; break;
        case 9: st->mut |= GM_OTHER_STREAM; break;
        default: st->mut |= GM_LATE_FILL; break;
        }
    }
    if ((st->mut & GM_SHARE_CHUNK) && k > 0)
        st->chunk_dst = gen_below(gn, k);
}

/* Whether mutation `bit` of step st (k of its phase) changes what the
 * schedule runs, given the step's other mutations (st->mut) and the shape
 * drawn: a mutation of a part the step does not have (the ready handshake,
 * the stream hand-off, a u32 flag, a wait another mutation dropped, ...)
 * leaves every rank's ops as they were. */
static bool gen_mut_applies(const struct gen *gn, const struct gen_step *st, uint32_t k,
                            uint32_t bit)
{
    bool done_wait = !(st->mut & GM_NO_DONE_WAIT);

    switch (st->kind) {
    case GS_PUSH:
    case GS_HANDOFF:
        switch (bit) {
        case GM_NO_READY_WAIT: return st->handshake != 0;
        case GM_HIGH_TARGET: return done_wait;
        /* on another stream than the wait the "ready" write keeps its
         * place in its own stream but not in the rank's enqueue order,
         * which streams that share a queue follow; no wait left, it moves
         * past nothing */
        case GM_WAIT_FIRST: return st->handshake && done_wait;
        case GM_NO_AWAIT: return st->cstream != st->wstream;
        case GM_FAR_TARGET:
            return gn->width_done == CES_U32 && done_wait && !(st->mut & GM_HIGH_TARGET);
        case GM_SHARE_CHUNK: return k > 0;
        case GM_OTHER_STREAM: return false;
        case GM_LATE_FILL: return st->kind == GS_HANDOFF;
        default: return true; /* no done wait, early done, wrong expect */
        }
    case GS_LOCAL:
        return bit == GM_WRONG_EXPECT || (bit == GM_OTHER_STREAM && gn->streams > 1);
    default: /* a barrier: GM_NO_DONE_WAIT drops one wait of rank dst */
        switch (bit) {
        case GM_NO_DONE_WAIT: return true;
        case GM_HIGH_TARGET: return done_wait || gn->ranks > 2;
        case GM_WAIT_FIRST: return done_wait || st->src != st->dst || gn->ranks > 2;
        case GM_FAR_TARGET:
            return gn->width_bar == CES_U32 && (done_wait || gn->ranks > 2) &&
                   !(st->mut & GM_HIGH_TARGET);
        default: return false;
        }
    }
}

/* A mutated step whose mutations all changed nothing (they apply to parts
 * it does not have) takes one of those that apply to it instead, so that
 * every mutated step is a different schedule; drawn after the whole shape
 * (the flags' widths last), and only then, so that the draws of a seed
 * whose mutations all apply stay as they were. */
static void gen_mut_fix(struct gen *gn, struct gen_step *st, uint32_t k)
{
    uint32_t can[11], n = 0;

    for (uint32_t bit = 1; bit <= GM_LAST; bit <<= 1)
        if ((st->mut & bit) && gen_mut_applies(gn, st, k, bit))
            return;
    /* (a classic step takes no GM_LATE_FILL: the draws of a seed of the
     * classic shapes are as before it) */
    for (uint32_t bit = 1; bit <= GM_LAST; bit <<= 1)
        if (gen_mut_applies(gn, st, k, bit))
            can[n++] = bit;
    /* every kind of step has one that always applies (wrong expect, or the
     * barrier's dropped wait) */
    st->mut = can[gen_below(gn, n)];
    if (st->mut == GM_SHARE_CHUNK)
        st->chunk_dst = gen_below(gn, k);
}

static void gen_choose(struct gen *gn, const struct ces_gen_opts *o)
{
    gn->ranks = o->ranks != 0 ? o->ranks : (gen_chance(gn, 60) ? 2 : 3);
    /* hand-offs need two streams: one in five schedules of them has one */
    gn->streams = o->streams != 0
                      ? o->streams
                      : (gen_chance(gn, gn->shapes == CES_GEN_HANDOFF ? 20 : 55) ? 1 : 2);
    gn->connections = gn->streams > 1 && gen_chance(gn, 35) ? 1 : 0;
    /* of three streams that share queues, all three one (connections 1) or
     * streams 0 and 2 one and stream 1 the other (connections 2, stream s
     * on queue s mod 2), half and half: drawn only for three, so that the
     * seeds of 1 and 2 streams draw as before */
    if (gn->connections != 0 && gn->streams == 3)
        gn->connections = 1 + gen_below(gn, 2);
    gn->width = gen_chance(gn, 60) ? CES_U32 : CES_U64;
    /* u32 flags sometimes step by 0x60000000 so that they wrap. */
    gn->stride = gn->width == CES_U32 && gen_chance(gn, 25) ? UINT64_C(0x60000000) : 1;
    gn->nphases = gen_chance(gn, 65) ? 1 : 2;
    for (uint32_t p = 0; p < gn->nphases; p++) {
        struct gen_phase *ph = &gn->phases[p];
        uint32_t most = o->steps != 0 ? o->steps : (gn->nphases == 1 ? 3 : 2);

        ph->kind = gen_chance(gn, gn->shapes == CES_GEN_HANDOFF ? 30 : 60) ? CES_PHASE_EAGER
                                                                          : CES_PHASE_GRAPH;
        ph->reps = gen_chance(gn, 50) ? 1 : 2;
        /* the hand-off's holes lie between replays: a graph phase of them
         * is replayed 2 or 3 times */
        if (gn->shapes == CES_GEN_HANDOFF && ph->kind == CES_PHASE_GRAPH)
            ph->reps = 2 + gen_below(gn, 2);
        ph->reset = ph->kind == CES_PHASE_GRAPH ? gen_chance(gn, 70) : gen_chance(gn, 15);
        /* a capture freezes the values: replayed, growing ones would repeat,
         * each wait met by the previous replay's write */
        if (ph->kind == CES_PHASE_GRAPH && ph->reps > 1)
            ph->reset = 1;
        ph->nsteps = o->steps != 0 ? o->steps : 1 + gen_below(gn, most);
        for (uint32_t k = 0; k < ph->nsteps; k++)
            gen_choose_step(gn, o, k, &ph->steps[k]);
    }
    /* drawn last, so that adding them kept the earlier choices of a seed */
    gn->width_done = gen_chance(gn, 75) ? gn->width : CES_U32 + CES_U64 - gn->width;
    gn->width_bar = gen_chance(gn, 75) ? gn->width : CES_U32 + CES_U64 - gn->width;
    gn->mcast = gen_chance(gn, 30);
    for (uint32_t p = 0; p < gn->nphases; p++)
        for (uint32_t k = 0; k < gn->phases[p].nsteps; k++)
            if (gn->phases[p].steps[k].mut != 0)
                gen_mut_fix(gn, &gn->phases[p].steps[k], k);
    /* where a local copy moves to another stream: drawn after the
     * mutations are final (three streams only, as above) */
    for (uint32_t p = 0; p < gn->nphases; p++) {
        for (uint32_t k = 0; k < gn->phases[p].nsteps; k++) {
            struct gen_step *st = &gn->phases[p].steps[k];

            st->ostream = st->sstream;
            if (st->kind == GS_LOCAL && (st->mut & GM_OTHER_STREAM) && gn->streams > 1)
                st->ostream = gen_other_stream(gn, st->sstream);
        }
    }
}

/* --- emitting ops -------------------------------------------------------- */

static int gen_op(struct ces_graph *g, uint32_t rank, const struct ces_op *op)
{
    return ces_graph_add_op(g, rank, op);
}

static struct ces_op gen_slot_op(uint32_t kind, uint32_t stream, uint32_t sig, uint32_t rank,
                                 uint32_t idx, uint32_t cmp, uint64_t value)
{
    struct ces_op op;

    memset(&op, 0, sizeof(op));
    op.kind = (uint8_t)kind;
    op.cmp = (uint8_t)cmp;
    op.stream = stream;
    op.slot.sig = sig;
    op.slot.rank = rank;
    op.slot.idx = idx;
    op.value = value;
    return op;
}

static struct ces_op gen_simple_op(uint32_t kind, uint32_t stream)
{
    struct ces_op op;

    memset(&op, 0, sizeof(op));
    op.kind = (uint8_t)kind;
    op.stream = stream;
    return op;
}

static struct ces_region gen_region(uint32_t buf, uint32_t rank, uint64_t lo, uint64_t hi)
{
    struct ces_region r = {buf, rank, lo, hi};

    return r;
}

/* Chunk k of phase p. */
static uint64_t gen_chunk_lo(uint32_t p, uint32_t k)
{
    return ((uint64_t)p * GEN_MAX_STEPS + k) * GEN_CHUNK;
}

/* The value a wait of a step waits for, after the mutations that move it. */
static uint64_t gen_target(const struct gen *gn, const struct gen_step *st, uint32_t width,
                           uint64_t v)
{
    if (st->mut & GM_HIGH_TARGET)
        return v + gn->stride;
    if ((st->mut & GM_FAR_TARGET) && width == CES_U32)
        return v + UINT64_C(0x80000000) + 16;
    return v;
}

/* The sender's copy (plain, a batch of two halves, or a batch of one). */
static int gen_copy(struct gen *gn, struct ces_graph *g, uint32_t rank, uint32_t stream,
                    uint32_t pieces, struct ces_region from, struct ces_region to)
{
    struct ces_op op = gen_simple_op(CES_OP_COPY, stream);
    int rc = CES_OK;

    if (pieces == 1) {
        op.a = from;
        op.b = to;
        return gen_op(g, rank, &op);
    }
    {
        struct ces_op b = gen_simple_op(CES_OP_BATCH, stream);

        rc = gen_op(g, rank, &b);
    }
    if (pieces == 2) {
        uint64_t half = (from.hi - from.lo) / 2;

        op.a = gen_region(from.buf, from.rank, from.lo, from.lo + half);
        op.b = gen_region(to.buf, to.rank, to.lo, to.lo + half);
        if (rc == CES_OK)
            rc = gen_op(g, rank, &op);
        op.a = gen_region(from.buf, from.rank, from.lo + half, from.hi);
        op.b = gen_region(to.buf, to.rank, to.lo + half, to.hi);
    } else {
        op.a = from;
        op.b = to;
    }
    if (rc == CES_OK)
        rc = gen_op(g, rank, &op);
    if (rc == CES_OK) {
        struct ces_op e = gen_simple_op(CES_OP_END, stream);

        rc = gen_op(g, rank, &e);
    }
    (void)gn;
    return rc;
}

/* The receiver's hand-over from its waiting stream to its consuming one,
 * where they differ: a record of e<k> on the first and, unless mutated
 * away (GM_NO_AWAIT), its await on the second. */
static int gen_hand_over(const struct gen *gn, struct ces_graph *g, const struct gen_step *st,
                         uint32_t k)
{
    struct ces_op op;
    int rc;

    if (st->cstream == st->wstream)
        return CES_OK;
    op = gen_simple_op(CES_OP_RECORD, st->wstream);
    op.event = gn->events[k];
    rc = gen_op(g, st->dst, &op);
    if (rc == CES_OK && !(st->mut & GM_NO_AWAIT)) {
        op = gen_simple_op(CES_OP_AWAIT, st->cstream);
        op.event = gn->events[k];
        rc = gen_op(g, st->dst, &op);
    }
    return rc;
}

/* The sender's part of a push or a hand-off, on st->sstream of st->src:
 * produce `from`, wait for "ready" (and reset it), copy `from` into `to`,
 * write "done" (value v), then the arrival flag where `arrival` and a
 * fence where the step has one.  GM_EARLY_DONE writes "done" before the
 * copy: after the wait for "ready", or before the produce where
 * `done_first`. */
static int gen_sender(struct gen *gn, struct ces_graph *g, const struct gen_step *st,
                      struct ces_region from, struct ces_region to, uint32_t slot, uint64_t v,
                      bool reset, bool done_first, bool arrival)
{
    uint32_t s = st->src, d = st->dst;
    bool early = (st->mut & GM_EARLY_DONE) != 0;
    struct ces_op done = gen_slot_op(CES_OP_WRITE, st->sstream, gn->sig_done, d, slot, 0, v);
    struct ces_op op;
    int rc = CES_OK;

    if (early && done_first)
        rc = gen_op(g, s, &done);
    if (rc == CES_OK) {
        op = gen_simple_op(CES_OP_PRODUCE, st->sstream);
        op.a = from;
        rc = gen_op(g, s, &op);
    }
    if (rc == CES_OK && st->handshake && !(st->mut & GM_NO_READY_WAIT)) {
        op = gen_slot_op(CES_OP_WAIT, st->sstream, gn->sig_rdy, s, slot, st->cmp, v);
        rc = gen_op(g, s, &op);
        if (rc == CES_OK && reset) {
            op = gen_slot_op(CES_OP_WRITE, st->sstream, gn->sig_rdy, s, slot, 0, 0);
            rc = gen_op(g, s, &op);
        }
    }
    if (rc == CES_OK && early && !done_first)
        rc = gen_op(g, s, &done);
    if (rc == CES_OK)
        rc = gen_copy(gn, g, s, st->sstream, st->pieces, from, to);
    if (rc == CES_OK && !early)
        rc = gen_op(g, s, &done);
    if (rc == CES_OK && arrival) {
        op = gen_slot_op(CES_OP_WRITE, st->sstream, gn->sig_arr, d, slot, 0, v);
        rc = gen_op(g, s, &op);
    }
    if (rc == CES_OK && st->fence) {
        op = gen_simple_op(CES_OP_FENCE, st->sstream);
        rc = gen_op(g, s, &op);
    }
    return rc;
}

static int gen_push(struct gen *gn, struct ces_graph *g, uint32_t p, uint32_t k,
                    const struct gen_step *st, uint64_t iter, bool reset)
{
    uint64_t v = reset ? gn->stride : iter * gn->stride;
    uint64_t tv = gen_target(gn, st, gn->width_done, v);
    uint32_t s = st->src, d = st->dst;
    struct ces_region from = gen_region(gn->buf_src, s, gen_chunk_lo(p, k),
                                        gen_chunk_lo(p, k) + GEN_CHUNK);
    struct ces_region to = gen_region(gn->buf_dst, d, gen_chunk_lo(p, st->chunk_dst),
                                      gen_chunk_lo(p, st->chunk_dst) + GEN_CHUNK);
    struct ces_op op;
    bool ready_late = (st->mut & GM_WAIT_FIRST) && st->handshake;
    uint32_t slot = p * GEN_MAX_STEPS + k; /* each phase its own flags */
    int rc = CES_OK;

    /* Receiver: ready, wait for done, hand over to the consuming stream,
     * consume. */
    if (st->handshake && !ready_late) {
        op = gen_slot_op(CES_OP_WRITE, st->cstream, gn->sig_rdy, s, slot, 0, v);
        rc = gen_op(g, d, &op);
    }
    if (rc == CES_OK && !(st->mut & GM_NO_DONE_WAIT)) {
        op = gen_slot_op(CES_OP_WAIT, st->wstream, gn->sig_done, d, slot, st->cmp, tv);
        rc = gen_op(g, d, &op);
        if (rc == CES_OK && reset) {
            op = gen_slot_op(CES_OP_WRITE, st->wstream, gn->sig_done, d, slot, 0, 0);
            rc = gen_op(g, d, &op);
        }
    }
    if (rc == CES_OK && ready_late) {
        op = gen_slot_op(CES_OP_WRITE, st->cstream, gn->sig_rdy, s, slot, 0, v);
        rc = gen_op(g, d, &op);
    }
    if (rc == CES_OK)
        rc = gen_hand_over(gn, g, st, k);
    if (rc == CES_OK) {
        op = gen_simple_op(CES_OP_CONSUME, st->cstream);
        op.flags = CES_OPF_EXPECT;
        op.a = to;
        op.b = from;
        if (st->mut & GM_WRONG_EXPECT) {
            /* The other half of the buffer's first chunk of this phase, or
             * the right bytes named on the wrong rank. */
            if (k != 0)
                op.b = gen_region(gn->buf_src, s, gen_chunk_lo(p, 0), gen_chunk_lo(p, 0) + GEN_CHUNK);
            else
                op.b.rank = d;
        }
        rc = gen_op(g, d, &op);
    }

    /* Sender: produce, wait for ready, copy, done. */
    if (rc == CES_OK)
        rc = gen_sender(gn, g, st, from, to, slot, v, reset, false, false);
    return rc;
}

/* A hand-off (GS_HANDOFF): the receiver d fills its landing buffer on
 * stream w, says "ready", waits for "done", resets it and records e<k>; its
 * stream c awaits e<k> and consumes.  The sender produces, waits for
 * "ready", copies into d's buffer and writes "done".  In a graph phase the
 * next replay's fill is ordered after the consume by the replay boundary's
 * link alone.  GM_LATE_FILL: the fill waits (>=, never reset) for an
 * arrival flag the sender raises after its copy, so it overwrites the bytes
 * copied in; GM_EARLY_DONE raises "done" before the sender's produce. */
static int gen_handoff(struct gen *gn, struct ces_graph *g, uint32_t p, uint32_t k,
                       const struct gen_step *st, uint64_t iter, bool reset)
{
    uint64_t v = reset ? gn->stride : iter * gn->stride;
    uint64_t tv = gen_target(gn, st, gn->width_done, v);
    uint32_t s = st->src, d = st->dst, w = st->wstream, c = st->cstream;
    struct ces_region from = gen_region(gn->buf_src, s, gen_chunk_lo(p, k),
                                        gen_chunk_lo(p, k) + GEN_CHUNK);
    struct ces_region to = gen_region(gn->buf_dst, d, gen_chunk_lo(p, st->chunk_dst),
                                      gen_chunk_lo(p, st->chunk_dst) + GEN_CHUNK);
    struct ces_op fill = gen_simple_op(CES_OP_PRODUCE, w), op;
    bool late = (st->mut & GM_LATE_FILL) != 0;
    bool ready_late = (st->mut & GM_WAIT_FIRST) && st->handshake;
    uint32_t slot = p * GEN_MAX_STEPS + k;
    int rc = CES_OK;

    fill.a = to;
    /* Receiver: fill, ready, wait for done and reset it, hand over, consume. */
    if (late) {
        op = gen_slot_op(CES_OP_WAIT, w, gn->sig_arr, d, slot, CES_CMP_GEQ, v);
        rc = gen_op(g, d, &op);
    }
    if (rc == CES_OK)
        rc = gen_op(g, d, &fill);
    if (rc == CES_OK && st->handshake && !ready_late) {
        op = gen_slot_op(CES_OP_WRITE, w, gn->sig_rdy, s, slot, 0, v);
        rc = gen_op(g, d, &op);
    }
    if (rc == CES_OK && !(st->mut & GM_NO_DONE_WAIT)) {
        op = gen_slot_op(CES_OP_WAIT, w, gn->sig_done, d, slot, st->cmp, tv);
        rc = gen_op(g, d, &op);
        if (rc == CES_OK && reset) {
            op = gen_slot_op(CES_OP_WRITE, w, gn->sig_done, d, slot, 0, 0);
            rc = gen_op(g, d, &op);
        }
    }
    if (rc == CES_OK && ready_late) {
        op = gen_slot_op(CES_OP_WRITE, w, gn->sig_rdy, s, slot, 0, v);
        rc = gen_op(g, d, &op);
    }
    if (rc == CES_OK)
        rc = gen_hand_over(gn, g, st, k);
    if (rc == CES_OK) {
        op = gen_simple_op(CES_OP_CONSUME, c);
        op.flags = CES_OPF_EXPECT;
        op.a = to;
        op.b = from;
        if (st->mut & GM_WRONG_EXPECT)
            op.b.rank = d; /* the right bytes named on the receiver */
        rc = gen_op(g, d, &op);
    }

    /* Sender: (early done,) produce, wait for ready and reset it, copy,
     * done, (arrival). */
    if (rc == CES_OK)
        rc = gen_sender(gn, g, st, from, to, slot, v, reset, true, late);
    return rc;
}

static int gen_local(struct gen *gn, struct ces_graph *g, uint32_t p, uint32_t k,
                     const struct gen_step *st)
{
    uint32_t r = st->src, s = st->sstream;
    uint32_t cs = st->ostream;
    struct ces_region from = gen_region(gn->buf_src, r, gen_chunk_lo(p, k),
                                        gen_chunk_lo(p, k) + GEN_CHUNK);
    struct ces_region to = gen_region(gn->buf_dst, r, gen_chunk_lo(p, k),
                                      gen_chunk_lo(p, k) + GEN_CHUNK);
    struct ces_op op = gen_simple_op(CES_OP_PRODUCE, s);
    int rc;

    op.a = from;
    rc = gen_op(g, r, &op);
    if (rc == CES_OK)
        rc = gen_copy(gn, g, r, cs, st->pieces, from, to);
    if (rc == CES_OK) {
        op = gen_simple_op(CES_OP_CONSUME, s);
        op.a = to;
        op.b = from;
        op.flags = CES_OPF_EXPECT;
        if (st->mut & GM_WRONG_EXPECT)
            op.b.rank = (r + 1) % gn->ranks;
        rc = gen_op(g, r, &op);
    }
    return rc;
}

static int gen_barrier(struct gen *gn, struct ces_graph *g, uint32_t p,
                       const struct gen_step *st, bool reset)
{
    uint64_t v = reset ? gn->stride : (gn->bar_seq + 1) * gn->stride;
    uint64_t tv = gen_target(gn, st, gn->width_bar, v);
    uint32_t n = gn->ranks, base = p * n; /* each phase its own flags */
    int rc = CES_OK;

    for (uint32_t r = 0; r < n && rc == CES_OK; r++) {
        uint32_t stream = (r == st->src) ? st->sstream : 0;
        struct ces_op op;
        /* GM_WAIT_FIRST on one rank: it waits before it writes (deadlock). */
        bool late = (st->mut & GM_WAIT_FIRST) && r == st->src;

        for (uint32_t pass = 0; pass < 3 && rc == CES_OK; pass++) {
            bool writes = (pass == 0 && !late) || (pass == 2 && late);

            for (uint32_t j = 1; j < n && rc == CES_OK; j++) {
                uint32_t peer = (r + j) % n;

                if (writes && gn->mcast) {
                    if (j == 1) { /* one write reaches every rank's slot */
                        op = gen_slot_op(CES_OP_WRITE, stream, gn->sig_bar, CES_RANK_ALL,
                                         base + r, 0, v);
                        rc = gen_op(g, r, &op);
                    }
                } else if (writes) {
                    op = gen_slot_op(CES_OP_WRITE, stream, gn->sig_bar, peer, base + r, 0, v);
                    rc = gen_op(g, r, &op);
                } else if (pass == 1) {
                    if ((st->mut & GM_NO_DONE_WAIT) && r == st->dst && j == 1)
                        continue;
                    op = gen_slot_op(CES_OP_WAIT, stream, gn->sig_bar, r, base + peer, st->cmp,
                                     r == st->dst ? tv : v);
                    rc = gen_op(g, r, &op);
                }
            }
            if (pass == 1 && reset) {
                for (uint32_t j = 1; j < n && rc == CES_OK; j++) {
                    op = gen_slot_op(CES_OP_WRITE, stream, gn->sig_bar, r, base + (r + j) % n,
                                     0, 0);
                    rc = gen_op(g, r, &op);
                }
            }
        }
    }
    return rc;
}

static int gen_block(struct gen *gn, struct ces_graph *g, uint32_t p, uint64_t iter)
{
    const struct gen_phase *ph = &gn->phases[p];
    int rc = ces_graph_add_block(g, ph->kind, ph->kind == CES_PHASE_GRAPH ? ph->reps : 1);

    for (uint32_t k = 0; k < ph->nsteps && rc == CES_OK; k++) {
        const struct gen_step *st = &ph->steps[k];

        switch (st->kind) {
        case GS_PUSH:
            rc = gen_push(gn, g, p, k, st, iter, ph->reset != 0);
            break;
        case GS_LOCAL:
            rc = gen_local(gn, g, p, k, st);
            break;
        case GS_HANDOFF:
            rc = gen_handoff(gn, g, p, k, st, iter, ph->reset != 0);
            break;
        default:
            rc = gen_barrier(gn, g, p, st, ph->reset != 0);
            gn->bar_seq++;
            break;
        }
    }
    return rc;
}

static int gen_build(struct ces_ctx *ctx, struct gen *gn, struct ces_graph **out)
{
    struct ces_graph *g = NULL;
    uint64_t size = (uint64_t)GEN_MAX_STEPS * GEN_CHUNK * gn->nphases;
    int rc;

    rc = ces_graph_create(ctx, gn->ranks, gn->streams, &g);
    if (rc != CES_OK)
        goto fail;
    rc = ces_graph_set_connections(g, gn->connections);
    if (rc == CES_OK)
        rc = ces_graph_add_buffer(g, "src", size, &gn->buf_src);
    if (rc == CES_OK)
        rc = ces_graph_add_buffer(g, "dst", size, &gn->buf_dst);
    if (rc == CES_OK)
        rc = ces_graph_add_signal(g, "rdy", gn->width, GEN_MAX_STEPS * gn->nphases,
                                  &gn->sig_rdy);
    if (rc == CES_OK)
        rc = ces_graph_add_signal(g, "done", gn->width_done, GEN_MAX_STEPS * gn->nphases,
                                  &gn->sig_done);
    if (rc == CES_OK)
        rc = ces_graph_add_signal(g, "bar", gn->width_bar, gn->ranks * gn->nphases,
                                  &gn->sig_bar);
    for (uint32_t p = 0; p < gn->nphases && rc == CES_OK; p++) {
        for (uint32_t k = 0; k < gn->phases[p].nsteps && rc == CES_OK; k++) {
            if ((gn->phases[p].steps[k].mut & GM_LATE_FILL) &&
                ces_graph_find_signal(g, "arr") < 0)
                rc = ces_graph_add_signal(g, "arr", gn->width_done,
                                          GEN_MAX_STEPS * gn->nphases, &gn->sig_arr);
        }
    }
    /* Events e<k> for the receivers' stream hand-offs, declared in the order
     * the printed text first names them (block, then rank, then op), so that
     * the text parses back to an equal graph. */
    for (uint32_t p = 0; p < gn->nphases && rc == CES_OK; p++) {
        for (uint32_t r = 0; r < gn->ranks && rc == CES_OK; r++) {
            for (uint32_t k = 0; k < gn->phases[p].nsteps && rc == CES_OK; k++) {
                const struct gen_step *st = &gn->phases[p].steps[k];
                char name[16];

                if ((st->kind != GS_PUSH && st->kind != GS_HANDOFF) || st->dst != r ||
                    st->cstream == st->wstream)
                    continue;
                snprintf(name, sizeof(name), "e%" PRIu32, k);
                if (ces_graph_find_event(g, name) < 0)
                    rc = ces_graph_add_event(g, name, &gn->events[k]);
            }
        }
    }
    for (uint32_t p = 0; p < gn->nphases && rc == CES_OK; p++) {
        const struct gen_phase *ph = &gn->phases[p];
        uint64_t iter = 1;

        /* each phase has flags of its own, their growing values counted
         * from the phase's start: a u32 value that wraps is never first
         * awaited more than 2^31 ahead of the slot's 0, met at once */
        gn->bar_seq = 0;
        if (ph->kind == CES_PHASE_GRAPH) {
            rc = gen_block(gn, g, p, iter); /* replayed with reset values */
        } else {
            for (uint32_t i = 0; i < ph->reps && rc == CES_OK; i++, iter++)
                rc = gen_block(gn, g, p, iter);
        }
    }
    if (rc != CES_OK)
        goto fail;
    rc = ces_graph_validate(g, NULL);
    if (rc != CES_OK)
        goto fail;
    *out = g;
    return CES_OK;

fail:
    ces_graph_destroy(g);
    return rc;
}

/* The largest unrolled program kept for a number of (rank, stream) threads
 * (three streams of 2-3 ranks are 6 or 9: 36 ops, which keeps their
 * unreduced searches within about 100,000 states). */
static uint64_t gen_max_ops(uint32_t threads)
{
    return threads >= 6 ? 36 : threads >= 4 ? 56 : 80;
}

int ces_gen_graph(struct ces_ctx *ctx, uint64_t seed, const struct ces_gen_opts *opts,
                  struct ces_graph **out)
{
    struct ces_gen_opts defaults;
    struct gen gn;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_gen_graph: NULL argument");
    *out = NULL;
    if (opts == NULL) {
        ces_gen_opts_init(&defaults);
        opts = &defaults;
    }
    if (opts->ranks == 1 || opts->ranks > 8)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "gen: ranks must be 2..8, not %" PRIu32,
                             opts->ranks);
    if (opts->streams > 3)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "gen: streams must be 1..3, not %" PRIu32,
                             opts->streams);
    if (opts->steps > GEN_MAX_STEPS)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "gen: steps must be 1..%u, not %" PRIu32,
                             GEN_MAX_STEPS, opts->steps);
    if (opts->mutate_pct > 100)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "gen: mutate_pct must be 0..100, not %" PRIu32,
                             opts->mutate_pct);
    if (opts->shapes > CES_GEN_HANDOFF)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "gen: shapes must be CES_GEN_CLASSIC or CES_GEN_HANDOFF, not %" PRIu32,
                             opts->shapes);
    memset(&gn, 0, sizeof(gn));
    gn.shapes = opts->shapes;
    gn.rng = seed;
    /* Redraw (from the same stream of random numbers) while the unrolled
     * program is too large to exhaust quickly without reduction: the
     * differential test runs hundreds of these. */
    for (uint32_t attempt = 0;; attempt++) {
        struct ces_graph *g = NULL;
        uint64_t ops = 0;
        int rc;

        gen_choose(&gn, opts);
        rc = gen_build(ctx, &gn, &g);
        if (rc != CES_OK)
            return rc;
        for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
            for (uint32_t r = 0; r < gn.ranks; r++) {
                uint32_t n;

                (void)ces_graph_ops(g, b, r, &n);
                ops += (uint64_t)n * ces_graph_block(g, b).reps;
            }
        }
        if (ops <= gen_max_ops(gn.ranks * gn.streams) || attempt >= 16 || opts->ranks > 3) {
            *out = g;
            return CES_OK;
        }
        ces_graph_destroy(g);
    }
}

int ces_gen_source(struct ces_ctx *ctx, uint64_t seed, const struct ces_gen_opts *opts,
                   char **text, size_t *len)
{
    struct ces_graph *g = NULL;
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (text == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_gen_source: NULL argument");
    *text = NULL;
    rc = ces_gen_graph(ctx, seed, opts, &g);
    if (rc == CES_OK)
        rc = ces_graph_print(ctx, g, 0, text, len);
    ces_graph_destroy(g);
    return rc;
}
