/*
 * model/predict.c - the cost model: a discrete-event run of a graph on a
 * machine model that predicts its time.
 *
 * Every (rank, stream) runs its unrolled ops in order.  Where a rank's
 * streams share hardware queues (connections N below the streams, not
 * `any`), stream k enters queue k mod N as the checker maps it, in the
 * order of the CUDA backend's calls (memops at their flush, a batch's
 * copies at its end), and the queue hands out its ops in that order: an op
 * starts only once the op enqueued before it has left the queue's head, a
 * copy as it started (its engine runs it while the queue goes on, so a
 * copy of another stream behind it runs beside it), a batch as it issued
 * its copies, a record or an await as soon as the op ahead of it there
 * left (the probe queue-hold: neither a record behind a copy nor another
 * stream's await of that record holds the queue until the copy ends; the
 * record still ends only once its stream's earlier ops ended, and the
 * await's stream stays held until its record ended), any other op as it
 * ended (a wait once it passed).  An op that its own stream still holds
 * (its previous op running, or an await before it whose record has not
 * ended) and a wait not met hold the ops behind them, so a wait blocked at
 * a queue's head holds the other streams' ops, and so does the op behind
 * a blocked await on its stream once it reaches the head.  The run is one
 * execution: where it blocks, the checker finds a DEADLOCK or HANG, but a
 * DEADLOCK that only another order of the writes reaches may finish here,
 * and so does one that only an await at a queue's head makes (the checker
 * holds the queue behind it).  Copies in flight share resources max-min
 * fairly: each GPU's NVLink egress and ingress (link_gbps, each
 * copy between GPUs at most peer_copy_gbps) and its memory
 * (local_copy_gbps); at most copy_engines
 * copies per issuing GPU and batch_engines per batch are in flight, the
 * rest queue in issue order.  A flag write becomes visible to a later wait
 * of its own stream at once (program order), to a wait on another stream of
 * the writer's GPU signal_local_us later, to a wait on another GPU that
 * polls the slot in the writer's (or a third GPU's) memory signal_hop_us
 * later (in the slow mode, to a wait that blocked, slow_wake_us later if
 * that is more: one reached after the write was visible passes at once,
 * unless its stream reached its memop batch as a copy of the stream ended,
 * with no memop between: the first such wait of the batch is looked at
 * again slow_wake_us after it is reached), and to a wait on the GPU whose
 * memory the writer wrote into signal_push_us later (on H200 a wait on local memory wakes up later than
 * one that polls across the link); a blocked wait resumes when a visible
 * value satisfies it.  The first op of each memop batch pays
 * memop_batch_us; the batches are the CUDA backend's (flush_memops of
 * backend/cuda/lower.c): a stream's writes/waits/fences/flushes up to its
 * next other op (or the end of the block; with connections, up to the next
 * op of another stream), enqueued then, in calls of at most
 * max_memops_per_batch ops, a call that waits keeping room for the
 * watchdog's writes (1 eager, 2 captured); eager, a barrier's writes and
 * waits right behind split_wait_mib MiB of copies between ranks on the
 * stream (those of earlier blocks too while no memop followed them) are
 * two calls.  One
 * that waits
 * carries the watchdog's writes as the CUDA backend lowers it (eager: the
 * progress write after the last such batch of each stream in a block
 * replay and every 8th before it; captured: the enter and exit writes
 * around every one; progress_write_us each); a copy batch pays
 * copy_batch_us when it has two or more copies of at least a byte (the
 * backend issues one such copy as a plain cudaMemcpyAsync, none as nothing,
 * and skips every empty copy: issue_copies of backend/cuda/exec.c), and
 * each copy of at least a byte per_copy_us (between GPUs) or
 * per_local_copy_us (inside one) before its bytes move, plus
 * copy_switch_us when the stream's previous copy, with no memop between,
 * was of the other kind (local or peer: another copy engine).  Under a
 * graph phase the copies of a batch run one by one when graph_copies_serial
 * is set, as the CUDA backend lowers them, and a peer copy whose stream
 * has passed a memop batch since it last blocked (a wait or an event
 * await that had to wait, a wait the slow mode held, or an idle start)
 * starts in per_graph_copy_us
 * when that is less than per_copy_us: the graph starts it behind the
 * batch.  An op cannot start before its
 * rank's host thread has enqueued it (host_call_us per call, eager; a
 * batch of copies at its end, as the CUDA backend issues it) or launched
 * the graph replay (graph_launch_us).  As the CUDA backend runs
 * it, every replay of a block of a graph with several streams is forked
 * from stream 0 (a record there, an await on every other stream) and
 * joined back (a record on every other stream, an await on stream 0),
 * except the streams the block's own events link (ces_graph_links), and
 * none with m->unlinked, as the backend issues eager point-to-point groups
 * (CES_LOWER_UNLINKED: the side way's streams pass the calls apart); an
 * await that blocked resumes event_us after its record (one reached as its
 * record ends passes at once, whichever stream the run steps first, and
 * did not have to wait).
 * Under a graph phase an await of a record outside the block is left out,
 * as the CUDA backend captures it.
 *
 * Each op instance remembers what released it (its stream predecessor, the
 * write that satisfied it, the record it awaited), so the critical path is
 * walked back from the last op and its time split into categories.
 */
#include "internal.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Op instances one prediction may simulate (graph replays are unrolled), so
 * that `phase graph x4000000000` fails with a message instead of exhausting
 * memory. */
#define PREDICT_MAX_INSTS (UINT64_C(1) << 24)

enum cat { CAT_COPY, CAT_SIGNAL, CAT_MEMOP, CAT_EVENT, CAT_COUNT };

struct inst {
    const struct ces_op *op;
    uint32_t rank, stream, index, block;
    uint8_t graph;       /* in a graph block */
    uint8_t group_first; /* first op of a memop batch */
    uint8_t begun;       /* the stream has reached it */
    uint8_t paid;        /* its fixed cost has been paid */
    uint8_t switched;    /* its engine-switch cost has been paid */
    uint8_t blocked;     /* await: reached before its record ended */
    uint8_t progress;    /* last op of a memop batch that waits: the watchdog
                            writes it carries (1 eager, 2 captured) */
    uint8_t effect;      /* memop: its write posted / its wait passed */
    double posted;       /* write: when it was posted (a progress write may follow) */
    double blocked_at;   /* wait, await: when it blocked (S_WAIT_SLOT, S_WAIT_EVENT) */
    double held;         /* wait: the slow mode held it this long behind a copy */
    uint8_t tail_paid;   /* memop: the progress write after it paid */
    uint8_t launch;      /* the backend's fork or join of a multi-stream block */
    uint8_t done;
    uint8_t cat;
    uint8_t taken;    /* it left its shared queue's head: a copy as it started,
                         a batch as it issued its copies, any other op as it
                         ended (no op waits for a record's or an await's:
                         enqueue) */
    uint8_t by_queue; /* its cause released it by leaving the head of their
                         queue, at the cause's `taken_at` */
    int64_t match;  /* await: its record instance; -1 */
    int64_t qprev;  /* the op enqueued before it on its shared hardware queue; -1 */
    double taken_at; /* when it left that head */
    double host;    /* enqueued by the host at */
    double end;
    double host_gap; /* time the GPU waited for the host before it */
    int64_t cause;   /* instance whose end released it; -1 = time 0 */
};

enum sstate { S_RUN, S_BUSY, S_WAIT_SLOT, S_WAIT_EVENT, S_WAIT_COPIES, S_WAIT_QUEUE, S_DONE };

struct pstream {
    struct ces_vec ids; /* size_t instance ids in program order */
    size_t pc;
    int state;
    double busy_until;
    int64_t ready_cause; /* cause for the next op */
    size_t batch;        /* instance of the open BATCH (S_WAIT_COPIES) */
    size_t end_inst;     /* instance of its END */
    uint32_t copies_left;
    int last_engine; /* 0 none yet, 1 copies, 2 memops: what the stream ran last */
    int last_copy;   /* 0 none since the last memop, 1 peer, 2 local: its last copy */
    int primed;      /* a memop batch passed since the stream last blocked */
    double copy_end; /* when its last copy (batch) ended; negative: none yet */
    int behind_copy; /* its open memop batch was reached as a copy ended, with
                        no memop between: the stream was blocked on the copy */
};

struct flight {
    uint32_t issuer, src, dst;
    uint8_t local;  /* inside the issuing GPU */
    uint8_t nres;   /* the resources it moves bytes through (set_rates) */
    uint32_t res[4];
    uint8_t phase; /* 0 queued for an engine, 1 start latency, 2 moving, 3 done */
    double left;   /* bytes */
    double lat_end;
    double rate; /* bytes per us */
    size_t stream;
    size_t inst;
};

