/*
 * tests/tools/relay_fails_ended.c - preloaded (LD_PRELOAD) into `cesync`
 * by tools_test_main's test_stdout_relay_fails_ended, where standard
 * output and error are an O_NONBLOCK socket that a pipe (a relay) stands
 * in for: once the command's end has put the socket back under number 1,
 * read(2) of a close-on-exec pipe fails with EIO where the pipe holds
 * nothing (the read that would say its end) or the process is exiting
 * (its exit status decided); and the exit waits (after the command's own
 * handlers, up to 10 s) for such a read to have failed, and 0.5 s more:
 * the relay's thread fails before the process ends.  Once that wait
 * starts it makes the file CES_ENDED_MARK names, where it names one, so
 * that a child writes only then.  Every other read is read as it would
 * be (readv).  Its children run without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static atomic_int exiting; /* the command's own exit handlers ran */
static atomic_int failed;  /* a read failed */

static void linger(void)
{
    struct timespec tick = {0, 10000000}, half = {0, 500000000};
    const char *mark = getenv("CES_ENDED_MARK");

    atomic_store(&exiting, 1);
    if (mark != NULL)
        close(open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    for (int i = 0; i < 1000 && !atomic_load(&failed); i++)
        nanosleep(&tick, NULL);
    nanosleep(&half, NULL);
}

/* (registered before main's handlers: run after them) */
__attribute__((constructor)) static void start(void)
{
    unsetenv("LD_PRELOAD");
    atexit(linger);
}

ssize_t read(int fd, void *buf, size_t len)
{
    struct iovec v;
    struct stat sb, out;
    int flags = fcntl(fd, F_GETFD), held = -1;

    if (flags >= 0 && (flags & FD_CLOEXEC) != 0 && fstat(fd, &sb) == 0 &&
        S_ISFIFO(sb.st_mode) && fstat(STDOUT_FILENO, &out) == 0 && !S_ISFIFO(out.st_mode) &&
        ((ioctl(fd, FIONREAD, &held) == 0 && held == 0) || atomic_load(&exiting))) {
        atomic_store(&failed, 1);
        errno = EIO;
        return -1;
    }
    v.iov_base = buf;
    v.iov_len = len;
    return readv(fd, &v, 1);
}
