/*
 * tests/sim/test_check_tool.c - `cesync check` as a command: exit codes
 * (0 OK, 1 defect, 2 usage, 3 incomplete), --quiet, --json, a replay
 * string printed by one run re-running the same execution in another,
 * faults, the fault sweep, --dot, --help, the bounds' options (--max-depth
 * among them), --progress, --queues and --queue-sweep.
 */
#define _XOPEN_SOURCE 700 /* posix_openpt, grantpt, unlockpt, ptsname */

#include "ces_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A sanitizer reserves far more address space (and data segment) than the
 * limits some tests run the command under. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CHECK_TOOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CHECK_TOOL_ASAN 1
#endif
#endif

/* Runs `cesync check ARGS` with stderr folded into stdout; returns the exit
 * code and the output (malloc'd) in *out. */
static int run(const char *args, char **out)
{
    char cmd[4096];

    snprintf(cmd, sizeof(cmd), "check %s", args);
    return ces_test_tool(NULL, cmd, out);
}

/* `check PATH OPTS` exits `rc`, its output (stderr folded in) `want`. */
static void file_says(const char *path, const char *opts, int rc, const char *want)
{
    char cmd[3072], *o = NULL;

    snprintf(cmd, sizeof(cmd), "%s %s", path, opts);
    assert_int_equal(run(cmd, &o), rc);
    assert_string_equal(o, want);
    free(o);
}

static void test_exit_codes(void **state)
{
    char *o;

    (void)state;
    assert_int_equal(run("alltoall --ranks 2 --sync mono --quiet", &o), 0);
    assert_string_equal(o, "verdict: OK\n");
    free(o);
    assert_int_equal(run("barrier --ranks 2 --sync nccl --graph --iterations 2 --quiet", &o), 1);
    assert_string_equal(o, "verdict: HANG\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 4 --sync mono --max-states 3 --quiet", &o), 3);
    assert_string_equal(o, "verdict: INCOMPLETE\n");
    free(o);
    /* what an INCOMPLETE verdict may be missing (no wait-for cycle at the
     * start: no DEADLOCK) */
    assert_int_equal(run("alltoall --ranks 4 --sync mono --max-states 3", &o), 3);
    assert_non_null(strstr(o, "\ncoverage: the bound on states stopped the search after 3 "
                              "states\ncoverage: neither found nor ruled out: HANG,RACE,"
                              "MISMATCH\nstatistics: 3 states, "));
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --bogus", &o), 2);
    assert_string_equal(o, "cesync: check: unknown option '--bogus' (see cesync check "
                           "--help)\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --fault drop:r0s0", &o), 2);
    assert_string_equal(o, "cesync: check: fault 'drop:r0s0': expected a position rR.sS#K after "
                           "'drop:'\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --fault stop:r0.s0#99999999999", &o), 2);
    assert_string_equal(o, "cesync: check: fault 'stop:r0.s0#99999999999': op index "
                           "#99999999999 is out of range: at most #4294967295\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --fault drop:r0.s0#1x", &o), 2);
    assert_string_equal(o, "cesync: check: fault 'drop:r0.s0#1x': unexpected 'x' after "
                           "'drop:r0.s0#1'\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --fault drop:r0.s0#0", &o), 2);
    assert_string_equal(o, "cesync: check: fault drop:r0.s0#0: expected a write at that "
                           "position, found 'produce'\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --replay 0.9", &o), 2);
    assert_string_equal(o, "cesync: check: replay string, offset 2: stream number 9 out of range "
                           "(0..1)\n");
    free(o);
    /* a replay of a `connections any` file without --queues, at the line
     * that says it (the file was not named) */
    assert_int_equal(run("bad/cross_stream_any.ces --replay 0*2.2*2", &o), 2);
    assert_string_equal(o, "cesync: check: bad/cross_stream_any.ces:14:13: a replay of a "
                           "`connections any` schedule needs the hardware queues it ran on: give "
                           "the map the report names (its hardware queues line, JSON queues) as "
                           "--queues, or opts.queue_map\n");
    free(o);
    assert_int_equal(run("--help", &o), 0);
    assert_memory_equal(o, "usage: cesync check [SCHEDULE]", 30);
    /* the options refused with --random or --replay say so (--max-depth
     * and --first did not); the help's lines, then the reference's rules,
     * which the help said until the sixty-seventh session cut it to a
     * screen */
    assert_non_null(strstr(o, "  --max-depth N       steps of one execution, from 1 (no bound; "
                              "exhaustive only)\n"));
    assert_non_null(strstr(o, "  --first             stop at the first defect (adds INCOMPLETE; "
                              "not with --replay)\n"));
    /* a replay of a `connections any` schedule is refused without the
     * report's queue map, which --replay's line did not ask for */
    assert_non_null(strstr(o, "  --replay STRING     re-run a report's execution (with its "
                              "--fault/--abort/--queues)\n"));
    free(o);
    ces_test_cli_doc_says("## check", "The string holds only the steps: give the same `--fault`, "
                          "`--abort` and `--queues` options as the check that printed it, and "
                          "`--queues` with the report's queue map where it has one (a "
                          "`connections any` schedule). A step that cannot run is an error that "
                          "asks for them.");
    /* the sweeps name every option they refuse (the fault sweep named
     * three of six, the queue sweep one of five) */
    ces_test_cli_doc_says("## check", "Not with `--dot`, `--queues`, `--fault-sweep`, `--replay` "
                          "or `--random`.");
    ces_test_cli_doc_says("## check", "Exit 1 if the schedule fails without faults. Not with "
                          "`--json`, `--dot`, `--abort`, `--fault`, `--replay` or `--random`.");
    /* the fault sweep's line of the faults not checked names both bounds
     * that leave some (it named --max-seconds alone) */
    ces_test_cli_doc_says("## check", "a line naming the faults that `--max-seconds` or "
                          "`--max-memory` left unchecked");
    assert_int_equal(run("barrier --ranks 2 --fault-sweep --fault stop:r0.s0#1", &o), 2);
    assert_string_equal(o, "cesync: check: --fault-sweep makes its own faults; drop "
                           "--fault/--replay\n");
    free(o);
    assert_int_equal(run("barrier --ranks 2 --fault-sweep --replay 0", &o), 2);
    assert_string_equal(o, "cesync: check: --fault-sweep makes its own faults; drop "
                           "--fault/--replay\n");
    free(o);
    assert_int_equal(run("barrier --ranks 2 --fault-sweep --abort", &o), 2);
    assert_string_equal(o, "cesync: check: --fault-sweep checks every fault without and with "
                           "--abort: drop --abort\n");
    free(o);
    assert_int_equal(run("barrier --ranks 2 --queue-sweep --queues 0", &o), 2);
    assert_string_equal(o, "cesync: check: --queue-sweep makes its own queue maps, one check "
                           "each: drop --fault-sweep/--queues/--replay\n");
    free(o);
}

static void test_replay_roundtrip(void **state)
{
    char *o, *o2, *line, args[1024];
    size_t n;

    (void)state;
    assert_int_equal(run("barrier --ranks 3 --sync nccl --graph --iterations 2", &o), 1);
    line = strstr(o, "  replay: ");
    assert_non_null(line);
    line += strlen("  replay: ");
    n = strcspn(line, "\n");
    snprintf(args, sizeof(args), "barrier --ranks 3 --sync nccl --graph --iterations 2 "
             "--replay %.*s", (int)n, line);
    assert_int_equal(run(args, &o2), 1);
    assert_memory_equal(o2, "verdict: HANG\ncoverage: one replayed execution\nHANG: ", 52);
    /* the same counterexample, step for step */
    {
        const char *a = strstr(o, "HANG: counterexample"), *b = strstr(o2, "HANG: counterexample");
        size_t la, lb;

        assert_non_null(a);
        assert_non_null(b);
        la = (size_t)(strstr(a, "  replay:") - a);
        lb = (size_t)(strstr(b, "  replay:") - b);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, la);
    }
    free(o);
    free(o2);
}

/* A counterexample of no steps (the initial state is the end state) prints
 * its empty replay string quoted, as a shell takes it: "replay: " and
 * nothing could not be given to --replay as printed. */
static void test_replay_empty(void **state)
{
    static const char text[] = "cesync 1\n"
                               "ranks 1\n"
                               "signal f u64 1\n"
                               "phase eager x1\n"
                               "r0 : wait f[0] >= 1\n";
    char *dir = ces_test_tmpdir(), path[160], *o;

    (void)state;
    snprintf(path, sizeof(path), "%s/x.ces", dir);
    ces_test_put_file(path, text);
    assert_int_equal(ces_test_tool(dir, "check x.ces", &o), 1);
    assert_memory_equal(o, "verdict: HANG\nHANG: counterexample of 0 steps\n  replay: ''\n"
                           "  blocked:\n", 70);
    free(o);
    assert_int_equal(ces_test_tool(dir, "check x.ces --replay '' --quiet", &o), 1);
    assert_string_equal(o, "verdict: HANG\n");
    free(o);
    /* the JSON's string is the replay string itself */
    assert_int_equal(ces_test_tool(dir, "check x.ces --json", &o), 1);
    assert_non_null(strstr(o, "\"defects\":[{\"class\":\"HANG\",\"replay\":\"\",\"steps\":[],"));
    free(o);
    remove(path);
    rmdir(dir);
}

/* The 2-rank schedule of the audit: r0 produces a, copies it to r1's b and
 * raises r1's flag; r1 waits for it and consumes b. */
static const char ok_ces[] = "cesync 1\nranks 2\nbuffer a 64\nbuffer b 64\nsignal f u32 1\n"
                             "phase eager x1\n"
                             "r0 : produce a[0:64]\n"
                             "r0 : copy a[0:64] -> b[0:64]@1\n"
                             "r0 : write f[0]@1 = 1\n"
                             "r1 : wait f[0] >= 1\n"
                             "r1 : consume b[0:64] == a[0:64]@0\n";

/* --fault given twice alike is refused whatever its kind: the same drop
 * twice was checked (HANG) and the same stop too, where the same delay
 * twice and a drop and a delay of one write were refused. */
static void test_faults_twice(void **state)
{
    static const struct {
        const char *args, *msg;
    } cases[] = {
        {"--fault drop:r0.s0#2 --fault drop:r0.s0#2",
         "fault drop:r0.s0#2 given twice: expected each fault once"},
        {"--fault delay:r0.s0#2 --fault delay:r0.s0#2",
         "fault delay:r0.s0#2 given twice: expected each fault once"},
        {"--fault stop:r0.s0#2 --fault stop:r0.s0#2",
         "fault stop:r0.s0#2 given twice: expected each fault once"},
        {"--fault drop:r0.s0#2 --fault delay:r0.s0#2",
         "faults drop:r0.s0#2 and delay:r0.s0#2: expected a write dropped or delayed, not both"},
        {"--fault stop:r0.s0#1 --fault stop:r0.s0#2",
         "faults stop:r0.s0#1 and stop:r0.s0#2: expected one stop of r0.s0 (a stream stops "
         "once; stop:r0.s0#1 alone is the same check)"},
        {"--fault stop:r0#1 --fault stop:r0.s0#2 --abort",
         "faults stop:r0#1 and stop:r0.s0#2: stop:r0#1 already stops r0.s0 before its op #1, so "
         "stop:r0.s0#2 changes nothing (expected a stream's own stop before where its rank's "
         "stop leaves it)"},
    };
    char *dir = ces_test_tmpdir(), path[160], args[512], want[512], env[512], *o;

    (void)state;
    snprintf(path, sizeof(path), "%s/ok.ces", dir);
    ces_test_put_file(path, ok_ces);
    /* a `dot` that copies its input stands for Graphviz (--dot x.svg) */
    snprintf(env, sizeof(env), "%s/bin", dir);
    ces_test_put_program(env, "dot", "#!/bin/sh\nexec /bin/cat\n");
    snprintf(env, sizeof(env), "PATH=%s/bin:\"$PATH\"", dir);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        /* with --dot too: its layout note, counted before the search, takes
         * the faults as the check does (the delays' graph was derived from
         * faults not yet checked: an assert, or a read out of bounds) */
        for (int dot = 0; dot < 2; dot++) {
            snprintf(args, sizeof(args), "check ok.ces %s%s", cases[i].args,
                     dot ? " --dot x.svg" : "");
            snprintf(want, sizeof(want), "cesync: check: %s\n", cases[i].msg);
            assert_int_equal(ces_test_tool_env(dir, env, args, &o), 2);
            assert_string_equal(o, want);
            free(o);
        }
    }
    assert_int_equal(ces_test_tool_env(dir, env, "check ok.ces --fault delay:r9.s0#2 --dot x.svg",
                                       &o), 2);
    assert_string_equal(o, "cesync: check: fault delay:r9.s0#2: no such stream (ranks 0..1, "
                           "streams 0..0)\n");
    free(o);
    /* a drop of one write and a stop of the other rank: both apply */
    assert_int_equal(ces_test_tool(dir, "check ok.ces --fault drop:r0.s0#2 --fault stop:r1#1 "
                                        "--quiet", &o), 1);
    assert_string_equal(o, "verdict: HANG\n");
    free(o);
    ces_test_remove_in(dir, "ok.ces\0bin/dot\0bin\0");
}

/* The replay of a watchdog's execution run without --abort: the step the
 * watchdog released is blocked, and the message says what the replay
 * lacks (it said "(it is blocked)" and no more); --abort only where it was
 * not given. */
static void test_replay_needs_abort(void **state)
{
    char *dir = ces_test_tmpdir(), path[160], *o;

    (void)state;
    snprintf(path, sizeof(path), "%s/ok.ces", dir);
    ces_test_put_file(path, ok_ces);
    assert_int_equal(ces_test_tool(dir, "check ok.ces --fault stop:r0#1 --abort", &o), 0);
    assert_non_null(strstr(o, "\n  replay: 0.1*2\n"));
    free(o);
    assert_int_equal(ces_test_tool(dir, "check ok.ces --fault stop:r0#1 --replay '0.1*2'", &o),
                     2);
    assert_string_equal(o, "cesync: check: replay step 2: r1.s0 cannot take a step there (it is "
                           "blocked; a replay of a watchdog's execution needs --abort, and the "
                           "same --fault and --queues options as its check)\n");
    free(o);
    assert_int_equal(ces_test_tool(dir, "check ok.ces --fault stop:r0#1 --replay '0.1*2' "
                                        "--abort --quiet", &o), 0);
    assert_string_equal(o, "verdict: OK\n");
    free(o);
    /* --abort given, the fault not: r1 is blocked before anything is stuck
     * (r0 can still step) */
    assert_int_equal(ces_test_tool(dir, "check ok.ces --replay '0.1*2' --abort", &o), 2);
    assert_string_equal(o, "cesync: check: replay step 2: r1.s0 cannot take a step there (it is "
                           "blocked; a replay needs the same --fault and --queues options as its "
                           "check)\n");
    free(o);
    /* a drop's counterexample replayed without the drop runs to the end and
     * finds nothing: the coverage line says what it lacked (it said only
     * "one replayed execution", and a test replaying it passed) */
    assert_int_equal(ces_test_tool(dir, "check ok.ces --fault drop:r0.s0#2", &o), 1);
    assert_non_null(strstr(o, "\n  replay: 0*3\n"));
    free(o);
    assert_int_equal(ces_test_tool(dir, "check ok.ces --replay '0*3'", &o), 0);
    assert_memory_equal(o, "verdict: OK\ncoverage: one replayed execution, which found no defect "
                           "(a counterexample's replay needs the same --fault, --abort and "
                           "--queues options as its check)\nstatistics: ", 174);
    free(o);
    /* a replay a bound stopped, here before its first step (the model
     * does not fit), says so, not that it found no defect (it said so,
     * with the hint above, beside "0 executions, 0 transitions") */
    assert_int_equal(ces_test_tool(dir, "check ok.ces --replay '0*3' --max-memory 100", &o), 3);
    assert_memory_equal(o, "verdict: INCOMPLETE\ncoverage: one replayed execution, stopped by "
                           "the bound on memory after 0 transitions, before its end\n"
                           "statistics: 0 executions, 0 transitions, ", 162);
    free(o);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void test_faults_sweep_json_dot(void **state)
{
    char *o, *dir;
    char path[128];
    char args[256];
    FILE *f;
    char head[16] = "";

    (void)state;
    assert_int_equal(run("alltoall --ranks 2 --sync mono --fault drop:r0.s0#1 --quiet", &o), 1);
    assert_string_equal(o, "verdict: HANG\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --sync mono --fault drop:r0.s0#1 --abort", &o), 0);
    assert_memory_equal(o, "verdict: OK\nwatchdog: fired in ", 31);
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --sync mono --fault-sweep", &o), 0);
    /* by kind (mono tolerates every delayed write), then the totals */
    assert_non_null(strstr(o, "\ndrop      4: 4 HANG or DEADLOCK, 0 RACE or MISMATCH, 0 OK\n"
                              "delay     4: 0 HANG or DEADLOCK, 0 RACE or MISMATCH, 4 OK\n"
                              "stop     22: 22 HANG or DEADLOCK, 0 RACE or MISMATCH, 0 OK\n"
                              "fault sweep: 30 faults: 26 show a HANG or DEADLOCK, 0 a RACE or "
                              "MISMATCH (a fault showing both counts in both), 4 tolerated "
                              "(OK); 0 of them incomplete\n"));
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --sync mono --json", &o), 0);
    {
        const char *want = "{\"verdict\":\"OK\",\"bits\":0,\"mode\":\"exhaustive\","
                           "\"complete\":true,\"proof\":true,";

        assert_memory_equal(o, want, strlen(want));
    }
    free(o);
    /* a random sample covers its executions but proves nothing */
    assert_int_equal(run("alltoall --ranks 2 --sync mono --random 3 --json", &o), 0);
    {
        const char *want = "{\"verdict\":\"OK\",\"bits\":0,\"mode\":\"random\","
                           "\"complete\":true,\"proof\":false,";

        assert_memory_equal(o, want, strlen(want));
    }
    free(o);
    dir = ces_test_tmpdir();
    snprintf(path, sizeof(path), "%s/d.dot", dir);
    snprintf(args, sizeof(args), "barrier --ranks 2 --sync nccl --graph --iterations 2 --quiet "
             "--dot %s", path);
    assert_int_equal(run(args, &o), 1);
    free(o);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fread(head, 1, 15, f), 15);
    fclose(f);
    assert_string_equal(head, "digraph cesync ");
    ces_test_remove_in(dir, "d.dot\0");
}

/* cesync check of credit's alltoall (2 ranks, 2 calls) in dir with a delay
 * at r0.s0#`rest` (the position, then more options). */
static int delay_tool(const char *dir, const char *rest, char **o)
{
    char args[256];

    snprintf(args, sizeof(args),
             "check alltoall --ranks 2 --sync credit --iterations 2 --fault delay:r0.s0#%s", rest);
    return ces_test_tool(dir, args, o);
}

/* A delayed write: credit's reset of r0's ready flag (r0.s0#3) may land
 * after the next call raised the flag, and wipe it (HANG) or let the wait
 * for it pass early (RACE); the watchdog ends the hang, not the race.  The
 * report, the JSON and the picture show the write on a stream of its own. */
