/*
 * backend/cuda/bootstrap.c - the rendezvous between the processes of a
 * communicator: a Unix-domain SOCK_SEQPACKET socket that rank 0 listens on;
 * every other rank connects to it.  Its name is a file path, which rank 0
 * unlinks before it binds (a file left by a rank 0 that died) and once
 * every rank has joined, or '@' and a Linux abstract name, which makes no
 * file at all: the kernel drops the name with the last socket bound to it,
 * so a process killed before its ranks joined leaves nothing behind (one
 * in use by a live socket is refused, not taken over).  Ranks meeting
 * over an abstract name share a network namespace, as ranks meeting over a
 * path share a file system.  One operation, allgather (rank 0 is the
 * hub), carries bytes and, with SCM_RIGHTS, file descriptors (the memory
 * handles of cuMemExportToShareableHandle, the progress page).  Every step
 * waits with poll() under a deadline: nothing here blocks forever.
 *
 * After the setup, a rank that fails (ces_wd_fail: its watchdog, an
 * error of its own call, ces_comm_abort) may never come to an exchange its
 * peers wait in (ces_group_end, ces_mem_alloc, ces_comm_destroy's
 * barrier), and its process lives on, so no connection closes.  Its
 * failure record on the progress page (the `failed` word the watchdogs
 * read, which ces_wd_fail sets as the communicator fails and nothing
 * clears) ends the exchange instead: every wait here looks at the page
 * before it polls and at least every BOOT_LOOK_MS while it does, and gives
 * up once it finds a record (boot_failed: which one it names), whichever
 * rows have arrived.  So a record made before an exchange ends it at its
 * first wait, one made during it within BOOT_LOOK_MS, on every rank that
 * still waits; a rank that failed after its row was sent changes nothing
 * for the rows, the record ends the exchange all the same.  Once rank 0
 * has sent the table a rank may also return CES_OK: the exchange is over,
 * and its watchdog fails it with CES_ERR_PEER_FAILED as for any later
 * call.  An exchange left half done (a record, a timeout, an error on
 * one rank) leaves messages behind on the sockets, which no later
 * exchange may read: a retry would take them for its own (a peer's row of
 * the failed call, its memory handle released since).  So after the
 * setup every call whose exchange fails fails its communicator
 * (ces_group_end, ces_mem_alloc; none follows ces_comm_destroy's barrier),
 * and its record, which stays, ends each later wait of every rank at
 * once.  Only
 * ces_mem_alloc's refusal of sizes that differ comes after an exchange,
 * and a whole one: every rank has every row and refuses alike.
 */
#include "runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define BOOT_MAGIC 0x63657331u /* "ces1" */
/* The longest a wait goes without a look at the failure records: they are
 * words of shared memory, which poll() cannot wait for (the watchdogs look
 * as often). */
#define BOOT_LOOK_MS 5

struct boot_hdr {
    uint32_t magic;
    uint32_t rank;
    uint32_t size;
    uint32_t nfds;
    uint64_t len;
};

uint64_t ces_cuda_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};

    nanosleep(&ts, NULL);
}

/* Waits until fd is ready for `events` or the deadline passes. */
int ces_boot_poll_ms(uint64_t now, uint64_t deadline)
{
    uint64_t left = deadline > now ? deadline - now : 0;

    /* CES_TIMEOUT_MS goes up to UINT32_MAX: a cast to int would turn a wait
     * of more than INT_MAX ms negative, which poll takes as no timeout.
     * wait_fd polls again until the deadline. */
    return left > INT_MAX ? INT_MAX : (int)left;
}

/* CES_OK, or the failure record that ends an exchange (the comment at the
 * top).  A rank failed with CES_ERR_PEER_FAILED was failed by another's
 * record (its watchdog saw it within 5 ms), so the records that name a
 * cause come first: this rank's own (its communicator failed meanwhile:
 * the status it failed with), then the lowest such peer's; then the lowest
 * peer's of any, then this rank's (CES_ERR_PEER_FAILED). */
