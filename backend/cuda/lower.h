/*
 * backend/cuda/lower.h - the lowering of a concrete op graph into the
 * abstract list of CUDA calls one rank issues (pure data, no CUDA types, so
 * that it is tested on machines without a GPU).  runtime.h holds the
 * CUDA-side declarations.
 */
#ifndef CES_CUDA_LOWER_H
#define CES_CUDA_LOWER_H

#include "internal.h" /* core/internal.h (ces_vec, ces_sb); this directory has no internal.h */

/* cuStreamBatchMemOp takes at most 255 ops per call (256 fails). */
#define CES_CUDA_MAX_MEMOPS 255u

/* Eager, a barrier right behind copies that moved at least this many bytes
 * between ranks on its stream goes out as two memop calls: its writes, then
 * its waits (CES_CUDA_SPLIT_WAIT_BYTES is the H200 value; the model's
 * split_wait_mib says the same).  On H200 the barrier's wait as one call
 * with the writes falls into the slow mode of polled waits behind a long
 * copy in most loops (2x H200, scripts/probe_memops.sh large-shapes: the
 * 128 MiB alltoall 194.7-195.0 us a call, 23-26 slow loops of 40; split
 * 189.0-189.2, none slow), while it costs a memop call (~1.6 us) where the
 * slow mode is rare (64 MiB: 100.7-100.9 against 102.3-102.5). */
#define CES_CUDA_SPLIT_WAIT_BYTES (UINT64_C(64) << 20)

/* What the device can do (from cuDeviceGetAttribute); lowering refuses what
 * it cannot. */
struct ces_cuda_caps {
    int can_flush;       /* CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES */
    int can_64bit;       /* CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS */
    uint32_t max_memops; /* ops per cuStreamBatchMemOp; 0 = CES_CUDA_MAX_MEMOPS */
    uint64_t split_wait_bytes; /* eager: a run of memops right after copies of
                                  at least this many bytes between ranks on
                                  its stream, whose first wait is on a signal
                                  array a write before it in the run wrote (a
                                  barrier), goes out as two calls split before
                                  that wait; 0 = never */
};

enum ces_cuda_lower_flags {
    /* Every block is lowered for stream capture: the caller's stream is being
     * captured (graph-phase blocks are always lowered this way). */
    CES_LOWER_CAPTURE = 1u << 0,
    /* Eager blocks: a progress write (the watchdog's progress word) ends
     * the last memop call that holds a wait of each stream in the block,
     * and every CES_PROGRESS_SPAN-th such call before it. */
    CES_LOWER_PROGRESS = 1u << 1,
    /* Captured blocks: every memop call that holds a wait starts with an
     * ENTER write and ends with an EXIT write of the stream's in-flight word
     * (the watchdog's view of work replayed from a CUDA graph). */
    CES_LOWER_FLIGHT = 1u << 2,
    /* The blocks' streams are neither forked nor joined (point-to-point
     * groups, whose protocol links its own streams): fork and join stay 0. */
    CES_LOWER_UNLINKED = 1u << 3
};

#define CES_CUDA_CALL_MAP(X)                                                   \
    X(CES_CALL_COPY_BATCH, "copy_batch") /* cudaMemcpyBatchAsync of count copies */ \
    X(CES_CALL_COPY, "copy")             /* one cudaMemcpyAsync */             \
    X(CES_CALL_MEMOPS, "memops")         /* one cuStreamBatchMemOp, count <= 255 */ \
    X(CES_CALL_RECORD, "record")         /* cudaEventRecord */                 \
    X(CES_CALL_AWAIT, "await")           /* cudaStreamWaitEvent */             \
    X(CES_CALL_PRODUCE, "produce")       /* application hook (cesync run) */   \
    X(CES_CALL_CONSUME, "consume")       /* application hook (cesync run) */