struct pwrite {
    double t;       /* when it was written */
    uint32_t rank;  /* the writer's GPU */
    uint32_t stream; /* and its stream */
    uint32_t home;  /* the GPU whose memory holds the slot */
    uint64_t seq;
    uint64_t value;
    int64_t writer;
};

struct psim {
    struct ces_ctx *ctx;
    const struct ces_model *m;
    const struct ces_graph *g;
    uint32_t ranks, streams;
    struct ces_vec insts;   /* struct inst */
    struct pstream *ss;     /* [ranks * streams] */
    struct ces_vec flights; /* struct flight */
    size_t nflights_live;
    uint32_t *engines_busy; /* [ranks] */
    uint32_t *stream_busy;  /* [ranks * streams]: copies of the stream in flight */
    struct ces_vec *slots;  /* [nslots] of struct pwrite: the slots ops touch */
    uint64_t *slot_keys;    /* [nslots]: their numbers (slot_key), ascending */
    size_t nslots;
    uint64_t *sig_base;    /* [nsignals + 1]: the number of each signal's first slot */
    struct ces_vec future; /* double: visibility times not reached yet */
    struct ces_op *launch_ops; /* [2 * streams]: record, await on each stream */
    uint32_t queues;       /* hardware queues the streams of a rank share; 0: one each */
    int64_t *qlast;        /* [ranks * queues] while building: the op enqueued last */
    uint64_t seq;
    double t;
    struct ces_predict res;
};

#define EPS 1e-9

static int is_memop(int kind)
{
    return kind == CES_OP_WRITE || kind == CES_OP_WAIT || kind == CES_OP_FENCE ||
           kind == CES_OP_FLUSH;
}

static struct inst *I(struct psim *s, size_t i) { return &CES_VEC_AT(&s->insts, struct inst, i); }

/* A copy of 0 bytes, which the CUDA backend skips (issue_copies of
 * backend/cuda/exec.c): no call, no start cost, nothing in flight. */
static int empty_copy(const struct ces_op *op)
{
    return op->kind == CES_OP_COPY && op->a.hi == op->a.lo;
}

/* Slot idx of signal sig on GPU `rank`, numbered over all signals and
 * ranks. */
static uint64_t slot_key(const struct psim *s, uint32_t sig, uint32_t rank, uint32_t idx)
{
    struct ces_signal_info si = ces_graph_signal(s->g, sig);

    return s->sig_base[sig] + (uint64_t)rank * si.slots + idx;
}

/* The entry of s->slots for a slot an op touches (find_slots listed it). */
static size_t slot_index(const struct psim *s, uint32_t sig, uint32_t rank, uint32_t idx)
{
    uint64_t key = slot_key(s, sig, rank, idx);
    size_t lo = 0, hi = s->nslots;

    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;

        if (s->slot_keys[mid] <= key)
            lo = mid;
        else
            hi = mid;
    }
    assert(lo < s->nslots && s->slot_keys[lo] == key);
    return lo;
}

/* --- building the instances ------------------------------------------- */

/* Closes a memop batch whose last instance is `last` (-1: none): a batch
 * that waits carries the watchdog's writes (the CUDA backend's lowering),
 * which its last op pays: eager the progress write after it, captured the
 * enter and exit writes around it. */
static void end_group(struct psim *s, int64_t last, int waits, int graph)
{
    if (last >= 0 && waits)
        I(s, (size_t)last)->progress = graph ? 2 : 1;
}

/* Eager, the CUDA backend keeps the progress write only on the last batch
 * that waits of each stream in a block replay and on every
 * CES_PROGRESS_SPAN-th before it (thin_progress of backend/cuda/lower.c):
 * drops the others of rank r's instances [from, to). */
static void thin_progress(struct psim *s, size_t from, size_t to)
{
    for (uint32_t k = 0; k < s->streams; k++) {
        size_t left = 0;
        uint32_t since = 0;

        for (size_t i = from; i < to; i++)
            left += I(s, i)->stream == k && I(s, i)->progress == 1;
        for (size_t i = from; i < to && left > 0; i++) {
            struct inst *in = I(s, i);

            if (in->stream != k || in->progress != 1)
                continue;
            if (--left > 0 && ++since < CES_PROGRESS_SPAN)
                in->progress = 0;
            else
                since = 0;
        }
    }
}

/* Whether no rank has an op in block b. */
static int block_empty(struct psim *s, uint32_t b)
{
    for (uint32_t r = 0; r < s->ranks; r++) {
        uint32_t n = 0;

        (void)ces_graph_ops(s->g, b, r, &n);
        if (n > 0)
            return 0;
    }
    return 1;
}

/* Instance id enters its stream's hardware queue, where the streams of a
 * rank share queues (stream k on queue k mod s->queues, as the checker
 * maps them: docs/SEMANTICS.md, section 2): it starts once the op
 * enqueued there before it has left the queue's head (take).  A record
 * or an await leaves the head as soon as that op did (the op ahead of it
 * on its own stream is ahead of it on the queue too, so it left first),
 * though a record ends only once its stream's earlier ops ended and an
 * await holds its stream until its record ended: the op enqueued after it
 * waits for the op ahead of it instead (and the next op of the await's
 * stream, held by the await, holds the ops behind it).  Called in the order the CUDA
 * backend issues the calls (ces_cuda_lower: memops at their flush, a
 * batch's copies at its end). */
static void enqueue(struct psim *s, size_t id)
{
    struct inst *in = I(s, id);
    int64_t *last;

    if (s->queues == 0)
        return;
    last = &s->qlast[(size_t)in->rank * s->queues + in->stream % s->queues];
    in->qprev = *last;
    if (in->op->kind != CES_OP_RECORD && in->op->kind != CES_OP_AWAIT)
        *last = (int64_t)id;
}

/* Issues the memops of stream k pending since instance pfrom[k] (none when
 * SIZE_MAX) as the CUDA backend's flush_memops does: calls of at most
 * max_memops_per_batch ops (3 or more: ces_model_require), a call that
 * waits keeping room for the watchdog's writes (1 eager, 2 captured), and
 * eager, when the stream's
 * copies between ranks since its last memops (copied[k], earlier blocks
 * included) reached
 * split_wait_mib, the writes before a barrier's first wait a call of their
 * own.  Each call costs the host host_call_us (eager) and starts its ops
 * there.  pend is scratch. */
static int flush_pending(struct psim *s, uint32_t k, size_t *pfrom, uint64_t *copied,
                         int graph, double *host, struct ces_vec *pend)
{
    uint32_t max = s->m->max_memops_per_batch, extra = graph ? 2u : 1u;
    uint64_t split = (uint64_t)s->m->split_wait_mib << 20;
    int cut_now = !graph && split > 0 && copied[k] >= split;
    size_t from = pfrom[k], len, at = 0, cut = 0, first_wait;

    if (from == SIZE_MAX)
        return CES_OK; /* copies before and after count together */
    copied[k] = 0;
    pfrom[k] = SIZE_MAX;
    pend->len = 0;
    for (size_t i = from; i < s->insts.len; i++)
        if (I(s, i)->stream == k && ces_vec_push(s->ctx, pend, sizeof(size_t), &i) != CES_OK)
            return ces_ctx_error(s->ctx, CES_ERR_NOMEM, "out of memory predicting");
    len = pend->len;
#define PEND(j) I(s, CES_VEC_AT(pend, size_t, (j)))
    for (first_wait = 0; first_wait < len && PEND(first_wait)->op->kind != CES_OP_WAIT;)
        first_wait++;
    for (size_t j = 0; cut_now && j < first_wait && first_wait < len && cut == 0; j++)
        if (PEND(j)->op->kind == CES_OP_WRITE &&
            PEND(j)->op->slot.sig == PEND(first_wait)->op->slot.sig)
            cut = first_wait;
    while (at < len) {
        size_t n = len - at < max ? len - at : max;
        int waits = 0;

        if (cut > at && n > cut - at)
            n = cut - at;
        for (size_t j = at; j < at + n && !waits; j++)
            waits = PEND(j)->op->kind == CES_OP_WAIT;
        if (waits && n + extra > max) {
            n = max - extra; /* max >= 3: ces_model_predict */
            waits = 0;
            for (size_t j = at; j < at + n && !waits; j++)
                waits = PEND(j)->op->kind == CES_OP_WAIT;
        }
        if (!graph)
            *host += s->m->host_call_us;
        PEND(at)->group_first = 1;
        for (size_t j = at; j < at + n; j++) {
            PEND(j)->host = *host;
            enqueue(s, CES_VEC_AT(pend, size_t, j));
        }
        end_group(s, (int64_t)CES_VEC_AT(pend, size_t, at + n - 1), waits, graph);
        at += n;
    }
#undef PEND
    return CES_OK;
}

/* The op instances build makes of one replay of block b on rank r: its
 * ops (captured, but the awaits left out) and the fork and join around
 * them (add_fork, add_join). */
