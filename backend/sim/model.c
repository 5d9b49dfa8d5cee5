/*
 * backend/sim/model.c - builds the checker's model of one graph under one
 * set of options: each (rank, stream) becomes a process running its unrolled
 * op list (blocks in order, a graph block's ops once per replay), ops get
 * their hardware-queue index, awaits the record instance they refer to,
 * writes and waits global slot ids; per slot the writers and waiters; per
 * process the positions of its guards; per `consume ... ==` the expected
 * generations.  Faults are applied here (dropped writes, stop positions).
 */
#include "internal.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The replay of op k of process p in its block b (bi): 0 unless the
 * block's replays are more than one, whose start m->greps says (found by
 * bisection: a process's graph blocks are few next to its ops). */
static uint32_t op_rep(const struct sim_model *m, uint32_t p, uint32_t k, uint32_t b,
                       struct ces_block_info bi)
{
    uint32_t lo = m->greps_off[p], hi = m->greps_off[p + 1];

    if (bi.reps == 1)
        return 0;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (m->greps[mid].block <= b)
            lo = mid;
        else
            hi = mid;
    }
    return (k - m->greps[lo].start) / m->greps[lo].n;
}

uint64_t ces_sim_op_iter(const struct sim_model *m, uint32_t p, uint32_t k)
{
    uint32_t b = m->ops[p][k].block;
    struct ces_block_info bi = ces_graph_block(m->g, b);

    return bi.first_iter + op_rep(m, p, k, b, bi);
}

void ces_sim_pos(const struct sim_model *m, uint32_t proc, uint32_t pos, struct ces_check_pos *out)
{
    memset(out, 0, sizeof(*out));
    out->rank = proc / m->streams;
    out->stream = proc % m->streams;
    out->index = pos;
    if (pos < m->len[proc]) {
        const struct sim_op *o = &m->ops[proc][pos];
        struct ces_block_info bi = ces_graph_block(m->g, o->block);
        uint32_t n;

        out->block = o->block;
        out->rep = op_rep(m, proc, pos, o->block, bi);
        out->op = (uint32_t)(o->op - ces_graph_ops(m->g, o->block, out->rank, &n));
        out->iteration = bi.first_iter + out->rep;
    }
}

static size_t sat_add(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static size_t sat_mul(size_t a, size_t b)
{
    return b != 0 && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

void ces_sim_fmt_bytes(char *buf, size_t size, uint64_t b)
{
    if (b >= (UINT64_C(1) << 30))
        snprintf(buf, size, "%.2f GiB", (double)b / (double)(UINT64_C(1) << 30));
    else if (b >= (UINT64_C(1) << 20))
        snprintf(buf, size, "%.1f MiB", (double)b / (double)(UINT64_C(1) << 20));
    else if (b >= 1024)
        snprintf(buf, size, "%.1f KiB", (double)b / 1024.0);
    else /* "0.0 KiB" would hide a count of bytes, and a bound of 0 */
        snprintf(buf, size, "%" PRIu64 " B", b);
}

/* The fixed words of a state: flags, pc, values, process clocks, the hash
 * sums, slot clocks (the layout ces_sim_model_build sets; saturating, to
 * size a state before it exists). */
static size_t fixed_words(const struct sim_model *m)
{
    size_t P = m->nproc, w = 1 + 4;

    w = sat_add(w, P);
    w = sat_add(w, sat_mul(2, m->nslots));
    w = sat_add(w, sat_mul(P, P));
    return sat_add(w, sat_mul(m->nslots, P));
}

/* The words of a record clocks' page, at least one clock's, and the pages of
 * a directory at most (struct sim_rdir: 4 KiB of pointers). */
#define RCLK_PAGE_WORDS 1024
#define RCLK_DIR_PAGES 512

/* The pages of nrec record clocks: clocks per page, pages per directory,
 * directories (none for no clock). */
static void rclk_layout(const struct sim_model *m, uint32_t nrec, uint32_t *rpage,
                        uint32_t *rdir, uint32_t *nrdir)
{
    uint32_t per = m->nproc < RCLK_PAGE_WORDS ? RCLK_PAGE_WORDS / m->nproc : 1;
    uint32_t pages;

    *rpage = nrec < per ? (nrec > 0 ? nrec : 1) : per;
    pages = nrec / *rpage + (nrec % *rpage != 0);
    *rdir = pages < RCLK_DIR_PAGES ? (pages > 0 ? pages : 1) : RCLK_DIR_PAGES;
    *nrdir = pages / *rdir + (pages % *rdir != 0);
}

/* What ces_sim_state_init allocates for `words` fixed words and nrec record
 * clocks (state.c): the words, the record clocks' directory table (its
 * pages none yet), the map headers, and 4 segments for the map of every
 * non-empty buffer of every rank. */
static size_t state_bytes(const struct sim_model *m, size_t words, uint32_t nrec)
{
    size_t b = sat_mul(words, sizeof(uint32_t)), nonempty = 0;
    uint32_t rpage, rdir, nrdir;

    rclk_layout(m, nrec, &rpage, &rdir, &nrdir);
    b = sat_add(b, (size_t)nrdir * sizeof(struct sim_rdir *));
    b = sat_add(b, sat_mul(m->nmaps ? m->nmaps : 1, sizeof(struct sim_map)));
    for (uint32_t i = 0; i < m->nbuf; i++)
        nonempty += m->buf_size[i] != 0;
    return sat_add(b, sat_mul(sat_mul(nonempty, m->ranks),
                              4 * ((size_t)SEG_READS + m->nproc) * sizeof(uint32_t)));
}

size_t ces_sim_state_init_bytes(const struct sim_model *m)
{
    return state_bytes(m, m->w_fixed, m->nrec);
}

/* Whether `more` bytes fit under the memory bound next to the model and
 * the one state it must leave room for; the first refusal is remembered
 * for the message. */
static bool fits(struct sim_model *m, size_t more)
{
    size_t after = sat_add(m->bytes, more);

    if (m->limit == 0 || sat_add(after, m->reserve) <= m->limit)
        return true;
    if (!m->over) {
        m->over = true;
        m->need = after;
    }
    return false;
}

/* Counts n more bytes as the model's, and in its peak. */
static void hold(struct sim_model *m, size_t n)
{
    m->bytes += n;
    if (m->bytes > m->peak)
        m->peak = m->bytes;
}

/* Reads the clock while building: the step so far to the progress
 * callback when it is due, the last one too, then m->timed_out once the
 * time bound passed (so a first look that comes after the bound still
 * says how far it came). */
static void look(struct sim_model *m)
{
    double t = ces_now();
    struct ces_check_build b;

    if (m->deadline > 0 && t >= m->deadline)
        m->timed_out = true;
    if (m->progress == NULL || t < m->next_progress)
        return;
    b.step = m->step;
    b.step_done = m->step_done;
    b.step_total = m->step_total;
    b.unrolled = m->unrolled;
    b.ops = m->nunrolled;
    b.seconds = t - m->t0;
    b.memory = m->bytes;
    m->progress(m->progress_ud, &b);
    m->next_progress = t + m->every;
}

/* Starts a step of the building, of `total` units of work (0: untold),
 * for the progress callback. */
static void begin(struct sim_model *m, const char *step, uint64_t total)
{
    m->step = step;
    m->step_done = 0;
    m->step_total = total;
}

/* Memory under the bound, not cleared (for a table written whole before
 * it is read; zalloc clears it): NULL where the bound refuses it
 * (m->over) or the allocation fails (m->nomem); held from then on (zfree
 * gives it back). */
static void *halloc(struct sim_model *m, size_t n, size_t size)
{
    void *p;

    if (n == 0)
        n = 1;
    if (!fits(m, sat_mul(n, size)))
        return NULL;
    p = ces_malloc(m->ctx, n * size);
    if (p == NULL) {
        m->nomem = true;
        return NULL;
    }
    hold(m, n * size);
    return p;
}

/* Zeroed memory under the bound (halloc); cleared 64 MiB at a time, the
 * clock read before each part of a table of 1 MiB or more for the time
 * bound and the progress (a table of every unrolled op can take seconds
 * to clear: the page faults; read only between parts, a stream's table of
 * 64 MiB or less was never read before, and 16 streams of a million ops
 * each ran 6 s past a bound of 2), NULL with m->timed_out once the bound
 * passed.  Held from the allocation on, so that the peak counts a table
 * the bound stopped in its clearing. */
static void *zalloc(struct sim_model *m, size_t n, size_t size)
{
    const size_t chunk = (size_t)64 << 20;
    const char *step = m->step;
    uint64_t done = m->step_done, total = m->step_total;
    char *p = halloc(m, n, size);

    if (p == NULL)
        return NULL;
    if (n == 0)
        n = 1;
    begin(m, "clearing a table", n * size);
    for (size_t at = 0; at < n * size; at += chunk) {
        if ((at > 0 || n * size >= ((size_t)1 << 20)) &&
            (m->deadline > 0 || m->progress != NULL)) {
            m->step_done = at;
            look(m);
            if (m->timed_out) {
                ces_free(m->ctx, p);
                m->bytes -= n * size;
                p = NULL;
                break;
            }
        }
        memset(p + at, 0, n * size - at < chunk ? n * size - at : chunk);
    }
    m->step = step; /* back to the step that needed the table */
    m->step_done = done;
    m->step_total = total;
    return p;
}

/* Frees a temporary of zalloc(m, n, size) or halloc(m, n, size). */
static void zfree(struct sim_model *m, void *p, size_t n, size_t size)
{
    if (p == NULL)
        return;
    ces_free(m->ctx, p);
    m->bytes -= (n == 0 ? 1 : n) * size;
}

void ces_sim_model_destroy(struct sim_model *m)
{
    struct ces_ctx *ctx;

    if (m == NULL)
        return;
    ctx = m->ctx;
    if (m->ops != NULL) {
        for (uint32_t p = 0; p < m->nproc; p++)
            ces_free(ctx, m->ops[p]);
    }
    if (m->qidx != NULL) {
        for (uint32_t p = 0; p < m->nproc; p++)
            ces_free(ctx, m->qidx[p]);
    }
    if (m->qseq != NULL) {
        for (uint32_t q = 0; q < m->ranks * m->nq; q++)
            ces_free(ctx, m->qseq[q]);
    }
    ces_free(ctx, m->ops);
    ces_free(ctx, m->qidx);
    ces_free(ctx, m->len);
    ces_free(ctx, m->stop);
    ces_free(ctx, m->data_end);
    ces_free(ctx, m->clock_end);
    ces_free(ctx, m->queue);
    ces_free(ctx, m->qproc_at);
    ces_free(ctx, m->qproc);
    ces_free(ctx, m->qseq);
    ces_free(ctx, m->qlen);
    ces_free(ctx, m->slot_width);
    ces_free(ctx, m->slot_name);
    ces_free(ctx, m->sig_base);
    ces_free(ctx, m->wr_off);
    ces_free(ctx, m->wr);
    ces_free(ctx, m->wt_off);
    ces_free(ctx, m->wt);
    ces_free(ctx, m->wt_cmp);
    ces_free(ctx, m->wg_off);
    ces_free(ctx, m->wg);
    ces_free(ctx, m->wv);
    ces_free(ctx, m->tg_off);
    ces_free(ctx, m->tg);
    ces_free(ctx, m->guard_off);
    ces_free(ctx, m->guard);
    ces_free(ctx, m->ws_off);
    ces_free(ctx, m->ws);
    ces_free(ctx, m->aw_off);
    ces_free(ctx, m->aw);
    ces_free(ctx, m->awg_off);
    ces_free(ctx, m->awg);
    ces_free(ctx, m->links);
    ces_free(ctx, m->runs);
    ces_free(ctx, m->exp_at);
    ces_free(ctx, m->awrec);
    ces_free(ctx, m->greps_off);
    ces_free(ctx, m->greps);
    ces_free(ctx, m->buf_size);
    ces_free(ctx, m->rzero);
    ces_free(ctx, m->rheld);
    ces_free(ctx, m);
}

static uint32_t slot_of(const struct sim_model *m, const struct ces_slot *s)
{
    struct ces_signal_info si = ces_graph_signal(m->g, s->sig);

    return m->sig_base[s->sig] + s->rank * si.slots + s->idx;
}

/* Whether the time bound has passed (remembered in m->timed_out) after n
 * ticks of work, each about one unrolled op's: the clock is read each time
 * the ticks pass a multiple of 65,536 (for the bound and the progress,
 * look).  Work within a unit of a step (the runs one consume reads, the
 * runs one produce moves, one map's accesses) ticks without counting as
 * the step's done. */
static bool tick(struct sim_model *m, uint32_t n)
{
    uint32_t before = m->ticks;

    m->ticks += n;
    if ((m->ticks >> 16 != before >> 16 || n > 0xffffu) &&
        (m->deadline > 0 || m->progress != NULL))
        look(m);
    return m->timed_out;
}

/* Whether the time bound has passed, one unit of the step's work done
 * (tick(m, 1), written out for the loops over every unrolled op, which
 * call it once per op). */
static bool late(struct sim_model *m)
{
    m->step_done++;
    if ((++m->ticks & 0xffffu) == 0 && (m->deadline > 0 || m->progress != NULL))
        look(m);
    return m->timed_out;
}

static int nomem(struct ces_ctx *ctx)
{
    return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory building the checker's model");
}

/* How many of a block's n ops of one rank (one replay's) each stream
 * has (count: CES_MAX_STREAMS entries). */
static void count_streams(const struct ces_op *ops, uint32_t n, uint32_t *count)
{
    memset(count, 0, CES_MAX_STREAMS * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++)
        count[ops[i].stream]++;
}

static uint64_t sat_add64(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul64(uint64_t a, uint64_t b)
{
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* What one rank's (block, replay) units add to the links (link_units) and
 * the record clocks (number_records): the unit each linked stream last had
 * ops in (-1: none) and whether a link keeps its last op's clock already;
 * per event whether the rank recorded it (bit 0) and whether an await
 * refers to its latest record (bit 1). */
struct unit_count {
    int64_t seen[CES_MAX_STREAMS];
    bool kept[CES_MAX_STREAMS];
    uint8_t *ev;
    uint64_t links, clocks;
};

/* One unit u of n ops (count: each stream's), as ces_sim_links_each links
 * it and walk_enqueue binds its awaits (stops aside). */
static void unit_count(struct unit_count *c, const struct ces_op *ops, uint32_t n,
                       const uint32_t *count, uint32_t linked, int64_t u)
{
    for (uint32_t s = 0; s < linked; s++) {
        for (uint32_t q = 0; q < linked && count[s] > 0; q++) {
            if (q == s || c->seen[q] < 0 || c->seen[q] < c->seen[s])
                continue;
            c->links++;
            c->clocks += !c->kept[q];
            c->kept[q] = true;
        }
    }
    for (uint32_t s = 0; s < linked; s++) {
        if (count[s] > 0) {
            c->seen[s] = u;
            c->kept[s] = false;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        if (ops[i].kind == CES_OP_RECORD) {
            c->ev[ops[i].event] = 1;
        } else if (ops[i].kind == CES_OP_AWAIT && c->ev[ops[i].event] == 1) {
            c->clocks++;
            c->ev[ops[i].event] = 3;
        }
    }
}

/* The counts of the model's tables that its 32-bit indices and offsets
 * must hold, each judged before the ops' records are allocated (as a
 * process's ops and the awaits are in unroll): the writes, the waits, the
 * waits and awaits together, the consumes with '==' (all, dropped and
 * stopped ones included), the ops of each hardware queue of more than one
 * stream, the links of the block and replay boundaries and the record
 * clocks (an awaited record's, a link's kept clock).  Those two are counted
 * as ces_sim_links_each and walk_enqueue make them, a block's replays from
 * its third on as its second (each ends in the state its second ends in),
 * without stops (which make the records fewer: a stopped one binds no
 * await).  cnt: each process's ops.  CES_ERR_LIMIT with a message, or
 * CES_ERR_NOMEM. */
static int counts_check(struct sim_model *m, const uint64_t *cnt)
{
    const struct ces_graph *g = m->g;
    const uint32_t lim = UINT32_MAX - 1;
    uint32_t nb = ces_graph_nblocks(g), ne = ces_graph_nevents(g), count[CES_MAX_STREAMS];
    uint32_t linked = m->linked < m->streams ? m->linked : m->streams;
    uint64_t writes = 0, waits = 0, awaits = 0, consumes = 0, links = 0, clocks = 0;
    struct unit_count c;
    int rc = CES_OK;

    c.ev = zalloc(m, ne, sizeof(uint8_t));
    if (c.ev == NULL)
        return m->timed_out ? SIM_LATE : nomem(m->ctx);
    for (uint32_t r = 0; r < m->ranks; r++) {
        int64_t u = 0;

        for (uint32_t s = 0; s < CES_MAX_STREAMS; s++) {
            c.seen[s] = -1;
            c.kept[s] = false;
        }
        memset(c.ev, 0, ne);
        c.links = c.clocks = 0;
        for (uint32_t b = 0; b < nb; b++) {
            struct ces_block_info bi = ces_graph_block(g, b);
            uint32_t n;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);
            uint64_t l0, c0;

            if (n == 0)
                continue;
            for (uint32_t i = 0; i < n; i++) {
                writes += ops[i].kind == CES_OP_WRITE ? bi.reps : 0;
                waits += ops[i].kind == CES_OP_WAIT ? bi.reps : 0;
                awaits += ops[i].kind == CES_OP_AWAIT ? bi.reps : 0;
                consumes += ops[i].kind == CES_OP_CONSUME && (ops[i].flags & CES_OPF_EXPECT)
                            ? bi.reps : 0;
            }
            count_streams(ops, n, count);
            unit_count(&c, ops, n, count, linked, u++);
            if (bi.reps == 1)
                continue;
            l0 = c.links;
            c0 = c.clocks;
            unit_count(&c, ops, n, count, linked, u++);
            c.links = sat_add64(c.links, sat_mul64(c.links - l0, bi.reps - 2));
            c.clocks = sat_add64(c.clocks, sat_mul64(c.clocks - c0, bi.reps - 2));
        }
        links = sat_add64(links, c.links);
        clocks = sat_add64(clocks, c.clocks);
    }
    zfree(m, c.ev, ne, sizeof(uint8_t));
    /* (each at most the ops, below 2^32 a process: no wrap in 64 bits) */
    if (writes > lim || waits > lim || waits + awaits > lim || consumes > lim) {
        const char *what = writes > lim ? "writes" : waits > lim ? "waits"
                           : waits + awaits > lim ? "waits and awaits" : "consumes with '=='";
        uint64_t n = writes > lim ? writes : waits > lim ? waits
                     : waits + awaits > lim ? waits + awaits : consumes;

        return ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                             "%" PRIu64 " %s once graph replays are unrolled; the checker "
                             "takes at most %" PRIu32, n, what, lim);
    }
    for (uint32_t q = 0; q < m->ranks * m->nq; q++) {
        uint64_t n = 0;

        for (uint32_t i = m->qproc_at[q]; i < m->qproc_at[q + 1]; i++)
            n += cnt[m->qproc[i]];
        if (n > lim)
            return ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                                 "r%" PRIu32 ": hardware queue %" PRIu32 " takes %" PRIu64
                                 " ops of its streams once graph replays are unrolled; the "
                                 "checker takes at most %" PRIu32,
                                 q / m->nq, q % m->nq, n, lim);
    }
    if (links > lim)
        rc = ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                           "the schedule has %" PRIu64 " stream links at its block and replay "
                           "boundaries; the checker takes at most %" PRIu32, links, lim);
    else if (clocks > lim)
        rc = ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                           "the schedule has %" PRIu64 " record clocks (a record that an await "
                           "refers to, an op whose clock a block or replay boundary keeps) once "
                           "graph replays are unrolled; the checker takes at most %" PRIu32,
                           clocks, lim);
    return rc;
}

