/*
 * backend/cuda/bench_nccl.c - NCCL loaded with dlopen for `cesync bench`
 * (see bench_nccl.h).  The few types and prototypes it needs are declared
 * here from NCCL 2.28's ABI; ncclConfig_t is passed with its own size and
 * version fields, which is how NCCL accepts configs of older layouts.
 */
#include "bench_nccl.h"
#include "runtime.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCCL_MAXR 8u

typedef int nres_t; /* ncclResult_t */
typedef struct ces_ncclComm *ncomm_t;
typedef struct ces_ncclWindow *nwin_t;
typedef struct {
    char internal[128];
} nuid_t;

/* ncclConfig_t as of NCCL 2.28 (ncclConfig_v22800). */
typedef struct {
    size_t size;
    unsigned int magic;
    unsigned int version;
    int blocking;
    int cgaClusterSize;
    int minCTAs;
    int maxCTAs;
    const char *netName;
    int splitShare;
    int trafficClass;
    const char *commName;
    int collnetEnable;
    int CTAPolicy;
    int shrinkShare;
    int nvlsCTAs;
    int nChannelsPerNetPeer;
    int nvlinkCentricSched;
} nconfig_t;

#define N_INT8 0
#define N_WIN_COLL_SYMMETRIC 0x01
#define N_CTA_POLICY_ZERO 0x02
#define N_VERSION_2_28_9 22809

struct ces_nccl {
    struct ces_ctx *ctx;
    void *lib;
    uint32_t n;
    int dev[NCCL_MAXR];
    ncomm_t comm[2][NCCL_MAXR];
    nwin_t win[2][NCCL_MAXR]; /* CE path: send and recv windows */
    nres_t (*GetVersion)(int *);
    nres_t (*GetUniqueId)(nuid_t *);
    nres_t (*CommInitRankConfig)(ncomm_t *, int, nuid_t, int, nconfig_t *);
    nres_t (*CommDestroy)(ncomm_t);
    nres_t (*GroupStart)(void);
    nres_t (*GroupEnd)(void);
    nres_t (*MemAlloc)(void **, size_t);
    nres_t (*MemFree)(void *);
    nres_t (*CommWindowRegister)(ncomm_t, void *, size_t, nwin_t *, int);
    nres_t (*CommWindowDeregister)(ncomm_t, nwin_t);
    nres_t (*AlltoAll)(const void *, void *, size_t, int, ncomm_t, cudaStream_t);
    nres_t (*AllGather)(const void *, void *, size_t, int, ncomm_t, cudaStream_t);
    nres_t (*Send)(const void *, size_t, int, int, ncomm_t, cudaStream_t);
    nres_t (*Recv)(void *, size_t, int, int, ncomm_t, cudaStream_t);
    /* the rooted collectives (send, recv, count, datatype, root, comm,
     * stream): looked up but not required, NULL where this NCCL lacks one
     * (ces_nccl_lacks) */
    nres_t (*Broadcast)(const void *, void *, size_t, int, int, ncomm_t, cudaStream_t);
    nres_t (*Gather)(const void *, void *, size_t, int, int, ncomm_t, cudaStream_t);
    nres_t (*Scatter)(const void *, void *, size_t, int, int, ncomm_t, cudaStream_t);
    const char *(*GetErrorString)(nres_t);
};

static int nfail(struct ces_nccl *x, nres_t r, const char *what)
{
    return ces_ctx_error(x->ctx, CES_ERR_CUDA, "NCCL %s: %s", what,
                         x->GetErrorString != NULL ? x->GetErrorString(r) : "error");
}

/* The directory of the Python wheel's NCCL, or "" (one popen, no shell
 * input from the user). */
static void wheel_dir(char *buf, size_t size)
{
    /* nvidia.nccl may be a namespace package (no __file__): then its __path__ */
    FILE *p = popen("python3 -c 'import os, nvidia.nccl as m; "
                    "print(os.path.dirname(m.__file__) if getattr(m, \"__file__\", None) "
                    "else list(m.__path__)[0])' 2>/dev/null",
                    "r");

    buf[0] = '\0';
    if (p == NULL)
        return;
    if (fgets(buf, (int)size, p) == NULL)
        buf[0] = '\0';
    pclose(p);
    buf[strcspn(buf, "\n")] = '\0';
}

static void *sym(struct ces_nccl *x, const char *name, int *missing)
{
    void *f = dlsym(x->lib, name);

    if (f == NULL)
        *missing = 1;
    return f;
}

