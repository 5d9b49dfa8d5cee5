/*
 * tests/cuda/test_no_comm.c - the CUDA backend's calls where no communicator
 * exists, on the CPU: every call on a communicator given NULL answers as
 * docs/API.md says (CES_ERR_INVALID, 0 ranks, device -1, no peer address,
 * a NULL destroyed as nothing), and the constructors refuse what they
 * refuse before the driver is asked (arguments, environment settings) with
 * the same status and message, their outputs NULL, in a build with CUDA
 * (on a machine with a GPU or without) and one without.  In a cesync built
 * without CUDA (CES_TEST_NO_CUDA; backend/cuda/absent.c) every one of
 * those calls links, and the constructors given what passes fail with
 * CES_ERR_UNSUPPORTED saying why, as ces_devices_query does.  Which GPUs
 * of a description made by hand can run ranks together, in both builds.
 */
#include "ces_test.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the constructors read, unset: the test sets what it means. */
static const char *const settings[] = {
    "CES_TIMEOUT_MS", "CES_P2P_STAGE_MAX", "CES_P2P_SIDE_MIN", "CES_SHARE_GPUS", "CES_STRIDE",
    "RANK", "WORLD_SIZE", "LOCAL_RANK", "CES_RENDEZVOUS", "CUDA_DEVICE_MAX_CONNECTIONS",
};

static void settings_clear(void)
{
    for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
        unsetenv(settings[i]);
}

/* The context's last error is `want`, else the test fails naming `what`. */
static void said(struct ces_ctx *ctx, const char *what, const char *want)
{
    if (strcmp(ces_ctx_last_error(ctx), want) != 0)
        fail_msg("%s: '%s', expected '%s'", what, ces_ctx_last_error(ctx), want);
}

