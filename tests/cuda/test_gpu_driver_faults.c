/*
 * tests/cuda/test_gpu_driver_faults.c - every CUDA driver call of a run
 * failed in turn, on real GPUs.
 *
 * The run: ces_comm_init_all of 2 ranks, one ces_mem_alloc per rank, an
 * eager ces_alltoall (64 KiB per rank), an eager ces_allgather (64 KiB per
 * rank), a ring of ces_send/ces_recv in a group (64 KiB) and ces_launch of
 * the credit allgather builder's graph (64 KiB per rank), every received
 * byte checked, ces_mem_free, ces_comm_destroy.
 * Every entry of the driver table (cu_api.h) is replaced by a shim that
 * calls through and counts: the calls of the thread that drives the ranks
 * (numbered K = 1, 2, ...), the calls of other threads (the watchdogs:
 * counted, never failed, their order is not deterministic), and the
 * resources that succeeded calls make and release.
 *
 * A count pass (a child process) runs it without a failure: N calls, every
 * byte right, every resource released, device memory back where it was.
 * Then for each K (all of them, or a stride of them that fits the time
 * budget, always including the first call of each function in each phase
 * and rank) a fresh child fails the K-th call - named by its function and
 * its index among that function's calls, which stays put when a polling
 * call like cuStreamQuery is made more or fewer times - with
 * CUDA_ERROR_OUT_OF_MEMORY where it makes something, CUDA_ERROR_UNKNOWN
 * otherwise, and checks what cesync.h and docs/API.md promise:
 *  - the API call during which it failed returns an error, or returns
 *    CES_OK having ignored it (a query) and then everything else must work;
 *  - a collective, group or launch that failed (but a refusal every rank
 *    makes alike: CES_ERR_INVALID, _UNSUPPORTED, _LIMIT) must have failed
 *    its communicator when it returns (a group: any rank's);
 *  - after an error the test stops issuing, waits for its streams (a peer
 *    left waiting is released by the watchdog, which fails the
 *    communicators, within CES_TIMEOUT_MS; a failed rank's peers fail too),
 *    and destroys what it made; no
 *    stream may stay busy without a failed communicator, no byte may be
 *    wrong on a rank whose call returned CES_OK and whose communicator is
 *    healthy, and every ces_comm_destroy returns within CES_TIMEOUT_MS + 1 s
 *    (+ 2 s slack);
 *  - a failure before any collective (init, alloc), or one after which no
 *    communicator failed, leaves every resource released and the device's
 *    free memory back within 2 MiB; a failed communicator may keep its
 *    watchdog words (one cuMemAlloc, one cuMemHostAlloc: comm.c,
 *    words_free), and one whose destroy returned CES_ERR_TIMEOUT its
 *    memory; a failure inside ces_mem_free or ces_comm_destroy (which
 *    report none) must neither crash nor hang, and what it leaves behind is
 *    printed.
 * A child that crashes, or runs past its deadline (hangs), fails the test.
 * The parent never initializes CUDA (it forks); each child is a fresh
 * process.  Output: one line per K (what was failed, in which phase and
 * rank, what the library said), the child's log under a failing line.
 *
 * Environment: CES_TIMEOUT_MS (the watchdog; ctest sets 2000),
 * CES_DRV_K=A or A-B (only those K), CES_DRV_STRIDE=S (every S-th K;
 * default: chosen from the count pass to fit the budget),
 * CES_DRV_BUDGET_S (default 90; 0: no limit), CES_DRV_CHILD_S (a child's
 * deadline; default 4 * CES_TIMEOUT_MS + 12 s), CES_DRV_WARMUP=0 (no
 * unwatched run before the watched one, which settles the driver's lazy
 * allocations before free memory is measured), CES_DRV_VERBOSE=1 (every
 * child's log).  2 ranks, on 2 GPUs, or on one with CES_SHARE_GPUS=1.
 * Exits 0 pass, 1 fail, 77 skipped (no GPU).
 */
#include "ces_test.h" /* the tests' TMPDIR */
#include "gpu_util.h"

#include "cu_api.h"

#include <cuda_runtime.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NR 2                 /* ranks, all in the child (ces_comm_init_all) */
#define A2A_B (64u << 10)    /* alltoall bytes per rank */
#define AG_B (64u << 10)     /* allgather bytes per rank (recv: NR times) */
/* one symmetric allocation per rank holds the six buffers: the alltoall's,
 * the allgather's, the group's receive (the allgather's send goes round the
 * ring) and the launched allgather's recv (from the same send) */
#define OFF_SEND 0u
#define OFF_RECV (OFF_SEND + A2A_B)
#define OFF_AGSEND (OFF_RECV + A2A_B)
#define OFF_AGRECV (OFF_AGSEND + AG_B)
#define OFF_P2PRECV (OFF_AGRECV + NR * AG_B)
#define OFF_LRECV (OFF_P2PRECV + AG_B)
#define BUF_BYTES (OFF_LRECV + NR * AG_B)
#define NCOLL 4              /* alltoall, allgather, group, launch: each checked */
#define MAXSEQ (1u << 16)    /* K recorded by the count pass */
#define MEM_TOL ((long long)2 << 20)

/* --- the functions and what they make ------------------------------------ */

enum fn_id {
#define X_(name) F_##name,
    CES_CU_FUNCS(X_)
#undef X_
    F_COUNT
};

static const char *const fn_names[F_COUNT] = {
#define X_(name) #name,
    CES_CU_FUNCS(X_)
#undef X_
};

enum res { R_NONE, R_HANDLE, R_MAP, R_VA, R_STREAM, R_EVENT, R_DMEM, R_HMEM, R_CTX, R_PRIMARY,
           R_COUNT };

static const char *const res_names[R_COUNT] = {
    "", "memory handles", "mappings", "address ranges", "streams", "events",
    "device allocations", "pinned host allocations", "contexts", "primary context retains",
};

struct role {
    enum res r;
    int sign; /* +1 makes one, -1 releases one */
};

