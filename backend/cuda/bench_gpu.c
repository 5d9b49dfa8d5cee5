/*
 * backend/cuda/bench_gpu.c - the GPU side of `cesync bench` (see
 * bench_gpu.h): buffers, the host gate that holds every stream until all the
 * work is enqueued, device-event timing (per iteration eagerly, per graph
 * launch with --graph), the data check of every byte, the raw peer copy,
 * the compute kernel (PTX text loaded with cuModuleLoadData, so the C build
 * needs no nvcc) and the calibration of the machine model.  NCCL lives in
 * bench_nccl.c.
 */
#include "bench_gpu.h"
#include "bench_data.h"
#include "bench_nccl.h"
#include "runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Driver functions the backend's table (cu_api.h) does not carry, reached
 * the same way: through the runtime's entry-point query, never by linking
 * libcuda. */
struct bench_cu {
    CUresult (CUDAAPI *ModuleLoadData)(CUmodule *, const void *);
    CUresult (CUDAAPI *ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (CUDAAPI *ModuleUnload)(CUmodule);
    CUresult (CUDAAPI *LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                     unsigned, unsigned, CUstream, void **, void **);
};

static int bench_cu_load(struct bench_cu *t)
{
    static const char *names[4] = {"cuModuleLoadData", "cuModuleGetFunction", "cuModuleUnload",
                                   "cuLaunchKernel"};
    void *fns[4];

    for (int i = 0; i < 4; i++)
        if ((fns[i] = ces_cu_sym(names[i])) == NULL)
            return 0;
    *(void **)&t->ModuleLoadData = fns[0];
    *(void **)&t->ModuleGetFunction = fns[1];
    *(void **)&t->ModuleUnload = fns[2];
    *(void **)&t->LaunchKernel = fns[3];
    return 1;
}

#define BENCH_MAX_RANKS 8u
#define BENCH_MAX_ITERS 256u

/* The compute-bound kernel: every thread runs `iters` rounds of four
 * dependent FMA chains and stores one float so nothing is dead code. */
static const char bench_ptx[] =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry ces_burn(.param .u64 out, .param .u32 iters)\n"
    "{\n"
    "  .reg .f32 %f<12>;\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  .reg .pred %p1;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u32 %r1, [iters];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  mov.u32 %r3, %ctaid.x;\n"
    "  mov.u32 %r4, %ntid.x;\n"
    "  mad.lo.s32 %r5, %r3, %r4, %r2;\n"
    "  cvt.rn.f32.u32 %f1, %r5;\n"
    "  mov.f32 %f2, 0f3F800000;\n"
    "  mov.f32 %f3, 0f40000000;\n"
    "  mov.f32 %f4, 0f40400000;\n"
    "  mov.f32 %f5, 0f3F7FFFEF;\n"
    "  mov.f32 %f6, 0f3A83126F;\n"
    "  mov.u32 %r6, 0;\n"
    "LOOP:\n"
    "  fma.rn.f32 %f1, %f1, %f5, %f6;\n"
    "  fma.rn.f32 %f2, %f2, %f5, %f6;\n"
    "  fma.rn.f32 %f3, %f3, %f5, %f6;\n"
    "  fma.rn.f32 %f4, %f4, %f5, %f6;\n"
    "  fma.rn.f32 %f1, %f1, %f5, %f6;\n"
    "  fma.rn.f32 %f2, %f2, %f5, %f6;\n"
    "  fma.rn.f32 %f3, %f3, %f5, %f6;\n"
    "  fma.rn.f32 %f4, %f4, %f5, %f6;\n"
    "  add.u32 %r6, %r6, 1;\n"
    "  setp.lt.u32 %p1, %r6, %r1;\n"
    "  @%p1 bra LOOP;\n"
    "  add.f32 %f7, %f1, %f2;\n"
    "  add.f32 %f8, %f3, %f4;\n"
    "  add.f32 %f9, %f7, %f8;\n"
    "  mul.wide.u32 %rd2, %r5, 4;\n"
    "  add.u64 %rd3, %rd1, %rd2;\n"
    "  st.global.f32 [%rd3], %f9;\n"
    "  ret;\n"
    "}\n";

#define BURN_THREADS 256u
#define BURN_BLOCKS_PER_SM 8u

struct ces_bench {
    struct ces_ctx *ctx;
    struct ces_bench_cfg cfg;
    uint32_t n;
    struct ces_comm *comms[BENCH_MAX_RANKS];
    int dev[BENCH_MAX_RANKS];
    cudaStream_t st[BENCH_MAX_RANKS];  /* the collectives' streams */
    cudaStream_t st2[BENCH_MAX_RANKS]; /* compute kernel / second stream */
    void *send[BENCH_MAX_RANKS], *recv[BENCH_MAX_RANKS], *stage[BENCH_MAX_RANKS];
    void *wake[BENCH_MAX_RANKS]; /* the variants' wake chain buffer (cfg.wake > 0) */
    uint64_t send_bytes, recv_bytes, stage_bytes;
    /* the data pattern (bench_data.h): its table on the host, and a copy
     * on every rank's device, the source of fill_send's first copy */
    unsigned char *tab;
    void *tmpl[BENCH_MAX_RANKS];
    cudaEvent_t ev0[BENCH_MAX_RANKS][BENCH_MAX_ITERS];
    cudaEvent_t ev1[BENCH_MAX_RANKS][BENCH_MAX_ITERS];
    cudaEvent_t cleared[BENCH_MAX_RANKS]; /* clear_for_check */
    /* the gate: host memory that every stream waits on (atomic: the
     * guard's thread may open it while this one does) */
    _Atomic uint32_t *gate;
    CUdeviceptr gate_dev;
    uint32_t gate_gen;
    /* NCCL */
    struct ces_nccl *nccl;
    int nccl_buf[2]; /* buffers ready: [0] kernel, [1] CE */
    void *nsend[2][BENCH_MAX_RANKS], *nrecv[2][BENCH_MAX_RANKS];
    char nccl_info[320];
    /* compute kernel */
    struct bench_cu cu;
    int compute_ok;
    CUmodule mod[BENCH_MAX_RANKS];
    CUfunction burn[BENCH_MAX_RANKS];
    float *burn_out[BENCH_MAX_RANKS];
    uint32_t burn_blocks[BENCH_MAX_RANKS];
    uint32_t burn_iters;
    uint64_t seq; /* next first_iter of builder graphs (signals keep their values) */
    uint32_t primed[CES_BI_COUNT]; /* bit 0: backend path; bit 1 + v: variant v */
};

/* --- small helpers ---------------------------------------------------------- */

static int use_dev(struct ces_bench *b, uint32_t r)
{
    cudaError_t e = cudaSetDevice(b->dev[r]);

    return e == cudaSuccess ? CES_OK
                            : ces_cuda_rt_error(b->ctx, e, "cudaSetDevice", __FILE__, __LINE__);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* The bytes of one copy of the raw copy (enqueue_raw): what rank r sends to
 * peers in one iteration, moved in one copy to rank r+1; in the rooted
 * collectives one peer's block, `bytes`, copied once per peer. */
static uint64_t peer_bytes(const struct ces_bench *b, uint64_t bytes)
{
    switch (b->cfg.coll) {
    case CES_COLL_ALLTOALL:
        return bytes / b->n * (b->n - 1);
    case CES_COLL_ALLGATHER:
        return bytes * (b->n - 1);
    default:
        return bytes;
    }
}

/* The lengths of a rank's send and recv at `bytes` per rank (cesync.h). */
static uint64_t send_len(const struct ces_bench *b, uint64_t bytes)
{
    return b->cfg.coll == CES_COLL_SCATTER ? bytes * b->n : bytes;
}

/* The bytes of a rank's send that impl reads: the send, but the raw copy's
 * peer bytes where they exceed it (allgather from three ranks). */
static uint64_t read_len(const struct ces_bench *b, int impl, uint64_t bytes)
{
    uint64_t s = send_len(b, bytes), p = peer_bytes(b, bytes);

    return impl == CES_BI_RAW && p > s ? p : s;
}

static uint64_t recv_len(const struct ces_bench *b, uint64_t bytes)
{
    return b->cfg.coll == CES_COLL_ALLGATHER || b->cfg.coll == CES_COLL_GATHER ? bytes * b->n
                                                                               : bytes;
}

/* The attributes of every copy of a cudaMemcpyBatchAsync here, as the
 * backend and NCCL pass them. */
static void batch_attr(struct cudaMemcpyAttributes *attr)
{
    memset(attr, 0, sizeof(*attr));
    attr->srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    attr->flags = cudaMemcpyFlagPreferOverlapWithCompute;
}

/* --- the gate ---------------------------------------------------------------- */

struct gate_guard {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    _Atomic uint32_t *gate;
    uint32_t gen;
    pthread_t th;
    int started;
};

/* Opens the gate after 3 s even if the host never finished enqueuing (a
 * full queue would otherwise wait forever on a gated stream). */
static void *gate_guard_main(void *arg)
{
    struct gate_guard *g = arg;
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 3;
    pthread_mutex_lock(&g->mu);
    while (!g->done)
        if (pthread_cond_timedwait(&g->cv, &g->mu, &ts) == ETIMEDOUT)
            break;
    pthread_mutex_unlock(&g->mu);
    atomic_store(g->gate, g->gen);
    return NULL;
}

/* Closes the gate on every stream in `streams` (NULL entries skipped).  On
 * failure the gate is open again (the streams it already closed go on) and
 * `g` is untouched: the caller must not call gate_open. */
static int gate_close(struct ces_bench *b, cudaStream_t *streams, uint32_t count,
                      struct gate_guard *g)
{
    int rc = CES_OK;

    b->gate_gen++;
    for (uint32_t i = 0; i < count; i++) {
        if (streams[i] == NULL)
            continue;
        CUstreamBatchMemOpParams op;

        memset(&op, 0, sizeof(op));
        op.waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
        op.waitValue.address = b->gate_dev;
        op.waitValue.value = b->gate_gen;
        op.waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
        CES_CU_GOTO(b->ctx, rc, cuStreamBatchMemOp((CUstream)streams[i], 1, &op, 0), fail);
    }
    memset(g, 0, sizeof(*g));
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->gate = b->gate;
    g->gen = b->gate_gen;
    g->started = ces_cuda_thread_start(&g->th, gate_guard_main, g) == 0;
    return CES_OK;
fail:
    atomic_store(b->gate, b->gate_gen);
    return rc;
}

static void gate_open(struct ces_bench *b, struct gate_guard *g)
{
    atomic_store(b->gate, b->gate_gen);
    if (g->started) {
        pthread_mutex_lock(&g->mu);
        g->done = 1;
        pthread_cond_signal(&g->cv);
        pthread_mutex_unlock(&g->mu);
        pthread_join(g->th, NULL);
    }
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
}

/* --- open / close ---------------------------------------------------------- */

static int open_compute(struct ces_bench *b)
{
    int rc = CES_OK;

    if (!bench_cu_load(&b->cu))
        return ces_ctx_error(b->ctx, CES_ERR_UNSUPPORTED, "driver module functions not found");
    for (uint32_t r = 0; r < b->n; r++) {
        int sms = 0;

        rc = use_dev(b, r);
        if (rc != CES_OK)
            return rc;
        CES_RT_GOTO(b->ctx, rc, cudaFree(NULL), out);
        CES_CU_GOTO(b->ctx, rc, b->cu.ModuleLoadData(&b->mod[r], bench_ptx), out);
        CES_CU_GOTO(b->ctx, rc, b->cu.ModuleGetFunction(&b->burn[r], b->mod[r], "ces_burn"), out);
        CES_RT_GOTO(b->ctx, rc,
                    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, b->dev[r]), out);
        b->burn_blocks[r] = (uint32_t)sms * BURN_BLOCKS_PER_SM;
        CES_RT_GOTO(b->ctx, rc,
                    cudaMalloc((void **)&b->burn_out[r],
                               sizeof(float) * b->burn_blocks[r] * BURN_THREADS),
                    out);
    }
    b->burn_iters = 20000;
    b->compute_ok = 1;
out:
    return rc;
}

/* Whether the ranks can run on these GPUs, judged and said as cesync
 * devices --ranks N judges and says it, before any context is made; the
 * GPUs CUDA counts in *gpus.  A driver that fails is said as such, not as
 * "0 found". */
static int fit(struct ces_ctx *ctx, uint32_t ranks, int *gpus)
{
    struct ces_devices *d = ces_malloc(ctx, sizeof(*d));
    cudaError_t counted = cudaSuccess;
    int rc;

    if (d == NULL)
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory");
    rc = ces_cuda_devices_query(ctx, d, &counted);
    if (counted != cudaSuccess && counted != cudaErrorNoDevice) {
        char why[256];

        ces_cuda_no_gpu_reason(counted, why, sizeof(why));
        rc = ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                           "no GPU can be used: %s (--dry-run predicts without one)", why);
    }
    if (rc == CES_OK)
        rc = ces_devices_fit(ctx, d, ranks, 1);
    *gpus = (int)d->total;
    ces_free(ctx, d);
    return rc;
}

