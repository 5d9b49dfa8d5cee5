/*
 * backend/cuda/group.c - the graph of a point-to-point group (ces_send /
 * ces_recv between ces_group_start and ces_group_end), built from what every
 * rank declared.  Pure, like the lowering: tested and model-checked on the
 * CPU (tests/cuda/test_lower.c).
 */
#include "lower.h"

#include <assert.h>
#include <inttypes.h>
#include <string.h>

static const struct ces_p2p_desc *group_find(const struct ces_p2p_table *t, uint32_t rank, uint32_t peer,
                                         uint32_t send)
{
    for (uint64_t i = 1; i <= t->d[rank][0].bytes; i++)
        if (t->d[rank][i].peer == peer && t->d[rank][i].send == send)
            return &t->d[rank][i];
    return NULL;
}

/* Ids of the group graph's buffer, signals and events, in declaration
 * order, and its streams. */
enum { MEM = 0 };
enum { POSTED = 0, DONE = 1, FULL = 2, CREDIT = 3, CPOSTED = 4, CDONE = 5, CFULL = 6, CBUSY = 7 };
enum { SLOTS = 0, COPIED = 1 };
enum { S_CALLER = 0, S_CREDIT = 1, S_ANNOUNCE = 2, NSTREAMS = 3 };

/* Whether rank r declared a send (send 1) or a receive (send 0). */
static int declares(const struct ces_p2p_table *t, uint32_t r, uint32_t send)
{
    for (uint64_t i = 1; i <= t->d[r][0].bytes; i++)
        if (t->d[r][i].send == send)
            return 1;
    return 0;
}

int ces_cuda_group_one_way(const struct ces_p2p_table *t, uint32_t s, uint32_t d)
{
    return !declares(t, s, 0) && !declares(t, d, 1);
}

int ces_cuda_group_staged(const struct ces_p2p_table *t, const struct ces_p2p_stages *st,
                          uint32_t s, uint32_t d, uint64_t bytes)
{
    return st != NULL && st->p[s][d].slot >= bytes && ces_cuda_group_one_way(t, s, d);
}

/* Whether s's staged message of `bytes` to d goes the side way. */
static int side_way(const struct ces_p2p_table *t, const struct ces_p2p_stages *st, uint32_t s,
                    uint32_t d, uint64_t bytes)
{
    return ces_cuda_group_staged(t, st, s, d, bytes) && bytes >= st->side_min;
}

void ces_cuda_group_count(const struct ces_p2p_table *t, struct ces_p2p_stages *st, uint32_t n)
{
    for (uint32_t s = 0; s < n && st != NULL; s++) {
        for (uint64_t i = 1; i <= t->d[s][0].bytes; i++) {
            const struct ces_p2p_desc *e = &t->d[s][i];

            if (e->send && ces_cuda_group_staged(t, st, s, e->peer, e->bytes)) {
                st->p[s][e->peer].own_wait = (uint32_t)side_way(t, st, s, e->peer, e->bytes);
                st->p[s][e->peer].sent++;
            }
        }
    }
}

/* Every send has its receive of the same size. */
int ces_cuda_group_check(struct ces_ctx *ctx, uint32_t n, const struct ces_p2p_table *t)
{
    if (n < 1 || n > CES_P2P_MAX_RANKS)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "ces_group_end: groups are supported up to %u ranks", CES_P2P_MAX_RANKS);
    for (uint32_t r = 0; r < n; r++)
        if (t->d[r][0].bytes > CES_MAX_PAIRS)
            return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_group_end: rank %" PRIu32
                                 " declared more than %u sends and receives", r, CES_MAX_PAIRS);
    for (uint32_t r = 0; r < n; r++) {
        for (uint64_t i = 1; i <= t->d[r][0].bytes; i++) {
            const struct ces_p2p_desc *e = &t->d[r][i];
            const struct ces_p2p_desc *m = group_find(t, e->peer, r, !e->send);

            if (m == NULL || m->bytes != e->bytes)
                return ces_ctx_error(ctx, CES_ERR_INVALID,
                                     "ces_group_end: rank %" PRIu32 " %s %" PRIu64
                                     " bytes %s rank %" PRIu32 ", which %s",
                                     r, e->send ? "sends" : "receives", e->bytes,
                                     e->send ? "to" : "from", e->peer,
                                     m == NULL ? (e->send ? "posted no matching receive"
                                                          : "posted no matching send")
                                               : "declared another size");
        }
    }
    return CES_OK;
}

