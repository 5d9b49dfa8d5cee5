/*
 * tests/cuda/test_bootstrap.c - the Unix-socket bootstrap (bootstrap.c)
 * without a GPU: 3 forked ranks join, allgather bytes and file descriptors
 * (SCM_RIGHTS), barrier; a missing rank times out with a message naming it;
 * a vanished peer is reported as failed; poll's timeout saturates at
 * INT_MAX ms.
 */
#include "ces_test.h"
#include "runtime.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void sock_path(char *buf, size_t n, const char *tag)
{
    snprintf(buf, n, "/tmp/ces-boot-%ld-%s.sock", (long)getpid(), tag);
}

/* Child body: join, exchange (rank*10 + a descriptor of a file holding the
 * rank), check everything, barrier.  Returns the exit code. */
static int child(const char *path, uint32_t rank, uint32_t size)
{
    struct ces_ctx *ctx = NULL;
    struct ces_boot b;
    uint32_t mine = rank * 10, all[8];
    int fds[8], p[1], bad = 0;
    char tmp[] = "/tmp/ces-boot-fd-XXXXXX";

    p[0] = mkstemp(tmp);
    if (ces_ctx_create(NULL, &ctx) != CES_OK || p[0] < 0)
        return 10;
    unlink(tmp);
    if (write(p[0], &rank, sizeof(rank)) != (ssize_t)sizeof(rank))
        return 11;
    if (ces_boot_open(ctx, &b, path, rank, size, 5000) != CES_OK)
        return 12;
    if (ces_boot_allgather(ctx, &b, &mine, sizeof(mine), p[0], all, fds) != CES_OK)
        return 13;
    for (uint32_t r = 0; r < size; r++) {
        uint32_t got = 99;

        bad |= all[r] != r * 10;
        if (fds[r] < 0 || pread(fds[r], &got, sizeof(got), 0) != (ssize_t)sizeof(got) || got != r)
            bad = 1;
        if (fds[r] >= 0)
            close(fds[r]);
    }
    close(p[0]);
    if (ces_boot_barrier(ctx, &b) != CES_OK)
        bad = 1;
    ces_boot_close(ctx, &b);
    ces_ctx_destroy(ctx);
    return bad ? 14 : 0;
}

static void test_allgather_fds(void **state)
{
    char path[128];
    pid_t pids[3];

    (void)state;
    sock_path(path, sizeof(path), "ok");
    for (uint32_t r = 0; r < 3; r++) {
        pids[r] = fork();
        if (pids[r] == 0)
            _exit(child(path, r, 3));
    }
    for (uint32_t r = 0; r < 3; r++) {
        int st = 0;

        assert_int_equal(waitpid(pids[r], &st, 0), pids[r]);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
}

static void test_missing_rank(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_boot b;
    char path[128], want[256];

    (void)state;
    sock_path(path, sizeof(path), "miss");
    assert_int_equal(ces_boot_open(ctx, &b, path, 0, 3, 200), CES_ERR_TIMEOUT);
    snprintf(want, sizeof(want),
             "bootstrap: timed out after 200 ms waiting for ranks to join at '%s'; missing: 1 2",
             path);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    /* A rank whose rank 0 never comes. */
    assert_int_equal(ces_boot_open(ctx, &b, path, 2, 3, 100), CES_ERR_TIMEOUT);
    snprintf(want, sizeof(want),
             "bootstrap: timed out after 100 ms connecting to rank 0 at '%s' (is rank 0 "
             "running?)",
             path);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    ces_test_ctx_end(ctx, &st);
}

static void test_peer_gone(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_boot b;
    char path[128];
    uint32_t all[2], one = 1;
    pid_t pid;
    int s = 0;

    (void)state;
    sock_path(path, sizeof(path), "gone");
    pid = fork();
    if (pid == 0) {
        struct ces_ctx *c2 = NULL;
        struct ces_boot b2;

        ces_ctx_create(NULL, &c2);
        _exit(ces_boot_open(c2, &b2, path, 1, 2, 5000) == CES_OK ? 0 : 1); /* then vanish */
    }
    assert_int_equal(ces_boot_open(ctx, &b, path, 0, 2, 5000), CES_OK);
    assert_int_equal(waitpid(pid, &s, 0), pid);
    assert_int_equal(ces_boot_allgather(ctx, &b, &one, sizeof(one), -1, all, NULL),
                     CES_ERR_PEER_FAILED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "bootstrap: rank 1 has gone (connection closed)");
    ces_boot_close(ctx, &b);
    ces_test_ctx_end(ctx, &st);
}

static int open_fds(void)
{
    int n = 0;

    for (int fd = 0; fd < 1024; fd++)
        n += fcntl(fd, F_GETFD) != -1;
    return n;
}

/* A peer whose message has another length (another program) and carries a
 * descriptor: the allgather fails, and the descriptor received with the
 * refused message is closed, not leaked. */
static void test_malformed_closes_fds(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_boot b;
    char path[128];
    uint32_t all[2], one = 1;
    pid_t pid;
    int s = 0, before;

    (void)state;
    sock_path(path, sizeof(path), "bad");
    pid = fork();
    if (pid == 0) {
        struct ces_ctx *c2 = NULL;
        struct ces_boot b2;
        uint64_t wrong[2] = {1, 2}, got[4];

        ces_ctx_create(NULL, &c2);
        if (ces_boot_open(c2, &b2, path, 1, 2, 5000) != CES_OK)
            _exit(1);
        /* 16 bytes where rank 0 expects 4, with stdin's descriptor */
        ces_boot_allgather(c2, &b2, wrong, sizeof(wrong), 0, got, NULL);
        _exit(0);
    }
    assert_int_equal(ces_boot_open(ctx, &b, path, 0, 2, 5000), CES_OK);
    before = open_fds();
    assert_int_equal(ces_boot_allgather(ctx, &b, &one, sizeof(one), -1, all, NULL),
                     CES_ERR_SYSTEM);
    assert_int_equal(open_fds(), before);
    ces_boot_close(ctx, &b);
    assert_int_equal(waitpid(pid, &s, 0), pid);
    ces_test_ctx_end(ctx, &st);
}

/* poll's timeout for a deadline: CES_TIMEOUT_MS is taken up to UINT32_MAX,
 * and the wait's (int)(deadline - now) turned one above INT_MAX ms
 * negative, which poll takes as no timeout: a rank that never came was
 * waited for forever.  Now it saturates at INT_MAX (the wait polls again
 * until the deadline), and a deadline passed gives 0. */
static void test_poll_timeout(void **state)
{
    const uint64_t now = UINT64_C(1) << 40;

    (void)state;
    assert_int_equal(ces_boot_poll_ms(now, now + 200), 200);
    assert_int_equal(ces_boot_poll_ms(now, now + INT_MAX), INT_MAX);
    assert_int_equal(ces_boot_poll_ms(now, now + (uint64_t)INT_MAX + 1), INT_MAX);
    assert_int_equal(ces_boot_poll_ms(now, now + UINT32_MAX), INT_MAX);
    assert_int_equal(ces_boot_poll_ms(now, now + UINT32_MAX + UINT64_C(1000)), INT_MAX);
    assert_int_equal(ces_boot_poll_ms(now, now), 0);
    assert_int_equal(ces_boot_poll_ms(now, now - 1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allgather_fds),
        cmocka_unit_test(test_missing_rank),
        cmocka_unit_test(test_peer_gone),
        cmocka_unit_test(test_malformed_closes_fds),
        cmocka_unit_test(test_poll_timeout),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
