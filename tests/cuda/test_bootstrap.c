/*
 * tests/cuda/test_bootstrap.c - the Unix-socket bootstrap (bootstrap.c)
 * without a GPU: 3 forked ranks join, allgather bytes and file descriptors
 * (SCM_RIGHTS), barrier; a missing rank times out with a message naming it;
 * a vanished peer is reported as failed; a rank's failure record on the
 * progress page ends an exchange at once; poll's timeout saturates at
 * INT_MAX ms; an abstract name ('@name') joins ranks without a file, its
 * length is bounded and a name another socket holds is refused.
 */
#include "ces_test.h"
#include "runtime.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A socket path of its own, in a new directory in TMPDIR (gone at exit). */
static void sock_path(char *buf, size_t n, const char *tag)
{
    char name[32];

    snprintf(name, sizeof(name), "%s.sock", tag);
    ces_test_sock_path(buf, n, name);
}

/* An abstract name, '@' and the name (no file). */
static void abstract_name(char *buf, size_t n, const char *tag)
{
    snprintf(buf, n, "@ces-boot-%ld-%s", (long)getpid(), tag);
}

/* Child body: join, exchange (rank*10 + a descriptor of a file holding the
 * rank), check everything, barrier.  Returns the exit code. */
static int child(const char *path, uint32_t rank, uint32_t size)
{
    struct ces_ctx *ctx = NULL;
    struct ces_boot b;
    uint32_t mine = rank * 10, all[8];
    int fds[8], p[1] = {ces_test_tmpfile()}, bad = 0;

    if (ces_ctx_create(NULL, &ctx) != CES_OK || p[0] < 0)
        return 10;
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
        /* every one is the caller's to close: its own is another descriptor */
        if (fds[r] == p[0])
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
 * refused message is closed, not leaked, while rank 0's own, which it was
 * to pass on, stays open (it is the caller's).  ces_boot_close then closes
 * the connection: no descriptor is left of the bootstrap. */
static void test_malformed_closes_fds(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_boot b;
    char path[128];
    uint32_t all[2], one = 1;
    pid_t pid;
    int s = 0, before, unopened, mine;

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
    mine = open("/dev/null", O_RDONLY | O_CLOEXEC);
    assert_true(mine >= 0);
    unopened = open_fds();
    assert_int_equal(ces_boot_open(ctx, &b, path, 0, 2, 5000), CES_OK);
    before = open_fds();
    assert_int_equal(ces_boot_allgather(ctx, &b, &one, sizeof(one), mine, all, NULL),
                     CES_ERR_SYSTEM);
    assert_int_equal(open_fds(), before);
    assert_true(fcntl(mine, F_GETFD) != -1);
    ces_boot_close(ctx, &b);
    assert_int_equal(open_fds(), unopened);
    close(mine);
    assert_int_equal(waitpid(pid, &s, 0), pid);
    ces_test_ctx_end(ctx, &st);
}

/* The progress page of two ranks (zeroed), shared with the children
 * forked after. */
static struct ces_progress_rank *shared_page(void)
{
    int fd = ces_test_tmpfile();
    void *p;

    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 2 * sizeof(struct ces_progress_rank)), 0);
    p = mmap(NULL, 2 * sizeof(struct ces_progress_rank), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
             0);
    close(fd);
    assert_true(p != MAP_FAILED);
    return p;
}

/* Reads until the other end of the pipe is closed (the parent is done). */
static void await_close(int fd)
{
    char c;

    while (read(fd, &c, 1) > 0)
        ;
}

/* A rank failed before an exchange: its failure record (the page's
 * `failed`) is set, it never sends its row, and its process lives on, so
 * no connection closes.  Rank 0 waited for the row until its deadline and
 * returned CES_ERR_TIMEOUT; now it returns CES_ERR_PEER_FAILED naming rank
 * 1 at its first wait.  Rank 1's own exchange returns its own failure
 * (CES_ERR_CUDA here) rather than sending its row. */
