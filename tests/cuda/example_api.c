/*
 * example_api.c - the example program of docs/API.md (the page shows it
 * from its first line of code on; tests/install/check.sh compares the
 * two): one process per GPU, an alltoall on a user stream, every byte
 * checked, the same alltoall captured in a CUDA graph and replayed into a
 * cleared recv, every byte checked again.  Build against libcesync and the
 * CUDA runtime; run it as N processes with RANK, WORLD_SIZE, LOCAL_RANK and
 * CES_RENDEZVOUS set (torchrun style), or with no RANK at all to have it fork
 * one process per GPU itself (two on one GPU with CES_SHARE_GPUS=1).
 */
#define _POSIX_C_SOURCE 200809L /* fork, setenv, waitpid under -std=c11 */

#include <cesync.h>
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Word k of rank r's send holds r << 32 | k, so that every word says where
 * it came from.  1 if recv (copied to host, `words` of them) is not what
 * the alltoall delivers: its chunk p is chunk `rank` of rank p's send. */
static int wrong(const uint64_t *host, size_t words, uint32_t rank, uint32_t n)
{
    size_t chunk = words / n;

    for (size_t k = 0; k < words; k++) {
        uint64_t from = k / chunk, at = rank * chunk + k % chunk;

        if (host[k] != (from << 32 | at))
            return 1;
    }
    return 0;
}

static int rank_main(void)
{
    struct ces_ctx *ctx = NULL;
    struct ces_comm *comm = NULL;
    cudaStream_t stream;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    void *send, *recv;
    uint64_t *host;
    size_t bytes; /* alltoall: bytes per rank in total, bytes/n per peer */
    uint32_t rank, n;
    int rc, bad = 0;

    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return 1;
    /* RANK, WORLD_SIZE, LOCAL_RANK from the environment; the rendezvous
     * socket from CES_RENDEZVOUS. */
    rc = ces_comm_init_env(ctx, NULL, &comm);
    if (rc != CES_OK) {
        fprintf(stderr, "init: %s\n", ces_ctx_last_error(ctx));
        return 1;
    }
    rank = ces_comm_rank(comm);
    n = ces_comm_size(comm);
    bytes = (size_t)n << 18; /* a multiple of n, as alltoall needs: 256 KiB per peer */
    cudaSetDevice(ces_comm_device(comm));
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);

    /* Symmetric buffers: collective calls, same sizes on every rank. */
    if (ces_mem_alloc(comm, bytes, &send) != CES_OK ||
        ces_mem_alloc(comm, bytes, &recv) != CES_OK) {
        fprintf(stderr, "alloc: %s\n", ces_ctx_last_error(ctx));
        return 1;
    }
    host = malloc(bytes);
    for (size_t k = 0; k < bytes / 8; k++)
        host[k] = (uint64_t)rank << 32 | k;
    cudaMemcpy(send, host, bytes, cudaMemcpyHostToDevice);

    /* Eager: mono protocol, one cudaMemcpyBatchAsync, no kernel. */
    rc = ces_alltoall(comm, send, recv, bytes, stream);
    if (rc == CES_OK && cudaStreamSynchronize(stream) != cudaSuccess)
        rc = CES_ERR_CUDA;
    if (rc == CES_OK)
        rc = ces_comm_status(comm); /* CES_ERR_TIMEOUT if the watchdog fired */
    if (rc != CES_OK) {
        fprintf(stderr, "alltoall: %s\n", ces_ctx_last_error(ctx));
        return 1;
    }
    cudaMemcpy(host, recv, bytes, cudaMemcpyDeviceToHost);
    bad |= wrong(host, bytes / 8, rank, n);

    /* Captured: a graph-safe protocol, replayable any number of times. */
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed);
    rc = ces_alltoall(comm, send, recv, bytes, stream);
    cudaStreamEndCapture(stream, &graph);
    if (rc != CES_OK) {
        fprintf(stderr, "captured alltoall: %s\n", ces_ctx_last_error(ctx));
        return 1;
    }
    cudaGraphInstantiate(&exec, graph, 0);
    cudaMemsetAsync(recv, 0, bytes, stream); /* so the replays must deliver every byte again */
    for (int k = 0; k < 10; k++)
        cudaGraphLaunch(exec, stream);
    cudaStreamSynchronize(stream);
    bad |= ces_comm_status(comm) != CES_OK;
    cudaMemcpy(host, recv, bytes, cudaMemcpyDeviceToHost);
    bad |= wrong(host, bytes / 8, rank, n);
    printf("rank %u: %s\n", rank, bad ? "FAILED" : "ok");

    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    free(host);
    ces_mem_free(comm, send);
    ces_mem_free(comm, recv);
    cudaStreamDestroy(stream);
    ces_comm_destroy(comm);
    ces_ctx_destroy(ctx);
    return bad;
}

int main(void)
{
    int n = 0, bad = 0, rc;
    const char *tmp = getenv("TMPDIR");
    char path[256];
    pid_t pid[8];

    if (getenv("RANK") != NULL)
        return rank_main();
    /* No launcher: count the GPUs in a child (CUDA must not be initialized
     * before fork) and fork one rank per GPU, at most 8. */
    if ((pid[0] = fork()) == 0)
        _exit(cudaGetDeviceCount(&n) == cudaSuccess ? (n > 8 ? 8 : n) : 0);
    waitpid(pid[0], &n, 0);
    n = WIFEXITED(n) ? WEXITSTATUS(n) : 0;
    /* CES_SHARE_GPUS=1 lets ranks share a GPU (LOCAL_RANK wraps onto the GPUs) */
    if (n == 1 && getenv("CES_SHARE_GPUS") != NULL && strtoul(getenv("CES_SHARE_GPUS"), NULL, 10))
        n = 2;
    if (n < 2) {
        printf("skipped: needs 2 GPUs, or CES_SHARE_GPUS=1\n");
        return 77;
    }
    /* The rendezvous socket in TMPDIR, else /tmp (ces_comm_init_env refuses
     * a path longer than a socket's 107 bytes, cut short here or not). */
    if (tmp == NULL || tmp[0] == '\0')
        tmp = "/tmp";
    snprintf(path, sizeof(path), "%s/cesync-example-%d.sock", tmp, (int)getpid());
    for (int r = 0; r < n; r++) {
        if ((pid[r] = fork()) == 0) {
            char rs[16], ws[16];

            snprintf(rs, sizeof(rs), "%d", r);
            snprintf(ws, sizeof(ws), "%d", n);
            setenv("RANK", rs, 1);
            setenv("LOCAL_RANK", rs, 1);
            setenv("WORLD_SIZE", ws, 1);
            setenv("CES_RENDEZVOUS", path, 1);
            rc = rank_main();
            fflush(stdout); /* _exit does not: its line was lost in a pipe */
            _exit(rc);
        }
    }
    for (int r = 0; r < n; r++) {
        int st = 0;

        waitpid(pid[r], &st, 0);
        bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    return bad;
}
