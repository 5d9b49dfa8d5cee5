/*
 * tests/tools/test_predict.c - `cesync check --predict`: the cost model's
 * report for a built collective and a .ces file, a model file override,
 * and the usage errors.
 */
#include "ces_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_collective(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL;

    (void)state;
    assert_int_equal(ces_test_tool(dir, "check --predict alltoall --ranks 2 --bytes 1M", &out), 0);
    assert_string_equal(out,
                        "model: h200\n"
                        "ranks: 2, streams per rank: 1, iterations: 1, op instances: 22\n"
                        "predicted: 25.49 us total, 25.49 us per iteration\n"
                        "slow mode: 35.29 us total, 35.29 us per iteration (a blocked polled wait "
                        "or event await resumes 5.80 us after its write or record, a polled wait "
                        "right behind a copy 5.80 us after it is reached)\n"
                        "copied: 1.00 MiB between GPUs, 1.00 MiB inside GPUs\n"
                        "critical path (ends on r0.s0): copy 17.09 us, signal 2.70 us, memop "
                        "4.80 us, event 0.00 us, host 0.90 us\n");
    free(out);
    rmdir(dir);
}

static void test_file_and_model(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, path[128];
    FILE *f;

    (void)state;
    snprintf(path, sizeof(path), "%s/one.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 2\nbuffer b 4000\nphase eager x1\nr0 : copy "
                            "b[0:4000] -> b[0:4000]@1\n");
    snprintf(path, sizeof(path), "%s/round.model", dir);
    ces_test_put_file(path, "peer_copy_gbps = 1\nper_copy_us = 1\nhost_call_us = 0\n");
    /* 1 us start + 4000 bytes at 1000 bytes/us */
    assert_int_equal(ces_test_tool(dir, "check --predict one.ces --model round.model", &out), 0);
    assert_non_null(strstr(out, "model: h200 + round.model\n"));
    assert_non_null(strstr(out, "predicted: 5.00 us total, 5.00 us per iteration\n"));
    /* no wait, no event: the slow mode changes nothing */
    assert_non_null(strstr(out, "slow mode: 5.00 us total, 5.00 us per iteration"));
    assert_non_null(strstr(out, "copied: 3.91 KiB between GPUs, 0 B inside GPUs\n"));
    /* the slow mode's hops as used: slow_wake_us raises them, never lowers
     * (it named a wake of 0 us that the prediction did not use); a wait
     * right behind a copy is held slow_wake_us, none where that is 0 */
    assert_non_null(strstr(out, "(a blocked polled wait or event await resumes 5.80 us after its "
                                "write or record, a polled wait right behind a copy 5.80 us after "
                                "it is reached)\n"));
    free(out);
    /* the rank and the stream the critical path ends on, in that order:
     * r1 copies to r0, r1's s0 ends last */
    snprintf(path, sizeof(path), "%s/two.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 2\nbuffer b 4000\nphase eager x1\nr1 : copy "
                            "b[0:4000] -> b[0:4000]@0\n");
    assert_int_equal(ces_test_tool(dir, "check --predict two.ces --model round.model", &out), 0);
    assert_non_null(strstr(out, "critical path (ends on r1.s0): copy 5.00 us, signal 0.00 us, "
                                "memop 0.00 us, event 0.00 us, host 0.00 us\n"));
    free(out);
    remove(path);
    snprintf(path, sizeof(path), "%s/round.model", dir);
    f = fopen(path, "a");
    assert_non_null(f);
    fputs("slow_wake_us = 0\nsignal_hop_us = 1.5\nevent_us = 0.25\n", f);
    fclose(f);
    assert_int_equal(ces_test_tool(dir, "check --predict one.ces --model round.model", &out), 0);
    assert_non_null(strstr(out, "(a blocked polled wait resumes 1.50 us after its write, an event "
                                "await 0.25 us after its record)\n"));
    free(out);
    remove(path);
    /* after "--" a schedule named --predict is checked, not taken for the
     * option; --predict elsewhere still predicts it */
    {
        char from[128];

        snprintf(from, sizeof(from), "%s/one.ces", dir);
        snprintf(path, sizeof(path), "%s/--predict", dir);
        assert_int_equal(rename(from, path), 0);
    }
    assert_int_equal(ces_test_tool(dir, "check --quiet -- --predict", &out), 0);
    assert_string_equal(out, "verdict: OK\n");
    free(out);
    assert_int_equal(ces_test_tool(dir, "check --predict -- --predict", &out), 0);
    assert_non_null(strstr(out, "ranks: 2, streams per rank: 1, iterations: 1, op instances: 1\n"));
    free(out);
    assert_int_equal(ces_test_tool(dir, "check -- --predict --predict", &out), 0);
    assert_non_null(strstr(out, "ranks: 2, streams per rank: 1, iterations: 1, op instances: 1\n"));
    free(out);
    /* a repeated --predict is one, as every repeated flag (it was an
     * unknown option the second time) */
    assert_int_equal(ces_test_tool(dir, "check --predict --predict -- --predict --predict", &out),
                     0);
    assert_non_null(strstr(out, "ranks: 2, streams per rank: 1, iterations: 1, op instances: 1\n"));
    free(out);
    remove(path);
    rmdir(dir);
}

