/*
 * tools/bench.c - `cesync bench`: nccl-tests-style sweep of a collective
 * over message sizes on the GPUs of this machine, cesync beside NCCL's
 * kernel and copy-engine paths and the raw peer copy (the physical limit),
 * with the cost model's prediction beside every measurement; optional
 * compute-kernel interference, CSV, a plot, and the calibration of the
 * machine model.  The GPU work lives in backend/cuda/bench_gpu.c.
 */
#include "tool.h"
#include "bench_row.h"
#include "internal.h" /* ces_find_program, ces_dot_tmp_probe, ces_dot_format */
#include "../model/internal.h" /* ces_model_require_file */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"  /* ces_cuda_settings_read, ces_cuda_stage_max_read, ces_cuda_side_min_read */
#include "lower.h" /* ces_cuda_coll_select: what ces_alltoall & co. run; ces_cuda_side_min */

#ifdef CES_HAVE_CUDA
#include "bench_gpu.h"
#endif

static const char bench_usage[] =
    "usage: cesync bench COLL [options]\n"
    "\n"
    "Times COLL (alltoall, allgather, sendrecv, broadcast, gather, scatter) on this\n"
    "machine's GPUs at every size from --min-bytes to --max-bytes: the median of\n"
    "--iterations (min, max), algbw and busbw as nccl-tests, every byte checked, the\n"
    "cost model's prediction, and NCCL's copy-engine and kernel paths and the raw peer\n"
    "copy in the same run.  NCCL comes from CES_NCCL_LIB or the Python wheel.\n"
    "\n"
    "  --ranks N             ranks, 2..8, one per GPU, in this process (default 2)\n"
    "  --min-bytes B         smallest bytes per rank, 4..16G (default 1K; suffixes K M G)\n"
    "  --max-bytes B         largest bytes per rank, --min-bytes..16G (default 1G)\n"
    "  --factor F            size step, a number above 1 and at most 1024 (default 2)\n"
    "  --iterations K        timed iterations per size, 1..200 (default 20)\n"
    "  --warmup W            untimed iterations before them, 0..50 (default 5)\n"
    "  --graph               capture the iterations into one CUDA graph per rank\n"
    "  --variant V[,V...]    auto plain overlap early directed; default auto,overlap,early\n"
    "                        (sendrecv, rooted, --in-place: auto,plain; --graph: auto)\n"
    "  --root R              broadcast, gather, scatter: the root rank, 0..N-1 (default 0)\n"
    "  --wake K              a wake chain of K copies in the variants but auto, 0..256 (0)\n"
    "  --chunks C --slots S  sendrecv plain: chunks per message, 1..1024 (default 2, 1 with\n"
    "                        --one-way), staging slots, 1..64 (default 2)\n"
    "  --one-way             sendrecv: the pipeline 0 -> 1 -> ... -> n-1, not the ring\n"
    "  --in-place            allgather, broadcast, gather, scatter in place (nccl-tests')\n"
    "  --no-nccl             skip NCCL\n"
    "  --with-compute        a compute kernel beside each implementation: its share kept\n"
    "  --compute-bytes B     with --with-compute: its bytes per rank, from the smallest\n"
    "                        size the collective moves to 16G (default 64M)\n"
    "  --csv FILE            every measurement as CSV\n"
    "  --plot FILE.svg|.png  busbw against size, drawn with Graphviz\n"
    "  --model FILE          model file for the predictions (default: the h200 table)\n"
    "  --calibrate           measure the model's parameters first and predict with them\n"
    "  --model-out FILE      where --calibrate writes the model (default cesync.model)\n"
    "  --dry-run             no GPU: print the predictions only\n"
    "  -- COLL               COLL, as -- names the schedule in the other commands\n"
    "\n"
    "Environment: CES_NCCL_LIB, CES_SHARE_GPUS=1, CES_BENCH_TRACE (announce each run).\n"
    "Exit: 0 fine; 1 a wrong byte or a failed run, --calibrate, --model-out or\n"
    "--with-compute, or a --dry-run that predicted nothing; 2 bad usage, a --model\n"
    "refused, an output that cannot be written or a prediction lost for want of memory.\n"
    "Examples:\n"
    "  cesync bench alltoall --ranks 2 --min-bytes 1K --max-bytes 1G --csv a2a.csv\n"
    "  cesync bench gather --root 1 --dry-run\n"
    "Full reference: docs/CLI.md, section \"bench\".\n";

/* the limits that the usage text names */
_Static_assert(CES_COLL_MAX_CHUNKS == 1024, "bench's usage says --chunks 1..1024");
_Static_assert(CES_COLL_MAX_WAKE == 256, "bench's usage says --wake 0..256");

enum { V_AUTO = -1, V_PLAIN = 0, V_OVERLAP = CES_COLL_F_OVERLAP, V_EARLY = CES_COLL_F_EARLY,
       V_DIRECTED = CES_COLL_F_OVERLAP | CES_COLL_F_DIRECTED };
#define MAX_VARIANTS 4
#define MAX_SIZES 64
/* implementations in tables: cesync variants, then NCCL CE, NCCL kernel, raw */
#define IMPL_CE 0
#define IMPL_K 1
#define IMPL_RAW 2

struct bench {
    uint32_t coll, ranks, iters, warmup, chunks, slots, root, wake;
    uint64_t min_bytes, max_bytes, compute_bytes;
    uint64_t stage_max; /* CES_P2P_STAGE_MAX, as the communicators read it */
    uint64_t side_min;  /* CES_P2P_SIDE_MIN, likewise (none with shared queues) */
    uint32_t queues;    /* CUDA_DEVICE_MAX_CONNECTIONS's hardware queues per GPU */
    double factor;
    int graph, nccl, compute, calibrate, dry, one_way, in_place;
    int calibrated; /* B->model is what --calibrate measured */
    int pred_nomem; /* a prediction failed for want of memory, not for the model */
    const char *csv, *plot, *model_path, *model_out, *root_arg;
    int variants[MAX_VARIANTS];
    uint32_t nvariants;
    uint64_t sizes[MAX_SIZES];
    uint32_t nsizes;
    struct ces_model model;
    struct ces_bench_meas ces[MAX_VARIANTS][MAX_SIZES];
    struct ces_bench_meas other[3][MAX_SIZES];
    double kept[MAX_VARIANTS + 3], solo_us;
    int kept_ran[MAX_VARIANTS + 3];
    char nccl_info[320];
};

/* Whether the table has variant v. */
static int has_variant(const struct bench *B, int v)
{
    for (uint32_t k = 0; k < B->nvariants; k++)
        if (B->variants[k] == v)
            return 1;
    return 0;
}

static const char *variant_name(int v)
{
    return v == V_AUTO       ? "auto"
           : v == V_OVERLAP  ? "overlap"
           : v == V_EARLY    ? "early"
           : v == V_DIRECTED ? "directed"
                             : "plain";
}

/* The collective as the CSV's coll column names it: in place <coll>-inplace,
 * so that a file tells the two forms apart with the same columns. */
static void coll_label(const struct bench *B, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s", ces_coll_name((int)B->coll), B->in_place ? "-inplace" : "");
}

/* broadcast, gather and scatter: the collectives with a root (--root). */
static int rooted(uint32_t coll)
{
    return coll == CES_COLL_BROADCAST || coll == CES_COLL_GATHER || coll == CES_COLL_SCATTER;
}

/* Whether the overlap and early variants apply (core/coll/overlap.c): they
 * move the local copy of alltoall and allgather, which in place is gone. */
static int local_variants(const struct bench *B)
{
    return (B->coll == CES_COLL_ALLTOALL || B->coll == CES_COLL_ALLGATHER) && !B->in_place;
}

/* Whether the overlap and directed variants apply: they move the root's
 * local copy of broadcast, gather and scatter (directed is overlap with
 * one-way barriers), which in place is gone too. */
static int root_variants(const struct bench *B)
{
    return rooted(B->coll) && !B->in_place;
}

/* The collective and the form it runs in, as the header and the plot's
 * title name it. */
static void coll_title(const struct bench *B, char *buf, size_t n)
{
    const char *name = ces_coll_name((int)B->coll);

    if (B->in_place && rooted(B->coll))
        snprintf(buf, n, "%s (in place, root %u)", name, B->root);
    else if (B->in_place)
        snprintf(buf, n, "%s (in place)", name);
    else if (rooted(B->coll))
        snprintf(buf, n, "%s (root %u)", name, B->root);
    else if (B->coll == CES_COLL_SENDRECV)
        snprintf(buf, n, "%s%s", name, B->one_way ? " (one way, pipeline)" : " (ring)");
    else
        snprintf(buf, n, "%s", name);
}

/* nccl-tests' busbw at `bytes` per rank (tools/bench_row.c); also the rate
 * of the raw copy's row (raw_bw): the busbw of a collective that took the
 * raw copy's time. */
static double busbw(const struct bench *B, uint64_t bytes, double us)
{
    return ces_bench_busbw(B->coll, B->ranks, bytes, us);
}

/* A time and its busbw as two cells of the table, 9 and 7 wide. */
static void print_time_bw(FILE *f, const struct bench *B, uint64_t bytes, double us)
{
    char t[24], r[24];

    ces_bench_us_cell(t, sizeof(t), us);
    ces_bench_gbps_cell(r, sizeof(r), busbw(B, bytes, us));
    fprintf(f, " %9s %7s", t, r);
}

