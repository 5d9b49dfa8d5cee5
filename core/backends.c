/*
 * core/backends.c - the table of backends compiled into this library.  It is
 * the one place that names backends: core/ defines the interface and the
 * backends implement it without knowing of each other.  Built as part of the
 * umbrella library, not of ces_core.
 */
#include "cesync.h"

#include <string.h>

extern const struct ces_backend_ops ces_sim_backend;
#if defined(CES_HAVE_CUDA)
extern const struct ces_backend_ops ces_cuda_backend;
#endif

static const struct ces_backend_ops *const backend_table[] = {
    &ces_sim_backend,
#if defined(CES_HAVE_CUDA)
    &ces_cuda_backend,
#endif
    NULL,
};

const struct ces_backend_ops *const *ces_backends(void)
{
    return backend_table;
}

const struct ces_backend_ops *ces_backend_find(const char *name)
{
    for (size_t i = 0; name != NULL && backend_table[i] != NULL; i++) {
        if (strcmp(backend_table[i]->name, name) == 0)
            return backend_table[i];
    }
    return NULL;
}