/* link_gbps: 8 ranks gathering 1 GiB share the root's NVLink in, which
 * the h200 table puts at one copy's rate (394 GB/s: two GPUs tell them
 * apart no further); a link of 450 speeds the gather alone, where scatter's
 * root sends its copies one by one in one batch, each at one copy's rate. */
static void test_link_limit(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, path[128];

    (void)state;
    snprintf(path, sizeof(path), "%s/link.model", dir);
    ces_test_put_file(path, "link_gbps = 450\n");
    assert_int_equal(ces_test_tool(dir, "check --predict gather --ranks 8 --bytes 1G", &out), 0);
    assert_non_null(strstr(out, "predicted: 19091.73 us total"));
    free(out);
    assert_int_equal(
        ces_test_tool(dir, "check --predict gather --ranks 8 --bytes 1G --model link.model", &out),
        0);
    assert_non_null(strstr(out, "predicted: 16717.75 us total"));
    free(out);
    assert_int_equal(
        ces_test_tool(dir, "check --predict scatter --ranks 8 --bytes 1G --model link.model", &out),
        0);
    assert_non_null(strstr(out, "predicted: 19660.61 us total"));
    free(out);
    remove(path);
    rmdir(dir);
}

/* Writes `fmt` to dir/q.ces with its `connections %s` as `conn`, runs
 * `cesync ARGS` in dir, which must exit `want`, and returns its output. */
static char *run_conn(const char *dir, const char *fmt, const char *conn, const char *args,
                      int want)
{
    char path[128], text[512], *out = NULL;

    snprintf(path, sizeof(path), "%s/q.ces", dir);
    snprintf(text, sizeof(text), fmt, conn);
    ces_test_put_file(path, text);
    assert_int_equal(ces_test_tool(dir, args, &out), want);
    return out;
}

/* `connections any` is timed with a queue per stream, and says so where
 * there are streams to share one; `connections 0` and a single stream say
 * nothing; `connections 1` of two streams says they share the queue (it
 * was refused, exit 2) and times them so: the copy on s1 starts as soon as
 * s0's has started (it waited for its end: 13.10 us, 10.40 of copy on the
 * path), 5.20 us of copy as on queues of their own, and s1's record of
 * the join leaves the queue's head as that copy starts, so the join's
 * await on s0 reaches it before it ends and pays event_us as with a queue
 * each: 9.05 us (where the record held the queue until its copy ended,
 * the await passed at once: 8.80); a wait at the queue's head that never
 * passes, the checker's DEADLOCK, does not finish (test_errors) */