static void test_failure_record_before_the_exchange(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_progress_rank *page = shared_page();
    struct ces_boot b;
    char path[128], c = 0;
    int ready[2], done[2], s = 0;
    pid_t pid;

    (void)state;
    sock_path(path, sizeof(path), "failed");
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(done), 0);
    pid = fork();
    if (pid == 0) {
        struct ces_ctx *c2 = NULL;
        struct ces_boot b2;
        int code = 0;

        close(ready[0]);
        close(done[1]);
        ces_ctx_create(NULL, &c2);
        if (ces_boot_open(c2, &b2, path, 1, 2, 1000) != CES_OK)
            _exit(1);
        b2.page = page;
        atomic_store(&page[1].failed, (uint64_t)(-CES_ERR_CUDA));
        if (ces_boot_barrier(c2, &b2) != CES_ERR_CUDA)
            code = 2;
        else if (strcmp(ces_ctx_last_error(c2), "bootstrap: rank 1 (this rank) failed, which "
                                                "ends the exchange") != 0)
            code = 3;
        if (write(ready[1], &c, 1) != 1)
            code = 4;
        await_close(done[0]);
        _exit(code);
    }
    close(ready[1]);
    close(done[0]);
    assert_int_equal(ces_boot_open(ctx, &b, path, 0, 2, 1000), CES_OK);
    b.page = page;
    assert_int_equal(read(ready[0], &c, 1), 1);
    assert_int_equal(ces_boot_barrier(ctx, &b), CES_ERR_PEER_FAILED);
    assert_string_equal(ces_ctx_last_error(ctx), "bootstrap: rank 1 failed, which ends the "
                                                 "exchange");
    close(done[1]);
    assert_int_equal(waitpid(pid, &s, 0), pid);
    assert_true(WIFEXITED(s));
    assert_int_equal(WEXITSTATUS(s), 0);
    ces_boot_close(ctx, &b);
    close(ready[0]);
    munmap(page, 2 * sizeof(struct ces_progress_rank));
    ces_test_ctx_end(ctx, &st);
}

/* Rank 0 fails during an exchange, once rank 1's row has reached it: rank
 * 1, waiting for the table, returned CES_ERR_TIMEOUT at its deadline; now
 * CES_ERR_PEER_FAILED naming rank 0, within a look at the page (its poll
 * is cut to BOOT_LOOK_MS: a wait of the whole 5 s deadline before the
 * look is too late). */
static void test_failure_record_during_the_exchange(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_progress_rank *page = shared_page();
    struct ces_boot b;
    char path[128];
    int done[2], s = 0;
    uint64_t t0;
    pid_t pid;

    (void)state;
    sock_path(path, sizeof(path), "failing");
    assert_int_equal(pipe(done), 0);
    pid = fork();
    if (pid == 0) {
        struct ces_ctx *c2 = NULL;
        struct ces_boot b2;
        struct pollfd p;

        close(done[1]);
        ces_ctx_create(NULL, &c2);
        if (ces_boot_open(c2, &b2, path, 0, 2, 1000) != CES_OK)
            _exit(1);
        p.fd = b2.peers[1];
        p.events = POLLIN;
        if (poll(&p, 1, 10000) != 1) /* rank 1's row is in */
            _exit(2);
        atomic_store(&page[0].failed, (uint64_t)(-CES_ERR_TIMEOUT));
        await_close(done[0]);
        _exit(0);
    }
    close(done[0]);
    assert_int_equal(ces_boot_open(ctx, &b, path, 1, 2, 5000), CES_OK);
    b.page = page;
    t0 = ces_cuda_now_ms();
    assert_int_equal(ces_boot_barrier(ctx, &b), CES_ERR_PEER_FAILED);
    assert_true(ces_cuda_now_ms() - t0 < 2500); /* not at the 5 s deadline */
    assert_string_equal(ces_ctx_last_error(ctx), "bootstrap: rank 0 failed, which ends the "
                                                 "exchange");
    close(done[1]);
    assert_int_equal(waitpid(pid, &s, 0), pid);
    assert_true(WIFEXITED(s));
    assert_int_equal(WEXITSTATUS(s), 0);
    ces_boot_close(ctx, &b);
    munmap(page, 2 * sizeof(struct ces_progress_rank));
    ces_test_ctx_end(ctx, &st);
}

