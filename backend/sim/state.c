/*
 * backend/sim/state.c - the checker's state value and its step function.
 *
 * A state is a plain value: fixed words (flags, program counters, slot
 * values, the vector clock of every slot's last write and of every
 * process), the record clocks (of every awaited record instance and every
 * link's snapshot: pages that copies share until one of them writes) and
 * one interval map per (rank, buffer) whose segments carry the bytes'
 * provenance (rank, buffer, offset, generation) and their access history
 * (last writer epoch, read epochs per process).  Everything that can
 * influence a future verdict is in it, so two equal states have equal
 * futures; it is copied (the record clocks' pages shared), hashed and
 * compared as words.  Races are found by happens-before over these clocks (see
 * docs/SEMANTICS.md), so the verdict does not depend on the order in which
 * independent steps were interleaved.
 */
#include "internal.h"

#include <assert.h>
#include <string.h>

static uint64_t rd64(const uint32_t *w)
{
    return (uint64_t)w[0] | ((uint64_t)w[1] << 32);
}

static void wr64(uint32_t *w, uint64_t v)
{
    w[0] = (uint32_t)v;
    w[1] = (uint32_t)(v >> 32);
}

static uint64_t slot_val(const struct sim_model *m, const struct sim_state *s, uint32_t x)
{
    return rd64(s->w + m->w_val + 2 * (size_t)x);
}

static int map_reserve(const struct sim_model *m, struct sim_map *mp, uint32_t n)
{
    if (n > mp->cap) {
        uint32_t cap = mp->cap < 4 ? 4 : mp->cap;
        uint32_t *seg;

        while (cap < n)
            cap *= 2;
        seg = ces_realloc(m->ctx, mp->seg, (size_t)cap * m->seg_w * sizeof(uint32_t));
        if (seg == NULL)
            return CES_ERR_NOMEM;
        mp->seg = seg;
        mp->cap = cap;
    }
    return CES_OK;
}

/* --- record clocks ------------------------------------------------------- */

static size_t rpage_bytes(const struct sim_model *m)
{
    return sizeof(struct sim_rpage) + (size_t)m->rpage * m->nproc * sizeof(uint32_t);
}

static size_t rdir_bytes(const struct sim_model *m)
{
    return sizeof(struct sim_rdir) + (size_t)m->rdir * sizeof(struct sim_rpage *);
}

static void rpage_drop(const struct sim_model *m, struct sim_rpage *pg)
{
    if (pg != NULL && --pg->refs == 0) {
        *m->rheld -= rpage_bytes(m);
        ces_free(m->ctx, pg);
    }
}

static void rdir_drop(const struct sim_model *m, struct sim_rdir *d)
{
    if (d != NULL && --d->refs == 0) {
        for (uint32_t i = 0; i < m->rdir; i++)
            rpage_drop(m, d->page[i]);
        *m->rheld -= rdir_bytes(m);
        ces_free(m->ctx, d);
    }
}

uint32_t *ces_sim_rclk_own(const struct sim_model *m, struct sim_state *s, uint32_t x)
{
    uint32_t pg = x / m->rpage, di = pg / m->rdir, pi = pg % m->rdir;
    struct sim_rdir *d = s->rd[di];
    struct sim_rpage *page;

    if (d == NULL || d->refs > 1) {
        struct sim_rdir *c = ces_malloc(m->ctx, rdir_bytes(m));

        if (c == NULL)
            return NULL;
        c->refs = 1;
        for (uint32_t i = 0; i < m->rdir; i++) {
            c->page[i] = d != NULL ? d->page[i] : NULL;
            if (c->page[i] != NULL)
                c->page[i]->refs++;
        }
        *m->rheld += rdir_bytes(m);
        if (d != NULL)
            d->refs--; /* (another state still holds it) */
        s->rd[di] = d = c;
    }
    page = d->page[pi];
    if (page == NULL || page->refs > 1) {
        struct sim_rpage *c = ces_malloc(m->ctx, rpage_bytes(m));
        size_t words = (size_t)m->rpage * m->nproc;

        if (c == NULL)
            return NULL;
        c->refs = 1;
        if (page != NULL) {
            memcpy(c->w, page->w, words * sizeof(uint32_t));
            page->refs--;
        } else {
            memset(c->w, 0, words * sizeof(uint32_t));
        }
        *m->rheld += rpage_bytes(m);
        d->page[pi] = page = c;
    }
    return page->w + (size_t)(x % m->rpage) * m->nproc;
}

/* Every record clock 0: s holds no page. */
static void rclk_drop_all(const struct sim_model *m, struct sim_state *s)
{
    for (uint32_t i = 0; i < m->nrdir; i++) {
        rdir_drop(m, s->rd[i]);
        s->rd[i] = NULL;
    }
}

/* The fixed words, directory table and map headers of an empty s. */
static int state_alloc(const struct sim_model *m, struct sim_state *s)
{
    s->w = ces_malloc(m->ctx, m->w_fixed * sizeof(uint32_t));
    s->rd = m->nrdir ? ces_malloc(m->ctx, m->nrdir * sizeof(struct sim_rdir *)) : NULL;
    s->maps = ces_malloc(m->ctx, (m->nmaps ? m->nmaps : 1) * sizeof(struct sim_map));
    if (s->w == NULL || (s->rd == NULL && m->nrdir > 0) || s->maps == NULL) {
        ces_free(m->ctx, s->w);
        ces_free(m->ctx, s->rd);
        ces_free(m->ctx, s->maps);
        s->w = NULL;
        s->rd = NULL;
        s->maps = NULL;
        return CES_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < m->nrdir; i++)
        s->rd[i] = NULL;
    memset(s->maps, 0, (m->nmaps ? m->nmaps : 1) * sizeof(struct sim_map));
    return CES_OK;
}

/* The words ces_sim_state_init clears between two readings of the clock:
 * 1 MiB, a millisecond or so where its pages are touched the first time. */
#define INIT_WORDS_PER_LOOK ((size_t)1 << 18)

int ces_sim_state_init(const struct sim_model *m, struct sim_state *s)
{
    return ces_sim_state_init_by(m, s, 0);
}

