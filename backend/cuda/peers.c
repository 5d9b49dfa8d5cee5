/*
 * backend/cuda/peers.c - which GPUs of a ces_devices_query can run ranks
 * together: the largest set of mutual peers, and whether a number of ranks
 * placed as the communicators place them has only peers.  Plain C without
 * CUDA types (a cesync without CUDA builds it too), and the messages of a
 * pair that is not and of too few GPUs, which ces_comm_init_all, cesync
 * run and cesync bench say as well.
 */
#include "args.h"
#include "internal.h" /* ces_plural */
#include "lower.h"    /* ces_cuda_queues, ces_cuda_queues_shared */

#include <inttypes.h>
#include <stdlib.h>

int ces_cuda_not_peers(struct ces_ctx *ctx, uint32_t ra, uint32_t rb, int from, int to)
{
    return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                         "ranks %" PRIu32 " and %" PRIu32 ": GPU %d cannot access GPU %d's "
                         "memory (cuDeviceCanAccessPeer: they are not peers, by NVLink or PCIe); "
                         "every rank maps every other rank's memory, so every pair of GPUs must "
                         "be peers",
                         ra, rb, from, to);
}

int ces_cuda_too_few_gpus(struct ces_ctx *ctx, int rc, uint32_t ranks, const char *at,
                          uint32_t gpus)
{
    if (gpus == 0)
        return ces_ctx_error(ctx, rc, "%" PRIu32 " rank%s%s but this machine has no GPU", ranks,
                             ces_plural(ranks), at);
    return ces_ctx_error(ctx, rc,
                         "%" PRIu32 " ranks%s but this machine has %" PRIu32 " GPU%s "
                         "(CES_SHARE_GPUS=1 lets ranks share GPUs, for tests)",
                         ranks, at, gpus, ces_plural(gpus));
}

uint32_t ces_cuda_gpu_sharer(const int *devices, uint32_t n, uint32_t *first)
{
    for (uint32_t j = 1; j < n; j++)
        for (uint32_t i = 0; i < j; i++)
            if (devices[i] == devices[j]) {
                *first = i;
                return j;
            }
    return n;
}

uint32_t ces_cuda_gpu_crowd(const int *devices, uint32_t n, int *device)
{
    uint32_t most = 0;

    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = 0;

        for (uint32_t j = 0; j < n; j++)
            k += devices[j] == devices[i];
        if (k > most) {
            most = k;
            *device = devices[i];
        }
    }
    return most;
}

int ces_cuda_one_process(struct ces_ctx *ctx, const int *dev, uint32_t n, uint32_t queues)
{
    uint32_t i = 0, j = ces_cuda_gpu_sharer(dev, n, &i), crowd;
    int busy = 0;

    if (ces_cuda_queues_shared(queues) && j < n)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "ranks %" PRIu32 " and %" PRIu32 " share GPU %d in one process, "
                             "whose streams CUDA_DEVICE_MAX_CONNECTIONS=%" PRIu32 " puts on "
                             "%" PRIu32 " hardware queue%s: a wait of one rank would hold the "
                             "other's writes behind it for ever (one process per rank, or 8 "
                             "queues or more)",
                             i, j, dev[j], queues, queues, ces_plural(queues));
    crowd = ces_cuda_gpu_crowd(dev, n, &busy);
    if (crowd > CES_CUDA_GPU_RANKS_MAX)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "%" PRIu32 " ranks of one process on GPU %d: at most %d (their "
                             "streams would outnumber its hardware queues, and a wait of one "
                             "rank could hold another's writes; 8 on one H200 deadlocked)",
                             crowd, busy, CES_CUDA_GPU_RANKS_MAX);
    return CES_OK;
}

/* GPUs i and j can access each other's memory. */
static int mutual(const struct ces_devices *d, uint32_t i, uint32_t j)
{
    return d->pair[i][j].access && d->pair[j][i].access;
}

static uint32_t popcount64(uint64_t v)
{
    uint32_t n = 0;

    for (; v != 0; v &= v - 1)
        n++;
    return n;
}

/* The lowest GPU of a non-empty set. */
static uint32_t lowest(uint64_t set)
{
    uint32_t i = 0;

    while ((set >> i & 1) == 0)
        i++;
    return i;
}

/* How many colors a greedy coloring of set p of the mutual-peer graph
 * nb[] takes (GPUs of one color: no two of them peers), each a bound of
 * the largest clique within p. */
static uint32_t colors(const uint64_t *nb, uint64_t p)
{
    uint32_t n = 0;

    for (; p != 0; n++) {
        uint64_t q = p;

        while (q != 0) {
            uint64_t bit = q & (~q + 1);

            p &= ~bit;
            q &= ~bit & ~nb[lowest(bit)];
        }
    }
    return n;
}

