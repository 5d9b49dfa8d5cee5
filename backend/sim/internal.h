/*
 * backend/sim/internal.h - private declarations of the model checker: the
 * per-check model built from a graph (unrolled process programs, slots,
 * hardware queues, expected provenance), the state value (program counters,
 * slot values, vector clocks, byte-interval maps), the step function, the
 * search and the report builder.  See docs/SEMANTICS.md for the semantics.
 */
#ifndef CES_SIM_INTERNAL_H
#define CES_SIM_INTERNAL_H

#include "cesync.h"
#include "../../core/internal.h"

#include <stdbool.h>
#include <stdint.h>

#define SIM_NONE UINT32_MAX

/* The bits of an op's block (struct sim_op), all its word leaves: the
 * model takes at most 2^SIM_BLOCK_BITS blocks, room for the most a
 * schedule expands to (CES_EXPAND_MAX_BLOCKS) and the two blocks that each
 * of its delay faults adds (a delayed write's replay of a graph phase
 * becomes a block between two); a graph built through the API with more
 * is refused (CES_ERR_LIMIT). */
#define SIM_BLOCK_BITS 23

/* Step classes of an op. */
enum sim_class {
    SIM_C_LOCAL = 0, /* copy, produce, consume, batch, end, fence, flush, record */
    SIM_C_WRITE = 1,
    SIM_C_WAIT = 2,
    SIM_C_AWAIT = 3
};

/* One op instance of a process's unrolled program (24 bytes where a
 * pointer is 8: the model holds one per op of every replay).  Its global
 * iteration is its block's first plus its replay, which a graph block's
 * entry in m->greps gives (ces_sim_op_iter), its index in the block's list
 * of its rank that of `op` there (ces_sim_pos), its index in its rank's
 * hardware queue ces_sim_qidx's; a write's or wait's slot shares its word
 * with the others' aux and an await's rec (an await's record instance slot
 * is its record's aux). */
struct sim_op {
    const struct ces_op *op;
    uint32_t link;            /* the first op of its stream in a (block, replay): its
                                 entries in m->links (SIM_NONE: none) */
    uint32_t snap;            /* the last op of its stream before a later (block, replay)
                                 of its rank: the clock slot (as a record's) that keeps
                                 its clock for the links (SIM_NONE: none) */
    union {
        uint32_t slot;        /* write, wait: global slot id */
        uint32_t aux;         /* record: record instance slot (SIM_NONE: not
                                 awaited); consume ==: its list of expected runs in
                                 m->exp_at, m->runs[exp_at[aux], exp_at[aux + 1]),
                                 which consumes expecting the same share */
        uint32_t rec;         /* await: its entry in m->awrec, the record it refers to
                                 (ces_sim_await_rec) */
    };
    unsigned block : SIM_BLOCK_BITS; /* its block in the graph */
    unsigned nlink : 6;       /* entries at m->links[link] (fewer than CES_MAX_STREAMS) */
    unsigned cls : 2;         /* enum sim_class */
    unsigned dropped : 1;     /* write under a drop fault */
};

/* Where a process's ops of a graph block of more than one replay begin
 * (m->greps): replay j's n ops are those from start + j * n. */
struct sim_greps {
    uint32_t block, start, n;
};

/* A block or replay boundary of one rank, as the CUDA backend issues it
 * (streams forked from stream 0 before a block or replay and joined into
 * it after): an op of the rank's later (block, replay) runs only after op
 * `pos` of stream process `proc`, that stream's last op before it, whose
 * clock is kept in record clock slot ces_sim_link_rclk's (its op's snap).
 * An await's record (m->awrec) is one too: op `pos` of `proc`. */
struct sim_link {
    uint32_t proc, pos;
};

/* A landing write or a wait on one slot: op `pos` of `proc` (a wait's
 * compare beside it, in m->wt_cmp). */
struct sim_access {
    uint64_t value;
    uint32_t proc, pos;
};

/* The accesses of one slot by one process: wr or wt[lo, hi), by position.
 * `sorted`: writes whose values never decrease (u32: within a span below
 * 2^31, so that no wrap lies between them), which lets a search for a value
 * that a wait accepts look at the ends of a range only; `unit`: each write's
 * value is the previous one's plus one (not 0 after 2^64-1: the values lie
 * between the first and the last). */
struct sim_group {
    uint32_t proc, lo, hi;
    uint32_t sorted, unit;
};

/* The waits of one process on one slot (tg[grp]), and how the first of
 * them that cannot pass is found: SIM_WS_GEQ, all `>=` on a u64 slot with
 * values that never decrease, on a slot the process does not write whose
 * every writer's values never decrease either (bisection on the largest
 * reachable value); SIM_WS_EQ, all `==` one value (only its first can fail
 * first); SIM_WS_EQRUN, all `==` values that never decrease, on a slot the
 * process does not write, written by at most SIM_WS_RUNS processes each
 * counting by one (the values a writer can reach form one range, so the
 * waits that pass form at most that many runs, each crossed by bisection);
 * SIM_WS_WALK, wait by wait. */
