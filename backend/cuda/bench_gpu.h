/*
 * backend/cuda/bench_gpu.h - the GPU side of `cesync bench`: one process
 * drives every GPU; it times cesync's collectives, NCCL's kernel and
 * copy-engine paths (NCCL loaded with dlopen, never linked), the raw peer
 * copy, a compute-bound kernel beside them, and the calibration of the
 * machine model.  Private to the bench (tools/bench.c includes it when built
 * with CUDA).
 */
#ifndef CES_BENCH_GPU_H
#define CES_BENCH_GPU_H

#include "cesync.h"

#include <stdio.h>

enum ces_bench_impl {
    CES_BI_CESYNC = 0,  /* cesync: the backend's collective, or a builder variant via ces_launch */
    CES_BI_NCCL_KERNEL, /* NCCL, default config, cudaMalloc buffers */
    CES_BI_NCCL_CE,     /* NCCL, CTAPolicy ZERO, ncclMemAlloc + symmetric windows (broadcast,
                           which NCCL has no copy-engine form of: the kernel it runs there) */
    CES_BI_RAW,         /* the physical limit: every rank copies the same bytes to rank r+1;
                           rooted, the root copies to every peer in one batch (broadcast,
                           scatter) or every peer into the root (gather) */
    CES_BI_COUNT
};

/* The collectives the bench knows: CES_COLL_ALLTOALL, CES_COLL_ALLGATHER,
 * CES_COLL_SENDRECV (ring: rank r sends to r+1 and receives from r-1; with
 * one_way the pipeline 0 -> 1 -> ... -> n-1), and rooted at `root`
 * CES_COLL_BROADCAST, CES_COLL_GATHER, CES_COLL_SCATTER (sizes as
 * ces_broadcast & co. take them: scatter's send and gather's recv hold
 * ranks * bytes). */
struct ces_bench_cfg {
    uint32_t ranks;
    uint32_t coll;
    uint64_t max_bytes; /* largest bytes per rank of the sweep */
    int use_nccl;       /* try to load libnccl.so.2 */
    int with_compute;   /* load the compute kernel */
    int calibrate;      /* ces_bench_calibrate will run (both need a GPU per rank) */
    uint32_t chunks, slots; /* sendrecv variant: chunks per message, staging slots */
    int one_way;            /* sendrecv: the pipeline r -> r+1 (r < n-1) instead of the ring */
    int in_place;           /* allgather, broadcast, gather, scatter: all but the raw copy
                               run in place, send and recv one inside the other by each
                               implementation's rule (bench_gpu.c, in_place_offset;
                               variants: plus CES_COLL_F_INPLACE) */
    uint32_t root;          /* broadcast, gather, scatter: the root rank, < ranks */
    uint32_t wake;          /* the variants (builder graphs): struct ces_coll_params.wake */
};

struct ces_bench_sample {
    double med_us, min_us, max_us;
    int check;       /* 1 data check passed, 0 failed, -1 not checked */
    char wrong[160]; /* check 0: the first wrong byte, where and what it holds */
    char err[256];   /* why the run failed, "" if it ran */
};

struct ces_bench;

/* Creates the communicators (ces_comm_init_all), the buffers, the timing
 * events, the start gate and, when asked, NCCL's communicators and the
 * compute kernel.  Whatever optional part fails is noted, not fatal:
 * ces_bench_note() says what is missing.  The caller has judged the
 * environment's settings first (ces_cuda_settings_read, as cesync bench does
 * in a build without CUDA too): a malformed one is said after the driver
 * here. */
int ces_bench_open(struct ces_ctx *ctx, const struct ces_bench_cfg *cfg, struct ces_bench **out);
void ces_bench_close(struct ces_bench *b);
/* 1 if impl can run here. */
int ces_bench_has(const struct ces_bench *b, int impl);
/* A line about NCCL (version and path, or why it is not loaded). */
const char *ces_bench_nccl_info(const struct ces_bench *b);

/* Times `iters` iterations after `warmup` of one implementation at `bytes`
 * per rank.  variant: -1 = the backend's own collective (ces_alltoall, ...),
 * >= 0 = a builder graph with those CES_COLL_F_* flags run by ces_launch.
 * Every rank's stream waits on a host gate until all the work is enqueued,
 * so times are the GPUs' own (per iteration the mean of the ranks' event pairs,
 * of the ranks that take part: in the raw copy not the one-way pipeline's last
 * one, only the root of broadcast and scatter, all but the root of gather),
 * not the host's enqueue.  graph: capture the `iters` iterations into one
 * CUDA graph per rank (cesync backend path and NCCL), launch it once
 * untimed when `warmup` > 0, then five times timed: a sample is one launch's
 * time over `iters` (the ranks' mean event pair around the launch).  The
 * last iteration's receive buffers are cleared before it (in place all but
 * the part of a rank's recv that is its send, which holds its input from
 * the start) and checked after it (every byte; gather: the root's blocks,
 * and every other rank's recv still clear; in place each rank's input
 * intact); in graph mode that iteration is a second graph of one iteration
 * that clears them first. */
int ces_bench_run(struct ces_bench *b, int impl, int variant, uint64_t bytes, uint32_t iters,
                  uint32_t warmup, int graph, struct ces_bench_sample *out);

/* Runs the compute kernel alone (its solo time) and beside `impl` at
 * `bytes` (collectives enqueued back to back to cover the kernel); *kept is
 * solo time / time beside the collective (mean over the GPUs that run
 * impl: for the raw copy those that copy, as ces_bench_run times them). */
int ces_bench_compute(struct ces_bench *b, int impl, int variant, uint64_t bytes, double *kept,
                      double *solo_us);

/* Measures the machine model's parameters on these GPUs, starting from
 * *m (whose kind is kept); prints what it measured to `log`. */
int ces_bench_calibrate(struct ces_bench *b, struct ces_model *m, FILE *log);

#endif