int ces_bench_open(struct ces_ctx *ctx, const struct ces_bench_cfg *cfg, struct ces_bench **out)
{
    struct ces_bench *b;
    int rc = CES_OK, ndev = 0;
    void *host = NULL;

    if (ctx == NULL || cfg == NULL || out == NULL)
        return CES_ERR_INVALID;
    *out = NULL;
    if (cfg->ranks < 2 || cfg->ranks > BENCH_MAX_RANKS)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "--ranks must be 2..%u", BENCH_MAX_RANKS);
    if (cfg->root >= cfg->ranks)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "--root must be 0..%u", cfg->ranks - 1);
    /* the settings ces_comm_init_all reads were judged by the caller
     * (cesync bench, before it knows whether CUDA was built) */
    rc = fit(ctx, cfg->ranks, &ndev);
    if (rc != CES_OK)
        return rc;
    if ((cfg->with_compute || cfg->calibrate) && ndev < (int)cfg->ranks)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "%s needs a GPU per rank: %u ranks share %d GPU%s here (%s)",
                             cfg->with_compute ? "--with-compute" : "--calibrate", cfg->ranks,
                             ndev, ces_plural(ndev),
                             cfg->with_compute
                                 ? "the share kept would compare kernels of ranks sharing a GPU"
                                 : "a model of shared GPUs would describe no machine");
    b = ces_malloc(ctx, sizeof(*b));
    if (b == NULL)
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory");
    memset(b, 0, sizeof(*b));
    b->ctx = ctx;
    b->cfg = *cfg;
    b->n = cfg->ranks;
    b->seq = 1;
    rc = ces_comm_init_all(ctx, b->n, NULL, b->comms);
    if (rc != CES_OK)
        goto fail;
    for (uint32_t r = 0; r < b->n; r++)
        b->dev[r] = ces_comm_device(b->comms[r]);
    /* the raw copy reads the peer bytes of one iteration from send */
    b->send_bytes = send_len(b, cfg->max_bytes);
    if (b->send_bytes < peer_bytes(b, cfg->max_bytes))
        b->send_bytes = peer_bytes(b, cfg->max_bytes);
    b->recv_bytes = recv_len(b, cfg->max_bytes);
    if (b->recv_bytes < peer_bytes(b, cfg->max_bytes))
        b->recv_bytes = peer_bytes(b, cfg->max_bytes);
    if (cfg->coll == CES_COLL_SENDRECV) {
        /* the staged builder's `stage` buffer: slots chunks of the largest message */
        uint32_t chunks = cfg->chunks ? cfg->chunks : 4, slots = cfg->slots ? cfg->slots : 2;

        b->stage_bytes = cfg->max_bytes / chunks * slots;
        if (b->stage_bytes == 0)
            b->stage_bytes = 4096;
    }
    for (uint32_t r = 0; r < b->n; r++) {
        rc = ces_mem_alloc(b->comms[r], b->send_bytes, &b->send[r]);
        if (rc == CES_OK)
            rc = ces_mem_alloc(b->comms[r], b->recv_bytes, &b->recv[r]);
        if (rc == CES_OK && b->stage_bytes > 0)
            rc = ces_mem_alloc(b->comms[r], b->stage_bytes, &b->stage[r]);
        if (rc == CES_OK && cfg->wake > 0)
            rc = ces_mem_alloc(b->comms[r], CES_COLL_WAKE_BYTES, &b->wake[r]);
        if (rc != CES_OK)
            goto fail;
    }
    for (uint32_t r = 0; r < b->n; r++) {
        rc = use_dev(b, r);
        if (rc != CES_OK)
            goto fail;
        CES_RT_GOTO(ctx, rc, cudaStreamCreateWithFlags(&b->st[r], cudaStreamNonBlocking), fail);
        CES_RT_GOTO(ctx, rc, cudaStreamCreateWithFlags(&b->st2[r], cudaStreamNonBlocking), fail);
        for (uint32_t i = 0; i < BENCH_MAX_ITERS; i++) {
            CES_RT_GOTO(ctx, rc, cudaEventCreate(&b->ev0[r][i]), fail);
            CES_RT_GOTO(ctx, rc, cudaEventCreate(&b->ev1[r][i]), fail);
        }
        CES_RT_GOTO(ctx, rc, cudaEventCreateWithFlags(&b->cleared[r], cudaEventDisableTiming),
                    fail);
    }
    b->tab = ces_malloc(ctx, 2 * CES_BENCH_PERIOD);
    if (b->tab == NULL) {
        rc = ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory");
        goto fail;
    }
    ces_bench_table(b->tab);
    for (uint32_t r = 0; r < b->n; r++) {
        rc = use_dev(b, r);
        if (rc != CES_OK)
            goto fail;
        CES_RT_GOTO(ctx, rc, cudaMalloc(&b->tmpl[r], 2 * CES_BENCH_PERIOD), fail);
        CES_RT_GOTO(ctx, rc,
                    cudaMemcpy(b->tmpl[r], b->tab, 2 * CES_BENCH_PERIOD, cudaMemcpyHostToDevice),
                    fail);
    }
    rc = use_dev(b, 0);
    if (rc != CES_OK)
        goto fail;
    CES_RT_GOTO(ctx, rc, cudaHostAlloc(&host, 4096, cudaHostAllocPortable | cudaHostAllocMapped),
                fail);
    memset(host, 0, 4096);
    b->gate = host;
    {
        void *dp = NULL;

        CES_RT_GOTO(ctx, rc, cudaHostGetDevicePointer(&dp, host, 0), fail);
        b->gate_dev = (CUdeviceptr)(uintptr_t)dp;
    }
    if (ndev < (int)b->n) {
        snprintf(b->nccl_info, sizeof(b->nccl_info),
                 "%u ranks share %d GPU%s (rank r on GPU r %% %d): the data are checked, the "
                 "times are not those of %u GPUs; NCCL not run (one rank per GPU)",
                 b->n, ndev, ces_plural(ndev), ndev, b->n);
    } else if (cfg->use_nccl) {
        /* NEVER multicast/NVLS on the shared machines. */
        setenv("NCCL_NVLS_ENABLE", "0", 1);
        if (ces_nccl_open(ctx, b->n, b->dev, &b->nccl, b->nccl_info, sizeof(b->nccl_info)) ==
            CES_OK) {
            const char *lacks = ces_nccl_lacks(b->nccl, cfg->coll);

            if (lacks != NULL) {
                snprintf(b->nccl_info + strlen(b->nccl_info),
                         sizeof(b->nccl_info) - strlen(b->nccl_info),
                         "; it lacks %s: NCCL not run for %s", lacks,
                         ces_coll_name((int)cfg->coll));
                ces_nccl_close(b->nccl);
                b->nccl = NULL;
            }
            for (int ce = 0; ce < 2 && b->nccl != NULL; ce++) {
                b->nccl_buf[ce] = ces_nccl_alloc(b->nccl, ce, b->send_bytes, b->recv_bytes,
                                                 b->nsend[ce], b->nrecv[ce]) == CES_OK;
                if (!b->nccl_buf[ce]) /* what it allocated or registered before it failed */
                    ces_nccl_free(b->nccl, ce, b->nsend[ce], b->nrecv[ce]);
            }
            if (b->nccl != NULL && !b->nccl_buf[1])
                snprintf(b->nccl_info + strlen(b->nccl_info),
                         sizeof(b->nccl_info) - strlen(b->nccl_info),
                         "; CE buffers failed: %s", ces_ctx_last_error(ctx));
        }
    } else {
        snprintf(b->nccl_info, sizeof(b->nccl_info), "NCCL not requested (--no-nccl)");
    }
    if (cfg->with_compute && open_compute(b) != CES_OK)
        fprintf(stderr, "cesync: bench: compute kernel unavailable: %s\n", ces_ctx_last_error(ctx));
    *out = b;
    return CES_OK;
fail:
    ces_bench_close(b);
    return rc;
}

void ces_bench_close(struct ces_bench *b)
{
    if (b == NULL)
        return;
    for (uint32_t r = 0; r < b->n; r++) {
        if (b->st[r] != NULL) {
            cudaSetDevice(b->dev[r]);
            cudaStreamSynchronize(b->st[r]);
            cudaStreamSynchronize(b->st2[r]);
        }
    }
    if (b->nccl != NULL) {
        for (int ce = 0; ce < 2; ce++)
            if (b->nccl_buf[ce])
                ces_nccl_free(b->nccl, ce, b->nsend[ce], b->nrecv[ce]);
        ces_nccl_close(b->nccl);
    }
    for (uint32_t r = 0; r < b->n; r++) {
        cudaSetDevice(b->dev[r]);
        for (uint32_t i = 0; i < BENCH_MAX_ITERS; i++) {
            if (b->ev0[r][i] != NULL)
                cudaEventDestroy(b->ev0[r][i]);
            if (b->ev1[r][i] != NULL)
                cudaEventDestroy(b->ev1[r][i]);
        }
        if (b->cleared[r] != NULL)
            cudaEventDestroy(b->cleared[r]);
        if (b->st[r] != NULL)
            cudaStreamDestroy(b->st[r]);
        if (b->st2[r] != NULL)
            cudaStreamDestroy(b->st2[r]);
        if (b->burn_out[r] != NULL)
            cudaFree(b->burn_out[r]);
        if (b->tmpl[r] != NULL)
            cudaFree(b->tmpl[r]);
        if (b->mod[r] != NULL)
            b->cu.ModuleUnload(b->mod[r]);
    }
    for (uint32_t r = 0; r < b->n; r++) {
        if (b->comms[r] == NULL)
            continue;
        ces_mem_free(b->comms[r], b->send[r]);
        ces_mem_free(b->comms[r], b->recv[r]);
        ces_mem_free(b->comms[r], b->stage[r]);
        ces_mem_free(b->comms[r], b->wake[r]);
    }
    for (uint32_t r = 0; r < b->n; r++)
        ces_comm_destroy(b->comms[r]);
    if (b->gate != NULL)
        cudaFreeHost((void *)b->gate);
    ces_free(b->ctx, b->tab);
    ces_free(b->ctx, b);
}