enum sim_ws_kind { SIM_WS_WALK = 0, SIM_WS_GEQ, SIM_WS_EQ, SIM_WS_EQRUN };
#define SIM_WS_RUNS 4

struct sim_wslot {
    uint32_t slot, grp, kind;
};

/* Awaits of one process (aw[lo, hi), by position) of one event whose
 * records are on process rec_proc at positions that do not fall as the
 * awaits' rise (the latest record of the event enqueued before a later
 * await is no earlier), so that the first that cannot pass is found by
 * bisection (reach in search.c). */
struct sim_awgroup {
    uint32_t rec_proc, lo, hi;
};

/* A run of generations that a consume with '==' expects: bytes [lo, hi)
 * of the buffer it expects, last produced in iteration gen (0: the initial
 * contents), or, with SIM_RUN_REL set, in the consume's own iteration less
 * the rest, where a produce of the consume's own block made them
 * (ces_sim_run_gen): so the replays of a graph phase, and eager iterations
 * alike, that expect the same bytes from the same replay back expect the
 * same runs, and share one list of them. */
struct sim_run {
    uint64_t lo, hi, gen;
};

#define SIM_RUN_REL (UINT64_C(1) << 63)

/* The generation run rn expects of a consume of iteration iter. */
static inline uint64_t ces_sim_run_gen(const struct sim_run *rn, uint64_t iter)
{
    return (rn->gen & SIM_RUN_REL) ? iter - (rn->gen & ~SIM_RUN_REL) : rn->gen;
}

struct sim_model {
    struct ces_ctx *ctx;
    const struct ces_graph *g;
    uint32_t ranks, streams, nproc, nbuf, nmaps, nslots, nrec;
    uint32_t nq;         /* hardware queues per rank: one per stream at most */
    bool shared_queues;  /* some queue holds more than one stream */
    bool abort_mode;
    bool hashed;         /* states are hashed (exhaustive mode): keep the clock sums */
    struct sim_op **ops; /* [nproc] unrolled programs */
    uint32_t **qidx;     /* [nproc] each op's index in its rank's hardware queue, for
                            the processes of a queue of more than one (NULL for
                            the others: ces_sim_qidx) */
    uint32_t *len;       /* [nproc] */
    uint32_t *stop;      /* [nproc] = len unless a stop fault */
    uint32_t *data_end;  /* [nproc] one past the last copy, produce or consume before
                            stop (0: none) */
    uint32_t *clock_end; /* [nproc] one past the last of those whose bytes another
                            process accesses too, one of the two writing (0: none) */
    uint32_t *queue;     /* [nproc] global queue id rank*nq + q */
    uint32_t *qproc_at;  /* [ranks*nq + 1] where each queue's processes start in qproc */
    uint32_t *qproc;     /* [nproc] the processes of each queue, queue by queue */
    uint32_t **qseq;     /* [ranks*nq] procs of the queue's ops, in enqueue order
                            (NULL for a queue of one process: ces_sim_queue_proc) */
    uint32_t *qlen;      /* [ranks*nq] */
    uint32_t *slot_width;        /* [nslots] */
    struct ces_slot *slot_name;  /* [nslots] signal, rank, idx */
    uint32_t *sig_base;          /* [nsignals] first global slot of each signal */
    /* per slot, its landing writes (wr) and waits (wt), by process then
     * position, and their runs of one process (wg, tg) */
    uint32_t *wr_off;            /* [nslots+1] CSR into wr */
    struct sim_access *wr;
    uint32_t *wt_off;            /* [nslots+1] CSR into wt */
    struct sim_access *wt;
    uint8_t *wt_cmp;             /* [as wt] each wait's compare (enum ces_cmp) */
    uint32_t *wg_off;            /* [nslots+1] CSR into wg (groups of wr) */
    struct sim_group *wg;
    uint32_t *wv;                /* [as wr] each wg group's writes by (value, pos): their
                                    indices in wr */
    uint32_t *tg_off;            /* [nslots+1] CSR into tg (groups of wt) */
    struct sim_group *tg;
    uint32_t *guard_off;         /* [nproc+1] CSR: positions of waits and awaits */
    uint32_t *guard;
    uint32_t *ws_off;            /* [nproc+1] CSR into ws: the slots each process waits on */
    struct sim_wslot *ws;
    uint32_t *aw_off;            /* [nproc+1] CSR into aw: positions of awaits, each
                                    process's in its awg groups' order */
    uint32_t *aw;
    uint32_t *awg_off;           /* [nproc+1] CSR into awg: each process's groups of awaits */
    struct sim_awgroup *awg;
    struct sim_link *links;      /* the boundaries' entries (sim_op.link, nlink) */
    uint32_t nlinks;
    uint32_t linked;             /* the streams below it pass boundaries together (the
                                    delayed writes' streams, from it on, do not) */
    struct sim_run *runs;        /* expected runs of consumes */
    size_t nruns;
    uint32_t *exp_at;            /* [lists + 1] where each list of expected runs begins */
    struct sim_link *awrec;      /* [awaits] the record each refers to (SIM_NONE: none) */
    uint32_t nawait;
    uint32_t *greps_off;         /* [nproc+1] CSR into greps: each process's, by block */
    struct sim_greps *greps;     /* each process's graph blocks of more than one replay */
    uint64_t *buf_size;          /* [nbuf] */
    /* state layout, in 32-bit words */
    uint32_t seg_w;              /* words per segment: SEG_READS + nproc */
    /* flags, pc, the two sums that stand for the rest in the hash, values,
     * process clocks, slot clocks (the clocks last: the bulk); the record
     * clocks lie apart, in pages (struct sim_rdir) */
    size_t w_pc, w_val, w_pclk, w_hsum, w_sclk, w_fixed;
    uint32_t rpage;              /* record clocks per page (of nproc words each) */
    uint32_t rdir;               /* pages per directory */
    uint32_t nrdir;              /* directories of a state (0: no record clock) */
    uint32_t *rzero;             /* [nproc] zeros: the clock of a page never written */
    size_t *rheld;               /* the bytes of the pages and directories that
                                    states hold (each counted once, however many
                                    states share it) */
    size_t bytes;                /* memory held by the model */
    /* the memory bound while building (opts->max_memory, 0 = none), the
     * bytes one state will take at least (kept free under the bound), and
     * whether the bound refused an allocation, and whether malloc did (an
     * error, though the bound refused another of the same tables) */
    uint64_t limit;
    size_t reserve;
    bool over;
    bool nomem;
    size_t need; /* when over: the model's bytes with the refused allocation */
    size_t peak;                 /* the most bytes the model held, building included */
    double deadline;    /* while building: when opts->max_seconds passes (0: never) */
    uint32_t ticks;     /* work of the building, tick() (model.c) */
    bool timed_out;     /* the deadline passed while building */
    uint64_t nunrolled; /* ops of every process once unrolled (0 until counted) */
    /* while building: opts->build_progress (NULL: none) and when it is due
     * next (the search goes on from there), the step it reports and how far
     * that has come, the ops unrolled so far */
    void (*progress)(void *ud, const struct ces_check_build *b);
    void *progress_ud;
    double t0, every, next_progress;
    const char *step;
    uint64_t step_done, step_total, unrolled;
};