/* Unrolls every process's program; fills ops and len, the awaits' entries
 * in awrec (their records not yet found) and each process's graph blocks
 * of more than one replay (greps). */
static int unroll(struct sim_model *m)
{
    const struct ces_graph *g = m->g;
    uint32_t nb = ces_graph_nblocks(g), count[CES_MAX_STREAMS];
    uint64_t *cnt = zalloc(m, m->nproc, sizeof(uint64_t)), nawait = 0;
    int rc = CES_OK;

    if (cnt == NULL)
        return nomem(m->ctx);
    m->greps_off = zalloc(m, m->nproc + 1, sizeof(uint32_t));
    if (m->greps_off == NULL) {
        rc = nomem(m->ctx);
        goto out;
    }
    /* Count per process, in 64 bits: a graph block of K replays repeats its
     * ops K times, and positions (and clock epochs, position + 1) are 32-bit. */
    for (uint32_t b = 0; b < nb; b++) {
        struct ces_block_info bi = ces_graph_block(g, b);

        for (uint32_t r = 0; r < m->ranks; r++) {
            uint32_t n;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

            for (uint32_t i = 0; i < n; i++) {
                cnt[r * m->streams + ops[i].stream] += bi.reps;
                if (ops[i].kind == CES_OP_AWAIT)
                    nawait += bi.reps;
            }
            if (bi.reps == 1 || n == 0)
                continue;
            count_streams(ops, n, count);
            for (uint32_t s = 0; s < m->streams; s++)
                m->greps_off[r * m->streams + s + 1] += count[s] > 0;
        }
    }
    for (uint32_t p = 0; p < m->nproc; p++)
        m->nunrolled += cnt[p];
    begin(m, "unrolling the ops", m->nunrolled);
    for (uint32_t p = 0; p < m->nproc; p++) {
        if (cnt[p] >= UINT32_MAX) {
            rc = ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                               "r%" PRIu32 ".s%" PRIu32 ": %" PRIu64
                               " ops once graph replays are unrolled; the checker takes at most %"
                               PRIu32,
                               p / m->streams, p % m->streams, cnt[p], UINT32_MAX - 1);
            goto out;
        }
    }
    /* (an await is an op: its entries fit 32 bits where the ops of a process
     * do, but not where it takes more than one process's; refused before the
     * ops' records are allocated, as a process's ops are) */
    if (nawait >= UINT32_MAX) {
        rc = ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                           "%" PRIu64 " awaits once graph replays are unrolled; the checker "
                           "takes at most %" PRIu32, nawait, UINT32_MAX - 1);
        goto out;
    }
    rc = counts_check(m, cnt);
    if (rc != CES_OK)
        goto out;
    for (uint32_t p = 0; p < m->nproc; p++) {
        m->ops[p] = zalloc(m, cnt[p], sizeof(struct sim_op));
        if (m->ops[p] == NULL) {
            rc = nomem(m->ctx);
            goto out;
        }
    }
    for (uint32_t p = 0; p < m->nproc; p++)
        m->greps_off[p + 1] += m->greps_off[p];
    m->greps = zalloc(m, m->greps_off[m->nproc], sizeof(struct sim_greps));
    if (m->greps != NULL)
        m->awrec = zalloc(m, nawait, sizeof(struct sim_link));
    if (m->greps == NULL || m->awrec == NULL) {
        rc = nomem(m->ctx);
        goto out;
    }
    for (uint32_t b = 0; b < nb; b++) {
        struct ces_block_info bi = ces_graph_block(g, b);

        /* Rank by rank (each process's ops stay in replay order); a rank
         * without ops in the block skips its replays, which can number
         * 2^32 - 1. */
        for (uint32_t r = 0; r < m->ranks; r++) {
            uint32_t n;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

            if (bi.reps > 1 && n > 0) {
                count_streams(ops, n, count);
                for (uint32_t s = 0; s < m->streams; s++) {
                    uint32_t p = r * m->streams + s;

                    if (count[s] > 0)
                        m->greps[m->greps_off[p]++] = (struct sim_greps){b, m->len[p], count[s]};
                }
            }
            for (uint32_t j = 0; j < bi.reps && n > 0; j++) {
                for (uint32_t i = 0; i < n; i++) {
                    uint32_t p = r * m->streams + ops[i].stream;
                    struct sim_op *o;

                    if (late(m)) {
                        rc = SIM_LATE;
                        goto out;
                    }
                    o = &m->ops[p][m->len[p]++];
                    m->unrolled++;
                    o->op = &ops[i];
                    o->block = b;
                    o->aux = SIM_NONE;
                    o->link = SIM_NONE;
                    o->snap = SIM_NONE;
                    switch (ops[i].kind) {
                    case CES_OP_WRITE:
                        o->cls = SIM_C_WRITE;
                        o->slot = slot_of(m, &ops[i].slot);
                        break;
                    case CES_OP_WAIT:
                        o->cls = SIM_C_WAIT;
                        o->slot = slot_of(m, &ops[i].slot);
                        break;
                    case CES_OP_AWAIT:
                        o->cls = SIM_C_AWAIT;
                        o->rec = m->nawait;
                        m->awrec[m->nawait++] = (struct sim_link){SIM_NONE, SIM_NONE};
                        break;
                    default:
                        o->cls = SIM_C_LOCAL;
                        break;
                    }
                }
            }
        }
    }
    /* (the fill moved each process's offset to the next one's start) */
    for (uint32_t p = m->nproc; p > 0; p--)
        m->greps_off[p] = m->greps_off[p - 1];
    m->greps_off[0] = 0;