int ces_sim_state_init_by(const struct sim_model *m, struct sim_state *s, double deadline)
{
    memset(s, 0, sizeof(*s));
    if (state_alloc(m, s) != CES_OK)
        return CES_ERR_NOMEM;
    for (size_t at = 0; at < m->w_fixed; at += INIT_WORDS_PER_LOOK) {
        size_t n = m->w_fixed - at < INIT_WORDS_PER_LOOK ? m->w_fixed - at : INIT_WORDS_PER_LOOK;

        if (deadline > 0 && ces_now() >= deadline) {
            ces_sim_state_free(m, s);
            return SIM_LATE;
        }
        memset(s->w + at, 0, n * sizeof(uint32_t));
    }
    for (uint32_t i = 0; i < m->nmaps; i++) {
        uint32_t rank = i / m->nbuf, buf = i % m->nbuf;
        uint32_t *sg;

        if (m->buf_size[buf] == 0)
            continue;
        if (deadline > 0 && (i & 1023) == 0 && ces_now() >= deadline) {
            ces_sim_state_free(m, s);
            return SIM_LATE;
        }
        if (map_reserve(m, &s->maps[i], 4) != CES_OK) {
            ces_sim_state_free(m, s);
            return CES_ERR_NOMEM;
        }
        sg = s->maps[i].seg;
        memset(sg, 0, m->seg_w * sizeof(uint32_t));
        wr64(sg + SEG_LO, 0);
        wr64(sg + SEG_HI, m->buf_size[buf]);
        sg[SEG_PRANK] = rank;
        sg[SEG_PBUF] = buf;
        s->maps[i].n = 1;
        s->maps[i].dirty = true;
    }
    return CES_OK;
}

void ces_sim_state_free(const struct sim_model *m, struct sim_state *s)
{
    if (s->maps != NULL) {
        for (uint32_t i = 0; i < m->nmaps; i++)
            ces_free(m->ctx, s->maps[i].seg);
    }
    if (s->rd != NULL)
        rclk_drop_all(m, s);
    ces_free(m->ctx, s->maps);
    ces_free(m->ctx, s->rd);
    ces_free(m->ctx, s->w);
    s->maps = NULL;
    s->rd = NULL;
    s->w = NULL;
}

int ces_sim_state_copy(const struct sim_model *m, struct sim_state *dst,
                       const struct sim_state *src)
{
    if (dst->w == NULL && state_alloc(m, dst) != CES_OK)
        return CES_ERR_NOMEM;
    memcpy(dst->w, src->w, m->w_fixed * sizeof(uint32_t));
    for (uint32_t i = 0; i < m->nrdir; i++) {
        if (dst->rd[i] == src->rd[i])
            continue;
        rdir_drop(m, dst->rd[i]);
        dst->rd[i] = src->rd[i];
        if (dst->rd[i] != NULL)
            dst->rd[i]->refs++;
    }
    for (uint32_t i = 0; i < m->nmaps; i++) {
        if (map_reserve(m, &dst->maps[i], src->maps[i].n) != CES_OK)
            return CES_ERR_NOMEM;
        if (src->maps[i].n > 0)
            memcpy(dst->maps[i].seg, src->maps[i].seg,
                   (size_t)src->maps[i].n * m->seg_w * sizeof(uint32_t));
        dst->maps[i].n = src->maps[i].n;
        dst->maps[i].h[0] = src->maps[i].h[0];
        dst->maps[i].h[1] = src->maps[i].h[1];
        dst->maps[i].dirty = src->maps[i].dirty;
    }
    return CES_OK;
}

size_t ces_sim_state_bytes(const struct sim_model *m, const struct sim_state *s)
{
    size_t b = m->w_fixed * sizeof(uint32_t) + m->nmaps * sizeof(struct sim_map) +
               m->nrdir * sizeof(struct sim_rdir *);

    for (uint32_t i = 0; i < m->nmaps; i++)
        b += (size_t)s->maps[i].cap * m->seg_w * sizeof(uint32_t);
    return b;
}

/* Two independent 64-bit hashes over the words (a 128-bit fingerprint). */
static void mix(uint64_t h[2], const uint32_t *w, size_t n)
{
    uint64_t a = h[0], b = h[1];
    size_t i = 0;

    for (; i + 2 <= n; i += 2) {
        uint64_t x = (uint64_t)w[i] | ((uint64_t)w[i + 1] << 32);

        a = (a ^ x) * UINT64_C(0x9E3779B97F4A7C15);
        a ^= a >> 32;
        b = (b + x) * UINT64_C(0xC2B2AE3D27D4EB4F);
        b ^= b >> 29;
    }
    if (i < n) {
        a = (a ^ w[i]) * UINT64_C(0x9E3779B97F4A7C15);
        b = (b + w[i]) * UINT64_C(0xC2B2AE3D27D4EB4F);
    }
    h[0] = a;
    h[1] = b;
}

static uint64_t fmix(uint64_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    k *= UINT64_C(0xc4ceb9fe1a85ec53);
    k ^= k >> 33;
    return k;
}

/* The words from the slot values on (values, process, record and slot
 * clocks: the bulk of a state) change a few at a time: they enter the hash
 * through two sums, kept in the state, of a mixed term per nonzero word
 * (its index and value).  The sums are a function of those words, so the
 * fingerprint is still a function of the state. */
static uint64_t term(uint64_t i, uint32_t v, uint64_t key)
{
    return v == 0 ? 0 : fmix(((i << 32) | v) ^ key);
}

#define SUM_KEY0 UINT64_C(0x452821E638D01377)
#define SUM_KEY1 UINT64_C(0xBE5466CF34E90C6C)

/* Stores src[0, n) at c[0, n), the words of s that the hash takes at
 * [i, i + n) (from w_val on), keeping the sums in step; src NULL: zeros. */
static void words_put(const struct sim_model *m, struct sim_state *s, size_t i, uint32_t *c,
                      const uint32_t *src, size_t n)
{
    uint32_t *hs = s->w + m->w_hsum;
    uint64_t h0, h1;

    if (!m->hashed) { /* random and replay modes never hash */
        if (src != NULL)
            memcpy(c, src, n * sizeof(uint32_t));
        else
            memset(c, 0, n * sizeof(uint32_t));
        return;
    }
    h0 = rd64(hs);
    h1 = rd64(hs + 2);
    for (size_t j = 0; j < n; j++) {
        uint32_t v = src != NULL ? src[j] : 0;

        if (c[j] != v) {
            h0 += term(i + j, v, SUM_KEY0) - term(i + j, c[j], SUM_KEY0);
            h1 += term(i + j, v, SUM_KEY1) - term(i + j, c[j], SUM_KEY1);
            c[j] = v;
        }
    }
    wr64(hs, h0);
    wr64(hs + 2, h1);
}

