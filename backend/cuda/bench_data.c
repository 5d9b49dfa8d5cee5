/*
 * backend/cuda/bench_data.c - the bench's data pattern (bench_data.h):
 * its table, the ranks' phases, the fill by doubling copies, the
 * comparison and where each recv byte comes from.  Pure C: tested on the
 * host (tests/cuda/test_bench_data.c).
 */
#include "bench_data.h"

#include "cesync.h"

#include <string.h>

void ces_bench_table(unsigned char *t)
{
    uint32_t x = 0x2545F491u; /* xorshift32's state: any non-zero seed */

    for (uint32_t i = 0; i < CES_BENCH_PERIOD; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        t[i] = (unsigned char)(1u + x % 255u); /* 1..255: never a cleared byte */
    }
    memcpy(t + CES_BENCH_PERIOD, t, CES_BENCH_PERIOD);
}

/* 8,191 apart: 7 * 8,191 < the period, so the phases of ranks 0..7 are
 * distinct and no two lie closer than 8,191 bytes. */
uint32_t ces_bench_phase(uint32_t r) { return (uint32_t)((uint64_t)r * 8191u % CES_BENCH_PERIOD); }

unsigned char ces_bench_byte(const unsigned char *t, uint64_t pos)
{
    return t[pos % CES_BENCH_PERIOD];
}

uint64_t ces_bench_diff(const unsigned char *t, uint64_t pos, const unsigned char *got,
                        uint64_t len)
{
    if (t == NULL) {
        for (uint64_t k = 0; k < len; k++)
            if (got[k] != 0)
                return k;
        return len;
    }
    /* runs of at most a period, each compared with the table from its
     * position there (t holds two periods) */
    for (uint64_t k = 0; k < len;) {
        const unsigned char *want = t + (pos + k) % CES_BENCH_PERIOD;
        uint64_t run = len - k < CES_BENCH_PERIOD ? len - k : CES_BENCH_PERIOD;

        if (memcmp(got + k, want, (size_t)run) != 0)
            for (uint64_t i = 0;; i++)
                if (got[k + i] != want[i])
                    return k + i;
        k += run;
    }
    return len;
}

int ces_bench_fill(void *dst, uint64_t len, const unsigned char *tab, uint32_t pos,
                   ces_bench_copy_fn copy, void *arg)
{
    unsigned char *d = dst;
    uint64_t done = len < CES_BENCH_PERIOD ? len : CES_BENCH_PERIOD;
    int rc = len > 0 ? copy(arg, d, tab + pos, done) : CES_OK;

    /* d[0, done) holds a whole number of periods (or all of len): its copy
     * at d + done continues the sequence */
    while (rc == CES_OK && done < len) {
        uint64_t n = len - done < done ? len - done : done;

        rc = copy(arg, d + done, d, n);
        done += n;
    }
    return rc;
}

int ces_bench_source(const struct ces_bench_layout *l, uint32_t p, uint32_t c, uint64_t clen,
                     uint32_t *from, uint64_t *at)
{
    uint32_t n = l->ranks, root = l->root;

    *at = 0;
    switch (l->coll) {
    case CES_COLL_ALLTOALL:
    case CES_COLL_ALLGATHER:
        if (l->raw) { /* rank p-1's peer bytes into the first n-1 chunks */
            *from = (p + n - 1) % n;
            *at = c * clen;
            return c + 1 < n;
        }
        *from = c;
        *at = l->coll == CES_COLL_ALLTOALL ? p * clen : 0;
        return 1;
    case CES_COLL_GATHER:
        *from = c;
        return p == root && !(l->raw && c == root);
    case CES_COLL_SCATTER:
    case CES_COLL_BROADCAST:
        *from = root;
        *at = l->coll == CES_COLL_SCATTER ? p * clen : 0;
        return !(l->raw && p == root);
    default:
        *from = (p + n - 1) % n;
        return !l->one_way || p > 0;
    }
}