/* Segment word offsets. */
enum {
    SEG_LO = 0, SEG_HI = 2, SEG_PRANK = 4, SEG_PBUF = 5, SEG_POFF = 6,
    SEG_GEN = 8,    /* 64 bits: iterations count past 2^32 across phases */
    SEG_WPROC = 10, /* writer proc + 1, 0 = none */
    SEG_WEP = 11,   /* writer epoch */
    SEG_READS = 12  /* [nproc] read epochs */
};

enum sim_flags { SIM_F_RACE = 1u, SIM_F_MISMATCH = 2u, SIM_F_ABORTED = 4u };

struct sim_map {
    uint32_t n, cap; /* segments */
    uint32_t *seg;
    /* the hash of the segments, derived: valid unless dirty (every step
     * that touches the map sets dirty) */
    uint64_t h[2];
    bool dirty;
};

/* The record clocks of a state (m->nrec of nproc words each: an awaited
 * record's, a link's snapshot), each written once in an execution,
 * are kept in pages of m->rpage clocks, m->rdir pages to a directory,
 * which states share until one of them writes (copy on write: a page or
 * directory held by more than one state is copied before a write); a NULL
 * directory or page holds zeros.  Their words enter the hash as if they
 * followed the fixed words, clock x at w_fixed + x * nproc. */
struct sim_rpage {
    uint32_t refs; /* the directories holding it */
    uint32_t w[];  /* [rpage * nproc] */
};
struct sim_rdir {
    uint32_t refs;            /* the states holding it */
    struct sim_rpage *page[]; /* [rdir] */
};

/* A state value: fixed words + the record clocks + one interval map per
 * (rank, buffer). */
struct sim_state {
    uint32_t *w; /* [w_fixed] flags, pc, values, process and slot clocks */
    struct sim_rdir **rd; /* [nrdir] record clocks (NULL: zeros; the table NULL
                             where nrdir is 0) */
    struct sim_map *maps; /* [nmaps] */
};

#define SIM_FLAGS(s) ((s)->w[0])
#define SIM_PC(m, s) ((s)->w + (m)->w_pc)