/* Stores src[0, n) at fixed words [i, i + n) (from w_val on); src NULL:
 * zeros. */
static void words_set(const struct sim_model *m, struct sim_state *s, size_t i,
                      const uint32_t *src, size_t n)
{
    words_put(m, s, i, s->w + i, src, n);
}

/* Stores src as record clock x, its page made s's own where it changes
 * (CES_ERR_NOMEM where memory ran out). */
static int rclk_set(const struct sim_model *m, struct sim_state *s, uint32_t x,
                    const uint32_t *src)
{
    uint32_t *w;

    if (memcmp(ces_sim_rclk(m, s, x), src, m->nproc * sizeof(uint32_t)) == 0)
        return CES_OK;
    w = ces_sim_rclk_own(m, s, x);
    if (w == NULL)
        return CES_ERR_NOMEM;
    words_put(m, s, m->w_fixed + (size_t)x * m->nproc, w, src, m->nproc);
    return CES_OK;
}

static void value_set(const struct sim_model *m, struct sim_state *s, uint32_t x, uint64_t v)
{
    uint32_t w[2] = {(uint32_t)v, (uint32_t)(v >> 32)};

    words_set(m, s, m->w_val + 2 * (size_t)x, w, 2);
}

void ces_sim_state_hash_full(const struct sim_model *m, const struct sim_state *s,
                             uint64_t h[2])
{
    uint64_t h0 = 0, h1 = 0;
    uint32_t *pre = ces_malloc(m->ctx, m->w_val * sizeof(uint32_t));

    h[0] = UINT64_C(0x243F6A8885A308D3);
    h[1] = UINT64_C(0x13198A2E03707344);
    if (pre == NULL) {
        h[0] = h[1] = 0;
        return;
    }
    for (size_t i = m->w_val; i < m->w_fixed; i++) {
        h0 += term(i, s->w[i], SUM_KEY0);
        h1 += term(i, s->w[i], SUM_KEY1);
    }
    for (uint32_t x = 0; x < m->nrec; x++) {
        const uint32_t *c = ces_sim_rclk(m, s, x);
        size_t i = m->w_fixed + (size_t)x * m->nproc;

        for (uint32_t j = 0; j < m->nproc; j++) {
            h0 += term(i + j, c[j], SUM_KEY0);
            h1 += term(i + j, c[j], SUM_KEY1);
        }
    }
    memcpy(pre, s->w, m->w_val * sizeof(uint32_t));
    wr64(pre + m->w_hsum, h0);
    wr64(pre + m->w_hsum + 2, h1);
    mix(h, pre, m->w_val);
    ces_free(m->ctx, pre);
    for (uint32_t i = 0; i < m->nmaps; i++) {
        const struct sim_map *mp = &s->maps[i];
        uint64_t mh[2] = {0, 0};
        uint32_t hw[4];

        if (mp->n > 0) {
            uint32_t n = mp->n;

            mh[0] = UINT64_C(0xA4093822299F31D0);
            mh[1] = UINT64_C(0x082EFA98EC4E6C89);
            mix(mh, &n, 1);
            mix(mh, mp->seg, (size_t)n * m->seg_w);
        }
        wr64(hw, mh[0]);
        wr64(hw + 2, mh[1]);
        mix(h, hw, 4);
    }
    h[0] = fmix(h[0]);
    h[1] = fmix(h[1] ^ h[0]);
}

void ces_sim_state_hash(const struct sim_model *m, struct sim_state *s, uint64_t h[2])
{
    h[0] = UINT64_C(0x243F6A8885A308D3);
    h[1] = UINT64_C(0x13198A2E03707344);
    mix(h, s->w, m->w_val); /* flags, program counters and the sums of the rest */
    for (uint32_t i = 0; i < m->nmaps; i++) {
        struct sim_map *mp = &s->maps[i];
        uint32_t hw[4];

        if (mp->dirty) {
            uint32_t n = mp->n;

            mp->h[0] = UINT64_C(0xA4093822299F31D0);
            mp->h[1] = UINT64_C(0x082EFA98EC4E6C89);
            mix(mp->h, &n, 1);
            mix(mp->h, mp->seg, (size_t)n * m->seg_w);
            mp->dirty = false;
        }
        wr64(hw, mp->h[0]);
        wr64(hw + 2, mp->h[1]);
        mix(h, hw, 4);
    }
    h[0] = fmix(h[0]);
    h[1] = fmix(h[1] ^ h[0]);
}

/* --- what nothing will read ---------------------------------------------- */

/* Clocks are read only where a data access compares them with the access
 * history of its bytes, and that holds another process's access only
 * where the two conflict by the model's clock_end; a slot's value and
 * clock are read only by waits on it: once no such access, or no wait on
 * the slot, is left, they can become 0 and the state has the same future
 * verdicts (docs/SEMANTICS.md, section 10, "What nothing will read"). */

bool ces_sim_clocks_dead(const struct sim_model *m, const uint32_t *pc)
{
    for (uint32_t p = 0; p < m->nproc; p++)
        if (pc[p] < m->clock_end[p])
            return false;
    return true;
}

bool ces_sim_data_left(const struct sim_model *m, const uint32_t *pc)
{
    for (uint32_t p = 0; p < m->nproc; p++)
        if (pc[p] < m->data_end[p])
            return true;
    return false;
}

bool ces_sim_slot_live(const struct sim_model *m, const uint32_t *pc, uint32_t x)
{
    for (uint32_t t = m->tg_off[x]; t < m->tg_off[x + 1]; t++) {
        const struct sim_group *g = &m->tg[t];

        if (pc[g->proc] <= m->wt[g->hi - 1].pos)
            return true;
    }
    return false;
}

/* Every clock 0: the record clocks' pages let go, their words taken out
 * of the sums. */
static void clocks_clear(const struct sim_model *m, struct sim_state *s)
{
    words_set(m, s, m->w_pclk, NULL, m->w_fixed - m->w_pclk);
    for (uint32_t i = 0; i < m->nrdir && m->hashed; i++) {
        for (uint32_t j = 0; s->rd[i] != NULL && j < m->rdir; j++) {
            const struct sim_rpage *page = s->rd[i]->page[j];
            size_t x = ((size_t)i * m->rdir + j) * m->rpage;
            uint32_t *hs = s->w + m->w_hsum;
            uint64_t h0 = rd64(hs), h1 = rd64(hs + 2);

            for (size_t k = 0; page != NULL && k < (size_t)m->rpage * m->nproc; k++) {
                h0 -= term(m->w_fixed + x * m->nproc + k, page->w[k], SUM_KEY0);
                h1 -= term(m->w_fixed + x * m->nproc + k, page->w[k], SUM_KEY1);
            }
            wr64(hs, h0);
            wr64(hs + 2, h1);
        }
    }
    rclk_drop_all(m, s);
}

