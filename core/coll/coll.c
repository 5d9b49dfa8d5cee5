/*
 * core/coll/coll.c - the builder driver: parameter defaults and checks, the
 * dispatch to one description per collective, the program header and the
 * phases, and the parse/expand paths (ces_coll_program, ces_coll_build).
 *
 * Size convention (B = params.bytes, n = ranks):
 *   alltoall   send and recv of B bytes; B/n bytes per peer (B % n == 0)
 *   allgather  send B, recv n*B
 *   gather     send B, recv n*B (filled on the root)
 *   scatter    send n*B (read on the root), recv B
 *   broadcast  send B, recv B
 *   sendrecv   each message is B bytes (B % chunks == 0)
 *   barrier    no data
 */
#include "coll.h"
#include "prog.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const struct ces_coll_desc *const descs[CES_COLL_COUNT] = {
    [CES_COLL_ALLTOALL] = &ces_coll_alltoall_desc,
    [CES_COLL_ALLGATHER] = &ces_coll_allgather_desc,
    [CES_COLL_GATHER] = &ces_coll_gather_desc,
    [CES_COLL_SCATTER] = &ces_coll_scatter_desc,
    [CES_COLL_BROADCAST] = &ces_coll_broadcast_desc,
    [CES_COLL_SENDRECV] = &ces_coll_sendrecv_desc,
    [CES_COLL_BARRIER] = &ces_coll_barrier_desc,
};

/* Largest first_iter: keeps every sequence value far from int64 overflow. */
#define COLL_MAX_FIRST_ITER (UINT64_C(1) << 32)

void ces_coll_params_init(struct ces_coll_params *p, uint32_t coll)
{
    if (p == NULL)
        return;
    memset(p, 0, sizeof(*p));
    p->coll = coll;
    p->proto = CES_PROTO_MONO;
    p->ranks = 2;
    p->bytes = 1024;
    p->iterations = 1;
    p->phase = CES_PHASE_EAGER;
    p->root = 0;
    p->chunks = 4;
    p->slots = 2;
    p->first_iter = 1;
}

void ces_coll_lin(const struct ces_cgen *cg, char *buf, size_t size, int64_t a, int64_t b)
{
    const char *g = cg->offset ? "$i+$I0" : "$i";
    int n;

    assert(a >= 0);
    if (a == 0) {
        snprintf(buf, size, "%" PRId64, b);
        return;
    }
    if (a == 1)
        n = snprintf(buf, size, "%s", g);
    else if (cg->offset)
        n = snprintf(buf, size, "%" PRId64 "*(%s)", a, g);
    else
        n = snprintf(buf, size, "%" PRId64 "*%s", a, g);
    assert(n > 0 && (size_t)n < size);
    if (b > 0)
        snprintf(buf + n, size - (size_t)n, "+%" PRId64, b);
    else if (b < 0)
        snprintf(buf + n, size - (size_t)n, "-%" PRIu64, (uint64_t)0 - (uint64_t)b);
}

int ces_coll_check_root(struct ces_ctx *ctx, const struct ces_coll_params *p)
{
    if (p->root >= p->ranks)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "%s: root must be a rank (0..%" PRIu32 "), not %" PRIu32,
                             ces_coll_name((int)p->coll), p->ranks - 1, p->root);
    return CES_OK;
}

int ces_coll_check_total(struct ces_ctx *ctx, const struct ces_coll_params *p)
{
    if (p->bytes > CES_MAX_BYTES / p->ranks)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "%s: ranks x bytes (%" PRIu32 " x %" PRIu64 ") exceeds 2^48 bytes",
                             ces_coll_name((int)p->coll), p->ranks, p->bytes);
    return CES_OK;
}

int ces_coll_check_rooted(struct ces_ctx *ctx, const struct ces_coll_params *p)
{
    int rc = ces_coll_check_root(ctx, p);

    return rc != CES_OK ? rc : ces_coll_check_total(ctx, p);
}