static uint64_t rep_insts(struct psim *s, uint32_t b, uint32_t r)
{
    uint32_t n = 0;
    const struct ces_op *ops = ces_graph_ops(s->g, b, r, &n);
    uint64_t fork, join, count;

    ces_graph_links(s->g, b, r, &fork, &join);
    count = n + (fork != 0); /* the fork's record on stream 0 */
    for (uint32_t k = 0; k < n && ces_graph_block(s->g, b).kind == CES_PHASE_GRAPH; k++)
        count -= ops[k].kind == CES_OP_AWAIT && !ces_graph_awaits_earlier(ops, k);
    for (uint32_t k = 1; k < s->streams; k++)
        count += ((fork >> k) & 1) + 2 * ((join >> k) & 1);
    return count;
}

/* CES_ERR_LIMIT when the unrolled graph has more than PREDICT_MAX_INSTS op
 * instances, forks and joins included, before any is built. */
static int check_size(struct psim *s)
{
    uint64_t total = 0;

    for (uint32_t b = 0; b < ces_graph_nblocks(s->g); b++) {
        uint64_t per_rep = 0;

        for (uint32_t r = 0; r < s->ranks; r++)
            per_rep += rep_insts(s, b, r);
        /* per_rep * reps <= PREDICT_MAX_INSTS - total is tested by division,
         * so the sum cannot overflow */
        if (per_rep > 0 && ces_graph_block(s->g, b).reps > (PREDICT_MAX_INSTS - total) / per_rep)
            return ces_ctx_error(s->ctx, CES_ERR_LIMIT,
                                 "predict: the schedule runs more than %" PRIu64 " op instances "
                                 "(graph replays unrolled): predict fewer iterations",
                                 PREDICT_MAX_INSTS);
        total += per_rep * ces_graph_block(s->g, b).reps;
    }
    return CES_OK;
}

/* Appends one op of the backend's fork or join (launch_ops: a record or an
 * await on `stream`) to rank r's stream; `match` is the record an await
 * waits for.  Returns its instance id, or -1 out of memory. */
static int64_t push_launch_op(struct psim *s, uint32_t r, uint32_t b, int graph, uint32_t stream,
                              int await, int64_t match, double host)
{
    struct inst in;
    size_t id = s->insts.len;

    memset(&in, 0, sizeof(in));
    in.op = &s->launch_ops[2 * stream + (await ? 1 : 0)];
    in.rank = r;
    in.stream = stream;
    in.block = b;
    in.graph = (uint8_t)graph;
    in.launch = 1;
    in.match = match;
    in.qprev = -1;
    in.cause = -1;
    in.host = host;
    if (ces_vec_push(s->ctx, &s->insts, sizeof(in), &in) != CES_OK ||
        ces_vec_push(s->ctx, &s->ss[(size_t)r * s->streams + stream].ids, sizeof(size_t), &id) !=
            CES_OK)
        return -1;
    enqueue(s, id);
    return (int64_t)id;
}

/* The backend runs every replay of a block of a graph with several streams
 * between a fork and a join (exec.c) for the streams of `mask` (the
 * block's fork or join: ces_graph_links): stream 0 records an event that
 * every forked stream awaits before its first op, and after its last op
 * every joined stream records an event that stream 0 awaits.  So a forked
 * stream cannot begin a replay before stream 0 has begun it, and stream 0
 * cannot end one before every joined stream has ended it.  Eager, each of
 * these calls costs the host host_call_us; captured, they are edges of
 * the graph.  Returns CES_OK or CES_ERR_NOMEM. */
static int add_fork(struct psim *s, uint32_t r, uint32_t b, int graph, uint64_t mask,
                    double *host)
{
    int64_t rec;

    if (mask == 0)
        return CES_OK;
    if (!graph)
        *host += s->m->host_call_us;
    rec = push_launch_op(s, r, b, graph, 0, 0, -1, *host);
    for (uint32_t k = 1; rec >= 0 && k < s->streams; k++) {
        if (!(mask & (UINT64_C(1) << k)))
            continue;
        if (!graph)
            *host += s->m->host_call_us;
        if (push_launch_op(s, r, b, graph, k, 1, rec, *host) < 0)
            rec = -1;
    }
    return rec >= 0 ? CES_OK : ces_ctx_error(s->ctx, CES_ERR_NOMEM, "out of memory predicting");
}

static int add_join(struct psim *s, uint32_t r, uint32_t b, int graph, uint64_t mask,
                    double *host)
{
    for (uint32_t k = 1; k < s->streams; k++) {
        int64_t rec;

        if (!(mask & (UINT64_C(1) << k)))
            continue;
        if (!graph)
            *host += s->m->host_call_us;
        rec = push_launch_op(s, r, b, graph, k, 0, -1, *host);
        if (!graph)
            *host += s->m->host_call_us;
        if (rec < 0 || push_launch_op(s, r, b, graph, 0, 1, rec, *host) < 0)
            return ces_ctx_error(s->ctx, CES_ERR_NOMEM, "out of memory predicting");
    }
    return CES_OK;
}