enum ces_cuda_call_kind {
#define CES_X_(e, n) e,
    CES_CUDA_CALL_MAP(CES_X_)
#undef CES_X_
    CES_CALL_COUNT
};

enum ces_cuda_memop_kind {
    CES_MEMOP_WRITE32,
    CES_MEMOP_WRITE64,
    CES_MEMOP_WAIT32,
    CES_MEMOP_WAIT64,
    CES_MEMOP_BARRIER,  /* fence */
    CES_MEMOP_FLUSH,    /* flush remote writes */
    CES_MEMOP_PROGRESS, /* 64-bit write of the stream's step number to its progress word */
    CES_MEMOP_ENTER,    /* 64-bit write of the call's record id to the stream's in-flight word */
    CES_MEMOP_EXIT      /* 64-bit write of 0 to the stream's in-flight word */
};

struct ces_cuda_memop {
    uint8_t kind;   /* enum ces_cuda_memop_kind */
    uint8_t cmp;    /* waits: enum ces_cmp */
    uint16_t pad_;
    uint32_t op;    /* index of the graph op in the block's rank list (op and
                       spos are 0 in the watchdog's enter, exit and progress
                       writes, which no graph op makes) */
    struct ces_slot slot; /* concrete rank (never CES_RANK_ALL) */
    uint32_t pad2_; /* (no padding of the compiler's: plans are compared bytewise) */
    uint64_t spos;  /* that op's position in its stream as the checker numbers it
                       (rR.sS#K: the ops of the stream in every replay of the
                       earlier blocks, then its index in the block's first
                       replay) */
    uint64_t value;
};

struct ces_cuda_copy {
    struct ces_region src;
    struct ces_region dst;
};

struct ces_cuda_call {
    uint8_t kind;    /* enum ces_cuda_call_kind */
    uint8_t waits;   /* memops: 1 if the call holds a wait */
    uint16_t pad_;
    uint32_t stream;
    uint32_t first;  /* copies / memops: index of the first in the block's array */
    uint32_t count;
    uint32_t event;  /* record, await */
    uint32_t op;     /* the graph op that the call starts with */
    struct ces_region a, b; /* produce, consume (b: expected, when EXPECT) */
    uint8_t expect;  /* consume: has `== b` */
};

struct ces_cuda_pblock {
    struct ces_block_info info;
    int capture;          /* lowered for stream capture */
    struct ces_vec calls;  /* struct ces_cuda_call, in enqueue order */
    struct ces_vec copies; /* struct ces_cuda_copy */
    struct ces_vec memops; /* struct ces_cuda_memop */
    uint32_t *stream_ops; /* [streams]: ops of each stream in this block */
    uint64_t fork, join;  /* the streams (bit s, s >= 1) the backend forks from
                             stream 0 before the block and joins into it after
                             (ces_graph_links: others are linked by the block's
                             own events or have no op in it) */
};

/* The lowered program of one rank. */
struct ces_cuda_plan {
    struct ces_ctx *ctx;
    uint32_t rank;
    uint32_t ranks;
    uint32_t streams;
    uint32_t nblocks;
    struct ces_cuda_pblock *blocks;
};

/* Lowers rank `rank` of a validated graph.  Pure: reads the graph, writes
 * the plan.  A block lowered for capture leaves out each await of a record
 * made outside it (in an earlier block or replay, which the fork and join
 * order before it already; a CUDA graph cannot wait on work outside its
 * capture).  Errors: CES_ERR_UNSUPPORTED for a flush the device cannot do, a
 * u64 signal without 64-bit memops, or (under capture) a wait that reads $i,
 * in its slot or its value (CES_OPF_FROZEN: the replays would pass on stale
 * values, an unsafe protocol under capture), or a u64 value above 2^63-1
 * that a >= wait awaits or reads (any rank's op: CUDA's 64-bit >= is
 * cyclic, the checker's plain); CES_ERR_INVALID for bad
 * arguments; CES_ERR_SEMANTIC for a graph that does not validate
 * (ces_graph_require_valid). */
