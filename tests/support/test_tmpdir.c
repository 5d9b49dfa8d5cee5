/*
 * tests/support/test_tmpdir.c - the tests' temporary directories
 * (ces_test_tmpdir): made in TMPDIR, and gone once the test program that
 * made them exits, also after an assertion failed in the test that was
 * filling one.
 */
#include "ces_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *self;

/* --- the program run as a child: its tests leave their directories ------ */

/* Fills a directory, with a subdirectory it cannot write, checks that a
 * child forked from the test and exiting leaves it, says where it is on
 * standard output, and fails before removing it. */
static void child_fails(void **state)
{
    char *dir = ces_test_tmpdir(), path[256];
    struct stat sb;
    pid_t pid;
    int st = 0;

    (void)state;
    snprintf(path, sizeof(path), "%s/sub", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/sub/f.ces", dir);
    ces_test_put_file(path, "cesync 1\n");
    snprintf(path, sizeof(path), "%s/sub", dir);
    assert_int_equal(chmod(path, 0500), 0);
    pid = fork();
    if (pid == 0)
        exit(0);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_int_equal(stat(dir, &sb), 0);
    printf("dir: %s\n", dir);
    fflush(stdout);
    fail_msg("failing on purpose, %s not removed", dir);
}

/* Leaves its directory, and a file in it, and passes. */
static void child_keeps(void **state)
{
    char *dir = ces_test_tmpdir(), path[256];

    (void)state;
    snprintf(path, sizeof(path), "%s/d.dot", dir);
    ces_test_put_file(path, "digraph cesync {}\n");
    printf("dir: %s\n", dir);
    fflush(stdout);
}

/* Binds a Unix socket at the path ces_test_sock_path gives for a name of
 * the longest length it takes, says the path, and removes the socket. */
static void child_sock(void **state)
{
    char name[CES_TEST_SOCK_NAME_MAX + 1], path[256];
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);

    (void)state;
    memset(name, 's', CES_TEST_SOCK_NAME_MAX);
    name[CES_TEST_SOCK_NAME_MAX] = '\0';
    ces_test_sock_path(path, sizeof(path), name);
    assert_true(strlen(path) < sizeof(addr.sun_path));
    memcpy(addr.sun_path, path, strlen(path) + 1);
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
    close(fd);
    assert_int_equal(unlink(path), 0);
    printf("sock: %s\n", path);
}

/* --- the tests ------------------------------------------------------------ */

/* Runs this program as `self MODE` with TMPDIR set to `tmpdir`: its exit
 * status, its standard output and error in out. */
static int run_with(const char *tmpdir, const char *mode, char *out, size_t size)
{
    char cmd[1024];
    size_t len = 0, got;
    FILE *f;
    int st;

    snprintf(cmd, sizeof(cmd), "TMPDIR='%s' '%s' %s 2>&1", tmpdir, self, mode);
    f = popen(cmd, "r");
    assert_non_null(f);
    while (len + 1 < size && (got = fread(out + len, 1, size - len - 1, f)) > 0)
        len += got;
    out[len] = '\0';
    st = pclose(f);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* Runs this program as `self MODE` with TMPDIR set to a new directory:
 * its exit status and the directory its test said it made, checked to be
 * in that TMPDIR and gone; the TMPDIR is removed (at exit where a check
 * failed). */
static int run_child(const char *mode, char *made, size_t size)
{
    char priv[256], cmd[1024], line[512];
    FILE *f;
    struct stat sb;
    int st;

    /* a TMPDIR of the child's own: one of this test's directories */
    snprintf(priv, sizeof(priv), "%s", ces_test_tmpdir());
    made[0] = '\0';
    snprintf(cmd, sizeof(cmd), "TMPDIR='%s' '%s' %s 2>/dev/null", priv, self, mode);
    f = popen(cmd, "r");
    assert_non_null(f);
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "dir: ", 5) == 0)
            snprintf(made, size, "%.*s", (int)strcspn(line + 5, "\n"), line + 5);
    st = pclose(f);
    assert_true(WIFEXITED(st));
    /* in the TMPDIR given, named as the tests name them */
    if (strncmp(made, priv, strlen(priv)) != 0 || strncmp(made + strlen(priv), "/ces_test_", 10))
        fail_msg("'%s %s' made '%s', not in its TMPDIR %s", self, mode, made, priv);
    if (stat(made, &sb) == 0)
        fail_msg("'%s %s' left %s behind", self, mode, made);
    assert_int_equal(rmdir(priv), 0);
    return WEXITSTATUS(st);
}

/* A test whose assertion fails before it removes its directory: the
 * program (exit 1, one test failed) leaves nothing in TMPDIR, what the
 * test made not even in a subdirectory it could not write; a child that
 * the test forked and that exited removed nothing of its parent's. */
