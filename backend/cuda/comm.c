/*
 * backend/cuda/comm.c - communicators and symmetric memory.
 *
 * A team is what the ranks driven by one process share: one flat virtual
 * range of ranks x stride bytes (rank r's memory mapped at base + r*stride),
 * the list of symmetric allocations (same offset on every rank, allocated in
 * the same order everywhere), and the progress page (host memory into which
 * every rank's watchdog copies the progress words its streams write in
 * device memory, and which every rank's watchdog can read).  With one
 * process per GPU a team has one communicator
 * and talks to the other processes through the bootstrap; with
 * ces_comm_init_all it has all of them and needs no exchange at all.
 */
#include "runtime.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int ces_cuda_cu_error(struct ces_ctx *ctx, CUresult r, const char *call, const char *file,
                      int line)
{
    const char *name = NULL, *text = NULL;

    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    return ces_ctx_error(ctx, CES_ERR_CUDA, "%s:%d: %s failed: %s (%d): %s", file, line, call,
                         name ? name : "?", (int)r, text ? text : "");
}

int ces_cuda_rt_error(struct ces_ctx *ctx, cudaError_t e, const char *call, const char *file,
                      int line)
{
    return ces_ctx_error(ctx, CES_ERR_CUDA, "%s:%d: %s failed: %s (%d): %s", file, line, call,
                         cudaGetErrorName(e), (int)e, cudaGetErrorString(e));
}

void ces_cuda_no_gpu_reason(cudaError_t ce, char *buf, size_t size)
{
    int version = -1;

    if (ce == cudaErrorInsufficientDriver && cudaDriverGetVersion(&version) == cudaSuccess &&
        version == 0)
        snprintf(buf, size, "no NVIDIA driver is installed (%s)", cudaGetErrorName(ce));
    else
        snprintf(buf, size, "%s (%s)", cudaGetErrorString(ce), cudaGetErrorName(ce));
}

int ces_cuda_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
    sigset_t all, was;
    int err;

    /* the new thread starts with the mask of its creator */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &was);
    err = pthread_create(th, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    return err;
}

int ces_cuda_use(struct ces_comm *c)
{
    int rc = CES_OK;

    CES_CU_GOTO(c->ctx, rc, cuCtxSetCurrent(c->cuctx), out);
    CES_RT_GOTO(c->ctx, rc, cudaSetDevice(c->device), out);
out:
    return rc;
}

int ces_comm_check(struct ces_comm *c)
{
    int st = atomic_load(&c->state);

    if (st == CES_OK)
        return CES_OK;
    return ces_ctx_error(c->ctx, st,
                         "rank %" PRIu32 ": the communicator failed: %s (see the watchdog's "
                         "diagnosis)",
                         c->rank, c->fail_why);
}

int ces_comm_fail_call(struct ces_comm *c, int rc, const char *what)
{
    char err[CES_ERRMSG_MAX], why[CES_ERRMSG_MAX + 64];

    if (rc == CES_OK || atomic_load(&c->state) != CES_OK)
        return rc;
    snprintf(err, sizeof(err), "%s", ces_ctx_last_error(c->ctx));
    snprintf(why, sizeof(why), "%s failed: %s", what, err);
    ces_wd_fail(c, rc, why);
    /* the call's own error stays the one it returns */
    ces_ctx_error(c->ctx, rc, "%s", err);
    return rc;
}

/* --- per-device setup -------------------------------------------------- */

/* Names the rank and its device (-1: not known yet, the rank alone) in
 * front of a CUDA error of a step done for one rank (the call's own message
 * names neither: with ces_comm_init_all it could be any rank's). */
static int rank_said(struct ces_ctx *ctx, int rc, uint32_t rank, int device)
{
    if (rc == CES_ERR_CUDA && device < 0)
        ces_ctx_error(ctx, rc, "rank %" PRIu32 ": %s", rank, ces_ctx_last_error(ctx));
    else if (rc == CES_ERR_CUDA)
        ces_ctx_error(ctx, rc, "rank %" PRIu32 " (device %d): %s", rank, device,
                      ces_ctx_last_error(ctx));
    return rc;
}

static void alloc_prop(CUmemAllocationProp *prop, CUdevice dev)
{
    memset(prop, 0, sizeof(*prop));
    prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop->location.id = dev;
    prop->requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
}

/* A new communicator of rank `rank` on `device` (0 or more), with the
 * settings `s` (args.c checked them, and the arguments, before the driver).
 * With CES_SHARE_GPUS=1 ranks may outnumber the GPUs, and `wrap` (the
 * device was derived from the rank, not named by the caller) maps it onto
 * GPU device % count: until the GPUs are counted, an error names the rank
 * alone. */