out:
    zfree(m, cnt, m->nproc, sizeof(uint64_t));
    return rc;
}

/* Walks each rank's enqueue order: queue indexes (stopped ops leave the
 * queue: their host never enqueued them) and await -> record resolution:
 * an await is bound to the latest record of its event enqueued before it,
 * a stopped one not counting (never enqueued, it changed nothing); with
 * none, as an event never recorded, it passes at once and becomes a local
 * op (cls SIM_C_LOCAL, no record). */
static int walk_enqueue(struct sim_model *m)
{
    const struct ces_graph *g = m->g;
    uint32_t nb = ces_graph_nblocks(g), ne = ces_graph_nevents(g);
    uint32_t *pos = zalloc(m, m->streams, sizeof(uint32_t));
    uint32_t *qn = zalloc(m, m->nq, sizeof(uint32_t));
    uint32_t *lastrec = zalloc(m, ne * 2, sizeof(uint32_t)); /* proc, pos per event */
    uint8_t *seen = zalloc(m, ne, sizeof(uint8_t)); /* a record of it, enqueued or not */
    int rc = CES_OK;

    if (pos == NULL || qn == NULL || lastrec == NULL || seen == NULL) {
        rc = nomem(m->ctx);
        goto out;
    }
    begin(m, "queuing the ops", 2 * m->nunrolled); /* two passes over each rank's */
    for (uint32_t r = 0; r < m->ranks && rc == CES_OK; r++) {
        memset(pos, 0, m->streams * sizeof(uint32_t));
        memset(qn, 0, m->nq * sizeof(uint32_t));
        for (uint32_t e = 0; e < 2 * ne; e++)
            lastrec[e] = SIM_NONE;
        memset(seen, 0, ne);
        /* first pass counts, second fills */
        for (int pass = 0; pass < 2 && rc == CES_OK; pass++) {
            memset(pos, 0, m->streams * sizeof(uint32_t));
            memset(qn, 0, m->nq * sizeof(uint32_t));
            for (uint32_t b = 0; b < nb; b++) {
                struct ces_block_info bi = ces_graph_block(g, b);

                uint32_t n;
                const struct ces_op *ops = ces_graph_ops(g, b, r, &n);

                for (uint32_t j = 0; j < bi.reps && n > 0; j++) {
                    for (uint32_t i = 0; i < n; i++) {
                        uint32_t s = ops[i].stream, p = r * m->streams + s;
                        uint32_t k = pos[s]++;
                        uint32_t q = m->queue[p] - r * m->nq;
                        struct sim_op *o = &m->ops[p][k];

                        if (late(m)) {
                            rc = SIM_LATE;
                            goto out;
                        }
                        if (pass == 1) {
                            if (o->op->kind == CES_OP_RECORD) {
                                seen[o->op->event] = 1;
                                if (k < m->stop[p]) {
                                    lastrec[2 * o->op->event] = p;
                                    lastrec[2 * o->op->event + 1] = k;
                                }
                            } else if (o->op->kind == CES_OP_AWAIT) {
                                struct sim_link *rec = &m->awrec[o->rec];

                                rec->proc = lastrec[2 * o->op->event];
                                rec->pos = lastrec[2 * o->op->event + 1];
                                if (rec->proc == SIM_NONE && seen[o->op->event]) {
                                    o->cls = SIM_C_LOCAL;
                                } else if (rec->proc == SIM_NONE) {
                                    rc = ces_ctx_error(m->ctx, CES_ERR_SEMANTIC,
                                                       "r%" PRIu32 ".s%" PRIu32 "#%" PRIu32
                                                       ": 'await' has no 'record' before it",
                                                       r, s, k);
                                    goto out;
                                }
                            }
                        }
                        if (k >= m->stop[p])
                            continue;
                        if (pass == 1 && m->qseq[r * m->nq + q] != NULL) {
                            m->qidx[p][k] = qn[q];
                            m->qseq[r * m->nq + q][qn[q]] = p;
                        }
                        qn[q]++;
                    }
                }
            }
            if (pass == 0) {
                for (uint32_t q = 0; q < m->nq; q++) {
                    uint32_t gq = r * m->nq + q;

                    m->qlen[gq] = qn[q];
                    if (m->qproc_at[gq + 1] - m->qproc_at[gq] == 1)
                        continue; /* (its one process: ces_sim_queue_proc, ces_sim_qidx) */
                    m->qseq[gq] = zalloc(m, qn[q], sizeof(uint32_t));
                    if (m->qseq[gq] == NULL) {
                        rc = nomem(m->ctx);
                        goto out;
                    }
                    for (uint32_t i = m->qproc_at[gq]; i < m->qproc_at[gq + 1]; i++) {
                        uint32_t y = m->qproc[i];

                        m->qidx[y] = zalloc(m, m->len[y], sizeof(uint32_t));
                        if (m->qidx[y] == NULL) {
                            rc = nomem(m->ctx);
                            goto out;
                        }
                    }
                }
            }
        }
    }
out:
    zfree(m, pos, m->streams, sizeof(uint32_t));
    zfree(m, qn, m->nq, sizeof(uint32_t));
    zfree(m, lastrec, ne * 2, sizeof(uint32_t));
    zfree(m, seen, ne, sizeof(uint8_t));
    return rc;
}

/* Marks an op whose clock a link keeps until its slot is numbered. */
#define SIM_SNAP_WANTED (SIM_NONE - 1)

int ces_sim_links_each(const struct ces_graph *g, uint32_t r, uint32_t linked,
                       int (*fn)(void *ud, uint32_t s, uint32_t pos, uint32_t q, uint32_t qpos),
                       void *ud)
{
    uint32_t nb = ces_graph_nblocks(g), streams = ces_graph_streams(g);
    uint32_t L = linked < streams ? linked : streams;
    uint32_t cnt[CES_MAX_STREAMS], count[CES_MAX_STREAMS];
    int64_t seen[CES_MAX_STREAMS], u = 0;
    int rc = CES_OK;

    if (L < 2)
        return CES_OK;
    for (uint32_t s = 0; s < L; s++) {
        cnt[s] = 0;
        seen[s] = -1;
    }
    for (uint32_t b = 0; b < nb; b++) {
        struct ces_block_info bi = ces_graph_block(g, b);
        uint32_t nops;
        const struct ces_op *ops = ces_graph_ops(g, b, r, &nops);

        if (nops == 0)
            continue;
        memset(count, 0, sizeof(count));
        for (uint32_t i = 0; i < nops; i++)
            count[ops[i].stream]++;
        for (uint32_t j = 0; j < bi.reps; j++, u++) {
            for (uint32_t s = 0; s < L; s++) {
                for (uint32_t q = 0; q < L && count[s] > 0; q++) {
                    if (q == s || seen[q] < 0 || seen[q] < seen[s])
                        continue;
                    rc = fn(ud, s, cnt[s], q, cnt[q] - 1);
                    if (rc != CES_OK)
                        return rc;
                }
            }
            for (uint32_t s = 0; s < L; s++) {
                if (count[s] > 0) {
                    seen[s] = u;
                    cnt[s] += count[s];
                }
            }
        }
    }
    return CES_OK;
}

/* An op's links, one for each other linked stream, fit its nlink's bits;
 * its block, one of a schedule's or of the graph its delay faults (fewer
 * than CES_MAX_STREAMS, delay.c) derive, fits its own. */
_Static_assert(CES_MAX_STREAMS - 1 < (1u << 6), "struct sim_op's nlink holds the links");
_Static_assert(CES_EXPAND_MAX_BLOCKS + 2 * CES_MAX_STREAMS <= (UINT64_C(1) << SIM_BLOCK_BITS),
               "struct sim_op's block holds the blocks of a schedule and its delay faults");

/* The op record is 24 bytes where a pointer is 8 (the model's bulk: one
 * per op of every replay). */
_Static_assert(sizeof(void *) != 8 || sizeof(struct sim_op) == 24,
               "struct sim_op is 24 bytes");

/* Counts the model's links (m->links NULL) or fills them in. */
struct link_fill {
    struct sim_model *m;
    uint32_t r;
    size_t n;
};

static int link_one(void *ud, uint32_t s, uint32_t pos, uint32_t q, uint32_t qpos)
{
    struct link_fill *f = ud;
    struct sim_model *m = f->m;
    uint32_t qp = f->r * m->streams + q;

    if (late(m))
        return SIM_LATE;
    if (m->links != NULL) {
        struct sim_op *o = &m->ops[f->r * m->streams + s][pos];

        if (o->nlink == 0)
            o->link = (uint32_t)f->n;
        o->nlink++;
        m->links[f->n] = (struct sim_link){qp, qpos};
        m->ops[qp][qpos].snap = SIM_SNAP_WANTED;
    }
    f->n++;
    return CES_OK;
}

/* The links at each rank's block and replay boundaries (ces_sim_links_each;
 * docs/SEMANTICS.md, section 1).  The streams from m->linked on (delayed
 * writes) take no part. */
static int link_units(struct sim_model *m)
{
    struct link_fill f = {m, 0, 0};

    begin(m, "linking the boundaries", 0); /* twice the links, once counted */
    for (int pass = 0; pass < 2; pass++) {
        m->step_total = 2 * (uint64_t)f.n;
        f.n = 0;
        for (f.r = 0; f.r < m->ranks; f.r++)
            if (ces_sim_links_each(m->g, f.r, m->linked, link_one, &f) == SIM_LATE)
                return SIM_LATE;
        if (pass == 1 || f.n == 0)
            break;
        if (f.n >= UINT32_MAX)
            return ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                                 "the schedule has %zu stream links at its block and replay "
                                 "boundaries; the checker takes at most %" PRIu32,
                                 f.n, UINT32_MAX - 1);
        m->links = zalloc(m, f.n, sizeof(struct sim_link));
        if (m->links == NULL)
            return nomem(m->ctx);
        m->nlinks = (uint32_t)f.n;
    }
    return CES_OK;
}

/* Record instances that some await refers to, and ops whose clock a link
 * keeps, get a clock slot. */
