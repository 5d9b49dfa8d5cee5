/*
 * tests/tools/relay_fails_making.c - preloaded (LD_PRELOAD) into `cesync`
 * by tools_test_main's test_stdout_relay_fails_making: mkstemp(3) makes
 * its file (open(2), O_EXCL) and then makes the relay's read of the pipe
 * that stands in for an O_NONBLOCK standard output fail (read(2) of a
 * close-on-exec pipe fails with EIO from then on, a byte written to
 * standard output wakes it), and returns only 1 s later: the relay's
 * thread ends the command while the file it made is not listed yet.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static atomic_int failing; /* (set before the byte that wakes the relay is written) */

int mkstemp(char *name)
{
    struct timespec second = {1, 0};
    size_t len = strlen(name);
    int fd = -1;

    for (unsigned k = 0; fd < 0 && k < 1000; k++) {
        if (len < 6)
            break;
        snprintf(name + len - 6, 7, "%03u%03u", (unsigned)getpid() % 1000, k);
        fd = open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        return -1;
    atomic_store(&failing, 1);
    if (write(STDOUT_FILENO, "x", 1) != 1)
        return fd;
    while (nanosleep(&second, &second) != 0 && errno == EINTR)
        continue;
    return fd;
}

ssize_t read(int fd, void *buf, size_t len)
{
    struct iovec v;
    struct stat sb;
    int flags = fcntl(fd, F_GETFD);

    if (atomic_load(&failing) && flags >= 0 && (flags & FD_CLOEXEC) != 0 &&
        fstat(fd, &sb) == 0 && S_ISFIFO(sb.st_mode)) {
        errno = EIO;
        return -1;
    }
    v.iov_base = buf;
    v.iov_len = len;
    return readv(fd, &v, 1);
}
