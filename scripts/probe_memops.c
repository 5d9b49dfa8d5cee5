/*
 * scripts/probe_memops.c - the stream-memop probes behind the "Ideas,
 * predictions and results" of docs/PERFORMANCE.md: what one barrier costs by
 * where its flags live and how its memops are batched, a 2-rank alltoall
 * loop by barrier layout and fork point, the two modes of a polled barrier
 * (the same loop 100 times per shape), a local and a peer copy by how they
 * are issued, memops and timing events between back-to-back copies,
 * the watchdog's progress write, one-way 64 MiB messages through staging
 * slots by flag layout, number of slots, credit interval and the watchdog's
 * progress write, the peer-copy rate by how one direction's bytes are
 * spread over copy engines (streams, pulls, batches), what a
 * stream pays to switch between the local and the peer copy engine, and a
 * captured alltoall iteration with timing events and a forked local copy,
 * eager and as one CUDA graph, and where a captured iteration should fork
 * its local copy; the peer half on a stream gated by the ready flags
 * themselves, the local half gated by the peer's ready flag, the barriers'
 * batching at large sizes, the head of a large peer half staged before the
 * ready wait, the complete barrier's flag written by a copy, the complete
 * barrier's wait on the local half's stream and where the progress write
 * goes, what the local half costs the peer copy; the one-way shape of
 * the rooted collectives (one GPU copies, the other only waits) and what
 * keeps the waiting GPU's wake-up prompt (flags by copy, pulls, local
 * copies and chains of small ones beside the wait); what a copy
 * costs after a met wait, one-way 1 MiB
 * messages as the backend issues them with one thing changed at a time,
 * the one-way sender's flags on a second stream, the sendrecv builder's
 * staged ring with and without a launch's fork and join, and captured
 * one-way messages as the backend's groups stage them; and which ops hold a
 * hardware queue that all streams share (CUDA_DEVICE_MAX_CONNECTIONS=1)
 * behind a local copy, and for how long, and whether a stream wait blocked
 * at its head, an await whose record has not ended or an op that its own
 * stream still holds holds it (queue-hold, GPU 0 alone).  Two GPUs
 * driven by one process (one when only one-GPU probes are named); raw CUDA
 * runtime and driver calls, no cesync.  Built and run by
 * scripts/probe_memops.sh; `probe_memops NAME...` runs only the named
 * probes (the table in main).
 *
 * Every probe enqueues N iterations on its GPUs behind a gate (a stream
 * wait on pinned host memory), opens the gate, and prints the time per
 * iteration: the events around the whole loop over N, and for the alltoall
 * loops also the median over iterations of per-iteration events (the
 * slowest GPU's), as `cesync bench` measures.  The staged-message probe
 * prints the time per message and the rate.  The copy-engine probe, whose
 * copies run on several streams, times each GPU from the earliest start of
 * its streams to the latest end.  A guard thread opens the gate after 2 s
 * in any case (a full queue would otherwise block the enqueue), and releases
 * queue-hold's wait on the host 2 s after its case began; such a line is
 * marked.
 *
 * Layouts: "pushed" writes the flag into the waiter's memory and waits on
 * local memory (NCCL's layout); "polled" writes the writer's own slot and
 * the waiter polls it across the link (cesync's `mono`).
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 100
#define BIG (256u << 20)
#define STREAMS 4           /* copy streams per GPU, and the most pieces of one batch */
#define CHUNK (512u << 10)  /* bytes per peer of the captured alltoall iteration */
#define BIG_CHUNK (32u << 20) /* ... and of its larger form (64 MiB alltoall) */
#define MSG (64u << 20)     /* bytes per staged message */
#define MSGS 40             /* messages per staged-message case */
#define SLOTS 4             /* the most staging slots (GPU 1's stage buffer holds them) */

_Static_assert((size_t)SLOTS * MSG <= BIG, "the stage buffer holds SLOTS messages");

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define DK(x)                                                                                      \
    do {                                                                                           \
        CUresult r_ = (x);                                                                         \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            const char *s_ = "?";                                                                  \
            cuGetErrorString(r_, &s_);                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_);                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

struct gpu {
    cudaStream_t st, side;
    cudaStream_t cs[STREAMS]; /* the copy-engine probe's streams */
    uint32_t *flags;  /* 1024 u32 flag words */
    uint64_t *words;  /* 512 u64: progress words in device memory */
    uint32_t *seq;    /* [N + 1]: seq[v] = v, the source of the *_COPY flags */
    char *send, *recv, *stage;
    cudaEvent_t t0, t1, it0[N + 1], it1[N + 1], fork[N + 1], join[N + 1];
    cudaEvent_t ready, copied; /* the peer half apart (a2a_loop) */
    cudaEvent_t cs0[STREAMS], cs1[STREAMS];
};

static struct gpu G[2];
static volatile uint32_t *gate;      /* pinned, mapped: the gate, then queue-hold's words */
static CUdeviceptr gate_dev;
#define HOLD_ARRIVED 16              /* u32 index in the gate's page: s1 reached its wait */
#define HOLD_RELEASE 32              /* ... and the word it waits for (another 64-byte line) */
static atomic_long release_ns;       /* 0: no wait on HOLD_RELEASE pending */
static atomic_int release_fired;     /* the guard set HOLD_RELEASE */
static uint64_t *host_words;         /* pinned, mapped: progress words in host memory */
static CUdeviceptr host_words_dev;
static atomic_int guard_fired;
static atomic_long began_ns;         /* 0: no gate closed */
static int gpus;                     /* set up (main): 1 when every probe run needs GPU 0 alone */

static long now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void *guard(void *arg)
{
    const struct timespec tick = {0, 50000000};

    (void)arg;
    for (;;) {
        long b = atomic_load(&began_ns);

        nanosleep(&tick, NULL);
        if (b != 0 && now_ns() - b > 2000000000L && *gate == 0) {
            atomic_store(&guard_fired, 1);
            atomic_thread_fence(memory_order_seq_cst);
            *gate = 1;
        }
        /* Every tick until the case ends: the host may have lowered the
         * word again as the guard fired (release_each). */
        b = atomic_load(&release_ns);
        if (b != 0 && now_ns() - b > 2000000000L) {
            atomic_store(&release_fired, 1);
            atomic_thread_fence(memory_order_seq_cst);
            gate[HOLD_RELEASE] = UINT32_MAX;
        }
    }
    return NULL;
}

static CUdeviceptr flag(int g, int i) { return (CUdeviceptr)(uintptr_t)(G[g].flags + i); }
static CUdeviceptr word(int g, int i) { return (CUdeviceptr)(uintptr_t)(G[g].words + i); }
/* u64 flag i of GPU g: the upper half of the flag page (u32 words 512..). */
static CUdeviceptr flag64(int g, int i) { return flag(g, 512 + 2 * i); }
/* GPU g's progress word in pinned host memory (one per 64 bytes). */
static CUdeviceptr host_word(int g)
{
    return host_words_dev + (CUdeviceptr)(8 * g) * sizeof(uint64_t);
}

static CUstreamBatchMemOpParams write32(CUdeviceptr a, uint32_t v)
{
    CUstreamBatchMemOpParams p;

    memset(&p, 0, sizeof(p));
    p.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
    p.writeValue.address = a;
    p.writeValue.value = v;
    return p;
}

static CUstreamBatchMemOpParams write64(CUdeviceptr a, uint64_t v)
{
    CUstreamBatchMemOpParams p;

    memset(&p, 0, sizeof(p));
    p.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
    p.writeValue.address = a;
    p.writeValue.value64 = v;
    return p;
}

/* A wait for *a >= v, 32 or 64 bits wide. */
static CUstreamBatchMemOpParams wait_geq(CUdeviceptr a, uint64_t v, int wide)
{
    CUstreamBatchMemOpParams p;

    memset(&p, 0, sizeof(p));
    p.waitValue.operation = wide ? CU_STREAM_MEM_OP_WAIT_VALUE_64 : CU_STREAM_MEM_OP_WAIT_VALUE_32;
    p.waitValue.address = a;
    if (wide)
        p.waitValue.value64 = v;
    else
        p.waitValue.value = (cuuint32_t)v;
    p.waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
    return p;
}

static CUstreamBatchMemOpParams wait32(CUdeviceptr a, uint32_t v) { return wait_geq(a, v, 0); }
static CUstreamBatchMemOpParams wait64(CUdeviceptr a, uint64_t v) { return wait_geq(a, v, 1); }

static CUstreamBatchMemOpParams wait32eq(CUdeviceptr a, uint32_t v)
{
    CUstreamBatchMemOpParams p = wait32(a, v);

    p.waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
    return p;
}

static void batch(int g, const CUstreamBatchMemOpParams *ops, unsigned n)
{
    DK(cuStreamBatchMemOp((CUstream)G[g].st, n, (CUstreamBatchMemOpParams *)ops, 0));
}

static void close_gate(void)
{
    *gate = 0;
    atomic_store(&guard_fired, 0);
    atomic_store(&began_ns, now_ns());
}

static void open_gate(void)
{
    atomic_thread_fence(memory_order_seq_cst);
    *gate = 1;
    atomic_store(&began_ns, 0);
}

static const char *guard_note(void)
{
    return atomic_load(&guard_fired) ? "   (gate opened by the guard)" : "";
}

