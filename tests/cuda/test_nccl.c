/*
 * tests/cuda/test_nccl.c - how `cesync bench` loads and drives NCCL
 * (backend/cuda/bench_nccl.c), on the CPU: CES_NCCL_LIB names a stand-in
 * library (fake_nccl.c, built with NCCL's own header) that logs every call;
 * cudaSetDevice, cudaMalloc and cudaFree are stood in for here and log into
 * the same log, so that each call shows on which device it was made.  An
 * NCCL older than 2.28 or lacking a function is refused, naming it; the
 * two communicator sets are made with NCCL's config (its size, magic and
 * version, every setting left undefined but CTAPolicy, ZERO for the
 * copy-engine set); buffers of the copy-engine path come from ncclMemAlloc
 * and are registered as symmetric windows collectively; every collective
 * is one group over the ranks with NCCL's counts, roots and peers; a
 * failed NCCL call says which and why; close destroys every communicator.
 */
#include "ces_test.h"
#include "bench_nccl.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

static void *fake;
static void (*note)(const char *fmt, ...);
static const char *(*fake_log)(void);
static void (*log_clear)(void);

/* --- runtime stand-ins (the link lets them take cudart's place) ------------ */

cudaError_t cudaSetDevice(int device)
{
    note("dev %d", device);
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **ptr, size_t size)
{
    note("cudamalloc %zu", size);
    *ptr = malloc(size);
    return *ptr != NULL ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaFree(void *ptr)
{
    note("cudafree");
    free(ptr);
    return cudaSuccess;
}

static int setup(void **state)
{
    (void)state;
    /* the loader opens the same library: one copy, one log */
    fake = dlopen(CES_FAKE_NCCL, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(fake);
    *(void **)&note = dlsym(fake, "fake_nccl_note");
    *(void **)&fake_log = dlsym(fake, "fake_nccl_log");
    *(void **)&log_clear = dlsym(fake, "fake_nccl_log_clear");
    assert_true(note != NULL && fake_log != NULL && log_clear != NULL);
    setenv("CES_NCCL_LIB", CES_FAKE_NCCL, 1);
    unsetenv("FAKE_NCCL_VERSION");
    unsetenv("FAKE_NCCL_FAIL");
    log_clear();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unsetenv("CES_NCCL_LIB");
    unsetenv("FAKE_NCCL_VERSION");
    unsetenv("FAKE_NCCL_FAIL");
    dlclose(fake);
    return 0;
}

static const int devs[2] = {3, 5};

/* The log of opening both communicator sets on devices 3 and 5 (ranks 0
 * and 1). */
#define INIT_LINE(dev, rank, cta)                                                           \
    "dev " #dev "\ninit r" #rank "/2 size=ok magic=cafebeef version=22809 blocking=undef "  \
    "minCTAs=undef cta=" cta " nvlinkCentricSched=undef\n"
static const char open_log[] =
    "version\n"
    "uid\ngroup {\n" INIT_LINE(3, 0, "undef") INIT_LINE(5, 1, "undef") "} group\n"
    "uid\ngroup {\n" INIT_LINE(3, 0, "zero") INIT_LINE(5, 1, "zero") "} group\n";

static struct ces_nccl *open_both(struct ces_ctx *ctx)
{
    struct ces_nccl *x = NULL;
    char info[512], want[512];

    assert_int_equal(ces_nccl_open(ctx, 2, devs, &x, info, sizeof(info)), CES_OK);
    snprintf(want, sizeof(want), "NCCL 2.28.9 from %s (NCCL_NVLS_ENABLE=0)", CES_FAKE_NCCL);
    assert_string_equal(info, want);
    return x;
}

static void test_open_and_close(void **state)
{
    struct ces_test_alloc a;
    struct ces_ctx *ctx = ces_test_ctx(&a);
    struct ces_nccl *x;

    (void)state;
    x = open_both(ctx);
    assert_string_equal(fake_log(), open_log);
    assert_null(ces_nccl_lacks(x, CES_COLL_ALLTOALL));
    assert_null(ces_nccl_lacks(x, CES_COLL_ALLGATHER));
    assert_null(ces_nccl_lacks(x, CES_COLL_BROADCAST));
    assert_string_equal(ces_nccl_lacks(x, CES_COLL_GATHER), "ncclGather");
    assert_string_equal(ces_nccl_lacks(x, CES_COLL_SCATTER), "ncclScatter");
    log_clear();
    ces_nccl_close(x);
    assert_string_equal(fake_log(), "dev 3\ndestroy k0\ndev 5\ndestroy k1\n"
                                    "dev 3\ndestroy c0\ndev 5\ndestroy c1\n");
    ces_test_ctx_end(ctx, &a);
}

/* An NCCL before 2.28 (no windows, no copy-engine path), and a library
 * without NCCL's functions, refused with what was loaded; more ranks than
 * the bench drives. */
static void test_open_refused(void **state)
{
    struct ces_test_alloc a;
    struct ces_ctx *ctx = ces_test_ctx(&a);
    struct ces_nccl *x = NULL;
    char info[512], want[512];
    int many[9] = {0};

    (void)state;
    setenv("FAKE_NCCL_VERSION", "22703", 1);
    assert_int_equal(ces_nccl_open(ctx, 2, devs, &x, info, sizeof(info)), CES_ERR_UNSUPPORTED);
    snprintf(want, sizeof(want), "%s: NCCL 22703 lacks the 2.28 API (window registration, CE path)",
             CES_FAKE_NCCL);
    assert_string_equal(info, want);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    assert_string_equal(fake_log(), "version\n");
    assert_null(x);
    setenv("CES_NCCL_LIB", "libm.so.6", 1);
    assert_int_equal(ces_nccl_open(ctx, 2, devs, &x, info, sizeof(info)), CES_ERR_UNSUPPORTED);
    assert_string_equal(info, "libm.so.6: NCCL 0 lacks the 2.28 API (window registration, CE path)");
    assert_null(x);
    assert_int_equal(ces_nccl_open(ctx, 9, many, &x, info, sizeof(info)), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "NCCL: at most 8 ranks here");
    /* a library named that cannot be loaded: said, not replaced by the
     * machine's libnccl.so.2 */
    setenv("CES_NCCL_LIB", "/nonexistent/libnccl.so.2", 1);
    assert_int_equal(ces_nccl_open(ctx, 2, devs, &x, info, sizeof(info)), CES_ERR_UNSUPPORTED);
    assert_non_null(strstr(info, "NCCL not loaded: CES_NCCL_LIB=/nonexistent/libnccl.so.2: "));
    assert_non_null(strstr(info, "No such file or directory"));
    assert_string_equal(ces_ctx_last_error(ctx), info);
    assert_null(x);
    ces_test_ctx_end(ctx, &a);
}

/* A communicator that NCCL cannot make: the error names the call and
 * NCCL's reason, and the communicators made are destroyed. */
static void test_open_init_fails(void **state)
{
    struct ces_test_alloc a;
    struct ces_ctx *ctx = ces_test_ctx(&a);
    struct ces_nccl *x = NULL;
    char info[512], want[512];

    (void)state;
    setenv("FAKE_NCCL_FAIL", "init:1", 1);
    assert_int_equal(ces_nccl_open(ctx, 2, devs, &x, info, sizeof(info)), CES_ERR_CUDA);
    assert_null(x);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "NCCL ncclCommInitRankConfig: fake error 3");
    snprintf(want, sizeof(want),
             "NCCL 2.28.9 from %s (NCCL_NVLS_ENABLE=0); init failed: NCCL "
             "ncclCommInitRankConfig: fake error 3",
             CES_FAKE_NCCL);
    assert_string_equal(info, want);
    assert_non_null(strstr(fake_log(), "  fails\n} group\ndev 3\ndestroy k0\n"));
    assert_null(strstr(fake_log(), "destroy k1"));
    ces_test_ctx_end(ctx, &a);
}

/* The copy-engine path's buffers: ncclMemAlloc on each rank's device,
 * then one group per buffer registering every rank's as a symmetric
 * window; freed in the same groups, then the memory.  The kernel path's:
 * cudaMalloc and cudaFree. */
static void test_buffers(void **state)
{
    struct ces_test_alloc a;
    struct ces_ctx *ctx = ces_test_ctx(&a);
    struct ces_nccl *x;
    void *send[2], *recv[2];

    (void)state;
    x = open_both(ctx);
    log_clear();
    assert_int_equal(ces_nccl_alloc(x, 1, 100, 200, send, recv), CES_OK);
    assert_true(send[0] != NULL && send[1] != NULL && recv[0] != NULL && recv[1] != NULL);
    assert_string_equal(fake_log(),
                        "dev 3\nmemalloc 100\nmemalloc 200\ndev 5\nmemalloc 100\nmemalloc 200\n"
                        "group {\ndev 3\nwinreg c0 100 symmetric\ndev 5\nwinreg c1 100 symmetric\n"
                        "} group\n"
                        "group {\ndev 3\nwinreg c0 200 symmetric\ndev 5\nwinreg c1 200 symmetric\n"
                        "} group\n");
    log_clear();
    ces_nccl_free(x, 1, send, recv);
    assert_string_equal(fake_log(),
                        "group {\ndev 3\nwindereg c0 100\ndev 5\nwindereg c1 100\n} group\n"
                        "group {\ndev 3\nwindereg c0 200\ndev 5\nwindereg c1 200\n} group\n"
                        "dev 3\nmemfree\nmemfree\ndev 5\nmemfree\nmemfree\n");
    assert_true(send[0] == NULL && recv[1] == NULL);
    log_clear();
    assert_int_equal(ces_nccl_alloc(x, 0, 100, 200, send, recv), CES_OK);
    ces_nccl_free(x, 0, send, recv);
    assert_string_equal(fake_log(),
                        "dev 3\ncudamalloc 100\ncudamalloc 200\ndev 5\ncudamalloc 100\n"
                        "cudamalloc 200\ndev 3\ncudafree\ncudafree\ndev 5\ncudafree\ncudafree\n");
    /* a registration NCCL refuses: the group still ends, the error says so */
    setenv("FAKE_NCCL_FAIL", "winreg:1", 1);
    log_clear();
    assert_int_equal(ces_nccl_alloc(x, 1, 100, 200, send, recv), CES_ERR_CUDA);
    assert_string_equal(ces_ctx_last_error(ctx), "NCCL ncclCommWindowRegister: fake error 3");
    assert_non_null(strstr(fake_log(), "winreg c1 100 symmetric\n  fails\n} group\n"));
    assert_null(strstr(fake_log(), "winreg c0 200"));
    unsetenv("FAKE_NCCL_FAIL");
    ces_nccl_free(x, 1, send, recv);
    ces_nccl_close(x);
    ces_test_ctx_end(ctx, &a);
}

/* Each collective: one group over the ranks, each rank's call on its
 * device and stream with NCCL's count of int8 (the bench's bytes per rank;
 * alltoall's split among the ranks), root, and peers (sendrecv: the ring
 * r -> r+1, or one way, rank 0 sending and the last rank receiving only). */
static void test_collectives(void **state)
{
    struct ces_test_alloc a;
    struct ces_ctx *ctx = ces_test_ctx(&a);
    struct ces_nccl *x;
    void *send[2] = {(void *)0x1000, (void *)0x1100}, *recv[2] = {(void *)0x2000, (void *)0x2100};
    void *streams[2] = {(void *)0x50, (void *)0x51};

    (void)state;
    x = open_both(ctx);
    log_clear();
    assert_int_equal(ces_nccl_coll(x, 1, CES_COLL_ALLTOALL, send, recv, 64, 0, streams, 0),
                     CES_OK);
    assert_int_equal(ces_nccl_coll(x, 0, CES_COLL_ALLGATHER, send, recv, 64, 0, streams, 0),
                     CES_OK);
    assert_int_equal(ces_nccl_coll(x, 1, CES_COLL_BROADCAST, send, recv, 64, 1, streams, 0),
                     CES_OK);
    assert_string_equal(
        fake_log(),
        "group {\ndev 3\nalltoall c0 0x1000 -> 0x2000 count=32 type=0 stream=0x50\n"
        "dev 5\nalltoall c1 0x1100 -> 0x2100 count=32 type=0 stream=0x51\n} group\n"
        "group {\ndev 3\nallgather k0 0x1000 -> 0x2000 count=64 type=0 stream=0x50\n"
        "dev 5\nallgather k1 0x1100 -> 0x2100 count=64 type=0 stream=0x51\n} group\n"
        "group {\ndev 3\nbroadcast c0 0x1000 -> 0x2000 count=64 type=0 root=1 stream=0x50\n"
        "dev 5\nbroadcast c1 0x1100 -> 0x2100 count=64 type=0 root=1 stream=0x51\n} group\n");
    log_clear();
    assert_int_equal(ces_nccl_coll(x, 1, CES_COLL_SENDRECV, send, recv, 64, 0, streams, 0),
                     CES_OK);
    assert_int_equal(ces_nccl_coll(x, 1, CES_COLL_SENDRECV, send, recv, 64, 0, streams, 1),
                     CES_OK);
    assert_string_equal(fake_log(),
                        "group {\ndev 3\nsend c0 0x1000 count=64 type=0 peer=1 stream=0x50\n"
                        "recv c0 0x2000 count=64 type=0 peer=1 stream=0x50\n"
                        "dev 5\nsend c1 0x1100 count=64 type=0 peer=0 stream=0x51\n"
                        "recv c1 0x2100 count=64 type=0 peer=0 stream=0x51\n} group\n"
                        "group {\ndev 3\nsend c0 0x1000 count=64 type=0 peer=1 stream=0x50\n"
                        "dev 5\nrecv c1 0x2100 count=64 type=0 peer=0 stream=0x51\n} group\n");
    /* a call NCCL refuses: no rank after it calls, the group ends */
    setenv("FAKE_NCCL_FAIL", "alltoall:0", 1);
    log_clear();
    assert_int_equal(ces_nccl_coll(x, 1, CES_COLL_ALLTOALL, send, recv, 64, 0, streams, 0),
                     CES_ERR_CUDA);
    assert_string_equal(ces_ctx_last_error(ctx), "NCCL collective: fake error 3");
    assert_string_equal(fake_log(),
                        "group {\ndev 3\nalltoall c0 0x1000 -> 0x2000 count=32 type=0 "
                        "stream=0x50\n  fails\n} group\n");
    unsetenv("FAKE_NCCL_FAIL");
    ces_nccl_close(x);
    ces_test_ctx_end(ctx, &a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_open_and_close, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_init_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_buffers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_collectives, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