static int number_records(struct sim_model *m)
{
    begin(m, "numbering the records", m->nunrolled);
    m->nrec = 0;
    for (uint32_t p = 0; p < m->nproc; p++) {
        for (uint32_t k = 0; k < m->len[p]; k++) {
            struct sim_op *o = &m->ops[p][k];

            if (late(m))
                return SIM_LATE;

            if (o->cls == SIM_C_AWAIT) {
                const struct sim_link *l = ces_sim_await_rec(m, o);
                struct sim_op *rec = &m->ops[l->proc][l->pos];

                if (rec->aux == SIM_NONE)
                    rec->aux = m->nrec++;
            }
            if (o->snap == SIM_SNAP_WANTED)
                o->snap = m->nrec++;
        }
    }
    return CES_OK;
}

/* Cuts the accesses of every slot (acc[off[x]..off[x+1]), by process then
 * position) into runs of one process: *goff, [nslots+1], indexes *grp
 * (`step` names the accesses' step).  CES_ERR_NOMEM or SIM_LATE. */
static int group(struct sim_model *m, const char *step, const uint32_t *off,
                 const struct sim_access *acc, uint32_t **goff, struct sim_group **grp)
{
    uint32_t n = 0;

    begin(m, step, 2 * (uint64_t)off[m->nslots]);
    *goff = zalloc(m, m->nslots + 1, sizeof(uint32_t));
    if (*goff == NULL)
        return m->timed_out ? SIM_LATE : CES_ERR_NOMEM;
    for (uint32_t x = 0; x < m->nslots; x++) {
        for (uint32_t i = off[x]; i < off[x + 1]; i++) {
            if (late(m))
                return SIM_LATE;
            n += i == off[x] || acc[i].proc != acc[i - 1].proc;
        }
        (*goff)[x + 1] = n;
    }
    *grp = zalloc(m, n, sizeof(struct sim_group));
    if (*grp == NULL)
        return m->timed_out ? SIM_LATE : CES_ERR_NOMEM;
    n = 0;
    for (uint32_t x = 0; x < m->nslots; x++) {
        for (uint32_t i = off[x]; i < off[x + 1]; i++) {
            struct sim_group *g;

            if (late(m))
                return SIM_LATE;

            if (i == off[x] || acc[i].proc != acc[i - 1].proc)
                (*grp)[n++] = (struct sim_group){acc[i].proc, i, i, 1, 1};
            g = &(*grp)[n - 1];
            g->hi = i + 1;
            g->unit = g->unit && (i == g->lo || (acc[i].value == acc[i - 1].value + 1 &&
                                                 acc[i].value != 0));
            g->sorted = g->sorted && acc[i].value >= acc[i > g->lo ? i - 1 : i].value &&
                        (m->slot_width[x] != CES_U32 ||
                         acc[i].value - acc[g->lo].value < UINT64_C(1) << 31);
        }
    }
    return CES_OK;
}

/* How the first blocking wait of group tg[t] (on slot x) is found: enum
 * sim_ws_kind. */
static uint32_t wait_kind(const struct sim_model *m, uint32_t x, uint32_t t)
{
    const struct sim_group *g = &m->tg[t];
    bool geq = m->slot_width[x] == CES_U64 && g->sorted, eq = true;
    bool run = g->sorted && m->wg_off[x + 1] - m->wg_off[x] <= SIM_WS_RUNS;

    for (uint32_t i = g->lo; i < g->hi; i++) {
        geq = geq && m->wt_cmp[i] == CES_CMP_GEQ;
        eq = eq && m->wt_cmp[i] == CES_CMP_EQ && m->wt[i].value == m->wt[g->lo].value;
        run = run && m->wt_cmp[i] == CES_CMP_EQ;
    }
    for (uint32_t w = m->wg_off[x]; w < m->wg_off[x + 1]; w++) {
        geq = geq && m->wg[w].proc != g->proc && m->wg[w].sorted;
        run = run && m->wg[w].proc != g->proc && m->wg[w].unit;
    }
    return geq ? SIM_WS_GEQ : eq ? SIM_WS_EQ : run ? SIM_WS_EQRUN : SIM_WS_WALK;
}

/* The sort of ces_sim_sort_late: items of `size` bytes (SORT_ITEM at most). */
#define SORT_ITEM 64u

static void swap_items(char *a, char *b, size_t size)
{
    char t[SORT_ITEM];

    memcpy(t, a, size);
    memcpy(a, b, size);
    memcpy(b, t, size);
}

/* Sifts item i of the heap b[0, n) down. */
static void sift_down(char *b, size_t i, size_t n, size_t size,
                      int (*cmp)(const void *, const void *))
{
    for (size_t k = 2 * i + 1; k < n; i = k, k = 2 * i + 1) {
        if (k + 1 < n && cmp(b + k * size, b + (k + 1) * size) < 0)
            k++;
        if (cmp(b + i * size, b + k * size) >= 0)
            return;
        swap_items(b + i * size, b + k * size, size);
    }
}

/* ces_sim_sort_late's sort of b[0, n): a quicksort (median of three, by
 * insertion under 16 items), a heapsort where it goes `depth` partitions
 * deep. */
static int sort_part(struct sim_model *m, char *b, size_t n, size_t size,
                     int (*cmp)(const void *, const void *), unsigned depth)
{
    while (n > 16) {
        size_t mid = n / 2, i = 0, j = n - 2;
        char *pv = b + (n - 2) * size;
        int rc;

        if (depth-- == 0) {
            for (size_t k = n / 2; k-- > 0;) {
                sift_down(b, k, n, size, cmp);
                if ((k & 63) == 0 && tick(m, 64))
                    return SIM_LATE;
            }
            for (size_t e = n; e-- > 1;) {
                swap_items(b, b + e * size, size);
                sift_down(b, 0, e, size, cmp);
                if ((e & 63) == 0 && tick(m, 64))
                    return SIM_LATE;
            }
            return CES_OK;
        }
        if (tick(m, n < UINT32_MAX ? (uint32_t)n : UINT32_MAX))
            return SIM_LATE;
        /* b[0] <= b[mid] <= b[n - 1], the pivot b[mid] then at n - 2: the
         * ends stop both scans */
        if (cmp(b + mid * size, b) < 0)
            swap_items(b + mid * size, b, size);
        if (cmp(b + (n - 1) * size, b + mid * size) < 0) {
            swap_items(b + (n - 1) * size, b + mid * size, size);
            if (cmp(b + mid * size, b) < 0)
                swap_items(b + mid * size, b, size);
        }
        swap_items(b + mid * size, pv, size);
        for (;;) {
            while (cmp(b + (++i) * size, pv) < 0)
                ;
            while (cmp(b + (--j) * size, pv) > 0)
                ;
            if (i >= j)
                break;
            swap_items(b + i * size, b + j * size, size);
        }
        swap_items(b + i * size, pv, size);
        /* the smaller side by recursion, the larger by the loop */
        if (i < n - i - 1) {
            rc = sort_part(m, b, i, size, cmp, depth);
            b += (i + 1) * size;
            n -= i + 1;
        } else {
            rc = sort_part(m, b + (i + 1) * size, n - i - 1, size, cmp, depth);
            n = i;
        }
        if (rc != CES_OK)
            return rc;
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && cmp(b + (j - 1) * size, b + j * size) > 0; j--)
            swap_items(b + (j - 1) * size, b + j * size, size);
    return CES_OK;
}

/* (internal.h) */
int ces_sim_sort_late(struct sim_model *m, void *b, size_t n, size_t size,
                      int (*cmp)(const void *, const void *))
{
    unsigned depth = 0;

    assert(size <= SORT_ITEM);
    for (size_t k = n; k > 1; k /= 2)
        depth += 2;
    return sort_part(m, b, n, size, cmp, depth);
}

/* A write's value and its index in wr, which index_values sorts a group's
 * writes by (the indices follow the positions within a group): the first
 * write of a value from a position is then one bisection away. */
struct vidx {
    uint64_t value;
    uint32_t idx;
};

static int cmp_vidx(const void *pa, const void *pb)
{
    const struct vidx *a = pa, *b = pb;

    if (a->value != b->value)
        return a->value < b->value ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* wv: each writer group's writes (their indices in wr) sorted by (value,
 * pos), a group that is not sorted by way of a table of its (value, index)
 * pairs, as large as the largest such group.  CES_ERR_NOMEM or SIM_LATE. */
static int index_values(struct sim_model *m)
{
    uint32_t most = 0;
    struct vidx *t;

    begin(m, "sorting the writes' values", m->wr_off[m->nslots]);
    m->wv = zalloc(m, m->wr_off[m->nslots], sizeof(uint32_t));
    if (m->wv == NULL)
        return m->timed_out ? SIM_LATE : CES_ERR_NOMEM;
    for (uint32_t i = 0; i < m->wr_off[m->nslots]; i++) {
        if (late(m))
            return SIM_LATE;
        m->wv[i] = i;
    }
    for (uint32_t gi = 0; gi < m->wg_off[m->nslots]; gi++)
        if (!m->wg[gi].sorted && m->wg[gi].hi - m->wg[gi].lo > most)
            most = m->wg[gi].hi - m->wg[gi].lo;
    if (most == 0) /* (a sorted group's order is already this one) */
        return CES_OK;
    t = zalloc(m, most, sizeof(struct vidx));
    if (t == NULL)
        return m->timed_out ? SIM_LATE : CES_ERR_NOMEM;
    for (uint32_t gi = 0; gi < m->wg_off[m->nslots]; gi++) {
        const struct sim_group *g = &m->wg[gi];

        if (g->sorted)
            continue;
        /* (within a group the indices follow the positions) */
        for (uint32_t i = g->lo; i < g->hi; i++)
            t[i - g->lo] = (struct vidx){m->wr[i].value, i};
        if (ces_sim_sort_late(m, t, g->hi - g->lo, sizeof(struct vidx), cmp_vidx) != CES_OK) {
            zfree(m, t, most, sizeof(struct vidx));
            return SIM_LATE;
        }
        for (uint32_t i = g->lo; i < g->hi; i++)
            m->wv[i] = t[i - g->lo].idx;
    }
    zfree(m, t, most, sizeof(struct vidx));
    return CES_OK;
}

/* An await of a process: its event, its record's process and position
 * and its own position (index_waits sorts them into groups). */
struct awkey {
    uint32_t event, rec_proc, rec_pos, pos;
};

static int cmp_awkey(const void *pa, const void *pb)
{
    const struct awkey *a = pa, *b = pb;

    if (a->event != b->event)
        return a->event < b->event ? -1 : 1;
    if (a->rec_proc != b->rec_proc)
        return a->rec_proc < b->rec_proc ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Whether await b (after a in their order) starts a group of its own: another
 * event or record process, or a record before a's (never, by the binding to
 * the latest record, but a group must not fall). */
static bool awkey_splits(const struct awkey *a, const struct awkey *b)
{
    return a->event != b->event || a->rec_proc != b->rec_proc || b->rec_pos < a->rec_pos;
}

/* Each process's awaits in aw by (event, record process, position) and their
 * groups (awg).  CES_ERR_NOMEM or SIM_LATE. */
