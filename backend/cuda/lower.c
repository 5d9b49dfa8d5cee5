/*
 * backend/cuda/lower.c - lowering: one rank of a concrete op graph becomes
 * the list of CUDA calls that rank issues, block by block.  A pure function
 * of (graph, rank, device capabilities, flags); the runtime (exec.c) only
 * resolves addresses and issues the calls.
 *
 *   batch ... end      -> one cudaMemcpyBatchAsync (eager) or one
 *                         cudaMemcpyAsync per copy (capture: the batch call
 *                         fails under stream capture);
 *   copy (no batch)    -> one cudaMemcpyAsync;
 *   write/wait/fence/  -> consecutive ones of a stream are merged into
 *   flush                 cuStreamBatchMemOp calls of at most 255 ops (eager,
 *                         a barrier behind long copies as two: lower.h,
 *                         CES_CUDA_SPLIT_WAIT_BYTES);
 *   (write SLOT@* is already one unicast write per rank in the graph, rank
 *   0 first: ces_graph_add_op; never a multicast object);
 *   record/await       -> cudaEventRecord / cudaStreamWaitEvent;
 *   produce/consume    -> hooks for the application (cesync run).
 * Also pure: the hardware queues CUDA_DEVICE_MAX_CONNECTIONS gives a
 * process, and the rule that a graph runs only under the queues it was
 * checked for (its `connections`).
 */
#include "lower.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const call_names[] = {
#define CES_X_(e, n) n,
    CES_CUDA_CALL_MAP(CES_X_)
#undef CES_X_
};
_Static_assert(sizeof(call_names) / sizeof(call_names[0]) == CES_CALL_COUNT,
               "call name table matches the call kinds");
_Static_assert(sizeof(struct ces_cuda_memop) == 40, "memops have no hidden padding");

const char *ces_cuda_call_name(int kind)
{
    return kind >= 0 && kind < CES_CALL_COUNT ? call_names[kind] : NULL;
}

/* The per-block lowering state: pending memops and open batches per stream. */
struct lower_state {
    struct ces_ctx *ctx;
    const struct ces_graph *g;
    uint32_t rank;
    uint32_t max;      /* memops per call */
    int progress;      /* eager: progress writes */
    int flight;        /* captured: enter/exit writes */
    uint64_t split;    /* caps->split_wait_bytes */
    struct ces_cuda_pblock *blk;
    struct ces_vec *pend_ops;    /* [streams] struct ces_cuda_memop */
    struct ces_vec *pend_copies; /* [streams] struct ces_cuda_copy */
    uint32_t *pend_op;           /* [streams] graph op that opened the run / batch */
    uint8_t *open;               /* [streams] inside batch ... end */
    uint64_t *copied;            /* [streams] bytes between ranks of the copies
                                    since the stream's last memop run */
    uint64_t *before;            /* [streams] ops of the stream in every replay of
                                    the earlier blocks: an op's #K in messages is
                                    before + its position in the block, as the
                                    checker numbers ops */
};

static int push_call(struct lower_state *st, const struct ces_cuda_call *c)
{
    if (ces_vec_push(st->ctx, &st->blk->calls, sizeof(*c), c) != CES_OK)
        return ces_ctx_error(st->ctx, CES_ERR_NOMEM, "out of memory lowering a graph");
    return CES_OK;
}

/* Where the pending run of stream s splits (CES_CUDA_SPLIT_WAIT_BYTES):
 * before its first wait when the run follows copies of at least st->split
 * bytes between ranks and a write before that wait is to the wait's signal
 * array; 0 for no split. */
static size_t split_point(const struct lower_state *st, uint32_t s)
{
    const struct ces_vec *pv = &st->pend_ops[s];
    size_t k = 0;

    if (st->blk->capture || st->split == 0 || st->copied[s] < st->split)
        return 0;
    while (k < pv->len && CES_VEC_AT(pv, struct ces_cuda_memop, k).kind != CES_MEMOP_WAIT32 &&
           CES_VEC_AT(pv, struct ces_cuda_memop, k).kind != CES_MEMOP_WAIT64)
        k++;
    for (size_t j = 0; j < k && k < pv->len; j++) {
        const struct ces_cuda_memop *w = &CES_VEC_AT(pv, struct ces_cuda_memop, j);

        if ((w->kind == CES_MEMOP_WRITE32 || w->kind == CES_MEMOP_WRITE64) &&
            w->slot.sig == CES_VEC_AT(pv, struct ces_cuda_memop, k).slot.sig)
            return k;
    }
    return 0;
}