static void test_null_comm(void **state)
{
    int x = 0;
    void *p = &x;

    (void)state;
    assert_int_equal(ces_comm_destroy(NULL), CES_OK);
    assert_int_equal(ces_comm_abort(NULL), CES_ERR_INVALID);
    assert_int_equal(ces_comm_status(NULL), CES_ERR_INVALID);
    assert_int_equal(ces_comm_rank(NULL), 0);
    assert_int_equal(ces_comm_size(NULL), 0);
    assert_int_equal(ces_comm_device(NULL), -1);
    assert_int_equal(ces_mem_alloc(NULL, 64, &p), CES_ERR_INVALID);
    assert_ptr_equal(p, &x); /* nothing written */
    assert_int_equal(ces_mem_free(NULL, &x), CES_ERR_INVALID);
    assert_null(ces_mem_peer(NULL, &x, 0));
    assert_int_equal(ces_launch(NULL, NULL, NULL, 0, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_alltoall(NULL, &x, &x, 4, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_allgather(NULL, &x, &x, 4, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_barrier(NULL, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_broadcast(NULL, &x, &x, 4, 0, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_gather(NULL, &x, &x, 4, 0, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_scatter(NULL, &x, &x, 4, 0, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_group_start(NULL), CES_ERR_INVALID);
    assert_int_equal(ces_group_end(NULL, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_send(NULL, &x, 4, 1), CES_ERR_INVALID);
    assert_int_equal(ces_recv(NULL, &x, 4, 1), CES_ERR_INVALID);
}

/* ces_comm_init's refusals of its arguments, in the order the checks
 * come (a rank past the size before a bootstrap, both before the
 * settings, which come before the device): the build without CUDA gave
 * CES_ERR_UNSUPPORTED, "built without CUDA", for each of them. */
static void test_init_arguments_refused(void **state)
{
    static const struct {
        uint32_t rank, size;
        int device;
        const char *bootstrap, *timeout;
        int rc;
        const char *error;
    } rows[] = {
        {2, 2, 0, "@x", NULL, CES_ERR_INVALID, "rank 2 of 2: expected 0 <= rank < size <= 1024"},
        {0, 0, 0, NULL, NULL, CES_ERR_INVALID, "rank 0 of 0: expected 0 <= rank < size <= 1024"},
        {0, 1025, 0, "@x", NULL, CES_ERR_INVALID,
         "rank 0 of 1025: expected 0 <= rank < size <= 1024"},
        {2, 2, -1, NULL, "2s", CES_ERR_INVALID, "rank 2 of 2: expected 0 <= rank < size <= 1024"},
        {0, 2, 0, NULL, NULL, CES_ERR_INVALID, "a communicator of 2 ranks needs a bootstrap path"},
        {1, 2, 0, "", "2s", CES_ERR_INVALID, "a communicator of 2 ranks needs a bootstrap path"},
        {0, 2, 0, "@", NULL, CES_ERR_INVALID,
         "bootstrap abstract name '@' is empty: a name follows the '@'"},
        /* one rank: its bootstrap is not looked at */
        {0, 1, 0, "@", "0", CES_ERR_INVALID,
         "CES_TIMEOUT_MS must be 1..4294967295 milliseconds (digits), not '0'"},
        {0, 251, 0, "@x", NULL, CES_ERR_UNSUPPORTED,
         "a communicator of 251 processes: at most 250 (each symmetric allocation passes every "
         "process's memory handle through rank 0 in one message)"},
        {0, 1, -1, NULL, NULL, CES_ERR_INVALID,
         "rank 0: device -1 does not exist (devices are numbered from 0)"},
        {1, 2, INT_MIN, "@x", NULL, CES_ERR_INVALID,
         "rank 1: device -2147483648 does not exist (devices are numbered from 0)"},
        {0, 1, -1, NULL, "2s", CES_ERR_INVALID,
         "CES_TIMEOUT_MS must be 1..4294967295 milliseconds (digits), not '2s'"},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_comm *c = NULL;
    char path[120], want[256], what[32];

    (void)state;
    settings_clear();
    assert_int_equal(ces_comm_init(NULL, 0, 1, 0, NULL, &c), CES_ERR_INVALID);
    assert_int_equal(ces_comm_init(ctx, 0, 1, 0, NULL, NULL), CES_ERR_INVALID);
    said(ctx, "NULL out", "ces_comm_init: NULL argument");
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        snprintf(what, sizeof(what), "row %zu", i);
        if (rows[i].timeout != NULL)
            setenv("CES_TIMEOUT_MS", rows[i].timeout, 1);
        c = (struct ces_comm *)&st;
        assert_int_equal(ces_comm_init(ctx, rows[i].rank, rows[i].size, rows[i].device,
                                       rows[i].bootstrap, &c),
                         rows[i].rc);
        assert_null(c);
        said(ctx, what, rows[i].error);
        unsetenv("CES_TIMEOUT_MS");
    }
    /* a path of 108 bytes, an abstract name of 108 after the '@' */
    memset(path, 'a', 108);
    path[108] = '\0';
    assert_int_equal(ces_comm_init(ctx, 1, 2, 0, path, &c), CES_ERR_INVALID);
    snprintf(want, sizeof(want), "bootstrap path '%s' is longer than 107 bytes", path);
    said(ctx, "path", want);
    path[0] = '@';
    path[108] = 'a';
    path[109] = '\0';
    assert_int_equal(ces_comm_init(ctx, 1, 2, 0, path, &c), CES_ERR_INVALID);
    snprintf(want, sizeof(want),
             "bootstrap abstract name '%s' is longer than 107 bytes after the '@'", path);
    said(ctx, "abstract name", want);
    assert_null(c);
    ces_test_ctx_end(ctx, &st);
}

/* A malformed setting refused by each constructor, naming the variable and
 * its value, every argument valid; a bootstrap refused comes first. */
static void test_settings_refused(void **state)
{
    static const struct {
        const char *name, *value, *error;
    } rows[] = {
        {"CES_TIMEOUT_MS", "2s", "CES_TIMEOUT_MS must be 1..4294967295 milliseconds (digits), "
                                 "not '2s'"},
        {"CES_TIMEOUT_MS", "4294967296", "CES_TIMEOUT_MS must be 1..4294967295 milliseconds "
                                         "(digits), not '4294967296'"},
        {"CES_P2P_STAGE_MAX", "64MB", "CES_P2P_STAGE_MAX must be 0..2^48 bytes (digits, then K, "
                                      "M or G if wanted), not '64MB'"},
        {"CES_P2P_SIDE_MIN", "262145G", "CES_P2P_SIDE_MIN must be 0..2^48 bytes (digits, then K, "
                                        "M or G if wanted), not '262145G'"},
        {"CES_SHARE_GPUS", "yes", "CES_SHARE_GPUS must be 0 or 1, not 'yes'"},
        {"CES_STRIDE", "2MB", "CES_STRIDE must be 1..2^48 bytes (digits, then K, M or G if "
                              "wanted), not '2MB'"},
        {"CES_STRIDE", "0", "CES_STRIDE must be 1..2^48 bytes (digits, then K, M or G if "
                            "wanted), not '0'"},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_comm *c = NULL, *all[2];
    char what[64];

    (void)state;
    settings_clear();
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        setenv(rows[i].name, rows[i].value, 1);
        snprintf(what, sizeof(what), "ces_comm_init, %s", rows[i].value);
        c = (struct ces_comm *)&st;
        assert_int_equal(ces_comm_init(ctx, 1, 2, 3, "@x", &c), CES_ERR_INVALID);
        assert_null(c);
        said(ctx, what, rows[i].error);
        assert_int_equal(ces_comm_init(ctx, 1, 2, 3, "@", &c), CES_ERR_INVALID);
        said(ctx, what, "bootstrap abstract name '@' is empty: a name follows the '@'");
        snprintf(what, sizeof(what), "ces_comm_init_all, %s", rows[i].value);
        all[0] = all[1] = (struct ces_comm *)&st;
        assert_int_equal(ces_comm_init_all(ctx, 2, NULL, all), CES_ERR_INVALID);
        assert_null(all[0]);
        assert_null(all[1]);
        said(ctx, what, rows[i].error);
        snprintf(what, sizeof(what), "ces_comm_init_env, %s", rows[i].value);
        setenv("RANK", "0", 1);
        setenv("WORLD_SIZE", "1", 1);
        c = (struct ces_comm *)&st;
        assert_int_equal(ces_comm_init_env(ctx, NULL, &c), CES_ERR_INVALID);
        assert_null(c);
        said(ctx, what, rows[i].error);
        settings_clear();
    }
    ces_test_ctx_end(ctx, &st);
}

/* ces_comm_init_env's refusals: RANK, WORLD_SIZE and LOCAL_RANK (unset,
 * not a number of their range), then what ces_comm_init refuses of them
 * and of the rendezvous (given, else CES_RENDEZVOUS). */
static void test_init_env_refused(void **state)
{
    static const struct {
        const char *rank, *size, *local, *arg, *env;
        int rc;
        const char *error;
    } rows[] = {
        {NULL, "2", NULL, "@x", NULL, CES_ERR_INVALID,
         "RANK and WORLD_SIZE must be set in the environment"},
        {"0", NULL, NULL, "@x", NULL, CES_ERR_INVALID,
         "RANK and WORLD_SIZE must be set in the environment"},
        {"1x", "2", NULL, "@x", NULL, CES_ERR_INVALID,
         "RANK must be a number 0..4294967295, not '1x'"},
        {"-1", "2", NULL, "@x", NULL, CES_ERR_INVALID,
         "RANK must be a number 0..4294967295, not '-1'"},
        {"0", "", NULL, "@x", NULL, CES_ERR_INVALID,
         "WORLD_SIZE must be a number 0..4294967295, not ''"},
        {"0", "4294967296", NULL, "@x", NULL, CES_ERR_INVALID,
         "WORLD_SIZE must be a number 0..4294967295, not '4294967296'"},
        {"0", "2", "2147483648", "@x", NULL, CES_ERR_INVALID,
         "LOCAL_RANK must be a number 0..2147483647, not '2147483648'"},
        {"0", "2", "-0", "@x", NULL, CES_ERR_INVALID,
         "LOCAL_RANK must be a number 0..2147483647, not '-0'"},
        {"2", "2", NULL, "@x", NULL, CES_ERR_INVALID,
         "rank 2 of 2: expected 0 <= rank < size <= 1024"},
        {"0", "4294967295", "0", "@x", NULL, CES_ERR_INVALID,
         "rank 0 of 4294967295: expected 0 <= rank < size <= 1024"},
        {"1", "2", "1", NULL, NULL, CES_ERR_INVALID,
         "a communicator of 2 ranks needs a bootstrap path"},
        {"1", "2", "1", NULL, "", CES_ERR_INVALID,
         "a communicator of 2 ranks needs a bootstrap path"},
        {"0", "2", NULL, "@", "@x", CES_ERR_INVALID,
         "bootstrap abstract name '@' is empty: a name follows the '@'"},
        {"0", "2", NULL, NULL, "@", CES_ERR_INVALID,
         "bootstrap abstract name '@' is empty: a name follows the '@'"},
        {"250", "251", NULL, NULL, "@x", CES_ERR_UNSUPPORTED,
         "a communicator of 251 processes: at most 250 (each symmetric allocation passes every "
         "process's memory handle through rank 0 in one message)"},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_comm *c = NULL;
    char what[32];

    (void)state;
    settings_clear();
    assert_int_equal(ces_comm_init_env(NULL, NULL, &c), CES_ERR_INVALID);
    assert_int_equal(ces_comm_init_env(ctx, NULL, NULL), CES_ERR_INVALID);
    said(ctx, "NULL out", "ces_comm_init_env: NULL argument");
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const char *const values[] = {rows[i].rank, rows[i].size, rows[i].local, rows[i].env};
        const char *const names[] = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "CES_RENDEZVOUS"};

        for (size_t k = 0; k < 4; k++)
            if (values[k] != NULL)
                setenv(names[k], values[k], 1);
        snprintf(what, sizeof(what), "row %zu", i);
        c = (struct ces_comm *)&st;
        assert_int_equal(ces_comm_init_env(ctx, rows[i].arg, &c), rows[i].rc);
        assert_null(c);
        said(ctx, what, rows[i].error);
        settings_clear();
    }
    ces_test_ctx_end(ctx, &st);
}

/* ces_comm_init_all's refusals: ndev out of range (the outputs untouched),
 * a device that no machine has (the outputs NULL up to ndev). */
static void test_init_all_refused(void **state)
{
    static const int negative[] = {0, -1, 1};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_comm *all[4];

    (void)state;
    settings_clear();
    for (int i = 0; i < 4; i++)
        all[i] = (struct ces_comm *)&st;
    assert_int_equal(ces_comm_init_all(NULL, 2, NULL, all), CES_ERR_INVALID);
    assert_int_equal(ces_comm_init_all(ctx, 2, NULL, NULL), CES_ERR_INVALID);
    said(ctx, "NULL comms", "ces_comm_init_all: NULL argument");
    assert_int_equal(ces_comm_init_all(ctx, 0, NULL, all), CES_ERR_INVALID);
    said(ctx, "ndev 0", "ndev must be 1..1024, not 0");
    assert_int_equal(ces_comm_init_all(ctx, 1025, NULL, all), CES_ERR_INVALID);
    said(ctx, "ndev 1025", "ndev must be 1..1024, not 1025");
    assert_ptr_equal(all[0], &st);
    assert_int_equal(ces_comm_init_all(ctx, 3, negative, all), CES_ERR_INVALID);
    said(ctx, "device -1", "rank 1: device -1 does not exist (devices are numbered from 0)");
    for (int i = 0; i < 3; i++)
        assert_null(all[i]);
    assert_ptr_equal(all[3], &st); /* past ndev: untouched */
    /* a setting before a device */
    setenv("CES_SHARE_GPUS", "2", 1);
    assert_int_equal(ces_comm_init_all(ctx, 3, negative, all), CES_ERR_INVALID);
    said(ctx, "CES_SHARE_GPUS", "CES_SHARE_GPUS must be 0 or 1, not '2'");
    settings_clear();
    ces_test_ctx_end(ctx, &st);
}

/* Which GPUs of a description can run ranks together (peers.c, in both
 * builds), on descriptions made by hand: the largest set of mutual peers
 * (a pair that is a peer one way only is none), the first of equal ones;
 * ranks placed on GPUs 0..n-1, or modulo them under CES_SHARE_GPUS=1, fit
 * only where each pair of their GPUs are peers, else the first pair of
 * ranks that are not is named; more ranks than GPUs, no GPU, a bad count
 * and a bad CES_SHARE_GPUS are refused. */
static void test_devices_fit(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_devices *d = calloc(1, sizeof(*d));
    uint64_t set = 1;

    (void)state;
    settings_clear();
    assert_non_null(d);
    assert_int_equal(ces_devices_peer_set(d, &set), 0);
    assert_int_equal(set, 0);
    assert_int_equal(ces_devices_fit(ctx, d, 1, 0), CES_ERR_LIMIT);
    said(ctx, "no GPU", "1 rank but this machine has no GPU");
    /* 6 GPUs: 0-1 and 2-3-4 peers, 5 a peer of 4 one way only */
    d->count = 6;
    d->pair[0][1].access = d->pair[1][0].access = 1;
    for (int i = 2; i < 5; i++)
        for (int j = 2; j < 5; j++)
            d->pair[i][j].access = i != j;
    d->pair[4][5].access = 1;
    assert_int_equal(ces_devices_peer_set(d, &set), 3);
    assert_int_equal(set, 0x1c);
    d->pair[5][4].access = 1; /* 4-5 now: 2-3-4 is still the first of the largest */
    d->pair[2][5].access = d->pair[5][2].access = 1;
    assert_int_equal(ces_devices_peer_set(d, &set), 3);
    assert_int_equal(set, 0x1c);
    assert_int_equal(ces_devices_fit(ctx, d, 2, 0), CES_OK);
    assert_int_equal(ces_devices_fit(ctx, d, 3, 0), CES_ERR_UNSUPPORTED);
    said(ctx, "3 ranks",
         "ranks 0 and 2: GPU 0 cannot access GPU 2's memory (cuDeviceCanAccessPeer: they are "
         "not peers, by NVLink or PCIe); every rank maps every other rank's memory, so every "
         "pair of GPUs must be peers");
    assert_int_equal(ces_devices_fit(ctx, d, 7, 0), CES_ERR_LIMIT);
    said(ctx, "7 ranks",
         "7 ranks but this machine has 6 GPUs (CES_SHARE_GPUS=1 lets ranks share GPUs, for "
         "tests)");
    /* cesync run's collective without --ranks on one GPU: 2 ranks */
    d->count = 1;
    assert_int_equal(ces_devices_fit(ctx, d, 2, 0), CES_ERR_LIMIT);
    said(ctx, "2 ranks on 1 GPU",
         "2 ranks but this machine has 1 GPU (CES_SHARE_GPUS=1 lets ranks share GPUs, for "
         "tests)");
    d->count = 6;
    /* GPU 2 not described: in no set of peers, and only ranks on it refused,
     * before its pairs (which say nothing) */
    snprintf(d->dev[2].error, sizeof(d->dev[2].error), "cuDeviceGetName failed: X");
    assert_int_equal(ces_devices_peer_set(d, &set), 2);
    assert_int_equal(set, 0x3);
    assert_int_equal(ces_devices_fit(ctx, d, 2, 0), CES_OK);
    assert_int_equal(ces_devices_fit(ctx, d, 3, 0), CES_ERR_CUDA);
    said(ctx, "GPU 2 not described",
         "rank 2 would be on GPU 2, which the driver cannot describe: cuDeviceGetName failed: X");
    d->dev[2].error[0] = '\0';
    /* shared: ranks 0-3 on GPUs 0, 1, 0, 1 need only 0-1 */
    d->count = 2;
    setenv("CES_SHARE_GPUS", "1", 1);
    assert_int_equal(ces_devices_fit(ctx, d, 4, 0), CES_OK);
    d->pair[1][0].access = 0;
    assert_int_equal(ces_devices_fit(ctx, d, 4, 0), CES_ERR_UNSUPPORTED);
    said(ctx, "shared",
         "ranks 0 and 1: GPU 1 cannot access GPU 0's memory (cuDeviceCanAccessPeer: they are "
         "not peers, by NVLink or PCIe); every rank maps every other rank's memory, so every "
         "pair of GPUs must be peers");
    assert_int_equal(ces_devices_fit(ctx, d, 1, 0), CES_OK);
    /* in one process, as ces_comm_init_all judges first: 4 ranks a GPU at
     * most, and none sharing one below 8 hardware queues */
    d->pair[1][0].access = 1;
    assert_int_equal(ces_devices_fit(ctx, d, 8, 1), CES_OK);
    assert_int_equal(ces_devices_fit(ctx, d, 9, 1), CES_ERR_UNSUPPORTED);
    said(ctx, "9 ranks of one process",
         "5 ranks of one process on GPU 0: at most 4 (their streams would outnumber its hardware "
         "queues, and a wait of one rank could hold another's writes; 8 on one H200 deadlocked)");
    assert_int_equal(ces_devices_fit(ctx, d, 9, 0), CES_OK);
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "7", 1);
    assert_int_equal(ces_devices_fit(ctx, d, 2, 1), CES_OK);
    assert_int_equal(ces_devices_fit(ctx, d, 3, 1), CES_ERR_UNSUPPORTED);
    said(ctx, "3 ranks over 7 queues",
         "ranks 0 and 2 share GPU 0 in one process, whose streams CUDA_DEVICE_MAX_CONNECTIONS=7 "
         "puts on 7 hardware queues: a wait of one rank would hold the other's writes behind it "
         "for ever (one process per rank, or 8 queues or more)");
    assert_int_equal(ces_devices_fit(ctx, d, 3, 0), CES_OK);
    setenv("CES_SHARE_GPUS", "2", 1);
    assert_int_equal(ces_devices_fit(ctx, d, 1, 0), CES_ERR_INVALID);
    said(ctx, "CES_SHARE_GPUS", "CES_SHARE_GPUS must be 0 or 1, not '2'");
    settings_clear();
    assert_int_equal(ces_devices_fit(ctx, d, 0, 0), CES_ERR_INVALID);
    said(ctx, "0 ranks", "ranks must be 1..1024, not 0");
    assert_int_equal(ces_devices_fit(ctx, NULL, 1, 0), CES_ERR_INVALID);
    assert_int_equal(ces_devices_peer_set(NULL, &set), 0);
    free(d);
    ces_test_ctx_end(ctx, &st);
}

/* The largest set of mutual peers is exact, the first of equal ones, and
 * quick at 64 GPUs: each of 300 random descriptions of 12 GPUs (a pair a
 * peer one way only now and then) against every set of them; and 64 GPUs
 * in groups of 3 (21 and GPU 63 alone) or 2 that are not peers within a
 * group, all others peers, whose 3^21 and 2^32 largest sets were each
 * compared in turn (a 3^21 one took more than 5 minutes, 54 GPUs 16 s). */
static void test_devices_peer_set_many(void **state)
{
    struct ces_devices *d = calloc(1, sizeof(*d));
    uint64_t set = 0, seed = 12345;

    (void)state;
    assert_non_null(d);
    d->count = 12;
    for (int round = 0; round < 300; round++) {
        uint64_t best = 0;
        uint32_t nbest = 0;

        for (uint32_t i = 0; i < 12; i++) {
            for (uint32_t j = 0; j < 12; j++) {
                seed = seed * 6364136223846793005u + 1442695040888963407u;
                d->pair[i][j].access = i != j && (seed >> 33) % 100 < 70u + (uint32_t)round % 25;
            }
        }
        for (uint64_t s = 1; s < (1u << 12); s++) {
            uint32_t n = 0;
            int clique = 1;

            for (uint32_t i = 0; i < 12 && clique; i++) {
                for (uint32_t j = 0; j < 12 && (s >> i & 1) != 0; j++)
                    clique = clique && (j == i || (s >> j & 1) == 0 ||
                                        (d->pair[i][j].access && d->pair[j][i].access));
                n += (uint32_t)(s >> i & 1);
            }
            /* of equal sizes the one whose least GPU in one of them alone is in it */
            if (clique && (n > nbest || (n == nbest && ((s ^ best) & (~(s ^ best) + 1) & s) != 0))) {
                best = s;
                nbest = n;
            }
        }
        assert_int_equal(ces_devices_peer_set(d, &set), nbest);
        assert_int_equal(set, best);
    }
    d->count = 64;
    for (uint32_t i = 0; i < 64; i++)
        for (uint32_t j = 0; j < 64; j++)
            d->pair[i][j].access = i / 3 != j / 3;
    assert_int_equal(ces_devices_peer_set(d, &set), 22);
    assert_int_equal(set, UINT64_C(0x9249249249249249));
    for (uint32_t i = 0; i < 64; i++)
        for (uint32_t j = 0; j < 64; j++)
            d->pair[i][j].access = i / 2 != j / 2;
    assert_int_equal(ces_devices_peer_set(d, &set), 32);
    assert_int_equal(set, UINT64_C(0x5555555555555555));
    free(d);
}

#ifdef CES_TEST_NO_CUDA
/* What passes those checks, with every setting given in a form taken too:
 * CES_ERR_UNSUPPORTED, saying why, the outputs NULL. */
static void test_constructors_refuse(void **state)
{
    static const int devices[] = {1, 0};
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_comm *c = (struct ces_comm *)&st, *all[3];
    char rendezvous[128];

    (void)state;
    settings_clear();
    assert_int_equal(ces_comm_init(ctx, 0, 2, 0, "@x", &c), CES_ERR_UNSUPPORTED);
    assert_null(c);
    said(ctx, "ces_comm_init",
         "ces_comm_init: this cesync was built without CUDA (no GPU can be used)");
    for (int i = 0; i < 3; i++)
        all[i] = (struct ces_comm *)&st;
    assert_int_equal(ces_comm_init_all(ctx, 2, NULL, all), CES_ERR_UNSUPPORTED);
    assert_null(all[0]);
    assert_null(all[1]);
    assert_ptr_equal(all[2], &st); /* past ndev: untouched */
    said(ctx, "ces_comm_init_all",
         "ces_comm_init_all: this cesync was built without CUDA (no GPU can be used)");
    setenv("RANK", "0", 1);
    setenv("WORLD_SIZE", "1", 1);
    c = (struct ces_comm *)&st;
    assert_int_equal(ces_comm_init_env(ctx, NULL, &c), CES_ERR_UNSUPPORTED);
    assert_null(c);
    said(ctx, "ces_comm_init_env",
         "ces_comm_init_env: this cesync was built without CUDA (no GPU can be used)");
    /* every setting and argument in a form the checks take */
    setenv("CES_TIMEOUT_MS", "4294967295", 1);
    setenv("CES_P2P_STAGE_MAX", "0", 1);
    setenv("CES_P2P_SIDE_MIN", "262144G", 1);
    setenv("CES_SHARE_GPUS", "1", 1);
    setenv("CES_STRIDE", "2m", 1);
    setenv("RANK", "1023", 1);
    setenv("WORLD_SIZE", "1024", 1);
    setenv("LOCAL_RANK", "2147483647", 1);
    ces_test_sock_path(rendezvous, sizeof(rendezvous), "no-comm.sock");
    setenv("CES_RENDEZVOUS", rendezvous, 1);
    assert_int_equal(ces_comm_init(ctx, 249, 250, INT_MAX, "@x", &c), CES_ERR_UNSUPPORTED);
    assert_int_equal(ces_comm_init_all(ctx, 2, devices, all), CES_ERR_UNSUPPORTED);
    /* (1024 processes are more than 250: refused as such first) */
    assert_int_equal(ces_comm_init_env(ctx, NULL, &c), CES_ERR_UNSUPPORTED);
    said(ctx, "ces_comm_init_env",
         "a communicator of 1024 processes: at most 250 (each symmetric allocation passes every "
         "process's memory handle through rank 0 in one message)");
    setenv("RANK", "249", 1);
    setenv("WORLD_SIZE", "250", 1);
    assert_int_equal(ces_comm_init_env(ctx, NULL, &c), CES_ERR_UNSUPPORTED);
    said(ctx, "ces_comm_init_env",
         "ces_comm_init_env: this cesync was built without CUDA (no GPU can be used)");
    assert_null(c);
    settings_clear();
    ces_test_ctx_end(ctx, &st);
}

/* No GPU to describe: CES_ERR_UNSUPPORTED, saying why, nothing counted. */
static void test_devices_refused(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_devices *d = malloc(sizeof(*d));

    (void)state;
    assert_non_null(d);
    d->count = 3;
    assert_int_equal(ces_devices_query(ctx, d), CES_ERR_UNSUPPORTED);
    assert_int_equal(d->count, 0);
    said(ctx, "ces_devices_query", "this cesync was built without CUDA (no GPU can be used)");
    assert_int_equal(ces_devices_query(ctx, NULL), CES_ERR_INVALID);
    said(ctx, "ces_devices_query", "ces_devices_query: NULL argument");
    free(d);
    ces_test_ctx_end(ctx, &st);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_comm),
        cmocka_unit_test(test_init_arguments_refused),
        cmocka_unit_test(test_settings_refused),
        cmocka_unit_test(test_init_env_refused),
        cmocka_unit_test(test_init_all_refused),
        cmocka_unit_test(test_devices_fit),
        cmocka_unit_test(test_devices_peer_set_many),
#ifdef CES_TEST_NO_CUDA
        cmocka_unit_test(test_constructors_refuse),
        cmocka_unit_test(test_devices_refused),
#endif
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
