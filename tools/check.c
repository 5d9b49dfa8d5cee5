/*
 * tools/check.c - `cesync check`: model-checks a schedule (a .ces file or a
 * built-in collective) for deadlock, hang, race and mismatch over every
 * interleaving, prints the report (or JSON), draws a counterexample, injects
 * faults, sweeps every fault.  Exit 0 OK, 1 defect, 2 usage / bad input,
 * 3 incomplete.
 */
#include "tool.h"
#include "internal.h" /* ces_find_program, ces_plural, ces_dot_format */
#include "prog.h"     /* struct ces_expand_done */
#include "../backend/sim/internal.h" /* --dot's graph; --fault, --queues, --replay read */

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h> /* max_align_t */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char check_help[] =
    "usage: cesync check [SCHEDULE] [builder options] [options]\n"
    "\n"
    "Explores every execution of the schedule (every interleaving of its ranks and\n"
    "streams, every completion order of a batch) and reports DEADLOCK, HANG, RACE and\n"
    "MISMATCH, each with a counterexample and a replay string.  A bound that stops the\n"
    "search gives INCOMPLETE and names the classes it neither found nor ruled out.\n"
    "\n"
    "Bounds (where one stops the search: INCOMPLETE, exit 3, or 1 with a defect found):\n"
    "  --max-states N      stored states (default 0: no bound; exhaustive search only)\n"
    "  --max-seconds S     seconds from the start, --dot's picture included (no bound)\n"
    "  --max-depth N       steps of one execution, from 1 (no bound; exhaustive only)\n"
    "  --max-memory BYTES  K/M/G, --dot's Graphviz included, which gets 16 MiB and four\n"
    "                      thread stacks at least (48 MiB under ulimit -s 8M, 80 MiB at\n"
    "                      most; default half of this machine's memory; 0: no bound)\n"
    "Search:\n"
    "  --no-reduction      reference mode: no partial-order reduction (exhaustive only)\n"
    "  --first             stop at the first defect (adds INCOMPLETE; not with --replay)\n"
    "  --random N          N random complete executions instead: a sample, not a proof\n"
    "  --seed S            the random mode's seed (default 1; with --random only)\n"
    "  --replay STRING     re-run a report's execution (with its --fault/--abort/--queues)\n"
    "Faults and hardware queues:\n"
    "  --fault SPEC        drop:rR.sS#K, delay:rR.sS#K, stop:rR.sS#K, stop:rR#K; repeatable\n"
    "  --abort             model the runtime watchdog: blocked waits are released\n"
    "  --fault-sweep       every fault at every op, with and without --abort: a table\n"
    "  --queues MAP        each stream's hardware queue: 0,0,1 (all ranks) or 0,0,1/0,1,1\n"
    "  --queue-sweep       every assignment of streams to queues that CUDA may make\n"
    "Output:\n"
    "  --dot OUT           draw the first counterexample, or the schedule (.dot .svg .png);\n"
    "                      a named pipe that no reader opens, or reads from, for 60 s\n"
    "                      stops it (--max-seconds replaces the 60 s)\n"
    "  --json              the report as JSON\n"
    "  --quiet             only the verdict line\n"
    "  --progress S        totals on stderr every S seconds (default 2 s on a terminal,\n"
    "                      unless --quiet or --json)\n"
    "  --predict           the cost model's predicted time instead (check --predict --help)\n"
    "\n";

static const char check_tail[] =
    "\n"
    "Exit: 0 OK, 1 a defect found, 2 bad usage or input (or a --dot picture that fails\n"
    "after a search that found no defect), 3 INCOMPLETE with no defect found.\n"
    "Examples:\n"
    "  cesync check barrier --ranks 2 --sync nccl --graph --iterations 2 --dot cx.svg\n"
    "  cesync check alltoall --ranks 2 --sync credit --iterations 2 --fault-sweep\n"
    "Full reference: docs/CLI.md, section \"check\".\n";

/* The options of check that take a value (ces_tool_load), --predict's
 * among them, and those that take none; --predict refuses the others by
 * name. */
const char *const ces_check_valued[] = {
    "--max-states", "--max-seconds", "--max-depth", "--max-memory", "--random", "--seed",
    "--replay",     "--fault",       "--dot",       "--progress",   "--model",  "--kind",
    "--queues",     NULL};
const char *const ces_check_flags[] = {"--no-reduction", "--first", "--abort", "--fault-sweep",
                                       "--queue-sweep",  "--json",  "--quiet", NULL};

struct check_args {
    struct ces_ctx *ctx; /* for --fault's errors */
    struct ces_check_opts o;
    struct ces_fault faults[64];
    const char *in; /* the schedule's file (ces_tool_input_read), which --dot must not be */
    const char *place; /* its name in messages (ces_tool_input_place), NULL: a built-in */
    const char *dot;
    const char *queues; /* --queues MAP, read once the schedule is known */
    uint32_t *qmap;
    bool json, quiet, sweep, qsweep;
    bool progress; /* --progress: lines on stderr also when it is no terminal */
    bool seed_given, states_given;
    bool memory_given; /* --max-memory: else the default bound */
    double t0;             /* the command's start: --max-seconds counts from it */
    double next_progress;  /* the expansion's next progress line (0: not yet set) */
    double before;         /* seconds from the start to the check's (a fault sweep's, a
                              queue sweep's assignment's): its progress lines add them */
    const char *what;      /* whose progress lines, after "check: ": "" the check's,
                              "without faults: " a fault sweep's check without faults,
                              "--queues MAP: " a queue sweep's check of MAP */
    struct ces_expand_done stopped; /* how far the expansion came, where the bound stopped it */
};

/* --dot's file, before the schedule is read: its expansion and the check
 * can run long, and a picture that cannot be written after them would turn
 * the verdict into a usage error.
 * The name must say the format, its directory must exist, .svg/.png need
 * Graphviz and the temporary file that feeds it (in TMPDIR), and the file
 * must be one that can be created there. */
static int check_dot_path(struct ces_ctx *ctx, const char *path)
{
    const char *slash = strrchr(path, '/'), *fmt = ces_dot_format(path);
    char dir[4096];
    struct stat sb;
    int err;

    if (strcmp(path, "-") == 0)
        return ces_tool_fail("check: --dot -: standard output carries the report (name a .dot, "
                             ".svg or .png file)");
    if (fmt == NULL)
        return ces_tool_fail("check: --dot %s: the name must end in .dot, .svg or .png",
                             ces_tool_path(path));
    if (slash == NULL)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == path)
        snprintf(dir, sizeof(dir), "/");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    /* said as every command says an output it cannot create (a directory
     * not there is no "is not a directory") */
    err = stat(dir, &sb) != 0 ? errno : S_ISDIR(sb.st_mode) ? 0 : ENOTDIR;
    if (err != 0)
        return ces_tool_fail("check: cannot create %s: %s", path, strerror(err));
    if (strcmp(fmt, "dot") != 0 && !ces_find_program("dot", dir, sizeof(dir)))
        return ces_tool_fail("check: --dot %s: Graphviz 'dot' is not installed (not found on "
                             "PATH); install graphviz or write a .dot file", path);
    if (strcmp(fmt, "dot") != 0 && ces_dot_tmp_probe(ctx) != CES_OK)
        return ces_tool_fail("check: --dot %s: %s", path, ces_ctx_last_error(ctx));
    return ces_tool_out_probe("check", path);
}

