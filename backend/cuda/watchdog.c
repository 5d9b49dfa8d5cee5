/*
 * backend/cuda/watchdog.c - no hang without an error.
 *
 * Every memop call that holds a wait is a step, numbered per stream; the
 * last such call of each stream in a launch, and at least every
 * CES_PROGRESS_SPAN-th, ends with a progress write: its step number
 * goes into the stream's progress word, in device memory (a write there
 * costs a call 0.9 us, one to host memory 1.3; not every call: lower.c),
 * which the watchdog copies into this rank's entry of the progress page
 * (host memory shared by the ranks) while work is pending (mirror_due), and
 * afresh before a verdict on an eager stream, a diagnosis or a verdict on
 * a captured call (ces_wd_mirror).  The host
 * records each step it enqueues (which slots it waits on, for which
 * values).  A thread per communicator compares: a stream whose word has
 * not moved for CES_TIMEOUT_MS while steps are pending is blocked in one of
 * the steps from word+1 to the next that writes progress; the diagnosis
 * reads their slots and names the first with a wait unmet.  It then
 * prints the diagnosis, marks
 * the communicator (and its entry of the page, so the peers see it) failed,
 * and from then on keeps writing the awaited values into the slots of every
 * pending step from its own stream (created with the highest priority), so
 * that the user's streams drain.  The waits live in one ring per
 * communicator (CES_WD_WAITS), each step keeping the running number of its
 * first: a step that stayed pending while the ring came round has lost its
 * waits, and is reported as such and not released, instead of being taken
 * for the later waits that overwrote its entries.
 *
 * Captured work (the caller's stream capture, and the graph phases of
 * ces_launch) cannot count: a replay repeats the values frozen at capture.
 * What it can say is WHERE it is.  Each captured memop call that holds a
 * wait starts with an ENTER write of the call's record id into the
 * stream's in-flight word and ends with an EXIT write of 0 (lower.c puts
 * them there; the id is fixed at capture, so every replay writes the same).
 * The record (capture_record below) keeps the call's waits with their
 * frozen values, so the watchdog can read each wait's slot, say which one
 * is blocked and release it exactly as for eager work.  Why this is enough:
 * the stream executes the ops of a batch in order, so the word is nonzero
 * exactly while the stream is inside a call that waits; between calls and
 * between replays it is 0, so an idle communicator never looks blocked.  A
 * word that holds the same id for CES_TIMEOUT_MS is only taken for a hang
 * once a read of its slots finds a wait still unmet: a stream that enters
 * the same call replay after replay, and is sampled inside it every time,
 * finds its waits met and is not accused.  The reads go without wd_lock
 * (issuing threads take it on every memop call, and a read of a busy
 * device can take a second), from a copy of the record; their verdict
 * counts only if the word still holds the same id afterwards: a stream
 * that left the call meanwhile may have had its slots re-armed by the
 * next one, so what the read found says nothing about the call it left
 * (leaving and re-entering the same id cannot be told apart, as above).
 * The cost falls on captured calls that wait only: two more ops in the
 * call, nothing per replay on the host; eager work is unchanged.  Limits:
 * one word per watch slot (the capturing stream), so two graphs captured
 * from one stream and replayed at the same time on two streams share a
 * word; records are kept until the communicator is destroyed (at most
 * CES_WD_CAPTURED: a call that would need more is refused before any of it
 * is issued, ces_wd_reserve).
 *
 * A context that dies (a sticky error) stops every stream of it; the
 * mirror's next copy or query then fails, which no healthy context does,
 * so the watchdog fails the communicator with CES_ERR_CUDA at once
 * (wd_read_err) instead of timing a progress that cannot come.
 *
 * Shared hardware queues (CUDA_DEVICE_MAX_CONNECTIONS below CUDA's default
 * of 8, comm.c): a blocked wait stalls every stream queued behind it, the
 * watchdog's own too, and once the queue is full the issuing thread blocks
 * in its next CUDA call, and so would the watchdog in any it made there.
 * The words then live in pinned host memory that the streams write
 * directly (the mirror copies nothing), and every slot read and release
 * goes through a CUDA context of the watchdog's own, made with the
 * communicator (about 0.5 GiB of device memory on H200; a communicator that
 * cannot have it is not made): its queues are its own, and it reaches the
 * same addresses.  So do the reads and releases without shared queues once
 * a mirror copy is still not done a second after the communicator fails or
 * a captured call is judged (wd_stuck: the watchdog's stream shares a queue
 * with a blocked one after all, e.g. among more streams than queues); the
 * context is made then, and if CUDA cannot, the watchdog says that what is
 * blocked may not be released.
 */
#include "runtime.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The watch slot of stream s, or -1 if it has none (slots never move).
 * Also without wd_lock: a slot's stream is set before nwatched (atomic)
 * counts it. */
static int slot_of(const struct ces_comm *c, CUstream s)
{
    uint32_t n = atomic_load(&c->nwatched);

    for (uint32_t i = 0; i < n; i++)
        if (c->watched[i].stream == s)
            return (int)i;
    return -1;
}

/* Gives stream s the next watch slot (wd_lock held, a slot free). */
static int slot_add(struct ces_comm *c, CUstream s)
{
    struct ces_wd_stream *w = &c->watched[c->nwatched];

    w->steps = ces_malloc(c->ctx, sizeof(*w->steps) * CES_WD_STEPS);
    if (w->steps == NULL)
        return ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory watching a stream");
    w->stream = s;
    atomic_init(&w->enqueued, 0);
    w->seen = 0;
    w->since_ms = ces_cuda_now_ms();
    w->fl_seen = 0;
    w->fl_since = w->since_ms;
    if (c->team->page != NULL) {
        atomic_store_explicit(&c->team->page[c->rank].words[c->nwatched], 0,
                              memory_order_relaxed);
        atomic_store_explicit(&c->team->page[c->rank].flight[c->nwatched], 0,
                              memory_order_relaxed);
    }
    return (int)c->nwatched++;
}