/* A row's time_us, min_us, max_us, busbw and check cells. */
static void print_meas(FILE *f, const struct bench *B, uint64_t bytes,
                       const struct ces_bench_meas *m)
{
    char lo[24], hi[24], r[24], t[24];

    ces_bench_us_cell(t, sizeof(t), m->med);
    ces_bench_us_cell(lo, sizeof(lo), m->min);
    ces_bench_us_cell(hi, sizeof(hi), m->max);
    ces_bench_gbps_cell(r, sizeof(r), busbw(B, bytes, m->med));
    fprintf(f, " %9s %9s %9s %7s %5s", t, lo, hi, r, ces_bench_check_str(m->check));
}

/* What the raw copy's row times (backend/cuda/bench_gpu.c, enqueue_raw). */
static const char *raw_copy(uint32_t coll)
{
    switch (coll) {
    case CES_COLL_BROADCAST:
    case CES_COLL_SCATTER:
        return "the root's copies to every peer in one batch";
    case CES_COLL_GATHER:
        return "every peer's copy into the root, all at once";
    default:
        return "one copy of the same peer bytes per rank, all ranks at once";
    }
}

/* The value of option argv[*i], `what` it is: the next argument, and *i
 * moves onto it; NULL, after the message, when the command line ends at
 * the option or the next argument is another option (--csv --no-nccl took
 * --no-nccl for the file's name). */
static const char *option_value(int argc, char **argv, int *i, const char *what)
{
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;

    if (ces_tool_value("bench", argv[*i], v, what) != CES_EXIT_OK)
        return NULL;
    ++*i;
    return v;
}

/* The plot's source goes to FILE.dot beside FILE.svg|.png and is removed
 * once drawn: a FILE.dot that is not a plot an earlier run left there (the
 * user's own graph) must not be overwritten and removed.  Checked before
 * the sweep. */
static int plot_source_free(const char *plot)
{
    static const char head[] = "graph bench {\n";
    size_t n = strlen(plot) - 4; /* without .svg or .png */
    char path[4096], got[sizeof(head)] = "";
    struct stat sb;
    FILE *f;

    if (n + 4 >= sizeof(path))
        return ces_tool_fail("bench: --plot: path too long");
    snprintf(path, sizeof(path), "%.*s.dot", (int)n, plot);
    if (stat(path, &sb) != 0)
        return CES_EXIT_OK; /* none (or unreachable: the write will say) */
    /* one that is no regular file is no plot (a named pipe's open waited
     * for a writer for ever, and once drawn the pipe was removed) */
    f = S_ISREG(sb.st_mode) ? fopen(path, "r") : NULL;
    if (f == NULL && S_ISREG(sb.st_mode))
        return CES_EXIT_OK; /* unreadable: the write will say */
    if (f == NULL || fread(got, 1, sizeof(got) - 1, f) != sizeof(got) - 1 ||
        strcmp(got, head) != 0) {
        if (f != NULL)
            fclose(f);
        return ces_tool_fail("bench: --plot %s: %s exists and holds no plot of cesync bench (the "
                             "plot's source goes there): move it or plot to another name",
                             plot, path);
    }
    fclose(f);
    return CES_EXIT_OK;
}

/* The files the bench writes after its sweep (--csv, --plot and the plot's
 * .dot source beside it, --model-out with --calibrate), checked before it:
 * each a file that can be written, not standard output ("-": it has the
 * table), not the --model file read, and no two the same file; with
 * Graphviz installed, the temporary file that feeds it the plot. */
static int outputs_ok(struct ces_ctx *ctx, const struct bench *B)
{
    const char *opt[4] = {"--csv", "--plot", "--model-out", "the --plot's .dot source"};
    const char *path[4] = {B->csv, B->plot, B->calibrate ? B->model_out : NULL, NULL};
    char src[4096];

    for (int k = 0; k < 3; k++)
        if (path[k] != NULL && strcmp(path[k], "-") == 0)
            return ces_tool_fail("bench: %s -: standard output carries the table (name a file)",
                                 opt[k]);
    if (B->plot != NULL) {
        const char *fmt = ces_dot_format(B->plot);

        if (fmt == NULL || strcmp(fmt, "dot") == 0)
            return ces_tool_fail("bench: --plot expects a .svg or .png path, not '%s'", B->plot);
        if (plot_source_free(B->plot) != CES_EXIT_OK)
            return CES_EXIT_USAGE;
        if ((size_t)snprintf(src, sizeof(src), "%.*s.dot", (int)(strlen(B->plot) - 4), B->plot) >=
            sizeof(src))
            return ces_tool_fail("bench: cannot write %s: %s", B->plot, strerror(ENAMETOOLONG));
        path[3] = src;
    }
    for (int k = 0; k < 4; k++)
        if (path[k] != NULL && (ces_tool_out_probe("bench", path[k]) != CES_EXIT_OK ||
                                ces_tool_out_not_in("bench", opt[k], path[k], B->model_path) !=
                                    CES_EXIT_OK))
            return CES_EXIT_USAGE;
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            if (path[i] != NULL && path[j] != NULL && ces_tool_same_file(path[i], path[j]))
                return ces_tool_fail("bench: %s %s and %s name the same file: each output needs "
                                     "its own", opt[i], path[i], opt[j]);
    if (B->plot != NULL && ces_find_program("dot", src, sizeof(src)) &&
        ces_dot_tmp_probe(ctx) != CES_OK)
        return ces_tool_fail("bench: --plot %s: %s", B->plot, ces_ctx_last_error(ctx));
    return CES_EXIT_OK;
}

static void fmt_bytes(char *buf, size_t n, uint64_t b)
{
    if (b >= (UINT64_C(1) << 30) && b % (UINT64_C(1) << 30) == 0)
        snprintf(buf, n, "%" PRIu64 "G", b >> 30);
    else if (b >= (UINT64_C(1) << 20) && b % (UINT64_C(1) << 20) == 0)
        snprintf(buf, n, "%" PRIu64 "M", b >> 20);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, n, "%" PRIu64 "K", b >> 10);
    else
        snprintf(buf, n, "%" PRIu64, b);
}

/* The width of the tables' bytes column: 9, or the widest size (one that
 * is no whole K, M or G: 17179869180 is 11). */
static int bytes_width(const struct bench *B)
{
    int w = 9;

    for (uint32_t i = 0; i < B->nsizes; i++) {
        char sz[24];

        fmt_bytes(sz, sizeof(sz), B->sizes[i]);
        w = (int)strlen(sz) > w ? (int)strlen(sz) : w;
    }
    return w;
}

/* What every implementation moves in 4-byte words: a word per rank in
 * alltoall, per chunk in sendrecv, 4 bytes in the others (after
 * parse_args has set --chunks). */
static uint64_t size_unit(const struct bench *B)
{
    return B->coll == CES_COLL_ALLTOALL   ? 4 * (uint64_t)B->ranks
           : B->coll == CES_COLL_SENDRECV ? 4 * (uint64_t)B->chunks
                                          : 4;
}

/* The sizes of the sweep, --min-bytes times --factor^k up to --max-bytes,
 * each a multiple of what every implementation moves in 4-byte words: a
 * word per rank in alltoall (4 x --ranks bytes), per chunk in sendrecv
 * (4 x --chunks), 4 bytes in the others.  A size that is none is rounded
 * down to one, as nccl-tests rounds its counts, but never below
 * --min-bytes nor onto the size before it: up instead, never above
 * --max-bytes (a size that fits neither way is left out).  So every size
 * measured lies in the range asked for, unless the range holds no multiple
 * at all: then the sweep is the one multiple below it.  One line on stderr
 * says which sizes were measured instead of which; a --max-bytes below the
 * smallest multiple is refused with the rule. */
