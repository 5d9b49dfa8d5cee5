/*
 * tests/tools/test_bench_row.c - `cesync bench`'s rows without a GPU
 * (tools/bench_row.c): every column of the CSV rows of cesync, NCCL and the
 * raw peer copy holds what its header names; the table's err% cell and a
 * prediction that could not be made.
 */
#include "ces_test.h"
#include "bench_row.h"
#include "tool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The CSV row of m as ces_bench_csv_row writes it (malloc'd). */
static char *row(const char *label, uint32_t coll, uint32_t ranks, uint64_t bytes,
                 const char *impl, const char *variant, const struct ces_bench_meas *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    assert_non_null(f);
    ces_bench_csv_row(f, label, coll, ranks, bytes, impl, variant, m);
    assert_int_equal(fclose(f), 0);
    return text;
}

/* algbw_gbps and busbw_gbps are nccl-tests' algbw and busbw on every row:
 * the raw peer copy's algbw column held its busbw. */
static void test_csv_columns(void **state)
{
    struct ces_bench_meas m = {1, 10.0, 9.5, 11.0, 1, 9.0, 12.0};
    char *t;

    (void)state;
    /* alltoall, 2 ranks, 1 MiB in 10 us: algbw 104.858, busbw half of it */
    t = row("alltoall", CES_COLL_ALLTOALL, 2, 1048576, "cesync", "overlap", &m);
    assert_string_equal(t, "alltoall,2,1048576,cesync,overlap,10.000,9.500,11.000,104.858,"
                           "52.429,ok,9.000,12.000");
    free(t);
    m.check = -1;
    t = row("alltoall", CES_COLL_ALLTOALL, 2, 1048576, "raw", NULL, &m);
    assert_string_equal(t, "alltoall,2,1048576,raw,-,10.000,9.500,11.000,104.858,52.429,-,,");
    free(t);
    m.check = 0;
    t = row("alltoall", CES_COLL_ALLTOALL, 2, 1048576, "nccl-ce", NULL, &m);
    assert_string_equal(t, "alltoall,2,1048576,nccl-ce,-,10.000,9.500,11.000,104.858,52.429,"
                           "WRONG,,");
    free(t);
    /* gather on 4 ranks: nccl-tests' size is 4 MiB, busbw 3/4 of algbw */
    m.check = 1;
    t = row("gather-inplace", CES_COLL_GATHER, 4, 1048576, "raw", NULL, &m);
    assert_string_equal(t, "gather-inplace,4,1048576,raw,-,10.000,9.500,11.000,419.430,"
                           "314.573,ok,,");
    free(t);
    /* broadcast: busbw = algbw */
    t = row("broadcast", CES_COLL_BROADCAST, 4, 1048576, "raw", NULL, &m);
    assert_string_equal(t, "broadcast,4,1048576,raw,-,10.000,9.500,11.000,104.858,104.858,"
                           "ok,,");
    free(t);
}

/* The err% cell: against the nearer prediction, s for the slow mode's; a
 * prediction that is NAN (none could be made) is not the nearer, and with
 * none at all the cell says "-": it printed +0.0, a perfect prediction. */
static void test_err_cell(void **state)
{
    struct ces_bench_meas m = {1, 10.0, 9.5, 11.0, 1, 9.0, 12.0};
    char cell[16];

    (void)state;
    ces_bench_err_cell(cell, sizeof(cell), &m);
    assert_string_equal(cell, " -10.0 ");
    m.pred = 12.0;
    m.pred_slow = 10.5;
    ces_bench_err_cell(cell, sizeof(cell), &m);
    assert_string_equal(cell, "  +5.0s");
    m.pred = NAN;
    m.pred_slow = 11.0;
    ces_bench_err_cell(cell, sizeof(cell), &m);
    assert_string_equal(cell, " +10.0s");
    m.pred = 9.5;
    m.pred_slow = NAN;
    ces_bench_err_cell(cell, sizeof(cell), &m);
    assert_string_equal(cell, "  -5.0 ");
    m.pred = NAN;
    ces_bench_err_cell(cell, sizeof(cell), &m);
    assert_string_equal(cell, "     - ");
    /* nor a time to compare with */
    m.pred = 9.0;
    m.med = NAN;
    ces_bench_err_cell(cell, sizeof(cell), &m);
    assert_string_equal(cell, "     - ");
    /* a time of 0 gives no error in percent (it printed +inf) */
    m.med = 0.0;
    ces_bench_err_cell(cell, sizeof(cell), &m);
    assert_string_equal(cell, "     - ");
}

/* A time of 0 (or none) has no rate: 0 GB/s, not inf. */
static void test_rates_without_time(void **state)
{
    (void)state;
    assert_true(ces_bench_algbw(CES_COLL_ALLTOALL, 2, 1024, 0.0) == 0.0);
    assert_true(ces_bench_busbw(CES_COLL_ALLGATHER, 4, 1024, 0.0) == 0.0);
    assert_true(ces_bench_busbw(CES_COLL_BROADCAST, 4, 1024, 0.0) == 0.0);
    /* and a time gives nccl-tests' rates: 1 MiB in 10 us */
    assert_true(fabs(ces_bench_algbw(CES_COLL_SCATTER, 4, 1048576, 10.0) - 419.4304) < 1e-9);
    assert_true(fabs(ces_bench_busbw(CES_COLL_SCATTER, 4, 1048576, 10.0) - 314.5728) < 1e-9);
}