static void test_connections_any(void **state)
{
    static const char two[] = "cesync 1\nranks 2\nstreams 2\nconnections %s\nbuffer b 64\n"
                              "phase eager x1\nr0 : copy b[0:32] -> b[0:32]@1\n"
                              "r0 s1 : copy b[32:64] -> b[32:64]@1\n";
    static const char line[] = "queues: one per stream (connections any: the time where CUDA "
                               "puts streams on a shared queue is not predicted)\n";
    char *dir = ces_test_tmpdir(), *out, path[128];

    (void)state;
    snprintf(path, sizeof(path), "%s/q.ces", dir);
    out = run_conn(dir, two, "any", "check --predict q.ces", 0);
    assert_non_null(strstr(out, "ranks: 2, streams per rank: 2, iterations: 1, op instances: "));
    assert_non_null(strstr(out, line));
    assert_non_null(strstr(strstr(out, line), "predicted: "));
    free(out);
    out = run_conn(dir, two, "0", "check --predict q.ces", 0);
    assert_null(strstr(out, "queues: "));
    assert_non_null(strstr(out, "\npredicted: 9.05 us total"));
    free(out);
    out = run_conn(dir, two, "1", "check --predict q.ces", 0);
    assert_non_null(strstr(out, "\nqueues: 1 shared by the 2 streams of each rank (stream s on "
                                "queue s mod 1)\npredicted: 9.05 us total"));
    assert_non_null(strstr(out, "(ends on r0.s0): copy 5.20 us, signal 0.00 us, memop 0.00 us, "
                                "event 0.25 us, host 3.60 us"));
    free(out);
    ces_test_put_file(path, "cesync 1\nranks 2\nconnections any\nbuffer b 64\nphase eager x1\n"
                            "r0 : copy b[0:64] -> b[0:64]@1\n");
    assert_int_equal(ces_test_tool(dir, "check --predict q.ces", &out), 0);
    assert_null(strstr(out, "queues: "));
    free(out);
    unlink(path);
    rmdir(dir);
}

/* The checker's verdict of the schedule text under `connections conn`
 * (exit want), then check --predict finishing and saying `said`. */
static void verdict_then_time(const char *dir, const char *text, const char *conn,
                              const char *verdict, int want, const char *said)
{
    char *out = run_conn(dir, text, conn, "check --quiet q.ces", want);

    assert_string_equal(out, verdict);
    free(out);
    out = run_conn(dir, text, conn, "check --predict q.ces", 0);
    assert_non_null(strstr(out, said));
    free(out);
}

/* The model times one execution of a schedule whose streams share a
 * queue: rank 0 resets its flag on s1 before its s0 waits for it, then
 * raises rank 1's; rank 1 raises rank 0's flag after a 64 KiB copy and
 * again once its own is up.  Where the reset lands after rank 1's first
 * write the wait holds the queue and the raise behind it (the checker's
 * DEADLOCK under `connections 1`, OK with a queue per stream); the model
 * lands the reset first and finishes, 17.98 us.  docs/CLI.md said that a
 * schedule the checker finds deadlocked through a queue does not finish
 * in the model either. */
