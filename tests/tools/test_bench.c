/*
 * tests/tools/test_bench.c - `cesync bench` without a GPU: the dry run
 * (the cost model's predictions in the bench's table, CSV and plot; the
 * rooted collectives with their root; in place), the sizes it sweeps, the
 * plot's `dot` run without a shell (any path; drawn beside the picture and
 * renamed over it; a failing or missing `dot` keeps the .dot), and its usage
 * errors with their exit codes.
 */
#include "ces_test.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

/* Runs `cesync ARGS --csv NAME` in dir, which must succeed, and returns
 * the CSV it wrote (removed from dir; malloc'd); *out gets what it printed
 * (malloc'd) when out is not NULL. */
static char *run_csv(const char *dir, const char *args, const char *name, char **out)
{
    char cmd[512], path[256], *printed = NULL, *csv;

    snprintf(cmd, sizeof(cmd), "%s --csv %s", args, name);
    assert_int_equal(ces_test_tool(dir, cmd, &printed), 0);
    if (out != NULL)
        *out = printed;
    else
        free(printed);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    csv = ces_test_read_file(path, NULL);
    remove(path);
    return csv;
}

static void test_dry_run_csv(void **state)
{
    const char *first = "# cesync bench alltoall: 2 ranks (one process), 20 iterations after "
                        "5 warm-up, eager; model h200\n";
    char *dir = ces_test_tmpdir(), *out = NULL;
    char *csv = run_csv(dir, "bench alltoall --dry-run --min-bytes 1M --max-bytes 1M "
                             "--variant plain,overlap",
                        "a.csv", &out);

    (void)state;
    /* the first line: a dry run has no table of its own to end with a blank line */
    assert_memory_equal(out, first, strlen(first));
    assert_non_null(strstr(out, "# --dry-run: every time below is the cost model's prediction\n"));
    /* the file said on stderr once written, as dot -o says its picture (it
     * was written without a word) */
    assert_string_equal(out + strlen(out) - strlen("\ncesync: wrote a.csv\n"),
                        "\ncesync: wrote a.csv\n");
    /* the table shows the faster variant */
    /* the model in both modes; a dry run's time is the fast mode's */
    assert_non_null(strstr(out, "        1M overlap     14.03     14.03     14.03    37.4     -     "
                                "14.03     23.83      -  |"));
    free(out);
    assert_string_equal(csv,
                        "coll,ranks,bytes,impl,variant,time_us,min_us,max_us,algbw_gbps,"
                        "busbw_gbps,check,pred_us,pred_slow_us\n"
                        "alltoall,2,1048576,cesync,plain,24.588,24.588,24.588,42.646,21.323,-,"
                        "24.588,34.388\n"
                        "alltoall,2,1048576,cesync,overlap,14.031,14.031,14.031,74.735,37.367,-,"
                        "14.031,23.831\n");
    free(csv);
    /* --wake: the header says the variants run the chain; the model sees
     * no cost in a chain shorter than the copies (2 pieces, 5.2 us) */
    csv = run_csv(dir, "bench allgather --dry-run --min-bytes 1M --max-bytes 1M "
                       "--variant overlap --wake 2",
                  "w.csv", &out);
    assert_non_null(strstr(out, "model h200\n# the variants but auto run the wake chain of 2 "
                                "copies\n"));
    free(out);
    assert_non_null(strstr(csv, "\nallgather,2,1048576,cesync,overlap,"));
    free(csv);
    rmdir(dir);
}

/* sendrecv predictions for both protocols with the default chunks 1,
 * slots 2: eager alternates the two slots; under --graph the credit builder
 * takes one slot per chunk, so every size gets a number, never nan. */
static void test_sendrecv_predictions(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL;

    (void)state;
    assert_int_equal(ces_test_tool(dir,
                                   "bench sendrecv --dry-run --one-way --min-bytes 64M "
                                   "--max-bytes 64M --variant plain",
                                   &out),
                     0);
    /* pushed flags, and the receiver's fork and join off the critical path:
     * the slow mode costs nothing */
    assert_non_null(strstr(out, "       64M plain      178.83    178.83    178.83   375.3     -    "
                                "178.83    178.83      -  |"));
    free(out);
    assert_int_equal(ces_test_tool(dir,
                                   "bench sendrecv --dry-run --graph --min-bytes 1M --max-bytes 4M "
                                   "--variant auto",
                                   &out),
                     0);
    assert_null(strstr(out, "nan"));
    assert_null(strstr(out, "no prediction"));
    assert_non_null(strstr(out, "        1M auto  "));
    assert_non_null(strstr(out, "        4M auto  "));
    free(out);
    /* the eager group's flags are polled from CES_P2P_POLLED_MIN (8 MiB)
     * where no message is one way, where the slow column parts from the
     * fast one: the legend says why, only where auto has such a size, not
     * captured (--graph: the captured protocol's flags are pushed at every
     * size, the columns agree) and not one way on 2 ranks; the one-way
     * pipeline of 3 ranks is polled too (its middle rank sends and
     * receives in one group, as bench runs it: ces_cuda_group_one_way), so
     * its slow column parts at 8M, as the ring's does */
    {
        static const char tail[] = " flags stay in the writer's memory and its peer polls them "
                                   "(pushed into\n# the waiter's below): no pushed wake-up, but "
                                   "polled waits can run in the slow mode\n";
        static const struct {
            const char *args, *says; /* says: the legend's owner, NULL: none */
            int parts; /* 1: pred_us and slow_us of auto differ at 8M, 0: agree */
        } cases[] = {
            {"--min-bytes 4M --max-bytes 8M", "ring's", -1},
            {"--min-bytes 8M --max-bytes 8M --variant auto", "ring's", 1},
            {"--min-bytes 8M --max-bytes 8M --ranks 3 --variant auto", "ring's", 1},
            {"--min-bytes 8M --max-bytes 8M --one-way --ranks 3 --variant auto", "pipeline's", 1},
            {"--min-bytes 8M --max-bytes 8M --one-way --ranks 3", "pipeline's", -1},
            {"--min-bytes 8M --max-bytes 8M --graph", NULL, 0},
            {"--min-bytes 8M --max-bytes 8M --graph --one-way --ranks 3", NULL, 0},
            {"--min-bytes 1M --max-bytes 4M", NULL, -1},
            {"--min-bytes 8M --max-bytes 8M --one-way --variant auto", NULL, 0},
            {"--min-bytes 8M --max-bytes 8M --variant plain", NULL, -1},
            {"--min-bytes 8M --max-bytes 8M --one-way --ranks 3 --variant plain", NULL, -1},
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            char args[160], want[320];
            const char *row;
            double pred = 0.0, slow = 0.0;

            snprintf(args, sizeof(args), "bench sendrecv --dry-run %s", cases[i].args);
            assert_int_equal(ces_test_tool(dir, args, &out), 0);
            if (cases[i].says != NULL) {
                snprintf(want, sizeof(want), "# auto: from 8M the %s%s", cases[i].says, tail);
                assert_non_null(strstr(out, want));
            } else {
                assert_null(strstr(out, "# auto: from"));
            }
            if (cases[i].parts >= 0) {
                /* bytes variant time min max busbw check pred slow */
                row = strstr(out, "        8M auto ");
                assert_non_null(row);
                assert_int_equal(sscanf(row, "%*s %*s %*s %*s %*s %*s %*s %lf %lf", &pred, &slow),
                                 2);
                assert_int_equal(slow != pred, cases[i].parts);
            }
            free(out);
        }
    }
    rmdir(dir);
}

/* csv's rows without their coll and ranks columns, one a line (malloc'd). */
static char *rows_past_ranks(const char *csv)
{
    char *got = malloc(strlen(csv) + 1), *p = got;
    const char *line = strchr(csv, '\n') + 1; /* past the header */

    assert_non_null(got);
    for (; *line != '\0'; line = strchr(line, '\n') + 1) {
        const char *v = strchr(strchr(line, ',') + 1, ',') + 1;
        size_t n = strcspn(v, "\n") + 1;

        memcpy(p, v, n);
        p += n;
    }
    *p = '\0';
    return got;
}

/* The one-way pipeline of the builder (--variant plain) moves each link's
 * message as on 2 ranks, every link at once: its steady state is 2 ranks'
 * at any count.  The bench took it as (8 iterations - 4) / 4, before the
 * pipeline had filled on 6 or more ranks: at 1M 14.29 us on 6 ranks, 16.64
 * on 7 and 18.22 on 8 for 12.71 (+43 %), and 4 chunks in 4 slots at 4K
 * 37.99 for 31.31 on 8.  Every column of both predictions must match 2
 * ranks', 2..8. */
static void test_pipeline_steady_state(void **state)
{
    static const char *const opts[] = {"", "--chunks 4 --slots 4", "--chunks 3 --slots 3"};
    char *dir = ces_test_tmpdir();

    (void)state;
    for (size_t o = 0; o < sizeof(opts) / sizeof(opts[0]); o++) {
        char args[256], *two = NULL;

        for (unsigned n = 2; n <= 8; n++) {
            char *csv, *mine;

            snprintf(args, sizeof(args),
                     "bench sendrecv --dry-run --one-way --variant plain %s --ranks %u "
                     "--min-bytes 4K --max-bytes 256M --factor 256",
                     opts[o], n);
            csv = run_csv(dir, args, "p.csv", NULL);
            mine = rows_past_ranks(csv);
            free(csv);
            if (two == NULL) {
                two = mine;
                continue;
            }
            if (strcmp(mine, two) != 0)
                fail_msg("%s: not as on 2 ranks:\n%sfor\n%s", args, mine, two);
            free(mine);
        }
        free(two);
    }
    assert_int_equal(rmdir(dir), 0);
}

/* The ring's `auto` is ces_send/ces_recv, which exchange in place: the
 * bench predicts the group's own graph (posted, copy, done), not the staged
 * builder's (`plain`), in a cesync built without CUDA too (which predicted
 * the builder's).  Captured, the group's captured graph, one way too. */
static void test_group_predictions(void **state)
{
    char *dir = ces_test_tmpdir();
    char *csv = run_csv(dir, "bench sendrecv --dry-run --min-bytes 1M --max-bytes 1M "
                             "--variant plain,auto",
                        "r.csv", NULL);

    (void)state;
    assert_non_null(strstr(csv, "sendrecv,2,1048576,cesync,plain,27.919,"));
    assert_non_null(strstr(csv, "sendrecv,2,1048576,cesync,auto,21.961,"));
    free(csv);
    /* captured, one way: the captured group's graph (staged through two
     * slots with flags a replay repeats), not the eager builder's; 11.720
     * when the model let a wait pass on a flag its own stream had reset
     * when the value became visible (the two times a sum apart in their
     * last bits); 14.461 before the graph's copy behind a batch that did
     * not block started in per_graph_copy_us */
    csv = run_csv(dir, "bench sendrecv --graph --one-way --dry-run --min-bytes 1M --max-bytes 1M "
                       "--variant auto",
                  "g.csv", NULL);
    assert_non_null(strstr(csv, "sendrecv,2,1048576,cesync,auto,13.613,"));
    free(csv);
    /* one way eager: the group's own graph as ces_send stages, each
     * message whole in one of two slots, whatever --chunks and --slots say
     * for plain (--chunks 8 predicted 108.111, 64 687.011), 16 MiB the
     * side way (test_side_way_predictions; the staged builder's graph,
     * which the bench predicted before, 51.082) */
    {
        static const char *const opts[] = {"--chunks 1 --slots 2", "--chunks 8",
                                           "--chunks 64 --slots 64", "--slots 1"};

        for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
            char args[256];

            snprintf(args, sizeof(args), "bench sendrecv --one-way --dry-run --min-bytes 16M "
                     "--max-bytes 16M --variant plain,auto %s", opts[i]);
            csv = run_csv(dir, args, "o.csv", NULL);
            assert_non_null(strstr(csv, "\nsendrecv,2,16777216,cesync,auto,47.782,"));
            free(csv);
        }
    }
    /* one way above CES_P2P_STAGE_MAX (64 MiB) the group writes in place,
     * eager and captured: the group's own graph without staging slots
     * (staged: 689.808 and 690.408), as with CES_P2P_STAGE_MAX=0 at 16 MiB
     * (staged 47.782); 64 MiB is staged, the side way */
    csv = run_csv(dir, "bench sendrecv --one-way --dry-run --min-bytes 64M --max-bytes 256M "
                       "--factor 4 --variant auto",
                  "o.csv", NULL);
    assert_non_null(strstr(csv, "\nsendrecv,2,67108864,cesync,auto,175.527,"));
    assert_non_null(strstr(csv, "\nsendrecv,2,268435456,cesync,auto,701.508,"));
    free(csv);
    csv = run_csv(dir, "bench sendrecv --one-way --graph --dry-run --min-bytes 256M "
                       "--max-bytes 256M",
                  "o.csv", NULL);
    assert_non_null(strstr(csv, "\nsendrecv,2,268435456,cesync,auto,703.308,"));
    free(csv);
    assert_int_equal(setenv("CES_P2P_STAGE_MAX", "0", 1), 0);
    csv = run_csv(dir, "bench sendrecv --one-way --dry-run --min-bytes 16M --max-bytes 16M "
                       "--variant auto",
                  "o.csv", NULL);
    assert_int_equal(unsetenv("CES_P2P_STAGE_MAX"), 0);
    assert_non_null(strstr(csv, "\nsendrecv,2,16777216,cesync,auto,62.782,"));
    free(csv);
    /* a value the communicators refuse is refused here too: the
     * prediction took "64MB" for 64 MiB, as strtoull read it */
    assert_int_equal(setenv("CES_P2P_STAGE_MAX", "64MB", 1), 0);
    ces_test_tool_says("bench sendrecv --one-way --dry-run --min-bytes 16M --max-bytes 16M "
                       "--variant auto",
                       2, "cesync: bench: CES_P2P_STAGE_MAX must be 0..2^48 bytes (digits, then "
                          "K, M or G if wanted), not '64MB'\n");
    assert_int_equal(unsetenv("CES_P2P_STAGE_MAX"), 0);
    rmdir(dir);
}