static struct role role_of(int f)
{
    switch (f) {
    case F_cuMemCreate: case F_cuMemImportFromShareableHandle: return (struct role){R_HANDLE, 1};
    case F_cuMemRelease: return (struct role){R_HANDLE, -1};
    case F_cuMemMap: return (struct role){R_MAP, 1};
    case F_cuMemUnmap: return (struct role){R_MAP, -1};
    case F_cuMemAddressReserve: return (struct role){R_VA, 1};
    case F_cuMemAddressFree: return (struct role){R_VA, -1};
    case F_cuStreamCreate: case F_cuStreamCreateWithPriority: return (struct role){R_STREAM, 1};
    case F_cuStreamDestroy: return (struct role){R_STREAM, -1};
    case F_cuEventCreate: return (struct role){R_EVENT, 1};
    case F_cuEventDestroy: return (struct role){R_EVENT, -1};
    case F_cuMemAlloc: return (struct role){R_DMEM, 1};
    case F_cuMemFree: return (struct role){R_DMEM, -1};
    case F_cuMemHostAlloc: return (struct role){R_HMEM, 1};
    case F_cuMemFreeHost: return (struct role){R_HMEM, -1};
    case F_cuCtxCreate: return (struct role){R_CTX, 1};
    case F_cuCtxDestroy: return (struct role){R_CTX, -1};
    case F_cuDevicePrimaryCtxRetain: return (struct role){R_PRIMARY, 1};
    case F_cuDevicePrimaryCtxRelease: return (struct role){R_PRIMARY, -1};
    default: return (struct role){R_NONE, 0};
    }
}

/* The refusals every rank makes alike (arguments, what the machine lacks),
 * which leave a communicator healthy (docs/API.md). */
static int refused_alike(int rc)
{
    return rc == CES_ERR_INVALID || rc == CES_ERR_UNSUPPORTED || rc == CES_ERR_LIMIT ||
           rc == CES_ERR_SEMANTIC || rc == CES_ERR_PARSE;
}

static CUresult injected_error(int f)
{
    return role_of(f).sign > 0 ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_UNKNOWN;
}

/* --- phases --------------------------------------------------------------- */

enum phase { PH_NONE, PH_INIT, PH_ALLOC, PH_ALLTOALL, PH_ALLGATHER, PH_GROUP, PH_LAUNCH,
             PH_FREE, PH_DESTROY,
             PH_COUNT };

static const char *const phase_names[PH_COUNT] = {
    "test", "init", "alloc", "alltoall", "allgather", "group", "launch", "free", "destroy",
};

static const char *const phase_calls[PH_COUNT] = {
    "the test", "ces_comm_init_all", "ces_mem_alloc", "ces_alltoall", "ces_allgather",
    "ces_group_end", "ces_launch", "ces_mem_free", "ces_comm_destroy",
};

/* --- what the children tell the parent (shared memory) -------------------- */

struct call_rec {
    uint8_t fn, phase;
    int8_t rank;  /* -1: the call is of every rank (init) */
    uint32_t idx; /* its index among the calls of its function, from 1 */
};

struct shared {
    /* the count pass */
    uint32_t n;                 /* K recorded, at most MAXSEQ */
    uint32_t total;             /* calls of the driving thread */
    uint32_t by_phase[PH_COUNT];
    uint32_t by_fn[F_COUNT];
    long other;                 /* calls of other threads */
    struct call_rec seq[MAXSEQ];
    /* every child */
    int hit;                    /* the failure was injected */
    uint32_t hit_k;
    uint8_t hit_phase;
    int8_t hit_rank;
    uint32_t fn_made;           /* calls made to the function to fail */
    char msg[2048];
};

static struct shared *sh;

/* --- the shims (child) ----------------------------------------------------- */

static struct ces_cu_api real;
static atomic_int counting;        /* 0 in the warm-up run */
static pthread_t driver;           /* the thread whose calls are numbered */
static atomic_long other_calls;
static uint32_t calls, fn_calls[F_COUNT];
static int cur_phase, cur_rank = -1;
static int inject_fn = -1;
static uint32_t inject_idx;
static atomic_long made[R_COUNT], freed[R_COUNT], refused[F_COUNT];

static void set_phase(int ph, int rank)
{
    cur_phase = ph;
    cur_rank = rank;
}

/* Numbers a call; 1 if it is the one to fail. */
static int shim_enter(int f)
{
    if (!atomic_load(&counting))
        return 0;
    if (!pthread_equal(pthread_self(), driver)) {
        atomic_fetch_add(&other_calls, 1);
        return 0;
    }
    calls++;
    fn_calls[f]++;
    if (inject_fn < 0) {
        if (calls <= MAXSEQ) {
            struct call_rec *c = &sh->seq[calls - 1];

            c->fn = (uint8_t)f;
            c->phase = (uint8_t)cur_phase;
            c->rank = (int8_t)cur_rank;
            c->idx = fn_calls[f];
            sh->n = calls;
        }
        sh->total = calls;
        sh->by_phase[cur_phase]++;
        sh->by_fn[f]++;
    }
    if (f == inject_fn && fn_calls[f] == inject_idx && !sh->hit) {
        sh->hit = 1;
        sh->hit_k = calls;
        sh->hit_phase = (uint8_t)cur_phase;
        sh->hit_rank = (int8_t)cur_rank;
        return 1;
    }
    return 0;
}

/* Counts what a call made or released (any thread). */
static void shim_leave(int f, CUresult r)
{
    struct role ro = role_of(f);

    if (ro.r == R_NONE || !atomic_load(&counting))
        return;
    if (r != CUDA_SUCCESS)
        atomic_fetch_add(&refused[f], 1);
    else
        atomic_fetch_add(ro.sign > 0 ? &made[ro.r] : &freed[ro.r], 1);
}

