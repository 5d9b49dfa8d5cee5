/*
 * tests/cuda/test_bench_data.c - the bench's data pattern
 * (backend/cuda/bench_data.c) on the CPU: the table (non-zero bytes, two
 * equal periods), the ranks' phases, the fill by doubling copies (every
 * length around the period, the number of copies, nothing written past the
 * end, a failed copy), and that the comparison names the exact first wrong
 * byte of every fault a collective could make: a byte not written, a piece
 * moved within its chunk by any power of two, a piece written twice, a
 * chunk from another rank or from another offset of the right one; and
 * where every recv byte of every collective and of its raw copy comes
 * from (ces_bench_source), against the copies run on the host.
 */
#include "ces_test.h"
#include "bench_data.h"

#include <stdlib.h>
#include <string.h>

#define P CES_BENCH_PERIOD

static unsigned char tab[2 * P];

static int setup(void **state)
{
    (void)state;
    ces_bench_table(tab);
    return 0;
}

/* The reference: the first k with got[k] != the sequence at pos + k. */
static uint64_t first_wrong(uint64_t pos, const unsigned char *got, uint64_t len)
{
    for (uint64_t k = 0; k < len; k++)
        if (got[k] != tab[(pos + k) % P])
            return k;
    return len;
}

/* The host's copies, logged. */
struct copies {
    uint32_t n;
    uint32_t fail_at; /* the copy (1-based) that fails; 0: none */
    uint64_t bytes;
};

static int host_copy(void *arg, void *dst, const void *src, uint64_t n)
{
    struct copies *c = arg;

    if (++c->n == c->fail_at)
        return CES_ERR_CUDA;
    memcpy(dst, src, (size_t)n);
    c->bytes += n;
    return CES_OK;
}

/* dst[0, len) filled from pos on the host; dst holds len + 64 bytes. */
static void fill(unsigned char *dst, uint64_t len, uint32_t pos, struct copies *c)
{
    memset(c, 0, sizeof(*c));
    assert_int_equal(ces_bench_fill(dst, len, tab, pos, host_copy, c), CES_OK);
}

static void test_table(void **state)
{
    uint32_t seen[256] = {0}, distinct = 0;

    (void)state;
    assert_memory_equal(tab, tab + P, P);
    for (uint32_t i = 0; i < P; i++)
        seen[tab[i]]++;
    assert_int_equal(seen[0], 0); /* never a cleared byte */
    for (int v = 1; v < 256; v++) {
        distinct += seen[v] > 0;
        /* about P / 255 = 257 each */
        assert_in_range(seen[v], 150, 400);
    }
    assert_int_equal(distinct, 255);
    /* the same table every time: the check reads what the fill wrote */
    {
        static unsigned char again[2 * P];

        ces_bench_table(again);
        assert_memory_equal(again, tab, 2 * P);
    }
}

/* Where the ranks start: distinct, 8,191 apart, below the period; and two
 * ranks' sequences at the same offset agree in about 1 byte of 255. */
static void test_phases(void **state)
{
    (void)state;
    for (uint32_t r = 0; r < 8; r++) {
        assert_int_equal(ces_bench_phase(r), r * 8191u);
        assert_true(ces_bench_phase(r) < P);
    }
    for (uint32_t r = 0; r < 8; r++)
        for (uint32_t q = r + 1; q < 8; q++) {
            uint32_t same = 0;

            for (uint32_t i = 0; i < P; i++)
                same += tab[(ces_bench_phase(r) + i) % P] == tab[(ces_bench_phase(q) + i) % P];
            assert_true(same < P / 100);
        }
}

/* A piece moved by any power of two up to 1 GiB reads another position of
 * the sequence, never the same one (the period is prime): the shifted
 * sequence agrees with itself in about 1 byte of 255. */
static void test_shifts(void **state)
{
    (void)state;
    for (uint32_t j = 0; j <= 30; j++) {
        uint64_t s = UINT64_C(1) << j;
        uint32_t same = 0;

        assert_true(s % P != 0);
        for (uint32_t i = 0; i < P; i++)
            same += tab[i] == ces_bench_byte(tab, i + s);
        assert_true(same < P / 100);
    }
}

