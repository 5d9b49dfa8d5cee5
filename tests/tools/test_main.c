/*
 * tests/tools/test_main.c - the cesync command as a user meets it: help on
 * every subcommand, exit codes, the built-in default, errors with positions.
 */
#include "ces_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Runs `cesync ARGS` through the shell; returns the exit code and the
 * combined output (malloc'd) in *out. */
static int run(const char *args, char **out)
{
    char cmd[4096];
    char *buf = NULL;
    size_t len = 0;
    char chunk[4096];
    FILE *f;
    size_t n;
    int st;

    snprintf(cmd, sizeof(cmd), "cd %s && '%s' %s 2>&1", CES_FIXTURES, CES_TOOL, args);
    f = popen(cmd, "r");
    assert_non_null(f);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        buf = realloc(buf, len + n + 1);
        assert_non_null(buf);
        memcpy(buf + len, chunk, n);
        len += n;
    }
    if (buf == NULL)
        buf = calloc(1, 1);
    buf[len] = '\0';
    st = pclose(f);
    *out = buf;
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void test_help_everywhere(void **state)
{
    static const char *const cmds[] = {"print", "validate", "dot", "check", "gen",
                                       "promela", "run", "bench"};
    char *out;

    (void)state;
    assert_int_equal(run("--help", &out), 0);
    assert_non_null(strstr(out, "usage: cesync COMMAND"));
    free(out);
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char args[64];

        snprintf(args, sizeof(args), "%s --help", cmds[i]);
        assert_int_equal(run(args, &out), 0);
        if (strstr(out, "usage: cesync") == NULL)
            fail_msg("'cesync %s' lacks a usage line:\n%s", args, out);
        free(out);
    }
}

static void test_usage_errors(void **state)
{
    char *out;

    (void)state;
    assert_int_equal(run("", &out), 2);
    free(out);
    assert_int_equal(run("frobnicate", &out), 2);
    assert_non_null(strstr(out, "unknown command 'frobnicate'"));
    free(out);
    assert_int_equal(run("print alltoall --ranks 0", &out), 2);
    assert_string_equal(out, "cesync: --ranks expects a number in 2..1024, not '0'\n");
    free(out);
    assert_int_equal(run("print alltoall --bogus", &out), 2);
    assert_string_equal(out, "cesync: print: unexpected argument '--bogus' (see cesync print --help)\n");
    free(out);
}

static void test_print_validate_dot(void **state)
{
    char *out;

    (void)state;
    assert_int_equal(run("validate alltoall --ranks 4 --sync nccl --iterations 2", &out), 0);
    assert_non_null(strstr(out, "valid: 4 ranks, 1 streams per rank"));
    free(out);
    assert_int_equal(run("print alltoall --ranks 2 --sync nccl", &out), 0);
    assert_true(strncmp(out, "cesync 1\nranks 2\n", 17) == 0);
    free(out);
    assert_int_equal(run("dot barrier --ranks 2", &out), 0);
    assert_true(strncmp(out, "digraph", 7) == 0);
    free(out);
    assert_int_equal(run("dot alltoall -o /nonexistent-dir/x.png", &out), 2);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_everywhere),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_print_validate_dot),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
