/*
 * core/file.c - writing a file so that it is replaced only when complete:
 * the new contents go to a temporary file beside it, renamed over it at
 * the end, removed on any failure (the old file stays as it was); a device
 * or a pipe is written in place, a symbolic link's file replaced, a name
 * of one of the process's descriptors (/dev/stdout) written through it.
 * Used by ces_dot_write and by the cesync command's -o outputs.  The
 * temporary files not ended yet, and the child that writes one (Graphviz
 * dot), are listed for ces_file_unlink_pending, which the command calls
 * when a signal ends it.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The pending temporary files: a slot is free (0), being filled or emptied
 * (1), or holds the name of a file that process `owner` created (2).  A
 * command writes its outputs one after another; past PENDING_MAX at once
 * the rest are not listed. */
#define PENDING_MAX 8
static atomic_int pending_state[PENDING_MAX];
static pid_t pending_owner[PENDING_MAX];
static char pending_name[PENDING_MAX][sizeof(((struct ces_out_file *)0)->name)];
static atomic_int pending_child; /* a child writing one (0: none) */
static pid_t pending_child_owner;
/* ces_file_create_by's between mkstemp and the file's listing, and whether
 * ces_file_unlink_last was called (no file is made past it) */
static atomic_int pending_making;
static atomic_int pending_ended;

static void pending_add(const char *name)
{
    for (int i = 0; i < PENDING_MAX; i++) {
        int expected = 0;

        if (atomic_compare_exchange_strong(&pending_state[i], &expected, 1)) {
            pending_owner[i] = getpid();
            snprintf(pending_name[i], sizeof(pending_name[i]), "%s", name);
            atomic_store(&pending_state[i], 2);
            return;
        }
    }
}

static void pending_drop(const char *name)
{
    for (int i = 0; i < PENDING_MAX; i++) {
        int expected = 2;

        if (atomic_load(&pending_state[i]) == 2 && pending_owner[i] == getpid() &&
            strcmp(pending_name[i], name) == 0 &&
            atomic_compare_exchange_strong(&pending_state[i], &expected, 1)) {
            pending_name[i][0] = '\0';
            atomic_store(&pending_state[i], 0);
            return;
        }
    }
}

void ces_file_child(int pid)
{
    pending_child_owner = getpid();
    atomic_store(&pending_child, pid);
    /* (a child started as another thread ends the process: its own) */
    if (pid > 0 && atomic_load(&pending_ended))
        kill((pid_t)pid, SIGTERM);
}

void ces_file_unlink_pending(void)
{
    pid_t self = getpid();
    int child = atomic_load(&pending_child);

    if (child > 0 && pending_child_owner == self)
        kill((pid_t)child, SIGTERM);
    for (int i = 0; i < PENDING_MAX; i++)
        if (atomic_load(&pending_state[i]) == 2 && pending_owner[i] == self)
            unlink(pending_name[i]);
}

void ces_file_unlink_last(void)
{
    struct timespec tick = {0, 1000000};

    atomic_store(&pending_ended, 1);
    while (atomic_load(&pending_making) > 0)
        nanosleep(&tick, NULL);
    ces_file_unlink_pending();
}

const char *ces_tmp_dir(const char **env)
{
    const char *dir = getenv("TMPDIR");
    bool set = dir != NULL && *dir != '\0';

    *env = set ? " (TMPDIR)" : "";
    return set ? dir : "/tmp";
}