static int boot_failed(struct ces_ctx *ctx, const struct ces_boot *b)
{
    const uint64_t peer_failed = (uint64_t)(-CES_ERR_PEER_FAILED);
    uint64_t mine;

    if (b->page == NULL)
        return CES_OK;
    mine = atomic_load(&b->page[b->rank].failed);
    if (mine != 0 && mine != peer_failed)
        return ces_ctx_error(ctx, -(int)mine,
                             "bootstrap: rank %" PRIu32 " (this rank) failed, which ends the "
                             "exchange",
                             b->rank);
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t r = 0; r < b->size; r++) {
            uint64_t f = r == b->rank ? 0 : atomic_load(&b->page[r].failed);

            if (f != 0 && (pass == 1 || f != peer_failed))
                return ces_ctx_error(ctx, CES_ERR_PEER_FAILED,
                                     "bootstrap: rank %" PRIu32 " failed, which ends the exchange",
                                     r);
        }
    }
    if (mine != 0)
        return ces_ctx_error(ctx, CES_ERR_PEER_FAILED,
                             "bootstrap: rank %" PRIu32 " (this rank) failed, which ends the "
                             "exchange",
                             b->rank);
    return CES_OK;
}

static int wait_fd(struct ces_ctx *ctx, const struct ces_boot *b, int fd, short events,
                   uint64_t deadline, const char *what, uint32_t peer)
{
    for (;;) {
        struct pollfd p = {fd, events, 0};
        uint64_t now = ces_cuda_now_ms();
        int n, ms, rc = boot_failed(ctx, b);

        if (rc != CES_OK)
            return rc;
        if (now >= deadline)
            return ces_ctx_error(ctx, CES_ERR_TIMEOUT,
                                 "bootstrap: timed out %s rank %" PRIu32
                                 " (CES_TIMEOUT_MS; is every rank running?)",
                                 what, peer);
        ms = ces_boot_poll_ms(now, deadline);
        if (b->page != NULL && ms > BOOT_LOOK_MS)
            ms = BOOT_LOOK_MS;
        n = poll(&p, 1, ms);
        if (n > 0) {
            if ((p.revents & (POLLERR | POLLNVAL)) || ((p.revents & POLLHUP) && !(p.revents & POLLIN)))
                return ces_ctx_error(ctx, CES_ERR_PEER_FAILED,
                                     "bootstrap: the connection to rank %" PRIu32
                                     " closed while %s it",
                                     peer, what);
            return CES_OK;
        }
        if (n < 0 && errno != EINTR)
            return ces_ctx_error(ctx, CES_ERR_SYSTEM, "bootstrap: poll: %s", strerror(errno));
    }
}

static int send_msg(struct ces_ctx *ctx, int fd, uint32_t rank, uint32_t size, const void *data,
                    size_t len, const int *fds, uint32_t nfds, uint32_t peer)
{
    struct boot_hdr h = {BOOT_MAGIC, rank, size, nfds, len};
    struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)(uintptr_t)data, len}};
    union {
        char buf[CMSG_SPACE(sizeof(int) * CES_BOOT_MAX_FDS)];
        struct cmsghdr align;
    } u;
    struct msghdr m;

    memset(&m, 0, sizeof(m));
    m.msg_iov = iov;
    m.msg_iovlen = len > 0 ? 2 : 1;
    if (nfds > 0) {
        struct cmsghdr *cm;

        memset(&u, 0, sizeof(u));
        m.msg_control = u.buf;
        m.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
        cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
        memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
    }
    for (;;) {
        ssize_t n = sendmsg(fd, &m, MSG_NOSIGNAL);

        if (n >= 0)
            return CES_OK;
        if (errno == EINTR)
            continue;
        if (errno == EPIPE || errno == ECONNRESET)
            return ces_ctx_error(ctx, CES_ERR_PEER_FAILED,
                                 "bootstrap: rank %" PRIu32 " has gone (connection closed)", peer);
        return ces_ctx_error(ctx, CES_ERR_SYSTEM, "bootstrap: sendmsg to rank %" PRIu32 ": %s",
                             peer, strerror(errno));
    }
}

