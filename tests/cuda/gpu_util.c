/*
 * tests/cuda/gpu_util.c - helpers of the GPU tests (see gpu_util.h).
 */
#include "gpu_util.h"

#include "ces_test.h" /* the tests' TMPDIR */

#include "runtime.h" /* the library's rules for the environment */

#include <cuda_runtime.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

uint64_t gpu_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int gpu_count(void)
{
    pid_t pid = fork();
    int st = 0;

    if (pid < 0)
        return 0;
    if (pid == 0) {
        int n = 0;

        if (cudaGetDeviceCount(&n) != cudaSuccess)
            n = 0;
        _exit(n > 100 ? 100 : n);
    }
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return 0;
    return WEXITSTATUS(st);
}

int gpu_queues_shared(void)
{
    return ces_cuda_queues_shared(ces_cuda_queues(getenv("CUDA_DEVICE_MAX_CONNECTIONS"))) != 0;
}

int gpu_queues_declared(struct ces_ctx *ctx, const struct ces_graph *g)
{
    return ces_cuda_queues_check(ctx, g, ces_cuda_queues(getenv("CUDA_DEVICE_MAX_CONNECTIONS")));
}

int gpu_crowded(int gpus, uint32_t n)
{
    int dev[CES_MAX_RANKS], busy = -1;

    if (gpus < 1 || n > CES_MAX_RANKS)
        return 0;
    for (uint32_t r = 0; r < n; r++)
        dev[r] = (int)(r % (uint32_t)gpus);
    return ces_cuda_gpu_crowd(dev, n, &busy) > CES_CUDA_GPU_RANKS_MAX;
}

int gpu_ranks_fit(int gpus, uint32_t n)
{
    struct ces_ctx *ctx = NULL;
    int share = 0;

    if (gpus < 1) {
        printf("skipped: no GPU\n");
        return 0;
    }
    if (n <= (uint32_t)gpus)
        return 1;
    if (ces_ctx_create(NULL, &ctx) == CES_OK && ces_cuda_share_gpus(ctx, &share) != CES_OK)
        printf("skipped: %u ranks, %d GPU%s (%s)\n", n, gpus, gpus == 1 ? "" : "s",
               ces_ctx_last_error(ctx));
    else if (!share)
        printf("skipped: %u ranks, %d GPU%s (CES_SHARE_GPUS=1 lets ranks share them)\n", n, gpus,
               gpus == 1 ? "" : "s");
    ces_ctx_destroy(ctx);
    return share;
}

int gpu_fork_ranks(uint32_t n, int (*fn)(uint32_t, uint32_t, const char *, void *), void *arg,
                   unsigned timeout_s, const int *expect_killed)
{
    char dir[CES_TEST_TMPDIR_SIZE], path[CES_TEST_TMPDIR_SIZE + 16];
    pid_t pids[64];
    int bad = 0;
    uint32_t left = n;
    uint64_t deadline = gpu_now_ms() + (uint64_t)timeout_s * 1000u;

    /* the bootstrap's socket in a directory of its own in TMPDIR */
    if (ces_test_mkdtemp(dir, sizeof(dir)) != 0) {
        printf("FAIL: cannot make a directory in %s (TMPDIR, at most %d characters): %s\n",
               ces_test_tmp_base(), CES_TEST_TMP_BASE_MAX, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof(path), "%s/boot.sock", dir);
    fflush(stdout);
    fflush(stderr);
    for (uint32_t r = 0; r < n; r++) {
        pids[r] = fork();
        if (pids[r] == 0)
            _exit(fn(r, n, path, arg));
    }
    while (left > 0) {
        int st = 0;
        pid_t pid = waitpid(-1, &st, WNOHANG);

        if (pid > 0) {
            for (uint32_t r = 0; r < n; r++) {
                if (pids[r] != pid)
                    continue;
                pids[r] = 0;
                left--;
                if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && expect_killed != NULL &&
                    expect_killed[r])
                    break;
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                    printf("rank %u: %s %d\n", r, WIFEXITED(st) ? "exit" : "signal",
                           WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
                    bad = 1;
                }
            }
            continue;
        }
        if (gpu_now_ms() > deadline) {
            printf("FAIL: ranks still running after %u s; killing them\n", timeout_s);
            for (uint32_t r = 0; r < n; r++)
                if (pids[r] > 0)
                    kill(pids[r], SIGKILL);
            bad = 1;
            deadline = UINT64_MAX;
        }
        {
            struct timespec ts = {0, 5000000L};

            nanosleep(&ts, NULL);
        }
    }
    ces_test_remove_tree(dir);
    return bad;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t word(uint32_t rank, uint32_t buf, uint64_t w, uint64_t gen)
{
    return mix(w ^ ((uint64_t)rank << 56) ^ ((uint64_t)buf << 48) ^ (gen * 0x100000001b3ull));
}

uint8_t gpu_pat(uint32_t rank, uint32_t buf, uint64_t off, uint64_t gen)
{
    return (uint8_t)(word(rank, buf, off >> 3, gen) >> ((off & 7) * 8));
}

void gpu_fill(uint8_t *dst, uint64_t n, uint32_t rank, uint32_t buf, uint64_t off, uint64_t gen)
{
    uint64_t i = 0;

    for (; i < n && ((off + i) & 7) != 0; i++)
        dst[i] = gpu_pat(rank, buf, off + i, gen);
    for (; i + 8 <= n; i += 8) {
        uint64_t w = word(rank, buf, (off + i) >> 3, gen);

        memcpy(dst + i, &w, 8); /* little endian: byte k = bits 8k.. */
    }
    for (; i < n; i++)
        dst[i] = gpu_pat(rank, buf, off + i, gen);
}

int gpu_expect(const char *what, const uint8_t *got, uint64_t n, uint32_t rank, uint32_t buf,
               uint64_t off, uint64_t gen)
{
    for (uint64_t i = 0; i < n; i++) {
        uint8_t want = gpu_pat(rank, buf, off + i, gen);

        if (got[i] != want) {
            uint64_t bad = 0;

            for (uint64_t j = i; j < n; j++)
                bad += got[j] != gpu_pat(rank, buf, off + j, gen);
            printf("FAIL: %s: byte %" PRIu64 " is 0x%02x, expected 0x%02x (pattern of rank %u "
                   "buffer %u offset %" PRIu64 " generation %" PRIu64 "); %" PRIu64
                   " of %" PRIu64 " bytes differ\n",
                   what, i, got[i], want, rank, buf, off + i, gen, bad, n);
            return 1;
        }
    }
    return 0;
}

int gpu_fail(struct ces_ctx *ctx, const char *what, int rc)
{
    printf("FAIL: %s: %s (%d): %s\n", what, ces_status_str(rc), rc,
           ctx ? ces_ctx_last_error(ctx) : "");
    fflush(stdout);
    return 1;
}