int ces_cuda_lower(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t rank,
                   const struct ces_cuda_caps *caps, unsigned flags, struct ces_cuda_plan **out);
void ces_cuda_plan_destroy(struct ces_cuda_plan *p);

/* Text of a plan, one call per line, for tests and CES_DUMP_SCHEDULE:
 *   block 0 eager x1 first 1
 *   s0 memops 2 [write ready[0]@1 = 1; wait ready[1] == 1]
 *   s0 copy_batch 1 [send[0:32] -> recv[0:32]@1]
 * with "sK fork" after a block's first line and "sK join" at its end for
 * the streams the backend forks and joins.
 * Free with ces_free. */
int ces_cuda_plan_format(struct ces_ctx *ctx, const struct ces_graph *g,
                         const struct ces_cuda_plan *p, char **text);

const char *ces_cuda_call_name(int kind);

/* --- hardware queues ------------------------------------------------------ */

/* CUDA's hardware queues per GPU, which the streams of one process on that
 * GPU share: CUDA_DEVICE_MAX_CONNECTIONS, 1..32, default 8. */
#define CES_CUDA_QUEUES_DEFAULT 8u
#define CES_CUDA_QUEUES_MAX 32u

/* The queues that CUDA_DEVICE_MAX_CONNECTIONS (`env`, NULL when unset; the
 * driver reads it when it creates the context) gives: a number 1..32 as it
 * stands, anything else CUDA's default of 8. */
uint32_t ces_cuda_queues(const char *env);

/* `queues` when fewer than CUDA's default of 8, so that a process's streams
 * (the watchdog's among them) share hardware queues, else 0. */
uint32_t ces_cuda_queues_shared(uint32_t queues);

/* The side way's threshold of a communicator in a process with `queues`
 * hardware queues per GPU: side_min (CES_P2P_SIDE_MIN), or UINT64_MAX
 * (none) where its streams share queues, where the side streams would gain
 * nothing.  cesync bench predicts ces_send/ces_recv by it. */
uint64_t ces_cuda_side_min(uint64_t side_min, uint32_t queues);

/* Whether graph g may run in a process with `queues` hardware queues per
 * GPU: the queue model it was checked under must be the process's
 * (docs/SEMANTICS.md, section 2).  `connections 0`, or N at least the
 * graph's streams, gives every stream a queue of its own, which the process
 * has when queues >= streams; N below the streams is N queues shared by
 * the streams (stream s on queue s mod N), which it has when queues == N.
 * CES_OK, or CES_ERR_UNSUPPORTED with a message naming both numbers and
 * what to do: check the schedule with the process's queues, or run it
 * with the CUDA_DEVICE_MAX_CONNECTIONS it was checked for. */
int ces_cuda_queues_check(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t queues);

/* Fits a graph that a collective builder made (connections 0) to a process
 * with `queues` queues per GPU: `connections queues` when its streams
 * outnumber them (lowered then in queue order), else unchanged; either way
 * ces_cuda_queues_check passes.  The builders' graphs are proved under
 * shared queues too (sim_test_builders). */
int ces_cuda_queues_adopt(struct ces_graph *g, uint32_t queues);

/* --- point-to-point groups (group.c) -------------------------------------- */

#define CES_P2P_MAX_RANKS 8u

/* A direct group message of at least this many bytes that is not one way
 * (a ring's) has its flags polled in the writer's memory, smaller ones and
 * one-way ones pushed into the waiter's (group.c).  A constant: every rank
 * must build the same protocol. */
#define CES_P2P_POLLED_MIN (UINT64_C(8) << 20)

/* One send or receive a rank declared in a group. */
struct ces_p2p_desc {
    uint32_t peer;
    uint32_t send;  /* 1 send, 0 receive */
    uint64_t off;   /* offset of the buffer within a rank's stride */
    uint64_t bytes;
};