static int index_awaits(struct sim_model *m)
{
    uint32_t most = 0, ng = 0;
    struct awkey *t;
    int rc = CES_OK;

    for (uint32_t p = 0; p < m->nproc; p++) {
        if (m->aw_off[p + 1] - m->aw_off[p] > most)
            most = m->aw_off[p + 1] - m->aw_off[p];
    }
    m->awg_off = zalloc(m, m->nproc + 1, sizeof(uint32_t));
    t = zalloc(m, most, sizeof(struct awkey));
    if (m->awg_off == NULL || t == NULL) {
        rc = m->timed_out ? SIM_LATE : CES_ERR_NOMEM;
        goto out;
    }
    /* sorted, counted; then the groups filled from the sorted aw */
    for (uint32_t p = 0; p < m->nproc; p++) {
        uint32_t lo = m->aw_off[p], n = m->aw_off[p + 1] - lo;

        for (uint32_t i = 0; i < n; i++) {
            const struct sim_op *o = &m->ops[p][m->aw[lo + i]];
            const struct sim_link *rec = ces_sim_await_rec(m, o);

            t[i] = (struct awkey){o->op->event, rec->proc, rec->pos, m->aw[lo + i]};
        }
        if (ces_sim_sort_late(m, t, n, sizeof(struct awkey), cmp_awkey) != CES_OK) {
            rc = SIM_LATE;
            goto out;
        }
        for (uint32_t i = 0; i < n; i++) {
            m->aw[lo + i] = t[i].pos;
            ng += i == 0 || awkey_splits(&t[i - 1], &t[i]);
        }
        m->awg_off[p + 1] = ng;
    }
    m->awg = zalloc(m, ng, sizeof(struct sim_awgroup));
    if (m->awg == NULL) {
        rc = m->timed_out ? SIM_LATE : CES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t p = 0; p < m->nproc; p++) {
        uint32_t g = m->awg_off[p];
        struct awkey prev = {0, 0, 0, 0};

        for (uint32_t a = m->aw_off[p]; a < m->aw_off[p + 1]; a++) {
            const struct sim_op *o = &m->ops[p][m->aw[a]];
            const struct sim_link *rec = ces_sim_await_rec(m, o);
            struct awkey k = {o->op->event, rec->proc, rec->pos, m->aw[a]};

            if (a == m->aw_off[p] || awkey_splits(&prev, &k))
                m->awg[g++] = (struct sim_awgroup){rec->proc, a, a};
            m->awg[g - 1].hi = a + 1;
            prev = k;
        }
    }
out:
    zfree(m, t, most, sizeof(struct awkey));
    return rc;
}

/* Per process, the slots it waits on (ws) and its awaits (aw, awg).
 * CES_ERR_NOMEM or SIM_LATE. */
static int index_waits(struct sim_model *m)
{
    uint32_t *fill;

    begin(m, "indexing the waits", 2 * m->nunrolled);
    m->ws_off = zalloc(m, m->nproc + 1, sizeof(uint32_t));
    m->aw_off = zalloc(m, m->nproc + 1, sizeof(uint32_t));
    if (m->ws_off == NULL || m->aw_off == NULL)
        return m->timed_out ? SIM_LATE : CES_ERR_NOMEM;
    for (uint32_t t = 0; t < m->tg_off[m->nslots]; t++)
        m->ws_off[m->tg[t].proc + 1]++;
    for (uint32_t p = 0; p < m->nproc; p++) {
        for (uint32_t k = 0; k < m->len[p]; k++) {
            if (late(m))
                return SIM_LATE;
            m->aw_off[p + 1] += m->ops[p][k].cls == SIM_C_AWAIT;
        }
        m->ws_off[p + 1] += m->ws_off[p];
        m->aw_off[p + 1] += m->aw_off[p];
    }
    m->ws = zalloc(m, m->ws_off[m->nproc], sizeof(struct sim_wslot));
    m->aw = zalloc(m, m->aw_off[m->nproc], sizeof(uint32_t));
    fill = zalloc(m, m->nproc, sizeof(uint32_t));
    if (m->ws == NULL || m->aw == NULL || fill == NULL) {
        zfree(m, fill, m->nproc, sizeof(uint32_t));
        return m->timed_out ? SIM_LATE : CES_ERR_NOMEM;
    }
    for (uint32_t x = 0; x < m->nslots; x++) {
        for (uint32_t t = m->tg_off[x]; t < m->tg_off[x + 1]; t++) {
            uint32_t p = m->tg[t].proc;

            m->ws[m->ws_off[p] + fill[p]++] = (struct sim_wslot){x, t, wait_kind(m, x, t)};
        }
    }
    for (uint32_t p = 0; p < m->nproc; p++) {
        uint32_t n = m->aw_off[p];

        for (uint32_t k = 0; k < m->len[p]; k++) {
            if (late(m)) {
                zfree(m, fill, m->nproc, sizeof(uint32_t));
                return SIM_LATE;
            }
            if (m->ops[p][k].cls == SIM_C_AWAIT)
                m->aw[n++] = k;
        }
    }
    zfree(m, fill, m->nproc, sizeof(uint32_t));
    return index_awaits(m);
}

/* Writers (landing writes only) and waiters per slot, guards per process. */
static int index_slots(struct sim_model *m)
{
    size_t nw = 0, nt = 0, ng = 0;
    int rc;

    begin(m, "indexing the slots", 2 * m->nunrolled);
    m->wr_off = zalloc(m, m->nslots + 1, sizeof(uint32_t));
    m->wt_off = zalloc(m, m->nslots + 1, sizeof(uint32_t));
    m->guard_off = zalloc(m, m->nproc + 1, sizeof(uint32_t));
    if (m->wr_off == NULL || m->wt_off == NULL || m->guard_off == NULL)
        return nomem(m->ctx);
    for (uint32_t p = 0; p < m->nproc; p++) {
        for (uint32_t k = 0; k < m->len[p]; k++) {
            const struct sim_op *o = &m->ops[p][k];

            if (late(m))
                return SIM_LATE;
            if (o->cls == SIM_C_WRITE && !o->dropped) {
                m->wr_off[o->slot + 1]++;
            } else if (o->cls == SIM_C_WAIT) {
                m->wt_off[o->slot + 1]++;
            }
            if (o->cls == SIM_C_WAIT || o->cls == SIM_C_AWAIT)
                m->guard_off[p + 1]++;
        }
    }
    for (uint32_t x = 0; x < m->nslots; x++) {
        m->wr_off[x + 1] += m->wr_off[x];
        m->wt_off[x + 1] += m->wt_off[x];
    }
    for (uint32_t p = 0; p < m->nproc; p++)
        m->guard_off[p + 1] += m->guard_off[p];
    nw = m->wr_off[m->nslots];
    nt = m->wt_off[m->nslots];
    ng = m->guard_off[m->nproc];
    m->wr = zalloc(m, nw, sizeof(struct sim_access));
    m->wt = zalloc(m, nt, sizeof(struct sim_access));
    m->wt_cmp = zalloc(m, nt, sizeof(uint8_t));
    m->guard = zalloc(m, ng, sizeof(uint32_t));
    if (m->wr == NULL || m->wt == NULL || m->wt_cmp == NULL || m->guard == NULL)
        return nomem(m->ctx);
    {
        uint32_t *fw = zalloc(m, m->nslots, sizeof(uint32_t));
        uint32_t *ft = zalloc(m, m->nslots, sizeof(uint32_t));
        uint32_t gi = 0;
        bool stop = false;

        if (fw == NULL || ft == NULL) {
            zfree(m, fw, m->nslots, sizeof(uint32_t));
            zfree(m, ft, m->nslots, sizeof(uint32_t));
            return nomem(m->ctx);
        }
        for (uint32_t p = 0; p < m->nproc && !stop; p++) {
            for (uint32_t k = 0; k < m->len[p] && !stop; k++) {
                const struct sim_op *o = &m->ops[p][k];

                stop = late(m);
                if (o->cls == SIM_C_WRITE && !o->dropped) {
                    struct sim_access *w = &m->wr[m->wr_off[o->slot] + fw[o->slot]++];

                    w->proc = p;
                    w->pos = k;
                    w->value = o->op->value;
                } else if (o->cls == SIM_C_WAIT) {
                    uint32_t i = m->wt_off[o->slot] + ft[o->slot]++;

                    m->wt[i].proc = p;
                    m->wt[i].pos = k;
                    m->wt[i].value = o->op->value;
                    m->wt_cmp[i] = o->op->cmp;
                }
                if (o->cls == SIM_C_WAIT || o->cls == SIM_C_AWAIT)
                    m->guard[gi++] = k;
            }
        }
        zfree(m, fw, m->nslots, sizeof(uint32_t));
        zfree(m, ft, m->nslots, sizeof(uint32_t));
        if (stop)
            return SIM_LATE;
    }
    rc = group(m, "grouping the writes", m->wr_off, m->wr, &m->wg_off, &m->wg);
    if (rc == CES_OK)
        rc = group(m, "grouping the waits", m->wt_off, m->wt, &m->tg_off, &m->tg);
    if (rc == CES_OK)
        rc = index_values(m);
    if (rc == CES_OK)
        rc = index_waits(m);
    return rc == CES_ERR_NOMEM ? nomem(m->ctx) : rc;
}

