/*
 * tests/cuda/fake_nccl.c - a stand-in for libnccl.so.2 that cuda_test_nccl
 * hands `cesync bench`'s loader (CES_NCCL_LIB): the NCCL 2.28 functions the
 * bench looks up, defined with NCCL's own prototypes (nccl.h: the compiler
 * checks each against them) and its ncclConfig_t (so the config the bench
 * declares by hand is read at NCCL's offsets), each appending a line to a
 * log that the test reads (fake_nccl_log), without a GPU.  It lacks
 * ncclGather and ncclScatter, as an NCCL without the rooted collectives
 * does.  FAKE_NCCL_VERSION sets ncclGetVersion's answer (22809 by default);
 * FAKE_NCCL_FAIL="NAME:RANK" makes that call of rank RANK return
 * ncclInternalError, NAME being the first word of its line (init, winreg,
 * alltoall, send, ...).
 */
#include <nccl.h>

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A communicator: its rank and kind ('k': the default CTA policy, 'c':
 * CTAPolicy ZERO, the copy-engine path). */
struct ncclComm {
    int rank;
    char kind;
};

struct ncclWindow_vidmem {
    size_t size;
};

/* What the test reads and writes of the log; the two functions nccl.h
 * declares without their (empty) parameter list. */
void fake_nccl_note(const char *fmt, ...);
const char *fake_nccl_log(void);
void fake_nccl_log_clear(void);
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);

static char log_buf[1 << 16];
static size_t log_len;

void fake_nccl_note(const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(log_buf + log_len, sizeof(log_buf) - log_len, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof(log_buf) - log_len - 1) {
        log_len += (size_t)n;
        log_buf[log_len++] = '\n';
        log_buf[log_len] = '\0';
    }
}

const char *fake_nccl_log(void) { return log_buf; }

void fake_nccl_log_clear(void)
{
    log_len = 0;
    log_buf[0] = '\0';
}

/* ncclInternalError where FAKE_NCCL_FAIL names this call of this rank. */
static ncclResult_t outcome(const char *name, int rank)
{
    const char *f = getenv("FAKE_NCCL_FAIL");
    size_t n = strlen(name);

    if (f == NULL || strncmp(f, name, n) != 0 || f[n] != ':' || atoi(f + n + 1) != rank)
        return ncclSuccess;
    fake_nccl_note("  fails");
    return ncclInternalError;
}

/* "k0", "c1", ...: one a log line. */
static const char *comm_name(ncclComm_t c)
{
    static char name[16];

    snprintf(name, sizeof(name), "%c%d", c->kind, c->rank);
    return name;
}

static const char *config_int(int v) { return v == NCCL_CONFIG_UNDEF_INT ? "undef" : "set"; }

ncclResult_t ncclGetVersion(int *version)
{
    const char *e = getenv("FAKE_NCCL_VERSION");

    *version = e != NULL ? atoi(e) : NCCL_VERSION_CODE;
    fake_nccl_note("version");
    return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    memset(id, 0, sizeof(*id));
    fake_nccl_note("uid");
    return ncclSuccess;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank,
                                    ncclConfig_t *config)
{
    ncclComm_t c;

    (void)id;
    fake_nccl_note("init r%d/%d size=%s magic=%x version=%u blocking=%s minCTAs=%s cta=%s "
                   "nvlinkCentricSched=%s",
                   rank, nranks, config->size == sizeof(ncclConfig_t) ? "ok" : "other",
                   config->magic, config->version, config_int(config->blocking),
                   config_int(config->minCTAs),
                   config->CTAPolicy == NCCL_CTA_POLICY_ZERO ? "zero"
                                                             : config_int(config->CTAPolicy),
                   config_int(config->nvlinkCentricSched));
    if (outcome("init", rank) != ncclSuccess)
        return ncclInternalError;
    c = malloc(sizeof(*c));
    if (c == NULL)
        return ncclSystemError;
    c->rank = rank;
    c->kind = config->CTAPolicy == NCCL_CTA_POLICY_ZERO ? 'c' : 'k';
    *comm = c;
    return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    fake_nccl_note("destroy %s", comm_name(comm));
    free(comm);
    return ncclSuccess;
}

ncclResult_t ncclGroupStart(void)
{
    fake_nccl_note("group {");
    return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
    fake_nccl_note("} group");
    return ncclSuccess;
}

ncclResult_t ncclMemAlloc(void **ptr, size_t size)
{
    fake_nccl_note("memalloc %zu", size);
    *ptr = malloc(size);
    return *ptr != NULL ? ncclSuccess : ncclSystemError;
}

ncclResult_t ncclMemFree(void *ptr)
{
    fake_nccl_note("memfree");
    free(ptr);
    return ncclSuccess;
}

ncclResult_t ncclCommWindowRegister(ncclComm_t comm, void *buff, size_t size, ncclWindow_t *win,
                                    int winFlags)
{
    (void)buff;
    fake_nccl_note("winreg %s %zu %s", comm_name(comm), size,
                   winFlags == NCCL_WIN_COLL_SYMMETRIC ? "symmetric" : "other");
    if (outcome("winreg", comm->rank) != ncclSuccess)
        return ncclInternalError;
    *win = malloc(sizeof(**win));
    if (*win == NULL)
        return ncclSystemError;
    (*win)->size = size;
    return ncclSuccess;
}

ncclResult_t ncclCommWindowDeregister(ncclComm_t comm, ncclWindow_t win)
{
    fake_nccl_note("windereg %s %zu", comm_name(comm), win->size);
    free(win);
    return ncclSuccess;
}

ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count,
                          ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
    fake_nccl_note("alltoall %s %p -> %p count=%zu type=%d stream=%p", comm_name(comm), sendbuff,
                   recvbuff, count, (int)datatype, (void *)stream);
    return outcome("alltoall", comm->rank);
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                           ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
    fake_nccl_note("allgather %s %p -> %p count=%zu type=%d stream=%p", comm_name(comm),
                   sendbuff, recvbuff, sendcount, (int)datatype, (void *)stream);
    return outcome("allgather", comm->rank);
}

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)
{
    fake_nccl_note("broadcast %s %p -> %p count=%zu type=%d root=%d stream=%p", comm_name(comm),
                   sendbuff, recvbuff, count, (int)datatype, root, (void *)stream);
    return outcome("broadcast", comm->rank);
}

ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream)
{
    fake_nccl_note("send %s %p count=%zu type=%d peer=%d stream=%p", comm_name(comm), sendbuff,
                   count, (int)datatype, peer, (void *)stream);
    return outcome("send", comm->rank);
}

ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream)
{
    fake_nccl_note("recv %s %p count=%zu type=%d peer=%d stream=%p", comm_name(comm), recvbuff,
                   count, (int)datatype, peer, (void *)stream);
    return outcome("recv", comm->rank);
}

const char *ncclGetErrorString(ncclResult_t result)
{
    static char s[32];

    snprintf(s, sizeof(s), "fake error %d", (int)result);
    return s;
}