static int sweep_sizes(struct bench *B)
{
    uint64_t unit = size_unit(B), lo;
    double s = (double)B->min_bytes;
    char rule[128], note[MAX_SIZES * 48];
    size_t nlen = 0;

    if (B->coll == CES_COLL_ALLTOALL) {
        snprintf(rule, sizeof(rule), "alltoall on %u ranks moves multiples of %" PRIu64
                 " bytes (bytes/%u to each rank, in 4-byte words)", B->ranks, unit, B->ranks);
    } else if (B->coll == CES_COLL_SENDRECV) {
        snprintf(rule, sizeof(rule), "sendrecv in %u chunk%s moves multiples of %" PRIu64
                 " bytes (each chunk in 4-byte words)", B->chunks, ces_plural(B->chunks), unit);
    } else {
        snprintf(rule, sizeof(rule), "%s moves multiples of 4 bytes (4-byte words)",
                 ces_coll_name((int)B->coll));
    }
    /* the smallest size: the first multiple in the range; in a range that
     * holds none (one size asked on 3 ranks: --min-bytes 1M --max-bytes
     * 1M) the last below it, as nccl-tests would run */
    lo = (B->min_bytes + unit - 1) / unit * unit;
    if (lo > B->max_bytes)
        lo = B->max_bytes / unit * unit;
    if (lo == 0)
        return ces_tool_fail("bench: %s: none is at most --max-bytes %" PRIu64, rule,
                             B->max_bytes);
    note[0] = '\0';
    /* the tolerance is for a factor's rounding; a size past --max-bytes by
     * a byte or more is past it */
    for (; s <= (double)B->max_bytes * (1 + 1e-9); s *= B->factor) {
        uint64_t want = (uint64_t)(s + 0.5), b = want / unit * unit;
        uint64_t prev = B->nsizes > 0 ? B->sizes[B->nsizes - 1] : 0;

        /* up to the first multiple, and past the size before (4, 8 and 16
         * on 8 ranks all rounded to the first, 32, which was measured thrice) */
        if (b < lo)
            b = lo;
        if (b <= prev)
            b = prev + unit;
        /* the sizes after it are no smaller: none fits either (a factor
         * just above 1 took that many steps to pass --max-bytes) */
        if (want > B->max_bytes || b > B->max_bytes)
            break;
        /* %.15g: the factor as given (%g printed 1.0000001 as 1) */
        if (B->nsizes == MAX_SIZES)
            return ces_tool_fail("bench: more than %d sizes from --min-bytes to --max-bytes by "
                                 "--factor %.15g; raise the factor or narrow the range",
                                 MAX_SIZES, B->factor);
        B->sizes[B->nsizes++] = b;
        if (b != want && nlen < sizeof(note)) {
            char got[24], asked[24];

            fmt_bytes(got, sizeof(got), b);
            fmt_bytes(asked, sizeof(asked), want);
            nlen += (size_t)snprintf(note + nlen, sizeof(note) - nlen, "%s%s for %s",
                                     nlen > 0 ? ", " : "", got, asked);
        }
    }
    if (note[0] != '\0')
        ces_tool_say("bench: %s: measured %s", rule, note);
    /* the size beside the compute kernel too (only alltoall's was rounded:
     * sendrecv --chunks 3 failed its plain variant there) */
    if (B->compute && B->compute_bytes % unit != 0) {
        char got[24], asked[24];

        fmt_bytes(asked, sizeof(asked), B->compute_bytes);
        B->compute_bytes = B->compute_bytes / unit * unit;
        fmt_bytes(got, sizeof(got), B->compute_bytes);
        ces_tool_say("bench: %s: --compute-bytes measured %s for %s", rule, got,
                     asked);
    }
    return CES_EXIT_OK;
}

static int parse_args(struct ces_ctx *ctx, struct bench *B, int argc, char **argv)
{
    int coll = -1;
    /* options that apply only with another, or to one collective: given? */
    const char *sr_opt = NULL;
    const char *compute_arg = NULL;
    const char *min_arg = NULL, *max_arg = NULL; /* as given */
    int model_out_given = 0;

    B->ranks = 2;
    B->min_bytes = 1024;
    B->max_bytes = UINT64_C(1) << 30;
    B->factor = 2.0;
    B->iters = 20;
    B->warmup = 5;
    B->nccl = 1;
    B->chunks = 0; /* 0: by --one-way, see below */
    B->slots = 2;
    B->compute_bytes = UINT64_C(64) << 20;
    B->model_out = "cesync.model";
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i], *v = NULL;
        uint64_t n = 0;
        /* -- names COLL, as it names the schedule in the other commands:
         * the argument after it, whatever it looks like */
        int named = strcmp(o, "--") == 0;

        if (named && i + 1 == argc)
            break;
        if (named)
            o = argv[++i];
        if (named || o[0] != '-') {
            if (coll >= 0)
                return ces_tool_fail("bench: one collective, not '%s' too", o);
            coll = ces_coll_from_name(o);
            if (coll != CES_COLL_ALLTOALL && coll != CES_COLL_ALLGATHER &&
                coll != CES_COLL_SENDRECV && (coll < 0 || !rooted((uint32_t)coll)))
                return ces_tool_fail("bench: COLL must be alltoall, allgather, sendrecv, "
                                     "broadcast, gather or scatter, not '%s'",
                                     o);
        } else if (strcmp(o, "--graph") == 0) {
            B->graph = 1;
        } else if (strcmp(o, "--one-way") == 0) {
            B->one_way = 1;
        } else if (strcmp(o, "--in-place") == 0) {
            B->in_place = 1;
        } else if (strcmp(o, "--no-nccl") == 0) {
            B->nccl = 0;
        } else if (strcmp(o, "--with-compute") == 0) {
            B->compute = 1;
        } else if (strcmp(o, "--calibrate") == 0) {
            B->calibrate = 1;
        } else if (strcmp(o, "--dry-run") == 0) {
            B->dry = 1;
        } else if (strcmp(o, "--csv") == 0) {
            v = option_value(argc, argv, &i, "a file name");
            if (v == NULL)
                return CES_EXIT_USAGE;
            B->csv = v;
        } else if (strcmp(o, "--plot") == 0) {
            v = option_value(argc, argv, &i, "a .svg or .png file name");
            if (v == NULL)
                return CES_EXIT_USAGE;
            B->plot = v;
        } else if (strcmp(o, "--model") == 0) {
            v = option_value(argc, argv, &i, "a model file");
            if (v == NULL)
                return CES_EXIT_USAGE;
            B->model_path = v;
        } else if (strcmp(o, "--model-out") == 0) {
            v = option_value(argc, argv, &i, "a file name");
            if (v == NULL)
                return CES_EXIT_USAGE;
            B->model_out = v;
            model_out_given = 1;
        } else if (strcmp(o, "--factor") == 0) {
            v = option_value(argc, argv, &i, "a number above 1 and at most 1024");
            if (v == NULL)
                return CES_EXIT_USAGE;
            if (!ces_tool_decimal(v, &B->factor) || !(B->factor > 1.0) || B->factor > 1024.0)
                return ces_tool_fail("bench: --factor expects a number above 1 and at most 1024, "
                                     "not '%s'",
                                     v);
        } else if (strcmp(o, "--variant") == 0) {
            char buf[128], *tok, *save = NULL;

            v = option_value(argc, argv, &i,
                             "auto, plain, overlap, early or directed (comma separated)");
            if (v == NULL)
                return CES_EXIT_USAGE;
            /* strtok_r skips empty names: an empty list (--variant '') ran
             * the default variants without a word */
            if (v[0] == '\0' || v[0] == ',' || v[strlen(v) - 1] == ',' || strstr(v, ",,") != NULL ||
                strlen(v) >= sizeof(buf))
                return ces_tool_fail("bench: --variant expects auto, plain, overlap, early, "
                                     "directed (comma separated, at most %d), not '%s'",
                                     MAX_VARIANTS, v);
            snprintf(buf, sizeof(buf), "%s", v);
            B->nvariants = 0;
            for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
                int var = strcmp(tok, "auto") == 0       ? V_AUTO
                          : strcmp(tok, "plain") == 0    ? V_PLAIN
                          : strcmp(tok, "overlap") == 0  ? V_OVERLAP
                          : strcmp(tok, "early") == 0    ? V_EARLY
                          : strcmp(tok, "directed") == 0 ? V_DIRECTED
                                                         : -2;

                if (var == -2 || B->nvariants == MAX_VARIANTS)
                    return ces_tool_fail("bench: --variant expects auto, plain, overlap, early, "
                                         "directed (comma separated, at most %d), not '%s'",
                                         MAX_VARIANTS, v);
                /* one named twice was timed twice, two rows alike in the CSV */
                for (uint32_t k = 0; k < B->nvariants; k++)
                    if (B->variants[k] == var)
                        return ces_tool_fail("bench: --variant names %s twice", tok);
                B->variants[B->nvariants++] = var;
            }
        } else if (strcmp(o, "--ranks") == 0 || strcmp(o, "--iterations") == 0 ||
                   strcmp(o, "--warmup") == 0 || strcmp(o, "--chunks") == 0 ||
                   strcmp(o, "--slots") == 0 || strcmp(o, "--wake") == 0) {
            /* a count in its range, said as every command says one */
            static const char *const name[] = {"--ranks", "--iterations", "--warmup",
                                               "--chunks", "--slots", "--wake"};
            static const uint32_t lo[] = {2, 1, 0, 1, 1, 0},
                                  hi[] = {8, 200, 50, CES_COLL_MAX_CHUNKS, 64, CES_COLL_MAX_WAKE};
            uint32_t *dst[] = {&B->ranks, &B->iters, &B->warmup, &B->chunks, &B->slots, &B->wake};
            size_t k = 0;

            while (strcmp(o, name[k]) != 0)
                k++;
            v = i + 1 < argc ? argv[++i] : NULL;
            if (ces_tool_count("bench", o, v, lo[k], hi[k], dst[k]) != CES_EXIT_OK)
                return CES_EXIT_USAGE;
            if (strcmp(o, "--chunks") == 0 || strcmp(o, "--slots") == 0)
                sr_opt = o;
        } else if (strcmp(o, "--min-bytes") == 0 || strcmp(o, "--max-bytes") == 0 ||
                   strcmp(o, "--compute-bytes") == 0 || strcmp(o, "--root") == 0) {
            /* in the range of every collective and --ranks: that of the
             * ones given (--compute-bytes from what the collective moves,
             * --root below --ranks) is judged once all are known */
            v = i + 1 < argc ? argv[++i] : NULL;
            if (strcmp(o, "--root") == 0
                    ? ces_tool_number("bench", o, v, 0, 7, NULL, &n) != CES_EXIT_OK
                    : ces_tool_size("bench", o, v, 4, UINT64_C(16) << 30, NULL, &n) !=
                          CES_EXIT_OK)
                return CES_EXIT_USAGE;
            if (strcmp(o, "--min-bytes") == 0) {
                B->min_bytes = n;
                min_arg = v;
            } else if (strcmp(o, "--max-bytes") == 0) {
                B->max_bytes = n;
                max_arg = v;
            } else if (strcmp(o, "--root") == 0) {
                /* checked against --ranks below, which may follow */
                B->root = (uint32_t)n;
                B->root_arg = v;
            } else {
                B->compute_bytes = n;
                compute_arg = v;
            }
        } else {
            return ces_tool_unexpected("bench", o);
        }
    }
    if (coll < 0)
        return ces_tool_fail("bench: which collective? (alltoall, allgather, sendrecv, broadcast, "
                             "gather, scatter; see --help)");
    B->coll = (uint32_t)coll;
    /* each in 4..16G as given; the two in order, the values named, a
     * default as such (--max-bytes 512 alone was refused without a word of
     * the default --min-bytes 1K) */
    if (B->max_bytes < B->min_bytes)
        return ces_tool_fail("bench: need --min-bytes <= --max-bytes, not "
                             "--min-bytes %s%s and --max-bytes %s%s",
                             min_arg != NULL ? min_arg : "1K",
                             min_arg != NULL ? "" : " (the default)",
                             max_arg != NULL ? max_arg : "1G",
                             max_arg != NULL ? "" : " (the default)");
    if (outputs_ok(ctx, B) != CES_EXIT_OK)
        return CES_EXIT_USAGE;
    if (B->root_arg != NULL && !rooted(B->coll))
        return ces_tool_fail("bench: --root applies to broadcast, gather and scatter");
    if (B->root >= B->ranks) { /* said as every number out of its range */
        char note[32];
        uint64_t n;

        snprintf(note, sizeof(note), "--ranks %" PRIu32, B->ranks);
        return ces_tool_number("bench", "--root", B->root_arg, 0, B->ranks - 1, note, &n);
    }
    /* alltoall and sendrecv have no in-place form (CES_COLL_F_INPLACE) */
    if (B->in_place && (B->coll == CES_COLL_ALLTOALL || B->coll == CES_COLL_SENDRECV))
        return ces_tool_fail("bench: --in-place applies to allgather, broadcast, gather and "
                             "scatter");
    /* captured, the GPU side runs the backend's collective only
     * (ces_bench_run refused every other variant at every size) */
    for (uint32_t k = 0; k < B->nvariants && B->graph; k++)
        if (B->variants[k] != V_AUTO)
            return ces_tool_fail("bench: --graph times the backend's collective only (--variant "
                                 "auto), not %s",
                                 variant_name(B->variants[k]));
    if (B->nvariants == 0) {
        B->variants[B->nvariants++] = V_AUTO;
        if (!B->graph && local_variants(B)) {
            B->variants[B->nvariants++] = V_OVERLAP;
            B->variants[B->nvariants++] = V_EARLY;
        } else if (!B->graph) {
            B->variants[B->nvariants++] = V_PLAIN;
        }
    }
    for (uint32_t k = 0; k < B->nvariants; k++)
        if ((B->variants[k] == V_EARLY && !local_variants(B)) ||
            (B->variants[k] == V_OVERLAP && !local_variants(B) && !root_variants(B)) ||
            (B->variants[k] == V_DIRECTED && !root_variants(B)))
            return ces_tool_fail("bench: %s%s has the variants %s only",
                                 ces_coll_name((int)B->coll), B->in_place ? " --in-place" : "",
                                 local_variants(B)  ? "auto, plain, overlap and early"
                                 : root_variants(B) ? "auto, plain, overlap and directed"
                                                    : "auto and plain");
    if (B->one_way && B->coll != CES_COLL_SENDRECV)
        return ces_tool_fail("bench: --one-way applies to sendrecv");
    /* an option that would change nothing is refused, not dropped */
    if (sr_opt != NULL && B->coll != CES_COLL_SENDRECV)
        return ces_tool_fail("bench: %s applies to sendrecv", sr_opt);
    /* the builder's: auto (ces_send/ces_recv) takes neither */
    if (sr_opt != NULL && !has_variant(B, V_PLAIN))
        return ces_tool_fail("bench: %s applies to the variant plain (the builder's; auto is "
                             "ces_send/ces_recv)",
                             sr_opt);
    if (compute_arg != NULL && !B->compute)
        return ces_tool_fail("bench: --compute-bytes applies with --with-compute");
    if (model_out_given && !B->calibrate)
        return ces_tool_fail("bench: --model-out applies with --calibrate (which writes the "
                             "model file)");
    if (B->wake > 0) {
        uint32_t k = 0;

        if (B->coll == CES_COLL_SENDRECV)
            return ces_tool_fail("bench: --wake applies to alltoall, allgather, broadcast, "
                                 "gather and scatter");
        while (k < B->nvariants && B->variants[k] == V_AUTO)
            k++;
        if (k == B->nvariants)
            return ces_tool_fail("bench: --wake applies to the variants but auto (--variant)");
        if (B->coll == CES_COLL_GATHER && !B->in_place)
            return ces_tool_fail("bench: --wake applies to gather in place only (--in-place): "
                                 "out of place every rank copies, none only waits");
    }
    /* One way, one chunk per message is fastest; where every rank also
     * receives, two chunks let the copy-out of the first overlap the send of
     * the second (64 MiB on 2x H200: one way 180.0 vs 188.4 us, ring 229.1
     * vs 235.6). */
    if (B->chunks == 0)
        B->chunks = B->one_way ? 1 : 2;
    /* the collective's bytes per rank beside the compute kernel, rounded
     * down to what it moves (0 or below that ran a collective of 0 bytes,
     * refused after the whole sweep) */
    if (compute_arg != NULL && B->compute_bytes < size_unit(B)) {
        char note[64];

        snprintf(note, sizeof(note), "%s moves multiples of %" PRIu64 " bytes",
                 ces_coll_name((int)B->coll), size_unit(B));
        return ces_tool_size("bench", "--compute-bytes", compute_arg, size_unit(B),
                             UINT64_C(16) << 30, note, &B->compute_bytes);
    }
    return sweep_sizes(B);
}