int ces_nccl_open(struct ces_ctx *ctx, uint32_t n, const int *devs, struct ces_nccl **out,
                  char *info, size_t infosz)
{
    struct ces_nccl *x;
    char path[1024] = "", dir[900];
    const char *env = getenv("CES_NCCL_LIB");
    int missing = 0, ver = 0, rc = CES_OK;
    nres_t r;

    *out = NULL;
    if (n > NCCL_MAXR)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "NCCL: at most %u ranks here", NCCL_MAXR);
    x = ces_malloc(ctx, sizeof(*x));
    if (x == NULL)
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory");
    memset(x, 0, sizeof(*x));
    x->ctx = ctx;
    x->n = n;
    if (env != NULL && env[0] != '\0') {
        snprintf(path, sizeof(path), "%s", env);
    } else {
        wheel_dir(dir, sizeof(dir));
        if (dir[0] != '\0')
            snprintf(path, sizeof(path), "%s/lib/libnccl.so.2", dir);
    }
    if (path[0] != '\0')
        x->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (x->lib == NULL && env != NULL && env[0] != '\0') {
        /* the library asked for, not another one found instead */
        snprintf(info, infosz, "NCCL not loaded: CES_NCCL_LIB=%s: %s", env, dlerror());
        ces_free(ctx, x);
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED, "%s", info);
    }
    if (x->lib == NULL) {
        snprintf(path, sizeof(path), "libnccl.so.2");
        x->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (x->lib == NULL) {
        snprintf(info, infosz, "NCCL not found (set CES_NCCL_LIB): %s", dlerror());
        ces_free(ctx, x);
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED, "%s", info);
    }
    *(void **)&x->GetVersion = sym(x, "ncclGetVersion", &missing);
    *(void **)&x->GetUniqueId = sym(x, "ncclGetUniqueId", &missing);
    *(void **)&x->CommInitRankConfig = sym(x, "ncclCommInitRankConfig", &missing);
    *(void **)&x->CommDestroy = sym(x, "ncclCommDestroy", &missing);
    *(void **)&x->GroupStart = sym(x, "ncclGroupStart", &missing);
    *(void **)&x->GroupEnd = sym(x, "ncclGroupEnd", &missing);
    *(void **)&x->MemAlloc = sym(x, "ncclMemAlloc", &missing);
    *(void **)&x->MemFree = sym(x, "ncclMemFree", &missing);
    *(void **)&x->CommWindowRegister = sym(x, "ncclCommWindowRegister", &missing);
    *(void **)&x->CommWindowDeregister = sym(x, "ncclCommWindowDeregister", &missing);
    *(void **)&x->AlltoAll = sym(x, "ncclAlltoAll", &missing);
    *(void **)&x->AllGather = sym(x, "ncclAllGather", &missing);
    *(void **)&x->Send = sym(x, "ncclSend", &missing);
    *(void **)&x->Recv = sym(x, "ncclRecv", &missing);
    *(void **)&x->GetErrorString = sym(x, "ncclGetErrorString", &missing);
    *(void **)&x->Broadcast = dlsym(x->lib, "ncclBroadcast");
    *(void **)&x->Gather = dlsym(x->lib, "ncclGather");
    *(void **)&x->Scatter = dlsym(x->lib, "ncclScatter");
    if (missing || x->GetVersion(&ver) != 0 || ver < 22800) {
        snprintf(info, infosz, "%s: NCCL %d lacks the 2.28 API (window registration, CE path)",
                 path, ver);
        dlclose(x->lib);
        ces_free(ctx, x);
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED, "%s", info);
    }
    snprintf(info, infosz, "NCCL %d.%d.%d from %s (NCCL_NVLS_ENABLE=0)", ver / 10000,
             ver / 100 % 100, ver % 100, path);
    for (uint32_t i = 0; i < n; i++)
        x->dev[i] = devs[i];
    for (int ce = 0; ce < 2; ce++) {
        nuid_t uid;
        nconfig_t cfg = {sizeof(nconfig_t), 0xcafebeef, N_VERSION_2_28_9, INT_MIN, INT_MIN,
                         INT_MIN, INT_MIN, NULL, INT_MIN, INT_MIN, NULL, INT_MIN, INT_MIN,
                         INT_MIN, INT_MIN, INT_MIN, INT_MIN};

        if (ce)
            cfg.CTAPolicy = N_CTA_POLICY_ZERO;
        r = x->GetUniqueId(&uid);
        if (r != 0) {
            rc = nfail(x, r, "ncclGetUniqueId");
            goto fail;
        }
        x->GroupStart();
        for (uint32_t i = 0; i < n; i++) {
            cudaSetDevice(devs[i]);
            r = x->CommInitRankConfig(&x->comm[ce][i], (int)n, uid, (int)i, &cfg);
            if (r != 0)
                break;
        }
        if (r == 0)
            r = x->GroupEnd();
        else
            x->GroupEnd();
        if (r != 0) {
            rc = nfail(x, r, ce ? "ncclCommInitRankConfig (CTAPolicy ZERO)" : "ncclCommInitRankConfig");
            goto fail;
        }
    }
    *out = x;
    return CES_OK;
fail:
    snprintf(info + strlen(info), infosz - strlen(info), "; init failed: %s",
             ces_ctx_last_error(ctx));
    ces_nccl_close(x);
    return rc;
}

