/* placeholder until the simulator lands */
#include "cesync.h"
static int sim_probe(struct ces_ctx *ctx) { (void)ctx; return CES_OK; }
const struct ces_backend_ops ces_sim_backend = {CES_BACKEND_ABI_VERSION, "sim", sim_probe, NULL, NULL, NULL, NULL};
