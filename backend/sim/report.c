/*
 * backend/sim/report.c - the check report: per defect class the shortest
 * counterexample found, re-run step by step to gather its details (numbered
 * steps with observed values, the blocked set with its wait-for edges and
 * cycle, the racing accesses, the mismatching bytes), the replay string;
 * and its renderings: text, JSON, the dot overlay.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

uint32_t ces_sim_class_bit(int d)
{
    static const uint32_t bits[SIM_D_COUNT] = {CES_V_DEADLOCK, CES_V_HANG, CES_V_RACE,
                                            CES_V_MISMATCH, CES_CHECK_ABORTED};

    return bits[d];
}

static void defect_free(struct ces_ctx *ctx, struct sim_defect *d)
{
    if (d == NULL)
        return;
    ces_vec_free(ctx, &d->steps);
    ces_vec_free(ctx, &d->blocked);
    ces_vec_free(ctx, &d->edges);
    ces_vec_free(ctx, &d->cycle);
    ces_vec_free(ctx, &d->aborted);
    ces_vec_free(ctx, &d->marks);
    ces_free(ctx, d->title);
    ces_free(ctx, d->replay);
    ces_free(ctx, d);
}

void ces_check_report_destroy(struct ces_check_report *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->ndefects; i++)
        defect_free(r->ctx, r->defects[i]);
    ces_sim_delayed_free(r->ctx, &r->delayed);
    ces_sim_expanded_free(r->ctx, &r->expanded);
    ces_free(r->ctx, r->qmap);
    ces_free(r->ctx, r);
}

const struct ces_graph *ces_check_report_graph(const struct ces_check_report *r)
{
    return r == NULL ? NULL : r->g;
}

static void json_str(struct ces_sb *sb, const char *s)
{
    ces_sb_puts(sb, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            ces_sb_printf(sb, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            ces_sb_printf(sb, "\\u%04x", (unsigned)(unsigned char)*s);
        else
            ces_sb_printf(sb, "%c", *s);
    }
    ces_sb_puts(sb, "\"");
}

/* The names of the signals in `mask` (bit i: signal i): as a list of JSON
 * strings, or as text ("bar", "rdy and bar", "a, b and c"). */
static void sb_signals(struct ces_sb *sb, const struct ces_graph *g, uint64_t mask, bool json)
{
    uint32_t n = 0, left = 0;

    for (uint32_t i = 0; i < 64; i++)
        left += (mask >> i) & 1u;
    if (!json)
        ces_sb_printf(sb, "signal%s ", left > 1 ? "s" : "");
    for (uint32_t i = 0; i < 64 && left > 0; i++) {
        if (!((mask >> i) & 1u))
            continue;
        left--;
        if (json) {
            ces_sb_puts(sb, n++ ? "," : "");
            json_str(sb, ces_graph_signal(g, i).name);
        } else {
            ces_sb_printf(sb, "%s%s", n++ == 0 ? "" : left == 0 ? " and " : ", ",
                          ces_graph_signal(g, i).name);
        }
    }
}

/* Where each stop of a whole rank stopped its streams. */
static void fmt_rank_stops(struct ces_sb *sb, const struct ces_check_report *r)
{
    for (size_t i = 0; i < r->expanded.nstops; i++) {
        const struct sim_rank_stop *rs = &r->expanded.stops[i];
        char spec[96];

        ces_fault_format(&rs->fault, spec, sizeof(spec));
        ces_sb_printf(sb, "fault %s: r%" PRIu32 " dies before its op #%" PRIu32
                      " in enqueue order:", spec, rs->fault.rank, rs->fault.index);
        for (size_t k = 0; k < rs->n; k++) {
            const struct ces_fault *f = &r->expanded.faults[rs->first + k];

            ces_sb_printf(sb, "%s r%" PRIu32 ".s%" PRIu32 " stops before #%" PRIu32,
                          k ? "," : "", f->rank, f->stream, f->index);
        }
        ces_sb_puts(sb, "\n"); /* (the op at #K is one stream's: n >= 1) */
    }
}

/* Where each delayed write lands from: the position of the record that
 * stands for it, and the write on its own stream. */
static void fmt_delays(struct ces_sb *sb, const struct ces_check_report *r)
{
    for (size_t i = 0; i < r->delayed.ndelays; i++) {
        const struct sim_delay *d = &r->delayed.delays[i];
        char spec[96];

        ces_fault_format(&d->fault, spec, sizeof(spec));
        ces_sb_printf(sb, "fault %s: r%" PRIu32 ".s%" PRIu32 "#%" PRIu32 " records an event in "
                      "place of the write; the write lands from r%" PRIu32 ".s%" PRIu32
                      ", a stream of its own, at any moment after that\n",
                      spec, d->fault.rank, d->fault.stream, d->fault.index, d->fault.rank,
                      d->stream);
    }
}

static int report_add(struct ces_check_report *rep, const struct sim_model *m, int dc,
                      const uint32_t *trace, size_t n);

/* Position in process y's program of the op at queue index qi (the queue
 * predecessor of an op), SIM_NONE if there is none. */
static uint32_t queue_pos(const struct sim_model *m, uint32_t y, uint32_t qi)
{
    for (uint32_t k = m->stop[y]; k-- > 0;) {
        if (ces_sim_qidx(m, y, k) == qi)
            return k;
        if (ces_sim_qidx(m, y, k) < qi)
            break;
    }
    return SIM_NONE;
}

/* Shortens a race trace to the causal past of the two racing accesses:
 * every step of a process up to the last one needed, the store each needed
 * wait observed, the record of each needed await, the queue predecessor of
 * each needed op.  Kept in the original order, the steps stay enabled and
 * each wait observes the same store (the one it observed was the latest
 * before it and is kept), so the later access has the same clock and the
 * race is found again; *out stays empty when the trace cannot be shortened
 * or the shortened one does not race. */
static int minimize_race(const struct sim_model *m, const uint32_t *trace, size_t n,
                         struct ces_vec *out)
{
    struct ces_ctx *ctx = m->ctx;
    struct sim_detail det;
    struct sim_state st = {0};
    uint32_t *pos = NULL, *need = NULL, *obs = NULL, *lastw = NULL;
    uint32_t P = m->nproc;
    size_t last = 0;
    int rc;

