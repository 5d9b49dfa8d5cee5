/*
 * core/internal.h - private declarations shared by the files of core/:
 * the context and graph layouts, a growable array and a string builder.
 * Other directories use only cesync.h (plus this file's string builder and
 * array helpers, which the tools and backends may include as "internal.h"
 * of core through the ces_core target's private include path).
 */
#ifndef CES_CORE_INTERNAL_H
#define CES_CORE_INTERNAL_H

#include "cesync.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* A message holds a file's path (up to PATH_MAX, 4096 bytes on Linux) and
 * what is wrong after it. */
#define CES_ERRMSG_MAX 8192
/* A longer message keeps its first CES_ERRMSG_HEAD bytes, "..." and its
 * end (ces_ctx_verror). */
#define CES_ERRMSG_HEAD 2048

/* The CUDA backend's watchdog: at least every this-many-th memop call that
 * waits on a stream ends with a progress write (backend/cuda/lower.c), so
 * the watchdog searches at most this many calls for the one a stream is
 * blocked in; the cost model charges the writes where the lowering puts
 * them (model/predict.c). */
#define CES_PROGRESS_SPAN 8u

struct ces_ctx {
    struct ces_alloc hooks;
    char errmsg[CES_ERRMSG_MAX];
};

/* Sets the last error from a va_list; returns status. */
int ces_ctx_verror(struct ces_ctx *ctx, int status, const char *fmt, va_list ap);

/* --- growable array of fixed-size items ------------------------------- */

struct ces_vec {
    void *data;
    size_t len;  /* items in use */
    size_t cap;  /* items allocated */
};

/* Makes room for `extra` more items of `item` bytes; CES_ERR_NOMEM on failure
 * (the vector is unchanged then). */
int ces_vec_reserve(struct ces_ctx *ctx, struct ces_vec *v, size_t item, size_t extra);
/* Appends one item (copied from `elem`). */
int ces_vec_push(struct ces_ctx *ctx, struct ces_vec *v, size_t item, const void *elem);
void ces_vec_free(struct ces_ctx *ctx, struct ces_vec *v);
#define CES_VEC_AT(v, type, i) (((type *)(v)->data)[i])
/* qsort's comparison of two uint64_t (the first of an item, so items that
 * lead with a uint64_t key sort by it too). */
int ces_cmp_u64(const void *x, const void *y);

/* --- index of a table's names ----------------------------------------- */

/* Finds an entry of a table (a vector whose entries own their names) by
 * name in O(1) on average: open addressing with linear probing, at most
 * half full.  It points at the table's names, which must stay where they
 * are while indexed (each is a string of its own). */
struct ces_name_slot {
    const char *name; /* NULL: empty */
    uint32_t hash;
    uint32_t idx; /* the entry's position in its table */
};

struct ces_names {
    struct ces_name_slot *slots;
    size_t cap; /* 0 or a power of two */
    size_t len; /* names indexed */
};

/* Makes room for one more name; CES_ERR_NOMEM on failure (the index is
 * unchanged then). */
int ces_names_reserve(struct ces_ctx *ctx, struct ces_names *ix);
/* Indexes `name`, which it does not hold yet, as entry idx; needs the room
 * that ces_names_reserve made. */
void ces_names_add(struct ces_names *ix, const char *name, uint32_t idx);
/* The entry named by the len bytes at s (no NUL among them), or -1. */
int64_t ces_names_find(const struct ces_names *ix, const char *s, size_t len);
void ces_names_free(struct ces_ctx *ctx, struct ces_names *ix);

/* A name or number quoted in a message shows at most CES_SHOWN_MAX bytes of
 * itself, and "..." when cut, so that the message (at most CES_ERRMSG_MAX
 * bytes) still says what is wrong after it: printf's "%.*s%s" takes
 * CES_SHOWN_LEN(len), the text, CES_SHOWN_MORE(len), or, for a
 * NUL-terminated name, CES_SHOWN(name) as its three arguments. */