/* Zero the flags, then close the gate on the GPUs' streams and record the start. */
static void begin(void)
{
    for (int g = 0; g < gpus; g++) {
        CK(cudaSetDevice(g));
        CK(cudaMemset(G[g].flags, 0, 4096));
        CK(cudaDeviceSynchronize());
    }
    close_gate();
    for (int g = 0; g < gpus; g++) {
        CK(cudaSetDevice(g));
        DK(cuStreamWaitValue32((CUstream)G[g].st, gate_dev, 1, CU_STREAM_WAIT_VALUE_GEQ));
        CK(cudaEventRecord(G[g].t0, G[g].st));
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Record the end on the GPUs' streams, open the gate, wait and return the
 * slowest GPU's time from its gate to its end, in ms. */
static double finish(void)
{
    double worst = 0.0;

    for (int g = 0; g < gpus; g++) {
        CK(cudaSetDevice(g));
        CK(cudaEventRecord(G[g].t1, G[g].st));
    }
    open_gate();
    for (int g = 0; g < gpus; g++) {
        float ms;

        CK(cudaSetDevice(g));
        CK(cudaStreamSynchronize(G[g].st));
        CK(cudaStreamSynchronize(G[g].side));
        CK(cudaEventElapsedTime(&ms, G[g].t0, G[g].t1));
        if (ms > worst)
            worst = ms;
    }
    return worst;
}

/* The median over the N iterations of the slowest GPU's per-iteration
 * events (it0[i] to it1[i]), in us; *min the fastest iteration. */
static double iter_median(double *min)
{
    double v[N];

    for (int i = 1; i <= N; i++) {
        float a, b;

        CK(cudaSetDevice(0));
        CK(cudaEventElapsedTime(&a, G[0].it0[i], G[0].it1[i]));
        CK(cudaSetDevice(1));
        CK(cudaEventElapsedTime(&b, G[1].it0[i], G[1].it1[i]));
        v[i - 1] = 1000.0 * (a > b ? a : b);
    }
    qsort(v, N, sizeof(v[0]), cmp_double);
    *min = v[0];
    return v[N / 2];
}

/* Open the gate, wait, print the time per iteration (and the median of the
 * per-iteration events when they were recorded). */
static void end(const char *name, int per_iteration)
{
    printf("%-58s %9.2f us/iter", name, finish() * 1000.0 / N);
    if (per_iteration) {
        double min, med = iter_median(&min);

        printf("   median %8.2f  min %8.2f", med, min);
    }
    printf("%s\n", guard_note());
    fflush(stdout);
}

/* One cudaMemcpyBatchAsync of `count` copies on s, in stream order. */
static void copies(void *const *dst, const void *const *src, const size_t *n, size_t count,
                   cudaStream_t s)
{
    size_t idx = 0;
    struct cudaMemcpyAttributes a;

    memset(&a, 0, sizeof(a));
    a.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    a.flags = cudaMemcpyFlagPreferOverlapWithCompute;
    CK(cudaMemcpyBatchAsync(dst, src, n, count, &a, &idx, 1, s));
}

static void copy1(void *dst, const void *src, size_t n, cudaStream_t s)
{
    copies(&dst, &src, &n, 1, s);
}

/* *_COPY: the barrier's flag written by a 4-byte copy-engine copy from a
 * word holding the value (the stream's copy after its data copies, as NCCL
 * 2.29+ writes its flags), then a memop call with the wait. */
/* *_SIDE (the complete barrier of the alltoall loop only): the barrier
 * stream writes the own flag; the wait for the peer's is on the side
 * stream after the local half, before the event the barrier stream awaits
 * (the progress write with the wait; POLLED_SIDE_LATE: after the event). */
enum layout {
    PUSHED,
    PUSHED_SPLIT,
    POLLED,
    POLLED_SPLIT,
    PUSHED_COPY,
    POLLED_COPY,
    POLLED_SIDE,
    POLLED_SIDE_LATE
};
/* EARLY: the progress write (device memory) between the barrier's write
 * and its wait, in the write's batch (*_POLLED, *_SPLIT only). */
enum progress { NONE, DEVICE, HOST, EARLY };

/* One barrier of GPU g on flag pair `base` (slots base, base+1), value v. */
static void barrier(int g, enum layout l, enum progress pr, int base, uint32_t v)
{
    int p = 1 - g;
    CUstreamBatchMemOpParams q[3];
    unsigned n = 2;
    int pushed = l == PUSHED || l == PUSHED_SPLIT || l == PUSHED_COPY;

    if (l == POLLED_SIDE || l == POLLED_SIDE_LATE) {
        q[0] = write32(flag(g, base + g), v);
        batch(g, q, 1);
        return;
    }
    if (l == PUSHED_COPY || l == POLLED_COPY) {
        copy1((void *)(uintptr_t)(pushed ? flag(p, base + g) : flag(g, base + g)), G[g].seq + v,
              sizeof(uint32_t), G[g].st);
        q[0] = wait32(pushed ? flag(g, base + p) : flag(p, base + p), v);
        n = 1;
        if (pr != NONE)
            q[n++] = write64(pr == DEVICE ? word(g, 0) : host_word(g), v);
        batch(g, q, n);
        return;
    }
    q[0] = write32(pushed ? flag(p, base + g) : flag(g, base + g), v);
    if (pr == EARLY) {
        q[1] = write64(word(g, 0), v);
        q[2] = wait32(pushed ? flag(g, base + p) : flag(p, base + p), v);
        n = 3;
    } else {
        q[1] = wait32(pushed ? flag(g, base + p) : flag(p, base + p), v);
        if (pr != NONE)
            q[n++] = write64(pr == DEVICE ? word(g, 0) : host_word(g), v);
    }
    if (l == PUSHED_SPLIT || l == POLLED_SPLIT) {
        unsigned w = pr == EARLY ? 2 : 1;

        batch(g, q, w);
        batch(g, q + w, n - w);
    } else {
        batch(g, q, n);
    }
}

static void probe_barriers(void)
{
    static const struct {
        enum layout l;
        enum progress pr;
        const char *name;
    } cases[] = {
        {PUSHED, NONE, "barrier: pushed, write+wait in one batch"},
        {PUSHED_SPLIT, NONE, "barrier: pushed, write | wait as two batches"},
        {POLLED, NONE, "barrier: polled, write+wait in one batch"},
        {POLLED_SPLIT, NONE, "barrier: polled, write | wait as two batches"},
        {POLLED, DEVICE, "barrier: polled, one batch + progress write (device)"},
        {POLLED, HOST, "barrier: polled, one batch + progress write (host)"},
        {PUSHED, HOST, "barrier: pushed, one batch + progress write (host)"},
    };

    puts("== one barrier between the two GPUs");
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        begin();
        for (uint32_t i = 1; i <= N; i++)
            for (int g = 0; g < 2; g++) {
                CK(cudaSetDevice(g));
                barrier(g, cases[c].l, cases[c].pr, 0, i);
            }
        end(cases[c].name, 0);
    }
}

/* A 2-rank alltoall iteration's shape: each barrier's layout and progress
 * write, and where the local half goes. */
/* FORK_SPLIT: the first LOCAL_HEAD bytes of the local half forked at the
 * start, the rest after the ready barrier; FORK_LATE_MEMCPY: after the
 * ready barrier as one cudaMemcpyAsync instead of a batch of one. */
enum local_half {
    NO_LOCAL,
    FORK_AT_START,
    FORK_AFTER_READY,
    ON_BARRIER_STREAM,
    FORK_GATED,
    FORK_SPLIT,
    FORK_LATE_MEMCPY,
    FORK_SMALL,
    FORK_BIG,
    FORK_2B,
    CHAIN_64,
    CHAIN_256,
    TO_HOST,
    REVERSE,
    FORK_2B_LATE,
    FORK_TWO_B,
    FORK_8B,
    FORK_4B_LATE,
    CHAIN_TIMED,
    ROWS_TIMED,
    TO_HOST_QUARTER
};
#define LOCAL_HEAD (8u << 20)
/* The peer half on the barrier stream, or on a stream of its own between an
 * event after the ready barrier and one the complete barrier awaits, or on
 * a stream of its own gated by the ready flags themselves (it polls the own
 * and the peer's ready flag, copies, writes the own done flag; the barrier
 * stream writes its ready flag and waits for both done flags: no event). */
/* PEER_ONE_WAY: a one-way iteration (rooted_loop) in place of the
 * alltoall's: GPU 1 pushes the whole size into GPU 0's recv between the two
 * barriers, as broadcast and scatter in place do, and the local half is
 * GPU 0's local copy of the size (forked at the start, FORK_SMALL: 4 KiB,
 * FORK_BIG: four times the size, about as long as the push; FORK_2B: twice
 * the size), or the keep-alive forked at the start in its place: a batch
 * of 64 or 256 local copies of 4 KiB (CHAIN_*), an eighth of the size to
 * pinned host memory (TO_HOST), a quarter of it pushed back into GPU 1's
 * stage buffer (REVERSE); FORK_2B_LATE: 2B forked after the ready barrier;
 * FORK_TWO_B: two copies of the size in one batch; FORK_8B: eight times
 * the size; FORK_4B_LATE: four times, forked after the ready barrier;
 * light keep-alives sized to last about 78 % of the push (light_us):
 * CHAIN_TIMED, a batch of 4 KiB local copies, ROWS_TIMED, a 2D local copy
 * of 32-byte rows; TO_HOST_QUARTER: a quarter of the size to host memory -
 * GPU 0 copies nothing to its peer; PEER_ONE_WAY_ROOT: GPU 1 forks a local
 * copy of the size at the start too (broadcast out of place);
 * PEER_BOTH_PUSH: both GPUs push the size and do as `local` says
 * (allgather in place); PEER_SPLIT: GPU 1 pushes the first half, GPU 0
 * pulls the second from GPU 1's send (PEER_SPLIT_ROOT: and GPU 1 forks its
 * local copy too); PEER_PULL: GPU 0 pulls it all. */
enum peer_half {
    PEER_WITH_BARRIERS,
    PEER_APART,
    PEER_FLAGGED,
    PEER_HEAD,
    PEER_ONE_WAY,
    PEER_ONE_WAY_ROOT,
    PEER_BOTH_PUSH,
    PEER_SPLIT,
    PEER_SPLIT_ROOT,
    PEER_PULL
};

/* PEER_HEAD: the first head_bytes of the peer half go into the peer's
 * stage buffer before the ready wait, the rest after it (a2a_head). */
static size_t head_bytes;
/* ... without the side stream's wait for the peer's head and its copy-out */
static int head_bare;

struct a2a_shape {
    enum layout ready, complete;
    enum progress ready_pr, complete_pr;
    enum local_half local;
    enum peer_half peer;
    const char *name;
};

/* One iteration i of GPU g of the PEER_HEAD shape, chunk c: the ready
 * write, the head of the peer half copied into the peer's stage buffer
 * (which only the peer's copy-out of the previous iteration used, and that
 * ended before the peer's complete write), a batch of the head flag's write
 * and the ready wait, the rest of the peer half into the peer's recv; the
 * side stream, forked after that batch, waits for the peer's head flag,
 * copies its head out of the own stage buffer and copies the local half; the
 * barrier stream awaits it before the complete barrier. */
static void a2a_head(const struct a2a_shape *m, int g, int i, size_t c)
{
    struct gpu *x = &G[g];
    int p = 1 - g;
    size_t h = head_bytes;
    CUstreamBatchMemOpParams q[2] = {write32(flag(g, g), (uint32_t)i)};

    batch(g, q, 1);
    copy1(G[p].stage + g * c, x->send + p * c, h, x->st);
    q[0] = write32(flag(g, 4 + g), (uint32_t)i);
    q[1] = wait32(flag(p, p), (uint32_t)i);
    batch(g, q, 2);
    CK(cudaEventRecord(x->fork[i], x->st));
    CK(cudaStreamWaitEvent(x->side, x->fork[i], 0));
    if (!head_bare) {
        q[0] = wait32(flag(p, 4 + p), (uint32_t)i);
        DK(cuStreamBatchMemOp((CUstream)x->side, 1, q, 0));
        copy1(x->recv + p * c, x->stage + p * c, h, x->side);
    }
    copy1(x->recv + g * c, x->send + g * c, c, x->side);
    CK(cudaEventRecord(x->join[i], x->side));
    copy1(G[p].recv + g * c + h, x->send + p * c + h, c - h, x->st);
    CK(cudaStreamWaitEvent(x->st, x->join[i], 0));
    barrier(g, m->complete, m->complete_pr, 2, (uint32_t)i);
}

/* The end of the side stream's iteration i on GPU g: for a complete
 * barrier of layout *_SIDE the wait for the peer's flag (and the progress
 * write), then the event the barrier stream awaits. */
static void side_wait(const struct a2a_shape *m, int g, int i)
{
    struct gpu *x = &G[g];
    CUstreamBatchMemOpParams q[2] = {wait32(flag(1 - g, 3 - g), (uint32_t)i)};
    unsigned n = 1;
    int side = m->complete == POLLED_SIDE || m->complete == POLLED_SIDE_LATE;

    if (side) {
        if (m->complete == POLLED_SIDE && m->complete_pr != NONE)
            q[n++] = write64(word(g, 0), (uint64_t)i);
        DK(cuStreamBatchMemOp((CUstream)x->side, n, q, 0));
    }
    CK(cudaEventRecord(x->join[i], x->side));
    if (side && m->complete == POLLED_SIDE_LATE && m->complete_pr != NONE) {
        q[0] = write64(word(g, 0), (uint64_t)i);
        DK(cuStreamBatchMemOp((CUstream)x->side, 1, q, 0));
    }
}

/* Enqueues N iterations of the 2-rank alltoall of `bytes` per rank behind
 * the gate: the local half on the side stream (forked at the start or after
 * the ready barrier, joined back at the end), on the barrier stream, or
 * none; the peer half in one batch between the ready and the complete
 * barrier. */
static void a2a_loop(const struct a2a_shape *m, size_t bytes)
{
    size_t c = bytes / 2;
    int late = m->local == FORK_AFTER_READY || m->local == FORK_SPLIT ||
               m->local == FORK_LATE_MEMCPY;
    int fork = late || m->local == FORK_AT_START || m->local == FORK_GATED;
    size_t head = m->local == FORK_SPLIT ? LOCAL_HEAD : 0;

    begin();
    for (int i = 1; i <= N; i++)
        for (int g = 0; g < 2; g++) {
            struct gpu *x = &G[g];
            int p = 1 - g;

            CK(cudaSetDevice(g));
            CK(cudaEventRecord(x->it0[i], x->st));
            if (m->peer == PEER_HEAD) {
                a2a_head(m, g, i, c);
                CK(cudaEventRecord(x->it1[i], x->st));
                continue;
            }
            if (head > 0) {
                CK(cudaEventRecord(x->ready, x->st));
                CK(cudaStreamWaitEvent(x->side, x->ready, 0));
                copy1(x->recv + g * c, x->send + g * c, head, x->side);
            }
            if (late)
                barrier(g, m->ready, m->ready_pr, 0, (uint32_t)i);
            if (fork) {
                CK(cudaEventRecord(x->fork[i], x->st));
                CK(cudaStreamWaitEvent(x->side, x->fork[i], 0));
                if (m->local == FORK_GATED) {
                    CUstreamBatchMemOpParams q = wait32(flag(p, p), (uint32_t)i);

                    DK(cuStreamBatchMemOp((CUstream)x->side, 1, &q, 0));
                }
                if (m->local == FORK_LATE_MEMCPY)
                    CK(cudaMemcpyAsync(x->recv + g * c, x->send + g * c, c,
                                       cudaMemcpyDeviceToDevice, x->side));
                else
                    copy1(x->recv + g * c + head, x->send + g * c + head, c - head, x->side);
                side_wait(m, g, i);
            } else if (m->local == ON_BARRIER_STREAM) {
                copy1(x->recv + g * c, x->send + g * c, c, x->st);
            }
            if (!late && m->peer != PEER_FLAGGED)
                barrier(g, m->ready, m->ready_pr, 0, (uint32_t)i);
            if (m->peer == PEER_FLAGGED) {
                CUstreamBatchMemOpParams q[3] = {write32(flag(g, g), (uint32_t)i)};

                if (!late)
                    batch(g, q, 1);
                q[0] = wait32(flag(g, g), (uint32_t)i);
                q[1] = wait32(flag(p, p), (uint32_t)i);
                DK(cuStreamBatchMemOp((CUstream)x->cs[0], 2, q, 0));
                copy1(G[p].recv + g * c, x->send + p * c, c, x->cs[0]);
                q[0] = write32(flag(g, 2 + g), (uint32_t)i);
                DK(cuStreamBatchMemOp((CUstream)x->cs[0], 1, q, 0));
                q[0] = wait32(flag(g, 2 + g), (uint32_t)i);
                q[1] = wait32(flag(p, 2 + p), (uint32_t)i);
                q[2] = write64(word(g, 0), i);
                batch(g, q, 3);
            } else if (m->peer == PEER_APART) {
                CK(cudaEventRecord(x->ready, x->st));
                CK(cudaStreamWaitEvent(x->cs[0], x->ready, 0));
                copy1(G[p].recv + g * c, x->send + p * c, c, x->cs[0]);
                CK(cudaEventRecord(x->copied, x->cs[0]));
                CK(cudaStreamWaitEvent(x->st, x->copied, 0));
            } else {
                copy1(G[p].recv + g * c, x->send + p * c, c, x->st);
            }
            if (m->peer != PEER_FLAGGED)
                barrier(g, m->complete, m->complete_pr, 2, (uint32_t)i);
            if (fork)
                CK(cudaStreamWaitEvent(x->st, x->join[i], 0));
            CK(cudaEventRecord(x->it1[i], x->st));
        }
}

static char *host_buf; /* pinned: TO_HOST's destination */

/* The light keep-alives: what one 4 KiB copy of a batch and one 32-byte row
 * of a 2D copy take (measured by probe_one_way_light), and how long the
 * keep-alive should last (set per size). */
static double light_per_copy_us = 3.2, light_per_row_us = 0.01, light_us;
#define ROW 32
#define ROW_PITCH 4096

static size_t light_count(double per_us)
{
    double k = light_us / per_us + 0.5;

    return k < 1.0 ? 1 : (size_t)k;
}

/* A batch of k local copies of 4 KiB on s (k at most 256). */
static void keep_chain(cudaStream_t s, char *dst, char *src, size_t k)
{
    enum { PIECE = 4096 };
    void *d[256];
    const void *f[256];
    size_t sz[256];

    if (k > 256)
        k = 256;
    for (size_t j = 0; j < k; j++) {
        d[j] = dst + j * PIECE;
        f[j] = src + j * PIECE;
        sz[j] = PIECE;
    }
    copies(d, f, sz, k, s);
}

/* A 2D local copy of k rows of ROW bytes, ROW_PITCH apart, on s. */
static void keep_rows(cudaStream_t s, char *dst, char *src, size_t k)
{
    if (k > (BIG / 2) / ROW_PITCH)
        k = (BIG / 2) / ROW_PITCH;
    CK(cudaMemcpy2DAsync(dst, ROW_PITCH, src, ROW_PITCH, ROW, k, cudaMemcpyDeviceToDevice, s));
}

/* GPU g's side-stream work of a one-way shape (rooted_loop): a local copy
 * of n bytes from src to dst, or the keep-alive `where` names. */
static void keep_alive(int g, enum local_half where, char *dst, char *src, size_t n)
{
    struct gpu *x = &G[g];

    if (where == CHAIN_64 || where == CHAIN_256) {
        keep_chain(x->side, dst, src, where == CHAIN_64 ? 64 : 256);
    } else if (where == TO_HOST || where == TO_HOST_QUARTER) {
        copy1(host_buf + (size_t)g * (BIG / 16), src, n / (where == TO_HOST ? 8 : 4), x->side);
    } else if (where == REVERSE) {
        copy1(G[1 - g].stage, src, n / 4, x->side);
    } else if (where == CHAIN_TIMED) {
        keep_chain(x->side, dst, src, light_count(light_per_copy_us));
    } else if (where == ROWS_TIMED) {
        keep_rows(x->side, dst, src, light_count(light_per_row_us));
    } else if (where == FORK_TWO_B) {
        void *d[2] = {dst, dst + n};
        const void *f[2] = {src, src + n};
        size_t sz[2] = {n, n};

        copies(d, f, sz, 2, x->side);
    } else {
        copy1(dst, src, n, x->side);
    }
}

/* Enqueues N iterations of a one-way shape (PEER_ONE_WAY and after) of
 * `bytes` behind the gate: the ready barrier, GPU 1's push (and GPU 0's
 * with PEER_BOTH_PUSH), the complete barrier; a local copy (GPU 0's as
 * `local` says, GPU 1's with PEER_ONE_WAY_ROOT) goes from the upper half of
 * send to that of recv, away from the pushed bytes, and a forked one is
 * joined before the end. */
static void rooted_loop(const struct a2a_shape *m, size_t bytes)
{
    size_t half = BIG / 2;

    begin();
    for (int i = 1; i <= N; i++)
        for (int g = 0; g < 2; g++) {
            struct gpu *x = &G[g];
            int root = g == 1;
            int root_local = m->peer == PEER_ONE_WAY_ROOT || m->peer == PEER_SPLIT_ROOT;
            int split = m->peer == PEER_SPLIT || m->peer == PEER_SPLIT_ROOT;
            enum local_half where = !root || m->peer == PEER_BOTH_PUSH ? m->local
                                    : root_local                        ? FORK_AT_START
                                                                        : NO_LOCAL;
            size_t local = where == FORK_SMALL                          ? 4096
                           : where == FORK_BIG || where == FORK_4B_LATE ? 4 * bytes
                           : where == FORK_8B                           ? 8 * bytes
                           : where == FORK_2B || where == FORK_2B_LATE  ? 2 * bytes
                                                                        : bytes;
            int fork = where != NO_LOCAL && where != ON_BARRIER_STREAM;
            int late = where == FORK_AFTER_READY || where == FORK_2B_LATE ||
                       where == FORK_4B_LATE;

            CK(cudaSetDevice(g));
            CK(cudaEventRecord(x->it0[i], x->st));
            if (late)
                barrier(g, m->ready, m->ready_pr, 0, (uint32_t)i);
            if (fork) {
                CK(cudaEventRecord(x->fork[i], x->st));
                CK(cudaStreamWaitEvent(x->side, x->fork[i], 0));
                keep_alive(g, where, x->recv + half, x->send + half, local);
                CK(cudaEventRecord(x->join[i], x->side));
            }
            if (!late)
                barrier(g, m->ready, m->ready_pr, 0, (uint32_t)i);
            if (where == ON_BARRIER_STREAM)
                copy1(x->recv + half, x->send + half, local, x->st);
            if (split)
                copy1(G[0].recv + (bytes / 2) * !root, G[1].send + (bytes / 2) * !root,
                      bytes / 2, x->st);
            else if (m->peer == PEER_PULL && !root)
                copy1(x->recv, G[1].send, bytes, x->st);
            else if (m->peer != PEER_PULL && (root || m->peer == PEER_BOTH_PUSH))
                copy1(G[1 - g].recv, x->send, bytes, x->st);
            barrier(g, m->complete, m->complete_pr, 2, (uint32_t)i);
            if (fork)
                CK(cudaStreamWaitEvent(x->st, x->join[i], 0));
            CK(cudaEventRecord(x->it1[i], x->st));
        }
}

/* The loop with both barriers alike, the local half forked at the start or
 * after the ready barrier, and its line printed. */
static void alltoall(size_t bytes, enum layout l, enum progress pr, int late, const char *name)
{
    const struct a2a_shape m = {l, l, pr, pr, late ? FORK_AFTER_READY : FORK_AT_START,
                                PEER_WITH_BARRIERS, name};

    a2a_loop(&m, bytes);
    end(name, 1);
}

static void probe_alltoall(void)
{
    static const size_t sizes[] = {1u << 20, 128u << 20};

    for (size_t s = 0; s < 2; s++) {
        printf("== alltoall, %zu KiB per rank (local half forked on a second stream)\n",
               sizes[s] >> 10);
        alltoall(sizes[s], PUSHED, NONE, 0, "pushed barriers, fork at start");
        alltoall(sizes[s], POLLED, NONE, 0, "polled barriers, fork at start");
        alltoall(sizes[s], POLLED, NONE, 1, "polled barriers, fork after ready");
        alltoall(sizes[s], POLLED, HOST, 0, "polled + progress (host), fork at start");
        alltoall(sizes[s], POLLED, DEVICE, 0, "polled + progress (device), fork at start");
        alltoall(sizes[s], POLLED, HOST, 1, "polled + progress (host), fork after ready");
    }
}

/* The two modes of a polled barrier, counted: the 1 MiB alltoall loop of N
 * iterations MODE_LOOPS times per shape, each loop's median (slowest GPU
 * per iteration), a loop counted slow when its median is over the shape's
 * fastest loop median + 5 us.  Shapes: as cesync issues it (the ready
 * barrier one batch, the complete barrier one batch ending in the progress
 * write (device), the local half forked at the start); either barrier's
 * write and wait as two batches; the local half forked after the ready
 * barrier; no local half; the local half on the barrier stream (no fork);
 * the peer half on a stream of its own, between events.
 * Printed per shape: min, median and max of the loop medians, the slow
 * loops, and the loops in order (S slow, . fast).  Measured (2x H200, fifth
 * session, docs/PERFORMANCE.md "Two modes"): the slow loops come in runs,
 * in every shape that has the peer half on the barrier stream; the local
 * half on the barrier stream is slow in most; the peer half apart never
 * (seventh session). */
#define MODE_LOOPS 100

/* The median of one loop's iterations, in us. */
static double mode_loop(const struct a2a_shape *m, size_t bytes)
{
    double min;

    if (m->peer < PEER_ONE_WAY)
        a2a_loop(m, bytes);
    else
        rooted_loop(m, bytes);
    finish();
    return iter_median(&min);
}

static void probe_modes(void)
{
    static const struct a2a_shape shapes[] = {
        {POLLED, POLLED, NONE, DEVICE, FORK_AT_START, PEER_WITH_BARRIERS,
         "as cesync (fork at start)"},
        {POLLED, POLLED_SPLIT, NONE, DEVICE, FORK_AT_START, PEER_WITH_BARRIERS,
         "complete barrier as two batches"},
        {POLLED_SPLIT, POLLED, NONE, DEVICE, FORK_AT_START, PEER_WITH_BARRIERS,
         "ready barrier as two batches"},
        {POLLED_SPLIT, POLLED_SPLIT, NONE, DEVICE, FORK_AT_START, PEER_WITH_BARRIERS,
         "both barriers as two batches"},
        {POLLED, POLLED, NONE, DEVICE, FORK_AFTER_READY, PEER_WITH_BARRIERS,
         "fork after the ready barrier"},
        {POLLED, POLLED, NONE, DEVICE, NO_LOCAL, PEER_WITH_BARRIERS, "no local half"},
        {POLLED, POLLED, NONE, DEVICE, ON_BARRIER_STREAM, PEER_WITH_BARRIERS,
         "local half on the barrier stream"},
        {POLLED, POLLED, NONE, DEVICE, FORK_AT_START, PEER_APART, "peer half on its own stream"},
        {POLLED, POLLED, NONE, DEVICE, FORK_AT_START, PEER_WITH_BARRIERS, "as cesync, again"},
        {POLLED, POLLED, NONE, DEVICE, FORK_AT_START, PEER_APART, "peer half apart, again"},
    };

    printf("== two modes: the 1024 KiB alltoall loop %d times per shape (median us per loop)\n",
           MODE_LOOPS);
    for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
        double med[MODE_LOOPS], s[MODE_LOOPS];
        int slow = 0;

        for (int l = 0; l < MODE_LOOPS; l++)
            med[l] = s[l] = mode_loop(&shapes[k], 1u << 20);
        qsort(s, MODE_LOOPS, sizeof(s[0]), cmp_double);
        for (int l = 0; l < MODE_LOOPS; l++)
            slow += med[l] > s[0] + 5.0;
        printf("%-34s min %6.2f median %6.2f max %6.2f slow %3d  ", shapes[k].name, s[0],
               s[MODE_LOOPS / 2], s[MODE_LOOPS - 1], slow);
        for (int l = 0; l < MODE_LOOPS; l++)
            putchar(med[l] > s[0] + 5.0 ? 'S' : '.');
        putchar('\n');
        fflush(stdout);
    }
}

/* Two shapes of the alltoall loop of probe_modes by size, MODE_LOOPS / 2
 * loops of each per size, alternating: the median and the fastest loop
 * median, and the loops slower than the fastest + 5 us.  shape[k][0] is
 * shape k below 8 MiB per rank, shape[k][1] from 8 MiB. */
