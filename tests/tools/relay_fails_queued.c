/*
 * tests/tools/relay_fails_queued.c - preloaded (LD_PRELOAD) into `cesync`
 * by tools_test_main's test_stdout_relay_fails_queued, where standard
 * output and error are two O_NONBLOCK sockets, each stood in for by a pipe
 * of its own (a relay), and the command starts no program: read(2) of a
 * close-on-exec pipe other than the one under number 2 (standard output's,
 * whether or not the command's end has put the socket back under 1) fails
 * with EIO once standard error's relay is reading what the command said
 * there, and that read waits until the failure (each wait up to 10 s) and
 * 0.5 s more: the failure comes while a line on standard error is queued
 * in its relay, and is said, where nothing waits for that line, before it.
 * From the failure on, each read of standard error's pipe writes "more"
 * into it again, as a program that writes there without pause keeps it
 * from being found empty.  Every other read is read as it would be
 * (readv).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static atomic_int said;   /* standard error's relay is reading */
static atomic_int failed; /* standard output's read failed */

/* Whether fd is a pipe, and the one under number 2 (its other end). */
static bool is_pipe(int fd, bool under_2)
{
    struct stat a, b;

    return fstat(fd, &a) == 0 && S_ISFIFO(a.st_mode) &&
           (fstat(STDERR_FILENO, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) ==
               under_2;
}

/* Waits until *flag is set, up to 10 s. */
static void wait_for(atomic_int *flag)
{
    struct timespec tick = {0, 10000000};

    for (int i = 0; i < 1000 && !atomic_load(flag); i++)
        nanosleep(&tick, NULL);
}

ssize_t read(int fd, void *buf, size_t len)
{
    struct timespec half = {0, 500000000};
    struct iovec v;
    int flags = fcntl(fd, F_GETFD);
    ssize_t n;

    if (flags >= 0 && (flags & FD_CLOEXEC) != 0 && is_pipe(fd, false)) {
        wait_for(&said);
        atomic_store(&failed, 1);
        errno = EIO;
        return -1;
    }
    if (is_pipe(fd, true) && !atomic_load(&failed)) {
        atomic_store(&said, 1);
        wait_for(&failed);
        nanosleep(&half, NULL);
    }
    v.iov_base = buf;
    v.iov_len = len;
    n = readv(fd, &v, 1);
    if (n > 0 && atomic_load(&failed) && is_pipe(fd, true) &&
        write(STDERR_FILENO, "more\n", 5) != 5)
        return -1;
    return n;
}