/* What every rank declared: d[rank][0].bytes = count, d[rank][1..count]. */
struct ces_p2p_table {
    struct ces_p2p_desc d[CES_P2P_MAX_RANKS][CES_MAX_PAIRS + 1];
};

/* Staging of the ordered pair s -> d: two slots of `slot` bytes at `off` in
 * d's stride; `sent` messages staged through them so far; `own_wait` 1 when
 * the last of them went the side way, which does not await the next slot's
 * credit, so the next message awaits its own.  slot 0: none. */
struct ces_p2p_stage {
    uint64_t off, slot, sent;
    uint32_t own_wait;
};

/* side_min: staged messages of at least this many bytes go the side way
 * (CES_P2P_SIDE_MIN; UINT64_MAX: none), see ces_cuda_group_graph. */
struct ces_p2p_stages {
    struct ces_p2p_stage p[CES_P2P_MAX_RANKS][CES_P2P_MAX_RANKS]; /* [s][d] */
    uint64_t side_min;
};

/* The group's graph for call k: n ranks of three streams over one buffer
 * `mem` of `stride` bytes (the symmetric range of a rank), signals `posted`,
 * `done`, `full`, `credit` (u64, 2n slots; posted and done: pushed flags
 * at slot writer, polled ones at n + waiter), `cposted`, `cdone` (u64, n
 * slots), `cfull`, `cbusy` (u64, 2n slots; these four the captured
 * protocol's), events `slots` and `copied`.  A message s -> d that fits
 * the pair's slots in `st` is staged, any other goes direct (st NULL: all
 * direct; flags polled for a message of CES_P2P_POLLED_MIN bytes or more
 * that is not one way); a staged message of
 * at least st->side_min bytes goes the side way: the sender's memops leave
 * the caller's stream (s0), which holds only its copy between two events
 * (s1 awaits the slot's credit and records `slots`, s2 awaits `copied` and
 * announces the message).  s1 ends with an event s0 awaits and s2 with
 * writes behind an event of s0, so the backend neither forks nor joins
 * them: the announcement may follow the call.  CES_ERR_INVALID, naming the
 * rank and peer, when a send has no receive of the same size or the other
 * way round. */
int ces_cuda_group_graph(struct ces_ctx *ctx, uint32_t n, uint64_t stride,
                         const struct ces_p2p_table *t, uint64_t k,
                         const struct ces_p2p_stages *st, struct ces_graph **out);

/* The group's declarations checked as ces_cuda_group_graph checks them
 * (CES_ERR_UNSUPPORTED above CES_P2P_MAX_RANKS ranks, CES_ERR_INVALID for
 * too many messages or a send without its receive): before anything is
 * made for the group. */
int ces_cuda_group_check(struct ces_ctx *ctx, uint32_t n, const struct ces_p2p_table *t);

/* The group's graph as captured into a CUDA graph: `calls` group calls in
 * one graph phase of `reps` replays (the backend captures one call and
 * proves two replays; more calls and replays prove graphs that hold
 * several), with flags a replay repeats: a one-way message that fits the
 * pair's slots in `st` (the slots captured messages use, apart from the
 * eager ones) is staged - the sender waits until the slot
 * (st->p[s][d].sent + call) % 2 is free (`cbusy` 0 in its memory), marks it
 * busy, copies and announces (`cfull`), the receiver copies out and frees
 * it - and any other goes in place (`cposted`, `cdone`: set by one rank,
 * awaited and reset by the other).  st is not changed (count the call with
 * ces_cuda_group_count).  Same declarations as ces_cuda_group_graph. */
int ces_cuda_group_graph_captured(struct ces_ctx *ctx, uint32_t n, uint64_t stride,
                                  const struct ces_p2p_table *t, uint32_t calls, uint32_t reps,
                                  const struct ces_p2p_stages *st, struct ces_graph **out);

