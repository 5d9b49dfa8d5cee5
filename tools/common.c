/*
 * tools/common.c - what the subcommands share: loading a schedule from a
 * file or a built-in collective with builder options, sizes with suffixes,
 * error printing, writing an output file whole or not at all.
 */
#include "tool.h"
#include "internal.h" /* ces_write_file_by, ces_dot_format, ces_file_own_stream, ces_file_reopen,
                      * ces_file_fd_own */
#include "prog.h"     /* ces_prog_expand_watched */
#include "../backend/sim/internal.h" /* ces_sim_fmt_bytes */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h> /* max_align_t */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* The builder options after --ranks, whose default differs in run; the
 * rules behind each line are docs/CLI.md's "Builder options". */
static const char builder_options[] =
    "  --bytes B          bytes per rank, 1..262144G, suffixes K M G (default 1024)\n"
    "  --iterations K     calls of the collective, 1..1000000 (default 1)\n"
    "  --sync P           mono (eager default), nccl, credit (--graph default), pull\n"
    "  --graph            one graph phase replayed K times instead of K eager iterations\n"
    "  --root R           root of gather, scatter, broadcast, 0..N-1 (default 0)\n"
    "  --pairs a:b,c:d    sendrecv sender:receiver pairs (default 0:1,1:2,...)\n"
    "  --chunks C         sendrecv chunks per message, 1..1024 (default 4)\n"
    "  --slots S          sendrecv staging slots, 1..1024, at most C with --sync credit\n"
    "                     (default 2; 1 with --chunks 1)\n"
    "  --variant V        plain (default), overlap, early (early: alltoall, allgather)\n"
    "  --in-place         allgather, gather, scatter, broadcast: no local copy\n"
    "  --directed         gather, scatter, broadcast: each barrier one way\n"
    "  --wake K           ranks that only wait copy K 4 KiB pieces, 0..256 (default 0)\n";

/* the limits that the usage text names */
_Static_assert(CES_MAX_RANKS == 1024, "the usage says --ranks 1..1024");
_Static_assert(CES_MAX_BYTES == UINT64_C(1) << 48, "the usage says --bytes 1..262144G");
_Static_assert(CES_TOOL_RUN_RANKS == 64, "run's usage says --ranks 1..64");

void ces_tool_builder_help(int run)
{
    printf("Schedule: a .ces file (- for standard input; after --, any name) or a collective:\n"
           "  alltoall allgather gather scatter broadcast sendrecv barrier\n"
           "%s"
           "Builder options (for a collective; one it does not take is an error):\n"
           "  --ranks N          ranks, %s\n"
           "%s",
           run ? "  (run needs one: it has no built-in default)\n"
               : "  (none: the built-in 4-rank alltoall, unless standard input is a pipe or "
                 "file)\n",
           run ? "1..64 (default: the GPUs, at least 2, at most 8)" : "1..1024 (default 4)",
           builder_options);
}

uint32_t ces_tool_run_ranks(uint32_t gpus)
{
    return gpus < 2 ? 2 : gpus > CES_TOOL_RUN_DEFAULT_RANKS ? CES_TOOL_RUN_DEFAULT_RANKS : gpus;
}

int ces_tool_wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) /* the next is the schedule, even one named --help */
            i++;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    }
    return 0;
}

int ces_tool_decimal(const char *v, double *out)
{
    char *end;

    if (v[0] == '\0' || v[strspn(v, "0123456789.eE+-")] != '\0')
        return 0;
    *out = strtod(v, &end);
    return *end == '\0' && isfinite(*out);
}

int ces_tool_seconds(const char *cmd, const char *opt, const char *v, double *out)
{
    /* another option is no value (gen reads one after any option) */
    if (ces_tool_value(cmd, opt, v, "a finite number > 0") != CES_EXIT_OK)
        return CES_EXIT_USAGE;
    if (!ces_tool_decimal(v, out) || *out <= 0)
        return ces_tool_fail("%s: %s expects a finite number > 0, not '%s'", cmd, opt, v);
    return CES_EXIT_OK;
}

int ces_tool_listed(const char *const *list, const char *s)
{
    for (; list != NULL && *list != NULL; list++)
        if (strcmp(*list, s) == 0)
            return 1;
    return 0;
}

/* "cesync: " + the message + newline on stderr in one write (the ranks of
 * `cesync run` write there at once), a name or value given in it (a file
 * name, an option's value) said as ces_spell says it: a control as \xNN,
 * a backslash as \\. */
static void say(const char *fmt, va_list ap)
{
    char small[512], *msg = small, *line;
    size_t len, k;
    va_list again;
    int n;

    va_copy(again, ap);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    if (n < 0)
        small[0] = '\0';
    else if ((size_t)n >= sizeof(small) && (msg = malloc((size_t)n + 1)) != NULL)
        vsnprintf(msg, (size_t)n + 1, fmt, again);
    else
        msg = small; /* no memory for the whole: the message cut short */
    va_end(again);
    len = strlen(msg);
    line = malloc(sizeof("cesync: \n") + 4 * len);
    if (line == NULL) { /* no memory to spell them: each byte spelled a '?' */
        char c[CES_SPELL_MAX];

        for (char *p = msg; *p != '\0';) {
            size_t used;

            if (ces_spell(p, c, &used) != used)
                memset(p, '?', used);
            p += used;
        }
        fprintf(stderr, "cesync: %s\n", msg);
    } else {
        k = (size_t)snprintf(line, 9, "cesync: ");
        for (const char *p = msg; *p != '\0';) {
            size_t used;

            k += ces_spell(p, line + k, &used);
            p += used;
        }
        line[k++] = '\n';
        fwrite(line, 1, k, stderr);
        free(line);
    }
    if (msg != small)
        free(msg);
}

void ces_tool_put_name(FILE *f, const char *name)
{
    char c[CES_SPELL_MAX];

    while (*name != '\0') {
        size_t used;

        fwrite(c, 1, ces_spell(name, c, &used), f);
        name += used;
    }
}

const char *ces_tool_path(const char *path)
{
    return path[0] != '\0' ? path : "''";
}

void ces_tool_say(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
}

int ces_tool_fail(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    return CES_EXIT_USAGE;
}

/* From this many seconds of Graphviz's layout a picture is announced. */
#define CES_TOOL_DOT_SLOW_SECONDS 10.0

/* Graphviz's layout time in seconds for a picture of `sz`: its network
 * simplex and its crossing minimization work on the layout's nodes, each
 * node and each rank an edge across lanes spans (a virtual node), in
 * about as many steps as there are nodes, so the ops alone do not say it.
 * Dot 2.43's CPU time on a busy machine: at about 4,000 nodes 1.6 s where
 * edges span 2,400 ranks, 29 s where they span 95,000 (an alltoall of 32
 * ranks); 55 s at 5,800 nodes spanning 264,000 (40 broadcasts of 8
 * ranks), 36 s for the credit sendrecv of 8 ranks and 256 chunks (14,350
 * nodes spanning 8,900), 8.4 s for 28 alltoalls of 8 ranks (7,400 nodes
 * spanning 37,600); these divided by 1.5 (what they took beside the
 * estimate before) and 10 s and 13 minutes for 36 and 200 of those
 * alltoalls on one idle core are fitted as 1.4e-8 nodes^1.33 (nodes +
 * span)^0.81, within about a factor of two (11.5 s for the 28 alltoalls,
 * 19.7 s for the 36; ops^2.5, the estimate before, said 1 s for the
 * alltoall of 32 ranks and 3 s for the broadcasts).  An idle core's time,
 * then: a busy machine's undivided is up to about three times it (29 s of
 * the alltoall of 32 ranks, estimated 10 s; here, two cores shared at a
 * load of 3 to 4, 23 s of it and 27 s of the sendrecv, estimated 16 s). */
static double dot_layout_seconds(const struct ces_dot_size *sz)
{
    double n = (double)sz->nodes;

    return 1.4e-8 * pow(n, 1.33) * pow(n + (double)sz->span, 0.81);
}

uint64_t ces_tool_default_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 2 : 0;
}

#define PIC_HEAD _Alignof(max_align_t)

/* Whether a block of `old` bytes may become one of `size`. */
static bool pic_room(struct ces_tool_pic_mem *m, size_t old, size_t size)
{
    if (size > SIZE_MAX - PIC_HEAD)
        return false;
    if (m->limit == 0 || size <= old ||
        (m->held <= m->limit && size - old <= m->limit - m->held))
        return true;
    m->over = true;
    return false;
}

static void *pic_realloc(void *ud, void *ptr, size_t size)
{
    struct ces_tool_pic_mem *m = ud;
    unsigned char *p = ptr != NULL ? (unsigned char *)ptr - PIC_HEAD : NULL;
    size_t old = 0;

    if (p != NULL)
        memcpy(&old, p, sizeof(old));
    if (!pic_room(m, old, size))
        return NULL;
    p = realloc(p, PIC_HEAD + size);
    if (p == NULL)
        return NULL;
    memcpy(p, &size, sizeof(size));
    m->held = m->held - old + size;
    return p + PIC_HEAD;
}

static void *pic_malloc(void *ud, size_t size)
{
    return pic_realloc(ud, NULL, size);
}

static void pic_free(void *ud, void *ptr)
{
    struct ces_tool_pic_mem *m = ud;
    unsigned char *p = (unsigned char *)ptr - PIC_HEAD;
    size_t old;

    if (ptr == NULL)
        return;
    memcpy(&old, p, sizeof(old));
    m->held -= old;
    free(p);
}