/* Whether the order of writes and waits of the check's executions holds
 * for its picture (draw): not under a stop, a drop or the watchdog
 * model. */
static bool dot_ordered(const struct ces_check_opts *o)
{
    bool ordered = !(o->flags & CES_CHECK_ABORT);

    for (size_t i = 0; i < o->nfaults; i++)
        ordered = ordered && o->faults[i].kind == CES_FAULT_DELAY;
    return ordered;
}

/* Says how long Graphviz may take to lay out the picture --dot draws,
 * before the search: the schedule's, but under delay faults that of the
 * graph checked in its place, which the picture shows (a delayed write
 * becomes a record, an await and the write, and a graph phase's replays
 * are drawn apart around a delayed one: 3,422 ops with a delay in the
 * second replay draw 10,268).  Faults the check will refuse count as none:
 * they are checked first, as ces_check does, since the derivation takes
 * only checked ones (a delay of a rank the schedule lacks read out of
 * bounds, one of a write given twice failed its assert); one not
 * dot_ordered with every pair within a block, as draw draws it.  A picture
 * that cannot be drawn is not announced: the search's picture fails
 * alike, and neither is one the time bound stops (the deadline, where
 * --max-seconds gives one, and the derivation's bound): its text was
 * made whole, 13.5 s for 16 ranks of 'phase eager x100000' under
 * --max-seconds 2, before the search; nor one whose text and tables pass
 * the memory bound (ces_tool_pic_ctx). */
static void check_dot_note(struct ces_ctx *ctx, const struct ces_graph *g,
                           const struct ces_check_opts *o, const char *path, double deadline)
{
    struct sim_delayed d;
    struct ces_dot_size size;
    struct ces_dot_overlay every;
    struct ces_tool_pic_mem mem;
    struct ces_ctx *pctx = ces_tool_pic_ctx(o->max_memory, &mem);
    const struct ces_graph *drawn = g;
    bool checked = ces_sim_faults_check(ctx, g, o->faults, o->nfaults) == CES_OK;

    /* (a derivation the time bound stopped leaves d to free, no graph) */
    if (checked && ces_sim_delay_derive(ctx, g, o, &d) == CES_OK && d.g != NULL)
        drawn = d.g;
    memset(&every, 0, sizeof(every));
    if (pctx != NULL &&
        ces_tool_dot_size(pctx, drawn, dot_ordered(o) ? NULL : &every, &size, deadline) == CES_OK)
        ces_tool_dot_note("check", ces_tool_dot_ops(drawn), &size, path);
    ces_ctx_destroy(pctx);
    if (checked)
        ces_sim_delayed_free(ctx, &d);
}

/* The options together, once check_opt has taken each (its call with no
 * option), before the schedule is read: those that exclude each other or
 * need another, and --dot's file, none of which needs the graph, so that a
 * long schedule's expansion does not come first, nor a bound it reaches. */
static int check_combined(struct ces_ctx *ctx, struct check_args *a)
{
    if (!a->memory_given)
        a->o.max_memory = ces_tool_default_memory();
    if (a->o.random > 0 && a->o.replay != NULL)
        return ces_tool_fail("check: --random and --replay exclude each other");
    if (a->o.max_depth > 0 && (a->o.random > 0 || a->o.replay != NULL))
        return ces_tool_fail("check: --max-depth bounds the exhaustive search: drop it with "
                             "--random/--replay");
    if ((a->o.flags & CES_CHECK_NO_REDUCTION) && (a->o.random > 0 || a->o.replay != NULL))
        return ces_tool_fail("check: --no-reduction is a mode of the exhaustive search: drop it "
                             "with --random/--replay");
    if (a->seed_given && a->o.random == 0)
        return ces_tool_fail("check: --seed applies to --random");
    if (a->states_given && (a->o.random > 0 || a->o.replay != NULL))
        return ces_tool_fail("check: --max-states bounds the stored states of the exhaustive "
                             "search: drop it with --random/--replay");
    if ((a->o.flags & CES_CHECK_FIRST) && a->o.replay != NULL)
        return ces_tool_fail("check: --first stops a search: a replay is one execution, drop it");
    if (a->quiet && a->json)
        return ces_tool_fail("check: --quiet (the verdict line) and --json (the whole report) "
                             "exclude each other");
    if ((a->sweep || a->qsweep) && a->o.random > 0)
        return ces_tool_fail("check: %s proves every case, --random only samples: drop --random",
                             a->sweep ? "--fault-sweep" : "--queue-sweep");
    if (a->sweep && (a->o.replay != NULL || a->o.nfaults > 0))
        return ces_tool_fail("check: --fault-sweep makes its own faults; drop --fault/--replay");
    if (a->sweep && (a->o.flags & CES_CHECK_ABORT))
        return ces_tool_fail("check: --fault-sweep checks every fault without and with --abort: "
                             "drop --abort");
    if (a->sweep && (a->json || a->dot != NULL))
        return ces_tool_fail("check: --fault-sweep prints a table, not a report: drop "
                             "--json/--dot");
    if (a->qsweep && (a->sweep || a->queues != NULL || a->o.replay != NULL))
        return ces_tool_fail("check: --queue-sweep makes its own queue maps, one check each: "
                             "drop --fault-sweep/--queues/--replay");
    if (a->qsweep && a->dot != NULL)
        return ces_tool_fail("check: --queue-sweep prints a line per failing assignment and "
                             "one report: drop --dot (draw one assignment with --queues)");
    if (a->dot != NULL && check_dot_path(ctx, a->dot) != CES_EXIT_OK)
        return CES_EXIT_USAGE;
    if (a->dot != NULL)
        return ces_tool_out_not_in("check", "--dot", a->dot, a->in);
    return CES_EXIT_OK;
}

/* An option of check in its place on the command line (ces_tool_opt_fn):
 * its value judged alone; how the options combine, once all are known
 * (the call with no option: check_combined). */