/* Whether s -> d is one way in the group (s declares no receive, d no
 * send), and whether the message of `bytes` is staged: one way, and the
 * pair's slots in st hold it.  Where ranks exchange, the direct protocol's
 * handshake costs nothing extra (all ranks post at once), while a staged
 * message adds its copy-out: 64 MiB ring 194.5 vs 237.9 us on 2x H200; one
 * way, staging spares the sender its wait for the receiver: 181.7 vs 195.7
 * us at 64 MiB, 12.3 vs 27.8 at 1 MiB (docs/PERFORMANCE.md). */
int ces_cuda_group_one_way(const struct ces_p2p_table *t, uint32_t s, uint32_t d);
int ces_cuda_group_staged(const struct ces_p2p_table *t, const struct ces_p2p_stages *st,
                          uint32_t s, uint32_t d, uint64_t bytes);

/* After a group call: every staged message of t counted in st (n ranks; st
 * may be NULL). */
void ces_cuda_group_count(const struct ces_p2p_table *t, struct ces_p2p_stages *st, uint32_t n);

/* Appends group call k as one more block of g (a graph made by
 * ces_cuda_group_graph): several calls in a row, for the checker. */
int ces_cuda_group_add(struct ces_ctx *ctx, struct ces_graph *g, const struct ces_p2p_table *t,
                       uint64_t k, const struct ces_p2p_stages *st);

/* The graph of `calls` eager calls of group t in a row (calls 1, 2, ...;
 * calls >= 1), as ces_group_end issues them: st's staged pairs counted
 * after each (st NULL: every message direct), so consecutive calls
 * alternate slots and a message of at least st->side_min bytes goes the
 * side way in each.  Validated; as ces_cuda_group_graph returns.  The
 * bench predicts ces_send/ces_recv by it (its model's `unlinked`: the
 * streams are neither forked nor joined). */
int ces_cuda_group_calls(struct ces_ctx *ctx, uint32_t n, uint64_t stride,
                         const struct ces_p2p_table *t, uint32_t calls,
                         struct ces_p2p_stages *st, struct ces_graph **out);

/* One process drives every rank: the communicator of local index idx (of
 * nlocal) arrives at ces_group_end.  *last = 1 when it completes the set (the
 * set is then reset for the next group); CES_ERR_INVALID, naming the ranks,
 * when idx arrives twice before the others arrived once.  The caller holds
 * the team lock, and releases it before issuing: issuing the first group
 * allocates signal arrays, which takes the same (non-recursive) lock. */
int ces_cuda_group_arrive(struct ces_ctx *ctx, uint32_t *arrived, uint32_t idx, uint32_t nlocal,
                          int *last);

/* --- the collectives' schedules (select.c) -------------------------------- */

/* The wake chain of a gather, scatter or broadcast (struct
 * ces_coll_params.wake), on H200: it should stay in flight for about
 * CES_CUDA_WAKE_SHARE of the root's copies - the peer copy's start plus
 * (n-1) x bytes at the peer rate - at CES_CUDA_WAKE_COPY_US a piece.  2x
 * H200, scripts/probe_memops.sh one-way-light (a 2-GPU one-way copy between
 * two polled barriers, 40 loops of 100 per shape, twice): the waiting GPU
 * idle, every loop slow (1 / 4 / 16 MiB 24.7 / 33.6 / 66.2 us); such a
 * chain on it, none slow (15.4 / 24.7 / 56.8), as a local copy of four
 * times the bytes (one-way-4b); a copy that ends early (the bytes once)
 * or one to host memory did not help.  At most CES_CUDA_WAKE_MAX_COPIES:
 * behind a long copy a piece can take
 * twice as long (2x H200, `cesync bench broadcast|scatter --root 1
 * [--in-place]`: 206 pieces at 256 MiB made the call 769-1049 us, against
 * 695-698 without; 53 at 64 MiB gained 2-10 us), and a chain that ends
 * early costs at most the slow wake-up (~9 us), one that ends late its
 * whole overrun. */