/* The ops of hardware queue q (global id) that have left it, given the
 * program counters: executed, or never enqueued (stopped). */
static inline uint32_t ces_sim_queue_done(const struct sim_model *m, const uint32_t *pc,
                                          uint32_t q)
{
    uint32_t done = 0;

    for (uint32_t i = m->qproc_at[q]; i < m->qproc_at[q + 1]; i++) {
        uint32_t p = m->qproc[i];

        done += pc[p] < m->stop[p] ? pc[p] : m->stop[p];
    }
    return done;
}
/* The process of the i-th op enqueued on hardware queue q (global id). */
static inline uint32_t ces_sim_queue_proc(const struct sim_model *m, uint32_t q, uint32_t i)
{
    return m->qseq[q] == NULL ? m->qproc[m->qproc_at[q]] : m->qseq[q][i];
}
/* The index of op k of process p in its rank's hardware queue (0 past
 * its stop: never enqueued). */
static inline uint32_t ces_sim_qidx(const struct sim_model *m, uint32_t p, uint32_t k)
{
    if (m->qidx[p] != NULL)
        return m->qidx[p][k];
    return k < m->stop[p] ? k : 0;
}
/* The first link of op o (a boundary's, o->nlink > 0) whose op has not
 * run at program counters pc; NULL when o may pass the boundary. */
static inline const struct sim_link *ces_sim_link_open(const struct sim_model *m,
                                                       const uint32_t *pc, const struct sim_op *o)
{
    for (uint32_t i = 0; i < o->nlink; i++) {
        const struct sim_link *l = &m->links[o->link + i];

        if (pc[l->proc] <= l->pos)
            return l;
    }
    return NULL;
}
/* The record clock slot that keeps the clock of link l's op. */
static inline uint32_t ces_sim_link_rclk(const struct sim_model *m, const struct sim_link *l)
{
    return m->ops[l->proc][l->pos].snap;
}
/* The record that await o refers to. */
static inline const struct sim_link *ces_sim_await_rec(const struct sim_model *m,
                                                       const struct sim_op *o)
{
    return &m->awrec[o->rec];
}
/* The global iteration of op k of process p. */
uint64_t ces_sim_op_iter(const struct sim_model *m, uint32_t p, uint32_t k);
#define SIM_PCLK(m, s, p) ((s)->w + (m)->w_pclk + (size_t)(p) * (m)->nproc)
#define SIM_SCLK(m, s, x) ((s)->w + (m)->w_sclk + (size_t)(x) * (m)->nproc)
/* Record clock x of s (read only). */
static inline const uint32_t *ces_sim_rclk(const struct sim_model *m, const struct sim_state *s,
                                           uint32_t x)
{
    uint32_t pg = x / m->rpage;
    const struct sim_rdir *d = s->rd[pg / m->rdir];
    const struct sim_rpage *page = d != NULL ? d->page[pg % m->rdir] : NULL;

    return page != NULL ? page->w + (size_t)(x % m->rpage) * m->nproc : m->rzero;
}

/* Process status at a state. */
enum sim_status {
    SIM_S_DONE = 0,
    SIM_S_STOPPED,   /* a stop fault */
    SIM_S_INVISIBLE, /* next op enabled and invisible (executed eagerly) */
    SIM_S_VISIBLE,   /* next op enabled, a write or wait */
    SIM_S_WAIT,      /* blocked on a wait */
    SIM_S_AWAIT,     /* blocked on an await */
    SIM_S_QUEUE,     /* blocked behind its queue head */
    SIM_S_LINK       /* blocked at a block or replay boundary of its rank */
};

/* Details gathered while replaying a trace for a report. */
struct sim_detail {
    bool want_race, want_mismatch;
    bool have_race, have_mismatch;
    uint32_t step;                 /* 1-based index of the step being executed */
    struct ces_check_access race[2];
    uint32_t race_other_proc, race_other_pos;
    struct ces_check_mismatch mismatch;
    /* the step just executed */
    uint32_t kind;
    uint32_t released; /* the watchdog released it (kind says ABORTED unless
                          the write was dropped as well) */
    uint32_t has_value;
    uint64_t value;
};

/* Returned by the builders below when opts->max_memory refused an
 * allocation.  Not an error (positive): the check ends INCOMPLETE, and the
 * context's message says what needed the memory. */
#define SIM_BOUND 1
/* Returned by them when opts->max_seconds passed while building the model
 * (the same: INCOMPLETE, the message says how far it came). */
#define SIM_LATE 2

/* queues.c */
/* CES_ERR_INVALID, the message starting with `what`, unless every queue of
 * map ([ranks * streams]; NULL passes) is below the streams. */
int ces_sim_queue_map_check(struct ces_ctx *ctx, const char *what, uint32_t ranks,
                            uint32_t streams, const uint32_t *map);