/* Emits the pending memops of stream s as calls of at most `chunk` ops.  A
 * call that holds a wait gets the watchdog's writes when asked: eager, a
 * progress write at its end, so that the progress word counts sync steps
 * that completed (thin_progress later keeps only some); captured, an ENTER
 * write first and an EXIT write last, so that the in-flight word is nonzero
 * exactly while the stream is inside the call (see watchdog.c for why this
 * suffices under replay). */
static int flush_memops(struct lower_state *st, uint32_t s)
{
    struct ces_vec *pv = &st->pend_ops[s];
    size_t done = 0, split = split_point(st, s);
    uint32_t extra = st->progress ? 1u : st->flight ? 2u : 0u;
    int rc = CES_OK;

    if (pv->len == 0)
        return CES_OK; /* copies before and after count together */
    st->copied[s] = 0;
    while (done < pv->len) {
        size_t n = pv->len - done < st->max ? pv->len - done : st->max;
        struct ces_cuda_call c;
        struct ces_cuda_memop wm;
        int waits = 0;

        if (split > done && n > split - done)
            n = split - done; /* the barrier's writes alone */

        /* A call that holds a wait needs `extra` entries for the watchdog. */
        if (extra > 0 && n + extra > st->max) {
            for (size_t i = 0; i < n && !waits; i++) {
                uint8_t k = CES_VEC_AT(pv, struct ces_cuda_memop, done + i).kind;

                waits = k == CES_MEMOP_WAIT32 || k == CES_MEMOP_WAIT64;
            }
            if (waits)
                n = st->max - extra;
        }
        waits = 0;
        for (size_t i = 0; i < n && !waits; i++) {
            uint8_t k = CES_VEC_AT(pv, struct ces_cuda_memop, done + i).kind;

            waits = k == CES_MEMOP_WAIT32 || k == CES_MEMOP_WAIT64;
        }

        memset(&c, 0, sizeof(c));
        c.kind = CES_CALL_MEMOPS;
        c.stream = s;
        c.first = (uint32_t)st->blk->memops.len;
        c.op = CES_VEC_AT(pv, struct ces_cuda_memop, done).op;
        memset(&wm, 0, sizeof(wm));
        if (waits && st->flight) {
            wm.kind = CES_MEMOP_ENTER;
            if (ces_vec_push(st->ctx, &st->blk->memops, sizeof(wm), &wm) != CES_OK)
                goto nomem;
        }
        for (size_t i = 0; i < n; i++) {
            const struct ces_cuda_memop *m = &CES_VEC_AT(pv, struct ces_cuda_memop, done + i);

            if (ces_vec_push(st->ctx, &st->blk->memops, sizeof(*m), m) != CES_OK)
                goto nomem;
        }
        if (waits && (st->progress || st->flight)) {
            wm.kind = st->progress ? CES_MEMOP_PROGRESS : CES_MEMOP_EXIT;
            if (ces_vec_push(st->ctx, &st->blk->memops, sizeof(wm), &wm) != CES_OK)
                goto nomem;
        }
        c.count = (uint32_t)(st->blk->memops.len - c.first);
        c.waits = (uint8_t)waits;
        assert(c.count <= st->max);
        rc = push_call(st, &c);
        if (rc != CES_OK)
            return rc;
        done += n;
    }
    pv->len = 0;
    return CES_OK;
nomem:
    return ces_ctx_error(st->ctx, CES_ERR_NOMEM, "out of memory lowering a graph");
}

static int push_memop(struct lower_state *st, uint32_t s, const struct ces_cuda_memop *m)
{
    if (ces_vec_push(st->ctx, &st->pend_ops[s], sizeof(*m), m) != CES_OK)
        return ces_ctx_error(st->ctx, CES_ERR_NOMEM, "out of memory lowering a graph");
    return CES_OK;
}

static void count_copied(struct lower_state *st, uint32_t s, const struct ces_cuda_copy *cp)
{
    if (cp->src.rank != cp->dst.rank)
        st->copied[s] += cp->src.hi - cp->src.lo;
}