/* The graph of `calls` sendrecv calls in a row as ces_send/ces_recv run
 * them: the group graph (backend/cuda/group.c) of the ring (every rank
 * sends `bytes` to the next and receives as many from the one before: they
 * exchange, so in place) or, one way, of the pipeline (rank r to r + 1),
 * eager (calls in a row, ces_cuda_group_calls: a one-way message of up to
 * CES_P2P_STAGE_MAX bytes - on 2 ranks; the pipeline's middle ranks send
 * and receive - staged through two slots, from CES_P2P_SIDE_MIN bytes the
 * side way; any other in place) or captured (flags a replay repeats;
 * one-way messages of up to CES_P2P_STAGE_MAX bytes staged, never the side
 * way: calls / 2 replays of two calls, as the bench's graph of all its
 * calls alternates them).  As variant_graph returns. */
static int group_graph(struct ces_ctx *ctx, const struct bench *B, uint64_t bytes,
                       uint32_t calls, struct ces_graph **out)
{
    struct ces_p2p_table t;
    struct ces_p2p_stages st;

    memset(&t, 0, sizeof(t));
    memset(&st, 0, sizeof(st));
    st.side_min = B->side_min;
    for (uint32_t k = 0; k < B->ranks; k++) {
        uint64_t i = 0;

        /* each rank's range: send, receive, two staging slots (none for a
         * message the communicators write in place) */
        if (bytes <= B->stage_max)
            st.p[k][(k + 1) % B->ranks] = (struct ces_p2p_stage){2 * bytes, bytes, 0, 0};
        if (!B->one_way || k + 1 < B->ranks)
            t.d[k][++i] = (struct ces_p2p_desc){(k + 1) % B->ranks, 1, 0, bytes};
        if (!B->one_way || k > 0)
            t.d[k][++i] = (struct ces_p2p_desc){(k + B->ranks - 1) % B->ranks, 0, bytes, bytes};
        t.d[k][0].bytes = i;
    }
    if (B->graph)
        return ces_cuda_group_graph_captured(ctx, B->ranks, 4 * bytes, &t, 2, calls / 2, &st,
                                             out);
    return ces_cuda_group_calls(ctx, B->ranks, 4 * bytes, &t, calls, &st, out);
}

/* The graph `variant` runs at `bytes`, `iterations` collectives in a row:
 * the builder graph of that variant; auto = the graph the backend's
 * collective call selects, in a build without CUDA too; the sendrecv auto
 * = the point-to-point group's graph (group_graph).  CES_OK with the graph
 * in *out, which the caller destroys, or the builder's error (the
 * context's error says it) and *out NULL. */
