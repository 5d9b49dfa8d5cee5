/*
 * tests/cuda/test_comm.c - communicators, symmetric memory and the issue of
 * launches, collectives and groups (comm.c, exec.c) on the CPU: a team of
 * two communicators built by hand, the driver and runtime calls replaced by
 * stand-ins that count handles and mappings, record what is enqueued and
 * fail on demand.  An allocation that fails leaves nothing behind: no
 * handle, no mapping (also of the ranks mapped before the failing call, and
 * no unmap of a rank it did not map),
 * and no part of the stride taken.  A failed communicator whose own stream
 * stays busy is destroyed within its deadline, its team's memory left
 * mapped, with the error said; one whose context died, at once.  A
 * failed communicator refuses every call but destroy and the queries with
 * its failure, and does nothing.  A ces_group_end or ces_launch that fails
 * on a CUDA error fails its communicator; in one process a group whose
 * part fails while the parts are issued fails at once the ranks whose
 * parts were never issued.  What a launch, a collective and a group
 * enqueue, recorded by the stand-ins (memop calls, copies, event records
 * and waits), is what their lowered schedule says, at the addresses of the
 * flat symmetric range, with what the watchdog records of it.  Across two
 * processes (a forked child), a rank
 * aborted before a group or an allocation ends its peer's exchange over
 * the bootstrap at once; an allocation that fails in its exchange (a
 * timeout) fails its communicator, so that no retry reads the rows it
 * left behind, while its refusals decided alike on every rank (the stride
 * exhausted, sizes that differ) leave it healthy.
 */
#include "ces_test.h"
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- driver stand-ins -------------------------------------------------- */

static long live_handles; /* created and not released */
static long mapped;       /* ranges mapped and not unmapped */
static long stray_unmaps; /* unmaps of a range not mapped */
static int create_fail_at, map_fail_at, access_fail; /* call number to fail (1-based), or 0 */
static int creates, maps;