static void test_sizes_and_formulas(void **state)
{
    char *dir = ces_test_tmpdir();
    char *csv, *out = NULL;

    (void)state;
    /* 3 ranks: alltoall sizes round down to multiples of 4 x 3 bytes, but
     * not below --min-bytes (1K gave 1020, outside the range, unsaid) */
    csv = run_csv(dir, "bench alltoall --dry-run --ranks 3 --min-bytes 1K --max-bytes 4K "
                       "--variant plain",
                  "a.csv", &out);
    assert_non_null(strstr(csv, "\nalltoall,3,1032,cesync,plain,"));
    assert_non_null(strstr(csv, "\nalltoall,3,2040,cesync,plain,"));
    assert_non_null(strstr(csv, "\nalltoall,3,4092,cesync,plain,"));
    assert_null(strstr(csv, "\nalltoall,3,1020,"));
    free(csv);
    assert_non_null(strstr(out, "cesync: bench: alltoall on 3 ranks moves multiples of 12 bytes "
                                "(bytes/3 to each rank, in 4-byte words): measured 1032 for 1K, "
                                "2040 for 2K, 4092 for 4K\n"));
    free(out);
    /* the sweep's tolerance for rounding (1e-9 of --max-bytes: 8.6 bytes
     * at 8G) never takes a size above --max-bytes: 8G - 8 times the factor
     * is 8G + 0.6, rounded down to 8G */
    csv = run_csv(dir, "bench sendrecv --dry-run --one-way --min-bytes 8589934584 "
                       "--max-bytes 8589934588 --factor 1.000000001 --variant plain",
                  "m.csv", NULL);
    assert_non_null(strstr(csv, "\nsendrecv,2,8589934584,cesync,plain,"));
    assert_null(strstr(csv, "\nsendrecv,2,8589934592,"));
    free(csv);
    /* allgather: algbw counts the n x bytes received, busbw x (n-1)/n */
    csv = run_csv(dir, "bench allgather --dry-run --min-bytes 1M --max-bytes 1M --variant overlap",
                  "g.csv", NULL);
    {
        double t, alg, bus;
        const char *row = strstr(csv, "\nallgather,2,1048576,cesync,overlap,");

        assert_non_null(row);
        assert_int_equal(sscanf(row, "\nallgather,2,1048576,cesync,overlap,%lf,%*f,%*f,%lf,%lf", &t,
                                &alg, &bus),
                         3);
        assert_true(alg > 0.0);
        assert_true(fabs(alg - 2.0 * 1048576 / t / 1e3) < 1e-2);
        assert_true(fabs(bus - alg / 2.0) < 1e-2);
    }
    free(csv);
    rmdir(dir);
}

/* The columns of text line `line` (up to its end): for each word (a run of
 * characters other than ' ' and '|') the column after its last character
 * into end[] and that of its first into start[]; returns how many. */
static int columns(const char *line, int *start, int *end, int max)
{
    int n = 0;

    for (int c = 0; line[c] != '\0' && line[c] != '\n' && n < max; c++) {
        if (line[c] == ' ' || line[c] == '|' || (c > 0 && line[c - 1] != ' ' && line[c - 1] != '|'))
            continue;
        start[n] = c;
        while (line[c + 1] != '\0' && line[c + 1] != '\n' && line[c + 1] != ' ' && line[c + 1] != '|')
            c++;
        end[n++] = c + 1;
    }
    return n;
}

/* Every heading of the table ends where its column's values end (the
 * variant's, which is left-aligned, starts where they start): "bytes" and
 * "err%" were a column off their values, and a value wider than its
 * column (the directed variant, a size of 10 digits or more) pushed the
 * rest of its row right. */
static void test_table_aligned(void **state)
{
    static const char *const cmds[] = {
        "bench alltoall --dry-run --max-bytes 4K",
        "bench gather --dry-run --max-bytes 4K --variant directed",
        "bench scatter --dry-run --max-bytes 4K --variant auto,directed",
        "bench alltoall --dry-run --ranks 3 --min-bytes 8G --max-bytes 16G --variant plain",
        /* a slow machine: 1 s per call and more (the times once overflowed
         * their columns there), 1e9 us and more, and busbw below 0.1 */
        "bench alltoall --dry-run --min-bytes 1G --max-bytes 16G --factor 16 --model slow.model",
        "bench allgather --dry-run --min-bytes 1M --max-bytes 16G --factor 64 --model crawl.model",
    };
    char *dir = ces_test_tmpdir(), path[512];

    (void)state;
    snprintf(path, sizeof(path), "%s/slow.model", dir);
    ces_test_put_file(path, "peer_copy_gbps = 1\nlocal_copy_gbps = 1\n");
    snprintf(path, sizeof(path), "%s/crawl.model", dir);
    ces_test_put_file(path, "peer_copy_gbps = 0.001\nlocal_copy_gbps = 0.001\n");
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char *out = NULL;
        const char *head, *row;
        int hs[32], he[32], n, rows = 0;

        assert_int_equal(ces_test_tool(dir, cmds[i], &out), 0);
        head = strstr(out, "\n#    ");
        assert_non_null(head);
        head++;
        n = columns(head, hs, he, 32);
        assert_int_equal(n, 18); /* '#' and 17 headings */
        for (row = strchr(head, '\n') + 1; *row == ' '; row = strchr(row, '\n') + 1) {
            int vs[32], ve[32];

            assert_int_equal(columns(row, vs, ve, 32), 17);
            for (int k = 0; k < 17; k++)
                if (k == 1 ? vs[k] != hs[k + 1] : ve[k] != he[k + 1])
                    fail_msg("'cesync %s': column %d of\n%.*s\nis not under its heading in\n%.*s",
                             cmds[i], k + 1, (int)(strchr(row, '\n') - row), row,
                             (int)(strchr(head, '\n') - head), head);
            rows++;
        }
        assert_true(rows > 0);
        free(out);
    }
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof(path), "%s/slow.model", dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* Every size measured lies from --min-bytes to --max-bytes and is one the
 * collective moves; a size of the sweep that is none is rounded (down, or
 * up where down falls below --min-bytes or onto the size before) and one
 * note on stderr says which were measured instead of which; a range with
 * none measures the one below it, said so too, and a --max-bytes below the
 * smallest is refused with the rule.  (--min-bytes 9 --max-bytes 9
 * measured 8 unsaid, --min-bytes 6 started at 8 unsaid, and --min-bytes 4
 * --max-bytes 4 was refused as "no size in range" after "need 4 <=
 * --min-bytes".) */
static void test_sizes_in_range(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, *csv;

    (void)state;
    assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --min-bytes 4 --max-bytes 4",
                                   &out),
                     2);
    assert_string_equal(out, "cesync: bench: alltoall on 2 ranks moves multiples of 8 bytes "
                             "(bytes/2 to each rank, in 4-byte words): none is at most "
                             "--max-bytes 4\n");
    free(out);
    assert_int_equal(ces_test_tool(dir, "bench sendrecv --dry-run --min-bytes 6 --max-bytes 7",
                                   &out),
                     2);
    assert_string_equal(out, "cesync: bench: sendrecv in 2 chunks moves multiples of 8 bytes "
                             "(each chunk in 4-byte words): none is at most --max-bytes 7\n");
    free(out);
    /* one size that the collective cannot move: the one below, said */
    csv = run_csv(dir, "bench alltoall --dry-run --min-bytes 9 --max-bytes 9 --variant plain",
                  "s.csv", &out);
    assert_non_null(strstr(out, "cesync: bench: alltoall on 2 ranks moves multiples of 8 bytes "
                                "(bytes/2 to each rank, in 4-byte words): measured 8 for 9\n"));
    free(out);
    assert_non_null(strstr(csv, "\nalltoall,2,8,cesync,plain,"));
    free(csv);
    csv = run_csv(dir, "bench alltoall --dry-run --ranks 5 --min-bytes 1M --max-bytes 1M "
                       "--variant plain",
                  "s.csv", &out);
    assert_non_null(strstr(out, "cesync: bench: alltoall on 5 ranks moves multiples of 20 bytes "
                                "(bytes/5 to each rank, in 4-byte words): measured 1048560 for "
                                "1M\n"));
    free(out);
    assert_non_null(strstr(csv, "\nalltoall,5,1048560,cesync,plain,"));
    free(csv);
    /* 6, 12, 24, 48 by 8s: 6 up to 8, 12 up to 16 (down is 8, measured
     * already), 24 and 48 as they are */
    csv = run_csv(dir, "bench alltoall --dry-run --min-bytes 6 --max-bytes 64 --variant plain",
                  "s.csv", &out);
    assert_non_null(strstr(out, "cesync: bench: alltoall on 2 ranks moves multiples of 8 bytes "
                                "(bytes/2 to each rank, in 4-byte words): measured 8 for 6, 16 for "
                                "12\n"));
    free(out);
    assert_non_null(strstr(csv, "\nalltoall,2,8,cesync,plain,"));
    assert_non_null(strstr(csv, "\nalltoall,2,16,cesync,plain,"));
    assert_non_null(strstr(csv, "\nalltoall,2,24,cesync,plain,"));
    assert_non_null(strstr(csv, "\nalltoall,2,48,cesync,plain,"));
    assert_null(strstr(csv, "\nalltoall,2,64,"));
    free(csv);
    /* a --min-bytes below the first multiple (32 on 8 ranks): the sizes
     * that round below it go up past the size before as well, each
     * measured once (4, 8 and 16 were all 32, 32 then 64, 64 then 96:
     * three rows of 32) */
    csv = run_csv(dir, "bench alltoall --dry-run --ranks 8 --min-bytes 4 --max-bytes 256 "
                       "--variant plain",
                  "s.csv", &out);
    assert_non_null(strstr(out, "cesync: bench: alltoall on 8 ranks moves multiples of 32 bytes "
                                "(bytes/8 to each rank, in 4-byte words): measured 32 for 4, 64 "
                                "for 8, 96 for 16, 128 for 32, 160 for 64, 192 for 128\n"));
    free(out);
    {
        const char *at = strchr(csv, '\n');
        static const char *const sizes[] = {"32", "64", "96", "128", "160", "192", "256"};

        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            char want[64];

            snprintf(want, sizeof(want), "\nalltoall,8,%s,cesync,plain,", sizes[k]);
            assert_non_null(at);
            assert_true(strncmp(at, want, strlen(want)) == 0);
            at = strchr(at + 1, '\n');
        }
        assert_non_null(at);
        assert_string_equal(at, "\n");
    }
    free(csv);
    /* sizes the collective moves as asked: no note */
    csv = run_csv(dir, "bench allgather --dry-run --min-bytes 1K --max-bytes 4K --variant plain",
                  "s.csv", &out);
    assert_null(strstr(out, "measured"));
    free(out);
    free(csv);
    /* a fractional factor: 1331.2 is asked as 1331, measured 1328 */
    csv = run_csv(dir, "bench allgather --dry-run --min-bytes 1K --max-bytes 1400 --factor 1.3 "
                       "--variant plain",
                  "s.csv", &out);
    assert_non_null(strstr(out, "cesync: bench: allgather moves multiples of 4 bytes (4-byte "
                                "words): measured 1328 for 1331\n"));
    free(out);
    assert_non_null(strstr(csv, "\nallgather,2,1328,cesync,plain,"));
    free(csv);
    /* the size beside the compute kernel is rounded as the sizes are, for
     * every collective (only alltoall's was: 64M in 3 chunks failed the
     * plain variant's run), said before the run refuses --dry-run */
    assert_int_equal(ces_test_tool(dir, "bench sendrecv --dry-run --chunks 3 --variant plain "
                                        "--min-bytes 12 --max-bytes 12 --with-compute",
                                   &out),
                     2);
    assert_string_equal(out, "cesync: bench: sendrecv in 3 chunks moves multiples of 12 bytes "
                             "(each chunk in 4-byte words): --compute-bytes measured 67108860 "
                             "for 64M\n"
                             "cesync: bench: --dry-run cannot --calibrate or --with-compute\n");
    free(out);
    assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --ranks 3 --min-bytes 12 "
                                        "--max-bytes 12 --with-compute --compute-bytes 24",
                                   &out),
                     2);
    assert_string_equal(out, "cesync: bench: --dry-run cannot --calibrate or --with-compute\n");
    free(out);
    /* refused before any prediction (it came after the sweep's: minutes
     * for a long one, here a model that predicts none, whose reasons came
     * first), and before the model file is read */
    {
        char path[512];

        snprintf(path, sizeof(path), "%s/two.model", dir);
        ces_test_put_file(path, "max_ranks = 2\n");
        assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --ranks 4 --min-bytes 1M "
                                            "--max-bytes 1M --variant plain --model two.model "
                                            "--calibrate",
                                       &out),
                         2);
        assert_string_equal(out,
                            "cesync: bench: --dry-run cannot --calibrate or --with-compute\n");
        free(out);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --max-bytes 1K --model "
                                            "/nonexistent/m.model --with-compute",
                                       &out),
                         2);
        assert_string_equal(out,
                            "cesync: bench: --dry-run cannot --calibrate or --with-compute\n");
        free(out);
    }
    assert_int_equal(rmdir(dir), 0);
}

/* A stand-in for Graphviz in DIR/bin: it writes its arguments one per line
 * to dot-args (in the directory it runs in) and "drawn" to its output (the
 * third argument, after -TFMT -o), then exits with $CES_FAKE_DOT_RC. */
static void fake_dot(const char *dir, char *bin, size_t size)
{
    char path[256];
    FILE *f;

    snprintf(bin, size, "%s/bin", dir);
    assert_int_equal(mkdir(bin, 0700), 0);
    snprintf(path, sizeof(path), "%s/dot", bin);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\n"
          "printf '%s\\n' \"$@\" > dot-args\n"
          "printf 'drawn\\n'\n"
          "exit \"${CES_FAKE_DOT_RC:-0}\"\n",
          f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, 0700), 0);
}

/* `cesync bench ARGS` in dir with PATH set to path only. */
static int bench_with_path(const char *dir, const char *path, const char *args, char **out)
{
    char *saved = strdup(getenv("PATH") != NULL ? getenv("PATH") : "/usr/bin:/bin");
    int rc;

    assert_non_null(saved);
    assert_int_equal(setenv("PATH", path, 1), 0);
    rc = ces_test_tool(dir, args, out);
    assert_int_equal(setenv("PATH", saved, 1), 0);
    free(saved);
    return rc;
}

/* dir/name holds exactly `want` (NULL: starts with a Graphviz graph); then
 * it is removed. */
static void expect_file(const char *dir, const char *name, const char *want)
{
    char path[256], *text;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    text = ces_test_read_file(path, NULL);
    if (want != NULL)
        assert_string_equal(text, want);
    else
        assert_true(strncmp(text, "graph bench {\n", 14) == 0);
    free(text);
    assert_int_equal(remove(path), 0);
}