int ces_wd_reserve(struct ces_comm *c, const CUstream *s, uint32_t n, uint64_t records)
{
    uint32_t fresh = 0;
    int rc = CES_OK;

    pthread_mutex_lock(&c->wd_lock);
    /* again under the lock: another thread issuing on a stream may have
     * taken its slot since a look without it */
    for (uint32_t i = 0; i < n && rc == CES_OK; i++) {
        int earlier = 0;

        for (uint32_t j = 0; j < i; j++)
            earlier |= s[j] == s[i];
        if (earlier || slot_of(c, s[i]) >= 0)
            continue;
        if (c->nwatched + fresh++ == CES_WD_STREAMS)
            rc = ces_ctx_error(c->ctx, CES_ERR_LIMIT,
                               "rank %" PRIu32 ": the watchdog watches at most %u CUDA streams "
                               "per communicator, and stream %p would be the %uth (a stream "
                               "keeps its slot until ces_comm_destroy)",
                               c->rank, CES_WD_STREAMS, (void *)s[i], CES_WD_STREAMS + 1);
    }
    if (rc == CES_OK && records > CES_WD_CAPTURED - c->cap_steps.len)
        rc = ces_ctx_error(c->ctx, CES_ERR_LIMIT,
                           "rank %" PRIu32 ": the watchdog keeps at most %u records of captured "
                           "calls per communicator (until ces_comm_destroy); %zu are taken and "
                           "this call would need %" PRIu64 " more",
                           c->rank, CES_WD_CAPTURED, c->cap_steps.len, records);
    for (uint32_t i = 0; i < n && rc == CES_OK; i++)
        if (slot_of(c, s[i]) < 0) {
            int slot = slot_add(c, s[i]);

            rc = slot < 0 ? slot : CES_OK;
        }
    pthread_mutex_unlock(&c->wd_lock);
    return rc;
}

int ces_wd_slot(struct ces_comm *c, CUstream s)
{
    int slot = slot_of(c, s), rc;

    if (slot >= 0)
        return slot;
    rc = ces_wd_reserve(c, &s, 1, 0);
    return rc != CES_OK ? rc : slot_of(c, s);
}

void ces_wd_close(struct ces_comm *c, CUstream s)
{
    int i = slot_of(c, s), close;
    struct ces_wd_stream *ws;
    struct ces_wd_step *st;
    uint64_t enq;

    if (c->progress_dev == 0 || i < 0)
        return;
    ws = &c->watched[i];
    pthread_mutex_lock(&c->wd_lock);
    enq = atomic_load(&ws->enqueued);
    st = &ws->steps[enq % CES_WD_STEPS];
    close = enq > 0 && st->seq == enq && !st->progress;
    if (close)
        st->progress = 1; /* claimed now, taken back below if the write is not enqueued */
    pthread_mutex_unlock(&c->wd_lock);
    /* Behind the step on its stream, so the word moves when the stream is
     * past it, as if the step's own call had written it.  Without wd_lock: a
     * full queue blocks the call until the watchdog, which takes the lock,
     * has released what blocks it. */
    if (close && cuStreamWriteValue64(s, c->progress_dev + (CUdeviceptr)i * sizeof(uint64_t), enq,
                                      0) != CUDA_SUCCESS) {
        pthread_mutex_lock(&c->wd_lock);
        if (st->seq == enq)
            st->progress = 0;
        pthread_mutex_unlock(&c->wd_lock);
    }
}

uint64_t ces_wd_word(const struct ces_comm *c, uint32_t rank, uint32_t s)
{
    return atomic_load_explicit(&c->team->page[rank].words[s], memory_order_relaxed);
}

uint64_t ces_wd_flight(const struct ces_comm *c, uint32_t rank, uint32_t s)
{
    return atomic_load_explicit(&c->team->page[rank].flight[s], memory_order_relaxed);
}

uint64_t ces_wd_capture_record(struct ces_comm *c, const struct ces_wd_step *st,
                               const struct ces_wd_wait *waits, uint32_t nwaits)
{
    struct ces_wd_step rec = *st;

    /* captured_blocked copies the waits of one call onto its stack */
    assert(nwaits <= CES_CUDA_MAX_MEMOPS);
    /* the room was reserved before the call was issued (ces_wd_reserve) */
    assert(c->cap_steps.len < CES_WD_CAPTURED);
    if (ces_vec_reserve(c->ctx, &c->cap_waits, sizeof(*waits), nwaits) != CES_OK ||
        ces_vec_reserve(c->ctx, &c->cap_steps, sizeof(rec), 1) != CES_OK)
        return 0;
    rec.seq = c->cap_steps.len + 1;
    rec.first_wait = c->cap_waits.len;
    rec.nwaits = nwaits;
    for (uint32_t k = 0; k < nwaits; k++)
        ces_vec_push(c->ctx, &c->cap_waits, sizeof(*waits), &waits[k]);
    ces_vec_push(c->ctx, &c->cap_steps, sizeof(rec), &rec);
    return rec.seq;
}

/* The captured record of in-flight id `id`, or NULL. */
static const struct ces_wd_step *captured_step(struct ces_comm *c, uint64_t id)
{
    if (id == 0 || id > c->cap_steps.len)
        return NULL;
    return &CES_VEC_AT(&c->cap_steps, struct ces_wd_step, id - 1);
}

static const struct ces_wd_wait *step_wait(struct ces_comm *c, const struct ces_wd_step *st,
                                           int captured, uint32_t k)
{
    if (captured)
        return &CES_VEC_AT(&c->cap_waits, struct ces_wd_wait, st->first_wait + k);
    return &c->waits[(st->first_wait + k) % CES_WD_WAITS];
}

/* Whether the waits of eager step st are still in the ring (wd_lock held).
 * A stream blocked long enough for the others to record CES_WD_WAITS more
 * waits has lost its step's: those entries now hold later waits, which
 * must be neither reported nor released as its own. */
static int waits_kept(const struct ces_comm *c, const struct ces_wd_step *st)
{
    return c->nwaits_total - st->first_wait <= CES_WD_WAITS;
}

static int wait_met(const struct ces_wd_wait *w, uint64_t held)
{
    if (w->cmp == CES_CMP_EQ)
        return held == w->value;
    return w->width == 32 ? (int32_t)((uint32_t)held - (uint32_t)w->value) >= 0
                          : held >= w->value;
}

/* Says on the page that this rank's watchdog is alive (its thread, or a
 * caller's on its behalf, is not stuck in a CUDA call): one more beat. */