struct ces_ctx *ces_tool_pic_ctx(uint64_t limit, struct ces_tool_pic_mem *m)
{
    const struct ces_alloc hooks = {pic_malloc, pic_realloc, pic_free, m};
    struct ces_ctx *ctx = NULL;

    memset(m, 0, sizeof(*m));
    if (ces_ctx_create(&hooks, &ctx) != CES_OK)
        return NULL;
    m->limit = limit;
    return ctx;
}

void ces_tool_pic_memory_why(char *buf, size_t size, int rc, uint64_t limit, uint64_t left)
{
    char bound[24], rest[24];

    ces_sim_fmt_bytes(bound, sizeof(bound), limit);
    if (rc != CES_ERR_LIMIT) {
        snprintf(buf, size, "its text and tables would pass the memory bound of %s", bound);
    } else if (left < ces_dot_memory_floor()) {
        ces_sim_fmt_bytes(rest, sizeof(rest), ces_dot_memory_floor());
        snprintf(buf, size, "Graphviz ran out of the %s of memory that it gets however small "
                 "the bound (of %s)", rest, bound);
    } else {
        ces_sim_fmt_bytes(rest, sizeof(rest), left);
        snprintf(buf, size, "Graphviz ran out of the %s of memory that the bound of %s left it "
                 "beside the dot text", rest, bound);
    }
}

void ces_tool_dot_bounds(struct ces_dot_bounds *b, double deadline, uint64_t memory)
{
    b->deadline = deadline;
    b->stall = deadline > 0 ? 0 : CES_TOOL_DOT_STALL_SECONDS;
    b->memory = memory;
}

uint64_t ces_tool_dot_ops(const struct ces_graph *g)
{
    uint64_t ops = 0;

    for (uint32_t b = 0; b < ces_graph_nblocks(g); b++)
        for (uint32_t r = 0; r < ces_graph_ranks(g); r++) {
            uint32_t n = 0;

            ces_graph_ops(g, b, r, &n);
            ops += n;
        }
    return ops;
}

int ces_tool_dot_size(struct ces_ctx *ctx, const struct ces_graph *g,
                      const struct ces_dot_overlay *overlay, struct ces_dot_size *size,
                      double deadline)
{
    char *text = NULL;
    int rc = ces_dot_emit_sized(ctx, g, overlay, NULL, &text, NULL, size, deadline);

    ces_free(ctx, text);
    return rc;
}

void ces_tool_dot_note(const char *cmd, uint64_t ops, const struct ces_dot_size *size,
                       const char *path)
{
    const char *fmt = ces_dot_format(path);
    double s;

    if (fmt == NULL || strcmp(fmt, "dot") == 0)
        return;
    s = dot_layout_seconds(size);
    if (s < CES_TOOL_DOT_SLOW_SECONDS)
        return;
    /* "about 12 minutes" said as a wait, "about 27 hours" as a warning:
     * a 376,000-op picture is no minutes' work */
    ces_tool_say("%s: drawing %" PRIu64 " ops (%" PRIu64 " nodes, edges across lanes %" PRIu64
                 " ranks long); Graphviz may take about %.0f %s to lay out so many (fewer "
                 "iterations or ranks draw faster, and a .dot file skips the layout)",
                 cmd, ops, size->nodes, size->span, s < 90 ? s : s < 90 * 60 ? s / 60 : s / 3600,
                 s < 90 ? "s" : s < 90 * 60 ? "minutes" : "hours");
}

/* From this many bytes of dot text a picture written as text is announced:
 * the alltoall of 136 ranks draws 15 MiB and is not, that of 144 ranks 16.8
 * MiB, that of 1024 ranks about 900 MB. */
#define CES_TOOL_DOT_LARGE_BYTES (UINT64_C(16) << 20)

void ces_tool_dot_text_note(const char *cmd, uint64_t ops, size_t len, const char *path)
{
    if ((uint64_t)len < CES_TOOL_DOT_LARGE_BYTES)
        return;
    ces_tool_say("%s: writing %.0f MiB of dot text (%" PRIu64 " ops) to %s; fewer iterations or "
                 "ranks draw less", cmd, (double)len / (1024.0 * 1024.0), ops,
                 path != NULL ? path : "standard output");
}

/* Says that no machine kind is called `kind`, naming those there are. */
static int unknown_kind(const char *cmd, const char *kind)
{
    char known[256] = "";

    /* the model's own list, so the message stays true when kinds are added */
    for (uint32_t i = 0; ces_model_kind_name(i) != NULL; i++)
        snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
                 i > 0 ? ", " : "", ces_model_kind_name(i));
    return ces_tool_fail("%s: --kind: unknown machine kind '%s' (known: %s)", cmd, kind, known);
}

int ces_tool_machine_opt(const char *cmd, const char *opt, const char *v, const char **kind,
                         const char **model_path)
{
    if (strcmp(opt, "--kind") != 0 && strcmp(opt, "--model") != 0)
        return 0;
    if (ces_tool_value(cmd, opt, v, strcmp(opt, "--kind") == 0 ? "a machine kind"
                                                               : "a model file") != CES_EXIT_OK)
        return -1;
    /* a kind judged as it is read, before the schedule's expansion (which
     * may take seconds) and whether or not the schedule reads */
    if (strcmp(opt, "--kind") == 0 && ces_model_find(v) == NULL) {
        unknown_kind(cmd, v);
        return -1;
    }
    *(strcmp(opt, "--kind") == 0 ? kind : model_path) = v;
    return 1;
}

/* Whether p holds what its parse needs to say an error: one byte past its
 * bound, or a NUL byte. */
static bool pending_full(const struct ces_tool_pending *p)
{
    return p->len > p->max || p->nul;
}

/* One read of p, which poll found ready and which is not pending_full:
 * what came is kept up to one byte past its bound, the rest dropped. */
static void pending_take(struct ces_tool_pending *p)
{
    char chunk[65536];
    ssize_t got = read(p->fd, chunk, sizeof(chunk));
    size_t keep;

    if (got < 0) {
        if (errno != EINTR && errno != EAGAIN) {
            p->err = errno;
            p->end = true;
        }
        return;
    }
    if (got == 0) {
        p->end = true;
        return;
    }
    keep = (size_t)got < p->max + 1 - p->len ? (size_t)got : p->max + 1 - p->len;
    if (p->cap - p->len <= keep) { /* and the NUL after the text */
        size_t ncap = p->cap == 0 ? 8192 : p->cap;
        char *nb;

        while (ncap - p->len <= keep)
            ncap *= 2;
        if (ncap > p->max + 2) /* one byte past max and the NUL: doubling held twice it */
            ncap = p->max + 2;
        nb = realloc(p->text, ncap);
        if (nb == NULL) {
            p->err = ENOMEM;
            p->end = true;
            return;
        }
        p->text = nb;
        p->cap = ncap;
    }
    memcpy(p->text + p->len, chunk, keep);
    p->nul = memchr(chunk, '\0', keep) != NULL; /* (the text before held none) */
    p->len += keep;
    p->text[p->len] = '\0';
}

/* Reads `a` until its end, or until it holds what its parse needs to say
 * an error, and meanwhile whatever `b` (NULL: none) has ready, to its
 * end: a producer may write either first, whole, and each waits for its
 * reader.  A named pipe opened without waiting for a writer is not ready
 * until one has opened it.  Once `b` holds what its parse needs to say
 * its error it is closed and read no more: its writer's next write fails
 * (EPIPE) rather than wait for a reader, so that a producer that writes
 * it first goes on to the schedule (it was read and dropped until the
 * schedule's end, a writer that never ends drained without end). */
static void pending_read(struct ces_tool_pending *a, struct ces_tool_pending *b)
{
    while (!a->end && !pending_full(a)) {
        struct pollfd fds[2] = {{a->fd, POLLIN, 0},
                                {b != NULL && !b->end ? b->fd : -1, POLLIN, 0}};

        if (poll(fds, 2, -1) < 0) {
            if (errno != EINTR) {
                a->err = errno;
                a->end = true;
            }
            continue;
        }
        if (fds[0].revents != 0)
            pending_take(a);
        if (fds[1].revents != 0)
            pending_take(b);
        if (b != NULL && !b->end && pending_full(b)) {
            close(b->fd);
            b->fd = -1;
            b->end = true;
        }
    }
}

/* pending_read's error of `p` in ces_read_stream's words into ctx's
 * message, CES_ERR_IO (CES_ERR_NOMEM); CES_OK where none. */
static int pending_error(struct ces_ctx *ctx, const struct ces_tool_pending *p, const char *name)
{
    if (p->err == ENOMEM)
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "%s: out of memory reading", name);
    if (p->err != 0)
        return ces_ctx_error(ctx, CES_ERR_IO, "%s: read error: %s", name, strerror(p->err));
    return CES_OK;
}

void ces_tool_pending_end(struct ces_tool_pending *p)
{
    if (p->path != NULL && p->fd >= 0)
        close(p->fd);
    free(p->text);
    memset(p, 0, sizeof(*p));
}

int ces_tool_machine(const char *cmd, struct ces_ctx *ctx, const char *kind,
                     const char *model_path, const char *in, struct ces_model *out,
                     struct ces_tool_pending *pend)
{
    const struct ces_model *base = ces_model_find(kind != NULL ? kind : "h200");
    struct stat sm, si;
    bool there = model_path != NULL && stat(model_path, &sm) == 0;

