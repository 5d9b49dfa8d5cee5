/*
 * tests/tools/test_main.c - the cesync command as a user meets it: help on
 * every subcommand, exit codes, the built-in default, errors with positions.
 */
#define _XOPEN_SOURCE 700 /* posix_openpt, grantpt, unlockpt, ptsname */

#include "ces_test.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__) && !defined(F_GETPIPE_SZ)
#define F_GETPIPE_SZ 1032 /* (Linux 2.6.35; <fcntl.h> names it for _GNU_SOURCE alone) */
#endif

static void test_help_everywhere(void **state)
{
    static const char *const cmds[] = {"print", "validate", "dot", "check", "gen",
                                       "promela", "run", "bench", "devices"};
    char *out;

    (void)state;
    assert_int_equal(ces_test_tool(NULL, "--help", &out), 0);
    assert_non_null(strstr(out, "usage: cesync COMMAND"));
    assert_non_null(strstr(out, "cesync --version\n")); /* an option the usage once left out */
    free(out);
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char args[64];

        char *same;

        snprintf(args, sizeof(args), "%s --help", cmds[i]);
        assert_int_equal(ces_test_tool(NULL, args, &out), 0);
        if (strstr(out, "usage: cesync") == NULL)
            fail_msg("'cesync %s' lacks a usage line:\n%s", args, out);
        /* `cesync help COMMAND` says the same, and so do --help and -h
         * before it (they printed the usage and dropped the command) */
        for (size_t k = 0; k < 3; k++) {
            const char *help[] = {"help", "--help", "-h"};

            snprintf(args, sizeof(args), "%s %s", help[k], cmds[i]);
            assert_int_equal(ces_test_tool(NULL, args, &same), 0);
            assert_string_equal(same, out);
            free(same);
        }
        free(out);
    }
    /* check --predict, a command of docs/CLI.md's list, likewise (`help
     * check --predict` was refused: "help takes one command") */
    assert_int_equal(ces_test_tool(NULL, "check --predict --help", &out), 0);
    for (size_t k = 0; k < 3; k++) {
        const char *help[] = {"help", "--help", "-h"};
        char args[64], *same;

        snprintf(args, sizeof(args), "%s check --predict", help[k]);
        assert_int_equal(ces_test_tool(NULL, args, &same), 0);
        assert_string_equal(same, out);
        free(same);
    }
    free(out);
    assert_int_equal(ces_test_tool(NULL, "help nope", &out), 2);
    assert_true(strncmp(out, "cesync: help: unknown command 'nope'\n\nusage: cesync COMMAND",
                        59) == 0);
    free(out);
    /* help on help: the usage, as `cesync --help` prints it */
    for (size_t i = 0; i < 3; i++) {
        const char *self[] = {"help help", "help --help", "help -h"};
        char *top;

        assert_int_equal(ces_test_tool(NULL, "--help", &top), 0);
        assert_int_equal(ces_test_tool(NULL, self[i], &out), 0);
        assert_string_equal(out, top);
        free(top);
        free(out);
    }
    assert_int_equal(ces_test_tool(NULL, "help check run", &out), 2);
    assert_true(strncmp(out, "cesync: help takes one command (cesync help check)\n\n", 52) ==
                0);
    free(out);
    assert_int_equal(ces_test_tool(NULL, "--help nope", &out), 2);
    assert_true(strncmp(out, "cesync: --help: unknown command 'nope'\n\nusage: cesync COMMAND",
                        61) == 0);
    free(out);
    /* --version printed the version and dropped what followed it */
    ces_test_tool_says("--version check", 2,
                       "cesync: --version takes no arguments, not 'check'\n");
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The words of `text` that start with '-', sorted, joined by spaces into
 * out. */
static void sorted_options(char *text, char *out, size_t size)
{
    char *words[128], *save = NULL;
    size_t n = 0, len = 0;

    for (char *w = strtok_r(text, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save))
        if (w[0] == '-' && n < sizeof(words) / sizeof(words[0]))
            words[n++] = w;
    qsort(words, n, sizeof(words[0]), cmp_names);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(out + len, size - len, "%s%s", i > 0 ? " " : "", words[i]);
}

/* Each command's --help has an entry (a line "  -OPT ...") for every
 * option it takes and for no other, each once: dot's -o was only in its
 * usage line and prose, bench's --compute-bytes inside --with-compute's
 * entry, and run's --graph had an entry beside the builder options' own.
 * Every option an entry names is taken: all of a command's on one line,
 * each with a value it takes, then --zzz, which is the first argument
 * refused (each is judged in its place, left to right; how they combine
 * only after the line), but those that would end the command first or that
 * exclude another in its place (`extra`, not run).  And no command takes
 * an option that its --help does not list: each that another command's
 * --help lists is refused alone by those that do not list it, as unknown
 * (check and check --predict: one of the other's by name), so
 * that an option added to a parser and to one --help but not to another
 * command's that takes it too is caught: about 700 runs of the tool, in
 * plain builds only (under ASan, at a load of 12 on two cores, they took
 * 149 s, and tools_test_main went past its timeout). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MAIN_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MAIN_SANITIZED 1
#endif
#endif
static void test_help_lists_every_option(void **state)
{
#define BUILDER "--ranks 2 --bytes 1K --iterations 1 --sync mono --graph --root 0 --pairs 0:1 " \
                "--chunks 1 --slots 1 --variant plain --in-place --directed --wake 0 "
    static const struct {
        const char *cmd, *line, *extra;
    } cmds[] = {
        {"print", BUILDER "-o x.ces --expand", "--explain"},
        {"validate", BUILDER "--kind h200 --model m", ""},
        {"dot", BUILDER "-o x.dot --max-seconds 1 --max-memory 1M", ""},
        {"check", BUILDER "--max-states 1 --max-seconds 1 --max-depth 1 --max-memory 1M "
                  "--no-reduction --first --random 1 --seed 1 --replay 0 --fault drop:r0.s0#0 "
                  "--abort --queues 0 --queue-sweep --fault-sweep --dot x.dot --json --quiet "
                  "--progress 1",
         "--predict"},
        {"check --predict", BUILDER "--model m --kind h200", ""},
        {"gen", "--seed 1 --count 1 --ranks 2 --streams 1 --steps 1 --mutate 0 -o d --progress 1 "
                "--shapes handoff",
         ""},
        {"promela", BUILDER "-o x.pml --no-races --no-data --data-at-end --queues 0 "
                    "--fault delay:r0.s0#0", ""},
        {"run", BUILDER "--single-process -- barrier", "--help"},
        {"bench", "--ranks 2 --min-bytes 1K --max-bytes 1K --factor 2 --iterations 1 --warmup 0 "
                  "--graph --variant auto --root 0 --wake 0 --chunks 1 --slots 1 --one-way "
                  "--in-place --no-nccl --with-compute --compute-bytes 1M --csv c.csv --plot "
                  "p.svg --model m --calibrate --model-out o.model --dry-run -- alltoall", ""},
        {"devices", "--ranks 1", "--help"},
    };
    enum { NCMDS = sizeof(cmds) / sizeof(cmds[0]) };
    static char listed[NCMDS][2052];
    char args[1024], text[2048], want[2048], got[2048], all[NCMDS * 2048], *out = NULL;
    size_t alen = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        size_t len = 0;
        char *save = NULL;

        snprintf(args, sizeof(args), "%s --help", cmds[i].cmd);
        assert_int_equal(ces_test_tool(NULL, args, &out), 0);
        /* an entry's head: the option and its value's name, up to two blanks */
        for (char *l = strtok_r(out, "\n", &save); l != NULL; l = strtok_r(NULL, "\n", &save)) {
            char *end;

            if (strncmp(l, "  -", 3) != 0)
                continue;
            end = strstr(l + 2, "  ");
            len += (size_t)snprintf(text + len, sizeof(text) - len, "%.*s ",
                                    (int)(end != NULL ? (size_t)(end - (l + 2)) : strlen(l + 2)),
                                    l + 2);
        }
        free(out);
        sorted_options(text, got, sizeof(got));
        snprintf(text, sizeof(text), "%s %s", cmds[i].line, cmds[i].extra);
        sorted_options(text, want, sizeof(want));
        if (strcmp(got, want) != 0)
            fail_msg("'cesync %s --help' lists\n%s\nnot\n%s", cmds[i].cmd, got, want);
        snprintf(listed[i], sizeof(listed[i]), " %s ", got);
        alen += (size_t)snprintf(all + alen, sizeof(all) - alen, "%s ", got);
        snprintf(args, sizeof(args), "%s %s --zzz", cmds[i].cmd, cmds[i].line);
        snprintf(want, sizeof(want), "cesync: %s: unknown option '--zzz' (see cesync %s --help)\n",
                 cmds[i].cmd, cmds[i].cmd);
        if (ces_test_tool(NULL, args, &out) != 2 || strcmp(out, want) != 0)
            fail_msg("'cesync %s' said:\n%s", args, out);
        free(out);
    }
#if defined(MAIN_SANITIZED)
    return; /* the options no --help lists: in plain builds only */
#endif
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char words[sizeof(all)], *save = NULL, opt[64];

        memcpy(words, all, alen + 1);
        for (char *w = strtok_r(words, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save)) {
            char other[256];

            snprintf(opt, sizeof(opt), " %s ", w);
            /* (every command takes --help, which some list; check --predict
             * takes --predict again, as every flag) */
            if (strstr(listed[i], opt) != NULL || strcmp(w, "--") == 0 ||
                strcmp(w, "--help") == 0 ||
                (strcmp(cmds[i].cmd, "check --predict") == 0 && strcmp(w, "--predict") == 0))
                continue;
            snprintf(args, sizeof(args), "%s %s", cmds[i].cmd, w);
            snprintf(want, sizeof(want), "cesync: %s: unknown option '%s' (see cesync %s --help)\n",
                     cmds[i].cmd, w, cmds[i].cmd);
            /* check's and --predict's options refused by the other by name */
            if (strcmp(cmds[i].cmd, "check") == 0)
                snprintf(other, sizeof(other), "cesync: check: %s applies to --predict\n", w);
            else
                snprintf(other, sizeof(other), "cesync: check --predict: %s does not combine "
                         "with --predict (which takes builder options, --model and --kind)\n", w);
            if (ces_test_tool(NULL, args, &out) != 2 ||
                (strcmp(out, want) != 0 && strcmp(out, other) != 0))
                fail_msg("'cesync %s', an option its --help does not list, said:\n%s", args,
                         out);
            free(out);
        }
    }
#undef BUILDER
}

/* Whether w is a word of text, not an option's value: lower-case letters,
 * perhaps a mark after them ("chance", "judge", "does,"), where a value is
 * upper case or holds other marks (PCT, a:b,c:d, OUT.pml, V[,V...]). */
static bool plain_word(const char *w)
{
    size_t n = strspn(w, "abcdefghijklmnopqrstuvwxyz");

    return n > 0 && (w[n] == '\0' || (strchr(",.:;", w[n]) != NULL && w[n + 1] == '\0'));
}

/* Each --help fits a screen and points to the reference, which documents
 * every option it lists: at most 70 lines of at most 100 columns (check's
 * ran to 161 lines, bench's 151, one option's entry to 20 lines, before
 * the sixty-seventh session moved the rules to docs/CLI.md), the last line
 * "Full reference: docs/CLI.md, section \"CMD\".", that section a heading
 * "## CMD" of docs/CLI.md, and each option an entry names ("  -OPT ...")
 * standing there as `-OPT (or in its shared rules, for the builder
 * options); an entry's text is two blanks or more after its head, or on
 * the lines below it. */
static void test_help_fits_a_screen(void **state)
{
    static const char *const cmds[] = {"print", "validate", "dot", "check", "check --predict",
                                       "gen", "promela", "run", "bench", "devices"};
    char *doc = ces_test_read_file(CES_FIXTURES "/../../docs/CLI.md", NULL), *out;
    const char *shared = strstr(doc, "\n## Rules every command shares\n"), *shared_end;

    (void)state;
    assert_non_null(shared);
    shared_end = strstr(shared + 1, "\n## ");
    /* the overview too: a screen, pointing to the reference */
    assert_int_equal(ces_test_tool(NULL, "--help", &out), 0);
    assert_true(ces_test_count(out, "\n") <= 70);
    assert_non_null(strstr(out, "\nFull reference: docs/CLI.md.\n"));
    free(out);
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char args[64], want[128], *save = NULL, *section, *end;
        const char *last = NULL;
        size_t lines = 0;

        snprintf(args, sizeof(args), "%s --help", cmds[i]);
        assert_int_equal(ces_test_tool(NULL, args, &out), 0);
        snprintf(want, sizeof(want), "\n## %s\n", cmds[i]);
        section = strstr(doc, want);
        if (section == NULL)
            fail_msg("docs/CLI.md has no section '## %s'", cmds[i]);
        end = strstr(section + 1, "\n## ");
        lines = ces_test_count(out, "\n"); /* (strtok_r skips the blank ones) */
        for (char *l = strtok_r(out, "\n", &save); l != NULL; l = strtok_r(NULL, "\n", &save)) {
            last = l;
            if (strlen(l) > 100)
                fail_msg("'cesync %s' has a line of %zu columns:\n%s", args, strlen(l), l);
            if (strncmp(l, "  -", 3) != 0)
                continue;
            /* the entry's head, up to two blanks: its options and their values */
            {
                char head[128], *hsave = NULL;
                const char *gap = strstr(l + 2, "  ");

                /* its text two blanks or more after it, in its column, or
                 * on the lines below: none a blank after the head (gen's
                 * "--mutate PCT chance that ...", promela's "--data-at-end
                 * judge ...") */
                if (gap == NULL) {
                    char words[128], *wsave = NULL;

                    snprintf(words, sizeof(words), "%s", l + 2);
                    strtok_r(words, " ", &wsave);
                    for (char *w = strtok_r(NULL, " ", &wsave); w != NULL;
                         w = strtok_r(NULL, " ", &wsave))
                        if (plain_word(w))
                            fail_msg("'cesync %s': an entry's text one blank after its "
                                     "head:\n%s", args, l);
                }

                snprintf(head, sizeof(head), "%.*s",
                         (int)(gap != NULL ? (size_t)(gap - (l + 2)) : strlen(l + 2)), l + 2);
                for (char *w = strtok_r(head, " ", &hsave); w != NULL;
                     w = strtok_r(NULL, " ", &hsave)) {
                    char word[64];
                    const char *at, *common;

                    if (w[0] != '-' || strcmp(w, "--help") == 0) /* every command's */
                        continue;
                    snprintf(word, sizeof(word), "`%s", w);
                    at = strstr(section, word);
                    common = strstr(shared, word);
                    if ((at == NULL || (end != NULL && at > end)) &&
                        (common == NULL || (shared_end != NULL && common > shared_end)))
                        fail_msg("docs/CLI.md's '## %s' does not document %s", cmds[i], w);
                }
            }
        }
        if (lines > 70)
            fail_msg("'cesync %s' prints %zu lines, more than a screen of 70", args, lines);
        snprintf(want, sizeof(want), "Full reference: docs/CLI.md, section \"%s\".", cmds[i]);
        if (last == NULL || strcmp(last, want) != 0)
            fail_msg("'cesync %s' ends '%s', not '%s'", args, last != NULL ? last : "", want);
        free(out);
    }
    free(doc);
}

/* Whether `usage` names option w as a word: after '[', ' ' or '|', before
 * ' ', ']' or a newline. */
static bool usage_names(const char *usage, const char *w)
{
    size_t n = strlen(w);

    for (const char *at = strstr(usage, w); at != NULL; at = strstr(at + 1, w))
        if (at > usage && strchr("[ |", at[-1]) != NULL && strchr(" ]\n", at[n]) != NULL)
            return true;
    return false;
}

/* The usage of a command that lists its options there, not "[options]",
 * lists every option that an entry of its --help names, but the builder
 * options (its "[builder options]"), --help and "--" (dot's left out
 * --max-seconds, which its entries and README.md's table gave). */
static void test_usage_names_every_option(void **state)
{
    static const char *const cmds[] = {"print", "validate", "dot", "check --predict", "gen",
                                       "promela", "run", "devices"};
    (void)state;
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char args[64], *out = NULL, *save = NULL, *usage, *blank;
        bool builder = false;

        snprintf(args, sizeof(args), "%s --help", cmds[i]);
        assert_int_equal(ces_test_tool(NULL, args, &out), 0);
        blank = strstr(out, "\n\n");
        assert_non_null(blank);
        usage = strndup(out, (size_t)(blank - out) + 1);
        assert_non_null(usage);
        assert_null(strstr(usage, "[options]"));
        for (char *l = strtok_r(blank, "\n", &save); l != NULL; l = strtok_r(NULL, "\n", &save)) {
            const char *gap = strstr(l + 2, "  ");
            char head[128], *hsave = NULL;

            builder |= strncmp(l, "Builder options", 15) == 0;
            if (builder || strncmp(l, "  -", 3) != 0)
                continue;
            snprintf(head, sizeof(head), "%.*s",
                     (int)(gap != NULL ? (size_t)(gap - (l + 2)) : strlen(l + 2)), l + 2);
            for (char *w = strtok_r(head, " ", &hsave); w != NULL; w = strtok_r(NULL, " ", &hsave))
                if (w[0] == '-' && strcmp(w, "--") != 0 && strcmp(w, "--help") != 0 &&
                    !usage_names(usage, w))
                    fail_msg("'cesync %s' lists %s, which its usage leaves out:\n%s", args, w,
                             usage);
        }
        free(usage);
        free(out);
    }
}

/* `example`, a help's example, run by a shell in dir with the cesync under
 * test first on PATH: its exit status, its output (stderr folded in) in
 * *out. */
static int run_example(const char *dir, const char *example, char **out)
{
    char bin[1024], cmd[4096];
    const char *slash = strrchr(CES_TOOL, '/');
    FILE *f;
    int st;

    snprintf(bin, sizeof(bin), "%.*s", (int)(slash - CES_TOOL), CES_TOOL);
    snprintf(cmd, sizeof(cmd), "cd '%s' && PATH='%s':\"$PATH\" && (%s) </dev/null 2>&1", dir, bin,
             example);
    f = popen(cmd, "r");
    assert_non_null(f);
    *out = ces_test_read_stream(f, NULL);
    st = pclose(f);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* Every example of every --help that needs no GPU (bench's with
 * --dry-run, none of run's or devices'), run as a user pastes it, in a
 * directory of its own beside the repository's tests/ (validate's names a
 * fixture): exit 0, or 1 where a check shows a defect.  gen's wrote into
 * -o schedules, a directory that no one had made: 'cannot create
 * schedules/gen-1.ces: No such file or directory', exit 2.  The .svg ones
 * only where Graphviz is installed. */