int ces_bench_has(const struct ces_bench *b, int impl)
{
    switch (impl) {
    case CES_BI_CESYNC:
    case CES_BI_RAW:
        return 1;
    case CES_BI_NCCL_KERNEL:
        return b->nccl != NULL && b->nccl_buf[0];
    case CES_BI_NCCL_CE:
        return b->nccl != NULL && b->nccl_buf[1] && b->cfg.coll != CES_COLL_SENDRECV;
    default:
        return 0;
    }
}

const char *ces_bench_nccl_info(const struct ces_bench *b) { return b->nccl_info; }

/* --- one iteration of each implementation --------------------------------- */

/* A builder variant's graph, declaring the communicators' hardware queues
 * where its streams share them (ces_launch runs a graph only under the
 * queue model it was checked for). */
static int build_variant(struct ces_bench *b, int variant, uint64_t bytes, struct ces_graph **out)
{
    struct ces_coll_params p;
    int rc;

    ces_coll_params_init(&p, b->cfg.coll);
    p.proto = CES_PROTO_MONO;
    p.ranks = b->n;
    p.bytes = bytes;
    p.iterations = 1;
    p.flags = (uint32_t)variant | (b->cfg.in_place ? CES_COLL_F_INPLACE : 0u);
    p.first_iter = b->seq++;
    p.root = b->cfg.root;
    p.wake = b->cfg.wake;
    if (b->cfg.coll == CES_COLL_SENDRECV) {
        p.npairs = b->cfg.one_way ? 0 : b->n; /* 0: the builder's pipeline */
        for (uint32_t r = 0; r < p.npairs; r++) {
            p.pairs[r][0] = r;
            p.pairs[r][1] = (r + 1) % b->n;
        }
        p.chunks = b->cfg.chunks ? b->cfg.chunks : 4;
        p.slots = b->cfg.slots ? b->cfg.slots : 2;
    }
    rc = ces_coll_build(b->ctx, &p, out);
    if (rc == CES_OK)
        rc = ces_cuda_queues_adopt(*out, b->comms[0]->queues);
    return rc;
}

/* Whether impl runs in place: all but the raw copy, which moves the peer
 * bytes from `send` either way. */
static int in_place(const struct ces_bench *b, int impl)
{
    return b->cfg.in_place && impl != CES_BI_RAW;
}

/* In place one buffer of a rank holds its send and its recv, the shorter
 * inside the longer (send_len, recv_len; broadcast: the same), as
 * nccl-tests lays them out: the offset of the shorter in the longer.  This
 * is the one place that says where a collective's in-place input lives.
 * allgather and gather: send is the rank's own block of recv (gather: the
 * root's block on the root, and a rank but the root may pass its own,
 * ces_cuda_coll_in_place); broadcast: send is recv; scatter: recv is the
 * root's block of send on every rank (send + root*bytes), for every
 * implementation: cesync's recv lies at the same offset on every rank
 * (docs/API.md), and so must NCCL's for its copy-engine path, which writes
 * a peer's block at the root's recv offset in the peer's window
 * (ncclCeScatter, src/ce_coll.cc); its kernel path judges in place from
 * the root's pointers alone.  (nccl-tests puts scatter's recv at
 * send + rank*count instead, src/scatter.cu.) */
static uint64_t in_place_offset(const struct ces_bench *b, uint32_t r, uint64_t bytes)
{
    switch (b->cfg.coll) {
    case CES_COLL_BROADCAST:
        return 0;
    case CES_COLL_SCATTER:
        return b->cfg.root * bytes;
    default:
        return r * bytes;
    }
}

/* *send, *recv: rank r's buffers of the implementation at `bytes` (send
 * filled with rank r's pattern, fill_send): its two, or in place the
 * shorter inside the longer (in_place_offset). */
static void rank_buffers(const struct ces_bench *b, int impl, uint32_t r, uint64_t bytes,
                         void **send, void **recv)
{
    int k = impl == CES_BI_NCCL_CE;

    *send = impl == CES_BI_NCCL_KERNEL || k ? b->nsend[k][r] : b->send[r];
    *recv = impl == CES_BI_NCCL_KERNEL || k ? b->nrecv[k][r] : b->recv[r];
    if (!in_place(b, impl))
        return;
    if (send_len(b, bytes) > recv_len(b, bytes))
        *recv = (char *)*send + in_place_offset(b, r, bytes);
    else
        *send = (char *)*recv + in_place_offset(b, r, bytes);
}

/* rank_buffers of every rank. */
static void buffers(const struct ces_bench *b, int impl, uint64_t bytes, void **send, void **recv)
{
    for (uint32_t r = 0; r < b->n; r++)
        rank_buffers(b, impl, r, bytes, &send[r], &recv[r]);
}

/* Whether rank r's send is read: every rank's but those of broadcast's and
 * scatter's ranks other than the root. */
static int reads_send(const struct ces_bench *b, uint32_t r)
{
    return (b->cfg.coll != CES_COLL_BROADCAST && b->cfg.coll != CES_COLL_SCATTER) ||
           r == b->cfg.root;
}

/* [*lo, *hi): the bytes of rank r's recv (at `recv`, its send at `send`)
 * that are its input: in place, where the send that the collective reads
 * overlaps the recv.  Filled before the first iteration, they are kept by
 * clear_recv, and check_recv finds them intact only if no iteration wrote
 * them.  Empty out of place and where the send is not read (broadcast's
 * and scatter's ranks but the root: their recv is all output). */
static void recv_input(const struct ces_bench *b, int impl, uint32_t r, uint64_t bytes,
                       const void *send, const void *recv, uint64_t *lo, uint64_t *hi)
{
    uintptr_t s = (uintptr_t)send, d = (uintptr_t)recv;
    uintptr_t se = s + send_len(b, bytes), de = d + recv_len(b, bytes);

    *lo = *hi = 0;
    if (in_place(b, impl) && reads_send(b, r)) {
        *lo = (s > d ? s : d) - d;
        *hi = (se < de ? se : de) - d;
    }
}

static int enqueue_cesync(struct ces_bench *b, int variant, uint64_t bytes, struct ces_graph *g)
{
    void *send[BENCH_MAX_RANKS], *recv[BENCH_MAX_RANKS];
    int rc = CES_OK;

    buffers(b, CES_BI_CESYNC, bytes, send, recv);
    if (variant >= 0) {
        /* in place the allgather and broadcast graphs have no `send`
         * (ces_launch binds what it has) */
        for (uint32_t r = 0; r < b->n && rc == CES_OK; r++) {
            struct ces_binding bind[4] = {{"send", send[r]}, {"recv", recv[r]}};
            size_t nb = 2;

            if (b->stage[r] != NULL)
                bind[nb++] = (struct ces_binding){"stage", b->stage[r]};
            if (b->wake[r] != NULL)
                bind[nb++] = (struct ces_binding){"wake", b->wake[r]};
            rc = ces_launch(b->comms[r], g, bind, nb, b->st[r]);
        }
        return rc;
    }
    switch (b->cfg.coll) {
    case CES_COLL_ALLTOALL:
        for (uint32_t r = 0; r < b->n && rc == CES_OK; r++)
            rc = ces_alltoall(b->comms[r], send[r], recv[r], bytes, b->st[r]);
        break;
    case CES_COLL_ALLGATHER:
        for (uint32_t r = 0; r < b->n && rc == CES_OK; r++)
            rc = ces_allgather(b->comms[r], send[r], recv[r], bytes, b->st[r]);
        break;
    case CES_COLL_BROADCAST:
    case CES_COLL_GATHER:
    case CES_COLL_SCATTER: {
        int (*rooted)(struct ces_comm *, const void *, void *, size_t, uint32_t, ces_stream_t) =
            b->cfg.coll == CES_COLL_BROADCAST ? ces_broadcast
            : b->cfg.coll == CES_COLL_GATHER  ? ces_gather
                                              : ces_scatter;

        for (uint32_t r = 0; r < b->n && rc == CES_OK; r++)
            rc = rooted(b->comms[r], send[r], recv[r], bytes, b->cfg.root, b->st[r]);
        break;
    }
    default:
        for (uint32_t r = 0; r < b->n && rc == CES_OK; r++) {
            rc = ces_group_start(b->comms[r]);
            if (rc == CES_OK && (!b->cfg.one_way || r + 1 < b->n))
                rc = ces_send(b->comms[r], send[r], bytes, (r + 1) % b->n);
            if (rc == CES_OK && (!b->cfg.one_way || r > 0))
                rc = ces_recv(b->comms[r], recv[r], bytes, (r + b->n - 1) % b->n);
        }
        for (uint32_t r = 0; r < b->n && rc == CES_OK; r++)
            rc = ces_group_end(b->comms[r], b->st[r]);
        break;
    }
    return rc;
}

/* Whether rank r's stream runs `impl`: every rank's, but the raw copy
 * leaves idle the one-way pipeline's last rank, in broadcast and scatter
 * every rank but the root, in gather the root (enqueue_raw).  Only these
 * ranks' spans are timed: the empty spans of the others would pull their
 * mean down. */
static int takes_part(const struct ces_bench *b, int impl, uint32_t r)
{
    if (impl != CES_BI_RAW)
        return 1;
    switch (b->cfg.coll) {
    case CES_COLL_BROADCAST:
    case CES_COLL_SCATTER:
        return r == b->cfg.root;
    case CES_COLL_GATHER:
        return r != b->cfg.root;
    default:
        return !b->cfg.one_way || r + 1 < b->n;
    }
}

/* The root's raw copy in broadcast and scatter: the copies of the root's
 * batch in the collective (broadcast: its send to every peer's recv;
 * scatter: block p of its send to peer p's recv), in one batch as there,
 * without the barriers and the root's local copy. */
static int enqueue_raw_root(struct ces_bench *b, uint64_t bytes)
{
    void *dsts[BENCH_MAX_RANKS];
    const void *srcs[BENCH_MAX_RANKS];
    size_t sizes[BENCH_MAX_RANKS], idx = 0, k = 0;
    struct cudaMemcpyAttributes attr;
    uint32_t root = b->cfg.root;
    int rc = use_dev(b, root);

    if (rc != CES_OK)
        return rc;
    for (uint32_t p = 0; p < b->n; p++) {
        if (p == root)
            continue;
        dsts[k] = ces_mem_peer(b->comms[root], b->recv[root], p);
        srcs[k] = (const char *)b->send[root] + (b->cfg.coll == CES_COLL_SCATTER ? p * bytes : 0);
        sizes[k++] = bytes;
    }
    batch_attr(&attr);
    CES_RT_GOTO(b->ctx, rc, cudaMemcpyBatchAsync(dsts, srcs, sizes, k, &attr, &idx, 1, b->st[root]),
                out);
out:
    return rc;
}