static int check_opt(void *ud, const char *opt, const char *v)
{
    struct check_args *a = ud;
    int ec = CES_EXIT_OK;

    if (opt == NULL)
        return check_combined(a->ctx, a);
    if (strcmp(opt, "--max-states") == 0) { /* 0: no bound */
        ec = ces_tool_number("check", opt, v, 0, UINT64_MAX, NULL, &a->o.max_states);
        a->states_given = true;
    } else if (strcmp(opt, "--max-depth") == 0) {
        ec = ces_tool_number("check", opt, v, 1, UINT64_MAX, NULL, &a->o.max_depth);
    } else if (strcmp(opt, "--max-seconds") == 0) {
        ec = ces_tool_seconds("check", opt, v, &a->o.max_seconds);
    } else if (strcmp(opt, "--progress") == 0) {
        ec = ces_tool_seconds("check", opt, v, &a->o.progress_seconds);
        a->progress = true;
    } else if (strcmp(opt, "--max-memory") == 0) { /* 0: no bound */
        ec = ces_tool_size("check", opt, v, 0, UINT64_MAX, NULL, &a->o.max_memory);
        a->memory_given = true;
    } else if (strcmp(opt, "--random") == 0) {
        ec = ces_tool_number("check", opt, v, 1, UINT64_MAX, NULL, &a->o.random);
    } else if (strcmp(opt, "--seed") == 0) {
        ec = ces_tool_number("check", opt, v, 0, UINT64_MAX, NULL, &a->o.seed);
        a->seed_given = true;
    } else if (strcmp(opt, "--replay") == 0) {
        /* the string's syntax and stream numbers no schedule has here,
         * whether or not the schedule's expansion ends within the time
         * bound; its stream numbers against the schedule's in the check */
        if (ces_tool_value("check", opt, v, "a replay string") != CES_EXIT_OK)
            return CES_EXIT_USAGE;
        if (ces_sim_replay_parse(a->ctx, NULL, v, NULL) != CES_OK)
            return ces_tool_fail("check: %s", ces_ctx_last_error(a->ctx));
        a->o.replay = v;
    } else if (strcmp(opt, "--fault") == 0) {
        if (ces_tool_value("check", opt, v, "drop:rR.sS#K, delay:rR.sS#K, stop:rR.sS#K or "
                           "stop:rR#K") != CES_EXIT_OK)
            return CES_EXIT_USAGE;
        if (a->o.nfaults >= sizeof(a->faults) / sizeof(a->faults[0]))
            return ces_tool_fail("check: at most 64 faults");
        if (ces_fault_parse(a->ctx, v, &a->faults[a->o.nfaults]) != CES_OK)
            return ces_tool_fail("check: %s", ces_ctx_last_error(a->ctx));
        a->o.nfaults++;
        /* with those before it, as far as no graph is needed (its rank,
         * stream and op are judged against the schedule in the check, here
         * only against what a schedule may have) */
        if (ces_sim_faults_check(a->ctx, NULL, a->faults, a->o.nfaults) != CES_OK)
            return ces_tool_fail("check: %s", ces_ctx_last_error(a->ctx));
    } else if (strcmp(opt, "--dot") == 0) {
        ec = ces_tool_value("check", opt, v, "an output file");
        a->dot = v;
    } else if (strcmp(opt, "--queues") == 0) {
        /* the text's syntax and lists or numbers no schedule allows here,
         * its lists and numbers against the schedule's ranks and streams
         * once it is expanded (read_queues) */
        if (ces_tool_value("check", opt, v, "a queue number per stream, like 0,0,1") !=
            CES_EXIT_OK)
            return CES_EXIT_USAGE;
        if (ces_sim_queue_map_syntax(a->ctx, v) != CES_OK)
            return ces_tool_fail("check: --queues: %s", ces_ctx_last_error(a->ctx));
        a->queues = v;
    } else if (strcmp(opt, "--no-reduction") == 0) {
        a->o.flags |= CES_CHECK_NO_REDUCTION;
    } else if (strcmp(opt, "--first") == 0) {
        a->o.flags |= CES_CHECK_FIRST;
    } else if (strcmp(opt, "--abort") == 0) {
        a->o.flags |= CES_CHECK_ABORT;
    } else if (strcmp(opt, "--fault-sweep") == 0) {
        a->sweep = true;
    } else if (strcmp(opt, "--queue-sweep") == 0) {
        a->qsweep = true;
    } else if (strcmp(opt, "--json") == 0) {
        a->json = true;
    } else if (strcmp(opt, "--quiet") == 0) {
        a->quiet = true;
    } else { /* --model, --kind */
        return ces_tool_fail("check: %s applies to --predict", opt);
    }
    return ec;
}

/* Progress lines on stderr: asked for, or a terminal there and a report
 * that is not only a verdict line or JSON. */
static bool wants_progress(const struct check_args *a)
{
    return a->progress || (!a->quiet && !a->json && ces_tool_isatty(STDERR_FILENO));
}

/* The seconds of a line count from the command's start, as the
 * expansion's lines do (before: the expansion and what came since); the
 * rates are the check's own. */
static void progress(void *ud, const struct ces_check_stats *s)
{
    const struct check_args *a = ud;

    if (s->mode == CES_CHECK_RANDOM) { /* no states are stored */
        fprintf(stderr, "check: %s%llu of %llu random execution%s, %llu transition%s, %.1f s, "
                "%.0f executions/s\n",
                a->what, (unsigned long long)s->executions, (unsigned long long)a->o.random,
                ces_plural(a->o.random), (unsigned long long)s->transitions,
                ces_plural(s->transitions), s->seconds + a->before,
                s->seconds > 0 ? (double)s->executions / s->seconds : 0.0);
        return;
    }
    fprintf(stderr, "check: %s%llu state%s", a->what, (unsigned long long)s->states,
            ces_plural(s->states));
    if (s->race_free_states > 0) /* docs/SEMANTICS.md section 10, "Waits run early" */
        fprintf(stderr, " (%llu in the second search, for a MISMATCH among race-free executions)",
                (unsigned long long)s->race_free_states);
    if (s->slice_states > 0) /* docs/SEMANTICS.md section 10, "Data judged without some signals" */
        fprintf(stderr, " (%llu in searches without some signals, for a RACE or MISMATCH)",
                (unsigned long long)s->slice_states);
    fprintf(stderr, ", %llu transition%s, %llu end state%s", (unsigned long long)s->transitions,
            ces_plural(s->transitions), (unsigned long long)s->executions,
            ces_plural(s->executions));
    if (s->sample_executions > 0) /* docs/SEMANTICS.md section 10, "Classes found by sampling" */
        fprintf(stderr, " (%llu of them random executions within the search)",
                (unsigned long long)s->sample_executions);
    fprintf(stderr, ", %.1f s, %.0f states/s, %.1f MiB\n", s->seconds + a->before,
            s->seconds > 0 ? (double)s->states / s->seconds : 0.0,
            (double)s->peak_memory / (1024.0 * 1024.0));
}

/* The model's building, before the first line of totals: the ops unrolled,
 * then what it does with them and how far (the step's share, where it can
 * tell). */
static void build_progress(void *ud, const struct ces_check_build *b)
{
    const struct check_args *a = ud;

    fprintf(stderr, "check: %sbuilding the model: ", a->what);
    if (b->ops == 0) /* not counted yet */
        fprintf(stderr, "counting the ops");
    else if (b->unrolled == 0)
        fprintf(stderr, "%llu op%s to unroll", (unsigned long long)b->ops, ces_plural(b->ops));
    else if (b->unrolled < b->ops)
        fprintf(stderr, "%llu of %llu ops unrolled", (unsigned long long)b->unrolled,
                (unsigned long long)b->ops);
    else
        fprintf(stderr, "%llu op%s unrolled", (unsigned long long)b->ops, ces_plural(b->ops));
    if (strcmp(b->step, "unrolling the ops") != 0) {
        fprintf(stderr, ", %s", b->step);
        if (b->step_total > 0)
            fprintf(stderr, " %.0f%%", 100.0 * (double)b->step_done / (double)b->step_total);
    }
    fprintf(stderr, ", %.1f s, %.1f MiB\n", b->seconds + a->before,
            (double)b->memory / (1024.0 * 1024.0));
}

