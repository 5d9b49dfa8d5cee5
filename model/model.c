/*
 * model/model.c - the built-in machine kinds: one const table of semantics,
 * limits and costs per kind.  Values come from measurements on the machine
 * (docs/PERFORMANCE.md, which quotes the design notes' ANCHORS.md); `cesync bench
 * --calibrate` measures them again and writes a model file that overrides
 * any of them (model/file.c).
 */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const struct ces_model ces_model_kinds_[] = {
    {
        .kind = "h200",
        /* cuStreamBatchMemOp refuses count >= 256 (measured: 256 gives INVALID_VALUE). */
        .max_memops_per_batch = 255,
        /* 32-bit and 64-bit wait/write memops (CAN_USE_64_BIT_STREAM_MEM_OPS = 1). */
        .flag_widths = CES_MODEL_W32 | CES_MODEL_W64,
        /* CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES = 0 on H200 (measured). */
        .can_flush_remote_writes = 0,
        .has_64bit_memops = 1,
        /* CAN_USE_STREAM_WAIT_VALUE_NOR = 1 (measured). */
        .has_wait_nor = 1,
        /* ASYNC_ENGINE_COUNT = 3 (measured). */
        .copy_engines = 3,
        /* One cudaMemcpyBatchAsync runs its copies one after another: NCCL's
         * CE alltoall (local chunk and peer chunk in one batch) takes 1,650 us
         * at 1 GiB, the serial sum of the two copies (1,633 us measured),
         * while the same copies on two streams take 1,379 us. */
        .batch_engines = 1,
        /* An HGX H200 board has 8 GPUs behind NVSwitch. */
        .max_ranks = 8,
        /* The CUDA backend lowers a batch under capture to one cudaMemcpyAsync
         * per copy on the batch's stream (cudaMemcpyBatchAsync fails there). */
        .graph_copies_serial = 1,
        /* Eager, the CUDA backend issues a barrier right behind 64 MiB of
         * copies between ranks as two memop calls, its writes and then its
         * waits (backend/cuda/lower.h, CES_CUDA_SPLIT_WAIT_BYTES: as one
         * call its wait fell into the slow mode in most loops). */
        .split_wait_mib = 64,
        /* Copy engine over NV18, one direction: 394 GB/s for 256 MiB (calibrated;
         * ANCHORS: 397 at 1 GiB, 392 each way when both directions run;
         * nominal 450). */
        .peer_copy_gbps = 394.0,
        /* What all copies through one GPU's NVLink share, each direction:
         * the rate of one copy, as far as two GPUs can tell (one peer, and
         * one copy already reaches it; nominal 450 with NVLink 4).  Eight
         * GPUs behind NVSwitch may take more with copies to or from several
         * peers at once: not measured. */
        .link_gbps = 394.0,
        /* Device-to-device copy inside one GPU: 2,036 GB/s for 256 MiB
         * (calibrated; ANCHORS: ~2,090 at 1 GiB). */
        .local_copy_gbps = 2036.0,
        /* A lone 1 MiB peer copy between events takes 7.8 us, 5.2 more than its
         * bytes at 394 GB/s (calibrated; a 4 KiB copy takes 5.1 us). */
        .per_copy_us = 5.2,
        /* A copy inside one GPU costs far less to start: a 4 KiB local copy
         * after a one-write memop batch takes 2.0-2.1 us beyond the batch
         * (calibrated twice; scripts/probe_memops.sh copy-after-wait: 1.5).
         * The one-way staged pipeline's receiver copies out with it. */
        .per_local_copy_us = 2.05,
        /* Captured, a peer copy behind a memop batch that did not block
         * starts sooner than a lone one: rounds of a one-write batch and a
         * 1 MiB peer copy captured into a graph take 7.5-7.6 us, 2.5 beyond
         * the batch and the bytes (calibrated three times: 2.46-2.49; a
         * graph of 1 MiB one-way calls, one-write batch, copy, one-write
         * batch: 10.1-10.2 us, scripts/probe_memops.sh captured-oneway);
         * eagerly the same copy starts in per_copy_us (the hops probe: copy
         * and batch 10.5 us a message), and behind a batch whose wait
         * blocked too (the captured collectives' barriers). */
        .per_graph_copy_us = 2.5,
        /* One cudaMemcpyBatchAsync on the stream beyond its copies (estimate; calibrate). */
        .copy_batch_us = 1.0,
        /* One cuStreamBatchMemOp on the stream: 2.4 us (calibrated: 100
         * one-write batches back to back). */
        .memop_batch_us = 2.4,
        /* The backend's watchdog closes the last eager memop call that
         * waits of each stream in a launch with a 64-bit write to device
         * memory (captured: an enter and an exit write around every such
         * call): a 1 MiB alltoall loop of two barriers, each with the write,
         * took 16.8 us per iteration (median) against 15.0 without
         * (scripts/probe_memops.sh, "alltoall", 2x H200, fourth session;
         * 17.6 with the write in host memory): 0.9 us a write. */
        .progress_write_us = 0.9,
        /* A barrier of the mono protocol (each GPU writes its own slot and
         * polls the other's, one memop batch per side) takes 3.3 us, 0.9 more
         * than its memop batch (calibrated, 100 barriers). */
        .signal_hop_us = 0.9,
        /* The same barrier with each flag written into the waiter's memory
         * (nccl and credit protocols): 6.6 us, 4.2 more than the batch
         * (calibrated): a wait on local memory wakes up late. */
        .signal_push_us = 4.2,
        /* The barrier between two streams of one GPU: 6.7 us, 4.3 more than
         * the batch (calibrated): the memop machinery, not NVLink. */
        .signal_local_us = 4.3,
        /* A stream blocked in cudaStreamWaitEvent resumes this long after the
         * record on another stream of its GPU.  The backend forks and joins a
         * multi-stream graph every launch, so the one-way staged receiver
         * (its ops on s1) pays two such hops a message: 1 MiB messages take
         * 12.1 us (the third session's final run; 11.5-11.6 in the
         * seventh's, docs/bench/sendrecv_oneway_2xh200.csv).  The pipeline
         * is bound by its sender (docs/PERFORMANCE.md, "How well it
         * predicts"), so the hop may be larger: up to 1 us only the staged
         * ring's rows move, by at most 2 points.  A ping-pong
         * of records and awaits between two streams takes 8.2 us a hop on the
         * GPU (--calibrate's loop, behind the gate; 7.0 before it was gated):
         * why its hops cost so much more is not known, and --calibrate only
         * logs it. */
        .event_us = 0.25,
        /* The slow mode of blocked waits (ces_model_slow_mode): --calibrate's
         * polled barrier loop takes 3.3-4.0 us a barrier in some tries and
         * 8.2 in others, 5.8 more than its memop batch (calibrated: 5.79,
         * 5.89); a stream blocked on the join of a staged ring's receiver
         * resumed 7.9-10.9 us after that receiver's last copy ended, a memop
         * batch and 5.5-8.5 us (scripts/probe_memops.sh ring-staged).  The
         * slow mode holds for whole runs of a size point, the fast one more
         * often (docs/PERFORMANCE.md, "Two modes"). */
        .slow_wake_us = 5.8,
        /* A stream that goes from copy-engine work to a memop batch or back
         * pays this.  0: the calibrated per-copy and memop costs already hold
         * it for the plain and overlap schedules; no single value also fits
         * the `early` variant (docs/PERFORMANCE.md, "Cost model"). */
        .switch_us = 0.0,
        /* A one-write memop batch, a 4 KiB local copy and a 4 KiB peer copy
         * take 14.0-15.3 us a round, the write and the peer copy alone 4.9-5.0:
         * 9.3 us (the median of the first five of ten calibrations) for
         * the local copy, of which its start and bytes are 2.05 (the last
         * two: 7.4-7.5 beyond them; scripts/probe_memops.sh: local then peer
         * back to back 12.1-12.3 us against 2.4 + 2.0).  The plain schedules
         * pay it once a call. */
        .copy_switch_us = 7.25,
        /* Host cost of one enqueue call: 0.9 us for a one-op cuStreamBatchMemOp
         * (calibrated). */
        .host_call_us = 0.9,
        /* Host cost of one cudaGraphLaunch (estimate). */
        .graph_launch_us = 3.0,
    },
};

