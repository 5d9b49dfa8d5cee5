/*
 * tests/cuda/test_gpu_fault.c - the watchdog on real GPUs.  Usage:
 *   test_gpu_fault kill [N] rank 1 of N (default 2) is SIGKILLed in the
 *                           middle of 1,000 alltoalls; rank 0 must fail with
 *                           CES_ERR_TIMEOUT or CES_ERR_PEER_FAILED within
 *                           CES_TIMEOUT_MS + 1 s of the kill, print the
 *                           diagnosis, drain its stream and destroy the
 *                           communicator cleanly, every other survivor fail
 *                           too, drain and destroy (among more than 2 the
 *                           others' watchdogs may release rank 0's waits
 *                           first: it must name its blocked call; more ranks
 *                           than GPUs with CES_SHARE_GPUS=1: rank r on GPU
 *                           r % GPUs);
 *   test_gpu_fault missing  a schedule whose rank 0 waits, in its third
 *                           block, for a write nobody does: the watchdog
 *                           must report the blocked wait (its block, its
 *                           position as the checker numbers it, slot,
 *                           value held, value awaited) and release it;
 *   test_gpu_fault abort    ces_comm_abort fails the communicator on demand;
 *                           then, with a stream of rank 0's held by work of
 *                           its own (a host function that waits for the
 *                           test), ces_comm_destroy must return CES_OK
 *                           within CES_TIMEOUT_MS + 1 s all the same (not
 *                           with CUDA_DEVICE_MAX_CONNECTIONS below 8, where
 *                           the held queue is every stream's);
 *   test_gpu_fault flood    rank 1 stops after 10 alltoalls; rank 0 issues
 *                           20,000 more without a sync, so its GPU blocks and
 *                           its queue fills until the host thread blocks in a
 *                           CUDA call: rank 0 must fail within CES_TIMEOUT_MS
 *                           + 2 s, the blocked call return and the flood end
 *                           with CES_ERR_TIMEOUT, its stream drain, and rank
 *                           1 hear of it (CES_ERR_PEER_FAILED).
 *   test_gpu_fault stalled  one-way ces_send/ces_recv groups the side way
 *                           (CES_P2P_SIDE_MIN=0): rank 1 receives 2
 *                           messages, then posts 3 more behind a stream it
 *                           holds until it hears of the failure; rank 0
 *                           sends 5, so its 5th
 *                           waits on a side stream for a slot never freed
 *                           (with shared queues, the 4th on its own stream):
 *                           rank 0 must fail within CES_TIMEOUT_MS + 1 s,
 *                           name that wait, drain and destroy cleanly.
 *   test_gpu_fault sticky   rank 1 stops after 10 alltoalls; rank 0 issues
 *                           an 11th (blocked: its peer never joins), then
 *                           a kernel that traps on a stream of its own, a
 *                           sticky error that kills its CUDA context: rank 0
 *                           must fail with CES_ERR_CUDA within CES_TIMEOUT_MS
 *                           / 2, its watchdog naming the failed read of the
 *                           progress words (and that the steps it names
 *                           may be stale), every later call say so, and
 *                           ces_comm_destroy return CES_ERR_CUDA at once
 *                           (its streams cannot be waited for); rank 1
 *                           must hear of it (CES_ERR_PEER_FAILED).  Not
 *                           with shared queues: the trap would wait
 *                           behind the blocked call.
 *   test_gpu_fault captured the same missing write, but captured: each rank
 *                           first replays a captured alltoall 3 times and
 *                           idles 1.5 x CES_TIMEOUT_MS (no false alarm), then
 *                           captures ces_launch of the schedule and replays
 *                           it with cudaGraphLaunch: rank 0's watchdog must
 *                           name the blocked wait of the captured call
 *                           within CES_TIMEOUT_MS + 1 s and release it.
 * Before a fault every rank checks every byte its healthy calls delivered
 * (the last of kill's 300 alltoalls and of flood's 10, stalled's 2
 * messages, each captured replay: fresh send bytes of the test pattern, a
 * cleared receive buffer).  Rank 0, and every survivor of kill, then
 * checks that every later call on its failed communicator returns the
 * failure (after_failure).
 * The diagnosis (stderr of rank 0) is captured and checked.  Exits 77
 * without GPUs for its ranks (one each, or any with CES_SHARE_GPUS=1).  ctest
 * runs every part also with
 * CUDA_DEVICE_MAX_CONNECTIONS=1 (one hardware queue per GPU, shared by all
 * streams, the watchdog's too): the diagnosis must then say that the
 * watchdog reads and releases through a context of its own.
 */
#include "ces_test.h" /* the tests' TMPDIR */
#include "gpu_util.h"
#include "cu_api.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct shared {
    volatile uint64_t kill_ms; /* when rank 1 killed itself */
};

struct fjob {
    const char *part;
    uint32_t gpus;
    struct shared *sh;
    char log[CES_TEST_TMPDIR_SIZE + 16]; /* rank 0's stderr */
    uint64_t timeout_ms;
};

/* Rank r's GPU: r % GPUs (ranks share them with CES_SHARE_GPUS=1). */
static int device_of(const struct fjob *job, uint32_t rank)
{
    return (int)(rank % job->gpus);
}

/* A counting allocator: a failed communicator must free everything. */
struct counting {
    long live;
};

static void *count_malloc(void *ud, size_t n)
{
    void *p = malloc(n);

    if (p != NULL)
        ((struct counting *)ud)->live++;
    return p;
}

static void *count_realloc(void *ud, void *p, size_t n)
{
    void *q = realloc(p, n);

    if (q != NULL && p == NULL)
        ((struct counting *)ud)->live++;
    return q;
}