/* The schedule's expansion, before the check (ces_expand_watch_fn): a
 * progress line when due, the last one too, then stopped once --max-seconds
 * has passed since the command began (so a first look that comes after the
 * bound still says how far it came). */
static int expand_watch(void *ud, const struct ces_expand_done *d)
{
    struct check_args *a = ud;
    double t = ces_now(), every = a->o.progress_seconds > 0 ? a->o.progress_seconds : 2.0;
    bool over = a->o.max_seconds > 0 && t - a->t0 >= a->o.max_seconds;

    if (over)
        a->stopped = *d;
    if (!wants_progress(a))
        return over;
    if (a->next_progress == 0)
        a->next_progress = a->t0 + every;
    if (t < a->next_progress)
        return over;
    if (d->validated == 0)
        fprintf(stderr, "check: expanding the schedule: %llu of %llu block%s, %llu of %llu op%s",
                (unsigned long long)d->blocks, (unsigned long long)d->blocks_all,
                ces_plural(d->blocks_all), (unsigned long long)d->ops,
                (unsigned long long)d->ops_all, ces_plural(d->ops_all));
    else
        fprintf(stderr, "check: expanding the schedule: %llu op%s expanded, validating %.0f%%",
                (unsigned long long)d->ops_all, ces_plural(d->ops_all),
                100.0 * (double)d->validated / (double)d->ops_all);
    fprintf(stderr, ", %.1f s\n", t - a->t0);
    a->next_progress = t + every;
    return over;
}

/* The options given that name ranks, streams and ops of the schedule,
 * which only its graph can judge (their syntax check_opt judged), in
 * out; returns how many. */
static size_t graph_options(const struct check_args *a, const char *out[3])
{
    size_t n = 0;

    if (a->o.nfaults > 0)
        out[n++] = "--fault";
    if (a->queues != NULL)
        out[n++] = "--queues";
    if (a->o.replay != NULL)
        out[n++] = "--replay";
    return n;
}

/* The time bound passed while the schedule was expanded: nothing was
 * checked.  The verdict INCOMPLETE (exit 3) with every class open that the
 * check could find, the options whose ranks, streams and ops were not
 * checked against the schedule, a sweep's totals saying it checked nothing
 * (--queue-sweep --json: the sweep's object alone, no assignment in it),
 * a line on stderr saying how far the expansion came, and that --dot's
 * picture was not written (an option the others exclude was said before
 * the expansion began, exit 2). */
static int expansion_stopped(struct ces_ctx *ctx, struct check_args *a)
{
    uint32_t open = a->o.flags & CES_CHECK_ABORT
                        ? CES_V_RACE | CES_V_MISMATCH
                        : CES_V_DEADLOCK | CES_V_HANG | CES_V_RACE | CES_V_MISMATCH;
    char cls[64], expansion[256], unchecked[64];
    const char *opts[3];
    size_t nopts = graph_options(a, opts), len = 0;

    ces_verdict_format(open, cls, sizeof(cls));
    snprintf(expansion, sizeof(expansion),
             "\"bound\":\"time\",\"expansion\":{\"blocks\":%llu,\"blocks_all\":%llu,\"ops\":%llu,"
             "\"ops_all\":%llu,\"validated\":%llu}",
             (unsigned long long)a->stopped.blocks, (unsigned long long)a->stopped.blocks_all,
             (unsigned long long)a->stopped.ops, (unsigned long long)a->stopped.ops_all,
             (unsigned long long)a->stopped.validated);
    unchecked[0] = '\0';
    for (size_t i = 0; i < nopts; i++)
        len += (size_t)snprintf(unchecked + len, sizeof(unchecked) - len, "%s\"%s\"",
                                i > 0 ? "," : "", opts[i]);
    if (a->json && a->qsweep) /* the sweep's object, as a reader of the sweep expects */
        printf("{\"queue_sweep\":{\"at_most\":null,\"failing\":[],\"assignments\":0,\"ok\":0,"
               "\"deadlock_or_hang\":0,\"race_or_mismatch_only\":0,\"incomplete\":0,"
               "\"stopped\":false,\"first\":null,%s,\"unchecked\":[%s]}}\n",
               expansion, unchecked);
    else if (a->json)
        printf("{\"verdict\":\"INCOMPLETE\",\"bits\":%u,\"complete\":false,\"proof\":false,"
               "%s,\"open\":\"%s\",\"unchecked\":[%s],\"defects\":[]}\n",
               (unsigned)CES_V_INCOMPLETE, expansion, cls, unchecked);
    else if (a->quiet)
        puts("verdict: INCOMPLETE");
    else {
        printf("verdict: INCOMPLETE\ncoverage: the bound on time stopped the check while it "
               "expanded the schedule, before the search\ncoverage: neither found nor ruled "
               "out: %s\n", cls);
        if (nopts > 0) {
            fputs("coverage: not checked against the schedule, which was not expanded: the "
                  "ranks, streams and ops that ", stdout);
            for (size_t i = 0; i < nopts; i++)
                printf("%s%s", i == 0 ? "" : i + 1 < nopts ? ", " : " and ", opts[i]);
            puts(nopts == 1 ? " names" : " name");
        }
    }
    /* a sweep's totals line, which whoever reads the sweep looks for */
    if (a->sweep)
        printf("fault sweep: no fault checked (the time bound of %g s had passed while the "
               "schedule was expanded, before its faults were listed)\n", a->o.max_seconds);
    else if (a->qsweep && !a->json)
        printf("queue sweep: 0 assignments: the time bound of %g s had passed while the "
               "schedule was expanded, before any was checked\n", a->o.max_seconds);
    fflush(stdout);
    if (!a->quiet)
        ces_tool_say("check: time bound %g s reached while expanding the schedule, before the "
                     "search: %s", a->o.max_seconds, ces_ctx_last_error(ctx));
    /* as a picture written is said, --quiet or not (it said nothing) */
    if (a->dot != NULL)
        ces_tool_say("check: --dot %s not written: the schedule was not expanded", a->dot);
    return CES_EXIT_INCOMPLETE;
}

/* The seconds count from the command's start, as the other lines' do
 * (before: the expansion and the check without faults); the library's
 * from the sweep's. */
static void sweep_progress(void *ud, size_t done, size_t total, double seconds)
{
    const struct check_args *a = ud;

    fprintf(stderr, "check: fault sweep: %zu of %zu fault%s checked, %.1f s\n", done, total,
            ces_plural(total), seconds + a->before);
}

/* Prints r's report; a write that failed is said as any of the tool's
 * (ces_tool_fail's exit status). */
