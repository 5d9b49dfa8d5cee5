/*
 * tools/promela.c - `cesync promela`: write an equivalent Promela model of a
 * schedule, for cross-checking the checker with SPIN.
 */
#include "tool.h"
#include "../backend/sim/internal.h" /* --fault, --queues judged as read */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char promela_help[] =
    "usage: cesync promela [SCHEDULE] [builder options] [-o OUT.pml] [--no-races]\n"
    "                      [--no-data] [--data-at-end] [--queues MAP] [--fault FAULT ...]\n"
    "\n"
    "Writes a Promela model of the schedule for SPIN: deadlocks and hangs are invalid\n"
    "end states, races and wrong data assertion violations.  Check it with\n"
    "  spin -a OUT.pml && cc -O2 -DSAFETY -DCOLLAPSE -o pan pan.c && ./pan\n"
    "The model has limits (255 processes, 100,000 ops a rank, ...); past one, exit 2.\n"
    "\n"
    "  -o OUT.pml    write to a file, whole or not at all (default -: standard output)\n"
    "  --no-races    leave out the vector clocks and race assertions\n"
    "  --no-data     leave out provenance and the consume assertions\n"
    "  --data-at-end\n"
    "                judge the data at end states, as cesync check does\n"
    "  --queues MAP  each stream's hardware queue, as cesync check --queues\n"
    "  --fault FAULT\n"
    "                the model under a delay or stop fault, as check takes it\n"
    "\n";

static const char promela_tail[] =
    "\n"
    "Exit: 0 written, 2 bad usage, a bad schedule, a model past a limit, or an output\n"
    "that cannot be written.\n"
    "Example: cesync promela barrier --ranks 2 -o b.pml\n"
    "Full reference: docs/CLI.md, section \"promela\".\n";

/* promela's options that take a value, and those that take none
 * (ces_tool_load). */
static const char *const promela_valued[] = {"-o", "--queues", "--fault", NULL};
static const char *const promela_flags[] = {"--no-races", "--no-data", "--data-at-end", NULL};

/* promela's options as given (ces_tool_opt_fn). */
struct promela_args {
    struct ces_ctx *ctx; /* for --fault's errors */
    struct ces_promela_opts o;
    struct ces_fault faults[64];
    const char *out, *queues;
    const char *in; /* the schedule's file, which -o must not be */
    int at_end;
};

static int promela_opt(void *ud, const char *opt, const char *v)
{
    struct promela_args *a = ud;

    /* all taken: --data-at-end changes how the data is judged, which
     * --no-data leaves out (together they gave the model of --no-data
     * without a word); then the last -o (an -o given twice takes its last
     * value, an earlier one is not judged), which must not be the input
     * and must be a file that can be created */
    if (opt == NULL) {
        if (a->at_end && a->o.data == 0)
            return ces_tool_fail("promela: --data-at-end judges the data at end states, which "
                                 "--no-data leaves out: give one of them");
        if (ces_tool_text_out("promela", &a->out, a->in) != CES_EXIT_OK)
            return CES_EXIT_USAGE;
        return a->out != NULL ? ces_tool_out_probe("promela", a->out) : CES_EXIT_OK;
    }
    if (strcmp(opt, "-o") == 0) { /* its value there; its file once all are taken */
        a->out = v;
        return ces_tool_value("promela", opt, v, "a file name");
    }
    if (strcmp(opt, "--queues") == 0) {
        /* as check judges it: the syntax and the lists and numbers no
         * schedule allows here, before the schedule's expansion; against
         * the schedule's ranks and streams once it is expanded */
        a->queues = v;
        if (ces_tool_value("promela", opt, v, "a queue number per stream, like 0,0,1") !=
            CES_EXIT_OK)
            return CES_EXIT_USAGE;
        if (ces_sim_queue_map_syntax(a->ctx, v) != CES_OK)
            return ces_tool_fail("promela: --queues: %s", ces_ctx_last_error(a->ctx));
        return CES_EXIT_OK;
    }
    if (strcmp(opt, "--fault") == 0) {
        if (ces_tool_value("promela", opt, v, "delay:rR.sS#K, stop:rR.sS#K or stop:rR#K") !=
            CES_EXIT_OK)
            return CES_EXIT_USAGE;
        if (a->o.nfaults >= sizeof(a->faults) / sizeof(a->faults[0]))
            return ces_tool_fail("promela: at most 64 faults");
        if (ces_fault_parse(a->ctx, v, &a->faults[a->o.nfaults]) != CES_OK)
            return ces_tool_fail("promela: %s", ces_ctx_last_error(a->ctx));
        a->o.nfaults++;
        a->o.faults = a->faults;
        /* as check judges it: with those before it, as far as no graph is
         * needed, and a drop, which has no model (ces_promela_emit judges
         * its rank, stream and op against the schedule) */
        if (ces_sim_faults_check(a->ctx, NULL, a->faults, a->o.nfaults) != CES_OK)
            return ces_tool_fail("promela: %s", ces_ctx_last_error(a->ctx));
        if (a->faults[a->o.nfaults - 1].kind == CES_FAULT_DROP) {
            char spec[96];

            ces_fault_format(&a->faults[a->o.nfaults - 1], spec, sizeof(spec));
            return ces_tool_fail("promela: fault %s: only a delay or a stop is modelled (check "
                                 "a drop with cesync check)", spec);
        }
    } else if (strcmp(opt, "--no-races") == 0) {
        a->o.races = 0;
    } else if (strcmp(opt, "--no-data") == 0) {
        a->o.data = 0;
    } else {
        a->at_end = 1; /* --data-at-end */
    }
    return CES_EXIT_OK;
}

