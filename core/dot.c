/*
 * core/dot.c - the Graphviz picture of a graph (ces_dot_emit) and writing it
 * to a file, rendered through the `dot` program for .svg and .png, replacing
 * the file only when complete (ces_dot_write).
 *
 * Layout: a cluster per rank (one with nothing to draw in its place among
 * the others, "no ops" where it has none), inside it a lane per stream, inside
 * that a cluster per block (an eager iteration, or a graph phase drawn once
 * and labelled "replayed xK", its ops named at their #K in every replay);
 * ops are nodes in program order linked by solid gray edges; the copies of
 * a batch sit in a green box.  Dashed blue edges go from each write to
 * every wait it can satisfy; dotted purple ones from each record to the
 * awaits that wait for it; bold red edges go from each copy into another
 * rank to the ops there that read what it wrote.
 * Cross edges do not constrain the layout, so every lane stays a straight
 * column and large graphs lay out quickly.  Output depends only on the graph
 * and the overlay (no pointers, no hash order).
 */
#include "internal.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* One op's place: block, rank, index in the rank's list of the block. */
struct dot_ref {
    uint32_t block, rank, index;
};

/* A wait, keyed by the slot it watches, for the write -> wait search. */
struct dot_wait {
    uint32_t sig, rank, idx;
    struct dot_ref ref;
};

/* A write, wait, record or await as the order analysis (order_*) sees it,
 * in one of the first two replays of its block: its op, its process (proc:
 * a rank's stream, or its hardware queue where streams share one), its
 * place among that process's events (pos), for an await the event of the
 * record it waits for (UINT32_MAX where none is one of them), and for its
 * process's first in a (block, replay) the latest earlier events of its
 * rank's processes (links[link..link + nlink]: block and replay
 * boundaries); `later`: of the second replay of a block replayed more
 * often, so standing for the later replays' events too. */
struct dot_ev {
    struct dot_ref ref;
    uint32_t proc, pos, record, link, nlink;
    bool later;
};

/* A write or wait of the analysis, sorted by slot, process and place: a
 * write's value, a wait's compare and value; `later`: of the second
 * replay of a block replayed more often, so standing for the later
 * replays' too. */
struct dot_ow {
    uint32_t sig, rank, idx, proc, pos, block, cmp;
    uint64_t value;
    bool later;
};

/* A write's value and its place in o->w, to find a slot's writes by value. */
struct dot_wv {
    uint64_t value;
    size_t i;
};

/* A process's waits into a slot, as they need writes of other processes
 * (o->need): each wait whose process's latest write into the slot before
 * it (program order) fails it, or that has none, passes on a write of
 * another process after that one, or on the slot's initial 0 where it
 * has none; such waits after one write of the process (a segment) may
 * pass on one write, those after different ones on different writes.
 * The compares and values of every such wait (ncond of them, more than
 * 2: any); `init`: one is before the process's first write into the
 * slot; w[wlo..whi) the slot's writes, w[own..end) the process's. */
struct dot_chain {
    uint32_t ncond;
    uint32_t cmp[2];
    uint64_t value[2];
    bool init;
    size_t wlo, whi, own, end;
};

/* Of a wait whose replays each need a write of their own (replays_left):
 * the clock of its first replay's event, and its process's latest write
 * into its slot before that event (o->w's, SIZE_MAX where none), which
 * that replay sees or one after. */
struct dot_first {
    const uint32_t *x1;
    size_t f;
};

/* A pair kept above DOT_MAX_SIGNAL_EDGES pairs within blocks: a wait and
 * one of its nearest writes. */
struct dot_pair {
    struct dot_ref wait, write;
};

/* At most this many waits into a wait's slot before it are read by
 * taken_apart: its process's latest, then other processes' (apart_chain). */
#define DOT_APART_LOOK 8

/* At most this many writes into a slot for chain_over, taken_apart (which
 * chain_over calls: apart_before has an entry for each write, its sets of
 * writes are bits of a uint32_t) and order_across (the wait's slot and each
 * earlier wait's) to read, each all of them for each wait it reads. */
#define DOT_CHAIN_WRITES 16

/* At most this many writes tried by taken_apart's apart_fits for a write
 * of a wait: past them it takes the write as one the wait may pass on. */
#define DOT_APART_TRIES 1024

/* What the analysis knows: clock[e * nproc + q] is how many of process q's
 * events happen before event e (e's own included) in every
 * execution; done[q] how many of q's events are computed. */
struct dot_order {
    uint32_t nproc;
    uint32_t *proc_of; /* [ranks * streams]: the process, UINT32_MAX where none */
    size_t *off;       /* [nproc + 1]: process q's events at ev[off[q]..off[q + 1]) */
    struct dot_ev *ev;
    uint32_t *clock;
    uint32_t *done;
    uint32_t *low;     /* [3 * nproc]: order_event's clock, a bound, a minimum */
    struct ces_vec links; /* uint32_t: events the first of a (block, replay) follow */
    struct dot_ow *w;  /* every write, by slot, process, place */
    size_t nw;
    struct dot_ow *x;  /* every wait, likewise */
    size_t nx;
    struct dot_chain *chain; /* each process's waits into a slot */
    uint32_t *chain_of;      /* [events]: a wait's in o->chain */
    uint32_t *need;          /* [events]: of a wait, the segments (dot_chain) up to
                              * it (its last replay's, for a later replay's) that
                              * have a wait needing a write, each of a later replay
                              * counted for every later replay where the replay has
                              * a write of the process into the slot, saturating */
    bool *dead;        /* [events]: one no execution runs */
    bool *over;        /* [nproc]: last[]'s write one the wait never sees */
    uint32_t *from;    /* [nproc]: the first place of each of last[]'s runs the wait may see */
    bool *linked;      /* [nproc]: of its rank's linked streams (not a delayed write's) */
    uint32_t *cut;     /* [ranks]: a block whose last replay a wait of the rank never
                        * passes, its later blocks run in no execution (UINT32_MAX: none) */
    uint32_t *spent;   /* [ranks]: a later replay's wait event whose replays use up
                        * the writes they need (replays_left, chain_left), its
                        * rank's later blocks after each (UINT32_MAX: none) */
    uint8_t *exact;    /* [ranks]: whose count of the writes spent[r]'s replays need
                        * is exact: replays_left's (1), chain_left's (2), both (3) */
    bool *paired;      /* [ranks]: spent[r]'s replays, an even count, pass two by
                        * two on writes that so come before its last replay's
                        * writes of another process that fail it (replays_left) */
    uint32_t *past;    /* [2 * DOT_PAST_FACTS * nproc]: of process p, up to
                        * DOT_PAST_FACTS wait events (past[p * DOT_PAST_FACTS + j])
                        * whose last replay (it, where not of a later replay) comes
                        * after every replay of p's first past[(nproc + p) *
                        * DOT_PAST_FACTS + j] events (UINT32_MAX: none; past_add) */
    bool *anchored;    /* [events]: a wait whose facts past_add has taken */
    uint32_t *xrun;    /* [nx]: the first of x[i]'s run of waits of its slot and
                        * process, one after another, of its compare and value */
    uint32_t *xrise;   /* [nx]: likewise of its run of `>=` waits whose values do not
                        * fall from one to the next */
    uint32_t *two;     /* [4 * nproc]: order_twice's least and second least clocks */
    size_t *two_who;   /* [2 * nproc]: the writes of the least */
    size_t *group;     /* [nproc + 1]: the starts of one slot's writes per process */
    size_t *last;      /* [3 * nproc]: that process's latest write before the wait, or
                        * SIZE_MAX; then keep_nearest's writes, or order_taken's (two
                        * of each run) */
    struct dot_wv *wv; /* [nw]: each slot's writes (at its places in o->w) by value */
    size_t *wsame;     /* [nw]: the first of w[i]'s process's writes into its slot after
                        * w[i] of another value, or the end of them */
    size_t *wrun;      /* [nw]: the first after w[i] of those writes whose value is below
                        * the one before it, or their end */
    size_t *wlater;    /* [nw]: the first of those writes at or after w[i] of a later
                        * replay (dot_ow.later), or their end */
    size_t *frun;      /* [2 * nproc + 1]: of each of slot_writes' runs, where the writes
                        * that may fail keep_nearest's wait end (fail_runs: those before it
                        * that run), and from nproc + 1 on the first of them that fails it
                        * of a later replay (fail_later; SIZE_MAX: not yet found) */
    uint32_t nfrun;
    const struct ces_op *fwt; /* fail_runs' wait, and its width */
    uint32_t fwidth;
    const struct ces_graph *g;
    const struct dot_ev *y; /* slot_overwritten's wait */
    uint32_t y_first;  /* of y of a later replay (dot_ev.later), its first replay's place */
    size_t next_fail;  /* fail_runs' first write of the wait's own process after it that
                        * fails it, of its block's later replays (next_fail), or SIZE_MAX */
    const struct dot_ev *apart; /* the wait taken_apart read last (NULL: none yet) */
    bool apart_none;   /* what it reads of that wait: nothing (a later replay's), or
                        * of its latest apart_m waits the writes each may take */
    uint32_t apart_m, apart_take[DOT_APART_LOOK], apart_fail[DOT_APART_LOOK + 1];
    uint32_t apart_next[DOT_APART_LOOK]; /* of each, the later ones apart from it
                                          * (taken_before) */
    uint32_t apart_before[DOT_CHAIN_WRITES]; /* of each write, those that come before it */
    uint32_t apart_seq[DOT_APART_LOOK], apart_nseq; /* a run of them, each apart from the
                                                     * next, the last's writes failing x */
    bool changed;      /* a clock went up */
    uint64_t work;     /* clock entries and writes looked at (DOT_ORDER_MAX_WORK) */
    double deadline;   /* ces_now's, the picture's (0: none): past it, read every
                        * DOT_ORDER_CLOCK_WORK of work, `late` and the order stops */
    uint64_t clock_at; /* the work at which the clock is read next */
    bool late;
};

/* A wait's condition: its compare and value (u32 `>=`: the low 32 bits),
 * and its place in st->waits. */
struct dot_wval {
    uint32_t cmp;
    uint64_t value;
    size_t at;
};

/* Overlay per node, filled from the marks. */
struct dot_mark_info {
    uint32_t style_bits; /* 1 << enum ces_dot_style */
    uint32_t nsteps;
    uint32_t steps[4];  /* the first few step numbers */
    uint32_t nblocked;  /* BLOCKED marks: one, or a replay each (the watchdog's) */
    uint32_t blocked_reps[4]; /* the replays of the first few */
    uint32_t nstopped;  /* STOPPED marks, likewise */
    uint32_t stopped_reps[4];
};

struct dot_state {
    struct ces_ctx *ctx;
    const struct ces_graph *g;
    struct ces_sb sb;
    size_t *node_base;             /* [blocks * ranks]: index of the first node of (b, r) */
    struct dot_mark_info *marks;   /* [nodes] or NULL */
    const struct ces_dot_overlay *ov;
    const struct ces_dot_checked *chk; /* the check drawn, or NULL */
    size_t cross; /* write -> wait and data edges emitted */
    struct ces_vec waits; /* struct dot_wait, sorted by slot */
    struct ces_vec wvals; /* struct dot_wval: waits[i]'s group sorted by condition */
    struct ces_vec bvals; /* struct dot_wval: waits[i]'s group's block's, sorted likewise */
    size_t *hits;         /* [waits]: the waits a write satisfies (signal_edges) */
    struct ces_vec kept;  /* struct dot_pair, sorted: the pairs within blocks drawn (skip_near) */
    size_t nsame, nfar;   /* write -> wait pairs within one block / across blocks */
    size_t nnear;         /* pairs within one block not among those kept */
    bool skip_far;        /* too many pairs: leave out those across blocks */
    bool skip_near;       /* too many within blocks: draw the kept ones alone */
    bool both;            /* an op marked both blocked and stopped */
    uint32_t *level;      /* [nodes]: each op's rank in the layout (its lane's nodes before it) */
    struct ces_dot_size size;
};

#define DOT_BLOCKED_STOPPED ((1u << CES_DOT_BLOCKED) | (1u << CES_DOT_STOPPED))

/* Above this many cross edges, edges are drawn straight and dot's search
 * limits are lowered, so a large graph still renders in seconds. */
#define DOT_LARGE_EDGES 500

/* Above this many write -> wait pairs, the pairs whose write and wait lie in
 * different blocks (a counter written in a later iteration satisfies every
 * earlier `>=` wait) are left out and counted in the legend: each spans the
 * whole height of the picture, and dot's layout time grows with their
 * length.  Above this many pairs within blocks, a wait keeps only the
 * edges of its nearest writes of its block, ones it may see (keep_pairs),
 * the rest counted in the legend: a counter written chunk after chunk in
 * one block satisfies every earlier `>=` wait of its block, and a flag
 * set and reset every `==` wait of its value (the 8-rank sendrecv of 64
 * chunks: 15,001 pairs, 7,168 with --sync credit, which dot did not lay
 * out in 5 minutes).  Over an overlay of a check not known (ces_dot_emit) every
 * pair is drawn: its executions may skip a stopped op, a dropped write
 * or a wait's write (the watchdog releases it), so that a write the order
 * of the graph alone says is overwritten before a wait may be what the
 * wait sees. */
#define DOT_MAX_SIGNAL_EDGES 1000

static const struct ces_op *op_at(const struct ces_graph *g, struct dot_ref r)
{
    uint32_t n = 0;
    const struct ces_op *ops = ces_graph_ops(g, r.block, r.rank, &n);

    assert(r.index < n);
    return &ops[r.index];
}

static void node_id(char *buf, size_t size, struct dot_ref r)
{
    snprintf(buf, size, "n%" PRIu32 "_%" PRIu32 "_%" PRIu32, r.block, r.rank, r.index);
}

/* Adds an edge drawn across lanes from op a to op b to the layout's size:
 * the ranks between them. */
static void add_span(struct dot_state *st, struct dot_ref a, struct dot_ref b)
{
    const struct ces_graph *g = st->g;
    uint32_t la = st->level[st->node_base[(size_t)a.block * g->ranks + a.rank] + a.index];
    uint32_t lb = st->level[st->node_base[(size_t)b.block * g->ranks + b.rank] + b.index];

    st->size.span += la > lb ? la - lb : lb - la;
}

/* Graphviz refuses a quoted string of 16384 bytes or more ("longer than
 * 16384?") and a node wider than 65535 points (about 13,000 characters):
 * put_escaped starts a new line and a new string, joined by '+', every
 * this many bytes. */
#define DOT_STRING_PIECE 4096

/* Appends s as the inside of a dot double-quoted string, a line of
 * DOT_STRING_PIECE bytes or so per string, the strings joined by '+' (an
 * escape, and a UTF-8 character, is never split). */
static void put_escaped(struct ces_sb *sb, const char *s)
{
    char one[2] = {0, 0};
    size_t piece = 0;

    for (; *s != '\0'; s++) {
        const char *chunk = one;

        if (*s == '"')
            chunk = "\\\"";
        else if (*s == '\\')
            chunk = "\\\\";
        else if (*s == '\n')
            chunk = "\\n";
        else if (*s == '&') /* Graphviz reads entities ("&amp;", "&#65;") in every label */
            chunk = "&amp;";
        else
            one[0] = *s;
        if (piece >= DOT_STRING_PIECE && ((unsigned char)*s & 0xc0) != 0x80) {
            ces_sb_puts(sb, "\\n\" + \"");
            piece = 0;
        }
        ces_sb_puts(sb, chunk);
        piece += strlen(chunk);
    }
}

static const char *kind_fill(uint32_t kind)
{
    switch (kind) {
    case CES_OP_COPY:
        return "#d9f2d9";
    case CES_OP_WRITE:
        return "#d6e6ff";
    case CES_OP_WAIT:
        return "#fff2b3";
    case CES_OP_PRODUCE:
    case CES_OP_CONSUME:
        return "#ececec";
    default:
        return "#ffffff";
    }
}

/* --- nodes ------------------------------------------------------------- */

/* The node's place: rR.sS#K of its op, and of a graph phase's op, drawn
 * once for every replay, its #K in each: `stride` ops further per replay
 * (the lane's ops in the phase), the first two and the last when there
 * are more than three replays. */
static void node_where(char *buf, size_t size, uint32_t rank, uint32_t stream, uint64_t first,
                       uint32_t reps, uint64_t stride)
{
    size_t n = (size_t)ces_op_where(buf, size, rank, stream, first, NULL);

    if (reps == 2 || reps == 3) {
        for (uint32_t j = 1; j < reps && n < size; j++)
            n += (size_t)snprintf(buf + n, size - n, ",#%" PRIu64, first + j * stride);
    } else if (reps > 3 && n < size) {
        snprintf(buf + n, size - n, ",#%" PRIu64 ",...,#%" PRIu64, first + stride,
                 first + (uint64_t)(reps - 1) * stride);
    }
}

/* A label's line of the step numbers of mi ("step 4", "steps 2,9"),
 * after `what`; none without steps. */
static void put_steps(struct ces_sb *sb, const struct dot_mark_info *mi, const char *what)
{
    if (mi == NULL || mi->nsteps == 0)
        return;
    ces_sb_printf(sb, "\\n%s%s ", what, mi->nsteps == 1 ? "step" : "steps");
    for (uint32_t k = 0; k < mi->nsteps && k < 4; k++)
        ces_sb_printf(sb, "%s%" PRIu32, k > 0 ? "," : "", mi->steps[k]);
    if (mi->nsteps > 4)
        ces_sb_puts(sb, ",...");
}

/* "#K,#L" of the n replays (the first few in reps) where a node's op is
 * blocked or stopped: its op at #`first` in the first replay, `stride` ops
 * further per replay. */
static void put_reps(struct ces_sb *sb, uint32_t n, const uint32_t *reps, uint64_t first,
                     uint64_t stride)
{
    for (uint32_t k = 0; k < n && k < 4; k++)
        ces_sb_printf(sb, "%s#%" PRIu64, k > 0 ? "," : "", first + (uint64_t)reps[k] * stride);
    if (n > 4)
        ces_sb_puts(sb, ",...");
}

static void emit_node(struct dot_state *st, struct dot_ref ref, uint64_t unrolled,
                      uint64_t stride)
{
    const struct ces_op *op = op_at(st->g, ref);
    struct ces_block_info bi = ces_graph_block(st->g, ref.block);
    char id[64], where[128];
    const char *fill = kind_fill(op->kind), *color = "#555555";
    const char *penwidth = "1";
    struct dot_mark_info *mi = NULL;
    struct ces_sb text;

    if (st->marks != NULL)
        mi = &st->marks[st->node_base[ref.block * st->g->ranks + ref.rank] + ref.index];
    node_id(id, sizeof(id), ref);
    ces_sb_init(&text, st->ctx);
    ces_sb_op(&text, st->g, ref.rank, op);
    if (text.status != CES_OK && st->sb.status == CES_OK)
        st->sb.status = text.status; /* the op's text could not be built */
    node_where(where, sizeof(where), ref.rank, op->stream, unrolled, bi.reps, stride);
    ces_sb_printf(&st->sb, "%s [label=\"", id);
    st->size.nodes++;
    put_escaped(&st->sb, where);
    ces_sb_puts(&st->sb, "\\n");
    put_escaped(&st->sb, text.buf != NULL && text.status == CES_OK ? text.buf : "");
    ces_sb_free(&text);
    /* the node stands for every replay: which ones are blocked, and
     * before which the stream was stopped */
    if (mi != NULL && mi->nblocked > 0 && bi.reps > 1) {
        ces_sb_puts(&st->sb, "\\nblocked at ");
        put_reps(&st->sb, mi->nblocked, mi->blocked_reps, unrolled, stride);
    }
    if (mi != NULL && mi->nstopped > 0 && bi.reps > 1) {
        ces_sb_puts(&st->sb, "\\nstopped before ");
        put_reps(&st->sb, mi->nstopped, mi->stopped_reps, unrolled, stride);
    }
    put_steps(&st->sb, mi, "");
    ces_sb_puts(&st->sb, "\"");
    if (mi != NULL && (mi->style_bits & DOT_BLOCKED_STOPPED) == DOT_BLOCKED_STOPPED) {
        /* blocked (or released by the watchdog) in one replay and stopped
         * before another: neither mark hides the other, red and teal halves */
        fill = "#ff9a9a;0.5:#8fd6cf";
        color = "#00736b";
        penwidth = "2.5";
    } else if (mi != NULL && (mi->style_bits & (1u << CES_DOT_BLOCKED))) {
        fill = "#ff9a9a";
        color = "#cc0000";
        penwidth = "2.5";
    } else if (mi != NULL && (mi->style_bits & (1u << CES_DOT_STOPPED))) {
        fill = "#8fd6cf";
        color = "#00736b";
        penwidth = "2.5";
    } else if (mi != NULL && (mi->style_bits & (1u << CES_DOT_RACE))) {
        fill = "#ffc680";
        color = "#e67300";
        penwidth = "2.5";
    } else if (mi != NULL && (mi->style_bits & (1u << CES_DOT_MISMATCH))) {
        fill = "#f0a8f0";
        color = "#a0229f";
        penwidth = "2.5";
    } else if (mi != NULL && mi->nsteps > 0) {
        penwidth = "2";
        color = "#000000";
    }
    ces_sb_printf(&st->sb, ", fillcolor=\"%s\", color=\"%s\", penwidth=%s];\n", fill, color,
                  penwidth);
}

/* Unrolled index (#K) of the first op of each stream of rank r in every
 * block: ops of earlier blocks count once per replay.  base[b * streams +
 * s], block after block (one pass: a long eager phase has a block per
 * iteration). */
static void unrolled_bases(const struct ces_graph *g, uint32_t r, uint64_t *base)
{
    uint32_t nb = ces_graph_nblocks(g);

    for (uint32_t s = 0; s < g->streams; s++)
        base[s] = 0;
    for (uint32_t b = 1; b < nb; b++) {
        uint64_t *prev = &base[(size_t)(b - 1) * g->streams], *cur = prev + g->streams;
        uint32_t n = 0;
        const struct ces_op *ops = ces_graph_ops(g, b - 1, r, &n);
        uint32_t reps = ces_graph_block(g, b - 1).reps;

        memcpy(cur, prev, g->streams * sizeof(*cur));
        for (uint32_t k = 0; k < n; k++)
            cur[ops[k].stream] += reps;
    }
}

static void block_label(struct dot_state *st, uint32_t b)
{
    struct ces_block_info bi = ces_graph_block(st->g, b);

    if (bi.kind == CES_PHASE_GRAPH && bi.reps == 1)
        ces_sb_printf(&st->sb,
                      "label=\"graph, replayed x1 (iteration %" PRIu64 ")\"; "
                      "style=\"rounded,filled\"; fillcolor=\"#f4f0fa\"; color=\"#8a6bbf\";\n",
                      bi.first_iter);
    else if (bi.kind == CES_PHASE_GRAPH)
        ces_sb_printf(&st->sb,
                      "label=\"graph, replayed x%" PRIu32 " (iterations %" PRIu64 "..%" PRIu64
                      ")\"; style=\"rounded,filled\"; fillcolor=\"#f4f0fa\"; color=\"#8a6bbf\";\n",
                      bi.reps, bi.first_iter, bi.first_iter + bi.reps - 1);
    else
        ces_sb_printf(&st->sb,
                      "label=\"iteration %" PRIu64 "\"; style=rounded; color=\"#bbbbbb\";\n",
                      bi.first_iter);
}

/* The overlay's marks of op k of rank r in block b, NULL without an
 * overlay. */
static const struct dot_mark_info *mark_info(const struct dot_state *st, uint32_t b, uint32_t r,
                                             uint32_t k)
{
    return st->marks == NULL ? NULL : &st->marks[st->node_base[(size_t)b * st->g->ranks + r] + k];
}

/* Whether the overlay marks op k of rank r in block b as where its stream
 * is blocked or stopped by a fault. */
static bool blocked_at(const struct dot_state *st, uint32_t b, uint32_t r, uint32_t k)
{
    const struct dot_mark_info *mi = mark_info(st, b, r, k);

    return mi != NULL && (mi->style_bits & DOT_BLOCKED_STOPPED) != 0;
}

/* Where the stream of the batch that op k (a `batch`) of rank r starts in
 * block b is blocked or stopped at it: "before its copies" at the `batch`,
 * "at its end" at its `end` (behind a queue head, or at a link, or stopped
 * there by a fault), else NULL; *at the marked op (k or the `end`'s index).
 * *empty: the batch holds no copies. */
static const char *batch_blocked(const struct dot_state *st, uint32_t b, uint32_t r, uint32_t k,
                                 bool *empty, uint32_t *at)
{
    uint32_t n = 0, e = k + 1;
    const struct ces_op *ops = ces_graph_ops(st->g, b, r, &n);

    while (e < n && (ops[e].stream != ops[k].stream || ops[e].kind != CES_OP_END))
        e++;
    *empty = true;
    for (uint32_t j = k + 1; j < e && *empty; j++)
        *empty = ops[j].stream != ops[k].stream;
    *at = k;
    if (blocked_at(st, b, r, k))
        return "before its copies";
    *at = e;
    return e < n && blocked_at(st, b, r, e) ? "at its end" : NULL;
}

/* The node of a blocked batch without copies that op k of rank r starts
 * in block b. */
static void empty_id(char *id, size_t size, uint32_t b, uint32_t r, uint32_t k)
{
    snprintf(id, size, "empty_b%" PRIu32 "_r%" PRIu32 "_k%" PRIu32, b, r, k);
}

/* The steps of batch k and of its `end` (k itself where it has none),
 * neither of which has a node, as lines of its box's title. */
static void put_batch_steps(struct dot_state *st, uint32_t b, uint32_t r, uint32_t k,
                            uint32_t end)
{
    put_steps(&st->sb, mark_info(st, b, r, k), "");
    if (end != k)
        put_steps(&st->sb, mark_info(st, b, r, end), "end: ");
}

/* Opens the box of the batch that op k (a `batch`, at #`unrolled` of its
 * stream in the first replay, `stride` ops further per replay) of rank r
 * starts in block b.  A stream blocked at the `batch` or at its `end` has
 * no node to paint: the box is drawn red and says which (in a block of
 * more than one replay, where), teal and "stopped" for a stream a fault
 * stopped there, in red and teal halves saying both for both, and a box
 * without copies gets a node of its own, so that Graphviz draws it. */
static void open_batch(struct dot_state *st, uint32_t b, uint32_t r, uint32_t k,
                       uint64_t unrolled, uint64_t stride)
{
    bool empty;
    uint32_t at, n = 0, end;
    const char *blocked = batch_blocked(st, b, r, k, &empty, &at);
    const struct ces_op *ops = ces_graph_ops(st->g, b, r, &n);

    /* its `end` (n: none), whose steps the box's title says too */
    for (end = k + 1; end < n && (ops[end].stream != ops[k].stream || ops[end].kind != CES_OP_END);
         end++)
        ;
    ces_sb_printf(&st->sb, "subgraph cluster_batch_%" PRIu32 "_%" PRIu32 "_%" PRIu32 " {\n", b, r,
                  k);
    if (blocked != NULL) {
        const struct dot_mark_info *mi = mark_info(st, b, r, at);
        bool blk = (mi->style_bits & (1u << CES_DOT_BLOCKED)) != 0;
        bool stp = (mi->style_bits & (1u << CES_DOT_STOPPED)) != 0;
        uint64_t pos = unrolled;

        for (uint32_t j = k + 1; j <= at; j++) /* the `end`: past the batch's ops */
            pos += ops[j].stream == ops[k].stream;
        ces_sb_puts(&st->sb, "label=\"batch");
        if (blk) {
            ces_sb_printf(&st->sb, "\\nblocked %s", blocked);
            if (ces_graph_block(st->g, b).reps > 1) {
                ces_sb_puts(&st->sb, " (");
                put_reps(&st->sb, mi->nblocked, mi->blocked_reps, pos, stride);
                ces_sb_puts(&st->sb, ")");
            }
        }
        if (stp) {
            ces_sb_printf(&st->sb, "\\nstopped %s", blocked);
            if (ces_graph_block(st->g, b).reps > 1) {
                ces_sb_puts(&st->sb, " (");
                put_reps(&st->sb, mi->nstopped, mi->stopped_reps, pos, stride);
                ces_sb_puts(&st->sb, ")");
            }
        }
        put_batch_steps(st, b, r, k, end < n ? end : k);
        ces_sb_printf(&st->sb, "\"; style=\"rounded,filled\"; fillcolor=\"%s\"; color=\"%s\"; "
                      "penwidth=2.5;\n",
                      blk && stp ? "#ffe0e0;0.5:#dff3f1" : blk ? "#ffe0e0" : "#dff3f1",
                      blk ? (stp ? "#00736b" : "#cc0000") : "#00736b");
    } else {
        ces_sb_puts(&st->sb, "label=\"batch");
        put_batch_steps(st, b, r, k, end < n ? end : k);
        ces_sb_puts(&st->sb, "\"; style=\"rounded,filled\"; fillcolor=\"#f3fbf3\"; "
                             "color=\"#4a9a4a\";\n");
    }
    if (blocked != NULL && empty) {
        char id[64];

        empty_id(id, sizeof(id), b, r, k);
        ces_sb_printf(&st->sb, "%s [shape=plaintext, style=\"\", label=\"no copies\"];\n", id);
        st->size.nodes++;
    }
}

/* The nodes of one lane (rank r, stream s) in block b, batches boxed. */
static void emit_lane_block(struct dot_state *st, uint32_t b, uint32_t r, uint32_t s,
                            const uint64_t *base)
{
    uint32_t n = 0, k_in_stream = 0, stride = 0;
    const struct ces_op *ops = ces_graph_ops(st->g, b, r, &n);
    bool in_batch = false;

    for (uint32_t k = 0; k < n; k++)
        stride += ops[k].stream == s;

    ces_sb_printf(&st->sb, "subgraph cluster_b%" PRIu32 "_r%" PRIu32 "_s%" PRIu32 " {\n", b, r, s);
    block_label(st, b);
    for (uint32_t k = 0; k < n; k++) {
        struct dot_ref ref = {b, r, k};

        if (ops[k].stream != s)
            continue;
        if (ops[k].kind == CES_OP_BATCH) {
            open_batch(st, b, r, k, base[s] + k_in_stream, stride);
            in_batch = true;
        } else if (ops[k].kind == CES_OP_END) {
            if (in_batch)
                ces_sb_puts(&st->sb, "}\n");
            in_batch = false;
        } else {
            emit_node(st, ref, base[s] + k_in_stream, stride);
        }
        k_in_stream++;
    }
    if (in_batch)
        ces_sb_puts(&st->sb, "}\n");
    ces_sb_puts(&st->sb, "}\n");
}

