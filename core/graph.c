/*
 * core/graph.c - the concrete op graph: tables of buffers, signals, events
 * and constants, blocks of per-rank op lists, op-by-op construction with
 * range checks, whole-graph validation, accessors, equality, and the
 * concrete .ces printer.
 */
#include "internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int ces_graph_create(struct ces_ctx *ctx, uint32_t ranks, uint32_t streams,
                     struct ces_graph **out)
{
    struct ces_graph *g;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_graph_create: NULL argument");
    *out = NULL;
    if (ranks < 1 || ranks > CES_MAX_RANKS)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ranks must be 1..%u, not %" PRIu32,
                             CES_MAX_RANKS, ranks);
    if (streams < 1 || streams > CES_MAX_STREAMS)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "streams must be 1..%u, not %" PRIu32,
                             CES_MAX_STREAMS, streams);
    g = ces_malloc(ctx, sizeof(*g));
    if (g != NULL) {
        memset(g, 0, sizeof(*g));
        g->open = ces_malloc(ctx, sizeof(struct ces_vec) * ranks);
    }
    if (g == NULL || g->open == NULL) {
        ces_free(ctx, g);
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory creating a graph");
    }
    memset(g->open, 0, sizeof(struct ces_vec) * ranks);
    g->ctx = ctx;
    g->ranks = ranks;
    g->streams = streams;
    g->next_iter = 1;
    *out = g;
    return CES_OK;
}

static void free_named(struct ces_ctx *ctx, struct ces_vec *v)
{
    for (size_t i = 0; i < v->len; i++)
        ces_free(ctx, CES_VEC_AT(v, struct ces_named, i).name);
    ces_vec_free(ctx, v);
}

void ces_graph_destroy(struct ces_graph *g)
{
    struct ces_ctx *ctx;

    if (g == NULL)
        return;
    ctx = g->ctx;
    for (uint32_t r = 0; r < g->ranks; r++)
        ces_vec_free(ctx, &g->open[r]);
    ces_free(ctx, g->open);
    for (size_t b = 0; b < g->blocks.len; b++) {
        struct ces_op **own = CES_VEC_AT(&g->blocks, struct ces_gblock, b).own;

        for (uint32_t r = 0; own != NULL && r < g->ranks; r++)
            ces_free(ctx, own[r]);
    }
    for (size_t i = 0; i < g->chunks.len; i++)
        ces_free(ctx, CES_VEC_AT(&g->chunks, char *, i));
    ces_vec_free(ctx, &g->chunks);
    ces_vec_free(ctx, &g->blocks);
    free_named(ctx, &g->buffers);
    free_named(ctx, &g->signals);
    free_named(ctx, &g->events);
    free_named(ctx, &g->consts);
    ces_names_free(ctx, &g->buffer_names);
    ces_names_free(ctx, &g->signal_names);
    ces_names_free(ctx, &g->event_names);
    ces_names_free(ctx, &g->const_names);
    ces_free(ctx, g);
}

void ces_sb_connections(struct ces_sb *sb, uint32_t connections)
{
    if (connections == CES_CONNECTIONS_ANY)
        ces_sb_puts(sb, "connections any\n");
    else if (connections != 0)
        ces_sb_printf(sb, "connections %" PRIu32 "\n", connections);
}

int ces_graph_set_connections(struct ces_graph *g, uint32_t connections)
{
    if (g == NULL)
        return CES_ERR_INVALID;
    if (connections > CES_MAX_STREAMS && connections != CES_CONNECTIONS_ANY)
        return ces_ctx_error(g->ctx, CES_ERR_INVALID,
                             "connections must be 0..%u or CES_CONNECTIONS_ANY, not %" PRIu32,
                             CES_MAX_STREAMS, connections);
    g->connections = connections;
    g->setting_line[CES_SETTING_CONNECTIONS] = 0; /* no longer the file's */
    g->setting_col[CES_SETTING_CONNECTIONS] = 0;
    return CES_OK;
}

static int64_t find_named(const struct ces_names *ix, const char *name)
{
    return name != NULL ? ces_names_find(ix, name, strlen(name)) : -1;
}

/* The name of entry i of table v. */
static const char *named(const struct ces_vec *v, uint32_t i)
{
    return CES_VEC_AT(v, struct ces_named, i).name;
}

/* Adds a named entry to table v, whose names ix indexes.  `other` is the
 * index of the table whose names v's may not take too (buffers and signals
 * share one name space, as in the .ces format and in ces_launch's
 * bindings), NULL for none. */
static int add_named(struct ces_graph *g, struct ces_vec *v, struct ces_names *ix,
                     const struct ces_names *other, const char *what,
                     const struct ces_named *proto, uint32_t *idx)
{
    struct ces_named n = *proto;
    int rc;

    if (!ces_is_ident(proto->name))
        return ces_ctx_error(g->ctx, CES_ERR_INVALID, "%s name '%.*s%s' is not an identifier",
                             what, CES_SHOWN(proto->name));
    if (find_named(ix, proto->name) >= 0)
        return ces_ctx_error(g->ctx, CES_ERR_INVALID, "%s '%.*s%s' is declared twice", what,
                             CES_SHOWN(proto->name));
    if (other != NULL && find_named(other, proto->name) >= 0)
        return ces_ctx_error(g->ctx, CES_ERR_INVALID,
                             "%s '%.*s%s': the name is already a %s's (buffers and signals share "
                             "one name space)",
                             what, CES_SHOWN(proto->name),
                             other == &g->buffer_names ? "buffer" : "signal");
    if (ces_names_reserve(g->ctx, ix) != CES_OK)
        return ces_ctx_error(g->ctx, CES_ERR_NOMEM, "out of memory adding %s", what);
    n.name = ces_strdup(g->ctx, proto->name);
    if (n.name == NULL)
        return ces_ctx_error(g->ctx, CES_ERR_NOMEM, "out of memory adding %s", what);
    rc = ces_vec_push(g->ctx, v, sizeof(n), &n);
    if (rc != CES_OK) {
        ces_free(g->ctx, n.name);
        return ces_ctx_error(g->ctx, rc, "out of memory adding %s", what);
    }
    ces_names_add(ix, n.name, (uint32_t)(v->len - 1));
    if (idx != NULL)
        *idx = (uint32_t)(v->len - 1);
    return CES_OK;
}

int ces_graph_add_buffer(struct ces_graph *g, const char *name, uint64_t size, uint32_t *idx)
{
    struct ces_named n = {(char *)name, size, 0, 0, false, false};

    if (g == NULL)
        return CES_ERR_INVALID;
    if (name == NULL)
        return ces_ctx_error(g->ctx, CES_ERR_INVALID, "ces_graph_add_buffer: NULL argument");
    if (size == 0 || size > CES_MAX_BYTES)
        return ces_ctx_error(g->ctx, CES_ERR_INVALID,
                             "buffer '%.*s%s': size must be 1..2^48 bytes, not %" PRIu64,
                             CES_SHOWN(name), size);
    return add_named(g, &g->buffers, &g->buffer_names, &g->signal_names, "buffer", &n, idx);
}