/* Emits the copies of the batch that `end` closes on stream s.  Every copy
 * of the batch goes out before any later op of the stream, so a flag write
 * that follows `end` is always a later stream operation than the copies it
 * announces (copies inside one batch call have no order). */
static int emit_batch(struct lower_state *st, uint32_t s, int capture)
{
    struct ces_vec *cv = &st->pend_copies[s];
    struct ces_cuda_call c;
    int rc;

    if (cv->len == 0)
        return CES_OK;
    memset(&c, 0, sizeof(c));
    c.stream = s;
    c.op = st->pend_op[s];
    if (ces_vec_reserve(st->ctx, &st->blk->copies, sizeof(struct ces_cuda_copy), cv->len) !=
        CES_OK)
        return ces_ctx_error(st->ctx, CES_ERR_NOMEM, "out of memory lowering a graph");
    for (size_t i = 0; i < cv->len; i++) {
        const struct ces_cuda_copy *cp = &CES_VEC_AT(cv, struct ces_cuda_copy, i);

        rc = ces_vec_push(st->ctx, &st->blk->copies, sizeof(struct ces_cuda_copy), cp);
        assert(rc == CES_OK);
        (void)rc;
        count_copied(st, s, cp);
    }
    if (capture) {
        c.kind = CES_CALL_COPY;
        c.count = 1;
        for (size_t i = 0; i < cv->len; i++) {
            c.first = (uint32_t)(st->blk->copies.len - cv->len + i);
            rc = push_call(st, &c);
            if (rc != CES_OK)
                return rc;
        }
    } else {
        c.kind = CES_CALL_COPY_BATCH;
        c.first = (uint32_t)(st->blk->copies.len - cv->len);
        c.count = (uint32_t)cv->len;
        rc = push_call(st, &c);
        if (rc != CES_OK)
            return rc;
    }
    cv->len = 0;
    return CES_OK;
}

static int op_error(struct lower_state *st, int status, uint32_t stream, uint32_t spos,
                    const struct ces_op *op, const char *why)
{
    char where[80], text[160];

    ces_op_where(where, sizeof(where), st->rank, stream, st->before[stream] + spos, op);
    ces_op_format(st->g, st->rank, op, text, sizeof(text));
    return ces_ctx_error(st->ctx, status, "%s: %s: %s", where, text, why);
}