static void test_help_examples_run(void **state)
{
    static const char *const cmds[] = {"", "print", "validate", "dot", "check",
                                       "check --predict", "gen", "promela", "run", "bench",
                                       "devices"};
    char *dir = ces_test_tmpdir(), path[512], rm[600];
    bool graphviz = system("command -v dot >/dev/null 2>&1") == 0;
    size_t ran = 0;

    (void)state;
    snprintf(path, sizeof(path), "%s/tests", dir);
    assert_int_equal(symlink(CES_FIXTURES "/..", path), 0);
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char args[64], *help = NULL, *save = NULL;
        bool listing = false;

        snprintf(args, sizeof(args), "%s --help", cmds[i]);
        assert_int_equal(ces_test_tool(NULL, args, &help), 0);
        for (char *l = strtok_r(help, "\n", &save); l != NULL; l = strtok_r(NULL, "\n", &save)) {
            const char *ex = strncmp(l, "Example: ", 9) == 0 ? l + 9
                             : listing && strncmp(l, "  ", 2) == 0 ? l + 2
                                                                    : NULL;
            char *out = NULL;
            int rc;

            listing = strcmp(l, "Examples:") == 0 || (listing && ex != NULL);
            if (ex == NULL || strstr(ex, "cesync run ") != NULL ||
                strstr(ex, "cesync devices") != NULL ||
                (strstr(ex, "cesync bench ") != NULL && strstr(ex, "--dry-run") == NULL) ||
                (!graphviz && (strstr(ex, ".svg") != NULL || strstr(ex, ".png") != NULL)))
                continue;
            rc = run_example(dir, ex, &out);
            if (rc != 0 && !(rc == 1 && strncmp(ex, "cesync check ", 13) == 0 &&
                             strstr(out, "verdict: ") != NULL))
                fail_msg("'cesync %s''s example '%s' exited %d:\n%s", args, ex, rc, out);
            free(out);
            ran++;
        }
        free(help);
    }
    /* (all but run's, devices' and bench's first; three draw a .svg) */
    assert_int_equal(ran, graphviz ? 10 : 7);
    snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
    assert_int_equal(system(rm), 0);
}

/* A control byte of a name or value given is said as \xNN (raw, it could
 * move a terminal's cursor, change its colours or its title), in short
 * messages and in those past the 512 bytes formatted on the stack, and a
 * message from the library carries it too; UTF-8 and tabs pass.  A newline
 * is one too: a message is one line (a name's newline began a line that
 * read as a message of its own), and so are Unicode's bidirectional
 * formatting characters (a right-to-left override turned the line) and
 * the bytes of no valid UTF-8 sequence (0x9b alone is CSI on a terminal of
 * 8-bit characters: they passed raw).  A backslash is said as \\: a name
 * holding the text \x1b read exactly as one holding an ESC. */
static void test_control_bytes_escaped(void **state)
{
    char args[800], want[900], *dir, *out = NULL;

    (void)state;
    ces_test_tool_says("check \"$(printf 'no\\033[31mfile.ces')\"", 2,
                       "cesync: no\\x1b[31mfile.ces: cannot open: No such file or directory\n");
    ces_test_tool_says("gen --seed \"$(printf 'a\\177\\001b')\"", 2,
                       "cesync: gen: --seed expects a number in 0..18446744073709551615, not "
                       "'a\\x7f\\x01b'\n");
    assert_int_equal(ces_test_tool(NULL, "\"$(printf 'x\\033]0;title\\007')\"", &out), 2);
    assert_memory_equal(out, "cesync: unknown command 'x\\x1b]0;title\\x07'\n\nusage: ", 52);
    free(out);
    ces_test_tool_says("check \"$(printf 'x\\ncesync: check: fine')\"", 2,
                       "cesync: check: 'x\\x0acesync: check: fine' is neither a file nor a "
                       "built-in collective (alltoall, allgather, gather, scatter, broadcast, "
                       "sendrecv, barrier)\n");
    ces_test_tool_says("check \"$(printf 'caf\\303\\251\\tx.ces')\"", 2,
                       "cesync: caf\303\251\tx.ces: cannot open: No such file or directory\n");
    /* a C1 control in UTF-8 (U+009B, CSI; U+0080, U+009F), not U+00A0 or
     * U+00C2 */
    ces_test_tool_says(
        "check \"$(printf 'a\\302\\2332J\\302\\200\\302\\237\\302\\240\\303\\202.ces')\"", 2,
        "cesync: a\\xc2\\x9b2J\\xc2\\x80\\xc2\\x9f\302\240\303\202.ces: cannot open: "
        "No such file or directory\n");
    /* the bidirectional formatting characters: U+202E (right-to-left
     * override) and U+2066, U+2069, U+200F, U+061C, U+200E, U+202A, not
     * U+202F, U+2065, U+200D or U+2029 */
    ces_test_tool_says("check \"$(printf 'a\\342\\200\\256lmth.ces\\342\\201\\246\\342\\201"
                       "\\251\\342\\200\\217\\330\\234\\342\\200\\216\\342\\200\\252\\342\\200"
                       "\\257\\342\\201\\245\\342\\200\\215\\342\\200\\251')\"", 2,
                       "cesync: a\\xe2\\x80\\xaelmth.ces\\xe2\\x81\\xa6\\xe2\\x81\\xa9\\xe2\\x80"
                       "\\x8f\\xd8\\x9c\\xe2\\x80\\x8e\\xe2\\x80\\xaa\342\200\257\342\201\245"
                       "\342\200\215\342\200\251: cannot open: No such file or directory\n");
    /* bytes of no valid UTF-8 sequence: 0x9b (CSI), 0x80 and 0xff alone, a
     * lead byte cut short (0xc3 before 'x'), an overlong '/' (0xc0 0xaf),
     * a surrogate (U+D800 as 0xed 0xa0 0x80), past U+10FFFF (0xf4 0x90 0x80
     * 0x80); U+1F600 and U+10FFFF pass */
    ces_test_tool_says("check \"$(printf 'a\\2332J\\200\\377\\303x\\300\\257\\355\\240"
                       "\\200\\364\\220\\200\\200\\360\\237\\230\\200\\364\\217\\277"
                       "\\277.ces')\"", 2,
                       "cesync: a\\x9b2J\\x80\\xff\\xc3x\\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90"
                       "\\x80\\x80\360\237\230\200\364\217\277\277.ces: cannot open: No such "
                       "file or directory\n");
    /* a backslash as \\, in a name and in the library's message quoting a
     * .ces token, so that a name's own "\x1b" is not an ESC's */
    ces_test_tool_says("check \"$(printf 'a\\\\x1b\\033b')\"", 2,
                       "cesync: check: 'a\\\\x1b\\x1bb' is neither a file nor a built-in "
                       "collective (alltoall, allgather, gather, scatter, broadcast, sendrecv, "
                       "barrier)\n");
    dir = ces_test_tmpdir();
    snprintf(args, sizeof(args), "%s/bs.ces", dir);
    ces_test_put_file(args, "cesync 1\nranks 2\n\\\n");
    assert_int_equal(ces_test_tool(dir, "check bs.ces", &out), 2);
    assert_string_equal(out, "cesync: bs.ces:3:1: expected a statement (ranks, streams, "
                             "connections, let, buffer, signal, phase or an op line 'rN : op'), "
                             "found '\\\\'\n");
    free(out);
    ces_test_remove_in(dir, "bs.ces\0");
    snprintf(args, sizeof(args), "gen --seed \"$(printf '%0600d\\033')\"", 7);
    snprintf(want, sizeof(want),
             "cesync: gen: --seed expects a number in 0..18446744073709551615, not '%0600d\\x1b'\n",
             7);
    ces_test_tool_says(args, 2, want);
}

/* A file name that a report on standard output echoes is said there as in
 * the messages on stderr: validate's machine line, check --predict's model
 * line, bench's header and its plot (they wrote the ESC raw; and a byte of
 * no valid UTF-8 sequence, and a backslash as it was). */
static void test_control_bytes_escaped_in_reports(void **state)
{
    char *dir = ces_test_tmpdir(), path[512], *out = NULL;
    const char *model = "\"$(printf 'm\\033[31m\\302\\233\\233\\\\x.model')\"";
    char args[256];

    (void)state;
    snprintf(path, sizeof(path), "%s/m\033[31m\302\233\233\\x.model", dir);
    ces_test_put_file(path, "kind = h200\n");
    snprintf(args, sizeof(args), "validate alltoall --model %s", model);
    assert_int_equal(ces_test_tool(dir, args, &out), 0);
    assert_non_null(strstr(out, "\nmachine: h200 + m\\x1b[31m\\xc2\\x9b\\x9b\\\\x.model has "
                                "every op it uses\n"));
    assert_null(strchr(out, '\033'));
    free(out);
    snprintf(args, sizeof(args), "check --predict alltoall --model %s", model);
    assert_int_equal(ces_test_tool(dir, args, &out), 0);
    assert_memory_equal(out, "model: h200 + m\\x1b[31m\\xc2\\x9b\\x9b\\\\x.model\n", 45);
    assert_null(strchr(out, '\033'));
    free(out);
    snprintf(args, sizeof(args), "bench alltoall --dry-run --max-bytes 1K --model %s", model);
    assert_int_equal(ces_test_tool(dir, args, &out), 0);
    assert_non_null(strstr(out, "; model h200 + m\\x1b[31m\\xc2\\x9b\\x9b\\\\x.model\n"));
    assert_null(strchr(out, '\033'));
    free(out);
    /* (Graphviz draws the plot where it is installed; its .dot source
     * stays otherwise, said on stderr) */
    assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --max-bytes 1K --plot "
                                        "\"$(printf 'p\\033[0m.svg')\"", &out), 0);
    assert_null(strchr(out, '\033'));
    if (strstr(out, "cesync: wrote ") != NULL) {
        assert_non_null(strstr(out, "\ncesync: wrote p\\x1b[0m.svg\n"));
        snprintf(path, sizeof(path), "%s/p\033[0m.svg", dir);
    } else {
        snprintf(path, sizeof(path), "%s/p\033[0m.dot", dir);
    }
    free(out);
    assert_int_equal(remove(path), 0);
    snprintf(path, sizeof(path), "%s/m\033[31m\302\233\233\\x.model", dir);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void test_usage_errors(void **state)
{
    char *out;

    (void)state;
    assert_int_equal(ces_test_tool(NULL, "", &out), 2);
    free(out);
    assert_int_equal(ces_test_tool(NULL, "frobnicate", &out), 2);
    assert_non_null(strstr(out, "unknown command 'frobnicate'"));
    free(out);
    ces_test_tool_says("print alltoall --ranks 0", 2,
                       "cesync: print: --ranks expects a number in 1..1024, not '0'\n");
    ces_test_tool_says("print alltoall --bogus", 2,
                       "cesync: print: unknown option '--bogus' (see cesync print --help)\n");
    /* a missing value is named as such, not as an unexpected argument */
    ces_test_tool_says("print barrier -o", 2, "cesync: print: -o expects a file name\n");
    ces_test_tool_says("dot barrier -o", 2, "cesync: dot: -o expects a file name\n");
    ces_test_tool_says("promela barrier -o", 2, "cesync: promela: -o expects a file name\n");
    ces_test_tool_says("gen --seed 1 --ranks 1", 2,
                       "cesync: gen: --ranks expects 0 (at random) or a number in 2..8, not '1'\n");
    /* the library's message already names the subcommand */
    ces_test_tool_says("promela barrier --ranks 2 --iterations 300", 2,
                       "cesync: promela: 300 iterations (at most 250: generations are kept in "
                       "bytes)\n");
    /* a bad or missing --fault names every form, the rank's stop too */
    ces_test_tool_says("check barrier --fault stop", 2,
                       "cesync: check: fault 'stop': expected drop:rR.sS#K, delay:rR.sS#K, "
                       "stop:rR.sS#K or stop:rR#K\n");
    ces_test_tool_says("check barrier --fault", 2,
                       "cesync: check: --fault expects drop:rR.sS#K, delay:rR.sS#K, stop:rR.sS#K "
                       "or stop:rR#K\n");
    /* a number past 2^64 is refused, not taken as 2^64-1 */
    ces_test_tool_says("check barrier --max-states 18446744073709551616", 2,
                       "cesync: check: --max-states expects a number in 0..18446744073709551615, "
                       "not '18446744073709551616'\n");
    /* so is a negative one, named as the others are (it said only "expects
     * a number") */
    ces_test_tool_says("check barrier --max-states -1", 2,
                       "cesync: check: --max-states expects a number in 0..18446744073709551615, not '-1'\n");
    ces_test_tool_says("check barrier --random 2 --seed -5", 2,
                       "cesync: check: --seed expects a number in 0..18446744073709551615, not '-5'\n");
    ces_test_tool_says("check barrier --max-depth", 2,
                       "cesync: check: --max-depth expects a number in 1..18446744073709551615\n");
    /* a missing size is said as the other missing values are (it said
     * "got ''", as if an empty one had been given) */
    ces_test_tool_says("check barrier --max-memory", 2,
                       "cesync: check: --max-memory expects a size in 0..18446744073709551615 (suffixes K M G)\n");
    ces_test_tool_says("check barrier --max-memory 1Q", 2,
                       "cesync: check: --max-memory expects a size in 0..18446744073709551615 (suffixes K M G), not '1Q'\n");
    /* options that changed nothing were taken without a word: the sweep
     * checks every fault without and with the watchdog by itself, and only
     * the exhaustive search reduces */
    ces_test_tool_says("check barrier --fault-sweep --abort", 2,
                       "cesync: check: --fault-sweep checks every fault without and with "
                       "--abort: drop --abort\n");
    ces_test_tool_says("check barrier --random 3 --no-reduction", 2,
                       "cesync: check: --no-reduction is a mode of the exhaustive search: drop "
                       "it with --random/--replay\n");
    ces_test_tool_says("check barrier --no-reduction --replay 0", 2,
                       "cesync: check: --no-reduction is a mode of the exhaustive search: drop "
                       "it with --random/--replay\n");
    /* a rank or stream without ops has no position to name (it said
     * "0 ops (#0..#0)"), and one op or number is no plural */
    ces_test_tool_says("check sendrecv --ranks 3 --pairs 0:1 --fault stop:r2#0", 2,
                       "cesync: check: fault stop:r2#0: r2 has no ops\n");
    ces_test_tool_says("check sendrecv --ranks 3 --pairs 0:1 --fault stop:r2.s1#0", 2,
                       "cesync: check: fault stop:r2.s1#0: r2.s1 has no ops\n");
    ces_test_tool_says("check bad/cross_stream_conn0.ces --queues 0", 2,
                       "cesync: check: --queues: queue map '0': list 1 has 1 number; expected "
                       "one per stream, 2\n");
    /* a second schedule after -- is said as such, not as an unknown option
     * '--', which every command takes */
    ces_test_tool_says("check barrier -- good/barrier.ces", 2,
                       "cesync: check: '--' names the schedule, but 'barrier' is one already "
                       "(one schedule per command; see cesync check --help)\n");
    ces_test_tool_says("print -- -x.ces -- -y.ces", 2,
                       "cesync: print: '--' names the schedule, but '-x.ces' is one already "
                       "(one schedule per command; see cesync print --help)\n");
    ces_test_tool_says("check --predict barrier -- x.ces", 2,
                       "cesync: check --predict: '--' names the schedule, but 'barrier' is one "
                       "already (one schedule per command; see cesync check --predict --help)\n");
}

/* A misspelt option before the schedule is named as such: its value was
 * taken for the schedule ("check: '100' is neither a file nor a built-in
 * collective", "x.svg: cannot open"). */
static void test_unknown_option_before_schedule(void **state)
{
    (void)state;
    ces_test_tool_says("check --max-state 100 barrier", 2,
                       "cesync: check: unknown option '--max-state' (see cesync check --help)\n");
    ces_test_tool_says("check --rank 2 barrier", 2,
                       "cesync: check: unknown option '--rank' (see cesync check --help)\n");
    ces_test_tool_says("check --predict --max-state 100 barrier", 2,
                       "cesync: check --predict: unknown option '--max-state' (see cesync "
                       "check --predict --help)\n");
    ces_test_tool_says("dot --output x.svg barrier", 2,
                       "cesync: dot: unknown option '--output' (see cesync dot --help)\n");
    ces_test_tool_says("print --out x.ces barrier", 2,
                       "cesync: print: unknown option '--out' (see cesync print --help)\n");
    ces_test_tool_says("validate -o x barrier", 2,
                       "cesync: validate: unknown option '-o' (see cesync validate --help)\n");
    ces_test_tool_says("promela --queue 0 barrier", 2,
                       "cesync: promela: unknown option '--queue' (see cesync promela --help)\n");
    /* the options that take no value still stand before the schedule */
    ces_test_tool_says("check --quiet --first barrier --ranks 2", 0, "verdict: OK\n");
    ces_test_tool_says("check --predict --json barrier", 2,
                       "cesync: check --predict: --json does not combine with --predict (which "
                       "takes builder options, --model and --kind)\n");
}

/* Each command says the first wrong argument on its command line, left to
 * right, whatever kind it is: a builder option's value, the command's own
 * option's value, an unknown option, a second schedule; and before it reads
 * the schedule (check --max-states x --bogus said --bogus, as the
 * command's own values were judged after the builder options and the
 * schedule's file; run --bytes 1q --bogus said --bogus, as run judged
 * unknown options first). */