void ces_coll_plain_decls(struct ces_cgen *cg)
{
    descs[cg->p.coll]->decls(cg);
}

int ces_coll_plain_check(struct ces_ctx *ctx, const struct ces_coll_params *p)
{
    return descs[p->coll]->check(ctx, p);
}

void ces_coll_gather_pushes(struct ces_cgen *cg)
{
    char lines[96];

    snprintf(lines, sizeof(lines),
             "batch\ncopy send[0:$C] -> recv[$r*$C:($r+1)*$C]@%" PRIu32 "\nend\n", cg->p.root);
    ces_coll_each_but_root(cg, lines);
}

void ces_coll_root_pushes(struct ces_cgen *cg, const char *src)
{
    uint32_t root = cg->p.root;

    ces_sb_printf(&cg->sb,
                  "r%" PRIu32 " : batch\n"
                  "r%" PRIu32 " over p : copy %s -> recv[0:$C]@$p\n"
                  "r%" PRIu32 " : end\n",
                  root, root, src, root);
}

/* For every rank K but the root, each line of `lines` (every one ending in
 * '\n') as `rK : line`. */
void ces_coll_each_but_root(struct ces_cgen *cg, const char *lines)
{
    for (uint32_t k = 0; k < cg->p.ranks; k++) {
        if (k == cg->p.root)
            continue;
        for (const char *l = lines; *l != '\0';) {
            const char *nl = strchr(l, '\n');

            ces_sb_printf(&cg->sb, "r%" PRIu32 " : %.*s\n", k, (int)(nl - l), l);
            l = nl + 1;
        }
    }
}

/* Fills the defaults of zero fields and checks what every collective
 * shares.  *q receives the normalized parameters.  Every error but an
 * unknown collective begins with the collective, as its own checks do. */
static int check_common(struct ces_ctx *ctx, const struct ces_coll_params *p,
                        struct ces_coll_params *q)
{
    const char *name;

    *q = *p;
    if (q->chunks == 0)
        q->chunks = 4;
    if (q->slots == 0) /* credit takes at most a slot per chunk */
        q->slots = q->proto == CES_PROTO_CREDIT && q->chunks < 2 ? q->chunks : 2;
    if (q->first_iter == 0)
        q->first_iter = 1;
    if (q->coll >= CES_COLL_COUNT)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "unknown collective #%" PRIu32, q->coll);
    name = ces_coll_name((int)q->coll);
    if (q->proto >= CES_PROTO_COUNT)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "%s: unknown sync protocol #%" PRIu32, name,
                             q->proto);
    if (q->ranks < 1 || q->ranks > CES_MAX_RANKS)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "%s: ranks must be 1..%u, not %" PRIu32,
                             name, CES_MAX_RANKS, q->ranks);
    if (q->coll != CES_COLL_BARRIER && (q->bytes < 1 || q->bytes > CES_MAX_BYTES))
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "%s: bytes must be 1..%" PRIu64 " (2^48), not %" PRIu64, name,
                             CES_MAX_BYTES, q->bytes);
    if (q->iterations < 1)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "%s: iterations must be at least 1, not 0",
                             name);
    if (q->phase != CES_PHASE_EAGER && q->phase != CES_PHASE_GRAPH)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "%s: phase must be eager (0) or graph (1), not %" PRIu32, name,
                             q->phase);
    if (q->first_iter > COLL_MAX_FIRST_ITER)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "%s: first_iter must be 1..%" PRIu64 ", not %" PRIu64, name,
                             COLL_MAX_FIRST_ITER, q->first_iter);
    if (q->wake > 0 && (q->coll == CES_COLL_SENDRECV || q->coll == CES_COLL_BARRIER))
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "%s: the wake chain applies to alltoall, allgather, gather, scatter "
                             "and broadcast only",
                             name);
    if (q->wake > CES_COLL_MAX_WAKE)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "%s: wake must be 0..%u copies, not %" PRIu32,
                             name, CES_COLL_MAX_WAKE, q->wake);
    if (q->proto == CES_PROTO_MONO && q->phase == CES_PHASE_GRAPH)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "%s: mono is not graph-safe: its counters grow with $i, which a "
                             "graph replay freezes; use CES_PROTO_CREDIT for graph phases",
                             name);
    return CES_OK;
}