static int comm_new(struct ces_ctx *ctx, uint32_t rank, uint32_t size, int device, int wrap,
                    const struct ces_cuda_settings *s, struct ces_comm **out)
{
    int share = s->share, said = -1; /* the device an error names */
    struct ces_comm *c;
    int rc = CES_OK, v = 0, count = 0;

    assert(device >= 0);
    *out = NULL;
    if (!(share && wrap))
        said = device;
    c = ces_malloc(ctx, sizeof(*c));
    if (c == NULL)
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory creating a communicator");
    memset(c, 0, sizeof(*c));
    c->ctx = ctx;
    c->rank = rank;
    c->size = size;
    atomic_init(&c->state, CES_OK);
    ces_wd_init(c);
    c->timeout_ms = s->timeout_ms;
    c->p2p_stage_max = s->stage_max;
    if (ces_cu_load() == NULL) {
        rc = ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                           "the CUDA driver is not available (no GPU, or a driver older than "
                           "CUDA 13)");
        goto fail;
    }
    CES_CU_GOTO(ctx, rc, cuInit(0), fail);
    CES_CU_GOTO(ctx, rc, cuDeviceGetCount(&count), fail);
    if (share && wrap && count > 0)
        device %= count;
    c->device = said = device;
    if (device >= count) {
        rc = ces_ctx_error(ctx, CES_ERR_INVALID,
                           "rank %" PRIu32 ": device %d does not exist (this machine has %d)",
                           rank, device, count);
        goto fail;
    }
    if (size > (uint32_t)count && !share) {
        rc = ces_cuda_too_few_gpus(ctx, CES_ERR_INVALID, size, "", (uint32_t)count);
        goto fail;
    }
    CES_CU_GOTO(ctx, rc, cuDeviceGet(&c->cudev, device), fail);
    CES_CU_GOTO(ctx, rc, cuDevicePrimaryCtxRetain(&c->cuctx, c->cudev), fail);
    rc = ces_cuda_use(c);
    if (rc != CES_OK)
        goto fail_ctx;
    CES_CU_GOTO(ctx, rc,
                cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                                     c->cudev),
                fail_ctx);
    if (!v) {
        rc = ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                           "device %d does not support virtual memory management", device);
        goto fail_ctx;
    }
    CES_CU_GOTO(ctx, rc,
                cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES, c->cudev),
                fail_ctx);
    c->caps.can_flush = v;
    CES_CU_GOTO(ctx, rc,
                cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
                                     c->cudev),
                fail_ctx);
    c->caps.can_64bit = v;
    c->caps.max_memops = CES_CUDA_MAX_MEMOPS;
    c->caps.split_wait_bytes = CES_CUDA_SPLIT_WAIT_BYTES;
    {
        int lo = 0, hi = 0;

        cuCtxGetStreamPriorityRange(&lo, &hi);
        CES_CU_GOTO(ctx, rc, cuStreamCreateWithPriority(&c->wd_stream, CU_STREAM_NON_BLOCKING, hi),
                    fail_ctx);
    }
    c->queues = ces_cuda_queues(getenv("CUDA_DEVICE_MAX_CONNECTIONS"));
    c->p2p_side_min = ces_cuda_side_min(s->side_min, c->queues);
    if (ces_cuda_queues_shared(c->queues)) {
        rc = ces_wd_rescue_open(c);
        if (rc != CES_OK)
            goto fail_stream;
    }
    CES_CU_GOTO(ctx, rc, cuEventCreate(&c->fork, CU_EVENT_DISABLE_TIMING), fail_stream);
    c->waits = ces_malloc(ctx, sizeof(*c->waits) * CES_WD_WAITS);
    if (c->waits == NULL) {
        rc = ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory creating a communicator");
        goto fail_event;
    }
    *out = c;
    return CES_OK;
fail_event:
    cuEventDestroy(c->fork);
fail_stream:
    ces_wd_rescue_close(c);
    cuStreamDestroy(c->wd_stream);
fail_ctx:
    cuDevicePrimaryCtxRelease(c->cudev);
fail:
    pthread_mutex_destroy(&c->wd_lock);
    pthread_mutex_destroy(&c->wd_mirror_lock);
    pthread_cond_destroy(&c->wd_cond);
    ces_free(ctx, c);
    return rank_said(ctx, rc, rank, said);
}

/* The watchdog's words in device memory (progress_dev) and the pinned host
 * memory its mirror copies them into; with shared hardware queues, pinned
 * host memory that the streams write directly (progress_dev its device
 * address) and nothing to copy.  A failure fails the creation of the
 * communicator (progress_dev 0, the unwatched state, is only for a team
 * without a progress page). */
static int words_alloc(struct ces_comm *c)
{
    size_t n = 2 * CES_WD_STREAMS * sizeof(uint64_t);
    void *host = NULL;
    int rc = CES_OK;

    CES_CU_GOTO(c->ctx, rc,
                cuMemHostAlloc(&host, n, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE), out);
    memset(host, 0, n);
    c->wd_stage = host;
    if (ces_cuda_queues_shared(c->queues)) {
        CES_CU_GOTO(c->ctx, rc, cuMemHostGetDevicePointer(&c->progress_dev, host, 0), free_host);
        return CES_OK;
    }
    CES_CU_GOTO(c->ctx, rc, cuMemAlloc(&c->progress_dev, n), free_host);
    CES_CU_GOTO(c->ctx, rc, cuMemsetD8Async(c->progress_dev, 0, n, c->wd_stream), free_dev);
    CES_CU_GOTO(c->ctx, rc, cuStreamSynchronize(c->wd_stream), free_dev);
    return CES_OK;
free_dev:
    cuMemFree(c->progress_dev);
free_host:
    c->progress_dev = 0; /* also after a failed call, whatever it left there */
    c->wd_stage = NULL;
    cuMemFreeHost(host);
out:
    return rc;
}

/* Waits until stream s is idle, or the deadline has passed; 1 if idle. */
static int stream_settle(CUstream s, uint64_t deadline)
{
    while (s != NULL && cuStreamQuery(s) == CUDA_ERROR_NOT_READY) {
        struct timespec ts = {0, 200000L};

        if (ces_cuda_now_ms() >= deadline)
            return 0;
        nanosleep(&ts, NULL);
    }
    return 1;
}

/* A failed communicator keeps its words (a few KiB): freeing them would
 * synchronize the device, which may hold work that never ends - waits the
 * watchdog could not reach, or work of the caller's.  Else the watchdog's
 * stream settles first (a mirror copy may be in flight). */
static void words_free(struct ces_comm *c)
{
    if (c->progress_dev != 0 && atomic_load(&c->state) == CES_OK &&
        stream_settle(c->wd_stream, ces_cuda_now_ms() + c->timeout_ms + 1000)) {
        if (!ces_cuda_queues_shared(c->queues))
            cuMemFree(c->progress_dev);
        cuMemFreeHost(c->wd_stage);
    }
    c->progress_dev = 0;
    c->wd_stage = NULL;
}

