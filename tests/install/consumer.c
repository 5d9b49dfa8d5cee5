/*
 * tests/install/consumer.c - a program outside the tree that uses an
 * installed cesync: builds the 4-rank alltoall and prints its rank count and
 * its op count, so the install test can compare with what it expects.  It
 * calls the CUDA backend's calls too, as they answer without a GPU (no
 * communicator): a cesync built without CUDA has them (backend/cuda/absent.c),
 * and a program that calls them links against either build.
 */
#include <cesync.h>

#include <stdio.h>

int main(void)
{
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g = NULL;
    struct ces_coll_params p;
    uint32_t ops = 0;

    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return 1;
    if (ces_comm_init(ctx, 0, 1, 0, NULL, NULL) != CES_ERR_INVALID ||
        ces_comm_size(NULL) != 0 || ces_comm_destroy(NULL) != CES_OK) {
        fprintf(stderr, "the CUDA backend's calls answered otherwise given no communicator\n");
        ces_ctx_destroy(ctx);
        return 1;
    }
    ces_coll_params_init(&p, CES_COLL_ALLTOALL);
    p.ranks = 4;
    if (ces_coll_build(ctx, &p, &g) != CES_OK) {
        fprintf(stderr, "%s\n", ces_ctx_last_error(ctx));
        ces_ctx_destroy(ctx);
        return 1;
    }
    for (uint32_t r = 0; r < ces_graph_ranks(g); r++) {
        uint32_t n;

        ces_graph_ops(g, 0, r, &n);
        ops += n;
    }
    printf("ranks %u ops %u\n", ces_graph_ranks(g), ops);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    return 0;
}