/* The raw copy: the peer bytes of one iteration without the collective's
 * barriers, the physical limit.  Every rank copies what it sends to peers
 * in one copy to rank r+1 (alltoall, allgather, sendrecv), all at once;
 * in gather every rank but the root copies its send into its block of the
 * root's recv, all at once; in broadcast and scatter the root copies to
 * every peer in one batch (enqueue_raw_root). */
static int enqueue_raw(struct ces_bench *b, uint64_t bytes)
{
    int rc = CES_OK;
    uint64_t s = peer_bytes(b, bytes);
    int gather = b->cfg.coll == CES_COLL_GATHER;

    if (b->cfg.coll == CES_COLL_BROADCAST || b->cfg.coll == CES_COLL_SCATTER)
        return enqueue_raw_root(b, bytes);
    for (uint32_t r = 0; r < b->n; r++) {
        uint32_t to = gather ? b->cfg.root : (r + 1) % b->n;
        void *dst = (char *)ces_mem_peer(b->comms[r], b->recv[r], to) + (gather ? r * bytes : 0);

        if (!takes_part(b, CES_BI_RAW, r))
            continue;
        rc = use_dev(b, r);
        if (rc != CES_OK)
            return rc;
        CES_RT_GOTO(b->ctx, rc, cudaMemcpyAsync(dst, b->send[r], s, cudaMemcpyDeviceToDevice, b->st[r]),
                    out);
    }
out:
    return rc;
}

static int enqueue_one(struct ces_bench *b, int impl, int variant, uint64_t bytes,
                       struct ces_graph *g)
{
    switch (impl) {
    case CES_BI_CESYNC:
        return enqueue_cesync(b, variant, bytes, g);
    case CES_BI_NCCL_KERNEL:
    case CES_BI_NCCL_CE: {
        void *send[BENCH_MAX_RANKS], *recv[BENCH_MAX_RANKS];

        buffers(b, impl, bytes, send, recv);
        return ces_nccl_coll(b->nccl, impl == CES_BI_NCCL_CE, b->cfg.coll, send, recv, bytes,
                             b->cfg.root, (void **)b->st, b->cfg.one_way);
    }
    default:
        return enqueue_raw(b, bytes);
    }
}

struct fill_arg {
    struct ces_bench *b;
    uint32_t r;
};

/* ces_bench_fill's copies: on rank r's stream, in its order. */
static int fill_copy(void *arg, void *dst, const void *src, uint64_t n)
{
    struct fill_arg *f = arg;
    int rc = CES_OK;

    CES_RT_GOTO(f->b->ctx, rc,
                cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, f->b->st[f->r]), out);
out:
    return rc;
}

/* Fills every rank's send, as far as impl reads it (read_len), with its
 * pattern (bench_data.h: byte s of rank r's send is the sequence's byte at
 * ces_bench_phase(r) + s; every rank's, though broadcast and scatter read
 * only the root's). */
static int fill_send(struct ces_bench *b, int impl, uint64_t bytes)
{
    void *send[BENCH_MAX_RANKS], *recv[BENCH_MAX_RANKS];
    int rc = CES_OK;

    buffers(b, impl, bytes, send, recv);
    for (uint32_t r = 0; r < b->n && rc == CES_OK; r++) {
        struct fill_arg f = {b, r};

        rc = use_dev(b, r);
        if (rc == CES_OK)
            rc = ces_bench_fill(send[r], read_len(b, impl, bytes),
                                (const unsigned char *)b->tmpl[r], ces_bench_phase(r), fill_copy,
                                &f);
    }
    return rc;
}

/* Clears the receive buffers, but in place the part that is a rank's input
 * (recv_input). */
static int clear_recv(struct ces_bench *b, int impl, uint64_t bytes)
{
    void *send[BENCH_MAX_RANKS], *recv[BENCH_MAX_RANKS];
    uint64_t len = recv_len(b, bytes);
    int rc = CES_OK;

    buffers(b, impl, bytes, send, recv);
    for (uint32_t r = 0; r < b->n; r++) {
        uint64_t lo, hi; /* [lo, hi): kept */

        recv_input(b, impl, r, bytes, send[r], recv[r], &lo, &hi);
        rc = use_dev(b, r);
        if (rc != CES_OK)
            return rc;
        if (lo > 0)
            CES_RT_GOTO(b->ctx, rc, cudaMemsetAsync(recv[r], 0, lo, b->st[r]), out);
        if (hi < len)
            CES_RT_GOTO(b->ctx, rc, cudaMemsetAsync((char *)recv[r] + hi, 0, len - hi, b->st[r]),
                        out);
    }
out:
    return rc;
}

/* Clears the receive buffers before the iteration the data check reads
 * (clear_recv).  The raw copy has no barrier: a rank's copy into a peer's
 * recv could run before the peer's stream clears it, so there every stream
 * then waits for every rank's clear (`cleared`).  The collectives are not
 * joined: their own protocol must order a peer's writes after the clear on
 * the receiver's stream, and one that does not fails the check. */
static int clear_for_check(struct ces_bench *b, int impl, uint64_t bytes)
{
    int rc = clear_recv(b, impl, bytes);

    if (rc != CES_OK || impl != CES_BI_RAW)
        return rc;
    for (uint32_t r = 0; r < b->n && rc == CES_OK; r++) {
        rc = use_dev(b, r);
        if (rc == CES_OK)
            CES_RT_GOTO(b->ctx, rc, cudaEventRecord(b->cleared[r], b->st[r]), out);
    }
    for (uint32_t r = 0; r < b->n && rc == CES_OK; r++) {
        rc = use_dev(b, r);
        for (uint32_t q = 0; q < b->n && rc == CES_OK; q++)
            if (q != r)
                CES_RT_GOTO(b->ctx, rc, cudaStreamWaitEvent(b->st[r], b->cleared[q], 0), out);
    }
out:
    return rc;
}

/* A data check in progress: a host block to read into, the sample whose
 * check and first wrong byte it sets. */
struct data_check {
    struct ces_bench *b;
    unsigned char *host;
    struct ces_bench_sample *out;
};

#define BENCH_CHECK_BLOCK (UINT64_C(8) << 20)

/* Reads n bytes of rank r's buffer `what` from dev (byte `base` of it) back
 * in blocks and compares them with the sequence from position pos (t NULL:
 * with 0); the first difference fails the check and is named. */
static int check_bytes(struct data_check *k, uint32_t r, const char *what, const char *dev,
                       uint64_t base, uint64_t n, const unsigned char *t, uint64_t pos)
{
    int rc = CES_OK;

    for (uint64_t o = 0; o < n && k->out->check; o += BENCH_CHECK_BLOCK) {
        size_t len = (size_t)(n - o < BENCH_CHECK_BLOCK ? n - o : BENCH_CHECK_BLOCK);
        uint64_t d;

        CES_RT_GOTO(k->b->ctx, rc, cudaMemcpy(k->host, dev + o, len, cudaMemcpyDeviceToHost), out);
        d = ces_bench_diff(t, pos + o, k->host, len);
        if (d < len) {
            k->out->check = 0;
            snprintf(k->out->wrong, sizeof(k->out->wrong),
                     "rank %" PRIu32 "'s %s byte %" PRIu64 " holds 0x%02x, not 0x%02x", r, what,
                     base + o + d, k->host[d], t != NULL ? ces_bench_byte(t, pos + o + d) : 0);
        }
    }
out:
    return rc;
}

/* Compares every byte of every rank's recv with what impl puts there
 * (ces_bench_source), but in place a chunk of a rank's input (recv_input)
 * with what fill_send put there; and the bytes of every rank's send outside
 * its recv (out of place all of it) with what fill_send put there, which no
 * implementation may write. */
static int check_recv(struct ces_bench *b, int impl, uint64_t bytes, struct ces_bench_sample *out)
{
    void *send[BENCH_MAX_RANKS], *recv[BENCH_MAX_RANKS];
    uint64_t clen = b->cfg.coll == CES_COLL_ALLTOALL ? bytes / b->n : bytes;
    uint64_t sl = read_len(b, impl, bytes), rl = recv_len(b, bytes);
    uint32_t nchunks = (uint32_t)(rl / clen);
    struct data_check k = {b, NULL, out};
    struct ces_bench_layout l = {b->cfg.coll, b->n, b->cfg.root, b->cfg.one_way,
                                 impl == CES_BI_RAW};
    int rc = CES_OK;

    out->check = 1;
    k.host = ces_malloc(b->ctx, BENCH_CHECK_BLOCK);
    if (k.host == NULL)
        return ces_ctx_error(b->ctx, CES_ERR_NOMEM, "out of memory checking the data");
    buffers(b, impl, bytes, send, recv);
    for (uint32_t p = 0; p < b->n && rc == CES_OK && out->check; p++) {
        uintptr_t s = (uintptr_t)send[p], d = (uintptr_t)recv[p];
        /* send's bytes before recv, [0, head), and after it, [tail, sl):
         * all of them where the two do not meet */
        uint64_t head = d <= s ? 0 : d - s < sl ? d - s : sl;
        uint64_t tail = d + rl <= s ? 0 : d + rl - s < sl ? d + rl - s : sl;
        uint64_t lo, hi;

        recv_input(b, impl, p, bytes, send[p], recv[p], &lo, &hi);
        rc = use_dev(b, p);
        for (uint32_t c = 0; c < nchunks && rc == CES_OK && out->check; c++) {
            uint32_t from = p;
            uint64_t at = 0;
            int written = 1;

            if (c * clen >= lo && c * clen < hi)
                at = d + c * clen - s; /* an input chunk: where it lies in the send */
            else
                written = ces_bench_source(&l, p, c, clen, &from, &at);

            rc = check_bytes(&k, p, "recv", (const char *)recv[p] + c * clen, c * clen, clen,
                             written ? b->tab : NULL, ces_bench_phase(from) + at);
        }
        if (rc == CES_OK)
            rc = check_bytes(&k, p, "send", (const char *)s, 0, head, b->tab, ces_bench_phase(p));
        if (rc == CES_OK)
            rc = check_bytes(&k, p, "send", (const char *)s + tail, tail, sl - tail, b->tab,
                             ces_bench_phase(p) + tail);
    }
    ces_free(b->ctx, k.host);
    return rc;
}

static int sync_all(struct ces_bench *b)
{
    int rc = CES_OK;

    for (uint32_t r = 0; r < b->n; r++) {
        rc = use_dev(b, r);
        if (rc != CES_OK)
            return rc;
        CES_RT_GOTO(b->ctx, rc, cudaStreamSynchronize(b->st[r]), out);
        CES_RT_GOTO(b->ctx, rc, cudaStreamSynchronize(b->st2[r]), out);
    }
out:
    return rc;
}

