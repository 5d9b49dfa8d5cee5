/*
 * core/expand.c - from the symbolic program (core/prog.h) to the concrete
 * op graph: evaluates expressions in checked 64-bit arithmetic, binds $r for
 * r* lines, repeats `over p` lines for each peer, unrolls eager phases into
 * one block per iteration and evaluates graph phases once (freezing $i),
 * then validates the graph.  Also ces_graph_load (parse + expand).
 */
#include "prog.h"

#include <assert.h>
#include <inttypes.h>
#include <string.h>

/* Bounds on what one program may expand to, so that `phase eager x4000000000`
 * fails with a message instead of exhausting memory (internal.h). */
#define MAX_EXPANDED_OPS CES_EXPAND_MAX_OPS
#define MAX_BLOCKS CES_EXPAND_MAX_BLOCKS
#define MAX_RANK_BLOCKS CES_EXPAND_MAX_RANK_BLOCKS

/* Reports a semantic error at line:col of p's file to ctx (the caller's
 * context, which need not be the one p was parsed with). */
static int xerr(struct ces_ctx *ctx, const struct ces_prog *p, uint32_t line, uint32_t col,
                const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static int xerr(struct ces_ctx *ctx, const struct ces_prog *p, uint32_t line, uint32_t col,
                const char *fmt, ...)
{
    char msg[CES_ERRMSG_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return ces_ctx_error(ctx, CES_ERR_SEMANTIC, "%s:%" PRIu32 ":%" PRIu32 ": %s", p->file, line,
                         col, msg);
}

/* --- expressions ---------------------------------------------------------- */

static bool add_overflows(int64_t a, int64_t b)
{
    return (b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b);
}

static bool sub_overflows(int64_t a, int64_t b)
{
    return (b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b);
}

static bool mul_overflows(int64_t a, int64_t b)
{
    if (a == 0 || b == 0)
        return false;
    if (a > 0)
        return b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a;
    return b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b;
}

int ces_prog_eval(struct ces_ctx *ctx, const struct ces_prog *p, int32_t e, struct ces_env *env,
                  int64_t *out)
{
    const struct ces_pexpr *x = CES_PEXPR(p, e);
    int64_t a = 0, b = 0;
    int rc;

    switch (x->kind) {
    case CES_EX_INT:
        *out = x->value;
        return CES_OK;
    case CES_EX_CONST:
        *out = CES_VEC_AT(&p->lets, struct ces_plet, (size_t)x->value).value;
        return CES_OK;
    case CES_EX_VAR:
        switch (x->var) {
        case CES_VAR_R: *out = env->r; break;
        case CES_VAR_N: *out = env->n; break;
        case CES_VAR_P: *out = env->p; break;
        default:
            *out = env->i;
            env->used_i = true;
            break;
        }
        return CES_OK;
    default:
        break;
    }
    rc = ces_prog_eval(ctx, p, x->a, env, &a);
    if (rc != CES_OK)
        return rc;
    if (x->kind == CES_EX_NEG) {
        if (a == INT64_MIN)
            return xerr(ctx, p, x->line, x->opcol,
                        "integer overflow: -(%" PRId64 ") does not fit in 64 bits", a);
        *out = -a;
        return CES_OK;
    }
    rc = ces_prog_eval(ctx, p, x->b, env, &b);
    if (rc != CES_OK)
        return rc;
    switch (x->kind) {
    case CES_EX_ADD:
        if (add_overflows(a, b))
            goto overflow;
        *out = a + b;
        break;
    case CES_EX_SUB:
        if (sub_overflows(a, b))
            goto overflow;
        *out = a - b;
        break;
    case CES_EX_MUL:
        if (mul_overflows(a, b))
            goto overflow;
        *out = a * b;
        break;
    case CES_EX_DIV:
        if (b == 0)
            return xerr(ctx, p, x->line, x->opcol, "division by zero: %" PRId64 "/0", a);
        if (a == INT64_MIN && b == -1)
            goto overflow;
        *out = a / b;
        break;
    case CES_EX_MOD:
        if (b == 0)
            return xerr(ctx, p, x->line, x->opcol, "modulo by zero: %" PRId64 "%%0", a);
        /* INT64_MIN % -1 is 0 mathematically but undefined in C */
        *out = b == -1 ? 0 : a % b;
        break;
    default:
        assert(0);
        return CES_ERR_INTERNAL;
    }
    return CES_OK;
overflow:
    return xerr(ctx, p, x->line, x->opcol, "integer overflow: %" PRId64 "%s%s%" PRId64 "%s does "
                "not fit in 64 bits", a,
                x->kind == CES_EX_ADD ? "+" : x->kind == CES_EX_SUB ? "-"
                : x->kind == CES_EX_MUL ? "*" : "/",
                b < 0 ? "(" : "", b, b < 0 ? ")" : "");
}

/* --- one op --------------------------------------------------------------- */

struct expander {
    struct ces_ctx *ctx;
    const struct ces_prog *p;
    struct ces_graph *g;
    struct ces_vec *tmp; /* [ranks] struct ces_op: the current block */
    uint32_t *evmap;     /* program event -> graph event, UINT32_MAX before first use */
    ces_expand_watch_fn *watch; /* NULL: none */
    void *ud;
    struct ces_expand_done done;
    uint64_t next; /* the ops made at which watch is called next */
};

#define EV_NONE UINT32_MAX

static int eval_rank(struct expander *X, int32_t e, struct ces_env *env, uint32_t *out)
{
    const struct ces_pexpr *x = CES_PEXPR(X->p, e);
    int64_t v;
    int rc = ces_prog_eval(X->ctx, X->p, e, env, &v);

    if (rc != CES_OK)
        return rc;
    if (v < 0 || v >= (int64_t)X->p->ranks)
        return xerr(X->ctx, X->p, x->line, x->col,
                    "rank %" PRId64 " is out of range: ranks are 0..%" PRIu32, v,
                    X->p->ranks - 1);
    *out = (uint32_t)v;
    return CES_OK;
}

static int eval_offset(struct expander *X, int32_t e, struct ces_env *env, const char *which,
                       uint64_t *out)
{
    const struct ces_pexpr *x = CES_PEXPR(X->p, e);
    int64_t v;
    int rc = ces_prog_eval(X->ctx, X->p, e, env, &v);

    if (rc != CES_OK)
        return rc;
    if (v < 0)
        return xerr(X->ctx, X->p, x->line, x->col,
                    "the region's %s bound is %" PRId64 ": expected 0 or more", which, v);
    if ((uint64_t)v > CES_MAX_BYTES)
        return xerr(X->ctx, X->p, x->line, x->col,
                    "the region's %s bound %" PRId64 " is over 2^48 (the largest buffer size)",
                    which, v);
    *out = (uint64_t)v;
    return CES_OK;
}

static int eval_region(struct expander *X, const struct ces_pregion *pr, struct ces_env *env,
                       struct ces_region *out)
{
    const struct ces_pbuf *buf = &CES_VEC_AT(&X->p->buffers, struct ces_pbuf, pr->buf);
    int rc;

    out->buf = pr->buf;
    out->rank = (uint32_t)env->r;
    rc = eval_offset(X, pr->lo, env, "lower", &out->lo);
    if (rc == CES_OK)
        rc = eval_offset(X, pr->hi, env, "upper", &out->hi);
    if (rc == CES_OK && pr->rank != CES_EX_NONE)
        rc = eval_rank(X, pr->rank, env, &out->rank);
    if (rc != CES_OK)
        return rc;
    if (out->lo > out->hi)
        return xerr(X->ctx, X->p, pr->line, pr->col,
                    "region %.*s%s[%" PRIu64 ":%" PRIu64 "]@%" PRIu32 " is backwards: its lower "
                    "bound is above its upper bound", CES_SHOWN(buf->name), out->lo, out->hi,
                    out->rank);
    if (out->hi > buf->size)
        return xerr(X->ctx, X->p, pr->line, pr->col,
                    "region %.*s%s[%" PRIu64 ":%" PRIu64 "]@%" PRIu32 " is out of range: %.*s%s "
                    "has %" PRIu64 " bytes", CES_SHOWN(buf->name), out->lo, out->hi, out->rank,
                    CES_SHOWN(buf->name), buf->size);
    return CES_OK;
}

static int eval_slot(struct expander *X, const struct ces_pslot *ps, struct ces_env *env,
                     struct ces_slot *out)
{
    const struct ces_psig *sig = &CES_VEC_AT(&X->p->signals, struct ces_psig, ps->sig);
    int64_t idx;
    int rc;

    out->sig = ps->sig;
    out->rank = ps->all ? CES_RANK_ALL : (uint32_t)env->r;
    rc = ces_prog_eval(X->ctx, X->p, ps->idx, env, &idx);
    if (rc == CES_OK && ps->rank != CES_EX_NONE)
        rc = eval_rank(X, ps->rank, env, &out->rank);
    if (rc != CES_OK)
        return rc;
    if (idx < 0 || idx >= (int64_t)sig->slots) {
        if (ps->all)
            return xerr(X->ctx, X->p, ps->line, ps->col,
                        "slot %.*s%s[%" PRId64 "]@* is out of range: %.*s%s has %" PRIu32
                        " slots", CES_SHOWN(sig->name), idx, CES_SHOWN(sig->name), sig->slots);
        return xerr(X->ctx, X->p, ps->line, ps->col,
                    "slot %.*s%s[%" PRId64 "]@%" PRIu32 " is out of range: %.*s%s has %" PRIu32
                    " slots", CES_SHOWN(sig->name), idx, out->rank, CES_SHOWN(sig->name),
                    sig->slots);
    }
    out->idx = (uint32_t)idx;
    return CES_OK;
}

static int eval_value(struct expander *X, int32_t e, struct ces_env *env, uint32_t width,
                      uint64_t *out)
{
    const struct ces_pexpr *x = CES_PEXPR(X->p, e);
    int64_t v;
    int rc = ces_prog_eval(X->ctx, X->p, e, env, &v);

    if (rc != CES_OK)
        return rc;
    if (v < 0)
        return xerr(X->ctx, X->p, x->line, x->col,
                    "the value is %" PRId64 ": expected 0 or more (signals hold unsigned values)",
                    v);
    /* u32 slots compare and store modulo 2^32, as the 32-bit stream memops do */
    *out = width == CES_U32 ? (uint64_t)v & UINT32_MAX : (uint64_t)v;
    return CES_OK;
}

/* The declared name of buffer b. */
static const char *buf_name(const struct expander *X, uint32_t b)
{
    return CES_VEC_AT(&X->p->buffers, struct ces_pbuf, b).name;
}

/* Appends one instance of line `po` for rank r (and peer p) to the block. */
static int expand_one(struct expander *X, const struct ces_pop *po, struct ces_env *env,
                      bool graph_phase)
{
    struct ces_op op;
    int rc = CES_OK;

    memset(&op, 0, sizeof(op));
    op.kind = po->kind;
    op.cmp = po->cmp;
    op.stream = po->stream;
    op.line = po->line;
    op.col = po->col;
    switch (po->kind) {
    case CES_OP_COPY:
        rc = eval_region(X, &po->a, env, &op.a);
        if (rc == CES_OK)
            rc = eval_region(X, &po->b, env, &op.b);
        if (rc == CES_OK && op.a.hi - op.a.lo != op.b.hi - op.b.lo)
            rc = xerr(X->ctx, X->p, po->line, po->col,
                      "copy sizes differ: source %.*s%s[%" PRIu64 ":%" PRIu64 "]@%" PRIu32
                      " has %" PRIu64 " bytes, destination %.*s%s[%" PRIu64 ":%" PRIu64 "]@%"
                      PRIu32 " has %" PRIu64, CES_SHOWN(buf_name(X, op.a.buf)), op.a.lo, op.a.hi,
                      op.a.rank, op.a.hi - op.a.lo, CES_SHOWN(buf_name(X, op.b.buf)), op.b.lo,
                      op.b.hi, op.b.rank, op.b.hi - op.b.lo);
        break;
    case CES_OP_WRITE:
    case CES_OP_WAIT:
        rc = eval_slot(X, &po->slot, env, &op.slot);
        if (rc == CES_OK)
            rc = eval_value(X, po->value, env,
                            CES_VEC_AT(&X->p->signals, struct ces_psig, po->slot.sig).width,
                            &op.value);
        break;
    case CES_OP_RECORD:
    case CES_OP_AWAIT:
        op.event = po->event; /* mapped to the graph's table when the block is flushed */
        break;
    case CES_OP_PRODUCE:
        rc = eval_region(X, &po->a, env, &op.a);
        break;
    case CES_OP_CONSUME:
        rc = eval_region(X, &po->a, env, &op.a);
        if (rc == CES_OK && po->expect) {
            op.flags |= CES_OPF_EXPECT;
            rc = eval_region(X, &po->b, env, &op.b);
            if (rc == CES_OK && op.a.hi - op.a.lo != op.b.hi - op.b.lo)
                rc = xerr(X->ctx, X->p, po->line, po->col,
                          "consume sizes differ: %.*s%s[%" PRIu64 ":%" PRIu64 "]@%" PRIu32
                          " has %" PRIu64 " bytes, the expected %.*s%s[%" PRIu64 ":%" PRIu64
                          "]@%" PRIu32 " has %" PRIu64, CES_SHOWN(buf_name(X, op.a.buf)),
                          op.a.lo, op.a.hi, op.a.rank, op.a.hi - op.a.lo,
                          CES_SHOWN(buf_name(X, op.b.buf)), op.b.lo, op.b.hi, op.b.rank,
                          op.b.hi - op.b.lo);
        }
        break;
    default:
        break;
    }
    if (rc != CES_OK)
        return rc;
    if (graph_phase && po->uses_i)
        op.flags |= CES_OPF_FROZEN;
    rc = ces_vec_push(X->ctx, &X->tmp[env->r], sizeof(op), &op);
    if (rc != CES_OK)
        return ces_ctx_error(X->ctx, CES_ERR_NOMEM, "out of memory expanding %s", X->p->file);
    /* a write to @* is one op per rank (ces_graph_add_op), as counted */
    X->done.ops += op.kind == CES_OP_WRITE && op.slot.rank == CES_RANK_ALL ? X->p->ranks : 1;
    return CES_OK;
}

uint64_t ces_prog_line_ops(const struct ces_prog *p, const struct ces_pop *po)
{
    uint64_t who = po->all_ranks ? p->ranks : 1;
    uint64_t peers = po->over == CES_OVER_NONE ? 1 : po->over == CES_OVER_ALL ? p->ranks
                                                                              : p->ranks - 1;
    /* a write to @* is one write per rank (ces_graph_add_op) */
    uint64_t writes = po->kind == CES_OP_WRITE && po->slot.all ? p->ranks : 1;

    return who * peers * writes;
}

int ces_prog_ops_error(struct ces_ctx *ctx, const char *file, uint32_t line, uint32_t col,
                       const char *advice)
{
    return ces_ctx_error(ctx, CES_ERR_LIMIT,
                         "%s:%" PRIu32 ":%" PRIu32 ": the schedule expands to more than %" PRIu64
                         " ops: %s", file, line, col, MAX_EXPANDED_OPS, advice);
}

/* Checks the expansion's bounds before anything is built: the counts follow
 * from the program alone, and an input of a few lines must not fill memory
 * (or take seconds) before it is refused.  The error names the phase whose
 * block, or the line whose op, is the first past a bound. */
static int check_bounds(struct ces_ctx *ctx, const struct ces_prog *p,
                        struct ces_expand_done *all)
{
    uint64_t max_blocks = MAX_RANK_BLOCKS / p->ranks;
    uint64_t blocks = 0, nops = 0;
    /* the advice: replays of eager iterations can become one graph phase;
     * graph phases (and eager ones of one iteration) only fewer */
    const char *fewer_blocks = "use fewer phases", *fewer_ops = "use fewer ops";

    if (max_blocks > MAX_BLOCKS)
        max_blocks = MAX_BLOCKS;
    for (size_t f = 0; f < p->phases.len; f++) {
        const struct ces_pphase *ph = &CES_VEC_AT(&p->phases, struct ces_pphase, f);

        if (ph->kind != CES_PHASE_GRAPH && ph->reps > 1)
            fewer_blocks = fewer_ops = "use a graph phase or fewer iterations";
    }
    for (size_t f = 0; f < p->phases.len; f++) {
        const struct ces_pphase *ph = &CES_VEC_AT(&p->phases, struct ces_pphase, f);
        uint32_t instances = ph->kind == CES_PHASE_GRAPH ? 1 : ph->reps;
        uint64_t body = 0;

        for (size_t k = 0; k < ph->nops; k++)
            body += ces_prog_line_ops(p, &CES_VEC_AT(&p->ops, struct ces_pop, ph->first_op + k));
        /* at most max_blocks turns in all: the block bound stops the loop */
        for (uint32_t k = 0; k < instances; k++) {
            uint64_t left = MAX_EXPANDED_OPS - nops;

            if (++blocks > max_blocks && max_blocks == MAX_BLOCKS)
                return ces_ctx_error(ctx, CES_ERR_LIMIT,
                                     "%s:%" PRIu32 ":1: the schedule expands to more than %"
                                     PRIu64 " blocks: %s",
                                     p->file, ph->line, max_blocks, fewer_blocks);
            if (blocks > max_blocks)
                return ces_ctx_error(ctx, CES_ERR_LIMIT,
                                     "%s:%" PRIu32 ":1: the schedule expands to more than %"
                                     PRIu64 " blocks of %" PRIu32 " ranks: %s", p->file, ph->line,
                                     max_blocks, p->ranks, fewer_blocks);
            if (body <= left) {
                nops += body;
                all->blocks_all = blocks;
                all->ops_all = nops;
                continue;
            }
            for (size_t j = 0;; j++) {
                const struct ces_pop *po = &CES_VEC_AT(&p->ops, struct ces_pop, ph->first_op + j);
                uint64_t c = ces_prog_line_ops(p, po);

                if (c > left)
                    return ces_prog_ops_error(ctx, p->file, po->line, po->who_col, fewer_ops);
                left -= c;
            }
        }
    }
    return CES_OK;
}

/* The watcher's turn, about every 65,536 ops made; CES_ERR_TIMEOUT, said
 * with how far it came, where the watcher stops the expansion. */
static int watch_made(struct expander *X)
{
    if (X->watch == NULL || X->done.ops < X->next)
        return CES_OK;
    X->next = X->done.ops + 0x10000u;
    if (X->watch(X->ud, &X->done) == 0)
        return CES_OK;
    return ces_ctx_error(X->ctx, CES_ERR_TIMEOUT,
                         "%s: %" PRIu64 " of %" PRIu64 " block%s (%" PRIu64 " of %" PRIu64
                         " op%s) expanded", X->p->file, X->done.blocks, X->done.blocks_all,
                         ces_plural(X->done.blocks_all), X->done.ops, X->done.ops_all,
                         ces_plural(X->done.ops_all));
}

/* Expands every line of a phase body once, with $i = iter. */
static int expand_body(struct expander *X, const struct ces_pphase *ph, uint64_t iter,
                       bool graph_phase)
{
    uint32_t n = X->p->ranks;

    for (size_t k = 0; k < ph->nops; k++) {
        const struct ces_pop *po = &CES_VEC_AT(&X->p->ops, struct ces_pop, ph->first_op + k);
        uint32_t r0 = po->all_ranks ? 0 : po->rank;
        uint32_t r1 = po->all_ranks ? n : po->rank + 1;

        for (uint32_t r = r0; r < r1; r++) {
            /* over p: the other ranks from $r+1 on, rotated; over p*: $r first */
            uint32_t first = po->over == CES_OVER_ALL ? 0 : 1;
            uint32_t count = po->over == CES_OVER_NONE ? 1 : po->over == CES_OVER_ALL ? n : n - 1;

            for (uint32_t j = 0; j < count; j++) {
                struct ces_env env = {r, n, (r + first + j) % n, (int64_t)iter, false};
                int rc = expand_one(X, po, &env, graph_phase);

                if (rc == CES_OK)
                    rc = watch_made(X);
                if (rc != CES_OK)
                    return rc;
            }
        }
    }
    return CES_OK;
}

/* Moves the block's ops into the graph, rank by rank.  Events enter the
 * graph's table in that order (the order of the concrete text), so that the
 * printed graph parses back to an equal one. */
static int flush_block(struct expander *X)
{
    int rc = CES_OK;

    for (uint32_t r = 0; r < X->p->ranks; r++) {
        struct ces_vec *v = &X->tmp[r];

        for (size_t k = 0; k < v->len && rc == CES_OK; k++) {
            struct ces_op *op = &CES_VEC_AT(v, struct ces_op, k);

            if (op->kind == CES_OP_RECORD || op->kind == CES_OP_AWAIT) {
                uint32_t *m = &X->evmap[op->event];

                if (*m == EV_NONE)
                    rc = ces_graph_add_event(X->g, CES_VEC_AT(&X->p->events, char *, op->event),
                                             m);
                op->event = *m;
            }
            if (rc == CES_OK)
                rc = ces_graph_add_op(X->g, r, op);
        }
        v->len = 0;
        if (rc != CES_OK)
            return rc;
    }
    return CES_OK;
}

static int add_tables(struct expander *X)
{
    const struct ces_prog *p = X->p;
    int rc = ces_graph_set_connections(X->g, p->connections);

    /* where the file gives them, for the messages of those who refuse them */
    memcpy(X->g->setting_line, p->setting_line, sizeof(p->setting_line));
    memcpy(X->g->setting_col, p->setting_col, sizeof(p->setting_col));
    for (size_t k = 0; k < p->lets.len && rc == CES_OK; k++) {
        const struct ces_plet *l = &CES_VEC_AT(&p->lets, struct ces_plet, k);

        rc = ces_graph_add_const(X->g, l->name, l->value);
    }
    for (size_t k = 0; k < p->buffers.len && rc == CES_OK; k++) {
        const struct ces_pbuf *b = &CES_VEC_AT(&p->buffers, struct ces_pbuf, k);

        rc = ces_graph_add_buffer(X->g, b->name, b->size, NULL);
    }
    for (size_t k = 0; k < p->signals.len && rc == CES_OK; k++) {
        const struct ces_psig *s = &CES_VEC_AT(&p->signals, struct ces_psig, k);

        rc = ces_graph_add_signal(X->g, s->name, s->width, s->slots, NULL);
    }
    return rc;
}

/* The validation's calls of the watcher (ces_validate_tick_fn). */
static int watch_validated(void *ud, uint64_t validated)
{
    struct expander *X = ud;

    X->done.validated = validated;
    return X->watch(X->ud, &X->done);
}

int ces_prog_expand(struct ces_ctx *ctx, const struct ces_prog *p, struct ces_graph **out)
{
    return ces_prog_expand_watched(ctx, p, NULL, NULL, out);
}

int ces_prog_expand_watched(struct ces_ctx *ctx, const struct ces_prog *p,
                            ces_expand_watch_fn *watch, void *ud, struct ces_graph **out)
{
    struct expander X;
    uint64_t iter = 1;
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (p == NULL || out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_prog_expand: NULL argument");
    *out = NULL;
    memset(&X, 0, sizeof(X));
    rc = check_bounds(ctx, p, &X.done);
    if (rc != CES_OK)
        return rc;
    X.ctx = ctx;
    X.p = p;
    X.watch = watch;
    X.ud = ud;
    X.next = 0x10000u;
    rc = ces_graph_create(ctx, p->ranks, p->streams, &X.g);
    if (rc != CES_OK)
        return rc;
    rc = add_tables(&X);
    if (rc != CES_OK)
        goto fail;
    X.tmp = ces_malloc(ctx, sizeof(struct ces_vec) * p->ranks);
    if (X.tmp != NULL)
        memset(X.tmp, 0, sizeof(struct ces_vec) * p->ranks);
    X.evmap = ces_malloc(ctx, sizeof(uint32_t) * (p->events.len + 1));
    if (X.tmp == NULL || X.evmap == NULL) {
        rc = ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory expanding %s", p->file);
        goto fail;
    }
    for (size_t k = 0; k < p->events.len; k++)
        X.evmap[k] = EV_NONE;
    for (size_t f = 0; f < p->phases.len; f++) {
        const struct ces_pphase *ph = &CES_VEC_AT(&p->phases, struct ces_pphase, f);
        bool graph = ph->kind == CES_PHASE_GRAPH;
        /* an eager phase is enqueued anew each iteration; a graph phase is
         * captured once and replayed reps times with the captured values */
        uint32_t instances = graph ? 1 : ph->reps;

        for (uint32_t k = 0; k < instances; k++) {
            rc = ces_graph_add_block(X.g, ph->kind, graph ? ph->reps : 1);
            if (rc == CES_OK)
                rc = expand_body(&X, ph, iter + k, graph);
            if (rc == CES_OK)
                rc = flush_block(&X);
            X.done.blocks++;
            if (rc != CES_OK)
                goto fail;
        }
        iter += ph->reps;
    }
    rc = watch == NULL ? ces_graph_validate(X.g, p->file)
                       : ces_graph_validate_watched(X.g, p->file, watch_validated, &X);
    if (rc == CES_ERR_TIMEOUT)
        rc = ces_ctx_error(ctx, rc,
                           "%s: every block expanded, %" PRIu64 " of its %" PRIu64
                           " op%s validated", p->file, X.done.validated, X.done.ops_all,
                           ces_plural(X.done.ops_all));
    if (rc != CES_OK)
        goto fail;
    *out = X.g;
    X.g = NULL;
fail:
    if (X.tmp != NULL) {
        for (uint32_t r = 0; r < p->ranks; r++)
            ces_vec_free(ctx, &X.tmp[r]);
    }
    ces_free(ctx, X.tmp);
    ces_free(ctx, X.evmap);
    ces_graph_destroy(X.g);
    return rc;
}

int ces_graph_load(struct ces_ctx *ctx, const char *path, struct ces_graph **out)
{
    struct ces_prog *p = NULL;
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (path == NULL || out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_graph_load: NULL argument");
    *out = NULL;
    rc = ces_prog_parse_file(ctx, path, &p);
    if (rc == CES_OK)
        rc = ces_prog_expand(ctx, p, out);
    ces_prog_destroy(p);
    return rc;
}
