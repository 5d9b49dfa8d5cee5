/*
 * tools/print.c - `cesync print` (canonical or expanded .ces text) and
 * `cesync validate`.
 */
#include "tool.h"
#include "internal.h" /* ces_plural */
#include "../model/internal.h" /* ces_model_require_file */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char print_help[] =
    "usage: cesync print [SCHEDULE] [builder options] [--expand | --explain] [-o FILE]\n"
    "\n"
    "Prints a schedule as canonical .ces text: a file in canonical form, or the program\n"
    "a built-in collective generates.  Printing the output again gives the same text.\n"
    "\n"
    "  --expand     the expanded, concrete schedule: one line per op and rank\n"
    "  --explain    as --expand, marking the values a graph phase froze at capture\n"
    "  -o FILE      write to FILE, whole or not at all (default -: standard output)\n"
    "\n";

static const char print_tail[] =
    "\n"
    "Exit: 0 printed, 2 bad usage, a schedule that does not parse or expand, or an output\n"
    "that cannot be written.\n"
    "Example: cesync print barrier --ranks 2 --sync nccl --graph --explain\n"
    "Full reference: docs/CLI.md, section \"print\".\n";

static const char validate_help[] =
    "usage: cesync validate [SCHEDULE] [builder options] [--kind K] [--model FILE]\n"
    "\n"
    "Parses, expands and validates a schedule and prints a one-line summary; an error\n"
    "says file:line:col and what was expected.\n"
    "\n"
    "  --kind K       also require every op the schedule uses on machine kind K (h200)\n"
    "  --model FILE   the same for a model file's machine (a pipe or <(cmd) too)\n"
    "\n";

static const char validate_tail[] =
    "\n"
    "Exit: 0 valid, 2 bad usage, an invalid schedule, or an op the machine lacks.\n"
    "Example: cesync validate tests/fixtures/good/pipeline.ces --kind h200\n"
    "Full reference: docs/CLI.md, section \"validate\".\n";

/* validate's options that take a value (ces_tool_load). */
static const char *const validate_valued[] = {"--kind", "--model", NULL};

/* print's option that takes a value, and those that take none
 * (ces_tool_load). */
static const char *const print_valued[] = {"-o", NULL};
static const char *const print_flags[] = {"--expand", "--explain", NULL};

/* print's options as given (ces_tool_opt_fn). */
struct print_args {
    const char *out; /* NULL: standard output */
    const char *in;  /* the schedule's file, which -o must not be */
    unsigned mode;   /* 0 program, 1 expand, 2 explain */
};

static int print_opt(void *ud, const char *opt, const char *v)
{
    struct print_args *a = ud;
    unsigned m;

    /* all taken: the last -o (an -o given twice takes its last value, an
     * earlier one is not judged) must not be the input and must be a file
     * that can be created, its directory there, judged before the schedule
     * is read (whose expansion may take seconds) */
    if (opt == NULL)
        return ces_tool_text_out("print", &a->out, a->in) != CES_EXIT_OK ? CES_EXIT_USAGE
               : a->out != NULL ? ces_tool_out_probe("print", a->out)
                                : CES_EXIT_OK;
    m = strcmp(opt, "--expand") == 0 ? 1 : strcmp(opt, "--explain") == 0 ? 2 : 0;
    if (m != 0 && a->mode != 0 && m != a->mode)
        return ces_tool_fail("print: --expand and --explain exclude each other (--explain "
                             "expands too)");
    if (m != 0) {
        a->mode = m;
        return CES_EXIT_OK;
    }
    /* -o's value there as it is read; its file once all are taken */
    a->out = v;
    return ces_tool_value("print", opt, v, "a file name");
}

/* Writes text to path (replaced only when complete), said on stderr as
 * every command says a file it wrote, or to stdout when path is NULL
 * (main.c reports what did not arrive). */
static int write_out(const char *path, const char *text, size_t len)
{
    if (path == NULL) {
        fwrite(text, 1, len, stdout);
        return CES_EXIT_OK;
    }
    if (ces_tool_write_file("print", path, text, len) != CES_EXIT_OK)
        return CES_EXIT_USAGE;
    ces_tool_say("wrote %s", path);
    return CES_EXIT_OK;
}

int ces_cmd_print(int argc, char **argv)
{
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g = NULL;
    struct ces_prog *p = NULL;
    struct print_args a = {NULL, ces_tool_input_read(argc, argv, print_valued), 0};
    char *text = NULL;
    size_t len = 0;
    int ec;

    if (ces_tool_wants_help(argc, argv)) {
        fputs(print_help, stdout);
        ces_tool_builder_help(0);
        fputs(print_tail, stdout);
        return CES_EXIT_OK;
    }
    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return ces_tool_fail("out of memory");
    ec = ces_tool_load("print", ctx, argc, argv, print_valued, print_flags, print_opt, &a, &g,
                       &p);
    if (ec == CES_EXIT_OK) {
        int rc = a.mode == 0
                     ? ces_prog_print(ctx, p, &text, &len)
                     : ces_graph_print(ctx, g, a.mode == 2 ? CES_PRINT_EXPLAIN : 0, &text, &len);

        ec = rc == CES_OK ? write_out(a.out, text, len)
                          : ces_tool_fail("%s", ces_ctx_last_error(ctx));
    }
    ces_free(ctx, text);
    ces_prog_destroy(p);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    return ec;
}

