/*
 * cesync.h - the one public header of cesync.
 *
 * cesync describes copy-engine transfer-and-sync schedules between the GPUs of
 * one node as an op graph, checks them on the CPU for every interleaving
 * (backend "sim"), runs them on GPUs (backend "cuda") and draws them.
 *
 * Layers, in the order data flows:
 *   program  (struct ces_prog)  the parsed .ces text: symbolic, with r*, over p,
 *                               expressions and phases; printed canonically.
 *   graph    (struct ces_graph) the expanded, concrete op lists: for each
 *                               block (one phase body instance) and rank, the
 *                               ops in host enqueue order, each naming its
 *                               stream; everything a backend consumes.
 *
 * Conventions: every function returns an enum ces_status (0 = CES_OK, negative
 * = error) unless it says otherwise; on error the context's last-error text
 * (ces_ctx_last_error) says what went wrong and where.  That holds for a
 * refused argument too: a NULL pointer argument is CES_ERR_INVALID with
 * "NAME: NULL argument" (NAME the function), unless the context itself is
 * NULL, which leaves nowhere to say it.  A call that returns nothing
 * does nothing given a NULL pointer; ces_malloc and ces_realloc return
 * NULL given a NULL context.  Every object has a create and a destroy;
 * destroy accepts NULL.  Objects are not thread safe;
 * different objects may be used from different threads where they were
 * made with different contexts: the objects of one context write its one
 * last error (a graph's calls, a report's, the calls given it), so two
 * threads failing at once on one context race on it and may each read the
 * other's message.  One context per thread.  ces_dot_write, whose
 * temporary file and Graphviz child are kept process-wide (for their
 * removal on a signal), is one call at a time per process.
 */
#ifndef CESYNC_H
#define CESYNC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CES_BUILDING_LIBRARY)
#define CES_API __attribute__((visibility("default")))
#else
#define CES_API
#endif

#define CES_VERSION_MAJOR 0
#define CES_VERSION_MINOR 4
#define CES_FORMAT_VERSION 1 /* the "cesync 1" line of .ces files */

/* ------------------------------------------------------------------------ */
/* Status codes                                                              */
/* ------------------------------------------------------------------------ */

/* X(name, value, text) */
#define CES_STATUS_MAP(X)                                                      \
    X(CES_OK, 0, "ok")                                                         \
    X(CES_ERR_NOMEM, -1, "out of memory")                                      \
    X(CES_ERR_INVALID, -2, "invalid argument")                                 \
    X(CES_ERR_PARSE, -3, "syntax error")                                       \
    X(CES_ERR_SEMANTIC, -4, "invalid schedule")                                \
    X(CES_ERR_IO, -5, "input/output error")                                    \
    X(CES_ERR_UNSUPPORTED, -6, "not supported")                                \
    X(CES_ERR_LIMIT, -7, "limit exceeded")                                     \
    X(CES_ERR_CUDA, -8, "CUDA error")                                          \
    X(CES_ERR_TIMEOUT, -9, "timed out")                                        \
    X(CES_ERR_PEER_FAILED, -10, "a peer failed")                               \
    X(CES_ERR_SYSTEM, -11, "system call failed")                               \
    X(CES_ERR_INTERNAL, -12, "internal error")

enum ces_status {
#define CES_X_(name, value, text) name = value,
    CES_STATUS_MAP(CES_X_)
#undef CES_X_
};

/* A constant string for a status; "unknown status" for values not listed. */
CES_API const char *ces_status_str(int status);

/* ------------------------------------------------------------------------ */
/* Context: allocation hooks and the last error                             */
/* ------------------------------------------------------------------------ */

/* Allocation hooks.  All memory cesync allocates goes through them, so tests
 * can count live blocks and inject failures.  realloc(ud, NULL, n) must act as
 * malloc; free(ud, NULL) must be a no-op. */
struct ces_alloc {
    void *(*malloc)(void *ud, size_t size);
    void *(*realloc)(void *ud, void *ptr, size_t size);
    void (*free)(void *ud, void *ptr);
    void *ud;
};

struct ces_ctx;

/* Creates a context.  hooks may be NULL for the C library's allocator; the
 * hooks are copied (CES_ERR_INVALID, with no message, where one of the
 * three functions is NULL).  The context itself is allocated with the hooks
 * (CES_ERR_NOMEM when that fails).  Every
 * object made with a context (program, graph, report, communicator) keeps
 * using it until destroyed: destroy them before the context. */
CES_API int ces_ctx_create(const struct ces_alloc *hooks, struct ces_ctx **out);
CES_API void ces_ctx_destroy(struct ces_ctx *ctx);

/* The last error's text ("file:line:col: what was expected"), "" if none.
 * Valid until the next call that fails on this context.  At most 8191
 * bytes: a longer message (a path of more than 8 KB in it) keeps its first
 * 2048 bytes, "..." and its end, which says what is wrong, each cut up to 3
 * bytes aside so as not to split a character of UTF-8 (without memory for
 * the whole message, its first 8191 bytes). */
CES_API const char *ces_ctx_last_error(const struct ces_ctx *ctx);

/* Sets the last error (printf style; fmt NULL: ""; cut in the middle as
 * ces_ctx_last_error says) and returns status, so callers can write
 * `return ces_ctx_error(ctx, CES_ERR_INVALID, "...")`. */