/* dir/dot-args holds the arguments `dot -TFMT` that drew a picture (to
 * its standard output: a temporary file beside the picture, renamed over
 * it once drawn, so that no name of the picture is an argument); then it
 * is removed. */
static void expect_dot_args(const char *dir, const char *fmt)
{
    char path[256], want[256], *text;

    snprintf(path, sizeof(path), "%s/dot-args", dir);
    text = ces_test_read_file(path, NULL);
    snprintf(want, sizeof(want), "-T%s\n", fmt);
    assert_string_equal(text, want);
    free(text);
    assert_int_equal(remove(path), 0);
}

static void test_plot_runs_dot(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, bin[128], path[256], got[256];

    (void)state;
    fake_dot(dir, bin, sizeof(bin));
    /* Quotes, a space and a dollar are plain characters of one argument. */
    assert_int_equal(setenv("CES_FAKE_DOT_RC", "0", 1), 0);
    assert_int_equal(bench_with_path(dir, bin,
                                     "bench alltoall --dry-run --min-bytes 1K --max-bytes 4K "
                                     "--variant plain --plot 'it'\\''s \"q\" $x.svg'",
                                     &out),
                     0);
    assert_non_null(strstr(out, "\ncesync: wrote it's \"q\" $x.svg\n"));
    free(out);
    expect_dot_args(dir, "svg");
    expect_file(dir, "it's \"q\" $x.svg", "drawn\n");
    /* drawn: the .dot is gone */
    snprintf(path, sizeof(path), "%s/it's \"q\" $x.dot", dir);
    assert_int_not_equal(access(path, F_OK), 0);

    /* dot fails after writing part of its picture: its status is said, the
     * .dot is kept, the picture of an earlier run stays as it was (dot wrote
     * over it), nothing is left beside it, and the plot asked for is
     * missing: exit 2 (it was 0) */
    snprintf(path, sizeof(path), "%s/b.png", dir);
    ces_test_put_file(path, "earlier picture\n");
    assert_int_equal(setenv("CES_FAKE_DOT_RC", "3", 1), 0);
    assert_int_equal(bench_with_path(dir, bin,
                                     "bench alltoall --dry-run --min-bytes 1K --max-bytes 4K "
                                     "--variant plain --plot b.png",
                                     &out),
                     2);
    assert_non_null(strstr(out, "cesync: bench: --plot: dot -Tpng failed drawing b.png (exit status 3); "
                                "the plot is in b.dot\n"));
    assert_null(strstr(out, "cesync: wrote"));
    free(out);
    expect_dot_args(dir, "png");
    expect_file(dir, "b.png", "earlier picture\n");
    expect_file(dir, "b.dot", NULL);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "bin;");
    assert_int_equal(unsetenv("CES_FAKE_DOT_RC"), 0);

    /* no dot on PATH: said, the .dot is kept, the bench succeeded; the
     * source names its layout, so that plain `dot -Tsvg` draws it later */
    assert_int_equal(bench_with_path(dir, dir,
                                     "bench alltoall --dry-run --min-bytes 1K --max-bytes 4K "
                                     "--variant plain --plot 'c d.svg'",
                                     &out),
                     0);
    assert_non_null(strstr(out, "cesync: bench: --plot: c d.svg not drawn: Graphviz 'dot' is not "
                                "installed; the plot is in c d.dot (`dot -Tsvg` draws it), and "
                                "the exit status does not count it\n"));
    free(out);
    snprintf(path, sizeof(path), "%s/c d.dot", dir);
    out = ces_test_read_file(path, NULL);
    assert_non_null(strstr(out, "\n  graph [layout=neato, inputscale=72, "));
    free(out);
    expect_file(dir, "c d.dot", NULL);

    /* dot draws from a temporary file in TMPDIR: one that cannot be made
     * there is said before the sweep (it was after it, the plot kept as
     * its .dot), and nothing is written */
    {
        char *saved = ces_test_env_save("TMPDIR");

        assert_int_equal(setenv("TMPDIR", "/nonexistent", 1), 0);
        assert_int_equal(bench_with_path(dir, bin,
                                         "bench alltoall --dry-run --min-bytes 1K --max-bytes 4K "
                                         "--variant plain --plot t.svg",
                                         &out),
                         2);
        assert_string_equal(out, "cesync: bench: --plot t.svg: cannot create a temporary file in "
                                 "/nonexistent (TMPDIR): No such file or directory\n");
        free(out);
        ces_test_env_restore("TMPDIR", saved);
        ces_test_dir_entries(dir, got, sizeof(got));
        assert_string_equal(got, "bin;");
    }

    /* a path that starts with '-' is not taken for an option of dot */
    assert_int_equal(bench_with_path(dir, bin,
                                     "bench alltoall --dry-run --min-bytes 1K --max-bytes 4K "
                                     "--variant plain --plot -e.svg",
                                     &out),
                     0);
    assert_non_null(strstr(out, "\ncesync: wrote -e.svg\n"));
    free(out);
    expect_dot_args(dir, "svg");
    expect_file(dir, "-e.svg", "drawn\n");
    snprintf(path, sizeof(path), "%s/dot", bin);
    remove(path);
    rmdir(bin);
    assert_int_equal(rmdir(dir), 0);
}

/* Runs `cesync ARGS --csv` in dir: its CSV must hold `row` and no nan (a
 * prediction that could not be made). */
static void expect_row(const char *dir, const char *args, const char *row)
{
    char *csv = run_csv(dir, args, "r.csv", NULL);

    if (strstr(csv, row) == NULL || strstr(csv, "nan") != NULL)
        fail_msg("'cesync %s' wrote no row '%s', or a nan:\n%s", args, row + 1, csv);
    free(csv);
}

/* ces_send/ces_recv one way on 2 ranks send a staged message of
 * CES_P2P_SIDE_MIN bytes or more (16 MiB by default) the side way: the
 * sender's flag write and credit wait leave its copy stream, whose copies
 * run back to back (backend/cuda/group.c).  The dry run predicted the
 * staged builder's graph at every size, whatever CES_P2P_SIDE_MIN said: 16
 * MiB 51.082 us, 64 MiB 178.827, where the side way takes 47.782 and
 * 175.527 (measured 49.1 and 175.0 against 53.6 and 180.1 before the side
 * way, docs/PERFORMANCE.md, "sendrecv").  The setting is read as the
 * communicators read it (CES_P2P_STAGE_MAX first; a malformed one is
 * refused in its words); a message of exactly CES_P2P_SIDE_MIN bytes goes
 * the side way; captured messages never do (179.427 either way), nor do
 * any under CUDA_DEVICE_MAX_CONNECTIONS below 8, where a communicator's
 * streams share hardware queues (the dry run predicted the side way there
 * too: 47.782 and 175.527). */
static void test_side_way_predictions(void **state)
{
    static const struct {
        const char *env;    /* CES_P2P_SIDE_MIN, NULL: unset */
        const char *queues; /* CUDA_DEVICE_MAX_CONNECTIONS, NULL: unset */
        double us[3];       /* auto at 4M, 16M, 64M */
    } cases[] = {
        {NULL, NULL, {19.145, 47.782, 175.527}},
        {"1G", NULL, {19.145, 51.082, 178.827}},
        {"64M", NULL, {19.145, 51.082, 175.527}},
        {"16777217", NULL, {19.145, 51.082, 175.527}},
        {"0", NULL, {17.728, 47.782, 175.527}},
        /* shared hardware queues: the communicators send nothing the side
         * way; 8 queues and a value CUDA reads as 8 do not share them */
        {NULL, "1", {19.145, 51.082, 178.827}},
        {"0", "7", {19.145, 51.082, 178.827}},
        {NULL, "8", {19.145, 47.782, 175.527}},
        {"0", "x", {17.728, 47.782, 175.527}},
    };
    char *dir = ces_test_tmpdir();

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *csv;

        if (cases[i].env != NULL)
            assert_int_equal(setenv("CES_P2P_SIDE_MIN", cases[i].env, 1), 0);
        if (cases[i].queues != NULL)
            assert_int_equal(setenv("CUDA_DEVICE_MAX_CONNECTIONS", cases[i].queues, 1), 0);
        csv = run_csv(dir, "bench sendrecv --one-way --dry-run --min-bytes 4M --max-bytes 64M "
                           "--factor 4 --variant auto",
                      "s.csv", NULL);
        for (int k = 0; k < 3; k++) {
            char want[80];

            snprintf(want, sizeof(want), "\nsendrecv,2,%llu,cesync,auto,%.3f,",
                     (unsigned long long)(UINT64_C(4) << (20 + 2 * k)), cases[i].us[k]);
            if (strstr(csv, want) == NULL)
                fail_msg("CES_P2P_SIDE_MIN=%s CUDA_DEVICE_MAX_CONNECTIONS=%s: no %s in\n%s",
                         cases[i].env != NULL ? cases[i].env : "(unset)",
                         cases[i].queues != NULL ? cases[i].queues : "(unset)", want + 1, csv);
        }
        free(csv);
        expect_row(dir,
                   "bench sendrecv --one-way --graph --dry-run --min-bytes 64M --max-bytes 64M",
                   "\nsendrecv,2,67108864,cesync,auto,179.427,");
        assert_int_equal(unsetenv("CES_P2P_SIDE_MIN"), 0);
        assert_int_equal(unsetenv("CUDA_DEVICE_MAX_CONNECTIONS"), 0);
    }
    assert_int_equal(setenv("CES_P2P_SIDE_MIN", "16MB", 1), 0);
    ces_test_tool_says("bench sendrecv --one-way --dry-run --min-bytes 16M --max-bytes 16M", 2,
                       "cesync: bench: CES_P2P_SIDE_MIN must be 0..2^48 bytes (digits, then K, "
                       "M or G if wanted), not '16MB'\n");
    assert_int_equal(unsetenv("CES_P2P_SIDE_MIN"), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* Under CUDA_DEVICE_MAX_CONNECTIONS below a variant's streams the dry run
 * predicts its graph with them sharing the queues, as the run's variants
 * declare it (ces_cuda_queues_adopt): the sendrecv ring's plain at 1 MiB,
 * on two streams, takes 73.153 us on one queue and 27.919 on two, eight or
 * unset.  Alltoall overlap at 1 MiB, its local copy on s1, takes 14.031 us
 * under any setting: its barrier, behind the record that follows the local
 * copy on s1, goes on as the copy starts, as the probe queue-hold measured
 * (16.338 on one queue while the record held the queue until the copy
 * ended); plain, one stream, 24.588 everywhere.  The header names a
 * setting below 8. */
static void test_dry_run_shared_queues(void **state)
{
    static const struct {
        const char *queues; /* CUDA_DEVICE_MAX_CONNECTIONS, NULL: unset */
        double ring; /* sendrecv plain */
    } cases[] = {{NULL, 27.919}, {"1", 73.153}, {"2", 27.919}, {"8", 27.919}};
    char *saved = ces_test_env_save("CUDA_DEVICE_MAX_CONNECTIONS");
    char *dir = ces_test_tmpdir();

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char want[96], *out = NULL, *csv;

        if (cases[i].queues != NULL)
            assert_int_equal(setenv("CUDA_DEVICE_MAX_CONNECTIONS", cases[i].queues, 1), 0);
        else
            assert_int_equal(unsetenv("CUDA_DEVICE_MAX_CONNECTIONS"), 0);
        csv = run_csv(dir, "bench alltoall --dry-run --min-bytes 1M --max-bytes 1M "
                           "--variant plain,overlap",
                      "q.csv", &out);
        assert_non_null(strstr(csv, "\nalltoall,2,1048576,cesync,plain,24.588,"));
        assert_non_null(strstr(csv, "\nalltoall,2,1048576,cesync,overlap,14.031,"));
        free(csv);
        csv = run_csv(dir, "bench sendrecv --dry-run --min-bytes 1M --max-bytes 1M "
                           "--variant plain",
                      "q.csv", NULL);
        snprintf(want, sizeof(want), "\nsendrecv,2,1048576,cesync,plain,%.3f,", cases[i].ring);
        if (strstr(csv, want) == NULL)
            fail_msg("CUDA_DEVICE_MAX_CONNECTIONS=%s: no %s in\n%s",
                     cases[i].queues != NULL ? cases[i].queues : "(unset)", want + 1, csv);
        snprintf(want, sizeof(want), "model h200\n# CUDA_DEVICE_MAX_CONNECTIONS=%s\n",
                 cases[i].queues != NULL ? cases[i].queues : "");
        if (cases[i].queues != NULL && strcmp(cases[i].queues, "8") != 0)
            assert_non_null(strstr(out, want));
        else
            assert_null(strstr(out, "CUDA_DEVICE_MAX_CONNECTIONS"));
        free(out);
        free(csv);
    }
    ces_test_env_restore("CUDA_DEVICE_MAX_CONNECTIONS", saved);
    assert_int_equal(rmdir(dir), 0);
}

/* Runs `cesync ARGS --plot p.svg` (2 ranks, a dry run) in dir with no
 * `dot` on PATH, which keeps the plot's source p.dot: its title must name
 * the collective as `title` and say that the rates are the cost model's
 * (it read as a measurement); then p.dot is removed. */
static void expect_plot_title(const char *dir, const char *args, const char *title)
{
    char cmd[512], path[256], want[256], *out = NULL, *dot;

    snprintf(cmd, sizeof(cmd), "%s --plot p.svg", args);
    assert_int_equal(bench_with_path(dir, dir, cmd, &out), 0);
    free(out);
    snprintf(path, sizeof(path), "%s/p.dot", dir);
    dot = ces_test_read_file(path, NULL);
    snprintf(want, sizeof(want),
             "label=\"cesync bench %s, 2 GPUs: busbw (GB/s) against bytes per rank, "
             "predicted (--dry-run)\"",
             title);
    if (strstr(dot, want) == NULL)
        fail_msg("'cesync %s' drew no title '%s':\n%s", cmd, want, dot);
    free(dot);
    assert_int_equal(remove(path), 0);
}

/* allgather --in-place: rank r's send is its block of recv.  The
 * CSV keeps its columns and names the collective allgather-inplace; the
 * variants are auto and plain, and both predict the in-place graph, which
 * has no local copy: at 256M plain takes 695.5 us in place against 837.7
 * out of place.  (auto predicts the same both ways: out of place it runs
 * the overlap schedule, which hides the local copy.)  The header
 * and the plot's title say "(in place)". */