static int print_report(struct ces_ctx *ctx, const struct ces_check_report *r)
{
    int rc = ces_check_report_print(ctx, r, stdout);

    if (rc == CES_OK)
        return CES_EXIT_OK;
    if (rc == CES_ERR_IO)
        return ces_tool_fail("check: cannot write to standard output: %s", strerror(errno));
    return ces_tool_fail("check: %s", ces_ctx_last_error(ctx));
}

static int exit_of(uint32_t verdict)
{
    if (verdict & (CES_V_DEADLOCK | CES_V_HANG | CES_V_RACE | CES_V_MISMATCH))
        return CES_EXIT_DEFECT;
    if (verdict & CES_V_INCOMPLETE)
        return CES_EXIT_INCOMPLETE;
    return CES_EXIT_OK;
}

/* Whether `path` is where standard output goes (a link to /dev/stdout, or
 * the pipe or file it is): --json's picture is then drawn after the object
 * as before, without "dot_bound" (its text came before the object). */
static bool names_stdout(const char *path)
{
    struct stat p, out;

    return stat(path, &p) == 0 && fstat(STDOUT_FILENO, &out) == 0 && p.st_dev == out.st_dev &&
           p.st_ino == out.st_ino;
}

/* A line of draw's on the picture: said at once where `line` is NULL,
 * else kept there (`size` bytes) for its caller to say after the JSON
 * object, which says what became of the picture. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void draw_says(char *line, size_t size, const char *fmt, ...)
{
    char said[8192];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line != NULL ? line : said, line != NULL ? size : sizeof(said), fmt, ap);
    va_end(ap);
    if (line == NULL)
        ces_tool_say("%s", said);
}

/* Writes the picture (ces_dot_write_by), Graphviz's data segment bounded
 * by `memory` bytes (0: none), a named pipe without `deadline` by the
 * stall that holds dot's -o (ces_tool_dot_bounds: it waited for a reader
 * for ever); `before` (--json's, drawn before
 * the object): a .dot's reader that closes its pipe early fails the write
 * (EPIPE), said after the object, SIGPIPE ignored while it is written (it
 * ended the command with no object at all: exit 141). */
static int write_picture(struct ces_ctx *pctx, const char *text, const char *path,
                         double deadline, uint64_t memory, bool before)
{
    struct ces_dot_bounds b;
    struct sigaction was;
    bool quiet = before && strcmp(ces_dot_format(path), "dot") == 0;
    int rc;

    ces_tool_dot_bounds(&b, deadline, memory);
    if (quiet)
        quiet = ces_tool_sigpipe_ignore(&was);
    rc = ces_dot_write_by(pctx, text, path, &b);
    if (quiet)
        sigaction(SIGPIPE, &was, NULL);
    return rc;
}

/* Draws the report's graph: under delay faults the one checked in the
 * schedule's place (`checked`), with each delayed write on a stream of its
 * own.  Above 1000 write -> wait pairs within blocks a wait is drawn from
 * its nearest writes by the order of the check's executions (o): the queue
 * map they ran on, the delayed writes' streams on queues of their own and
 * in no link.  A stop takes the stopped ops out of their queue, a dropped
 * write overwrites nothing, and a wait the watchdog releases sees no
 * write, none of which that order knows: under them, whatever the check
 * found, every pair within a block is drawn (an overlay without marks
 * where it found nothing).  A picture that fails leaves the
 * report standing: exit 1 when it found a defect (`defect`), else 2; a
 * report that did not arrive is exit 2.  The time bound (`deadline`,
 * --max-seconds from the command's start; 0: none) holds the picture
 * too, its text, its writing and Graphviz's layout: one it stops is not
 * written, which a line says, exit 1 with a defect, else 3 (it was drawn
 * whole after the search: 16 ranks of 'phase eager x100000' under
 * --max-seconds 2 wrote 366 MiB of dot text until 15.2 s); so does the
 * memory bound (o->max_memory), which its text and tables count in
 * (ces_tool_pic_ctx).  *stopped: the bound that stopped it, "time" or "memory"
 * (left as it was where none did); `line`: where not NULL, the line that
 * says what became of the picture is kept there (draw_says). */
static int draw(struct ces_ctx *ctx, const struct ces_graph *checked,
                const struct ces_check_report *r, const char *path, bool defect,
                const struct ces_check_opts *o, double deadline, const char **stopped,
                char *line, size_t size)
{
    const struct ces_graph *g = ces_check_report_graph(r);
    struct ces_dot_checked chk = {ces_check_report_queue_map(r), ces_graph_streams(checked),
                                  false};
    struct ces_dot_overlay ov, *pov = NULL;
    bool counterexample = ces_check_report_ndefects(r) > 0;
    bool ordered = dot_ordered(o);
    struct ces_tool_pic_mem mem;
    struct ces_ctx *pctx;
    char *text = NULL;
    size_t len = 0;
    uint64_t left;
    int rc, ec;

    if (counterexample) {
        if (ces_check_report_overlay(r, 0, &ov) != CES_OK) {
            ces_tool_fail("check: %s", ces_ctx_last_error(ctx));
            return defect ? CES_EXIT_DEFECT : CES_EXIT_USAGE;
        }
        pov = &ov;
    } else if (!ordered) {
        /* an overlay without marks: every pair, also where the graph
         * checked is the schedule's own (no delay) */
        memset(&ov, 0, sizeof(ov));
        pov = &ov;
    }
    /* the report first, then what is said of the picture; one that did not
     * arrive is said now, while errno still holds why (the picture's work
     * sets it again) */
    if (fflush(stdout) != 0 || ferror(stdout))
        return ces_tool_fail("check: cannot write to standard output: %s", strerror(errno));
    if (deadline > 0 && ces_now() >= deadline) {
        draw_says(line, size, "check: --dot %s not written: the time bound of %g s had passed "
                  "before it was drawn", path, o->max_seconds);
        *stopped = "time";
        return defect ? CES_EXIT_DEFECT : CES_EXIT_INCOMPLETE;
    }
    pctx = ces_tool_pic_ctx(o->max_memory, &mem);
    if (pctx == NULL) {
        ces_tool_fail("out of memory");
        return defect ? CES_EXIT_DEFECT : CES_EXIT_USAGE;
    }
    rc = ces_dot_emit_sized(pctx, g, pov, ordered ? &chk : NULL, &text, &len, NULL, deadline);
    if (rc == CES_OK && strcmp(ces_dot_format(path), "dot") == 0)
        ces_tool_dot_text_note("check", ces_tool_dot_ops(g), len, path);
    /* Graphviz may take what the text leaves of the bound, and at least
     * ces_dot_memory_floor */
    left = mem.limit > mem.held ? mem.limit - mem.held : 1;
    if (rc == CES_OK)
        rc = write_picture(pctx, text, path, deadline, mem.limit > 0 ? left : 0, line != NULL);
    ces_free(pctx, text);
    ec = CES_EXIT_OK;
    if (rc == CES_ERR_LIMIT || (rc != CES_OK && mem.over)) { /* as it stops a search */
        char why[192];

        ces_tool_pic_memory_why(why, sizeof(why), rc, o->max_memory, left);
        draw_says(line, size, "check: --dot %s not written: %s", path, why);
        *stopped = "memory";
        ec = defect ? CES_EXIT_DEFECT : CES_EXIT_INCOMPLETE;
    } else if (rc == CES_ERR_TIMEOUT && deadline <= 0) { /* a named pipe's stall */
        draw_says(line, size, "check: --dot %s not written: %s", path,
                  ces_ctx_last_error(pctx));
        *stopped = "time";
        ec = defect ? CES_EXIT_DEFECT : CES_EXIT_INCOMPLETE;
    } else if (rc == CES_ERR_TIMEOUT) { /* as a bound that stops the search: nothing left behind */
        draw_says(line, size, "check: --dot %s not written (--max-seconds %g): %s", path,
                  o->max_seconds, ces_ctx_last_error(pctx));
        *stopped = "time";
        ec = defect ? CES_EXIT_DEFECT : CES_EXIT_INCOMPLETE;
    } else if (rc != CES_OK) {
        draw_says(line, size, "check: --dot %s: %s", path, ces_ctx_last_error(pctx));
        ec = defect ? CES_EXIT_DEFECT : CES_EXIT_USAGE;
    } else {
        draw_says(line, size, "wrote %s (%s)", path,
                  counterexample ? "the first counterexample over the schedule" : "the schedule");
    }
    ces_ctx_destroy(pctx);
    return ec;
}