int ces_graph_add_signal(struct ces_graph *g, const char *name, uint32_t width, uint32_t slots,
                         uint32_t *idx)
{
    struct ces_named n = {(char *)name, slots, width, 0, false, false};

    if (g == NULL)
        return CES_ERR_INVALID;
    if (name == NULL)
        return ces_ctx_error(g->ctx, CES_ERR_INVALID, "ces_graph_add_signal: NULL argument");
    if (width != CES_U32 && width != CES_U64)
        return ces_ctx_error(g->ctx, CES_ERR_INVALID, "signal '%.*s%s': width must be u32 or u64",
                             CES_SHOWN(name));
    if (slots == 0 || slots > (1u << 24))
        return ces_ctx_error(g->ctx, CES_ERR_INVALID,
                             "signal '%.*s%s': slots must be 1..16777216, not %" PRIu32,
                             CES_SHOWN(name), slots);
    return add_named(g, &g->signals, &g->signal_names, &g->buffer_names, "signal", &n, idx);
}

int ces_graph_add_event(struct ces_graph *g, const char *name, uint32_t *idx)
{
    struct ces_named n = {(char *)name, 0, 0, 0, false, false};

    if (g == NULL)
        return CES_ERR_INVALID;
    if (name == NULL)
        return ces_ctx_error(g->ctx, CES_ERR_INVALID, "ces_graph_add_event: NULL argument");
    return add_named(g, &g->events, &g->event_names, NULL, "event", &n, idx);
}

int ces_graph_add_const(struct ces_graph *g, const char *name, int64_t value)
{
    struct ces_named n = {(char *)name, 0, 0, value, false, false};

    if (g == NULL)
        return CES_ERR_INVALID;
    if (name == NULL)
        return ces_ctx_error(g->ctx, CES_ERR_INVALID, "ces_graph_add_const: NULL argument");
    /* a constant prints as a `let`, whose name may not be a built-in one */
    if (name[0] != '\0' && name[1] == '\0' && strchr("rnpi", name[0]) != NULL)
        return ces_ctx_error(g->ctx, CES_ERR_INVALID,
                             "constant name '%s' is reserved: $r, $n, $p and $i are built in",
                             name);
    return add_named(g, &g->consts, &g->const_names, NULL, "constant", &n, NULL);
}

/* The arena's chunks start at 4 KiB and double up to 64 MiB: a chunk of
 * many 2 MiB pages can take huge pages where the C library asks for them
 * (GLIBC_TUNABLES=glibc.malloc.hugetlb=1, or transparent huge pages
 * "always"), which a large schedule's page faults are most of the time of.
 * A block of more than BLOCK_MOST bytes of ops keeps its own arrays. */
#define ARENA_FIRST ((size_t)4096)
#define ARENA_MOST ((size_t)1 << 26)
#define BLOCK_MOST ((size_t)1 << 20)

/* size bytes of the arena, aligned for a struct ces_op; NULL when out of
 * memory.  They stay until the graph is destroyed. */
static void *arena_alloc(struct ces_graph *g, size_t size)
{
    const size_t align = _Alignof(struct ces_op);
    char *p;

    size = (size + align - 1) / align * align;
    if (size > g->arena_left) {
        size_t chunk = g->arena_chunk == 0 ? ARENA_FIRST
                       : g->arena_chunk < ARENA_MOST ? 2 * g->arena_chunk : ARENA_MOST;

        if (ces_vec_reserve(g->ctx, &g->chunks, sizeof(char *), 1) != CES_OK)
            return NULL;
        p = ces_malloc(g->ctx, chunk > size ? chunk : size);
        if (p == NULL)
            return NULL;
        CES_VEC_AT(&g->chunks, char *, g->chunks.len++) = p;
        g->arena = p;
        g->arena_left = chunk > size ? chunk : size;
        g->arena_chunk = chunk;
    }
    p = g->arena;
    g->arena += size;
    g->arena_left -= size;
    return p;
}

/* Are the open lists' ops those of block `prev`, rank by rank, and prev's
 * in the arena?  (An eager phase whose ops do not read $i makes the same
 * block every iteration.) */
static bool same_as_open(const struct ces_graph *g, const struct ces_gblock *prev)
{
    if (prev->ops == NULL)
        return false;
    for (uint32_t r = 0; r < g->ranks; r++) {
        const struct ces_vec *v = &g->open[r];

        if (prev->start[r + 1] - prev->start[r] != v->len ||
            (v->len > 0 &&
             memcmp(prev->ops + prev->start[r], v->data, v->len * sizeof(struct ces_op)) != 0))
            return false;
    }
    return true;
}

/* Moves the last block's ops out of the open lists (struct ces_gblock),
 * which are left empty for the next block: into the arena where they are
 * BLOCK_MOST bytes or fewer, else the block keeps the lists' own arrays
 * (copying them would touch as much memory again).  A block whose ops are
 * the block's before it, in the arena, shares that block's array. */
static int seal_last(struct ces_graph *g)
{
    struct ces_gblock *blk = &CES_VEC_AT(&g->blocks, struct ces_gblock, g->blocks.len - 1);
    uint32_t *start;
    struct ces_op *ops = NULL, **own = NULL;
    size_t n = 0;

    if (g->blocks.len > 1 && same_as_open(g, blk - 1)) {
        blk->ops = blk[-1].ops;
        blk->start = blk[-1].start;
        for (uint32_t r = 0; r < g->ranks; r++)
            g->open[r].len = 0;
        return CES_OK;
    }
    start = arena_alloc(g, sizeof(uint32_t) * (g->ranks + 1));
    for (uint32_t r = 0; r < g->ranks; r++)
        n += g->open[r].len;
    /* (the offsets are 32-bit, as ces_graph_ops's counts are) */
    if (start == NULL || n > UINT32_MAX)
        return CES_ERR_NOMEM;
    if (n > BLOCK_MOST / sizeof(struct ces_op))
        own = arena_alloc(g, sizeof(struct ces_op *) * g->ranks);
    else if (n > 0)
        ops = arena_alloc(g, n * sizeof(struct ces_op));
    if (n > 0 && own == NULL && ops == NULL)
        return CES_ERR_NOMEM;
    start[0] = 0;
    for (uint32_t r = 0; r < g->ranks; r++) {
        struct ces_vec *v = &g->open[r];

        start[r + 1] = start[r] + (uint32_t)v->len;
        if (own != NULL) {
            own[r] = v->len > 0 ? v->data : NULL;
            if (v->len > 0)
                memset(v, 0, sizeof(*v));
        } else if (v->len > 0) {
            memcpy(ops + start[r], v->data, v->len * sizeof(struct ces_op));
        }
        v->len = 0;
    }
    blk->ops = ops;
    blk->own = own;
    blk->start = start;
    return CES_OK;
}

int ces_graph_add_block(struct ces_graph *g, uint32_t kind, uint32_t reps)
{
    struct ces_gblock blk;
    int rc;

    if (g == NULL)
        return CES_ERR_INVALID;
    if (kind != CES_PHASE_EAGER && kind != CES_PHASE_GRAPH)
        return ces_ctx_error(g->ctx, CES_ERR_INVALID, "phase kind must be eager or graph");
    if (reps < 1 || (kind == CES_PHASE_EAGER && reps != 1))
        return ces_ctx_error(g->ctx, CES_ERR_INVALID,
                             "a block repeats 1 time (eager) or K >= 1 times (graph), not %" PRIu32,
                             reps);
    blk.info.kind = kind;
    blk.info.reps = reps;
    blk.info.first_iter = g->next_iter;
    blk.ops = NULL;
    blk.own = NULL;
    blk.start = NULL;
    rc = ces_vec_reserve(g->ctx, &g->blocks, sizeof(blk), 1);
    if (rc == CES_OK && g->blocks.len > 0)
        rc = seal_last(g);
    if (rc != CES_OK)
        return ces_ctx_error(g->ctx, rc, "out of memory adding a block");
    CES_VEC_AT(&g->blocks, struct ces_gblock, g->blocks.len++) = blk;
    g->next_iter += reps;
    g->validated = false;
    return CES_OK;
}