static void comm_free(struct ces_comm *c)
{
    struct ces_ctx *ctx = c->ctx;

    ces_wd_rescue_close(c);
    ces_cuda_use(c);
    ces_cuda_cache_free(c);
    for (uint32_t s = 0; s < CES_MAX_STREAMS; s++) {
        if (c->streams[s] != NULL)
            cuStreamDestroy(c->streams[s]);
        if (c->joins[s] != NULL)
            cuEventDestroy(c->joins[s]);
    }
    for (uint32_t s = 1; s < 3; s++)
        if (c->p2p_streams[s] != NULL)
            cuStreamDestroy(c->p2p_streams[s]);
    for (uint32_t e = 0; e < c->nevents; e++)
        cuEventDestroy(c->events[e]);
    ces_free(ctx, c->events);
    cuEventDestroy(c->fork);
    words_free(c);
    cuStreamDestroy(c->wd_stream);
    for (uint32_t s = 0; s < c->nwatched; s++)
        ces_free(ctx, c->watched[s].steps);
    ces_free(ctx, c->waits);
    ces_vec_free(ctx, &c->cap_steps);
    ces_vec_free(ctx, &c->cap_waits);
    ces_cuda_signals_drop(c, false);
    ces_vec_free(ctx, &c->signals);
    ces_vec_free(ctx, &c->scratch_ptrs);
    ces_vec_free(ctx, &c->scratch_sizes);
    ces_vec_free(ctx, &c->scratch_params);
    ces_free(ctx, c->p2p);
    ces_free(ctx, c->p2p_cap);
    pthread_mutex_destroy(&c->wd_lock);
    pthread_mutex_destroy(&c->wd_mirror_lock);
    pthread_cond_destroy(&c->wd_cond);
    cuDevicePrimaryCtxRelease(c->cudev);
    ces_free(ctx, c);
}

/* --- team ---------------------------------------------------------------- */

int ces_cuda_page_create(struct ces_ctx *ctx, const char *shm, size_t bytes, int *fd_out)
{
    const char *env, *tmp = ces_tmp_dir(&env);
    char path[4096];
    int fd;

    snprintf(path, sizeof(path), "%s/cesync-XXXXXX", shm);
    fd = mkstemp(path);
    if (fd < 0) {
        if ((size_t)snprintf(path, sizeof(path), "%s/cesync-XXXXXX", tmp) < sizeof(path))
            fd = mkstemp(path);
        else
            errno = ENAMETOOLONG;
    }
    if (fd < 0)
        return ces_ctx_error(ctx, CES_ERR_SYSTEM,
                             "cannot create the progress page in %s or in %s%s: %s", shm, tmp,
                             env, strerror(errno));
    unlink(path);
    if (ftruncate(fd, (off_t)bytes) != 0) {
        close(fd);
        return ces_ctx_error(ctx, CES_ERR_SYSTEM, "cannot size the progress page: %s",
                             strerror(errno));
    }
    *fd_out = fd;
    return CES_OK;
}