    if (base == NULL)
        return unknown_kind(cmd, kind);
    /* the schedule read from standard input: a model file that is that
     * stream too (/dev/stdin) would read the schedule as the model */
    if (there && in != NULL && strcmp(in, "-") == 0 && fstat(STDIN_FILENO, &si) == 0 &&
        sm.st_dev == si.st_dev && sm.st_ino == si.st_ino)
        return ces_tool_fail("%s: --model %s is the file standard input reads, which holds the "
                             "schedule (name the model's own file)", cmd, model_path);
    /* nor the schedule's own file: a named pipe, read once the schedule
     * is, would wait for a second writer (and a file would give the
     * schedule's text for the model) */
    if (there && in != NULL && strcmp(in, "-") != 0 && stat(in, &si) == 0 &&
        sm.st_dev == si.st_dev && sm.st_ino == si.st_ino)
        return strcmp(model_path, in) == 0
                   ? ces_tool_fail("%s: --model %s is the schedule's file (name the model's own "
                                   "file)", cmd, model_path)
                   : ces_tool_fail("%s: --model %s is the schedule's file %s (name the model's "
                                   "own file)", cmd, model_path, in);
    *out = *base;
    /* a named pipe, a pipe (<(producer), /dev/fd/N), a terminal: opening
     * or reading it may wait for a writer that waits for something else
     * (the schedule's reading), which must not block where the schedule
     * would have said its error; opened without waiting (a named pipe
     * then waits in poll for its writer), in ces_model_load's words, and
     * read beside and after the schedule */
    if (there && !S_ISREG(sm.st_mode) && !S_ISDIR(sm.st_mode) && strcmp(model_path, "-") != 0) {
        int fd = open(model_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

        /* not on a standard descriptor that was closed: a schedule on "-"
         * would be read from the model's file */
        if (fd >= 0 && fd <= STDERR_FILENO) {
            int high = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1), e = errno;

            close(fd);
            errno = e;
            fd = high;
        }
        if (fd < 0)
            return ces_tool_fail("%s: cannot open: %s", model_path, strerror(errno));
        memset(pend, 0, sizeof(*pend));
        pend->path = model_path;
        pend->fd = fd;
        pend->max = CES_MODEL_FILE_MAX;
        return CES_EXIT_OK;
    }
    if (model_path != NULL && ces_model_load(ctx, model_path, base, out) != CES_OK)
        return ces_tool_fail("%s", ces_ctx_last_error(ctx));
    return CES_EXIT_OK;
}

int ces_tool_machine_read(struct ces_ctx *ctx, struct ces_tool_pending *pend,
                          struct ces_model *m)
{
    struct ces_model base = *m;
    int rc;

    pending_read(pend, NULL);
    rc = pending_error(ctx, pend, pend->path);
    if (rc == CES_OK && pend->len > pend->max)
        rc = ces_ctx_error(ctx, CES_ERR_LIMIT, "%s: larger than %zu bytes, more than it may hold",
                           pend->path, pend->max);
    if (rc == CES_OK)
        rc = ces_model_parse(ctx, pend->text != NULL ? pend->text : "", pend->len, pend->path,
                             &base, m);
    return rc == CES_OK ? CES_EXIT_OK : ces_tool_fail("%s", ces_ctx_last_error(ctx));
}

int ces_tool_value(const char *cmd, const char *opt, const char *v, const char *what)
{
    const char *sep = cmd != NULL ? ": " : "";

    if (cmd == NULL)
        cmd = "";
    if (v == NULL)
        return ces_tool_fail("%s%s%s expects %s", cmd, sep, opt, what);
    if (strncmp(v, "--", 2) == 0)
        return ces_tool_fail("%s%s%s expects %s, not the option '%s'", cmd, sep, opt, what, v);
    return CES_EXIT_OK;
}

char *ces_tool_op_message(const char *cmd, const char *place, const char *why, const char *lead)
{
    static const char tag[] = " (line ";
    const char *at = strstr(why, tag), *p, *sep;
    unsigned long l, c;
    char *end, *msg;
    int n, keep;

    if (place == NULL || at == NULL)
        return NULL;
    p = at + sizeof(tag) - 1;
    if (*p < '0' || *p > '9')
        return NULL;
    l = strtoul(p, &end, 10);
    if (*end != ':' || end[1] < '0' || end[1] > '9')
        return NULL;
    c = strtoul(end + 1, &end, 10);
    if (*end != ')' || l == 0 || l > UINT32_MAX || c > UINT32_MAX)
        return NULL;
    sep = lead != NULL ? ": " : "";
    lead = lead != NULL ? lead : "";
    keep = (int)(at - why); /* the message without " (line L:C)" */
    n = snprintf(NULL, 0, "%s: %s:%lu:%lu: %s%s%.*s%s", cmd, place, l, c, lead, sep, keep, why,
                 end + 1);
    if (n < 0 || (msg = malloc((size_t)n + 1)) == NULL)
        return NULL;
    snprintf(msg, (size_t)n + 1, "%s: %s:%lu:%lu: %s%s%.*s%s", cmd, place, l, c, lead, sep, keep,
             why, end + 1);
    return msg;
}

int ces_tool_fail_at(const char *cmd, const char *place, const char *why)
{
    char *msg = ces_tool_op_message(cmd, place, why, NULL);
    int ec = msg != NULL ? ces_tool_fail("%s", msg) : ces_tool_fail("%s: %s", cmd, why);

    free(msg);
    return ec;
}

int ces_tool_second_schedule(const char *cmd, const char *input)
{
    return ces_tool_fail("%s: '--' names the schedule, but '%s' is one already (one schedule per "
                         "command; see cesync %s --help)",
                         cmd, input, cmd);
}

int ces_tool_unexpected(const char *cmd, const char *arg)
{
    int option = arg[0] == '-' && arg[1] != '\0';

    /* a word past the schedule: most often a second one */
    return ces_tool_fail("%s: %s '%s' (%ssee cesync %s --help)", cmd,
                         option ? "unknown option" : "unexpected argument", arg,
                         option || strcmp(cmd, "gen") == 0 || strcmp(cmd, "devices") == 0
                             ? ""
                             : "one schedule per command; ",
                         cmd);
}

bool ces_tool_sigpipe_ignore(struct sigaction *was)
{
    struct sigaction ign;

    memset(&ign, 0, sizeof(ign));
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    return sigaction(SIGPIPE, &ign, was) == 0;
}

/* A standard output or error left O_NONBLOCK that cannot be opened again
 * (a socket; a pipe or a terminal without /proc; a terminal that would be
 * another): a pipe stands in for it under its number, and a thread gives
 * what the pipe holds to the description itself, waiting with poll(2)
 * where it takes nothing (EAGAIN), up to the command's time bound where it
 * has one (ces_tool_streams_bound), none of it after.  The command's text
 * (its FILEs', its children's) was written into the shared description and
 * failed where that was full; the description's flags stay as they are. */
struct stream_relay {
    int in;        /* the stand-in pipe's reading end */
    int out;       /* the description stood in for, under a number above 2 */
    int fds;       /* the numbers it stands in for: bit 1 << fd */
    bool on;       /* its thread runs */
    int err;       /* a failed write's errno, 0 (the thread's while busy) */
    bool late;     /* the time bound passed with some left (so) */
    uint64_t lost; /* the bytes not given to it (so) */
    bool busy;     /* reading the pipe or giving what it read (relay_lock) */
    bool reading;  /* in read(2), what it takes not counted yet (relay_lock) */
    bool hold;     /* to stop at what its pipe holds after that read (so) */
    uint64_t taken; /* the bytes read from the pipe (relay_lock) */
    uint64_t done;  /* of them, given or lost (relay_lock) */
    uint64_t upto;  /* the bytes it reads at most: all, or relay_stop's */
};

static struct stream_relay relays[2]; /* [0] standard output, [1] error */
static pthread_mutex_t relay_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t relay_idle = PTHREAD_COND_INITIALIZER; /* a relay no longer busy */
static double relay_deadline; /* as ces_now; 0: none (under relay_lock) */
static double relay_seconds;  /* the bound, as the message says it */
static pid_t relay_pid;       /* the process the relays are of (not a child's) */
static char relay_pre[64];    /* "CMD: " as ces_tool_streams_end says it (under relay_lock) */

/* The relay that stands in for fd (1 or 2), NULL where none: on and fds
 * are the main thread's to write (read under relay_lock elsewhere). */
static struct stream_relay *relay_of(int fd)
{
    for (int k = 0; k < 2; k++)
        if (relays[k].on && (relays[k].fds & (1 << fd)) != 0)
            return &relays[k];
    return NULL;
}

/* Waits until fd (a relay's description) takes some: 1, or 0 once the
 * deadline passed, or -1 where poll(2) fails (errno).  The deadline is
 * looked at every 0.1 s: it may be set while it waits. */