static void test_shared_queue_one_execution(void **state)
{
    static const char text[] = "cesync 1\nranks 2\nstreams 2\nconnections %s\nbuffer b 131072\n"
                               "signal f u32 1\nsignal g u32 1\nphase eager x1\n"
                               "r0 s1 : write f[0] = 0\nr0 : wait f[0] >= 1\n"
                               "r0 s1 : write g[0]@1 = 1\nr1 : copy b[0:65536] -> b[65536:131072]\n"
                               "r1 : write f[0]@0 = 1\nr1 : wait g[0] >= 1\n"
                               "r1 : write f[0]@0 = 1\n";
    char *dir = ces_test_tmpdir(), *out, path[128];

    (void)state;
    snprintf(path, sizeof(path), "%s/q.ces", dir);
    out = run_conn(dir, text, "0", "check --quiet q.ces", 0);
    assert_string_equal(out, "verdict: OK\n");
    free(out);
    verdict_then_time(dir, text, "1", "verdict: DEADLOCK\n", 1,
                      "\nqueues: 1 shared by the 2 streams of each rank (stream s on queue s "
                      "mod 1)\npredicted: 17.98 us total");
    ces_test_cli_doc_says("## check --predict",
                          "The model times one execution, the one its times give: where it does "
                          "not finish, the checker finds a DEADLOCK or HANG, but a DEADLOCK that "
                          "only another order of the writes reaches may finish here.");
    ces_test_cli_doc_says("## check --predict", "the model lands the reset first and predicts "
                                                "17.98 µs.");
    unlink(path);
    rmdir(dir);
}

/* The checker holds a queue behind a blocked await, the model does not
 * (docs/SEMANTICS.md, section 2): rank 0's s1 waits for its flag and
 * records e, its s0 awaits e and its s2 then raises rank 1's flag, which
 * rank 1 waits for before raising rank 0's.  Under `connections 2` s0 and
 * s2 share a queue: the checker's DEADLOCK through the await at its head,
 * where the model lets s2's write go and finishes, 18.25 us; under
 * `connections 1` the wait holds s2's write itself and the model stops.
 * docs/CLI.md said that only a DEADLOCK another order of the writes
 * reaches finishes in the model. */
static void test_shared_queue_await_deadlock(void **state)
{
    static const char text[] = "cesync 1\nranks 2\nstreams 3\nconnections %s\n"
                               "signal flag u64 2\nphase eager x1\n"
                               "r0 s1 : wait flag[0] >= 1\nr0 s1 : record e\nr0 : await e\n"
                               "r0 s2 : write flag[1]@1 = 1\nr1 : wait flag[1] >= 1\n"
                               "r1 : write flag[0]@0 = 1\n";
    char *dir = ces_test_tmpdir(), *out, path[128];

    (void)state;
    snprintf(path, sizeof(path), "%s/q.ces", dir);
    verdict_then_time(dir, text, "2", "verdict: DEADLOCK\n", 1,
                      "\nqueues: 2 shared by the 3 streams of each rank (stream s on queue s "
                      "mod 2)\npredicted: 18.25 us total");
    out = run_conn(dir, text, "1", "check --predict q.ces", 1);
    assert_non_null(strstr(out, "q.ces:7:9: the schedule does not finish: r0.s1#0 wait "
                                "flag[0] >= 1 is blocked"));
    free(out);
    ces_test_cli_doc_says("## check --predict",
                          "A DEADLOCK that only a blocked `await` at a queue's head makes finishes "
                          "here in every order");
    ces_test_cli_doc_says("## check --predict", "the model predicts 18.25 µs; under `connections "
                                                "1` the wait holds s2's write itself, and the "
                                                "model stops there too.");
    unlink(path);
    rmdir(dir);
}

/* 2^16 replays of a copy of 2^48 bytes: 2^64 bytes, printed as the most
 * the count holds (it wrapped around to "0 B"). */