static void wd_beat(struct ces_comm *c)
{
    _Atomic uint64_t *b;
    uint64_t v;

    if (c->team->page == NULL)
        return;
    b = &c->team->page[c->rank].beat;
    v = atomic_load_explicit(b, memory_order_relaxed);
    while (v != CES_WD_GONE && !atomic_compare_exchange_weak_explicit(
                                   b, &v, v + 1, memory_order_relaxed, memory_order_relaxed)) {
    }
}

/* Waits, at most a second, for stream s of the watchdog to finish what it
 * was given (the user's streams may be blocked; this one is not), beating
 * while it polls. */
static CUresult stream_wait(struct ces_comm *c, CUstream s)
{
    for (int i = 0; i < 1000; i++) {
        CUresult r = cuStreamQuery(s);

        if (r != CUDA_ERROR_NOT_READY)
            return r;
        if (i % 50 == 0)
            wd_beat(c);
        {
            struct timespec ts = {0, 1000000L};

            nanosleep(&ts, NULL);
        }
    }
    return CUDA_ERROR_NOT_READY;
}

/* Marks the watchdog's stream stuck if a mirror copy on it is still not
 * done after a second: it is queued behind a blocked stream, and so would
 * be its reads and releases. */
static void note_stuck(struct ces_comm *c)
{
    pthread_mutex_lock(&c->wd_mirror_lock);
    if (c->wd_mirror_pending && stream_wait(c, c->wd_stream) == CUDA_ERROR_NOT_READY)
        c->wd_stuck = 1;
    pthread_mutex_unlock(&c->wd_mirror_lock);
}

/* Makes the watchdog's context of its own and its stream, the calling
 * thread's contexts left as they were (cuCtxCreate pushes the new one). */
static CUresult rescue_create(struct ces_comm *c)
{
    CUcontext ctx = NULL, popped;
    CUstream s = NULL;
    CUresult r = cuCtxCreate(&ctx, NULL, 0, c->cudev);

    c->rescue_tried = 1;
    if (r != CUDA_SUCCESS)
        return r;
    r = cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    cuCtxPopCurrent(&popped);
    if (r != CUDA_SUCCESS) {
        cuCtxDestroy(ctx);
        return r;
    }
    c->rescue_ctx = ctx;
    c->rescue_stream = s;
    return CUDA_SUCCESS;
}

int ces_wd_rescue_open(struct ces_comm *c)
{
    CUresult r = rescue_create(c);
    const char *name = "?";

    if (r == CUDA_SUCCESS)
        return CES_OK;
    cuGetErrorName(r, &name);
    return ces_ctx_error(c->ctx, CES_ERR_CUDA,
                         "CUDA_DEVICE_MAX_CONNECTIONS=%" PRIu32 ": the streams share hardware "
                         "queues, where only a CUDA context of the watchdog's own can release a "
                         "hang, and creating it failed (%s; it takes about 0.5 GiB of device "
                         "memory)",
                         c->queues, name);
}

void ces_wd_rescue_close(struct ces_comm *c)
{
    if (c->rescue_ctx == NULL)
        return;
    cuCtxSetCurrent(c->rescue_ctx);
    cuStreamDestroy(c->rescue_stream);
    cuCtxSetCurrent(c->cuctx);
    cuCtxDestroy(c->rescue_ctx);
    c->rescue_ctx = NULL;
    c->rescue_stream = NULL;
}

/* The stream the watchdog's reads and releases go on, its context made
 * current: its own stream, unless a stream of the user's context could be
 * blocking that one's queue (shared queues, or a mirror copy that never
 * finished): then the stream of a context of its own, where none can
 * (made now if it was not; said on stderr at its first use).  gpu_end
 * makes the communicator's context current again. */
static CUstream gpu_begin(struct ces_comm *c)
{
    CUstream s = NULL;
    CUresult r = CUDA_SUCCESS;
    int say = 0;

    pthread_mutex_lock(&c->wd_mirror_lock);
    if (ces_cuda_queues_shared(c->queues) || c->wd_stuck) {
        if (!c->rescue_tried)
            r = rescue_create(c);
        s = c->rescue_stream;
        say = !c->rescue_said;
        c->rescue_said = 1;
    }
    pthread_mutex_unlock(&c->wd_mirror_lock);
    if (say) {
        const char *why = "its stream is queued behind a blocked one";
        char buf[96];

        if (ces_cuda_queues_shared(c->queues)) {
            snprintf(buf, sizeof(buf),
                     "CUDA_DEVICE_MAX_CONNECTIONS=%" PRIu32 ": the streams share hardware queues",
                     c->queues);
            why = buf;
        }
        if (s != NULL) {
            fprintf(stderr,
                    "cesync: watchdog: rank %" PRIu32
                    ": reads and releases through a CUDA context of its own (%s)\n",
                    c->rank, why);
        } else {
            const char *name = "?";

            cuGetErrorName(r, &name);
            fprintf(stderr,
                    "cesync: watchdog: rank %" PRIu32
                    ": could not create a CUDA context of its own (%s): %s; what is blocked may "
                    "not be released\n",
                    c->rank, name, why);
        }
        fflush(stderr);
    }
    if (s == NULL)
        return c->wd_stream;
    cuCtxSetCurrent(c->rescue_ctx);
    return s;
}

static void gpu_end(struct ces_comm *c) { cuCtxSetCurrent(c->cuctx); }

/* Reads a slot's current value (through gpu_begin's stream). */
static int read_slot(struct ces_comm *c, const struct ces_wd_wait *w, uint64_t *v)
{
    uint64_t val = 0;
    CUstream s = gpu_begin(c);
    int ok = cuMemcpyDtoHAsync(&val, w->addr, w->width / 8, s) == CUDA_SUCCESS &&
             stream_wait(c, s) == CUDA_SUCCESS;

    gpu_end(c);
    if (!ok)
        return -1;
    *v = w->width == 32 ? (uint32_t)val : val;
    return 0;
}

/* The words a finished mirror copy brought, into the page (atomic stores:
 * the page's readers, peers included, never see a torn word). */
static void mirror_take(struct ces_comm *c)
{
    struct ces_progress_rank *pg = &c->team->page[c->rank];

    for (uint32_t s = 0; s < CES_WD_STREAMS; s++) {
        atomic_store_explicit(&pg->words[s], c->wd_stage[s], memory_order_relaxed);
        atomic_store_explicit(&pg->flight[s], c->wd_stage[CES_WD_STREAMS + s],
                              memory_order_relaxed);
    }
}