int ces_cmd_promela(int argc, char **argv)
{
    struct promela_args a;
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g = NULL;
    uint32_t *map = NULL;
    char *text = NULL;
    size_t len = 0;
    int ec;

    if (ces_tool_wants_help(argc, argv)) {
        fputs(promela_help, stdout);
        ces_tool_builder_help(0);
        fputs(promela_tail, stdout);
        return CES_EXIT_OK;
    }
    memset(&a, 0, sizeof(a));
    ces_promela_opts_init(&a.o);
    a.in = ces_tool_input_read(argc, argv, promela_valued);
    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return ces_tool_fail("out of memory");
    a.ctx = ctx;
    ec = ces_tool_load("promela", ctx, argc, argv, promela_valued, promela_flags, promela_opt, &a,
                       &g, NULL);
    if (ec == CES_EXIT_OK && a.queues != NULL) {
        map = calloc((size_t)ces_graph_ranks(g) * ces_graph_streams(g), sizeof(uint32_t));
        if (map == NULL)
            ec = ces_tool_fail("out of memory");
        else if (ces_queue_map_parse(ctx, a.queues, ces_graph_ranks(g), ces_graph_streams(g),
                                     map) != CES_OK)
            ec = ces_tool_fail("promela: --queues: %s", ces_ctx_last_error(ctx));
        a.o.queue_map = map;
    }
    if (a.at_end) {
        a.o.data = 2;
        a.o.races = a.o.races != 0 ? 2 : 0;
    }
    /* a place of the file its words name, an op's or a header setting's,
     * at FILE:LINE:COL (the words start with "promela: ") */
    if (ec == CES_EXIT_OK && ces_promela_emit(ctx, g, &a.o, &text, &len) != CES_OK) {
        const char *why = ces_ctx_last_error(ctx);

        if (strncmp(why, "promela: ", 9) == 0)
            why += 9;
        ec = ces_tool_fail_at("promela", ces_tool_input_place(argc, argv, promela_valued), why);
    }
    if (ec == CES_EXIT_OK && a.out == NULL) {
        fwrite(text, 1, len, stdout);
    } else if (ec == CES_EXIT_OK) {
        ec = ces_tool_write_file("promela", a.out, text, len);
        if (ec == CES_EXIT_OK)
            ces_tool_say("wrote %s", a.out);
    }
    ces_free(ctx, text);
    free(map);
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    return ec;
}