static int add(struct ces_graph *g, uint32_t r, struct ces_op op)
{
    return ces_graph_add_op(g, r, &op);
}

static int add_on(struct ces_graph *g, uint32_t r, uint32_t stream, struct ces_op op)
{
    op.stream = stream;
    return ces_graph_add_op(g, r, &op);
}

static struct ces_op event_op(uint8_t kind, uint32_t event)
{
    struct ces_op op = {.kind = kind, .event = event};

    return op;
}

static struct ces_op flag(uint8_t kind, uint32_t sig, uint32_t rank, uint32_t idx, uint64_t v)
{
    struct ces_op op = {.kind = kind, .slot = {sig, rank, idx}, .value = v};

    return op;
}

/* The flag (posted or done) between `writer` and `waiter` of a direct
 * message s -> d of `bytes`: pushed, in the waiter's memory at slot writer;
 * polled, in the writer's memory at slot n + waiter, for a message of
 * CES_P2P_POLLED_MIN bytes or more that is not one way. */
static struct ces_op direct_flag(const struct ces_p2p_table *t, uint32_t n, uint8_t kind,
                                 uint32_t sig, uint32_t s, uint32_t d, uint64_t bytes,
                                 uint32_t writer, uint32_t waiter, uint64_t k)
{
    if (bytes < CES_P2P_POLLED_MIN || ces_cuda_group_one_way(t, s, d))
        return flag(kind, sig, waiter, writer, k);
    return flag(kind, sig, writer, n + waiter, k);
}

static struct ces_op copy_op(uint32_t from, uint64_t lo, uint32_t to, uint64_t dlo, uint64_t bytes)
{
    struct ces_op op = {.kind = CES_OP_COPY};

    op.a = (struct ces_region){MEM, from, lo, lo + bytes};
    op.b = (struct ces_region){MEM, to, dlo, dlo + bytes};
    return op;
}

/* The application around rank r's part: it writes every send buffer
 * before the group (produce) or reads every receive buffer after it
 * (consume), which must then hold its sender's send buffer as written
 * before this call (`== mem[...]@s`: a MISMATCH otherwise); enqueued as
 * nothing, they let the checker see the buffers' users and the data they
 * see across calls and replays. */
static int app_ops(struct ces_graph *g, uint32_t r, const struct ces_p2p_table *t, uint32_t send)
{
    const struct ces_p2p_desc *row = t->d[r];
    int rc = CES_OK;

    for (uint64_t i = 1; i <= row[0].bytes && rc == CES_OK; i++) {
        struct ces_op op = {.kind = send ? CES_OP_PRODUCE : CES_OP_CONSUME};

        if (row[i].send != send)
            continue;
        op.a = (struct ces_region){MEM, r, row[i].off, row[i].off + row[i].bytes};
        if (!send) {
            const struct ces_p2p_desc *m = group_find(t, row[i].peer, r, 1);

            op.b = (struct ces_region){MEM, row[i].peer, m->off, m->off + m->bytes};
            op.flags = CES_OPF_EXPECT;
        }
        rc = add(g, r, op);
    }
    return rc;
}

/* Copies of rank r, as one batch when there are several. */
static int copies(struct ces_graph *g, uint32_t r, const struct ces_op *ops, uint32_t nops)
{
    int rc = CES_OK;

    if (nops > 1)
        rc = add(g, r, (struct ces_op){.kind = CES_OP_BATCH});
    for (uint32_t i = 0; i < nops && rc == CES_OK; i++)
        rc = add(g, r, ops[i]);
    if (nops > 1 && rc == CES_OK)
        rc = add(g, r, (struct ces_op){.kind = CES_OP_END});
    return rc;
}