static int page_map(struct ces_team *t, int fd)
{
    void *p = mmap(NULL, t->page_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

    if (p == MAP_FAILED)
        return ces_ctx_error(t->ctx, CES_ERR_SYSTEM, "cannot map the progress page: %s",
                             strerror(errno));
    t->page = p;
    return CES_OK;
}

static void team_free(struct ces_team *t)
{
    struct ces_ctx *ctx = t->ctx;

    for (size_t i = 0; i < t->allocs.len; i++) {
        struct ces_alloc_rec *a = &CES_VEC_AT(&t->allocs, struct ces_alloc_rec, i);

        if (a->live && !t->in_use) {
            for (uint32_t r = 0; r < t->ranks; r++) {
                cuMemUnmap(t->base + r * t->stride + a->off, a->size);
                if (a->handles[r] != 0)
                    cuMemRelease(a->handles[r]);
            }
        }
        ces_free(ctx, a->handles);
    }
    ces_vec_free(ctx, &t->allocs);
    if (t->base != 0 && !t->in_use)
        cuMemAddressFree(t->base, (size_t)t->ranks * t->stride);
    if (t->page != NULL)
        munmap(t->page, t->page_bytes);
    if (t->multi)
        ces_boot_close(ctx, &t->boot);
    pthread_mutex_destroy(&t->lock);
    ces_free(ctx, t->group);
    ces_free(ctx, t->comms);
    ces_free(ctx, t);
}

static int team_new(struct ces_ctx *ctx, uint32_t ranks, uint32_t nlocal, struct ces_team **out)
{
    struct ces_team *t = ces_malloc(ctx, sizeof(*t));

    *out = NULL;
    if (t == NULL)
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory creating a communicator");
    memset(t, 0, sizeof(*t));
    t->ctx = ctx;
    t->ranks = ranks;
    t->nlocal = nlocal;
    t->boot.fd = -1;
    pthread_mutex_init(&t->lock, NULL);
    t->comms = ces_malloc(ctx, sizeof(*t->comms) * nlocal);
    if (t->comms == NULL) {
        team_free(t);
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory creating a communicator");
    }
    memset(t->comms, 0, sizeof(*t->comms) * nlocal);
    t->page_bytes = ces_cuda_round_up(sizeof(struct ces_progress_rank) * ranks, 4096);
    *out = t;
    return CES_OK;
}

/* Granularity and the stride this device wants. */
static int device_geometry(struct ces_comm *c, uint64_t *gran, uint64_t *stride)
{
    CUmemAllocationProp prop;
    size_t g = 0, total = 0;
    int rc = CES_OK;

    alloc_prop(&prop, c->cudev);
    CES_CU_GOTO(c->ctx, rc,
                cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
                out);
    CES_CU_GOTO(c->ctx, rc, cuDeviceTotalMem(&total, c->cudev), out);
    *gran = g;
    rc = ces_cuda_stride(c->ctx, getenv("CES_STRIDE"), total, g, stride);
out:
    return rank_said(c->ctx, rc, c->rank, c->device);
}

/* Reserves the flat range and gives every local communicator its
 * watchdog words in device memory; starts the watchdogs. */
static int team_finish(struct ces_team *t)
{
    int rc = CES_OK;

    CES_CU_GOTO(t->ctx, rc,
                cuMemAddressReserve(&t->base, (size_t)t->ranks * t->stride, t->gran, 0, 0), out);
    for (uint32_t i = 0; i < t->nlocal; i++) {
        struct ces_comm *c = t->comms[i];

        rc = ces_cuda_use(c);
        if (rc == CES_OK && t->page != NULL)
            rc = words_alloc(c);
        if (rc != CES_OK)
            return rank_said(t->ctx, rc, c->rank, c->device);
        rc = ces_wd_start(c);
        if (rc != CES_OK)
            goto out;
    }
out:
    return rc;
}

static int init_one(struct ces_ctx *ctx, uint32_t rank, uint32_t size, int device, int wrap,
                    const char *bootstrap, const struct ces_cuda_settings *s,
                    struct ces_comm **out)
{
    struct ces_team *t = NULL;
    struct ces_comm *c = NULL;
    struct {
        uint64_t stride, gran;
        int32_t device, pid;
    } mine, *all = NULL;
    int pfd = -1, *fds = NULL, rc;

    rc = comm_new(ctx, rank, size, device, wrap, s, &c);
    if (rc != CES_OK)
        return rc;
    rc = team_new(ctx, size, 1, &t);
    if (rc != CES_OK)
        goto fail;
    t->comms[0] = c;
    t->first_local = rank;
    t->alive = 1;
    t->timeout_ms = (uint32_t)c->timeout_ms;
    c->team = t;
    rc = device_geometry(c, &t->gran, &t->stride);
    if (rc != CES_OK)
        goto fail;
    mine.stride = t->stride;
    mine.gran = t->gran;
    mine.device = c->device;
    mine.pid = (int32_t)getpid();
    all = ces_malloc(ctx, sizeof(*all) * size);
    fds = ces_malloc(ctx, sizeof(int) * size);
    if (all == NULL || fds == NULL) {
        rc = ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory creating a communicator");
        goto fail;
    }
    if (size > 1) {
        t->multi = 1;
        rc = ces_boot_open(ctx, &t->boot, bootstrap, rank, size, t->timeout_ms);
        if (rc != CES_OK)
            goto fail;
        if (rank == 0) {
            rc = ces_cuda_page_create(ctx, "/dev/shm", t->page_bytes, &pfd);
            if (rc != CES_OK)
                goto fail;
        }
        rc = ces_boot_allgather(ctx, &t->boot, &mine, sizeof(mine), pfd, all, fds);
        if (rc != CES_OK)
            goto fail;
        /* All ranks use the largest stride and granularity. */
        for (uint32_t r = 0; r < size; r++) {
            if (all[r].stride > t->stride)
                t->stride = all[r].stride;
            if (all[r].gran > t->gran)
                t->gran = all[r].gran;
            if (r != 0 && fds[r] >= 0)
                close(fds[r]);
        }
        t->stride = ces_cuda_round_up(t->stride, t->gran);
        if (pfd >= 0 && fds[0] >= 0 && rank == 0) {
            close(fds[0]);
            fds[0] = -1;
        }
        if (rank != 0) {
            pfd = fds[0];
            fds[0] = -1;
        }
        if (pfd < 0) {
            rc = ces_ctx_error(ctx, CES_ERR_INTERNAL, "bootstrap: no progress page from rank 0");
            goto fail;
        }
    } else {
        rc = ces_cuda_page_create(ctx, "/dev/shm", t->page_bytes, &pfd);
        if (rc != CES_OK)
            goto fail;
    }
    rc = page_map(t, pfd);
    close(pfd);
    pfd = -1;
    if (rc != CES_OK)
        goto fail;
    /* from now on a rank's failure record ends an exchange (bootstrap.c) */
    t->boot.page = t->page;
    rc = team_finish(t);
    if (rc != CES_OK)
        goto fail;
    if (t->multi) {
        rc = ces_boot_barrier(ctx, &t->boot);
        if (rc != CES_OK)
            goto fail;
    }
    ces_free(ctx, all);
    ces_free(ctx, fds);
    *out = c;
    return CES_OK;
fail:
    if (pfd >= 0)
        close(pfd);
    ces_free(ctx, all);
    ces_free(ctx, fds);
    if (c != NULL) {
        ces_wd_stop(c);
        comm_free(c);
    }
    if (t != NULL)
        team_free(t);
    return rc;
}

int ces_comm_init(struct ces_ctx *ctx, uint32_t rank, uint32_t size, int device,
                  const char *bootstrap, struct ces_comm **out)
{
    struct ces_cuda_settings s;
    int rc = ces_cuda_init_check(ctx, rank, size, device, bootstrap, out, &s);

    if (rc != CES_OK)
        return rc;
    return init_one(ctx, rank, size, device, 0, bootstrap, &s, out);
}

int ces_comm_init_env(struct ces_ctx *ctx, const char *rendezvous, struct ces_comm **out)
{
    struct ces_cuda_settings s;
    const char *bootstrap = NULL;
    uint32_t rank = 0, size = 0;
    int device = 0, rc;

    rc = ces_cuda_init_env_check(ctx, rendezvous, out, &rank, &size, &device, &bootstrap, &s);
    if (rc != CES_OK)
        return rc;
    return init_one(ctx, rank, size, device, 1, bootstrap, &s, out);
}

/* Every rank of a team maps every other's memory with access for its own
 * GPU (map_all), which a GPU is given only to memory of a peer
 * (cuDeviceCanAccessPeer: NVLink, or PCIe peer-to-peer): a pair of the
 * ranks' GPUs that are not peers is refused before anything is allocated,
 * naming both ranks and GPUs, rather than by the first ces_mem_alloc with
 * cuMemSetAccess's bare CUDA_ERROR_INVALID_DEVICE. */
static int peers_check(struct ces_team *t)
{
    const struct ces_comm *a = NULL, *b = NULL;
    int rc = CES_OK;

    for (uint32_t j = 1; j < t->nlocal; j++) {
        for (uint32_t i = 0; i < j; i++) {
            int ab = 0, ba = 0;

            a = t->comms[i];
            b = t->comms[j];
            if (a->device == b->device)
                continue;
            CES_CU_GOTO(t->ctx, rc, cuDeviceCanAccessPeer(&ab, a->cudev, b->cudev), out);
            CES_CU_GOTO(t->ctx, rc, cuDeviceCanAccessPeer(&ba, b->cudev, a->cudev), out);
            if (!ab || !ba)
                return ces_cuda_not_peers(t->ctx, i, j, ab ? b->device : a->device,
                                          ab ? a->device : b->device);
        }
    }
out:
    return rc == CES_OK ? rc : rank_said(t->ctx, rc, a->rank, a->device);
}

int ces_comm_init_all(struct ces_ctx *ctx, uint32_t ndev, const int *devices,
                      struct ces_comm **comms)
{
    struct ces_cuda_settings s;
    struct ces_team *t = NULL;
    int rc, pfd = -1, dev[CES_MAX_RANKS];
    uint32_t made = 0;

    rc = ces_cuda_init_all_check(ctx, ndev, devices, comms, &s);
    if (rc != CES_OK)
        return rc;
    rc = team_new(ctx, ndev, ndev, &t);
    if (rc != CES_OK)
        return rc;
    for (made = 0; made < ndev; made++) {
        uint64_t gran, stride;
        struct ces_comm *c;

        rc = comm_new(ctx, made, ndev, devices ? devices[made] : (int)made, devices == NULL, &s,
                      &c);
        if (rc != CES_OK)
            goto fail;
        c->team = t;
        t->comms[made] = c;
        rc = device_geometry(c, &gran, &stride);
        if (rc != CES_OK) {
            made++;
            goto fail;
        }
        if (gran > t->gran)
            t->gran = gran;
        if (stride > t->stride)
            t->stride = stride;
    }
    for (uint32_t j = 0; j < ndev; j++)
        dev[j] = t->comms[j]->device;
    rc = ces_cuda_one_process(ctx, dev, ndev, t->comms[0]->queues);
    if (rc != CES_OK)
        goto fail;
    rc = peers_check(t);
    if (rc != CES_OK)
        goto fail;
    t->stride = ces_cuda_round_up(t->stride, t->gran);
    t->timeout_ms = (uint32_t)t->comms[0]->timeout_ms;
    t->alive = ndev;
    rc = ces_cuda_page_create(ctx, "/dev/shm", t->page_bytes, &pfd);
    if (rc == CES_OK)
        rc = page_map(t, pfd);
    if (pfd >= 0)
        close(pfd);
    if (rc == CES_OK)
        rc = team_finish(t);
    if (rc != CES_OK)
        goto fail;
    for (uint32_t i = 0; i < ndev; i++)
        comms[i] = t->comms[i];
    return CES_OK;
fail:
    for (uint32_t i = 0; i < made; i++) {
        if (t->comms[i] != NULL) {
            ces_wd_stop(t->comms[i]);
            comm_free(t->comms[i]);
        }
    }
    team_free(t);
    return rc;
}

/* Waits (until the deadline) until every watched stream has completed
 * every step it was given, so that no queued op still touches memory about
 * to be unmapped (after a failure the watchdog keeps releasing waits
 * meanwhile); 1 when they all have. */
static int drain(struct ces_comm *c, uint64_t deadline)
{
    if (c->team->page == NULL || c->progress_dev == 0)
        return 1;
    ces_cuda_use(c); /* the mirror copies on the communicator's stream */
    for (;;) {
        int busy = 0;

        ces_wd_mirror(c, 1);
        pthread_mutex_lock(&c->wd_lock);
        for (uint32_t s = 0; s < c->nwatched; s++)
            if (ces_wd_word(c, c->rank, s) < atomic_load(&c->watched[s].enqueued) ||
                ces_wd_flight(c, c->rank, s) != 0)
                busy = 1;
        pthread_mutex_unlock(&c->wd_lock);
        if (!busy)
            return 1; /* the words only grow: a copy that shows idle says so */
        if (ces_wd_read_error(c, NULL, 0))
            return 0; /* they will not move again: what its streams hold is unknown */
        if (ces_cuda_now_ms() >= deadline)
            return 0;
        {
            struct timespec ts = {0, 2000000L};

            nanosleep(&ts, NULL);
        }
    }
}

/* The communicator's own streams - its schedules' internal ones, and the
 * group's side ones, which may still announce a message after the caller's
 * stream has passed its call (group.c) - waited for (until the deadline)
 * until idle, before the memory and flags they use are freed; 1 when they
 * are.  Never the whole context: that would also wait, for ever, for work
 * of the caller's that is none of the communicator's, or for other ranks'
 * streams of one process. */
static int own_drain(struct ces_comm *c, uint64_t deadline)
{
    ces_cuda_use(c);
    for (uint32_t s = 1; s < CES_MAX_STREAMS + 2; s++)
        if (!stream_settle(s < CES_MAX_STREAMS ? c->streams[s]
                                               : c->p2p_streams[s - CES_MAX_STREAMS + 1],
                           deadline))
            return 0;
    return 1;
}

int ces_comm_destroy(struct ces_comm *c)
{
    struct ces_team *t;
    struct ces_ctx *ctx;
    uint64_t deadline;
    uint32_t rank;
    int rc = CES_OK, last, idle, unreadable;
    char why[160];

    if (c == NULL)
        return CES_OK;
    t = c->team;
    ctx = c->ctx;
    rank = c->rank;
    deadline = ces_cuda_now_ms() + c->timeout_ms + 1000;
    idle = atomic_load(&c->state) == CES_OK || drain(c, deadline);
    /* a context that died: its streams will never finish what the words
     * say they hold, so there is nothing to wait for */
    unreadable = atomic_load(&c->state) != CES_OK && ces_wd_read_error(c, why, sizeof(why));
    idle = !unreadable && own_drain(c, deadline) && idle;
    ces_wd_stop(c);
    if (!idle)
        t->in_use = 1; /* work still queued may touch the memory: it stays mapped */
    /* Signal arrays were allocated by the communicator; release them. */
    ces_cuda_signals_drop(c, idle);
    if (t->multi && atomic_load(&c->state) == CES_OK)
        rc = ces_boot_barrier(c->ctx, &t->boot);
    ces_cuda_use(c);
    pthread_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->nlocal; i++)
        if (t->comms[i] == c)
            t->comms[i] = NULL;
    last = --t->alive == 0;
    pthread_mutex_unlock(&t->lock);
    if (last) {
        team_free(t);
    }
    comm_free(c);
    if (unreadable)
        return ces_ctx_error(ctx, CES_ERR_CUDA,
                             "ces_comm_destroy: rank %" PRIu32 "'s streams cannot be waited for: "
                             "%s; its symmetric memory stays mapped",
                             rank, why);
    if (!idle)
        return ces_ctx_error(ctx, CES_ERR_TIMEOUT,
                             "ces_comm_destroy: rank %" PRIu32 "'s streams did not go idle within "
                             "CES_TIMEOUT_MS + 1 s; its symmetric memory stays mapped",
                             rank);
    return rc;
}