static void test_arguments_in_order(void **state)
{
    static const char bogus[] = "unknown option '--bogus' (see cesync ";
    static const struct {
        const char *cmd, *first, *says; /* says: after "cesync: CMD: " */
    } cases[] = {
        {"check", "--bytes 1q --bogus alltoall",
         "--bytes expects a size in 1..262144G (suffixes K M G), not '1q'"},
        {"check", "--bogus --bytes 1q alltoall", NULL},
        {"check", "--max-states x --bogus alltoall", "--max-states expects a number in 0..18446744073709551615, not 'x'"},
        {"check", "--max-states x --ranks 0", "--max-states expects a number in 0..18446744073709551615, not 'x'"},
        {"check", "--ranks 0 --max-states x", "--ranks expects a number in 1..1024, not '0'"},
        {"check", "--max-states x no-such.ces", "--max-states expects a number in 0..18446744073709551615, not 'x'"},
        {"check", "--fault nope --max-depth 0", "fault 'nope': expected drop:rR.sS#K, "
                                                "delay:rR.sS#K, stop:rR.sS#K or stop:rR#K"},
        {"check", "no-such.ces barrier --max-states x",
         "unexpected argument 'barrier' (one schedule per command; see cesync check --help)"},
        {"check --predict", "--kind --bogus",
         "--kind expects a machine kind, not the option '--bogus'"},
        {"check --predict", "--json --bogus", "--json does not combine with --predict (which "
                                              "takes builder options, --model and --kind)"},
        {"check --predict", "--bogus --json", NULL},
        {"dot", "-o --bogus", "-o expects a file name, not the option '--bogus'"},
        {"dot", "no-such.ces -o", "-o expects a file name"},
        {"print", "--expand --explain --bogus", "--expand and --explain exclude each other "
                                                "(--explain expands too)"},
        {"print", "--bogus --expand --explain", NULL},
        {"validate", "no-such.ces --kind", "--kind expects a machine kind"},
        {"promela", "--fault nope --bogus", "fault 'nope': expected drop:rR.sS#K, "
                                            "delay:rR.sS#K, stop:rR.sS#K or stop:rR#K"},
        {"promela", "--bogus --fault nope", NULL},
        {"promela", "--queues 0 -o --ranks 2", "-o expects a file name, not the option '--ranks'"},
        {"bench", "--ranks 1 --bogus alltoall", "--ranks expects a number in 2..8, not '1'"},
        {"bench", "--bogus --ranks 1 alltoall", NULL},
        {"gen", "--seed x --bogus", "--seed expects a number in 0..18446744073709551615, not 'x'"},
        {"gen", "--bogus --seed x", NULL},
        {"run", "--bytes 1q --bogus alltoall",
         "--bytes expects a size in 1..262144G (suffixes K M G), not '1q'"},
        {"run", "--bogus --bytes 1q alltoall", NULL},
        {"run", "alltoall barrier --bytes 1q",
         "unexpected argument 'barrier' (one schedule per command; see cesync run --help)"},
        {"run", "--sync pull2 --ranks 0 alltoall",
         "--sync expects nccl, mono, credit or pull, not 'pull2'"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char line[256], want[512];

        snprintf(line, sizeof(line), "%s %s", cases[i].cmd, cases[i].first);
        if (cases[i].says != NULL)
            snprintf(want, sizeof(want), "cesync: %s: %s\n", cases[i].cmd, cases[i].says);
        else
            snprintf(want, sizeof(want), "cesync: %s: %s%s --help)\n", cases[i].cmd, bogus,
                     cases[i].cmd);
        ces_test_tool_says(line, 2, want);
    }
}

static void test_print_validate_dot(void **state)
{
    char *out;

    (void)state;
    assert_int_equal(ces_test_tool(NULL, "validate alltoall --ranks 4 --sync nccl --iterations 2", &out), 0);
    /* a count of 1 has a singular noun (it said "1 streams", "1 iterations") */
    assert_string_equal(out, "valid: 4 ranks, 1 stream per rank, 2 buffers, 2 signal arrays, 2 "
                             "iterations, 184 ops\n");
    free(out);
    assert_int_equal(ces_test_tool(NULL, "print alltoall --ranks 2 --sync nccl", &out), 0);
    assert_true(strncmp(out, "cesync 1\nranks 2\n", 17) == 0);
    free(out);
    assert_int_equal(ces_test_tool(NULL, "dot barrier --ranks 2", &out), 0);
    assert_true(strncmp(out, "digraph", 7) == 0);
    free(out);
    assert_int_equal(ces_test_tool(NULL, "dot alltoall -o /nonexistent-dir/x.png", &out), 2);
    free(out);
    /* print exits 2 for a schedule that parses but does not expand and for
     * an output it cannot write, as its help says (it said "2 bad usage or
     * a schedule that does not parse") */
    {
        char *dir = ces_test_tmpdir(), path[256];

        snprintf(path, sizeof(path), "%s/long.ces", dir);
        ces_test_put_file(path, "cesync 1\nranks 1\nsignal f u32 1\nphase eager x2000000\n"
                                "r0 : write f[0] = $i\n");
        assert_int_equal(ces_test_tool(dir, "print long.ces", &out), 2);
        assert_string_equal(out, "cesync: long.ces:4:1: the schedule expands to more than 1048576 "
                                 "blocks: use a graph phase or fewer iterations\n");
        free(out);
        assert_int_equal(ces_test_tool(NULL, "print barrier -o /nonexistent-dir/x.ces", &out), 2);
        free(out);
        assert_int_equal(ces_test_tool(NULL, "print --help", &out), 0);
        assert_non_null(strstr(out, "\nExit: 0 printed, 2 bad usage, a schedule that does not "
                                    "parse or expand, or an output\nthat cannot be written.\n"));
        free(out);
        ces_test_remove_in(dir, "long.ces\0");
    }
    /* a graph phase's ops count once per replay (3 replays of 12) */
    ces_test_tool_says("validate barrier --ranks 2 --graph --iterations 3", 0,
                       "valid: 2 ranks, 1 stream per rank, 0 buffers, 2 signal arrays, "
                       "3 iterations, 36 ops\n");
    /* --expand prints the concrete schedule; --explain also marks what the
     * graph phase froze (its iterations) */
    {
        static const char ops[] = "r0 : write ready[0]@1 = 1\n"
                                  "r0 : wait ready[1] == 1\n"
                                  "r0 : write ready[1] = 0\n"
                                  "r0 : write ready_ack[0]@1 = 1\n"
                                  "r0 : wait ready_ack[1] == 1\n"
                                  "r0 : write ready_ack[1] = 0\n"
                                  "r1 : write ready[1]@0 = 1\n"
                                  "r1 : wait ready[0] == 1\n"
                                  "r1 : write ready[0] = 0\n"
                                  "r1 : write ready_ack[1]@0 = 1\n"
                                  "r1 : wait ready_ack[0] == 1\n"
                                  "r1 : write ready_ack[0] = 0\n";
        static const char head[] = "cesync 1\nranks 2\nstreams 1\nsignal ready u32 2\n"
                                   "signal ready_ack u32 2\n";
        char want[1024];

        snprintf(want, sizeof(want), "%sphase graph x2\n%s", head, ops);
        ces_test_tool_says("print barrier --ranks 2 --graph --iterations 2 --expand", 0, want);
        snprintf(want, sizeof(want), "%sphase graph x2  # iterations 1..2\n%s", head, ops);
        ces_test_tool_says("print barrier --ranks 2 --graph --iterations 2 --explain", 0, want);
    }
    /* promela -o and print -o say what they wrote, as dot -o does (print
     * wrote its file without a word), and the file holds what standard
     * output gets without -o */
    for (int k = 0; k < 2; k++) {
        static const char *const cmd[] = {"promela barrier --ranks 2", "print barrier --ranks 2"};
        static const char *const file[] = {"x.pml", "x.ces"};
        char *dir = ces_test_tmpdir(), path[128], args[128], want[64];

        snprintf(args, sizeof(args), "%s -o %s", cmd[k], file[k]);
        snprintf(want, sizeof(want), "cesync: wrote %s\n", file[k]);
        assert_int_equal(ces_test_tool(dir, args, &out), 0);
        assert_string_equal(out, want);
        free(out);
        snprintf(path, sizeof(path), "%s/%s", dir, file[k]);
        out = ces_test_read_file(path, NULL);
        {
            char *same = NULL;

            assert_int_equal(ces_test_tool(dir, cmd[k], &same), 0);
            assert_string_equal(out, same);
            free(same);
        }
        free(out);
        assert_int_equal(remove(path), 0);
        assert_int_equal(rmdir(dir), 0);
    }
}

/* A file named as a built-in collective is not read, and the command says
 * so (it took the collective in silence, even after --); ./NAME reads it. */
static void test_file_named_as_a_collective(void **state)
{
    char *dir = ces_test_tmpdir(), path[128], *out;

    (void)state;
    snprintf(path, sizeof(path), "%s/barrier", dir);
    ces_test_put_file(path, "cesync 1\nranks 3\nphase eager x1\n");
    assert_int_equal(ces_test_tool(dir, "validate -- barrier --ranks 2", &out), 0);
    assert_string_equal(out, "cesync: validate: 'barrier' is the built-in collective; the file of "
                             "that name is not read (name it ./barrier to read it)\n"
                             "valid: 2 ranks, 1 stream per rank, 0 buffers, 1 signal array, 1 "
                             "iteration, 4 ops\n");
    free(out);
    assert_int_equal(ces_test_tool(dir, "validate ./barrier", &out), 0);
    assert_string_equal(out, "valid: 3 ranks, 1 stream per rank, 0 buffers, 0 signal arrays, 1 "
                             "iteration, 0 ops\n");
    free(out);
    assert_int_equal(remove(path), 0);
    assert_int_equal(ces_test_tool(dir, "validate barrier --ranks 2", &out), 0);
    assert_null(strstr(out, "is the built-in collective"));
    free(out);
    assert_int_equal(rmdir(dir), 0);
}

/* Sizes below 1 KiB are printed in bytes: a bound of 1 byte was "0.0 KiB",
 * and so was a state not yet sized (now left out).  The signal slots are the
 * schedule's (2 arrays of 1 slot on each of 4 ranks) even when the bound
 * refused the model before it counted them (it said 0). */
static void test_small_sizes(void **state)
{
    char *out, *peak;

    (void)state;
    assert_int_equal(ces_test_tool(NULL, "check alltoall --max-memory 1", &out), 3);
    assert_null(strstr(out, "0.0 KiB"));
    assert_null(strstr(out, "each state"));
    assert_non_null(strstr(out, "cesync: check: memory bound 1 B reached before the search: the "
                                "checker's model (4 streams, 8 signal slots) needs more than "));
    peak = strstr(out, "peak memory ");
    assert_non_null(peak);
    peak += strlen("peak memory ");
    assert_true(*peak >= '1' && *peak <= '9');
    while (*peak >= '0' && *peak <= '9')
        peak++;
    assert_memory_equal(peak, " B\n", 3);
    free(out);
}

/* --bytes: the default 1024 is rounded up to a multiple of 8 x ranks
 * (alltoall) or 8 x chunks (sendrecv); a size given is taken as it is and
 * must only divide by the ranks or chunks.  The help said "rounded up to 8 x
 * ranks" and nothing of a size given, which read as if a --bytes 1000 of 3
 * ranks were rounded too: it is refused. */
static void test_bytes_rounding(void **state)
{
    char *out;

    (void)state;
    assert_int_equal(ces_test_tool(NULL, "print alltoall --ranks 3", &out), 0);
    assert_non_null(strstr(out, "\nbuffer send 1032\n")); /* 43 x 24 */
    free(out);
    assert_int_equal(ces_test_tool(NULL, "print alltoall --ranks 4 --bytes 12", &out), 0);
    assert_non_null(strstr(out, "\nlet C = 3\nbuffer send 12\n"));
    free(out);
    ces_test_tool_says("print alltoall --ranks 3 --bytes 1000", 2,
                       "cesync: print: alltoall: --bytes (1000) must be divisible by --ranks "
                       "(3)\n");
    assert_int_equal(ces_test_tool(NULL, "print sendrecv --chunks 3", &out), 0);
    assert_non_null(strstr(out, "\nbuffer send 1032\n"));
    free(out);
    ces_test_tool_says("print sendrecv --chunks 3 --bytes 1000", 2,
                       "cesync: print: sendrecv: --bytes (1000) must be divisible by --chunks "
                       "(3)\n");
    ces_test_cli_doc_says("## Rules every command shares",
                          "The default of 1024 is rounded up to a multiple of 8 × ranks for "
                          "alltoall and of 8 × chunks for sendrecv; a B given must divide by the "
                          "ranks (alltoall) or the chunks (sendrecv).");
}

/* Output that does not all arrive (a full disk) is an error, exit 2, for
 * every command that writes to standard output, however much it wrote,
 * said once (a queue sweep whose failing assignment's report was cut
 * short said it twice). */
static void test_stdout_write_errors(void **state)
{
    static const char *const cmds[] = {
        "print alltoall --ranks 8 --iterations 20 --expand", "dot alltoall --ranks 4",
        "check alltoall --ranks 2", "check --predict alltoall --ranks 2", "validate alltoall",
        "promela alltoall --ranks 2", "gen --seed 3", "--help", "--version",
        "check --queue-sweep " CES_FIXTURES "/bad/cross_stream_conn0.ces",
        "check --fault-sweep barrier --ranks 2"};
    char *dir = ces_test_tmpdir(), err[512];

    (void)state;
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char args[512], *out = NULL;

        snprintf(args, sizeof(args), "%s >/dev/full 2>err.txt; echo rc=$?; cat err.txt", cmds[i]);
        assert_int_equal(ces_test_tool(dir, args, &out), 0);
        if (strncmp(out, "rc=2\ncesync: ", 13) != 0 || strstr(out, "No space left") == NULL ||
            ces_test_count(out, "\n") != 2)
            fail_msg("'cesync %s' to a full disk:\n%s", cmds[i], out);
        free(out);
    }
    /* check's report, cut short, is said before the picture is drawn: the
     * picture's work left another cause in errno ("No such file or
     * directory") */
    {
        char *out = NULL;

        assert_int_equal(ces_test_tool(dir, "check barrier --ranks 2 --dot x.dot >/dev/full "
                                            "2>err.txt; echo rc=$?; cat err.txt",
                                       &out),
                         0);
        assert_string_equal(out, "rc=2\ncesync: check: cannot write to standard output: No "
                                 "space left on device\n");
        free(out);
    }
    /* said as the command's, as every other error of its is: -o - said
     * "cesync: dot: ..." under --max-seconds and "cesync: ..." without it */
    {
        static const char *const named[] = {
            "dot barrier --ranks 2 -o -", "dot barrier --ranks 2 -o - --max-seconds 60",
            "dot barrier --ranks 2", "dot barrier --ranks 2 --max-seconds 60",
            "promela barrier --ranks 2 -o -", "print barrier --ranks 2 -o -",
            "check barrier --ranks 2", "check barrier --ranks 2 --max-seconds 60",
            "check --predict barrier --ranks 2", "gen --seed 3 -o -", "help dot",
            "help check --predict"};

        for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
            char args[512], want[256], *out = NULL;
            const char *cmd = strncmp(named[i], "help ", 5) == 0 ? named[i] + 5 : named[i];

            snprintf(args, sizeof(args), "%s >/dev/full 2>err.txt; echo rc=$?; cat err.txt",
                     named[i]);
            snprintf(want, sizeof(want), "rc=2\ncesync: %.*s: cannot write to standard output: "
                     "No space left on device\n", (int)strcspn(cmd, " "), cmd);
            assert_int_equal(ces_test_tool(dir, args, &out), 0);
            if (strcmp(out, want) != 0)
                fail_msg("'cesync %s' to a full disk said:\n%swhere it should say:\n%s",
                         named[i], out, want);
            free(out);
        }
    }
    snprintf(err, sizeof(err), "%s/err.txt", dir); /* (the tool ran in dir) */
    assert_int_equal(remove(err), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* Whether process pid holds a pipe that this process holds under none of
 * its first 64 numbers (a relay's: its pipe's reading end stays open once
 * the description is back under 1 and 2, which is before a background
 * job's write of what the pipe held stops it). */
static bool holds_new_pipe(pid_t pid)
{
    for (int fd = 0; fd < 64; fd++) {
        char path[64], to[64], mine[64];
        bool own = false;
        ssize_t n;

        snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
        n = readlink(path, to, sizeof(to));
        if (n <= 5 || n >= (ssize_t)sizeof(to) || strncmp(to, "pipe:", 5) != 0)
            continue;
        for (int g = 0; g < 64 && !own; g++) {
            snprintf(path, sizeof(path), "/proc/self/fd/%d", g);
            own = readlink(path, mine, sizeof(mine)) == n && memcmp(mine, to, (size_t)n) == 0;
        }
        if (!own)
            return true;
    }
    return false;
}

/* Runs `cesync ARGS` (shell words) with its standard output and error the
 * writing end of a pipe, or of a socket pair, that this process made
 * O_NONBLOCK and filled, as a parent that shares it may leave it: its
 * exit status, and what came through after the fill in *out (malloc'd).
 * Read once it has exited or 1 s has passed; the description is asserted
 * O_NONBLOCK still then.  preload: a library the command runs with
 * (LD_PRELOAD), or NULL: proc_absent.c.  A relay is asserted to stand in
 * (a pipe of the command's own seen while it waits for the reader, looked
 * for up to 10 s) where the description is a socket or preload is given,
 * and none where neither (the pipe opened again): where the preload took
 * no effect, the pipe was opened again and the relay's tests passed all
 * the same. */
static int on_nonblocking(const char *args, bool sock, const char *preload, char **out)
{
    char cmd[4096], fill[4096], *buf;
    size_t len, filled = 0;
    struct timespec tick = {0, 50000000};
    int c[2], st = 0, done = 0;
    bool relay = sock || preload != NULL, relayed = false;
    pid_t pid;

    assert_int_equal(sock ? socketpair(AF_UNIX, SOCK_STREAM, 0, c) : pipe(c), 0);
    assert_int_equal(fcntl(c[1], F_SETFL, fcntl(c[1], F_GETFL) | O_NONBLOCK), 0);
    memset(fill, 0, sizeof(fill));
    for (size_t k = sizeof(fill); k > 0; k /= 8) {
        ssize_t n;

        while ((n = write(c[1], fill, k)) > 0)
            filled += (size_t)n;
        assert_true(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
    }
    snprintf(cmd, sizeof(cmd), "exec '%s' %s </dev/null", CES_TOOL, args);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (dup2(c[1], 1) < 0 || dup2(c[1], 2) < 0)
            _exit(127);
        close(c[0]);
        close(c[1]);
        if (preload != NULL) {
            const char *asan = getenv("ASAN_OPTIONS");
            char opts[1024];

            snprintf(opts, sizeof(opts), "verify_asan_link_order=0:%s", asan ? asan : "");
            if (setenv("LD_PRELOAD", preload, 1) != 0 || setenv("ASAN_OPTIONS", opts, 1) != 0)
                _exit(127);
        }
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; (i < 20 || (relay && !relayed && i < 200)) &&
                    (done = waitpid(pid, &st, WNOHANG)) == 0;
         i++) {
        relayed = relayed || holds_new_pipe(pid);
        nanosleep(&tick, NULL);
    }
    if (relayed != relay)
        fail_msg("'cesync %s' into a full %s%s: a relay %s", args, sock ? "socket" : "pipe",
                 preload != NULL ? " without /proc" : "",
                 relay ? "was never seen to stand in" : "stood in");
    assert_int_not_equal(fcntl(c[1], F_GETFL) & O_NONBLOCK, 0);
    close(c[1]);
    buf = ces_test_read_fd(c[0], &len);
    close(c[0]);
    if (done == 0)
        assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_true(len >= filled);
    *out = malloc(len - filled + 1);
    assert_non_null(*out);
    memcpy(*out, buf + filled, len - filled);
    (*out)[len - filled] = '\0';
    free(buf);
    return WEXITSTATUS(st);
}

/* Standard output and error a pipe that the parent made O_NONBLOCK and
 * left full (its flags are the description's, shared with the command):
 * promela's 185 KB model on standard output and under -o -, dot's text,
 * check's report, print's line on standard error (-o FILE) and print
 * --expand -o /dev/stdout, and the last into a socket pair so left, each
 * comes whole once the reader reads, exit 0, the description O_NONBLOCK
 * after as before.  Each write past what the pipe took failed:
 * "cesync: cannot write to standard output: Resource temporarily
 * unavailable" (exit 2), "cesync: print: cannot write /dev/stdout: ...",
 * and the line on standard error was lost (exit 0). */
static void test_stdout_nonblocking(void **state)
{
    static const struct {
        const char *args, *whole; /* (whole: the same command's standard output) */
        bool sock;
    } cases[] = {
        {"promela alltoall --ranks 8", "promela alltoall --ranks 8", false},
        {"promela alltoall --ranks 8 -o -", "promela alltoall --ranks 8", false},
        {"dot alltoall --ranks 8", "dot alltoall --ranks 8", false},
        {"check barrier --ranks 2", NULL, false},
        {"print barrier --ranks 2 -o %s/x.txt >/dev/null", NULL, false},
        {"print alltoall --ranks 32 --expand -o /dev/stdout 2>/dev/null",
         "print alltoall --ranks 32 --expand", false},
        {"print alltoall --ranks 32 --expand -o /dev/stdout 2>/dev/null",
         "print alltoall --ranks 32 --expand", true},
    };
    char *dir = ces_test_tmpdir(), args[512], want[512], *whole, *o;
    int rc;

    (void)state;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        snprintf(args, sizeof(args), cases[k].args, dir);
        rc = on_nonblocking(args, cases[k].sock, NULL, &o);
        if (cases[k].whole != NULL) {
            snprintf(want, sizeof(want), "%s 2>/dev/null", cases[k].whole);
            assert_int_equal(ces_test_tool(NULL, want, &whole), 0);
            assert_true(strlen(whole) > 50000);
        } else if (strncmp(args, "check", 5) == 0) {
            whole = strdup(strncmp(o, "verdict: OK\nstatistics: ", 24) == 0 ? o : "(a report)");
        } else {
            snprintf(want, sizeof(want), "cesync: wrote %s/x.txt\n", dir);
            whole = strdup(want);
        }
        assert_non_null(whole);
        if (rc != 0 || strcmp(o, whole) != 0)
            fail_msg("'cesync %s'%s exit %d, %zu bytes, not %zu:\n%.300s", args,
                     cases[k].sock ? " (a socket)" : "", rc, strlen(o), strlen(whole), o);
        free(whole);
        free(o);
    }
    ces_test_remove_in(dir, "x.txt\0");
}

/* Runs each of cmds (on_nonblocking's, "%s" the directory) into a pipe or
 * socket pair made O_NONBLOCK and full: each comes whole once the reader
 * reads, exit 0 (its standard output's text, or cesync's line "wrote"
 * where the command is print -o FILE). */
static void nonblocking_whole(const char *const *cmds, size_t n, bool sock, const char *preload)
{
    char *dir = ces_test_tmpdir(), args[512], want[1024], *whole, *o;
    int rc;

    for (size_t k = 0; k < n; k++) {
        snprintf(args, sizeof(args), cmds[k], dir);
        rc = on_nonblocking(args, sock, preload, &o);
        if (strncmp(args, "print barrier --ranks 2 -o ", 27) == 0) {
            snprintf(want, sizeof(want), "cesync: wrote %s/x.txt\n", dir);
            whole = strdup(want);
        } else if (strncmp(args, "check barrier", 13) == 0) {
            whole = strdup(strncmp(o, "verdict: OK\nstatistics: ", 24) == 0 ? o : "(a report)");
        } else {
            snprintf(want, sizeof(want), "%s 2>/dev/null", args);
            assert_int_equal(ces_test_tool(NULL, want, &whole), 0);
            assert_true(strlen(whole) > 1000);
        }
        assert_non_null(whole);
        if (rc != 0 || strcmp(o, whole) != 0)
            fail_msg("'cesync %s' into a full %s%s: exit %d, %zu bytes, not %zu:\n%.300s", args,
                     sock ? "socket" : "pipe", preload != NULL ? " without /proc" : "", rc,
                     strlen(o), strlen(whole), o);
        free(whole);
        free(o);
    }
    ces_test_remove_in(dir, "x.txt\0");
}

/* A socket pair's end that the parent made O_NONBLOCK and left full as
 * the command's standard output and error, which cannot be opened again
 * (ces_file_reopen opens a pipe or a terminal alone): printed text (promela's model, dot's
 * text with no -o and under -o -, check's report, a long --help, print's
 * line on standard error), also under --max-seconds that its reader comes
 * within, each comes whole once the reader reads, exit 0, the description
 * O_NONBLOCK after, and so do check's progress lines.  Each failed:
 * "cesync: cannot write to standard output: Resource temporarily
 * unavailable" (exit 2), and what was said on standard error was lost. */
static void test_stdout_socket_nonblocking(void **state)
{
    static const char *const cmds[] = {
        "promela alltoall --ranks 8",
        "promela alltoall --ranks 8 -o -",
        "dot alltoall --ranks 8",
        "dot alltoall --ranks 8 -o - --max-seconds 60",
        "check barrier --ranks 2",
        "check barrier --ranks 2 --max-seconds 60",
        "check --help",
        "print barrier --ranks 2 -o %s/x.txt >/dev/null",
    };

    char *o, *end;
    int rc;

    (void)state;
    nonblocking_whole(cmds, sizeof(cmds) / sizeof(cmds[0]), true, NULL);
    /* check's progress on standard error every 0.2 s, its first before the
     * reader reads (at 1 s), stopped by its bound at 1.5 s: the first line
     * said is of 0.2 s (it was of 1.0 s: the four before it were lost) */
    rc = on_nonblocking("check alltoall --ranks 6 --iterations 2 --no-reduction --progress 0.2 "
                        "--max-seconds 1.5", true, NULL, &o);
    end = strchr(o, '\n');
    if (end != NULL)
        *end = '\0';
    while (end != NULL && end > o && strncmp(end, " s, ", 4) != 0)
        end--;
    while (end != NULL && end > o && end[-1] != ' ')
        end--;
    if (rc != 3 || strncmp(o, "check: ", 7) != 0 || end == NULL || strtod(end, NULL) >= 0.9)
        fail_msg("check's progress into a full socket: exit %d, its first line:\n%s", rc, o);
    free(o);
}

/* Without /proc (open(2) of /proc/... failing: proc_absent.c preloaded)
 * nothing can be opened again: standard output and error a pipe made
 * O_NONBLOCK and full, promela's model and print's line on standard error
 * come whole, exit 0, as they do into a socket.  Each failed as there. */
static void test_stdout_nonblocking_no_proc(void **state)
{
#if defined(CES_PROC_ABSENT)
    static const char *const cmds[] = {
        "promela alltoall --ranks 8",
        "print barrier --ranks 2 -o %s/x.txt >/dev/null",
    };

    (void)state;
    nonblocking_whole(cmds, sizeof(cmds) / sizeof(cmds[0]), false, CES_PROC_ABSENT);
#else
    (void)state;
    skip();
#endif
}

/* A socket pair's end made O_NONBLOCK and full, never read, as the
 * standard output of commands under --max-seconds 2, their standard error
 * a file: each stops at the bound, not before and within 20 s, exit 3,
 * saying so.  check's report, which failed at once (exit 2, "cesync:
 * cannot write to standard output: Resource temporarily unavailable") and
 * would wait for ever for a reader, says how much was left; dot's text,
 * written into the socket itself under the bound as before (not through
 * the relay's pipe, which took it and said the bound passed once more),
 * says what dot -o - says. */
static void test_stdout_socket_bound(void **state)
{
    static const char *const cmds[] = {"dot barrier --ranks 2 --max-seconds 2",
                                       "check barrier --ranks 2 --max-seconds 2"};
    char *dir = ces_test_tmpdir(), err[256];

    (void)state;
    snprintf(err, sizeof(err), "%s/err", dir);
    for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
        char cmd[1024], fill[4096], *said, want[512];
        struct timespec t0, t1, tick = {0, 20000000};
        int c[2], st = 0, fd;
        double secs = 0;
        size_t len;
        pid_t pid;

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, c), 0);
        assert_int_equal(fcntl(c[1], F_SETFL, fcntl(c[1], F_GETFL) | O_NONBLOCK), 0);
        memset(fill, 0, sizeof(fill));
        for (size_t n = sizeof(fill); n > 0; n /= 8)
            while (write(c[1], fill, n) > 0)
                ;
        snprintf(cmd, sizeof(cmd), "exec '%s' %s </dev/null 2>'%s'", CES_TOOL, cmds[k], err);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            if (dup2(c[1], 1) < 0)
                _exit(127);
            close(c[0]);
            close(c[1]);
            execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
            _exit(127);
        }
        while (waitpid(pid, &st, WNOHANG) == 0 && secs < 30) {
            nanosleep(&tick, NULL);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        }
        if (secs >= 30) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
        }
        assert_int_not_equal(fcntl(c[1], F_GETFL) & O_NONBLOCK, 0);
        close(c[0]);
        close(c[1]);
        fd = open(err, O_RDONLY);
        assert_true(fd >= 0);
        said = ces_test_read_fd(fd, &len);
        close(fd);
        /* (the bytes left: check's statistics vary) */
        if (strncmp(cmds[k], "dot", 3) == 0)
            snprintf(want, sizeof(want), "cesync: dot: the dot text not written (--max-seconds "
                     "2): the time bound passed while it was written to standard output\n");
        else
            snprintf(want, sizeof(want), "cesync: check: standard output not written whole "
                     "(--max-seconds 2): the time bound passed while it was written, ");
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 3 || secs < 1.9 || secs > 20 ||
            strncmp(said, want, strlen(want)) != 0 || ces_test_count(said, "\n") != 1 ||
            (strncmp(cmds[k], "check", 5) == 0 && (len < 12 ||
             strcmp(said + len - strlen(" bytes left\n"), " bytes left\n") != 0)))
            fail_msg("'cesync %s' into a full socket never read: status %d after %.2f s:\n%s",
                     cmds[k], st, secs, said);
        free(said);
    }
    assert_int_equal(remove(err), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* Runs the shell command cmd with standard output fd and standard error
 * err (-1: fd too), under 1 and 2 alone, both closed after, for at most
 * 30 s (then killed): its wait status, the seconds it took in *secs (to
 * the end of what came through fd's other end `peer`, where read), and
 * that text (peer closed; NULL: not read) in *said (malloc'd). */
static int on_fd(int fd, int err, int peer, const char *cmd, double *secs, char **said)
{
    struct timespec t0, t1, tick = {0, 20000000};
    int st = 0;
    pid_t pid;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* (fd or err held under its own number too went to Graphviz's
         * child that outlived the command: the socket's end came 20 s late) */
        if (dup2(fd, 1) < 0 || dup2(err >= 0 ? err : fd, 2) < 0 ||
            (peer >= 0 && close(peer) != 0) || (fd > 2 && close(fd) != 0) ||
            (err > 2 && close(err) != 0))
            _exit(127);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    *secs = 0;
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (*secs >= 30) {
            kill(pid, SIGKILL);
            assert_int_equal(waitpid(pid, &st, 0), pid);
            break;
        }
        nanosleep(&tick, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        *secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    }
    close(fd);
    if (err >= 0)
        close(err);
    if (peer >= 0) {
        *said = ces_test_read_fd(peer, NULL);
        close(peer);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        *secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    }
    return st;
}

/* An O_NONBLOCK socket pair's end as standard output and error, which a
 * pipe of the command's own stands in for, and standard input closed:
 * 'print -' says it cannot read it, exit 2, as it does into a pipe.  The
 * stand-in's reading end took the lowest free number, 0, and the command
 * read its own output from it, waiting for ever. */
static void test_stdout_relay_stdin_closed(void **state)
{
    char cmd[1024], *said = NULL;
    double secs;
    int c[2], st;

    (void)state;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, c), 0);
    assert_int_equal(fcntl(c[1], F_SETFL, fcntl(c[1], F_GETFL) | O_NONBLOCK), 0);
    snprintf(cmd, sizeof(cmd), "exec '%s' print - <&-", CES_TOOL);
    st = on_fd(c[1], -1, c[0], cmd, &secs, &said);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 2 ||
        strcmp(said, "cesync: <stdin>: read error: Bad file descriptor\n") != 0)
        fail_msg("'cesync print - <&-' into an O_NONBLOCK socket: status %d after %.1f s:\n%s",
                 st, secs, said);
    free(said);
}

/* A regular file and /dev/null opened O_NONBLOCK as standard output and
 * error take every write whole: no pipe stands in for them (a stand-in
 * Graphviz on PATH sees the command's descriptors 1 and 2 name the file
 * itself; they named a pipe of its own, and a thread gave the file what
 * it took), and dot's picture is drawn, exit 0. */
static void test_stdout_relay_not_needed(void **state)
{
    char *dir = ces_test_tmpdir(), real[4096], bin[600], file[4200], cmd[2048], want[8500];
    char seen[700], *got;

    (void)state;
    assert_non_null(realpath(dir, real));
    snprintf(bin, sizeof(bin), "%s/bin", dir);
    ces_test_put_program(bin, "dot", "#!/bin/sh\nreadlink /proc/$PPID/fd/1 /proc/$PPID/fd/2 "
                                     ">\"$0.seen\"\ncat >/dev/null\necho '<svg/>'\n");
    snprintf(seen, sizeof(seen), "%s/dot.seen", bin);
    snprintf(cmd, sizeof(cmd), "PATH='%s':\"$PATH\" exec '%s' dot barrier --ranks 2 -o '%s/x.svg' "
             "</dev/null", bin, CES_TOOL, dir);
    for (int k = 0; k < 2; k++) {
        double secs;
        int fd, st;

        snprintf(file, sizeof(file), "%s/out.txt", real);
        if (k == 1)
            snprintf(file, sizeof(file), "/dev/null");
        fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK, 0644);
        assert_true(fd >= 0);
        st = on_fd(fd, -1, -1, cmd, &secs, NULL);
        got = ces_test_read_file(seen, NULL);
        snprintf(want, sizeof(want), "%s\n%s\n", file, file);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || strcmp(got, want) != 0)
            fail_msg("'cesync dot' into %s left O_NONBLOCK: status %d; Graphviz saw its 1 and 2 "
                     "name:\n%s", file, st, got);
        free(got);
    }
    ces_test_remove_in(dir, "bin/dot\0bin/dot.seen\0bin\0x.svg\0out.txt\0");
}