/* The body's first barrier uses `complete` when an odd number of barriers
 * came before it (nccl alternates arrays by the global barrier count). */
static uint32_t nccl_parity(const struct ces_cgen *cg, uint64_t iter)
{
    return (uint32_t)(((uint64_t)cg->nsyncs * (iter - 1)) & 1u);
}

/* Whether rank r runs the wake chain: every rank of alltoall and allgather;
 * of the rooted collectives the ranks that copy nothing at all: the ranks
 * but the root of scatter and broadcast, and the root of gather in place
 * (out of place it copies its own part, which on 2x H200 kept its waits
 * prompt: with the chain beside that copy `cesync bench gather --root 1`
 * took 16.7-24.2 us at 1 MiB in three runs, without it 15.3-16.5). */
static bool wake_rank(const struct ces_cgen *cg, uint32_t r)
{
    if (cg->p.coll == CES_COLL_ALLTOALL || cg->p.coll == CES_COLL_ALLGATHER)
        return true;
    if (cg->p.coll == CES_COLL_GATHER)
        return r == cg->p.root && (cg->p.flags & CES_COLL_F_INPLACE) != 0;
    return r != cg->p.root;
}

/* The wake chain's fork on every rank that runs it (params.wake, wake_rank):
 * stream s<w> (the one after the collective's own) copies `wake` pieces
 * from the lower half of buffer `wake` into its upper half, in one batch,
 * between events that the iteration's start and end link to s0.  It
 * touches nothing else, so it cannot change what the schedule computes;
 * it only keeps a copy in flight on that rank while it waits. */
static void wake_fork(struct ces_cgen *cg, uint32_t w)
{
    const uint64_t piece = CES_COLL_WAKE_PIECE, half = (uint64_t)CES_COLL_MAX_WAKE * piece;

    for (uint32_t r = 0; r < cg->p.ranks; r++) {
        if (!wake_rank(cg, r))
            continue;
        ces_sb_printf(&cg->sb, "r%" PRIu32 " : record wake\nr%" PRIu32 " s%" PRIu32
                               " : await wake\nr%" PRIu32 " s%" PRIu32 " : batch\n",
                      r, r, w, r, w);
        for (uint64_t j = 0; j < cg->p.wake; j++)
            ces_sb_printf(&cg->sb,
                          "r%" PRIu32 " s%" PRIu32 " : copy wake[%" PRIu64 ":%" PRIu64
                          "] -> wake[%" PRIu64 ":%" PRIu64 "]\n",
                          r, w, j * piece, (j + 1) * piece, half + j * piece,
                          half + (j + 1) * piece);
        ces_sb_printf(&cg->sb, "r%" PRIu32 " s%" PRIu32 " : end\nr%" PRIu32 " s%" PRIu32
                               " : record woke\n",
                      r, w, r, w);
    }
}

static void wake_join(struct ces_cgen *cg)
{
    for (uint32_t r = 0; r < cg->p.ranks; r++)
        if (wake_rank(cg, r))
            ces_sb_printf(&cg->sb, "r%" PRIu32 " : await woke\n", r);
}

static void emit_body(struct ces_cgen *cg, const struct ces_coll_desc *d, const char *kind,
                      uint32_t reps, uint64_t iter)
{
    cg->parity = nccl_parity(cg, iter);
    ces_sb_printf(&cg->sb, "phase %s x%" PRIu32 "\n", kind, reps);
    if (cg->p.wake > 0)
        wake_fork(cg, d->streams);
    d->body(cg);
    if (cg->nsyncs > 0)
        ces_coll_sync_tail(cg);
    if (cg->p.wake > 0)
        wake_join(cg);
}

