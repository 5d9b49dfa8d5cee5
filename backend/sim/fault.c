/*
 * backend/sim/fault.c - fault specifications (drop:rR.sS#K, stop:rR.sS#K,
 * delay:rR.sS#K), checked alone and together (none repeating or voiding
 * another), and the fault sweep: every fault at every op position, checked
 * without and with the watchdog model.
 */
#include "internal.h"

#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A number of a position: decimal digits (leading zeros allowed, as in the
 * .ces format: r01 is r1) up to max.  Returns 0 and moves *s past them; -1
 * when no digit is there; 1 (*s past the digits) when they exceed max. */
static int parse_num(const char **s, uint32_t max, uint32_t *out)
{
    const char *p = *s;
    uint64_t v = 0;
    int over = 0;

    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > max) {
            over = 1;
            v = max; /* no wrap, however many digits follow */
        }
    }
    *out = (uint32_t)v;
    *s = p;
    return over;
}

static const char *const kind_names[] = {"drop", "stop", "delay"};

const char *ces_fault_kind_name(uint32_t kind)
{
    return kind < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[kind] : NULL;
}

/* The name of a kind that may be out of range ("?"), for messages. */
static const char *kind_name(uint32_t kind)
{
    return ces_fault_kind_name(kind) != NULL ? ces_fault_kind_name(kind) : "?";
}

/* "fault 'SPEC': rank r4294967296 is out of range: at most r4294967295",
 * the digits from `digits` to `end` as written. */
static int out_of_range(struct ces_ctx *ctx, const char *spec, const char *what, char letter,
                        const char *digits, const char *end, uint32_t max)
{
    size_t len = (size_t)(end - digits);

    return ces_ctx_error(ctx, CES_ERR_INVALID,
                         "fault '%.*s%s': %s %c%.*s%s is out of range: at most %c%" PRIu32,
                         CES_SHOWN(spec), what, letter, CES_SHOWN_LEN(len), digits,
                         CES_SHOWN_MORE(len), letter, max);
}

int ces_fault_parse(struct ces_ctx *ctx, const char *spec, struct ces_fault *out)
{
    const char *s = spec, *digits;
    struct ces_fault f;
    size_t n = 0;
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (spec == NULL || out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_fault_parse: NULL argument");
    memset(&f, 0, sizeof(f));
    for (f.kind = 0; f.kind < sizeof(kind_names) / sizeof(kind_names[0]); f.kind++) {
        n = strlen(kind_names[f.kind]);
        if (strncmp(s, kind_names[f.kind], n) == 0 && s[n] == ':')
            break;
    }
    if (f.kind == sizeof(kind_names) / sizeof(kind_names[0]))
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "fault '%.*s%s': expected drop:rR.sS#K, delay:rR.sS#K, stop:rR.sS#K "
                             "or stop:rR#K", CES_SHOWN(spec));
    s += n + 1;
    if (*s++ != 'r')
        goto bad;
    digits = s;
    if ((rc = parse_num(&s, UINT32_MAX, &f.rank)) < 0)
        goto bad;
    if (rc > 0)
        return out_of_range(ctx, spec, "rank", 'r', digits, s, UINT32_MAX);
    if (f.kind == CES_FAULT_STOP && *s == '#') { /* stop:rR#K, the whole rank */
        f.stream = CES_FAULT_RANK;
    } else {
        if (*s++ != '.' || *s++ != 's')
            goto bad;
        digits = s;
        /* the top value stands for the whole rank: no stream's */
        if ((rc = parse_num(&s, CES_FAULT_RANK - 1, &f.stream)) < 0)
            goto bad;
        if (rc > 0)
            return out_of_range(ctx, spec, "stream", 's', digits, s, CES_FAULT_RANK - 1);
    }
    if (*s++ != '#')
        goto bad;
    digits = s;
    if ((rc = parse_num(&s, UINT32_MAX, &f.index)) < 0)
        goto bad;
    if (rc > 0)
        return out_of_range(ctx, spec, "op index", '#', digits, s, UINT32_MAX);
    if (*s != '\0') {
        size_t at = (size_t)(s - spec);
        unsigned char c = (unsigned char)*s;
        char what[16];

        /* the first byte that follows, as the .ces parser names a stray one */
        if (c < 0x20 || c >= 0x7f)
            snprintf(what, sizeof(what), "byte 0x%02x", c);
        else
            snprintf(what, sizeof(what), "'%c'", c);
        return ces_ctx_error(ctx, CES_ERR_INVALID, "fault '%.*s%s': unexpected %s after '%.*s%s'",
                             CES_SHOWN(spec), what, CES_SHOWN_LEN(at), spec, CES_SHOWN_MORE(at));
    }
    *out = f;
    return CES_OK;
bad:
    return ces_ctx_error(ctx, CES_ERR_INVALID,
                         "fault '%.*s%s': expected a position rR.sS#K%s after '%.*s'",
                         CES_SHOWN(spec), f.kind == CES_FAULT_STOP ? " or rR#K" : "",
                         (int)n + 1, spec);
}