int ces_file_fd_own(int fd)
{
    int moved, err;

    /* A file given 0 or 1 became Graphviz's standard input or output in
     * place of the one it was to be (the spawn's dup2 onto 0 first made
     * both the input: "dot wrote nothing"), and one given 2 took this
     * process's error messages. */
    if (fd > STDERR_FILENO) {
        (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
        return fd;
    }
    moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    err = errno;
    close(fd);
    errno = err;
    return moved;
}

/* The device number of the terminal fd is (TIOCGDEV: /dev/tty's is the
 * controlling terminal's, a pseudo-terminal master's its own pair's), or
 * -1 where that cannot be told. */
static long terminal_device(int fd)
{
#if defined(TIOCGDEV)
    unsigned int dev;

    if (ioctl(fd, TIOCGDEV, &dev) == 0)
        return (long)dev;
#else
    (void)fd;
#endif
    return -1;
}

int ces_file_reopen(int fd, int flags)
{
    struct stat sb;
    char name[64];
    bool tty;
    long dev;
    int mine;

    if (fstat(fd, &sb) != 0)
        return -1;
    tty = S_ISCHR(sb.st_mode) && isatty(fd);
    if (!S_ISFIFO(sb.st_mode) && !tty) {
        errno = ENOTSUP;
        return -1;
    }
    snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
    mine = open(name, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (mine < 0 || !tty)
        return mine;
    dev = terminal_device(fd);
    if (dev >= 0 && dev == terminal_device(mine))
        return mine;
    close(mine);
    errno = ENOTSUP;
    return -1;
}

FILE *ces_fopen_read(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), err;
    FILE *f;

    if (fd < 0)
        return NULL;
    f = fdopen(fd, "r");
    if (f == NULL) {
        err = errno;
        close(fd);
        errno = err;
    }
    return f;
}

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

/* The bytes written between two readings of the clock where a deadline
 * bounds the writing, and at most at once into a file that is no regular
 * file. */
#define FILE_WRITE_PART ((size_t)16 << 20)

/* What a write into fd, no regular file, whose description waits for its
 * reader (no O_NONBLOCK: one this process shares, as its standard output)
 * takes without waiting once poll(2) says it takes some: of a device that
 * is no terminal (/dev/null), `want` whole; PIPE_BUF of any other.  A pipe
 * that poll says takes some has a page free, and no more is known: the
 * pages that what it holds (FIONREAD) seemed to leave free were each
 * partly filled by the writes of another program, and a write of them
 * waited for the reader past the bound (ces_file_create_by gives a pipe
 * or a terminal under a bound a description of its own where it can). */
static size_t write_room(int fd, const struct stat *sb, size_t want)
{
    if (S_ISCHR(sb->st_mode) && !isatty(fd))
        return want;
    return PIPE_BUF < want ? PIPE_BUF : want;
}

int ces_file_write_by(int fd, const char *text, size_t n, const struct ces_dot_bounds *b)
{
    struct stat sb;
    bool waits = (b->deadline > 0 || b->stall > 0) && fstat(fd, &sb) == 0 &&
                 !S_ISREG(sb.st_mode);
    bool looks = waits && b->stall > 0 && S_ISFIFO(sb.st_mode);
    int flags = waits ? fcntl(fd, F_GETFL) : -1;
    /* a description of its own (ces_file_create_by's) takes what it can at
     * once and says when it takes nothing (EAGAIN): poll(2) is asked only
     * then */
    bool nonblock = flags >= 0 && (flags & O_NONBLOCK) != 0, ready = nonblock;
    size_t at = 0;
    double took = waits ? ces_now() : 0; /* when the reader last took some */
    int held = INT_MAX;                  /* the bytes the pipe held at the last look */

    while (at < n) {
        size_t k = n - at < FILE_WRITE_PART ? n - at : FILE_WRITE_PART;
        double now = b->deadline > 0 || waits ? ces_now() : 0, until = b->deadline;
        ssize_t w;
        int q;

        if (looks && ioctl(fd, FIONREAD, &q) == 0) {
            if (q < held)
                took = now;
            held = q;
        }
        if (b->deadline > 0 && now >= b->deadline)
            return 1;
        if (waits && b->stall > 0 && now >= took + b->stall)
            return 2;
        if (waits && !ready) {
            struct pollfd p = {fd, POLLOUT, 0};
            double left;
            int r;

            if (b->stall > 0 && (until <= 0 || took + b->stall < until))
                until = took + b->stall;
            left = until - now;
            r = poll(&p, 1, left < 1 ? (int)(left * 1000) + 1 : 1000);
            if (r < 0 && errno != EINTR)
                return -1;
            if (r <= 0) /* not yet: the clock again */
                continue;
            if (!nonblock)
                k = write_room(fd, &sb, k);
        }
        w = write(fd, text + at, k);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && waits) {
            ready = false; /* full: poll(2) until it takes some */
            continue;
        }
        /* a description that another program made O_NONBLOCK (the
         * parent's end of a pipe, shared as standard output) is waited for
         * as a blocking one is: the write failed, "Resource temporarily
         * unavailable", where the reader was slow */
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {fd, POLLOUT, 0};

            if (poll(&p, 1, -1) < 0 && errno != EINTR)
                return -1;
            continue;
        }
        if (w == 0)
            errno = EIO;
        if (w <= 0)
            return -1;
        at += (size_t)w;
        ready = nonblock;
        if (waits)
            took = ces_now();
        held = INT_MAX; /* (more than the next look's) */
    }
    return 0;
}

