/*
 * backend/cuda/absent.c - the CUDA backend's calls in a cesync built
 * without CUDA (no toolkit at build time), so that a program written for
 * either build links against both.  No communicator can be made: its
 * constructors check their arguments and settings as the build with CUDA
 * does before it asks the driver (args.c, which both builds share: the same
 * refusal, the same message), then fail with CES_ERR_UNSUPPORTED, saying
 * why, as a build with CUDA does on a machine without a GPU; every call on
 * a communicator gets none and answers as the build with CUDA answers NULL;
 * ces_devices_query finds no GPU to describe, CES_ERR_UNSUPPORTED.
 */
#include "args.h"

#include <string.h>

#define ABSENT "this cesync was built without CUDA (no GPU can be used)"

int ces_comm_init(struct ces_ctx *ctx, uint32_t rank, uint32_t size, int device,
                  const char *bootstrap, struct ces_comm **out)
{
    struct ces_cuda_settings s;
    int rc = ces_cuda_init_check(ctx, rank, size, device, bootstrap, out, &s);

    if (rc != CES_OK)
        return rc;
    return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED, "ces_comm_init: " ABSENT);
}

int ces_comm_init_all(struct ces_ctx *ctx, uint32_t ndev, const int *devices,
                      struct ces_comm **comms)
{
    struct ces_cuda_settings s;
    int rc = ces_cuda_init_all_check(ctx, ndev, devices, comms, &s);

    if (rc != CES_OK)
        return rc;
    return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED, "ces_comm_init_all: " ABSENT);
}

int ces_comm_init_env(struct ces_ctx *ctx, const char *rendezvous, struct ces_comm **out)
{
    struct ces_cuda_settings s;
    const char *bootstrap = NULL;
    uint32_t rank = 0, size = 0;
    int device = 0, rc;

    rc = ces_cuda_init_env_check(ctx, rendezvous, out, &rank, &size, &device, &bootstrap, &s);
    if (rc != CES_OK)
        return rc;
    return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED, "ces_comm_init_env: " ABSENT);
}

/* No GPU to describe, as a build with CUDA says where none can be used. */
int ces_devices_query(struct ces_ctx *ctx, struct ces_devices *out)
{
    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_devices_query: NULL argument");
    memset(out, 0, sizeof(*out));
    return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED, ABSENT);
}

/* A communicator given: none is ours (a NULL destroys nothing). */
int ces_comm_destroy(struct ces_comm *comm) { return comm == NULL ? CES_OK : CES_ERR_INVALID; }
int ces_comm_abort(struct ces_comm *comm) { return (void)comm, CES_ERR_INVALID; }
int ces_comm_status(const struct ces_comm *comm) { return (void)comm, CES_ERR_INVALID; }
uint32_t ces_comm_rank(const struct ces_comm *comm) { return (void)comm, 0; }
uint32_t ces_comm_size(const struct ces_comm *comm) { return (void)comm, 0; }
int ces_comm_device(const struct ces_comm *comm) { return (void)comm, -1; }

int ces_mem_alloc(struct ces_comm *comm, size_t bytes, void **ptr)
{
    return (void)comm, (void)bytes, (void)ptr, CES_ERR_INVALID;
}

int ces_mem_free(struct ces_comm *comm, void *ptr)
{
    return (void)comm, (void)ptr, CES_ERR_INVALID;
}

void *ces_mem_peer(const struct ces_comm *comm, const void *ptr, uint32_t rank)
{
    return (void)comm, (void)ptr, (void)rank, NULL;
}

int ces_launch(struct ces_comm *comm, const struct ces_graph *g,
               const struct ces_binding *bindings, size_t nbindings, ces_stream_t stream)
{
    return (void)comm, (void)g, (void)bindings, (void)nbindings, (void)stream, CES_ERR_INVALID;
}

int ces_alltoall(struct ces_comm *comm, const void *send, void *recv, size_t bytes,
                 ces_stream_t stream)
{
    return (void)comm, (void)send, (void)recv, (void)bytes, (void)stream, CES_ERR_INVALID;
}

int ces_allgather(struct ces_comm *comm, const void *send, void *recv, size_t bytes,
                  ces_stream_t stream)
{
    return ces_alltoall(comm, send, recv, bytes, stream);
}

int ces_barrier(struct ces_comm *comm, ces_stream_t stream)
{
    return ces_alltoall(comm, NULL, NULL, 0, stream);
}

int ces_broadcast(struct ces_comm *comm, const void *send, void *recv, size_t bytes,
                  uint32_t root, ces_stream_t stream)
{
    return (void)root, ces_alltoall(comm, send, recv, bytes, stream);
}

int ces_gather(struct ces_comm *comm, const void *send, void *recv, size_t bytes,
               uint32_t root, ces_stream_t stream)
{
    return (void)root, ces_alltoall(comm, send, recv, bytes, stream);
}

int ces_scatter(struct ces_comm *comm, const void *send, void *recv, size_t bytes,
                uint32_t root, ces_stream_t stream)
{
    return (void)root, ces_alltoall(comm, send, recv, bytes, stream);
}

int ces_group_start(struct ces_comm *comm) { return (void)comm, CES_ERR_INVALID; }

int ces_group_end(struct ces_comm *comm, ces_stream_t stream)
{
    return (void)stream, ces_group_start(comm);
}

int ces_send(struct ces_comm *comm, const void *buf, size_t bytes, uint32_t peer)
{
    return (void)buf, (void)bytes, (void)peer, ces_group_start(comm);
}

int ces_recv(struct ces_comm *comm, void *buf, size_t bytes, uint32_t peer)
{
    return (void)buf, (void)bytes, (void)peer, ces_group_start(comm);
}
