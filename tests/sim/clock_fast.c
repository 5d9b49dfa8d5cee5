/*
 * tests/sim/clock_fast.c - preloaded (LD_PRELOAD) into `cesync check` by
 * sim_test_check_tool's test_dot_pipe_stall: CLOCK_MONOTONIC, the clock of
 * the command's bounds (ces_now), runs 30 times as fast as the time of day
 * from its first reading on, so that a named pipe's stall of 60 s passes in
 * 2 s; CLOCK_REALTIME is the time of day (timespec_get), any other clock
 * EINVAL.  The command's children (Graphviz) run without it.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#define CLOCK_FAST_TIMES 30

static struct timespec first; /* the time of day at the first reading */

__attribute__((constructor)) static void start(void)
{
    unsetenv("LD_PRELOAD");
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    struct timespec now;
    double d;

    if ((id != CLOCK_MONOTONIC && id != CLOCK_REALTIME) || timespec_get(&now, TIME_UTC) == 0) {
        errno = EINVAL;
        return -1;
    }
    if (id == CLOCK_REALTIME) {
        *ts = now;
        return 0;
    }
    if (first.tv_sec == 0)
        first = now;
    d = ((double)(now.tv_sec - first.tv_sec) + (double)(now.tv_nsec - first.tv_nsec) * 1e-9) *
        CLOCK_FAST_TIMES;
    /* (from a start of 1 s, so that no reading is 0) */
    ts->tv_sec = 1 + (time_t)d;
    ts->tv_nsec = (long)((d - (double)(time_t)d) * 1e9);
    return 0;
}