/* The pipe that stands in for an O_NONBLOCK socket (standard output and
 * error) is not waited for to its end once what the command and the
 * children it waited for wrote there was given: Graphviz's child that
 * outlives it (a wrapper's, here a stand-in's 'sleep 20 &', holding its
 * standard error under --max-memory 0) kept the command 20 s past its
 * picture, and past --max-seconds.  Here it ends within 10 s, exit 0,
 * having said it wrote the picture, and so does the socket (the child
 * holds the pipe, not the socket). */
static void test_stdout_relay_outlived(void **state)
{
    char *dir = ces_test_tmpdir(), bin[600], cmd[2048], want[700], *said = NULL;
    static const char *const bounds[] = {"", " --max-seconds 5"};

    (void)state;
    snprintf(bin, sizeof(bin), "%s/bin", dir);
    ces_test_put_program(bin, "dot", "#!/bin/sh\nsleep 20 &\ncat >/dev/null\necho '<svg/>'\n");
    for (int k = 0; k < 2; k++) {
        double secs;
        int c[2], st;

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, c), 0);
        assert_int_equal(fcntl(c[1], F_SETFL, fcntl(c[1], F_GETFL) | O_NONBLOCK), 0);
        snprintf(cmd, sizeof(cmd), "PATH='%s':\"$PATH\" exec '%s' dot barrier --ranks 2 -o "
                 "'%s/x.svg' --max-memory 0%s </dev/null", bin, CES_TOOL, dir, bounds[k]);
        st = on_fd(c[1], -1, c[0], cmd, &secs, &said);
        snprintf(want, sizeof(want), "cesync: wrote %s/x.svg\n", dir);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || secs > 10 || strcmp(said, want) != 0)
            fail_msg("'cesync dot ... --max-memory 0%s' into an O_NONBLOCK socket, Graphviz's "
                     "child outliving it: status %d after %.1f s:\n%s", bounds[k], st, secs,
                     said);
        free(said);
    }
    ces_test_remove_in(dir, "bin/dot\0bin\0x.svg\0");
}

/* The relay's read of the pipe that stands in for an O_NONBLOCK socket
 * failing (relay_read_fails.c preloaded: EIO): the command ends, exit 2,
 * having said so on standard error, the same socket or a file, whether
 * it wrote little (promela's 1 KB of the 2-rank barrier) or more than the
 * pipe holds (185 KB of the 8-rank alltoall, a write waiting in the full
 * pipe).  The thread ended and the end waited for the pipe to empty for
 * ever (killed after 30 s), nothing said. */
static void test_stdout_relay_read_fails(void **state)
{
#if defined(CES_RELAY_READ_FAILS)
    static const char *const args[] = {"promela barrier --ranks 2", "promela alltoall --ranks 8"};
    static const char want[] = "cesync: cannot write to standard output: the pipe that stood in "
                               "for it could not be read: Input/output error\n";
    char *dir = ces_test_tmpdir(), err[256];

    (void)state;
    snprintf(err, sizeof(err), "%s/err", dir);
    for (int k = 0; k < 4; k++) {
        char cmd[2048], *said = NULL, *in_err = NULL;
        double secs;
        int c[2], st;

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, c), 0);
        assert_int_equal(fcntl(c[1], F_SETFL, fcntl(c[1], F_GETFL) | O_NONBLOCK), 0);
        snprintf(cmd, sizeof(cmd), "LD_PRELOAD='" CES_RELAY_READ_FAILS "' "
                 "ASAN_OPTIONS=\"verify_asan_link_order=0:$ASAN_OPTIONS\" exec '%s' %s "
                 "</dev/null%s%s%s", CES_TOOL, args[k % 2], k < 2 ? "" : " 2>'",
                 k < 2 ? "" : err, k < 2 ? "" : "'");
        st = on_fd(c[1], -1, c[0], cmd, &secs, &said);
        if (k >= 2)
            in_err = ces_test_read_file(err, NULL);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 2 || strcmp(k < 2 ? said : in_err, want) != 0 ||
            (k >= 2 && said[0] != '\0'))
            fail_msg("'cesync %s' into an O_NONBLOCK socket whose stand-in pipe cannot be read, "
                     "standard error %s: status %d after %.1f s:\n%s", args[k % 2],
                     k < 2 ? "the socket" : "a file", st, secs, k < 2 ? said : in_err);
        free(said);
        free(in_err);
    }
    ces_test_remove_in(dir, "err\0");
#else
    (void)state;
    skip();
#endif
}

/* The relay's read failing (relay_fails_making.c preloaded) while
 * `print barrier --ranks 2 -o x.txt` makes x.txt's temporary file, between
 * mkstemp and the file's listing (1 s): the command ends, exit 2, saying
 * so, and leaves no temporary file (x.txt whole where it came first).  The
 * relay's thread removed the files listed then and ended the process, and
 * x.txt.NNNNNN was left beside it. */