static void test_in_place(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL;
    char *csv = run_csv(dir, "bench allgather --dry-run --in-place --min-bytes 1M --max-bytes 256M "
                             "--factor 256",
                        "i.csv", &out);

    (void)state;
    assert_non_null(strstr(out, "# cesync bench allgather (in place): 2 ranks (one process), 20 "
                                "iterations after 5 warm-up, eager; model h200\n"));
    assert_non_null(strstr(out, "      256M auto       695.51    695.51    695.51   386.0     -    "
                                "695.51    700.41      -  |"));
    free(out);
    assert_string_equal(csv,
                        "coll,ranks,bytes,impl,variant,time_us,min_us,max_us,algbw_gbps,"
                        "busbw_gbps,check,pred_us,pred_slow_us\n"
                        "allgather-inplace,2,1048576,cesync,auto,15.361,15.361,15.361,136.521,"
                        "68.261,-,15.361,25.161\n"
                        "allgather-inplace,2,1048576,cesync,plain,15.361,15.361,15.361,136.521,"
                        "68.261,-,15.361,25.161\n"
                        "allgather-inplace,2,268435456,cesync,auto,695.508,695.508,695.508,"
                        "771.912,385.956,-,695.508,700.408\n"
                        "allgather-inplace,2,268435456,cesync,plain,695.508,695.508,695.508,"
                        "771.912,385.956,-,695.508,700.408\n");
    free(csv);
    expect_row(dir, "bench allgather --dry-run --min-bytes 256M --max-bytes 256M --variant plain",
               "\nallgather,2,268435456,cesync,plain,837.653,");
    /* captured: the in-place graph of the captured protocol */
    expect_row(dir, "bench allgather --dry-run --graph --in-place --min-bytes 64M --max-bytes 64M "
                    "--variant auto",
               "\nallgather-inplace,2,67108864,cesync,auto,");
    expect_plot_title(dir, "bench allgather --dry-run --in-place --max-bytes 4K",
                      "allgather (in place)");
    assert_int_equal(rmdir(dir), 0);
}

/* broadcast, gather and scatter at `bytes` per rank (send B, recv n*B on
 * gather's root; send n*B on scatter's root, recv B): the variants auto
 * and plain, the root in the header, nccl-tests' formulas.  On 2 ranks
 * plain's root batch of broadcast and scatter holds its local copy and its
 * peer copy, one after the other: at 256M the out-of-place allgather's
 * plain time (837.7 us); auto (the overlap variant) copies locally on a
 * second stream beside the peer copy: about one peer copy (694.6), as
 * gather, whose peer copies into the root while the root copies its own
 * block (the in-place allgather's 695.5).  broadcast: algbw = busbw = B/t; gather, scatter: algbw = 2B/t,
 * busbw = B/t. */
static void test_rooted(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL;
    char *csv = run_csv(dir, "bench broadcast --dry-run --root 1 --min-bytes 1M --max-bytes 256M "
                             "--factor 256",
                        "b.csv", &out);

    (void)state;
    assert_non_null(strstr(out, "# cesync bench broadcast (root 1): 2 ranks (one process), 20 "
                                "iterations after 5 warm-up, eager; model h200\n"));
    assert_non_null(strstr(out, "      256M auto       694.61    694.61    694.61   386.5     -    "
                                "694.61    703.81      -  |"));
    assert_non_null(strstr(out, "# raw_bw: the root's copies to every peer in one batch (the "
                                "physical limit, GB/s:\n"));
    free(out);
    assert_string_equal(csv,
                        "coll,ranks,bytes,impl,variant,time_us,min_us,max_us,algbw_gbps,"
                        "busbw_gbps,check,pred_us,pred_slow_us\n"
                        "broadcast,2,1048576,cesync,auto,15.361,15.361,15.361,68.261,68.261,-,"
                        "15.361,25.161\n"
                        "broadcast,2,1048576,cesync,plain,26.176,26.176,26.176,40.058,40.058,-,"
                        "26.176,35.976\n"
                        "broadcast,2,268435456,cesync,auto,694.608,694.608,694.608,386.456,"
                        "386.456,-,694.608,703.808\n"
                        "broadcast,2,268435456,cesync,plain,836.753,836.753,836.753,320.806,"
                        "320.806,-,836.753,845.953\n");
    free(csv);
    csv = run_csv(dir, "bench scatter --dry-run --root 1 --min-bytes 1M --max-bytes 256M "
                       "--factor 256",
                  "s.csv", NULL);
    assert_string_equal(csv,
                        "coll,ranks,bytes,impl,variant,time_us,min_us,max_us,algbw_gbps,"
                        "busbw_gbps,check,pred_us,pred_slow_us\n"
                        "scatter,2,1048576,cesync,auto,15.361,15.361,15.361,136.521,68.261,-,"
                        "15.361,25.161\n"
                        "scatter,2,1048576,cesync,plain,26.176,26.176,26.176,80.116,40.058,-,"
                        "26.176,35.976\n"
                        "scatter,2,268435456,cesync,auto,694.608,694.608,694.608,772.912,"
                        "386.456,-,694.608,703.808\n"
                        "scatter,2,268435456,cesync,plain,836.753,836.753,836.753,641.612,"
                        "320.806,-,836.753,845.953\n");
    free(csv);
    /* the default root is 0: the same times as root 1 */
    csv = run_csv(dir, "bench gather --dry-run --min-bytes 1M --max-bytes 256M --factor 256",
                  "g.csv", &out);
    assert_non_null(strstr(out, "# cesync bench gather (root 0): 2 ranks "));
    assert_non_null(strstr(out, "# raw_bw: every peer's copy into the root, all at once (the "
                                "physical limit, GB/s:\n"));
    free(out);
    assert_string_equal(csv,
                        "coll,ranks,bytes,impl,variant,time_us,min_us,max_us,algbw_gbps,"
                        "busbw_gbps,check,pred_us,pred_slow_us\n"
                        "gather,2,1048576,cesync,auto,15.361,15.361,15.361,136.521,68.261,-,"
                        "15.361,25.161\n"
                        "gather,2,1048576,cesync,plain,15.361,15.361,15.361,136.521,68.261,-,"
                        "15.361,25.161\n"
                        "gather,2,268435456,cesync,auto,694.608,694.608,694.608,772.912,"
                        "386.456,-,694.608,703.808\n"
                        "gather,2,268435456,cesync,plain,694.608,694.608,694.608,772.912,"
                        "386.456,-,694.608,703.808\n");
    free(csv);
    /* overlap is auto's schedule without the wake chain (on a stream of
     * its own, shorter than the rest: the same prediction); directed is
     * overlap with each barrier one way (the model: 0.9 us more at 1 MiB) */
    csv = run_csv(dir, "bench broadcast --dry-run --min-bytes 1M --max-bytes 1M "
                       "--variant overlap,directed",
                  "d.csv", NULL);
    assert_non_null(strstr(csv, "\nbroadcast,2,1048576,cesync,overlap,15.361,"));
    assert_non_null(strstr(csv, "\nbroadcast,2,1048576,cesync,directed,16.261,"));
    free(csv);
    expect_row(dir, "bench gather --dry-run --root 1 --min-bytes 256M --max-bytes 256M",
               "\ngather,2,268435456,cesync,plain,694.608,694.608,694.608,772.912,386.456,");
    /* 4 ranks, root 2: the root's batch copies three peer blocks and its
     * own one after the other, 577.9 us at 64M for broadcast and scatter
     * (busbw B/t and 3B/t); gather's three peers copy into the root at once:
     * 3 x 64M through the root's link in 525.2 us */
    expect_row(dir, "bench broadcast --dry-run --ranks 4 --root 2 --min-bytes 64M --max-bytes 64M "
                    "--variant plain",
               "\nbroadcast,4,67108864,cesync,plain,577.942,577.942,577.942,116.117,116.117,");
    expect_row(dir, "bench scatter --dry-run --ranks 4 --root 2 --min-bytes 64M --max-bytes 64M "
                    "--variant plain",
               "\nscatter,4,67108864,cesync,plain,577.942,577.942,577.942,464.468,348.351,");
    expect_row(dir, "bench gather --dry-run --ranks 4 --root 2 --min-bytes 64M --max-bytes 64M "
                    "--variant plain",
               "\ngather,4,67108864,cesync,plain,525.181,525.181,525.181,511.129,383.347,");
    /* captured: the backend's captured protocol (pull) with the root */
    expect_row(dir, "bench broadcast --dry-run --graph --ranks 3 --root 2 --min-bytes 8M "
                    "--max-bytes 8M --variant auto",
               "\nbroadcast,3,8388608,cesync,auto,");
    expect_row(dir, "bench gather --dry-run --graph --ranks 3 --root 2 --min-bytes 8M "
                    "--max-bytes 8M --variant auto",
               "\ngather,3,8388608,cesync,auto,");
    expect_row(dir, "bench scatter --dry-run --graph --ranks 3 --root 2 --min-bytes 8M "
                    "--max-bytes 8M --variant auto",
               "\nscatter,3,8388608,cesync,auto,");
    expect_plot_title(dir, "bench scatter --dry-run --root 1 --max-bytes 4K", "scatter (root 1)");
    assert_int_equal(rmdir(dir), 0);
}

/* broadcast, gather and scatter --in-place: a rank's send and recv share
 * one buffer, so the root's local copy is gone.  The variants are auto and
 * plain, both predicting the in-place graph: on 2 ranks plain's root batch
 * of broadcast and scatter keeps only its peer copy, about one peer copy
 * (694.6 us at 256M, 15.4 at 1M) against 836.8 and 26.2 out of place
 * (test_rooted), the times of auto, whose overlap hides the local copy;
 * gather's plain already overlapped the root's own block with the peer's
 * copy into it and keeps its time.  On 4 ranks, root 2, at 64M the
 * root's batch of three peer copies takes 535.7 us against 577.9 with its
 * own after them.  The header and the plot's title say "(in place, root
 * R)", the CSV's coll column "<coll>-inplace". */
static void test_rooted_in_place(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL;
    char *csv = run_csv(dir, "bench broadcast --dry-run --in-place --root 1 --min-bytes 1M "
                             "--max-bytes 256M --factor 256",
                        "b.csv", &out);

    (void)state;
    assert_non_null(strstr(out, "# cesync bench broadcast (in place, root 1): 2 ranks (one "
                                "process), 20 iterations after 5 warm-up, eager; model h200\n"));
    assert_non_null(strstr(out, "      256M auto       694.61    694.61    694.61   386.5     -    "
                                "694.61    703.81      -  |"));
    free(out);
    assert_string_equal(csv,
                        "coll,ranks,bytes,impl,variant,time_us,min_us,max_us,algbw_gbps,"
                        "busbw_gbps,check,pred_us,pred_slow_us\n"
                        "broadcast-inplace,2,1048576,cesync,auto,15.361,15.361,15.361,68.261,"
                        "68.261,-,15.361,25.161\n"
                        "broadcast-inplace,2,1048576,cesync,plain,15.361,15.361,15.361,68.261,"
                        "68.261,-,15.361,25.161\n"
                        "broadcast-inplace,2,268435456,cesync,auto,694.608,694.608,694.608,"
                        "386.456,386.456,-,694.608,703.808\n"
                        "broadcast-inplace,2,268435456,cesync,plain,694.608,694.608,694.608,"
                        "386.456,386.456,-,694.608,703.808\n");
    free(csv);
    csv = run_csv(dir, "bench scatter --dry-run --in-place --root 1 --min-bytes 1M "
                       "--max-bytes 256M --factor 256",
                  "s.csv", &out);
    assert_non_null(strstr(out, "# cesync bench scatter (in place, root 1): 2 ranks "));
    free(out);
    assert_string_equal(csv,
                        "coll,ranks,bytes,impl,variant,time_us,min_us,max_us,algbw_gbps,"
                        "busbw_gbps,check,pred_us,pred_slow_us\n"
                        "scatter-inplace,2,1048576,cesync,auto,15.361,15.361,15.361,136.521,"
                        "68.261,-,15.361,25.161\n"
                        "scatter-inplace,2,1048576,cesync,plain,15.361,15.361,15.361,136.521,"
                        "68.261,-,15.361,25.161\n"
                        "scatter-inplace,2,268435456,cesync,auto,694.608,694.608,694.608,"
                        "772.912,386.456,-,694.608,703.808\n"
                        "scatter-inplace,2,268435456,cesync,plain,694.608,694.608,694.608,"
                        "772.912,386.456,-,694.608,703.808\n");
    free(csv);
    csv = run_csv(dir, "bench gather --dry-run --in-place --min-bytes 1M --max-bytes 256M "
                       "--factor 256",
                  "g.csv", &out);
    assert_non_null(strstr(out, "# cesync bench gather (in place, root 0): 2 ranks "));
    free(out);
    assert_string_equal(csv,
                        "coll,ranks,bytes,impl,variant,time_us,min_us,max_us,algbw_gbps,"
                        "busbw_gbps,check,pred_us,pred_slow_us\n"
                        "gather-inplace,2,1048576,cesync,auto,15.361,15.361,15.361,136.521,"
                        "68.261,-,15.361,25.161\n"
                        "gather-inplace,2,1048576,cesync,plain,15.361,15.361,15.361,136.521,"
                        "68.261,-,15.361,25.161\n"
                        "gather-inplace,2,268435456,cesync,auto,694.608,694.608,694.608,"
                        "772.912,386.456,-,694.608,703.808\n"
                        "gather-inplace,2,268435456,cesync,plain,694.608,694.608,694.608,"
                        "772.912,386.456,-,694.608,703.808\n");
    free(csv);
    expect_row(dir, "bench broadcast --dry-run --in-place --ranks 4 --root 2 --min-bytes 64M "
                    "--max-bytes 64M --variant plain",
               "\nbroadcast-inplace,4,67108864,cesync,plain,535.681,535.681,535.681,125.278,"
               "125.278,");
    expect_row(dir, "bench scatter --dry-run --in-place --ranks 4 --root 2 --min-bytes 64M "
                    "--max-bytes 64M --variant plain",
               "\nscatter-inplace,4,67108864,cesync,plain,535.681,535.681,535.681,501.110,"
               "375.833,");
    expect_row(dir, "bench gather --dry-run --in-place --ranks 4 --root 2 --min-bytes 64M "
                    "--max-bytes 64M --variant plain",
               "\ngather-inplace,4,67108864,cesync,plain,525.181,525.181,525.181,511.129,"
               "383.347,");
    /* captured: the in-place graph of the captured protocol */
    expect_row(dir, "bench scatter --dry-run --graph --in-place --ranks 3 --root 2 --min-bytes 8M "
                    "--max-bytes 8M --variant auto",
               "\nscatter-inplace,3,8388608,cesync,auto,");
    expect_plot_title(dir, "bench gather --dry-run --in-place --root 1 --max-bytes 4K",
                      "gather (in place, root 1)");
    assert_int_equal(rmdir(dir), 0);
}