static void by_size(const char *title, const struct a2a_shape *const shape[2][2])
{
    static const size_t sizes[] = {1u << 20, 8u << 20, 32u << 20, 128u << 20};

    printf("== %s: the alltoall loop, median of loop medians, min, slow loops\n", title);
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        int big = sizes[z] >= (8u << 20);
        double med[2][MODE_LOOPS / 2];

        for (int l = 0; l < MODE_LOOPS / 2; l++)
            for (int k = 0; k < 2; k++)
                med[k][l] = mode_loop(shape[k][big], sizes[z]);
        printf("%6zu MiB", sizes[z] >> 20);
        for (int k = 0; k < 2; k++) {
            int slow = 0;

            qsort(med[k], MODE_LOOPS / 2, sizeof(double), cmp_double);
            for (int l = 0; l < MODE_LOOPS / 2; l++)
                slow += med[k][l] > med[k][0] + 5.0;
            printf("   %s: median %7.2f min %7.2f slow %2d", shape[k][big]->name,
                   med[k][MODE_LOOPS / 4], med[k][0], slow);
        }
        putchar('\n');
        fflush(stdout);
    }
}

/* The shape cesync issued until the eleventh session, below and from 8 MiB
 * per rank (the local half forked at the start, after the ready barrier);
 * since then a complete barrier behind 64 MiB of peer copies is two memop
 * calls (probe_large_shapes). */
static const struct a2a_shape issued_start = {POLLED, POLLED, NONE, DEVICE, FORK_AT_START,
                                              PEER_WITH_BARRIERS, "as cesync"},
                              issued_late = {POLLED, POLLED, NONE, DEVICE, FORK_AFTER_READY,
                                             PEER_WITH_BARRIERS, "as cesync"};

#define PICKS 8
#define PICK_ROUNDS 12

/* Whether the two modes go with the streams: the 1 MiB alltoall loop as
 * cesync issues it with its side stream (the local half's), then its
 * barrier stream, one of PICKS streams created for the purpose on each GPU,
 * the candidates alternating over PICK_ROUNDS rounds.  Per candidate the
 * median loop, the slow loops (5 us over the fastest of all) and their
 * pattern by round: a candidate slow in every round and another fast in
 * every round would say the mode follows the stream; slow rounds across
 * the candidates, that it follows the time. */
static void probe_stream_pick(void)
{
    cudaStream_t cand[2][PICKS], keep[2][2];

    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        keep[g][0] = G[g].st;
        keep[g][1] = G[g].side;
        for (int j = 0; j < PICKS; j++)
            CK(cudaStreamCreateWithFlags(&cand[g][j], cudaStreamNonBlocking));
    }
    for (int part = 0; part < 2; part++) {
        double med[PICKS][PICK_ROUNDS], best = 1e30;

        for (int r = 0; r < PICK_ROUNDS; r++)
            for (int j = 0; j < PICKS; j++) {
                for (int g = 0; g < 2; g++)
                    *(part == 0 ? &G[g].side : &G[g].st) = cand[g][j];
                med[j][r] = mode_loop(&issued_start, 1u << 20);
                if (med[j][r] < best)
                    best = med[j][r];
            }
        for (int g = 0; g < 2; g++) {
            G[g].st = keep[g][0];
            G[g].side = keep[g][1];
        }
        printf("== stream pick: the %s stream one of %d, %d rounds (1 MiB, median us per loop)\n",
               part == 0 ? "side" : "barrier", PICKS, PICK_ROUNDS);
        for (int j = 0; j < PICKS; j++) {
            double s[PICK_ROUNDS];
            int slow = 0;

            memcpy(s, med[j], sizeof(s));
            qsort(s, PICK_ROUNDS, sizeof(double), cmp_double);
            printf("candidate %d  median %6.2f min %6.2f max %6.2f  ", j, s[PICK_ROUNDS / 2], s[0],
                   s[PICK_ROUNDS - 1]);
            for (int r = 0; r < PICK_ROUNDS; r++) {
                slow += med[j][r] > best + 5.0;
                putchar(med[j][r] > best + 5.0 ? 'S' : '.');
            }
            printf("  slow %d\n", slow);
        }
        fflush(stdout);
    }
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        for (int j = 0; j < PICKS; j++)
            CK(cudaStreamDestroy(cand[g][j]));
    }
}

/* Where to fork the local half, by size: at the start against after the
 * ready barrier. */
static void probe_fork_point(void)
{
    static const struct a2a_shape at_start = {POLLED, POLLED, NONE, DEVICE, FORK_AT_START,
                                              PEER_WITH_BARRIERS, "fork at start"},
                                  after = {POLLED, POLLED, NONE, DEVICE, FORK_AFTER_READY,
                                           PEER_WITH_BARRIERS, "fork after the ready barrier"};
    const struct a2a_shape *const shape[2][2] = {{&at_start, &at_start}, {&after, &after}};

    by_size("fork point by size", shape);
}

/* The peer half on a stream gated by the ready flags (PEER_FLAGGED) by
 * size against the shape cesync issued, twice. */
static void probe_flagged(void)
{
    static const struct a2a_shape start_flag = {POLLED, POLLED, NONE, DEVICE, FORK_AT_START,
                                                PEER_FLAGGED, "peer half flagged"},
                                  late_flag = {POLLED, POLLED, NONE, DEVICE, FORK_AFTER_READY,
                                               PEER_FLAGGED, "peer half flagged"};
    const struct a2a_shape *const shape[2][2] = {{&issued_start, &issued_late},
                                                 {&start_flag, &late_flag}};

    by_size("peer half gated by the flags, by size", shape);
    by_size("peer half gated by the flags, by size (again)", shape);
}

/* The local half forked at the start, its stream waiting for the peer's
 * ready flag before the local copy (FORK_GATED: the peer copy should start
 * first without an event after the ready barrier), against the shape cesync
 * issues. */
static void probe_fork_gated(void)
{
    static const struct a2a_shape gated = {POLLED, POLLED, NONE, DEVICE, FORK_GATED,
                                           PEER_WITH_BARRIERS, "fork gated"};
    const struct a2a_shape *const shape[2][2] = {{&issued_start, &issued_late}, {&gated, &gated}};

    by_size("local half forked at the start, gated by the peer's ready flag", shape);
    by_size("local half forked at the start, gated (again)", shape);
}

/* The alltoall loop of probe_modes at `bytes` per rank, ALT_LOOPS loops of
 * each of the n shapes, alternating; per shape the median and the fastest
 * loop median and the loops slower than the fastest of all shapes' loops
 * + 5 us. */
#define ALT_LOOPS 40
#define ALT_SHAPES 8

static void alternate(const char *title, const struct a2a_shape *shapes, size_t n, size_t bytes)
{
    double med[ALT_SHAPES][ALT_LOOPS], best = 1e30;

    printf("== %s, %zu MiB per rank: %d loops per shape, alternating\n", title, bytes >> 20,
           ALT_LOOPS);
    for (int l = 0; l < ALT_LOOPS; l++)
        for (size_t k = 0; k < n && k < ALT_SHAPES; k++) {
            med[k][l] = mode_loop(&shapes[k], bytes);
            if (med[k][l] < best)
                best = med[k][l];
        }
    for (size_t k = 0; k < n && k < ALT_SHAPES; k++) {
        int slow = 0;

        qsort(med[k], ALT_LOOPS, sizeof(double), cmp_double);
        for (int l = 0; l < ALT_LOOPS; l++)
            slow += med[k][l] > best + 5.0;
        printf("%-26s median %7.2f min %7.2f max %7.2f slow %2d\n", shapes[k].name,
               med[k][ALT_LOOPS / 2], med[k][0], med[k][ALT_LOOPS - 1], slow);
    }
    fflush(stdout);
}

/* Large sizes (the local half forked after the ready barrier): the shape
 * cesync issued until the eleventh session against either barrier as two
 * memop batches and the peer half apart, 64 and 128 MiB. */
static void probe_large_shapes(void)
{
    static const struct a2a_shape shapes[] = {
        {POLLED, POLLED, NONE, DEVICE, FORK_AFTER_READY, PEER_WITH_BARRIERS, "as cesync"},
        {POLLED, POLLED_SPLIT, NONE, DEVICE, FORK_AFTER_READY, PEER_WITH_BARRIERS,
         "complete as two batches"},
        {POLLED_SPLIT, POLLED, NONE, DEVICE, FORK_AFTER_READY, PEER_WITH_BARRIERS,
         "ready as two batches"},
        {POLLED_SPLIT, POLLED_SPLIT, NONE, DEVICE, FORK_AFTER_READY, PEER_WITH_BARRIERS,
         "both as two batches"},
        {POLLED, POLLED, NONE, DEVICE, FORK_AFTER_READY, PEER_APART, "peer half apart"},
    };

    alternate("large sizes", shapes, sizeof(shapes) / sizeof(shapes[0]), 64u << 20);
    alternate("large sizes", shapes, sizeof(shapes) / sizeof(shapes[0]), 128u << 20);
}

/* n shapes alternating at 1 MiB per rank (small: the local half forked at
 * the start) and at 64 and 128 MiB (large: forked after the ready barrier). */
static void three_sizes(const char *title, const struct a2a_shape *small,
                        const struct a2a_shape *large, size_t n)
{
    alternate(title, small, n, 1u << 20);
    alternate(title, large, n, 64u << 20);
    alternate(title, large, n, 128u << 20);
}

/* The complete barrier's flag written by a copy-engine copy after the peer
 * copy (polled: into the own slot; pushed: into the peer's), then the wait,
 * against the shape cesync issues, 1, 64 and 128 MiB per rank. */
static void probe_flag_copy(void)
{
    static const struct a2a_shape small[] = {
        {POLLED, POLLED, NONE, DEVICE, FORK_AT_START, PEER_WITH_BARRIERS, "as cesync"},
        {POLLED, POLLED_COPY, NONE, DEVICE, FORK_AT_START, PEER_WITH_BARRIERS,
         "flag copy, polled"},
        {POLLED, PUSHED_COPY, NONE, DEVICE, FORK_AT_START, PEER_WITH_BARRIERS,
         "flag copy, pushed"},
    },
                                  large[] = {
        {POLLED, POLLED_SPLIT, NONE, DEVICE, FORK_AFTER_READY, PEER_WITH_BARRIERS, "as cesync"},
        {POLLED, POLLED_COPY, NONE, DEVICE, FORK_AFTER_READY, PEER_WITH_BARRIERS,
         "flag copy, polled"},
        {POLLED, PUSHED_COPY, NONE, DEVICE, FORK_AFTER_READY, PEER_WITH_BARRIERS,
         "flag copy, pushed"},
    };
    three_sizes("complete flag by copy", small, large, sizeof(large) / sizeof(large[0]));
}

/* Where the complete barrier's wait and the progress write go: the wait on
 * the side stream, behind the local half (POLLED_SIDE, POLLED_SIDE_LATE),
 * the progress write before the wait (EARLY), against the shape cesync
 * issues and that shape without its progress write, 1, 64 and 128 MiB per
 * rank. */
static void probe_side_wait(void)
{
    static const struct a2a_shape small[] = {
        {POLLED, POLLED, NONE, DEVICE, FORK_AT_START, PEER_WITH_BARRIERS, "as cesync"},
        {POLLED, POLLED, NONE, NONE, FORK_AT_START, PEER_WITH_BARRIERS, "no progress write"},
        {POLLED, POLLED, NONE, EARLY, FORK_AT_START, PEER_WITH_BARRIERS,
         "progress before the wait"},
        {POLLED, POLLED_SIDE, NONE, DEVICE, FORK_AT_START, PEER_WITH_BARRIERS, "wait on side"},
        {POLLED, POLLED_SIDE_LATE, NONE, DEVICE, FORK_AT_START, PEER_WITH_BARRIERS,
         "wait on side, progress late"},
    },
                                  large[] = {
        {POLLED, POLLED_SPLIT, NONE, DEVICE, FORK_AFTER_READY, PEER_WITH_BARRIERS, "as cesync"},
        {POLLED, POLLED_SPLIT, NONE, NONE, FORK_AFTER_READY, PEER_WITH_BARRIERS,
         "no progress write"},
        {POLLED, POLLED_SPLIT, NONE, EARLY, FORK_AFTER_READY, PEER_WITH_BARRIERS,
         "progress before the wait"},
        {POLLED, POLLED_SIDE, NONE, DEVICE, FORK_AFTER_READY, PEER_WITH_BARRIERS, "wait on side"},
        {POLLED, POLLED_SIDE_LATE, NONE, DEVICE, FORK_AFTER_READY, PEER_WITH_BARRIERS,
         "wait on side, progress late"},
    };
    for (int rep = 0; rep < 2; rep++)
        three_sizes("complete wait and progress write", small, large,
                    sizeof(large) / sizeof(large[0]));
}

/* A one-way shape (rooted_loop) with the barriers as cesync issues them
 * (ONE_WAY: polled, the progress write after the complete barrier's wait)
 * or as given (ONE_WAY_AS). */
#define ONE_WAY_AS(r, c, local, peer, name) {r, c, NONE, DEVICE, local, peer, name}
#define ONE_WAY(local, peer, name) ONE_WAY_AS(POLLED, POLLED, local, peer, name)

/* reps rounds of alternate() over the n shapes at 1 MiB, 4 MiB, ... up to
 * max bytes per rank. */
static void one_way_rounds(const char *title, const struct a2a_shape *shapes, size_t n,
                           size_t max, int reps)
{
    for (int rep = 0; rep < reps; rep++)
        for (size_t b = 1u << 20; b <= max; b *= 4)
            alternate(title, shapes, n, b);
}

/* Why the rooted collectives' small sizes run slow (broadcast and scatter
 * out of place, all three in place: 22-27 us at 1 MiB, where gather, whose
 * root forks its local copy, and allgather in place run at 15-16): the
 * one-way shape with GPU 0, which only waits, idle, forking a local copy
 * of the size or of 4 KiB at the start, after the ready barrier, or copying
 * it on its barrier stream; with GPU 1's own local copy forked (broadcast
 * out of place); with pushed barriers; against both GPUs pushing; 1, 4 and
 * 16 MiB, twice. */
static void probe_one_way(void)
{
    static const struct a2a_shape shapes[] = {
        ONE_WAY(NO_LOCAL, PEER_ONE_WAY, "one way, waiter idle"),
        ONE_WAY(FORK_AT_START, PEER_ONE_WAY, "waiter forks B at start"),
        ONE_WAY(FORK_SMALL, PEER_ONE_WAY, "waiter forks 4K at start"),
        ONE_WAY(FORK_AFTER_READY, PEER_ONE_WAY, "waiter forks B after ready"),
        ONE_WAY(ON_BARRIER_STREAM, PEER_ONE_WAY, "waiter copies B inline"),
        ONE_WAY(NO_LOCAL, PEER_ONE_WAY_ROOT, "root forks B (bcast)"),
        ONE_WAY_AS(PUSHED, PUSHED, NO_LOCAL, PEER_ONE_WAY, "pushed, waiter idle"),
        ONE_WAY(NO_LOCAL, PEER_BOTH_PUSH, "both push (control)"),
    };

    one_way_rounds("one way", shapes, sizeof(shapes) / sizeof(shapes[0]), 16u << 20, 2);
}

/* The one-way shape's flags written by copies (as NCCL 2.29+ writes its
 * flags: a 4-byte copy-engine copy from a word holding the value), pushed
 * into the waiter's memory or polled, either barrier, against GPU 0 forking
 * a local copy that ends about when the push does, and against both GPUs
 * pushing; 1, 4 and 16 MiB, twice. */
static void probe_one_way_flags(void)
{
    static const struct a2a_shape shapes[] = {
        ONE_WAY(NO_LOCAL, PEER_ONE_WAY, "one way, waiter idle"),
        ONE_WAY_AS(POLLED, PUSHED_COPY, NO_LOCAL, PEER_ONE_WAY, "complete pushed by copy"),
        ONE_WAY_AS(PUSHED_COPY, PUSHED_COPY, NO_LOCAL, PEER_ONE_WAY, "both pushed by copy"),
        ONE_WAY_AS(POLLED, POLLED_COPY, NO_LOCAL, PEER_ONE_WAY, "complete polled by copy"),
        ONE_WAY(FORK_BIG, PEER_ONE_WAY, "waiter forks 4B at start"),
        ONE_WAY_AS(POLLED, PUSHED_COPY, NO_LOCAL, PEER_ONE_WAY_ROOT, "bcast, complete by copy"),
        ONE_WAY(NO_LOCAL, PEER_BOTH_PUSH, "both push (control)"),
        ONE_WAY_AS(POLLED, PUSHED_COPY, NO_LOCAL, PEER_BOTH_PUSH, "both push, complete by copy"),
    };

    one_way_rounds("one way, flags by copy", shapes, sizeof(shapes) / sizeof(shapes[0]),
                   16u << 20, 2);
}

/* The median of N forked keep-alives `where` alone on both GPUs, in us. */
static double keep_alone(enum local_half where)
{
    double min;

    begin();
    for (int i = 1; i <= N; i++)
        for (int g = 0; g < 2; g++) {
            CK(cudaSetDevice(g));
            CK(cudaEventRecord(G[g].it0[i], G[g].st));
            CK(cudaEventRecord(G[g].fork[i], G[g].st));
            CK(cudaStreamWaitEvent(G[g].side, G[g].fork[i], 0));
            keep_alive(g, where, G[g].recv + BIG / 2, G[g].send + BIG / 2, 0);
            CK(cudaEventRecord(G[g].join[i], G[g].side));
            CK(cudaStreamWaitEvent(G[g].st, G[g].join[i], 0));
            CK(cudaEventRecord(G[g].it1[i], G[g].st));
        }
    finish();
    return iter_median(&min);
}

/* What keeps the one-way waiter's wait fast, and at what cost: GPU 0
 * forking at the start a local copy of four or two times the size, an
 * eighth of the size to host memory, a quarter of it pushed back to GPU 1;
 * broadcast out of place with the first; how long a batch of 64 or 256
 * local 4 KiB copies takes alone (as a keep-alive those ran far longer
 * than the push: probe_one_way_light sizes them); 1, 4 and 16 MiB, twice. */
static void probe_one_way_keep(void)
{
    static const struct a2a_shape shapes[] = {
        ONE_WAY(NO_LOCAL, PEER_ONE_WAY, "one way, waiter idle"),
        ONE_WAY(FORK_BIG, PEER_ONE_WAY, "waiter forks 4B at start"),
        ONE_WAY(FORK_2B, PEER_ONE_WAY, "waiter forks 2B at start"),
        ONE_WAY(TO_HOST, PEER_ONE_WAY, "waiter forks B/8 to host"),
        ONE_WAY(REVERSE, PEER_ONE_WAY, "waiter forks B/4 back"),
        ONE_WAY(FORK_BIG, PEER_ONE_WAY_ROOT, "bcast, waiter forks 4B"),
    };

    printf("a batch of 64 x 4K alone: median %.2f us; 256 x 4K: %.2f us\n",
           keep_alone(CHAIN_64), keep_alone(CHAIN_256));
    one_way_rounds("one way, keep-alive", shapes, sizeof(shapes) / sizeof(shapes[0]),
                   16u << 20, 2);
}