/* The errors after which the context answers every call with the same
 * (cuda.h: "any further CUDA work will return the same error"; also an
 * uncorrectable ECC or NVLink error, and a context destroyed): its
 * streams will never move again. */
static int context_dead(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_NVLINK_UNCORRECTABLE:
    case CUDA_ERROR_CONTAINED:
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    case CUDA_ERROR_MPS_CLIENT_TERMINATED:
    case CUDA_ERROR_EXTERNAL_DEVICE:
        return 1;
    default:
        return 0;
    }
}

/* 1 if r is an error (not ready is none: the copy is still queued); one
 * that says the context died is kept (wd_mirror_lock held).  Any other -
 * a capture in global mode on another thread refuses the call, say - only
 * leaves the words as they were, as a copy still queued would. */
static int mirror_failed(struct ces_comm *c, const char *call, CUresult r)
{
    if (r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY)
        return 0;
    if (context_dead(r) && c->wd_read_err == CUDA_SUCCESS) {
        c->wd_read_err = r;
        c->wd_read_call = call;
    }
    return 1;
}

void ces_wd_mirror(struct ces_comm *c, int wait)
{
    CUresult r;

    if (c->progress_dev == 0 || c->team->page == NULL)
        return;
    pthread_mutex_lock(&c->wd_mirror_lock);
    if (ces_cuda_queues_shared(c->queues)) {
        /* The streams write the words where the page reads them (and no
         * call on their context is safe here: it may block behind them). */
        mirror_take(c);
        pthread_mutex_unlock(&c->wd_mirror_lock);
        return;
    }
    if (c->wd_mirror_pending) {
        r = wait ? stream_wait(c, c->wd_stream) : cuStreamQuery(c->wd_stream);
        if (r == CUDA_ERROR_NOT_READY) {
            pthread_mutex_unlock(&c->wd_mirror_lock);
            return; /* still copying (or, waiting, the device did not answer) */
        }
        c->wd_mirror_pending = 0;
        if (!mirror_failed(c, "cuStreamQuery", r))
            mirror_take(c);
    }
    r = cuMemcpyDtoHAsync(c->wd_stage, c->progress_dev, 2 * CES_WD_STREAMS * sizeof(uint64_t),
                          c->wd_stream);
    if (!mirror_failed(c, "cuMemcpyDtoHAsync", r)) {
        c->wd_mirror_pending = 1;
        if (wait) {
            r = stream_wait(c, c->wd_stream);
            if (r == CUDA_SUCCESS) {
                c->wd_mirror_pending = 0;
                mirror_take(c);
            } else if (mirror_failed(c, "cuStreamQuery", r)) {
                c->wd_mirror_pending = 0;
            }
        }
    }
    pthread_mutex_unlock(&c->wd_mirror_lock);
}

int ces_wd_read_error(struct ces_comm *c, char *why, size_t len)
{
    const char *name = NULL;
    CUresult r;

    pthread_mutex_lock(&c->wd_mirror_lock);
    r = c->wd_read_err;
    if (r != CUDA_SUCCESS) {
        cuGetErrorName(r, &name);
        snprintf(why, len, "the progress words cannot be read: %s failed (%s)", c->wd_read_call,
                 name != NULL ? name : "unknown CUDA error");
    }
    pthread_mutex_unlock(&c->wd_mirror_lock);
    return r != CUDA_SUCCESS;
}

static void release_step(struct ces_comm *c, const struct ces_wd_step *st, int captured)
{
    CUstream s = gpu_begin(c);

    for (uint32_t k = 0; k < st->nwaits; k++) {
        const struct ces_wd_wait *w = step_wait(c, st, captured, k);

        if (w->width == 64)
            cuStreamWriteValue64(s, w->addr, w->value, 0);
        else
            cuStreamWriteValue32(s, w->addr, (cuuint32_t)w->value, 0);
    }
    gpu_end(c);
}

/* The waits of a captured call, copied under wd_lock: once it is released
 * an issuing thread may record a capture, which moves cap_steps and
 * cap_waits. */
struct captured_waits {
    uint32_t n;
    struct ces_wd_wait w[CES_CUDA_MAX_MEMOPS];
};
_Static_assert(sizeof(struct captured_waits) <= 64 * 1024, "kept on the watchdog's stack");

/* Whether captured call `id`, which watch slot s has stayed in, is blocked
 * (wd_lock held on entry and on return, released during the reads): 1 if
 * a wait of it is still unmet (or unreadable, or the id unknown), 0 if
 * every wait is met, -1 if the verdict does not count: the slot's word no
 * longer holds `id` once the reads are done (the stream left the call, and
 * the next one may have re-armed its slots), or the watchdog is stopping. */
static int captured_blocked(struct ces_comm *c, uint32_t s, uint64_t id,
                            struct captured_waits *cw)
{
    const struct ces_wd_step *st = captured_step(c, id);
    int blocked = 0;

    if (st == NULL)
        return 1;
    cw->n = st->nwaits;
    for (uint32_t k = 0; k < cw->n; k++)
        cw->w[k] = *step_wait(c, st, 1, k);
    pthread_mutex_unlock(&c->wd_lock);
    note_stuck(c);
    for (uint32_t k = 0; k < cw->n && !blocked; k++) {
        uint64_t held = 0;

        if (read_slot(c, &cw->w[k], &held) != 0 || !wait_met(&cw->w[k], held))
            blocked = 1;
    }
    ces_wd_mirror(c, 1);
    pthread_mutex_lock(&c->wd_lock);
    if (c->wd_stop || ces_wd_flight(c, c->rank, s) != id)
        return -1;
    return blocked;
}

/* --- the diagnosis ----------------------------------------------------------
 * In two halves.  Under wd_lock, diag_take copies what the step rings, the
 * wait ring and the captured records say about every blocked stream: once
 * the lock is released, issuing threads go on overwriting the rings and a
 * capture may move the records.  Without the lock, diag_print reads the
 * slots (through the device: slow, up to a second each when it does not
 * answer) and prints.  Meanwhile the watchdog does not release (diagnosed
 * is still 0), so the values read are those the streams are blocked on. */

