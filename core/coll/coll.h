/*
 * core/coll/coll.h - private interface of the collective builders: the text
 * generator state, the symbolic-expression helper, the sync protocols
 * (core/coll/sync.c) and the per-collective descriptions (one file each).
 *
 * A builder writes canonical .ces text (the form core/print.c prints): one
 * space between tokens, expressions without spaces and with only the
 * parentheses that precedence needs, no comments.
 */
#ifndef CES_CORE_COLL_H
#define CES_CORE_COLL_H

#include "internal.h"

/* Generator state shared by the driver, the sync protocols and the bodies. */
struct ces_cgen {
    struct ces_sb sb;
    struct ces_coll_params p; /* checked, defaults filled in */
    uint32_t nsyncs;          /* barriers per body (0 = the builder has its own flags) */
    uint32_t parity;          /* nccl: 1 when the body's first sync uses `complete` */
    bool offset;              /* first_iter != 1: the global iteration is $i+$I0 */
    bool directed;            /* CES_COLL_F_DIRECTED: one side of each barrier waits */
};

/* One collective: its checks, declarations and body. */
struct ces_coll_desc {
    uint32_t nsyncs;  /* barriers per iteration */
    uint32_t streams; /* streams per rank */
    /* Collective-specific parameter checks (after the common ones); NULL if none. */
    int (*check)(struct ces_ctx *ctx, const struct ces_coll_params *p);
    /* `let` and `buffer` lines (and `signal` lines when nsyncs == 0). */
    void (*decls)(struct ces_cgen *cg);
    /* One iteration's ops (calls ces_coll_sync for its barriers). */
    void (*body)(struct ces_cgen *cg);
};

extern const struct ces_coll_desc ces_coll_alltoall_desc;
extern const struct ces_coll_desc ces_coll_allgather_desc;
extern const struct ces_coll_desc ces_coll_gather_desc;
extern const struct ces_coll_desc ces_coll_scatter_desc;
extern const struct ces_coll_desc ces_coll_broadcast_desc;
extern const struct ces_coll_desc ces_coll_sendrecv_desc;
extern const struct ces_coll_desc ces_coll_barrier_desc;

/* Algorithm variants (core/coll/overlap.c): for p->flags != 0, checks the
 * flags and replaces *d by the variant's description (the overlap and early
 * variants, or the in-place form); CES_OK and *d unchanged when
 * p->flags == 0. */
int ces_coll_variant(struct ces_ctx *ctx, const struct ces_coll_params *p,
                     const struct ces_coll_desc **d);
/* The in-place form of a collective (core/coll/inplace.c); NULL for those
 * that have none (alltoall, sendrecv, barrier). */
const struct ces_coll_desc *ces_coll_inplace(uint32_t coll);

/* Checks shared by several collectives, with the collective's name first in
 * the message: params.root names a rank; ranks x bytes fits in 2^48 bytes
 * (the size of a buffer that holds every rank's part). */
int ces_coll_check_root(struct ces_ctx *ctx, const struct ces_coll_params *p);
int ces_coll_check_total(struct ces_ctx *ctx, const struct ces_coll_params *p);
/* Both: the gather and scatter checks. */
int ces_coll_check_rooted(struct ces_ctx *ctx, const struct ces_coll_params *p);

/* The plain collective's declarations and checks (the description
 * ces_coll_source starts from): what its variants and in-place forms
 * declare and check too, since ranks that do not run a variant's part use
 * the same buffers. */
void ces_coll_plain_decls(struct ces_cgen *cg);
int ces_coll_plain_check(struct ces_ctx *ctx, const struct ces_coll_params *p);
/* Gather's pushes: every rank but the root copies its send into its block
 * of the root's recv, one batch each. */
void ces_coll_gather_pushes(struct ces_cgen *cg);
/* The root's batch of scatter and broadcast: `src` into every peer's recv. */
void ces_coll_root_pushes(struct ces_cgen *cg, const char *src);
/* For every rank K but params.root, each line of `lines` (every one ending
 * in '\n') as `rK : line`: the format's `r*` cannot leave the root out. */
void ces_coll_each_but_root(struct ces_cgen *cg, const char *lines);

/* Text of a*G+b in canonical form, where G is the global iteration ("$i",
 * or "$i+$I0" when first_iter != 1).  a = 0 gives the constant b. */
void ces_coll_lin(const struct ces_cgen *cg, char *buf, size_t size, int64_t a, int64_t b);

/* --- sync protocols (sync.c) ------------------------------------------- */

/* The `signal` lines of the protocol's barrier arrays. */
void ces_coll_sync_decls(struct ces_cgen *cg);
/* Barrier k (0-based) of the body: writes, then waits, as one memop group.
 * With cg->directed (gather, scatter, broadcast) one side writes and the
 * other waits: the ranks whose recv is free tell the ranks that will copy
 * into it, then the ranks that copied tell the ranks whose recv they
 * filled. */
void ces_coll_sync(struct ces_cgen *cg, uint32_t k);
/* What the protocol needs at the end of a body (credit: collect the acks). */
void ces_coll_sync_tail(struct ces_cgen *cg);

#endif /* CES_CORE_COLL_H */
