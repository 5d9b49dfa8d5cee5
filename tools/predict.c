/*
 * tools/predict.c - `cesync check --predict`: the cost model's predicted
 * time of a schedule (a .ces file or a built collective) on a machine kind,
 * optionally with a model file's overrides, and where that time goes along
 * the critical path.
 */
#include "tool.h"
#include "../model/internal.h" /* ces_model_require_file */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char predict_usage[] =
    "usage: cesync check --predict [SCHEDULE] [builder options] [--model FILE] [--kind K]\n"
    "\n"
    "Predicts the schedule's time with the machine model instead of checking it: the\n"
    "total and per-iteration time, the critical path split into copy, signal, memop,\n"
    "event and host time, in both the fast and the slow mode of blocked waits.  Streams\n"
    "share hardware queues as the schedule's connections say (stream s on queue s mod N):\n"
    "an op starts once the op ahead of it on its queue has left the queue's head (a copy\n"
    "as it starts, a record or an await as soon as the op ahead of it left, any other\n"
    "op as it ends).\n"
    "\n"
    "  --model FILE   a model file (key = value, bench --calibrate's) over the kind's table\n"
    "  --kind K       the machine kind (default h200)\n"
    "\n";

static const char predict_tail[] =
    "\n"
    "Exit: 0 predicted, 1 it does not finish (the blocked op named), 2 bad usage or input,\n"
    "or one the machine cannot run or the model does not time (too many op instances).\n"
    "Example: cesync check --predict alltoall --ranks 2 --bytes 1M\n"
    "Full reference: docs/CLI.md, section \"check --predict\".\n";

/* A count in the largest unit, up to EiB, that holds at least 1.00 of it:
 * one that "%.2f" rounds up to 1024.00 of a unit goes to the next one
 * (2^20 - 1 bytes: 1.00 MiB, not 1024.00 KiB; 2^40 - 1: 1.00 TiB). */
static void print_bytes(const char *label, uint64_t b)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)b / 1024.0; /* exact: a power of two */
    int u = 0;

    if (b == UINT64_MAX) { /* the model's sum stops there */
        printf("%s16.00 EiB or more", label);
        return;
    }
    if (b < 1024) {
        printf("%s%" PRIu64 " B", label, b);
        return;
    }
    for (; u < 5 && v >= 1023.995; u++)
        v /= 1024.0;
    printf("%s%.2f %s", label, v, unit[u]);
}

/* The n parts of total (each >= 0, adding up to it) rounded to hundredths
 * so that they add up to total as "%.2f" prints it: each rounded alone they
 * could miss it by a few hundredths.  The hundredths left over go to the
 * parts that rounding down cut the most (largest remainders).  Past 2^52
 * hundredths a double holds no hundredths: the parts stay as they are. */
static void round_parts(double total, double *part, int n)
{
    char buf[64];
    double want, have = 0.0, cut[8];

    snprintf(buf, sizeof(buf), "%.2f", total);
    want = floor(strtod(buf, NULL) * 100.0 + 0.5);
    if (!(want < 4503599627370496.0))
        return;
    for (int i = 0; i < n; i++) {
        double h = part[i] * 100.0;

        part[i] = floor(h);
        cut[i] = h - part[i];
        have += part[i];
    }
    for (; have != want; have += have < want ? 1.0 : -1.0) {
        int best = -1;

        for (int i = 0; i < n; i++)
            if (have < want ? cut[i] >= 0.0 && (best < 0 || cut[i] > cut[best])
                            : part[i] >= 1.0 && cut[i] <= 1.0 && (best < 0 || cut[i] < cut[best]))
                best = i;
        if (best < 0)
            break;
        part[best] += have < want ? 1.0 : -1.0;
        cut[best] = have < want ? -1.0 : 2.0; /* one step per part */
    }
    for (int i = 0; i < n; i++)
        part[i] /= 100.0;
}

/* --kind K, --model FILE as given, and the machine they name. */
struct predict_args {
    struct ces_ctx *ctx; /* for the model file's errors */
    const char *kind, *model_path;
    const char *in; /* the schedule's input (ces_tool_input_read) */
    struct ces_model m;
    struct ces_tool_pending model; /* a model file read beside and after the schedule */
};

/* --kind K, --model FILE (ces_tool_opt_fn); the other options of check are
 * refused by name.  Once all are taken, the machine: the model file read
 * before the schedule is (whose expansion may take seconds), over the
 * table of a --kind that may come after it on the line; one that is no
 * regular file (a pipe) only opened then, read beside and after it. */
static int predict_opt(void *ud, const char *opt, const char *v)
{
    struct predict_args *a = ud;
    int t;

    if (opt == NULL)
        return ces_tool_machine("check --predict", a->ctx, a->kind, a->model_path, a->in,
                                &a->m, &a->model);
    t = ces_tool_machine_opt("check --predict", opt, v, &a->kind, &a->model_path);
    if (t == 0)
        return ces_tool_fail("check --predict: %s does not combine with --predict (which takes "
                             "builder options, --model and --kind)", opt);
    return t < 0 ? CES_EXIT_USAGE : CES_EXIT_OK;
}