/* Does the waiter's keep-alive need the local copy's bandwidth, or only a
 * copy in flight until near the end: light keep-alives (a batch of 4 KiB
 * copies, a 2D copy of short rows, each timed alone first and sized to
 * last about 78 % of the push, as the local copy of 4B does) and a quarter
 * of the size to host memory, against the idle waiter and 2B; 1, 4 and
 * 16 MiB, twice. */
static void probe_one_way_light(void)
{
    static const struct a2a_shape shapes[] = {
        ONE_WAY(NO_LOCAL, PEER_ONE_WAY, "one way, waiter idle"),
        ONE_WAY(FORK_2B, PEER_ONE_WAY, "waiter forks 2B at start"),
        ONE_WAY(CHAIN_TIMED, PEER_ONE_WAY, "waiter forks 4K chain"),
        ONE_WAY(ROWS_TIMED, PEER_ONE_WAY, "waiter forks 2D rows"),
        ONE_WAY(TO_HOST_QUARTER, PEER_ONE_WAY, "waiter forks B/4 to host"),
    };
    size_t n = sizeof(shapes) / sizeof(shapes[0]);

    light_us = 4 * 3.2;
    light_per_copy_us = keep_alone(CHAIN_TIMED) / 4;
    light_us = 4096 * 0.01;
    light_per_row_us = keep_alone(ROWS_TIMED) / 4096;
    light_us = 16384 * light_per_row_us;
    printf("keep-alive alone: 4 x 4K batch %.2f us a copy; 2D rows %.4f us a row "
           "(16384 rows %.2f us)\n",
           light_per_copy_us, light_per_row_us, keep_alone(ROWS_TIMED));
    for (int rep = 0; rep < 2; rep++)
        for (size_t b = 1u << 20; b <= 16u << 20; b *= 4) {
            light_us = 0.78 * (5.2 + (double)b / 394e3);
            printf("keep-alive %.1f us: %zu copies, %zu rows\n", light_us,
                   light_count(light_per_copy_us), light_count(light_per_row_us));
            alternate("one way, light", shapes, n, b);
        }
}

/* Is the waiter's local copy of four times the size (fast in two
 * processes, where twice the size was fast in one and slow in the next) a
 * steady cure: against two and eight times, four forked after the ready
 * barrier, broadcast out of place with it; 1 and 4 MiB three times, 16
 * MiB once. */
static void probe_one_way_4b(void)
{
    static const struct a2a_shape shapes[] = {
        ONE_WAY(NO_LOCAL, PEER_ONE_WAY, "one way, waiter idle"),
        ONE_WAY(FORK_2B, PEER_ONE_WAY, "waiter forks 2B at start"),
        ONE_WAY(FORK_BIG, PEER_ONE_WAY, "waiter forks 4B at start"),
        ONE_WAY(FORK_8B, PEER_ONE_WAY, "waiter forks 8B at start"),
        ONE_WAY(FORK_4B_LATE, PEER_ONE_WAY, "waiter forks 4B late"),
        ONE_WAY(FORK_BIG, PEER_ONE_WAY_ROOT, "bcast, waiter forks 4B"),
    };
    size_t n = sizeof(shapes) / sizeof(shapes[0]);

    one_way_rounds("one way, 4B", shapes, n, 4u << 20, 3);
    alternate("one way, 4B", shapes, n, 16u << 20);
}

/* The one-way bytes half pushed by GPU 1 and half pulled by GPU 0, so that
 * both GPUs copy until the end, as the both-ways shape does; GPU 0 pulling
 * it all (GPU 1 idle); 1, 4, 16 and 64 MiB, twice. */
static void probe_one_way_split(void)
{
    static const struct a2a_shape shapes[] = {
        ONE_WAY(NO_LOCAL, PEER_ONE_WAY, "one way, waiter idle"),
        ONE_WAY(NO_LOCAL, PEER_SPLIT, "half pushed, half pulled"),
        ONE_WAY(NO_LOCAL, PEER_PULL, "all pulled"),
        ONE_WAY(NO_LOCAL, PEER_ONE_WAY_ROOT, "bcast"),
        ONE_WAY(NO_LOCAL, PEER_SPLIT_ROOT, "bcast, half pulled"),
        ONE_WAY(NO_LOCAL, PEER_BOTH_PUSH, "both push (control)"),
    };

    one_way_rounds("one way, split", shapes, sizeof(shapes) / sizeof(shapes[0]), 64u << 20, 2);
}

/* The keep-alive that worked (a local copy of twice the size forked on the
 * waiter) by when it is forked and how it is cut, with broadcast out of
 * place, and on both GPUs of the both-ways shape (allgather in place),
 * whose slow loops come and go; 1, 4, 16 and 64 MiB. */
static void probe_one_way_2b(void)
{
    static const struct a2a_shape shapes[] = {
        ONE_WAY(NO_LOCAL, PEER_ONE_WAY, "one way, waiter idle"),
        ONE_WAY(FORK_2B, PEER_ONE_WAY, "waiter forks 2B at start"),
        ONE_WAY(FORK_2B_LATE, PEER_ONE_WAY, "waiter forks 2B late"),
        ONE_WAY(FORK_TWO_B, PEER_ONE_WAY, "waiter forks 2 x B"),
        ONE_WAY(FORK_2B, PEER_ONE_WAY_ROOT, "bcast, waiter forks 2B"),
        ONE_WAY(NO_LOCAL, PEER_BOTH_PUSH, "both push"),
        ONE_WAY(FORK_2B, PEER_BOTH_PUSH, "both push, both fork 2B"),
        ONE_WAY(FORK_AT_START, PEER_BOTH_PUSH, "both push, both fork B"),
    };

    one_way_rounds("one way, 2B", shapes, sizeof(shapes) / sizeof(shapes[0]), 64u << 20, 1);
}

/* What the local half costs the peer copy at large sizes: the shape cesync
 * issues against no local half, its first LOCAL_HEAD bytes forked at the
 * start, and the local half as a cudaMemcpyAsync, 64 and 128 MiB per rank. */
static void probe_local_cost(void)
{
    static const struct a2a_shape large[] = {
        {POLLED, POLLED_SPLIT, NONE, DEVICE, FORK_AFTER_READY, PEER_WITH_BARRIERS, "as cesync"},
        {POLLED, POLLED_SPLIT, NONE, DEVICE, NO_LOCAL, PEER_WITH_BARRIERS, "no local half"},
        {POLLED, POLLED_SPLIT, NONE, DEVICE, FORK_SPLIT, PEER_WITH_BARRIERS,
         "8 MiB of it at the start"},
        {POLLED, POLLED_SPLIT, NONE, DEVICE, FORK_LATE_MEMCPY, PEER_WITH_BARRIERS,
         "local by cudaMemcpyAsync"},
    };
    const char *title = "the local half's cost";

    for (int rep = 0; rep < 2; rep++) {
        alternate(title, large, sizeof(large) / sizeof(large[0]), 64u << 20);
        alternate(title, large, sizeof(large) / sizeof(large[0]), 128u << 20);
    }
}

/* The head of the peer half staged before the ready wait (PEER_HEAD) with
 * heads of 4 MiB (also without the copy-out, which leaves the head's bytes
 * in the stage buffer: timing only) and 1 MiB, against the shape cesync
 * issues (the complete barrier as two memop calls from 64 MiB), 64 and
 * 128 MiB per rank, 40 loops of each, alternating. */
static void probe_head(void)
{
    static const struct a2a_shape issued = {POLLED, POLLED_SPLIT, NONE, DEVICE, FORK_AFTER_READY,
                                            PEER_WITH_BARRIERS, "as cesync"},
                                  head = {POLLED, POLLED_SPLIT, NONE, DEVICE, FORK_AFTER_READY,
                                          PEER_HEAD, "head staged"};
    static const size_t sizes[] = {64u << 20, 128u << 20}, heads[] = {4u << 20, 4u << 20, 1u << 20};
    enum { SHAPES = 4, LOOPS = 40 };

    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        double med[SHAPES][LOOPS];

        printf("== head staged, %zu MiB per rank: %d loops per shape, alternating\n",
               sizes[z] >> 20, LOOPS);
        for (int l = 0; l < LOOPS; l++)
            for (size_t k = 0; k < SHAPES; k++) {
                head_bytes = k == 0 ? 0 : heads[k - 1];
                head_bare = k == 2;
                med[k][l] = mode_loop(k == 0 ? &issued : &head, sizes[z]);
            }
        for (size_t k = 0; k < SHAPES; k++) {
            qsort(med[k], LOOPS, sizeof(double), cmp_double);
            printf("%-12s head %4zu KiB%s  median %7.2f min %7.2f max %7.2f\n",
                   k == 0 ? issued.name : head.name, k == 0 ? 0 : heads[k - 1] >> 10,
                   k == 2 ? " (no copy-out)" : "",
                   med[k][LOOPS / 2], med[k][0], med[k][LOOPS - 1]);
        }
        fflush(stdout);
    }
}

/* The peer half on a stream of its own (the barrier stream holds only the
 * barriers and events), against the shape cesync issues (the local half
 * forked at the start below 8 MiB, after the ready barrier from 8 MiB). */
static void probe_peer_apart(void)
{
    static const struct a2a_shape start_apart = {POLLED, POLLED, NONE, DEVICE, FORK_AT_START,
                                                 PEER_APART, "peer half apart"},
                                  late_apart = {POLLED, POLLED, NONE, DEVICE, FORK_AFTER_READY,
                                                PEER_APART, "peer half apart"};
    const struct a2a_shape *const shape[2][2] = {{&issued_start, &issued_late},
                                                 {&start_apart, &late_apart}};

    by_size("peer half apart by size", shape);
}

/* A local and a peer copy of c bytes each on GPU g (both GPUs at once, g
 * copying to 1-g), N times back to back, median us per pair on GPU 0: each
 * alone, as one batch in either order (the `plain` collective's batch), as
 * two cudaMemcpyAsync, and the local one forked onto the side stream.
 * Measured: docs/PERFORMANCE.md "How well it predicts". */
static void probe_copy_pairs(void)
{
    static const size_t sizes[] = {256u << 10, 1u << 20, 2u << 20, 4u << 20,
                                   8u << 20,   16u << 20, 32u << 20};
    static const char *names[] = {"peer",         "local",        "[local,peer]",
                                  "[peer,local]", "two memcpys", "local forked"};

    puts("== a local and a peer copy of c bytes, both GPUs at once (median us on GPU 0)");
    printf("%10s", "c KiB");
    for (int k = 0; k < 6; k++)
        printf(" %13s", names[k]);
    putchar('\n');
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        size_t c = sizes[z];

        printf("%10zu", c >> 10);
        for (int k = 0; k < 6; k++) {
            double v[N];

            begin();
            for (int i = 1; i <= N; i++)
                for (int g = 0; g < 2; g++) {
                    struct gpu *x = &G[g];
                    void *d[2] = {x->recv, G[1 - g].recv + c}; /* local, peer */
                    const void *src[2] = {x->send, x->send + c};
                    size_t n[2] = {c, c};

                    CK(cudaSetDevice(g));
                    CK(cudaEventRecord(x->it0[i], x->st));
                    if (k == 0 || k == 1) {
                        copy1(d[1 - k], src[1 - k], c, x->st);
                    } else if (k == 2) {
                        copies(d, src, n, 2, x->st);
                    } else if (k == 3) {
                        void *rd[2] = {d[1], d[0]};
                        const void *rs[2] = {src[1], src[0]};

                        copies(rd, rs, n, 2, x->st);
                    } else if (k == 4) {
                        CK(cudaMemcpyAsync(d[0], src[0], c, cudaMemcpyDeviceToDevice, x->st));
                        CK(cudaMemcpyAsync(d[1], src[1], c, cudaMemcpyDeviceToDevice, x->st));
                    } else {
                        CK(cudaEventRecord(x->fork[i], x->st));
                        CK(cudaStreamWaitEvent(x->side, x->fork[i], 0));
                        copy1(d[0], src[0], c, x->side);
                        CK(cudaEventRecord(x->join[i], x->side));
                        copy1(d[1], src[1], c, x->st);
                        CK(cudaStreamWaitEvent(x->st, x->join[i], 0));
                    }
                    CK(cudaEventRecord(x->it1[i], x->st));
                }
            finish();
            CK(cudaSetDevice(0));
            for (int i = 1; i <= N; i++) {
                float ms;

                CK(cudaEventElapsedTime(&ms, G[0].it0[i], G[0].it1[i]));
                v[i - 1] = 1000.0 * ms;
            }
            qsort(v, N, sizeof(v[0]), cmp_double);
            printf(" %13.2f", v[N / 2]);
        }
        putchar('\n');
        fflush(stdout);
    }
}

/* How soon a wait sees a flag, by shape: a ping-pong of N rounds, GPU 0
 * writes GPU 1's flag and waits for the answer, GPU 1 waits and answers;
 * the time per round (two flag trips).  Pushed: each flag lives in its
 * waiter's memory; polled: in its writer's, the waiter polls it across the
 * link.  GPU 0's write and wait as two memop batches or as one (the barrier
 * shape); GPU 1 always waits in one batch and answers in the next, after a
 * local copy of `copy` bytes when that is not 0 (the staged receiver's
 * copy-out: what a copy costs inside the round). */
static void probe_flag_shapes(void)
{
    static const struct {
        int pushed, one_batch;
        size_t copy;
        const char *name;
    } cases[] = {
        {1, 0, 0, "ping-pong, pushed, GPU 0 write | wait"},
        {0, 0, 0, "ping-pong, polled, GPU 0 write | wait"},
        {1, 1, 0, "ping-pong, pushed, GPU 0 write+wait in one batch"},
        {0, 1, 0, "ping-pong, polled, GPU 0 write+wait in one batch"},
        {1, 1, 4096, "... pushed, one batch, GPU 1 copies 4 KiB locally first"},
        {1, 1, 1u << 20, "... pushed, one batch, GPU 1 copies 1 MiB locally first"},
        {1, 1, 16u << 20, "... pushed, one batch, GPU 1 copies 16 MiB locally first"},
    };

    puts("== flag round trips by shape (time per round)");
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        int pu = cases[c].pushed;

        begin();
        for (uint32_t i = 1; i <= N; i++) {
            /* flag 30: GPU 0 -> GPU 1, flag 31: GPU 1 -> GPU 0 */
            CUstreamBatchMemOpParams q[2] = {write32(pu ? flag(1, 30) : flag(0, 30), i),
                                             wait32(pu ? flag(0, 31) : flag(1, 31), i)};
            CUstreamBatchMemOpParams w = wait32(pu ? flag(1, 30) : flag(0, 30), i);
            CUstreamBatchMemOpParams a = write32(pu ? flag(0, 31) : flag(1, 31), i);

            CK(cudaSetDevice(0));
            if (cases[c].one_batch) {
                batch(0, q, 2);
            } else {
                batch(0, &q[0], 1);
                batch(0, &q[1], 1);
            }
            CK(cudaSetDevice(1));
            batch(1, &w, 1);
            if (cases[c].copy > 0)
                copy1(G[1].recv, G[1].stage, cases[c].copy, G[1].st);
            batch(1, &a, 1);
        }
        end(cases[c].name, 0);
    }
}

/* What a copy costs after a satisfied wait on its stream, by kind and size
 * (GPU 0 alone, N rounds of a one-wait memop batch and one copy), against
 * the same copies back to back: the cost model charges every copy the
 * fixed cost of a lone peer copy between events. */
static void probe_copy_after_wait(void)
{
    static const size_t sizes[] = {4096, 1u << 20, 16u << 20};

    puts("== a copy after a satisfied wait (GPU 0, time per round)");
    for (int peer = 0; peer < 2; peer++)
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
            for (int wait = 0; wait < 2; wait++) {
                char name[80];

                snprintf(name, sizeof(name), "%s copy of %zu KiB%s", peer ? "peer" : "local",
                         sizes[k] >> 10, wait ? " after a wait" : ", back to back");
                begin();
                CK(cudaSetDevice(0));
                for (uint32_t i = 1; i <= N; i++) {
                    CUstreamBatchMemOpParams q = wait32(flag(0, 20), 0);

                    if (wait)
                        batch(0, &q, 1);
                    copy1(peer ? (void *)G[1].recv : (void *)G[0].recv, G[0].send, sizes[k],
                          G[0].st);
                }
                end(name, 0);
            }
}

/* A 64 MiB peer copy and a 32 MiB local copy on two streams of each GPU (both
 * GPUs at once, GPU g copying to 1-g), by which starts first: the local copy
 * waits for a flag its GPU writes right before the peer copy (local later,
 * about a memop's latency), or the peer copy waits for one written before
 * the local copy (local earlier), or each alone.  The time per round is
 * from the first stream's start to the later stream's end. */
static void probe_copy_order(void)
{
    static const char *names[] = {"peer 64 MiB alone", "local 32 MiB alone",
                                  "peer, then local (flag before peer)",
                                  "local, then peer (flag before local)"};
    size_t pb = 64u << 20, lb = 32u << 20;

    puts("== a peer and a local copy on two streams, by start order (both GPUs)");
    for (int k = 0; k < 4; k++) {
        begin();
        for (int g = 0; g < 2; g++) {
            CK(cudaSetDevice(g));
            DK(cuStreamWaitValue32((CUstream)G[g].side, gate_dev, 1, CU_STREAM_WAIT_VALUE_GEQ));
        }
        for (uint32_t i = 1; i <= N; i++)
            for (int g = 0; g < 2; g++) {
                struct gpu *x = &G[g];
                CUstreamBatchMemOpParams go = write32(flag(g, 40), i), wait = wait32(flag(g, 40), i);

                CK(cudaSetDevice(g));
                if (k == 0) {
                    copy1(G[1 - g].recv, x->send, pb, x->st);
                } else if (k == 1) {
                    copy1(x->recv + pb, x->send + pb, lb, x->st);
                } else {
                    /* k 2: the peer stream writes the flag, the local one waits */
                    DK(cuStreamBatchMemOp((CUstream)(k == 2 ? x->st : x->side), 1, &go, 0));
                    DK(cuStreamBatchMemOp((CUstream)(k == 2 ? x->side : x->st), 1, &wait, 0));
                    copy1(G[1 - g].recv, x->send, pb, x->st);
                    copy1(x->recv + pb, x->send + pb, lb, x->side);
                    CK(cudaEventRecord(x->fork[i], x->st));
                    CK(cudaStreamWaitEvent(x->side, x->fork[i], 0));
                    CK(cudaEventRecord(x->join[i], x->side));
                    CK(cudaStreamWaitEvent(x->st, x->join[i], 0));
                }
            }
        for (int g = 0; g < 2; g++) {
            CK(cudaSetDevice(g));
            CK(cudaEventRecord(G[g].join[0], G[g].side));
            CK(cudaStreamWaitEvent(G[g].st, G[g].join[0], 0));
        }
        end(names[k], 0);
    }
}

/* Back-to-back 64 MiB copies GPU0 -> GPU1 with `what` between them: a
 * memop, an 8-byte copy (a flag written by the copy engine, as NCCL 2.29
 * does), one or two timing event records (what `cesync bench` puts
 * between two iterations: two until the fourth session, one since), or the
 * flag written from a second stream behind an event without timing, the
 * copy stream waiting for a (met) credit only every k-th copy. */