static int variant_graph(struct ces_ctx *ctx, const struct bench *B, int variant,
                         uint64_t bytes, uint32_t iterations, struct ces_graph **out)
{
    struct ces_coll_params p;
    int rc;

    *out = NULL;
    if (variant == V_AUTO && B->coll == CES_COLL_SENDRECV)
        return group_graph(ctx, B, bytes, iterations, out);
    ces_coll_params_init(&p, B->coll);
    p.root = B->root;
    p.proto = CES_PROTO_MONO;
    p.phase = CES_PHASE_EAGER;
    p.ranks = B->ranks;
    p.bytes = bytes;
    p.iterations = iterations;
    p.flags = variant < 0 ? 0 : (uint32_t)variant;
    p.wake = variant < 0 ? 0 : B->wake;
    if (variant == V_AUTO) {
        struct ces_coll_params sel;

        ces_cuda_coll_select(&sel, B->coll, B->ranks, bytes, B->root, B->graph);
        p.flags = sel.flags;
        p.proto = sel.proto;
        p.phase = sel.phase;
        p.wake = sel.wake;
    }
    /* In place the in-place graph replaces the variant's, as it replaces
     * the selected one in the backend's call (coll_run). */
    if (B->in_place)
        p.flags = CES_COLL_F_INPLACE;
    if (B->coll == CES_COLL_SENDRECV) {
        p.npairs = B->one_way ? 0 : B->ranks;
        for (uint32_t r = 0; r < p.npairs; r++) {
            p.pairs[r][0] = r;
            p.pairs[r][1] = (r + 1) % B->ranks;
        }
        p.chunks = B->chunks;
        p.slots = B->slots;
    }
    /* streams that outnumber the hardware queues share them, declared as
     * the backend's collective call and the run's variants declare it
     * (ces_cuda_queues_adopt): the model times the sharing */
    rc = ces_coll_build(ctx, &p, out);
    if (rc == CES_OK)
        rc = ces_cuda_queues_adopt(*out, B->queues); /* no error: queues <= 32 */
    return rc;
}

/* The model's time of one iteration of `variant` at `bytes` in steady state
 * (its graph, variant_graph), host costs set to 0, in the fast mode of
 * blocked waits or (`slow`) in the slow one; a group's graph (the sendrecv
 * auto) unlinked, as ces_group_end issues it (its side streams neither
 * forked nor joined).  NAN, saying why on stderr, if
 * it cannot be built or predicted, with the error in *err (CES_OK with a
 * time). */
static double predict(struct ces_ctx *ctx, const struct bench *B, int variant, uint64_t bytes,
                      int slow, int *err)
{
    struct ces_graph *g = NULL;
    struct ces_predict r;
    struct ces_model m = B->model;
    double t4 = 0.0;
    /* The steady-state period: (time of 2k iterations - time of k) / k, as
     * a median of back-to-back iterations sees it, once the first k have
     * filled the schedule.  k = 4 on up to 4 ranks, 8 on more: the one-way
     * pipeline's first message reaches rank n-1 after n-1 of them, and
     * two staging slots alternate (8 ranks, --variant plain at 1M: 18.22
     * us with k = 4, 12.71 as on 2 ranks and with k = 16 or 64). */
    uint32_t k = B->ranks > 4 ? 8 : 4;

    m.host_call_us = 0.0;
    m.graph_launch_us = 0.0;
    m.unlinked = variant == V_AUTO && B->coll == CES_COLL_SENDRECV;
    if (slow)
        ces_model_slow_mode(&m);
    for (uint32_t n = k; n <= 2 * k; n += k) {
        *err = variant_graph(ctx, B, variant, bytes, n, &g);
        if (*err == CES_OK)
            *err = ces_model_predict(ctx, &m, g, &r);
        ces_graph_destroy(g);
        if (*err != CES_OK) {
            ces_tool_say("bench: no prediction at %" PRIu64 " bytes: %s", bytes,
                         ces_ctx_last_error(ctx));
            return NAN;
        }
        if (n == k)
            t4 = r.total_us;
    }
    return (r.total_us - t4) / k;
}

/* Whether the model can run every variant's graph at the first size
 * (ranks, flag widths, memops: what the size does not change): CES_EXIT_OK,
 * or the model's reason, exit 2, before any run (it predicted nothing,
 * saying so once a size).  A graph not built is no lack of the model: the
 * predictions say why, a size at a time. */
static int model_runs(struct ces_ctx *ctx, const struct bench *B)
{
    char coll[32];

    coll_label(B, coll, sizeof(coll)); /* allgather-inplace, as the CSV names it */
    for (uint32_t k = 0; k < B->nvariants; k++) {
        struct ces_graph *g = NULL;
        int rc = variant_graph(ctx, B, B->variants[k], B->sizes[0], 4, &g) == CES_OK
                     ? ces_model_require_file(ctx, &B->model, g, NULL, B->model_path)
                     : CES_OK;

        ces_graph_destroy(g);
        /* (want of memory is no lack of the model's) */
        if (rc == CES_ERR_NOMEM)
            return ces_tool_fail("bench: %s", ces_ctx_last_error(ctx));
        if (rc != CES_OK)
            return ces_tool_fail("bench: the model cannot run %s %s: %s", coll,
                                 variant_name(B->variants[k]), ces_ctx_last_error(ctx));
    }
    return CES_EXIT_OK;
}

/* Every variant's predictions at every size.  One the model cannot make
 * is a dash (said on stderr); one that failed for want of memory is no
 * answer of the model's, and is remembered (B->pred_nomem) for the exit
 * status: a dry run whose table lost predictions so exited 0. */
static void compute_predictions(struct ces_ctx *ctx, struct bench *B)
{
    B->pred_nomem = 0;
    for (uint32_t k = 0; k < B->nvariants; k++)
        for (uint32_t i = 0; i < B->nsizes; i++) {
            int err[2];

            B->ces[k][i].pred = predict(ctx, B, B->variants[k], B->sizes[i], 0, &err[0]);
            B->ces[k][i].pred_slow = predict(ctx, B, B->variants[k], B->sizes[i], 1, &err[1]);
            B->pred_nomem |= err[0] == CES_ERR_NOMEM || err[1] == CES_ERR_NOMEM;
        }
}

/* The fastest cesync variant that ran at size i (of times within 1 ns of
 * each other, as the model's equal predictions come out, the first listed);
 * -1 if none. */
static int best_variant(const struct bench *B, uint32_t i)
{
    int best = -1;

    for (uint32_t k = 0; k < B->nvariants; k++)
        if (B->ces[k][i].ran && (best < 0 || B->ces[k][i].med < B->ces[best][i].med - 1e-3))
            best = (int)k;
    return best;
}

static void print_table(const struct bench *B, FILE *f)
{
    int bw = bytes_width(B), vw = 0;

    for (uint32_t k = 0; k < B->nvariants; k++) {
        int w = (int)strlen(variant_name(B->variants[k]));

        vw = w > vw ? w : vw;
    }
    vw = vw < 7 ? 7 : vw; /* "variant" */
    /* err%'s values are 6 wide and a column of their own for the s */
    fprintf(f, "#%*s %-*s %9s %9s %9s %7s %5s %9s %9s %6s  | %9s %7s | %9s %7s | %7s | %6s %6s\n",
            bw, "bytes", vw, "variant", "time_us", "min_us", "max_us", "busbw", "check", "pred_us",
            "slow_us", "err%", "CE_us", "CE_bus", "kern_us", "k_bus", "raw_bw", "ces/CE", "ces/k");
    for (uint32_t i = 0; i < B->nsizes; i++) {
        int k = best_variant(B, i);
        char sz[24], pred[32], slow[32];
        const struct ces_bench_meas *ce = &B->other[IMPL_CE][i], *kn = &B->other[IMPL_K][i],
                          *raw = &B->other[IMPL_RAW][i];

        fmt_bytes(sz, sizeof(sz), B->sizes[i]);
        if (k < 0) {
            const struct ces_bench_meas *c = &B->ces[0][i];

            ces_bench_us_cell(pred, sizeof(pred), c->pred);
            ces_bench_us_cell(slow, sizeof(slow), c->pred_slow);
            fprintf(f, " %*s %-*s %9s %9s %9s %7s %5s %9s %9s %6s  |", bw, sz, vw,
                    variant_name(B->variants[0]), "-", "-", "-", "-", "-", pred, slow, "-");
        } else {
            const struct ces_bench_meas *c = &B->ces[k][i];
            char err[16];

            ces_bench_us_cell(pred, sizeof(pred), c->pred);
            ces_bench_us_cell(slow, sizeof(slow), c->pred_slow);
            /* a dry run's time is the prediction itself: no error to show */
            if (B->dry)
                snprintf(err, sizeof(err), "%6s ", "-");
            else
                ces_bench_err_cell(err, sizeof(err), c);
            fprintf(f, " %*s %-*s", bw, sz, vw, variant_name(B->variants[k]));
            print_meas(f, B, B->sizes[i], c);
            fprintf(f, " %9s %9s %s |", pred, slow, err);
        }
        if (ce->ran)
            print_time_bw(f, B, B->sizes[i], ce->med);
        else
            fprintf(f, " %9s %7s", "-", "-");
        fprintf(f, " |");
        if (kn->ran)
            print_time_bw(f, B, B->sizes[i], kn->med);
        else
            fprintf(f, " %9s %7s", "-", "-");
        fprintf(f, " |");
        if (raw->ran) {
            char r[24];

            ces_bench_gbps_cell(r, sizeof(r), busbw(B, B->sizes[i], raw->med));
            fprintf(f, " %7s |", r);
        } else {
            fprintf(f, " %7s |", "-");
        }
        if (k >= 0 && ce->ran)
            fprintf(f, " %6.2f", ce->med / B->ces[k][i].med);
        else
            fprintf(f, " %6s", "-");
        if (k >= 0 && kn->ran)
            fprintf(f, " %6.2f\n", kn->med / B->ces[k][i].med);
        else
            fprintf(f, " %6s\n", "-");
    }
    if (B->dry)
        fprintf(f, "# time: us per collective, the cost model's steady state in the fast mode (a "
                   "dry run measures nothing);\n");
    else if (B->graph)
        fprintf(f, "# time: us per collective, median over timed graph launches of %u collective%s "
                   "each (device events around each launch, the ranks' mean);\n",
                B->iters, ces_plural(B->iters));
    else
        fprintf(f, "# time: us per collective, median of %u (device events, the ranks' mean);\n",
                B->iters);
    fprintf(f, "# busbw GB/s (nccl-tests); pred, slow: the cost model in the fast and the slow mode\n"
               "# of blocked waits (docs/PERFORMANCE.md, \"Two modes\"); err%% = (pred - time) / time\n"
               "# for the nearer of the two, marked s when that is the slow mode's;\n"
               "# raw_bw: %s (the physical limit, GB/s:\n"
               "# the busbw of a collective in that time); ces/X = X time / cesync time (> 1: "
               "cesync faster)\n",
            raw_copy(B->coll));
    /* the eager group's flags change place at a size (group.c): its times
     * and its slow mode change there too.  Not where a message is one way
     * (2 ranks, --one-way: pushed at every size; on more the pipeline's
     * middle ranks send and receive) nor captured (--graph: cposted and
     * cdone, written into the waiter's memory at every size) */
    for (uint32_t i = 0; i < B->nsizes && B->coll == CES_COLL_SENDRECV && !B->graph &&
                         (!B->one_way || B->ranks > 2);
         i++)
        if (B->sizes[i] >= CES_P2P_POLLED_MIN && has_variant(B, V_AUTO)) {
            fprintf(f, "# auto: from %" PRIu64 "M the %s flags stay in the writer's memory and "
                       "its peer polls them (pushed into\n# the waiter's below): no pushed "
                       "wake-up, but polled waits can run in the slow mode\n",
                    CES_P2P_POLLED_MIN >> 20, B->one_way ? "pipeline's" : "ring's");
            break;
        }
    for (uint32_t i = 0; i < B->nsizes && B->coll == CES_COLL_BROADCAST; i++)
        if (B->other[IMPL_CE][i].ran) {
            fprintf(f, "# CE: NCCL has no copy-engine broadcast (only allgather, alltoall, gather, "
                       "scatter): its CTAPolicy ZERO\n# communicator runs a kernel\n");
            break;
        }
}

