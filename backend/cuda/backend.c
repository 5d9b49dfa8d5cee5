/*
 * backend/cuda/backend.c - the "cuda" entry of the backend table: probe
 * says whether a GPU usable by this backend is present.  Running a graph
 * goes through the communicator API (ces_launch, cesync run), which needs
 * ranks and memory that a single prepare() call cannot provide.
 */
#include "runtime.h"

#include <inttypes.h>

static int cuda_probe(struct ces_ctx *ctx)
{
    int count = 0;
    CUresult r;

    if (ces_cu_load() == NULL)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "the CUDA driver is not available (no GPU, or a driver older than "
                             "CUDA 13)");
    r = cuInit(0);

    if (r == CUDA_SUCCESS)
        r = cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS || count == 0)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED, "no CUDA device is available (%s)",
                             r == CUDA_SUCCESS ? "0 devices" : "cuInit failed");
    return CES_OK;
}

static int cuda_prepare(struct ces_ctx *ctx, const struct ces_graph *g, const void *opts,
                        void **state)
{
    (void)g;
    (void)opts;
    if (state != NULL)
        *state = NULL;
    return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                         "the cuda backend runs graphs through a communicator: use ces_launch "
                         "or `cesync run`");
}

static int cuda_launch(void *state)
{
    (void)state;
    return CES_ERR_UNSUPPORTED;
}

static int cuda_poll(void *state, uint32_t *verdict)
{
    (void)state;
    (void)verdict;
    return CES_ERR_UNSUPPORTED;
}

static void cuda_destroy(void *state)
{
    (void)state;
}

const struct ces_backend_ops ces_cuda_backend = {
    CES_BACKEND_ABI_VERSION, "cuda", cuda_probe, cuda_prepare, cuda_launch, cuda_poll, cuda_destroy,
};