/* Receives one message of exactly `len` payload bytes; descriptors into
 * fds[] (at most maxfds), their count into *nfds. */
static int recv_msg(struct ces_ctx *ctx, const struct ces_boot *b, int fd, uint64_t deadline,
                    uint32_t peer, void *data, size_t len, int *fds, uint32_t maxfds,
                    uint32_t *nfds)
{
    struct boot_hdr h;
    struct iovec iov[2] = {{&h, sizeof(h)}, {data, len}};
    union {
        char buf[CMSG_SPACE(sizeof(int) * CES_BOOT_MAX_FDS)];
        struct cmsghdr align;
    } u;
    struct msghdr m;
    ssize_t n;
    int rc = wait_fd(ctx, b, fd, POLLIN, deadline, "waiting for", peer);

    if (rc != CES_OK)
        return rc;
    memset(&m, 0, sizeof(m));
    m.msg_iov = iov;
    m.msg_iovlen = 2;
    m.msg_control = u.buf;
    m.msg_controllen = sizeof(u.buf);
    do {
        n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n == 0 || (n < 0 && errno == ECONNRESET))
        return ces_ctx_error(ctx, CES_ERR_PEER_FAILED,
                             "bootstrap: rank %" PRIu32 " has gone (connection closed)", peer);
    if (n < 0)
        return ces_ctx_error(ctx, CES_ERR_SYSTEM, "bootstrap: recvmsg from rank %" PRIu32 ": %s",
                             peer, strerror(errno));
    if (nfds != NULL)
        *nfds = 0;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm != NULL; cm = CMSG_NXTHDR(&m, cm)) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
            uint32_t k = (uint32_t)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            int tmp[CES_BOOT_MAX_FDS];

            memcpy(tmp, CMSG_DATA(cm), sizeof(int) * k);
            for (uint32_t i = 0; i < k; i++) {
                if (fds != NULL && nfds != NULL && *nfds < maxfds)
                    fds[(*nfds)++] = tmp[i];
                else
                    close(tmp[i]);
            }
        }
    }
    if ((size_t)n != sizeof(h) + len || h.magic != BOOT_MAGIC || h.len != len ||
        (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        /* the callers keep descriptors only from a message they accept */
        for (uint32_t i = 0; nfds != NULL && i < *nfds; i++)
            close(fds[i]);
        if (nfds != NULL)
            *nfds = 0;
        return ces_ctx_error(ctx, CES_ERR_SYSTEM,
                             "bootstrap: malformed message from rank %" PRIu32
                             " (%zd bytes; do all ranks run the same program?)",
                             peer, n);
    }
    return CES_OK;
}