static int build(struct psim *s)
{
    uint32_t nb = ces_graph_nblocks(s->g);
    uint32_t nev = ces_graph_nevents(s->g);
    int64_t *last_rec = NULL;
    uint32_t *sidx = NULL; /* [streams] per rank: ops seen */
    double *host = NULL;   /* [ranks] */
    uint64_t *copied = NULL; /* [streams]: bytes between ranks of the copies
                                since the stream's last memops (flush_pending) */
    uint64_t *carried = NULL; /* [ranks * streams]: copied at the start of the
                                 block, as the CUDA backend lowers each block
                                 once after the blocks before it */
    uint64_t *links = NULL;  /* [2 * ranks]: the block's fork and join of each rank */
    size_t *pfrom = NULL;    /* [streams]: the stream's first memop not yet issued */
    uint8_t *in_batch = NULL; /* [streams]: inside batch ... end (2: a copy in it) */
    size_t *batch_at = NULL;  /* [streams]: the instance of the open batch */
    uint32_t connections = ces_graph_connections(s->g); /* `any` too: above 0 */
    struct ces_vec pend;
    int rc = CES_OK;

    last_rec = ces_malloc(s->ctx, sizeof(*last_rec) * ((size_t)nev * s->ranks + 1));
    sidx = ces_malloc(s->ctx, sizeof(*sidx) * (size_t)s->ranks * s->streams);
    host = ces_malloc(s->ctx, sizeof(*host) * s->ranks);
    copied = ces_malloc(s->ctx, sizeof(*copied) * s->streams);
    carried = ces_malloc(s->ctx, sizeof(*carried) * s->ranks * s->streams);
    links = ces_malloc(s->ctx, sizeof(*links) * 2 * s->ranks);
    pfrom = ces_malloc(s->ctx, sizeof(*pfrom) * s->streams);
    in_batch = ces_malloc(s->ctx, s->streams);
    batch_at = ces_malloc(s->ctx, sizeof(*batch_at) * s->streams);
    s->qlast = ces_malloc(s->ctx, sizeof(*s->qlast) * ((size_t)s->ranks * s->queues + 1));
    memset(&pend, 0, sizeof(pend));
    if (last_rec == NULL || sidx == NULL || host == NULL || copied == NULL || carried == NULL ||
        links == NULL || pfrom == NULL || in_batch == NULL || batch_at == NULL ||
        s->qlast == NULL) {
        rc = ces_ctx_error(s->ctx, CES_ERR_NOMEM, "out of memory predicting");
        goto out;
    }
    for (size_t i = 0; i < (size_t)s->ranks * s->queues; i++)
        s->qlast[i] = -1;
    for (size_t i = 0; i < (size_t)nev * s->ranks; i++)
        last_rec[i] = -1;
    memset(sidx, 0, sizeof(*sidx) * (size_t)s->ranks * s->streams);
    memset(host, 0, sizeof(*host) * s->ranks);
    memset(carried, 0, sizeof(*carried) * s->ranks * s->streams);
    for (uint32_t b = 0; b < nb; b++) {
        struct ces_block_info bi = ces_graph_block(s->g, b);
        int graph = bi.kind == CES_PHASE_GRAPH;

        if (block_empty(s, b)) {
            /* no op to run, and on any number of streams no fork or join
             * (ces_graph_links links no stream of a rank without ops):
             * only the replays' launches, at once (a block may have
             * 2^32 - 1 replays) */
            for (uint32_t r = 0; r < s->ranks && graph; r++)
                host[r] += (double)bi.reps * s->m->graph_launch_us;
            continue;
        }
        for (uint32_t r = 0; r < s->ranks; r++) {
            ces_graph_links(s->g, b, r, &links[2 * r], &links[2 * r + 1]);
            if (s->m->unlinked)
                links[2 * r] = links[2 * r + 1] = 0;
        }
        for (uint32_t rep = 0; rep < bi.reps; rep++) {
            for (uint32_t r = 0; r < s->ranks; r++) {
                uint32_t n = 0;
                const struct ces_op *ops = ces_graph_ops(s->g, b, r, &n);
                int64_t last = -1; /* the stream of the previous op */
                size_t first = s->insts.len;

                memcpy(copied, &carried[(size_t)r * s->streams], sizeof(*copied) * s->streams);
                memset(in_batch, 0, sizeof(*in_batch) * s->streams);
                for (uint32_t k = 0; k < s->streams; k++)
                    pfrom[k] = SIZE_MAX;
                if (graph)
                    host[r] += s->m->graph_launch_us;
                rc = add_fork(s, r, b, graph, links[2 * r], &host[r]);
                if (rc != CES_OK)
                    goto out;
                for (uint32_t k = 0; k < n && rc == CES_OK; k++) {
                    const struct ces_op *op = &ops[k];
                    struct inst in;
                    size_t id = s->insts.len;
                    struct pstream *ps = &s->ss[(size_t)r * s->streams + op->stream];
                    /* issued here, not with its memops or its batch */
                    int now = !is_memop(op->kind) && op->kind != CES_OP_BATCH &&
                              op->kind != CES_OP_END && !in_batch[op->stream];

                    memset(&in, 0, sizeof(in));
                    in.op = op;
                    in.rank = r;
                    in.stream = op->stream;
                    in.index = sidx[(size_t)r * s->streams + op->stream]++;
                    in.block = b;
                    in.graph = (uint8_t)graph;
                    in.match = -1;
                    in.qprev = -1;
                    in.cause = -1;
                    /* captured, the backend leaves out an await of a record
                     * outside the block (the fork and join order it): no
                     * op, no end of a memop run, not in the queues' order */
                    if (graph && op->kind == CES_OP_AWAIT && !ces_graph_awaits_earlier(ops, k))
                        continue;
                    /* with shared queues the line order is the queues' order:
                     * a stream's memops go out before another stream's op */
                    if (connections > 0 && last >= 0 && last != (int64_t)op->stream)
                        rc = flush_pending(s, (uint32_t)last, pfrom, copied, graph, &host[r],
                                           &pend);
                    last = op->stream;
                    if (rc != CES_OK)
                        break;
                    if (is_memop(op->kind)) {
                        if (pfrom[op->stream] == SIZE_MAX)
                            pfrom[op->stream] = id; /* enqueued at the next flush */
                    } else if (op->kind != CES_OP_END && !in_batch[op->stream]) {
                        rc = flush_pending(s, op->stream, pfrom, copied, graph, &host[r], &pend);
                        if (rc != CES_OK)
                            break;
                        /* an empty copy ends the memop run (lower_op) but
                         * the backend issues no call for it (issue_copies) */
                        if (!graph && op->kind != CES_OP_PRODUCE && op->kind != CES_OP_CONSUME &&
                            op->kind != CES_OP_BATCH && !empty_copy(op))
                            host[r] += s->m->host_call_us;
                    }
                    if (op->kind == CES_OP_COPY && op->a.rank != op->b.rank)
                        copied[op->stream] += op->a.hi - op->a.lo;
                    if (op->kind == CES_OP_BATCH) {
                        in_batch[op->stream] = 1;
                        batch_at[op->stream] = id;
                    } else if (op->kind == CES_OP_COPY && in_batch[op->stream] &&
                               !empty_copy(op)) {
                        in_batch[op->stream] = 2;
                    } else if (op->kind == CES_OP_END) {
                        /* the backend issues a batch at its end, after the
                         * calls of other streams between, and one without
                         * copies not at all (emit_batch of lower.c), nor
                         * one of empty copies only (issue_copies of exec.c) */
                        if (!graph && in_batch[op->stream] == 2) {
                            host[r] += s->m->host_call_us;
                            I(s, batch_at[op->stream])->host = host[r];
                        }
                        in_batch[op->stream] = 0;
                    }
                    /* nothing is enqueued for an empty copy: it waits for no call */
                    in.host = empty_copy(op) ? 0.0 : host[r];
                    if (op->kind == CES_OP_RECORD)
                        last_rec[(size_t)op->event * s->ranks + r] = (int64_t)id;
                    else if (op->kind == CES_OP_AWAIT)
                        in.match = last_rec[(size_t)op->event * s->ranks + r];
                    if (op->kind == CES_OP_COPY) {
                        uint64_t *sum = op->a.rank != r || op->b.rank != r ? &s->res.peer_bytes
                                                                           : &s->res.local_bytes;

                        /* 2^24 copies of 2^48 bytes pass 2^64: at most UINT64_MAX */
                        *sum = op->a.hi - op->a.lo > UINT64_MAX - *sum
                                   ? UINT64_MAX
                                   : *sum + (op->a.hi - op->a.lo);
                    }
                    rc = ces_vec_push(s->ctx, &s->insts, sizeof(in), &in);
                    if (rc == CES_OK)
                        rc = ces_vec_push(s->ctx, &ps->ids, sizeof(size_t), &id);
                    if (rc != CES_OK) {
                        rc = ces_ctx_error(s->ctx, CES_ERR_NOMEM, "out of memory predicting");
                        goto out;
                    }
                    if (now) {
                        enqueue(s, id);
                    } else if (op->kind == CES_OP_END) {
                        /* a batch enters its queue whole at its end, as
                         * the backend issues it: after the calls of other
                         * streams between (only copies are inside it);
                         * the end itself is no work of the queue's, so
                         * what follows goes once its last copy started */
                        for (size_t i = batch_at[op->stream]; i < id; i++)
                            if (I(s, i)->stream == op->stream)
                                enqueue(s, i);
                    }
                }
                for (uint32_t k = 0; k < s->streams && rc == CES_OK; k++)
                    rc = flush_pending(s, k, pfrom, copied, graph, &host[r], &pend);
                if (rc != CES_OK)
                    goto out;
                /* every replay issues the block's one lowered plan: the
                 * next block's starts from where this one's ends */
                if (rep + 1 == bi.reps)
                    memcpy(&carried[(size_t)r * s->streams], copied,
                           sizeof(*copied) * s->streams);
                if (!graph)
                    thin_progress(s, first, s->insts.len);
                rc = add_join(s, r, b, graph, links[2 * r + 1], &host[r]);
                if (rc != CES_OK)
                    goto out;
            }
        }
    }
out:
    ces_free(s->ctx, last_rec);
    ces_free(s->ctx, sidx);
    ces_free(s->ctx, host);
    ces_free(s->ctx, copied);
    ces_free(s->ctx, carried);
    ces_free(s->ctx, links);
    ces_free(s->ctx, pfrom);
    ces_free(s->ctx, in_batch);
    ces_free(s->ctx, batch_at);
    ces_free(s->ctx, s->qlast);
    s->qlast = NULL;
    ces_vec_free(s->ctx, &pend);
    return rc;
}

/* --- slots ---------------------------------------------------------------- */

static int cmp_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Lists the slots the graph's writes and waits touch, each once, and gives
 * each an empty list of writes: a signal may have 2^24 slots on every
 * rank, of which a schedule uses a few, so a list per slot of every signal
 * took gigabytes and the time to clear them.  Returns CES_OK or
 * CES_ERR_NOMEM. */
static int find_slots(struct psim *s)
{
    struct ces_vec keys = {0};
    int rc = CES_OK;

    for (uint32_t b = 0; b < ces_graph_nblocks(s->g) && rc == CES_OK; b++) {
        for (uint32_t r = 0; r < s->ranks && rc == CES_OK; r++) {
            uint32_t n = 0;
            const struct ces_op *ops = ces_graph_ops(s->g, b, r, &n);

            for (uint32_t k = 0; k < n && rc == CES_OK; k++) {
                const struct ces_op *op = &ops[k];
                uint32_t lo = op->slot.rank, hi = op->slot.rank + 1;
                uint64_t key;

                if (op->kind != CES_OP_WRITE && op->kind != CES_OP_WAIT)
                    continue;
                /* as post_write and wait_holds resolve the rank */
                if (op->slot.rank == CES_RANK_ALL) {
                    lo = op->kind == CES_OP_WRITE ? 0 : r;
                    hi = op->kind == CES_OP_WRITE ? s->ranks : r + 1;
                }
                for (uint32_t t = lo; t < hi && rc == CES_OK; t++) {
                    key = slot_key(s, op->slot.sig, t, op->slot.idx);
                    rc = ces_vec_push(s->ctx, &keys, sizeof(key), &key);
                }
            }
        }
    }
    if (rc != CES_OK)
        goto out;
    if (keys.len > 0)
        qsort(keys.data, keys.len, sizeof(uint64_t), cmp_key);
    for (size_t i = 0; i < keys.len; i++) {
        uint64_t key = CES_VEC_AT(&keys, uint64_t, i);

        if (s->nslots == 0 || key != CES_VEC_AT(&keys, uint64_t, s->nslots - 1))
            CES_VEC_AT(&keys, uint64_t, s->nslots++) = key;
    }
    s->slots = ces_malloc(s->ctx, sizeof(*s->slots) * (s->nslots + 1));
    if (s->slots == NULL) {
        rc = CES_ERR_NOMEM;
        goto out;
    }
    memset(s->slots, 0, sizeof(*s->slots) * (s->nslots + 1));
    s->slot_keys = keys.data;
    keys.data = NULL;
out:
    ces_vec_free(s->ctx, &keys);
    return rc == CES_OK ? CES_OK : ces_ctx_error(s->ctx, CES_ERR_NOMEM, "out of memory predicting");
}