/* Rank r waits until its slot sig[idx] holds 1, then resets it to 0. */
static int await_and_reset(struct ces_graph *g, uint32_t r, uint32_t sig, uint32_t idx)
{
    struct ces_op w = flag(CES_OP_WAIT, sig, r, idx, 1);
    int rc;

    w.cmp = CES_CMP_EQ;
    rc = add(g, r, w);
    return rc == CES_OK ? add(g, r, flag(CES_OP_WRITE, sig, r, idx, 0)) : rc;
}

/* Rank r's receives: the wait for each incoming message, one batch of
 * the staged ones' copy-outs, and their slots returned.  Eager (call k;
 * u 0): full >= the slot's fills, done >= k, credit = the slot's
 * releases.  Captured (call u of the graph): cfull and cdone awaited and
 * reset, cbusy written back to 0. */
static int receive(struct ces_graph *g, uint32_t r, const struct ces_p2p_table *t,
                   const struct ces_p2p_stages *st, uint64_t k, int captured, uint32_t u)
{
    const struct ces_p2p_desc *row = t->d[r];
    struct ces_op ops[CES_MAX_PAIRS];
    uint32_t nops = 0;
    int rc = CES_OK;

    memset(ops, 0, sizeof(ops));
    for (uint64_t i = 1; i <= row[0].bytes && rc == CES_OK; i++) {
        uint32_t s = row[i].peer;

        if (row[i].send)
            continue;
        if (ces_cuda_group_staged(t, st, s, r, row[i].bytes)) {
            const struct ces_p2p_stage *sp = &st->p[s][r];
            uint64_t c = sp->sent + u;
            uint32_t slot = (uint32_t)(c % 2);

            rc = captured ? await_and_reset(g, r, CFULL, 2 * s + slot)
                          : add(g, r, flag(CES_OP_WAIT, FULL, r, 2 * s + slot, c / 2 + 1));
            ops[nops++] = copy_op(r, sp->off + slot * sp->slot, r, row[i].off, row[i].bytes);
        } else {
            rc = captured ? await_and_reset(g, r, CDONE, s)
                          : add(g, r, direct_flag(t, ces_graph_ranks(g), CES_OP_WAIT, DONE, s, r,
                                                  row[i].bytes, s, r, k));
        }
    }
    if (rc == CES_OK)
        rc = copies(g, r, ops, nops);
    for (uint64_t i = 1; i <= row[0].bytes && rc == CES_OK; i++) {
        uint32_t s = row[i].peer;
        uint64_t c;

        if (row[i].send || !ces_cuda_group_staged(t, st, s, r, row[i].bytes))
            continue;
        c = st->p[s][r].sent + u;
        rc = add(g, r, captured ? flag(CES_OP_WRITE, CBUSY, s, 2 * r + (uint32_t)(c % 2), 0)
                                : flag(CES_OP_WRITE, CREDIT, s, 2 * r + (uint32_t)(c % 2),
                                       c / 2 + 1));
    }
    return rc;
}