static int record(struct ces_bench *b, cudaEvent_t ev, uint32_t r)
{
    int rc = CES_OK;

    rc = use_dev(b, r);
    if (rc != CES_OK)
        return rc;
    CES_RT_GOTO(b->ctx, rc, cudaEventRecord(ev, b->st[r]), out);
out:
    return rc;
}

/* Graph mode times whole launches: the mean iteration of each of these
 * launches of a graph holding all timed iterations is one sample (nccl-tests
 * times its graphs the same way).  Timing events inside the graph would be
 * external event nodes, which cost a schedule that forks a branch 10-13 us
 * per iteration that they do not cost eagerly (scripts/probe_memops.sh). */
#define BENCH_GRAPH_LAUNCHES 5u

/* Captures `n` iterations per rank into one CUDA graph each and
 * instantiates them.  On failure no stream is left capturing. */
static int capture(struct ces_bench *b, int impl, int variant, uint64_t bytes, uint32_t n,
                   cudaGraphExec_t *ge)
{
    cudaGraph_t cg[BENCH_MAX_RANKS] = {0};
    uint32_t begun = 0, ended = 0; /* streams [ended, begun) are capturing */
    int rc = CES_OK;

    for (; begun < b->n; begun++) {
        rc = use_dev(b, begun);
        if (rc != CES_OK)
            goto out;
        CES_RT_GOTO(b->ctx, rc, cudaStreamBeginCapture(b->st[begun], cudaStreamCaptureModeRelaxed),
                    out);
    }
    for (uint32_t i = 0; i < n && rc == CES_OK; i++)
        rc = enqueue_one(b, impl, variant, bytes, NULL);
    if (rc != CES_OK)
        goto out;
    for (; ended < b->n; ended++) {
        rc = use_dev(b, ended);
        if (rc != CES_OK)
            goto out;
        CES_RT_GOTO(b->ctx, rc, cudaStreamEndCapture(b->st[ended], &cg[ended]), out);
    }
    for (uint32_t r = 0; r < b->n; r++) {
        rc = use_dev(b, r);
        if (rc != CES_OK)
            goto out;
        CES_RT_GOTO(b->ctx, rc, cudaGraphInstantiate(&ge[r], cg[r], 0), out);
    }
out:
    for (uint32_t r = 0; r < b->n; r++) {
        cudaSetDevice(b->dev[r]);
        if (r >= ended && r < begun) {
            cudaGraph_t junk = NULL;

            if (cudaStreamEndCapture(b->st[r], &junk) == cudaSuccess && junk != NULL)
                cudaGraphDestroy(junk);
        }
        if (cg[r] != NULL)
            cudaGraphDestroy(cg[r]);
    }
    return rc;
}

static int launch_all(struct ces_bench *b, cudaGraphExec_t *ge)
{
    int rc = CES_OK;

    for (uint32_t r = 0; r < b->n; r++) {
        rc = use_dev(b, r);
        if (rc != CES_OK)
            return rc;
        CES_RT_GOTO(b->ctx, rc, cudaGraphLaunch(ge[r], b->st[r]), out);
    }
out:
    return rc;
}

/* How many ranks' streams run `impl` (takes_part). */
static uint32_t timed_ranks(const struct ces_bench *b, int impl)
{
    uint32_t k = 0;

    for (uint32_t r = 0; r < b->n; r++)
        k += (uint32_t)takes_part(b, impl, r);
    return k;
}

/* Fills times[0..n) with each sample's time, in us, divided by `per`: the
 * mean of the ranks' spans.  A rank's samples tile its stream's timeline,
 * so every rank's spans sum to the run's length; where the ranks are not
 * held in step (the staged ring builder: no barrier, a launch's join each
 * message), one rank's spans alternate between a short and a long one
 * while the other's do the opposite, and the slower rank's span of every
 * sample is the long one, above the period (docs/PERFORMANCE.md, "How to
 * measure").  Where a barrier holds them in step the mean is the slowest
 * rank's span within the ranks' jitter.  Only the ranks that take part
 * count (takes_part). */
static int gather_times(struct ces_bench *b, int impl, uint32_t n, uint32_t per, double *times)
{
    uint32_t nr = timed_ranks(b, impl);
    int rc = CES_OK;

    for (uint32_t i = 0; i < n; i++) {
        times[i] = 0.0;
        for (uint32_t r = 0; r < b->n; r++) {
            float ms = 0.0f;

            if (!takes_part(b, impl, r))
                continue;
            rc = use_dev(b, r);
            if (rc != CES_OK)
                return rc;
            CES_RT_GOTO(b->ctx, rc, cudaEventElapsedTime(&ms, b->ev0[r][i], b->ev1[r][i]), out);
            times[i] += ms * 1e3 / per;
        }
        times[i] /= nr;
    }
out:
    return rc;
}

/* The graph path of ces_bench_run: one graph of `iters` iterations per
 * rank, launched once untimed when `warmup`, then BENCH_GRAPH_LAUNCHES times
 * behind the gate; for the data check the receive buffers are cleared
 * (clear_for_check) and a second graph runs one iteration. */
static int run_graph(struct ces_bench *b, int impl, int variant, uint64_t bytes, uint32_t iters,
                     uint32_t warmup, double *times)
{
    cudaGraphExec_t timed[BENCH_MAX_RANKS] = {0}, check[BENCH_MAX_RANKS] = {0};
    struct gate_guard guard;
    int rc, gated = 0;

    rc = capture(b, impl, variant, bytes, iters, timed);
    if (rc == CES_OK)
        rc = capture(b, impl, variant, bytes, 1, check);
    if (rc == CES_OK && warmup > 0) {
        rc = launch_all(b, timed);
        if (rc == CES_OK)
            rc = sync_all(b);
    }
    if (rc == CES_OK) {
        rc = gate_close(b, b->st, b->n, &guard);
        gated = rc == CES_OK;
    }
    for (uint32_t i = 0; i < BENCH_GRAPH_LAUNCHES && rc == CES_OK; i++) {
        for (uint32_t r = 0; r < b->n && rc == CES_OK; r++)
            rc = record(b, b->ev0[r][i], r);
        if (rc == CES_OK)
            rc = launch_all(b, timed);
        for (uint32_t r = 0; r < b->n && rc == CES_OK; r++)
            rc = record(b, b->ev1[r][i], r);
    }
    if (gated)
        gate_open(b, &guard);
    if (gated && sync_all(b) != CES_OK && rc == CES_OK)
        rc = CES_ERR_CUDA;
    if (rc == CES_OK)
        rc = gather_times(b, impl, BENCH_GRAPH_LAUNCHES, iters, times);
    if (rc == CES_OK)
        rc = clear_for_check(b, impl, bytes);
    if (rc == CES_OK)
        rc = launch_all(b, check);
    if (rc == CES_OK)
        rc = sync_all(b);
    for (uint32_t r = 0; r < b->n; r++) {
        cudaSetDevice(b->dev[r]);
        if (timed[r] != NULL)
            cudaGraphExecDestroy(timed[r]);
        if (check[r] != NULL)
            cudaGraphExecDestroy(check[r]);
    }
    return rc;
}

int ces_bench_run(struct ces_bench *b, int impl, int variant, uint64_t bytes, uint32_t iters,
                  uint32_t warmup, int graph, struct ces_bench_sample *out)
{
    struct ces_graph **graphs = NULL;
    struct gate_guard guard;
    double *times = NULL;
    uint32_t total = iters + warmup, nsamples = graph ? BENCH_GRAPH_LAUNCHES : iters;
    int rc = CES_OK, gated = 0;

    memset(out, 0, sizeof(*out));
    out->check = -1;
    if (!ces_bench_has(b, impl)) {
        snprintf(out->err, sizeof(out->err), "not available");
        return CES_ERR_UNSUPPORTED;
    }
    if (iters < 1 || total > BENCH_MAX_ITERS) {
        snprintf(out->err, sizeof(out->err), "iterations + warmup must be 1..%u", BENCH_MAX_ITERS);
        return CES_ERR_INVALID;
    }
    if (graph && impl == CES_BI_CESYNC && variant >= 0) {
        snprintf(out->err, sizeof(out->err), "--graph runs the backend's collective only");
        return CES_ERR_UNSUPPORTED;
    }
    times = ces_malloc(b->ctx, sizeof(*times) * nsamples);
    rc = times != NULL ? fill_send(b, impl, bytes)
                       : ces_ctx_error(b->ctx, CES_ERR_NOMEM, "out of memory");
    if (rc == CES_OK)
        rc = sync_all(b);
    if (rc != CES_OK)
        goto out;
    {
        /* The first call of a path may set things up on the host (signal
         * arrays, NCCL's CE init): run it once without the gate. */
        uint32_t bit = 1u << (variant < 0 ? 0 : 1 + variant);

        if (!(b->primed[impl] & bit)) {
            struct ces_graph *pg = NULL;

            if (impl == CES_BI_CESYNC && variant >= 0) {
                rc = build_variant(b, variant, bytes, &pg);
                if (rc != CES_OK)
                    b->seq--;
            }
            if (rc == CES_OK)
                rc = enqueue_one(b, impl, variant, bytes, pg);
            if (rc == CES_OK)
                rc = sync_all(b);
            ces_graph_destroy(pg);
            if (rc != CES_OK)
                goto out;
            b->primed[impl] |= bit;
        }
    }
    if (graph) {
        rc = run_graph(b, impl, variant, bytes, iters, warmup, times);
        if (rc != CES_OK)
            goto out;
    } else {
        if (impl == CES_BI_CESYNC && variant >= 0) {
            /* One graph per iteration, $i counting on from the last launch
             * (the signal arrays keep their values, and sendrecv's use counts
             * must see every earlier iteration): built after the priming
             * launch, in launch order; on failure the sequence is rolled back. */
            uint64_t seq0 = b->seq;

            graphs = ces_malloc(b->ctx, sizeof(*graphs) * total);
            if (graphs == NULL) {
                rc = ces_ctx_error(b->ctx, CES_ERR_NOMEM, "out of memory");
                goto out;
            }
            memset(graphs, 0, sizeof(*graphs) * total);
            for (uint32_t i = 0; i < total; i++) {
                rc = build_variant(b, variant, bytes, &graphs[i]);
                if (rc != CES_OK) {
                    b->seq = seq0;
                    goto out;
                }
            }
        }
        rc = gate_close(b, b->st, b->n, &guard);
        if (rc != CES_OK)
            goto out;
        gated = 1;
        for (uint32_t i = 0; i < total; i++) {
            int timed = i >= warmup;

            if (i + 1 == total) {
                rc = clear_for_check(b, impl, bytes);
                if (rc != CES_OK)
                    goto out;
            }
            for (uint32_t r = 0; r < b->n && timed; r++) {
                rc = record(b, b->ev0[r][i - warmup], r);
                if (rc != CES_OK)
                    goto out;
            }
            rc = enqueue_one(b, impl, variant, bytes, graphs != NULL ? graphs[i] : NULL);
            if (rc != CES_OK)
                goto out;
            for (uint32_t r = 0; r < b->n && timed; r++) {
                rc = record(b, b->ev1[r][i - warmup], r);
                if (rc != CES_OK)
                    goto out;
            }
        }
        gate_open(b, &guard);
        gated = 0;
        rc = sync_all(b);
        if (rc == CES_OK)
            rc = gather_times(b, impl, iters, 1, times);
        if (rc != CES_OK)
            goto out;
    }
    rc = check_recv(b, impl, bytes, out);
    if (rc != CES_OK)
        goto out;
    qsort(times, nsamples, sizeof(*times), cmp_double);
    out->min_us = times[0];
    out->max_us = times[nsamples - 1];
    out->med_us = nsamples % 2 ? times[nsamples / 2]
                               : 0.5 * (times[nsamples / 2 - 1] + times[nsamples / 2]);
out:
    if (gated) {
        gate_open(b, &guard);
        sync_all(b);
    }
    if (graphs != NULL)
        for (uint32_t i = 0; i < total; i++)
            ces_graph_destroy(graphs[i]);
    ces_free(b->ctx, graphs);
    ces_free(b->ctx, times);
    if (rc != CES_OK && out->err[0] == '\0')
        snprintf(out->err, sizeof(out->err), "%s", ces_ctx_last_error(b->ctx));
    return rc;
}