static int relay_room(int fd)
{
    for (;;) {
        struct pollfd p = {fd, POLLOUT, 0};
        double deadline, now = ces_now();
        int ms = 100, n;

        pthread_mutex_lock(&relay_lock);
        deadline = relay_deadline;
        pthread_mutex_unlock(&relay_lock);
        if (deadline > 0 && now >= deadline)
            return 0;
        if (deadline > 0 && (deadline - now) * 1000 < ms)
            ms = (int)((deadline - now) * 1000) + 1;
        n = poll(&p, 1, ms);
        if (n > 0)
            return 1;
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

/* Waits until r's pipe is empty and its thread not busy: what the command
 * and its children (waited for) wrote is given, or lost past the bound.
 * Not its end of file: a child's child that outlived it (a Graphviz
 * wrapper's, ended at the bound) keeps the pipe open.  Under relay_lock. */
static void relay_drain(struct stream_relay *r)
{
    int queued = 0;

    while (r->busy || (ioctl(r->in, FIONREAD, &queued) == 0 && queued > 0))
        pthread_cond_wait(&relay_idle, &relay_lock);
}

/* Stops r at what its pipe holds now: it reads that and no more.  Under
 * relay_lock, no read of r's in flight. */
static void relay_stop(struct stream_relay *r)
{
    int queued = 0;

    if (ioctl(r->in, FIONREAD, &queued) != 0 || queued < 0)
        queued = 0;
    r->upto = r->taken + (uint64_t)queued;
    r->hold = false;
}

/* Waits until r (another relay, standard error's) has given what its pipe
 * held now, read (or, a read in flight, once that read is counted), and
 * has it read no more: said after it, a failure's line follows what was
 * written before it and precedes nothing (a program that writes there
 * without pause held it back for ever where the pipe had to be found
 * empty, or r not reading).  Under relay_lock. */
static void relay_hold(struct stream_relay *r)
{
    if (r->reading)
        r->hold = true;
    else
        relay_stop(r);
    while (r->upto == UINT64_MAX || r->done < r->upto)
        pthread_cond_wait(&relay_idle, &relay_lock);
}

/* Writes msg whole to fd (a standard error, or the description a relay
 * stands in for), waiting for room up to the bound: what is left past it,
 * or past a write that fails, is lost. */
static void relay_say(int fd, const char *msg)
{
    size_t len = strlen(msg), off = 0;

    while (off < len) {
        ssize_t w = write(fd, msg + off, len - off);

        if (w > 0)
            off += (size_t)w;
        else if (w < 0 && errno == EINTR)
            continue;
        else if (w == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) || relay_room(fd) <= 0)
            break;
    }
}

/* Where r's pipe cannot be read (or polled) the command ends, exit
 * CES_EXIT_USAGE, as a signal ends it (its outputs' temporary files
 * removed, its Graphviz ended: one that the main thread is making is
 * waited for, none is made after), having said why on standard error's own
 * description (a relay's, waited for up to the bound) or, where none
 * stands in for it, on standard error: what it wrote into the pipe, and
 * may be waiting to write there (a full pipe), would never arrive, and
 * closing the pipe to let that write fail would end it by SIGPIPE
 * unsaid.  What another relay (standard error's own) holds is given
 * first, and nothing it takes after (relay_hold): said before it, the
 * line overtook them, and the end lost them.
 * Returns where the command's text is all given: the pipe empty with no
 * writer left (its end, which the read failed to say) or the relay ended
 * (ces_tool_streams_end gave the command's text and decided its exit
 * status; what the pipe holds, or may still take, is what a program it
 * started wrote after it, said lost).  No lock but
 * relay_lock is taken, and _Exit ends the process flushing nothing: the
 * main thread may hold stdout's or stderr's FILE, waiting for the pipe
 * (ThreadSanitizer's _exit flushed them, waiting for ever). */
static void relay_fail(struct stream_relay *r, int err)
{
    const char *name = r == &relays[0] ? "standard output" : "standard error";
    struct pollfd p = {r->in, POLLIN, 0};
    char why[128], pre[64], held_s[64] = "", msg[640];
    struct stream_relay *e;
    int fd = STDERR_FILENO, held = -1;
    bool ended;

    if (ioctl(r->in, FIONREAD, &held) != 0)
        held = -1;
    if (held == 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLHUP) != 0)
        return;
    pthread_mutex_lock(&relay_lock);
    ended = !r->on;
    r->busy = true; /* (the end waits for it: a failed poll left it idle) */
    memcpy(pre, relay_pre, sizeof(pre));
    e = relay_of(STDERR_FILENO);
    if (e != NULL)
        fd = e->out; /* (never closed: ces_tool_streams_stood_in) */
    if (e != NULL && e != r && !ended)
        relay_hold(e);
    else if (e != NULL && e != r)
        relay_drain(e); /* (the end gives it: nothing is held back) */
    pthread_mutex_unlock(&relay_lock);
    if (strerror_r(err, why, sizeof(why)) != 0)
        snprintf(why, sizeof(why), "error %d", err);
    if (ended) {
        if (held > 0)
            snprintf(held_s, sizeof(held_s), " (%d bytes held)", held);
        snprintf(msg, sizeof(msg), "cesync: %swhat a program it started wrote to %s after it "
                 "ended is lost%s: the pipe that stood in for it could not be read: %s\n", pre,
                 name, held_s, why);
        relay_say(fd, msg);
        return;
    }
    snprintf(msg, sizeof(msg), "cesync: cannot write to %s: the pipe that stood in for it could "
             "not be read: %s\n", name, why);
    relay_say(fd, msg);
    ces_file_unlink_last();
    _Exit(CES_EXIT_USAGE);
}

static void *relay_run(void *arg)
{
    static char bufs[2][65536];
    struct stream_relay *r = arg;
    char *buf = bufs[r - relays];
    int broke = 0;

    for (;;) {
        struct pollfd p = {r->in, POLLIN, 0};
        ssize_t n, w;
        size_t off = 0, want;
        int room;

        if (poll(&p, 1, -1) < 0 && errno != EINTR) {
            broke = errno;
            break;
        }
        /* busy before the read: where the pipe is found empty and the relay
         * not busy (relay_drain), all it took is given; past another's
         * failure, what the pipe held then and no more (relay_hold) */
        pthread_mutex_lock(&relay_lock);
        while (r->taken >= r->upto)
            pthread_cond_wait(&relay_idle, &relay_lock);
        want = r->upto - r->taken < sizeof(bufs[0]) ? (size_t)(r->upto - r->taken)
                                                     : sizeof(bufs[0]);
        r->busy = true;
        r->reading = true;
        pthread_mutex_unlock(&relay_lock);
        n = read(r->in, buf, want);
        pthread_mutex_lock(&relay_lock);
        r->reading = false;
        r->taken += n > 0 ? (uint64_t)n : 0;
        if (r->hold)
            relay_stop(r);
        pthread_cond_broadcast(&relay_idle);
        pthread_mutex_unlock(&relay_lock);
        if (n == 0)
            break; /* (its end: every writing end closed) */
        if (n < 0 && errno != EINTR) {
            broke = errno;
            break;
        }
        if (n < 0)
            n = 0; /* (again) */
        while (r->err == 0 && !r->late && off < (size_t)n) {
            w = write(r->out, buf + off, (size_t)n - off);
            if (w > 0) {
                off += (size_t)w;
            } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                room = relay_room(r->out);
                if (room < 0)
                    r->err = errno;
                r->late = room == 0;
            } else if (w == 0 || errno != EINTR) {
                r->err = w == 0 ? EIO : errno;
            }
        }
        /* (past a failure the pipe is read on: the command never waits) */
        pthread_mutex_lock(&relay_lock);
        r->lost += (uint64_t)n - off;
        r->done += (uint64_t)n;
        r->busy = false;
        pthread_cond_broadcast(&relay_idle);
        pthread_mutex_unlock(&relay_lock);
    }
    if (broke != 0)
        relay_fail(r, broke);
    pthread_mutex_lock(&relay_lock);
    r->busy = false;
    pthread_cond_broadcast(&relay_idle);
    pthread_mutex_unlock(&relay_lock);
    return NULL;
}

/* Whether fd can be full: a socket, a pipe or a terminal (a regular file
 * or /dev/null left O_NONBLOCK takes every write whole). */
static bool relay_needed(int fd)
{
    struct stat sb;

    return fstat(fd, &sb) == 0 && (S_ISSOCK(sb.st_mode) || S_ISFIFO(sb.st_mode) || isatty(fd));
}

/* Stands a relay in for fd, or the one of 1 where 2 is the same file (one
 * relay: what the two say keeps its order). */
static void relay_start(int fd)
{
    struct stream_relay *r = &relays[fd - STDOUT_FILENO];
    struct stat a, b;
    sigset_t all, was;
    pthread_t thread;
    int p[2], made;

    if (fd == STDERR_FILENO && relays[0].on && fstat(relays[0].out, &a) == 0 &&
        fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
        pthread_mutex_lock(&relay_lock); /* (relay_fail reads relays[0].fds) */
        if (dup2(STDOUT_FILENO, fd) >= 0)
            relays[0].fds |= 1 << fd;
        pthread_mutex_unlock(&relay_lock);
        return;
    }
    if (pipe(p) != 0)
        return;
    /* (above 2: where standard input was closed it was the pipe, and the
     * command read its own output) */
    r->in = ces_file_fd_own(p[0]);
    r->out = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    made = -1;
    /* the signals that end the command are the main thread's (its handler
     * removes the outputs' temporary files); SIGPIPE, of the relay's own
     * write to a reader gone, ends it as it ended the command's write, and
     * SIGTTOU, of its write to the terminal from a background job under
     * `stty tostop`, stops it as it stopped the command's (a thread that
     * blocks it is let write) */
    sigfillset(&all);
    sigdelset(&all, SIGPIPE);
    sigdelset(&all, SIGTTOU);
    /* (on and fds set before the thread can read them: relay_fail) */
    pthread_mutex_lock(&relay_lock);
    r->upto = UINT64_MAX;
    if (r->in >= 0 && r->out >= 0 && pthread_sigmask(SIG_BLOCK, &all, &was) == 0) {
        made = pthread_create(&thread, NULL, relay_run, r);
        pthread_sigmask(SIG_SETMASK, &was, NULL);
    }
    if (made == 0) {
        pthread_detach(thread); /* (never joined: relay_drain) */
        r->on = true;
        r->fds = 1 << fd;
        dup2(p[1], fd);
    }
    pthread_mutex_unlock(&relay_lock);
    close(p[1]);
    if (made != 0) {
        if (r->out >= 0)
            close(r->out);
        if (r->in >= 0)
            close(r->in);
        return; /* (left as it was) */
    }
}

