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
 * what the sweep, begun at t0, left of the time bound. */
static int sweep_one(struct ces_ctx *ctx, const struct ces_graph *g,
                     const struct ces_check_opts *base, double t0,
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
    o.spent_seconds = base->spent_seconds + (ces_sim_now() - t0);
    rc = ces_check(ctx, g, &o, &r);
    if (rc != CES_OK)
        return rc;
    row->verdict = ces_check_report_verdict(r);
    ces_check_report_destroy(r);
    r = NULL;
    o.flags |= CES_CHECK_ABORT;
    o.spent_seconds = base->spent_seconds + (ces_sim_now() - t0);
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

/* Lists fault f as the sweep's row *n (where out is not NULL: a count
 * alone first, then the rows), counting it in *n. */
static void list_fault(struct ces_check_sweep_row *out, size_t *n, const struct ces_fault *f)
{
    if (out != NULL) {
        memset(&out[*n], 0, sizeof(out[*n]));
        out[*n].fault = *f;
    }
    (*n)++;
}

/* The stops of rank r as a whole (stop:rR#K) that stop two streams or more
 * (one is the stop of that stream, already swept), listed (list_fault). */
static void sweep_rank_stops(const struct ces_graph *g, uint32_t r,
                             struct ces_check_sweep_row *out, size_t *n)
{
    uint64_t left[CES_MAX_STREAMS] = {0}; /* each stream's ops not yet enqueued */
    uint32_t k = 0;

    for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
        uint32_t nops;
        const struct ces_op *ops = ces_graph_ops(g, b, r, &nops);

        for (uint32_t i = 0; i < nops; i++)
            left[ops[i].stream] += ces_graph_block(g, b).reps;
    }
    for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
        struct ces_block_info bi = ces_graph_block(g, b);
        uint32_t nops;
        const struct ces_op *ops = ces_graph_ops(g, b, r, &nops);

        for (uint32_t j = 0; j < bi.reps && nops > 0; j++) {
            for (uint32_t i = 0; i < nops; i++, k++) {
                struct ces_fault f = {CES_FAULT_STOP, r, CES_FAULT_RANK, k};
                uint32_t alive = 0;

                for (uint32_t s = 0; s < ces_graph_streams(g); s++)
                    alive += left[s] > 0;
                if (alive > 1)
                    list_fault(out, n, &f);
                left[ops[i].stream]--;
            }
        }
    }
}

/* Every fault of the sweep, in position order (a write's drop, then its
 * delay, then its stop; a rank's stops as a whole after its streams'),
 * listed (list_fault): counted first, then written into rows allocated
 * once (a vector grown fault by fault copied itself over and over: 28
 * million faults of a graph phase replayed a million times).  No delay
 * when the streams are CES_MAX_STREAMS: a delayed write needs a stream of
 * its own. */
static void sweep_faults(const struct ces_graph *g, struct ces_check_sweep_row *out, size_t *n)
{
    uint32_t ranks = ces_graph_ranks(g), streams = ces_graph_streams(g);

    *n = 0;
    for (uint32_t r = 0; r < ranks; r++) {
        for (uint32_t s = 0; s < streams; s++) {
            /* walk the unrolled program of (r, s) */
            uint32_t k = 0;

            for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
                struct ces_block_info bi = ces_graph_block(g, b);
                uint32_t nops;
                const struct ces_op *ops = ces_graph_ops(g, b, r, &nops);

                for (uint32_t j = 0; j < bi.reps && nops > 0; j++) {
                    for (uint32_t i = 0; i < nops; i++) {
                        struct ces_fault f = {.kind = CES_FAULT_DROP, .rank = r, .stream = s,
                                              .index = k};

                        if (ops[i].stream != s)
                            continue;
                        if (ops[i].kind == CES_OP_WRITE) {
                            list_fault(out, n, &f);
                            f.kind = CES_FAULT_DELAY;
                            if (streams < CES_MAX_STREAMS)
                                list_fault(out, n, &f);
                        }
                        f.kind = CES_FAULT_STOP;
                        list_fault(out, n, &f);
                        k++;
                    }
                }
            }
        }
        if (streams > 1)
            sweep_rank_stops(g, r, out, n);
    }
}

/* The checker's limit on a stream's unrolled ops, said before the sweep
 * lists a fault at each of them (positions are 32-bit, and a stream past
 * the limit made billions of faults that every check then refused). */
static int sweep_limit(struct ces_ctx *ctx, const struct ces_graph *g)
{
    uint64_t cnt[CES_MAX_STREAMS];
    uint32_t streams = ces_graph_streams(g);

    for (uint32_t r = 0; r < ces_graph_ranks(g); r++) {
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
    }
    return CES_OK;
}