static CUresult CUDAAPI fake_create(CUmemGenericAllocationHandle *h, size_t size,
                                    const CUmemAllocationProp *prop, unsigned long long flags)
{
    (void)size, (void)prop, (void)flags;
    if (++creates == create_fail_at)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *h = (CUmemGenericAllocationHandle)creates;
    live_handles++;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_release(CUmemGenericAllocationHandle h)
{
    (void)h;
    live_handles--;
    return CUDA_SUCCESS;
}

/* The ranges mapped now, by address (a few allocations at a time here; the
 * eager and captured groups' signal and staging arrays beside a launch's
 * take more than eight). */
#define MAPS_MAX 32
static CUdeviceptr map_at[MAPS_MAX];

static CUresult CUDAAPI fake_map(CUdeviceptr p, size_t size, size_t off,
                                 CUmemGenericAllocationHandle h, unsigned long long flags)
{
    (void)size, (void)off, (void)h, (void)flags;
    if (++maps == map_fail_at)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (int i = 0; i < MAPS_MAX; i++) {
        if (map_at[i] == 0) {
            map_at[i] = p;
            mapped++;
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_UNKNOWN;
}

static CUresult CUDAAPI fake_unmap(CUdeviceptr p, size_t size)
{
    (void)size;
    for (int i = 0; i < MAPS_MAX; i++) {
        if (map_at[i] == p) {
            map_at[i] = 0;
            mapped--;
            return CUDA_SUCCESS;
        }
    }
    /* The real driver unmaps a range never mapped without a word: the
     * library must unmap only what it mapped. */
    stray_unmaps++;
    return CUDA_ERROR_INVALID_VALUE;
}

static size_t access_devices; /* the devices of the last cuMemSetAccess */
static int access_gate = -1;   /* a failing cuMemSetAccess first reads a byte of it */

static CUresult CUDAAPI fake_access(CUdeviceptr p, size_t size, const CUmemAccessDesc *d,
                                    size_t n)
{
    char ch;

    (void)p, (void)size, (void)d;
    access_devices = n;
    if (access_fail && access_gate >= 0 && read(access_gate, &ch, 1) != 1)
        return CUDA_ERROR_UNKNOWN;
    return access_fail ? CUDA_ERROR_INVALID_DEVICE : CUDA_SUCCESS;
}

static int ctx_fail; /* the stand-in cuCtxSetCurrent fails */

static CUresult CUDAAPI fake_ctx_set_current(CUcontext ctx)
{
    (void)ctx;
    return ctx_fail ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS;
}

/* The watchdog's context of its own, which a communicator makes where the
 * streams share hardware queues. */
static CUresult CUDAAPI fake_ctx_create(CUcontext *p, CUctxCreateParams *params, unsigned int flags,
                                        CUdevice dev)
{
    (void)params, (void)flags, (void)dev;
    *p = (CUcontext)(uintptr_t)0xc2;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_ctx_pop(CUcontext *p)
{
    *p = NULL;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_ctx_destroy(CUcontext ctx)
{
    (void)ctx;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_error_name(CUresult r, const char **s)
{
    *s = r == CUDA_ERROR_LAUNCH_FAILED ? "CUDA_ERROR_LAUNCH_FAILED" : "CUDA_ERROR_?";
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_error_string(CUresult r, const char **s)
{
    (void)r;
    *s = "stand-in";
    return CUDA_SUCCESS;
}

static int stream_busy;      /* the stand-in cuStreamQuery says NOT_READY */
static int context_dead;     /* it, and every copy, say the context died */
static int streams_destroyed;

static CUresult CUDAAPI fake_stream_query(CUstream s)
{
    (void)s;
    return context_dead ? CUDA_ERROR_LAUNCH_FAILED
           : stream_busy ? CUDA_ERROR_NOT_READY
                         : CUDA_SUCCESS;
}

/* The watchdog's copy of the progress words: only on a context that died. */
static CUresult CUDAAPI fake_dtoh(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    (void)dst, (void)src, (void)n, (void)s;
    return context_dead ? CUDA_ERROR_LAUNCH_FAILED : CUDA_ERROR_NOT_SUPPORTED;
}

static CUresult CUDAAPI fake_stream_destroy(CUstream s)
{
    streams_destroyed += s != NULL;
    return CUDA_SUCCESS;
}

static int events_destroyed;

static CUresult CUDAAPI fake_event_destroy(CUevent e)
{
    events_destroyed += e != NULL;
    return CUDA_SUCCESS;
}

static int ranges_freed;

static CUresult CUDAAPI fake_address_free(CUdeviceptr p, size_t size)
{
    (void)p, (void)size;
    ranges_freed++;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_primary_release(CUdevice d)
{
    (void)d;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_memset(CUdeviceptr p, unsigned char v, size_t n, CUstream s)
{
    (void)p, (void)v, (void)n, (void)s;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_stream_sync(CUstream s)
{
    (void)s;
    return CUDA_SUCCESS;
}

/* The runtime calls a communicator makes outside its lowered calls, stood
 * in for (the link lets these definitions take the place of cudart's). */
cudaError_t cudaSetDevice(int d)
{
    (void)d;
    return cudaSuccess;
}

/* The callers' streams that are being captured (NULL: none). */
static cudaStream_t capturing_on[2];

cudaError_t cudaStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *st)
{
    *st = s != NULL && (s == capturing_on[0] || s == capturing_on[1])
              ? cudaStreamCaptureStatusActive
              : cudaStreamCaptureStatusNone;
    return cudaSuccess;
}

/* A launch's graph phase: the capture and the graph's launches, stood in
 * for (CUDA: "Capture may not be initiated if stream is cudaStreamLegacy",
 * and NULL names that stream). */
static cudaStream_t captured_on, launched_on;
static int captures, launches, batches;

cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode)
{
    (void)mode;
    if (s == NULL || s == cudaStreamLegacy)
        return cudaErrorStreamCaptureUnsupported;
    captured_on = s;
    captures++;
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *graph)
{
    *graph = (cudaGraph_t)(uintptr_t)0x6a;
    return s == captured_on ? cudaSuccess : cudaErrorStreamCaptureUnmatched;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t graph, unsigned long long flags)
{
    (void)graph, (void)flags;
    *x = (cudaGraphExec_t)(uintptr_t)0x6b;
    return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s)
{
    (void)x;
    launched_on = s;
    launches++;
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    (void)graph;
    return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x)
{
    (void)x;
    return cudaSuccess;
}

/* The memop batch call (1-based) that fails, 0 for none. */
static int batch_fail_at;

/* What the calls enqueued, in order (the first LOG_MAX of each kind): every
 * memop of every batch call that was taken, with its stream and the number
 * of its call (1-based); every copy, with its stream and
 * whether it went in a cudaMemcpyBatchAsync (and then that call's
 * attributes); every event record and stream wait; every progress word
 * write the watchdog's close made. */
#define LOG_MAX 64
static struct memop_rec {
    CUstream s;
    int call;
    CUstreamBatchMemOpParams p;
} memop_log[LOG_MAX];
static struct copy_rec {
    cudaStream_t s;
    void *dst;
    const void *src;
    size_t n;
    int batched;
    struct cudaMemcpyAttributes attr;
} copy_log[LOG_MAX];
static struct event_rec {
    int wait; /* cuStreamWaitEvent, else cuEventRecord */
    CUevent e;
    CUstream s;
} event_log[LOG_MAX];
static struct write_rec {
    CUstream s;
    CUdeviceptr addr;
    cuuint64_t value;
} write_log[LOG_MAX];
static int nmemops, ncopies, nevents, nwrites;

static void logs_clear(void)
{
    nmemops = ncopies = nevents = nwrites = 0;
    memset(memop_log, 0, sizeof(memop_log));
    memset(copy_log, 0, sizeof(copy_log));
    memset(event_log, 0, sizeof(event_log));
    memset(write_log, 0, sizeof(write_log));
}

static CUresult CUDAAPI fake_batch(CUstream s, unsigned int n, CUstreamBatchMemOpParams *p,
                                   unsigned int flags)
{
    (void)flags;
    if (++batches == batch_fail_at)
        return CUDA_ERROR_UNKNOWN;
    for (unsigned int i = 0; i < n && nmemops < LOG_MAX; i++, nmemops++) {
        memop_log[nmemops].s = s;
        memop_log[nmemops].call = batches;
        memop_log[nmemops].p = p[i];
    }
    return CUDA_SUCCESS;
}

/* Copies: enqueued, counted and recorded. */
static int copies;

static void copy_logged(cudaStream_t s, void *dst, const void *src, size_t n,
                        const struct cudaMemcpyAttributes *attr)
{
    copies++;
    if (ncopies < LOG_MAX) {
        copy_log[ncopies].s = s;
        copy_log[ncopies].dst = dst;
        copy_log[ncopies].src = src;
        copy_log[ncopies].n = n;
        copy_log[ncopies].batched = attr != NULL;
        if (attr != NULL)
            copy_log[ncopies].attr = *attr;
        ncopies++;
    }
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                            cudaStream_t s)
{
    (void)kind;
    copy_logged(s, dst, src, n, NULL);
    return cudaSuccess;
}

/* One attribute for the whole batch, as the backend passes it. */
cudaError_t cudaMemcpyBatchAsync(void *const *dsts, const void *const *srcs, const size_t *sizes,
                                 size_t count, struct cudaMemcpyAttributes *attrs,
                                 size_t *attrs_idxs, size_t nattrs, cudaStream_t s)
{
    if (nattrs != 1 || attrs_idxs[0] != 0)
        return cudaErrorInvalidValue;
    for (size_t i = 0; i < count; i++)
        copy_logged(s, dsts[i], srcs[i], sizes[i], attrs);
    return cudaSuccess;
}

static CUresult CUDAAPI fake_write64(CUstream s, CUdeviceptr addr, cuuint64_t value,
                                     unsigned int flags)
{
    (void)flags;
    if (nwrites < LOG_MAX) {
        write_log[nwrites].s = s;
        write_log[nwrites].addr = addr;
        write_log[nwrites].value = value;
        nwrites++;
    }
    return CUDA_SUCCESS;
}

/* A memory handle shared with the peers (multi-process): a descriptor of
 * /dev/null, which the bootstrap passes on like any other. */
static CUresult CUDAAPI fake_export(void *fd, CUmemGenericAllocationHandle h,
                                   CUmemAllocationHandleType type, unsigned long long flags)
{
    (void)h, (void)type, (void)flags;
    *(int *)fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    return *(int *)fd >= 0 ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN;
}

/* A peer's handle taken from its descriptor: a handle of this process's
 * own, counted. */
static int imports;

static CUresult CUDAAPI fake_import(CUmemGenericAllocationHandle *h, void *fd,
                                   CUmemAllocationHandleType type)
{
    (void)fd, (void)type;
    *h = (CUmemGenericAllocationHandle)(1000 + ++imports);
    live_handles++;
    return CUDA_SUCCESS;
}

/* Streams and events made: each a handle of its own, told apart by the
 * number of its creation. */
static uintptr_t streams_made, events_made;

static CUresult CUDAAPI fake_stream_create(CUstream *s, unsigned int flags)
{
    (void)flags;
    *s = (CUstream)(0x5c00 + ++streams_made);
    return CUDA_SUCCESS;
}

/* Creating communicators: two devices, whose primary context (or total
 * memory) fails on device `retain_fail` (`total_fail`), -1 for none. */
static int retain_fail, total_fail;
/* The GPUs counted, and the cuInit and cuDeviceGetCount call (1-based)
 * that fails, 0 for none. */
static int gpus, init_fail_at, count_fail_at, inits, counts;
static int retain_fail_at, retains; /* the same for cuDevicePrimaryCtxRetain */

static CUresult CUDAAPI fake_init(unsigned int flags)
{
    (void)flags;
    return ++inits == init_fail_at ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_device_count(int *n)
{
    if (++counts == count_fail_at)
        return CUDA_ERROR_NOT_INITIALIZED;
    *n = gpus;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_device_get(CUdevice *d, int ordinal)
{
    *d = (CUdevice)ordinal;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_retain(CUcontext *ctx, CUdevice d)
{
    if ((int)d == retain_fail || ++retains == retain_fail_at)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *ctx = (CUcontext)(uintptr_t)(0x100 + d);
    return CUDA_SUCCESS;
}

/* cuDeviceCanAccessPeer: every pair of GPUs are peers but GPU peer_from
 * cannot access GPU peer_to's memory (-1: none); peer_fail: it fails. */
static int peer_from, peer_to, peer_fail;

static CUresult CUDAAPI fake_can_access(int *ok, CUdevice dev, CUdevice peer)
{
    if (peer_fail)
        return CUDA_ERROR_INVALID_DEVICE;
    *ok = !((int)dev == peer_from && (int)peer == peer_to);
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_attribute(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)a, (void)d;
    *v = 1;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_priorities(int *lo, int *hi)
{
    *lo = *hi = 0;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_stream_create_prio(CUstream *s, unsigned int flags, int prio)
{
    (void)flags, (void)prio;
    *s = (CUstream)(uintptr_t)0x5d;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_event_create(CUevent *e, unsigned int flags)
{
    (void)flags;
    *e = (CUevent)(0x5e00 + ++events_made);
    return CUDA_SUCCESS;
}

/* Event records and stream waits (a launch's fork and join, its records
 * and awaits): work enqueued, counted. */
static int event_ops;

static void event_logged(int wait, CUevent e, CUstream s)
{
    event_ops++;
    if (nevents < LOG_MAX) {
        event_log[nevents].wait = wait;
        event_log[nevents].e = e;
        event_log[nevents].s = s;
        nevents++;
    }
}

static CUresult CUDAAPI fake_event_record(CUevent e, CUstream s)
{
    event_logged(0, e, s);
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_stream_wait_event(CUstream s, CUevent e, unsigned int flags)
{
    (void)flags;
    event_logged(1, e, s);
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_granularity(size_t *g, const CUmemAllocationProp *prop,
                                         CUmemAllocationGranularity_flags flags)
{
    (void)prop, (void)flags;
    *g = 2 << 20;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_total_mem(size_t *n, CUdevice d)
{
    *n = (size_t)1 << 30;
    return (int)d == total_fail ? CUDA_ERROR_INVALID_DEVICE : CUDA_SUCCESS;
}

/* The driver table as the loader would hand it out: the stand-ins above
 * (no GPU is touched, here or on a machine that has one). */
const struct ces_cu_api *ces_cu_load(void)
{
    return ces_cu();
}

/* No thread of this test's may start: the one call that reaches this is
 * the watchdog's start, which must say why it could not. */
int pthread_create(pthread_t *restrict t, const pthread_attr_t *restrict attr,
                   void *(*fn)(void *), void *restrict arg)
{
    (void)t, (void)attr, (void)fn, (void)arg;
    return EAGAIN;
}

static void fakes_install(void)
{
    /* The table is a plain static object of cu_api.c that ces_cu() hands
     * out read-only; the test writes it, as the loader would. */
    struct ces_cu_api *t = (struct ces_cu_api *)ces_cu();

    t->p_cuMemCreate = fake_create;
    t->p_cuMemRelease = fake_release;
    t->p_cuMemExportToShareableHandle = fake_export;
    t->p_cuMemImportFromShareableHandle = fake_import;
    t->p_cuMemMap = fake_map;
    t->p_cuMemUnmap = fake_unmap;
    t->p_cuMemSetAccess = fake_access;
    t->p_cuCtxSetCurrent = fake_ctx_set_current;
    t->p_cuCtxCreate = fake_ctx_create;
    t->p_cuCtxPopCurrent = fake_ctx_pop;
    t->p_cuCtxDestroy = fake_ctx_destroy;
    t->p_cuGetErrorName = fake_error_name;
    t->p_cuGetErrorString = fake_error_string;
    t->p_cuStreamQuery = fake_stream_query;
    t->p_cuStreamDestroy = fake_stream_destroy;
    t->p_cuEventDestroy = fake_event_destroy;
    t->p_cuDevicePrimaryCtxRelease = fake_primary_release;
    t->p_cuMemAddressFree = fake_address_free;
    t->p_cuMemcpyDtoHAsync = fake_dtoh;
    t->p_cuMemsetD8Async = fake_memset;
    t->p_cuStreamSynchronize = fake_stream_sync;
    t->p_cuStreamBatchMemOp = fake_batch;
    t->p_cuStreamWriteValue64 = fake_write64;
    t->p_cuStreamCreate = fake_stream_create;
    t->p_cuInit = fake_init;
    t->p_cuDeviceGetCount = fake_device_count;
    t->p_cuDeviceGet = fake_device_get;
    t->p_cuDeviceCanAccessPeer = fake_can_access;
    t->p_cuDevicePrimaryCtxRetain = fake_retain;
    t->p_cuDeviceGetAttribute = fake_attribute;
    t->p_cuCtxGetStreamPriorityRange = fake_priorities;
    t->p_cuStreamCreateWithPriority = fake_stream_create_prio;
    t->p_cuEventCreate = fake_event_create;
    t->p_cuEventRecord = fake_event_record;
    t->p_cuStreamWaitEvent = fake_stream_wait_event;
    t->p_cuMemGetAllocationGranularity = fake_granularity;
    t->p_cuDeviceTotalMem = fake_total_mem;
    retain_fail = total_fail = -1;
    peer_from = peer_to = -1;
    peer_fail = 0;
    gpus = 2;
    init_fail_at = count_fail_at = inits = counts = retain_fail_at = retains = 0;
    captured_on = launched_on = NULL;
    captures = launches = batches = batch_fail_at = copies = event_ops = 0;
    capturing_on[0] = capturing_on[1] = NULL;
    streams_made = events_made = 0;
    logs_clear();
    stream_busy = context_dead = streams_destroyed = events_destroyed = ranges_freed = 0;
    live_handles = mapped = stray_unmaps = 0;
    create_fail_at = map_fail_at = access_fail = ctx_fail = 0;
    access_gate = -1;
    creates = maps = imports = 0;
    access_devices = 0;
    memset(map_at, 0, sizeof(map_at));
}

/* --- a team of two ranks in one process ---------------------------------- */

struct fixture {
    struct ces_test_alloc alloc;
    struct ces_ctx *ctx;
    struct ces_team team;
    struct ces_comm comm[2];
    struct ces_comm *comms[2];
};

static void fixture_init(struct fixture *fx)
{
    memset(fx, 0, sizeof(*fx));
    fakes_install();
    fx->ctx = ces_test_ctx(&fx->alloc);
    fx->team.ctx = fx->ctx;
    fx->team.ranks = 2;
    fx->team.nlocal = 2;
    fx->team.comms = fx->comms;
    fx->team.base = (CUdeviceptr)1 << 40;
    fx->team.stride = (uint64_t)1 << 30;
    fx->team.gran = (uint64_t)2 << 20;
    pthread_mutex_init(&fx->team.lock, NULL);
    for (uint32_t r = 0; r < 2; r++) {
        fx->comm[r].ctx = fx->ctx;
        fx->comm[r].team = &fx->team;
        fx->comm[r].rank = r;
        fx->comm[r].size = 2;
        fx->comm[r].cudev = (CUdevice)r;
        fx->comms[r] = &fx->comm[r];
    }
}

static void fixture_end(struct fixture *fx)
{
    ces_vec_free(fx->ctx, &fx->team.allocs);
    pthread_mutex_destroy(&fx->team.lock);
    ces_test_ctx_end(fx->ctx, &fx->alloc);
}

/* A failed ces_team_alloc of rank 0: nothing left behind. */
static void expect_clean_failure(struct fixture *fx)
{
    void *ptr = NULL;

    assert_int_equal(ces_team_alloc(&fx->comm[0], 64 << 20, &ptr), CES_ERR_CUDA);
    assert_null(ptr);
    assert_int_equal(live_handles, 0);
    assert_int_equal(mapped, 0);
    assert_int_equal(stray_unmaps, 0);
    assert_int_equal(fx->team.top, 0);     /* the stride is not used up */
    assert_int_equal(fx->team.allocs.len, 0);
    assert_int_equal(fx->comm[0].nalloc, 0);
}

/* msg starts with head and ends with tail. */
static void expect_message(const char *msg, const char *head, const char *tail)
{
    size_t n = strlen(msg);

    if (strncmp(msg, head, strlen(head)) != 0 || n < strlen(tail) ||
        strcmp(msg + n - strlen(tail), tail) != 0)
        fail_msg("'%s', expected '%s...%s'", msg, head, tail);
}

static void test_create_fails(void **state)
{
    struct fixture fx;

    (void)state;
    fixture_init(&fx);
    create_fail_at = 2; /* rank 1's handle */
    expect_clean_failure(&fx);
    fixture_end(&fx);
}

static void test_map_fails_after_one_rank(void **state)
{
    struct fixture fx;

    (void)state;
    fixture_init(&fx);
    map_fail_at = 2; /* rank 0's range is mapped, rank 1's fails */
    expect_clean_failure(&fx);
    fixture_end(&fx);
}

static void test_access_fails(void **state)
{
    struct fixture fx;

    (void)state;
    fixture_init(&fx);
    access_fail = 1; /* every range is mapped, then access fails */
    expect_clean_failure(&fx);
    /* whose memory it was (the message was the call's alone), not that a
     * GPU is refused another's that is not its peer's: ces_comm_init_all
     * asked cuDeviceCanAccessPeer of every pair of its GPUs (the message
     * said that too) */
    expect_message(ces_ctx_last_error(fx.ctx),
                   "rank 0's memory cannot be made accessible to the GPUs of this process: ",
                   "failed: CUDA_ERROR_? (101): stand-in");
    assert_null(strstr(ces_ctx_last_error(fx.ctx), "given access only to a peer"));
    fixture_end(&fx);
}

/* ces_comm_destroy of the last communicator of a one-rank team, failed,
 * with an internal stream that the stand-in says is busy (DESTROY_BUSY,
 * DESTROY_DEAD) or idle, its join event, and one live allocation mapped:
 * the stream and the event are destroyed either way (the join events were
 * once left behind, one per internal stream of every communicator); busy,
 * it gives up at its deadline (CES_TIMEOUT_MS 1 + 1 s), says so, leaves the
 * allocation mapped and its handle and address range held (a copy still
 * queued must not fault), and frees every block all the same; idle, it
 * returns CES_OK and unmaps, releases and frees the range.  DESTROY_DEAD:
 * its context died under a step its words never showed done (the copy of
 * the words and every query fail with CUDA_ERROR_LAUNCH_FAILED): it
 * returns CES_ERR_CUDA at once, well before its deadline (CES_TIMEOUT_MS
 * 60000 + 1 s), naming the failed read, and leaves the memory mapped as
 * when busy; so it does when its words show every step done
 * (DESTROY_DEAD_IDLE: its side streams are not in the words).
 * DESTROY_IN_FLIGHT: its words show every eager step done, its streams
 * idle, but a captured call still in flight (its in-flight word is not 0):
 * not idle either, as when busy. */
enum { DESTROY_IDLE, DESTROY_BUSY, DESTROY_DEAD, DESTROY_DEAD_IDLE, DESTROY_IN_FLIGHT };

static void destroy_last(int how)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_team *t = ces_malloc(ctx, sizeof(*t));
    struct ces_comm *c = ces_malloc(ctx, sizeof(*c));
    struct ces_alloc_rec rec = {.off = 0, .size = 2 << 20, .refs = 1, .live = 1};
    uint64_t stage[2 * CES_WD_STREAMS], t0;
    int busy = how != DESTROY_IDLE, dead = how == DESTROY_DEAD || how == DESTROY_DEAD_IDLE;

    fakes_install();
    assert_non_null(t);
    assert_non_null(c);
    memset(t, 0, sizeof(*t));
    memset(c, 0, sizeof(*c));
    t->ctx = ctx;
    t->ranks = t->nlocal = t->alive = 1;
    t->base = (CUdeviceptr)1 << 40;
    t->stride = (uint64_t)1 << 30;
    t->comms = ces_malloc(ctx, sizeof(*t->comms));
    assert_non_null(t->comms);
    t->comms[0] = c;
    pthread_mutex_init(&t->lock, NULL);
    rec.handles = ces_malloc(ctx, sizeof(*rec.handles));
    assert_non_null(rec.handles);
    assert_int_equal(fake_create(&rec.handles[0], rec.size, NULL, 0), CUDA_SUCCESS);
    assert_int_equal(fake_map(t->base, rec.size, 0, rec.handles[0], 0), CUDA_SUCCESS);
    assert_int_equal(ces_vec_push(ctx, &t->allocs, sizeof(rec), &rec), CES_OK);
    c->ctx = ctx;
    c->team = t;
    c->size = 1;
    c->timeout_ms = dead ? 60000 : 1;
    atomic_init(&c->state, dead ? CES_ERR_CUDA : CES_ERR_TIMEOUT);
    ces_wd_init(c);
    c->streams[1] = (CUstream)c; /* any handle: the stand-ins never look at it */
    c->joins[1] = (CUevent)c;
    if (dead || how == DESTROY_IN_FLIGHT) {
        /* the words the drain copies (the page: freed with the team) */
        int fd = ces_test_tmpfile();

        assert_true(fd >= 0);
        t->page_bytes = sizeof(*t->page);
        assert_int_equal(ftruncate(fd, (off_t)t->page_bytes), 0);
        t->page = mmap(NULL, t->page_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        assert_true(t->page != MAP_FAILED);
        c->progress_dev = (CUdeviceptr)(uintptr_t)stage;
        c->wd_stage = stage;
        c->nwatched = 1;
        atomic_store(&c->watched[0].enqueued, how == DESTROY_DEAD);
        atomic_store(&t->page[0].flight[0], how == DESTROY_IN_FLIGHT);
        context_dead = dead;
    }
    stream_busy = how == DESTROY_BUSY;
    t0 = ces_cuda_now_ms();
    if (how == DESTROY_BUSY || how == DESTROY_IN_FLIGHT) {
        assert_int_equal(ces_comm_destroy(c), CES_ERR_TIMEOUT);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "ces_comm_destroy: rank 0's streams did not go idle within "
                            "CES_TIMEOUT_MS + 1 s; its symmetric memory stays mapped");
    } else if (dead) {
        assert_int_equal(ces_comm_destroy(c), CES_ERR_CUDA);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "ces_comm_destroy: rank 0's streams cannot be waited for: the "
                            "progress words cannot be read: cuMemcpyDtoHAsync failed "
                            "(CUDA_ERROR_LAUNCH_FAILED); its symmetric memory stays mapped");
        assert_true(ces_cuda_now_ms() - t0 < 5000);
    } else {
        assert_int_equal(ces_comm_destroy(c), CES_OK);
    }
    assert_int_equal(streams_destroyed, 1);
    assert_int_equal(events_destroyed, 1);
    assert_int_equal(mapped, busy);
    assert_int_equal(live_handles, busy);
    assert_int_equal(ranges_freed, !busy);
    ces_test_ctx_end(ctx, &st); /* team and communicator freed: no block left */
}

static void test_destroy_gives_up_on_a_busy_stream(void **state)
{
    (void)state;
    destroy_last(DESTROY_BUSY);
    destroy_last(DESTROY_IDLE);
    destroy_last(DESTROY_DEAD);
    destroy_last(DESTROY_DEAD_IDLE);
    destroy_last(DESTROY_IN_FLIGHT);
}

/* The failure as ces_comm_check words it, in the context's last error. */
static void refused(struct fixture *fx, int rc, int failure)
{
    assert_int_equal(rc, failure);
    assert_non_null(strstr(ces_ctx_last_error(fx->ctx), "the communicator failed"));
}

/* Both ranks of a team failed, as the watchdog leaves them (rank 0 timed
 * out, rank 1 heard of it), with one live allocation: every public call on
 * them returns the failure before it touches anything - no group opened,
 * declared or issued, no allocation made or freed (the memory stays
 * mapped for ces_comm_destroy), nothing enqueued (no stand-in exists for
 * the driver calls that enqueue: one reached would crash), no second
 * diagnosis.  A group the failure interrupted is ended by ces_group_end. */
static void test_failed_refuses_every_call(void **state)
{
    static const int failure[2] = {CES_ERR_TIMEOUT, CES_ERR_PEER_FAILED};
    struct fixture fx;
    struct ces_alloc_rec rec = {.off = 0, .size = 2 << 20, .refs = 2, .live = 1};
    struct ces_graph *g = NULL;
    void *ptr[2];
    char want[160];

    (void)state;
    fixture_init(&fx);
    rec.handles = ces_malloc(fx.ctx, 2 * sizeof(*rec.handles));
    assert_non_null(rec.handles);
    for (uint32_t r = 0; r < 2; r++) {
        CUdeviceptr at = fx.team.base + r * fx.team.stride;

        assert_int_equal(fake_create(&rec.handles[r], rec.size, NULL, 0), CUDA_SUCCESS);
        assert_int_equal(fake_map(at, rec.size, 0, rec.handles[r], 0), CUDA_SUCCESS);
        ptr[r] = (void *)(uintptr_t)at;
    }
    assert_int_equal(ces_vec_push(fx.ctx, &fx.team.allocs, sizeof(rec), &rec), CES_OK);
    assert_int_equal(ces_graph_create(fx.ctx, 2, 1, &g), CES_OK);
    for (uint32_t r = 0; r < 2; r++) {
        struct ces_comm *c = &fx.comm[r];
        int f = failure[r];
        void *p = ptr[r];

        atomic_store(&c->state, f);
        refused(&fx, ces_group_start(c), f);
        assert_false(c->in_group);
        refused(&fx, ces_send(c, p, 64, 1 - r), f);
        refused(&fx, ces_recv(c, p, 64, 1 - r), f);
        refused(&fx, ces_group_end(c, NULL), f);
        c->in_group = 1; /* the failure came after ces_group_start */
        c->ngroup = 1;
        refused(&fx, ces_send(c, p, 64, 1 - r), f);
        refused(&fx, ces_group_end(c, NULL), f);
        assert_false(c->in_group);
        assert_int_equal(c->ngroup, 0);
        refused(&fx, ces_alltoall(c, p, p, 64, NULL), f);
        refused(&fx, ces_allgather(c, p, p, 64, NULL), f);
        refused(&fx, ces_gather(c, p, p, 64, 0, NULL), f);
        refused(&fx, ces_scatter(c, p, p, 64, 0, NULL), f);
        refused(&fx, ces_broadcast(c, p, p, 64, 0, NULL), f);
        refused(&fx, ces_barrier(c, NULL), f);
        refused(&fx, ces_launch(c, g, NULL, 0, NULL), f);
        p = ptr[r];
        refused(&fx, ces_mem_alloc(c, 4096, &p), f);
        assert_null(p);
        refused(&fx, ces_mem_free(c, ptr[r]), f);
        refused(&fx, ces_mem_free(c, NULL), f);
        refused(&fx, ces_comm_abort(c), f);
        /* the status says why too, as every error does (it left no
         * message, and a caller printing ces_ctx_last_error printed none) */
        snprintf(c->fail_why, sizeof(c->fail_why), "no progress for 2001 ms");
        ces_ctx_error(fx.ctx, CES_OK, "%s", "");
        assert_int_equal(ces_comm_status(c), f);
        snprintf(want, sizeof(want),
                 "rank %" PRIu32 ": the communicator failed: no progress for 2001 ms (see the "
                 "watchdog's diagnosis)",
                 r);
        assert_string_equal(ces_ctx_last_error(fx.ctx), want);
        assert_ptr_equal(ces_mem_peer(c, ptr[r], 1 - r), ptr[1 - r]);
    }
    assert_int_equal(fx.team.allocs.len, 1);
    assert_int_equal(fx.comm[0].nalloc, 0);
    assert_int_equal(mapped, 2);
    assert_int_equal(live_handles, 2);
    /* healthy again, the same frees release it */
    for (uint32_t r = 0; r < 2; r++) {
        atomic_store(&fx.comm[r].state, CES_OK);
        assert_int_equal(ces_mem_free(&fx.comm[r], ptr[r]), CES_OK);
    }
    assert_int_equal(mapped, 0);
    assert_int_equal(live_handles, 0);
    ces_graph_destroy(g);
    fixture_end(&fx);
}

/* The entry points of the backend that take a context, or a communicator
 * holding one, called with one argument they refuse (NULL): they returned
 * CES_ERR_INVALID and left the context's message as it was, so a caller
 * read the last, unrelated error as the reason.  None gets as far as the
 * driver. */
static int refuse_comm_init(struct fixture *fx)
{
    return ces_comm_init(fx->ctx, 0, 1, 0, NULL, NULL);
}

static int refuse_comm_init_env(struct fixture *fx)
{
    return ces_comm_init_env(fx->ctx, NULL, NULL);
}

static int refuse_comm_init_all(struct fixture *fx)
{
    return ces_comm_init_all(fx->ctx, 1, NULL, NULL);
}

static int refuse_mem_alloc(struct fixture *fx)
{
    return ces_mem_alloc(&fx->comm[0], 4096, NULL);
}

static int refuse_launch(struct fixture *fx)
{
    return ces_launch(&fx->comm[0], NULL, NULL, 0, NULL);
}

static void test_refusal_says_why(void **state)
{
    static const struct {
        int (*call)(struct fixture *fx);
        const char *error;
    } rows[] = {
        {refuse_comm_init, "ces_comm_init: NULL argument"},
        {refuse_comm_init_env, "ces_comm_init_env: NULL argument"},
        {refuse_comm_init_all, "ces_comm_init_all: NULL argument"},
        {refuse_mem_alloc, "ces_mem_alloc: NULL argument"},
        {refuse_launch, "ces_launch: NULL argument"},
    };
    struct fixture fx;

    (void)state;
    fixture_init(&fx);
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        ces_ctx_error(fx.ctx, CES_ERR_IO, "an earlier error");
        assert_int_equal(rows[i].call(&fx), CES_ERR_INVALID);
        if (strcmp(ces_ctx_last_error(fx.ctx), rows[i].error) != 0)
            fail_msg("row %zu: '%s', expected '%s'", i, ces_ctx_last_error(fx.ctx),
                     rows[i].error);
    }
    assert_int_equal(creates, 0);
    assert_int_equal(ces_comm_status(&fx.comm[0]), CES_OK);
    fixture_end(&fx);
}

/* The fixture's team as ces_comm_init_all leaves it, both ranks alive,
 * each with 4 MiB of symmetric memory in b[]. */
static void live_team(struct fixture *fx, void **b)
{
    fixture_init(fx);
    fx->team.alive = 2;
    for (uint32_t r = 0; r < 2; r++) {
        fx->comm[r].p2p_stage_max = CES_P2P_STAGE_MAX_DEFAULT;
        fx->comm[r].p2p_side_min = CES_P2P_SIDE_MIN_DEFAULT;
        fx->comm[r].queues = 8;
        assert_int_equal(ces_mem_alloc(&fx->comm[r], 4 << 20, &b[r]), CES_OK);
    }
}

/* A team of two whose waits the watchdog records, on devices that take
 * 64-bit memops; with `words`, the address of rank 0's progress words
 * (made up, never read here; rank 1's 4 KiB on), its waits' calls write
 * them (else, as without a watchdog thread, they write none). */
static void watched_team(struct fixture *fx, void **b, CUdeviceptr words)
{
    live_team(fx, b);
    for (uint32_t r = 0; r < 2; r++) {
        ces_wd_init(&fx->comm[r]);
        fx->comm[r].waits = ces_malloc(fx->ctx, sizeof(*fx->comm[r].waits) * CES_WD_WAITS);
        assert_non_null(fx->comm[r].waits);
        fx->comm[r].progress_dev = words != 0 ? words + r * 0x1000 : 0;
        fx->comm[r].caps.can_64bit = 1;
    }
}

/* The next allocation of 2 MiB lies at the same offset on both ranks. */
static void next_alloc_in_step(struct fixture *fx, void **b)
{
    void *p[2];

    for (uint32_t r = 0; r < 2; r++)
        assert_int_equal(ces_mem_alloc(&fx->comm[r], 2 << 20, &p[r]), CES_OK);
    assert_int_equal((char *)p[0] - (char *)b[0], (char *)p[1] - (char *)b[1]);
    for (uint32_t r = 0; r < 2; r++)
        assert_int_equal(ces_mem_free(&fx->comm[r], p[r]), CES_OK);
}

/* In one process the last rank to end a group issues every rank's part in
 * turn.  A group every rank refuses alike (a send without its receive of
 * the same size) is refused before any rank's part takes its staging
 * memory: the first part took it, so the ranks' allocations went out of
 * step and the next ces_mem_alloc returned other offsets on the ranks. */
static void test_refused_group_keeps_the_allocations_in_step(void **state)
{
    struct fixture fx;
    void *b[2];

    (void)state;
    live_team(&fx, b);
    assert_int_equal(ces_group_start(&fx.comm[0]), CES_OK);
    assert_int_equal(ces_send(&fx.comm[0], b[0], 100, 1), CES_OK);
    assert_int_equal(ces_group_end(&fx.comm[0], NULL), CES_OK); /* the group is not whole */
    assert_int_equal(ces_group_start(&fx.comm[1]), CES_OK);
    assert_int_equal(ces_recv(&fx.comm[1], b[1], 200, 0), CES_OK);
    assert_int_equal(ces_group_end(&fx.comm[1], NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx), "ces_group_end: rank 0 sends 100 bytes to "
                                                    "rank 1, which declared another size");
    assert_int_equal(fx.comm[0].nalloc, fx.comm[1].nalloc);
    assert_int_equal(ces_comm_status(&fx.comm[0]), CES_OK);
    assert_int_equal(ces_comm_status(&fx.comm[1]), CES_OK);
    next_alloc_in_step(&fx, b);
    for (uint32_t r = 0; r < 2; r++) {
        assert_int_equal(ces_mem_free(&fx.comm[r], b[r]), CES_OK);
        /* what ces_comm_destroy frees of a group */
        ces_cuda_signals_drop(&fx.comm[r], false);
        ces_vec_free(fx.ctx, &fx.comm[r].signals);
        ces_free(fx.ctx, fx.comm[r].p2p);
    }
    ces_free(fx.ctx, fx.team.group);
    fixture_end(&fx);
}

/* In one process, a second ces_mem_free of one pointer on one
 * communicator is refused: it was taken for another rank's free, and the
 * memory the other rank still used was unmapped. */
static void test_double_free_refused(void **state)
{
    struct fixture fx;
    void *b[2];
    char want[160];

    (void)state;
    live_team(&fx, b);
    assert_int_equal(ces_mem_free(&fx.comm[0], b[0]), CES_OK);
    assert_int_equal(ces_mem_free(&fx.comm[0], b[0]), CES_ERR_INVALID);
    snprintf(want, sizeof(want), "ces_mem_free: %p was freed already on this communicator", b[0]);
    assert_string_equal(ces_ctx_last_error(fx.ctx), want);
    assert_int_equal(mapped, 2); /* rank 1's memory is still there */
    assert_int_equal(ces_mem_free(&fx.comm[1], b[1]), CES_OK);
    assert_int_equal(mapped, 0);
    assert_int_equal(live_handles, 0);
    fixture_end(&fx);
}

/* A size that differs from an earlier rank's is refused without taking the
 * allocation's number: the corrected call is that same allocation (it was
 * a new one, matching nothing on the other rank). */
static void test_size_mismatch_retried(void **state)
{
    struct fixture fx;
    void *b[2], *p[2];

    (void)state;
    live_team(&fx, b);
    assert_int_equal(ces_mem_alloc(&fx.comm[0], 2 << 20, &p[0]), CES_OK);
    assert_int_equal(ces_mem_alloc(&fx.comm[1], 4 << 20, &p[1]), CES_ERR_INVALID);
    assert_int_equal(ces_mem_alloc(&fx.comm[1], 2 << 20, &p[1]), CES_OK);
    assert_int_equal((char *)p[0] - (char *)b[0], (char *)p[1] - (char *)b[1]);
    assert_int_equal(fx.comm[0].nalloc, fx.comm[1].nalloc);
    for (uint32_t r = 0; r < 2; r++) {
        assert_int_equal(ces_mem_free(&fx.comm[r], p[r]), CES_OK);
        assert_int_equal(ces_mem_free(&fx.comm[r], b[r]), CES_OK);
    }
    fixture_end(&fx);
}

/* After ces_comm_destroy of one rank of ces_comm_init_all, an allocation on
 * a survivor is refused (it read the destroyed rank's entry: a crash). */
static void test_alloc_after_a_rank_destroyed(void **state)
{
    struct fixture fx;
    void *b[2], *p = NULL;

    (void)state;
    live_team(&fx, b);
    fx.comms[1] = NULL; /* as ces_comm_destroy leaves the team */
    fx.team.alive = 1;
    assert_int_equal(ces_mem_alloc(&fx.comm[0], 1, &p), CES_ERR_INVALID);
    assert_null(p);
    assert_string_equal(ces_ctx_last_error(fx.ctx), "ces_mem_alloc #1: rank 1 of this process "
                                                    "was destroyed; symmetric memory needs every "
                                                    "rank of the team");
    assert_int_equal(fx.comm[0].nalloc, 1);
    fx.comms[1] = &fx.comm[1];
    for (uint32_t r = 0; r < 2; r++)
        assert_int_equal(ces_mem_free(&fx.comm[r], b[r]), CES_OK);
    fixture_end(&fx);
}

/* A ces_group_end that fails on a CUDA error (here its context cannot be
 * made current) leaves the other ranks' parts of the group waiting for this
 * one: the communicator fails with the error, and later calls return it, so
 * that no later group of its can meet the waits of this one; so does a
 * ces_launch.  A usage error (no ces_group_start) leaves it healthy. */
static void test_group_end_failure_fails(void **state)
{
    struct fixture fx;
    struct ces_comm *c;
    struct ces_graph *g = NULL;

    (void)state;
    fixture_init(&fx);
    c = &fx.comm[0];
    ces_wd_init(c);
    assert_int_equal(ces_group_end(c, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_comm_status(c), CES_OK);
    assert_int_equal(ces_group_start(c), CES_OK);
    ctx_fail = 1;
    assert_int_equal(ces_group_end(c, NULL), CES_ERR_CUDA);
    assert_non_null(strstr(ces_ctx_last_error(fx.ctx), "cuCtxSetCurrent"));
    ctx_fail = 0;
    assert_int_equal(ces_comm_status(c), CES_ERR_CUDA);
    assert_false(c->in_group);
    refused(&fx, ces_group_start(c), CES_ERR_CUDA);
    /* later calls name the cause, not only the watchdog's stderr */
    assert_non_null(strstr(ces_ctx_last_error(fx.ctx),
                           "the communicator failed: a collective, group or launch failed: "));
    assert_non_null(strstr(ces_ctx_last_error(fx.ctx), "cuCtxSetCurrent"));
    assert_int_equal(ces_comm_status(&fx.comm[1]), CES_OK);
    pthread_cond_destroy(&c->wd_cond);
    pthread_mutex_destroy(&c->wd_mirror_lock);
    pthread_mutex_destroy(&c->wd_lock);
    /* a launch whose context cannot be made current: the same (its peers may
     * have enqueued their parts) */
    c = &fx.comm[1];
    ces_wd_init(c);
    assert_int_equal(ces_graph_create(fx.ctx, 2, 1, &g), CES_OK);
    ctx_fail = 1;
    assert_int_equal(ces_launch(c, g, NULL, 0, NULL), CES_ERR_CUDA);
    ctx_fail = 0;
    assert_int_equal(ces_comm_status(c), CES_ERR_CUDA);
    ces_graph_destroy(g);
    pthread_cond_destroy(&c->wd_cond);
    pthread_mutex_destroy(&c->wd_mirror_lock);
    pthread_mutex_destroy(&c->wd_lock);
    fixture_end(&fx);
}

/* Signals that no binding names get arrays of the communicator's own, one
 * per name: two long names alike in their first 48 bytes got one array
 * (their keys were cut to one length), so two signals the checker proved
 * apart shared their slots on the GPU.  Binding again finds the same
 * arrays, on both ranks at one offset. */
static void test_long_signal_names_kept_apart(void **state)
{
    char name[2][80];
    struct fixture fx;
    struct ces_graph *g = NULL;
    uint64_t off[2][3], again[3];
    void *b[2];

    (void)state;
    live_team(&fx, b);
    assert_int_equal(ces_graph_create(fx.ctx, 2, 1, &g), CES_OK);
    for (int k = 0; k < 2; k++) {
        memset(name[k], 'x', 70);
        snprintf(name[k] + 70, 10, "_%d", k);
        assert_int_equal(ces_graph_add_signal(g, name[k], CES_U64, 4, NULL), CES_OK);
    }
    assert_int_equal(ces_graph_add_signal(g, "flag", CES_U64, 4, NULL), CES_OK);
    for (uint32_t r = 0; r < 2; r++) {
        assert_int_equal(ces_cuda_bind_signals(&fx.comm[r], g, "launch", NULL, 0, off[r]),
                         CES_OK);
        assert_int_equal(fx.comm[r].signals.len, 3);
        assert_true(off[r][0] != off[r][1] && off[r][0] != off[r][2] && off[r][1] != off[r][2]);
    }
    assert_memory_equal(off[0], off[1], sizeof(off[0]));
    assert_int_equal(ces_cuda_bind_signals(&fx.comm[0], g, "launch", NULL, 0, again), CES_OK);
    assert_memory_equal(again, off[0], sizeof(again));
    assert_int_equal(fx.comm[0].signals.len, 3);
    for (uint32_t r = 0; r < 2; r++) {
        ces_cuda_signals_drop(&fx.comm[r], true);
        ces_vec_free(fx.ctx, &fx.comm[r].signals);
        assert_int_equal(ces_mem_free(&fx.comm[r], b[r]), CES_OK);
    }
    assert_int_equal(mapped, 0);
    ces_graph_destroy(g);
    fixture_end(&fx);
}

/* A call refused for a buffer or signal binding of this rank's own (not
 * bound, not symmetric, too small, overlapping, misaligned): the refusal
 * may be this rank's alone while its peers issue their parts and wait for
 * its, so it fails the communicator with the refusal (it stayed healthy,
 * and a later call's flags met the peers' waits: wrong data, no error).
 * The hand-built communicator is then made healthy
 * again for the next case. */
static void refusal_fails(struct fixture *fx, struct ces_comm *c, int rc, const char *want)
{
    char why[CES_ERRMSG_MAX + 64];

    assert_int_equal(rc, CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx->ctx), want);
    assert_int_equal(ces_comm_status(c), CES_ERR_INVALID);
    snprintf(why, sizeof(why), "a collective, group or launch failed: %s", want);
    assert_string_equal(c->fail_why, why);
    atomic_store(&c->state, CES_OK);
    c->diagnosed = 0;
}

/* ces_launch's bindings, found by name in one pass over them: a buffer
 * bound twice takes its last binding (NULL there: not bound), a signal
 * bound twice must be bound well by each, a binding that names nothing (or
 * no name) is passed over, and the errors come buffer by buffer, then
 * signal by signal (a signal's array before them allocated), each failing
 * the communicator and enqueueing nothing.  A long name shows its first 48
 * bytes and "..." (it showed whole). */
static void launch_refused(struct fixture *fx, struct ces_graph *g, const struct ces_binding *bd,
                           size_t nb, const char *want)
{
    refusal_fails(fx, &fx->comm[0], ces_launch(&fx->comm[0], g, bd, nb, NULL), want);
}

static void test_launch_bindings(void **state)
{
    char bname[80], sname[80], shown[2][64], want[320], stack = 0;
    struct fixture fx;
    struct ces_graph *g = NULL;
    uint32_t f;
    void *b[2];

    (void)state;
    live_team(&fx, b);
    memset(bname, 'b', 70);
    bname[70] = '\0';
    memset(sname, 's', 70);
    sname[70] = '\0';
    snprintf(shown[0], sizeof(shown[0]), "%.48s...", bname);
    snprintf(shown[1], sizeof(shown[1]), "%.48s...", sname);
    assert_int_equal(ces_graph_create(fx.ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_buffer(g, bname, 64, NULL), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U32, 2, &f), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, sname, CES_U64, 4, NULL), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    for (uint32_t r = 0; r < 2; r++) {
        struct ces_op w = {.kind = CES_OP_WRITE, .slot = {f, r, r}, .value = 1};

        assert_int_equal(ces_graph_add_op(g, r, &w), CES_OK);
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    ces_wd_init(&fx.comm[0]);
    {
        struct ces_binding none[] = {{"nothing", b[0]}, {NULL, b[0]}};
        struct ces_binding last_null[] = {{bname, b[0]}, {bname, NULL}};
        struct ces_binding last_bad[] = {{bname, b[0]}, {bname, &stack}};
        struct ces_binding sig_bad[] = {
            {bname, &stack}, {sname, &stack}, {"nothing", NULL}, {bname, b[0]}, {sname, b[0]}};
        struct ces_binding sig_odd[] = {{sname, b[0]}, {bname, b[0]}, {sname, (char *)b[0] + 4}};
        struct ces_binding good[] = {{NULL, NULL}, {sname, b[0]}, {"x", NULL}, {bname, b[0]}};

        snprintf(want, sizeof(want), "ces_launch: buffer %s is not bound", shown[0]);
        launch_refused(&fx, g, none, 2, want);
        launch_refused(&fx, g, last_null, 2, want);
        snprintf(want, sizeof(want),
                 "ces_launch: buffer %s (%p) is not symmetric memory of this communicator "
                 "(allocate it with ces_mem_alloc)",
                 shown[0], (void *)&stack);
        launch_refused(&fx, g, last_bad, 2, want);
        assert_int_equal(fx.comm[0].signals.len, 0);
        snprintf(want, sizeof(want),
                 "signal %s is bound to %p, which is not 32 bytes of symmetric memory of this "
                 "communicator",
                 shown[1], (void *)&stack);
        launch_refused(&fx, g, sig_bad, 5, want);
        assert_int_equal(fx.comm[0].signals.len, 1); /* f's, allocated before */
        snprintf(want, sizeof(want), "signal %s is bound to %p, which is not 8-byte aligned",
                 shown[1], (void *)((char *)b[0] + 4));
        launch_refused(&fx, g, sig_odd, 3, want);
        assert_int_equal(batches + copies + event_ops, 0);
        assert_int_equal(ces_launch(&fx.comm[0], g, good, 4, NULL), CES_OK);
        assert_int_equal(batches, 1);
        assert_int_equal(fx.comm[0].signals.len, 1);
        /* rank 1 takes f's array too, so that both ranks release it */
        ces_wd_init(&fx.comm[1]);
        good[1].ptr = good[3].ptr = b[1];
        assert_int_equal(ces_launch(&fx.comm[1], g, good, 4, NULL), CES_OK);
        assert_int_equal(batches, 2);
    }
    for (uint32_t r = 0; r < 2; r++) {
        ces_cuda_signals_drop(&fx.comm[r], true);
        ces_vec_free(fx.ctx, &fx.comm[r].signals);
        ces_vec_free(fx.ctx, &fx.comm[r].scratch_params);
        pthread_cond_destroy(&fx.comm[r].wd_cond);
        pthread_mutex_destroy(&fx.comm[r].wd_mirror_lock);
        pthread_mutex_destroy(&fx.comm[r].wd_lock);
        assert_int_equal(ces_mem_free(&fx.comm[r], b[r]), CES_OK);
    }
    assert_int_equal(mapped, 0);
    ces_graph_destroy(g);
    fixture_end(&fx);
}

/* Eager launches whose waits the watchdog watches, each on a stream of its
 * own: the 65th stream had no watch slot left, and its launch returned
 * CES_OK with its waits unwatched (a hang there would never be reported).
 * Now it enqueues nothing and returns CES_ERR_LIMIT, naming the limit, and
 * fails the communicator (its peers may have enqueued their parts). */
static void test_launch_past_the_watch_slots(void **state)
{
    struct fixture fx;
    struct ces_graph *g = NULL;
    struct ces_comm *c;
    uint32_t f;
    void *b[2];
    char want[256];

    (void)state;
    watched_team(&fx, b, 0);
    c = &fx.comm[0];
    assert_int_equal(ces_graph_create(fx.ctx, 2, 1, &g), CES_OK);
    assert_int_equal(ces_graph_add_signal(g, "f", CES_U32, 2, &f), CES_OK);
    assert_int_equal(ces_graph_add_block(g, CES_PHASE_EAGER, 1), CES_OK);
    for (uint32_t r = 0; r < 2; r++) {
        struct ces_op w = {.kind = CES_OP_WRITE, .slot = {f, 1 - r, r}, .value = 1};
        struct ces_op v = {.kind = CES_OP_WAIT, .cmp = CES_CMP_EQ, .slot = {f, r, 1 - r},
                           .value = 1};

        assert_int_equal(ces_graph_add_op(g, r, &w), CES_OK);
        assert_int_equal(ces_graph_add_op(g, r, &v), CES_OK);
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    /* rank 1 takes f's array too, so that both ranks release it */
    assert_int_equal(ces_launch(&fx.comm[1], g, NULL, 0, NULL), CES_OK);
    batches = 0;
    for (uintptr_t i = 1; i <= CES_WD_STREAMS; i++)
        assert_int_equal(ces_launch(c, g, NULL, 0, (ces_stream_t)(0x1000 + i)), CES_OK);
    assert_int_equal(c->nwatched, CES_WD_STREAMS);
    assert_int_equal(batches, CES_WD_STREAMS);
    assert_int_equal(ces_launch(c, g, NULL, 0, (ces_stream_t)(0x1000 + CES_WD_STREAMS + 1)),
                     CES_ERR_LIMIT);
    snprintf(want, sizeof(want),
             "rank 0: the watchdog watches at most 64 CUDA streams per communicator, and stream "
             "%p would be the 65th (a stream keeps its slot until ces_comm_destroy)",
             (void *)(uintptr_t)(0x1000 + CES_WD_STREAMS + 1));
    assert_string_equal(ces_ctx_last_error(fx.ctx), want);
    assert_int_equal(batches, CES_WD_STREAMS);
    assert_int_equal(ces_comm_status(c), CES_ERR_LIMIT);
    c->state = CES_OK; /* to free the memory as a healthy rank */
    for (uint32_t r = 0; r < 2; r++) {
        struct ces_comm *cr = &fx.comm[r];

        ces_cuda_signals_drop(cr, true);
        ces_vec_free(fx.ctx, &cr->signals);
        ces_vec_free(fx.ctx, &cr->scratch_params);
        for (uint32_t s = 0; s < cr->nwatched; s++)
            ces_free(fx.ctx, cr->watched[s].steps);
        ces_free(fx.ctx, cr->waits);
        pthread_cond_destroy(&cr->wd_cond);
        pthread_mutex_destroy(&cr->wd_mirror_lock);
        pthread_mutex_destroy(&cr->wd_lock);
        assert_int_equal(ces_mem_free(cr, b[r]), CES_OK);
    }
    assert_int_equal(mapped, 0);
    ces_graph_destroy(g);
    fixture_end(&fx);
}

/* A graph of 2 ranks and `streams` streams, one block of `kind` (1
 * replay), where each rank writes its peer's slot of a signal and waits for
 * its own, on every stream from the last to stream 0, a signal per stream. */
static struct ces_graph *watched_graph(struct fixture *fx, uint32_t streams, uint32_t kind)
{
    struct ces_graph *g = NULL;
    uint32_t f[2];

    assert_int_equal(ces_graph_create(fx->ctx, 2, streams, &g), CES_OK);
    for (uint32_t s = 0; s < streams; s++)
        assert_int_equal(ces_graph_add_signal(g, s == 0 ? "f" : "h", CES_U32, 2, &f[s]),
                         CES_OK);
    assert_int_equal(ces_graph_add_block(g, kind, 1), CES_OK);
    for (uint32_t r = 0; r < 2; r++) {
        for (uint32_t s = streams; s-- > 0;) {
            struct ces_op w = {.kind = CES_OP_WRITE, .stream = s, .slot = {f[s], 1 - r, r},
                               .value = 1};
            struct ces_op v = {.kind = CES_OP_WAIT, .stream = s, .cmp = CES_CMP_EQ,
                               .slot = {f[s], r, 1 - r}, .value = 1};

            assert_int_equal(ces_graph_add_op(g, r, &w), CES_OK);
            assert_int_equal(ces_graph_add_op(g, r, &v), CES_OK);
        }
    }
    assert_int_equal(ces_graph_validate(g, NULL), CES_OK);
    return g;
}

/* Frees what the launches, collectives and groups of the watched team
 * took (what ces_comm_destroy frees), as a healthy rank. */
static void watched_team_end(struct fixture *fx, void **b)
{
    for (uint32_t r = 0; r < 2; r++) {
        struct ces_comm *cr = &fx->comm[r];

        cr->state = CES_OK;
        ces_cuda_signals_drop(cr, true);
        ces_vec_free(fx->ctx, &cr->signals);
        ces_vec_free(fx->ctx, &cr->scratch_params);
        ces_vec_free(fx->ctx, &cr->cap_steps);
        ces_vec_free(fx->ctx, &cr->cap_waits);
        ces_vec_free(fx->ctx, &cr->scratch_ptrs);
        ces_vec_free(fx->ctx, &cr->scratch_sizes);
        ces_cuda_cache_free(cr);
        ces_free(fx->ctx, cr->p2p);
        ces_free(fx->ctx, cr->p2p_cap);
        for (uint32_t s = 0; s < cr->nwatched; s++)
            ces_free(fx->ctx, cr->watched[s].steps);
        ces_free(fx->ctx, cr->waits);
        ces_free(fx->ctx, cr->events);
        pthread_cond_destroy(&cr->wd_cond);
        pthread_mutex_destroy(&cr->wd_mirror_lock);
        pthread_mutex_destroy(&cr->wd_lock);
        assert_int_equal(ces_mem_free(cr, b[r]), CES_OK);
    }
    assert_int_equal(mapped, 0);
    ces_free(fx->ctx, fx->team.group);
    fixture_end(fx);
}

/* A block whose stream 0 waits in two memop calls, a copy between. */
static const char two_waits_text[] =
    "cesync 1\nranks 2\nbuffer x 512\nsignal f u32 2\nsignal h u32 2\nphase eager x1\n"
    "r* over p : write f[$r]@$p = 1\n"
    "r* over p : wait f[$p] >= 1\n"
    "r* over p : copy x[0:64] -> x[256+64*$r:320+64*$r]@$p\n"
    "r* over p : write h[$r]@$p = 1\n"
    "r* over p : wait h[$p] >= 1\n";

/* A launch whose block waits on two streams, one of them a 64th that the
 * watchdog can still watch and the other a 65th: the 64th's memop call
 * (and the fork before it) were enqueued before the 65th's was refused.
 * Now the streams the launch needs are counted first: it is refused before
 * anything is enqueued or a slot given, with the same message, and fails
 * the communicator (the peers may issue their parts); so is one whose
 * stream 0 waits in 65 calls before stream 1 waits.  One that waits in
 * two calls on the 64th stream takes its one slot. */
static void test_launch_past_the_watch_slots_enqueues_nothing(void **state)
{
    struct fixture fx;
    struct ces_graph *g1, *g2, *g;
    struct ces_comm *c;
    struct ces_sb text;
    struct ces_binding x = {"x", NULL};
    void *b[2];
    char want[256];
    CUstream s65 = (CUstream)(uintptr_t)(0x1000 + CES_WD_STREAMS);

    (void)state;
    watched_team(&fx, b, 0);
    c = &fx.comm[0];
    g1 = watched_graph(&fx, 1, CES_PHASE_EAGER);
    g2 = watched_graph(&fx, 2, CES_PHASE_EAGER);
    /* rank 1 takes the arrays too, so that both ranks release them */
    assert_int_equal(ces_launch(&fx.comm[1], g2, NULL, 0, NULL), CES_OK);
    for (uintptr_t i = 1; i < CES_WD_STREAMS; i++)
        assert_int_equal(ces_launch(c, g1, NULL, 0, (ces_stream_t)(0x1000 + i)), CES_OK);
    assert_int_equal(c->nwatched, CES_WD_STREAMS - 1);
    batches = event_ops = 0;
    assert_int_equal(ces_launch(c, g2, NULL, 0, (ces_stream_t)s65), CES_ERR_LIMIT);
    /* (the communicator's own stream 1, after the caller's s65) */
    snprintf(want, sizeof(want),
             "rank 0: the watchdog watches at most 64 CUDA streams per communicator, and stream "
             "%p would be the 65th (a stream keeps its slot until ces_comm_destroy)",
             (void *)c->streams[1]);
    assert_string_equal(ces_ctx_last_error(fx.ctx), want);
    assert_int_equal(batches, 0);
    assert_int_equal(event_ops, 0);
    assert_int_equal(c->nwatched, CES_WD_STREAMS - 1);
    assert_int_equal(ces_comm_status(c), CES_ERR_LIMIT);
    /* nor is a block whose stream 0 waits in 65 memop calls (an event
     * recorded between each two) before stream 1 waits: each stream is
     * counted once (65 entries of stream 0 crowded stream 1 out of the
     * list, and stream 0's calls were enqueued before stream 1's found no
     * slot) */
    c->state = CES_OK;
    ces_sb_init(&text, fx.ctx);
    ces_sb_puts(&text, "cesync 1\nranks 2\nstreams 2\nsignal f u32 2\nphase eager x1\n"
                       "r* over p : write f[$r]@$p = 1\n");
    for (int k = 0; k < 65; k++)
        ces_sb_puts(&text, "r* over p : wait f[$p] >= 1\nr* : record e\n");
    ces_sb_puts(&text, "r* s1 over p : wait f[$p] >= 1\n");
    assert_int_equal(text.status, CES_OK);
    g = ces_test_text_graph(fx.ctx, text.buf);
    ces_sb_free(&text);
    assert_int_equal(ces_launch(c, g, NULL, 0, (ces_stream_t)s65), CES_ERR_LIMIT);
    assert_int_equal(batches + event_ops, 0);
    assert_int_equal(c->nwatched, CES_WD_STREAMS - 1);
    ces_graph_destroy(g);
    /* the 64th stream alone still fits, on rank 0 alive again, also for a
     * block that waits on it in two memop calls (one slot) */
    c->state = CES_OK;
    g = ces_test_text_graph(fx.ctx, two_waits_text);
    x.ptr = b[0];
    assert_int_equal(ces_launch(c, g, &x, 1, (ces_stream_t)s65), CES_OK);
    assert_int_equal(batches, 2);
    assert_int_equal(c->nwatched, CES_WD_STREAMS);
    ces_graph_destroy(g);
    ces_graph_destroy(g1);
    ces_graph_destroy(g2);
    watched_team_end(&fx, b);
}

/* In one process the last rank to end a group issues every rank's part.
 * Rank 1's part needs a 65th watched stream: rank 0's part was enqueued
 * before rank 1's was refused, and waited for it.  Now every rank's
 * streams are counted before any part is issued: nothing is enqueued,
 * rank 1 fails with the limit and rank 0, whose part was prepared but not
 * issued, with CES_ERR_PEER_FAILED naming it. */
static void test_group_past_the_watch_slots_enqueues_nothing(void **state)
{
    struct fixture fx;
    struct ces_graph *g1;
    void *b[2];
    char want[256];

    (void)state;
    watched_team(&fx, b, 0);
    g1 = watched_graph(&fx, 1, CES_PHASE_EAGER);
    /* rank 0 takes the arrays too, so that both ranks release them */
    assert_int_equal(ces_launch(&fx.comm[0], g1, NULL, 0, NULL), CES_OK);
    for (uintptr_t i = 1; i <= CES_WD_STREAMS; i++)
        assert_int_equal(ces_launch(&fx.comm[1], g1, NULL, 0, (ces_stream_t)(0x1000 + i)),
                         CES_OK);
    assert_int_equal(fx.comm[1].nwatched, CES_WD_STREAMS);
    assert_int_equal(ces_group_start(&fx.comm[0]), CES_OK);
    assert_int_equal(ces_send(&fx.comm[0], b[0], 100, 1), CES_OK);
    assert_int_equal(ces_group_end(&fx.comm[0], (ces_stream_t)0x3000), CES_OK);
    assert_int_equal(ces_group_start(&fx.comm[1]), CES_OK);
    assert_int_equal(ces_recv(&fx.comm[1], b[1], 100, 0), CES_OK);
    batches = event_ops = 0;
    assert_int_equal(ces_group_end(&fx.comm[1], (ces_stream_t)0x3001), CES_ERR_LIMIT);
    snprintf(want, sizeof(want),
             "rank 1: the watchdog watches at most 64 CUDA streams per communicator, and stream "
             "%p would be the 65th (a stream keeps its slot until ces_comm_destroy)",
             (void *)(uintptr_t)0x3001);
    assert_string_equal(ces_ctx_last_error(fx.ctx), want);
    assert_int_equal(batches, 0);
    assert_int_equal(event_ops, 0);
    assert_int_equal(fx.comm[1].nwatched, CES_WD_STREAMS);
    assert_int_equal(ces_comm_status(&fx.comm[1]), CES_ERR_LIMIT);
    assert_int_equal(ces_comm_status(&fx.comm[0]), CES_ERR_PEER_FAILED);
    ces_graph_destroy(g1);
    for (uint32_t r = 0; r < 2; r++)
        for (uint32_t s = 1; s < 3; s++)
            fx.comm[r].p2p_streams[s] = NULL;
    watched_team_end(&fx, b);
}

/* In one process the last rank to end a group prepares every rank's part,
 * then issues them in turn; the memop batch call `at` of the group fails
 * (a CUDA error once every part was prepared): 1 in rank 0's part, 2 the
 * first call of rank 1's.
 * The ranks after it, whose parts were never issued, stayed healthy: their
 * ces_group_end had returned CES_OK, and they heard of the failure only
 * from their watchdogs.  Now they fail at once with CES_ERR_PEER_FAILED,
 * naming the rank whose part failed; the ranks before it keep their parts
 * enqueued and healthy (their watchdogs hear of the failure and release
 * them), and the failed rank fails with the error. */
static void group_issue_fails(uint32_t failed, int at)
{
    struct fixture fx;
    void *b[2];
    char err[CES_ERRMSG_MAX], want[CES_ERRMSG_MAX + 128];

    watched_team(&fx, b, 0);
    assert_int_equal(ces_group_start(&fx.comm[0]), CES_OK);
    assert_int_equal(ces_send(&fx.comm[0], b[0], 100, 1), CES_OK);
    assert_int_equal(ces_group_end(&fx.comm[0], (ces_stream_t)0x3000), CES_OK);
    assert_int_equal(ces_group_start(&fx.comm[1]), CES_OK);
    assert_int_equal(ces_recv(&fx.comm[1], b[1], 100, 0), CES_OK);
    batches = copies = 0;
    batch_fail_at = at;
    assert_int_equal(ces_group_end(&fx.comm[1], (ces_stream_t)0x3001), CES_ERR_CUDA);
    snprintf(err, sizeof(err), "%s", ces_ctx_last_error(fx.ctx));
    assert_non_null(strstr(err, "cuStreamBatchMemOp(s, n, p, 0) failed: CUDA_ERROR_? (999)"));
    /* nothing issued after the failed call: rank 0's part is its copy and
     * one batch, rank 1's part starts with a batch */
    assert_int_equal(batches, at);
    assert_int_equal(copies, 1);
    assert_int_equal(ces_comm_status(&fx.comm[failed]), CES_ERR_CUDA);
    for (uint32_t r = 0; r < failed; r++)
        assert_int_equal(ces_comm_status(&fx.comm[r]), CES_OK);
    snprintf(want, sizeof(want), "rank %" PRIu32 " of this process could not issue its part of "
             "the group (%s): this rank's part was not issued", failed, err);
    for (uint32_t r = failed + 1; r < 2; r++) {
        assert_int_equal(ces_comm_status(&fx.comm[r]), CES_ERR_PEER_FAILED);
        assert_string_equal(fx.comm[r].fail_why, want);
    }
    watched_team_end(&fx, b);
}

static void test_group_issue_fails_on_rank_0(void **state)
{
    (void)state;
    group_issue_fails(0, 1);
}

static void test_group_issue_fails_on_rank_1(void **state)
{
    (void)state;
    group_issue_fails(1, 2);
}

/* Records of captured calls that wait (a graph phase of ces_launch, with
 * the watchdog's in-flight words) are kept until ces_comm_destroy, at most
 * CES_WD_CAPTURED: past them a capture ran unwatched (its ENTER write
 * stored 0), and its hang would never be reported.  Now the launch that
 * would need one more is refused before anything is captured or
 * enqueued, naming the limit, and fails the communicator; the last record
 * is still given. */
static void test_launch_past_the_captured_records(void **state)
{
    struct fixture fx;
    struct ces_graph *g;
    struct ces_comm *c;
    void *b[2];

    (void)state;
    watched_team(&fx, b, 0x7000);
    c = &fx.comm[0];
    g = watched_graph(&fx, 1, CES_PHASE_GRAPH);
    /* rank 1 takes the arrays too, so that both ranks release them */
    assert_int_equal(ces_launch(&fx.comm[1], g, NULL, 0, (ces_stream_t)0x2000), CES_OK);
    assert_int_equal(fx.comm[1].cap_steps.len, 1);
    /* every record but the last taken (their room, never written) */
    assert_int_equal(ces_vec_reserve(fx.ctx, &c->cap_steps, sizeof(struct ces_wd_step),
                                     CES_WD_CAPTURED),
                     CES_OK);
    c->cap_steps.len = CES_WD_CAPTURED - 1;
    captures = batches = launches = 0;
    assert_int_equal(ces_launch(c, g, NULL, 0, (ces_stream_t)0x2000), CES_OK);
    assert_int_equal(c->cap_steps.len, CES_WD_CAPTURED);
    assert_int_equal(CES_VEC_AT(&c->cap_steps, struct ces_wd_step, CES_WD_CAPTURED - 1).seq,
                     CES_WD_CAPTURED);
    assert_int_equal(captures, 1);
    assert_int_equal(launches, 1);
    captures = batches = launches = event_ops = 0;
    assert_int_equal(ces_launch(c, g, NULL, 0, (ces_stream_t)0x2000), CES_ERR_LIMIT);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "rank 0: the watchdog keeps at most 1048576 records of captured calls "
                        "per communicator (until ces_comm_destroy); 1048576 are taken and this "
                        "call would need 1 more");
    assert_int_equal(captures + batches + launches + event_ops, 0);
    assert_int_equal(c->cap_steps.len, CES_WD_CAPTURED);
    assert_int_equal(ces_comm_status(c), CES_ERR_LIMIT);
    ces_graph_destroy(g);
    watched_team_end(&fx, b);
}

/* In one process the last rank to end a group issues every rank's part.
 * A rank aborted, or destroyed, after its own ces_group_end got its part
 * issued all the same (work queued on a communicator that promised to do
 * nothing; a destroyed one crashed): now no part is issued, and every live
 * rank fails with CES_ERR_PEER_FAILED, saying which rank.  A rank aborted
 * or destroyed before its own ces_group_end (`before`) never ends the
 * group, which so could never be issued: the other rank's ces_group_end
 * returned CES_OK, and it heard only from its watchdog; now it fails the
 * same way at once. */
static void group_after_a_rank_stopped(int destroyed, int before)
{
    struct fixture fx;
    void *b[2];
    char want[160];

    live_team(&fx, b);
    for (uint32_t r = 0; r < 2; r++)
        ces_wd_init(&fx.comm[r]);
    assert_int_equal(ces_group_start(&fx.comm[0]), CES_OK);
    assert_int_equal(ces_send(&fx.comm[0], b[0], 100, 1), CES_OK);
    if (!before)
        assert_int_equal(ces_group_end(&fx.comm[0], NULL), CES_OK);
    if (destroyed) {
        fx.comms[0] = NULL; /* as ces_comm_destroy leaves the team */
    } else {
        assert_int_equal(ces_comm_abort(&fx.comm[0]), CES_OK);
        /* its ces_group_end returns the failure and ends the group */
        if (before)
            assert_int_equal(ces_group_end(&fx.comm[0], NULL), CES_ERR_TIMEOUT);
    }
    assert_int_equal(ces_group_start(&fx.comm[1]), CES_OK);
    assert_int_equal(ces_recv(&fx.comm[1], b[1], 100, 0), CES_OK);
    assert_int_equal(ces_group_end(&fx.comm[1], NULL), CES_ERR_PEER_FAILED);
    snprintf(want, sizeof(want), "ces_group_end: rank 0 of this process %s %s: no rank's part "
             "of the group was issued",
             destroyed ? "was destroyed" : "failed",
             before ? "before ending the group" : "after its ces_group_end");
    assert_string_equal(ces_ctx_last_error(fx.ctx), want);
    assert_int_equal(ces_comm_status(&fx.comm[1]), CES_ERR_PEER_FAILED);
    assert_int_equal(fx.comm[1].signals.len, 0); /* nothing was prepared to issue */
    fx.comms[0] = &fx.comm[0];
    for (uint32_t r = 0; r < 2; r++) {
        fx.comm[r].state = CES_OK; /* to free the memory as a healthy rank */
        assert_int_equal(ces_mem_free(&fx.comm[r], b[r]), CES_OK);
        pthread_cond_destroy(&fx.comm[r].wd_cond);
        pthread_mutex_destroy(&fx.comm[r].wd_mirror_lock);
        pthread_mutex_destroy(&fx.comm[r].wd_lock);
    }
    ces_free(fx.ctx, fx.team.group);
    fixture_end(&fx);
}

static void test_group_after_a_rank_aborted(void **state)
{
    (void)state;
    group_after_a_rank_stopped(0, 0);
}

static void test_group_after_a_rank_destroyed(void **state)
{
    (void)state;
    group_after_a_rank_stopped(1, 0);
}

static void test_group_with_a_rank_aborted_before(void **state)
{
    (void)state;
    group_after_a_rank_stopped(0, 1);
}

static void test_group_with_a_rank_destroyed_before(void **state)
{
    (void)state;
    group_after_a_rank_stopped(1, 1);
}

/* In one process, rank 0 ends a group (its part waits for the others'),
 * then rank 1's ces_group_end fails on a CUDA error before it ends the
 * group (its context cannot be made current): rank 1 fails with it, and
 * the group can never be issued.  Rank 0's ces_group_end had returned
 * CES_OK and it stayed healthy, hearing of it only from its watchdog; now
 * it fails at once with CES_ERR_PEER_FAILED naming rank 1, and nothing is
 * enqueued. */
static void test_group_end_failure_fails_the_ranks_that_ended(void **state)
{
    struct fixture fx;
    void *b[2];
    char err[CES_ERRMSG_MAX], want[CES_ERRMSG_MAX + 64];

    (void)state;
    live_team(&fx, b);
    for (uint32_t r = 0; r < 2; r++)
        ces_wd_init(&fx.comm[r]);
    assert_int_equal(ces_group_start(&fx.comm[0]), CES_OK);
    assert_int_equal(ces_send(&fx.comm[0], b[0], 100, 1), CES_OK);
    assert_int_equal(ces_group_end(&fx.comm[0], NULL), CES_OK);
    assert_int_equal(ces_group_start(&fx.comm[1]), CES_OK);
    assert_int_equal(ces_recv(&fx.comm[1], b[1], 100, 0), CES_OK);
    batches = copies = 0;
    ctx_fail = 1;
    assert_int_equal(ces_group_end(&fx.comm[1], NULL), CES_ERR_CUDA);
    ctx_fail = 0;
    snprintf(err, sizeof(err), "%s", ces_ctx_last_error(fx.ctx));
    assert_non_null(strstr(err, "cuCtxSetCurrent(c->cuctx) failed: CUDA_ERROR_? (999)"));
    assert_int_equal(batches + copies, 0);
    assert_int_equal(ces_comm_status(&fx.comm[1]), CES_ERR_CUDA);
    snprintf(want, sizeof(want), "a collective, group or launch failed: %s", err);
    assert_string_equal(fx.comm[1].fail_why, want);
    assert_int_equal(ces_comm_status(&fx.comm[0]), CES_ERR_PEER_FAILED);
    assert_string_equal(fx.comm[0].fail_why, "rank 1 of this process failed before ending the "
                                             "group: no rank's part of the group was issued");
    for (uint32_t r = 0; r < 2; r++) {
        fx.comm[r].state = CES_OK; /* to free the memory as a healthy rank */
        assert_int_equal(ces_mem_free(&fx.comm[r], b[r]), CES_OK);
        pthread_cond_destroy(&fx.comm[r].wd_cond);
        pthread_mutex_destroy(&fx.comm[r].wd_mirror_lock);
        pthread_mutex_destroy(&fx.comm[r].wd_lock);
    }
    ces_free(fx.ctx, fx.team.group);
    fixture_end(&fx);
}

/* --- one rank of a team of two processes --------------------------------- */

/* The progress page of two ranks (zeroed), shared with a child forked
 * after, as ces_comm_init shares it over the bootstrap. */
static struct ces_progress_rank *shared_page(void)
{
    int fd = ces_test_tmpfile();
    void *p;

    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 2 * sizeof(struct ces_progress_rank)), 0);
    p = mmap(NULL, 2 * sizeof(struct ces_progress_rank), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
             0);
    close(fd);
    assert_true(p != MAP_FAILED);
    return p;
}

/* Rank `rank` of two, one process each, as ces_comm_init leaves it: its
 * team holds it alone, joined over the bootstrap at `path` (CES_TIMEOUT_MS
 * 1000), with the shared page.  CES_OK, or the bootstrap's error. */
static int proc_rank(struct fixture *fx, uint32_t rank, const char *path,
                     struct ces_progress_rank *page)
{
    struct ces_comm *c = &fx->comm[rank];
    int rc;

    fixture_init(fx);
    fx->comms[0] = c;
    fx->team.nlocal = 1;
    fx->team.first_local = rank;
    fx->team.alive = 1;
    fx->team.multi = 1;
    fx->team.page = page;
    fx->team.timeout_ms = 1000;
    c->timeout_ms = 1000;
    c->queues = 8;
    c->p2p_stage_max = CES_P2P_STAGE_MAX_DEFAULT;
    c->p2p_side_min = CES_P2P_SIDE_MIN_DEFAULT;
    ces_wd_init(c);
    rc = ces_boot_open(fx->ctx, &fx->team.boot, path, rank, 2, 1000);
    fx->team.boot.page = page;
    return rc;
}

static void proc_rank_end(struct fixture *fx, uint32_t rank)
{
    struct ces_comm *c = &fx->comm[rank];

    ces_boot_close(fx->ctx, &fx->team.boot);
    pthread_cond_destroy(&c->wd_cond);
    pthread_mutex_destroy(&c->wd_mirror_lock);
    pthread_mutex_destroy(&c->wd_lock);
    fixture_end(fx);
}

/* Reads until the other end of the pipe is closed (the parent is done). */
static void await_close(int fd)
{
    char ch;

    while (read(fd, &ch, 1) > 0)
        ;
}

/* Two processes: rank 1 (a child) is aborted, so that its ces_group_end
 * (ALLOC: ces_mem_alloc) returns its failure without ever joining the
 * exchange of the declarations (the allocation's sizes and handles); its
 * process lives on, its connection open.  Rank 0's call waited for rank 1's
 * row until the bootstrap's deadline and returned CES_ERR_TIMEOUT, though
 * its watchdog would have failed it with CES_ERR_PEER_FAILED; now rank 1's
 * failure record on the progress page ends the exchange at once with
 * CES_ERR_PEER_FAILED naming rank 1.  The call fails rank 0 with it (the
 * allocation left that to the watchdog, which this test has none of), and
 * nothing is left behind. */
static void exchange_with_a_peer_aborted(int alloc)
{
    struct fixture fx;
    struct ces_progress_rank *page = shared_page();
    char path[128], ch = 0;
    int ready[2], done[2], s = 0;
    void *p = NULL;
    pid_t pid;

    ces_test_sock_path(path, sizeof(path), alloc ? "alloc.sock" : "group.sock");
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(done), 0);
    pid = fork();
    if (pid == 0) {
        struct ces_comm *c;
        int code = 0;

        close(ready[0]);
        close(done[1]);
        if (proc_rank(&fx, 1, path, page) != CES_OK)
            _exit(1);
        c = &fx.comm[1];
        if (ces_group_start(c) != CES_OK || ces_comm_abort(c) != CES_OK)
            code = 2;
        else if ((alloc ? ces_mem_alloc(c, 4 << 20, &p) : ces_group_end(c, NULL)) !=
                 CES_ERR_TIMEOUT)
            code = 3;
        if (write(ready[1], &ch, 1) != 1)
            code = 4;
        await_close(done[0]);
        _exit(code);
    }
    close(ready[1]);
    close(done[0]);
    assert_int_equal(proc_rank(&fx, 0, path, page), CES_OK);
    assert_int_equal(read(ready[0], &ch, 1), 1); /* rank 1 failed */
    if (alloc) {
        assert_int_equal(ces_mem_alloc(&fx.comm[0], 4 << 20, &p), CES_ERR_PEER_FAILED);
        assert_null(p);
        assert_int_equal(live_handles, 0);
        assert_int_equal(mapped, 0);
        assert_int_equal(fx.comm[0].nalloc, 0);
    } else {
        assert_int_equal(ces_group_start(&fx.comm[0]), CES_OK);
        assert_int_equal(ces_group_end(&fx.comm[0], NULL), CES_ERR_PEER_FAILED);
    }
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "bootstrap: rank 1 failed, which ends the exchange");
    assert_int_equal(ces_comm_status(&fx.comm[0]), CES_ERR_PEER_FAILED);
    assert_string_equal(fx.comm[0].fail_why,
                        alloc ? "a symmetric memory allocation failed: bootstrap: rank 1 failed, "
                                "which ends the exchange"
                              : "a collective, group or launch failed: bootstrap: rank 1 failed, "
                                "which ends the exchange");
    close(done[1]);
    assert_int_equal(waitpid(pid, &s, 0), pid);
    assert_true(WIFEXITED(s));
    assert_int_equal(WEXITSTATUS(s), 0);
    close(ready[0]);
    proc_rank_end(&fx, 0);
    munmap(page, 2 * sizeof(struct ces_progress_rank));
}

static void test_group_with_a_peer_process_aborted(void **state)
{
    (void)state;
    exchange_with_a_peer_aborted(0);
}

static void test_alloc_with_a_peer_process_aborted(void **state)
{
    (void)state;
    exchange_with_a_peer_aborted(1);
}

/* Two processes: rank 1's ces_mem_alloc sends its row (its size and its
 * handle) and waits for rank 0, which comes only after the bootstrap's
 * deadline: rank 1 returns CES_ERR_TIMEOUT, its handle released, its row
 * left on the socket.  A retry then read what the failed exchange left:
 * rank 0 took that row for the retry's and imported the released handle
 * (and the next exchange read the retry's row).  Now an allocation that
 * fails in its exchange fails its communicator, as a failed group does:
 * rank 1's retry returns CES_ERR_TIMEOUT, "the communicator failed",
 * making nothing, and rank 0's call, ended at once by rank 1's failure
 * record, returns CES_ERR_PEER_FAILED, imports nothing and fails rank 0
 * with it. */
static void test_alloc_retried_after_a_timeout(void **state)
{
    struct fixture fx;
    struct ces_progress_rank *page = shared_page();
    char path[128], ch = 0;
    int ready[2], done[2], s = 0, rc;
    void *p = NULL;
    pid_t pid;

    (void)state;
    ces_test_sock_path(path, sizeof(path), "retry.sock");
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(done), 0);
    pid = fork();
    if (pid == 0) {
        const char *want = "rank 1: the communicator failed: a symmetric memory allocation "
                           "failed: bootstrap: timed out waiting for rank 0";
        struct ces_comm *c;
        int code = 0;

        close(ready[0]);
        close(done[1]);
        if (proc_rank(&fx, 1, path, page) != CES_OK)
            _exit(1);
        c = &fx.comm[1];
        if (ces_mem_alloc(c, 4 << 20, &p) != CES_ERR_TIMEOUT || live_handles != 0 ||
            ces_comm_status(c) != CES_ERR_TIMEOUT)
            code = 2;
        if (write(ready[1], &ch, 1) != 1) /* rank 0 may come now */
            code = 3;
        if (ces_mem_alloc(c, 4 << 20, &p) != CES_ERR_TIMEOUT || creates != 1 ||
            strncmp(ces_ctx_last_error(fx.ctx), want, strlen(want)) != 0)
            code = code != 0 ? code : 4;
        await_close(done[0]);
        _exit(code);
    }
    close(ready[1]);
    close(done[0]);
    assert_int_equal(proc_rank(&fx, 0, path, page), CES_OK);
    assert_int_equal(read(ready[0], &ch, 1), 1); /* rank 1's call timed out */
    rc = ces_mem_alloc(&fx.comm[0], 4 << 20, &p);
    assert_int_equal(imports, 0); /* the only row there was the failed call's */
    assert_int_equal(rc, CES_ERR_PEER_FAILED);
    assert_null(p);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "bootstrap: rank 1 failed, which ends the exchange");
    assert_int_equal(ces_comm_status(&fx.comm[0]), CES_ERR_PEER_FAILED);
    assert_string_equal(fx.comm[0].fail_why, "a symmetric memory allocation failed: bootstrap: "
                                             "rank 1 failed, which ends the exchange");
    assert_int_equal(ces_mem_alloc(&fx.comm[0], 4 << 20, &p), CES_ERR_PEER_FAILED);
    assert_int_equal(imports, 0);
    assert_int_equal(creates, 1);
    assert_int_equal(live_handles, 0);
    assert_int_equal(mapped, 0);
    close(done[1]);
    assert_int_equal(waitpid(pid, &s, 0), pid);
    assert_true(WIFEXITED(s));
    assert_int_equal(WEXITSTATUS(s), 0);
    close(ready[0]);
    proc_rank_end(&fx, 0);
    munmap(page, 2 * sizeof(struct ces_progress_rank));
}

/* Rank `rank` of two processes (proc_rank): a request past its stride
 * (CES_STRIDE), decided before any exchange, and sizes unlike the other
 * rank's, decided by every rank from the same rows, are refused and leave
 * the communicator healthy, nothing made or taken; the allocation after
 * them is made, at offset 0, the peer's handle imported, and freed.  0, or
 * the step that went wrong. */
static int refusals_then_alloc(struct fixture *fx, uint32_t rank)
{
    struct ces_comm *c = &fx->comm[rank];
    void *p = NULL;

    if (ces_mem_alloc(c, (size_t)2 << 30, &p) != CES_ERR_LIMIT ||
        strncmp(ces_ctx_last_error(fx->ctx), "symmetric memory exhausted", 26) != 0)
        return 1;
    if (ces_comm_status(c) != CES_OK || creates != 0)
        return 2;
    if (ces_mem_alloc(c, rank == 0 ? 2 << 20 : 4 << 20, &p) != CES_ERR_INVALID ||
        strstr(ces_ctx_last_error(fx->ctx), "every rank must allocate the same sizes") == NULL)
        return 3;
    if (ces_comm_status(c) != CES_OK || live_handles != 0 || fx->team.top != 0 || c->nalloc != 0)
        return 4;
    if (ces_mem_alloc(c, 2 << 20, &p) != CES_OK || imports != 1 || live_handles != 2 ||
        mapped != 2)
        return 5;
    if (p != (void *)(uintptr_t)(fx->team.base + rank * fx->team.stride))
        return 6;
    if (ces_mem_free(c, p) != CES_OK || live_handles != 0 || mapped != 0)
        return 7;
    return ces_comm_status(c) == CES_OK ? 0 : 8;
}

/* Two processes: the refusals of ces_mem_alloc that every rank makes alike
 * (refusals_then_alloc) do not fail the communicator, as an allocation
 * that fails in its exchange does; the next allocation is made. */
static void test_alloc_refusals_across_processes(void **state)
{
    struct fixture fx;
    struct ces_progress_rank *page = shared_page();
    char path[128];
    int s = 0;
    pid_t pid;

    (void)state;
    ces_test_sock_path(path, sizeof(path), "refused.sock");
    pid = fork();
    if (pid == 0) {
        if (proc_rank(&fx, 1, path, page) != CES_OK)
            _exit(10);
        _exit(refusals_then_alloc(&fx, 1));
    }
    assert_int_equal(proc_rank(&fx, 0, path, page), CES_OK);
    assert_int_equal(refusals_then_alloc(&fx, 0), 0);
    assert_int_equal(waitpid(pid, &s, 0), pid);
    assert_true(WIFEXITED(s));
    assert_int_equal(WEXITSTATUS(s), 0);
    proc_rank_end(&fx, 0);
    munmap(page, 2 * sizeof(struct ces_progress_rank));
}

/* Rank `rank` of two processes (proc_rank) whose cuMemSetAccess fails:
 * ces_mem_alloc returns CES_ERR_CUDA, nothing left made, naming rank 0's
 * memory, the first whose access failed; rank 1's process, whose GPU it
 * is not, is told that a GPU reaches only a peer's memory, rank 0's, whose
 * own it is, not.  0, or the step that went wrong. */
static int access_denied(struct fixture *fx, uint32_t rank)
{
    static const char head[] = "rank 0's memory cannot be made accessible to the GPU of this "
                               "process";
    static const char peer[] = " (a GPU is given access only to a peer's memory: "
                               "cuDeviceCanAccessPeer): ";
    const char *msg;
    void *p = NULL;

    access_fail = 1;
    if (ces_mem_alloc(&fx->comm[rank], 2 << 20, &p) != CES_ERR_CUDA || p != NULL)
        return 1;
    msg = ces_ctx_last_error(fx->ctx);
    if (strncmp(msg, head, strlen(head)) != 0)
        return 2;
    msg += strlen(head);
    if (rank == 0 ? strncmp(msg, ": ", 2) != 0 ||
                        strstr(msg, "given access only to a peer") != NULL
                  : strncmp(msg, peer, strlen(peer)) != 0)
        return 3;
    return live_handles == 0 && mapped == 0 ? 0 : 4;
}

/* Two processes whose cuMemSetAccess fails (access_denied): across
 * processes no rank can ask whether the GPUs are peers, and the rank
 * whose memory another process's GPU was refused is named, with why; one
 * refused its own memory is named alone (it was told of peers too).  Rank
 * 0's refusal waits for rank 1's (whose exchange its failure would end
 * first). */
static void test_access_denied_across_processes(void **state)
{
    struct fixture fx;
    struct ces_progress_rank *page = shared_page();
    char path[128], ch = 0;
    int s = 0, gate[2], code;
    pid_t pid;

    (void)state;
    ces_test_sock_path(path, sizeof(path), "denied.sock");
    assert_int_equal(pipe(gate), 0);
    pid = fork();
    if (pid == 0) {
        close(gate[0]);
        if (proc_rank(&fx, 1, path, page) != CES_OK)
            _exit(10);
        code = access_denied(&fx, 1);
        if (write(gate[1], &ch, 1) != 1)
            code = code != 0 ? code : 11;
        _exit(code);
    }
    close(gate[1]);
    assert_int_equal(proc_rank(&fx, 0, path, page), CES_OK);
    access_gate = gate[0];
    assert_int_equal(access_denied(&fx, 0), 0);
    close(gate[0]);
    assert_int_equal(waitpid(pid, &s, 0), pid);
    assert_true(WIFEXITED(s));
    assert_int_equal(WEXITSTATUS(s), 0);
    proc_rank_end(&fx, 0);
    munmap(page, 2 * sizeof(struct ces_progress_rank));
}

/* ces_send and ces_recv of more bytes than the buffer holds, at an
 * allocation that does not start the stride: a size near 2^64 wrapped the
 * bound (offset + size) and was taken, to be refused only by the graph's
 * validation at ces_group_end.  Now every size above 2^48 is refused at the
 * call, as the collectives refuse it, and one past the allocation's end
 * names the buffer; the sizes that fit are taken. */
static void test_p2p_size_refused(void **state)
{
    struct fixture fx;
    struct ces_alloc_rec rec[2] = {{.off = 0, .size = 2 << 20, .refs = 2, .live = 1},
                                   {.off = 2 << 20, .size = 2 << 20, .refs = 2, .live = 1}};
    char *q[2], want[160];

    (void)state;
    fixture_init(&fx);
    for (uint32_t i = 0; i < 2; i++)
        assert_int_equal(ces_vec_push(fx.ctx, &fx.team.allocs, sizeof(rec[i]), &rec[i]), CES_OK);
    for (uint32_t r = 0; r < 2; r++) {
        q[r] = (char *)(uintptr_t)(fx.team.base + r * fx.team.stride + rec[1].off);
        assert_int_equal(ces_group_start(&fx.comm[r]), CES_OK);
    }
    assert_int_equal(ces_send(&fx.comm[0], q[0], SIZE_MAX, 1), CES_ERR_INVALID);
    snprintf(want, sizeof(want), "ces_send: bytes must be 1..2^48, not %zu", (size_t)SIZE_MAX);
    assert_string_equal(ces_ctx_last_error(fx.ctx), want);
    assert_int_equal(ces_recv(&fx.comm[1], q[1] + 5, SIZE_MAX - 4, 0), CES_ERR_INVALID);
    snprintf(want, sizeof(want), "ces_recv: bytes must be 1..2^48, not %zu", (size_t)SIZE_MAX - 4);
    assert_string_equal(ces_ctx_last_error(fx.ctx), want);
    assert_int_equal(ces_recv(&fx.comm[1], q[1], (size_t)CES_MAX_BYTES + 1, 0), CES_ERR_INVALID);
    assert_non_null(strstr(ces_ctx_last_error(fx.ctx), "ces_recv: bytes must be 1..2^48"));
    assert_int_equal(ces_send(&fx.comm[0], q[0], 0, 1), CES_ERR_INVALID);
    /* within 2^48, one byte past the allocation */
    assert_int_equal(ces_send(&fx.comm[0], q[0] + 5, (2 << 20) - 4, 1), CES_ERR_INVALID);
    snprintf(want, sizeof(want),
             "ces_send: buffer buf needs %d bytes but only %d are allocated from %p",
             (2 << 20) - 4, (2 << 20) - 5, (void *)(q[0] + 5));
    assert_string_equal(ces_ctx_last_error(fx.ctx), want);
    assert_int_equal(fx.comm[0].ngroup, 0);
    assert_int_equal(fx.comm[1].ngroup, 0);
    /* what fits is taken */
    assert_int_equal(ces_send(&fx.comm[0], q[0] + 5, (2 << 20) - 5, 1), CES_OK);
    assert_int_equal(ces_recv(&fx.comm[1], q[1], 2 << 20, 0), CES_OK);
    assert_int_equal(fx.comm[0].ngroup, 1);
    assert_int_equal(fx.comm[1].ngroup, 1);
    fixture_end(&fx);
}

/* ces_comm_init_env with RANK, WORLD_SIZE or LOCAL_RANK that is not a
 * number of the variable's range: strtoul took '' as rank 0, a sign or a
 * space in front, and a value above UINT32_MAX was cut to 32 bits
 * (RANK=4294967297 of 2 was rank 1).  Each is refused, naming the variable
 * and its value, before anything is set up (no rendezvous is set: a value
 * taken would be refused for that instead). */
static void test_init_env_numbers(void **state)
{
    static const struct {
        const char *rank, *size, *local, *error;
    } rows[] = {
        {"", "2", "0", "RANK must be a number 0..4294967295, not ''"},
        {"4294967297", "2", "0", "RANK must be a number 0..4294967295, not '4294967297'"},
        {"18446744073709551617", "2", "0",
         "RANK must be a number 0..4294967295, not '18446744073709551617'"},
        {"-1", "2", "0", "RANK must be a number 0..4294967295, not '-1'"},
        {"+1", "2", "0", "RANK must be a number 0..4294967295, not '+1'"},
        {" 1", "2", "0", "RANK must be a number 0..4294967295, not ' 1'"},
        {"1x", "2", "0", "RANK must be a number 0..4294967295, not '1x'"},
        {"0", "", "0", "WORLD_SIZE must be a number 0..4294967295, not ''"},
        {"0", "4294967298", "0", "WORLD_SIZE must be a number 0..4294967295, not '4294967298'"},
        {"0", "2", "", "LOCAL_RANK must be a number 0..2147483647, not ''"},
        {"0", "2", "2147483648", "LOCAL_RANK must be a number 0..2147483647, not '2147483648'"},
        {"0", "2", "-0", "LOCAL_RANK must be a number 0..2147483647, not '-0'"},
        /* numbers, refused for what they say */
        {"1", "2", "1", "a communicator of 2 ranks needs a bootstrap path"},
        {"0", "4294967295", "0", "rank 0 of 4294967295: expected 0 <= rank < size <= "},
    };
    struct fixture fx;
    struct ces_comm *c = NULL;

    (void)state;
    fixture_init(&fx);
    unsetenv("CES_RENDEZVOUS");
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        setenv("RANK", rows[i].rank, 1);
        setenv("WORLD_SIZE", rows[i].size, 1);
        setenv("LOCAL_RANK", rows[i].local, 1);
        assert_int_equal(ces_comm_init_env(fx.ctx, NULL, &c), CES_ERR_INVALID);
        assert_null(c);
        /* the last row's message ends in CES_MAX_RANKS */
        if (strncmp(ces_ctx_last_error(fx.ctx), rows[i].error, strlen(rows[i].error)) != 0)
            fail_msg("row %zu: '%s', expected '%s'", i, ces_ctx_last_error(fx.ctx),
                     rows[i].error);
    }
    unsetenv("RANK");
    unsetenv("WORLD_SIZE");
    unsetenv("LOCAL_RANK");
    assert_int_equal(creates, 0);
    fixture_end(&fx);
}

/* A CUDA call of ces_comm_init_all that fails for one rank: the message
 * said the call and the driver's error but not which rank, on which
 * device; now it names both first.  Nothing is left behind (the rank made
 * before it is freed). */
static void init_all_fails(struct fixture *fx, const int *devices, const char *head,
                           const char *tail)
{
    struct ces_comm *comms[2] = {NULL, NULL};

    assert_int_equal(ces_comm_init_all(fx->ctx, 2, devices, comms), CES_ERR_CUDA);
    assert_null(comms[0]);
    assert_null(comms[1]);
    expect_message(ces_ctx_last_error(fx->ctx), head, tail);
}

static void test_init_all_names_the_rank(void **state)
{
    static const int swapped[] = {1, 0};
    struct fixture fx;

    (void)state;
    fixture_init(&fx);
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    retain_fail = 1;
    init_all_fails(&fx, NULL, "rank 1 (device 1): ",
                   ": cuDevicePrimaryCtxRetain(&c->cuctx, c->cudev) failed: CUDA_ERROR_? (2): "
                   "stand-in");
    init_all_fails(&fx, swapped, "rank 0 (device 1): ",
                   ": cuDevicePrimaryCtxRetain(&c->cuctx, c->cudev) failed: CUDA_ERROR_? (2): "
                   "stand-in");
    retain_fail = -1;
    total_fail = 0;
    init_all_fails(&fx, swapped, "rank 1 (device 0): ",
                   ": cuDeviceTotalMem(&total, c->cudev) failed: CUDA_ERROR_? (101): stand-in");
    fixture_end(&fx);
}

/* With CES_SHARE_GPUS=1 ranks of ces_comm_init_all outnumber the GPUs,
 * rank r on GPU r % count; a failure before the GPUs were counted (cuInit,
 * cuDeviceGetCount) named GPU r, which there may not be (rank 1, "device
 * 1", on a machine of one GPU): it names the rank alone, and a failure
 * after it the GPU the rank is on.  Without sharing the device is r from
 * the start. */
static void test_init_all_shared_names_the_device(void **state)
{
    struct fixture fx;

    (void)state;
    fixture_init(&fx);
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    setenv("CES_SHARE_GPUS", "1", 1);
    gpus = 1;
    init_fail_at = 2;
    init_all_fails(&fx, NULL, "rank 1: ", ": cuInit(0) failed: CUDA_ERROR_? (100): stand-in");
    init_fail_at = 0;
    counts = 0;
    count_fail_at = 2;
    init_all_fails(&fx, NULL, "rank 1: ",
                   ": cuDeviceGetCount(&count) failed: CUDA_ERROR_? (3): stand-in");
    count_fail_at = 0;
    retains = 0;
    retain_fail_at = 2;
    init_all_fails(&fx, NULL, "rank 1 (device 0): ",
                   ": cuDevicePrimaryCtxRetain(&c->cuctx, c->cudev) failed: CUDA_ERROR_? (2): "
                   "stand-in");
    retain_fail_at = 0;
    unsetenv("CES_SHARE_GPUS");
    gpus = 2;
    init_fail_at = 2;
    inits = 0;
    init_all_fails(&fx, NULL, "rank 1 (device 1): ",
                   ": cuInit(0) failed: CUDA_ERROR_? (100): stand-in");
    fixture_end(&fx);
}

/* The watchdog's thread not started: the message named neither the rank
 * nor pthread_create's error. */
static void test_watchdog_start_says_why(void **state)
{
    struct fixture fx;
    char want[160];

    (void)state;
    fixture_init(&fx);
    fx.comm[1].team = &fx.team;
    assert_int_equal(ces_wd_start(&fx.comm[1]), CES_ERR_SYSTEM);
    snprintf(want, sizeof(want), "rank 1: cannot start the watchdog thread: %s",
             strerror(EAGAIN));
    assert_string_equal(ces_ctx_last_error(fx.ctx), want);
    assert_false(fx.comm[1].wd_started);
    assert_null(fx.comm[1].wd_peers);
    fixture_end(&fx);
}

/* CES_TIMEOUT_MS, CES_P2P_STAGE_MAX, CES_P2P_SIDE_MIN and CES_SHARE_GPUS
 * as a communicator reads them: a value that was not a number in range was
 * taken for what strtoull made of it ("2s" a timeout of 2 ms, "-1" one of
 * 49 days, "64MB" 64 MiB, "x" the default, "yes" no sharing) or clamped.  Each is refused with
 * CES_ERR_INVALID naming the variable and the value, before any GPU is
 * touched (none is here: init failed on the missing driver instead).  So
 * is a malformed CES_STRIDE (test_stride_refused has its forms), which was
 * read only after the driver was asked: without a GPU, "no GPU". */
static void test_env_settings_refused(void **state)
{
    static const struct {
        const char *name, *value, *error;
    } rows[] = {
        {"CES_TIMEOUT_MS", "2s", "CES_TIMEOUT_MS must be 1..4294967295 milliseconds (digits), "
                                 "not '2s'"},
        {"CES_TIMEOUT_MS", "0", "CES_TIMEOUT_MS must be 1..4294967295 milliseconds (digits), "
                                "not '0'"},
        {"CES_TIMEOUT_MS", "-1", "CES_TIMEOUT_MS must be 1..4294967295 milliseconds (digits), "
                                 "not '-1'"},
        {"CES_TIMEOUT_MS", "4294967296", "CES_TIMEOUT_MS must be 1..4294967295 milliseconds "
                                         "(digits), not '4294967296'"},
        {"CES_TIMEOUT_MS", "2K", "CES_TIMEOUT_MS must be 1..4294967295 milliseconds (digits), "
                                 "not '2K'"},
        {"CES_P2P_STAGE_MAX", "64MB", "CES_P2P_STAGE_MAX must be 0..2^48 bytes (digits, then K, "
                                      "M or G if wanted), not '64MB'"},
        {"CES_P2P_STAGE_MAX", "x", "CES_P2P_STAGE_MAX must be 0..2^48 bytes (digits, then K, M "
                                   "or G if wanted), not 'x'"},
        {"CES_P2P_SIDE_MIN", " 1M", "CES_P2P_SIDE_MIN must be 0..2^48 bytes (digits, then K, M "
                                    "or G if wanted), not ' 1M'"},
        {"CES_P2P_SIDE_MIN", "262145G", "CES_P2P_SIDE_MIN must be 0..2^48 bytes (digits, then K, "
                                        "M or G if wanted), not '262145G'"},
        {"CES_SHARE_GPUS", "yes", "CES_SHARE_GPUS must be 0 or 1, not 'yes'"},
        {"CES_SHARE_GPUS", "2", "CES_SHARE_GPUS must be 0 or 1, not '2'"},
        {"CES_STRIDE", "2MB", "CES_STRIDE must be 1..2^48 bytes (digits, then K, M or G if "
                              "wanted), not '2MB'"},
        {"CES_STRIDE", "0", "CES_STRIDE must be 1..2^48 bytes (digits, then K, M or G if "
                            "wanted), not '0'"},
    };
    struct fixture fx;
    struct ces_comm *comms[2] = {NULL, NULL};

    (void)state;
    fixture_init(&fx);
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        setenv(rows[i].name, rows[i].value, 1);
        assert_int_equal(ces_comm_init_all(fx.ctx, 2, NULL, comms), CES_ERR_INVALID);
        assert_null(comms[0]);
        if (strcmp(ces_ctx_last_error(fx.ctx), rows[i].error) != 0)
            fail_msg("row %zu: '%s', expected '%s'", i, ces_ctx_last_error(fx.ctx),
                     rows[i].error);
        unsetenv(rows[i].name);
    }
    assert_int_equal(creates, 0);
    assert_int_equal(inits, 0); /* the driver never asked */
    fixture_end(&fx);
}

/* CES_STRIDE as init reads it (device_geometry): 0 gave a stride of 0,
 * and a huge value wrapped in the suffix's shift or in round_up (and so in
 * ranks * stride), reserving less than the ranks use.  Each is refused with
 * CES_ERR_INVALID naming the value; unset or empty is the device's memory;
 * what is taken is rounded up to the granularity. */
static void test_stride_refused(void **state)
{
    static const char *const bad[] = {
        "0", "0G", "-1", "+2M", " 2M", "2MB", "M", "1T",
        "281474976710657", "262145G", "268435457M", "18446744073709551615",
        "18446744073709551616", "17179869184G",
    };
    static const struct {
        const char *env;
        uint64_t stride;
    } good[] = {
        {NULL, UINT64_C(80) << 30}, {"", UINT64_C(80) << 30}, {"1", 2 << 20},
        {"3M", 4 << 20}, {"4m", 4 << 20}, {"1G", UINT64_C(1) << 30}, {"1k", 2 << 20},
        {"262144G", CES_MAX_BYTES}, {"281474976710656", CES_MAX_BYTES},
    };
    const uint64_t gran = 2 << 20, total = UINT64_C(80) << 30;
    struct fixture fx;
    char want[160];

    (void)state;
    fixture_init(&fx);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint64_t stride = 7;

        if (ces_cuda_stride(fx.ctx, bad[i], total, gran, &stride) != CES_ERR_INVALID)
            fail_msg("'%s' was taken: %" PRIu64, bad[i], stride);
        assert_int_equal(stride, 7);
        snprintf(want, sizeof(want),
                 "CES_STRIDE must be 1..2^48 bytes (digits, then K, M or G if wanted), not '%s'",
                 bad[i]);
        assert_string_equal(ces_ctx_last_error(fx.ctx), want);
    }
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        uint64_t stride = 7;

        assert_int_equal(ces_cuda_stride(fx.ctx, good[i].env, total, gran, &stride), CES_OK);
        if (stride != good[i].stride)
            fail_msg("'%s': %" PRIu64 ", expected %" PRIu64, good[i].env ? good[i].env : "(unset)",
                     stride, good[i].stride);
    }
    fixture_end(&fx);
}

/* ces_mem_free takes only what ces_mem_alloc returned (cesync.h): a
 * pointer inside an allocation is refused with CES_ERR_INVALID and frees
 * nothing, NULL frees nothing and returns CES_OK.  ces_mem_peer maps any
 * byte of an allocation to a rank's copy, and gives NULL one past its end
 * and for a rank out of range. */
static void test_free_and_peer_edges(void **state)
{
    struct fixture fx;
    void *b[2];
    char want[160], *inside;

    (void)state;
    live_team(&fx, b);
    inside = (char *)b[0] + 4096;
    assert_int_equal(ces_mem_free(&fx.comm[0], inside), CES_ERR_INVALID);
    snprintf(want, sizeof(want),
             "ces_mem_free: %p is not an allocation of ces_mem_alloc on this communicator",
             (void *)inside);
    assert_string_equal(ces_ctx_last_error(fx.ctx), want);
    assert_int_equal(ces_mem_free(&fx.comm[0], NULL), CES_OK);
    assert_int_equal(mapped, 2);
    assert_ptr_equal(ces_mem_peer(&fx.comm[0], inside, 1), (char *)b[1] + 4096);
    assert_null(ces_mem_peer(&fx.comm[0], b[0], 2));
    assert_null(ces_mem_peer(&fx.comm[0], (char *)b[0] + (4 << 20), 1));
    for (uint32_t r = 0; r < 2; r++)
        assert_int_equal(ces_mem_free(&fx.comm[r], b[r]), CES_OK);
    assert_int_equal(mapped, 0);
    assert_int_equal(live_handles, 0);
    fixture_end(&fx);
}

/* Allocates `bytes` on both ranks of the fixture into p[]; each at
 * `off` in its rank's stride. */
static void alloc_both_at(struct fixture *fx, size_t bytes, void **p, uint64_t off)
{
    for (uint32_t r = 0; r < 2; r++) {
        assert_int_equal(ces_mem_alloc(&fx->comm[r], bytes, &p[r]), CES_OK);
        assert_ptr_equal(p[r], (void *)(uintptr_t)(fx->team.base + r * fx->team.stride + off));
    }
}

static void free_both(struct fixture *fx, void **p)
{
    for (uint32_t r = 0; r < 2; r++)
        assert_int_equal(ces_mem_free(&fx->comm[r], p[r]), CES_OK);
}

/* ces_mem_alloc's sizes at their edges, on a team of two ranks in one
 * process with a stride of 1 GiB: 0 and 2^48 + 1 bytes are refused with
 * CES_ERR_INVALID; 2^48 is a size, refused for the room only
 * (CES_ERR_LIMIT, nothing made); the whole stride fits.  A freed range is
 * taken again by an allocation of its size, at its offset (the first
 * freed range that fits, else the top), but not while a later allocation
 * lies in it. */
static void test_alloc_size_edges(void **state)
{
    struct fixture fx;
    void *a[2], *b[2], *c[2], *d[2], *p = NULL;
    char want[160];

    (void)state;
    fixture_init(&fx);
    fx.team.alive = 2;
    assert_int_equal(ces_mem_alloc(&fx.comm[0], 0, &p), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx), "ces_mem_alloc: bytes must be 1..2^48, not 0");
    assert_int_equal(ces_mem_alloc(&fx.comm[0], (size_t)CES_MAX_BYTES + 1, &p), CES_ERR_INVALID);
    snprintf(want, sizeof(want), "ces_mem_alloc: bytes must be 1..2^48, not %zu",
             (size_t)CES_MAX_BYTES + 1);
    assert_string_equal(ces_ctx_last_error(fx.ctx), want);
    assert_int_equal(ces_mem_alloc(&fx.comm[0], (size_t)CES_MAX_BYTES, &p), CES_ERR_LIMIT);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "symmetric memory exhausted: 281474976710656 bytes requested, 0 of "
                        "1073741824 per rank in use (CES_STRIDE)");
    assert_null(p);
    assert_int_equal(fx.comm[0].nalloc, 0);
    assert_int_equal(creates, 0);
    alloc_both_at(&fx, 4 << 20, a, 0);
    free_both(&fx, a);
    alloc_both_at(&fx, 4 << 20, b, 0); /* a's range again */
    assert_int_equal(fx.team.top, 4 << 20);
    free_both(&fx, b);
    alloc_both_at(&fx, 2 << 20, c, 0);
    alloc_both_at(&fx, 2 << 20, d, 4 << 20); /* a's and b's range holds c: the top */
    assert_int_equal(fx.team.top, 6 << 20);
    free_both(&fx, c);
    free_both(&fx, d);
    assert_int_equal(live_handles, 0);
    fixture_end(&fx);
    fixture_init(&fx);
    fx.team.alive = 2;
    alloc_both_at(&fx, (size_t)1 << 30, a, 0);
    assert_int_equal(fx.team.top, fx.team.stride);
    free_both(&fx, a);
    fixture_end(&fx);
}

/* cuMemSetAccess gets each device of the process once: ranks of one
 * process that share a GPU (CES_SHARE_GPUS=1) give it one descriptor. */
static void test_access_once_per_device(void **state)
{
    struct fixture fx;
    void *p[2];

    (void)state;
    fixture_init(&fx);
    fx.team.alive = 2;
    alloc_both_at(&fx, 2 << 20, p, 0);
    assert_int_equal(access_devices, 2);
    free_both(&fx, p);
    fx.comm[1].cudev = 0;
    alloc_both_at(&fx, 2 << 20, p, 0);
    assert_int_equal(access_devices, 1);
    free_both(&fx, p);
    fixture_end(&fx);
}

/* ces_comm_init_all with the devices named by the caller: one that the
 * machine lacks is refused with CES_ERR_INVALID naming the rank and the
 * device, with CES_SHARE_GPUS=1 too (only a device derived from the rank
 * wraps onto the GPUs). */
static void test_init_all_device_refused(void **state)
{
    static const int two[] = {0, 2}, three[] = {0, 3};
    struct fixture fx;
    struct ces_comm *comms[2] = {NULL, NULL};

    (void)state;
    fixture_init(&fx);
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    assert_int_equal(ces_comm_init_all(fx.ctx, 2, two, comms), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "rank 1: device 2 does not exist (this machine has 2)");
    setenv("CES_SHARE_GPUS", "1", 1);
    assert_int_equal(ces_comm_init_all(fx.ctx, 2, three, comms), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "rank 1: device 3 does not exist (this machine has 2)");
    unsetenv("CES_SHARE_GPUS");
    assert_null(comms[0]);
    assert_null(comms[1]);
    fixture_end(&fx);
}

/* ces_comm_init_all refuses ranks that one GPU cannot hold: more than
 * CES_CUDA_GPU_RANKS_MAX on one GPU, and two on one GPU where the streams
 * share hardware queues (CUDA_DEVICE_MAX_CONNECTIONS=1), each with
 * CES_ERR_UNSUPPORTED and why; nothing is left made. */
static void test_init_all_crowds_refused(void **state)
{
    struct fixture fx;
    struct ces_comm *comms[CES_CUDA_GPU_RANKS_MAX + 1];

    (void)state;
    fixture_init(&fx);
    setenv("CES_SHARE_GPUS", "1", 1);
    gpus = 1;
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    assert_int_equal(ces_comm_init_all(fx.ctx, CES_CUDA_GPU_RANKS_MAX + 1, NULL, comms),
                     CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "5 ranks of one process on GPU 0: at most 4 (their streams would "
                        "outnumber its hardware queues, and a wait of one rank could hold "
                        "another's writes; 8 on one H200 deadlocked)");
    for (uint32_t i = 0; i <= CES_CUDA_GPU_RANKS_MAX; i++)
        assert_null(comms[i]);
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 1);
    assert_int_equal(ces_comm_init_all(fx.ctx, 2, NULL, comms), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "ranks 0 and 1 share GPU 0 in one process, whose streams "
                        "CUDA_DEVICE_MAX_CONNECTIONS=1 puts on 1 hardware queue: a wait of one "
                        "rank would hold the other's writes behind it for ever (one process per "
                        "rank, or 8 queues or more)");
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    unsetenv("CES_SHARE_GPUS");
    assert_null(comms[0]);
    fixture_end(&fx);
}

/* Every rank maps every other's memory, which a GPU may access only where
 * the two are peers (cuDeviceCanAccessPeer): ces_comm_init_all of 3 ranks
 * on 3 GPUs, GPU 2 unable to reach GPU 0, is refused with
 * CES_ERR_UNSUPPORTED naming both ranks and GPUs, before any memory is
 * made (the first ces_mem_alloc failed instead, cuMemSetAccess's
 * CUDA_ERROR_INVALID_DEVICE naming neither); the other direction alike;
 * a query that fails names the rank; nothing is left made. */
static void test_init_all_peers_refused(void **state)
{
    struct fixture fx;
    struct ces_comm *comms[3] = {NULL, NULL, NULL};

    (void)state;
    fixture_init(&fx);
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    gpus = 3;
    peer_from = 2;
    peer_to = 0;
    assert_int_equal(ces_comm_init_all(fx.ctx, 3, NULL, comms), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "ranks 0 and 2: GPU 2 cannot access GPU 0's memory "
                        "(cuDeviceCanAccessPeer: they are not peers, by NVLink or PCIe); every "
                        "rank maps every other rank's memory, so every pair of GPUs must be "
                        "peers");
    peer_from = 1;
    peer_to = 2;
    assert_int_equal(ces_comm_init_all(fx.ctx, 3, NULL, comms), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "ranks 1 and 2: GPU 1 cannot access GPU 2's memory "
                        "(cuDeviceCanAccessPeer: they are not peers, by NVLink or PCIe); every "
                        "rank maps every other rank's memory, so every pair of GPUs must be "
                        "peers");
    for (uint32_t i = 0; i < 3; i++)
        assert_null(comms[i]);
    assert_int_equal(creates, 0);
    peer_fail = 1;
    init_all_fails(&fx, NULL, "rank 0 (device 0): ",
                   ": cuDeviceCanAccessPeer(&ab, a->cudev, b->cudev) failed: CUDA_ERROR_? "
                   "(101): stand-in");
    fixture_end(&fx);
}

/* ces_comm_init refuses a rank not below the size, a bootstrap path that
 * is empty where there are peers to meet, and more processes than one
 * message can pass the memory handles of, before anything is set up; it
 * and ces_comm_init_all refuse a device below 0 before the driver is asked
 * too (it said "(this machine has 2)", and without a GPU "no GPU": a
 * cesync built without CUDA, which makes the same checks, could not say
 * the first). */
static void test_init_refusals(void **state)
{
    static const int negative[] = {0, -1};
    struct fixture fx;
    struct ces_comm *c = NULL, *comms[2] = {NULL, NULL};
    char none[128]; /* a path no socket is bound to: refused before */

    (void)state;
    ces_test_sock_path(none, sizeof(none), "none.sock");
    fixture_init(&fx);
    setenv("CES_TIMEOUT_MS", "200", 1); /* a call that went on would give up soon */
    assert_int_equal(ces_comm_init(fx.ctx, 2, 2, 0, none, &c),
                     CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "rank 2 of 2: expected 0 <= rank < size <= 1024");
    assert_int_equal(ces_comm_init(fx.ctx, 0, 2, 0, "", &c), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "a communicator of 2 ranks needs a bootstrap path");
    /* a bootstrap name refused as such before the driver is asked (without
     * a GPU it said "no GPU" first) */
    assert_int_equal(ces_comm_init(fx.ctx, 0, 2, 0, "@", &c), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "bootstrap abstract name '@' is empty: a name follows the '@'");
    {
        char longer[120];

        memset(longer, 'a', 108); /* a path of 108 bytes */
        longer[108] = '\0';
        assert_int_equal(ces_comm_init(fx.ctx, 1, 2, 0, longer, &c), CES_ERR_INVALID);
        assert_memory_equal(ces_ctx_last_error(fx.ctx), "bootstrap path 'aaa", 19);
        longer[0] = '@'; /* 108 bytes after it */
        longer[108] = 'a';
        longer[109] = '\0';
        assert_int_equal(ces_comm_init(fx.ctx, 1, 2, 0, longer, &c), CES_ERR_INVALID);
        assert_memory_equal(ces_ctx_last_error(fx.ctx), "bootstrap abstract name '@aa", 28);
    }
    /* refused before it joins: its first allocation would fail */
    assert_int_equal(ces_comm_init(fx.ctx, 250, 251, 0, none, &c),
                     CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "a communicator of 251 processes: at most 250 (each symmetric allocation "
                        "passes every process's memory handle through rank 0 in one message)");
    assert_int_equal(ces_comm_init(fx.ctx, 0, 1, -1, NULL, &c), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "rank 0: device -1 does not exist (devices are numbered from 0)");
    assert_int_equal(ces_comm_init_all(fx.ctx, 2, negative, comms), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "rank 1: device -1 does not exist (devices are numbered from 0)");
    assert_null(comms[0]);
    unsetenv("CES_TIMEOUT_MS");
    assert_null(c);
    assert_int_equal(inits, 0);
    fixture_end(&fx);
}

/* The progress page's file where /dev/shm cannot hold it is made in
 * TMPDIR (it was always /tmp): unlinked at once, sized, nothing left in
 * the directory; where neither can, both directories are named. */
static void test_page_file_in_tmpdir(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    char *saved = ces_test_env_save("TMPDIR");
    char dir[CES_TEST_TMPDIR_SIZE], fdpath[64], target[512], entries[256];
    struct stat sb;
    ssize_t n;
    int fd = -1;

    (void)state;
    snprintf(dir, sizeof(dir), "%s", ces_test_tmpdir());
    assert_int_equal(setenv("TMPDIR", dir, 1), 0);
    assert_int_equal(ces_cuda_page_create(ctx, "/nonexistent-shm", 4096, &fd), CES_OK);
    snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
    n = readlink(fdpath, target, sizeof(target) - 1);
    assert_true(n > 0);
    target[n] = '\0';
    /* DIR/cesync-XXXXXX (deleted) */
    assert_int_equal(strncmp(target, dir, strlen(dir)), 0);
    assert_int_equal(strncmp(target + strlen(dir), "/cesync-", 8), 0);
    assert_string_equal(target + strlen(dir) + 14, " (deleted)");
    assert_int_equal(fstat(fd, &sb), 0);
    assert_int_equal(sb.st_size, 4096);
    close(fd);
    ces_test_dir_entries(dir, entries, sizeof(entries));
    assert_string_equal(entries, "");
    assert_int_equal(setenv("TMPDIR", "/nonexistent-tmp", 1), 0);
    assert_int_equal(ces_cuda_page_create(ctx, "/nonexistent-shm", 4096, &fd), CES_ERR_SYSTEM);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "cannot create the progress page in /nonexistent-shm or in "
                        "/nonexistent-tmp (TMPDIR): No such file or directory");
    ces_test_env_restore("TMPDIR", saved);
    assert_int_equal(rmdir(dir), 0);
    ces_test_ctx_end(ctx, &st);
}

/* --- what a launch and a collective enqueue -------------------------------- */

/* The address of byte `off` of rank r's part of the symmetric allocation
 * at p (rank 0's pointer), as the backend computes it. */
static CUdeviceptr sym_addr(struct fixture *fx, const void *p, uint32_t r, uint64_t off)
{
    uint64_t at = 0;

    assert_non_null(ces_team_find(&fx->team, 0, p, &at));
    return fx->team.base + (CUdeviceptr)r * fx->team.stride + at + off;
}

/* Signal i's offset in the symmetric range, as c's launches bound it. */
static uint64_t sig_off(struct ces_comm *c, const struct ces_graph *g, uint32_t i)
{
    uint64_t off[8];

    assert_true(ces_graph_nsignals(g) <= 8);
    assert_int_equal(ces_cuda_bind_signals(c, g, "launch", NULL, 0, off), CES_OK);
    return off[i];
}

/* Launches g (its buffer x bound to each rank's allocation) on stream s
 * of rank 1, then of rank 0, whose memop call `fail_at` fails (0: none):
 * rank 1 takes the same arrays, so that both ranks release them, and the
 * logs and counts hold rank 0's calls alone.  Returns rank 0's return. */
static int launch_both(struct fixture *fx, const struct ces_graph *g, void **b, CUstream s,
                       int fail_at)
{
    struct ces_binding x = {"x", b[1]};

    assert_int_equal(ces_launch(&fx->comm[1], g, &x, 1, (ces_stream_t)s), CES_OK);
    x.ptr = b[0];
    logs_clear();
    batches = copies = captures = launches = 0;
    batch_fail_at = fail_at;
    return ces_launch(&fx->comm[0], g, &x, 1, (ces_stream_t)s);
}

/* Memop k of the log, on stream s: its operation, address, value (the low
 * 32 bits only where it is 32 bits wide) and flags (a barrier's type). */
static void memop_is(int k, CUstream s, CUstreamBatchMemOpType op, CUdeviceptr addr, uint64_t v,
                     unsigned int flags)
{
    const CUstreamBatchMemOpParams *p = &memop_log[k].p;

    assert_true(k < nmemops);
    assert_ptr_equal(memop_log[k].s, s);
    assert_int_equal(p->operation, op);
    switch (op) {
    case CU_STREAM_MEM_OP_WRITE_VALUE_32:
    case CU_STREAM_MEM_OP_WRITE_VALUE_64:
        assert_int_equal(p->writeValue.address, addr);
        if (op == CU_STREAM_MEM_OP_WRITE_VALUE_64)
            assert_int_equal(p->writeValue.value64, v);
        else
            assert_int_equal(p->writeValue.value, v);
        assert_int_equal(p->writeValue.flags, flags);
        break;
    case CU_STREAM_MEM_OP_WAIT_VALUE_32:
    case CU_STREAM_MEM_OP_WAIT_VALUE_64:
        assert_int_equal(p->waitValue.address, addr);
        if (op == CU_STREAM_MEM_OP_WAIT_VALUE_64)
            assert_int_equal(p->waitValue.value64, v);
        else
            assert_int_equal(p->waitValue.value, v);
        assert_int_equal(p->waitValue.flags, flags);
        break;
    default:
        assert_int_equal(op, CU_STREAM_MEM_OP_BARRIER);
        assert_int_equal(p->memoryBarrier.flags, flags);
        break;
    }
}

/* Copy k of the log: on stream s, dst <- src, n bytes, in a batch call
 * (with the backend's attributes) or not. */
static void copy_is(int k, cudaStream_t s, CUdeviceptr dst, CUdeviceptr src, size_t n, int batched)
{
    assert_true(k < ncopies);
    assert_ptr_equal(copy_log[k].s, s);
    assert_int_equal((uintptr_t)copy_log[k].dst, dst);
    assert_int_equal((uintptr_t)copy_log[k].src, src);
    assert_int_equal(copy_log[k].n, n);
    assert_int_equal(copy_log[k].batched, batched);
    if (batched) {
        assert_int_equal(copy_log[k].attr.srcAccessOrder, cudaMemcpySrcAccessOrderStream);
        assert_int_equal(copy_log[k].attr.flags, cudaMemcpyFlagPreferOverlapWithCompute);
    }
}

static void event_is(int k, int wait, CUevent e, CUstream s)
{
    assert_true(k < nevents);
    assert_int_equal(event_log[k].wait, wait);
    assert_ptr_equal(event_log[k].e, e);
    assert_ptr_equal(event_log[k].s, s);
}

/* The watchdog's record of a wait. */
static void wait_is(const struct ces_wd_wait *w, CUdeviceptr addr, uint64_t v, uint8_t width,
                    uint8_t cmp, uint32_t idx, const char *name, uint64_t spos)
{
    assert_int_equal(w->addr, addr);
    assert_int_equal(w->value, v);
    assert_int_equal(w->width, width);
    assert_int_equal(w->cmp, cmp);
    assert_int_equal(w->rank, 0);
    assert_int_equal(w->idx, idx);
    assert_string_equal(w->name, name);
    assert_int_equal(w->spos, spos);
}

/* An eager launch of two blocks, each a batch of copies (one of them of no
 * bytes), a fence, a 32- and a 64-bit write to the peer and waits for the
 * peer's (== and >=).  Rank 0 must enqueue exactly: per block one
 * cudaMemcpyBatchAsync of the two copies with bytes (stream order for the
 * sources, overlap with compute preferred) at the addresses of the flat
 * symmetric range, then one memop call of a system-wide barrier, the
 * writes and waits with their values and comparisons, and the progress
 * write of the block's step number into its stream's word; the watchdog
 * holds each block's step (its number, first wait, waits, position, call)
 * and every wait with its position as `cesync check` numbers it.  On the
 * legacy default stream (NULL or cudaStreamLegacy), which the batch call
 * refuses, each copy is a cudaMemcpyAsync of its own. */
static const char issue_text[] =
    "cesync 1\nranks 2\nbuffer x 512\nsignal f u32 2\nsignal h u64 2\nphase eager x2\n"
    "r* : batch\n"
    "r* over p : copy x[0:0] -> x[500:500]@$p\n"
    "r* over p : copy x[0:64] -> x[256+64*$r:320+64*$r]@$p\n"
    "r* over p : copy x[128:136] -> x[400+8*$r:408+8*$r]@$p\n"
    "r* : end\n"
    "r* : fence\n"
    "r* over p : write f[$r]@$p = $i\n"
    "r* over p : write h[$r]@$p = $i + 4294967296\n"
    "r* over p : wait f[$p] == $i\n"
    "r* over p : wait h[$p] >= $i + 4294967296\n";

static void test_launch_issues_what_was_lowered(void **state)
{
    static const cudaStream_t legacy[] = {NULL, cudaStreamLegacy};
    const uint64_t big = UINT64_C(1) << 32;
    struct fixture fx;
    struct ces_graph *g;
    struct ces_comm *c;
    CUdeviceptr f, h, base, peer;
    CUstream s = (CUstream)0x2000;
    void *b[2];

    (void)state;
    watched_team(&fx, b, 0x7000);
    c = &fx.comm[0];
    g = ces_test_text_graph(fx.ctx, issue_text);
    assert_int_equal(launch_both(&fx, g, b, s, 0), CES_OK);
    base = fx.team.base;
    peer = base + fx.team.stride;
    f = sig_off(c, g, 0);
    h = sig_off(c, g, 1);
    assert_int_equal(ncopies, 4);
    assert_int_equal(nmemops, 12);
    for (int j = 0; j < 2; j++) {
        uint64_t i = (uint64_t)j + 1;
        int m = 6 * j;

        copy_is(2 * j, s, sym_addr(&fx, b[0], 1, 256), sym_addr(&fx, b[0], 0, 0), 64, 1);
        copy_is(2 * j + 1, s, sym_addr(&fx, b[0], 1, 400), sym_addr(&fx, b[0], 0, 128), 8, 1);
        memop_is(m, s, CU_STREAM_MEM_OP_BARRIER, 0, 0, CU_STREAM_MEMORY_BARRIER_TYPE_SYS);
        memop_is(m + 1, s, CU_STREAM_MEM_OP_WRITE_VALUE_32, peer + f, i, 0);
        memop_is(m + 2, s, CU_STREAM_MEM_OP_WRITE_VALUE_64, peer + h, i + big, 0);
        memop_is(m + 3, s, CU_STREAM_MEM_OP_WAIT_VALUE_32, base + f + 4, i,
                 CU_STREAM_WAIT_VALUE_EQ);
        memop_is(m + 4, s, CU_STREAM_MEM_OP_WAIT_VALUE_64, base + h + 8, i + big,
                 CU_STREAM_WAIT_VALUE_GEQ);
        memop_is(m + 5, s, CU_STREAM_MEM_OP_WRITE_VALUE_64, c->progress_dev, i, 0);
        assert_int_equal(memop_log[m].call, memop_log[m + 5].call);
    }
    assert_int_equal(c->nwatched, 1);
    assert_ptr_equal(c->watched[0].stream, s);
    assert_int_equal(atomic_load(&c->watched[0].enqueued), 2);
    assert_int_equal(c->nwaits_total, 4);
    for (uint64_t j = 0; j < 2; j++) {
        const struct ces_wd_step *st = &c->watched[0].steps[j + 1];

        wait_is(&c->waits[2 * j], base + f + 4, j + 1, 32, CES_CMP_EQ, 1, "f", 8 + 10 * j);
        wait_is(&c->waits[2 * j + 1], base + h + 8, j + 1 + big, 64, CES_CMP_GEQ, 1, "h",
                9 + 10 * j);
        assert_int_equal(st->seq, j + 1);
        assert_int_equal(st->first_wait, 2 * j);
        assert_int_equal(st->nwaits, 2);
        assert_int_equal(st->stream, 0);
        assert_int_equal(st->spos, 8 + 10 * j);
        assert_int_equal(st->call, j);
        assert_string_equal(st->what, "launch");
        assert_int_equal(st->progress, 1);
    }
    for (size_t k = 0; k < sizeof(legacy) / sizeof(legacy[0]); k++) {
        struct ces_binding x = {"x", b[0]};

        logs_clear();
        assert_int_equal(ces_launch(c, g, &x, 1, (ces_stream_t)legacy[k]), CES_OK);
        assert_int_equal(ncopies, 4);
        for (int j = 0; j < 4; j += 2) {
            copy_is(j, legacy[k], sym_addr(&fx, b[0], 1, 256), sym_addr(&fx, b[0], 0, 0), 64, 0);
            copy_is(j + 1, legacy[k], sym_addr(&fx, b[0], 1, 400), sym_addr(&fx, b[0], 0, 128),
                    8, 0);
        }
    }
    ces_graph_destroy(g);
    watched_team_end(&fx, b);
}

/* A graph phase of three replays launched on a stream the caller captures:
 * it is issued once per replay into the caller's capture, lowered for
 * capture: each copy of the batch a call of its own (the batch call is
 * not capturable), each memop call opened by the ENTER write of its captured
 * record's id into its stream's in-flight word and closed by the EXIT
 * write of 0.  The watchdog keeps one record per replay, each wait's
 * position counted on from the replay before (as `cesync check` numbers
 * the replays), and no eager step.  With room for two records left, the
 * launch that needs three is refused before anything is enqueued.  An
 * eager phase launched there is lowered for capture as well. */
static const char captured_text[] =
    "cesync 1\nranks 2\nbuffer x 512\nsignal f u32 2\nphase graph x3\n"
    "r* : batch\n"
    "r* over p : copy x[0:64] -> x[256+64*$r:320+64*$r]@$p\n"
    "r* over p : copy x[64:72] -> x[400+8*$r:408+8*$r]@$p\n"
    "r* : end\n"
    "r* over p : write f[$r]@$p = 1\n"
    "r* over p : wait f[$p] >= 1\n";

static void test_launch_captured_by_the_caller(void **state)
{
    struct fixture fx;
    struct ces_graph *g;
    struct ces_comm *c;
    struct ces_binding x = {"x", NULL};
    CUstream s = (CUstream)0x3000;
    CUdeviceptr f;
    void *b[2];

    (void)state;
    watched_team(&fx, b, 0x7000);
    c = &fx.comm[0];
    g = ces_test_text_graph(fx.ctx, captured_text);
    capturing_on[0] = (cudaStream_t)s;
    assert_int_equal(launch_both(&fx, g, b, s, 0), CES_OK);
    f = sig_off(c, g, 0);
    assert_int_equal(captures + launches, 0);
    assert_int_equal(ncopies, 6);
    assert_int_equal(nmemops, 12);
    for (int j = 0; j < 3; j++) {
        const struct ces_wd_step *st = &CES_VEC_AT(&c->cap_steps, struct ces_wd_step, j);

        copy_is(2 * j, s, sym_addr(&fx, b[0], 1, 256), sym_addr(&fx, b[0], 0, 0), 64, 0);
        copy_is(2 * j + 1, s, sym_addr(&fx, b[0], 1, 400), sym_addr(&fx, b[0], 0, 64), 8, 0);
        memop_is(4 * j, s, CU_STREAM_MEM_OP_WRITE_VALUE_64, CES_WD_FLIGHT_DEV(c, 0),
                 (uint64_t)j + 1, 0);
        memop_is(4 * j + 1, s, CU_STREAM_MEM_OP_WRITE_VALUE_32,
                 fx.team.base + fx.team.stride + f, 1, 0);
        memop_is(4 * j + 2, s, CU_STREAM_MEM_OP_WAIT_VALUE_32, fx.team.base + f + 4, 1,
                 CU_STREAM_WAIT_VALUE_GEQ);
        memop_is(4 * j + 3, s, CU_STREAM_MEM_OP_WRITE_VALUE_64, CES_WD_FLIGHT_DEV(c, 0), 0, 0);
        assert_int_equal(st->seq, j + 1);
        assert_int_equal(st->first_wait, j);
        assert_int_equal(st->nwaits, 1);
        assert_int_equal(st->spos, 5 + 6 * j);
        assert_int_equal(st->call, 0);
        assert_string_equal(st->what, "launch");
        wait_is(&CES_VEC_AT(&c->cap_waits, struct ces_wd_wait, j), fx.team.base + f + 4, 1, 32,
                CES_CMP_GEQ, 1, "f", 5 + 6 * j);
    }
    assert_int_equal(c->cap_steps.len, 3);
    assert_int_equal(c->nwatched, 1);
    assert_int_equal(atomic_load(&c->watched[0].enqueued), 0);
    assert_int_equal(ces_vec_reserve(fx.ctx, &c->cap_steps, sizeof(struct ces_wd_step),
                                     CES_WD_CAPTURED),
                     CES_OK);
    c->cap_steps.len = CES_WD_CAPTURED - 2;
    logs_clear();
    copies = batches = 0;
    x.ptr = b[0];
    assert_int_equal(ces_launch(c, g, &x, 1, (ces_stream_t)s), CES_ERR_LIMIT);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "rank 0: the watchdog keeps at most 1048576 records of captured calls "
                        "per communicator (until ces_comm_destroy); 1048574 are taken and this "
                        "call would need 3 more");
    assert_int_equal(copies + batches, 0);
    assert_int_equal(c->cap_steps.len, CES_WD_CAPTURED - 2);
    ces_graph_destroy(g);
    /* an eager phase is lowered for capture too: a call per copy, its
     * memop calls recorded for the watchdog (two blocks, two records) */
    c->state = CES_OK;
    c->cap_steps.len = 3;
    g = ces_test_text_graph(fx.ctx, issue_text);
    assert_int_equal(launch_both(&fx, g, b, s, 0), CES_OK);
    assert_int_equal(ncopies, 4);
    for (int k = 0; k < 4; k++)
        assert_int_equal(copy_log[k].batched, 0);
    assert_int_equal(c->cap_steps.len, 5);
    memop_is(0, s, CU_STREAM_MEM_OP_WRITE_VALUE_64, CES_WD_FLIGHT_DEV(c, 0), 4, 0);
    ces_graph_destroy(g);
    watched_team_end(&fx, b);
}