/* The schedule's own verdict, without faults and without the watchdog: a
 * sweep's rows mean little for a schedule that fails by itself.  Its
 * progress lines are the check's, saying whose ("check: without faults:
 * ..."): a long one printed none and looked hung. */
static int sweep_baseline(struct ces_ctx *ctx, const struct ces_graph *g, struct check_args *a,
                          uint32_t *verdict)
{
    struct ces_check_opts o = a->o;
    struct ces_check_report *r = NULL;
    char buf[64];
    int rc;

    o.flags &= ~(uint32_t)CES_CHECK_ABORT;
    o.sweep_progress = NULL;
    if (wants_progress(a)) {
        o.progress = progress;
        o.build_progress = build_progress;
        o.progress_ud = a;
        a->what = "without faults: ";
    }
    rc = ces_check(ctx, g, &o, &r);
    a->what = "";
    if (rc != CES_OK)
        return ces_tool_fail_at("check", a->place, ces_ctx_last_error(ctx));
    *verdict = ces_check_report_verdict(r);
    ces_check_report_destroy(r);
    ces_verdict_format(*verdict, buf, sizeof(buf));
    printf("without faults: verdict: %s%s\n", buf,
           exit_of(*verdict) == CES_EXIT_DEFECT
               ? " (the schedule fails by itself: the rows below show that too)"
               : "");
    fflush(stdout); /* before the sweep's progress lines */
    return CES_EXIT_OK;
}

static int sweep(struct ces_ctx *ctx, const struct ces_graph *g, struct check_args *a)
{
    struct ces_check_sweep_row *rows = NULL;
    struct ces_check_sweep_rest rest;
    size_t n = 0;
    char *text = NULL;
    size_t incomplete = 0;
    /* per kind (and [3] all): faults, HANG or DEADLOCK, RACE or MISMATCH, OK,
     * not checked (a bound passed first); a row counts in each of the two
     * defect classes it shows (a stop leaves HANG,RACE where what ran past
     * it raced) */
    size_t by_kind[4][5] = {{0}};
    static const uint32_t order[3] = {CES_FAULT_DROP, CES_FAULT_DELAY, CES_FAULT_STOP};
    uint32_t base = 0;
    int ec = sweep_baseline(ctx, g, a, &base);

    if (ec != CES_EXIT_OK)
        return ec;
    if (wants_progress(a)) {
        a->o.sweep_progress = sweep_progress;
        a->o.progress_ud = a;
    }
    a->before = ces_now() - a->t0;
    if (a->o.max_seconds > 0) /* the bound is the whole command's: the baseline spent some */
        a->o.spent_seconds = a->before;
    if (ces_check_fault_sweep(ctx, g, &a->o, &rows, &n, &rest) != CES_OK ||
        ces_check_sweep_text(ctx, rows, n, &rest, &text, NULL) != CES_OK) {
        ces_free(ctx, rows);
        return ces_tool_fail("check: %s", ces_ctx_last_error(ctx));
    }
    if (!a->quiet)
        fputs(text, stdout);
    for (size_t i = 0; i < n; i++) {
        uint32_t v = rows[i].verdict;
        int in[4] = {1, (v & (CES_V_HANG | CES_V_DEADLOCK)) != 0,
                     (v & (CES_V_RACE | CES_V_MISMATCH)) != 0, 0};

        in[3] = !in[1] && !in[2] && !(v & CES_V_INCOMPLETE);
        if ((rows[i].verdict | rows[i].verdict_abort) & CES_V_INCOMPLETE)
            incomplete++;
        for (int c = 0; c < 4; c++) {
            by_kind[rows[i].fault.kind][c] += (size_t)in[c];
            by_kind[3][c] += (size_t)in[c];
        }
    }
    /* those a bound left unchecked: counted, in no class */
    for (int k = 0; k < 3; k++) {
        by_kind[k][0] += rest.kinds[k];
        by_kind[k][4] = rest.kinds[k];
    }
    by_kind[3][0] += rest.n;
    by_kind[3][4] = rest.n;
    /* by kind, with the table: a drop or stop should show, a delay may not */
    for (int i = 0; i < 3 && !a->quiet; i++) {
        const size_t *k = by_kind[order[i]];

        if (k[0] == 0)
            continue;
        printf("%-5s %5zu: %zu HANG or DEADLOCK, %zu RACE or MISMATCH, %zu OK",
               ces_fault_kind_name(order[i]), k[0], k[1], k[2], k[3]);
        if (k[4] > 0)
            printf(", %zu not checked", k[4]);
        putchar('\n');
    }
    /* incomplete: of the faults checked (a search that a bound or --first
     * cut short may have found a defect too), not a class beside the
     * others; those a bound left unchecked are said apart */
    if (rest.n == 0)
        printf("fault sweep: %zu fault%s: ", n, ces_plural(n));
    else if (strcmp(rest.bound, "memory") == 0)
        printf("fault sweep: %zu of %zu faults checked, %zu not (the memory bound of %llu bytes "
               "had been reached): ", n, n + rest.n, rest.n,
               (unsigned long long)a->o.max_memory);
    else
        printf("fault sweep: %zu of %zu faults checked, %zu not (the time bound of %g s had "
               "passed): ", n, n + rest.n, rest.n, a->o.max_seconds);
    printf("%zu show%s a HANG or DEADLOCK, %zu a RACE or MISMATCH (a fault showing both counts "
           "in both), %zu tolerated (OK); %zu of them incomplete\n", by_kind[3][1],
           by_kind[3][1] == 1 ? "s" : "", by_kind[3][2], by_kind[3][3], incomplete);
    ec = exit_of(base) == CES_EXIT_DEFECT ? CES_EXIT_DEFECT
         : incomplete > 0 || rest.n > 0 || exit_of(base) == CES_EXIT_INCOMPLETE
             ? CES_EXIT_INCOMPLETE
             : CES_EXIT_OK;
    ces_free(ctx, text);
    ces_free(ctx, rows);
    return ec;
}

