/*
 * tools/devices.c - `cesync devices`: the GPUs of this machine, which of
 * them are peers (every rank maps every other rank's memory, which only a
 * peer's GPU may), and how many ranks `cesync run` and `cesync bench` can
 * put on them (ces_devices_query, ces_devices_peer_set, ces_devices_fit).
 */
#include "tool.h"
#include "args.h"     /* ces_cuda_share_gpus */
#include "internal.h" /* ces_plural */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char devices_help[] =
    "usage: cesync devices [--ranks N]\n"
    "\n"
    "Lists the GPUs this process sees (index, name, memory, PCI bus id, copy engines,\n"
    "compute capability), the peer matrix (access, link rank, native atomics), how\n"
    "many ranks cesync run and bench can use here, and the largest set of GPUs that\n"
    "are all peers.\n"
    "\n"
    "  --ranks N   whether N ranks (1..64) can run here, and if not, why\n"
    "  --help      this text\n"
    "\n"
    "Exit: 0 fine, 1 N ranks cannot run here, 2 bad usage or no GPU can be used.\n"
    "Example: cesync devices --ranks 4\n"
    "Full reference: docs/CLI.md, section \"devices\".\n";

/* The cell of the pair from -> to of the peer matrix: "yes 0 yes". */
static void pair_cell(const struct ces_devices *d, uint32_t from, uint32_t to, int rank_w,
                      char *buf, size_t size)
{
    const struct ces_device_pair *p = &d->pair[from][to];
    char rank[16] = "-";

    if (from == to) {
        snprintf(buf, size, "self");
        return;
    }
    if (d->dev[from].error[0] != '\0' || d->dev[to].error[0] != '\0') {
        snprintf(buf, size, "?"); /* (a GPU not described) */
        return;
    }
    if (p->perf_rank >= 0)
        snprintf(rank, sizeof(rank), "%d", p->perf_rank);
    snprintf(buf, size, "%-3s %*s %s", p->access ? "yes" : "no", rank_w, rank,
             p->atomics < 0 ? "-" : p->atomics ? "yes" : "no");
}

