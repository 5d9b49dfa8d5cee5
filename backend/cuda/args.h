/*
 * backend/cuda/args.h - what the communicator constructors check before
 * they ask the driver: their arguments, the environment's settings and the
 * bootstrap's address.  Plain C (args.c, built with or without the CUDA
 * toolkit), so that a cesync built without CUDA (absent.c) refuses what
 * one with CUDA refuses, with the same status and the same message; only
 * what passes reaches the driver there, or "built without CUDA" here.
 */
#ifndef CES_CUDA_ARGS_H
#define CES_CUDA_ARGS_H

#include "cesync.h"

#include <sys/socket.h>
#include <sys/un.h>

/* The most descriptors one exchange passes (in one message of rank 0's,
 * under the kernel's SCM_MAX_FD of 253): a communicator of processes has
 * at most this many ranks, each allocation passing one handle per rank. */
#define CES_BOOT_MAX_FDS 250u
/* CES_TIMEOUT_MS at most (49 days): the bootstrap's setup deadlines take
 * it as 32 bits, and no deadline computed from it wraps */
#define CES_TIMEOUT_MS_MAX ((uint64_t)UINT32_MAX)

/* A communicator's settings from the environment, read once per
 * constructor call, before the driver (docs/API.md, "Environment"). */
struct ces_cuda_settings {
    uint64_t timeout_ms; /* CES_TIMEOUT_MS */
    uint64_t stage_max;  /* CES_P2P_STAGE_MAX */
    uint64_t side_min;   /* CES_P2P_SIDE_MIN */
    int share;           /* CES_SHARE_GPUS */
};

/* The settings into *s, in the order every constructor reads them:
 * CES_TIMEOUT_MS, CES_P2P_STAGE_MAX, CES_P2P_SIDE_MIN, CES_SHARE_GPUS and
 * CES_STRIDE's form.  CES_ERR_INVALID naming the first malformed one and
 * its value; cesync run judges them so before it asks for GPUs. */
int ces_cuda_settings_read(struct ces_ctx *ctx, struct ces_cuda_settings *s);

/* CES_P2P_STAGE_MAX alone into *out, and CES_P2P_SIDE_MIN, as
 * ces_cuda_settings_read reads them (a dry run of cesync bench, which
 * predicts by them). */
int ces_cuda_stage_max_read(struct ces_ctx *ctx, uint64_t *out);
int ces_cuda_side_min_read(struct ces_ctx *ctx, uint64_t *out);

/* v rounded up to a multiple of g (g > 0). */
static inline uint64_t ces_cuda_round_up(uint64_t v, uint64_t g)
{
    return (v + g - 1) / g * g;
}

/* *share: whether CES_SHARE_GPUS lets ranks outnumber the GPUs (1: rank r
 * on GPU r % count; for tests; unset, empty or 0: not).  Any other value is
 * CES_ERR_INVALID naming the variable and the value (*share 0). */
int ces_cuda_share_gpus(struct ces_ctx *ctx, int *share);
/* CES_ERR_UNSUPPORTED, said: ranks ra and rb are on GPUs of which `from`
 * cannot access `to`'s memory (peers.c; ces_comm_init_all and
 * ces_devices_fit refuse such a pair alike). */
int ces_cuda_not_peers(struct ces_ctx *ctx, uint32_t ra, uint32_t rb, int from, int to);
/* Error rc, said: `ranks` ranks but only `gpus` GPUs (none: "N ranks but
 * this machine has no GPU"; else naming CES_SHARE_GPUS=1), the one
 * wording of ces_comm_init_all, ces_devices_fit, cesync run and cesync
 * bench (peers.c); `at` after the ranks, where a file gives them (" (line
 * 2:7)", ces_setting_where), else "". */
int ces_cuda_too_few_gpus(struct ces_ctx *ctx, int rc, uint32_t ranks, const char *at,
                          uint32_t gpus);
/* ces_devices_fit, with `at` after the ranks where too few GPUs refuse
 * them (ces_cuda_too_few_gpus): cesync run names a file's `ranks` line
 * so, "2 ranks (line 2:7) but this machine has 1 GPU (...)". */
int ces_cuda_fit(struct ces_ctx *ctx, const struct ces_devices *d, uint32_t ranks, const char *at,
                 int one_process);