int ces_fault_format(const struct ces_fault *f, char *buf, size_t size)
{
    if (f == NULL || ces_fault_kind_name(f->kind) == NULL) {
        if (size > 0)
            buf[0] = '\0';
        return -1;
    }
    if (f->stream == CES_FAULT_RANK)
        return snprintf(buf, size, "%s:r%" PRIu32 "#%" PRIu32, kind_name(f->kind), f->rank,
                        f->index);
    return snprintf(buf, size, "%s:r%" PRIu32 ".s%" PRIu32 "#%" PRIu32, kind_name(f->kind),
                    f->rank, f->stream, f->index);
}

const struct ces_op *ces_sim_op_at(const struct ces_graph *g, uint32_t r, uint32_t s,
                                   uint64_t index, uint32_t *block, uint32_t *rep, uint32_t *op,
                                   uint64_t *len)
{
    *len = 0;
    for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
        uint32_t n, on = 0;
        const struct ces_op *ops = ces_graph_ops(g, b, r, &n);
        uint64_t reps = ces_graph_block(g, b).reps;

        for (uint32_t i = 0; i < n; i++)
            on += ops[i].stream == s;
        if (index < *len + on * reps) {
            uint32_t k = (uint32_t)((index - *len) % on); /* the k-th of the stream's ops */

            *block = b;
            *rep = (uint32_t)((index - *len) / on);
            for (*op = 0; ops[*op].stream != s || k-- > 0;)
                (*op)++;
            return &ops[*op];
        }
        *len += on * reps;
    }
    return NULL;
}

/* The ops of rank r once graph replays are unrolled. */
static uint64_t rank_len(const struct ces_graph *g, uint32_t r)
{
    uint64_t len = 0;

    for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
        uint32_t n;

        ces_graph_ops(g, b, r, &n);
        len += (uint64_t)n * ces_graph_block(g, b).reps;
    }
    return len;
}

/* What a fault's position must lie in, for "r0.s0 has ...": "3 ops (#0..#2)",
 * or "no ops". */
static void ops_range(uint64_t len, char *buf, size_t size)
{
    if (len == 0)
        snprintf(buf, size, "no ops");
    else
        snprintf(buf, size, "%" PRIu64 " op%s (#0..#%" PRIu64 ")", len, ces_plural(len), len - 1);
}

int ces_sim_fault_check(struct ces_ctx *ctx, const struct ces_graph *g, const struct ces_fault *f)
{
    uint32_t ranks = ces_graph_ranks(g), streams = ces_graph_streams(g), b, j, i;
    const struct ces_op *op;
    uint64_t len;
    char spec[96], range[64];

    ces_fault_format(f, spec, sizeof(spec));
    if (f->kind > CES_FAULT_DELAY)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "fault kind %" PRIu32 " unknown", f->kind);
    if (f->stream == CES_FAULT_RANK) {
        if (f->kind != CES_FAULT_STOP)
            return ces_ctx_error(ctx, CES_ERR_INVALID,
                                 "fault kind %" PRIu32 ": only a stop names a whole rank",
                                 f->kind);
        if (f->rank >= ranks)
            return ces_ctx_error(ctx, CES_ERR_INVALID,
                                 "fault %s: no such rank (ranks 0..%" PRIu32 ")", spec, ranks - 1);
        len = rank_len(g, f->rank);
        if (f->index < len)
            return CES_OK;
        ops_range(len, range, sizeof(range));
        return ces_ctx_error(ctx, CES_ERR_INVALID, "fault %s: r%" PRIu32 " has %s", spec,
                             f->rank, range);
    }
    if (f->rank >= ranks || f->stream >= streams)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "fault %s: no such stream (ranks 0..%" PRIu32 ", streams 0..%" PRIu32
                             ")",
                             spec, ranks - 1, streams - 1);
    op = ces_sim_op_at(g, f->rank, f->stream, f->index, &b, &j, &i, &len);
    if (op == NULL) {
        ops_range(len, range, sizeof(range));
        return ces_ctx_error(ctx, CES_ERR_INVALID, "fault %s: r%" PRIu32 ".s%" PRIu32 " has %s",
                             spec, f->rank, f->stream, range);
    }
    if (f->kind != CES_FAULT_STOP && op->kind != CES_OP_WRITE)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "fault %s: expected a write at that position, found '%s'", spec,
                             ces_op_kind_name(op->kind));
    return CES_OK;
}