/* Whether the lane (rank r, stream s) of block b has a node: an op other
 * than `batch` and `end`, or a blocked batch without copies; the first
 * one's id into id (when not NULL). */
static bool lane_node(const struct dot_state *st, uint32_t b, uint32_t r, uint32_t s, char *id,
                      size_t size)
{
    uint32_t n = 0;
    const struct ces_op *ops = ces_graph_ops(st->g, b, r, &n);
    bool empty;
    uint32_t at;

    for (uint32_t k = 0; k < n; k++) {
        struct dot_ref ref = {b, r, k};

        if (ops[k].stream != s || ops[k].kind == CES_OP_END)
            continue;
        if (ops[k].kind != CES_OP_BATCH) {
            if (id != NULL)
                node_id(id, size, ref);
            return true;
        }
        if (batch_blocked(st, b, r, k, &empty, &at) != NULL && empty) {
            if (id != NULL)
                empty_id(id, size, b, r, k);
            return true;
        }
    }
    return false;
}

/* Whether rank r has a node in some lane. */
static bool rank_drawn(const struct dot_state *st, uint32_t r)
{
    for (uint32_t b = 0; b < ces_graph_nblocks(st->g); b++) {
        for (uint32_t s = 0; s < st->g->streams; s++) {
            if (lane_node(st, b, r, s, NULL, 0))
                return true;
        }
    }
    return false;
}

static int emit_clusters(struct dot_state *st)
{
    const struct ces_graph *g = st->g;
    uint32_t nb = ces_graph_nblocks(g);
    /* unrolled_bases fills block 0's row even of a graph without blocks */
    uint64_t *base = ces_malloc(st->ctx, (size_t)(nb > 0 ? nb : 1) * g->streams *
                                             sizeof(uint64_t));

    if (base == NULL)
        return CES_ERR_NOMEM;
    /* (a deadline passed: nothing more is written) */
    for (uint32_t r = 0; r < g->ranks && st->sb.status == CES_OK; r++) {
        unrolled_bases(g, r, base);
        ces_sb_printf(&st->sb,
                      "subgraph cluster_r%" PRIu32 " {\nlabel=\"rank %" PRIu32 "\"; "
                      "style=rounded; color=\"#333333\"; penwidth=1.5; fontsize=14;\n"
                      "rank_root%" PRIu32 " [style=invis, ordering=out, label=\"\", width=0, "
                      "height=0];\n",
                      r, r, r);
        if (!rank_drawn(st, r)) { /* "no ops", or batches without copies alone */
            uint32_t n = 0;

            for (uint32_t b = 0; b < nb && n == 0; b++)
                ces_graph_ops(g, b, r, &n);
            ces_sb_printf(&st->sb, "rank_empty%" PRIu32 " [label=\"%s\", shape=plaintext, "
                          "style=\"\", fontcolor=\"#777777\"];\n", r, n == 0 ? "no ops" : "");
        }
        for (uint32_t s = 0; s < g->streams; s++) {
            bool any = false;

            for (uint32_t b = 0; b < nb && !any; b++)
                any = lane_node(st, b, r, s, NULL, 0);
            if (!any)
                continue;
            ces_sb_printf(&st->sb,
                          "subgraph cluster_r%" PRIu32 "_s%" PRIu32 " {\nlabel=\"stream %" PRIu32
                          "\"; style=dashed; color=\"#999999\";\n",
                          r, s, s);
            for (uint32_t b = 0; b < nb && st->sb.status == CES_OK; b++) {
                if (lane_node(st, b, r, s, NULL, 0))
                    emit_lane_block(st, b, r, s, &base[(size_t)b * g->streams]);
            }
            ces_sb_puts(&st->sb, "}\n");
        }
        ces_sb_puts(&st->sb, "}\n");
    }
    ces_free(st->ctx, base);
    return CES_OK;
}

/* Fills st->level: each lane's nodes, block after block, one rank of the
 * layout each (a batch's copies stacked), a `batch` or `end` at its next
 * node's. */
static int lane_levels(struct dot_state *st)
{
    const struct ces_graph *g = st->g;
    uint32_t nb = ces_graph_nblocks(g);
    uint32_t *next = ces_malloc(st->ctx, (g->streams > 0 ? g->streams : 1) * sizeof(*next));

    st->level = ces_malloc(st->ctx, (st->node_base[(size_t)nb * g->ranks] + 1) *
                                        sizeof(*st->level));
    if (next == NULL || st->level == NULL) {
        ces_free(st->ctx, next);
        return CES_ERR_NOMEM;
    }
    for (uint32_t r = 0; r < g->ranks; r++) {
        memset(next, 0, g->streams * sizeof(*next));
        for (uint32_t b = 0; b < nb; b++) {
            uint32_t n = 0;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);
            uint32_t *lv = &st->level[st->node_base[(size_t)b * g->ranks + r]];

            for (uint32_t k = 0; k < n; k++) {
                bool empty;
                uint32_t at;

                lv[k] = next[ops[k].stream];
                if (ops[k].kind == CES_OP_END ||
                    (ops[k].kind == CES_OP_BATCH &&
                     (batch_blocked(st, b, r, k, &empty, &at) == NULL || !empty)))
                    continue;
                next[ops[k].stream]++;
            }
        }
    }
    ces_free(st->ctx, next);
    return CES_OK;
}

/* --- program-order edges ------------------------------------------------ */

/* Program order of each lane across its blocks.  A batch is entered through
 * its first copy and left from its last one (lhead/ltail on the box); the
 * copies inside are stacked by invisible edges: they have no order.  A
 * blocked batch without copies is entered and left through its node. */
static void emit_order_edges(struct dot_state *st)
{
    const struct ces_graph *g = st->g;
    uint32_t nb = ces_graph_nblocks(g);

    for (uint32_t r = 0; r < g->ranks; r++) {
        for (uint32_t s = 0; s < g->streams; s++) {
            char prev[64] = "", prev_box[96] = "", id[64];
            char box[96] = "", first[64] = "", last[64] = "";

            for (uint32_t b = 0; b < nb; b++) {
                uint32_t n = 0;
                const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

                for (uint32_t k = 0; k < n; k++) {
                    struct dot_ref ref = {b, r, k};

                    if (ops[k].stream != s)
                        continue;
                    if (ops[k].kind == CES_OP_BATCH) {
                        bool empty;
                        uint32_t at;

                        snprintf(box, sizeof(box), "cluster_batch_%" PRIu32 "_%" PRIu32
                                 "_%" PRIu32, b, r, k);
                        first[0] = last[0] = '\0';
                        if (batch_blocked(st, b, r, k, &empty, &at) == NULL || !empty)
                            continue;
                        /* its node stands in the copies' place */
                        empty_id(id, sizeof(id), b, r, k);
                    } else if (ops[k].kind == CES_OP_END) {
                        if (first[0] != '\0') {
                            snprintf(prev, sizeof(prev), "%s", last);
                            snprintf(prev_box, sizeof(prev_box), "%s", box);
                        }
                        box[0] = '\0';
                        continue;
                    } else {
                        node_id(id, sizeof(id), ref);
                    }
                    if (box[0] != '\0' && first[0] != '\0') {
                        ces_sb_printf(&st->sb, "%s -> %s [style=invis];\n", last, id);
                        snprintf(last, sizeof(last), "%s", id);
                        continue;
                    }
                    if (prev[0] != '\0') {
                        ces_sb_printf(&st->sb, "%s -> %s [color=\"#888888\"", prev, id);
                        if (prev_box[0] != '\0')
                            ces_sb_printf(&st->sb, ", ltail=%s", prev_box);
                        if (box[0] != '\0')
                            ces_sb_printf(&st->sb, ", lhead=%s", box);
                        ces_sb_puts(&st->sb, "];\n");
                    }
                    prev_box[0] = '\0';
                    if (box[0] != '\0') {
                        snprintf(first, sizeof(first), "%s", id);
                        snprintf(last, sizeof(last), "%s", id);
                    } else {
                        snprintf(prev, sizeof(prev), "%s", id);
                    }
                }
            }
        }
    }
}

/* Ranks left to right in order, and the streams of a rank likewise, all
 * lanes starting on one level: an invisible root above everything whose
 * out-edges (legend, then one invisible root per rank) keep their order
 * (ordering=out), each rank root doing the same for the first node of each
 * of its lanes.  dot would otherwise order clusters to suit the cross
 * edges. */
static void emit_rank_order(struct dot_state *st)
{
    const struct ces_graph *g = st->g;
    uint32_t nb = ces_graph_nblocks(g);
    char id[64];
    struct ces_sb same;

    ces_sb_init(&same, st->ctx);
    ces_sb_puts(&same, "{ rank=same;");
    ces_sb_puts(&st->sb, "order_root [style=invis, ordering=out, label=\"\", width=0, "
                         "height=0];\norder_root -> legend [style=invis];\n");
    for (uint32_t r = 0; r < g->ranks; r++) {
        ces_sb_printf(&st->sb, "order_root -> rank_root%" PRIu32 " [style=invis];\n", r);
        if (!rank_drawn(st, r)) { /* its box in rank order, level with the others' */
            ces_sb_printf(&st->sb, "rank_root%" PRIu32 " -> rank_empty%" PRIu32
                          " [style=invis];\n", r, r);
            ces_sb_printf(&same, " rank_empty%" PRIu32 ";", r);
        }
        for (uint32_t s = 0; s < g->streams; s++) {
            bool found = false;

            for (uint32_t b = 0; b < nb && !found; b++) {
                found = lane_node(st, b, r, s, id, sizeof(id));
                if (!found)
                    continue;
                ces_sb_printf(&st->sb, "rank_root%" PRIu32 " -> %s [style=invis];\n", r, id);
                ces_sb_printf(&same, " %s;", id);
            }
        }
    }
    ces_sb_puts(&same, " legend; }\n");
    if (same.status != CES_OK)
        st->sb.status = same.status;
    else
        ces_sb_puts(&st->sb, same.buf);
    ces_sb_free(&same);
}

/* --- write -> wait edges -------------------------------------------------- */

/* Slots (sig, rank, idx) in order: the waits' and the writes' keys. */
static int slot_order(uint32_t as, uint32_t ar, uint32_t ai, uint32_t bs, uint32_t br,
                      uint32_t bi)
{
    if (as != bs)
        return as < bs ? -1 : 1;
    if (ar != br)
        return ar < br ? -1 : 1;
    return ai < bi ? -1 : ai > bi;
}

/* Waits by slot. */
static int cmp_slot(const void *x, const void *y)
{
    const struct dot_wait *a = x, *b = y;

    return slot_order(a->sig, a->rank, a->idx, b->sig, b->rank, b->idx);
}

/* Waits by slot, then by position: a slot's waits block after block. */
static int cmp_wait(const void *x, const void *y)
{
    const struct dot_wait *a = x, *b = y;
    int c = cmp_slot(x, y);

    if (c != 0)
        return c;
    if (a->ref.block != b->ref.block)
        return a->ref.block < b->ref.block ? -1 : 1;
    if (a->ref.rank != b->ref.rank)
        return a->ref.rank < b->ref.rank ? -1 : 1;
    return a->ref.index < b->ref.index ? -1 : a->ref.index > b->ref.index;
}

static int cmp_block(const void *x, const void *y)
{
    const struct dot_wait *a = x, *b = y;

    return a->ref.block < b->ref.block ? -1 : a->ref.block > b->ref.block;
}

/* Conditions by compare and value. */
static int cmp_wval(const void *x, const void *y)
{
    const struct dot_wval *a = x, *b = y;

    if (a->cmp != b->cmp)
        return a->cmp < b->cmp ? -1 : 1;
    return a->value < b->value ? -1 : a->value > b->value;
}

/* Conditions by compare and value, then place. */
static int cmp_wval_at(const void *x, const void *y)
{
    const struct dot_wval *a = x, *b = y;
    int c = cmp_wval(x, y);

    return c != 0 ? c : a->at < b->at ? -1 : a->at > b->at;
}

static int cmp_size(const void *x, const void *y)
{
    const size_t *a = x, *b = y;

    return *a < *b ? -1 : *a > *b;
}

/* The first of the n sorted items (size bytes each) that cmp does not put
 * before key - or (upper) after it. */