static void test_usage_errors(void **state)
{
    static const struct {
        const char *args;
        const char *msg;
    } cases[] = {
        {"bench",
         "cesync: bench: which collective? (alltoall, allgather, sendrecv, broadcast, gather, "
         "scatter; see --help)\n"},
        {"bench alltoall --frob",
         "cesync: bench: unknown option '--frob' (see cesync bench --help)\n"},
        /* the builder options bench does not take (README.md says so) */
        {"bench alltoall --dry-run --bytes 1K",
         "cesync: bench: unknown option '--bytes' (see cesync bench --help)\n"},
        {"bench alltoall --dry-run --sync nccl",
         "cesync: bench: unknown option '--sync' (see cesync bench --help)\n"},
        {"bench sendrecv --dry-run --pairs 0:1",
         "cesync: bench: unknown option '--pairs' (see cesync bench --help)\n"},
        {"bench gather --dry-run --directed",
         "cesync: bench: unknown option '--directed' (see cesync bench --help)\n"},
        {"bench alltoall --dry-run --ranks 1",
         "cesync: bench: --ranks expects a number in 2..8, not '1'\n"},
        {"bench alltoall --dry-run --max-bytes 17G",
         "cesync: bench: --max-bytes expects a size in 4..16G (suffixes K M G), not '17G'\n"},
        /* a default named as such: the message named no value, and the
         * --min-bytes that --max-bytes 512 is below was not given */
        {"bench alltoall --dry-run --max-bytes 512",
         "cesync: bench: need --min-bytes <= --max-bytes, not --min-bytes 1K (the default) and "
         "--max-bytes 512\n"},
        {"bench alltoall --dry-run --min-bytes 2G",
         "cesync: bench: need --min-bytes <= --max-bytes, not --min-bytes 2G and --max-bytes 1G "
         "(the default)\n"},
        {"bench alltoall --dry-run --min-bytes 0 --max-bytes 4K",
         "cesync: bench: --min-bytes expects a size in 4..16G (suffixes K M G), not '0'\n"},
        {"bench barrier",
         "cesync: bench: COLL must be alltoall, allgather, sendrecv, broadcast, gather or "
         "scatter, not 'barrier'\n"},
        {"bench alltoall --variant nope",
         "cesync: bench: --variant expects auto, plain, overlap, early, directed (comma "
         "separated, at most 4), not 'nope'\n"},
        {"bench gather --variant auto,plain,overlap,directed,auto",
         "cesync: bench: --variant expects auto, plain, overlap, early, directed (comma "
         "separated, at most 4), not 'auto,plain,overlap,directed,auto'\n"},
        /* an empty list or name (they ran the default variants) and a name
         * twice (timed twice, two rows alike in the CSV) */
        {"bench alltoall --dry-run --variant ''",
         "cesync: bench: --variant expects auto, plain, overlap, early, directed (comma "
         "separated, at most 4), not ''\n"},
        {"bench alltoall --dry-run --variant ,",
         "cesync: bench: --variant expects auto, plain, overlap, early, directed (comma "
         "separated, at most 4), not ','\n"},
        {"bench alltoall --dry-run --variant auto,,plain",
         "cesync: bench: --variant expects auto, plain, overlap, early, directed (comma "
         "separated, at most 4), not 'auto,,plain'\n"},
        {"bench alltoall --dry-run --variant plain,",
         "cesync: bench: --variant expects auto, plain, overlap, early, directed (comma "
         "separated, at most 4), not 'plain,'\n"},
        {"bench alltoall --dry-run --variant auto,plain,auto",
         "cesync: bench: --variant names auto twice\n"},
        {"bench sendrecv --variant overlap",
         "cesync: bench: sendrecv has the variants auto and plain only\n"},
        {"bench sendrecv --variant directed",
         "cesync: bench: sendrecv has the variants auto and plain only\n"},
        {"bench alltoall --variant directed",
         "cesync: bench: alltoall has the variants auto, plain, overlap and early only\n"},
        /* captured, the GPU side times auto only: another variant failed at
         * every size, exit 1 (the default variants of alltoall too) */
        {"bench alltoall --dry-run --graph --variant auto,overlap",
         "cesync: bench: --graph times the backend's collective only (--variant auto), not "
         "overlap\n"},
        {"bench sendrecv --graph --variant plain",
         "cesync: bench: --graph times the backend's collective only (--variant auto), not "
         "plain\n"},
        {"bench gather --graph --variant directed --wake 1",
         "cesync: bench: --graph times the backend's collective only (--variant auto), not "
         "directed\n"},
        {"bench alltoall --one-way", "cesync: bench: --one-way applies to sendrecv\n"},
        /* options that would change nothing (they were taken and dropped) */
        {"bench alltoall --chunks 3", "cesync: bench: --chunks applies to sendrecv\n"},
        {"bench gather --slots 1", "cesync: bench: --slots applies to sendrecv\n"},
        /* auto (ces_send/ces_recv) takes neither: the table showed auto's
         * numbers for a --chunks that changed nothing (--graph: auto only) */
        {"bench sendrecv --dry-run --variant auto --chunks 4",
         "cesync: bench: --chunks applies to the variant plain (the builder's; auto is "
         "ces_send/ces_recv)\n"},
        {"bench sendrecv --dry-run --graph --slots 1",
         "cesync: bench: --slots applies to the variant plain (the builder's; auto is "
         "ces_send/ces_recv)\n"},
        {"bench alltoall --compute-bytes 1M",
         "cesync: bench: --compute-bytes applies with --with-compute\n"},
        /* the collective beside the compute kernel: 0, or rounded to 0 (7
         * on 2-rank alltoall), ran one of 0 bytes after the whole sweep */
        {"bench alltoall --with-compute --compute-bytes 0",
         "cesync: bench: --compute-bytes expects a size in 4..16G (suffixes K M G), not '0'\n"},
        {"bench alltoall --with-compute --compute-bytes 7",
         "cesync: bench: --compute-bytes expects a size in 8..16G (suffixes K M G; alltoall "
         "moves multiples of 8 bytes), not '7'\n"},
        {"bench sendrecv --chunks 4 --with-compute --compute-bytes 8",
         "cesync: bench: --compute-bytes expects a size in 16..16G (suffixes K M G; sendrecv "
         "moves multiples of 16 bytes), not '8'\n"},
        {"bench gather --with-compute --compute-bytes 17G",
         "cesync: bench: --compute-bytes expects a size in 4..16G (suffixes K M G), not '17G'\n"},
        {"bench alltoall --dry-run --model-out m.model",
         "cesync: bench: --model-out applies with --calibrate (which writes the model file)\n"},
        {"bench sendrecv --wake 1",
         "cesync: bench: --wake applies to alltoall, allgather, broadcast, gather and scatter\n"},
        {"bench alltoall --wake 257",
         "cesync: bench: --wake expects a number in 0..256, not '257'\n"},
        {"bench gather --wake 2",
         "cesync: bench: --wake applies to gather in place only (--in-place): out of place "
         "every rank copies, none only waits\n"},
        {"bench gather --wake 2 --variant auto",
         "cesync: bench: --wake applies to the variants but auto (--variant)\n"},
        {"bench alltoall --in-place",
         "cesync: bench: --in-place applies to allgather, broadcast, gather and scatter\n"},
        {"bench sendrecv --in-place",
         "cesync: bench: --in-place applies to allgather, broadcast, gather and scatter\n"},
        {"bench allgather --in-place --variant overlap",
         "cesync: bench: allgather --in-place has the variants auto and plain only\n"},
        {"bench allgather --in-place --variant auto,early",
         "cesync: bench: allgather --in-place has the variants auto and plain only\n"},
        /* in place the rooted collectives have no local copy to move */
        {"bench gather --in-place --variant overlap",
         "cesync: bench: gather --in-place has the variants auto and plain only\n"},
        {"bench scatter --in-place --variant auto,directed",
         "cesync: bench: scatter --in-place has the variants auto and plain only\n"},
        {"bench broadcast --in-place --root 1 --variant plain,overlap",
         "cesync: bench: broadcast --in-place has the variants auto and plain only\n"},
        {"bench gather --in-place --variant early",
         "cesync: bench: gather --in-place has the variants auto and plain only\n"},
        /* the rooted collectives have no early form */
        {"bench scatter --variant plain,early",
         "cesync: bench: scatter has the variants auto, plain, overlap and directed only\n"},
        {"bench allgather --in-place --variant directed",
         "cesync: bench: allgather --in-place has the variants auto and plain only\n"},
        /* --root: a rank of --ranks, whichever comes first; rooted only */
        {"bench gather --root 2",
         "cesync: bench: --root expects a number in 0..1 (--ranks 2), not '2'\n"},
        {"bench scatter --root 3 --ranks 3",
         "cesync: bench: --root expects a number in 0..2 (--ranks 3), not '3'\n"},
        {"bench broadcast --root 99999999999",
         "cesync: bench: --root expects a number in 0..7, not '99999999999'\n"},
        {"bench broadcast --root -1", "cesync: bench: --root expects a number in 0..7, not '-1'\n"},
        /* a count takes no suffix (the message offered them, then 1K was
         * refused) */
        {"bench alltoall --warmup -1",
         "cesync: bench: --warmup expects a number in 0..50, not '-1'\n"},
        {"bench alltoall --iterations 1K",
         "cesync: bench: --iterations expects a number in 1..200, not '1K'\n"},
        {"bench alltoall --min-bytes 1X",
         "cesync: bench: --min-bytes expects a size in 4..16G (suffixes K M G), not '1X'\n"},
        {"bench alltoall --root 0",
         "cesync: bench: --root applies to broadcast, gather and scatter\n"},
        {"bench allgather --root 1",
         "cesync: bench: --root applies to broadcast, gather and scatter\n"},
        {"bench sendrecv --root 0",
         "cesync: bench: --root applies to broadcast, gather and scatter\n"},
        {"bench alltoall --ranks 9", "cesync: bench: --ranks expects a number in 2..8, not '9'\n"},
        /* the limits the help gives (test_help) */
        {"bench alltoall --factor 1",
         "cesync: bench: --factor expects a number above 1 and at most 1024, not '1'\n"},
        {"bench alltoall --factor 1025",
         "cesync: bench: --factor expects a number above 1 and at most 1024, not '1025'\n"},
        {"bench alltoall --factor 0x10",
         "cesync: bench: --factor expects a number above 1 and at most 1024, not '0x10'\n"},
        {"bench alltoall --iterations 201",
         "cesync: bench: --iterations expects a number in 1..200, not '201'\n"},
        {"bench alltoall --warmup 51",
         "cesync: bench: --warmup expects a number in 0..50, not '51'\n"},
        {"bench sendrecv --slots 65",
         "cesync: bench: --slots expects a number in 1..64, not '65'\n"},
        {"bench sendrecv --chunks 1025",
         "cesync: bench: --chunks expects a number in 1..1024, not '1025'\n"},
        {"bench alltoall --min-bytes 2M --max-bytes 1M",
         "cesync: bench: need --min-bytes <= --max-bytes, not --min-bytes 2M and --max-bytes "
         "1M\n"},
        {"bench alltoall --dry-run --calibrate",
         "cesync: bench: --dry-run cannot --calibrate or --with-compute\n"},
        {"bench alltoall --dry-run --model /nonexistent/m.model",
         "cesync: /nonexistent/m.model: cannot open: No such file or directory\n"},
        /* and without --dry-run, before the GPUs are asked, with CUDA or
         * without (a build without CUDA said it has none instead) */
        {"bench alltoall --model /nonexistent/m.model",
         "cesync: /nonexistent/m.model: cannot open: No such file or directory\n"},
        {"bench alltoall --dry-run --csv /dev/full",
         "cesync: bench: cannot write /dev/full: No space left on device\n"},
        /* an output that names the model file read */
        {"bench alltoall --dry-run --model m.model --csv m.model",
         "cesync: bench: --csv m.model is the input file (name another output file)\n"},
        {"bench alltoall --plot m.svg --model m.svg",
         "cesync: bench: --plot m.svg is the input file (name another output file)\n"},
        {"bench alltoall --calibrate --model cesync.model",
         "cesync: bench: --model-out cesync.model is the input file (name another output "
         "file)\n"},
        /* outputs that name each other, or the plot's source, would
         * overwrite each other after the sweep */
        {"bench alltoall --dry-run --csv p.dot --plot p.svg",
         "cesync: bench: --csv p.dot and the --plot's .dot source name the same file: each "
         "output needs its own\n"},
        {"bench alltoall --dry-run --csv p.svg --plot p.svg",
         "cesync: bench: --csv p.svg and --plot name the same file: each output needs its "
         "own\n"},
        {"bench alltoall --calibrate --model-out r.csv --csv r.csv",
         "cesync: bench: --csv r.csv and --model-out name the same file: each output needs its "
         "own\n"},
        /* by two paths of a file not written yet (the CSV went to ./p.dot,
         * then the plot's source over it, removed once drawn: exit 0, no
         * CSV) */
        {"bench alltoall --dry-run --csv ./p.dot --plot p.svg",
         "cesync: bench: --csv ./p.dot and the --plot's .dot source name the same file: each "
         "output needs its own\n"},
        {"bench alltoall --calibrate --model-out r.csv --csv d.svg/../r.csv",
         "cesync: bench: --csv d.svg/../r.csv and --model-out name the same file: each output "
         "needs its own\n"},
        /* "-" is no file name, and standard output has the table */
        {"bench alltoall --dry-run --csv -",
         "cesync: bench: --csv -: standard output carries the table (name a file)\n"},
        {"bench alltoall --dry-run --plot -",
         "cesync: bench: --plot -: standard output carries the table (name a file)\n"},
        {"bench alltoall --calibrate --model-out -",
         "cesync: bench: --model-out -: standard output carries the table (name a file)\n"},
        {"bench alltoall --dry-run --plot x.txt",
         "cesync: bench: --plot expects a .svg or .png path, not 'x.txt'\n"},
        /* refused before the sweep, not after it (test_outputs_first) */
        {"bench alltoall --dry-run --csv /nonexistent/x.csv",
         "cesync: bench: cannot create /nonexistent/x.csv: No such file or directory\n"},
        {"bench alltoall --dry-run --plot /nonexistent/x.svg",
         "cesync: bench: cannot create /nonexistent/x.svg: No such file or directory\n"},
        {"bench alltoall --calibrate --model-out /nonexistent/x.model",
         "cesync: bench: cannot create /nonexistent/x.model: No such file or directory\n"},
        /* a directory is writable, but no file to write (it failed after the sweep) */
        {"bench alltoall --dry-run --csv d.csv",
         "cesync: bench: cannot write d.csv: Is a directory\n"},
        {"bench alltoall --dry-run --plot d.svg",
         "cesync: bench: cannot write d.svg: Is a directory\n"},
        {"bench alltoall --calibrate --model-out d.csv",
         "cesync: bench: cannot write d.csv: Is a directory\n"},
        {"bench alltoall --dry-run --factor 1.01 --min-bytes 1K --max-bytes 1G",
         "cesync: bench: more than 64 sizes from --min-bytes to --max-bytes by --factor 1.01; "
         "raise the factor or narrow the range\n"},
        /* the factor as given (%g said 1, a factor refused as such) */
        {"bench alltoall --dry-run --factor 1.0000001 --min-bytes 1K --max-bytes 2K",
         "cesync: bench: more than 64 sizes from --min-bytes to --max-bytes by --factor "
         "1.0000001; raise the factor or narrow the range\n"},
        /* an option that takes a value, last on the line, or another option
         * in its place (--csv --no-nccl wrote a file named --no-nccl) */
        {"bench alltoall --dry-run --csv", "cesync: bench: --csv expects a file name\n"},
        {"bench alltoall --dry-run --plot",
         "cesync: bench: --plot expects a .svg or .png file name\n"},
        {"bench alltoall --variant",
         "cesync: bench: --variant expects auto, plain, overlap, early or directed (comma "
         "separated)\n"},
        {"bench alltoall --factor",
         "cesync: bench: --factor expects a number above 1 and at most 1024\n"},
        {"bench alltoall --max-bytes",
         "cesync: bench: --max-bytes expects a size in 4..16G (suffixes K M G)\n"},
        {"bench gather --root", "cesync: bench: --root expects a number in 0..7\n"},
        {"bench alltoall --dry-run --csv --no-nccl",
         "cesync: bench: --csv expects a file name, not the option '--no-nccl'\n"},
        {"bench alltoall --dry-run --plot --csv",
         "cesync: bench: --plot expects a .svg or .png file name, not the option '--csv'\n"},
        {"bench alltoall --calibrate --model-out --dry-run",
         "cesync: bench: --model-out expects a file name, not the option '--dry-run'\n"},
        {"bench alltoall --dry-run --model --csv",
         "cesync: bench: --model expects a model file, not the option '--csv'\n"},
        {"bench alltoall --ranks --iterations 3",
         "cesync: bench: --ranks expects a number in 2..8, not the option '--iterations'\n"},
        /* -- names COLL, whatever it looks like */
        {"bench --dry-run -- --csv",
         "cesync: bench: COLL must be alltoall, allgather, sendrecv, broadcast, gather or "
         "scatter, not '--csv'\n"},
        {"bench alltoall --dry-run -- gather",
         "cesync: bench: one collective, not 'gather' too\n"},
        {"bench --dry-run --",
         "cesync: bench: which collective? (alltoall, allgather, sendrecv, broadcast, gather, "
         "scatter; see --help)\n"},
    };
    char *dir = ces_test_tmpdir(), *out = NULL, sub[256];

    (void)state;
    snprintf(sub, sizeof(sub), "%s/d.csv", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(sub, sizeof(sub), "%s/d.svg", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = ces_test_tool(dir, cases[i].args, &out);

        if (rc != 2 || strstr(out, cases[i].msg) == NULL)
            fail_msg("'cesync %s' gave %d:\n%s", cases[i].args, rc, out);
        free(out);
    }
    assert_int_equal(rmdir(sub), 0);
    snprintf(sub, sizeof(sub), "%s/d.csv", dir);
    assert_int_equal(rmdir(sub), 0);
    ces_test_dir_entries(dir, sub, sizeof(sub));
    assert_string_equal(sub, ""); /* no file named --no-nccl */
    assert_int_equal(ces_test_tool(dir, "bench --dry-run -- alltoall --max-bytes 1K", &out), 0);
    assert_non_null(strstr(out, "# cesync bench alltoall: "));
    assert_non_null(strstr(out, "\n        1K auto "));
    assert_null(strstr(out, "\n        2K auto "));
    free(out);
    assert_int_equal(rmdir(dir), 0);
}

/* Captured, the default variants are auto alone, the one the GPU side
 * times (auto,overlap,early and auto,plain failed at every size but auto). */
static void test_graph_variants(void **state)
{
    static const char *const colls[] = {"alltoall", "sendrecv", "gather"};
    char *dir = ces_test_tmpdir(), *csv, args[128], want[64];
    const char *row;

    (void)state;
    for (size_t i = 0; i < sizeof(colls) / sizeof(colls[0]); i++) {
        snprintf(args, sizeof(args), "bench %s --dry-run --graph --min-bytes 1M --max-bytes 1M",
                 colls[i]);
        csv = run_csv(dir, args, "v.csv", NULL);
        snprintf(want, sizeof(want), "%s,2,1048576,cesync,auto,", colls[i]);
        row = strchr(csv, '\n') + 1;
        /* one row, auto's */
        assert_true(strncmp(row, want, strlen(want)) == 0);
        assert_string_equal(strchr(row, '\n'), "\n");
        free(csv);
    }
    assert_int_equal(rmdir(dir), 0);
}

/* A count of 1 has a singular noun ("1 iterations after 5 warm-up", "the
 * wake chain of 1 copies").  A dry run's footer says its times are the
 * model's (it said "median over timed graph launches of 1 collectives
 * each", of launches that never ran), and its err% is - (it was +0.0, the
 * prediction against itself). */
static void test_singular(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL;

    (void)state;
    assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --max-bytes 1K --iterations 1 "
                                        "--wake 1 --variant overlap",
                                   &out),
                     0);
    assert_non_null(strstr(out, ": 2 ranks (one process), 1 iteration after 5 warm-up, "));
    assert_non_null(strstr(out, "# the variants but auto run the wake chain of 1 copy\n"));
    free(out);
    assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --max-bytes 1K --iterations 1 "
                                        "--graph",
                                   &out),
                     0);
    assert_non_null(strstr(out, "\n# time: us per collective, the cost model's steady state in "
                                "the fast mode (a dry run measures nothing);\n"));
    assert_null(strstr(out, "median"));
    free(out);
    assert_int_equal(rmdir(dir), 0);
}