/* The hop of a polled flag between GPUs to a wait that blocked on it: in
 * the slow mode (ces_model_slow_mode) such a wait resumes slow_wake_us
 * after the write, never before the write is visible (signal_hop_us). */
static double blocked_hop(const struct ces_model *m)
{
    return m->slow_waits && m->slow_wake_us > m->signal_hop_us ? m->slow_wake_us
                                                              : m->signal_hop_us;
}

/* When write w becomes visible to a wait on stream `stream` of GPU
 * `reader`: at once on the writer's own stream (its ops run in order, so a
 * later wait there reads what the stream wrote before it, e.g. its reset
 * of a flag it awaits again), else after the wake-up of a wait: for a
 * polled flag of another GPU signal_hop_us, or, to a wait that blocked at
 * `blocked_at` (negative: one that did not) in the slow mode, blocked_hop
 * for a write it could not see yet then (one it saw stays seen as it was,
 * so that a later write it saw, its own reset say, keeps winning). */
static double visible_at(const struct psim *s, const struct pwrite *w, uint32_t reader,
                         uint32_t stream, double blocked_at)
{
    double fast = w->t + s->m->signal_hop_us;

    if (w->rank == reader && w->stream == stream)
        return w->t;
    if (w->rank == reader)
        return w->t + s->m->signal_local_us;
    if (w->home == reader)
        return w->t + s->m->signal_push_us;
    if (blocked_at < 0.0 || fast <= blocked_at + EPS)
        return fast;
    return w->t + blocked_hop(s->m);
}

/* Drops from a slot's writes those no wait can see any more at time t (or
 * later): an earlier write of a stream that every GPU already sees a later
 * write of - that one is visible wherever the earlier one is, and wins the
 * tie.  Keeps the scans below short over long runs of iterations (they
 * grew with every write: quadratic). */
struct seen_write {
    uint32_t rank, stream;
    size_t last; /* index of the stream's latest write that every GPU sees */
};

/* The entry of w's stream among seen[0:n), or n. */
static size_t seen_of(const struct seen_write *seen, size_t n, const struct pwrite *w)
{
    size_t k = 0;

    while (k < n && (seen[k].rank != w->rank || seen[k].stream != w->stream))
        k++;
    return k;
}

static void slot_compact(const struct psim *s, struct ces_vec *v, double t)
{
    double late = s->m->signal_local_us;
    struct seen_write seen[32];
    size_t nseen = 0, keep = 0;
    struct pwrite *w = v->data;

    if (blocked_hop(s->m) > late)
        late = blocked_hop(s->m);
    if (s->m->signal_push_us > late)
        late = s->m->signal_push_us;
    for (size_t i = v->len; i-- > 0 && nseen < sizeof(seen) / sizeof(seen[0]);) {
        if (seen_of(seen, nseen, &w[i]) == nseen && w[i].t + late <= t + EPS) {
            seen[nseen].rank = w[i].rank;
            seen[nseen].stream = w[i].stream;
            seen[nseen++].last = i;
        }
    }
    for (size_t i = 0; i < v->len; i++) {
        size_t k = seen_of(seen, nseen, &w[i]);

        if (k == nseen || i >= seen[k].last)
            w[keep++] = w[i];
    }
    v->len = keep;
}

/* The value of a slot at time t as a wait on stream `stream` of GPU `reader`
 * sees it, and the write that put it there (-1: the initial 0): the write
 * that became visible last, of writes visible at the same time (within
 * EPS: sums that differ in their last bits) the later one - a reset made
 * when a wait passed on the write it overwrites. */
static uint64_t slot_value(struct psim *s, size_t slot, uint32_t reader, uint32_t stream,
                           double t, double blocked_at, int64_t *writer)
{
    const struct ces_vec *v = &s->slots[slot];
    const struct pwrite *best = NULL;
    double bvis = 0.0;

    slot_compact(s, &s->slots[slot], t);
    for (size_t i = 0; i < v->len; i++) {
        const struct pwrite *w = &CES_VEC_AT(v, struct pwrite, i);
        double vis = visible_at(s, w, reader, stream, blocked_at);

        if (vis <= t + EPS &&
            (best == NULL || vis > bvis + EPS || (vis >= bvis - EPS && w->seq > best->seq))) {
            best = w;
            bvis = vis;
        }
    }
    *writer = best != NULL ? best->writer : -1;
    return best != NULL ? best->value : 0;
}

/* Whether wait op of GPU `rank` holds at time t; `blocked_at`: when the
 * wait blocked, negative where it has not (visible_at). */
static int wait_holds(struct psim *s, const struct ces_op *op, uint32_t rank, double t,
                      double blocked_at, int64_t *writer)
{
    uint32_t srank = op->slot.rank == CES_RANK_ALL ? rank : op->slot.rank;
    struct ces_signal_info si = ces_graph_signal(s->g, op->slot.sig);
    uint64_t cur =
        slot_value(s, slot_index(s, op->slot.sig, srank, op->slot.idx), rank, op->stream, t,
                   blocked_at, writer);

    return ces_wait_holds(si.width, op->cmp, cur, op->value);
}

static int post_write(struct psim *s, size_t id)
{
    struct inst *in = I(s, id);
    const struct ces_op *op = in->op;
    uint32_t lo = op->slot.rank == CES_RANK_ALL ? 0 : op->slot.rank;
    uint32_t hi = op->slot.rank == CES_RANK_ALL ? s->ranks : op->slot.rank + 1;

    in->posted = s->t;
    for (uint32_t t = lo; t < hi; t++) {
        struct pwrite w;
        double when[4] = {s->t + s->m->signal_local_us, s->t + s->m->signal_hop_us,
                          s->t + s->m->signal_push_us, s->t + blocked_hop(s->m)};

        w.t = s->t;
        w.rank = in->rank;
        w.stream = op->stream;
        w.home = t;
        w.seq = s->seq++;
        w.value = op->value;
        w.writer = (int64_t)id;
        /* the moments a wait somewhere can first see it */
        if (ces_vec_push(s->ctx, &s->slots[slot_index(s, op->slot.sig, t, op->slot.idx)],
                         sizeof(w), &w) != CES_OK)
            return ces_ctx_error(s->ctx, CES_ERR_NOMEM, "out of memory predicting");
        for (int k = 0; k < 4; k++)
            if (ces_vec_push(s->ctx, &s->future, sizeof(double), &when[k]) != CES_OK)
                return ces_ctx_error(s->ctx, CES_ERR_NOMEM, "out of memory predicting");
    }
    return CES_OK;
}

/* --- copies --------------------------------------------------------------- */

/* Instance id leaves the head of its shared hardware queue now, unless it
 * did already: the op enqueued after it there may start. */
static void take(struct psim *s, size_t id)
{
    struct inst *in = I(s, id);

    if (!in->taken) {
        in->taken = 1;
        in->taken_at = s->t;
    }
}

static int start_copy(struct psim *s, size_t stream, size_t id)
{
    struct inst *in = I(s, id);
    struct flight f;

    memset(&f, 0, sizeof(f));
    f.issuer = in->rank;
    f.src = in->op->a.rank;
    f.dst = in->op->b.rank;
    f.local = f.src == f.issuer && f.dst == f.issuer;
    /* Egress [0,R), ingress [R,2R), local memory [2R,3R): a copy inside
     * the issuing GPU runs through its memory; any other through the
     * links, read into the issuer where the source is another GPU, written
     * out where the destination is (both for one that another GPU issues
     * between two regions of the same GPU). */
    if (f.local) {
        f.res[f.nres++] = 2 * s->ranks + f.issuer;
    } else {
        if (f.src != f.issuer) {
            f.res[f.nres++] = f.src;
            f.res[f.nres++] = s->ranks + f.issuer;
        }
        if (f.dst != f.issuer) {
            f.res[f.nres++] = f.issuer;
            f.res[f.nres++] = s->ranks + f.dst;
        }
    }
    f.left = (double)(in->op->a.hi - in->op->a.lo);
    f.stream = stream;
    f.inst = id;
    take(s, id); /* its engine runs it; the queue goes on */
    s->nflights_live++;
    if (ces_vec_push(s->ctx, &s->flights, sizeof(f), &f) != CES_OK)
        return ces_ctx_error(s->ctx, CES_ERR_NOMEM, "out of memory predicting");
    return CES_OK;
}