/* Every assignment of each rank's streams to the hardware queues CUDA may
 * give them (ces_queue_map_next): at most the schedule's connections where
 * they are fewer than its streams, else any.  A line per assignment that
 * fails or is incomplete, the totals, and the first failing one's report;
 * with --json one object of the same (docs/API.md).  A check or report
 * that fails stops the sweep, said on stderr (and by "stopped" in the
 * JSON, which stays whole): exit 1 when an assignment already showed a
 * defect, else 2. */
static int queue_sweep(struct ces_ctx *ctx, const struct ces_graph *g, struct check_args *a)
{
    uint32_t R = ces_graph_ranks(g), S = ces_graph_streams(g), conn = ces_graph_connections(g);
    uint32_t Q = conn > 0 && conn < S ? conn : S;
    uint64_t total = ces_queue_map_count(R, S, Q), done = 0, hang = 0, race = 0, incomplete = 0;
    uint32_t *map = calloc((size_t)R * S, sizeof(uint32_t));
    struct ces_check_report *first = NULL;
    char text[4096], what[4200];
    double next = ces_now() + a->o.progress_seconds;
    int ec = CES_EXIT_OK;
    bool lost = false; /* the first failing one's report did not all arrive (said) */

    if (map == NULL)
        return ces_tool_fail("out of memory");
    if (total > CES_QUEUE_MAPS_MAX) {
        /* where one rank's own assignments pass the bound, fewer ranks
         * cannot help: its streams must be fewer */
        bool streams = ces_queue_map_count(1, S, Q) > CES_QUEUE_MAPS_MAX;
        char at[32];

        free(map);
        /* at the file's line of what the message asks to be fewer */
        ces_setting_where(at, sizeof(at), g, streams ? CES_SETTING_STREAMS : CES_SETTING_RANKS);
        snprintf(text, sizeof(text),
                 "--queue-sweep: %llu%s assignments of %u %s %u streams to at most %u "
                 "queues, more than %u checks; check fewer %s%s, or one assignment with "
                 "--queues",
                 (unsigned long long)total, total == UINT64_MAX ? " or more" : "", R,
                 R == 1 ? "rank's" : "ranks'", S, Q,
                 CES_QUEUE_MAPS_MAX, streams ? "streams" : "ranks", at);
        return ces_tool_fail_at("check", a->place, text);
    }
    if (a->json)
        printf("{\"queue_sweep\":{\"at_most\":%u,\"failing\":[", Q);
    else
        printf("queue sweep: %llu assignment%s of each rank's %u stream%s to at most %u "
               "hardware queue%s\n", (unsigned long long)total, ces_plural(total), S,
               ces_plural(S), Q, ces_plural(Q));
    fflush(stdout);
    a->o.queue_map = map;
    if (wants_progress(a)) { /* each check's lines, saying its assignment */
        a->o.progress = progress;
        a->o.build_progress = build_progress;
        a->o.progress_ud = a;
    }
    do {
        struct ces_check_report *r = NULL;
        uint32_t v;

        ces_queue_map_format(R, S, map, text, sizeof(text));
        snprintf(what, sizeof(what), "--queues %s: ", text);
        a->what = what;
        a->before = ces_now() - a->t0; /* (its bound stays what the expansion left) */
        if (ces_check(ctx, g, &a->o, &r) != CES_OK) {
            fflush(stdout); /* the assignments checked first, also into a pipe */
            ec = ces_tool_fail("check: %s", ces_ctx_last_error(ctx));
            break;
        }
        v = ces_check_report_verdict(r);
        done++;
        hang += (v & (CES_V_DEADLOCK | CES_V_HANG)) != 0;
        race += (v & (CES_V_DEADLOCK | CES_V_HANG)) == 0 &&
                (v & (CES_V_RACE | CES_V_MISMATCH)) != 0;
        incomplete += exit_of(v) == CES_EXIT_INCOMPLETE;
        if (exit_of(v) != CES_EXIT_OK) {
            char buf[64];

            ces_verdict_format(v, buf, sizeof(buf));
            if (a->json)
                printf("%s{\"queues\":\"%s\",\"verdict\":\"%s\"}",
                       hang + race + incomplete > 1 ? "," : "", text, buf);
            else if (!a->quiet)
                printf("  --queues %-24s verdict: %s\n", text, buf);
            if (first == NULL && exit_of(v) == CES_EXIT_DEFECT) {
                first = r;
                r = NULL;
            }
        }
        ces_check_report_destroy(r);
        if (wants_progress(a))
            fflush(stdout); /* its line before the next check's on stderr */
        if (wants_progress(a) && ces_now() >= next) {
            /* seconds from the command's start, as the other lines' */
            fprintf(stderr, "check: queue sweep: %llu of %llu assignments checked, %.1f s\n",
                    (unsigned long long)done, (unsigned long long)total, ces_now() - a->t0);
            next = ces_now() + a->o.progress_seconds;
        }
    } while (ces_queue_map_next(R, S, Q, map));
    a->o.queue_map = NULL;
    a->what = "";
    if (a->json) { /* whole also where a check failed: what was checked, and "stopped" */
        char *json = NULL;

        printf("],\"assignments\":%llu,\"ok\":%llu,\"deadlock_or_hang\":%llu,"
               "\"race_or_mismatch_only\":%llu,\"incomplete\":%llu,\"stopped\":%s,"
               "\"first\":",
               (unsigned long long)done, (unsigned long long)(done - hang - race - incomplete),
               (unsigned long long)hang, (unsigned long long)race,
               (unsigned long long)incomplete, ec == CES_EXIT_OK ? "false" : "true");
        if (first == NULL)
            fputs("null", stdout);
        else if (ces_check_report_json(ctx, first, &json, NULL) == CES_OK)
            printf("%.*s", (int)strcspn(json, "\n"), json); /* one line, without its newline */
        else {
            fputs("null", stdout);
            ec = ces_tool_fail("check: %s", ces_ctx_last_error(ctx));
        }
        ces_free(ctx, json);
        puts("}}");
    } else if (ec == CES_EXIT_OK) {
        printf("queue sweep: %llu assignment%s: %llu OK, %llu DEADLOCK or HANG, %llu RACE or "
               "MISMATCH only, %llu incomplete\n",
               (unsigned long long)done, ces_plural(done),
               (unsigned long long)(done - hang - race - incomplete),
               (unsigned long long)hang, (unsigned long long)race,
               (unsigned long long)incomplete);
        if (first != NULL && !a->quiet) {
            ces_queue_map_format(R, S, ces_check_report_queue_map(first), text, sizeof(text));
            printf("\nthe first that fails, --queues %s:\n", text);
            lost = print_report(ctx, first) != CES_EXIT_OK;
        }
    }
    if (ec == CES_EXIT_OK || hang + race > 0)
        ec = hang + race > 0 ? CES_EXIT_DEFECT : incomplete > 0 ? CES_EXIT_INCOMPLETE : CES_EXIT_OK;
    if (lost) /* exit 2, as said: a defect's 1 would have main say it again */
        ec = CES_EXIT_USAGE;
    ces_check_report_destroy(first);
    free(map);
    return ec;
}

