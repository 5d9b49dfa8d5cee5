/*
 * tools/dot.c - `cesync dot`: draw a schedule.
 */
#include "tool.h"
#include "internal.h" /* ces_dot_format, ces_find_program, ces_dot_tmp_probe, ces_now */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char dot_help[] =
    "usage: cesync dot [SCHEDULE] [builder options] [-o OUT.svg|OUT.png|OUT.dot|-]\n"
    "                  [--max-seconds S] [--max-memory BYTES]\n"
    "\n"
    "Draws the schedule with Graphviz: a cluster per rank, a lane per stream, dashed\n"
    "write -> wait edges, dotted record -> await edges, bold copies to another rank, a\n"
    "legend.  A long layout (10 s or more) or dot text of 16 MiB or more is announced.\n"
    "\n"
    "  -o OUT       .dot text, or .svg/.png drawn by Graphviz's dot (default -: the\n"
    "               dot text on standard output); replaced only when complete; a\n"
    "               named pipe that no reader opens, or reads from, for 60 s stops it\n"
    "  --max-seconds S\n"
    "               stop S seconds after the start, Graphviz's layout included\n"
    "               (default: no bound; given, it replaces the named pipe's 60 s)\n"
    "  --max-memory BYTES\n"
    "               K/M/G: the picture's text and tables, and Graphviz's, which gets\n"
    "               16 MiB and four thread stacks at least (default half of this\n"
    "               machine's memory; 0: no bound)\n"
    "\n";

static const char dot_tail[] =
    "\n"
    "Exit: 0 drawn, 2 bad usage, a bad schedule, or a Graphviz that fails, 3 a bound\n"
    "stopped it.\n"
    "Example: cesync dot alltoall --ranks 4 --sync nccl -o alltoall.svg\n"
    "Full reference: docs/CLI.md, section \"dot\".\n";

/* dot's option that takes a value (ces_tool_load). */
static const char *const dot_valued[] = {"-o", "--max-seconds", "--max-memory", NULL};

/* -o's file (NULL: standard output) and the schedule's (not to be it). */
struct dot_args {
    const char *out, *in;
    struct ces_ctx *ctx; /* for the temporary file's error */
    double t0;           /* the command's start: --max-seconds counts from it */
    double max_seconds;  /* 0: none */
    uint64_t max_memory; /* 0: none */
    bool memory_given;   /* --max-memory: else the default bound */
};

/* What ces_dot_write needs for the last -o's file, judged once every
 * option is taken, before the schedule is read (its expansion and the dot
 * text may take minutes): Graphviz for .svg and .png, a file that can be
 * created (its directory there), and the temporary file that feeds
 * Graphviz, in TMPDIR (else /tmp); each said in the words the write says. */
static int dot_out_ready(struct dot_args *a)
{
    bool drawn = strcmp(ces_dot_format(a->out), "dot") != 0;
    char prog[4096];

    if (drawn && !ces_find_program("dot", prog, sizeof(prog)))
        return ces_tool_fail("dot: cannot write %s: Graphviz 'dot' is not installed (not found "
                             "on PATH); install graphviz or write a .dot file", a->out);
    if (ces_tool_out_probe("dot", a->out) != CES_EXIT_OK)
        return CES_EXIT_USAGE;
    if (drawn && ces_dot_tmp_probe(a->ctx) != CES_OK)
        return ces_tool_fail("dot: cannot write %s: %s", a->out, ces_ctx_last_error(a->ctx));
    return CES_EXIT_OK;
}

/* -o FILE (ces_tool_opt_fn): its value there as it is read.  Once all are
 * taken (the call with no option), before the schedule is read (whose
 * expansion may take seconds), the last -o (an -o given twice takes its
 * last value, an earlier one is not judged): not the input, a name that
 * says the format (-o /dev/stdout is refused pointing at the name of
 * standard output), then dot_out_ready. */