/* 0666 less the process's umask: the mode a new file gets from open().  A
 * library cannot call umask(2) to read the mask, since that sets it under
 * the feet of other threads; Linux shows it in /proc/self/status (4.7 and
 * later).  Elsewhere the usual 022. */
static mode_t new_file_mode(void)
{
    FILE *f = ces_fopen_read("/proc/self/status");
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

/* The length of the number that s starts with, as the kernel reads one in
 * a name under /proc (digits, no leading 0, at most 9), when the character
 * after it is end; 0 for any other s. */
static size_t proc_number(const char *s, char end)
{
    size_t n = strspn(s, "0123456789");

    return n > 0 && n <= 9 && (s[0] != '0' || n == 1) && s[n] == end ? n : 0;
}

/* The descriptor of this process that name is, as /dev/fd/N,
 * /proc/thread-self/fd/N, /proc/self/fd/N and /proc/PID/fd/N of its own
 * PID name one (/dev/stdout is a link to /proc/self/fd/1), and
 * /proc/self/task/TID/fd/N and /proc/PID/task/TID/fd/N of a thread of it
 * (its threads share its descriptors; /proc/self/task lists those alone);
 * -1 for any other name.  N as the kernel reads it. */
static int own_descriptor(const char *name)
{
    char pid[32], task[64];
    const char *const dirs[] = {"/dev/fd/", "/proc/thread-self/fd/", "/proc/self/", pid};
    const size_t ndirs = sizeof(dirs) / sizeof(dirs[0]);
    const char *d;
    size_t i, t;

    snprintf(pid, sizeof(pid), "/proc/%ld/", (long)getpid());
    for (i = 0; i < ndirs && strncmp(name, dirs[i], strlen(dirs[i])) != 0; i++)
        ;
    if (i == ndirs)
        return -1;
    d = name + strlen(dirs[i]);
    if (i >= 2) { /* the process's directory: fd/, or task/TID/fd/ */
        if (strncmp(d, "task/", 5) == 0 && (t = proc_number(d + 5, '/')) > 0) {
            snprintf(task, sizeof(task), "/proc/self/task/%.*s", (int)t, d + 5);
            if (access(task, F_OK) != 0)
                return -1;
            d += 5 + t + 1;
        }
        if (strncmp(d, "fd/", 3) != 0)
            return -1;
        d += 3;
    }
    return proc_number(d, '\0') > 0 ? atoi(d) : -1;
}

/* Into buf, the name that the chain of symbolic links starting at path
 * ends at (path itself when it is no link); a relative link is taken from
 * the link's directory.  The chain stops at a name of one of this
 * process's descriptors, whose number goes to *own (-1: none met).  False
 * when it has more than 40 links (a loop has: ELOOP in errno) or a name
 * in it does not fit (ENAMETOOLONG). */
static bool follow_links(const char *path, char *buf, size_t size, int *own)
{
    char link[4096];

    *own = -1;
    errno = ENAMETOOLONG;
    if ((size_t)snprintf(buf, size, "%s", path) >= size)
        return false;
    /* 40 links followed as Linux's open(2) follows them (MAXSYMLINKS):
     * the name after the 40th may be the file, and only a 41st link is
     * too many (a chain of 40 was refused, one open(2) writes through) */
    for (int hops = 0;; hops++) {
        ssize_t n;
        const char *slash = strrchr(buf, '/');
        size_t dir;

        *own = own_descriptor(buf);
        if (*own >= 0)
            return true;
        n = readlink(buf, link, sizeof(link));
        if (n < 0)
            return true; /* no link: the end */
        if (hops == 40) {
            errno = ELOOP;
            return false;
        }
        if ((size_t)n >= sizeof(link))
            return false;
        link[n] = '\0';
        dir = link[0] == '/' || slash == NULL ? 0 : (size_t)(slash - buf) + 1;
        if (dir + (size_t)n >= size)
            return false;
        memcpy(buf + dir, link, (size_t)n + 1);
    }
}

bool ces_file_link_end(const char *path, char *buf, size_t size)
{
    int own;

    return follow_links(path, buf, size, &own);
}

int ces_file_own_descriptor(const char *path)
{
    char resolved[4096];
    int own;

    return follow_links(path, resolved, sizeof(resolved), &own) ? own : -1;
}

/* Whether sb, of a file that is no regular file, is the file of this
 * process's standard output or standard error (its device and inode): a
 * named pipe that the shell opened for it too, /proc/PID/fd/1 of the
 * shell that started it, its terminal's /dev/pts/N. */
static bool standard_stream(const struct stat *sb)
{
    struct stat std;

    if (S_ISREG(sb->st_mode))
        return false;
    for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
        if (fstat(fd, &std) == 0 && std.st_dev == sb->st_dev && std.st_ino == sb->st_ino)
            return true;
    return false;
}

bool ces_file_own_stream(const char *path)
{
    struct stat sb;

    return ces_file_own_descriptor(path) >= 0 || (stat(path, &sb) == 0 && standard_stream(&sb));
}

/* Opens `name`, an existing file that is no regular file, for writing:
 * where deadline > 0 (0: none) a named pipe that no reader has opened,
 * whose open waits for one, is tried every 10 ms until then at most, -1
 * with errno ETIMEDOUT past it, and the descriptor stays O_NONBLOCK, a
 * description of this process's alone: a write takes what the file takes
 * at once (ces_file_write_by), where one that waits for its reader was
 * written PIPE_BUF bytes a poll(2). */
static int open_by(const char *name, double deadline)
{
    struct timespec pause = {0, 10000000};
    int fd;

    if (deadline <= 0)
        return open(name, O_WRONLY | O_TRUNC | O_CLOEXEC);
    for (;;) {
        fd = open(name, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK);
        if (fd >= 0)
            return fd;
        if (errno != ENXIO && errno != EINTR)
            return -1;
        if (ces_now() >= deadline) {
            errno = ETIMEDOUT;
            return -1;
        }
        nanosleep(&pause, NULL);
    }
}

int ces_file_create_beside(struct ces_ctx *ctx, const char *path, struct ces_out_file *of)
{
    return ces_file_create_by(ctx, path, of, 0, 0);
}

int ces_file_create_by(struct ces_ctx *ctx, const char *path, struct ces_out_file *of,
                       double deadline, double stall)
{
    char resolved[4096];
    struct stat sb;
    const char *dest = path;
    sigset_t all, was;
    mode_t mode;
    bool exists, created;
    int fd, mk_err, own;

    of->name[0] = of->dest[0] = '\0';
    of->own = of->shares = false;
    /* no file has the empty name (the temporary file went to the current
     * directory, and an empty dest reads as written in place: it stayed
     * there, reported written) */
    if (path[0] == '\0') {
        ces_ctx_error(ctx, CES_ERR_IO, "cannot create '': %s", strerror(ENOENT));
        return -1;
    }
    /* a chain of links that does not end names no file, as open(2) says:
     * the link itself was replaced by the new file, reported written */
    if (!follow_links(path, resolved, sizeof(resolved), &own)) {
        ces_ctx_error(ctx, CES_ERR_IO, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    /* one of this process's descriptors (-o /dev/stdout) is written
     * through, at its offset, as standard output is: opened again by name,
     * the file behind it was replaced (`>> log` lost the log; `> log` the
     * lines written to the descriptor before), and a socket cannot be
     * opened so at all */
    if (own >= 0) {
        int err = 0, flags;

        of->own = true;
        snprintf(of->name, sizeof(of->name), "%s", path);
        fd = fcntl(own, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
        /* one that cannot be written (a directory, one opened for reading)
         * is refused before the work, as a directory by name is: its write
         * failed only after it, Graphviz's as "dot -Tsvg failed drawing" */
        if (fd < 0)
            err = errno;
        else if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode))
            err = EISDIR;
        else if ((flags = fcntl(fd, F_GETFL)) >= 0 && (flags & O_ACCMODE) == O_RDONLY)
            err = EBADF;
        if (err != 0) {
            if (fd >= 0)
                close(fd);
            ces_ctx_error(ctx, CES_ERR_IO, "cannot write %s: %s", path, strerror(err));
            return -1;
        }
        of->shares = true;
        /* a pipe or a terminal written under a time bound is opened again
         * (/proc), a description of its own that can be O_NONBLOCK: the
         * shared one waits for its reader in a write, past the bound where
         * the write is more than the file takes (poll(2) tells of a page
         * of a pipe free, of a terminal a byte, no more), and O_NONBLOCK
         * set on it would reach every program that shares it (a `cat`
         * after the command in the same pipe) */
        if (deadline > 0) {
            int mine = ces_file_reopen(fd, O_WRONLY);

            if (mine >= 0)
                mine = ces_file_fd_own(mine);
            if (mine >= 0) {
                close(fd);
                fd = mine;
                of->shares = false;
            }
        }
        return fd;
    }
    exists = stat(path, &sb) == 0;
    if (exists && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
        if ((size_t)snprintf(of->name, sizeof(of->name), "%s", path) >= sizeof(of->name)) {
            ces_ctx_error(ctx, CES_ERR_IO, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
            return -1;
        }
        /* the command's own standard output or error under another name
         * is written as standard output is, waited for without the stall
         * (a named pipe that the shell opened for it too) */
        double by = deadline, start;

        of->own = standard_stream(&sb);
        if (of->own)
            stall = 0;
        start = stall > 0 ? ces_now() : 0;
        if (stall > 0 && (by <= 0 || start + stall < by))
            by = start + stall;
        /* close-on-exec, as every descriptor here: Graphviz gets this one
         * as its standard output, and no child should hold it under its
         * own number too; O_NONBLOCK under a bound, standard output's file
         * too (a description of its own: its writes took what poll(2)
         * seemed to leave free of a pipe and waited past the bound) */
        fd = open_by(of->name, by);
        if (fd < 0 && errno == ETIMEDOUT) {
            if (by == deadline)
                ces_ctx_error(ctx, CES_ERR_TIMEOUT, "the time bound passed while %s waited "
                              "for a reader", path);
            else
                ces_ctx_error(ctx, CES_ERR_TIMEOUT, "no reader opened %s in %g s", path,
                              stall);
            return -2;
        }
        if (fd >= 0)
            fd = ces_file_fd_own(fd);
        if (fd < 0)
            ces_ctx_error(ctx, CES_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        return fd;
    }
    /* a directory (or a link to one) is no file to replace: refused before
     * the work that fills the temporary file (Graphviz laid a picture out
     * for minutes, and then the rename failed) */
    if (exists && S_ISDIR(sb.st_mode)) {
        ces_ctx_error(ctx, CES_ERR_IO, "cannot write %s: %s", path, strerror(EISDIR));
        return -1;
    }
    /* a file this process may not write (chmod a-w) is refused, as open(2)
     * refuses it: the file renamed over it replaced it whole, its owner the
     * writer.  By the effective IDs, as open(2) judges (access(2) takes the
     * real ones: a process whose effective user is another, as setuid
     * makes it, replaced a file of its real user's) */
    if (exists && faccessat(AT_FDCWD, resolved, W_OK, AT_EACCESS) != 0) {
        ces_ctx_error(ctx, CES_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    dest = resolved;
    if ((size_t)snprintf(of->dest, sizeof(of->dest), "%s", dest) >= sizeof(of->dest) ||
        (size_t)snprintf(of->name, sizeof(of->name), "%s.XXXXXX", of->dest) >= sizeof(of->name)) {
        ces_ctx_error(ctx, CES_ERR_IO, "cannot create %s: %s", path, strerror(ENAMETOOLONG));
        return -1;
    }
    /* the file and its place in the list come together: a signal in
     * between would end the process with the file not listed (Linux:
     * sigprocmask masks the calling thread alone) */
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &was);
    /* nor may another thread end the process in between (the relay of a
     * standard output whose pipe cannot be read: ces_file_unlink_last);
     * once it does, none is made, and the process ends without us */
    atomic_fetch_add(&pending_making, 1);
    if (atomic_load(&pending_ended)) {
        atomic_fetch_sub(&pending_making, 1);
        for (;;)
            pause();
    }
    fd = mkstemp(of->name); /* (POSIX 2008 has no mkostemp) */
    created = fd >= 0;
    if (created)
        fd = ces_file_fd_own(fd);
    mk_err = errno;
    if (fd >= 0)
        pending_add(of->name);
    else if (created)
        unlink(of->name);
    atomic_fetch_sub(&pending_making, 1);
    sigprocmask(SIG_SETMASK, &was, NULL);
    if (fd < 0) {
        int err = mk_err;
        char dir[sizeof(of->dest)];
        char *slash;

        /* a file that could be written in place: the temporary file beside
         * it is what failed, in its directory (the file itself was named) */
        if (faccessat(AT_FDCWD, of->dest, W_OK, AT_EACCESS) == 0) {
            snprintf(dir, sizeof(dir), "%s", of->dest);
            slash = strrchr(dir, '/');
            if (slash == NULL)
                snprintf(dir, sizeof(dir), ".");
            else
                slash[slash == dir] = '\0';
            ces_ctx_error(ctx, CES_ERR_IO,
                          "cannot replace %s: cannot create its temporary file in %s: %s", path,
                          dir, strerror(err));
        } else {
            ces_ctx_error(ctx, CES_ERR_IO, "cannot create %s: %s", path, strerror(err));
        }
        return -1;
    }
    mode = stat(of->dest, &sb) == 0 && S_ISREG(sb.st_mode) ? sb.st_mode & 07777 : new_file_mode();
    if (fchmod(fd, mode) != 0) {
        ces_ctx_error(ctx, CES_ERR_IO, "cannot create %s: %s", path, strerror(errno));
        close(fd);
        unlink(of->name);
        pending_drop(of->name);
        return -1;
    }
    return fd;
}

int ces_file_replace(struct ces_ctx *ctx, const struct ces_out_file *of, const char *path, int rc)
{
    if (of->dest[0] == '\0') /* written in place */
        return rc;
    if (rc == CES_OK && rename(of->name, of->dest) != 0)
        rc = ces_ctx_error(ctx, CES_ERR_IO, "cannot replace %s: %s", path, strerror(errno));
    if (rc != CES_OK)
        unlink(of->name);
    pending_drop(of->name);
    return rc;
}

int ces_write_file(struct ces_ctx *ctx, const char *path, const char *text, size_t len)
{
    static const struct ces_dot_bounds none = {0, 0, 0};

    return ces_write_file_by(ctx, path, text, len, &none);
}

int ces_write_file_by(struct ces_ctx *ctx, const char *path, const char *text, size_t len,
                      const struct ces_dot_bounds *b)
{
    struct ces_out_file of;
    struct ces_dot_bounds by = *b;
    int fd = ces_file_create_by(ctx, path, &of, b->deadline, b->stall), rc = CES_OK, late;

    if (fd < 0)
        return fd == -2 ? CES_ERR_TIMEOUT : CES_ERR_IO;
    if (of.own) /* written as standard output is */
        by.stall = 0;
    late = ces_file_write_by(fd, text, len, &by);
    if (late == 1)
        rc = ces_ctx_error(ctx, CES_ERR_TIMEOUT, "the time bound passed while %s was written",
                           path);
    else if (late == 2)
        rc = ces_ctx_error(ctx, CES_ERR_TIMEOUT, "cannot write %s: its reader took none of it "
                           "for %g s", path, b->stall);
    else if (late < 0)
        rc = ces_ctx_error(ctx, CES_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    if (close(fd) != 0 && rc == CES_OK)
        rc = ces_ctx_error(ctx, CES_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return ces_file_replace(ctx, &of, path, rc);
}