/* stop:rR#K as one stop per stream: each stream of rank R stops before its
 * first op at or after the rank's K-th in enqueue order (blocks in order,
 * replays in order, ops in list order); a stream with none goes on. */
static void rank_stop(const struct ces_graph *g, const struct ces_fault *f,
                      struct ces_fault *out, size_t *n)
{
    uint64_t at[CES_MAX_STREAMS] = {0}, len[CES_MAX_STREAMS] = {0}, seen = 0;

    for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
        uint32_t nops;
        const struct ces_op *ops = ces_graph_ops(g, b, f->rank, &nops);
        uint64_t reps = ces_graph_block(g, b).reps, before = 0, part = 0;

        if (f->index >= seen) { /* the replays wholly before the stop, and a part of one */
            before = (f->index - seen) / (nops > 0 ? nops : 1);
            before = before < reps ? before : reps;
            part = before < reps ? (f->index - seen) % (nops > 0 ? nops : 1) : 0;
        }
        for (uint32_t i = 0; i < nops; i++) {
            len[ops[i].stream] += reps;
            at[ops[i].stream] += before + (i < part);
        }
        seen += nops * reps;
    }
    for (uint32_t s = 0; s < ces_graph_streams(g); s++)
        if (at[s] < len[s])
            out[(*n)++] = (struct ces_fault){CES_FAULT_STOP, f->rank, s, (uint32_t)at[s]};
}

/* Where stop:rR#K (f) stops stream s of its rank: before that stream's op
 * *at (rank_stop); false when the stream goes on to its end. */
static bool rank_stop_at(const struct ces_graph *g, const struct ces_fault *f, uint32_t s,
                         uint32_t *at)
{
    struct ces_fault stops[CES_MAX_STREAMS];
    size_t n = 0;

    rank_stop(g, f, stops, &n);
    for (size_t i = 0; i < n; i++) {
        if (stops[i].stream == s) {
            *at = stops[i].index;
            return true;
        }
    }
    return false;
}

/* Faults a (given first) and b of one check, each checked: refused where
 * one repeats the other, where a write is both dropped and delayed, where
 * two stops stop one stream or one rank, and where a stream's own stop
 * comes at or after where its rank's stop already stops it (it would
 * change nothing; not judged where g is NULL: where the rank's stop
 * leaves the stream is the graph's).  A stream's stop before its rank's is
 * kept: the stream dies first, the rest of the rank later. */
static int fault_pair(struct ces_ctx *ctx, const struct ces_graph *g, const struct ces_fault *a,
                      const struct ces_fault *b)
{
    const struct ces_fault *rs, *ss;
    char sa[96], sb[96];
    uint32_t at;

    if (a->rank != b->rank)
        return CES_OK;
    ces_fault_format(a, sa, sizeof(sa));
    ces_fault_format(b, sb, sizeof(sb));
    if (a->kind == b->kind && a->stream == b->stream && a->index == b->index)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "fault %s given twice: expected each fault once", sa);
    if (a->kind != CES_FAULT_STOP && b->kind != CES_FAULT_STOP) {
        if (a->stream != b->stream || a->index != b->index)
            return CES_OK;
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "faults %s and %s: expected a write dropped or delayed, not both",
                             sa, sb);
    }
    if (a->kind != CES_FAULT_STOP || b->kind != CES_FAULT_STOP)
        return CES_OK; /* a drop or delay past a stop: section 9 of docs/SEMANTICS.md */
    if (a->stream == b->stream) { /* two stops of one stream, or two of one rank */
        char who[48];

        if (a->stream == CES_FAULT_RANK)
            snprintf(who, sizeof(who), "r%" PRIu32, a->rank);
        else
            snprintf(who, sizeof(who), "r%" PRIu32 ".s%" PRIu32, a->rank, a->stream);
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "faults %s and %s: expected one stop of %s (a %s stops once; %s "
                             "alone is the same check)",
                             sa, sb, who, a->stream == CES_FAULT_RANK ? "rank" : "stream",
                             a->index < b->index ? sa : sb);
    }
    if ((a->stream != CES_FAULT_RANK && b->stream != CES_FAULT_RANK) || g == NULL)
        return CES_OK; /* stops of two streams, or no graph to place a rank's stop in */
    rs = a->stream == CES_FAULT_RANK ? a : b;
    ss = a->stream == CES_FAULT_RANK ? b : a;
    if (!rank_stop_at(g, rs, ss->stream, &at) || at > ss->index)
        return CES_OK;
    return ces_ctx_error(ctx, CES_ERR_INVALID,
                         "faults %s and %s: %s already stops r%" PRIu32 ".s%" PRIu32
                         " before its op #%" PRIu32 ", so %s changes nothing (expected a "
                         "stream's own stop before where its rank's stop leaves it)",
                         sa, sb, rs == a ? sa : sb, ss->rank, ss->stream, at,
                         ss == a ? sa : sb);
}

