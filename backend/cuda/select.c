/*
 * backend/cuda/select.c - what the eager and captured collectives
 * (ces_alltoall & co.) build and how their cached plan is reused: the
 * parameters of the schedule a call runs, the lowering flags, and whether the
 * memop values of a cached plan are linear in the call number (so that one
 * plan serves every call with patched values).  Pure C, no CUDA types:
 * tested on machines without a GPU (tests/cuda/test_select.c).
 */
#include "lower.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ces_cuda_coll_select(struct ces_coll_params *p, uint32_t coll, uint32_t ranks,
                          uint64_t bytes, uint32_t root, int capturing)
{
    ces_coll_params_init(p, coll);
    /* Eager calls use `mono` (monotonic counters, no resets).  A captured
     * call is replayed with frozen values: every collective with two
     * barriers uses `pull` (the constant 1 in the writer's memory, polled
     * and reset by its reader: safe with two barriers per call, and on H200
     * a polled wait wakes sooner than one on a flag written into the
     * waiter's memory, as NCCL's graph protocol has it); the barrier, one
     * barrier a call, uses `credit`, which also acknowledges every flag. */
    p->proto = capturing ? CES_PROTO_CREDIT : CES_PROTO_MONO;
    p->ranks = ranks;
    p->bytes = coll == CES_COLL_BARRIER ? 1 : bytes;
    p->root = root;
    p->iterations = 1;
    p->phase = CES_PHASE_EAGER;
    if (capturing && coll != CES_COLL_BARRIER) {
        p->proto = CES_PROTO_PULL;
        p->phase = CES_PHASE_GRAPH;
    }
    /* The local chunk on a second stream: the fastest variant measured at
     * every size for alltoall and allgather (docs/PERFORMANCE.md); for
     * gather, scatter and broadcast the root's local copy likewise. */
    if (coll != CES_COLL_BARRIER)
        p->flags = CES_COLL_F_OVERLAP;
    /* The wake chain on the ranks of gather, scatter and broadcast that copy
     * nothing, eager and captured; not on alltoall and allgather, whose
     * every rank copies and which it did not make faster (docs/
     * PERFORMANCE.md, "A rank that only waits"). */
    if (coll == CES_COLL_GATHER || coll == CES_COLL_SCATTER || coll == CES_COLL_BROADCAST)
        p->wake = ces_cuda_wake_copies(ranks, bytes);
}

int ces_cuda_env_setting(struct ces_ctx *ctx, const char *name, const char *range,
                         const char *unit, uint64_t lo, uint64_t hi, uint64_t dflt,
                         uint64_t *out)
{
    const char *env = getenv(name);
    int bytes = strcmp(unit, "bytes") == 0;
    unsigned long long v = 0;
    unsigned shift = 0;
    char *end = NULL;

    if (env == NULL || *env == '\0') {
        *out = dflt;
        return CES_OK;
    }
    errno = 0;
    if (*env >= '0' && *env <= '9')
        v = strtoull(env, &end, 10);
    if (end != NULL && bytes) {
        switch (*end) {
        case 'K': case 'k': shift = 10; end++; break;
        case 'M': case 'm': shift = 20; end++; break;
        case 'G': case 'g': shift = 30; end++; break;
        default: break;
        }
    }
    if (end == NULL || *end != '\0' || errno == ERANGE || v > (hi >> shift) ||
        ((uint64_t)v << shift) < lo)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "%s must be %s %s (%s), not '%s'", name,
                             range, unit, bytes ? "digits, then K, M or G if wanted" : "digits",
                             env);
    *out = (uint64_t)v << shift;
    return CES_OK;
}

uint32_t ces_cuda_wake_copies(uint32_t ranks, uint64_t bytes)
{
    double root_us = CES_CUDA_PEER_START_US +
                     (double)(ranks - 1) * (double)bytes / CES_CUDA_PEER_BYTES_PER_US;
    double k = CES_CUDA_WAKE_SHARE * root_us / CES_CUDA_WAKE_COPY_US + 0.5;

    if (k < 1.0)
        return 1;
    return k >= (double)CES_CUDA_WAKE_MAX_COPIES ? CES_CUDA_WAKE_MAX_COPIES : (uint32_t)k;
}

