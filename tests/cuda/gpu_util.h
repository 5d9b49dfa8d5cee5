/*
 * tests/cuda/gpu_util.h - what the GPU tests share: finding GPUs without
 * initializing CUDA in the parent (so that it can still fork ranks), forking
 * one process per rank with a deadline, byte patterns, and checks that
 * print what differs.  GPU tests exit 0 (pass), 1 (fail) or 77 (skipped: no
 * GPU, or fewer GPUs than ranks and no CES_SHARE_GPUS); they never pass
 * without running.
 */
#ifndef CES_GPU_UTIL_H
#define CES_GPU_UTIL_H

#include "cesync.h"

#include <stddef.h>
#include <stdint.h>

#define GPU_SKIP 77
/* How long the forked ranks of a test may run before it kills them and
 * fails: below every ctest TIMEOUT of the GPU tests (60 s and up), so a hang
 * is the test's own failure, every rank killed, not ctest's timeout. */
#define GPU_DEADLINE_S 50

/* Number of CUDA devices, probed in a child process (0 if none). */
int gpu_count(void);

/* Whether n ranks of one process, rank r on GPU r % gpus, are more on a
 * GPU than ces_comm_init_all allows (it refuses them). */
int gpu_crowded(int gpus, uint32_t n);
/* Whether n ranks can run on `gpus` GPUs: one GPU each, or any GPU at all
 * where CES_SHARE_GPUS lets ranks share them (the library's rule; a value
 * it refuses shares none).  When not, prints why as "skipped: ..." and
 * returns 0. */
int gpu_ranks_fit(int gpus, uint32_t n);
/* Whether CUDA_DEVICE_MAX_CONNECTIONS gives a process's streams on one GPU
 * fewer hardware queues than CUDA's default (the library's rule). */
int gpu_queues_shared(void);
/* Whether graph g declares the hardware queues this process has
 * (CUDA_DEVICE_MAX_CONNECTIONS; the launch's rule): CES_OK, or the error
 * with its message in ctx. */
int gpu_queues_declared(struct ces_ctx *ctx, const struct ces_graph *g);

/* Forks n children; child r runs fn(r, n, path, arg) and exits with its
 * return value.  Waits at most timeout_s; kills the rest then.  Returns 0 if
 * every child exited 0, else 1.  `expect_killed` (may be NULL) names ranks
 * allowed to die by SIGKILL. */
int gpu_fork_ranks(uint32_t n, int (*fn)(uint32_t rank, uint32_t n, const char *path, void *arg),
                   void *arg, unsigned timeout_s, const int *expect_killed);

/* The test pattern: byte `off` of buffer `buf` of rank `rank`, generation gen. */
uint8_t gpu_pat(uint32_t rank, uint32_t buf, uint64_t off, uint64_t gen);
void gpu_fill(uint8_t *dst, uint64_t n, uint32_t rank, uint32_t buf, uint64_t off, uint64_t gen);
/* 0 if got[0:n] equals the pattern; else prints the first difference. */
int gpu_expect(const char *what, const uint8_t *got, uint64_t n, uint32_t rank, uint32_t buf,
               uint64_t off, uint64_t gen);

/* Prints "FAIL: ..." with the context's last error and returns 1. */
int gpu_fail(struct ces_ctx *ctx, const char *what, int rc);

uint64_t gpu_now_ms(void);

#endif