/* --- the compute kernel ------------------------------------------------------ */

static int launch_burn(struct ces_bench *b, uint32_t r)
{
    void *args[2];
    CUdeviceptr outp = (CUdeviceptr)(uintptr_t)b->burn_out[r];
    uint32_t iters = b->burn_iters;
    int rc = CES_OK;

    args[0] = &outp;
    args[1] = &iters;
    CES_CU_GOTO(b->ctx, rc,
                b->cu.LaunchKernel(b->burn[r], b->burn_blocks[r], 1, 1, BURN_THREADS, 1, 1, 0,
                               (CUstream)b->st2[r], args, NULL),
                out);
out:
    return rc;
}

/* Times the kernel on every GPU, with `ncoll` collectives beside it (0 =
 * alone); times_us[r] receives each GPU's kernel time. */
static int time_burn(struct ces_bench *b, int impl, int variant, uint64_t bytes, uint32_t ncoll,
                     double *times_us)
{
    cudaStream_t streams[2 * BENCH_MAX_RANKS];
    struct ces_graph **graphs = NULL;
    struct gate_guard guard;
    int rc = CES_OK, gated = 0;

    if (ncoll > 0 && impl == CES_BI_CESYNC && variant >= 0) {
        graphs = ces_malloc(b->ctx, sizeof(*graphs) * ncoll);
        if (graphs == NULL)
            return ces_ctx_error(b->ctx, CES_ERR_NOMEM, "out of memory");
        memset(graphs, 0, sizeof(*graphs) * ncoll);
        for (uint32_t i = 0; i < ncoll; i++) {
            rc = build_variant(b, variant, bytes, &graphs[i]);
            if (rc != CES_OK)
                goto out;
        }
    }
    for (uint32_t r = 0; r < b->n; r++) {
        streams[r] = b->st2[r];
        streams[b->n + r] = ncoll > 0 ? b->st[r] : NULL;
    }
    rc = gate_close(b, streams, 2 * b->n, &guard);
    if (rc != CES_OK)
        goto out;
    gated = 1;
    for (uint32_t r = 0; r < b->n; r++) {
        rc = use_dev(b, r);
        if (rc != CES_OK)
            goto out;
        CES_RT_GOTO(b->ctx, rc, cudaEventRecord(b->ev0[r][0], b->st2[r]), out);
        rc = launch_burn(b, r);
        if (rc != CES_OK)
            goto out;
        CES_RT_GOTO(b->ctx, rc, cudaEventRecord(b->ev1[r][0], b->st2[r]), out);
    }
    for (uint32_t i = 0; i < ncoll; i++) {
        rc = enqueue_one(b, impl, variant, bytes, graphs != NULL ? graphs[i] : NULL);
        if (rc != CES_OK)
            goto out;
    }
    gate_open(b, &guard);
    gated = 0;
    rc = sync_all(b);
    if (rc != CES_OK)
        goto out;
    for (uint32_t r = 0; r < b->n; r++) {
        float ms = 0.0f;

        rc = use_dev(b, r);
        if (rc != CES_OK)
            goto out;
        CES_RT_GOTO(b->ctx, rc, cudaEventElapsedTime(&ms, b->ev0[r][0], b->ev1[r][0]), out);
        times_us[r] = ms * 1e3;
    }
out:
    if (gated) {
        gate_open(b, &guard);
        sync_all(b);
    }
    if (graphs != NULL)
        for (uint32_t i = 0; i < ncoll; i++)
            ces_graph_destroy(graphs[i]);
    ces_free(b->ctx, graphs);
    return rc;
}

int ces_bench_compute(struct ces_bench *b, int impl, int variant, uint64_t bytes, double *kept,
                      double *solo_us)
{
    double solo[BENCH_MAX_RANKS], with[BENCH_MAX_RANKS], sum = 0.0, smax = 0.0;
    struct ces_bench_sample s;
    uint32_t ncoll;
    int rc;

    *kept = 0.0;
    if (!b->compute_ok)
        return ces_ctx_error(b->ctx, CES_ERR_UNSUPPORTED, "the compute kernel did not load");
    if (!ces_bench_has(b, impl))
        return ces_ctx_error(b->ctx, CES_ERR_UNSUPPORTED, "not available");
    /* Size the kernel to ~4 ms once. */
    rc = time_burn(b, impl, variant, bytes, 0, solo);
    if (rc != CES_OK)
        return rc;
    if (solo[0] > 0.0 && (solo[0] < 3000.0 || solo[0] > 6000.0)) {
        double scaled = (double)b->burn_iters * 4000.0 / solo[0];

        b->burn_iters = scaled < 100.0 ? 100u : scaled > 4e8 ? 400000000u : (uint32_t)scaled;
    }
    rc = time_burn(b, impl, variant, bytes, 0, solo);
    if (rc != CES_OK)
        return rc;
    for (uint32_t r = 0; r < b->n; r++)
        if (solo[r] > smax)
            smax = solo[r];
    rc = ces_bench_run(b, impl, variant, bytes, 3, 1, 0, &s);
    if (rc != CES_OK)
        return rc;
    ncoll = s.med_us > 0.0 ? (uint32_t)(1.3 * smax / s.med_us) + 2 : 2;
    if (ncoll > 200)
        ncoll = 200;
    rc = time_burn(b, impl, variant, bytes, ncoll, with);
    if (rc != CES_OK)
        return rc;
    for (uint32_t r = 0; r < b->n; r++)
        if (takes_part(b, impl, r))
            sum += with[r] > 0.0 ? solo[r] / with[r] : 0.0;
    *kept = sum / timed_ranks(b, impl);
    *solo_us = smax;
    return CES_OK;
}

/* --- calibration --------------------------------------------------------------- */

/* Time of `reps` copies of `bytes` from rank 0's send to `dst` (rank 0's
 * recv, or rank 1's through the peer mapping), median, in us. */
static int time_copy(struct ces_bench *b, void *dst, uint64_t bytes, uint32_t reps, double *us)
{
    double t[16];
    int rc = CES_OK;

    if (reps > 16)
        reps = 16;
    rc = use_dev(b, 0);
    if (rc != CES_OK)
        return rc;
    for (uint32_t i = 0; i < reps; i++) {
        float ms = 0.0f;

        CES_RT_GOTO(b->ctx, rc, cudaEventRecord(b->ev0[0][i], b->st[0]), out);
        CES_RT_GOTO(b->ctx, rc,
                    cudaMemcpyAsync(dst, b->send[0], bytes, cudaMemcpyDeviceToDevice, b->st[0]), out);
        CES_RT_GOTO(b->ctx, rc, cudaEventRecord(b->ev1[0][i], b->st[0]), out);
        CES_RT_GOTO(b->ctx, rc, cudaStreamSynchronize(b->st[0]), out);
        CES_RT_GOTO(b->ctx, rc, cudaEventElapsedTime(&ms, b->ev0[0][i], b->ev1[0][i]), out);
        t[i] = ms * 1e3;
    }
    qsort(t, reps, sizeof(t[0]), cmp_double);
    *us = t[reps / 2];
out:
    return rc;
}

/* Time of one batch holding a local copy and a peer copy of `bytes` each. */
static int time_batch_pair(struct ces_bench *b, uint64_t bytes, int two_streams, double *us)
{
    void *dsts[2], *peer = ces_mem_peer(b->comms[0], b->recv[0], 1);
    const void *srcs[2];
    size_t sizes[2] = {bytes, bytes}, idx = 0;
    struct cudaMemcpyAttributes attr;
    float ms = 0.0f;
    int rc = use_dev(b, 0);

    if (rc != CES_OK)
        return rc;
    batch_attr(&attr);
    dsts[0] = (char *)b->recv[0];
    dsts[1] = (char *)peer + bytes;
    srcs[0] = b->send[0];
    srcs[1] = (const char *)b->send[0] + bytes;
    CES_RT_GOTO(b->ctx, rc, cudaEventRecord(b->ev0[0][0], b->st[0]), out);
    if (two_streams) {
        CES_RT_GOTO(b->ctx, rc, cudaEventRecord(b->ev0[0][1], b->st[0]), out);
        CES_RT_GOTO(b->ctx, rc, cudaStreamWaitEvent(b->st2[0], b->ev0[0][1], 0), out);
        CES_RT_GOTO(b->ctx, rc,
                    cudaMemcpyAsync(dsts[0], srcs[0], bytes, cudaMemcpyDeviceToDevice, b->st2[0]),
                    out);
        CES_RT_GOTO(b->ctx, rc, cudaEventRecord(b->ev1[0][1], b->st2[0]), out);
        CES_RT_GOTO(b->ctx, rc,
                    cudaMemcpyAsync(dsts[1], srcs[1], bytes, cudaMemcpyDeviceToDevice, b->st[0]),
                    out);
        CES_RT_GOTO(b->ctx, rc, cudaStreamWaitEvent(b->st[0], b->ev1[0][1], 0), out);
    } else {
        CES_RT_GOTO(b->ctx, rc,
                    cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, &idx, 1, b->st[0]), out);
    }
    CES_RT_GOTO(b->ctx, rc, cudaEventRecord(b->ev1[0][0], b->st[0]), out);
    CES_RT_GOTO(b->ctx, rc, cudaStreamSynchronize(b->st[0]), out);
    CES_RT_GOTO(b->ctx, rc, cudaEventElapsedTime(&ms, b->ev0[0][0], b->ev1[0][0]), out);
    *us = ms * 1e3;
out:
    return rc;
}

/* One stream memory op: write v (wait == 0) or wait >= v. */
static void memop_param(CUstreamBatchMemOpParams *op, CUdeviceptr addr, uint32_t v, int wait)
{
    memset(op, 0, sizeof(*op));
    if (wait) {
        op->waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
        op->waitValue.address = addr;
        op->waitValue.value = v;
        op->waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
    } else {
        op->writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
        op->writeValue.address = addr;
        op->writeValue.value = v;
        op->writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
    }
}

/* A memop batch of one op on `s`: write (wait == 0) or wait >= v. */
static int memop(struct ces_bench *b, cudaStream_t s, CUdeviceptr addr, uint32_t v, int wait)
{
    CUstreamBatchMemOpParams op;
    int rc = CES_OK;

    memop_param(&op, addr, v, wait);
    CES_CU_GOTO(b->ctx, rc, cuStreamBatchMemOp((CUstream)s, 1, &op, 0), out);
out:
    return rc;
}

