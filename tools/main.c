/*
 * tools/main.c - the cesync command: dispatches to the subcommands.
 */
#include "internal.h" /* ces_file_unlink_pending */
#include "tool.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"print", ces_cmd_print, "print a schedule as canonical .ces text (or expanded)"},
    {"validate", ces_cmd_validate, "parse, expand and validate a schedule"},
    {"dot", ces_cmd_dot, "draw a schedule with Graphviz (.dot, .svg, .png)"},
    {"check", ces_cmd_check, "model-check every interleaving: deadlock, hang, race, mismatch"},
    {"gen", ces_cmd_gen, "generate random small schedules (for testing the checker)"},
    {"promela", ces_cmd_promela, "emit an equivalent Promela model for SPIN"},
    {"run", ces_cmd_run, "run a schedule on GPUs and check every byte"},
    {"bench", ces_cmd_bench, "benchmark collectives against NCCL on GPUs"},
    {"devices", ces_cmd_devices, "list the GPUs, which are peers, how many ranks can run"},
};

static void usage(FILE *f)
{
    fputs("usage: cesync COMMAND [ARGS...]\n"
          "       cesync COMMAND --help   (or -h, or cesync help COMMAND)\n"
          "       cesync --version\n"
          "\n"
          "cesync checks copy-engine transfer-and-sync schedules between the GPUs of one node\n"
          "for deadlocks, hangs, races and wrong data over every interleaving, runs them on\n"
          "GPUs, and draws them.\n"
          "\n"
          "Commands:\n",
          f);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fputs("\n"
          "Exit codes: 0 fine, 1 a defect was found, 2 bad usage or bad input, 3 incomplete.\n"
          "Example: cesync check alltoall --ranks 4 --sync nccl --iterations 2 --dot a2a.svg\n"
          "Full reference: docs/CLI.md.\n",
          f);
}

/* Command cmd's exit code (cmd NULL: cesync's own --help or --version),
 * or CES_EXIT_USAGE when what it wrote to standard output did not all
 * arrive (a full disk, a closed pipe): a result that was cut short must
 * not look like a success.  Said as the command's other errors are,
 * "cesync: dot: cannot write to standard output: ..." (its own name was
 * left out, which dot -o - under --max-seconds said). */
static int finish(const char *cmd, int rc)
{
    int err = fflush(stdout) != 0 || ferror(stdout);

    if (err && rc != CES_EXIT_USAGE) { /* (a command that failed has said why) */
        const char *why = errno != 0 ? strerror(errno) : "write error";

        if (cmd != NULL)
            ces_tool_say("%s: cannot write to standard output: %s", cmd, why);
        else
            ces_tool_say("cannot write to standard output: %s", why);
        rc = CES_EXIT_USAGE;
    }
    return ces_tool_streams_end(cmd, rc);
}

/* A signal that ends the command (Ctrl-C, Ctrl-backslash, kill, a closed
 * terminal, a file or CPU time limit) leaves no temporary file of an output
 * it was writing (k.svg.2eAYA5 stayed beside k.svg) and no dot drawing it;
 * the previous output stays, and the signal then ends the process as it
 * would have (with a core dump where it dumps one). */
static void end_on_signal(int sig)
{
    ces_file_unlink_pending();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_ending_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ, SIGXCPU};

    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction sa, old;

        /* one that is ignored (nohup) stays so */
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = end_on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

int main(int argc, char **argv)
{
    ces_tool_streams_wait();
    catch_ending_signals();
    if (argc < 2) {
        usage(stderr);
        return CES_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        /* `cesync help COMMAND` (or --help, -h) is `cesync COMMAND --help` */
        for (size_t i = 0; argc == 3 && i < sizeof(commands) / sizeof(commands[0]); i++) {
            char *help[] = {"--help", NULL};

            if (strcmp(argv[2], commands[i].name) == 0)
                return finish(commands[i].name, commands[i].fn(1, help));
        }
        /* `cesync help check --predict`, a command of docs/CLI.md's own */
        if (argc == 4 && strcmp(argv[2], "check") == 0 && strcmp(argv[3], "--predict") == 0) {
            char *help[] = {"--help", NULL};

            return finish("check", ces_cmd_predict(1, help));
        }
        /* `cesync help help`, `cesync help --help`: this usage */
        if (argc == 3 && (strcmp(argv[2], "help") == 0 || strcmp(argv[2], "--help") == 0 ||
                          strcmp(argv[2], "-h") == 0)) {
            usage(stdout);
            return finish(NULL, CES_EXIT_OK);
        }
        if (argc > 2) {
            if (argc == 3)
                ces_tool_say("%s: unknown command '%s'", argv[1], argv[2]);
            else
                ces_tool_say("%s takes one command (cesync help check)", argv[1]);
            fputc('\n', stderr);
            usage(stderr);
            return CES_EXIT_USAGE;
        }
        usage(stdout);
        return finish(NULL, CES_EXIT_OK);
    }
    if (strcmp(argv[1], "--version") == 0) {
        if (argc > 2)
            return ces_tool_fail("--version takes no arguments, not '%s'", argv[2]);
        printf("cesync %d.%d (.ces format %d)\n", CES_VERSION_MAJOR, CES_VERSION_MINOR,
               CES_FORMAT_VERSION);
        return finish(NULL, CES_EXIT_OK);
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        /* `check --predict` prints the cost model's prediction instead of
         * exploring states: a different job with its own options. */
        if (commands[i].fn == ces_cmd_check) {
            int n = 2, predict = 0;

            /* every --predict out, as a repeated flag is one (README) */
            for (int k = 2; k < argc; k++) {
                if (strcmp(argv[k], "--predict") == 0) {
                    predict = 1;
                    continue;
                }
                argv[n++] = argv[k];
                if (strcmp(argv[k], "--") == 0 && k + 1 < argc)
                    argv[n++] = argv[++k]; /* the schedule, whatever its name */
            }
            if (predict) {
                argv[n] = NULL;
                return finish("check", ces_cmd_predict(n - 2, argv + 2));
            }
        }
        return finish(commands[i].name, commands[i].fn(argc - 2, argv + 2));
    }
    ces_tool_say("unknown command '%s'", argv[1]);
    fputc('\n', stderr);
    usage(stderr);
    return CES_EXIT_USAGE;
}