static void test_bytes_saturate(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, path[128];

    (void)state;
    snprintf(path, sizeof(path), "%s/big.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 2\nbuffer b 281474976710656\nphase graph x65536\n"
                            "r0 : copy b[0:281474976710656] -> b[0:281474976710656]@1\n");
    assert_int_equal(ces_test_tool(dir, "check --predict big.ces", &out), 0);
    assert_non_null(strstr(out, "copied: 16.00 EiB or more between GPUs, 0 B inside GPUs\n"));
    free(out);
    /* 2^10 and 2^15 replays: 2^58 and 2^63 bytes in PiB and EiB, as the
     * most is (they printed 268435456.00 and 8589934592.00 GiB) */
    ces_test_put_file(path, "cesync 1\nranks 2\nbuffer b 281474976710656\nphase graph x1024\n"
                            "r0 : copy b[0:281474976710656] -> b[0:281474976710656]@1\n");
    assert_int_equal(ces_test_tool(dir, "check --predict big.ces", &out), 0);
    assert_non_null(strstr(out, "copied: 256.00 PiB between GPUs, 0 B inside GPUs\n"));
    free(out);
    ces_test_put_file(path, "cesync 1\nranks 2\nbuffer b 281474976710656\nphase graph x32768\n"
                            "r0 : copy b[0:281474976710656] -> b[0:281474976710656]@1\n");
    assert_int_equal(ces_test_tool(dir, "check --predict big.ces", &out), 0);
    assert_non_null(strstr(out, "copied: 8.00 EiB between GPUs, 0 B inside GPUs\n"));
    free(out);
    remove(path);
    rmdir(dir);
}

/* The critical path's parts as printed add up to the total as printed:
 * host 0.004 us and a copy of 0.004 us printed as 0.00 each beside a
 * total of 0.01; the calibrated model's alltoall as 15.46 + 2.63 + 4.77 +
 * 0.86 = 23.72 beside 23.73 (15.460015, 2.631840, 4.771200, 0.862370 of
 * 23.725425: the hundredth left over goes to host, which lost the most). */
static void test_parts_add_up(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, path[128], model[128];

    (void)state;
    snprintf(path, sizeof(path), "%s/one.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 2\nbuffer b 1000\nphase eager x1\n"
                            "r0 : copy b[0:1000] -> b[0:1000]@1\n");
    snprintf(model, sizeof(model), "%s/tiny.model", dir);
    ces_test_put_file(model, "peer_copy_gbps = 1e9\nper_copy_us = 0.004\nhost_call_us = 0.004\n");
    assert_int_equal(ces_test_tool(dir, "check --predict one.ces --model tiny.model", &out), 0);
    assert_non_null(strstr(out, "predicted: 0.01 us total, 0.01 us per iteration\n"));
    assert_non_null(strstr(out, "critical path (ends on r0.s0): copy 0.01 us, signal 0.00 us, "
                                "memop 0.00 us, event 0.00 us, host 0.00 us\n"));
    free(out);
    remove(model);
    remove(path);
    rmdir(dir);
    ces_test_tool_says("check --predict alltoall --ranks 2 --bytes 1000 --model "
                       "../../model/calibrated/h200_2gpu.model",
                       0,
                       "model: h200 + ../../model/calibrated/h200_2gpu.model\n"
                       "ranks: 2, streams per rank: 1, iterations: 1, op instances: 22\n"
                       "predicted: 23.73 us total, 23.73 us per iteration\n"
                       "slow mode: 33.59 us total, 33.59 us per iteration (a blocked polled "
                       "wait or event await resumes 5.80 us after its write or record, a polled "
                       "wait right behind a copy 5.80 us after it is reached)\n"
                       "copied: 1000 B between GPUs, 1000 B inside GPUs\n"
                       "critical path (ends on r0.s0): copy 15.46 us, signal 2.63 us, memop "
                       "4.77 us, event 0.00 us, host 0.87 us\n");
}

/* A count just below a unit that rounds up to it prints in that unit: 2^20
 * - 1 bytes as 1.00 MiB (it printed 1024.00 KiB), 2^30 - 1 as 1.00 GiB;
 * 2^20 - 6 stays 1023.99 KiB. */