static int dot_opt(void *ud, const char *opt, const char *v)
{
    struct dot_args *a = ud;

    if (opt != NULL && strcmp(opt, "--max-seconds") == 0)
        return ces_tool_seconds("dot", opt, v, &a->max_seconds);
    if (opt != NULL && strcmp(opt, "--max-memory") == 0) { /* 0: no bound */
        a->memory_given = true;
        return ces_tool_size("dot", opt, v, 0, UINT64_MAX, NULL, &a->max_memory);
    }
    if (opt != NULL) {
        a->out = v;
        return ces_tool_value("dot", opt, v, "a file name");
    }
    if (ces_tool_text_out("dot", &a->out, a->in) != CES_EXIT_OK)
        return CES_EXIT_USAGE;
    if (a->out != NULL && ces_dot_format(a->out) == NULL)
        return ces_tool_fail("dot: -o %s: the name must end in .dot, .svg or .png (-o - writes "
                             "the dot text to standard output)", ces_tool_path(a->out));
    return a->out != NULL ? dot_out_ready(a) : CES_EXIT_OK;
}

/* The schedule's expansion (ces_expand_watch_fn): stopped once
 * --max-seconds has passed since the command began. */
static int dot_watch(void *ud, const struct ces_expand_done *done)
{
    const struct dot_args *a = ud;

    (void)done;
    return a->max_seconds > 0 && ces_now() - a->t0 >= a->max_seconds;
}

/* The line and exit status of a picture that a bound stopped (rc
 * CES_ERR_TIMEOUT): nothing left in OUT's place, exit 3 as check's
 * bounds. */
static int dot_stopped(const struct dot_args *a, const char *why)
{
    if (a->max_seconds > 0)
        ces_tool_say("dot: %s not written (--max-seconds %g): %s",
                     a->out != NULL ? a->out : "the dot text", a->max_seconds, why);
    else
        ces_tool_say("dot: %s not written: %s", a->out, why);
    return CES_EXIT_INCOMPLETE;
}

/* The lines and exit status of a picture that the memory bound stopped,
 * as check --dot says them (ces_tool_pic_memory_why); nothing left in
 * OUT's place, exit 3. */
static int dot_memory_stopped(const struct dot_args *a, int rc, uint64_t left)
{
    char why[192];

    ces_tool_pic_memory_why(why, sizeof(why), rc, a->max_memory, left);
    ces_tool_say("dot: %s not written: %s", a->out != NULL ? a->out : "the dot text", why);
    if (!a->memory_given)
        ces_tool_say("dot: (the default bound, half of this machine's memory; --max-memory "
                     "sets another, 0 none)");
    return CES_EXIT_INCOMPLETE;
}

/* The dot text on standard output (-o -) under --max-seconds, written as
 * -o o.dot is, o.dot a link to /dev/stdout: within the bound, a pipe or a
 * terminal given a description of its own, O_NONBLOCK (ces_file_create_by),
 * and no stall (a pager is waited for).  It was written by fwrite without
 * the bound, which the other name of the same descriptor held: 'dot
 * alltoall --ranks 8 --max-seconds 1 | (sleep 30; wc -c)' waited 30 s.
 * Returns CES_OK, CES_ERR_TIMEOUT or CES_ERR_IO, the error in ctx. */