/* Every output (--csv, --plot and its .dot source, --model-out) is tried
 * before any work: one that cannot be created is refused with its reason
 * and exit 2, and nothing is measured or printed before (a name too long
 * for the file system, or seven characters short of it, which the
 * temporary file beside it exceeds, a directory that takes no new file,
 * were found only after the whole measurement); the files tried are gone
 * again, and an existing file is not truncated by the try. */
static void test_outputs_first(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, name[300], args[1024], want[1024], got[64];
    char path[512];

    (void)state;
    memset(name, 'x', 290);
    name[290] = '\0';
    for (int k = 0; k < 3; k++) {
        static const char *const fmt[3] = {"bench alltoall --dry-run --csv %s.csv",
                                           "bench alltoall --dry-run --plot %s.svg",
                                           "bench alltoall --calibrate --model-out %s.model"};
        static const char *const ext[3] = {".csv", ".svg", ".model"};

        snprintf(args, sizeof(args), fmt[k], name);
        snprintf(want, sizeof(want), "cesync: bench: cannot create %s%s: File name too long\n",
                 name, ext[k]);
        assert_int_equal(ces_test_tool(dir, args, &out), 2);
        assert_string_equal(out, want);
        free(out);
    }
    /* 250 characters: the name fits, its temporary file (+ .XXXXXX) not */
    name[250] = '\0';
    snprintf(args, sizeof(args), "bench alltoall --dry-run --csv %s", name);
    snprintf(want, sizeof(want), "cesync: bench: cannot create %s: File name too long\n", name);
    assert_int_equal(ces_test_tool(dir, args, &out), 2);
    assert_string_equal(out, want);
    free(out);
    /* an existing CSV is tried without being truncated */
    snprintf(path, sizeof(path), "%s/old.csv", dir);
    ces_test_put_file(path, "old\n");
    assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --csv old.csv --plot "
                                        "/nonexistent/p.svg",
                                   &out),
                     2);
    assert_string_equal(out, "cesync: bench: cannot create /nonexistent/p.svg: No such file or "
                             "directory\n");
    free(out);
    out = ces_test_read_file(path, NULL);
    assert_string_equal(out, "old\n");
    free(out);
    assert_int_equal(unlink(path), 0);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "");
    /* a directory that takes no new file (root writes into any) */
    if (geteuid() != 0) {
        snprintf(path, sizeof(path), "%s/ro", dir);
        assert_int_equal(mkdir(path, 0555), 0);
        assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --csv ro/x.csv", &out), 2);
        assert_string_equal(out, "cesync: bench: cannot create ro/x.csv: Permission denied\n");
        free(out);
        assert_int_equal(rmdir(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
}

static void test_help(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL;

    (void)state;
    assert_int_equal(ces_test_tool(dir, "bench --help", &out), 0);
    assert_non_null(strstr(out, "usage: cesync bench COLL [options]\n"));
    assert_non_null(strstr(out, "Graphviz"));
    /* which failures make the exit status 1 and which 2 ("a failed
     * --calibrate or model file" read as if a --model file that does not
     * load made it 1; the line cut to a screen left out the 1 of a
     * --model-out not written and of a dry run that predicted nothing, and
     * the 2 of a prediction lost for want of memory:
     * test_dry_run_out_of_memory) */
    assert_non_null(strstr(out, "Exit: 0 fine; 1 a wrong byte or a failed run, --calibrate, "
                                "--model-out or\n--with-compute, or a --dry-run that predicted "
                                "nothing; 2 bad usage, a --model\nrefused, an output that "
                                "cannot be written or a prediction lost for want of memory.\n"));
    assert_non_null(strstr(out, "  --in-place            allgather, broadcast, gather, scatter "
                                "in place"));
    assert_non_null(strstr(out, "  --root R              broadcast, gather, scatter: the root "
                                "rank, 0..N-1 (default 0)\n"));
    /* every limit that the options have (--factor 1025 said "above 1") */
    assert_non_null(strstr(out, "  --ranks N             ranks, 2..8, "));
    assert_non_null(strstr(out, "  --min-bytes B         smallest bytes per rank, 4..16G "));
    assert_non_null(strstr(out, "  --max-bytes B         largest bytes per rank, --min-bytes..16G "));
    assert_non_null(strstr(out, "  --factor F            size step, a number above 1 and at most "
                                "1024 (default 2)\n"));
    assert_non_null(strstr(out, "  --iterations K        timed iterations per size, 1..200 "));
    assert_non_null(strstr(out, "  --warmup W            untimed iterations before them, 0..50 "));
    assert_non_null(strstr(out, "chunks per message, 1..1024 "));
    assert_non_null(strstr(out, "staging slots, 1..64 "));
    assert_non_null(strstr(out, "wake chain of K copies in the variants but auto, 0..256 "));
    /* (--compute-bytes gave neither its bound nor that it needs --with-compute,
     * then its upper bound alone: its range is docs/CLI.md's) */
    assert_non_null(strstr(out, "  --compute-bytes B     with --with-compute: its bytes per rank, "
                                "from the smallest\n                        size the collective "
                                "moves to 16G (default 64M)\n"));
    assert_non_null(strstr(out, "  -- COLL               COLL, as -- names the schedule in the "
                                "other commands\n"));
    /* every variable the bench reads itself (CES_BENCH_TRACE was in none) */
    assert_non_null(strstr(out, "Environment: CES_NCCL_LIB, CES_SHARE_GPUS=1, CES_BENCH_TRACE "
                                "(announce each run).\n"));
    free(out);
    /* the rules behind those lines, which the help said until the
     * sixty-seventh session cut it to a screen: the exit status, the
     * sweep's limit of 64 sizes, what the data check compares, the trace */
    ces_test_cli_doc_says("## bench", "Exit: 0 fine; 1 a `WRONG` data check (NCCL's too), a "
                          "cesync run that fails, a failed `--calibrate`, a `--model-out` it "
                          "cannot write, a failed `--with-compute`, or a `--dry-run` for which the "
                          "model predicted no size of any variant; 2 bad usage, a `--model` "
                          "refused, an output that cannot be written, or a prediction lost for "
                          "want of memory (both above).");
    ces_test_cli_doc_says("## bench", "A file that does not load, or whose machine cannot run the "
                          "collective at the ranks and options asked, is refused before any run "
                          "with the reason, exit 2;");
    ces_test_cli_doc_says("## bench", "At most 64 sizes: a range and factor that give more are "
                          "refused.");
    ces_test_cli_doc_says("## bench", "every byte of every recv against a pattern of the sending "
                          "rank and offset, and every byte of every send outside its recv, which "
                          "must be left as filled;");
    ces_test_cli_doc_says("## bench", "the raw peer copy of the same bytes (the physical limit; "
                          "its data checked too: every byte it copied where it lands, the rest of "
                          "every recv clear)");
    ces_test_cli_doc_says("## bench", "`CES_BENCH_TRACE`, set to anything, announces each run of "
                          "the table on stderr before it starts, `# running NAME at SIZE` (NAME "
                          "`cesync/VARIANT`, `nccl-ce`, `nccl-kernel` or `raw`; SIZE as the "
                          "table's bytes column), to tell which one hangs or fails.");
    /* the header of a dry run names no CUDA_DEVICE_MAX_CONNECTIONS unset
     * (the help said the header names it; test_dry_run_shared_queues) */
    ces_test_cli_doc_says("## bench", "The header of a run on GPUs names "
                          "`CUDA_DEVICE_MAX_CONNECTIONS` (a dry run's only where it is below 8, "
                          "where the predictions share the queues)");
    assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --max-bytes 1K", &out), 0);
    assert_non_null(strstr(out, "# cesync bench alltoall: 2 ranks"));
    assert_null(strstr(out, "CUDA_DEVICE_MAX_CONNECTIONS"));
    free(out);
    rmdir(dir);
}

/* A factor just above 1 on a range that holds few sizes: once the next
 * size would pass --max-bytes the sweep ends (it stepped on until the
 * factor's powers passed it, 4 to 7 by 1 + 1e-12 half a trillion steps),
 * and a range that holds exactly 64 sizes is measured, not refused as
 * more than 64.  Each run gets 5 s of CPU time. */
static void test_factor_near_one(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, *csv;
    struct rlimit old, low;
    char want[64];

    (void)state;
    assert_int_equal(getrlimit(RLIMIT_CPU, &old), 0);
    low = old;
    low.rlim_cur = 5;
    assert_int_equal(setrlimit(RLIMIT_CPU, &low), 0);
    csv = run_csv(dir, "bench allgather --dry-run --min-bytes 4 --max-bytes 7 --factor "
                       "1.000000000001 --variant plain",
                  "f.csv", &out);
    assert_null(strstr(out, "measured"));
    free(out);
    assert_non_null(strstr(csv, "\nallgather,2,4,cesync,plain,"));
    assert_null(strstr(csv, "\nallgather,2,8,"));
    free(csv);
    /* 4, 8, ..., 256: 64 sizes, each 4 above the one before */
    csv = run_csv(dir, "bench allgather --dry-run --min-bytes 4 --max-bytes 256 --factor "
                       "1.0000001 --variant plain",
                  "f.csv", NULL);
    for (int k = 1; k <= 64; k++) {
        snprintf(want, sizeof(want), "\nallgather,2,%d,cesync,plain,", 4 * k);
        assert_non_null(strstr(csv, want));
    }
    assert_null(strstr(csv, "\nallgather,2,260,"));
    free(csv);
    assert_int_equal(setrlimit(RLIMIT_CPU, &old), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* --csv replaces an existing file only with a complete CSV: a write that
 * fails (here past a file size limit) leaves the old file and nothing
 * beside it (it was truncated and left half-written). */
static void test_csv_kept_on_error(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, path[512], got[256];
    struct rlimit old, low;

    (void)state;
    snprintf(path, sizeof(path), "%s/out.csv", dir);
    ces_test_put_file(path, "good\n");
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    low = old;
    low.rlim_cur = 1024;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &low), 0);
    assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --csv out.csv", &out), 2);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_DFL);
    assert_non_null(strstr(out, "cesync: bench: cannot write out.csv: File too large\n"));
    free(out);
    out = ces_test_read_file(path, NULL);
    assert_string_equal(out, "good\n");
    free(out);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "out.csv;");
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* A model that cannot run the collective at the asked ranks or flags (4
 * ranks on a model of at most 2 GPUs, 64-bit flags on a 32-bit-only one)
 * is refused before any run, exit 2, with the model's reason, the file
 * named: it printed a "no prediction" line a size, a table of dashes and
 * exited 1.  A max_memops_per_batch of 2 no longer loads (model:line:col). */
static void test_dry_run_without_prediction(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, path[512];

    (void)state;
    snprintf(path, sizeof(path), "%s/two.model", dir);
    ces_test_put_file(path, "max_ranks = 2\n");
    assert_int_equal(ces_test_tool(dir,
                                   "bench alltoall --dry-run --ranks 4 --min-bytes 1M "
                                   "--max-bytes 1M --variant plain --model two.model --csv n.csv",
                                   &out),
                     2);
    assert_string_equal(out, "cesync: bench: the model cannot run alltoall plain: 4 ranks, the "
                             "model of two.model (kind h200) has at most 2 GPUs\n");
    free(out);
    snprintf(path, sizeof(path), "%s/n.csv", dir);
    assert_int_equal(access(path, F_OK), -1);
    /* a run on GPUs too, before they are asked, with CUDA or without (a
     * build without CUDA said it has none instead) */
    assert_int_equal(ces_test_tool(dir,
                                   "bench alltoall --ranks 4 --min-bytes 1M --max-bytes 1M "
                                   "--variant plain --model two.model",
                                   &out),
                     2);
    assert_string_equal(out, "cesync: bench: the model cannot run alltoall plain: 4 ranks, the "
                             "model of two.model (kind h200) has at most 2 GPUs\n");
    free(out);
    snprintf(path, sizeof(path), "%s/two.model", dir);
    ces_test_put_file(path, "flag_widths = 32\nhas_64bit_memops = 0\n");
    assert_int_equal(ces_test_tool(dir,
                                   "bench alltoall --dry-run --max-bytes 2K --model two.model",
                                   &out),
                     2);
    assert_null(strstr(out, "no prediction"));
    assert_non_null(strstr(out, "cesync: bench: the model cannot run alltoall auto: "));
    assert_non_null(strstr(out, "which the model of two.model (kind h200) has no memops for\n"));
    free(out);
    ces_test_put_file(path, "max_memops_per_batch = 2\n");
    assert_int_equal(ces_test_tool(dir,
                                   "bench alltoall --dry-run --max-bytes 2K --model two.model",
                                   &out),
                     2);
    assert_null(strstr(out, "no prediction"));
    assert_non_null(strstr(out, "two.model:1:24: expected an unsigned integer at least 3: "));
    free(out);
    /* in place named as the CSV names it */
    ces_test_put_file(path, "max_ranks = 2\n");
    assert_int_equal(ces_test_tool(dir,
                                   "bench allgather --in-place --dry-run --ranks 4 --max-bytes 2K "
                                   "--model two.model",
                                   &out),
                     2);
    assert_string_equal(out, "cesync: bench: the model cannot run allgather-inplace auto: 4 "
                             "ranks, the model of two.model (kind h200) has at most 2 GPUs\n");
    free(out);
    /* one that runs it predicts: exit 0 */
    ces_test_put_file(path, "max_ranks = 2\n");
    assert_int_equal(ces_test_tool(dir,
                                   "bench alltoall --dry-run --min-bytes 1M --max-bytes 1M "
                                   "--variant plain --model two.model",
                                   &out),
                     0);
    assert_null(strstr(out, "predicted no size"));
    free(out);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* A dry run whose predictions are its times: one lost for want of memory
 * ("no prediction at 2048 bytes: out of memory predicting", a dash in the
 * table, no row in the CSV) is no answer of the model's, and the exit is 2
 * (it was 0, the table and the CSV short of it).  An allocation half way
 * through fails, in a library preloaded into cesync (counted first: the
 * predictions make nearly all of them). */
static void test_dry_run_out_of_memory(void **state)
{
    (void)state;
#if defined(CES_MALLOC_FAILS)
    static const char args[] = "bench alltoall --dry-run --max-bytes 8K --variant plain";
    char *dir = ces_test_tmpdir(), *out = NULL, *count, env[1024], path[512];
    unsigned long n;

    snprintf(env, sizeof(env), "LD_PRELOAD='%s' CES_TEST_MALLOC_COUNT=count.txt",
             CES_MALLOC_FAILS);
    assert_int_equal(ces_test_tool_env(dir, env, args, &out), 0);
    free(out);
    snprintf(path, sizeof(path), "%s/count.txt", dir);
    count = ces_test_read_file(path, NULL);
    n = strtoul(count, NULL, 10);
    free(count);
    assert_int_equal(unlink(path), 0);
    assert_true(n > 0);
    snprintf(env, sizeof(env), "LD_PRELOAD='%s' CES_TEST_MALLOC_FAIL_AT=%lu", CES_MALLOC_FAILS,
             n / 2);
    assert_int_equal(ces_test_tool_env(dir, env, args, &out), 2);
    assert_non_null(strstr(out, "cesync: bench: no prediction at "));
    assert_non_null(strstr(out, "out of memory"));
    free(out);
    assert_int_equal(rmdir(dir), 0);
#else
    skip();
#endif
}

/* Every setting the bench's communicators read from the environment is
 * judged before the GPUs are asked, as CES_SHARE_GPUS was: CES_TIMEOUT_MS=abc
 * and CES_STRIDE=1Q said "no GPU can be used" without a GPU (on GPUs
 * ces_comm_init_all refused them after the driver).  A cesync built without
 * CUDA judges them alike, in the same words, before it says it has none (it
 * said that of every one but CES_P2P_STAGE_MAX). */
static void test_settings_before_gpus(void **state)
{
    static const struct {
        const char *env, *want;
    } cases[] = {
        {"CES_TIMEOUT_MS=abc",
         "cesync: bench: CES_TIMEOUT_MS must be 1..4294967295 milliseconds (digits), not "
         "'abc'\n"},
        {"CES_STRIDE=1Q", "cesync: bench: CES_STRIDE must be 1..2^48 bytes (digits, then K, M "
                          "or G if wanted), not '1Q'\n"},
        {"CES_P2P_SIDE_MIN=1Q", "cesync: bench: CES_P2P_SIDE_MIN must be 0..2^48 bytes (digits, "
                                "then K, M or G if wanted), not '1Q'\n"},
        {"CES_SHARE_GPUS=2", "cesync: bench: CES_SHARE_GPUS must be 0 or 1, not '2'\n"},
    };

    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out = NULL;

        assert_int_equal(ces_test_tool_env(NULL, cases[i].env, "bench alltoall --max-bytes 1K",
                                           &out), 2);
        assert_string_equal(out, cases[i].want);
        free(out);
        /* a dry run opens no communicator: it reads none of them but
         * CES_P2P_SIDE_MIN (and CES_P2P_STAGE_MAX), which its predictions
         * follow */
        assert_int_equal(ces_test_tool_env(NULL, cases[i].env,
                                           "bench alltoall --max-bytes 1K --dry-run", &out),
                         strncmp(cases[i].env, "CES_P2P_SIDE_MIN", 16) == 0 ? 2 : 0);
        free(out);
    }
}

/* A run reads the settings once, in the communicators' order (that of
 * ces_comm_init_all and cesync run: CES_TIMEOUT_MS before
 * CES_P2P_STAGE_MAX before CES_P2P_SIDE_MIN), all before the --model file;
 * a dry run only CES_P2P_STAGE_MAX and CES_P2P_SIDE_MIN, in that order,
 * which its predictions read.  CES_P2P_STAGE_MAX was
 * read apart, before the --model, and the others after it: with
 * CES_TIMEOUT_MS=abc too the run named CES_P2P_STAGE_MAX, and
 * CES_TIMEOUT_MS=abc with a --model file that is not there was said of the
 * file, CES_P2P_STAGE_MAX=x of the setting.  In both builds. */
static void test_settings_read_once(void **state)
{
    static const char timeout[] = "cesync: bench: CES_TIMEOUT_MS must be 1..4294967295 "
                                  "milliseconds (digits), not 'abc'\n",
                      stage[] = "cesync: bench: CES_P2P_STAGE_MAX must be 0..2^48 bytes "
                                "(digits, then K, M or G if wanted), not 'x'\n",
                      side[] = "cesync: bench: CES_P2P_SIDE_MIN must be 0..2^48 bytes "
                               "(digits, then K, M or G if wanted), not 'y'\n";
    static const struct {
        const char *env, *args, *want;
    } cases[] = {
        {"CES_P2P_STAGE_MAX=x CES_TIMEOUT_MS=abc", "", timeout},
        {"CES_P2P_STAGE_MAX=x CES_TIMEOUT_MS=abc", " --dry-run", stage},
        {"CES_TIMEOUT_MS=abc", " --model no-such.model", timeout},
        {"CES_P2P_STAGE_MAX=x", " --model no-such.model", stage},
        {"CES_P2P_STAGE_MAX=x", " --model no-such.model --dry-run", stage},
        {"CES_P2P_SIDE_MIN=y CES_P2P_STAGE_MAX=x", " --dry-run", stage},
        {"CES_P2P_SIDE_MIN=y CES_TIMEOUT_MS=abc", " --dry-run", side},
        {"CES_P2P_SIDE_MIN=y CES_TIMEOUT_MS=abc", "", timeout},
        {"CES_P2P_SIDE_MIN=y", " --model no-such.model --dry-run", side},
        {"CES_STRIDE=1Q CES_SHARE_GPUS=2", "", "cesync: bench: CES_SHARE_GPUS must be 0 or 1, "
                                               "not '2'\n"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char args[128], *out = NULL;

        snprintf(args, sizeof(args), "bench sendrecv --max-bytes 1K%s", cases[i].args);
        if (ces_test_tool_env(NULL, cases[i].env, args, &out) != 2 ||
            strcmp(out, cases[i].want) != 0)
            fail_msg("%s cesync %s said\n%sfor\n%s", cases[i].env, args, out, cases[i].want);
        free(out);
    }
}

/* A run on GPUs that cannot start (here CES_SHARE_GPUS=2, refused when
 * the bench opens the GPUs; a build without CUDA refuses it sooner) says so
 * before it predicts: without a GPU it predicted the whole sweep first,
 * which took 80 s before "no GPU can be used" (sendrecv --ranks 8 --chunks
 * 1024 up to 16G).  The predictions make nearly all of a sweep's
 * allocations: a sweep of 21 sizes must allocate no more than one of one
 * size. */
static void test_no_gpu_before_predictions(void **state)
{
    (void)state;
#if defined(CES_MALLOC_FAILS)
    static const char *const sweeps[2] = {"--max-bytes 1K", "--max-bytes 1G"};
    char *dir = ces_test_tmpdir(), *out = NULL, *count, env[1024], args[128], path[512];
    unsigned long n[2];

    snprintf(env, sizeof(env), "LD_PRELOAD='%s' CES_TEST_MALLOC_COUNT=count.txt CES_SHARE_GPUS=2",
             CES_MALLOC_FAILS);
    snprintf(path, sizeof(path), "%s/count.txt", dir);
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof(args), "bench alltoall %s --variant plain", sweeps[k]);
        assert_int_equal(ces_test_tool_env(dir, env, args, &out), 2);
        assert_null(strstr(out, "no prediction"));
        assert_string_equal(out, "cesync: bench: CES_SHARE_GPUS must be 0 or 1, not '2'\n");
        free(out);
        count = ces_test_read_file(path, NULL);
        n[k] = strtoul(count, NULL, 10);
        free(count);
        assert_int_equal(unlink(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
    assert_true(n[0] > 0);
    if (n[1] > n[0])
        fail_msg("a sweep of 21 sizes made %lu allocations before it found no GPU, one of one "
                 "size %lu: it predicted first", n[1], n[0]);
#else
    skip();
#endif
}

/* The plot's legend names the lines it draws, one row each from the top:
 * a dry run draws cesync's variants only (NCCL's two paths and the raw copy
 * were named in the legend too, beside no line). */
static void test_plot_legend(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, *dot, path[512];

    (void)state;
    /* no dot on PATH: the source stays in p.dot */
    assert_int_equal(bench_with_path(dir, dir,
                                     "bench alltoall --dry-run --min-bytes 1K --max-bytes 4K "
                                     "--variant plain,overlap --plot p.svg",
                                     &out),
                     0);
    free(out);
    snprintf(path, sizeof(path), "%s/p.dot", dir);
    dot = ces_test_read_file(path, NULL);
    assert_non_null(strstr(dot, "\n  leg_c0_ [shape=plaintext, style=\"\", fixedsize=false, "
                                "label=\"cesync plain\", fontcolor=\"#1f77b4\", "
                                "pos=\"780.0,420.0!\"];\n"));
    assert_non_null(strstr(dot, "\n  leg_c1_ [shape=plaintext, style=\"\", fixedsize=false, "
                                "label=\"cesync overlap\", fontcolor=\"#2ca02c\", "
                                "pos=\"780.0,400.0!\"];\n"));
    assert_null(strstr(dot, "NCCL"));
    assert_null(strstr(dot, "raw peer copy"));
    assert_null(strstr(dot, "leg_ce_"));
    free(dot);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* An empty file name is refused before any work, and nothing is left
 * behind: the CSV went to a temporary file in the current directory that
 * stayed there, exit status 0. */
static void test_empty_output_name(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, got[256];

    (void)state;
    assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --max-bytes 2K --csv ''", &out),
                     2);
    assert_string_equal(out, "cesync: bench: cannot create '': No such file or directory\n");
    free(out);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "");
    assert_int_equal(rmdir(dir), 0);
}

/* --plot FILE.svg writes the plot's source to FILE.dot and removes it once
 * drawn: a FILE.dot that is no plot of the bench is refused before the
 * sweep (it was overwritten, then removed); a plot left by an earlier run
 * may be replaced. */
static void test_plot_keeps_other_dot(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, path[512];

    (void)state;
    snprintf(path, sizeof(path), "%s/pl.dot", dir);
    ces_test_put_file(path, "digraph mine { a -> b }\n");
    assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --max-bytes 4K --plot pl.svg",
                                   &out),
                     2);
    assert_string_equal(out, "cesync: bench: --plot pl.svg: pl.dot exists and holds no plot of "
                             "cesync bench (the plot's source goes there): move it or plot to "
                             "another name\n");
    free(out);
    out = ces_test_read_file(path, NULL);
    assert_string_equal(out, "digraph mine { a -> b }\n");
    free(out);
    ces_test_put_file(path, "graph bench {\n}\n");
    assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --max-bytes 4K --plot pl.svg "
                                        "--csv /nonexistent/x.csv",
                                   &out),
                     2);
    assert_null(strstr(out, "pl.dot"));
    free(out);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* --plot into a named pipe that no reader opens is not drawn after 60 s,
 * as dot's -o and check --dot are (ces_tool_dot_bounds): said, the plot
 * kept in its .dot, exit 2, in 2 s with the command's clock preloaded to
 * run 30 times as fast (tests/sim/clock_fast.c; it waited for ever, here
 * until the reader opened and closed the pipe 20 s later, and the
 * stand-in dot died of SIGPIPE); and a FILE.dot that is a named pipe is
 * no plot, refused at once (its open to read it waited for a writer for
 * ever, and once drawn the pipe was removed). */