#define SHIM(name, params, args)                \
    static CUresult CUDAAPI shim_##name params \
    {                                           \
        CUresult r_;                            \
        if (shim_enter(F_##name))               \
            return injected_error(F_##name);    \
        r_ = real.p_##name args;                \
        shim_leave(F_##name, r_);               \
        return r_;                              \
    }

SHIM(cuCtxCreate, (CUcontext *a, CUctxCreateParams *b, unsigned int c, CUdevice d), (a, b, c, d))
SHIM(cuCtxDestroy, (CUcontext a), (a))
SHIM(cuCtxGetStreamPriorityRange, (int *a, int *b), (a, b))
SHIM(cuCtxPopCurrent, (CUcontext *a), (a))
SHIM(cuCtxSetCurrent, (CUcontext a), (a))
SHIM(cuCtxSynchronize, (void), ())
SHIM(cuDeviceCanAccessPeer, (int *a, CUdevice b, CUdevice c), (a, b, c))
SHIM(cuDeviceGet, (CUdevice *a, int b), (a, b))
SHIM(cuDeviceGetAttribute, (int *a, CUdevice_attribute b, CUdevice c), (a, b, c))
SHIM(cuDeviceGetCount, (int *a), (a))
SHIM(cuDeviceGetName, (char *a, int b, CUdevice c), (a, b, c))
SHIM(cuDeviceGetP2PAttribute, (int *a, CUdevice_P2PAttribute b, CUdevice c, CUdevice d),
     (a, b, c, d))
SHIM(cuDeviceGetPCIBusId, (char *a, int b, CUdevice c), (a, b, c))
SHIM(cuDevicePrimaryCtxRelease, (CUdevice a), (a))
SHIM(cuDevicePrimaryCtxRetain, (CUcontext *a, CUdevice b), (a, b))
SHIM(cuDeviceTotalMem, (size_t *a, CUdevice b), (a, b))
SHIM(cuEventCreate, (CUevent *a, unsigned int b), (a, b))
SHIM(cuEventDestroy, (CUevent a), (a))
SHIM(cuEventRecord, (CUevent a, CUstream b), (a, b))
SHIM(cuInit, (unsigned int a), (a))
SHIM(cuMemAddressFree, (CUdeviceptr a, size_t b), (a, b))
SHIM(cuMemAddressReserve,
     (CUdeviceptr *a, size_t b, size_t c, CUdeviceptr d, unsigned long long e), (a, b, c, d, e))
SHIM(cuMemAlloc, (CUdeviceptr *a, size_t b), (a, b))
SHIM(cuMemCreate,
     (CUmemGenericAllocationHandle *a, size_t b, const CUmemAllocationProp *c,
      unsigned long long d),
     (a, b, c, d))
SHIM(cuMemExportToShareableHandle,
     (void *a, CUmemGenericAllocationHandle b, CUmemAllocationHandleType c, unsigned long long d),
     (a, b, c, d))
SHIM(cuMemFree, (CUdeviceptr a), (a))
SHIM(cuMemGetAllocationGranularity,
     (size_t *a, const CUmemAllocationProp *b, CUmemAllocationGranularity_flags c), (a, b, c))
SHIM(cuMemFreeHost, (void *a), (a))
SHIM(cuMemHostAlloc, (void **a, size_t b, unsigned int c), (a, b, c))
SHIM(cuMemHostGetDevicePointer, (CUdeviceptr *a, void *b, unsigned int c), (a, b, c))
SHIM(cuMemImportFromShareableHandle,
     (CUmemGenericAllocationHandle *a, void *b, CUmemAllocationHandleType c), (a, b, c))
SHIM(cuMemMap,
     (CUdeviceptr a, size_t b, size_t c, CUmemGenericAllocationHandle d, unsigned long long e),
     (a, b, c, d, e))
SHIM(cuMemRelease, (CUmemGenericAllocationHandle a), (a))
SHIM(cuMemSetAccess, (CUdeviceptr a, size_t b, const CUmemAccessDesc *c, size_t d), (a, b, c, d))
SHIM(cuMemUnmap, (CUdeviceptr a, size_t b), (a, b))
SHIM(cuMemcpyDtoHAsync, (void *a, CUdeviceptr b, size_t c, CUstream d), (a, b, c, d))
SHIM(cuMemsetD8Async, (CUdeviceptr a, unsigned char b, size_t c, CUstream d), (a, b, c, d))
SHIM(cuStreamBatchMemOp,
     (CUstream a, unsigned int b, CUstreamBatchMemOpParams *c, unsigned int d), (a, b, c, d))
SHIM(cuStreamCreate, (CUstream *a, unsigned int b), (a, b))
SHIM(cuStreamCreateWithPriority, (CUstream *a, unsigned int b, int c), (a, b, c))
SHIM(cuStreamDestroy, (CUstream a), (a))
SHIM(cuStreamQuery, (CUstream a), (a))
SHIM(cuStreamSynchronize, (CUstream a), (a))
SHIM(cuStreamWaitEvent, (CUstream a, CUevent b, unsigned int c), (a, b, c))
SHIM(cuStreamWriteValue32, (CUstream a, CUdeviceptr b, cuuint32_t c, unsigned int d),
     (a, b, c, d))
SHIM(cuStreamWriteValue64, (CUstream a, CUdeviceptr b, cuuint64_t c, unsigned int d),
     (a, b, c, d))

/* The error texts: called only to word an error, never failed or counted. */
static CUresult CUDAAPI shim_cuGetErrorName(CUresult e, const char **s)
{
    return real.p_cuGetErrorName(e, s);
}

static CUresult CUDAAPI shim_cuGetErrorString(CUresult e, const char **s)
{
    return real.p_cuGetErrorString(e, s);
}

static void shims_install(void)
{
    /* The table is a plain static object of cu_api.c that ces_cu() hands
     * out read-only; the test writes it, as test_comm.c does. */
    struct ces_cu_api *t = (struct ces_cu_api *)ces_cu();

    real = *t;
#define X_(name) t->p_##name = shim_##name;
    CES_CU_FUNCS(X_)
#undef X_
}

/* --- the run (child) ------------------------------------------------------- */

static int gpus;       /* found by the parent */
static uint32_t expect_k; /* the K to fail, as the count pass numbered it */
static uint64_t tmo;   /* CES_TIMEOUT_MS */

struct run {
    struct ces_ctx *ctx;
    struct ces_comm *comms[NR];
    cudaStream_t s[NR];
    int dev[NR];
    uint8_t *buf[NR];
    uint8_t *host;
    struct ces_graph *launched; /* the allgather that ces_launch runs */
};

struct outcome {
    int api_phase, api_rank, api_rc; /* the first API call that failed (PH_NONE: none) */
    char api_err[400];
    int setup;              /* a CUDA runtime call of the test's own failed */
    char setup_err[200];
    int wrong;              /* bytes wrong where the call and the communicator said OK */
    int busy;               /* a stream still busy when the test stopped waiting */
    int busy_after;         /* ... after every ces_comm_destroy */
    int dev_err;            /* a stream reported an error */
    char dev_err_text[120];
    int failed;             /* communicators failed before ces_comm_destroy */
    int healthy;            /* a call failed (but a refusal alike), and its
                             * communicator stayed healthy */
    int unchecked;          /* ranks whose call returned CES_OK, not checked (failed) */
    int checked;            /* ranks' bytes checked and right */
    int destroy_rc[NR];
    uint64_t destroy_ms[NR];
    char destroy_err[300];
};

static void api_fail(struct outcome *o, struct run *R, int ph, int rank, int rc)
{
    if (o->api_phase != PH_NONE)
        return;
    o->api_phase = ph;
    o->api_rank = rank;
    o->api_rc = rc;
    snprintf(o->api_err, sizeof(o->api_err), "%s", ces_ctx_last_error(R->ctx));
}

static int setup_fail(struct outcome *o, const char *what, cudaError_t e)
{
    if (!o->setup)
        snprintf(o->setup_err, sizeof(o->setup_err), "%s: %s", what, cudaGetErrorString(e));
    o->setup = 1;
    printf("FAIL: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

/* Waits at most ms for the ranks' streams to go idle; 1 if they did.  A
 * stream that reports an error counts as idle, the error kept. */
static int settle(struct run *R, struct outcome *o, uint64_t ms, int *idle)
{
    uint64_t end = gpu_now_ms() + ms;
    int all;

    for (;;) {
        all = 1;
        for (uint32_t r = 0; r < NR; r++) {
            cudaError_t e;

            cudaSetDevice(R->dev[r]);
            e = cudaStreamQuery(R->s[r]);
            idle[r] = e != cudaErrorNotReady;
            all &= idle[r];
            if (e != cudaSuccess && e != cudaErrorNotReady && !o->dev_err) {
                o->dev_err = 1;
                snprintf(o->dev_err_text, sizeof(o->dev_err_text), "rank %u's stream: %s", r,
                         cudaGetErrorName(e));
            }
        }
        if (all || gpu_now_ms() >= end)
            return all;
        {
            struct timespec ts = {0, 2000000L};

            nanosleep(&ts, NULL);
        }
    }
}

/* Rank r's received bytes of collective ph: 0 if right. */
static int verify(struct run *R, struct outcome *o, int ph, uint32_t r)
{
    uint32_t off = ph == PH_ALLTOALL ? OFF_RECV
                   : ph == PH_GROUP  ? OFF_P2PRECV
                   : ph == PH_LAUNCH ? OFF_LRECV
                                     : OFF_AGRECV;
    uint32_t len = ph == PH_ALLTOALL ? A2A_B : ph == PH_GROUP ? AG_B : NR * AG_B;
    char what[64];
    cudaError_t e;
    int bad = 0;

    cudaSetDevice(R->dev[r]);
    e = cudaMemcpy(R->host, R->buf[r] + off, len, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        return setup_fail(o, "read back", e);
    if (ph == PH_GROUP) { /* the ring: rank r - 1's allgather send */
        uint32_t from = (r + NR - 1) % NR;

        snprintf(what, sizeof(what), "group rank %u, from rank %u", r, from);
        return gpu_expect(what, R->host, AG_B, from, 1, 0, 2);
    }
    for (uint32_t p = 0; p < NR && !bad; p++) {
        snprintf(what, sizeof(what), "%s rank %u, block of rank %u", phase_names[ph], r, p);
        if (ph == PH_ALLTOALL) /* chunk p: chunk r of rank p's send */
            bad = gpu_expect(what, R->host + p * (A2A_B / NR), A2A_B / NR, p, 0,
                             (uint64_t)r * (A2A_B / NR), 1);
        else
            bad = gpu_expect(what, R->host + p * AG_B, AG_B, p, 1, 0, 2);
    }
    return bad;
}

/* Waits at most ms until a failure reached every rank (the peers see a
 * failed rank and fail too); the number of communicators failed. */
static int spread(struct run *R, uint64_t ms)
{
    uint64_t t0 = gpu_now_ms();
    int n;

    for (;;) {
        n = 0;
        for (uint32_t r = 0; r < NR; r++)
            n += R->comms[r] != NULL && ces_comm_status(R->comms[r]) != CES_OK;
        if (n == 0 || n == NR || gpu_now_ms() - t0 > ms)
            return n;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
}

/* One collective on every rank in turn, stopping at the first error; then
 * the streams waited for and the bytes checked of every rank whose call
 * returned CES_OK and whose communicator is healthy.  0 if it all went
 * well (the run goes on). */
static int coll(struct run *R, struct outcome *o, int ph)
{
    int ok[NR] = {0}, idle[NR], rc = CES_OK, sick = 0;

    for (uint32_t r = 0; r < NR; r++) {
        uint8_t *b = R->buf[r];

        set_phase(ph, (int)r);
        if (ph == PH_ALLTOALL) {
            rc = ces_alltoall(R->comms[r], b + OFF_SEND, b + OFF_RECV, A2A_B, R->s[r]);
        } else if (ph == PH_ALLGATHER) {
            rc = ces_allgather(R->comms[r], b + OFF_AGSEND, b + OFF_AGRECV, AG_B, R->s[r]);
        } else if (ph == PH_GROUP) {
            /* a ring; one process: the last rank's ces_group_end enqueues
             * every rank's part */
            rc = ces_group_start(R->comms[r]);
            if (rc == CES_OK)
                rc = ces_send(R->comms[r], b + OFF_AGSEND, AG_B, (r + 1) % NR);
            if (rc == CES_OK)
                rc = ces_recv(R->comms[r], b + OFF_P2PRECV, AG_B, (r + NR - 1) % NR);
            if (rc == CES_OK)
                rc = ces_group_end(R->comms[r], R->s[r]);
        } else {
            struct ces_binding bind[] = {{"send", b + OFF_AGSEND}, {"recv", b + OFF_LRECV}};

            rc = ces_launch(R->comms[r], R->launched, bind, 2, R->s[r]);
        }
        set_phase(PH_NONE, -1);
        if (rc != CES_OK) {
            api_fail(o, R, ph, (int)r, rc);
            printf("%s on rank %u: %s: %s\n", phase_calls[ph], r, ces_status_str(rc),
                   ces_ctx_last_error(R->ctx));
            /* but a refusal alike, a failed call fails its communicator (its
             * peers may wait for its part; a group's: any rank's, the one
             * whose part failed) */
            if (sh->hit && sh->hit_phase == ph && !refused_alike(rc) &&
                (ph == PH_GROUP ? spread(R, 0) == 0 : ces_comm_status(R->comms[r]) == CES_OK))
                o->healthy = 1;
            break;
        }
        ok[r] = 1;
    }
    /* A rank left waiting for a peer that stopped is released by the
     * watchdog within CES_TIMEOUT_MS. */
    if (!settle(R, o, tmo + 3000, idle)) {
        o->busy = 1;
        printf("a stream is still busy %" PRIu64 " ms after %s\n", tmo + 3000, phase_calls[ph]);
    }
    /* a rank whose call failed fails its peers too (their calls returned
     * CES_OK, but the collective is broken): judged once they know */
    if (rc != CES_OK)
        spread(R, tmo + 1000);
    for (uint32_t r = 0; r < NR; r++) {
        int st = ces_comm_status(R->comms[r]);

        sick |= st != CES_OK || !idle[r];
        if (!ok[r])
            continue;
        if (st != CES_OK || !idle[r]) {
            printf("rank %u: %s returned CES_OK, then its communicator failed (%s)%s\n", r,
                   phase_calls[ph], ces_status_str(st), idle[r] ? "" : "; its stream is busy");
            o->unchecked++;
            continue;
        }
        if (verify(R, o, ph, r) != 0) {
            if (!o->setup)
                o->wrong = 1;
        } else {
            o->checked++;
        }
    }
    return rc != CES_OK || sick || o->wrong || o->setup;
}

/* The run.  Every failure is recorded in *o; what was made is destroyed. */
static void run_once(struct run *R, struct outcome *o)
{
    int idle[NR], rc;
    cudaError_t e;

    memset(o, 0, sizeof(*o));
    o->api_phase = PH_NONE;
    memset(R->comms, 0, sizeof(R->comms));
    memset(R->buf, 0, sizeof(R->buf));
    if (ces_ctx_create(NULL, &R->ctx) != CES_OK) {
        o->setup = 1;
        snprintf(o->setup_err, sizeof(o->setup_err), "ces_ctx_create failed");
        return;
    }
    {
        /* what ces_launch runs: the credit allgather, one eager iteration
         * (its signal arrays unbound: the communicator allocates them) */
        struct ces_coll_params p;

        ces_coll_params_init(&p, CES_COLL_ALLGATHER);
        p.proto = CES_PROTO_CREDIT;
        p.phase = CES_PHASE_EAGER;
        p.iterations = 1;
        p.ranks = NR;
        p.bytes = AG_B;
        R->launched = NULL;
        if (ces_coll_build(R->ctx, &p, &R->launched) != CES_OK) {
            o->setup = 1;
            snprintf(o->setup_err, sizeof(o->setup_err), "ces_coll_build: %s",
                     ces_ctx_last_error(R->ctx));
            ces_ctx_destroy(R->ctx);
            R->ctx = NULL;
            return;
        }
    }
    set_phase(PH_INIT, -1);
    rc = ces_comm_init_all(R->ctx, NR, NULL, R->comms);
    set_phase(PH_NONE, -1);
    if (rc != CES_OK) {
        api_fail(o, R, PH_INIT, -1, rc);
        printf("ces_comm_init_all: %s: %s\n", ces_status_str(rc), ces_ctx_last_error(R->ctx));
        goto destroy;
    }
    for (uint32_t r = 0; r < NR; r++) {
        void *p = NULL;

        set_phase(PH_ALLOC, (int)r);
        rc = ces_mem_alloc(R->comms[r], BUF_BYTES, &p);
        set_phase(PH_NONE, -1);
        if (rc != CES_OK) {
            api_fail(o, R, PH_ALLOC, (int)r, rc);
            printf("ces_mem_alloc on rank %u: %s: %s\n", r, ces_status_str(rc),
                   ces_ctx_last_error(R->ctx));
            goto free;
        }
        R->buf[r] = p;
    }
    for (uint32_t r = 0; r < NR; r++) {
        uint8_t *b = R->buf[r];

        cudaSetDevice(R->dev[r]);
        gpu_fill(R->host, A2A_B, r, 0, 0, 1);
        gpu_fill(R->host + A2A_B, AG_B, r, 1, 0, 2);
        if ((e = cudaMemcpyAsync(b + OFF_SEND, R->host, A2A_B, cudaMemcpyHostToDevice,
                                 R->s[r])) != cudaSuccess ||
            (e = cudaMemcpyAsync(b + OFF_AGSEND, R->host + A2A_B, AG_B, cudaMemcpyHostToDevice,
                                 R->s[r])) != cudaSuccess ||
            (e = cudaMemsetAsync(b + OFF_RECV, 0xee, A2A_B, R->s[r])) != cudaSuccess ||
            (e = cudaMemsetAsync(b + OFF_AGRECV, 0xee, NR * AG_B, R->s[r])) != cudaSuccess ||
            (e = cudaMemsetAsync(b + OFF_P2PRECV, 0xee, AG_B + NR * AG_B, R->s[r])) !=
                cudaSuccess ||
            (e = cudaStreamSynchronize(R->s[r])) != cudaSuccess) {
            setup_fail(o, "fill", e);
            goto free;
        }
    }
    if (coll(R, o, PH_ALLTOALL) == 0 && coll(R, o, PH_ALLGATHER) == 0 && coll(R, o, PH_GROUP) == 0)
        coll(R, o, PH_LAUNCH);
free:
    for (uint32_t r = 0; r < NR; r++) {
        if (R->buf[r] == NULL)
            continue;
        set_phase(PH_FREE, (int)r);
        rc = ces_mem_free(R->comms[r], R->buf[r]);
        set_phase(PH_NONE, -1);
        if (rc != CES_OK)
            printf("ces_mem_free on rank %u: %s (%s)\n", r, ces_status_str(rc),
                   ces_comm_status(R->comms[r]) != CES_OK ? "failed communicator"
                                                          : ces_ctx_last_error(R->ctx));
    }
destroy:
    o->failed = spread(R, tmo + 1000);
    for (uint32_t r = 0; r < NR; r++) {
        uint64_t t0 = gpu_now_ms();

        set_phase(PH_DESTROY, (int)r);
        o->destroy_rc[r] = ces_comm_destroy(R->comms[r]);
        set_phase(PH_NONE, -1);
        o->destroy_ms[r] = gpu_now_ms() - t0;
        if (o->destroy_rc[r] != CES_OK) {
            printf("ces_comm_destroy on rank %u: %s after %" PRIu64 " ms: %s\n", r,
                   ces_status_str(o->destroy_rc[r]), o->destroy_ms[r], ces_ctx_last_error(R->ctx));
            if (o->destroy_err[0] == '\0')
                snprintf(o->destroy_err, sizeof(o->destroy_err), "%s", ces_ctx_last_error(R->ctx));
        }
    }
    /* No fault on the device after the memory was unmapped. */
    o->busy_after = !settle(R, o, 1000, idle);
    ces_graph_destroy(R->launched);
    R->launched = NULL;
    ces_ctx_destroy(R->ctx);
    R->ctx = NULL;
}

/* Free device memory of the GPUs the ranks use, in bytes. */
static long long free_mem(struct run *R)
{
    long long sum = 0;

    for (uint32_t r = 0; r < NR; r++) {
        size_t fr = 0, tot = 0;
        int seen = 0;

        for (uint32_t q = 0; q < r; q++)
            seen |= R->dev[q] == R->dev[r];
        if (seen)
            continue;
        cudaSetDevice(R->dev[r]);
        if (cudaMemGetInfo(&fr, &tot) != cudaSuccess)
            return -1;
        sum += (long long)fr;
    }
    return sum;
}

static void say(const char *fmt, ...)
{
    size_t len = strlen(sh->msg);
    va_list ap;

    if (len + 1 >= sizeof(sh->msg))
        return;
    va_start(ap, fmt);
    vsnprintf(sh->msg + len, sizeof(sh->msg) - len, fmt, ap);
    va_end(ap);
}

/* The verdict on a run: its message in sh->msg; 0 pass, 1 fail. */
static int judge(const struct outcome *o, long long mem_diff)
{
    int bad = 0, ph = sh->hit ? sh->hit_phase : PH_NONE, rank = sh->hit ? sh->hit_rank : -1;
    int coll_ph = ph >= PH_ALLTOALL && ph <= PH_LAUNCH;
    int timeout = 0, strict, memcheck;
    long allow;

    if (!sh->hit && inject_fn >= 0)
        say("(not reached: %s made %" PRIu32 " calls) ", fn_names[inject_fn], sh->fn_made);
    if (sh->hit) {
        say("(%s", phase_names[ph]);
        if (rank >= 0)
            say(" r%d", rank);
        if (sh->hit_k != expect_k) /* a polling call made more or fewer times before */
            say(" at K=%" PRIu32, sh->hit_k);
        say(") ");
    }
    /* (a) who said it */
    if (o->setup) {
        say("FAIL: the test's own CUDA call failed: %s; ", o->setup_err);
        bad = 1;
    }
    if (!sh->hit || ph == PH_NONE) {
        if (o->api_phase != PH_NONE) {
            say("FAIL: %s failed with no failure injected in it: %s; ",
                phase_calls[o->api_phase], o->api_err);
            bad = 1;
        } else {
            say("no error; ");
        }
    } else if (ph == PH_FREE || ph == PH_DESTROY) {
        if (o->api_phase != PH_NONE) {
            say("FAIL: %s failed before the failure was injected: %s; ",
                phase_calls[o->api_phase], o->api_err);
            bad = 1;
        }
        if (ph == PH_DESTROY)
            say("%s returned %s (it reports no driver error); ", phase_calls[ph],
                ces_status_str(o->destroy_rc[rank < 0 ? 0 : rank]));
        else
            say("%s goes on (it reports no driver error); ", phase_calls[ph]);
    } else if (o->api_phase == ph && (ph == PH_INIT || o->api_rank == rank)) {
        say("%s failed as it must (%s); ", phase_calls[ph], ces_status_str(o->api_rc));
    } else if (o->api_phase == PH_NONE) {
        say("%s ignored it (returned CES_OK); ", phase_calls[ph]);
        /* ignored, then everything else must work */
        if (o->failed > 0 || o->checked != NCOLL * NR) {
            say("FAIL: yet %d communicator%s failed and %d of %d ranks' bytes were checked; ",
                o->failed, o->failed == 1 ? "" : "s", o->checked, NCOLL * NR);
            bad = 1;
        }
    } else {
        say("FAIL: %s returned CES_OK, but %s on rank %d failed later: %s; ", phase_calls[ph],
            phase_calls[o->api_phase], o->api_rank, o->api_err);
        bad = 1;
    }
    /* (b) no wrong byte, no hang, every destroy in time */
    if (o->wrong) {
        say("FAIL: wrong bytes where the call and the communicator said CES_OK; ");
        bad = 1;
    }
    if (o->checked > 0)
        say("%d rank%s bytes right; ", o->checked, o->checked == 1 ? "'s" : "s'");
    if (o->unchecked > 0)
        say("%d rank%s failed after its call (bytes not checked); ", o->unchecked,
            o->unchecked == 1 ? "" : "s");
    if (o->failed > 0)
        say("%d communicator%s failed; ", o->failed, o->failed == 1 ? "" : "s");
    if (o->healthy) {
        say("FAIL: %s failed and left its communicator healthy; ", phase_calls[ph]);
        bad = 1;
    }
    if (o->busy && o->failed == 0) {
        say("FAIL: a stream stayed busy %" PRIu64 " ms and no communicator failed (a hang "
            "without an error); ", tmo + 3000);
        bad = 1;
    } else if (o->busy) {
        say("a stream stayed busy %" PRIu64 " ms after the call; ", tmo + 3000);
    }
    if (o->dev_err) {
        say("FAIL: device error: %s; ", o->dev_err_text);
        bad = 1;
    }
    for (uint32_t r = 0; r < NR; r++) {
        if (o->destroy_ms[r] > tmo + 3000) {
            say("FAIL: ces_comm_destroy of rank %u took %" PRIu64 " ms (CES_TIMEOUT_MS + 1 s "
                "is %" PRIu64 "); ", r, o->destroy_ms[r], tmo + 1000);
            bad = 1;
        }
        if (o->destroy_rc[r] == CES_ERR_TIMEOUT && o->failed > 0) {
            timeout = 1;
        } else if (o->destroy_rc[r] != CES_OK && ph != PH_DESTROY) {
            say("FAIL: ces_comm_destroy of rank %u returned %s: %s; ", r,
                ces_status_str(o->destroy_rc[r]), o->destroy_err);
            bad = 1;
        }
    }
    if (timeout)
        say("a destroy returned CES_ERR_TIMEOUT (memory left mapped, as promised); ");
    if (o->busy_after && !timeout) {
        say("FAIL: a stream is still busy after every ces_comm_destroy; ");
        bad = 1;
    }
    /* (c) nothing left behind */
    strict = !timeout && (ph == PH_NONE || ph == PH_INIT || ph == PH_ALLOC || coll_ph);
    memcheck = strict && o->failed == 0;
    allow = o->failed; /* a failed communicator keeps its words: comm.c, words_free */
    {
        int leaks = 0;

        for (int k = 1; k < R_COUNT; k++) {
            long m = atomic_load(&made[k]), f = atomic_load(&freed[k]);
            long kept = (k == R_DMEM || k == R_HMEM) ? allow : 0;

            if (m - f == 0 || (m - f > 0 && m - f <= kept))
                continue;
            say("%s%s %s: %ld made, %ld released; ", strict ? "FAIL: " : "",
                m > f ? "left" : "released more", res_names[k], m, f);
            leaks = 1;
        }
        if (leaks && strict)
            bad = 1;
        else if (!leaks)
            say("balanced%s; ", allow > 0 ? " (but the failed communicators' words)" : "");
        else
            say("(not asserted after a failure in %s); ", phase_calls[ph]);
    }
    for (int f = 0; f < F_COUNT; f++)
        if (atomic_load(&refused[f]) > 0)
            say("the driver refused %ld %s; ", atomic_load(&refused[f]), fn_names[f]);
    if (mem_diff == LLONG_MIN) {
        say("free memory unknown; ");
    } else {
        say("free memory %+.1f MiB", -(double)mem_diff / (1 << 20));
        if (memcheck && mem_diff > MEM_TOL) {
            say(" (FAIL: more than 2 MiB not given back)");
            bad = 1;
        }
        say("; ");
    }
    if (!sh->hit && inject_fn < 0) {
        int ok = o->checked == NCOLL * NR;

        if (!ok) {
            say("FAIL: %d of %d ranks' bytes checked; ", o->checked, NCOLL * NR);
            bad = 1;
        }
    }
    return bad;
}

/* A child: the run with the call (fn, idx) failed (fn < 0: none). */
static int child_main(int fn, uint32_t idx)
{
    struct run R;
    struct outcome o;
    long long before, after;
    uint64_t t0 = gpu_now_ms(), warm = 0;
    const char *w = getenv("CES_DRV_WARMUP");
    int bad;

    memset(&R, 0, sizeof(R));
    sh->hit = 0;
    sh->msg[0] = '\0';
    driver = pthread_self();
    inject_fn = fn;
    inject_idx = idx;
    if (ces_cu_load() == NULL) {
        say("FAIL: the CUDA driver's table did not load");
        return 1;
    }
    shims_install();
    R.host = malloc(NR * AG_B > A2A_B + AG_B ? NR * AG_B : A2A_B + AG_B);
    if (R.host == NULL)
        return 1;
    for (uint32_t r = 0; r < NR; r++) {
        R.dev[r] = (int)(r % (uint32_t)gpus);
        if (cudaSetDevice(R.dev[r]) != cudaSuccess || cudaFree(NULL) != cudaSuccess ||
            cudaStreamCreateWithFlags(&R.s[r], cudaStreamNonBlocking) != cudaSuccess) {
            say("FAIL: cannot set up device %d", R.dev[r]);
            return 1;
        }
    }
    if (w == NULL || strcmp(w, "0") != 0) {
        /* the driver's lazy allocations settle before memory is measured */
        run_once(&R, &o);
        warm = gpu_now_ms() - t0;
        if (o.setup || o.api_phase != PH_NONE || o.wrong || o.checked != NCOLL * NR) {
            say("FAIL: the warm-up run (nothing injected) failed: %s%s",
                o.setup ? o.setup_err : o.api_err, o.wrong ? " (wrong bytes)" : "");
            return 1;
        }
    }
    before = free_mem(&R);
    atomic_store(&counting, 1);
    run_once(&R, &o);
    atomic_store(&counting, 0);
    after = free_mem(&R);
    if (fn >= 0)
        sh->fn_made = fn_calls[fn];
    else
        sh->other = atomic_load(&other_calls);
    bad = judge(&o, before < 0 || after < 0 ? LLONG_MIN : before - after);
    say("%" PRIu64 " ms (warm-up %" PRIu64 ")", gpu_now_ms() - t0, warm);
    printf("%s\n", sh->msg);
    return bad;
}

/* --- the parent ------------------------------------------------------------ */

enum end { END_PASS, END_FAIL, END_HANG, END_CRASH };

/* Runs a child with its output in a file (in TMPDIR, unlinked); prints its tail when it
 * did not pass (or always with verbose). */
static enum end spawn(int fn, uint32_t idx, unsigned deadline_s, int verbose, uint64_t *ms)
{
    int fd = ces_test_tmpfile(), st = 0;
    uint64_t t0 = gpu_now_ms(), until = t0 + (uint64_t)deadline_s * 1000u;
    enum end how = END_PASS;
    pid_t pid;

    if (fd < 0) {
        printf("FAIL: cannot create a log file\n");
        return END_FAIL;
    }
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
        setvbuf(stdout, NULL, _IOLBF, 0);
        st = child_main(fn, idx);
        fflush(stdout);
        fflush(stderr);
        _exit(st);
    }
    if (pid < 0) {
        printf("FAIL: fork: cannot start a child\n");
        close(fd);
        return END_FAIL;
    }
    for (;;) {
        pid_t got = waitpid(pid, &st, WNOHANG);
        struct timespec ts = {0, 5000000L};

        if (got == pid)
            break;
        if (gpu_now_ms() > until) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            how = END_HANG;
            break;
        }
        nanosleep(&ts, NULL);
    }
    *ms = gpu_now_ms() - t0;
    if (how != END_HANG)
        how = WIFSIGNALED(st) ? END_CRASH : WEXITSTATUS(st) == 0 ? END_PASS : END_FAIL;
    if (how != END_PASS || verbose) {
        FILE *f = fdopen(fd, "r");
        char line[512];
        long nl = 0, at = 0;

        if (f != NULL) {
            rewind(f); /* the child's writes moved the shared offset */
            while (fgets(line, sizeof(line), f) != NULL)
                nl++;
            rewind(f);
            while (fgets(line, sizeof(line), f) != NULL)
                if (at++ >= nl - 40)
                    printf("    | %s%s", line, strchr(line, '\n') ? "" : "\n");
            fclose(f);
            fd = -1;
        }
    }
    if (fd >= 0)
        close(fd);
    if (how == END_HANG)
        snprintf(sh->msg, sizeof(sh->msg), "FAIL: still running after %u s: killed (a hang)",
                 deadline_s);
    else if (how == END_CRASH)
        snprintf(sh->msg, sizeof(sh->msg), "FAIL: killed by signal %d (%s) (a crash)",
                 WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (sh->msg[0] == '\0')
        snprintf(sh->msg, sizeof(sh->msg), "FAIL: exit %d without a verdict", WEXITSTATUS(st));
    return how;
}

/* Memory the children write and the parent reads (an unlinked file:
 * MAP_ANONYMOUS is not POSIX). */
static struct shared *shared_map(void)
{
    int fd = ces_test_tmpfile();
    void *p;

    if (fd < 0)
        return NULL;
    if (ftruncate(fd, (off_t)sizeof(struct shared)) != 0) {
        close(fd);
        return NULL;
    }
    p = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

static uint64_t env_num(const char *name, uint64_t dflt)
{
    const char *s = getenv(name);

    return s != NULL && *s != '\0' ? strtoull(s, NULL, 10) : dflt;
}

int main(void)
{
    uint64_t budget_ms, t_start, count_ms = 0, stride, klo = 1, khi = UINT32_MAX;
    unsigned deadline_s;
    const char *ks = getenv("CES_DRV_K");
    int verbose = env_num("CES_DRV_VERBOSE", 0) != 0, nfail = 0, npass = 0, nreach = 0;
    uint32_t n, nrun = 0, nleft = 0, nsel = 0, failed_k[32], nfk = 0;
    uint8_t *pick, first_of[F_COUNT][PH_COUNT][NR + 1];

    memset(first_of, 0, sizeof(first_of));
    setvbuf(stdout, NULL, _IOLBF, 0);
    gpus = gpu_count(); /* in a child: this process must not initialize CUDA */
    if (!gpu_ranks_fit(gpus, NR))
        return GPU_SKIP;
    if (gpus < NR && gpu_queues_shared()) {
        printf("skipped: %d ranks of one process share GPU 0 over fewer than 8 hardware queues "
               "(set CUDA_DEVICE_MAX_CONNECTIONS=32)\n", NR);
        return GPU_SKIP;
    }
    sh = shared_map();
    if (sh == NULL) {
        printf("FAIL: cannot map memory shared with the children\n");
        return 1;
    }
    tmo = env_num("CES_TIMEOUT_MS", 10000);
    if (tmo == 0)
        tmo = 10000;
    deadline_s = (unsigned)env_num("CES_DRV_CHILD_S", 4 * tmo / 1000 + 12);
    budget_ms = env_num("CES_DRV_BUDGET_S", 90) * 1000;
    printf("driver faults: %d ranks on %d GPU%s, CES_TIMEOUT_MS=%" PRIu64 ", a child's deadline "
           "%u s\n", NR, gpus, gpus == 1 ? "" : "s", tmo, deadline_s);

    /* The count pass. */
    memset(sh, 0, sizeof(*sh));
    if (spawn(-1, 0, deadline_s, verbose, &count_ms) != END_PASS) {
        printf("FAIL count pass: %s\nFAILED\n", sh->msg);
        return 1;
    }
    n = sh->n;
    printf("count pass: %s\n", sh->msg);
    printf("count pass: %" PRIu32 " driver calls of the driving thread (init %" PRIu32
           ", alloc %" PRIu32 ", alltoall %" PRIu32 ", allgather %" PRIu32 ", group %" PRIu32
           ", launch %" PRIu32 ", free %" PRIu32 ", destroy %" PRIu32
           "), %ld of the watchdogs' threads; the child took %" PRIu64 " ms\n",
           sh->total, sh->by_phase[PH_INIT], sh->by_phase[PH_ALLOC], sh->by_phase[PH_ALLTOALL],
           sh->by_phase[PH_ALLGATHER], sh->by_phase[PH_GROUP], sh->by_phase[PH_LAUNCH],
           sh->by_phase[PH_FREE],
           sh->by_phase[PH_DESTROY], sh->other, count_ms);
    printf("count pass: by function:");
    for (int f = 0; f < F_COUNT; f++)
        if (sh->by_fn[f] > 0)
            printf(" %s %" PRIu32, fn_names[f], sh->by_fn[f]);
    printf("\n");
    if (sh->total > n)
        printf("note: only the first %" PRIu32 " calls are failed in turn\n", n);
    if (sh->by_phase[PH_NONE] > 0)
        printf("note: %" PRIu32 " calls outside any cesync call\n", sh->by_phase[PH_NONE]);

    /* Which K: the first of each function in each phase and rank, then a
     * stride of the rest, as far as the budget goes. */
    if (ks != NULL && *ks != '\0') {
        char *e = NULL;

        klo = strtoull(ks, &e, 10);
        khi = *e == '-' ? strtoull(e + 1, NULL, 10) : klo;
    }
    stride = env_num("CES_DRV_STRIDE", 0);
    if (stride == 0) {
        /* about a child's time each; those that leave a peer waiting take
         * CES_TIMEOUT_MS more */
        uint64_t each = count_ms + tmo / 4;

        stride = budget_ms == 0 ? 1 : (n * each + budget_ms - 1) / budget_ms;
        if (stride < 1)
            stride = 1;
    }
    pick = calloc(n + 1, 1);
    if (pick == NULL)
        return 1;
    for (uint32_t k = 1; k <= n; k++) {
        const struct call_rec *c = &sh->seq[k - 1];
        uint8_t *seen = &first_of[c->fn][c->phase][c->rank + 1];
        int first = !*seen;

        *seen = 1;
        if (k < klo || k > khi)
            continue;
        pick[k] = first ? 2 : (k - 1) % stride == 0 ? 1 : 0;
        if (ks != NULL && *ks != '\0')
            pick[k] = 2;
        nsel += pick[k] != 0;
    }
    printf("failing %" PRIu32 " of %" PRIu32 " calls: stride %" PRIu64 " (CES_DRV_STRIDE), "
           "and the first call of each function in each phase and rank; budget %" PRIu64
           " s (CES_DRV_BUDGET_S, 0: none)\n", nsel, n, stride, budget_ms / 1000);

    /* The first of each kind first, then the stride, while the budget lasts. */
    t_start = gpu_now_ms();
    for (int round = 2; round >= 1; round--) {
        for (uint32_t k = 1; k <= n; k++) {
            const struct call_rec *c = &sh->seq[k - 1];
            uint64_t ms = 0;
            enum end how;

            if (pick[k] != round)
                continue;
            if (round == 1 && budget_ms > 0 && gpu_now_ms() - t_start > budget_ms) {
                nleft++;
                continue;
            }
            sh->msg[0] = '\0';
            sh->hit = 0;
            expect_k = k;
            how = spawn(c->fn, c->idx, deadline_s, verbose, &ms);
            nrun++;
            if (how == END_PASS) {
                npass++;
                nreach += sh->hit;
            } else {
                nfail++;
                if (nfk < 32)
                    failed_k[nfk++] = k;
            }
            printf("%s K=%" PRIu32 " %s#%" PRIu32 " %s\n", how == END_PASS ? "ok  " : "FAIL", k,
                   fn_names[c->fn], c->idx, sh->msg);
        }
    }
    printf("summary: %" PRIu32 " driver calls, %" PRIu32 " of them failed in turn: %d passed (%d "
           "reached the call), %d FAILED; %" PRIu32 " not run for the time budget; %.1f s\n",
           n, nrun, npass, nreach, nfail, nleft, (double)(gpu_now_ms() - t_start) / 1000.0);
    if (nfail > 0) {
        printf("failed K:");
        for (uint32_t i = 0; i < nfk; i++)
            printf(" %" PRIu32, failed_k[i]);
        printf("%s (rerun one: CES_DRV_K=K CES_DRV_VERBOSE=1)\n", nfail > 32 ? " ..." : "");
    }
    free(pick);
    printf("%s\n", nfail > 0 ? "FAILED" : "PASSED");
    return nfail > 0;
}