/* A launch of two streams: in the first block the streams are linked by
 * the schedule's events (stream 1 awaits `go`, which stream 0 recorded;
 * stream 0 awaits `done`), in the second, where stream 1 works alone, by a
 * fork before the block and a join after it.  Stream 1 is the
 * communicator's own, made for it; each stream's waits are watched in a
 * word of its own. */
static const char streams_text[] =
    "cesync 1\nranks 2\nstreams 2\nbuffer x 512\nsignal f u32 2\nsignal h u32 2\nphase eager x1\n"
    "r* : record go\n"
    "r* s1 : await go\n"
    "r* s1 over p : copy x[0:64] -> x[256+64*$r:320+64*$r]@$p\n"
    "r* s1 : record done\n"
    "r* : await done\n"
    "r* over p : write f[$r]@$p = 1\n"
    "r* over p : wait f[$p] >= 1\n"
    "phase eager x1\n"
    "r* s1 over p : copy x[64:72] -> x[400+8*$r:408+8*$r]@$p\n"
    "r* s1 over p : write h[$r]@$p = 1\n"
    "r* s1 over p : wait h[$p] >= 1\n";

static void test_launch_links_its_streams(void **state)
{
    struct fixture fx;
    struct ces_graph *g;
    struct ces_comm *c;
    CUstream s = (CUstream)0x2000, s1;
    CUevent go, done;
    CUdeviceptr f, h;
    void *b[2];

    (void)state;
    watched_team(&fx, b, 0x7000);
    c = &fx.comm[0];
    c->fork = (CUevent)0xf0;
    g = ces_test_text_graph(fx.ctx, streams_text);
    assert_int_equal(launch_both(&fx, g, b, s, 0), CES_OK);
    s1 = c->streams[1];
    assert_true(s1 != NULL && s1 != s && s1 != fx.comm[1].streams[1]);
    go = c->events[ces_graph_find_event(g, "go")];
    done = c->events[ces_graph_find_event(g, "done")];
    assert_true(go != NULL && done != NULL && go != done);
    assert_true(c->joins[1] != NULL && c->joins[1] != go && c->joins[1] != done);
    f = sig_off(c, g, 0);
    h = sig_off(c, g, 1);
    assert_int_equal(nevents, 8);
    event_is(0, 0, go, s);
    event_is(1, 1, go, s1);
    event_is(2, 0, done, s1);
    event_is(3, 1, done, s);
    event_is(4, 0, c->fork, s);
    event_is(5, 1, c->fork, s1);
    event_is(6, 0, c->joins[1], s1);
    event_is(7, 1, c->joins[1], s);
    assert_int_equal(ncopies, 2);
    copy_is(0, s1, sym_addr(&fx, b[0], 1, 256), sym_addr(&fx, b[0], 0, 0), 64, 0);
    copy_is(1, s1, sym_addr(&fx, b[0], 1, 400), sym_addr(&fx, b[0], 0, 64), 8, 0);
    assert_int_equal(nmemops, 6);
    memop_is(0, s, CU_STREAM_MEM_OP_WRITE_VALUE_32, fx.team.base + fx.team.stride + f, 1, 0);
    memop_is(1, s, CU_STREAM_MEM_OP_WAIT_VALUE_32, fx.team.base + f + 4, 1,
             CU_STREAM_WAIT_VALUE_GEQ);
    memop_is(2, s, CU_STREAM_MEM_OP_WRITE_VALUE_64, c->progress_dev, 1, 0);
    memop_is(3, s1, CU_STREAM_MEM_OP_WRITE_VALUE_32, fx.team.base + fx.team.stride + h, 1, 0);
    memop_is(4, s1, CU_STREAM_MEM_OP_WAIT_VALUE_32, fx.team.base + h + 4, 1,
             CU_STREAM_WAIT_VALUE_GEQ);
    memop_is(5, s1, CU_STREAM_MEM_OP_WRITE_VALUE_64, c->progress_dev + 8, 1, 0);
    ces_graph_destroy(g);
    c->fork = NULL;
    watched_team_end(&fx, b);
}