static void relay_at_exit(void)
{
    if (getpid() == relay_pid)
        ces_tool_streams_end(NULL, CES_EXIT_OK);
}

void ces_tool_streams_wait(void)
{
    for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++) {
        int flags = fcntl(fd, F_GETFL), mine;

        if (flags < 0 || (flags & O_NONBLOCK) == 0 || (flags & O_ACCMODE) == O_RDONLY)
            continue;
        mine = ces_file_reopen(fd, flags & (O_ACCMODE | O_APPEND));
        /* (a pipe whose reader is gone stays as it is) */
        if (mine < 0 && errno != ENXIO && relay_needed(fd))
            relay_start(fd);
        if (mine < 0)
            continue;
        flags = fcntl(mine, F_GETFL);
        if (flags >= 0 && fcntl(mine, F_SETFL, flags & ~O_NONBLOCK) == 0)
            dup2(mine, fd);
        close(mine);
    }
    if (relays[0].on || relays[1].on) {
        /* (an exit elsewhere than main's return gives the rest too) */
        relay_pid = getpid();
        atexit(relay_at_exit);
    }
}

void ces_tool_streams_bound(double deadline, double seconds)
{
    pthread_mutex_lock(&relay_lock);
    relay_deadline = deadline;
    relay_seconds = seconds;
    pthread_mutex_unlock(&relay_lock);
}

int ces_tool_streams_stood_in(int fd)
{
    struct stream_relay *r = relay_of(fd);

    if (r == NULL)
        return -1;
    fflush(stdout);
    fflush(stderr);
    /* what it holds first, up to the bound (a relay past it loses it) */
    pthread_mutex_lock(&relay_lock);
    relay_drain(r);
    pthread_mutex_unlock(&relay_lock);
    return r->out;
}

bool ces_tool_isatty(int fd)
{
    const struct stream_relay *r = relay_of(fd);

    return isatty(r != NULL ? r->out : fd);
}

int ces_tool_streams_end(const char *cmd, int rc)
{
    struct stream_relay was[2];
    char pre[64];

    snprintf(pre, sizeof(pre), "%s%s", cmd != NULL ? cmd : "", cmd != NULL ? ": " : "");
    fflush(stdout);
    fflush(stderr);
    pthread_mutex_lock(&relay_lock);
    for (int k = 0; k < 2; k++) {
        struct stream_relay *r = &relays[k];

        was[k].on = false;
        if (!r->on)
            continue;
        memcpy(relay_pre, pre, sizeof(pre)); /* (relay_fail's, once ended) */
        /* the description itself under its numbers again, what the pipe
         * holds given (its ends stay open: a child's child may hold it) */
        for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
            if (r->fds & (1 << fd))
                dup2(r->out, fd);
        relay_drain(r);
        was[k] = *r;
        r->on = false;
    }
    pthread_mutex_unlock(&relay_lock);
    for (int k = 0; k < 2; k++) {
        const struct stream_relay *r = &was[k];
        const char *name = k == 0 ? "standard output" : "standard error";

        if (!r->on || rc == CES_EXIT_USAGE)
            continue;
        /* (standard error alone: what was said there is lost unsaid, as
         * where the command wrote there itself) */
        if (r->err != 0 && k == 0) {
            ces_tool_say("%scannot write to %s: %s", pre, name, strerror(r->err));
            rc = CES_EXIT_USAGE;
        } else if (r->err == 0 && r->late) {
            ces_tool_say("%s%s not written whole (--max-seconds %g): the time bound passed "
                         "while it was written, %" PRIu64 " bytes left",
                         pre, name, relay_seconds, r->lost);
            if (rc != CES_EXIT_DEFECT)
                rc = CES_EXIT_INCOMPLETE;
        }
    }
    return rc;
}

/* Where path names a standard output or error that a relay stands in for
 * (-o /dev/stdout into an O_NONBLOCK socket), once what the relay holds
 * is given: the errno of its write that failed (a reader gone, SIGPIPE
 * ignored), else 0.  The text went into the relay's pipe whole, and the
 * description itself said the failure (ces_write_file_by's "cannot write
 * /dev/stdout: Broken pipe"), not "wrote /dev/stdout". */
static int relay_written(const char *path)
{
    struct stat a, b;
    int err = 0;

    if (!relays[0].on && !relays[1].on)
        return 0;
    if (stat(path, &a) != 0)
        return 0;
    fflush(stdout);
    fflush(stderr);
    pthread_mutex_lock(&relay_lock);
    for (int k = 0; k < 2; k++) {
        struct stream_relay *r = &relays[k];

        for (int fd = STDOUT_FILENO; r->on && fd <= STDERR_FILENO; fd++) {
            if ((r->fds & (1 << fd)) == 0 || fstat(fd, &b) != 0 || a.st_dev != b.st_dev ||
                a.st_ino != b.st_ino)
                continue;
            relay_drain(r);
            if (r->err != 0)
                err = r->err;
            break;
        }
    }
    pthread_mutex_unlock(&relay_lock);
    return err;
}

int ces_tool_write_file(const char *cmd, const char *path, const char *text, size_t len)
{
    struct ces_ctx *ctx = NULL;
    struct ces_dot_bounds b;
    struct sigaction was;
    bool own, quiet;
    int ec, rc, err;

    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return ces_tool_fail("out of memory");
    /* a named pipe that no reader opens, or reads from, stops it as it
     * stops a picture (it waited for ever); one of the command's own
     * descriptors (-o /dev/stdout), or its standard output or error under
     * any name (a named pipe the shell opened for it too), is written as
     * standard output is, without it (ces_write_file_by): a pager that
     * reads a screen at a time is waited for */
    ces_tool_dot_bounds(&b, 0, 0);
    own = ces_file_own_stream(path);
    /* a named pipe whose reader goes away early fails the write, said as
     * an output that cannot be written; standard output under another
     * name keeps the signal, as -o - does */
    quiet = !own && ces_tool_sigpipe_ignore(&was);
    rc = ces_write_file_by(ctx, path, text, len, &b);
    if (quiet)
        sigaction(SIGPIPE, &was, NULL);
    if (rc == CES_OK && own && (err = relay_written(path)) != 0)
        rc = ces_ctx_error(ctx, CES_ERR_IO, "cannot write %s: %s", path, strerror(err));
    ec = rc == CES_OK ? CES_EXIT_OK : ces_tool_fail("%s: %s", cmd, ces_ctx_last_error(ctx));
    ces_ctx_destroy(ctx);
    return ec;
}

int ces_tool_out_probe(const char *cmd, const char *path)
{
    struct ces_ctx *ctx = NULL;
    struct ces_out_file of;
    struct stat sb;
    bool exists = stat(path, &sb) == 0;
    int fd, ec = CES_EXIT_OK;

    if (exists && S_ISDIR(sb.st_mode))
        return ces_tool_fail("%s: cannot write %s: %s", cmd, path, strerror(EISDIR));
    /* opening a pipe waits for a reader; one of this process's descriptors
     * is not opened but duplicated, and refused there if it cannot be
     * written (a pipe's reading end passes access(2)) */
    if (exists && !S_ISREG(sb.st_mode) && ces_file_own_descriptor(path) < 0)
        return access(path, W_OK) == 0
                   ? CES_EXIT_OK
                   : ces_tool_fail("%s: cannot write %s: %s", cmd, path, strerror(errno));
    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return ces_tool_fail("out of memory");
    fd = ces_file_create_beside(ctx, path, &of);
    if (fd < 0)
        ec = ces_tool_fail("%s: %s", cmd, ces_ctx_last_error(ctx));
    else {
        close(fd);
        ces_file_replace(ctx, &of, path, CES_ERR_IO); /* removes it, keeps path */
    }
    ces_ctx_destroy(ctx);
    return ec;
}

int ces_tool_parse_size(const char *s, uint64_t *out)
{
    char *end = NULL;
    unsigned long long v;
    uint64_t mul = 1;

    if (s == NULL || *s < '0' || *s > '9')
        return CES_ERR_INVALID;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0)
        return CES_ERR_INVALID;
    switch (*end) {
    case '\0':
        break;
    case 'K':
    case 'k':
        mul = UINT64_C(1) << 10;
        end++;
        break;
    case 'M':
    case 'm':
        mul = UINT64_C(1) << 20;
        end++;
        break;
    case 'G':
    case 'g':
        mul = UINT64_C(1) << 30;
        end++;
        break;
    default:
        return CES_ERR_INVALID;
    }
    if (*end != '\0' || (v != 0 && mul > UINT64_MAX / v))
        return CES_ERR_INVALID;
    *out = (uint64_t)v * mul;
    return CES_OK;
}