static void test_stdout_relay_fails_making(void **state)
{
#if defined(CES_RELAY_FAILS_MAKING)
    static const char want[] = "cesync: cannot write to standard output: the pipe that stood in "
                               "for it could not be read: Input/output error\n";
    char *dir = ces_test_tmpdir(), err[256], out[256], x[300], cmd[2048], ents[512];
    char *said = NULL, *in_err, *whole, *got = NULL;
    double secs;
    int c[2], st;

    (void)state;
    snprintf(err, sizeof(err), "%s/err", dir);
    snprintf(out, sizeof(out), "%s/o", dir);
    snprintf(x, sizeof(x), "%s/x.txt", out);
    assert_int_equal(mkdir(out, 0755), 0);
    assert_int_equal(ces_test_tool(NULL, "print barrier --ranks 2", &whole), 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, c), 0);
    assert_int_equal(fcntl(c[1], F_SETFL, fcntl(c[1], F_GETFL) | O_NONBLOCK), 0);
    snprintf(cmd, sizeof(cmd), "LD_PRELOAD='" CES_RELAY_FAILS_MAKING "' "
             "ASAN_OPTIONS=\"verify_asan_link_order=0:$ASAN_OPTIONS\" exec '%s' print barrier "
             "--ranks 2 -o '%s' </dev/null 2>'%s'", CES_TOOL, x, err);
    st = on_fd(c[1], -1, c[0], cmd, &secs, &said);
    in_err = ces_test_read_file(err, NULL);
    ces_test_dir_entries(out, ents, sizeof(ents));
    if (strcmp(ents, "x.txt;") == 0)
        got = ces_test_read_file(x, NULL);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 2 || strcmp(in_err, want) != 0 ||
        (strcmp(ents, "") != 0 && (got == NULL || strcmp(got, whole) != 0)))
        fail_msg("'cesync print barrier --ranks 2 -o x.txt', the relay failing while x.txt's "
                 "temporary file was made: status %d after %.1f s, left '%s', said:\n%s", st,
                 secs, ents, in_err);
    if (strcmp(ents, "") != 0)
        assert_int_equal(unlink(x), 0);
    assert_int_equal(rmdir(out), 0);
    free(said);
    free(in_err);
    free(whole);
    free(got);
    ces_test_remove_in(dir, "err\0");
#else
    (void)state;
    skip();
#endif
}

/* Standard output and error two O_NONBLOCK sockets, each stood in for by
 * a pipe of its own, standard output's read failing while standard
 * error's relay holds the line `check barrier --ranks 2 --dot x.dot` said
 * there, its pipe never found empty after (relay_fails_queued.c
 * preloaded: each read puts "more" back): exit 2, and standard error's
 * socket gets that line, the "more" its pipe held when the failure's
 * thread stopped the relay (one, or more where that thread came late) and
 * then the failure's line, in that order and nothing after, standard
 * output's nothing.  The failure was said at once and the process ended
 * while the line was queued: it was lost; then the failure's line waited
 * for a pipe found empty, for ever (killed at 30 s). */
static void test_stdout_relay_fails_queued(void **state)
{
#if defined(CES_RELAY_FAILS_QUEUED)
    static const char more[] = "more\n", failed[] = "cesync: cannot write to standard output: "
                                                   "the pipe that stood in for it could not be "
                                                   "read: Input/output error\n";
    char *dir = ces_test_tmpdir(), cmd[2048], want[1024], *said = NULL, *in_err;
    size_t head, len, mores = 0;
    double secs;
    int o[2], e[2], st;
    bool ok;

    (void)state;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, o), 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, e), 0);
    assert_int_equal(fcntl(o[1], F_SETFL, fcntl(o[1], F_GETFL) | O_NONBLOCK), 0);
    assert_int_equal(fcntl(e[1], F_SETFL, fcntl(e[1], F_GETFL) | O_NONBLOCK), 0);
    snprintf(cmd, sizeof(cmd), "LD_PRELOAD='" CES_RELAY_FAILS_QUEUED "' "
             "ASAN_OPTIONS=\"verify_asan_link_order=0:$ASAN_OPTIONS\" exec '%s' check barrier "
             "--ranks 2 --dot '%s/x.dot' </dev/null", CES_TOOL, dir);
    st = on_fd(o[1], e[1], o[0], cmd, &secs, &said);
    in_err = ces_test_read_fd(e[0], NULL);
    close(e[0]);
    /* the line, "more" as often as it was read before the failure's
     * line stopped the relay (once, or more where the failing thread came
     * late), that line, and nothing after */
    snprintf(want, sizeof(want), "cesync: wrote %s/x.dot (the schedule)\n", dir);
    head = strlen(want);
    len = strlen(in_err);
    ok = len >= head + sizeof(failed) - 1 && strncmp(in_err, want, head) == 0 &&
         strcmp(in_err + len - (sizeof(failed) - 1), failed) == 0;
    for (size_t at = head; ok && at < len - (sizeof(failed) - 1); at += sizeof(more) - 1, mores++)
        ok = strncmp(in_err + at, more, sizeof(more) - 1) == 0;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 2 || !ok || mores == 0 || said[0] != '\0')
        fail_msg("'cesync check barrier --ranks 2 --dot x.dot' into two O_NONBLOCK sockets, "
                 "standard output's stand-in pipe failing while standard error's relay holds a "
                 "line: status %d after %.1f s, standard output:\n%s\nstandard error (%zu "
                 "bytes, %zu \"more\" lines):\n%.2000s", st, secs, said, len, mores, in_err);
    free(said);
    free(in_err);
    ces_test_remove_in(dir, "x.dot\0");
#else
    (void)state;
    skip();
#endif
}

/* The relay's read failing once the command ended, its exit status
 * decided (relay_fails_ended.c preloaded: read(2) of a close-on-exec pipe
 * fails once the O_NONBLOCK socket, its standard output and error, is back
 * under number 1, and the exit waits for that): `promela barrier --ranks
 * 2`, whose pipe then holds nothing and has no writer left (the read that
 * would have said its end failed), exit 0, its model whole and nothing
 * more said; `dot barrier --ranks 2 -o x.svg --max-memory 0` whose stand-in
 * Graphviz's child writes "late" on standard error once the exit waits
 * (the preload makes the file CES_ENDED_MARK names, one a case, each
 * removed after; the pipe holds those 5 bytes), exit 0, its line and then
 * that the 5 bytes are lost.  The failure ended each with exit 2, "cannot
 * write to standard output: the pipe that stood in for it could not be
 * read". */
static void test_stdout_relay_fails_ended(void **state)
{
#if defined(CES_RELAY_FAILS_ENDED)
    char *dir = ces_test_tmpdir(), bin[600], *model;

    (void)state;
    snprintf(bin, sizeof(bin), "%s/bin", dir);
    ces_test_put_program(bin, "dot", "#!/bin/sh\n(i=0; while [ ! -e \"$CES_ENDED_MARK\" ] && "
                                     "[ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done\n"
                                     " echo late >&2) &\ncat >/dev/null\necho '<svg/>'\n");
    assert_int_equal(ces_test_tool(NULL, "promela barrier --ranks 2", &model), 0);
    for (int k = 0; k < 2; k++) {
        char cmd[2048], want[2048], *said = NULL;
        double secs;
        int c[2], st;

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, c), 0);
        assert_int_equal(fcntl(c[1], F_SETFL, fcntl(c[1], F_GETFL) | O_NONBLOCK), 0);
        snprintf(cmd, sizeof(cmd), "PATH='%s':\"$PATH\" exec env LD_PRELOAD='"
                 CES_RELAY_FAILS_ENDED "' CES_ENDED_MARK='%s/ended%d' ASAN_OPTIONS=\""
                 "verify_asan_link_order=0:$ASAN_OPTIONS\" '%s' %s%s%s </dev/null", bin, dir,
                 k, CES_TOOL,
                 k == 0 ? "promela barrier --ranks 2" : "dot barrier --ranks 2 -o '",
                 k == 0 ? "" : dir, k == 0 ? "" : "/x.svg' --max-memory 0");
        st = on_fd(c[1], -1, c[0], cmd, &secs, &said);
        if (k == 0)
            snprintf(want, sizeof(want), "%s", model);
        else
            snprintf(want, sizeof(want), "cesync: wrote %s/x.svg\ncesync: dot: what a program "
                     "it started wrote to standard output after it ended is lost (5 bytes "
                     "held): the pipe that stood in for it could not be read: Input/output "
                     "error\n", dir);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || strcmp(said, want) != 0)
            fail_msg("'%s' into an O_NONBLOCK socket whose stand-in pipe cannot be read once "
                     "it ended: status %d after %.1f s:\n%s", cmd, st, secs, said);
        free(said);
    }
    free(model);
    ces_test_remove_in(dir, "bin/dot\0bin\0x.svg\0ended0\0ended1\0");
#else
    (void)state;
    skip();
#endif
}

/* A reader gone (the socket pair's other end closed) from standard output
 * that a relay stands in for (the socket O_NONBLOCK) ends each command as
 * where the command writes it itself (the socket blocking): with SIGPIPE
 * ignored by the shell (trap '' PIPE), exit 2 and the same line on
 * standard error (a file), with SIGPIPE as it is, the signal.  print and
 * promela -o /dev/stdout said "wrote /dev/stdout" and then "cannot write
 * to standard output: Broken pipe" (the relay's pipe took the text); and
 * a standard error alone so gone took print's "wrote" line into the
 * relay and exit 2 ("cannot write to standard error", said nowhere),
 * where written there itself the line is lost and the exit is 0. */
static void test_stdout_relay_reader_gone(void **state)
{
    static const struct {
        const char *args, *want; /* want: standard error's, SIGPIPE ignored */
        int rc;                  /* the exit, SIGPIPE ignored */
    } cases[] = {
        {"promela alltoall --ranks 8",
         "cesync: promela: cannot write to standard output: Broken pipe\n", 2},
        {"check barrier --ranks 2",
         "cesync: check: cannot write to standard output: Broken pipe\n", 2},
        {"print alltoall --ranks 32 --expand -o /dev/stdout",
         "cesync: print: cannot write /dev/stdout: Broken pipe\n", 2},
        {"promela alltoall --ranks 8 -o /dev/stdout",
         "cesync: promela: cannot write /dev/stdout: Broken pipe\n", 2},
        {"print barrier --ranks 2 -o %s/x.txt", NULL, 0}, /* (standard error the socket) */
    };
    char *dir = ces_test_tmpdir(), err[256];

    (void)state;
    snprintf(err, sizeof(err), "%s/err", dir);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        for (int ign = 0; ign < 2; ign++) {
            int st[2];
            char *said[2];

            for (int nb = 0; nb < 2; nb++) {
                char args[512], cmd[2048];
                double secs;
                int c[2];

                snprintf(args, sizeof(args), cases[i].args, dir);
                assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, c), 0);
                if (nb)
                    assert_int_equal(fcntl(c[1], F_SETFL, fcntl(c[1], F_GETFL) | O_NONBLOCK), 0);
                close(c[0]);
                snprintf(cmd, sizeof(cmd), "%sexec '%s' %s </dev/null %s'%s'",
                         ign ? "trap '' PIPE; " : "", CES_TOOL, args,
                         cases[i].want != NULL ? "2>" : ">", cases[i].want != NULL ? err :
                         "/dev/null");
                st[nb] = on_fd(c[1], -1, -1, cmd, &secs, NULL);
                said[nb] = cases[i].want != NULL ? ces_test_read_file(err, NULL) : strdup("");
                assert_non_null(said[nb]);
            }
            if (st[0] != st[1] || strcmp(said[0], said[1]) != 0 ||
                (ign && (!WIFEXITED(st[1]) || WEXITSTATUS(st[1]) != cases[i].rc ||
                         strcmp(said[1], cases[i].want != NULL ? cases[i].want : "") != 0)) ||
                (!ign && (!WIFSIGNALED(st[1]) || WTERMSIG(st[1]) != SIGPIPE)))
                fail_msg("'cesync %s' (standard %s a socket whose reader is gone, SIGPIPE %s): "
                         "status %d and\n%swritten itself, status %d and\n%sthrough the relay",
                         cases[i].args, cases[i].want != NULL ? "output" : "error",
                         ign ? "ignored" : "as it is", st[0], said[0], st[1], said[1]);
            free(said[0]);
            free(said[1]);
        }
    }
    ces_test_remove_in(dir, "err\0x.txt\0");
}

/* cesync run checks its input before it looks for GPUs, so these say the
 * same with GPUs or without, and in a cesync built without CUDA (which
 * said "this cesync was built without CUDA" to each): a wrong file or
 * option is named as such (it was "no CUDA GPU is available"), and a
 * schedule with more ranks than a run drives is refused (past 64 it
 * overran the per-rank arrays). */
static void test_run_input_first(void **state)
{
    (void)state;
    ces_test_tool_says("run no-such.ces", 2,
                       "cesync: no-such.ces: cannot open: No such file or directory\n");
    ces_test_tool_says("run alltoall --bogus", 2,
                       "cesync: run: unknown option '--bogus' (see cesync run --help)\n");
    ces_test_tool_says("run alltoall --ranks 4x", 2,
                       "cesync: run: --ranks expects a number in 1..64, not '4x'\n");
    /* the schedule anywhere among the options, a second one refused */
    ces_test_tool_says("run --single-process --ranks 2 --root 1 barrier", 2,
                       "cesync: run: --root applies to gather, scatter and broadcast, not to "
                       "barrier\n");
    ces_test_tool_says("run barrier alltoall", 2,
                       "cesync: run: unexpected argument 'alltoall' (one schedule per command; "
                       "see cesync run --help)\n");
    ces_test_tool_says("run barrier -- x.ces", 2,
                       "cesync: run: '--' names the schedule, but 'barrier' is one already "
                       "(one schedule per command; see cesync run --help)\n");
    /* a second schedule after -- named like run's option: it was taken for
     * the option, and run barrier -- --single-process ran the barrier */
    ces_test_tool_says("run barrier -- --single-process", 2,
                       "cesync: run: '--' names the schedule, but 'barrier' is one already "
                       "(one schedule per command; see cesync run --help)\n");
    /* a -- that ends the line names none, as in the other commands (the
     * --ranks run adds for a collective went after it, and it said "'--'
     * names the schedule, but 'barrier' is one already") */
    ces_test_tool_says("run --root 1 barrier --", 2,
                       "cesync: run: --root applies to gather, scatter and broadcast, not to "
                       "barrier\n");
    /* a missing value, or another option in its place, is said so (run
     * --sync asked "which schedule?") */
    ces_test_tool_says("run --sync", 2, "cesync: run: --sync expects nccl, mono, credit or pull\n");
    ces_test_tool_says("run alltoall --ranks", 2, "cesync: run: --ranks expects a number in 1..64\n");
    ces_test_tool_says("run alltoall --sync --graph", 2,
                       "cesync: run: --sync expects nccl, mono, credit or pull, not the option '--graph'\n");
    ces_test_tool_says("run", 2,
                       "cesync: run: which schedule? (a .ces file or a collective; --help)\n");
    /* an option alone is no schedule (it ran the other commands' default) */
    ces_test_tool_says("run --single-process", 2,
                       "cesync: run: which schedule? (a .ces file or a collective; --help)\n");
    /* an unknown option is said as such with no schedule too, as every
     * command says it (it asked "which schedule?"), before a value missing
     * after it, as the other commands judge them in order */
    ces_test_tool_says("run --bogus", 2,
                       "cesync: run: unknown option '--bogus' (see cesync run --help)\n");
    ces_test_tool_says("run --single-process --graph -x --ranks 2", 2,
                       "cesync: run: unknown option '-x' (see cesync run --help)\n");
    ces_test_tool_says("run --in-place --directed --bogus --sync", 2,
                       "cesync: run: unknown option '--bogus' (see cesync run --help)\n");
    /* -- names the schedule, as in the other commands: one that starts
     * with '-' (it was taken for an option, and run asked "which
     * schedule?") */
    {
        char *dir = ces_test_tmpdir(), *out = NULL, path[256];

        assert_int_equal(ces_test_tool(dir, "print barrier --ranks 65 -o ./-x.ces", &out), 0);
        free(out);
        assert_int_equal(ces_test_tool(dir, "run --single-process -- -x.ces", &out), 2);
        /* at its ranks line (it said "run: the schedule has ...") */
        assert_string_equal(out, "cesync: run: -x.ces:2:7: the schedule has 65 ranks; at most 64 "
                                 "can run\n");
        free(out);
        assert_int_equal(ces_test_tool(dir, "run -- -x.ces more", &out), 2);
        assert_string_equal(out, "cesync: run: unexpected argument 'more' (one schedule per "
                                 "command; see cesync run --help)\n");
        free(out);
        assert_int_equal(ces_test_tool(dir, "run -- -no.ces", &out), 2);
        assert_string_equal(out, "cesync: -no.ces: cannot open: No such file or directory\n");
        free(out);
        assert_int_equal(ces_test_tool(dir, "run --", &out), 2);
        assert_string_equal(out, "cesync: run: which schedule? (a .ces file or a collective; "
                                 "--help)\n");
        free(out);
        snprintf(path, sizeof(path), "%s/-x.ces", dir);
        assert_int_equal(remove(path), 0);
        assert_int_equal(rmdir(dir), 0);
    }
#if defined(CES_HAVE_CUDA)
    /* no GPU to be seen (none visible, or a driver that fails: then CUDA's
     * own words, not "0 found"); bench's advice to share GPUs is not given
     * to one that shares them */
    {
        char *out = NULL;

        assert_int_equal(ces_test_tool_env(NULL, "CUDA_VISIBLE_DEVICES=", "run alltoall "
                                           "--ranks 2", &out), 2);
        if (strcmp(out, "cesync: run: no CUDA GPU is available on this machine\n") != 0 &&
            strncmp(out, "cesync: run: no CUDA GPU can be used: ", 38) != 0)
            fail_msg("run without a GPU: %s", out);
        free(out);
        assert_int_equal(ces_test_tool_env(NULL, "CUDA_VISIBLE_DEVICES= CES_SHARE_GPUS=1",
                                           "bench alltoall --ranks 2", &out), 2);
        if (strcmp(out, "cesync: bench: 2 ranks but this machine has no GPU\n") != 0 &&
            strncmp(out, "cesync: bench: no GPU can be used: ", 35) != 0)
            fail_msg("bench without a GPU: %s", out);
        free(out);
    }
#else
    /* built without CUDA: said once the input has been judged */
    ces_test_tool_says("run barrier --ranks 2", 2,
                       "cesync: run: this cesync was built without CUDA\n");
#endif
}

/* A schedule that no GPU can run (a graph phase's wait that reads $i, which
 * the capture freezes) is refused before the GPUs are asked, once, at the
 * op's place in the file as the parser says its own errors: it was each
 * rank's "cesync: run: rank 0: preparing the schedule: r0.s0#1 (line 6:13):
 * ..." on GPUs, "no CUDA GPU can be used" without, and "this cesync was
 * built without CUDA" in a cesync built so. */