static void test_plot_pipe_stall(void **state)
{
#if defined(CES_CLOCK_FAST)
    static const char env[] = "LD_PRELOAD='" CES_CLOCK_FAST "' "
                              "ASAN_OPTIONS=\"verify_asan_link_order=0:$ASAN_OPTIONS\"";
    static const char want[] = "\ncesync: bench: --plot: no reader opened q.svg in 60 s; the "
                               "plot is in q.dot\n";
    char *dir = ces_test_tmpdir(), *out = NULL, *saved, bin[128], fifo[256], got[256];
    time_t t0;
    pid_t pid;
    int rc;

    (void)state;
    fake_dot(dir, bin, sizeof(bin));
    snprintf(fifo, sizeof(fifo), "%s/q.svg", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid = ces_test_idle_reader(fifo, 0);
    saved = strdup(getenv("PATH") != NULL ? getenv("PATH") : "/usr/bin:/bin");
    assert_non_null(saved);
    assert_int_equal(setenv("PATH", bin, 1), 0);
    rc = ces_test_tool_env(dir, env, "bench alltoall --dry-run --max-bytes 4K --variant plain "
                                     "--plot q.svg", &out);
    assert_int_equal(setenv("PATH", saved, 1), 0);
    free(saved);
    ces_test_end_reader(pid);
    if (strstr(out, "cannot be preloaded") != NULL) {
        free(out);
        ces_test_remove_in(dir, "q.svg\0q.dot\0bin/dot\0bin\0");
        skip();
    }
    if (rc != 2 || strlen(out) < strlen(want) || strcmp(out + strlen(out) - strlen(want), want))
        fail_msg("exit %d, it said:\n%s", rc, out);
    free(out);
    expect_file(dir, "q.dot", NULL);
    assert_int_equal(remove(fifo), 0);
    snprintf(fifo, sizeof(fifo), "%s/bin/dot", dir);
    assert_int_equal(remove(fifo), 0);
    assert_int_equal(rmdir(bin), 0);
    /* the .dot a named pipe: a writer opens it 20 s later */
    snprintf(fifo, sizeof(fifo), "%s/r.dot", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd;

        sleep(20);
        fd = open(fifo, O_WRONLY | O_NONBLOCK);
        _exit(fd >= 0 && close(fd) == 0 ? 0 : 1);
    }
    t0 = time(NULL);
    rc = ces_test_tool(dir, "bench alltoall --dry-run --max-bytes 4K --plot r.svg", &out);
    if (rc != 2 || time(NULL) - t0 >= 10 ||
        strcmp(out, "cesync: bench: --plot r.svg: r.dot exists and holds no plot of cesync "
                    "bench (the plot's source goes there): move it or plot to another "
                    "name\n") != 0)
        fail_msg("exit %d after %lld s, it said:\n%s", rc, (long long)(time(NULL) - t0), out);
    free(out);
    ces_test_end_reader(pid);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "r.dot;");
    assert_int_equal(remove(fifo), 0);
    assert_int_equal(rmdir(dir), 0);
#else
    (void)state;
    skip();
#endif
}