/* Starts a timed loop: closes the gate on `streams` and records ev0[r][0]
 * on `s`, a stream of rank r.  On failure the gate is open. */
static int loop_begin(struct ces_bench *b, cudaStream_t *streams, uint32_t count, uint32_t r,
                      cudaStream_t s, struct gate_guard *g)
{
    int rc = use_dev(b, r);

    if (rc == CES_OK)
        rc = gate_close(b, streams, count, g);
    if (rc != CES_OK)
        return rc;
    CES_RT_GOTO(b->ctx, rc, cudaEventRecord(b->ev0[r][0], s), fail);
    return CES_OK;
fail:
    gate_open(b, g);
    return rc;
}

/* Ends a loop of `k` rounds that loop_begin started (`rc`: how enqueuing
 * them went): records ev1[r][0] on `s`, opens the gate, waits for every
 * stream and gives one round's time in us. */
static int loop_end(struct ces_bench *b, struct gate_guard *g, uint32_t r, cudaStream_t s,
                    uint32_t k, int rc, double *us)
{
    float ms = 0.0f;
    int sync_rc;

    if (rc == CES_OK)
        rc = use_dev(b, r);
    if (rc == CES_OK && cudaEventRecord(b->ev1[r][0], s) != cudaSuccess)
        rc = ces_ctx_error(b->ctx, CES_ERR_CUDA, "cudaEventRecord failed");
    gate_open(b, g);
    sync_rc = sync_all(b);
    if (rc == CES_OK)
        rc = sync_rc;
    if (rc == CES_OK)
        rc = use_dev(b, r);
    if (rc != CES_OK)
        return rc;
    CES_RT_GOTO(b->ctx, rc, cudaEventElapsedTime(&ms, b->ev0[r][0], b->ev1[r][0]), out);
    *us = ms * 1e3 / k;
out:
    return rc;
}

/* `k` barriers between stream a (on rank ra) and stream c (on rank rc_),
 * one memop batch per side and barrier, as the mono protocol issues them: a
 * writes fc = i and waits fa >= i; c writes fa = i and waits fc >= i.
 * Returns the time of one barrier, which the model sees as one memop batch
 * and one flag hop. */
static int barrier_loop(struct ces_bench *b, uint32_t ra, cudaStream_t a, uint32_t rc_, cudaStream_t c,
                     CUdeviceptr fa, CUdeviceptr fc, uint32_t k, double *round_us)
{
    cudaStream_t both[2] = {a, c};
    struct gate_guard guard;
    int rc;

    rc = loop_begin(b, both, 2, ra, a, &guard);
    if (rc != CES_OK)
        return rc;
    for (uint32_t i = 1; i <= k && rc == CES_OK; i++) {
        CUstreamBatchMemOpParams op[2];

        rc = use_dev(b, ra);
        memop_param(&op[0], fc, i, 0);
        memop_param(&op[1], fa, i, 1);
        if (rc == CES_OK && cuStreamBatchMemOp((CUstream)a, 2, op, 0) != CUDA_SUCCESS)
            rc = ces_ctx_error(b->ctx, CES_ERR_CUDA, "cuStreamBatchMemOp failed");
        if (rc == CES_OK)
            rc = use_dev(b, rc_);
        memop_param(&op[0], fa, i, 0);
        memop_param(&op[1], fc, i, 1);
        if (rc == CES_OK && cuStreamBatchMemOp((CUstream)c, 2, op, 0) != CUDA_SUCCESS)
            rc = ces_ctx_error(b->ctx, CES_ERR_CUDA, "cuStreamBatchMemOp failed");
    }
    return loop_end(b, &guard, ra, a, k, rc, round_us);
}

/* `k` rounds on rank 0's stream of a one-write memop batch, a local copy
 * of `bytes` when `local`, and a peer copy of `bytes` when `peer_too`: the
 * time of one round, in us.  Without the peer copy, the round less the
 * memop batch is the local copy's cost after a memop; with it, the
 * difference between local = 1 and 0, less the local copy's own cost, is
 * the copy-engine switch the model charges. */
static int switch_loop(struct ces_bench *b, CUdeviceptr word, int local, int peer_too,
                       uint64_t bytes, uint32_t k, double *us)
{
    void *peer = ces_mem_peer(b->comms[0], b->recv[0], 1);
    struct gate_guard guard;
    int rc = loop_begin(b, b->st, 1, 0, b->st[0], &guard);

    if (rc != CES_OK)
        return rc;
    for (uint32_t i = 1; i <= k && rc == CES_OK; i++) {
        rc = memop(b, b->st[0], word, i, 0);
        if (rc == CES_OK && local &&
            cudaMemcpyAsync(b->recv[0], b->send[0], bytes, cudaMemcpyDeviceToDevice, b->st[0]) !=
                cudaSuccess)
            rc = ces_ctx_error(b->ctx, CES_ERR_CUDA, "cudaMemcpyAsync failed");
        if (rc == CES_OK && peer_too &&
            cudaMemcpyAsync((char *)peer + bytes, (const char *)b->send[0] + bytes, bytes,
                            cudaMemcpyDeviceToDevice, b->st[0]) != cudaSuccess)
            rc = ces_ctx_error(b->ctx, CES_ERR_CUDA, "cudaMemcpyAsync failed");
    }
    return loop_end(b, &guard, 0, b->st[0], k, rc, us);
}

#define CALIBRATE_REPEATS 5

/* One zeroed 4 KiB symmetric page per rank: ces_mem_alloc is collective, so
 * every communicator of the process allocates it. */
static int pages_alloc(struct ces_bench *b, void **f)
{
    int rc = CES_OK;

    for (uint32_t r = 0; r < b->n; r++)
        f[r] = NULL;
    for (uint32_t r = 0; r < b->n && rc == CES_OK; r++)
        rc = ces_mem_alloc(b->comms[r], 4096, &f[r]);
    return rc;
}

static void pages_free(struct ces_bench *b, void **f)
{
    for (uint32_t r = 0; r < b->n; r++)
        if (f[r] != NULL) {
            ces_mem_free(b->comms[r], f[r]);
            f[r] = NULL;
        }
}

enum barrier_layout {
    BL_POLLED, /* each GPU writes its own slot and polls the other's (mono) */
    BL_PUSHED, /* each flag written into the waiter's memory (nccl, credit) */
    BL_LOCAL   /* two streams of GPU 0 */
};

/* The fastest (*round_us) and, where slowest_us is not NULL, the slowest of
 * CALIBRATE_REPEATS barrier loops, each on a fresh (zeroed) symmetric flag
 * page.  A loop of barriers alone runs in one of two modes on H200 (a polled
 * barrier 3.3 or 8.2 us, scripts/probe_memops.sh); the fast one is what the
 * barriers cost inside the collectives most of the time, the slow one gives
 * the model's slow mode (slow_wake_us). */
static int barrier_fastest(struct ces_bench *b, int layout, uint32_t k, FILE *log, double *round_us,
                           double *slowest_us)
{
    static const char *const names[] = {"polled", "pushed", "same-GPU"};
    int rc = CES_OK;

    *round_us = INFINITY;
    if (slowest_us != NULL)
        *slowest_us = 0.0;
    fprintf(log, "calibrate: %s barrier loops (us):", names[layout]);
    for (uint32_t i = 0; i < CALIBRATE_REPEATS && rc == CES_OK; i++) {
        void *f[BENCH_MAX_RANKS];
        double t = 0.0;

        rc = pages_alloc(b, f);
        if (rc == CES_OK) {
            CUdeviceptr own0 = (CUdeviceptr)(uintptr_t)f[0];
            CUdeviceptr p1 = (CUdeviceptr)(uintptr_t)ces_mem_peer(b->comms[0], f[0], 1);

            if (layout == BL_POLLED)
                rc = barrier_loop(b, 0, b->st[0], 1, b->st[1], p1 + 4, own0, k, &t);
            else if (layout == BL_PUSHED)
                rc = barrier_loop(b, 0, b->st[0], 1, b->st[1], own0, p1 + 4, k, &t);
            else
                rc = barrier_loop(b, 0, b->st[0], 0, b->st2[0], own0 + 8, own0 + 12, k, &t);
        }
        pages_free(b, f);
        if (rc == CES_OK && t < *round_us)
            *round_us = t;
        if (rc == CES_OK && slowest_us != NULL && t > *slowest_us)
            *slowest_us = t;
        if (rc == CES_OK)
            fprintf(log, " %.2f", t);
    }
    fprintf(log, "\n");
    return rc;
}

/* The median of CALIBRATE_REPEATS switch loops. */
static int switch_median(struct ces_bench *b, CUdeviceptr word, int local, int peer_too,
                         uint64_t bytes, uint32_t k, double *us)
{
    double t[CALIBRATE_REPEATS];
    int rc = CES_OK;

    for (uint32_t i = 0; i < CALIBRATE_REPEATS && rc == CES_OK; i++)
        rc = switch_loop(b, word, local, peer_too, bytes, k, &t[i]);
    if (rc == CES_OK) {
        qsort(t, CALIBRATE_REPEATS, sizeof(t[0]), cmp_double);
        *us = t[CALIBRATE_REPEATS / 2];
    }
    return rc;
}

/* A peer copy's start in a graph behind a memop batch that did not block:
 * `k` rounds of (a one-write memop batch, one `bytes` peer copy) captured
 * into one graph on GPU 0, launched once untimed, then five times between
 * events; *round_us: the median launch over k. */
static int time_graph_rounds(struct ces_bench *b, CUdeviceptr word, void *peer, uint64_t bytes,
                             uint32_t k, double *round_us)
{
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    double t[5];
    cudaError_t e;
    int rc = use_dev(b, 0);

    if (rc != CES_OK)
        return rc;
    CES_RT_GOTO(b->ctx, rc, cudaStreamBeginCapture(b->st[0], cudaStreamCaptureModeRelaxed), out);
    for (uint32_t i = 1; i <= k && rc == CES_OK; i++) {
        rc = memop(b, b->st[0], word, i, 0);
        if (rc == CES_OK)
            CES_RT_GOTO(b->ctx, rc,
                        cudaMemcpyAsync(peer, b->send[0], bytes, cudaMemcpyDeviceToDevice, b->st[0]),
                        end);
    }
end:
    e = cudaStreamEndCapture(b->st[0], &graph); /* ends a failed capture too */
    if (rc == CES_OK && e != cudaSuccess)
        rc = ces_cuda_rt_error(b->ctx, e, "cudaStreamEndCapture", __FILE__, __LINE__);
    if (rc != CES_OK)
        goto out;
    CES_RT_GOTO(b->ctx, rc, cudaGraphInstantiate(&exec, graph, 0), out);
    CES_RT_GOTO(b->ctx, rc, cudaGraphLaunch(exec, b->st[0]), out);
    for (uint32_t i = 0; i < 5; i++) {
        float ms = 0.0f;

        CES_RT_GOTO(b->ctx, rc, cudaEventRecord(b->ev0[0][i], b->st[0]), out);
        CES_RT_GOTO(b->ctx, rc, cudaGraphLaunch(exec, b->st[0]), out);
        CES_RT_GOTO(b->ctx, rc, cudaEventRecord(b->ev1[0][i], b->st[0]), out);
        CES_RT_GOTO(b->ctx, rc, cudaStreamSynchronize(b->st[0]), out);
        CES_RT_GOTO(b->ctx, rc, cudaEventElapsedTime(&ms, b->ev0[0][i], b->ev1[0][i]), out);
        t[i] = ms * 1e3 / k;
    }
    qsort(t, 5, sizeof(t[0]), cmp_double);
    *round_us = t[2];
out:
    if (exec != NULL)
        cudaGraphExecDestroy(exec);
    if (graph != NULL)
        cudaGraphDestroy(graph);
    return rc;
}