int ces_cmd_predict(int argc, char **argv)
{
    struct ces_ctx *ctx = NULL;
    struct ces_graph *g = NULL;
    struct predict_args a;
    const char *in = ces_tool_input_file(argc, argv, ces_check_valued);
    const char *place = ces_tool_input_place(argc, argv, ces_check_valued);
    struct ces_model m, slow;
    struct ces_predict p, ps;
    int ex = CES_EXIT_USAGE, rc, slow_rc = CES_OK;

    if (ces_tool_wants_help(argc, argv)) {
        fputs(predict_usage, stdout);
        ces_tool_builder_help(0);
        fputs(predict_tail, stdout);
        return CES_EXIT_OK;
    }
    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return ces_tool_fail("out of memory");
    memset(&a, 0, sizeof(a));
    a.ctx = ctx;
    a.in = ces_tool_input_read(argc, argv, ces_check_valued);
    ex = ces_tool_load_beside("check --predict", ctx, argc, argv, ces_check_valued,
                              ces_check_flags, predict_opt, &a, &a.model, &g);
    if (ex == CES_EXIT_OK && a.model.path != NULL)
        ex = ces_tool_machine_read(ctx, &a.model, &a.m);
    ces_tool_pending_end(&a.model);
    if (ex != CES_EXIT_OK)
        goto out;
    ex = CES_EXIT_USAGE;
    m = a.m;
    slow = m;
    ces_model_slow_mode(&slow);
    /* a model file named as such: its values may be what the machine lacks */
    rc = ces_model_require_file(ctx, &m, g, "predict", a.model_path);
    if (rc == CES_OK)
        rc = ces_model_predict(ctx, &m, g, &p);
    if (rc == CES_OK)
        rc = slow_rc = ces_model_predict(ctx, &slow, g, &ps);
    if (rc != CES_OK) {
        const char *why = ces_ctx_last_error(ctx);
        char fast[160] = "", *msg;

        /* named as the command was typed, as its other errors are (the
         * library names its function: "predict: ...") */
        if (strncmp(why, "predict: ", 9) == 0)
            why += 9;
        /* only the slow mode's raised hops stop it: say so */
        if (slow_rc != CES_OK)
            snprintf(fast, sizeof(fast),
                     "%.2f us with the model's timing, but in the slow mode of blocked waits "
                     "(slow_wake_us = %.2f us)",
                     p.total_us, m.slow_wake_us);
        /* the op's line and column are the file's (standard input's):
         * FILE:LINE:COL, <stdin>:LINE:COL, as the parser names them */
        msg = ces_tool_op_message("check --predict", place, why, fast[0] != '\0' ? fast : NULL);
        if (msg != NULL)
            ces_tool_say("%s", msg);
        else
            ces_tool_say("check --predict: %s%s%s%s%s", in != NULL ? in : "",
                         in != NULL ? ": " : "", fast, fast[0] != '\0' ? ": " : "", why);
        free(msg);
        ex = rc == CES_ERR_SEMANTIC ? CES_EXIT_DEFECT : CES_EXIT_USAGE;
        goto out;
    }
    printf("model: %s%s", m.kind, a.model_path != NULL ? " + " : "");
    ces_tool_put_name(stdout, a.model_path != NULL ? a.model_path : "");
    putchar('\n');
    printf("ranks: %" PRIu32 ", streams per rank: %" PRIu32 ", iterations: %" PRIu64
           ", op instances: %" PRIu64 "\n",
           ces_graph_ranks(g), ces_graph_streams(g), p.iterations, p.ops);
    /* `connections any` claims safety under every queue assignment; the
     * model times one of them, its streams each on a queue of their own */
    if (ces_graph_connections(g) == CES_CONNECTIONS_ANY && ces_graph_streams(g) > 1)
        printf("queues: one per stream (connections any: the time where CUDA puts streams "
               "on a shared queue is not predicted)\n");
    else if (ces_graph_connections(g) > 0 && ces_graph_connections(g) < ces_graph_streams(g))
        printf("queues: %" PRIu32 " shared by the %" PRIu32 " streams of each rank (stream s "
               "on queue s mod %" PRIu32 ")\n",
               ces_graph_connections(g), ces_graph_streams(g), ces_graph_connections(g));
    printf("predicted: %.2f us total, %.2f us per iteration\n", p.total_us, p.iter_us);
    /* the slow mode delays the waits and awaits that blocked, to
     * slow_wake_us (never below the model's own hops), and holds a polled
     * wait right behind a copy slow_wake_us: say the ones used */
    {
        double hop = m.signal_hop_us > m.slow_wake_us ? m.signal_hop_us : m.slow_wake_us;
        char held[96] = "";

        if (m.slow_wake_us > 0.0)
            snprintf(held, sizeof(held),
                     ", a polled wait right behind a copy %.2f us after it is reached",
                     m.slow_wake_us);
        if (hop == slow.event_us)
            printf("slow mode: %.2f us total, %.2f us per iteration (a blocked polled wait or "
                   "event await resumes %.2f us after its write or record%s)\n",
                   ps.total_us, ps.iter_us, hop, held);
        else
            printf("slow mode: %.2f us total, %.2f us per iteration (a blocked polled wait "
                   "resumes %.2f us after its write, an event await %.2f us after its "
                   "record%s)\n",
                   ps.total_us, ps.iter_us, hop, slow.event_us, held);
    }
    print_bytes("copied: ", p.peer_bytes);
    print_bytes(" between GPUs, ", p.local_bytes);
    printf(" inside GPUs\n");
    {
        double part[5] = {p.path_copy_us, p.path_signal_us, p.path_memop_us, p.path_event_us,
                          p.path_host_us};

        round_parts(p.total_us, part, 5);
        printf("critical path (ends on r%" PRIu32 ".s%" PRIu32 "): copy %.2f us, signal %.2f "
               "us, memop %.2f us, event %.2f us, host %.2f us\n",
               p.last_rank, p.last_stream, part[0], part[1], part[2], part[3], part[4]);
    }
    ex = CES_EXIT_OK;
out:
    ces_graph_destroy(g);
    ces_ctx_destroy(ctx);
    return ex;
}