enum diag_kind {
    DIAG_WAITS,      /* blocked in a call whose waits were copied */
    DIAG_STEP_GONE,  /* eager: the step record itself was overwritten */
    DIAG_WAITS_LOST, /* eager: the step's waits were overwritten in the ring */
    DIAG_NO_RECORD,  /* captured: an in-flight id without a record */
    DIAG_UNREAD,     /* eager, the words unreadable: somewhere in done+1..enq */
};

struct diag_entry {
    enum diag_kind kind;
    int captured;
    CUstream stream;
    uint64_t done, enq;      /* eager: the progress word, the steps enqueued */
    uint64_t id;             /* captured: the in-flight record id */
    uint64_t since;          /* DIAG_WAITS_LOST: waits recorded since the step's first */
    /* DIAG_WAITS: the steps the stream may be blocked in (eager: word+1 on
     * to the next that writes progress; captured: the call it is inside),
     * their first_wait indexing diag.waits; DIAG_WAITS_LOST: step[0];
     * DIAG_UNREAD: step[0] and step[1], the first and the last step it
     * may be in, each where its record is kept (bit 0 and bit 1 of ends). */
    uint32_t nsteps, ends;
    struct ces_wd_step step[CES_PROGRESS_SPAN];
};

struct diag {
    uint32_t n;
    struct diag_entry e[2 * CES_WD_STREAMS]; /* eager entries, then captured ones */
    struct ces_wd_wait *waits;
};

/* What watch slot s is blocked in, eager or captured (wd_lock held): 0 if
 * nothing; else *e is filled in, and recs[0..*nrec) are the records whose
 * waits to copy (none when there is none to trust).  unread: the words
 * could not be read, so an eager stream is only known to be past its
 * word's last copy; its slots are not read either (the context is dead). */
static int blocked_in(struct ces_comm *c, uint32_t s, int captured, int unread,
                      struct diag_entry *e, const struct ces_wd_step **recs, uint32_t *nrec)
{
    memset(e, 0, sizeof(*e));
    e->captured = captured;
    e->stream = c->watched[s].stream;
    *nrec = 0;
    if (captured) {
        e->id = ces_wd_flight(c, c->rank, s);
        if (e->id == 0)
            return 0;
        recs[0] = captured_step(c, e->id);
        *nrec = recs[0] != NULL;
        e->kind = recs[0] != NULL ? DIAG_WAITS : DIAG_NO_RECORD;
        return 1;
    }
    e->done = ces_wd_word(c, c->rank, s);
    e->enq = atomic_load(&c->watched[s].enqueued);
    if (e->done >= e->enq)
        return 0;
    if (unread) {
        const uint64_t q[2] = {e->done + 1, e->enq};

        e->kind = DIAG_UNREAD;
        for (uint32_t k = 0; k < 2; k++)
            if (c->watched[s].steps[q[k] % CES_WD_STEPS].seq == q[k]) {
                e->step[k] = c->watched[s].steps[q[k] % CES_WD_STEPS];
                e->ends |= 1u << k;
            }
        return 1;
    }
    e->kind = DIAG_WAITS;
    for (uint64_t q = e->done + 1; q <= e->enq && *nrec < CES_PROGRESS_SPAN; q++) {
        const struct ces_wd_step *st = &c->watched[s].steps[q % CES_WD_STEPS];

        if (st->seq != q) {
            if (*nrec == 0)
                e->kind = DIAG_STEP_GONE;
            break;
        }
        if (!waits_kept(c, st)) {
            if (*nrec == 0) {
                e->kind = DIAG_WAITS_LOST;
                e->since = c->nwaits_total - st->first_wait;
                e->step[0] = *st;
                e->nsteps = 1;
            }
            break;
        }
        recs[(*nrec)++] = st;
        if (st->progress)
            break;
    }
    return 1;
}

/* Copies the diagnosis (wd_lock held); NULL when out of memory. */
static struct diag *diag_take(struct ces_comm *c, int unread)
{
    const struct ces_wd_step *recs[2 * CES_WD_STREAMS][CES_PROGRESS_SPAN];
    uint32_t nrec[2 * CES_WD_STREAMS];
    struct diag *d;
    size_t nwaits = 0, at = 0;

    if (c->team->page == NULL)
        return NULL;
    d = ces_malloc(c->ctx, sizeof(*d));
    if (d == NULL)
        return NULL;
    d->n = 0;
    d->waits = NULL;
    /* The progress words move on their own, so they are read once, here;
     * the records they lead to cannot change while the lock is held. */
    for (int captured = 0; captured < 2; captured++)
        for (uint32_t s = 0; s < c->nwatched; s++)
            if (blocked_in(c, s, captured, unread, &d->e[d->n], recs[d->n], &nrec[d->n])) {
                for (uint32_t k = 0; k < nrec[d->n]; k++)
                    nwaits += recs[d->n][k]->nwaits;
                d->n++;
            }
    if (nwaits > 0) {
        d->waits = ces_malloc(c->ctx, sizeof(*d->waits) * nwaits);
        if (d->waits == NULL) {
            ces_free(c->ctx, d);
            return NULL;
        }
    }
    for (uint32_t i = 0; i < d->n; i++) {
        if (nrec[i] == 0)
            continue;
        d->e[i].nsteps = nrec[i];
        for (uint32_t k = 0; k < nrec[i]; k++) {
            const struct ces_wd_step *st = recs[i][k];

            d->e[i].step[k] = *st;
            d->e[i].step[k].first_wait = at;
            for (uint32_t j = 0; j < st->nwaits; j++)
                d->waits[at++] = *step_wait(c, st, d->e[i].captured, j);
        }
    }
    return d;
}

static void diag_free(struct ces_comm *c, struct diag *d)
{
    if (d == NULL)
        return;
    ces_free(c->ctx, d->waits);
    ces_free(c->ctx, d);
}

/* What the diagnosis found in the slots of one step's waits. */
enum { READ_OK, READ_FAILED, READ_SKIPPED };

/* Reads the slots of step st's waits into held[] and how[]: 1 if a wait
 * is unmet or unread.  After one read has failed (the device does not
 * answer), the others are not tried: each would wait as long again. */