#define CES_MODEL_NKINDS (sizeof(ces_model_kinds_) / sizeof(ces_model_kinds_[0]))

const struct ces_model *ces_model_find(const char *kind)
{
    for (size_t i = 0; kind != NULL && i < CES_MODEL_NKINDS; i++)
        if (strcmp(ces_model_kinds_[i].kind, kind) == 0)
            return &ces_model_kinds_[i];
    return NULL;
}

void ces_model_slow_mode(struct ces_model *m)
{
    if (m == NULL)
        return;
    /* signal_hop_us stays: a polled wait reached after its write was
     * visible passes at once; one that blocked resumes slow_wake_us after
     * the write (model/predict.c, blocked_hop), and the first such wait
     * of a batch reached as a copy ended slow_wake_us after it is reached
     * (step) */
    m->slow_waits = 1;
    if (m->event_us < m->slow_wake_us)
        m->event_us = m->slow_wake_us;
}

const char *ces_model_kind_name(uint32_t i)
{
    return i < CES_MODEL_NKINDS ? ces_model_kinds_[i].kind : NULL;
}

/* The machine m as its messages name it: the built-in kind ("h200"), or
 * the model loaded from `file` ("the model of m.model (kind h200)"), whose
 * values, not the kind's, may be what it lacks. */
static const char *machine_name(const struct ces_model *m, const char *file, char *buf,
                                size_t size)
{
    size_t len = file != NULL ? strlen(file) : 0;

    if (file == NULL)
        return m->kind;
    /* a long path keeps its end, marked cut */
    snprintf(buf, size, "the model of %s%s (kind %s)", len > 128 ? "..." : "",
             len > 128 ? file + len - 128 : file, m->kind);
    return buf;
}