int ces_op_where(char *buf, size_t size, uint32_t rank, uint32_t stream, uint64_t index,
                 const struct ces_op *op)
{
    if (op != NULL && op->line != 0)
        return snprintf(buf, size, "r%" PRIu32 ".s%" PRIu32 "#%" PRIu64 " (line %" PRIu32
                        ":%" PRIu32 ")", rank, stream, index, op->line, op->col);
    return snprintf(buf, size, "r%" PRIu32 ".s%" PRIu32 "#%" PRIu64, rank, stream, index);
}

int ces_setting_where(char *buf, size_t size, const struct ces_graph *g, uint32_t which)
{
    uint32_t col = 0, line = ces_graph_setting_line(g, which, &col);

    if (line != 0)
        return snprintf(buf, size, " (line %" PRIu32 ":%" PRIu32 ")", line, col);
    return snprintf(buf, size, "%s", "");
}

bool ces_wait_holds(uint32_t width, uint32_t cmp, uint64_t cur, uint64_t value)
{
    if (cmp == CES_CMP_EQ)
        return cur == value;
    if (width == CES_U32)
        return (int32_t)(uint32_t)((uint32_t)cur - (uint32_t)value) >= 0;
    return cur >= value;
}

/* Reports CES_ERR_INVALID about an op of rank's, the message prefixed
 * "line:col: " where the op has a source position, "rN.sM: " otherwise.
 * The prefix is made here, only for a message: an op that passes the
 * checks (every op of a valid graph) costs no formatting. */
