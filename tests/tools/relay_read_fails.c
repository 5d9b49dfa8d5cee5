/*
 * tests/tools/relay_read_fails.c - preloaded (LD_PRELOAD) into `cesync` by
 * tools_test_main's test_stdout_relay_read_fails: read(2) of a pipe whose
 * descriptor is close-on-exec fails with EIO, as a read of the pipe that
 * stands in for an O_NONBLOCK standard output (its reading end, read by
 * the relay's thread, is such a descriptor) that fails; every other read
 * (the command's schedule, the shell's) is read as it would be (readv).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

ssize_t read(int fd, void *buf, size_t len)
{
    struct iovec v;
    struct stat sb;
    int flags = fcntl(fd, F_GETFD);

    if (flags >= 0 && (flags & FD_CLOEXEC) != 0 && fstat(fd, &sb) == 0 &&
        S_ISFIFO(sb.st_mode)) {
        errno = EIO;
        return -1;
    }
    v.iov_base = buf;
    v.iov_len = len;
    return readv(fd, &v, 1);
}
