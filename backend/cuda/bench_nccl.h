/*
 * backend/cuda/bench_nccl.h - NCCL for `cesync bench`, loaded at run time
 * with dlopen (cesync neither links nor ships NCCL): one process, one
 * communicator per GPU, a kernel-path set (default config) and a copy-engine
 * set (CTAPolicy = ZERO, buffers from ncclMemAlloc registered as symmetric
 * windows).  NCCL_NVLS_ENABLE=0 is set before any communicator exists.
 */
#ifndef CES_BENCH_NCCL_H
#define CES_BENCH_NCCL_H

#include "cesync.h"

struct ces_nccl;

/* Finds and loads libnccl.so.2 (CES_NCCL_LIB, the Python wheel's
 * nvidia/nccl/lib, then the loader's path) and creates both communicator
 * sets over devices devs[0..n).  info receives a line saying what was loaded
 * (or why not). */
int ces_nccl_open(struct ces_ctx *ctx, uint32_t n, const int *devs, struct ces_nccl **out,
                  char *info, size_t infosz);
/* Per-rank buffers for one path (ce = 0 kernel: cudaMalloc; ce = 1:
 * ncclMemAlloc + NCCL_WIN_COLL_SYMMETRIC windows, registered collectively). */
int ces_nccl_alloc(struct ces_nccl *x, int ce, uint64_t send_bytes, uint64_t recv_bytes,
                   void **send, void **recv);
void ces_nccl_free(struct ces_nccl *x, int ce, void **send, void **recv);
/* The NCCL function that collective `coll` needs and this NCCL lacks
 * (ncclBroadcast, ncclGather or ncclScatter: the others are required to
 * open), or NULL if it has it. */
const char *ces_nccl_lacks(const struct ces_nccl *x, uint32_t coll);
/* One collective on every rank in one NCCL group (bytes per rank in the
 * bench's convention, which is NCCL's count of int8 for every collective
 * but alltoall; `root` for broadcast, gather and scatter; sendrecv is the
 * ring r -> r+1, or with one_way the pipeline r -> r+1 for r < n-1). */
int ces_nccl_coll(struct ces_nccl *x, int ce, uint32_t coll, void **send, void **recv,
                  uint64_t bytes, uint32_t root, void **streams, int one_way);
void ces_nccl_close(struct ces_nccl *x);

#endif
