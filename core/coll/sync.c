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

static void nccl_sync(struct ces_cgen *cg, uint32_t k)
{
    const char *arr = ((cg->parity + k) & 1u) ? "complete" : "ready";
    char v[96];

    if (cg->p.phase == CES_PHASE_GRAPH) {
        /* Under capture NCCL writes GRAPH_SYNC_VALUE = 1 and, in the same
         * memop batch after the waits, zeroes every local slot (its own
         * included) so that the next replay can wait for 1 again. */
        ces_sb_printf(&cg->sb,
                      "r* over p : write %s[$r]@$p = 1\n"
                      "r* over p : wait %s[$p] == 1\n"
                      "r* over p* : write %s[$p] = 0\n",
                      arr, arr, arr);
        return;
    }
    /* Barrier k of global iteration G carries sequence number
     * nsyncs*(G-1)+k+1: the host counter starts at 0 and is incremented
     * before every barrier. */
    ces_coll_lin(cg, v, sizeof(v), cg->nsyncs, (int64_t)k + 1 - (int64_t)cg->nsyncs);
    ces_sb_printf(&cg->sb,
                  "r* over p : write %s[$r]@$p = %s\n"
                  "r* over p : wait %s[$p] == %s\n",
                  arr, v, arr, v);
}

/* Directed barrier k: whether the ranks but the root signal it (and the
 * root waits) rather than the root. */
static bool toward_root(const struct ces_cgen *cg, uint32_t k)
{
    return (cg->p.coll == CES_COLL_GATHER) == (k == 1);
}

/* A directed barrier's text: `others` (ops without WHO, each line ending in
 * '\n') for every rank but the root, `root` (whole lines) for the root; the
 * signalling side first. */
static void directed_lines(struct ces_cgen *cg, bool in, const char *others, const char *root)
{
    if (!in)
        ces_sb_puts(&cg->sb, root);
    ces_coll_each_but_root(cg, others);
    if (in)
        ces_sb_puts(&cg->sb, root);
}

static void directed_sync(struct ces_cgen *cg, uint32_t k)
{
    /* two barriers per body: nccl's parity is 0, barrier k uses array k */
    const char *a = sync_array(cg, k);
    bool in = toward_root(cg, k), graph = cg->p.phase == CES_PHASE_GRAPH;
    uint32_t root = cg->p.root;
    char v[96], o[320], r[320];

    switch (cg->p.proto) {
    case CES_PROTO_NCCL:
        if (graph)
            snprintf(v, sizeof(v), "1");
        else
            ces_coll_lin(cg, v, sizeof(v), cg->nsyncs, (int64_t)k + 1 - (int64_t)cg->nsyncs);
        if (in) {
            snprintf(o, sizeof(o), "write %s[$r]@%" PRIu32 " = %s\n", a, root, v);
            snprintf(r, sizeof(r), "r%" PRIu32 " over p : wait %s[$p] == %s\n", root, a, v);
            if (graph)
                snprintf(r + strlen(r), sizeof(r) - strlen(r),
                         "r%" PRIu32 " over p : write %s[$p] = 0\n", root, a);
        } else {
            snprintf(r, sizeof(r), "r%" PRIu32 " over p : write %s[$r]@$p = %s\n", root, a, v);
            snprintf(o, sizeof(o), "wait %s[%" PRIu32 "] == %s\n", a, root, v);
            if (graph)
                snprintf(o + strlen(o), sizeof(o) - strlen(o), "write %s[%" PRIu32 "] = 0\n", a,
                         root);
        }
        break;
    case CES_PROTO_MONO:
        ces_coll_lin(cg, v, sizeof(v), 1, 0);
        if (in) {
            snprintf(o, sizeof(o), "write %s[0] = %s\n", a, v);
            snprintf(r, sizeof(r), "r%" PRIu32 " over p : wait %s[0]@$p >= %s\n", root, a, v);
        } else {
            snprintf(r, sizeof(r), "r%" PRIu32 " : write %s[0] = %s\n", root, a, v);
            snprintf(o, sizeof(o), "wait %s[0]@%" PRIu32 " >= %s\n", a, root, v);
        }
        break;
    case CES_PROTO_CREDIT:
        if (in) {
            snprintf(o, sizeof(o), "write %s[$r]@%" PRIu32 " = 1\n", a, root);
            snprintf(r, sizeof(r),
                     "r%" PRIu32 " over p : wait %s[$p] == 1\n"
                     "r%" PRIu32 " over p : write %s[$p] = 0\n"
                     "r%" PRIu32 " over p : write %s_ack[$r]@$p = 1\n",
                     root, a, root, a, root, a);
        } else {
            snprintf(r, sizeof(r), "r%" PRIu32 " over p : write %s[$r]@$p = 1\n", root, a);
            snprintf(o, sizeof(o),
                     "wait %s[%" PRIu32 "] == 1\nwrite %s[%" PRIu32 "] = 0\n"
                     "write %s_ack[$r]@%" PRIu32 " = 1\n",
                     a, root, a, root, a, root);
        }
        break;
    case CES_PROTO_PULL:
        if (in) {
            snprintf(o, sizeof(o), "write %s[%" PRIu32 "] = 1\n", a, root);
            snprintf(r, sizeof(r),
                     "r%" PRIu32 " over p : wait %s[$r]@$p == 1\n"
                     "r%" PRIu32 " over p : write %s[$r]@$p = 0\n",
                     root, a, root, a);
        } else {
            snprintf(r, sizeof(r), "r%" PRIu32 " over p : write %s[$p] = 1\n", root, a);
            snprintf(o, sizeof(o), "wait %s[$r]@%" PRIu32 " == 1\nwrite %s[$r]@%" PRIu32 " = 0\n",
                     a, root, a, root);
        }
        break;
    default:
        assert(!"unknown protocol");
        return;
    }
    directed_lines(cg, in, o, r);
}