static void test_run_lowering_refused(void **state)
{
    static const char frozen[] = "r0.s0#1: wait f[1] >= 1: the wait reads $i (in its slot "
                                 "or its value) but graph capture freezes it, so replays "
                                 "would pass on stale flags; use a graph-safe protocol: "
                                 "pull (every captured collective's but the barrier's) or "
                                 "credit (the barrier's)\n";
    char *dir = ces_test_tmpdir(), path[128], want[512], *out = NULL;

    (void)state;
    snprintf(path, sizeof(path), "%s/frozen.ces", dir);
    ces_test_put_file(path, "cesync 1\nranks 2\nsignal f u32 2\nphase graph x2\n"
                            "r* over p : write f[$i % 2]@$p = 1\n"
                            "r* over p : wait f[$i % 2] >= 1\n"
                            "r* over p : write f[$i % 2] = 0\n");
    snprintf(want, sizeof(want), "cesync: run: frozen.ces:6:13: %s", frozen);
    assert_int_equal(ces_test_tool(dir, "run frozen.ces --single-process", &out), 2);
    assert_string_equal(out, want);
    free(out);
    snprintf(want, sizeof(want), "cesync: run: <stdin>:6:13: %s", frozen);
    assert_int_equal(ces_test_tool(dir, "run - < frozen.ces", &out), 2);
    assert_string_equal(out, want);
    free(out);
    /* a malformed setting is said first, before the lowering's seconds */
    assert_int_equal(ces_test_tool_env(dir, "CES_TIMEOUT_MS=abc", "run frozen.ces", &out), 2);
    assert_string_equal(out, "cesync: run: CES_TIMEOUT_MS must be 1..4294967295 milliseconds "
                             "(digits), not 'abc'\n");
    free(out);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* cesync run's refusal, under `env`, of `cmd`, whose file (`name`, at the
 * place of the line that sets what the queues refuse) was checked with
 * `checked` where this process has `have`: it asks for `connections conn`
 * or CUDA_DEVICE_MAX_CONNECTIONS=`set`. */
static void queues_refused(const char *env, const char *cmd, const char *name,
                           const char *checked, const char *have, const char *conn,
                           const char *set)
{
    char want[1024], *out = NULL;

    snprintf(want, sizeof(want), "cesync: run: %s: the schedule was checked with %s but this "
             "process has %s per GPU (CUDA_DEVICE_MAX_CONNECTIONS; 8 when unset), so the check "
             "did not model how its streams are queued here; check it with `connections %s` "
             "(or `connections any`: every assignment), or run it with "
             "CUDA_DEVICE_MAX_CONNECTIONS=%s\n", name, checked, have, conn, set);
    assert_int_equal(ces_test_tool_env(NULL, env, cmd, &out), 2);
    assert_string_equal(out, want);
    free(out);
}

/* A file checked for other hardware queues than this process has
 * (`connections`, CUDA_DEVICE_MAX_CONNECTIONS) is refused before the GPUs
 * are asked, once, naming the file: each rank's ces_cuda_run_prepare said
 * "cesync: run: rank 0: preparing the schedule: ces_launch: the schedule was
 * checked with ..." on GPUs, without one run said that none can be used,
 * and a cesync built without CUDA that it was.  The file is named at its
 * connections line, or where it has none, at its streams line (it said
 * "run: FILE: the schedule ..."). */
static void test_run_queues_first(void **state)
{
    char *dir = ces_test_tmpdir(), cmd[256];

    (void)state;
    queues_refused("CUDA_DEVICE_MAX_CONNECTIONS=", "run bad/cross_stream_conn1.ces",
                   "bad/cross_stream_conn1.ces:12:13",
                   "connections 1 (its 2 streams sharing 1 queue)", "8 hardware queues", "0",
                   "1");
    queues_refused("CUDA_DEVICE_MAX_CONNECTIONS=1", "run - < bad/cross_stream_conn0.ces",
                   "<stdin>:10:13", "connections 0 (each of its 2 streams on a queue of its own)",
                   "1 hardware queue", "1", "2 or more");
    snprintf(cmd, sizeof(cmd), "%s/s.ces", dir);
    ces_test_put_file(cmd, "cesync 1\nranks 2\n\nstreams\t 2\nsignal f u32 1\nphase eager x1\n"
                           "r* s1 : write f[0] = 1\n");
    snprintf(cmd, sizeof(cmd), "run %s/s.ces", dir);
    {
        char name[256];

        snprintf(name, sizeof(name), "%s/s.ces:4:10", dir);
        queues_refused("CUDA_DEVICE_MAX_CONNECTIONS=1", cmd, name,
                       "connections 0 (each of its 2 streams on a queue of its own)",
                       "1 hardware queue", "1", "2 or more");
    }
    ces_test_remove_in(dir, "s.ces\0");
}

/* The settings every rank reads from the environment are judged before the
 * GPUs are asked, once: a malformed one was each forked rank's "cesync:
 * run: rank 0: CES_TIMEOUT_MS must be ..." and then "0 of 2 ranks ran to
 * the end" on GPUs, without one "no CUDA GPU can be used", and in a cesync
 * built without CUDA that it was. */