static int read_step(struct ces_comm *c, const struct diag *d, const struct ces_wd_step *st,
                     int *unreadable, uint64_t *held, uint8_t *how)
{
    int blocked = 0;

    for (uint32_t k = 0; k < st->nwaits; k++) {
        const struct ces_wd_wait *w = &d->waits[st->first_wait + k];

        held[k] = 0;
        how[k] = *unreadable ? READ_SKIPPED : read_slot(c, w, &held[k]) == 0 ? READ_OK : READ_FAILED;
        if (how[k] != READ_OK)
            *unreadable = 1;
        if (how[k] != READ_OK || !wait_met(w, held[k]))
            blocked = 1;
    }
    return blocked;
}

/* One line per wait of a step: the slot, the value awaited and held. */
static void print_waits(struct ces_comm *c, FILE *f, const struct diag *d,
                        const struct ces_wd_step *st, const uint64_t *held, const uint8_t *how)
{
    for (uint32_t k = 0; k < st->nwaits; k++) {
        const struct ces_wd_wait *w = &d->waits[st->first_wait + k];

        fprintf(f, "cesync: watchdog:     r%" PRIu32 ".s%" PRIu32 "#%" PRIu64 " wait %s[%" PRIu32
                   "]@%" PRIu32 " %s %" PRIu64 ": ",
                c->rank, st->stream, w->spos, w->name, w->idx, w->rank,
                w->cmp == CES_CMP_EQ ? "==" : ">=", w->value);
        if (how[k] == READ_OK)
            fprintf(f, "slot holds %" PRIu64 "%s\n", held[k],
                    wait_met(w, held[k]) ? " (satisfied)" : " (BLOCKED)");
        else if (how[k] == READ_SKIPPED)
            fprintf(f, "value not read (an earlier read failed)\n");
        else
            fprintf(f, "value unreadable\n");
    }
}

/* Prints a DIAG_UNREAD entry: the steps after the word's last copy, each
 * end named by its call where its record is kept. */
static void print_unread(struct ces_comm *c, FILE *f, const struct diag_entry *e)
{
    char end[2][64], slot[16] = "";

    for (uint32_t k = 0; k < 2; k++) {
        if (e->ends & (1u << k)) {
            snprintf(end[k], sizeof(end[k]), "%s call %" PRIu64, e->step[k].what, e->step[k].call);
            snprintf(slot, sizeof(slot), " (s%" PRIu32 ")", e->step[k].stream);
        } else {
            snprintf(end[k], sizeof(end[k]), "a call no longer recorded");
        }
    }
    if (e->done + 1 == e->enq)
        fprintf(f, "cesync: watchdog:   rank %" PRIu32 " stream %p%s: stopped in step %" PRIu64
                   " of %" PRIu64 ", %s",
                c->rank, (void *)e->stream, slot, e->enq, e->enq, end[1]);
    else
        fprintf(f, "cesync: watchdog:   rank %" PRIu32 " stream %p%s: stopped somewhere in "
                   "steps %" PRIu64 " to %" PRIu64 " of %" PRIu64 ", from %s to %s",
                c->rank, (void *)e->stream, slot, e->done + 1, e->enq, e->enq, end[0], end[1]);
    fprintf(f, " (its word's last copy said %" PRIu64 " done)\n", e->done);
}

/* Prints the diagnosis (without wd_lock: it reads slots). */
static void diag_print(struct ces_comm *c, const struct diag *d, const char *why)
{
    FILE *f = stderr;
    int unreadable = 0;

    fprintf(f, "cesync: watchdog: rank %" PRIu32 " (device %d): %s\n", c->rank, c->device, why);
    if (ces_wd_read_error(c, NULL, 0))
        fprintf(f, "cesync: watchdog:   (the progress words could not be read: where a stream "
                   "stopped is known only from their last copy on)\n");
    if (d == NULL && c->team->page != NULL)
        fprintf(f, "cesync: watchdog:   (out of memory: no details of the blocked streams)\n");
    for (uint32_t i = 0; d != NULL && i < d->n; i++) {
        const struct diag_entry *e = &d->e[i];
        const struct ces_wd_step *st = &e->step[0];
        uint64_t held[CES_CUDA_MAX_MEMOPS];
        uint8_t how[CES_CUDA_MAX_MEMOPS];

        switch (e->kind) {
        case DIAG_STEP_GONE:
            fprintf(f, "cesync: watchdog:   rank %" PRIu32 " stream %p: blocked after step %" PRIu64
                       " of %" PRIu64 " (step record overwritten)\n",
                    c->rank, (void *)e->stream, e->done, e->enq);
            break;
        case DIAG_WAITS_LOST:
            fprintf(f, "cesync: watchdog:   rank %" PRIu32 " stream %p (s%" PRIu32 "): blocked in %s call %" PRIu64
                       " at step %" PRIu64 " of %" PRIu64 "; details lost (ring overwritten: %" PRIu64
                       " waits recorded since its first, the ring keeps %u)\n",
                    c->rank, (void *)e->stream, st->stream, st->what, st->call, st->seq, e->enq,
                    e->since, CES_WD_WAITS);
            break;
        case DIAG_UNREAD:
            print_unread(c, f, e);
            break;
        case DIAG_NO_RECORD:
            fprintf(f, "cesync: watchdog:   rank %" PRIu32 " stream %p: inside captured call %" PRIu64
                       " (no record)\n",
                    c->rank, (void *)e->stream, e->id);
            break;
        case DIAG_WAITS:
            /* The first step with a wait unmet (or unread), else the last:
             * eager, the stream is past the steps before it. */
            for (uint32_t k = 0; k < e->nsteps; k++) {
                st = &e->step[k];
                if (read_step(c, d, st, &unreadable, held, how) || k + 1 == e->nsteps)
                    break;
            }
            if (e->captured)
                fprintf(f, "cesync: watchdog:   rank %" PRIu32 " stream %p (s%" PRIu32 "): blocked in %s call %" PRIu64
                           " (captured, replayed from a CUDA graph; record %" PRIu64 "); its waits:\n",
                        c->rank, (void *)e->stream, st->stream, st->what, st->call, e->id);
            else
                fprintf(f, "cesync: watchdog:   rank %" PRIu32 " stream %p (s%" PRIu32 "): blocked in %s call %" PRIu64
                           " at step %" PRIu64 " of %" PRIu64 "; its waits:\n",
                        c->rank, (void *)e->stream, st->stream, st->what, st->call, st->seq, e->enq);
            print_waits(c, f, d, st, held, how);
            break;
        }
    }
    for (uint32_t r = 0; c->team->page != NULL && r < c->size; r++) {
        uint64_t failed = atomic_load(&c->team->page[r].failed);

        fprintf(f, "cesync: watchdog:   rank %" PRIu32 " last progress:", r);
        for (uint32_t s = 0; s < CES_WD_STREAMS; s++) {
            uint64_t v = ces_wd_word(c, r, s);

            if (v != 0 || s == 0)
                fprintf(f, " s%" PRIu32 "=%" PRIu64, s, v);
        }
        fprintf(f, "%s\n", failed ? " (failed)" : "");
    }
    fprintf(f, "cesync: watchdog: rank %" PRIu32
               ": releasing the blocked waits; the communicator is failed (%s)\n",
            c->rank, why);
    fflush(f);
}