/* nccl's eager phase per iteration, past the expansion's bound on ops: the
 * expansion's refusal (the line and column of the first op past it) before
 * any iteration's text is written.  Every iteration's phase has the lines
 * of the first, so the text of one iteration says where that op falls. */
static int nccl_eager_ops_bound(struct ces_ctx *ctx, const struct ces_coll_params *p,
                                uint32_t iterations)
{
    struct ces_coll_params one = *p;
    struct ces_prog *prog = NULL;
    const struct ces_pphase *ph;
    char *text = NULL;
    size_t len = 0;
    uint64_t body = 0, fit, left;
    uint32_t lines = 0;
    int rc;

    one.iterations = 1;
    rc = ces_coll_source(ctx, &one, &text, &len);
    if (rc == CES_OK)
        rc = ces_prog_parse(ctx, text, len, ces_coll_name((int)p->coll), &prog);
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    ces_free(ctx, text);
    if (rc != CES_OK)
        return rc;
    ph = &CES_VEC_AT(&prog->phases, struct ces_pphase, 0);
    for (size_t k = 0; k < ph->nops; k++)
        body += ces_prog_line_ops(prog, &CES_VEC_AT(&prog->ops, struct ces_pop, ph->first_op + k));
    /* the iterations that fit whole; the next holds the first op past it */
    fit = body > 0 ? CES_EXPAND_MAX_OPS / body : UINT64_MAX;
    left = CES_EXPAND_MAX_OPS - fit * body;
    for (size_t k = 0; fit < iterations && k < ph->nops; k++) {
        const struct ces_pop *po = &CES_VEC_AT(&prog->ops, struct ces_pop, ph->first_op + k);
        uint64_t c = ces_prog_line_ops(prog, po);

        if (c > left) {
            /* the phase's lines to the end of the text, once per iteration */
            rc = ces_prog_ops_error(ctx, prog->file,
                                    po->line + (uint32_t)fit * (lines - ph->line + 1),
                                    po->who_col, "use fewer ops");
            break;
        }
        left -= c;
    }
    ces_prog_destroy(prog);
    return rc;
}