/* Which failure record names the failure, rank 1 of 3 waiting in a
 * barrier (its socket's other end never answers): a rank failed with
 * CES_ERR_PEER_FAILED was failed by another's record, so the lowest rank
 * failed otherwise is named; then the lowest of any; this rank's own
 * record, where it names a cause, comes first.  (Rank 1 waited until its
 * deadline and returned CES_ERR_TIMEOUT.) */
static void test_failure_record_named(void **state)
{
    static const struct {
        int64_t failed[3]; /* each rank's status, 0: none */
        int status;
        const char *msg;
    } cases[] = {
        {{CES_ERR_PEER_FAILED, 0, CES_ERR_CUDA}, CES_ERR_PEER_FAILED,
         "bootstrap: rank 2 failed, which ends the exchange"},
        {{CES_ERR_PEER_FAILED, CES_ERR_PEER_FAILED, CES_ERR_PEER_FAILED}, CES_ERR_PEER_FAILED,
         "bootstrap: rank 0 failed, which ends the exchange"},
        {{0, CES_ERR_PEER_FAILED, CES_ERR_TIMEOUT}, CES_ERR_PEER_FAILED,
         "bootstrap: rank 2 failed, which ends the exchange"},
        {{0, CES_ERR_PEER_FAILED, 0}, CES_ERR_PEER_FAILED,
         "bootstrap: rank 1 (this rank) failed, which ends the exchange"},
        {{CES_ERR_CUDA, CES_ERR_TIMEOUT, 0}, CES_ERR_TIMEOUT,
         "bootstrap: rank 1 (this rank) failed, which ends the exchange"},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_progress_rank page[3];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ces_boot b;
        int sv[2];

        assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
        memset(&b, 0, sizeof(b));
        memset(page, 0, sizeof(page));
        b.rank = 1;
        b.size = 3;
        b.fd = sv[0];
        b.timeout_ms = 200;
        b.page = page;
        for (uint32_t r = 0; r < 3; r++)
            atomic_store(&page[r].failed, (uint64_t)(-cases[i].failed[r]));
        assert_int_equal(ces_boot_barrier(ctx, &b), cases[i].status);
        assert_string_equal(ces_ctx_last_error(ctx), cases[i].msg);
        ces_boot_close(ctx, &b);
        close(sv[1]);
    }
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

/* A child that joins rank 0 at `path` as rank `rank` of `size`, then waits
 * until the parent closes its end of `done` (its connection stays open
 * meanwhile).  Its pid. */
static pid_t joiner(const char *path, uint32_t rank, uint32_t size, const int *done)
{
    pid_t pid = fork();

    if (pid == 0) {
        struct ces_ctx *c2 = NULL;
        struct ces_boot b2;
        int code;

        close(done[1]);
        ces_ctx_create(NULL, &c2);
        code = ces_boot_open(c2, &b2, path, rank, size, 5000) == CES_OK ? 0 : 1;
        await_close(done[0]);
        _exit(code);
    }
    return pid;
}

/* Processes that join as a rank this communicator does not have: one of
 * another size, one numbered past the last rank, a rank that joins twice.
 * Rank 0 refuses each with CES_ERR_INVALID, naming what joined. */
static void test_join_refused(void **state)
{
    static const struct {
        uint32_t size;        /* rank 0's */
        uint32_t joins[2][2]; /* rank, size of each joiner; size 0: none */
        const char *msg;
    } cases[] = {
        {2, {{1, 3}, {0, 0}},
         "bootstrap: a process joined as rank 1 of 3 but this communicator has 2 ranks (or that "
         "rank joined twice)"},
        {2, {{2, 2}, {0, 0}},
         "bootstrap: a process joined as rank 2 of 2 but this communicator has 2 ranks (or that "
         "rank joined twice)"},
        {3, {{1, 3}, {1, 3}},
         "bootstrap: a process joined as rank 1 of 3 but this communicator has 3 ranks (or that "
         "rank joined twice)"},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ces_boot b;
        char path[128], tag[16];
        int done[2];
        pid_t pids[2] = {-1, -1};

        snprintf(tag, sizeof(tag), "join%zu", i);
        sock_path(path, sizeof(path), tag);
        assert_int_equal(pipe(done), 0);
        for (int k = 0; k < 2; k++)
            if (cases[i].joins[k][1] != 0)
                pids[k] = joiner(path, cases[i].joins[k][0], cases[i].joins[k][1], done);
        close(done[0]);
        assert_int_equal(ces_boot_open(ctx, &b, path, 0, cases[i].size, 5000), CES_ERR_INVALID);
        assert_string_equal(ces_ctx_last_error(ctx), cases[i].msg);
        assert_int_equal(access(path, F_OK), -1); /* the socket file is gone */
        close(done[1]);
        for (int k = 0; k < 2; k++)
            if (pids[k] > 0)
                assert_int_equal(waitpid(pids[k], NULL, 0), pids[k]);
    }
    ces_test_ctx_end(ctx, &st);
}

/* Rank 2 of 3 joined, rank 1 never came: the timeout names rank 1 alone. */
static void test_missing_one_of_two(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_boot b;
    char path[128], want[256];
    int done[2];
    pid_t pid;

    (void)state;
    sock_path(path, sizeof(path), "miss1");
    assert_int_equal(pipe(done), 0);
    pid = joiner(path, 2, 3, done);
    close(done[0]);
    assert_int_equal(ces_boot_open(ctx, &b, path, 0, 3, 500), CES_ERR_TIMEOUT);
    snprintf(want, sizeof(want),
             "bootstrap: timed out after 500 ms waiting for ranks to join at '%s'; missing: 1",
             path);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    close(done[1]);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    ces_test_ctx_end(ctx, &st);
}

/* A socket file left at the path by a rank 0 that died: a rank that comes
 * first is refused there (ECONNREFUSED) and tries again until rank 0
 * comes, which takes the path over; both join, and rank 0 leaves no file
 * behind. */
static void test_stale_socket_file(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_boot b;
    struct sockaddr_un addr;
    char path[128];
    int fd, s = 0;
    pid_t pid;

    (void)state;
    sock_path(path, sizeof(path), "stale");
    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    assert_true(strlen(path) < sizeof(addr.sun_path));
    memcpy(addr.sun_path, path, strlen(path) + 1);
    fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
    close(fd); /* the file stays, nobody listens */
    pid = fork();
    if (pid == 0) {
        struct ces_ctx *c2 = NULL;
        struct ces_boot b2;
        int code = 0;

        ces_ctx_create(NULL, &c2);
        if (ces_boot_open(c2, &b2, path, 1, 2, 5000) != CES_OK)
            code = 1;
        else if (ces_boot_barrier(c2, &b2) != CES_OK)
            code = 2;
        _exit(code);
    }
    ces_test_sleep_ms(200); /* rank 1 is refused meanwhile */
    assert_int_equal(ces_boot_open(ctx, &b, path, 0, 2, 5000), CES_OK);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(ces_boot_barrier(ctx, &b), CES_OK);
    assert_int_equal(waitpid(pid, &s, 0), pid);
    assert_true(WIFEXITED(s));
    assert_int_equal(WEXITSTATUS(s), 0);
    ces_boot_close(ctx, &b);
    ces_test_ctx_end(ctx, &st);
}

/* A path that does not fit a socket address (107 bytes and its NUL) is
 * refused; 107 bytes are taken. */
static void test_path_length(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct sockaddr_un addr;
    struct ces_boot b;
    char path[sizeof(addr.sun_path) + 1], want[320];
    size_t n;

    (void)state;
    sock_path(path, sizeof(path), "");
    n = strlen(path);
    memset(path + n, 'x', sizeof(path) - 1 - n);
    path[sizeof(path) - 1] = '\0'; /* 108 bytes */
    assert_int_equal(ces_boot_open(ctx, &b, path, 0, 1, 1000), CES_ERR_INVALID);
    snprintf(want, sizeof(want), "bootstrap path '%s' is longer than 107 bytes", path);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    path[sizeof(path) - 2] = '\0'; /* 107 bytes */
    assert_int_equal(ces_boot_open(ctx, &b, path, 0, 1, 1000), CES_OK);
    assert_int_equal(access(path, F_OK), -1);
    ces_boot_close(ctx, &b);
    ces_test_ctx_end(ctx, &st);
}

/* Rank 0 gone (its connection closed) before rank 1 sends its row: the
 * send fails, and rank 1 returns CES_ERR_PEER_FAILED naming rank 0. */
static void test_rank0_gone_before_the_row(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_boot b;
    char path[128];
    uint32_t all[2], one = 1;
    int s = 0;
    pid_t pid;

    (void)state;
    sock_path(path, sizeof(path), "gone0");
    pid = fork();
    if (pid == 0) {
        struct ces_ctx *c2 = NULL;
        struct ces_boot b2;

        ces_ctx_create(NULL, &c2);
        _exit(ces_boot_open(c2, &b2, path, 0, 2, 5000) == CES_OK ? 0 : 1); /* then vanish */
    }
    assert_int_equal(ces_boot_open(ctx, &b, path, 1, 2, 5000), CES_OK);
    assert_int_equal(waitpid(pid, &s, 0), pid);
    assert_int_equal(WEXITSTATUS(s), 0);
    assert_int_equal(ces_boot_allgather(ctx, &b, &one, sizeof(one), -1, all, NULL),
                     CES_ERR_PEER_FAILED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "bootstrap: rank 0 has gone (connection closed)");
    ces_boot_close(ctx, &b);
    ces_test_ctx_end(ctx, &st);
}

/* The header of a bootstrap message, as bootstrap.c lays it out. */
struct wire_hdr {
    uint32_t magic, rank, size, nfds;
    uint64_t len;
};

/* A child that connects to `path` as another program would and sends one
 * message: the header `h` and `n` bytes of `payload`; then waits until the
 * parent closes its end of `done`. */
static pid_t foreign_joiner(const char *path, struct wire_hdr h, const void *payload, size_t n,
                            const int *done)
{
    pid_t pid = fork();

    if (pid == 0) {
        struct sockaddr_un addr;
        struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)(uintptr_t)payload, n}};
        struct msghdr m;
        int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0), code = 0;

        close(done[1]);
        memset(&addr, 0, sizeof(addr));
        addr.sun_family = AF_UNIX;
        assert_true(strlen(path) < sizeof(addr.sun_path));
        memcpy(addr.sun_path, path, strlen(path) + 1);
        for (int i = 0; connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0; i++) {
            if (i == 500)
                _exit(1);
            ces_test_sleep_ms(10);
        }
        memset(&m, 0, sizeof(m));
        m.msg_iov = iov;
        m.msg_iovlen = 2;
        if (sendmsg(fd, &m, 0) != (ssize_t)(sizeof(h) + n))
            code = 2;
        await_close(done[0]);
        _exit(code);
    }
    return pid;
}