static int dot_stdout_by(struct ces_ctx *ctx, const char *text, size_t len,
                         const struct ces_dot_bounds *b)
{
    struct ces_out_file of;
    struct ces_dot_bounds by = *b;
    int flags = fcntl(STDOUT_FILENO, F_GETFL), fd, late, rc = CES_OK;

    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
        return ces_ctx_error(ctx, CES_ERR_IO, "cannot write to standard output: %s",
                             strerror(flags < 0 ? errno : EBADF));
    by.stall = 0;
    fflush(stdout); /* (nothing before it there: written in its order all the same) */
    /* a socket that a relay stands in for is written itself, as before the
     * relay: the relay's pipe took 64 KiB and said the bound passed too */
    fd = ces_tool_streams_stood_in(STDOUT_FILENO);
    if (fd >= 0 && (fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
        return ces_ctx_error(ctx, CES_ERR_IO, "cannot write to standard output: %s",
                             strerror(errno));
    if (fd < 0)
        fd = ces_file_create_by(ctx, "/dev/fd/1", &of, by.deadline, 0);
    if (fd < 0)
        return CES_ERR_IO;
    late = ces_file_write_by(fd, text, len, &by);
    if (late == 1)
        rc = ces_ctx_error(ctx, CES_ERR_TIMEOUT, "the time bound passed while it was written to "
                           "standard output");
    else if (late != 0)
        rc = ces_ctx_error(ctx, CES_ERR_IO, "cannot write to standard output: %s",
                           strerror(errno));
    if (close(fd) != 0 && rc == CES_OK)
        rc = ces_ctx_error(ctx, CES_ERR_IO, "cannot write to standard output: %s",
                           strerror(errno));
    return rc;
}

int ces_cmd_dot(int argc, char **argv)
{
    struct ces_ctx *ctx = NULL, *pctx = NULL; /* pctx: the picture's, counted in mem */
    struct ces_graph *g = NULL;
    struct dot_args a = {NULL, ces_tool_input_read(argc, argv, dot_valued), NULL, ces_now(), 0,
                         0, false};
    struct ces_tool_pic_mem mem;
    struct ces_dot_bounds b;
    char *text = NULL;
    size_t len = 0;
    int ec;

    if (ces_tool_wants_help(argc, argv)) {
        fputs(dot_help, stdout);
        ces_tool_builder_help(0);
        fputs(dot_tail, stdout);
        return CES_EXIT_OK;
    }
    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return ces_tool_fail("out of memory");
    a.ctx = ctx;
    ec = ces_tool_load_watched("dot", ctx, argc, argv, dot_valued, NULL, dot_opt, &a, dot_watch,
                               &g, NULL);
    if (a.max_seconds > 0)
        ces_tool_streams_bound(a.t0 + a.max_seconds, a.max_seconds);
    if (ec == CES_EXIT_INCOMPLETE) {
        char why[4200];

        snprintf(why, sizeof(why), "the time bound passed while the schedule was expanded (%s)",
                 ces_ctx_last_error(ctx));
        ec = dot_stopped(&a, why);
    }
    if (!a.memory_given)
        a.max_memory = ces_tool_default_memory();
    if (ec == CES_EXIT_OK) {
        pctx = ces_tool_pic_ctx(a.max_memory, &mem);
        if (pctx == NULL)
            ec = ces_tool_fail("out of memory");
    }
    if (ec == CES_EXIT_OK) {
        struct ces_dot_size size;
        int rc = ces_dot_emit_sized(pctx, g, NULL, NULL, &text, &len, &size,
                                    a.max_seconds > 0 ? a.t0 + a.max_seconds : 0);
        /* Graphviz may take what the text leaves of the bound, and at least
         * ces_dot_memory_floor */
        uint64_t left = mem.limit > mem.held ? mem.limit - mem.held : 1;

        ces_tool_dot_bounds(&b, a.max_seconds > 0 ? a.t0 + a.max_seconds : 0,
                            mem.limit > 0 ? left : 0);
        if (rc == CES_OK && a.out != NULL)
            ces_tool_dot_note("dot", ces_tool_dot_ops(g), &size, a.out);
        if (rc == CES_OK && (a.out == NULL || strcmp(ces_dot_format(a.out), "dot") == 0))
            ces_tool_dot_text_note("dot", ces_tool_dot_ops(g), len, a.out);

        if (rc == CES_OK && a.out != NULL)
            rc = ces_dot_write_by(pctx, text, a.out, &b);
        else if (rc == CES_OK && a.max_seconds > 0)
            rc = dot_stdout_by(pctx, text, len, &b);
        else if (rc == CES_OK)
            fwrite(text, 1, len, stdout);
        if (rc == CES_ERR_LIMIT || (rc != CES_OK && mem.over))
            ec = dot_memory_stopped(&a, rc, left);
        else if (rc == CES_ERR_TIMEOUT)
            ec = dot_stopped(&a, ces_ctx_last_error(pctx));
        else if (rc != CES_OK)
            ec = ces_tool_fail("dot: %s", ces_ctx_last_error(pctx));
        else if (a.out != NULL)
            ces_tool_say("wrote %s", a.out);
    }
    if (pctx != NULL)
        ces_free(pctx, text);
    ces_ctx_destroy(pctx);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    return ec;
}
