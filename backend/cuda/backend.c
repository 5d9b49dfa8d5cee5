/* placeholder until the CUDA backend lands */
#include "cesync.h"
static int cuda_probe(struct ces_ctx *ctx) { (void)ctx; return CES_ERR_UNSUPPORTED; }
const struct ces_backend_ops ces_cuda_backend = {CES_BACKEND_ABI_VERSION, "cuda", cuda_probe, NULL, NULL, NULL, NULL};