static int lower_op(struct lower_state *st, const struct ces_op *op, uint32_t index,
                    uint32_t spos, int capture, const struct ces_cuda_caps *caps)
{
    uint32_t s = op->stream;
    struct ces_cuda_memop m;
    struct ces_cuda_call c;
    int rc;

    memset(&m, 0, sizeof(m));
    memset(&c, 0, sizeof(c));
    m.op = index;
    m.spos = st->before[s] + spos;
    c.stream = s;
    c.op = index;
    switch (op->kind) {
    case CES_OP_WRITE:
    case CES_OP_WAIT: {
        uint32_t width = ces_graph_signal(st->g, op->slot.sig).width;

        if (width == CES_U64 && !caps->can_64bit)
            return op_error(st, CES_ERR_UNSUPPORTED, s, spos, op,
                            "u64 signals need 64-bit stream memory operations, which this "
                            "device does not support");
        m.slot = op->slot;
        m.value = op->value;
        if (op->kind == CES_OP_WAIT) {
            if (capture && (op->flags & CES_OPF_FROZEN))
                return op_error(st, CES_ERR_UNSUPPORTED, s, spos, op,
                                "the wait reads $i (in its slot or its value) but graph "
                                "capture freezes it, so replays would pass on stale flags; use "
                                "a graph-safe protocol: pull (every captured collective's but "
                                "the barrier's) or credit (the barrier's)");
            m.kind = width == CES_U64 ? CES_MEMOP_WAIT64 : CES_MEMOP_WAIT32;
            m.cmp = op->cmp;
            return push_memop(st, s, &m);
        }
        m.kind = width == CES_U64 ? CES_MEMOP_WRITE64 : CES_MEMOP_WRITE32;
        return push_memop(st, s, &m);
    }
    case CES_OP_FENCE:
        m.kind = CES_MEMOP_BARRIER;
        return push_memop(st, s, &m);
    case CES_OP_FLUSH:
        if (!caps->can_flush)
            return op_error(st, CES_ERR_UNSUPPORTED, s, spos, op,
                            "this device cannot flush remote writes "
                            "(CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES is 0)");
        m.kind = CES_MEMOP_FLUSH;
        return push_memop(st, s, &m);
    case CES_OP_BATCH:
        rc = flush_memops(st, s);
        st->open[s] = 1;
        st->pend_op[s] = index;
        return rc;
    case CES_OP_END:
        st->open[s] = 0;
        return emit_batch(st, s, capture);
    case CES_OP_COPY: {
        struct ces_cuda_copy cp = {op->a, op->b};

        if (st->open[s]) {
            if (ces_vec_push(st->ctx, &st->pend_copies[s], sizeof(cp), &cp) != CES_OK)
                return ces_ctx_error(st->ctx, CES_ERR_NOMEM, "out of memory lowering a graph");
            return CES_OK;
        }
        rc = flush_memops(st, s);
        if (rc != CES_OK)
            return rc;
        if (ces_vec_push(st->ctx, &st->blk->copies, sizeof(cp), &cp) != CES_OK)
            return ces_ctx_error(st->ctx, CES_ERR_NOMEM, "out of memory lowering a graph");
        count_copied(st, s, &cp);
        c.kind = CES_CALL_COPY;
        c.first = (uint32_t)st->blk->copies.len - 1;
        c.count = 1;
        return push_call(st, &c);
    }
    case CES_OP_RECORD:
    case CES_OP_AWAIT:
        rc = flush_memops(st, s);
        if (rc != CES_OK)
            return rc;
        c.kind = op->kind == CES_OP_RECORD ? CES_CALL_RECORD : CES_CALL_AWAIT;
        c.event = op->event;
        return push_call(st, &c);
    case CES_OP_PRODUCE:
    case CES_OP_CONSUME:
        rc = flush_memops(st, s);
        if (rc != CES_OK)
            return rc;
        c.kind = op->kind == CES_OP_PRODUCE ? CES_CALL_PRODUCE : CES_CALL_CONSUME;
        c.a = op->a;
        c.b = op->b;
        c.expect = (op->flags & CES_OPF_EXPECT) != 0;
        return push_call(st, &c);
    default:
        return op_error(st, CES_ERR_INTERNAL, s, spos, op, "unknown op kind");
    }
}

static void free_state(struct lower_state *st, uint32_t streams)
{
    for (uint32_t s = 0; s < streams; s++) {
        if (st->pend_ops != NULL)
            ces_vec_free(st->ctx, &st->pend_ops[s]);
        if (st->pend_copies != NULL)
            ces_vec_free(st->ctx, &st->pend_copies[s]);
    }
    ces_free(st->ctx, st->pend_ops);
    ces_free(st->ctx, st->pend_copies);
    ces_free(st->ctx, st->pend_op);
    ces_free(st->ctx, st->open);
    ces_free(st->ctx, st->copied);
    ces_free(st->ctx, st->before);
}

/* Eager, flush_memops ends every call that waits with a progress write;
 * this keeps it only on the last such call of each stream in the block and
 * on every CES_PROGRESS_SPAN-th before it, and closes the gaps in the
 * block's memops.  A progress write costs its call about 0.9 us on H200
 * (1.3 when the word was in host memory: the next write's fence waits for
 * it; scripts/probe_memops.sh, "alltoall"), so a collective with two
 * barriers saves one; the watchdog learns which call of a span a blocked
 * stream is in from their slots (watchdog.c).  A block's memops are in the
 * order of its memop calls, so the compaction moves them down in place. */