/* Whether set p of the mutual-peer graph nb[] holds a clique of k GPUs:
 * branch and bound, a branch cut where its GPUs need fewer colors than
 * k (64 GPUs in 21 groups of 3 that are not peers within a group have
 * 3^21 largest cliques, which a search that compared each took more than
 * 5 minutes over). */
static int has_clique(const uint64_t *nb, uint64_t p, uint32_t k)
{
    if (k == 0)
        return 1;
    while (popcount64(p) >= k && colors(nb, p) >= k) {
        uint32_t v = lowest(p);

        if (has_clique(nb, p & nb[v], k - 1))
            return 1;
        p &= ~((uint64_t)1 << v);
    }
    return 0;
}

uint32_t ces_devices_peer_set(const struct ces_devices *d, uint64_t *set)
{
    uint64_t nb[CES_DEVICES_MAX] = {0}, all = 0, best = 0;
    uint32_t n, nbest = 0;

    if (d == NULL || set == NULL)
        return 0;
    n = d->count < CES_DEVICES_MAX ? d->count : CES_DEVICES_MAX;
    for (uint32_t i = 0; i < n; i++) {
        if (d->dev[i].error[0] != '\0')
            continue; /* (not described: no set holds it) */
        all |= (uint64_t)1 << i;
        for (uint32_t j = 0; j < n; j++)
            if (j != i && mutual(d, i, j))
                nb[i] |= (uint64_t)1 << j;
    }
    while (has_clique(nb, all, nbest + 1))
        nbest++;
    /* of the sets of that size the first: each GPU in turn, where a set of
     * that size still holds it */
    for (uint32_t i = 0, k = nbest; i < n && k > 0; i++) {
        uint64_t bit = (uint64_t)1 << i;

        if ((all & bit) != 0 && has_clique(nb, all & nb[i], k - 1)) {
            best |= bit;
            all &= nb[i];
            k--;
        }
    }
    *set = best;
    return nbest;
}

int ces_devices_fit(struct ces_ctx *ctx, const struct ces_devices *d, uint32_t ranks,
                    int one_process)
{
    return ces_cuda_fit(ctx, d, ranks, "", one_process);
}

int ces_cuda_fit(struct ces_ctx *ctx, const struct ces_devices *d, uint32_t ranks, const char *at,
                 int one_process)
{
    int share = 0, rc, dev[CES_MAX_RANKS];
    uint32_t gpus;

    if (d == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_devices_fit: NULL argument");
    if (ranks < 1 || ranks > CES_MAX_RANKS)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ranks must be 1..%u, not %" PRIu32,
                             CES_MAX_RANKS, ranks);
    rc = ces_cuda_share_gpus(ctx, &share);
    if (rc != CES_OK)
        return rc;
    /* the GPUs CUDA counts, of which the first count are described (a
     * description made by hand may leave total 0) */
    gpus = d->total > d->count ? d->total : d->count;
    if (d->count == 0 || (ranks > gpus && !share))
        return ces_cuda_too_few_gpus(ctx, CES_ERR_LIMIT, ranks, at, gpus);
    /* rank r on GPU r, or r modulo the GPUs; in one process first what
     * ces_comm_init_all judges first, the ranks sharing a GPU */
    for (uint32_t r = 0; r < ranks; r++)
        dev[r] = (int)(r % gpus);
    if (one_process) {
        rc = ces_cuda_one_process(ctx, dev, ranks,
                                  ces_cuda_queues(getenv("CUDA_DEVICE_MAX_CONNECTIONS")));
        if (rc != CES_OK)
            return rc;
    }
    if (ranks > d->count && gpus > d->count)
        return ces_ctx_error(ctx, CES_ERR_LIMIT,
                             "rank %" PRIu32 " would be on GPU %" PRIu32 ", which is not "
                             "described: of the %" PRIu32 " GPUs CUDA counts the first %" PRIu32
                             " are",
                             d->count, d->count, gpus, d->count);
    /* a GPU the driver could not describe stops only the ranks on it */
    for (uint32_t r = 0; r < ranks; r++)
        if (d->dev[dev[r]].error[0] != '\0')
            return ces_ctx_error(ctx, CES_ERR_CUDA,
                                 "rank %" PRIu32 " would be on GPU %d, which the driver cannot "
                                 "describe: %s",
                                 r, dev[r], d->dev[dev[r]].error);
    /* the first pair of ranks on two GPUs that are not peers, in the order
     * ces_comm_init_all asks */
    for (uint32_t j = 1; j < ranks; j++) {
        for (uint32_t i = 0; i < j; i++) {
            int a = dev[i], b = dev[j], ab, ba;

            if (a == b)
                continue;
            ab = d->pair[a][b].access;
            ba = d->pair[b][a].access;
            if (!ab || !ba)
                return ces_cuda_not_peers(ctx, i, j, ab ? b : a, ab ? a : b);
        }
    }
    return CES_OK;
}