static void test_byte(void **state)
{
    static const uint64_t pos[] = {0, 1, P - 1, P, P + 1, 2 * P + 3, (UINT64_C(1) << 40) + 5};

    (void)state;
    for (size_t i = 0; i < sizeof(pos) / sizeof(pos[0]); i++)
        assert_int_equal(ces_bench_byte(tab, pos[i]), tab[pos[i] % P]);
    assert_int_equal(ces_bench_byte(tab, P + 7), ces_bench_byte(tab, 7));
}

/* Every length around the period and its doublings, from three phases:
 * the sequence from the phase, nothing past the end, one copy from the
 * table and then doubling copies of what is filled, every byte once. */
static void test_fill(void **state)
{
    static const uint64_t lens[] = {0,         1,         4096,          P - 1,     P,
                                    P + 1,     2 * P - 1, 2 * P,         2 * P + 1, 3 * P + 17,
                                    4 * P,     8 * P + 1, (1u << 20) + 3, 8u << 20};
    static const uint32_t want_copies[] = {0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 5, 6, 9};
    const uint32_t phases[] = {0, ces_bench_phase(7), P - 1};
    unsigned char *buf = malloc((8u << 20) + 64);

    (void)state;
    assert_non_null(buf);
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
        for (size_t j = 0; j < 3; j++) {
            struct copies c;

            memset(buf, 0xee, lens[i] + 64);
            fill(buf, lens[i], phases[j], &c);
            assert_int_equal(first_wrong(phases[j], buf, lens[i]), lens[i]);
            assert_int_equal(ces_bench_diff(tab, phases[j], buf, lens[i]), lens[i]);
            for (int k = 0; k < 64; k++)
                assert_int_equal(buf[lens[i] + k], 0xee);
            assert_int_equal(c.n, want_copies[i]);
            assert_int_equal(c.bytes, lens[i]);
        }
    free(buf);
}

/* A failed copy ends the fill with its error: nothing after it. */
static void test_fill_fails(void **state)
{
    unsigned char *buf = malloc(5 * P);

    (void)state;
    assert_non_null(buf);
    for (uint32_t at = 1; at <= 4; at++) {
        struct copies c = {0, at, 0};

        assert_int_equal(ces_bench_fill(buf, 5 * P, tab, 11, host_copy, &c), CES_ERR_CUDA);
        assert_int_equal(c.n, at);
    }
    free(buf);
}

/* Each fault on a filled chunk of 1 MiB + 3 bytes from rank 3's phase,
 * at send offset 12,345: the comparison names exactly the reference's first
 * wrong byte, and the reference finds one. */
static void test_diff_finds(void **state)
{
    const uint64_t len = (1u << 20) + 3;
    const uint64_t pos = ces_bench_phase(3) + 12345;
    unsigned char *good = malloc(len), *got = malloc(len);
    struct copies c;

    (void)state;
    assert_non_null(good);
    assert_non_null(got);
    fill(good, len, (uint32_t)(pos % P), &c);
    assert_int_equal(ces_bench_diff(tab, pos, good, len), len);
    for (int fault = 0; fault < 9; fault++) {
        uint64_t want;

        memcpy(got, good, len);
        switch (fault) {
        case 0: /* the first byte never written */
            got[0] = 0;
            break;
        case 1: /* the last byte never written */
            got[len - 1] = 0;
            break;
        case 2: /* one byte at a period's end, one past it */
            got[P - 1] ^= 1;
            break;
        case 3:
            got[P] ^= 0x80;
            break;
        case 4: /* the two halves of the chunk swapped (two pieces) */
            memcpy(got, good + len / 2, len - len / 2);
            memcpy(got + (len - len / 2), good, len / 2);
            break;
        case 5: /* a 4 KiB piece at 64 KiB written from 4 KiB later */
            memcpy(got + 65536, good + 65536 + 4096, 4096);
            break;
        case 6: /* the first 4 KiB written twice: also at 4 KiB */
            memcpy(got + 4096, good, 4096);
            break;
        case 7: /* the chunk of rank 5 at the same offset */
            fill(got, len, (uint32_t)((ces_bench_phase(5) + 12345) % P), &c);
            break;
        default: /* the chunk of rank 3 from the next 1 MiB + 3 */
            fill(got, len, (uint32_t)((pos + len) % P), &c);
            break;
        }
        want = first_wrong(pos, got, len);
        assert_true(want < len);
        assert_int_equal(ces_bench_diff(tab, pos, got, len), want);
        switch (fault) {
        case 0:
            assert_int_equal(want, 0);
            break;
        case 1:
            assert_int_equal(want, len - 1);
            break;
        case 2:
            assert_int_equal(want, P - 1);
            break;
        case 3:
            assert_int_equal(want, P);
            break;
        case 5:
            assert_in_range(want, 65536, 65536 + 64);
            break;
        case 6:
            assert_in_range(want, 4096, 4096 + 64);
            break;
        default: /* a wrong piece from its first bytes */
            assert_in_range(want, 0, 64);
            break;
        }
    }
    free(good);
    free(got);
}