/* --queues MAP against the schedule's ranks and streams. */
static int read_queues(struct ces_ctx *ctx, const struct ces_graph *g, struct check_args *a)
{
    uint32_t R = ces_graph_ranks(g), S = ces_graph_streams(g);

    a->qmap = calloc((size_t)R * S, sizeof(uint32_t));
    if (a->qmap == NULL)
        return ces_tool_fail("out of memory");
    if (ces_queue_map_parse(ctx, a->queues, R, S, a->qmap) != CES_OK)
        return ces_tool_fail("check: --queues: %s", ces_ctx_last_error(ctx));
    a->o.queue_map = a->qmap;
    return CES_EXIT_OK;
}

int ces_cmd_check(int argc, char **argv)
{
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g = NULL;
    struct ces_check_report *r = NULL;
    struct check_args a;
    const char *in = ces_tool_input_read(argc, argv, ces_check_valued);
    double deadline; /* of --max-seconds, for --dot's picture (0: none) */
    int ec;

    if (ces_tool_wants_help(argc, argv)) {
        fputs(check_help, stdout);
        ces_tool_builder_help(0);
        fputs(check_tail, stdout);
        return CES_EXIT_OK;
    }
    memset(&a, 0, sizeof(a));
    a.in = in;
    a.place = ces_tool_input_place(argc, argv, ces_check_valued);
    a.what = "";
    a.t0 = ces_now();
    ces_check_opts_init(&a.o);
    a.o.seed = 1;
    a.o.faults = a.faults;
    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return ces_tool_fail("out of memory");
    a.ctx = ctx;
    ec = ces_tool_load_watched("check", ctx, argc, argv, ces_check_valued, ces_check_flags,
                               check_opt, &a, expand_watch, &g, NULL);
    if (a.o.max_seconds > 0)
        ces_tool_streams_bound(a.t0 + a.o.max_seconds, a.o.max_seconds);
    if (ec == CES_EXIT_INCOMPLETE) {
        ec = expansion_stopped(ctx, &a);
        goto out;
    }
    if (ec == CES_EXIT_OK && a.queues != NULL)
        ec = read_queues(ctx, g, &a);
    deadline = a.o.max_seconds > 0 ? a.t0 + a.o.max_seconds : 0;
    /* a long layout is said before the search, with the other checks of
     * --dot's file, not after it (hours later): its ops are known now, and
     * whoever reads it may stop and draw less */
    if (ec == CES_EXIT_OK && a.dot != NULL && strcmp(ces_dot_format(a.dot), "dot") != 0) {
        if (a.o.max_seconds > 0) /* (the derivation of a delay fault's graph counts too) */
            a.o.spent_seconds = ces_now() - a.t0;
        check_dot_note(ctx, g, &a.o, a.dot, deadline);
    }
    /* the bound counts from the command's start: the schedule's expansion
     * and what came since are spent */
    a.before = ces_now() - a.t0;
    if (a.o.max_seconds > 0)
        a.o.spent_seconds = a.before;
    if (ec == CES_EXIT_OK && a.sweep) {
        ec = sweep(ctx, g, &a);
        goto out;
    }
    if (ec == CES_EXIT_OK && a.qsweep) {
        ec = queue_sweep(ctx, g, &a);
        goto out;
    }
    if (ec == CES_EXIT_OK) {
        if (wants_progress(&a)) {
            a.o.progress = progress;
            a.o.build_progress = build_progress;
            a.o.progress_ud = &a;
        }
        /* cleared: after the check the message says what a memory bound
         * refused, if one did */
        ces_ctx_error(ctx, CES_OK, "%s", "");
        if (ces_check(ctx, g, &a.o, &r) != CES_OK)
            ec = ces_tool_fail_at("check", a.place, ces_ctx_last_error(ctx));
    }
    if (ec == CES_EXIT_OK) {
        uint32_t v = ces_check_report_verdict(r);
        const char *stopped = NULL; /* the bound that stopped --dot's picture */
        char why[CES_ERRMSG_MAX], line[8192] = ""; /* line: the picture's, after --json's */
        int drawn = CES_EXIT_OK;
        bool after = a.dot != NULL && a.json && names_stdout(a.dot);

        /* what a bound stopped, if it did, before the picture sets errors */
        snprintf(why, sizeof(why), "%s", ces_ctx_last_error(ctx));
        if (a.json) {
            char *text = NULL;

            /* the picture before the object, which says whether a bound
             * stopped it (it said "complete":true alone, exit 3) */
            if (ces_check_report_json(ctx, r, &text, NULL) != CES_OK)
                ec = ces_tool_fail("check: %s", ces_ctx_last_error(ctx));
            if (ec == CES_EXIT_OK && a.dot != NULL && !after)
                drawn = draw(ctx, g, r, a.dot, exit_of(v) == CES_EXIT_DEFECT, &a.o, deadline,
                             &stopped, line, sizeof(line));
            if (text != NULL && stopped != NULL) {
                size_t end = (size_t)(strrchr(text, '}') - text);

                printf("%.*s,\"dot_bound\":\"%s\"%s", (int)end, text, stopped, text + end);
            } else if (text != NULL) {
                fputs(text, stdout);
            }
            ces_free(ctx, text);
        } else if (a.quiet) {
            char buf[64];

            ces_verdict_format(v, buf, sizeof(buf));
            printf("verdict: %s\n", buf);
        } else {
            ec = print_report(ctx, r);
        }
        if (ec == CES_EXIT_OK && !a.quiet && (v & CES_V_INCOMPLETE) && why[0] != '\0') {
            fflush(stdout); /* the report first, then why it is incomplete */
            ces_tool_say("check: %s", why);
            if (!a.memory_given && strncmp(why, "memory bound", 12) == 0)
                ces_tool_say("check: (the default bound, half of this machine's "
                             "memory; --max-memory sets another, 0 none)");
        }
        if (line[0] != '\0') { /* --json's picture said after the object, as before */
            fflush(stdout);
            ces_tool_say("%s", line);
        }
        if (ec == CES_EXIT_OK && a.dot != NULL && (!a.json || after))
            drawn = draw(ctx, g, r, a.dot, exit_of(v) == CES_EXIT_DEFECT, &a.o, deadline,
                         &stopped, NULL, 0);
        if (ec == CES_EXIT_OK)
            ec = drawn != CES_EXIT_OK ? drawn : exit_of(v);
    }
out:
    free(a.qmap);
    ces_check_report_destroy(r);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    return ec;
}