    memset(&det, 0, sizeof(det));
    det.want_race = true;
    pos = ces_malloc(ctx, (n + 1) * sizeof(uint32_t));
    obs = ces_malloc(ctx, (n + 1) * sizeof(uint32_t));
    need = ces_malloc(ctx, P * sizeof(uint32_t));
    lastw = ces_malloc(ctx, (m->nslots + 1) * sizeof(uint32_t));
    rc = pos && obs && need && lastw ? CES_OK : CES_ERR_NOMEM;
    if (rc == CES_OK)
        rc = ces_sim_state_init(m, &st);
    if (rc != CES_OK)
        goto out;
    for (uint32_t x = 0; x < m->nslots; x++)
        lastw[x] = SIM_NONE;
    /* forward: positions, the store each wait observes, the racing pair */
    for (size_t i = 0; i < n && rc == CES_OK && !det.have_race; i++) {
        uint32_t p = trace[i], k = SIM_PC(m, &st)[p];
        const struct sim_op *o = &m->ops[p][k];

        pos[i] = k;
        obs[i] = o->cls == SIM_C_WAIT ? lastw[o->slot] : SIM_NONE;
        if (o->cls == SIM_C_WRITE && !o->dropped)
            lastw[o->slot] = (uint32_t)i;
        rc = ces_sim_follow(m, &st, &trace[i], 1, &det, NULL, NULL);
        last = i; /* (follow numbers its own single step 1) */
    }
    if (rc != CES_OK || !det.have_race)
        goto out;
    for (uint32_t p = 0; p < P; p++)
        need[p] = SIM_NONE;
    need[trace[last]] = pos[last];
    need[det.race_other_proc] = det.race_other_pos;
    /* backward: every dependency points to an earlier step */
    for (size_t i = last + 1; i-- > 0;) {
        uint32_t p = trace[i], k = pos[i];
        const struct sim_op *o = &m->ops[p][k];

        if (need[p] == SIM_NONE || k > need[p])
            continue;
        if (obs[i] != SIM_NONE) {
            uint32_t w = trace[obs[i]];

            if (need[w] == SIM_NONE || need[w] < pos[obs[i]])
                need[w] = pos[obs[i]];
        }
        if (o->cls == SIM_C_AWAIT) {
            const struct sim_link *rec = ces_sim_await_rec(m, o);

            if (need[rec->proc] == SIM_NONE || need[rec->proc] < rec->pos)
                need[rec->proc] = rec->pos;
        }
        for (uint32_t j = 0; j < o->nlink; j++) {
            const struct sim_link *l = &m->links[o->link + j];

            if (need[l->proc] == SIM_NONE || need[l->proc] < l->pos)
                need[l->proc] = l->pos;
        }
        if (m->shared_queues && ces_sim_qidx(m, p, k) > 0) {
            uint32_t qi = ces_sim_qidx(m, p, k) - 1;
            uint32_t q = m->queue[p], y = ces_sim_queue_proc(m, q, qi);
            uint32_t yk = queue_pos(m, y, qi);

            if (yk != SIM_NONE && (need[y] == SIM_NONE || need[y] < yk))
                need[y] = yk;
        }
    }
    for (size_t i = 0; i <= last && rc == CES_OK; i++) {
        if (need[trace[i]] != SIM_NONE && pos[i] <= need[trace[i]])
            rc = ces_vec_push(ctx, out, sizeof(uint32_t), &trace[i]);
    }
    /* check: the short trace must race too */
    if (rc == CES_OK) {
        struct sim_state s2 = {0};

        memset(&det, 0, sizeof(det));
        det.want_race = true;
        rc = ces_sim_state_init(m, &s2);
        if (rc == CES_OK)
            rc = ces_sim_follow(m, &s2, out->data, out->len, &det, NULL, NULL);
        ces_sim_state_free(m, &s2);
        if (rc == CES_ERR_INVALID || (rc == CES_OK && !det.have_race)) {
            out->len = 0; /* keep the original trace */
            rc = CES_OK;
        }
    }
out:
    if (st.w != NULL)
        ces_sim_state_free(m, &st);
    ces_free(ctx, pos);
    ces_free(ctx, obs);
    ces_free(ctx, need);
    ces_free(ctx, lastw);
    return rc;
}

int ces_sim_report_add(struct ces_check_report *rep, const struct sim_model *m, int dc,
                       const uint32_t *trace, size_t n)
{
    struct ces_vec shorter = {0};
    int rc;

    if (dc == SIM_D_RACE) {
        rc = minimize_race(m, trace, n, &shorter);
        if (rc != CES_OK) {
            ces_vec_free(rep->ctx, &shorter);
            return ces_ctx_error(rep->ctx, rc, "out of memory writing the report");
        }
        if (shorter.len > 0 && shorter.len < n) {
            trace = shorter.data;
            n = shorter.len;
        }
    }
    rc = report_add(rep, m, dc, trace, n);
    ces_vec_free(rep->ctx, &shorter);
    return rc;
}

static int report_add(struct ces_check_report *rep, const struct sim_model *m, int dc,
                      const uint32_t *trace, size_t n)
{
    struct ces_ctx *ctx = rep->ctx;
    struct sim_defect *d = ces_malloc(ctx, sizeof(*d));
    struct sim_detail det;
    struct sim_state st = {0};
    int rc;

    if (d == NULL)
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory writing the report");
    memset(d, 0, sizeof(*d));
    memset(&det, 0, sizeof(det));
    det.want_race = dc == SIM_D_RACE;
    det.want_mismatch = dc == SIM_D_MISMATCH;
    rc = ces_sim_state_init(m, &st);
    if (rc == CES_OK)
        rc = ces_sim_follow(m, &st, trace, n, &det, &d->steps, &d->aborted);
    if (rc == CES_OK && (dc == SIM_D_DEADLOCK || dc == SIM_D_HANG)) {
        struct sim_blocked_out bo;
        uint32_t cls;

        memset(&bo, 0, sizeof(bo));
        rc = ces_sim_end_class(m, &st, &cls, &bo);
        d->blocked = bo.blocked;
        d->edges = bo.edges;
        d->cycle = bo.cycle;
        for (size_t i = 0; rc == CES_OK && i < d->blocked.len; i++) {
            struct ces_check_blocked *b = &CES_VEC_AT(&d->blocked, struct ces_check_blocked, i);
            size_t off = (size_t)(uintptr_t)b->edges;

            b->edges = b->nedges > 0 ? &CES_VEC_AT(&d->edges, struct ces_check_edge, off) : NULL;
        }
    }
    /* the watchdog's end state: the streams a stop left unfinished, which
     * it cannot release (everything else ran to its end) */
    for (uint32_t p = 0; rc == CES_OK && dc == SIM_D_ABORTED && p < m->nproc; p++) {
        struct ces_check_blocked b;

        if (ces_sim_status(m, &st, p) != SIM_S_STOPPED)
            continue;
        memset(&b, 0, sizeof(b));
        ces_sim_pos(m, p, SIM_PC(m, &st)[p], &b.pos);
        b.reason = CES_BLOCK_STOPPED;
        rc = ces_vec_push(ctx, &d->blocked, sizeof(b), &b);
    }
    if (rc == CES_OK && dc == SIM_D_RACE && det.have_race) {
        d->pub.race[0] = det.race[0];
        d->pub.race[1] = det.race[1];
        for (size_t i = 0; i < d->steps.len; i++) {
            const struct ces_check_step *s = &CES_VEC_AT(&d->steps, struct ces_check_step, i);

            if (s->pos.rank * m->streams + s->pos.stream == det.race_other_proc &&
                s->pos.index == det.race_other_pos)
                d->pub.race[0].step = (uint32_t)i + 1;
        }
    }
    if (rc == CES_OK && dc == SIM_D_MISMATCH && det.have_mismatch)
        d->pub.mismatch = det.mismatch;
    if (rc == CES_OK)
        rc = ces_sim_replay_format(ctx, trace, n, &d->replay);
    ces_sim_state_free(m, &st);
    if (rc != CES_OK) {
        defect_free(ctx, d);
        return rc == CES_ERR_NOMEM ? ces_ctx_error(ctx, rc, "out of memory writing the report")
                                   : rc;
    }
    d->pub.cls = ces_sim_class_bit(dc);
    d->pub.replay = d->replay;
    d->pub.nsteps = d->steps.len;
    d->pub.steps = d->steps.data;
    d->pub.nblocked = d->blocked.len;
    d->pub.blocked = d->blocked.data;
    d->pub.ncycle = d->cycle.len;
    d->pub.cycle = d->cycle.data;
    d->pub.naborted = d->aborted.len;
    d->pub.aborted = d->aborted.data;
    rep->defects[rep->ndefects++] = d;
    if (dc != SIM_D_ABORTED)
        rep->verdict |= d->pub.cls;
    return CES_OK;
}