int ces_tool_number(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max,
                    const char *note, uint64_t *out)
{
    char what[192];
    uint64_t v;

    snprintf(what, sizeof(what), "a number in %" PRIu64 "..%" PRIu64 "%s%s%s", min, max,
             note != NULL ? " (" : "", note != NULL ? note : "", note != NULL ? ")" : "");
    if (ces_tool_value(cmd, opt, s, what) != CES_EXIT_OK)
        return CES_EXIT_USAGE;
    /* plain digits: the size suffixes made --ranks 1K 1024 ranks */
    if (s[strspn(s, "0123456789")] != '\0' || ces_tool_parse_size(s, &v) != CES_OK || v < min ||
        v > max)
        return ces_tool_fail("%s: %s expects %s, not '%s'", cmd, opt, what, s);
    *out = v;
    return CES_EXIT_OK;
}

int ces_tool_count(const char *cmd, const char *opt, const char *s, uint32_t min, uint32_t max,
                   uint32_t *out)
{
    uint64_t v;

    if (ces_tool_number(cmd, opt, s, min, max, NULL, &v) != CES_EXIT_OK)
        return CES_EXIT_USAGE;
    *out = (uint32_t)v;
    return CES_EXIT_OK;
}

/* A size as the usage texts write it: with the largest suffix that says it
 * exactly (16G, 1K), else in bytes. */
static void size_text(char *buf, size_t size, uint64_t v)
{
    static const char suffix[] = "GMK";

    for (int k = 0; k < 3; k++) {
        uint64_t unit = UINT64_C(1) << (10 * (3 - k));

        if (v > 0 && v % unit == 0) {
            snprintf(buf, size, "%" PRIu64 "%c", v / unit, suffix[k]);
            return;
        }
    }
    snprintf(buf, size, "%" PRIu64, v);
}

int ces_tool_size(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max,
                  const char *note, uint64_t *out)
{
    char what[224], lo[32], hi[32];
    uint64_t v;

    size_text(lo, sizeof(lo), min);
    size_text(hi, sizeof(hi), max);
    snprintf(what, sizeof(what), "a size in %s..%s (suffixes K M G%s%s)", lo, hi,
             note != NULL ? "; " : "", note != NULL ? note : "");
    if (ces_tool_value(cmd, opt, s, what) != CES_EXIT_OK)
        return CES_EXIT_USAGE;
    if (ces_tool_parse_size(s, &v) != CES_OK || v < min || v > max)
        return ces_tool_fail("%s: %s expects %s, not '%s'", cmd, opt, what, s);
    *out = v;
    return CES_EXIT_OK;
}

/* A rank in --pairs at *q, in decimal digits only (strtoul would take
 * blanks and a sign too); *q moves past it.  False if there is none or it
 * does not fit. */
static bool pair_rank(const char **q, uint32_t *out)
{
    char *end;
    unsigned long v;

    if (**q < '0' || **q > '9')
        return false;
    errno = 0;
    v = strtoul(*q, &end, 10);
    if (errno != 0 || v > UINT32_MAX)
        return false;
    *q = end;
    *out = (uint32_t)v;
    return true;
}

static int parse_pairs(const char *cmd, struct ces_coll_params *p, const char *s)
{
    const char *q = s;

    p->npairs = 0;
    while (*q != '\0') {
        uint32_t *pair;

        if (p->npairs == CES_MAX_PAIRS)
            return ces_tool_fail("%s: --pairs: at most %u pairs", cmd, CES_MAX_PAIRS);
        pair = p->pairs[p->npairs];
        if (!pair_rank(&q, &pair[0]) || *q++ != ':' || !pair_rank(&q, &pair[1]) ||
            (*q != '\0' && (*q != ',' || q[1] == '\0')))
            return ces_tool_fail("%s: --pairs expects sender:receiver[,sender:receiver...], "
                                 "not '%s'", cmd, s);
        p->npairs++;
        if (*q == ',')
            q++;
    }
    if (p->npairs == 0)
        return ces_tool_fail("%s: --pairs expects sender:receiver[,sender:receiver...], not '%s'",
                             cmd, s);
    return CES_EXIT_OK;
}

/* The builder options that only some collectives take, as bits of what
 * was given: checked once the collective is known. */
enum { GIVEN_ANY = 1u << 0, GIVEN_ROOT = 1u << 1, GIVEN_PAIRS = 1u << 2, GIVEN_CHUNKS = 1u << 3,
       GIVEN_SLOTS = 1u << 4, GIVEN_BYTES = 1u << 5, GIVEN_SYNC = 1u << 6,
       GIVEN_VARIANT = 1u << 7, GIVEN_WAKE = 1u << 8 };

/* The builder options that take a value, and those that take none. */
static const char *const builder_valued[] = {
    "--ranks", "--bytes", "--iterations", "--sync", "--root",
    "--pairs", "--chunks", "--slots", "--variant", "--wake", NULL};
static const char *const builder_flags[] = {"--graph", "--in-place", "--directed", NULL};

int ces_tool_builder_valued(const char *a)
{
    return ces_tool_listed(builder_valued, a);
}

int ces_tool_builder_flag(const char *a)
{
    return ces_tool_listed(builder_flags, a);
}

/* Takes option o (and its value v, NULL where the command line ends at
 * it) if it is a builder option: 1 taken, 0 not one of ours, -1 error
 * (printed, naming command `cmd`).  *given gets its bits. */
static int builder_opt(const char *cmd, struct ces_coll_params *p, const char *o, const char *v,
                       unsigned *given)
{
    unsigned bit = 0;
    int rc = CES_EXIT_OK;

    if (ces_tool_listed(builder_flags, o)) {
        if (strcmp(o, "--graph") == 0)
            p->phase = CES_PHASE_GRAPH;
        else
            p->flags |= strcmp(o, "--in-place") == 0 ? CES_COLL_F_INPLACE : CES_COLL_F_DIRECTED;
        *given |= GIVEN_ANY;
        return 1;
    }
    if (!ces_tool_listed(builder_valued, o))
        return 0;
    /* each says what it expects where the value is missing or another
     * option (a number with its range) */
    if (strcmp(o, "--ranks") == 0)
        rc = ces_tool_count(cmd, o, v, 1, CES_MAX_RANKS, &p->ranks);
    else if (strcmp(o, "--bytes") == 0) {
        rc = ces_tool_size(cmd, o, v, 1, CES_MAX_BYTES, NULL, &p->bytes);
        bit = GIVEN_BYTES;
    } else if (strcmp(o, "--iterations") == 0)
        rc = ces_tool_count(cmd, o, v, 1, 1000000, &p->iterations);
    else if (strcmp(o, "--sync") == 0) {
        int proto = -1;

        rc = ces_tool_value(cmd, o, v, "nccl, mono, credit or pull");
        if (rc == CES_EXIT_OK && (proto = ces_proto_from_name(v)) < 0)
            rc = ces_tool_fail("%s: --sync expects nccl, mono, credit or pull, not '%s'", cmd, v);
        else if (rc == CES_EXIT_OK)
            p->proto = (uint32_t)proto;
        bit = GIVEN_SYNC;
    } else if (strcmp(o, "--root") == 0) {
        rc = ces_tool_count(cmd, o, v, 0, CES_MAX_RANKS - 1, &p->root);
        bit = GIVEN_ROOT;
    } else if (strcmp(o, "--pairs") == 0) {
        rc = ces_tool_value(cmd, o, v, "sender:receiver[,sender:receiver...]");
        if (rc == CES_EXIT_OK)
            rc = parse_pairs(cmd, p, v);
        bit = GIVEN_PAIRS;
    } else if (strcmp(o, "--variant") == 0) {
        if (ces_tool_value(cmd, o, v, "plain, overlap or early") != CES_EXIT_OK)
            return -1;
        p->flags &= CES_COLL_F_INPLACE | CES_COLL_F_DIRECTED;
        if (strcmp(v, "overlap") == 0)
            p->flags |= CES_COLL_F_OVERLAP;
        else if (strcmp(v, "early") == 0)
            p->flags |= CES_COLL_F_EARLY;
        else if (strcmp(v, "plain") != 0)
            rc = ces_tool_fail("%s: --variant expects plain, overlap or early, not '%s'", cmd, v);
        bit = GIVEN_VARIANT;
    } else if (strcmp(o, "--wake") == 0) {
        rc = ces_tool_count(cmd, o, v, 0, CES_COLL_MAX_WAKE, &p->wake);
        bit = GIVEN_WAKE;
    } else if (strcmp(o, "--chunks") == 0) {
        rc = ces_tool_count(cmd, o, v, 1, CES_COLL_MAX_CHUNKS, &p->chunks);
        bit = GIVEN_CHUNKS;
    } else {
        rc = ces_tool_count(cmd, o, v, 1, CES_COLL_MAX_CHUNKS, &p->slots);
        bit = GIVEN_SLOTS;
    }
    if (rc != CES_EXIT_OK)
        return -1;
    *given |= GIVEN_ANY | bit;
    return 1;
}

int ces_tool_builder_value(const char *cmd, const char *opt, const char *v)
{
    struct ces_coll_params p;
    unsigned given = 0;

    ces_coll_params_init(&p, CES_COLL_ALLTOALL);
    return builder_opt(cmd, &p, opt, v, &given) < 0 ? CES_EXIT_USAGE : CES_EXIT_OK;
}

/* An option the collective does not take would be dropped without a word:
 * refused instead; so is --wake on gather out of place, where no rank only
 * waits and the builder runs no chain (struct ces_coll_params.wake).
 * CES_EXIT_OK or CES_EXIT_USAGE (printed, naming command `cmd`). */