enum gap {
    GAP_WAIT = 1u,      /* a satisfied wait (one memop batch) */
    GAP_WRITE = 2u,     /* a remote flag write (one memop batch; with GAP_WAIT the same one) */
    GAP_TIMING = 4u,    /* a timing event record */
    GAP_TIMING2 = 8u,   /* a second one */
    GAP_COPY8 = 16u,    /* an 8-byte copy into a peer flag */
    GAP_SIDE = 32u,     /* an event without timing; the side stream awaits it, writes the flag */
    GAP_AWAIT = 64u,    /* ... and records an event that the copy stream awaits one copy later */
    GAP_JOIN = 128u,    /* ... and records an event that the copy stream awaits at once */
    GAP_OWN = 256u,     /* GAP_WRITE into GPU 0's own memory (a flag its peer polls) */
};

static void probe_copy_gaps(void)
{
    static const struct {
        unsigned what, every; /* GAP_WAIT only every `every`-th copy (0: every copy) */
        const char *name;
    } cases[] = {
        {0, 0, "64 MiB copies back to back"},
        {GAP_WAIT, 0, "... a satisfied wait between"},
        {GAP_WRITE, 0, "... a remote flag write between"},
        {GAP_TIMING, 0, "... one event record between"},
        {GAP_TIMING | GAP_TIMING2, 0, "... two event records between"},
        {GAP_COPY8, 0, "... an 8-byte copy into a peer flag between"},
        {GAP_SIDE, 0, "... flag from a side stream behind an untimed event"},
        {GAP_TIMING | GAP_WRITE | GAP_WAIT, 0, "timing event + write and wait (the staged sender)"},
        {GAP_TIMING | GAP_WRITE, 0, "timing event + a remote flag write"},
        {GAP_TIMING | GAP_WAIT, 0, "timing event + a satisfied wait"},
        {GAP_TIMING | GAP_WRITE | GAP_OWN, 0, "timing event + a flag write to own memory"},
        {GAP_TIMING | GAP_WRITE | GAP_OWN | GAP_WAIT, 0, "timing event + own-memory write and wait"},
        {GAP_TIMING | GAP_COPY8, 0, "timing event + an 8-byte copy into a peer flag"},
        {GAP_TIMING | GAP_SIDE, 0, "timing event + flag from a side stream"},
        {GAP_TIMING | GAP_SIDE | GAP_WAIT, 2, "... + a satisfied wait every 2nd copy"},
        {GAP_TIMING | GAP_SIDE | GAP_WAIT, 4, "... + a satisfied wait every 4th copy"},
        {GAP_TIMING | GAP_SIDE | GAP_AWAIT, 0, "... + the side's event awaited one copy later"},
        {GAP_TIMING | GAP_SIDE | GAP_JOIN, 0, "... + the side's event awaited at once (a join)"},
    };
    size_t b = 64u << 20;

    puts("== memops and events between back-to-back copies (GPU 0 -> GPU 1)");
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        unsigned what = cases[k].what;

        begin();
        CK(cudaSetDevice(0));
        for (uint32_t i = 1; i <= N; i++) {
            CUstreamBatchMemOpParams q[2];
            unsigned n = 0;

            if ((what & GAP_WAIT) && (cases[k].every == 0 || i % cases[k].every == 0))
                q[n++] = wait32(flag(0, 20), 0);
            if (what & GAP_WRITE)
                q[n++] = write32(what & GAP_OWN ? flag(0, 21) : flag(1, 21), i);
            if (n > 0)
                batch(0, q, n);
            if (what & GAP_TIMING)
                CK(cudaEventRecord(G[0].it1[i], G[0].st));
            if (what & GAP_TIMING2)
                CK(cudaEventRecord(G[0].it0[i], G[0].st));
            if (what & GAP_COPY8)
                copy1(G[1].flags + 22, G[0].words, 8, G[0].st);
            if (what & GAP_SIDE) {
                q[0] = write32(flag(1, 21), i);
                CK(cudaEventRecord(G[0].fork[i], G[0].st));
                CK(cudaStreamWaitEvent(G[0].side, G[0].fork[i], 0));
                DK(cuStreamBatchMemOp((CUstream)G[0].side, 1, q, 0));
                if (what & (GAP_AWAIT | GAP_JOIN))
                    CK(cudaEventRecord(G[0].join[i], G[0].side));
                if (what & GAP_JOIN)
                    CK(cudaStreamWaitEvent(G[0].st, G[0].join[i], 0));
                if ((what & GAP_AWAIT) && i > 1)
                    CK(cudaStreamWaitEvent(G[0].st, G[0].join[i - 1], 0));
            }
            copy1(G[1].recv, G[0].send, b, G[0].st);
        }
        end(cases[k].name, 0);
    }
}

/* One case of the staged messages: `slots` staging slots in GPU 1's memory;
 * the sender's batch after message m also waits for credits when m is a
 * multiple of `every`; `sync` 0 issues the sender's copies alone. */
struct staged {
    int sync;
    enum layout l;    /* PUSHED or POLLED */
    int slots, every; /* every <= slots <= SLOTS */
    enum progress progress; /* the watchdog's progress write in every batch that waits */
    int copy_out;     /* the receiver copies the slot out */
    const char *name;
    int backend;      /* as the CUDA backend issues it: copies through cudaMemcpyBatchAsync,
                         the receiver's ops on a second stream forked from and joined into
                         its first every message, and an event record on both first
                         streams after every message (the bench's timing) */
    int side;         /* the sender's flags on a second stream: it awaits the credit of
                         the next message's slot and records an event that the copy
                         stream awaits before that copy, then awaits the copy's
                         (untimed) event and writes full[slot] */
};

/* Messages per staged case: MSGS of 64 MiB, N of smaller sizes (their
 * time per message is short, so more of them dilute the pipeline's fill). */
static int staged_count(size_t bytes) { return bytes >= MSG ? MSGS : N; }

/* Message m (1-based) uses slot (m-1) % slots for the ((m-1) / slots + 1)th time. */
static int slot_of(const struct staged *c, int m) { return (m - 1) % c->slots; }
static uint64_t use_of(const struct staged *c, int m) { return (uint64_t)((m - 1) / c->slots + 1); }

/* A u64 flag whose waiter is GPU `waiter`: pushed it lives in the waiter's
 * memory, polled in its writer's.  full[s] is flag s, credit[s] flag 8 + s. */
static CUdeviceptr staged_flag(enum layout l, int waiter, int i)
{
    return flag64(l == POLLED ? 1 - waiter : waiter, i);
}

static CUdeviceptr progress_word(enum progress pr, int g)
{
    return pr == DEVICE ? word(g, 0) : host_word(g);
}

static void staged_copy(const struct staged *c, void *dst, const void *src, size_t bytes,
                        cudaStream_t s)
{
    if (c->backend)
        copy1(dst, src, bytes, s);
    else
        CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s));
}

/* staged_count(bytes) messages of `bytes` GPU 0 -> GPU 1.  Sender: copy message m into
 * its slot, then one batch: write full[slot] = use count, every `every`th
 * message wait for the credits of the slots of the next `every` messages
 * (>= their use count - 1; none while that is 0; past the last message too,
 * which waits for the receiver to free those slots), and the progress write
 * when the batch waits.  Receiver: wait full[slot] >= use count (+ progress
 * write), copy the slot out, write credit[slot] = use count.  The time runs
 * from the gate to the end, slowest GPU. */
static void staged_messages(const struct staged *c, size_t bytes)
{
    const int full = 0, credit = 8, msgs = staged_count(bytes);
    double us;

    begin();
    for (int m = 1; m <= msgs; m++) {
        int s = slot_of(c, m);
        uint64_t u = use_of(c, m);
        char *slot = G[1].stage + (size_t)s * bytes;
        cudaStream_t rs = c->backend ? G[1].side : G[1].st;
        CUstreamBatchMemOpParams q[SLOTS + 2];
        unsigned n = 0;

        CK(cudaSetDevice(0));
        if (c->side && m > 1)
            CK(cudaStreamWaitEvent(G[0].st, G[0].join[m - 1], 0));
        staged_copy(c, slot, G[0].send, bytes, G[0].st);
        if (c->side) {
            if (use_of(c, m + 1) > 1)
                q[n++] = wait64(staged_flag(c->l, 0, credit + slot_of(c, m + 1)),
                                use_of(c, m + 1) - 1);
            if (c->progress != NONE && n > 0)
                q[n++] = write64(progress_word(c->progress, 0), (uint64_t)m);
            if (n > 0)
                DK(cuStreamBatchMemOp((CUstream)G[0].side, n, q, 0));
            CK(cudaEventRecord(G[0].join[m], G[0].side));
            CK(cudaEventRecord(G[0].fork[m], G[0].st));
            CK(cudaStreamWaitEvent(G[0].side, G[0].fork[m], 0));
            q[0] = write64(staged_flag(c->l, 1, full + s), u);
            DK(cuStreamBatchMemOp((CUstream)G[0].side, 1, q, 0));
        } else if (c->sync) {
            q[n++] = write64(staged_flag(c->l, 1, full + s), u);
            if (m % c->every == 0)
                for (int j = m + 1; j <= m + c->every; j++)
                    if (use_of(c, j) > 1)
                        q[n++] = wait64(staged_flag(c->l, 0, credit + slot_of(c, j)),
                                        use_of(c, j) - 1);
            if (c->progress != NONE && n > 1)
                q[n++] = write64(progress_word(c->progress, 0), (uint64_t)m);
            batch(0, q, n);
        }
        if (c->backend)
            CK(cudaEventRecord(G[0].it1[m], G[0].st));
        if (!c->sync)
            continue;

        CK(cudaSetDevice(1));
        if (c->backend) {
            CK(cudaEventRecord(G[1].fork[m], G[1].st));
            CK(cudaStreamWaitEvent(rs, G[1].fork[m], 0));
        }
        n = 0;
        q[n++] = wait64(staged_flag(c->l, 1, full + s), u);
        if (c->progress != NONE)
            q[n++] = write64(progress_word(c->progress, 1), (uint64_t)m);
        DK(cuStreamBatchMemOp((CUstream)rs, n, q, 0));
        if (c->copy_out)
            staged_copy(c, G[1].recv, slot, bytes, rs);
        q[0] = write64(staged_flag(c->l, 0, credit + s), u);
        DK(cuStreamBatchMemOp((CUstream)rs, 1, q, 0));
        if (c->backend) {
            CK(cudaEventRecord(G[1].join[m], rs));
            CK(cudaStreamWaitEvent(G[1].st, G[1].join[m], 0));
            CK(cudaEventRecord(G[1].it1[m], G[1].st));
        }
    }
    us = finish() * 1000.0 / msgs;
    printf("%-58s %9.2f us/msg  %7.1f GB/s%s\n", c->name, us, (double)bytes / us / 1000.0,
           guard_note());
    fflush(stdout);
}

static void staged_cases(const struct staged *cases, size_t n, size_t bytes)
{
    for (size_t c = 0; c < n; c++)
        staged_messages(&cases[c], bytes);
}

/* One-way 64 MiB messages GPU 0 -> GPU 1 through staging slots in GPU 1's
 * memory.  First N messages through two slots, u32 flags, the sender waiting
 * for the slot's credit before its copy; then the staged_messages cases.
 * Measured (2x H200, two runs), per message: bare copies 172.9-176.6 us;
 * pushed, 2 slots, credit every message 176.0-176.5 (380-381 GB/s) without
 * the progress write, 177.9-178.0 (377) with it; polled 176.9-177.0 without,
 * 178.0-178.5 with; 4 slots, credit every 2nd + progress 176.9-177.2 (379);
 * every 4th 187-188 (the sender then waits out a full round trip); without
 * the receiver's copy-out 176.4-176.9.  The watchdog's progress write costs
 * 1.5-2 us per 64 MiB message; without it the staged protocol reaches 380
 * GB/s. */
static void probe_staged(void)
{
    static const struct staged cases[] = {
        {0, PUSHED, 2, 1, NONE, 0, "bare copies (no sync)", 0, 0},
        {1, PUSHED, 2, 1, NONE, 1, "pushed, 2 slots, credit every message", 0, 0},
        {1, PUSHED, 2, 1, HOST, 1, "pushed, 2 slots, credit every message + progress", 0, 0},
        {1, POLLED, 2, 1, NONE, 1, "polled, 2 slots, credit every message", 0, 0},
        {1, POLLED, 2, 1, HOST, 1, "polled, 2 slots, credit every message + progress", 0, 0},
        {1, PUSHED, 4, 2, NONE, 1, "pushed, 4 slots, credit every 2nd", 0, 0},
        {1, PUSHED, 4, 2, HOST, 1, "pushed, 4 slots, credit every 2nd + progress", 0, 0},
        {1, POLLED, 4, 2, HOST, 1, "polled, 4 slots, credit every 2nd + progress", 0, 0},
        {1, PUSHED, 4, 4, HOST, 1, "pushed, 4 slots, credit every 4th + progress", 0, 0},
        {1, POLLED, 4, 4, HOST, 1, "polled, 4 slots, credit every 4th + progress", 0, 0},
        {1, PUSHED, 2, 1, HOST, 0, "pushed, 2 slots + progress, no receiver copy", 0, 0},
    };
    size_t b = MSG;

    puts("== one-way 64 MiB messages GPU 0 -> GPU 1 through staging slots in GPU 1");
    begin();
    for (uint32_t i = 1; i <= N; i++) {
        int t = (int)(i % 2);
        CUstreamBatchMemOpParams q;

        CK(cudaSetDevice(0));
        q = wait32(flag(0, 2 + t), i >= 2 ? i - 2 : 0);
        batch(0, &q, 1);
        copy1(G[1].stage + t * b, G[0].send, b, G[0].st);
        q = write32(flag(1, 0), i);
        batch(0, &q, 1);
        CK(cudaSetDevice(1));
        q = wait32(flag(1, 0), i);
        batch(1, &q, 1);
        copy1(G[1].recv, G[1].stage + t * b, b, G[1].st);
        q = write32(flag(0, 2 + t), i);
        batch(1, &q, 1);
    }
    end("wait credit | copy | write full (sender)", 0);
    staged_cases(cases, sizeof(cases) / sizeof(cases[0]), MSG);
}

/* One-way 1 MiB messages, where the cost model's staged pipeline misses
 * (it predicts the slot's round trip, not the sender, as the bound): the
 * staged protocol as the backend issues it (`backend`: the staged builder's
 * graph, one launch per message), then one thing changed at a time. */
static void probe_staged_small(void)
{
    static const struct staged cases[] = {
        {0, PUSHED, 2, 1, NONE, 0, "bare copies (no sync)", 0, 0},
        {0, PUSHED, 2, 1, NONE, 0, "bare copies, batched, an event after each", 1, 0},
        {1, PUSHED, 2, 1, DEVICE, 1, "as the backend issues it", 1, 0},
        {1, PUSHED, 2, 1, DEVICE, 0, "... no receiver copy", 1, 0},
        {1, PUSHED, 4, 1, DEVICE, 1, "... 4 slots", 1, 0},
        {1, PUSHED, 2, 1, NONE, 1, "... no progress writes", 1, 0},
        {1, PUSHED, 2, 1, DEVICE, 1, "... one stream per GPU, no events", 0, 0},
        {1, POLLED, 2, 1, DEVICE, 1, "... polled flags", 1, 0},
    };

    puts("== one-way 1 MiB messages GPU 0 -> GPU 1 through staging slots in GPU 1");
    staged_cases(cases, sizeof(cases) / sizeof(cases[0]), 1u << 20);
}

/* The sender's flags on a second stream (struct staged, `side`), against
 * the staged protocol as the backend issues it, at 64 MiB and 1 MiB. */
static void probe_staged_side(void)
{
    static const struct staged cases[] = {
        {0, PUSHED, 2, 1, NONE, 0, "bare copies, batched, an event after each", 1, 0},
        {1, PUSHED, 2, 1, DEVICE, 1, "as the backend issues it", 1, 0},
        {1, PUSHED, 2, 1, DEVICE, 1, "the sender's flags on a side stream", 1, 1},
        {1, PUSHED, 4, 1, DEVICE, 1, "... 4 slots", 1, 1},
    };
    static const size_t sizes[] = {MSG, 1u << 20};

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        printf("== one-way %zu MiB messages, the sender's flags on a side stream\n", sizes[k] >> 20);
        staged_cases(cases, sizeof(cases) / sizeof(cases[0]), sizes[k]);
    }
}

/* The staged ring of the sendrecv builder (`--pairs 0:1,1:0 --chunks 2
 * --slots 2`, mono): each GPU sends every message in two chunks through two
 * slots in its peer's memory (pushed flags: full in the receiver's memory,
 * credit in the sender's), its sender on one stream (copy, then one batch
 * that writes full and waits for the next chunk's slot), its receiver on
 * another (wait full, copy out, write credit).  Options, one at a time:
 * RING_JOIN forks the receiver's stream from the sender's at every message
 * and joins it back at its end, as a launch of the builder's graph does;
 * RING_PROGRESS adds the watchdog's progress write to each stream's last
 * batch that waits; without RING_OUTS the receiver copies nothing out;
 * without RING_BOTH only GPU 0 sends.  Events on GPU 0 time every message,
 * every peer copy and copy-out, the sender's wait for the join, and the
 * time from the last copy-out's end to the message's end (the credit's
 * memop batch and the join's hop, when the join blocked); events on GPU 1
 * give the slower GPU's span of every message.
 * RING_MEMCPY issues every copy with cudaMemcpyAsync, as the backend does a
 * lone copy.  Measured (2x H200, ninth session, three runs), GPU 0's median
 * message with the fork and join and the progress writes, as the builder
 * runs: 1 MiB 40.1-45.1 us, 8 MiB 60.3-65.7, 64 MiB 226.5-228.2; without
 * the fork and join 28.3-29.3, 49.1-49.5, 201.9-203.1: the join holds the
 * sender until the last copy-out is done, which without it overlaps the
 * next message.  A copy-out of 32 MiB took 28.4 us beside both directions'
 * peer copies, 18.7 alone; cudaMemcpyAsync changed nothing.  The slower
 * GPU's median message at 64 MiB: 234.5-260.1 us, against 232.6-237.5 on
 * average: a GPU's message spans alternate between two lengths, so a
 * median of the slower rank's span (what cesync bench reports) is not the
 * period. */
#define RING_MSGS 40
enum { RING_BOTH = 1, RING_OUTS = 2, RING_JOIN = 4, RING_PROGRESS = 8, RING_MEMCPY = 16 };

/* One copy as the ring case issues it: cudaMemcpyBatchAsync, or with
 * RING_MEMCPY one cudaMemcpyAsync (what the backend issues for a lone copy). */
static void ring_copy(void *dst, const void *src, size_t n, cudaStream_t s, unsigned o)
{
    if (o & RING_MEMCPY)
        CK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s));
    else
        copy1(dst, src, n, s);
}

static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof(v[0]), cmp_double);
    return v[n / 2];
}