/* Collectives on the team's two ranks, each from its own allocation b[r]:
 * send at its start, recv 1 MiB in. */
#define RECV_AT (1u << 20)

/* Calls each rank's collective with its own buffers, which must take it
 * (each rank takes the same signal arrays, so that the allocations stay in
 * step). */
static void coll_both(struct fixture *fx, void **b, uint32_t coll, uint64_t bytes, uint32_t root,
                      int in_place)
{
    for (uint32_t r = 0; r < 2; r++) {
        struct ces_comm *c = &fx->comm[r];
        char *send = b[r], *recv = (char *)b[r] + RECV_AT;
        ces_stream_t s = (ces_stream_t)(uintptr_t)(0x2000 + r);
        int rc;

        if (in_place)
            send = recv + (uint64_t)r * bytes; /* allgather's in-place layout */
        switch (coll) {
        case CES_COLL_ALLTOALL:
            rc = ces_alltoall(c, send, recv, bytes, s);
            break;
        case CES_COLL_ALLGATHER:
            rc = ces_allgather(c, send, recv, bytes, s);
            break;
        default:
            rc = ces_broadcast(c, send, recv, bytes, root, s);
            break;
        }
        assert_int_equal(rc, CES_OK);
        assert_int_equal(ces_comm_status(c), CES_OK);
    }
}