/* A process that joins with a message of another program: a header
 * without the bootstrap's magic number, or a payload shorter than its
 * header says.  Rank 0 refuses it as malformed, with CES_ERR_SYSTEM. */
static void test_foreign_join_refused(void **state)
{
    const uint32_t who[2] = {1, 2};
    static const struct {
        uint32_t magic;
        size_t sent; /* payload bytes sent; the header says 8 */
        size_t total;
    } cases[] = {{0x63657332u, 8, 32}, {0x63657331u, 4, 28}};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct wire_hdr h = {cases[i].magic, 1, 2, 0, sizeof(who)};
        struct ces_boot b;
        char path[128], tag[16], want[200];
        int done[2];
        pid_t pid;

        snprintf(tag, sizeof(tag), "foreign%zu", i);
        sock_path(path, sizeof(path), tag);
        assert_int_equal(pipe(done), 0);
        pid = foreign_joiner(path, h, who, cases[i].sent, done);
        close(done[0]);
        assert_int_equal(ces_boot_open(ctx, &b, path, 0, 2, 5000), CES_ERR_SYSTEM);
        snprintf(want, sizeof(want),
                 "bootstrap: malformed message from rank 1 (%zu bytes; do all ranks run the "
                 "same program?)",
                 cases[i].total);
        assert_string_equal(ces_ctx_last_error(ctx), want);
        close(done[1]);
        assert_int_equal(waitpid(pid, NULL, 0), pid);
    }
    ces_test_ctx_end(ctx, &st);
}