void ces_wd_fail(struct ces_comm *c, int status, const char *why)
{
    struct diag *d = NULL;
    int expect = CES_OK, won, unread;

    /* The calling thread may be the user's (ces_comm_abort), with another
     * context current: the mirror and the slot reads use this one's stream. */
    cuCtxSetCurrent(c->cuctx);
    ces_wd_mirror(c, 1); /* the diagnosis starts from the words as they are now */
    note_stuck(c);
    unread = ces_wd_read_error(c, NULL, 0);
    pthread_mutex_lock(&c->wd_lock);
    /* state changes only here, under the lock: the reason is written while
     * it is still CES_OK, so whoever sees the failure sees the reason */
    if (atomic_load(&c->state) == CES_OK)
        snprintf(c->fail_why, sizeof(c->fail_why), "%s", why);
    won = atomic_compare_exchange_strong(&c->state, &expect, status);
    if (won) {
        if (c->team->page != NULL)
            atomic_store(&c->team->page[c->rank].failed, (uint64_t)(-status));
        d = diag_take(c, unread);
    }
    pthread_mutex_unlock(&c->wd_lock);
    if (won) {
        diag_print(c, d, why);
        diag_free(c, d);
    }
    pthread_mutex_lock(&c->wd_lock);
    if (won)
        c->diagnosed = 1; /* from now on the watchdog releases */
    pthread_cond_broadcast(&c->wd_cond);
    pthread_mutex_unlock(&c->wd_lock);
}

/* Whether this look of the watchdog copies the device words afresh
 * (wd_lock held): only while a stream has steps its word has not passed,
 * or captured work has been recorded (a replay may start at any time), and
 * at most every CES_TIMEOUT_MS / 100 (5 to 100 ms), so that an idle
 * communicator leaves its GPU alone. */
static int mirror_due(struct ces_comm *c, uint64_t now)
{
    uint64_t period = c->timeout_ms / 100;
    int busy = c->cap_steps.len > 0;

    period = period < 5 ? 5 : period > 100 ? 100 : period;
    for (uint32_t s = 0; s < c->nwatched && !busy; s++)
        busy = ces_wd_word(c, c->rank, s) < atomic_load(&c->watched[s].enqueued);
    return busy && now - c->wd_mirror_ms >= period;
}

