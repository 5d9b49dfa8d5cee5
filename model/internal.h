/*
 * model/internal.h - private declarations of model/: the list of the fields
 * of struct ces_model that a model file may set, shared by the parser and
 * the printer.
 */
#ifndef CES_MODEL_INTERNAL_H
#define CES_MODEL_INTERNAL_H

#include "../core/internal.h"

#include <stddef.h>

/* X(field, unit) for the uint32_t fields (flag_widths is handled apart). */
#define CES_MODEL_U32_FIELDS(X)                                                \
    X(max_memops_per_batch, "ops")                                             \
    X(can_flush_remote_writes, "0/1")                                          \
    X(has_64bit_memops, "0/1")                                                 \
    X(has_wait_nor, "0/1")                                                     \
    X(copy_engines, "copies in flight per GPU")                                \
    X(batch_engines, "copies of one batch in flight")                          \
    X(max_ranks, "GPUs")                                                       \
    X(graph_copies_serial, "0/1")                                              \
    X(split_wait_mib, "MiB of copies before a barrier split in two batches")

/* X(field, unit) for the double fields. */
#define CES_MODEL_F64_FIELDS(X)                                                \
    X(peer_copy_gbps, "GB/s")                                                  \
    X(link_gbps, "GB/s")                                                       \
    X(local_copy_gbps, "GB/s")                                                 \
    X(per_copy_us, "us")                                                       \
    X(per_local_copy_us, "us")                                                 \
    X(per_graph_copy_us, "us")                                                 \
    X(copy_batch_us, "us")                                                     \
    X(memop_batch_us, "us")                                                    \
    X(progress_write_us, "us")                                                 \
    X(signal_hop_us, "us")                                                     \
    X(signal_push_us, "us")                                                    \
    X(signal_local_us, "us")                                                   \
    X(event_us, "us")                                                          \
    X(slow_wake_us, "us")                                                      \
    X(switch_us, "us")                                                         \
    X(copy_switch_us, "us")                                                    \
    X(host_call_us, "us")                                                      \
    X(graph_launch_us, "us")

/* CES_OK if every field of m lies within what a model file may give (kind
 * a string, flag_widths 32, 64 or both, costs finite 0..1e9, bandwidths
 * 1e-9..1e9, link_gbps at least peer_copy_gbps, engine and batch counts and
 * max_ranks 1 or more, yes/no fields 0 or 1); else CES_ERR_INVALID naming `who` and the field (model/file.c). */
int ces_model_check_values(struct ces_ctx *ctx, const struct ces_model *m, const char *who);

/* CES_OK if m's kind is a NUL-terminated string, else CES_ERR_INVALID
 * prefixed with `who` and ": " (none when NULL) (model/model.c). */
int ces_model_check_kind(struct ces_ctx *ctx, const struct ces_model *m, const char *who);

/* ces_model_supports, its messages prefixed with `who` and ": " (none
 * when NULL) (model/model.c). */
int ces_model_require(struct ces_ctx *ctx, const struct ces_model *m, const struct ces_graph *g,
                      const char *who);

/* ces_model_require of a model loaded from `file` (ces_model_load), named
 * "the model of FILE (kind K)" where the built-in kind's is "the K model"
 * or "K": its values, not the kind's, may be what it lacks.  file NULL:
 * ces_model_require.  The tools check it before they predict. */
int ces_model_require_file(struct ces_ctx *ctx, const struct ces_model *m,
                           const struct ces_graph *g, const char *who, const char *file);

#endif