static void test_bytes_unit(void **state)
{
    static const struct {
        const char *bytes;
        const char *copied;
    } cases[] = {
        {"1048575", "copied: 1.00 MiB between GPUs, 0 B inside GPUs\n"},
        {"1048570", "copied: 1023.99 KiB between GPUs, 0 B inside GPUs\n"},
        {"1073741823", "copied: 1.00 GiB between GPUs, 0 B inside GPUs\n"},
        {"1023", "copied: 1023 B between GPUs, 0 B inside GPUs\n"},
        {"1024", "copied: 1.00 KiB between GPUs, 0 B inside GPUs\n"},
        /* past GiB in TiB (2^48 printed as 262144.00 GiB) */
        {"1099511627775", "copied: 1.00 TiB between GPUs, 0 B inside GPUs\n"},
        {"281474976710656", "copied: 256.00 TiB between GPUs, 0 B inside GPUs\n"},
    };
    char *dir = ces_test_tmpdir(), *out = NULL, path[128], text[256];

    (void)state;
    snprintf(path, sizeof(path), "%s/b.ces", dir);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(text, sizeof(text),
                 "cesync 1\nranks 2\nbuffer b %s\nphase eager x1\nr0 : copy b[0:%s] -> "
                 "b[0:%s]@1\n",
                 cases[i].bytes, cases[i].bytes, cases[i].bytes);
        ces_test_put_file(path, text);
        assert_int_equal(ces_test_tool(dir, "check --predict b.ces", &out), 0);
        if (strstr(out, cases[i].copied) == NULL)
            fail_msg("%s bytes:\n%s", cases[i].bytes, out);
        free(out);
    }
    remove(path);
    rmdir(dir);
}

/* A schedule that finishes under the model's timing but not in the slow
 * mode (r1 passes the polled g 50 us late, after f went from 1 to 2): the
 * message says that the slow mode is where it stops (it read as if the
 * schedule never finished). */
static void test_slow_mode_blocked(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, path[128], model[128];

    (void)state;
    snprintf(path, sizeof(path), "%s/slow.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 2\nsignal g u32 1\nsignal f u32 1\n"
                            "buffer b 4096\nphase eager x1\n"
                            "r0 : write g[0] = 1\nr0 : write f[0]@1 = 1\n"
                            "r0 : copy b[0:4096] -> b[0:4096]@1\nr0 : write f[0]@1 = 2\n"
                            "r1 : wait g[0]@0 >= 1\nr1 : wait f[0] == 1\n");
    snprintf(model, sizeof(model), "%s/w.model", dir);
    ces_test_put_file(model, "slow_wake_us = 0\n");
    assert_int_equal(ces_test_tool(dir, "check --predict slow.ces --model w.model", &out), 0);
    assert_non_null(strstr(out, "predicted: 10.91 us total, 10.91 us per iteration\n"));
    free(out);
    ces_test_put_file(model, "slow_wake_us = 50\n");
    assert_int_equal(ces_test_tool(dir, "check --predict slow.ces --model w.model", &out), 1);
    assert_string_equal(out, "cesync: check --predict: slow.ces:12:6: 10.91 us with the model's "
                             "timing, but in "
                             "the slow mode of blocked waits (slow_wake_us = 50.00 us): the "
                             "schedule does not finish: r1.s0#1 wait f[0] == 1 is blocked\n");
    free(out);
    /* read from standard input, at <stdin>:LINE:COL as the parser names a
     * place there (it said "r1.s0#1 (line 12:6)") */
    assert_int_equal(ces_test_tool(dir, "check --predict - --model w.model <slow.ces", &out), 1);
    assert_string_equal(out, "cesync: check --predict: <stdin>:12:6: 10.91 us with the model's "
                             "timing, but in the slow mode of blocked waits (slow_wake_us = "
                             "50.00 us): the schedule does not finish: r1.s0#1 wait f[0] == 1 is "
                             "blocked\n");
    free(out);
    remove(model);
    remove(path);
    rmdir(dir);
}

