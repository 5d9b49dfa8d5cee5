/*
 * core/coll/sync.c - the four barrier protocols every collective shares:
 * their signal arrays, the text of one barrier, and what a body must do at
 * its end.  Each barrier is one memop group: all of a rank's flag writes,
 * then all of its waits (then, where the protocol has them, resets and acks).
 *
 *   nccl    NCCL 2.28's unicast CE sync.  u32 arrays `ready` and `complete`;
 *           slot [j] of every rank is written remotely only by rank j.  A host
 *           sequence number is pre-incremented on every barrier and barriers
 *           alternate between the two arrays by their global count.  Eager:
 *           write the sequence number to every peer, wait `== seq` on every
 *           peer's slot.  Graph: the constant 1, then reset all n local slots
 *           to 0 after the waits (unsafe when a replay holds an odd number of
 *           barriers, as in NCCL before 2.30.3; the checker must find it).
 *   mono    u64 counters that only grow, `>=` waits, no resets; the value of
 *           a barrier is the global iteration.  Each rank publishes one
 *           counter per array in its own memory (one local write) and every
 *           peer polls it there (a wait on the peer's slot): on H200 a barrier
 *           of one local write and remote waits is faster and steadier than
 *           remote writes and local waits (docs/PERFORMANCE.md).  Eager only.
 *   credit  constant 1: the waiter resets its slot to 0 after seeing 1 and
 *           acknowledges to the writer through `<array>_ack`; the writer
 *           collects the ack (wait, reset) at the end of the body, before it
 *           can write that slot again.  Safe for eager and graph phases and
 *           any number of barriers per body.
 *   pull    constant 1 in the writer's memory, like mono's counters: u32
 *           arrays with one slot per peer, slot [p] of rank r saying "r has
 *           arrived" to p.  The peer polls it there and resets it to 0 in
 *           the same memop group (a remote write).  Graph-safe when a body
 *           holds two barriers or more: a rank writes its slot for p again
 *           only after passing a later barrier, which needs p's flag that p
 *           writes after its reset (a write is fenced).  One barrier per
 *           body is refused (coll.c).
 *
 * Directed barriers (CES_COLL_F_DIRECTED; gather, scatter, broadcast): in a
 * rooted collective the copies run one way, so each barrier needs one
 * direction only.  Broadcast and scatter: the ranks but the root signal
 * that their recv is free and the root waits (ready), then the root signals
 * that its pushes have landed and they wait (complete).  Gather the
 * reverse: the root signals that its recv is free, then the others that
 * their pushes have landed.  A rank's own copies stay ordered by its
 * stream, so neither side needs the other's second flag; each protocol
 * keeps its slots, values, resets and acknowledgements for the flags that
 * remain.
 */
#include "coll.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *sync_array(const struct ces_cgen *cg, uint32_t k)
{
    (void)cg;
    assert(k < 2);
    return k == 0 ? "ready" : "complete";
}

void ces_coll_sync_decls(struct ces_cgen *cg)
{
    uint32_t n = cg->p.ranks;

    switch (cg->p.proto) {
    case CES_PROTO_NCCL:
        /* NCCL allocates both arrays however many barriers a collective has. */
        ces_sb_printf(&cg->sb, "signal ready u32 %" PRIu32 "\nsignal complete u32 %" PRIu32 "\n",
                      n, n);
        break;
    case CES_PROTO_MONO:
        for (uint32_t k = 0; k < cg->nsyncs; k++)
            ces_sb_printf(&cg->sb, "signal %s u64 1\n", sync_array(cg, k));
        break;
    case CES_PROTO_CREDIT:
    case CES_PROTO_PULL:
        for (uint32_t k = 0; k < cg->nsyncs; k++)
            ces_sb_printf(&cg->sb, "signal %s u32 %" PRIu32 "\n", sync_array(cg, k), n);
        if (cg->p.proto != CES_PROTO_CREDIT)
            break; /* pull: no acknowledgements */
        for (uint32_t k = 0; k < cg->nsyncs; k++)
            ces_sb_printf(&cg->sb, "signal %s_ack u32 %" PRIu32 "\n", sync_array(cg, k), n);
        break;
    default:
        assert(!"unknown protocol");
        break;
    }
}

/* Each protocol's barrier as op templates, one op per line: the side that
 * signals writes `signal`; the side that waits runs `wait` (the waits, then
 * the protocol's resets and acknowledgements); credit's signalling side
 * runs `collect` at the end of the body.  %A is the array, %V the value,
 * %P the counterpart: a line with %P is issued towards every peer ($p), or,
 * on the ranks but the root of a directed barrier, towards the root. */
struct sync_text {
    const char *signal, *wait, *collect;
};

static const struct sync_text sync_texts[CES_PROTO_COUNT] = {
    [CES_PROTO_NCCL] = {"write %A[$r]@%P = %V\n", "wait %A[%P] == %V\n", NULL},
    [CES_PROTO_MONO] = {"write %A[0] = %V\n", "wait %A[0]@%P >= %V\n", NULL},
    /* The reset precedes the ack in stream order, so when the writer sees
     * the ack its next 1 cannot be erased by this reset. */
    [CES_PROTO_CREDIT] = {"write %A[$r]@%P = 1\n",
                          "wait %A[%P] == 1\nwrite %A[%P] = 0\nwrite %A_ack[$r]@%P = 1\n",
                          "wait %A_ack[%P] == 1\nwrite %A_ack[%P] = 0\n"},
    /* The flag waits in the writer's memory; its reader clears it there
     * once it has seen it. */
    [CES_PROTO_PULL] = {"write %A[%P] = 1\n", "wait %A[$r]@%P == 1\nwrite %A[$r]@%P = 0\n", NULL},
};