int ces_check_fault_sweep(struct ces_ctx *ctx, const struct ces_graph *g,
                          const struct ces_check_opts *opts, struct ces_check_sweep_row **rows,
                          size_t *n)
{
    struct ces_check_opts defaults;
    struct ces_check_sweep_row *out = NULL;
    size_t nf = 0;
    double t0 = ces_sim_now(), next;
    int rc = CES_OK;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (g == NULL || rows == NULL || n == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_check_fault_sweep: NULL argument");
    *rows = NULL;
    *n = 0;
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
    sweep_faults(g, NULL, &nf);
    if (nf > 0) {
        out = nf <= SIZE_MAX / sizeof(*out) ? ces_malloc(ctx, nf * sizeof(*out)) : NULL;
        if (out == NULL)
            return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory in the fault sweep");
        sweep_faults(g, out, &nf);
    }
    for (size_t i = 0; i < nf && rc == CES_OK; i++) {
        double t = ces_sim_now();

        /* the bound is the whole sweep's: where it has passed, this fault
         * and the rest are not checked, which their rows say (INCOMPLETE,
         * never a verdict not found) */
        if (opts->max_seconds > 0 && opts->spent_seconds + (t - t0) >= opts->max_seconds) {
            for (size_t k = i; k < nf; k++) {
                out[k].verdict = out[k].verdict_abort = CES_V_INCOMPLETE;
                out[k].unchecked = 1;
            }
            if (opts->sweep_progress != NULL)
                opts->sweep_progress(opts->progress_ud, i, nf, t - t0);
            break;
        }
        rc = sweep_one(ctx, g, opts, t0, &out[i]);
        if (rc != CES_OK || opts->sweep_progress == NULL)
            continue;
        t = ces_sim_now();
        if (t >= next || i + 1 == nf) {
            opts->sweep_progress(opts->progress_ud, i + 1, nf, t - t0);
            next = t + ces_sim_progress_every(opts);
        }
    }
    if (rc != CES_OK) {
        ces_free(ctx, out);
        return rc == CES_ERR_NOMEM ? ces_ctx_error(ctx, rc, "out of memory in the fault sweep")
                                   : rc;
    }
    *rows = out;
    *n = nf;
    return CES_OK;
}

/* A sweep row's position as its table writes it: rR.sS#K, or rR#K for a
 * rank's stop. */
static void sweep_where(const struct ces_check_sweep_row *r, char *buf, size_t size)
{
    if (r->fault.stream == CES_FAULT_RANK)
        snprintf(buf, size, "r%" PRIu32 "#%" PRIu32, r->fault.rank, r->fault.index);
    else
        snprintf(buf, size, "r%" PRIu32 ".s%" PRIu32 "#%" PRIu32, r->fault.rank,
                 r->fault.stream, r->fault.index);
}

int ces_check_sweep_text(struct ces_ctx *ctx, const struct ces_check_sweep_row *rows, size_t n,
                         char **text, size_t *len)
{
    struct ces_sb sb;
    size_t unchecked = 0, first = 0, last = 0;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if ((rows == NULL && n > 0) || text == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_check_sweep_text: NULL argument");
    ces_sb_init(&sb, ctx);
    /* the rows the time bound left unchecked (the last ones) in one line */
    for (size_t i = 0; i < n; i++) {
        if (rows[i].unchecked && unchecked++ == 0)
            first = i;
        if (rows[i].unchecked)
            last = i;
    }
    /* the sweep lists a stop before every op, so no row is a schedule
     * without ops: no empty table then */
    if (n == 0)
        ces_sb_puts(&sb, "no op to fault: the schedule has none (a stop comes before an op, a "
                         "drop or delay hits a write)\n");
    else if (unchecked < n)
        ces_sb_printf(&sb, "%-14s %-5s %-22s %s\n", "position", "fault", "verdict",
                      "with --abort");
    for (size_t i = 0; i < n; i++) {
        const struct ces_check_sweep_row *r = &rows[i];
        char where[48], v[48], va[48], va2[128];

        if (r->unchecked)
            continue;
        sweep_where(r, where, sizeof(where));
        ces_verdict_format(r->verdict, v, sizeof(v));
        ces_verdict_format(r->verdict_abort, va, sizeof(va));
        if (r->aborted > 0)
            snprintf(va2, sizeof(va2), "%s (watchdog fired in %" PRIu64 " end state%s)", va,
                     r->aborted, ces_plural(r->aborted));
        else
            snprintf(va2, sizeof(va2), "%s", va);
        ces_sb_printf(&sb, "%-14s %-5s %-22s %s\n", where, kind_name(r->fault.kind), v, va2);
    }
    if (unchecked > 0) {
        char from[48], to[48];

        sweep_where(&rows[first], from, sizeof(from));
        sweep_where(&rows[last], to, sizeof(to));
        ces_sb_printf(&sb, "not checked (the time bound had passed): %zu fault%s, %s %s to %s "
                      "%s in position order\n", unchecked, ces_plural(unchecked), from,
                      kind_name(rows[first].fault.kind), to, kind_name(rows[last].fault.kind));
    }
    return ces_sb_finish(&sb, text, len);
}