/* The stop of a whole rank, faults[i], refused where each stream it stops
 * has a stop of its own before that (fault_pair refused those at or after
 * it), so that it changes nothing. */
static int rank_stop_void(struct ces_ctx *ctx, const struct ces_graph *g,
                          const struct ces_fault *faults, size_t n, size_t i)
{
    struct ces_fault stops[CES_MAX_STREAMS];
    const struct ces_fault *own[CES_MAX_STREAMS]; /* each stream's own stop */
    size_t nstops = 0, len = 0;
    char spec[96], list[CES_MAX_STREAMS * 40]; /* (a stream stop is 33 bytes at most) */

    rank_stop(g, &faults[i], stops, &nstops);
    for (size_t k = 0; k < nstops; k++) {
        own[k] = NULL;
        for (size_t j = 0; j < n && own[k] == NULL; j++)
            if (faults[j].kind == CES_FAULT_STOP && faults[j].rank == stops[k].rank &&
                faults[j].stream == stops[k].stream)
                own[k] = &faults[j];
        if (own[k] == NULL)
            return CES_OK;
    }
    list[0] = '\0';
    for (size_t k = 0; k < nstops; k++) {
        char one[96];

        ces_fault_format(own[k], one, sizeof(one));
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", k > 0 ? ", " : "", one);
    }
    ces_fault_format(&faults[i], spec, sizeof(spec));
    return ces_ctx_error(ctx, CES_ERR_INVALID,
                         "fault %s: every stream it stops has an earlier stop of its own (%s), "
                         "so it changes nothing (expected a rank's stop that stops one of its "
                         "streams first)",
                         spec, list);
}

/* Without a graph: f's rank and stream within what a schedule may have,
 * CES_MAX_RANKS ranks of CES_MAX_STREAMS streams. */
static int fault_in_limits(struct ces_ctx *ctx, const struct ces_fault *f)
{
    char spec[96];

    if (f->rank < CES_MAX_RANKS && (f->stream == CES_FAULT_RANK || f->stream < CES_MAX_STREAMS))
        return CES_OK;
    ces_fault_format(f, spec, sizeof(spec));
    if (f->stream == CES_FAULT_RANK)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "fault %s: no such rank (a schedule has at most %u ranks)", spec,
                             CES_MAX_RANKS);
    return ces_ctx_error(ctx, CES_ERR_INVALID,
                         "fault %s: no such stream (a schedule has at most %u ranks of %u "
                         "streams)", spec, CES_MAX_RANKS, CES_MAX_STREAMS);
}

int ces_sim_faults_check(struct ces_ctx *ctx, const struct ces_graph *g,
                         const struct ces_fault *faults, size_t n)
{
    int rc = CES_OK;

    for (size_t i = 0; i < n && rc == CES_OK; i++)
        rc = g != NULL ? ces_sim_fault_check(ctx, g, &faults[i])
                       : fault_in_limits(ctx, &faults[i]);
    for (size_t i = 0; i < n && rc == CES_OK; i++)
        for (size_t j = i + 1; j < n && rc == CES_OK; j++)
            rc = fault_pair(ctx, g, &faults[i], &faults[j]);
    for (size_t i = 0; i < n && rc == CES_OK && g != NULL; i++)
        if (faults[i].kind == CES_FAULT_STOP && faults[i].stream == CES_FAULT_RANK)
            rc = rank_stop_void(ctx, g, faults, n, i);
    return rc;
}

int ces_sim_faults_expand(struct ces_ctx *ctx, const struct ces_graph *g,
                          const struct ces_check_opts *opts, struct sim_expanded *out)
{
    size_t ranks = 0;

    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < opts->nfaults; i++)
        ranks += opts->faults[i].stream == CES_FAULT_RANK;
    if (ranks == 0)
        return CES_OK;
    out->faults =
        ces_malloc(ctx, (opts->nfaults + ranks * ces_graph_streams(g)) * sizeof(*out->faults));
    out->stops = ces_malloc(ctx, ranks * sizeof(*out->stops));
    if (out->faults == NULL || out->stops == NULL) {
        ces_sim_expanded_free(ctx, out);
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory expanding the faults");
    }
    for (size_t i = 0; i < opts->nfaults; i++) {
        struct sim_rank_stop *rs;

        if (opts->faults[i].stream != CES_FAULT_RANK) {
            out->faults[out->nfaults++] = opts->faults[i];
            continue;
        }
        rs = &out->stops[out->nstops++];
        rs->fault = opts->faults[i];
        rs->first = out->nfaults;
        rank_stop(g, &opts->faults[i], out->faults, &out->nfaults);
        rs->n = out->nfaults - rs->first;
    }
    return CES_OK;
}