uint32_t ces_check_report_verdict(const struct ces_check_report *r)
{
    return r != NULL ? r->verdict : 0;
}

uint32_t ces_check_report_open(const struct ces_check_report *r)
{
    return r != NULL ? r->open : 0;
}

struct ces_check_stats ces_check_report_stats(const struct ces_check_report *r)
{
    struct ces_check_stats s;

    if (r != NULL)
        return r->stats;
    memset(&s, 0, sizeof(s));
    return s;
}

size_t ces_check_report_ndefects(const struct ces_check_report *r)
{
    return r != NULL ? r->ndefects : 0;
}

const struct ces_check_defect *ces_check_report_defect(const struct ces_check_report *r,
                                                       size_t i)
{
    if (r == NULL || i >= r->ndefects)
        return NULL;
    return &r->defects[i]->pub;
}

int ces_verdict_format(uint32_t verdict, char *buf, size_t size)
{
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {{CES_V_DEADLOCK, "DEADLOCK"},
                 {CES_V_HANG, "HANG"},
                 {CES_V_RACE, "RACE"},
                 {CES_V_MISMATCH, "MISMATCH"},
                 {CES_V_INCOMPLETE, "INCOMPLETE"}};
    char tmp[64] = "";
    size_t len = 0;
    uint32_t rest = verdict;

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (verdict & names[i].bit)
            len += (size_t)snprintf(tmp + len, sizeof(tmp) - len, "%s%s", len ? "," : "",
                                    names[i].name);
        rest &= ~names[i].bit;
    }
    if (rest != 0) /* bits no verdict has: shown, not taken for OK */
        len += (size_t)snprintf(tmp + len, sizeof(tmp) - len, "%s0x%" PRIx32, len ? "," : "",
                                rest);
    if (len == 0)
        snprintf(tmp, sizeof(tmp), "OK");
    return snprintf(buf, size, "%s", tmp);
}

/* --- text ----------------------------------------------------------------------- */

static const struct ces_op *op_at(const struct ces_graph *g, const struct ces_check_pos *p)
{
    uint32_t n;
    const struct ces_op *ops = ces_graph_ops(g, p->block, p->rank, &n);

    return p->op < n ? &ops[p->op] : NULL;
}

static void fmt_pos_op(struct ces_sb *sb, const struct ces_graph *g,
                       const struct ces_check_pos *p)
{
    const struct ces_op *op = op_at(g, p);

    ces_sb_printf(sb, "r%" PRIu32 ".s%" PRIu32 "#%" PRIu32 " ", p->rank, p->stream, p->index);
    if (op == NULL)
        ces_sb_puts(sb, "?");
    else
        ces_sb_op(sb, g, p->rank, op);
    if (op != NULL && op->line > 0) /* where the schedule's text has it */
        ces_sb_printf(sb, " (line %" PRIu32 ":%" PRIu32 ")", op->line, op->col);
}

static void fmt_region(struct ces_sb *sb, const struct ces_graph *g, const struct ces_region *r)
{
    ces_sb_printf(sb, "%s@%" PRIu32 "[%" PRIu64 ":%" PRIu64 "]", ces_graph_buffer(g, r->buf).name,
                  r->rank, r->lo, r->hi);
}

static void fmt_prov(struct ces_sb *sb, const struct ces_graph *g,
                     const struct ces_check_prov *p, uint64_t len)
{
    ces_sb_printf(sb, "%s@%" PRIu32 "[%" PRIu64 ":%" PRIu64 "] ", ces_graph_buffer(g, p->buf).name,
                  p->rank, p->off, p->off + len);
    if (p->gen == 0)
        ces_sb_puts(sb, "(initial contents)");
    else
        ces_sb_printf(sb, "of iteration %" PRIu64, p->gen);
}

static void fmt_slot(struct ces_sb *sb, const struct ces_graph *g, const struct ces_slot *s)
{
    ces_sb_printf(sb, "%s[%" PRIu32 "]@%" PRIu32, ces_graph_signal(g, s->sig).name, s->idx,
                  s->rank);
}

/* Whether edge e of the op blocked at b is one of its links: the last op
 * before b's block and replay of another stream of its rank that passes
 * boundaries (below `linked`: not a delayed write's).  A write that b's own
 * op waits for past the boundary may lie earlier on such a stream, or on a
 * delayed write's. */
static bool link_edge(const struct ces_graph *g, uint32_t linked, const struct ces_check_pos *b,
                      const struct ces_check_pos *e)
{
    if (e->rank != b->rank || e->stream == b->stream || e->stream >= linked ||
        e->block > b->block || (e->block == b->block && e->rep >= b->rep))
        return false;
    /* no op of e's stream after e and before b's (block, replay): none later
     * in e's replay, none in a replay between them */
    for (uint32_t x = e->block; x <= b->block; x++) {
        uint32_t n, from = x == e->block ? e->op + 1 : 0, rep = x == e->block ? e->rep : 0;
        uint32_t reps = x == b->block ? b->rep : ces_graph_block(g, x).reps;
        const struct ces_op *ops = ces_graph_ops(g, x, e->rank, &n);

        for (uint32_t i = 0; i < n; i++)
            if (ops[i].stream == e->stream && ((i >= from && rep < reps) || rep + 1 < reps))
                return false;
    }
    return true;
}

/* "SLOT holds V, awaits >= W" of a blocked wait, and the line's end. */
static void fmt_wait_values(struct ces_sb *sb, const struct ces_graph *g,
                            const struct ces_check_blocked *b)
{
    fmt_slot(sb, g, &b->slot);
    ces_sb_printf(sb, " holds %" PRIu64 ", awaits %s %" PRIu64 "\n", b->held,
                  b->cmp == CES_CMP_EQ ? "==" : ">=", b->awaited);
}

