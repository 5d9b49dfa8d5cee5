/*
 * backend/cuda/args.c - what the communicator constructors check before
 * they ask the driver (args.h): in a cesync with CUDA comm.c, in one
 * without absent.c, so that both builds refuse the same arguments and
 * settings with the same status and message.  Plain C, no CUDA types.
 */
#include "args.h"

#include "lower.h" /* ces_cuda_env_setting */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int ces_cuda_share_gpus(struct ces_ctx *ctx, int *share)
{
    const char *env = getenv("CES_SHARE_GPUS");

    *share = 0;
    if (env == NULL || *env == '\0' || strcmp(env, "0") == 0)
        return CES_OK;
    if (strcmp(env, "1") != 0)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "CES_SHARE_GPUS must be 0 or 1, not '%s'",
                             env);
    *share = 1;
    return CES_OK;
}

/* A stride below 2^49 (2^48 rounded up to a granularity no larger) times
 * the most ranks fits in 64 bits: the team's ranks * stride cannot wrap. */
_Static_assert(CES_MAX_RANKS <= (UINT64_MAX >> 49), "ranks * stride could wrap");

int ces_cuda_stride(struct ces_ctx *ctx, const char *env, uint64_t total, uint64_t gran,
                    uint64_t *stride)
{
    unsigned long long v = 0;
    unsigned shift = 0;
    char *end = NULL;

    assert(gran > 0 && gran <= CES_MAX_BYTES);
    if (env == NULL || *env == '\0') {
        *stride = ces_cuda_round_up(total, gran);
        return CES_OK;
    }
    /* strtoull alone skipped spaces and a sign, and the suffix's shift and
     * rounding wrapped for a huge value: 0 or a wrapped stride reserved
     * nothing, or less than the ranks need. */
    errno = 0;
    if (*env >= '0' && *env <= '9')
        v = strtoull(env, &end, 10);
    if (end != NULL) {
        switch (*end) {
        case 'K': case 'k': shift = 10; end++; break;
        case 'M': case 'm': shift = 20; end++; break;
        case 'G': case 'g': shift = 30; end++; break;
        default: break;
        }
    }
    if (end == NULL || *end != '\0' || errno == ERANGE || v == 0 ||
        v > (CES_MAX_BYTES >> shift))
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "CES_STRIDE must be 1..2^48 bytes (digits, then K, M or G if "
                             "wanted), not '%s'",
                             env);
    *stride = ces_cuda_round_up((uint64_t)v << shift, gran);
    return CES_OK;
}

/* The address: a file path with its NUL, or for '@' and a name the
 * abstract name, which sun_path holds after a NUL and without one of its
 * own, the length covering exactly the name (a length of the whole struct
 * would name another socket, the name and NULs up to 107 bytes). */
int ces_boot_addr(struct ces_ctx *ctx, const char *path, struct sockaddr_un *addr,
                  socklen_t *len)
{
    size_t n = strlen(path);

    memset(addr, 0, sizeof(*addr));
    addr->sun_family = AF_UNIX;
    if (path[0] == '@') {
        if (n == 1)
            return ces_ctx_error(ctx, CES_ERR_INVALID,
                                 "bootstrap abstract name '@' is empty: a name follows the '@'");
        if (n - 1 > sizeof(addr->sun_path) - 1)
            return ces_ctx_error(ctx, CES_ERR_INVALID,
                                 "bootstrap abstract name '%s' is longer than %zu bytes after "
                                 "the '@'",
                                 path, sizeof(addr->sun_path) - 1);
        memcpy(addr->sun_path + 1, path + 1, n - 1);
        *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
        return CES_OK;
    }
    if (n >= sizeof(addr->sun_path))
        return ces_ctx_error(ctx, CES_ERR_INVALID, "bootstrap path '%s' is longer than %zu bytes",
                             path, sizeof(addr->sun_path) - 1);
    memcpy(addr->sun_path, path, n + 1);
    *len = (socklen_t)sizeof(*addr);
    return CES_OK;
}

int ces_cuda_stage_max_read(struct ces_ctx *ctx, uint64_t *out)
{
    return ces_cuda_env_setting(ctx, "CES_P2P_STAGE_MAX", "0..2^48", "bytes", 0, CES_MAX_BYTES,
                                CES_P2P_STAGE_MAX_DEFAULT, out);
}

int ces_cuda_side_min_read(struct ces_ctx *ctx, uint64_t *out)
{
    return ces_cuda_env_setting(ctx, "CES_P2P_SIDE_MIN", "0..2^48", "bytes", 0, CES_MAX_BYTES,
                                CES_P2P_SIDE_MIN_DEFAULT, out);
}

/* CES_STRIDE is read for its form only (the setup takes it again with the
 * device's memory and granularity): before the driver, as the others, or
 * without a GPU a malformed one was "no GPU". */
int ces_cuda_settings_read(struct ces_ctx *ctx, struct ces_cuda_settings *s)
{
    uint64_t stride;
    int rc;

    rc = ces_cuda_env_setting(ctx, "CES_TIMEOUT_MS", "1..4294967295", "milliseconds", 1,
                              CES_TIMEOUT_MS_MAX, CES_TIMEOUT_MS_DEFAULT, &s->timeout_ms);
    if (rc == CES_OK)
        rc = ces_cuda_stage_max_read(ctx, &s->stage_max);
    if (rc == CES_OK)
        rc = ces_cuda_side_min_read(ctx, &s->side_min);
    if (rc == CES_OK)
        rc = ces_cuda_share_gpus(ctx, &s->share);
    if (rc == CES_OK)
        rc = ces_cuda_stride(ctx, getenv("CES_STRIDE"), 1, 1, &stride);
    return rc;
}