/* What machine m (named `name`) lacks for op, or NULL. */
static const char *op_lacks(const struct ces_model *m, const char *name,
                            const struct ces_graph *g, const struct ces_op *op, char *buf,
                            size_t size)
{
    if (op->kind == CES_OP_FLUSH && !m->can_flush_remote_writes) {
        snprintf(buf, size, "flush is not supported on %s (can_flush_remote_writes = 0)", name);
        return buf;
    }
    if (op->kind == CES_OP_WRITE || op->kind == CES_OP_WAIT) {
        struct ces_signal_info si = ces_graph_signal(g, op->slot.sig);
        uint32_t bit = si.width == CES_U64 ? CES_MODEL_W64 : CES_MODEL_W32;

        if (!(m->flag_widths & bit) || (si.width == CES_U64 && !m->has_64bit_memops)) {
            snprintf(buf, size, "%s is u%u, which %s has no memops for", si.name,
                     (unsigned)si.width, name);
            return buf;
        }
    }
    return NULL;
}

int ces_model_check_kind(struct ces_ctx *ctx, const struct ces_model *m, const char *who)
{
    if (memchr(m->kind, '\0', sizeof(m->kind)) != NULL)
        return CES_OK;
    return ces_ctx_error(ctx, CES_ERR_INVALID,
                         "%s%sthe model's kind is not a NUL-terminated string of at most %zu "
                         "bytes",
                         who != NULL ? who : "", who != NULL ? ": " : "", sizeof(m->kind) - 1);
}

int ces_model_require(struct ces_ctx *ctx, const struct ces_model *m, const struct ces_graph *g,
                      const char *who)
{
    return ces_model_require_file(ctx, m, g, who, NULL);
}

int ces_model_require_file(struct ces_ctx *ctx, const struct ces_model *m,
                           const struct ces_graph *g, const char *who, const char *file)
{
    uint32_t ranks = ces_graph_ranks(g), streams = ces_graph_streams(g);
    const char *sep = who != NULL ? ": " : "";
    uint64_t *base;
    char buf[200], at[32];
    const char *name;
    int rc = ces_model_check_kind(ctx, m, who);

    if (rc != CES_OK)
        return rc;
    if (who == NULL)
        who = "";
    name = machine_name(m, file, buf, sizeof(buf));
    /* as ces_cuda_lower refuses fewer */
    if (m->max_memops_per_batch < 3)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "%s%sthe model's max_memops_per_batch is %" PRIu32 ": the CUDA "
                             "backend needs 3 or more (a memop call that waits carries the "
                             "watchdog's writes besides the wait: eagerly a progress write, "
                             "captured an enter and an exit write)",
                             who, sep, m->max_memops_per_batch);
    if (ranks > m->max_ranks) {
        ces_setting_where(at, sizeof(at), g, CES_SETTING_RANKS);
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "%s%s%u ranks%s, %s%s%s has at most %u GPU%s", who, sep,
                             (unsigned)ranks, at, file == NULL ? "the " : "", name,
                             file == NULL ? " model" : "", (unsigned)m->max_ranks,
                             ces_plural(m->max_ranks));
    }
    base = ces_malloc(ctx, sizeof(*base) * 2 * streams);
    if (base == NULL)
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "%s%sout of memory", who, sep);
    /* An op is named by its first instance: #K counts the ops of its stream
     * in every earlier replay of every earlier block (the checker's and the
     * faults' numbering). */
    for (uint32_t r = 0; r < ranks && rc == CES_OK; r++) {
        memset(base, 0, sizeof(*base) * 2 * streams);
        for (uint32_t b = 0; b < ces_graph_nblocks(g) && rc == CES_OK; b++) {
            uint32_t n = 0;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);
            uint64_t *seen = base + streams; /* ops of each stream so far in this block */

            memset(seen, 0, sizeof(*seen) * streams);
            for (uint32_t k = 0; k < n && rc == CES_OK; k++) {
                const struct ces_op *op = &ops[k];
                char why[400], where[80];

                if (op_lacks(m, name, g, op, why, sizeof(why)) != NULL) {
                    ces_op_where(where, sizeof(where), r, op->stream,
                                 base[op->stream] + seen[op->stream], op);
                    rc = ces_ctx_error(ctx, CES_ERR_UNSUPPORTED, "%s%s%s: %s", who, sep, where,
                                       why);
                }
                seen[op->stream]++;
            }
            for (uint32_t s = 0; s < streams; s++)
                base[s] += seen[s] * ces_graph_block(g, b).reps;
        }
    }
    ces_free(ctx, base);
    /* the machine's 64-bit waits compare cyclically, as CUDA's do */
    if (rc == CES_OK)
        rc = ces_graph_u64_cyclic(ctx, g, *who != '\0' ? who : NULL);
    return rc;
}

int ces_model_supports(struct ces_ctx *ctx, const struct ces_model *m, const struct ces_graph *g)
{
    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (m == NULL || g == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_model_supports: NULL argument");
    return ces_model_require(ctx, m, g, NULL);
}