/* "cycle: r0.s1#0 -> r1.s0#1 -> r0.s1#0", the wait-for cycle closed */
static void fmt_cycle(struct ces_sb *sb, const struct ces_check_defect *d)
{
    ces_sb_puts(sb, "cycle:");
    for (size_t i = 0; i <= d->ncycle; i++) {
        const struct ces_check_pos *p = &d->blocked[d->cycle[i % d->ncycle]].pos;

        ces_sb_printf(sb, "%s r%" PRIu32 ".s%" PRIu32 "#%" PRIu32, i ? " ->" : "", p->rank,
                      p->stream, p->index);
    }
}

static void fmt_blocked(struct ces_sb *sb, const struct ces_graph *g, uint32_t linked,
                        const struct ces_check_defect *d)
{
    ces_sb_puts(sb, "  blocked:\n");
    for (size_t i = 0; i < d->nblocked; i++) {
        const struct ces_check_blocked *b = &d->blocked[i];

        ces_sb_puts(sb, "    ");
        if (b->reason == CES_BLOCK_STOPPED) {
            ces_sb_printf(sb, "r%" PRIu32 ".s%" PRIu32 " stopped by a fault before ", b->pos.rank,
                          b->pos.stream);
            fmt_pos_op(sb, g, &b->pos);
            ces_sb_puts(sb, "\n");
            continue;
        }
        fmt_pos_op(sb, g, &b->pos);
        if (b->reason == CES_BLOCK_WAIT) {
            ces_sb_puts(sb, ": ");
            fmt_wait_values(sb, g, b);
            if (b->nedges == 0)
                ces_sb_puts(sb, "      no stream still holds a write that would satisfy it\n");
        } else if (b->reason == CES_BLOCK_AWAIT) {
            ces_sb_puts(sb, ": its record has not run\n");
        } else {
            ces_sb_puts(sb, b->reason == CES_BLOCK_LINK
                                ? ": the first of its stream in a block or replay, which starts "
                                  "after the rank's other streams finish the earlier ones"
                                : ": behind the head of its hardware queue");
            /* and the values of its own wait, blocked past them too */
            if (b->waits) {
                ces_sb_puts(sb, "; past that, its wait: ");
                fmt_wait_values(sb, g, b);
            } else {
                ces_sb_puts(sb, "\n");
            }
        }
        for (size_t e = 0; e < b->nedges; e++) {
            const struct ces_check_edge *ed = &b->edges[e];
            const struct ces_check_blocked *t = &d->blocked[ed->to];

            /* (an op blocked behind its queue head, or at its boundary, may
             * be blocked past them too: it waits for both) */
            ces_sb_puts(sb, b->reason == CES_BLOCK_WAIT    ? "      could be written by "
                            : b->reason == CES_BLOCK_AWAIT ? "      needs the record "
                            : b->reason == CES_BLOCK_QUEUE && e == 0 ? "      queue head "
                            : b->reason == CES_BLOCK_LINK && link_edge(g, linked, &b->pos, &ed->pos)
                                ? "      needs first "
                                : "      and its op needs ");
            fmt_pos_op(sb, g, &ed->pos);
            if (t->reason == CES_BLOCK_STOPPED)
                ces_sb_printf(sb, ", but r%" PRIu32 ".s%" PRIu32 " was stopped by a fault\n",
                              t->pos.rank, t->pos.stream);
            else if (t == b)
                ces_sb_puts(sb, ", later on this same stream\n");
            else
                ces_sb_printf(sb, ", but r%" PRIu32 ".s%" PRIu32 " is blocked at r%" PRIu32
                              ".s%" PRIu32 "#%" PRIu32 "\n",
                              t->pos.rank, t->pos.stream, t->pos.rank, t->pos.stream,
                              t->pos.index);
        }
    }
    if (d->ncycle > 0) {
        ces_sb_puts(sb, "  ");
        fmt_cycle(sb, d);
        ces_sb_puts(sb, "\n");
    }
}

static void fmt_access(struct ces_sb *sb, const struct ces_graph *g,
                       const struct ces_check_access *a)
{
    fmt_pos_op(sb, g, &a->pos);
    ces_sb_printf(sb, "  %s ", a->write ? "writes" : "reads");
    fmt_region(sb, g, &a->region);
    if (a->step > 0)
        ces_sb_printf(sb, " (step %" PRIu32 ")", a->step);
    ces_sb_puts(sb, "\n");
}

/* "mismatch at OP" + at + "REGION holds WHAT" + expected + "WHAT": the
 * report's lines (at and expected break them) or the picture's title's */
static void fmt_mismatch(struct ces_sb *sb, const struct ces_graph *g,
                         const struct ces_check_mismatch *mm, const char *at,
                         const char *expected)
{
    uint64_t len = mm->region.hi - mm->region.lo;

    ces_sb_puts(sb, "mismatch at ");
    fmt_pos_op(sb, g, &mm->pos);
    ces_sb_puts(sb, at);
    fmt_region(sb, g, &mm->region);
    ces_sb_puts(sb, " holds ");
    fmt_prov(sb, g, &mm->found, len);
    ces_sb_puts(sb, expected);
    fmt_prov(sb, g, &mm->expected, len);
}

