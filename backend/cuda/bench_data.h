/*
 * backend/cuda/bench_data.h - the bytes `cesync bench` moves and checks.
 * Every rank's send holds a pseudo-random sequence of non-zero bytes of a
 * prime period, started at a phase of its own: a byte tells which rank
 * sent it and, within a period, from which offset, so a chunk delivered
 * to the wrong place, a piece moved within its chunk (by any power of two,
 * which a prime period never divides), a byte not written (a recv is
 * cleared to 0) and one written twice all fail the check.  Where each
 * recv byte comes from is said here too (ces_bench_source).  Plain C
 * without CUDA: bench_gpu.c fills the GPUs' buffers through a copy
 * callback and compares what it reads back; tests/cuda/test_bench_data.c
 * runs it on the host.
 */
#ifndef CES_BENCH_DATA_H
#define CES_BENCH_DATA_H

#include <stdint.h>

/* The period of the pattern, in bytes: the largest prime below 2^16. */
#define CES_BENCH_PERIOD 65521u

/* Fills t[0, 2 * CES_BENCH_PERIOD): one period of the sequence, twice,
 * so that a whole period can be read from t + q for any q < the period. */
void ces_bench_table(unsigned char *t);

/* The position of byte 0 of rank r's send in the sequence (< the period;
 * distinct for every r < 8).  Byte s of rank r's send is the sequence's
 * byte at ces_bench_phase(r) + s. */
uint32_t ces_bench_phase(uint32_t r);

/* The sequence's byte at position pos (any: taken modulo the period). */
unsigned char ces_bench_byte(const unsigned char *t, uint64_t pos);

/* The index of the first byte of got[0, len) that is not the sequence's
 * byte at pos + k, or, with t NULL, that is not 0; len when none. */
uint64_t ces_bench_diff(const unsigned char *t, uint64_t pos, const unsigned char *got,
                        uint64_t len);

/* The copies that fill a buffer: n bytes from src to dst, in order (each
 * may read what an earlier one wrote); CES_OK, or the error to return. */
typedef int (*ces_bench_copy_fn)(void *arg, void *dst, const void *src, uint64_t n);

/* Fills dst[0, len) with the sequence from position pos (< the period),
 * the table tab (ces_bench_table, where copy reaches it) as its source:
 * one copy of at most a period from tab + pos, then copies of the filled
 * prefix onto what follows it, doubling, since the pattern repeats every
 * period - 1 + ceil(log2(len / period)) copies in all.  Returns CES_OK or
 * the first copy's error. */
int ces_bench_fill(void *dst, uint64_t len, const unsigned char *tab, uint32_t pos,
                   ces_bench_copy_fn copy, void *arg);

/* What one bench run moves: the collective (CES_COLL_*) over `ranks`, its
 * root (broadcast, gather, scatter), sendrecv's pipeline 0 -> 1 -> ... ->
 * n-1 instead of the ring, and whether the row is the raw copy
 * (bench_gpu.c, enqueue_raw: every rank copies its peer bytes from the
 * start of its send to rank r+1's recv, in the rooted collectives the
 * root's copies to every peer or every peer's into the root, never a
 * rank's own block) instead of the collective. */
struct ces_bench_layout {
    uint32_t coll;
    uint32_t ranks;
    uint32_t root;
    int one_way;
    int raw;
};

/* Where the bytes of chunk c (clen bytes: bytes / ranks in alltoall, else
 * bytes per rank) of rank p's recv come from once the run's last
 * iteration ended: 1, and rank *from's send from offset *at; 0 where
 * nothing may write them, so they stay as cleared (in place a rank's input
 * aside, which the caller knows by address). */
int ces_bench_source(const struct ces_bench_layout *l, uint32_t p, uint32_t c, uint64_t clen,
                     uint32_t *from, uint64_t *at);

#endif