/* The collectives' refusals of their arguments, each before anything is
 * enqueued.  Those every rank makes alike, given the same arguments, leave
 * the communicator healthy: a root out of range (the first out of range:
 * the number of ranks), an alltoall size that is not a multiple of the
 * ranks.  A refused buffer of this rank's own fails it (refusal_fails):
 * a NULL send on the root of a broadcast (a rank but the root may pass
 * NULL, as with NCCL), a send that is not symmetric memory, a recv too
 * small for its ranks' blocks, an allgather's send inside its recv but not
 * at this rank's block (the message says what in place is), and send and
 * recv that overlap by one byte, where adjacent ones are taken; not on a
 * communicator of one rank, which no peer waits for. */
static void test_collective_arguments(void **state)
{
    struct fixture fx;
    struct ces_comm *c;
    char *send, *recv, want[320], stack[64];
    void *b[2];

    (void)state;
    watched_team(&fx, b, 0x7000);
    c = &fx.comm[0];
    send = b[0];
    recv = (char *)b[0] + RECV_AT;
    assert_int_equal(ces_broadcast(c, send, recv, 64, 2, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx), "broadcast: root 2 out of range (0..1)");
    assert_int_equal(ces_alltoall(c, send, recv, 65, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "alltoall: bytes (65) must be a multiple of the 2 ranks");
    assert_int_equal(ces_comm_status(c), CES_OK);
    refusal_fails(&fx, c, ces_broadcast(c, NULL, recv, 64, 0, NULL),
                 "broadcast: buffer send is NULL");
    snprintf(want, sizeof(want),
             "alltoall: buffer send (%p) is not symmetric memory of this communicator "
             "(allocate it with ces_mem_alloc)",
             (void *)stack);
    refusal_fails(&fx, c, ces_alltoall(c, stack, recv, 64, NULL), want);
    /* a communicator of one rank has no peer to wait: it stays healthy */
    c->size = 1;
    assert_int_equal(ces_alltoall(c, stack, recv, 64, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx), want);
    assert_int_equal(ces_comm_status(c), CES_OK);
    c->size = 2;
    snprintf(want, sizeof(want),
             "allgather: buffer recv needs 128 bytes but only 64 are allocated from %p",
             (void *)((char *)b[0] + (4 << 20) - 64));
    refusal_fails(&fx, c, ces_allgather(c, send, (char *)b[0] + (4 << 20) - 64, 64, NULL), want);
    snprintf(want, sizeof(want),
             "allgather: send (%p, 8 bytes) and recv (%p, 16 bytes) overlap; in place send is "
             "recv + rank*bytes",
             (void *)(recv + 3), (void *)recv);
    refusal_fails(&fx, c, ces_allgather(c, recv + 3, recv, 8, NULL), want);
    assert_int_equal(batches + copies + event_ops, 0);
    /* every rank calls each collective alike, so that the ranks take the
     * same signal arrays */
    for (uint32_t r = 0; r < 2; r++) {
        char *sr = b[r];

        assert_int_equal(ces_broadcast(&fx.comm[r], r == 1 ? NULL : sr, sr + RECV_AT, 64, 0,
                                       NULL),
                         CES_OK);
        assert_int_equal(ces_alltoall(&fx.comm[r], sr, sr + 64, 64, NULL), CES_OK);
        batches = copies = event_ops = 0;
        snprintf(want, sizeof(want),
                 "alltoall: send (%p, 64 bytes) and recv (%p, 64 bytes) overlap", (void *)sr,
                 (void *)(sr + 63));
        refusal_fails(&fx, &fx.comm[r], ces_alltoall(&fx.comm[r], sr, sr + 63, 64, NULL), want);
        assert_int_equal(batches + copies + event_ops, 0);
    }
    watched_team_end(&fx, b);
}

/* A gather whose root runs in place while rank 1 does not (each rank
 * chooses): only the in-place graph declares the wake chain's buffer, which
 * the root took as symmetric memory and rank 1 did not, so the ranks'
 * allocations, paired by their order, went out of step without an error
 * (the next ces_mem_alloc of rank 0 lay 2 MiB past rank 1's).  Now each
 * rank takes it where the call selects a chain, and both ways round. */
static void test_gather_in_place_on_some_ranks(void **state)
{
    (void)state;
    for (uint32_t root = 0; root < 2; root++) {
        struct fixture fx;
        void *b[2];

        watched_team(&fx, b, 0x7000);
        for (uint32_t r = 0; r < 2; r++) {
            char *recv = b[r], *send = r == root ? recv + (uint64_t)root * 4096 : recv + RECV_AT;

            assert_int_equal(ces_gather(&fx.comm[r], send, recv, 4096, root,
                                        (ces_stream_t)(uintptr_t)(0x2000 + r)),
                             CES_OK);
        }
        assert_int_equal(fx.comm[0].nalloc, fx.comm[1].nalloc);
        next_alloc_in_step(&fx, b);
        watched_team_end(&fx, b);
    }
}

/* The cache of lowered collectives: one entry per shape, the root, in
 * place or not and captured or not among it (each builds another
 * schedule: CES_DUMP_SCHEDULE writes each entry's when it is made, named
 * by its protocol and variant, the in-place entry built with the in-place
 * flag alone, not the overlap variant's).  Each eager call takes the next
 * call number (its memop values are the schedule's for that call: the
 * second alltoall's first wait waits for a higher value than the
 * first's), and only eager calls are watched as steps; a captured one is
 * recorded for the watchdog. */
static void test_collective_cache(void **state)
{
    static const char *const names[] = {
        "allgather-mono-inplace-n2-b4096-root0.ces", "allgather-mono-overlap-n2-b4096-root0.ces",
        "alltoall-mono-overlap-n2-b4096-root0.ces",
        "alltoall-pull-overlap-n2-b4096-root0-capture.ces",
        "broadcast-mono-overlap-n2-b4096-root0.ces", "broadcast-mono-overlap-n2-b4096-root1.ces"};
    struct fixture fx;
    struct ces_comm *c;
    uint64_t first_wait = 0, steps;
    char *dir, entries[512], want[512] = "", path[160];
    void *b[2];

    (void)state;
    watched_team(&fx, b, 0x7000);
    c = &fx.comm[0];
    dir = ces_test_tmpdir();
    setenv("CES_DUMP_SCHEDULE", dir, 1);
    coll_both(&fx, b, CES_COLL_BROADCAST, 4096, 0, 0);
    coll_both(&fx, b, CES_COLL_BROADCAST, 4096, 1, 0);
    coll_both(&fx, b, CES_COLL_ALLGATHER, 4096, 0, 0);
    coll_both(&fx, b, CES_COLL_ALLGATHER, 4096, 0, 1);
    assert_int_equal(c->calls[CES_PROTO_MONO], 4);
    for (int k = 0; k < 2; k++) {
        int i = 0;

        logs_clear();
        coll_both(&fx, b, CES_COLL_ALLTOALL, 4096, 0, 0);
        assert_int_equal(c->calls[CES_PROTO_MONO], 5 + k);
        /* rank 1's, the last issued: its first wait */
        while (i < nmemops && memop_log[i].s != (CUstream)0x2001)
            i++;
        while (i < nmemops && memop_log[i].p.operation != CU_STREAM_MEM_OP_WAIT_VALUE_64)
            i++;
        assert_true(i < nmemops);
        if (k == 1)
            assert_true(memop_log[i].p.waitValue.value64 > first_wait);
        first_wait = memop_log[i].p.waitValue.value64;
    }
    steps = atomic_load(&c->watched[0].enqueued);
    assert_true(steps > 0);
    capturing_on[0] = (cudaStream_t)0x2000;
    capturing_on[1] = (cudaStream_t)0x2001;
    coll_both(&fx, b, CES_COLL_ALLTOALL, 4096, 0, 0);
    assert_int_equal(atomic_load(&c->watched[0].enqueued), steps);
    assert_true(c->cap_steps.len > 0);
    assert_int_equal(c->calls[CES_PROTO_MONO], 6);
    unsetenv("CES_DUMP_SCHEDULE");
    ces_test_dir_entries(dir, entries, sizeof(entries));
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        strcat(want, names[i]);
        strcat(want, ";");
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        unlink(path);
    }
    assert_string_equal(entries, want);
    assert_int_equal(rmdir(dir), 0);
    assert_int_equal(c->cache.len, 6);
    watched_team_end(&fx, b);
}