/* Ends a CSV row of implementation k (cesync variants, then NCCL CE, NCCL
 * kernel, raw): with --with-compute the compute kernel's share kept beside
 * it (at compute_bytes, the same on every row of k; empty if it did not
 * run). */
static void csv_kept(const struct bench *B, uint32_t k, FILE *f)
{
    if (B->compute && B->kept_ran[k])
        fprintf(f, ",%" PRIu64 ",%.1f", B->compute_bytes, 100.0 * B->kept[k]);
    else if (B->compute)
        fprintf(f, ",%" PRIu64 ",", B->compute_bytes);
    fputc('\n', f);
}

/* The CSV is made in memory and written whole: an existing file is
 * replaced only by a complete one. */
static int write_csv(const struct bench *B, const char *path)
{
    static const char *names[3] = {"nccl-ce", "nccl-kernel", "raw"};
    char *text = NULL, coll[32];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int ec;

    if (f == NULL)
        return ces_tool_fail("bench: out of memory");
    coll_label(B, coll, sizeof(coll));
    fprintf(f, "coll,ranks,bytes,impl,variant,time_us,min_us,max_us,algbw_gbps,busbw_gbps,check,"
               "pred_us,pred_slow_us%s\n",
            B->compute ? ",compute_bytes,compute_kept_pct" : "");
    for (uint32_t i = 0; i < B->nsizes; i++) {
        for (uint32_t k = 0; k < B->nvariants; k++) {
            const struct ces_bench_meas *c = &B->ces[k][i];

            if (!c->ran)
                continue;
            ces_bench_csv_row(f, coll, B->coll, B->ranks, B->sizes[i], "cesync",
                              variant_name(B->variants[k]), c);
            csv_kept(B, k, f);
        }
        for (int j = 0; j < 3; j++) {
            const struct ces_bench_meas *c = &B->other[j][i];

            if (!c->ran)
                continue;
            ces_bench_csv_row(f, coll, B->coll, B->ranks, B->sizes[i], names[j], NULL, c);
            csv_kept(B, B->nvariants + (uint32_t)j, f);
        }
    }
    {
        int failed = ferror(f) != 0;

        if (fclose(f) != 0 || failed) {
            free(text);
            return ces_tool_fail("bench: out of memory");
        }
    }
    ec = ces_tool_write_file("bench", path, text, len);
    free(text);
    if (ec == CES_EXIT_OK) /* as every command says a file it wrote */
        ces_tool_say("wrote %s", path);
    return ec;
}

/* --- the plot: Graphviz with pinned points (neato -n2) ------------------- */

#define PX0 90.0
#define PX1 690.0
#define PY0 60.0
#define PY1 420.0

static double px(const struct bench *B, uint64_t bytes)
{
    double lo = log2((double)B->sizes[0]), hi = log2((double)B->sizes[B->nsizes - 1]);

    return hi > lo ? PX0 + (log2((double)bytes) - lo) / (hi - lo) * (PX1 - PX0) : PX0;
}

/* One implementation's line through its points (bw[i] > 0) and its row of
 * the legend; a line without a point has no row: 1 if drawn, else 0. */
static int plot_line(FILE *f, const struct bench *B, const char *id, const char *label,
                     const char *color, double ymax, const double *bw, int dashed, int row)
{
    int prev = -1;

    for (uint32_t i = 0; i < B->nsizes; i++) {
        if (!(bw[i] > 0.0))
            continue;
        fprintf(f, "  %s%u [pos=\"%.1f,%.1f!\", color=\"%s\", fillcolor=\"%s\"];\n", id, i,
                px(B, B->sizes[i]), PY0 + bw[i] / ymax * (PY1 - PY0), color, color);
        if (prev >= 0)
            fprintf(f, "  %s%d -- %s%u [color=\"%s\", penwidth=2%s];\n", id, prev, id, i, color,
                    dashed ? ", style=dashed" : "");
        prev = (int)i;
    }
    if (prev < 0)
        return 0;
    fprintf(f,
            "  leg_%s [shape=plaintext, style=\"\", fixedsize=false, label=\"%s\", fontcolor=\"%s\", "
            "pos=\"%.1f,%.1f!\"];\n",
            id,
            label, color, PX1 + 90.0, PY1 - 20.0 * row);
    return 1;
}

/* The plot: its Graphviz source, written whole to FILE.dot beside
 * FILE.svg|.png first (the measurements are not lost for want of Graphviz),
 * then drawn by ces_dot_write, which renders into a temporary file beside
 * FILE and renames it over FILE only when `dot` succeeded: a `dot` that
 * fails leaves an existing FILE as it was.  The source says its layout
 * (neato, the points pinned in points), so `dot -Tsvg FILE.dot` draws a
 * source that was kept.  FILE.dot is removed once drawn; without `dot` it
 * stays (exit status unchanged); a `dot` that fails keeps it and makes the
 * exit status 2. */