static int thin_progress(struct lower_state *st, uint32_t streams)
{
    struct ces_cuda_pblock *blk = st->blk;
    uint32_t *left = ces_malloc(st->ctx, 2 * streams * sizeof(uint32_t)), *since;
    size_t w = 0;

    if (left == NULL)
        return ces_ctx_error(st->ctx, CES_ERR_NOMEM, "out of memory lowering a graph");
    since = left + streams;
    memset(left, 0, 2 * streams * sizeof(uint32_t));
    for (size_t i = 0; i < blk->calls.len; i++) {
        const struct ces_cuda_call *c = &CES_VEC_AT(&blk->calls, struct ces_cuda_call, i);

        if (c->kind == CES_CALL_MEMOPS && c->waits)
            left[c->stream]++;
    }
    for (size_t i = 0; i < blk->calls.len; i++) {
        struct ces_cuda_call *c = &CES_VEC_AT(&blk->calls, struct ces_cuda_call, i);
        uint32_t keep;

        if (c->kind != CES_CALL_MEMOPS)
            continue;
        keep = c->count;
        if (c->waits) {
            assert(CES_VEC_AT(&blk->memops, struct ces_cuda_memop, c->first + c->count - 1).kind ==
                   CES_MEMOP_PROGRESS);
            if (--left[c->stream] > 0 && ++since[c->stream] < CES_PROGRESS_SPAN)
                keep--;
            else
                since[c->stream] = 0;
        }
        memmove(&CES_VEC_AT(&blk->memops, struct ces_cuda_memop, w),
                &CES_VEC_AT(&blk->memops, struct ces_cuda_memop, c->first),
                keep * sizeof(struct ces_cuda_memop));
        c->first = (uint32_t)w;
        c->count = keep;
        w += keep;
    }
    blk->memops.len = w;
    ces_free(st->ctx, left);
    return CES_OK;
}

static int lower_block(struct lower_state *st, uint32_t b, const struct ces_cuda_caps *caps,
                       unsigned flags)
{
    const struct ces_graph *g = st->g;
    uint32_t streams = ces_graph_streams(g), n = 0, last = UINT32_MAX;
    const struct ces_op *ops = ces_graph_ops(g, b, st->rank, &n);
    struct ces_cuda_pblock *blk = &st->blk[0];
    int capture, rc = CES_OK;

    blk->info = ces_graph_block(g, b);
    capture = (flags & CES_LOWER_CAPTURE) || blk->info.kind == CES_PHASE_GRAPH;
    blk->capture = capture;
    if (!(flags & CES_LOWER_UNLINKED))
        ces_graph_links(g, b, st->rank, &blk->fork, &blk->join);
    st->split = caps->split_wait_bytes;
    st->progress = (flags & CES_LOWER_PROGRESS) && !capture;
    st->flight = (flags & CES_LOWER_FLIGHT) && capture;
    st->max = caps->max_memops ? caps->max_memops : CES_CUDA_MAX_MEMOPS;
    blk->stream_ops = ces_malloc(st->ctx, streams * sizeof(uint32_t));
    if (blk->stream_ops == NULL)
        return ces_ctx_error(st->ctx, CES_ERR_NOMEM, "out of memory lowering a graph");
    memset(blk->stream_ops, 0, streams * sizeof(uint32_t));
    for (uint32_t i = 0; i < n && rc == CES_OK; i++) {
        uint32_t s = ops[i].stream;

        /* Captured, an await of a record outside the block is left out: that
         * record ran in an earlier block or replay, which the fork and join
         * order before this one already (the checker's links), and a CUDA
         * graph cannot wait on work outside its capture
         * (CUDA_ERROR_STREAM_CAPTURE_ISOLATION). */
        if (capture && ops[i].kind == CES_OP_AWAIT && !ces_graph_awaits_earlier(ops, i)) {
            blk->stream_ops[s]++;
            continue;
        }
        /* With shared hardware queues (connections > 0, `any` among them)
         * the checked order of ops entering a queue is the line order, so a
         * stream's run of memops is issued before any op of another stream
         * is. */
        if (ces_graph_connections(g) > 0 && last != UINT32_MAX && last != s)
            rc = flush_memops(st, last);
        if (rc == CES_OK)
            rc = lower_op(st, &ops[i], i, blk->stream_ops[s]++, capture, caps);
        last = s;
    }
    for (uint32_t s = 0; s < streams && rc == CES_OK; s++) {
        assert(!st->open[s]); /* validation guarantees every batch ends */
        rc = flush_memops(st, s);
    }
    if (rc == CES_OK && st->progress)
        rc = thin_progress(st, streams);
    return rc;
}