int ces_coll_source(struct ces_ctx *ctx, const struct ces_coll_params *p, char **text,
                    size_t *len)
{
    struct ces_cgen cg;
    const struct ces_coll_desc *d;
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (p == NULL || text == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_coll_source: NULL argument");
    *text = NULL;
    if (len != NULL)
        *len = 0;
    memset(&cg, 0, sizeof(cg));
    rc = check_common(ctx, p, &cg.p);
    if (rc != CES_OK)
        return rc;
    d = descs[cg.p.coll];
    rc = ces_coll_variant(ctx, &cg.p, &d);
    if (rc != CES_OK)
        return rc;
    if (d->check != NULL) {
        rc = d->check(ctx, &cg.p);
        if (rc != CES_OK)
            return rc;
    }
    if (cg.p.proto == CES_PROTO_PULL && d->nsyncs == 1)
        return ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                             "%s: pull needs two barriers per iteration (a rank writes its flag "
                             "for a peer again only after a later barrier shows that the peer "
                             "has reset it); use CES_PROTO_CREDIT",
                             ces_coll_name((int)cg.p.coll));
    cg.nsyncs = d->nsyncs;
    /* A phase per iteration (below): past the expander's bound on blocks
     * no such text expands, and writing it would only fill memory. */
    if (cg.p.proto == CES_PROTO_NCCL && cg.p.phase == CES_PHASE_EAGER && (cg.nsyncs & 1u) != 0) {
        uint64_t most = CES_EXPAND_MAX_RANK_BLOCKS / cg.p.ranks;

        if (most > CES_EXPAND_MAX_BLOCKS)
            most = CES_EXPAND_MAX_BLOCKS;
        if (cg.p.iterations > most)
            return ces_ctx_error(ctx, CES_ERR_LIMIT,
                                 "%s: nccl runs each eager iteration in a phase of its own (an "
                                 "odd number of barriers alternates its arrays): at most %" PRIu64
                                 " iterations of %" PRIu32 " ranks expand, not %" PRIu32,
                                 ces_coll_name((int)cg.p.coll), most, cg.p.ranks,
                                 cg.p.iterations);
        /* (one iteration is far below the bound on ops: 2 * 1024 * 1023) */
        if (cg.p.iterations > 1) {
            rc = nccl_eager_ops_bound(ctx, p, cg.p.iterations);
            if (rc != CES_OK)
                return rc;
        }
    }
    cg.offset = cg.p.first_iter != 1;
    cg.directed = (cg.p.flags & CES_COLL_F_DIRECTED) != 0;
    /* No rank to run the chain (gather out of place): no stream, no buffer. */
    if (cg.p.wake > 0) {
        uint32_t r = 0;

        while (r < cg.p.ranks && !wake_rank(&cg, r))
            r++;
        if (r == cg.p.ranks)
            cg.p.wake = 0;
    }
    ces_sb_init(&cg.sb, ctx);
    ces_sb_printf(&cg.sb, "cesync %d\nranks %" PRIu32 "\nstreams %" PRIu32 "\n",
                  CES_FORMAT_VERSION, cg.p.ranks, d->streams + (cg.p.wake > 0 ? 1u : 0u));
    if (cg.offset)
        ces_sb_printf(&cg.sb, "let I0 = %" PRIu64 "\n", cg.p.first_iter - 1);
    d->decls(&cg);
    if (cg.p.wake > 0)
        ces_sb_printf(&cg.sb, "buffer wake %u\n", CES_COLL_WAKE_BYTES);
    if (cg.nsyncs > 0)
        ces_coll_sync_decls(&cg);
    if (cg.p.phase == CES_PHASE_GRAPH) {
        emit_body(&cg, d, "graph", cg.p.iterations, cg.p.first_iter);
    } else if (cg.p.proto == CES_PROTO_NCCL && (cg.nsyncs & 1u) != 0) {
        /* An odd number of barriers per iteration: consecutive iterations
         * start on different arrays, so each gets its own phase (bounded
         * above). */
        for (uint32_t it = 0; it < cg.p.iterations && cg.sb.status == CES_OK; it++)
            emit_body(&cg, d, "eager", 1, cg.p.first_iter + it);
    } else {
        emit_body(&cg, d, "eager", cg.p.iterations, cg.p.first_iter);
    }
    rc = ces_sb_finish(&cg.sb, text, len);
    if (rc != CES_OK)
        return ces_ctx_error(ctx, rc, "out of memory generating the %s schedule",
                             ces_coll_name((int)cg.p.coll));
    return CES_OK;
}

int ces_coll_program(struct ces_ctx *ctx, const struct ces_coll_params *p, struct ces_prog **out)
{
    char *text = NULL;
    size_t len = 0;
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (p == NULL || out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_coll_program: NULL argument");
    *out = NULL;
    rc = ces_coll_source(ctx, p, &text, &len);
    if (rc != CES_OK)
        return rc;
    rc = ces_prog_parse(ctx, text, len, ces_coll_name((int)p->coll), out);
    ces_free(ctx, text);
    /* made from builder options, no file: a refusal of its ranks, streams
     * or connections names no line of the text */
    if (rc == CES_OK) {
        memset((*out)->setting_line, 0, sizeof((*out)->setting_line));
        memset((*out)->setting_col, 0, sizeof((*out)->setting_col));
    }
    return rc;
}

int ces_coll_build(struct ces_ctx *ctx, const struct ces_coll_params *p, struct ces_graph **out)
{
    struct ces_prog *prog = NULL;
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (p == NULL || out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_coll_build: NULL argument");
    *out = NULL;
    rc = ces_coll_program(ctx, p, &prog);
    if (rc != CES_OK)
        return rc;
    rc = ces_prog_expand(ctx, prog, out);
    ces_prog_destroy(prog);
    return rc;
}
