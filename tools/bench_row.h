/*
 * tools/bench_row.h - what `cesync bench` makes of one measurement without
 * a GPU (tools/bench_row.c): nccl-tests' rates, the CSV's row, the
 * table's err% cell and the exit status after its outputs, so that
 * tests/tools/test_bench_row.c checks every column of the rows only a GPU
 * run writes (NCCL's, the raw copy's) and the status after a WRONG check
 * only a GPU run finds.
 */
#ifndef CES_BENCH_ROW_H
#define CES_BENCH_ROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One implementation at one size: times in us (median, min, max of the
 * iterations), the data check (1 ok, 0 WRONG, -1 none), the cost model's
 * prediction in its fast and slow mode (NAN: none). */
struct ces_bench_meas {
    int ran;
    double med, min, max;
    int check;
    double pred, pred_slow;
};

/* nccl-tests' algbw and busbw (GB/s) of collective `coll` (enum
 * ces_coll_kind) on `ranks` ranks at `bytes` per rank taking `us`: algbw
 * counts ranks * bytes for allgather, gather and scatter (nccl-tests'
 * size), bytes for the others; busbw is algbw * (ranks-1)/ranks but for
 * sendrecv and broadcast (algbw).  0 for a time not above 0. */
double ces_bench_algbw(uint32_t coll, uint32_t ranks, uint64_t bytes, double us);
double ces_bench_busbw(uint32_t coll, uint32_t ranks, uint64_t bytes, double us);

/* "ok", "WRONG" or "-" for a data check. */
const char *ces_bench_check_str(int check);

/* A CSV row of m without its line end: coll (the label, "<coll>-inplace"
 * in place), ranks, bytes, impl, variant, time_us, min_us, max_us,
 * algbw_gbps, busbw_gbps, check, pred_us, pred_slow_us.  variant NULL (NCCL,
 * the raw copy): "-" and both predictions empty, as a prediction that is
 * NAN is. */
void ces_bench_csv_row(FILE *f, const char *label, uint32_t coll, uint32_t ranks,
                       uint64_t bytes, const char *impl, const char *variant,
                       const struct ces_bench_meas *m);

/* A time of the table, at most 9 characters, its column's width, below
 * 1e100 us: us with 2 decimals below 1e6 (a second), whole us below 1e9,
 * then "%.3e"; "-" for NAN, no prediction. */
void ces_bench_us_cell(char *buf, size_t size, double us);

/* A rate of the table (GB/s), at most 7 characters likewise below 1e100:
 * 1 decimal below 1e5, whole below 1e7, then "%.1e". */
void ces_bench_gbps_cell(char *buf, size_t size, double gbps);

/* The table's err% cell of m, 7 characters: (pred - time) / time in percent
 * against the nearer of the two predictions, marked s when that is the
 * slow mode's. */
void ces_bench_err_cell(char *buf, size_t size, const struct ces_bench_meas *m);

/* The exit status once the run's status is `ex` (enum ces_exit) and the
 * --csv and --plot files were written (outputs_ok 1) or one failed (0):
 * 2 for a failed output, but a defect found before (1) stays 1. */
int ces_bench_exit_after_outputs(int ex, int outputs_ok);

#endif
