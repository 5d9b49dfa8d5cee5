/*
 * tests/cuda/test_gpu_coll.c - the collectives and ces_launch on real GPUs,
 * checking every byte.  Usage: test_gpu_coll forked|single PART [RANKS]
 *   coll    every collective at 1, 7, 4097, 4096 bytes and 1 MiB, 10
 *           barriers, argument errors, and every dumped schedule
 *           (CES_DUMP_SCHEDULE) checked OK by the model checker;
 *   big     every collective at 256 MiB per rank;
 *   iters   1,000 back-to-back alltoalls, every iteration's bytes checked;
 *   graph   100 replays of a captured alltoall, allgather, scatter and
 *           broadcast, each checked,
 *           and every dumped schedule (pull, overlap; scatter and
 *           broadcast with the wake chain; under a directory path of
 *           over 600 bytes) checked OK;
 *   launch  ces_launch of the builders' own graphs (eager mono, graph credit);
 *   inplace allgather, gather, scatter, broadcast in place (7, 4096 and
 *           1 MiB + 3 bytes), in place on some ranks only, captured in
 *           place and replayed 100 times, every byte of every buffer
 *           checked, and every dumped schedule checked OK;
 *   p2p     ces_send/ces_recv groups in a ring, and an unmatched send refused;
 *   p2pbig  the same with 8 MiB + 3 bytes a message (the ring's flags
 *           polled), and every dumped schedule checked OK;
 *   p2pgraph the same groups captured into CUDA graphs and replayed, and
 *           every dumped schedule checked OK;
 * forked: one process per rank (ces_comm_init over a bootstrap socket);
 * single: one process drives every rank (ces_comm_init_all).
 * RANKS defaults to the GPUs (2 to 8); more ranks than GPUs only with
 * CES_SHARE_GPUS=1, rank r then on GPU r % GPUs (the 4- and 8-rank schedules
 * run on a machine with 1 or 2 GPUs).  Exits 77 (skipped) without a GPU, with
 * fewer GPUs than ranks and no CES_SHARE_GPUS, with more than 4 ranks of one
 * process a GPU, and after the refusal it checks where ranks of one process
 * would share a GPU over fewer than 8 hardware queues.
 */
#include "ces_test.h" /* the tests' TMPDIR */
#include "gpu_util.h"

#include <cuda_runtime.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAXR 8

struct rk {
    struct ces_ctx *ctx;
    struct ces_comm *c;
    cudaStream_t s;
    uint32_t rank;
};

struct job {
    const char *part;
    int single;
    uint32_t n;    /* ranks */
    uint32_t gpus; /* GPUs present */
    /* one process whose ranks share a GPU where ces_comm_init_all must
     * refuse them, with an error containing this (NULL: none): its streams
     * share hardware queues, or more ranks than the library allows a GPU */
    const char *refused;
};

#define CK(rk, what, expr)                                                                   \
    do {                                                                                     \
        int rc_ = (expr);                                                                    \
        if (rc_ != CES_OK)                                                                   \
            return gpu_fail((rk)->ctx, what, rc_);                                           \
    } while (0)