static int op_error(struct ces_graph *g, uint32_t rank, const struct ces_op *op,
                    const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int op_error(struct ces_graph *g, uint32_t rank, const struct ces_op *op,
                    const char *fmt, ...)
{
    char pos[64], msg[CES_ERRMSG_MAX];
    va_list ap;

    if (op->line != 0)
        snprintf(pos, sizeof(pos), "%" PRIu32 ":%" PRIu32 ": ", op->line, op->col);
    else
        snprintf(pos, sizeof(pos), "r%" PRIu32 ".s%" PRIu32 ": ", rank, op->stream);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return ces_ctx_error(g->ctx, CES_ERR_INVALID, "%s%s", pos, msg);
}

static int check_region(struct ces_graph *g, uint32_t rank, const struct ces_op *op,
                        const struct ces_region *reg, const char *role)
{
    const struct ces_named *buf;

    if (reg->buf >= g->buffers.len)
        return op_error(g, rank, op, "%s region names buffer #%" PRIu32 " but the graph has %zu "
                        "buffers", role, reg->buf, g->buffers.len);
    buf = &CES_VEC_AT(&g->buffers, struct ces_named, reg->buf);
    if (reg->rank >= g->ranks)
        return op_error(g, rank, op,
                        "%s region %.*s%s@%" PRIu32 ": rank out of range (ranks are 0..%" PRIu32
                        ")", role, CES_SHOWN(buf->name), reg->rank, g->ranks - 1);
    if (reg->lo > reg->hi || reg->hi > buf->size)
        return op_error(g, rank, op,
                        "%s region %.*s%s[%" PRIu64 ":%" PRIu64 "] is out of range: expected 0 "
                        "<= lo <= hi <= %" PRIu64, role, CES_SHOWN(buf->name), reg->lo, reg->hi,
                        buf->size);
    return CES_OK;
}

static int check_op(struct ces_graph *g, uint32_t rank, struct ces_op *op)
{
    const struct ces_named *sig;
    int rc = CES_OK;

    if (op->kind >= CES_OP_COUNT)
        return op_error(g, rank, op, "unknown op kind %u", op->kind);
    if (op->stream >= g->streams)
        return op_error(g, rank, op,
                        "stream s%" PRIu32 " out of range (streams are s0..s%" PRIu32 ")",
                        op->stream, g->streams - 1);
    switch (op->kind) {
    case CES_OP_COPY:
        rc = check_region(g, rank, op, &op->a, "source");
        if (rc == CES_OK)
            rc = check_region(g, rank, op, &op->b, "destination");
        if (rc == CES_OK && op->a.hi - op->a.lo != op->b.hi - op->b.lo)
            rc = op_error(g, rank, op,
                          "copy sizes differ: source %" PRIu64 " bytes, destination %" PRIu64,
                          op->a.hi - op->a.lo, op->b.hi - op->b.lo);
        break;
    case CES_OP_PRODUCE:
        rc = check_region(g, rank, op, &op->a, "produced");
        break;
    case CES_OP_CONSUME:
        rc = check_region(g, rank, op, &op->a, "consumed");
        if (rc == CES_OK && (op->flags & CES_OPF_EXPECT)) {
            rc = check_region(g, rank, op, &op->b, "expected");
            if (rc == CES_OK && op->a.hi - op->a.lo != op->b.hi - op->b.lo)
                rc = op_error(g, rank, op,
                              "consume sizes differ: %" PRIu64 " bytes read, %" PRIu64
                              " expected", op->a.hi - op->a.lo, op->b.hi - op->b.lo);
        }
        break;
    case CES_OP_WRITE:
    case CES_OP_WAIT:
        if (op->slot.sig >= g->signals.len)
            return op_error(g, rank, op, "slot names signal #%" PRIu32 " but the graph has %zu",
                            op->slot.sig, g->signals.len);
        sig = &CES_VEC_AT(&g->signals, struct ces_named, op->slot.sig);
        if (op->slot.idx >= sig->size)
            return op_error(g, rank, op,
                            "slot %.*s%s[%" PRIu32 "] out of range: %.*s%s has %" PRIu64
                            " slots", CES_SHOWN(sig->name), op->slot.idx, CES_SHOWN(sig->name),
                            sig->size);
        if (op->slot.rank == CES_RANK_ALL && op->kind == CES_OP_WAIT)
            return op_error(g, rank, op,
                            "wait on %.*s%s[%" PRIu32 "]@*: a wait needs one rank's slot",
                            CES_SHOWN(sig->name), op->slot.idx);
        if (op->slot.rank != CES_RANK_ALL && op->slot.rank >= g->ranks)
            return op_error(g, rank, op,
                            "slot %.*s%s[%" PRIu32 "]@%" PRIu32 ": rank out of range (ranks "
                            "are 0..%" PRIu32 ")", CES_SHOWN(sig->name), op->slot.idx,
                            op->slot.rank, g->ranks - 1);
        if (op->kind == CES_OP_WAIT && op->cmp != CES_CMP_GEQ && op->cmp != CES_CMP_EQ)
            return op_error(g, rank, op, "wait compare must be >= or ==");
        if (sig->width == CES_U32)
            op->value &= UINT32_MAX; /* documented: u32 values are taken mod 2^32 */
        break;
    case CES_OP_RECORD:
    case CES_OP_AWAIT:
        if (op->event >= g->events.len)
            return op_error(g, rank, op, "event #%" PRIu32 " but the graph has %zu events",
                            op->event, g->events.len);
        break;
    default:
        break;
    }
    return rc;
}

/* Zeroes the fields op's kind does not use (struct ces_op says they are
 * zero), so that ces_graph_equal and the printed text, which carry only the
 * used ones, see what the op means. */
static void clear_unused(struct ces_op *op)
{
    static const struct ces_region no_region;
    static const struct ces_slot no_slot;
    uint8_t kind = op->kind;

    op->flags &= CES_OPF_FROZEN | (kind == CES_OP_CONSUME ? CES_OPF_EXPECT : 0);
    op->pad_ = 0;
    if (kind != CES_OP_WAIT)
        op->cmp = 0;
    if (kind != CES_OP_COPY && kind != CES_OP_PRODUCE && kind != CES_OP_CONSUME)
        op->a = no_region;
    if (kind != CES_OP_COPY && !(kind == CES_OP_CONSUME && (op->flags & CES_OPF_EXPECT)))
        op->b = no_region;
    if (kind != CES_OP_WRITE && kind != CES_OP_WAIT) {
        op->slot = no_slot;
        op->value = 0;
    }
    if (kind != CES_OP_RECORD && kind != CES_OP_AWAIT)
        op->event = 0;
}

int ces_graph_add_op(struct ces_graph *g, uint32_t rank, const struct ces_op *op)
{
    struct ces_vec *v;
    struct ces_op copy;
    bool all;
    int rc;

    if (g == NULL)
        return CES_ERR_INVALID;
    if (op == NULL)
        return ces_ctx_error(g->ctx, CES_ERR_INVALID, "ces_graph_add_op: NULL argument");
    if (rank >= g->ranks)
        return ces_ctx_error(g->ctx, CES_ERR_INVALID,
                             "rank r%" PRIu32 " out of range (ranks are r0..r%" PRIu32 ")", rank,
                             g->ranks - 1);
    if (g->blocks.len == 0)
        return ces_ctx_error(g->ctx, CES_ERR_INVALID, "add a block (phase) before adding ops");
    /* field by field into zeroed bytes, where `copy = *op` would take the
     * caller's padding between the fields along, which nothing sets: seal_last
     * compares the stored ops byte by byte */
    memset(&copy, 0, sizeof(copy));
    copy.kind = op->kind;
    copy.cmp = op->cmp;
    copy.flags = op->flags;
    copy.stream = op->stream;
    copy.a = op->a;
    copy.b = op->b;
    copy.slot = op->slot;
    copy.value = op->value;
    copy.event = op->event;
    copy.line = op->line;
    copy.col = op->col;
    rc = check_op(g, rank, &copy);
    if (rc != CES_OK)
        return rc;
    clear_unused(&copy);
    /* A write to every rank's slot (@*) is the unicast writes the CUDA
     * backend issues, rank 0 first: the checker then proves the writes that
     * run (no hardware write reaches every GPU at once). */
    all = copy.kind == CES_OP_WRITE && copy.slot.rank == CES_RANK_ALL;
    v = &g->open[rank];
    rc = ces_vec_reserve(g->ctx, v, sizeof(copy), all ? g->ranks : 1);
    if (rc != CES_OK)
        return ces_ctx_error(g->ctx, rc, "out of memory adding an op");
    for (uint32_t r = 0; r < (all ? g->ranks : 1); r++) {
        if (all)
            copy.slot.rank = r;
        memcpy(&CES_VEC_AT(v, struct ces_op, v->len++), &copy, sizeof(copy));
    }
    if (copy.kind == CES_OP_WRITE || copy.kind == CES_OP_WAIT) {
        struct ces_named *sig = &CES_VEC_AT(&g->signals, struct ces_named, copy.slot.sig);
        bool geq = copy.kind == CES_OP_WAIT && copy.cmp == CES_CMP_GEQ;

        sig->geq_read = sig->geq_read || geq;
        sig->above_i64 = sig->above_i64 || (copy.value > (uint64_t)INT64_MAX &&
                                            (copy.kind == CES_OP_WRITE || geq));
    }
    g->validated = false;
    return CES_OK;
}

/* The ops of rank r in block b, n of them. */
static const struct ces_op *block_ops(const struct ces_graph *g, size_t b, uint32_t r, size_t *n)
{
    const struct ces_gblock *blk = &CES_VEC_AT(&g->blocks, struct ces_gblock, b);

    if (b + 1 == g->blocks.len) {
        *n = g->open[r].len;
        return g->open[r].data;
    }
    *n = blk->start[r + 1] - blk->start[r];
    if (blk->own != NULL)
        return blk->own[r];
    return blk->ops != NULL ? blk->ops + blk->start[r] : NULL;
}

/* --- validation --------------------------------------------------------- */

bool ces_region_overlap(const struct ces_region *x, const struct ces_region *y)
{
    /* an empty region has no byte to share, wherever its bounds lie */
    return x->buf == y->buf && x->rank == y->rank && x->lo < x->hi && y->lo < y->hi &&
           x->lo < y->hi && y->lo < x->hi;
}

static int verr(struct ces_ctx *ctx, const char *file, uint32_t rank, uint64_t index,
                const struct ces_op *op, const char *fmt, ...)
{
    char msg[CES_ERRMSG_MAX / 2];
    char where[64];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ces_op_where(where, sizeof(where), rank, op->stream, index, NULL);
    if (op->line != 0)
        return ces_ctx_error(ctx, CES_ERR_SEMANTIC, "%s:%" PRIu32 ":%" PRIu32 ": %s (%s)",
                             file != NULL ? file : "<input>", op->line, op->col, msg, where);
    return ces_ctx_error(ctx, CES_ERR_SEMANTIC, "%s%s%s: %s", file != NULL ? file : "",
                         file != NULL ? ": " : "", where, msg);
}

/* Per-stream state while walking a rank's enqueue order. */
struct vstream {
    uint64_t index;       /* ops of this stream so far, every earlier replay counted (the
                           * #K of messages, as the checker numbers them) */
    int64_t batch_start;  /* index in the rank's block list of the open batch, -1 if none */
    uint64_t batch_index; /* the open batch's #K, for messages */
    size_t batch_clash;   /* index of the open batch's first copy that overlaps an earlier
                           * one, SIZE_MAX if none does */
};

/* A region of a batch's copy, for the overlap sweep. */
struct bregion {
    uint32_t buf, rank;
    uint64_t lo, hi;
    size_t copy; /* the copy's place in the batch */
    bool write;
};

static int cmp_bregion(const void *x, const void *y)
{
    const struct bregion *a = x, *b = y;

    if (a->buf != b->buf)
        return a->buf < b->buf ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return 0;
}

/* The furthest end among regions seen, and the furthest among those of
 * other copies than that one's, so that a copy is never matched with
 * itself. */
struct reach {
    uint64_t hi1, hi2;
    size_t copy1;
};

static void reach_add(struct reach *t, uint64_t hi, size_t copy)
{
    if (copy == t->copy1) {
        if (hi > t->hi1)
            t->hi1 = hi;
    } else if (hi > t->hi1) {
        t->hi2 = t->hi1;
        t->hi1 = hi;
        t->copy1 = copy;
    } else if (hi > t->hi2) {
        t->hi2 = hi;
    }
}

static uint64_t reach_other(const struct reach *t, size_t copy)
{
    return copy == t->copy1 ? t->hi2 : t->hi1;
}

/* Whether two of the first n copies of a batch (indices into ops) overlap as
 * ces_graph_validate forbids: one writes bytes the other reads or writes.
 * Sorted by start, a region overlaps an earlier one exactly when that one
 * ends past its start; empty regions, which hold no byte, are left out.
 * O(n log n), where comparing every pair was quadratic in a batch of a
 * million copies. */
static int batch_overlaps(struct ces_ctx *ctx, struct ces_vec *rg, const struct ces_op *ops,
                          const size_t *copies, size_t n, bool *out)
{
    struct reach all, writes;
    const struct bregion *e;

    *out = false;
    if (n < 2)
        return CES_OK; /* and an empty batch has no regions to sort */
    rg->len = 0;
    for (size_t c = 0; c < n; c++) {
        const struct ces_op *op = &ops[copies[c]];
        struct bregion src = {op->a.buf, op->a.rank, op->a.lo, op->a.hi, c, false};
        struct bregion dst = {op->b.buf, op->b.rank, op->b.lo, op->b.hi, c, true};

        /* (a copy's two regions have one size) */
        if (op->a.lo == op->a.hi)
            continue;
        if (ces_vec_push(ctx, rg, sizeof(src), &src) != CES_OK ||
            ces_vec_push(ctx, rg, sizeof(dst), &dst) != CES_OK)
            return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory validating");
    }
    if (rg->len == 0)
        return CES_OK; /* (qsort takes no NULL array) */
    qsort(rg->data, rg->len, sizeof(struct bregion), cmp_bregion);
    e = rg->data;
    for (size_t k = 0; k < rg->len; k++) {
        if (k == 0 || e[k].buf != e[k - 1].buf || e[k].rank != e[k - 1].rank) {
            all.hi1 = all.hi2 = writes.hi1 = writes.hi2 = 0;
            all.copy1 = writes.copy1 = SIZE_MAX;
        }
        /* a write may meet any earlier region, a read only an earlier write */
        if (reach_other(e[k].write ? &all : &writes, e[k].copy) > e[k].lo) {
            *out = true;
            break;
        }
        reach_add(&all, e[k].hi, e[k].copy);
        if (e[k].write)
            reach_add(&writes, e[k].hi, e[k].copy);
    }
    return CES_OK;
}

/* The first copy of the batch opened at ops[open] that overlaps an earlier
 * copy of the batch (an index into ops), or SIZE_MAX.  The batch is the
 * stream's copies after the 'batch' up to its next other op. */
static int batch_clash(struct ces_ctx *ctx, struct ces_vec *copies, struct ces_vec *rg,
                       const struct ces_op *ops, size_t nops, size_t open, size_t *out)
{
    size_t lo = 2, hi;
    bool clash;
    int rc;

    *out = SIZE_MAX;
    copies->len = 0;
    for (size_t j = open + 1; j < nops; j++) {
        if (ops[j].stream != ops[open].stream)
            continue;
        if (ops[j].kind != CES_OP_COPY)
            break;
        if (ces_vec_push(ctx, copies, sizeof(j), &j) != CES_OK)
            return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory validating");
    }
    hi = copies->len;
    rc = batch_overlaps(ctx, rg, ops, copies->data, hi, &clash);
    if (rc != CES_OK || !clash)
        return rc;
    /* the shortest prefix of the batch that overlaps ends at the first clash */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        rc = batch_overlaps(ctx, rg, ops, copies->data, mid, &clash);
        if (rc != CES_OK)
            return rc;
        if (clash)
            hi = mid;
        else
            lo = mid + 1;
    }
    *out = CES_VEC_AT(copies, size_t, hi - 1);
    return CES_OK;
}