static void test_failed_test_leaves_nothing(void **state)
{
    char made[512];

    (void)state;
    assert_int_equal(run_child("fails", made, sizeof(made)), 1);
}

/* A test that passes without removing its directory leaves nothing. */
static void test_passed_test_leaves_nothing(void **state)
{
    char made[512];

    (void)state;
    assert_int_equal(run_child("keeps", made, sizeof(made)), 0);
}

/* The longest TMPDIR the tests take, 64 characters, holds the socket of
 * the longest name ces_test_sock_path takes (its path 107 characters, the
 * most a Unix socket's holds); a longer one fails the test that asks for
 * a directory, naming the TMPDIR and the limit, before anything is made. */
static void test_long_tmpdir(void **state)
{
    char *dir = ces_test_tmpdir(), base[CES_TEST_TMP_BASE_MAX + 2], out[4096], want[512];
    size_t at = strlen(dir);

    (void)state;
    if (at + 2 > CES_TEST_TMP_BASE_MAX)
        skip(); /* a TMPDIR too long to make one of 64 characters in it */
    snprintf(base, sizeof(base), "%s/", dir);
    memset(base + at + 1, 'l', CES_TEST_TMP_BASE_MAX - at - 1);
    base[CES_TEST_TMP_BASE_MAX] = '\0';
    assert_int_equal(mkdir(base, 0700), 0);
    assert_int_equal(run_with(base, "sock", out, sizeof(out)), 0);
    if (strstr(out, "sock: ") == NULL)
        fail_msg("'%s sock' said %s", self, out);
    assert_int_equal(strcspn(strstr(out, "sock: ") + 6, "\n"), 107);
    assert_int_equal(rmdir(base), 0);
    /* one more: refused (a TMPDIR that does not exist: nothing is tried) */
    base[CES_TEST_TMP_BASE_MAX] = 'l';
    base[CES_TEST_TMP_BASE_MAX + 1] = '\0';
    assert_int_equal(run_with(base, "sock", out, sizeof(out)), 1);
    snprintf(want, sizeof(want),
             "TMPDIR %s is too long for the tests' paths (at most 64 characters)", base);
    if (strstr(out, want) == NULL)
        fail_msg("'%s sock' with a TMPDIR of 65 characters said %s", self, out);
    assert_int_equal(rmdir(dir), 0);
}

/* TMPDIR unset or empty is /tmp, as for the tool (core/dot.c); a
 * variable saved and restored is as it was, unset or set. */
static void test_tmp_base(void **state)
{
    char *saved = ces_test_env_save("TMPDIR"), *unset, *set;

    (void)state;
    assert_int_equal(unsetenv("CES_TEST_ENV"), 0);
    unset = ces_test_env_save("CES_TEST_ENV");
    assert_null(unset);
    assert_int_equal(setenv("CES_TEST_ENV", "a", 1), 0);
    set = ces_test_env_save("CES_TEST_ENV");
    assert_string_equal(set, "a");
    assert_int_equal(setenv("CES_TEST_ENV", "b", 1), 0);
    ces_test_env_restore("CES_TEST_ENV", set);
    assert_string_equal(getenv("CES_TEST_ENV"), "a");
    ces_test_env_restore("CES_TEST_ENV", unset);
    assert_null(getenv("CES_TEST_ENV"));
    assert_int_equal(setenv("TMPDIR", "", 1), 0);
    assert_string_equal(ces_test_tmp_base(), "/tmp");
    assert_int_equal(unsetenv("TMPDIR"), 0);
    assert_string_equal(ces_test_tmp_base(), "/tmp");
    assert_int_equal(setenv("TMPDIR", "/var/tmp", 1), 0);
    assert_string_equal(ces_test_tmp_base(), "/var/tmp");
    ces_test_env_restore("TMPDIR", saved);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest fails[] = {cmocka_unit_test(child_fails)};
    const struct CMUnitTest keeps[] = {cmocka_unit_test(child_keeps)};
    const struct CMUnitTest sock[] = {cmocka_unit_test(child_sock)};
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failed_test_leaves_nothing),
        cmocka_unit_test(test_passed_test_leaves_nothing),
        cmocka_unit_test(test_long_tmpdir),
        cmocka_unit_test(test_tmp_base),
    };

    self = argv[0];
    if (argc == 2 && strcmp(argv[1], "fails") == 0)
        return cmocka_run_group_tests(fails, NULL, NULL);
    if (argc == 2 && strcmp(argv[1], "keeps") == 0)
        return cmocka_run_group_tests(keeps, NULL, NULL);
    if (argc == 2 && strcmp(argv[1], "sock") == 0)
        return cmocka_run_group_tests(sock, NULL, NULL);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