/* Rank r's ops of group call k.
 *
 * Direct (the receive buffer is written in place): post every receive
 * (write posted), wait until every receiver posted, copy, announce (write
 * done, a later stream op than the copies), wait for every incoming
 * message.  Flags are written into the peer's memory and awaited locally
 * (pushed), but those of a message of CES_P2P_POLLED_MIN bytes or more that
 * is not one way (its sender also receives or its receiver also sends in
 * the group, as in a ring) stay in the writer's memory and the peer polls
 * them, as the mono barrier does.  On 2x H200 (docs/PERFORMANCE.md,
 * "sendrecv") polling saves the pushed wake-up, 6.7 us a ring call, but
 * runs in the polled waits' slow mode (10.5 us more) in about 2 of 3 runs
 * up to 4 MiB and in none of 13 at 8 MiB; one-way groups polled were 3-4
 * us slower from 1 to 16 MiB.  The two layouts use separate halves of
 * posted and done (slot peer, and n + peer), so no slot carries two
 * meanings across calls.
 *
 * Staged (a one-way message: s declares no receive and d no send in the
 * group, and the pair has slots for it): the u-th message s -> d is
 * copied into d's slot t = u % 2, announced by full[2s+t]@d = u/2+1 (fills
 * of that slot), copied out by d, which returns the slot by credit[2d+t]@s
 * = u/2+1 (releases).  Right after announcing message u the sender waits
 * until slot (u+1) % 2 has had (u+1)/2 releases: that slot was freed by the
 * previous call's copy-out, so a send never waits for its receiver to post
 * or to drain, and no message's wait needs anything of the same call.
 *
 * Staged the side way (at least st->side_min bytes): the caller's stream
 * holds the copy between an await and a record and nothing else - any
 * memop there beside the copies costs 1.6-2.3 us a 64 MiB message on
 * 2x H200 (docs/PERFORMANCE.md, "sendrecv").  s1 waits until slot t has had
 * u/2 releases (the wait the previous message would have made after its
 * announcement) and records `slots`, which s0 awaits before the copies; s0
 * records `copied` after them, s2 awaits it and writes full.  A staged
 * message after one sent the side way awaits its own slot on s0 first.
 *
 * Order per rank: the application's writes of the send buffers (produce),
 * side credit waits and `slots` (s1), posted writes, posted waits and
 * own-slot waits, the await of `slots`, one batch of every outgoing copy,
 * `copied` and the side announcements (s2), done and full writes, credit
 * waits, done and full waits, one batch of copy-outs, credit writes, the
 * application's reads of the receive buffers (consume).  No wait depends
 * on a later op of another rank, so no order of the declared sends and
 * receives can deadlock. */