/* The checks of ces_graph_validate; messages and allocations go to ctx.
 * With `tick`, that is called with the ops validated about every 65,536 of
 * them, and a nonzero return stops it: CES_ERR_TIMEOUT, no message. */
static int validate(struct ces_ctx *ctx, const struct ces_graph *g, const char *file,
                    ces_validate_tick_fn *tick, void *ud)
{
    struct vstream vs[CES_MAX_STREAMS];
    struct ces_vec copies = {NULL, 0, 0}, regions = {NULL, 0, 0};
    bool *recorded = NULL;
    uint64_t seen = 0;
    int rc = CES_OK;

    if (g->blocks.len == 0)
        return ces_ctx_error(ctx, CES_ERR_SEMANTIC, "%s%sthe schedule has no phase",
                             file != NULL ? file : "", file != NULL ? ": " : "");
    if (g->events.len > 0) {
        recorded = ces_malloc(ctx, g->events.len * sizeof(bool));
        if (recorded == NULL)
            return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory validating");
    }
    for (uint32_t r = 0; r < g->ranks && rc == CES_OK; r++) {
        for (uint32_t s = 0; s < g->streams; s++) {
            vs[s].index = 0;
            vs[s].batch_start = -1;
        }
        if (recorded != NULL)
            memset(recorded, 0, g->events.len * sizeof(bool));
        for (size_t b = 0; b < g->blocks.len && rc == CES_OK; b++) {
            const struct ces_gblock *blk = &CES_VEC_AT(&g->blocks, struct ces_gblock, b);
            size_t n;
            const struct ces_op *ops = block_ops(g, b, r, &n);
            uint64_t first[CES_MAX_STREAMS];

            for (uint32_t s = 0; s < g->streams; s++)
                first[s] = vs[s].index;
            /* an op is named by its first replay's instance */
            for (size_t i = 0; i < n && rc == CES_OK; i++) {
                const struct ces_op *op = &ops[i];
                struct vstream *st = &vs[op->stream];
                uint64_t k = st->index++;

                /* (seen: the ops validated before this one) */
                if (seen > 0 && (seen & 0xffffu) == 0 && tick != NULL && tick(ud, seen) != 0) {
                    rc = CES_ERR_TIMEOUT;
                    break;
                }
                seen++;
                if (st->batch_start >= 0 && op->kind != CES_OP_COPY && op->kind != CES_OP_END) {
                    rc = verr(ctx, file, r, k, op, "expected 'copy' or 'end' inside a batch, "
                              "found '%s'", ces_op_kind_name(op->kind));
                    break;
                }
                switch (op->kind) {
                case CES_OP_BATCH:
                    st->batch_start = (int64_t)i;
                    st->batch_index = k;
                    rc = batch_clash(ctx, &copies, &regions, ops, n, i, &st->batch_clash);
                    break;
                case CES_OP_END:
                    if (st->batch_start < 0)
                        rc = verr(ctx, file, r, k, op, "'end' without 'batch'");
                    st->batch_start = -1;
                    break;
                case CES_OP_COPY:
                    /* The copy engines do not define an overlapping copy. */
                    if (ces_region_overlap(&op->a, &op->b)) {
                        rc = verr(ctx, file, r, k, op, "a copy's source and destination overlap "
                                  "(%.*s%s@%" PRIu32 " bytes [%" PRIu64 ":%" PRIu64 ") and [%"
                                  PRIu64 ":%" PRIu64 ")): the copy engines leave the result "
                                  "undefined", CES_SHOWN(named(&g->buffers, op->a.buf)),
                                  op->a.rank, op->a.lo, op->a.hi, op->b.lo, op->b.hi);
                        break;
                    }
                    /* Copies of one batch run in any order: no destination may
                     * overlap another copy's source or destination.  The pairs
                     * are compared only at the batch's first clash, which
                     * batch_clash found without comparing every pair. */
                    if (st->batch_start < 0 || i != st->batch_clash)
                        break;
                    for (size_t j = (size_t)st->batch_start + 1; j < i && rc == CES_OK; j++) {
                        const struct ces_op *o = &ops[j];

                        const struct ces_region *shared;

                        if (o->stream != op->stream || o->kind != CES_OP_COPY)
                            continue;
                        /* the region read by one copy and written by the other */
                        shared = ces_region_overlap(&o->a, &op->b) ? &op->b : &op->a;
                        if (ces_region_overlap(&o->b, &op->b))
                            rc = verr(ctx, file, r, k, op, "copies in one batch overlap: both "
                                      "write %.*s%s@%" PRIu32 " bytes [%" PRIu64 ":%" PRIu64
                                      ") and [%" PRIu64 ":%" PRIu64 ")",
                                      CES_SHOWN(named(&g->buffers, op->b.buf)),
                                      op->b.rank, o->b.lo, o->b.hi, op->b.lo, op->b.hi);
                        else if (ces_region_overlap(&o->a, &op->b) ||
                                 ces_region_overlap(&o->b, &op->a))
                            rc = verr(ctx, file, r, k, op, "copies in one batch overlap: one "
                                      "reads bytes of %.*s%s@%" PRIu32 " that another writes",
                                      CES_SHOWN(named(&g->buffers, shared->buf)),
                                      shared->rank);
                    }
                    break;
                case CES_OP_RECORD:
                    recorded[op->event] = true;
                    break;
                case CES_OP_AWAIT:
                    if (!recorded[op->event])
                        rc = verr(ctx, file, r, k, op, "'await %.*s%s' has no 'record %.*s%s' "
                                  "before it on rank %" PRIu32,
                                  CES_SHOWN(named(&g->events, op->event)),
                                  CES_SHOWN(named(&g->events, op->event)), r);
                    break;
                default:
                    break;
                }
            }
            for (uint32_t s = 0; s < g->streams && rc == CES_OK; s++) {
                if (vs[s].batch_start >= 0)
                    rc = verr(ctx, file, r, vs[s].batch_index, &ops[vs[s].batch_start],
                              "'batch' without 'end': a batch must end in the phase it starts");
                vs[s].index = first[s] + (vs[s].index - first[s]) * blk->info.reps;
            }
        }
    }
    ces_free(ctx, recorded);
    ces_vec_free(ctx, &copies);
    ces_vec_free(ctx, &regions);
    return rc;
}