static int options_apply(const char *cmd, int coll, uint32_t flags, unsigned given)
{
    const char *sr = (given & GIVEN_PAIRS)    ? "--pairs"
                     : (given & GIVEN_CHUNKS) ? "--chunks"
                     : (given & GIVEN_SLOTS)  ? "--slots"
                                              : NULL;
    const char *copier = (given & GIVEN_VARIANT) ? "--variant"
                         : (given & GIVEN_WAKE)  ? "--wake"
                                                 : NULL;

    if ((given & GIVEN_ROOT) && coll != CES_COLL_GATHER && coll != CES_COLL_SCATTER &&
        coll != CES_COLL_BROADCAST)
        return ces_tool_fail("%s: --root applies to gather, scatter and broadcast, not to %s", cmd,
                             ces_coll_name(coll));
    if (sr != NULL && coll != CES_COLL_SENDRECV)
        return ces_tool_fail("%s: %s applies to sendrecv, not to %s", cmd, sr,
                             ces_coll_name(coll));
    if (copier != NULL && (coll == CES_COLL_SENDRECV || coll == CES_COLL_BARRIER))
        return ces_tool_fail("%s: %s applies to alltoall, allgather, gather, scatter and "
                             "broadcast, not to %s", cmd, copier, ces_coll_name(coll));
    if ((given & GIVEN_WAKE) && coll == CES_COLL_GATHER && (flags & CES_COLL_F_INPLACE) == 0)
        return ces_tool_fail("%s: --wake applies to gather in place only (--in-place): out of "
                             "place every rank copies, none only waits", cmd);
    if ((given & GIVEN_BYTES) && coll == CES_COLL_BARRIER)
        return ces_tool_fail("%s: --bytes applies to the collectives that move data, not to "
                             "barrier", cmd);
    return CES_EXIT_OK;
}

/* A schedule argument that is no collective but a bare word (no '/' or '.')
 * naming no file either is most likely a misspelt collective, which "cannot
 * open: No such file" would hide: prints so (naming command `cmd`), with the
 * collectives, and returns CES_EXIT_USAGE.  CES_EXIT_OK for anything else (a
 * path). */
static int unknown_name(const char *cmd, const char *input)
{
    char list[256];
    size_t len = 0;
    struct stat sb;

    if (strcmp(input, "-") == 0 || strpbrk(input, "/.") != NULL || stat(input, &sb) == 0 ||
        errno != ENOENT)
        return CES_EXIT_OK;
    list[0] = '\0';
    for (int c = 0; c < CES_COLL_COUNT && len < sizeof(list); c++)
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", c > 0 ? ", " : "",
                                ces_coll_name(c));
    return ces_tool_fail("%s: '%s' is neither a file nor a built-in collective (%s)", cmd, input,
                         list);
}

/* Whether standard input is a pipe or a regular file, which a user who
 * names no schedule most likely meant to check (a terminal or /dev/null is
 * neither). */
static bool stdin_has_input(void)
{
    struct stat sb;

    return fstat(STDIN_FILENO, &sb) == 0 && (S_ISFIFO(sb.st_mode) || S_ISREG(sb.st_mode));
}

/* The bytes of a collective built without --bytes: 1024, rounded up where
 * the collective splits them (alltoall among the ranks, sendrecv into its
 * chunks) to 8-byte pieces. */
static uint64_t default_bytes(const struct ces_coll_params *p)
{
    uint64_t unit = p->coll == CES_COLL_ALLTOALL   ? 8u * p->ranks
                    : p->coll == CES_COLL_SENDRECV ? 8u * p->chunks
                                                   : 1u;

    return (p->bytes + unit - 1) / unit * unit;
}

/* The index in argv of the schedule argument: the first that is no option
 * ("-", standard input, is one) and no option's value, or the one after
 * "--"; -1 if none. */
static int input_index(int argc, char **argv, const char *const *valued)
{
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) /* the next is the schedule, whatever its name */
            return i + 1 < argc ? i + 1 : -1;
        if (ces_tool_listed(builder_valued, argv[i]) || ces_tool_listed(valued, argv[i]))
            i++;
        else if (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)
            return i;
    }
    return -1;
}

const char *ces_tool_input(int argc, char **argv, const char *const *valued)
{
    int in = input_index(argc, argv, valued);

    return in >= 0 ? argv[in] : NULL;
}

const char *ces_tool_input_read(int argc, char **argv, const char *const *valued)
{
    const char *in = ces_tool_input(argc, argv, valued);

    return in != NULL && ces_coll_from_name(in) < 0 ? in : NULL;
}

const char *ces_tool_input_file(int argc, char **argv, const char *const *valued)
{
    const char *in = ces_tool_input_read(argc, argv, valued);

    return in != NULL && strcmp(in, "-") != 0 ? in : NULL;
}

const char *ces_tool_input_place(int argc, char **argv, const char *const *valued)
{
    const char *in = ces_tool_input_read(argc, argv, valued);

    return in != NULL && strcmp(in, "-") == 0 ? "<stdin>" : in;
}

/* The directory of path into buf ("." without a slash, "/" for a slash
 * first only), and its last component; NULL if buf is too short. */
static const char *path_dir(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash == NULL ? 0 : slash == path ? 1 : (size_t)(slash - path);

    if (slash == NULL) {
        snprintf(buf, size, ".");
        return path;
    }
    if (n >= size)
        return NULL;
    memcpy(buf, path, n);
    buf[n] = '\0';
    return slash + 1;
}

int ces_tool_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    char ra[4096], rb[4096], da[4096], db[4096];
    const char *na, *nb;
    int ha, hb;

    if (strcmp(a, b) == 0)
        return 1;
    ha = stat(a, &sa) == 0;
    hb = stat(b, &sb) == 0;
    if (ha || hb)
        return ha && hb && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    /* two outputs not written yet: one name in one directory (bench --csv
     * ./p.dot --plot p.svg wrote its CSV where the plot's source then went,
     * and removed it), after the links that the writer follows (so did
     * --csv l, a link to the p.dot not written yet) */
    if (!ces_file_link_end(a, ra, sizeof(ra)) || !ces_file_link_end(b, rb, sizeof(rb)))
        return 0;
    na = path_dir(ra, da, sizeof(da));
    nb = path_dir(rb, db, sizeof(db));
    return na != NULL && nb != NULL && strcmp(na, nb) == 0 && stat(da, &sa) == 0 &&
           stat(db, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int ces_tool_out_not_in(const char *cmd, const char *opt, const char *out, const char *in)
{
    struct stat so, si;

    /* standard input read from a file: that file is the input */
    if (in != NULL && strcmp(in, "-") == 0)
        return stat(out, &so) != 0 || fstat(STDIN_FILENO, &si) != 0 || !S_ISREG(si.st_mode) ||
                       so.st_dev != si.st_dev || so.st_ino != si.st_ino
                   ? CES_EXIT_OK
                   : ces_tool_fail("%s: %s %s is the file standard input reads (name another "
                                   "output file)", cmd, opt, out);
    if (in == NULL || !ces_tool_same_file(out, in))
        return CES_EXIT_OK;
    if (strcmp(out, in) == 0)
        return ces_tool_fail("%s: %s %s is the input file (name another output file)", cmd, opt,
                             out);
    return ces_tool_fail("%s: %s %s is the input file %s (name another output file)", cmd, opt,
                         out, in);
}

int ces_tool_text_out(const char *cmd, const char **out, const char *in)
{
    if (*out != NULL && strcmp(*out, "-") == 0)
        *out = NULL;
    return *out != NULL ? ces_tool_out_not_in(cmd, "-o", *out, in) : CES_EXIT_OK;
}

/* The struct ces_coll_params fields that a builder option of the same
 * name sets. */
static const char *const param_words[] = {"ranks", "bytes", "iterations", "root",
                                          "chunks", "slots", "wake", NULL};

/* The length of the parameter word at msg + at, or 0 if none is there: a
 * whole word of param_words that the error names as the parameter (before
 * " must", " (" or " x "), not as a count ("4 slots x", "2^48 bytes"). */
static size_t param_word(const char *msg, size_t at)
{
    static const char *const after[] = {" must", " (", " x ", NULL};
    const char *s = msg + at;
    unsigned char prev = at > 0 ? (unsigned char)msg[at - 1] : ' ';

    if (isalnum(prev) || prev == '_' || prev == '-' ||
        (at >= 2 && prev == ' ' && isdigit((unsigned char)msg[at - 2])))
        return 0;
    for (const char *const *w = param_words; *w != NULL; w++) {
        size_t n = strlen(*w);

        if (strncmp(s, *w, n) != 0)
            continue;
        for (const char *const *a = after; *a != NULL; a++)
            if (strncmp(s + n, *a, strlen(*a)) == 0)
                return n;
    }
    return 0;
}

/* A builder's error as the command line says it: the library names a
 * protocol as a C caller chooses it (CES_PROTO_CREDIT), a command line
 * chooses it with --sync credit; it names a parameter by its field
 * (bytes), a command line sets it with the option of that name (--bytes). */
static void print_coll_error(const char *cmd, const char *msg)
{
    static const char prefix[] = "CES_PROTO_";
    char out[CES_ERRMSG_MAX], opts[CES_ERRMSG_MAX + 64], name[16];
    const char *at;
    size_t len = 0;

    /* "--sync x" is shorter than "CES_PROTO_X": the text fits */
    while ((at = strstr(msg, prefix)) != NULL) {
        const char *s = at + sizeof(prefix) - 1;
        size_t n = 0;

        while (n < sizeof(name) - 1 && s[n] >= 'A' && s[n] <= 'Z') {
            name[n] = (char)(s[n] - 'A' + 'a');
            n++;
        }
        name[n] = '\0';
        if (ces_proto_from_name(name) >= 0)
            len += (size_t)snprintf(out + len, sizeof(out) - len, "%.*s--sync %s",
                                    (int)(at - msg), msg, name);
        else /* no protocol's name: kept as it is */
            len += (size_t)snprintf(out + len, sizeof(out) - len, "%.*s", (int)(s + n - msg),
                                    msg);
        msg = s + n;
    }
    snprintf(out + len, sizeof(out) - len, "%s", msg);
    len = 0;
    for (size_t i = 0; out[i] != '\0' && len < sizeof(opts) - 1;) {
        size_t n = param_word(out, i);

        if (n > 0) {
            len += (size_t)snprintf(opts + len, sizeof(opts) - len, "--%.*s", (int)n, out + i);
            i += n;
        } else
            opts[len++] = out[i++];
    }
    opts[len < sizeof(opts) ? len : sizeof(opts) - 1] = '\0';
    ces_tool_say("%s: %s", cmd, opts);
}

int ces_tool_load(const char *cmd, struct ces_ctx *ctx, int argc, char **argv,
                  const char *const *valued, const char *const *flags, ces_tool_opt_fn *opt,
                  void *ud, struct ces_graph **out, struct ces_prog **prog)
{
    return ces_tool_load_watched(cmd, ctx, argc, argv, valued, flags, opt, ud, NULL, out, prog);
}

/* Whether the schedule `input` ("-": standard input) is neither a regular
 * file nor a directory: its reading may wait for a writer. */
static bool input_waits(const char *input)
{
    struct stat sb;
    int r = strcmp(input, "-") == 0 ? fstat(STDIN_FILENO, &sb) : stat(input, &sb);

    return r == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode);
}

