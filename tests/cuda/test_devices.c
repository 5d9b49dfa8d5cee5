/*
 * tests/cuda/test_devices.c - `cesync devices` (tools/devices.c, compiled
 * in) over the library's ces_devices_query, ces_devices_peer_set and
 * ces_devices_fit, on the CPU: the driver's calls and the runtime's count
 * replaced by stand-ins that describe a machine of 1, 2 or 4 GPUs with the
 * peers a test chooses, or one without a driver or without a GPU, or
 * whose driver fails for a GPU or a pair the test chooses.  Each test
 * asserts the command's whole output and its exit code.
 */
#include "ces_test.h"
#include "bench_gpu.h"
#include "cu_api.h"
#include "tool.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* --- the machine the stand-ins describe ------------------------------------ */

#define GPUS_MAX 72
static int gpus;                      /* 0: cudaErrorNoDevice */
static cudaError_t count_error;       /* what the runtime's count says */
static int runtime_counts;            /* how often it was asked */
static int peer[GPUS_MAX][GPUS_MAX];  /* [from][to]: cuDeviceCanAccessPeer */
static int name_fail;                 /* cuDeviceGetName fails on this GPU, -1 none */
static int engines_fail;              /* so does the copy engines' attribute */
static int peer_fail[2];              /* cuDeviceCanAccessPeer fails [from, to], -1 none */

cudaError_t cudaGetDeviceCount(int *n)
{
    runtime_counts++;
    *n = gpus;
    if (count_error != cudaSuccess)
        return count_error;
    return gpus == 0 ? cudaErrorNoDevice : cudaSuccess;
}

/* no driver at all: version 0, which says "no NVIDIA driver is installed" */
cudaError_t cudaDriverGetVersion(int *v)
{
    *v = 0;
    return cudaSuccess;
}

const struct ces_cu_api *ces_cu_load(void)
{
    return ces_cu();
}