/* One flag hop from a barrier: the barrier less its memop batch (never
 * below 0). */
static double hop_of(double barrier_us, double memop_batch_us)
{
    double h = barrier_us - memop_batch_us;

    return h > 0.0 ? h : 0.0;
}

static double now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int ces_bench_calibrate(struct ces_bench *b, struct ces_model *m, FILE *log)
{
    uint64_t big = b->send_bytes < (UINT64_C(256) << 20) ? b->send_bytes : (UINT64_C(256) << 20);
    uint64_t mib = UINT64_C(1) << 20;
    void *peer = ces_mem_peer(b->comms[0], b->recv[0], 1);
    void *flags[BENCH_MAX_RANKS] = {NULL};
    double t_big = 0.0, t_mib = 0.0, t_local = 0.0, t_small = 0.0, t_ser = 0.0, t_par = 0.0;
    double round = 0.0, slowest = 0.0, slow_hop, t0;
    int rc, engines = 0;
    const uint32_t k = 100;

    if (big < 2 * mib)
        return ces_ctx_error(b->ctx, CES_ERR_INVALID, "--calibrate needs --max-bytes of 2M or more");
    /* warm both directions up once */
    rc = time_copy(b, peer, big, 1, &t_big);
    if (rc == CES_OK)
        rc = time_copy(b, peer, big, 5, &t_big);
    if (rc == CES_OK)
        rc = time_copy(b, peer, mib, 9, &t_mib);
    if (rc == CES_OK)
        rc = time_copy(b, b->recv[0], big, 5, &t_local);
    if (rc == CES_OK)
        rc = time_copy(b, peer, 4096, 9, &t_small);
    if (rc != CES_OK)
        return rc;
    m->peer_copy_gbps = (double)big / t_big / 1e3;
    /* two GPUs: one peer, whose one copy is all the link a run here shows */
    m->link_gbps = m->peer_copy_gbps;
    m->local_copy_gbps = (double)big / t_local / 1e3;
    m->per_copy_us = t_mib - (double)mib / (m->peer_copy_gbps * 1e3);
    if (m->per_copy_us < 0.0)
        m->per_copy_us = 0.0;
    fprintf(log, "calibrate: peer copy %.1f GB/s (%llu B in %.1f us); local copy %.1f GB/s; "
                 "1 MiB peer copy %.2f us -> per-copy %.2f us; 4 KiB copy %.2f us\n",
            m->peer_copy_gbps, (unsigned long long)big, t_big, m->local_copy_gbps, t_mib,
            m->per_copy_us, t_small);
    /* one batch of (local, peer) against the same copies on two streams */
    rc = time_batch_pair(b, big / 2, 0, &t_ser);
    if (rc == CES_OK)
        rc = time_batch_pair(b, big / 2, 1, &t_par);
    if (rc != CES_OK)
        return rc;
    m->batch_engines = t_ser > 0.9 * (t_par + (double)(big / 2) / (m->local_copy_gbps * 1e3)) ? 1 : 2;
    fprintf(log, "calibrate: batch(local+peer of %llu B) %.1f us, two streams %.1f us -> "
                 "batch_engines %u\n",
            (unsigned long long)(big / 2), t_ser, t_par, m->batch_engines);
    if (cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, b->dev[0]) == cudaSuccess &&
        engines > 0)
        m->copy_engines = (uint32_t)engines;
    /* memop batch cost: k one-op batches on one stream */
    rc = pages_alloc(b, flags);
    if (rc != CES_OK)
        goto out;
    {
        CUdeviceptr own0 = (CUdeviceptr)(uintptr_t)flags[0];
        struct gate_guard guard;

        rc = loop_begin(b, b->st, 1, 0, b->st[0], &guard);
        if (rc != CES_OK)
            goto out;
        t0 = now_us();
        for (uint32_t i = 1; i <= k && rc == CES_OK; i++)
            rc = memop(b, b->st[0], own0 + 64, i, 0);
        m->host_call_us = (now_us() - t0) / k;
        rc = loop_end(b, &guard, 0, b->st[0], k, rc, &m->memop_batch_us);
        if (rc != CES_OK)
            goto out;
        fprintf(log, "calibrate: memop batch %.3f us on the stream, %.3f us on the host\n",
                m->memop_batch_us, m->host_call_us);
        /* a local copy's start: (write, local) rounds less the write's
         * batch and the bytes; the copy-engine switch: (write, local, peer)
         * rounds against (write, peer), less the local copy's start and
         * bytes */
        {
            double with = 0.0, without = 0.0, alone = 0.0;
            const uint64_t sw = 4096;
            const double sw_us = (double)sw / (m->local_copy_gbps * 1e3);

            rc = switch_median(b, own0 + 72, 1, 0, sw, k, &alone);
            if (rc == CES_OK)
                rc = switch_median(b, own0 + 72, 1, 1, sw, k, &with);
            if (rc == CES_OK)
                rc = switch_median(b, own0 + 72, 0, 1, sw, k, &without);
            if (rc != CES_OK)
                goto out;
            m->per_local_copy_us = alone - m->memop_batch_us - sw_us;
            if (m->per_local_copy_us < 0.0)
                m->per_local_copy_us = 0.0;
            m->copy_switch_us = with - without - m->per_local_copy_us - sw_us;
            if (m->copy_switch_us < 0.0)
                m->copy_switch_us = 0.0;
            fprintf(log,
                    "calibrate: write + local copy (4 KiB) %.2f us -> local copy start %.2f us; "
                    "write + local + peer %.2f us, write + peer %.2f us -> copy switch %.2f us\n",
                    alone, m->per_local_copy_us, with, without, m->copy_switch_us);
        }
        /* a graph's peer copy behind a batch that did not block: (write,
         * 1 MiB peer copy) rounds captured, less the write's batch and the
         * bytes */
        {
            double g_round = 0.0;

            rc = time_graph_rounds(b, own0 + 80, peer, mib, k, &g_round);
            if (rc != CES_OK)
                goto out;
            m->per_graph_copy_us =
                g_round - m->memop_batch_us - (double)mib / (m->peer_copy_gbps * 1e3);
            if (m->per_graph_copy_us < 0.0)
                m->per_graph_copy_us = 0.0;
            fprintf(log, "calibrate: captured write + 1 MiB peer copy %.2f us -> graph copy start "
                         "%.2f us%s\n",
                    g_round, m->per_graph_copy_us,
                    m->per_graph_copy_us > m->per_copy_us ? " (at most the per-copy cost)" : "");
            /* a model holds it at most per_copy_us (the start it shortens) */
            if (m->per_graph_copy_us > m->per_copy_us)
                m->per_graph_copy_us = m->per_copy_us;
        }
        /* cross-GPU hop as the mono protocol's barrier makes it: each rank
         * writes a slot in its own memory and polls the other's through the
         * peer mapping */
        rc = barrier_fastest(b, BL_POLLED, k, log, &round, &slowest);
        if (rc != CES_OK)
            goto out;
        m->signal_hop_us = hop_of(round, m->memop_batch_us);
        slow_hop = hop_of(slowest, m->memop_batch_us);
        /* the same with each flag written into the waiter's memory (the
         * nccl and credit protocols) */
        rc = barrier_fastest(b, BL_PUSHED, k, log, &round, NULL);
        if (rc != CES_OK)
            goto out;
        m->signal_push_us = hop_of(round, m->memop_batch_us);
        /* same-GPU hop: two streams of GPU 0 */
        rc = barrier_fastest(b, BL_LOCAL, k, log, &round, NULL);
        if (rc != CES_OK)
            goto out;
        m->signal_local_us = hop_of(round, m->memop_batch_us);
        fprintf(log, "calibrate: flag hop %.2f us between GPUs (polled), %.2f us (pushed), "
                     "%.2f us inside one GPU\n",
                m->signal_hop_us, m->signal_push_us, m->signal_local_us);
        /* The slow mode: a polled loop slower than the pushed ones (the
         * modes lie 4-5 us a barrier apart on H200, the pushed barrier
         * between them). */
        if (slow_hop > m->signal_push_us) {
            m->slow_wake_us = slow_hop;
            fprintf(log, "calibrate: slowest polled loop %.2f us -> slow-mode wake-up %.2f us\n",
                    slowest, m->slow_wake_us);
        } else {
            fprintf(log, "calibrate: no polled loop ran in the slow mode: slow_wake_us stays "
                         "%.2f us\n",
                    m->slow_wake_us);
        }
        if (m->signal_hop_us > m->signal_push_us)
            fprintf(log, "calibrate: note: every polled loop ran slower than the pushed ones: the "
                         "slow mode of polled waits (docs/PERFORMANCE.md, \"Two modes\"); the "
                         "collectives mostly run in the fast mode, so compare this file's "
                         "signal_hop_us with model/calibrated/ before using it\n");
    }
    /* Event ping-pong: record on one stream, await on the other, k hops,
     * behind the gate.  Logged, not written: a hop of this loop takes 8.2 us
     * on H200, the fork and join of the collectives at most 0.28 (see
     * event_us in model/model.c), so the table's value stays. */
    {
        cudaStream_t both[2] = {b->st[0], b->st2[0]};
        struct gate_guard guard;
        double hop_us = 0.0;

        rc = loop_begin(b, both, 2, 0, b->st[0], &guard);
        if (rc != CES_OK)
            goto out;
        for (uint32_t i = 0; i < k / 2 && rc == CES_OK; i++) {
            cudaEvent_t e0 = b->ev0[0][2 + (2 * i) % 200], e1 = b->ev1[0][2 + (2 * i) % 200];

            if (cudaEventRecord(e0, b->st[0]) != cudaSuccess ||
                cudaStreamWaitEvent(b->st2[0], e0, 0) != cudaSuccess ||
                cudaEventRecord(e1, b->st2[0]) != cudaSuccess ||
                cudaStreamWaitEvent(b->st[0], e1, 0) != cudaSuccess)
                rc = ces_ctx_error(b->ctx, CES_ERR_CUDA, "an event call of the event-hop loop failed");
        }
        rc = loop_end(b, &guard, 0, b->st[0], 2 * (k / 2), rc, &hop_us);
        if (rc != CES_OK)
            goto out;
        fprintf(log, "calibrate: event ping-pong between streams %.2f us a hop (not written: "
                     "event_us stays %.2f); copy engines %u\n",
                hop_us, m->event_us, m->copy_engines);
    }
out:
    pages_free(b, flags);
    return rc;
}