int ces_cuda_lower(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t rank,
                   const struct ces_cuda_caps *caps, unsigned flags, struct ces_cuda_plan **out)
{
    struct ces_cuda_plan *p = NULL;
    struct lower_state st;
    uint32_t streams;
    int rc = CES_OK;

    if (ctx == NULL || g == NULL || caps == NULL || out == NULL)
        return CES_ERR_INVALID;
    *out = NULL;
    if (rank >= ces_graph_ranks(g))
        return ces_ctx_error(ctx, CES_ERR_INVALID, "rank %" PRIu32 " out of range: the graph has %" PRIu32 " ranks", rank,
                             ces_graph_ranks(g));
    rc = ces_graph_require_valid(ctx, g, "lower");
    if (rc != CES_OK)
        return rc;
    if (caps->max_memops > CES_CUDA_MAX_MEMOPS || caps->max_memops == 1)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "max_memops must be 2..%u or 0",
                             CES_CUDA_MAX_MEMOPS);
    if ((flags & CES_LOWER_FLIGHT) && caps->max_memops == 2)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "max_memops must be 3..%u or 0 with enter/exit writes",
                             CES_CUDA_MAX_MEMOPS);
    rc = ces_graph_u64_cyclic(ctx, g, NULL);
    if (rc != CES_OK)
        return rc;
    streams = ces_graph_streams(g);
    memset(&st, 0, sizeof(st));
    st.ctx = ctx;
    st.g = g;
    st.rank = rank;
    p = ces_malloc(ctx, sizeof(*p));
    if (p == NULL)
        goto nomem;
    memset(p, 0, sizeof(*p));
    p->ctx = ctx;
    p->rank = rank;
    p->ranks = ces_graph_ranks(g);
    p->streams = streams;
    p->nblocks = ces_graph_nblocks(g);
    if (p->nblocks > 0) {
        p->blocks = ces_malloc(ctx, p->nblocks * sizeof(*p->blocks));
        if (p->blocks == NULL)
            goto nomem;
        memset(p->blocks, 0, p->nblocks * sizeof(*p->blocks));
    }
    st.pend_ops = ces_malloc(ctx, streams * sizeof(*st.pend_ops));
    st.pend_copies = ces_malloc(ctx, streams * sizeof(*st.pend_copies));
    st.pend_op = ces_malloc(ctx, streams * sizeof(*st.pend_op));
    st.open = ces_malloc(ctx, streams);
    st.copied = ces_malloc(ctx, streams * sizeof(*st.copied));
    st.before = ces_malloc(ctx, streams * sizeof(*st.before));
    if (st.pend_ops != NULL)
        memset(st.pend_ops, 0, streams * sizeof(*st.pend_ops));
    if (st.pend_copies != NULL)
        memset(st.pend_copies, 0, streams * sizeof(*st.pend_copies));
    if (st.pend_ops == NULL || st.pend_copies == NULL || st.pend_op == NULL || st.open == NULL ||
        st.copied == NULL || st.before == NULL)
        goto nomem;
    memset(st.before, 0, streams * sizeof(*st.before));
    memset(st.pend_op, 0, streams * sizeof(*st.pend_op));
    memset(st.open, 0, streams);
    memset(st.copied, 0, streams * sizeof(*st.copied));
    for (uint32_t b = 0; b < p->nblocks && rc == CES_OK; b++) {
        st.blk = &p->blocks[b];
        rc = lower_block(&st, b, caps, flags);
        for (uint32_t s = 0; s < streams && rc == CES_OK; s++)
            st.before[s] += (uint64_t)st.blk->stream_ops[s] * st.blk->info.reps;
    }
    if (rc != CES_OK)
        goto fail;
    free_state(&st, streams);
    *out = p;
    return CES_OK;
nomem:
    rc = ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory lowering a graph");
fail:
    free_state(&st, streams);
    ces_cuda_plan_destroy(p);
    return rc;
}

void ces_cuda_plan_destroy(struct ces_cuda_plan *p)
{
    if (p == NULL)
        return;
    for (uint32_t b = 0; p->blocks != NULL && b < p->nblocks; b++) {
        ces_vec_free(p->ctx, &p->blocks[b].calls);
        ces_vec_free(p->ctx, &p->blocks[b].copies);
        ces_vec_free(p->ctx, &p->blocks[b].memops);
        ces_free(p->ctx, p->blocks[b].stream_ops);
    }
    ces_free(p->ctx, p->blocks);
    ces_free(p->ctx, p);
}

/* --- hardware queues ---------------------------------------------------- */