static CUresult CUDAAPI fake_init(unsigned int flags)
{
    (void)flags;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_count(int *n)
{
    *n = gpus;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_get(CUdevice *d, int ordinal)
{
    *d = (CUdevice)ordinal;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_name(char *name, int len, CUdevice d)
{
    if ((int)d == name_fail)
        return CUDA_ERROR_INVALID_DEVICE;
    snprintf(name, (size_t)len, "Stand-in GPU %s", d % 2 ? "B" : "Model A");
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_bus(char *bus, int len, CUdevice d)
{
    snprintf(bus, (size_t)len, "0000:%02X:00.0", 0x18 + 0x10 * (int)d);
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_total(size_t *bytes, CUdevice d)
{
    *bytes = ((size_t)80 << 30) - ((size_t)d << 29); /* 80, 79.5, 79, 78.5 GiB */
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_attribute(int *v, CUdevice_attribute a, CUdevice d)
{
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT:
        if ((int)d == engines_fail)
            return CUDA_ERROR_INVALID_DEVICE;
        *v = 5;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_can_access(int *ok, CUdevice from, CUdevice to)
{
    if ((int)from == peer_fail[0] && (int)to == peer_fail[1])
        return CUDA_ERROR_INVALID_DEVICE;
    *ok = peer[from][to];
    return CUDA_SUCCESS;
}

/* The link's attributes: said only between peers (rank 0, atomics for GPU
 * pairs of one parity, none across), refused otherwise, as the driver may. */
static CUresult CUDAAPI fake_p2p(int *v, CUdevice_P2PAttribute a, CUdevice from, CUdevice to)
{
    if (!peer[from][to])
        return CUDA_ERROR_NOT_SUPPORTED;
    *v = a == CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK ? (int)(from + to) % 2 * 12
                                                       : (from + to) % 2 == 0;
    return CUDA_SUCCESS;
}

/* A rank's context: where a rank that the GPUs take first meets the
 * driver, refused here so that it ends there. */
static CUresult CUDAAPI fake_retain(CUcontext *c, CUdevice d)
{
    (void)c;
    (void)d;
    return CUDA_ERROR_NOT_PERMITTED;
}

static CUresult CUDAAPI fake_error_name(CUresult r, const char **s)
{
    *s = r == CUDA_ERROR_INVALID_DEVICE ? "CUDA_ERROR_INVALID_DEVICE" : "CUDA_ERROR_?";
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI fake_error_string(CUresult r, const char **s)
{
    (void)r;
    *s = "stand-in";
    return CUDA_SUCCESS;
}

/* This test's process, and whether a child of it that writes more than a
 * page dies after the first (cesync run's probing child, whose description
 * is larger: a child that dies mid-write). */
static pid_t test_pid;
static int child_dies_writing;

/* write(2), through writev, but as child_dies_writing says. */
ssize_t write(int fd, const void *buf, size_t n)
{
    struct iovec v;

    v.iov_base = (void *)(uintptr_t)buf;
    v.iov_len = n;
    if (child_dies_writing && getpid() != test_pid && n > 4096) {
        v.iov_len = 4096;
        if (writev(fd, &v, 1) < 0)
            _exit(2);
        _exit(1);
    }
    return writev(fd, &v, 1);
}

/* A machine of n GPUs, none peers of another yet. */
static void machine(int n)
{
    struct ces_cu_api *t = (struct ces_cu_api *)ces_cu();

    t->p_cuInit = fake_init;
    t->p_cuDeviceGetCount = fake_count;
    t->p_cuDeviceGet = fake_get;
    t->p_cuDeviceGetName = fake_name;
    t->p_cuDeviceGetPCIBusId = fake_bus;
    t->p_cuDeviceTotalMem = fake_total;
    t->p_cuDeviceGetAttribute = fake_attribute;
    t->p_cuDeviceCanAccessPeer = fake_can_access;
    t->p_cuDeviceGetP2PAttribute = fake_p2p;
    t->p_cuGetErrorName = fake_error_name;
    t->p_cuGetErrorString = fake_error_string;
    t->p_cuDevicePrimaryCtxRetain = fake_retain;
    gpus = n;
    count_error = cudaSuccess;
    name_fail = -1;
    engines_fail = -1;
    peer_fail[0] = peer_fail[1] = -1;
    memset(peer, 0, sizeof(peer));
    unsetenv("CES_SHARE_GPUS");
    unsetenv("CUDA_VISIBLE_DEVICES");
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
}

static void peers(int a, int b)
{
    peer[a][b] = peer[b][a] = 1;
}

/* --- the command --------------------------------------------------------- */

/* Runs a command, ces_cmd_devices or another, with args[0..argc): its exit
 * code, its standard output and its standard error (each cut to size). */
static int tool_run(int (*cmd)(int, char **), int argc, const char *const *args, char *out,
                    char *err, size_t size)
{
    char tmpl[2][256];
    char *argv[8], *got[2] = {out, err};
    int fd[2], saved[2], rc;

    assert_true(argc < 8);
    for (int i = 0; i < argc; i++)
        argv[i] = (char *)args[i];
    argv[argc] = NULL;
    fflush(stdout);
    fflush(stderr);
    /* files without a name once open: a command that crashes or fails an
     * assertion leaves none behind */
    for (int k = 0; k < 2; k++) {
        snprintf(tmpl[k], sizeof(tmpl[k]), "%s/ces-devices-%sXXXXXX", ces_test_tmp_base(),
                 k == 0 ? "out" : "err");
        fd[k] = mkstemp(tmpl[k]);
        assert_true(fd[k] >= 0);
        unlink(tmpl[k]);
        saved[k] = dup(k + 1);
        assert_true(saved[k] >= 0);
        assert_int_equal(dup2(fd[k], k + 1), k + 1);
    }
    rc = cmd(argc, argv);
    fflush(stdout);
    fflush(stderr);
    for (int k = 0; k < 2; k++) {
        ssize_t n;

        assert_int_equal(dup2(saved[k], k + 1), k + 1);
        close(saved[k]);
        n = pread(fd[k], got[k], size - 1, 0);
        assert_true(n >= 0);
        got[k][n] = '\0';
        close(fd[k]);
    }
    return rc;
}

/* tool_run, its exit code, standard output and standard error checked,
 * each whole. */
static void tool_says(int (*cmd)(int, char **), int argc, const char *const *args, int rc,
                      const char *out, const char *err)
{
    char got[2][8192];
    int got_rc = tool_run(cmd, argc, args, got[0], got[1], sizeof(got[0]));

    if (got_rc != rc || strcmp(got[0], out) != 0 || strcmp(got[1], err) != 0)
        fail_msg("exit %d (want %d)\nstdout:\n%s\nwant:\n%s\nstderr:\n%s\nwant:\n%s", got_rc, rc,
                 got[0], out, got[1], err);
}

static void devices_says(int argc, const char *const *args, int rc, const char *out,
                         const char *err)
{
    tool_says(ces_cmd_devices, argc, args, rc, out, err);
}

static const char one_gpu[] =
    "GPU  name                  memory GiB  PCI bus id    copy engines  compute\n"
    "  0  Stand-in GPU Model A        80.0  0000:18:00.0             5      9.0\n"
    "\n"
    "peers: can the row's GPU access the column's memory, the link's performance rank, "
    "native atomics\n"
    "from\\to  0\n"
    "      0  self\n"
    "\n"
    "verdict: cesync run can use up to 1 rank here (rank r on GPU r)\n";

/* One GPU: its row, a matrix of itself, one rank; two ranks refused,
 * saying CES_SHARE_GPUS=1 would let them share it (exit 1). */
static void test_devices_one_gpu(void **state)
{
    static const char *const two[] = {"--ranks", "2"}, *const one[] = {"--ranks", "1"};
    char want[2048];

    (void)state;
    machine(1);
    devices_says(0, NULL, 0, one_gpu, "");
    snprintf(want, sizeof(want), "%s--ranks 1: they can run here\n", one_gpu);
    devices_says(2, one, 0, want, "");
    snprintf(want, sizeof(want),
             "%s--ranks 2: they cannot run here: 2 ranks but this machine has 1 GPU "
             "(CES_SHARE_GPUS=1 lets ranks share GPUs, for tests)\n",
             one_gpu);
    devices_says(2, two, 1, want, "");
    /* (where ranks share it: test_devices_shared_gpus) */
    /* a value run refuses, before any table */
    setenv("CES_SHARE_GPUS", "yes", 1);
    devices_says(0, NULL, 2, "", "cesync: devices: CES_SHARE_GPUS must be 0 or 1, not 'yes'\n");
    unsetenv("CES_SHARE_GPUS");
}

/* What devices prints of two stand-in GPUs that are peers, before its
 * verdict. */
#define TWO_PEERS                                                                        \
    "GPU  name                  memory GiB  PCI bus id    copy engines  compute\n"       \
    "  0  Stand-in GPU Model A        80.0  0000:18:00.0             5      9.0\n"       \
    "  1  Stand-in GPU B              79.5  0000:28:00.0             5      9.0\n"       \
    "\n"                                                                                 \
    "peers: can the row's GPU access the column's memory, the link's performance rank, " \
    "native atomics\n"                                                                   \
    "from\\to  0          1\n"                                                           \
    "      0  self       yes 12 no\n"                                                    \
    "      1  yes 12 no  self\n"                                                         \
    "\n"

/* Two GPUs that are peers: both rows, the link's rank and atomics each
 * way, two ranks. */
static void test_devices_two_peers(void **state)
{
    static const char *const two[] = {"--ranks", "2"};
    static const char tables[] =
        TWO_PEERS
        "verdict: cesync run can use up to 2 ranks here (rank r on GPU r): GPUs 0..1 are all "
        "peers of each other\n";
    char want[2048];

    (void)state;
    machine(2);
    peers(0, 1);
    devices_says(0, NULL, 0, tables, "");
    snprintf(want, sizeof(want), "%s--ranks 2: they can run here\n", tables);
    devices_says(2, two, 0, want, "");
}

/* Four GPUs, 0-1 and 2-3 peers but none across: the largest set of peers
 * is two (GPUs 0 and 1, the first such), --ranks 4 is refused naming the
 * first pair of ranks that are not peers, --ranks 2 runs.  Where the
 * largest set is not GPUs 0..k-1 (GPU 0 a peer of none, 1-2-3 all peers),
 * the verdict names it apart, and how to number it from 0. */
static void test_devices_split(void **state)
{
    static const char *const four[] = {"--ranks", "4"}, *const two[] = {"--ranks", "2"};
    static const char head[] =
        "GPU  name                  memory GiB  PCI bus id    copy engines  compute\n"
        "  0  Stand-in GPU Model A        80.0  0000:18:00.0             5      9.0\n"
        "  1  Stand-in GPU B              79.5  0000:28:00.0             5      9.0\n"
        "  2  Stand-in GPU Model A        79.0  0000:38:00.0             5      9.0\n"
        "  3  Stand-in GPU B              78.5  0000:48:00.0             5      9.0\n"
        "\n"
        "peers: can the row's GPU access the column's memory, the link's performance rank, "
        "native atomics\n";
    static const char pairs[] =
        "from\\to  0          1          2          3\n"
        "      0  self       yes 12 no  no   - -   no   - -\n"
        "      1  yes 12 no  self       no   - -   no   - -\n"
        "      2  no   - -   no   - -   self       yes 12 no\n"
        "      3  no   - -   no   - -   yes 12 no  self\n"
        "\n"
        "verdict: cesync run can use up to 2 ranks here (rank r on GPU r): GPUs 0..1 are all "
        "peers of each other\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_devices *d = malloc(sizeof(*d));
    uint64_t set = 0;
    char want[4096];

    (void)state;
    assert_non_null(d);
    machine(4);
    peers(0, 1);
    peers(2, 3);
    assert_int_equal(ces_devices_query(ctx, d), CES_OK);
    assert_int_equal(d->count, 4);
    assert_int_equal(ces_devices_peer_set(d, &set), 2);
    assert_int_equal(set, 0x3);
    snprintf(want, sizeof(want), "%s%s", head, pairs);
    devices_says(0, NULL, 0, want, "");
    snprintf(want, sizeof(want),
             "%s%s--ranks 4: they cannot run here: ranks 0 and 2: GPU 0 cannot access GPU 2's "
             "memory (cuDeviceCanAccessPeer: they are not peers, by NVLink or PCIe); every rank "
             "maps every other rank's memory, so every pair of GPUs must be peers\n",
             head, pairs);
    devices_says(2, four, 1, want, "");
    snprintf(want, sizeof(want), "%s%s--ranks 2: they can run here\n", head, pairs);
    devices_says(2, two, 0, want, "");
    /* one way only is no peer: GPU 3 cannot reach GPU 1, which reaches it */
    peers(0, 2);
    peers(0, 3);
    peers(1, 2);
    peer[1][3] = 1;
    assert_int_equal(ces_devices_query(ctx, d), CES_OK);
    assert_int_equal(ces_devices_fit(ctx, d, 4, 0), CES_ERR_UNSUPPORTED);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "ranks 1 and 3: GPU 3 cannot access GPU 1's memory "
                        "(cuDeviceCanAccessPeer: they are not peers, by NVLink or PCIe); every "
                        "rank maps every other rank's memory, so every pair of GPUs must be "
                        "peers");
    assert_int_equal(ces_devices_peer_set(d, &set), 3);
    assert_int_equal(set, 0x7);
    /* the largest set elsewhere than at GPU 0 */
    machine(4);
    peers(1, 2);
    peers(1, 3);
    peers(2, 3);
    assert_int_equal(ces_devices_query(ctx, d), CES_OK);
    assert_int_equal(ces_devices_peer_set(d, &set), 3);
    assert_int_equal(set, 0xe);
    {
        static const char *const three[] = {"--ranks", "3"};
        static const char tail[] =
            "from\\to  0           1           2           3\n"
            "      0  self        no   - -    no   - -    no   - -\n"
            "      1  no   - -    self        yes 12 no   yes  0 yes\n"
            "      2  no   - -    yes 12 no   self        yes 12 no\n"
            "      3  no   - -    yes  0 yes  yes 12 no   self\n"
            "\n"
            "verdict: cesync run can use up to 1 rank here (rank r on GPU r); the largest set "
            "of GPUs that are all peers of each other is 1, 2, 3 (CUDA_VISIBLE_DEVICES=1,2,3 "
            "numbers them 0..2)\n"
            "--ranks 3: they cannot run here: ranks 0 and 1: GPU 0 cannot access GPU 1's "
            "memory (cuDeviceCanAccessPeer: they are not peers, by NVLink or PCIe); every "
            "rank maps every other rank's memory, so every pair of GPUs must be peers\n";

        snprintf(want, sizeof(want), "%s%s", head, tail);
        devices_says(2, three, 1, want, "");
    }
    free(d);
    ces_test_ctx_end(ctx, &st);
}

/* Without a driver and without a GPU: one line on stderr, exit 2, as
 * cesync run says them. */
static void test_devices_no_driver(void **state)
{
    (void)state;
    machine(2);
    count_error = cudaErrorInsufficientDriver;
    devices_says(0, NULL, 2, "",
                 "cesync: devices: no CUDA GPU can be used: no NVIDIA driver is installed "
                 "(cudaErrorInsufficientDriver)\n");
    /* a CES_SHARE_GPUS that run refuses is said before the GPUs are asked
     * (it was "no CUDA GPU can be used"), by devices as by run */
    setenv("CES_SHARE_GPUS", "yes", 1);
    devices_says(0, NULL, 2, "", "cesync: devices: CES_SHARE_GPUS must be 0 or 1, not 'yes'\n");
    {
        static const char *const run2[] = {"barrier", "--ranks", "2"};

        tool_says(ces_cmd_run, 3, run2, 2, "",
                  "cesync: run: CES_SHARE_GPUS must be 0 or 1, not 'yes'\n");
    }
    unsetenv("CES_SHARE_GPUS");
    machine(0);
    devices_says(0, NULL, 2, "", "cesync: devices: no CUDA GPU is available on this machine\n");
}

/* A GPU the driver fails to describe (cuDeviceGetName on GPU 1 of two
 * peers) is listed in its place with the call that failed and the
 * driver's words, '?' for its pairs, and the verdict and --ranks judge the
 * ranks on the other GPU: the command said only "GPU 1: .../devices.c:66:
 * cuDeviceGetName(d->name, (int)sizeof(d->name), dev[at]) failed: ..."
 * and exit 2, as ces_devices_query failed whole. */
static void test_devices_gpu_not_described(void **state)
{
    static const char *const one[] = {"--ranks", "1"}, *const two[] = {"--ranks", "2"};
    static const char error[] = "cuDeviceGetName failed: CUDA_ERROR_INVALID_DEVICE (101): stand-in";
    static const char tables[] =
        "GPU  name                  memory GiB  PCI bus id    copy engines  compute\n"
        "  0  Stand-in GPU Model A        80.0  0000:18:00.0             5      9.0\n"
        "  1  not described: cuDeviceGetName failed: CUDA_ERROR_INVALID_DEVICE (101): "
        "stand-in\n"
        "\n"
        "peers: can the row's GPU access the column's memory, the link's performance rank, "
        "native atomics\n"
        "from\\to  0     1\n"
        "      0  self  ?\n"
        "      1  ?     self\n"
        "\n"
        "verdict: cesync run can use up to 1 rank here (rank r on GPU r)\n";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_devices *d = malloc(sizeof(*d));
    uint64_t set = 0;
    char want[2048];

    (void)state;
    assert_non_null(d);
    machine(2);
    peers(0, 1);
    name_fail = 1;
    assert_int_equal(ces_devices_query(ctx, d), CES_OK);
    assert_int_equal(d->count, 2);
    assert_string_equal(d->dev[0].error, "");
    assert_string_equal(d->dev[0].name, "Stand-in GPU Model A");
    assert_string_equal(d->dev[1].error, error);
    assert_string_equal(d->dev[1].name, "");
    assert_int_equal(d->pair[0][1].access, 0);
    assert_int_equal(d->pair[1][0].perf_rank, -1);
    assert_int_equal(d->pair[1][0].atomics, -1);
    assert_int_equal(ces_devices_peer_set(d, &set), 1);
    assert_int_equal(set, 0x1);
    devices_says(0, NULL, 0, tables, "");
    snprintf(want, sizeof(want), "%s--ranks 1: they can run here\n", tables);
    devices_says(2, one, 0, want, "");
    snprintf(want, sizeof(want),
             "%s--ranks 2: they cannot run here: rank 1 would be on GPU 1, which the driver "
             "cannot describe: %s\n",
             tables, error);
    devices_says(2, two, 1, want, "");
    /* every GPU: none can be used, and the largest set of peers is none */
    machine(1);
    name_fail = 0;
    assert_int_equal(ces_devices_query(ctx, d), CES_OK);
    assert_int_equal(ces_devices_peer_set(d, &set), 0);
    assert_int_equal(set, 0);
    devices_says(0, NULL, 0,
                 "GPU  name  memory GiB  PCI bus id  copy engines  compute\n"
                 "  0  not described: cuDeviceGetName failed: CUDA_ERROR_INVALID_DEVICE (101): "
                 "stand-in\n"
                 "\n"
                 "peers: can the row's GPU access the column's memory, the link's performance "
                 "rank, native atomics\n"
                 "from\\to  0\n"
                 "      0  self\n"
                 "\n"
                 "verdict: cesync run can use up to 0 ranks here (rank r on GPU r)\n",
                 "");
    free(d);
    ces_test_ctx_end(ctx, &st);
}

/* With CES_SHARE_GPUS=1 the verdict counts the ranks that share the GPUs
 * as ces_comm_init_all and cesync run place them (it said "up to 1 rank"
 * on one GPU, and --ranks 8 "they can run here", where one process is
 * refused more than 4 ranks on a GPU): one process per rank up to run's
 * 64, in one process 4 a GPU, none sharing one below 8 hardware queues;
 * run --single-process and bench refuse what the verdict says they
 * refuse, in its words. */
static void test_devices_shared_gpus(void **state)
{
    static const char *const two[] = {"--ranks", "2"}, *const eight[] = {"--ranks", "8"},
                             *const big[] = {"--ranks", "64"},
                             *const single8[] = {"barrier", "--ranks", "8", "--single-process"},
                             *const bench8[] = {"alltoall", "--ranks", "8"},
                             *const bench2[] = {"alltoall", "--ranks", "2"};
    static const char head[] =
        "GPU  name                  memory GiB  PCI bus id    copy engines  compute\n"
        "  0  Stand-in GPU Model A        80.0  0000:18:00.0             5      9.0\n"
        "\n"
        "peers: can the row's GPU access the column's memory, the link's performance rank, "
        "native atomics\n"
        "from\\to  0\n"
        "      0  self\n"
        "\n";
    static const char two_gpus[] = TWO_PEERS;
    static const char crowd[] =
        "8 ranks of one process on GPU 0: at most 4 (their streams would outnumber its hardware "
        "queues, and a wait of one rank could hold another's writes; 8 on one H200 deadlocked)";
    static const char queues[] =
        "ranks 0 and 1 share GPU 0 in one process, whose streams CUDA_DEVICE_MAX_CONNECTIONS=4 "
        "puts on 4 hardware queues: a wait of one rank would hold the other's writes behind it "
        "for ever (one process per rank, or 8 queues or more)";
    char want[4096];

    (void)state;
    machine(1);
    setenv("CES_SHARE_GPUS", "1", 1);
    snprintf(want, sizeof(want),
             "%sverdict: cesync run can use up to 64 ranks here (CES_SHARE_GPUS=1: rank r on GPU "
             "r %% 1), 4 in one process (cesync run --single-process, cesync bench)\n"
             "--ranks 2: they can run here\n",
             head);
    devices_says(2, two, 0, want, "");
    snprintf(want, sizeof(want),
             "%sverdict: cesync run can use up to 64 ranks here (CES_SHARE_GPUS=1: rank r on GPU "
             "r %% 1), 4 in one process (cesync run --single-process, cesync bench)\n"
             "--ranks 64: they can run here, one process per rank (cesync run); not in one "
             "process (cesync run --single-process, cesync bench): 64 ranks of one process on "
             "GPU 0: at most 4 (their streams would outnumber its hardware queues, and a wait of "
             "one rank could hold another's writes; 8 on one H200 deadlocked)\n",
             head);
    devices_says(2, big, 0, want, "");
    snprintf(want, sizeof(want), "cesync: run: %s\n", crowd);
    tool_says(ces_cmd_run, 4, single8, 2, "", want);
    snprintf(want, sizeof(want), "cesync: bench: %s\n", crowd);
    tool_says(ces_cmd_bench, 3, bench8, 2, "", want);
    /* fewer queues than CUDA's 8: no two ranks of one process on a GPU */
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "4", 1);
    snprintf(want, sizeof(want),
             "%sverdict: cesync run can use up to 64 ranks here (CES_SHARE_GPUS=1: rank r on GPU "
             "r %% 1), 1 in one process (cesync run --single-process, cesync bench)\n"
             "--ranks 8: they can run here, one process per rank (cesync run); not in one "
             "process (cesync run --single-process, cesync bench): %s\n",
             head, queues);
    devices_says(2, eight, 0, want, "");
    snprintf(want, sizeof(want), "cesync: bench: %s\n", queues);
    tool_says(ces_cmd_bench, 3, bench2, 2, "", want);
    /* two GPUs that are peers: 4 ranks a GPU in one process, 8 */
    machine(2);
    peers(0, 1);
    setenv("CES_SHARE_GPUS", "1", 1);
    {
        struct ces_test_alloc st;
        struct ces_ctx *ctx = ces_test_ctx(&st);
        struct ces_devices *d = malloc(sizeof(*d));

        assert_non_null(d);
        assert_int_equal(ces_devices_query(ctx, d), CES_OK);
        assert_int_equal(ces_devices_fit(ctx, d, 8, 1), CES_OK);
        assert_int_equal(ces_devices_fit(ctx, d, 9, 1), CES_ERR_UNSUPPORTED);
        assert_string_equal(ces_ctx_last_error(ctx),
                            "5 ranks of one process on GPU 0: at most 4 (their streams would "
                            "outnumber its hardware queues, and a wait of one rank could hold "
                            "another's writes; 8 on one H200 deadlocked)");
        assert_int_equal(ces_devices_fit(ctx, d, 64, 0), CES_OK);
        free(d);
        ces_test_ctx_end(ctx, &st);
    }
    /* the verdict names the peers of the GPUs the ranks share (not of 64
     * GPUs, of which it would say nothing) */
    snprintf(want, sizeof(want),
             "%sverdict: cesync run can use up to 64 ranks here (CES_SHARE_GPUS=1: rank r on GPU "
             "r %% 2), 8 in one process (cesync run --single-process, cesync bench): GPUs 0..1 "
             "are all peers of each other\n",
             two_gpus);
    devices_says(0, NULL, 0, want, "");
    /* without it no GPU is shared: the verdict is the GPUs' */
    unsetenv("CES_SHARE_GPUS");
    snprintf(want, sizeof(want),
             "%sverdict: cesync run can use up to 2 ranks here (rank r on GPU r): GPUs 0..1 are "
             "all peers of each other\n",
             two_gpus);
    devices_says(0, NULL, 0, want, "");
}

/* Too few GPUs are said in one wording (peers.c) wherever ranks are
 * placed: cesync devices --ranks, ces_comm_init_all, the bench's
 * ces_bench_open, cesync run and cesync bench (each had words of its own:
 * "(one rank per GPU; ...)", "2 GPUs needed, 1 found", "the schedule has
 * 2 ranks ..."); no GPU at all, where CES_SHARE_GPUS=1 lets ranks share
 * one, too. */
static void test_devices_too_few_one_wording(void **state)
{
    static const char *const dev2[] = {"--ranks", "2"},
                             *const run2[] = {"barrier", "--ranks", "2"},
                             *const bench2[] = {"alltoall", "--ranks", "2"};
    static const char too_few[] =
        "2 ranks but this machine has 1 GPU (CES_SHARE_GPUS=1 lets ranks share GPUs, for tests)";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_comm *comms[2];
    struct ces_bench *b = NULL;
    struct ces_bench_cfg cfg;
    char want[2048];

    (void)state;
    memset(&cfg, 0, sizeof(cfg));
    cfg.ranks = 2;
    cfg.coll = CES_COLL_ALLTOALL;
    cfg.max_bytes = 4096;
    machine(1);
    snprintf(want, sizeof(want), "%s--ranks 2: they cannot run here: %s\n", one_gpu, too_few);
    devices_says(2, dev2, 1, want, "");
    assert_int_equal(ces_comm_init_all(ctx, 2, NULL, comms), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), too_few);
    assert_int_equal(ces_bench_open(ctx, &cfg, &b), CES_ERR_LIMIT);
    assert_null(b);
    assert_string_equal(ces_ctx_last_error(ctx), too_few);
    snprintf(want, sizeof(want), "cesync: run: %s\n", too_few);
    tool_says(ces_cmd_run, 3, run2, 2, "", want);
    {
        /* a file's ranks at its `ranks` line, as its other header settings
         * are refused (it said the words alone) */
        static const char *const file[] = {CES_FIXTURES "/good/alltoall.ces"};

        tool_says(ces_cmd_run, 1, file, 2, "",
                  "cesync: run: " CES_FIXTURES "/good/alltoall.ces:2:7: 4 ranks but this "
                  "machine has 1 GPU (CES_SHARE_GPUS=1 lets ranks share GPUs, for tests)\n");
    }
    snprintf(want, sizeof(want), "cesync: bench: %s\n", too_few);
    tool_says(ces_cmd_bench, 3, bench2, 2, "", want);
    machine(0);
    setenv("CES_SHARE_GPUS", "1", 1);
    tool_says(ces_cmd_bench, 3, bench2, 2, "",
              "cesync: bench: 2 ranks but this machine has no GPU\n");
    unsetenv("CES_SHARE_GPUS");
    ces_test_ctx_end(ctx, &st);
}

/* ces_bench_open counts the GPUs once, in the description it judges the
 * ranks on (it asked the runtime's count, then ces_devices_query asked it
 * again, and its own answer decided --with-compute's GPU per rank), and
 * says a driver that fails in its own words. */
static void test_devices_bench_counts_once(void **state)
{
    static const char *const bench2[] = {"alltoall", "--ranks", "2"};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_bench *b = NULL;
    struct ces_bench_cfg cfg;

    (void)state;
    memset(&cfg, 0, sizeof(cfg));
    cfg.ranks = 2;
    cfg.coll = CES_COLL_ALLTOALL;
    cfg.max_bytes = 4096;
    machine(1);
    runtime_counts = 0;
    assert_int_equal(ces_bench_open(ctx, &cfg, &b), CES_ERR_LIMIT);
    assert_null(b);
    assert_int_equal(runtime_counts, 1);
    machine(2);
    peers(0, 1);
    setenv("CES_SHARE_GPUS", "1", 1);
    cfg.ranks = 4;
    cfg.with_compute = 1;
    runtime_counts = 0;
    assert_int_equal(ces_bench_open(ctx, &cfg, &b), CES_ERR_UNSUPPORTED);
    assert_null(b);
    assert_int_equal(runtime_counts, 1);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "--with-compute needs a GPU per rank: 4 ranks share 2 GPUs here (the "
                        "share kept would compare kernels of ranks sharing a GPU)");
    unsetenv("CES_SHARE_GPUS");
    /* the settings are its caller's to judge first (cesync bench does):
     * one it did not is refused by ces_comm_init_all, after the count, and
     * no default is taken for it */
    cfg.ranks = 2;
    cfg.with_compute = 0;
    setenv("CES_TIMEOUT_MS", "abc", 1);
    runtime_counts = 0;
    assert_int_equal(ces_bench_open(ctx, &cfg, &b), CES_ERR_INVALID);
    assert_null(b);
    assert_int_equal(runtime_counts, 1);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "CES_TIMEOUT_MS must be 1..4294967295 milliseconds (digits), not 'abc'");
    unsetenv("CES_TIMEOUT_MS");
    count_error = cudaErrorInsufficientDriver;
    tool_says(ces_cmd_bench, 3, bench2, 2, "",
              "cesync: bench: no GPU can be used: no NVIDIA driver is installed "
              "(cudaErrorInsufficientDriver) (--dry-run predicts without one)\n");
    ces_test_ctx_end(ctx, &st);
}

/* cesync run and cesync bench judge the ranks as cesync devices --ranks N
 * does, before a rank starts, and say the same words: on four GPUs, 0-1
 * and 2-3 peers, 4 ranks are refused naming ranks 0 and 2 (run's ranks,
 * one process each, failed their first allocation, and bench went on to
 * create the communicators); with CES_SHARE_GPUS=1 on two GPUs that are
 * not peers, ranks 0 and 1.  Without a driver or a GPU run says what it
 * said. */
static void test_devices_run_bench_refuse_alike(void **state)
{
    static const char *const run4[] = {"barrier", "--ranks", "4"},
                             *const single4[] = {"barrier", "--ranks", "4", "--single-process"},
                             *const run_all[] = {"alltoall"},
                             *const bench4[] = {"alltoall", "--ranks", "4"};
    static const char not_peers[] =
        "ranks 0 and 2: GPU 0 cannot access GPU 2's memory (cuDeviceCanAccessPeer: they are "
        "not peers, by NVLink or PCIe); every rank maps every other rank's memory, so every "
        "pair of GPUs must be peers";
    char *said = NULL, want[1024];

    (void)state;
    machine(4);
    peers(0, 1);
    peers(2, 3);
    {
        /* what devices --ranks 4 says after "they cannot run here: "
         * (test_devices_split) */
        struct ces_test_alloc st;
        struct ces_ctx *ctx = ces_test_ctx(&st);
        struct ces_devices *d = malloc(sizeof(*d));

        assert_non_null(d);
        assert_int_equal(ces_devices_query(ctx, d), CES_OK);
        assert_int_equal(ces_devices_fit(ctx, d, 4, 0), CES_ERR_UNSUPPORTED);
        said = strdup(ces_ctx_last_error(ctx));
        assert_string_equal(said, not_peers);
        free(d);
        ces_test_ctx_end(ctx, &st);
    }
    snprintf(want, sizeof(want), "cesync: run: %s\n", said);
    tool_says(ces_cmd_run, 3, run4, 2, "", want);
    tool_says(ces_cmd_run, 4, single4, 2, "", want);
    tool_says(ces_cmd_run, 1, run_all, 2, "", want);
    snprintf(want, sizeof(want), "cesync: bench: %s\n", said);
    tool_says(ces_cmd_bench, 3, bench4, 2, "", want);
    free(said);
    machine(2);
    setenv("CES_SHARE_GPUS", "1", 1);
    tool_says(ces_cmd_run, 3, run4, 2, "",
              "cesync: run: ranks 0 and 1: GPU 0 cannot access GPU 1's memory "
              "(cuDeviceCanAccessPeer: they are not peers, by NVLink or PCIe); every rank maps "
              "every other rank's memory, so every pair of GPUs must be peers\n");
    unsetenv("CES_SHARE_GPUS");
    count_error = cudaErrorInsufficientDriver;
    tool_says(ces_cmd_run, 3, run4, 2, "",
              "cesync: run: no CUDA GPU can be used: no NVIDIA driver is installed "
              "(cudaErrorInsufficientDriver)\n");
    machine(0);
    tool_says(ces_cmd_run, 3, run4, 2, "", "cesync: run: no CUDA GPU is available on this machine\n");
}

/* cesync run's probing child dies after a page of the description it
 * sends (larger than a pipe holds): run reads to the end, finds it short
 * and says so, not a verdict on the page (its GPU count, and no pair of
 * peers: "ranks 0 and 1: GPU 0 cannot access GPU 1's memory"), nor that
 * there is no GPU, as it said at first. */
static void test_devices_probe_dies_mid_write(void **state)
{
    static const char *const run2[] = {"barrier", "--ranks", "2"};

    (void)state;
    machine(2);
    peers(0, 1);
    test_pid = getpid();
    child_dies_writing = 1;
    tool_says(ces_cmd_run, 3, run2, 2, "",
              "cesync: run: the process that described the GPUs ended after 4096 bytes of its "
              "description, before its end\n");
    child_dies_writing = 0;
}

/* Runs `cmd` (run or bench) with args[0..argc), which the GPUs take, so its
 * ranks start and meet the stand-in's refused context (fake_retain): exit
 * 2, standard output `out`, and on standard error a line of each rank that
 * starts with `first` (and `second`, in either order) and ends with the
 * driver's refusal; where `second` is a rank of its own process, run then
 * says how many ranks ran to the end. */
static void retain_says(const char *const *args, int argc, int (*cmd)(int, char **),
                        const char *out, const char *first, const char *second)
{
    static const char refused[] =
        "cuDevicePrimaryCtxRetain(&c->cuctx, c->cudev) failed: CUDA_ERROR_? (800): stand-in\n";
    char got[2][2048], *line = got[1];
    int seen[2] = {0, 0};

    assert_int_equal(tool_run(cmd, argc, args, got[0], got[1], sizeof(got[0])), 2);
    assert_string_equal(got[0], out);
    for (int k = 0; k < (second != NULL ? 2 : 1); k++) {
        char *end = strchr(line, '\n');
        size_t n = end != NULL ? (size_t)(end - line) + 1 : 0;
        int which = strncmp(line, first, strlen(first)) == 0                      ? 0
                    : second != NULL && strncmp(line, second, strlen(second)) == 0 ? 1
                                                                                   : -1;

        if (which < 0 || seen[which] || n < sizeof(refused) - 1 ||
            strncmp(line + n - (sizeof(refused) - 1), refused, sizeof(refused) - 1) != 0)
            fail_msg("stderr:\n%s", got[1]);
        seen[which] = 1;
        line += n;
    }
    assert_string_equal(line, second != NULL ? "cesync: run: 0 of 2 ranks ran to the end\n" : "");
}

/* A GPU that no rank is on stops none: on four GPUs, all peers, whose GPU 3
 * the driver fails to describe (its copy engines' attribute), 2 ranks go
 * on to start (the stand-in refuses their contexts, which ends them
 * there), in run, one process or one per rank, and in bench,
 * where both refused them ("GPU 3: .../devices.c:...: cuDeviceGetAttribute(
 * ...) failed: ..."); ranks on GPU 3 are refused naming the first such
 * rank, the GPU and the call, with CES_SHARE_GPUS=1 too.  The later GPU of
 * a pair whose cuDeviceCanAccessPeer fails is not described: ranks use it
 * exactly where they use the pair. */
static void test_devices_unused_gpu_fails(void **state)
{
    static const char *const run2[] = {"barrier", "--ranks", "2", "--single-process"},
                             *const run4[] = {"barrier", "--ranks", "4"},
                             *const run3[] = {"barrier", "--ranks", "3"},
                             *const run8[] = {"barrier", "--ranks", "8"},
                             *const bench2[] = {"alltoall", "--ranks", "2"},
                             *const bench4[] = {"alltoall", "--ranks", "4"},
                             *const dev3[] = {"--ranks", "3"};
    static const char engines[] =
        "rank 3 would be on GPU 3, which the driver cannot describe: "
        "cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT) failed: "
        "CUDA_ERROR_INVALID_DEVICE (101): stand-in";
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_devices *d = malloc(sizeof(*d));
    char want[2048];

    (void)state;
    assert_non_null(d);
    machine(4);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            peer[i][j] = i != j;
    engines_fail = 3;
    retain_says(run2, 4, ces_cmd_run, "cesync run: 2 ranks, one process, 1 iteration in 1 block\n",
                "cesync: run: rank 0 (device 0): ", NULL);
    /* (each rank says it, in whichever order they end) */
    retain_says(run2, 3, ces_cmd_run,
                "cesync run: 2 ranks, one process per rank, 1 iteration in 1 block\n",
                "cesync: run: rank 0: rank 0 (device 0): ",
                "cesync: run: rank 1: rank 1 (device 1): ");
    retain_says(bench2, 3, ces_cmd_bench, "", "cesync: bench: rank 0 (device 0): ", NULL);
    snprintf(want, sizeof(want), "cesync: run: %s\n", engines);
    tool_says(ces_cmd_run, 3, run4, 2, "", want);
    setenv("CES_SHARE_GPUS", "1", 1);
    tool_says(ces_cmd_run, 3, run8, 2, "", want);
    unsetenv("CES_SHARE_GPUS");
    snprintf(want, sizeof(want), "cesync: bench: %s\n", engines);
    tool_says(ces_cmd_bench, 3, bench4, 2, "", want);
    assert_int_equal(ces_devices_query(ctx, d), CES_OK);
    assert_int_equal(ces_devices_fit(ctx, d, 3, 0), CES_OK);
    assert_int_equal(ces_devices_fit(ctx, d, 4, 1), CES_ERR_CUDA);
    assert_string_equal(ces_ctx_last_error(ctx), engines);
    /* GPU 2 cannot say whether GPU 1 reaches it */
    engines_fail = -1;
    peer_fail[0] = 1;
    peer_fail[1] = 2;
    assert_int_equal(ces_devices_query(ctx, d), CES_OK);
    assert_string_equal(d->dev[1].error, "");
    assert_string_equal(d->dev[2].error,
                        "cuDeviceCanAccessPeer(GPU 1, GPU 2) failed: CUDA_ERROR_INVALID_DEVICE "
                        "(101): stand-in");
    assert_int_equal(ces_devices_fit(ctx, d, 2, 1), CES_OK);
    tool_says(ces_cmd_run, 3, run3, 2, "",
              "cesync: run: rank 2 would be on GPU 2, which the driver cannot describe: "
              "cuDeviceCanAccessPeer(GPU 1, GPU 2) failed: CUDA_ERROR_INVALID_DEVICE (101): "
              "stand-in\n");
    devices_says(
        2, dev3, 1,
        "GPU  name                  memory GiB  PCI bus id    copy engines  compute\n"
        "  0  Stand-in GPU Model A        80.0  0000:18:00.0             5      9.0\n"
        "  1  Stand-in GPU B              79.5  0000:28:00.0             5      9.0\n"
        "  2  not described: cuDeviceCanAccessPeer(GPU 1, GPU 2) failed: "
        "CUDA_ERROR_INVALID_DEVICE (101): stand-in\n"
        "  3  Stand-in GPU B              78.5  0000:48:00.0             5      9.0\n"
        "\n"
        "peers: can the row's GPU access the column's memory, the link's performance rank, "
        "native atomics\n"
        "from\\to  0           1           2           3\n"
        "      0  self        yes 12 no   ?           yes 12 no\n"
        "      1  yes 12 no   self        ?           yes  0 yes\n"
        "      2  ?           ?           self        ?\n"
        "      3  yes 12 no   yes  0 yes  ?           self\n"
        "\n"
        "verdict: cesync run can use up to 2 ranks here (rank r on GPU r); the largest set of "
        "GPUs that are all peers of each other is 0, 1, 3 (CUDA_VISIBLE_DEVICES=0,1,3 numbers "
        "them 0..2)\n"
        "--ranks 3: they cannot run here: rank 2 would be on GPU 2, which the driver cannot "
        "describe: cuDeviceCanAccessPeer(GPU 1, GPU 2) failed: CUDA_ERROR_INVALID_DEVICE (101): "
        "stand-in\n",
        "");
    free(d);
    ces_test_ctx_end(ctx, &st);
}

/* More GPUs than a description holds (CES_DEVICES_MAX, 64; the command
 * failed whole, "72 GPUs: at most 64 can be described", and run and bench,
 * which ask it, with it): the first 64, which hold every GPU of run's at
 * most 64 ranks, a line saying which are left out, the matrix of the 64
 * and the verdict on them; run and bench judge their ranks on them. */
static void test_devices_many_gpus(void **state)
{
    static const char *const r64[] = {"--ranks", "64"}, *const run2[] = {"barrier", "--ranks", "2"},
                             *const bench2[] = {"alltoall", "--ranks", "2"};
    static const char not_peers[] =
        "ranks 0 and 1: GPU 0 cannot access GPU 1's memory (cuDeviceCanAccessPeer: they are not "
        "peers, by NVLink or PCIe); every rank maps every other rank's memory, so every pair of "
        "GPUs must be peers";
    static const char beyond[] =
        "rank 64 would be on GPU 64, which is not described: of the 72 GPUs CUDA counts the "
        "first 64 are";
    static char out[1 << 17];
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_devices *d = malloc(sizeof(*d));
    char err[1024], want[1024];
    const char *at;

    (void)state;
    assert_non_null(d);
    machine(72);
    for (int i = 0; i < 72; i++)
        for (int j = 0; j < 72; j++)
            peer[i][j] = i != j;
    assert_int_equal(ces_devices_query(ctx, d), CES_OK);
    assert_int_equal(d->count, 64);
    assert_int_equal(d->total, 72);
    assert_int_equal(tool_run(ces_cmd_devices, 2, r64, out, err, sizeof(out)), 0);
    assert_string_equal(err, "");
    /* GPU 63's row, then the line; no row of GPU 64 in either table */
    at = strstr(out, "\nGPUs 64..71 of the 72 that CUDA counts are left out: at most 64 are "
                     "described, and cesync run puts its ranks (at most 64) on GPUs 0..63\n\n"
                     "peers:");
    assert_non_null(at);
    while (at > out && at[-1] != '\n')
        at--;
    assert_int_equal(strncmp(at, " 63  Stand-in GPU B", 19), 0);
    assert_null(strstr(out, "\n 64  "));
    assert_non_null(strstr(out, "\n     63  yes 12 no "));
    assert_null(strstr(out, "\n     64  "));
    at = strstr(out, "\n\nverdict: ");
    assert_non_null(at);
    assert_string_equal(at, "\n\nverdict: cesync run can use up to 64 ranks here (rank r on GPU "
                            "r): GPUs 0..63 are all peers of each other\n"
                            "--ranks 64: they can run here\n");
    /* more ranks than described are judged on the 72 GPUs CUDA counts, as
     * ces_comm_init_all places them (rank r on GPU r % 72): 65 put rank 64
     * on GPU 64, which is not described (said "65 ranks but this machine
     * has 64 GPUs", and with CES_SHARE_GPUS=1 judged it on GPU 0), 73 are
     * too many for 72 */
    assert_int_equal(ces_devices_fit(ctx, d, 65, 0), CES_ERR_LIMIT);
    assert_string_equal(ces_ctx_last_error(ctx), beyond);
    assert_int_equal(ces_devices_fit(ctx, d, 73, 0), CES_ERR_LIMIT);
    assert_string_equal(ces_ctx_last_error(ctx), "73 ranks but this machine has 72 GPUs "
                                                 "(CES_SHARE_GPUS=1 lets ranks share GPUs, for "
                                                 "tests)");
    setenv("CES_SHARE_GPUS", "1", 1);
    assert_int_equal(ces_devices_fit(ctx, d, 65, 0), CES_ERR_LIMIT);
    assert_string_equal(ces_ctx_last_error(ctx), beyond);
    assert_int_equal(ces_devices_fit(ctx, d, 64, 1), CES_OK);
    assert_int_equal(tool_run(ces_cmd_devices, 0, NULL, out, err, sizeof(out)), 0);
    assert_string_equal(err, "");
    at = strstr(out, "\n\nverdict: ");
    assert_non_null(at);
    assert_string_equal(at, "\n\nverdict: cesync run can use up to 64 ranks here "
                            "(CES_SHARE_GPUS=1: rank r on GPU r % 72): GPUs 0..63 are all peers "
                            "of each other\n");
    unsetenv("CES_SHARE_GPUS");
    /* run and bench judge their ranks on the 64 */
    peer[0][1] = peer[1][0] = 0;
    snprintf(want, sizeof(want), "cesync: run: %s\n", not_peers);
    tool_says(ces_cmd_run, 3, run2, 2, "", want);
    snprintf(want, sizeof(want), "cesync: bench: %s\n", not_peers);
    tool_says(ces_cmd_bench, 3, bench2, 2, "", want);
    free(d);
    ces_test_ctx_end(ctx, &st);
}

/* Bad usage: exit 2 before the driver is asked. */
static void test_devices_usage(void **state)
{
    static const char *const zero[] = {"--ranks", "0"}, *const big[] = {"--ranks", "65"},
                             *const none[] = {"--ranks"}, *const word[] = {"x"};

    (void)state;
    machine(0);
    count_error = cudaErrorInsufficientDriver;
    devices_says(2, zero, 2, "", "cesync: devices: --ranks expects a number in 1..64, not '0'\n");
    devices_says(2, big, 2, "", "cesync: devices: --ranks expects a number in 1..64, not '65'\n");
    devices_says(1, none, 2, "", "cesync: devices: --ranks expects a number in 1..64\n");
    devices_says(1, word, 2, "",
                 "cesync: devices: unexpected argument 'x' (see cesync devices --help)\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devices_one_gpu),
        cmocka_unit_test(test_devices_two_peers),
        cmocka_unit_test(test_devices_split),
        cmocka_unit_test(test_devices_no_driver),
        cmocka_unit_test(test_devices_gpu_not_described),
        cmocka_unit_test(test_devices_shared_gpus),
        cmocka_unit_test(test_devices_too_few_one_wording),
        cmocka_unit_test(test_devices_bench_counts_once),
        cmocka_unit_test(test_devices_many_gpus),
        cmocka_unit_test(test_devices_run_bench_refuse_alike),
        cmocka_unit_test(test_devices_probe_dies_mid_write),
        cmocka_unit_test(test_devices_unused_gpu_fails),
        cmocka_unit_test(test_devices_usage),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