/* Forgets slot x, which no wait is left on: its value, and its clock
 * unless every clock is 0 already. */
static void slot_clear(const struct sim_model *m, struct sim_state *s, uint32_t x, bool dead)
{
    value_set(m, s, x, 0);
    if (!dead)
        words_set(m, s, m->w_sclk + (size_t)x * m->nproc, NULL, m->nproc);
}

void ces_sim_state_canon(const struct sim_model *m, struct sim_state *s)
{
    const uint32_t *pc = SIM_PC(m, s);
    bool dead = ces_sim_clocks_dead(m, pc);

    if (dead)
        clocks_clear(m, s);
    for (uint32_t x = 0; x < m->nslots; x++)
        if (!ces_sim_slot_live(m, pc, x))
            slot_clear(m, s, x, dead);
}

/* Whether every clock is dead once process p has run its op at k
 * (ces_sim_clocks_dead at the program counters after the step). */
static bool dead_after(const struct sim_model *m, const uint32_t *pc, uint32_t p, uint32_t k)
{
    for (uint32_t q = 0; q < m->nproc; q++)
        if ((q == p ? k + 1 : pc[q]) < m->clock_end[q])
            return false;
    return true;
}

/* Keeps a canonical state canonical (ces_sim_state_canon) after process p
 * ran op o at position k, `dead` where every clock is dead after it,
 * touching only what the step can have changed: every clock where the step
 * ended the last conflicting data access, else, with every clock dead
 * already, the clocks the step set (its own and the slot clock it stored:
 * ces_sim_exec stores no record or link clock then); and its slot where it
 * was a write to a slot no wait is left on or the last wait on it. */
static void settle(const struct sim_model *m, struct sim_state *s, uint32_t p, uint32_t k,
                   const struct sim_op *o, bool dead)
{
    const uint32_t *pc = SIM_PC(m, s);

    if (dead && k < m->clock_end[p]) {
        clocks_clear(m, s);
    } else if (dead) {
        words_set(m, s, m->w_pclk + (size_t)p * m->nproc, NULL, m->nproc);
        if (o->cls == SIM_C_WRITE)
            words_set(m, s, m->w_sclk + (size_t)o->slot * m->nproc, NULL, m->nproc);
    }
    if ((o->cls == SIM_C_WRITE || o->cls == SIM_C_WAIT) && !ces_sim_slot_live(m, pc, o->slot))
        slot_clear(m, s, o->slot, dead);
}

/* --- status ------------------------------------------------------------- */

static bool queue_ready(const struct sim_model *m, const struct sim_state *s, uint32_t p,
                        uint32_t k)
{
    if (!m->shared_queues)
        return true;
    return ces_sim_qidx(m, p, k) == ces_sim_queue_done(m, SIM_PC(m, s), m->queue[p]);
}

/* The status of process p's next op (neither done nor stopped) as if it
 * stood at the head of its hardware queue (and, without `links`, as if its
 * block or replay boundary were passed). */
static int own_status(const struct sim_model *m, const struct sim_state *s, uint32_t p,
                      bool links)
{
    const uint32_t *pc = SIM_PC(m, s);
    const struct sim_op *o = &m->ops[p][pc[p]];
    bool aborted = (SIM_FLAGS(s) & SIM_F_ABORTED) != 0;

    if (links && o->nlink > 0 && !aborted && ces_sim_link_open(m, pc, o) != NULL)
        return SIM_S_LINK;
    switch (o->cls) {
    case SIM_C_WRITE:
        if (aborted || o->dropped)
            return SIM_S_INVISIBLE;
        return SIM_S_VISIBLE;
    case SIM_C_WAIT:
        if (aborted)
            return SIM_S_INVISIBLE;
        if (ces_wait_holds(m->slot_width[o->slot], o->op->cmp, slot_val(m, s, o->slot),
                           o->op->value))
            return SIM_S_VISIBLE;
        return SIM_S_WAIT;
    case SIM_C_AWAIT:
        if (aborted || pc[m->awrec[o->rec].proc] > m->awrec[o->rec].pos)
            return SIM_S_INVISIBLE;
        return SIM_S_AWAIT;
    default:
        return SIM_S_INVISIBLE;
    }
}

int ces_sim_status(const struct sim_model *m, const struct sim_state *s, uint32_t p)
{
    uint32_t k = SIM_PC(m, s)[p];

    if (k >= m->len[p])
        return SIM_S_DONE;
    if (k >= m->stop[p])
        return SIM_S_STOPPED;
    if (!queue_ready(m, s, p, k))
        return SIM_S_QUEUE;
    return own_status(m, s, p, true);
}

/* --- interval maps ------------------------------------------------------- */