static int group_rank(struct ces_graph *g, uint32_t r, const struct ces_p2p_table *t, uint64_t k,
                      const struct ces_p2p_stages *st)
{
    const struct ces_p2p_desc *row = t->d[r];
    uint32_t n = ces_graph_ranks(g);
    uint64_t cnt = row[0].bytes;
    struct ces_op ops[CES_MAX_PAIRS];
    uint32_t nops = 0, nside = 0, nslots = 0;
    int rc = CES_OK;

    memset(ops, 0, sizeof(ops));
    rc = app_ops(g, r, t, 1);
    for (uint64_t i = 1; i <= cnt && rc == CES_OK; i++) {
        uint32_t d = row[i].peer;
        uint64_t u;

        if (!row[i].send || !side_way(t, st, r, d, row[i].bytes))
            continue;
        nside++;
        u = st->p[r][d].sent;
        if (u / 2 == 0)
            continue; /* the slot's first fill */
        rc = add_on(g, r, S_CREDIT, flag(CES_OP_WAIT, CREDIT, r, 2 * d + (uint32_t)(u % 2), u / 2));
        nslots++;
    }
    if (nslots > 0 && rc == CES_OK)
        rc = add_on(g, r, S_CREDIT, event_op(CES_OP_RECORD, SLOTS));
    for (uint64_t i = 1; i <= cnt && rc == CES_OK; i++)
        if (!row[i].send && !ces_cuda_group_staged(t, st, row[i].peer, r, row[i].bytes))
            rc = add(g, r, direct_flag(t, n, CES_OP_WRITE, POSTED, row[i].peer, r, row[i].bytes, r,
                                       row[i].peer, k));
    for (uint64_t i = 1; i <= cnt && rc == CES_OK; i++) {
        uint32_t d = row[i].peer;
        uint64_t u;

        if (!row[i].send)
            continue;
        if (!ces_cuda_group_staged(t, st, r, d, row[i].bytes)) {
            rc = add(g, r, direct_flag(t, n, CES_OP_WAIT, POSTED, r, d, row[i].bytes, d, r, k));
            continue;
        }
        u = st->p[r][d].sent;
        if (st->p[r][d].own_wait && !side_way(t, st, r, d, row[i].bytes) && u / 2 > 0)
            rc = add(g, r, flag(CES_OP_WAIT, CREDIT, r, 2 * d + (uint32_t)(u % 2), u / 2));
    }
    if (nslots > 0 && rc == CES_OK)
        rc = add(g, r, event_op(CES_OP_AWAIT, SLOTS));
    for (uint64_t i = 1; i <= cnt; i++) {
        uint32_t d = row[i].peer;

        if (!row[i].send)
            continue;
        if (ces_cuda_group_staged(t, st, r, d, row[i].bytes)) {
            const struct ces_p2p_stage *s = &st->p[r][d];

            ops[nops++] = copy_op(r, row[i].off, d, s->off + (s->sent % 2) * s->slot, row[i].bytes);
        } else {
            ops[nops++] = copy_op(r, row[i].off, d, group_find(t, d, r, 0)->off, row[i].bytes);
        }
    }
    if (rc == CES_OK)
        rc = copies(g, r, ops, nops);
    if (nside > 0 && rc == CES_OK)
        rc = add(g, r, event_op(CES_OP_RECORD, COPIED));
    if (nside > 0 && rc == CES_OK)
        rc = add_on(g, r, S_ANNOUNCE, event_op(CES_OP_AWAIT, COPIED));
    for (uint64_t i = 1; i <= cnt && rc == CES_OK; i++) {
        uint32_t d = row[i].peer;
        uint64_t u = st != NULL ? st->p[r][d].sent : 0;

        if (!row[i].send)
            continue;
        if (!ces_cuda_group_staged(t, st, r, d, row[i].bytes))
            rc = add(g, r, direct_flag(t, n, CES_OP_WRITE, DONE, r, d, row[i].bytes, r, d, k));
        else
            rc = add_on(g, r, side_way(t, st, r, d, row[i].bytes) ? S_ANNOUNCE : S_CALLER,
                        flag(CES_OP_WRITE, FULL, d, 2 * r + (uint32_t)(u % 2), u / 2 + 1));
    }
    for (uint64_t i = 1; i <= cnt && rc == CES_OK; i++) {
        uint32_t d = row[i].peer;
        uint64_t u1;

        if (!row[i].send || !ces_cuda_group_staged(t, st, r, d, row[i].bytes) ||
            side_way(t, st, r, d, row[i].bytes))
            continue;
        u1 = st->p[r][d].sent + 1;
        rc = add(g, r, flag(CES_OP_WAIT, CREDIT, r, 2 * d + (uint32_t)(u1 % 2), u1 / 2));
    }
    if (rc == CES_OK)
        rc = receive(g, r, t, st, k, 0, 0);
    return rc == CES_OK ? app_ops(g, r, t, 0) : rc;
}

int ces_cuda_group_add(struct ces_ctx *ctx, struct ces_graph *g, const struct ces_p2p_table *t,
                       uint64_t k, const struct ces_p2p_stages *st)
{
    uint32_t n = ces_graph_ranks(g);
    int rc = ces_cuda_group_check(ctx, n, t);

    if (rc == CES_OK)
        rc = ces_graph_add_block(g, CES_PHASE_EAGER, 1);
    for (uint32_t r = 0; r < n && rc == CES_OK; r++)
        rc = group_rank(g, r, t, k, st);
    return rc;
}

/* A group graph with its declarations (the ids above), once the
 * declarations of t are valid. */