/* ces_prog_parse_file of `input`, which input_waits, in its words, while
 * the pending model file `beside` is taken as it comes (pending_read). */
static int parse_beside(struct ces_ctx *ctx, const char *input, struct ces_tool_pending *beside,
                        struct ces_prog **out)
{
    bool is_stdin = strcmp(input, "-") == 0;
    const char *name = is_stdin ? "<stdin>" : input;
    struct ces_tool_pending s;
    int rc;

    memset(&s, 0, sizeof(s));
    s.max = CES_SOURCE_MAX; /* one byte past it: ces_prog_parse says it */
    s.fd = is_stdin ? STDIN_FILENO : open(input, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (s.fd < 0)
        return ces_ctx_error(ctx, CES_ERR_IO, "%s: cannot open: %s", input, strerror(errno));
    s.path = is_stdin ? NULL : input; /* standard input is not closed */
    pending_read(&s, beside);
    rc = pending_error(ctx, &s, name);
    if (rc == CES_OK)
        rc = ces_prog_parse(ctx, s.text != NULL ? s.text : "", s.len, name, out);
    ces_tool_pending_end(&s);
    return rc;
}

/* ces_tool_load_watched, the schedule read beside the pending model file
 * `beside` (NULL: none) as ces_tool_load_beside says. */
static int load(const char *cmd, struct ces_ctx *ctx, int argc, char **argv,
                const char *const *valued, const char *const *flags, ces_tool_opt_fn *opt,
                void *ud, int (*watch)(void *ud, const struct ces_expand_done *done),
                struct ces_tool_pending *beside, struct ces_graph **out, struct ces_prog **prog)
{
    struct ces_coll_params params;
    int in = input_index(argc, argv, valued);
    const char *input = in >= 0 ? argv[in] : NULL;
    unsigned given = 0;
    int coll, rc;
    struct ces_prog *pg = NULL;

    *out = NULL;
    if (prog != NULL)
        *prog = NULL;
    ces_coll_params_init(&params, CES_COLL_ALLTOALL);
    params.ranks = 4;
    params.slots = 0; /* not given: min(2, chunks) below */
    /* each argument judged in its place, before the input is read: the
     * first wrong one on the line is said, whoever's option it is (check
     * --max-states x --bogus said --bogus), and a misspelt option's value
     * is not taken for the input (check --max-state 100 alltoall) */
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int t;

        if (i == in || (strcmp(argv[i], "--") == 0 && (i + 1 == in || i + 1 == argc)))
            continue;
        t = builder_opt(cmd, &params, argv[i], v, &given);
        if (t < 0)
            return CES_EXIT_USAGE;
        if (t > 0) {
            i += ces_tool_listed(builder_valued, argv[i]);
            continue;
        }
        if (strcmp(argv[i], "--") == 0) /* a second schedule: no unknown option */
            return ces_tool_second_schedule(cmd, input);
        if (ces_tool_listed(valued, argv[i])) {
            /* the option's value, which may look like a schedule (--dot
             * x.svg), or none where the line ends, or another option: the
             * option says what it expects (a number its range) */
            if (opt(ud, argv[i], v) != CES_EXIT_OK)
                return CES_EXIT_USAGE;
            i += v != NULL;
        } else if (ces_tool_listed(flags, argv[i])) {
            if (opt(ud, argv[i], NULL) != CES_EXIT_OK)
                return CES_EXIT_USAGE;
        } else {
            return ces_tool_unexpected(cmd, argv[i]);
        }
    }
    /* the options together, before the input is read: a long schedule's
     * expansion takes seconds, a bad combination none */
    if (opt != NULL && opt(ud, NULL, NULL) != CES_EXIT_OK)
        return CES_EXIT_USAGE;
    if (input == NULL && stdin_has_input())
        return ces_tool_fail("%s: no schedule named, and standard input is a pipe or a file: "
                             "name - to read it, or alltoall for the built-in default", cmd);
    coll = input != NULL ? ces_coll_from_name(input) : CES_COLL_ALLTOALL;
    if (coll < 0) {
        if (unknown_name(cmd, input) != CES_EXIT_OK)
            return CES_EXIT_USAGE;
        /* read first: a file that cannot be read is said as such, not
         * blamed on the builder options */
        rc = beside != NULL && beside->path != NULL && input_waits(input)
                 ? parse_beside(ctx, input, beside, &pg)
                 : ces_prog_parse_file(ctx, input, &pg);
        if (rc == CES_OK && given != 0) {
            ces_prog_destroy(pg);
            return ces_tool_fail("%s: builder options (--ranks, --bytes, ...) apply to a "
                                 "collective, not to the file '%s'", cmd, input);
        }
        if (rc == CES_OK)
            rc = ces_prog_expand_watched(ctx, pg, watch, ud, out);
    } else {
        struct stat sb;

        /* a file of the collective's name is not read, but said */
        if (input != NULL && stat(input, &sb) == 0)
            ces_tool_say("%s: '%s' is the built-in collective; the file of that name "
                         "is not read (name it ./%s to read it)", cmd, input, input);
        /* the defaults of ces_coll_params_init are the same for every
         * collective, and the options never set a field to 0 */
        if (options_apply(cmd, coll, params.flags, given) != CES_EXIT_OK)
            return CES_EXIT_USAGE;
        params.coll = (uint32_t)coll;
        if (params.slots == 0) /* --chunks 1 alone must not ask for 2 slots */
            params.slots = params.chunks < 2 ? params.chunks : 2;
        if (!(given & GIVEN_SYNC) && params.phase == CES_PHASE_GRAPH)
            params.proto = CES_PROTO_CREDIT; /* mono is eager only */
        if (!(given & GIVEN_BYTES))
            params.bytes = default_bytes(&params);
        rc = ces_coll_program(ctx, &params, &pg);
        if (rc == CES_OK)
            rc = ces_prog_expand_watched(ctx, pg, watch, ud, out);
    }
    if (rc == CES_ERR_TIMEOUT) { /* the watcher's bound: its caller says it */
        ces_prog_destroy(pg);
        return CES_EXIT_INCOMPLETE;
    }
    if (rc != CES_OK) {
        ces_prog_destroy(pg);
        /* A file's error begins with the file (FILE: cannot open,
         * FILE:LINE:COL: ...) and is printed as the commands print the other
         * files they read (--model): without the command.  A
         * collective's begins with the collective and gets the command
         * before it, as the builder options' errors do. */
        if (coll < 0)
            ces_tool_say("%s", ces_ctx_last_error(ctx));
        else
            print_coll_error(cmd, ces_ctx_last_error(ctx));
        return CES_EXIT_USAGE;
    }
    if (prog != NULL)
        *prog = pg;
    else
        ces_prog_destroy(pg);
    return CES_EXIT_OK;
}

int ces_tool_load_watched(const char *cmd, struct ces_ctx *ctx, int argc, char **argv,
                          const char *const *valued, const char *const *flags,
                          ces_tool_opt_fn *opt, void *ud,
                          int (*watch)(void *ud, const struct ces_expand_done *done),
                          struct ces_graph **out, struct ces_prog **prog)
{
    return load(cmd, ctx, argc, argv, valued, flags, opt, ud, watch, NULL, out, prog);
}

int ces_tool_load_beside(const char *cmd, struct ces_ctx *ctx, int argc, char **argv,
                         const char *const *valued, const char *const *flags,
                         ces_tool_opt_fn *opt, void *ud, struct ces_tool_pending *beside,
                         struct ces_graph **out)
{
    return load(cmd, ctx, argc, argv, valued, flags, opt, ud, NULL, beside, out, NULL);
}