uint32_t ces_cuda_queues(const char *env)
{
    char *end = NULL;
    long v;

    if (env == NULL || *env == '\0')
        return CES_CUDA_QUEUES_DEFAULT;
    v = strtol(env, &end, 10);
    return *end == '\0' && v >= 1 && v <= (long)CES_CUDA_QUEUES_MAX ? (uint32_t)v
                                                                     : CES_CUDA_QUEUES_DEFAULT;
}

uint32_t ces_cuda_queues_shared(uint32_t queues)
{
    return queues < CES_CUDA_QUEUES_DEFAULT ? queues : 0;
}

uint64_t ces_cuda_side_min(uint64_t side_min, uint32_t queues)
{
    return ces_cuda_queues_shared(queues) ? UINT64_MAX : side_min;
}

/* The queues that n queues (a graph's connections or a process's) give a
 * rank's `streams` streams: 0 when each has one of its own, else n. */
static uint32_t shared_queues(uint32_t n, uint32_t streams)
{
    return n > 0 && n < streams ? n : 0;
}

int ces_cuda_queues_check(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t queues)
{
    uint32_t streams = ces_graph_streams(g), conn = ces_graph_connections(g);
    uint32_t checked = shared_queues(conn, streams), real = shared_queues(queues, streams);
    char model[128], run[96] = "", conn_at[32], streams_at[32] = "";

    if (checked == real || conn == CES_CONNECTIONS_ANY)
        return CES_OK; /* `connections any` was checked under every assignment */
    /* the file's line that the queues refuse: its connections, or where it
     * gives none (0, the default), its streams */
    ces_setting_where(conn_at, sizeof(conn_at), g, CES_SETTING_CONNECTIONS);
    if (conn_at[0] == '\0')
        ces_setting_where(streams_at, sizeof(streams_at), g, CES_SETTING_STREAMS);
    if (checked == 0)
        snprintf(model, sizeof(model), "each of its %" PRIu32 " streams%s on a queue of its own",
                 streams, streams_at);
    else
        snprintf(model, sizeof(model), "its %" PRIu32 " streams sharing %" PRIu32 " queue%s",
                 streams, checked, ces_plural(checked));
    /* The run that the check covers: enough queues for every stream (if CUDA
     * gives that many), or exactly the queues checked. */
    if (checked == 0 && streams <= CES_CUDA_QUEUES_MAX)
        snprintf(run, sizeof(run), ", or run it with CUDA_DEVICE_MAX_CONNECTIONS=%" PRIu32
                 " or more", streams);
    else if (checked > 0)
        snprintf(run, sizeof(run), ", or run it with CUDA_DEVICE_MAX_CONNECTIONS=%" PRIu32,
                 checked);
    return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                         "ces_launch: the schedule was checked with connections %" PRIu32
                         "%s (%s) but this process has %" PRIu32 " hardware queue%s per GPU "
                         "(CUDA_DEVICE_MAX_CONNECTIONS; %u when unset), so the check did not "
                         "model how its streams are queued here; check it with "
                         "`connections %" PRIu32 "` (or `connections any`: every assignment)%s",
                         conn, conn_at, model, queues, ces_plural(queues), CES_CUDA_QUEUES_DEFAULT,
                         real, run);
}

int ces_cuda_queues_adopt(struct ces_graph *g, uint32_t queues)
{
    if (shared_queues(queues, ces_graph_streams(g)) == 0 ||
        ces_graph_connections(g) == CES_CONNECTIONS_ANY)
        return CES_OK;
    return ces_graph_set_connections(g, queues);
}

/* --- text form ---------------------------------------------------------- */

static void fmt_region(struct ces_sb *sb, const struct ces_graph *g, const struct ces_region *r)
{
    ces_sb_printf(sb, "%s[%" PRIu64 ":%" PRIu64 "]@%" PRIu32, ces_graph_buffer(g, r->buf).name,
                  r->lo, r->hi, r->rank);
}