static int write_plot(struct ces_ctx *ctx, const struct bench *B, const char *path)
{
    static const char *colors[] = {"#1f77b4", "#2ca02c", "#17becf", "#9467bd"};
    double bw[MAX_SIZES], ymax = 100.0;
    const char *fmt = ces_dot_format(path);
    char *dotpath, *text = NULL, title[48];
    struct ces_dot_bounds b;
    size_t n, len = 0;
    FILE *f;
    int row = 0, failed, rc;

    if (fmt == NULL || strcmp(fmt, "dot") == 0)
        return ces_tool_fail("bench: --plot expects a .svg or .png path, not '%s'", path);
    for (uint32_t i = 0; i < B->nsizes; i++) {
        for (uint32_t k = 0; k < B->nvariants; k++)
            if (B->ces[k][i].ran && busbw(B, B->sizes[i], B->ces[k][i].med) > ymax)
                ymax = busbw(B, B->sizes[i], B->ces[k][i].med);
        for (int j = 0; j < 3; j++)
            if (B->other[j][i].ran && busbw(B, B->sizes[i], B->other[j][i].med) > ymax)
                ymax = busbw(B, B->sizes[i], B->other[j][i].med);
    }
    ymax = ceil(ymax / 50.0) * 50.0;
    f = open_memstream(&text, &len);
    if (f == NULL)
        return ces_tool_fail("bench: out of memory");
    coll_title(B, title, sizeof(title));
    fprintf(f, "graph bench {\n  graph [layout=neato, inputscale=72, bgcolor=white, splines=line, "
               "outputorder=edgesfirst, "
               "label=\"cesync bench %s, %u GPUs: busbw (GB/s) against bytes per rank%s\", "
               "labelloc=t, fontname=Helvetica];\n"
               "  node [shape=circle, style=filled, width=0.07, height=0.07, fixedsize=true, "
               "label=\"\", fontname=Helvetica, fontsize=11];\n",
            title, B->ranks, B->dry ? ", predicted (--dry-run)" : "");
    /* axes and ticks */
    fprintf(f, "  ax0 [shape=point, width=0.01, pos=\"%.1f,%.1f!\"];\n"
               "  ax1 [shape=point, width=0.01, pos=\"%.1f,%.1f!\"];\n"
               "  ax2 [shape=point, width=0.01, pos=\"%.1f,%.1f!\"];\n"
               "  ax0 -- ax1; ax0 -- ax2;\n",
            PX0, PY0, PX1, PY0, PX0, PY1);
    for (uint32_t i = 0; i < B->nsizes; i += B->nsizes > 12 ? 2 : 1) {
        char sz[24];

        fmt_bytes(sz, sizeof(sz), B->sizes[i]);
        fprintf(f, "  xt%u [shape=plaintext, style=\"\", fixedsize=false, label=\"%s\", pos=\"%.1f,%.1f!\"];\n",
                i, sz, px(B, B->sizes[i]), PY0 - 15.0);
    }
    for (int t = 0; t <= 5; t++)
        fprintf(f, "  yt%d [shape=plaintext, style=\"\", fixedsize=false, label=\"%.0f\", pos=\"%.1f,%.1f!\"];\n",
                t, ymax * t / 5, PX0 - 25.0, PY0 + (PY1 - PY0) * t / 5);
    for (uint32_t k = 0; k < B->nvariants; k++) {
        char id[16], label[48];

        for (uint32_t i = 0; i < B->nsizes; i++)
            bw[i] = B->ces[k][i].ran ? busbw(B, B->sizes[i], B->ces[k][i].med) : 0.0;
        snprintf(id, sizeof(id), "c%u_", k);
        snprintf(label, sizeof(label), "cesync %s", variant_name(B->variants[k]));
        row += plot_line(f, B, id, label, colors[k % 4], ymax, bw, 0, row);
    }
    for (int j = 0; j < 3; j++) {
        static const char *ids[3] = {"ce_", "k_", "raw_"};
        static const char *labels[3] = {"NCCL CE", "NCCL kernel", "raw peer copy (limit)"};
        static const char *cols[3] = {"#d62728", "#ff7f0e", "#7f7f7f"};

        for (uint32_t i = 0; i < B->nsizes; i++)
            bw[i] = B->other[j][i].ran ? busbw(B, B->sizes[i], B->other[j][i].med) : 0.0;
        row += plot_line(f, B, ids[j], labels[j], cols[j], ymax, bw, j == IMPL_RAW, row);
    }
    fprintf(f, "}\n");
    failed = ferror(f);
    if (fclose(f) != 0 || failed) {
        free(text);
        return ces_tool_fail("bench: out of memory");
    }
    /* FILE.dot beside FILE.svg|.png */
    n = strlen(path) - 4 + sizeof(".dot");
    dotpath = malloc(n);
    if (dotpath == NULL) {
        free(text);
        return ces_tool_fail("bench: out of memory");
    }
    snprintf(dotpath, n, "%.*s.dot", (int)(strlen(path) - 4), path);
    /* a named pipe that no reader opens, or reads from, for 60 s stops
     * either, as dot's -o (it waited for ever; a .dot that is none is
     * refused before the sweep, but may have become one since) */
    ces_tool_dot_bounds(&b, 0, 0);
    if (ces_dot_write_by(ctx, text, dotpath, &b) != CES_OK) {
        rc = ces_tool_fail("bench: --plot: %s", ces_ctx_last_error(ctx));
    } else {
        int drawn = ces_dot_write_by(ctx, text, path, &b);

        if (drawn == CES_OK) {
            remove(dotpath);
            ces_tool_say("wrote %s", path);
        } else if (drawn == CES_ERR_UNSUPPORTED) {
            ces_tool_say("bench: --plot: %s not drawn: Graphviz 'dot' is not "
                         "installed; the plot is in %s (`dot -T%s` draws it), and the exit "
                         "status does not count it",
                         path, dotpath, fmt);
        } else {
            ces_tool_say("bench: --plot: %s; the plot is in %s",
                         ces_ctx_last_error(ctx), dotpath);
        }
        /* without Graphviz the source can be drawn later; a `dot` that ran
         * and failed did not draw what was asked */
        rc = drawn == CES_OK || drawn == CES_ERR_UNSUPPORTED ? CES_EXIT_OK : CES_EXIT_USAGE;
    }
    free(dotpath);
    free(text);
    return rc;
}

static void print_header(const struct bench *B, FILE *f)
{
    char title[48];

    coll_title(B, title, sizeof(title));
    fprintf(f, "# cesync bench %s: %u ranks (one process), %u iteration%s after %u "
               "warm-up, %s; model %s%s",
            title, B->ranks, B->iters, ces_plural(B->iters), B->warmup,
            B->graph ? "CUDA graphs" : "eager", B->model.kind, B->model_path ? " + " : "");
    ces_tool_put_name(f, B->model_path ? B->model_path : "");
    fprintf(f, "%s\n", B->calibrated ? " (calibrated in this run)" : "");
    if (B->wake > 0)
        fprintf(f, "# the variants but auto run the wake chain of %u cop%s\n", B->wake,
                B->wake == 1 ? "y" : "ies");
    /* said as the model file's name above (its controls as \xNN): the
     * NCCL line names CES_NCCL_LIB's file where that did not load, and
     * CUDA_DEVICE_MAX_CONNECTIONS below is a value given too */
    if (B->nccl_info[0] != '\0') {
        fputs("# ", f);
        ces_tool_put_name(f, B->nccl_info);
        fputc('\n', f);
    }
    if (!B->dry || ces_cuda_queues_shared(B->queues)) {
        /* The hardware work queues per GPU change how often the polled
         * barriers run in their slow mode (docs/PERFORMANCE.md, "Two modes");
         * fewer than 8 are shared by the streams of a variant that has more,
         * which the predictions time, a dry run's too. */
        const char *conn = getenv("CUDA_DEVICE_MAX_CONNECTIONS");

        fputs("# CUDA_DEVICE_MAX_CONNECTIONS=", f);
        ces_tool_put_name(f, conn != NULL ? conn : "unset (CUDA's default, 8)");
        fputc('\n', f);
    }
}