void ces_coll_sync(struct ces_cgen *cg, uint32_t k)
{
    char v[96];

    assert(k < cg->nsyncs);
    if (cg->directed) {
        directed_sync(cg, k);
        return;
    }
    switch (cg->p.proto) {
    case CES_PROTO_NCCL:
        nccl_sync(cg, k);
        break;
    case CES_PROTO_MONO:
        /* One counter per barrier of the body, value = the global
         * iteration: it only grows, so a `>=` wait is satisfied by the
         * awaited write or any later one. */
        ces_coll_lin(cg, v, sizeof(v), 1, 0);
        ces_sb_printf(&cg->sb,
                      "r* : write %s[0] = %s\n"
                      "r* over p : wait %s[0]@$p >= %s\n",
                      sync_array(cg, k), v, sync_array(cg, k), v);
        break;
    case CES_PROTO_CREDIT:
        /* The reset precedes the ack in stream order, so when the writer
         * sees the ack its next 1 cannot be erased by this reset. */
        ces_sb_printf(&cg->sb,
                      "r* over p : write %s[$r]@$p = 1\n"
                      "r* over p : wait %s[$p] == 1\n"
                      "r* over p : write %s[$p] = 0\n"
                      "r* over p : write %s_ack[$r]@$p = 1\n",
                      sync_array(cg, k), sync_array(cg, k), sync_array(cg, k), sync_array(cg, k));
        break;
    case CES_PROTO_PULL:
        /* The flag waits in the writer's memory; its reader clears it
         * there once it has seen it. */
        ces_sb_printf(&cg->sb,
                      "r* over p : write %s[$p] = 1\n"
                      "r* over p : wait %s[$r]@$p == 1\n"
                      "r* over p : write %s[$r]@$p = 0\n",
                      sync_array(cg, k), sync_array(cg, k), sync_array(cg, k));
        break;
    default:
        assert(!"unknown protocol");
        break;
    }
}

void ces_coll_sync_tail(struct ces_cgen *cg)
{
    if (cg->p.proto != CES_PROTO_CREDIT)
        return;
    /* Every peer has reset the slot this rank wrote and said so; only now
     * may the next body write 1 into it again. */
    for (uint32_t k = 0; k < cg->nsyncs && cg->directed; k++) {
        const char *a = sync_array(cg, k);
        char o[128];

        if (toward_root(cg, k)) {
            snprintf(o, sizeof(o), "wait %s_ack[%" PRIu32 "] == 1\nwrite %s_ack[%" PRIu32 "] = 0\n",
                     a, cg->p.root, a, cg->p.root);
            ces_coll_each_but_root(cg, o);
        } else {
            ces_sb_printf(&cg->sb,
                          "r%" PRIu32 " over p : wait %s_ack[$p] == 1\n"
                          "r%" PRIu32 " over p : write %s_ack[$p] = 0\n",
                          cg->p.root, a, cg->p.root, a);
        }
    }
    for (uint32_t k = 0; k < cg->nsyncs && !cg->directed; k++)
        ces_sb_printf(&cg->sb,
                      "r* over p : wait %s_ack[$p] == 1\n"
                      "r* over p : write %s_ack[$p] = 0\n",
                      sync_array(cg, k), sync_array(cg, k));
}