static void count_free(void *ud, void *p)
{
    if (p != NULL) {
        ((struct counting *)ud)->live--;
        free(p);
    }
}

static int ctx_counting(struct counting *cnt, struct ces_ctx **ctx)
{
    struct ces_alloc h = {count_malloc, count_realloc, count_free, cnt};

    cnt->live = 0;
    return ces_ctx_create(&h, ctx);
}

static int leak_check(const struct counting *cnt)
{
    if (cnt->live != 0) {
        printf("FAIL: %ld blocks still allocated after destroying the failed communicator\n",
               cnt->live);
        return 1;
    }
    printf("ok   no block left after destroying the failed communicator\n");
    return 0;
}

#define CKR(ctx, what, expr)                                                                 \
    do {                                                                                     \
        int rc_ = (expr);                                                                    \
        if (rc_ != CES_OK)                                                                   \
            return gpu_fail(ctx, what, rc_);                                                 \
    } while (0)

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

/* Waits (bounded) until the communicator fails; returns the time. */
static uint64_t wait_failed(struct ces_comm *c, uint64_t limit_ms)
{
    uint64_t end = gpu_now_ms() + limit_ms;

    while (ces_comm_status(c) == CES_OK && gpu_now_ms() < end)
        sleep_ms(1);
    return gpu_now_ms();
}

/* After the failure: the released stream drains, and every later call on
 * the communicator returns its failure (ces_comm_status, the same for every
 * call): the collectives, ces_group_start, ces_send, ces_recv,
 * ces_group_end (with the group open and again without one), ces_launch,
 * ces_mem_alloc (allocating nothing), ces_mem_free (`a` stays mapped for
 * ces_comm_destroy) and ces_comm_abort. */