#ifdef CES_HAVE_CUDA
static int run_gpu(struct ces_ctx *ctx, struct bench *B)
{
    struct ces_bench_cfg cfg;
    struct ces_bench *gb = NULL;
    int ex = CES_EXIT_OK, bw = bytes_width(B), iw = 12; /* "nccl-kernel", "cesync/early" */

    for (uint32_t k = 0; k < B->nvariants; k++)
        if ((int)strlen(variant_name(B->variants[k])) + 7 > iw)
            iw = (int)strlen(variant_name(B->variants[k])) + 7; /* "cesync/directed" */
    memset(&cfg, 0, sizeof(cfg));
    cfg.ranks = B->ranks;
    cfg.coll = B->coll;
    cfg.max_bytes = B->sizes[B->nsizes - 1];
    if (B->calibrate && cfg.max_bytes < (UINT64_C(256) << 20))
        cfg.max_bytes = UINT64_C(256) << 20;
    if (B->compute && cfg.max_bytes < B->compute_bytes)
        cfg.max_bytes = B->compute_bytes;
    cfg.use_nccl = B->nccl;
    cfg.with_compute = B->compute;
    cfg.calibrate = B->calibrate;
    cfg.chunks = B->chunks;
    cfg.slots = B->slots;
    cfg.one_way = B->one_way;
    cfg.in_place = B->in_place;
    cfg.root = B->root;
    cfg.wake = B->wake;
    if (ces_bench_open(ctx, &cfg, &gb) != CES_OK) {
        ces_tool_say("bench: %s", ces_ctx_last_error(ctx));
        return CES_EXIT_USAGE;
    }
    snprintf(B->nccl_info, sizeof(B->nccl_info), "%s", ces_bench_nccl_info(gb));
    if (B->calibrate) {
        struct ces_model m = B->model;
        char *text = NULL;

        if (ces_bench_calibrate(gb, &m, stdout) != CES_OK) {
            ces_tool_say("bench: --calibrate: %s", ces_ctx_last_error(ctx));
            ex = CES_EXIT_DEFECT;
        } else if (ces_model_print(ctx, &m, &text, NULL) == CES_OK) {
            /* replaced only when complete; the reason is said on failure */
            int written =
                ces_tool_write_file("bench", B->model_out, text, strlen(text)) == CES_EXIT_OK;

            if (!written)
                ex = CES_EXIT_DEFECT;

            printf("# calibrated model %s ", written ? "written to" : "NOT written to");
            ces_tool_put_name(stdout, B->model_out);
            printf(":\n%s", text);
            ces_free(ctx, text);
            B->model = m;
            B->calibrated = 1;
        } else {
            ces_tool_say("bench: --calibrate: %s", ces_ctx_last_error(ctx));
            ex = CES_EXIT_DEFECT;
        }
    }
    /* once the GPUs are open (with the calibrated model where there is
     * one): without a GPU a sweep's predictions, minutes of them, came
     * before the message that no GPU can be used */
    compute_predictions(ctx, B);
    print_header(B, stdout);
    printf("#%*s %-*s %9s %9s %9s %7s %5s %9s %9s\n", bw, "bytes", iw, "impl", "time_us", "min_us",
           "max_us", "busbw", "check", "pred_us", "slow_us");
    for (uint32_t i = 0; i < B->nsizes; i++) {
        char sz[24];

        fmt_bytes(sz, sizeof(sz), B->sizes[i]);
        for (uint32_t k = 0; k < B->nvariants + 3; k++) {
            struct ces_bench_sample s;
            struct ces_bench_meas *m;
            int impl, var = V_AUTO, rc;
            char name[24];

            if (k < B->nvariants) {
                impl = CES_BI_CESYNC;
                var = B->variants[k];
                m = &B->ces[k][i];
                snprintf(name, sizeof(name), "cesync/%s", variant_name(var));
            } else {
                static const int impls[3] = {CES_BI_NCCL_CE, CES_BI_NCCL_KERNEL, CES_BI_RAW};
                static const char *names[3] = {"nccl-ce", "nccl-kernel", "raw"};

                impl = impls[k - B->nvariants];
                m = &B->other[k - B->nvariants][i];
                snprintf(name, sizeof(name), "%s", names[k - B->nvariants]);
                if (!ces_bench_has(gb, impl))
                    continue;
            }
            if (getenv("CES_BENCH_TRACE") != NULL)
                fprintf(stderr, "# running %s at %s\n", name, sz);
            rc = ces_bench_run(gb, impl, var, B->sizes[i], B->iters, B->warmup,
                               B->graph && impl != CES_BI_RAW, &s);
            fflush(stdout);
            if (rc != CES_OK) {
                printf(" %*s %-*s failed: ", bw, sz, iw, name);
                ces_tool_put_name(stdout, s.err);
                putchar('\n');
                if (impl == CES_BI_CESYNC)
                    ex = CES_EXIT_DEFECT;
                continue;
            }
            m->ran = 1;
            m->med = s.med_us;
            m->min = s.min_us;
            m->max = s.max_us;
            m->check = s.check;
            if (s.check == 0)
                ex = CES_EXIT_DEFECT;
            printf(" %*s %-*s", bw, sz, iw, name);
            print_meas(stdout, B, B->sizes[i], m);
            if (k < B->nvariants) {
                char pred[32], slow[32];

                ces_bench_us_cell(pred, sizeof(pred), m->pred);
                ces_bench_us_cell(slow, sizeof(slow), m->pred_slow);
                printf(" %9s %9s\n", pred, slow);
            } else {
                printf("\n");
            }
            if (s.check == 0)
                printf("# %s at %s WRONG: %s\n", name, sz, s.wrong);
        }
    }
    if (B->compute) {
        for (uint32_t k = 0; k < B->nvariants + 3; k++) {
            int impl = k < B->nvariants ? CES_BI_CESYNC
                                        : (int[]){CES_BI_NCCL_CE, CES_BI_NCCL_KERNEL,
                                                  CES_BI_RAW}[k - B->nvariants];
            int var = k < B->nvariants ? B->variants[k] : V_AUTO;

            if (!ces_bench_has(gb, impl))
                continue;
            if (ces_bench_compute(gb, impl, var, B->compute_bytes, &B->kept[k], &B->solo_us) == CES_OK) {
                B->kept_ran[k] = 1;
            } else {
                ces_tool_say("bench: --with-compute: %s", ces_ctx_last_error(ctx));
                ex = CES_EXIT_DEFECT;
            }
        }
    }
    ces_bench_close(gb);
    return ex;
}
#endif

int ces_cmd_bench(int argc, char **argv)
{
    struct bench *B = NULL;
    struct ces_ctx *ctx = NULL;
    struct ces_cuda_settings settings;
    int ex, rc, predicted = 0; /* predicted: a dry run's, some size of some variant */

    if (ces_tool_wants_help(argc, argv)) {
        fputs(bench_usage, stdout);
        return CES_EXIT_OK;
    }
    /* one line at a time, so a run cut short by a timeout still shows
     * how far it got */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return ces_tool_fail("out of memory");
    B = ces_malloc(ctx, sizeof(*B));
    if (B == NULL) {
        ces_ctx_destroy(ctx);
        return ces_tool_fail("out of memory");
    }
    memset(B, 0, sizeof(*B));
    ex = parse_args(ctx, B, argc, argv);
    if (ex != CES_EXIT_OK)
        goto out;
    /* before any work: the sweep's predictions may take minutes */
    if (B->dry && (B->calibrate || B->compute)) {
        ex = ces_tool_fail("bench: --dry-run cannot --calibrate or --with-compute");
        goto out;
    }
    /* The settings, read as the bench's communicators read them
     * (backend/cuda/args.c), in their order and words, once: a run judges
     * every one, as cesync run does, before the --model and the GPUs (in a
     * build without CUDA too, before it says so); a dry run, which opens no
     * communicator, only CES_P2P_STAGE_MAX and CES_P2P_SIDE_MIN, by which
     * the predictions stage and go the side way.  (CES_P2P_STAGE_MAX was
     * read here and the others after the --model: with CES_TIMEOUT_MS=abc
     * too the run named CES_P2P_STAGE_MAX.) */
    if (B->dry) {
        rc = ces_cuda_stage_max_read(ctx, &B->stage_max);
        if (rc == CES_OK)
            rc = ces_cuda_side_min_read(ctx, &B->side_min);
    } else {
        rc = ces_cuda_settings_read(ctx, &settings);
        if (rc == CES_OK) {
            B->stage_max = settings.stage_max;
            B->side_min = settings.side_min;
        }
    }
    if (rc != CES_OK) {
        ex = ces_tool_fail("bench: %s", ces_ctx_last_error(ctx));
        goto out;
    }
    /* and, as each communicator, no side way where its streams share
     * hardware queues (CUDA_DEVICE_MAX_CONNECTIONS below 8) */
    B->queues = ces_cuda_queues(getenv("CUDA_DEVICE_MAX_CONNECTIONS"));
    B->side_min = ces_cuda_side_min(B->side_min, B->queues);
    B->model = *ces_model_find("h200");
    if (B->model_path != NULL && ces_model_load(ctx, B->model_path, NULL, &B->model) != CES_OK) {
        ex = ces_tool_fail("%s", ces_ctx_last_error(ctx));
        goto out;
    }
    ex = model_runs(ctx, B);
    if (ex != CES_EXIT_OK)
        goto out;
#ifdef CES_HAVE_CUDA
    if (!B->dry) {
        /* run_gpu predicts once it has the GPUs */
        ex = run_gpu(ctx, B);
        if (ex == CES_EXIT_USAGE)
            goto out;
    }
#else
    /* after every check a build with CUDA makes before it opens the GPUs
     * (the --model file and its entries too), in its words */
    if (!B->dry) {
        ex = ces_tool_fail("bench: this cesync was built without CUDA; --dry-run predicts only");
        goto out;
    }
#endif
    if (B->dry)
        compute_predictions(ctx, B);
    for (uint32_t k = 0; k < B->nvariants && B->dry; k++)
        for (uint32_t i = 0; i < B->nsizes; i++) {
            /* a dry run reports the prediction as the time; without one
             * there is none, as for a variant that did not run */
            B->ces[k][i].ran = !isnan(B->ces[k][i].pred);
            predicted |= B->ces[k][i].ran;
            B->ces[k][i].med = B->ces[k][i].min = B->ces[k][i].max = B->ces[k][i].pred;
            B->ces[k][i].check = -1;
        }
    if (!B->dry)
        printf("\n"); /* after the run's own table */
    print_header(B, stdout);
    if (B->dry)
        printf("# --dry-run: every time below is the cost model's prediction\n");
    print_table(B, stdout);
    if (B->compute) {
        printf("# compute kernel beside each implementation at %" PRIu64
               " bytes: share of its solo speed kept (solo %.0f us)\n",
               B->compute_bytes, B->solo_us);
        for (uint32_t k = 0; k < B->nvariants + 3; k++) {
            static const char *names[3] = {"nccl-ce", "nccl-kernel", "raw"};

            if (!B->kept_ran[k])
                continue;
            if (k < B->nvariants)
                printf("#   cesync/%-8s %6.1f %%\n", variant_name(B->variants[k]), 100.0 * B->kept[k]);
            else
                printf("#   %-15s %6.1f %%\n", names[k - B->nvariants], 100.0 * B->kept[k]);
        }
    }
    {
        int ok = B->csv == NULL || write_csv(B, B->csv) == CES_EXIT_OK;

        ok &= B->plot == NULL || write_plot(ctx, B, B->plot) == CES_EXIT_OK;
        /* predictions lost for want of memory: the table and the outputs
         * are not whole, as an output that fails */
        ex = ces_bench_exit_after_outputs(ex, ok && !B->pred_nomem);
    }
    if (B->dry && ex == CES_EXIT_OK && !predicted) {
        /* a dry run's times are the predictions: with none it measured
         * nothing, which exit 0 hid behind a table of dashes */
        ces_tool_say("bench: --dry-run: the model predicted no size of any "
                     "variant (the lines above say why)");
        ex = CES_EXIT_DEFECT;
    }
out:
    ces_free(ctx, B);
    ces_ctx_destroy(ctx);
    return ex;
}