static void test_run_settings_first(void **state)
{
    static const struct {
        const char *env, *want;
    } cases[] = {
        {"CES_TIMEOUT_MS=abc",
         "cesync: run: CES_TIMEOUT_MS must be 1..4294967295 milliseconds (digits), not 'abc'\n"},
        {"CES_P2P_SIDE_MIN=1Q", "cesync: run: CES_P2P_SIDE_MIN must be 0..2^48 bytes (digits, "
                                "then K, M or G if wanted), not '1Q'\n"},
        {"CES_SHARE_GPUS=2", "cesync: run: CES_SHARE_GPUS must be 0 or 1, not '2'\n"},
        {"CES_STRIDE=-1", "cesync: run: CES_STRIDE must be 1..2^48 bytes (digits, then K, M or G "
                          "if wanted), not '-1'\n"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out = NULL;

        assert_int_equal(ces_test_tool_env(NULL, cases[i].env, "run barrier --ranks 2", &out), 2);
        assert_string_equal(out, cases[i].want);
        free(out);
    }
}

/* run's --ranks says the ranks a run drives, 1..64 (the per-rank arrays of
 * tools/run.c), not the 1..1024 a schedule may have, with GPUs or without,
 * with CUDA or without; a file of more ranks is refused as such
 * (test_run_input_first). */
static void test_run_ranks_range(void **state)
{
    (void)state;
    ces_test_tool_says("run alltoall --ranks 0", 2,
                       "cesync: run: --ranks expects a number in 1..64, not '0'\n");
    ces_test_tool_says("run barrier --ranks 65 --single-process", 2,
                       "cesync: run: --ranks expects a number in 1..64, not '65'\n");
    ces_test_tool_says("run --ranks 1025 alltoall", 2,
                       "cesync: run: --ranks expects a number in 1..64, not '1025'\n");
    /* the other commands keep the schedule's range */
    ces_test_tool_says("check alltoall --ranks 0", 2,
                       "cesync: check: --ranks expects a number in 1..1024, not '0'\n");
}

/* A pipe for the GPU probe that cannot be made (one file descriptor left
 * past 0, 1 and 2, for the loader; a pipe takes two) is said as such,
 * exit 2: it was taken for "no CUDA GPU is available on this machine". */
static void test_run_probe_pipe_fails(void **state)
{
    (void)state;
#if defined(CES_HAVE_CUDA)
    char out[512];
    size_t len = 0;
    ssize_t n;
    int fds[2], st;
    pid_t pid;

    assert_int_equal(pipe(fds), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit lim;
        int null = open("/dev/null", O_RDONLY);

        /* fd 3 free (whatever the test inherited there), 4 the limit */
        if (null < 0 || dup2(null, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(fds[1], 2) < 0 ||
            getrlimit(RLIMIT_NOFILE, &lim) != 0)
            _exit(126);
        close(null);
        close(fds[0]);
        close(fds[1]);
        close(3);
        lim.rlim_cur = 4;
        if (setrlimit(RLIMIT_NOFILE, &lim) != 0)
            _exit(126);
        execl(CES_TOOL, CES_TOOL, "run", "alltoall", "--ranks", "2", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    while ((n = read(fds[0], out + len, sizeof(out) - 1 - len)) > 0)
        len += (size_t)n;
    out[len] = '\0';
    close(fds[0]);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 2);
    assert_string_equal(out, "cesync: run: cannot make a pipe: Too many open files\n");
#else
    skip();
#endif
}

/* A GPU probe that cannot fork its child is said as such, exit 2: it was
 * taken for "no CUDA GPU is available on this machine".  fork() fails in a
 * library preloaded into cesync (RLIMIT_NPROC does not hold root back);
 * ASan, where built in, is told that the library comes before it. */
static void test_run_probe_fork_fails(void **state)
{
    (void)state;
#if defined(CES_HAVE_CUDA)
    char *out = NULL;

    assert_int_equal(ces_test_tool_env(NULL, "LD_PRELOAD='" CES_FORK_FAILS "' "
                                       "ASAN_OPTIONS=\"verify_asan_link_order=0:$ASAN_OPTIONS\"",
                                       "run /nonexistent-dir/x.ces", &out),
                     2);
    /* (a loader that refuses the preload says so, and the file's absence
     * would be said after it: no fork failure to see here) */
    if (strstr(out, "cannot be preloaded") != NULL) {
        free(out);
        skip();
    }
    assert_string_equal(out, "cesync: run: cannot fork: Resource temporarily unavailable\n");
    free(out);
#else
    skip();
#endif
}

/* run differs from the other commands in what the shared builder text
 * says: no built-in default, and --ranks defaults to the GPUs present (the
 * shared text below run's own said "default 4" and "no schedule at all: the
 * built-in 4-rank alltoall", against it). */
static void test_run_help(void **state)
{
    char *out;

    (void)state;
    assert_int_equal(ces_test_tool(NULL, "run --help", &out), 0);
    /* the reference says the whole rule (the help said it until the
     * sixty-seventh session, which cut each help to a screen) */
    ces_test_cli_doc_says("## run", "`run` needs a schedule (no built-in default). For a "
                          "collective `--ranks` defaults to the number of GPUs, at least 2 and "
                          "at most 8: every GPU of a machine of 2 to 8, 2 ranks on a machine of "
                          "one GPU (which need `CES_SHARE_GPUS=1`), GPUs 0 to 7 of more than 8. "
                          "A file's ranks are its own. A run drives 1 to 64 ranks (a file of "
                          "more is refused at its `ranks` line, `run: x.ces:2:7: the schedule "
                          "has 65 ranks; at most 64 can run`), more than the GPUs only with "
                          "`CES_SHARE_GPUS=1`. Ranks the GPUs cannot take are "
                          "refused before any starts, in the words of `cesync devices --ranks "
                          "N`: too few GPUs (said with their number; a file's at its `ranks` "
                          "line, `run: x.ces:2:7: 4 ranks but this machine has 1 GPU (...)`), "
                          "GPUs that are not all "
                          "peers, a GPU of theirs that the driver fails to describe, or, with "
                          "`--single-process`, more ranks on a GPU than one process may drive. "
                          "A GPU that no rank is on stops none.");
    /* the builder options, also in a cesync built without CUDA */
    if (strstr(out, "built-in 4-rank alltoall") != NULL || strstr(out, "ranks, 1..1024") != NULL ||
        strstr(out, "  (run needs one: it has no built-in default)\n") == NULL ||
        strstr(out, "  --ranks N          ranks, 1..64 (default: the GPUs, at least 2, at "
                    "most 8)\n") == NULL)
        fail_msg("'cesync run --help' contradicts itself:\n%s", out);
    free(out);
    /* the other commands keep theirs */
    assert_int_equal(ces_test_tool(NULL, "check --help", &out), 0);
    assert_non_null(strstr(out, "  (none: the built-in 4-rank alltoall, unless standard input "
                                "is a pipe or file)\n"));
    assert_non_null(strstr(out, "  --ranks N          ranks, 1..1024 (default 4)\n"));
    free(out);
}

/* The builder options' lines say which collectives take a variant and the
 * bound of --slots, as the builder takes them: gather, scatter and
 * broadcast take overlap but not early ("plain (default), overlap, early
 * (alltoall, allgather)" read as the option of two collectives), and
 * --slots is at most --chunks with --sync credit (the line cut to a
 * screen left that out). */
static void test_builder_help_lines(void **state)
{
    char *out = NULL;

    (void)state;
    assert_int_equal(ces_test_tool(NULL, "validate --help", &out), 0);
    assert_non_null(strstr(out, "\n  --variant V        plain (default), overlap, early (early: "
                                "alltoall, allgather)\n"));
    assert_non_null(strstr(out, "\n  --slots S          sendrecv staging slots, 1..1024, at most "
                                "C with --sync credit\n                     (default 2; 1 with "
                                "--chunks 1)\n"));
    free(out);
    ces_test_tool_says("validate gather --ranks 2 --variant overlap", 0,
                       "valid: 2 ranks, 2 streams per rank, 2 buffers, 2 signal arrays, 1 "
                       "iteration, 20 ops\n");
    ces_test_tool_says("validate gather --variant early", 2,
                       "cesync: validate: gather: the early variant applies to alltoall and "
                       "allgather only\n");
    ces_test_tool_says("validate sendrecv --sync credit --chunks 2 --slots 3", 2,
                       "cesync: validate: sendrecv: --slots must be at most --chunks (2) with "
                       "--sync credit, not 3\n");
}

/* `cesync devices`: its usage errors before any GPU is looked for, in
 * either build; without a GPU (none visible) one line, exit 2, as run says
 * it; in a cesync built without CUDA, that it was (the tables on stand-in
 * machines: cuda_test_devices). */
static void test_devices_command(void **state)
{
    char *out = NULL;

    (void)state;
    ces_test_tool_says("devices --ranks 65", 2,
                       "cesync: devices: --ranks expects a number in 1..64, not '65'\n");
    ces_test_tool_says("devices --bogus", 2,
                       "cesync: devices: unknown option '--bogus' (see cesync devices --help)\n");
    assert_int_equal(ces_test_tool(NULL, "devices --help", &out), 0);
    assert_non_null(strstr(out, "usage: cesync devices [--ranks N]\n"));
    free(out);
    assert_int_equal(ces_test_tool(NULL, "--help", &out), 0);
    assert_non_null(strstr(out, "\n  devices   list the GPUs, which are peers, how many ranks "
                                "can run\n"));
    free(out);
#if defined(CES_HAVE_CUDA)
    assert_int_equal(ces_test_tool_env(NULL, "CUDA_VISIBLE_DEVICES=", "devices", &out), 2);
    if (strcmp(out, "cesync: devices: no CUDA GPU is available on this machine\n") != 0 &&
        strncmp(out, "cesync: devices: no CUDA GPU can be used: ", 42) != 0)
        fail_msg("devices without a GPU: %s", out);
    free(out);
#else
    ces_test_tool_says("devices --ranks 2", 2,
                       "cesync: devices: this cesync was built without CUDA (no GPU can be "
                       "used)\n");
#endif
}

/* Dot text of 16 MiB or more is announced with its size before it is
 * written (dot alltoall --ranks 1024 -o x.dot wrote about 900 MB without a
 * word; the note was of Graphviz's layout only): the alltoall of 144 ranks
 * draws 16.8 MiB, that of 136 ranks 15 MiB, which is not announced (on
 * standard output; the note's words there: test_common's
 * test_dot_text_note). */
static void test_dot_text_large(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, path[256];
    struct stat sb;

    (void)state;
    ces_test_tool_says("dot alltoall --ranks 136 2>&1 >/dev/null | cat", 0, "");
    assert_int_equal(ces_test_tool(dir, "dot alltoall --ranks 144 -o big.dot", &out), 0);
    assert_string_equal(out, "cesync: dot: writing 17 MiB of dot text (83376 ops) to big.dot; "
                             "fewer iterations or ranks draw less\ncesync: wrote big.dot\n");
    free(out);
    snprintf(path, sizeof(path), "%s/big.dot", dir);
    assert_int_equal(stat(path, &sb), 0);
    assert_true(sb.st_size >= 16 << 20);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* `cesync dot`: its help's usage names every option dot takes (it left out
 * --max-seconds, and the test compared its first 75 characters), and the
 * help names the builder options; the text on stdout, with -o - and in a
 * -o file is one and the same, to its last byte (the note on a large
 * picture: tests/tools/test_common.c). */
static void test_dot_outputs(void **state)
{
    static const char usage[] = "usage: cesync dot [SCHEDULE] [builder options] "
                                "[-o OUT.svg|OUT.png|OUT.dot|-]\n"
                                "                  [--max-seconds S] [--max-memory BYTES]\n\n";
    char *out, *same, *dir = ces_test_tmpdir(), path[256];

    (void)state;
    assert_int_equal(ces_test_tool(NULL, "dot --help", &out), 0);
    if (strncmp(out, usage, strlen(usage)) != 0)
        fail_msg("'cesync dot --help' begins:\n%s", out);
    assert_non_null(strstr(out, "Builder options (for a collective; one it does not take is an "
                                "error):\n  --ranks N          ranks, 1..1024 (default 4)\n"));
    free(out);
    assert_int_equal(ces_test_tool(NULL, "dot barrier --ranks 2", &out), 0);
    assert_int_equal(strcmp(out + strlen(out) - 2, "}\n"), 0);
    assert_int_equal(ces_test_tool(NULL, "dot barrier --ranks 2 -o -", &same), 0);
    assert_string_equal(same, out);
    free(same);
    assert_int_equal(ces_test_tool(dir, "dot barrier --ranks 2 -o b.dot", &same), 0);
    assert_string_equal(same, "cesync: wrote b.dot\n");
    free(same);
    snprintf(path, sizeof(path), "%s/b.dot", dir);
    same = ces_test_read_file(path, NULL);
    assert_string_equal(same, out);
    free(same);
    free(out);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* `cesync dot --max-memory`: a picture whose text and tables pass the
 * bound (the 64-rank alltoall, about 1.4 MiB of dot text, under 100K) is
 * not written, a line says so, exit 3 as check's bounds, and -o's file
 * keeps what it held; standard output gets nothing.  Under a bound that
 * holds it (10M) it is drawn.  dot had no memory bound at all (a
 * self-counter of 16,000 values in a graph of 3 took 9.4 GB; exit 2 for
 * the option). */
static void test_dot_memory_bound(void **state)
{
    char *dir = ces_test_tmpdir(), *out = NULL, path[256];
    FILE *f;

    (void)state;
    snprintf(path, sizeof(path), "%s/a.dot", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs("old\n", f) >= 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(ces_test_tool(dir, "dot alltoall --ranks 64 --max-memory 100K -o a.dot",
                                   &out), 3);
    assert_string_equal(out, "cesync: dot: a.dot not written: its text and tables would pass "
                             "the memory bound of 100.0 KiB\n");
    free(out);
    out = ces_test_read_file(path, NULL);
    assert_string_equal(out, "old\n");
    free(out);
    ces_test_tool_says("dot alltoall --ranks 64 --max-memory 100K 2>&1", 3,
                       "cesync: dot: the dot text not written: its text and tables would pass "
                       "the memory bound of 100.0 KiB\n");
    assert_int_equal(ces_test_tool(dir, "dot alltoall --ranks 64 --max-memory 10M -o a.dot",
                                   &out), 0);
    assert_string_equal(out, "cesync: wrote a.dot\n");
    free(out);
    out = ces_test_read_file(path, NULL);
    assert_non_null(strstr(out, "digraph cesync {\n"));
    assert_true(strlen(out) > 1000000);
    free(out);
    ces_test_tool_says("dot barrier --max-memory 1X", 2,
                       "cesync: dot: --max-memory expects a size in 0..18446744073709551615 "
                       "(suffixes K M G), not '1X'\n");
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* `cesync dot -o FIFO --max-seconds 2` into a named pipe whose reader, a
 * child, holds it open 20 s and never reads, and into one that no reader
 * opens until then: the write (the open) stops at the bound, a line says
 * so, exit 3 as check's bounds (1.4 MB of dot text, 2 ranks' 6,000
 * writes: the pipe takes 64 KiB of it).  Without --max-seconds a stall of
 * 60 s stops it alike (core_test_dot's test_write_stall, with a stall of
 * 2 s).  dot had no bound and no such option (exit 2): 'dot w.ces -o
 * p.dot' waited for such a reader, or for one, for ever. */
static void test_dot_pipe_bound(void **state)
{
    char *dir = ces_test_tmpdir(), sch[256], fifo[256], args[640], want[1024], *o;

    (void)state;
    snprintf(sch, sizeof(sch), "%s/w.ces", dir);
    snprintf(fifo, sizeof(fifo), "%s/p.dot", dir);
    ces_test_put_file(sch, "cesync 1\nranks 2\nsignal f u32 1\nphase eager x3000\n"
                           "r* : write f[0] = $i\n");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(args, sizeof(args), "dot %s -o %s --max-seconds 2", sch, fifo);
    for (int reads = 0; reads < 2; reads++) {
        /* a reader that does not read, or none yet */
        pid_t pid = ces_test_idle_reader(fifo, reads == 0);

        if (reads == 0)
            snprintf(want, sizeof(want), "cesync: dot: %s not written (--max-seconds 2): the "
                     "time bound passed while its dot text was written\n", fifo);
        else
            snprintf(want, sizeof(want), "cesync: dot: %s not written (--max-seconds 2): the "
                     "time bound passed while %s waited for a reader\n", fifo, fifo);
        assert_int_equal(ces_test_tool(NULL, args, &o), 3);
        assert_string_equal(o, want);
        free(o);
        ces_test_end_reader(pid);
    }
    /* the option's value, as check's */
    snprintf(args, sizeof(args), "dot %s -o %s --max-seconds 0", sch, fifo);
    assert_int_equal(ces_test_tool(NULL, args, &o), 2);
    assert_string_equal(o, "cesync: dot: --max-seconds expects a finite number > 0, not '0'\n");
    free(o);
    ces_test_remove_in(dir, "p.dot\0w.ces\0");
}

/* Every text output into a named pipe is held as dot's -o is without
 * --max-seconds (ces_tool_dot_bounds): print -o and gen -o DIR's
 * DIR/gen-1.ces, named pipes that no reader opens, and promela -o, one
 * whose reader holds it open and never reads (185 KB of the 8-rank
 * alltoall's model: the pipe takes 64 KiB of it), stop after 60 s, a line
 * naming the file, exit 2 as an output that cannot be written, nothing
 * left beside them.  The 60 s pass in 2 s: the command's clock, preloaded,
 * runs 30 times as fast (tests/sim/clock_fast.c).  Each waited for ever,
 * here until the reader, a child, opened or closed the pipe 20 s later,
 * and died of SIGPIPE (exit 141).  -o /dev/stdout into a pipe is not held
 * so: it is written as standard output is. */
static void test_text_outputs_pipe_stall(void **state)
{
#if defined(CES_CLOCK_FAST)
    static const char env[] = "LD_PRELOAD='" CES_CLOCK_FAST "' "
                              "ASAN_OPTIONS=\"verify_asan_link_order=0:$ASAN_OPTIONS\"";
    static const struct {
        const char *args, *file; /* (args: %s the directory) */
        int opened;
    } cases[] = {
        {"print barrier --ranks 2 -o %s/p.txt", "p.txt", 0},
        {"promela alltoall --ranks 8 -o %s/p.txt", "p.txt", 1},
        {"gen --seed 1 -o %s", "gen-1.ces", 0},
    };
    char *dir = ces_test_tmpdir(), fifo[256], args[640], want[1024], got[256], *o, *got_all;
    int rc;

    (void)state;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        pid_t pid;

        snprintf(fifo, sizeof(fifo), "%s/%s", dir, cases[k].file);
        assert_int_equal(mkfifo(fifo, 0600), 0);
        pid = ces_test_idle_reader(fifo, cases[k].opened);
        snprintf(args, sizeof(args), cases[k].args, dir);
        if (cases[k].opened)
            snprintf(want, sizeof(want), "cesync: %.*s: cannot write %s: its reader took none of "
                     "it for 60 s\n", (int)strcspn(args, " "), args, fifo);
        else
            snprintf(want, sizeof(want), "cesync: %.*s: no reader opened %s in 60 s\n",
                     (int)strcspn(args, " "), args, fifo);
        rc = ces_test_tool_env(NULL, env, args, &o);
        ces_test_end_reader(pid);
        if (strstr(o, "cannot be preloaded") != NULL) {
            free(o);
            assert_int_equal(remove(fifo), 0);
            break;
        }
        if (rc != 2 || strcmp(o, want) != 0)
            fail_msg("'cesync %s' exit %d, it said:\n%s", args, rc, o);
        free(o);
        ces_test_dir_entries(dir, got, sizeof(got));
        snprintf(want, sizeof(want), "%s;", cases[k].file);
        assert_string_equal(got, want);
        assert_int_equal(remove(fifo), 0);
    }
    assert_int_equal(rmdir(dir), 0);
    /* -o /dev/stdout is written as standard output is, without the 60 s:
     * a reader that takes none of the expanded 32-rank alltoall (some
     * 150 KB) for 3 s, 90 s of the command's clock, then all, gets it
     * whole, as with -o - (a pager that reads a screen at a time) */
    assert_int_equal(ces_test_tool(NULL, "print alltoall --ranks 32 --expand | wc -c", &o), 0);
    rc = ces_test_tool_env(NULL, env, "print alltoall --ranks 32 --expand -o /dev/stdout "
                                      "2>/dev/null | (sleep 3; wc -c)", &got_all);
    assert_int_equal(rc, 0);
    assert_string_equal(got_all, o);
    free(got_all);
    free(o);
    /* promela's help names that exit (it named none for an output) */
    assert_int_equal(ces_test_tool(NULL, "promela --help", &o), 0);
    assert_non_null(strstr(o, "\nExit: 0 written, 2 bad usage, a bad schedule, a model past a "
                              "limit, or an output\nthat cannot be written.\n"));
    free(o);
#else
    (void)state;
    skip();
#endif
}

/* A text output whose named pipe's reader takes 10 bytes and goes away:
 * promela's 185 KB model fails its write (EPIPE), said as an output that
 * cannot be written, exit 2, nothing beside the pipe (SIGPIPE ended the
 * command with no word, exit 141). */
static void test_text_output_reader_gone(void **state)
{
    char *dir = ces_test_tmpdir(), fifo[256], args[512], want[512], got[256];
    pid_t pid;
    int st;

    (void)state;
    snprintf(fifo, sizeof(fifo), "%s/q.pml", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char ten[10];
        int fd = open(fifo, O_RDONLY);

        _exit(fd >= 0 && read(fd, ten, sizeof(ten)) > 0 && close(fd) == 0 ? 0 : 1);
    }
    snprintf(args, sizeof(args), "promela alltoall --ranks 8 -o %s", fifo);
    snprintf(want, sizeof(want), "cesync: promela: cannot write %s: Broken pipe\n", fifo);
    ces_test_tool_says(args, 2, want);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "q.pml;");
    assert_int_equal(remove(fifo), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* An output that is the command's own standard output under another name
 * is written as standard output is, without the named pipe's 60 s: a
 * reader that takes none for 3 s (90 s of the command's clock, preloaded
 * to run 30 times as fast: tests/sim/clock_fast.c), then all, gets it
 * whole.  dot -o DIR/o.dot, a link to /dev/stdout, of the 32-rank
 * alltoall (835 KiB of dot text), and print --expand of it (150 KB) -o
 * DIR/f.txt, a named pipe that the shell opened as its standard output
 * too (-o f.txt >f.txt), its stand known by device and inode.  The
 * picture was held by the stall whatever its name, and a text output
 * judged its own by name alone: each stopped at 60 s, the reader given
 * 64 KiB ("dot: DIR/o.dot not written: its reader took none of its dot
 * text for 60 s", exit 3; "print: cannot write DIR/f.txt: its reader took
 * none of it for 60 s", exit 2). */
static void test_own_outputs_no_stall(void **state)
{
#if defined(CES_CLOCK_FAST)
    static const char env[] = "LD_PRELOAD='" CES_CLOCK_FAST "' "
                              "ASAN_OPTIONS=\"verify_asan_link_order=0:$ASAN_OPTIONS\"";
    char *dir = ces_test_tmpdir(), link[256], fifo[256], err[256], args[1280], want[512];
    char *whole, *o;
    int rc;

    (void)state;
    snprintf(link, sizeof(link), "%s/o.dot", dir);
    snprintf(fifo, sizeof(fifo), "%s/f.txt", dir);
    snprintf(err, sizeof(err), "%s/err", dir);
    assert_int_equal(symlink("/dev/stdout", link), 0);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(ces_test_tool(NULL, "dot alltoall --ranks 32 | wc -c", &whole), 0);
    snprintf(args, sizeof(args), "dot alltoall --ranks 32 -o %s 2>%s | (sleep 3; wc -c)", link,
             err);
    rc = ces_test_tool_env(NULL, env, args, &o);
    if (rc != 0 || strcmp(o, whole) != 0)
        fail_msg("'cesync %s' gave %s, not %s", args, o, whole);
    free(o);
    free(whole);
    o = ces_test_read_file(err, NULL);
    snprintf(want, sizeof(want), "cesync: wrote %s\n", link);
    assert_string_equal(o, want);
    free(o);
    /* the pipe's reader opens it at once, reads from 3 s on */
    assert_int_equal(ces_test_tool(NULL, "print alltoall --ranks 32 --expand | wc -c", &whole),
                     0);
    snprintf(args, sizeof(args), "print alltoall --ranks 32 --expand -o %s >%s 2>%s & exec 3<%s; "
             "sleep 3; wc -c <&3; wait $!; echo \"exit $?\"", fifo, fifo, err, fifo);
    rc = ces_test_tool_env(NULL, env, args, &o);
    snprintf(want, sizeof(want), "%sexit 0\n", whole);
    if (rc != 0 || strcmp(o, want) != 0)
        fail_msg("'cesync %s' gave %s, not %s", args, o, want);
    free(o);
    free(whole);
    o = ces_test_read_file(err, NULL);
    snprintf(want, sizeof(want), "cesync: wrote %s\n", fifo);
    assert_string_equal(o, want);
    free(o);
    ces_test_remove_in(dir, "o.dot\0f.txt\0err\0");
#else
    (void)state;
    skip();
#endif
}

/* An output that is no regular file and takes all it is given at once
 * (/dev/null) is written in parts of 16 MiB: print --expand of the 64-rank
 * alltoall (617 KB) -o /dev/null, its standard output and error a pipe,
 * makes at most 4 write(2)s, its line on standard error among them
 * (counted in syscw of /proc/PID/io of the shell that waited for it,
 * where a child's count goes once it is reaped).  It made one of 4 KiB
 * (PIPE_BUF) after each poll(2), 152 in all; 109 MiB of dot text took
 * 0.1 s more than to a file. */
static void test_output_device_whole(void **state)
{
    char *o;
    unsigned long writes = 0;
    const char *at;

    (void)state;
    if (access("/proc/self/io", R_OK) != 0)
        skip(); /* (a kernel without task I/O accounting) */
    assert_int_equal(ces_test_tool(NULL, "print alltoall --ranks 64 --expand -o /dev/null "
                                         "2>&1; cat /proc/$$/io", &o), 0);
    assert_memory_equal(o, "cesync: wrote /dev/null\n", 24);
    at = strstr(o, "syscw: ");
    assert_non_null(at);
    writes = strtoul(at + 7, NULL, 10);
    if (writes > 4)
        fail_msg("%lu writes:\n%s", writes, o);
    free(o);
}

/* What `cesync dot ... --max-seconds 1 -o NAME` says when the bound passes
 * while it writes, NAME given, or NULL for standard output (-o -). */
static void bound_dot_want(char *want, size_t size, const char *name)
{
    if (name != NULL)
        snprintf(want, size, "exit 3\ncesync: dot: %s not written (--max-seconds 1): the time "
                 "bound passed while its dot text was written\n", name);
    else
        snprintf(want, size, "exit 3\ncesync: dot: the dot text not written (--max-seconds 1): "
                 "the time bound passed while it was written to standard output\n");
}

/* The command's standard output, a pipe, written as dot -o o.dot (a link
 * to /dev/stdout), as dot -o p.dot > p.dot (p.dot a named pipe) and as
 * dot -o - under --max-seconds 1, its reader reading nothing and each of
 * its pages but one partly filled by another program's writes (3/4 of a
 * page each), stops at the bound, exit 3, and leaves the pipe's
 * description blocking as it was.  A write waited for the reader past the
 * bound for ever (killed here after 30 s): it was given the pages that
 * what the pipe held (FIONREAD) seemed to leave free, where one was; -o -
 * was written by fwrite, without the bound that held the other names of
 * the same descriptor. */
static void test_own_pipe_bound_partial_pages(void **state)
{
#if defined(__linux__)
    const char *const names[] = {"o.dot", "p.dot", "-"};
    char *dir = ces_test_tmpdir(), path[256], args[512], want[512], *fill, *o;
    long page = sysconf(_SC_PAGESIZE);
    size_t part;

    (void)state;
    assert_true(page > 0);
    part = (size_t)page / 4 * 3;
    fill = calloc(part, 1);
    assert_non_null(fill);
    snprintf(path, sizeof(path), "%s/o.dot", dir);
    assert_int_equal(symlink("/dev/stdout", path), 0);
    snprintf(path, sizeof(path), "%s/p.dot", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    for (int i = 0; i < 3; i++) {
        int p[2], size, rc;

        if (i != 1) {
            assert_int_equal(pipe(p), 0);
        } else {
            p[0] = open(path, O_RDONLY | O_NONBLOCK);
            assert_true(p[0] >= 0);
            p[1] = open(path, O_WRONLY);
            assert_true(p[1] >= 0);
        }
        size = fcntl(p[1], F_GETPIPE_SZ);
        assert_true(size >= 4 * page);
        for (long k = 1; k < size / page; k++)
            assert_int_equal(write(p[1], fill, part), (ssize_t)part);
        snprintf(args, sizeof(args), "dot alltoall --ranks 8 --max-seconds 1 -o %s >&%d 2>err; "
                 "echo \"exit $?\"; cat err", names[i], p[1]);
        rc = ces_test_tool_env(dir, "timeout -s KILL 30", args, &o);
        bound_dot_want(want, sizeof(want), i < 2 ? names[i] : NULL);
        if (rc != 0 || strcmp(o, want) != 0)
            fail_msg("'cesync %s' gave %s, not %s", args, o, want);
        free(o);
        assert_int_equal(fcntl(p[1], F_GETFL) & O_NONBLOCK, 0);
        close(p[0]);
        close(p[1]);
    }
    free(fill);
    ces_test_remove_in(dir, "o.dot\0p.dot\0err\0");
#else
    (void)state;
    skip();
#endif
}

/* The command's standard output a terminal whose reader reads nothing (a
 * pseudo-terminal's slave, not the controlling terminal of any process,
 * its master never read), written as dot -o o.dot (a link to /dev/stdout)
 * and as dot -o - under --max-seconds 1 (214 KB of the 16-rank alltoall's
 * dot text: the terminal takes some 17 KB): each stops at the bound,
 * exit 3, and the terminal's description stays blocking.  A write of
 * PIPE_BUF once poll(2) said the shared description took some (a byte
 * is enough) waited for the reader past the bound for ever (killed here
 * after 30 s); a pipe alone was given a description of its own. */
static void test_own_terminal_bound(void **state)
{
#if defined(__linux__)
    const char *const names[] = {"o.dot", "-"};
    char *dir = ces_test_tmpdir(), path[256], args[512], want[512], *o;
    int master = posix_openpt(O_RDWR | O_NOCTTY), slave = -1, rc;

    (void)state;
    if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0 && ptsname(master) != NULL)
        slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    if (slave < 0) {
        if (master >= 0)
            close(master);
        assert_int_equal(rmdir(dir), 0);
        skip(); /* (no pseudo-terminal to be had) */
    }
    snprintf(path, sizeof(path), "%s/o.dot", dir);
    assert_int_equal(symlink("/dev/stdout", path), 0);
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof(args), "dot alltoall --ranks 16 --max-seconds 1 -o %s >&%d 2>err; "
                 "echo \"exit $?\"; cat err", names[i], slave);
        rc = ces_test_tool_env(dir, "timeout -s KILL 30", args, &o);
        bound_dot_want(want, sizeof(want), i == 0 ? "o.dot" : NULL);
        if (rc != 0 || strcmp(o, want) != 0)
            fail_msg("'cesync %s' gave %s, not %s", args, o, want);
        free(o);
        assert_int_equal(fcntl(slave, F_GETFL) & O_NONBLOCK, 0);
    }
    close(slave);
    close(master);
    ces_test_remove_in(dir, "o.dot\0err\0");
#else
    (void)state;
    skip();
#endif
}

#if defined(__linux__)
/* A pseudo-terminal pair whose slave passes bytes as they are (no echo,
 * no line editing, no newline made CR LF), the slave's name in name[256]:
 * true where one was had. */
static bool raw_pty(int *master, int *slave, char *name)
{
    struct termios t;

    *slave = -1;
    *master = posix_openpt(O_RDWR | O_NOCTTY);
    if (*master >= 0 && grantpt(*master) == 0 && unlockpt(*master) == 0 &&
        ptsname(*master) != NULL)
        *slave = open(ptsname(*master), O_RDWR | O_NOCTTY);
    if (*slave < 0 || tcgetattr(*slave, &t) != 0) {
        if (*slave >= 0)
            close(*slave);
        if (*master >= 0)
            close(*master);
        return false;
    }
    t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
    t.c_oflag &= ~(tcflag_t)OPOST;
    t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
    assert_int_equal(tcsetattr(*slave, TCSANOW, &t), 0);
    snprintf(name, 256, "%s", ptsname(*master));
    return true;
}

/* Reads what comes to `from` until the child pid has exited (and once
 * more after): its wait status, and what came in *got (malloc'd). */
static int read_until_exit(int from, pid_t pid, char **got)
{
    char chunk[4096], *buf = NULL;
    size_t len = 0;
    int st = 0;
    pid_t done = 0;

    for (;;) {
        struct pollfd p = {from, POLLIN, 0};
        int r = poll(&p, 1, 200);
        ssize_t n = 0;

        if (r > 0)
            n = read(from, chunk, sizeof(chunk));
        if (n > 0) {
            buf = realloc(buf, len + (size_t)n + 1);
            assert_non_null(buf);
            memcpy(buf + len, chunk, (size_t)n);
            len += (size_t)n;
            continue;
        }
        if (done != 0)
            break;
        done = waitpid(pid, &st, WNOHANG); /* (then one more look) */
        assert_true(done >= 0);
    }
    *got = buf != NULL ? buf : malloc(1);
    assert_non_null(*got);
    (*got)[len] = '\0';
    return st;
}

/* Runs `cesync ARGS` (shell words) with its standard output `out`, made
 * O_NONBLOCK where `nonblock`, or, where `tty` names a terminal, the
 * controlling terminal of another session (`tty` opened in it, then
 * /dev/tty opened there, O_NONBLOCK; the command's own controlling
 * terminal `other`), and reads what comes to `from` until it has exited:
 * its exit status, and what came in *got (malloc'd).  Killed after 30 s. */
static int on_terminal(const char *args, int out, bool nonblock, const char *tty,
                       const char *other, int from, char **got)
{
    char cmd[4096];
    int st;
    pid_t pid;

    snprintf(cmd, sizeof(cmd), "exec timeout -s KILL 30 '%s' %s </dev/null 2>/dev/null",
             CES_TOOL, args);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (tty != NULL) { /* (opened without O_NOCTTY: each becomes its session's) */
            pid_t inner;

            if (setsid() < 0 || open(tty, O_RDWR) < 0 || (out = open("/dev/tty", O_WRONLY)) < 0)
                _exit(126);
            inner = fork();
            if (inner != 0) {
                _exit(inner > 0 && waitpid(inner, &st, 0) == inner && WIFEXITED(st)
                          ? WEXITSTATUS(st)
                          : 126);
            }
            if (setsid() < 0 || open(other, O_RDWR) < 0)
                _exit(126);
        }
        if (dup2(out, 1) < 0 ||
            (nonblock && fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK) != 0))
            _exit(126);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    st = read_until_exit(from, pid, got);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}
#endif

/* The command's standard output a terminal that, opened again by name,
 * is another: a pseudo-terminal's master (a program that writes the
 * input of the terminal it runs another on), left O_NONBLOCK, and
 * written by dot -o - under --max-seconds 5 blocking, and /dev/tty opened
 * in another session, left O_NONBLOCK; the text comes to the terminal
 * whole, exit 0.  /proc/self/fd/N of /dev/ptmx opened a new pair, whose
 * master no one reads, and of /dev/tty the command's own controlling
 * terminal: all of it went there, exit 0 (test_stdout_nonblocking's
 * reopen at the start and test_own_terminal_bound's under the bound). */
static void test_stdout_terminal_not_another(void **state)
{
#if defined(__linux__)
    const char *const args[] = {"promela barrier --ranks 2", "dot barrier --ranks 2 "
                                "--max-seconds 5 -o -", "promela barrier --ranks 2"};
    const char *const whole[] = {"promela barrier --ranks 2", "dot barrier --ranks 2",
                                 "promela barrier --ranks 2"};
    char a_name[256], b_name[256], *want, *got;
    int am, as, bm, bs, rc;

    (void)state;
    if (!raw_pty(&am, &as, a_name))
        skip(); /* (no pseudo-terminal to be had) */
    if (!raw_pty(&bm, &bs, b_name)) {
        close(am);
        close(as);
        skip();
    }
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ces_test_tool(NULL, whole[i], &want), 0);
        if (i < 2)
            rc = on_terminal(args[i], am, i == 0, NULL, NULL, as, &got);
        else
            rc = on_terminal(args[i], -1, true, a_name, b_name, am, &got);
        if (rc != 0 || strcmp(got, want) != 0)
            fail_msg("'cesync %s' (%s) exit %d, %zu bytes, not %zu", args[i],
                     i < 2 ? "a master" : "/dev/tty of another session", rc, strlen(got),
                     strlen(want));
        free(want);
        free(got);
    }
    close(as);
    close(am);
    close(bs);
    close(bm);
#else
    (void)state;
    skip();
#endif
}

#if defined(__linux__) && defined(CES_PROC_ABSENT)
/* Runs `cesync ARGS` (shell words) in a session of its own whose
 * controlling terminal is the slave of the raw pseudo-terminal pair
 * (master, name), its standard output and error that terminal left
 * O_NONBLOCK, and open(2) of /proc/... failing (proc_absent.c), so that a
 * relay stands in for it.  Where `background`, the command is a job of
 * its own process group under `stty tostop`: it must stop with SIGTTOU
 * (else: exit 125), and is then made the foreground and continued.  A
 * relay must be seen to stand in (a pipe of the command's own while it
 * runs or is stopped), else exit 124: where the preload takes no effect
 * the terminal is opened again and written itself, and the tests that ask
 * for a relay's behaviour (a stop, progress lines) passed without one.
 * Its exit status, and what came to the master until it ended in *got
 * (malloc'd).  Killed after 30 s. */
static int on_relayed_terminal(const char *args, int master, const char *name, bool background,
                               char **got)
{
    char cmd[4096];
    int st;
    pid_t pid;

    snprintf(cmd, sizeof(cmd), "LD_PRELOAD='" CES_PROC_ABSENT "' ASAN_OPTIONS=\"verify_asan_"
             "link_order=0:$ASAN_OPTIONS\" exec '%s' %s </dev/null", CES_TOOL, args);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct termios t;
        bool relayed = false;
        pid_t job, waited;
        int fd;

        alarm(30);
        /* (opened without O_NOCTTY: the session's controlling terminal) */
        if (setsid() < 0 || (fd = open(name, O_RDWR)) < 0 || tcgetattr(fd, &t) != 0)
            _exit(126);
        if (background)
            t.c_lflag |= TOSTOP;
        if (tcsetattr(fd, TCSANOW, &t) != 0 ||
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0)
            _exit(126);
        /* (not the test's pipes, under ctest: the job's are the relay's) */
        if (dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(126);
        job = fork();
        if (job == 0) {
            if (background && setpgid(0, 0) != 0)
                _exit(126);
            execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
            _exit(127);
        }
        if (job < 0 || (background && setpgid(job, job) != 0 && errno != EACCES))
            _exit(126);
        do {
            struct timespec tick = {0, 5000000};

            relayed = relayed || holds_new_pipe(job);
            waited = waitpid(job, &st, WNOHANG | (background ? WUNTRACED : 0));
            if (waited == 0)
                nanosleep(&tick, NULL);
            else if (waited == job && WIFSTOPPED(st))
                relayed = relayed || holds_new_pipe(job); /* (stopped: again) */
        } while (waited == 0);
        if (waited != job)
            _exit(126);
        if (!relayed) {
            if (WIFSTOPPED(st))
                kill(job, SIGKILL);
            _exit(124);
        }
        if (background) {
            if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTTOU) {
                if (!WIFSTOPPED(st))
                    _exit(125);
                kill(job, SIGKILL);
                _exit(125);
            }
            signal(SIGTTOU, SIG_IGN); /* (tcsetpgrp from this group, now the background) */
            if (tcsetpgrp(fd, job) != 0 || kill(-job, SIGCONT) != 0 ||
                waitpid(job, &st, 0) != job)
                _exit(126);
        }
        _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 126);
    }
    st = read_until_exit(master, pid, got);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