int ces_boot_open(struct ces_ctx *ctx, struct ces_boot *b, const char *path, uint32_t rank,
                  uint32_t size, uint32_t timeout_ms)
{
    struct sockaddr_un addr;
    socklen_t addr_len = 0;
    uint64_t deadline = ces_cuda_now_ms() + timeout_ms;
    /* an abstract name has no file to unlink */
    int rc, file = path[0] != '@';

    memset(b, 0, sizeof(*b));
    b->fd = -1;
    b->rank = rank;
    b->size = size;
    b->timeout_ms = timeout_ms;
    rc = ces_boot_addr(ctx, path, &addr, &addr_len);
    if (rc != CES_OK)
        return rc;
    if (rank == 0) {
        int lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        uint32_t joined = 0;

        b->peers = ces_malloc(ctx, sizeof(int) * size);
        if (b->peers == NULL) {
            if (lfd >= 0)
                close(lfd);
            rc = ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory in the bootstrap");
            goto fail;
        }
        for (uint32_t i = 0; i < size; i++)
            b->peers[i] = -1;
        if (lfd < 0) {
            rc = ces_ctx_error(ctx, CES_ERR_SYSTEM, "bootstrap: socket: %s", strerror(errno));
            goto fail;
        }
        if (file)
            unlink(path);
        if (bind(lfd, (struct sockaddr *)&addr, addr_len) != 0 || listen(lfd, (int)size) != 0) {
            if (!file && errno == EADDRINUSE)
                rc = ces_ctx_error(ctx, CES_ERR_SYSTEM,
                                   "bootstrap: cannot listen on '%s': another socket holds that "
                                   "abstract name (EADDRINUSE)",
                                   path);
            else
                rc = ces_ctx_error(ctx, CES_ERR_SYSTEM, "bootstrap: cannot listen on '%s': %s",
                                   path, strerror(errno));
            close(lfd);
            goto fail;
        }
        while (joined + 1 < size) {
            int cfd;

            rc = wait_fd(ctx, b, lfd, POLLIN, deadline, "waiting for", joined + 1);
            if (rc != CES_OK) {
                char missing[256] = "";
                size_t used = 0;

                for (uint32_t r = 1; r < size && used + 12 < sizeof(missing); r++)
                    if (b->peers[r] < 0)
                        used += (size_t)snprintf(missing + used, sizeof(missing) - used, "%s%" PRIu32,
                                                 used ? " " : "", r);
                rc = ces_ctx_error(ctx, CES_ERR_TIMEOUT,
                                   "bootstrap: timed out after %" PRIu32
                                   " ms waiting for ranks to join at '%s'; missing: %s",
                                   timeout_ms, path, missing);
                break;
            }
            cfd = accept(lfd, NULL, NULL);
            if (cfd < 0)
                continue;
            {
                uint32_t who[2];

                rc = recv_msg(ctx, b, cfd, deadline, joined + 1, who, sizeof(who), NULL, 0, NULL);
                if (rc == CES_OK && (who[0] == 0 || who[0] >= size || who[1] != size ||
                                     b->peers[who[0]] >= 0))
                    rc = ces_ctx_error(ctx, CES_ERR_INVALID,
                                       "bootstrap: a process joined as rank %" PRIu32 " of %" PRIu32
                                       " but this communicator has %" PRIu32
                                       " ranks (or that rank joined twice)",
                                       who[0], who[1], size);
                if (rc != CES_OK) {
                    close(cfd);
                    break;
                }
                b->peers[who[0]] = cfd;
                joined++;
            }
        }
        close(lfd);
        if (file)
            unlink(path);
        if (rc != CES_OK)
            goto fail;
    } else {
        uint32_t who[2] = {rank, size};

        b->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (b->fd < 0)
            return ces_ctx_error(ctx, CES_ERR_SYSTEM, "bootstrap: socket: %s", strerror(errno));
        /* rank 0 not there yet: no file at a path (ENOENT), nothing bound
         * to an abstract name or a file left behind (ECONNREFUSED) */
        while (connect(b->fd, (struct sockaddr *)&addr, addr_len) != 0) {
            if (errno != ENOENT && errno != ECONNREFUSED && errno != EINTR && errno != EAGAIN) {
                rc = ces_ctx_error(ctx, CES_ERR_SYSTEM, "bootstrap: connect to '%s': %s", path,
                                   strerror(errno));
                goto fail;
            }
            if (ces_cuda_now_ms() >= deadline) {
                rc = ces_ctx_error(ctx, CES_ERR_TIMEOUT,
                                   "bootstrap: timed out after %" PRIu32
                                   " ms connecting to rank 0 at '%s' (is rank 0 running?)",
                                   timeout_ms, path);
                goto fail;
            }
            sleep_ms(10);
        }
        rc = send_msg(ctx, b->fd, rank, size, who, sizeof(who), NULL, 0, 0);
        if (rc != CES_OK)
            goto fail;
    }
    return CES_OK;
fail:
    ces_boot_close(ctx, b);
    return rc;
}