static void test_errors(void **state)
{
    static const struct {
        const char *args;
        int rc;
        const char *msg;
    } cases[] = {
        {"check --predict alltoall --kind a100", 2,
         "cesync: check --predict: --kind: unknown machine kind 'a100' (known: h200)\n"},
        {"check --predict alltoall --frob", 2,
         "cesync: check --predict: unknown option '--frob' (see cesync check --predict --help)\n"},
        {"check --predict alltoall --model", 2,
         "cesync: check --predict: --model expects a model file\n"},
        /* check's own options are named as such (they were "unknown"), and
         * their values are not taken for the schedule */
        {"check --predict --quiet alltoall", 2,
         "cesync: check --predict: --quiet does not combine with --predict (which takes builder "
         "options, --model and --kind)\n"},
        {"check --predict --dot x.svg alltoall", 2,
         "cesync: check --predict: --dot does not combine with --predict (which takes builder "
         "options, --model and --kind)\n"},
        {"check alltoall --model m.model", 2, "cesync: check: --model applies to --predict\n"},
        {"check --predict alltoall --ranks 9 --bytes 9", 2,
         "cesync: check --predict: 9 ranks, the h200 model has at most 8 GPUs\n"},
        /* a wait at the head of the shared queue holds the other stream's
         * ops behind it (the checker's DEADLOCK; it was refused, exit 2) */
        {"check --predict " CES_FIXTURES "/bad/cross_stream_conn1.ces", 1,
         "/bad/cross_stream_conn1.ces:19:6: the schedule does not finish: r0.s0#2 wait "
         "flag[1] >= 1 is blocked\n"},
    };
    char *dir = ces_test_tmpdir(), *out = NULL, path[256];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = ces_test_tool(dir, cases[i].args, &out);

        if (rc != cases[i].rc || strstr(out, cases[i].msg) == NULL)
            fail_msg("'cesync %s' gave %d:\n%s", cases[i].args, rc, out);
        free(out);
    }
    /* a file's ranks past the machine's GPUs are refused at its ranks line,
     * FILE:LINE:COL and <stdin>:LINE:COL (it said "r9.ces: 9 ranks, ..." and
     * "9 ranks, ..."); the built-in's above name none */
    snprintf(path, sizeof(path), "%s/r9.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 9\nbuffer b 64\nphase eager x1\n"
                            "r* : produce b[0:8]\n");
    for (int in = 0; in < 2; in++) {
        char want[160];

        snprintf(want, sizeof(want), "cesync: check --predict: %s:2:7: 9 ranks, the h200 model "
                 "has at most 8 GPUs\n", in ? "<stdin>" : "r9.ces");
        assert_int_equal(ces_test_tool(dir, in ? "check --predict - <r9.ces"
                                               : "check --predict r9.ces", &out), 2);
        assert_string_equal(out, want);
        free(out);
    }
    remove(path);
    /* the schedule is optional, as in check (it said FILE.ces|COLL, but
     * none predicts the built-in alltoall, and "-" reads standard input) */
    assert_int_equal(ces_test_tool(dir, "check --predict --help", &out), 0);
    assert_memory_equal(out, "usage: cesync check --predict [SCHEDULE] [builder options] "
                             "[--model FILE] [--kind K]\n", 85);
    /* its exit line names the 2 of the last two cases (it said "2 bad
     * usage") */
    assert_non_null(strstr(out, "\nExit: 0 predicted, 1 it does not finish (the blocked op "
                                "named), 2 bad usage or input,\nor one the machine cannot run "
                                "or the model does not time (too many op instances).\n"));
    free(out);
    assert_int_equal(ces_test_tool(dir, "check --predict", &out), 0);
    assert_memory_equal(out, "model: h200\nranks: 4, streams per rank: 1, iterations: 1, ", 58);
    free(out);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collective),
        cmocka_unit_test(test_file_and_model),
        cmocka_unit_test(test_link_limit),
        cmocka_unit_test(test_connections_any),
        cmocka_unit_test(test_shared_queue_one_execution),
        cmocka_unit_test(test_shared_queue_await_deadlock),
        cmocka_unit_test(test_bytes_saturate),
        cmocka_unit_test(test_parts_add_up),
        cmocka_unit_test(test_bytes_unit),
        cmocka_unit_test(test_slow_mode_blocked),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