/* Queued copies take free engines in issue order; started copies whose
 * fixed cost has passed begin to move bytes. */
static void admit(struct psim *s)
{
    for (size_t i = 0; i < s->flights.len; i++) {
        struct flight *f = &CES_VEC_AT(&s->flights, struct flight, i);

        if (f->phase == 0 && s->engines_busy[f->issuer] < s->m->copy_engines &&
            s->stream_busy[f->stream] < s->m->batch_engines) {
            struct pstream *ps = &s->ss[f->stream];
            int kind = f->local ? 2 : 1;
            double start = f->local ? s->m->per_local_copy_us : s->m->per_copy_us;

            /* the stream waits for its copies, so `primed` is as it was
             * when it issued this one */
            if (!f->local && ps->primed && I(s, f->inst)->graph &&
                s->m->per_graph_copy_us < start)
                start = s->m->per_graph_copy_us;
            s->engines_busy[f->issuer]++;
            s->stream_busy[f->stream]++;
            f->phase = 1;
            f->lat_end = s->t + start;
            /* the other copy engine starts once this stream's last copy
             * completed (a memop between already waited for it) */
            if (ps->last_copy != 0 && ps->last_copy != kind)
                f->lat_end += s->m->copy_switch_us;
            ps->last_copy = kind;
        }
        if (f->phase == 1 && f->lat_end <= s->t + EPS)
            f->phase = 2;
    }
}

/* Max-min fair rates over resources: [0,R) egress, [R,2R) ingress (each
 * link_gbps), [2R,3R) local memory; a copy between GPUs moves at most
 * peer_copy_gbps besides (one copy engine), which binds only where the
 * link is faster. */
static int set_rates(struct psim *s)
{
    size_t nres = (size_t)s->ranks * 3;
    double own = s->m->peer_copy_gbps * 1e3;
    double *cap = NULL;
    uint32_t *users = NULL;
    int rc = CES_OK;

    cap = ces_malloc(s->ctx, sizeof(*cap) * nres);
    users = ces_malloc(s->ctx, sizeof(*users) * nres);
    if (cap == NULL || users == NULL) {
        rc = ces_ctx_error(s->ctx, CES_ERR_NOMEM, "out of memory predicting");
        goto out;
    }
    for (uint32_t r = 0; r < s->ranks; r++) {
        cap[r] = cap[s->ranks + r] = s->m->link_gbps * 1e3;
        cap[2 * s->ranks + r] = s->m->local_copy_gbps * 1e3;
    }
    for (size_t i = 0; i < s->flights.len; i++) {
        struct flight *f = &CES_VEC_AT(&s->flights, struct flight, i);

        f->rate = f->phase == 2 ? -1.0 : 0.0; /* -1: not fixed yet */
    }
    for (;;) {
        double best = INFINITY;
        size_t bres = nres;
        int peers = 0; /* copies between GPUs not fixed yet */

        memset(users, 0, sizeof(*users) * nres);
        for (size_t i = 0; i < s->flights.len; i++) {
            struct flight *f = &CES_VEC_AT(&s->flights, struct flight, i);

            if (f->rate >= 0.0)
                continue;
            peers |= !f->local;
            for (uint32_t k = 0; k < f->nres; k++)
                users[f->res[k]]++;
        }
        for (size_t r = 0; r < nres; r++)
            if (users[r] > 0 && cap[r] / users[r] < best) {
                best = cap[r] / users[r];
                bres = r;
            }
        if (bres == nres)
            break;
        /* below every share left, a copy between GPUs takes its own rate
         * (never with link_gbps = peer_copy_gbps: a share is at most that) */
        if (peers && own < best) {
            best = own;
            bres = nres + 1;
        }
        for (size_t i = 0; i < s->flights.len; i++) {
            struct flight *f = &CES_VEC_AT(&s->flights, struct flight, i);
            int uses = bres == nres + 1 && !f->local;

            if (f->rate >= 0.0)
                continue;
            for (uint32_t k = 0; k < f->nres; k++)
                uses |= f->res[k] == bres;
            if (!uses)
                continue;
            f->rate = best;
            for (uint32_t k = 0; k < f->nres; k++)
                cap[f->res[k]] -= best;
        }
    }
out:
    ces_free(s->ctx, cap);
    ces_free(s->ctx, users);
    return rc;
}

/* --- streams ---------------------------------------------------------------- */

static void advance(struct psim *s, struct pstream *ps, size_t id)
{
    struct inst *in = I(s, id);

    take(s, id);
    in->end = s->t;
    in->done = 1;
    ps->ready_cause = (int64_t)id;
    ps->pc++;
    ps->state = ps->pc == ps->ids.len ? S_DONE : S_RUN;
}

static void busy(struct pstream *ps, double until)
{
    ps->state = S_BUSY;
    ps->busy_until = until;
}

/* A memop's write is posted or its wait passed: the stream goes on, after
 * the progress write where one follows. */
static int finish_memop(struct psim *s, struct pstream *ps, size_t id)
{
    struct inst *in = I(s, id);

    in->effect = 1;
    if (in->progress && !in->tail_paid && s->m->progress_write_us > 0.0) {
        in->tail_paid = 1;
        busy(ps, s->t + in->progress * s->m->progress_write_us);
        return 1;
    }
    advance(s, ps, id);
    return 1;
}

static int blocked_error(struct psim *s)
{
    for (size_t k = 0; k < (size_t)s->ranks * s->streams; k++) {
        struct pstream *ps = &s->ss[k];
        struct inst *in;
        char where[80], text[160];

        if (ps->state != S_WAIT_SLOT && ps->state != S_WAIT_EVENT)
            continue;
        in = I(s, CES_VEC_AT(&ps->ids, size_t, ps->pc));
        if (in->launch)
            continue; /* a join waits for a stream that is blocked itself */
        ces_op_where(where, sizeof(where), in->rank, in->stream, in->index, in->op);
        ces_op_format(s->g, in->rank, in->op, text, sizeof(text));
        return ces_ctx_error(s->ctx, CES_ERR_SEMANTIC,
                             "predict: the schedule does not finish: %s %s is blocked", where,
                             text);
    }
    return ces_ctx_error(s->ctx, CES_ERR_INTERNAL, "predict: no stream can move");
}

/* A stream changing between copy work (engine 1) and memops (engine 2)
 * pays switch_us once, before the op.  Returns 1 if it went busy. */
static int engine_switch(struct psim *s, struct pstream *ps, struct inst *in, int engine)
{
    int prev = ps->last_engine;

    ps->last_engine = engine;
    if (prev == 0 || prev == engine || in->switched || s->m->switch_us <= 0.0)
        return 0;
    in->switched = 1;
    busy(ps, s->t + s->m->switch_us);
    return 1;
}

/* Runs stream k as far as it can at the current time.  Returns 1 if it
 * changed state, 0 if not, negative on error. */