static void ring_case(size_t bytes, unsigned o, const char *name)
{
    static cudaEvent_t ev[4][2 * RING_MSGS]; /* peer copy start, end; copy-out start, end */
    static int made;
    size_t c = bytes / 2;
    double pc[2 * RING_MSGS], lc[2 * RING_MSGS], msg[RING_MSGS], joinw[RING_MSGS], hop[RING_MSGS];
    double slower[RING_MSGS];
    double us;

    if (!made) {
        CK(cudaSetDevice(0));
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < 2 * RING_MSGS; i++)
                CK(cudaEventCreate(&ev[k][i]));
        made = 1;
    }
    begin();
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        DK(cuStreamWaitValue32((CUstream)G[g].side, gate_dev, 1, CU_STREAM_WAIT_VALUE_GEQ));
    }
    for (uint32_t m = 0; m < RING_MSGS; m++)
        for (int g = 0; g < 2; g++) {
            int p = 1 - g, sends = (o & RING_BOTH) || g == 0, receives = (o & RING_BOTH) || g == 1;
            struct gpu *x = &G[g];

            CK(cudaSetDevice(g));
            CK(cudaEventRecord(x->it0[m], x->st));
            if (o & RING_JOIN) {
                CK(cudaEventRecord(x->fork[m], x->st));
                CK(cudaStreamWaitEvent(x->side, x->fork[m], 0));
            }
            for (uint32_t h = 0; h < 2; h++) {
                uint32_t k = 2 * m + h, t = k % 2, u = k / 2 + 1;
                CUstreamBatchMemOpParams q[3];
                unsigned n = 2;

                if (sends) {
                    if (g == 0)
                        CK(cudaEventRecord(ev[0][k], x->st));
                    ring_copy(G[p].stage + t * c, x->send + t * c, c, x->st, o);
                    if (g == 0)
                        CK(cudaEventRecord(ev[1][k], x->st));
                    q[0] = write32(flag(p, t), u);
                    q[1] = wait32(flag(g, 2 + (k + 1) % 2), (k + 1) / 2); /* the next chunk's slot */
                    if ((o & RING_PROGRESS) && h == 1)
                        q[n++] = write64(word(g, 0), k);
                    DK(cuStreamBatchMemOp((CUstream)x->st, n, q, 0));
                }
                if (receives) {
                    n = 1;
                    q[0] = wait32(flag(g, t), u);
                    if ((o & RING_PROGRESS) && h == 1)
                        q[n++] = write64(word(g, 1), k);
                    DK(cuStreamBatchMemOp((CUstream)x->side, n, q, 0));
                    if (g == 0)
                        CK(cudaEventRecord(ev[2][k], x->side));
                    if (o & RING_OUTS)
                        ring_copy(x->recv + t * c, x->stage + t * c, c, x->side, o);
                    if (g == 0)
                        CK(cudaEventRecord(ev[3][k], x->side));
                    q[0] = write32(flag(p, 2 + t), u);
                    DK(cuStreamBatchMemOp((CUstream)x->side, 1, q, 0));
                }
            }
            if (o & RING_JOIN) {
                CK(cudaEventRecord(x->join[m], x->side));
                CK(cudaStreamWaitEvent(x->st, x->join[m], 0));
            }
            CK(cudaEventRecord(x->it1[m], x->st));
        }
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaEventRecord(G[g].join[RING_MSGS], G[g].side));
        CK(cudaStreamWaitEvent(G[g].st, G[g].join[RING_MSGS], 0));
    }
    us = finish() * 1000.0 / RING_MSGS;
    CK(cudaSetDevice(0));
    for (uint32_t k = 0; k < 2 * RING_MSGS; k++) {
        float a, b = 0.0f;

        CK(cudaEventElapsedTime(&a, ev[0][k], ev[1][k]));
        if (o & RING_BOTH) /* one way, GPU 0 only sends */
            CK(cudaEventElapsedTime(&b, ev[2][k], ev[3][k]));
        pc[k] = 1000.0 * a;
        lc[k] = 1000.0 * b;
    }
    for (uint32_t m = 0; m < RING_MSGS; m++) {
        float a, b, d = 0.0f, a1;

        CK(cudaSetDevice(1));
        CK(cudaEventElapsedTime(&a1, G[1].it0[m], G[1].it1[m]));
        CK(cudaSetDevice(0));

        CK(cudaEventElapsedTime(&a, G[0].it0[m], G[0].it1[m]));
        CK(cudaEventElapsedTime(&b, ev[1][2 * m + 1], G[0].it1[m]));
        if (o & RING_BOTH)
            CK(cudaEventElapsedTime(&d, ev[3][2 * m + 1], G[0].it1[m]));
        msg[m] = 1000.0 * a;
        slower[m] = 1000.0 * (a > a1 ? a : a1);
        joinw[m] = 1000.0 * b;
        hop[m] = 1000.0 * d;
    }
    printf("%5zu MiB %-34s %8.2f us/msg | slower GPU's message (median) %8.2f | GPU 0 medians: "
           "message %8.2f, peer copy %7.2f, copy-out %7.2f, last copy to message end %7.2f, last "
           "copy-out to message end %6.2f%s\n",
           bytes >> 20, name, us, median_of(slower, RING_MSGS), median_of(msg, RING_MSGS),
           median_of(pc, 2 * RING_MSGS),
           median_of(lc, 2 * RING_MSGS), median_of(joinw, RING_MSGS), median_of(hop, RING_MSGS),
           guard_note());
    fflush(stdout);
}

static void probe_ring_staged(void)
{
    static const size_t sizes[] = {1u << 20, 8u << 20, 64u << 20};
    static const struct {
        unsigned o;
        const char *name;
    } cases[] = {
        {RING_BOTH | RING_OUTS, "ring, no fork or join"},
        {RING_BOTH, "... no copy-outs"},
        {RING_OUTS, "... one way"},
        {RING_BOTH | RING_OUTS | RING_JOIN, "ring, fork and join every message"},
        {RING_BOTH | RING_OUTS | RING_JOIN | RING_PROGRESS, "... and progress writes"},
        {RING_BOTH | RING_JOIN | RING_PROGRESS, "... no copy-outs"},
        {RING_OUTS | RING_JOIN | RING_PROGRESS, "... one way"},
        {RING_BOTH | RING_OUTS | RING_JOIN | RING_PROGRESS | RING_MEMCPY, "as the builder, cudaMemcpyAsync"},
        {RING_BOTH | RING_OUTS | RING_MEMCPY, "... no fork or join"},
    };

    puts("== the sendrecv builder's staged ring: two chunks a message through two slots");
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int rep = 0; rep < 2; rep++)
            for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
                ring_case(sizes[z], cases[k].o, cases[k].name);
}

/* Which ops hold a shared hardware queue's head, and for how long (GPU 0
 * alone; run it under CUDA_DEVICE_MAX_CONNECTIONS unset and =1, which CUDA
 * reads as it initializes: scripts/probe_memops.sh's CONNECTIONS).  Under
 * one connection all streams of the GPU enqueue into one queue in the order
 * of the host's calls; the cost model lets an op leave its head so: a copy as
 * it starts, any other op (a memop, an event record, an await) as it ends,
 * so a record behind a long copy on s1 holds another stream's ops behind it
 * until the copy ends.  Per size of a local copy on s1 (cudaMemcpyAsync, as
 * the backend issues a lone copy), when an op that s0 enqueues after it
 * completes:
 *   a) s0 writes a flag (cuStreamWriteValue32) behind the copy alone (the
 *      model: beside the copy on any number of queues);
 *   b) s1 records an untimed event R after the copy (the lowering's record
 *      after a local copy); s0 writes the flag behind R (the model: beside
 *      the copy on a queue per stream, after its end on one queue);
 *   c) as b), s0 awaiting R before its write (the control: after the copy's
 *      end on any number of queues);
 *   d) s0 copies HOLD_SMALL bytes behind the copy (the model: beside it on
 *      any number of queues; on one queue, do two streams' copies overlap?);
 *   f) s1 records R after the copy, a third stream s2 awaits R
 *      (cudaStreamWaitEvent), s0 writes the flag right behind that await,
 *      then s2 writes a flag of its own (the model and the checker: an
 *      await whose record has not ended holds the ops behind it, so on one
 *      queue s0 waits for the copy's end; beside the copy on a queue per
 *      stream).  s0's write follows s2's await directly so that on one
 *      queue only the await and R (which b) times alone) lie between the
 *      copy and it.  s0 near minus the copy's time from the copy's end
 *      under one queue says an await does not hold the head: the model's
 *      and the checker's rule is wrong there; 0 or more says it holds it;
 *   g) s1 writes a flag of its own right behind its copy, s0 writes its
 *      flag behind that (the model: an op its own stream still holds, the
 *      copy running, holds the ops behind it, so on one queue s0 waits for
 *      the copy's end);
 *   h) as f), but s2 writes its flag right behind its await and before
 *      s0's write (the model: s2's write, held by its stream until the
 *      await's record ends, holds s0's behind it on one queue).
 * And once per setting, without a copy:
 *   e) s1 writes HOLD_ARRIVED (a word of the gate's pinned, mapped page)
 *      and waits (cuStreamWaitValue32) for HOLD_RELEASE, which the host
 *      sets HOLD_DELAY_NS by its clock after it has seen HOLD_ARRIVED
 *      (release_each); s0 writes the flag right behind that wait (the model
 *      and the checker, whose `connections 1` reports
 *      bad/cross_stream_conn1.ces as a DEADLOCK through the queue: a wait
 *      blocked at the head holds the other streams' ops, so on one queue
 *      s0 completes only after the release; before it on a queue per
 *      stream).  The wait's end W is its stream's next op, a timing event.
 *      s0 done near minus the delay from W under one queue says a blocked
 *      wait does not hold the head (the checker's deadlock through the
 *      queue is not one on this GPU); 0 or more says it holds it.
 *      The release depends on the host alone (s1's write ahead of the wait
 *      in stream and queue order), never on an op behind the wait, so it
 *      cannot hang when the wait holds the head; the guard thread sets
 *      HOLD_RELEASE to its greatest value 2 s after the case began whatever
 *      happened (every tick until the case ends, in case the host lowered
 *      it as the guard fired), and the line then says so.
 * Every iteration starts with a timed event S on s1 that s0 awaits (so s0
 * starts with s1 on any number of queues), and ends with s1 awaiting s0's
 * last op, and s2's in f) (so no copy of an iteration overlaps the next
 * one).  Every wait is released by an op enqueued before it (S, R, the
 * previous iteration's ends) or by the host and the guard (the gate,
 * HOLD_RELEASE), so nothing waits for an op behind it on one queue, and on
 * separate queues s0 and s2 wait only for ops of s1 that need nothing of
 * theirs in the same iteration.  The times
 * are timing events: cudaEventElapsedTime compares events of any two
 * streams of one device, each stamped from the GPU's one timer (about
 * 0.5 us resolution); a device clock (%globaltimer) would need a kernel,
 * which this file builds none of.  The timing events are placed where they
 * cannot hold s0's ops: S before the copy, the copy's end E (the wait's
 * end W in e) on s1 enqueued after s0's ops, s0's end T right behind its
 * op (at 1 MiB the copy may end before s0 has woken from S on separate
 * queues: compare each line with its line under the other setting).  Per
 * case: the copy's (the wait's)
 * time (E - S), s0's completion from the iteration's start (T - S) and
 * relative to the copy's end (T - E, taken as the difference of the two, so
 * that no elapsed time is negative: near minus the copy's time when s0's op
 * ran beside the copy, 0 or more when it waited for its end), medians over
 * the N iterations. */
#define HOLD_SMALL (64u << 10) /* bytes of case d's copy on s0 */
#define HOLD_DELAY_NS 200000L  /* e: from the host seeing HOLD_ARRIVED to HOLD_RELEASE */

enum hold {
    HOLD_COPY, HOLD_RECORD, HOLD_AWAIT, HOLD_COPIES, HOLD_WAIT, HOLD_OTHER_AWAIT,
    HOLD_OWN_WRITE, HOLD_AWAIT_WRITE
};

/* Case e's host side: per iteration i, once s1 has written HOLD_ARRIVED = i
 * just ahead of its wait, spin HOLD_DELAY_NS by the host's clock and set
 * HOLD_RELEASE = i.  Gives up once the guard has set the word (which it
 * sets again every tick, so a write of i racing it cannot lower it for good). */
static void release_each(void)
{
    for (uint32_t i = 1; i <= N && !atomic_load(&release_fired); i++) {
        long seen;

        while (gate[HOLD_ARRIVED] < i && !atomic_load(&release_fired))
            continue;
        seen = now_ns();
        while (now_ns() - seen < HOLD_DELAY_NS)
            continue;
        atomic_thread_fence(memory_order_seq_cst);
        gate[HOLD_RELEASE] = i;
    }
}

static void hold_case(size_t bytes, enum hold h, const char *conn)
{
    static const char *names[] = {"a) s1 copy; s0 write", "b) s1 copy, record R; s0 write",
                                  "c) s1 copy, record R; s0 awaits R, write",
                                  "d) s1 copy; s0 copy of 64 KiB",
                                  "e) s1 waits for the host; s0 write",
                                  "f) s1 copy, record R; s2 awaits; s0 write",
                                  "g) s1 copy, write; s0 write",
                                  "h) s1 copy, record R; s2 awaits, write; s0 write"};
    static cudaEvent_t ends[N + 1]; /* E: the copy's end (W: the wait's in e), timed */
    static cudaEvent_t s2_end;      /* s2's last op (f, h) */
    static int made;
    struct gpu *x = &G[0];
    cudaStream_t s0 = x->st, s1 = x->side, s2 = x->cs[0];
    const char *what = h == HOLD_WAIT ? "wait" : "copy";
    char size[24];
    double span[N], done[N], after[N];

    CK(cudaSetDevice(0));
    if (!made) {
        for (int i = 0; i <= N; i++)
            CK(cudaEventCreate(&ends[i]));
        CK(cudaEventCreateWithFlags(&s2_end, cudaEventDisableTiming));
        made = 1;
    }
    gate[HOLD_ARRIVED] = 0;
    gate[HOLD_RELEASE] = 0;
    atomic_store(&release_fired, 0);
    begin();
    if (h == HOLD_WAIT)
        atomic_store(&release_ns, now_ns());
    DK(cuStreamWaitValue32((CUstream)s1, gate_dev, 1, CU_STREAM_WAIT_VALUE_GEQ));
    for (uint32_t i = 1; i <= N; i++) {
        if (i > 1)
            CK(cudaStreamWaitEvent(s1, x->join[i - 1], 0));
        CK(cudaEventRecord(x->it0[i], s1));
        CK(cudaStreamWaitEvent(s0, x->it0[i], 0));
        if (h == HOLD_WAIT) {
            DK(cuStreamWriteValue32((CUstream)s1, gate_dev + HOLD_ARRIVED * sizeof(uint32_t), i, 0));
            DK(cuStreamWaitValue32((CUstream)s1, gate_dev + HOLD_RELEASE * sizeof(uint32_t), i,
                                   CU_STREAM_WAIT_VALUE_GEQ));
        } else {
            CK(cudaMemcpyAsync(x->recv, x->send, bytes, cudaMemcpyDefault, s1));
        }
        if (h == HOLD_RECORD || h == HOLD_AWAIT || h == HOLD_OTHER_AWAIT || h == HOLD_AWAIT_WRITE)
            CK(cudaEventRecord(x->fork[i], s1));
        if (h == HOLD_AWAIT)
            CK(cudaStreamWaitEvent(s0, x->fork[i], 0));
        if (h == HOLD_OTHER_AWAIT || h == HOLD_AWAIT_WRITE)
            CK(cudaStreamWaitEvent(s2, x->fork[i], 0));
        if (h == HOLD_AWAIT_WRITE)
            DK(cuStreamWriteValue32((CUstream)s2, flag(0, 61), i, 0));
        if (h == HOLD_OWN_WRITE)
            DK(cuStreamWriteValue32((CUstream)s1, flag(0, 62), i, 0));
        if (h == HOLD_COPIES)
            CK(cudaMemcpyAsync(x->recv + BIG / 2, x->send + BIG / 2, HOLD_SMALL,
                               cudaMemcpyDefault, s0));
        else
            DK(cuStreamWriteValue32((CUstream)s0, flag(0, 60), i, 0));
        CK(cudaEventRecord(x->it1[i], s0));
        CK(cudaEventRecord(ends[i], s1));
        /* f: s2's write after E on the queue, so that E waits for no op of
         * s2; s1 awaits s2's end before the next iteration (and finish()). */
        if (h == HOLD_OTHER_AWAIT || h == HOLD_AWAIT_WRITE) {
            if (h == HOLD_OTHER_AWAIT)
                DK(cuStreamWriteValue32((CUstream)s2, flag(0, 61), i, 0));
            CK(cudaEventRecord(s2_end, s2));
            CK(cudaStreamWaitEvent(s1, s2_end, 0));
        }
        CK(cudaEventRecord(x->join[i], s0));
    }
    if (h == HOLD_WAIT) {
        open_gate();
        release_each(); /* then finish() finds the gate open */
    }
    finish();
    atomic_store(&release_ns, 0);
    for (int i = 1; i <= N; i++) {
        float c, d;

        CK(cudaEventElapsedTime(&c, x->it0[i], ends[i]));
        CK(cudaEventElapsedTime(&d, x->it0[i], x->it1[i]));
        span[i - 1] = 1000.0 * c;
        done[i - 1] = 1000.0 * d;
        after[i - 1] = done[i - 1] - span[i - 1];
    }
    if (h == HOLD_WAIT)
        snprintf(size, sizeof(size), "%7s", "-");
    else
        snprintf(size, sizeof(size), "%3zu MiB", bytes >> 20);
    printf("connections %-5s %s %-42s %s %8.2f us  s0 done %8.2f us  s0 - %s end %8.2f us%s%s\n",
           conn, size, names[h], what, median_of(span, N), median_of(done, N), what,
           median_of(after, N), guard_note(),
           atomic_load(&release_fired) ? "   (wait released by the guard)" : "");
    fflush(stdout);
}

static void probe_queue_hold(void)
{
    static const size_t sizes[] = {1u << 20, 8u << 20, 64u << 20};
    const char *conn = getenv("CUDA_DEVICE_MAX_CONNECTIONS");

    if (conn == NULL)
        conn = "unset";
    printf("== what holds a queue's head behind a local copy or a blocked wait (GPU 0, "
           "CUDA_DEVICE_MAX_CONNECTIONS %s; medians)\n", conn);
    hold_case(0, HOLD_WAIT, conn);
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int h = HOLD_COPY; h <= HOLD_AWAIT_WRITE; h++)
            if (h != HOLD_WAIT)
                hold_case(sizes[z], (enum hold)h, conn);
}

/* Close the gate on every copy stream of both GPUs and record their starts. */
static void begin_streams(void)
{
    close_gate();
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        for (int s = 0; s < STREAMS; s++) {
            DK(cuStreamWaitValue32((CUstream)G[g].cs[s], gate_dev, 1, CU_STREAM_WAIT_VALUE_GEQ));
            CK(cudaEventRecord(G[g].cs0[s], G[g].cs[s]));
        }
    }
}

