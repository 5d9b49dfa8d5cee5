/*
 * backend/cuda/exec.c - running lowered plans: resolving buffers and slots
 * to addresses in the flat symmetric range, issuing the calls on the
 * streams (recording each sync step for the watchdog), capturing graph
 * phases, ces_launch, and the collectives with their cache of lowered
 * schedules (a schedule is built and lowered once per shape; the values
 * that depend on the iteration are patched per call).
 */
#include "runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One collective shape, lowered once. */
struct ces_coll_cache {
    struct ces_coll_params key;
    int capture;
    struct ces_graph *g;       /* built with first_iter = 1 */
    struct ces_cuda_plan *plan;
    uint64_t *va, *vb;         /* block 0 memop value = va + vb * (k - 1) */
    int linear;                /* 0: rebuild per call (values not linear in k) */
    uint64_t *sig_off;         /* [nsignals] */
    uint64_t *buf_off;         /* [nbuffers]: internal buffers; send/recv per call */
    int64_t send, recv;        /* buffer indices of "send" and "recv", -1 if absent */
};

/* What issuing one block needs. */
struct issue {
    struct ces_comm *c;
    const struct ces_graph *g;
    const struct ces_cuda_pblock *blk;
    uint32_t block;
    const uint64_t *buf_off, *sig_off;
    CUstream *streams;
    const uint64_t *va, *vb;
    uint64_t k;
    int watch;
    const char *what;
    uint64_t call;
    const struct ces_cuda_hooks *hooks;
    uint64_t iter;
    uint32_t rep;  /* the block's replay issued: its ops' positions (#K) are
                      rep x the stream's ops in the block past the first's */
};

static CUdeviceptr region_addr(const struct issue *is, const struct ces_region *r)
{
    const struct ces_team *t = is->c->team;

    return t->base + (CUdeviceptr)r->rank * t->stride + is->buf_off[r->buf] + r->lo;
}

static CUdeviceptr slot_addr(const struct issue *is, const struct ces_slot *s, uint32_t *width)
{
    const struct ces_team *t = is->c->team;

    *width = ces_graph_signal(is->g, s->sig).width;
    return t->base + (CUdeviceptr)s->rank * t->stride + is->sig_off[s->sig] +
           (CUdeviceptr)s->idx * (*width / 8);
}

static int issue_copies(struct issue *is, const struct ces_cuda_call *call)
{
    struct ces_comm *c = is->c;
    CUstream s = is->streams[call->stream];
    void **ptrs;
    size_t *sizes, n = 0;
    int rc = CES_OK;

    c->scratch_ptrs.len = 0;
    c->scratch_sizes.len = 0;
    if (ces_vec_reserve(c->ctx, &c->scratch_ptrs, sizeof(void *), 2 * (size_t)call->count) !=
            CES_OK ||
        ces_vec_reserve(c->ctx, &c->scratch_sizes, sizeof(size_t), call->count) != CES_OK)
        return ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory issuing copies");
    ptrs = c->scratch_ptrs.data;
    sizes = c->scratch_sizes.data;
    for (uint32_t i = 0; i < call->count; i++) {
        const struct ces_cuda_copy *cp =
            &CES_VEC_AT(&is->blk->copies, struct ces_cuda_copy, call->first + i);

        if (cp->src.hi == cp->src.lo)
            continue;
        ptrs[n] = (void *)(uintptr_t)region_addr(is, &cp->dst);
        ptrs[call->count + n] = (void *)(uintptr_t)region_addr(is, &cp->src);
        sizes[n] = cp->src.hi - cp->src.lo;
        n++;
    }
    if (n == 0)
        return CES_OK;
    /* Per-copy calls under capture (the batch call is not capturable), for
     * a single copy, and on the legacy default stream, NULL or
     * CU_STREAM_LEGACY (cudaStreamLegacy) (the batch call rejects it). */
    if (call->kind == CES_CALL_COPY || n == 1 || s == NULL || s == CU_STREAM_LEGACY) {
        for (size_t i = 0; i < n; i++)
            CES_RT_GOTO(c->ctx, rc,
                        cudaMemcpyAsync(ptrs[i], ptrs[call->count + i], sizes[i], cudaMemcpyDefault,
                                        (cudaStream_t)s),
                        out);
    } else {
        struct cudaMemcpyAttributes attr;
        size_t idx = 0;

        memset(&attr, 0, sizeof(attr));
        attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
        attr.flags = cudaMemcpyFlagPreferOverlapWithCompute;
        CES_RT_GOTO(c->ctx, rc,
                    cudaMemcpyBatchAsync(ptrs, (const void *const *)(ptrs + call->count), sizes, n,
                                         &attr, &idx, 1, (cudaStream_t)s),
                    out);
    }
out:
    return rc;
}

static void wait_record(struct issue *is, const struct ces_cuda_call *call,
                        const struct ces_cuda_memop *m, CUdeviceptr addr, uint32_t width,
                        uint64_t v, struct ces_wd_wait *w)
{
    w->addr = addr;
    w->value = width == 64 ? v : (uint32_t)v;
    w->width = (uint8_t)width;
    w->cmp = m->cmp;
    w->rank = m->slot.rank;
    w->idx = m->slot.idx;
    w->spos = m->spos + (uint64_t)is->rep * is->blk->stream_ops[call->stream];
    snprintf(w->name, sizeof(w->name), "%s", ces_graph_signal(is->g, m->slot.sig).name);
}

/* Whether captured memop call `call` (one that waits) starts with an ENTER
 * write of a new record's id: then it takes a watch slot and a record. */
static int call_entered(const struct ces_comm *c, const struct ces_cuda_pblock *blk,
                        const struct ces_cuda_call *call)
{
    return call->count > 0 && c->progress_dev != 0 &&
           CES_VEC_AT(&blk->memops, struct ces_cuda_memop, call->first).kind == CES_MEMOP_ENTER;
}

/* The watch slots (streams) and captured call records that issuing blocks
 * takes, gathered before any of it is issued (ces_wd_reserve): a stream
 * past CES_WD_STREAMS, or records past CES_WD_CAPTURED, refuse the call
 * before its first CUDA call rather than at the memop call that needed
 * them, with the block's earlier calls enqueued. */
struct watch_need {
    CUstream streams[CES_MAX_STREAMS + 1];
    uint32_t n;
    uint64_t records;
};

/* Adds what issuing block `blk` `times` times on `streams` takes, watched
 * or not (issue_memops). */
static void need_block(struct watch_need *w, const struct ces_comm *c,
                       const struct ces_cuda_pblock *blk, const CUstream *streams, int watch,
                       uint64_t times)
{
    for (size_t i = 0; i < blk->calls.len; i++) {
        const struct ces_cuda_call *call = &CES_VEC_AT(&blk->calls, struct ces_cuda_call, i);
        CUstream s = streams[call->stream];
        uint32_t k = 0;

        if (call->kind != CES_CALL_MEMOPS || !call->waits ||
            (!watch && !call_entered(c, blk, call)))
            continue;
        if (!watch)
            w->records += times;
        while (k < w->n && w->streams[k] != s)
            k++;
        if (k == w->n && w->n < CES_MAX_STREAMS + 1)
            w->streams[w->n++] = s;
    }
}

/* ces_wd_reserve of what issuing one block once takes. */
static int reserve_block(struct issue *is)
{
    struct watch_need w;

    w.n = 0;
    w.records = 0;
    need_block(&w, is->c, is->blk, is->streams, is->watch, 1);
    return ces_wd_reserve(is->c, w.streams, w.n, w.records);
}

/* Issues one memop call.  Eager (watched): its waits go into the watchdog's
 * ring under the next step number, which the progress write stores.
 * Captured with ENTER/EXIT: its waits (frozen from now on) are recorded
 * under a new id, which ENTER stores in the stream's in-flight word. */