static int step(struct psim *s, size_t k)
{
    struct pstream *ps = &s->ss[k];
    size_t id;
    struct inst *in;
    const struct ces_op *op;
    int64_t writer;
    int rc;

    if (ps->state != S_RUN)
        return 0;
    id = CES_VEC_AT(&ps->ids, size_t, ps->pc);
    in = I(s, id);
    op = in->op;
    if (!in->begun && in->qprev >= 0 && !I(s, (size_t)in->qprev)->taken) {
        /* behind another stream's op at the head of their shared queue,
         * which waits for what it needs itself: idle */
        ps->primed = 0;
        ps->state = S_WAIT_QUEUE;
        return 1;
    }
    if (!in->begun) {
        in->begun = 1;
        in->cause = ps->ready_cause;
        in->cat = CAT_MEMOP;
        if (in->host > s->t + EPS) {
            ps->primed = 0; /* idle until the host enqueues it */
            in->host_gap = in->host - s->t;
            busy(ps, in->host);
            return 1;
        }
    }
    switch (op->kind) {
    case CES_OP_WRITE:
    case CES_OP_WAIT:
    case CES_OP_FENCE:
    case CES_OP_FLUSH:
        if (in->group_first && !in->switched && !in->paid && !in->effect)
            ps->behind_copy = ps->last_copy != 0 && s->t <= ps->copy_end + EPS;
        ps->last_copy = 0;
        /* until a wait of the batch blocks or the slow mode holds it: back
         * from a hold the stream stays blocked (the held wait may open the
         * batch) */
        if (in->group_first && !in->effect && in->held == 0.0)
            ps->primed = 1;
        if (in->group_first && !in->switched && engine_switch(s, ps, in, 2))
            return 1;
        if (in->group_first && !in->paid && s->m->memop_batch_us > 0.0) {
            in->paid = 1;
            busy(ps, s->t + s->m->memop_batch_us);
            return 1;
        }
        if (in->effect) {
            /* back from the progress write */
        } else if (op->kind == CES_OP_WRITE) {
            rc = post_write(s, id);
            if (rc != CES_OK)
                return rc;
        } else if (op->kind == CES_OP_WAIT) {
            if (!wait_holds(s, op, in->rank, s->t, -1.0, &writer)) {
                in->blocked_at = s->t;
                in->held = 0.0; /* what released it is its write */
                ps->state = S_WAIT_SLOT;
                ps->primed = 0;
                ps->behind_copy = 0;
                return 1;
            }
            if (ps->behind_copy && op->slot.rank != CES_RANK_ALL && op->slot.rank != in->rank) {
                /* the first wait of the batch that polls another GPU's
                 * flag: in the slow mode it is looked at again one
                 * scheduling step later, its flag set or not (the stream
                 * blocked on the copy); a local or pushed flag keeps its
                 * one mode */
                ps->behind_copy = 0;
                if (s->m->slow_waits && s->m->slow_wake_us > 0.0) {
                    in->held = s->m->slow_wake_us;
                    ps->primed = 0;
                    busy(ps, s->t + in->held);
                    return 1;
                }
            }
        }
        return finish_memop(s, ps, id);
    case CES_OP_BATCH:
        if (in->graph && s->m->graph_copies_serial) {
            advance(s, ps, id);
            return 1;
        }
        ps->batch = id;
        ps->copies_left = 0;
        for (size_t j = ps->pc + 1; j < ps->ids.len; j++) {
            const struct ces_op *c = I(s, CES_VEC_AT(&ps->ids, size_t, j))->op;

            if (c->kind == CES_OP_END) {
                ps->end_inst = j;
                break;
            }
            ps->copies_left += !empty_copy(c);
        }
        /* as issue_copies of backend/cuda/exec.c issues the batch: its empty
         * copies not at all, so a batch without other copies is no call; one
         * copy a plain cudaMemcpyAsync, whose start per_copy_us already is;
         * two or more one cudaMemcpyBatchAsync, which pays copy_batch_us */
        if (ps->copies_left > 0 && !in->switched && engine_switch(s, ps, in, 1))
            return 1;
        if (ps->copies_left > 1 && !in->paid && s->m->copy_batch_us > 0.0) {
            in->paid = 1;
            busy(ps, s->t + s->m->copy_batch_us);
            return 1;
        }
        take(s, id); /* its copies go to their engines */
        for (size_t j = ps->pc + 1; j < ps->end_inst; j++) {
            struct inst *c = I(s, CES_VEC_AT(&ps->ids, size_t, j));

            /* on the critical path as the batch's end is (copy_done) */
            c->begun = 1;
            c->cause = in->cause;
            c->by_queue = in->by_queue;
            c->host_gap = in->host_gap;
            c->cat = CAT_COPY;
            if (empty_copy(c->op)) {
                take(s, CES_VEC_AT(&ps->ids, size_t, j));
                c->done = 1;
                c->end = s->t;
                continue;
            }
            rc = start_copy(s, k, CES_VEC_AT(&ps->ids, size_t, j));
            if (rc != CES_OK)
                return rc;
        }
        if (ps->copies_left == 0) {
            ps->pc = ps->end_inst;
            in = I(s, CES_VEC_AT(&ps->ids, size_t, ps->pc));
            in->begun = 1;
            in->cause = I(s, id)->cause;
            in->by_queue = I(s, id)->by_queue;
            in->host_gap = I(s, id)->host_gap;
            in->cat = CAT_COPY;
            advance(s, ps, CES_VEC_AT(&ps->ids, size_t, ps->pc));
            return 1;
        }
        ps->state = S_WAIT_COPIES;
        return 1;
    case CES_OP_COPY:
        in->cat = CAT_COPY;
        if (empty_copy(op)) {
            /* issued as nothing: it passes at once */
            advance(s, ps, id);
            return 1;
        }
        if (!in->switched && engine_switch(s, ps, in, 1))
            return 1;
        rc = start_copy(s, k, id);
        if (rc != CES_OK)
            return rc;
        ps->batch = id;
        ps->end_inst = ps->pc;
        ps->copies_left = 1;
        ps->state = S_WAIT_COPIES;
        return 1;
    case CES_OP_AWAIT:
        in->cat = CAT_EVENT;
        if (in->match >= 0) {
            struct inst *rec = I(s, (size_t)in->match);

            if (!rec->done) {
                in->blocked = 1;
                in->blocked_at = s->t;
                ps->state = S_WAIT_EVENT;
                return 1;
            }
            /* A stream that blocked on the event wakes event_us after the
             * record, no longer primed; one that arrives later, or as the
             * record ends (a record behind it on a shared queue), passes
             * at once and stays as primed as it was, whichever stream the
             * run stepped first. */
            if (in->blocked && rec->end > in->blocked_at + EPS) {
                ps->primed = 0;
                if (rec->end + s->m->event_us > s->t + EPS) {
                    in->cause = in->match;
                    in->by_queue = 0;
                    in->host_gap = 0.0;
                    busy(ps, rec->end + s->m->event_us);
                    return 1;
                }
            }
        }
        advance(s, ps, id);
        return 1;
    default: /* END (serial graph batches), RECORD, PRODUCE, CONSUME */
        advance(s, ps, id);
        return 1;
    }
}

/* A copy finished: its stream goes on once all copies of its batch did. */
static void copy_done(struct psim *s, struct flight *f)
{
    struct pstream *ps = &s->ss[f->stream];
    struct inst *ci = I(s, f->inst);

    f->phase = 3;
    s->nflights_live--;
    s->engines_busy[f->issuer]--;
    s->stream_busy[f->stream]--;
    ci->done = 1;
    ci->end = s->t;
    if (--ps->copies_left > 0)
        return;
    ps->copy_end = s->t;
    if (ci->op->kind == CES_OP_COPY && ps->batch == f->inst) {
        /* a single copy: it is the op itself */
        advance(s, ps, f->inst);
        return;
    }
    {
        struct inst *b = I(s, ps->batch);
        size_t eid = CES_VEC_AT(&ps->ids, size_t, ps->end_inst);
        struct inst *e = I(s, eid);

        e->begun = 1;
        e->cause = b->cause;
        e->by_queue = b->by_queue;
        e->host_gap = b->host_gap;
        e->cat = CAT_COPY;
        ps->pc = ps->end_inst;
        advance(s, ps, eid);
    }
}

/* Wakes streams whose condition holds at the current time. */
static int wake(struct psim *s)
{
    int changed = 0;

    for (size_t k = 0; k < (size_t)s->ranks * s->streams; k++) {
        struct pstream *ps = &s->ss[k];
        struct inst *in;
        int64_t writer;

        switch (ps->state) {
        case S_BUSY:
            if (ps->busy_until <= s->t + EPS) {
                ps->state = S_RUN;
                changed = 1;
            }
            break;
        case S_WAIT_SLOT:
            in = I(s, CES_VEC_AT(&ps->ids, size_t, ps->pc));
            if (wait_holds(s, in->op, in->rank, s->t, in->blocked_at, &writer)) {
                in->cause = writer;
                in->cat = CAT_SIGNAL;
                in->host_gap = 0.0;
                finish_memop(s, ps, CES_VEC_AT(&ps->ids, size_t, ps->pc));
                changed = 1;
            }
            break;
        case S_WAIT_EVENT:
            in = I(s, CES_VEC_AT(&ps->ids, size_t, ps->pc));
            if (I(s, (size_t)in->match)->done) {
                ps->state = S_RUN;
                changed = 1;
            }
            break;
        case S_WAIT_QUEUE:
            /* the op ahead of it in the queue left the head after the
             * stream's own last op ended: that released it */
            in = I(s, CES_VEC_AT(&ps->ids, size_t, ps->pc));
            if (I(s, (size_t)in->qprev)->taken) {
                ps->ready_cause = in->qprev;
                in->by_queue = 1;
                ps->state = S_RUN;
                changed = 1;
            }
            break;
        default:
            break;
        }
    }
    return changed;
}