/* Whether /proc/net/unix lists a socket at `name` exactly, its last field
 * (an abstract name as '@' and the name, a NUL within or after it as '@':
 * an address padded past the name lists '@'s after it). */
static int unix_listed(const char *name)
{
    FILE *f = fopen("/proc/net/unix", "r");
    char line[1024];
    int found = 0;

    assert_non_null(f);
    while (!found && fgets(line, sizeof(line), f) != NULL) {
        char *end = line + strcspn(line, "\n"), *last;

        *end = '\0';
        last = strrchr(line, ' ');
        found = last != NULL && strcmp(last + 1, name) == 0;
    }
    fclose(f);
    return found;
}

/* How many entries of directory dir (but . and ..) hold `needle` in their
 * names ("" counts them all). */
static int entries_with(const char *dir, const char *needle)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            strstr(e->d_name, needle) != NULL)
            n++;
    closedir(d);
    return n;
}

/* An abstract name ('@' and the name): 3 forked ranks join and exchange
 * over it as over a path (child), and nothing is made in the file system
 * for it, neither where the ranks run (a directory of their own, empty)
 * nor in /tmp, while rank 0 waits for the others (ranks 1 and 2 come once
 * the parent has looked) or after.  /proc/net/unix lists the name as it
 * is meanwhile: the address as long as the name, no NUL padding after it.
 * (The name was taken for a path relative to the working directory: the
 * socket file stood there until every rank had joined.) */
