/*
 * tests/cuda/test_watchdog.c - the watchdog (backend/cuda/watchdog.c) on
 * the CPU: a communicator built by hand over host memory, the driver table
 * filled with stand-ins (a slot read is a memcpy, a release write is
 * counted), steps recorded as issue_memops records them.  The diagnosis
 * names the blocked wait, in the first step after the progress word with a
 * wait unmet when steps without progress writes follow it (and a block
 * cut short gets the progress write its last step lacks); a step whose
 * waits the ring has overwritten is
 * said to have lost them (never reported with the later waits that took
 * their place), at the exact boundary too; the release never writes a
 * lost step's entries.  The diagnosis reads the slots without wd_lock,
 * from a copy that an issuing thread overwriting the ring meanwhile does
 * not change, stops reading after a read fails, and the watchdog releases
 * only once it is printed.  Another rank's failure fails the communicator
 * at once with CES_ERR_PEER_FAILED, naming that rank.  The watchdog
 * thread's check of a captured call reads its slots without wd_lock too:
 * an issuing thread takes the lock while a read hangs, and a call the
 * stream has left during the read is not judged by what the read found,
 * also when only the device words (which the watchdog copies into the
 * page) show it.  A watchdog thread held up longer than CES_TIMEOUT_MS
 * while the stream went on accuses nobody on waking (the copy of the words
 * it finds predates the stall).  With shared hardware queues
 * (CUDA_DEVICE_MAX_CONNECTIONS below 8) the words are read where the
 * streams write them, and every slot read and release goes through a
 * context of the watchdog's own, made once; so do they after a mirror copy
 * that never finished, and without that context they stay on its stream.
 */
#include "ces_test.h"
#include "runtime.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* --- driver stand-ins -------------------------------------------------- */

#define MAX_VALUES 70000u

static _Atomic long reads;                 /* slot reads */
static _Atomic long writes[MAX_VALUES + 1]; /* release writes per value */
static _Atomic long events;                /* reads and writes, in order */
static _Atomic long last_read, first_write; /* the end of the last read, the first
                                              write: event numbers (0: none) */
static long read_sleep_ms;                 /* a slow device */
static int read_fails;                     /* a device that does not answer */
static _Atomic CUresult copy_error, query_error; /* every copy, every query fails so */
/* Set by a test: each read checks that wd_lock is free (else counts it in
 * locked_reads) and the first one then records `overwrite` more waits, as
 * an issuing thread would meanwhile. */
static struct fixture *watch_lock;
static uint64_t overwrite;
static _Atomic long locked_reads;
/* Set by a test: called at the start of every slot read, in the reading
 * thread. */
static void (*on_read)(void);

struct fixture;
static void first_then(struct fixture *fx, uint64_t later);
static pthread_mutex_t *fixture_lock(struct fixture *fx);

#define RESCUE_CTX ((CUcontext)(uintptr_t)0xc2)
#define RESCUE_STREAM ((CUstream)(uintptr_t)0x5e)

static _Thread_local CUcontext current;   /* the calling thread's context */
static _Atomic long ctx_creates;          /* cuCtxCreate calls */
static int ctx_create_fails;              /* CUDA cannot make a context */
static _Atomic long rescued_ops;          /* reads and writes on RESCUE_STREAM, its context current */
static _Atomic long stray_ops;            /* on RESCUE_STREAM in another context, or the reverse */
static int queue_stuck;                   /* every stream but RESCUE_STREAM is busy */

static CUresult CUDAAPI fake_ctx_set_current(CUcontext ctx)
{
    current = ctx;
    return CUDA_SUCCESS;
}

static _Thread_local CUcontext pushed_over; /* what cuCtxCreate pushed the new one over */