static size_t bound(const void *items, size_t n, size_t size, const void *key,
                    int (*cmp)(const void *, const void *), bool upper)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp((const char *)items + mid * size, key);

        if (c < 0 || (upper && c == 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* First wait with slot >= (sig, rank, idx), or (upper) > it. */
static size_t key_bound(const struct dot_wait *w, size_t n, uint32_t sig, uint32_t rank,
                        uint32_t idx, bool upper)
{
    struct dot_wait key = {sig, rank, idx, {0, 0, 0}};

    return bound(w, n, sizeof(*w), &key, cmp_slot, upper);
}

/* First wait of w[0:n) (one slot's, by block) in block b, or (upper) after it. */
static size_t block_bound(const struct dot_wait *w, size_t n, uint32_t b, bool upper)
{
    struct dot_wait key = {0, 0, 0, {b, 0, 0}};

    return bound(w, n, sizeof(*w), &key, cmp_block, upper);
}

/* First condition of v[0:n) at or above (cmp, value), or (upper) above it. */
static size_t wval_bound(const struct dot_wval *v, size_t n, uint32_t cmp, uint64_t value,
                         bool upper)
{
    struct dot_wval key = {cmp, value, 0};

    return bound(v, n, sizeof(*v), &key, cmp_wval, upper);
}

/* Puts into r[0..2k) the k (up to 3) ranges of the conditions v[0:n) (one
 * slot's, or one block's of it, sorted) that a write of `value` satisfies,
 * as ces_wait_holds judges: == the value; >= it, cyclic within 2^31 below
 * it for u32; k. */
static uint32_t holds_ranges(const struct dot_wval *v, size_t n, uint32_t width, uint64_t value,
                             size_t *r)
{
    size_t g0 = wval_bound(v, n, CES_CMP_GEQ, 0, false);

    r[0] = wval_bound(v, n, CES_CMP_EQ, value, false);
    r[1] = wval_bound(v, n, CES_CMP_EQ, value, true);
    if (width != CES_U32) {
        r[2] = g0;
        r[3] = wval_bound(v, n, CES_CMP_GEQ, value, true);
        return 2;
    }
    {
        uint32_t hi = (uint32_t)value, lo = hi - (UINT32_C(1) << 31) + 1;
        size_t upto_hi = wval_bound(v, n, CES_CMP_GEQ, hi, true);
        size_t from_lo = wval_bound(v, n, CES_CMP_GEQ, lo, false);

        if (lo <= hi) {
            r[2] = from_lo;
            r[3] = upto_hi;
            return 2;
        }
        r[2] = from_lo; /* the window wraps: [lo, 2^32) and [0, hi] */
        r[3] = wval_bound(v, n, CES_CMP_GEQ, UINT64_MAX, true);
        r[4] = g0;
        r[5] = upto_hi;
        return 3;
    }
}

/* How many of the conditions v[0:n) (one slot's, or one block's of it,
 * sorted) a write of `value` satisfies: those of holds_ranges. */
static size_t holds_count(const struct dot_wval *v, size_t n, uint32_t width, uint64_t value)
{
    size_t r[6], c = 0;
    uint32_t k = holds_ranges(v, n, width, value, r);

    for (uint32_t j = 0; j < k; j++)
        c += r[2 * j + 1] - r[2 * j];
    return c;
}

/* Every wait, sorted by slot, into st->waits, and each slot's conditions,
 * sorted, into st->wvals, and those of each of its blocks into st->bvals. */
static int collect_waits(struct dot_state *st)
{
    const struct ces_graph *g = st->g;
    uint32_t nb = ces_graph_nblocks(g);
    int rc = CES_OK;

    for (uint32_t b = 0; b < nb && rc == CES_OK; b++) {
        for (uint32_t r = 0; r < g->ranks && rc == CES_OK; r++) {
            uint32_t n = 0;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

            for (uint32_t k = 0; k < n && rc == CES_OK; k++) {
                struct dot_wait w;

                if (ops[k].kind != CES_OP_WAIT)
                    continue;
                w.sig = ops[k].slot.sig;
                w.rank = ops[k].slot.rank;
                w.idx = ops[k].slot.idx;
                w.ref.block = b;
                w.ref.rank = r;
                w.ref.index = k;
                rc = ces_vec_push(st->ctx, &st->waits, sizeof(w), &w);
            }
        }
    }
    if (rc == CES_OK && st->waits.len > 1)
        qsort(st->waits.data, st->waits.len, sizeof(struct dot_wait), cmp_wait);
    /* each slot's conditions, sorted, to count the writes' pairs at once */
    for (size_t i = 0; i < st->waits.len && rc == CES_OK; i++) {
        const struct dot_wait *w = &CES_VEC_AT(&st->waits, struct dot_wait, i);
        const struct ces_op *op = op_at(g, w->ref);
        struct dot_wval v = {op->cmp, op->value, i};

        if (v.cmp == CES_CMP_GEQ && ces_graph_signal(g, w->sig).width == CES_U32)
            v.value = (uint32_t)v.value;
        rc = ces_vec_push(st->ctx, &st->wvals, sizeof(v), &v);
        if (rc == CES_OK)
            rc = ces_vec_push(st->ctx, &st->bvals, sizeof(v), &v);
    }
    for (size_t i = 0, j; i < st->waits.len && rc == CES_OK; i = j) {
        const struct dot_wait *w = st->waits.data;

        j = key_bound(w, st->waits.len, w[i].sig, w[i].rank, w[i].idx, true);
        qsort(&CES_VEC_AT(&st->wvals, struct dot_wval, i), j - i, sizeof(struct dot_wval),
              cmp_wval_at);
        /* the slot's waits by block: each block's conditions */
        for (size_t k = i, m; k < j; k = m) {
            m = k + block_bound(w + k, j - k, w[k].ref.block, true);
            qsort(&CES_VEC_AT(&st->bvals, struct dot_wval, k), m - k, sizeof(struct dot_wval),
                  cmp_wval_at);
        }
    }
    if (rc == CES_OK) {
        st->hits = ces_malloc(st->ctx, (st->waits.len > 0 ? st->waits.len : 1) *
                                           sizeof(*st->hits));
        rc = st->hits != NULL ? CES_OK : CES_ERR_NOMEM;
    }
    return rc;
}

/* --- the order of writes and waits every execution has -------------------- */

/* Which write a wait sees is not known by its value or its place alone: a
 * flag's second write may come only after its second wait (the first
 * write is what both see), and a counter's write of the nearest value may
 * be overwritten before the wait can pass.  A vector clock per write and
 * wait (per replay of the first two of its block; a rank's streams are
 * the processes, or its hardware queues where streams share them: the
 * graph's, or those of the check drawn, ces_dot_checked) says
 * how many of each process's writes, waits, records and awaits come
 * before it in every execution: its process's before it, for an await
 * its record, and for a wait what every write it may see comes after -
 * the writes into its slot whose value it passes on, but those before a
 * later write into the slot that comes before the wait, and those that
 * come after the wait (the slot's initial 0: where no write comes before
 * it), and a process's first event of a (block, replay) after its rank's
 * earlier ones (docs/SEMANTICS.md section 1; a delayed write's stream,
 * on a queue of its own, takes no part).  Each clock is one every
 * execution has, so a write it rules out for a wait is one the wait never
 * sees.  Where executions end blocked, a clock holds only for those that
 * reach its event, so three more things rule writes out: an event no
 * execution runs (dead: after a wait that nothing it may see lets pass,
 * in its process, link or record, or of a rank's block after one whose
 * last replay has too few writes for a wait that needs a fresh one each
 * replay: replays_left, where the writes that come before its first
 * replay serve one replay at most, chain_left, chain_pair), neither as a
 * write nor as a wait; a write before a wait of its slot whose condition
 * it fails (that wait passes only on a later write, or never: slot_overwritten;
 * or one a wait's replays use up, paired_before); where a
 * wait passes on another write than an earlier wait of its slot, a write
 * between them that it never sees, it comes after two writes
 * (order_twice); and a write that an earlier wait of its process may pass
 * on is none it took where every write the wait may pass on comes before
 * that write (order_taken: a wait that r1's 1 alone passes, after one that
 * r1's 2 or r2's 2 does, comes after r2's 2).  A chain of three such waits
 * (the third after three writes) the clocks do not tell, nor what a stop,
 * a drop or the watchdog model lets an execution skip. */

/* Above this many clock entries (events times processes) the order is not
 * worked out, and every pair within a block is drawn: 64 MiB of them. */
#define DOT_ORDER_MAX_CLOCKS (UINT32_C(1) << 24)

/* At most this many passes over every event once all are computed. */
#define DOT_ORDER_PASSES 64

/* Past this much work (o->work: about 2 s) the order is given up, and
 * every pair within a block is drawn: a wait compares the clocks of the
 * first writes it may see of each process writing its slot, so a slot
 * that 1,000 ranks write and 8,000 waits await took 37 s (drawing its 8
 * million pairs 3 s, a picture Graphviz cannot lay out anyway; 5.5 s
 * now); the credit sendrecv of 64 ranks and 256 chunks takes 1/45 of it,
 * smaller built-ins less. */
#define DOT_ORDER_MAX_WORK (UINT64_C(1) << 31)

/* The work between two readings of the clock where a deadline bounds the
 * picture: about a millisecond of it (2^31, DOT_ORDER_MAX_WORK, took 0.85 s
 * on a loaded machine of two shared cores). */
#define DOT_ORDER_CLOCK_WORK (UINT64_C(1) << 20)

/* At most this many of o->past's facts are kept of each process: one a
 * wait event that comes after every replay of its first events. */
#define DOT_PAST_FACTS 4

/* Writes by slot alone. */
static int cmp_ow_slot(const void *x, const void *y)
{
    const struct dot_ow *a = x, *b = y;

    return slot_order(a->sig, a->rank, a->idx, b->sig, b->rank, b->idx);
}

/* The key of op's slot, to find its writes and waits (cmp_ow_slot). */
static struct dot_ow slot_key(const struct ces_op *op)
{
    struct dot_ow k = {op->slot.sig, op->slot.rank, op->slot.idx, 0, 0, 0, 0, 0, false};

    return k;
}

/* Whether op's slot is `slot`. */
static bool in_slot(const struct ces_op *op, const struct dot_ow *slot)
{
    return op->slot.sig == slot->sig && op->slot.rank == slot->rank && op->slot.idx == slot->idx;
}

/* Writes by slot, process, place. */
static int cmp_ow(const void *x, const void *y)
{
    const struct dot_ow *a = x, *b = y;
    int c = cmp_ow_slot(x, y);

    if (c != 0)
        return c;
    if (a->proc != b->proc)
        return a->proc < b->proc ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int cmp_ref(const struct dot_ref *a, const struct dot_ref *b)
{
    if (a->block != b->block)
        return a->block < b->block ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Pairs by write, then wait. */
static int cmp_pair(const void *x, const void *y)
{
    const struct dot_pair *a = x, *b = y;
    int c = cmp_ref(&a->write, &b->write);

    return c != 0 ? c : cmp_ref(&a->wait, &b->wait);
}

/* Pairs by write alone. */
static int cmp_pair_write(const void *x, const void *y)
{
    const struct dot_pair *a = x, *b = y;

    return cmp_ref(&a->write, &b->write);
}

static uint32_t *order_clock(const struct dot_order *o, size_t e)
{
    return &o->clock[e * o->nproc];
}

/* The clock of write w[i]. */
static const uint32_t *ow_clock(const struct dot_order *o, size_t i)
{
    return order_clock(o, o->off[o->w[i].proc] + o->w[i].pos);
}

/* The first of w[lo..hi) (one slot's writes or waits) at or after place
 * `pos` of process q. */
static size_t ow_at(const struct dot_ow *w, size_t lo, size_t hi, uint32_t q, uint32_t pos)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct dot_ow *m = &w[mid];

        if (m->proc < q || (m->proc == q && m->pos < pos))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A walk over a slot's waits x[lo..hi) (by process, then place, of
 * width `width`): of each process q, those of its latest `look` waits
 * before place `pos` where q is p, before at[q] (a clock, or a bound below
 * it) where it is another, that fail the slot's initial 0 (so passed on a
 * write), the latest first.  written_before, landed_before and chain_over
 * read a process's latest waits so. */
struct latest_waits {
    const struct dot_ow *x;
    const uint32_t *at;
    size_t hi, start, end, k;
    uint32_t p, pos, look, m, width;
};

static void latest_begin(struct latest_waits *it, const struct dot_ow *x, size_t lo, size_t hi,
                         uint32_t p, uint32_t pos, const uint32_t *at, uint32_t look,
                         uint32_t width)
{
    it->x = x;
    it->at = at;
    it->hi = hi;
    it->start = it->end = it->k = lo;
    it->p = p;
    it->pos = pos;
    it->look = look;
    it->m = look;
    it->width = width;
}

/* The next wait of the walk (its place in x), SIZE_MAX past the last. */
static size_t latest_next(struct latest_waits *it)
{
    for (;;) {
        const struct dot_ow *u;

        while (it->m >= it->look || it->k <= it->start) {
            uint32_t q;

            if (it->end >= it->hi)
                return SIZE_MAX;
            it->start = it->end;
            q = it->x[it->start].proc;
            it->k = ow_at(it->x, it->start, it->hi, q, q == it->p ? it->pos : it->at[q]);
            it->end = ow_at(it->x, it->k, it->hi, q, UINT32_MAX);
            it->m = 0;
        }
        it->m++;
        u = &it->x[--it->k];
        if (!ces_wait_holds(it->width, u->cmp, 0, u->value))
            return it->k;
    }
}

/* Splits the writes into `slot`'s into one run per process (group[0..*ng)
 * their starts, group[*ng] the end), and finds in each the latest write
 * that happens before an event of clock c (last[], SIZE_MAX for none);
 * true where there is one. */
static bool slot_writes(struct dot_order *o, const struct dot_ow *slot, const uint32_t *c,
                        uint32_t *ng)
{
    size_t lo = bound(o->w, o->nw, sizeof(*o->w), slot, cmp_ow_slot, false);
    size_t hi = bound(o->w, o->nw, sizeof(*o->w), slot, cmp_ow_slot, true);
    bool any = false;

    *ng = 0;
    for (size_t i = lo, end; i < hi; i = end) {
        uint32_t q = o->w[i].proc;
        size_t k;

        end = ow_at(o->w, i, hi, q, UINT32_MAX);
        k = ow_at(o->w, i, end, q, c[q]);
        o->group[*ng] = i;
        o->last[(*ng)++] = k > i ? k - 1 : SIZE_MAX;
        any = any || k > i;
    }
    o->group[*ng] = hi;
    return any;
}

/* The block of process p's event that a clock's entry `at` (1 or more:
 * the events of p it has seen) names last. */
static uint32_t at_block(const struct dot_order *o, uint32_t p, uint32_t at)
{
    return o->ev[o->off[p] + at - 1].ref.block;
}

/* Whether an event of clock c comes after every replay of process p's
 * events of block b: after an event of p of a later block, or, p being
 * one of its rank's linked processes, of another of them (a block's first
 * events come after every replay of the rank's earlier blocks; a rank's
 * processes are numbered one after another). */
static bool past_block(const struct dot_order *o, const uint32_t *c, uint32_t p, uint32_t b)
{
    uint32_t r = o->ev[o->off[p]].ref.rank, q;

    if (c[p] > 0 && at_block(o, p, c[p]) > b)
        return true;
    if (!o->linked[p])
        return false;
    for (q = p; q > 0 && o->ev[o->off[q - 1]].ref.rank == r; q--)
        ;
    for (; q < o->nproc && o->ev[o->off[q]].ref.rank == r; q++) {
        if (o->linked[q] && c[q] > 0 && at_block(o, q, c[q]) > b)
            return true;
    }
    return false;
}

/* The greater of a and b. */
static uint32_t max_u32(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

/* Whether an event of clock c comes after the last replay of o->past's
 * wait event a: after every replay of its block (past_block) for a later
 * replay's, after it for another. */
static bool past_wait(const struct dot_order *o, const uint32_t *c, uint32_t a)
{
    const struct dot_ev *x = &o->ev[a];

    return x->later ? past_block(o, c, x->proc, x->ref.block) : c[x->proc] > x->pos;
}

/* How many of process p's first events an event of clock c comes after
 * every replay of by o->past: the most of those whose every replay one of
 * o->past's waits for p comes before, its last replay for a later
 * replay's (past_add), where c comes after it (past_wait); else 0. */
static uint32_t past_count(const struct dot_order *o, const uint32_t *c, uint32_t p)
{
    const uint32_t *a = &o->past[(size_t)p * DOT_PAST_FACTS];
    const uint32_t *k = &o->past[((size_t)o->nproc + p) * DOT_PAST_FACTS];
    uint32_t most = 0;

    for (uint32_t j = 0; j < DOT_PAST_FACTS && a[j] != UINT32_MAX; j++) {
        if (k[j] > most && past_wait(o, c, a[j]))
            most = k[j];
    }
    return most;
}

/* Whether an event of clock c comes after every replay of process p's
 * event at place pos: after every replay of its block's (past_block), or
 * by o->past (past_count). */
static bool past_event(const struct dot_order *o, const uint32_t *c, uint32_t p, uint32_t pos)
{
    return past_block(o, c, p, o->ev[o->off[p] + pos].ref.block) || pos < past_count(o, c, p);
}

/* Whether write w[i] into `slot` (width `width`) comes before a write of
 * another process that event y, of a later block of its rank, comes
 * after: where the replays of the rank's o->spent wait, of that slot,
 * pass two by two on the writes it counts (o->paired, replays_left),
 * w[i] one of them. */
static bool paired_before(const struct dot_order *o, const struct ces_graph *g,
                          const struct dot_ow *slot, uint32_t width, const struct dot_ev *y,
                          size_t i)
{
    uint32_t r = y->ref.rank;
    const struct dot_ev *x = o->spent[r] != UINT32_MAX ? &o->ev[o->spent[r]] : NULL;
    const struct ces_op *op = x != NULL ? op_at(g, x->ref) : NULL;
    const struct dot_ow *w = &o->w[i];
    size_t at = o->off[w->proc] + w->pos;

    if (x == NULL || !o->paired[r] || !o->linked[y->proc] || y->ref.block <= x->ref.block ||
        !in_slot(op, slot) || !ces_wait_holds(width, op->cmp, w->value, op->value))
        return false;
    return w->pos >= o->done[w->proc] ||
           (!o->dead[at] && !past_event(o, order_clock(o, at), x->proc, x->pos));
}

/* Whether a wait of chain ch passes on a write of value v. */
static bool chain_holds(const struct dot_chain *ch, uint32_t width, uint64_t v)
{
    for (uint32_t k = 0; k < ch->ncond && k < 2; k++) {
        if (ces_wait_holds(width, ch->cmp[k], v, ch->value[k]))
            return true;
    }
    return ch->ncond > 2;
}

/* Whether event y, of a later block of its rank than that rank's
 * o->spent wait and of that wait's slot (width `width`), comes after
 * every replay of write w[i]: one of the writes the wait's replays need
 * where their count is exact (o->exact: replays_left's, of the writes
 * whose value the wait passes on, or chain_left's, of its chain's), as
 * writes_left counts them (a later replay's standing for its every
 * replay), which spent_raise raises y's block's first events to come
 * after. */
static bool spent_before(const struct dot_order *o, const struct ces_graph *g,
                         const struct dot_ow *slot, uint32_t width, const struct dot_ev *y,
                         size_t i)
{
    uint32_t r = y->ref.rank;
    const struct dot_ev *x = o->spent[r] != UINT32_MAX ? &o->ev[o->spent[r]] : NULL;
    const struct ces_op *op = x != NULL ? op_at(g, x->ref) : NULL;
    const struct dot_chain *ch = x != NULL ? &o->chain[o->chain_of[o->spent[r]]] : NULL;
    const struct dot_ow *w = &o->w[i];
    size_t at = o->off[w->proc] + w->pos;

    if (x == NULL || !o->linked[y->proc] || y->ref.block <= x->ref.block || !in_slot(op, slot) ||
        (w->pos < o->done[w->proc] &&
         (o->dead[at] || past_event(o, order_clock(o, at), x->proc, x->pos))))
        return false;
    return ((o->exact[r] & 1) && ces_wait_holds(width, op->cmp, w->value, op->value)) ||
           ((o->exact[r] & 2) && i >= ch->wlo && i < ch->whi && (i < ch->own || i >= ch->end) &&
            chain_holds(ch, width, w->value));
}

/* Whether the last replay of wait x, of a later replay (dot_ow.later),
 * comes after every replay of write l: where one of o->past's waits for
 * l's process is of x's process and replay, at or before x. */
static bool last_past(const struct dot_order *o, const struct dot_ow *x, const struct dot_ow *l)
{
    const uint32_t *a = &o->past[(size_t)l->proc * DOT_PAST_FACTS];
    const uint32_t *k = &o->past[((size_t)o->nproc + l->proc) * DOT_PAST_FACTS];

    for (uint32_t j = 0; x->later && j < DOT_PAST_FACTS && a[j] != UINT32_MAX; j++) {
        if (l->pos < k[j] && o->ev[a[j]].proc == x->proc && o->ev[a[j]].ref.block == x->block &&
            o->ev[a[j]].pos <= x->pos)
            return true;
    }
    return false;
}

/* The first of process q's writes w[lo..hi) (one slot's, in place order)
 * of the later replays of block b (dot_ow.later), or of a later block. */
static size_t later_first(const struct dot_order *o, size_t lo, size_t hi, uint32_t b)
{
    while (lo < hi) { /* blocks ascend, a block's later replay after its first */
        size_t mid = lo + (hi - lo) / 2;

        if (o->w[mid].block < b || (o->w[mid].block == b && !o->w[mid].later))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first of process q's writes w[lo..hi) (one slot's, in place order)
 * of block b or a later one. */
static size_t block_first(const struct dot_order *o, size_t lo, size_t hi, uint32_t b)
{
    while (lo < hi) { /* blocks ascend */
        size_t mid = lo + (hi - lo) / 2;

        if (o->w[mid].block < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The place after process p's last event of block b. */
static uint32_t block_end(const struct dot_order *o, uint32_t p, uint32_t b)
{
    size_t lo = o->off[p], hi = o->off[p + 1];

    while (lo < hi) { /* a process's events by block */
        size_t mid = lo + (hi - lo) / 2;

        if (o->ev[mid].ref.block <= b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint32_t)(lo - o->off[p]);
}

/* The latest of waits x[lo..k) (one process's into a slot, by place) whose
 * condition fails a write of value v (width `width`); SIZE_MAX where none.
 * A run of one condition (o->xrun) is passed over whole, and of a run of
 * `>=` waits of values that do not fall (o->xrise) those up to 2^31 - 1
 * below the first that passes (u32) or all (u64: below one that passes). */
static size_t fail_prev(struct dot_order *o, size_t lo, size_t k, uint32_t width, uint64_t v)
{
    while (k > lo) {
        const struct dot_ow *x = &o->x[k - 1];
        size_t a, b;

        o->work++;
        if (!ces_wait_holds(width, x->cmp, v, x->value))
            return k - 1;
        if (x->cmp == CES_CMP_EQ) {
            k = o->xrun[k - 1];
            continue;
        }
        a = o->xrise[k - 1] > lo ? o->xrise[k - 1] : lo;
        if (width != CES_U32) {
            k = a;
            continue;
        }
        { /* those of [a, k - 1) within 2^31 - d below x's value pass, as it does */
            uint64_t room = (UINT64_C(1) << 31) - (uint32_t)((uint32_t)v - (uint32_t)x->value);

            b = k - 1;
            while (a < b) {
                size_t mid = a + (b - a) / 2;

                if (x->value - o->x[mid].value < room)
                    b = mid;
                else
                    a = mid + 1;
            }
            k = a;
        }
    }
    return SIZE_MAX;
}

/* Whether wait x[i] of process p (into slot_overwritten's slot, before
 * its wait y, of clock c) may come before write l, so that it says
 * nothing of what y sees: not after l's every replay (past_event), in its
 * replay of y's process (every: false), in its replay of its process with
 * y after that wait's every replay, or after its every replay by
 * o->past's wait of that replay (last_past). */
static bool wait_before(const struct dot_order *o, const uint32_t *c, const struct dot_ow *l,
                        bool every, size_t i)
{
    const struct dot_ow *x = &o->x[i];
    uint32_t p = x->proc;
    const uint32_t *xc = order_clock(o, o->off[p] + x->pos);

    return !(last_past(o, x, l) && past_event(o, c, p, x->pos)) &&
           (xc[l->proc] <= l->pos ||
            (every && !past_event(o, xc, l->proc, l->pos) &&
             !(x->later && p == l->proc && x->block == l->block &&
               past_event(o, c, p, x->pos))));
}

/* Whether slot_overwritten's wait y, of clock c, never sees write l as
 * the latest of its process's before it (own: l and y of one process and
 * later replay), by process p's waits x[i..k) into the slot (x[k - 1] the
 * latest before y, by place): those before y, latest first, while after l
 * (wait_before), the latest of a run of one condition alone (o->xrun:
 * where it passes l's value, so do the others), until one fails l's value
 * (true).  After the latest (y itself, whose clock order_event has not
 * raised yet in this pass), where none fails it (fail_prev), none does.
 * Where l is of another process than p and wait_before needs no
 * past_event of l (every: false), a wait whose clock shows l is after l,
 * and so are the later ones (a process's clock entries of other
 * processes do not fall from one event to the next; its own may, past an
 * event no execution runs), so the walk goes from the latest that may
 * come before l, or returns true where that is before the first that
 * fails l's value. */
static bool waits_over(struct dot_order *o, const uint32_t *c, const struct dot_ow *l, bool own,
                       uint32_t width, size_t i, size_t k)
{
    uint32_t p = o->x[i].proc;
    bool every = l->later && !(own && p == o->y->proc);
    size_t f, lo, hi;

    if (k > i) { /* the latest */
        o->work++;
        if (wait_before(o, c, l, every, k - 1))
            return false;
        if (!ces_wait_holds(width, o->x[k - 1].cmp, l->value, o->x[k - 1].value))
            return true;
        k = o->xrun[k - 1];
    }
    if ((f = fail_prev(o, i, k, width, l->value)) == SIZE_MAX)
        return false;
    lo = every || l->proc == p ? k : f;
    for (hi = k; lo < hi;) { /* the first of x[f..k) whose clock shows l */
        size_t mid = lo + (hi - lo) / 2;

        o->work++;
        if (order_clock(o, o->off[p] + o->x[mid].pos)[l->proc] > l->pos)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo == f)
        return true;
    /* from lo down, past a run of one condition that reaches lo (after l,
     * and passing l's value: f is before it) */
    for (k = lo < k && o->xrun[lo] == o->xrun[lo - 1] ? o->xrun[lo - 1] : lo; k > i;
         k = o->xrun[k - 1]) {
        o->work++;
        if (wait_before(o, c, l, every, k - 1))
            return false;
        if (!ces_wait_holds(width, o->x[k - 1].cmp, l->value, o->x[k - 1].value))
            return true;
    }
    return false;
}

/* Sets o->over[t] where run t's latest write before wait event y of
 * clock c (last[t], of slot_writes) is one the wait never sees: a wait
 * into the slot whose condition it fails comes after it and before this
 * one (of those whose clock is computed), so that one passes on a later
 * write, and this one on that write or a later one still; or neither
 * passes.  A later replay's write (dot_ow.later) is so only where that
 * wait comes after its every replay (past_block), or where it, y and
 * that wait are of y's process and replay (their later replays in the
 * same order), or where it and that wait are of one process and replay
 * and y comes after that wait's every replay.  So is one that comes
 * before a write y comes after (paired_before).  Sets o->from[t] to the
 * first place of the run y may see (first_seen): that write's, past it
 * where o->over says so; but where, not overwritten, it is of a later
 * replay of a block replayed more than twice, of another process than
 * y's and not both of one rank's linked ones (whose next replay comes
 * after y's), and y does not come after its every replay (past_block,
 * spent_before), y may come before its third replay, whose writes before
 * it come after its second: the first of the run's writes of that
 * block's later replay. */
static void slot_overwritten(struct dot_order *o, const struct ces_graph *g,
                             const struct dot_ow *slot, uint32_t width, const struct dot_ev *y,
                             const uint32_t *c, uint32_t ng)
{
    size_t lo = bound(o->x, o->nx, sizeof(*o->x), slot, cmp_ow_slot, false);
    size_t hi = bound(o->x, o->nx, sizeof(*o->x), slot, cmp_ow_slot, true);

    o->g = g;
    o->y = y;
    o->y_first = 0;
    if (y->later) { /* its first replay's event: its process's block holds two
                     * replays of as many events, the first replay's first */
        uint32_t start = y->ref.block > 0 ? block_end(o, y->proc, y->ref.block - 1) : 0;

        o->y_first = y->pos - (block_end(o, y->proc, y->ref.block) - start) / 2;
    }
    for (uint32_t t = 0; t < ng; t++) {
        const struct dot_ow *l = o->last[t] != SIZE_MAX ? &o->w[o->last[t]] : NULL;
        bool own = l != NULL && l->later && y->later && l->proc == y->proc &&
                   l->block == y->ref.block;

        o->over[t] = false;
        for (size_t i = lo, end; l != NULL && i < hi && !o->over[t]; i = end) {
            uint32_t p = o->x[i].proc, upto = c[p] < o->done[p] ? c[p] : o->done[p];

            end = ow_at(o->x, i, hi, p, UINT32_MAX);
            o->over[t] = waits_over(o, c, l, own, width, i, ow_at(o->x, i, end, p, upto));
        }
        o->over[t] = o->over[t] || (l != NULL && paired_before(o, g, slot, width, y, o->last[t]));
        o->from[t] = l != NULL ? l->pos + (o->over[t] ? 1 : 0) : 0;
        if (l != NULL && !o->over[t] && l->later && l->proc != y->proc &&
            !(o->linked[l->proc] && o->linked[y->proc] &&
              o->ev[o->off[l->proc]].ref.rank == y->ref.rank) &&
            ces_graph_block(g, l->block).reps > 2 && !past_event(o, c, l->proc, l->pos) &&
            !spent_before(o, g, slot, width, y, o->last[t]))
            o->from[t] = max_u32(o->w[later_first(o, o->group[t], o->last[t], l->block)].pos,
                                 past_count(o, c, l->proc));
    }
}

/* Whether write w, of a later replay (dot_ow.later), may be seen by
 * slot_overwritten's wait y, of a later replay of w's block too, in y's
 * replay before w's: where the block is replayed more than twice, w is of
 * another process than y, not both of one rank's linked ones (whose next
 * replay comes after y's), and the last event of w's process in the
 * block's later replays (which w's next replay comes after) does not come
 * after y's first replay: w's process then runs ahead of y's, and the
 * third replay of w, which its second stands for, may come after a write
 * of another process that y's second replay comes after and w's second
 * replay before. */
static bool next_replay(const struct dot_order *o, const struct dot_ow *w)
{
    const struct dot_ev *y = o->y;
    uint32_t end;

    if (!y->later || w->proc == y->proc || w->block != y->ref.block ||
        ces_graph_block(o->g, w->block).reps <= 2 ||
        (o->linked[w->proc] && o->linked[y->proc] &&
         o->ev[o->off[w->proc]].ref.rank == y->ref.rank))
        return false;
    end = block_end(o, w->proc, w->block);
    return end - 1 < o->done[w->proc] &&
           order_clock(o, o->off[w->proc] + end - 1)[y->proc] <= o->y_first;
}

/* Whether write w[i] of run g (of slot_writes), of a later replay
 * (dot_ow.later), may come after the other runs' latest writes before a
 * wait that it comes before: where none is of its block's later replays
 * too (which comes after it in every replay; one of the block's first
 * replay, after w[i]'s second replay alone, may come before its later
 * ones) or comes after its every replay (past_block). */
static bool later_past(const struct dot_order *o, uint32_t g, uint32_t ng, size_t i)
{
    const struct dot_ow *w = &o->w[i];
    bool again = w->later && next_replay(o, w);

    for (uint32_t t = 0; w->later && t < ng; t++) {
        size_t l = o->last[t];
        const uint32_t *lc = l != SIZE_MAX && t != g ? ow_clock(o, l) : NULL;

        if (lc != NULL && lc[w->proc] > w->pos &&
            ((o->w[l].later && o->w[l].block == w->block && !again) ||
             past_event(o, lc, w->proc, w->pos)))
            return false;
    }
    return w->later;
}

/* The lesser of a and b. */
static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* The first of a slot's writes by value, o->wv[lo..hi), of a value above
 * v or of v at place `at` or after. */
static size_t wv_at(const struct dot_order *o, size_t lo, size_t hi, uint64_t v, size_t at)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct dot_wv *m = &o->wv[mid];

        if (m->value < v || (m->value == v && m->i < at))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first of writes w[i..hi) (of one process into a slot, by place)
 * whose value wait `wt` (width `width`) passes on; hi where none.  Past
 * one that fails it, a run of one value (o->wsame) fails it whole for
 * `==`, and for `>=` a run of rising values (o->wrun) up to the first of
 * them at or above the wait's value, or whole from one above it (u32: 2^31
 * or more above, as are those after it). */
static size_t holds_next(const struct dot_order *o, size_t i, size_t hi, const struct ces_op *wt,
                         uint32_t width)
{
    while (i < hi && !ces_wait_holds(width, wt->cmp, o->w[i].value, wt->value)) {
        size_t end = min_size(o->wrun[i], hi), lo = i + 1;

        if (wt->cmp == CES_CMP_EQ) {
            i = min_size(o->wsame[i], hi);
            continue;
        }
        if (o->w[i].value >= wt->value) {
            i = end;
            continue;
        }
        while (lo < end) {
            size_t mid = lo + (end - lo) / 2;

            if (o->w[mid].value < wt->value)
                lo = mid + 1;
            else
                end = mid;
        }
        i = lo;
    }
    return i;
}

/* The first write of run g (of slot_writes) that a wait `wt` of clock c
 * (width `width`) may see: at or after place `from` and o->from[g]
 * (slot_overwritten: the run's latest before the wait, past it where it
 * is overwritten), past every write of the run that happens before a
 * later write into the slot which happens before the wait (that later
 * write, or one after it, is what the wait sees; but a later replay's
 * of another block, later_past), its value one the wait passes on;
 * SIZE_MAX where none is. */
static size_t first_seen(const struct dot_order *o, uint32_t g, uint32_t ng,
                         const struct ces_op *wt, uint32_t width, uint32_t from)
{
    uint32_t q = o->w[o->group[g]].proc, other = 0;
    size_t i, top = o->group[g + 1];

    for (uint32_t t = 0; t < ng; t++) {
        size_t l = o->last[t];

        if (l == SIZE_MAX)
            continue;
        if (t == g)
            from = max_u32(from, o->from[g]);
        else
            other = max_u32(other, ow_clock(o, l)[q]);
    }
    i = ow_at(o->w, o->group[g], top, q, from);
    if (wt->cmp == CES_CMP_EQ) { /* those of its value alone, by o->wv */
        size_t lo = wv_at(o, o->group[0], o->group[ng], wt->value, i);

        for (; lo < o->group[ng] && o->wv[lo].value == wt->value &&
               o->wv[lo].i < o->group[g + 1];
             lo++) {
            if (o->w[o->wv[lo].i].pos >= other || later_past(o, g, ng, o->wv[lo].i))
                return o->wv[lo].i;
        }
        return SIZE_MAX;
    }
    while ((i = holds_next(o, i, top, wt, width)) < top) {
        if (o->w[i].pos >= other || later_past(o, g, ng, i))
            return i;
        /* one of no later replay before `other`: so are those up to the
         * next of a later replay or at `other` */
        i = o->w[i].later ? i + 1 : min_size(o->wlater[i], ow_at(o->w, i, top, q, other));
    }
    return SIZE_MAX;
}

/* Whether write w[i], of a later replay (dot_ow.later), comes before
 * another process's write into its slot, one of the latest of the ng
 * runs of slot_writes (o->last, before the wait's clock), that comes after
 * w[i]'s every replay (past_event).  A write of its block's later replays
 * whose clock comes after w[i]'s is no such write: that clock, the second
 * replay's, may come after w[i]'s second replay through a wait of an
 * earlier replay, and the write's last replay before w[i]'s. */
static bool later_over(const struct dot_order *o, size_t i, uint32_t ng)
{
    const struct dot_ow *w = &o->w[i];

    for (uint32_t t = 0; t < ng; t++) {
        size_t l = o->last[t];
        const uint32_t *lc = l != SIZE_MAX && o->w[l].proc != w->proc ? ow_clock(o, l) : NULL;

        if (lc != NULL && past_event(o, lc, w->proc, w->pos))
            return true;
    }
    return false;
}

/* Whether wait `wt` of event x, of clock c (width `width`), may pass on a
 * write into `slot` of a later replay (dot_ow.later), which first_seen's
 * places do not tell apart from its second replay's: one whose value it
 * passes on, not known to run in no execution or to come after the wait,
 * nor to come before a later write of its process that comes before the
 * wait, as do all its replays where the wait comes after its every replay
 * (past_block: after the second replay's last event alone, the wait may
 * still come before a later replay's write), nor to come before another
 * process's write before the wait that comes after the write's every
 * replay (later_over), nor, as
 * its process's latest write before the wait, one that slot_overwritten
 * says the wait never sees (o->over, of slot_writes' runs for clock c,
 * which it tells of every replay). */
static bool later_seen(const struct dot_order *o, const struct dot_ow *slot,
                       const struct dot_ev *x, const uint32_t *c, const struct ces_op *wt,
                       uint32_t width, uint32_t ng)
{
    size_t lo = bound(o->w, o->nw, sizeof(*o->w), slot, cmp_ow_slot, false);
    size_t hi = bound(o->w, o->nw, sizeof(*o->w), slot, cmp_ow_slot, true);

    for (size_t i = lo, end = lo, t = 0; i < hi; i++) {
        const struct dot_ow *w = &o->w[i];
        uint32_t q = w->proc;
        size_t at = o->off[q] + w->pos;

        if (i == end) { /* run t's first */
            t += i > lo;
            end = ow_at(o->w, i, hi, q, UINT32_MAX);
        }
        if (!w->later || !ces_wait_holds(width, wt->cmp, w->value, wt->value) ||
            (o->last[t] == i && o->over[t]))
            continue;
        if (w->pos < o->done[q] && (o->dead[at] || order_clock(o, at)[x->proc] > x->pos))
            continue;
        if (c[q] > w->pos && ow_at(o->w, i, end, q, c[q]) > i + 1 &&
            past_event(o, c, q, w->pos))
            continue;
        if (later_over(o, i, ng))
            continue;
        return true;
    }
    return false;
}

/* Raises clock c to come after write w[i]: its clock where computed, else
 * its place. */
static void after_write(const struct dot_order *o, size_t i, uint32_t *c)
{
    const struct dot_ow *w = &o->w[i];

    if (w->pos < o->done[w->proc]) {
        const uint32_t *wc = ow_clock(o, i);

        for (uint32_t k = 0; k < o->nproc; k++)
            c[k] = wc[k] > c[k] ? wc[k] : c[k];
    }
    c[w->proc] = w->pos + 1 > c[w->proc] ? w->pos + 1 : c[w->proc];
}

/* Takes the fact that the last replay of wait event `anchor` (it, where
 * not of a later replay) comes after every replay of write w[i] (one of
 * those its replays use up, so of its process's events before it too):
 * raising that wait's fact for w[i]'s process, or taking a fact of its
 * own where fewer than DOT_PAST_FACTS are kept. */
static void past_add(struct dot_order *o, uint32_t anchor, size_t i)
{
    const struct dot_ow *w = &o->w[i];
    uint32_t *a = &o->past[(size_t)w->proc * DOT_PAST_FACTS];
    uint32_t *k = &o->past[((size_t)o->nproc + w->proc) * DOT_PAST_FACTS];
    uint32_t j = 0;

    while (j < DOT_PAST_FACTS && a[j] != UINT32_MAX && a[j] != anchor)
        j++;
    if (j < DOT_PAST_FACTS && (a[j] == UINT32_MAX || k[j] <= w->pos)) {
        a[j] = anchor;
        k[j] = w->pos + 1;
        o->changed = true;
    }
}

/* Whether an event of clock c comes after write w: after its every replay
 * for a later replay's (past_event). */
static bool first_before(const struct dot_order *o, const uint32_t *c, const struct dot_ow *w)
{
    return w->later ? past_event(o, c, w->proc, w->pos) : c[w->proc] > w->pos;
}

/* Whether write w[i] comes after wait event x in every execution: after
 * it, and where x stands for the later replays' waits too (dot_ev.later),
 * which may come before a write of another process that comes after the
 * second replay's, after x's every replay (past_block; a write of x's
 * own process after x stands for its later replays' writes, after their
 * waits). */
static bool after_wait(const struct dot_order *o, const struct dot_ev *x, size_t i)
{
    const uint32_t *wc = ow_clock(o, i);

    return wc[x->proc] > x->pos && (!x->later || o->w[i].proc == x->proc ||
                                    past_event(o, wc, x->proc, x->pos));
}

/* The first of writes w[lo..hi) (one process's into a slot, by place) that
 * runs in no execution (o->dead) or, with `after`, comes after wait event
 * x (after_wait); hi where none.  Both hold of every later write of the
 * process once they hold of one: a process's clocks do not fall from one
 * event to the next, and one after a dead event is dead. */
static size_t fail_cut(struct dot_order *o, const struct dot_ev *x, size_t lo, size_t hi,
                       bool after)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct dot_ow *w = &o->w[mid];

        o->work++;
        if (o->dead[o->off[w->proc] + w->pos] || (after && after_wait(o, x, mid)))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The first of a slot's writes by value, o->wv[lo..hi), of a value at or
 * above v (upper: above it). */
static size_t wv_bound(const struct dot_order *o, size_t lo, size_t hi, uint64_t v, bool upper)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (o->wv[mid].value < v || (upper && o->wv[mid].value == v))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The writes w[ch->wlo..ch->whi) but w[ch->own..ch->end) whose value a
 * wait of chain ch passes on (chain_holds), as writes_left takes them:
 * of each of its conditions (up to 2) the ranges of o->wv of the values it
 * passes on (a u32 `>=` two where its 2^31 values wrap), a write of the
 * second's that the first passes on left to the first's; of more
 * conditions (any value) every write, in place order (`all`). */
struct dot_wit {
    size_t r[8]; /* ranges of o->wv: [r[2k], r[2k + 1]) */
    uint32_t cond[4], nr, k;
    size_t at;
    bool all;
};

/* Adds to it the ranges of o->wv[lo..hi) (a slot's) whose values a wait of
 * compare cmp and value v (width `width`) passes on, as ces_wait_holds
 * judges (values of a u32 slot are below 2^32: the graph's are taken
 * modulo 2^32), of condition c. */
static void wit_ranges(const struct dot_order *o, struct dot_wit *it, size_t lo, size_t hi,
                       uint32_t width, uint32_t cmp, uint64_t v, uint32_t c)
{
    const uint64_t half = UINT64_C(1) << 31, top = UINT64_C(1) << 32;
    size_t *r = &it->r[2 * it->nr];

    if (cmp == CES_CMP_EQ) {
        r[0] = wv_bound(o, lo, hi, v, false);
        r[1] = wv_bound(o, r[0], hi, v, true);
    } else if (width != CES_U32) {
        r[0] = wv_bound(o, lo, hi, v, false);
        r[1] = hi;
    } else {
        uint64_t v32 = (uint32_t)v;

        r[0] = wv_bound(o, lo, hi, v32, false);
        r[1] = v32 + half <= top ? wv_bound(o, r[0], hi, v32 + half, false) : hi;
        if (v32 + half > top) { /* and [0, v32 + 2^31 - 2^32) */
            it->cond[it->nr++] = c;
            r += 2;
            r[0] = lo;
            r[1] = wv_bound(o, lo, hi, v32 + half - top, false);
        }
    }
    it->cond[it->nr++] = c;
}

/* The next write of it (wit_first), SIZE_MAX past the last. */
static size_t wit_next(struct dot_order *o, const struct dot_chain *ch, uint32_t width,
                       struct dot_wit *it)
{
    if (it->all) {
        size_t i = it->at;

        if (i >= ch->whi)
            return SIZE_MAX;
        it->at = i + 1 == ch->own ? ch->end : i + 1;
        return i;
    }
    while (it->k < it->nr) {
        size_t i;

        if (it->at >= it->r[2 * it->k + 1]) {
            if (++it->k < it->nr)
                it->at = it->r[2 * it->k];
            continue;
        }
        i = o->wv[it->at++].i;
        if (i >= ch->own && i < ch->end) {
            o->work++;
            continue;
        }
        if (it->cond[it->k] == 1 &&
            ces_wait_holds(width, ch->cmp[0], o->w[i].value, ch->value[0])) {
            o->work++;
            continue;
        }
        return i;
    }
    return SIZE_MAX;
}

/* The first write of chain ch's that writes_left takes (dot_wit), into it;
 * SIZE_MAX where none. */
static size_t wit_first(struct dot_order *o, const struct dot_chain *ch, uint32_t width,
                        struct dot_wit *it)
{
    memset(it, 0, sizeof(*it));
    it->all = ch->ncond > 2;
    if (it->all) {
        it->at = ch->wlo == ch->own ? ch->end : ch->wlo;
        return wit_next(o, ch, width, it);
    }
    for (uint32_t c = 0; c < ch->ncond; c++)
        wit_ranges(o, it, ch->wlo, ch->whi, width, ch->cmp[c], ch->value[c], c);
    it->at = it->nr > 0 ? it->r[0] : 0;
    return wit_next(o, ch, width, it);
}

/* How the writes w[ch->wlo..ch->whi) but w[ch->own..ch->end) that a wait
 * of chain ch's conditions (chain_holds), event x of width `width`, may
 * pass on, `have` more counted before them, compare with `need`: a later
 * replay's counted for every later replay; none that runs in no execution
 * or comes after x, after its every replay for a later replay's
 * (past_event).  Fewer (< 0), as many (0: with `raise`, that clock is
 * raised to come after each; with `anchor`, x's event, past_add takes
 * each where one is of a later replay, whose every replay the clocks do
 * not tell) or more (> 0).  With `first` (replays_left's, where each
 * replay needs a write of its own), those that come before x's first
 * replay count as one among them all, the slot's initial 0 (`have`) too,
 * and none that comes before first->f's write. */
static int writes_left(struct dot_order *o, const struct ces_graph *g, const struct dot_ev *x,
                       const struct dot_chain *ch, uint32_t width, uint64_t have,
                       uint64_t need, uint32_t *raise, uint32_t anchor,
                       const struct dot_first *first)
{
    bool later = false; /* a later replay's counted */
    bool one = false;   /* one before x's first replay counted */
    struct dot_wit it;

    if (first != NULL) {
        one = have > 0 && first->f == SIZE_MAX;
        have = 0;
    }

    for (int pass = 0; pass < (raise != NULL || (anchor != UINT32_MAX && later) ? 2 : 1);
         pass++) {
        for (size_t i = wit_first(o, ch, width, &it); i != SIZE_MAX && have <= need;
             i = wit_next(o, ch, width, &it)) {
            const struct dot_ow *w = &o->w[i];
            size_t at = o->off[w->proc] + w->pos;

            o->work++;
            if (!chain_holds(ch, width, w->value))
                continue;
            if (w->pos < o->done[w->proc] &&
                (o->dead[at] ||
                 (x->later ? past_event(o, order_clock(o, at), x->proc, x->pos)
                           : order_clock(o, at)[x->proc] > x->pos)))
                continue;
            later = later || w->later;
            if (pass == 0 && first != NULL && first_before(o, first->x1, w)) {
                one = one || first->f == SIZE_MAX ||
                      !(w->proc == o->w[first->f].proc ? w->pos < o->w[first->f].pos
                                                       : first_before(o, ow_clock(o, first->f), w));
                continue;
            }
            if (pass == 0)
                have += w->later ? ces_graph_block(g, w->block).reps - 1 : 1;
            else if (raise != NULL)
                after_write(o, i, raise);
            else
                past_add(o, anchor, i);
        }
        if (pass == 0)
            have += one;
        if (have != need)
            break;
    }
    return have < need ? -1 : have > need;
}

/* How the writes the replays of wait event x (of a later replay,
 * dot_ev.later: its block replayed reps > 2 times), op wt of width `width`
 * into `slot`, may pass on compare with those they need: where a write
 * into the slot of its block whose value it fails is of its process, each
 * replay's wait passes on a write after one of those of the replay or the
 * one before, so on one no other replay's wait passes on: reps writes; so
 * too where a wait of its process and block next to it among that
 * process's waits into the slot passes on no value it passes on (the
 * one's `==` value the other fails), which passes between two replays'
 * waits, on a write after the first's: so no replay but the first sees
 * a write that comes before the first replay's wait, and none a write
 * that comes before its process's latest write into the slot before that
 * wait (dot_first; writes_left counts them so);
 * where such a write is of another of its rank's linked processes, two
 * replays apart (that write of the replay between them comes after the
 * first's wait, before the second's): half of reps, rounded up.  Fewer
 * writes into the slot that it passes on (writes_left; the slot's initial
 * 0 where it passes on 0) than that (< 0): its last replay never passes;
 * as many (0): every one of them comes before its last replay, and with
 * `raise` that clock is raised to come after each, with `anchor` (x's
 * event) past_add takes each; and where they are
 * half of an even reps (of another process's writes), *paired (where not
 * NULL) says so: each passes two replays' waits, the last replay's with
 * the one before, so comes before that process's write of the last
 * replay, which comes after the one before's wait. */
static int replays_left(struct dot_order *o, const struct ces_graph *g, const struct dot_ev *x,
                        const struct dot_ow *slot, const struct ces_op *wt, uint32_t width,
                        uint32_t *raise, uint32_t anchor, bool *paired)
{
    size_t lo = bound(o->w, o->nw, sizeof(*o->w), slot, cmp_ow_slot, false);
    size_t hi = bound(o->w, o->nw, sizeof(*o->w), slot, cmp_ow_slot, true);
    uint64_t reps = ces_graph_block(g, x->ref.block).reps, need = 0;
    size_t xlo, xhi, k;
    struct dot_chain one = {1, {wt->cmp, 0}, {wt->value, 0}, false, lo, hi, hi, hi};
    struct dot_first first;
    int left;

    /* of x's process and its rank's other linked ones, their writes of x's
     * block (a process's writes by place, so by block) */
    for (size_t i = lo, end; i < hi && need < reps; i = end) {
        uint32_t q = o->w[i].proc;
        size_t b0;

        o->work++;
        end = ow_at(o->w, i, hi, q, UINT32_MAX);
        if (q != x->proc &&
            !(o->linked[q] && o->ev[o->off[q]].ref.rank == x->ref.rank))
            continue;
        for (b0 = block_first(o, i, end, x->ref.block);
             b0 < end && o->w[b0].block == x->ref.block; b0++) {
            o->work++;
            if (!ces_wait_holds(width, wt->cmp, o->w[b0].value, wt->value))
                break;
        }
        if (b0 == end || o->w[b0].block != x->ref.block)
            continue;
        if (q == x->proc)
            need = reps;
        else
            need = need > (reps + 1) / 2 ? need : (reps + 1) / 2;
    }
    xlo = bound(o->x, o->nx, sizeof(*o->x), slot, cmp_ow_slot, false);
    xhi = bound(o->x, o->nx, sizeof(*o->x), slot, cmp_ow_slot, true);
    k = ow_at(o->x, xlo, xhi, x->proc, x->pos);
    for (size_t i = k > xlo ? k - 1 : k + 1; i <= k + 1 && i < xhi && need < reps; i += 2) {
        const struct dot_ow *u = &o->x[i];

        if (u->proc == x->proc && u->block == x->ref.block &&
            ((wt->cmp == CES_CMP_EQ && !ces_wait_holds(width, u->cmp, wt->value, u->value)) ||
             (u->cmp == CES_CMP_EQ && !ces_wait_holds(width, wt->cmp, u->value, wt->value))))
            need = reps;
    }
    if (need == 0)
        return 1;
    if (need == reps) { /* x's first replay: its process's events of the block, the second's after */
        size_t s = o->off[x->proc], e = o->off[x->proc] + x->pos, end = o->off[x->proc + 1];
        size_t at = e;

        while (s < e) {
            size_t mid = s + (e - s) / 2;

            if (o->ev[mid].ref.block < x->ref.block)
                s = mid + 1;
            else
                e = mid;
        }
        for (e = at; e < end;) {
            size_t mid = e + (end - e) / 2;

            if (o->ev[mid].ref.block <= x->ref.block)
                e = mid + 1;
            else
                end = mid;
        }
        at -= (e - s) / 2;
        k = ow_at(o->w, lo, hi, x->proc, (uint32_t)(at - o->off[x->proc]));
        first.x1 = order_clock(o, at);
        first.f = k > lo && o->w[k - 1].proc == x->proc ? k - 1 : SIZE_MAX;
    }
    left = writes_left(o, g, x, &one, width, ces_wait_holds(width, wt->cmp, 0, wt->value) ? 1 : 0,
                       need, raise, anchor, need == reps ? &first : NULL);
    if (paired != NULL)
        *paired = left == 0 && 2 * need == reps;
    return left;
}

/* How the writes of other processes wait event e (width `width`) and its
 * process's waits into its slot before it may pass on compare with those
 * they need (dot_chain, o->need; for a later replay's, up to its last
 * replay), as writes_left counts them, the slot's initial 0 where the
 * segment before the process's first write needs one and one passes on
 * 0.  Fewer (< 0): the wait, or its last replay, never passes; as many
 * (0): every one of them comes before it, and with `raise` that clock is
 * raised to come after each, with `anchor` (e) past_add takes each. */
static int chain_left(struct dot_order *o, const struct ces_graph *g, size_t e, uint32_t width,
                      uint32_t *raise, uint32_t anchor)
{
    const struct dot_chain *ch = &o->chain[o->chain_of[e]];

    if (o->need[e] < 2)
        return 1;
    return writes_left(o, g, &o->ev[e], ch, width, ch->init && chain_holds(ch, width, 0) ? 1 : 0,
                       o->need[e], raise, anchor, NULL);
}

/* Raises clock c of an event of a block after o->spent[r] (rank r's) to
 * come after every write that wait's replays need (replays_left,
 * chain_left). */
static void spent_raise(struct dot_order *o, const struct ces_graph *g, uint32_t r, uint32_t *c)
{
    const struct dot_ev *x = &o->ev[o->spent[r]];
    const struct ces_op *op = op_at(g, x->ref);
    struct dot_ow slot = slot_key(op);
    uint32_t width = ces_graph_signal(g, op->slot.sig).width;

    replays_left(o, g, x, &slot, op, width, c, UINT32_MAX, NULL);
    chain_left(o, g, o->spent[r], width, c, UINT32_MAX);
}

/* Adds write `id` of clock v (NULL: the slot's initial 0) to a side of
 * order_twice: of every process k, the least clock least[k] (of write
 * who[k]) and the second least second[k]. */
static void side_add(uint32_t n, uint32_t *least, uint32_t *second, size_t *who, size_t id,
                     const uint32_t *v)
{
    for (uint32_t k = 0; k < n; k++) {
        uint32_t x = v != NULL ? v[k] : 0;

        if (x < least[k]) {
            second[k] = least[k];
            least[k] = x;
            who[k] = id;
        } else if (x < second[k]) {
            second[k] = x;
        }
    }
}

/* Fills a side of order_twice (o->two, o->two_who: side 0 or 1) with the
 * writes into the slot (its ng runs) that wait op `wt` of event (proc,
 * pos) may pass on: of each run its first two whose value the wait passes
 * on, not known to run in no execution or to come after it, and where
 * `seen` (the wait whose runs slot_writes split) not before first_seen's
 * (but a later replay's, which its places do not tell apart), a later
 * replay's write counting twice, standing for several; with `zero`, the
 * slot's initial 0.  False where one's clock is not known. */
static bool side_fill(struct dot_order *o, int side, uint32_t ng, const struct ces_op *wt,
                      uint32_t width, uint32_t proc, uint32_t pos, bool seen, bool zero)
{
    uint32_t n = o->nproc, *least = o->two + (size_t)side * 2 * n, *second = least + n;
    size_t *who = o->two_who + (size_t)side * n;

    for (uint32_t k = 0; k < n; k++) {
        least[k] = second[k] = UINT32_MAX;
        who[k] = SIZE_MAX - 1; /* none */
    }
    if (zero)
        side_add(n, least, second, who, SIZE_MAX, NULL);
    for (uint32_t t = 0; t < ng; t++) {
        size_t from = seen ? first_seen(o, t, ng, wt, width, 0) : 0;
        uint32_t taken = 0;

        for (size_t i = o->group[t]; i < o->group[t + 1] && taken < 2; i++) {
            const struct dot_ow *w = &o->w[i];

            if ((i < from && !w->later) || !ces_wait_holds(width, wt->cmp, w->value, wt->value))
                continue;
            if (w->pos >= o->done[w->proc])
                return false;
            if (o->dead[o->off[w->proc] + w->pos] || ow_clock(o, i)[proc] > pos)
                break; /* nor are the run's later ones */
            for (size_t copy = 0; copy < (w->later ? 2u : 1u) && taken < 2; copy++, taken++)
                side_add(n, least, second, who, 2 * i + copy, ow_clock(o, i));
        }
    }
    return true;
}

/* Raises clock c of wait event y (`wt`, of width `width`, its slot's
 * writes split by slot_writes into ng runs) where it passes on another
 * write than an earlier wait u of its slot: where a write into the slot
 * before y is one it never sees (a run's latest before it that first_seen
 * passes over to a later one) and comes after u, u passed on a write
 * before that one, y on one after it.  So y comes after two writes, one
 * that u may pass on (or u's initial 0) and another that y may: of every
 * process, after the least of the pairs' greater clocks.  The u tried are
 * of each process of the slot's waits its first and its latest before
 * that write. */
static void order_twice(struct dot_order *o, const struct dot_ow *slot, const struct dot_ev *y,
                        const struct ces_op *wt, uint32_t width, uint32_t ng, uint32_t *c)
{
    size_t lo = bound(o->x, o->nx, sizeof(*o->x), slot, cmp_ow_slot, false);
    size_t hi = bound(o->x, o->nx, sizeof(*o->x), slot, cmp_ow_slot, true);
    uint32_t n = o->nproc, *a = o->two, *b = o->two + 2 * (size_t)n;
    const size_t *aw = o->two_who, *bw = o->two_who + n;
    const uint32_t *lc = NULL;
    bool filled = false;

    for (uint32_t t = 0; t < ng && lc == NULL; t++) {
        size_t l = o->last[t];

        if (l != SIZE_MAX && o->w[l].pos < o->done[o->w[l].proc] &&
            first_seen(o, t, ng, wt, width, 0) > l)
            lc = ow_clock(o, l);
    }
    for (size_t i = lo, end; lc != NULL && i < hi; i = end) {
        uint32_t p = o->x[i].proc;
        size_t k;

        end = ow_at(o->x, i, hi, p, UINT32_MAX);
        k = ow_at(o->x, i, end, p, lc[p]); /* p's waits before that write: i..k */
        for (size_t j = i; j < k; j = j < k - 1 ? k - 1 : k) {
            const struct dot_ow *u = &o->x[j];
            struct ces_op uop;

            uop.cmp = u->cmp;
            uop.value = u->value;
            o->work += (uint64_t)ng * (ng + n);
            if (!filled && !side_fill(o, 1, ng, wt, width, y->proc, y->pos, true, false))
                return;
            filled = true;
            if (!side_fill(o, 0, ng, &uop, width, u->proc, u->pos, false,
                           ces_wait_holds(width, u->cmp, 0, u->value)))
                return;
            for (uint32_t q = 0; q < n; q++) {
                /* the least pair of two writes: their least, or where one
                 * write is both, it with the other side's second */
                uint32_t at = aw[q] != bw[q] ? max_u32(a[q], b[q])
                                             : max_u32(a[q], b[n + q]);

                if (aw[q] == bw[q] && max_u32(a[n + q], b[q]) < at)
                    at = max_u32(a[n + q], b[q]);
                if (at != UINT32_MAX && at > c[q])
                    c[q] = at;
            }
        }
    }
}

/* At most this many writes of one process into a slot are looked at, one
 * by one, for one that order_taken's waits may pass on (`==` then finds it
 * among all of them by o->wv); past them order_taken leaves its wait as it
 * is.  As many of a process's waits into a slot before a wait are looked
 * at for one that fails the slot's initial 0 (written_before). */
#define DOT_TAKEN_LOOK 8

/* Whether every execution has written slot `slot` (of width `width`)
 * before its wait of process p at place pos passes: of each process q of
 * the slot's waits, one of the latest DOT_TAKEN_LOOK of q's waits into it
 * that come before that one (p's before pos, another's before at[q], the
 * wait's clock or a bound below it) fails the slot's initial 0, so it
 * passed on a write, and the wait does not pass on the initial 0.  r0
 * waiting f == 1, then f == 0: the second passes on a write of 0, not on
 * the initial 0, where the first passed on a 1; as where the first is on
 * r0's other stream and a record and an await order it before. */
static bool written_before(const struct dot_order *o, const struct dot_ow *slot, uint32_t p,
                           uint32_t pos, const uint32_t *at, uint32_t width)
{
    size_t lo = bound(o->x, o->nx, sizeof(*o->x), slot, cmp_ow_slot, false);
    size_t hi = bound(o->x, o->nx, sizeof(*o->x), slot, cmp_ow_slot, true);
    struct latest_waits it;

    latest_begin(&it, o->x, lo, hi, p, pos, at, DOT_TAKEN_LOOK, width);
    return latest_next(&it) != SIZE_MAX;
}

/* Of writes w[lo..hi) (one process's into a slot, by place; o->wv[vlo..vhi)
 * the slot's by value) the first (`latest`: the latest) whose value wait
 * op wt (width `width`) passes on: SIZE_MAX where none, SIZE_MAX - 1
 * where none of the first (latest) DOT_TAKEN_LOOK does and, but for `==`,
 * which finds it by value, more are left. */
static size_t taken_write(const struct dot_order *o, size_t lo, size_t hi, size_t vlo,
                          size_t vhi, const struct ces_op *wt, uint32_t width, bool latest)
{
    size_t at = latest ? hi : lo, lo_v;

    for (size_t k = 0; k < hi - lo && k < DOT_TAKEN_LOOK; k++) {
        size_t i = latest ? hi - 1 - k : lo + k;

        if (ces_wait_holds(width, wt->cmp, o->w[i].value, wt->value))
            return i;
    }
    if (hi - lo <= DOT_TAKEN_LOOK)
        return SIZE_MAX;
    if (wt->cmp != CES_CMP_EQ)
        return SIZE_MAX - 1;
    lo_v = wv_at(o, vlo, vhi, wt->value, at);
    if (latest && lo_v-- == vlo) /* the last below `at` */
        return SIZE_MAX;
    return lo_v < vhi && o->wv[lo_v].value == wt->value && o->wv[lo_v].i >= lo &&
                   o->wv[lo_v].i < hi
               ? o->wv[lo_v].i
               : SIZE_MAX;
}

/* Raises clock c of wait event y (`wt`, of width `width`, its slot's
 * writes split by slot_writes into ng runs) by what the latest wait u of
 * its process into the slot before it, of no later replay, passed on: a
 * write wu, the slot's latest then, after which y passes on a write wy.
 * So wy does not come before wu, but where it is wu (it would be
 * overwritten by wu before u, and u comes before y), and a wu of which
 * every write y may pass on comes before is none that u passes on where
 * y passes: y comes after one of the others, the least of their clocks.
 * Of each run of writes the first u may pass on is tried: from its latest
 * write before u (one of a later replay: from that block's later replay's
 * first, as its replays after the second may come after it), not one that
 * runs in no execution or comes after u; a later one of the run comes
 * after it, after every write that it comes after.  Of y's, each run's
 * latest whose value it passes on, not one that runs in no execution or
 * comes after y (fail_cut), found as asked; one not found among
 * DOT_TAKEN_LOOK (taken_write) is taken to come before none.  Nothing
 * where u may pass on the slot's initial 0 (written_before), a write's
 * clock is not computed yet, or u's write of a run is not found among
 * DOT_TAKEN_LOOK.  r0 waiting f == 2, then f == 1, r1 writing 1 then 2,
 * r2 writing 2: where the second passes, on r1's 1 (which r1's 2 comes
 * after), the first passed on r2's 2, not r1's, and the second comes
 * after r2's 2. */
static void order_taken(struct dot_order *o, const struct dot_ow *slot, const struct dot_ev *y,
                        const struct ces_op *wt, uint32_t width, uint32_t ng, uint32_t *c)
{
    size_t lo = bound(o->x, o->nx, sizeof(*o->x), slot, cmp_ow_slot, false);
    size_t hi = bound(o->x, o->nx, sizeof(*o->x), slot, cmp_ow_slot, true);
    size_t k = ow_at(o->x, lo, hi, y->proc, y->pos), vlo = o->group[0], vhi = o->group[ng];
    size_t *first = o->last + o->nproc, *late = first + o->nproc;
    const struct dot_ow *u = k > lo ? &o->x[k - 1] : NULL;
    uint32_t n = o->nproc, *least = o->low + 2 * (size_t)n;
    bool zero, fails = false, any = false;
    const uint32_t *uc;
    struct ces_op uop;

    if (u == NULL || u->proc != y->proc || u->later || o->dead[o->off[u->proc] + u->pos] ||
        (u->cmp == wt->cmp && u->value == wt->value) ||
        (u->cmp == CES_CMP_EQ && ces_wait_holds(width, wt->cmp, u->value, wt->value)))
        return; /* y passes on every write u may pass on */
    uc = order_clock(o, o->off[u->proc] + u->pos);
    uop.cmp = u->cmp;
    uop.value = u->value;
    zero = ces_wait_holds(width, u->cmp, 0, u->value) &&
           !written_before(o, slot, u->proc, u->pos, uc, width);
    o->work += ng;
    for (uint32_t t = 0; t < ng; t++) { /* u's first of each run */
        size_t glo = o->group[t], ghi = o->group[t + 1], i;
        uint32_t q = o->w[glo].proc;
        size_t j = ow_at(o->w, glo, ghi, q, uc[q]);

        zero = zero && j == glo;
        if (j > glo)
            j = o->w[j - 1].later ? later_first(o, glo, j - 1, o->w[j - 1].block) : j - 1;
        i = taken_write(o, j, ghi, vlo, vhi, &uop, width, false);
        if (i == SIZE_MAX - 1 || (i != SIZE_MAX && o->w[i].pos >= o->done[q]))
            return;
        if (i != SIZE_MAX &&
            (o->dead[o->off[q] + o->w[i].pos] || ow_clock(o, i)[u->proc] > u->pos))
            i = SIZE_MAX; /* nor do the run's later ones */
        first[t] = i;
        fails = fails || (i != SIZE_MAX && !ces_wait_holds(width, wt->cmp, o->w[i].value,
                                                           wt->value));
    }
    if (zero || !fails) /* where y passes on u's write, that write is one */
        return;
    for (uint32_t t = 0; t < ng; t++)
        late[t] = SIZE_MAX - 2; /* not looked for yet */
    fails = false;
    for (uint32_t t = 0; t < ng; t++) { /* those u may pass on where y passes */
        const uint32_t *wc = first[t] != SIZE_MAX ? ow_clock(o, first[t]) : NULL;
        bool may = false;

        /* that write or a later one of its run that y may pass on: y's
         * latest of the run is that one or after it */
        for (size_t i = first[t], m = 0; wc != NULL && !may && i < o->group[t + 1] &&
                                          m < DOT_TAKEN_LOOK; i++, m++, o->work++)
            may = ces_wait_holds(width, wt->cmp, o->w[i].value, wt->value) &&
                  !o->dead[o->off[o->w[i].proc] + o->w[i].pos] && !after_wait(o, y, i);
        for (uint32_t p = 0; wc != NULL && p < ng && !may; p++, o->work++) {
            if (late[p] == SIZE_MAX - 2) { /* y's latest of run p */
                size_t glo = o->group[p], cut = fail_cut(o, y, glo, o->group[p + 1], true);

                late[p] = taken_write(o, glo, cut, vlo, vhi, wt, width, true);
            }
            may = late[p] == first[t] || late[p] == SIZE_MAX - 1 ||
                  (late[p] != SIZE_MAX && !first_before(o, wc, &o->w[late[p]]));
        }
        fails = fails || (wc != NULL && !may);
        if (!may)
            first[t] = SIZE_MAX;
    }
    if (!fails)
        return;
    o->work += (uint64_t)ng * n;
    for (uint32_t q = 0; q < n; q++)
        least[q] = UINT32_MAX;
    for (uint32_t t = 0; t < ng; t++) {
        const uint32_t *wc = first[t] != SIZE_MAX ? ow_clock(o, first[t]) : NULL;

        for (uint32_t q = 0; wc != NULL && q < n; q++)
            least[q] = wc[q] < least[q] ? wc[q] : least[q];
        any = any || wc != NULL;
    }
    for (uint32_t q = 0; any && q < n; q++)
        c[q] = least[q] > c[q] ? least[q] : c[q];
}

/* Whether write w[i] (of wait op wt's slot, width `width`) may be what the
 * wait passes on as its slot's latest: its value passes it, it runs in
 * some execution, it does not come after wait event x, and it is of no
 * later replay (dot_ow.later), whose replays the clocks do not tell apart
 * (false too where its clock is not computed: `known` cleared). */
static bool across_may(const struct dot_order *o, const struct dot_ev *x,
                       const struct ces_op *wt, uint32_t width, size_t i, bool *known)
{
    const struct dot_ow *w = &o->w[i];

    if (!ces_wait_holds(width, wt->cmp, w->value, wt->value) ||
        o->dead[o->off[w->proc] + w->pos])
        return false;
    if (w->later || w->pos >= o->done[w->proc]) {
        *known = false;
        return false;
    }
    return !after_wait(o, x, i);
}

/* Whether write w[i], its clock computed, comes after each of the writes
 * that order_across's wait may pass on, of no later replay: `need` holds
 * nneed pairs, a process and how many of its events the clock must pass
 * (one past the latest of those writes of it). */
static bool across_after(const struct dot_order *o, size_t i, const uint32_t *need,
                         uint32_t nneed)
{
    const uint32_t *wc = ow_clock(o, i);

    for (uint32_t t = 0; t < nneed; t++) {
        if (wc[need[2 * t]] < need[2 * t + 1])
            return false;
    }
    return true;
}

/* At most this many events of a wait's process before it are read by
 * order_across for its waits u, and at most this many of those waits:
 * with slots of at most DOT_CHAIN_WRITES writes, a wait's clock costs it
 * at most 32 events and 4 slots' writes. */
#define DOT_ACROSS_EVENTS 32
#define DOT_ACROSS_WAITS 4

/* Raises clock c of wait event y (`wt`, of width `width`) by what an
 * earlier wait u of its process into another slot passed on.  Where, of
 * each write wy that y may pass on as its slot's latest (across_may), a
 * wait m of y's process into y's slot between u and y fails the value,
 * the latest as y passes lands after m passes (landed before, it would
 * be the latest as m passes too), so after u passes and after every
 * write u passed on; a write wu that every wy comes before is none that
 * u passes on where y passes, and y comes after one of the others (u
 * fails the initial 0, so it passed on one): the least of their clocks.
 * A first pass over u's writes looks for such a wu alone, by `need` (of
 * each process of the wys, one past the latest of them), and reads no
 * more of u where none is.  Of y's process, the DOT_TAKEN_LOOK
 * latest waits into y's slot before it are read for m, and the
 * DOT_ACROSS_WAITS latest waits into other slots among its
 * DOT_ACROSS_EVENTS events before it, before the earliest m (of each wy,
 * the latest that fails it), for u; nothing where a slot has more than
 * DOT_CHAIN_WRITES writes, one of them of a later replay or not computed
 * yet, where y or u is of a later replay, or u may pass on the initial 0.
 * r0 waiting f == 3, g == 3, f == 0 in two eager iterations, r1 writing f
 * 0 in each and then, in a third block, g 3, r2 f 3 and g $i (2, then 3):
 * the second iteration's f == 3 passes on one of r2's 3, both before r2's
 * g 3, after the first iteration's f == 0; so the first iteration's
 * g == 3 passed on r1's g 3, after both of r1's 0, and the second
 * iteration's f == 0 never passes on r1's second 0. */
static void order_across(struct dot_order *o, const struct ces_graph *g, const struct dot_ow *slot,
                         const struct dot_ev *y, const struct ces_op *wt, uint32_t width,
                         uint32_t *c)
{
    size_t ylo = bound(o->w, o->nw, sizeof(*o->w), slot, cmp_ow_slot, false);
    size_t yhi = bound(o->w, o->nw, sizeof(*o->w), slot, cmp_ow_slot, true);
    size_t xlo, xhi, k0, ky;
    uint32_t n = o->nproc, *least = o->low + 2 * (size_t)n, mpos = UINT32_MAX, looked = 0;
    uint32_t us[DOT_ACROSS_EVENTS], nu = 0, need[2 * DOT_CHAIN_WRITES], nneed = 0;
    bool known = true;

    if (y->later || yhi - ylo > DOT_CHAIN_WRITES)
        return;
    for (uint32_t pos = y->pos; pos-- > 0 && y->pos - pos <= DOT_ACROSS_EVENTS;) {
        const struct ces_op *uop = op_at(g, o->ev[o->off[y->proc] + pos].ref);

        if (uop->kind == CES_OP_WAIT && !in_slot(uop, slot))
            us[nu++] = pos; /* latest first */
    }
    o->work += y->pos < DOT_ACROSS_EVENTS ? y->pos : DOT_ACROSS_EVENTS;
    if (nu == 0)
        return;
    xlo = bound(o->x, o->nx, sizeof(*o->x), slot, cmp_ow_slot, false);
    xhi = bound(o->x, o->nx, sizeof(*o->x), slot, cmp_ow_slot, true);
    k0 = ow_at(o->x, xlo, xhi, y->proc, 0);
    ky = ow_at(o->x, xlo, xhi, y->proc, y->pos);
    if (ky == k0)
        return;
    o->work += yhi - ylo;
    for (size_t i = ylo; i < yhi; i++) { /* the writes y may pass on, and their m */
        uint32_t m = UINT32_MAX;

        if (!across_may(o, y, wt, width, i, &known))
            continue;
        /* a process's writes by place: its latest last */
        nneed += nneed == 0 || need[2 * (nneed - 1)] != o->w[i].proc;
        need[2 * (nneed - 1)] = o->w[i].proc;
        need[2 * nneed - 1] = o->w[i].pos + 1;
        for (size_t k = ky; k-- > k0 && ky - k <= DOT_TAKEN_LOOK && m == UINT32_MAX;) {
            if (!o->x[k].later && !ces_wait_holds(width, o->x[k].cmp, o->w[i].value,
                                                  o->x[k].value))
                m = o->x[k].pos;
        }
        mpos = m < mpos ? m : mpos;
        if (m == UINT32_MAX)
            return;
    }
    if (!known || nneed == 0)
        return;
    for (uint32_t k = 0; k < nu && looked < DOT_ACROSS_WAITS; k++) { /* each u */
        const struct dot_ev *u = &o->ev[o->off[y->proc] + us[k]];
        const struct ces_op *uop = op_at(g, u->ref);
        struct dot_ow uslot = slot_key(uop);
        uint32_t uwidth = ces_graph_signal(g, uop->slot.sig).width;
        size_t lo, hi;
        bool any = false, cut = false;

        if (us[k] >= mpos)
            continue;
        looked++;
        lo = bound(o->w, o->nw, sizeof(*o->w), &uslot, cmp_ow_slot, false);
        hi = bound(o->w, o->nw, sizeof(*o->w), &uslot, cmp_ow_slot, true);
        if (u->later || o->dead[o->off[u->proc] + u->pos] || hi - lo > DOT_CHAIN_WRITES ||
            ces_wait_holds(uwidth, uop->cmp, 0, uop->value))
            continue;
        o->work += (hi - lo) * nneed;
        /* first a write u may pass on that every wy comes before, which a
         * raise needs (one of a later replay or not computed goes to
         * across_may alone, which clears `known` where u may pass on it) */
        for (size_t i = lo; i < hi && known && !cut; i++)
            cut = (o->w[i].later || o->w[i].pos >= o->done[o->w[i].proc] ||
                   across_after(o, i, need, nneed)) &&
                  across_may(o, u, uop, uwidth, i, &known);
        if (!cut)
            continue;
        o->work += (hi - lo) * (nneed + n);
        for (uint32_t q = 0; q < n; q++)
            least[q] = UINT32_MAX;
        for (size_t i = lo; i < hi && known; i++) { /* the others */
            const uint32_t *wc;

            if (!across_may(o, u, uop, uwidth, i, &known) || across_after(o, i, need, nneed))
                continue;
            wc = ow_clock(o, i);
            for (uint32_t q = 0; q < n; q++)
                least[q] = wc[q] < least[q] ? wc[q] : least[q];
            any = true;
        }
        for (uint32_t q = 0; known && any && q < n; q++)
            c[q] = least[q] > c[q] ? least[q] : c[q];
    }
}

/* The clock of event `pos` of process q where it is computed; else, with
 * `force`, a bound of it (in o->low's second third): after its process's
 * latest computed event, and itself; else NULL. */
static const uint32_t *order_known(struct dot_order *o, uint32_t q, uint32_t pos, bool force)
{
    uint32_t n = o->nproc, *bound_at = o->low + n;

    if (pos < o->done[q])
        return order_clock(o, o->off[q] + pos);
    if (!force)
        return NULL;
    for (uint32_t k = 0; k < n; k++)
        bound_at[k] = o->done[q] > 0 ? order_clock(o, o->off[q] + o->done[q] - 1)[k] : 0;
    bound_at[q] = pos + 1;
    return bound_at;
}

/* Raises the clock of event e to what every execution shows: its
 * process's order, its links' clocks, for an await its record's, and for
 * a wait what every write it may see happens after (the componentwise
 * minimum of the clocks of the first such write of each process, the
 * later ones of a process coming after it; none of a process whose such
 * write the wait happens before).  An event whose link, record or first
 * such write is not computed yet waits (false), unless `force`
 * (order_known).  Sets o->changed where the clock went up. */
static bool order_event(struct dot_order *o, const struct ces_graph *g, size_t e, bool force)
{
    const struct dot_ev *x = &o->ev[e];
    const struct ces_op *op = op_at(g, x->ref);
    uint32_t n = o->nproc, *c = order_clock(o, e), *pred = c - n, ng, width;
    struct dot_ow slot = slot_key(op);
    uint32_t *low = o->low;
    bool any = false, seen, zero, dead = x->pos > 0 && o->dead[e - 1];

    o->work += n;
    for (uint32_t k = 0; k < n; k++) /* c: zero, or what an earlier pass found */
        low[k] = x->pos > 0 && pred[k] > c[k] ? pred[k] : c[k];
    low[x->proc] = x->pos + 1;
    for (uint32_t j = 0; j <= x->nlink; j++) { /* its record, its links */
        uint32_t at = j < x->nlink ? CES_VEC_AT(&o->links, uint32_t, x->link + j) : x->record;
        const uint32_t *rc;

        if (at == UINT32_MAX)
            continue;
        rc = order_known(o, o->ev[at].proc, o->ev[at].pos, force);
        if (rc == NULL)
            return false;
        dead = dead || o->dead[at];
        for (uint32_t k = 0; k < n; k++)
            low[k] = rc[k] > low[k] ? rc[k] : low[k];
    }
    /* after a block whose replays use up the writes a wait of it needs */
    if (x->nlink > 0 && o->linked[x->proc] && o->spent[x->ref.rank] != UINT32_MAX &&
        x->ref.block > o->ev[o->spent[x->ref.rank]].ref.block)
        spent_raise(o, g, x->ref.rank, low);
    if (op->kind == CES_OP_WAIT) {
        width = ces_graph_signal(g, op->slot.sig).width;
        seen = slot_writes(o, &slot, low, &ng);
        slot_overwritten(o, g, &slot, width, x, low, ng);
        o->work += (uint64_t)ng * (ng + n);
        /* no write before it: it may pass on the slot's initial 0 */
        zero = !seen && ces_wait_holds(width, op->cmp, 0, op->value) &&
               !written_before(o, &slot, x->proc, x->pos, low, width);
        for (uint32_t t = 0; t < ng && !zero; t++) {
            size_t i = first_seen(o, t, ng, op, width, 0);
            uint32_t q;
            const uint32_t *wc;

            if (i == SIZE_MAX)
                continue;
            q = o->w[i].proc;
            wc = order_known(o, q, o->w[i].pos, force);
            if (wc == NULL)
                return false;
            /* it runs in no execution, or comes after the wait, as every
             * later one of q */
            if (o->w[i].pos < o->done[q] &&
                (o->dead[o->off[q] + o->w[i].pos] || wc[x->proc] > x->pos))
                continue;
            for (uint32_t k = 0; k < n; k++)
                low[n * 2 + k] = any && low[n * 2 + k] < wc[k] ? low[n * 2 + k] : wc[k];
            any = true;
        }
        for (uint32_t k = 0; any && k < n; k++)
            low[k] = low[n * 2 + k] > low[k] ? low[n * 2 + k] : low[k];
        if (any)
            order_twice(o, &slot, x, op, width, ng, low);
        order_taken(o, &slot, x, op, width, ng, low);
        order_across(o, g, &slot, x, op, width, low);
        /* nothing it may see: it never passes */
        dead = dead || (!zero && !any && !later_seen(o, &slot, x, low, op, width, ng));
        /* too few writes for its last replay: its rank's later blocks never
         * run; just enough: they come after every one */
        if (x->later && !dead && o->cut[x->ref.rank] > x->ref.block) {
            bool paired = false;
            uint32_t anchor = o->anchored[e] ? UINT32_MAX : (uint32_t)e;
            int a = replays_left(o, g, x, &slot, op, width, NULL, anchor, &paired);
            int b = a < 0 ? a : chain_left(o, g, e, width, NULL, anchor);

            if (a < 0 || b < 0) {
                o->cut[x->ref.rank] = x->ref.block;
                o->changed = true;
            } else if ((a == 0 || b == 0) && o->spent[x->ref.rank] == UINT32_MAX) {
                o->spent[x->ref.rank] = (uint32_t)e;
                o->exact[x->ref.rank] = (uint8_t)((a == 0 ? 1 : 0) | (b == 0 ? 2 : 0));
                o->paired[x->ref.rank] = a == 0 && paired;
                o->changed = true;
            }
            /* its last replay comes after every replay of those writes */
            o->anchored[e] = o->anchored[e] || a == 0 || b == 0;
        }
        /* too few writes for its process's waits up to it; just enough: it
         * comes after every replay of each */
        if (!x->later && !dead) {
            int b = chain_left(o, g, e, width, NULL, o->anchored[e] ? UINT32_MAX : (uint32_t)e);

            dead = b < 0;
            o->anchored[e] = o->anchored[e] || b == 0;
        }
    }
    /* after a block whose last replay never completes */
    dead = dead || (o->linked[x->proc] && x->ref.block > o->cut[x->ref.rank]);
    for (uint32_t k = 0; k < n; k++) {
        if (low[k] > c[k]) {
            c[k] = low[k];
            o->changed = true;
        }
    }
    if (dead && !o->dead[e]) {
        o->dead[e] = true;
        o->changed = true;
    }
    return true;
}

/* Whether the order stops here: past DOT_ORDER_MAX_WORK (given up), or
 * past its deadline (o->late), the clock read at its first call and then
 * every DOT_ORDER_CLOCK_WORK of work. */
static bool order_over(struct dot_order *o)
{
    if (o->deadline > 0 && !o->late && o->work >= o->clock_at) {
        o->clock_at = o->work + DOT_ORDER_CLOCK_WORK;
        o->late = ces_now() >= o->deadline;
    }
    return o->late || o->work > DOT_ORDER_MAX_WORK;
}

/* Computes every clock: each process's events in turn, as far as they go,
 * where none goes on the first waiting process's wait forced; then again,
 * all of them computed, until no clock goes up (at most
 * DOT_ORDER_PASSES times: each clock is one every execution has at any
 * point).  False where it gave up past DOT_ORDER_MAX_WORK or its
 * deadline (order_over). */
static bool order_run(struct dot_order *o, const struct ces_graph *g)
{
    bool left = true;

    while (left) {
        bool moved = false;
        uint32_t stuck = UINT32_MAX;

        left = false;
        for (uint32_t q = 0; q < o->nproc; q++) {
            size_t len = o->off[q + 1] - o->off[q];

            while (o->done[q] < len && !order_over(o) &&
                   order_event(o, g, o->off[q] + o->done[q], false)) {
                o->done[q]++;
                moved = true;
            }
            if (order_over(o))
                return false;
            if (o->done[q] < len) {
                left = true;
                stuck = stuck == UINT32_MAX ? q : stuck;
            }
        }
        if (left && !moved) {
            order_event(o, g, o->off[stuck] + o->done[stuck], true);
            o->done[stuck]++;
        }
    }
    o->changed = true;
    for (uint32_t pass = 0; pass < DOT_ORDER_PASSES && o->changed; pass++) {
        o->changed = false;
        for (size_t e = 0; e < o->off[o->nproc] && !order_over(o); e++)
            order_event(o, g, e, false);
        if (order_over(o))
            return false;
    }
    return true;
}

/* Adds to st->kept the pair of wait event x with write w[i]. */
static int keep_pair(struct dot_state *st, const struct dot_order *o, const struct dot_ev *x,
                     size_t i)
{
    struct dot_pair p;

    p.wait = x->ref;
    p.write = o->ev[o->off[o->w[i].proc] + o->w[i].pos].ref;
    return ces_vec_push(st->ctx, &st->kept, sizeof(p), &p);
}

/* The first of writes w[i..cut) (of one process into a slot, by place)
 * whose value fail_runs' wait fails; cut where none.  A run of one value
 * (o->wsame) is passed over whole for `==`, and for `>=` a run of rising
 * values (o->wrun) up to where its values pass the wait's 2^31 (u32) or
 * whole (u64: all at or above one it passes on). */
static size_t fail_next(struct dot_order *o, size_t i, size_t cut)
{
    const struct ces_op *wt = o->fwt;
    uint32_t width = o->fwidth;

    while (i < cut) {
        const struct dot_ow *w = &o->w[i];
        size_t end;

        o->work++;
        if (!ces_wait_holds(width, wt->cmp, w->value, wt->value))
            return i;
        if (wt->cmp == CES_CMP_EQ) {
            i = o->wsame[i];
            continue;
        }
        end = o->wrun[i] < cut ? o->wrun[i] : cut;
        if (width != CES_U32) {
            i = end;
            continue;
        }
        { /* those of (i, end) within 2^31 - d above w's value pass, as it does */
            uint64_t room = (UINT64_C(1) << 31) - (uint32_t)((uint32_t)w->value -
                                                             (uint32_t)wt->value);
            size_t lo = i + 1, hi = end;

            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (o->w[mid].value - w->value < room)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            i = lo;
        }
    }
    return cut;
}

/* The first of process q's writes w[i..hi) (by place) of a block after
 * w[i]'s. */
static size_t block_next(const struct dot_order *o, size_t i, size_t hi)
{
    uint32_t b = o->w[i].block;

    while (i < hi) {
        size_t mid = i + (hi - i) / 2;

        if (o->w[mid].block <= b)
            i = mid + 1;
        else
            hi = mid;
    }
    return i;
}

/* Readies fails_between for wait `wt` (event x, width `width`), its slot's
 * writes split by slot_writes into ng runs: of each run, where those end
 * that may fail the wait (o->frun): its writes that run in some execution
 * and are not known to come after the wait (after_wait), a beginning of
 * the run (fail_cut); and o->next_fail.  Those whose value fails the wait
 * are found as fails_between asks (fail_next). */
static void fail_runs(struct dot_order *o, const struct dot_ev *x, const struct ces_op *wt,
                      uint32_t width, uint32_t ng)
{
    o->fwt = wt;
    o->fwidth = width;
    o->nfrun = ng;
    o->next_fail = SIZE_MAX;
    for (uint32_t t = 0; t < ng; t++) {
        size_t lo = o->group[t], hi = o->group[t + 1], s, e, ca, cd;

        o->frun[t] = fail_cut(o, x, lo, hi, true);
        o->frun[o->nproc + 1 + t] = SIZE_MAX;
        if (o->w[lo].proc != x->proc || !x->later ||
            ces_graph_block(o->g, x->ref.block).reps <= 2)
            continue;
        /* its own process's of the wait's block's later replays, after the
         * wait (from ca) and running in some execution (before cd) */
        s = later_first(o, lo, hi, x->ref.block);
        if (s == hi || !o->w[s].later || o->w[s].block != x->ref.block)
            continue;
        e = block_next(o, s, hi);
        ca = o->frun[t];
        cd = fail_cut(o, x, ca, hi, false);
        s = s > ca ? s : ca;
        e = e < cd ? e : cd;
        s = fail_next(o, s, e);
        if (s < e)
            o->next_fail = s;
    }
}

/* The first write of run t's that may fail fail_runs' wait (before
 * o->frun[t]) and fails it, of a later replay (dot_ow.later); o->frun[t]
 * where none.  Kept once found. */
static size_t fail_later(struct dot_order *o, uint32_t t)
{
    size_t cut = o->frun[t], *kept = &o->frun[o->nproc + 1 + t], i;

    if (*kept != SIZE_MAX)
        return *kept;
    for (i = o->wlater[o->group[t]]; i < cut;) { /* each block's later replay's */
        size_t end = block_next(o, i, cut), k = fail_next(o, i, end);

        if (k < end) {
            *kept = k;
            return k;
        }
        i = end < cut ? o->wlater[end] : cut;
    }
    *kept = cut;
    return cut;
}

/* The first write of run t's that may fail fail_runs' wait (before
 * o->frun[t]), fails it and is not known to come before write w[p] (as
 * fails_between takes them); o->frun[t] where none.  Of w[p]'s process,
 * one after it or of a later replay; of another, one of a later replay
 * before w[p]'s clock, or one after that clock.  It does not come earlier
 * for a later write of w[p]'s process (whose clock is no less). */
static size_t fail_after(struct dot_order *o, size_t p, uint32_t t)
{
    const struct dot_ow *wp = &o->w[p];
    const uint32_t *pc = ow_clock(o, p);
    size_t lo = o->group[t], cut = o->frun[t], k, l;
    uint32_t q = o->w[lo].proc;

    o->work++;
    if (lo == cut)
        return cut;
    if (q == wp->proc) { /* past w[p]: of a later replay, or after its clock */
        for (k = fail_next(o, ow_at(o->w, lo, cut, q, wp->pos), cut);
             k < cut && !o->w[k].later && pc[q] > o->w[k].pos; k = fail_next(o, k + 1, cut))
            ;
    } else if ((l = fail_later(o, t)) < cut && pc[q] > o->w[l].pos) {
        k = l; /* of a later replay, before its clock */
    } else {
        k = fail_next(o, ow_at(o->w, lo, cut, q, pc[q]), cut);
    }
    return k;
}

/* Whether a write whose value fails fail_runs' wait, not known to run in no
 * execution or to come after the wait, may land after write w[p] and
 * before write w[j] (SIZE_MAX: at any time after w[p]), so that the
 * wait's condition, holding since w[p], fails again and w[j] may be what
 * lets it pass: one not known to come before w[p] (one of a later replay,
 * dot_ow.later, whose later replays may come after w[p], only where it is
 * of w[p]'s process and before it) or after w[j] (where w[j] is of no
 * later replay, whose later replays may come after it).  Of each
 * process's, the first not before w[p] alone: a process's events come
 * after its earlier ones, so where that one comes after w[j], so do the
 * others. */
static bool fails_between(struct dot_order *o, size_t p, size_t j)
{
    const struct dot_ow *wj = j != SIZE_MAX ? &o->w[j] : NULL;

    for (uint32_t t = 0; t < o->nfrun; t++) {
        size_t k = fail_after(o, p, t);

        if (k < o->frun[t] &&
            (wj == NULL || wj->later || ow_clock(o, k)[wj->proc] <= wj->pos))
            return true;
    }
    /* the wait's own process's, after the wait's second replay, before its
     * third, where w[j] is of a first replay and may land after it */
    return o->next_fail != SIZE_MAX && wj != NULL && !wj->later &&
           ow_clock(o, o->next_fail)[wj->proc] <= wj->pos;
}

/* The least place of process q from which fails_between(p, j) holds of a
 * write w[j] of q of no later replay: the least of q's entries of the
 * clocks of the writes it finds (fail_after, o->next_fail); UINT32_MAX
 * where none.  It does not fall for a later write p of q's run, whose
 * writes fail_after finds come no earlier. */
static uint32_t fails_from(struct dot_order *o, size_t p, uint32_t q)
{
    uint32_t from = UINT32_MAX;

    for (uint32_t t = 0; t < o->nfrun; t++) {
        size_t k = fail_after(o, p, t);

        if (k < o->frun[t])
            from = from < ow_clock(o, k)[q] ? from : ow_clock(o, k)[q];
    }
    if (o->next_fail != SIZE_MAX && ow_clock(o, o->next_fail)[q] < from)
        from = ow_clock(o, o->next_fail)[q];
    return from;
}

/* The last of run t's writes from w[j] on (of no later replay, by place,
 * one that keep_nearest's wait `wt` may see, first_seen, at place
 * `other` or after it) before the first of a later replay, of a later
 * block, or at place `from` or after: those between are of no later
 * replay and after `other` too, so the wait may see those whose value it
 * passes on (o->wv for `==`). */
static size_t seen_last(const struct dot_order *o, uint32_t t, uint32_t ng, size_t j,
                        const struct ces_op *wt, uint32_t width, uint32_t from)
{
    size_t hi = o->group[t + 1], end;

    end = min_size(min_size(o->wlater[j], block_next(o, j, hi)),
                   ow_at(o->w, j, hi, o->w[j].proc, from));
    if (wt->cmp != CES_CMP_EQ) {
        while (--end > j && !ces_wait_holds(width, wt->cmp, o->w[end].value, wt->value))
            ;
        return end;
    }
    /* past the last of its value before `end` */
    return o->wv[wv_at(o, o->group[0], o->group[ng], wt->value, end) - 1].i;
}

/* Of each process, at most this many of its latest waits into the slot
 * before a wait are read by chain_over and landed_before. */
#define DOT_CHAIN_LOOK 4

/* The event of wait x[k] where it runs, else NULL: of a later replay
 * (dot_ow.later), its second replay's, whose clock it has; the writes
 * may_take finds hold of that replay, which is all the chain needs. */
static const struct dot_ev *chain_wait(const struct dot_order *o, size_t k)
{
    const struct dot_ow *u = &o->x[k];
    size_t e = o->off[u->proc] + u->pos;

    return o->dead[e] ? NULL : &o->ev[e];
}

/* Whether wait event v (x's vw, width `width`) may pass on write w[i] as
 * the slot's latest (writes w[wlo..whi)): its value passes v, it runs,
 * does not come after v, and no write that runs lands after it and
 * before v (overwriting it). */
static bool may_take(struct dot_order *o, const struct dot_ev *v, const struct dot_ow *vw,
                     uint32_t width, size_t wlo, size_t whi, size_t i)
{
    const uint32_t *vc = order_clock(o, o->off[v->proc] + v->pos);

    if (!ces_wait_holds(width, vw->cmp, o->w[i].value, vw->value) ||
        o->dead[o->off[o->w[i].proc] + o->w[i].pos] || after_wait(o, v, i))
        return false;
    o->work += whi - wlo;
    for (size_t k = wlo; k < whi; k++) {
        if (k != i && !o->dead[o->off[o->w[k].proc] + o->w[k].pos] &&
            first_before(o, vc, &o->w[k]) && first_before(o, ow_clock(o, k), &o->w[i]))
            return false;
    }
    return true;
}

/* Whether write w[i] lands before write w[wu] where wait x[ku] took w[wu]
 * (its slot's latest as it passed; writes w[wlo..whi)): of some process,
 * one of its DOT_CHAIN_LOOK latest waits u0 into the slot before x[ku]
 * that runs and fails the initial 0 took a write w0 before, the slot's latest
 * then, so w[wu], the latest as x[ku] passed, is w0 or lands after it; of
 * each w0 u0 may take, but one that w[wu] comes before (then x[ku] would
 * not see w[wu]) and w[wu] itself where a wait of their process between
 * u0 and x[ku] fails it (it would pass on w[wu] too; not of a later
 * replay, whose replays u0 and x[ku] may take one each, and that wait
 * another write between them), none is w[wu] and each is w[i] or comes
 * after it.  r0 waiting f == 1, f >= 3, f == 1, f == 3, r1 writing 3
 * then 1, r2 3 then 1: where the third takes r2's 1 the first does not,
 * the second failing 1, so it took r1's 1, after r1's 3: r1's 3 lands
 * before r2's 1. */
static bool landed_before(struct dot_order *o, size_t xlo, size_t xhi, size_t ku,
                          size_t wlo, size_t whi, uint32_t width, size_t wu, size_t i)
{
    const struct dot_ow *u = &o->x[ku];
    const uint32_t *uc = order_clock(o, o->off[u->proc] + u->pos);
    struct latest_waits it;

    latest_begin(&it, o->x, xlo, xhi, u->proc, u->pos, uc, DOT_CHAIN_LOOK, width);
    for (size_t k = latest_next(&it); k != SIZE_MAX; k = latest_next(&it)) {
        const struct dot_ev *v = chain_wait(o, k);
        bool all = v != NULL;
        bool split = false; /* a wait between u0 and x[ku] fails w[wu] */

        for (size_t b = k + 1; o->x[k].proc == u->proc && b < ku && !split; b++)
            split = !ces_wait_holds(width, o->x[b].cmp, o->w[wu].value, o->x[b].value);
        for (size_t w0 = wlo; all && w0 < whi; w0++) {
            if (!may_take(o, v, &o->x[k], width, wlo, whi, w0) ||
                (w0 != wu && first_before(o, ow_clock(o, w0), &o->w[wu])) ||
                (w0 == wu && split && !o->w[wu].later))
                continue;
            all = w0 != wu && (w0 == i || first_before(o, ow_clock(o, w0), &o->w[i]));
        }
        if (all)
            return true;
    }
    return false;
}

/* Whether the writes that wait j of taken_apart's may take (take[j]) are
 * each overwritten before its wait l passes: each fails one of the waits
 * after j up to l (fail[j + 1..l]). */
static bool taken_before(const uint32_t *take, const uint32_t *fail, uint32_t j, uint32_t l)
{
    uint32_t since = 0;

    for (uint32_t k = j + 1; k <= l; k++)
        since |= fail[k];
    return (take[j] & ~since) == 0;
}

/* The waits taken_apart reads before wait event x (the slot's waits
 * x[xlo..xhi)), each before the next in every execution, into
 * chain[0..n), n returned: x's process's latest DOT_APART_LOOK before it,
 * and, while fewer, ahead of them the latest wait of another process that
 * comes before the earliest so far in every execution and is before none
 * of the other processes' latest such waits (of no later replay, running
 * in some execution): r0 s1's waits after r0 s0's of an earlier block. */
static uint32_t apart_chain(struct dot_order *o, const struct dot_ev *x, size_t xlo,
                            size_t xhi, size_t *chain)
{
    size_t kx = ow_at(o->x, xlo, xhi, x->proc, x->pos), k0 = ow_at(o->x, xlo, kx, x->proc, 0);
    size_t lo = kx - k0 > DOT_APART_LOOK ? kx - DOT_APART_LOOK : k0, ahead[DOT_APART_LOOK];
    uint32_t own = (uint32_t)(kx - lo), n = 0;
    uint32_t p = x->proc, pos = own > 0 ? o->x[lo].pos : x->pos; /* the earliest so far */

    while (own + n < DOT_APART_LOOK) {
        const uint32_t *c = order_clock(o, o->off[p] + pos);
        size_t best = SIZE_MAX;

        for (size_t s = xlo, end; s < xhi; s = end) {
            uint32_t q = o->x[s].proc;
            size_t k;

            end = ow_at(o->x, s, xhi, q, UINT32_MAX);
            k = ow_at(o->x, s, end, q, q == p ? pos : c[q]);
            o->work++;
            if (q == x->proc || k == s || o->x[k - 1].later ||
                o->dead[o->off[q] + o->x[k - 1].pos])
                continue;
            /* one after the best so far replaces it: the last is before
             * none of the others */
            if (best == SIZE_MAX ||
                order_clock(o, o->off[q] + o->x[k - 1].pos)[o->x[best].proc] > o->x[best].pos)
                best = k - 1;
        }
        if (best == SIZE_MAX)
            break;
        ahead[n++] = best;
        p = o->x[best].proc;
        pos = o->x[best].pos;
    }
    for (uint32_t j = 0; j < n; j++)
        chain[j] = ahead[n - 1 - j];
    for (uint32_t j = 0; j < own; j++)
        chain[n + j] = lo + j;
    return n + own;
}

/* What taken_apart reads of wait event x (`wt`, width `width`; the
 * slot's waits x[xlo..xhi), its writes w[wlo..whi)), into o->apart_m,
 * apart_take and apart_fail, whatever write it asks of: false where
 * taken_apart reads nothing (a write or one of the waits of a later
 * replay). */
static bool apart_read(struct dot_order *o, const struct dot_ev *x, const struct ces_op *wt,
                       uint32_t width, size_t xlo, size_t xhi, size_t wlo, size_t whi)
{
    size_t chain[DOT_APART_LOOK];
    uint32_t m = apart_chain(o, x, xlo, xhi, chain), *take = o->apart_take;
    uint32_t *fail = o->apart_fail, *before = o->apart_before;
    bool written = false, changed = true;

    o->apart_m = m;
    for (size_t w = wlo; w < whi; w++) {
        if (o->w[w].later)
            return false;
        before[w - wlo] = 0;
        for (size_t b = wlo; b < whi; b++) {
            if (b != w && first_before(o, ow_clock(o, w), &o->w[b]))
                before[w - wlo] |= UINT32_C(1) << (b - wlo);
        }
    }
    o->work += (whi - wlo) * (whi - wlo);
    for (uint32_t j = 0; j <= m; j++) {
        const struct dot_ow *u = j < m ? &o->x[chain[j]] : NULL;
        uint32_t cmp = u != NULL ? u->cmp : wt->cmp;
        uint64_t value = u != NULL ? u->value : wt->value;
        const struct dot_ev *v = u != NULL ? chain_wait(o, chain[j]) : NULL;

        if (u != NULL && u->later)
            return false;
        fail[j] = 0;
        for (size_t w = wlo; w < whi; w++) {
            if (!ces_wait_holds(width, cmp, o->w[w].value, value))
                fail[j] |= UINT32_C(1) << (w - wlo);
        }
        if (j == m)
            break;
        written = written || !ces_wait_holds(width, cmp, 0, value);
        take[j] = UINT32_MAX; /* none: it does not run or may pass on 0 */
        if (v == NULL || !written)
            continue;
        take[j] = 0;
        o->work += whi - wlo;
        for (size_t w = wlo; w < whi; w++) {
            if (may_take(o, v, u, width, wlo, whi, w))
                take[j] |= UINT32_C(1) << (w - wlo);
        }
    }
    while (changed) { /* j's write lands before l's */
        changed = false;
        for (uint32_t j = 0; j < m; j++) {
            for (uint32_t l = j + 1; l < m; l++) {
                uint32_t tj = take[j], tl = take[l];

                if (tj == UINT32_MAX || tl == UINT32_MAX || tj == 0 || tl == 0 ||
                    !taken_before(take, fail, j, l))
                    continue;
                o->work += (whi - wlo) * (whi - wlo);
                for (size_t w = 0; w < whi - wlo; w++) {
                    uint32_t bit = UINT32_C(1) << w;
                    bool first = true; /* w comes before every write j may take */

                    if ((tj & bit) != 0 && (tl & ~before[w]) == 0)
                        take[j] &= ~bit;
                    for (size_t c = 0; c < whi - wlo && first; c++)
                        first = !(tj >> c & 1) || (before[c] & bit) != 0;
                    if ((tl & bit) != 0 && first)
                        take[l] &= ~bit;
                }
                changed = changed || take[j] != tj || take[l] != tl;
            }
        }
    }
    for (uint32_t j = 0; j < m; j++) {
        o->apart_next[j] = 0;
        for (uint32_t l = j + 1; l < m; l++)
            o->apart_next[j] |= taken_before(take, fail, j, l) ? UINT32_C(1) << l : 0;
    }
    o->apart_nseq = 0; /* from x back: the latest apart from the one after it */
    for (uint32_t l = m, j = m; j-- > 0;) {
        if (take[j] == UINT32_MAX || take[j] == 0 ||
            (l == m ? (take[j] & ~fail[m]) != 0 : !(o->apart_next[j] >> l & 1)))
            continue;
        o->apart_seq[o->apart_nseq++] = j;
        l = j;
    }
    return true;
}

/* Whether taken_apart's run of waits (o->apart_seq, latest first, from
 * place k on) may take writes that land one after another and before the
 * writes `after` (bits of w[wlo..]): each one it may take, none of
 * `after`, none that one of `after` comes before; true also where that
 * asks more than *budget tries (taken that they may). */
static bool apart_fits(struct dot_order *o, uint32_t k, uint32_t after, uint32_t *budget)
{
    uint32_t may;

    if (k == o->apart_nseq)
        return true;
    may = o->apart_take[o->apart_seq[k]] & ~after;
    for (uint32_t w = 0; may >> w != 0; w++) {
        if (!(may >> w & 1) || (o->apart_before[w] & after) != 0)
            continue;
        if (*budget == 0)
            return true;
        (*budget)--;
        o->work++;
        if (apart_fits(o, k + 1, after | UINT32_C(1) << w, budget))
            return true;
    }
    return false;
}

/* Whether wait event x (`wt`, width `width`) never passes on write w[i]
 * (the slot's waits x[xlo..xhi), its writes w[wlo..whi), at most
 * DOT_CHAIN_WRITES, none of a later replay), as waits before it take
 * it: of the DOT_APART_LOOK waits into the slot before x that apart_chain
 * finds, none of a later replay, each that runs, after one that
 * fails the initial 0 or failing it itself, takes a write (the latest as
 * it passes), one that it may take (may_take).  Where each write that
 * such a wait j may take fails a wait after j up to a later such wait l,
 * j's lands before l's: a write that every write l may take comes before
 * is not j's, nor one that comes before every write j may take l's.
 * Where n of them, so apart each from the next, may take n writes in all,
 * w[i] one, each takes another of those n; where each of them that may
 * take w[i] has a wait l after it that fails w[i] and whose writes x
 * fails (l's write lands after w[i] and before x), or x fails w[i], x
 * never passes on it; nor where a run of them, each apart from the next,
 * the last's writes failing x (o->apart_seq), may not take writes that
 * land one after another and before w[i] (apart_fits: x's write, the
 * latest as it passes, lands after the last's, and w[i] after it too
 * where x passes on w[i]).  r0 waiting f == 1, f >= 2 in two eager iterations,
 * then f == 1 in a third block in which r0 s1 writes 1, r1 writes 1 and
 * r2 1, r2 writing 2 in each of the iterations and 2 from s1: the first
 * two `== 1` take r1's and r2's 1, so the third takes r0's (r1's and
 * r2's were drawn to it). */
static bool taken_apart(struct dot_order *o, const struct dot_ev *x, const struct ces_op *wt,
                        uint32_t width, size_t xlo, size_t xhi, size_t wlo, size_t whi, size_t i)
{
    const uint32_t *take = o->apart_take, *fail = o->apart_fail;
    uint32_t m, may = 0; /* the waits a set may hold: each runs, and w[i] is gone */
    uint32_t budget = DOT_APART_TRIES;

    if (o->apart != x) { /* the same for each write it asks of */
        o->apart = x;
        o->apart_none = !apart_read(o, x, wt, width, xlo, xhi, wlo, whi);
    }
    if (o->apart_none)
        return false;
    m = o->apart_m;
    for (uint32_t j = 0; j < m; j++) { /* x never passes on w[i] where j takes it */
        bool gone = (take[j] >> (i - wlo) & 1) == 0 || (fail[m] >> (i - wlo) & 1) != 0;

        for (uint32_t l = j + 1; l < m && !gone; l++)
            gone = take[l] != UINT32_MAX && take[l] != 0 && (fail[l] >> (i - wlo) & 1) &&
                   (take[l] & ~fail[m]) == 0; /* l's write lands after it, failing x */
        may |= take[j] != UINT32_MAX && gone ? UINT32_C(1) << j : 0;
    }
    for (uint32_t set = may; set != 0; set = (set - 1) & may) {
        uint32_t all = 0, n = 0, prev = UINT32_MAX, bits = 0;
        bool apart = true;

        o->work += m;
        for (uint32_t j = 0; j < m && apart; j++) {
            if (!(set >> j & 1))
                continue;
            apart = prev == UINT32_MAX || (o->apart_next[prev] >> j & 1) != 0;
            all |= take[j];
            n++;
            prev = j;
        }
        for (uint32_t a = all; a != 0; a &= a - 1)
            bits++;
        if (apart && bits == n && (all >> (i - wlo) & 1))
            return true;
    }
    /* the run's writes land one after another, then x's, at or after w[i] */
    return o->apart_nseq > 0 && (fail[m] >> (i - wlo) & 1) == 0 &&
           !apart_fits(o, 0, UINT32_C(1) << (i - wlo), &budget);
}

/* Whether wait event x (`wt`, of width `width`, clock c) never passes on
 * write w[i] of its slot (its writes split by slot_writes into ng runs), by a
 * chain of waits before it: of some process, one of its DOT_CHAIN_LOOK
 * latest waits u into the slot before x that runs and fails the initial
 * 0 takes a write wu that x fails, landing before x passes; where w[i]
 * lands before every such wu (comes before it, or landed_before: a wait
 * before u took w[i] or a write after it, then u wu), a write x fails
 * lands after w[i] and before x passes.  r0 waiting f >= 3, f == 2,
 * f == 3, r1 writing 3 then 2, r2 writing 2 then 3: the second takes
 * r1's 2, after r1's 3, or r2's 2, where the first took r1's 3 (r2's 3
 * comes after r2's 2), so the third never passes on r1's 3.  Only of a
 * slot of at most DOT_CHAIN_WRITES writes, x and w[i] of no later
 * replay. */
static bool chain_over(struct dot_order *o, const struct dot_ev *x, const uint32_t *c,
                       const struct ces_op *wt, uint32_t width, uint32_t ng, size_t i)
{
    const struct dot_ow slot = slot_key(wt);
    size_t wlo = o->group[0], whi = o->group[ng], xlo, xhi;
    struct latest_waits it;

    if (x->later || o->w[i].later || whi - wlo > DOT_CHAIN_WRITES)
        return false;
    xlo = bound(o->x, o->nx, sizeof(*o->x), &slot, cmp_ow_slot, false);
    xhi = bound(o->x, o->nx, sizeof(*o->x), &slot, cmp_ow_slot, true);
    latest_begin(&it, o->x, xlo, xhi, x->proc, x->pos, c, DOT_CHAIN_LOOK, width);
    for (size_t k = latest_next(&it); k != SIZE_MAX; k = latest_next(&it)) {
        const struct dot_ev *u = chain_wait(o, k);
        bool all = u != NULL;

        for (size_t wu = wlo; all && wu < whi; wu++) {
            if (!may_take(o, u, &o->x[k], width, wlo, whi, wu))
                continue;
            all = !ces_wait_holds(width, wt->cmp, o->w[wu].value, wt->value) &&
                  (first_before(o, ow_clock(o, wu), &o->w[i]) ||
                   landed_before(o, xlo, xhi, k, wlo, whi, width, wu, i));
        }
        if (all)
            return true;
    }
    return taken_apart(o, x, wt, width, xlo, xhi, wlo, whi, i);
}

/* Adds to st->kept the pairs of wait event e (of block b) with its
 * nearest writes of block b: of each process, the first write of the block
 * the wait may see (first_seen) that does not happen after it, but where
 * another process's such write happens before it and no write whose value
 * fails the wait may come between them (fails_between); and each later
 * write of the block of that process that it may see, not after it, where
 * such a write may come between it and the process's write before it that
 * the wait passes on, and between it and each of the other processes'
 * nearest writes that happen before it.  Where such a write overwrites the
 * nearest one before the wait, the process's next write is what lets it
 * pass: a flag set, reset by another process and set again.  Each is left
 * out where a chain of waits rules it out (chain_over), but in a picture
 * of a check `unchained` (ces_dot_checked). */
static int keep_nearest(struct dot_state *st, struct dot_order *o, size_t e)
{
    const struct ces_graph *g = st->g;
    const struct dot_ev *x = &o->ev[e];
    const struct ces_op *op = op_at(g, x->ref);
    const uint32_t *c = order_clock(o, e);
    uint32_t ng, width = ces_graph_signal(g, op->slot.sig).width, nkept = 0;
    struct dot_ow slot = slot_key(op);
    size_t *near = o->last + o->nproc; /* [nproc]: the writes found */
    bool chained = st->chk == NULL || !st->chk->unchained;
    int rc = CES_OK;

    if (o->dead[e])
        return CES_OK; /* it never passes */
    o->apart = NULL; /* taken_apart reads x afresh */
    slot_writes(o, &slot, c, &ng);
    slot_overwritten(o, g, &slot, width, x, c, ng);
    o->work += (uint64_t)ng * ng;
    for (uint32_t t = 0; t < ng; t++) {
        /* the run's first write of block b */
        size_t lo = block_first(o, o->group[t], o->group[t + 1], x->ref.block), i;
        uint32_t from;

        from = lo < o->group[t + 1] ? o->w[lo].pos : UINT32_MAX;
        /* the wait does not happen before it */
        i = first_seen(o, t, ng, op, width, from);
        if (i < o->group[t + 1] && o->w[i].block == x->ref.block &&
            !o->dead[o->off[o->w[i].proc] + o->w[i].pos] && !after_wait(o, x, i))
            near[nkept++] = i;
    }
    o->work += (uint64_t)nkept * nkept;
    if (nkept > 0)
        fail_runs(o, x, op, width, ng);
    for (uint32_t a = 0; a < nkept && rc == CES_OK && !order_over(o); a++) {
        const uint32_t *ac = ow_clock(o, near[a]);
        bool later = false;

        for (uint32_t k = 0; k < nkept && !later; k++)
            later = k != a && ac[o->w[near[k]].proc] > o->w[near[k]].pos &&
                    !fails_between(o, near[k], near[a]);
        if (!later && !(chained && chain_over(o, x, c, op, width, ng, near[a])))
            rc = keep_pair(st, o, x, near[a]);
    }
    for (uint32_t a = 0, t = 0; a < nkept && rc == CES_OK; a++) {
        size_t p = near[a], j;

        while (o->group[t + 1] <= p) /* its run */
            t++;
        /* the run's next writes of block b the wait may see, while they run
         * and a write that fails the wait may come after the one before
         * (none after it, none after a later one) */
        while (fails_between(o, p, SIZE_MAX) && !order_over(o) &&
               (j = first_seen(o, t, ng, op, width, o->w[p].pos + 1)) < o->group[t + 1] &&
               o->w[j].block == x->ref.block && !o->dead[o->off[o->w[j].proc] + o->w[j].pos] &&
               !after_wait(o, x, j) && rc == CES_OK) {
            const uint32_t *jc = ow_clock(o, j);
            uint32_t from = o->w[j].later ? 0 : fails_from(o, p, o->w[j].proc);
            bool held;

            if (o->w[j].pos < from) {
                /* held: no failing write between w[p] and w[j], nor, p
                 * going on (fails_from does not fall: the clocks of the
                 * writes that run do not fall along a process, as fail_cut
                 * takes them), between it and any later write of no later
                 * replay before `from`; the walk goes on from the last of
                 * those it reaches, where that runs and is not after the
                 * wait (nor are those before it), and stops where it would
                 * have: fails_between(p, SIZE_MAX) does not turn true again
                 * as p goes on */
                p = seen_last(o, t, ng, j, op, width, from);
                if (o->dead[o->off[o->w[p].proc] + o->w[p].pos] || after_wait(o, x, p))
                    break;
                continue;
            }
            held = !fails_between(o, p, j);
            for (uint32_t k = 0; k < nkept && !held; k++)
                held = k != a && jc[o->w[near[k]].proc] > o->w[near[k]].pos &&
                       !fails_between(o, near[k], j);
            if (!held && !(chained && chain_over(o, x, c, op, width, ng, j)))
                rc = keep_pair(st, o, x, j);
            p = j;
        }
    }
    return rc;
}

/* Adds to o->links the latest event so far of each of rank r's processes
 * of its first `linked` streams: those its processes' first events of a
 * (block, replay) come after. */
static int order_links(struct ces_ctx *ctx, const struct ces_graph *g, struct dot_order *o,
                       uint32_t r, uint32_t linked)
{
    int rc = CES_OK;

    for (uint32_t s = 0; s < linked && rc == CES_OK; s++) {
        uint32_t q = o->proc_of[(size_t)r * g->streams + s], at;

        if (q == UINT32_MAX || o->done[q] == 0)
            continue;
        at = (uint32_t)(o->off[q] + o->done[q] - 1);
        rc = ces_vec_push(ctx, &o->links, sizeof(at), &at);
    }
    return rc;
}

/* The index of rank r's stream s in o->proc_of: of its first `linked`
 * streams, its hardware queue's (the queue map's queue, ces_dot_checked,
 * else the first stream of its queue under `queued` connections, 0 where
 * each stream has its own); from `linked` on (a delayed write's stream),
 * its own. */
static size_t order_place(const struct ces_graph *g, const uint32_t *map, uint32_t queued,
                          uint32_t linked, uint32_t r, uint32_t s)
{
    if (s < linked && map != NULL)
        return (size_t)r * g->streams + map[(size_t)r * linked + s];
    return (size_t)r * g->streams + (s < linked && queued > 0 ? s % queued : s);
}

/* Whether process q's writes w[lo..hi) (one slot's, in place order) have
 * one of the later replays of block b (dot_ow.later). */
static bool later_write(const struct dot_order *o, size_t lo, size_t hi, uint32_t b)
{
    size_t i = later_first(o, lo, hi, b);

    return i < hi && o->w[i].block == b && o->w[i].later;
}

/* A place in one process's writes into a slot, w[lo..hi), in the order
 * they run, a later replay's (dot_ow.later) once for each later replay:
 * w[i] in its k-th later replay (0 the second replay; of another write
 * no meaning), `start` the first of its block's later replay; i SIZE_MAX
 * before the first. */
struct dot_run_at {
    size_t lo, hi, i, start;
    uint64_t k;
};

/* Moves a to the next write as they run; false past the last. */
static bool run_next(const struct dot_order *o, const struct ces_graph *g, struct dot_run_at *a)
{
    const struct dot_ow *w = a->i != SIZE_MAX ? &o->w[a->i] : NULL;

    if (w != NULL && w->later &&
        (a->i + 1 == a->hi || !o->w[a->i + 1].later || o->w[a->i + 1].block != w->block) &&
        a->k + 2 < ces_graph_block(g, w->block).reps) { /* its block's next later replay */
        a->i = a->start;
        a->k++;
        return true;
    }
    a->i = w != NULL ? a->i + 1 : a->lo;
    if (a->i < a->hi && o->w[a->i].later &&
        (a->i == a->lo || !o->w[a->i - 1].later || o->w[a->i - 1].block != o->w[a->i].block)) {
        a->start = a->i; /* the first later replay of its block */
        a->k = 0;
    }
    return a->i < a->hi;
}

/* Where the writes into the slot of chain ch (waits x[i..end), width
 * `width`) that its waits may pass on are all of one other process, which
 * runs them one after another: the waits that need a write (dot_chain),
 * in the order they run (a later replay's once for each later replay),
 * pass on that process's writes in order, those after one of their
 * process's writes on a later write than those before it.  Taking each
 * time the first write it may pass on (the slot's initial 0 before the
 * process's first write where one passes on 0), where none is left a
 * wait never passes: of a first replay, no execution runs it (o->dead);
 * of a later one, its rank's later blocks (o->cut, its process one of the
 * rank's linked ones).  Gives up past a walk of four times the events and
 * writes looked at. */
static void chain_pair(struct dot_order *o, const struct ces_graph *g,
                       const struct dot_chain *ch, uint32_t width, size_t i, size_t end)
{
    uint32_t p = o->x[i].proc, q = UINT32_MAX;
    struct dot_run_at a;
    size_t xi = i, wi = ch->own, xs = i, ws = ch->own;
    uint64_t k = 0, steps = 0, cap;
    uint32_t in = UINT32_MAX; /* the block of the later replay walked */
    bool own = false, fresh = false; /* a write of p before; one since the last wait's */
    uint64_t value = 0;

    for (size_t j = ch->wlo == ch->own ? ch->end : ch->wlo; j < ch->whi;
         j = j + 1 == ch->own ? ch->end : j + 1) {
        if (!chain_holds(ch, width, o->w[j].value))
            continue;
        if (q != UINT32_MAX && o->w[j].proc != q)
            return;
        q = o->w[j].proc;
    }
    if (q == UINT32_MAX)
        return;
    a.lo = ow_at(o->w, ch->wlo, ch->whi, q, 0);
    a.hi = ow_at(o->w, a.lo, ch->whi, q, UINT32_MAX);
    a.i = a.start = SIZE_MAX;
    a.k = 0;
    cap = 4 * ((end - i) + (ch->end - ch->own) + (a.hi - a.lo));
    while (++steps <= cap) {
        const struct dot_ow *nx = xi < end ? &o->x[xi] : NULL;
        const struct dot_ow *nw = wi < ch->end ? &o->w[wi] : NULL;
        const struct dot_ow *next = nx != NULL && (nw == NULL || nx->pos < nw->pos) ? nx : nw;
        bool ok;

        if (in != UINT32_MAX && (next == NULL || !next->later || next->block != in)) {
            if (k + 2 < ces_graph_block(g, in).reps) { /* p's next later replay */
                k++;
                xi = xs;
                wi = ws;
                continue;
            }
            in = UINT32_MAX;
        }
        if (next == NULL)
            return;
        if (in == UINT32_MAX && next->later) {
            in = next->block;
            xs = xi;
            ws = wi;
            k = 0;
        }
        if (next == nw) {
            own = fresh = true;
            value = nw->value;
            wi++;
            continue;
        }
        xi++;
        if ((own && ces_wait_holds(width, nx->cmp, value, nx->value)) ||
            (a.i == SIZE_MAX && !own && ces_wait_holds(width, nx->cmp, 0, nx->value)))
            continue; /* its process's write, or the initial 0 */
        ok = (a.i != SIZE_MAX && !fresh) || run_next(o, g, &a);
        while (ok && !ces_wait_holds(width, nx->cmp, o->w[a.i].value, nx->value)) {
            if (++steps > cap)
                return;
            ok = run_next(o, g, &a);
        }
        fresh = false;
        if (!ok && !nx->later)
            o->dead[o->off[p] + nx->pos] = true;
        if (!ok && nx->later && o->linked[p] && o->cut[o->ev[o->off[p]].ref.rank] > nx->block)
            o->cut[o->ev[o->off[p]].ref.rank] = nx->block;
        if (!ok)
            return;
    }
}

/* Fills o->chain, o->chain_of and o->need from each process's waits into
 * a slot and its writes into it in place order; false where o->chain
 * cannot be had. */
static bool order_chains(struct ces_ctx *ctx, const struct ces_graph *g, struct dot_order *o)
{
    size_t n = 0;

    for (size_t i = 0; i < o->nx; i++)
        n += i == 0 || cmp_ow_slot(&o->x[i - 1], &o->x[i]) != 0 || o->x[i - 1].proc != o->x[i].proc;
    o->chain = ces_malloc(ctx, (n > 0 ? n : 1) * sizeof(*o->chain));
    if (o->chain == NULL)
        return false;
    n = 0;
    for (size_t i = 0, end; i < o->nx; i = end, n++) {
        const struct dot_ow *x0 = &o->x[i];
        struct dot_chain *ch = &o->chain[n];
        uint32_t width = ces_graph_signal(g, x0->sig).width;
        bool own = false, counted = false; /* a write of the process before; the
                                            * segment's need counted */
        uint64_t value = 0, need = 0;
        size_t j;

        memset(ch, 0, sizeof(*ch));
        for (end = i; end < o->nx && o->x[end].proc == x0->proc &&
                      cmp_ow_slot(&o->x[end], x0) == 0;
             end++)
            ;
        ch->wlo = bound(o->w, o->nw, sizeof(*o->w), x0, cmp_ow_slot, false);
        ch->whi = bound(o->w, o->nw, sizeof(*o->w), x0, cmp_ow_slot, true);
        ch->own = ow_at(o->w, ch->wlo, ch->whi, x0->proc, 0);
        ch->end = ow_at(o->w, ch->own, ch->whi, x0->proc, UINT32_MAX);
        j = ch->own;
        for (size_t k = i; k < end; k++) {
            const struct dot_ow *x = &o->x[k];
            size_t e = o->off[x->proc] + x->pos;

            for (; j < ch->end && o->w[j].pos < x->pos; j++) { /* a new segment */
                own = true;
                value = o->w[j].value;
                counted = false;
            }
            if (!own || !ces_wait_holds(width, x->cmp, value, x->value)) {
                bool known = false;

                for (uint32_t c = 0; c < ch->ncond && c < 2 && !known; c++)
                    known = ch->cmp[c] == x->cmp && ch->value[c] == x->value;
                if (!known && ch->ncond < 2) {
                    ch->cmp[ch->ncond] = x->cmp;
                    ch->value[ch->ncond] = x->value;
                }
                ch->ncond += !known && ch->ncond <= 2;
                ch->init = ch->init || !own;
                if (!counted)
                    need += x->later && later_write(o, ch->own, ch->end, x->block)
                                ? ces_graph_block(g, x->block).reps - 1
                                : 1;
                counted = true;
            }
            o->chain_of[e] = (uint32_t)n;
            o->need[e] = need < UINT32_MAX ? (uint32_t)need : UINT32_MAX;
        }
        if (need > 0)
            chain_pair(o, g, ch, width, i, end);
    }
    return true;
}

/* Writes by value, then place in o->w. */
static int cmp_wv(const void *x, const void *y)
{
    const struct dot_wv *a = x, *b = y;

    if (a->value != b->value)
        return a->value < b->value ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Fills o->wv, o->wsame, o->wrun and o->wlater from the sorted writes;
 * false where they cannot be had. */
static bool order_index(struct ces_ctx *ctx, struct dot_order *o)
{
    size_t n = o->nw > 0 ? o->nw : 1;

    o->wv = ces_malloc(ctx, n * sizeof(*o->wv));
    o->wsame = ces_malloc(ctx, n * sizeof(*o->wsame));
    o->wrun = ces_malloc(ctx, n * sizeof(*o->wrun));
    o->wlater = ces_malloc(ctx, n * sizeof(*o->wlater));
    if (o->wv == NULL || o->wsame == NULL || o->wrun == NULL || o->wlater == NULL)
        return false;
    for (size_t lo = 0, hi; lo < o->nw; lo = hi) { /* each slot's */
        hi = bound(o->w, o->nw, sizeof(*o->w), &o->w[lo], cmp_ow_slot, true);
        for (size_t i = lo; i < hi; i++)
            o->wv[i] = (struct dot_wv){o->w[i].value, i};
        qsort(&o->wv[lo], hi - lo, sizeof(*o->wv), cmp_wv);
        for (size_t i = hi; i-- > lo;) { /* within each process's */
            bool last = i + 1 == hi || o->w[i + 1].proc != o->w[i].proc;

            o->wsame[i] = last || o->w[i + 1].value != o->w[i].value ? i + 1 : o->wsame[i + 1];
            o->wrun[i] = last || o->w[i + 1].value < o->w[i].value ? i + 1 : o->wrun[i + 1];
            o->wlater[i] = o->w[i].later ? i : last ? i + 1 : o->wlater[i + 1];
        }
    }
    return true;
}

/* The events of the analysis: every write, wait, record and await of the
 * first two replays of each block (a later replay is taken to be as the
 * second), by process, each process's in its program order; false
 * (nothing built) where their clocks would take more than
 * DOT_ORDER_MAX_CLOCKS entries. */
static int order_build(struct dot_state *st, struct dot_order *o, bool *made)
{
    const struct ces_graph *g = st->g;
    uint32_t nb = ces_graph_nblocks(g), ne = ces_graph_nevents(g), n;
    uint32_t queued = ces_graph_connections(g), linked = g->streams;
    const uint32_t *map = NULL;
    size_t total = 0, *first = NULL; /* first: each process's latest (block, replay) */
    uint32_t *rec = NULL;
    int rc = CES_OK;

    *made = false;
    /* the check's queues, and its delayed writes' streams (from `linked`
     * on), which have queues of their own and take no part in links */
    if (st->chk != NULL) {
        linked = st->chk->linked;
        map = st->chk->queue_map;
    }
    if (queued == CES_CONNECTIONS_ANY || queued >= linked)
        queued = 0;
    o->proc_of = ces_malloc(st->ctx, (size_t)g->ranks * g->streams * sizeof(*o->proc_of));
    rec = ces_malloc(st->ctx, (size_t)(ne > 0 ? ne : 1) * sizeof(*rec));
    if (o->proc_of == NULL || rec == NULL) {
        ces_free(st->ctx, rec);
        return CES_ERR_NOMEM;
    }
    for (size_t i = 0; i < (size_t)g->ranks * g->streams; i++)
        o->proc_of[i] = UINT32_MAX;
    for (int pass = 0; pass < 3; pass++) {
        for (uint32_t r = 0; r < g->ranks; r++) {
            for (uint32_t e = 0; e < ne; e++) /* the rank's latest record of e */
                rec[e] = UINT32_MAX;
            for (uint32_t b = 0; b < nb; b++) {
                uint32_t reps = ces_graph_block(g, b).reps;
                const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

                for (uint32_t inst = 0; inst < reps && inst < 2; inst++) {
                    size_t seg = (size_t)b * 2 + inst, link = SIZE_MAX; /* link: seg's links */
                    bool later = inst == 1 && reps > 2;

                    for (uint32_t k = 0; k < n; k++) {
                        enum ces_op_kind kind = ops[k].kind;
                        uint32_t *q = &o->proc_of[order_place(g, map, queued, linked, r,
                                                              ops[k].stream)];
                        struct dot_ev *ev;

                        if (kind != CES_OP_WRITE && kind != CES_OP_WAIT &&
                            kind != CES_OP_RECORD && kind != CES_OP_AWAIT)
                            continue;
                        if (pass == 0) { /* the processes, rank and stream in order below */
                            *q = 0;
                            total++;
                            continue;
                        }
                        if (pass == 1) {
                            o->off[*q + 1]++;
                            continue;
                        }
                        ev = &o->ev[o->off[*q] + o->done[*q]];
                        ev->link = 0;
                        ev->nlink = 0;
                        if (first[*q] != seg && ops[k].stream < linked) { /* its first here */
                            first[*q] = seg;
                            if (link == SIZE_MAX) { /* before any event of seg */
                                link = o->links.len;
                                rc = order_links(st->ctx, g, o, r, linked);
                                if (rc != CES_OK)
                                    goto out;
                            }
                            ev->link = (uint32_t)link;
                            ev->nlink = (uint32_t)(o->links.len - link);
                        }
                        o->linked[*q] = o->linked[*q] || ops[k].stream < linked;
                        ev->ref = (struct dot_ref){b, r, k};
                        ev->later = later;
                        ev->proc = *q;
                        ev->pos = o->done[*q]++;
                        ev->record = kind == CES_OP_AWAIT ? rec[ops[k].event] : UINT32_MAX;
                        if (kind == CES_OP_RECORD)
                            rec[ops[k].event] = (uint32_t)(ev - o->ev);
                        if (kind == CES_OP_WRITE)
                            o->w[o->nw++] = (struct dot_ow){ops[k].slot.sig, ops[k].slot.rank,
                                                            ops[k].slot.idx, *q, ev->pos, b,
                                                            0, ops[k].value, later};
                        if (kind == CES_OP_WAIT)
                            o->x[o->nx++] = (struct dot_ow){ops[k].slot.sig, ops[k].slot.rank,
                                                            ops[k].slot.idx, *q, ev->pos, b,
                                                            ops[k].cmp, ops[k].value, later};
                    }
                }
            }
        }
        if (pass == 0) {
            for (size_t i = 0; i < (size_t)g->ranks * g->streams; i++) {
                if (o->proc_of[i] == 0)
                    o->proc_of[i] = o->nproc++;
            }
            if (o->nproc == 0 || total > DOT_ORDER_MAX_CLOCKS / o->nproc)
                break;
            o->off = ces_malloc(st->ctx, ((size_t)o->nproc + 1) * sizeof(*o->off));
            o->ev = ces_malloc(st->ctx, total * sizeof(*o->ev));
            o->w = ces_malloc(st->ctx, total * sizeof(*o->w));
            o->x = ces_malloc(st->ctx, total * sizeof(*o->x));
            o->chain_of = ces_malloc(st->ctx, total * sizeof(*o->chain_of));
            o->need = ces_malloc(st->ctx, total * sizeof(*o->need));
            o->dead = ces_malloc(st->ctx, total * sizeof(*o->dead));
            o->over = ces_malloc(st->ctx, (size_t)o->nproc * sizeof(*o->over));
            o->from = ces_malloc(st->ctx, (size_t)o->nproc * sizeof(*o->from));
            o->linked = ces_malloc(st->ctx, (size_t)o->nproc * sizeof(*o->linked));
            o->cut = ces_malloc(st->ctx, (size_t)g->ranks * sizeof(*o->cut));
            o->spent = ces_malloc(st->ctx, (size_t)g->ranks * sizeof(*o->spent));
            o->exact = ces_malloc(st->ctx, (size_t)g->ranks * sizeof(*o->exact));
            o->paired = ces_malloc(st->ctx, (size_t)g->ranks * sizeof(*o->paired));
            o->past = ces_malloc(st->ctx, 2 * DOT_PAST_FACTS * (size_t)o->nproc *
                                          sizeof(*o->past));
            o->anchored = ces_malloc(st->ctx, total * sizeof(*o->anchored));
            o->xrun = ces_malloc(st->ctx, total * sizeof(*o->xrun));
            o->xrise = ces_malloc(st->ctx, total * sizeof(*o->xrise));
            o->two = ces_malloc(st->ctx, 4 * (size_t)o->nproc * sizeof(*o->two));
            o->two_who = ces_malloc(st->ctx, 2 * (size_t)o->nproc * sizeof(*o->two_who));
            o->clock = ces_malloc(st->ctx, total * o->nproc * sizeof(*o->clock));
            o->done = ces_malloc(st->ctx, (size_t)o->nproc * sizeof(*o->done));
            o->low = ces_malloc(st->ctx, 3 * (size_t)o->nproc * sizeof(*o->low));
            o->group = ces_malloc(st->ctx, ((size_t)o->nproc + 1) * sizeof(*o->group));
            o->last = ces_malloc(st->ctx, 3 * (size_t)o->nproc * sizeof(*o->last));
            o->frun = ces_malloc(st->ctx, (2 * (size_t)o->nproc + 1) * sizeof(*o->frun));
            first = ces_malloc(st->ctx, (size_t)o->nproc * sizeof(*first));
            if (o->off == NULL || o->ev == NULL || o->w == NULL || o->x == NULL ||
                o->chain_of == NULL || o->need == NULL || o->dead == NULL ||
                o->over == NULL || o->from == NULL || o->linked == NULL || o->cut == NULL ||
                o->spent == NULL || o->exact == NULL || o->paired == NULL ||
                o->past == NULL || o->anchored == NULL || o->xrun == NULL ||
                o->xrise == NULL || o->two == NULL || o->two_who == NULL ||
                o->clock == NULL || o->done == NULL || o->low == NULL || o->group == NULL ||
                o->last == NULL || o->frun == NULL || first == NULL) {
                rc = CES_ERR_NOMEM;
                break;
            }
            for (uint32_t q = 0; q < o->nproc; q++)
                first[q] = SIZE_MAX;
            memset(o->off, 0, ((size_t)o->nproc + 1) * sizeof(*o->off));
            memset(o->clock, 0, total * o->nproc * sizeof(*o->clock));
            memset(o->dead, 0, total * sizeof(*o->dead));
            memset(o->linked, 0, (size_t)o->nproc * sizeof(*o->linked));
            memset(o->anchored, 0, total * sizeof(*o->anchored));
            for (size_t q = 0; q < (size_t)o->nproc * DOT_PAST_FACTS; q++)
                o->past[q] = UINT32_MAX;
            for (uint32_t r = 0; r < g->ranks; r++) {
                o->cut[r] = o->spent[r] = UINT32_MAX;
                o->exact[r] = 0;
                o->paired[r] = false;
            }
            memset(o->done, 0, (size_t)o->nproc * sizeof(*o->done));
        } else if (pass == 1) {
            for (uint32_t q = 0; q < o->nproc; q++)
                o->off[q + 1] += o->off[q];
        } else {
            *made = true;
        }
    }
out:
    ces_free(st->ctx, rec);
    ces_free(st->ctx, first);
    if (!*made || rc != CES_OK)
        return rc;
    for (uint32_t q = 0; q < o->nproc; q++)
        o->done[q] = 0;
    if (o->nw > 1)
        qsort(o->w, o->nw, sizeof(*o->w), cmp_ow);
    if (o->nx > 1)
        qsort(o->x, o->nx, sizeof(*o->x), cmp_ow);
    for (size_t i = 0; i < o->nx; i++) {
        const struct dot_ow *x = &o->x[i], *y = i > 0 ? x - 1 : NULL;

        o->xrun[i] = y != NULL && cmp_ow_slot(x, y) == 0 && x->proc == y->proc &&
                             x->cmp == y->cmp && x->value == y->value
                         ? o->xrun[i - 1]
                         : (uint32_t)i;
        o->xrise[i] = y != NULL && cmp_ow_slot(x, y) == 0 && x->proc == y->proc &&
                              x->cmp == CES_CMP_GEQ && y->cmp == CES_CMP_GEQ &&
                              y->value <= x->value
                          ? o->xrise[i - 1]
                          : (uint32_t)i;
    }
    memset(o->need, 0, total * sizeof(*o->need));
    if (!order_index(st->ctx, o))
        return CES_ERR_NOMEM;
    return order_chains(st->ctx, g, o) ? CES_OK : CES_ERR_NOMEM;
}

static void order_free(struct ces_ctx *ctx, struct dot_order *o)
{
    ces_free(ctx, o->proc_of);
    ces_free(ctx, o->off);
    ces_free(ctx, o->ev);
    ces_free(ctx, o->w);
    ces_free(ctx, o->x);
    ces_free(ctx, o->chain);
    ces_free(ctx, o->chain_of);
    ces_free(ctx, o->need);
    ces_free(ctx, o->dead);
    ces_free(ctx, o->over);
    ces_free(ctx, o->from);
    ces_free(ctx, o->linked);
    ces_free(ctx, o->cut);
    ces_free(ctx, o->spent);
    ces_free(ctx, o->exact);
    ces_free(ctx, o->paired);
    ces_free(ctx, o->past);
    ces_free(ctx, o->anchored);
    ces_free(ctx, o->xrun);
    ces_free(ctx, o->xrise);
    ces_free(ctx, o->two);
    ces_free(ctx, o->two_who);
    ces_free(ctx, o->clock);
    ces_free(ctx, o->done);
    ces_free(ctx, o->low);
    ces_free(ctx, o->group);
    ces_free(ctx, o->last);
    ces_free(ctx, o->wv);
    ces_free(ctx, o->wsame);
    ces_free(ctx, o->wrun);
    ces_free(ctx, o->wlater);
    ces_free(ctx, o->frun);
    ces_vec_free(ctx, &o->links);
}

/* Fills st->kept, sorted, with each wait's pairs with its nearest writes of
 * its block (keep_nearest), and sets st->skip_near where they leave pairs
 * out (st->nnear of them); where the order is too large to work out
 * (DOT_ORDER_MAX_CLOCKS, DOT_ORDER_MAX_WORK), every pair is drawn; past
 * the picture's deadline (st->sb.deadline), none, CES_ERR_TIMEOUT. */
static int keep_pairs(struct dot_state *st)
{
    struct dot_order o;
    bool made;
    int rc;

    memset(&o, 0, sizeof(o));
    o.deadline = st->sb.deadline;
    rc = order_build(st, &o, &made);
    if (rc == CES_OK && made)
        made = order_run(&o, st->g);
    for (size_t e = 0; made && e < o.off[o.nproc] && rc == CES_OK; e++) {
        if (op_at(st->g, o.ev[e].ref)->kind == CES_OP_WAIT)
            rc = keep_nearest(st, &o, e);
        made = !order_over(&o);
    }
    order_free(st->ctx, &o);
    st->size.order = o.work;
    if (rc == CES_OK && o.late)
        rc = CES_ERR_TIMEOUT;
    if (rc != CES_OK || !made) {
        st->kept.len = 0;
        return rc;
    }
    if (st->kept.len > 1) {
        struct dot_pair *p = st->kept.data;
        size_t n = 1;

        qsort(p, st->kept.len, sizeof(*p), cmp_pair);
        for (size_t i = 1; i < st->kept.len; i++) { /* a pair of both replays once */
            if (cmp_pair(&p[i], &p[n - 1]) != 0)
                p[n++] = p[i];
        }
        st->kept.len = n;
    }
    st->nnear = st->nsame - st->kept.len;
    st->skip_near = st->nnear > 0;
    return CES_OK;
}

/* Draws the pairs of write `ref` (node `from`) among st->kept, its waits
 * in the order of st->waits: block, rank, index. */
static void emit_kept(struct dot_state *st, struct dot_ref ref, const char *from)
{
    const struct dot_pair *p = st->kept.data;
    struct dot_pair key = {{0, 0, 0}, ref};
    size_t i = bound(p, st->kept.len, sizeof(*p), &key, cmp_pair_write, false);
    char to[64];

    for (; i < st->kept.len && cmp_ref(&p[i].write, &ref) == 0; i++) {
        node_id(to, sizeof(to), p[i].wait);
        ces_sb_printf(&st->sb,
                      "%s -> %s [style=dashed, color=\"#1f5fbf\", constraint=false];\n", from,
                      to);
        st->cross++;
        add_span(st, ref, p[i].wait);
    }
}

/* Walks every (write, wait it can satisfy) pair.  emit = false counts them
 * (st->nsame within one block, st->nfar across blocks); emit = true draws
 * them, leaving out the pairs across blocks when st->skip_far is set, and
 * drawing those of st->kept alone when st->skip_near.  A
 * write's pairs are counted from its slot's sorted conditions, and its
 * block's waits looked at alone where no pair across blocks is drawn: a
 * counter written every iteration satisfies every earlier wait, so walking
 * all of them was quadratic in the iterations. */
static void signal_edges(struct dot_state *st, bool emit)
{
    const struct ces_graph *g = st->g;
    uint32_t nb = ces_graph_nblocks(g);
    const struct dot_wait *w = st->waits.data;
    const struct dot_wval *v = st->wvals.data, *bv = st->bvals.data;

    if (st->waits.len == 0)
        return; /* no write has a wait to satisfy (and w is NULL) */
    for (uint32_t b = 0; b < nb; b++) {
        for (uint32_t r = 0; r < g->ranks; r++) {
            uint32_t n = 0;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

            for (uint32_t k = 0; k < n; k++) {
                const struct ces_op *op = &ops[k];
                uint32_t width, dst = op->slot.rank;
                char from[64], to[64];
                struct dot_ref ref = {b, r, k};
                size_t g0, g1, b0, b1, all, same;

                if (op->kind != CES_OP_WRITE)
                    continue;
                width = ces_graph_signal(g, op->slot.sig).width;
                node_id(from, sizeof(from), ref);
                g0 = key_bound(w, st->waits.len, op->slot.sig, dst, op->slot.idx, false);
                g1 = key_bound(w, st->waits.len, op->slot.sig, dst, op->slot.idx, true);
                b0 = g0 + block_bound(w + g0, g1 - g0, b, false);
                b1 = g0 + block_bound(w + g0, g1 - g0, b, true);
                if (emit && st->skip_near) { /* then no pair across blocks is drawn */
                    emit_kept(st, ref, from);
                    continue;
                }
                all = holds_count(v + g0, g1 - g0, width, op->value);
                same = holds_count(bv + b0, b1 - b0, width, op->value);
                if (!emit) {
                    st->nsame += same;
                    st->nfar += all - same;
                    continue;
                }
                /* the waits it satisfies (of its block, or of the slot),
                 * in their order */
                {
                    const struct dot_wval *c = v + g0;
                    size_t rg[6], nh = 0;
                    uint32_t nr;

                    if (st->skip_far || all == same) {
                        c = bv + b0;
                        g1 = b1 - b0;
                    } else {
                        g1 -= g0;
                    }
                    nr = holds_ranges(c, g1, width, op->value, rg);
                    for (uint32_t j = 0; j < nr; j++) {
                        for (size_t i = rg[2 * j]; i < rg[2 * j + 1]; i++)
                            st->hits[nh++] = c[i].at;
                    }
                    if (nh > 1)
                        qsort(st->hits, nh, sizeof(*st->hits), cmp_size);
                    g1 = nh;
                }
                for (size_t h = 0; h < g1; h++) {
                    size_t i = st->hits[h];

                    node_id(to, sizeof(to), w[i].ref);
                    ces_sb_printf(&st->sb,
                                  "%s -> %s [style=dashed, color=\"#1f5fbf\", "
                                  "constraint=false];\n",
                                  from, to);
                    st->cross++;
                    add_span(st, ref, w[i].ref);
                }
            }
        }
    }
}

/* --- record -> await edges ------------------------------------------------ */

/* Each await points at the record it waits for: the latest `record` of its
 * event before it in its rank's enqueue order.  A graph phase is drawn
 * once: from its second replay on, an await that no record of its event
 * precedes within the phase waits for the phase's last one. */
static int emit_event_edges(struct dot_state *st)
{
    const struct ces_graph *g = st->g;
    uint32_t nb = ces_graph_nblocks(g), ne = ces_graph_nevents(g);
    /* [ne]: the latest record of each event, and the last one in the block,
     * of the rank at hand; block UINT32_MAX: none */
    struct dot_ref *last = ces_malloc(st->ctx, (size_t)(ne > 0 ? 2 * ne : 1) * sizeof(*last));
    struct dot_ref *in_block;

    if (last == NULL)
        return CES_ERR_NOMEM;
    in_block = last + ne;
    for (uint32_t r = 0; r < g->ranks; r++) {
        for (uint32_t e = 0; e < ne; e++)
            last[e].block = in_block[e].block = UINT32_MAX;
        for (uint32_t b = 0; b < nb; b++) {
            uint32_t n = 0;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);
            bool again = ces_graph_block(g, b).reps > 1;

            for (uint32_t k = 0; k < n; k++) {
                if (ops[k].kind == CES_OP_RECORD)
                    in_block[ops[k].event] = (struct dot_ref){b, r, k};
            }
            for (uint32_t k = 0; k < n; k++) {
                const struct dot_ref *from[2] = {NULL, NULL};
                uint32_t e = ops[k].event;
                char id[64], to[64];

                if (ops[k].kind == CES_OP_RECORD)
                    last[e] = (struct dot_ref){b, r, k};
                if (ops[k].kind != CES_OP_AWAIT)
                    continue;
                if (last[e].block != UINT32_MAX)
                    from[0] = &last[e];
                if (again && last[e].block != b && in_block[e].block == b)
                    from[1] = &in_block[e];
                node_id(to, sizeof(to), (struct dot_ref){b, r, k});
                for (int i = 0; i < 2; i++) {
                    if (from[i] == NULL)
                        continue;
                    node_id(id, sizeof(id), *from[i]);
                    ces_sb_printf(&st->sb,
                                  "%s -> %s [style=dotted, color=\"#7b3fa0\", penwidth=1.5, "
                                  "constraint=false];\n",
                                  id, to);
                    st->cross++;
                    add_span(st, *from[i], (struct dot_ref){b, r, k});
                }
            }
        }
    }
    ces_free(st->ctx, last);
    return CES_OK;
}

/* --- data edges ---------------------------------------------------------- */

/* The region of one op in one block, indexed so that the ops whose regions
 * overlap a given region are found without scanning the block: spans are
 * sorted by key (buffer, rank), then lo; `reach` is the largest hi of the
 * span and of those before it with the same key, so a backwards walk from
 * the last span starting below a region's hi stops at the first span whose
 * reach does not get past the region's lo. */
struct dot_span {
    uint32_t buf, rank; /* the key: regions overlap only within one key */
    uint64_t lo, hi;
    uint64_t reach;
    uint32_t op_rank, index; /* the op: its rank, its index in the rank's list */
};

/* What the data edges of one remote copy need: its ordinal among the copies
 * of its block that write into its destination, their count, and the ops
 * of the destination's rank that read it (lists[first..first + nreaders),
 * indices ascending). */
struct dot_copy {
    uint32_t ordinal, nwriters;
    size_t first, nreaders;
};

/* The index of one block, rebuilt per block and reused. */
struct dot_data {
    struct ces_vec writers; /* struct dot_span: the destinations of the copies */
    struct ces_vec readers; /* struct dot_span: what copies and consumes read */
    struct ces_vec found;   /* uint64_t: (rank << 32 | index) of overlapping ops */
    struct ces_vec lists;   /* uint32_t: the readers of each distinct destination */
    struct dot_copy *copies; /* [ops of the block], by the op's place in the block */
};

static int cmp_span(const void *x, const void *y)
{
    const struct dot_span *a = x, *b = y;

    if (a->buf != b->buf)
        return a->buf < b->buf ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    if (a->op_rank != b->op_rank)
        return a->op_rank < b->op_rank ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Adds the span of region `reg` of op (r, k). */
static int push_span(struct ces_ctx *ctx, struct ces_vec *v, const struct ces_region *reg,
                     uint32_t r, uint32_t k)
{
    struct dot_span sp = {reg->buf, reg->rank, reg->lo, reg->hi, 0, r, k};

    return ces_vec_push(ctx, v, sizeof(sp), &sp);
}

/* Sorts the spans and computes their reach. */
static void index_spans(struct ces_vec *v)
{
    struct dot_span *sp = v->data;

    if (v->len > 1)
        qsort(sp, v->len, sizeof(*sp), cmp_span);
    for (size_t i = 0; i < v->len; i++) {
        bool same = i > 0 && sp[i - 1].buf == sp[i].buf && sp[i - 1].rank == sp[i].rank;

        sp[i].reach = same && sp[i - 1].reach > sp[i].hi ? sp[i - 1].reach : sp[i].hi;
    }
}

/* The ops of the spans in v that overlap region reg, as (rank << 32 | index)
 * into `found` (emptied first), ascending: ranks, then indices. */
static int overlapping(struct ces_ctx *ctx, const struct ces_vec *v,
                       const struct ces_region *reg, struct ces_vec *found)
{
    const struct dot_span *sp = v->data;
    size_t lo = 0, hi = v->len;

    found->len = 0;
    /* first span with a key above reg's, or reg's key and lo >= reg->hi */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct dot_span *m = &sp[mid];
        bool below = m->buf != reg->buf ? m->buf < reg->buf
                     : m->rank != reg->rank ? m->rank < reg->rank
                                            : m->lo < reg->hi;

        if (below)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;) {
        uint64_t op = (uint64_t)sp[i].op_rank << 32 | sp[i].index;

        if (sp[i].buf != reg->buf || sp[i].rank != reg->rank || sp[i].reach <= reg->lo)
            break;
        if (sp[i].hi > reg->lo && ces_vec_push(ctx, found, sizeof(op), &op) != CES_OK)
            return CES_ERR_NOMEM;
    }
    if (found->len > 1)
        qsort(found->data, found->len, sizeof(uint64_t), ces_cmp_u64);
    return CES_OK;
}

/* Fills dd->copies for the copies into another rank in block b.  Copies
 * with the same destination are adjacent among the sorted writers: their
 * writers and readers are looked up once. */
static int index_block(struct dot_state *st, struct dot_data *dd, uint32_t b)
{
    const struct ces_graph *g = st->g;
    size_t base = st->node_base[(size_t)b * g->ranks];
    const struct dot_span *w;
    int rc = CES_OK;

    dd->writers.len = dd->readers.len = dd->lists.len = 0;
    for (uint32_t r = 0; r < g->ranks && rc == CES_OK; r++) {
        uint32_t n = 0;
        const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

        for (uint32_t k = 0; k < n && rc == CES_OK; k++) {
            if (ops[k].kind == CES_OP_COPY)
                rc = push_span(st->ctx, &dd->writers, &ops[k].b, r, k);
            /* the readers of a copy into rank d are ops of rank d, and a
             * region overlaps only regions of its own rank */
            if (rc == CES_OK && (ops[k].kind == CES_OP_COPY || ops[k].kind == CES_OP_CONSUME) &&
                ops[k].a.rank == r)
                rc = push_span(st->ctx, &dd->readers, &ops[k].a, r, k);
        }
    }
    if (rc != CES_OK)
        return rc;
    index_spans(&dd->writers);
    index_spans(&dd->readers);
    w = dd->writers.data;
    for (size_t i = 0, j; i < dd->writers.len; i = j) {
        struct ces_region dst = {w[i].buf, w[i].rank, w[i].lo, w[i].hi};
        size_t first = dd->lists.len, nreaders;
        bool remote = false;

        for (j = i; j < dd->writers.len && w[j].buf == dst.buf && w[j].rank == dst.rank &&
                    w[j].lo == dst.lo && w[j].hi == dst.hi;
             j++)
            remote = remote || w[j].op_rank != dst.rank;
        if (!remote)
            continue;
        rc = overlapping(st->ctx, &dd->readers, &dst, &dd->found);
        if (rc == CES_OK)
            rc = ces_vec_reserve(st->ctx, &dd->lists, sizeof(uint32_t), dd->found.len);
        if (rc != CES_OK)
            return rc;
        for (size_t f = 0; f < dd->found.len; f++)
            CES_VEC_AT(&dd->lists, uint32_t, dd->lists.len++) =
                (uint32_t)CES_VEC_AT(&dd->found, uint64_t, f);
        nreaders = dd->found.len;
        rc = overlapping(st->ctx, &dd->writers, &dst, &dd->found);
        if (rc != CES_OK)
            return rc;
        for (size_t c = i; c < j; c++) {
            const uint64_t *fw = dd->found.data;
            uint64_t self = (uint64_t)w[c].op_rank << 32 | w[c].index;
            size_t lo = 0, hi = dd->found.len;
            struct dot_copy *cp;

            if (w[c].op_rank == dst.rank)
                continue;
            while (lo < hi) { /* the writers before this copy */
                size_t mid = lo + (hi - lo) / 2;

                if (fw[mid] < self)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            cp = &dd->copies[st->node_base[(size_t)b * g->ranks + w[c].op_rank] - base +
                             w[c].index];
            cp->ordinal = (uint32_t)lo;
            cp->nwriters = (uint32_t)dd->found.len;
            cp->first = first;
            cp->nreaders = nreaders;
        }
    }
    return CES_OK;
}

/* A copy into another rank points at the ops of that rank (same block) that
 * read what it wrote.  When as many copies write the region as ops read it
 * (a staging slot reused chunk after chunk), the i-th writer goes to the
 * i-th reader only. */
static int emit_data_edges(struct dot_state *st)
{
    const struct ces_graph *g = st->g;
    uint32_t nb = ces_graph_nblocks(g);
    struct dot_data dd;
    size_t most = 0;
    int rc = CES_OK;

    memset(&dd, 0, sizeof(dd));
    for (uint32_t b = 0; b < nb; b++) {
        size_t n = st->node_base[(size_t)(b + 1) * g->ranks] - st->node_base[(size_t)b * g->ranks];

        most = n > most ? n : most;
    }
    dd.copies = ces_malloc(st->ctx, (most + 1) * sizeof(*dd.copies));
    if (dd.copies == NULL)
        return CES_ERR_NOMEM;
    for (uint32_t b = 0; b < nb && rc == CES_OK; b++) {
        size_t base = st->node_base[(size_t)b * g->ranks];

        rc = index_block(st, &dd, b);
        for (uint32_t r = 0; r < g->ranks && rc == CES_OK; r++) {
            uint32_t n = 0;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

            for (uint32_t k = 0; k < n; k++) {
                const struct dot_copy *cp =
                    &dd.copies[st->node_base[(size_t)b * g->ranks + r] - base + k];
                const uint32_t *rd;
                char from[64], to[64];

                if (ops[k].kind != CES_OP_COPY || ops[k].b.rank == r || cp->nreaders == 0)
                    continue;
                rd = (const uint32_t *)dd.lists.data + cp->first;
                node_id(from, sizeof(from), (struct dot_ref){b, r, k});
                for (size_t j = 0; j < cp->nreaders; j++) {
                    if (cp->nwriters != cp->nreaders || j == cp->ordinal) {
                        struct dot_ref reader = {b, ops[k].b.rank, rd[j]};

                        node_id(to, sizeof(to), reader);
                        ces_sb_printf(&st->sb,
                                      "%s -> %s [color=\"#c0392bb0\", penwidth=1.8, "
                                      "constraint=false];\n",
                                      from, to);
                        st->cross++;
                        add_span(st, (struct dot_ref){b, r, k}, reader);
                    }
                }
            }
        }
    }
    ces_vec_free(st->ctx, &dd.writers);
    ces_vec_free(st->ctx, &dd.readers);
    ces_vec_free(st->ctx, &dd.found);
    ces_vec_free(st->ctx, &dd.lists);
    ces_free(st->ctx, dd.copies);
    return rc;
}

/* --- the wait-for cycle ---------------------------------------------------- */

/* The node an edge of the cycle meets at op `ref`, into id, and where the
 * op is a `batch` or an `end` (no node of its own) its batch's box into
 * box (else ""), the edge clipped there: the batch's first copy, or its
 * "no copies" node; false where the batch has neither (a batch without
 * copies that the overlay does not mark blocked). */
static bool cycle_end(const struct dot_state *st, struct dot_ref ref, char *id, size_t size,
                      char *box, size_t bsize)
{
    uint32_t n = 0, k = ref.index, at;
    const struct ces_op *ops = ces_graph_ops(st->g, ref.block, ref.rank, &n);
    bool empty;

    box[0] = '\0';
    if (ops[k].kind != CES_OP_BATCH && ops[k].kind != CES_OP_END) {
        node_id(id, size, ref);
        return true;
    }
    if (ops[k].kind == CES_OP_END) { /* its batch's start */
        while (k > 0 && (ops[k].stream != ops[ref.index].stream || ops[k].kind != CES_OP_BATCH))
            k--;
    }
    snprintf(box, bsize, "cluster_batch_%" PRIu32 "_%" PRIu32 "_%" PRIu32, ref.block, ref.rank,
             k);
    for (uint32_t j = k + 1; j < n && ops[j].kind != CES_OP_END; j++) {
        if (ops[j].stream == ops[k].stream) {
            node_id(id, size, (struct dot_ref){ref.block, ref.rank, j});
            return true;
        }
    }
    if (batch_blocked(st, ref.block, ref.rank, k, &empty, &at) == NULL)
        return false;
    empty_id(id, size, ref.block, ref.rank, k);
    return true;
}

/* The overlay's wait-for cycle: an edge from each op to the one it waits
 * for, the last to the first. */
static void emit_cycle(struct dot_state *st)
{
    size_t n = st->ov != NULL ? st->ov->ncycle : 0;

    for (size_t i = 0; i < n; i++) {
        const struct ces_dot_mark *a = &st->ov->cycle[i], *b = &st->ov->cycle[(i + 1) % n];
        char from[64], to[64], tail[96], head[96];

        if (!cycle_end(st, (struct dot_ref){a->block, a->rank, a->index}, from, sizeof(from),
                       tail, sizeof(tail)) ||
            !cycle_end(st, (struct dot_ref){b->block, b->rank, b->index}, to, sizeof(to), head,
                       sizeof(head)))
            continue;
        ces_sb_printf(&st->sb, "%s -> %s [color=\"#8b0000\", penwidth=3.5, arrowsize=1, "
                      "constraint=false", from, to);
        if (tail[0] != '\0')
            ces_sb_printf(&st->sb, ", ltail=%s", tail);
        if (head[0] != '\0')
            ces_sb_printf(&st->sb, ", lhead=%s", head);
        ces_sb_puts(&st->sb, "];\n");
        st->cross++;
    }
}

/* --- overlay, legend, entry points --------------------------------------- */

/* Counts a BLOCKED or STOPPED mark of replay rep into *n, keeping the
 * first few replays in reps (the same replay twice in a row once). */
static void add_rep(uint32_t *n, uint32_t *reps, uint32_t rep)
{
    if (*n > 0 && *n <= 4 && reps[*n - 1] == rep)
        return;
    if (*n < 4)
        reps[*n] = rep;
    (*n)++;
}

/* Whether mark mk (`what` m`tail`: "mark 3", "op 1 of the cycle") names
 * a block, rank, op and replay the graph has; the error where not. */
static int check_place(const struct dot_state *st, const struct ces_dot_mark *mk,
                       const char *what, size_t m, const char *tail)
{
    const struct ces_graph *g = st->g;
    uint32_t nb = ces_graph_nblocks(g), n = 0;

    if (mk->block >= nb || mk->rank >= g->ranks)
        return ces_ctx_error(st->ctx, CES_ERR_INVALID,
                             "dot overlay: %s %zu%s names block %" PRIu32 " rank %" PRIu32
                             ", but the graph has %" PRIu32 " blocks and %" PRIu32 " ranks",
                             what, m, tail, mk->block, mk->rank, nb, g->ranks);
    ces_graph_ops(g, mk->block, mk->rank, &n);
    if (mk->index >= n)
        return ces_ctx_error(st->ctx, CES_ERR_INVALID,
                             "dot overlay: %s %zu%s names op %" PRIu32 " of rank %" PRIu32
                             " in block %" PRIu32 ", which has %" PRIu32 " ops",
                             what, m, tail, mk->index, mk->rank, mk->block, n);
    if (mk->rep >= ces_graph_block(g, mk->block).reps)
        return ces_ctx_error(st->ctx, CES_ERR_INVALID,
                             "dot overlay: %s %zu%s names replay %" PRIu32 " of block %" PRIu32
                             ", which has %" PRIu32 " replays",
                             what, m, tail, mk->rep, mk->block, ces_graph_block(g, mk->block).reps);
    return CES_OK;
}

static int load_marks(struct dot_state *st)
{
    const struct ces_graph *g = st->g;
    uint32_t nb = ces_graph_nblocks(g);
    size_t total = 0;

    st->node_base = ces_malloc(st->ctx, ((size_t)nb * g->ranks + 1) * sizeof(size_t));
    if (st->node_base == NULL)
        return ces_ctx_error(st->ctx, CES_ERR_NOMEM, "out of memory drawing the graph");
    for (uint32_t b = 0; b < nb; b++) {
        for (uint32_t r = 0; r < g->ranks; r++) {
            uint32_t n = 0;

            ces_graph_ops(g, b, r, &n);
            st->node_base[(size_t)b * g->ranks + r] = total;
            total += n;
        }
    }
    st->node_base[(size_t)nb * g->ranks] = total;
    if (st->ov != NULL && st->ov->ncycle > 0) {
        if (st->ov->cycle == NULL)
            return ces_ctx_error(st->ctx, CES_ERR_INVALID, "dot overlay: ncycle is %zu but cycle "
                                 "is NULL", st->ov->ncycle);
        for (size_t m = 0; m < st->ov->ncycle; m++) {
            int rc = check_place(st, &st->ov->cycle[m], "op", m, " of the cycle");

            if (rc != CES_OK)
                return rc;
        }
    }
    if (st->ov == NULL || st->ov->nmarks == 0)
        return CES_OK;
    if (st->ov->marks == NULL)
        return ces_ctx_error(st->ctx, CES_ERR_INVALID, "dot overlay: nmarks is %zu but marks "
                             "is NULL", st->ov->nmarks);
    st->marks = ces_malloc(st->ctx, (total + 1) * sizeof(*st->marks));
    if (st->marks == NULL)
        return ces_ctx_error(st->ctx, CES_ERR_NOMEM, "out of memory drawing the graph");
    memset(st->marks, 0, (total + 1) * sizeof(*st->marks));
    for (size_t m = 0; m < st->ov->nmarks; m++) {
        const struct ces_dot_mark *mk = &st->ov->marks[m];
        struct dot_mark_info *mi;
        int rc = check_place(st, mk, "mark", m, "");

        if (rc != CES_OK)
            return rc;
        if (mk->style > CES_DOT_STOPPED)
            return ces_ctx_error(st->ctx, CES_ERR_INVALID,
                                 "dot overlay: mark %zu has unknown style %" PRIu32, m,
                                 mk->style);
        mi = &st->marks[st->node_base[(size_t)mk->block * g->ranks + mk->rank] + mk->index];
        mi->style_bits |= 1u << mk->style;
        st->both |= (mi->style_bits & DOT_BLOCKED_STOPPED) == DOT_BLOCKED_STOPPED;
        if (mk->style == CES_DOT_BLOCKED)
            add_rep(&mi->nblocked, mi->blocked_reps, mk->rep);
        if (mk->style == CES_DOT_STOPPED)
            add_rep(&mi->nstopped, mi->stopped_reps, mk->rep);
        /* A node may carry a step mark and a race mark of the same step:
         * print each step number once. */
        if (mk->step != 0 && !(mi->nsteps > 0 && mi->nsteps <= 4 &&
                               mi->steps[mi->nsteps - 1] == mk->step)) {
            if (mi->nsteps < 4)
                mi->steps[mi->nsteps] = mk->step;
            mi->nsteps++;
        }
    }
    return CES_OK;
}

static void emit_legend(struct dot_state *st)
{
    ces_sb_puts(&st->sb,
                "legend [shape=note, style=filled, fillcolor=\"#fbfbfb\", color=\"#999999\", "
                "fontsize=10, label=\"legend\\l"
                "gray arrow: program order of a stream\\l"
                "dashed blue: write -> a wait it can satisfy\\l"
                "bold red: copy into another rank -> what reads it\\l"
                "green box: one batch (its copies are unordered)\\l"
                "blue write, yellow wait, green copy, gray produce/consume\\l");
    if (ces_graph_nevents(st->g) > 0)
        ces_sb_puts(&st->sb, "dotted purple: record -> an await that waits for it\\l");
    if (st->marks != NULL)
        ces_sb_puts(&st->sb, "overlay: steps numbered, red = blocked (or released by the "
                             "watchdog), teal = stopped by a fault, orange = race, "
                             "magenta = found wrong bytes\\l");
    if (st->ov != NULL && st->ov->ncycle == 1)
        ces_sb_puts(&st->sb, "thick dark red loop: the deadlock's cycle of one op, which waits "
                             "for itself (for a later op of its own stream)\\l");
    else if (st->ov != NULL && st->ov->ncycle > 0)
        ces_sb_puts(&st->sb, "thick dark red: the deadlock's cycle, an op -> the op it waits "
                             "for\\l");
    if (st->both)
        ces_sb_puts(&st->sb, "red and teal halves: blocked (or released by the watchdog) in one "
                             "replay, stopped by a fault before another\\l");
    if (st->skip_far)
        ces_sb_printf(&st->sb, "(%zu write -> wait edges between different blocks not drawn)\\l",
                      st->nfar);
    if (st->skip_near)
        ces_sb_printf(&st->sb, "(%zu write -> wait edges within a block not drawn: a wait "
                      "from its nearest writes alone)\\l", st->nnear);
    ces_sb_puts(&st->sb, "\"];\n");
}

int ces_dot_emit(struct ces_ctx *ctx, const struct ces_graph *g,
                 const struct ces_dot_overlay *overlay, char **text, size_t *len)
{
    return ces_dot_emit_sized(ctx, g, overlay, NULL, text, len, NULL, 0);
}

int ces_dot_emit_sized(struct ces_ctx *ctx, const struct ces_graph *g,
                       const struct ces_dot_overlay *overlay,
                       const struct ces_dot_checked *checked, char **text, size_t *len,
                       struct ces_dot_size *size, double deadline)
{
    struct dot_state st;
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (g == NULL || text == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_dot_emit: NULL argument");
    *text = NULL;
    if (size != NULL)
        size->nodes = size->span = size->order = 0;
    if (len != NULL)
        *len = 0;
    memset(&st, 0, sizeof(st));
    st.ctx = ctx;
    st.g = g;
    st.ov = overlay;
    assert(checked == NULL || checked->linked <= g->streams);
    st.chk = checked;
    ces_sb_init(&st.sb, ctx);
    st.sb.deadline = deadline;
    rc = load_marks(&st);
    if (rc != CES_OK)
        goto free_state;
    ces_sb_puts(&st.sb,
                "digraph cesync {\n"
                "graph [rankdir=TB, newrank=true, compound=true, nodesep=0.12, ranksep=0.14, "
                "fontname=\"Helvetica\", fontsize=11");
    if (overlay != NULL && overlay->title != NULL) {
        ces_sb_puts(&st.sb, ", labelloc=t, fontsize=16, label=\"");
        put_escaped(&st.sb, overlay->title);
        ces_sb_puts(&st.sb, "\"");
    }
    ces_sb_puts(&st.sb, "];\n"
                        "node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
                        "fontsize=9, height=0.3, margin=\"0.06,0.02\"];\n"
                        "edge [arrowsize=0.5];\n");
    rc = collect_waits(&st);
    if (rc == CES_OK)
        rc = lane_levels(&st);
    if (rc != CES_OK) {
        ces_ctx_error(ctx, rc, "out of memory drawing the graph");
        goto free_state;
    }
    signal_edges(&st, false);
    st.skip_far = st.nfar > 0 && st.nsame + st.nfar > DOT_MAX_SIGNAL_EDGES;
    /* an overlay of a check not known: every pair (DOT_MAX_SIGNAL_EDGES) */
    if (st.nsame > DOT_MAX_SIGNAL_EDGES && (overlay == NULL || checked != NULL))
        rc = keep_pairs(&st);
    if (rc == CES_ERR_TIMEOUT) {
        ces_ctx_error(ctx, rc, "the time bound passed while the order of its writes and waits "
                      "was worked out");
        goto free_state;
    }
    if (rc != CES_OK) {
        ces_ctx_error(ctx, rc, "out of memory drawing the graph");
        goto free_state;
    }
    emit_legend(&st);
    rc = emit_clusters(&st);
    if (rc != CES_OK) {
        ces_ctx_error(ctx, rc, "out of memory drawing the graph");
        goto free_state;
    }
    if (st.sb.status != CES_OK) /* (a deadline passed in the nodes: no edges) */
        goto finish;
    emit_rank_order(&st);
    emit_order_edges(&st);
    signal_edges(&st, true);
    rc = emit_event_edges(&st);
    if (rc == CES_OK)
        rc = emit_data_edges(&st);
    emit_cycle(&st);
    if (rc != CES_OK) {
        ces_ctx_error(ctx, rc, "out of memory drawing the graph");
        goto free_state;
    }
    if (st.cross > DOT_LARGE_EDGES)
        ces_sb_puts(&st.sb, "graph [splines=line, remincross=false, mclimit=0.01, "
                            "nslimit=0.5, nslimit1=0.5];\n");
    ces_sb_puts(&st.sb, "}\n");
finish:
    rc = ces_sb_finish(&st.sb, text, len);
    if (rc == CES_ERR_TIMEOUT)
        ces_ctx_error(ctx, rc, "the time bound passed while its dot text was written");
    else if (rc != CES_OK)
        ces_ctx_error(ctx, rc, "out of memory drawing the graph");
    else if (size != NULL)
        *size = st.size;
    goto free_marks;
free_state:
    ces_sb_free(&st.sb);
free_marks:
    ces_vec_free(ctx, &st.waits);
    ces_vec_free(ctx, &st.wvals);
    ces_vec_free(ctx, &st.bvals);
    ces_free(ctx, st.hits);
    ces_vec_free(ctx, &st.kept);
    ces_free(ctx, st.marks);
    ces_free(ctx, st.level);
    ces_free(ctx, st.node_base);
    return rc;
}

/* --- writing and rendering ------------------------------------------------ */

const char *ces_dot_format(const char *path)
{
    static const char *const formats[] = {"dot", "svg", "png"};
    size_t n = strlen(path);

    if (n < 4 || path[n - 4] != '.')
        return NULL;
    for (size_t k = 0; k < sizeof(formats) / sizeof(formats[0]); k++) {
        size_t i = 0;

        while (i < 3 && tolower((unsigned char)path[n - 3 + i]) == formats[k][i])
            i++;
        if (i == 3)
            return formats[k];
    }
    return NULL;
}

bool ces_find_program(const char *name, char *buf, size_t size)
{
    const char *path = getenv("PATH");

    while (path != NULL && *path != '\0') {
        const char *colon = strchr(path, ':');
        size_t n = colon != NULL ? (size_t)(colon - path) : strlen(path);
        struct stat sb;

        if (n == 0)
            snprintf(buf, size, "./%s", name);
        else
            snprintf(buf, size, "%.*s/%s", (int)n, path, name);
        if (stat(buf, &sb) == 0 && S_ISREG(sb.st_mode) && access(buf, X_OK) == 0)
            return true;
        path = colon != NULL ? colon + 1 : NULL;
    }
    return false;
}

/* Creates render's temporary file in ces_tmp_dir, already unlinked: its
 * descriptor, or -1 with the context's error set, naming the directory
 * (and TMPDIR when it came from there) and the picture `path` it was for
 * (NULL: none, a probe). */
static int tmp_open(struct ces_ctx *ctx, const char *path)
{
    const char *env, *dir = ces_tmp_dir(&env);
    char tmpl[4096];
    int fd;

    snprintf(tmpl, sizeof(tmpl), "%s/cesync-dot-XXXXXX", dir);
    fd = mkstemp(tmpl);
    if (fd >= 0) {
        unlink(tmpl);
        /* Graphviz gets it as its standard input only */
        fd = ces_file_fd_own(fd);
    }
    if (fd < 0) {
        int err = errno;

        if (path != NULL)
            ces_ctx_error(ctx, CES_ERR_IO,
                          "cannot write %s: cannot create a temporary file in %s%s: %s", path,
                          dir, env, strerror(err));
        else
            ces_ctx_error(ctx, CES_ERR_IO, "cannot create a temporary file in %s%s: %s", dir,
                          env, strerror(err));
        return -1;
    }
    return fd;
}

int ces_dot_tmp_probe(struct ces_ctx *ctx)
{
    int fd = tmp_open(ctx, NULL);

    if (fd < 0)
        return CES_ERR_IO;
    close(fd);
    return CES_OK;
}

/* The words of a failed allocation in what Graphviz and the libraries it
 * draws with print on standard error, in any case: Graphviz's own "out of
 * memory" (2.43 says it and dies of SIGSEGV, later ones exit 1; cairo's
 * "out of memory" too), GLib's "failed to allocate" (then it aborts),
 * strerror(ENOMEM)'s "Cannot allocate memory", "allocation failure", and
 * GLib's thread that could not be made, EAGAIN (then it aborts, SIGTRAP):
 * the bound (RLIMIT_DATA) counts each thread's stack, and Pango (1.50)
 * makes threads for fontconfig as it measures the labels, so that a dot
 * that ran out of its memory making one, its heap well under half the
 * bound (held_half), was said failing as any other, exit 2; the threads
 * alive at once, stacks of 16 MiB each, are those the scheduling leaves,
 * so a dot that ran out of its heap first under no load did so rarely
 * under load (1 in 20 runs, 24 MB resident under 80 MiB). */
static const char *const oom_words[] = {"out of memory", "failed to allocate",
                                        "cannot allocate memory", "allocation failure",
                                        "error creating thread: resource temporarily unavailable"};
#define OOM_WORD_MAX 64 /* the longest's length, and more */

/* Dot's standard error, relayed to this process's as it comes and looked
 * at for oom_words: fd the reading end of its pipe (non-blocking; -1:
 * none), tail the last bytes of what came before (lower case), so that
 * words split between two reads are found. */
struct dot_err {
    int fd;
    bool oom;
    size_t tlen;
    char tail[OOM_WORD_MAX];
};

/* Relays what dot's standard error holds now (all of it where `all`, up
 * to its end; else one read at most); closes it at its end. */
static void err_relay(struct dot_err *e, bool all)
{
    char buf[4096], look[OOM_WORD_MAX + sizeof(buf)];

    while (e->fd >= 0) {
        ssize_t n = read(e->fd, buf, sizeof(buf));
        size_t m;

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 && !(n < 0 && errno == EAGAIN && !all)) {
            close(e->fd); /* its end (or an error: nothing more comes) */
            e->fd = -1;
        }
        if (n <= 0)
            return;
        (void)ces_write_all(STDERR_FILENO, buf, (size_t)n);
        memcpy(look, e->tail, e->tlen);
        m = e->tlen;
        for (ssize_t k = 0; k < n; k++)
            look[m++] = (char)tolower((unsigned char)buf[k]);
        for (size_t w = 0; w < sizeof(oom_words) / sizeof(oom_words[0]) && !e->oom; w++) {
            size_t wl = strlen(oom_words[w]);

            for (size_t at = 0; at + wl <= m && !e->oom; at++)
                e->oom = memcmp(look + at, oom_words[w], wl) == 0;
        }
        e->tlen = m < sizeof(e->tail) ? m : sizeof(e->tail);
        memmove(e->tail, look + m - e->tlen, e->tlen);
        if (!all)
            return;
    }
}

/* The bytes that out_fd, a pipe (a named pipe), holds (FIONREAD), where b
 * has a stall; -1 for any other file (or no stall). */
static int pipe_held(int out_fd, const struct ces_dot_bounds *b)
{
    struct stat sb;
    int q;

    return b->stall > 0 && fstat(out_fd, &sb) == 0 && S_ISFIFO(sb.st_mode) &&
                   ioctl(out_fd, FIONREAD, &q) == 0
               ? q
               : -1;
}

/* Waits for the dot of pid into *status, its standard error relayed
 * (err: err_relay) as it comes.  Past b's deadline it is ended (SIGKILL),
 * 1; where b has a stall and out_fd, dot's standard output, is a pipe (a
 * named pipe) that held `least` bytes before dot started (pipe_held; -1:
 * none of these), ended too, 2, once the bytes the pipe holds stood above
 * the least it held, unchanged, and its reader read none of them (an
 * inotify watch's IN_ACCESS), for b->stall seconds: dot waits to write
 * for a reader that takes none (it waited for ever, or until
 * --max-seconds).  The bytes alone do not tell a slow reader: each page
 * it takes whole frees room that dot, waiting to write, fills at once, so
 * that a full pipe read 4 KiB at a time looks full at every look (dot was
 * ended under a reader of 20 KiB a second).  -1 where waitpid fails, else
 * 0. */
static int wait_by(pid_t pid, int *status, const struct ces_dot_bounds *b, int out_fd,
                   int least, struct dot_err *err)
{
    struct timespec pause = {0, 10000000};
    bool looks = least >= 0;
    bool polls = b->deadline > 0 || looks || err->fd >= 0;
    int killed = 0, held = -1, q, reads = -1;
    double took = 0; /* when the pipe's bytes last changed, or stood at their least */

    /* the reads of out_fd's file (by any reader), without that: the bytes
     * alone */
    if (looks && (reads = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) >= 0) {
        char name[64];

        snprintf(name, sizeof(name), "/proc/self/fd/%d", out_fd);
        if (inotify_add_watch(reads, name, IN_ACCESS) < 0) {
            close(reads);
            reads = -1;
        }
    }
    for (;;) {
        pid_t w = waitpid(pid, status, polls && killed == 0 ? WNOHANG : 0);
        double now;

        if (w == pid || (w < 0 && errno != EINTR)) {
            int e = errno;

            if (reads >= 0)
                close(reads);
            errno = e;
            if (w < 0)
                return -1;
            err_relay(err, true);
            return killed;
        }
        if (w != 0)
            continue;
        now = ces_now();
        if (b->deadline > 0 && now >= b->deadline)
            killed = 1;
        if (killed == 0 && looks && ioctl(out_fd, FIONREAD, &q) == 0) {
            char ev[sizeof(struct inotify_event) + NAME_MAX + 1];
            bool read_some = false;

            while (reads >= 0 && read(reads, ev, sizeof(ev)) > 0)
                read_some = true;
            if (q != held || q <= least || read_some)
                took = now;
            least = q < least ? q : least;
            held = q;
            if (now >= took + b->stall)
                killed = 2;
        }
        if (killed != 0) {
            kill(pid, SIGKILL);
        } else if (err->fd >= 0) {
            struct pollfd p = {err->fd, POLLIN, 0};

            if (poll(&p, 1, 10) > 0)
                err_relay(err, false);
        } else {
            nanosleep(&pause, NULL);
        }
    }
}

/* What ces_dot_memory_floor adds to the threads' stacks, and the stacks
 * it counts: the smallest picture's dot (Graphviz 2.43, glibc 2.36) drew
 * a .png in 7 MB of data with stacks of 1 MiB, in 28 MB with 8 MiB and in
 * 42 MB with 16 MiB (about 12 MB and two stacks at once): room for two
 * more.  A stack counts DOT_MEMORY_STACK_MAX at most: under a larger
 * ulimit -s the floor grew with it (ulimit -s 1G: 4 GiB, and 2 ranks'
 * 3,000 writes drew under --max-memory 64M holding 500 MB), so there
 * spawn_bounded lowers Graphviz's own where its bound cannot hold four. */
#define DOT_MEMORY_BASE ((uint64_t)16 << 20)
#define DOT_MEMORY_STACKS 4
#define DOT_MEMORY_STACK_MAX ((uint64_t)16 << 20)
/* The stack spawn_bounded gives dot where it lowers RLIMIT_STACK: glibc's
 * usual, half of what the floor counts a stack, so that the threads Pango
 * makes for fontconfig as dot measures the labels, more of them alive at
 * once under load, fit twice as many: with stacks of 16 MiB the smallest
 * picture under ulimit -s 1G and --max-memory 32M (the floor, 80 MiB)
 * failed making one 1 run in 30 beside two busy loops, 0 in 60 with 8 MiB */
#define DOT_MEMORY_STACK_LOWERED ((uint64_t)8 << 20)

/* Whether Graphviz's threads' stacks, RLIMIT_STACK's soft limit each in
 * *rl, are larger than DOT_MEMORY_STACK_MAX and four of them do not fit
 * in `memory` bytes beside DOT_MEMORY_BASE: its threads could not be made
 * (GLib aborting). */
static bool stacks_too_large(uint64_t memory, struct rlimit *rl)
{
    return getrlimit(RLIMIT_STACK, rl) == 0 && rl->rlim_cur != RLIM_INFINITY &&
           (uint64_t)rl->rlim_cur > DOT_MEMORY_STACK_MAX &&
           (memory < DOT_MEMORY_BASE ||
            (memory - DOT_MEMORY_BASE) / DOT_MEMORY_STACKS < (uint64_t)rl->rlim_cur);
}

uint64_t ces_dot_memory_floor(void)
{
    struct rlimit rl;
    uint64_t stack = (uint64_t)8 << 20; /* glibc's threads' where RLIMIT_STACK has none */

    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        stack = (uint64_t)rl.rlim_cur < DOT_MEMORY_STACK_MAX ? (uint64_t)rl.rlim_cur
                                                             : DOT_MEMORY_STACK_MAX;
    return DOT_MEMORY_BASE + DOT_MEMORY_STACKS * stack;
}

/* Starts dot (argv) as a child with in_fd as its standard input and
 * out_fd as its output, its data segment bounded by `memory` bytes
 * (RLIMIT_DATA, lowered to it: a soft limit below it, ulimit -S -d, is
 * kept; it was raised to the bound): posix_spawn sets no resource
 * limit, so a child of fork(2) sets it before it runs dot.  RLIMIT_DATA,
 * not RLIMIT_AS: Linux (since 4.7) counts in it the heap and every private
 * writable mapping, what Graphviz's layout allocates, its threads' stacks
 * among them, where the address space counts the libraries, fonts and
 * 64 MiB reserved for each thread's malloc arena too (dot -Tsvg of a
 * picture of 9 nodes failed under 60 MB of address space, and drew under
 * 40 MB of data).  Where four threads' stacks (RLIMIT_STACK's soft limit
 * each) do not fit in it beside DOT_MEMORY_BASE, that limit is lowered to
 * DOT_MEMORY_STACK_LOWERED for dot (its main thread's too, the usual
 * 8 MiB): GLib aborted making its first thread.  Its standard error is
 * err_fd where that is not -1.  0 or errno. */
static int spawn_bounded(pid_t *pid, const char *dot, char **argv, int in_fd, int out_fd,
                         int err_fd, uint64_t memory)
{
    struct rlimit rl, st;
    bool lower;

    if (getrlimit(RLIMIT_DATA, &rl) != 0)
        return errno;
    /* (the soft limit is at most the hard one, infinite only where both are) */
    if (rl.rlim_cur == RLIM_INFINITY || (uint64_t)rl.rlim_cur > memory)
        rl.rlim_cur = (rlim_t)memory;
    lower = stacks_too_large(memory, &st);
    if (lower)
        st.rlim_cur = (rlim_t)DOT_MEMORY_STACK_LOWERED;
    *pid = fork();
    if (*pid < 0)
        return errno;
    if (*pid == 0) { /* (a signal's handler here removes none of ours: file.c) */
        if (dup2(in_fd, STDIN_FILENO) >= 0 && dup2(out_fd, STDOUT_FILENO) >= 0 &&
            (err_fd < 0 || dup2(err_fd, STDERR_FILENO) >= 0) &&
            setrlimit(RLIMIT_DATA, &rl) == 0 && (!lower || setrlimit(RLIMIT_STACK, &st) == 0))
            execve(dot, argv, environ);
        _exit(127);
    }
    return 0;
}

/* Whether the dot just waited for held half of `memory` bytes or more:
 * the sign that a dot that failed under its bound ran out of memory where
 * it said nothing of it on standard error (oom_words), since no status
 * tells (Graphviz 2.43 says "out of memory" and dies of SIGSEGV, later
 * ones may exit 1, GLib aborts; the resident peak then
 * stood at 60% of the bound or more, from 10 MB to 200 MB, where a dot
 * failing for another reason holds a few MiB; one ended by SIGPIPE may
 * hold more, and is not asked).
 * getrusage's ru_maxrss (KiB on Linux) of the children is the largest
 * peak of any child waited for, `before` the dot started, so the dot's
 * own only where it rose past that; and a child counts as its own the
 * resident size of the image that its execve replaced, this process's as
 * it forked (Linux), so a peak no higher than this process's own may be
 * no more than that: a stand-in dot that exits 3 from a check that held
 * 10 MB under --max-memory 12M, or after a shell's child of 64 MB, was
 * taken for one out of memory. */
static bool held_half(uint64_t memory, const struct rusage *before)
{
    struct rusage kids, self;

    return getrusage(RUSAGE_CHILDREN, &kids) == 0 && getrusage(RUSAGE_SELF, &self) == 0 &&
           kids.ru_maxrss > before->ru_maxrss && kids.ru_maxrss > self.ru_maxrss &&
           (uint64_t)kids.ru_maxrss * 1024 >= memory / 2;
}

/* Runs `dot -T<fmt>` (dot: the program's path) with the text on its
 * standard input (from an unlinked temporary file, so that a dot that dies
 * early cannot raise SIGPIPE in the caller) and its standard output on
 * out_fd, the file that is to become `path` (or `path` itself, a pipe or a
 * device); errors name `path`.  A dot that fails, and one that leaves the
 * file empty, are CES_ERR_IO; past b's deadline the text's writing stops,
 * or dot is ended, CES_ERR_TIMEOUT, and so where b's stall passes with
 * out_fd a pipe that its reader takes none of (wait_by); where b bounds
 * its memory (ces_dot_memory_floor's where that is more) a dot that fails
 * saying a failed allocation on standard error (oom_words), which is
 * relayed to this process's, or else having held half of its memory
 * (held_half) and not ended by SIGPIPE, is CES_ERR_LIMIT. */
static int render(struct ces_ctx *ctx, const char *dot, const char *text, int out_fd,
                  const char *path, const char *fmt, const struct ces_dot_bounds *b)
{
    char tflag[16];
    char *argv[3];
    posix_spawn_file_actions_t fa;
    struct stat sb;
    struct rusage kids;
    pid_t pid;
    struct ces_dot_bounds in = {b->deadline, 0, 0}; /* (a regular file: never waits) */
    uint64_t memory = b->memory, least = ces_dot_memory_floor();
    int fd = tmp_open(ctx, path), status = 0, err, late, rc = CES_OK;
    struct dot_err derr = {-1, false, 0, {0}};
    int least_held = pipe_held(out_fd, b); /* (before dot writes there) */
    bool failed;

    if (fd < 0)
        return CES_ERR_IO;
    if (memory > 0 && memory < least)
        memory = least;
    late = ces_file_write_by(fd, text, strlen(text), &in);
    if (late > 0) {
        rc = ces_ctx_error(ctx, CES_ERR_TIMEOUT,
                           "the time bound passed while its dot text was given to Graphviz");
        goto close_fd;
    }
    if (late < 0 || lseek(fd, 0, SEEK_SET) != 0) {
        const char *env, *dir = ces_tmp_dir(&env);

        /* the directory named as where it could not be created (a full
         * TMPDIR said only "cannot write a temporary file") */
        rc = ces_ctx_error(ctx, CES_ERR_IO,
                           "cannot write %s: cannot write a temporary file in %s%s: %s", path, dir,
                           env, strerror(errno));
        goto close_fd;
    }
    snprintf(tflag, sizeof(tflag), "-T%s", fmt);
    argv[0] = "dot";
    argv[1] = tflag;
    argv[2] = NULL;
    if (memory > 0) {
        int pfd[2];

        /* (held_half: the peak of children before this one) */
        memset(&kids, 0, sizeof(kids));
        (void)getrusage(RUSAGE_CHILDREN, &kids);
        /* its standard error through a pipe, to see what it says of a
         * failed allocation (without one: held_half alone) */
        if (pipe(pfd) == 0) {
            int fl;

            derr.fd = ces_file_fd_own(pfd[0]);
            pfd[1] = ces_file_fd_own(pfd[1]);
            if (derr.fd < 0 || pfd[1] < 0 || (fl = fcntl(derr.fd, F_GETFL)) < 0 ||
                fcntl(derr.fd, F_SETFL, fl | O_NONBLOCK) != 0) {
                if (derr.fd >= 0)
                    close(derr.fd);
                if (pfd[1] >= 0)
                    close(pfd[1]);
                derr.fd = pfd[1] = -1;
            }
        } else {
            pfd[1] = -1;
        }
        err = spawn_bounded(&pid, dot, argv, fd, out_fd, pfd[1], memory);
        if (pfd[1] >= 0)
            close(pfd[1]);
    } else {
        if (posix_spawn_file_actions_init(&fa) != 0) {
            rc = ces_ctx_error(ctx, CES_ERR_SYSTEM, "posix_spawn_file_actions_init failed");
            goto close_fd;
        }
        err = posix_spawn_file_actions_adddup2(&fa, fd, STDIN_FILENO);
        if (err == 0)
            err = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
        if (err == 0)
            err = posix_spawn(&pid, dot, &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
    }
    if (err != 0) {
        rc = ces_ctx_error(ctx, CES_ERR_SYSTEM, "cannot run %s: %s", dot, strerror(err));
        goto close_fd;
    }
    ces_file_child(pid); /* a signal that ends us ends its drawing too */
    late = wait_by(pid, &status, b, out_fd, least_held, &derr);
    ces_file_child(0);
    if (late < 0) {
        rc = ces_ctx_error(ctx, CES_ERR_SYSTEM, "waiting for dot: %s", strerror(errno));
        goto close_fd;
    }
    if (late == 1) {
        rc = ces_ctx_error(ctx, CES_ERR_TIMEOUT,
                           "the time bound passed while Graphviz laid it out, which was ended");
        goto close_fd;
    }
    if (late == 2) {
        rc = ces_ctx_error(ctx, CES_ERR_TIMEOUT, "its reader took none of the picture for %g s "
                           "(Graphviz was ended)", b->stall);
        goto close_fd;
    }
    /* out of its memory where it said so, or else where it held half of
     * it and was not ended by SIGPIPE (its reader gone: no allocation
     * failed) */
    failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    if (failed && memory > 0 &&
        (derr.oom || ((WIFEXITED(status) || WTERMSIG(status) != SIGPIPE) &&
                      held_half(memory, &kids)))) {
        rc = ces_ctx_error(ctx, CES_ERR_LIMIT, "dot -T%s failed drawing %s (%s %d) out of "
                           "memory: its bound of %" PRIu64 " bytes", fmt, path,
                           WIFEXITED(status) ? "exit status" : "signal",
                           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), memory);
        goto close_fd;
    }
    if (failed) {
        rc = ces_ctx_error(ctx, CES_ERR_IO, "dot -T%s failed drawing %s (%s %d)", fmt, path,
                           WIFEXITED(status) ? "exit status" : "signal",
                           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        goto close_fd;
    }
    /* a dot that exits 0 having written nothing (a broken install, a
     * wrapper that lost its output) would put an empty file in the place of
     * the picture, reported written; a pipe or a device written in place
     * has no size to tell */
    if (fstat(out_fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0)
        rc = ces_ctx_error(ctx, CES_ERR_IO, "cannot write %s: Graphviz 'dot' wrote nothing",
                           path);
close_fd:
    if (derr.fd >= 0)
        close(derr.fd);
    close(fd);
    return rc;
}

int ces_dot_write(struct ces_ctx *ctx, const char *dot_text, const char *path)
{
    static const struct ces_dot_bounds none = {0, 0, 0};

    return ces_dot_write_by(ctx, dot_text, path, &none);
}

int ces_dot_write_by(struct ces_ctx *ctx, const char *dot_text, const char *path,
                     const struct ces_dot_bounds *b)
{
    const char *fmt = NULL;
    struct ces_out_file of;
    struct ces_dot_bounds by;
    char dot[4096];
    int fd, late, rc = CES_OK;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (dot_text == NULL || path == NULL || b == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_dot_write: NULL argument");
    fmt = ces_dot_format(path);
    if (fmt == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "cannot write %s: the name must end in .dot, .svg or .png", path);
    if (strcmp(fmt, "dot") == 0)
        fmt = NULL; /* written as is */
    if (fmt != NULL && !ces_find_program("dot", dot, sizeof(dot)))
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "cannot write %s: Graphviz 'dot' is not installed (not found on "
                             "PATH); install graphviz or write a .dot file", path);
    fd = ces_file_create_by(ctx, path, &of, b->deadline, b->stall);
    if (fd < 0)
        return fd == -2 ? CES_ERR_TIMEOUT : CES_ERR_IO;
    /* the command's own standard output or error, under any name (a link
     * to /dev/stdout), is written as standard output is, waited for
     * without the stall: a pager that reads a screen at a time ended it */
    by = *b;
    if (of.own)
        by.stall = 0;
    /* dot writes the file through its standard output: opened again by
     * name, a pipe's reader would have seen the end of the stream first;
     * one opened O_NONBLOCK (ces_file_create_by) is given it as a file it
     * waits to write, as any program's standard output (a full pipe
     * failed its write, EAGAIN); a description shared with the process's
     * own descriptor keeps its flags (its other programs' too) */
    if (fmt != NULL) {
        int flags = fcntl(fd, F_GETFL);

        if (!of.shares && flags >= 0 && (flags & O_NONBLOCK) != 0 &&
            fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
            rc = ces_ctx_error(ctx, CES_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        else
            rc = render(ctx, dot, dot_text, fd, path, fmt, &by);
    } else {
        late = ces_file_write_by(fd, dot_text, strlen(dot_text), &by);
        if (late == 1)
            rc = ces_ctx_error(ctx, CES_ERR_TIMEOUT,
                               "the time bound passed while its dot text was written");
        else if (late == 2)
            rc = ces_ctx_error(ctx, CES_ERR_TIMEOUT,
                               "its reader took none of its dot text for %g s", b->stall);
        else if (late < 0)
            rc = ces_ctx_error(ctx, CES_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    }
    if (close(fd) != 0 && rc == CES_OK)
        rc = ces_ctx_error(ctx, CES_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return ces_file_replace(ctx, &of, path, rc);
}