int ces_nccl_alloc(struct ces_nccl *x, int ce, uint64_t send_bytes, uint64_t recv_bytes,
                   void **send, void **recv)
{
    nres_t r = 0;
    int rc = CES_OK;

    for (uint32_t i = 0; i < x->n; i++) {
        send[i] = recv[i] = NULL;
        cudaSetDevice(x->dev[i]);
        if (ce) {
            r = x->MemAlloc(&send[i], send_bytes);
            if (r == 0)
                r = x->MemAlloc(&recv[i], recv_bytes);
            if (r != 0)
                return nfail(x, r, "ncclMemAlloc");
        } else {
            CES_RT_GOTO(x->ctx, rc, cudaMalloc(&send[i], send_bytes), out);
            CES_RT_GOTO(x->ctx, rc, cudaMalloc(&recv[i], recv_bytes), out);
        }
    }
    if (ce) {
        /* registration is collective: one group over the ranks per buffer */
        x->GroupStart();
        for (uint32_t i = 0; i < x->n && r == 0; i++) {
            cudaSetDevice(x->dev[i]);
            r = x->CommWindowRegister(x->comm[1][i], send[i], send_bytes, &x->win[0][i],
                                      N_WIN_COLL_SYMMETRIC);
        }
        r = r == 0 ? x->GroupEnd() : (x->GroupEnd(), r);
        if (r == 0) {
            x->GroupStart();
            for (uint32_t i = 0; i < x->n && r == 0; i++) {
                cudaSetDevice(x->dev[i]);
                r = x->CommWindowRegister(x->comm[1][i], recv[i], recv_bytes, &x->win[1][i],
                                          N_WIN_COLL_SYMMETRIC);
            }
            r = r == 0 ? x->GroupEnd() : (x->GroupEnd(), r);
        }
        if (r != 0)
            return nfail(x, r, "ncclCommWindowRegister");
    }
out:
    return rc;
}

void ces_nccl_free(struct ces_nccl *x, int ce, void **send, void **recv)
{
    if (ce) {
        for (int w = 0; w < 2; w++) {
            x->GroupStart();
            for (uint32_t i = 0; i < x->n; i++) {
                cudaSetDevice(x->dev[i]);
                if (x->win[w][i] != NULL)
                    x->CommWindowDeregister(x->comm[1][i], x->win[w][i]);
                x->win[w][i] = NULL;
            }
            x->GroupEnd();
        }
    }
    for (uint32_t i = 0; i < x->n; i++) {
        cudaSetDevice(x->dev[i]);
        if (ce) {
            if (send[i] != NULL)
                x->MemFree(send[i]);
            if (recv[i] != NULL)
                x->MemFree(recv[i]);
        } else {
            cudaFree(send[i]);
            cudaFree(recv[i]);
        }
        send[i] = recv[i] = NULL;
    }
}

const char *ces_nccl_lacks(const struct ces_nccl *x, uint32_t coll)
{
    switch (coll) {
    case CES_COLL_BROADCAST:
        return x->Broadcast == NULL ? "ncclBroadcast" : NULL;
    case CES_COLL_GATHER:
        return x->Gather == NULL ? "ncclGather" : NULL;
    case CES_COLL_SCATTER:
        return x->Scatter == NULL ? "ncclScatter" : NULL;
    default:
        return NULL; /* required by ces_nccl_open */
    }
}

int ces_nccl_coll(struct ces_nccl *x, int ce, uint32_t coll, void **send, void **recv,
                  uint64_t bytes, uint32_t root, void **streams, int one_way)
{
    nres_t r = 0, r2;

    x->GroupStart();
    for (uint32_t i = 0; i < x->n && r == 0; i++) {
        cudaStream_t s = (cudaStream_t)streams[i];
        ncomm_t c = x->comm[ce][i];

        cudaSetDevice(x->dev[i]);
        if (coll == CES_COLL_ALLTOALL)
            r = x->AlltoAll(send[i], recv[i], bytes / x->n, N_INT8, c, s);
        else if (coll == CES_COLL_ALLGATHER)
            r = x->AllGather(send[i], recv[i], bytes, N_INT8, c, s);
        else if (coll == CES_COLL_BROADCAST)
            r = x->Broadcast(send[i], recv[i], bytes, N_INT8, (int)root, c, s);
        else if (coll == CES_COLL_GATHER)
            r = x->Gather(send[i], recv[i], bytes, N_INT8, (int)root, c, s);
        else if (coll == CES_COLL_SCATTER)
            r = x->Scatter(send[i], recv[i], bytes, N_INT8, (int)root, c, s);
        else {
            if (!one_way || i + 1 < x->n)
                r = x->Send(send[i], bytes, N_INT8, (int)((i + 1) % x->n), c, s);
            if (r == 0 && (!one_way || i > 0))
                r = x->Recv(recv[i], bytes, N_INT8, (int)((i + x->n - 1) % x->n), c, s);
        }
    }
    r2 = x->GroupEnd();
    if (r == 0)
        r = r2;
    return r == 0 ? CES_OK : nfail(x, r, "collective");
}

void ces_nccl_close(struct ces_nccl *x)
{
    if (x == NULL)
        return;
    for (int ce = 0; ce < 2; ce++)
        for (uint32_t i = 0; i < x->n; i++)
            if (x->comm[ce][i] != NULL) {
                cudaSetDevice(x->dev[i]);
                x->CommDestroy(x->comm[ce][i]);
            }
    if (x->lib != NULL)
        dlclose(x->lib);
    ces_free(x->ctx, x);
}