/* CES_ERR_INVALID, the message as ces_queue_map_parse's, unless text reads
 * as a queue map of some ranks and streams: queue numbers split by ',',
 * lists split by '/', every list as long as the first, at most
 * CES_MAX_RANKS lists of at most CES_MAX_STREAMS numbers each below
 * CES_MAX_STREAMS; so that a command judges it before its schedule is
 * expanded. */
int ces_sim_queue_map_syntax(struct ces_ctx *ctx, const char *text);
/* Appends map as ces_queue_map_format writes it (the builder's status
 * says when memory ran out). */
void ces_sim_sb_queue_map(struct ces_sb *sb, uint32_t ranks, uint32_t streams,
                          const uint32_t *map);

/* model.c */
/* The links at rank r's block and replay boundaries, as the CUDA backend
 * orders its streams there (docs/SEMANTICS.md, section 1), among the
 * streams below `linked`: for the first op (position pos) of each stream s
 * in a (block, replay), fn(ud, s, pos, q, qpos) for the last earlier op of
 * every other stream q that ran one since s's own previous (block, replay)
 * with ops (those before it are linked through that one's links); the
 * links of one op come one after another, in block order.  Stops at fn's
 * first error and returns it. */
int ces_sim_links_each(const struct ces_graph *g, uint32_t r, uint32_t linked,
                       int (*fn)(void *ud, uint32_t s, uint32_t pos, uint32_t q, uint32_t qpos),
                       void *ud);

/* g's blocks within what the model takes, 2^SIM_BLOCK_BITS (CES_ERR_LIMIT
 * "the schedule has N blocks; ..." otherwise). */
int ces_sim_blocks_check(struct ces_ctx *ctx, const struct ces_graph *g);
/* Builds the model of g under opts (its blocks checked first); streams
 * from `queued` on (the delayed writes' streams) have a hardware queue
 * each, whatever g's connections.
 * With opts->max_memory > 0 every
 * allocation is checked first: the model and one state must fit under the
 * bound, else SIM_BOUND before the allocation that would pass it (*out NULL;
 * *held, when non-NULL, gets the most bytes the model held until then, as
 * it does on SIM_LATE; a built model keeps that in m->peak); with
 * opts->max_seconds > 0, SIM_LATE once that long has passed since the call,
 * and with opts->build_progress, that called about every progress_seconds
 * (its loops over the unrolled ops, and its clearing of large tables, read
 * the clock as they go). */
int ces_sim_model_build(struct ces_ctx *ctx, const struct ces_graph *g,
                        const struct ces_check_opts *opts, uint32_t queued,
                        struct sim_model **out, size_t *held);
/* The bytes ces_sim_state_init allocates for one state of m (the layout of
 * state.c: the fixed words, the map headers, 4 segments per non-empty map). */
size_t ces_sim_state_init_bytes(const struct sim_model *m);
/* "1.5 GiB", "64.0 MiB", "12.0 KiB", "448 B" into buf. */
void ces_sim_fmt_bytes(char *buf, size_t size, uint64_t bytes);
/* The report's "statistics:" line of s: a rate (states/s searching,
 * executions/s sampling; none of a replay) only of 0.0005 s or more. */
void ces_sim_sb_stats(struct ces_sb *sb, const struct ces_check_stats *s);
/* Sorts b[0, n) of `size` bytes (64 at most) by cmp as qsort(3) does, in
 * place: a quicksort (median of three, by insertion under 16 items) that
 * takes a heapsort where it goes 2 log2 n partitions deep, with a tick of
 * m's time bound for each item that a partition passes, that the heap's
 * build sifts down and that the heap gives out, 64 at a time in the heap
 * (qsort reads no clock, and sorting millions of items takes seconds):
 * SIM_LATE once the bound passed, the items then in some order. */
int ces_sim_sort_late(struct sim_model *m, void *b, size_t n, size_t size,
                      int (*cmp)(const void *, const void *));
/* The runs of generations that the consumes with '==' of m's unrolled ops
 * keep in their lists of the runs they expect (shared where equal, as the
 * building keeps them in m->runs: m->nruns), counted as the building
 * counts them before it keeps any, or where `keep`, kept as it keeps them
 * (then freed; each consume's list, its aux, written as the building
 * wrote it), into *kept: CES_ERR_LIMIT where they pass `most` (the
 * building's 2^32 - 2; a test's lower), the keeping stopped there, SIM_LATE
 * or CES_ERR_NOMEM.  (A built model's ops; its steps told to m->progress.) */
int ces_sim_runs_check(struct sim_model *m, uint32_t most, bool keep, uint64_t *kept);
void ces_sim_model_destroy(struct sim_model *m);
void ces_sim_pos(const struct sim_model *m, uint32_t proc, uint32_t pos,
                 struct ces_check_pos *out);

