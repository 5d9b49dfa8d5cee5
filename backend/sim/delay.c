/*
 * backend/sim/delay.c - the delay fault (delay:rR.sS#K): the write at that
 * position executes, its stream goes on, and the write lands at any later
 * moment.  The checker checks a derived graph in its place: at the
 * position, a `record` of a new event; on a stream of its own, added to
 * every rank, an `await` of that event and then the write.  The write keeps
 * what happened before its position, nothing after it; its stream has a
 * hardware queue of its own (model.c), so only the record holds it back.
 */
#include "internal.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a delayed write sits in g, and what stands for it in the derived
 * graph. */
struct delay_at {
    const struct ces_fault *f;
    uint32_t block, rep, op; /* block b, replay j, op i of the rank's list */
    uint32_t ghost;          /* the stream its write moves to */
    uint32_t event;          /* the derived graph's event */
};

/* How many ops and blocks the derivation copies between two readings of
 * the clock for the time bound: about a millisecond's work (a block or
 * an op costs about a microsecond to copy, many times a step of the
 * model's building, which reads it every 65,536 steps, model.c: as many
 * copies would be 60 ms or more). */
#define DERIVE_LOOK 1024

/* The derivation's time bound: its deadline (0: none), and the blocks and
 * ops copied since the clock was last read. */
struct derive_clock {
    double deadline;
    uint64_t work;
};

/* Counts one block or op copied; whether the bound has passed, the clock
 * read once DERIVE_LOOK have been since its last reading (or before the
 * first: work starts there). */
static bool derive_over(struct derive_clock *c)
{
    if (++c->work < DERIVE_LOOK)
        return false;
    c->work = 0;
    return c->deadline > 0 && ces_now() >= c->deadline;
}

static int cmp_at(const void *pa, const void *pb)
{
    const struct delay_at *a = pa, *b = pb;

    if (a->block != b->block)
        return a->block < b->block ? -1 : 1;
    if (a->rep != b->rep)
        return a->rep < b->rep ? -1 : 1;
    if (a->f->rank != b->f->rank)
        return a->f->rank < b->f->rank ? -1 : 1;
    return a->op < b->op ? -1 : a->op > b->op;
}

/* g's connections and tables into h (indices stay), and an event per delay
 * named delayN after its stream S + N (with underscores added until no
 * event of g has the name). */
static int copy_tables(const struct ces_graph *g, struct ces_graph *h, struct delay_at *at,
                       size_t nat)
{
    int rc = ces_graph_set_connections(h, ces_graph_connections(g));

    if (rc == CES_OK)
        rc = ces_sim_copy_tables(g, h);
    for (size_t k = 0; k < nat && rc == CES_OK; k++) {
        char name[64];
        int len = snprintf(name, sizeof(name), "delay%" PRIu32,
                           at[k].ghost - ces_graph_streams(g));

        while (ces_graph_find_event(g, name) >= 0 && len < (int)sizeof(name) - 1)
            name[len++] = '_', name[len] = '\0';
        rc = ces_graph_add_event(h, name, &at[k].event);
    }
    return rc;
}

/* Rank r's ops of replay `rep` of block b into h's current block, the
 * delayed writes among them moved to their streams; SIM_LATE where the
 * bound passes first (a block may hold millions of ops). */
static int copy_ops(const struct ces_graph *g, struct ces_graph *h, uint32_t b, uint32_t rep,
                    uint32_t r, const struct delay_at *at, size_t nat, struct derive_clock *c)
{
    uint32_t n;
    const struct ces_op *ops = ces_graph_ops(g, b, r, &n);
    int rc = CES_OK;

    for (uint32_t i = 0; i < n && rc == CES_OK; i++) {
        const struct delay_at *d = NULL;
        struct ces_op rec, aw, wr;

        if (derive_over(c))
            return SIM_LATE;
        for (size_t k = 0; k < nat && d == NULL; k++)
            if (at[k].block == b && at[k].rep == rep && at[k].f->rank == r && at[k].op == i)
                d = &at[k];
        if (d == NULL) {
            rc = ces_graph_add_op(h, r, &ops[i]);
            continue;
        }
        memset(&rec, 0, sizeof(rec));
        rec.kind = CES_OP_RECORD;
        rec.stream = ops[i].stream;
        rec.event = d->event;
        rec.line = ops[i].line;
        rec.col = ops[i].col;
        aw = rec;
        aw.kind = CES_OP_AWAIT;
        aw.stream = d->ghost;
        wr = ops[i];
        wr.stream = d->ghost;
        rc = ces_graph_add_op(h, r, &rec);
        if (rc == CES_OK)
            rc = ces_graph_add_op(h, r, &aw);
        if (rc == CES_OK)
            rc = ces_graph_add_op(h, r, &wr);
    }
    return rc;
}

/* Block b into h: its replays with a delayed write each become a block of
 * one replay, the runs of replays between them a block each; SIM_LATE
 * where the bound passes first. */
static int copy_block(const struct ces_graph *g, struct ces_graph *h, uint32_t b,
                      const struct delay_at *at, size_t nat, struct derive_clock *c)
{
    struct ces_block_info bi = ces_graph_block(g, b);
    uint32_t from = 0; /* the first replay not yet copied */
    size_t k = 0;
    int rc = CES_OK;

    while (k < nat && at[k].block < b)
        k++;
    while (rc == CES_OK && from < bi.reps) {
        /* the next replay with a delay, or the end */
        uint32_t to = k < nat && at[k].block == b ? at[k].rep : bi.reps;
        uint32_t reps = to > from ? to - from : 1;

        rc = ces_graph_add_block(h, bi.kind, reps);
        for (uint32_t r = 0; r < ces_graph_ranks(g) && rc == CES_OK; r++)
            rc = copy_ops(g, h, b, from, r, at, nat, c);
        from += reps;
        while (k < nat && at[k].block == b && at[k].rep < from)
            k++;
    }
    return rc;
}