/* --csv into a named pipe that no reader opens is held as --plot is
 * (ces_tool_write_file): after 60 s a line names it, exit 2 as an output
 * that cannot be written, after the table, in 2 s with the command's clock
 * preloaded to run 30 times as fast (tests/sim/clock_fast.c).  It waited
 * for ever, here until the reader opened and closed the pipe 20 s later,
 * and died of SIGPIPE (exit 141).  (--model-out, which --calibrate writes
 * on GPUs alone, is written by the same call.) */
static void test_csv_pipe_stall(void **state)
{
#if defined(CES_CLOCK_FAST)
    static const char env[] = "LD_PRELOAD='" CES_CLOCK_FAST "' "
                              "ASAN_OPTIONS=\"verify_asan_link_order=0:$ASAN_OPTIONS\"";
    static const char want[] = "\ncesync: bench: no reader opened q.csv in 60 s\n";
    char *dir = ces_test_tmpdir(), *out = NULL, fifo[256], got[256];
    pid_t pid;
    int rc;

    (void)state;
    snprintf(fifo, sizeof(fifo), "%s/q.csv", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid = ces_test_idle_reader(fifo, 0);
    rc = ces_test_tool_env(dir, env, "bench alltoall --dry-run --max-bytes 4K --variant plain "
                                     "--csv q.csv", &out);
    ces_test_end_reader(pid);
    if (strstr(out, "cannot be preloaded") != NULL) {
        free(out);
        ces_test_remove_in(dir, "q.csv\0");
        skip();
    }
    if (rc != 2 || strstr(out, "# --dry-run: every time below is the cost model's prediction\n") ==
                       NULL ||
        strlen(out) < strlen(want) || strcmp(out + strlen(out) - strlen(want), want) != 0)
        fail_msg("exit %d, it said:\n%s", rc, out);
    free(out);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "q.csv;");
    ces_test_remove_in(dir, "q.csv\0");
#else
    (void)state;
    skip();
#endif
}

/* The edges of the dry run's options and what its output says of them:
 * --factor 1024 and --warmup 50 are the largest taken; 1 GiB is "1G" in
 * the bytes column; the header names a --model file after the kind and
 * sendrecv's form (ring or one way); a size that a factor's rounding puts a
 * hair above --max-bytes is measured (55.00000000000001 for 55), and one
 * that rounds down into the range from a size above it is not (3 ranks,
 * 1G asked with --max-bytes 1G - 1); the plot's busbw axis ends at the
 * next multiple of 50 GB/s above the fastest point. */
static void test_option_edges(void **state)
{
    char *dir = ces_test_tmpdir(), path[256], *out = NULL;

    (void)state;
    assert_int_equal(ces_test_tool(NULL, "bench alltoall --dry-run --min-bytes 1G --max-bytes 1G "
                                         "--variant plain --warmup 50 --factor 1024", &out), 0);
    assert_ptr_equal(out, strstr(out, "# cesync bench alltoall: 2 ranks (one process), 20 iterations "
                                  "after 50 warm-up, eager; model h200\n"));
    assert_non_null(strstr(out, "\n        1G plain "));
    free(out);
    assert_int_equal(ces_test_tool(NULL, "bench alltoall --dry-run --min-bytes 1K --max-bytes 1K "
                                         "--variant plain --model "
                                         "../../model/calibrated/h200_2gpu.model", &out), 0);
    assert_ptr_equal(out, strstr(out, "# cesync bench alltoall: 2 ranks (one process), 20 iterations "
                                  "after 5 warm-up, eager; model h200 + "
                                  "../../model/calibrated/h200_2gpu.model\n"));
    free(out);
    assert_int_equal(ces_test_tool(NULL, "bench sendrecv --dry-run --min-bytes 1K --max-bytes 1K",
                                   &out), 0);
    assert_ptr_equal(out, strstr(out, "# cesync bench sendrecv (ring): 2 ranks (one process), "));
    free(out);
    assert_int_equal(ces_test_tool(NULL, "bench sendrecv --one-way --dry-run --min-bytes 1K "
                                         "--max-bytes 1K", &out), 0);
    assert_ptr_equal(out, strstr(out, "# cesync bench sendrecv (one way, pipeline): 2 ranks (one "
                                  "process), "));
    free(out);
    assert_int_equal(ces_test_tool(NULL, "bench allgather --dry-run --min-bytes 25 --max-bytes 55 "
                                         "--factor 2.2 --variant plain", &out), 0);
    assert_true(strncmp(out, "cesync: bench: allgather moves multiples of 4 bytes (4-byte "
                             "words): measured 28 for 25, 52 for 55\n", 98) == 0);
    assert_non_null(strstr(out, "\n        28 plain "));
    assert_non_null(strstr(out, "\n        52 plain "));
    free(out);
    assert_int_equal(ces_test_tool(NULL, "bench alltoall --dry-run --ranks 3 --min-bytes 1M "
                                         "--max-bytes 1073741823 --factor 1024 --variant plain",
                                   &out), 0);
    assert_true(strncmp(out, "cesync: bench: alltoall on 3 ranks moves multiples of 12 bytes "
                             "(bytes/3 to each rank, in 4-byte words): measured 1048584 for 1M\n#",
                        129) == 0);
    assert_null(strstr(out, "1073741820"));
    free(out);
    /* 325.2 GB/s at 1G: the axis ends at 350 */
    assert_int_equal(bench_with_path(dir, dir, "bench alltoall --dry-run --min-bytes 1G "
                                               "--max-bytes 1G --variant plain --plot p.svg",
                                     &out),
                     0);
    free(out);
    snprintf(path, sizeof(path), "%s/p.dot", dir);
    out = ces_test_read_file(path, NULL);
    assert_non_null(strstr(out, "\n  yt1 [shape=plaintext, style=\"\", fixedsize=false, "
                                "label=\"70\", pos=\"65.0,132.0!\"];\n"));
    assert_non_null(strstr(out, "\n  yt5 [shape=plaintext, style=\"\", fixedsize=false, "
                                "label=\"350\", pos=\"65.0,420.0!\"];\n"));
    free(out);
    assert_int_equal(remove(path), 0);
    /* two names of one file that exists are one output */
    snprintf(path, sizeof(path), "%s/a.svg", dir);
    ces_test_put_file(path, "picture\n");
    assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --csv a.svg --plot ./a.svg",
                                   &out), 2);
    assert_string_equal(out, "cesync: bench: --csv a.svg and --plot name the same file: each "
                             "output needs its own\n");
    free(out);
    expect_file(dir, "a.svg", "picture\n");
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dry_run_csv),
        cmocka_unit_test(test_sendrecv_predictions),
        cmocka_unit_test(test_pipeline_steady_state),
        cmocka_unit_test(test_group_predictions),
        cmocka_unit_test(test_sizes_and_formulas),
        cmocka_unit_test(test_sizes_in_range),
        cmocka_unit_test(test_table_aligned),
        cmocka_unit_test(test_plot_runs_dot),
        cmocka_unit_test(test_in_place),
        cmocka_unit_test(test_rooted),
        cmocka_unit_test(test_rooted_in_place),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_outputs_first),
        cmocka_unit_test(test_singular),
        cmocka_unit_test(test_graph_variants),
        cmocka_unit_test(test_csv_kept_on_error),
        cmocka_unit_test(test_dry_run_without_prediction),
        cmocka_unit_test(test_dry_run_out_of_memory),
        cmocka_unit_test(test_no_gpu_before_predictions),
        cmocka_unit_test(test_plot_legend),
        cmocka_unit_test(test_empty_output_name),
        cmocka_unit_test(test_factor_near_one),
        cmocka_unit_test(test_plot_keeps_other_dot),
        cmocka_unit_test(test_plot_pipe_stall),
        cmocka_unit_test(test_csv_pipe_stall),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_option_edges),
        cmocka_unit_test(test_settings_before_gpus),
        cmocka_unit_test(test_settings_read_once),
        cmocka_unit_test(test_side_way_predictions),
        cmocka_unit_test(test_dry_run_shared_queues),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