int ces_graph_validate(struct ces_graph *g, const char *file)
{
    int rc;

    if (g == NULL)
        return CES_ERR_INVALID;
    rc = validate(g->ctx, g, file, NULL, NULL);
    g->validated = rc == CES_OK;
    return rc;
}

int ces_graph_validate_watched(struct ces_graph *g, const char *file, ces_validate_tick_fn *tick,
                               void *ud)
{
    int rc = validate(g->ctx, g, file, tick, ud);

    g->validated = rc == CES_OK;
    return rc;
}

int ces_graph_require_valid(struct ces_ctx *ctx, const struct ces_graph *g, const char *who)
{
    int rc;

    /* A graph built op by op and never validated would reach the
     * consumers with an open batch, overlapping copies or an await that
     * no record precedes, which they assume away: validate it here. */
    if (g->validated)
        return CES_OK;
    rc = validate(ctx, g, NULL, NULL, NULL);
    if (rc == CES_OK || rc == CES_ERR_NOMEM)
        return rc;
    /* (ces_ctx_error may take the last error as an argument) */
    return ces_ctx_error(ctx, rc, "%s: the graph does not validate: %s", who,
                         ces_ctx_last_error(ctx));
}

/* --- accessors ----------------------------------------------------------- */

uint32_t ces_graph_ranks(const struct ces_graph *g) { return g->ranks; }
uint32_t ces_graph_streams(const struct ces_graph *g) { return g->streams; }
uint32_t ces_graph_connections(const struct ces_graph *g) { return g->connections; }

uint32_t ces_graph_setting_line(const struct ces_graph *g, uint32_t which, uint32_t *col)
{
    uint32_t line = which <= CES_SETTING_CONNECTIONS ? g->setting_line[which] : 0;

    if (col != NULL)
        *col = line != 0 ? g->setting_col[which] : 0;
    return line;
}

uint32_t ces_graph_nbuffers(const struct ces_graph *g) { return (uint32_t)g->buffers.len; }
uint32_t ces_graph_nsignals(const struct ces_graph *g) { return (uint32_t)g->signals.len; }
uint32_t ces_graph_nevents(const struct ces_graph *g) { return (uint32_t)g->events.len; }
uint32_t ces_graph_nconsts(const struct ces_graph *g) { return (uint32_t)g->consts.len; }
uint32_t ces_graph_nblocks(const struct ces_graph *g) { return (uint32_t)g->blocks.len; }
uint64_t ces_graph_iterations(const struct ces_graph *g) { return g->next_iter - 1; }

struct ces_buffer_info ces_graph_buffer(const struct ces_graph *g, uint32_t i)
{
    const struct ces_named *n = &CES_VEC_AT(&g->buffers, struct ces_named, i);
    struct ces_buffer_info info = {n->name, n->size};

    return info;
}

struct ces_signal_info ces_graph_signal(const struct ces_graph *g, uint32_t i)
{
    const struct ces_named *n = &CES_VEC_AT(&g->signals, struct ces_named, i);
    struct ces_signal_info info = {n->name, n->width, (uint32_t)n->size};

    return info;
}

const char *ces_graph_event(const struct ces_graph *g, uint32_t i)
{
    return named(&g->events, i);
}

const char *ces_graph_const(const struct ces_graph *g, uint32_t i, int64_t *value)
{
    const struct ces_named *n = &CES_VEC_AT(&g->consts, struct ces_named, i);

    if (value != NULL)
        *value = n->value;
    return n->name;
}

struct ces_block_info ces_graph_block(const struct ces_graph *g, uint32_t b)
{
    return CES_VEC_AT(&g->blocks, struct ces_gblock, b).info;
}

const struct ces_op *ces_graph_ops(const struct ces_graph *g, uint32_t b, uint32_t rank,
                                   uint32_t *n)
{
    size_t len;
    const struct ces_op *ops = block_ops(g, b, rank, &len);

    *n = (uint32_t)len;
    return ops;
}

bool ces_graph_awaits_earlier(const struct ces_op *ops, uint32_t i)
{
    if (ops[i].kind != CES_OP_AWAIT)
        return false;
    for (uint32_t j = 0; j < i; j++)
        if (ops[j].kind == CES_OP_RECORD && ops[j].event == ops[i].event)
            return true;
    return false;
}

/* Does op i record an event that a later op of stream 0 awaits before the
 * event is recorded again? */