void ces_sim_expanded_free(struct ces_ctx *ctx, struct sim_expanded *e)
{
    ces_free(ctx, e->faults);
    ces_free(ctx, e->stops);
    memset(e, 0, sizeof(*e));
}

/* Checks row's fault without and with the watchdog model; each check has
 * what the sweep, begun at t0, left of the time bound, and what its rows
 * (`held` bytes, below the bound) leave of the memory bound. */
static int sweep_one(struct ces_ctx *ctx, const struct ces_graph *g,
                     const struct ces_check_opts *base, double t0, size_t held,
                     struct ces_check_sweep_row *row)
{
    struct ces_check_opts o = *base;
    struct ces_check_report *r = NULL;
    int rc;

    o.faults = &row->fault;
    o.nfaults = 1;
    o.replay = NULL;
    o.progress = NULL;
    o.build_progress = NULL;
    o.flags &= ~(uint32_t)CES_CHECK_ABORT;
    if (base->max_memory > 0)
        o.max_memory = base->max_memory - held;
    o.spent_seconds = base->spent_seconds + (ces_now() - t0);
    rc = ces_check(ctx, g, &o, &r);
    if (rc != CES_OK)
        return rc;
    row->verdict = ces_check_report_verdict(r);
    ces_check_report_destroy(r);
    r = NULL;
    o.flags |= CES_CHECK_ABORT;
    o.spent_seconds = base->spent_seconds + (ces_now() - t0);
    rc = ces_check(ctx, g, &o, &r);
    if (rc != CES_OK)
        return rc;
    row->verdict_abort = ces_check_report_verdict(r);
    row->aborted = ces_check_report_stats(r).aborted;
    /* Under the watchdog model no end state is a DEADLOCK or HANG: one where
     * a process is unfinished has every unfinished process blocked or
     * stopped, so the watchdog fires there (search.c, terminal) and the
     * drain leaves only stopped ones, judged as the watchdog's. */
    assert(!(row->verdict_abort & (CES_V_DEADLOCK | CES_V_HANG)));
    ces_check_report_destroy(r);
    return CES_OK;
}

/* How many stops of rank r as a whole (stop:rR#K) the sweep has: those
 * that stop two streams or more (one is the stop of that stream, already
 * swept), which are K = 0 up to the last op of the stream whose last op
 * comes second last in the rank's enqueue order. */
static uint64_t rank_stops(const struct ces_graph *g, uint32_t r)
{
    uint64_t end[CES_MAX_STREAMS] = {0}, seen = 0, first = 0, second = 0;

    for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
        uint32_t n;
        const struct ces_op *ops = ces_graph_ops(g, b, r, &n);
        uint64_t reps = ces_graph_block(g, b).reps;

        /* each stream's last op so far, + 1: in the block's last replay */
        for (uint32_t i = 0; i < n && reps > 0; i++)
            end[ops[i].stream] = seen + (reps - 1) * n + i + 1;
        seen += n * reps;
    }
    for (uint32_t s = 0; s < ces_graph_streams(g); s++) {
        if (end[s] > first) {
            second = first;
            first = end[s];
        } else if (end[s] > second) {
            second = end[s];
        }
    }
    return second;
}

/* A place in the sweep's faults, which sweep_next walks in position order
 * without listing them: each stream of rank r in turn, op by op, then the
 * rank's own stops. */
struct sweep_cursor {
    uint32_t r, s;    /* the rank; the stream, or the rank's streams for its own stops */
    uint32_t b, j, i; /* the stream's op at hand: block, replay, index in the block's list */
    uint32_t next;    /* its next fault, of drop, delay, stop (3: the op's are given) */
    uint64_t k;       /* its position: the stream's op index, or the rank's */
    uint64_t stops;   /* the rank's own stops (rank_stops), once its streams are done */
};

/* Moves c to the first op of its stream at or after (b, j, i); false at
 * the stream's end. */