/* state.c */
int ces_sim_state_init(const struct sim_model *m, struct sim_state *s);
/* ces_sim_state_init, which reads the clock as it clears the state's words
 * and maps: SIM_LATE (nothing held) once `deadline` (ces_now's; 0:
 * none) has passed. */
int ces_sim_state_init_by(const struct sim_model *m, struct sim_state *s, double deadline);
int ces_sim_state_copy(const struct sim_model *m, struct sim_state *dst,
                       const struct sim_state *src);
void ces_sim_state_free(const struct sim_model *m, struct sim_state *s);
/* The bytes s holds of its own: its fixed words, directory table and maps
 * (the record clocks' pages and directories, shared, are *m->rheld). */
size_t ces_sim_state_bytes(const struct sim_model *m, const struct sim_state *s);
/* Record clock x of s made writable (its page and directory its own, copied
 * where shared, made where none is): the clock's words, or NULL where memory
 * ran out.  The words so written bypass the hash's sums (for tests). */
uint32_t *ces_sim_rclk_own(const struct sim_model *m, struct sim_state *s, uint32_t x);
/* The same fingerprint computed from scratch, ignoring every cached value
 * (for tests of the caches). */
void ces_sim_state_hash_full(const struct sim_model *m, const struct sim_state *s,
                             uint64_t h[2]);
/* (refreshes the maps' cached hashes, hence not const) */
void ces_sim_state_hash(const struct sim_model *m, struct sim_state *s, uint64_t h[2]);
/* Whether no process has a data access left at program counters pc that
 * can conflict with another process's (clock_end): no clock will be read
 * again. */
bool ces_sim_clocks_dead(const struct sim_model *m, const uint32_t *pc);
/* Whether some process has a copy, produce or consume left at pc. */
bool ces_sim_data_left(const struct sim_model *m, const uint32_t *pc);
/* Whether an access of region reg by process p (a write or a read), made
 * with p's clock in s, would find a race in the access history its bytes
 * hold in s (access's check): with an access of process q at epoch e there
 * that p's clock does not order and, keep not NULL, keep(ud, q, e) takes. */
bool ces_sim_history_races(const struct sim_model *m, const struct sim_state *s, uint32_t p,
                           const struct ces_region *reg, bool write,
                           bool (*keep)(void *ud, uint32_t q, uint32_t e), void *ud);
/* Whether some process has a wait on slot x at or after its program
 * counter in pc. */
bool ces_sim_slot_live(const struct sim_model *m, const uint32_t *pc, uint32_t x);
/* Makes s canonical in what nothing will read (docs/SEMANTICS.md, section
 * 10): every clock 0 when no process has a conflicting data access left,
 * the value and clock of every slot no wait is left on 0.  The state has
 * the same future verdicts.  The step function keeps a hashed state
 * canonical as it goes; this one works from scratch (for tests of it). */
void ces_sim_state_canon(const struct sim_model *m, struct sim_state *s);
int ces_sim_status(const struct sim_model *m, const struct sim_state *s, uint32_t p);
/* Executes the next op of p (which must be enabled); a canonical state
 * stays canonical where states are hashed. */
int ces_sim_exec(const struct sim_model *m, struct sim_state *s, uint32_t p,
                 struct sim_detail *d);
/* Wait-for analysis of a state where nothing is enabled.  Returns the
 * enum ces_verdict class (0 when every process finished); fills the report
 * structures when `out` is non-NULL. */
struct sim_blocked_out {
    struct ces_vec blocked; /* struct ces_check_blocked (edges point into edges) */
    struct ces_vec edges;   /* struct ces_check_edge, per blocked entry contiguous */
    struct ces_vec cycle;   /* uint32_t */
};
int ces_sim_end_class(const struct sim_model *m, const struct sim_state *s, uint32_t *cls,
                      struct sim_blocked_out *out);

/* search.c: the runner of one trace used by reports and replays */
/* Reads replay string text into trace, each step's process below m's
 * (CES_ERR_INVALID with the offset otherwise).  m and trace NULL: only
 * what needs no model, the text's syntax, its steps' count and each
 * step's process below the most a schedule may have (CES_MAX_RANKS ranks
 * of CES_MAX_STREAMS streams), so that a command judges it before its
 * schedule is expanded. */
int ces_sim_replay_parse(struct ces_ctx *ctx, const struct sim_model *m, const char *text,
                         struct ces_vec *trace);
int ces_sim_replay_format(struct ces_ctx *ctx, const uint32_t *trace, size_t n, char **out);

/* --- the report ------------------------------------------------------------ */

/* Defect slots in report order. */
enum sim_cls { SIM_D_DEADLOCK, SIM_D_HANG, SIM_D_RACE, SIM_D_MISMATCH, SIM_D_ABORTED, SIM_D_COUNT };