static int issue_memops(struct issue *is, const struct ces_cuda_call *call)
{
    struct ces_comm *c = is->c;
    CUstream s = is->streams[call->stream];
    CUstreamBatchMemOpParams *p;
    struct ces_wd_step step;
    struct ces_wd_wait capw[CES_CUDA_MAX_MEMOPS];
    int slot = -1, fslot = -1, rc = CES_OK;
    uint32_t n = 0, ncapw = 0;
    uint64_t seq = 0, id = 0;

    c->scratch_params.len = 0;
    if (ces_vec_reserve(c->ctx, &c->scratch_params, sizeof(*p), call->count) != CES_OK)
        return ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory issuing memops");
    p = c->scratch_params.data;
    memset(&step, 0, sizeof(step));
    /* The stream's slot was reserved before the block was issued
     * (reserve_block): a stream the watchdog has no slot for refused the
     * call, whose waits would go unwatched, before any of it was issued. */
    if (is->watch && call->waits) {
        slot = ces_wd_slot(c, s);
        if (slot < 0)
            return slot;
        seq = atomic_load(&c->watched[slot].enqueued) + 1;
        step.seq = seq;
        step.stream = call->stream;
        step.call = is->call;
        snprintf(step.what, sizeof(step.what), "%s", is->what);
        pthread_mutex_lock(&c->wd_lock);
        step.first_wait = c->nwaits_total;
    } else if (call->waits && call_entered(c, is->blk, call)) {
        fslot = ces_wd_slot(c, s);
        if (fslot < 0)
            return fslot;
        step.stream = call->stream;
        step.call = is->call;
        snprintf(step.what, sizeof(step.what), "%s", is->what);
    }
    for (uint32_t i = 0; i < call->count; i++) {
        uint32_t mi = call->first + i, width = 32;
        const struct ces_cuda_memop *m = &CES_VEC_AT(&is->blk->memops, struct ces_cuda_memop, mi);
        uint64_t v = is->va != NULL ? ces_cuda_patched_value(is->va, is->vb, mi, is->k) : m->value;
        CUstreamBatchMemOpParams *q = &p[n];

        memset(q, 0, sizeof(*q));
        switch (m->kind) {
        case CES_MEMOP_WRITE32:
        case CES_MEMOP_WRITE64:
            q->writeValue.operation = m->kind == CES_MEMOP_WRITE64 ? CU_STREAM_MEM_OP_WRITE_VALUE_64
                                                                   : CU_STREAM_MEM_OP_WRITE_VALUE_32;
            q->writeValue.address = slot_addr(is, &m->slot, &width);
            if (width == 64)
                q->writeValue.value64 = v;
            else
                q->writeValue.value = (cuuint32_t)v;
            q->writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
            break;
        case CES_MEMOP_WAIT32:
        case CES_MEMOP_WAIT64:
            q->waitValue.operation = m->kind == CES_MEMOP_WAIT64 ? CU_STREAM_MEM_OP_WAIT_VALUE_64
                                                                 : CU_STREAM_MEM_OP_WAIT_VALUE_32;
            q->waitValue.address = slot_addr(is, &m->slot, &width);
            if (width == 64)
                q->waitValue.value64 = v;
            else
                q->waitValue.value = (cuuint32_t)v;
            q->waitValue.flags =
                m->cmp == CES_CMP_EQ ? CU_STREAM_WAIT_VALUE_EQ : CU_STREAM_WAIT_VALUE_GEQ;
            if (slot >= 0) {
                wait_record(is, call, m, q->waitValue.address, width, v,
                            &c->waits[c->nwaits_total++ % CES_WD_WAITS]);
                if (step.nwaits++ == 0)
                    step.spos = c->waits[(c->nwaits_total - 1) % CES_WD_WAITS].spos;
            } else if (fslot >= 0) {
                wait_record(is, call, m, q->waitValue.address, width, v, &capw[ncapw]);
                if (step.nwaits++ == 0)
                    step.spos = capw[ncapw].spos;
                ncapw++;
            }
            break;
        case CES_MEMOP_BARRIER:
            q->memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
            q->memoryBarrier.flags = CU_STREAM_MEMORY_BARRIER_TYPE_SYS;
            break;
        case CES_MEMOP_FLUSH:
            q->flushRemoteWrites.operation = CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES;
            q->flushRemoteWrites.flags = 0;
            break;
        case CES_MEMOP_ENTER:
        case CES_MEMOP_EXIT:
            /* filled in below, once the record has its id */
            if (fslot < 0)
                continue;
            q->writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
            q->writeValue.address = CES_WD_FLIGHT_DEV(c, (uint32_t)fslot);
            q->writeValue.value64 = 0;
            q->writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
            break;
        default: /* progress */
            if (slot < 0)
                continue;
            step.progress = 1;
            q->writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
            q->writeValue.address = c->progress_dev + (CUdeviceptr)slot * sizeof(uint64_t);
            q->writeValue.value64 = seq;
            q->writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
            break;
        }
        n++;
    }
    if (slot >= 0) {
        c->watched[slot].steps[seq % CES_WD_STEPS] = step;
        pthread_mutex_unlock(&c->wd_lock);
    }
    if (fslot >= 0) {
        pthread_mutex_lock(&c->wd_lock);
        id = ces_wd_capture_record(c, &step, capw, ncapw);
        pthread_mutex_unlock(&c->wd_lock);
        if (id == 0)
            return ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory recording a captured call");
        p[0].writeValue.value64 = id;
    }
    if (n > 0)
        CES_CU_GOTO(c->ctx, rc, cuStreamBatchMemOp(s, n, p, 0), out);
    if (slot >= 0)
        atomic_store(&c->watched[slot].enqueued, seq);
out:
    return rc;
}

static int issue_block(struct issue *is)
{
    const struct ces_cuda_pblock *blk = is->blk;
    struct ces_comm *c = is->c;
    uint64_t used = 0; /* the streams given work (CES_MAX_STREAMS is 64) */
    int rc = CES_OK;

    for (size_t i = 0; i < blk->calls.len && rc == CES_OK; i++) {
        const struct ces_cuda_call *call = &CES_VEC_AT(&blk->calls, struct ces_cuda_call, i);
        CUstream s = is->streams[call->stream];

        used |= UINT64_C(1) << call->stream;
        switch (call->kind) {
        case CES_CALL_COPY_BATCH:
        case CES_CALL_COPY:
            rc = issue_copies(is, call);
            break;
        case CES_CALL_MEMOPS:
            rc = issue_memops(is, call);
            break;
        case CES_CALL_RECORD:
            CES_CU_GOTO(c->ctx, rc, cuEventRecord(c->events[call->event], s), out);
            break;
        case CES_CALL_AWAIT:
            CES_CU_GOTO(c->ctx, rc, cuStreamWaitEvent(s, c->events[call->event], 0), out);
            break;
        case CES_CALL_PRODUCE:
            if (is->hooks != NULL && is->hooks->produce != NULL)
                rc = is->hooks->produce(is->hooks->ud, c, call, is->block, (uint32_t)i, is->iter, s);
            break;
        default:
            if (is->hooks != NULL && is->hooks->consume != NULL)
                rc = is->hooks->consume(is->hooks->ud, c, call, is->block, (uint32_t)i, is->iter, s);
            break;
        }
    }
out:
    if (rc != CES_OK && is->watch)
        for (uint32_t s = 0; s < ces_graph_streams(is->g); s++)
            if (used & (UINT64_C(1) << s))
                ces_wd_close(c, is->streams[s]);
    return rc;
}

/* Internal streams 1..n-1 and the graph's events. */
static int ensure_streams(struct ces_comm *c, uint32_t n, uint32_t nevents)
{
    int rc = CES_OK;

    for (uint32_t s = 1; s < n; s++) {
        if (c->streams[s] == NULL)
            CES_CU_GOTO(c->ctx, rc, cuStreamCreate(&c->streams[s], CU_STREAM_NON_BLOCKING), out);
        if (c->joins[s] == NULL)
            CES_CU_GOTO(c->ctx, rc, cuEventCreate(&c->joins[s], CU_EVENT_DISABLE_TIMING), out);
    }
    if (nevents > c->nevents) {
        CUevent *ev = ces_realloc(c->ctx, c->events, sizeof(CUevent) * nevents);

        if (ev == NULL)
            return ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory creating events");
        c->events = ev;
        while (c->nevents < nevents) {
            CES_CU_GOTO(c->ctx, rc, cuEventCreate(&c->events[c->nevents], CU_EVENT_DISABLE_TIMING),
                        out);
            c->nevents++;
        }
    }
out:
    return rc;
}

/* The fork before a block and the join after it, for the streams of
 * `mask` (the block's fork or join: ces_graph_links).  Forked, stream s
 * starts after stream 0's work before the block; joined, stream 0's work
 * after the block starts after stream s's. */
static int fork_streams(struct ces_comm *c, CUstream *streams, uint32_t n, uint64_t mask)
{
    int rc = CES_OK;

    if (mask == 0)
        return CES_OK;
    CES_CU_GOTO(c->ctx, rc, cuEventRecord(c->fork, streams[0]), out);
    for (uint32_t s = 1; s < n; s++)
        if (mask & (UINT64_C(1) << s))
            CES_CU_GOTO(c->ctx, rc, cuStreamWaitEvent(streams[s], c->fork, 0), out);
out:
    return rc;
}

static int join_streams(struct ces_comm *c, CUstream *streams, uint32_t n, uint64_t mask)
{
    int rc = CES_OK;

    for (uint32_t s = 1; s < n; s++) {
        if (!(mask & (UINT64_C(1) << s)))
            continue;
        CES_CU_GOTO(c->ctx, rc, cuEventRecord(c->joins[s], streams[s]), out);
        CES_CU_GOTO(c->ctx, rc, cuStreamWaitEvent(streams[0], c->joins[s], 0), out);
    }
out:
    return rc;
}

/* Whether error rc refuses a call for its arguments (a graph not valid
 * among them), for a limit (CES_STRIDE's symmetric memory) or for what the
 * machine lacks: every rank refuses it alike, before anything is enqueued,
 * so the ranks stay in step. */
static int refused_alike(int rc)
{
    return rc == CES_ERR_INVALID || rc == CES_ERR_UNSUPPORTED || rc == CES_ERR_LIMIT ||
           rc == CES_ERR_SEMANTIC || rc == CES_ERR_PARSE;
}

/* A collective, a group or a launch failed otherwise (a CUDA error, memory
 * exhausted), or with its work enqueued in part or its number among the
 * calls taken: its peers may have enqueued their parts and wait for this
 * rank's, and a later call's flags could meet those waits (wrong data
 * without an error).  So the communicator fails with the call's error: the
 * watchdog releases what waits, the peers fail with CES_ERR_PEER_FAILED,
 * and every later call returns the error.  Returns rc. */
static int issue_failed(struct ces_comm *c, int rc)
{
    return ces_comm_fail_call(c, rc, "a collective, group or launch");
}