static bool stream_op(const struct ces_graph *g, struct sweep_cursor *c)
{
    for (; c->b < ces_graph_nblocks(g); c->b++, c->j = 0, c->i = 0) {
        uint32_t n;
        const struct ces_op *ops = ces_graph_ops(g, c->b, c->r, &n);
        uint64_t reps = ces_graph_block(g, c->b).reps;

        for (; c->j < reps; c->j++) {
            uint32_t from = c->i;

            for (; c->i < n; c->i++)
                if (ops[c->i].stream == c->s)
                    return true;
            c->i = 0;
            if (from == 0) /* the block has no op of the stream: no replay has */
                break;
        }
    }
    return false;
}

/* The sweep's fault after those c gave, c moved past it; false when none
 * is left.  In position order: a write's drop, then its delay, then its
 * stop; a rank's stops as a whole after its streams'.  No delay when the
 * streams are CES_MAX_STREAMS: a delayed write needs a stream of its own. */
static bool sweep_next(const struct ces_graph *g, struct sweep_cursor *c, struct ces_fault *f)
{
    static const uint32_t kinds[3] = {CES_FAULT_DROP, CES_FAULT_DELAY, CES_FAULT_STOP};
    uint32_t streams = ces_graph_streams(g);

    while (c->r < ces_graph_ranks(g)) {
        uint32_t n, kind;
        const struct ces_op *op;

        if (c->s == streams) {
            if (c->k < c->stops) {
                *f = (struct ces_fault){CES_FAULT_STOP, c->r, CES_FAULT_RANK, (uint32_t)c->k++};
                return true;
            }
            *c = (struct sweep_cursor){.r = c->r + 1};
            continue;
        }
        if (c->next == 3) {
            c->next = 0;
            c->i++;
            c->k++;
        }
        if (!stream_op(g, c)) {
            *c = (struct sweep_cursor){.r = c->r, .s = c->s + 1};
            if (c->s == streams)
                c->stops = rank_stops(g, c->r);
            continue;
        }
        op = &ces_graph_ops(g, c->b, c->r, &n)[c->i];
        kind = kinds[c->next++];
        if (kind == CES_FAULT_STOP ||
            (op->kind == CES_OP_WRITE && (kind == CES_FAULT_DROP || streams < CES_MAX_STREAMS))) {
            *f = (struct ces_fault){kind, c->r, c->s, (uint32_t)c->k};
            return true;
        }
    }
    return false;
}

/* Each kind's faults of the sweep (sweep_next's), counted from the blocks'
 * lists, none made. */
static void sweep_count(const struct ces_graph *g, size_t kinds[3])
{
    bool delay = ces_graph_streams(g) < CES_MAX_STREAMS;

    kinds[CES_FAULT_DROP] = kinds[CES_FAULT_DELAY] = kinds[CES_FAULT_STOP] = 0;
    for (uint32_t r = 0; r < ces_graph_ranks(g); r++) {
        for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
            uint32_t n, writes = 0;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);
            uint64_t reps = ces_graph_block(g, b).reps;

            for (uint32_t i = 0; i < n; i++)
                writes += ops[i].kind == CES_OP_WRITE;
            kinds[CES_FAULT_DROP] += (size_t)(writes * reps);
            kinds[CES_FAULT_DELAY] += delay ? (size_t)(writes * reps) : 0;
            kinds[CES_FAULT_STOP] += (size_t)(n * reps);
        }
        kinds[CES_FAULT_STOP] += (size_t)rank_stops(g, r);
    }
}

/* The sweep's last fault (where it has one): of its last rank with ops,
 * the last of the rank's own stops, or where it has none, the stop before
 * its last stream's last op. */
static void sweep_last(const struct ces_graph *g, struct ces_fault *f)
{
    for (uint32_t r = ces_graph_ranks(g); r-- > 0;) {
        uint64_t stops = rank_stops(g, r), len[CES_MAX_STREAMS] = {0};

        if (stops > 0) {
            *f = (struct ces_fault){CES_FAULT_STOP, r, CES_FAULT_RANK, (uint32_t)(stops - 1)};
            return;
        }
        for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
            uint32_t n;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

            for (uint32_t i = 0; i < n; i++)
                len[ops[i].stream] += ces_graph_block(g, b).reps;
        }
        for (uint32_t s = ces_graph_streams(g); s-- > 0;) {
            if (len[s] > 0) {
                *f = (struct ces_fault){CES_FAULT_STOP, r, s, (uint32_t)(len[s] - 1)};
                return;
            }
        }
    }
}

/* Room for one more of the sweep's rows, *out holding *cap, all used:
 * twice as many, but no more than the sweep's `total` faults (the rows a
 * check's memory bound is charged with: 64 of 32 bytes for a sweep of 8
 * faults left each check 1,792 bytes less than 8 rows do), or as many as
 * stay below the memory bound max (0: none), whose rest a check needs.
 * False where not one more stays below it (*rc untouched), or where the
 * allocation fails (*rc CES_ERR_NOMEM). */