struct sim_defect {
    struct ces_check_defect pub;
    struct ces_vec steps;   /* struct ces_check_step */
    struct ces_vec blocked; /* struct ces_check_blocked */
    struct ces_vec edges;   /* struct ces_check_edge */
    struct ces_vec cycle;   /* uint32_t */
    struct ces_vec aborted; /* struct ces_check_pos */
    char *replay;
    /* The dot overlay, built at the first ces_check_report_overlay that asks
     * for it and kept until the report goes, as that call promises. */
    bool marked;
    struct ces_vec marks;   /* struct ces_dot_mark */
    char *title;
};

/* A delayed write: its fault, and the stream of the derived graph it lands
 * from (delay.c). */
struct sim_delay {
    struct ces_fault fault;
    uint32_t stream;
};

/* What delay faults turn a check into: the graph checked in the given one's
 * place (NULL: no delay fault), the faults to apply to it, the delays, and
 * the given graph's streams (those that enter its hardware queues). */
struct sim_delayed {
    struct ces_graph *g;
    struct ces_fault *faults;
    size_t nfaults;
    struct sim_delay *delays;
    size_t ndelays;
    uint32_t streams;
};
/* Op `index` of rank r's stream s once graph replays are unrolled: block
 * *block, replay *rep, op *op of the rank's list; NULL past the end, with
 * the stream's ops in *len (fault.c). */
const struct ces_op *ces_sim_op_at(const struct ces_graph *g, uint32_t r, uint32_t s,
                                   uint64_t index, uint32_t *block, uint32_t *rep, uint32_t *op,
                                   uint64_t *len);
/* Checks fault f against valid g: a known kind, an existing rank and stream
 * (a whole rank for a stop only), a position within it, a write under a
 * drop or delay; the context's message says what is wrong (fault.c). */
int ces_sim_fault_check(struct ces_ctx *ctx, const struct ces_graph *g, const struct ces_fault *f);
/* Checks the n faults of one check against valid g: each alone
 * (ces_sim_fault_check), then together: no fault given twice, no write
 * both dropped and delayed, at most one stop of a stream and one of a
 * rank, and no stop that another makes change nothing (a stream's own stop
 * at or after where its rank's stop leaves it; a rank's stop whose every
 * stream stops earlier by a stop of its own); CES_ERR_INVALID naming the
 * faults (fault.c).  g NULL: only what needs no graph, each fault's rank
 * and stream within what a schedule may have (CES_MAX_RANKS ranks of
 * CES_MAX_STREAMS streams) and the faults (each of a known kind) together
 * but for the stops that change nothing, so that a command judges them
 * before its schedule is expanded. */
int ces_sim_faults_check(struct ces_ctx *ctx, const struct ces_graph *g,
                         const struct ces_fault *faults, size_t n);
/* The faults of a check (checked) with each stop of a whole rank
 * (stop:rR#K) as stops of its streams (faults; NULL when there is none), and
 * where each rank stop went: faults[first .. first + n) (fault.c). */
struct sim_rank_stop {
    struct ces_fault fault;
    size_t first, n;
};
struct sim_expanded {
    struct ces_fault *faults;
    size_t nfaults;
    struct sim_rank_stop *stops;
    size_t nstops;
};
int ces_sim_faults_expand(struct ces_ctx *ctx, const struct ces_graph *g,
                          const struct ces_check_opts *opts, struct sim_expanded *out);
void ces_sim_expanded_free(struct ces_ctx *ctx, struct sim_expanded *e);
/* The check options' times, max_seconds and progress_seconds, finite and
 * >= 0 (CES_ERR_INVALID "check options: ..."): ces_check, and the fault
 * sweep before any check it runs (search.c). */
int ces_sim_opts_times_check(struct ces_ctx *ctx, const struct ces_check_opts *opts);
/* The graph checked in g's place under the delay faults of opts, into *out
 * (its g NULL where opts has none); SIM_LATE where opts->max_seconds, less
 * its spent_seconds, passes while the graph is derived (the clock read
 * before the first block and then every 1,024 blocks and ops copied), *out then
 * holding the other faults and the delays but no graph; free *out with
 * ces_sim_delayed_free then as on CES_OK (delay.c). */
int ces_sim_delay_derive(struct ces_ctx *ctx, const struct ces_graph *g,
                         const struct ces_check_opts *opts, struct sim_delayed *out);
void ces_sim_delayed_free(struct ces_ctx *ctx, struct sim_delayed *d);

/* g's buffers, signals, events and constants into empty h, in order (the
 * indices stay) (slice.c). */
int ces_sim_copy_tables(const struct ces_graph *g, struct ces_graph *h);
/* Whether op is a write or wait of a signal in `drop` (bit i: signal i;
 * signals from 64 on are never dropped). */
