/*
 * tests/tools/proc_absent.c - preloaded (LD_PRELOAD) into `cesync` by
 * tools_test_main's test_stdout_nonblocking_no_proc: open(2) of any name
 * under /proc/ fails as where no /proc is mounted (ENOENT), so that a
 * standard output cannot be opened again through /proc/self/fd/N; every
 * other name is opened as it would be (openat).  The shell that starts the
 * command and the command's children carry it too, to no effect on them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>

int open(const char *path, int flags, ...)
{
    mode_t mode = 0;

    if (flags & O_CREAT) {
        va_list ap;

        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (strncmp(path, "/proc/", 6) == 0) {
        errno = ENOENT;
        return -1;
    }
    return openat(AT_FDCWD, path, flags, mode);
}