static bool sweep_room(struct ces_ctx *ctx, uint64_t max, size_t total,
                       struct ces_check_sweep_row **out, size_t *cap, int *rc)
{
    size_t want = *cap > 0 ? 2 * *cap : 64;
    struct ces_check_sweep_row *p;

    if (want > total)
        want = total;
    if (max > 0 && (max - 1) / sizeof(**out) < want)
        want = (size_t)((max - 1) / sizeof(**out));
    if (want <= *cap)
        return false;
    p = want <= SIZE_MAX / sizeof(**out) ? ces_realloc(ctx, *out, want * sizeof(**out)) : NULL;
    if (p == NULL) {
        *rc = CES_ERR_NOMEM;
        return false;
    }
    *out = p;
    *cap = want;
    return true;
}

/* The checker's limits on the blocks and on a stream's unrolled ops, said
 * before the sweep's first fault (positions are 32-bit, and a stream past
 * the limit made billions of faults that every check then refused), and a
 * fault's on the position of a stop of a rank as a whole: the rank's
 * streams together may hold more ops than a position names. */
static int sweep_limit(struct ces_ctx *ctx, const struct ces_graph *g)
{
    uint64_t cnt[CES_MAX_STREAMS];
    uint32_t streams = ces_graph_streams(g);
    int rc = ces_sim_blocks_check(ctx, g);

    if (rc != CES_OK)
        return rc;
    for (uint32_t r = 0; r < ces_graph_ranks(g); r++) {
        uint64_t stops;

        memset(cnt, 0, sizeof(cnt));
        for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
            uint32_t n;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

            for (uint32_t i = 0; i < n; i++)
                cnt[ops[i].stream] += ces_graph_block(g, b).reps;
        }
        for (uint32_t s = 0; s < streams; s++)
            if (cnt[s] >= UINT32_MAX)
                return ces_ctx_error(ctx, CES_ERR_LIMIT,
                                     "r%" PRIu32 ".s%" PRIu32 ": %" PRIu64
                                     " ops once graph replays are unrolled; the checker takes "
                                     "at most %" PRIu32,
                                     r, s, cnt[s], UINT32_MAX - 1);
        stops = rank_stops(g, r);
        if (stops > (uint64_t)UINT32_MAX + 1)
            return ces_ctx_error(ctx, CES_ERR_LIMIT,
                                 "r%" PRIu32 ": %" PRIu64 " stops of the rank as a whole once "
                                 "graph replays are unrolled (stop:r%" PRIu32 "#0 to stop:r%" PRIu32
                                 "#%" PRIu64 "); a fault's position takes at most %" PRIu32,
                                 r, stops, r, r, stops - 1, UINT32_MAX);
    }
    return CES_OK;
}