/* The time bound passed while the graph was derived, before block b of n
 * (SIM_LATE): said as the model's building says it (model.c). */
static int derive_late(struct ces_ctx *ctx, const struct ces_check_opts *opts, uint32_t b,
                       uint32_t n)
{
    char before[64] = "";

    if (opts->spent_seconds > 0)
        snprintf(before, sizeof(before), " (%g s of it spent before the check)",
                 opts->spent_seconds);
    return ces_ctx_error(ctx, SIM_LATE,
                         "time bound %g s reached before the search%s: the graph checked in "
                         "the schedule's place for its delay faults (%" PRIu32 " of %" PRIu32
                         " block%s copied) was not derived by then",
                         opts->max_seconds, before, b, n, ces_plural(n));
}

int ces_sim_delay_derive(struct ces_ctx *ctx, const struct ces_graph *g,
                         const struct ces_check_opts *opts, struct sim_delayed *out)
{
    size_t nat = 0, nrest = 0;
    uint32_t streams = ces_graph_streams(g);
    struct delay_at *at = NULL;
    struct ces_graph *h = NULL;
    struct derive_clock clock = {0, DERIVE_LOOK - 1}; /* (read at the first look) */
    uint32_t b = 0;
    int rc = CES_OK;

    /* what spent_seconds left of the bound; none left: over at the first
     * look, before the first block */
    if (opts->max_seconds > 0)
        clock.deadline = ces_now() + opts->max_seconds - opts->spent_seconds;
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < opts->nfaults; i++)
        nat += opts->faults[i].kind == CES_FAULT_DELAY;
    if (nat == 0)
        return CES_OK;
    if (streams + nat > CES_MAX_STREAMS)
        return ces_ctx_error(ctx, CES_ERR_LIMIT,
                             "%zu delay fault%s need%s %zu streams a rank; a graph has at most "
                             "%u",
                             nat, ces_plural(nat), nat == 1 ? "s" : "", streams + nat,
                             CES_MAX_STREAMS);
    at = ces_malloc(ctx, nat * sizeof(*at));
    /* the other faults, and a stop of a delayed write's stream for each stop
     * before that write on its own: the record is never enqueued */
    out->faults = ces_malloc(ctx, (opts->nfaults + nat * opts->nfaults) * sizeof(*out->faults));
    if (at == NULL || out->faults == NULL) {
        rc = ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory deriving the delay faults' graph");
        goto out;
    }
    nat = 0;
    for (size_t i = 0; i < opts->nfaults; i++) {
        const struct ces_fault *f = &opts->faults[i];

        if (f->kind == CES_FAULT_DELAY) {
            uint64_t len;

            at[nat].f = f;
            ces_sim_op_at(g, f->rank, f->stream, f->index, &at[nat].block, &at[nat].rep,
                          &at[nat].op, &len);
            at[nat].ghost = streams + (uint32_t)nat;
            nat++;
        } else {
            out->faults[nrest++] = *f;
        }
    }
    for (size_t k = 0; k < nat; k++) {
        for (size_t i = 0; i < opts->nfaults; i++) {
            const struct ces_fault *f = &opts->faults[i];

            if (f == at[k].f || f->rank != at[k].f->rank || f->stream != at[k].f->stream)
                continue;
            if (f->kind == CES_FAULT_STOP && f->index <= at[k].f->index)
                out->faults[nrest++] =
                    (struct ces_fault){CES_FAULT_STOP, f->rank, at[k].ghost, 0};
            /* a write dropped or delayed twice was refused with the faults
             * (ces_sim_faults_check) */
            assert(f->kind == CES_FAULT_STOP || f->index != at[k].f->index);
        }
    }
    out->nfaults = nrest;
    out->streams = streams;
    qsort(at, nat, sizeof(*at), cmp_at);
    out->delays = ces_malloc(ctx, nat * sizeof(*out->delays));
    if (out->delays == NULL) {
        rc = ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory deriving the delay faults' graph");
        goto out;
    }
    for (size_t k = 0; k < nat; k++) {
        out->delays[k].fault = *at[k].f;
        out->delays[k].stream = at[k].ghost;
    }
    out->ndelays = nat;
    rc = ces_graph_create(ctx, ces_graph_ranks(g), streams + (uint32_t)nat, &h);
    if (rc == CES_OK)
        rc = copy_tables(g, h, at, nat);
    /* the clock read before the first block and every DERIVE_LOOK of its
     * blocks and ops, within a block too */
    for (; b < ces_graph_nblocks(g) && rc == CES_OK; b++) {
        rc = derive_over(&clock) ? SIM_LATE : copy_block(g, h, b, at, nat, &clock);
        if (rc != CES_OK)
            break; /* (b: the blocks copied whole) */
    }
    if (rc == SIM_LATE) {
        rc = derive_late(ctx, opts, b, ces_graph_nblocks(g));
        goto out;
    }
    if (rc == CES_OK)
        rc = ces_graph_validate(h, NULL);
    if (rc == CES_OK) {
        out->g = h;
        h = NULL;
    }
out:
    ces_free(ctx, at);
    ces_graph_destroy(h);
    if (rc != CES_OK && rc != SIM_LATE)
        ces_sim_delayed_free(ctx, out);
    return rc;
}

void ces_sim_delayed_free(struct ces_ctx *ctx, struct sim_delayed *d)
{
    ces_graph_destroy(d->g);
    ces_free(ctx, d->faults);
    ces_free(ctx, d->delays);
    memset(d, 0, sizeof(*d));
}