/* A device that no machine has: the GPUs, which only the driver counts,
 * are numbered from 0. */
static int device_check(struct ces_ctx *ctx, uint32_t rank, int device)
{
    if (device < 0)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "rank %" PRIu32 ": device %d does not exist (devices are numbered "
                             "from 0)",
                             rank, device);
    return CES_OK;
}

/* ces_comm_init's checks past its pointers (ces_comm_init_env's too). */
static int init_args(struct ces_ctx *ctx, uint32_t rank, uint32_t size, int device,
                     const char *bootstrap, struct ces_cuda_settings *s)
{
    struct sockaddr_un addr;
    socklen_t len;
    int rc;

    if (size < 1 || size > CES_MAX_RANKS || rank >= size)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "rank %" PRIu32 " of %" PRIu32 ": expected 0 <= rank < size <= %u",
                             rank, size, CES_MAX_RANKS);
    if (size > 1 && (bootstrap == NULL || *bootstrap == '\0'))
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "a communicator of %" PRIu32 " ranks needs a bootstrap path", size);
    if (size > 1 && ces_boot_addr(ctx, bootstrap, &addr, &len) != CES_OK)
        return CES_ERR_INVALID;
    if (size > CES_BOOT_MAX_FDS)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "a communicator of %" PRIu32 " processes: at most %u (each "
                             "symmetric allocation passes every process's memory handle through "
                             "rank 0 in one message)",
                             size, CES_BOOT_MAX_FDS);
    rc = ces_cuda_settings_read(ctx, s);
    if (rc == CES_OK)
        rc = device_check(ctx, rank, device);
    return rc;
}

int ces_cuda_init_check(struct ces_ctx *ctx, uint32_t rank, uint32_t size, int device,
                        const char *bootstrap, struct ces_comm **out,
                        struct ces_cuda_settings *s)
{
    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_comm_init: NULL argument");
    *out = NULL;
    return init_args(ctx, rank, size, device, bootstrap, s);
}

/* The decimal number of environment variable `name`, whose value is `s`,
 * into *v: digits only, and at most `max`.  strtoul alone took '' as 0,
 * skipped spaces and a sign (-1 was ULONG_MAX), and a value above
 * UINT32_MAX was cut to 32 bits by the cast after it. */
static int env_number(struct ces_ctx *ctx, const char *name, const char *s, unsigned long max,
                      unsigned long *v)
{
    char *end = NULL;

    errno = 0;
    if (*s >= '0' && *s <= '9')
        *v = strtoul(s, &end, 10);
    if (end == NULL || *end != '\0' || errno == ERANGE || *v > max)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "%s must be a number 0..%lu, not '%s'", name,
                             max, s);
    return CES_OK;
}

int ces_cuda_init_env_check(struct ces_ctx *ctx, const char *rendezvous, struct ces_comm **out,
                            uint32_t *rank, uint32_t *size, int *device, const char **bootstrap,
                            struct ces_cuda_settings *s)
{
    const char *r = getenv("RANK"), *w = getenv("WORLD_SIZE"), *l = getenv("LOCAL_RANK");
    unsigned long vr = 0, vw = 0, vl = 0;
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_comm_init_env: NULL argument");
    *out = NULL;
    *bootstrap = rendezvous != NULL ? rendezvous : getenv("CES_RENDEZVOUS");
    if (r == NULL || w == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "RANK and WORLD_SIZE must be set in the environment");
    /* WORLD_SIZE above CES_MAX_RANKS and RANK not below it are refused by
     * init_args, in its words; LOCAL_RANK is a device number (an int). */
    rc = env_number(ctx, "RANK", r, UINT32_MAX, &vr);
    if (rc == CES_OK)
        rc = env_number(ctx, "WORLD_SIZE", w, UINT32_MAX, &vw);
    if (rc == CES_OK && l != NULL)
        rc = env_number(ctx, "LOCAL_RANK", l, INT_MAX, &vl);
    if (rc != CES_OK)
        return rc;
    *rank = (uint32_t)vr;
    *size = (uint32_t)vw;
    *device = (int)(l != NULL ? vl : vr);
    return init_args(ctx, *rank, *size, *device, *bootstrap, s);
}

int ces_cuda_init_all_check(struct ces_ctx *ctx, uint32_t ndev, const int *devices,
                            struct ces_comm **comms, struct ces_cuda_settings *s)
{
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (comms == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_comm_init_all: NULL argument");
    if (ndev < 1 || ndev > CES_MAX_RANKS)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ndev must be 1..%u, not %" PRIu32,
                             CES_MAX_RANKS, ndev);
    for (uint32_t i = 0; i < ndev; i++)
        comms[i] = NULL;
    rc = ces_cuda_settings_read(ctx, s);
    for (uint32_t i = 0; rc == CES_OK && devices != NULL && i < ndev; i++)
        rc = device_check(ctx, i, devices[i]);
    return rc;
}
