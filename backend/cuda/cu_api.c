/*
 * backend/cuda/cu_api.c - loads the driver function table of cu_api.h
 * through the CUDA runtime (cudaGetDriverEntryPointByVersion), once per
 * process.  The table is the one process-wide state of the backend: it is
 * written once, under pthread_once, and only read afterwards.
 */
#include "cu_api.h"

#include <cuda_runtime.h>
#include <pthread.h>
#include <stddef.h>

static struct ces_cu_api cu_table;
static const struct ces_cu_api *cu_loaded;
static pthread_once_t cu_once = PTHREAD_ONCE_INIT;

void *ces_cu_sym(const char *name)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;

    if (cudaGetDriverEntryPointByVersion(name, &fn, CUDA_VERSION, cudaEnableDefault, &q) !=
            cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
        return NULL;
    return fn;
}

static void cu_load_once(void)
{
    int ok = 1;

#define CES_X_(name)                                     \
    {                                                    \
        void *fn = ces_cu_sym(#name);                    \
        ok = ok && fn != NULL;                           \
        *(void **)&cu_table.p_##name = fn;               \
    }
    CES_CU_FUNCS(CES_X_)
#undef CES_X_
    if (ok)
        cu_loaded = &cu_table;
}

const struct ces_cu_api *ces_cu_load(void)
{
    pthread_once(&cu_once, cu_load_once);
    return cu_loaded;
}

const struct ces_cu_api *ces_cu(void)
{
    return &cu_table;
}