static CUresult CUDAAPI fake_ctx_create(CUcontext *p, CUctxCreateParams *params, unsigned int flags,
                                        CUdevice dev)
{
    (void)params, (void)flags, (void)dev;
    atomic_fetch_add(&ctx_creates, 1);
    if (ctx_create_fails)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pushed_over = current;
    *p = current = RESCUE_CTX;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_ctx_pop(CUcontext *p)
{
    *p = current;
    current = pushed_over;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_error_name(CUresult r, const char **name)
{
    *name = r == CUDA_ERROR_OUT_OF_MEMORY       ? "CUDA_ERROR_OUT_OF_MEMORY"
            : r == CUDA_ERROR_LAUNCH_FAILED       ? "CUDA_ERROR_LAUNCH_FAILED"
            : r == CUDA_ERROR_ILLEGAL_INSTRUCTION ? "CUDA_ERROR_ILLEGAL_INSTRUCTION"
                                                  : "CUDA_ERROR_?";
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_ctx_destroy(CUcontext ctx)
{
    (void)ctx;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_stream_create(CUstream *s, unsigned int flags)
{
    (void)flags;
    *s = RESCUE_STREAM;
    return CUDA_SUCCESS;
}

/* Counts an op of the watchdog by where it went. */
static void count_op(CUstream s)
{
    if (s == RESCUE_STREAM && current == RESCUE_CTX)
        atomic_fetch_add(&rescued_ops, 1);
    else if (s == RESCUE_STREAM || current == RESCUE_CTX)
        atomic_fetch_add(&stray_ops, 1);
}

/* The slots are host memory: a CUdeviceptr here is a host address. */
static _Atomic CUdeviceptr read_src; /* the source of the copy in progress */

/* The device words of use_device_words: what the streams write, as the
 * test plays them, under dev_lock, which the copies hold too (a copy and
 * the device's write do not race in the test's own memory). */
static uint64_t dev_words[2 * CES_WD_STREAMS];
static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;

static void dev_word_set(uint32_t i, uint64_t v)
{
    pthread_mutex_lock(&dev_lock);
    dev_words[i] = v;
    pthread_mutex_unlock(&dev_lock);
}

static CUresult CUDAAPI fake_dtoh(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    count_op(s);
    atomic_fetch_add(&reads, 1);
    atomic_store(&read_src, src);
    if (on_read != NULL)
        on_read();
    if (read_fails)
        return CUDA_ERROR_UNKNOWN;
    if (atomic_load(&copy_error) != CUDA_SUCCESS)
        return atomic_load(&copy_error);
    pthread_mutex_lock(&dev_lock);
    memcpy(dst, (const void *)(uintptr_t)src, n);
    pthread_mutex_unlock(&dev_lock);
    if (watch_lock != NULL) {
        if (pthread_mutex_trylock(fixture_lock(watch_lock)) != 0) {
            atomic_fetch_add(&locked_reads, 1);
        } else {
            pthread_mutex_unlock(fixture_lock(watch_lock));
            if (overwrite > 0) {
                uint64_t k = overwrite;

                overwrite = 0;
                first_then(watch_lock, k);
            }
        }
    }
    if (read_sleep_ms > 0) {
        struct timespec ts = {0, read_sleep_ms * 1000000L};

        nanosleep(&ts, NULL);
    }
    atomic_store(&last_read, atomic_fetch_add(&events, 1) + 1);
    return CUDA_SUCCESS;
}

static _Atomic long slow_queries; /* so many queries say NOT_READY first */

static CUresult CUDAAPI fake_query(CUstream s)
{
    long left = atomic_load(&slow_queries);

    if (atomic_load(&query_error) != CUDA_SUCCESS)
        return atomic_load(&query_error);
    while (left > 0)
        if (atomic_compare_exchange_weak(&slow_queries, &left, left - 1))
            return CUDA_ERROR_NOT_READY;
    return queue_stuck && s != RESCUE_STREAM ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

static void count_write(uint64_t v)
{
    long none = 0;

    atomic_fetch_add(&writes[v <= MAX_VALUES ? v : 0], 1);
    atomic_compare_exchange_strong(&first_write, &none, atomic_fetch_add(&events, 1) + 1);
}

static _Atomic long write_fails; /* so many 32-bit writes fail first */

static CUresult CUDAAPI fake_write32(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned int f)
{
    long left = atomic_load(&write_fails);

    (void)a, (void)f;
    while (left > 0)
        if (atomic_compare_exchange_weak(&write_fails, &left, left - 1))
            return CUDA_ERROR_UNKNOWN;
    count_op(s);
    count_write(v);
    return CUDA_SUCCESS;
}

static _Atomic CUdeviceptr last_write64; /* the address of the last 64-bit write */

static _Atomic long locked_writes; /* writes issued while wd_lock was held (watch_lock set) */
static _Atomic long write64_fails;  /* so many 64-bit writes fail first */

static CUresult CUDAAPI fake_write64(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned int f)
{
    long left = atomic_load(&write64_fails);

    (void)f;
    while (left > 0)
        if (atomic_compare_exchange_weak(&write64_fails, &left, left - 1))
            return CUDA_ERROR_UNKNOWN;
    if (watch_lock != NULL) {
        if (pthread_mutex_trylock(fixture_lock(watch_lock)) != 0)
            atomic_fetch_add(&locked_writes, 1);
        else
            pthread_mutex_unlock(fixture_lock(watch_lock));
    }
    count_op(s);
    atomic_store(&last_write64, a);
    count_write(v);
    return CUDA_SUCCESS;
}

static void fakes_install(void)
{
    /* The table is a plain static object of cu_api.c that ces_cu() hands
     * out read-only; the test writes it, as the loader would. */
    struct ces_cu_api *t = (struct ces_cu_api *)ces_cu();

    t->p_cuCtxSetCurrent = fake_ctx_set_current;
    t->p_cuCtxCreate = fake_ctx_create;
    t->p_cuCtxPopCurrent = fake_ctx_pop;
    t->p_cuCtxDestroy = fake_ctx_destroy;
    t->p_cuGetErrorName = fake_error_name;
    t->p_cuStreamCreate = fake_stream_create;
    t->p_cuMemcpyDtoHAsync = fake_dtoh;
    t->p_cuStreamQuery = fake_query;
    t->p_cuStreamWriteValue32 = fake_write32;
    t->p_cuStreamWriteValue64 = fake_write64;
    atomic_store(&reads, 0);
    for (size_t i = 0; i <= MAX_VALUES; i++)
        atomic_store(&writes[i], 0);
    atomic_store(&events, 0);
    atomic_store(&last_read, 0);
    atomic_store(&first_write, 0);
    atomic_store(&locked_reads, 0);
    atomic_store(&locked_writes, 0);
    atomic_store(&last_write64, 0);
    atomic_store(&read_src, 0);
    read_sleep_ms = 0;
    read_fails = 0;
    atomic_store(&copy_error, CUDA_SUCCESS);
    atomic_store(&query_error, CUDA_SUCCESS);
    atomic_store(&write_fails, 0);
    atomic_store(&write64_fails, 0);
    atomic_store(&slow_queries, 0);
    current = NULL;
    atomic_store(&ctx_creates, 0);
    ctx_create_fails = 0;
    atomic_store(&rescued_ops, 0);
    atomic_store(&stray_ops, 0);
    queue_stuck = 0;
    watch_lock = NULL;
    overwrite = 0;
    on_read = NULL;
}

/* --- a communicator over host memory ------------------------------------ */

#define STREAM ((CUstream)(uintptr_t)0x51)

struct fixture {
    struct ces_test_alloc alloc;
    struct ces_ctx *ctx;
    struct ces_team team;
    struct ces_progress_rank page[2];
    struct ces_comm *c;
    uint32_t slots[4]; /* the signal slots the waits watch */
};

static struct fixture *fixture_new(uint64_t timeout_ms)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    struct ces_comm *c = calloc(1, sizeof(*c));

    assert_non_null(fx);
    assert_non_null(c);
    fakes_install();
    fx->ctx = ces_test_ctx(&fx->alloc);
    fx->team.ctx = fx->ctx;
    fx->team.ranks = 2;
    fx->team.page = fx->page;
    c->ctx = fx->ctx;
    c->team = &fx->team;
    c->rank = 0;
    c->size = 2;
    atomic_init(&c->state, CES_OK);
    ces_wd_init(c);
    c->timeout_ms = timeout_ms;
    c->waits = ces_malloc(fx->ctx, sizeof(*c->waits) * CES_WD_WAITS);
    assert_non_null(c->waits);
    assert_int_equal(ces_wd_slot(c, STREAM), 0);
    fx->c = c;
    return fx;
}

static pthread_mutex_t *fixture_lock(struct fixture *fx)
{
    return &fx->c->wd_lock;
}

static void fixture_free(struct fixture *fx)
{
    struct ces_comm *c = fx->c;

    ces_wd_stop(c);
    for (uint32_t s = 0; s < c->nwatched; s++)
        ces_free(fx->ctx, c->watched[s].steps);
    ces_free(fx->ctx, c->waits);
    ces_vec_free(fx->ctx, &c->cap_steps);
    ces_vec_free(fx->ctx, &c->cap_waits);
    pthread_mutex_destroy(&c->wd_lock);
    pthread_mutex_destroy(&c->wd_mirror_lock);
    pthread_cond_destroy(&c->wd_cond);
    free(c);
    ces_test_ctx_end(fx->ctx, &fx->alloc);
    free(fx);
}

/* A wait of a recorded step: on slots[idx], named `name`, for `value`
 * (0: the wait's running number + 1, so that every wait awaits another). */
struct wspec {
    const char *name;
    uint32_t idx;
    uint8_t cmp;
    uint64_t value;
};

/* The next eager step of watch slot 0, its call ending with a progress
 * write when `progress`: step_begin takes wd_lock, the caller puts its
 * waits in the ring, step_end records the step and lets the lock go. */
static void step_begin(struct fixture *fx, int progress, struct ces_wd_step *step)
{
    struct ces_comm *c = fx->c;

    memset(step, 0, sizeof(*step));
    step->seq = atomic_load(&c->watched[0].enqueued) + 1;
    step->call = 7;
    step->progress = progress;
    snprintf(step->what, sizeof(step->what), "alltoall");
    pthread_mutex_lock(&c->wd_lock);
    step->first_wait = c->nwaits_total;
}

static void step_end(struct fixture *fx, struct ces_wd_step *step)
{
    struct ces_comm *c = fx->c;
    struct ces_wd_stream *ws = &c->watched[0];

    step->nwaits = (uint32_t)(c->nwaits_total - step->first_wait);
    ws->steps[step->seq % CES_WD_STEPS] = *step;
    pthread_mutex_unlock(&c->wd_lock);
    atomic_store(&ws->enqueued, step->seq);
}

/* Records the next eager step of watch slot 0 as issue_memops does, with
 * nwaits waits: wait k as spec[k], or as the last spec beyond nspec; its
 * call ends with a progress write when `progress`. */
static void enqueue_step(struct fixture *fx, uint32_t nwaits, const struct wspec *spec,
                         uint32_t nspec, int progress)
{
    struct ces_comm *c = fx->c;
    struct ces_wd_step step;

    step_begin(fx, progress, &step);
    for (uint32_t k = 0; k < nwaits; k++) {
        const struct wspec *sp = &spec[k < nspec ? k : nspec - 1];
        struct ces_wd_wait *w = &c->waits[c->nwaits_total % CES_WD_WAITS];

        memset(w, 0, sizeof(*w));
        w->addr = (CUdeviceptr)(uintptr_t)&fx->slots[sp->idx];
        w->value = sp->value != 0 ? sp->value : c->nwaits_total + 1;
        w->width = 32;
        w->cmp = sp->cmp;
        w->rank = 1;
        w->idx = sp->idx;
        w->spos = 3;
        snprintf(w->name, sizeof(w->name), "%s", sp->name);
        c->nwaits_total++;
    }
    step_end(fx, &step);
}

static void enqueue(struct fixture *fx, uint32_t nwaits, const struct wspec *spec, uint32_t nspec)
{
    enqueue_step(fx, nwaits, spec, nspec, 1);
}

static const struct wspec ready1 = {"ready", 1, CES_CMP_EQ, 1};

/* Records captured call `call` with one wait on slots[3] (>= value, or ==
 * when eq) and returns its id. */
static uint64_t capture(struct fixture *fx, uint64_t call, uint64_t value, int eq)
{
    struct ces_wd_step step;
    struct ces_wd_wait w;
    uint64_t id;

    memset(&step, 0, sizeof(step));
    memset(&w, 0, sizeof(w));
    step.call = call;
    step.nwaits = 1;
    snprintf(step.what, sizeof(step.what), "allgather");
    w.addr = (CUdeviceptr)(uintptr_t)&fx->slots[3];
    w.value = value;
    w.width = 32;
    w.cmp = eq ? CES_CMP_EQ : CES_CMP_GEQ;
    w.rank = 1;
    w.idx = 3;
    w.spos = 6;
    snprintf(w.name, sizeof(w.name), "complete");
    pthread_mutex_lock(&fx->c->wd_lock);
    id = ces_wd_capture_record(fx->c, &step, &w, 1);
    pthread_mutex_unlock(&fx->c->wd_lock);
    return id;
}

/* What the diagnosis says of capture(fx, 4, 9, 0) blocked with slots[3] = 8. */
static const char captured_blocked_text[] =
    "): blocked in allgather call 4 (captured, replayed from a CUDA graph; record 1); its waits:\n"
    "cesync: watchdog:     r0.s0#6 wait complete[3]@1 >= 9: slot holds 8 (BLOCKED)\n";

/* stderr into a temporary file while the watchdog runs. */
struct err_capture {
    FILE *tmp;
    int saved;
};

static void err_begin(struct err_capture *e)
{
    e->tmp = tmpfile();
    assert_non_null(e->tmp);
    fflush(stderr);
    e->saved = dup(2);
    assert_true(e->saved >= 0);
    assert_true(dup2(fileno(e->tmp), 2) >= 0);
}

/* What was printed (malloc'd). */
static char *err_end(struct err_capture *e)
{
    long n;
    char *text;

    fflush(stderr);
    assert_true(dup2(e->saved, 2) >= 0);
    close(e->saved);
    n = ftell(e->tmp);
    assert_true(n >= 0);
    text = calloc(1, (size_t)n + 1);
    assert_non_null(text);
    rewind(e->tmp);
    assert_int_equal(fread(text, 1, (size_t)n, e->tmp), (size_t)n);
    fclose(e->tmp);
    return text;
}

/* ces_wd_fail with what it prints to stderr returned (malloc'd). */
static char *fail_captured(struct ces_comm *c, const char *why)
{
    struct err_capture err;

    err_begin(&err);
    ces_wd_fail(c, CES_ERR_TIMEOUT, why);
    return err_end(&err);
}

/* The watchdog thread run until it fails the communicator (5 s at most),
 * with what it printed to stderr returned (malloc'd). */
static char *watch_until_failed(struct fixture *fx)
{
    struct err_capture err;

    err_begin(&err);
    assert_int_equal(ces_wd_start(fx->c), CES_OK);
    for (int i = 0; i < 1000 && atomic_load(&fx->c->state) == CES_OK; i++)
        ces_test_sleep_ms(5);
    ces_wd_stop(fx->c);
    return err_end(&err);
}

/* --- tests ------------------------------------------------------------ */

static void test_names_the_blocked_wait(void **state)
{
    struct fixture *fx = fixture_new(60000);
    const struct wspec done2 = {"done", 2, CES_CMP_GEQ, 2};
    char *out;

    (void)state;
    fx->slots[1] = 0;
    fx->slots[2] = 5;
    enqueue(fx, 1, &ready1, 1);
    enqueue(fx, 1, &done2, 1);
    out = fail_captured(fx->c, "test");
    assert_non_null(strstr(out, "cesync: watchdog: rank 0 (device 0): test\n"));
    assert_non_null(strstr(out, "): blocked in alltoall call 7 at step 1 of 2; its waits:\n"
                                "cesync: watchdog:     r0.s0#3 wait ready[1]@1 == 1: slot holds 0 "
                                "(BLOCKED)\n"
                                "cesync: watchdog:   rank 0 last progress: s0=0 (failed)\n"));
    assert_null(strstr(out, "details lost"));
    assert_int_equal(atomic_load(&fx->c->state), CES_ERR_TIMEOUT);
    assert_int_equal(atomic_load(&fx->page[0].failed), (uint64_t)(-CES_ERR_TIMEOUT));
    free(out);
    fixture_free(fx);
}

/* Steps whose calls write no progress: the progress word stays before
 * them, and the diagnosis reads them in order and names the first with a
 * wait unmet (reading no further), else the last of the span, which ends
 * at the first step that writes progress. */
static void test_names_the_step_of_a_span(void **state)
{
    const struct wspec done2 = {"done", 2, CES_CMP_GEQ, 2}, more3 = {"more", 3, CES_CMP_GEQ, 1};
    struct {
        uint32_t ready, done; /* slots[1], slots[2] */
        const char *step;     /* the step named */
        const char *wait;     /* its first wait's line */
        long reads;
    } cases[] = {
        {1, 0, "at step 2 of 3", "wait done[2]@1 >= 2: slot holds 0 (BLOCKED)", 2},
        {0, 0, "at step 1 of 3", "wait ready[1]@1 == 1: slot holds 0 (BLOCKED)", 1},
        {1, 2, "at step 2 of 3", "wait done[2]@1 >= 2: slot holds 2 (satisfied)", 2},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fixture *fx = fixture_new(60000);
        char *out, want[160];

        fx->slots[1] = cases[i].ready;
        fx->slots[2] = cases[i].done;
        fx->slots[3] = 0;
        enqueue_step(fx, 1, &ready1, 1, 0);
        enqueue_step(fx, 1, &done2, 1, 1);
        enqueue_step(fx, 1, &more3, 1, 1); /* past the span: never read */
        out = fail_captured(fx->c, "test");
        snprintf(want, sizeof(want), "): blocked in alltoall call 7 %s; its waits:\n"
                                     "cesync: watchdog:     r0.s0#3 %s\n",
                 cases[i].step, cases[i].wait);
        assert_non_null(strstr(out, want));
        assert_null(strstr(out, "more"));
        assert_int_equal(atomic_load(&reads), cases[i].reads);
        free(out);
        fixture_free(fx);
    }
}

/* Gives the fixture's communicator device words (dev_words, zeroed) and
 * the staging memory its mirror copies them into. */
static void use_device_words(struct fixture *fx, uint64_t *stage)
{
    memset(dev_words, 0, sizeof(dev_words));
    fx->c->progress_dev = (CUdeviceptr)(uintptr_t)dev_words;
    fx->c->wd_stage = stage;
}

/* A block whose issue stopped after two calls that wait, whose progress
 * writes the lowering dropped for a later call of the block to carry:
 * ces_wd_close writes the last step's number to the stream's progress
 * word (once), and the span of a later diagnosis ends there. */
static void test_block_cut_short(void **state)
{
    const struct wspec more3 = {"more", 3, CES_CMP_GEQ, 1};
    struct fixture *fx = fixture_new(60000);
    uint64_t stage[2 * CES_WD_STREAMS];
    char *out;

    (void)state;
    use_device_words(fx, stage);
    fx->slots[1] = 1;
    fx->slots[3] = 0;
    enqueue_step(fx, 1, &ready1, 1, 0);
    enqueue_step(fx, 1, &ready1, 1, 0);
    ces_wd_close(fx->c, (CUstream)(uintptr_t)0x52); /* not watched */
    assert_int_equal(atomic_load(&writes[2]), 0);
    watch_lock = fx; /* the write goes out without wd_lock (a full queue may block it) */
    ces_wd_close(fx->c, STREAM);
    watch_lock = NULL;
    assert_int_equal(atomic_load(&locked_writes), 0);
    assert_int_equal(atomic_load(&writes[2]), 1);
    assert_true(atomic_load(&last_write64) == fx->c->progress_dev);
    assert_true(fx->c->watched[0].steps[2].progress);
    ces_wd_close(fx->c, STREAM); /* already closed */
    assert_int_equal(atomic_load(&writes[2]), 1);
    /* the next block's step, blocked; the word has not moved */
    enqueue_step(fx, 1, &more3, 1, 1);
    out = fail_captured(fx->c, "test");
    assert_non_null(strstr(out, "): blocked in alltoall call 7 at step 2 of 3; its waits:\n"));
    assert_null(strstr(out, "more"));
    free(out);
    fixture_free(fx);
}

/* The slots are read without wd_lock, from a copy: an issuing thread that
 * overwrites the whole ring meanwhile changes nothing that is printed. */
static void test_reads_without_the_lock(void **state)
{
    struct fixture *fx = fixture_new(60000);
    const struct wspec two[] = {{"ready", 1, CES_CMP_EQ, 1}, {"done", 2, CES_CMP_GEQ, 2}};
    char *out;

    (void)state;
    fx->slots[1] = 0;
    fx->slots[2] = 5;
    enqueue(fx, 2, two, 2);
    watch_lock = fx;
    overwrite = CES_WD_WAITS;
    out = fail_captured(fx->c, "test");
    assert_int_equal(atomic_load(&locked_reads), 0);
    assert_int_equal(overwrite, 0); /* the ring did come round during the reads */
    assert_string_equal(fx->c->waits[1].name, "later");
    assert_non_null(strstr(out, "): blocked in alltoall call 7 at step 1 of 1; its waits:\n"
                                "cesync: watchdog:     r0.s0#3 wait ready[1]@1 == 1: slot holds 0 "
                                "(BLOCKED)\n"
                                "cesync: watchdog:     r0.s0#3 wait done[2]@1 >= 2: slot holds 5 "
                                "(satisfied)\n"));
    assert_null(strstr(out, "later"));
    assert_int_equal(atomic_load(&reads), 2);
    assert_int_equal(fx->c->diagnosed, 1);
    free(out);
    fixture_free(fx);
}

/* A read that fails is said, and the next ones are not tried (each would
 * take as long to fail on a device that does not answer). */
static void test_unreadable_slots(void **state)
{
    struct fixture *fx = fixture_new(60000);
    const struct wspec two[] = {{"ready", 1, CES_CMP_EQ, 1}, {"done", 2, CES_CMP_GEQ, 2}};
    char *out;

    (void)state;
    enqueue(fx, 2, two, 2);
    read_fails = 1;
    out = fail_captured(fx->c, "test");
    assert_non_null(strstr(out, " wait ready[1]@1 == 1: value unreadable\n"
                                "cesync: watchdog:     r0.s0#3 wait done[2]@1 >= 2: value not read "
                                "(an earlier read failed)\n"));
    assert_int_equal(atomic_load(&reads), 1);
    free(out);
    fixture_free(fx);
}

/* A captured call's waits are copied too; the record names them. */
static void test_captured_call(void **state)
{
    struct fixture *fx = fixture_new(60000);
    char *out;

    (void)state;
    fx->slots[3] = 8;
    assert_int_equal(capture(fx, 4, 9, 0), 1);
    fx->page[0].flight[0] = 1;
    out = fail_captured(fx->c, "test");
    assert_non_null(strstr(out, captured_blocked_text));
    assert_null(strstr(out, "at step")); /* its eager steps: none pending, none listed */
    free(out);
    fixture_free(fx);
}

/* ces_comm_abort's path: ces_wd_fail from another thread while the
 * watchdog runs.  The reads are slow; the release waits for the diagnosis
 * (else the slots would read as met), then comes. */
static void test_release_after_diagnosis(void **state)
{
    struct fixture *fx = fixture_new(60000);
    char *out;

    (void)state;
    enqueue(fx, 1, &ready1, 1);
    assert_int_equal(ces_wd_start(fx->c), CES_OK);
    read_sleep_ms = 30;
    out = fail_captured(fx->c, "aborted by the test");
    for (int i = 0; i < 1000 && atomic_load(&first_write) == 0; i++)
        ces_test_sleep_ms(5);
    ces_wd_stop(fx->c);
    assert_non_null(strstr(out, "cesync: watchdog: rank 0 (device 0): aborted by the test\n"));
    assert_int_equal(atomic_load(&reads), 1);
    assert_true(atomic_load(&first_write) > atomic_load(&last_read));
    free(out);
    fixture_free(fx);
}

/* A release the driver refuses (a write of the awaited value that fails)
 * is made again at the next round, 20 ms on, until the stream drains:
 * one refusal must not leave the caller's stream blocked for ever. */
static void test_release_retried(void **state)
{
    struct fixture *fx = fixture_new(60000);
    char *out;

    (void)state;
    enqueue(fx, 1, &ready1, 1);
    atomic_store(&write_fails, 3);
    assert_int_equal(ces_wd_start(fx->c), CES_OK);
    out = fail_captured(fx->c, "aborted by the test");
    for (int i = 0; i < 1000 && atomic_load(&first_write) == 0; i++)
        ces_test_sleep_ms(5);
    ces_wd_stop(fx->c);
    assert_int_equal(atomic_load(&write_fails), 0);
    assert_true(atomic_load(&first_write) != 0); /* the fourth try wrote */
    assert_true(atomic_load(&writes[1]) >= 1);
    free(out);
    fixture_free(fx);
}

/* Another rank's failure, seen in its word of the team's page: the
 * watchdog thread fails this communicator with CES_ERR_PEER_FAILED at once
 * (not after CES_TIMEOUT_MS), marks its own word, and its diagnosis names
 * the failed rank and the wait left blocked. */
static void test_peer_failed(void **state)
{
    struct fixture *fx = fixture_new(60000);
    struct err_capture err;
    char *out;

    (void)state;
    enqueue(fx, 1, &ready1, 1);
    err_begin(&err);
    assert_int_equal(ces_wd_start(fx->c), CES_OK);
    ces_test_sleep_ms(50);
    assert_int_equal(ces_comm_status(fx->c), CES_OK);
    atomic_store(&fx->page[1].failed, (uint64_t)(-CES_ERR_TIMEOUT));
    for (int i = 0; i < 1000 && ces_comm_status(fx->c) == CES_OK; i++)
        ces_test_sleep_ms(5);
    ces_wd_stop(fx->c);
    out = err_end(&err);
    assert_int_equal(ces_comm_status(fx->c), CES_ERR_PEER_FAILED);
    assert_int_equal(atomic_load(&fx->page[0].failed), (uint64_t)(-CES_ERR_PEER_FAILED));
    assert_non_null(strstr(out, "cesync: watchdog: rank 0 (device 0): rank 1 failed\n"));
    assert_non_null(strstr(out, "r0.s0#3 wait ready[1]@1 == 1: slot holds 0 (BLOCKED)\n"));
    assert_non_null(strstr(out, "cesync: watchdog:   rank 1 last progress: s0=0 (failed)\n"));
    assert_non_null(strstr(out, "cesync: watchdog: rank 0: releasing the blocked waits; the "
                                "communicator is failed (rank 1 failed)\n"));
    free(out);
    fixture_free(fx);
}

/* A context that died (a sticky error: a kernel's fault on this GPU) while
 * a step is pending: the first mirror copy or query that fails it fails
 * the communicator with CES_ERR_CUDA at once, naming the call and the
 * error, instead of CES_TIMEOUT_MS later as a stream that made no
 * progress.  An idle communicator makes no copy, so it stays healthy. */
static void test_dead_context(void **state)
{
    static const char *const said[2] = {"cuMemcpyDtoHAsync failed (CUDA_ERROR_LAUNCH_FAILED)",
                                        "cuStreamQuery failed (CUDA_ERROR_ILLEGAL_INSTRUCTION)"};

    (void)state;
    for (int q = 0; q < 2; q++) {
        struct fixture *fx = fixture_new(60000);
        uint64_t stage[2 * CES_WD_STREAMS];
        struct err_capture err;
        char *out, want[200];

        use_device_words(fx, stage);
        err_begin(&err);
        assert_int_equal(ces_wd_start(fx->c), CES_OK);
        ces_test_sleep_ms(100);
        assert_int_equal(ces_comm_status(fx->c), CES_OK);
        enqueue(fx, 1, &ready1, 1);
        if (q == 0) {
            /* two steps pending, then the copies fail */
            enqueue(fx, 1, &ready1, 1);
            atomic_store(&copy_error, CUDA_ERROR_LAUNCH_FAILED);
        } else {
            /* the first copy goes out; the query of it fails */
            for (int i = 0; i < 400 && atomic_load(&reads) == 0; i++)
                ces_test_sleep_ms(5);
            atomic_store(&query_error, CUDA_ERROR_ILLEGAL_INSTRUCTION);
        }
        for (int i = 0; i < 400 && ces_comm_status(fx->c) == CES_OK; i++)
            ces_test_sleep_ms(5);
        ces_wd_stop(fx->c);
        out = err_end(&err);
        assert_int_equal(ces_comm_status(fx->c), CES_ERR_CUDA);
        assert_int_equal(atomic_load(&fx->page[0].failed), (uint64_t)(-CES_ERR_CUDA));
        snprintf(want, sizeof(want), "the progress words cannot be read: %s", said[q]);
        assert_string_equal(fx->c->fail_why, want);
        assert_non_null(strstr(out, "cesync: watchdog: rank 0 (device 0): the progress words "));
        assert_non_null(strstr(out, said[q]));
        assert_non_null(strstr(out, "cesync: watchdog:   (the progress words could not be read: "
                                    "where a stream stopped is known only from their last copy "
                                    "on)\n"));
        /* where it stopped, from the words' last copy on, its slots unread */
        assert_non_null(strstr(out, q == 0 ? "(s0): stopped somewhere in steps 1 to 2 of 2, from "
                                             "alltoall call 7 to alltoall call 7 (its word's last "
                                             "copy said 0 done)\n"
                                           : "(s0): stopped in step 1 of 1, alltoall call 7 (its "
                                             "word's last copy said 0 done)\n"));
        assert_null(strstr(out, "its waits:"));
        free(out);
        fixture_free(fx);
    }
}

/* The watchdog counts its looks in its page entry (beat), and says
 * CES_WD_GONE once stopped.  A peer's count that moves, is gone, or is not
 * there yet (0) is no failure; one that stands still for CES_TIMEOUT_MS +
 * CES_WD_SILENT_MS, timed on this rank's clock, is: that watchdog is
 * blocked (in a CUDA call a module load holds up) or its process stopped.
 * (CES_TIMEOUT_MS 1000: 6 s of a standing count; one judged after the
 * CES_WD_SILENT_MS alone, 5 s, is judged too early.)  The count starts
 * before the thread runs. */
static void test_silent_peer(void **state)
{
    struct fixture *fx = fixture_new(1000);
    struct err_capture err;
    uint64_t t0;
    char *out;

    (void)state;
    err_begin(&err);
    assert_int_equal(ces_wd_start(fx->c), CES_OK);
    assert_true(atomic_load(&fx->page[0].beat) >= 1);
    for (int i = 0; i < 200 && atomic_load(&fx->page[0].beat) < 3; i++)
        ces_test_sleep_ms(5);
    assert_true(atomic_load(&fx->page[0].beat) >= 3);
    /* rank 1 beats for longer than the window, then stops at its gone mark */
    t0 = ces_cuda_now_ms();
    for (uint64_t k = 1; ces_cuda_now_ms() - t0 < 1000 + CES_WD_SILENT_MS + 500; k++) {
        atomic_store(&fx->page[1].beat, k);
        ces_test_sleep_ms(20);
    }
    atomic_store(&fx->page[1].beat, CES_WD_GONE);
    ces_test_sleep_ms(1000 + CES_WD_SILENT_MS + 500);
    assert_int_equal(ces_comm_status(fx->c), CES_OK);
    /* back, then silent: failed CES_TIMEOUT_MS + CES_WD_SILENT_MS (+ 1 ms)
     * later (the look that saw the count change may have read its clock a
     * little before) */
    t0 = ces_cuda_now_ms();
    atomic_store(&fx->page[1].beat, 7);
    for (int i = 0; i < 2000 && ces_comm_status(fx->c) == CES_OK; i++)
        ces_test_sleep_ms(5);
    assert_true(ces_cuda_now_ms() - t0 >= 1000 + CES_WD_SILENT_MS - 100);
    ces_wd_stop(fx->c);
    out = err_end(&err);
    assert_int_equal(ces_comm_status(fx->c), CES_ERR_PEER_FAILED);
    assert_non_null(strstr(fx->c->fail_why, "rank 1's watchdog was not heard from for "));
    assert_non_null(strstr(out, "cesync: watchdog: rank 0 (device 0): rank 1's watchdog was not "
                                "heard from for "));
    assert_non_null(strstr(out, " ms (its thread is blocked, or its process stopped or died)\n"));
    assert_int_equal(atomic_load(&fx->page[0].beat), CES_WD_GONE);
    free(out);
    fixture_free(fx);
}

/* A copy refused for a reason that says nothing of the context (a capture
 * in global mode on another thread refuses it with
 * CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED): the words stay as they were, the
 * communicator healthy; once the copies go through, the words move. */
static void test_refused_copy_is_not_death(void **state)
{
    struct fixture *fx = fixture_new(60000);
    uint64_t stage[2 * CES_WD_STREAMS];
    char why[160];

    (void)state;
    use_device_words(fx, stage);
    atomic_store(&copy_error, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    assert_int_equal(ces_wd_start(fx->c), CES_OK);
    enqueue(fx, 1, &ready1, 1);
    dev_word_set(0, 1);
    ces_test_sleep_ms(200);
    assert_int_equal(ces_comm_status(fx->c), CES_OK);
    assert_int_equal(ces_wd_read_error(fx->c, why, sizeof(why)), 0);
    assert_int_equal(fx->page[0].words[0], 0);
    atomic_store(&copy_error, CUDA_SUCCESS);
    for (int i = 0; i < 400 && fx->page[0].words[0] != 1; i++)
        ces_test_sleep_ms(5);
    assert_int_equal(fx->page[0].words[0], 1);
    ces_wd_stop(fx->c);
    assert_int_equal(ces_comm_status(fx->c), CES_OK);
    fixture_free(fx);
}

/* Step 1 (one wait, "first") and then `later` waits in steps of at most
 * 255 (one memop call's worth), all named "later". */
static void first_then(struct fixture *fx, uint64_t later)
{
    const struct wspec first = {"first", 1, CES_CMP_GEQ, 0}, next = {"later", 2, CES_CMP_GEQ, 0};

    enqueue(fx, 1, &first, 1);
    while (later > 0) {
        uint32_t k = later > 255 ? 255 : (uint32_t)later;

        enqueue(fx, k, &next, 1);
        later -= k;
    }
}

static void test_ring_overwritten(void **state)
{
    struct fixture *fx;
    char *out;

    (void)state;
    /* CES_WD_WAITS waits in all: the first is still there */
    fx = fixture_new(60000);
    first_then(fx, CES_WD_WAITS - 1);
    out = fail_captured(fx->c, "test");
    assert_non_null(strstr(out, "at step 1 of 258; its waits:\n"));
    assert_non_null(strstr(out, " wait first[1]@1 >= 1: slot holds 0 (BLOCKED)\n"));
    assert_null(strstr(out, "details lost"));
    free(out);
    fixture_free(fx);

    /* one more: the first's entry now holds the last "later" wait */
    fx = fixture_new(60000);
    first_then(fx, CES_WD_WAITS);
    assert_string_equal(fx->c->waits[0].name, "later");
    out = fail_captured(fx->c, "test");
    assert_non_null(strstr(out, "): blocked in alltoall call 7 at step 1 of 259; details lost "
                                "(ring overwritten: 65537 waits recorded since its first, the ring "
                                "keeps 65536)\n"));
    assert_null(strstr(out, " wait first"));
    assert_null(strstr(out, " wait later"));
    assert_int_equal(atomic_load(&reads), 0);
    free(out);
    fixture_free(fx);
}

/* The watchdog thread finds the stream stuck, diagnoses, and releases the
 * pending steps: those whose waits the ring still holds, each wait once a
 * pass, and never the entries of the two steps that lost theirs. */
static void test_release_skips_lost_steps(void **state)
{
    struct fixture *fx = fixture_new(20);
    struct err_capture err;
    long per = -1;

    (void)state;
    first_then(fx, 258 * 255); /* steps 1 and 2 lost, 3..259 kept */
    err_begin(&err);
    assert_int_equal(ces_wd_start(fx->c), CES_OK);
    for (int i = 0; i < 1000; i++) {
        if (atomic_load(&fx->c->state) != CES_OK && atomic_load(&writes[MAX_VALUES / 2]) > 0)
            break;
        ces_test_sleep_ms(5);
    }
    ces_wd_stop(fx->c);
    free(err_end(&err));
    assert_int_equal(atomic_load(&fx->c->state), CES_ERR_TIMEOUT);
    /* wait n awaits n + 1: step 1 is wait 0, step 2 waits 1..255 */
    for (uint64_t v = 1; v <= 256; v++)
        assert_int_equal(atomic_load(&writes[v]), 0);
    for (uint64_t v = 257; v <= 1 + 258 * 255; v++) {
        long n = atomic_load(&writes[v]);

        if (per < 0)
            per = n;
        if (n != per)
            fail_msg("value %llu written %ld times, others %ld", (unsigned long long)v, n, per);
    }
    assert_true(per > 0);
    assert_int_equal(atomic_load(&writes[0]), 0);
    fixture_free(fx);
}

/* A slot read that does not return until the test opens the gate (a busy
 * or wedged device: up to a second each on a GPU). */
static struct {
    pthread_mutex_t m;
    pthread_cond_t cv;
    int closed;
    int waiting; /* reads that have reached the gate */
} gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};

static void gate_read(void)
{
    pthread_mutex_lock(&gate.m);
    gate.waiting++;
    while (gate.closed)
        pthread_cond_wait(&gate.cv, &gate.m);
    pthread_mutex_unlock(&gate.m);
}

static void gate_open(void)
{
    pthread_mutex_lock(&gate.m);
    gate.closed = 0;
    pthread_cond_broadcast(&gate.cv);
    pthread_mutex_unlock(&gate.m);
}

/* An issuing thread capturing more calls, as issue_memops does: wd_lock,
 * a record each (the record table grows, and moves), unlock. */
struct issuer {
    struct fixture *fx;
    _Atomic int done;
};

static void *issue_captures(void *arg)
{
    struct issuer *is = arg;

    for (int i = 0; i < 64; i++)
        capture(is->fx, 100 + (uint64_t)i, 1, 0);
    atomic_store(&is->done, 1);
    return NULL;
}

/* The watchdog thread checks a captured call that stayed in flight past
 * the timeout: its slot read hangs, and meanwhile an issuing thread gets
 * wd_lock (it would wait for the read to end if the check held it).  The
 * read then finds the wait unmet while the stream is still in the call:
 * reported, from the copy of a record table that moved meanwhile. */
static void test_captured_check_leaves_the_lock(void **state)
{
    struct fixture *fx = fixture_new(20);
    struct issuer is = {fx, 0};
    struct err_capture err;
    pthread_t t;
    int reached = 0, took_while_blocked, failed = 0;
    char *out;

    (void)state;
    fx->slots[3] = 8;
    fx->page[0].flight[0] = capture(fx, 4, 9, 0);
    assert_int_equal(fx->page[0].flight[0], 1);
    gate.closed = 1;
    gate.waiting = 0;
    on_read = gate_read;
    err_begin(&err);
    assert_int_equal(ces_wd_start(fx->c), CES_OK);
    for (int i = 0; i < 1000 && !reached; i++) {
        pthread_mutex_lock(&gate.m);
        reached = gate.waiting > 0;
        pthread_mutex_unlock(&gate.m);
        if (!reached)
            ces_test_sleep_ms(5);
    }
    assert_int_equal(pthread_create(&t, NULL, issue_captures, &is), 0);
    for (int i = 0; i < 1000 && !atomic_load(&is.done); i++)
        ces_test_sleep_ms(5);
    took_while_blocked = atomic_load(&is.done);
    /* Open the gate before any assertion, so that a failing run still
     * ends (the issuer and the watchdog are blocked behind it). */
    gate_open();
    pthread_join(t, NULL);
    for (int i = 0; i < 1000 && !failed; i++) {
        failed = atomic_load(&fx->c->state) != CES_OK;
        if (!failed)
            ces_test_sleep_ms(5);
    }
    ces_wd_stop(fx->c);
    out = err_end(&err);
    assert_true(reached);
    assert_true(took_while_blocked);
    assert_int_equal(fx->c->cap_steps.len, 65);
    assert_int_equal(atomic_load(&fx->c->state), CES_ERR_TIMEOUT);
    assert_non_null(strstr(out, "in captured work"));
    assert_non_null(strstr(out, captured_blocked_text));
    free(out);
    fixture_free(fx);
}

/* During the first read the stream passes call 1 (its wait `== 1` met)
 * and enters call 2, whose wait `== 2` the slot then holds: the read of
 * call 1's wait finds 2, which is not what call 1 waits for, but the
 * stream is no longer there.  Not reported; call 2 is then timed from the
 * start and its met wait clears it. */
static struct fixture *moving;

static void leave_call_during_read(void)
{
    if (moving == NULL)
        return;
    moving->slots[3] = 2;
    moving->page[0].flight[0] = 2;
    moving = NULL;
}

/* Runs the watchdog until *count reaches 3 (the read of call 1, then at
 * least two of call 2), stops it, and checks that it neither failed the
 * communicator nor printed anything. */
static void watch_reads(struct fixture *fx, _Atomic long *count)
{
    struct err_capture err;
    char *out;

    err_begin(&err);
    assert_int_equal(ces_wd_start(fx->c), CES_OK);
    for (int i = 0; i < 1000 && atomic_load(count) < 3; i++)
        ces_test_sleep_ms(5);
    ces_wd_stop(fx->c);
    out = err_end(&err);
    assert_int_equal(atomic_load(&fx->c->state), CES_OK);
    assert_null(strstr(out, "watchdog"));
    assert_true(atomic_load(count) >= 3);
    free(out);
}

static void test_captured_call_left_during_the_read(void **state)
{
    struct fixture *fx = fixture_new(20);

    (void)state;
    assert_int_equal(capture(fx, 4, 1, 1), 1);
    assert_int_equal(capture(fx, 5, 2, 1), 2);
    fx->slots[3] = 0;
    fx->page[0].flight[0] = 1;
    moving = fx;
    on_read = leave_call_during_read;
    watch_reads(fx, &reads);
    assert_null(moving);
    fixture_free(fx);
}

/* The same through the device words: the stream leaves call 1 in the
 * device's in-flight word during the read, and the copy of the words that
 * the watchdog makes after the reads, not the one it had before them,
 * decides whether the verdict counts. */
static _Atomic long slot_reads;

static void leave_in_device_during_read(void)
{
    if (atomic_load(&read_src) != (CUdeviceptr)(uintptr_t)&moving->slots[3])
        return;
    if (atomic_fetch_add(&slot_reads, 1) == 0) {
        moving->slots[3] = 2;
        dev_word_set(CES_WD_STREAMS + 0, 2);
    }
}

static void test_captured_verdict_on_fresh_words(void **state)
{
    struct fixture *fx = fixture_new(20);
    uint64_t stage[2 * CES_WD_STREAMS];

    (void)state;
    use_device_words(fx, stage);
    assert_int_equal(capture(fx, 4, 1, 1), 1);
    assert_int_equal(capture(fx, 5, 2, 1), 2);
    fx->slots[3] = 0;
    dev_word_set(CES_WD_STREAMS + 0, 1);
    atomic_store(&slot_reads, 0);
    moving = fx;
    on_read = leave_in_device_during_read;
    watch_reads(fx, &slot_reads);
    assert_int_equal(fx->page[0].flight[0], 2);
    moving = NULL;
    fixture_free(fx);
}

/* The watchdog copies the device words only while work is pending: an
 * idle communicator (no step past its word, nothing captured) is left
 * alone; a step enqueued brings the copies back until its word is in the
 * page, then they stop again. */
static void test_mirror_only_while_pending(void **state)
{
    struct fixture *fx = fixture_new(2000);
    uint64_t stage[2 * CES_WD_STREAMS];
    long n;

    (void)state;
    use_device_words(fx, stage);
    assert_int_equal(ces_wd_start(fx->c), CES_OK);
    ces_test_sleep_ms(100);
    assert_int_equal(atomic_load(&reads), 0);
    enqueue(fx, 1, &ready1, 1);
    dev_word_set(0, 1); /* the stream is past step 1 */
    for (int i = 0; i < 1000 && fx->page[0].words[0] != 1; i++)
        ces_test_sleep_ms(5);
    assert_int_equal(fx->page[0].words[0], 1);
    assert_true(atomic_load(&reads) > 0);
    ces_test_sleep_ms(50); /* a copy started before the word arrived may still land */
    n = atomic_load(&reads);
    ces_test_sleep_ms(100);
    assert_int_equal(atomic_load(&reads), n);
    ces_wd_stop(fx->c);
    assert_int_equal(atomic_load(&fx->c->state), CES_OK);
    fixture_free(fx);
}

/* The watchdog's thread held up for longer than CES_TIMEOUT_MS (the process
 * stopped by a debugger or a signal) while the stream went on past its
 * step: the copy of the words it finds on waking was made before the
 * stall, and must not be taken for a stream that stood still all that
 * time.  Before it accuses a stream, it copies the words afresh. */
static void test_no_alarm_after_a_stall(void **state)
{
    struct fixture *fx = fixture_new(200);
    uint64_t stage[2 * CES_WD_STREAMS];
    struct err_capture e;
    char *out;

    (void)state;
    use_device_words(fx, stage);
    enqueue(fx, 1, &ready1, 1);
    err_begin(&e);
    assert_int_equal(ces_wd_start(fx->c), CES_OK);
    for (int i = 0; i < 400 && atomic_load(&reads) < 2; i++)
        ces_test_sleep_ms(5);
    assert_true(atomic_load(&reads) >= 2); /* copying while step 1 is pending */
    pthread_mutex_lock(fixture_lock(fx)); /* the watchdog's thread stands still */
    ces_test_sleep_ms(400);
    dev_word_set(0, 1); /* the stream is past step 1 */
    pthread_mutex_unlock(fixture_lock(fx));
    for (int i = 0; i < 200 && fx->page[0].words[0] != 1; i++)
        ces_test_sleep_ms(5);
    ces_wd_stop(fx->c);
    out = err_end(&e);
    assert_string_equal(out, "");
    assert_int_equal(atomic_load(&fx->c->state), CES_OK);
    assert_int_equal(fx->page[0].words[0], 1);
    free(out);
    fixture_free(fx);
}

/* --- shared hardware queues ---------------------------------------------- */

static void test_shared_queues_setting(void **state)
{
    (void)state;
    assert_int_equal(ces_cuda_queues_shared(ces_cuda_queues(NULL)), 0);
    assert_int_equal(ces_cuda_queues_shared(ces_cuda_queues("")), 0);
    assert_int_equal(ces_cuda_queues_shared(ces_cuda_queues("1")), 1);
    assert_int_equal(ces_cuda_queues_shared(ces_cuda_queues("7")), 7);
    assert_int_equal(ces_cuda_queues_shared(ces_cuda_queues("8")), 0);
    assert_int_equal(ces_cuda_queues_shared(ces_cuda_queues("32")), 0);
    assert_int_equal(ces_cuda_queues_shared(ces_cuda_queues("0")), 0);
    assert_int_equal(ces_cuda_queues_shared(ces_cuda_queues("-1")), 0);
    assert_int_equal(ces_cuda_queues_shared(ces_cuda_queues("2x")), 0);
    assert_int_equal(ces_cuda_queues_shared(ces_cuda_queues("x")), 0);
}

/* CES_SHARE_GPUS: 1 lets ranks share GPUs; unset, empty or 0 does not;
 * anything else is refused with CES_ERR_INVALID naming the variable, as
 * the other CES_* settings are ("yes" and "true" silently meant off, "2"
 * on).  cesync run, the bench and the communicator read it alike. */
static void test_share_gpus_setting(void **state)
{
    static const struct {
        const char *value;
        int rc, share;
    } cases[] = {{"", CES_OK, 0},           {"0", CES_OK, 0},         {"1", CES_OK, 1},
                 {"yes", CES_ERR_INVALID, 0}, {"true", CES_ERR_INVALID, 0},
                 {"x", CES_ERR_INVALID, 0},   {"2", CES_ERR_INVALID, 0},
                 {"01", CES_ERR_INVALID, 0},  {" 1", CES_ERR_INVALID, 0}};
    struct ces_ctx *ctx = NULL;
    char want[96];
    int share = -1;

    (void)state;
    assert_int_equal(ces_ctx_create(NULL, &ctx), CES_OK);
    assert_int_equal(unsetenv("CES_SHARE_GPUS"), 0);
    assert_int_equal(ces_cuda_share_gpus(ctx, &share), CES_OK);
    assert_int_equal(share, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        share = -1;
        assert_int_equal(setenv("CES_SHARE_GPUS", cases[i].value, 1), 0);
        assert_int_equal(ces_cuda_share_gpus(ctx, &share), cases[i].rc);
        assert_int_equal(share, cases[i].share);
        if (cases[i].rc != CES_OK) {
            snprintf(want, sizeof(want), "CES_SHARE_GPUS must be 0 or 1, not '%s'",
                     cases[i].value);
            assert_string_equal(ces_ctx_last_error(ctx), want);
        }
    }
    assert_int_equal(unsetenv("CES_SHARE_GPUS"), 0);
    ces_ctx_destroy(ctx);
}

/* Ranks of one process that share a GPU: the first pair found, which
 * ces_comm_init_all refuses where the streams share hardware queues. */
static void test_gpu_sharer(void **state)
{
    static const int apart[] = {0, 1, 2, 3}, pair[] = {0, 1, 1, 0}, later[] = {3, 2, 1, 2};
    uint32_t first = 99;

    (void)state;
    assert_int_equal(ces_cuda_gpu_sharer(apart, 4, &first), 4);
    assert_int_equal(first, 99);
    assert_int_equal(ces_cuda_gpu_sharer(apart, 1, &first), 1);
    assert_int_equal(ces_cuda_gpu_sharer(pair, 4, &first), 2);
    assert_int_equal(first, 1);
    assert_int_equal(ces_cuda_gpu_sharer(later, 4, &first), 3);
    assert_int_equal(first, 1);
    assert_int_equal(ces_cuda_gpu_sharer(pair, 2, &first), 2);
}

/* The most ranks on one GPU, which ces_comm_init_all bounds by
 * CES_CUDA_GPU_RANKS_MAX. */
static void test_gpu_crowd(void **state)
{
    static const int apart[] = {0, 1, 2, 3}, mod2[] = {0, 1, 0, 1, 0, 1, 0, 1},
                     one[] = {0, 0, 0, 0, 0}, late[] = {1, 0, 2, 2, 0, 2};
    int dev = -1;

    (void)state;
    assert_int_equal(ces_cuda_gpu_crowd(apart, 4, &dev), 1);
    assert_int_equal(dev, 0);
    assert_int_equal(ces_cuda_gpu_crowd(mod2, 8, &dev), 4);
    assert_int_equal(dev, 0);
    assert_int_equal(ces_cuda_gpu_crowd(one, 5, &dev), 5);
    assert_int_equal(ces_cuda_gpu_crowd(late, 6, &dev), 3);
    assert_int_equal(dev, 2);
    assert_true(ces_cuda_gpu_crowd(one, 5, &dev) > CES_CUDA_GPU_RANKS_MAX);
    assert_false(ces_cuda_gpu_crowd(mod2, 8, &dev) > CES_CUDA_GPU_RANKS_MAX);
}

/* Fails the fixture's communicator (one step blocked on slots[1]) with the
 * watchdog running, waits for its first release (when `released`), stops
 * it; returns what it printed (malloc'd), which says `seen` of the blocked
 * wait. */
static char *fail_and_release(struct fixture *fx, const char *seen, int released)
{
    char *out;

    enqueue(fx, 1, &ready1, 1);
    assert_int_equal(ces_wd_start(fx->c), CES_OK);
    out = fail_captured(fx->c, "aborted by the test");
    for (int i = 0; i < 1000 && released && atomic_load(&first_write) == 0; i++)
        ces_test_sleep_ms(5);
    ces_wd_stop(fx->c);
    assert_non_null(strstr(out, seen));
    if (released)
        assert_true(atomic_load(&writes[1]) > 0);
    return out;
}

/* Shared queues: the watchdog's context is made with the communicator (the
 * caller's context current again after); the streams write the words into
 * host memory, where the mirror takes them without a copy; the diagnosis
 * read and the releases go through that context, said once on stderr. */
static void test_shared_queues_read_and_release_elsewhere(void **state)
{
    struct fixture *fx = fixture_new(60000);
    uint64_t words[2 * CES_WD_STREAMS] = {0};
    struct err_capture err;
    char *out, *rest;

    (void)state;
    fx->c->queues = 1;
    current = (CUcontext)(uintptr_t)0xc1;
    assert_int_equal(ces_wd_rescue_open(fx->c), CES_OK);
    assert_ptr_equal(current, (CUcontext)(uintptr_t)0xc1);
    assert_int_equal(atomic_load(&ctx_creates), 1);
    fx->c->progress_dev = (CUdeviceptr)(uintptr_t)words;
    fx->c->wd_stage = words;
    words[0] = 3;
    ces_wd_mirror(fx->c, 1);
    assert_int_equal(fx->page[0].words[0], 3);
    assert_int_equal(atomic_load(&reads), 0);
    words[0] = 0;
    ces_wd_mirror(fx->c, 1);
    err_begin(&err); /* what the releases print after the diagnosis */
    out = fail_and_release(fx, "r0.s0#3 wait ready[1]@1 == 1: slot holds 0 (BLOCKED)", 1);
    rest = err_end(&err);
    assert_non_null(strstr(out, "cesync: watchdog: rank 0: reads and releases through a CUDA "
                                "context of its own (CUDA_DEVICE_MAX_CONNECTIONS=1: the streams "
                                "share hardware queues)\n"));
    /* said once, for the read and every release */
    assert_int_equal(ces_test_count(out, "context of its own") + ces_test_count(rest, "context of its own"), 1);
    assert_int_equal(atomic_load(&ctx_creates), 1);
    assert_int_equal(atomic_load(&reads), 1);
    assert_int_equal(atomic_load(&rescued_ops), 1 + atomic_load(&writes[1]));
    assert_int_equal(atomic_load(&stray_ops), 0);
    assert_ptr_equal(fx->c->rescue_stream, RESCUE_STREAM);
    free(out);
    free(rest);
    fixture_free(fx);
}

/* With shared queues and no room for the context, the communicator is not
 * made: the error says why. */
static void test_shared_queues_need_the_context(void **state)
{
    struct fixture *fx = fixture_new(60000);

    (void)state;
    fx->c->queues = 3;
    ctx_create_fails = 1;
    assert_int_equal(ces_wd_rescue_open(fx->c), CES_ERR_CUDA);
    assert_non_null(strstr(ces_ctx_last_error(fx->ctx),
                           "CUDA_DEVICE_MAX_CONNECTIONS=3: the streams share hardware queues"));
    assert_non_null(strstr(ces_ctx_last_error(fx->ctx), "CUDA_ERROR_OUT_OF_MEMORY"));
    assert_null(fx->c->rescue_ctx);
    fixture_free(fx);
}

/* A mirror copy still not done when the communicator fails: the watchdog's
 * stream is queued behind a blocked one, so the reads and releases move to
 * a context of its own, made then; when CUDA cannot make it the watchdog
 * says that what is blocked may not be released (the stand-ins cannot
 * block, so what it then does on its stream is not judged here). */
static void test_stuck_mirror_moves_the_reads(void **state)
{
    for (int fails = 0; fails <= 1; fails++) {
        struct fixture *fx = fixture_new(60000);
        uint64_t stage[2 * CES_WD_STREAMS];
        char *out;

        use_device_words(fx, stage);
        queue_stuck = 1;
        ctx_create_fails = fails;
        fx->c->wd_mirror_pending = 1;
        out = fail_and_release(fx, fails ? "r0.s0#3 wait ready[1]@1 == 1:"
                                         : "r0.s0#3 wait ready[1]@1 == 1: slot holds 0 (BLOCKED)",
                               !fails);
        assert_non_null(strstr(out, fails ? "could not create a CUDA context of its own "
                                            "(CUDA_ERROR_OUT_OF_MEMORY): its stream is queued "
                                            "behind a blocked one; what is blocked may not be "
                                            "released"
                                          : "reads and releases through a CUDA context of its "
                                            "own (its stream is queued behind a blocked one)"));
        assert_int_equal(atomic_load(&ctx_creates), 1);
        assert_int_equal(atomic_load(&rescued_ops), fails ? 0 : 1 + atomic_load(&writes[1]));
        assert_int_equal(atomic_load(&stray_ops), 0);
        free(out);
        fixture_free(fx);
    }
    (void)state;
}

/* The same for the check of a captured call: a mirror copy still not done
 * when a call has stayed in flight for the timeout moves its reads (and,
 * once it is judged blocked, the diagnosis and releases) to the context. */
static void test_stuck_mirror_moves_captured_reads(void **state)
{
    struct fixture *fx = fixture_new(20);
    uint64_t stage[2 * CES_WD_STREAMS];
    struct err_capture err;
    char *out;

    (void)state;
    use_device_words(fx, stage);
    assert_int_equal(capture(fx, 4, 9, 0), 1);
    fx->slots[3] = 8;
    fx->page[0].flight[0] = 1;
    queue_stuck = 1;
    fx->c->wd_mirror_pending = 1;
    err_begin(&err);
    assert_int_equal(ces_wd_start(fx->c), CES_OK);
    for (int i = 0; i < 1000 && atomic_load(&first_write) == 0; i++)
        ces_test_sleep_ms(5);
    ces_wd_stop(fx->c);
    out = err_end(&err);
    assert_int_equal(atomic_load(&fx->c->state), CES_ERR_TIMEOUT);
    assert_non_null(strstr(out, "reads and releases through a CUDA context of its own (its "
                                "stream is queued behind a blocked one)"));
    assert_non_null(strstr(out, "wait complete[3]@1 >= 9: slot holds 8 (BLOCKED)"));
    assert_true(atomic_load(&writes[9]) > 0);
    /* every read (the check's, the diagnosis') and every release went there */
    assert_int_equal(atomic_load(&rescued_ops), atomic_load(&reads) + atomic_load(&writes[9]));
    assert_int_equal(atomic_load(&stray_ops), 0);
    free(out);
    fixture_free(fx);
}

/* The watchdog has CES_WD_STREAMS (64) slots per communicator, one per
 * stream, kept until the communicator is destroyed: a 65th stream got none,
 * and its work went unwatched without a word.  Now it is refused with
 * CES_ERR_LIMIT, naming the limit; the streams that have a slot keep it. */
static void test_stream_past_the_slots_refused(void **state)
{
    struct fixture *fx = fixture_new(1000);
    struct ces_comm *c = fx->c;
    CUstream s65 = (CUstream)(uintptr_t)(0x1000 + CES_WD_STREAMS);
    char want[256];

    (void)state;
    for (uint32_t i = 1; i < CES_WD_STREAMS; i++)
        assert_int_equal(ces_wd_slot(c, (CUstream)(uintptr_t)(0x1000 + i)), (int)i);
    assert_int_equal(ces_wd_slot(c, s65), CES_ERR_LIMIT);
    snprintf(want, sizeof(want),
             "rank 0: the watchdog watches at most 64 CUDA streams per communicator, and stream "
             "%p would be the 65th (a stream keeps its slot until ces_comm_destroy)",
             (void *)s65);
    assert_string_equal(ces_ctx_last_error(fx->ctx), want);
    assert_int_equal(c->nwatched, CES_WD_STREAMS);
    assert_int_equal(ces_wd_slot(c, STREAM), 0);
    assert_int_equal(ces_wd_slot(c, (CUstream)(uintptr_t)0x1005), 5);
    fixture_free(fx);
}

/* Two threads issuing on one new stream at once: each looked the stream up
 * without wd_lock, found no slot, and took one once it held the lock, so
 * the stream got two (its steps split between their words).  Both threads
 * are held at the lock after their lookup; now the one that takes it second
 * finds the first one's slot. */
struct slot_call {
    struct ces_comm *c;
    int slot;
};

static void *take_slot(void *arg)
{
    struct slot_call *sc = arg;

    sc->slot = ces_wd_slot(sc->c, (CUstream)(uintptr_t)0x77);
    return NULL;
}

static void test_one_slot_for_two_threads(void **state)
{
    struct fixture *fx = fixture_new(1000);
    struct slot_call sc[2] = {{fx->c, -9}, {fx->c, -9}};
    pthread_t t[2];

    (void)state;
    pthread_mutex_lock(&fx->c->wd_lock);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, take_slot, &sc[i]), 0);
    ces_test_sleep_ms(300); /* both have looked and wait for the lock */
    pthread_mutex_unlock(&fx->c->wd_lock);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    assert_int_equal(sc[0].slot, 1);
    assert_int_equal(sc[1].slot, 1);
    assert_int_equal(fx->c->nwatched, 2);
    fixture_free(fx);
}

/* Records the next eager step of watch slot 0 with the n waits w[] (their
 * slots, widths, comparisons and values as given), its call ending with a
 * progress write. */
static void enqueue_waits(struct fixture *fx, const struct ces_wd_wait *w, uint32_t n)
{
    struct ces_comm *c = fx->c;
    struct ces_wd_step step;

    step_begin(fx, 1, &step);
    for (uint32_t k = 0; k < n; k++)
        c->waits[c->nwaits_total++ % CES_WD_WAITS] = w[k];
    step_end(fx, &step);
}

/* How the diagnosis judges a wait (docs/SEMANTICS.md): a 32-bit `>=`
 * across the wrap of its counter (0xfffffff0 awaited, 5 held: met), a
 * 64-bit `>=` that holds its value exactly (met), an `==` whose slot is
 * past its value (not met). */
static void test_wait_comparisons(void **state)
{
    struct fixture *fx = fixture_new(60000);
    uint64_t wide = UINT64_C(1) << 40;
    struct ces_wd_wait w[3];
    char *out;

    (void)state;
    memset(w, 0, sizeof(w));
    fx->slots[0] = 5;
    fx->slots[2] = 2;
    w[0].addr = (CUdeviceptr)(uintptr_t)&fx->slots[0];
    w[0].value = 0xfffffff0u;
    w[0].width = 32;
    w[0].cmp = CES_CMP_GEQ;
    snprintf(w[0].name, sizeof(w[0].name), "wrap");
    w[1].addr = (CUdeviceptr)(uintptr_t)&wide;
    w[1].value = UINT64_C(1) << 40;
    w[1].width = 64;
    w[1].cmp = CES_CMP_GEQ;
    w[1].idx = 1;
    snprintf(w[1].name, sizeof(w[1].name), "wide");
    w[2].addr = (CUdeviceptr)(uintptr_t)&fx->slots[2];
    w[2].value = 1;
    w[2].width = 32;
    w[2].cmp = CES_CMP_EQ;
    w[2].idx = 2;
    snprintf(w[2].name, sizeof(w[2].name), "armed");
    for (int k = 0; k < 3; k++) {
        w[k].rank = 1;
        w[k].spos = 3;
    }
    enqueue_waits(fx, w, 3);
    out = fail_captured(fx->c, "test");
    assert_non_null(strstr(out, "): blocked in alltoall call 7 at step 1 of 1; its waits:\n"
                                "cesync: watchdog:     r0.s0#3 wait wrap[0]@1 >= 4294967280: slot "
                                "holds 5 (satisfied)\n"
                                "cesync: watchdog:     r0.s0#3 wait wide[1]@1 >= 1099511627776: "
                                "slot holds 1099511627776 (satisfied)\n"
                                "cesync: watchdog:     r0.s0#3 wait armed[2]@1 == 1: slot holds 2 "
                                "(BLOCKED)\n"));
    free(out);
    fixture_free(fx);
}

/* A stream blocked CES_WD_STEPS (16,384) steps before its last: the record
 * of the step after its word has been overwritten, which the diagnosis
 * says instead of naming a step (and it reads no slot). */
static void test_step_record_overwritten(void **state)
{
    struct fixture *fx = fixture_new(60000);
    char *out, want[160];

    (void)state;
    for (uint32_t i = 0; i <= CES_WD_STEPS; i++)
        enqueue(fx, 1, &ready1, 1);
    out = fail_captured(fx->c, "test");
    snprintf(want, sizeof(want),
             "cesync: watchdog:   rank 0 stream %p: blocked after step 0 of %u (step record "
             "overwritten)\n",
             (void *)STREAM, CES_WD_STEPS + 1);
    assert_non_null(strstr(out, want));
    assert_null(strstr(out, "its waits:"));
    assert_int_equal(atomic_load(&reads), 0);
    free(out);
    fixture_free(fx);
}

/* A stream's in-flight word holding an id that no record has: its waits
 * cannot be read, so once it has stood for CES_TIMEOUT_MS the call is
 * taken for blocked (not for met), and the diagnosis says there is no
 * record. */
static void test_captured_without_a_record(void **state)
{
    struct fixture *fx = fixture_new(20);
    char *out;

    (void)state;
    fx->page[0].flight[0] = 5;
    out = watch_until_failed(fx);
    assert_int_equal(atomic_load(&fx->c->state), CES_ERR_TIMEOUT);
    assert_non_null(strstr(fx->c->fail_why, " ms in captured work (CES_TIMEOUT_MS=20)"));
    assert_non_null(strstr(out, ": inside captured call 5 (no record)\n"));
    assert_int_equal(atomic_load(&reads), 0);
    free(out);
    fixture_free(fx);
}

/* A communicator fails once: a second ces_wd_fail (the watchdog and
 * ces_comm_abort at once, say) changes neither its status nor its reason,
 * nor its word on the page, and prints nothing. */
static void test_second_failure_keeps_the_first(void **state)
{
    struct fixture *fx = fixture_new(60000);
    struct err_capture err;
    char *out;

    (void)state;
    enqueue(fx, 1, &ready1, 1);
    out = fail_captured(fx->c, "first");
    free(out);
    err_begin(&err);
    ces_wd_fail(fx->c, CES_ERR_PEER_FAILED, "second");
    out = err_end(&err);
    assert_string_equal(out, "");
    assert_int_equal(atomic_load(&fx->c->state), CES_ERR_TIMEOUT);
    assert_string_equal(fx->c->fail_why, "first");
    assert_int_equal(atomic_load(&fx->page[0].failed), (uint64_t)(-CES_ERR_TIMEOUT));
    free(out);
    fixture_free(fx);
}

/* A stream is accused once its word has stood still for longer than
 * CES_TIMEOUT_MS, not before; the reason says for how long. */
static void test_accused_after_the_timeout(void **state)
{
    struct fixture *fx = fixture_new(400);
    uint64_t ms = 0;
    char *out;

    (void)state;
    enqueue(fx, 1, &ready1, 1);
    out = watch_until_failed(fx);
    assert_int_equal(atomic_load(&fx->c->state), CES_ERR_TIMEOUT);
    assert_int_equal(sscanf(fx->c->fail_why, "no progress for %" SCNu64 " ms (CES_TIMEOUT_MS=400)",
                            &ms),
                     1);
    assert_true(ms > 400);
    free(out);
    fixture_free(fx);
}

/* A block's progress write that the driver refuses in ces_wd_close is
 * not taken for done: the step stays open, and the next ces_wd_close
 * writes it. */
static void test_block_close_retried(void **state)
{
    struct fixture *fx = fixture_new(60000);
    uint64_t stage[2 * CES_WD_STREAMS];

    (void)state;
    use_device_words(fx, stage);
    enqueue_step(fx, 1, &ready1, 1, 0);
    atomic_store(&write64_fails, 1);
    ces_wd_close(fx->c, STREAM);
    assert_int_equal(atomic_load(&write64_fails), 0);
    assert_int_equal(atomic_load(&writes[1]), 0);
    assert_false(fx->c->watched[0].steps[1].progress);
    ces_wd_close(fx->c, STREAM);
    assert_int_equal(atomic_load(&writes[1]), 1);
    assert_true(fx->c->watched[0].steps[1].progress);
    fixture_free(fx);
}

/* ces_wd_reserve counts the streams of a call that have no slot yet: one
 * named twice takes one slot, one that has a slot takes none.  So the
 * 64th stream named twice, and then a call on all 64, are not refused. */
static void test_reserve_counts_new_streams_once(void **state)
{
    struct fixture *fx = fixture_new(1000);
    struct ces_comm *c = fx->c;
    const CUstream last = (CUstream)(uintptr_t)(0x1000 + CES_WD_STREAMS - 1);
    const CUstream twice[2] = {last, last};
    CUstream all[CES_WD_STREAMS];

    (void)state;
    all[0] = STREAM;
    for (uint32_t i = 1; i < CES_WD_STREAMS; i++)
        all[i] = (CUstream)(uintptr_t)(0x1000 + i);
    for (uint32_t i = 1; i + 1 < CES_WD_STREAMS; i++)
        assert_int_equal(ces_wd_slot(c, all[i]), (int)i);
    assert_int_equal(ces_wd_reserve(c, twice, 2, 0), CES_OK);
    assert_int_equal(c->nwatched, CES_WD_STREAMS);
    assert_int_equal(ces_wd_slot(c, last), (int)CES_WD_STREAMS - 1);
    assert_int_equal(ces_wd_reserve(c, all, CES_WD_STREAMS, 0), CES_OK);
    assert_int_equal(c->nwatched, CES_WD_STREAMS);
    fixture_free(fx);
}

/* A mirror copy that takes a few milliseconds (a busy device: its query
 * says not ready 10 times) is waited for, up to a second: it is not taken
 * for one queued behind a blocked stream, and the diagnosis reads on the
 * watchdog's own stream (no context of its own is made). */
static void test_slow_copy_is_not_stuck(void **state)
{
    struct fixture *fx = fixture_new(60000);
    uint64_t stage[2 * CES_WD_STREAMS];
    char *out;

    (void)state;
    use_device_words(fx, stage);
    enqueue(fx, 1, &ready1, 1);
    atomic_store(&slow_queries, 10);
    out = fail_captured(fx->c, "test");
    assert_int_equal(atomic_load(&slow_queries), 0);
    assert_non_null(strstr(out, "r0.s0#3 wait ready[1]@1 == 1: slot holds 0 (BLOCKED)\n"));
    assert_null(strstr(out, "context of its own"));
    assert_int_equal(atomic_load(&ctx_creates), 0);
    assert_false(fx->c->wd_stuck);
    free(out);
    fixture_free(fx);
}

/* The library's own threads (the watchdog, the bench's gate guard) start
 * through ces_cuda_thread_start with every signal masked, so that a signal
 * sent to the process reaches the application's threads; the caller's
 * mask is its own again after the call (here: SIGUSR1 masked, SIGINT
 * not). */
static void *note_mask(void *arg)
{
    pthread_sigmask(SIG_BLOCK, NULL, (sigset_t *)arg);
    return NULL;
}

static void test_library_thread_takes_no_signal(void **state)
{
    static const int ending[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ, SIGXCPU, SIGUSR2};
    sigset_t usr1, was, in_thread, after;
    pthread_t th;

    (void)state;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    assert_int_equal(pthread_sigmask(SIG_SETMASK, &usr1, &was), 0);
    sigemptyset(&in_thread);
    assert_int_equal(ces_cuda_thread_start(&th, note_mask, &in_thread), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    for (size_t i = 0; i < sizeof(ending) / sizeof(ending[0]); i++)
        assert_int_equal(sigismember(&in_thread, ending[i]), 1);
    assert_int_equal(pthread_sigmask(SIG_BLOCK, NULL, &after), 0);
    assert_int_equal(sigismember(&after, SIGUSR1), 1);
    assert_int_equal(sigismember(&after, SIGINT), 0);
    assert_int_equal(sigismember(&after, SIGTERM), 0);
    assert_int_equal(pthread_sigmask(SIG_SETMASK, &was, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_the_blocked_wait),
        cmocka_unit_test(test_names_the_step_of_a_span),
        cmocka_unit_test(test_block_cut_short),
        cmocka_unit_test(test_reads_without_the_lock),
        cmocka_unit_test(test_unreadable_slots),
        cmocka_unit_test(test_captured_call),
        cmocka_unit_test(test_release_after_diagnosis),
        cmocka_unit_test(test_release_retried),
        cmocka_unit_test(test_peer_failed),
        cmocka_unit_test(test_dead_context),
        cmocka_unit_test(test_refused_copy_is_not_death),
        cmocka_unit_test(test_silent_peer),
        cmocka_unit_test(test_ring_overwritten),
        cmocka_unit_test(test_release_skips_lost_steps),
        cmocka_unit_test(test_captured_check_leaves_the_lock),
        cmocka_unit_test(test_captured_call_left_during_the_read),
        cmocka_unit_test(test_captured_verdict_on_fresh_words),
        cmocka_unit_test(test_mirror_only_while_pending),
        cmocka_unit_test(test_no_alarm_after_a_stall),
        cmocka_unit_test(test_shared_queues_setting),
        cmocka_unit_test(test_share_gpus_setting),
        cmocka_unit_test(test_gpu_sharer),
        cmocka_unit_test(test_gpu_crowd),
        cmocka_unit_test(test_shared_queues_read_and_release_elsewhere),
        cmocka_unit_test(test_shared_queues_need_the_context),
        cmocka_unit_test(test_stuck_mirror_moves_the_reads),
        cmocka_unit_test(test_stuck_mirror_moves_captured_reads),
        cmocka_unit_test(test_stream_past_the_slots_refused),
        cmocka_unit_test(test_one_slot_for_two_threads),
        cmocka_unit_test(test_wait_comparisons),
        cmocka_unit_test(test_step_record_overwritten),
        cmocka_unit_test(test_captured_without_a_record),
        cmocka_unit_test(test_second_failure_keeps_the_first),
        cmocka_unit_test(test_accused_after_the_timeout),
        cmocka_unit_test(test_block_close_retried),
        cmocka_unit_test(test_reserve_counts_new_streams_once),
        cmocka_unit_test(test_slow_copy_is_not_stuck),
        cmocka_unit_test(test_library_thread_takes_no_signal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