/* A collective or launch refused rc for a buffer or signal array bound to a
 * pointer of this rank's: the ranks pass pointers of their own, so the
 * refusal may be this rank's alone while its peers issue their parts and
 * wait for its (a later call's flags would meet those waits: wrong data
 * without an error).  So it fails the communicator where it has peers.
 * Returns rc. */
static int refused_mine(struct ces_comm *c, int rc)
{
    return c->size > 1 ? issue_failed(c, rc) : rc;
}

static int is_capturing(struct ces_comm *c, CUstream s, int *capturing)
{
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    int rc = CES_OK;

    CES_RT_GOTO(c->ctx, rc, cudaStreamIsCapturing((cudaStream_t)s, &st), out);
    *capturing = st != cudaStreamCaptureStatusNone;
out:
    return rc;
}

/* The symmetric address of a signal array (or of a protocol's staging
 * memory), allocated on first use and known after by its key, formatted as
 * printf does, which names the size `bytes` (so that the array a key finds
 * holds it).  The key is kept whole: two keys cut to one length would share
 * memory. */
static int signal_off(struct ces_comm *c, uint64_t bytes, uint64_t *off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int signal_off(struct ces_comm *c, uint64_t bytes, uint64_t *off, const char *fmt, ...)
{
    char *key;
    void *ptr = NULL;
    struct ces_signal_rec rec;
    va_list ap;
    int len, rc;

    va_start(ap, fmt);
    len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    key = len < 0 ? NULL : ces_malloc(c->ctx, (size_t)len + 1);
    if (key == NULL)
        return ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory allocating a signal array");
    va_start(ap, fmt);
    vsnprintf(key, (size_t)len + 1, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < c->signals.len; i++) {
        struct ces_signal_rec *s = &CES_VEC_AT(&c->signals, struct ces_signal_rec, i);

        if (strcmp(s->key, key) == 0) {
            ces_team_find(c->team, c->rank, s->ptr, off);
            ces_free(c->ctx, key);
            return CES_OK;
        }
    }
    rc = ces_team_alloc(c, bytes, &ptr);
    if (rc != CES_OK) {
        ces_free(c->ctx, key);
        return rc;
    }
    rec.key = key;
    rec.ptr = ptr;
    if (ces_vec_push(c->ctx, &c->signals, sizeof(rec), &rec) != CES_OK) {
        ces_free(c->ctx, key);
        ces_team_release(c, ptr);
        return ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory allocating a signal array");
    }
    ces_team_find(c->team, c->rank, ptr, off);
    return CES_OK;
}

void ces_cuda_signals_drop(struct ces_comm *c, bool release)
{
    for (size_t i = 0; i < c->signals.len; i++) {
        struct ces_signal_rec *s = &CES_VEC_AT(&c->signals, struct ces_signal_rec, i);

        if (release)
            ces_team_release(c, s->ptr);
        ces_free(c->ctx, s->key);
    }
    c->signals.len = 0;
}

/* Whether ptr holds `bytes` of this communicator's symmetric memory for a
 * signal array (its offset in *off): 0, 1 where it does not, 2 where it is
 * not 8-byte aligned. */
static int signal_bad(struct ces_comm *c, const void *ptr, uint64_t bytes, uint64_t *off)
{
    struct ces_alloc_rec *a = ces_team_find(c->team, c->rank, ptr, off);

    if (a == NULL || *off + bytes > a->off + a->size)
        return 1;
    return *off % 8 != 0 ? 2 : 0;
}

/* sig_off[i] holds, until signal i is bound, the binding it takes plus 1
 * (0: none), with this bit set where that binding is a bad one. */
#define SIG_BAD (UINT64_C(1) << 63)

int ces_cuda_bind_signals(struct ces_comm *c, const struct ces_graph *g, const char *ns,
                          const struct ces_binding *b, size_t nb, uint64_t *sig_off)
{
    uint64_t off;

    /* One pass over the bindings: every binding of a signal is checked, and
     * a signal takes its first bad one, else its last. */
    memset(sig_off, 0, sizeof(uint64_t) * ces_graph_nsignals(g));
    for (size_t j = 0; j < nb; j++) {
        int64_t i = ces_graph_find_signal(g, b[j].name);
        struct ces_signal_info si;

        if (i < 0 || (sig_off[i] & SIG_BAD))
            continue;
        si = ces_graph_signal(g, (uint32_t)i);
        sig_off[i] = (uint64_t)j + 1;
        if (signal_bad(c, b[j].ptr, (uint64_t)si.slots * (si.width / 8), &off))
            sig_off[i] |= SIG_BAD;
    }
    for (uint32_t i = 0; i < ces_graph_nsignals(g); i++) {
        struct ces_signal_info si = ces_graph_signal(g, i);
        uint64_t bytes = (uint64_t)si.slots * (si.width / 8);
        size_t j = (size_t)(sig_off[i] & ~SIG_BAD);
        int bad, rc;

        if (j == 0) {
            /* Keyed by width and size too: arrays of one name but another
             * shape (another protocol) never share memory. */
            rc = signal_off(c, bytes, &sig_off[i], "%s:%s:u%" PRIu32 "x%" PRIu32, ns, si.name,
                            si.width, si.slots);
            if (rc != CES_OK)
                return rc;
            continue;
        }
        bad = signal_bad(c, b[j - 1].ptr, bytes, &sig_off[i]);
        if (bad == 1)
            return ces_ctx_error(c->ctx, CES_ERR_INVALID,
                                 "signal %.*s%s is bound to %p, which is not %" PRIu64
                                 " bytes of symmetric memory of this communicator",
                                 CES_SHOWN(si.name), b[j - 1].ptr, bytes);
        if (bad == 2)
            return ces_ctx_error(c->ctx, CES_ERR_INVALID,
                                 "signal %.*s%s is bound to %p, which is not 8-byte aligned",
                                 CES_SHOWN(si.name), b[j - 1].ptr);
    }
    return CES_OK;
}

/* Binds a buffer to a user pointer: symmetric, and big enough. */
static int bind_buffer(struct ces_comm *c, const char *what, const char *name, const void *ptr,
                       uint64_t size, uint64_t *off)
{
    struct ces_alloc_rec *a;

    if (ptr == NULL)
        return ces_ctx_error(c->ctx, CES_ERR_INVALID, "%s: buffer %.*s%s is NULL", what,
                             CES_SHOWN(name));
    a = ces_team_find(c->team, c->rank, ptr, off);
    if (a == NULL)
        return ces_ctx_error(c->ctx, CES_ERR_INVALID,
                             "%s: buffer %.*s%s (%p) is not symmetric memory of this communicator "
                             "(allocate it with ces_mem_alloc)",
                             what, CES_SHOWN(name), ptr);
    /* ces_team_find put *off inside the allocation: the room left cannot
     * wrap, as *off + size could for a size near 2^64. */
    if (size > a->off + a->size - *off)
        return ces_ctx_error(c->ctx, CES_ERR_INVALID,
                             "%s: buffer %.*s%s needs %" PRIu64 " bytes but only %" PRIu64
                             " are allocated from %p",
                             what, CES_SHOWN(name), size, a->off + a->size - *off, ptr);
    return CES_OK;
}

/* Rank 0 writes g as DIR/name.ces where CES_DUMP_SCHEDULE names DIR; what
 * fails is said on stderr, the path as cesync's messages say a name
 * (ces_spell: a control as \xNN, a backslash as \\; an ESC in DIR went to
 * the terminal raw). */
static void dump_graph(struct ces_comm *c, const struct ces_graph *g, const char *name)
{
    const char *dir = getenv("CES_DUMP_SCHEDULE");
    struct ces_sb path, said;
    char *text = NULL;
    size_t len = 0;
    FILE *f;

    if (dir == NULL || *dir == '\0' || c->rank != 0)
        return;
    ces_sb_init(&path, c->ctx);
    ces_sb_init(&said, c->ctx);
    ces_sb_printf(&path, "%s/%s.ces", dir, name);
    if (path.status == CES_OK)
        ces_sb_spelled(&said, path.buf);
    if (path.status != CES_OK || said.status != CES_OK) {
        fprintf(stderr, "cesync: CES_DUMP_SCHEDULE: out of memory\n");
    } else if (ces_graph_print(c->ctx, g, 0, &text, &len) != CES_OK) {
        fprintf(stderr, "cesync: CES_DUMP_SCHEDULE: cannot print %s: %s\n", said.buf,
                ces_ctx_last_error(c->ctx));
    } else {
        int ok = (f = fopen(path.buf, "w")) != NULL;

        ok = ok && fwrite(text, 1, len, f) == len;
        ok = f != NULL && fclose(f) == 0 && ok;
        if (!ok)
            fprintf(stderr, "cesync: CES_DUMP_SCHEDULE: cannot write %s: %s\n", said.buf,
                    strerror(errno));
    }
    ces_free(c->ctx, text);
    ces_sb_free(&said);
    ces_sb_free(&path);
}

/* --- ces_launch ------------------------------------------------------------ */

struct ces_cuda_run {
    struct ces_comm *c;
    const struct ces_graph *g;
    struct ces_cuda_plan *plan;
    uint64_t *buf_off, *sig_off;
    CUstream streams[CES_MAX_STREAMS];
    uint32_t nstreams;
    int capturing;                 /* the caller's stream is being captured */
    const struct ces_cuda_hooks *hooks;
    uint32_t exec_block;           /* block whose captured graph `exec` holds */
    cudaGraphExec_t exec;
};

void ces_cuda_run_free(struct ces_cuda_run *r)
{
    if (r == NULL)
        return;
    if (r->exec != NULL)
        cudaGraphExecDestroy(r->exec);
    ces_cuda_plan_destroy(r->plan);
    ces_free(r->c->ctx, r->buf_off);
    ces_free(r->c->ctx, r->sig_off);
    ces_free(r->c->ctx, r);
}

/* Before any block of the launch is issued: the stream a graph phase on
 * the legacy default stream is captured from (CUDA captures none there),
 * and what every block takes of the watchdog (reserve_block), each block
 * issued once per replay where the caller captures, else a graph phase
 * captured once. */
static int reserve_launch(struct ces_cuda_run *r)
{
    struct ces_comm *c = r->c;
    struct watch_need w;
    CUstream cap[CES_MAX_STREAMS];
    int rc = CES_OK;

    w.n = 0;
    w.records = 0;
    memcpy(cap, r->streams, sizeof(cap));
    for (uint32_t b = 0; b < r->plan->nblocks; b++) {
        const struct ces_cuda_pblock *blk = &r->plan->blocks[b];

        if (blk->info.kind == CES_PHASE_EAGER || r->capturing) {
            need_block(&w, c, blk, r->streams, !blk->capture, blk->info.reps);
            continue;
        }
        if ((cap[0] == NULL || cap[0] == CU_STREAM_LEGACY) && c->streams[0] == NULL)
            CES_CU_GOTO(c->ctx, rc, cuStreamCreate(&c->streams[0], CU_STREAM_NON_BLOCKING), out);
        if (cap[0] == NULL || cap[0] == CU_STREAM_LEGACY)
            cap[0] = c->streams[0];
        need_block(&w, c, blk, cap, !blk->capture, 1);
    }
    rc = ces_wd_reserve(c, w.streams, w.n, w.records);
out:
    return rc;
}

int ces_cuda_run_prepare(struct ces_comm *c, const struct ces_graph *g,
                         const struct ces_binding *bindings, size_t nbindings, CUstream stream,
                         const struct ces_cuda_hooks *hooks, struct ces_cuda_run **out)
{
    struct ces_cuda_run *r = NULL;
    int rc, mine = 0;

    if (c == NULL || g == NULL || out == NULL || (bindings == NULL && nbindings > 0))
        return CES_ERR_INVALID;
    *out = NULL;
    rc = ces_comm_check(c);
    if (rc != CES_OK)
        return rc;
    if (ces_graph_ranks(g) != c->size)
        return ces_ctx_error(c->ctx, CES_ERR_INVALID,
                             "ces_launch: the graph has %" PRIu32
                             " ranks but the communicator has %" PRIu32,
                             ces_graph_ranks(g), c->size);
    rc = ces_cuda_queues_check(c->ctx, g, c->queues);
    if (rc == CES_OK)
        rc = ces_cuda_use(c);
    if (rc != CES_OK)
        return refused_alike(rc) ? rc : issue_failed(c, rc);
    r = ces_malloc(c->ctx, sizeof(*r));
    if (r == NULL)
        return issue_failed(c, ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory in ces_launch"));
    memset(r, 0, sizeof(*r));
    r->c = c;
    r->g = g;
    r->hooks = hooks;
    r->nstreams = ces_graph_streams(g);
    r->buf_off = ces_malloc(c->ctx, sizeof(uint64_t) * (ces_graph_nbuffers(g) + 1));
    r->sig_off = ces_malloc(c->ctx, sizeof(uint64_t) * (ces_graph_nsignals(g) + 1));
    if (r->buf_off == NULL || r->sig_off == NULL) {
        rc = ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory in ces_launch");
        goto fail;
    }
    /* One pass over the bindings: buf_off[i] holds the last binding of
     * buffer i plus 1 (0: none) until the buffer is bound. */
    memset(r->buf_off, 0, sizeof(uint64_t) * ces_graph_nbuffers(g));
    for (size_t j = 0; j < nbindings; j++) {
        int64_t i = ces_graph_find_buffer(g, bindings[j].name);

        if (i >= 0)
            r->buf_off[i] = (uint64_t)j + 1;
    }
    mine = 1; /* the bindings are this rank's pointers (refused_mine) */
    for (uint32_t i = 0; i < ces_graph_nbuffers(g); i++) {
        struct ces_buffer_info bi = ces_graph_buffer(g, i);
        const void *ptr = r->buf_off[i] != 0 ? bindings[r->buf_off[i] - 1].ptr : NULL;

        if (ptr == NULL) {
            rc = ces_ctx_error(c->ctx, CES_ERR_INVALID, "ces_launch: buffer %.*s%s is not bound",
                               CES_SHOWN(bi.name));
            goto fail;
        }
        rc = bind_buffer(c, "ces_launch", bi.name, ptr, bi.size, &r->buf_off[i]);
        if (rc != CES_OK)
            goto fail;
    }
    mine = 0;
    rc = is_capturing(c, stream, &r->capturing);
    if (rc != CES_OK)
        goto fail;
    rc = ces_cuda_lower(c->ctx, g, c->rank, &c->caps,
                        (r->capturing ? CES_LOWER_CAPTURE : 0u) |
                            (c->progress_dev != 0 ? CES_LOWER_PROGRESS | CES_LOWER_FLIGHT : 0u),
                        &r->plan);
    if (rc != CES_OK)
        goto fail;
    rc = ces_cuda_bind_signals(c, g, "launch", bindings, nbindings, r->sig_off);
    if (rc != CES_OK) {
        /* a bound array's pointer (or an unbound one's allocation refused
         * for its size on this rank: failing there is as safe) */
        mine = rc == CES_ERR_INVALID;
        goto fail;
    }
    rc = ensure_streams(c, r->nstreams, ces_graph_nevents(g));
    if (rc != CES_OK)
        goto fail;
    r->streams[0] = stream;
    for (uint32_t s = 1; s < r->nstreams; s++)
        r->streams[s] = c->streams[s];
    rc = reserve_launch(r);
    if (rc != CES_OK) {
        /* found on this rank alone: the peers may issue their parts */
        ces_cuda_run_free(r);
        return issue_failed(c, rc);
    }
    dump_graph(c, g, "launch");
    *out = r;
    return CES_OK;
fail:
    ces_cuda_run_free(r);
    if (mine)
        return refused_mine(c, rc);
    return refused_alike(rc) ? rc : issue_failed(c, rc);
}

int ces_cuda_run_block(struct ces_cuda_run *r, uint32_t b, uint32_t rep)
{
    struct ces_comm *c = r->c;
    const struct ces_cuda_pblock *blk;
    struct issue is;
    int rc;

    if (b >= r->plan->nblocks || rep >= r->plan->blocks[b].info.reps)
        return ces_ctx_error(c->ctx, CES_ERR_INVALID, "block %" PRIu32 " replay %" PRIu32 " out of range",
                             b, rep);
    rc = ces_comm_check(c);
    if (rc == CES_OK)
        rc = ces_cuda_use(c);
    if (rc != CES_OK)
        return issue_failed(c, rc); /* (a failed communicator stays as it is) */
    blk = &r->plan->blocks[b];
    memset(&is, 0, sizeof(is));
    is.c = c;
    is.g = r->g;
    is.blk = blk;
    is.block = b;
    is.buf_off = r->buf_off;
    is.sig_off = r->sig_off;
    is.streams = r->streams;
    is.watch = !blk->capture;
    is.what = "launch";
    is.call = b;
    is.hooks = r->hooks;
    is.iter = blk->info.first_iter + rep;
    is.rep = rep;
    if (blk->info.kind == CES_PHASE_EAGER || r->capturing) {
        /* Eager, or the caller is capturing: issue directly (inside the
         * caller's capture a graph phase is issued once per replay, with the
         * same frozen values). */
        rc = reserve_block(&is);
        if (rc == CES_OK)
            rc = fork_streams(c, r->streams, r->nstreams, blk->fork);
        if (rc == CES_OK)
            rc = issue_block(&is);
        if (rc == CES_OK)
            rc = join_streams(c, r->streams, r->nstreams, blk->join);
        return issue_failed(c, rc);
    }
    /* a graph phase: the earlier blocks (and replays) are enqueued, the
     * peers' parts of this one may be */
    if (r->exec == NULL || r->exec_block != b) {
        cudaGraph_t graph = NULL;
        cudaError_t e;
        CUstream cap[CES_MAX_STREAMS], s0 = r->streams[0];

        if (r->exec != NULL)
            cudaGraphExecDestroy(r->exec);
        r->exec = NULL;
        /* CUDA captures no work of the legacy default stream (NULL or
         * CU_STREAM_LEGACY): there the phase is captured from a stream of
         * the communicator's own, and its graph launched on the caller's
         * all the same. */
        if (s0 == NULL || s0 == CU_STREAM_LEGACY)
            s0 = c->streams[0]; /* made by ces_cuda_run_prepare */
        memcpy(cap, r->streams, sizeof(cap));
        cap[0] = s0;
        is.streams = cap;
        is.iter = blk->info.first_iter;
        is.rep = 0; /* every replay repeats the first's record */
        rc = reserve_block(&is);
        if (rc != CES_OK)
            goto out;
        CES_RT_GOTO(c->ctx, rc,
                    cudaStreamBeginCapture((cudaStream_t)s0, cudaStreamCaptureModeRelaxed), out);
        rc = fork_streams(c, cap, r->nstreams, blk->fork);
        if (rc == CES_OK)
            rc = issue_block(&is);
        if (rc == CES_OK)
            rc = join_streams(c, cap, r->nstreams, blk->join);
        e = cudaStreamEndCapture((cudaStream_t)s0, &graph);
        if (rc == CES_OK && e != cudaSuccess)
            rc = ces_cuda_rt_error(c->ctx, e, "cudaStreamEndCapture", __FILE__, __LINE__);
        if (rc == CES_OK) {
            e = cudaGraphInstantiate(&r->exec, graph, 0);
            if (e != cudaSuccess)
                rc = ces_cuda_rt_error(c->ctx, e, "cudaGraphInstantiate", __FILE__, __LINE__);
        }
        if (graph != NULL)
            cudaGraphDestroy(graph);
        if (rc != CES_OK)
            goto out;
        r->exec_block = b;
    }
    CES_RT_GOTO(c->ctx, rc, cudaGraphLaunch(r->exec, (cudaStream_t)r->streams[0]), out);
out:
    return issue_failed(c, rc);
}

uint32_t ces_cuda_run_nblocks(const struct ces_cuda_run *r)
{
    return r->plan->nblocks;
}

int ces_cuda_launch(struct ces_comm *c, const struct ces_graph *g,
                    const struct ces_binding *bindings, size_t nbindings, CUstream stream,
                    const struct ces_cuda_hooks *hooks)
{
    struct ces_cuda_run *r = NULL;
    int rc = ces_cuda_run_prepare(c, g, bindings, nbindings, stream, hooks, &r);

    for (uint32_t b = 0; rc == CES_OK && b < r->plan->nblocks; b++)
        for (uint32_t rep = 0; rc == CES_OK && rep < r->plan->blocks[b].info.reps; rep++)
            rc = ces_cuda_run_block(r, b, rep);
    ces_cuda_run_free(r);
    return rc;
}

int ces_launch(struct ces_comm *c, const struct ces_graph *g, const struct ces_binding *bindings,
               size_t nbindings, ces_stream_t stream)
{
    if (c != NULL && (g == NULL || (bindings == NULL && nbindings > 0)))
        return ces_ctx_error(c->ctx, CES_ERR_INVALID, "ces_launch: NULL argument");
    return ces_cuda_launch(c, g, bindings, nbindings, (CUstream)stream, NULL);
}

/* --- collectives ------------------------------------------------------------ */

static void cache_entry_free(struct ces_comm *c, struct ces_coll_cache *e)
{
    if (e == NULL)
        return;
    ces_graph_destroy(e->g);
    ces_cuda_plan_destroy(e->plan);
    ces_free(c->ctx, e->va);
    ces_free(c->ctx, e->vb);
    ces_free(c->ctx, e->sig_off);
    ces_free(c->ctx, e->buf_off);
    ces_free(c->ctx, e);
}

void ces_cuda_cache_free(struct ces_comm *c)
{
    for (size_t i = 0; i < c->cache.len; i++)
        cache_entry_free(c, CES_VEC_AT(&c->cache, struct ces_coll_cache *, i));
    ces_vec_free(c->ctx, &c->cache);
}

static int same_key(const struct ces_coll_params *a, const struct ces_coll_params *b)
{
    return a->coll == b->coll && a->proto == b->proto && a->ranks == b->ranks &&
           a->bytes == b->bytes && a->root == b->root && a->npairs == b->npairs &&
           memcmp(a->pairs, b->pairs, sizeof(a->pairs[0]) * a->npairs) == 0 &&
           a->chunks == b->chunks && a->slots == b->slots && a->flags == b->flags &&
           a->wake == b->wake;
}

static int build_lower(struct ces_comm *c, const struct ces_coll_params *p, uint64_t first,
                       unsigned flags, struct ces_graph **g, struct ces_cuda_plan **plan)
{
    struct ces_coll_params q = *p;
    int rc;

    q.first_iter = first;
    *g = NULL;
    *plan = NULL;
    rc = ces_coll_build(c->ctx, &q, g);
    /* Streams that outnumber the process's hardware queues share them: the
     * graph declares that (lowered then in queue order), as proved. */
    if (rc == CES_OK)
        rc = ces_cuda_queues_adopt(*g, c->queues);
    if (rc == CES_OK)
        rc = ces_cuda_lower(c->ctx, *g, c->rank, &c->caps, flags, plan);
    return rc;
}

static int cache_get(struct ces_comm *c, const struct ces_coll_params *p, int capture,
                     struct ces_coll_cache **out)
{
    struct ces_coll_cache *e = NULL;
    struct ces_graph *g2 = NULL, *g3 = NULL;
    struct ces_cuda_plan *p2 = NULL, *p3 = NULL;
    unsigned flags = ces_cuda_coll_lower_flags(capture, c->progress_dev != 0);
    char name[160];
    int rc;

    for (size_t i = 0; i < c->cache.len; i++) {
        e = CES_VEC_AT(&c->cache, struct ces_coll_cache *, i);
        if (e->capture == capture && same_key(&e->key, p)) {
            *out = e;
            return CES_OK;
        }
    }
    e = ces_malloc(c->ctx, sizeof(*e));
    if (e == NULL)
        return ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory caching a collective");
    memset(e, 0, sizeof(*e));
    e->key = *p;
    e->capture = capture;
    rc = build_lower(c, p, 1, flags, &e->g, &e->plan);
    if (rc != CES_OK)
        goto fail;
    if (e->plan->nblocks != 1) {
        rc = ces_ctx_error(c->ctx, CES_ERR_INTERNAL, "a collective must build one block");
        goto fail;
    }
    {
        size_t nm = e->plan->blocks[0].memops.len;

        e->va = ces_malloc(c->ctx, sizeof(uint64_t) * (nm + 1));
        e->vb = ces_malloc(c->ctx, sizeof(uint64_t) * (nm + 1));
        if (e->va == NULL || e->vb == NULL) {
            rc = ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory caching a collective");
            goto fail;
        }
        rc = build_lower(c, p, 2, flags, &g2, &p2);
        if (rc == CES_OK)
            rc = build_lower(c, p, 3, flags, &g3, &p3);
        if (rc != CES_OK)
            goto fail;
        /* The values must be a + b*(k-1) for the call k: checked on three
         * builds; otherwise every call builds its own. */
        e->linear = ces_cuda_plan_linear(e->plan, p2, p3, e->va, e->vb);
    }
    e->sig_off = ces_malloc(c->ctx, sizeof(uint64_t) * (ces_graph_nsignals(e->g) + 1));
    e->buf_off = ces_malloc(c->ctx, sizeof(uint64_t) * (ces_graph_nbuffers(e->g) + 1));
    if (e->sig_off == NULL || e->buf_off == NULL) {
        rc = ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory caching a collective");
        goto fail;
    }
    rc = ces_cuda_bind_signals(c, e->g, ces_proto_name((int)p->proto), NULL, 0, e->sig_off);
    if (rc != CES_OK)
        goto fail;
    e->send = ces_graph_find_buffer(e->g, "send");
    e->recv = ces_graph_find_buffer(e->g, "recv");
    for (uint32_t i = 0; i < ces_graph_nbuffers(e->g); i++) {
        struct ces_buffer_info bi = ces_graph_buffer(e->g, i);

        if ((int64_t)i == e->send || (int64_t)i == e->recv)
            continue;
        /* Staging buffers of a protocol: internal symmetric memory. */
        rc = signal_off(c, bi.size, &e->buf_off[i], "buffer:%s:%" PRIu64, bi.name, bi.size);
        if (rc != CES_OK)
            goto fail;
    }
    /* A gather out of place runs no wake chain and declares no `wake`,
     * while a rank of the same call in place (each rank chooses) does: the
     * buffer is taken wherever the call selects a chain, so that the ranks'
     * symmetric allocations, paired by their order, stay in step. */
    if (p->wake > 0 && ces_graph_find_buffer(e->g, "wake") < 0) {
        uint64_t unused;

        rc = signal_off(c, CES_COLL_WAKE_BYTES, &unused, "buffer:wake:%" PRIu64,
                        (uint64_t)CES_COLL_WAKE_BYTES);
        if (rc != CES_OK)
            goto fail;
    }
    snprintf(name, sizeof(name), "%s-%s%s-n%" PRIu32 "-b%" PRIu64 "-root%" PRIu32 "%s",
             ces_coll_name((int)p->coll), ces_proto_name((int)p->proto),
             (p->flags & CES_COLL_F_OVERLAP)   ? "-overlap"
             : (p->flags & CES_COLL_F_INPLACE) ? "-inplace"
                                               : "",
             p->ranks, p->bytes, p->root, capture ? "-capture" : "");
    dump_graph(c, e->g, name);
    if (ces_vec_push(c->ctx, &c->cache, sizeof(e), &e) != CES_OK) {
        rc = ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory caching a collective");
        goto fail;
    }
    ces_graph_destroy(g2);
    ces_graph_destroy(g3);
    ces_cuda_plan_destroy(p2);
    ces_cuda_plan_destroy(p3);
    *out = e;
    return CES_OK;
fail:
    ces_graph_destroy(g2);
    ces_graph_destroy(g3);
    ces_cuda_plan_destroy(p2);
    ces_cuda_plan_destroy(p3);
    cache_entry_free(c, e);
    return rc;
}

static int overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
    return an > 0 && bn > 0 && a < b + bn && b < a + an;
}

/* One collective call: check, pick the protocol, get the cached schedule,
 * bind send/recv, issue with the values of this call. */
static int coll_issue(struct ces_comm *c, uint32_t coll, const void *send, void *recv,
                      uint64_t bytes, uint32_t root, CUstream stream)
{
    const char *name = ces_coll_name((int)coll);
    struct ces_coll_params p;
    struct ces_coll_cache *e = NULL;
    struct ces_graph *gk = NULL;
    struct ces_cuda_plan *pk = NULL;
    uint64_t k, soff = 0, roff = 0, ssize = 0, rsize = 0;
    int rc, capturing = 0, in_place, no_send;
    uint32_t nstreams;
    CUstream streams[CES_MAX_STREAMS];
    struct issue is;

    if (c == NULL)
        return CES_ERR_INVALID;
    rc = ces_comm_check(c);
    if (rc != CES_OK)
        return rc;
    if (root >= c->size)
        return ces_ctx_error(c->ctx, CES_ERR_INVALID, "%s: root %" PRIu32 " out of range (0..%" PRIu32 ")",
                             name, root, c->size - 1);
    if (coll != CES_COLL_BARRIER && (bytes == 0 || bytes > CES_MAX_BYTES))
        return ces_ctx_error(c->ctx, CES_ERR_INVALID, "%s: bytes must be 1..2^48, not %" PRIu64,
                             name, bytes);
    if (coll == CES_COLL_ALLTOALL && bytes % c->size != 0)
        return ces_ctx_error(c->ctx, CES_ERR_INVALID,
                             "alltoall: bytes (%" PRIu64 ") must be a multiple of the %" PRIu32
                             " ranks", bytes, c->size);
    rc = ces_cuda_use(c);
    if (rc != CES_OK)
        return rc;
    rc = is_capturing(c, stream, &capturing);
    if (rc != CES_OK)
        return rc;
    ces_cuda_coll_select(&p, coll, c->size, bytes, root, capturing);
    in_place = ces_cuda_coll_in_place(coll, c->rank, bytes, root, (uintptr_t)send,
                                      (uintptr_t)recv);
    if (in_place)
        p.flags = CES_COLL_F_INPLACE;
    rc = cache_get(c, &p, capturing, &e);
    if (rc != CES_OK)
        return rc;
    memset(&is, 0, sizeof(is));
    is.buf_off = e->buf_off;
    /* A rank but the root of broadcast and scatter reads no send buffer (its
     * ops are the barriers): it may pass NULL, as with NCCL. */
    no_send = send == NULL && c->rank != root &&
              (coll == CES_COLL_BROADCAST || coll == CES_COLL_SCATTER);
    if (e->send >= 0 && !no_send) {
        ssize = ces_graph_buffer(e->g, (uint32_t)e->send).size;
        rc = bind_buffer(c, name, "send", send, ssize, &soff);
        if (rc != CES_OK)
            return refused_mine(c, rc);
        e->buf_off[e->send] = soff;
    }
    if (e->recv >= 0) {
        rsize = ces_graph_buffer(e->g, (uint32_t)e->recv).size;
        rc = bind_buffer(c, name, "recv", recv, rsize, &roff);
        if (rc != CES_OK)
            return refused_mine(c, rc);
        e->buf_off[e->recv] = roff;
    }
    if (!in_place && !no_send && e->send >= 0 && e->recv >= 0 &&
        overlaps(soff, ssize, roff, rsize)) {
        const char *rule = ces_cuda_coll_in_place_rule(coll);

        rc = ces_ctx_error(c->ctx, CES_ERR_INVALID,
                           "%s: send (%p, %" PRIu64 " bytes) and recv (%p, %" PRIu64
                           " bytes) overlap%s%s",
                           name, send, ssize, recv, rsize, rule != NULL ? "; in place " : "",
                           rule != NULL ? rule : "");
        return refused_mine(c, rc);
    }
    /* the call's number is taken once nothing can fail but the issue */
    k = c->calls[p.proto] + 1;
    is.c = c;
    is.g = e->g;
    is.blk = &e->plan->blocks[0];
    is.sig_off = e->sig_off;
    is.streams = streams;
    is.watch = !capturing;
    is.what = name;
    is.call = k;
    is.iter = k;
    if (e->linear) {
        is.va = e->va;
        is.vb = e->vb;
        is.k = k;
    } else {
        rc = build_lower(c, &p, k, ces_cuda_coll_lower_flags(capturing, c->progress_dev != 0),
                         &gk, &pk);
        if (rc != CES_OK)
            goto out;
        is.g = gk;
        is.blk = &pk->blocks[0];
    }
    /* Several streams (the overlap variant): the internal streams start
     * after the caller's stream's earlier work and end before its later
     * work, linked by the schedule's own events (the local chunk's stream
     * awaits `go` first and records `local` last, which the caller's stream
     * awaits) or else by a fork and a join, as in ces_launch; under capture
     * the first such event pulls them into the caller's capture. */
    nstreams = ces_graph_streams(is.g);
    rc = ensure_streams(c, nstreams, ces_graph_nevents(is.g));
    if (rc != CES_OK)
        goto out;
    streams[0] = stream;
    for (uint32_t s = 1; s < nstreams; s++)
        streams[s] = c->streams[s];
    c->calls[p.proto] = k;
    rc = reserve_block(&is);
    if (rc == CES_OK)
        rc = fork_streams(c, streams, nstreams, is.blk->fork);
    if (rc == CES_OK)
        rc = issue_block(&is);
    if (rc == CES_OK)
        rc = join_streams(c, streams, nstreams, is.blk->join);
    rc = issue_failed(c, rc); /* whatever the error: the number is taken */
out:
    ces_graph_destroy(gk);
    ces_cuda_plan_destroy(pk);
    return rc;
}

static int coll_run(struct ces_comm *c, uint32_t coll, const void *send, void *recv,
                    uint64_t bytes, uint32_t root, CUstream stream)
{
    int rc = coll_issue(c, coll, send, recv, bytes, root, stream);

    return rc == CES_OK || refused_alike(rc) ? rc : issue_failed(c, rc);
}

int ces_alltoall(struct ces_comm *c, const void *send, void *recv, size_t bytes,
                 ces_stream_t stream)
{
    return coll_run(c, CES_COLL_ALLTOALL, send, recv, bytes, 0, (CUstream)stream);
}

int ces_allgather(struct ces_comm *c, const void *send, void *recv, size_t bytes,
                  ces_stream_t stream)
{
    return coll_run(c, CES_COLL_ALLGATHER, send, recv, bytes, 0, (CUstream)stream);
}

int ces_gather(struct ces_comm *c, const void *send, void *recv, size_t bytes, uint32_t root,
               ces_stream_t stream)
{
    return coll_run(c, CES_COLL_GATHER, send, recv, bytes, root, (CUstream)stream);
}

int ces_scatter(struct ces_comm *c, const void *send, void *recv, size_t bytes, uint32_t root,
                ces_stream_t stream)
{
    return coll_run(c, CES_COLL_SCATTER, send, recv, bytes, root, (CUstream)stream);
}

int ces_broadcast(struct ces_comm *c, const void *send, void *recv, size_t bytes, uint32_t root,
                  ces_stream_t stream)
{
    return coll_run(c, CES_COLL_BROADCAST, send, recv, bytes, root, (CUstream)stream);
}

int ces_barrier(struct ces_comm *c, ces_stream_t stream)
{
    return coll_run(c, CES_COLL_BARRIER, NULL, NULL, 0, 0, (CUstream)stream);
}

/* --- point to point in a group --------------------------------------------- */

int ces_group_start(struct ces_comm *c)
{
    int rc;

    if (c == NULL)
        return CES_ERR_INVALID;
    rc = ces_comm_check(c);
    if (rc != CES_OK)
        return rc;
    if (c->in_group)
        return ces_ctx_error(c->ctx, CES_ERR_INVALID, "ces_group_start: already in a group");
    c->in_group = 1;
    c->ngroup = 0;
    return CES_OK;
}

static int group_add(struct ces_comm *c, int send, void *buf, size_t bytes, uint32_t peer)
{
    const char *what = send ? "ces_send" : "ces_recv";
    uint64_t off = 0;
    int rc;

    if (c == NULL)
        return CES_ERR_INVALID;
    rc = ces_comm_check(c);
    if (rc != CES_OK)
        return rc;
    if (!c->in_group)
        return ces_ctx_error(c->ctx, CES_ERR_INVALID, "%s outside ces_group_start/ces_group_end",
                             what);
    if (peer >= c->size || peer == c->rank)
        return ces_ctx_error(c->ctx, CES_ERR_INVALID,
                             "%s: peer %" PRIu32 " must be another rank of 0..%" PRIu32, what, peer,
                             c->size - 1);
    if (bytes == 0 || bytes > CES_MAX_BYTES)
        return ces_ctx_error(c->ctx, CES_ERR_INVALID, "%s: bytes must be 1..2^48, not %zu", what,
                             bytes);
    rc = bind_buffer(c, what, "buf", buf, bytes, &off);
    if (rc != CES_OK)
        return rc;
    for (uint32_t i = 0; i < c->ngroup; i++)
        if (c->group[i].peer == peer && c->group[i].send == send)
            return ces_ctx_error(c->ctx, CES_ERR_INVALID,
                                 "%s: a group holds one %s per peer; rank %" PRIu32
                                 " already has one with rank %" PRIu32,
                                 what, send ? "send" : "receive", c->rank, peer);
    if (c->ngroup >= CES_MAX_PAIRS)
        return ces_ctx_error(c->ctx, CES_ERR_LIMIT, "at most %u sends and receives per group",
                             CES_MAX_PAIRS);
    c->group[c->ngroup].peer = peer;
    c->group[c->ngroup].send = send;
    c->group[c->ngroup].buf = buf;
    c->group[c->ngroup].bytes = bytes;
    c->group[c->ngroup].off = off;
    c->ngroup++;
    return CES_OK;
}

int ces_send(struct ces_comm *c, const void *buf, size_t bytes, uint32_t peer)
{
    return group_add(c, 1, (void *)(uintptr_t)buf, bytes, peer);
}

int ces_recv(struct ces_comm *c, void *buf, size_t bytes, uint32_t peer)
{
    return group_add(c, 0, buf, bytes, peer);
}

/* This rank's declarations; row[0].send says whether it captures them. */
static void group_export(const struct ces_comm *c, int capturing, struct ces_p2p_desc *row)
{
    memset(row, 0, sizeof(*row) * (CES_MAX_PAIRS + 1));
    row[0].bytes = c->ngroup;
    row[0].send = (uint32_t)capturing;
    for (uint32_t i = 0; i < c->ngroup; i++) {
        row[i + 1].peer = c->group[i].peer;
        row[i + 1].send = (uint32_t)c->group[i].send;
        row[i + 1].off = c->group[i].off;
        row[i + 1].bytes = c->group[i].bytes;
    }
}

/* Staging for every message of the group that may be staged (one way, at
 * most CES_P2P_STAGE_MAX bytes), eager or captured (their own slots and
 * counts: the two protocols' flags do not meet): pair s -> d gets two
 * slots in area (s - d) mod n, grown to the next power of two (at least 64
 * KiB) that holds the message.  Every rank walks the same table in the
 * same order, so the symmetric allocations agree. */
static int group_stage(struct ces_comm *c, const struct ces_p2p_table *t, int captured)
{
    struct ces_p2p_stages **stp = captured ? &c->p2p_cap : &c->p2p;
    struct ces_p2p_area *area = captured ? c->p2p_carea : c->p2p_area;

    for (uint32_t s = 0; s < c->size; s++) {
        for (uint64_t i = 1; i <= t->d[s][0].bytes; i++) {
            const struct ces_p2p_desc *e = &t->d[s][i];
            uint32_t d = e->peer, a = (s + c->size - d) % c->size;
            uint64_t slot = UINT64_C(64) << 10;
            int rc;

            if (!e->send || e->bytes > c->p2p_stage_max || !ces_cuda_group_one_way(t, s, d))
                continue;
            if (*stp == NULL) {
                *stp = ces_malloc(c->ctx, sizeof(**stp));
                if (*stp == NULL)
                    return ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory staging a message");
                memset(*stp, 0, sizeof(**stp));
                /* captured messages never go the side way */
                (*stp)->side_min = captured ? UINT64_MAX : c->p2p_side_min;
            }
            if (area[a].slot < e->bytes) {
                while (slot < e->bytes)
                    slot <<= 1;
                rc = signal_off(c, 2 * slot, &area[a].off, "p2p:%sstage%" PRIu32 ":%" PRIu64,
                                captured ? "c" : "", a, slot);
                if (rc != CES_OK)
                    return rc;
                area[a].slot = slot;
            }
            (*stp)->p[s][d].off = area[a].off;
            (*stp)->p[s][d].slot = area[a].slot;
        }
    }
    return CES_OK;
}

/* The group's streams: the caller's, and the side way's own two when this
 * rank's part uses them (created on first use). */
static int group_streams(struct ces_comm *c, const struct ces_cuda_pblock *blk, CUstream stream,
                         CUstream *streams)
{
    int rc = CES_OK;

    streams[0] = stream;
    for (size_t i = 0; i < blk->calls.len; i++) {
        uint32_t s = CES_VEC_AT(&blk->calls, struct ces_cuda_call, i).stream;

        if (s > 0 && c->p2p_streams[s] == NULL)
            CES_CU_GOTO(c->ctx, rc, cuStreamCreate(&c->p2p_streams[s], CU_STREAM_NON_BLOCKING),
                        out);
    }
    streams[1] = c->p2p_streams[1];
    streams[2] = c->p2p_streams[2];
out:
    return rc;
}

/* The group's graph for this call, and how to lower it: eager (call k, the
 * staged pairs counted), or captured (the replayable protocol, two replays
 * proved; its own staged pairs counted).  Every rank captures the group or
 * none does: the two protocols do not meet. */
static int group_build(struct ces_comm *c, const struct ces_p2p_table *t, int *capturing,
                       struct ces_graph **g, unsigned *flags)
{
    uint64_t k = c->p2p_calls + 1;
    int rc;

    *capturing = (int)t->d[0][0].send;
    for (uint32_t r = 1; r < c->size; r++)
        if (t->d[r][0].send != t->d[0][0].send)
            return ces_ctx_error(c->ctx, CES_ERR_INVALID,
                                 "ces_group_end: rank %" PRIu32 " captures the group into a CUDA "
                                 "graph and rank %" PRIu32 " does not; capture it on every rank "
                                 "or on none",
                                 t->d[0][0].send ? 0 : r, t->d[0][0].send ? r : 0);
    *flags = ces_cuda_coll_lower_flags(*capturing, c->progress_dev != 0) | CES_LOWER_UNLINKED;
    /* checked before the staging takes its signal memory: in one process
     * the ranks' parts are prepared in turn, and a refusal after the first
     * rank's allocation left the ranks' allocations out of step */
    rc = ces_cuda_group_check(c->ctx, c->size, t);
    if (rc == CES_OK)
        rc = group_stage(c, t, *capturing);
    if (rc == CES_OK && *capturing)
        rc = ces_cuda_group_graph_captured(c->ctx, c->size, c->team->stride, t, 1, 2, c->p2p_cap,
                                           g);
    else if (rc == CES_OK)
        rc = ces_cuda_group_graph(c->ctx, c->size, c->team->stride, t, k, c->p2p, g);
    /* Counted only once the group is valid: every rank refuses an invalid
     * group alike, so the counters stay equal. */
    if (rc == CES_OK && *capturing) {
        ces_cuda_group_count(t, c->p2p_cap, c->size);
    } else if (rc == CES_OK) {
        c->p2p_calls = k;
        ces_cuda_group_count(t, c->p2p, c->size);
    }
    return rc;
}

/* One rank's part of a group, lowered with its signals, streams and watch
 * slots taken (group_prepare), to be issued (group_part_issue) and freed
 * (group_part_free). */
struct group_part {
    struct ces_graph *g;
    struct ces_cuda_plan *plan;
    uint64_t buf_off[1], sig_off[8];
    CUstream streams[3];
    struct issue is;
};

/* Lowers this rank's part of the group, on its stream and the side way's
 * memops on the group's own streams, which are neither forked nor joined
 * (see ces_cuda_group_graph), and reserves the watch slots and records
 * that issuing it takes: everything but the issue itself.  A failure once
 * the group's messages are counted, or one that is no refusal alike,
 * fails the communicator.  p is freed by group_part_free either way. */
static int group_prepare(struct ces_comm *c, const struct ces_p2p_table *t, CUstream stream,
                         struct group_part *p)
{
    unsigned flags = 0;
    int rc, capturing = 0, counted;

    memset(p, 0, sizeof(*p));
    rc = ces_cuda_use(c);
    if (rc == CES_OK)
        rc = group_build(c, t, &capturing, &p->g, &flags);
    counted = rc == CES_OK; /* the group's messages are counted from here */
    if (rc == CES_OK)
        rc = ces_cuda_lower(c->ctx, p->g, c->rank, &c->caps, flags, &p->plan);
    /* the eager protocol's four arrays (posted, done, full, credit), the
     * captured one's four (cposted, cdone, cfull, cbusy) */
    for (uint32_t i = capturing ? 4 : 0; i < (capturing ? 8u : 4u) && rc == CES_OK; i++) {
        struct ces_signal_info si = ces_graph_signal(p->g, i);

        rc = signal_off(c, 8u * si.slots, &p->sig_off[i], "p2p:%s:u64x%" PRIu32, si.name,
                        si.slots);
    }
    if (rc == CES_OK)
        rc = group_streams(c, &p->plan->blocks[0], stream, p->streams);
    if (rc == CES_OK)
        rc = ensure_streams(c, 1, ces_graph_nevents(p->g));
    if (rc == CES_OK) {
        if (capturing)
            c->p2p_captures++;
        if (capturing ? c->p2p_captures == 1 : c->p2p_calls == 1)
            dump_graph(c, p->g, capturing ? "sendrecv-group-captured" : "sendrecv-group-1");
        p->is.c = c;
        p->is.g = p->g;
        p->is.blk = &p->plan->blocks[0];
        p->is.buf_off = p->buf_off;
        p->is.sig_off = p->sig_off;
        p->is.streams = p->streams;
        p->is.watch = !capturing;
        p->is.what = "group";
        p->is.call = capturing ? c->p2p_captures : c->p2p_calls;
        p->is.iter = p->is.call;
        rc = reserve_block(&p->is);
    }
    return counted || !refused_alike(rc) ? issue_failed(c, rc) : rc;
}

/* Issues a part that group_prepare made ready, under its rank's context
 * (in one process the parts of every rank are prepared first). */
static int group_part_issue(struct group_part *p)
{
    int rc = ces_cuda_use(p->is.c);

    if (rc == CES_OK)
        rc = issue_block(&p->is);
    return issue_failed(p->is.c, rc);
}

static void group_part_free(struct group_part *p)
{
    ces_cuda_plan_destroy(p->plan);
    ces_graph_destroy(p->g);
}

/* Lowers and issues this rank's part of the group (several processes). */
static int group_issue(struct ces_comm *c, const struct ces_p2p_table *t, CUstream stream)
{
    struct group_part p;
    int rc = group_prepare(c, t, stream, &p);

    if (rc == CES_OK)
        rc = group_part_issue(&p);
    group_part_free(&p);
    return rc;
}

/* In one process, as each rank ends a group (`ended`: the local ranks that
 * have ended it, this one among them): a rank destroyed or failed
 * (ces_comm_abort too) after its own ces_group_end gets no part, and
 * neither do the others, whose parts would wait for its; one destroyed or
 * failed before it never ends the group, which so can never be issued.
 * Every live rank fails with CES_ERR_PEER_FAILED (the others'
 * ces_group_end returned CES_OK: their next call says it). */
static int group_ranks_alive(struct ces_comm *c, struct ces_team *t, uint32_t ended)
{
    char why[CES_ERRMSG_MAX];
    uint32_t i = 0;

    while (i < t->nlocal && t->comms[i] != NULL && atomic_load(&t->comms[i]->state) == CES_OK)
        i++;
    if (i == t->nlocal)
        return CES_OK;
    snprintf(why, sizeof(why), "rank %" PRIu32 " of this process %s %s: no rank's part of the "
             "group was issued", t->first_local + i,
             t->comms[i] == NULL ? "was destroyed" : "failed",
             (ended & (UINT32_C(1) << i)) != 0 ? "after its ces_group_end"
                                                : "before ending the group");
    for (uint32_t j = 0; j < t->nlocal; j++) {
        if (t->comms[j] != NULL && atomic_load(&t->comms[j]->state) == CES_OK)
            ces_wd_fail(t->comms[j], CES_ERR_PEER_FAILED, why);
    }
    return ces_ctx_error(c->ctx, CES_ERR_PEER_FAILED, "ces_group_end: %s", why);
}

/* In one process, after rank f's part of the group failed with rc (its
 * message the context's last error): every healthy rank from local rank
 * `from` on, whose part was not issued, fails with CES_ERR_PEER_FAILED
 * naming f and the error, and `issued` saying which parts were issued.
 * The context keeps f's error, which the last ces_group_end returns. */
static void group_unissued(struct ces_comm *c, struct ces_team *t, const struct ces_comm *f,
                           uint32_t from, int rc, const char *issued)
{
    char err[CES_ERRMSG_MAX], why[CES_ERRMSG_MAX + 128];

    snprintf(err, sizeof(err), "%s", ces_ctx_last_error(f->ctx));
    snprintf(why, sizeof(why), "rank %" PRIu32 " of this process could not issue its part of "
             "the group (%s): %s", f->rank, err, issued);
    for (uint32_t j = from; j < t->nlocal; j++)
        if (t->comms[j] != NULL && atomic_load(&t->comms[j]->state) == CES_OK)
            ces_wd_fail(t->comms[j], CES_ERR_PEER_FAILED, why);
    ces_ctx_error(c->ctx, rc, "%s", err);
}

/* In one process, the last rank to end a group issues every rank's part:
 * every part is prepared first (its watch slots reserved among them), so
 * that a part refused, a watch limit say, leaves no other rank's part
 * enqueued to wait for it (it was issued in turn, and a later rank's
 * refusal came after the earlier ranks' parts).  A part refused before
 * any rank counted the group (every rank refuses it alike) fails nobody;
 * else the rank whose part failed fails with its error and every other
 * live rank with CES_ERR_PEER_FAILED, since no part was issued.  A part
 * that fails while it is issued (a CUDA error) fails its rank with the
 * error; the ranks after it, whose parts are never issued, fail with
 * CES_ERR_PEER_FAILED at once (their ces_group_end returned CES_OK), and
 * the ranks before it keep their parts enqueued: their watchdogs see the
 * failed rank and release them. */
static int group_issue_all(struct ces_comm *c, struct ces_team *t)
{
    struct group_part *p = ces_malloc(c->ctx, sizeof(*p) * t->nlocal);
    uint32_t n = 0, i = 0;
    int rc = CES_OK;

    if (p == NULL)
        rc = issue_failed(c,
                          ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory in ces_group_end"));
    while (rc == CES_OK && n < t->nlocal) {
        rc = group_prepare(t->comms[n], t->group, t->group_streams[n], &p[n]);
        n++;
    }
    if (rc == CES_OK) {
        while (rc == CES_OK && i < n)
            rc = group_part_issue(&p[i++]);
        if (rc != CES_OK)
            group_unissued(c, t, t->comms[i - 1], i, rc, "this rank's part was not issued");
    } else if (p == NULL || n > 1 || atomic_load(&t->comms[n - 1]->state) != CES_OK) {
        struct ces_comm *f = p == NULL ? c : t->comms[n - 1];

        issue_failed(f, rc);
        group_unissued(c, t, f, 0, rc, "no rank's part of the group was issued");
    }
    for (uint32_t j = 0; j < n; j++)
        group_part_free(&p[j]);
    ces_free(c->ctx, p);
    return rc;
}

int ces_group_end(struct ces_comm *c, ces_stream_t stream)
{
    struct ces_team *t;
    struct ces_p2p_table *tab = NULL;
    int rc, capturing = 0, last = 0;
    uint32_t ended = 0;

    if (c == NULL)
        return CES_ERR_INVALID;
    /* A failed communicator answers with its failure, and ends a group that
     * the failure interrupted. */
    rc = ces_comm_check(c);
    if (rc == CES_OK && !c->in_group)
        return ces_ctx_error(c->ctx, CES_ERR_INVALID, "ces_group_end without ces_group_start");
    c->in_group = 0;
    t = c->team;
    if (rc == CES_OK && c->size > CES_P2P_MAX_RANKS)
        rc = ces_ctx_error(c->ctx, CES_ERR_UNSUPPORTED,
                           "ces_group_end: groups are supported up to %u ranks", CES_P2P_MAX_RANKS);
    if (rc == CES_OK)
        rc = ces_cuda_use(c);
    if (rc == CES_OK)
        rc = is_capturing(c, (CUstream)stream, &capturing);
    if (rc != CES_OK)
        goto out;
    if (t->multi) {
        struct ces_p2p_desc row[CES_MAX_PAIRS + 1];

        tab = ces_malloc(c->ctx, sizeof(*tab));
        if (tab == NULL) {
            rc = ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory in ces_group_end");
            goto out;
        }
        memset(tab, 0, sizeof(*tab));
        group_export(c, capturing, row);
        rc = ces_boot_allgather(c->ctx, &t->boot, row, sizeof(row), -1, tab->d, NULL);
        if (rc == CES_OK)
            rc = group_issue(c, tab, (CUstream)stream);
        goto out;
    }
    /* One process: collect every rank's declarations; the last to arrive
     * issues the group on every rank's stream. */
    pthread_mutex_lock(&t->lock);
    if (t->group == NULL) {
        t->group = ces_malloc(c->ctx, sizeof(*t->group));
        if (t->group != NULL)
            memset(t->group, 0, sizeof(*t->group));
    }
    if (t->group == NULL) {
        pthread_mutex_unlock(&t->lock);
        rc = ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory in ces_group_end");
        goto out;
    }
    rc = ces_cuda_group_arrive(c->ctx, &t->group_arrived, c->rank - t->first_local, t->nlocal,
                               &last);
    if (rc == CES_OK) {
        group_export(c, capturing, t->group->d[c->rank]);
        t->group_streams[c->rank] = (CUstream)stream;
        ended = last ? UINT32_MAX : t->group_arrived;
    }
    /* Issued outside the lock: the first group allocates its signal arrays
     * (ces_team_alloc), which takes the same non-recursive lock. */
    pthread_mutex_unlock(&t->lock);
    if (rc == CES_OK)
        rc = group_ranks_alive(c, t, ended);
    if (rc == CES_OK && last) {
        rc = group_issue_all(c, t);
        ces_cuda_use(c);
        /* every rank's communicator is as group_issue_all left it */
        goto done;
    }
out:
    /* An error but a refusal alike leaves the other ranks' parts of the
     * group waiting for this one.  In one process the group can then never
     * be issued: where ranks ended it already (their calls returned
     * CES_OK), every live rank fails now (a rank that ends it later would
     * fail then). */
    if (!refused_alike(rc)) {
        issue_failed(c, rc);
        if (!t->multi) {
            pthread_mutex_lock(&t->lock);
            ended = t->group_arrived;
            pthread_mutex_unlock(&t->lock);
        }
        if (!t->multi && ended != 0) {
            char err[CES_ERRMSG_MAX];

            snprintf(err, sizeof(err), "%s", ces_ctx_last_error(c->ctx));
            group_ranks_alive(c, t, ended);
            ces_ctx_error(c->ctx, rc, "%s", err); /* the call's own error */
        }
    }
done:
    ces_free(c->ctx, tab);
    c->ngroup = 0;
    return rc;
}