/* The first of the sorted, disjoint runs of `live` that ends after x. */
static size_t run_after(const struct ces_vec *live, uint64_t x)
{
    const struct sim_run *r = live->data;
    size_t lo = 0, hi = live->len;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (r[mid].hi <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Room for `extra` more items in a vector of the building, grown as
 * ces_vec_reserve grows it (doubling from its capacity): the growth
 * counted against the memory bound before it is asked for, and held from
 * then on (vfree gives it back).  CES_ERR_NOMEM where the bound refuses
 * it (m->over) or the allocation fails (m->nomem). */
static int vreserve(struct sim_model *m, struct ces_vec *v, size_t item, size_t extra)
{
    size_t cap = v->cap > 0 ? v->cap : 1, old = v->cap;

    if (v->len + extra <= v->cap)
        return CES_OK;
    while (cap < v->len + extra)
        cap = sat_mul(cap, 2);
    if (!fits(m, sat_mul(cap - old, item)))
        return CES_ERR_NOMEM;
    if (ces_vec_reserve(m->ctx, v, item, cap - v->len) != CES_OK) {
        m->nomem = true;
        return CES_ERR_NOMEM;
    }
    assert(v->cap == cap);
    hold(m, (cap - old) * item);
    return CES_OK;
}

/* Appends n items to a vector of the building (vreserve). */
static int vpush(struct sim_model *m, struct ces_vec *v, size_t item, const void *x, size_t n)
{
    int rc = vreserve(m, v, item, n);

    if (rc == CES_OK) {
        memcpy((char *)v->data + v->len * item, x, n * item);
        v->len += n;
    }
    return rc;
}

/* Frees a vector of the building, no longer held. */
static void vfree(struct sim_model *m, struct ces_vec *v, size_t item)
{
    m->bytes -= v->cap * item;
    ces_vec_free(m->ctx, v);
}

/* Sets the generation of [lo, hi) to gen in `live`: sorted, disjoint runs
 * (the bytes of one buffer produced so far, each with its latest
 * generation); the runs it overlaps are cut back or replaced, those after
 * them moved (a tick for every 16: SIM_LATE once the time bound passed). */
static int assign_runs(struct sim_model *m, struct ces_vec *live, uint64_t lo, uint64_t hi,
                       uint64_t gen)
{
    struct sim_run *r = live->data, put[3];
    size_t a = run_after(live, lo), b, nput = 0, moved;
    int rc;

    for (b = a; b < live->len && r[b].lo < hi; b++)
        ;
    if (a < b && r[a].lo < lo)
        put[nput++] = (struct sim_run){r[a].lo, lo, r[a].gen};
    put[nput++] = (struct sim_run){lo, hi, gen};
    if (a < b && r[b - 1].hi > hi)
        put[nput++] = (struct sim_run){hi, r[b - 1].hi, r[b - 1].gen};
    if (nput > b - a) {
        rc = vreserve(m, live, sizeof(*put), nput - (b - a));
        if (rc != CES_OK)
            return rc;
        r = live->data;
    }
    memmove(&r[a + nput], &r[b], (live->len - b) * sizeof(*put));
    memcpy(&r[a], put, nput * sizeof(*put));
    live->len = live->len - (b - a) + nput;
    moved = (live->len - a) / 16;
    return tick(m, moved < UINT32_MAX ? (uint32_t)moved : UINT32_MAX) ? SIM_LATE : CES_OK;
}

/* A hash of the runs a consume reads (read_runs): h and the run r. */
static uint64_t hash_run(uint64_t h, const struct sim_run *r)
{
    h = (h ^ r->lo) * UINT64_C(0x9e3779b97f4a7c15);
    h = (h ^ r->hi) * UINT64_C(0xc2b2ae3d27d4eb4f);
    h = (h ^ r->gen) * UINT64_C(0x165667b19e3779f9);
    return h ^ (h >> 29);
}

/* The bits of the hash of a consume's runs that sweep_runs keeps
 * (internal.h): all, none in a test. */
uint64_t ces_sim_runs_hash_keep = UINT64_MAX;

/* The generations of [lo, hi) in `live` (0 where nothing was produced), as
 * runs in order, for a consume of iteration iter in a block whose first is
 * `from`: a generation from `from` on relative to iter (SIM_RUN_REL), and
 * *rel set where one is.  Appended to `out`, or only counted where out is
 * NULL; their number in *n, a hash of them (hash_run, its bits in
 * ces_sim_runs_hash_keep) in *hash.  A tick
 * for each (a consume can read millions): SIM_LATE once the time bound
 * passed. */
static int read_runs(struct sim_model *m, const struct ces_vec *live, uint64_t lo, uint64_t hi,
                     uint64_t from, uint64_t iter, struct ces_vec *out, uint64_t *n, bool *rel,
                     uint64_t *hash)
{
    const struct sim_run *r = live->data;
    uint64_t x = lo;
    int rc = CES_OK;

    *n = 0;
    *rel = false;
    *hash = 0;
    for (size_t i = run_after(live, lo); rc == CES_OK; i++) {
        bool in = i < live->len && r[i].lo < hi;
        struct sim_run put[2]; /* the gap before run i (or the tail), and its part */
        size_t k = 0;

        if (x < (in ? r[i].lo : hi))
            put[k++] = (struct sim_run){x, in ? r[i].lo : hi, 0};
        if (in) {
            uint64_t gen = r[i].gen;

            if (gen >= from) { /* (produced in the consume's iteration or before) */
                assert(gen <= iter);
                gen = SIM_RUN_REL | (iter - gen);
                *rel = true;
            }
            put[k++] = (struct sim_run){r[i].lo > x ? r[i].lo : x, r[i].hi < hi ? r[i].hi : hi,
                                        gen};
        }
        *n += k;
        for (size_t j = 0; j < k; j++)
            *hash = hash_run(*hash, &put[j]);
        if (tick(m, 1))
            rc = SIM_LATE;
        else if (out != NULL && k > 0)
            rc = vpush(m, out, sizeof(*put), put, k);
        if (!in)
            break;
        x = put[k - 1].hi;
    }
    *hash &= ces_sim_runs_hash_keep;
    return rc;
}

/* A produce or an expecting consume, in the order expected_runs takes them. */
struct prodcons {
    uint32_t rank, buf;
    uint64_t iter;
    uint32_t consume; /* 1: a consume, after the produces of its iteration */
    uint32_t seq;     /* program order, for a deterministic sort */
    struct sim_op *o;
};

static int cmp_prodcons(const void *pa, const void *pb)
{
    const struct prodcons *a = pa, *b = pb;

    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->buf != b->buf)
        return a->buf < b->buf ? -1 : 1;
    if (a->iter != b->iter)
        return a->iter < b->iter ? -1 : 1;
    if (a->consume != b->consume)
        return a->consume < b->consume ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* One data access for data_ends: bytes [lo, hi) of map `map` (rank *
 * nbuf + buffer), by op `pos` of process `proc`. */
struct dacc {
    uint64_t lo, hi;
    uint32_t map, proc, pos, write;
};

static int cmp_dacc_lo(const void *x, const void *y)
{
    const struct dacc *a = x, *b = y;

    if (a->map != b->map)
        return a->map < b->map ? -1 : 1;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Index of x in the sorted, distinct xs[0, n) (x is there). */
static size_t find_u64(const uint64_t *xs, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;

    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;

        if (xs[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static int push_dacc(struct sim_model *m, struct ces_vec *v, const struct ces_region *r,
                     uint32_t p, uint32_t k, uint32_t write)
{
    struct dacc a = {r->lo, r->hi, r->rank * m->nbuf + r->buf, p, k, write};

    if (r->lo == r->hi) /* the step touches no map */
        return CES_OK;
    if (vpush(m, v, sizeof(a), &a, 1) != CES_OK)
        return nomem(m->ctx);
    return CES_OK;
}

/* One map's accesses a[0, n), sorted by lo: the elementary segments
 * between their ends, and on each how many processes access it and how
 * many writes cover it; an access conflicts with another process's if a
 * segment of it has two processes (a write), or two processes and a
 * write (a read; a superset: the write may be its own process's, and is
 * then a conflict of that op).  Raises clock_end past each conflicting
 * access.  A tick for each segment and each access, 64 at a time, and
 * ces_sim_sort_late's in the sorts of the ends (a map can have millions):
 * SIM_LATE once the time bound passed.  The order of accesses with the
 * same lo, or of ends with the same hi, changes no count. */
static int map_conflicts(struct sim_model *m, const struct dacc *a, size_t n, uint32_t *cnt)
{
    /* one block: the ends xs[2n], the (hi, index) pairs ends[2n], then the
     * counts pw[2n + 1] and pr[2n + 1] in the 2n + 1 words left (placed
     * once it is there: an offset from NULL is undefined) */
    uint64_t *xs = halloc(m, 6 * n + 1, sizeof(uint64_t)), *ends;
    uint32_t *pw, *pr;
    size_t nx = 0, s = 0, e = 0;
    uint32_t nact = 0, nwr = 0;
    int rc = CES_OK;

    if (xs == NULL)
        return nomem(m->ctx);
    ends = xs + 2 * n;
    pw = (uint32_t *)(ends + 2 * n);
    pr = pw + 2 * n + 1;
    for (size_t i = 0; i < n; i++) {
        xs[nx++] = a[i].lo;
        xs[nx++] = a[i].hi;
        ends[2 * i] = a[i].hi; /* (hi, index) pairs sorted by hi */
        ends[2 * i + 1] = i;
    }
    if (ces_sim_sort_late(m, xs, nx, sizeof(uint64_t), ces_cmp_u64) != CES_OK) {
        rc = SIM_LATE;
        goto out;
    }
    {
        size_t u = 0;

        for (size_t i = 0; i < nx; i++)
            if (u == 0 || xs[u - 1] != xs[i])
                xs[u++] = xs[i];
        nx = u;
    }
    if (ces_sim_sort_late(m, ends, n, 2 * sizeof(uint64_t), ces_cmp_u64) != CES_OK) {
        rc = SIM_LATE;
        goto out;
    }
    /* segment i = [xs[i], xs[i+1]); pw/pr count the segments before i
     * where a write / a read conflicts */
    pw[0] = pr[0] = 0;
    for (size_t i = 0; i + 1 < nx; i++) {
        if ((i & 63) == 63 && tick(m, 64)) {
            rc = SIM_LATE;
            goto out;
        }
        for (; e < n && ends[2 * e] == xs[i]; e++) {
            const struct dacc *d = &a[ends[2 * e + 1]];

            nact -= --cnt[d->proc] == 0;
            nwr -= d->write;
        }
        for (; s < n && a[s].lo == xs[i]; s++) {
            nact += cnt[a[s].proc]++ == 0;
            nwr += a[s].write;
        }
        pw[i + 1] = pw[i] + (nact >= 2);
        pr[i + 1] = pr[i] + (nact >= 2 && nwr >= 1);
    }
    for (; e < n; e++) /* leave cnt zeroed for the next map */
        cnt[a[ends[2 * e + 1]].proc]--;
    for (size_t i = 0; i < n; i++) {
        size_t i0 = find_u64(xs, nx, a[i].lo), i1 = find_u64(xs, nx, a[i].hi);
        const uint32_t *c = a[i].write ? pw : pr;

        if ((i & 63) == 63 && tick(m, 64)) {
            rc = SIM_LATE;
            goto out;
        }
        if (c[i1] != c[i0] && m->clock_end[a[i].proc] <= a[i].pos)
            m->clock_end[a[i].proc] = a[i].pos + 1;
    }
out: /* (late: cnt is left as it is, the building given up) */
    zfree(m, xs, 6 * n + 1, sizeof(uint64_t));
    return rc;
}

/* The accesses data_ends pushed for an op of one process last, in a table
 * by the op's address: v[at, at + n).  Its entries a power of two, the
 * unrolled ops' number or the next above it, DACC_SEEN (128 KiB) at most,
 * so that a small schedule's is small (its memory counts). */
#define DACC_SEEN 4096u

struct dacc_seen {
    const struct ces_op *op;
    size_t at;
    uint32_t n, proc;
};

/* data_end: one past a process's last data access; clock_end: past its
 * last one that can conflict with another process's (same bytes of one
 * map, one of the two a write), its accesses read no clock: the history
 * of the bytes they touch holds no other process's access, now or later
 * (docs/SEMANTICS.md, section 10, "What nothing will read").  One sweep
 * per map.  The replays of one op (a graph block's, or the eager blocks
 * that share one array of ops) access the same bytes again: map_conflicts
 * counts a process's equal accesses as one and takes its latest, so an
 * op whose accesses the table `seen` still holds moves them to its
 * position instead of pushing them again. */
static int data_ends(struct sim_model *m)
{
    struct ces_vec v = {0};
    struct dacc_seen *seen;
    uint32_t *cnt = NULL, nseen = 1;
    uint64_t ops = 0;
    int rc = CES_OK;

    for (uint32_t p = 0; p < m->nproc; p++)
        ops += m->stop[p];
    while (nseen < ops && nseen < DACC_SEEN)
        nseen *= 2;
    begin(m, "finding the data ends", ops);
    m->data_end = zalloc(m, m->nproc, sizeof(uint32_t));
    m->clock_end = zalloc(m, m->nproc, sizeof(uint32_t));
    if (m->data_end == NULL || m->clock_end == NULL)
        return nomem(m->ctx);
    seen = zalloc(m, nseen, sizeof(*seen));
    if (seen == NULL)
        return nomem(m->ctx);
    for (uint32_t p = 0; p < m->nproc && rc == CES_OK; p++) {
        for (uint32_t k = 0; k < m->stop[p] && rc == CES_OK; k++) {
            const struct ces_op *op = m->ops[p][k].op;
            struct dacc_seen *e = &seen[((uintptr_t)op / sizeof(*op)) & (nseen - 1)];

            if (late(m)) {
                rc = SIM_LATE;
                break;
            }
            if (op->kind != CES_OP_COPY && op->kind != CES_OP_PRODUCE &&
                op->kind != CES_OP_CONSUME)
                continue;
            m->data_end[p] = k + 1;
            if (e->op == op && e->proc == p) {
                for (size_t i = e->at; i < e->at + e->n; i++)
                    CES_VEC_AT(&v, struct dacc, i).pos = k;
                continue;
            }
            *e = (struct dacc_seen){op, v.len, 0, p};
            if (op->kind == CES_OP_COPY) {
                rc = push_dacc(m, &v, &op->a, p, k, 0);
                if (rc == CES_OK)
                    rc = push_dacc(m, &v, &op->b, p, k, 1);
            } else {
                rc = push_dacc(m, &v, &op->a, p, k, op->kind == CES_OP_PRODUCE);
            }
            e->n = (uint32_t)(v.len - e->at);
        }
    }
    zfree(m, seen, nseen, sizeof(*seen));
    if (rc == CES_OK && v.len > 0) {
        cnt = zalloc(m, m->nproc, sizeof(uint32_t));
        if (cnt == NULL)
            rc = nomem(m->ctx);
        if (rc == CES_OK) {
            begin(m, "sorting the data accesses", 0);
            rc = ces_sim_sort_late(m, v.data, v.len, sizeof(struct dacc), cmp_dacc_lo);
        }
        begin(m, "sweeping the data accesses", v.len);
        for (size_t i = 0, j; i < v.len && rc == CES_OK; i = j) {
            const struct dacc *a = &CES_VEC_AT(&v, struct dacc, i);

            for (j = i + 1; j < v.len && CES_VEC_AT(&v, struct dacc, j).map == a->map; j++)
                ;
            rc = map_conflicts(m, a, j - i, cnt);
            m->step_done += j - i;
        }
    }
    zfree(m, cnt, m->nproc, sizeof(uint32_t));
    vfree(m, &v, sizeof(struct dacc));
    return rc;
}

/* The list of runs that sweep_runs last kept for the bytes [lo, hi) of
 * map `map` - 1 (rank * nbuf + buffer; 0: an empty entry), in a table by
 * those: `prods` produces of the buffer were swept before it was read,
 * `rel` whether a run of it is relative (SIM_RUN_REL), `n` its runs and
 * `hash` their hash (read_runs), `list` its number (where they are kept).
 * Its entries a power of two, a quarter of the expecting consumes' number
 * or the next above it (the replays of one consume take one), RUNS_SEEN
 * (56 KiB) at most. */
#define RUNS_SEEN 1024u

struct runs_seen {
    uint64_t lo, hi, prods, n, hash;
    uint32_t map, list;
    bool rel;
};

/* The entries of sweep_runs's table for the produces and consumes ev. */
static uint32_t runs_seen_size(const struct ces_vec *ev)
{
    uint64_t cons = 0;
    uint32_t nseen = 1;

    for (size_t i = 0; i < ev->len; i++)
        cons += CES_VEC_AT(ev, struct prodcons, i).consume;
    while (nseen < cons / 4 && nseen < RUNS_SEEN)
        nseen *= 2;
    return nseen;
}

/* Whether runs[start, len) are list `list`'s runs (at: where each list
 * begins; the last one's ends at start). */
static bool same_runs(const struct ces_vec *runs, const struct ces_vec *at, uint32_t list,
                      size_t start)
{
    const uint32_t *a = at->data;
    size_t lo = a[list], hi = list + 1 < at->len ? a[list + 1] : start;

    return hi - lo == runs->len - start &&
           memcmp(&CES_VEC_AT(runs, struct sim_run, lo), &CES_VEC_AT(runs, struct sim_run, start),
                  (hi - lo) * sizeof(struct sim_run)) == 0;
}

static int runs_refused(struct sim_model *m, uint64_t kept, uint32_t most)
{
    return ces_ctx_error(m->ctx, CES_ERR_LIMIT,
                         "the consumes with '==' keep %" PRIu64 " runs of generations (a run: "
                         "bytes of one buffer produced in one iteration) in their lists of the "
                         "runs they expect once graph replays are unrolled; the checker takes at "
                         "most %" PRIu32, kept, most);
}

/* Expected generations of every `consume A == B@q` (ev: the produces and
 * consumes, sorted by cmp_prodcons): per byte of B, the latest iteration
 * <= the consume's at which a produce covered it (0 = the initial
 * contents).  One sweep per buffer in iteration order, the generations
 * produced so far kept as runs.  A consume whose runs are those of the
 * list last kept for the same bytes (its generations from its block on
 * relative to its iteration, read_runs) shares that list: unread where
 * no produce of the buffer came between them and none of them is
 * relative (the replays of a consume of data produced before its graph
 * phase), else read and compared (a replay of one that expects the data
 * of a produce of its own replay).  The lists kept into runs (where each
 * begins into at, the consume's list into its aux) and their runs'
 * number into *kept, the sweep stopped once that passes `most`; where runs
 * is NULL, the same sweep keeping none, judging the runs read equal to
 * the list's by their number and hash (only counting: *kept is the runs
 * the lists would hold, fewer only where two lists' hashes collide, which
 * the sweep that keeps them then refuses). */
static int sweep_runs(struct sim_model *m, const struct ces_vec *ev, struct runs_seen *seen,
                      uint32_t nseen, struct ces_vec *runs, struct ces_vec *at, uint32_t most,
                      uint64_t *kept)
{
    struct ces_vec live = {0};
    uint64_t n, prods = 0, h, hash;
    uint32_t map;
    bool hit, rel;
    int rc = CES_OK;

    *kept = 0;
    for (size_t i = 0; i < ev->len && rc == CES_OK; i++) {
        const struct prodcons *e = &CES_VEC_AT(ev, struct prodcons, i);
        const struct ces_op *op = e->o->op;
        size_t start = runs != NULL ? runs->len : 0;
        struct runs_seen *t;

        if (late(m)) {
            rc = SIM_LATE;
            break;
        }
        if (i > 0 && (e[-1].rank != e->rank || e[-1].buf != e->buf)) {
            live.len = 0;
            prods = 0;
        }
        if (!e->consume) {
            if (op->a.lo < op->a.hi)
                rc = assign_runs(m, &live, op->a.lo, op->a.hi, e->iter);
            prods++;
            continue;
        }
        map = e->rank * m->nbuf + e->buf + 1;
        h = (op->b.lo * UINT64_C(0x9e3779b97f4a7c15)) ^ (op->b.hi * UINT64_C(0xc2b2ae3d27d4eb4f)) ^
            (map * UINT64_C(0x165667b19e3779f9));
        t = &seen[(h >> 32) & (nseen - 1)];
        hit = t->map == map && t->lo == op->b.lo && t->hi == op->b.hi;
        if (hit && t->prods == prods && !t->rel) { /* the same runs, unread */
            if (runs != NULL)
                e->o->aux = t->list;
            continue;
        }
        rc = read_runs(m, &live, op->b.lo, op->b.hi, ces_graph_block(m->g, e->o->block).first_iter,
                       e->iter, runs, &n, &rel, &hash);
        if (rc == CES_OK && hit && t->n == n && t->hash == hash &&
            (runs == NULL || same_runs(runs, at, t->list, start))) {
            if (runs != NULL) {
                runs->len = start;
                e->o->aux = t->list;
            }
            t->prods = prods;
            continue;
        }
        if (rc != CES_OK)
            break;
        *kept += n;
        if (runs != NULL && *kept > most)
            break; /* (refused: runs_swept) */
        *t = (struct runs_seen){op->b.lo, op->b.hi, prods, n, hash, map,
                                runs != NULL ? (uint32_t)at->len : 0, rel};
        if (runs != NULL) {
            /* (a list at most per consume with '==', empty ones too: no
             * more than the 2^32 - 2 that counts_check lets through) */
            e->o->aux = (uint32_t)at->len;
            rc = vpush(m, at, sizeof(uint32_t), &(uint32_t){(uint32_t)start}, 1);
        }
    }
    vfree(m, &live, sizeof(struct sim_run));
    return rc;
}

/* The produces and consumes with '==' of m's unrolled ops into ev, sorted
 * by cmp_prodcons (building steps of their own). */
static int find_prodcons(struct sim_model *m, struct ces_vec *ev)
{
    int rc = CES_OK;

    begin(m, "finding the expected data", m->nunrolled);
    for (uint32_t p = 0; p < m->nproc && rc == CES_OK; p++) {
        for (uint32_t k = 0; k < m->len[p] && rc == CES_OK; k++) {
            struct sim_op *o = &m->ops[p][k];
            struct prodcons e = {o->op->a.rank, o->op->a.buf, 0, 0, (uint32_t)ev->len, o};

            if (late(m)) {
                rc = SIM_LATE;
                break;
            }
            if (o->op->kind == CES_OP_CONSUME && (o->op->flags & CES_OPF_EXPECT)) {
                e.rank = o->op->b.rank;
                e.buf = o->op->b.buf;
                e.consume = 1;
            } else if (o->op->kind != CES_OP_PRODUCE) {
                continue;
            }
            e.iter = ces_sim_op_iter(m, p, k);
            rc = vpush(m, ev, sizeof(e), &e, 1);
        }
    }
    if (rc == CES_OK) {
        begin(m, "sorting the expected data", 0);
        rc = ces_sim_sort_late(m, ev->data, ev->len, sizeof(struct prodcons), cmp_prodcons);
    }
    return rc;
}

/* The sweep of sweep_runs over ev (the produces and consumes, sorted), a
 * building step of its own: where runs is NULL, the count before any run
 * is kept ("counting the expected data"), refused where *kept passes
 * `most`; else the runs kept into runs and at, refused as soon as they
 * pass it.  CES_ERR_LIMIT, SIM_LATE or CES_ERR_NOMEM. */
static int runs_swept(struct sim_model *m, const struct ces_vec *ev, struct ces_vec *runs,
                      struct ces_vec *at, uint32_t most, uint64_t *kept)
{
    uint32_t nseen = runs_seen_size(ev);
    struct runs_seen *seen = zalloc(m, nseen, sizeof(*seen));
    int rc;

    *kept = 0;
    if (seen == NULL)
        return m->timed_out ? SIM_LATE : CES_ERR_NOMEM;
    begin(m, runs == NULL ? "counting the expected data" : "reading the expected data",
          ev->len);
    rc = sweep_runs(m, ev, seen, nseen, runs, at, most, kept);
    zfree(m, seen, nseen, sizeof(*seen));
    if (rc == CES_OK && *kept > most)
        rc = runs_refused(m, *kept, most);
    return rc;
}

/* (internal.h) */
int ces_sim_runs_check(struct sim_model *m, uint32_t most, bool keep, uint64_t *kept)
{
    struct ces_vec ev = {0}, runs = {0}, at = {0};
    int rc = find_prodcons(m, &ev);

    *kept = 0;
    if (rc == CES_OK)
        rc = runs_swept(m, &ev, keep ? &runs : NULL, keep ? &at : NULL, most, kept);
    vfree(m, &runs, sizeof(struct sim_run));
    vfree(m, &at, sizeof(uint32_t));
    vfree(m, &ev, sizeof(struct prodcons));
    return rc == CES_ERR_NOMEM ? nomem(m->ctx) : rc;
}

/* The runs that every `consume A == B@q` expects (sweep_runs), in lists
 * shared where they are equal: m->runs, m->exp_at, each consume's list in
 * its aux.  Refused where the runs kept would pass 2^32 - 2 (their 32-bit
 * offsets in m->exp_at), judged before any is kept: a bound first, a
 * consume reading 4k + 1 runs at most after k produces of its buffer
 * (each adds 2 runs at most), and where that passes, the count of
 * runs_swept (fewer than those kept only where hashes collide, which the
 * sweep that keeps them refuses). */
static int expected_runs(struct sim_model *m)
{
    const uint32_t lim = UINT32_MAX - 1;
    struct ces_vec ev = {0}, runs = {0}, at = {0};
    uint64_t bound = 0, prod = 0, cons = 0, kept;
    int rc = find_prodcons(m, &ev);

    for (size_t i = 0; i < ev.len && rc == CES_OK; i++) {
        const struct prodcons *e = &CES_VEC_AT(&ev, struct prodcons, i);

        if (i > 0 && (e[-1].rank != e->rank || e[-1].buf != e->buf)) {
            bound = sat_add64(bound, sat_mul64(cons, 4 * prod + 1));
            prod = cons = 0;
        }
        prod += !e->consume;
        cons += e->consume;
    }
    bound = sat_add64(bound, sat_mul64(cons, 4 * prod + 1));
    if (rc == CES_OK && bound > lim)
        rc = runs_swept(m, &ev, NULL, NULL, lim, &kept);
    if (rc == CES_OK)
        rc = runs_swept(m, &ev, &runs, &at, lim, &kept);
    if (rc == CES_OK && at.len > 0) /* (where the last list ends) */
        rc = vpush(m, &at, sizeof(uint32_t), &(uint32_t){(uint32_t)runs.len}, 1);
    if (rc == CES_OK) { /* (held already, as they grew) */
        m->runs = runs.data;
        m->nruns = runs.len;
        runs.data = NULL;
        m->exp_at = at.data;
        at.data = NULL;
    } else if (rc == CES_ERR_NOMEM && !m->over) {
        rc = nomem(m->ctx);
    }
    vfree(m, &ev, sizeof(struct prodcons));
    if (rc != CES_OK) {
        vfree(m, &runs, sizeof(struct sim_run));
        vfree(m, &at, sizeof(uint32_t));
    }
    return rc;
}

/* The faults, checked against the graph (ces_sim_fault_check; delays and
 * whole-rank stops already turned into drops and stops of streams). */
static void apply_faults(struct sim_model *m, const struct ces_check_opts *opts)
{
    for (size_t i = 0; i < opts->nfaults; i++) {
        const struct ces_fault *f = &opts->faults[i];
        uint32_t p = f->rank * m->streams + f->stream;

        if (f->kind == CES_FAULT_DROP)
            m->ops[p][f->index].dropped = 1;
        else if (f->index < m->stop[p])
            m->stop[p] = f->index;
    }
}

/* Each process's hardware queue: rank r's stream s < queued on queue
 * map[r * queued + s] when a map is given, else on s mod the graph's
 * connections (when they are fewer than the streams; docs/SEMANTICS.md
 * section 2); the streams from `queued` on (delayed writes') on queues of
 * their own.  Then each queue's processes, in stream order. */
static void map_queues(struct sim_model *m, const uint32_t *map, uint32_t queued)
{
    uint32_t conn = ces_graph_connections(m->g), at = 0;

    if (conn == 0 || conn > queued)
        conn = queued;
    for (uint32_t p = 0; p < m->nproc; p++) {
        uint32_t r = p / m->streams, s = p % m->streams, q = s;

        if (s < queued)
            q = map != NULL ? map[r * queued + s] : s % conn;
        m->queue[p] = r * m->nq + q;
    }
    m->shared_queues = false;
    for (uint32_t q = 0; q < m->ranks * m->nq; q++) {
        uint32_t r = q / m->nq, first = at;

        m->qproc_at[q] = at;
        for (uint32_t s = 0; s < m->streams; s++)
            if (m->queue[r * m->streams + s] == q)
                m->qproc[at++] = r * m->streams + s;
        m->shared_queues |= at - first > 1;
    }
    m->qproc_at[m->ranks * m->nq] = at;
}

int ces_sim_blocks_check(struct ces_ctx *ctx, const struct ces_graph *g)
{
    if (ces_graph_nblocks(g) > (UINT32_C(1) << SIM_BLOCK_BITS))
        return ces_ctx_error(ctx, CES_ERR_LIMIT,
                             "the schedule has %" PRIu32 " blocks; the checker takes at most %"
                             PRIu32, ces_graph_nblocks(g), UINT32_C(1) << SIM_BLOCK_BITS);
    return CES_OK;
}

int ces_sim_model_build(struct ces_ctx *ctx, const struct ces_graph *g,
                        const struct ces_check_opts *opts, uint32_t queued,
                        struct sim_model **out, size_t *held)
{
    struct sim_model *m;
    uint32_t nsig;
    int rc;

    *out = NULL;
    if (held != NULL)
        *held = 0;
    m = ces_malloc(ctx, sizeof(*m));
    if (m == NULL)
        return nomem(ctx);
    memset(m, 0, sizeof(*m));
    m->ctx = ctx;
    m->g = g;
    hold(m, sizeof(*m));
    m->limit = opts->max_memory;
    m->t0 = ces_now();
    /* (what spent_seconds left of the bound; none left: at the first look) */
    m->deadline = opts->max_seconds > 0 ? m->t0 + opts->max_seconds - opts->spent_seconds : 0;
    m->progress = opts->build_progress;
    m->progress_ud = opts->progress_ud;
    m->every = ces_sim_progress_every(opts);
    m->next_progress = m->t0 + m->every;
    begin(m, "allocating the tables", 0);
    m->ranks = ces_graph_ranks(g);
    m->streams = ces_graph_streams(g);
    m->nproc = m->ranks * m->streams;
    m->nbuf = ces_graph_nbuffers(g);
    m->nmaps = m->ranks * m->nbuf;
    m->abort_mode = (opts->flags & CES_CHECK_ABORT) != 0;
    nsig = ces_graph_nsignals(g);
    m->nq = m->streams;
    rc = ces_sim_blocks_check(ctx, g);
    if (rc != CES_OK)
        goto fail;
    m->ops = zalloc(m, m->nproc, sizeof(struct sim_op *));
    m->qidx = zalloc(m, m->nproc, sizeof(uint32_t *));
    m->len = zalloc(m, m->nproc, sizeof(uint32_t));
    m->stop = zalloc(m, m->nproc, sizeof(uint32_t));
    m->queue = zalloc(m, m->nproc, sizeof(uint32_t));
    m->qproc_at = zalloc(m, (size_t)m->ranks * m->nq + 1, sizeof(uint32_t));
    m->qproc = zalloc(m, m->nproc, sizeof(uint32_t));
    m->qseq = zalloc(m, (size_t)m->ranks * m->nq, sizeof(uint32_t *));
    m->qlen = zalloc(m, (size_t)m->ranks * m->nq, sizeof(uint32_t));
    m->sig_base = zalloc(m, nsig, sizeof(uint32_t));
    m->buf_size = zalloc(m, m->nbuf, sizeof(uint64_t));
    if (m->ops == NULL || m->qidx == NULL || m->len == NULL || m->stop == NULL ||
        m->queue == NULL || m->qproc_at == NULL || m->qproc == NULL || m->qseq == NULL ||
        m->qlen == NULL || m->sig_base == NULL || m->buf_size == NULL) {
        rc = nomem(ctx);
        goto fail;
    }
    for (uint32_t b = 0; b < m->nbuf; b++)
        m->buf_size[b] = ces_graph_buffer(g, b).size;
    {
        /* Global slot ids are 32-bit (UINT32_MAX is SIM_NONE): count in 64. */
        uint64_t n = 0;

        for (uint32_t s = 0; s < nsig; s++) {
            m->sig_base[s] = (uint32_t)n;
            n += (uint64_t)ces_graph_signal(g, s).slots * m->ranks;
            if (n >= UINT32_MAX) {
                rc = ces_ctx_error(ctx, CES_ERR_LIMIT,
                                   "the signals have %" PRIu64 " slots or more over all ranks; "
                                   "the checker takes at most %" PRIu32,
                                   n, UINT32_MAX - 1);
                goto fail;
            }
        }
        m->nslots = (uint32_t)n;
    }
    /* The slots set the size of a state (values and a vector clock each) and
     * of the model's slot tables: refuse a bound they cannot fit in before
     * allocating either. */
    m->reserve = state_bytes(m, fixed_words(m), 0);
    if (!fits(m, sat_mul(m->nslots, 4 * sizeof(uint32_t) + sizeof(struct ces_slot)))) {
        rc = CES_ERR_NOMEM;
        goto fail;
    }
    m->slot_width = zalloc(m, m->nslots, sizeof(uint32_t));
    m->slot_name = zalloc(m, m->nslots, sizeof(struct ces_slot));
    if (m->slot_width == NULL || m->slot_name == NULL) {
        rc = nomem(ctx);
        goto fail;
    }
    for (uint32_t s = 0; s < nsig; s++) {
        struct ces_signal_info si = ces_graph_signal(g, s);

        for (uint32_t r = 0; r < m->ranks; r++) {
            for (uint32_t i = 0; i < si.slots; i++) {
                uint32_t x = m->sig_base[s] + r * si.slots + i;

                m->slot_width[x] = si.width;
                m->slot_name[x].sig = s;
                m->slot_name[x].rank = r;
                m->slot_name[x].idx = i;
            }
        }
    }
    map_queues(m, opts->queue_map, queued);
    m->linked = (opts->flags & CES_CHECK_UNLINKED) ? 0 : queued;
    rc = unroll(m);
    if (rc != CES_OK)
        goto fail;
    for (uint32_t p = 0; p < m->nproc; p++)
        m->stop[p] = m->len[p];
    apply_faults(m, opts);
    rc = walk_enqueue(m);
    if (rc == CES_OK)
        rc = link_units(m);
    if (rc != CES_OK)
        goto fail;
    rc = number_records(m);
    if (rc != CES_OK)
        goto fail;
    m->reserve = state_bytes(m, fixed_words(m), m->nrec);
    rc = index_slots(m);
    if (rc != CES_OK)
        goto fail;
    rc = expected_runs(m);
    if (rc != CES_OK)
        goto fail;
    rc = data_ends(m);
    if (rc != CES_OK)
        goto fail;
    m->seg_w = SEG_READS + m->nproc;
    m->w_pc = 1;
    m->w_hsum = m->w_pc + m->nproc;
    m->w_val = m->w_hsum + 4;
    m->w_pclk = m->w_val + 2 * (size_t)m->nslots;
    m->w_sclk = m->w_pclk + (size_t)m->nproc * m->nproc;
    m->w_fixed = m->w_sclk + (size_t)m->nslots * m->nproc;
    assert(m->w_fixed == fixed_words(m));
    rclk_layout(m, m->nrec, &m->rpage, &m->rdir, &m->nrdir);
    m->rzero = zalloc(m, m->nproc, sizeof(uint32_t));
    m->rheld = zalloc(m, 1, sizeof(size_t));
    if (m->rzero == NULL || m->rheld == NULL) {
        rc = nomem(ctx);
        goto fail;
    }
    m->limit = 0; /* built: the search keeps the bounds and the progress from here */
    m->deadline = 0;
    m->progress = NULL;
    *out = m;
    return CES_OK;
fail:
    if (m->timed_out) {
        char before[64] = "";

        if (held != NULL)
            *held = m->peak;
        if (opts->spent_seconds > 0)
            snprintf(before, sizeof(before), " (%g s of it spent before the check)",
                     opts->spent_seconds);
        rc = ces_ctx_error(ctx, SIM_LATE,
                           "time bound %g s reached before the search%s: the checker's model "
                           "(%" PRIu32 " stream%s, %" PRIu64 " op%s unrolled) was not built by "
                           "then", opts->max_seconds, before, m->nproc, ces_plural(m->nproc),
                           m->nunrolled, ces_plural(m->nunrolled));
    } else if (m->over && !m->nomem && rc == CES_ERR_NOMEM) {
        /* the bound refused, not malloc: a refusal ends the building at
         * the tables asked for with it (every caller of zalloc, halloc
         * and vreserve, through which the building allocates all it
         * holds, checks them before going on); among those tables,
         * m->nomem tells a malloc that failed */
        char bound[24], need[24], one[24], state[48] = "", ops[48] = "";
        uint64_t slots = 0;

        /* from the graph: a bound that refused the first tables left
         * m->nslots uncounted (0) */
        for (uint32_t s = 0; s < nsig; s++)
            slots += (uint64_t)ces_graph_signal(g, s).slots * m->ranks;
        ces_sim_fmt_bytes(bound, sizeof(bound), m->limit);
        ces_sim_fmt_bytes(need, sizeof(need), m->need);
        if (m->reserve > 0) { /* (0: refused before the slots were counted) */
            ces_sim_fmt_bytes(one, sizeof(one), m->reserve);
            snprintf(state, sizeof(state), " and each state %s", one);
        }
        if (m->nunrolled > 0) /* (counted once the slots fit) */
            snprintf(ops, sizeof(ops), ", %" PRIu64 " op%s unrolled", m->nunrolled,
                     ces_plural(m->nunrolled));
        if (held != NULL)
            *held = m->peak;
        rc = ces_ctx_error(ctx, SIM_BOUND,
                           "memory bound %s reached before the search: the checker's model "
                           "(%" PRIu32 " stream%s, %" PRIu64 " signal slot%s%s) needs more "
                           "than %s%s",
                           bound, m->nproc, ces_plural(m->nproc), slots, ces_plural(slots), ops,
                           need, state);
    }
    ces_sim_model_destroy(m);
    return rc;
}