int ces_comm_abort(struct ces_comm *c)
{
    int rc;

    if (c == NULL)
        return CES_ERR_INVALID;
    rc = ces_comm_check(c);
    if (rc != CES_OK)
        return rc;
    ces_wd_fail(c, CES_ERR_TIMEOUT, "aborted by ces_comm_abort");
    return CES_OK;
}

int ces_comm_status(const struct ces_comm *c)
{
    /* a failure sets the context's message, as every error does: only the
     * context changes */
    return c == NULL ? CES_ERR_INVALID : ces_comm_check((struct ces_comm *)c);
}

uint32_t ces_comm_rank(const struct ces_comm *c) { return c ? c->rank : 0; }
uint32_t ces_comm_size(const struct ces_comm *c) { return c ? c->size : 0; }
int ces_comm_device(const struct ces_comm *c) { return c ? c->device : -1; }

/* --- symmetric memory ---------------------------------------------------- */

struct ces_alloc_rec *ces_team_find(struct ces_team *t, uint32_t rank, const void *ptr,
                                    uint64_t *off)
{
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)ptr, lo = t->base + (CUdeviceptr)rank * t->stride;

    if (t->base == 0 || p < lo || p >= lo + t->stride)
        return NULL;
    for (size_t i = 0; i < t->allocs.len; i++) {
        struct ces_alloc_rec *a = &CES_VEC_AT(&t->allocs, struct ces_alloc_rec, i);

        if (a->live && p >= lo + a->off && p < lo + a->off + a->size) {
            if (off != NULL)
                *off = p - lo;
            return a;
        }
    }
    return NULL;
}