static int group_new(struct ces_ctx *ctx, uint32_t n, uint64_t stride,
                     const struct ces_p2p_table *t, struct ces_graph **out)
{
    static const char *const sigs[] = {"posted", "done",    "full",  "credit",
                                       "cposted", "cdone", "cfull", "cbusy"};
    static const uint32_t per_rank[] = {2, 2, 2, 2, 1, 1, 2, 2};
    struct ces_graph *g = NULL;
    uint32_t id;
    int rc = ces_cuda_group_check(ctx, n, t);

    if (rc == CES_OK)
        rc = ces_graph_create(ctx, n, NSTREAMS, &g);
    if (rc == CES_OK)
        rc = ces_graph_add_buffer(g, "mem", stride, &id);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]) && rc == CES_OK; i++)
        rc = ces_graph_add_signal(g, sigs[i], CES_U64, per_rank[i] * n, &id);
    if (rc == CES_OK)
        rc = ces_graph_add_event(g, "slots", &id);
    if (rc == CES_OK)
        rc = ces_graph_add_event(g, "copied", &id);
    if (rc != CES_OK) {
        ces_graph_destroy(g);
        g = NULL;
    }
    *out = g;
    return rc;
}

static int group_finish(struct ces_graph *g, int rc, struct ces_graph **out)
{
    if (rc == CES_OK)
        rc = ces_graph_validate(g, NULL);
    if (rc != CES_OK) {
        ces_graph_destroy(g);
        return rc;
    }
    *out = g;
    return CES_OK;
}

int ces_cuda_group_graph(struct ces_ctx *ctx, uint32_t n, uint64_t stride,
                         const struct ces_p2p_table *t, uint64_t k,
                         const struct ces_p2p_stages *st, struct ces_graph **out)
{
    struct ces_graph *g = NULL;
    int rc = group_new(ctx, n, stride, t, &g);

    *out = NULL;
    return rc != CES_OK ? rc : group_finish(g, ces_cuda_group_add(ctx, g, t, k, st), out);
}

int ces_cuda_group_calls(struct ces_ctx *ctx, uint32_t n, uint64_t stride,
                         const struct ces_p2p_table *t, uint32_t calls,
                         struct ces_p2p_stages *st, struct ces_graph **out)
{
    struct ces_graph *g = NULL;
    int rc = group_new(ctx, n, stride, t, &g);

    *out = NULL;
    if (g == NULL)
        return rc;
    for (uint32_t k = 1; k <= calls && rc == CES_OK; k++) {
        rc = ces_cuda_group_add(ctx, g, t, k, st);
        ces_cuda_group_count(t, st, n);
    }
    return group_finish(g, rc, out);
}

/* Rank r's ops of captured group call u (0, 1, ...: the slot of a staged
 * pair is (its count of captured messages + u) % 2): flags a replay
 * repeats as they are, each set by one rank, awaited and reset by the
 * other, or set and awaited back to 0 by its own rank.
 *
 * Direct: the receiver posts (cposted = 1 in the sender's memory), the
 * sender waits for it and resets it, copies, and announces (cdone = 1 in
 * the receiver's memory), which the receiver waits for and resets.  A flag
 * is set again only after its waiter reset it: the next post follows the
 * receiver's reset of cdone in its stream, the next announcement the
 * sender's reset of cposted.
 *
 * Staged (a one-way message that fits the pair's captured slots): the
 * sender waits until slot t is free (cbusy[2d+t] = 0 in its own memory),
 * marks it busy, copies into it and announces (cfull[2s+t] = 1 in the
 * receiver's memory); the receiver waits for the announcement, resets it,
 * copies out and frees the slot (cbusy = 0 in the sender's memory).  So a
 * send waits for the copy-out of the slot's previous fill, two calls back
 * in a graph that alternates slots, not for its receiver to post.
 *
 * Order per rank: produce, posts, then per send its free-slot wait and
 * busy mark or its post wait and reset, one batch of every outgoing copy,
 * the announcements, per receive its announcement's wait and reset, one
 * batch of copy-outs, the frees, consume. */
