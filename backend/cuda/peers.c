/*
 * backend/cuda/peers.c - which GPUs of a ces_devices_query can run ranks
 * together: the largest set of mutual peers, and whether a number of ranks
 * placed as the communicators place them has only peers.  Plain C without
 * CUDA types (a cesync without CUDA builds it too), and the message of a
 * pair that is not, which ces_comm_init_all says as well.
 */
#include "args.h"
#include "internal.h" /* ces_plural */

#include <inttypes.h>

int ces_cuda_not_peers(struct ces_ctx *ctx, uint32_t ra, uint32_t rb, int from, int to)
{
    return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                         "ranks %" PRIu32 " and %" PRIu32 ": GPU %d cannot access GPU %d's "
                         "memory (cuDeviceCanAccessPeer: they are not peers, by NVLink or PCIe); "
                         "every rank maps every other rank's memory, so every pair of GPUs must "
                         "be peers",
                         ra, rb, from, to);
}

/* GPUs i and j can access each other's memory. */
static int mutual(const struct ces_devices *d, uint32_t i, uint32_t j)
{
    return d->pair[i][j].access && d->pair[j][i].access;
}

/* Whether set a comes before set b of the same size: the least GPU in one
 * of them alone is in a. */
static int first(uint64_t a, uint64_t b)
{
    uint64_t x = a ^ b;

    return (x & (~x + 1) & a) != 0;
}

static uint32_t popcount64(uint64_t v)
{
    uint32_t n = 0;

    for (; v != 0; v &= v - 1)
        n++;
    return n;
}

/* Bron-Kerbosch with a pivot over the mutual-peer graph nb[]: the largest
 * clique that extends r by GPUs of p (x: those already tried), into *best
 * and *nbest. */
static void grow(const uint64_t *nb, uint64_t r, uint64_t p, uint64_t x, uint64_t *best,
                 uint32_t *nbest)
{
    uint64_t px = p | x, cand;
    uint32_t pivot = 0, most = 0, nr = popcount64(r);

    if (px == 0) {
        if (nr > *nbest || (nr == *nbest && first(r, *best))) {
            *best = r;
            *nbest = nr;
        }
        return;
    }
    if (nr + popcount64(p) < *nbest)
        return; /* not even all of p makes it as large */
    for (uint32_t u = 0; u < 64; u++) {
        if ((px >> u & 1) != 0 && popcount64(p & nb[u]) >= most) {
            most = popcount64(p & nb[u]);
            pivot = u;
        }
    }
    cand = p & ~nb[pivot];
    for (uint32_t v = 0; v < 64; v++) {
        uint64_t bit = (uint64_t)1 << v;

        if ((cand & bit) == 0)
            continue;
        grow(nb, r | bit, p & nb[v], x & nb[v], best, nbest);
        p &= ~bit;
        x |= bit;
    }
}

uint32_t ces_devices_peer_set(const struct ces_devices *d, uint64_t *set)
{
    uint64_t nb[CES_DEVICES_MAX] = {0}, all = 0, best = 0;
    uint32_t n, nbest = 0;

    if (d == NULL || set == NULL)
        return 0;
    n = d->count < CES_DEVICES_MAX ? d->count : CES_DEVICES_MAX;
    for (uint32_t i = 0; i < n; i++) {
        all |= (uint64_t)1 << i;
        for (uint32_t j = 0; j < n; j++)
            if (j != i && mutual(d, i, j))
                nb[i] |= (uint64_t)1 << j;
    }
    if (n > 0)
        grow(nb, 0, all, 0, &best, &nbest);
    *set = best;
    return nbest;
}

int ces_devices_fit(struct ces_ctx *ctx, const struct ces_devices *d, uint32_t ranks)
{
    int share = 0, rc;

    if (d == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_devices_fit: NULL argument");
    if (ranks < 1 || ranks > CES_MAX_RANKS)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ranks must be 1..%u, not %" PRIu32,
                             CES_MAX_RANKS, ranks);
    rc = ces_cuda_share_gpus(ctx, &share);
    if (rc != CES_OK)
        return rc;
    if (d->count == 0)
        return ces_ctx_error(ctx, CES_ERR_LIMIT, "%" PRIu32 " rank%s but this machine has no GPU",
                             ranks, ces_plural(ranks));
    if (ranks > d->count && !share)
        return ces_ctx_error(ctx, CES_ERR_LIMIT,
                             "%" PRIu32 " ranks but this machine has %" PRIu32 " GPU%s "
                             "(CES_SHARE_GPUS=1 lets ranks share GPUs, for tests)",
                             ranks, d->count, ces_plural(d->count));
    /* rank r on GPU r, or r modulo the GPUs: the first pair of ranks on two
     * GPUs that are not peers, in the order ces_comm_init_all asks */
    for (uint32_t j = 1; j < ranks; j++) {
        for (uint32_t i = 0; i < j; i++) {
            uint32_t a = i % d->count, b = j % d->count;
            int ab, ba;

            if (a == b)
                continue;
            ab = d->pair[a][b].access;
            ba = d->pair[b][a].access;
            if (!ab || !ba)
                return ces_cuda_not_peers(ctx, i, j, ab ? (int)b : (int)a, ab ? (int)a : (int)b);
        }
    }
    return CES_OK;
}