static void test_delay(void **state)
{
    char *dir = ces_test_tmpdir(), path[160], *o, *dot;
    FILE *f;
    long n;

    (void)state;
    assert_int_equal(delay_tool(dir, "3 --quiet", &o), 1);
    assert_string_equal(o, "verdict: HANG,RACE\n");
    free(o);
    assert_int_equal(delay_tool(dir, "3 --abort --quiet", &o), 1);
    assert_string_equal(o, "verdict: RACE\n");
    free(o);
    /* the raise of the next call's flag (r0.s0#20) may come late */
    assert_int_equal(delay_tool(dir, "20 --quiet", &o), 0);
    assert_string_equal(o, "verdict: OK\n");
    free(o);
    assert_int_equal(delay_tool(dir, "3", &o), 1);
    assert_non_null(strstr(o, "\nfault delay:r0.s0#3: r0.s0#3 records an event in place of the "
                              "write; the write lands from r0.s1, a stream of its own, at any "
                              "moment after that\n"));
    assert_non_null(strstr(o, " r0.s1#1 write ready[1] = 0 (line 15:13)\n"));
    free(o);
    assert_int_equal(delay_tool(dir, "3 --json", &o), 1);
    assert_non_null(strstr(o, ",\"delays\":[{\"fault\":\"delay:r0.s0#3\",\"stream\":1}],"));
    free(o);
    assert_int_equal(delay_tool(dir, "3 --quiet --dot delay.dot", &o), 1);
    free(o);
    snprintf(path, sizeof(path), "%s/delay.dot", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    dot = calloc(1, 1 << 20);
    assert_non_null(dot);
    n = (long)fread(dot, 1, (1 << 20) - 1, f);
    fclose(f);
    assert_true(n > 0);
    assert_non_null(strstr(dot, "await delay0"));
    assert_non_null(strstr(dot, "record delay0"));
    free(dot);
    remove(path);
    /* what cannot be delayed */
    assert_int_equal(delay_tool(dir, "2", &o), 2);
    assert_string_equal(o, "cesync: check: fault delay:r0.s0#2: expected a write at that "
                           "position, found 'wait'\n");
    free(o);
    assert_int_equal(delay_tool(dir, "3 --fault drop:r0.s0#3", &o), 2);
    assert_string_equal(o, "cesync: check: faults delay:r0.s0#3 and drop:r0.s0#3: expected a "
                           "write dropped or delayed, not both\n");
    free(o);
    /* a rank that dies: with the local chunk on s1 (overlap), rank 1 dying
     * before its first op stops both its streams, and rank 0 hangs */
    assert_int_equal(ces_test_tool(dir, "check alltoall --ranks 2 --variant overlap --fault "
                                        "stop:r1#0 --quiet", &o), 1);
    assert_string_equal(o, "verdict: HANG\n");
    free(o);
    assert_int_equal(ces_test_tool(dir, "check alltoall --ranks 2 --fault stop:r1#99", &o), 2);
    assert_memory_equal(o, "cesync: check: fault stop:r1#99: r1 has ", 40);
    free(o);
    assert_int_equal(ces_test_tool(dir, "check alltoall --ranks 2 --fault delay", &o), 2);
    assert_string_equal(o, "cesync: check: fault 'delay': expected drop:rR.sS#K, delay:rR.sS#K, "
                           "stop:rR.sS#K or stop:rR#K\n");
    free(o);
    rmdir(dir);
}

/* A graph phase's op is one node for all its replays, named at its #K in
 * the first two and the last: a stream blocked in another replay says
 * where ("blocked at #9"), as the report does.  The picture showed
 * "r1.s0#0,#3,...,#12" in red, and nothing in it named #9.  The watchdog's
 * execution marks the ops it released so.  The stream the fault stopped
 * is drawn apart ("stopped before #9", teal), in both pictures: it was
 * red and "blocked at #9", like a stream that hangs on a wait. */
static void test_dot_blocked_replay(void **state)
{
    static const char text[] = "cesync 1\n"
                               "ranks 2\n"
                               "signal f u64 1\n"
                               "signal g u64 1\n"
                               "phase graph x5\n"
                               "r0 : write f[0]@1 = 1\n"
                               "r0 : wait g[0] >= 1\n"
                               "r0 : write g[0] = 0\n"
                               "r1 : wait f[0] >= 1\n"
                               "r1 : write f[0] = 0\n"
                               "r1 : write g[0]@0 = 1\n";
    char *dir = ces_test_tmpdir(), path[160], *o, *dot;
    int rc;

    (void)state;
    snprintf(path, sizeof(path), "%s/x.ces", dir);
    ces_test_put_file(path, text);
    assert_int_equal(ces_test_tool(dir, "check x.ces --fault stop:r0.s0#9 --dot x.dot", &o), 1);
    assert_non_null(strstr(o, "\n    r0.s0 stopped by a fault before r0.s0#9 write f[0]@1 = 1 "
                              "(line 6:6)\n    r1.s0#9 wait f[0] >= 1 (line 9:6): f[0]@1 holds 0, "
                              "awaits >= 1\n"));
    free(o);
    snprintf(path, sizeof(path), "%s/x.dot", dir);
    dot = ces_test_read_file(path, NULL);
    /* the stream the fault stopped is no hang: "stopped", in teal (it was
     * drawn red, "blocked at #9", as the wait it starves is) */
    assert_non_null(strstr(dot, "n0_0_0 [label=\"r0.s0#0,#3,...,#12\\nwrite f[0]@1 = 1\\n"
                                "stopped before #9\\nsteps 1,7,13\", fillcolor=\"#8fd6cf\", "
                                "color=\"#00736b\", penwidth=2.5];\n"));
    assert_non_null(strstr(dot, "n0_1_0 [label=\"r1.s0#0,#3,...,#12\\nwait f[0] >= 1\\n"
                                "blocked at #9\\nsteps 2,8,14\", fillcolor=\"#ff9a9a\", "
                                "color=\"#cc0000\", penwidth=2.5];\n"));
    assert_int_equal(ces_test_count(dot, "fillcolor=\"#ff9a9a\""), 1);
    assert_non_null(strstr(dot, "red = blocked (or released by the watchdog), teal = stopped "
                                "by a fault, orange"));
    assert_non_null(strstr(dot, "n0_1_1 [label=\"r1.s0#1,#4,...,#13\\nwrite f[0] = 0\\n"
                                "steps 3,9,15\", fillcolor=\"#d6e6ff\""));
    snprintf(path, sizeof(path), "command -v dot >/dev/null || exit 0; cd %s && dot -Tsvg x.dot "
             ">x.svg", dir);
    rc = system(path);
    assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    /* the watchdog's execution shows the ops it released, in each replay:
     * its picture marked none, and looked like a run that went through */
    assert_int_equal(ces_test_tool(dir, "check x.ces --fault stop:r0.s0#9 --abort --dot x.dot",
                                   &o), 0);
    assert_non_null(strstr(o, "\n  released with an error: 2 blocked ops r1.s0#9, r1.s0#12\n"));
    free(o);
    free(dot);
    snprintf(path, sizeof(path), "%s/x.dot", dir);
    dot = ces_test_read_file(path, NULL);
    assert_non_null(strstr(dot, "labelloc=t, fontsize=16, label=\"WATCHDOG counterexample\""));
    assert_non_null(strstr(dot, "n0_1_0 [label=\"r1.s0#0,#3,...,#12\\nwait f[0] >= 1\\n"
                                "blocked at #9,#12\\nsteps 2,8,14,19,...\", "
                                "fillcolor=\"#ff9a9a\""));
    /* and the stream the fault left stopped, as in the picture without it */
    assert_non_null(strstr(dot, "n0_0_0 [label=\"r0.s0#0,#3,...,#12\\nwrite f[0]@1 = 1\\n"
                                "stopped before #9\\nsteps 1,7,13\", fillcolor=\"#8fd6cf\", "
                                "color=\"#00736b\", penwidth=2.5];\n"));
    assert_int_equal(ces_test_count(dot, "fillcolor=\"#ff9a9a\""), 1);
    assert_int_equal(ces_test_count(dot, "fillcolor=\"#8fd6cf\""), 1);
    /* Graphviz draws them, where it is installed */
    snprintf(path, sizeof(path), "command -v dot >/dev/null || exit 0; cd %s && dot -Tsvg x.dot "
             ">x.svg", dir);
    rc = system(path);
    assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    free(dot);
    /* a wait the watchdog released in the first two replays, its stream
     * stopped before it in the third: red and teal halves, both said (it
     * was red alone) */
    snprintf(path, sizeof(path), "%s/x.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 1\nsignal g u64 1\nphase graph x4\n"
                            "r0 : wait g[0] >= 1\n");
    assert_int_equal(ces_test_tool(dir, "check x.ces --fault stop:r0.s0#2 --abort --dot x.dot",
                                   &o), 0);
    free(o);
    snprintf(path, sizeof(path), "%s/x.dot", dir);
    dot = ces_test_read_file(path, NULL);
    assert_non_null(strstr(dot, "n0_0_0 [label=\"r0.s0#0,#1,...,#3\\nwait g[0] >= 1\\n"
                                "blocked at #0,#1\\nstopped before #2\\nsteps 1,2\", "
                                "fillcolor=\"#ff9a9a;0.5:#8fd6cf\", color=\"#00736b\", "
                                "penwidth=2.5];\n"));
    assert_non_null(strstr(dot, "\\lred and teal halves: blocked (or released by the watchdog) "
                                "in one replay, stopped by a fault before another\\l"));
    free(dot);
    snprintf(path, sizeof(path), "%s/x.svg", dir);
    remove(path);
    snprintf(path, sizeof(path), "%s/x.dot", dir);
    remove(path);
    snprintf(path, sizeof(path), "%s/x.ces", dir);
    remove(path);
    rmdir(dir);
}

/* A delayed write's stream is in no hardware queue of its rank: with
 * `connections 1` r0's write of f = 1, delayed, may land after its write
 * of 2, which the wait `f >= 1` then sees (`== 2` HANGs).  Above 1000
 * write -> wait pairs (a counter of 46 values, 1081) the picture of a
 * check that found nothing kept each wait's nearest writes by the queue's
 * order, which puts the delayed write before the other: the wait's edge
 * from it was left out.  The order now puts the delayed write's stream on
 * a queue of its own: the wait keeps both writes, neither before the
 * other, and the counter's waits their nearest (it kept every write a
 * wait may see, 1083 edges), without a title or an overlay line; the
 * picture without the delay keeps the nearest too. */
static void test_dot_delay_queues(void **state)
{
    char *dir = ces_test_tmpdir(), path[160], *o, *dot;
    FILE *f;

    (void)state;
    snprintf(path, sizeof(path), "%s/q.ces", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("cesync 1\nranks 2\nstreams 2\nconnections 1\nsignal f u32 1\nsignal c u32 1\n"
          "phase eager x1\nr0 s0 : write f[0]@0 = 1\nr0 s1 : write f[0]@0 = 2\n"
          "r0 s0 : wait f[0] >= 1\n",
          f);
    for (int k = 1; k <= 46; k++)
        fprintf(f, "r0 s1 : write c[0]@1 = %d\n", k);
    for (int k = 1; k <= 46; k++)
        fprintf(f, "r1 s1 : wait c[0] >= %d\n", k);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(ces_test_tool(dir, "check q.ces --fault delay:r0.s0#0 --quiet --dot d.dot",
                                   &o),
                     0);
    assert_string_equal(o, "verdict: OK\ncesync: wrote d.dot (the schedule)\n");
    free(o);
    snprintf(path, sizeof(path), "%s/d.dot", dir);
    dot = ces_test_read_file(path, NULL);
    /* r0.s2#1, the delayed write, to r0.s0#1, the wait; r0.s1#0 too */
    assert_non_null(strstr(dot, "n0_0_2 [label=\"r0.s2#1\\nwrite f[0] = 1\""));
    assert_non_null(strstr(dot, "n0_0_2 -> n0_0_4 [style=dashed"));
    assert_non_null(strstr(dot, "n0_0_3 -> n0_0_4 [style=dashed"));
    assert_int_equal(ces_test_count(dot, "[style=dashed"), 48);
    assert_non_null(strstr(dot, "(1035 write -> wait edges within a block not drawn: a wait from "
                                "its nearest writes alone)"));
    assert_null(strstr(dot, "labelloc"));
    assert_null(strstr(dot, "overlay:"));
    free(dot);
    assert_int_equal(remove(path), 0);
    assert_int_equal(ces_test_tool(dir, "check q.ces --quiet --dot d.dot", &o), 0);
    free(o);
    dot = ces_test_read_file(path, NULL);
    assert_non_null(strstr(dot, "n0_0_1 -> n0_0_2 [style=dashed"));
    assert_int_equal(ces_test_count(dot, "[style=dashed"), 47);
    assert_non_null(strstr(dot, "(1036 write -> wait edges within a block not drawn: a wait from "
                                "its nearest writes alone)"));
    free(dot);
    assert_int_equal(remove(path), 0);
    snprintf(path, sizeof(path), "%s/q.ces", dir);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* Writes `head`, then r3's 46 writes of a counter to r4 and r4's waits of
 * each value (1081 write -> wait pairs), then `tail`, into DIR/NAME. */
static void write_counted(const char *dir, const char *name, const char *head, const char *tail)
{
    char path[160];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(head, f);
    for (int k = 1; k <= 46; k++)
        fprintf(f, "r3 : write c[0]@4 = %d\n", k);
    for (int k = 1; k <= 46; k++)
        fprintf(f, "r4 : wait c[0] >= %d\n", k);
    fputs(tail, f);
    assert_int_equal(fclose(f), 0);
}

/* Above 1000 write -> wait pairs within blocks a counterexample's wait
 * was drawn from every write of its block it may see by an order of
 * program order and records alone (a check's graph may be of other
 * queues, or of delayed writes' streams), among them writes it never
 * sees.  The order is now the check's: r0 s0 writing f 1, s1 resetting it
 * and telling r1 through h and s0 through g, s0 writing f 1 again, under
 * --queues 0,0 (s0 and s1 on one queue, the reset behind the first
 * write) draws r1's `f == 1` wait from the second write alone (from the
 * first too before, which the reset overwrites), and with a queue each
 * from both (from the first alone before, its nearest, though the reset
 * may land after it and the wait then pass on the second); r0 writing f
 * 1, delayed, then resetting it in the next block and telling r1 through
 * h, draws r1's `f == 1` wait from the delayed write, which may land
 * after the reset: its stream is in no link at the block boundary (the
 * graph alone puts it before the reset and draws the wait from no
 * write). */
static void test_dot_checked_order(void **state)
{
    char *dir = ces_test_tmpdir(), path[160], *o, *dot;

    (void)state;
    write_counted(dir, "m.ces",
                  "cesync 1\nranks 5\nstreams 2\nsignal f u32 1\nsignal g u32 1\n"
                  "signal h u32 1\nsignal c u32 1\nsignal z u32 1\nphase eager x1\n"
                  "r0 s0 : write f[0]@1 = 1\nr0 s1 : write f[0]@1 = 0\nr0 s1 : write g[0] = 1\n"
                  "r0 s1 : write h[0]@1 = 1\nr0 s0 : wait g[0] == 1\nr0 s0 : write f[0]@1 = 1\n"
                  "r1 : wait h[0] == 1\nr1 : wait f[0] == 1\nr2 : wait z[0] >= 1\n",
                  "");
    snprintf(path, sizeof(path), "%s/d.dot", dir);
    assert_int_equal(ces_test_tool(dir, "check m.ces --queues 0,0/0,0/0,0/0,0/0,0 --quiet "
                                        "--dot d.dot",
                                   &o),
                     1);
    free(o);
    dot = ces_test_read_file(path, NULL);
    assert_non_null(strstr(dot, "n0_0_5 -> n0_1_1 [style=dashed"));
    assert_int_equal(ces_test_count(dot, " -> n0_1_1 [style=dashed"), 1);
    assert_non_null(strstr(dot, "(1036 write -> wait edges within a block not drawn: a wait from "
                                "its nearest writes alone)"));
    free(dot);
    assert_int_equal(ces_test_tool(dir, "check m.ces --quiet --dot d.dot", &o), 1);
    free(o);
    dot = ces_test_read_file(path, NULL);
    assert_non_null(strstr(dot, "n0_0_0 -> n0_1_1 [style=dashed"));
    assert_non_null(strstr(dot, "n0_0_5 -> n0_1_1 [style=dashed"));
    assert_int_equal(ces_test_count(dot, " -> n0_1_1 [style=dashed"), 2);
    free(dot);
    write_counted(dir, "l.ces",
                  "cesync 1\nranks 5\nsignal f u32 1\nsignal h u32 1\nsignal c u32 1\n"
                  "phase eager x1\nr0 : write f[0]@1 = 1\nr1 : wait h[0] == 1\n"
                  "r1 : wait f[0] == 1\n",
                  "phase eager x1\nr0 : write f[0]@1 = 0\nr0 : write h[0]@1 = 1\n");
    assert_int_equal(ces_test_tool(dir, "check l.ces --fault delay:r0.s0#0 --quiet --dot d.dot",
                                   &o),
                     1);
    free(o);
    dot = ces_test_read_file(path, NULL);
    assert_non_null(strstr(dot, "n0_0_2 [label=\"r0.s1#1\\nwrite f[0]@1 = 1"));
    assert_non_null(strstr(dot, "n0_0_2 -> n0_1_1 [style=dashed"));
    assert_non_null(strstr(dot, "(1035 write -> wait edges within a block not drawn: a wait from "
                                "its nearest writes alone)"));
    free(dot);
    assert_int_equal(remove(path), 0);
    snprintf(path, sizeof(path), "%s/m.ces", dir);
    assert_int_equal(remove(path), 0);
    snprintf(path, sizeof(path), "%s/l.ces", dir);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* A later replay's write is overwritten for a wait where a wait between
 * them fails its value and comes after its every replay (beside a counter
 * of 46 values, 1081 pairs).  r0 writes f 1 in a phase replayed 3 times,
 * where r1 waits `f == 2`, then `f >= 1`; r0 writes f 2 in the next, and
 * under a delay of that write it lands from a stream of its own: r1's
 * `f == 2` passes only on it, after r0's every 1, so the `f >= 1` never
 * sees a 1, but the second replay's 1, standing for the third's, was not
 * taken to be overwritten and was drawn to it (cesync check: OK). */
static void test_dot_checked_later_replays(void **state)
{
    char *dir = ces_test_tmpdir(), path[160], *o, *dot;

    (void)state;
    write_counted(dir, "l.ces",
                  "cesync 1\nranks 5\nsignal f u32 1\nsignal c u32 1\nphase eager x1\n",
                  "phase graph x3\nr0 : write f[0]@1 = 1\nr1 : wait f[0] == 2\n"
                  "r1 : wait f[0] >= 1\nphase graph x2\nr0 : write f[0]@1 = 2\n");
    assert_int_equal(ces_test_tool(dir, "check l.ces --fault delay:r0.s0#3 --quiet --dot d.dot",
                                   &o),
                     0);
    assert_string_equal(o, "verdict: OK\ncesync: wrote d.dot (the schedule)\n");
    free(o);
    snprintf(path, sizeof(path), "%s/d.dot", dir);
    dot = ces_test_read_file(path, NULL);
    /* the counter's 46 alone */
    assert_null(strstr(dot, " -> n1_1_1 [style=dashed"));
    assert_int_equal(ces_test_count(dot, "[style=dashed"), 46);
    assert_non_null(strstr(dot, "(1036 write -> wait edges within a block not drawn: a wait from "
                                "its nearest writes alone)"));
    free(dot);
    assert_int_equal(remove(path), 0);
    snprintf(path, sizeof(path), "%s/l.ces", dir);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* A stop, a drop and the watchdog model void the order of a check's
 * executions (a write stopped or dropped overwrites nothing, an await
 * whose record a stop left out passes at once, a released wait sees no
 * write), which its picture kept above 1000 write -> wait pairs (a
 * counter of 46 values, 1081): r0 writes f 1, then 0 (after a wait of x
 * that only the watchdog releases; behind a record that r0 s1 awaits),
 * then g, and r1 waits for g, then `f == 1`: the wait sees the first
 * write where the reset is dropped (OK), stopped (a HANG whose steps show
 * it passing on 1) or where the watchdog releases r0 first, yet the
 * picture had no edge to it (the order put the reset before it).  Every
 * pair within a block is drawn there now, none counted as not drawn. */
static void test_dot_fault_every_pair(void **state)
{
    static const char *const heads[] = {
        "cesync 1\nranks 5\nsignal f u32 1\nsignal g u32 1\nsignal c u32 1\n"
        "phase eager x1\nr0 : write f[0]@1 = 1\nr0 : write f[0]@1 = 0\n"
        "r0 : write g[0]@1 = 1\nr1 : wait g[0] == 1\nr1 : wait f[0] == 1\n",
        "cesync 1\nranks 5\nstreams 2\nsignal f u32 1\nsignal g u32 1\nsignal c u32 1\n"
        "phase eager x1\nr0 s0 : write f[0]@1 = 1\nr0 s0 : write f[0]@1 = 0\n"
        "r0 s0 : record e\nr0 s1 : await e\nr0 s1 : write g[0]@1 = 1\n"
        "r1 : wait g[0] == 1\nr1 : wait f[0] == 1\n",
        "cesync 1\nranks 5\nsignal f u32 1\nsignal g u32 1\nsignal x u32 1\n"
        "signal c u32 1\nphase eager x1\nr0 : write f[0]@1 = 1\nr0 : wait x[0] == 1\n"
        "r0 : write f[0]@1 = 0\nr0 : write g[0]@1 = 1\nr1 : wait g[0] == 1\n"
        "r1 : wait f[0] == 1\n"};
    static const char *const args[] = {"--fault drop:r0.s0#1", "--fault stop:r0.s0#1",
                                       "--abort"};
    static const int exits[] = {0, 1, 0};
    char *dir = ces_test_tmpdir(), path[160], cmd[160], *o, *dot;

    (void)state;
    snprintf(path, sizeof(path), "%s/d.dot", dir);
    for (int c = 0; c < 3; c++) {
        write_counted(dir, "m.ces", heads[c], "");
        snprintf(cmd, sizeof(cmd), "check m.ces %s --quiet --dot d.dot", args[c]);
        assert_int_equal(ces_test_tool(dir, cmd, &o), exits[c]);
        free(o);
        dot = ces_test_read_file(path, NULL);
        assert_non_null(strstr(dot, "n0_0_0 -> n0_1_1 [style=dashed"));
        assert_int_equal(ces_test_count(dot, " -> n0_1_1 [style=dashed"), 1);
        assert_int_equal(ces_test_count(dot, "[style=dashed"), 1083);
        assert_null(strstr(dot, "within a block not drawn"));
        free(dot);
    }
    assert_int_equal(remove(path), 0);
    snprintf(path, sizeof(path), "%s/m.ces", dir);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* The picture of a counterexample under a queue map (--queues, or the
 * first assignment of a `connections any` schedule that fails) names the
 * map in its title, as the report's "hardware queues:" line does: the
 * lanes are drawn apart, and without it a deadlock behind a queue head
 * had no cause in the picture. */
static void test_dot_queue_map(void **state)
{
    char *dir = ces_test_tmpdir(), args[256], path[160], *o, *dot;
    int rc;

    (void)state;
    snprintf(args, sizeof(args), "check bad/cross_stream_any.ces --dot %s/any.dot", dir);
    assert_int_equal(ces_test_tool(NULL, args, &o), 1);
    assert_memory_equal(o, "verdict: DEADLOCK\nhardware queues: 0,0 (connections any: ", 55);
    free(o);
    snprintf(path, sizeof(path), "%s/any.dot", dir);
    dot = ces_test_read_file(path, NULL);
    assert_non_null(strstr(dot, "labelloc=t, fontsize=16, label=\"DEADLOCK counterexample, "
                                "hardware queues 0,0\\ncycle: r0.s0#2 -> r1.s1#0 -> "
                                "r1.s0#2 -> r0.s1#0 -> r0.s0#2\"];\n"));
    free(dot);
    /* Graphviz draws it, where it is installed */
    snprintf(args, sizeof(args), "command -v dot >/dev/null || exit 0; dot -Tsvg %s >/dev/null",
             path);
    rc = system(args);
    assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    remove(path);
    snprintf(args, sizeof(args), "check bad/cross_stream_conn0.ces --queues 1,1/0,0 --dot %s/q.dot",
             dir);
    assert_int_equal(ces_test_tool(NULL, args, &o), 1);
    free(o);
    snprintf(path, sizeof(path), "%s/q.dot", dir);
    dot = ces_test_read_file(path, NULL);
    assert_non_null(strstr(dot, "label=\"DEADLOCK counterexample, hardware queues 1,1/0,0"
                                "\\ncycle: r0.s0#2 -> r1.s1#0 -> r1.s0#2 -> r0.s1#0 -> "
                                "r0.s0#2\"];\n"));
    free(dot);
    remove(path);
    /* without a map, the verdict and the wait-for cycle */
    snprintf(args, sizeof(args), "check bad/cross_stream_conn1.ces --dot %s/c.dot", dir);
    assert_int_equal(ces_test_tool(NULL, args, &o), 1);
    free(o);
    snprintf(path, sizeof(path), "%s/c.dot", dir);
    dot = ces_test_read_file(path, NULL);
    assert_non_null(strstr(dot, "label=\"DEADLOCK counterexample\\ncycle: r0.s0#2 -> r1.s1#0 -> "
                                "r1.s0#2 -> r0.s1#0 -> r0.s0#2\"];\n"));
    /* and as thick edges, each op to the one it waits for */
    assert_non_null(strstr(dot, "n0_0_2 -> n0_1_3 [color=\"#8b0000\", penwidth=3.5"));
    assert_non_null(strstr(dot, "n0_1_3 -> n0_1_2 [color=\"#8b0000\", penwidth=3.5"));
    assert_non_null(strstr(dot, "n0_1_2 -> n0_0_3 [color=\"#8b0000\", penwidth=3.5"));
    assert_non_null(strstr(dot, "n0_0_3 -> n0_0_2 [color=\"#8b0000\", penwidth=3.5"));
    assert_int_equal(ces_test_count(dot, "#8b0000"), 4);
    assert_non_null(strstr(dot, "thick dark red: the deadlock's cycle, an op -> the op it waits "
                                "for\\l"));
    free(dot);
    remove(path);
    rmdir(dir);
}

/* A schedule whose model alone is far over --max-memory (2^31 - 1 graph
 * replays of one op per rank: 64 GiB of unrolled ops): INCOMPLETE at once,
 * without allocating it (it used to try, and fail as out of memory or be
 * killed), and a line saying what needed the memory. */
static void test_memory_bound(void **state)
{
    char *dir = ces_test_tmpdir(), path[128], *o;
    FILE *f;
    const char *want_out = "verdict: INCOMPLETE\ncoverage: the bound on memory stopped the search after 0 "
                           "states\n";
    const char *want_err = "cesync: check: memory bound 64.0 MiB reached before the search: "
                           "the checker's model (2 streams, 8 signal slots, 4294967294 ops "
                           "unrolled) needs more than 48.00 GiB and each state ";

    (void)state;
    snprintf(path, sizeof(path), "%s/big.ces", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("cesync 1\nranks 2\nbuffer b 16\nsignal s u64 4\nphase graph x2147483647\n"
          "r* : fence\n", f);
    fclose(f);
    assert_int_equal(ces_test_tool(dir, "check big.ces --max-memory 64M", &o), 3);
    assert_memory_equal(o, want_out, strlen(want_out));
    assert_non_null(strstr(o, want_err));
    free(o);
    assert_int_equal(ces_test_tool(dir, "check big.ces --max-memory 64M --quiet", &o), 3);
    assert_string_equal(o, "verdict: INCOMPLETE\n");
    free(o);
    assert_int_equal(ces_test_tool(dir, "check big.ces --max-memory 64M --json", &o), 3);
    assert_memory_equal(o, "{\"verdict\":\"INCOMPLETE\",", 24);
    assert_non_null(strstr(o, ",\"bound\":\"memory\","));
    assert_non_null(strstr(o, want_err));
    free(o);
    remove(path);
    rmdir(dir);
}

/* Without --max-memory the bound is half of the machine's memory: a model
 * of 2^31 - 1 replays of 2 ops on each of 64 ranks of one stream (2^38 ops
 * unrolled, terabytes) ends INCOMPLETE at once, saying the default bound
 * did it; an explicit bound is not called the default.  (Streams of one
 * rank would be linked at each replay's boundary, more links than the
 * checker takes, refused before the bound; --max-memory 0, no bound, is
 * not run here: such a search grows until it is killed.) */
static void test_default_memory_bound(void **state)
{
    char *dir = ces_test_tmpdir(), path[128], *o;
    FILE *f;

    (void)state;
    snprintf(path, sizeof(path), "%s/huge.ces", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("cesync 1\nranks 64\nbuffer b 16\nsignal s u64 4\nphase graph x2147483647\n"
          "r* : fence\nr* : fence\n", f);
    fclose(f);
    assert_int_equal(ces_test_tool(dir, "check huge.ces", &o), 3);
    assert_non_null(strstr(o, "verdict: INCOMPLETE\n"));
    assert_non_null(strstr(o, "reached before the search: the checker's model"));
    assert_non_null(strstr(o, "cesync: check: (the default bound, half of this machine's "
                              "memory; --max-memory sets another, 0 none)\n"));
    free(o);
    assert_int_equal(ces_test_tool(dir, "check huge.ces --max-memory 1G", &o), 3);
    assert_null(strstr(o, "the default bound"));
    free(o);
    remove(path);
    rmdir(dir);
}

/* --max-seconds and --progress take a finite decimal number > 0 (nan and
 * inf ran unbounded; strtod's hexadecimal and blanks passed). */
static void test_max_seconds(void **state)
{
    const char *bad[] = {"nan", "inf", "-inf", "infinity", "0", "-1", "1s", "",
                         "0x10", " 5", "1e400"};
    const char *opts[] = {"--max-seconds", "--progress"};
    char args[128], want[128], *o;

    (void)state;
    for (size_t k = 0; k < 2; k++) {
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            snprintf(args, sizeof(args), "alltoall --ranks 2 %s '%s'", opts[k], bad[i]);
            snprintf(want, sizeof(want), "cesync: check: %s expects a finite number > 0, "
                     "not '%s'\n", opts[k], bad[i]);
            assert_int_equal(run(args, &o), 2);
            assert_string_equal(o, want);
            free(o);
        }
    }
    assert_int_equal(run("alltoall --ranks 2 --max-seconds 30 --quiet", &o), 0);
    assert_string_equal(o, "verdict: OK\n");
    free(o);
    /* a number as written by hand, an exponent too */
    assert_int_equal(run("alltoall --ranks 2 --max-seconds 1e3 --quiet", &o), 0);
    assert_string_equal(o, "verdict: OK\n");
    free(o);
    /* a search of about 0.3 s (4 ranks, 5 replays, unreduced) is stopped,
     * and the report names the bound */
    assert_int_equal(run("alltoall --ranks 4 --iterations 5 --no-reduction --max-seconds 0.02",
                         &o), 3);
    assert_non_null(strstr(o, "verdict: INCOMPLETE\ncoverage: the bound on time stopped the "
                              "search after "));
    free(o);
    assert_int_equal(run("alltoall --ranks 4 --iterations 5 --no-reduction --max-seconds 0.02 "
                         "--json", &o), 3);
    assert_non_null(strstr(o, ",\"bound\":\"time\","));
    free(o);
}

/* --max-depth N >= 1, for the exhaustive search only; a cut is INCOMPLETE
 * (exit 3), a bound no execution reaches changes nothing. */
static void test_max_depth(void **state)
{
    static const struct {
        const char *args;
        int code;
        const char *out;
    } cases[] = {
        {"alltoall --max-depth 0", 2, "cesync: check: --max-depth expects a number in 1..18446744073709551615, not '0'\n"},
        {"alltoall --max-depth 5 --random 2", 2,
         "cesync: check: --max-depth bounds the exhaustive search: drop it with "
         "--random/--replay\n"},
        {"alltoall --max-depth 10 --quiet", 3, "verdict: INCOMPLETE\n"},
        {"alltoall --max-depth 10000 --quiet", 0, "verdict: OK\n"},
    };
    char *o;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(run(cases[i].args, &o), cases[i].code);
        assert_string_equal(o, cases[i].out);
        free(o);
    }
    /* the JSON says why it is incomplete, as the text's coverage line
     * does: it said only "complete":false */
    assert_int_equal(run("alltoall --max-depth 10 --json", &o), 3);
    assert_non_null(strstr(o, "},\"depth_cut\":true,\"open\":\"HANG,RACE,MISMATCH\","
                              "\"defects\":[]}\n"));
    free(o);
    assert_int_equal(run("alltoall --max-depth 10000 --json", &o), 0);
    assert_null(strstr(o, "depth_cut"));
    free(o);
}

/* --first: the JSON says that the first defect stopped the search, as the
 * text's coverage line does (it said only "complete":false); a random
 * sample's coverage line says what stopped it short; --help says the exit
 * of an INCOMPLETE with a defect, 1. */
static void test_first_json(void **state)
{
    char *o;

    (void)state;
    assert_int_equal(run("barrier --ranks 2 --sync nccl --graph --iterations 2 --first", &o), 1);
    assert_memory_equal(o, "verdict: HANG,INCOMPLETE\ncoverage: stopped at the first defect, "
                           "after ", 69);
    free(o);
    assert_int_equal(run("barrier --ranks 2 --sync nccl --graph --iterations 2 --first --json",
                         &o), 1);
    assert_memory_equal(o, "{\"verdict\":\"HANG,INCOMPLETE\",\"bits\":18,", 39);
    assert_non_null(strstr(o, "},\"first_defect\":true,\"open\":\"\",\"defects\":[{\"class\":"
                              "\"HANG\","));
    free(o);
    assert_int_equal(run("barrier --ranks 2 --sync nccl --graph --iterations 2 --json", &o), 1);
    assert_null(strstr(o, "first_defect"));
    free(o);
    /* a random sample cut short by it says so: it told of 1 execution of
     * the 50 asked for, and not why the verdict is INCOMPLETE */
    assert_int_equal(run("barrier --ranks 2 --sync nccl --graph --iterations 2 --first "
                         "--random 50", &o), 1);
    assert_memory_equal(o, "verdict: HANG,INCOMPLETE\ncoverage: 1 random execution, stopped at "
                           "the first defect - a sample, not a proof\nHANG: ", 113);
    free(o);
    /* and one a bound stopped: the bound, as the JSON's "bound" */
    assert_int_equal(run("alltoall --ranks 2 --random 1000000000 --max-seconds 0.2", &o), 3);
    assert_memory_equal(o, "verdict: INCOMPLETE\ncoverage: ", 30);
    assert_non_null(strstr(o, " random executions, stopped by the bound on time - a sample, "
                              "not a proof\nstatistics: "));
    free(o);
    /* the help says that an INCOMPLETE with a defect is exit 1, as above (it
     * said "Bounds (INCOMPLETE, exit 3, ...)" and "3 INCOMPLETE") */
    assert_int_equal(run("--help", &o), 0);
    assert_non_null(strstr(o, "\nBounds (where one stops the search: INCOMPLETE, exit 3, or 1 "
                              "with a defect found):\n"));
    assert_non_null(strstr(o, ", 3 INCOMPLETE with no defect found.\n"));
    free(o);
}

/* Progress lines go to stderr on a terminal only, unless --progress asks
 * for them (a CI log): then every S seconds, --quiet or not, before the
 * verdict.  --help says that the terminal's default is not taken with
 * --quiet or --json (it said "default 2 s on a terminal" alone). */
static void test_progress(void **state)
{
    const char *big = "alltoall --ranks 4 --iterations 3 --no-reduction";
    char args[256], *o, *v;

    (void)state;
    assert_int_equal(run("--help", &o), 0);
    assert_non_null(strstr(o, "\n  --progress S        totals on stderr every S seconds (default 2 s "
                              "on a terminal,\n                      unless --quiet or --json)\n"));
    free(o);
    assert_int_equal(run(big, &o), 0);
    assert_null(strstr(o, "check: "));
    free(o);
    snprintf(args, sizeof(args), "%s --quiet --progress 0.001", big);
    assert_int_equal(run(args, &o), 0);
    assert_true(strncmp(o, "check: ", 7) == 0);
    assert_non_null(strstr(o, " states, "));
    v = strstr(o, "verdict: OK\n");
    assert_non_null(v);
    assert_string_equal(v, "verdict: OK\n");
    assert_null(strstr(v, "check: "));
    free(o);
    /* a second search's states among them (docs/SEMANTICS.md section 10,
     * "Waits run early"): after two 8-rank barriers, a race where rank 1's
     * second stream passes its wait on r0's store, not on its first
     * stream's, whose race-free executions are searched for a MISMATCH
     * past the bound */
    {
        char *dir = ces_test_tmpdir(), path[256], cmd[320];

        snprintf(path, sizeof(path), "%s/race.ces", dir);
        ces_test_put_file(path, "cesync 1\nranks 8\nstreams 2\nbuffer a 16\nsignal ready u64 1\n"
                                "signal f u64 1\nphase eager x2\nr* : write ready[0] = $i\n"
                                "r* over p : wait ready[0]@$p >= $i\nphase eager x1\n"
                                "r0 : write f[0]@1 = 1\nr1 : produce a[0:16]\nr1 : write f[0] = 1\n"
                                "r1 s1 : wait f[0] >= 1\nr1 s1 : consume a[0:16] == a[0:16]@1\n");
        /* (1.5 s: a loaded machine under the sanitizers once printed no
         * line after the first burst within 0.5 s) */
        snprintf(cmd, sizeof(cmd), "%s --quiet --max-seconds 1.5 --progress 0.05", path);
        assert_int_equal(run(cmd, &o), 1);
        assert_non_null(strstr(o, " in the second search, for a MISMATCH among race-free "
                                  "executions), "));
        /* and random executions within it ("Classes found by sampling") */
        assert_non_null(strstr(o, " of them random executions within the search), "));
        assert_non_null(strstr(o, "verdict: RACE,INCOMPLETE\n"));
        free(o);
        assert_int_equal(remove(path), 0);
        assert_int_equal(rmdir(dir), 0);
    }
    /* random mode stores no states: executions of their total */
    assert_int_equal(run("alltoall --ranks 2 --random 30000 --quiet --progress 0.001", &o), 0);
    assert_true(strncmp(o, "check: ", 7) == 0);
    assert_non_null(strstr(o, " of 30000 random executions, "));
    assert_null(strstr(o, " states, "));
    free(o);
    /* the fault sweep's progress: faults checked of their total, the last
     * line at the end */
    assert_int_equal(run("barrier --ranks 2 --fault-sweep --quiet --progress 0.000001", &o), 0);
    v = strstr(o, "without faults: verdict: OK\ncheck: fault sweep: ");
    assert_non_null(v);
    v = strstr(v, "check: fault sweep: 8 of 8 faults checked, ");
    assert_non_null(v);
    v = strchr(v, '\n');
    assert_non_null(v);
    assert_true(strncmp(v + 1, "fault sweep: 8 faults: ", 23) == 0);
    free(o);
}

/* Runs `cesync check ARGS` with its stderr on a terminal, a pseudo-
 * terminal's slave (stdin and stdout /dev/null): its exit status, what
 * came on the terminal in *err (malloc'd); -1 where no pseudo-terminal
 * can be had. */
static int on_terminal(const char *args, char **err)
{
    char cmd[4096];
    int master = posix_openpt(O_RDWR | O_NOCTTY), slave = -1, st;
    pid_t pid;

    if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0 && ptsname(master) != NULL)
        slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    if (slave < 0) {
        if (master >= 0)
            close(master);
        return -1;
    }
    snprintf(cmd, sizeof(cmd), "exec '%s' check %s </dev/null >/dev/null", CES_TOOL, args);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(master);
        if (dup2(slave, 2) < 0)
            _exit(127);
        close(slave);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(slave); /* the command's end closes the last: then reads fail */
    *err = ces_test_read_fd(master, NULL);
    close(master);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* On a terminal the progress lines come unasked, the first after 2 s, but
 * not with --quiet or --json, as --help and docs/CLI.md say; no test ran
 * the command on a terminal (test_progress's runs write to a pipe), so
 * that a default that no longer heeded either, or took another interval,
 * passed them all.  A search of 6 ranks, stopped at 2.5 s (one of 5 ranks
 * finished in 2.3 s on an idle machine, exit 0). */
static void test_progress_on_terminal(void **state)
{
    static const char *const off[] = {"--quiet", "--json"};
    const char *big = "alltoall --ranks 6 --iterations 2 --no-reduction --max-seconds 2.5";
    char args[256], *o, *s;
    double t;
    int rc;

    (void)state;
    rc = on_terminal(big, &o);
    if (rc < 0)
        skip();
    assert_int_equal(rc, 3);
    /* the first line, after 2 s (the seconds of its totals) */
    s = strstr(o, " s, ");
    if (strncmp(o, "check: ", 7) != 0 || strstr(o, " states, ") == NULL || s == NULL)
        fail_msg("no progress line on the terminal:\n%s", o);
    while (s > o && s[-1] != ' ')
        s--;
    t = strtod(s, NULL);
    if (t < 2.0 || t >= 2.5)
        fail_msg("the first progress line at %g s:\n%s", t, o);
    free(o);
    for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
        snprintf(args, sizeof(args), "%s %s", big, off[i]);
        assert_int_equal(on_terminal(args, &o), 3);
        if (strstr(o, "check: ") != NULL)
            fail_msg("'check %s' on a terminal said:\n%s", args, o);
        free(o);
    }
}

/* `check PATH --max-seconds 0.5 OPTS` of 16 ranks of 1,000,000 blocks,
 * stopped while it expanded the schedule: exit 3, the output ending in
 * stderr's line saying how far it came, whose counts (in *blocks and *ops)
 * vary with the machine.  Returns the output before that line (malloc'd). */
static char *stopped_run(const char *path, const char *opts, unsigned long long *blocks,
                         unsigned long long *ops)
{
    char cmd[512], want[320], *o = NULL, *line;
    int used = 0;

    snprintf(cmd, sizeof(cmd), "%s --max-seconds 0.5 %s", path, opts);
    assert_int_equal(run(cmd, &o), 3);
    snprintf(want, sizeof(want), "cesync: check: time bound 0.5 s reached while expanding the "
             "schedule, before the search: %s: ", path);
    line = strstr(o, want);
    if (line == NULL)
        fail_msg("no line of the expansion's stop in:\n%s", o);
    assert_int_equal(sscanf(line + strlen(want), "%llu of 1000000 blocks (%llu of 16000000 ops) "
                            "expanded\n%n", blocks, ops, &used), 2);
    assert_string_equal(line + strlen(want) + used, "");
    *line = '\0';
    return o;
}

/* --max-seconds counts the schedule's expansion, which came before it:
 * 16 ranks of `phase eager x1000000` (16 million ops) took 27 s under
 * --max-seconds 2 (19 s expanding, then 8 building the model).  The bound
 * now stops the expansion: INCOMPLETE (exit 3), every class open, a line
 * saying how far it came; progress lines while it expands; --json says the
 * same as an object, and a queue sweep's --json the sweep's object. */
static void test_expansion_time_bound(void **state)
{
    char *dir = ces_test_tmpdir(), path[256], cmd[320], *o, *v, want[640];
    unsigned long long blocks = 0, ops = 0;
    int used = 0;

    (void)state;
    snprintf(path, sizeof(path), "%s/long.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 16\nsignal f u32 1\nphase eager x1000000\n"
                            "r* : write f[0] = $i\n");
    snprintf(cmd, sizeof(cmd), "%s --max-seconds 1 --progress 0.1", path);
    assert_int_equal(run(cmd, &o), 3);
    assert_true(strncmp(o, "check: expanding the schedule: ", 31) == 0);
    assert_non_null(strstr(o, " of 1000000 blocks, "));
    v = strstr(o, "verdict: INCOMPLETE\n");
    assert_non_null(v);
    snprintf(want, sizeof(want),
             "verdict: INCOMPLETE\ncoverage: the bound on time stopped the check while it "
             "expanded the schedule, before the search\ncoverage: neither found nor ruled out: "
             "DEADLOCK,HANG,RACE,MISMATCH\ncesync: check: time bound 1 s reached while "
             "expanding the schedule, before the search: %s: ", path);
    assert_memory_equal(v, want, strlen(want));
    v += strlen(want);
    assert_int_equal(sscanf(v, "%llu of 1000000 blocks (%llu of 16000000 ops) expanded\n%n",
                            &blocks, &ops, &used), 2);
    assert_string_equal(v + used, "");
    assert_true(blocks < 1000000);
    /* the blocks whole, the ops also of the one under way */
    assert_true(ops >= 16 * blocks && ops <= 16 * (blocks + 1));
    free(o);
    /* a first look at the clock after the bound (a slow or loaded machine)
     * says its progress line before it stops: it said none */
    snprintf(cmd, sizeof(cmd), "%s --max-seconds 0.001 --progress 0.001", path);
    assert_int_equal(run(cmd, &o), 3);
    assert_true(strncmp(o, "check: expanding the schedule: 4095 of 1000000 blocks, 65536 of "
                           "16000000 ops, ", 78) == 0);
    assert_non_null(strstr(o, " s\nverdict: INCOMPLETE\n"));
    free(o);
    snprintf(cmd, sizeof(cmd), "%s --max-seconds 0.5 --json", path);
    assert_int_equal(run(cmd, &o), 3);
    assert_true(strncmp(o, "{\"verdict\":\"INCOMPLETE\",\"bits\":16,\"complete\":false,"
                           "\"proof\":false,\"bound\":\"time\",\"expansion\":{\"blocks\":",
                        102) == 0);
    assert_non_null(strstr(o, ",\"blocks_all\":1000000,\"ops\":"));
    assert_non_null(strstr(o, ",\"ops_all\":16000000,\"validated\":0},\"open\":\"DEADLOCK,"
                              "HANG,RACE,MISMATCH\",\"unchecked\":[],\"defects\":[]}\n"));
    free(o);
    /* a sweep says its totals, none checked (it printed the check's
     * verdict alone), as --quiet keeps them */
    file_says(path, "--max-seconds 0.5 --fault-sweep --quiet", 3,
              "verdict: INCOMPLETE\nfault sweep: no fault checked (the time bound of 0.5 s had "
              "passed while the schedule was expanded, before its faults were listed)\n");
    file_says(path, "--max-seconds 0.5 --queue-sweep --quiet", 3,
              "verdict: INCOMPLETE\nqueue sweep: 0 assignments: the time bound of 0.5 s had "
              "passed while the schedule was expanded, before any was checked\n");
    /* --dot's picture not written is said, as a written one is, --quiet
     * too (it said nothing) */
    snprintf(cmd, sizeof(cmd), "--max-seconds 0.5 --quiet --dot %s/long.dot", dir);
    snprintf(want, sizeof(want), "verdict: INCOMPLETE\ncesync: check: --dot %s/long.dot not "
             "written: the schedule was not expanded\n", dir);
    file_says(path, cmd, 3, want);
    /* with --json the sweep's object, no assignment checked (it was the
     * plain check's, which a reader of the sweep does not expect) */
    o = stopped_run(path, "--queue-sweep --json --fault drop:r99.s0#0", &blocks, &ops);
    snprintf(want, sizeof(want),
             "{\"queue_sweep\":{\"at_most\":null,\"failing\":[],\"assignments\":0,\"ok\":0,"
             "\"deadlock_or_hang\":0,\"race_or_mismatch_only\":0,\"incomplete\":0,"
             "\"stopped\":false,\"first\":null,\"bound\":\"time\",\"expansion\":{\"blocks\":"
             "%llu,\"blocks_all\":1000000,\"ops\":%llu,\"ops_all\":16000000,\"validated\":0},"
             "\"unchecked\":[\"--fault\"]}}\n", blocks, ops);
    assert_string_equal(o, want);
    free(o);
    /* an option the others exclude is said as such, not as the bound, and
     * before the schedule is read, as is a --dot whose directory is not
     * there: no line of the expansion first (it ran until the bound, said
     * the lines, then the refusal) */
    file_says(path, "--max-seconds 0.5 --progress 0.1 --json --quiet", 2,
              "cesync: check: --quiet (the verdict line) and --json (the whole report) exclude "
              "each other\n");
    file_says(path, "--max-seconds 0.5 --progress 0.1 --fault-sweep --abort", 2,
              "cesync: check: --fault-sweep checks every fault without and with --abort: drop "
              "--abort\n");
    snprintf(cmd, sizeof(cmd), "--max-seconds 0.5 --progress 0.1 --dot %s/no-dir/x.dot", dir);
    snprintf(want, sizeof(want), "cesync: check: cannot create %s/no-dir/x.dot: No such file or "
             "directory\n", dir);
    file_says(path, cmd, 2, want);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* n zeros, sep between them, in buf (of at least 2n bytes). */
static const char *zeros(char *buf, int n, char sep)
{
    for (int i = 0; i < n; i++) {
        buf[2 * i] = '0';
        buf[2 * i + 1] = i + 1 < n ? sep : '\0';
    }
    return buf;
}

/* A stream number, queue map or fault that no schedule allows (past 1024
 * ranks of 64 streams, CES_MAX_RANKS and CES_MAX_STREAMS) is refused as it
 * is read, the same whether the time bound stops the expansion of `long`
 * (it said INCOMPLETE, exit 3: they were judged against the schedule only)
 * or `short`, one block, is expanded whole (it said the schedule's ranges,
 * 'out of range (0..15)', 'less than the streams per rank, 1', '1025 lists
 * for 16 ranks', 'no such stream (ranks 0..15, streams 0..0)'); the
 * largest that a schedule may have are judged against the schedule, as
 * before. */
static void never_valid(const char *dir, const char *long_path)
{
    static const struct {
        const char *opts, *msg;
    } bad[] = {
        {"--replay 0.65536", "replay string, offset 2: stream number 65536 out of range "
                             "(0..65535: a schedule has at most 1024 ranks of 64 streams)"},
        {"--replay 99999999999999999999", "replay string, offset 0: stream number "
                                          "99999999999999999999 out of range (0..65535: a "
                                          "schedule has at most 1024 ranks of 64 streams)"},
        {"--queues 0/64", "--queues: queue map '0/64': queue 64 at column 3; expected a queue "
                          "number less than the streams per rank, of which a rank has at most "
                          "64"},
        {"--fault drop:r1024.s0#0", "fault drop:r1024.s0#0: no such stream (a schedule has at "
                                    "most 1024 ranks of 64 streams)"},
        {"--fault stop:r0.s64#0", "fault stop:r0.s64#0: no such stream (a schedule has at most "
                                  "1024 ranks of 64 streams)"},
        {"--fault stop:r1024#0", "fault stop:r1024#0: no such rank (a schedule has at most 1024 "
                                 "ranks)"},
    };
    char path[256], opts[2400], want[2400], list[2100];
    unsigned long long blocks = 0, ops = 0;
    char *o;

    snprintf(path, sizeof(path), "%s/short.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 16\nsignal f u32 1\nphase eager x1\n"
                            "r* : write f[0] = $i\n");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(want, sizeof(want), "cesync: check: %s\n", bad[i].msg);
        snprintf(opts, sizeof(opts), "--max-seconds 0.5 %s", bad[i].opts);
        file_says(long_path, opts, 2, want);
        file_says(path, bad[i].opts, 2, want);
    }
    /* a list of 65 numbers, 1025 lists */
    snprintf(opts, sizeof(opts), "--max-seconds 0.5 --queues %s", zeros(list, 65, ','));
    snprintf(want, sizeof(want), "cesync: check: --queues: queue map '%.48s...': list 1 has 65 "
             "numbers; expected one per stream, of which a rank has at most 64\n", list);
    file_says(long_path, opts, 2, want);
    file_says(path, opts + 18, 2, want);
    snprintf(opts, sizeof(opts), "--max-seconds 0.5 --queues %s", zeros(list, 1025, '/'));
    snprintf(want, sizeof(want), "cesync: check: --queues: queue map '%.48s...': 1025 lists; expected "
             "one list for every rank, or one per rank split by /, of which a schedule has at "
             "most 1024\n", list);
    file_says(long_path, opts, 2, want);
    file_says(path, opts + 18, 2, want);
    /* the largest: the schedule's ranges, or not checked where the
     * expansion was stopped */
    file_says(path, "--replay 65535", 2, "cesync: check: replay string, offset 0: stream number "
              "65535 out of range (0..15)\n");
    file_says(path, "--queues 63", 2, "cesync: check: --queues: queue map '63': queue 63 at "
              "column 1; expected a queue number less than the streams per rank, 1\n");
    file_says(path, "--fault drop:r1023.s63#0", 2, "cesync: check: fault drop:r1023.s63#0: no "
              "such stream (ranks 0..15, streams 0..0)\n");
    file_says(path, "--fault stop:r1023#0", 2, "cesync: check: fault stop:r1023#0: no such rank "
              "(ranks 0..15)\n");
    snprintf(opts, sizeof(opts), "--queues %s", zeros(list, 64, ','));
    snprintf(want, sizeof(want), "cesync: check: --queues: queue map '%.48s...': list 1 has 64 "
             "numbers; expected one per stream, 1\n", list);
    file_says(path, opts, 2, want);
    snprintf(opts, sizeof(opts), "--queues %s", zeros(list, 1024, '/'));
    snprintf(want, sizeof(want), "cesync: check: --queues: queue map '%.48s...': 1024 lists for 16 "
             "ranks (one list for every rank, or one per rank split by /)\n", list);
    file_says(path, opts, 2, want);
    o = stopped_run(long_path, "--queues 63 --replay 65535 --fault drop:r1023.s63#0 --fault "
                    "stop:r1023#0", &blocks, &ops);
    assert_string_equal(o, "verdict: INCOMPLETE\ncoverage: the bound on time stopped the check "
                           "while it expanded the schedule, before the search\ncoverage: neither "
                           "found nor ruled out: DEADLOCK,HANG,RACE,MISMATCH\ncoverage: not "
                           "checked against the schedule, which was not expanded: the ranks, "
                           "streams and ops that --fault, --queues and --replay name\n");
    free(o);
    assert_int_equal(remove(path), 0);
}

/* Options judged whether or not the time bound stops the schedule's
 * expansion: their syntax before it (a slow machine said INCOMPLETE, exit
 * 3, where a fast one said the error, exit 2), and what only the schedule
 * can judge (a rank, stream or op it lacks) said as not checked where the
 * expansion was stopped. */
static void test_expansion_stopped_options(void **state)
{
    char *dir = ces_test_tmpdir(), path[256], dot[256], opts[320], want[1024], *o;
    unsigned long long blocks = 0, ops = 0;

    (void)state;
    snprintf(path, sizeof(path), "%s/long.ces", dir);
    snprintf(dot, sizeof(dot), "%s/long.dot", dir);
    ces_test_put_file(path, "cesync 1\nranks 16\nsignal f u32 1\nphase eager x1000000\n"
                            "r* : write f[0] = $i\n");
    file_says(path, "--max-seconds 0.5 --replay 0.1*y", 2,
              "cesync: check: replay string, offset 4: expected a repeat count after '*', found "
              "'y'\n");
    /* the steps of all its runs, not of each (16,777,217 here) */
    file_says(path, "--max-seconds 0.5 --replay 0*16777216.1", 2,
              "cesync: check: replay string: more than 16777216 steps\n");
    file_says(path, "--max-seconds 0.5 --queues 0/x", 2,
              "cesync: check: --queues: queue map '0/x': expected a queue number at column 3\n");
    file_says(path, "--max-seconds 0.5 --queues 0,1/0", 2,
              "cesync: check: --queues: queue map '0,1/0': list 2 has 1 number, list 1 2; "
              "expected one per stream in every list\n");
    file_says(path, "--max-seconds 0.5 --fault drop:r0.s0#0 --fault delay:r0.s0#0", 2,
              "cesync: check: faults drop:r0.s0#0 and delay:r0.s0#0: expected a write dropped or "
              "delayed, not both\n");
    file_says(path, "--max-seconds 0.5 --fault stop:r1#2 --fault stop:r1#0", 2,
              "cesync: check: faults stop:r1#2 and stop:r1#0: expected one stop of r1 (a rank "
              "stops once; stop:r1#0 alone is the same check)\n");
    /* --dot the schedule's own file, under another name */
    assert_int_equal(link(path, dot), 0);
    snprintf(opts, sizeof(opts), "--max-seconds 0.5 --dot %s", dot);
    snprintf(want, sizeof(want), "cesync: check: --dot %s is the input file %s (name another "
             "output file)\n", dot, path);
    file_says(path, opts, 2, want);
    assert_int_equal(remove(dot), 0);
    never_valid(dir, path);
    /* what names the schedule's ranks, streams and ops: not checked */
    o = stopped_run(path, "--fault drop:r99.s0#0 --queues 0/1 --replay 99", &blocks, &ops);
    assert_string_equal(o, "verdict: INCOMPLETE\ncoverage: the bound on time stopped the check "
                           "while it expanded the schedule, before the search\ncoverage: neither "
                           "found nor ruled out: DEADLOCK,HANG,RACE,MISMATCH\ncoverage: not "
                           "checked against the schedule, which was not expanded: the ranks, "
                           "streams and ops that --fault, --queues and --replay name\n");
    free(o);
    o = stopped_run(path, "--queues 0/1", &blocks, &ops); /* one option: "names" */
    assert_string_equal(o, "verdict: INCOMPLETE\ncoverage: the bound on time stopped the check "
                           "while it expanded the schedule, before the search\ncoverage: neither "
                           "found nor ruled out: DEADLOCK,HANG,RACE,MISMATCH\ncoverage: not "
                           "checked against the schedule, which was not expanded: the ranks, "
                           "streams and ops that --queues names\n");
    free(o);
    o = stopped_run(path, "--json --fault drop:r99.s0#0 --queues 0/1 --replay 99", &blocks, &ops);
    snprintf(want, sizeof(want),
             "{\"verdict\":\"INCOMPLETE\",\"bits\":16,\"complete\":false,\"proof\":false,"
             "\"bound\":\"time\",\"expansion\":{\"blocks\":%llu,\"blocks_all\":1000000,"
             "\"ops\":%llu,\"ops_all\":16000000,\"validated\":0},\"open\":\"DEADLOCK,HANG,RACE,"
             "MISMATCH\",\"unchecked\":[\"--fault\",\"--queues\",\"--replay\"],\"defects\":[]}\n",
             blocks, ops);
    assert_string_equal(o, want);
    free(o);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* Progress lines count their seconds from the command's start, the
 * expansion's, the model's building's and the search's alike: the
 * building's restarted at 0 after an expansion's seconds (1.1 s, then
 * 0.3 s).  So do the sweeps': a fault sweep's counted from its own start,
 * after the expansion and the check without faults ("0 of 8000 faults
 * checked, 0.0 s" where the check without faults had spent a bound of
 * 0.3 s), a queue sweep's alike. */
static void test_progress_one_clock(void **state)
{
    char *dir = ces_test_tmpdir(), path[256], cmd[320], *o, *line;
    double last = -1, t;
    int expanding = 0, building = 0;
    size_t faults = 0;

    (void)state;
    snprintf(path, sizeof(path), "%s/mid.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 16\nsignal f u32 1\nphase eager x60000\n"
                            "r* : write f[0] = $i\n");
    snprintf(cmd, sizeof(cmd), "%s --progress 0.02 --quiet", path);
    assert_int_equal(run(cmd, &o), 0);
    for (line = o; strncmp(line, "check: ", 7) == 0; line = strchr(line, '\n') + 1) {
        const char *end = strchr(line, '\n'), *at = NULL;

        /* the seconds: the number before the line's " s" (then ", " or its end) */
        for (const char *p = line; p != NULL && p < end; p = strstr(p + 1, " s"))
            if (p[2] == ',' || p[2] == '\n')
                at = p;
        assert_non_null(at);
        while (at > line && at[-1] != ' ')
            at--;
        t = strtod(at, NULL);
        /* each line's seconds at least its predecessor's */
        if (t < last)
            fail_msg("%.1f s after %.1f s:\n%s", t, last, o);
        last = t;
        expanding += strncmp(line, "check: expanding the schedule: ", 31) == 0;
        building += strncmp(line, "check: building the model: ", 27) == 0;
    }
    assert_true(expanding > 0 && building > 0);
    assert_string_equal(line, "verdict: OK\n");
    free(o);
    /* a graph phase whose states grow with the square of its replays
     * (about 5 s unbounded): the check without faults spends the bound,
     * and the sweep checks none */
    ces_test_put_file(path, "cesync 1\nranks 2\nsignal f u32 1\nphase graph x1000\n"
                            "r* over p : write f[0]@$p = 1\nr* : wait f[0] >= 1\n");
    snprintf(cmd, sizeof(cmd), "%s --fault-sweep --max-seconds 0.3 --progress 10 --quiet", path);
    assert_int_equal(run(cmd, &o), 3);
    line = strstr(o, "check: fault sweep: 0 of ");
    assert_non_null(line);
    assert_int_equal(sscanf(line, "check: fault sweep: 0 of %zu faults checked, %lf s\n", &faults,
                            &t), 2);
    assert_int_equal(faults, 8000);
    if (t < 0.3)
        fail_msg("%.1f s, under the bound of 0.3 s that had passed:\n%s", t, o);
    free(o);
    /* two streams on one queue: one assignment, its line after it */
    ces_test_put_file(path, "cesync 1\nranks 2\nstreams 2\nconnections 1\nsignal f u32 1\n"
                            "phase graph x1000\nr* over p : write f[0]@$p = 1\n"
                            "r* : wait f[0] >= 1\n");
    snprintf(cmd, sizeof(cmd), "%s --queue-sweep --max-seconds 0.3 --progress 0.01 --quiet",
             path);
    assert_int_equal(run(cmd, &o), 3);
    line = strstr(o, "check: queue sweep: 1 of 1 assignments checked, ");
    assert_non_null(line);
    t = strtod(line + 48, NULL);
    if (t < 0.3)
        fail_msg("%.1f s, under the bound of 0.3 s that had passed:\n%s", t, o);
    free(o);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* --max-seconds bounds a fault sweep as a whole (it gave each of its
 * checks the bound: a graph phase replayed 1,000,000 times made 28 million
 * faults of about 4.7 s each under --max-seconds 2).  Replayed 200 times,
 * the 5,600 faults of the 2-rank barrier take longer than 1 s: the sweep
 * stops there, the table holds the faults checked, one line names those
 * not checked, the totals say how many of how many, and the exit is 3. */
static void test_fault_sweep_seconds(void **state)
{
    char *o, *line, *end;
    size_t rows = 0, checked = 0, unchecked = 0, total = 0, listed = 0, incomplete = 0;
    int used = 0;

    (void)state;
    assert_int_equal(run("barrier --ranks 2 --graph --iterations 200 --fault-sweep "
                         "--max-seconds 1", &o), 3);
    assert_true(strncmp(o, "without faults: verdict: OK\n", 28) == 0);
    line = o + 28;
    if (strncmp(line, "position ", 9) == 0) /* (none checked on a slow machine: no table) */
        line = strchr(line, '\n') + 1;
    while (strncmp(line, "r", 1) == 0) { /* a row each fault checked */
        rows++;
        line = strchr(line, '\n') + 1;
    }
    assert_int_equal(sscanf(line, "not checked (the time bound had passed): %zu faults, %n",
                            &listed, &used), 1);
    assert_true(used > 0);
    end = strstr(line, " in position order\n");
    assert_non_null(end);
    assert_memory_equal(end - 19, " to r1.s0#1199 stop", 19);
    assert_non_null(strstr(end, "\nstop   2400: "));
    line = strstr(end, "\nfault sweep: ");
    assert_non_null(line);
    used = 0;
    assert_int_equal(sscanf(line, "\nfault sweep: %zu of %zu faults checked, %zu not (the time "
                                  "bound of 1 s had passed): %n",
                            &checked, &total, &unchecked, &used), 3);
    assert_true(used > 0);
    line = strstr(line + used, " tolerated (OK); ");
    assert_non_null(line);
    /* of the faults checked: the one in flight when the bound passed at
     * most, not those left unchecked */
    assert_int_equal(sscanf(line, " tolerated (OK); %zu of them incomplete", &incomplete), 1);
    assert_true(incomplete <= 1);
    assert_int_equal(total, 5600);
    assert_int_equal(checked, rows);
    assert_int_equal(listed, unchecked);
    assert_int_equal(checked + unchecked, total);
    assert_true(checked < total);
    free(o);
}

/* Runs `cesync check ARGS` as run() does, from a process of its own whose
 * only children are that command's: returns its exit code and output (in
 * *out), and in *kib the most memory it held (the largest resident set of
 * the processes it was, KiB). */
static int run_rss(const char *args, char **out, long *kib)
{
    char *buf;
    size_t len = 0;
    int fd[2], st = 0, rc = -1, used = 0;
    pid_t pid;
    FILE *f;

    assert_int_equal(pipe(fd), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rusage ru;
        char *o = NULL;
        int ec = run(args, &o);

        f = fdopen(fd[1], "w");
        if (f == NULL || getrusage(RUSAGE_CHILDREN, &ru) != 0)
            _exit(1);
        fprintf(f, "%d %ld\n%s", ec, ru.ru_maxrss, o);
        _exit(fclose(f) == 0 ? 0 : 1);
    }
    close(fd[1]);
    f = fdopen(fd[0], "r");
    assert_non_null(f);
    buf = ces_test_read_stream(f, &len);
    fclose(f);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(sscanf(buf, "%d %ld\n%n", &rc, kib, &used), 2);
    assert_true(used > 0);
    *out = malloc(len - (size_t)used + 1);
    assert_non_null(*out);
    memcpy(*out, buf + used, len - (size_t)used + 1);
    free(buf);
    return rc;
}

/* A fault sweep makes each fault as its turn comes.  It listed them all
 * before its first check, a row each, outside --max-seconds and the memory
 * bound: a graph phase replayed 1,000,000 times, whose 2-rank barrier makes
 * 28 million faults, took 4.4 s and 1.1 GB (10-11 s on a slower machine)
 * under --max-seconds 0.5, which the check without faults had spent.  Now
 * the faults not checked are counted: the same output, and the command
 * holds what that check held.  The check's model grows with the time it is
 * given (under 0.5 s a quiet machine built 565 MB of it, a busy one 70 MB),
 * the list did not: 0.1 s keeps the first well under 512 MB anywhere.  Where one more
 * row would pass the memory bound, the rest are not checked either, said
 * as the time bound's are. */
static void test_fault_sweep_unlisted(void **state)
{
    char *o = NULL;
    long kib = 0;

    (void)state;
    assert_int_equal(run_rss("barrier --ranks 2 --graph --iterations 1000000 --fault-sweep "
                             "--max-seconds 0.1", &o, &kib), 3);
    assert_string_equal(o, "without faults: verdict: INCOMPLETE\n"
                           "not checked (the time bound had passed): 28000000 faults, r0.s0#0 "
                           "drop to r1.s0#5999999 stop in position order\n"
                           "drop  8000000: 0 HANG or DEADLOCK, 0 RACE or MISMATCH, 0 OK, "
                           "8000000 not checked\n"
                           "delay 8000000: 0 HANG or DEADLOCK, 0 RACE or MISMATCH, 0 OK, "
                           "8000000 not checked\n"
                           "stop  12000000: 0 HANG or DEADLOCK, 0 RACE or MISMATCH, 0 OK, "
                           "12000000 not checked\n"
                           "fault sweep: 0 of 28000000 faults checked, 28000000 not (the time "
                           "bound of 0.1 s had passed): 0 show a HANG or DEADLOCK, 0 a RACE or "
                           "MISMATCH (a fault showing both counts in both), 0 tolerated (OK); 0 "
                           "of them incomplete\n");
    if (kib >= 512 * 1024)
        fail_msg("the sweep held %ld KiB", kib);
    free(o);
    /* 256 bytes: 7 rows of 32 (each check left 32 bytes, INCOMPLETE) */
    ces_test_tool_says("check barrier --ranks 2 --fault-sweep --max-memory 256", 3,
                       "without faults: verdict: INCOMPLETE\n"
                       "position       fault verdict                with --abort\n"
                       "r0.s0#0        drop  INCOMPLETE             INCOMPLETE\n"
                       "r0.s0#0        delay INCOMPLETE             INCOMPLETE\n"
                       "r0.s0#0        stop  INCOMPLETE             INCOMPLETE\n"
                       "r0.s0#1        stop  INCOMPLETE             INCOMPLETE\n"
                       "r1.s0#0        drop  INCOMPLETE             INCOMPLETE\n"
                       "r1.s0#0        delay INCOMPLETE             INCOMPLETE\n"
                       "r1.s0#0        stop  INCOMPLETE             INCOMPLETE\n"
                       "not checked (the memory bound had been reached): 1 fault, r1.s0#1 stop "
                       "to r1.s0#1 stop in position order\n"
                       "drop      2: 0 HANG or DEADLOCK, 0 RACE or MISMATCH, 0 OK\n"
                       "delay     2: 0 HANG or DEADLOCK, 0 RACE or MISMATCH, 0 OK\n"
                       "stop      4: 0 HANG or DEADLOCK, 0 RACE or MISMATCH, 0 OK, 1 not "
                       "checked\n"
                       "fault sweep: 7 of 8 faults checked, 1 not (the memory bound of 256 "
                       "bytes had been reached): 0 show a HANG or DEADLOCK, 0 a RACE or "
                       "MISMATCH (a fault showing both counts in both), 0 tolerated (OK); 7 of "
                       "them incomplete\n");
}

/* Whether `line` is, to its newline, a progress line of a search exactly
 * as the tool writes it: "check: WHAT N states, N transitions, N end
 * states, S s, R states/s, M MiB". */
static bool search_line(const char *line, const char *what)
{
    char want[512];
    unsigned long long states, moves, ends;
    double s, rate, mib;
    size_t at = 7 + strlen(what);

    if (strncmp(line, "check: ", 7) != 0 || strncmp(line + 7, what, strlen(what)) != 0 ||
        sscanf(line + at, "%llu %*[a-z], %llu %*[a-z], %llu %*[a-z ], %lf s, %lf states/s, %lf MiB",
               &states, &moves, &ends, &s, &rate, &mib) != 6)
        return false;
    snprintf(want, sizeof(want), "check: %s%llu state%s, %llu transition%s, %llu end state%s, "
             "%.1f s, %.0f states/s, %.1f MiB\n", what, states, states == 1 ? "" : "s", moves,
             moves == 1 ? "" : "s", ends, ends == 1 ? "" : "s", s, rate, mib);
    return strncmp(line, want, strlen(want)) == 0;
}

/* Whether `line` is, to its newline, the line of a sweep (`kind`: "fault"
 * or "queue") of `total` faults or assignments, exactly: "check: fault
 * sweep: N of T faults checked, S s". */
static bool sweep_line(const char *line, const char *kind, unsigned total)
{
    char want[256], form[128];
    unsigned done;
    double s;

    snprintf(form, sizeof(form), "check: %s sweep: %%u of %u %s checked, %%lf s", kind, total,
             strcmp(kind, "fault") == 0 ? "faults" : "assignments");
    if (sscanf(line, form, &done, &s) != 2)
        return false;
    snprintf(want, sizeof(want), "check: %s sweep: %u of %u %s checked, %.1f s\n", kind, done,
             total, strcmp(kind, "fault") == 0 ? "faults" : "assignments", s);
    return strncmp(line, want, strlen(want)) == 0;
}

/* The checks of the sweeps have the check's progress lines, saying whose:
 * a fault sweep's check without faults "check: without faults: ...", a
 * queue sweep's of an assignment "check: --queues MAP: ..." (they printed
 * none: 2 ranks of 300,000 replays of a write said nothing for 2.2 s,
 * then the sweep's first line); the
 * output stays what it was but for those lines, each exactly the
 * check's, in their place. */
static void test_sweep_check_progress(void **state)
{
    static const char *const maps[4] = {"0,0", "0,0/0,1", "0,1/0,0", "0,1"};
    char *dir = ces_test_tmpdir(), path[256], cmd[320], what[256], *o, *line;
    int n;

    (void)state;
    assert_int_equal(run("barrier --ranks 2 --fault-sweep --quiet --progress 0.000001", &o), 0);
    for (n = 0, line = o; search_line(line, "without faults: "); n++)
        line = strchr(line, '\n') + 1;
    assert_true(n > 0);
    assert_true(strncmp(line, "without faults: verdict: OK\n", 28) == 0);
    for (n = 0, line += 28; sweep_line(line, "fault", 8); n++)
        line = strchr(line, '\n') + 1;
    assert_true(n > 0);
    assert_string_equal(line, "fault sweep: 8 faults: 6 show a HANG or DEADLOCK, 0 a RACE or "
                              "MISMATCH (a fault showing both counts in both), 2 tolerated (OK); "
                              "0 of them incomplete\n");
    free(o);
    /* two streams of each rank, the wait enqueued before the write it
     * needs: on one queue a DEADLOCK, said before the next check's lines */
    snprintf(path, sizeof(path), "%s/queued.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 2\nstreams 2\nsignal f u32 1\nphase eager x1\n"
                            "r* s0 : wait f[0] >= 1\nr* s1 : write f[0] = 1\n");
    snprintf(cmd, sizeof(cmd), "%s --queue-sweep --progress 0.000001", path);
    assert_int_equal(run(cmd, &o), 1);
    snprintf(what, sizeof(what), "queue sweep: 4 assignments of each rank's 2 streams to at "
             "most 2 hardware queues\n");
    assert_true(strncmp(o, what, strlen(what)) == 0);
    line = o + strlen(what);
    for (int i = 0; i < 4; i++) {
        snprintf(what, sizeof(what), "--queues %s: ", maps[i]);
        for (n = 0; search_line(line, what); n++)
            line = strchr(line, '\n') + 1;
        /* (the first deadlocks before its first transition, the search's
         * first look at the clock) */
        assert_true(i == 0 || n > 0);
        if (i < 3) {
            snprintf(what, sizeof(what), "  --queues %-24s verdict: DEADLOCK\n", maps[i]);
            assert_true(strncmp(line, what, strlen(what)) == 0);
            line += strlen(what);
        }
        assert_true(sweep_line(line, "queue", 4));
        line = strchr(line, '\n') + 1;
    }
    /* (then the report, whose statistics say the seconds) */
    snprintf(what, sizeof(what), "queue sweep: 4 assignments: 1 OK, 3 DEADLOCK or HANG, 0 RACE "
             "or MISMATCH only, 0 incomplete\n\nthe first that fails, --queues 0,0:\nverdict: "
             "DEADLOCK\n");
    assert_true(strncmp(line, what, strlen(what)) == 0);
    free(o);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* The model's building, before the search, has progress lines of its own
 * at the asked interval: a million unrolled ops (about 0.1 s to build)
 * printed nothing until the search's first line (a graph of 80 million
 * printed nothing for 20 s).  Each says how many ops there are to unroll,
 * how many are unrolled of how many, or that all are, what it does with
 * them after, the seconds and the memory; every one comes before the
 * search's first.  A first look at the clock after the time bound (a slow
 * or loaded machine) says its line before it stops: it said none, the
 * bound judged first. */
static void test_build_progress(void **state)
{
    char *dir = ces_test_tmpdir(), path[256], cmd[320], *o, *line, *v;
    unsigned long long done, total;
    int lines = 0, at = 0;
    bool searching = false;

    (void)state;
    snprintf(path, sizeof(path), "%s/graph.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 2\nsignal f u32 1\nphase graph x500000\n"
                            "r* : write f[0] = 1\n");
    snprintf(cmd, sizeof(cmd), "%s --quiet --progress 0.002", path);
    assert_int_equal(run(cmd, &o), 0);
    v = strstr(o, "verdict: OK\n");
    assert_non_null(v);
    assert_string_equal(v, "verdict: OK\n");
    for (line = o; line < v; line = strchr(line, '\n') + 1) {
        const char *end = strchr(line, '\n'), *rest;

        if (strncmp(line, "check: building the model: ", 27) != 0) {
            /* the search's lines, after the building's */
            assert_true(lines > 0);
            assert_true(strncmp(line, "check: ", 7) == 0);
            assert_non_null(strstr(line, " states, "));
            searching = true;
            continue;
        }
        assert_false(searching);
        /* the ops counted, to unroll, being unrolled, unrolled */
        line += 27;
        at = 0;
        if (strncmp(line, "counting the ops", 16) == 0) {
            at = 16;
        } else {
            /* (%n is set only where the whole form matched) */
            (void)sscanf(line, "%llu of %llu ops unrolled%n", &done, &total, &at);
            if (at > 0) {
                assert_true(done < total);
            } else {
                (void)sscanf(line, "%llu ops to unroll%n", &total, &at);
                if (at == 0)
                    (void)sscanf(line, "%llu ops unrolled%n", &total, &at);
                assert_true(at > 0);
            }
            assert_true(total == 1000000);
        }
        rest = line + at;
        assert_true(rest[0] == ',');
        assert_memory_equal(end - 4, " MiB", 4); /* ", S s, M MiB" last */
        assert_non_null(strstr(rest, " s, "));
        lines++;
    }
    assert_true(lines >= 2);
    assert_true(strncmp(o, "check: building the model: ", 27) == 0);
    free(o);
    assert_int_equal(remove(path), 0);
    /* 64,000 ops, fewer than the expansion makes before its first look:
     * the bound passes before the building's first */
    snprintf(path, sizeof(path), "%s/mid.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 16\nsignal f u32 1\nphase eager x4000\n"
                            "r* : write f[0] = $i\n");
    snprintf(cmd, sizeof(cmd), "%s --max-seconds 0.001 --progress 0.001", path);
    assert_int_equal(run(cmd, &o), 3);
    assert_true(strncmp(o, "check: building the model: 64000 ops unrolled, ", 47) == 0);
    line = strchr(o, '\n') + 1;
    assert_true(strncmp(line, "verdict: INCOMPLETE\ncoverage: the bound on time stopped the "
                              "search after 0 states\n", 82) == 0);
    free(o);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* --dot's file is checked before the search: a usage error (exit 2) and no
 * verdict, instead of a verdict and then exit 2 in place of its own code. */
static void test_dot_path_checked_first(void **state)
{
    char *dir = ces_test_tmpdir(), args[256], want[256], *o;

    (void)state;
    assert_int_equal(run("alltoall --ranks 2 --dot out.txt", &o), 2);
    assert_string_equal(o, "cesync: check: --dot out.txt: the name must end in .dot, .svg or "
                           ".png\n");
    free(o);
    /* a directory not there, or a file in its place, said as every
     * output's (it said "/nonexistent is not a directory") */
    assert_int_equal(run("alltoall --ranks 2 --dot /nonexistent/x.svg", &o), 2);
    assert_string_equal(o, "cesync: check: cannot create /nonexistent/x.svg: No such file or "
                           "directory\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --dot /nonexistent/x.png", &o), 2);
    assert_string_equal(o, "cesync: check: cannot create /nonexistent/x.png: No such file or "
                           "directory\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --dot /dev/null/x.dot", &o), 2);
    assert_string_equal(o, "cesync: check: cannot create /dev/null/x.dot: Not a directory\n");
    free(o);
    /* a file in the root directory: its directory is "/" (without dot on
     * PATH, what is said next) */
    assert_int_equal(ces_test_tool_env(NULL, "PATH=/nonexistent-dir",
                                       "check alltoall --ranks 2 --dot /x.svg", &o), 2);
    assert_string_equal(o, "cesync: check: --dot /x.svg: Graphviz 'dot' is not installed "
                           "(not found on PATH); install graphviz or write a .dot file\n");
    free(o);
    snprintf(args, sizeof(args), "alltoall --ranks 2 --dot %s/none/x.dot", dir);
    snprintf(want, sizeof(want), "cesync: check: cannot create %s/none/x.dot: No such file or "
             "directory\n", dir);
    assert_int_equal(run(args, &o), 2);
    assert_string_equal(o, want);
    free(o);
    /* a directory in the way of the file */
    snprintf(args, sizeof(args), "%s/d.dot", dir);
    assert_int_equal(mkdir(args, 0700), 0);
    snprintf(args, sizeof(args), "alltoall --ranks 2 --dot %s/d.dot", dir);
    snprintf(want, sizeof(want), "cesync: check: cannot write %s/d.dot: Is a directory\n", dir);
    assert_int_equal(run(args, &o), 2);
    assert_string_equal(o, want);
    free(o);
    snprintf(args, sizeof(args), "%s/d.dot", dir);
    rmdir(args);
    /* a name the file system refuses (longer than NAME_MAX) */
    {
        char name[301], big[600], bigwant[700];

        memset(name, 'a', 296);
        memcpy(name + 296, ".dot", 5);
        snprintf(big, sizeof(big), "alltoall --ranks 2 --dot %s/%s", dir, name);
        snprintf(bigwant, sizeof(bigwant), "cesync: check: cannot create %s/%s: %s\n", dir,
                 name, strerror(ENAMETOOLONG));
        assert_int_equal(run(big, &o), 2);
        assert_string_equal(o, bigwant);
        free(o);
    }
    /* a good name: the check's own exit code, then the picture */
    snprintf(args, sizeof(args), "barrier --ranks 2 --sync nccl --graph --iterations 2 --quiet "
             "--dot %s/cx.dot", dir);
    snprintf(want, sizeof(want), "verdict: HANG\ncesync: wrote %s/cx.dot (the first "
             "counterexample over the schedule)\n", dir);
    assert_int_equal(run(args, &o), 1);
    assert_string_equal(o, want);
    free(o);
    snprintf(args, sizeof(args), "%s/cx.dot", dir);
    remove(args);
    rmdir(dir);
}

/* Puts a `dot` that runs `script` in DIR/bin and that directory first on
 * PATH, before `saved` (the PATH to give back; the usual where none). */
static void stand_in_dot_first(const char *dir, const char *script, const char *saved)
{
    char bin[256], path[600];

    snprintf(bin, sizeof(bin), "%s/bin", dir);
    ces_test_put_program(bin, "dot", script);
    snprintf(path, sizeof(path), "%s:%s", bin, saved != NULL ? saved : "/usr/bin:/bin");
    assert_int_equal(setenv("PATH", path, 1), 0);
}

/* `cesync check ARGS` with a `dot` first on PATH that runs `script` (its
 * directory bin under dir), run by a shell in its own place after the
 * commands `before` ("" none). */
static int run_stand_in_dot(const char *dir, const char *script, const char *before,
                            const char *args, char **out)
{
    char path[300], cmd[1024], env[512];
    char *saved = strdup(getenv("PATH") != NULL ? getenv("PATH") : "/bin");
    int rc;

    assert_non_null(saved);
    stand_in_dot_first(dir, script, saved);
    snprintf(cmd, sizeof(cmd), "check %s", args);
    snprintf(env, sizeof(env), "%s%s", before, *before != '\0' ? "; exec" : "");
    rc = ces_test_tool_env(NULL, env, cmd, out);
    assert_int_equal(setenv("PATH", saved, 1), 0);
    free(saved);
    snprintf(path, sizeof(path), "%s/bin/dot", dir);
    assert_int_equal(remove(path), 0);
    snprintf(path, sizeof(path), "%s/bin", dir);
    assert_int_equal(rmdir(path), 0);
    return rc;
}

/* `cesync check ARGS` with a `dot` first on PATH that draws nothing and
 * exits 3 (its directory bin under dir). */
static int run_failing_dot(const char *dir, const char *args, char **out)
{
    return run_stand_in_dot(dir, "#!/bin/sh\nexit 3\n", "", args, out);
}

/* A picture that cannot be drawn after the search (dot fails) leaves the
 * report standing: a defect found is exit 1 (it was 2), said with why the
 * picture is missing; without a defect the missing picture is exit 2,
 * which the help's exit line names. */
static void test_dot_fails_after_search(void **state)
{
    char *dir = ces_test_tmpdir(), args[256], want[512], *o;

    (void)state;
    snprintf(args, sizeof(args), "barrier --ranks 2 --sync nccl --graph --iterations 2 --quiet "
             "--dot %s/cx.svg", dir);
    snprintf(want, sizeof(want), "verdict: HANG\ncesync: check: --dot %s/cx.svg: dot -Tsvg "
             "failed drawing %s/cx.svg (exit status 3)\n", dir, dir);
    assert_int_equal(run_failing_dot(dir, args, &o), 1);
    assert_string_equal(o, want);
    free(o);
    snprintf(args, sizeof(args), "alltoall --ranks 2 --quiet --dot %s/ok.svg", dir);
    snprintf(want, sizeof(want), "verdict: OK\ncesync: check: --dot %s/ok.svg: dot -Tsvg "
             "failed drawing %s/ok.svg (exit status 3)\n", dir, dir);
    assert_int_equal(run_failing_dot(dir, args, &o), 2);
    assert_string_equal(o, want);
    free(o);
    assert_int_equal(rmdir(dir), 0);
    /* the help's exit line names that 2 (it said "2 bad usage or input"),
     * and when, as docs/CLI.md does (it left out "after a search that
     * found no defect") */
    assert_int_equal(run("--help", &o), 0);
    assert_non_null(strstr(o, "\nExit: 0 OK, 1 a defect found, 2 bad usage or input (or a --dot "
                              "picture that fails\nafter a search that found no defect), 3 "
                              "INCOMPLETE with no defect found.\n"));
    free(o);
}

/* --max-seconds holds --dot's picture too: where the search has spent the
 * bound (a graph phase of 3,000 replays, whose states grow with their
 * square: far past 0.3 s on any machine) the picture is not drawn, a line
 * says so, exit 3 (1 where the search found a defect), and nothing is
 * left in the directory; a .svg's Graphviz (here a stand-in that fails)
 * is not run.  It was drawn whole after the search, unbounded: 16 ranks
 * of 'phase eager x100000' wrote 366 MiB of dot text until 15.2 s under
 * --max-seconds 2. */
static void test_dot_time_bound(void **state)
{
    char *dir = ces_test_tmpdir(), sq[256], args[640], want[640], *o;
    static const char *const ext[2] = {"dot", "svg"};

    (void)state;
    snprintf(sq, sizeof(sq), "%s/sq.ces", dir);
    ces_test_put_file(sq, "cesync 1\nranks 2\nsignal f u32 1\nphase graph x3000\n"
                          "r* over p : write f[0]@$p = 1\nr* : wait f[0] >= 1\n");
    for (int e = 0; e < 2; e++) {
        snprintf(args, sizeof(args), "%s --max-seconds 0.3 --quiet --dot %s/x.%s", sq, dir,
                 ext[e]);
        snprintf(want, sizeof(want), "verdict: INCOMPLETE\ncesync: check: --dot %s/x.%s not "
                 "written: the time bound of 0.3 s had passed before it was drawn\n", dir,
                 ext[e]);
        assert_int_equal(e == 0 ? run(args, &o) : run_failing_dot(dir, args, &o), 3);
        assert_string_equal(o, want);
        free(o);
    }
    assert_int_equal(remove(sq), 0);
    assert_int_equal(rmdir(dir), 0); /* (nothing else there) */
}

/* 2 ranks writing one slot 3,000 times each: a search that ends at once
 * (766 KiB) and 1.4 MB of dot text, for the picture's bounds. */
static const char six_thousand_writes[] = "cesync 1\nranks 2\nsignal f u32 1\n"
                                          "phase eager x3000\nr* : write f[0] = $i\n";

/* --max-memory holds --dot's picture too, its dot text and the tables
 * that make it: 2 ranks' 6,000 writes, whose search holds 766 KiB, draw
 * 1.4 MB of text, which a bound of 1 MiB refuses: the verdict, a line
 * saying so, exit 3, and nothing left in the directory (for x.svg no
 * Graphviz run: here a stand-in that fails, which would say so).  It was
 * written whatever the bound (16 ranks of 'phase eager x30000' wrote
 * 109 MiB under --max-memory 50M, 172 MB held at most). */
static void test_dot_memory_bound(void **state)
{
    char *dir = ces_test_tmpdir(), sch[256], args[640], want[640], *o;
    static const char *const ext[2] = {"dot", "svg"};

    (void)state;
    snprintf(sch, sizeof(sch), "%s/w.ces", dir);
    ces_test_put_file(sch, six_thousand_writes);
    for (int e = 0; e < 2; e++) {
        snprintf(args, sizeof(args), "%s --max-memory 1M --quiet --dot %s/x.%s", sch, dir,
                 ext[e]);
        snprintf(want, sizeof(want), "verdict: OK\ncesync: check: --dot %s/x.%s not written: "
                 "its text and tables would pass the memory bound of 1.0 MiB\n", dir, ext[e]);
        assert_int_equal(e == 0 ? run(args, &o) : run_failing_dot(dir, args, &o), 3);
        assert_string_equal(o, want);
        free(o);
    }
    assert_int_equal(remove(sch), 0);
    assert_int_equal(rmdir(dir), 0); /* (nothing else there) */
}

/* --max-memory holds Graphviz too: a .svg's dot runs with its data segment
 * (RLIMIT_DATA) bounded by what the dot text leaves of the bound, and one
 * that fails out of it is the memory bound stopping the picture: a line
 * says so, exit 3, nothing left.  A stand-in dot that writes its `ulimit
 * -d` and dies of SIGSEGV holding a few KiB saw a bound within 1 MiB below
 * the 64 MiB, its failure said as any dot's, exit 2 (it saw none); and
 * where Graphviz is installed, 2 ranks' 3,000 writes, whose layout takes
 * about 270 MB and 12 s, are not drawn under --max-memory 64M, Graphviz
 * ending in about a second (they were drawn whatever the bound, exit 0).
 * Under a bound that leaves less, Graphviz gets the floor that its
 * threads' stacks need (ces_dot_memory_floor), so the smallest pictures
 * draw under --max-memory 32M (GLib aborted creating a thread: signal 5,
 * exit 2) and the 3,000 writes are said as the bound's.  The help's line
 * of --max-memory says it. */
static void test_dot_graphviz_memory(void **state)
{
    char *dir = ces_test_tmpdir(), sch[256], args[640], want[1024], *o, *said;
    unsigned long long kib;

    (void)state;
    snprintf(args, sizeof(args), "#!/bin/sh\nulimit -d > %s/limit\nkill -SEGV $$\n", dir);
    snprintf(sch, sizeof(sch), "barrier --ranks 2 --max-memory 64M --quiet --dot %s/x.svg",
             dir);
    assert_int_equal(run_stand_in_dot(dir, args, "", sch, &o), 2);
    snprintf(want, sizeof(want), "verdict: OK\ncesync: check: --dot %s/x.svg: dot -Tsvg failed "
             "drawing %s/x.svg (signal %d)\n", dir, dir, SIGSEGV);
    assert_string_equal(o, want);
    free(o);
    snprintf(sch, sizeof(sch), "%s/limit", dir);
    said = ces_test_read_file(sch, NULL);
    if (sscanf(said, "%llu", &kib) != 1 || kib > 64 * 1024 || kib < 63 * 1024)
        fail_msg("the stand-in's ulimit -d: %s", said);
    free(said);
    assert_int_equal(remove(sch), 0);
#ifndef CHECK_TOOL_ASAN
    /* a soft limit below the bound, the command's own, is Graphviz's too
     * (it was raised to the bound) */
    snprintf(sch, sizeof(sch), "barrier --ranks 2 --max-memory 64M --quiet --dot %s/x.svg",
             dir);
    assert_int_equal(run_stand_in_dot(dir, args, "ulimit -S -d 40960", sch, &o), 2);
    assert_string_equal(o, want);
    free(o);
    snprintf(sch, sizeof(sch), "%s/limit", dir);
    said = ces_test_read_file(sch, NULL);
    assert_string_equal(said, "40960\n");
    free(said);
    assert_int_equal(remove(sch), 0);
#endif
    /* a bound that leaves Graphviz less than its floor, 16 MiB and four
     * threads' stacks (RLIMIT_STACK's, 8 MiB where it has none), gives it
     * the floor: it was given 8 MiB less the dot text */
    snprintf(sch, sizeof(sch), "barrier --ranks 2 --max-memory 8M --quiet --dot %s/x.svg", dir);
    assert_int_equal(run_stand_in_dot(dir, args, "", sch, &o), 2);
    assert_string_equal(o, want);
    free(o);
    snprintf(sch, sizeof(sch), "%s/limit", dir);
    said = ces_test_read_file(sch, NULL);
    {
        struct rlimit rl;
        unsigned long long stack = 8ull << 20;

        if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            stack = (unsigned long long)rl.rlim_cur;
        if (sscanf(said, "%llu", &kib) != 1 || kib != ((16ull << 20) + 4 * stack) / 1024)
            fail_msg("the stand-in's ulimit -d under 8M: %s", said);
    }
    free(said);
    assert_int_equal(remove(sch), 0);
    if (system("command -v dot >/dev/null 2>&1") == 0) {
        static const char end[] = " of memory that the bound of 64.0 MiB left it beside the dot "
                                  "text\n";
        static const char *const small[3] = {"alltoall", "barrier --ranks 2", NULL};
        static const char *const ext[2] = {"png", "svg"};

        /* the smallest pictures draw under a small bound (GLib aborted,
         * SIGTRAP, creating a thread whose 8 MiB stack the data segment
         * counts whole: "dot -Tpng failed drawing x.png (signal 5)", exit
         * 2); a .ces file's too */
        snprintf(sch, sizeof(sch), "%s/s.ces", dir);
        ces_test_put_file(sch, "cesync 1\nranks 2\nsignal f u32 1\nphase eager x2\n"
                               "r* : write f[0] = $i\nr* : wait f[0] >= 1\n");
        for (int k = 0; k < 3; k++)
            for (int e = 0; e < 2; e++) {
                snprintf(args, sizeof(args), "%s --max-memory 32M --quiet --dot %s/x.%s",
                         small[k] != NULL ? small[k] : sch, dir, ext[e]);
                snprintf(want, sizeof(want), "verdict: OK\ncesync: wrote %s/x.%s (the "
                         "schedule)\n", dir, ext[e]);
                assert_int_equal(run(args, &o), 0);
                assert_string_equal(o, want);
                free(o);
                snprintf(args, sizeof(args), "%s/x.%s", dir, ext[e]);
                assert_int_equal(remove(args), 0);
            }
        assert_int_equal(remove(sch), 0);

        snprintf(sch, sizeof(sch), "%s/w.ces", dir);
        ces_test_put_file(sch, "cesync 1\nranks 2\nsignal f u32 1\nphase eager x1500\n"
                               "r* : write f[0] = $i\n");
        snprintf(args, sizeof(args), "%s --max-memory 64M --quiet --dot %s/y.svg", sch, dir);
        assert_int_equal(run(args, &o), 3);
        snprintf(want, sizeof(want), "cesync: check: --dot %s/y.svg not written: Graphviz ran "
                 "out of the ", dir);
        if (strstr(o, want) == NULL || strlen(o) < sizeof(end) ||
            strcmp(o + strlen(o) - (sizeof(end) - 1), end) != 0)
            fail_msg("it said:\n%s", o);
        free(o);
        /* and where the floor does not hold the picture, the bound says so
         * (as the bound's, exit 3) */
        snprintf(args, sizeof(args), "%s --max-memory 32M --quiet --dot %s/y.png", sch, dir);
        assert_int_equal(run(args, &o), 3);
        snprintf(want, sizeof(want), "cesync: check: --dot %s/y.png not written: Graphviz ran "
                 "out of the ", dir);
        if (strstr(o, want) == NULL ||
            strstr(o, " of memory that it gets however small the bound (of 32.0 MiB)\n") == NULL)
            fail_msg("it said:\n%s", o);
        free(o);
        assert_int_equal(remove(sch), 0);
    }
    assert_int_equal(rmdir(dir), 0); /* (nothing else there) */
    /* and the help's line of the bound says so, as --max-seconds' says
     * that it holds the picture (it gave the suffixes and default alone) */
    assert_int_equal(run("--help", &o), 0);
    assert_non_null(strstr(o, "\n  --max-memory BYTES  K/M/G, --dot's Graphviz included, which "
                              "gets 16 MiB and four\n                      thread stacks at least "
                              "(48 MiB under ulimit -s 8M, 80 MiB at\n                      most; "
                              "default half of this machine's memory; 0: no bound)\n"));
    free(o);
}

/* The floor counts a thread's stack 16 MiB at most: under a larger
 * ulimit -s it grew with it (ulimit -s 1G: Graphviz got 4 GiB and 16 MiB
 * of data under --max-memory 8M, and 2 ranks' 3,000 writes drew under
 * --max-memory 32M holding 500 MB), so Graphviz gets 80 MiB and, where
 * the bound cannot hold four of its stacks, a ulimit -s of 8 MiB (its
 * threads could not be made: GLib aborted, signal 5; with 16 MiB, more of
 * Pango's threads alive at once under load failed the smallest picture
 * below 1 run in 30); a bound that holds
 * them leaves ulimit -s as it was.  Skipped where the hard limit keeps
 * the stack under 1 GiB. */
static void test_dot_memory_floor_stack(void **state)
{
    static const char big[] = "ulimit -S -s 1048576";
    char *dir = ces_test_tmpdir(), sch[256], args[640], want[1024], *o, *said;
    unsigned long long kib, stack;
    struct rlimit rl;

    (void)state;
    if (getrlimit(RLIMIT_STACK, &rl) != 0 ||
        (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < ((rlim_t)1 << 30))) {
        assert_int_equal(rmdir(dir), 0);
        skip();
    }
    snprintf(args, sizeof(args), "#!/bin/sh\n{ ulimit -d; ulimit -s; } > %s/limit\nkill -SEGV $$\n",
             dir);
    for (int k = 0; k < 2; k++) {
        snprintf(sch, sizeof(sch), "barrier --ranks 2 --max-memory %s --quiet --dot %s/x.svg",
                 k == 0 ? "8M" : "8G", dir);
        assert_int_equal(run_stand_in_dot(dir, args, big, sch, &o), 2);
        snprintf(want, sizeof(want), "verdict: OK\ncesync: check: --dot %s/x.svg: dot -Tsvg "
                 "failed drawing %s/x.svg (signal %d)\n", dir, dir, SIGSEGV);
        assert_string_equal(o, want);
        free(o);
        snprintf(sch, sizeof(sch), "%s/limit", dir);
        said = ces_test_read_file(sch, NULL);
        /* 8M: the floor, 16 MiB and four stacks of 16 MiB, and a ulimit -s
         * of 8 MiB; 8G: what the text leaves of it, the stack kept */
        if (sscanf(said, "%llu %llu", &kib, &stack) != 2 ||
            (k == 0 && (kib != 80 * 1024 || stack != 8 * 1024)) ||
            (k == 1 && (kib < 8 * 1024 * 1024 - 8 * 1024 || stack != 1024 * 1024)))
            fail_msg("the stand-in's ulimit -d and -s under %s: %s", k == 0 ? "8M" : "8G",
                     said);
        free(said);
        assert_int_equal(remove(sch), 0);
    }
    if (system("command -v dot >/dev/null 2>&1") == 0) {
        /* the smallest picture draws; the 3,000 writes are the bound's */
        snprintf(args, sizeof(args), "check barrier --ranks 2 --max-memory 32M --quiet --dot "
                 "%s/x.png", dir);
        snprintf(want, sizeof(want), "verdict: OK\ncesync: wrote %s/x.png (the schedule)\n", dir);
        assert_int_equal(ces_test_tool_env(NULL, "ulimit -S -s 1048576; exec", args, &o), 0);
        assert_string_equal(o, want);
        free(o);
        snprintf(args, sizeof(args), "%s/x.png", dir);
        assert_int_equal(remove(args), 0);
        snprintf(sch, sizeof(sch), "%s/w.ces", dir);
        ces_test_put_file(sch, "cesync 1\nranks 2\nsignal f u32 1\nphase eager x1500\n"
                               "r* : write f[0] = $i\nr* : wait f[0] >= 1\n");
        snprintf(args, sizeof(args), "check %s --max-memory 32M --quiet --dot %s/y.svg", sch,
                 dir);
        assert_int_equal(ces_test_tool_env(NULL, "ulimit -S -s 1048576; exec", args, &o), 3);
        if (strstr(o, "Graphviz ran out of the 80.0 MiB of memory that it gets however small "
                      "the bound (of 32.0 MiB)\n") == NULL)
            fail_msg("it said:\n%s", o);
        free(o);
        assert_int_equal(remove(sch), 0);
    }
    assert_int_equal(rmdir(dir), 0);
}

/* A dot that fails under --max-memory for another reason than memory is
 * said as any dot that fails, however large this process or a child
 * before it: a stand-in dot that exits 3 at once, from a check of 2
 * ranks' 20,000 writes whose dot text holds 8 of --max-memory 12M (a
 * child counts as its own the 10 MB this process held as it forked), and
 * from a check that its shell runs in its own place after a child of 64
 * MiB (dd bs=64M), was said as Graphviz out of the memory the bound left
 * it, exit 3: the children's peak was taken for the dot's. */
static void test_dot_graphviz_not_memory(void **state)
{
    static const char fails[] = "#!/bin/sh\nexit 3\n";
    char *dir = ces_test_tmpdir(), sch[256], args[640], want[1024], *o;
    size_t n;

    (void)state;
    snprintf(sch, sizeof(sch), "%s/w.ces", dir);
    ces_test_put_file(sch, "cesync 1\nranks 2\nsignal f u32 1\nphase eager x10000\n"
                           "r* : write f[0] = $i\n");
    snprintf(want, sizeof(want), "verdict: OK\ncesync: check: --dot %s/x.svg: dot -Tsvg failed "
             "drawing %s/x.svg (exit status 3)\n", dir, dir);
    /* (after the line that says how long Graphviz may take) */
    snprintf(args, sizeof(args), "%s --max-memory 12M --quiet --dot %s/x.svg", sch, dir);
    assert_int_equal(run_stand_in_dot(dir, fails, "", args, &o), 2);
    n = strlen(o);
    if (n < strlen(want) || strcmp(o + n - strlen(want), want) != 0)
        fail_msg("it said:\n%s", o);
    free(o);
    snprintf(args, sizeof(args), "barrier --ranks 2 --max-memory 64M --quiet --dot %s/x.svg",
             dir);
    assert_int_equal(run_stand_in_dot(dir, fails, "dd if=/dev/zero of=/dev/null bs=64M count=1 "
                                      "2>/dev/null", args, &o), 2);
    assert_string_equal(o, want);
    free(o);
    assert_int_equal(remove(sch), 0);
    assert_int_equal(rmdir(dir), 0); /* (nothing else there) */
}

/* With --json, a picture that a bound stopped is said in the object,
 * "dot_bound" ("memory" here, "time" for --max-seconds' bound), after
 * the check's own "complete":true, which the search proved, and the
 * picture's line after the object, exit 3 as the text's; it said
 * "complete":true alone, exit 3.  A picture written adds nothing. */
static void test_dot_bound_json(void **state)
{
    char *dir = ces_test_tmpdir(), sch[256], link[256], args[640], want[640], *o, *end;

    (void)state;
    snprintf(sch, sizeof(sch), "%s/w.ces", dir);
    ces_test_put_file(sch, six_thousand_writes);
    snprintf(args, sizeof(args), "%s --max-memory 1M --json --dot %s/x.dot", sch, dir);
    assert_int_equal(run(args, &o), 3);
    assert_non_null(strstr(o, "{\"verdict\":\"OK\",\"bits\":0,\"mode\":\"exhaustive\","
                              "\"complete\":true,\"proof\":true,"));
    end = strstr(o, "\"defects\":[]");
    assert_non_null(end);
    snprintf(want, sizeof(want), "\"defects\":[],\"dot_bound\":\"memory\"}\ncesync: check: "
             "--dot %s/x.dot not written: its text and tables would pass the memory bound of "
             "1.0 MiB\n", dir);
    assert_string_equal(end, want);
    free(o);
    snprintf(args, sizeof(args), "%s --json --dot %s/x.dot", sch, dir);
    assert_int_equal(run(args, &o), 0);
    snprintf(want, sizeof(want), "\"defects\":[]}\ncesync: wrote %s/x.dot (the schedule)\n",
             dir);
    end = strstr(o, "\"defects\":[]");
    assert_non_null(end);
    assert_string_equal(end, want);
    free(o);
    snprintf(args, sizeof(args), "%s/x.dot", dir);
    assert_int_equal(remove(args), 0);
    /* a picture drawn to standard output itself (a link to /dev/stdout)
     * follows the object, as before (its text came first) */
    snprintf(link, sizeof(link), "%s/o.dot", dir);
    assert_int_equal(symlink("/dev/stdout", link), 0);
    snprintf(args, sizeof(args), "barrier --ranks 2 --json --dot %s", link);
    assert_int_equal(run(args, &o), 0);
    assert_memory_equal(o, "{\"verdict\":\"OK\",", 14);
    assert_non_null(strstr(o, "\"defects\":[]}\ndigraph cesync {\n"));
    snprintf(want, sizeof(want), "}\ncesync: wrote %s (the schedule)\n", link);
    assert_string_equal(strrchr(o, '}'), want);
    free(o);
    assert_int_equal(remove(link), 0);
    assert_int_equal(remove(sch), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* With --json, dot text of 16 MiB or more is announced on stderr before it
 * is written, and so before the object (the picture is drawn first), while
 * standard output holds the object alone, one line: 2 ranks' 80,000
 * writes draw 18 MiB.  (Checked, not changed: the notice went to stderr.) */
static void test_dot_note_json_streams(void **state)
{
    char *dir = ces_test_tmpdir(), sch[256], args[640], err[256], want[640], *o, *e;

    (void)state;
    snprintf(sch, sizeof(sch), "%s/w.ces", dir);
    ces_test_put_file(sch, "cesync 1\nranks 2\nsignal f u32 1\nphase eager x40000\n"
                           "r* : write f[0] = $i\n");
    snprintf(err, sizeof(err), "%s/err.txt", dir);
    /* (the 2>&1 after the command then the exit's) */
    snprintf(args, sizeof(args), "%s --json --dot %s/big.dot 2>%s; exit $?", sch, dir, err);
    assert_int_equal(run(args, &o), 0);
    assert_memory_equal(o, "{\"verdict\":\"OK\",", 14);
    assert_ptr_equal(strchr(o, '\n'), o + strlen(o) - 1);
    assert_string_equal(strstr(o, "\"defects\":[]"), "\"defects\":[]}\n");
    free(o);
    e = ces_test_read_file(err, NULL);
    snprintf(want, sizeof(want), "cesync: check: writing 18 MiB of dot text (80000 ops) to "
             "%s/big.dot; fewer iterations or ranks draw less\ncesync: wrote %s/big.dot (the "
             "schedule)\n", dir, dir);
    assert_string_equal(e, want);
    free(e);
    ces_test_remove_in(dir, "big.dot\0err.txt\0w.ces\0");
}

/* --max-seconds holds a --dot into a named pipe too: one whose reader
 * never reads (it holds the pipe open 20 s) takes the first 64 KiB of the
 * 1.4 MB of dot text and then no more, and one that no reader opens
 * (until 20 s have passed: it opens and closes it then) takes none; the
 * picture's write stops at the bound of 2 s, which the search of 2 ranks'
 * 6,000 writes ends far from on any machine: a line says so, exit 3.  The
 * write waited for the reader to read (the open for a reader) without end,
 * so each command ended once the reader closed the pipe after 20 s, killed
 * by SIGPIPE (exit 141). */
static void test_dot_pipe_time_bound(void **state)
{
    char *dir = ces_test_tmpdir(), sch[256], fifo[256], args[640], why[320], want[1024], *o;

    (void)state;
    snprintf(sch, sizeof(sch), "%s/w.ces", dir);
    snprintf(fifo, sizeof(fifo), "%s/p.dot", dir);
    ces_test_put_file(sch, six_thousand_writes);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(args, sizeof(args), "%s --max-seconds 2 --quiet --dot %s", sch, fifo);
    for (int reads = 0; reads < 2; reads++) {
        /* a reader that does not read, or none yet */
        pid_t pid = ces_test_idle_reader(fifo, reads == 0);

        if (reads == 0)
            snprintf(why, sizeof(why), "its dot text was written");
        else
            snprintf(why, sizeof(why), "%s waited for a reader", fifo);
        snprintf(want, sizeof(want), "verdict: OK\ncesync: check: --dot %s not written "
                 "(--max-seconds 2): the time bound passed while %s\n", fifo, why);
        assert_int_equal(run(args, &o), 3);
        assert_string_equal(o, want);
        free(o);
        ces_test_end_reader(pid);
    }
    assert_int_equal(remove(fifo), 0);
    assert_int_equal(remove(sch), 0);
    assert_int_equal(rmdir(dir), 0); /* (nothing else there) */
}

/* Without --max-seconds, a --dot into a named pipe is held by the stall
 * that holds cesync dot's -o: a reader that holds the pipe open and never
 * reads, and none (until 20 s have passed), stop the picture's write after
 * 60 s without a byte taken (the open after 60 s without a reader), a line
 * says so, exit 3, and with --json the object says "dot_bound":"time".
 * The 60 s pass in 2 s: the command's clock, preloaded, runs 30 times as
 * fast (ASan, where built in, told that the library comes before it).  The
 * write waited for the reader (the open for one) for ever: each command
 * ended once the reader closed the pipe after 20 s, killed by SIGPIPE. */
static void test_dot_pipe_stall(void **state)
{
#if defined(CES_CLOCK_FAST)
    static const char env[] = "LD_PRELOAD='" CES_CLOCK_FAST "' "
                              "ASAN_OPTIONS=\"verify_asan_link_order=0:$ASAN_OPTIONS\"";
    char *dir = ces_test_tmpdir(), sch[256], fifo[256], args[640], why[320], want[1024], *o;

    (void)state;
    snprintf(sch, sizeof(sch), "%s/w.ces", dir);
    snprintf(fifo, sizeof(fifo), "%s/p.dot", dir);
    ces_test_put_file(sch, six_thousand_writes);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    for (int k = 0; k < 3; k++) {
        /* a reader that does not read, none yet, and one that does not
         * read under --json */
        pid_t pid = ces_test_idle_reader(fifo, k != 1);
        int rc;

        snprintf(args, sizeof(args), "check %s %s --dot %s", sch, k < 2 ? "--quiet" : "--json",
                 fifo);
        if (k != 1)
            snprintf(why, sizeof(why), "its reader took none of its dot text for 60 s");
        else
            snprintf(why, sizeof(why), "no reader opened %s in 60 s", fifo);
        snprintf(want, sizeof(want), "%scesync: check: --dot %s not written: %s\n",
                 k < 2 ? "verdict: OK\n" : "\"dot_bound\":\"time\"}\n", fifo, why);
        rc = ces_test_tool_env(NULL, env, args, &o);
        ces_test_end_reader(pid);
        /* (a loader that refuses the preload says so) */
        if (strstr(o, "cannot be preloaded") != NULL) {
            free(o);
            ces_test_remove_in(dir, "p.dot\0w.ces\0");
            skip();
        }
        if (rc != 3 || strlen(o) < strlen(want) || strcmp(o + strlen(o) - strlen(want), want))
            fail_msg("exit %d, it said:\n%s", rc, o);
        free(o);
    }
    ces_test_remove_in(dir, "p.dot\0w.ces\0");
#else
    (void)state;
    skip();
#endif
}

/* A .svg's Graphviz writes the picture itself into a named pipe: one whose
 * reader holds it open and never reads is held by the stall that holds
 * the dot text (ces_tool_dot_bounds) without --max-seconds, Graphviz ended
 * once the pipe has stood full for 60 s: a line says so, exit 3, and with
 * --json the object says "dot_bound":"time".  A stand-in dot that writes
 * the 1.4 MB of dot text it is given (cat) fills the pipe; the 60 s pass in
 * 2 s, the command's clock preloaded to run 30 times as fast (Graphviz's
 * runs at the time of day).  It waited for ever, here until the reader
 * closed the pipe 20 s later and the stand-in died of SIGPIPE (exit 2). */
static void test_dot_picture_pipe_stall(void **state)
{
#if defined(CES_CLOCK_FAST)
    static const char env[] = "LD_PRELOAD='" CES_CLOCK_FAST "' "
                              "ASAN_OPTIONS=\"verify_asan_link_order=0:$ASAN_OPTIONS\"";
    char *dir = ces_test_tmpdir(), path[600], args[640], want[1024], *o;
    char *saved = ces_test_env_save("PATH");

    (void)state;
    stand_in_dot_first(dir, "#!/bin/sh\nexec cat\n", saved);
    snprintf(path, sizeof(path), "%s/w.ces", dir);
    ces_test_put_file(path, six_thousand_writes);
    snprintf(path, sizeof(path), "%s/p.svg", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    for (int k = 0; k < 2; k++) {
        pid_t pid = ces_test_idle_reader(path, 1);
        int rc;

        snprintf(args, sizeof(args), "check %s/w.ces %s --dot %s", dir,
                 k == 0 ? "--quiet" : "--json", path);
        snprintf(want, sizeof(want), "%scesync: check: --dot %s not written: its reader took "
                 "none of the picture for 60 s (Graphviz was ended)\n",
                 k == 0 ? "verdict: OK\n" : "\"dot_bound\":\"time\"}\n", path);
        rc = ces_test_tool_env(NULL, env, args, &o);
        ces_test_end_reader(pid);
        if (strstr(o, "cannot be preloaded") != NULL) {
            free(o);
            break;
        }
        if (rc != 3 || strlen(o) < strlen(want) || strcmp(o + strlen(o) - strlen(want), want))
            fail_msg("exit %d, it said:\n%s", rc, o);
        free(o);
    }
    ces_test_env_restore("PATH", saved);
    ces_test_remove_in(dir, "p.svg\0w.ces\0bin/dot\0bin\0");
#else
    (void)state;
    skip();
#endif
}

/* Graphviz out of its memory is judged by what it says on standard error
 * (relayed as it was), not only by the peak it held: a stand-in dot that
 * says "out of memory" and exits 1 (as Graphviz 2.43 says it before it dies
 * of SIGSEGV, later ones exit 1) and one that says GLib's "failed to
 * allocate 4096 bytes" and aborts, each holding a few KiB under --max-memory
 * 64M, are the memory bound's, exit 3 (they were "dot -Tsvg failed drawing
 * ...", exit 2), and so is one that says GLib's "Error creating thread:
 * Resource temporarily unavailable" and dies of SIGTRAP (the bound counts
 * each thread's stack: Graphviz under --max-memory 32M failed so 1 time in
 * 20 under load, its heap 24 MB of 80 MiB, exit 2, where
 * test_dot_memory_floor_stack wants 3); without a bound (--max-memory 0) the
 * same words are a failure as any (2). And a stand-in whose child holds 36
 * MB (of the 60 MiB or so that the bound leaves it) before it dies of
 * SIGPIPE, its reader gone, is no allocation that failed: exit 2 (it was
 * taken for the bound's, exit 3, by its peak alone). */
static void test_dot_graphviz_says_memory(void **state)
{
    static const char *const says[3] = {
        "#!/bin/sh\ncat >/dev/null\necho 'out of memory' >&2\nexit 1\n",
        "#!/bin/sh\ncat >/dev/null\nprintf '\\n(process:1): GLib-ERROR **: gmem.c:1: failed to "
        "allocate 4096 bytes\\n' >&2\nkill -ABRT $$\n",
        "#!/bin/sh\ncat >/dev/null\nprintf '\\n(process:1): GLib-ERROR **: 06:05:57.446: "
        "creating thread '\\''[pango] FcFontSetSort'\\'': Error creating thread: Resource "
        "temporarily unavailable\\n' >&2\nkill -TRAP $$\n"};
    static const char *const heard[3] = {
        "out of memory\n",
        "\n(process:1): GLib-ERROR **: gmem.c:1: failed to allocate 4096 bytes\n",
        "\n(process:1): GLib-ERROR **: 06:05:57.446: creating thread '[pango] FcFontSetSort': "
        "Error creating thread: Resource temporarily unavailable\n"};
    static const int sig[3] = {0, SIGABRT, SIGTRAP};
    char *dir = ces_test_tmpdir(), args[640], want[1024], why[32], *o;

    (void)state;
    for (int k = 0; k < 3; k++) {
        snprintf(args, sizeof(args), "barrier --ranks 2 --max-memory 64M --quiet --dot %s/x.svg",
                 dir);
        snprintf(want, sizeof(want), "verdict: OK\n%scesync: check: --dot %s/x.svg not written: "
                 "Graphviz ran out of the ", heard[k], dir);
        assert_int_equal(run_stand_in_dot(dir, says[k], "", args, &o), 3);
        if (strncmp(o, want, strlen(want)) != 0 ||
            strstr(o, " of memory that the bound of 64.0 MiB left it beside the dot text\n") ==
                NULL)
            fail_msg("it said:\n%s", o);
        free(o);
        snprintf(args, sizeof(args), "barrier --ranks 2 --max-memory 0 --quiet --dot %s/x.svg",
                 dir);
        if (k == 0)
            snprintf(why, sizeof(why), "exit status 1");
        else
            snprintf(why, sizeof(why), "signal %d", sig[k]);
        snprintf(want, sizeof(want), "verdict: OK\n%scesync: check: --dot %s/x.svg: dot -Tsvg "
                 "failed drawing %s/x.svg (%s)\n", heard[k], dir, dir, why);
        assert_int_equal(run_stand_in_dot(dir, says[k], "", args, &o), 2);
        assert_string_equal(o, want);
        free(o);
    }
    snprintf(args, sizeof(args), "barrier --ranks 2 --max-memory 64M --quiet --dot %s/x.svg", dir);
    snprintf(want, sizeof(want), "verdict: OK\ncesync: check: --dot %s/x.svg: dot -Tsvg failed "
             "drawing %s/x.svg (signal %d)\n", dir, dir, SIGPIPE);
    assert_int_equal(run_stand_in_dot(dir, "#!/bin/sh\ncat >/dev/null\nhead -c 36000000 "
                                      "/dev/zero | tail -c 36000000 >/dev/null\nkill -PIPE $$\n",
                                      "", args, &o), 2);
    assert_string_equal(o, want);
    free(o);
    assert_int_equal(rmdir(dir), 0); /* (nothing else there) */
}

/* A reader of a .svg's named pipe that takes 4 KiB every 80 ms is waited
 * for until Graphviz is done: a stand-in dot that writes 256 KiB (head)
 * keeps the pipe full, each page the reader takes filled again at once,
 * for 48 reads (3.8 s, 115 s of the command's clock preloaded 30 times as
 * fast), and the picture is written whole, exit 0.  The stall looked at
 * the bytes the pipe held alone, which stood at 64 KiB at every look:
 * Graphviz was ended after 60 s of the command's clock, "its reader took
 * none of the picture", exit 3. */
static void test_dot_picture_pipe_slow_reader(void **state)
{
#if defined(CES_CLOCK_FAST)
    static const char env[] = "LD_PRELOAD='" CES_CLOCK_FAST "' "
                              "ASAN_OPTIONS=\"verify_asan_link_order=0:$ASAN_OPTIONS\"";
    char *dir = ces_test_tmpdir(), path[600], args[640], *o;
    char *saved = ces_test_env_save("PATH");
    pid_t pid;
    int rc, st;

    (void)state;
    stand_in_dot_first(dir, "#!/bin/sh\ncat >/dev/null\nexec head -c 262144 /dev/zero\n",
                       saved);
    snprintf(path, sizeof(path), "%s/p.svg", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* the reader: 4 KiB every 80 ms, exit 0 where all came */
        struct timespec pause = {0, 80000000};
        char buf[4096];
        size_t got = 0;
        ssize_t n;
        int fd = open(path, O_RDONLY);

        while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0) {
            got += (size_t)n;
            nanosleep(&pause, NULL);
        }
        _exit(got == 262144 ? 0 : 1);
    }
    snprintf(args, sizeof(args), "check barrier --ranks 2 --quiet --dot %s", path);
    rc = ces_test_tool_env(NULL, env, args, &o);
    if (strstr(o, "cannot be preloaded") != NULL) {
        kill(pid, SIGKILL);
    } else if (rc != 0 || strstr(o, "took none") != NULL) {
        kill(pid, SIGKILL);
        fail_msg("exit %d, it said:\n%s", rc, o);
    }
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (strstr(o, "cannot be preloaded") == NULL)
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    free(o);
    ces_test_env_restore("PATH", saved);
    ces_test_remove_in(dir, "p.svg\0bin/dot\0bin\0");
#else
    (void)state;
    skip();
#endif
}

/* A .svg that is the command's own standard output under another name
 * (--dot DIR/o.svg, a link to /dev/stdout) is written as standard output
 * is, without the named pipe's 60 s: a reader that takes none of a
 * stand-in dot's 256 KiB for 3 s (90 s of the command's clock preloaded
 * 30 times as fast), then all, gets it whole after the verdict, exit 0,
 * "cesync: wrote DIR/o.svg (the schedule)".  The stall held a picture
 * whatever its name: Graphviz was ended after 60 s, "not written: its
 * reader took none of the picture for 60 s (Graphviz was ended)", exit 3,
 * the reader given what the pipe held. */
static void test_dot_picture_own_stdout(void **state)
{
#if defined(CES_CLOCK_FAST)
    static const char env[] = "LD_PRELOAD='" CES_CLOCK_FAST "' "
                              "ASAN_OPTIONS=\"verify_asan_link_order=0:$ASAN_OPTIONS\"";
    char *dir = ces_test_tmpdir(), path[600], err[256], args[1024], want[640], *o;
    char *saved = ces_test_env_save("PATH");
    int rc;

    (void)state;
    stand_in_dot_first(dir, "#!/bin/sh\ncat >/dev/null\nexec head -c 262144 /dev/zero\n",
                       saved);
    snprintf(path, sizeof(path), "%s/o.svg", dir);
    snprintf(err, sizeof(err), "%s/err", dir);
    assert_int_equal(symlink("/dev/stdout", path), 0);
    snprintf(args, sizeof(args), "check barrier --ranks 2 --quiet --dot %s 2>%s | "
             "(sleep 3; wc -c)", path, err);
    rc = ces_test_tool_env(NULL, env, args, &o);
    /* the verdict's line, then the picture */
    snprintf(want, sizeof(want), "%zu\n", strlen("verdict: OK\n") + (size_t)262144);
    if (rc != 0 || strcmp(o, want) != 0)
        fail_msg("'cesync %s' gave %s, not %s", args, o, want);
    free(o);
    o = ces_test_read_file(err, NULL);
    snprintf(want, sizeof(want), "cesync: wrote %s (the schedule)\n", path);
    assert_string_equal(o, want);
    free(o);
    ces_test_env_restore("PATH", saved);
    ces_test_remove_in(dir, "o.svg\0err\0bin/dot\0bin\0");
#else
    (void)state;
    skip();
#endif
}

/* --json draws the picture before the object: a named pipe's reader that
 * reads 4 KiB of the 1.4 MB of dot text and closes it fails the write
 * (EPIPE), which a line says after the object whole, exit 2 as any write
 * that fails; SIGPIPE ended the command there with no object at all (exit
 * 141).  No time bound: nothing here depends on how fast either side is. */
static void test_dot_pipe_closed_json(void **state)
{
    char *dir = ces_test_tmpdir(), sch[256], fifo[256], args[640], want[640], *o, *end;
    pid_t pid;
    int st;

    (void)state;
    snprintf(sch, sizeof(sch), "%s/w.ces", dir);
    snprintf(fifo, sizeof(fifo), "%s/p.dot", dir);
    ces_test_put_file(sch, six_thousand_writes);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* the reader: 4 KiB, then the pipe closed */
        char buf[4096];
        int fd = open(fifo, O_RDONLY);

        _exit(fd >= 0 && read(fd, buf, sizeof(buf)) > 0 && close(fd) == 0 ? 0 : 1);
    }
    snprintf(args, sizeof(args), "%s --json --dot %s", sch, fifo);
    assert_int_equal(run(args, &o), 2);
    assert_memory_equal(o, "{\"verdict\":\"OK\",", 14);
    end = strstr(o, "\"defects\":[]");
    assert_non_null(end);
    snprintf(want, sizeof(want), "\"defects\":[]}\ncesync: check: --dot %s: cannot write %s: "
             "%s\n", fifo, fifo, strerror(EPIPE));
    assert_string_equal(end, want);
    free(o);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(remove(fifo), 0);
    assert_int_equal(remove(sch), 0);
    assert_int_equal(rmdir(dir), 0); /* (nothing else there) */
}

/* A rendered --dot (.svg, .png) goes through a temporary file in TMPDIR:
 * one that cannot be created there is said before the search, exit 2 and
 * no verdict (it was found after the search, which could be long). */
static void test_dot_tmpdir_checked_first(void **state)
{
    char *dir = ces_test_tmpdir(), args[256], want[512], *o;
    char *saved = ces_test_env_save("TMPDIR");

    (void)state;
    assert_int_equal(setenv("TMPDIR", "/nonexistent", 1), 0);
    snprintf(args, sizeof(args), "barrier --ranks 2 --sync nccl --graph --iterations 2 --quiet "
             "--dot %s/cx.svg", dir);
    snprintf(want, sizeof(want), "cesync: check: --dot %s/cx.svg: cannot create a temporary "
             "file in /nonexistent (TMPDIR): No such file or directory\n", dir);
    assert_int_equal(run_failing_dot(dir, args, &o), 2);
    assert_string_equal(o, want);
    free(o);
    /* a .dot is written without one */
    snprintf(args, sizeof(args), "alltoall --ranks 2 --quiet --dot %s/ok.dot", dir);
    snprintf(want, sizeof(want), "verdict: OK\ncesync: wrote %s/ok.dot (the schedule)\n", dir);
    assert_int_equal(run(args, &o), 0);
    assert_string_equal(o, want);
    free(o);
    snprintf(args, sizeof(args), "%s/ok.dot", dir);
    assert_int_equal(remove(args), 0);
    ces_test_env_restore("TMPDIR", saved);
    assert_int_equal(rmdir(dir), 0);
}

/* A picture whose layout may take 10 s or more is announced once, before
 * the search (it was said after the search, just before Graphviz started,
 * when the search could have taken hours), with the ops that are drawn: 80
 * ranks of 79 writes in a graph phase are 6,320 (no note); a delay in the
 * second replay draws the first, the second and the third replay apart and
 * moves the write to a stream of its own behind a record and an await:
 * 18,962.
 * A `dot` that copies its input stands for Graphviz. */
static void test_dot_note_before_search(void **state)
{
    char *dir = ces_test_tmpdir(), path[256], env[512], want[1024], *o;

    (void)state;
    snprintf(path, sizeof(path), "%s/bin", dir);
    ces_test_put_program(path, "dot", "#!/bin/sh\nexec /bin/cat\n");
    snprintf(path, sizeof(path), "%s/w.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 80\nsignal f u64 80\nphase graph x3\n"
                            "r* over p : write f[$r]@$p = $i\n");
    snprintf(env, sizeof(env), "PATH=%s/bin:\"$PATH\"", dir);

    assert_int_equal(ces_test_tool_env(dir, env, "check w.ces --quiet --dot w.svg", &o), 0);
    assert_string_equal(o, "verdict: OK\ncesync: wrote w.svg (the schedule)\n");
    free(o);
    snprintf(want, sizeof(want),
             "cesync: check: drawing 18962 ops (18962 nodes, edges across lanes 100 ranks long); "
             "Graphviz may take about 20 s to lay out so many (fewer iterations or ranks draw "
             "faster, and a .dot file skips the layout)\n"
             "verdict: OK\ncesync: wrote w.svg (the schedule)\n");
    assert_int_equal(ces_test_tool_env(dir, env, "check w.ces --fault delay:r3.s0#100 --quiet "
                                       "--dot w.svg", &o), 0);
    assert_string_equal(o, want);
    free(o);
    /* the picture has the ops the note counted: three blocks of 6,320
     * writes, the delayed one among them, its record and its await */
    snprintf(path, sizeof(path), "%s/w.svg", dir);
    o = ces_test_read_file(path, NULL);
    assert_int_equal(ces_test_count(o, "\\nwrite f["), 3 * 6320);
    assert_int_equal(ces_test_count(o, "\\nrecord delay0"), 1);
    assert_int_equal(ces_test_count(o, "\\nawait delay0"), 1);
    free(o);
    assert_int_equal(remove(path), 0);
    /* the report and a note before it, not after it too */
    snprintf(want, sizeof(want),
             "cesync: check: drawing 18962 ops (18962 nodes, edges across lanes 100 ranks long); "
             "Graphviz may take about 20 s to lay out so many (fewer iterations or ranks draw "
             "faster, and a .dot file skips the layout)\n"
             "verdict: OK\n");
    assert_int_equal(ces_test_tool_env(dir, env, "check w.ces --fault delay:r3.s0#100 --dot "
                                       "w.svg", &o), 0);
    assert_int_equal(strncmp(o, want, strlen(want)), 0);
    assert_int_equal(ces_test_count(o, "drawing 18962 ops"), 1);
    free(o);
    assert_int_equal(remove(path), 0);
    /* a .dot file is not laid out: no note */
    assert_int_equal(ces_test_tool_env(dir, env, "check w.ces --fault delay:r3.s0#100 --quiet "
                                       "--dot w.dot", &o), 0);
    assert_string_equal(o, "verdict: OK\ncesync: wrote w.dot (the schedule)\n");
    free(o);
    ces_test_remove_in(dir, "w.dot\0w.ces\0bin/dot\0bin\0");
}

/* The fault sweep prints a table, not a report: --json and --dot are
 * refused (they were silently ignored); --quiet keeps the summary line. */
static void test_sweep_options(void **state)
{
    char *o;

    (void)state;
    assert_int_equal(run("alltoall --ranks 2 --fault-sweep --json", &o), 2);
    assert_string_equal(o, "cesync: check: --fault-sweep prints a table, not a report: drop "
                           "--json/--dot\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --fault-sweep --json --dot sw.svg", &o), 2);
    assert_string_equal(o, "cesync: check: --fault-sweep prints a table, not a report: drop "
                           "--json/--dot\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --fault-sweep --dot sw.dot", &o), 2);
    assert_string_equal(o, "cesync: check: --fault-sweep prints a table, not a report: drop "
                           "--json/--dot\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --sync mono --fault-sweep --quiet", &o), 0);
    assert_string_equal(o, "without faults: verdict: OK\n"
                           "fault sweep: 30 faults: 26 show a HANG or DEADLOCK, 0 a RACE or "
                           "MISMATCH (a fault showing both counts in both), 4 tolerated "
                           "(OK); 0 of them incomplete\n");
    free(o);
    /* one fault of three shows: its verb in the singular (it read "1 show") */
    {
        char *dir = ces_test_tmpdir(), path[128];

        snprintf(path, sizeof(path), "%s/one.ces", dir);
        ces_test_put_file(path, "cesync 1\nranks 1\nsignal f u32 1\nphase eager x1\n"
                                "r0 : write f[0] = 1\n");
        assert_int_equal(ces_test_tool(dir, "check one.ces --fault-sweep --quiet", &o), 0);
        assert_string_equal(o, "without faults: verdict: OK\n"
                               "fault sweep: 3 faults: 1 shows a HANG or DEADLOCK, 0 a RACE or "
                               "MISMATCH (a fault showing both counts in both), 2 tolerated "
                               "(OK); 0 of them incomplete\n");
        free(o);
        assert_int_equal(remove(path), 0);
        assert_int_equal(rmdir(dir), 0);
    }
    /* a schedule without ops has no fault to sweep: a line says so, not
     * the header of an empty table; --quiet leaves the totals */
    {
        char *dir = ces_test_tmpdir(), path[128];

        snprintf(path, sizeof(path), "%s/z.ces", dir);
        ces_test_put_file(path, "cesync 1\nranks 1\nphase eager x1\n");
        assert_int_equal(ces_test_tool(dir, "check z.ces --fault-sweep", &o), 0);
        assert_string_equal(o, "without faults: verdict: OK\n"
                               "no op to fault: the schedule has none (a stop comes before an "
                               "op, a drop or delay hits a write)\n"
                               "fault sweep: 0 faults: 0 show a HANG or DEADLOCK, 0 a RACE or "
                               "MISMATCH (a fault showing both counts in both), 0 tolerated "
                               "(OK); 0 of them incomplete\n");
        free(o);
        assert_int_equal(ces_test_tool(dir, "check z.ces --fault-sweep --quiet", &o), 0);
        assert_string_equal(o, "without faults: verdict: OK\n"
                               "fault sweep: 0 faults: 0 show a HANG or DEADLOCK, 0 a RACE or "
                               "MISMATCH (a fault showing both counts in both), 0 tolerated "
                               "(OK); 0 of them incomplete\n");
        free(o);
        assert_int_equal(remove(path), 0);
        assert_int_equal(rmdir(dir), 0);
    }
    /* a stop before s0's record lets s1's await pass at once: its produce
     * races with s0's, and s0 never finishes, so that row is HANG,RACE.  A
     * row counts in every class it shows (the race was left out: 0 RACE) */
    {
        char *dir = ces_test_tmpdir(), path[128];

        snprintf(path, sizeof(path), "%s/sr.ces", dir);
        ces_test_put_file(path, "cesync 1\nranks 1\nstreams 2\nbuffer a 64\nphase eager x1\n"
                                "r0 : produce a[0:64]\nr0 : record e\nr0 s1 : await e\n"
                                "r0 s1 : produce a[0:64]\n");
        assert_int_equal(ces_test_tool(dir, "check sr.ces --fault-sweep", &o), 0);
        assert_non_null(strstr(o, "\nr0.s0#1        stop  HANG,RACE              RACE (watchdog "
                                  "fired in 1 end state)\n"));
        assert_non_null(strstr(o, "\nstop      6: 6 HANG or DEADLOCK, 1 RACE or MISMATCH, 0 OK\n"
                                  "fault sweep: 6 faults: 6 show a HANG or DEADLOCK, 1 a RACE or "
                                  "MISMATCH (a fault showing both counts in both), 0 tolerated "
                                  "(OK); 0 of them incomplete\n"));
        free(o);
        assert_int_equal(remove(path), 0);
        assert_int_equal(rmdir(dir), 0);
    }
    /* --first cuts short every search that found a defect: those faults are
     * incomplete too, a part of the total, not a class beside the others */
    assert_int_equal(run("alltoall --ranks 2 --sync mono --fault-sweep --quiet --first", &o), 3);
    assert_string_equal(o, "without faults: verdict: OK\n"
                           "fault sweep: 30 faults: 26 show a HANG or DEADLOCK, 0 a RACE or "
                           "MISMATCH (a fault showing both counts in both), 4 tolerated "
                           "(OK); 26 of them incomplete\n");
    free(o);
    /* a schedule that fails by itself: said first, and exit 1 though the
     * watchdog ends every fault */
    assert_int_equal(
        run("barrier --ranks 2 --sync nccl --graph --iterations 2 --fault-sweep --quiet", &o), 1);
    assert_true(strncmp(o, "without faults: verdict: HANG (the schedule fails by itself: the "
                           "rows below show that too)\nfault sweep: ", 101) == 0);
    assert_non_null(strstr(o, "; 0 of them incomplete\n"));
    free(o);
}

/* Options that would do nothing in their company, or promise a proof that
 * a sample cannot give, are refused before any search. */
static void test_option_conflicts(void **state)
{
    static const struct {
        const char *args, *err;
    } cases[] = {
        {"--seed 3", "--seed applies to --random"},
        {"--random 0", "--random expects a number in 1..18446744073709551615, not '0'"},
        {"--random 2 --replay 0", "--random and --replay exclude each other"},
        {"--max-depth 3 --replay 0", "--max-depth bounds the exhaustive search: drop it with "
                                     "--random/--replay"},
        {"--random 3 --max-states 4", "--max-states bounds the stored states of the exhaustive "
                                      "search: drop it with --random/--replay"},
        {"--replay 0 --max-states 4", "--max-states bounds the stored states of the exhaustive "
                                      "search: drop it with --random/--replay"},
        {"--replay 0 --first", "--first stops a search: a replay is one execution, drop it"},
        {"--quiet --json", "--quiet (the verdict line) and --json (the whole report) exclude "
                           "each other"},
        {"--random 4 --fault-sweep", "--fault-sweep proves every case, --random only samples: "
                                     "drop --random"},
        {"--random 4 --queue-sweep", "--queue-sweep proves every case, --random only samples: "
                                     "drop --random"},
    };
    char args[256], want[256], *o;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(args, sizeof(args), "alltoall --ranks 2 %s", cases[i].args);
        snprintf(want, sizeof(want), "cesync: check: %s\n", cases[i].err);
        assert_int_equal(run(args, &o), 2);
        assert_string_equal(o, want);
        free(o);
    }
    assert_int_equal(run("alltoall --ranks 2 --random 5 --seed 3 --quiet", &o), 0);
    assert_string_equal(o, "verdict: OK\n");
    free(o);
}

/* `check PATH --queue-sweep --no-reduction EXTRA` in a 40 MB address
 * space: its exit status, its stdout (and stderr with `err` "2>&1") in out. */
static int sweep_capped(const char *path, const char *extra, const char *err, char *out,
                        size_t size)
{
    char cmd[1024];
    size_t len;
    FILE *f;
    int st;

    snprintf(cmd, sizeof(cmd),
             "ulimit -v 40000 && %s check %s --queue-sweep --no-reduction%s </dev/null %s",
             CES_TOOL, path, extra, err);
    f = popen(cmd, "r");
    assert_non_null(f);
    len = fread(out, 1, size - 1, f);
    out[len] = '\0';
    st = pclose(f);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* --queue-sweep where a later assignment's check fails (out of memory under
 * a 40 MB address space: its streams on queues of their own interleave 40
 * writes each, without reduction) after the first, 0,0, deadlocked: the
 * failure is said on stderr, and the defect found keeps exit 1 (it was 2,
 * as if the schedule were bad input). */
static void test_queue_sweep_fails_after_defect(void **state)
{
    char *dir = ces_test_tmpdir(), path[256], out[16384];
    FILE *f;

    (void)state;
#ifdef CHECK_TOOL_ASAN
    skip();
#endif
    snprintf(path, sizeof(path), "%s/big.ces", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("cesync 1\nranks 2\nstreams 2\nconnections 0\nbuffer src 32\nbuffer dst 32\n"
          "signal flag u64 2\nsignal c u64 80\nphase eager x1\n"
          "r* : produce src[0:32]\nr* : record staged\nr* : wait flag[1-$r] >= 1\n"
          "r* s1 : await staged\nr* s1 : copy src[0:32] -> dst[0:32]@(1-$r)\n"
          "r* s1 : write flag[$r]@(1-$r) = 1\nr* : consume dst[0:32] == src[0:32]@(1-$r)\n",
          f);
    for (int i = 0; i < 40; i++)
        fprintf(f, "r* : write c[%d]@$r = 1\nr* s1 : write c[%d]@$r = 1\n", i, 40 + i);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(sweep_capped(path, "", "2>&1", out, sizeof(out)), 1);
    assert_string_equal(out, "queue sweep: 4 assignments of each rank's 2 streams to at most 2 "
                             "hardware queues\n"
                             "  --queues 0,0                      verdict: DEADLOCK\n"
                             "cesync: check: out of memory while checking\n");
    /* --json: the object stays whole, saying the sweep stopped */
    assert_int_equal(sweep_capped(path, " --json", "2>/dev/null", out, sizeof(out)), 1);
    assert_non_null(strstr(out, "{\"queue_sweep\":{\"at_most\":2,\"failing\":[{\"queues\":"
                                "\"0,0\",\"verdict\":\"DEADLOCK\"}],\"assignments\":3,\"ok\":2,"
                                "\"deadlock_or_hang\":1,\"race_or_mismatch_only\":0,"
                                "\"incomplete\":0,\"stopped\":true,\"first\":"));
    assert_int_equal(strcmp(out + strlen(out) - 3, "}}\n"), 0);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* --queues MAP and --queue-sweep: bad/cross_stream_conn0.ces deadlocks
 * only when both ranks share one queue between their two streams; the
 * sweep finds that one of four, prints its report, and the replay string
 * re-runs it under its --queues. */
static void test_queues(void **state)
{
    char *o, *o2, *line, args[1024];
    size_t n;

    (void)state;
    assert_int_equal(run(CES_FIXTURES "/bad/cross_stream_conn0.ces --queue-sweep --quiet", &o),
                     1);
    assert_string_equal(o, "queue sweep: 4 assignments of each rank's 2 streams to at most 2 "
                           "hardware queues\n"
                           "queue sweep: 4 assignments: 3 OK, 1 DEADLOCK or HANG, 0 RACE or "
                           "MISMATCH only, 0 incomplete\n");
    free(o);
    /* connections 1: one queue, one assignment */
    assert_int_equal(run(CES_FIXTURES "/bad/cross_stream_conn1.ces --queue-sweep --quiet", &o),
                     1);
    assert_string_equal(o, "queue sweep: 1 assignment of each rank's 2 streams to at most 1 "
                           "hardware queue\n"
                           "queue sweep: 1 assignment: 0 OK, 1 DEADLOCK or HANG, 0 RACE or "
                           "MISMATCH only, 0 incomplete\n");
    free(o);
    assert_int_equal(run(CES_FIXTURES "/bad/cross_stream_conn0.ces --queue-sweep", &o), 1);
    assert_non_null(strstr(o, "\n  --queues 0,0                      verdict: DEADLOCK\n"
                              "queue sweep: 4 assignments: 3 OK, 1 DEADLOCK or HANG"));
    assert_non_null(strstr(o, "\nthe first that fails, --queues 0,0:\nverdict: DEADLOCK\n"
                              "hardware queues: 0,0 (each stream's queue, in place of the "
                              "schedule's connections)\nDEADLOCK: counterexample"));
    line = strstr(o, "  replay: ");
    assert_non_null(line);
    line += strlen("  replay: ");
    n = strcspn(line, "\n");
    snprintf(args, sizeof(args), CES_FIXTURES "/bad/cross_stream_conn0.ces --queues 0,0 "
             "--replay %.*s", (int)n, line);
    assert_int_equal(run(args, &o2), 1);
    assert_true(strncmp(o2, "verdict: DEADLOCK\nhardware queues: 0,0 (each stream's queue, in "
                            "place of the schedule's connections)\ncoverage: one replayed "
                            "execution\n", 122) == 0);
    free(o2);
    free(o);
    /* one assignment: its verdict, also as JSON */
    assert_int_equal(run(CES_FIXTURES "/bad/cross_stream_conn0.ces --queues 0,1/0,0 --quiet", &o),
                     0);
    assert_string_equal(o, "verdict: OK\n");
    free(o);
    assert_int_equal(run(CES_FIXTURES "/bad/cross_stream_conn0.ces --queues 0,0 --json", &o), 1);
    assert_non_null(strstr(o, ",\"queues\":\"0,0\",\"defects\":[{\"class\":\"DEADLOCK\""));
    free(o);
    /* the built-in collectives: OK under every assignment */
    assert_int_equal(run("scatter --ranks 3 --variant overlap --wake 2 --queue-sweep --quiet", &o),
                     0);
    assert_string_equal(o, "queue sweep: 125 assignments of each rank's 3 streams to at most 3 "
                           "hardware queues\n"
                           "queue sweep: 125 assignments: 125 OK, 0 DEADLOCK or HANG, 0 RACE or "
                           "MISMATCH only, 0 incomplete\n");
    free(o);
    /* errors */
    assert_int_equal(run("alltoall --ranks 2 --variant overlap --queues 0,5", &o), 2);
    assert_string_equal(o, "cesync: check: --queues: queue map '0,5': queue 5 at column 3; "
                           "expected a queue number less than the streams per rank, 2\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --queues", &o), 2);
    assert_string_equal(o, "cesync: check: --queues expects a queue number per stream, like "
                           "0,0,1\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --queue-sweep --dot q.svg", &o), 2);
    assert_string_equal(o, "cesync: check: --queue-sweep prints a line per failing assignment "
                           "and one report: drop --dot (draw one assignment with --queues)\n");
    free(o);
    /* --json: one object, the failing assignments, the totals, the first's report */
    assert_int_equal(run(CES_FIXTURES "/bad/cross_stream_conn0.ces --queue-sweep --json", &o), 1);
    {
        const char *want = "{\"queue_sweep\":{\"at_most\":2,\"failing\":[{\"queues\":\"0,0\","
                           "\"verdict\":\"DEADLOCK\"}],\"assignments\":4,\"ok\":3,"
                           "\"deadlock_or_hang\":1,\"race_or_mismatch_only\":0,"
                           "\"incomplete\":0,\"stopped\":false,\"first\":{\"verdict\":"
                           "\"DEADLOCK\",";

        assert_int_equal(strncmp(o, want, strlen(want)), 0);
    }
    assert_non_null(strstr(o, "\"queues\":\"0,0\",\"defects\":"));
    assert_int_equal(strcmp(o + strlen(o) - 3, "}}\n"), 0);
    assert_ptr_equal(strchr(o, '\n'), o + strlen(o) - 1); /* one line */
    free(o);
    /* several failing, comma-separated */
    assert_int_equal(run(CES_FIXTURES "/good/cross_stream_any.ces --queue-sweep --json "
                         "--fault drop:r0.s1#2", &o), 1);
    assert_non_null(strstr(o, "\"failing\":[{\"queues\":\"0,0\",\"verdict\":\"HANG\"},"
                              "{\"queues\":\"0,0/0,1\",\"verdict\":\"HANG\"},"
                              "{\"queues\":\"0,1/0,0\",\"verdict\":\"HANG\"},"
                              "{\"queues\":\"0,1\",\"verdict\":\"HANG\"}],\"assignments\":4,"));
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --variant overlap --queue-sweep --json", &o), 0);
    assert_string_equal(o, "{\"queue_sweep\":{\"at_most\":2,\"failing\":[],\"assignments\":4,"
                           "\"ok\":4,\"deadlock_or_hang\":0,\"race_or_mismatch_only\":0,"
                           "\"incomplete\":0,\"stopped\":false,\"first\":null}}\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --queue-sweep --fault-sweep", &o), 2);
    assert_string_equal(o, "cesync: check: --queue-sweep makes its own queue maps, one check "
                           "each: drop --fault-sweep/--queues/--replay\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 8 --variant overlap --wake 2 --queue-sweep", &o), 2);
    assert_string_equal(o, "cesync: check: --queue-sweep: 390625 assignments of 8 ranks' 3 "
                           "streams to at most 3 queues, more than 100000 checks; check fewer "
                           "ranks, or one assignment with --queues\n");
    free(o);
    /* a count past 2^64 - 1 saturates: it is not given as if it were the
     * count; a file's is refused at the line of what it asks to be fewer
     * (FILE:LINE:COL, it said "check: --queue-sweep: ..."): its ranks, or
     * where one rank's assignments alone are too many (1 rank's 10 streams:
     * 115975), its streams (it asked for fewer ranks at the ranks line);
     * and where it checks every assignment itself (connections any),
     * without or with faults, at its connections line (it said "check:
     * connections any: ...") */
    {
        char *dir = ces_test_tmpdir(), path[128], want[512];
        static const char *const any[] = {"", " --fault-sweep"};

        /* the file's ranks and streams, its last stream, and what follows
         * "FILE:" in the refusal */
        static const struct {
            const char *ranks, *streams, *last, *says;
        } sweeps[] = {
            {"8", "3", "2", "2:7: --queue-sweep: 390625 assignments of 8 ranks' 3 streams to at "
             "most 3 queues, more than 100000 checks; check fewer ranks"},
            {"1", "10", "9", "3:9: --queue-sweep: 115975 assignments of 1 rank's 10 streams to "
             "at most 10 queues, more than 100000 checks; check fewer streams"},
            {"2", "64", "63", "3:9: --queue-sweep: 18446744073709551615 or more assignments of 2 "
             "ranks' 64 streams to at most 64 queues, more than 100000 checks; check fewer "
             "streams"},
        };

        snprintf(path, sizeof(path), "%s/q.ces", dir);
        for (size_t i = 0; i < sizeof(sweeps) / sizeof(sweeps[0]); i++) {
            char text[160];

            snprintf(text, sizeof(text), "cesync 1\nranks %s\nstreams %s\nsignal f u32 1\n"
                     "phase eager x1\nr* s%s : write f[0] = 1\n", sweeps[i].ranks,
                     sweeps[i].streams, sweeps[i].last);
            ces_test_put_file(path, text);
            snprintf(want, sizeof(want), "cesync: check: %s:%s, or one assignment with --queues\n",
                     path, sweeps[i].says);
            file_says(path, "--queue-sweep", 2, want);
        }
        ces_test_put_file(path, "cesync 1\nranks 2\nstreams 64\n  connections   any\n"
                                "signal f u32 1\nphase eager x1\nr* s63 : write f[0] = 1\n");
        snprintf(want, sizeof(want), "cesync: check: %s:4:17: connections any: "
                 "18446744073709551615 or more assignments of 2 ranks' 64 streams to hardware "
                 "queues, more than 100000 checks; name the queues (connections N, or a queue "
                 "map)\n", path);
        for (size_t i = 0; i < sizeof(any) / sizeof(any[0]); i++)
            file_says(path, any[i], 2, want);
        ces_test_remove_in(dir, "q.ces\0");
    }
}

/* Each op of a report names its line and column in the schedule's text:
 * the blocked waits of a file's deadlock, in the text and the JSON. */
static void test_source_lines(void **state)
{
    char *o;

    (void)state;
    assert_int_equal(run(CES_FIXTURES "/bad/multicast_cycle.ces", &o), 1);
    assert_non_null(strstr(o, "\n    r0.s0#0 wait g[0] >= 1 (line 10:6): g[0]@0 holds 0, "
                              "awaits >= 1\n      could be written by r1.s0#1 write g[0]@0 = 1 "
                              "(line 13:6), but r1.s0 is blocked at r1.s0#0\n"));
    free(o);
    assert_int_equal(run(CES_FIXTURES "/bad/multicast_cycle.ces --json", &o), 1);
    assert_non_null(strstr(o, "\"pos\":\"r0.s0#0\",\"op\":\"wait g[0] >= 1\",\"iteration\":1,"
                              "\"line\":10,\"col\":6"));
    free(o);
}

/* Verdicts and totals that the other tests leave open: a MISMATCH alone
 * is a defect (exit 1); a fault sweep names only the fault kinds that the
 * schedule has positions for (copies alone: no write to drop or delay); a
 * queue sweep whose every assignment is INCOMPLETE exits 3 and has no
 * "first that fails"; an assignment showing HANG and RACE counts once,
 * among DEADLOCK or HANG, not also among RACE or MISMATCH only. */
static void test_verdict_totals(void **state)
{
    char *dir = ces_test_tmpdir(), path[256], args[512], want[1024], *o;

    (void)state;
    snprintf(path, sizeof(path), "%s/mm.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 1\nbuffer a 32\nbuffer b 32\nphase eager x1\n"
                            "r0 : produce a[0:32]\nr0 : consume b[0:32] == a[0:32]@0\n");
    snprintf(args, sizeof(args), "%s --quiet", path);
    assert_int_equal(run(args, &o), 1);
    assert_string_equal(o, "verdict: MISMATCH\n");
    free(o);
    assert_int_equal(remove(path), 0);

    snprintf(path, sizeof(path), "%s/cp.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 1\nbuffer a 32\nbuffer b 32\nphase eager x1\n"
                            "r0 : produce a[0:32]\nr0 : copy a[0:32] -> b[0:32]\n"
                            "r0 : consume b[0:32] == a[0:32]@0\n");
    snprintf(args, sizeof(args), "%s --fault-sweep", path);
    assert_int_equal(run(args, &o), 0);
    snprintf(want, sizeof(want),
             "without faults: verdict: OK\n"
             "position       fault verdict                with --abort\n"
             "r0.s0#0        stop  HANG                   OK (watchdog fired in 1 end state)\n"
             "r0.s0#1        stop  HANG                   OK (watchdog fired in 1 end state)\n"
             "r0.s0#2        stop  HANG                   OK (watchdog fired in 1 end state)\n"
             "stop      3: 3 HANG or DEADLOCK, 0 RACE or MISMATCH, 0 OK\n"
             "fault sweep: 3 faults: 3 show a HANG or DEADLOCK, 0 a RACE or MISMATCH (a fault "
             "showing both counts in both), 0 tolerated (OK); 0 of them incomplete\n");
    assert_string_equal(o, want);
    free(o);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);

    assert_int_equal(run("alltoall --ranks 2 --variant overlap --queue-sweep --max-states 3", &o),
                     3);
    assert_string_equal(o, "queue sweep: 4 assignments of each rank's 2 streams to at most 2 "
                           "hardware queues\n"
                           "  --queues 0,0                      verdict: INCOMPLETE\n"
                           "  --queues 0,0/0,1                  verdict: INCOMPLETE\n"
                           "  --queues 0,1/0,0                  verdict: INCOMPLETE\n"
                           "  --queues 0,1                      verdict: INCOMPLETE\n"
                           "queue sweep: 4 assignments: 0 OK, 0 DEADLOCK or HANG, 0 RACE or "
                           "MISMATCH only, 4 incomplete\n");
    free(o);
    assert_int_equal(run("alltoall --ranks 2 --variant overlap --queue-sweep --max-states 3 "
                         "--json", &o), 3);
    assert_string_equal(o, "{\"queue_sweep\":{\"at_most\":2,\"failing\":["
                           "{\"queues\":\"0,0\",\"verdict\":\"INCOMPLETE\"},"
                           "{\"queues\":\"0,0/0,1\",\"verdict\":\"INCOMPLETE\"},"
                           "{\"queues\":\"0,1/0,0\",\"verdict\":\"INCOMPLETE\"},"
                           "{\"queues\":\"0,1\",\"verdict\":\"INCOMPLETE\"}],"
                           "\"assignments\":4,\"ok\":0,\"deadlock_or_hang\":0,"
                           "\"race_or_mismatch_only\":0,\"incomplete\":4,\"stopped\":false,"
                           "\"first\":null}}\n");
    free(o);
    snprintf(args, sizeof(args), "%s/good/single_rank.ces --queue-sweep --fault stop:r0.s0#1 "
             "--quiet", CES_FIXTURES);
    assert_int_equal(run(args, &o), 1);
    assert_string_equal(o, "queue sweep: 5 assignments of each rank's 3 streams to at most 3 "
                           "hardware queues\n"
                           "queue sweep: 5 assignments: 0 OK, 5 DEADLOCK or HANG, 0 RACE or "
                           "MISMATCH only, 0 incomplete\n");
    free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_replay_roundtrip),
        cmocka_unit_test(test_replay_empty),
        cmocka_unit_test(test_faults_twice),
        cmocka_unit_test(test_replay_needs_abort),
        cmocka_unit_test(test_faults_sweep_json_dot),
        cmocka_unit_test(test_delay),
        cmocka_unit_test(test_dot_delay_queues),
        cmocka_unit_test(test_dot_checked_order),
        cmocka_unit_test(test_dot_checked_later_replays),
        cmocka_unit_test(test_dot_fault_every_pair),
        cmocka_unit_test(test_dot_blocked_replay),
        cmocka_unit_test(test_dot_queue_map),
        cmocka_unit_test(test_memory_bound),
        cmocka_unit_test(test_default_memory_bound),
        cmocka_unit_test(test_max_seconds),
        cmocka_unit_test(test_progress),
        cmocka_unit_test(test_progress_on_terminal),
        cmocka_unit_test(test_build_progress),
        cmocka_unit_test(test_expansion_time_bound),
        cmocka_unit_test(test_expansion_stopped_options),
        cmocka_unit_test(test_progress_one_clock),
        cmocka_unit_test(test_sweep_check_progress),
        cmocka_unit_test(test_fault_sweep_seconds),
        cmocka_unit_test(test_fault_sweep_unlisted),
        cmocka_unit_test(test_max_depth),
        cmocka_unit_test(test_first_json),
        cmocka_unit_test(test_dot_path_checked_first),
        cmocka_unit_test(test_dot_fails_after_search),
        cmocka_unit_test(test_dot_time_bound),
        cmocka_unit_test(test_dot_memory_bound),
        cmocka_unit_test(test_dot_bound_json),
        cmocka_unit_test(test_dot_graphviz_memory),
        cmocka_unit_test(test_dot_memory_floor_stack),
        cmocka_unit_test(test_dot_graphviz_not_memory),
        cmocka_unit_test(test_dot_note_json_streams),
        cmocka_unit_test(test_dot_pipe_time_bound),
        cmocka_unit_test(test_dot_pipe_stall),
        cmocka_unit_test(test_dot_picture_pipe_stall),
        cmocka_unit_test(test_dot_picture_pipe_slow_reader),
        cmocka_unit_test(test_dot_picture_own_stdout),
        cmocka_unit_test(test_dot_graphviz_says_memory),
        cmocka_unit_test(test_dot_pipe_closed_json),
        cmocka_unit_test(test_dot_tmpdir_checked_first),
        cmocka_unit_test(test_dot_note_before_search),
        cmocka_unit_test(test_sweep_options),
        cmocka_unit_test(test_queues),
        cmocka_unit_test(test_queue_sweep_fails_after_defect),
        cmocka_unit_test(test_source_lines),
        cmocka_unit_test(test_option_conflicts),
        cmocka_unit_test(test_verdict_totals),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