static void test_abstract_join(void **state)
{
    char name[128], *dir = ces_test_tmpdir();
    int go[2], listed = 0, files_while = -1, tmp_while = -1;
    pid_t pids[3];

    (void)state;
    abstract_name(name, sizeof(name), "join");
    assert_int_equal(pipe(go), 0);
    for (uint32_t r = 0; r < 3; r++) {
        pids[r] = fork();
        if (pids[r] == 0) {
            char c;

            close(go[1]);
            if (chdir(dir) != 0)
                _exit(20);
            if (r > 0 && read(go[0], &c, 1) != 0)
                _exit(21);
            _exit(child(name, r, 3));
        }
    }
    close(go[0]);
    for (int i = 0; i < 500 && !listed; i++) {
        listed = unix_listed(name);
        if (!listed)
            ces_test_sleep_ms(10);
    }
    if (listed) {
        files_while = entries_with(dir, "");
        tmp_while = entries_with("/tmp", name + 1);
    }
    close(go[1]); /* ranks 1 and 2 join */
    for (uint32_t r = 0; r < 3; r++) {
        int st = 0;

        assert_int_equal(waitpid(pids[r], &st, 0), pids[r]);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
    assert_true(listed);
    assert_int_equal(files_while, 0);
    assert_int_equal(tmp_while, 0);
    assert_int_equal(entries_with(dir, ""), 0);
    assert_int_equal(entries_with("/tmp", name + 1), 0);
    assert_false(unix_listed(name));
    assert_int_equal(rmdir(dir), 0);
}

/* An abstract name has the 107 bytes of sun_path after its first (the NUL
 * that marks it abstract), and no NUL of its own: '@' and 107 bytes are
 * taken, '@' and 108 refused; '@' alone, an empty name, is refused. */
static void test_abstract_name_length(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct sockaddr_un addr;
    struct ces_boot b;
    char name[sizeof(addr.sun_path) + 2], want[320];
    size_t n;

    (void)state;
    abstract_name(name, sizeof(name), "");
    n = strlen(name);
    memset(name + n, 'x', sizeof(name) - 1 - n);
    name[sizeof(name) - 1] = '\0'; /* '@' and 108 bytes */
    assert_int_equal(ces_boot_open(ctx, &b, name, 0, 1, 1000), CES_ERR_INVALID);
    snprintf(want, sizeof(want),
             "bootstrap abstract name '%s' is longer than 107 bytes after the '@'", name);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    name[sizeof(name) - 2] = '\0'; /* '@' and 107 bytes */
    assert_int_equal(ces_boot_open(ctx, &b, name, 0, 1, 1000), CES_OK);
    assert_int_equal(access(name, F_OK), -1);
    ces_boot_close(ctx, &b);
    assert_int_equal(ces_boot_open(ctx, &b, "@", 0, 1, 1000), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "bootstrap abstract name '@' is empty: a name follows the '@'");
    assert_int_equal(access("@", F_OK), -1);
    ces_test_ctx_end(ctx, &st);
}

/* An abstract name that another live socket holds: no file to take over,
 * as a path's stale one is (test_stale_socket_file), so rank 0 refuses
 * it, CES_ERR_SYSTEM naming it; once the holder has closed, the name is
 * taken. */
static void test_abstract_name_in_use(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct sockaddr_un addr;
    struct ces_boot b;
    char name[128], want[256];
    socklen_t len;
    int fd;

    (void)state;
    abstract_name(name, sizeof(name), "held");
    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path + 1, name + 1, strlen(name) - 1);
    len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name));
    fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&addr, len), 0);
    assert_int_equal(listen(fd, 1), 0);
    assert_int_equal(ces_boot_open(ctx, &b, name, 0, 2, 1000), CES_ERR_SYSTEM);
    snprintf(want, sizeof(want),
             "bootstrap: cannot listen on '%s': another socket holds that abstract name "
             "(EADDRINUSE)",
             name);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    close(fd);
    assert_int_equal(ces_boot_open(ctx, &b, name, 0, 1, 1000), CES_OK);
    ces_boot_close(ctx, &b);
    ces_test_ctx_end(ctx, &st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allgather_fds),
        cmocka_unit_test(test_missing_rank),
        cmocka_unit_test(test_peer_gone),
        cmocka_unit_test(test_malformed_closes_fds),
        cmocka_unit_test(test_failure_record_before_the_exchange),
        cmocka_unit_test(test_failure_record_during_the_exchange),
        cmocka_unit_test(test_failure_record_named),
        cmocka_unit_test(test_poll_timeout),
        cmocka_unit_test(test_join_refused),
        cmocka_unit_test(test_missing_one_of_two),
        cmocka_unit_test(test_stale_socket_file),
        cmocka_unit_test(test_path_length),
        cmocka_unit_test(test_rank0_gone_before_the_row),
        cmocka_unit_test(test_foreign_join_refused),
        cmocka_unit_test(test_abstract_join),
        cmocka_unit_test(test_abstract_name_length),
        cmocka_unit_test(test_abstract_name_in_use),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