static void fmt_memop(struct ces_sb *sb, const struct ces_graph *g, const struct ces_cuda_memop *m)
{
    const char *name = "";

    if (m->kind <= CES_MEMOP_WAIT64)
        name = ces_graph_signal(g, m->slot.sig).name;
    switch (m->kind) {
    case CES_MEMOP_WRITE32:
    case CES_MEMOP_WRITE64:
        ces_sb_printf(sb, "write%s %s[%" PRIu32 "]@%" PRIu32 " = %" PRIu64,
                      m->kind == CES_MEMOP_WRITE64 ? "64" : "32", name, m->slot.idx, m->slot.rank,
                      m->value);
        break;
    case CES_MEMOP_WAIT32:
    case CES_MEMOP_WAIT64:
        ces_sb_printf(sb, "wait%s %s[%" PRIu32 "]@%" PRIu32 " %s %" PRIu64,
                      m->kind == CES_MEMOP_WAIT64 ? "64" : "32", name, m->slot.idx, m->slot.rank,
                      m->cmp == CES_CMP_EQ ? "==" : ">=", m->value);
        break;
    case CES_MEMOP_BARRIER:
        ces_sb_puts(sb, "barrier");
        break;
    case CES_MEMOP_FLUSH:
        ces_sb_puts(sb, "flush");
        break;
    case CES_MEMOP_ENTER:
        ces_sb_puts(sb, "enter");
        break;
    case CES_MEMOP_EXIT:
        ces_sb_puts(sb, "exit");
        break;
    default:
        ces_sb_puts(sb, "progress");
        break;
    }
}

int ces_cuda_plan_format(struct ces_ctx *ctx, const struct ces_graph *g,
                         const struct ces_cuda_plan *p, char **text)
{
    struct ces_sb sb;

    if (ctx == NULL || g == NULL || p == NULL || text == NULL)
        return CES_ERR_INVALID;
    ces_sb_init(&sb, ctx);
    for (uint32_t b = 0; b < p->nblocks; b++) {
        const struct ces_cuda_pblock *blk = &p->blocks[b];

        ces_sb_printf(&sb, "block %" PRIu32 " %s x%" PRIu32 " first %" PRIu64 "%s\n", b,
                      blk->info.kind == CES_PHASE_GRAPH ? "graph" : "eager", blk->info.reps,
                      blk->info.first_iter, blk->capture ? " capture" : "");
        for (uint32_t s = 1; s < p->streams; s++)
            if (blk->fork & (UINT64_C(1) << s))
                ces_sb_printf(&sb, "s%" PRIu32 " fork\n", s);
        for (size_t i = 0; i < blk->calls.len; i++) {
            const struct ces_cuda_call *c = &CES_VEC_AT(&blk->calls, struct ces_cuda_call, i);

            ces_sb_printf(&sb, "s%" PRIu32 " %s", c->stream, ces_cuda_call_name(c->kind));
            switch (c->kind) {
            case CES_CALL_COPY_BATCH:
            case CES_CALL_COPY:
                ces_sb_printf(&sb, " %" PRIu32 " [", c->count);
                for (uint32_t k = 0; k < c->count; k++) {
                    const struct ces_cuda_copy *cp =
                        &CES_VEC_AT(&blk->copies, struct ces_cuda_copy, c->first + k);

                    if (k > 0)
                        ces_sb_puts(&sb, ", ");
                    fmt_region(&sb, g, &cp->src);
                    ces_sb_puts(&sb, " -> ");
                    fmt_region(&sb, g, &cp->dst);
                }
                ces_sb_puts(&sb, "]");
                break;
            case CES_CALL_MEMOPS:
                ces_sb_printf(&sb, " %" PRIu32 " [", c->count);
                for (uint32_t k = 0; k < c->count; k++) {
                    if (k > 0)
                        ces_sb_puts(&sb, "; ");
                    fmt_memop(&sb, g,
                              &CES_VEC_AT(&blk->memops, struct ces_cuda_memop, c->first + k));
                }
                ces_sb_puts(&sb, "]");
                break;
            case CES_CALL_RECORD:
            case CES_CALL_AWAIT:
                ces_sb_printf(&sb, " %s", ces_graph_event(g, c->event));
                break;
            default:
                ces_sb_puts(&sb, " ");
                fmt_region(&sb, g, &c->a);
                if (c->expect) {
                    ces_sb_puts(&sb, " == ");
                    fmt_region(&sb, g, &c->b);
                }
                break;
            }
            ces_sb_puts(&sb, "\n");
        }
        for (uint32_t s = 1; s < p->streams; s++)
            if (blk->join & (UINT64_C(1) << s))
                ces_sb_printf(&sb, "s%" PRIu32 " join\n", s);
    }
    return ces_sb_finish(&sb, text, NULL);
}