/* A block whose stream waits twice, a copy between: the first memop call's
 * progress write is left out (the second's counts both).  Where the
 * second call fails, the first's step would never show as done: the
 * failed launch closes every stream it gave work, which writes that step's
 * number into the stream's word behind it. */
static void test_failed_launch_closes_its_streams(void **state)
{
    struct fixture fx;
    struct ces_graph *g;
    struct ces_comm *c;
    void *b[2];
    CUstream s = (CUstream)0x2000;

    (void)state;
    watched_team(&fx, b, 0x7000);
    c = &fx.comm[0];
    g = ces_test_text_graph(fx.ctx, two_waits_text);
    assert_int_equal(launch_both(&fx, g, b, s, 2), CES_ERR_CUDA);
    assert_int_equal(nmemops, 2); /* the first call: its write and wait */
    assert_int_equal(ncopies, 1);
    assert_int_equal(atomic_load(&c->watched[0].enqueued), 1);
    assert_int_equal(nwrites, 1);
    assert_ptr_equal(write_log[0].s, s);
    assert_int_equal(write_log[0].addr, c->progress_dev);
    assert_int_equal(write_log[0].value, 1);
    assert_int_equal(ces_comm_status(c), CES_ERR_CUDA);
    ces_graph_destroy(g);
    watched_team_end(&fx, b);
}