int ces_cuda_coll_in_place(uint32_t coll, uint32_t rank, uint64_t bytes, uint32_t root,
                           uintptr_t send, uintptr_t recv)
{
    if (send == 0 || recv == 0)
        return 0;
    switch (coll) {
    case CES_COLL_ALLGATHER:
        return send - recv == (uint64_t)rank * bytes && send >= recv;
    case CES_COLL_GATHER:
        /* a rank but the root issues the same ops either way (nothing is
         * written into its recv, whose offset only names the root's):
         * its own block, NCCL's layout, is as good as the root's */
        return send >= recv &&
               (send - recv == (uint64_t)root * bytes || send - recv == (uint64_t)rank * bytes);
    case CES_COLL_SCATTER:
        return recv - send == (uint64_t)root * bytes && recv >= send;
    case CES_COLL_BROADCAST:
        return send == recv;
    default:
        return 0;
    }
}

const char *ces_cuda_coll_in_place_rule(uint32_t coll)
{
    switch (coll) {
    case CES_COLL_ALLGATHER:
        return "send is recv + rank*bytes";
    case CES_COLL_GATHER:
        return "send is recv + root*bytes, or recv + rank*bytes on a rank but the root";
    case CES_COLL_SCATTER:
        return "recv is send + root*bytes, on every rank";
    case CES_COLL_BROADCAST:
        return "send is recv";
    default:
        return NULL;
    }
}

unsigned ces_cuda_coll_lower_flags(int capturing, int progress)
{
    if (capturing)
        return CES_LOWER_CAPTURE | (progress ? CES_LOWER_FLIGHT : 0u);
    return progress ? CES_LOWER_PROGRESS : 0u;
}

/* Same plan apart from memop values? */
static int same_but_values(const struct ces_cuda_plan *a, const struct ces_cuda_plan *b)
{
    const struct ces_cuda_pblock *x = &a->blocks[0], *y = &b->blocks[0];

    if (a->nblocks != 1 || b->nblocks != 1 || x->calls.len != y->calls.len ||
        x->copies.len != y->copies.len || x->memops.len != y->memops.len)
        return 0;
    /* (an empty vector may hold no array: memcmp must not see NULL) */
    if ((x->calls.len > 0 &&
         memcmp(x->calls.data, y->calls.data, x->calls.len * sizeof(struct ces_cuda_call)) != 0) ||
        (x->copies.len > 0 &&
         memcmp(x->copies.data, y->copies.data, x->copies.len * sizeof(struct ces_cuda_copy)) != 0))
        return 0;
    for (size_t i = 0; i < x->memops.len; i++) {
        struct ces_cuda_memop m = CES_VEC_AT(&x->memops, struct ces_cuda_memop, i);
        struct ces_cuda_memop n = CES_VEC_AT(&y->memops, struct ces_cuda_memop, i);

        m.value = n.value = 0;
        if (memcmp(&m, &n, sizeof(m)) != 0)
            return 0;
    }
    return 1;
}

int ces_cuda_plan_linear(const struct ces_cuda_plan *p1, const struct ces_cuda_plan *p2,
                         const struct ces_cuda_plan *p3, uint64_t *va, uint64_t *vb)
{
    const struct ces_cuda_pblock *b1;

    if (!same_but_values(p1, p2) || !same_but_values(p1, p3))
        return 0;
    b1 = &p1->blocks[0];
    for (size_t i = 0; i < b1->memops.len; i++) {
        const struct ces_cuda_memop *m = &CES_VEC_AT(&b1->memops, struct ces_cuda_memop, i);
        uint64_t v1 = m->value;
        uint64_t v2 = CES_VEC_AT(&p2->blocks[0].memops, struct ces_cuda_memop, i).value;
        uint64_t v3 = CES_VEC_AT(&p3->blocks[0].memops, struct ces_cuda_memop, i).value;
        uint64_t mask = (m->kind == CES_MEMOP_WRITE32 || m->kind == CES_MEMOP_WAIT32)
                            ? UINT32_MAX
                            : UINT64_MAX;

        va[i] = v1;
        vb[i] = v2 - v1;
        if (((v1 + 2 * (v2 - v1)) & mask) != (v3 & mask))
            return 0;
    }
    return 1;
}

uint64_t ces_cuda_patched_value(const uint64_t *va, const uint64_t *vb, size_t i, uint64_t k)
{
    return va[i] + vb[i] * (k - 1);
}