#define CES_CUDA_WAKE_MAX_COPIES 64u
#define CES_CUDA_WAKE_SHARE 0.78
#define CES_CUDA_WAKE_COPY_US 2.6
#define CES_CUDA_PEER_START_US 5.2
#define CES_CUDA_PEER_BYTES_PER_US 394e3

/* A setting from environment variable `name`: unset or empty is `dflt`;
 * else digits (then K, M or G where `unit` is "bytes") of lo..hi, which
 * `range` writes for the message.  Anything else is CES_ERR_INVALID naming
 * the variable and the value (as the communicators refuse CES_TIMEOUT_MS,
 * CES_P2P_STAGE_MAX and CES_P2P_SIDE_MIN): a lenient read took "2s" for 2,
 * "-1" for 2^64 - 1 and "x" for the default, without a word. */
int ces_cuda_env_setting(struct ces_ctx *ctx, const char *name, const char *range,
                         const char *unit, uint64_t lo, uint64_t hi, uint64_t dflt,
                         uint64_t *out);

/* The wake chain's copies for `ranks` ranks of `bytes` each,
 * 1..CES_CUDA_WAKE_MAX_COPIES. */
uint32_t ces_cuda_wake_copies(uint32_t ranks, uint64_t bytes);

/* The parameters a collective call (ces_alltoall & co.) builds its schedule
 * with: one iteration, `mono` for an eager call; under stream capture one
 * graph phase with `pull`, the barrier an eager phase with `credit`; for
 * every collective but the barrier CES_COLL_F_OVERLAP (the local chunk, of
 * gather, scatter and broadcast the root's, on stream s1, so the call uses
 * two streams); a gather, scatter or broadcast adds the wake chain
 * (ces_cuda_wake_copies: one more stream on the ranks that copy nothing:
 * every rank but the root of scatter and broadcast, gather's root in
 * place). */
void ces_cuda_coll_select(struct ces_coll_params *p, uint32_t coll, uint32_t ranks,
                          uint64_t bytes, uint32_t root, int capturing);
/* Whether rank `rank`'s call runs in place (CES_COLL_F_INPLACE, which then
 * replaces the selected flags), judged by its own pointers alone: allgather
 * send == recv + rank*bytes, gather send == recv + root*bytes (on a rank but
 * the root also recv + rank*bytes), scatter recv == send + root*bytes,
 * broadcast send == recv.  The in-place schedule issues the out-of-place
 * one's barriers and peer copies, so every rank may judge for itself
 * (tests/core/test_coll_inplace.c, and test_select.c at the level of the
 * lowered calls); on a rank but the root of gather, scatter and broadcast
 * the two are the same. */
int ces_cuda_coll_in_place(uint32_t coll, uint32_t rank, uint64_t bytes, uint32_t root,
                           uintptr_t send, uintptr_t recv);
/* That relation in words, for the error that send and recv overlap; NULL
 * for the collectives that never run in place. */
const char *ces_cuda_coll_in_place_rule(uint32_t coll);
/* The lowering flags of such a call: capture, or eager; with the watchdog's
 * writes (progress when eager, enter/exit when captured) when it has a
 * progress page. */
unsigned ces_cuda_coll_lower_flags(int capturing, int progress);
/* The plans of calls 1, 2 and 3 (first_iter = 1, 2, 3) of one shape: 1 if
 * they differ only in memop values and every value is va[i] + vb[i]*(k-1)
 * (modulo the memop's width), filling va, vb [memops of block 0]; 0 if the
 * call must be built per call. */
int ces_cuda_plan_linear(const struct ces_cuda_plan *p1, const struct ces_cuda_plan *p2,
                         const struct ces_cuda_plan *p3, uint64_t *va, uint64_t *vb);
/* The value of memop i in call k of a linear plan. */
uint64_t ces_cuda_patched_value(const uint64_t *va, const uint64_t *vb, size_t i, uint64_t k);

#endif