static bool awaited_later(const struct ces_op *ops, uint32_t n, uint32_t i)
{
    if (ops[i].kind != CES_OP_RECORD)
        return false;
    for (uint32_t j = i + 1; j < n; j++) {
        if ((ops[j].kind != CES_OP_RECORD && ops[j].kind != CES_OP_AWAIT) ||
            ops[j].event != ops[i].event)
            continue;
        if (ops[j].kind == CES_OP_RECORD)
            return false;
        if (ops[j].stream == 0)
            return true;
    }
    return false;
}

void ces_graph_links(const struct ces_graph *g, uint32_t b, uint32_t r, uint64_t *fork,
                     uint64_t *join)
{
    uint32_t n = 0, first[CES_MAX_STREAMS], last[CES_MAX_STREAMS];
    const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

    *fork = *join = 0;
    for (uint32_t s = 0; s < g->streams; s++)
        first[s] = last[s] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        if (first[ops[i].stream] == UINT32_MAX)
            first[ops[i].stream] = i;
        last[ops[i].stream] = i;
    }
    for (uint32_t s = 1; s < g->streams; s++) {
        if (first[s] == UINT32_MAX)
            continue;
        if (!ces_graph_awaits_earlier(ops, first[s]))
            *fork |= UINT64_C(1) << s;
        if (!awaited_later(ops, n, last[s]))
            *join |= UINT64_C(1) << s;
    }
}

int64_t ces_graph_find_buffer(const struct ces_graph *g, const char *name)
{
    return find_named(&g->buffer_names, name);
}

int64_t ces_graph_find_signal(const struct ces_graph *g, const char *name)
{
    return find_named(&g->signal_names, name);
}

int64_t ces_graph_find_event(const struct ces_graph *g, const char *name)
{
    return find_named(&g->event_names, name);
}

/* --- equality ------------------------------------------------------------ */

static bool named_equal(const struct ces_vec *a, const struct ces_vec *b)
{
    if (a->len != b->len)
        return false;
    for (size_t i = 0; i < a->len; i++) {
        const struct ces_named *x = &CES_VEC_AT(a, struct ces_named, i);
        const struct ces_named *y = &CES_VEC_AT(b, struct ces_named, i);

        if (strcmp(x->name, y->name) != 0 || x->size != y->size || x->width != y->width ||
            x->value != y->value)
            return false;
    }
    return true;
}

static bool region_equal(const struct ces_region *x, const struct ces_region *y)
{
    return x->buf == y->buf && x->rank == y->rank && x->lo == y->lo && x->hi == y->hi;
}

static bool op_equal(const struct ces_op *x, const struct ces_op *y)
{
    return x->kind == y->kind && x->cmp == y->cmp &&
           (x->flags & CES_OPF_EXPECT) == (y->flags & CES_OPF_EXPECT) &&
           x->stream == y->stream && region_equal(&x->a, &y->a) && region_equal(&x->b, &y->b) &&
           x->slot.sig == y->slot.sig && x->slot.rank == y->slot.rank &&
           x->slot.idx == y->slot.idx && x->value == y->value && x->event == y->event;
}

int ces_graph_equal(const struct ces_graph *a, const struct ces_graph *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    if (a->ranks != b->ranks || a->streams != b->streams || a->connections != b->connections ||
        !named_equal(&a->buffers, &b->buffers) || !named_equal(&a->signals, &b->signals) ||
        !named_equal(&a->events, &b->events) || !named_equal(&a->consts, &b->consts) ||
        a->blocks.len != b->blocks.len)
        return 0;
    for (size_t i = 0; i < a->blocks.len; i++) {
        const struct ces_gblock *x = &CES_VEC_AT(&a->blocks, struct ces_gblock, i);
        const struct ces_gblock *y = &CES_VEC_AT(&b->blocks, struct ces_gblock, i);

        if (x->info.kind != y->info.kind || x->info.reps != y->info.reps ||
            x->info.first_iter != y->info.first_iter)
            return 0;
        for (uint32_t r = 0; r < a->ranks; r++) {
            size_t nx, ny;
            const struct ces_op *ox = block_ops(a, i, r, &nx), *oy = block_ops(b, i, r, &ny);

            if (nx != ny)
                return 0;
            for (size_t k = 0; k < nx; k++) {
                if (!op_equal(&ox[k], &oy[k]))
                    return 0;
            }
        }
    }
    return 1;
}

/* --- printing ------------------------------------------------------------ */

static void fmt_region(struct ces_sb *sb, const struct ces_graph *g, uint32_t rank,
                       const struct ces_region *reg, bool always_rank)
{
    ces_sb_printf(sb, "%s[%" PRIu64 ":%" PRIu64 "]",
                  named(&g->buffers, reg->buf), reg->lo, reg->hi);
    if (always_rank || reg->rank != rank)
        ces_sb_printf(sb, "@%" PRIu32, reg->rank);
}

static void fmt_op(struct ces_sb *sb, const struct ces_graph *g, uint32_t rank,
                   const struct ces_op *op)
{
    ces_sb_puts(sb, ces_op_kind_name(op->kind));
    switch (op->kind) {
    case CES_OP_COPY:
        ces_sb_puts(sb, " ");
        fmt_region(sb, g, rank, &op->a, false);
        ces_sb_puts(sb, " -> ");
        fmt_region(sb, g, rank, &op->b, false);
        break;
    case CES_OP_WRITE:
    case CES_OP_WAIT:
        ces_sb_printf(sb, " %s[%" PRIu32 "]",
                      named(&g->signals, op->slot.sig), op->slot.idx);
        if (op->slot.rank == CES_RANK_ALL)
            ces_sb_puts(sb, "@*"); /* (a write an op list has yet to take) */
        else if (op->slot.rank != rank)
            ces_sb_printf(sb, "@%" PRIu32, op->slot.rank);
        ces_sb_printf(sb, " %s %" PRIu64,
                      op->kind == CES_OP_WRITE ? "=" : op->cmp == CES_CMP_EQ ? "==" : ">=",
                      op->value);
        break;
    case CES_OP_RECORD:
    case CES_OP_AWAIT:
        ces_sb_printf(sb, " %s", named(&g->events, op->event));
        break;
    case CES_OP_PRODUCE:
        ces_sb_puts(sb, " ");
        fmt_region(sb, g, rank, &op->a, false);
        break;
    case CES_OP_CONSUME:
        ces_sb_puts(sb, " ");
        fmt_region(sb, g, rank, &op->a, false);
        if (op->flags & CES_OPF_EXPECT) {
            ces_sb_puts(sb, " == ");
            fmt_region(sb, g, rank, &op->b, true);
        }
        break;
    default:
        break;
    }
}

/* Whether the tables of g hold what op names (a wait's compare one of
 * the two), so fmt_op can print it. */