/* Index of the segment containing byte x (x < size). */
static uint32_t seg_find(const struct sim_model *m, const struct sim_map *mp, uint64_t x)
{
    uint32_t lo = 0, hi = mp->n;

    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;

        if (rd64(mp->seg + (size_t)mid * m->seg_w + SEG_LO) <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Makes x a segment boundary (0 < x < size); returns the index of the
 * segment that starts at x. */
static int seg_split(const struct sim_model *m, struct sim_map *mp, uint64_t x, uint32_t *idx)
{
    uint32_t i = seg_find(m, mp, x);
    uint32_t *a;
    uint64_t lo;

    a = mp->seg + (size_t)i * m->seg_w;
    lo = rd64(a + SEG_LO);
    if (lo == x) {
        *idx = i;
        return CES_OK;
    }
    if (map_reserve(m, mp, mp->n + 1) != CES_OK)
        return CES_ERR_NOMEM;
    a = mp->seg + (size_t)i * m->seg_w;
    memmove(a + m->seg_w, a, (size_t)(mp->n - i) * m->seg_w * sizeof(uint32_t));
    mp->n++;
    /* a = [lo, x), a + seg_w = [x, hi) with the provenance offset advanced */
    wr64(a + SEG_HI, x);
    wr64(a + m->seg_w + SEG_LO, x);
    wr64(a + m->seg_w + SEG_POFF, rd64(a + SEG_POFF) + (x - lo));
    *idx = i + 1;
    return CES_OK;
}

/* Splits so that [lo, hi) is exactly segments [*first, *last). */
static int seg_range(const struct sim_model *m, struct sim_map *mp, uint64_t lo, uint64_t hi,
                     uint32_t *first, uint32_t *last)
{
    int rc = CES_OK;

    if (lo > 0)
        rc = seg_split(m, mp, lo, first);
    else
        *first = 0;
    if (rc == CES_OK) {
        uint64_t size = rd64(mp->seg + (size_t)(mp->n - 1) * m->seg_w + SEG_HI);

        if (hi < size) {
            rc = seg_split(m, mp, hi, last);
            if (rc == CES_OK && lo > 0)
                rc = seg_split(m, mp, lo, first); /* index may have moved: find again */
        } else {
            *last = mp->n;
        }
    }
    return rc;
}

/* Merges equal neighbours around [first-1, last] so a map has one canonical
 * segmentation for one content. */
static void seg_merge(const struct sim_model *m, struct sim_map *mp, uint32_t first,
                      uint32_t last)
{
    uint32_t i = first > 0 ? first - 1 : 0;
    uint32_t end = last < mp->n ? last : mp->n - 1;

    while (i < end && i + 1 < mp->n) {
        uint32_t *a = mp->seg + (size_t)i * m->seg_w, *b = a + m->seg_w;
        uint64_t alo = rd64(a + SEG_LO), ahi = rd64(a + SEG_HI);

        if (a[SEG_PRANK] == b[SEG_PRANK] && a[SEG_PBUF] == b[SEG_PBUF] &&
            rd64(a + SEG_POFF) + (ahi - alo) == rd64(b + SEG_POFF) &&
            rd64(a + SEG_GEN) == rd64(b + SEG_GEN) &&
            memcmp(a + SEG_WPROC, b + SEG_WPROC, (m->seg_w - SEG_WPROC) * sizeof(uint32_t)) == 0) {
            wr64(a + SEG_HI, rd64(b + SEG_HI));
            memmove(b, b + m->seg_w, (size_t)(mp->n - i - 2) * m->seg_w * sizeof(uint32_t));
            mp->n--;
            end--;
        } else {
            i++;
        }
    }
}

bool ces_sim_history_races(const struct sim_model *m, const struct sim_state *s, uint32_t p,
                           const struct ces_region *reg, bool write,
                           bool (*keep)(void *ud, uint32_t q, uint32_t e), void *ud)
{
    const struct sim_map *mp = &s->maps[reg->rank * m->nbuf + reg->buf];
    const uint32_t *clk = SIM_PCLK(m, s, p);

    if (reg->lo == reg->hi)
        return false;
    for (uint32_t i = seg_find(m, mp, reg->lo);
         i < mp->n && rd64(mp->seg + (size_t)i * m->seg_w + SEG_LO) < reg->hi; i++) {
        const uint32_t *a = mp->seg + (size_t)i * m->seg_w;
        uint32_t wp = a[SEG_WPROC];

        if (wp != 0 && wp - 1 != p && clk[wp - 1] < a[SEG_WEP] &&
            (keep == NULL || keep(ud, wp - 1, a[SEG_WEP])))
            return true;
        for (uint32_t q = 0; write && q < m->nproc; q++)
            if (q != p && a[SEG_READS + q] != 0 && clk[q] < a[SEG_READS + q] &&
                (keep == NULL || keep(ud, q, a[SEG_READS + q])))
                return true;
    }
    return false;
}

static void race_found(const struct sim_model *m, struct sim_state *s, struct sim_detail *d,
                       uint32_t p, uint32_t k, bool write, const struct ces_region *reg,
                       uint32_t q, uint32_t qpos, bool qwrite, uint64_t lo, uint64_t hi)
{
    SIM_FLAGS(s) |= SIM_F_RACE;
    if (d == NULL || !d->want_race || d->have_race)
        return;
    d->have_race = true;
    ces_sim_pos(m, q, qpos, &d->race[0].pos);
    d->race[0].write = qwrite;
    d->race[0].region = *reg;
    d->race[0].region.lo = lo;
    d->race[0].region.hi = hi;
    ces_sim_pos(m, p, k, &d->race[1].pos);
    d->race[1].write = write;
    d->race[1].region = d->race[0].region;
    d->race[1].step = d->step;
    d->race_other_proc = q;
    d->race_other_pos = qpos;
}

/* Checks an access of segments [first, last) against their history and
 * records it. */
static void access(const struct sim_model *m, struct sim_state *s, struct sim_map *mp,
                   uint32_t first, uint32_t last, uint32_t p, uint32_t k, bool write,
                   const struct ces_region *reg, struct sim_detail *d)
{
    const uint32_t *clk = SIM_PCLK(m, s, p);
    bool check = !(SIM_FLAGS(s) & SIM_F_ABORTED);

    for (uint32_t i = first; i < last; i++) {
        uint32_t *a = mp->seg + (size_t)i * m->seg_w;

        if (check) {
            uint32_t wp = a[SEG_WPROC];

            if (wp != 0 && wp - 1 != p && clk[wp - 1] < a[SEG_WEP])
                race_found(m, s, d, p, k, write, reg, wp - 1, a[SEG_WEP] - 1, true,
                           rd64(a + SEG_LO), rd64(a + SEG_HI));
            if (write) {
                for (uint32_t q = 0; q < m->nproc; q++) {
                    uint32_t e = a[SEG_READS + q];

                    if (q != p && e != 0 && clk[q] < e)
                        race_found(m, s, d, p, k, write, reg, q, e - 1, false,
                                   rd64(a + SEG_LO), rd64(a + SEG_HI));
                }
            }
        }
        if (write) {
            a[SEG_WPROC] = p + 1;
            a[SEG_WEP] = k + 1;
            memset(a + SEG_READS, 0, m->nproc * sizeof(uint32_t));
        } else {
            a[SEG_READS + p] = k + 1;
        }
    }
}

/* The map of a region, marked dirty: every step reaches a map through
 * here, and reads change the access history too. */
static struct sim_map *map_of(const struct sim_model *m, struct sim_state *s,
                              const struct ces_region *r)
{
    struct sim_map *mp = &s->maps[r->rank * m->nbuf + r->buf];

    mp->dirty = true;
    return mp;
}

/* Makes the bytes of `reg` exactly segments [*f, *l) of their map and
 * checks and records an access of them by op k of process p. */
static int touch(const struct sim_model *m, struct sim_state *s, const struct ces_region *reg,
                 uint32_t p, uint32_t k, bool write, struct sim_detail *d, struct sim_map **mp,
                 uint32_t *f, uint32_t *l)
{
    int rc;

    *mp = map_of(m, s, reg);
    rc = seg_range(m, *mp, reg->lo, reg->hi, f, l);
    if (rc == CES_OK)
        access(m, s, *mp, *f, *l, p, k, write, reg, d);
    return rc;
}

/* Provenance runs read by a copy, kept on the stack for small copies. */
struct prun {
    uint64_t lo, hi; /* offsets relative to the copy's start */
    uint32_t rank, buf;
    uint64_t off, gen;
};

static int exec_copy(const struct sim_model *m, struct sim_state *s, uint32_t p, uint32_t k,
                     const struct ces_op *op, struct sim_detail *d)
{
    struct sim_map *src, *dst;
    uint32_t f, l;
    struct prun local[16], *runs = local;
    uint32_t nr;
    int rc;

    if (op->a.lo == op->a.hi)
        return CES_OK;
    rc = touch(m, s, &op->a, p, k, false, d, &src, &f, &l);
    if (rc != CES_OK)
        return rc;
    nr = l - f;
    if (nr > 16) {
        runs = ces_malloc(m->ctx, nr * sizeof(*runs));
        if (runs == NULL)
            return CES_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < nr; i++) {
        const uint32_t *a = src->seg + (size_t)(f + i) * m->seg_w;

        runs[i].lo = rd64(a + SEG_LO) - op->a.lo;
        runs[i].hi = rd64(a + SEG_HI) - op->a.lo;
        runs[i].rank = a[SEG_PRANK];
        runs[i].buf = a[SEG_PBUF];
        runs[i].off = rd64(a + SEG_POFF);
        runs[i].gen = rd64(a + SEG_GEN);
    }
    seg_merge(m, src, f, l);
    rc = touch(m, s, &op->b, p, k, true, d, &dst, &f, &l);
    if (rc == CES_OK) {
        /* Replace [f, l) by the runs: resize the hole then fill it. */
        if (nr != l - f) {
            uint32_t n = dst->n;

            if (nr > l - f)
                rc = map_reserve(m, dst, n + nr - (l - f));
            if (rc == CES_OK) {
                memmove(dst->seg + (size_t)(f + nr) * m->seg_w, dst->seg + (size_t)l * m->seg_w,
                        (size_t)(n - l) * m->seg_w * sizeof(uint32_t));
                dst->n = n + nr - (l - f);
            }
        }
        if (rc == CES_OK) {
            for (uint32_t i = 0; i < nr; i++) {
                uint32_t *a = dst->seg + (size_t)(f + i) * m->seg_w;

                memset(a, 0, m->seg_w * sizeof(uint32_t));
                wr64(a + SEG_LO, op->b.lo + runs[i].lo);
                wr64(a + SEG_HI, op->b.lo + runs[i].hi);
                a[SEG_PRANK] = runs[i].rank;
                a[SEG_PBUF] = runs[i].buf;
                wr64(a + SEG_POFF, runs[i].off);
                wr64(a + SEG_GEN, runs[i].gen);
                a[SEG_WPROC] = p + 1;
                a[SEG_WEP] = k + 1;
            }
            seg_merge(m, dst, f, f + nr);
        }
    }
    if (runs != local)
        ces_free(m->ctx, runs);
    return rc;
}

static int exec_produce(const struct sim_model *m, struct sim_state *s, uint32_t p, uint32_t k,
                        const struct sim_op *o, struct sim_detail *d)
{
    const struct ces_op *op = o->op;
    uint64_t iter = ces_sim_op_iter(m, p, k);
    struct sim_map *mp;
    uint32_t f, l;
    int rc;

    if (op->a.lo == op->a.hi)
        return CES_OK;
    rc = touch(m, s, &op->a, p, k, true, d, &mp, &f, &l);
    if (rc != CES_OK)
        return rc;
    for (uint32_t i = f; i < l; i++) {
        uint32_t *a = mp->seg + (size_t)i * m->seg_w;

        a[SEG_PRANK] = op->a.rank;
        a[SEG_PBUF] = op->a.buf;
        wr64(a + SEG_POFF, rd64(a + SEG_LO));
        wr64(a + SEG_GEN, iter);
    }
    seg_merge(m, mp, f, l);
    return CES_OK;
}

static int exec_consume(const struct sim_model *m, struct sim_state *s, uint32_t p, uint32_t k,
                        const struct sim_op *o, struct sim_detail *d)
{
    const struct ces_op *op = o->op;
    struct sim_map *mp;
    uint32_t f, l;
    int rc;

    if (op->a.lo == op->a.hi)
        return CES_OK;
    rc = touch(m, s, &op->a, p, k, false, d, &mp, &f, &l);
    if (rc != CES_OK)
        return rc;
    if ((op->flags & CES_OPF_EXPECT) && !(SIM_FLAGS(s) & SIM_F_ABORTED)) {
        /* Walk found segments and expected runs together (the consume's
         * iteration found once a run relative to it is). */
        uint32_t i = f, j = m->exp_at[o->aux];
        uint64_t x = op->a.lo, iter = 0;

        while (x < op->a.hi && i < l && j < m->exp_at[o->aux + 1]) {
            const uint32_t *a = mp->seg + (size_t)i * m->seg_w;
            const struct sim_run *rn = &m->runs[j];
            uint64_t shi = rd64(a + SEG_HI);
            uint64_t rhi = rn->hi - op->b.lo + op->a.lo;
            uint64_t hi = shi < rhi ? shi : rhi;
            uint64_t foff = rd64(a + SEG_POFF) + (x - rd64(a + SEG_LO));
            uint64_t eoff = op->b.lo + (x - op->a.lo), gen;

            if ((rn->gen & SIM_RUN_REL) && iter == 0)
                iter = ces_sim_op_iter(m, p, k);
            gen = ces_sim_run_gen(rn, iter);
            if (a[SEG_PRANK] != op->b.rank || a[SEG_PBUF] != op->b.buf || foff != eoff ||
                rd64(a + SEG_GEN) != gen) {
                SIM_FLAGS(s) |= SIM_F_MISMATCH;
                if (d != NULL && d->want_mismatch && !d->have_mismatch) {
                    d->have_mismatch = true;
                    ces_sim_pos(m, p, k, &d->mismatch.pos);
                    d->mismatch.region = op->a;
                    d->mismatch.region.lo = x;
                    d->mismatch.region.hi = hi;
                    d->mismatch.expected.rank = op->b.rank;
                    d->mismatch.expected.buf = op->b.buf;
                    d->mismatch.expected.off = eoff;
                    d->mismatch.expected.gen = gen;
                    d->mismatch.found.rank = a[SEG_PRANK];
                    d->mismatch.found.buf = a[SEG_PBUF];
                    d->mismatch.found.off = foff;
                    d->mismatch.found.gen = rd64(a + SEG_GEN);
                }
                break;
            }
            x = hi;
            if (x >= shi)
                i++;
            if (x >= rhi)
                j++;
        }
    }
    seg_merge(m, mp, f, l);
    return CES_OK;
}

/* Joins clock src into process p's. */
static void join(const struct sim_model *m, struct sim_state *s, uint32_t p, const uint32_t *src)
{
    size_t at = m->w_pclk + (size_t)p * m->nproc;

    for (uint32_t i = 0; i < m->nproc; i++)
        if (src[i] > s->w[at + i])
            words_set(m, s, at + i, src + i, 1);
}

int ces_sim_exec(const struct sim_model *m, struct sim_state *s, uint32_t p,
                 struct sim_detail *d)
{
    uint32_t *pc = SIM_PC(m, s);
    uint32_t k = pc[p];
    const struct sim_op *o = &m->ops[p][k];
    const struct sim_link *rec;
    const uint32_t *clk = SIM_PCLK(m, s, p);
    const uint32_t tick = k + 1;
    bool aborted = (SIM_FLAGS(s) & SIM_F_ABORTED) != 0;
    /* a hashed state whose clocks are dead after the step keeps none: the
     * record and link clocks it would store stay 0 */
    bool dead = m->hashed && dead_after(m, pc, p, k);
    int rc = CES_OK;

    assert(k < m->stop[p]);
    if (d != NULL) {
        d->kind = CES_STEP_OP;
        d->released = 0;
        d->has_value = 0;
        d->value = 0;
    }
    words_set(m, s, m->w_pclk + (size_t)p * m->nproc + p, &tick, 1);
    /* the rank's earlier (block, replay)s happen before (as the fork and
     * join events of the backend order them) */
    for (uint32_t i = 0; i < o->nlink; i++) {
        const struct sim_link *l = &m->links[o->link + i];

        if (pc[l->proc] > l->pos)
            join(m, s, p, ces_sim_rclk(m, s, ces_sim_link_rclk(m, l)));
        else if (d != NULL) { /* the watchdog released it at the boundary */
            d->kind = CES_STEP_ABORTED;
            d->released = 1;
        }
    }
    switch (o->op->kind) {
    case CES_OP_COPY:
        rc = exec_copy(m, s, p, k, o->op, d);
        break;
    case CES_OP_PRODUCE:
        rc = exec_produce(m, s, p, k, o, d);
        break;
    case CES_OP_CONSUME:
        rc = exec_consume(m, s, p, k, o, d);
        break;
    case CES_OP_RECORD:
        if (o->aux != SIM_NONE && !dead)
            rc = rclk_set(m, s, o->aux, clk);
        break;
    case CES_OP_AWAIT:
        if (o->cls != SIM_C_AWAIT) /* no record of its event enqueued before it */
            break;
        rec = ces_sim_await_rec(m, o);
        if (pc[rec->proc] > rec->pos)
            join(m, s, p, ces_sim_rclk(m, s, m->ops[rec->proc][rec->pos].aux));
        else if (d != NULL) {
            d->kind = CES_STEP_ABORTED;
            d->released = 1;
        }
        break;
    case CES_OP_WRITE:
        if (d != NULL) {
            d->has_value = 1;
            d->value = o->op->value;
            if (o->dropped)
                d->kind = CES_STEP_DROPPED;
        }
        if (o->dropped)
            break;
        value_set(m, s, o->slot, o->op->value);
        words_set(m, s, m->w_sclk + (size_t)o->slot * m->nproc, clk, m->nproc);
        break;
    case CES_OP_WAIT: {
        uint64_t v = slot_val(m, s, o->slot);
        bool ok = ces_wait_holds(m->slot_width[o->slot], o->op->cmp, v, o->op->value);

        if (d != NULL) {
            d->has_value = 1;
            d->value = v;
            if (!ok) {
                d->kind = CES_STEP_ABORTED;
                d->released = 1;
            }
        }
        /* The write whose value the wait observed, and everything before it
         * on its stream, happens before the wait (writes are fenced). */
        if (ok)
            join(m, s, p, SIM_SCLK(m, s, o->slot));
        else
            assert(aborted);
        break;
    }
    default:
        break;
    }
    (void)aborted;
    if (o->snap != SIM_NONE && !dead && rc == CES_OK)
        rc = rclk_set(m, s, o->snap, clk);
    pc[p] = k + 1;
    if (m->hashed)
        settle(m, s, p, k, o, dead);
    return rc;
}

/* --- end states ----------------------------------------------------------- */

static int push_edge(const struct sim_model *m, struct sim_blocked_out *out, uint32_t proc,
                     uint32_t pos, uint64_t value, uint32_t to)
{
    struct ces_check_edge e;

    ces_sim_pos(m, proc, pos, &e.pos);
    e.value = value;
    e.to = to;
    return ces_vec_push(m->ctx, &out->edges, sizeof(e), &e);
}

int ces_sim_end_class(const struct sim_model *m, const struct sim_state *s, uint32_t *cls,
                      struct sim_blocked_out *out)
{
    const uint32_t *pc = SIM_PC(m, s);
    uint32_t P = m->nproc;
    uint32_t stack_local[128], node_local[64];
    uint8_t color_local[64];
    uint32_t *succ = NULL, *succ_off = NULL, *node = node_local, *stk = stack_local;
    uint8_t *color = color_local;
    uint32_t nblocked = 0;
    int rc = CES_OK;
    bool cycle = false;

    *cls = 0;
    if (P > 64) {
        node = ces_malloc(m->ctx, P * sizeof(uint32_t));
        stk = ces_malloc(m->ctx, 2 * P * sizeof(uint32_t));
        color = ces_malloc(m->ctx, P);
        if (node == NULL || stk == NULL || color == NULL) {
            rc = CES_ERR_NOMEM;
            goto done;
        }
    }
    for (uint32_t p = 0; p < P; p++) {
        int st = ces_sim_status(m, s, p);

        node[p] = SIM_NONE;
        if (st != SIM_S_DONE) {
            assert(st != SIM_S_VISIBLE && st != SIM_S_INVISIBLE);
            node[p] = nblocked++;
        }
    }
    if (nblocked == 0)
        goto done;
    /* Successor lists (by process) of the wait-for graph. */
    succ_off = ces_malloc(m->ctx, (P + 1) * sizeof(uint32_t));
    if (succ_off == NULL) {
        rc = CES_ERR_NOMEM;
        goto done;
    }
    {
        struct ces_vec sv = {0};

        for (uint32_t p = 0; p < P && rc == CES_OK; p++) {
            int st = ces_sim_status(m, s, p), own = st;
            const struct sim_op *o = pc[p] < m->len[p] ? &m->ops[p][pc[p]] : NULL;
            size_t e0 = out != NULL ? out->edges.len : 0;

            succ_off[p] = (uint32_t)sv.len;
            if (node[p] == SIM_NONE)
                continue;
            if (st == SIM_S_QUEUE) {
                uint32_t q = m->queue[p];
                uint32_t h = ces_sim_queue_proc(m, q, ces_sim_queue_done(m, pc, q));

                rc = ces_vec_push(m->ctx, &sv, sizeof(uint32_t), &h);
                if (rc == CES_OK && out != NULL)
                    rc = push_edge(m, out, h, pc[h], 0, node[h]);
                /* its own op may be blocked too: it waits for both */
                own = own_status(m, s, p, true);
            }
            if (own == SIM_S_LINK) {
                for (uint32_t i = 0; i < o->nlink && rc == CES_OK; i++) {
                    const struct sim_link *l = &m->links[o->link + i];

                    if (pc[l->proc] > l->pos)
                        continue;
                    rc = ces_vec_push(m->ctx, &sv, sizeof(uint32_t), &l->proc);
                    if (rc == CES_OK && out != NULL)
                        rc = push_edge(m, out, l->proc, l->pos, 0, node[l->proc]);
                }
                /* past the boundary its op may be blocked as well */
                own = own_status(m, s, p, false);
            }
            if (own == SIM_S_WAIT) {
                for (uint32_t i = m->wr_off[o->slot]; i < m->wr_off[o->slot + 1] && rc == CES_OK;
                     i++) {
                    const struct sim_access *w = &m->wr[i];

                    if (w->pos >= pc[w->proc] && w->pos < m->stop[w->proc] &&
                        ces_wait_holds(m->slot_width[o->slot], o->op->cmp, w->value,
                                       o->op->value)) {
                        rc = ces_vec_push(m->ctx, &sv, sizeof(uint32_t), &w->proc);
                        if (rc == CES_OK && out != NULL)
                            rc = push_edge(m, out, w->proc, w->pos, w->value, node[w->proc]);
                    }
                }
            } else if (own == SIM_S_AWAIT && rc == CES_OK) {
                const struct sim_link *rec = ces_sim_await_rec(m, o);

                rc = ces_vec_push(m->ctx, &sv, sizeof(uint32_t), &rec->proc);
                if (rc == CES_OK && out != NULL)
                    rc = push_edge(m, out, rec->proc, rec->pos, 0, node[rec->proc]);
            }
            if (rc == CES_OK && out != NULL) {
                struct ces_check_blocked b;

                memset(&b, 0, sizeof(b));
                ces_sim_pos(m, p, pc[p], &b.pos);
                b.reason = st == SIM_S_WAIT    ? CES_BLOCK_WAIT
                           : st == SIM_S_AWAIT ? CES_BLOCK_AWAIT
                           : st == SIM_S_QUEUE ? CES_BLOCK_QUEUE
                           : st == SIM_S_LINK  ? CES_BLOCK_LINK
                                               : CES_BLOCK_STOPPED;
                if (own == SIM_S_WAIT) { /* its own wait, behind a queue head or a link too */
                    b.waits = 1;
                    b.slot = m->slot_name[o->slot];
                    b.held = slot_val(m, s, o->slot);
                    b.awaited = o->op->value;
                    b.cmp = o->op->cmp;
                }
                b.nedges = out->edges.len - e0;
                b.edges = (const void *)(uintptr_t)e0; /* an offset until the end */
                rc = ces_vec_push(m->ctx, &out->blocked, sizeof(b), &b);
            }
        }
        succ_off[P] = (uint32_t)sv.len;
        succ = sv.data;
        if (rc != CES_OK)
            goto done;
    }
    /* Cycle search: iterative DFS with colors (0 new, 1 on stack, 2 done). */
    memset(color, 0, P);
    for (uint32_t root = 0; root < P && !cycle; root++) {
        uint32_t sp = 0;

        if (node[root] == SIM_NONE || color[root] != 0)
            continue;
        stk[sp++] = root;
        stk[sp++] = succ_off[root];
        color[root] = 1;
        while (sp > 0 && !cycle) {
            uint32_t v = stk[sp - 2], i = stk[sp - 1];

            if (i < succ_off[v + 1]) {
                uint32_t w = succ[i];

                stk[sp - 1] = i + 1;
                if (color[w] == 1) {
                    cycle = true;
                    if (out != NULL) {
                        /* the cycle is the stack from w up to v */
                        uint32_t j = 0;

                        while (stk[j] != w)
                            j += 2;
                        for (; j < sp && rc == CES_OK; j += 2)
                            rc = ces_vec_push(m->ctx, &out->cycle, sizeof(uint32_t),
                                              &node[stk[j]]);
                    }
                } else if (color[w] == 0) {
                    color[w] = 1;
                    stk[sp++] = w;
                    stk[sp++] = succ_off[w];
                }
            } else {
                color[v] = 2;
                sp -= 2;
            }
        }
    }
    *cls = cycle ? CES_V_DEADLOCK : CES_V_HANG;
done:
    ces_free(m->ctx, succ);
    ces_free(m->ctx, succ_off);
    if (node != node_local)
        ces_free(m->ctx, node);
    if (stk != stack_local)
        ces_free(m->ctx, stk);
    if (color != color_local)
        ces_free(m->ctx, color);
    return rc;
}