/* nccl-tests' rates of every collective the bench runs, on 2, 4 and 8
 * ranks (its alltoall.cu, all_gather.cu, broadcast.cu, gather.cu,
 * scatter.cu, sendrecv.cu): algbw counts n x bytes for allgather, gather
 * and scatter (their size), bytes for the others; busbw is algbw x
 * (n-1)/n but for broadcast and sendrecv (x 1).  Only 2 ranks of alltoall
 * and allgather were checked, where (n-1)/n is 1/2. */
static void test_rates_every_collective(void **state)
{
    static const struct {
        uint32_t coll;
        int times_n, busbw_factor; /* algbw x n; busbw x (n-1)/n */
    } colls[] = {
        {CES_COLL_ALLTOALL, 0, 1},  {CES_COLL_ALLGATHER, 1, 1}, {CES_COLL_BROADCAST, 0, 0},
        {CES_COLL_GATHER, 1, 1},    {CES_COLL_SCATTER, 1, 1},   {CES_COLL_SENDRECV, 0, 0},
    };
    static const uint32_t ranks[] = {2, 4, 8};

    (void)state;
    for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++)
        for (size_t r = 0; r < sizeof(ranks) / sizeof(ranks[0]); r++) {
            uint32_t n = ranks[r];
            /* 1 MiB per rank in 10 us: 104.8576 GB/s of bytes */
            double alg = 104.8576 * (colls[c].times_n ? n : 1);
            double bus = colls[c].busbw_factor ? alg * (n - 1) / n : alg;

            assert_true(fabs(ces_bench_algbw(colls[c].coll, n, 1048576, 10.0) - alg) < 1e-9);
            assert_true(fabs(ces_bench_busbw(colls[c].coll, n, 1048576, 10.0) - bus) < 1e-9);
        }
}

/* A time cell is at most 9 characters and a rate cell 7, the table's
 * columns, on any machine a model file can describe (below 1e100): 2 decimals below a
 * second (1 decimal below 1e5 GB/s), whole numbers below 1e9 us (1e7
 * GB/s), then an exponent ("%.2f" gave 10 characters from 1 s on). */
static void test_cells_fit(void **state)
{
    static const struct {
        double v;
        const char *us, *gbps;
    } c[] = {
        {0.0, "0.00", "0.0"},
        {12.3456, "12.35", "12.3"},
        {99999.94, "99999.94", "99999.9"},
        {99999.96, "99999.96", "100000"},
        {999999.99, "999999.99", "1000000"},
        {999999.996, "1000000", "1000000"},
        {9999999.4, "9999999", "9999999"},
        {9999999.6, "10000000", "1.0e+07"},
        {999999999.4, "999999999", "1.0e+09"},
        {999999999.6, "1.000e+09", "1.0e+09"},
        {4.2949673e15, "4.295e+15", "4.3e+15"},
    };
    char cell[32];

    (void)state;
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        ces_bench_us_cell(cell, sizeof(cell), c[i].v);
        assert_string_equal(cell, c[i].us);
        assert_true(strlen(cell) <= 9);
        ces_bench_gbps_cell(cell, sizeof(cell), c[i].v);
        assert_string_equal(cell, c[i].gbps);
        assert_true(strlen(cell) <= 7);
    }
}

/* A prediction that is NAN is "-" in the table's pred_us and slow_us and
 * empty in the CSV, as the rows without predictions have it (it printed
 * nan). */
static void test_no_prediction(void **state)
{
    struct ces_bench_meas m = {1, 10.0, 9.5, 11.0, 1, NAN, 12.0};
    char cell[16], *t;

    (void)state;
    ces_bench_us_cell(cell, sizeof(cell), m.pred);
    assert_string_equal(cell, "-");
    ces_bench_us_cell(cell, sizeof(cell), m.pred_slow);
    assert_string_equal(cell, "12.00");
    t = row("alltoall", CES_COLL_ALLTOALL, 2, 1048576, "cesync", "plain", &m);
    assert_string_equal(t, "alltoall,2,1048576,cesync,plain,10.000,9.500,11.000,104.858,52.429,"
                           "ok,,12.000");
    free(t);
    m.pred = 9.0;
    m.pred_slow = NAN;
    t = row("alltoall", CES_COLL_ALLTOALL, 2, 1048576, "cesync", "plain", &m);
    assert_string_equal(t, "alltoall,2,1048576,cesync,plain,10.000,9.500,11.000,104.858,52.429,"
                           "ok,9.000,");
    free(t);
}

/* A --csv or --plot that cannot be written at the end makes the exit
 * status 2, but a defect found before it stays visible: a WRONG data check
 * or a failed run (1) keeps 1, as `cesync check --dot` does after a defect
 * (it became 2, as if the run had been fine). */
static void test_exit_after_outputs(void **state)
{
    (void)state;
    assert_int_equal(ces_bench_exit_after_outputs(CES_EXIT_OK, 1), CES_EXIT_OK);
    assert_int_equal(ces_bench_exit_after_outputs(CES_EXIT_DEFECT, 1), CES_EXIT_DEFECT);
    assert_int_equal(ces_bench_exit_after_outputs(CES_EXIT_OK, 0), CES_EXIT_USAGE);
    assert_int_equal(ces_bench_exit_after_outputs(CES_EXIT_DEFECT, 0), CES_EXIT_DEFECT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_columns),
        cmocka_unit_test(test_err_cell),
        cmocka_unit_test(test_cells_fit),
        cmocka_unit_test(test_no_prediction),
        cmocka_unit_test(test_rates_without_time),
        cmocka_unit_test(test_rates_every_collective),
        cmocka_unit_test(test_exit_after_outputs),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