CES_API int ces_ctx_error(struct ces_ctx *ctx, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Memory through the context's hooks; what cesync returns to the caller as a
 * char* (printed text) is freed with ces_free. */
CES_API void *ces_malloc(struct ces_ctx *ctx, size_t size);
CES_API void *ces_realloc(struct ces_ctx *ctx, void *ptr, size_t size);
CES_API void ces_free(struct ces_ctx *ctx, void *ptr);

/* ------------------------------------------------------------------------ */
/* The op graph (concrete)                                                  */
/* ------------------------------------------------------------------------ */

/* X(enum, keyword, synopsis) - one list generates the enum, the keyword table
 * and the synopsis used by the printer, the dot emitter and counterexamples. */
#define CES_OP_MAP(X)                                                          \
    X(CES_OP_COPY, "copy", "copy SRC -> DST")                                  \
    X(CES_OP_BATCH, "batch", "batch (start of an unordered copy set)")         \
    X(CES_OP_END, "end", "end (the batch completes)")                          \
    X(CES_OP_WRITE, "write", "write SLOT = V")                                 \
    X(CES_OP_WAIT, "wait", "wait SLOT >= V | wait SLOT == V")                  \
    X(CES_OP_FENCE, "fence", "fence (memop barrier)")                          \
    X(CES_OP_FLUSH, "flush", "flush (flush remote writes)")                    \
    X(CES_OP_RECORD, "record", "record E")                                     \
    X(CES_OP_AWAIT, "await", "await E")                                        \
    X(CES_OP_PRODUCE, "produce", "produce REGION")                             \
    X(CES_OP_CONSUME, "consume", "consume REGION [== REGION@q]")

enum ces_op_kind {
#define CES_X_(e, kw, syn) e,
    CES_OP_MAP(CES_X_)
#undef CES_X_
    CES_OP_COUNT
};

CES_API const char *ces_op_kind_name(int kind);     /* "copy", ...; NULL if out of range */
CES_API const char *ces_op_kind_synopsis(int kind); /* "copy SRC -> DST", ... */

enum ces_width { CES_U32 = 32, CES_U64 = 64 };
enum ces_cmp { CES_CMP_GEQ = 0, CES_CMP_EQ = 1 }; /* u32 GEQ is cyclic */
enum ces_phase_kind { CES_PHASE_EAGER = 0, CES_PHASE_GRAPH = 1 };

/* A slot's rank field for `@*` (a write to every rank's slot): ces_graph_add_op
 * turns such a write into one unicast write per rank, rank 0 first, the
 * writes the CUDA backend issues, so a graph never holds it. */
#define CES_RANK_ALL UINT32_MAX

/* Largest size of a buffer and largest offset: 2^48 bytes. */
#define CES_MAX_BYTES (UINT64_C(1) << 48)
#define CES_MAX_RANKS 1024u
#define CES_MAX_STREAMS 64u

/* A byte range [lo, hi) of buffer `buf` on rank `rank`. */
struct ces_region {
    uint32_t buf;
    uint32_t rank;
    uint64_t lo;
    uint64_t hi;
};

/* Slot `idx` of signal array `sig` on rank `rank` (or CES_RANK_ALL). */
struct ces_slot {
    uint32_t sig;
    uint32_t rank;
    uint32_t idx;
};

enum ces_op_flags {
    CES_OPF_EXPECT = 1u << 0, /* consume: `== b` is present */
    CES_OPF_FROZEN = 1u << 1  /* the op's expressions used $i inside a graph phase */
};

/* One op: a fixed-shape record that refers to buffers, signals and events by
 * index into the graph's tables.  Fields a kind does not use are zero. */
struct ces_op {
    uint8_t kind;   /* enum ces_op_kind */
    uint8_t cmp;    /* wait: enum ces_cmp */
    uint8_t flags;  /* enum ces_op_flags */
    uint8_t pad_;
    uint32_t stream;
    struct ces_region a; /* copy: source; produce, consume: the region */
    struct ces_region b; /* copy: destination; consume: the expected region */
    struct ces_slot slot; /* write, wait */
    uint64_t value;       /* write, wait; already reduced mod 2^32 for u32 */
    uint32_t event;       /* record, await: index into the event table */
    uint32_t line;        /* source position of the op, 0 when built by API (a
                             caller's own is kept, and messages cite it) */
    uint32_t col;
};

struct ces_buffer_info {
    const char *name;
    uint64_t size; /* bytes per rank */
};

struct ces_signal_info {
    const char *name;
    uint32_t width; /* enum ces_width */
    uint32_t slots; /* per rank */
};

/* A block is one instance of a phase body.  An eager phase xK becomes K
 * blocks with reps 1; a graph phase xK becomes one block with reps K whose
 * values were evaluated once (at $i = first_iter) and are replayed K times.
 * Replay j (0-based) of a block is global iteration first_iter + j. */
struct ces_block_info {
    uint32_t kind;       /* enum ces_phase_kind */
    uint32_t reps;
    uint64_t first_iter; /* 1-based */
};

struct ces_graph;

/* Creates an empty graph of `ranks` ranks and `streams` streams per rank:
 * CES_ERR_INVALID for ranks outside 1..CES_MAX_RANKS or streams outside
 * 1..CES_MAX_STREAMS. */
CES_API int ces_graph_create(struct ces_ctx *ctx, uint32_t ranks, uint32_t streams,
                             struct ces_graph **out);
CES_API void ces_graph_destroy(struct ces_graph *g);

/* 0 = one hardware queue per stream (default); N > 0 = stream s enters FIFO
 * queue s mod N (N at least the streams: one each, as 0).  ces_launch runs
 * a graph only where the process's queues are these (docs/FORMAT.md).
 * CES_CONNECTIONS_ANY (`connections any`): whatever queues CUDA gives the
 * streams - checked under every assignment of each rank's streams to
 * queues, run under any CUDA_DEVICE_MAX_CONNECTIONS.  CES_ERR_INVALID for
 * any other value above CES_MAX_STREAMS. */
#define CES_CONNECTIONS_ANY UINT32_MAX
CES_API int ces_graph_set_connections(struct ces_graph *g, uint32_t connections);

/* Tables.  Names are copied; they must be identifiers, unique per table,
 * and buffers and signals share one name space (the .ces format and
 * ces_launch's bindings name both alike): a buffer may not take a signal's
 * name, nor a signal a buffer's (CES_ERR_INVALID).  The index of the new
 * entry is stored in *idx (may be NULL).  CES_ERR_INVALID too for a buffer
 * size outside 1..2^48 (CES_MAX_BYTES), a signal width other than CES_U32
 * or CES_U64, or signal slots outside 1..2^24. */
CES_API int ces_graph_add_buffer(struct ces_graph *g, const char *name, uint64_t size,
                                 uint32_t *idx);
CES_API int ces_graph_add_signal(struct ces_graph *g, const char *name, uint32_t width,
                                 uint32_t slots, uint32_t *idx);
CES_API int ces_graph_add_event(struct ces_graph *g, const char *name, uint32_t *idx);
/* Named constants are kept for printing only (they are already folded into
 * the ops), as `let` lines: r, n, p and i are refused (CES_ERR_INVALID). */
CES_API int ces_graph_add_const(struct ces_graph *g, const char *name, int64_t value);

/* Starts a new block; later ops go into it.  reps must be 1 for eager and
 * at least 1 for graph, kind one of enum ces_phase_kind (else
 * CES_ERR_INVALID). */
CES_API int ces_graph_add_block(struct ces_graph *g, uint32_t kind, uint32_t reps);

/* Appends a copy of *op to rank `rank`'s list in the current block (the
 * host's enqueue order on that rank); a write to CES_RANK_ALL appends one
 * write per rank.  Checks the indices against the tables
 * and the ranges against the sizes (CES_ERR_INVALID, as for a rank out of
 * range or no block added yet); a full check of the whole graph is
 * ces_graph_validate.  Fields the op's kind does not use (and flags but
 * CES_OPF_FROZEN, and CES_OPF_EXPECT on a consume) are stored as zero. */
CES_API int ces_graph_add_op(struct ces_graph *g, uint32_t rank, const struct ces_op *op);

/* Whole-graph checks: every batch has its end on the same stream, copies in
 * one batch do not overlap, every await has a record before it in enqueue
 * order, flush/fence legal, ...  Errors name the op (`r1.s0#7`) and its source
 * line:col if it has one.  `file` may be NULL.  The consumers that take a
 * validated graph (ces_check, ces_check_fault_sweep, ces_promela_emit,
 * ces_model_predict, ces_launch) run these checks themselves on a graph that has had an
 * op or block added since its last successful validation (or never had
 * one), and refuse it with CES_ERR_SEMANTIC and this function's message
 * after what they do and "the graph does not validate: " ("check: ",
 * "fault sweep: ", "promela: ", "predict: ", "lower: "). */
CES_API int ces_graph_validate(struct ces_graph *g, const char *file);

/* The accessors below read the graph's tables.  The graph must not be NULL
 * and their indexes must be in range (i below the table's count, b below
 * ces_graph_nblocks, rank below ces_graph_ranks): they are the inner loops
 * of the checker, the model and the lowering, and check neither. */
CES_API uint32_t ces_graph_ranks(const struct ces_graph *g);
CES_API uint32_t ces_graph_streams(const struct ces_graph *g);
CES_API uint32_t ces_graph_connections(const struct ces_graph *g);
/* The header settings of a .ces file whose place a graph keeps. */
enum ces_setting { CES_SETTING_RANKS = 0, CES_SETTING_STREAMS = 1, CES_SETTING_CONNECTIONS = 2 };
/* Where the file g was expanded from gives setting `which` (enum
 * ces_setting): its line, and in *col (may be NULL) its value's column; 0
 * (and *col 0) where no line gives it - a graph built op by op or by
 * ces_coll_build (from builder options, no file), a setting left at its
 * default, connections set by ces_graph_set_connections since, or `which`
 * out of range.  A refusal of g because of such a setting
 * (the model's GPUs, the process's hardware queues, the checker's bounds)
 * names its place as an op's is named: "9 ranks (line 2:7), ...". */
CES_API uint32_t ces_graph_setting_line(const struct ces_graph *g, uint32_t which, uint32_t *col);
CES_API uint32_t ces_graph_nbuffers(const struct ces_graph *g);
CES_API struct ces_buffer_info ces_graph_buffer(const struct ces_graph *g, uint32_t i);
CES_API uint32_t ces_graph_nsignals(const struct ces_graph *g);
CES_API struct ces_signal_info ces_graph_signal(const struct ces_graph *g, uint32_t i);
CES_API uint32_t ces_graph_nevents(const struct ces_graph *g);
CES_API const char *ces_graph_event(const struct ces_graph *g, uint32_t i);
CES_API uint32_t ces_graph_nconsts(const struct ces_graph *g);
CES_API const char *ces_graph_const(const struct ces_graph *g, uint32_t i, int64_t *value);
CES_API uint32_t ces_graph_nblocks(const struct ces_graph *g);
CES_API struct ces_block_info ces_graph_block(const struct ces_graph *g, uint32_t b);
/* The ops of rank `rank` in block `b`, in enqueue order; *n receives the count.
 * The array stays as it is until the graph is destroyed, but for the last
 * block's: those move, and the array is reused, when an op or a block is
 * added (ces_graph_add_op, ces_graph_add_block).  A block whose ops are the
 * block's before it (every rank's alike) may return that block's array. */
CES_API const struct ces_op *ces_graph_ops(const struct ces_graph *g, uint32_t b,
                                           uint32_t rank, uint32_t *n);
/* The total number of iterations (sum of reps over blocks). */
CES_API uint64_t ces_graph_iterations(const struct ces_graph *g);
/* Looks a buffer / signal / event up by name; -1 if absent. */
CES_API int64_t ces_graph_find_buffer(const struct ces_graph *g, const char *name);
CES_API int64_t ces_graph_find_signal(const struct ces_graph *g, const char *name);
CES_API int64_t ces_graph_find_event(const struct ces_graph *g, const char *name);

/* Structural equality (tables, blocks, ops; source positions ignored); NULL
 * equals only NULL. */
CES_API int ces_graph_equal(const struct ces_graph *a, const struct ces_graph *b);

/* Formats one op as .ces text without the `WHO :` prefix, e.g.
 * "wait ready[0]@1 == 3" (a write to CES_RANK_ALL as "@*"), into buf
 * (always NUL-terminated).  Returns the length it needed, like snprintf;
 * -1 (buf "") when g or op is NULL, op's kind is unknown, it names a
 * buffer, signal, slot or event g does not have, a wait's compare is
 * neither >= nor ==, or memory for it ran out. */
CES_API int ces_op_format(const struct ces_graph *g, uint32_t rank, const struct ces_op *op,
                          char *buf, size_t size);

enum ces_print_flags {
    CES_PRINT_EXPLAIN = 1u << 0 /* annotate ops whose $i was frozen by a graph phase */
};

/* Writes the graph as concrete .ces text (`rN sM : op` lines, one block per
 * `phase` line).  Parsing the result and expanding it gives an equal graph
 * for every graph the text can hold: one expanded from .ces text or built
 * by ces_coll_build, and one built op by op that has a block, numbers its
 * events in the order of their first use block by block and rank by rank
 * (the order of the text; an event no op uses is not written) and writes
 * and awaits no u64 value above 2^63-1 (the text's largest number).
 * *text is allocated with the context's hooks; free with ces_free. */
CES_API int ces_graph_print(struct ces_ctx *ctx, const struct ces_graph *g, unsigned flags,
                            char **text, size_t *len);

/* ------------------------------------------------------------------------ */
/* The .ces text format (program level)                                     */
/* ------------------------------------------------------------------------ */

struct ces_prog;

/* Parses .ces text.  `file` names the input in errors (may be NULL: "<input>");
 * `text` may be NULL where `len` is 0 (an empty text: "expected 'cesync 1'").
 * On a syntax error returns CES_ERR_PARSE with "file:line:col: expected ...";
 * what the parser already knows to be wrong (a header value out of range,
 * an undefined name, $p outside `over`, overflow in a header expression)
 * is CES_ERR_SEMANTIC, and an expression nested over 64 levels or a
 * statement of over 4096 expression terms CES_ERR_LIMIT, each at its
 * file:line:col.  Text of more than 256 MiB (`len`) is CES_ERR_LIMIT before
 * any of it is read ("file: larger than 268435456 bytes, more than it may
 * hold"), as ces_prog_parse_file refuses such a file. */
CES_API int ces_prog_parse(struct ces_ctx *ctx, const char *text, size_t len, const char *file,
                           struct ces_prog **out);
/* Reads and parses a file; "-" is standard input.  CES_ERR_IO when it cannot
 * be opened or read, CES_ERR_LIMIT when it holds more than 256 MiB. */
CES_API int ces_prog_parse_file(struct ces_ctx *ctx, const char *path, struct ces_prog **out);
CES_API void ces_prog_destroy(struct ces_prog *p);

/* Canonical text: printing the parse of canonical text gives the same text. */
CES_API int ces_prog_print(struct ces_ctx *ctx, const struct ces_prog *p, char **text,
                           size_t *len);

/* Expands r*, over p, expressions, phases and iterations into a graph and
 * validates it.  Semantic errors (CES_ERR_SEMANTIC) name file:line:col;
 * CES_ERR_LIMIT, before anything is expanded, past 2^20 blocks (an eager
 * phase's iterations each, a graph phase one), 2^24 blocks times ranks or
 * 2^24 ops (docs/FORMAT.md). */
CES_API int ces_prog_expand(struct ces_ctx *ctx, const struct ces_prog *p,
                            struct ces_graph **out);

/* Parse + expand in one call, for a path ("-" = stdin): the errors of
 * ces_prog_parse_file and ces_prog_expand. */
CES_API int ces_graph_load(struct ces_ctx *ctx, const char *path, struct ces_graph **out);

/* ------------------------------------------------------------------------ */
/* Collective builders                                                      */
/* ------------------------------------------------------------------------ */

#define CES_COLL_MAP(X)                                                        \
    X(CES_COLL_ALLTOALL, "alltoall")                                           \
    X(CES_COLL_ALLGATHER, "allgather")                                         \
    X(CES_COLL_GATHER, "gather")                                               \
    X(CES_COLL_SCATTER, "scatter")                                             \
    X(CES_COLL_BROADCAST, "broadcast")                                         \
    X(CES_COLL_SENDRECV, "sendrecv")                                           \
    X(CES_COLL_BARRIER, "barrier")

enum ces_coll {
#define CES_X_(e, name) e,
    CES_COLL_MAP(CES_X_)
#undef CES_X_
    CES_COLL_COUNT
};

#define CES_PROTO_MAP(X)                                                       \
    X(CES_PROTO_NCCL, "nccl")                                                  \
    X(CES_PROTO_MONO, "mono")                                                  \
    X(CES_PROTO_CREDIT, "credit")                                              \
    X(CES_PROTO_PULL, "pull")

enum ces_proto {
#define CES_X_(e, name) e,
    CES_PROTO_MAP(CES_X_)
#undef CES_X_
    CES_PROTO_COUNT
};

CES_API const char *ces_coll_name(int coll);   /* NULL if out of range */
CES_API int ces_coll_from_name(const char *name); /* -1 if unknown */
CES_API const char *ces_proto_name(int proto);
CES_API int ces_proto_from_name(const char *name);

#define CES_MAX_PAIRS 64u

struct ces_coll_params {
    uint32_t coll;       /* enum ces_coll */
    uint32_t proto;      /* enum ces_proto */
    uint32_t ranks;      /* 1..CES_MAX_RANKS (sendrecv: from 2) */
    uint64_t bytes;      /* bytes per rank (alltoall: per peer chunk is bytes/ranks;
                          * barrier: ignored) */
    uint32_t iterations; /* >= 1 */
    uint32_t phase;      /* enum ces_phase_kind */
    uint32_t root;       /* gather, scatter, broadcast */
    /* sendrecv: pairs[i] = {sender, receiver}; npairs 0 = the pipeline
     * 0->1->...->ranks-1. */
    uint32_t npairs;
    uint32_t pairs[CES_MAX_PAIRS][2];
    uint32_t chunks; /* sendrecv: chunks per message (default 4 when 0; at most
                      * CES_COLL_MAX_CHUNKS) */
    uint32_t slots;  /* sendrecv: receive slots in flight (default 2 when 0, 1
                      * with CES_PROTO_CREDIT and one chunk; at most
                      * CES_COLL_MAX_CHUNKS) */
    uint32_t flags;  /* algorithm variant bits, CES_COLL_F_*; 0 = the plain algorithm */
    uint64_t first_iter; /* the value of $i in the first iteration (default 1).
                          * nccl's u32 flags count 2*$i modulo 2^32: from
                          * 2^31 a schedule built alone checks as RACE: its
                          * flags start at 0, where in a run the calls
                          * before it leave the previous call's values.
                          * sendrecv's nccl and mono flags count chunks
                          * across calls: from 2, with more than one slot,
                          * its sender first awaits a credit that the call
                          * before returned, so built alone it checks as
                          * HANG or DEADLOCK */
    /* alltoall, allgather, gather, scatter, broadcast: copies in the wake
     * chain (0 = none; at most CES_COLL_MAX_WAKE).  Every rank of alltoall
     * and allgather, and of the rooted collectives each rank that copies
     * nothing at all (every rank but the root of scatter and broadcast, the
     * root of gather in place) forks a stream at the start of each
     * iteration that copies `wake` pieces of CES_COLL_WAKE_PIECE bytes
     * within a private buffer `wake`, in one batch, and joins it at the
     * end.  On H200 a stream memop wait on a GPU whose copy engines are
     * idle wakes about 9 us after its flag is written; with a copy in
     * flight on that GPU it wakes at once (docs/PERFORMANCE.md, "A rank
     * that only waits").  The chain moves next to nothing; its length is a
     * time: a batch runs its copies one after another, about 2.6 us each on
     * H200.  The backend runs it in gather, scatter and broadcast; in
     * alltoall and allgather it did not help. */
    uint32_t wake;
};

#define CES_COLL_MAX_CHUNKS 1024u
#define CES_COLL_MAX_WAKE 256u
#define CES_COLL_WAKE_PIECE 4096u
/* The size of the chain's buffer `wake` (2 MiB): CES_COLL_MAX_WAKE pieces
 * copied from its lower half into its upper half. */
#define CES_COLL_WAKE_BYTES (2u * CES_COLL_MAX_WAKE * CES_COLL_WAKE_PIECE)

/* Algorithm variants (struct ces_coll_params.flags), core/coll/overlap.c.
 * Both move the local chunk (the copy a rank makes into its own recv) off the
 * path of the peer copies; a batch runs its copies one after another on H200,
 * so in the plain algorithm the local copy adds its whole time.
 *   OVERLAP  alltoall, allgather, and the root of gather, scatter and
 *            broadcast: the local copy runs on stream s1 (record / await
 *            around it), beside the barrier and the peer batch on s0.
 *   EARLY    alltoall, allgather: one stream; the local copy is enqueued
 *            between the ready barrier's flag writes and its waits, so it runs
 *            while the flags travel (no events: for small messages).
 * At most one of them; other collectives reject them (CES_ERR_UNSUPPORTED).
 *   INPLACE  allgather, gather, scatter, broadcast (core/coll/inplace.c): a
 *            rank's own block already lies where it belongs, so its local
 *            copy goes away - allgather: every rank's part is its block of
 *            recv (recv + r*bytes; no send buffer); gather: the root's part
 *            is its block of recv; scatter: the root's recv is its block of
 *            send (send + root*bytes); broadcast: the root's send is its recv
 *            (no send buffer).  The barriers and the copies to peers are the
 *            out-of-place ones, so each rank may choose for itself; a rank
 *            reads its own block against itself (it must still hold what
 *            the rank produced).  alltoall, sendrecv and barrier reject it
 *            (CES_ERR_UNSUPPORTED); with OVERLAP or EARLY, which move the
 *            local copy, it is CES_ERR_INVALID where they apply. */
#define CES_COLL_F_OVERLAP (1u << 0)
#define CES_COLL_F_EARLY (1u << 1)
#define CES_COLL_F_INPLACE (1u << 2)
/*   DIRECTED  gather, scatter, broadcast (core/coll/sync.c): each barrier
 *            runs one way, as the copies do.  Broadcast and scatter: the
 *            ranks but the root signal that their recv is free and only the
 *            root waits; then the root signals that its pushes have landed
 *            and only they wait.  Gather the reverse.  Combines with OVERLAP
 *            and INPLACE; other collectives reject it (CES_ERR_UNSUPPORTED). */
#define CES_COLL_F_DIRECTED (1u << 3)

/* Fills *p with the defaults for `coll` (mono, eager, 2 ranks, 1024 bytes,
 * 1 iteration, root 0). */
CES_API void ces_coll_params_init(struct ces_coll_params *p, uint32_t coll);

/* Generates the .ces program text of a collective.  CES_ERR_INVALID, naming
 * the field, for parameters out of range (coll, proto, ranks, bytes, ranks
 * x bytes past 2^48, root, iterations, phase, first_iter, wake, alltoall's
 * bytes not a multiple of ranks, sendrecv's pairs, chunks and slots) or
 * flags that contradict each other;
 * CES_ERR_UNSUPPORTED if the protocol cannot express that collective or
 * phase kind, or the collective takes no such flag; CES_ERR_LIMIT, before
 * writing it, for a text that could not expand (nccl's eager barrier, a
 * phase per iteration: past 2^20 iterations, 2^24 / ranks from 17 ranks;
 * or past 2^24 ops, with the expansion's message naming the line of the
 * first op past them, "barrier:LINE:COL: the schedule expands to more than
 * 16777216 ops: use fewer ops").
 * ces_coll_program and ces_coll_build return these too, before they parse
 * (and expand) the text. */
CES_API int ces_coll_source(struct ces_ctx *ctx, const struct ces_coll_params *p, char **text,
                            size_t *len);
/* Source + parse: the symbolic program. */
CES_API int ces_coll_program(struct ces_ctx *ctx, const struct ces_coll_params *p,
                             struct ces_prog **out);
/* Source + parse + expand + validate: the graph. */
CES_API int ces_coll_build(struct ces_ctx *ctx, const struct ces_coll_params *p,
                           struct ces_graph **out);

/* ------------------------------------------------------------------------ */
/* Graphviz                                                                 */
/* ------------------------------------------------------------------------ */

/* An overlay drawn over the schedule (a counterexample); NULL for none.
 * Ops are named by (block, rank, index in the rank's list of the block) and
 * the replay of a graph phase's block (0 in an eager block).  A node stands
 * for its op in every replay: a BLOCKED mark in a block of more than one
 * replay adds "blocked at #K" to it, K the op's position in that replay, a
 * STOPPED mark "stopped before #K"; an op with both (the watchdog released
 * it in one replay, a fault stopped its stream before it in another) is
 * drawn in red and teal halves.  A `batch` or `end` is no node: a BLOCKED
 * mark on one paints its batch's box red, a STOPPED mark teal, both in
 * halves, saying which (and where, in a block of more than one replay);
 * its other marks are not drawn. */
struct ces_dot_mark {
    uint32_t block, rank, index;
    uint32_t step;  /* 1-based step number to print on the node, 0 = none */
    uint32_t style; /* enum ces_dot_style */
    uint32_t rep;   /* the replay, from 0: below the block's reps */
};
/* BLOCKED: where a stream is blocked (red), or an op the watchdog released;
 * STOPPED: the op a fault stopped its stream before (teal), told apart
 * from a stream that hangs; RACE: a racing access; MISMATCH: the consume
 * that found wrong bytes */
enum ces_dot_style {
    CES_DOT_STEP = 0,
    CES_DOT_BLOCKED = 1,
    CES_DOT_RACE = 2,
    CES_DOT_MISMATCH = 3,
    CES_DOT_STOPPED = 4
};

/* cycle: a DEADLOCK's wait-for cycle, each op waiting for the next and the
 * last for the first, drawn as thick dark red edges (to a `batch` or `end`
 * at its box; step and style unused); NULL with ncycle 0 for none. */
struct ces_dot_overlay {
    const struct ces_dot_mark *marks;
    size_t nmarks;
    const char *title; /* e.g. the verdict line; may be NULL */
    const struct ces_dot_mark *cycle;
    size_t ncycle;
};

/* Writes the graph as Graphviz dot: a cluster per rank, a lane per stream,
 * ops in program order, dashed write -> wait edges, dotted record -> await
 * edges, data edges for remote copies, a legend.  Deterministic.  Free *text with ces_free.
 * CES_ERR_INVALID for an overlay whose marks (cycle) are NULL with nmarks
 * (ncycle) > 0, or a mark (an op of the cycle) that names a block, rank, op
 * or replay the graph does not have, or a mark of an unknown style. */
CES_API int ces_dot_emit(struct ces_ctx *ctx, const struct ces_graph *g,
                         const struct ces_dot_overlay *overlay, char **text, size_t *len);

/* Writes dot text to `path`: .dot as is; .svg / .png through Graphviz `dot`
 * (CES_ERR_UNSUPPORTED with a message when `dot` is not installed); the
 * ending in either case (x.SVG as x.svg); a name with another ending is
 * CES_ERR_INVALID, nothing written.  `path`
 * is replaced only when complete: the output goes to a temporary file beside
 * it (PATH.XXXXXX, with the mode `path` has or a new file would get), renamed
 * over it; on an error (CES_ERR_IO, also for a `dot` that fails or that
 * exits 0 having written nothing; CES_ERR_SYSTEM when `dot` cannot be
 * started or waited for) the temporary file is removed and `path` is left
 * as it was.  A file the process may not write (by its effective user and
 * groups, faccessat(2) with AT_EACCESS) is CES_ERR_IO, as open(2) refuses
 * it.  A symbolic link stays and the file it names is
 * replaced (a chain of more than 40 links, as a loop is, is CES_ERR_IO,
 * as open(2) refuses it); a `path` that is no regular file (a device, a
 * named pipe) is written in place, and a name of one of the process's
 * descriptors (/dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N of its PID,
 * /proc/PID/task/TID/fd/N of a thread of it, a link to one as /dev/stdout
 * is) through that descriptor at its offset (CES_ERR_IO for one not open,
 * a directory or one opened for reading).
 * One call at a time per process, from any thread. */
CES_API int ces_dot_write(struct ces_ctx *ctx, const char *dot_text, const char *path);

/* ------------------------------------------------------------------------ */
/* Backends                                                                 */
/* ------------------------------------------------------------------------ */

#define CES_BACKEND_ABI_VERSION 1

/* The backend boundary, grouped by object lifetime.  A backend fills in a
 * const instance; the umbrella library lists them (ces_backend_find).
 *   probe:    is the backend usable on this machine?  CES_OK or an error with
 *             a message (e.g. no GPU).
 *   prepare:  builds the backend's state for one validated graph and its
 *             options (`opts` is backend specific, may be NULL).
 *   launch:   starts executing/exploring it.
 *   poll:     CES_OK when finished (then *verdict holds enum ces_verdict
 *             bits), 1 while still running, negative on error.
 *   destroy:  frees the state; accepts NULL. */
struct ces_backend_ops {
    int abi_version;
    const char *name;
    int (*probe)(struct ces_ctx *ctx);
    int (*prepare)(struct ces_ctx *ctx, const struct ces_graph *g, const void *opts,
                   void **state);
    int (*launch)(void *state);
    int (*poll)(void *state, uint32_t *verdict);
    void (*destroy)(void *state);
};

/* Checker and runner verdicts: results, not errors. */
enum ces_verdict {
    CES_V_OK = 0,
    CES_V_DEADLOCK = 1u << 0,
    CES_V_HANG = 1u << 1,
    CES_V_RACE = 1u << 2,
    CES_V_MISMATCH = 1u << 3,
    CES_V_INCOMPLETE = 1u << 4
};

/* The backends compiled into this library, NULL-terminated. */
CES_API const struct ces_backend_ops *const *ces_backends(void);
/* The backend of that name, NULL if not compiled in. */
CES_API const struct ces_backend_ops *ces_backend_find(const char *name);

/* ------------------------------------------------------------------------ */
/* The model checker (backend "sim")                                        */
/* ------------------------------------------------------------------------ */
/* (section owned by backend/sim) */

/* The checker explores every execution of a validated graph under the
 * semantics of docs/SEMANTICS.md and reports DEADLOCK, HANG, RACE and
 * MISMATCH (enum ces_verdict bits) with counterexamples, or INCOMPLETE when
 * a bound stopped it.  Positions are written rR.sS#K (K = index of the op in
 * the stream's unrolled program).  All results live in a report object that
 * owns every pointer it hands out. */

/* Injected faults. */
enum ces_fault_kind {
    CES_FAULT_DROP = 0, /* drop:rR.sS#K - that write executes but never lands */
    CES_FAULT_STOP = 1, /* stop:rR.sS#K - the stream stops before its K-th op (dead);
                           stop:rR#K (stream CES_FAULT_RANK) - the rank's process dies before
                           its K-th op in enqueue order: each of its streams stops there */
    CES_FAULT_DELAY = 2 /* delay:rR.sS#K - that write executes, its stream goes on, and it
                           lands at any later moment (after later ops of its stream, too) */
};

struct ces_fault {
    uint32_t kind; /* enum ces_fault_kind */
    uint32_t rank, stream, index;
};
/* The stream of a stop of a whole rank (stop:rR#K). */
#define CES_FAULT_RANK UINT32_MAX

/* Parses "drop:r1.s0#3" / "stop:r0.s1#2" / "stop:r0#5" / "delay:r0.s0#1":
 * decimal R and K up to UINT32_MAX, S up to CES_FAULT_RANK - 1, leading
 * zeros read as the .ces format reads them ("r01" is r1), nothing after K.
 * CES_ERR_INVALID (*out untouched) with a message saying what is wrong: the
 * position expected, a number out of range ("rank r4294967296 is out of
 * range: at most r4294967295"; stream, op index alike), or what follows the
 * position ("unexpected ' ' after 'drop:r0.s0#1'").  The position is checked
 * against a graph only by ces_check. */
CES_API int ces_fault_parse(struct ces_ctx *ctx, const char *spec, struct ces_fault *out);
/* "drop", "stop", "delay"; NULL if out of range. */
CES_API const char *ces_fault_kind_name(uint32_t kind);
/* Formats a fault as ces_fault_parse reads it; returns the length needed
 * (snprintf style), -1 (buf "") when f is NULL or its kind unknown. */
CES_API int ces_fault_format(const struct ces_fault *f, char *buf, size_t size);

enum ces_check_mode {
    CES_CHECK_EXHAUSTIVE = 0, /* every execution (with or without reduction) */
    CES_CHECK_RANDOM = 1,     /* `random` complete executions: a sample, never a proof */
    CES_CHECK_REPLAY = 2      /* exactly the execution of `replay` */
};

/* Running totals, passed to the progress callback and kept in the report. */
struct ces_check_stats {
    uint32_t mode;         /* enum ces_check_mode */
    uint32_t complete;     /* 1: the search covered everything it promised */
    uint64_t states;       /* distinct states stored (exhaustive mode; 0 otherwise) */
    uint64_t transitions;  /* steps executed */
    uint64_t executions;   /* complete executions (end states) reached */
    uint64_t aborted;      /* end states in which the watchdog model fired */
    uint64_t max_depth;    /* longest execution, in steps */
    double seconds;        /* wall-clock time */
    uint64_t peak_memory;  /* bytes the checker held at most, its model's building
                              included */
    uint64_t race_free_states; /* of states, the second search's: a MISMATCH among
                                  race-free executions (docs/SEMANTICS.md section 10,
                                  "Waits run early"); 0 when none was needed */
    uint64_t slice_states; /* of states, the searches of the schedule without some
                              signals' writes and waits, for a RACE or MISMATCH
                              (docs/SEMANTICS.md section 10, "Data judged without
                              some signals"); 0 when none was tried */
    uint64_t sample_executions; /* of executions, random ones run within the exhaustive
                                   search to find classes sooner (docs/SEMANTICS.md
                                   section 10, "Classes found by sampling"); 0 when
                                   none ran */
};

/* How far the checker's model of a schedule has come, passed to
 * build_progress: each process's program unrolled (a graph block's ops once
 * per replay), then passes over the unrolled ops that index them. */
struct ces_check_build {
    const char *step;      /* what it does now, a constant string: "unrolling the ops",
                              "clearing a table", "queuing the ops", "indexing the slots",
                              "grouping the writes", "finding the data ends", ... */
    uint64_t step_done;    /* that step's work done, of step_total, in units of its own
                              (a visit of an op, a link, a byte cleared); step_total 0
                              where it cannot tell */
    uint64_t step_total;
    uint64_t unrolled;     /* ops unrolled so far */
    uint64_t ops;          /* of all processes' ops once unrolled (0 until counted) */
    double seconds;        /* wall-clock time since the ces_check call (a delay
                              fault's derived graph and a `connections any` check's
                              earlier assignments included) */
    uint64_t memory;       /* bytes the model holds (as ces_check_stats.peak_memory counts) */
};

enum ces_check_flags {
    CES_CHECK_NO_REDUCTION = 1u << 0, /* reference mode: every step is a choice point */
    CES_CHECK_ABORT = 1u << 1,        /* the watchdog model (docs/SEMANTICS.md section 9) */
    CES_CHECK_FIRST = 1u << 2,        /* stop at the first defect found: the verdict is that
                                         class plus CES_V_INCOMPLETE (other classes may exist) */
    CES_CHECK_UNLINKED = 1u << 3      /* a rank's streams pass block and replay boundaries
                                         apart, not forked and joined there: a run of eager
                                         point-to-point groups, as ces_group_end issues them
                                         (docs/SEMANTICS.md section 1) */
};

/* Options of one check.  Fill with ces_check_opts_init, then override.
 * Pointers are borrowed for the duration of the ces_check call. */
struct ces_check_opts {
    uint32_t flags;        /* enum ces_check_flags; a bit it does not name is
                              CES_ERR_INVALID */
    uint64_t max_states;   /* 0 = no bound; hitting a bound gives CES_V_INCOMPLETE */
    double max_seconds;    /* 0 = no bound; counts the model's building too, a
                              delay fault's derived graph before it, the
                              search's initial state after it, and
                              spent_seconds; a finite number >= 0, else
                              CES_ERR_INVALID; ces_check_fault_sweep: the bound of
                              the whole sweep */
    uint64_t max_depth;    /* exhaustive mode: a state reached after this many steps or
                              more is not followed further unless it is an end state
                              (judged); 0 = no bound; a cut gives CES_V_INCOMPLETE */
    uint64_t max_memory;   /* bytes; 0 = no bound; ces_check_fault_sweep: its rows
                              and each check together */
    uint64_t random;       /* N > 0: random mode, N complete executions */
    uint64_t seed;         /* random mode's seed */
    const struct ces_fault *faults; /* injected faults, several at once but none
                                       that repeats or voids another: not the
                                       same fault twice, a write dropped and
                                       delayed, two stops of one stream or one
                                       rank, a stop another makes change
                                       nothing (docs/SEMANTICS.md section 9) */
    size_t nfaults;
    const char *replay;    /* non-NULL: replay mode, re-runs exactly that execution */
    /* Non-NULL: the hardware queues in place of the graph's connections
     * (docs/SEMANTICS.md section 2): rank r's stream s enters FIFO queue
     * queue_map[r * streams + s] (0..streams-1) of rank r, in the rank's
     * enqueue order; streams on one queue share it.  Any assignment CUDA
     * may make (ces_queue_map_next lists them); [ranks * streams] values. */
    const uint32_t *queue_map;
    /* Called about every progress_seconds with the totals so far, from the
     * checking thread, their seconds since the ces_check call (a delay
     * fault's derived graph and a `connections any` check's earlier
     * assignments included; the report's are its search's); NULL for none. */
    void (*progress)(void *ud, const struct ces_check_stats *stats);
    void *progress_ud;
    /* How often progress, sweep_progress and build_progress are called, in
     * seconds: 2 from ces_check_opts_init, and 0 means that default too (not
     * every step); a finite number >= 0, else ces_check refuses with
     * CES_ERR_INVALID. */
    double progress_seconds;
    /* ces_check_fault_sweep: called about every progress_seconds with the
     * faults checked so far (each without and with the watchdog model), their
     * total and the seconds since the sweep began, from the checking thread,
     * with progress_ud; NULL for none (the sweep's own checks never call
     * `progress`). */
    void (*sweep_progress)(void *ud, size_t done, size_t total, double seconds);
    /* Called about every progress_seconds while the checker builds its model
     * of the schedule, before the search (whose totals `progress` then
     * reports; with `connections any`, before each assignment's search),
     * from the checking thread, with progress_ud; NULL for none (the fault
     * sweep's own checks never call it). */
    void (*build_progress)(void *ud, const struct ces_check_build *build);
    /* Seconds of max_seconds already spent on this check before the call
     * (the schedule's expansion, say: `cesync check` counts it): the time
     * bound leaves the check what they left; 0 from ces_check_opts_init; a
     * finite number >= 0, else CES_ERR_INVALID. */
    double spent_seconds;
};

CES_API void ces_check_opts_init(struct ces_check_opts *o);

/* The hardware queue assignments a check may take (queue_map): each
 * assignment of every rank's `streams` streams to at most `queues` queues,
 * once up to the queues' numbering (stream s on a queue of an earlier
 * stream or on the next unused one), the ranks' independently.  Start from
 * a map of ranks * streams zeros (every stream on queue 0); each call
 * moves it to the next assignment and returns 1, or returns 0 after the
 * last (the map all zeros again).  CUDA_DEVICE_MAX_CONNECTIONS = Q puts a
 * process's streams on its Q queues round robin in creation order, so any
 * of these with at most Q queues can occur. */
CES_API int ces_queue_map_next(uint32_t ranks, uint32_t streams, uint32_t queues,
                               uint32_t *map);
/* How many assignments ces_queue_map_next lists: (the sum over k up to
 * `queues` of S(streams, k), the partitions into k queues)^ranks;
 * UINT64_MAX when more. */
CES_API uint64_t ces_queue_map_count(uint32_t ranks, uint32_t streams, uint32_t queues);
/* The most assignments one check of a `connections any` graph (and
 * `cesync check --queue-sweep`) goes through: each is a whole check. */
#define CES_QUEUE_MAPS_MAX 100000u
/* A queue map as text: each stream's queue, split by ',', one list for
 * every rank when they agree, else one per rank split by '/' ("0,0,1",
 * "0,0,1/0,1,0").  Returns the length needed (snprintf style); "" for
 * no rank or no stream, and -1 (buf "") when map is NULL. */
CES_API int ces_queue_map_format(uint32_t ranks, uint32_t streams, const uint32_t *map,
                                 char *buf, size_t size);
/* Reads that text into map (ranks * streams values): one list for every
 * rank or one per rank, each of `streams` queue numbers 0..streams-1;
 * CES_ERR_INVALID with a message naming the column otherwise, map left as
 * it was. */
CES_API int ces_queue_map_parse(struct ces_ctx *ctx, const char *text, uint32_t ranks,
                                uint32_t streams, uint32_t *map);

/* An op position: rR.sS#K plus where the op sits in the graph (block, replay
 * of a graph block, index in the rank's op list of that block) and its
 * global iteration. */
struct ces_check_pos {
    uint32_t rank, stream, index;
    uint32_t block, rep, op;
    uint64_t iteration;
};

enum ces_check_step_kind {
    CES_STEP_OP = 0,     /* the op executed (a wait: it passed) */
    CES_STEP_DROPPED = 1,/* a write executed under a drop fault: it did not land (one
                            the watchdog released at a boundary is DROPPED too, and in
                            the defect's aborted[]) */
    CES_STEP_ABORTED = 2 /* the watchdog released this blocked wait/await, or this op blocked
                            at a block or replay boundary, with an error */
};

/* One step of a counterexample. */
struct ces_check_step {
    struct ces_check_pos pos;
    uint32_t kind;      /* enum ces_check_step_kind */
    uint32_t has_value; /* 1: value is meaningful */
    uint64_t value;     /* wait: the slot value it observed; write: the value stored */
};

enum ces_block_reason {
    CES_BLOCK_WAIT = 0,   /* a wait whose condition is false */
    CES_BLOCK_AWAIT = 1,  /* an await whose record has not executed */
    CES_BLOCK_QUEUE = 2,  /* behind a blocked head of its hardware queue */
    CES_BLOCK_STOPPED = 3,/* the stream was stopped by a fault */
    CES_BLOCK_LINK = 4    /* the first op of its stream in a block or replay, whose
                             rank's other streams have not finished the earlier
                             ones (the backend forks and joins them there) */
};

/* A wait-for edge: blocked entry -> the op that would unblock it (a write that
 * would satisfy the wait, the record of an await, the queue head, the last
 * op of another stream of the rank before a block or replay) and the
 * blocked-set entry of the stream that holds that op (why it cannot run).
 * An op blocked for two reasons has the edges of both: behind its queue
 * head, the head first and then those of its own op if that is blocked too;
 * at a boundary, the links first and then those of its wait or await. */
struct ces_check_edge {
    struct ces_check_pos pos; /* the op that could unblock */
    uint64_t value;           /* a write's value */
    uint32_t to;              /* index into the defect's blocked[] */
};

struct ces_check_blocked {
    struct ces_check_pos pos; /* the blocked op (STOPPED: the op it stopped before) */
    uint32_t reason;          /* enum ces_block_reason */
    uint32_t waits;           /* 1: the op is a wait whose condition is false (reason
                                 WAIT, or QUEUE or LINK with its wait blocked past
                                 them too); slot, held, awaited and cmp say which */
    struct ces_slot slot;     /* waits: the slot, rank resolved */
    uint64_t held;            /* waits: the value the slot holds */
    uint64_t awaited;         /* waits: the value in the condition */
    uint32_t cmp;             /* waits: enum ces_cmp */
    size_t nedges;
    const struct ces_check_edge *edges;
};

/* A racing access: which op, whether it writes, the overlapping bytes. */
struct ces_check_access {
    struct ces_check_pos pos;
    uint32_t write; /* 1 write, 0 read */
    uint32_t step;  /* 1-based step in the counterexample, 0 if before its start */
    struct ces_region region;
};

/* Where bytes came from: rank `rank`'s buffer `buf` at byte `off`, as produced
 * in iteration `gen` (0 = the initial contents). */
struct ces_check_prov {
    uint32_t rank, buf;
    uint64_t off;
    uint64_t gen;
};

struct ces_check_mismatch {
    struct ces_check_pos pos;        /* the consume */
    struct ces_region region;        /* the first run of wrong bytes */
    struct ces_check_prov expected;  /* provenance of region.lo expected ... */
    struct ces_check_prov found;     /* ... and found */
};

/* Not a verdict bit: the class of the example kept for the watchdog model. */
#define CES_CHECK_ABORTED (1u << 16)

/* One defect class's counterexample (the shortest found). */
struct ces_check_defect {
    uint32_t cls;        /* one enum ces_verdict bit, or CES_CHECK_ABORTED */
    const char *replay;  /* pass as opts.replay to re-run exactly this execution */
    size_t nsteps;
    const struct ces_check_step *steps;
    size_t nblocked;     /* DEADLOCK, HANG: the blocked set at the end state;
                            CES_CHECK_ABORTED: the streams a stop left unfinished
                            (reason CES_BLOCK_STOPPED), which the watchdog does
                            not release */
    const struct ces_check_blocked *blocked;
    size_t ncycle;       /* DEADLOCK: a cycle, as indices into blocked[] */
    const uint32_t *cycle;
    struct ces_check_access race[2];  /* RACE: earlier and later access */
    struct ces_check_mismatch mismatch; /* MISMATCH */
    size_t naborted;     /* CES_CHECK_ABORTED: the ops the watchdog released */
    const struct ces_check_pos *aborted;
};

struct ces_check_report;

/* Checks `g` (which must be validated) under `opts` (NULL = defaults).
 * Returns CES_OK when the check ran - whatever the verdict - with a new
 * report in *out; an error leaves *out NULL and sets the context's message:
 * CES_ERR_INVALID for a bad option, a fault naming no op, faults that
 * repeat or void one another (the same fault twice, a write dropped and
 * delayed, two stops of one stream or one rank, a stop that another makes
 * change nothing: docs/SEMANTICS.md section 9), a queue map or a replay
 * string that does not fit the graph (a step its process cannot take: the
 * message asks for the options of the check that printed it);
 * CES_ERR_SEMANTIC for a graph changed since its last validation that
 * does not validate; CES_ERR_LIMIT
 * for a schedule larger than the checker takes (docs/SEMANTICS.md section
 * 10: a stream's unrolled ops, the slots, the links, streams and delay
 * faults together, a `connections any` graph's CES_QUEUE_MAPS_MAX
 * assignments); CES_ERR_NOMEM.  Running out of `max_memory` is not an error:
 * it gives CES_V_INCOMPLETE, checked before each allocation (the model,
 * states, the visited set), and the context's message then says what
 * needed the memory.  The report refers to `g` (it formats ops
 * from it): g must outlive the report.  Runs on the calling thread.
 * Under delay faults the checker checks a graph derived from g in its
 * place (docs/SEMANTICS.md section 9: each delayed write moves to a stream
 * of its own, added to every rank); the report's positions refer to that
 * graph, which ces_check_report_graph returns. */
CES_API int ces_check(struct ces_ctx *ctx, const struct ces_graph *g,
                      const struct ces_check_opts *opts, struct ces_check_report **out);
CES_API void ces_check_report_destroy(struct ces_check_report *r);
/* The graph the report's positions refer to: g, or the graph checked in its
 * place under delay faults (owned by the report; checked or exported by
 * itself it is not the delay: docs/SEMANTICS.md section 9). */
CES_API const struct ces_graph *ces_check_report_graph(const struct ces_check_report *r);
/* The hardware queue map the report's executions ran on: opts.queue_map as
 * given, or of a `connections any` graph the first assignment that fails,
 * or where none fails the one the watchdog's execution ran on (give it as
 * queue_map with a replay string); NULL when none. */
CES_API const uint32_t *ces_check_report_queue_map(const struct ces_check_report *r);

/* enum ces_verdict bits: every class found; CES_V_INCOMPLETE when a bound was
 * hit (possibly with defect bits: those were found before it stopped). */
CES_API uint32_t ces_check_report_verdict(const struct ces_check_report *r);
/* Of an exhaustive check that a bound stopped (CES_V_INCOMPLETE), the classes
 * it neither found nor ruled out (CES_V_ bits; 0: none, or a complete check
 * or another mode): where the second search was stopped, a MISMATCH at most
 * (docs/SEMANTICS.md section 10, "Random mode, replays, bounds"). */
CES_API uint32_t ces_check_report_open(const struct ces_check_report *r);
CES_API struct ces_check_stats ces_check_report_stats(const struct ces_check_report *r);
/* The defects, one per class found, in the order DEADLOCK, HANG, RACE,
 * MISMATCH, then the watchdog example if any; NULL when i is out of range. */
CES_API size_t ces_check_report_ndefects(const struct ces_check_report *r);
CES_API const struct ces_check_defect *ces_check_report_defect(const struct ces_check_report *r,
                                                              size_t i);
/* "OK", "DEADLOCK,RACE", "INCOMPLETE" ... into buf (bits no verdict has
 * last, as one hexadecimal number: "HANG,0x10000"); returns the length
 * needed. */
CES_API int ces_verdict_format(uint32_t verdict, char *buf, size_t size);

/* The human report: first line `verdict: ...`, then per defect the numbered
 * steps, the replay string, the blocked set / race / mismatch, then the
 * statistics.  ces_check_report_text returns it (free with ces_free);
 * ces_check_report_print writes it to f (CES_ERR_IO when that fails). */
CES_API int ces_check_report_text(struct ces_ctx *ctx, const struct ces_check_report *r,
                                  char **text, size_t *len);
CES_API int ces_check_report_print(struct ces_ctx *ctx, const struct ces_check_report *r,
                                   FILE *f);
/* The same as one JSON object (free with ces_free). */
CES_API int ces_check_report_json(struct ces_ctx *ctx, const struct ces_check_report *r,
                                  char **text, size_t *len);
/* Fills *out with the marks of defect `i` (steps numbered, blocked ops, the
 * ops the watchdog released, the racing accesses, the consume that found
 * wrong bytes; a DEADLOCK's wait-for cycle as the overlay's cycle) for
 * ces_dot_emit, and its title ("HANG counterexample", with ", hardware
 * queues MAP" where the report ran on a queue map).
 * The marks and title belong to the report and live until it is destroyed;
 * the first call for a defect makes them in the report, so, const as `r`
 * is, this call too is one thread at a time per report, as every object's
 * (and it writes the report's context's error).
 * CES_ERR_INVALID if i is out of range; CES_ERR_NOMEM. */
CES_API int ces_check_report_overlay(const struct ces_check_report *r, size_t i,
                                     struct ces_dot_overlay *out);

/* One row of a fault sweep: a fault checked. */
struct ces_check_sweep_row {
    struct ces_fault fault;
    uint32_t verdict;        /* without the watchdog model */
    uint32_t verdict_abort;  /* with it (never DEADLOCK or HANG: the watchdog model
                                leaves nothing blocked, docs/SEMANTICS.md section 9) */
    uint64_t aborted;        /* with it: end states where the watchdog fired */
};

/* The faults of a fault sweep that its bound left unchecked: those after
 * its rows in position order, counted, not listed. */
struct ces_check_sweep_rest {
    size_t n;               /* 0: the sweep checked every fault */
    size_t kinds[3];        /* of the n, each kind's (by enum ces_fault_kind) */
    struct ces_fault first; /* the first and the last of them (where n > 0) */
    struct ces_fault last;
    const char *bound;      /* what stopped the sweep, a constant string: "time"
                               or "memory"; NULL where n is 0 */
};

/* Runs `opts` (its faults and abort flag ignored) once per fault: a drop
 * and a delay at every write (no delay with CES_MAX_STREAMS streams: none is
 * left for the delayed write), a stop at every op of every stream, and a stop
 * of a whole rank wherever that stops two of its streams or more, each
 * without and with the watchdog model.  *rows (free with ces_free) receives
 * the *n faults checked, in position order, and *rest (not NULL) the faults
 * after them, unchecked.  opts->max_seconds (less its spent_seconds) bounds
 * the whole sweep, each check having what the ones before left; where it
 * has passed before a fault's checks, that fault and every later one are
 * not checked (rest->bound "time").  opts->max_memory bounds the rows and
 * a check together: each check has what the rows leave, and where one more
 * row would not fit, that fault and every later one are not checked
 * (rest->bound "memory").  The faults are not listed before the first
 * check: each is made as its turn comes.  A stream of more unrolled ops
 * than the checker takes is CES_ERR_LIMIT, as from ces_check, before any
 * fault is checked, and so is a rank whose stops as a whole would pass a
 * fault's 32-bit position (stop:rR#K, K at most UINT32_MAX: its streams
 * together may hold more ops), and CES_ERR_SEMANTIC for a graph that does not
 * validate ("fault sweep: the graph does not validate: ..."); otherwise it
 * returns the first error of a fault's check (ces_check's: a bad option,
 * CES_ERR_NOMEM), with no rows. */
CES_API int ces_check_fault_sweep(struct ces_ctx *ctx, const struct ces_graph *g,
                                  const struct ces_check_opts *opts,
                                  struct ces_check_sweep_row **rows, size_t *n,
                                  struct ces_check_sweep_rest *rest);
/* The sweep as a text table: position, fault, verdict, verdict with abort,
 * then, where rest (NULL: none) holds faults, one line naming them and
 * their bound ("not checked (the time bound had passed): 5497 faults,
 * r0.s0#44 delay to r1.s0#1199 stop in position order"); with neither rows
 * nor rest (a schedule without ops: the sweep stops before every op) one
 * line saying there is no op to fault, not an empty table. */
CES_API int ces_check_sweep_text(struct ces_ctx *ctx, const struct ces_check_sweep_row *rows,
                                 size_t n, const struct ces_check_sweep_rest *rest, char **text,
                                 size_t *len);

/* generator and Promela (backend/sim/gen.c, promela.c) */

/* Options of the random schedule generator; 0 in a field = chosen at random. */
struct ces_gen_opts {
    uint32_t ranks;      /* 0 = 2..3, else 2..8 */
    uint32_t streams;    /* 0 = 1..2, else 1..3 */
    uint32_t steps;      /* protocol steps per phase body; 0 = 1..3, else 1..3 */
    uint32_t mutate_pct; /* chance (0..100) that a step is mutated into a likely defect */
    uint32_t shapes;     /* enum ces_gen_shapes (0: the classic steps alone) */
};
/* The protocol steps the generator draws from.  CES_GEN_HANDOFF adds a
 * hand-off step (a receiver fills its landing buffer, a peer copies into it,
 * and the receiver's waiting stream hands it by record and await to another
 * stream that consumes it), its mutations (the fill moved after a wait for
 * the copy's arrival flag, ...), and more graph phases, replayed 2 or 3
 * times; a seed gives another schedule than under CES_GEN_CLASSIC. */
enum ces_gen_shapes { CES_GEN_CLASSIC = 0, CES_GEN_HANDOFF = 1 };
CES_API void ces_gen_opts_init(struct ces_gen_opts *o); /* the defaults (mutate_pct 45) */

/* A small random valid schedule, a function of seed and opts only (opts may
 * be NULL for the defaults; a field outside the ranges above, mutate_pct
 * above 100 or an unknown shapes, is CES_ERR_INVALID naming it).  Steps are
 * correct protocol pieces (a push transfer with a ready/done handshake, a
 * local copy, a barrier; a hand-off under CES_GEN_HANDOFF) of which a
 * share is mutated (a wait dropped or moved, a target nobody writes, a
 * stale-flag constant, a missing await, a reused chunk ...). */
CES_API int ces_gen_graph(struct ces_ctx *ctx, uint64_t seed, const struct ces_gen_opts *opts,
                          struct ces_graph **out);
/* The same schedule as concrete .ces text (ces_graph_print); free with ces_free. */
CES_API int ces_gen_source(struct ces_ctx *ctx, uint64_t seed, const struct ces_gen_opts *opts,
                           char **text, size_t *len);

/* Options of the Promela emitter. */
struct ces_promela_opts {
    uint32_t races; /* 1 = vector clocks and race assertions (default); 2 = the clocks set a
                       sticky bit `racy` instead of asserting; 0 = none */
    uint32_t data;  /* 1 = provenance and consume assertions (default); 2 = consumes set a
                       sticky bit `mism`, asserted at end states (by a `timeout` proctype)
                       as !mism, or !mism || racy with races 2 (data is judged on race-free
                       executions, as the checker does); 0 = none */
    /* Non-NULL: the hardware queues in place of the graph's connections, as
     * struct ces_check_opts.queue_map ([ranks * streams]; a `connections
     * any` graph is exported only so, one assignment at a time). */
    const uint32_t *queue_map;
    /* Delay and stop faults (no drop; nfaults 0: none): the model is of the
     * graph ces_check checks under them (docs/SEMANTICS.md section 9), each
     * delayed write's stream outside the links and on a hardware queue of
     * its own, as the checker runs it, a stopped stream's ops from its stop
     * on left out and its process blocked at its end (a whole rank's stop
     * as its streams'); queue_map still gives the schedule's streams only. */
    const struct ces_fault *faults;
    size_t nfaults;
};
CES_API void ces_promela_opts_init(struct ces_promela_opts *o);

/* Writes an equivalent Promela model of a validated graph for SPIN: one
 * proctype per (rank, stream), or per (rank, hardware queue) with
 * connections > 0, running the unrolled ops; deadlocks and hangs become
 * invalid end states, races and mismatches assertion violations.  Slots hold
 * the index of their value among the values the program can store, and each
 * wait is a guard over the indices that satisfy it (u32 `>=` cyclic).
 * CES_ERR_LIMIT when the graph is too large for the encoding, or for SPIN
 * (6.5 compiles no model whose d_steps before the longest and the longest's
 * statements add up to more than 2047: `d_step sequence too long`).
 * CES_ERR_INVALID for races or data above 2, a queue map that does not fit
 * the graph, nfaults > 0 with faults NULL, a fault naming no op (a
 * delay: no write) or faults that ces_check refuses together;
 * CES_ERR_UNSUPPORTED for a drop fault (delays and stops are modelled)
 * and for a `connections any` graph without a queue map; CES_ERR_SEMANTIC
 * for a graph that does not validate ("promela: the graph does not
 * validate: ...").  opts may be NULL for the defaults; free *text with
 * ces_free. */
CES_API int ces_promela_emit(struct ces_ctx *ctx, const struct ces_graph *g,
                             const struct ces_promela_opts *opts, char **text, size_t *len);
/* end of generator and Promela */

/* ------------------------------------------------------------------------ */
/* The machine model (model/)                                               */
/* ------------------------------------------------------------------------ */
/* (section owned by model/) */

/* A machine kind's semantics, limits and costs.  Units are in the field
 * names: _gbps = 10^9 bytes per second, _us = microseconds.  One const table
 * per kind lives in model/model.c; a model file (`key = value` lines, see
 * ces_model_parse) overrides any field. */
struct ces_model {
    char kind[32];                    /* "h200" */
    /* --- semantics and limits --- */
    uint32_t max_memops_per_batch;    /* ops in one cuStreamBatchMemOp (at most
                                         255; the backend needs 3 or more) */
    uint32_t flag_widths;             /* CES_MODEL_W32 | CES_MODEL_W64 */
    uint32_t can_flush_remote_writes; /* 0/1 */
    uint32_t has_64bit_memops;        /* 0/1; 1 where flag_widths has W64 */
    uint32_t has_wait_nor;            /* 0/1; said only: no op the model
                                         times or the CUDA backend issues
                                         needs a NOR wait */
    uint32_t copy_engines;            /* copies in flight at once per GPU */
    uint32_t batch_engines;           /* copies of one batch in flight at once */
    uint32_t max_ranks;               /* GPUs in one node */
    uint32_t graph_copies_serial;     /* 1: a batch under capture runs copy by copy */
    uint32_t split_wait_mib;          /* eager, a barrier right behind this many MiB
                                         of copies between ranks on its stream
                                         issues its writes and its waits as two
                                         memop batches (0: never) */
    /* --- costs --- */
    double peer_copy_gbps;  /* one copy's rate between GPUs (a copy engine's) */
    double link_gbps;       /* one GPU's NVLink out, and its NVLink in: what
                               every copy crossing it shares, all peers
                               together; at least peer_copy_gbps */
    double local_copy_gbps; /* device-to-device copy inside one GPU */
    double per_copy_us;     /* fixed start cost of a copy between GPUs */
    double per_local_copy_us; /* fixed start cost of a copy inside one GPU */
    double per_graph_copy_us; /* fixed start cost of a copy between GPUs in
                                 a graph phase behind a memop batch on its
                                 stream that did not block (the graph starts
                                 it behind the batch); at most per_copy_us */
    double copy_batch_us;   /* fixed cost of one batch (cudaMemcpyBatchAsync) of
                               two or more copies of at least a byte (the
                               backend issues one as a cudaMemcpyAsync) */
    double memop_batch_us;  /* fixed cost of one cuStreamBatchMemOp on the stream */
    double progress_write_us; /* a watchdog write a memop batch that waits
                                 carries (eager one after it, captured two) */
    double signal_hop_us;   /* a flag write seen by a wait on another GPU that
                               polls the writer's memory */
    double signal_push_us;  /* a flag written into the memory of the GPU
                               whose wait reads it */
    double signal_local_us; /* a flag write seen by a wait on the same GPU */
    double event_us;        /* record -> await between two streams of a GPU */
    double slow_wake_us;    /* the slow mode (ces_model_slow_mode): a polled
                               wait or event await that blocked resumes
                               this long after the write or record (not
                               before signal_hop_us / event_us); one reached
                               after it passes at once, but in a memop
                               batch its stream reached as a copy of the
                               stream ended, the first wait that polls
                               another GPU's flag resumes this long after
                               it is reached */
    double switch_us;       /* a stream going from copies to memops or back */
    double copy_switch_us;  /* a copy that follows one of the other kind (local
                               after peer, peer after local) on its stream with
                               no memop between: the second engine starts once
                               the first copy has completed */
    double host_call_us;    /* host time of one enqueue call (eager) */
    double graph_launch_us; /* host time of one graph replay launch */
    /* --- mode, not a model-file field --- */
    uint32_t slow_waits;    /* 0/1: 1 in the slow mode, as ces_model_slow_mode
                               sets it (a built-in table and a parsed file
                               have 0 unless `base` had 1; ces_model_print
                               does not write it) */
    uint32_t unlinked;      /* 0/1: 1 predicts the graph as a run of eager
                               point-to-point groups (ces_group_end):
                               a rank's streams pass block and replay
                               boundaries apart, neither forked nor joined
                               (CES_CHECK_UNLINKED's reading); 0 as
                               ces_launch runs a graph.  No model-file
                               field, like slow_waits */
};

#define CES_MODEL_W32 1u
#define CES_MODEL_W64 2u

/* The built-in table of `kind` ("h200", ...), NULL if unknown.
 * ces_model_kind_name(i) lists the kinds (NULL past the last). */
CES_API const struct ces_model *ces_model_find(const char *kind);
CES_API const char *ces_model_kind_name(uint32_t i);

/* Parses a model file: `#` comments, blank lines, and `key = value` lines
 * where key is a field name of struct ces_model (`kind = h200` must come
 * first if present and starts from that kind's table; otherwise `base` is the
 * start, or h200 when base is NULL); each key at most once.  flag_widths
 * takes "32", "64" or "32,64"; costs and bandwidths are decimal numbers
 * (0x10 is refused, not read as 16) at most 1e9,
 * bandwidths at least 1e-9, and a value a double cannot hold (1e400,
 * 1e-400) is out of range; the integer fields take 0..4294967295 in
 * decimal digits (max_memops_per_batch 3..255: cuStreamBatchMemOp takes at
 * most 255 ops, and the CUDA backend needs 3 or more; fewer is an error at
 * its line and column); a value
 * has at most 63 characters.  A NUL byte anywhere, a comment included, is
 * an error at its line and column.  Once the whole file is read, a
 * per_graph_copy_us above per_copy_us and a flag_widths with 64 beside
 * has_64bit_memops = 0 are errors at the later line of the two the file
 * gives (per_graph_copy_us's where it gives that one); a file that gives
 * per_copy_us but not per_graph_copy_us lowers the table's
 * per_graph_copy_us to per_copy_us where it lay above (the value
 * predictions always took).  A link_gbps below peer_copy_gbps is an error
 * at the link_gbps line; a file that gives peer_copy_gbps but not
 * link_gbps sets link_gbps to it (two GPUs tell them apart no further, and
 * files written before link_gbps meant both).  slow_waits and unlinked are no model-file
 * fields: they are base's (0 after a `kind` line).
 * Errors: CES_ERR_PARSE "file:line:col: expected ...".  `file`
 * names the input in messages (NULL: "<model>"). */
CES_API int ces_model_parse(struct ces_ctx *ctx, const char *text, size_t len, const char *file,
                            const struct ces_model *base, struct ces_model *out);
/* Reads and parses a model file (named: "-" is refused, CES_ERR_INVALID).
 * CES_ERR_IO when it cannot be opened or read, CES_ERR_LIMIT when it holds
 * more than 1 MiB; then ces_model_parse's errors. */
CES_API int ces_model_load(struct ces_ctx *ctx, const char *path, const struct ces_model *base,
                           struct ces_model *out);
/* Writes a model as a model file (every field, one per line, with a comment
 * saying its unit); parsing it gives the same model.  Free with ces_free.
 * CES_ERR_INVALID, naming the field, for a model no file can hold: a kind
 * that is no built-in one (or lacks its NUL), flag_widths neither
 * CES_MODEL_W32, CES_MODEL_W64 nor both, a cost or bandwidth out of the
 * ranges ces_model_parse takes, fewer than 3 or more than 255 for
 * max_memops_per_batch, 0 for copy_engines, batch_engines or max_ranks, a
 * yes/no field (unit "0/1"), slow_waits or unlinked above 1, per_graph_copy_us above
 * per_copy_us, link_gbps below peer_copy_gbps, or flag_widths with
 * CES_MODEL_W64 and has_64bit_memops 0.  slow_waits and unlinked are not written. */
CES_API int ces_model_print(struct ces_ctx *ctx, const struct ces_model *m, char **text,
                            size_t *len);

/* Whether machine m can run graph g: CES_OK, or CES_ERR_UNSUPPORTED naming
 * the first thing it lacks: more ranks than max_ranks ("9 ranks, the h200
 * model has at most 8 GPUs"), a flush without can_flush_remote_writes, or a
 * write or wait on a slot width without memops of that width ("r0.s1#3
 * (line 12:5): flush is not supported on h200 (can_flush_remote_writes =
 * 0)"), or a u64 value above 2^63-1 written to or awaited in a signal that
 * a >= wait reads (the machine's 64-bit waits compare cyclically, as
 * CUDA's do, the checker plainly); #K counts the stream's ops over every earlier replay, as the
 * checker's positions do), or a max_memops_per_batch below 3 (no room for
 * a wait and the watchdog's writes in one call: the CUDA backend lowers
 * nothing there).  The checker's verdicts hold on every machine;
 * this says whether one machine has the ops.  ces_model_predict and the
 * CUDA backend (from the device's attributes) refuse the same.
 * CES_ERR_INVALID for a NULL argument or a kind without its NUL. */
CES_API int ces_model_supports(struct ces_ctx *ctx, const struct ces_model *m,
                               const struct ces_graph *g);

/* The machine in the slow mode of its blocked waits (docs/PERFORMANCE.md,
 * "Two modes"): on H200 a stream blocked on a polled flag or on another
 * stream's event either resumes at once or, for whole runs at a time, one
 * scheduling step later.  Sets slow_waits to 1 and raises event_us to
 * slow_wake_us (an await waits event_us only when it blocked); signal_hop_us
 * stays, so a polled wait on another GPU that is reached after its write is
 * visible (signal_hop_us after it) passes at once, and only one that blocked
 * resumes late: at the later of signal_hop_us and slow_wake_us after the
 * write that satisfies it.  In a memop batch that its stream reached as a
 * copy of the stream ended (no memop between, nothing that blocked: the
 * stream was blocked on the copy), the first wait that polls another GPU's
 * flag is looked at again slow_wake_us after it is reached, its flag set or
 * not (the `early` variant's local copy between its barrier's writes and
 * waits).  Pushed and local flags keep their one mode.
 * Predicting with the result gives the schedule's time in that mode
 * (ces_model_predict with `m` itself gives the fast mode). */
CES_API void ces_model_slow_mode(struct ces_model *m);

/* What the cost model predicts for one graph. */
struct ces_predict {
    double total_us;       /* the last stream's finish, all iterations */
    double iter_us;        /* total_us / iterations */
    uint64_t iterations;   /* ces_graph_iterations */
    uint64_t ops;          /* op instances simulated */
    uint64_t peer_bytes;   /* bytes copied over the links, all ranks (every
                              copy but one inside its issuing GPU);
                              UINT64_MAX: that many or more */
    uint64_t local_bytes;  /* bytes copied inside the issuing GPU (likewise) */
    /* The critical path (from time 0 to total_us) split by what it spent:
     * the five add up to total_us. */
    double path_copy_us;   /* copies, including their fixed costs */
    double path_signal_us; /* flag hops from a write to the wait it released */
    double path_memop_us;  /* memop batch fixed costs */
    double path_event_us;  /* record -> await hops */
    double path_host_us;   /* the GPU waited for the host to enqueue */
    uint32_t last_rank;    /* the stream that finished last */
    uint32_t last_stream;
};

/* Predicts the time of a validated graph on a machine: every stream runs its
 * unrolled ops in order, where streams share hardware queues (`connections`
 * N above 0 but below the streams: stream s on queue s mod N; `any` gives
 * each a queue of its own) once the op enqueued before it on its queue, as
 * the CUDA backend issues them, has left the queue's head (a copy as it
 * starts, a batch as it issues its copies, a record or an await as soon
 * as the op ahead of it there has left, though the record ends only once
 * its stream's earlier ops ended and the await holds its stream until its
 * record ended, any other op as it ends);
 * copies in flight share each GPU's link out, link in
 * (link_gbps; one copy between GPUs at most peer_copy_gbps) and memory
 * (local_copy_gbps) max-min fairly, at most copy_engines at once per
 * issuing GPU; a wait resumes signal_local_us,
 * signal_hop_us or signal_push_us after the write that satisfies it (same
 * GPU; another GPU polling the writer's memory; a write into the waiter's
 * memory; with slow_waits, a polled one that blocked, not before
 * slow_wake_us); memop batches, copy batches of two or more copies and copies
 * add their fixed costs (a captured peer copy behind a memop batch that did not
 * block per_graph_copy_us; a copy of 0 bytes costs nothing, as the CUDA
 * backend skips it); an await that blocked resumes event_us after its
 * record, one reached as the record ends or later at once; ops cannot
 * start before the host has enqueued them.  A block on several streams is
 * forked and joined as ces_launch runs it (but the streams its own events
 * link), not with unlinked.
 * CES_ERR_INVALID if m holds what a model file could not (a cost outside
 * 0..1e9 us, a bandwidth outside 1e-9..1e9 GB/s, NaN, a kind without its
 * NUL, flag_widths neither W32, W64 nor both, a count of 0 or a yes/no field
 * (slow_waits and unlinked among them) above 1, max_memops_per_batch above
 * 255, per_graph_copy_us above per_copy_us, link_gbps below peer_copy_gbps, 64-bit flags without
 * has_64bit_memops, as ces_model_print
 * refuses them; the message names the field),
 * CES_ERR_SEMANTIC if the schedule does not finish under this timing (names
 * a blocked op), CES_ERR_UNSUPPORTED if it uses what the machine lacks
 * (flush without can_flush_remote_writes, a u64 slot without 64-bit memops,
 * more ranks than max_ranks) or if max_memops_per_batch is below 3 (no room
 * for a wait and the watchdog's writes in one call: the CUDA backend lowers
 * nothing there), CES_ERR_LIMIT if the unrolled graph (graph replays and the fork and join
 * of every replay on several streams included, as `ops` counts them) has
 * more than 2^24 op instances. */
CES_API int ces_model_predict(struct ces_ctx *ctx, const struct ces_model *m,
                              const struct ces_graph *g, struct ces_predict *out);

/* ------------------------------------------------------------------------ */
/* The CUDA runtime (backend "cuda"; present when built with CUDA)          */
/* ------------------------------------------------------------------------ */
/* (section owned by backend/cuda)
 *
 * A communicator (struct ces_comm) is one rank of a group of GPUs of one
 * node.  Its symmetric memory lives in one flat virtual range per process:
 * rank r's memory is mapped at base + r * stride, so a buffer allocated with
 * ces_mem_alloc has the same offset on every rank.  Collectives and
 * ces_launch enqueue copy-engine copies (cudaMemcpyBatchAsync /
 * cudaMemcpyAsync) and stream memory operations (cuStreamBatchMemOp) on the
 * caller's stream: no kernel is launched and no host thread waits, except
 * ces_mem_alloc/ces_mem_free/init/destroy, which exchange data with the peers.
 *
 * Thread safety: a communicator is used by one host thread at a time; the
 * communicators of ces_comm_init_all may be driven from one thread in turn
 * (every call only enqueues that rank's part).  Errors are written to the
 * context given at init (one context per thread).  A watchdog thread per
 * communicator watches progress words that the streams write in device memory
 * (after the last sync step of each stream in a call, and at least every 8th)
 * and copies into host memory shared by the ranks; after CES_TIMEOUT_MS
 * milliseconds (environment, default 10000) without progress it prints the
 * blocked rank, stream, op, slot, value held, value awaited and the peers'
 * last progress to stderr, releases the blocked waits so the streams drain,
 * and marks the communicator failed: every later call returns CES_ERR_TIMEOUT
 * (this rank timed out) or CES_ERR_PEER_FAILED (a peer reported failure),
 * or the error of a collective, group or launch that failed other than by
 * a refusal every rank makes alike (CES_ERR_INVALID, CES_ERR_UNSUPPORTED,
 * CES_ERR_LIMIT, CES_ERR_SEMANTIC, CES_ERR_PARSE): a CUDA error, host memory
 * exhausted, or a buffer or signal array of this rank's that a collective
 * or launch refused, CES_ERR_INVALID (a pointer not bound, not symmetric,
 * too small, misaligned or overlapping, which may be this rank's alone;
 * not on a communicator of one rank) (its peers may wait for its part, so
 * the communicator fails as on a timeout),
 * and does nothing - ces_comm_abort, ces_mem_alloc, ces_mem_free, the
 * collectives, ces_group_start, ces_send, ces_recv, ces_group_end (which
 * also ends a group the failure interrupted) and ces_launch - but for
 * ces_comm_destroy, which frees it, and the queries ces_comm_status,
 * ces_comm_rank, ces_comm_size, ces_comm_device and ces_mem_peer.
 * Work captured into a CUDA graph is watched through in-flight words that its
 * replays write around each call that waits (docs/API.md), by records kept
 * until ces_comm_destroy, at most 2^20 per communicator: a call that would
 * need more returns CES_ERR_LIMIT, naming the limit, before it captures or
 * enqueues anything, and fails the communicator as a 65th stream does (below).
 * The watchdog watches at most 64 CUDA streams per communicator (those its
 * calls put waits on: the callers' and its own internal ones), each from
 * its first such call until ces_comm_destroy: a collective, group or launch
 * whose waits would go on a 65th returns CES_ERR_LIMIT, naming the limit,
 * before it enqueues anything (the streams it needs are counted first),
 * and - unlike the refusals above - fails the communicator (it is found on
 * this rank alone; its peers may enqueue their parts and wait for its).  A
 * slot is never given to another stream: the progress writes already
 * enqueued and the replays of captured graphs write its words.
 * A context that dies (a sticky CUDA error, e.g. a kernel's fault) while
 * the communicator's work is pending fails it at once with CES_ERR_CUDA:
 * the watchdog's copy of the progress words fails, and no word can move
 * again (not with shared queues, below: there the timeout fails it).  A
 * peer whose watchdog was not heard from for CES_TIMEOUT_MS + 5 s (its
 * process stopped or died, or its watchdog is blocked) fails it with
 * CES_ERR_PEER_FAILED, even with nothing pending.  With
 * CUDA_DEVICE_MAX_CONNECTIONS below 8 (streams sharing hardware queues, so a
 * blocked wait stalls the watchdog's own stream too) the words live in host
 * memory and the watchdog reads and releases through a CUDA context of its
 * own, created with the communicator (about 0.5 GiB of device memory; init
 * fails if CUDA cannot create it).
 *
 * Environment: CES_TIMEOUT_MS (watchdog and every setup step), CES_DUMP_SCHEDULE=DIR
 * (write each distinct lowered schedule as DIR/<name>.ces), CES_STRIDE (bytes of
 * symmetric memory reserved per rank, 1..2^48 with an optional K, M or G,
 * else init fails with CES_ERR_INVALID; default: the device's memory size),
 * CES_SHARE_GPUS=1 (ranks may outnumber the GPUs and share them, for tests:
 * a device derived from the rank is taken modulo the GPU count; one
 * process's ranks on one GPU share its hardware queues, so give them enough
 * with CUDA_DEVICE_MAX_CONNECTIONS=32).
 */

/* The CUDA stream type without including CUDA headers: cudaStream_t and
 * CUstream are both `struct CUstream_st *`, so either can be passed. */
struct CUstream_st;
typedef struct CUstream_st *ces_stream_t;

struct ces_comm;

#define CES_TIMEOUT_MS_DEFAULT 10000u
/* ces_send/ces_recv messages up to this many bytes (CES_P2P_STAGE_MAX) go
 * through two staging slots in the receiver's memory; larger ones are
 * written in place. */
#define CES_P2P_STAGE_MAX_DEFAULT (UINT64_C(64) << 20)
/* Staged messages of at least this many bytes (CES_P2P_SIDE_MIN) keep the
 * sender's flag operations off the caller's stream: the stream holds only
 * the copy, and the receiver's notification may follow the call (it needs
 * nothing more of the sender).  Not with CUDA_DEVICE_MAX_CONNECTIONS below
 * 8. */
#define CES_P2P_SIDE_MIN_DEFAULT (UINT64_C(16) << 20)

/* One process per GPU: this process is `rank` of `size` and drives CUDA
 * device `device`.  `bootstrap` is the path of a Unix-domain socket that rank
 * 0 creates and the others connect to (all ranks pass the same path, on a
 * local file system, at most 107 bytes; rank 0 replaces a file there and
 * removes it once all have joined), or '@' and a Linux abstract socket name
 * (1 to 107 bytes after the '@'; no file is made, the ranks share a network
 * namespace; one that another live socket holds is refused with
 * CES_ERR_SYSTEM; a file whose name starts with '@' is "./@name").  Blocks
 * until all ranks have joined or the timeout (CES_TIMEOUT_MS) passes
 * (CES_ERR_TIMEOUT, naming the missing ranks).  CES_ERR_INVALID for rank >=
 * size, size < 1 or > CES_MAX_RANKS, a device that does not exist (below 0,
 * or past the last GPU), more ranks than GPUs without CES_SHARE_GPUS=1, a
 * bootstrap missing, too long or '@' alone where there are peers (one rank
 * ignores it), or a malformed CES_TIMEOUT_MS, CES_STRIDE, CES_P2P_STAGE_MAX,
 * CES_P2P_SIDE_MIN or CES_SHARE_GPUS;
 * CES_ERR_UNSUPPORTED for more than 250 ranks (processes:
 * each allocation passes every process's memory handle through rank 0 in
 * one message), without a CUDA driver (no GPU, or older than CUDA 13), on
 * a device without virtual memory management, or in a cesync built without
 * CUDA, which refuses every communicator: its arguments and settings are
 * checked first as with CUDA, with the same errors, but for those that come
 * once the GPUs are counted (a device past the last GPU, more ranks than
 * GPUs, ces_comm_init_all's ranks crowding one GPU);
 * CES_ERR_CUDA when a driver call fails; CES_ERR_SYSTEM, CES_ERR_PEER_FAILED
 * or CES_ERR_TIMEOUT from the bootstrap's socket and shared page; CES_ERR_NOMEM.
 * The context must outlive the communicator. */
CES_API int ces_comm_init(struct ces_ctx *ctx, uint32_t rank, uint32_t size, int device,
                          const char *bootstrap, struct ces_comm **out);
/* As ces_comm_init with rank, size and device from the torchrun-style
 * environment variables RANK, WORLD_SIZE and LOCAL_RANK; `rendezvous` is the
 * socket path or '@' and an abstract name (NULL: the CES_RENDEZVOUS
 * environment variable).  With CES_SHARE_GPUS=1 the device is LOCAL_RANK
 * modulo the GPU count.  CES_ERR_INVALID, naming the variable, for a value
 * that is not a decimal number (digits only) of 0..UINT32_MAX (LOCAL_RANK:
 * 0..INT_MAX). */
CES_API int ces_comm_init_env(struct ces_ctx *ctx, const char *rendezvous,
                              struct ces_comm **out);
/* One process driving `ndev` GPUs: creates comms[0..ndev-1], comms[i] being
 * rank i on device devices[i] (devices NULL: device i, or i modulo the GPU
 * count with CES_SHARE_GPUS=1).  The communicators
 * share one virtual range; destroy each with ces_comm_destroy.  The errors
 * of ces_comm_init (CES_ERR_INVALID also for ndev outside 1..CES_MAX_RANKS),
 * and CES_ERR_UNSUPPORTED, naming them, for ranks that would share a GPU
 * under fewer than 8 hardware queues (CUDA_DEVICE_MAX_CONNECTIONS) or more
 * than 4 ranks on one GPU. */
CES_API int ces_comm_init_all(struct ces_ctx *ctx, uint32_t ndev, const int *devices,
                              struct ces_comm **comms);
/* Destroys the communicator: stops its watchdog, unmaps and releases all its
 * symmetric memory, frees everything.  The caller must have synchronized the
 * streams it used (or the communicator has failed; its streams then drain
 * because the watchdog released their waits: destroy waits for that, up to
 * CES_TIMEOUT_MS + 1 s, for the communicator's work only, never for other
 * work of the context; streams still busy then keep the memory mapped, and
 * destroy returns CES_ERR_TIMEOUT, or at once CES_ERR_CUDA where the
 * context of a failed communicator died under its work (not with shared
 * queues): its streams cannot be waited for).  Accepts NULL.  In multi-process mode it
 * waits (up to the timeout) for the peers to destroy theirs. */
CES_API int ces_comm_destroy(struct ces_comm *comm);
/* Marks the communicator failed now, prints the diagnosis of any blocked
 * stream and releases its waits, and returns CES_OK; its peers then fail
 * with CES_ERR_PEER_FAILED.  Its status becomes CES_ERR_TIMEOUT: every
 * later call listed above returns CES_ERR_TIMEOUT and does nothing, the
 * message "rank R: the communicator failed: aborted by ces_comm_abort (see
 * the watchdog's diagnosis)", while ces_comm_destroy and the queries still
 * work (ces_comm_status returns CES_ERR_TIMEOUT).  On a communicator that
 * has failed already it changes nothing and returns that failure;
 * CES_ERR_INVALID for NULL. */
CES_API int ces_comm_abort(struct ces_comm *comm);
/* CES_OK while healthy; once failed, CES_ERR_TIMEOUT (this rank timed out or
 * was aborted), CES_ERR_PEER_FAILED, the error of a collective, group or
 * launch that failed other than by a refusal every rank makes alike
 * (CES_ERR_CUDA, CES_ERR_NOMEM, CES_ERR_INVALID for a buffer of this
 * rank's, ...), or CES_ERR_CUDA when the context
 * died under pending work; the context's last error then says why ("rank
 * 0: the communicator failed: no progress for 2001 ms ..."). */
CES_API int ces_comm_status(const struct ces_comm *comm);
CES_API uint32_t ces_comm_rank(const struct ces_comm *comm);
CES_API uint32_t ces_comm_size(const struct ces_comm *comm);
CES_API int ces_comm_device(const struct ces_comm *comm);

/* The GPUs of this machine that CUDA lets this process see
 * (CUDA_VISIBLE_DEVICES), in CUDA's order (device i of ces_comm_init, GPU
 * i of cesync run), and which of them can map each other's
 * memory: every rank of a communicator maps every other rank's, which a GPU
 * may only where the two are peers (cuDeviceCanAccessPeer, by NVLink or
 * PCIe), so the ranks' GPUs must all be peers of each other
 * (ces_comm_init_all refuses a pair that is not with CES_ERR_UNSUPPORTED).
 * At most CES_DEVICES_MAX GPUs are described. */
#define CES_DEVICES_MAX 64
struct ces_device {
    char name[256];       /* cuDeviceGetName */
    char pci_bus_id[32];  /* cuDeviceGetPCIBusId: "0000:18:00.0" */
    uint64_t memory;      /* bytes, cuDeviceTotalMem */
    int copy_engines;     /* CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT */
    int cc_major, cc_minor; /* compute capability */
    /* "" where described; else the driver call that failed for this GPU
     * and the driver's words ("cuDeviceGetName failed:
     * CUDA_ERROR_INVALID_DEVICE (101): invalid device ordinal"), every
     * other field 0 and its pairs none (access 0, the link's -1) */
    char error[256];
};
/* An ordered pair of GPUs (from, to): whether `from` can access `to`'s
 * memory, and what cuDeviceGetP2PAttribute says of the link, -1 where the
 * driver does not say (an error of that call). */
struct ces_device_pair {
    int access;    /* cuDeviceCanAccessPeer(from, to): 1 or 0 */
    int perf_rank; /* CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK (lower is faster), or -1 */
    int atomics;   /* CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED: 1, 0, or -1 */
};
struct ces_devices {
    uint32_t count; /* GPUs described: the first min(total, CES_DEVICES_MAX) */
    uint32_t total; /* GPUs CUDA counts (cuDeviceGetCount) */
    struct ces_device dev[CES_DEVICES_MAX];
    struct ces_device_pair pair[CES_DEVICES_MAX][CES_DEVICES_MAX]; /* [from][to]; not [i][i] */
};
/* Fills *out (about 85 KB: allocate it) with the GPUs and every ordered
 * pair of them, asking the driver (cuInit: a process that will fork ranks
 * using CUDA asks in a child, as cesync run counts its GPUs); count 0
 * where CUDA finds no GPU (cudaErrorNoDevice).  Of more than
 * CES_DEVICES_MAX GPUs the first CES_DEVICES_MAX, total saying how many
 * there are (the at most 64 ranks of cesync run use no others).
 * A GPU the driver fails to describe is not described, said in its error
 * (as is the later GPU of a pair whose cuDeviceCanAccessPeer fails: ranks
 * take GPUs 0..k-1, so a run uses the pair where it uses that GPU), the
 * others are: ces_devices_fit refuses only ranks placed on it.
 * CES_ERR_UNSUPPORTED where no GPU can be used, "no CUDA GPU can be used:
 * WHY" as cesync run says it ("no NVIDIA driver is installed
 * (cudaErrorInsufficientDriver)", a driver older than CUDA 13), and in a
 * cesync built without CUDA ("this cesync was built without CUDA (no GPU
 * can be used)"); CES_ERR_CUDA where cuInit or cuDeviceGetCount fails;
 * CES_ERR_INVALID for a NULL argument.  Any thread may call it (the context's last error is
 * one per context, as for every call). */
CES_API int ces_devices_query(struct ces_ctx *ctx, struct ces_devices *out);
/* The largest set of d's GPUs that are described and all peers of each
 * other (both ways), as a bit mask in *set (bit i: GPU i; of the sets of
 * that size the one whose least GPU not in both is in it, so GPUs 0..k-1
 * where they are one); returns its size, 0 where d has no described GPU
 * (or d or set is NULL: *set then untouched). */
CES_API uint32_t ces_devices_peer_set(const struct ces_devices *d, uint64_t *set);
/* Whether `ranks` ranks can run on d's GPUs as ces_comm_init_all and
 * cesync run place them (rank r on GPU r; with CES_SHARE_GPUS=1 on GPU r
 * modulo the GPUs, ranks on one GPU needing no peer; the GPUs CUDA counts,
 * d's total where it has more than the count described): CES_OK;
 * CES_ERR_LIMIT for more ranks than GPUs without CES_SHARE_GPUS=1, a
 * machine without a GPU, or a rank on a GPU past those described (more
 * than CES_DEVICES_MAX ranks on more than CES_DEVICES_MAX GPUs);
 * CES_ERR_CUDA for a rank on a GPU that is not described, the first
 * such rank named with its GPU's error ("rank 1 would be on GPU 1, which
 * the driver cannot describe: cuDeviceGetName failed: ...");
 * CES_ERR_UNSUPPORTED naming the first pair of ranks whose GPUs are not
 * peers, as ces_comm_init_all names it, and where `one_process` (the ranks
 * of one process, as ces_comm_init_all, cesync run --single-process and
 * cesync bench drive them; 0: a process per rank, ces_comm_init) the ranks
 * sharing GPUs that ces_comm_init_all refuses in its words before the
 * peers: more than 4 on one GPU, or two on one GPU below 8 hardware queues
 * (CUDA_DEVICE_MAX_CONNECTIONS); CES_ERR_INVALID for ranks outside
 * 1..CES_MAX_RANKS, a NULL d or a malformed CES_SHARE_GPUS; each said in
 * ctx. */
CES_API int ces_devices_fit(struct ces_ctx *ctx, const struct ces_devices *d, uint32_t ranks,
                            int one_process);

/* Collective: every rank calls it with the same size, in the same order of
 * ces_mem_alloc/ces_mem_free calls.  *ptr receives this rank's device address
 * (zero-filled); the same offset is used on every rank.  The size is rounded
 * up to the allocation granularity.  CES_ERR_INVALID for bytes outside
 * 1..2^48 (CES_MAX_BYTES), for a size unlike an earlier rank's (the call
 * takes no place in the order: the corrected call is that allocation) and,
 * in one process, once a rank of the team was destroyed; CES_ERR_LIMIT
 * when the rank's symmetric memory (CES_STRIDE) has no room left for it
 * ("symmetric memory exhausted: ..."); CES_ERR_CUDA or CES_ERR_NOMEM when
 * CUDA or the host refuses the memory; in multi-process mode, from the
 * exchange of the memory with the peers over the bootstrap,
 * CES_ERR_TIMEOUT, CES_ERR_PEER_FAILED or CES_ERR_SYSTEM (CES_ERR_INTERNAL
 * when a peer's handle is missing); on a failed communicator its
 * failure.  In multi-process mode an error once the exchange has begun,
 * other than sizes that differ, fails the communicator with it: no retry
 * may read what the failed exchange left on the sockets.  The refusals
 * every rank makes alike (CES_ERR_LIMIT, CES_ERR_INVALID for the sizes)
 * leave it usable. */
CES_API int ces_mem_alloc(struct ces_comm *comm, size_t bytes, void **ptr);
/* Collective; ptr must be what ces_mem_alloc returned on this communicator
 * (CES_ERR_INVALID for any other address, a pointer inside an allocation
 * among them), and be freed once on it (CES_ERR_INVALID the second time);
 * NULL frees nothing and returns CES_OK.  On
 * a failed communicator it frees nothing (its streams may still use the
 * memory) and returns the failure: ces_comm_destroy releases the memory. */
CES_API int ces_mem_free(struct ces_comm *comm, void *ptr);
/* The address at which this process sees rank `rank`'s copy of the symmetric
 * byte `ptr` (which may point inside an allocation); NULL if ptr is not
 * symmetric memory of this communicator or rank is out of range. */
CES_API void *ces_mem_peer(const struct ces_comm *comm, const void *ptr, uint32_t rank);

/* Collectives.  Buffers must be symmetric (ces_mem_alloc) on every rank, the
 * sizes the same; recv lies at the same offset on every rank (a copy to a
 * peer lands at the sender's recv offset there), send at any offset.
 * `bytes` is what the builder of that collective calls bytes per rank
 * (struct ces_coll_params.bytes):
 *   alltoall:  send and recv hold `bytes`; rank r sends send[p*C:(p+1)*C] to
 *              rank p's recv[r*C:(r+1)*C], C = bytes / size (bytes must be a
 *              multiple of size);
 *   allgather: send holds `bytes`; recv holds size * bytes, rank r's block
 *              at recv[r*bytes];
 *   gather:    as allgather but only root's recv is written;
 *   scatter:   root's send holds size * bytes; every rank's recv receives
 *              its `bytes` block;
 *   broadcast: root's send (`bytes`) is copied to every rank's recv.
 * The ranks but the root of broadcast and scatter read no send buffer and
 * may pass NULL.
 * In place, as NCCL has it: a rank whose own pointers say so runs the
 * CES_COLL_F_INPLACE form, without its local copy - allgather with send ==
 * recv + rank*bytes, gather with send == recv + root*bytes (a rank but the
 * root also with its own block, recv + rank*bytes), scatter with recv ==
 * send + root*bytes, broadcast with send == recv.  Each rank judges for
 * itself (its barriers and peer copies are the same either way), so some
 * ranks may run in place and others not.  recv's offset is the same on
 * every rank as always: in place, every rank's recv of a scatter is at the
 * root's (send + root*bytes), not at its own block.  Send and recv
 * overlapping otherwise is CES_ERR_INVALID, with the in-place relation in
 * the message; alltoall never runs in place.
 * When the stream is capturing a CUDA graph the call lowers a graph-safe
 * protocol (every collective but the barrier: pull, the constant 1 in the
 * writer's memory, polled and reset by its reader, two barriers per call;
 * the barrier: credit) and
 * copies one cudaMemcpyAsync each; eager calls lower the
 * `mono` protocol with one cudaMemcpyBatchAsync per copy batch (of two or
 * more copies; one goes out as a cudaMemcpyAsync).  alltoall
 * and allgather run their local chunk, gather, scatter and broadcast the
 * root's, on an internal stream of the
 * communicator (CES_COLL_F_OVERLAP), forked from and joined back into
 * `stream` within the call, so the call is still ordered on `stream` alone.
 * Argument errors return CES_ERR_INVALID before anything is enqueued, as
 * do the other refusals every rank makes alike: CES_ERR_UNSUPPORTED for
 * memops the device lacks, CES_ERR_LIMIT when the collective's flag arrays
 * find no symmetric memory left (CES_STRIDE); they leave the communicator
 * healthy, but for a buffer of this rank's refused (NULL, not symmetric
 * memory of this communicator, too small, send and recv overlapping where
 * not in place): the ranks pass pointers of their own, so that refusal may
 * be this rank's alone while its peers issue their parts, and it fails the
 * communicator with CES_ERR_INVALID (not one of one rank).  A CUDA error
 * (CES_ERR_CUDA) or host memory exhausted (CES_ERR_NOMEM) fails it (see
 * the watchdog above); on a failed communicator every call returns the
 * failure and does nothing. */
CES_API int ces_alltoall(struct ces_comm *comm, const void *send, void *recv, size_t bytes,
                         ces_stream_t stream);
CES_API int ces_allgather(struct ces_comm *comm, const void *send, void *recv, size_t bytes,
                          ces_stream_t stream);
CES_API int ces_gather(struct ces_comm *comm, const void *send, void *recv, size_t bytes,
                       uint32_t root, ces_stream_t stream);
CES_API int ces_scatter(struct ces_comm *comm, const void *send, void *recv, size_t bytes,
                        uint32_t root, ces_stream_t stream);
CES_API int ces_broadcast(struct ces_comm *comm, const void *send, void *recv, size_t bytes,
                          uint32_t root, ces_stream_t stream);
/* Every rank's stream waits until every rank has reached the barrier. */
CES_API int ces_barrier(struct ces_comm *comm, ces_stream_t stream);

/* Point to point in a group: between ces_group_start and ces_group_end a rank
 * declares its sends and receives (symmetric buffers at any offsets, at most
 * one send and one receive per peer, CES_ERR_INVALID for a second, and
 * CES_MAX_PAIRS sends and receives together per rank, CES_ERR_LIMIT past
 * that); ces_group_end enqueues them on `stream`.  ces_send and
 * ces_recv return CES_ERR_INVALID outside a group, for bytes outside
 * 1..2^48 (CES_MAX_BYTES) or past the end of the buffer's allocation, and
 * for a peer that is not another rank; ces_group_start CES_ERR_INVALID in
 * a group, ces_group_end without one, and CES_ERR_UNSUPPORTED on a
 * communicator of more than 8 ranks.  Every send needs
 * the matching receive of the same size (else CES_ERR_INVALID on every
 * rank, nothing enqueued; in one process only the last rank's
 * ces_group_end returns it, the others having returned CES_OK before the
 * group was whole).  In
 * multi-process mode ces_group_end exchanges the declarations with the peers
 * over the bootstrap (a host round trip).  With ces_comm_init_all, call
 * ces_group_end for every communicator; the work is enqueued, on every
 * communicator's stream, when the last one calls it, so enqueue nothing
 * else on those streams in between.  Once `stream` has passed the group,
 * every send buffer may be reused and every receive buffer holds its
 * message; the announcement of a one-way message of CES_P2P_SIDE_MIN bytes
 * or more runs on a stream of the communicator's own and may follow by a
 * few microseconds (ces_comm_destroy waits for it).  Under stream capture
 * (on every rank or none, else CES_ERR_INVALID) the flags are ones that a
 * replay repeats: a one-way message of up to CES_P2P_STAGE_MAX bytes is
 * staged through two slots of the captured groups' own, any other is
 * written in place (docs/API.md); up to 8 ranks. */
CES_API int ces_group_start(struct ces_comm *comm);
CES_API int ces_send(struct ces_comm *comm, const void *buf, size_t bytes, uint32_t peer);
CES_API int ces_recv(struct ces_comm *comm, void *buf, size_t bytes, uint32_t peer);
CES_API int ces_group_end(struct ces_comm *comm, ces_stream_t stream);

/* A buffer or signal array of a graph bound to symmetric memory by name. */
struct ces_binding {
    const char *name;
    void *ptr; /* this rank's address, from ces_mem_alloc */
};

/* Runs this rank's part of a validated graph (every block, in order, graph
 * phases as captured CUDA graphs replayed `reps` times) on `stream`; the
 * graph's other streams are internal streams forked from and joined back
 * into `stream`.  Every buffer must be bound; a signal array that is not
 * bound is allocated by the communicator (zero-filled) at the first launch
 * naming it and reused, with its values, by later launches naming it with
 * the same width and slot count (another shape is another array).  The graph's
 * rank count must equal the communicator's size.  CES_ERR_INVALID for that,
 * for a buffer not bound, and for a binding that is not symmetric memory of
 * this communicator large enough for its buffer or signal array (a signal
 * array also 8-byte aligned); CES_ERR_SEMANTIC for a graph changed since
 * its last validation that does not validate (ces_graph_validate's message
 * prefixed "lower: the graph does not validate: "); CES_ERR_LIMIT when an
 * unbound signal array finds no symmetric memory left (CES_STRIDE).
 * CES_ERR_UNSUPPORTED for ops the device cannot run (flush without
 * CAN_FLUSH_REMOTE_WRITES, u64 signals without 64-bit memops), a wait of a
 * graph phase whose slot or value reads $i (the capture freezes it), a u64
 * value above 2^63-1 in a signal that a >= wait reads (CUDA compares 64-bit
 * values cyclically), and a graph checked for
 * other hardware queues than this process has (CUDA_DEVICE_MAX_CONNECTIONS,
 * default 8): `connections 0`, or N at least the graph's streams, needs
 * at least as many queues as streams, N below the streams exactly N; the
 * message names both numbers (docs/FORMAT.md, "Hardware queues").  A graph
 * of `connections any` (CES_CONNECTIONS_ANY), checked under every
 * assignment of each rank's streams to queues, runs under any number of
 * queues.  These refusals come before anything is enqueued and leave the
 * communicator healthy, but for those of a binding (a buffer not bound, a
 * binding not symmetric memory large enough, a signal's misaligned): the
 * pointers are this rank's own, so the refusal may be this rank's alone
 * while its peers issue their parts, and it fails the communicator with
 * CES_ERR_INVALID (not one of one rank).  A CUDA error (CES_ERR_CUDA) or
 * host memory exhausted (CES_ERR_NOMEM) fails it (see the watchdog above),
 * and on a failed communicator it returns the failure and does nothing.
 * produce/consume ops enqueue nothing. */
CES_API int ces_launch(struct ces_comm *comm, const struct ces_graph *g,
                       const struct ces_binding *bindings, size_t nbindings,
                       ces_stream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* CESYNC_H */