void ces_boot_close(struct ces_ctx *ctx, struct ces_boot *b)
{
    if (b->fd >= 0)
        close(b->fd);
    b->fd = -1;
    if (b->peers != NULL) {
        for (uint32_t i = 1; i < b->size; i++)
            if (b->peers[i] >= 0)
                close(b->peers[i]);
    }
    ces_free(ctx, b->peers);
    b->peers = NULL;
}

int ces_boot_allgather(struct ces_ctx *ctx, struct ces_boot *b, const void *mine, size_t len,
                       int myfd, void *all, int *fds)
{
    uint64_t deadline = ces_cuda_now_ms() + b->timeout_ms;
    size_t total = (size_t)b->size * len + b->size;
    unsigned char *buf = ces_malloc(ctx, total > 0 ? total : 1);
    int sendfds[CES_BOOT_MAX_FDS];
    uint32_t nsend = 0;
    int rc = CES_OK;

    if (buf == NULL)
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory in the bootstrap");
    if (fds != NULL)
        for (uint32_t i = 0; i < b->size; i++)
            fds[i] = -1;
    if (b->rank == 0) {
        unsigned char *has = buf + (size_t)b->size * len;

        memcpy(buf, mine, len);
        memset(has, 0, b->size);
        if (myfd >= 0) {
            has[0] = 1;
            sendfds[nsend++] = myfd;
        }
        for (uint32_t r = 1; r < b->size && rc == CES_OK; r++) {
            int got[1];
            uint32_t n = 0;

            rc = recv_msg(ctx, b, b->peers[r], deadline, r, buf + (size_t)r * len, len, got, 1,
                          &n);
            if (rc == CES_OK && n == 1) {
                has[r] = 1;
                if (nsend >= CES_BOOT_MAX_FDS) {
                    close(got[0]);
                    rc = ces_ctx_error(ctx, CES_ERR_LIMIT, "bootstrap: too many descriptors");
                } else {
                    sendfds[nsend++] = got[0];
                }
            }
        }
        for (uint32_t r = 1; r < b->size && rc == CES_OK; r++)
            rc = send_msg(ctx, b->peers[r], 0, b->size, buf, total, sendfds, nsend, r);
        if (rc == CES_OK) {
            memcpy(all, buf, (size_t)b->size * len);
            for (uint32_t r = 0, k = 0; r < b->size; r++) {
                if (!has[r])
                    continue;
                if (fds != NULL && r != 0)
                    fds[r] = sendfds[k];
                else if (r != 0)
                    close(sendfds[k]);
                k++;
            }
            if (fds != NULL && myfd >= 0)
                fds[0] = dup(myfd);
        } else {
            for (uint32_t k = (myfd >= 0 ? 1u : 0u); k < nsend; k++)
                close(sendfds[k]);
        }
    } else {
        int got[CES_BOOT_MAX_FDS];
        uint32_t n = 0;

        rc = send_msg(ctx, b->fd, b->rank, b->size, mine, len, &myfd, myfd >= 0 ? 1u : 0u, 0);
        if (rc == CES_OK)
            rc = recv_msg(ctx, b, b->fd, deadline, 0, buf, total, got, CES_BOOT_MAX_FDS, &n);
        if (rc == CES_OK) {
            unsigned char *has = buf + (size_t)b->size * len;

            memcpy(all, buf, (size_t)b->size * len);
            for (uint32_t r = 0, k = 0; r < b->size && k < n; r++) {
                if (!has[r])
                    continue;
                if (fds != NULL)
                    fds[r] = got[k];
                else
                    close(got[k]);
                k++;
            }
        }
    }
    ces_free(ctx, buf);
    return rc;
}

int ces_boot_barrier(struct ces_ctx *ctx, struct ces_boot *b)
{
    unsigned char one = 1, all[CES_MAX_RANKS];

    return ces_boot_allgather(ctx, b, &one, 1, -1, all, NULL);
}