#define CES_SHOWN_MAX 48
#define CES_SHOWN_LEN(len) ((int)((len) > CES_SHOWN_MAX ? CES_SHOWN_MAX : (len)))
#define CES_SHOWN_MORE(len) ((len) > CES_SHOWN_MAX ? "..." : "")
#define CES_SHOWN(name) CES_SHOWN_LEN(strlen(name)), (name), CES_SHOWN_MORE(strlen(name))

/* The plural ending of a count's noun: "1 stream", "0 buffers". */
static inline const char *ces_plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

/* --- string builder ---------------------------------------------------- */

struct ces_sb {
    struct ces_ctx *ctx;
    char *buf;
    size_t len;
    size_t cap;
    int status; /* first error (sticky); CES_OK while all appends succeeded */
    double deadline; /* ces_now's; 0 (ces_sb_init): none.  Past it, read every
                        1,024 appends, status is CES_ERR_TIMEOUT */
    uint32_t appends;
};

/* CLOCK_MONOTONIC's seconds, the clock of every time bound (ctx.c). */
double ces_now(void);

void ces_sb_init(struct ces_sb *sb, struct ces_ctx *ctx);
/* Appends formatted text; on failure sets sb->status and ignores later calls. */
void ces_sb_printf(struct ces_sb *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The header line of a graph's or program's connections: nothing for 0,
 * `connections any` for CES_CONNECTIONS_ANY, else `connections N` (graph.c). */
void ces_sb_connections(struct ces_sb *sb, uint32_t connections);
/* Appends an op's text as ces_op_format writes it, whole, whatever the
 * length of its names; sets sb->status to CES_ERR_INVALID when g's tables
 * do not hold what the op names (graph.c). */
void ces_sb_op(struct ces_sb *sb, const struct ces_graph *g, uint32_t rank,
               const struct ces_op *op);
void ces_sb_vprintf(struct ces_sb *sb, const char *fmt, va_list ap);
void ces_sb_puts(struct ces_sb *sb, const char *s);
/* Hands the text to the caller (*text, *len) or frees it and returns the
 * sticky error.  *text is always NUL-terminated. */
int ces_sb_finish(struct ces_sb *sb, char **text, size_t *len);
void ces_sb_free(struct ces_sb *sb);

/* fopen(path, "r") whose descriptor is close-on-exec (POSIX 2008 fopen has
 * no "e" mode): no child that another thread of the program starts
 * meanwhile, Graphviz included, holds the file (core/file.c).  NULL with
 * errno as fopen. */
FILE *ces_fopen_read(const char *path);

/* Reads the rest of stream f into a new buffer from the context's hooks
 * (*text, *len; freed with ces_free, NUL-terminated for convenience).
 * CES_ERR_NOMEM, CES_ERR_IO, or CES_ERR_LIMIT past `max` bytes (a device
 * or a wrong file given as a schedule stops there), with "NAME: ..."
 * messages (core/parse.c).  It stops early after a read that holds a NUL
 * byte, which no text has: the parse says where it is. */
int ces_read_stream(struct ces_ctx *ctx, FILE *f, const char *name, size_t max, char **text,
                    size_t *len);

/* Replacing a file only when its new contents are complete (core/file.c).
 * ces_file_create_beside creates PATH.XXXXXX in path's directory (so that
 * rename(2) can put it in place), with the mode `path` has or that of a
 * new file; returns the descriptor, or -1 with the context's error set.
 * A symbolic link is followed: the file it names is the one replaced, and
 * the link stays.  A path that exists but is no regular file (a device
 * such as /dev/null, a named pipe) is opened and written in place: a file
 * renamed over it would take its name; a directory is refused at once
 * ("cannot write PATH: Is a directory").  A name of one of the process's
 * descriptors (/dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N of its PID,
 * /proc/PID/task/TID/fd/N of a thread of it, a link to one as /dev/stdout
 * is) is written through a duplicate of it, at its offset, as standard output is written; one not open, a directory
 * or one opened for reading is refused at once, as a directory by name.  of->name is what was opened,
 * of->dest what it becomes ("" when written in place); of->own is true for
 * such a name and for a file written in place that is the process's
 * standard output or error (its device and inode: a named pipe the shell
 * opened for it too), which ces_write_file_by and ces_dot_write_by write
 * as standard output is, without the stall.  ces_file_replace
 * ends it: with rc CES_OK the temporary file takes the place of its destination, otherwise
 * it is removed and the destination stays as it was; returns rc or the
 * rename's error, which names `path`.  ces_write_file does both around one
 * buffer; ces_write_all writes all of a buffer to fd (0, or -1 with
 * errno). */
struct ces_out_file {
    char name[4096];
    char dest[4096];
    bool own;
    bool shares;
};
int ces_file_create_beside(struct ces_ctx *ctx, const char *path, struct ces_out_file *of);
/* ces_file_create_beside within a time bound: a named pipe that no reader
 * has opened yet, whose open waits for one, is waited for until `deadline`
 * (ces_now's; 0: none, as ces_file_create_beside) at most, and `stall`
 * seconds (0: none; none for of->own) at most, -2 past either (the
 * context's error saying which); a file opened in place under either is
 * O_NONBLOCK (ces_file_write_by; cleared before Graphviz gets it), and so
 * is a pipe or a terminal that is one of the process's descriptors under
 * a deadline, opened again through /proc/self/fd/N where it can be (a
 * device that is no terminal is not: its open and close may act, as a
 * tape's close rewinds it); of->shares is
 * true where the descriptor returned is a duplicate of one of the
 * process's, whose file status flags (O_NONBLOCK) are left as they are. */
int ces_file_create_by(struct ces_ctx *ctx, const char *path, struct ces_out_file *of,
                       double deadline, double stall);
int ces_file_replace(struct ces_ctx *ctx, const struct ces_out_file *of, const char *path, int rc);
int ces_write_file(struct ces_ctx *ctx, const char *path, const char *text, size_t len);
/* ces_write_file within b's deadline and stall (its memory unused), as
 * ces_dot_write_by writes a .dot: past either CES_ERR_TIMEOUT, nothing
 * left in path's place, the message naming the file: "no reader opened
 * PATH in 60 s", "cannot write PATH: its reader took none of it for 60 s",
 * "the time bound passed while PATH was written" (or while it "waited for
 * a reader"). */
struct ces_dot_bounds;
int ces_write_file_by(struct ces_ctx *ctx, const char *path, const char *text, size_t len,
                      const struct ces_dot_bounds *b);
/* The descriptor of this process that `path` names, as
 * ces_file_create_beside finds it (/dev/fd/N, /proc/self/fd/N,
 * /proc/self/task/TID/fd/N, a link to one); -1 for any other path. */
int ces_file_own_descriptor(const char *path);
/* Whether `path` is written as standard output is (of->own of
 * ces_file_create_beside): a name of one of the process's descriptors
 * (ces_file_own_descriptor), or a file that is no regular file and is its
 * standard output or error (a link to /dev/stdout, a named pipe that the
 * shell opened for it too, /proc/PID/fd/1 of the shell). */
bool ces_file_own_stream(const char *path);
/* Into buf, the name that the chain of symbolic links from `path` ends at,
 * the file ces_file_create_beside writes (path itself when it is no link;
 * a link to a file not there yet names the file it makes); false when the
 * chain loops or a name does not fit. */
bool ces_file_link_end(const char *path, char *buf, size_t size);
/* Removes the temporary files of this process that ces_file_create_beside
 * made and ces_file_replace has not ended yet (at most 8 at a time are
 * listed), and sends SIGTERM to the child that ces_file_child names:
 * async-signal-safe, for a handler of a signal that ends the process, so
 * that no PATH.XXXXXX is left beside its output and no dot goes on drawing
 * it.  ces_file_child(pid) names the child writing a pending file, 0 none. */
void ces_file_unlink_pending(void);
void ces_file_child(int pid);
/* ces_file_unlink_pending for a thread that ends the process at once
 * (_Exit) while another may be making a file: one between mkstemp and its
 * listing is waited for and removed, none is made after (the thread that
 * would make one waits for the end), and a child that ces_file_child names
 * after it is ended too.  Not for a signal handler. */
void ces_file_unlink_last(void);
int ces_write_all(int fd, const char *buf, size_t len);
/* A descriptor of the library's own files (an output's temporary file, the
 * input Graphviz reads): fd made close-on-exec and, where it took the
 * number of a standard stream that the process was started without
 * (cesync dot ... <&-), moved above 2; the descriptor to use, or -1 with
 * errno (fd closed either way when moved or failed). */
int ces_file_fd_own(int fd);
/* A description of its own of the pipe or terminal that fd is, opened
 * again through /proc/self/fd/N with `flags` (the access mode, O_APPEND)
 * and O_NONBLOCK (a pipe whose reader is gone is not waited for: ENXIO),
 * O_NOCTTY (a terminal so opened never becomes the process's controlling
 * one) and O_CLOEXEC; the descriptor (any free number, 0 to 2 among them),
 * or -1 with errno: fd is neither (a device whose open and close may act,
 * as a tape's close rewinds it; a socket), there is no /proc, or the
 * terminal opened is not fd's (TIOCGDEV: /dev/ptmx opened again is a new
 * pseudo-terminal whose master no one reads, /dev/tty the controlling
 * terminal of this process, not of the one that opened fd), where what
 * was written went to no reader.  Its flags are the new description's
 * alone: the one fd shares keeps O_NONBLOCK, or its lack, for the other
 * programs that share it. */
int ces_file_reopen(int fd, int flags);
/* The directory of the library's temporary files (the input Graphviz
 * reads, the communicator's progress page where /dev/shm cannot hold it):
 * $TMPDIR, or /tmp when that is unset or empty; *env is " (TMPDIR)" when
 * it came from there, else "", for the messages that name it. */
const char *ces_tmp_dir(const char **env);

/* The path of an executable `name` on PATH, into buf; false if none
 * (core/dot.c: Graphviz's dot). */
bool ces_find_program(const char *name, char *buf, size_t size);

/* The format that the ending of `path` names, in either case (x.SVG as
 * x.svg): "dot", "svg" or "png"; NULL for another (core/dot.c). */
const char *ces_dot_format(const char *path);

/* What Graphviz's layout of a picture costs: its nodes, and the ranks (of
 * the layout, one per node of a lane) that its edges drawn across lanes
 * span, each a node more in its layout (its virtual nodes); and the work
 * of the order that draws a wait from its nearest writes above 1000 pairs
 * within blocks (clock entries and writes and waits looked at; 0 where it
 * did not run), which its bound (2^31) gives up past. */
struct ces_dot_size {
    uint64_t nodes, span, order;
};

/* The check a picture is of (cesync check --dot): the hardware queues its
 * executions ran on, and its graph's streams from `linked` on, the delayed
 * writes' (docs/SEMANTICS.md section 9), each on a queue of its own and in
 * no link at a block or replay boundary. */
struct ces_dot_checked {
    const uint32_t *queue_map; /* [ranks * linked], as ces_check_opts.queue_map; NULL:
                                * the graph's connections */
    uint32_t linked;           /* the schedule's streams */
    bool unchained;            /* no edge left out by a chain of waits (chain_over,
                                * taken_apart), so that a test can tell the edges they
                                * leave out: sim_test_dot_edges */
};

/* ces_dot_emit, and (size, where not NULL) the picture's size.  With
 * `checked` (NULL: the graph's own queues and links) the order of writes
 * and waits above 1000 pairs within blocks is of that check's executions,
 * so that a wait is drawn from its nearest writes, over an overlay too
 * (without it, over an overlay every pair within a block is drawn:
 * ces_dot_emit; a check under a stop, a drop or the watchdog model, which
 * no such order knows, is drawn so). */
int ces_dot_emit_sized(struct ces_ctx *ctx, const struct ces_graph *g,
                       const struct ces_dot_overlay *overlay,
                       const struct ces_dot_checked *checked, char **text, size_t *len,
                       struct ces_dot_size *size, double deadline);

/* What bounds ces_dot_write_by (each 0: none). */
struct ces_dot_bounds {
    double deadline; /* ces_now's: read as the text is written and while
                      * Graphviz lays it out (ended there) */
    double stall;    /* seconds that a file that is no regular file (a named
                      * pipe, a pipe) may wait for a reader to open it, or
                      * for its reader to take more of the dot text, or of
                      * the .svg or .png that Graphviz writes there (then
                      * ended) */
    uint64_t memory; /* bytes of data segment (RLIMIT_DATA) Graphviz may take
                      * for a .svg or .png, raised to ces_dot_memory_floor:
                      * one that fails saying that an allocation failed
                      * ("out of memory", "failed to allocate", ...: its
                      * standard error, relayed), or else having held half
                      * of it or more, not ended by SIGPIPE, is
                      * CES_ERR_LIMIT, "... out of memory: its bound of N
                      * bytes" */
};

/* Writes text[0..n) to fd in parts (core/file.c: ces_write_file_by and
 * ces_dot_write_by's), reading the clock (ces_now) before each where b
 * has a deadline: 0, -1 with errno set, 1 once the deadline has passed, 2
 * once the stall has.  Where b has either, a file that is no regular file
 * (a pipe, a named pipe, a terminal, a device) is given what it takes
 * without waiting, up to 16 MiB a write: where fd is O_NONBLOCK (as
 * ces_file_create_by opens one), all that a write takes, poll(2) asked
 * only when it takes nothing (EAGAIN); else, once poll says it takes
 * some, a device that is no terminal whole, PIPE_BUF of another (of a
 * pipe no more is known to be free: a write of more waited for the
 * reader past the deadline).  poll is waited for until the
 * deadline at most, and b->stall seconds after the reader last took some
 * (a part of 16 MiB waited for a reader that does not read without end;
 * every part PIPE_BUF after a poll, 109 MiB were 27,905 writes, 0.1 s
 * into /dev/null, 0.3 s into a pipe read at once).  A pipe's reader
 * takes some where the bytes it holds (FIONREAD) fell since the last
 * look: it has room again only once a page of it is read whole, and a
 * reader of a line a second took a page in a minute or more.  Without
 * either, a description that another program left O_NONBLOCK (its end of
 * a pipe, shared as this process's standard output) is waited for as a
 * blocking one is, poll(2) asked where a write takes nothing (EAGAIN: it
 * failed the write). */
int ces_file_write_by(int fd, const char *text, size_t n, const struct ces_dot_bounds *b);

/* The least data segment that ces_dot_write_by gives Graphviz however
 * small its bound: 16 MiB and four threads' stacks (each the soft
 * RLIMIT_STACK, 8 MiB where it has none, 16 MiB at most: a larger one is
 * lowered to 8 MiB for Graphviz where its bound cannot hold four), 48 MiB
 * under the usual 8 MiB, 80 MiB at most.  A thread's stack counts whole in
 * RLIMIT_DATA though it holds a few pages, and Graphviz's fonts (pango,
 * fontconfig) start threads before any layout: under less, the smallest
 * .png or .svg failed (GLib aborting on a thread it could not create,
 * SIGTRAP, holding 8 MB), or waited for ever. */
uint64_t ces_dot_memory_floor(void);

/* ces_dot_write within bounds: past b's deadline or stall, CES_ERR_TIMEOUT
 * with no file left behind, the message saying which; Graphviz out of
 * b's memory, CES_ERR_LIMIT, nothing left behind.
 * ces_dot_emit_sized's `deadline` alike: past it, CES_ERR_TIMEOUT, no
 * text. */
int ces_dot_write_by(struct ces_ctx *ctx, const char *dot_text, const char *path,
                     const struct ces_dot_bounds *b);

/* Whether ces_dot_write can make the temporary file that feeds `dot` a
 * .svg or .png (in $TMPDIR, else /tmp): created and removed again, for a
 * command to try before long work.  CES_OK, or CES_ERR_IO with "cannot
 * create a temporary file in DIR[ (TMPDIR)]: why" (core/dot.c). */
int ces_dot_tmp_probe(struct ces_ctx *ctx);

/* The most a .ces source may hold: 256 MiB (the expanded 1024-rank
 * alltoall prints in far less). */
#define CES_SOURCE_MAX ((size_t)256 << 20)

/* The most a model file may hold (ces_model_load, and a --model pipe the
 * tool reads itself): a page, 1 MiB. */
#define CES_MODEL_FILE_MAX ((size_t)1 << 20)

/* The most blocks a program expands to (core/expand.c), and the most blocks
 * times ranks: a block holds an op list per rank even when it is empty.
 * The builders refuse what would pass them before writing its text. */
#define CES_EXPAND_MAX_BLOCKS (UINT64_C(1) << 20)
#define CES_EXPAND_MAX_RANK_BLOCKS (UINT64_C(1) << 24)
/* The most ops a program expands to (core/expand.c). */
#define CES_EXPAND_MAX_OPS (UINT64_C(1) << 24)

/* Duplicates a string with the context's hooks; NULL on failure. */
char *ces_strdup(struct ces_ctx *ctx, const char *s);
/* True if s is an identifier: [A-Za-z_][A-Za-z0-9_]*. */
bool ces_is_ident(const char *s);

/* How a line for a terminal says text given (a file name, an option's
 * value, an environment variable's: cesync's messages and the reports
 * that echo a name, the library's own lines on stderr).  ces_spell writes
 * into out the character that s starts (s not at its end) as said, and
 * returns its length, at most 4 bytes for each of the *used bytes of s it
 * stands for (CES_SPELL_MAX in all).  Said as \xNN, each byte: a control
 * (C0 but tab, a newline too: a message is one line; DEL; C1 in UTF-8,
 * U+0080..U+009F), Unicode's bidirectional formatting characters (U+061C,
 * U+200E..U+200F, U+202A..U+202E, U+2066..U+2069), and a byte of no valid
 * UTF-8 sequence (0x80..0x9f alone are C1 controls on a terminal of 8-bit
 * characters); a backslash as \\, so that a name's own text "\x1b" reads
 * "\\x1b", not as an ESC; any other character as it is (tools/common.c). */
#define CES_SPELL_MAX 16
size_t ces_spell(const char *s, char *out, size_t *used);
/* Appends s, each character as ces_spell says it. */
void ces_sb_spelled(struct ces_sb *sb, const char *s);

/* --- the graph --------------------------------------------------------- */

struct ces_named {
    char *name;
    uint64_t size;   /* buffer: bytes; signal: slots */
    uint32_t width;  /* signal: 32 or 64 */
    int64_t value;   /* const */
    /* signal, kept by ces_graph_add_op for ces_graph_u64_cyclic: a >= wait
     * reads it; a write or a >= wait of it has a value above 2^63-1 */
    bool geq_read, above_i64;
};

/* A block's ops.  The last block's are in the graph's open lists, one per
 * rank, which ces_graph_add_op extends; when a block follows, they move into
 * the graph's arena, every rank's in one array, rank 0's first (start[r] to
 * start[r + 1] are rank r's), and the lists serve the new block: a long
 * schedule's blocks cost no allocation of their own.  A block of more than
 * 1 MiB of ops keeps the lists' arrays instead (`own`).  A block whose ops
 * are those of the block before it, in the arena, shares its `ops` and
 * `start` (the iterations of an eager phase that does not read $i). */
struct ces_gblock {
    struct ces_block_info info;
    struct ces_op *ops;  /* in the arena; NULL for the last block, one with `own` and
                          * one without ops */
    struct ces_op **own; /* [ranks] arrays of the graph's own (NULL: none), or NULL */
    uint32_t *start;     /* [ranks + 1], in the arena; NULL for the last block */
};

struct ces_graph {
    struct ces_ctx *ctx;
    uint32_t ranks;
    uint32_t streams;
    uint32_t connections;
    uint32_t setting_line[3], setting_col[3]; /* [enum ces_setting]: where the file gives it */
    struct ces_vec buffers; /* struct ces_named */
    struct ces_vec signals; /* struct ces_named */
    struct ces_vec events;  /* struct ces_named */
    struct ces_vec consts;  /* struct ces_named */
    /* the tables' names */
    struct ces_names buffer_names, signal_names, event_names, const_names;
    struct ces_vec blocks;  /* struct ces_gblock */
    struct ces_vec *open;   /* [ranks] vectors of struct ces_op: the last block's ops */
    struct ces_vec chunks;  /* char *: the arena's chunks, every earlier block's ops */
    char *arena;            /* the free bytes of the newest chunk */
    size_t arena_left;
    size_t arena_chunk;     /* the newest chunk's size as the sizes double (0: none yet) */
    uint64_t next_iter;     /* first iteration of the next block */
    bool validated;         /* ces_graph_validate passed, and no op or block came since */
};

/* Called by ces_graph_validate_watched with the ops validated so far; a
 * nonzero return stops the validation. */
typedef int ces_validate_tick_fn(void *ud, uint64_t validated);

/* ces_graph_validate, calling `tick` about every 65,536 ops: where it
 * returns nonzero, CES_ERR_TIMEOUT without a message, g not validated
 * (core/graph.c; the watched expansion's). */
int ces_graph_validate_watched(struct ces_graph *g, const char *file, ces_validate_tick_fn *tick,
                               void *ud);

/* For the consumers whose contract takes a validated graph (the checker,
 * the fault sweep, the Promela emitter, the cost model, the CUDA lowering): CES_OK if g has
 * passed ces_graph_validate since its last op or block, else g is validated
 * now into ctx, and an error is prefixed with `who` (core/graph.c). */
int ces_graph_require_valid(struct ces_ctx *ctx, const struct ces_graph *g, const char *who);

/* Whether a slot of `width` holding `cur` satisfies `wait ... cmp value`:
 * `==` exact; `>=` on u32 is CUDA's cyclic compare (int32_t)(cur - value) >= 0,
 * on u64 plain (core/graph.c). */
bool ces_wait_holds(uint32_t width, uint32_t cmp, uint64_t cur, uint64_t value);

/* Whether two regions share a byte: same buffer, same rank, intersecting
 * half-open ranges (core/graph.c). */
bool ces_region_overlap(const struct ces_region *x, const struct ces_region *y);

/* The streams (bit s, s >= 1) of rank r's part of block b that a backend
 * issuing the block between a fork from stream 0 (stream 0 records, every
 * other stream awaits) and a join into it (the reverse) must link by those
 * events; the others are linked by the block's own ops (core/graph.c).
 * A stream with no op in the block needs neither.  One whose first op
 * awaits an event that an earlier op of the block recorded starts after
 * that record, so after stream 0's start: no fork.  One whose last op
 * records an event that a later op of stream 0 awaits, with no record of
 * that event between them, ends before that await: no join. */
void ces_graph_links(const struct ces_graph *g, uint32_t b, uint32_t r, uint64_t *fork,
                     uint64_t *join);
/* Whether op i of a block's op list (ops) awaits an event that an op
 * before it in the list records (core/graph.c). */
bool ces_graph_awaits_earlier(const struct ces_op *ops, uint32_t i);

/* "r1.s0#7" style name of an op position, used in messages; with `op` (may
 * be NULL) from a source file, its place there too: "r1.s0#7 (line 9:1)". */
int ces_op_where(char *buf, size_t size, uint32_t rank, uint32_t stream, uint64_t index,
                 const struct ces_op *op);

/* " (line 2:7)", the place where g's file gives setting `which` (enum
 * ces_setting), "" where none does: a message names the setting and then
 * this, as ces_op_where names an op (core/graph.c). */
int ces_setting_where(char *buf, size_t size, const struct ces_graph *g, uint32_t which);

/* Whether the u64 waits run on CUDA as checked: CUDA's 64-bit `>=` wait is
 * cyclic, (int64_t)(cur - v) >= 0, the checker's plain (docs/SEMANTICS.md,
 * section 3), and the two agree while the values a `>=` wait awaits and
 * reads are below 2^63.  Judged on the whole graph, the ops of every rank,
 * so that every rank refuses alike (the writer of a value as its waiter):
 * CES_ERR_UNSUPPORTED naming the first op past it, the message prefixed
 * with `who` and ": " (none where NULL).  What ces_graph_add_op kept of
 * each signal answers it without a look at an op unless it refuses, so
 * that lowering each rank costs no pass over every rank's ops.
 * core/graph.c */
int ces_graph_u64_cyclic(struct ces_ctx *ctx, const struct ces_graph *g, const char *who);

#endif /* CES_CORE_INTERNAL_H */