/* ces_launch of graph phases on the legacy default stream (NULL, or
 * cudaStreamLegacy), which CUDA does not capture: the launch began the
 * phase's capture there, failed with a CUDA error and so failed the
 * communicator.  Now each phase is captured once from a stream of the
 * communicator's own and its graph launched on the caller's stream, once
 * per replay; with the watchdog's words, that stream of its own takes the
 * watch slot and the captured calls' records. */
static void test_graph_phase_on_the_legacy_stream(void **state)
{
    static const cudaStream_t legacy[] = {NULL, cudaStreamLegacy};
    static const CUdeviceptr words[] = {0, 0x7000};

    (void)state;
    for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
        struct fixture fx;
        struct ces_graph *g;
        void *b[2];

        watched_team(&fx, b, words[w]);
        g = ces_test_text_graph(fx.ctx, "cesync 1\nranks 2\nsignal f u32 2\nsignal h u32 2\n"
                                        "phase graph x3\n"
                                        "r* over p : write f[$r]@$p = 1\n"
                                        "r* over p : wait f[$p] >= 1\n"
                                        "phase graph x2\n"
                                        "r* over p : write h[$r]@$p = 1\n"
                                        "r* over p : wait h[$p] >= 1\n");
        for (uint32_t r = 0; r < 2; r++) {
            struct ces_comm *c = &fx.comm[r];

            for (size_t k = 0; k < sizeof(legacy) / sizeof(legacy[0]); k++) {
                captures = launches = batches = 0;
                launched_on = (cudaStream_t)(uintptr_t)0x77;
                assert_int_equal(ces_launch(c, g, NULL, 0, (ces_stream_t)legacy[k]), CES_OK);
                assert_int_equal(ces_comm_status(c), CES_OK);
                assert_int_equal(captures, 2);
                assert_true(c->streams[0] != NULL);
                assert_ptr_equal(captured_on, c->streams[0]);
                assert_int_equal(batches, 2);
                assert_int_equal(launches, 5);
                assert_ptr_equal(launched_on, legacy[k]);
                assert_int_equal(c->nwatched, words[w] != 0);
                if (words[w] != 0)
                    assert_ptr_equal(c->watched[0].stream, c->streams[0]);
                assert_int_equal(c->cap_steps.len, words[w] != 0 ? 2 * (k + 1) : 0);
            }
        }
        ces_graph_destroy(g);
        watched_team_end(&fx, b);
    }
}