static void fmt_defect(struct ces_sb *sb, const struct ces_graph *g, uint32_t linked,
                       const struct ces_check_defect *d)
{
    if (d->cls == CES_CHECK_ABORTED)
        ces_sb_printf(sb, "WATCHDOG: an execution where it fired, %zu step%s\n", d->nsteps,
                      ces_plural(d->nsteps));
    else {
        char v[32];

        ces_verdict_format(d->cls, v, sizeof(v));
        ces_sb_printf(sb, "%s: counterexample of %zu step%s\n", v, d->nsteps,
                      ces_plural(d->nsteps));
    }
    for (size_t i = 0; i < d->nsteps; i++) {
        const struct ces_check_step *s = &d->steps[i];

        ces_sb_printf(sb, "%5zu ", i + 1);
        fmt_pos_op(sb, g, &s->pos);
        if (s->kind == CES_STEP_DROPPED)
            ces_sb_puts(sb, "  (dropped by a fault)");
        else if (s->kind == CES_STEP_ABORTED)
            ces_sb_puts(sb, "  (released by the watchdog)");
        else if (s->has_value && op_at(g, &s->pos) != NULL &&
                 op_at(g, &s->pos)->kind == CES_OP_WAIT)
            ces_sb_printf(sb, "  (value %" PRIu64 ")", s->value);
        ces_sb_puts(sb, "\n");
    }
    /* an empty one quoted, as a shell takes it (`--replay ''`) */
    ces_sb_printf(sb, "  replay: %s\n", d->replay[0] != '\0' ? d->replay : "''");
    if (d->cls == CES_V_DEADLOCK || d->cls == CES_V_HANG)
        fmt_blocked(sb, g, linked, d);
    if (d->cls == CES_V_RACE) {
        ces_sb_puts(sb, "  race, not ordered by happens-before:\n    ");
        fmt_access(sb, g, &d->race[0]);
        ces_sb_puts(sb, "    ");
        fmt_access(sb, g, &d->race[1]);
    }
    if (d->cls == CES_V_MISMATCH) {
        ces_sb_puts(sb, "  ");
        fmt_mismatch(sb, g, &d->mismatch, ":\n    ", "\n    expected ");
        ces_sb_puts(sb, "\n");
    }
    if (d->cls == CES_CHECK_ABORTED && d->naborted == 0)
        ces_sb_puts(sb, "  released nothing: no op was blocked\n");
    if (d->cls == CES_CHECK_ABORTED && d->naborted > 0) {
        ces_sb_printf(sb, "  released with an error: %zu blocked op%s", d->naborted,
                      ces_plural(d->naborted));
        for (size_t i = 0; i < d->naborted && i < 8; i++)
            ces_sb_printf(sb, "%s r%" PRIu32 ".s%" PRIu32 "#%" PRIu32, i ? "," : "",
                          d->aborted[i].rank, d->aborted[i].stream, d->aborted[i].index);
        ces_sb_puts(sb, d->naborted > 8 ? " ...\n" : "\n");
    }
    if (d->cls == CES_CHECK_ABORTED && d->nblocked > 0) {
        ces_sb_puts(sb, "  left stopped:");
        for (size_t i = 0; i < d->nblocked && i < 8; i++)
            ces_sb_printf(sb, "%s r%" PRIu32 ".s%" PRIu32 "#%" PRIu32, i ? "," : "",
                          d->blocked[i].pos.rank, d->blocked[i].pos.stream,
                          d->blocked[i].pos.index);
        ces_sb_puts(sb, d->nblocked > 8 ? " ...\n" : "\n");
    }
}

const uint32_t *ces_check_report_queue_map(const struct ces_check_report *r)
{
    return r == NULL ? NULL : r->qmap;
}