/* Maps every rank's handle of a new allocation and sets access for the
 * devices of this process; *mapped counts the ranks mapped, for the undo
 * (the driver unmaps a range never mapped without a word). */
static int map_all(struct ces_team *t, struct ces_alloc_rec *a, uint32_t *mapped)
{
    CUmemAccessDesc desc[CES_MAX_RANKS > 64 ? 64 : CES_MAX_RANKS];
    uint32_t nd = 0, r;
    int rc = CES_OK;

    for (uint32_t i = 0; i < t->nlocal && nd < 64; i++) {
        CUdevice dev = t->comms[i] ? t->comms[i]->cudev : 0;
        uint32_t j = 0;

        while (j < nd && desc[j].location.id != dev) /* ranks sharing a GPU */
            j++;
        if (j < nd)
            continue;
        desc[nd].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        desc[nd].location.id = dev;
        desc[nd].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        nd++;
    }
    for (r = 0; r < t->ranks; r++) {
        CES_CU_GOTO(t->ctx, rc, cuMemMap(t->base + r * t->stride + a->off, a->size, 0,
                                         a->handles[r], 0),
                    out);
        (*mapped)++;
    }
    for (r = 0; r < t->ranks; r++)
        CES_CU_GOTO(t->ctx, rc, cuMemSetAccess(t->base + r * t->stride + a->off, a->size, desc, nd),
                    denied);
    return CES_OK;
denied: /* whose memory; and, another process's, why a GPU may be refused it
         * (in one process peers_check has asked: not for that) */
    if (t->multi && r != t->first_local)
        return ces_ctx_error(t->ctx, rc,
                             "rank %" PRIu32 "'s memory cannot be made accessible to the GPU "
                             "of this process (a GPU is given access only to a peer's memory: "
                             "cuDeviceCanAccessPeer): %s",
                             r, ces_ctx_last_error(t->ctx));
    return ces_ctx_error(t->ctx, rc,
                         "rank %" PRIu32 "'s memory cannot be made accessible to the GPU%s of "
                         "this process: %s",
                         r, ces_plural(nd), ces_ctx_last_error(t->ctx));
out:
    return rc;
}