int ces_check_fault_sweep(struct ces_ctx *ctx, const struct ces_graph *g,
                          const struct ces_check_opts *opts, struct ces_check_sweep_row **rows,
                          size_t *n, struct ces_check_sweep_rest *rest)
{
    struct ces_check_opts defaults;
    struct ces_check_sweep_row *out = NULL;
    struct sweep_cursor c = {0};
    struct ces_fault f;
    size_t cap = 0, done = 0, total, kinds[3], checked[3] = {0};
    size_t said = SIZE_MAX; /* the faults the last sweep_progress call said */
    double t0 = ces_now(), next;
    int rc = CES_OK;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (g == NULL || rows == NULL || n == NULL || rest == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_check_fault_sweep: NULL argument");
    *rows = NULL;
    *n = 0;
    memset(rest, 0, sizeof(*rest));
    rc = ces_graph_require_valid(ctx, g, "fault sweep");
    if (rc == CES_OK)
        rc = sweep_limit(ctx, g);
    if (rc != CES_OK)
        return rc;
    if (opts == NULL) {
        ces_check_opts_init(&defaults);
        opts = &defaults;
    }
    next = t0 + ces_sim_progress_every(opts);
    rc = ces_sim_opts_times_check(ctx, opts);
    if (rc != CES_OK)
        return rc;
    sweep_count(g, kinds);
    total = kinds[CES_FAULT_DROP] + kinds[CES_FAULT_DELAY] + kinds[CES_FAULT_STOP];
    while (rc == CES_OK && sweep_next(g, &c, &f)) {
        double t = ces_now();

        /* the bounds are the whole sweep's: where the time has passed, or
         * where its row would not fit, this fault and the rest are not
         * checked, which *rest says (never a verdict not found) */
        if (opts->max_seconds > 0 && opts->spent_seconds + (t - t0) >= opts->max_seconds)
            rest->bound = "time";
        else if (done == cap && !sweep_room(ctx, opts->max_memory, total, &out, &cap, &rc) &&
                 rc == CES_OK)
            rest->bound = "memory";
        if (rest->bound != NULL) {
            rest->n = total - done;
            for (int k = 0; k < 3; k++)
                rest->kinds[k] = kinds[k] - checked[k];
            rest->first = f;
            sweep_last(g, &rest->last);
            /* (once: not again where the last call said as many) */
            if (opts->sweep_progress != NULL && said != done)
                opts->sweep_progress(opts->progress_ud, done, total, t - t0);
            break;
        }
        if (rc != CES_OK)
            break;
        memset(&out[done], 0, sizeof(out[done]));
        out[done].fault = f;
        rc = sweep_one(ctx, g, opts, t0, cap * sizeof(*out), &out[done]);
        if (rc != CES_OK)
            break;
        checked[f.kind]++;
        done++;
        if (opts->sweep_progress == NULL)
            continue;
        t = ces_now();
        if (t >= next || done == total) {
            opts->sweep_progress(opts->progress_ud, done, total, t - t0);
            said = done;
            next = t + ces_sim_progress_every(opts);
        }
    }
    if (rc != CES_OK) {
        ces_free(ctx, out);
        return rc == CES_ERR_NOMEM ? ces_ctx_error(ctx, rc, "out of memory in the fault sweep")
                                   : rc;
    }
    assert(rest->bound != NULL || done == total); /* sweep_count counts what sweep_next gives */
    *rows = out;
    *n = done;
    return CES_OK;
}

/* A fault's position as the sweep's table writes it: rR.sS#K, or rR#K for
 * a rank's stop. */
static void sweep_where(const struct ces_fault *f, char *buf, size_t size)
{
    if (f->stream == CES_FAULT_RANK)
        snprintf(buf, size, "r%" PRIu32 "#%" PRIu32, f->rank, f->index);
    else
        snprintf(buf, size, "r%" PRIu32 ".s%" PRIu32 "#%" PRIu32, f->rank, f->stream,
                 f->index);
}

int ces_check_sweep_text(struct ces_ctx *ctx, const struct ces_check_sweep_row *rows, size_t n,
                         const struct ces_check_sweep_rest *rest, char **text, size_t *len)
{
    struct ces_sb sb;
    size_t unchecked = rest != NULL ? rest->n : 0;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if ((rows == NULL && n > 0) || text == NULL || (unchecked > 0 && rest->bound == NULL))
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_check_sweep_text: NULL argument");
    ces_sb_init(&sb, ctx);
    /* the sweep lists a stop before every op, so no fault is a schedule
     * without ops: no empty table then */
    if (n == 0 && unchecked == 0)
        ces_sb_puts(&sb, "no op to fault: the schedule has none (a stop comes before an op, a "
                         "drop or delay hits a write)\n");
    else if (n > 0)
        ces_sb_printf(&sb, "%-14s %-5s %-22s %s\n", "position", "fault", "verdict",
                      "with --abort");
    for (size_t i = 0; i < n; i++) {
        const struct ces_check_sweep_row *r = &rows[i];
        char where[48], v[48], va[48], va2[128];

        sweep_where(&r->fault, where, sizeof(where));
        ces_verdict_format(r->verdict, v, sizeof(v));
        ces_verdict_format(r->verdict_abort, va, sizeof(va));
        if (r->aborted > 0)
            snprintf(va2, sizeof(va2), "%s (watchdog fired in %" PRIu64 " end state%s)", va,
                     r->aborted, ces_plural(r->aborted));
        else
            snprintf(va2, sizeof(va2), "%s", va);
        ces_sb_printf(&sb, "%-14s %-5s %-22s %s\n", where, kind_name(r->fault.kind), v, va2);
    }
    /* the faults a bound left unchecked (the last ones) in one line */
    if (unchecked > 0) {
        char from[48], to[48];

        sweep_where(&rest->first, from, sizeof(from));
        sweep_where(&rest->last, to, sizeof(to));
        ces_sb_printf(&sb, "not checked (the %s): %zu fault%s, %s %s to %s %s in position "
                      "order\n", strcmp(rest->bound, "memory") == 0
                                     ? "memory bound had been reached"
                                     : "time bound had passed",
                      unchecked, ces_plural(unchecked), from, kind_name(rest->first.kind), to,
                      kind_name(rest->last.kind));
    }
    return ces_sb_finish(&sb, text, len);
}