static int digits(uint64_t v)
{
    int n = 1;

    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

static void print_gpus(const struct ces_devices *d)
{
    int name_w = 4, bus_w = 10, idx_w = 3;

    for (uint32_t i = 0; i < d->count; i++) {
        if ((int)strlen(d->dev[i].name) > name_w)
            name_w = (int)strlen(d->dev[i].name);
        if ((int)strlen(d->dev[i].pci_bus_id) > bus_w)
            bus_w = (int)strlen(d->dev[i].pci_bus_id);
    }
    printf("%*s  %-*s  %10s  %-*s  %12s  %7s\n", idx_w, "GPU", name_w, "name", "memory GiB",
           bus_w, "PCI bus id", "copy engines", "compute");
    for (uint32_t i = 0; i < d->count; i++) {
        const struct ces_device *g = &d->dev[i];
        char cc[24];

        if (g->error[0] != '\0') {
            printf("%*" PRIu32 "  not described: %s\n", idx_w, i, g->error);
            continue;
        }
        snprintf(cc, sizeof(cc), "%d.%d", g->cc_major, g->cc_minor);
        printf("%*" PRIu32 "  %-*s  %10.1f  %-*s  %12d  %7s\n", idx_w, i, name_w, g->name,
               (double)g->memory / (double)(UINT64_C(1) << 30), bus_w, g->pci_bus_id,
               g->copy_engines, cc);
    }
    if (d->total > d->count)
        printf("GPUs %" PRIu32 "..%" PRIu32 " of the %" PRIu32 " that CUDA counts are left "
               "out: at most %u are described, and cesync run puts its ranks (at most %u) on "
               "GPUs 0..%" PRIu32 "\n",
               d->count, d->total - 1, d->total, CES_DEVICES_MAX, CES_TOOL_RUN_RANKS,
               d->count - 1);
}

static void print_peers(const struct ces_devices *d)
{
    int rank_w = 1, cell_w = 4, head_w = 7;
    char cell[64];

    for (uint32_t i = 0; i < d->count; i++)
        for (uint32_t j = 0; j < d->count; j++)
            if (i != j && d->pair[i][j].perf_rank >= 0 &&
                digits((uint64_t)d->pair[i][j].perf_rank) > rank_w)
                rank_w = digits((uint64_t)d->pair[i][j].perf_rank);
    for (uint32_t i = 0; i < d->count; i++) {
        for (uint32_t j = 0; j < d->count; j++) {
            pair_cell(d, i, j, rank_w, cell, sizeof(cell));
            if ((int)strlen(cell) > cell_w)
                cell_w = (int)strlen(cell);
        }
    }
    printf("\npeers: can the row's GPU access the column's memory, the link's performance "
           "rank, native atomics\n");
    printf("%*s", head_w, "from\\to");
    for (uint32_t j = 0; j < d->count; j++)
        printf("  %-*" PRIu32, j + 1 < d->count ? cell_w : 0, j);
    printf("\n");
    for (uint32_t i = 0; i < d->count; i++) {
        printf("%*" PRIu32, head_w, i);
        for (uint32_t j = 0; j < d->count; j++) {
            pair_cell(d, i, j, rank_w, cell, sizeof(cell));
            /* (no blanks after the last cell) */
            printf("  %-*s", j + 1 < d->count ? cell_w : 0, cell);
        }
        printf("\n");
    }
}

/* GPUs of mask `set` as "0, 1, 3", into buf; sep between them. */
static void gpu_list(uint64_t set, const char *sep, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (uint32_t i = 0; i < 64 && len < size; i++)
        if ((set >> i & 1) != 0)
            len += (size_t)snprintf(buf + len, size - len, "%s%" PRIu32, len > 0 ? sep : "", i);
}

/* The most ranks up to `most` that fit, one process per rank or in one
 * process (each more ranks needs every pair of the fewer). */
static uint32_t ranks_fit(struct ces_ctx *ctx, const struct ces_devices *d, uint32_t most,
                          int one_process)
{
    uint32_t k = 0;

    while (k < most && ces_devices_fit(ctx, d, k + 1, one_process) == CES_OK)
        k++;
    return k;
}

/* The verdict: the ranks cesync run can use (GPUs 0..k-1 all peers, or
 * with CES_SHARE_GPUS=1 the ranks on them), those of one process where
 * fewer, the largest set of peers where it is another. */
static void print_verdict(struct ces_ctx *ctx, const struct ces_devices *d, int share)
{
    uint64_t set = 0;
    uint32_t most = ces_devices_peer_set(d, &set), k, one, used;
    char list[CES_DEVICES_MAX * 4];

    k = ranks_fit(ctx, d, share ? CES_TOOL_RUN_RANKS : d->count, 0);
    one = ranks_fit(ctx, d, k, 1);
    used = k < d->count ? k : d->count;
    gpu_list(set, ", ", list, sizeof(list));
    printf("\nverdict: cesync run can use up to %" PRIu32 " rank%s here", k, ces_plural(k));
    if (share)
        printf(" (CES_SHARE_GPUS=1: rank r on GPU r %% %" PRIu32 ")", d->total);
    else
        printf(" (rank r on GPU r)");
    if (one < k)
        printf(", %" PRIu32 " in one process (cesync run --single-process, cesync bench)", one);
    if (most == used && used > 1)
        printf(": GPUs 0..%" PRIu32 " are all peers of each other", used - 1);
    if (most > used) {
        printf("; the largest set of GPUs that are all peers of each other is %s",
               list);
        if (getenv("CUDA_VISIBLE_DEVICES") == NULL) {
            gpu_list(set, ",", list, sizeof(list));
            printf(" (CUDA_VISIBLE_DEVICES=%s numbers them 0..%" PRIu32 ")", list, most - 1);
        }
    }
    printf("\n");
}

int ces_cmd_devices(int argc, char **argv)
{
    struct ces_devices *d = NULL;
    struct ces_ctx *ctx = NULL;
    uint32_t ranks = 0;
    int ec = CES_EXIT_OK, share = 0;

    if (ces_tool_wants_help(argc, argv)) {
        fputs(devices_help, stdout);
        return CES_EXIT_OK;
    }
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--ranks") == 0) {
            const char *v = i + 1 < argc ? argv[++i] : NULL;

            if (ces_tool_count("devices", "--ranks", v, 1, CES_TOOL_RUN_RANKS, &ranks) !=
                CES_EXIT_OK)
                return CES_EXIT_USAGE;
        } else {
            return ces_tool_unexpected("devices", argv[i]);
        }
    }
    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return ces_tool_fail("out of memory");
    d = malloc(sizeof(*d));
    if (d == NULL) {
        ec = ces_tool_fail("out of memory");
        goto out;
    }
    /* a CES_SHARE_GPUS that run refuses is said before the GPUs are asked,
     * as run says it */
    if (ces_cuda_share_gpus(ctx, &share) != CES_OK) {
        ec = ces_tool_fail("devices: %s", ces_ctx_last_error(ctx));
        goto out;
    }
    if (ces_devices_query(ctx, d) != CES_OK) {
        ec = ces_tool_fail("devices: %s", ces_ctx_last_error(ctx));
        goto out;
    }
    if (d->count == 0) {
        ec = ces_tool_fail("devices: no CUDA GPU is available on this machine");
        goto out;
    }
    print_gpus(d);
    print_peers(d);
    print_verdict(ctx, d, share);
    if (ranks > 0) {
        if (ces_devices_fit(ctx, d, ranks, 0) != CES_OK) {
            printf("--ranks %" PRIu32 ": they cannot run here: %s\n", ranks,
                   ces_ctx_last_error(ctx));
            ec = CES_EXIT_DEFECT;
        } else if (ces_devices_fit(ctx, d, ranks, 1) != CES_OK) {
            printf("--ranks %" PRIu32 ": they can run here, one process per rank (cesync run); "
                   "not in one process (cesync run --single-process, cesync bench): %s\n",
                   ranks, ces_ctx_last_error(ctx));
        } else {
            printf("--ranks %" PRIu32 ": they can run here\n", ranks);
        }
    }
out:
    free(d);
    ces_ctx_destroy(ctx);
    return ec;
}