/* Picks an offset: the first freed range that fits, else the top. */
static int pick_offset(struct ces_team *t, uint64_t size, uint64_t *off)
{
    for (size_t i = 0; i < t->allocs.len; i++) {
        struct ces_alloc_rec *a = &CES_VEC_AT(&t->allocs, struct ces_alloc_rec, i);

        if (!a->live && a->size >= size && a->handles == NULL) {
            int clash = 0;

            for (size_t j = 0; j < t->allocs.len && !clash; j++) {
                struct ces_alloc_rec *b = &CES_VEC_AT(&t->allocs, struct ces_alloc_rec, j);

                clash = b->live && b->off < a->off + size && a->off < b->off + b->size;
            }
            if (!clash) {
                *off = a->off;
                return CES_OK;
            }
        }
    }
    if (t->top + size > t->stride)
        return ces_ctx_error(t->ctx, CES_ERR_LIMIT,
                             "symmetric memory exhausted: %" PRIu64 " bytes requested, %" PRIu64
                             " of %" PRIu64 " per rank in use (CES_STRIDE)",
                             size, t->top, t->stride);
    *off = t->top;
    t->top += size;
    return CES_OK;
}

int ces_team_alloc(struct ces_comm *c, uint64_t bytes, void **ptr)
{
    struct ces_team *t = c->team;
    struct ces_alloc_rec rec, *a;
    CUmemAllocationProp prop;
    uint64_t seq = c->nalloc++, top;
    uint32_t mapped = 0;
    struct ces_comm *zeroing = NULL; /* its memset enqueued, not known done */
    int rc = CES_OK, fd = -1;
    int torn = 0; /* a failure now leaves the exchange half done (the end) */
    int *fds = NULL;
    uint64_t *sizes = NULL;

    memset(&rec, 0, sizeof(rec));
    rec.size = ces_cuda_round_up(bytes ? bytes : 1, t->gran);
    pthread_mutex_lock(&t->lock);
    top = t->top; /* restored if this call fails: pick_offset may move it */
    for (uint32_t r = 0; !t->multi && r < t->nlocal && rc == CES_OK; r++)
        if (t->comms[r] == NULL) /* ces_comm_destroy took it out */
            rc = ces_ctx_error(c->ctx, CES_ERR_INVALID,
                               "ces_mem_alloc #%" PRIu64 ": rank %" PRIu32 " of this process "
                               "was destroyed; symmetric memory needs every rank of the team",
                               seq, r);
    if (rc != CES_OK)
        goto out;
    if (!t->multi && seq < t->allocs.len) {
        /* Another rank of this process made this allocation already. */
        a = &CES_VEC_AT(&t->allocs, struct ces_alloc_rec, seq);
        if (a->size != rec.size) {
            rc = ces_ctx_error(c->ctx, CES_ERR_INVALID,
                               "ces_mem_alloc #%" PRIu64 ": rank %" PRIu32 " asks for %" PRIu64
                               " bytes but an earlier rank asked for %" PRIu64
                               " (every rank must allocate the same sizes in the same order)",
                               seq, c->rank, rec.size, a->size);
            goto out;
        }
        *ptr = (void *)(uintptr_t)(t->base + c->rank * t->stride + a->off);
        goto out;
    }
    rec.handles = ces_malloc(c->ctx, sizeof(CUmemGenericAllocationHandle) * t->ranks);
    if (rec.handles == NULL) {
        rc = ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory allocating symmetric memory");
        goto out;
    }
    memset(rec.handles, 0, sizeof(CUmemGenericAllocationHandle) * t->ranks);
    rc = pick_offset(t, rec.size, &rec.off);
    if (rc != CES_OK)
        goto out;
    if (t->multi) {
        uint64_t mine = rec.size;

        fds = ces_malloc(c->ctx, sizeof(int) * t->ranks);
        sizes = ces_malloc(c->ctx, sizeof(uint64_t) * t->ranks);
        if (fds == NULL || sizes == NULL) {
            rc = ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory allocating symmetric memory");
            goto out;
        }
        for (uint32_t r = 0; r < t->ranks; r++)
            fds[r] = -1;
        alloc_prop(&prop, c->cudev);
        CES_CU_GOTO(c->ctx, rc, cuMemCreate(&rec.handles[c->rank], rec.size, &prop, 0), out);
        CES_CU_GOTO(c->ctx, rc,
                    cuMemExportToShareableHandle(&fd, rec.handles[c->rank],
                                                 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                    out);
        torn = 1;
        rc = ces_boot_allgather(c->ctx, &t->boot, &mine, sizeof(mine), fd, sizes, fds);
        if (rc != CES_OK)
            goto out;
        for (uint32_t r = 0; r < t->ranks; r++) {
            if (sizes[r] != rec.size) {
                /* Every rank got the same rows and refuses alike: the
                 * exchange is whole and the next one starts afresh. */
                torn = 0;
                rc = ces_ctx_error(c->ctx, CES_ERR_INVALID,
                                   "ces_mem_alloc #%" PRIu64 ": rank %" PRIu32 " asks for %" PRIu64
                                   " bytes, rank %" PRIu32 " for %" PRIu64
                                   " (every rank must allocate the same sizes in the same order)",
                                   seq, c->rank, rec.size, r, sizes[r]);
                goto out;
            }
        }
        for (uint32_t r = 0; r < t->ranks; r++) {
            if (r == c->rank)
                continue;
            if (fds[r] < 0) {
                rc = ces_ctx_error(c->ctx, CES_ERR_INTERNAL, "no memory handle from rank %" PRIu32, r);
                goto out;
            }
            CES_CU_GOTO(c->ctx, rc,
                        cuMemImportFromShareableHandle(&rec.handles[r], (void *)(uintptr_t)fds[r],
                                                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                        out);
        }
    } else {
        for (uint32_t r = 0; r < t->ranks; r++) {
            alloc_prop(&prop, t->comms[r]->cudev);
            CES_CU_GOTO(c->ctx, rc, cuMemCreate(&rec.handles[r], rec.size, &prop, 0), out);
        }
    }
    rc = map_all(t, &rec, &mapped);
    if (rc != CES_OK)
        goto unmap; /* the ranks mapped before the failure */
    rec.live = 1;
    rec.refs = t->nlocal;
    /* Zero every local rank's memory before anyone can write into it: the
     * memsets complete before this call returns, and in multi-process mode
     * before the next exchange with the peers. */
    for (uint32_t i = 0; i < t->nlocal; i++) {
        struct ces_comm *m = t->comms[i];

        rc = ces_cuda_use(m);
        if (rc != CES_OK)
            goto unmap;
        CES_CU_GOTO(c->ctx, rc, cuMemsetD8Async(t->base + m->rank * t->stride + rec.off, 0,
                                                rec.size, m->wd_stream),
                    unmap);
        zeroing = m;
        CES_CU_GOTO(c->ctx, rc, cuStreamSynchronize(m->wd_stream), unmap);
        zeroing = NULL;
    }
    ces_cuda_use(c);
    if (t->multi) {
        rc = ces_boot_barrier(c->ctx, &t->boot);
        if (rc != CES_OK)
            goto unmap;
    }
    if (ces_vec_push(c->ctx, &t->allocs, sizeof(rec), &rec) != CES_OK) {
        rc = ces_ctx_error(c->ctx, CES_ERR_NOMEM, "out of memory allocating symmetric memory");
        goto unmap;
    }
    rec.handles = NULL; /* owned by the list now */
    *ptr = (void *)(uintptr_t)(t->base + c->rank * t->stride + rec.off);
    goto out;
unmap:
    if (zeroing != NULL && ces_cuda_use(zeroing) == CES_OK)
        cuStreamSynchronize(zeroing->wd_stream); /* no unmap under its memset */
    ces_cuda_use(c);
    for (uint32_t r = 0; r < mapped; r++)
        cuMemUnmap(t->base + r * t->stride + rec.off, rec.size);
out:
    if (rec.handles != NULL) {
        for (uint32_t r = 0; r < t->ranks; r++)
            if (rec.handles[r] != 0)
                cuMemRelease(rec.handles[r]);
        ces_free(c->ctx, rec.handles);
    }
    if (rc != CES_OK) /* a retry takes the same number, as every rank must */
        c->nalloc--;
    if (rc != CES_OK)
        t->top = top;
    if (fd >= 0)
        close(fd);
    if (fds != NULL)
        for (uint32_t r = 0; r < t->ranks; r++)
            if (fds[r] >= 0)
                close(fds[r]);
    ces_free(c->ctx, fds);
    ces_free(c->ctx, sizes);
    pthread_mutex_unlock(&t->lock);
    /* Across processes, a failure from the exchange on (a timeout, a
     * peer's failure record, a handle that cannot be imported or mapped,
     * the closing barrier) leaves rows on the sockets that no later
     * exchange may read (a retry would take a peer's row of this call,
     * its handle released since, for its own), and may leave peers
     * waiting in the barrier: the communicator fails, as after a failed
     * group, and its record ends every rank's exchange.  The refusals
     * decided alike on every rank with no row left behind stay refusals:
     * the stride exhausted (before the exchange) and sizes that differ
     * (after a whole one). */
    if (torn)
        ces_comm_fail_call(c, rc, "a symmetric memory allocation");
    return rc;
}

int ces_mem_alloc(struct ces_comm *c, size_t bytes, void **ptr)
{
    int rc;

    if (c == NULL)
        return CES_ERR_INVALID;
    if (ptr == NULL)
        return ces_ctx_error(c->ctx, CES_ERR_INVALID, "ces_mem_alloc: NULL argument");
    *ptr = NULL;
    rc = ces_comm_check(c);
    if (rc != CES_OK)
        return rc;
    if (bytes == 0 || bytes > CES_MAX_BYTES)
        return ces_ctx_error(c->ctx, CES_ERR_INVALID,
                             "ces_mem_alloc: bytes must be 1..2^48, not %zu", bytes);
    rc = ces_cuda_use(c);
    if (rc != CES_OK)
        return rc;
    return ces_team_alloc(c, bytes, ptr);
}

int ces_team_release(struct ces_comm *c, void *ptr)
{
    struct ces_team *t = c->team;
    struct ces_alloc_rec *a;
    uint64_t off;
    int rc = CES_OK;

    pthread_mutex_lock(&t->lock);
    a = ces_team_find(t, c->rank, ptr, &off);
    if (a == NULL || t->base + c->rank * t->stride + a->off != (CUdeviceptr)(uintptr_t)ptr) {
        rc = ces_ctx_error(c->ctx, CES_ERR_INVALID,
                           "ces_mem_free: %p is not an allocation of ces_mem_alloc on this "
                           "communicator", ptr);
        goto out;
    }
    if (a->freed[c->rank / 64] & (UINT64_C(1) << (c->rank % 64))) {
        rc = ces_ctx_error(c->ctx, CES_ERR_INVALID,
                           "ces_mem_free: %p was freed already on this communicator", ptr);
        goto out;
    }
    a->freed[c->rank / 64] |= UINT64_C(1) << (c->rank % 64);
    if (--a->refs == 0) {
        ces_cuda_use(c);
        for (uint32_t r = 0; r < t->ranks; r++) {
            cuMemUnmap(t->base + r * t->stride + a->off, a->size);
            cuMemRelease(a->handles[r]);
        }
        ces_free(c->ctx, a->handles);
        a->handles = NULL;
        a->live = 0;
    }
out:
    pthread_mutex_unlock(&t->lock);
    return rc;
}

int ces_mem_free(struct ces_comm *c, void *ptr)
{
    int rc;

    if (c == NULL)
        return CES_ERR_INVALID;
    /* A failed communicator's streams may still touch the memory: it stays
     * mapped until ces_comm_destroy has waited for them. */
    rc = ces_comm_check(c);
    if (rc != CES_OK || ptr == NULL)
        return rc;
    return ces_team_release(c, ptr);
}

void *ces_mem_peer(const struct ces_comm *c, const void *ptr, uint32_t rank)
{
    uint64_t off;

    if (c == NULL || rank >= c->size ||
        ces_team_find(c->team, c->rank, ptr, &off) == NULL)
        return NULL;
    return (void *)(uintptr_t)(c->team->base + rank * c->team->stride + off);
}