/* t NULL: what must stay cleared. */
static void test_diff_zero(void **state)
{
    static unsigned char buf[3 * P];

    (void)state;
    memset(buf, 0, sizeof(buf));
    assert_int_equal(ces_bench_diff(NULL, 77, buf, sizeof(buf)), sizeof(buf));
    buf[2 * P + 9] = 1;
    assert_int_equal(ces_bench_diff(NULL, 77, buf, sizeof(buf)), 2 * P + 9);
    buf[5] = 0xff;
    assert_int_equal(ces_bench_diff(NULL, 0, buf, sizeof(buf)), 5);
    assert_int_equal(ces_bench_diff(NULL, 0, buf, 5), 5);
    assert_int_equal(ces_bench_diff(tab, 0, buf, 0), 0);
}

/* --- where each recv byte comes from (ces_bench_source) ------------------- */

#define RANKS_MAX 8u

/* One bench run on the host at `bytes` per rank: every send (n * bytes,
 * the most any layout reads) filled with its rank's pattern, every recv
 * (n * bytes) cleared, then the copies of the collective as cesync.h
 * defines it, or of the raw copy as bench_gpu.c's enqueue_raw issues it. */
static void run_host(const struct ces_bench_layout *l, uint64_t bytes,
                     unsigned char *send[RANKS_MAX], unsigned char *recv[RANKS_MAX])
{
    uint32_t n = l->ranks, root = l->root;
    uint64_t clen = bytes / n; /* alltoall's chunk */
    struct copies c;

    for (uint32_t r = 0; r < n; r++) {
        fill(send[r], n * bytes, ces_bench_phase(r), &c);
        memset(recv[r], 0, (size_t)(n * bytes));
    }
    for (uint32_t r = 0; r < n; r++) {
        int own = l->raw && r == root; /* the raw copy's root moves nothing to itself */

        switch (l->coll) {
        case CES_COLL_ALLTOALL:
            for (uint32_t q = 0; q < n && !l->raw; q++)
                memcpy(recv[q] + r * clen, send[r] + q * clen, (size_t)clen);
            if (l->raw)
                memcpy(recv[(r + 1) % n], send[r], (size_t)((n - 1) * clen));
            break;
        case CES_COLL_ALLGATHER:
            for (uint32_t q = 0; q < n && !l->raw; q++)
                memcpy(recv[q] + r * bytes, send[r], (size_t)bytes);
            if (l->raw)
                memcpy(recv[(r + 1) % n], send[r], (size_t)((n - 1) * bytes));
            break;
        case CES_COLL_GATHER:
            if (!own)
                memcpy(recv[root] + r * bytes, send[r], (size_t)bytes);
            break;
        case CES_COLL_SCATTER:
            if (!own)
                memcpy(recv[r], send[root] + r * bytes, (size_t)bytes);
            break;
        case CES_COLL_BROADCAST:
            if (!own)
                memcpy(recv[r], send[root], (size_t)bytes);
            break;
        default:
            if (!l->one_way || r + 1 < n)
                memcpy(recv[(r + 1) % n], send[r], (size_t)bytes);
        }
    }
}