static bool op_in_tables(const struct ces_graph *g, const struct ces_op *op)
{
    switch (op->kind) {
    case CES_OP_COPY:
        return op->a.buf < g->buffers.len && op->b.buf < g->buffers.len;
    case CES_OP_PRODUCE:
        return op->a.buf < g->buffers.len;
    case CES_OP_CONSUME:
        return op->a.buf < g->buffers.len &&
               (!(op->flags & CES_OPF_EXPECT) || op->b.buf < g->buffers.len);
    case CES_OP_WAIT:
        if (op->cmp != CES_CMP_GEQ && op->cmp != CES_CMP_EQ)
            return false;
        /* fall through */
    case CES_OP_WRITE:
        return op->slot.sig < g->signals.len &&
               op->slot.idx < CES_VEC_AT(&g->signals, struct ces_named, op->slot.sig).size;
    case CES_OP_RECORD:
    case CES_OP_AWAIT:
        return op->event < g->events.len;
    default:
        return op->kind < CES_OP_COUNT;
    }
}

void ces_sb_op(struct ces_sb *sb, const struct ces_graph *g, uint32_t rank,
               const struct ces_op *op)
{
    if (op_in_tables(g, op))
        fmt_op(sb, g, rank, op);
    else if (sb->status == CES_OK)
        sb->status = CES_ERR_INVALID;
}

int ces_op_format(const struct ces_graph *g, uint32_t rank, const struct ces_op *op, char *buf,
                  size_t size)
{
    struct ces_sb sb;
    int n;

    if (buf == NULL && size > 0)
        return -1;
    if (g == NULL || op == NULL || !op_in_tables(g, op)) {
        if (size > 0)
            buf[0] = '\0';
        return -1;
    }
    ces_sb_init(&sb, g->ctx);
    fmt_op(&sb, g, rank, op);
    if (sb.status != CES_OK) {
        ces_sb_free(&sb);
        if (size > 0)
            buf[0] = '\0';
        return -1;
    }
    n = snprintf(buf, size, "%s", sb.buf != NULL ? sb.buf : "");
    ces_sb_free(&sb);
    return n;
}

int ces_graph_print(struct ces_ctx *ctx, const struct ces_graph *g, unsigned flags, char **text,
                    size_t *len)
{
    struct ces_sb sb;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (g == NULL || text == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_graph_print: NULL argument");
    ces_sb_init(&sb, ctx);
    ces_sb_printf(&sb, "cesync %d\nranks %" PRIu32 "\nstreams %" PRIu32 "\n", CES_FORMAT_VERSION,
                  g->ranks, g->streams);
    ces_sb_connections(&sb, g->connections);
    for (size_t i = 0; i < g->consts.len; i++) {
        const struct ces_named *c = &CES_VEC_AT(&g->consts, struct ces_named, i);

        ces_sb_printf(&sb, "let %s = %" PRId64 "\n", c->name, c->value);
    }
    for (size_t i = 0; i < g->buffers.len; i++) {
        const struct ces_named *b = &CES_VEC_AT(&g->buffers, struct ces_named, i);

        ces_sb_printf(&sb, "buffer %s %" PRIu64 "\n", b->name, b->size);
    }
    for (size_t i = 0; i < g->signals.len; i++) {
        const struct ces_named *s = &CES_VEC_AT(&g->signals, struct ces_named, i);

        ces_sb_printf(&sb, "signal %s u%" PRIu32 " %" PRIu64 "\n", s->name, s->width, s->size);
    }
    for (size_t b = 0; b < g->blocks.len; b++) {
        const struct ces_gblock *blk = &CES_VEC_AT(&g->blocks, struct ces_gblock, b);

        ces_sb_printf(&sb, "phase %s x%" PRIu32, blk->info.kind == CES_PHASE_GRAPH ? "graph" : "eager",
                      blk->info.reps);
        if (flags & CES_PRINT_EXPLAIN)
            ces_sb_printf(&sb, "  # iterations %" PRIu64 "..%" PRIu64, blk->info.first_iter,
                          blk->info.first_iter + blk->info.reps - 1);
        ces_sb_puts(&sb, "\n");
        for (uint32_t r = 0; r < g->ranks; r++) {
            size_t n;
            const struct ces_op *ops = block_ops(g, b, r, &n);

            for (size_t k = 0; k < n; k++) {
                const struct ces_op *op = &ops[k];

                ces_sb_printf(&sb, "r%" PRIu32, r);
                if (op->stream != 0)
                    ces_sb_printf(&sb, " s%" PRIu32, op->stream);
                ces_sb_puts(&sb, " : ");
                fmt_op(&sb, g, r, op);
                if ((flags & CES_PRINT_EXPLAIN) && (op->flags & CES_OPF_FROZEN))
                    ces_sb_printf(&sb, "  # $i frozen at %" PRIu64 " for all %" PRIu32
                                  " replays", blk->info.first_iter, blk->info.reps);
                ces_sb_puts(&sb, "\n");
            }
        }
    }
    return ces_sb_finish(&sb, text, len);
}

/* --- CUDA's cyclic 64-bit compare --------------------------------------- */

int ces_graph_u64_cyclic(struct ces_ctx *ctx, const struct ces_graph *g, const char *who)
{
    const char *sep = who != NULL ? ": " : "";
    uint32_t nsig = ces_graph_nsignals(g), nb = ces_graph_nblocks(g), ranks = ces_graph_ranks(g);
    bool refused = false;
    int rc = CES_OK;

    /* what ces_graph_add_op kept of each signal: without a signal that is
     * both, no op is refused, and none is looked at (every rank's lowering
     * asks, of the whole graph) */
    for (uint32_t i = 0; i < nsig && !refused; i++) {
        const struct ces_named *sig = &CES_VEC_AT(&g->signals, struct ces_named, i);

        refused = sig->width == CES_U64 && sig->geq_read && sig->above_i64;
    }
    if (!refused)
        return CES_OK;
    for (uint32_t r = 0; r < ranks && rc == CES_OK; r++) {
        uint64_t before[CES_MAX_STREAMS] = {0}; /* #K as the checker numbers ops */

        for (uint32_t b = 0; b < nb && rc == CES_OK; b++) {
            uint32_t n = 0, at[CES_MAX_STREAMS] = {0};
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

            for (uint32_t i = 0; i < n && rc == CES_OK; i++) {
                const struct ces_op *op = &ops[i];
                uint32_t s = op->stream;
                char where[80], text[160];

                at[s]++;
                if ((op->kind != CES_OP_WRITE && op->kind != CES_OP_WAIT) ||
                    ces_graph_signal(g, op->slot.sig).width != CES_U64 ||
                    op->value <= (uint64_t)INT64_MAX ||
                    !CES_VEC_AT(&g->signals, struct ces_named, op->slot.sig).geq_read ||
                    (op->kind == CES_OP_WAIT && op->cmp != CES_CMP_GEQ))
                    continue;
                ces_op_where(where, sizeof(where), r, s, before[s] + at[s] - 1, op);
                ces_op_format(g, r, op, text, sizeof(text));
                rc = ces_ctx_error(ctx, CES_ERR_UNSUPPORTED,
                                   "%s%s%s: %s: a u64 value above 2^63-1 in a signal that a >= wait "
                                   "reads: CUDA compares 64-bit values cyclically, (int64_t)(cur "
                                   "- v) >= 0, where the check compares them as plain numbers, "
                                   "so the wait could pass or block otherwise than checked; keep "
                                   "u64 values below 2^63",
                                   who != NULL ? who : "", sep, where, text);
            }
            for (uint32_t s = 0; s < CES_MAX_STREAMS; s++)
                before[s] += (uint64_t)at[s] * ces_graph_block(g, b).reps;
        }
    }
    return rc;
}
