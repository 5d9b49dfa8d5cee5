/*
 * backend/cuda/runtime.h - the CUDA side of the backend: communicators,
 * their team (what the ranks of one process share: the flat virtual range,
 * the symmetric allocations, the progress page), the bootstrap between
 * processes, issuing lowered plans, and the watchdog.
 */
#ifndef CES_CUDA_RUNTIME_H
#define CES_CUDA_RUNTIME_H

#include "args.h"
#include "lower.h"

#include "cu_api.h" /* cuda.h, and cuXxx through the loaded table */

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdatomic.h>

/* Streams per communicator that the watchdog can tell apart. */
#define CES_WD_STREAMS 64u
/* Step records kept per stream, and awaited slots kept per communicator. */
#define CES_WD_STEPS 16384u
#define CES_WD_WAITS 65536u
/* Captured call records kept per communicator (their ids are never reused;
 * a call that would need more is refused: ces_wd_reserve). */
#define CES_WD_CAPTURED (1u << 20)

/* Check macros (backend/cuda only): translate a CUDA error into a status
 * with the call text, file and line, then jump to the label. */
#define CES_CU_GOTO(ctx, rc, call, label)                                                   \
    do {                                                                                    \
        CUresult ces_r_ = (call);                                                           \
        if (ces_r_ != CUDA_SUCCESS) {                                                       \
            (rc) = ces_cuda_cu_error((ctx), ces_r_, #call, __FILE__, __LINE__);             \
            goto label;                                                                     \
        }                                                                                   \
    } while (0)
#define CES_RT_GOTO(ctx, rc, call, label)                                                   \
    do {                                                                                    \
        cudaError_t ces_e_ = (call);                                                        \
        if (ces_e_ != cudaSuccess) {                                                        \
            (rc) = ces_cuda_rt_error((ctx), ces_e_, #call, __FILE__, __LINE__);             \
            goto label;                                                                     \
        }                                                                                   \
    } while (0)

int ces_cuda_cu_error(struct ces_ctx *ctx, CUresult r, const char *call, const char *file,
                      int line);
int ces_cuda_rt_error(struct ces_ctx *ctx, cudaError_t e, const char *call, const char *file,
                      int line);

/* --- bootstrap (bootstrap.c) ---------------------------------------------- */

struct ces_progress_rank;

struct ces_boot {
    uint32_t rank, size;
    int fd;         /* rank > 0: the socket to rank 0 */
    int *peers;     /* rank 0: [size] sockets, [0] unused */
    uint32_t timeout_ms;
    /* The progress page ([size]; NULL until mapped, the setup's exchanges
     * before): a rank's failure record there (its `failed`, which
     * ces_wd_fail sets once and nothing clears) ends every exchange at
     * once, see ces_boot_allgather. */
    struct ces_progress_rank *page;
};

int ces_boot_open(struct ces_ctx *ctx, struct ces_boot *b, const char *path, uint32_t rank,
                  uint32_t size, uint32_t timeout_ms);
void ces_boot_close(struct ces_ctx *ctx, struct ces_boot *b);

/* Every rank contributes `len` bytes (and optionally one descriptor, -1 for
 * none); all[] receives size*len bytes in rank order and fds[] (may be NULL
 * if no rank sends one) size descriptors (-1 where none; the caller closes
 * the others, including a duplicate of its own).  With the page set, a
 * failure record of any rank, seen before or while the exchange waits,
 * ends it: CES_ERR_PEER_FAILED naming the peer that failed, or this
 * rank's own failure status (bootstrap.c says which record wins). */
int ces_boot_allgather(struct ces_ctx *ctx, struct ces_boot *b, const void *mine, size_t len,
                       int myfd, void *all, int *fds);
int ces_boot_barrier(struct ces_ctx *ctx, struct ces_boot *b);
/* poll's timeout for the ms from `now` to `deadline`: 0 once it has
 * passed, at most INT_MAX (a longer wait polls again). */
int ces_boot_poll_ms(uint64_t now, uint64_t deadline);

/* --- team: what the ranks of one process share (comm.c) ------------------ */

struct ces_alloc_rec {
    uint64_t off;      /* within each rank's stride */
    uint64_t size;     /* rounded to the granularity */
    uint32_t refs;     /* local ranks that have not freed it yet */
    int live;
    CUmemGenericAllocationHandle *handles; /* [ranks]: imported or created */
    uint64_t freed[CES_MAX_RANKS / 64]; /* bit r: rank r freed it (one process) */
};

struct ces_progress_rank {
    _Atomic uint64_t failed; /* 0, or the status that failed this rank (negated) */
    /* Beats of this rank's watchdog: one more at each look (every 5 ms)
     * and while it polls its own stream; 0 before its first look,
     * CES_WD_GONE once it stopped.  A peer that sees the count stand still
     * for CES_TIMEOUT_MS + CES_WD_SILENT_MS, timed on its own clock, fails:
     * that watchdog's thread is blocked (in a CUDA call the context holds
     * up: docs/API.md, "Limits") or its process stopped or died. */
    _Atomic uint64_t beat;
    uint64_t pad_[6];
    /* The progress words, then the in-flight words (written by captured
     * work, replays of CUDA graphs: the id of the captured call record the
     * stream is inside of, 0 when outside), as this rank's watchdog last
     * copied them from the words its streams write (ces_wd_mirror).  Atomic
     * (relaxed): the watchdogs of every rank read them while this one's
     * writes them. */
    _Atomic uint64_t words[CES_WD_STREAMS];
    _Atomic uint64_t flight[CES_WD_STREAMS];
};

#define CES_WD_GONE UINT64_MAX
/* beyond the longest a watchdog goes without a beat: a slot read or a
 * copy of the words, 1 s each, polled with beats; CUDA calls between */
#define CES_WD_SILENT_MS 5000u

/* What a watchdog last saw of a peer's beat count, and since when (its own
 * clock). */
struct ces_wd_peer {
    uint64_t seen;
    uint64_t since_ms;
};

struct ces_team {
    struct ces_ctx *ctx;
    uint32_t ranks;
    uint32_t nlocal;           /* ranks driven by this process */
    uint32_t first_local;      /* rank of comms[0] */
    struct ces_comm **comms;   /* [nlocal] */
    uint32_t alive;            /* comms not yet destroyed */
    int in_use;                /* a comm's streams never went idle in its
                                  destroy: the memory stays mapped */
    struct ces_boot boot;      /* multi-process only (nlocal == 1 && ranks > 1) */
    int multi;
    CUdeviceptr base;
    uint64_t stride;
    uint64_t gran;
    uint64_t top;              /* bump pointer within a stride */
    struct ces_vec allocs;     /* struct ces_alloc_rec, in allocation order */
    struct ces_progress_rank *page; /* [ranks], host memory shared by the ranks */
    size_t page_bytes;
    uint32_t timeout_ms;
    pthread_mutex_t lock;
    /* ces_group_end in one process: declarations collected until every
     * local rank has arrived (struct ces_p2p_table of lower.h). */
    struct ces_p2p_table *group;
    uint32_t group_arrived;     /* bit per local rank */
    CUstream group_streams[CES_P2P_MAX_RANKS];
};

/* --- communicator ----------------------------------------------------------- */

struct ces_wd_wait {
    CUdeviceptr addr;
    uint64_t value;
    uint8_t width, cmp;
    uint32_t rank;       /* whose slot */
    uint32_t idx;
    uint64_t spos;       /* the wait's op position in its stream (#K, as the checker numbers it) */
    char name[24];       /* signal name */
};

struct ces_wd_step {
    uint64_t seq;        /* the step's number: the progress value its call writes, if it does */
    /* Eager: the number of waits recorded before the step's first, which
     * lives in waits[first_wait % CES_WD_WAITS] until the ring comes round
     * (see nwaits_total).  Captured: the index of the first in cap_waits. */
    uint64_t first_wait;
    uint32_t nwaits;
    uint32_t stream;     /* graph stream */
    uint64_t spos;       /* op position in the stream (#K) */
    uint64_t call;       /* call number (collective call k, or launch) */
    char what[24];       /* collective name or "launch" */
    int progress;        /* eager: the call ends with a progress write of seq */
};

struct ces_wd_stream {
    CUstream stream;          /* the CUDA stream this slot watches */
    _Atomic uint64_t enqueued; /* last step number enqueued */
    uint64_t seen;            /* watchdog: last progress value seen */
    uint64_t since_ms;        /* watchdog: when it last changed */
    uint64_t fl_seen;         /* watchdog: last in-flight id seen */
    uint64_t fl_since;        /* watchdog: since when it has been that id */
    struct ces_wd_step *steps; /* ring [CES_WD_STEPS] */
};

struct ces_signal_rec {
    char *key; /* "<namespace>:<name>:<size>", whole (owned) */
    void *ptr; /* this rank's address */
};

struct ces_coll_cache; /* exec.c */

/* A staging area: two slots of `slot` bytes at `off` in the symmetric range. */
struct ces_p2p_area {
    uint64_t off, slot;
};

struct ces_comm {
    struct ces_ctx *ctx;
    struct ces_team *team;
    uint32_t rank, size;
    int device;
    CUdevice cudev;
    CUcontext cuctx;
    struct ces_cuda_caps caps;
    _Atomic int state;          /* CES_OK, or the failure (ces_comm_status) */
    char fail_why[CES_ERRMSG_MAX]; /* why it failed: written once, before state */
    uint64_t nalloc;            /* ces_mem_alloc calls so far (index into team allocs) */
    struct ces_vec signals;     /* struct ces_signal_rec */
    struct ces_vec cache;       /* struct ces_coll_cache * */
    uint64_t calls[CES_PROTO_COUNT]; /* collective calls per protocol */
    CUstream streams[CES_MAX_STREAMS]; /* internal streams for graph streams >= 1; [0]:
                                          where ces_launch captures a graph phase
                                          called on the legacy stream (made then) */
    CUevent *events;            /* launch: graph events */
    uint32_t nevents;
    CUevent fork;               /* fork/join of internal streams */
    CUevent joins[CES_MAX_STREAMS];
    /* issue scratch */
    struct ces_vec scratch_ptrs;   /* void * (dst, src) */
    struct ces_vec scratch_sizes;  /* size_t */
    struct ces_vec scratch_params; /* CUstreamBatchMemOpParams */
    /* group */
    int in_group;
    uint32_t ngroup;
    struct { uint32_t peer; int send; void *buf; uint64_t bytes, off; } group[CES_MAX_PAIRS];
    uint64_t p2p_calls;         /* groups issued eagerly */
    uint64_t p2p_captures;      /* groups captured into CUDA graphs */
    /* staged messages: pair s -> d uses area (s - d) mod n in d's stride
     * (pairs of one area are on different receivers), messages up to
     * p2p_stage_max bytes (CES_P2P_STAGE_MAX) */
    uint64_t p2p_stage_max;
    struct ces_p2p_area p2p_area[CES_P2P_MAX_RANKS];
    struct ces_p2p_stages *p2p; /* NULL until a message is staged */
    /* the same for groups captured into CUDA graphs */
    struct ces_p2p_area p2p_carea[CES_P2P_MAX_RANKS];
    struct ces_p2p_stages *p2p_cap;
    /* staged messages of at least p2p_side_min bytes (CES_P2P_SIDE_MIN; none
     * with shared hardware queues) go the side way, their memops on the
     * group's own streams 1 and 2 (group.c), which are neither forked nor
     * joined: ces_comm_destroy waits for them */
    uint64_t p2p_side_min;
    CUstream p2p_streams[3]; /* [0] unused: the caller's */
    /* watchdog */
    pthread_mutex_t wd_lock;
    pthread_cond_t wd_cond;
    pthread_t wd_thread;
    int wd_started, wd_stop;
    _Atomic uint32_t nwatched; /* grows under wd_lock; read without it too */
    struct ces_wd_stream watched[CES_WD_STREAMS];
    struct ces_wd_wait *waits;  /* ring [CES_WD_WAITS] */
    /* Waits recorded so far (wd_lock): wait n is in waits[n % CES_WD_WAITS]
     * until wait n + CES_WD_WAITS is recorded over it. */
    uint64_t nwaits_total;
    /* The streams write their progress and in-flight words in device
     * memory (a write there costs a memop call about 0.9 us on H200, one to
     * host memory 1.3: scripts/probe_memops.sh), or with shared queues in
     * pinned host memory; the watchdog copies them into team->page[rank]
     * (ces_wd_mirror).  progress_dev: the words (2 * CES_WD_STREAMS u64:
     * progress, then in-flight), 0 when unwatched. */
    CUdeviceptr progress_dev;
    uint64_t *wd_stage;         /* pinned host memory the mirror copies into
                                   (shared queues: the words themselves) */
    struct ces_wd_peer *wd_peers; /* [size], the watchdog thread's own */
    clockid_t wd_clock;         /* wd_cond's: monotonic where the system has it */
    int wd_mirror_pending;      /* a mirror copy is in flight (wd_mirror_lock) */
    uint64_t wd_mirror_ms;      /* when the watchdog's look last copied them */
    /* The first driver error of the mirror that says the context died (a
     * sticky error, e.g. a kernel's fault on this GPU; wd_mirror_lock):
     * the words will never move, so the watchdog fails the communicator
     * with it at once rather than after CES_TIMEOUT_MS of a progress it
     * cannot see.  wd_read_call: the call that returned it. */
    CUresult wd_read_err;
    const char *wd_read_call;
    pthread_mutex_t wd_mirror_lock;
    /* captured calls: records (seq = id = index + 1) and their waits,
     * guarded by wd_lock; see watchdog.c */
    struct ces_vec cap_steps;   /* struct ces_wd_step; first_wait indexes cap_waits */
    struct ces_vec cap_waits;   /* struct ces_wd_wait */
    CUstream wd_stream;         /* the watchdog's own non-blocking stream */
    /* The hardware queues per GPU (ces_cuda_queues of
     * CUDA_DEVICE_MAX_CONNECTIONS): a graph must have been checked for them
     * to be launched (ces_cuda_queues_check).  Below CUDA's default of 8
     * (ces_cuda_queues_shared) the streams share hardware queues, so a
     * blocked wait stalls every stream queued behind it, the watchdog's own
     * too, and a host thread that fills the queue blocks in its next CUDA
     * call.  The words then live in pinned host memory that the streams
     * write directly (the mirror copies nothing), and the watchdog reads
     * and releases slots through a context of its own, made with the
     * communicator. */
    uint32_t queues;
    /* That context and its stream (about 0.5 GiB of device memory on H200):
     * made with the communicator when the queues are shared, else by the first read
     * or release that needs them, once a mirror copy was still not done
     * when the watchdog failed the communicator or judged a captured call
     * (wd_stuck: its stream is queued behind a blocked one).  No stream of
     * the user's context can block its queues.  rescue_ctx is NULL until
     * then; guarded by wd_mirror_lock. */
    CUcontext rescue_ctx;
    CUstream rescue_stream;
    int rescue_tried; /* creating them was attempted */
    int rescue_said;  /* their first use is on stderr */
    int wd_stuck;
    uint64_t timeout_ms;
    int diagnosed;              /* the failure is diagnosed (wd_lock): release from now on */
};

/* Makes the communicator's device current for the calling thread. */
int ces_cuda_use(struct ces_comm *c);
/* Why no GPU can be used, after cudaGetDeviceCount failed with `ce`, in
 * buf: "no NVIDIA driver is installed (cudaErrorInsufficientDriver)" where
 * the runtime finds no driver at all (it reports the missing one as too
 * old), else the error's text and name.  Starts no CUDA context. */
void ces_cuda_no_gpu_reason(cudaError_t ce, char *buf, size_t size);
/* ces_devices_query without its checks of the arguments, the runtime's
 * count's result in *counted (cudaSuccess, cudaErrorNoDevice, or why no GPU
 * can be used, which it returns as CES_ERR_UNSUPPORTED): the bench says
 * that in its own words. */
int ces_cuda_devices_query(struct ces_ctx *ctx, struct ces_devices *out, cudaError_t *counted);
/* pthread_create of a thread of the library's own (the watchdog, the
 * bench's gate guard) that takes no signal: a signal sent to the process
 * goes to the application's threads, whose handlers expect it there (the
 * cesync command's, which removes its unfinished outputs, masks signals in
 * its own thread while it lists one).  Returns pthread_create's error. */
int ces_cuda_thread_start(pthread_t *th, void *(*fn)(void *), void *arg);
/* Creates the progress page's file (rank 0 of a process group), `bytes`
 * long and already unlinked, in directory `shm` (comm.c: /dev/shm, memory
 * that no disk backs), else in ces_tmp_dir (TMPDIR, else /tmp): its
 * descriptor in *fd_out.  CES_ERR_SYSTEM, naming both directories, where
 * neither can hold it. */
int ces_cuda_page_create(struct ces_ctx *ctx, const char *shm, size_t bytes, int *fd_out);
/* The watchdog (watchdog.c). */
/* Initializes wd_lock, wd_mirror_lock and wd_cond (on the monotonic clock
 * where the system has it, which the watchdog's looks time their waits on:
 * a step of the wall clock must not hold them). */
void ces_wd_init(struct ces_comm *c);
int ces_wd_start(struct ces_comm *c);
void ces_wd_stop(struct ces_comm *c);
/* What a call's issue will take, before any of it is issued: watch slots
 * for streams s[0..n) (duplicates allowed; given now to those without one)
 * and `records` more captured call records.  CES_ERR_LIMIT, naming the
 * limit, where a stream would be past CES_WD_STREAMS (no slot is given
 * then) or the records past CES_WD_CAPTURED; CES_ERR_NOMEM; each said. */
int ces_wd_reserve(struct ces_comm *c, const CUstream *s, uint32_t n, uint64_t records);
/* The watch slot of a CUDA stream (ces_wd_reserve of it alone when it has
 * none, kept until the communicator is destroyed), or the error. */
int ces_wd_slot(struct ces_comm *c, CUstream s);
/* Records a captured memop call that holds a wait: its waits (frozen values)
 * under a new id (>= 1), which the call's ENTER write stores in the
 * stream's in-flight word.  Called with wd_lock held, the record's room
 * reserved (ces_wd_reserve); 0 when out of memory. */
uint64_t ces_wd_capture_record(struct ces_comm *c, const struct ces_wd_step *st,
                               const struct ces_wd_wait *waits, uint32_t nwaits);
/* A block whose issue stopped early (an error) may have left stream s's
 * last step without the progress write that a later call of the block
 * was to carry (lower.c thins them): enqueues that write on s, so that the
 * stream, once idle, is not taken for a blocked one. */
void ces_wd_close(struct ces_comm *c, CUstream s);
/* Copies the device words into the page: wait 0 takes a finished copy
 * and starts the next, 1 also waits for a fresh one (at most a second for
 * each copy it waits on: the one in flight, then its own). */
void ces_wd_mirror(struct ces_comm *c, int wait);
/* 1, with the reason in why (NULL with len 0: none), once a mirror copy
 * met a driver error that says the context died (the words will not move
 * again); 0 while none did. */
int ces_wd_read_error(struct ces_comm *c, char *why, size_t len);
/* Rank `rank`'s progress word and in-flight word of watch slot s, as the
 * page last had them (relaxed atomic loads). */
uint64_t ces_wd_word(const struct ces_comm *c, uint32_t rank, uint32_t s);
uint64_t ces_wd_flight(const struct ces_comm *c, uint32_t rank, uint32_t s);
/* Device address of the in-flight word of watch slot s. */
#define CES_WD_FLIGHT_DEV(c, s)                                                             \
    ((c)->progress_dev + (CUdeviceptr)(CES_WD_STREAMS + (s)) * sizeof(uint64_t))
/* Fails the communicator: diagnosis, release.  status: CES_ERR_TIMEOUT... */
void ces_wd_fail(struct ces_comm *c, int status, const char *why);
/* The watchdog's own context and stream (rescue_ctx): made now; an error
 * in c->ctx if CUDA cannot.  ces_wd_rescue_close destroys them (if made). */
int ces_wd_rescue_open(struct ces_comm *c);
void ces_wd_rescue_close(struct ces_comm *c);
uint64_t ces_cuda_now_ms(void);

/* Allocation record of a symmetric pointer; *off receives the offset of ptr
 * within the stride; NULL if not symmetric memory of this team. */
struct ces_alloc_rec *ces_team_find(struct ces_team *t, uint32_t rank, const void *ptr,
                                    uint64_t *off);
int ces_team_alloc(struct ces_comm *c, uint64_t bytes, void **ptr);
/* Frees ptr (an allocation of ces_team_alloc: unmapped and released once
 * every local rank has freed it) whatever the communicator's state;
 * ces_mem_free refuses on a failed communicator. */
int ces_team_release(struct ces_comm *c, void *ptr);
int ces_comm_check(struct ces_comm *c); /* CES_OK or the failed state, with a message */
/* A collective call that failed with rc after its peers may have taken
 * part in it: fails the communicator with rc, the reason "WHAT failed: "
 * and the call's message, which the context keeps as its last error.
 * Nothing changes for rc CES_OK or a communicator failed already.
 * Returns rc. */
int ces_comm_fail_call(struct ces_comm *c, int rc, const char *what);

/* --- issuing (exec.c) --------------------------------------------------------- */

/* Hooks for the application (cesync run): produce/consume calls of the plan
 * (block b, call index i, iteration iter), issued on stream s in order. */
struct ces_cuda_hooks {
    int (*produce)(void *ud, struct ces_comm *c, const struct ces_cuda_call *call, uint32_t b,
                   uint32_t i, uint64_t iter, CUstream s);
    int (*consume)(void *ud, struct ces_comm *c, const struct ces_cuda_call *call, uint32_t b,
                   uint32_t i, uint64_t iter, CUstream s);
    void *ud;
};

/* A graph prepared for running on one communicator: bound, lowered; blocks
 * are then issued one replay at a time (so that one thread can interleave
 * several communicators, and an application can check between iterations).
 * A graph block is captured at its first replay and relaunched after. */
struct ces_cuda_run;
int ces_cuda_run_prepare(struct ces_comm *c, const struct ces_graph *g,
                         const struct ces_binding *bindings, size_t nbindings, CUstream stream,
                         const struct ces_cuda_hooks *hooks, struct ces_cuda_run **out);
int ces_cuda_run_block(struct ces_cuda_run *r, uint32_t b, uint32_t rep);
uint32_t ces_cuda_run_nblocks(const struct ces_cuda_run *r);
void ces_cuda_run_free(struct ces_cuda_run *r);

/* The offsets of graph g's signals on communicator c into sig_off: those
 * bound by name in b[0..nb) at their bound memory, the others at arrays of
 * the communicator's own, one per namespace ns, name, width and slots. */
int ces_cuda_bind_signals(struct ces_comm *c, const struct ces_graph *g, const char *ns,
                          const struct ces_binding *b, size_t nb, uint64_t *sig_off);
/* Forgets the communicator's own signal arrays, releasing their memory
 * when `release` (else it stays mapped: work may still touch it). */
void ces_cuda_signals_drop(struct ces_comm *c, bool release);

/* ces_launch with hooks (the public ces_launch passes none). */
int ces_cuda_launch(struct ces_comm *c, const struct ces_graph *g,
                    const struct ces_binding *bindings, size_t nbindings, CUstream stream,
                    const struct ces_cuda_hooks *hooks);
void ces_cuda_cache_free(struct ces_comm *c);

#endif
