/*
 * core/file.c - writing a file so that it is replaced only when complete:
 * the new contents go to a temporary file beside it, renamed over it at
 * the end, removed on any failure (the old file stays as it was).  Used by
 * ces_dot_write and by the cesync command's -o outputs.
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ces_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);

        if (w < 0 && errno == EINTR)
            continue;
        if (w == 0)
            errno = EIO;
        if (w <= 0)
            return -1;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* 0666 less the process's umask: the mode a new file gets from open().  A
 * library cannot call umask(2) to read the mask, since that sets it under
 * the feet of other threads; Linux shows it in /proc/self/status (4.7 and
 * later).  Elsewhere the usual 022. */
static mode_t new_file_mode(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    unsigned mask = 022;
    char line[256];

    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "Umask: %o", &mask) == 1)
            break;
    }
    if (f != NULL)
        fclose(f);
    return (mode_t)(0666 & ~mask);
}

int ces_file_create_beside(struct ces_ctx *ctx, const char *path, char *tmp, size_t size)
{
    struct stat sb;
    mode_t mode;
    int fd;

    if ((size_t)snprintf(tmp, size, "%s%s.XXXXXX", path[0] == '-' ? "./" : "", path) >= size) {
        ces_ctx_error(ctx, CES_ERR_IO, "cannot create %s: %s", path, strerror(ENAMETOOLONG));
        return -1;
    }
    fd = mkstemp(tmp);
    if (fd < 0) {
        ces_ctx_error(ctx, CES_ERR_IO, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    mode = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? sb.st_mode & 07777 : new_file_mode();
    if (fchmod(fd, mode) != 0) {
        ces_ctx_error(ctx, CES_ERR_IO, "cannot create %s: %s", path, strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    return fd;
}

int ces_file_replace(struct ces_ctx *ctx, const char *tmp, const char *path, int rc)
{
    if (rc == CES_OK && rename(tmp, path) != 0)
        rc = ces_ctx_error(ctx, CES_ERR_IO, "cannot replace %s: %s", path, strerror(errno));
    if (rc != CES_OK)
        unlink(tmp);
    return rc;
}

int ces_write_file(struct ces_ctx *ctx, const char *path, const char *text, size_t len)
{
    char tmp[4096];
    int fd = ces_file_create_beside(ctx, path, tmp, sizeof(tmp)), rc = CES_OK;

    if (fd < 0)
        return CES_ERR_IO;
    if (ces_write_all(fd, text, len) != 0)
        rc = ces_ctx_error(ctx, CES_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    if (close(fd) != 0 && rc == CES_OK)
        rc = ces_ctx_error(ctx, CES_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return ces_file_replace(ctx, tmp, path, rc);
}