int ces_check_report_text(struct ces_ctx *ctx, const struct ces_check_report *r, char **text,
                          size_t *len)
{
    struct ces_sb sb;
    char v[64];
    const struct ces_check_stats *s;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (r == NULL || text == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_check_report_text: NULL argument");
    s = &r->stats;
    ces_sb_init(&sb, ctx);
    ces_verdict_format(r->verdict, v, sizeof(v));
    ces_sb_printf(&sb, "verdict: %s\n", v);
    if (r->qmap != NULL &&
        (r->assignments_all == 0 || (r->verdict & ~(uint32_t)CES_V_INCOMPLETE))) {
        ces_sb_puts(&sb, "hardware queues: ");
        ces_sim_sb_queue_map(&sb, ces_graph_ranks(r->g), r->qstreams, r->qmap);
        if (r->assignments_all > 0)
            /* (an assignment before it that the depth bound cut may fail
             * beyond the bound) */
            ces_sb_printf(&sb, " (connections any: assignment %" PRIu64 " checked, the first "
                          "that fails%s)\n", r->assignments,
                          r->depth_cut ? " within the depth bound" : "");
        else
            ces_sb_puts(&sb, " (each stream's queue, in place of the schedule's connections)\n");
    } else if (r->assignments_all > 0) {
        if (r->assignments == r->assignments_all)
            ces_sb_printf(&sb, "hardware queues: every assignment of each rank's streams to "
                          "queues (connections any): %" PRIu64, r->assignments);
        else
            /* (not "in full" where the depth bound cut executions short:
             * of which assignments the coverage line below does not say) */
            ces_sb_printf(&sb, "hardware queues: %" PRIu64 " of the %" PRIu64 " assignments of "
                          "each rank's streams to queues (connections any) checked %s; a bound "
                          "stopped the check in assignment %" PRIu64, r->assignments,
                          r->assignments_all, r->depth_cut ? "within the depth bound" : "in full",
                          r->assignments + 1);
        if (r->qmap != NULL) { /* (a replay needs it) */
            ces_sb_puts(&sb, "; the watchdog's execution below ran on ");
            ces_sim_sb_queue_map(&sb, ces_graph_ranks(r->g), r->qstreams, r->qmap);
        }
        ces_sb_puts(&sb, "\n");
    }
    if (s->mode == CES_CHECK_RANDOM) {
        /* and why the sample is short of the executions asked for, if it is */
        ces_sb_printf(&sb, "coverage: %" PRIu64 " random execution%s", s->executions,
                      ces_plural(s->executions));
        if (r->stopped_first)
            ces_sb_puts(&sb, ", stopped at the first defect");
        else if (r->stopped != NULL)
            ces_sb_printf(&sb, ", stopped by the bound on %s", r->stopped);
        ces_sb_puts(&sb, " - a sample, not a proof\n");
    }
    else if (s->mode == CES_CHECK_REPLAY && r->stopped != NULL)
        /* (a model or initial state the bounds refused, a delay's graph
         * or a model not made in time: no step ran) */
        ces_sb_printf(&sb, "coverage: one replayed execution, stopped by the bound on %s after %"
                      PRIu64 " transition%s, before its end\n", r->stopped, s->transitions,
                      ces_plural(s->transitions));
    else if (s->mode == CES_CHECK_REPLAY)
        /* a replay that finds nothing is most often one run without the
         * options of the check that printed it */
        ces_sb_puts(&sb, r->ndefects > 0 ? "coverage: one replayed execution\n"
                                         : "coverage: one replayed execution, which found no "
                                           "defect (a counterexample's replay needs the same "
                                           "--fault, --abort and --queues options as its "
                                           "check)\n");
    else if (r->stopped_first)
        ces_sb_printf(&sb, "coverage: stopped at the first defect, after %" PRIu64 " state%s\n",
                      s->states, ces_plural(s->states));
    else if (r->stopped != NULL)
        ces_sb_printf(&sb, "coverage: the bound on %s stopped the search after %" PRIu64
                      " state%s\n", r->stopped, s->states, ces_plural(s->states));
    if (r->depth_cut && s->mode == CES_CHECK_EXHAUSTIVE)
        ces_sb_puts(&sb, "coverage: some executions were cut at the depth bound and not "
                         "followed further\n");
    if (s->race_free_states > 0)
        ces_sb_printf(&sb, "coverage: %" PRIu64 " of the states below were a second search, "
                      "for a MISMATCH among race-free executions\n", s->race_free_states);
    if (s->sample_executions > 0) {
        ces_sb_printf(&sb, "coverage: %" PRIu64 " random execution%s within the search, counted "
                      "among the end states below", s->sample_executions,
                      ces_plural(s->sample_executions));
        if (r->sampled != 0) {
            ces_verdict_format(r->sampled, v, sizeof(v));
            ces_sb_printf(&sb, ", which found %s first", v);
        }
        ces_sb_puts(&sb, "\n");
    }
    if (r->sliced != 0) {
        /* (a MISMATCH found before: the search was for a RACE alone) */
        ces_sb_printf(&sb, "coverage: no %s can occur: the schedule without the writes and "
                      "waits of ", r->verdict & CES_V_MISMATCH ? "RACE" : "RACE or MISMATCH");
        sb_signals(&sb, r->g, r->sliced, false);
        ces_sb_printf(&sb, " shows none (%" PRIu64 " of the states below searched it)\n",
                      s->slice_states);
    } else if (s->slice_states > 0) {
        /* (once a MISMATCH was found they looked for a RACE alone) */
        ces_sb_printf(&sb, "coverage: %" PRIu64 " of the states below were searches without "
                      "some signals' writes and waits, which could not rule out a %s\n",
                      s->slice_states,
                      r->verdict & CES_V_MISMATCH ? "RACE" : "RACE or MISMATCH");
    }
    if ((r->verdict & CES_V_INCOMPLETE) && s->mode == CES_CHECK_EXHAUSTIVE) {
        if (r->open != 0) {
            ces_verdict_format(r->open, v, sizeof(v));
            ces_sb_printf(&sb, "coverage: neither found nor ruled out: %s\n", v);
        } else {
            ces_sb_puts(&sb, "coverage: every class not found is ruled out\n");
        }
    }
    if (s->aborted > 0)
        ces_sb_printf(&sb, "watchdog: fired in %" PRIu64 " end state%s; every blocked stream was "
                      "released with an error\n", s->aborted, ces_plural(s->aborted));
    fmt_rank_stops(&sb, r);
    fmt_delays(&sb, r);
    for (size_t i = 0; i < r->ndefects; i++)
        fmt_defect(&sb, r->g, r->delayed.g != NULL ? r->delayed.streams : ces_graph_streams(r->g),
                   &r->defects[i]->pub);
    ces_sim_sb_stats(&sb, s);
    return ces_sb_finish(&sb, text, len);
}

void ces_sim_sb_stats(struct ces_sb *sb, const struct ces_check_stats *s)
{
    char mem[24];
    /* a rate only of a time the line shows as more than 0.000 s: of less
     * (or none) it is noise, or a division by zero */
    bool timed = s->seconds >= 0.0005;

    if (s->mode == CES_CHECK_EXHAUSTIVE) {
        ces_sb_printf(sb, "statistics: %" PRIu64 " state%s, %" PRIu64 " transition%s, %" PRIu64
                      " end state%s, %.3f s, ", s->states, ces_plural(s->states), s->transitions,
                      ces_plural(s->transitions), s->executions, ces_plural(s->executions),
                      s->seconds);
        if (timed)
            ces_sb_printf(sb, "%.0f states/s, ", (double)s->states / s->seconds);
    } else { /* no states are stored */
        ces_sb_printf(sb, "statistics: %" PRIu64 " execution%s, %" PRIu64 " transition%s, "
                      "%.3f s, ", s->executions, ces_plural(s->executions), s->transitions,
                      ces_plural(s->transitions), s->seconds);
        /* a replay is one execution: no rate */
        if (timed && s->mode == CES_CHECK_RANDOM)
            ces_sb_printf(sb, "%.1f executions/s, ", (double)s->executions / s->seconds);
    }
    ces_sim_fmt_bytes(mem, sizeof(mem), s->peak_memory);
    ces_sb_printf(sb, "peak memory %s\n", mem);
}

int ces_check_report_print(struct ces_ctx *ctx, const struct ces_check_report *r, FILE *f)
{
    char *text = NULL;
    size_t len = 0;
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (r == NULL || f == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_check_report_print: NULL argument");
    rc = ces_check_report_text(ctx, r, &text, &len);
    if (rc != CES_OK)
        return rc;
    /* flushed: a report within the stream's buffer would not meet the
     * device's error until after the call */
    errno = 0;
    if (fwrite(text, 1, len, f) != len || fflush(f) != 0)
        rc = ces_ctx_error(ctx, CES_ERR_IO, "writing the report failed: %s",
                           errno != 0 ? strerror(errno) : "a short write");
    ces_free(ctx, text);
    return rc;
}

/* --- JSON ---------------------------------------------------------------------- */

static void json_pos(struct ces_sb *sb, const struct ces_graph *g, const struct ces_check_pos *p)
{
    char where[64];
    const struct ces_op *op = op_at(g, p);
    struct ces_sb text;

    snprintf(where, sizeof(where), "r%" PRIu32 ".s%" PRIu32 "#%" PRIu32, p->rank, p->stream,
             p->index);
    ces_sb_init(&text, sb->ctx);
    if (op != NULL)
        ces_sb_op(&text, g, p->rank, op);
    if (text.status != CES_OK && sb->status == CES_OK)
        sb->status = text.status; /* the op's text could not be built */
    ces_sb_puts(sb, "\"pos\":");
    json_str(sb, where);
    ces_sb_puts(sb, ",\"op\":");
    json_str(sb, text.buf != NULL && text.status == CES_OK ? text.buf : "");
    ces_sb_free(&text);
    ces_sb_printf(sb, ",\"iteration\":%" PRIu64, p->iteration);
    if (op != NULL && op->line > 0)
        ces_sb_printf(sb, ",\"line\":%" PRIu32 ",\"col\":%" PRIu32, op->line, op->col);
}

static void json_region(struct ces_sb *sb, const struct ces_graph *g, const struct ces_region *r)
{
    ces_sb_puts(sb, "{\"buffer\":");
    json_str(sb, ces_graph_buffer(g, r->buf).name);
    ces_sb_printf(sb, ",\"rank\":%" PRIu32 ",\"lo\":%" PRIu64 ",\"hi\":%" PRIu64 "}", r->rank,
                  r->lo, r->hi);
}

static void json_prov(struct ces_sb *sb, const struct ces_graph *g, const struct ces_check_prov *p)
{
    ces_sb_puts(sb, "{\"buffer\":");
    json_str(sb, ces_graph_buffer(g, p->buf).name);
    ces_sb_printf(sb, ",\"rank\":%" PRIu32 ",\"offset\":%" PRIu64 ",\"generation\":%" PRIu64 "}",
                  p->rank, p->off, p->gen);
}

int ces_check_report_json(struct ces_ctx *ctx, const struct ces_check_report *r, char **text,
                          size_t *len)
{
    static const char *const modes[] = {"exhaustive", "random", "replay"};
    static const char *const reasons[] = {"wait", "await", "queue", "stopped", "link"};
    static const char *const kinds[] = {"op", "dropped", "aborted"};
    struct ces_sb sb;
    char v[64];
    const struct ces_check_stats *s;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (r == NULL || text == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_check_report_json: NULL argument");
    s = &r->stats;
    ces_sb_init(&sb, ctx);
    ces_verdict_format(r->verdict, v, sizeof(v));
    ces_sb_puts(&sb, "{\"verdict\":");
    json_str(&sb, v);
    /* complete: the mode covered what it promised (a random sample its N
     * executions); proof: every execution was explored */
    ces_sb_printf(&sb, ",\"bits\":%" PRIu32 ",\"mode\":\"%s\",\"complete\":%s,\"proof\":%s,",
                  r->verdict, modes[s->mode < 3 ? s->mode : 0], s->complete ? "true" : "false",
                  s->complete && s->mode == CES_CHECK_EXHAUSTIVE ? "true" : "false");
    ces_sb_printf(&sb, "\"stats\":{\"states\":%" PRIu64 ",\"transitions\":%" PRIu64
                  ",\"executions\":%" PRIu64 ",\"aborted\":%" PRIu64 ",\"max_depth\":%" PRIu64
                  ",\"seconds\":%.6f,\"states_per_second\":", s->states, s->transitions,
                  s->executions, s->aborted, s->max_depth, s->seconds);
    /* no rate of no measured time: null, not a made-up 0 */
    if (s->seconds > 0)
        ces_sb_printf(&sb, "%.1f", (double)s->states / s->seconds);
    else
        ces_sb_puts(&sb, "null");
    ces_sb_printf(&sb, ",\"peak_memory\":%" PRIu64 ",\"race_free_states\":%" PRIu64
                  ",\"slice_states\":%" PRIu64 ",\"sample_executions\":%" PRIu64 "},",
                  s->peak_memory, s->race_free_states, s->slice_states, s->sample_executions);
    if (r->sampled != 0) {
        char cls[64];

        ces_verdict_format(r->sampled, cls, sizeof(cls));
        ces_sb_puts(&sb, "\"sampled\":");
        json_str(&sb, cls);
        ces_sb_puts(&sb, ",");
    }
    if (r->sliced != 0) {
        ces_sb_puts(&sb, "\"sliced\":[");
        sb_signals(&sb, r->g, r->sliced, true);
        ces_sb_puts(&sb, "],");
    }
    if (r->qmap != NULL) {
        ces_sb_puts(&sb, "\"queues\":\"");
        /* digits, ',' and '/': nothing to escape */
        ces_sim_sb_queue_map(&sb, ces_graph_ranks(r->g), r->qstreams, r->qmap);
        ces_sb_puts(&sb, "\",");
    }
    if (r->assignments_all > 0)
        ces_sb_printf(&sb, "\"queue_assignments\":%" PRIu64 ",", r->assignments);
    if (r->stopped != NULL)
        ces_sb_printf(&sb, "\"bound\":\"%s\",", r->stopped);
    /* the other reasons the text's coverage lines give */
    if (r->stopped_first)
        ces_sb_puts(&sb, "\"first_defect\":true,");
    if (r->depth_cut && s->mode == CES_CHECK_EXHAUSTIVE)
        ces_sb_puts(&sb, "\"depth_cut\":true,");
    if ((r->verdict & CES_V_INCOMPLETE) && s->mode == CES_CHECK_EXHAUSTIVE) {
        char cls[64]; /* what it may be missing */

        ces_verdict_format(r->open, cls, sizeof(cls));
        ces_sb_puts(&sb, "\"open\":");
        json_str(&sb, r->open != 0 ? cls : "");
        ces_sb_puts(&sb, ",");
    }
    if (r->expanded.nstops > 0) {
        ces_sb_puts(&sb, "\"rank_stops\":[");
        for (size_t i = 0; i < r->expanded.nstops; i++) {
            const struct sim_rank_stop *rs = &r->expanded.stops[i];
            char spec[96];

            ces_fault_format(&rs->fault, spec, sizeof(spec));
            ces_sb_printf(&sb, "%s{\"fault\":\"%s\",\"stops\":[", i ? "," : "", spec);
            for (size_t k = 0; k < rs->n; k++) {
                ces_fault_format(&r->expanded.faults[rs->first + k], spec, sizeof(spec));
                ces_sb_printf(&sb, "%s\"%s\"", k ? "," : "", spec);
            }
            ces_sb_puts(&sb, "]}");
        }
        ces_sb_puts(&sb, "],");
    }
    if (r->delayed.ndelays > 0) {
        ces_sb_puts(&sb, "\"delays\":[");
        for (size_t i = 0; i < r->delayed.ndelays; i++) {
            char spec[96];

            ces_fault_format(&r->delayed.delays[i].fault, spec, sizeof(spec));
            ces_sb_printf(&sb, "%s{\"fault\":\"%s\",\"stream\":%" PRIu32 "}", i ? "," : "", spec,
                          r->delayed.delays[i].stream);
        }
        ces_sb_puts(&sb, "],");
    }
    ces_sb_puts(&sb, "\"defects\":[");
    for (size_t i = 0; i < r->ndefects; i++) {
        const struct ces_check_defect *d = &r->defects[i]->pub;

        ces_verdict_format(d->cls, v, sizeof(v));
        ces_sb_printf(&sb, "%s{\"class\":\"%s\",\"replay\":", i ? "," : "",
                      d->cls == CES_CHECK_ABORTED ? "WATCHDOG" : v);
        json_str(&sb, d->replay);
        ces_sb_puts(&sb, ",\"steps\":[");
        for (size_t k = 0; k < d->nsteps; k++) {
            ces_sb_printf(&sb, "%s{\"n\":%zu,", k ? "," : "", k + 1);
            json_pos(&sb, r->g, &d->steps[k].pos);
            ces_sb_printf(&sb, ",\"kind\":\"%s\"", kinds[d->steps[k].kind % 3]);
            if (d->steps[k].has_value)
                ces_sb_printf(&sb, ",\"value\":%" PRIu64, d->steps[k].value);
            ces_sb_puts(&sb, "}");
        }
        ces_sb_puts(&sb, "]");
        if (d->cls == CES_V_DEADLOCK || d->cls == CES_V_HANG) {
            ces_sb_puts(&sb, ",\"blocked\":[");
            for (size_t k = 0; k < d->nblocked; k++) {
                const struct ces_check_blocked *b = &d->blocked[k];

                ces_sb_printf(&sb, "%s{", k ? "," : "");
                json_pos(&sb, r->g, &b->pos);
                ces_sb_printf(&sb, ",\"reason\":\"%s\"",
                              reasons[b->reason % (sizeof(reasons) / sizeof(reasons[0]))]);
                if (b->waits)
                    ces_sb_printf(&sb, ",\"held\":%" PRIu64 ",\"awaited\":%" PRIu64, b->held,
                                  b->awaited);
                ces_sb_puts(&sb, ",\"edges\":[");
                for (size_t e = 0; e < b->nedges; e++) {
                    ces_sb_printf(&sb, "%s{", e ? "," : "");
                    json_pos(&sb, r->g, &b->edges[e].pos);
                    ces_sb_printf(&sb, ",\"to\":%" PRIu32 "}", b->edges[e].to);
                }
                ces_sb_puts(&sb, "]}");
            }
            ces_sb_puts(&sb, "],\"cycle\":[");
            for (size_t k = 0; k < d->ncycle; k++)
                ces_sb_printf(&sb, "%s%" PRIu32, k ? "," : "", d->cycle[k]);
            ces_sb_puts(&sb, "]");
        }
        if (d->cls == CES_CHECK_ABORTED) {
            ces_sb_puts(&sb, ",\"stopped\":[");
            for (size_t k = 0; k < d->nblocked; k++) {
                ces_sb_printf(&sb, "%s{", k ? "," : "");
                json_pos(&sb, r->g, &d->blocked[k].pos);
                ces_sb_puts(&sb, "}");
            }
            ces_sb_puts(&sb, "]");
        }
        if (d->cls == CES_V_RACE) {
            ces_sb_puts(&sb, ",\"race\":[");
            for (int k = 0; k < 2; k++) {
                ces_sb_printf(&sb, "%s{", k ? "," : "");
                json_pos(&sb, r->g, &d->race[k].pos);
                ces_sb_printf(&sb, ",\"write\":%s,\"step\":%" PRIu32 ",\"region\":",
                              d->race[k].write ? "true" : "false", d->race[k].step);
                json_region(&sb, r->g, &d->race[k].region);
                ces_sb_puts(&sb, "}");
            }
            ces_sb_puts(&sb, "]");
        }
        if (d->cls == CES_V_MISMATCH) {
            ces_sb_puts(&sb, ",\"mismatch\":{");
            json_pos(&sb, r->g, &d->mismatch.pos);
            ces_sb_puts(&sb, ",\"region\":");
            json_region(&sb, r->g, &d->mismatch.region);
            ces_sb_puts(&sb, ",\"expected\":");
            json_prov(&sb, r->g, &d->mismatch.expected);
            ces_sb_puts(&sb, ",\"found\":");
            json_prov(&sb, r->g, &d->mismatch.found);
            ces_sb_puts(&sb, "}");
        }
        ces_sb_puts(&sb, "}");
    }
    ces_sb_puts(&sb, "]}\n");
    return ces_sb_finish(&sb, text, len);
}

/* --- the dot overlay ----------------------------------------------------------- */

static int mark(struct ces_ctx *ctx, struct sim_defect *sd, const struct ces_check_pos *p,
                uint32_t step, uint32_t style)
{
    struct ces_dot_mark mk = {p->block, p->rank, p->op, step, style, p->rep};

    return ces_vec_push(ctx, &sd->marks, sizeof(mk), &mk);
}

int ces_check_report_overlay(const struct ces_check_report *r, size_t i,
                             struct ces_dot_overlay *out)
{
    struct sim_defect *sd;
    const struct ces_check_defect *d;
    char v[64];
    int rc = CES_OK;

    if (r == NULL)
        return CES_ERR_INVALID;
    if (out == NULL)
        return ces_ctx_error(r->ctx, CES_ERR_INVALID, "ces_check_report_overlay: NULL argument");
    if (i >= r->ndefects)
        return ces_ctx_error(r->ctx, CES_ERR_INVALID,
                             "ces_check_report_overlay: defect %zu of %zu", i, r->ndefects);
    sd = r->defects[i]; /* the marks are a cache of the defect's */
    d = &sd->pub;
    if (!sd->marked) {
        sd->marks.len = 0;
        for (size_t k = 0; k < d->nsteps && rc == CES_OK; k++)
            rc = mark(r->ctx, sd, &d->steps[k].pos, (uint32_t)k + 1, CES_DOT_STEP);
        /* a stream a fault stopped is drawn apart from one that hangs */
        for (size_t k = 0; k < d->nblocked && rc == CES_OK; k++)
            rc = mark(r->ctx, sd, &d->blocked[k].pos, 0,
                      d->blocked[k].reason == CES_BLOCK_STOPPED ? CES_DOT_STOPPED
                                                                : CES_DOT_BLOCKED);
        /* the watchdog's execution: where it fired, the ops it released */
        for (size_t k = 0; k < d->naborted && rc == CES_OK; k++)
            rc = mark(r->ctx, sd, &d->aborted[k], 0, CES_DOT_BLOCKED);
        if (d->cls == CES_V_RACE) {
            for (int k = 0; k < 2 && rc == CES_OK; k++)
                rc = mark(r->ctx, sd, &d->race[k].pos, d->race[k].step, CES_DOT_RACE);
        }
        if (d->cls == CES_V_MISMATCH && rc == CES_OK)
            rc = mark(r->ctx, sd, &d->mismatch.pos, 0, CES_DOT_MISMATCH);
        /* the wait-for cycle last: the overlay's cycle, not its marks */
        for (size_t k = 0; k < d->ncycle && rc == CES_OK; k++)
            rc = mark(r->ctx, sd, &d->blocked[d->cycle[k]].pos, 0, CES_DOT_BLOCKED);
        if (rc == CES_OK) {
            struct ces_sb sb;

            /* and the queue map it ran on, if any: the lanes are drawn
             * apart, and what blocks behind a queue head shows only so */
            ces_verdict_format(d->cls == CES_CHECK_ABORTED ? 0 : d->cls, v, sizeof(v));
            ces_sb_init(&sb, r->ctx);
            ces_sb_printf(&sb, "%s counterexample", d->cls == CES_CHECK_ABORTED ? "WATCHDOG" : v);
            if (r->qmap != NULL) {
                ces_sb_puts(&sb, ", hardware queues ");
                ces_sim_sb_queue_map(&sb, ces_graph_ranks(r->g), r->qstreams, r->qmap);
            }
            /* what the marks cannot say: a step's write that a fault
             * dropped (drawn as any step), and the wrong bytes' provenance */
            for (size_t k = 0; k < d->nsteps; k++) {
                if (d->steps[k].kind != CES_STEP_DROPPED)
                    continue;
                ces_sb_printf(&sb, "\nstep %zu: ", k + 1);
                fmt_pos_op(&sb, r->g, &d->steps[k].pos);
                ces_sb_puts(&sb, ", dropped by a fault");
            }
            if (d->ncycle > 0) {
                ces_sb_puts(&sb, "\n");
                fmt_cycle(&sb, d);
            }
            if (d->cls == CES_V_MISMATCH) {
                ces_sb_puts(&sb, "\n");
                fmt_mismatch(&sb, r->g, &d->mismatch, ": ", ", expected ");
            }
            ces_free(r->ctx, sd->title);
            sd->title = NULL;
            rc = ces_sb_finish(&sb, &sd->title, NULL);
        }
        if (rc != CES_OK)
            return ces_ctx_error(r->ctx, rc, "out of memory drawing the counterexample");
        sd->marked = true;
    }
    out->marks = sd->marks.data;
    out->nmarks = sd->marks.len - d->ncycle;
    out->title = sd->title;
    out->cycle = d->ncycle > 0 ? &CES_VEC_AT(&sd->marks, struct ces_dot_mark, out->nmarks) : NULL;
    out->ncycle = d->ncycle;
    return CES_OK;
}