/* Open the gate, wait, print the time per iteration and the rate of one
 * direction's `bytes`.  Each GPU counts from the earliest start of any of its
 * streams to the latest end: the gate can release a stream late, and timing
 * from stream 0's start alone gave impossible rates. */
static void end_streams(const char *name, size_t bytes)
{
    double worst = 0.0, us;

    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        for (int s = 0; s < STREAMS; s++)
            CK(cudaEventRecord(G[g].cs1[s], G[g].cs[s]));
    }
    open_gate();
    for (int g = 0; g < 2; g++) {
        float first = 0.0f, last = 0.0f;

        CK(cudaSetDevice(g));
        for (int s = 0; s < STREAMS; s++)
            CK(cudaStreamSynchronize(G[g].cs[s]));
        for (int s = 0; s < STREAMS; s++) {
            float a, b;

            CK(cudaEventElapsedTime(&a, G[g].cs0[0], G[g].cs0[s]));
            CK(cudaEventElapsedTime(&b, G[g].cs0[0], G[g].cs1[s]));
            if (a < first)
                first = a;
            if (b > last)
                last = b;
        }
        if (last - first > worst)
            worst = last - first;
    }
    us = worst * 1000.0 / N;
    printf("%-58s %9.2f us/iter %7.1f GB/s%s\n", name, us, (double)bytes / us / 1000.0,
           guard_note());
    fflush(stdout);
}

/* How one direction's bytes are issued: `push` equal pieces on the sender's
 * first streams and `pull` on the receiver's (pieces in that order), or
 * `batch` pieces as one cudaMemcpyBatchAsync on the sender's first stream. */
struct spread {
    int push, pull, batch;
    const char *name;
};

/* The bytes [off, off + n) of direction d (GPU d -> GPU 1-d), issued by GPU
 * `by` on its copy stream s. */
static void piece(int d, int by, int s, size_t off, size_t n)
{
    CK(cudaSetDevice(by));
    CK(cudaMemcpyPeerAsync(G[1 - d].recv + off, 1 - d, G[d].send + off, d, n, G[by].cs[s]));
}

static void spread_direction(int d, const struct spread *c, size_t bytes)
{
    size_t off = 0, n;

    if (c->batch > 0) {
        void *dst[STREAMS];
        const void *src[STREAMS];
        size_t sz[STREAMS];

        n = bytes / (size_t)c->batch;
        for (int i = 0; i < c->batch; i++, off += n) {
            dst[i] = G[1 - d].recv + off;
            src[i] = G[d].send + off;
            sz[i] = n;
        }
        CK(cudaSetDevice(d));
        copies(dst, src, sz, (size_t)c->batch, G[d].cs[0]);
        return;
    }
    n = bytes / (size_t)(c->push + c->pull);
    for (int s = 0; s < c->push; s++, off += n)
        piece(d, d, s, off, n);
    for (int s = 0; s < c->pull; s++, off += n)
        piece(d, 1 - d, s, off, n);
}

/* The peer-copy rate by how each direction's bytes are spread over copy
 * engines, one way (GPU 0 -> 1) and both ways at once.  Measured (H200
 * pair): one stream per direction is fastest - 128 MiB one way 391 GB/s;
 * over 2, 3, 4 streams 387, 380, 379; pulled 383; half pushed, half pulled
 * 379; one batch of 2 or 4 pieces the same as one copy.  Both ways: one
 * stream 387, over 2, 3, 4 streams 382, 375, 374. */
static void probe_copy_engines(void)
{
    static const struct spread cases[] = {
        {1, 0, 0, "pushed on 1 stream"},
        {2, 0, 0, "pushed over 2 streams"},
        {3, 0, 0, "pushed over 3 streams"},
        {4, 0, 0, "pushed over 4 streams"},
        {0, 1, 0, "pulled on 1 stream"},
        {0, 2, 0, "pulled over 2 streams"},
        {1, 1, 0, "half pushed, half pulled"},
        {0, 0, 2, "one batch of 2 pieces"},
        {0, 0, 4, "one batch of 4 pieces"},
    };
    static const size_t sizes[] = {64u << 20, 128u << 20};

    for (size_t z = 0; z < 2; z++)
        for (int ways = 1; ways <= 2; ways++) {
            printf("== copy engines: %zu MiB %s\n", sizes[z] >> 20,
                   ways == 1 ? "one way (GPU 0 -> GPU 1)" : "each way at once");
            for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                begin_streams();
                for (int i = 0; i < N; i++)
                    for (int d = 0; d < ways; d++)
                        spread_direction(d, &cases[c], sizes[z]);
                end_streams(cases[c].name, sizes[z]);
            }
        }
}

enum engine_unit { PEER, LOCAL, LOCAL_PEER, LOCAL_PEER_BATCH, PEER_PEER_BATCH };

/* GPU 0 alone, N times one unit of 4 KiB copies on one stream.  Measured:
 * a peer copy 2.4 us, a local copy 1.7-2.0, a local then a peer copy
 * 12.1-16.4 over four runs (12.1-12.3 in the third session's final run; two
 * memcpys or one batch alike), a batch of two peer copies 2.4-2.5: a
 * stream that switches between the local and the peer copy engine waits for
 * the first copy to complete. */
static void probe_engine_switch(void)
{
    static const char *names[] = {"4 KiB peer copy", "4 KiB local copy",
                                  "4 KiB local copy, then peer copy",
                                  "... the same pair as one batch", "one batch of two peer copies"};
    const size_t b = 4096;
    cudaStream_t s = G[0].st;
    char *send = G[0].send, *local = G[0].recv, *peer = G[1].recv;

    puts("== local/peer copy-engine switch on one stream (GPU 0)");
    for (int k = PEER; k <= PEER_PEER_BATCH; k++) {
        begin();
        CK(cudaSetDevice(0));
        for (int i = 0; i < N; i++) {
            void *dst[2] = {k == PEER_PEER_BATCH ? peer : local, peer + b};
            const void *src[2] = {send, send + b};
            size_t n[2] = {b, b};

            switch ((enum engine_unit)k) {
            case PEER:
                CK(cudaMemcpyAsync(peer, send, b, cudaMemcpyDefault, s));
                break;
            case LOCAL:
                CK(cudaMemcpyAsync(local, send, b, cudaMemcpyDefault, s));
                break;
            case LOCAL_PEER:
                CK(cudaMemcpyAsync(dst[0], src[0], b, cudaMemcpyDefault, s));
                CK(cudaMemcpyAsync(dst[1], src[1], b, cudaMemcpyDefault, s));
                break;
            case LOCAL_PEER_BATCH:
            case PEER_PEER_BATCH:
                copies(dst, src, n, 2, s);
                break;
            }
        }
        end(names[k], 0);
    }
}

/* NCCL's graph barrier: write 1 into the peer's slot of flag set `set`, wait
 * for our own slot to be 1 and reset it to 0.  An iteration's two barriers
 * use two sets, so the peer cannot write a set again before we reset it: it
 * must first pass the other set's barrier, which our later write opens. */
/* NCCL's graph barrier, or (`polled`) its form with each flag in the
 * writer's memory, polled and reset by the waiter; with `watchdog` between
 * the two writes that cesync's watchdog puts around a captured memop call
 * that waits (1: in host memory, as until the fourth session; 2: in device
 * memory, as since). */
static void barrier_reset(int g, int set, int watchdog, int polled)
{
    int p = 1 - g, base = 64 + 2 * set;
    CUstreamBatchMemOpParams q[5];
    unsigned n = 0;
    CUdeviceptr wd = watchdog == 2 ? word(g, 0) : host_word(g);

    if (watchdog)
        q[n++] = write64(wd, 1);
    if (polled) {
        /* the flag in the writer's memory; the waiter polls it there and
         * resets it remotely */
        q[n++] = write32(flag(g, base + p), 1);
        q[n++] = wait32eq(flag(p, base + g), 1);
        q[n++] = write32(flag(p, base + g), 0);
    } else {
        q[n++] = write32(flag(p, base + g), 1);
        q[n++] = wait32eq(flag(g, base + p), 1);
        q[n++] = write32(flag(g, base + p), 0);
    }
    if (watchdog)
        q[n++] = write64(wd, 0);
    batch(g, q, n);
}

enum { EVENTS = 1, FORK = 2, LATE = 4, WATCHDOG = 8, PULLED = 16, WD_DEVICE = 32 };

static size_t chunk = CHUNK; /* bytes per peer of the iterations below */

/* An event on s; in a capture it becomes an external event-record node, the
 * graph's way of keeping the timestamp. */
static void mark(cudaEvent_t e, cudaStream_t s, int captured)
{
    CK(captured ? cudaEventRecordWithFlags(e, s, cudaEventRecordExternal) : cudaEventRecord(e, s));
}

/* Iteration i (1..N) of GPU g: ready barrier, `chunk` bytes to the peer,
 * complete barrier; with EVENTS between two per-iteration events, with FORK
 * the local chunk copied on the side stream, forked at the start (after the
 * ready barrier with LATE) and joined at the end; WATCHDOG adds the
 * watchdog's host writes to the barriers. */
static void iteration(int g, int i, unsigned what, int captured)
{
    struct gpu *x = &G[g];
    int p = 1 - g;
    size_t c = chunk;
    int w = (what & WD_DEVICE) ? 2 : (what & WATCHDOG) != 0;

    CK(cudaSetDevice(g));
    if (what & EVENTS)
        mark(x->it0[i], x->st, captured);
    for (int at = 0; at < 2; at++) {
        if ((what & FORK) && at == ((what & LATE) != 0)) {
            CK(cudaEventRecord(x->fork[i], x->st));
            CK(cudaStreamWaitEvent(x->side, x->fork[i], 0));
            CK(cudaMemcpyAsync(x->recv + g * c, x->send + g * c, c, cudaMemcpyDefault, x->side));
            CK(cudaEventRecord(x->join[i], x->side));
        }
        if (at == 0)
            barrier_reset(g, 0, w, (what & PULLED) != 0);
    }
    CK(cudaMemcpyAsync(G[p].recv + g * c, x->send + p * c, c, cudaMemcpyDefault, x->st));
    barrier_reset(g, 1, w, (what & PULLED) != 0);
    if (what & FORK)
        CK(cudaStreamWaitEvent(x->st, x->join[i], 0));
    if (what & EVENTS)
        mark(x->it1[i], x->st, captured);
}

/* One graph per GPU of what enqueue(g, arg) puts on its stream (relaxed
 * capture), instantiated and uploaded. */
static void capture_each(cudaGraphExec_t exec[2], void (*enqueue)(int g, const void *arg),
                         const void *arg)
{
    for (int g = 0; g < 2; g++) {
        cudaGraph_t graph;

        CK(cudaSetDevice(g));
        CK(cudaStreamBeginCapture(G[g].st, cudaStreamCaptureModeRelaxed));
        enqueue(g, arg);
        CK(cudaStreamEndCapture(G[g].st, &graph));
        CK(cudaGraphInstantiate(&exec[g], graph, 0));
        CK(cudaGraphDestroy(graph));
        CK(cudaGraphUpload(exec[g], G[g].st));
        CK(cudaStreamSynchronize(G[g].st));
    }
}

static void launch_each(cudaGraphExec_t exec[2])
{
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaGraphLaunch(exec[g], G[g].st));
    }
}

static void free_each(cudaGraphExec_t exec[2])
{
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaGraphExecDestroy(exec[g]));
    }
}

static void captured_iterations(int g, const void *what)
{
    for (int i = 1; i <= N; i++)
        iteration(g, i, *(const unsigned *)what, 1);
}

/* N iterations on both GPUs, enqueued behind the gate or captured into one
 * graph per GPU (instantiated and uploaded beforehand) that is launched
 * behind the gate. */
static void iterations(unsigned what, int captured, const char *name)
{
    cudaGraphExec_t exec[2] = {0, 0};

    if (captured)
        capture_each(exec, captured_iterations, &what);
    begin();
    if (captured)
        launch_each(exec);
    else
        for (int i = 1; i <= N; i++)
            for (int g = 0; g < 2; g++)
                iteration(g, i, what, 0);
    end(name, (what & EVENTS) != 0);
    if (captured)
        free_each(exec);
}

/* A 2-rank alltoall iteration between NCCL's graph barriers, eager and
 * captured, adding the per-iteration events and the forked local copy one at
 * a time.  Measured: events alone or the fork alone cost the same eager and
 * captured; events and fork together cost 10-13 us more per iteration
 * captured than eager (512 KiB: median 22.8 eager, 35.3-36.0 captured).  External
 * event nodes in a graph whose iterations fork a branch are a measurement
 * artifact, so `cesync bench --graph` times whole graph launches instead.
 * Then the same iteration with polled barriers reset by the waiter (cesync's
 * `pull`), measured (ninth session): with the fork and the watchdog's words
 * in device memory 17.6-20.8 us captured against 22.5-22.8 with NCCL's
 * barriers (five runs); bare, 11.7-21.7 (bimodal) against 18.0-18.7. */
static void probe_captured(void)
{
    static const struct {
        unsigned what;
        const char *name;
    } cases[] = {
        {0, "barrier, copy, barrier"},
        {EVENTS, "+ per-iteration events"},
        {FORK, "+ local copy forked"},
        {EVENTS | FORK, "+ events + local copy forked"},
        {PULLED, "polled barriers, reset by the waiter"},
        {PULLED | FORK | WD_DEVICE, "... + local copy forked + watchdog"},
        {FORK | WD_DEVICE, "pushed: + local copy forked + watchdog"},
    };
    char name[80];

    chunk = CHUNK;
    printf("== captured alltoall iteration, %u KiB per peer (pushed barriers, reset form)\n",
           CHUNK >> 10);
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
        for (int captured = 0; captured < 2; captured++) {
            snprintf(name, sizeof(name), "%s: %s", captured ? "graph" : "eager", cases[c].name);
            iterations(cases[c].what, captured, name);
        }
}

/* Where a captured iteration forks its local copy: before the ready
 * barrier or after it (what an eager cesync call does from 8 MiB of local
 * chunk on), with the watchdog's writes, eager and captured, at 512 KiB and
 * 32 MiB per peer.  Measured (2x H200, third session): forked first, eager
 * and captured cost the same (512 KiB: 25.7 and 25.5 us; 32 MiB: 117.9 and
 * 116.9); forked after the ready barrier, eagerly 25.7 and 110.0 but captured
 * 36.9 and 127.1 (a prototype of this probe, run twice before: 35.9-37.2 and
 * 128.5-128.7): a captured fork after a memop node costs 10-17 us, so
 * cesync's graph phases fork first at every size. */
static void probe_captured_fork(void)
{
    static const size_t sizes[] = {CHUNK, BIG_CHUNK};
    char name[80];

    for (size_t z = 0; z < 2; z++) {
        chunk = sizes[z];
        printf("== captured fork, %zu KiB per peer (pushed barriers, watchdog writes)\n", chunk >> 10);
        for (unsigned late = 0; late < 2; late++)
            for (int captured = 0; captured < 2; captured++) {
                snprintf(name, sizeof(name), "%s: local copy forked %s", captured ? "graph" : "eager",
                         late ? "after the ready barrier" : "first");
                iterations(WATCHDOG | FORK | (late ? LATE : 0u), captured, name);
            }
    }
    chunk = CHUNK;
}

/* One-way 1 MiB messages GPU 0 -> GPU 1 as a captured group stages them
 * (backend/cuda/group.c): two slots in GPU 1's memory, u64 flags a replay
 * repeats.  The sender awaits its slot free (cbusy == 0 in its own memory)
 * and marks it busy in one batch, copies into the slot and writes cfull
 * into the receiver's memory; the receiver awaits cfull == 1 and resets it
 * in one batch, copies out and writes cbusy 0 into the sender's memory.
 * Options: CAP_WATCHDOG puts the watchdog's enter and exit writes (device
 * memory) around each batch that waits; CAP_NOWAIT drops the sender's wait;
 * CAP_BARE copies only; CAP_EAGER issues the same calls without capture.
 * Each GPU captures CAP_CALLS calls in one graph and launches it once. */
#define CAP_CALLS 100
enum { CAP_WATCHDOG = 1, CAP_NOWAIT = 2, CAP_BARE = 4, CAP_EAGER = 8 };

static void cap_calls(int g, unsigned o, size_t bytes)
{
    struct gpu *x = &G[g];

    for (uint32_t i = 0; i < CAP_CALLS; i++) {
        uint32_t t = i % 2;
        CUstreamBatchMemOpParams q[4];
        unsigned n = 0;

        if (g == 0) {
            if (!(o & (CAP_BARE | CAP_NOWAIT))) {
                if (o & CAP_WATCHDOG)
                    q[n++] = write64(word(0, 0), i + 1);
                q[n] = wait64(flag64(0, 2 + t), 0);
                q[n++].waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
            }
            if (!(o & CAP_BARE)) {
                q[n++] = write64(flag64(0, 2 + t), 1);
                if (o & CAP_WATCHDOG)
                    q[n++] = write64(word(0, 0), 0);
                DK(cuStreamBatchMemOp((CUstream)x->st, n, q, 0));
            }
            CK(cudaMemcpyAsync(G[1].stage + t * bytes, x->send, bytes, cudaMemcpyDeviceToDevice,
                               x->st));
            if (!(o & CAP_BARE)) {
                q[0] = write64(flag64(1, t), 1);
                DK(cuStreamBatchMemOp((CUstream)x->st, 1, q, 0));
            }
        } else if (!(o & CAP_BARE)) {
            if (o & CAP_WATCHDOG)
                q[n++] = write64(word(1, 0), i + 1);
            q[n] = wait64(flag64(1, t), 1);
            q[n++].waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
            q[n++] = write64(flag64(1, t), 0);
            if (o & CAP_WATCHDOG)
                q[n++] = write64(word(1, 0), 0);
            DK(cuStreamBatchMemOp((CUstream)x->st, n, q, 0));
            CK(cudaMemcpyAsync(x->recv, x->stage + t * bytes, bytes, cudaMemcpyDeviceToDevice,
                               x->st));
            q[0] = write64(flag64(0, 2 + t), 0);
            DK(cuStreamBatchMemOp((CUstream)x->st, 1, q, 0));
        }
    }
}

struct cap_args {
    unsigned o;
    size_t bytes;
};

static void captured_calls(int g, const void *arg)
{
    const struct cap_args *a = arg;

    cap_calls(g, a->o, a->bytes);
}

static void cap_case(unsigned o, size_t bytes, const char *name)
{
    cudaGraphExec_t exec[2] = {0, 0};
    struct cap_args a = {o, bytes};

    if (!(o & CAP_EAGER))
        capture_each(exec, captured_calls, &a);
    begin();
    if (o & CAP_EAGER)
        for (int g = 0; g < 2; g++) {
            CK(cudaSetDevice(g));
            cap_calls(g, o, bytes);
        }
    else
        launch_each(exec);
    printf("%5zu KiB %-48s %8.2f us/call%s\n", bytes >> 10, name, finish() * 1000.0 / CAP_CALLS,
           guard_note());
    fflush(stdout);
    if (!(o & CAP_EAGER))
        free_each(exec);
}