/* A launch refused alike on every rank leaves the communicator healthy:
 * a graph checked with each of its two streams on a queue of its own, on
 * a process whose streams share one hardware queue, and a signal array
 * that does not fit what is left of the symmetric range (the limit). */
static void test_launch_refused_alike(void **state)
{
    struct fixture fx;
    struct ces_graph *g;
    struct ces_comm *c;
    void *b[2];

    (void)state;
    watched_team(&fx, b, 0x7000);
    c = &fx.comm[0];
    g = ces_test_text_graph(fx.ctx, "cesync 1\nranks 2\nstreams 2\nsignal f u32 2\n"
                                    "phase eager x1\n"
                                    "r* s1 over p : write f[$r]@$p = 1\n"
                                    "r* s1 over p : wait f[$p] >= 1\n");
    c->queues = 1;
    assert_int_equal(ces_launch(c, g, NULL, 0, NULL), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "ces_launch: the schedule was checked with connections 0 (each of its 2 "
                        "streams (line 3:9) on a queue of its own) but this process has 1 hardware "
                        "queue per GPU (CUDA_DEVICE_MAX_CONNECTIONS; 8 when unset), so the check "
                        "did not model how its streams are queued here; check it with "
                        "`connections 1` (or `connections any`: every assignment), or run it with "
                        "CUDA_DEVICE_MAX_CONNECTIONS=2 or more");
    assert_int_equal(ces_comm_status(c), CES_OK);
    assert_int_equal(batches + event_ops, 0);
    ces_graph_destroy(g);
    c->queues = 8;
    /* 128 MiB of signals, where 64 MiB a rank are left */
    g = ces_test_text_graph(fx.ctx, "cesync 1\nranks 2\nsignal f u64 16777216\n"
                                    "phase eager x1\n"
                                    "r* over p : write f[$r]@$p = 1\n");
    fx.team.stride = (uint64_t)68 << 20;
    assert_int_equal(ces_launch(c, g, NULL, 0, NULL), CES_ERR_LIMIT);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "symmetric memory exhausted: 134217728 bytes requested, 4194304 of "
                        "71303168 per rank in use (CES_STRIDE)");
    fx.team.stride = (uint64_t)1 << 30;
    assert_int_equal(ces_comm_status(c), CES_OK);
    assert_int_equal(batches + event_ops, 0);
    ces_graph_destroy(g);
    watched_team_end(&fx, b);
}

/* A group's argument refusals: a send to the rank itself, a second send
 * to one peer (a send and a receive with one peer are taken). */
static void test_group_arguments(void **state)
{
    struct fixture fx;
    struct ces_comm *c;
    void *b[2];

    (void)state;
    watched_team(&fx, b, 0x7000);
    c = &fx.comm[0];
    assert_int_equal(ces_group_start(c), CES_OK);
    assert_int_equal(ces_send(c, b[0], 64, 0), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "ces_send: peer 0 must be another rank of 0..1");
    assert_int_equal(ces_send(c, b[0], 64, 1), CES_OK);
    assert_int_equal(ces_send(c, (char *)b[0] + 64, 64, 1), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "ces_send: a group holds one send per peer; rank 0 already has one with "
                        "rank 1");
    assert_int_equal(ces_recv(c, (char *)b[0] + 64, 64, 1), CES_OK);
    assert_int_equal(c->ngroup, 2);
    assert_int_equal(ces_group_end(c, NULL), CES_OK);
    assert_int_equal(ces_group_start(&fx.comm[1]), CES_OK);
    assert_int_equal(ces_send(&fx.comm[1], b[1], 64, 1), CES_ERR_INVALID);
    assert_int_equal(ces_send(&fx.comm[1], b[1], 64, 0), CES_OK);
    assert_int_equal(ces_recv(&fx.comm[1], (char *)b[1] + 64, 64, 0), CES_OK);
    assert_int_equal(ces_group_end(&fx.comm[1], NULL), CES_OK);
    assert_int_equal(ces_comm_status(c), CES_OK);
    watched_team_end(&fx, b);
}

/* One-way groups rank 0 -> rank 1 of `bytes`, on streams the callers
 * capture or not. */
static void one_way(struct fixture *fx, void **buf, uint64_t bytes, int captured)
{
    capturing_on[0] = captured ? (cudaStream_t)0x3000 : NULL;
    capturing_on[1] = captured ? (cudaStream_t)0x3001 : NULL;
    for (uint32_t r = 0; r < 2; r++) {
        struct ces_comm *c = &fx->comm[r];

        assert_int_equal(ces_group_start(c), CES_OK);
        assert_int_equal(r == 0 ? ces_send(c, buf[0], bytes, 1) : ces_recv(c, buf[1], bytes, 0),
                         CES_OK);
        assert_int_equal(ces_group_end(c, (ces_stream_t)(uintptr_t)(0x3000 + r)), CES_OK);
        assert_int_equal(ces_comm_status(c), CES_OK);
    }
    capturing_on[0] = capturing_on[1] = NULL;
}

/* Staged one-way messages: the pair's slots (two of them) are grown to the
 * next power of two that holds the message, at least 64 KiB; the eager
 * and the captured protocol count their messages apart (each the slot
 * the next one takes); a captured message never goes the side way (of 16
 * MiB, where an eager one does): its memops stay on the caller's stream,
 * and no side stream is made. */
static void test_group_staging(void **state)
{
    struct fixture fx;
    struct ces_comm *c;
    void *b[2], *big[2];

    (void)state;
    watched_team(&fx, b, 0x7000);
    c = &fx.comm[0];
    one_way(&fx, b, 1000, 0);
    assert_int_equal(c->p2p->p[0][1].slot, 64 << 10);
    assert_int_equal(c->p2p->p[0][1].sent, 1);
    one_way(&fx, b, (1 << 20) - 1, 0);
    assert_int_equal(c->p2p->p[0][1].slot, 1 << 20);
    assert_int_equal(c->p2p->p[0][1].sent, 2);
    for (uint32_t r = 0; r < 2; r++)
        assert_int_equal(ces_mem_alloc(&fx.comm[r], 16 << 20, &big[r]), CES_OK);
    logs_clear();
    one_way(&fx, big, 16 << 20, 1);
    assert_int_equal(c->p2p_cap->p[0][1].slot, 16 << 20);
    assert_int_equal(c->p2p_cap->p[0][1].sent, 1);
    for (int i = 0; i < nmemops; i++)
        assert_true(memop_log[i].s == (CUstream)0x3000 || memop_log[i].s == (CUstream)0x3001);
    assert_null(c->p2p_streams[1]);
    assert_null(c->p2p_streams[2]);
    one_way(&fx, big, 1000, 1);
    assert_int_equal(c->p2p_cap->p[0][1].sent, 2);
    assert_int_equal(c->p2p->p[0][1].sent, 2);
    one_way(&fx, big, 16 << 20, 0);
    assert_int_equal(c->p2p->p[0][1].sent, 3);
    assert_non_null(c->p2p_streams[1]);
    for (uint32_t r = 0; r < 2; r++) {
        assert_int_equal(ces_mem_free(&fx.comm[r], big[r]), CES_OK);
        for (uint32_t s = 1; s < 3; s++)
            fx.comm[r].p2p_streams[s] = NULL;
    }
    watched_team_end(&fx, b);
}

/* A group that rank 0 captures and rank 1 does not is refused (the two
 * protocols' flags would never meet), before any part takes memory or is
 * issued. */
static void test_group_captured_on_one_rank(void **state)
{
    struct fixture fx;
    void *b[2];

    (void)state;
    watched_team(&fx, b, 0x7000);
    capturing_on[0] = (cudaStream_t)0x3000;
    assert_int_equal(ces_group_start(&fx.comm[0]), CES_OK);
    assert_int_equal(ces_send(&fx.comm[0], b[0], 100, 1), CES_OK);
    assert_int_equal(ces_group_end(&fx.comm[0], (ces_stream_t)0x3000), CES_OK);
    assert_int_equal(ces_group_start(&fx.comm[1]), CES_OK);
    assert_int_equal(ces_recv(&fx.comm[1], b[1], 100, 0), CES_OK);
    assert_int_equal(ces_group_end(&fx.comm[1], (ces_stream_t)0x3001), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(fx.ctx),
                        "ces_group_end: rank 0 captures the group into a CUDA graph and rank 1 "
                        "does not; capture it on every rank or on none");
    assert_int_equal(batches + copies, 0);
    assert_int_equal(fx.comm[0].signals.len + fx.comm[1].signals.len, 0);
    watched_team_end(&fx, b);
}

/* CES_DUMP_SCHEDULE naming a directory that cannot take the file: the
 * launch goes on (the dump is a diagnosis), rank 0 says on standard
 * error what it could not write and why, and rank 1 writes nothing: one
 * rank dumps, the ranks' schedules being one.  The path is said as
 * cesync's messages say a name, an ESC as \x1b and a backslash as \\ (it
 * wrote the ESC raw). */
static void test_dump_into_a_missing_directory(void **state)
{
    struct fixture fx;
    struct ces_graph *g;
    char *dir = ces_test_tmpdir(), path[160], *text;
    int saved, fd;
    void *b[2];

    (void)state;
    watched_team(&fx, b, 0x7000);
    g = watched_graph(&fx, 1, CES_PHASE_EAGER);
    snprintf(path, sizeof(path), "%s/stderr", dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    fflush(stderr);
    saved = dup(2);
    assert_true(saved >= 0 && dup2(fd, 2) == 2);
    setenv("CES_DUMP_SCHEDULE", "/nonexistent-ces-\033[31m\\x-dir", 1);
    for (uint32_t r = 0; r < 2; r++)
        assert_int_equal(ces_launch(&fx.comm[r], g, NULL, 0, NULL), CES_OK);
    unsetenv("CES_DUMP_SCHEDULE");
    fflush(stderr);
    assert_int_equal(dup2(saved, 2), 2);
    close(saved);
    close(fd);
    text = ces_test_read_file(path, NULL);
    assert_string_equal(text, "cesync: CES_DUMP_SCHEDULE: cannot write /nonexistent-ces-\\x1b[31m"
                              "\\\\x-dir/launch.ces: No such file or directory\n");
    free(text);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
    for (uint32_t r = 0; r < 2; r++)
        assert_int_equal(ces_comm_status(&fx.comm[r]), CES_OK);
    ces_graph_destroy(g);
    watched_team_end(&fx, b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_fails),
        cmocka_unit_test(test_map_fails_after_one_rank),
        cmocka_unit_test(test_access_fails),
        cmocka_unit_test(test_destroy_gives_up_on_a_busy_stream),
        cmocka_unit_test(test_failed_refuses_every_call),
        cmocka_unit_test(test_group_end_failure_fails),
        cmocka_unit_test(test_refused_group_keeps_the_allocations_in_step),
        cmocka_unit_test(test_double_free_refused),
        cmocka_unit_test(test_size_mismatch_retried),
        cmocka_unit_test(test_alloc_after_a_rank_destroyed),
        cmocka_unit_test(test_refusal_says_why),
        cmocka_unit_test(test_p2p_size_refused),
        cmocka_unit_test(test_long_signal_names_kept_apart),
        cmocka_unit_test(test_group_after_a_rank_aborted),
        cmocka_unit_test(test_group_after_a_rank_destroyed),
        cmocka_unit_test(test_group_with_a_rank_aborted_before),
        cmocka_unit_test(test_group_with_a_rank_destroyed_before),
        cmocka_unit_test(test_group_end_failure_fails_the_ranks_that_ended),
        cmocka_unit_test(test_group_with_a_peer_process_aborted),
        cmocka_unit_test(test_alloc_with_a_peer_process_aborted),
        cmocka_unit_test(test_alloc_retried_after_a_timeout),
        cmocka_unit_test(test_alloc_refusals_across_processes),
        cmocka_unit_test(test_access_denied_across_processes),
        cmocka_unit_test(test_graph_phase_on_the_legacy_stream),
        cmocka_unit_test(test_launch_bindings),
        cmocka_unit_test(test_launch_past_the_watch_slots),
        cmocka_unit_test(test_launch_past_the_watch_slots_enqueues_nothing),
        cmocka_unit_test(test_group_past_the_watch_slots_enqueues_nothing),
        cmocka_unit_test(test_group_issue_fails_on_rank_0),
        cmocka_unit_test(test_group_issue_fails_on_rank_1),
        cmocka_unit_test(test_launch_past_the_captured_records),
        cmocka_unit_test(test_init_env_numbers),
        cmocka_unit_test(test_stride_refused),
        cmocka_unit_test(test_env_settings_refused),
        cmocka_unit_test(test_init_all_names_the_rank),
        cmocka_unit_test(test_init_all_shared_names_the_device),
        cmocka_unit_test(test_watchdog_start_says_why),
        cmocka_unit_test(test_free_and_peer_edges),
        cmocka_unit_test(test_alloc_size_edges),
        cmocka_unit_test(test_access_once_per_device),
        cmocka_unit_test(test_init_all_device_refused),
        cmocka_unit_test(test_init_all_crowds_refused),
        cmocka_unit_test(test_init_all_peers_refused),
        cmocka_unit_test(test_init_refusals),
        cmocka_unit_test(test_page_file_in_tmpdir),
        cmocka_unit_test(test_launch_issues_what_was_lowered),
        cmocka_unit_test(test_launch_captured_by_the_caller),
        cmocka_unit_test(test_launch_links_its_streams),
        cmocka_unit_test(test_collective_arguments),
        cmocka_unit_test(test_gather_in_place_on_some_ranks),
        cmocka_unit_test(test_collective_cache),
        cmocka_unit_test(test_failed_launch_closes_its_streams),
        cmocka_unit_test(test_launch_refused_alike),
        cmocka_unit_test(test_group_arguments),
        cmocka_unit_test(test_group_staging),
        cmocka_unit_test(test_group_captured_on_one_rank),
        cmocka_unit_test(test_dump_into_a_missing_directory),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