static int after_failure(struct ces_ctx *ctx, struct ces_comm *c, cudaStream_t s, void *a,
                         void *b)
{
    struct ces_graph *g = NULL;
    void *p = NULL;
    uint32_t peer = (ces_comm_rank(c) + 1) % ces_comm_size(c);
    int st = ces_comm_status(c), bad = 0, rc[15];
    static const char *const what[15] = {
        "ces_alltoall", "ces_allgather", "ces_gather", "ces_scatter", "ces_broadcast",
        "ces_barrier", "ces_group_start", "ces_send", "ces_recv", "ces_group_end",
        "ces_group_end (no group)", "ces_launch", "ces_mem_alloc", "ces_mem_free",
        "ces_comm_abort"};

    if (cudaStreamSynchronize(s) != cudaSuccess) {
        printf("FAIL: the stream did not drain cleanly: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    if (st != CES_ERR_TIMEOUT && st != CES_ERR_PEER_FAILED)
        return gpu_fail(ctx, "the communicator's status after the failure", st);
    if (ces_graph_create(ctx, ces_comm_size(c), 1, &g) != CES_OK)
        return gpu_fail(ctx, "ces_graph_create", CES_ERR_NOMEM);
    rc[0] = ces_alltoall(c, a, b, 4096, s);
    rc[1] = ces_allgather(c, a, b, 1024, s);
    rc[2] = ces_gather(c, a, b, 1024, 0, s);
    rc[3] = ces_scatter(c, b, a, 1024, 0, s);
    rc[4] = ces_broadcast(c, a, b, 4096, 0, s);
    rc[5] = ces_barrier(c, s);
    rc[6] = ces_group_start(c);
    rc[7] = ces_send(c, a, 4096, peer);
    rc[8] = ces_recv(c, b, 4096, peer);
    rc[9] = ces_group_end(c, s);
    rc[10] = ces_group_end(c, s);
    rc[11] = ces_launch(c, g, NULL, 0, s);
    rc[12] = ces_mem_alloc(c, 4096, &p);
    rc[13] = ces_mem_free(c, a);
    rc[14] = ces_comm_abort(c);
    ces_graph_destroy(g);
    for (int i = 0; i < 15; i++) {
        if (rc[i] != st) {
            printf("FAIL: %s after the failure returned %s, not %s\n", what[i],
                   ces_status_str(rc[i]), ces_status_str(st));
            bad = 1;
        }
    }
    if (p != NULL) {
        printf("FAIL: ces_mem_alloc after the failure allocated %p\n", p);
        bad = 1;
    }
    if (ces_mem_peer(c, a, peer) == NULL) {
        printf("FAIL: ces_mem_free after the failure freed %p\n", a);
        bad = 1;
    }
    if (!bad)
        printf("ok   every later call (collectives, group, launch, alloc, free, abort) returns "
               "%s: %s\n",
               ces_status_str(st), ces_ctx_last_error(ctx));
    return bad;
}

/* Holds a stream until *arg is set (a host function on the stream). */
static void CUDART_CB hold(void *arg)
{
    while (!*(volatile int *)arg)
        sleep_ms(1);
}

/* ces_comm_destroy of the failed communicator c beside a stream that work
 * of the caller's own holds (a host function waiting for this test): the
 * destroy waits for the communicator's work only, so it returns CES_OK in
 * time (it once synchronized the whole context, and hung here until the
 * host function returned). */
static int destroy_beside_held(struct ces_comm *c, uint64_t timeout_ms)
{
    cudaStream_t other;
    uint64_t t0, t;
    volatile int open = 0;
    int rc, in;

    if (cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking) != cudaSuccess ||
        cudaLaunchHostFunc(other, hold, (void *)&open) != cudaSuccess) {
        printf("FAIL: the held stream: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    t0 = gpu_now_ms();
    rc = ces_comm_destroy(c);
    t = gpu_now_ms() - t0;
    in = rc == CES_OK && t <= timeout_ms + 1000;
    printf("%s ces_comm_destroy beside a held stream: %s after %" PRIu64 " ms\n",
           in ? "ok  " : "FAIL", ces_status_str(rc), t);
    open = 1;
    cudaStreamSynchronize(other);
    cudaStreamDestroy(other);
    return !in;
}

/* A rank of the alltoall fault tests: its communicator (rank 0's stderr
 * into the job's log, a counting allocator), a stream, two 4 KiB buffers
 * and the alltoall's bytes (4 KiB, less where the ranks do not divide
 * it). */
struct arank {
    struct ces_ctx *ctx;
    struct ces_comm *c;
    cudaStream_t s;
    void *a, *b;
    uint64_t bytes;
    struct counting cnt;
};

/* The send buffer `send` filled with rank's pattern of generation gen and
 * the receive buffer `recv` cleared to 0xee, in order on stream s, which
 * is then idle (bytes <= 4 KiB). */
static int load(cudaStream_t s, void *send, void *recv, uint64_t bytes, uint32_t rank,
                uint64_t gen)
{
    uint8_t h[4096];

    gpu_fill(h, bytes, rank, 0, 0, gen);
    if (cudaMemcpyAsync(send, h, bytes, cudaMemcpyHostToDevice, s) != cudaSuccess ||
        cudaMemsetAsync(recv, 0xee, bytes, s) != cudaSuccess ||
        cudaStreamSynchronize(s) != cudaSuccess) {
        printf("FAIL: rank %u: filling the buffers: %s\n", rank,
               cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    return 0;
}

/* bytes (<= 4 KiB) of `dev` into h, once the work on stream s is done. */
static int read_back(cudaStream_t s, const void *dev, uint8_t *h, uint64_t bytes, uint32_t rank,
                     const char *when)
{
    if (cudaStreamSynchronize(s) != cudaSuccess ||
        cudaMemcpyAsync(h, dev, bytes, cudaMemcpyDeviceToHost, s) != cudaSuccess ||
        cudaStreamSynchronize(s) != cudaSuccess) {
        printf("FAIL: rank %u: reading the receive buffer %s: %s\n", rank, when,
               cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    return 0;
}

/* After alltoalls of generation gen on stream s: every byte of rank's
 * `recv`, chunk p from rank p's send at offset rank * chunk (0 if so). */
static int expect_alltoall(const char *when, cudaStream_t s, const void *recv, uint64_t bytes,
                           uint32_t rank, uint32_t n, uint64_t gen)
{
    uint8_t h[4096];
    uint64_t chunk = bytes / n;
    char what[128];

    if (read_back(s, recv, h, bytes, rank, when))
        return 1;
    for (uint32_t p = 0; p < n; p++) {
        snprintf(what, sizeof(what), "rank %u %s, chunk from rank %u", rank, when, p);
        if (gpu_expect(what, h + p * chunk, chunk, p, 0, (uint64_t)rank * chunk, gen))
            return 1;
    }
    return 0;
}

static int arank_open(struct fjob *job, uint32_t rank, uint32_t n, const char *path,
                      struct arank *r)
{
    if (rank == 0 && freopen(job->log, "w", stderr) == NULL)
        return 1;
    ctx_counting(&r->cnt, &r->ctx);
    CKR(r->ctx, "init", ces_comm_init(r->ctx, rank, n, device_of(job, rank), path, &r->c));
    cudaSetDevice(device_of(job, rank));
    cudaStreamCreateWithFlags(&r->s, cudaStreamNonBlocking);
    CKR(r->ctx, "alloc", ces_mem_alloc(r->c, 4096, &r->a));
    CKR(r->ctx, "alloc", ces_mem_alloc(r->c, 4096, &r->b));
    r->bytes = 4096 / n * n;
    return 0;
}

/* Destroys it all; rank 0 checks that nothing is left allocated. */
static int arank_close(struct arank *r, uint32_t rank)
{
    cudaStreamDestroy(r->s);
    if (ces_comm_destroy(r->c) != CES_OK)
        printf("note: destroy reported: %s\n", ces_ctx_last_error(r->ctx));
    ces_ctx_destroy(r->ctx);
    return rank == 0 ? leak_check(&r->cnt) : 0;
}

static int kill_rank(uint32_t rank, uint32_t n, const char *path, void *arg)
{
    struct fjob *job = arg;
    struct arank r;
    int bad = 0;

    if (arank_open(job, rank, n, path, &r) != 0 || load(r.s, r.a, r.b, r.bytes, rank, 1) != 0)
        return 1;
    for (uint32_t k = 0; k < 1000; k++) {
        int rc = ces_alltoall(r.c, r.a, r.b, r.bytes, r.s);

        /* the first 300 are healthy: every rank checks what they delivered
         * before rank 1 is killed (it runs one more first) */
        if (k == 299 && rc == CES_OK) {
            if (expect_alltoall("after 300 alltoalls", r.s, r.b, r.bytes, rank, n, 1) != 0)
                return 1;
            if (rank == 0)
                printf("ok   every byte of the 300 healthy alltoalls' receive buffers\n");
        }
        if (rank == 1) {
            cudaStreamSynchronize(r.s);
            if (k == 300) {
                job->sh->kill_ms = gpu_now_ms();
                raise(SIGKILL);
            }
        }
        if (rc != CES_OK) {
            if (rc != CES_ERR_TIMEOUT && rc != CES_ERR_PEER_FAILED)
                return gpu_fail(r.ctx, "alltoall failed with an unexpected status", rc);
            break;
        }
    }
    if (rank == 0) {
        uint64_t t = wait_failed(r.c, job->timeout_ms + 20000), kill = job->sh->kill_ms;

        if (ces_comm_status(r.c) == CES_OK || kill == 0) {
            printf("FAIL: rank 0 did not fail (status %d, kill at %" PRIu64 ")\n",
                   ces_comm_status(r.c), kill);
            return 1;
        }
        printf("%s rank 0 failed %" PRIu64 " ms after rank 1 was killed (expected %" PRIu64
               "..%" PRIu64 " ms): %s\n",
               t - kill <= job->timeout_ms + 1000 && t - kill >= job->timeout_ms / 2 ? "ok  "
                                                                                    : "FAIL",
               t - kill, job->timeout_ms / 2, job->timeout_ms + 1000,
               ces_status_str(ces_comm_status(r.c)));
        bad |= t - kill > job->timeout_ms + 1000 || t - kill < job->timeout_ms / 2;
        bad |= after_failure(r.ctx, r.c, r.s, r.a, r.b);
    } else {
        wait_failed(r.c, job->timeout_ms + 20000);
        if (ces_comm_status(r.c) == CES_OK) {
            printf("FAIL: rank %u did not fail\n", rank);
            return 1;
        }
        bad |= after_failure(r.ctx, r.c, r.s, r.a, r.b);
    }
    return bad | arank_close(&r, rank);
}

static int flood_rank(uint32_t rank, uint32_t n, const char *path, void *arg)
{
    struct fjob *job = arg;
    struct arank r;
    int bad = 0;

    if (arank_open(job, rank, n, path, &r) != 0 || load(r.s, r.a, r.b, r.bytes, rank, 1) != 0)
        return 1;
    for (uint32_t k = 0; k < 10; k++)
        CKR(r.ctx, "alltoall", ces_alltoall(r.c, r.a, r.b, r.bytes, r.s));
    if (cudaStreamSynchronize(r.s) != cudaSuccess)
        return gpu_fail(r.ctx, "the first 10 alltoalls did not complete", CES_ERR_CUDA);
    if (expect_alltoall("after the first 10 alltoalls", r.s, r.b, r.bytes, rank, n, 1) != 0)
        return 1;
    if (rank == 0)
        printf("ok   every byte of the first 10 alltoalls' receive buffers\n");
    if (rank == 1) {
        wait_failed(r.c, job->timeout_ms + 20000);
        if (ces_comm_status(r.c) != CES_ERR_PEER_FAILED) {
            printf("FAIL: rank 1 status %d, expected CES_ERR_PEER_FAILED\n", ces_comm_status(r.c));
            bad = 1;
        }
    } else {
        uint64_t t0 = gpu_now_ms(), t, longest = 0;
        uint32_t k;
        int rc = CES_OK;

        for (k = 0; k < 20000 && rc == CES_OK; k++) {
            uint64_t a = gpu_now_ms();

            rc = ces_alltoall(r.c, r.a, r.b, r.bytes, r.s);
            if (gpu_now_ms() - a > longest)
                longest = gpu_now_ms() - a;
        }
        if (rc != CES_ERR_TIMEOUT)
            return gpu_fail(r.ctx, "the flood did not end with CES_ERR_TIMEOUT", rc);
        /* the thread blocked in a call (a full queue) until the release */
        if (longest < job->timeout_ms / 2) {
            printf("FAIL: no call blocked (the longest took %" PRIu64 " ms)\n", longest);
            bad = 1;
        }
        t = wait_failed(r.c, job->timeout_ms + 20000);
        if (ces_comm_status(r.c) != CES_ERR_TIMEOUT) {
            printf("FAIL: rank 0 status %d, expected CES_ERR_TIMEOUT\n", ces_comm_status(r.c));
            return 1;
        }
        bad |= t - t0 < job->timeout_ms * 9 / 10 || t - t0 > job->timeout_ms + 2000;
        printf("%s rank 0 failed %" PRIu64 " ms after it began flooding (expected %" PRIu64
               "..%" PRIu64 " ms); call %" PRIu32 " returned the error, the longest call took %"
               PRIu64 " ms\n",
               bad ? "FAIL" : "ok  ", t - t0, job->timeout_ms * 9 / 10, job->timeout_ms + 2000, k,
               longest);
        bad |= after_failure(r.ctx, r.c, r.s, r.a, r.b);
    }
    return bad | arank_close(&r, rank);
}

/* A kernel that traps, loaded from PTX through the driver functions the
 * library reaches (ces_cu_sym: the test links no libcuda).  Loaded before the blocked call:
 * loading a module while a stream of the context is blocked waits for it
 * (the launch later does not). */
static const char trap_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                               ".visible .entry ces_trap()\n{\n  trap;\n}\n";

struct trap {
    CUresult (CUDAAPI *launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, unsigned, CUstream, void **, void **);
    CUfunction fn;
};

static int trap_load(struct trap *tr)
{
    static const char *const names[3] = {"cuModuleLoadData", "cuModuleGetFunction",
                                         "cuLaunchKernel"};
    CUresult (CUDAAPI *load_ptx)(CUmodule *, const void *);
    CUresult (CUDAAPI *get)(CUfunction *, CUmodule, const char *);
    void *fns[3];
    CUmodule mod;

    for (int i = 0; i < 3; i++) {
        if ((fns[i] = ces_cu_sym(names[i])) == NULL) {
            printf("FAIL: %s not found\n", names[i]);
            return 1;
        }
    }
    *(void **)&load_ptx = fns[0];
    *(void **)&get = fns[1];
    *(void **)&tr->launch = fns[2];
    if (load_ptx(&mod, trap_ptx) != CUDA_SUCCESS || get(&tr->fn, mod, "ces_trap") != CUDA_SUCCESS) {
        printf("FAIL: the trapping kernel was not loaded\n");
        return 1;
    }
    return 0;
}

static int sticky_rank(uint32_t rank, uint32_t n, const char *path, void *arg)
{
    struct fjob *job = arg;
    int bad = 0, rc;
    uint64_t t0, t;
    cudaStream_t side;
    struct trap tr;
    struct arank r;

    setenv("CUDA_MODULE_LOADING", "EAGER", 1); /* no load at the launch */
    if (arank_open(job, rank, n, path, &r) != 0 || load(r.s, r.a, r.b, r.bytes, rank, 1) != 0)
        return 1;
    for (uint32_t k = 0; k < 10; k++)
        CKR(r.ctx, "alltoall", ces_alltoall(r.c, r.a, r.b, r.bytes, r.s));
    if (expect_alltoall("after 10 alltoalls", r.s, r.b, r.bytes, rank, n, 1) != 0)
        return 1;
    if (rank == 1) {
        wait_failed(r.c, job->timeout_ms + 20000);
        if (ces_comm_status(r.c) != CES_ERR_PEER_FAILED) {
            printf("FAIL: rank 1 status %s, expected CES_ERR_PEER_FAILED\n",
                   ces_status_str(ces_comm_status(r.c)));
            return 1;
        }
        printf("ok   rank 1 heard of it: %s\n", ces_status_str(ces_comm_status(r.c)));
        return after_failure(r.ctx, r.c, r.s, r.a, r.b) | arank_close(&r, rank);
    }
    printf("ok   every byte of the 10 alltoalls' receive buffers\n");
    if (cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) != cudaSuccess ||
        trap_load(&tr) != 0)
        return 1;
    CKR(r.ctx, "the 11th alltoall", ces_alltoall(r.c, r.a, r.b, r.bytes, r.s));
    t0 = gpu_now_ms();
    if (tr.launch(tr.fn, 1, 1, 1, 1, 1, 1, 0, (CUstream)side, NULL, NULL) != CUDA_SUCCESS) {
        printf("FAIL: the trapping kernel was not launched\n");
        return 1;
    }
    t = wait_failed(r.c, job->timeout_ms + 20000) - t0;
    rc = ces_comm_status(r.c);
    bad |= rc != CES_ERR_CUDA || t > job->timeout_ms / 2;
    printf("%s rank 0 failed with %s %" PRIu64 " ms after the trap (expected %s within %" PRIu64
           " ms)\n",
           bad ? "FAIL" : "ok  ", ces_status_str(rc), t, ces_status_str(CES_ERR_CUDA),
           job->timeout_ms / 2);
    rc = ces_alltoall(r.c, r.a, r.b, r.bytes, r.s);
    if (rc != CES_ERR_CUDA ||
        strstr(ces_ctx_last_error(r.ctx), "the communicator failed: the progress words cannot "
                                          "be read: ") == NULL) {
        printf("FAIL: an alltoall after the failure returned %s: %s\n", ces_status_str(rc),
               ces_ctx_last_error(r.ctx));
        bad = 1;
    } else {
        printf("ok   an alltoall after it: %s\n", ces_ctx_last_error(r.ctx));
    }
    t0 = gpu_now_ms();
    rc = ces_comm_destroy(r.c);
    t = gpu_now_ms() - t0;
    if (rc != CES_ERR_CUDA || t > job->timeout_ms / 2 ||
        strstr(ces_ctx_last_error(r.ctx), "cannot be waited for") == NULL) {
        printf("FAIL: ces_comm_destroy returned %s after %" PRIu64 " ms: %s\n",
               ces_status_str(rc), t, ces_ctx_last_error(r.ctx));
        bad = 1;
    } else {
        printf("ok   ces_comm_destroy returned %s after %" PRIu64 " ms: %s\n",
               ces_status_str(rc), t, ces_ctx_last_error(r.ctx));
    }
    ces_ctx_destroy(r.ctx);
    return bad | leak_check(&r.cnt);
}

static int stalled_rank(uint32_t rank, uint32_t n, const char *path, void *arg)
{
    struct fjob *job = arg;
    struct arank r;
    int bad = 0;
    static volatile int go;
    char to[32];

    setenv("CES_P2P_SIDE_MIN", "0", 1);
    /* rank 1's watchdog waits longer, so rank 0's is the one to fire */
    snprintf(to, sizeof(to), "%" PRIu64, job->timeout_ms * 4);
    if (rank == 1)
        setenv("CES_TIMEOUT_MS", to, 1);
    if (arank_open(job, rank, n, path, &r) != 0 || load(r.s, r.a, r.b, 4096, rank, 1) != 0)
        return 1;
    for (uint32_t k = 0; k < 5; k++) {
        if (rank == 1 && k == 2) {
            /* the first two messages are received; the rest are posted
             * behind a held stream, so their slots are never freed */
            if (cudaStreamSynchronize(r.s) != cudaSuccess ||
                cudaLaunchHostFunc(r.s, hold, (void *)&go) != cudaSuccess)
                return gpu_fail(r.ctx, "holding the stream", CES_ERR_CUDA);
        }
        /* each of the first two lands whole in a cleared buffer */
        if (rank == 1 && k < 2 && cudaMemsetAsync(r.b, 0xee, 4096, r.s) != cudaSuccess)
            return gpu_fail(r.ctx, "clearing the receive buffer", CES_ERR_CUDA);
        CKR(r.ctx, "ces_group_start", ces_group_start(r.c));
        if (rank == 0)
            CKR(r.ctx, "ces_send", ces_send(r.c, r.a, 4096, 1));
        else
            CKR(r.ctx, "ces_recv", ces_recv(r.c, r.b, 4096, 0));
        CKR(r.ctx, "ces_group_end", ces_group_end(r.c, r.s));
        if (rank == 1 && k < 2) {
            uint8_t h[4096];
            char what[64];

            snprintf(what, sizeof(what), "rank 1 message %u from rank 0", k + 1);
            if (read_back(r.s, r.b, h, 4096, rank, what) || gpu_expect(what, h, 4096, 0, 0, 0, 1))
                return 1;
            printf("ok   every byte of %s\n", what);
        }
    }
    if (rank == 1) {
        wait_failed(r.c, job->timeout_ms * 4 + 20000);
        go = 1;
        if (ces_comm_status(r.c) != CES_ERR_PEER_FAILED) {
            printf("FAIL: rank 1 status %d, expected CES_ERR_PEER_FAILED\n", ces_comm_status(r.c));
            bad = 1;
        }
        if (cudaStreamSynchronize(r.s) != cudaSuccess)
            bad |= gpu_fail(r.ctx, "rank 1's stream did not drain", CES_ERR_CUDA);
    } else {
        uint64_t t0 = gpu_now_ms(), t = wait_failed(r.c, job->timeout_ms + 20000);

        if (ces_comm_status(r.c) != CES_ERR_TIMEOUT) {
            printf("FAIL: rank 0 status %d, expected CES_ERR_TIMEOUT\n", ces_comm_status(r.c));
            return 1;
        }
        bad |= t - t0 > job->timeout_ms + 1000;
        printf("%s rank 0 failed %" PRIu64 " ms after its 5th send (expected at most %" PRIu64
               " ms)\n", bad ? "FAIL" : "ok  ", t - t0, job->timeout_ms + 1000);
        bad |= after_failure(r.ctx, r.c, r.s, r.a, r.b);
    }
    return bad | arank_close(&r, rank);
}

/* Rank 0 waits for f[0] >= 1, which nobody writes, in the third block
 * (its stream's op #6, as `cesync check` names it: two blocks of two ops
 * come before). */
static const char missing_ces[] =
    "cesync 1\n"
    "ranks 2\n"
    "buffer b 4096\n"
    "signal g u64 2\n"
    "signal f u64 2\n"
    "phase eager x2\n"
    "r* over p : write g[$r]@$p = 1\n"
    "r* over p : wait g[$p] >= 1\n"
    "phase eager x1\n"
    "r* over p : write f[$r]@$p = 1\n"
    "r* over p : wait f[$p] >= 1\n"
    "r0 : wait f[0] >= 1\n"
    "r0 : copy b[0:8] -> b[8:16]@1\n";

static int missing_rank(uint32_t rank, uint32_t n, const char *path, void *arg)
{
    struct fjob *job = arg;
    struct ces_ctx *ctx = NULL;
    struct ces_comm *c = NULL;
    struct ces_prog *prog = NULL;
    struct ces_graph *g = NULL;
    cudaStream_t s;
    void *a, *b;
    int bad = 0, abort_mode = strcmp(job->part, "abort") == 0;
    struct counting cnt;

    if (rank == 0 && freopen(job->log, "w", stderr) == NULL)
        return 1;
    ctx_counting(&cnt, &ctx);
    CKR(ctx, "parse", ces_prog_parse(ctx, missing_ces, sizeof(missing_ces) - 1, "missing.ces", &prog));
    CKR(ctx, "expand", ces_prog_expand(ctx, prog, &g));
    CKR(ctx, "init", ces_comm_init(ctx, rank, n, device_of(job, rank), path, &c));
    cudaSetDevice(device_of(job, rank));
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    CKR(ctx, "alloc", ces_mem_alloc(c, 4096, &a));
    CKR(ctx, "alloc", ces_mem_alloc(c, 4096, &b));
    {
        struct ces_binding bind[] = {{"b", a}};
        uint64_t t0 = gpu_now_ms(), t;

        CKR(ctx, "ces_launch", ces_launch(c, g, bind, 1, s));
        if (rank == 0) {
            if (abort_mode) {
                sleep_ms(200);
                CKR(ctx, "ces_comm_abort", ces_comm_abort(c));
            }
            t = wait_failed(c, job->timeout_ms + 20000);
            if (ces_comm_status(c) != CES_ERR_TIMEOUT) {
                printf("FAIL: rank 0 status %d, expected CES_ERR_TIMEOUT\n", ces_comm_status(c));
                return 1;
            }
            /* A timeout: after CES_TIMEOUT_MS, and within one more second;
             * an abort: at once. */
            {
                uint64_t lo = abort_mode ? 0 : job->timeout_ms * 9 / 10;
                uint64_t hi = abort_mode ? 1000 : job->timeout_ms + 1000;
                int in = t - t0 >= lo && t - t0 <= hi;

                printf("%s rank 0 failed after %" PRIu64 " ms (expected %" PRIu64 "..%" PRIu64
                       " ms)\n",
                       in ? "ok  " : "FAIL", t - t0, lo, hi);
                bad |= !in;
            }
            bad |= after_failure(ctx, c, s, a, b);
        } else {
            cudaStreamSynchronize(s);
        }
    }
    cudaStreamDestroy(s);
    /* (not over one shared hardware queue: a held stream holds every
     * stream of the process there, the communicator's too) */
    if (abort_mode && rank == 0 && !gpu_queues_shared())
        bad |= destroy_beside_held(c, job->timeout_ms);
    else
        ces_comm_destroy(c);
    ces_graph_destroy(g);
    ces_prog_destroy(prog);
    ces_ctx_destroy(ctx);
    if (rank == 0)
        bad |= leak_check(&cnt);
    return bad;
}

#define CKRT(what, expr)                                                                     \
    do {                                                                                     \
        cudaError_t e_ = (expr);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            printf("FAIL: %s: %s\n", what, cudaGetErrorString(e_));                          \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

/* Captures ces_launch of g (an alltoall when g is NULL) on stream s into x. */
static int capture(struct ces_ctx *ctx, struct ces_comm *c, cudaStream_t s,
                   const struct ces_graph *g, void *a, void *b, cudaGraphExec_t *x)
{
    cudaGraph_t graph = NULL;
    int rc;

    CKRT("begin capture", cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    if (g != NULL) {
        struct ces_binding bind[] = {{"b", a}};

        rc = ces_launch(c, g, bind, 1, s);
    } else {
        rc = ces_alltoall(c, a, b, 4096, s);
    }
    CKRT("end capture", cudaStreamEndCapture(s, &graph));
    CKR(ctx, "captured call", rc);
    CKRT("instantiate", cudaGraphInstantiate(x, graph, 0));
    cudaGraphDestroy(graph);
    return 0;
}

static int captured_rank(uint32_t rank, uint32_t n, const char *path, void *arg)
{
    struct fjob *job = arg;
    struct ces_ctx *ctx = NULL;
    struct ces_comm *c = NULL;
    struct ces_prog *prog = NULL;
    struct ces_graph *g = NULL;
    cudaGraphExec_t ok = NULL, bad_x = NULL;
    cudaStream_t s;
    void *a, *b;
    int bad = 0;
    struct counting cnt;

    if (rank == 0 && freopen(job->log, "w", stderr) == NULL)
        return 1;
    ctx_counting(&cnt, &ctx);
    CKR(ctx, "parse", ces_prog_parse(ctx, missing_ces, sizeof(missing_ces) - 1, "missing.ces", &prog));
    CKR(ctx, "expand", ces_prog_expand(ctx, prog, &g));
    CKR(ctx, "init", ces_comm_init(ctx, rank, n, device_of(job, rank), path, &c));
    cudaSetDevice(device_of(job, rank));
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    CKR(ctx, "alloc", ces_mem_alloc(c, 4096, &a));
    CKR(ctx, "alloc", ces_mem_alloc(c, 4096, &b));
    /* A healthy captured alltoall, replayed, then an idle communicator
     * holding captured work longer than CES_TIMEOUT_MS: no alarm. */
    if (capture(ctx, c, s, NULL, a, b, &ok))
        return 1;
    for (uint64_t k = 1; k <= 3; k++) {
        /* fresh send bytes and a cleared receive buffer for each replay */
        if (load(s, a, b, 4096, rank, k) != 0)
            return 1;
        CKRT("replay", cudaGraphLaunch(ok, s));
        if (expect_alltoall("after a replay of the captured alltoall", s, b, 4096, rank, n, k))
            return 1;
    }
    CKRT("sync", cudaStreamSynchronize(s));
    sleep_ms((unsigned)(job->timeout_ms * 3 / 2));
    if (ces_comm_status(c) != CES_OK) {
        printf("FAIL: rank %u: an idle communicator after captured replays failed (%s)\n", rank,
               ces_status_str(ces_comm_status(c)));
        return 1;
    }
    if (rank == 0)
        printf("ok   3 replays of a captured alltoall, every byte of each checked, then %" PRIu64
               " ms idle: no alarm\n",
               job->timeout_ms * 3 / 2);
    /* The schedule with the missing write, captured and replayed. */
    if (capture(ctx, c, s, g, a, NULL, &bad_x))
        return 1;
    {
        uint64_t t0 = gpu_now_ms(), t;

        CKRT("replay", cudaGraphLaunch(bad_x, s));
        if (rank == 0) {
            t = wait_failed(c, job->timeout_ms + 20000);
            if (ces_comm_status(c) != CES_ERR_TIMEOUT) {
                printf("FAIL: rank 0 status %d, expected CES_ERR_TIMEOUT\n", ces_comm_status(c));
                return 1;
            }
            {
                uint64_t lo = job->timeout_ms * 9 / 10, hi = job->timeout_ms + 1000;
                int in = t - t0 >= lo && t - t0 <= hi;

                printf("%s rank 0 failed %" PRIu64 " ms after the replay began (expected %" PRIu64
                       "..%" PRIu64 " ms)\n",
                       in ? "ok  " : "FAIL", t - t0, lo, hi);
                bad |= !in;
            }
            bad |= after_failure(ctx, c, s, a, b);
        } else {
            cudaStreamSynchronize(s);
        }
    }
    cudaGraphExecDestroy(bad_x);
    cudaGraphExecDestroy(ok);
    cudaStreamDestroy(s);
    ces_comm_destroy(c);
    ces_graph_destroy(g);
    ces_prog_destroy(prog);
    ces_ctx_destroy(ctx);
    if (rank == 0)
        bad |= leak_check(&cnt);
    return bad;
}

static int log_has(const char *log, const char *what)
{
    size_t len = 0;
    char *text = NULL;
    FILE *f = fopen(log, "r");
    int found;

    if (f == NULL)
        return 0;
    text = malloc(1 << 20);
    len = fread(text, 1, (1 << 20) - 1, f);
    text[len] = '\0';
    fclose(f);
    found = strstr(text, what) != NULL;
    if (!found)
        printf("FAIL: the diagnosis lacks \"%s\"; it was:\n%s\n", what, text);
    free(text);
    return found;
}

int main(int argc, char **argv)
{
    struct fjob job;
    char dir[CES_TEST_TMPDIR_SIZE];
    int gpus = gpu_count(), bad, killed[8] = {0, 1};
    uint32_t n;
    const char *to = getenv("CES_TIMEOUT_MS");

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        fprintf(stderr, "usage: test_gpu_fault kill [RANKS]|missing|abort|captured|flood|stalled|"
                        "sticky\n");
        return 2;
    }
    memset(&job, 0, sizeof(job));
    job.part = argv[1];
    job.gpus = (uint32_t)gpus;
    n = argc > 2 ? (uint32_t)atoi(argv[2]) : 2;
    if (n < 2 || n > 8 || (n > 2 && strcmp(job.part, "kill") != 0)) {
        printf("FAIL: %u ranks for %s (kill takes 2..8, the other parts 2)\n", n, job.part);
        return 2;
    }
    if (!gpu_ranks_fit(gpus, n))
        return GPU_SKIP;
    job.timeout_ms = to ? strtoull(to, NULL, 10) : 10000;
    {
        /* A page the ranks share: the killed rank stamps the kill time. */
        int fd = ces_test_tmpfile();

        if (fd < 0 || ftruncate(fd, 4096) != 0)
            return 1;
        job.sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (job.sh == MAP_FAILED)
            return 1;
    }
    /* rank 0's log in a directory of TMPDIR, removed at the end */
    if (ces_test_mkdtemp(dir, sizeof(dir)) != 0) {
        printf("FAIL: cannot make a directory in %s (TMPDIR, at most %d characters): %s\n",
               ces_test_tmp_base(), CES_TEST_TMP_BASE_MAX, strerror(errno));
        return 1;
    }
    snprintf(job.log, sizeof(job.log), "%s/rank0.log", dir);
    job.sh->kill_ms = 0;
    if (strcmp(job.part, "kill") == 0)
        bad = gpu_fork_ranks(n, kill_rank, &job, GPU_DEADLINE_S, killed);
    else if (strcmp(job.part, "captured") == 0)
        bad = gpu_fork_ranks(2, captured_rank, &job, GPU_DEADLINE_S, NULL);
    else if (strcmp(job.part, "flood") == 0)
        bad = gpu_fork_ranks(2, flood_rank, &job, GPU_DEADLINE_S, NULL);
    else if (strcmp(job.part, "stalled") == 0)
        bad = gpu_fork_ranks(2, stalled_rank, &job, GPU_DEADLINE_S, NULL);
    else if (strcmp(job.part, "sticky") == 0)
        bad = gpu_fork_ranks(2, sticky_rank, &job, GPU_DEADLINE_S, NULL);
    else
        bad = gpu_fork_ranks(2, missing_rank, &job, GPU_DEADLINE_S, NULL);
    if (strcmp(job.part, "kill") == 0 || strcmp(job.part, "flood") == 0) {
        bad |= !log_has(job.log, "cesync: watchdog: rank 0 (device 0)");
        /* among more than 2 ranks the other survivors' watchdogs may have
         * released rank 0's waits before it reads them, or told it of the
         * failure first: its diagnosis still names the blocked call */
        bad |= !log_has(job.log, n > 2 ? "blocked in alltoall call" : "BLOCKED");
        bad |= !log_has(job.log, "rank 1 last progress");
    } else if (strcmp(job.part, "stalled") == 0) {
        /* with shared queues no message goes the side way: the 4th send
         * waits on the caller's stream for the slot of the 5th */
        const char *q = getenv("CUDA_DEVICE_MAX_CONNECTIONS");

        bad |= !log_has(job.log, q != NULL && strcmp(q, "1") == 0 ? "blocked in group call 4"
                                                                  : "blocked in group call 5");
        bad |= !log_has(job.log, "wait credit[2]@0 >= 2: slot holds 1 (BLOCKED)");
    } else if (strcmp(job.part, "sticky") == 0) {
        /* where the range starts depends on when the words were last
         * copied; it ends at the 11th call, the last one issued */
        bad |= !log_has(job.log, "the progress words cannot be read: ");
        bad |= !log_has(job.log, "(the progress words could not be read: where a stream stopped "
                                 "is known only from their last copy on)");
        bad |= !log_has(job.log, "alltoall call 11 (its word's last copy said ");
    } else if (strcmp(job.part, "missing") == 0) {
        bad |= !log_has(job.log, "blocked in launch call 2");
        bad |= !log_has(job.log, "r0.s0#6 wait f[0]@0 >= 1: slot holds 0 (BLOCKED)");
    } else if (strcmp(job.part, "captured") == 0) {
        bad |= !log_has(job.log, "in captured work (CES_TIMEOUT_MS=");
        bad |= !log_has(job.log, "): blocked in launch call 2 (captured, replayed from a CUDA "
                                 "graph; record ");
        bad |= !log_has(job.log, "r0.s0#6 wait f[0]@0 >= 1: slot holds 0 (BLOCKED)");
        bad |= !log_has(job.log, "releasing the blocked waits");
    } else {
        bad |= !log_has(job.log, "aborted by ces_comm_abort");
    }
    {
        /* one queue per GPU: the watchdog works through its own context */
        const char *q = getenv("CUDA_DEVICE_MAX_CONNECTIONS");

        if (q != NULL && strcmp(q, "1") == 0)
            bad |= !log_has(job.log, "reads and releases through a CUDA context of its own "
                                     "(CUDA_DEVICE_MAX_CONNECTIONS=1: the streams share hardware "
                                     "queues)");
    }
    {
        FILE *f = fopen(job.log, "r");
        char line[512];

        printf("--- rank 0 diagnosis ---\n");
        while (f != NULL && fgets(line, sizeof(line), f) != NULL)
            fputs(line, stdout);
        if (f != NULL)
            fclose(f);
    }
    ces_test_remove_tree(dir);
    printf("%s\n", bad ? "FAILED" : "PASSED");
    return bad;
}