/* Every chunk of every recv of the host run of `l` (recv_len bytes, as
 * cesync.h gives them) holds what ces_bench_source says: the sequence
 * of the rank and offset it names, or 0 where nothing writes. */
static void check_sources(const struct ces_bench_layout *l, uint64_t bytes,
                          unsigned char *send[RANKS_MAX], unsigned char *recv[RANKS_MAX])
{
    uint32_t n = l->ranks;
    uint64_t clen = l->coll == CES_COLL_ALLTOALL ? bytes / n : bytes;
    uint64_t rl = l->coll == CES_COLL_ALLGATHER || l->coll == CES_COLL_GATHER ? n * bytes : bytes;

    run_host(l, bytes, send, recv);
    for (uint32_t p = 0; p < n; p++)
        for (uint32_t c = 0; c < rl / clen; c++) {
            uint32_t from = RANKS_MAX;
            uint64_t at = 0, d;
            int written = ces_bench_source(l, p, c, clen, &from, &at);

            assert_true(!written || from < n);
            d = ces_bench_diff(written ? tab : NULL, ces_bench_phase(from % RANKS_MAX) + at,
                               recv[p] + c * clen, clen);
            if (d < clen)
                fail_msg("coll %u, %u ranks, root %u, one way %d, raw %d: rank %u's recv "
                         "byte %llu is not %s", l->coll, n, l->root, l->one_way, l->raw, p,
                         (unsigned long long)(c * clen + d), written ? "its source's" : "clear");
        }
}

/* Every collective, and its raw copy, on 2 to 8 ranks, every root, both
 * sendrecv shapes: the host run's recv bytes are where ces_bench_source
 * says (each rank's pattern and offset tell them apart, so a chunk from
 * the wrong rank or offset, or one written where none may be, fails). */
static void test_sources(void **state)
{
    static const uint32_t colls[] = {CES_COLL_ALLTOALL, CES_COLL_ALLGATHER, CES_COLL_SENDRECV,
                                     CES_COLL_BROADCAST, CES_COLL_GATHER, CES_COLL_SCATTER};
    unsigned char *send[RANKS_MAX], *recv[RANKS_MAX];
    uint64_t bytes = 24 * 8 * 7 * 5; /* a multiple of every rank count's chunk */
    uint32_t runs = 0;

    (void)state;
    for (uint32_t r = 0; r < RANKS_MAX; r++) {
        send[r] = malloc((size_t)(RANKS_MAX * bytes + 64));
        recv[r] = malloc((size_t)(RANKS_MAX * bytes));
        assert_non_null(send[r]);
        assert_non_null(recv[r]);
    }
    for (size_t k = 0; k < sizeof(colls) / sizeof(colls[0]); k++)
        for (uint32_t n = 2; n <= RANKS_MAX; n++)
            for (int raw = 0; raw < 2; raw++) {
                int rooted = colls[k] == CES_COLL_BROADCAST || colls[k] == CES_COLL_GATHER ||
                             colls[k] == CES_COLL_SCATTER;

                for (uint32_t root = 0; root < (rooted ? n : 1); root++)
                    for (int one_way = 0; one_way < (colls[k] == CES_COLL_SENDRECV ? 2 : 1);
                         one_way++) {
                        struct ces_bench_layout l = {colls[k], n, root, one_way, raw};

                        check_sources(&l, bytes, send, recv);
                        runs++;
                    }
            }
    assert_int_equal(runs, 2 * (7 + 7 + 14 + 3 * 35));
    for (uint32_t r = 0; r < RANKS_MAX; r++) {
        free(send[r]);
        free(recv[r]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),      cmocka_unit_test(test_phases),
        cmocka_unit_test(test_shifts),     cmocka_unit_test(test_byte),
        cmocka_unit_test(test_fill),       cmocka_unit_test(test_fill_fails),
        cmocka_unit_test(test_diff_finds), cmocka_unit_test(test_diff_zero),
        cmocka_unit_test(test_sources),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