/* Who runs a template: every rank (a barrier both ways), the root, or the
 * ranks but the root (a directed barrier). */
enum side { SIDE_ALL, SIDE_ROOT, SIDE_OTHERS };

/* Who signals barrier k; the other side waits.  Directed: the ranks but
 * the root signal broadcast's and scatter's first barrier and gather's
 * second (their recv is free; their pushes have landed), the root the
 * others. */
static enum side signaller(const struct ces_cgen *cg, uint32_t k)
{
    if (!cg->directed)
        return SIDE_ALL;
    return (cg->p.coll == CES_COLL_GATHER) == (k == 1) ? SIDE_OTHERS : SIDE_ROOT;
}

static enum side other_side(enum side s)
{
    return s == SIDE_ALL ? SIDE_ALL : s == SIDE_ROOT ? SIDE_OTHERS : SIDE_ROOT;
}

/* Whether line `l` of a template names %P. */
static bool names_peer(const char *l)
{
    const char *p = strstr(l, "%P");

    return p != NULL && p < strchr(l, '\n');
}

/* Appends line `l` of a template (up to its '\n', included) to `out`, with
 * %A, %V and %P replaced. */
static void subst_line(struct ces_sb *out, const char *l, const char *a, const char *v,
                       const char *peer)
{
    for (;;) {
        size_t n = strcspn(l, "%\n");

        ces_sb_printf(out, "%.*s", (int)n, l);
        l += n;
        if (*l == '\n')
            break;
        ces_sb_puts(out, l[1] == 'A' ? a : l[1] == 'V' ? v : peer);
        l += 2;
    }
    ces_sb_puts(out, "\n");
}

/* The ops of template `t` for `side`, in canonical text: on every rank or
 * the root line by line, a line with %P over every peer; on the ranks but
 * the root rank by rank, each line towards the root. */
static void emit(struct ces_cgen *cg, enum side side, const char *t, const char *a, const char *v)
{
    char root[16];
    struct ces_sb lines;
    char *text = NULL;

    snprintf(root, sizeof(root), "%" PRIu32, cg->p.root);
    if (side != SIDE_OTHERS) {
        for (const char *l = t; *l != '\0'; l = strchr(l, '\n') + 1) {
            ces_sb_printf(&cg->sb, "r%s%s : ", side == SIDE_ALL ? "*" : root,
                          names_peer(l) ? " over p" : "");
            subst_line(&cg->sb, l, a, v, "$p");
        }
        return;
    }
    ces_sb_init(&lines, cg->sb.ctx);
    for (const char *l = t; *l != '\0'; l = strchr(l, '\n') + 1)
        subst_line(&lines, l, a, v, root);
    if (ces_sb_finish(&lines, &text, NULL) != CES_OK) {
        cg->sb.status = CES_ERR_NOMEM;
        return;
    }
    ces_coll_each_but_root(cg, text);
    ces_free(cg->sb.ctx, text);
}

void ces_coll_sync(struct ces_cgen *cg, uint32_t k)
{
    const struct sync_text *t = &sync_texts[cg->p.proto];
    bool graph = cg->p.phase == CES_PHASE_GRAPH;
    enum side signal = signaller(cg, k), wait = other_side(signal);
    const char *a = sync_array(cg, k);
    char v[96] = "1";

    assert(k < cg->nsyncs && cg->p.proto < CES_PROTO_COUNT);
    if (cg->p.proto == CES_PROTO_NCCL) {
        /* nccl alternates arrays by the global barrier count.  Eager,
         * barrier k of global iteration G carries sequence number
         * nsyncs*(G-1)+k+1 (the host counter starts at 0 and is incremented
         * before every barrier); captured, GRAPH_SYNC_VALUE = 1. */
        a = ((cg->parity + k) & 1u) ? "complete" : "ready";
        if (!graph)
            ces_coll_lin(cg, v, sizeof(v), cg->nsyncs, (int64_t)k + 1 - (int64_t)cg->nsyncs);
    } else if (cg->p.proto == CES_PROTO_MONO) {
        /* one counter per barrier of the body, value = the global
         * iteration: it only grows, so a `>=` wait is satisfied by the
         * awaited write or any later one */
        ces_coll_lin(cg, v, sizeof(v), 1, 0);
    }
    emit(cg, signal, t->signal, a, v);
    emit(cg, wait, t->wait, a, v);
    if (cg->p.proto != CES_PROTO_NCCL || !graph)
        return;
    /* Under capture NCCL zeroes, in the same memop batch after the waits,
     * every local slot (its own included) so that the next replay can wait
     * for 1 again; a directed barrier's waiters clear the slots they
     * waited on. */
    if (wait == SIDE_ALL)
        ces_sb_printf(&cg->sb, "r* over p* : write %s[$p] = 0\n", a);
    else
        emit(cg, wait, "write %A[%P] = 0\n", a, v);
}

void ces_coll_sync_tail(struct ces_cgen *cg)
{
    const char *collect = sync_texts[cg->p.proto].collect;

    /* Every peer has reset the slot this rank wrote and said so; only now
     * may the next body write 1 into it again. */
    for (uint32_t k = 0; k < cg->nsyncs && collect != NULL; k++)
        emit(cg, signaller(cg, k), collect, sync_array(cg, k), "");
}