/* validate's options as given, and the machine they name (ces_tool_opt_fn). */
struct validate_args {
    struct ces_ctx *ctx; /* for the model file's errors */
    const char *kind, *model_path;
    const char *in; /* the schedule's input (ces_tool_input_read) */
    struct ces_model m; /* where either is given */
    struct ces_tool_pending model; /* a model file read beside and after the schedule */
};

/* --kind K, --model FILE (ces_tool_opt_fn); once both are known, the
 * machine: the model file read before the schedule is (whose expansion may
 * take seconds), over the table of a --kind that may come after it; one
 * that is no regular file (a pipe) only opened then, read beside and
 * after it. */
static int validate_opt(void *ud, const char *opt, const char *v)
{
    struct validate_args *a = ud;

    if (opt == NULL)
        return a->kind == NULL && a->model_path == NULL
                   ? CES_EXIT_OK
                   : ces_tool_machine("validate", a->ctx, a->kind, a->model_path, a->in,
                                      &a->m, &a->model);
    return ces_tool_machine_opt("validate", opt, v, &a->kind, &a->model_path) < 0
               ? CES_EXIT_USAGE
               : CES_EXIT_OK;
}

int ces_cmd_validate(int argc, char **argv)
{
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g = NULL;
    struct validate_args a;
    const char *plus = "", *file = "";
    const char *in = ces_tool_input_file(argc, argv, validate_valued);
    const char *place = ces_tool_input_place(argc, argv, validate_valued);
    uint64_t ops = 0;
    int ec;

    if (ces_tool_wants_help(argc, argv)) {
        fputs(validate_help, stdout);
        ces_tool_builder_help(0);
        fputs(validate_tail, stdout);
        return CES_EXIT_OK;
    }
    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return ces_tool_fail("out of memory");
    memset(&a, 0, sizeof(a));
    a.ctx = ctx;
    a.in = ces_tool_input_read(argc, argv, validate_valued);
    ec = ces_tool_load_beside("validate", ctx, argc, argv, validate_valued, NULL, validate_opt,
                              &a, &a.model, &g);
    if (ec == CES_EXIT_OK && a.model.path != NULL)
        ec = ces_tool_machine_read(ctx, &a.model, &a.m);
    ces_tool_pending_end(&a.model);
    if (ec == CES_EXIT_OK && (a.kind != NULL || a.model_path != NULL)) {
        /* the machine named alike either way: the model file's values may
         * be what it lacks (max_ranks 2) */
        plus = a.model_path != NULL ? " + " : "";
        file = a.model_path != NULL ? a.model_path : "";
        /* not valid for a machine that cannot run it: no summary */
        if (ces_model_require_file(ctx, &a.m, g, NULL, a.model_path) != CES_OK) {
            const char *why = ces_ctx_last_error(ctx);
            char lead[CES_ERRMSG_MAX], *msg;

            snprintf(lead, sizeof(lead), "%s%s%s cannot run it", a.m.kind, plus, file);
            msg = ces_tool_op_message("validate", place, why, lead);
            if (msg != NULL)
                ec = ces_tool_fail("%s", msg);
            else
                ec = ces_tool_fail("validate: %s%s%s cannot run %s: %s", a.m.kind, plus, file,
                                   in != NULL ? in : "it", why);
            free(msg);
        }
    }
    if (ec == CES_EXIT_OK) {
        for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
            for (uint32_t r = 0; r < ces_graph_ranks(g); r++) {
                uint32_t n;

                ces_graph_ops(g, b, r, &n);
                ops += (uint64_t)n * ces_graph_block(g, b).reps;
            }
        }
        printf("valid: %" PRIu32 " rank%s, %" PRIu32 " stream%s per rank, %" PRIu32 " buffer%s, "
               "%" PRIu32 " signal array%s, %" PRIu64 " iteration%s, %" PRIu64 " op%s\n",
               ces_graph_ranks(g), ces_plural(ces_graph_ranks(g)), ces_graph_streams(g),
               ces_plural(ces_graph_streams(g)), ces_graph_nbuffers(g),
               ces_plural(ces_graph_nbuffers(g)), ces_graph_nsignals(g),
               ces_plural(ces_graph_nsignals(g)), ces_graph_iterations(g),
               ces_plural(ces_graph_iterations(g)), ops, ces_plural(ops));
    }
    if (ec == CES_EXIT_OK && (a.kind != NULL || a.model_path != NULL)) {
        printf("machine: %s%s", a.m.kind, plus);
        ces_tool_put_name(stdout, file);
        printf(" has every op it uses\n");
    }
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    return ec;
}