static int group_rank_captured(struct ces_graph *g, uint32_t r, const struct ces_p2p_table *t,
                               const struct ces_p2p_stages *st, uint32_t u)
{
    const struct ces_p2p_desc *row = t->d[r];
    uint64_t cnt = row[0].bytes;
    struct ces_op ops[CES_MAX_PAIRS];
    uint32_t nops = 0;
    int rc = CES_OK;

    memset(ops, 0, sizeof(ops));
    rc = app_ops(g, r, t, 1);
    for (uint64_t i = 1; i <= cnt && rc == CES_OK; i++)
        if (!row[i].send && !ces_cuda_group_staged(t, st, row[i].peer, r, row[i].bytes))
            rc = add(g, r, flag(CES_OP_WRITE, CPOSTED, row[i].peer, r, 1));
    for (uint64_t i = 1; i <= cnt && rc == CES_OK; i++) {
        uint32_t d = row[i].peer;

        if (!row[i].send)
            continue;
        if (ces_cuda_group_staged(t, st, r, d, row[i].bytes)) {
            const struct ces_p2p_stage *sp = &st->p[r][d];
            uint32_t slot = (uint32_t)((sp->sent + u) % 2);
            struct ces_op w = flag(CES_OP_WAIT, CBUSY, r, 2 * d + slot, 0);

            w.cmp = CES_CMP_EQ;
            rc = add(g, r, w);
            if (rc == CES_OK)
                rc = add(g, r, flag(CES_OP_WRITE, CBUSY, r, 2 * d + slot, 1));
            ops[nops++] = copy_op(r, row[i].off, d, sp->off + slot * sp->slot, row[i].bytes);
        } else {
            rc = await_and_reset(g, r, CPOSTED, d);
            ops[nops++] = copy_op(r, row[i].off, d, group_find(t, d, r, 0)->off, row[i].bytes);
        }
    }
    if (rc == CES_OK)
        rc = copies(g, r, ops, nops);
    for (uint64_t i = 1; i <= cnt && rc == CES_OK; i++) {
        uint32_t d = row[i].peer;

        if (!row[i].send)
            continue;
        if (ces_cuda_group_staged(t, st, r, d, row[i].bytes))
            rc = add(g, r, flag(CES_OP_WRITE, CFULL, d,
                                2 * r + (uint32_t)((st->p[r][d].sent + u) % 2), 1));
        else
            rc = add(g, r, flag(CES_OP_WRITE, CDONE, d, r, 1));
    }
    if (rc == CES_OK)
        rc = receive(g, r, t, st, 0, 1, u);
    return rc == CES_OK ? app_ops(g, r, t, 0) : rc;
}

int ces_cuda_group_graph_captured(struct ces_ctx *ctx, uint32_t n, uint64_t stride,
                                  const struct ces_p2p_table *t, uint32_t calls, uint32_t reps,
                                  const struct ces_p2p_stages *st, struct ces_graph **out)
{
    struct ces_graph *g = NULL;
    int rc = group_new(ctx, n, stride, t, &g);

    *out = NULL;
    if (rc != CES_OK)
        return rc;
    rc = ces_graph_add_block(g, CES_PHASE_GRAPH, reps);
    for (uint32_t u = 0; u < calls && rc == CES_OK; u++)
        for (uint32_t r = 0; r < n && rc == CES_OK; r++)
            rc = group_rank_captured(g, r, t, st, u);
    return group_finish(g, rc, out);
}

int ces_cuda_group_arrive(struct ces_ctx *ctx, uint32_t *arrived, uint32_t idx, uint32_t nlocal,
                          int *last)
{
    uint32_t all = nlocal >= 32 ? UINT32_MAX : (1u << nlocal) - 1u;

    assert(idx < nlocal && nlocal <= 32);
    *last = 0;
    if ((*arrived & (1u << idx)) != 0) {
        uint32_t missing = 0;

        while (missing < nlocal && (*arrived & (1u << missing)) != 0)
            missing++;
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "ces_group_end: rank %" PRIu32 " ended a second group before rank %" PRIu32
                             " ended the first (in one process, end each group on every "
                             "communicator in turn)",
                             idx, missing);
    }
    *arrived |= 1u << idx;
    if (*arrived == all) {
        *arrived = 0;
        *last = 1;
    }
    return CES_OK;
}