/* The first rank j of devices[0..n-1] on the GPU of an earlier rank
 * (*first), or n where every rank has a GPU of its own. */
uint32_t ces_cuda_gpu_sharer(const int *devices, uint32_t n, uint32_t *first);
/* The most ranks of devices[0..n-1] on one GPU, and that GPU (*device, the
 * first such).  ces_comm_init_all refuses more than CES_CUDA_GPU_RANKS_MAX:
 * ranks of one process on one GPU share its hardware queues (32 at most,
 * CUDA_DEVICE_MAX_CONNECTIONS), and with 8 such ranks on one H200 the waits
 * of some ranks held the GPU while the others' work never started (replayed
 * CUDA graphs with 32 queues, eager calls with CUDA's 8; docs/TESTING.md,
 * twentieth session). */
#define CES_CUDA_GPU_RANKS_MAX 4
uint32_t ces_cuda_gpu_crowd(const int *devices, uint32_t n, int *device);
/* Whether ranks of one process on GPUs dev[0..n-1] (ces_comm_init_all),
 * whose streams `queues` hardware queues a GPU carry
 * (CUDA_DEVICE_MAX_CONNECTIONS, ces_cuda_queues), can share them: below
 * CUDA's 8 queues no two ranks may share a GPU, and never more than
 * CES_CUDA_GPU_RANKS_MAX; CES_ERR_UNSUPPORTED said as ces_comm_init_all
 * and ces_devices_fit say it (peers.c). */
int ces_cuda_one_process(struct ces_ctx *ctx, const int *dev, uint32_t n, uint32_t queues);
/* The stride (bytes of symmetric memory per rank) from CES_STRIDE's value
 * `env` (NULL or '': `total`, the device's memory), rounded up to `gran`:
 * digits with an optional K, M or G, of 1..2^48 bytes, else CES_ERR_INVALID
 * naming the value.  Rounded, it stays below 2^49, so ranks * stride cannot
 * wrap for up to CES_MAX_RANKS ranks. */
int ces_cuda_stride(struct ces_ctx *ctx, const char *env, uint64_t total, uint64_t gran,
                    uint64_t *stride);
/* The socket address of bootstrap `path` into *addr and its length into
 * *len: a file path, or '@' and a Linux abstract name.  CES_ERR_INVALID,
 * saying why, for one empty after the '@' or too long. */
int ces_boot_addr(struct ces_ctx *ctx, const char *path, struct sockaddr_un *addr,
                  socklen_t *len);

/* ces_comm_init's checks, in this order: ctx NULL (CES_ERR_INVALID, no
 * message), out NULL ("ces_comm_init: NULL argument"), then *out = NULL;
 * rank and size; the bootstrap (where there are peers: missing, or refused
 * by ces_boot_addr); more processes than CES_BOOT_MAX_FDS
 * (CES_ERR_UNSUPPORTED); the settings, into *s; a negative device.  Each
 * fails with its message; CES_OK leaves what needs the driver (the device
 * and the GPUs there are). */
int ces_cuda_init_check(struct ces_ctx *ctx, uint32_t rank, uint32_t size, int device,
                        const char *bootstrap, struct ces_comm **out,
                        struct ces_cuda_settings *s);
/* ces_comm_init_env's: ctx and out NULL as above, then *out = NULL; RANK
 * and WORLD_SIZE set, each a decimal number (digits only) of
 * 0..UINT32_MAX, LOCAL_RANK (where set) of 0..INT_MAX, into *rank, *size
 * and *device (LOCAL_RANK, else RANK); then ces_comm_init's checks of
 * those with `rendezvous` (NULL: CES_RENDEZVOUS), which *bootstrap
 * receives. */
int ces_cuda_init_env_check(struct ces_ctx *ctx, const char *rendezvous, struct ces_comm **out,
                            uint32_t *rank, uint32_t *size, int *device, const char **bootstrap,
                            struct ces_cuda_settings *s);
/* ces_comm_init_all's: ctx and comms NULL as above, ndev 1..CES_MAX_RANKS,
 * then comms[0..ndev) = NULL; the settings, into *s; a negative device of
 * devices[] (NULL: devices 0..ndev-1). */
int ces_cuda_init_all_check(struct ces_ctx *ctx, uint32_t ndev, const int *devices,
                            struct ces_comm **comms, struct ces_cuda_settings *s);

#endif