bool ces_sim_slot_op(const struct ces_op *op, uint64_t drop);
/* The states an exhaustive search stores before it tries a sliced search,
 * and the least a try's sliced searches may store (search.c;
 * docs/SEMANTICS.md section 10, "Data judged without some signals"): 4096
 * each, lower in tests. */
extern uint64_t ces_sim_slice_at, ces_sim_slice_least;
/* The states an exhaustive search stores before its first burst of random
 * executions, and the least transitions a burst takes (search.c;
 * docs/SEMANTICS.md section 10, "Classes found by sampling"). */
extern uint64_t ces_sim_sample_at, ces_sim_sample_least;
/* The bits of each of the two words of a state's fingerprint that the
 * visited set keeps (search.c; docs/SEMANTICS.md section 10, "The visited
 * set"): all, fewer in tests, where distinct states then share a word,
 * and with it the table's slot where that is the first, told apart by the
 * other. */
extern uint64_t ces_sim_fp_keep[2];
/* The bits of the hash that picks the entry of a key in the search's
 * tables of answers kept under their keys (cycle_possible's under the
 * first blocking positions, consumes_race's under the program counters
 * and slot values; search.c): all, none in tests, where every key then
 * takes one entry, the last key's, and is told from it by the compare. */
extern uint64_t ces_sim_kept_slot;
/* Whether consumes_race's hash takes the slot values (search.c): it does,
 * not in tests, where keys of the same program counters then take one
 * entry, told apart by the compare of the values (with ces_sim_kept_slot
 * none, a key never meets one of its program counters and other values of
 * a slot a wait is left on: search.c). */
extern bool ces_sim_kept_vals;
/* The bits of the hash of the runs a consume with '==' reads that the
 * building compares with the list last kept for the same bytes (model.c;
 * expected_runs): all, none in tests, where lists of as many runs then
 * share a hash, the keeping sweep telling them apart by their runs, the
 * count before it by nothing more. */
extern uint64_t ces_sim_runs_hash_keep;
/* Valid g without the writes and waits of the signals in `drop`, with the
 * default hardware queues (a queue per stream), validated, into *out. */
int ces_sim_slice(struct ces_ctx *ctx, const struct ces_graph *g, uint64_t drop,
                  struct ces_graph **out);

struct ces_check_report {
    struct ces_ctx *ctx;
    const struct ces_graph *g; /* borrowed: must outlive the report; or delayed.g */
    struct sim_delayed delayed; /* owned: the delay faults' graph, if any */
    struct sim_expanded expanded; /* owned: the rank stops' stream stops, if any */
    uint32_t *qmap;     /* owned: opts.queue_map ([ranks * qstreams]), or NULL */
    uint32_t qstreams;  /* the streams of the map's graph (the schedule's, not a delay's) */
    /* `connections any`: the queue assignments checked in full, or to the
     * depth bound where depth_cut (one a bound stopped in is not; with a
     * defect, the number of the one it is in), of how many (0 and 0 for
     * another schedule) */
    uint64_t assignments;
    uint64_t assignments_all;
    uint32_t verdict;
    bool stopped_first; /* CES_CHECK_FIRST stopped the search */
    const char *stopped; /* the bound that stopped the search: "states", "time" or
                            "memory" (static text); NULL if none */
    bool depth_cut;     /* max_depth cut an execution short */
    uint64_t sliced;    /* the signals (bit i: signal i) without which a search
                           proved that no RACE or MISMATCH can occur; 0: none */
    uint32_t sampled;   /* the classes (CES_V_ bits) a random execution within
                           the search found first; 0: none */
    uint32_t open;      /* the classes (CES_V_ bits) an exhaustive search that a
                           bound stopped neither found nor ruled out */
    struct ces_check_stats stats;
    struct sim_defect *defects[SIM_D_COUNT]; /* in report order, ndefects used */
    size_t ndefects;
};

uint32_t ces_sim_class_bit(int d);
/* Re-runs `trace` with details and appends the defect of slot `d`. */
int ces_sim_report_add(struct ces_check_report *rep, const struct sim_model *m, int d,
                       const uint32_t *trace, size_t n);
/* Follows `trace` exactly from the initial state (firing the watchdog model
 * where the trace needs it); errors name the step that does not fit.  With
 * `steps` non-NULL the steps are recorded; `d` collects details. */
int ces_sim_follow(const struct sim_model *m, struct sim_state *st, const uint32_t *trace,
                   size_t n, struct sim_detail *d, struct ces_vec *steps, struct ces_vec *aborted);
/* True when the state is an end state with a blocked or stopped process. */
bool ces_sim_stuck(const struct sim_model *m, const struct sim_state *s);

/* How often progress is reported (progress_seconds, 2 s when not above 0)
 * (search.c); the clock is core's ces_now. */
double ces_sim_progress_every(const struct ces_check_opts *o);

#endif