static void *wd_main(void *arg)
{
    struct ces_comm *c = arg;
    uint64_t last_release = 0;
    struct captured_waits cw;

    cuCtxSetCurrent(c->cuctx);
    pthread_mutex_lock(&c->wd_lock);
    while (!c->wd_stop) {
        struct timespec ts;
        uint64_t now;
        int failed, looked;

        clock_gettime(c->wd_clock, &ts); /* wd_cond's clock (ces_wd_init) */
        ts.tv_nsec += 5000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&c->wd_cond, &c->wd_lock, &ts);
        if (c->wd_stop)
            break;
        /* Read the clock after the wait: a stream registered meanwhile has
         * a later start time than a clock read before it. */
        now = ces_cuda_now_ms();
        failed = atomic_load(&c->state) != CES_OK;
        if (c->team->page == NULL)
            continue;
        wd_beat(c);
        looked = 0;
        if (mirror_due(c, now)) {
            ces_wd_mirror(c, 0);
            c->wd_mirror_ms = now;
            looked = 1;
        }
        if (!failed) {
            char why[160] = "";
            int status = CES_ERR_TIMEOUT;

            if (looked && ces_wd_read_error(c, why, sizeof(why)))
                status = CES_ERR_CUDA;
            for (uint32_t r = 0; r < c->size && why[0] == '\0'; r++) {
                struct ces_wd_peer *p = &c->wd_peers[r];
                uint64_t beat;

                if (r == c->rank)
                    continue;
                /* a count, timed on this rank's clock: no clock is shared */
                beat = atomic_load_explicit(&c->team->page[r].beat, memory_order_relaxed);
                if (beat != p->seen) {
                    p->seen = beat;
                    p->since_ms = now;
                }
                if (atomic_load(&c->team->page[r].failed) != 0)
                    snprintf(why, sizeof(why), "rank %" PRIu32 " failed", r);
                else if (beat != 0 && beat != CES_WD_GONE &&
                         now - p->since_ms > c->timeout_ms + CES_WD_SILENT_MS)
                    snprintf(why, sizeof(why),
                             "rank %" PRIu32 "'s watchdog was not heard from for %" PRIu64
                             " ms (its thread is blocked, or its process stopped or died)",
                             r, now - p->since_ms);
                if (why[0] != '\0')
                    status = CES_ERR_PEER_FAILED;
            }
            /* A stream is accused only on words copied after its time ran
             * out: the copy in the page may have been made before this
             * thread was held up (its process stopped, say) for longer
             * than the timeout while the stream went on.  So the first
             * pass that finds one late copies them afresh (without
             * wd_lock: the copy may wait a second), and the second judges. */
            for (int pass = 0; pass < 2 && why[0] == '\0' && !c->wd_stop; pass++) {
                int late = 0;

                for (uint32_t s = 0; s < c->nwatched && why[0] == '\0'; s++) {
                    struct ces_wd_stream *ws = &c->watched[s];
                    uint64_t done = ces_wd_word(c, c->rank, s), enq = atomic_load(&ws->enqueued);

                    if (done != ws->seen || done >= enq) {
                        ws->seen = done;
                        ws->since_ms = now;
                    } else if (now > ws->since_ms && now - ws->since_ms > c->timeout_ms) {
                        late = 1;
                        if (pass == 1)
                            snprintf(why, sizeof(why),
                                     "no progress for %" PRIu64 " ms (CES_TIMEOUT_MS=%" PRIu64 ")",
                                     now - ws->since_ms, c->timeout_ms);
                    }
                }
                if (!late || pass == 1)
                    break;
                pthread_mutex_unlock(&c->wd_lock);
                ces_wd_mirror(c, 1);
                pthread_mutex_lock(&c->wd_lock);
                now = ces_cuda_now_ms();
                if (ces_wd_read_error(c, why, sizeof(why)))
                    status = CES_ERR_CUDA;
            }
            for (uint32_t s = 0; s < c->nwatched && why[0] == '\0' && !c->wd_stop; s++) {
                struct ces_wd_stream *ws = &c->watched[s];
                uint64_t id = ces_wd_flight(c, c->rank, s);

                if (id == 0 || id != ws->fl_seen) {
                    ws->fl_seen = id;
                    ws->fl_since = now;
                } else if (now > ws->fl_since && now - ws->fl_since > c->timeout_ms) {
                    /* Releases wd_lock while it reads: c->nwatched may grow
                     * meanwhile, slots and their fields stay where they are. */
                    int blocked = captured_blocked(c, s, id, &cw);

                    if (blocked > 0)
                        snprintf(why, sizeof(why),
                                 "no progress for %" PRIu64 " ms in captured work "
                                 "(CES_TIMEOUT_MS=%" PRIu64 ")",
                                 now - ws->fl_since, c->timeout_ms);
                    else if (blocked == 0)
                        ws->fl_since = ces_cuda_now_ms();
                    else
                        ws->fl_seen = 0; /* left the call: time the word afresh */
                }
            }
            if (c->wd_stop)
                break;
            if (why[0] != '\0') {
                pthread_mutex_unlock(&c->wd_lock);
                ces_wd_fail(c, status, why);
                pthread_mutex_lock(&c->wd_lock);
                failed = 1;
            }
        }
        if (failed && c->diagnosed && now - last_release >= 20) {
            /* Keep releasing: each pass writes the awaited values of the step
             * every pending stream is blocked at.  Not before the diagnosis
             * is printed: it reads the blocked slots, which a release would
             * show as met. */
            for (uint32_t s = 0; s < c->nwatched; s++) {
                struct ces_wd_stream *ws = &c->watched[s];
                uint64_t done = ces_wd_word(c, c->rank, s), enq = atomic_load(&ws->enqueued);

                /* Every pending step at once, oldest first: a slot ends at
                 * the latest awaited value, which satisfies every `>=`;
                 * `==` waits that a reset re-arms are met on a later pass.
                 * A step whose waits the ring lost is skipped: its entries
                 * hold later waits, written in their own turn. */
                if (enq - done > 4096)
                    enq = done + 4096;
                for (uint64_t q = done + 1; q <= enq; q++) {
                    const struct ces_wd_step *st = &ws->steps[q % CES_WD_STEPS];

                    if (st->seq == q && waits_kept(c, st))
                        release_step(c, st, 0);
                }
            }
            /* Captured work: the call each stream is inside of. */
            for (uint32_t s = 0; s < c->nwatched; s++) {
                const struct ces_wd_step *st = captured_step(c, ces_wd_flight(c, c->rank, s));

                if (st != NULL)
                    release_step(c, st, 1);
            }
            last_release = now;
        }
    }
    pthread_mutex_unlock(&c->wd_lock);
    return NULL;
}

void ces_wd_init(struct ces_comm *c)
{
    pthread_condattr_t ca;

    pthread_mutex_init(&c->wd_lock, NULL);
    pthread_mutex_init(&c->wd_mirror_lock, NULL);
    /* a monotonic clock for the looks' deadline: a step of the wall clock
     * must not hold the watchdog (nor its beat, which the peers time) */
    c->wd_clock = CLOCK_MONOTONIC;
    if (pthread_condattr_init(&ca) != 0) {
        c->wd_clock = CLOCK_REALTIME;
        pthread_cond_init(&c->wd_cond, NULL);
        return;
    }
    if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0)
        c->wd_clock = CLOCK_REALTIME; /* the attribute's default */
    pthread_cond_init(&c->wd_cond, &ca);
    pthread_condattr_destroy(&ca);
}

int ces_wd_start(struct ces_comm *c)
{
    int err;

    wd_beat(c); /* before the thread runs: a rank that dies before its first look
                 * is judged silent too */
    c->wd_peers = ces_malloc(c->ctx, sizeof(*c->wd_peers) * c->size);
    if (c->wd_peers == NULL)
        return ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory starting the watchdog");
    memset(c->wd_peers, 0, sizeof(*c->wd_peers) * c->size);
    err = ces_cuda_thread_start(&c->wd_thread, wd_main, c);
    if (err != 0) {
        ces_free(c->ctx, c->wd_peers);
        c->wd_peers = NULL;
        return ces_ctx_error(c->ctx, CES_ERR_SYSTEM,
                             "rank %" PRIu32 ": cannot start the watchdog thread: %s", c->rank,
                             strerror(err));
    }
    c->wd_started = 1;
    return CES_OK;
}

void ces_wd_stop(struct ces_comm *c)
{
    if (!c->wd_started)
        return;
    pthread_mutex_lock(&c->wd_lock);
    c->wd_stop = 1;
    pthread_cond_broadcast(&c->wd_cond);
    pthread_mutex_unlock(&c->wd_lock);
    pthread_join(c->wd_thread, NULL);
    c->wd_started = 0;
    ces_free(c->ctx, c->wd_peers);
    c->wd_peers = NULL;
    if (c->team->page != NULL) /* not silent: gone */
        atomic_store_explicit(&c->team->page[c->rank].beat, CES_WD_GONE, memory_order_relaxed);
    if (c->rescue_stream != NULL) {
        /* its last releases land before the memory they write is unmapped */
        cuCtxSetCurrent(c->rescue_ctx);
        stream_wait(c, c->rescue_stream);
        cuCtxSetCurrent(c->cuctx);
    }
}