/* Where the cost model's captured one-way time (14.4 us a 1 MiB call,
 * measured 11.9-12.7 with cesync bench) goes.  Measured (2x H200, ninth
 * session), us a call at 1 MiB / 8 MiB: copies only 4.9 / 23.8 (a 1 MiB
 * copy back to back costs 2.2 us beyond its bytes, against the 5.2 of a
 * lone one); as the backend captures it 11.5-12.0 / 30.4-30.7; without the
 * watchdog's writes 12.8-13.4 / 29.1-29.4; without the sender's wait too
 * 10.1-10.2 / 29.1-29.3; eagerly the same calls 11.9-13.0 / 30.5-30.7
 * (three runs). */
static void probe_captured_oneway(void)
{
    static const struct {
        unsigned o;
        const char *name;
    } cases[] = {
        {CAP_BARE, "graph: copies only"},
        {CAP_WATCHDOG, "graph: as the backend captures it"},
        {0, "graph: ... without the watchdog's writes"},
        {CAP_NOWAIT, "graph: ... and without the sender's wait"},
        {CAP_BARE | CAP_EAGER, "eager: copies only"},
        {CAP_WATCHDOG | CAP_EAGER, "eager: the same calls"},
        {CAP_EAGER, "eager: ... without the watchdog's writes"},
    };
    static const size_t sizes[] = {1u << 20, 8u << 20};

    puts("== captured one-way messages GPU 0 -> GPU 1 through two slots");
    for (size_t z = 0; z < 2; z++)
        for (int rep = 0; rep < 2; rep++)
            for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
                cap_case(cases[k].o, sizes[z], cases[k].name);
}

/* The staged builder's pipelines (one way: one chunk a message, GPU 0 to
 * GPU 1; the ring: two chunks a message each way) with timing events at
 * every step of both GPUs, to see where a message's time goes: the fork's
 * hop (the message's start on the launch stream to the side stream past
 * its await), the join's (the side stream's last op to the launch stream
 * past its await), the sender's copy and its memop batch (the full write
 * and the next slot's credit wait), the receiver's wake from its full
 * wait to its copy-out's start and the copy-out.  HOP_NOJOIN leaves the
 * fork and join out; HOP_NOMARKS times only the messages (the events'
 * own cost); HOP_PROGRESS adds the watchdog's progress write to each
 * stream's last batch of a message.  The sender runs on the launch
 * stream, the receiver on the side stream, as the builder's graph puts
 * them.  Measured (2x H200, tenth session, three runs), medians of a GPU's
 * message timed only: one way 1 MiB 10.3-11.4 us with the fork and join
 * in five of ten runs and 13.6-21.6 in the others (the slow mode of their
 * hops), 10.5 without them; 8 MiB 29.5-30.8 and 64 MiB 177.2-178.8
 * either way; the ring 1 MiB 32.1-34.8 with them against 24.5-25.5
 * without, 8 MiB 47.8-54.1 against 36.8-38.5, 64 MiB 215.4-243.0 against
 * 188.9-190.1: the join holds every message of the ring to its last
 * copy-out, and with every step timed the fork's and the join's hops take
 * 5-11 us each there.  At 64 MiB each GPU's messages of the ring
 * alternate between about 190 and 250 us, the other GPU's the other way
 * round: the mean of the two GPUs' spans of a message (median 219.0-222.3
 * us) is the period (222.9-226.3 us a message over the whole run), the
 * slower GPU's (224.5-250.1) is not.  The timing events cost: the ring's
 * 1 MiB message takes 49.6-57.4 us with every step timed.  HOP_DUMP=1 in
 * the environment prints both GPUs' spans of every 64 MiB ring message. */
#define HOP_MSGS 40
enum { HOP_RING = 1, HOP_NOJOIN = 2, HOP_NOMARKS = 4, HOP_PROGRESS = 8 };
enum { HM_FORKED, HM_SIDE_END, HM_COPY0, HM_COPY1, HM_BATCH1, HM_WOKE, HM_OUT1, HM__N };

static void hop_case(size_t bytes, unsigned o, const char *name)
{
    static cudaEvent_t ev[2][HM__N][2 * HOP_MSGS];
    static int made;
    int chunks = (o & HOP_RING) ? 2 : 1, marks = !(o & HOP_NOMARKS);
    size_t c = bytes / (size_t)chunks;
    double us;

    if (!made) {
        for (int g = 0; g < 2; g++) {
            CK(cudaSetDevice(g));
            for (int k = 0; k < HM__N; k++)
                for (int i = 0; i < 2 * HOP_MSGS; i++)
                    CK(cudaEventCreate(&ev[g][k][i]));
        }
        made = 1;
    }
    begin();
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        DK(cuStreamWaitValue32((CUstream)G[g].side, gate_dev, 1, CU_STREAM_WAIT_VALUE_GEQ));
    }
    for (uint32_t m = 0; m < HOP_MSGS; m++)
        for (int g = 0; g < 2; g++) {
            int p = 1 - g, sends = (o & HOP_RING) || g == 0, receives = (o & HOP_RING) || g == 1;
            struct gpu *x = &G[g];

            CK(cudaSetDevice(g));
            CK(cudaEventRecord(x->it0[m], x->st));
            if (!(o & HOP_NOJOIN)) {
                CK(cudaEventRecord(x->fork[m], x->st));
                CK(cudaStreamWaitEvent(x->side, x->fork[m], 0));
            }
            if (marks)
                CK(cudaEventRecord(ev[g][HM_FORKED][m], x->side));
            for (int h = 0; h < chunks; h++) {
                uint32_t k = (uint32_t)(chunks * (int)m + h), t = k % 2, u = k / 2 + 1;
                CUstreamBatchMemOpParams q[3];
                unsigned last = (o & HOP_PROGRESS) && h == chunks - 1;

                if (sends) {
                    if (marks)
                        CK(cudaEventRecord(ev[g][HM_COPY0][k], x->st));
                    copy1(G[p].stage + t * c, x->send + t * c, c, x->st);
                    if (marks)
                        CK(cudaEventRecord(ev[g][HM_COPY1][k], x->st));
                    q[0] = write32(flag(p, t), u);
                    q[1] = wait32(flag(g, 2 + (k + 1) % 2), (k + 1) / 2); /* the next slot */
                    q[2] = write64(word(g, 0), k);
                    DK(cuStreamBatchMemOp((CUstream)x->st, 2 + last, q, 0));
                    if (marks)
                        CK(cudaEventRecord(ev[g][HM_BATCH1][k], x->st));
                }
                if (receives) {
                    q[0] = wait32(flag(g, t), u);
                    q[1] = write64(word(g, 1), k);
                    DK(cuStreamBatchMemOp((CUstream)x->side, 1 + last, q, 0));
                    if (marks)
                        CK(cudaEventRecord(ev[g][HM_WOKE][k], x->side));
                    copy1(x->recv + t * c, x->stage + t * c, c, x->side);
                    if (marks)
                        CK(cudaEventRecord(ev[g][HM_OUT1][k], x->side));
                    q[0] = write32(flag(p, 2 + t), u);
                    DK(cuStreamBatchMemOp((CUstream)x->side, 1, q, 0));
                }
            }
            if (marks)
                CK(cudaEventRecord(ev[g][HM_SIDE_END][m], x->side));
            if (!(o & HOP_NOJOIN)) {
                CK(cudaEventRecord(x->join[m], x->side));
                CK(cudaStreamWaitEvent(x->st, x->join[m], 0));
            }
            CK(cudaEventRecord(x->it1[m], x->st));
        }
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaEventRecord(G[g].join[HOP_MSGS], G[g].side));
        CK(cudaStreamWaitEvent(G[g].st, G[g].join[HOP_MSGS], 0));
    }
    us = finish() * 1000.0 / HOP_MSGS;
    {
        double slower[HOP_MSGS], m0[HOP_MSGS], m1[HOP_MSGS], mean[HOP_MSGS];

        for (uint32_t m = 0; m < HOP_MSGS; m++) {
            float a0, a1;

            CK(cudaSetDevice(0));
            CK(cudaEventElapsedTime(&a0, G[0].it0[m], G[0].it1[m]));
            CK(cudaSetDevice(1));
            CK(cudaEventElapsedTime(&a1, G[1].it0[m], G[1].it1[m]));
            m0[m] = 1000.0 * a0;
            m1[m] = 1000.0 * a1;
            slower[m] = m0[m] > m1[m] ? m0[m] : m1[m];
            mean[m] = (m0[m] + m1[m]) / 2.0;
            if (getenv("HOP_DUMP") != NULL && bytes == (64u << 20) && (o & HOP_RING))
                printf("      %2u %8.2f %8.2f\n", m, m0[m], m1[m]);
        }
        printf("%5zu KiB %-40s %7.2f us/msg; medians: slower GPU's message %7.2f, the GPUs' mean "
               "%7.2f, GPU 0 %7.2f, GPU 1 %7.2f%s\n",
               bytes >> 10, name, us, median_of(slower, HOP_MSGS), median_of(mean, HOP_MSGS),
               median_of(m0, HOP_MSGS), median_of(m1, HOP_MSGS), guard_note());
    }
    if (!marks) {
        fflush(stdout);
        return;
    }
    for (int g = 0; g < 2; g++) {
        double msg[HOP_MSGS], fork[HOP_MSGS], join[HOP_MSGS], cp[2 * HOP_MSGS], bt[2 * HOP_MSGS];
        double gap[2 * HOP_MSGS], wake[2 * HOP_MSGS], out[2 * HOP_MSGS];
        int sends = (o & HOP_RING) || g == 0, receives = (o & HOP_RING) || g == 1;
        uint32_t nk = (uint32_t)chunks * HOP_MSGS;
        float a;

        CK(cudaSetDevice(g));
        for (uint32_t m = 0; m < HOP_MSGS; m++) {
            CK(cudaEventElapsedTime(&a, G[g].it0[m], G[g].it1[m]));
            msg[m] = 1000.0 * a;
            fork[m] = join[m] = 0.0;
            if (marks) {
                CK(cudaEventElapsedTime(&a, G[g].it0[m], ev[g][HM_FORKED][m]));
                fork[m] = 1000.0 * a;
                CK(cudaEventElapsedTime(&a, ev[g][HM_SIDE_END][m], G[g].it1[m]));
                join[m] = 1000.0 * a;
            }
        }
        for (uint32_t k = 0; k < nk; k++) {
            cp[k] = bt[k] = gap[k] = wake[k] = out[k] = 0.0;
            if (!marks)
                continue;
            if (sends) {
                CK(cudaEventElapsedTime(&a, ev[g][HM_COPY0][k], ev[g][HM_COPY1][k]));
                cp[k] = 1000.0 * a;
                CK(cudaEventElapsedTime(&a, ev[g][HM_COPY1][k], ev[g][HM_BATCH1][k]));
                bt[k] = 1000.0 * a;
                if (k + 1 < nk) {
                    CK(cudaEventElapsedTime(&a, ev[g][HM_BATCH1][k], ev[g][HM_COPY0][k + 1]));
                    gap[k] = 1000.0 * a;
                }
            }
            if (receives) {
                CK(cudaEventElapsedTime(&a, ev[g][HM_WOKE][k], ev[g][HM_OUT1][k]));
                out[k] = 1000.0 * a;
                CK(cudaEventElapsedTime(&a, ev[g][HM_FORKED][k / (uint32_t)chunks],
                                        ev[g][HM_WOKE][k]));
                wake[k] = 1000.0 * a;
            }
        }
        printf("   GPU %d medians: message %7.2f  fork %6.2f  join %6.2f | copy %6.2f  batch %6.2f"
               "  to next copy %6.2f | fork to full %6.2f  copy-out %6.2f\n",
               g, median_of(msg, HOP_MSGS), median_of(fork, HOP_MSGS), median_of(join, HOP_MSGS),
               median_of(cp, nk), median_of(bt, nk), median_of(gap, nk - 1), median_of(wake, nk),
               median_of(out, nk));
    }
    fflush(stdout);
}

static void probe_hops(void)
{
    static const struct {
        unsigned o;
        const char *name;
    } cases[] = {
        {HOP_NOMARKS | HOP_PROGRESS, "one way, fork, join, progress writes"},
        {HOP_NOMARKS, "... no progress writes"},
        {HOP_NOMARKS | HOP_NOJOIN, "... no fork or join"},
        {HOP_RING | HOP_NOMARKS | HOP_PROGRESS, "ring, fork, join, progress writes"},
        {HOP_RING | HOP_NOMARKS, "... no progress writes"},
        {HOP_RING | HOP_NOMARKS | HOP_NOJOIN, "... no fork or join"},
        {HOP_RING | HOP_PROGRESS, "ring, fork, join, progress, every step timed"},
    };
    static const size_t sizes[] = {1u << 20, 8u << 20, 64u << 20};

    puts("== the staged builder's pipelines step by step (medians of 40 messages)");
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int rep = 0; rep < 2; rep++)
            for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
                hop_case(sizes[z], cases[k].o, cases[k].name);
}

/* Whether the command line runs the probe `name`: it names it, or none. */
static int named(int argc, char **argv, const char *name)
{
    int run = argc < 2;

    for (int a = 1; a < argc; a++)
        run |= strcmp(argv[a], name) == 0;
    return run;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*fn)(void);
        int gpus; /* 1: GPU 0 alone; 2: GPUs 0 and 1, peers */
    } probes[] = {
        {"barriers", probe_barriers, 2},
        {"alltoall", probe_alltoall, 2},
        {"modes", probe_modes, 2},
        {"peer-apart", probe_peer_apart, 2},
        {"flagged", probe_flagged, 2},
        {"fork-gated", probe_fork_gated, 2},
        {"large-shapes", probe_large_shapes, 2},
        {"head", probe_head, 2},
        {"flag-copy", probe_flag_copy, 2},
        {"side-wait", probe_side_wait, 2},
        {"local-cost", probe_local_cost, 2},
        {"one-way", probe_one_way, 2},
        {"one-way-flags", probe_one_way_flags, 2},
        {"one-way-keep", probe_one_way_keep, 2},
        {"one-way-2b", probe_one_way_2b, 2},
        {"one-way-split", probe_one_way_split, 2},
        {"one-way-4b", probe_one_way_4b, 2},
        {"one-way-light", probe_one_way_light, 2},
        {"fork-point", probe_fork_point, 2},
        {"stream-pick", probe_stream_pick, 2},
        {"copy-pairs", probe_copy_pairs, 2},
        {"flag-shapes", probe_flag_shapes, 2},
        {"copy-after-wait", probe_copy_after_wait, 2},
        {"copy-order", probe_copy_order, 2},
        {"copy-gaps", probe_copy_gaps, 2},
        {"staged", probe_staged, 2},
        {"staged-small", probe_staged_small, 2},
        {"staged-side", probe_staged_side, 2},
        {"ring-staged", probe_ring_staged, 2},
        {"captured-oneway", probe_captured_oneway, 2},
        {"hops", probe_hops, 2},
        {"copy-engines", probe_copy_engines, 2},
        {"engine-switch", probe_engine_switch, 2},
        {"queue-hold", probe_queue_hold, 1},
        {"captured", probe_captured, 2},
        {"captured-fork", probe_captured_fork, 2},
    };
    int ok = 0;
    void *h;
    pthread_t th;

    for (int a = 1; a < argc; a++) {
        size_t k = 0;

        while (k < sizeof(probes) / sizeof(probes[0]) && strcmp(argv[a], probes[k].name) != 0)
            k++;
        if (k == sizeof(probes) / sizeof(probes[0])) {
            fprintf(stderr, "probe_memops: no probe named '%s'; the probes:", argv[a]);
            for (k = 0; k < sizeof(probes) / sizeof(probes[0]); k++)
                fprintf(stderr, " %s", probes[k].name);
            fputc('\n', stderr);
            return 2;
        }
    }
    gpus = 1;
    for (size_t k = 0; k < sizeof(probes) / sizeof(probes[0]); k++)
        if (named(argc, argv, probes[k].name) && probes[k].gpus > gpus)
            gpus = probes[k].gpus;
    if (gpus == 2) {
        CK(cudaDeviceCanAccessPeer(&ok, 0, 1));
        if (!ok) {
            fputs("probe_memops: GPUs 0 and 1 cannot access each other\n", stderr);
            return 1;
        }
    }
    CK(cudaHostAlloc(&h, 4096, cudaHostAllocMapped | cudaHostAllocPortable));
    gate = h;
    CK(cudaHostGetDevicePointer(&h, (void *)gate, 0));
    gate_dev = (CUdeviceptr)(uintptr_t)h;
    CK(cudaHostAlloc((void **)&host_words, 4096, cudaHostAllocMapped | cudaHostAllocPortable));
    CK(cudaHostAlloc((void **)&host_buf, BIG / 8, cudaHostAllocPortable));
    CK(cudaHostGetDevicePointer(&h, host_words, 0));
    host_words_dev = (CUdeviceptr)(uintptr_t)h;
    for (int g = 0; g < gpus; g++) {
        struct gpu *x = &G[g];

        CK(cudaSetDevice(g));
        if (gpus == 2)
            CK(cudaDeviceEnablePeerAccess(1 - g, 0));
        CK(cudaStreamCreateWithFlags(&x->st, cudaStreamNonBlocking));
        CK(cudaStreamCreateWithFlags(&x->side, cudaStreamNonBlocking));
        for (int s = 0; s < STREAMS; s++) {
            CK(cudaStreamCreateWithFlags(&x->cs[s], cudaStreamNonBlocking));
            CK(cudaEventCreate(&x->cs0[s]));
            CK(cudaEventCreate(&x->cs1[s]));
        }
        CK(cudaMalloc((void **)&x->flags, 4096));
        CK(cudaMalloc((void **)&x->words, 4096));
        CK(cudaMalloc((void **)&x->seq, sizeof(uint32_t) * (N + 1)));
        {
            uint32_t v[N + 1];

            for (uint32_t i = 0; i <= N; i++)
                v[i] = i;
            CK(cudaMemcpy(x->seq, v, sizeof(v), cudaMemcpyHostToDevice));
        }
        CK(cudaMalloc((void **)&x->send, BIG));
        CK(cudaMalloc((void **)&x->recv, BIG));
        CK(cudaMalloc((void **)&x->stage, BIG));
        CK(cudaEventCreate(&x->t0));
        CK(cudaEventCreate(&x->t1));
        CK(cudaEventCreateWithFlags(&x->ready, cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&x->copied, cudaEventDisableTiming));
        for (int i = 0; i <= N; i++) {
            CK(cudaEventCreate(&x->it0[i]));
            CK(cudaEventCreate(&x->it1[i]));
            CK(cudaEventCreateWithFlags(&x->fork[i], cudaEventDisableTiming));
            CK(cudaEventCreateWithFlags(&x->join[i], cudaEventDisableTiming));
        }
    }
    *gate = 0;
    if (pthread_create(&th, NULL, guard, NULL) != 0) {
        fputs("probe_memops: cannot start the guard thread\n", stderr);
        return 1;
    }
    for (size_t k = 0; k < sizeof(probes) / sizeof(probes[0]); k++)
        if (named(argc, argv, probes[k].name))
            probes[k].fn();
    return 0;
}