#endif

/* A terminal left O_NONBLOCK without /proc, which a relay stands in for,
 * as the controlling terminal of a background job under `stty tostop`:
 * promela's model stops the job with SIGTTOU, as the command's own write
 * does, and comes whole once the job is brought to the foreground, exit
 * 0.  The relay's thread, which blocked SIGTTOU, was let write: the
 * background job wrote to the terminal and ended (exit 0, no stop). */
static void test_stdout_relay_tostop(void **state)
{
#if defined(__linux__) && defined(CES_PROC_ABSENT)
    char name[256], *want, *got;
    int m, s, rc;

    (void)state;
    if (!raw_pty(&m, &s, name))
        skip(); /* (no pseudo-terminal to be had) */
    assert_int_equal(ces_test_tool(NULL, "promela barrier --ranks 2", &want), 0);
    rc = on_relayed_terminal("promela barrier --ranks 2", m, name, true, &got);
    if (rc != 0 || strcmp(got, want) != 0)
        fail_msg("'cesync promela barrier --ranks 2' as a background job under tostop, its "
                 "terminal relayed: exit %d (125: not stopped by SIGTTOU, 124: no relay stood "
                 "in), %zu bytes, not %zu",
                 rc, strlen(got), strlen(want));
    free(want);
    free(got);
    close(s);
    close(m);
#else
    (void)state;
    skip();
#endif
}

/* check's progress lines, said by default where standard error is a
 * terminal, also where a relay stands in for the terminal (left
 * O_NONBLOCK, without /proc): a line by 2 s under --max-seconds 2.5 before
 * the report, exit 3.  The relay's pipe was no terminal: none was said.
 * (6 ranks: the check of 5 ended in 2.1 s on an idle machine, exit 0.) */
static void test_stdout_relay_terminal_progress(void **state)
{
#if defined(__linux__) && defined(CES_PROC_ABSENT)
    char name[256], *got;
    int m, s, rc;

    (void)state;
    if (!raw_pty(&m, &s, name))
        skip(); /* (no pseudo-terminal to be had) */
    rc = on_relayed_terminal("check alltoall --ranks 6 --iterations 2 --no-reduction "
                             "--max-seconds 2.5", m, name, false, &got);
    if (rc != 3 || strncmp(got, "check: ", 7) != 0 ||
        strstr(got, "\nverdict: INCOMPLETE\n") == NULL)
        fail_msg("check on a relayed terminal: exit %d (124: no relay stood in), said:\n%s", rc,
                 got);
    free(got);
    close(s);
    close(m);
#else
    (void)state;
    skip();
#endif
}

/* `cesync dot -o NAME` where NAME says no format (/dev/stdout, /dev/null):
 * refused before the drawing, with the name that does write standard
 * output (it said only that the name must end in .dot, .svg or .png). */
static void test_dot_stdout_hint(void **state)
{
    (void)state;
    ces_test_tool_says("dot barrier --ranks 2 -o /dev/stdout", 2,
                       "cesync: dot: -o /dev/stdout: the name must end in .dot, .svg or .png "
                       "(-o - writes the dot text to standard output)\n");
    ces_test_tool_says("dot -o /dev/null barrier", 2,
                       "cesync: dot: -o /dev/null: the name must end in .dot, .svg or .png "
                       "(-o - writes the dot text to standard output)\n");
}

/* Every output option of every command given the empty name or a
 * directory: refused, exit 2, the name said as the library says it in
 * "cannot create '': ..." (dot -o '' and check --dot '' said "-o : the name
 * must end in ...", a gap where the name goes), and nothing written. */
static void test_output_names_empty_or_directory(void **state)
{
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"dot barrier -o ''", "cesync: dot: -o '': the name must end in .dot, .svg or .png (-o - "
                              "writes the dot text to standard output)\n"},
        {"dot barrier -o d.dot", "cesync: dot: cannot write d.dot: Is a directory\n"},
        {"dot barrier -o d.svg", "cesync: dot: cannot write d.svg: Is a directory\n"},
        {"check barrier --dot ''",
         "cesync: check: --dot '': the name must end in .dot, .svg or .png\n"},
        {"check barrier --dot d.dot", "cesync: check: cannot write d.dot: Is a directory\n"},
        {"check barrier --dot d.svg", "cesync: check: cannot write d.svg: Is a directory\n"},
        {"print barrier -o ''", "cesync: print: cannot create '': No such file or directory\n"},
        {"print barrier -o d.dot", "cesync: print: cannot write d.dot: Is a directory\n"},
        {"promela barrier -o ''",
         "cesync: promela: cannot create '': No such file or directory\n"},
        {"promela barrier -o d.dot", "cesync: promela: cannot write d.dot: Is a directory\n"},
        {"gen --seed 1 -o ''", "cesync: gen: -o expects a directory, not ''\n"},
        {"gen --seed 1 -o f", "cesync: gen: cannot create f/gen-1.ces: Not a directory\n"},
        {"bench alltoall --dry-run --csv ''",
         "cesync: bench: cannot create '': No such file or directory\n"},
        {"bench alltoall --dry-run --csv d.dot", "cesync: bench: cannot write d.dot: Is a "
                                                 "directory\n"},
        {"bench alltoall --dry-run --plot ''",
         "cesync: bench: --plot expects a .svg or .png path, not ''\n"},
        {"bench alltoall --dry-run --plot p.svg",
         "cesync: bench: cannot write p.svg: Is a directory\n"},
        {"bench alltoall --dry-run --calibrate --model-out ''",
         "cesync: bench: cannot create '': No such file or directory\n"},
        {"bench alltoall --dry-run --calibrate --model-out d.dot",
         "cesync: bench: cannot write d.dot: Is a directory\n"},
    };
    char *dir = ces_test_tmpdir(), path[128], entries[256];

    (void)state;
    snprintf(path, sizeof(path), "%s/d.dot", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/d.svg", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/p.svg", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/f", dir);
    ces_test_put_file(path, "a file\n");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out = NULL;
        int rc = ces_test_tool(dir, cases[i].args, &out);

        if (rc != 2 || strcmp(out, cases[i].want) != 0)
            fail_msg("'cesync %s' exited %d:\n%s", cases[i].args, rc, out);
        free(out);
    }
    ces_test_dir_entries(dir, entries, sizeof(entries));
    assert_string_equal(entries, "d.dot;d.svg;f;p.svg;");
    ces_test_remove_in(dir, "d.dot\0d.svg\0f\0p.svg\0");
}

/* A picture's name ends in .svg, .png or .dot in any case (x.SVG was
 * refused as a name that says no format): dot -o, check --dot and bench
 * --plot write it, in the format the ending names. */
static void test_picture_ending_any_case(void **state)
{
    static const char *const names[] = {"b.SVG", "c.Png", "d.DOT", "e.PNG", "f.Svg"};
    char *dir = ces_test_tmpdir(), *out, path[256];

    (void)state;
    assert_int_equal(ces_test_tool(dir, "dot barrier --ranks 2 -o b.SVG", &out), 0);
    assert_string_equal(out, "cesync: wrote b.SVG\n");
    free(out);
    assert_int_equal(ces_test_tool(dir, "dot barrier --ranks 2 -o c.Png", &out), 0);
    free(out);
    assert_int_equal(ces_test_tool(dir, "dot barrier --ranks 2 -o d.DOT", &out), 0);
    free(out);
    assert_int_equal(ces_test_tool(dir, "check barrier --ranks 2 --quiet --dot e.PNG", &out), 0);
    assert_string_equal(out, "verdict: OK\ncesync: wrote e.PNG (the schedule)\n");
    free(out);
    assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --ranks 2 --max-bytes 4K "
                                        "--variant plain --plot f.Svg", &out), 0);
    assert_non_null(strstr(out, "\ncesync: wrote f.Svg\n"));
    free(out);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char *back;
        size_t len = 0;

        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        back = ces_test_read_file(path, &len);
        if (names[i][2] == 'S' || names[i][2] == 's')
            assert_non_null(strstr(back, "<svg"));
        else if (names[i][2] == 'P' || names[i][2] == 'p')
            assert_memory_equal(back, "\x89PNG\r\n\x1a\n", 8);
        else
            assert_true(strncmp(back, "digraph cesync {", 16) == 0);
        free(back);
        assert_int_equal(unlink(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_everywhere),
        cmocka_unit_test(test_help_lists_every_option),
        cmocka_unit_test(test_help_fits_a_screen),
        cmocka_unit_test(test_usage_names_every_option),
        cmocka_unit_test(test_builder_help_lines),
        cmocka_unit_test(test_help_examples_run),
        cmocka_unit_test(test_control_bytes_escaped),
        cmocka_unit_test(test_control_bytes_escaped_in_reports),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_unknown_option_before_schedule),
        cmocka_unit_test(test_arguments_in_order),
        cmocka_unit_test(test_print_validate_dot),
        cmocka_unit_test(test_file_named_as_a_collective),
        cmocka_unit_test(test_small_sizes),
        cmocka_unit_test(test_bytes_rounding),
        cmocka_unit_test(test_stdout_write_errors),
        cmocka_unit_test(test_run_input_first),
        cmocka_unit_test(test_run_lowering_refused),
        cmocka_unit_test(test_run_settings_first),
        cmocka_unit_test(test_run_queues_first),
        cmocka_unit_test(test_run_help),
        cmocka_unit_test(test_devices_command),
        cmocka_unit_test(test_dot_outputs),
        cmocka_unit_test(test_dot_text_large),
        cmocka_unit_test(test_dot_pipe_bound),
        cmocka_unit_test(test_dot_memory_bound),
        cmocka_unit_test(test_text_outputs_pipe_stall),
        cmocka_unit_test(test_text_output_reader_gone),
        cmocka_unit_test(test_own_outputs_no_stall),
        cmocka_unit_test(test_output_device_whole),
        cmocka_unit_test(test_own_pipe_bound_partial_pages),
        cmocka_unit_test(test_own_terminal_bound),
        cmocka_unit_test(test_stdout_terminal_not_another),
        cmocka_unit_test(test_stdout_relay_tostop),
        cmocka_unit_test(test_stdout_relay_terminal_progress),
        cmocka_unit_test(test_stdout_nonblocking),
        cmocka_unit_test(test_stdout_socket_nonblocking),
        cmocka_unit_test(test_stdout_nonblocking_no_proc),
        cmocka_unit_test(test_stdout_socket_bound),
        cmocka_unit_test(test_stdout_relay_stdin_closed),
        cmocka_unit_test(test_stdout_relay_not_needed),
        cmocka_unit_test(test_stdout_relay_outlived),
        cmocka_unit_test(test_stdout_relay_read_fails),
        cmocka_unit_test(test_stdout_relay_fails_making),
        cmocka_unit_test(test_stdout_relay_fails_queued),
        cmocka_unit_test(test_stdout_relay_fails_ended),
        cmocka_unit_test(test_stdout_relay_reader_gone),
        cmocka_unit_test(test_run_ranks_range),
        cmocka_unit_test(test_run_probe_pipe_fails),
        cmocka_unit_test(test_run_probe_fork_fails),
        cmocka_unit_test(test_dot_stdout_hint),
        cmocka_unit_test(test_picture_ending_any_case),
        cmocka_unit_test(test_output_names_empty_or_directory),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