static int run(struct psim *s)
{
    size_t nst = (size_t)s->ranks * s->streams;
    int rc;

    for (size_t k = 0; k < nst; k++) {
        s->ss[k].state = s->ss[k].ids.len == 0 ? S_DONE : S_RUN;
        s->ss[k].copy_end = -1.0;
    }
    for (;;) {
        double next = INFINITY;
        int moved = 1, all_done = 1;

        while (moved) {
            moved = 0;
            admit(s);
            for (size_t k = 0; k < nst; k++) {
                while ((rc = step(s, k)) > 0)
                    moved = 1;
                if (rc < 0)
                    return rc;
            }
            if (wake(s))
                moved = 1;
        }
        for (size_t k = 0; k < nst; k++)
            if (s->ss[k].state != S_DONE)
                all_done = 0;
        if (all_done)
            break;
        rc = set_rates(s);
        if (rc != CES_OK)
            return rc;
        for (size_t k = 0; k < nst; k++)
            if (s->ss[k].state == S_BUSY && s->ss[k].busy_until < next)
                next = s->ss[k].busy_until;
        for (size_t i = 0; i < s->flights.len; i++) {
            struct flight *f = &CES_VEC_AT(&s->flights, struct flight, i);

            if (f->phase == 1 && f->lat_end < next)
                next = f->lat_end;
            else if (f->phase == 2 && f->rate > 0.0 && s->t + f->left / f->rate < next)
                next = s->t + f->left / f->rate;
        }
        {
            size_t w = 0;

            for (size_t i = 0; i < s->future.len; i++) {
                double v = CES_VEC_AT(&s->future, double, i);

                if (v > s->t + EPS) {
                    CES_VEC_AT(&s->future, double, w++) = v;
                    if (v < next)
                        next = v;
                }
            }
            s->future.len = w;
        }
        if (next == INFINITY)
            return blocked_error(s);
        for (size_t i = 0; i < s->flights.len; i++) {
            struct flight *f = &CES_VEC_AT(&s->flights, struct flight, i);

            if (f->phase == 2 && f->rate > 0.0) {
                /* decide completion from the time it was due, not from the
                 * rounded bytes left */
                if (s->t + f->left / f->rate <= next + EPS)
                    f->left = 0.0;
                else
                    f->left -= f->rate * (next - s->t);
            }
        }
        s->t = next;
        for (size_t i = 0; i < s->flights.len; i++) {
            struct flight *f = &CES_VEC_AT(&s->flights, struct flight, i);

            if (f->phase == 2 && f->left <= 0.0)
                copy_done(s, f);
        }
        /* drop finished flights so the vector stays short */
        {
            size_t w = 0;

            for (size_t i = 0; i < s->flights.len; i++)
                if (CES_VEC_AT(&s->flights, struct flight, i).phase != 3)
                    CES_VEC_AT(&s->flights, struct flight, w++) =
                        CES_VEC_AT(&s->flights, struct flight, i);
            s->flights.len = w;
        }
    }
    return CES_OK;
}

/* Adds x to the sum *sum whose rounding errors *err collects (Neumaier's
 * compensated sum): 2^17 plain additions at 1.8e11 us lost 0.2 us, and the
 * critical path's parts no longer added up to the total. */
static void add_exact(double *sum, double *err, double x)
{
    double t = *sum + x;

    *err += fabs(*sum) >= fabs(x) ? (*sum - t) + x : (x - t) + *sum;
    *sum = t;
}

/* Walks the critical path back from the op that finished last. */
static void critical_path(struct psim *s)
{
    double per[CAT_COUNT + 1] = {0}, err[CAT_COUNT + 1] = {0}; /* host last */
    double upto;
    int64_t last = -1;

    for (size_t i = 0; i < s->insts.len; i++)
        if (last < 0 || I(s, i)->end > I(s, (size_t)last)->end + EPS)
            last = (int64_t)i;
    if (last >= 0) {
        s->res.last_rank = I(s, (size_t)last)->rank;
        s->res.last_stream = I(s, (size_t)last)->stream;
    }
    upto = last >= 0 ? I(s, (size_t)last)->end : 0.0;
    while (last >= 0) {
        struct inst *in = I(s, (size_t)last);
        const struct inst *c = in->cause >= 0 ? I(s, (size_t)in->cause) : NULL;
        /* a wait released by a write counts from the write's post: the
         * writer's stream may have gone on to a progress write after it;
         * an op released by its queue from when the op ahead left the head
         * (a copy as it started) */
        double from = c == NULL                ? 0.0
                      : in->cat == CAT_SIGNAL ? c->posted
                      : in->by_queue          ? c->taken_at
                                              : c->end;

        /* a wait the slow mode held behind a copy: the hold is signal */
        add_exact(&per[in->cat], &err[in->cat], upto - from - in->host_gap - in->held);
        add_exact(&per[CAT_SIGNAL], &err[CAT_SIGNAL], in->held);
        add_exact(&per[CAT_COUNT], &err[CAT_COUNT], in->host_gap);
        upto = from;
        last = in->cause;
    }
    s->res.path_copy_us = per[CAT_COPY] + err[CAT_COPY];
    s->res.path_signal_us = per[CAT_SIGNAL] + err[CAT_SIGNAL];
    s->res.path_memop_us = per[CAT_MEMOP] + err[CAT_MEMOP];
    s->res.path_event_us = per[CAT_EVENT] + err[CAT_EVENT];
    s->res.path_host_us = per[CAT_COUNT] + err[CAT_COUNT];
}

int ces_model_predict(struct ces_ctx *ctx, const struct ces_model *m, const struct ces_graph *g,
                      struct ces_predict *out)
{
    struct psim s;
    size_t nst;
    int rc = CES_OK;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (m == NULL || g == NULL || out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_model_predict: NULL argument");
    memset(out, 0, sizeof(*out));
    memset(&s, 0, sizeof(s));
    s.ctx = ctx;
    s.m = m;
    s.g = g;
    s.ranks = ces_graph_ranks(g);
    s.streams = ces_graph_streams(g);
    rc = ces_graph_require_valid(ctx, g, "predict");
    if (rc != CES_OK)
        return rc;
    rc = ces_model_check_values(ctx, m, "predict");
    if (rc != CES_OK)
        return rc;
    rc = ces_model_require(ctx, m, g, "predict");
    if (rc != CES_OK)
        return rc;
    /* streams sharing hardware queues: `connections any` is timed with a
     * queue per stream */
    if (ces_graph_connections(g) < s.streams)
        s.queues = ces_graph_connections(g);
    nst = (size_t)s.ranks * s.streams;
    s.ss = ces_malloc(ctx, sizeof(*s.ss) * nst);
    if (s.ss != NULL)
        memset(s.ss, 0, sizeof(*s.ss) * nst);
    s.engines_busy = ces_malloc(ctx, sizeof(*s.engines_busy) * s.ranks);
    s.stream_busy = ces_malloc(ctx, sizeof(*s.stream_busy) * nst);
    s.sig_base = ces_malloc(ctx, sizeof(*s.sig_base) * (ces_graph_nsignals(g) + 1));
    if (s.ss == NULL || s.engines_busy == NULL || s.stream_busy == NULL || s.sig_base == NULL) {
        rc = ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory predicting");
        goto out;
    }
    for (size_t k = 0; k < nst; k++)
        s.ss[k].ready_cause = -1;
    memset(s.engines_busy, 0, sizeof(*s.engines_busy) * s.ranks);
    memset(s.stream_busy, 0, sizeof(*s.stream_busy) * nst);
    s.sig_base[0] = 0;
    for (uint32_t i = 0; i < ces_graph_nsignals(g); i++)
        s.sig_base[i + 1] = s.sig_base[i] + (uint64_t)ces_graph_signal(g, i).slots * s.ranks;
    s.launch_ops = ces_malloc(ctx, sizeof(*s.launch_ops) * 2 * s.streams);
    if (s.launch_ops == NULL) {
        rc = ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory predicting");
        goto out;
    }
    memset(s.launch_ops, 0, sizeof(*s.launch_ops) * 2 * s.streams);
    for (uint32_t k = 0; k < s.streams; k++) {
        s.launch_ops[2 * k].kind = CES_OP_RECORD;
        s.launch_ops[2 * k].stream = k;
        s.launch_ops[2 * k + 1].kind = CES_OP_AWAIT;
        s.launch_ops[2 * k + 1].stream = k;
    }
    rc = check_size(&s);
    if (rc == CES_OK)
        rc = find_slots(&s);
    if (rc == CES_OK)
        rc = build(&s);
    if (rc == CES_OK)
        rc = run(&s);
    if (rc != CES_OK)
        goto out;
    s.res.total_us = s.t;
    s.res.iterations = ces_graph_iterations(g);
    s.res.iter_us = s.res.iterations > 0 ? s.t / (double)s.res.iterations : s.t;
    s.res.ops = s.insts.len;
    critical_path(&s);
    *out = s.res;
out:
    if (s.ss != NULL)
        for (size_t k = 0; k < nst; k++)
            ces_vec_free(ctx, &s.ss[k].ids);
    if (s.slots != NULL)
        for (size_t i = 0; i < s.nslots; i++)
            ces_vec_free(ctx, &s.slots[i]);
    ces_free(ctx, s.slots);
    ces_free(ctx, s.slot_keys);
    ces_free(ctx, s.launch_ops);
    ces_free(ctx, s.ss);
    ces_free(ctx, s.engines_busy);
    ces_free(ctx, s.stream_busy);
    ces_free(ctx, s.sig_base);
    ces_vec_free(ctx, &s.insts);
    ces_vec_free(ctx, &s.flights);
    ces_vec_free(ctx, &s.future);
    return rc;
}
