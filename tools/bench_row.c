/*
 * tools/bench_row.c - `cesync bench`'s rates, CSV rows and err% cells
 * (tools/bench_row.h).
 */
#include "bench_row.h"

#include "cesync.h"
#include "tool.h"

#include <inttypes.h>
#include <math.h>

double ces_bench_algbw(uint32_t coll, uint32_t ranks, uint64_t bytes, double us)
{
    double size = coll == CES_COLL_ALLGATHER || coll == CES_COLL_GATHER ||
                          coll == CES_COLL_SCATTER
                      ? (double)bytes * ranks
                      : (double)bytes;

    return us > 0.0 ? size / us / 1e3 : 0.0;
}

/* Also the rate of the raw copy's row (raw_bw): the busbw of a collective
 * that took the raw copy's time.  That is the peer bytes a rank copies
 * over the time (alltoall (n-1)/n * bytes, allgather (n-1) * bytes,
 * sendrecv bytes; gather and scatter the (n-1) * bytes through the root),
 * but for broadcast, whose root copies (n-1) * bytes, bytes / time. */
double ces_bench_busbw(uint32_t coll, uint32_t ranks, uint64_t bytes, double us)
{
    double a = ces_bench_algbw(coll, ranks, bytes, us);

    return coll == CES_COLL_SENDRECV || coll == CES_COLL_BROADCAST ? a
                                                                   : a * (ranks - 1) / ranks;
}

const char *ces_bench_check_str(int check)
{
    return check == 1 ? "ok" : check == 0 ? "WRONG" : "-";
}

void ces_bench_csv_row(FILE *f, const char *label, uint32_t coll, uint32_t ranks,
                       uint64_t bytes, const char *impl, const char *variant,
                       const struct ces_bench_meas *m)
{
    fprintf(f, "%s,%" PRIu32 ",%" PRIu64 ",%s,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%s,", label, ranks,
            bytes, impl, variant != NULL ? variant : "-", m->med, m->min, m->max,
            ces_bench_algbw(coll, ranks, bytes, m->med), ces_bench_busbw(coll, ranks, bytes, m->med), ces_bench_check_str(m->check));
    if (variant != NULL && !isnan(m->pred))
        fprintf(f, "%.3f", m->pred);
    fputc(',', f);
    if (variant != NULL && !isnan(m->pred_slow))
        fprintf(f, "%.3f", m->pred_slow);
}

/* A prediction's error against time t in percent; NAN when either is
 * none. */
static double pred_error(double pred, double t)
{
    return 100.0 * (pred - t) / t;
}

void ces_bench_err_cell(char *buf, size_t size, const struct ces_bench_meas *m)
{
    double f = pred_error(m->pred, m->med), s = pred_error(m->pred_slow, m->med);
    int slow = isnan(f) || fabs(s) < fabs(f);
    double e = slow ? s : f;

    if (isnan(e) || !(m->med > 0))
        snprintf(buf, size, "%6s ", "-");
    else
        snprintf(buf, size, "%+6.1f%c", e, slow ? 's' : ' ');
}

void ces_bench_us_cell(char *buf, size_t size, double us)
{
    if (isnan(us))
        snprintf(buf, size, "-");
    else if (us < 999999.995)
        snprintf(buf, size, "%.2f", us);
    else if (us < 999999999.5)
        snprintf(buf, size, "%.0f", us);
    else
        snprintf(buf, size, "%.3e", us);
}

void ces_bench_gbps_cell(char *buf, size_t size, double gbps)
{
    if (gbps < 99999.95)
        snprintf(buf, size, "%.1f", gbps);
    else if (gbps < 9999999.5)
        snprintf(buf, size, "%.0f", gbps);
    else
        snprintf(buf, size, "%.1e", gbps);
}

/* A defect found (a WRONG check, a failed run: 1) stays visible when an
 * output then fails, as after `cesync check --dot`; else a failed output
 * makes it 2. */
int ces_bench_exit_after_outputs(int ex, int outputs_ok)
{
    return outputs_ok || ex == CES_EXIT_DEFECT ? ex : CES_EXIT_USAGE;
}
