/*
 * backend/cuda/devices.c - ces_devices_query: the GPUs this process sees
 * and every ordered pair of them, as the driver describes them (what
 * `cesync devices` prints; peers.c judges which of them can run ranks
 * together).  Makes no context.
 */
#include "runtime.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A GPU not described: every field zero but its error, the call that
 * failed and the driver's words of `r`. */
static void not_described(struct ces_device *d, const char *call, CUresult r)
{
    const char *name = NULL, *text = NULL;

    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    memset(d, 0, sizeof(*d));
    snprintf(d->error, sizeof(d->error), "%s failed: %s (%d): %s", call, name ? name : "?",
             (int)r, text ? text : "");
}

/* Describes GPU `at` into *d and its handle: NULL, or the call that
 * failed, its result in *r. */
static const char *describe(struct ces_device *d, CUdevice *dev, int at, CUresult *r)
{
    size_t bytes = 0;

    if ((*r = cuDeviceGet(dev, at)) != CUDA_SUCCESS)
        return "cuDeviceGet";
    if ((*r = cuDeviceGetName(d->name, (int)sizeof(d->name), *dev)) != CUDA_SUCCESS)
        return "cuDeviceGetName";
    if ((*r = cuDeviceGetPCIBusId(d->pci_bus_id, (int)sizeof(d->pci_bus_id), *dev)) !=
        CUDA_SUCCESS)
        return "cuDeviceGetPCIBusId";
    if ((*r = cuDeviceTotalMem(&bytes, *dev)) != CUDA_SUCCESS)
        return "cuDeviceTotalMem";
    d->memory = bytes;
    if ((*r = cuDeviceGetAttribute(&d->copy_engines, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT,
                                   *dev)) != CUDA_SUCCESS)
        return "cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT)";
    if ((*r = cuDeviceGetAttribute(&d->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                   *dev)) != CUDA_SUCCESS)
        return "cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)";
    if ((*r = cuDeviceGetAttribute(&d->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                   *dev)) != CUDA_SUCCESS)
        return "cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)";
    /* (the driver's strings end within their buffers; kept so) */
    d->name[sizeof(d->name) - 1] = '\0';
    d->pci_bus_id[sizeof(d->pci_bus_id) - 1] = '\0';
    return NULL;
}

/* P2P attribute `a` of the link from -> to, -1 where the driver does not
 * say (an older one, or a pair it does not know a value of). */
static int p2p_attr(CUdevice_P2PAttribute a, CUdevice from, CUdevice to)
{
    int v = -1;

    if (cuDeviceGetP2PAttribute(&v, a, from, to) != CUDA_SUCCESS)
        return -1;
    return v;
}

int ces_cuda_devices_query(struct ces_ctx *ctx, struct ces_devices *out, cudaError_t *counted)
{
    CUdevice dev[CES_DEVICES_MAX];
    int n = 0, rc = CES_OK;
    uint32_t at;

    memset(out, 0, sizeof(*out));
    /* the runtime's count, as cesync run takes it: why there is no GPU */
    *counted = cudaGetDeviceCount(&n);
    if (*counted == cudaErrorNoDevice)
        return CES_OK;
    if (*counted != cudaSuccess) {
        char why[256];

        ces_cuda_no_gpu_reason(*counted, why, sizeof(why));
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED, "no CUDA GPU can be used: %s", why);
    }
    if (ces_cu_load() == NULL)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "no CUDA GPU can be used: the CUDA driver is not available (a "
                             "driver older than CUDA 13)");
    CES_CU_GOTO(ctx, rc, cuInit(0), fail);
    CES_CU_GOTO(ctx, rc, cuDeviceGetCount(&n), fail);
    /* the first CES_DEVICES_MAX, which hold every GPU of cesync run's ranks */
    out->total = (uint32_t)n;
    if (n > (int)CES_DEVICES_MAX)
        n = (int)CES_DEVICES_MAX;
    out->count = (uint32_t)n;
    /* a GPU that fails is said in its place, the others described: ranks
     * not on it can run (ces_devices_fit) */
    for (at = 0; at < out->count; at++) {
        CUresult r = CUDA_SUCCESS;
        const char *call = describe(&out->dev[at], &dev[at], (int)at, &r);

        if (call != NULL)
            not_described(&out->dev[at], call, r);
    }
    /* A pair the driver cannot answer leaves the later of its GPUs not
     * described: ranks take GPUs 0..k-1 (rank r on GPU r % total), so a
     * run uses the pair exactly where it uses that GPU. */
    for (at = 0; at < out->count; at++) {
        for (uint32_t j = 0; j < out->count; j++) {
            struct ces_device_pair *p = &out->pair[at][j];
            char call[64];
            CUresult r;

            if (j == at || out->dev[at].error[0] != '\0' || out->dev[j].error[0] != '\0')
                continue;
            r = cuDeviceCanAccessPeer(&p->access, dev[at], dev[j]);
            if (r != CUDA_SUCCESS) {
                snprintf(call, sizeof(call),
                         "cuDeviceCanAccessPeer(GPU %" PRIu32 ", GPU %" PRIu32 ")", at, j);
                not_described(&out->dev[at > j ? at : j], call, r);
                continue;
            }
            p->access = p->access != 0;
            p->perf_rank = p2p_attr(CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, dev[at], dev[j]);
            p->atomics = p2p_attr(CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, dev[at], dev[j]);
        }
    }
    /* the pairs of a GPU not described say nothing: no access, no link */
    for (at = 0; at < out->count; at++) {
        for (uint32_t j = 0; j < out->count; j++) {
            struct ces_device_pair *p = &out->pair[at][j];

            if (j != at && (out->dev[at].error[0] != '\0' || out->dev[j].error[0] != '\0')) {
                p->access = 0;
                p->perf_rank = -1;
                p->atomics = -1;
            }
        }
    }
    return CES_OK;
fail:
    memset(out, 0, sizeof(*out));
    return rc;
}

int ces_devices_query(struct ces_ctx *ctx, struct ces_devices *out)
{
    cudaError_t counted;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_devices_query: NULL argument");
    return ces_cuda_devices_query(ctx, out, &counted);
}