#define CKRT(what, expr)                                                                     \
    do {                                                                                     \
        cudaError_t e_ = (expr);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            printf("FAIL: %s: %s\n", what, cudaGetErrorString(e_));                         \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

static int use(struct rk *r)
{
    CKRT("cudaSetDevice", cudaSetDevice(ces_comm_device(r->c)));
    return 0;
}

static void sizes_of(uint32_t coll, uint64_t b, uint32_t n, uint64_t *ss, uint64_t *rs)
{
    *ss = b;
    *rs = b;
    if (coll == CES_COLL_ALLGATHER || coll == CES_COLL_GATHER)
        *rs = b * n;
    if (coll == CES_COLL_SCATTER)
        *ss = b * n;
}

static int call(struct rk *r, uint32_t coll, void *send, void *recv, uint64_t b, uint32_t root)
{
    switch (coll) {
    case CES_COLL_ALLTOALL:
        return ces_alltoall(r->c, send, recv, b, r->s);
    case CES_COLL_ALLGATHER:
        return ces_allgather(r->c, send, recv, b, r->s);
    case CES_COLL_GATHER:
        return ces_gather(r->c, send, recv, b, root, r->s);
    case CES_COLL_SCATTER:
        return ces_scatter(r->c, send, recv, b, root, r->s);
    default:
        return ces_broadcast(r->c, send, recv, b, root, r->s);
    }
}

/* Bytes [0, len) of h still hold the fill `fill` (0 if so; 1, printed, if
 * not). */
static int untouched(const char *what, const uint8_t *h, uint64_t len, uint8_t fill)
{
    for (uint64_t i = 0; i < len; i++) {
        if (h[i] != fill) {
            printf("FAIL: %s: byte %" PRIu64 " is 0x%02x, expected the fill 0x%02x untouched\n",
                   what, i, h[i], fill);
            return 1;
        }
    }
    return 0;
}

/* Checks recv (host copy) of rank r after collective coll with send
 * patterns of generation gen.  Gather writes only the root's recv: a
 * non-root's (n * b bytes, cleared to 0xee by its caller, one_coll) must
 * hold the fill still. */
static int verify(uint32_t coll, const uint8_t *h, uint64_t b, uint32_t r, uint32_t n,
                  uint32_t root, uint64_t gen, const char *tag)
{
    char what[160];
    int bad = 0;

    switch (coll) {
    case CES_COLL_ALLTOALL: {
        uint64_t cc = b / n;

        for (uint32_t p = 0; p < n && !bad; p++) {
            snprintf(what, sizeof(what), "%s alltoall %" PRIu64 " B rank %u chunk from %u", tag, b, r, p);
            bad = gpu_expect(what, h + p * cc, cc, p, 0, (uint64_t)r * cc, gen);
        }
        break;
    }
    case CES_COLL_ALLGATHER:
    case CES_COLL_GATHER:
        if (coll == CES_COLL_GATHER && r != root) {
            snprintf(what, sizeof(what), "%s gather %" PRIu64 " B rank %u (not the root) recv",
                     tag, b, r);
            bad = untouched(what, h, b * n, 0xee);
            break;
        }
        for (uint32_t p = 0; p < n && !bad; p++) {
            snprintf(what, sizeof(what), "%s %s %" PRIu64 " B rank %u block of %u", tag,
                     ces_coll_name((int)coll), b, r, p);
            bad = gpu_expect(what, h + p * b, b, p, 0, 0, gen);
        }
        break;
    case CES_COLL_SCATTER:
        snprintf(what, sizeof(what), "%s scatter %" PRIu64 " B rank %u", tag, b, r);
        bad = gpu_expect(what, h, b, root, 0, (uint64_t)r * b, gen);
        break;
    default:
        snprintf(what, sizeof(what), "%s broadcast %" PRIu64 " B rank %u", tag, b, r);
        bad = gpu_expect(what, h, b, root, 0, 0, gen);
        break;
    }
    return bad;
}

/* One collective at one size on the local ranks rks[0..m). */
static int one_coll(struct rk *rks, uint32_t m, uint32_t n, uint32_t coll, uint64_t b)
{
    void *send[MAXR], *recv[MAXR];
    uint64_t ss, rs;
    uint32_t root = n - 1;
    uint8_t *h;
    int bad = 0;

    if (coll == CES_COLL_ALLTOALL)
        b = (b + n - 1) / n * n;
    sizes_of(coll, b, n, &ss, &rs);
    h = malloc(ss > rs ? ss : rs);
    if (h == NULL)
        return 1;
    for (uint32_t i = 0; i < m; i++) {
        CK(&rks[i], "ces_mem_alloc send", ces_mem_alloc(rks[i].c, ss, &send[i]));
        CK(&rks[i], "ces_mem_alloc recv", ces_mem_alloc(rks[i].c, rs, &recv[i]));
    }
    for (uint32_t i = 0; i < m; i++) {
        if (use(&rks[i]))
            return 1;
        gpu_fill(h, ss, rks[i].rank, 0, 0, b);
        CKRT("fill send", cudaMemcpy(send[i], h, ss, cudaMemcpyHostToDevice));
        CKRT("clear recv", cudaMemset(recv[i], 0xee, rs));
        CKRT("sync", cudaDeviceSynchronize());
    }
    for (uint32_t i = 0; i < m; i++)
        CK(&rks[i], ces_coll_name((int)coll), call(&rks[i], coll, send[i], recv[i], b, root));
    for (uint32_t i = 0; i < m; i++) {
        if (use(&rks[i]))
            return 1;
        CKRT("stream sync", cudaStreamSynchronize(rks[i].s));
        CK(&rks[i], "communicator status", ces_comm_status(rks[i].c));
        CKRT("read recv", cudaMemcpy(h, recv[i], rs, cudaMemcpyDeviceToHost));
        bad |= verify(coll, h, b, rks[i].rank, n, root, b, "eager");
    }
    for (uint32_t i = 0; i < m; i++) {
        CK(&rks[i], "ces_mem_free", ces_mem_free(rks[i].c, send[i]));
        CK(&rks[i], "ces_mem_free", ces_mem_free(rks[i].c, recv[i]));
    }
    free(h);
    if (!bad && rks[0].rank == 0)
        printf("ok   %-9s %10" PRIu64 " B per rank, %u ranks\n", ces_coll_name((int)coll), b, n);
    return bad;
}

static const uint32_t colls[] = {CES_COLL_ALLTOALL, CES_COLL_ALLGATHER, CES_COLL_GATHER,
                                 CES_COLL_SCATTER, CES_COLL_BROADCAST};

/* Waits (up to 10 s) for a peer's failure to reach this rank's
 * communicator: CES_ERR_PEER_FAILED, which its watchdog sets from the
 * failed rank's word in the shared page. */
static int peer_failed(struct rk *r)
{
    uint64_t deadline = gpu_now_ms() + 10000;

    while (ces_comm_status(r->c) != CES_ERR_PEER_FAILED) {
        struct timespec ts = {0, 1000000};

        if (gpu_now_ms() > deadline) {
            printf("FAIL: rank %u not failed 10 s after rank 0 refused its buffer (status %d)\n",
                   r->rank, ces_comm_status(r->c));
            return 1;
        }
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* Global rank 0's refusals of a collective's arguments (the other ranks
 * call nothing: each waits for rank 0's failure to reach it).  Those every
 * rank makes alike, given the same arguments (a size that is not a
 * multiple of the ranks, a root out of range), leave its communicator
 * healthy; a buffer of its own that is refused (not symmetric memory)
 * fails it with the refusal where it has peers, since they may issue
 * their parts, and the peers fail with CES_ERR_PEER_FAILED (the other
 * refusals of a buffer, each on a healthy communicator, are
 * tests/cuda/test_comm.c's).  Last in its part: the communicators are
 * destroyed failed, which frees their memory. */
static int bad_args(struct rk *rks, uint32_t m, uint32_t n)
{
    void *a[MAXR], *plain = NULL;
    int rc;

    for (uint32_t i = 0; i < m; i++)
        CK(&rks[i], "ces_mem_alloc", ces_mem_alloc(rks[i].c, 4096, &a[i]));
    if (rks[0].rank != 0) {
        /* forked: another process's rank */
        return peer_failed(&rks[0]);
    }
    if (use(&rks[0]))
        return 1;
    if (n > 1 && ces_alltoall(rks[0].c, a[0], (char *)a[0] + 2048, n + 1, rks[0].s) !=
                     CES_ERR_INVALID)
        return gpu_fail(rks[0].ctx, "alltoall bytes not a multiple of ranks accepted", -1);
    if (ces_gather(rks[0].c, a[0], a[0], 8, n, rks[0].s) != CES_ERR_INVALID)
        return gpu_fail(rks[0].ctx, "root out of range accepted", -1);
    CK(&rks[0], "status after the refusals made alike", ces_comm_status(rks[0].c));
    CKRT("cudaMalloc", cudaMalloc(&plain, 4096));
    /* (sizes a multiple of the ranks: else that is the error) */
    rc = ces_alltoall(rks[0].c, plain, a[0], 4096 / n * n, rks[0].s);
    cudaFree(plain);
    if (rc != CES_ERR_INVALID ||
        strstr(ces_ctx_last_error(rks[0].ctx), "is not symmetric memory") == NULL)
        return gpu_fail(rks[0].ctx, "non-symmetric buffer accepted", -1);
    if (n == 1) {
        CK(&rks[0], "status after a refusal on one rank", ces_comm_status(rks[0].c));
        return 0;
    }
    if (ces_comm_status(rks[0].c) != CES_ERR_INVALID ||
        strstr(ces_ctx_last_error(rks[0].ctx), "failed: alltoall: buffer send (") == NULL)
        return gpu_fail(rks[0].ctx, "a refused buffer left the communicator healthy", -1);
    for (uint32_t i = 1; i < m; i++)
        if (peer_failed(&rks[i]))
            return 1;
    return 0;
}

static int part_coll(struct rk *rks, uint32_t m, uint32_t n, int big)
{
    static const uint64_t small[] = {1, 7, 4097, 4096, 1u << 20};
    static const uint64_t large[] = {256u << 20};
    const uint64_t *sz = big ? large : small;
    size_t nsz = big ? 1 : sizeof(small) / sizeof(small[0]);

    for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++)
        for (size_t k = 0; k < nsz; k++)
            if (one_coll(rks, m, n, colls[c], sz[k]))
                return 1;
    if (big)
        return 0;
    for (int it = 0; it < 10; it++)
        for (uint32_t i = 0; i < m; i++)
            CK(&rks[i], "ces_barrier", ces_barrier(rks[i].c, rks[i].s));
    for (uint32_t i = 0; i < m; i++) {
        if (use(&rks[i]))
            return 1;
        CKRT("sync", cudaStreamSynchronize(rks[i].s));
        CK(&rks[i], "status after barriers", ces_comm_status(rks[i].c));
    }
    return bad_args(rks, m, n);
}

/* The collectives on the streams CUDA names by constants: NULL and
 * cudaStreamLegacy (the legacy default stream, on which
 * cudaMemcpyBatchAsync refuses to run: the backend issued its batches
 * there when the stream was named cudaStreamLegacy) and cudaStreamPerThread;
 * and ces_launch of a graph phase there (CUDA captures nothing on the
 * legacy stream: the launch began the phase's capture on it, and failed).
 * One process per rank: the ranks of one process on one GPU would share
 * each of these streams. */
static int launch_one(struct rk *rks, uint32_t m, uint32_t n, uint32_t coll, uint32_t proto,
                      uint32_t phase, uint32_t iters, uint32_t flags, uint64_t first);

static int part_streams(struct rk *rks, uint32_t m, uint32_t n)
{
    static const struct {
        cudaStream_t s;
        const char *name;
    } named[] = {{0, "NULL"}, {cudaStreamLegacy, "cudaStreamLegacy"},
                 {cudaStreamPerThread, "cudaStreamPerThread"}};
    cudaStream_t own = rks[0].s;
    int bad = 0;

    for (size_t k = 0; k < sizeof(named) / sizeof(named[0]) && !bad; k++) {
        for (uint32_t i = 0; i < m; i++)
            rks[i].s = named[k].s;
        bad = one_coll(rks, m, n, CES_COLL_ALLTOALL, 4096) ||
              one_coll(rks, m, n, CES_COLL_ALLGATHER, 4097) ||
              launch_one(rks, m, n, CES_COLL_ALLTOALL, CES_PROTO_CREDIT, CES_PHASE_GRAPH, 3, 0, 1);
        if (!bad && rks[0].rank == 0)
            printf("ok   on the stream %s\n", named[k].name);
    }
    for (uint32_t i = 0; i < m; i++)
        rks[i].s = own;
    return bad;
}

/* Symmetric send and receive buffers of B bytes on every local rank. */
static int sym_buffers(struct rk *rks, uint32_t m, uint64_t B, void **send, void **recv)
{
    for (uint32_t i = 0; i < m; i++) {
        CK(&rks[i], "alloc", ces_mem_alloc(rks[i].c, B, &send[i]));
        CK(&rks[i], "alloc", ces_mem_alloc(rks[i].c, B, &recv[i]));
    }
    return 0;
}

/* 1,000 back-to-back alltoalls, each with fresh send bytes; every
 * iteration's recv is copied out and checked at the end. */
static int part_iters(struct rk *rks, uint32_t m, uint32_t n)
{
    const uint32_t K = 1000;
    const uint64_t B = (4096 + n - 1) / n * n; /* a multiple of the ranks, as alltoall needs */
    void *send[MAXR], *recv[MAXR];
    uint8_t *hs[MAXR], *hr[MAXR];
    uint64_t t0 = gpu_now_ms();

    if (sym_buffers(rks, m, B, send, recv))
        return 1;
    for (uint32_t i = 0; i < m; i++) {
        if (use(&rks[i]))
            return 1;
        CKRT("host", cudaMallocHost((void **)&hs[i], B * K));
        CKRT("host", cudaMallocHost((void **)&hr[i], B * K));
        for (uint32_t k = 0; k < K; k++)
            gpu_fill(hs[i] + k * B, B, rks[i].rank, 0, 0, k);
    }
    for (uint32_t k = 0; k < K; k++) {
        for (uint32_t i = 0; i < m; i++) {
            if (use(&rks[i]))
                return 1;
            CKRT("h2d", cudaMemcpyAsync(send[i], hs[i] + k * B, B, cudaMemcpyHostToDevice, rks[i].s));
            CK(&rks[i], "ces_alltoall", ces_alltoall(rks[i].c, send[i], recv[i], B, rks[i].s));
            CKRT("d2h", cudaMemcpyAsync(hr[i] + k * B, recv[i], B, cudaMemcpyDeviceToHost, rks[i].s));
        }
    }
    for (uint32_t i = 0; i < m; i++) {
        if (use(&rks[i]))
            return 1;
        CKRT("sync", cudaStreamSynchronize(rks[i].s));
        CK(&rks[i], "status", ces_comm_status(rks[i].c));
        for (uint32_t k = 0; k < K; k++) {
            char tag[32];

            snprintf(tag, sizeof(tag), "iteration %u", k);
            if (verify(CES_COLL_ALLTOALL, hr[i] + k * B, B, rks[i].rank, n, 0, k, tag))
                return 1;
        }
        cudaFreeHost(hs[i]);
        cudaFreeHost(hr[i]);
        CK(&rks[i], "free", ces_mem_free(rks[i].c, send[i]));
        CK(&rks[i], "free", ces_mem_free(rks[i].c, recv[i]));
    }
    if (rks[0].rank == 0)
        printf("ok   %u back-to-back alltoalls of %" PRIu64 " B, every iteration checked (%" PRIu64
               " ms)\n", K, B, gpu_now_ms() - t0);
    return 0;
}

/* --- in place, and captured replays ------------------------------------- */

/* The bytes of an in-place call's buffer: recv (allgather, gather), send
 * (scatter), the message (broadcast). */
static uint64_t inplace_len(uint32_t coll, uint64_t b, uint32_t n)
{
    return coll == CES_COLL_BROADCAST ? b : b * n;
}

/* The pointers rank r passes for an in-place call into its buffer `big`
 * (the same offsets on every rank, as symmetric memory wants; the send of
 * allgather and gather is the rank's own block, NCCL's layout, which on
 * the root of gather is the root's block): or, where `other` is not NULL,
 * out of place with `other` as send. */
static void inplace_ptrs(uint32_t coll, uint64_t b, uint32_t r, uint32_t root, char *big,
                         char *other, void **send, void **recv)
{
    *send = other != NULL ? other
            : coll == CES_COLL_ALLGATHER || coll == CES_COLL_GATHER ? big + (uint64_t)r * b
                                                                    : big;
    *recv = coll == CES_COLL_SCATTER ? big + (uint64_t)root * b : big;
}

/* What rank r's buffer holds before the call (in place: its part where it
 * belongs; 0xee elsewhere) and, with after != 0, what it must hold after. */
static void inplace_image(uint8_t *h, uint32_t coll, uint64_t b, uint32_t r, uint32_t n,
                          uint32_t root, uint64_t gen, int in_place, int after)
{
    memset(h, 0xee, inplace_len(coll, b, n));
    if (in_place && coll == CES_COLL_ALLGATHER)
        gpu_fill(h + (uint64_t)r * b, b, r, 0, 0, gen);
    if (coll == CES_COLL_GATHER)
        gpu_fill(h + (uint64_t)r * b, b, r, 0, 0, gen);
    if (coll == CES_COLL_SCATTER && r == root)
        gpu_fill(h, b * n, r, 0, 0, gen);
    if ((coll == CES_COLL_BROADCAST && (r == root || after)))
        gpu_fill(h, b, root, 0, 0, gen);
    if (!after)
        return;
    if (coll == CES_COLL_ALLGATHER || (coll == CES_COLL_GATHER && r == root))
        for (uint32_t p = 0; p < n; p++)
            gpu_fill(h + (uint64_t)p * b, b, p, 0, 0, gen);
    if (coll == CES_COLL_SCATTER && r != root)
        gpu_fill(h + (uint64_t)root * b, b, root, 0, (uint64_t)r * b, gen);
}

/* got[0:len) == want[0:len), else the first difference printed. */
static int same_bytes(const char *what, const uint8_t *got, const uint8_t *want, uint64_t len)
{
    for (uint64_t i = 0; i < len; i++) {
        if (got[i] != want[i]) {
            printf("FAIL: %s: byte %" PRIu64 " of %" PRIu64 " is 0x%02x, expected 0x%02x\n",
                   what, i, len, got[i], want[i]);
            return 1;
        }
    }
    return 0;
}

/* A captured collective replayed 100 times; between replays the host
 * changes the send bytes, so a stale replay shows.  In place (`in_place`:
 * every rank passes the in-place pointers of inplace_ptrs, 65539 bytes) the
 * graph uploads the rank's part into place first and every byte of the
 * rank's buffer is checked after each replay. */
static int graph_replays(struct rk *rks, uint32_t m, uint32_t n, uint32_t coll, int in_place)
{
    const uint32_t K = 100;
    uint64_t B = in_place ? 65536 + 3 : 65536;
    uint32_t root = in_place ? n - 1 : 0;
    void *send[MAXR], *recv[MAXR], *big[MAXR];
    uint8_t *hs[MAXR], *hr[MAXR], *want = NULL;
    cudaGraph_t g[MAXR];
    cudaGraphExec_t x[MAXR];
    uint64_t ss, rs;

    if (coll == CES_COLL_ALLTOALL)
        B = (B + n - 1) / n * n; /* a multiple of the ranks, as alltoall needs */
    sizes_of(coll, B, n, &ss, &rs);
    if (in_place) {
        ss = B;
        rs = inplace_len(coll, B, n);
        want = malloc(rs);
        if (want == NULL)
            return 1;
    }
    for (uint32_t i = 0; i < m; i++) {
        if (in_place) {
            CK(&rks[i], "alloc", ces_mem_alloc(rks[i].c, rs, &big[i]));
            inplace_ptrs(coll, B, rks[i].rank, root, big[i], NULL, &send[i], &recv[i]);
            continue;
        }
        CK(&rks[i], "alloc", ces_mem_alloc(rks[i].c, ss, &send[i]));
        CK(&rks[i], "alloc", ces_mem_alloc(rks[i].c, rs, &recv[i]));
        big[i] = recv[i];
    }
    for (uint32_t i = 0; i < m; i++) {
        if (use(&rks[i]))
            return 1;
        CKRT("host", cudaMallocHost((void **)&hs[i], ss));
        CKRT("host", cudaMallocHost((void **)&hr[i], rs));
        CKRT("capture", cudaStreamBeginCapture(rks[i].s, cudaStreamCaptureModeRelaxed));
        /* in place only the ranks with a part upload it */
        if (!in_place || coll != CES_COLL_BROADCAST || rks[i].rank == root)
            CKRT("h2d", cudaMemcpyAsync(send[i], hs[i], ss, cudaMemcpyHostToDevice, rks[i].s));
        CK(&rks[i], "captured collective", call(&rks[i], coll, send[i], recv[i], B, root));
        CKRT("d2h", cudaMemcpyAsync(hr[i], big[i], rs, cudaMemcpyDeviceToHost, rks[i].s));
        CKRT("end capture", cudaStreamEndCapture(rks[i].s, &g[i]));
        CKRT("instantiate", cudaGraphInstantiate(&x[i], g[i], 0));
    }
    for (uint32_t k = 0; k < K; k++) {
        for (uint32_t i = 0; i < m; i++) {
            gpu_fill(hs[i], ss, rks[i].rank, 0, 0, 1000 + k);
            if (use(&rks[i]))
                return 1;
            CKRT("launch", cudaGraphLaunch(x[i], rks[i].s));
        }
        for (uint32_t i = 0; i < m; i++) {
            char tag[96];

            if (use(&rks[i]))
                return 1;
            CKRT("sync", cudaStreamSynchronize(rks[i].s));
            CK(&rks[i], "status", ces_comm_status(rks[i].c));
            snprintf(tag, sizeof(tag), "%sreplay %u rank %u", in_place ? "in-place " : "", k,
                     rks[i].rank);
            if (!in_place && verify(coll, hr[i], B, rks[i].rank, n, 0, 1000 + k, tag))
                return 1;
            if (in_place) {
                inplace_image(want, coll, B, rks[i].rank, n, root, 1000 + k, 1, 1);
                if (same_bytes(tag, hr[i], want, rs))
                    return 1;
            }
        }
    }
    for (uint32_t i = 0; i < m; i++) {
        if (use(&rks[i]))
            return 1;
        cudaGraphExecDestroy(x[i]);
        cudaGraphDestroy(g[i]);
        cudaFreeHost(hs[i]);
        cudaFreeHost(hr[i]);
        CK(&rks[i], "free", ces_mem_free(rks[i].c, big[i]));
        if (!in_place)
            CK(&rks[i], "free", ces_mem_free(rks[i].c, send[i]));
    }
    free(want);
    if (rks[0].rank == 0)
        printf("ok   %u replays of a captured %s%s of %" PRIu64 " B, each checked\n", K,
               in_place ? "in-place " : "", ces_coll_name((int)coll), B);
    return 0;
}

static int part_graph(struct rk *rks, uint32_t m, uint32_t n)
{
    return graph_replays(rks, m, n, CES_COLL_ALLTOALL, 0) ||
           graph_replays(rks, m, n, CES_COLL_ALLGATHER, 0) ||
           /* the root's local copy on the internal stream, captured */
           graph_replays(rks, m, n, CES_COLL_SCATTER, 0) ||
           graph_replays(rks, m, n, CES_COLL_BROADCAST, 0) ||
           /* eager calls after captured ones keep working (other arrays) */
           one_coll(rks, m, n, CES_COLL_ALLTOALL, 4096);
}

/* Whether rank r runs in place: always, or where `mixed` only the even
 * ranks of an allgather and the root of the others (mixed == 2: the other
 * ranks of broadcast and scatter pass no send buffer at all, NULL). */
static int in_place_here(uint32_t coll, uint32_t r, uint32_t root, int mixed)
{
    return !mixed || (coll == CES_COLL_ALLGATHER ? r % 2 == 0 : r == root);
}

/* One eager call of coll at b bytes; `mixed`: allgather with the odd ranks
 * out of place, broadcast with every rank but the root out of place.  Every
 * byte of every rank's buffer compared. */
static int inplace_one(struct rk *rks, uint32_t m, uint32_t n, uint32_t coll, uint64_t b,
                       int mixed)
{
    uint64_t len = inplace_len(coll, b, n);
    uint32_t root = n - 1;
    void *big[MAXR], *other[MAXR];
    uint8_t *h = malloc(len), *want = malloc(len);
    int bad = 0;

    if (h == NULL || want == NULL)
        return 1;
    for (uint32_t i = 0; i < m; i++) {
        CK(&rks[i], "ces_mem_alloc", ces_mem_alloc(rks[i].c, len, &big[i]));
        CK(&rks[i], "ces_mem_alloc", ces_mem_alloc(rks[i].c, b, &other[i]));
    }
    /* every rank's buffers filled before any rank's call: a device-wide
     * sync behind a call that waits for ranks not yet issued would never
     * end where ranks share a GPU */
    for (uint32_t i = 0; i < m; i++) {
        uint32_t r = rks[i].rank;
        int ip = in_place_here(coll, r, root, mixed);

        if (use(&rks[i]))
            return 1;
        inplace_image(h, coll, b, r, n, root, b, ip, 0);
        CKRT("fill", cudaMemcpy(big[i], h, len, cudaMemcpyHostToDevice));
        gpu_fill(h, b, r, 0, 0, b);
        CKRT("fill", cudaMemcpy(other[i], h, b, cudaMemcpyHostToDevice));
        CKRT("sync", cudaDeviceSynchronize());
    }
    for (uint32_t i = 0; i < m; i++) {
        uint32_t r = rks[i].rank;
        int ip = in_place_here(coll, r, root, mixed);
        void *send, *recv;

        inplace_ptrs(coll, b, r, root, big[i], ip ? NULL : other[i], &send, &recv);
        if (!ip && mixed == 2)
            send = NULL;
        CK(&rks[i], ces_coll_name((int)coll), call(&rks[i], coll, send, recv, b, root));
    }
    for (uint32_t i = 0; i < m && !bad; i++) {
        uint32_t r = rks[i].rank;
        int ip = in_place_here(coll, r, root, mixed);
        char what[128];

        if (use(&rks[i]))
            return 1;
        CKRT("stream sync", cudaStreamSynchronize(rks[i].s));
        CK(&rks[i], "communicator status", ces_comm_status(rks[i].c));
        CKRT("read", cudaMemcpy(h, big[i], len, cudaMemcpyDeviceToHost));
        inplace_image(want, coll, b, r, n, root, b, ip, 1);
        snprintf(what, sizeof(what), "%s %s %" PRIu64 " B rank %u (%s)",
                 mixed ? "mixed" : "in place", ces_coll_name((int)coll), b, r,
                 ip ? "in place" : mixed == 2 ? "send NULL" : "out of place");
        bad = same_bytes(what, h, want, len);
        if (!bad && !ip && mixed != 2) { /* the out-of-place send is left as it was */
            CKRT("read", cudaMemcpy(h, other[i], b, cudaMemcpyDeviceToHost));
            gpu_fill(want, b, r, 0, 0, b);
            bad = same_bytes(what, h, want, b);
        }
    }
    for (uint32_t i = 0; i < m; i++) {
        CK(&rks[i], "ces_mem_free", ces_mem_free(rks[i].c, big[i]));
        CK(&rks[i], "ces_mem_free", ces_mem_free(rks[i].c, other[i]));
    }
    free(h);
    free(want);
    if (!bad && rks[0].rank == 0)
        printf("ok   %-9s %10" PRIu64 " B per rank, %u ranks, %s\n", ces_coll_name((int)coll), b,
               n,
               mixed == 2 ? "in place on the root, send NULL on the others"
               : mixed    ? "in place on some ranks"
                          : "in place");
    return bad;
}

static int part_inplace(struct rk *rks, uint32_t m, uint32_t n)
{
    static const uint32_t ip[] = {CES_COLL_ALLGATHER, CES_COLL_GATHER, CES_COLL_SCATTER,
                                  CES_COLL_BROADCAST};
    static const uint64_t sizes[] = {7, 4096, (1u << 20) + 3};

    for (size_t c = 0; c < sizeof(ip) / sizeof(ip[0]); c++)
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
            if (inplace_one(rks, m, n, ip[c], sizes[k], 0))
                return 1;
    return inplace_one(rks, m, n, CES_COLL_ALLGATHER, 4096, 1) ||
           inplace_one(rks, m, n, CES_COLL_BROADCAST, 4096, 1) ||
           inplace_one(rks, m, n, CES_COLL_BROADCAST, 4096, 2) ||
           inplace_one(rks, m, n, CES_COLL_SCATTER, 4096, 2) ||
           graph_replays(rks, m, n, CES_COLL_ALLGATHER, 1) ||
           graph_replays(rks, m, n, CES_COLL_BROADCAST, 1) ||
           /* and out of place again after them */
           one_coll(rks, m, n, CES_COLL_ALLGATHER, 4096);
}

/* ces_launch on the builders' own graphs (flags: CES_COLL_F_*; first: the
 * first iteration's $i, where an earlier launch left its counters). */
static int launch_one(struct rk *rks, uint32_t m, uint32_t n, uint32_t coll, uint32_t proto,
                      uint32_t phase, uint32_t iters, uint32_t flags, uint64_t first)
{
    struct ces_graph *g[MAXR];
    void *send[MAXR], *recv[MAXR];
    uint64_t B = 8192, ss, rs;
    uint8_t *h;

    if (coll == CES_COLL_ALLTOALL)
        B = (B + n - 1) / n * n; /* a multiple of the ranks, as alltoall needs */
    sizes_of(coll, B, n, &ss, &rs);
    h = malloc(ss > rs ? ss : rs);
    for (uint32_t i = 0; i < m; i++) {
        struct ces_coll_params p;

        ces_coll_params_init(&p, coll);
        p.proto = proto;
        p.phase = phase;
        p.iterations = iters;
        p.ranks = n;
        p.bytes = B;
        p.root = 0;
        p.flags = flags;
        p.first_iter = first;
        CK(&rks[i], "ces_coll_build", ces_coll_build(rks[i].ctx, &p, &g[i]));
        CK(&rks[i], "alloc", ces_mem_alloc(rks[i].c, ss, &send[i]));
        CK(&rks[i], "alloc", ces_mem_alloc(rks[i].c, rs, &recv[i]));
        if (use(&rks[i]))
            return 1;
        gpu_fill(h, ss, rks[i].rank, 0, 0, 77);
        CKRT("fill", cudaMemcpy(send[i], h, ss, cudaMemcpyHostToDevice));
        CKRT("clear", cudaMemset(recv[i], 0xee, rs));
        CKRT("sync", cudaDeviceSynchronize());
    }
    for (uint32_t i = 0; i < m; i++) {
        struct ces_binding b[] = {{"send", send[i]}, {"recv", recv[i]}};

        CK(&rks[i], "ces_launch", ces_launch(rks[i].c, g[i], b, 2, rks[i].s));
    }
    for (uint32_t i = 0; i < m; i++) {
        if (use(&rks[i]))
            return 1;
        CKRT("sync", cudaStreamSynchronize(rks[i].s));
        CK(&rks[i], "status", ces_comm_status(rks[i].c));
        CKRT("read", cudaMemcpy(h, recv[i], rs, cudaMemcpyDeviceToHost));
        if (verify(coll, h, B, rks[i].rank, n, 0, 77, "ces_launch"))
            return 1;
        ces_graph_destroy(g[i]);
        CK(&rks[i], "free", ces_mem_free(rks[i].c, send[i]));
        CK(&rks[i], "free", ces_mem_free(rks[i].c, recv[i]));
    }
    free(h);
    if (rks[0].rank == 0)
        printf("ok   ces_launch of the %s %s builder%s%s, %s x%u\n", ces_coll_name((int)coll),
               ces_proto_name((int)proto), (flags & CES_COLL_F_OVERLAP) ? ", overlap" : "",
               (flags & CES_COLL_F_DIRECTED) ? ", directed barriers" : "",
               phase == CES_PHASE_GRAPH ? "graph" : "eager", iters);
    return 0;
}

static int part_launch(struct rk *rks, uint32_t m, uint32_t n)
{
    const uint32_t d = CES_COLL_F_DIRECTED;

    /* Signal arrays keep their values from launch to launch: the mono
     * counters `ready` and `complete` hold 3 after the alltoall's three
     * iterations, so the mono scatter goes on from $i = 4 (from 1 its waits
     * would pass at once; the forked test saw a peer read its recv before
     * the root's copy landed).  The protocols with constant flags leave
     * them reset. */
    return launch_one(rks, m, n, CES_COLL_ALLTOALL, CES_PROTO_CREDIT, CES_PHASE_GRAPH, 5, 0, 1) ||
           launch_one(rks, m, n, CES_COLL_ALLTOALL, CES_PROTO_MONO, CES_PHASE_EAGER, 3, 0, 1) ||
           launch_one(rks, m, n, CES_COLL_ALLGATHER, CES_PROTO_CREDIT, CES_PHASE_EAGER, 2, 0, 1) ||
           launch_one(rks, m, n, CES_COLL_BROADCAST, CES_PROTO_NCCL, CES_PHASE_EAGER, 2, 0, 1) ||
           /* directed barriers (not selected by the collectives) */
           launch_one(rks, m, n, CES_COLL_SCATTER, CES_PROTO_MONO, CES_PHASE_EAGER, 3,
                      d | CES_COLL_F_OVERLAP, 4) ||
           launch_one(rks, m, n, CES_COLL_GATHER, CES_PROTO_CREDIT, CES_PHASE_GRAPH, 3, d, 1) ||
           launch_one(rks, m, n, CES_COLL_BROADCAST, CES_PROTO_PULL, CES_PHASE_GRAPH, 2, d, 1);
}

/* After K groups: every stream drained, every communicator OK, and the K
 * messages each receiver copied to hr checked - in the ring from rank - 1,
 * generation k; one way (rank 1 only) from rank 0, generation K + k. */
static int p2p_check(struct rk *rks, uint32_t m, uint32_t n, uint8_t *const *hr, uint64_t B,
                     uint32_t K, int one_way)
{
    for (uint32_t i = 0; i < m; i++) {
        uint32_t from = one_way ? 0 : (rks[i].rank + n - 1) % n;

        if (use(&rks[i]))
            return 1;
        CKRT("sync", cudaStreamSynchronize(rks[i].s));
        CK(&rks[i], "status", ces_comm_status(rks[i].c));
        for (uint32_t k = 0; k < K && (!one_way || rks[i].rank == 1); k++) {
            char what[64];

            snprintf(what, sizeof(what), "%sgroup %u: rank %u from %u", one_way ? "one-way " : "",
                     k, rks[i].rank, from);
            if (gpu_expect(what, hr[i] + k * B, B, from, 0, 0, one_way ? K + k : k))
                return 1;
        }
    }
    return 0;
}

/* A group every rank refuses: ces_group_end returns CES_OK (in one
 * process, before the last communicator arrives) or CES_ERR_INVALID saying
 * `why`; 1 (printed) otherwise. */
static int refusal(struct rk *r, int rc, const char *why)
{
    if (rc == CES_OK || (rc == CES_ERR_INVALID && strstr(ces_ctx_last_error(r->ctx), why) != NULL))
        return 0;
    printf("FAIL: expected the refusal \"%s\"\n", why);
    return gpu_fail(r->ctx, "ces_group_end", rc);
}

/* Point to point in groups of B-byte messages: a ring (rank r sends to r+1
 * and receives from r-1: ranks exchange, so messages go direct: pushed
 * flags below 8 MiB, polled from 8 MiB), K back-to-back groups with fresh
 * bytes, each checked; then K one-way groups, rank 0 to rank 1 (the other
 * ranks' groups empty; staged unless CES_P2P_STAGE_MAX=0), each checked;
 * then a send without its receive is refused on every rank. */
static int part_p2p(struct rk *rks, uint32_t m, uint32_t n, uint64_t B, uint32_t K)
{
    void *send[MAXR], *recv[MAXR];
    uint8_t *hs[MAXR], *hr[MAXR];
    char why[96];
    int rc = CES_OK;

    if (sym_buffers(rks, m, B, send, recv))
        return 1;
    for (uint32_t i = 0; i < m; i++) {
        if (use(&rks[i]))
            return 1;
        CKRT("host", cudaMallocHost((void **)&hs[i], B * K));
        CKRT("host", cudaMallocHost((void **)&hr[i], B * K));
        for (uint32_t k = 0; k < K; k++)
            gpu_fill(hs[i] + k * B, B, rks[i].rank, 0, 0, k);
    }
    for (uint32_t k = 0; k < K; k++) {
        for (uint32_t i = 0; i < m; i++) {
            struct rk *r = &rks[i];

            if (use(r))
                return 1;
            CKRT("h2d", cudaMemcpyAsync(send[i], hs[i] + k * B, B, cudaMemcpyHostToDevice, r->s));
            CK(r, "ces_group_start", ces_group_start(r->c));
            CK(r, "ces_send", ces_send(r->c, send[i], B, (r->rank + 1) % n));
            CK(r, "ces_recv", ces_recv(r->c, recv[i], B, (r->rank + n - 1) % n));
            CK(r, "ces_group_end", ces_group_end(r->c, r->s));
        }
        /* With one process the group is enqueued when the last communicator
         * calls ces_group_end: only then may later work follow on the
         * streams (cesync.h). */
        for (uint32_t i = 0; i < m; i++) {
            if (use(&rks[i]))
                return 1;
            CKRT("d2h", cudaMemcpyAsync(hr[i] + k * B, recv[i], B, cudaMemcpyDeviceToHost,
                                        rks[i].s));
        }
    }
    if (p2p_check(rks, m, n, hr, B, K, 0))
        return 1;
    /* One way: rank 0 -> rank 1, the bytes of generation K + k. */
    for (uint32_t k = 0; k < K; k++) {
        for (uint32_t i = 0; i < m; i++) {
            struct rk *r = &rks[i];

            if (use(r))
                return 1;
            if (r->rank == 0) {
                gpu_fill(hs[i], B, 0, 0, 0, K + k);
                CKRT("h2d", cudaMemcpyAsync(send[i], hs[i], B, cudaMemcpyHostToDevice, r->s));
                /* the pinned source is reused by the next group */
                CKRT("sync", cudaStreamSynchronize(r->s));
            }
            CK(r, "ces_group_start", ces_group_start(r->c));
            if (r->rank == 0)
                CK(r, "ces_send", ces_send(r->c, send[i], B, 1));
            if (r->rank == 1)
                CK(r, "ces_recv", ces_recv(r->c, recv[i], B, 0));
            CK(r, "ces_group_end", ces_group_end(r->c, r->s));
        }
        for (uint32_t i = 0; i < m; i++) {
            if (rks[i].rank != 1)
                continue;
            if (use(&rks[i]))
                return 1;
            CKRT("d2h", cudaMemcpyAsync(hr[i] + k * B, recv[i], B, cudaMemcpyDeviceToHost,
                                        rks[i].s));
        }
    }
    if (p2p_check(rks, m, n, hr, B, K, 1))
        return 1;
    /* Rank 0 sends to rank 1, which posts nothing: refused everywhere. */
    for (uint32_t i = 0; i < m; i++) {
        struct rk *r = &rks[i];

        CK(r, "ces_group_start", ces_group_start(r->c));
        if (r->rank == 0)
            CK(r, "ces_send", ces_send(r->c, send[i], B, 1));
        rc = ces_group_end(r->c, r->s);
        snprintf(why, sizeof(why),
                 "rank 0 sends %" PRIu64 " bytes to rank 1, which posted no matching receive", B);
        if (refusal(r, rc, why))
            return 1;
    }
    if (rc != CES_ERR_INVALID)
        return gpu_fail(rks[m - 1].ctx, "an unmatched send was accepted", rc);
    for (uint32_t i = 0; i < m; i++) {
        cudaFreeHost(hs[i]);
        cudaFreeHost(hr[i]);
        CK(&rks[i], "free", ces_mem_free(rks[i].c, send[i]));
        CK(&rks[i], "free", ces_mem_free(rks[i].c, recv[i]));
    }
    if (rks[0].rank == 0)
        printf("ok   %u ring groups and %u one-way groups of ces_send/ces_recv of %" PRIu64
               " B, each checked; an unmatched send refused\n", K, K, B);
    return 0;
}

/* Declares rank r's part of the ring (way 0: r sends to r+1, receives from
 * r-1) or of the one-way pair (way 1: rank 0 to rank 1) and ends the group. */
static int p2p_group(struct rk *r, uint32_t n, int way, void *send, void *recv, uint64_t B)
{
    CK(r, "ces_group_start", ces_group_start(r->c));
    if (way == 0 || r->rank == 0)
        CK(r, "ces_send", ces_send(r->c, send, B, (r->rank + 1) % n));
    if (way == 0 || r->rank == 1)
        CK(r, "ces_recv", ces_recv(r->c, recv, B, (r->rank + n - 1) % n));
    return ces_group_end(r->c, r->s);
}

/* Rank i's part of one captured group call c of part_p2pgraph: the upload
 * of its send buffer from up[c], the group, the download of its receive
 * buffer into down[c]; the last ces_group_end of the process enqueues
 * every rank's group, so the downloads follow in a second loop. */
static int capture_call(struct rk *rks, uint32_t m, uint32_t n, int way, void *const *send,
                        void *const *recv, uint8_t *(*up)[2], uint8_t *(*down)[2],
                        uint32_t c, uint64_t B)
{
    for (uint32_t i = 0; i < m; i++) {
        struct rk *r = &rks[i];

        if (use(r))
            return 1;
        CKRT("h2d", cudaMemcpyAsync(send[i], up[i][c], B, cudaMemcpyHostToDevice, r->s));
        CK(r, "captured group", p2p_group(r, n, way, send[i], recv[i], B));
    }
    for (uint32_t i = 0; i < m; i++) {
        if (use(&rks[i]))
            return 1;
        CKRT("d2h", cudaMemcpyAsync(down[i][c], recv[i], B, cudaMemcpyDeviceToHost, rks[i].s));
    }
    return 0;
}

/* Point to point captured into CUDA graphs: every rank captures an upload
 * of its send buffer, a group and a download of its receive buffer, then
 * replays that graph 20 times with fresh bytes, each replay checked - a
 * ring (in place), one way (rank 0 to rank 1: staged, one slot every
 * replay), and one way twice in one graph (the two slots); then an eager
 * one-way group after those replays (its own slots), checked; then a group
 * that rank 0 captures and the others do not is refused. */
static int part_p2pgraph(struct rk *rks, uint32_t m, uint32_t n)
{
    const uint32_t K = 20;
    const uint64_t B = (1u << 20) + 3;
    void *send[MAXR], *recv[MAXR];
    uint8_t *up[MAXR][2], *down[MAXR][2], *hr[MAXR];
    cudaGraph_t graph;
    cudaGraphExec_t exec[MAXR];
    int rc = CES_OK;

    if (sym_buffers(rks, m, B, send, recv))
        return 1;
    for (uint32_t i = 0; i < m; i++) {
        if (use(&rks[i]))
            return 1;
        for (int c = 0; c < 2; c++) {
            CKRT("host", cudaMallocHost((void **)&up[i][c], B));
            CKRT("host", cudaMallocHost((void **)&down[i][c], B));
        }
        CKRT("host", cudaMallocHost((void **)&hr[i], 2 * B * K));
    }
    for (int way = 0; way < 3; way++) {
        /* calls per graph; results per way: way 0 K, way 1 K, way 2 2K
         * (generations K + j of p2p_check's one-way count) */
        uint32_t calls = way == 2 ? 2 : 1, kk = calls * K;

        for (uint32_t i = 0; i < m; i++) {
            if (use(&rks[i]))
                return 1;
            CKRT("capture", cudaStreamBeginCapture(rks[i].s, cudaStreamCaptureModeRelaxed));
        }
        for (uint32_t c = 0; c < calls; c++)
            if (capture_call(rks, m, n, way > 0, send, recv, up, down, c, B))
                return 1;
        for (uint32_t i = 0; i < m; i++) {
            if (use(&rks[i]))
                return 1;
            CKRT("end capture", cudaStreamEndCapture(rks[i].s, &graph));
            CKRT("instantiate", cudaGraphInstantiate(&exec[i], graph, 0));
            cudaGraphDestroy(graph);
        }
        for (uint32_t k = 0; k < K; k++) {
            for (uint32_t i = 0; i < m; i++) {
                if (use(&rks[i]))
                    return 1;
                for (uint32_t c = 0; c < calls; c++)
                    gpu_fill(up[i][c], B, rks[i].rank, 0, 0,
                             way ? kk + calls * k + c : k);
                CKRT("replay", cudaGraphLaunch(exec[i], rks[i].s));
            }
            for (uint32_t i = 0; i < m; i++) {
                if (use(&rks[i]))
                    return 1;
                CKRT("sync", cudaStreamSynchronize(rks[i].s));
                for (uint32_t c = 0; c < calls; c++)
                    memcpy(hr[i] + (calls * k + c) * B, down[i][c], B);
            }
        }
        if (p2p_check(rks, m, n, hr, B, kk, way > 0))
            return 1;
        for (uint32_t i = 0; i < m; i++)
            cudaGraphExecDestroy(exec[i]);
    }
    /* an eager one-way group after the replays: its own slots and flags */
    for (uint32_t i = 0; i < m; i++) {
        if (use(&rks[i]))
            return 1;
        gpu_fill(up[i][0], B, rks[i].rank, 0, 0, 1);
        CKRT("h2d", cudaMemcpyAsync(send[i], up[i][0], B, cudaMemcpyHostToDevice, rks[i].s));
        CK(&rks[i], "eager group", p2p_group(&rks[i], n, 1, send[i], recv[i], B));
    }
    for (uint32_t i = 0; i < m; i++) {
        if (use(&rks[i]))
            return 1;
        CKRT("d2h", cudaMemcpyAsync(hr[i], recv[i], B, cudaMemcpyDeviceToHost, rks[i].s));
    }
    if (p2p_check(rks, m, n, hr, B, 1, 1))
        return 1;
    /* Rank 0 captures, the others do not: refused everywhere. */
    for (uint32_t i = 0; i < m; i++) {
        struct rk *r = &rks[i];

        if (use(r))
            return 1;
        if (r->rank == 0)
            CKRT("capture", cudaStreamBeginCapture(r->s, cudaStreamCaptureModeRelaxed));
        rc = p2p_group(r, n, 0, send[i], recv[i], B);
        if (refusal(r, rc, "rank 0 captures the group into a CUDA graph and rank 1 does not"))
            return 1;
    }
    if (rc != CES_ERR_INVALID)
        return gpu_fail(rks[m - 1].ctx, "a group captured on one rank only was accepted", rc);
    for (uint32_t i = 0; i < m; i++) {
        if (rks[i].rank != 0)
            continue;
        if (use(&rks[i]))
            return 1;
        CKRT("end capture", cudaStreamEndCapture(rks[i].s, &graph));
        cudaGraphDestroy(graph);
    }
    for (uint32_t i = 0; i < m; i++) {
        for (int c = 0; c < 2; c++) {
            cudaFreeHost(up[i][c]);
            cudaFreeHost(down[i][c]);
        }
        cudaFreeHost(hr[i]);
        CK(&rks[i], "free", ces_mem_free(rks[i].c, send[i]));
        CK(&rks[i], "free", ces_mem_free(rks[i].c, recv[i]));
    }
    if (rks[0].rank == 0)
        printf("ok   %u replays of a captured ring group, of a captured one-way group and of "
               "two in one graph, of %" PRIu64 " B, each checked; an eager one-way group after "
               "them; a group captured on one rank only refused\n", K, B);
    return 0;
}

static int run_part(const char *part, struct rk *rks, uint32_t m, uint32_t n)
{
    if (strcmp(part, "p2p") == 0)
        return part_p2p(rks, m, n, (1u << 20) + 3, 50);
    if (strcmp(part, "p2pbig") == 0)
        return part_p2p(rks, m, n, (UINT64_C(8) << 20) + 3, 10);
    if (strcmp(part, "p2pgraph") == 0)
        return part_p2pgraph(rks, m, n);
    if (strcmp(part, "coll") == 0)
        return part_coll(rks, m, n, 0);
    if (strcmp(part, "big") == 0)
        return part_coll(rks, m, n, 1);
    if (strcmp(part, "iters") == 0)
        return part_iters(rks, m, n);
    if (strcmp(part, "graph") == 0)
        return part_graph(rks, m, n);
    if (strcmp(part, "launch") == 0)
        return part_launch(rks, m, n);
    if (strcmp(part, "inplace") == 0)
        return part_inplace(rks, m, n);
    if (strcmp(part, "streams") == 0)
        return part_streams(rks, m, n);
    printf("unknown part %s\n", part);
    return 1;
}

static int rank_main(uint32_t rank, uint32_t nforked, const char *path, void *arg)
{
    const struct job *job = arg;
    struct rk rks[MAXR];
    struct ces_comm *comms[MAXR];
    uint32_t n = job->n, m = job->single ? n : 1;
    int rc, bad;

    (void)nforked;
    memset(rks, 0, sizeof(rks));
    /* The communicators of one process share the context given at init. */
    if (ces_ctx_create(NULL, &rks[0].ctx) != CES_OK)
        return 1;
    for (uint32_t i = 1; i < m; i++)
        rks[i].ctx = rks[0].ctx;
    if (job->single)
        rc = ces_comm_init_all(rks[0].ctx, n, NULL, comms);
    else
        rc = ces_comm_init(rks[0].ctx, rank, n, (int)(rank % job->gpus), path, &comms[0]);
    if (job->refused != NULL) {
        if (rc == CES_ERR_UNSUPPORTED &&
            strstr(ces_ctx_last_error(rks[0].ctx), job->refused) != NULL) {
            printf("ok   refused: %s\n", ces_ctx_last_error(rks[0].ctx));
            ces_ctx_destroy(rks[0].ctx);
            return 0;
        }
        printf("FAIL: %u ranks of one process on %u GPU%s not refused ('%s' expected): %s\n",
               n, job->gpus, job->gpus == 1 ? "" : "s", job->refused,
               rc == CES_OK ? "initialized" : ces_ctx_last_error(rks[0].ctx));
        return 1;
    }
    if (rc != CES_OK)
        return gpu_fail(rks[0].ctx, "communicator init", rc);
    for (uint32_t i = 0; i < m; i++) {
        rks[i].c = comms[i];
        rks[i].rank = ces_comm_rank(comms[i]);
        if (use(&rks[i]))
            return 1;
        CKRT("stream", cudaStreamCreateWithFlags(&rks[i].s, cudaStreamNonBlocking));
    }
    bad = run_part(job->part, rks, m, n);
    for (uint32_t i = 0; i < m; i++) {
        use(&rks[i]);
        cudaStreamDestroy(rks[i].s);
        if (ces_comm_destroy(rks[i].c) != CES_OK && !bad)
            bad = gpu_fail(rks[0].ctx, "ces_comm_destroy", -1);
    }
    ces_ctx_destroy(rks[0].ctx);
    return bad;
}

/* A dumped schedule of several streams OK under every assignment of each
 * rank's streams to hardware queues that CUDA may make (checked as
 * `connections any`; where there are at most 1,000 of them, which leaves
 * out the 8-rank schedules of three streams, 5^8): it runs safely whatever
 * queues its streams got here, which the process does not say. */
static int sweep_queues(struct ces_ctx *ctx, struct ces_graph *g, const char *name)
{
    uint32_t S = ces_graph_streams(g);
    struct ces_check_opts o;
    struct ces_check_report *rep = NULL;
    char v[64];
    int bad, rc;

    if (S < 2 || ces_queue_map_count(ces_graph_ranks(g), S, S) > 1000)
        return 0;
    rc = ces_graph_set_connections(g, CES_CONNECTIONS_ANY);
    if (rc != CES_OK)
        return gpu_fail(ctx, name, rc);
    ces_check_opts_init(&o);
    o.max_seconds = 60;
    rc = ces_check(ctx, g, &o, &rep);
    if (rc != CES_OK)
        return gpu_fail(ctx, name, rc);
    bad = ces_check_report_verdict(rep) != CES_V_OK;
    ces_verdict_format(ces_check_report_verdict(rep), v, sizeof(v));
    if (bad) {
        printf("FAIL %s: verdict %s as connections any\n", name, v);
        ces_check_report_print(ctx, rep, stdout);
    } else {
        printf("ok   %s: OK under every queue assignment\n", name);
    }
    ces_check_report_destroy(rep);
    return bad;
}

/* Every schedule the runs dumped must declare the hardware queues it ran
 * over (where its streams outnumber them, the shared ones) and be proved
 * under them by the model checker, and under every other assignment of
 * its streams to queues. */
static int check_dumps(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int bad = 0, count = 0;
    struct ces_ctx *ctx = NULL;

    if (d == NULL || ces_ctx_create(NULL, &ctx) != CES_OK)
        return 1;
    while ((e = readdir(d)) != NULL) {
        char path[1024], v[64];
        struct ces_graph *g = NULL;
        struct ces_check_report *rep = NULL;
        struct ces_check_opts o;
        int rc;

        if (strstr(e->d_name, ".ces") == NULL)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        rc = ces_graph_load(ctx, path, &g);
        if (rc != CES_OK) {
            bad |= gpu_fail(ctx, path, rc);
            continue;
        }
        rc = gpu_queues_declared(ctx, g);
        if (rc != CES_OK) {
            bad |= gpu_fail(ctx, path, rc);
            ces_graph_destroy(g);
            continue;
        }
        ces_check_opts_init(&o);
        o.max_seconds = 60;
        rc = ces_check(ctx, g, &o, &rep);
        if (rc != CES_OK) {
            bad |= gpu_fail(ctx, path, rc);
        } else {
            ces_verdict_format(ces_check_report_verdict(rep), v, sizeof(v));
            printf("%s %s: verdict %s (%" PRIu64 " states)\n",
                   ces_check_report_verdict(rep) == CES_V_OK ? "ok  " : "FAIL", e->d_name, v,
                   ces_check_report_stats(rep).states);
            bad |= ces_check_report_verdict(rep) != CES_V_OK;
            bad |= sweep_queues(ctx, g, e->d_name);
        }
        count++;
        ces_check_report_destroy(rep);
        ces_graph_destroy(g);
    }
    closedir(d);
    ces_ctx_destroy(ctx);
    if (count == 0) {
        printf("FAIL: no schedule was dumped into %s\n", dir);
        return 1;
    }
    return bad;
}

int main(int argc, char **argv)
{
    struct job job = {0};
    uint32_t n;
    int gpus = gpu_count(), bad, dump;
    char top[CES_TEST_TMPDIR_SIZE], dir[800];

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 3) {
        fprintf(stderr, "usage: test_gpu_coll forked|single "
                        "coll|big|iters|graph|launch|inplace|p2p|p2pbig|p2pgraph [RANKS]\n");
        return 2;
    }
    n = argc > 3 ? (uint32_t)atoi(argv[3]) : (uint32_t)(gpus > MAXR ? MAXR : gpus < 2 ? 2 : gpus);
    if (n < 1 || n > MAXR) {
        printf("FAIL: %u ranks (1..%d)\n", n, MAXR);
        return 2;
    }
    if (!gpu_ranks_fit(gpus, n))
        return GPU_SKIP;
    job.gpus = (uint32_t)gpus;
    job.single = strcmp(argv[1], "single") == 0;
    job.part = argv[2];
    job.n = n;
    if (job.single && n > (uint32_t)gpus && gpu_queues_shared())
        job.refused = " share GPU ";
    else if (job.single && gpu_crowded(gpus, n))
        job.refused = " ranks of one process on GPU ";
    dump = strcmp(job.part, "coll") == 0 || strcmp(job.part, "graph") == 0 ||
           strcmp(job.part, "inplace") == 0 ||
           strcmp(job.part, "p2pbig") == 0 || strcmp(job.part, "p2pgraph") == 0;
    if (dump) {
        /* a directory in TMPDIR (a name of at most 80 bytes), removed
         * unless a dump failed */
        if (ces_test_mkdtemp(top, sizeof(top)) != 0) {
            printf("FAIL: cannot make a directory in %s (TMPDIR, at most %d characters): %s\n",
                   ces_test_tmp_base(), CES_TEST_TMP_BASE_MAX, strerror(errno));
            return 1;
        }
        snprintf(dir, sizeof(dir), "%s", top);
        /* graph dumps under a path of over 600 bytes: the dump's path was
         * cut at 511 bytes, and nothing was written */
        for (int k = 0; k < 3 && strcmp(job.part, "graph") == 0; k++) {
            size_t at = strlen(dir);

            dir[at] = '/';
            memset(dir + at + 1, 'd', 200);
            dir[at + 201] = '\0';
            if (mkdir(dir, 0700) != 0) {
                printf("FAIL: cannot make %s: %s\n", dir, strerror(errno));
                ces_test_remove_tree(top);
                return 1;
            }
        }
        setenv("CES_DUMP_SCHEDULE", dir, 1);
    }
    printf("%s %s, %u ranks on %d GPUs (CES_TIMEOUT_MS=%s)\n", argv[1], job.part, n, gpus,
           getenv("CES_TIMEOUT_MS") ? getenv("CES_TIMEOUT_MS") : "default");
    if (job.single)
        bad = gpu_fork_ranks(1, rank_main, &job, GPU_DEADLINE_S, NULL);
    else
        bad = gpu_fork_ranks(n, rank_main, &job, GPU_DEADLINE_S, NULL);
    if (!bad && job.refused != NULL) {
        printf("skipped: %u ranks share %d GPU%s in one process (refused, as it must be)\n", n,
               gpus, gpus == 1 ? "" : "s");
        if (dump)
            ces_test_remove_tree(top);
        return GPU_SKIP;
    }
    if (!bad && dump)
        bad = check_dumps(dir);
    if (dump && !bad)
        ces_test_remove_tree(top);
    else if (dump)
        printf("the dumped schedules are kept in %s\n", top);
    printf("%s\n", bad ? "FAILED" : "PASSED");
    return bad;
}
