/*
 * backend/cuda/devices.c - ces_devices_query: the GPUs this process sees
 * and every ordered pair of them, as the driver describes them (what
 * `cesync devices` prints; peers.c judges which of them can run ranks
 * together).  Makes no context.
 */
#include "runtime.h"

#include <inttypes.h>
#include <string.h>

/* The GPU a driver call failed for, in front of its message. */
static int gpu_said(struct ces_ctx *ctx, int rc, uint32_t gpu)
{
    return ces_ctx_error(ctx, rc, "GPU %" PRIu32 ": %s", gpu, ces_ctx_last_error(ctx));
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

int ces_devices_query(struct ces_ctx *ctx, struct ces_devices *out)
{
    CUdevice dev[CES_DEVICES_MAX];
    int n = 0, rc = CES_OK;
    uint32_t at = 0;
    cudaError_t ce;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_devices_query: NULL argument");
    memset(out, 0, sizeof(*out));
    /* the runtime's count, as cesync run takes it: why there is no GPU */
    ce = cudaGetDeviceCount(&n);
    if (ce == cudaErrorNoDevice)
        return CES_OK;
    if (ce != cudaSuccess) {
        char why[256];

        ces_cuda_no_gpu_reason(ce, why, sizeof(why));
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
    for (at = 0; at < (uint32_t)n; at++) {
        struct ces_device *d = &out->dev[at];
        size_t bytes = 0;

        CES_CU_GOTO(ctx, rc, cuDeviceGet(&dev[at], (int)at), fail_gpu);
        CES_CU_GOTO(ctx, rc, cuDeviceGetName(d->name, (int)sizeof(d->name), dev[at]), fail_gpu);
        CES_CU_GOTO(ctx, rc,
                    cuDeviceGetPCIBusId(d->pci_bus_id, (int)sizeof(d->pci_bus_id), dev[at]),
                    fail_gpu);
        CES_CU_GOTO(ctx, rc, cuDeviceTotalMem(&bytes, dev[at]), fail_gpu);
        d->memory = bytes;
        CES_CU_GOTO(ctx, rc,
                    cuDeviceGetAttribute(&d->copy_engines, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT,
                                         dev[at]),
                    fail_gpu);
        CES_CU_GOTO(ctx, rc,
                    cuDeviceGetAttribute(&d->cc_major,
                                         CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev[at]),
                    fail_gpu);
        CES_CU_GOTO(ctx, rc,
                    cuDeviceGetAttribute(&d->cc_minor,
                                         CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev[at]),
                    fail_gpu);
        /* (the driver's strings end within their buffers; kept so) */
        d->name[sizeof(d->name) - 1] = '\0';
        d->pci_bus_id[sizeof(d->pci_bus_id) - 1] = '\0';
    }
    for (at = 0; at < (uint32_t)n; at++) {
        for (uint32_t j = 0; j < (uint32_t)n; j++) {
            struct ces_device_pair *p = &out->pair[at][j];

            if (j == at)
                continue;
            CES_CU_GOTO(ctx, rc, cuDeviceCanAccessPeer(&p->access, dev[at], dev[j]), fail_gpu);
            p->access = p->access != 0;
            p->perf_rank = p2p_attr(CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, dev[at], dev[j]);
            p->atomics = p2p_attr(CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, dev[at], dev[j]);
        }
    }
    out->count = (uint32_t)n;
    return CES_OK;
fail_gpu:
    rc = gpu_said(ctx, rc, at);
fail:
    memset(out, 0, sizeof(*out));
    return rc;
}
