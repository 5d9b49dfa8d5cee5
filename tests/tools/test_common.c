/*
 * tests/tools/test_common.c - the shared parts of the cesync command: sizes
 * with suffixes, the builder options and schedule names of ces_tool_load,
 * and output files replaced only when complete (ces_tool_write_file, and the
 * -o of print, promela and dot through the built command).
 */
#include "ces_test.h"
#include "internal.h" /* ces_write_file, ces_file_own_descriptor */
#include "tool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_parse_size(void **state)
{
    uint64_t v = 0;

    (void)state;
    assert_int_equal(ces_tool_parse_size("4096", &v), CES_OK);
    assert_int_equal(v, 4096);
    assert_int_equal(ces_tool_parse_size("64K", &v), CES_OK);
    assert_int_equal(v, 65536);
    assert_int_equal(ces_tool_parse_size("1M", &v), CES_OK);
    assert_int_equal(v, 1048576);
    assert_int_equal(ces_tool_parse_size("1G", &v), CES_OK);
    assert_int_equal(v, 1073741824);
    /* the suffixes in lower case too */
    assert_int_equal(ces_tool_parse_size("2k", &v), CES_OK);
    assert_int_equal(v, 2048);
    assert_int_equal(ces_tool_parse_size("2m", &v), CES_OK);
    assert_int_equal(v, 2097152);
    assert_int_equal(ces_tool_parse_size("2g", &v), CES_OK);
    assert_int_equal(v, 2147483648u);
    assert_int_equal(ces_tool_parse_size("1T", &v), CES_ERR_INVALID);
    assert_int_equal(ces_tool_parse_size("-1", &v), CES_ERR_INVALID);
    assert_int_equal(ces_tool_parse_size("12x", &v), CES_ERR_INVALID);
    assert_int_equal(ces_tool_parse_size("", &v), CES_ERR_INVALID);
    assert_int_equal(ces_tool_parse_size("99999999999999999999", &v), CES_ERR_INVALID);
    assert_int_equal(ces_tool_parse_size("17179869184G", &v), CES_ERR_INVALID);
}

static void test_wants_help(void **state)
{
    char a0[] = "alltoall", a1[] = "--ranks", a2[] = "2", a3[] = "-h", a4[] = "--help";
    char *argv[] = {a0, a1, a2, a3, a4};

    (void)state;
    assert_int_equal(ces_tool_wants_help(3, argv), 0);
    assert_int_equal(ces_tool_wants_help(4, argv), 1);
    assert_int_equal(ces_tool_wants_help(1, argv + 4), 1);
    assert_int_equal(ces_tool_wants_help(0, argv + 4), 0);
    {
        /* after "--" the next argument is the schedule, whatever its name */
        char d0[] = "--", d1[] = "--help", d2[] = "-h";
        char *dashed[] = {d0, d1, d0, d2, d2};

        assert_int_equal(ces_tool_wants_help(2, dashed), 0);
        assert_int_equal(ces_tool_wants_help(4, dashed), 0);
        assert_int_equal(ces_tool_wants_help(5, dashed), 1);
    }
}

/* The options of a subcommand that take a value, as check's --dot, and
 * one that takes none, as its --json. */
static const char *const dot_valued[] = {"--dot", NULL};
static const char *const json_flags[] = {"--json", NULL};

/* The subcommand's options ces_tool_load gave a ces_tool_opt_fn, each
 * followed by its value (a flag's NULL), in their order, then the call
 * with none (the options together) as one NULL, which `refuse` refuses. */
struct seen {
    const char *arg[16];
    int n;
    int refuse;
};

static int seen_opt(void *ud, const char *opt, const char *v)
{
    struct seen *s = ud;

    s->arg[s->n++] = opt;
    if (opt == NULL)
        return s->refuse ? ces_tool_fail("check: the options together refused") : CES_EXIT_OK;
    s->arg[s->n++] = v;
    return CES_EXIT_OK;
}

/* Builder options are taken wherever they are; the subcommand's own are
 * given to its ces_tool_opt_fn in order, with their values. */
static void test_load_collective(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    struct ces_prog *p = NULL;
    char a0[] = "alltoall", a1[] = "--dot", a2[] = "x.svg", a3[] = "--ranks", a4[] = "3",
         a5[] = "--bytes", a6[] = "3K", a7[] = "--json", a8[] = "--sync", a9[] = "nccl";
    char *argv[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
    struct seen seen = {{NULL}, 0, 0};

    (void)state;
    assert_int_equal(ces_tool_load("check", ctx, 10, argv, dot_valued, json_flags, seen_opt,
                                   &seen, &g, &p),
                     CES_EXIT_OK);
    assert_int_equal(seen.n, 5);
    assert_string_equal(seen.arg[0], "--dot");
    assert_string_equal(seen.arg[1], "x.svg");
    assert_string_equal(seen.arg[2], "--json");
    assert_null(seen.arg[3]);
    assert_null(seen.arg[4]); /* then the options together, once */
    assert_int_equal(ces_graph_ranks(g), 3);
    assert_int_equal(ces_graph_buffer(g, (uint32_t)ces_graph_find_buffer(g, "send")).size, 3072);
    assert_non_null(p);
    ces_prog_destroy(p);
    ces_graph_destroy(g);
    {
        char b0[] = "allgather", b1[] = "--variant", b2[] = "overlap";
        char *bargv[] = {b0, b1, b2};

        assert_int_equal(ces_tool_load("check", ctx, 3, bargv, NULL, NULL, NULL, NULL, &g, NULL),
                         CES_EXIT_OK);
        assert_int_equal(ces_graph_streams(g), 2);
    }
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

static void test_load_errors(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    char a0[] = "alltoall", a1[] = "--ranks", a2[] = "0";
    char *argv[] = {a0, a1, a2};
    char b0[] = "alltoall", b1[] = "--sync", b2[] = "fast";
    char *bargv[] = {b0, b1, b2};
    char c0[] = "alltoall", c1[] = "--bytes";
    char *cargv[] = {c0, c1};
    char v0[] = "alltoall", v1[] = "--variant", v2[] = "fastest";
    char *vargv[] = {v0, v1, v2};
    char d0[] = CES_FIXTURES "/no-such-file.ces";
    char *dargv[] = {d0};
    struct seen seen = {{NULL}, 0, 0};

    (void)state;
    assert_int_equal(ces_tool_load("check", ctx, 3, argv, NULL, NULL, NULL, NULL, &g, NULL),
                     CES_EXIT_USAGE);
    assert_null(g);
    assert_int_equal(ces_tool_load("check", ctx, 3, bargv, NULL, NULL, NULL, NULL, &g, NULL),
                     CES_EXIT_USAGE);
    assert_int_equal(ces_tool_load("check", ctx, 2, cargv, NULL, NULL, NULL, NULL, &g, NULL),
                     CES_EXIT_USAGE);
    assert_int_equal(ces_tool_load("check", ctx, 3, vargv, NULL, NULL, NULL, NULL, &g, NULL),
                     CES_EXIT_USAGE);
    {
        char p0[] = "sendrecv", p1[] = "--pairs", p2[] = "0:1,";
        char *pargv[] = {p0, p1, p2};

        assert_int_equal(ces_tool_load("check", ctx, 3, pargv, NULL, NULL, NULL, NULL, &g, NULL),
                         CES_EXIT_USAGE);
        assert_null(g);
    }
    assert_int_equal(ces_tool_load("check", ctx, 1, dargv, NULL, NULL, NULL, NULL, &g, NULL),
                     CES_EXIT_USAGE);
    assert_null(g);
    {
        /* an option none of the lists has is refused before the input is
         * read: its value was taken for the schedule */
        char u0[] = "--max-state", u1[] = "100", u2[] = "barrier";
        char *uargv[] = {u0, u1, u2};
        char j0[] = "--json", j1[] = "barrier";
        char *jargv[] = {j0, j1};

        assert_int_equal(ces_tool_load("check", ctx, 3, uargv, dot_valued, json_flags, seen_opt,
                                       &seen, &g, NULL),
                         CES_EXIT_USAGE);
        assert_null(g);
        assert_int_equal(ces_tool_load("check", ctx, 2, jargv, dot_valued, NULL, seen_opt, &seen,
                                       &g, NULL),
                         CES_EXIT_USAGE);
        assert_null(g);
        seen.n = 0;
        assert_int_equal(ces_tool_load("check", ctx, 2, jargv, dot_valued, json_flags, seen_opt,
                                       &seen, &g, NULL),
                         CES_EXIT_OK);
        assert_int_equal(seen.n, 3);
        assert_string_equal(seen.arg[0], "--json");
        assert_null(seen.arg[2]);
        ces_graph_destroy(g);
        g = NULL;
        /* the options together refused: no schedule */
        seen.n = 0;
        seen.refuse = 1;
        assert_int_equal(ces_tool_load("check", ctx, 2, jargv, dot_valued, json_flags, seen_opt,
                                       &seen, &g, NULL),
                         CES_EXIT_USAGE);
        assert_int_equal(seen.n, 3);
        assert_null(g);
    }
    ces_test_ctx_end(ctx, &st);
}

/* A builder option that the collective does not take is refused, not
 * silently dropped (check alltoall --root 2 checked the plain alltoall). */
static void test_options_must_apply(void **state)
{
    (void)state;
    ces_test_tool_says("validate alltoall --root 1", 2,
                       "cesync: validate: --root applies to gather, scatter and broadcast, not to "
                       "alltoall\n");
    ces_test_tool_says("check barrier --ranks 2 --root 1", 2,
                       "cesync: check: --root applies to gather, scatter and broadcast, not to "
                       "barrier\n");
    ces_test_tool_says("print allgather --pairs 0:1", 2,
                       "cesync: print: --pairs applies to sendrecv, not to allgather\n");
    ces_test_tool_says("dot gather --chunks 2", 2,
                       "cesync: dot: --chunks applies to sendrecv, not to gather\n");
    ces_test_tool_says("promela broadcast --slots 1", 2,
                       "cesync: promela: --slots applies to sendrecv, not to broadcast\n");
    /* the barrier moves no data: --bytes was taken and dropped */
    ces_test_tool_says("validate barrier --bytes 4096", 2,
                       "cesync: validate: --bytes applies to the collectives that move data, not "
                       "to barrier\n");
    ces_test_tool_says("validate sendrecv --root 1", 2,
                       "cesync: validate: --root applies to gather, scatter and broadcast, not to "
                       "sendrecv\n");
    /* --chunks and --slots: the builder's range (1..1048576 was taken here,
     * then refused by the builder as past 1..1024) */
    ces_test_tool_says("validate sendrecv --chunks 2000", 2,
                       "cesync: validate: --chunks expects a number in 1..1024, not '2000'\n");
    ces_test_tool_says("validate sendrecv --slots 1025", 2,
                       "cesync: validate: --slots expects a number in 1..1024, not '1025'\n");
    /* --pairs takes plain decimal numbers, like every other number option */
    ces_test_tool_says("validate sendrecv --pairs 0:+1", 2,
                       "cesync: validate: --pairs expects sender:receiver[,sender:receiver...], "
                       "not '0:+1'\n");
    ces_test_tool_says("validate sendrecv --pairs -0:1", 2,
                       "cesync: validate: --pairs expects sender:receiver[,sender:receiver...], "
                       "not '-0:1'\n");
    ces_test_tool_says("validate sendrecv --pairs '0:1, 1:2'", 2,
                       "cesync: validate: --pairs expects sender:receiver[,sender:receiver...], "
                       "not '0:1, 1:2'\n");
    ces_test_tool_says("validate scatter --root 1 --ranks 2", 0,
                       "valid: 2 ranks, 1 stream per rank, 2 buffers, 2 signal arrays, 1 "
                       "iteration, 15 ops\n");
    /* --in-place: the builder says what cannot run in place; --variant
     * keeps it, whichever comes first */
    ces_test_tool_says("validate alltoall --in-place", 2,
                       "cesync: validate: alltoall: in place applies to allgather, gather, scatter "
                       "and broadcast only\n");
    ces_test_tool_says("validate sendrecv --in-place", 2,
                       "cesync: validate: sendrecv: in place applies to allgather, gather, scatter "
                       "and broadcast only\n");
    ces_test_tool_says("validate barrier --in-place", 2,
                       "cesync: validate: barrier: in place applies to allgather, gather, scatter "
                       "and broadcast only\n");
    ces_test_tool_says("validate allgather --in-place --variant overlap", 2,
                       "cesync: validate: allgather: in place and the overlap variant exclude each "
                       "other (in place there is no local copy to move)\n");
    ces_test_tool_says("validate allgather --variant early --in-place", 2,
                       "cesync: validate: allgather: in place and the early variant exclude each "
                       "other (in place there is no local copy to move)\n");
    ces_test_tool_says("validate scatter --in-place --variant early", 2,
                       "cesync: validate: scatter: the early variant applies to alltoall and "
                       "allgather only\n");
    /* --directed: gather, scatter and broadcast only; with --in-place and
     * --variant, whichever comes first */
    ces_test_tool_says("validate alltoall --directed", 2,
                       "cesync: validate: alltoall: directed barriers apply to gather, scatter and "
                       "broadcast only\n");
    ces_test_tool_says("validate gather --directed --ranks 2", 0,
                       "valid: 2 ranks, 1 stream per rank, 2 buffers, 2 signal arrays, 1 "
                       "iteration, 14 ops\n");
    ces_test_tool_says("validate broadcast --variant overlap --directed --in-place", 2,
                       "cesync: validate: broadcast: in place and the overlap variant exclude each "
                       "other (in place there is no local copy to move)\n");
    /* --wake: not sendrecv or barrier, 0..256 copies; a stream and a
     * buffer more, and the chain's ops (broadcast of 2 ranks: rank 1's
     * fork, batch of 2 copies, join: 8 ops; allgather: both ranks, 16) */
    ces_test_tool_says("validate sendrecv --wake 1", 2,
                       "cesync: validate: --wake applies to alltoall, allgather, gather, scatter "
                       "and broadcast, not to sendrecv\n");
    /* refused with any value: the plain variant and no chain were taken
     * and dropped as well */
    ces_test_tool_says("check barrier --wake 0", 2,
                       "cesync: check: --wake applies to alltoall, allgather, gather, scatter and "
                       "broadcast, not to barrier\n");
    ces_test_tool_says("validate sendrecv --variant plain", 2,
                       "cesync: validate: --variant applies to alltoall, allgather, gather, "
                       "scatter and broadcast, not to sendrecv\n");
    ces_test_tool_says("print barrier --variant overlap", 2,
                       "cesync: print: --variant applies to alltoall, allgather, gather, scatter "
                       "and broadcast, not to barrier\n");
    ces_test_tool_says("validate allgather --wake 2 --ranks 2", 0,
                       "valid: 2 ranks, 2 streams per rank, 3 buffers, 2 signal arrays, 1 "
                       "iteration, 38 ops\n");
    ces_test_tool_says("validate allgather --ranks 2", 0,
                       "valid: 2 ranks, 1 stream per rank, 2 buffers, 2 signal arrays, 1 "
                       "iteration, 22 ops\n");
    ces_test_tool_says("validate scatter --wake 257", 2,
                       "cesync: validate: --wake expects a number in 0..256, not '257'\n");
    ces_test_tool_says("validate broadcast --wake 2 --ranks 2", 0,
                       "valid: 2 ranks, 2 streams per rank, 3 buffers, 2 signal arrays, 1 "
                       "iteration, 23 ops\n");
    ces_test_tool_says("validate broadcast --ranks 2", 0,
                       "valid: 2 ranks, 1 stream per rank, 2 buffers, 2 signal arrays, 1 "
                       "iteration, 15 ops\n");
    /* gather out of place has no rank that only waits: the chain was
     * taken and dropped (18 ops, as without it); in place its root runs it */
    ces_test_tool_says("validate gather --wake 2 --ranks 2", 2,
                       "cesync: validate: --wake applies to gather in place only (--in-place): "
                       "out of place every rank copies, none only waits\n");
    ces_test_tool_says("check gather --wake 0", 2,
                       "cesync: check: --wake applies to gather in place only (--in-place): out "
                       "of place every rank copies, none only waits\n");
    ces_test_tool_says("validate gather --wake 2 --in-place --ranks 2", 0,
                       "valid: 2 ranks, 2 streams per rank, 3 buffers, 2 signal arrays, 1 "
                       "iteration, 23 ops\n");
    ces_test_tool_says("validate allgather --in-place --variant plain --ranks 2", 0,
                       "valid: 2 ranks, 1 stream per rank, 1 buffer, 2 signal arrays, 1 "
                       "iteration, 20 ops\n");
}

/* --chunks 1 alone: one staging slot, not the default 2 (which would exceed
 * the chunks). */
static void test_slots_follow_chunks(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    char a0[] = "sendrecv", a1[] = "--chunks", a2[] = "1", a3[] = "--ranks", a4[] = "2";
    char *argv[] = {a0, a1, a2, a3, a4};

    (void)state;
    assert_int_equal(ces_tool_load("check", ctx, 5, argv, NULL, NULL, NULL, NULL, &g, NULL),
                     CES_EXIT_OK);
    assert_int_equal(ces_graph_buffer(g, (uint32_t)ces_graph_find_buffer(g, "stage")).size, 1024);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* The schedule may come anywhere among the options (it had to come first:
 * `check --quiet a.ces` said "unexpected argument 'a.ces'"); an option's
 * value is never taken for it, "-" is standard input, and a second one is
 * refused. */
static void test_load_input_anywhere(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    char a0[] = "--dot", a1[] = "x.svg", a2[] = "--ranks", a3[] = "3", a4[] = "--json",
         a5[] = "barrier";
    char *argv[] = {a0, a1, a2, a3, a4, a5};
    struct seen seen = {{NULL}, 0, 0};

    (void)state;
    assert_string_equal(ces_tool_input(6, argv, dot_valued), "barrier");
    /* without --dot among the options that take a value, its value is the input */
    assert_string_equal(ces_tool_input(6, argv, NULL), "x.svg");
    assert_int_equal(ces_tool_load("check", ctx, 6, argv, dot_valued, json_flags, seen_opt, &seen,
                                   &g, NULL),
                     CES_EXIT_OK);
    assert_int_equal(seen.n, 5);
    assert_string_equal(seen.arg[0], "--dot");
    assert_string_equal(seen.arg[1], "x.svg");
    assert_string_equal(seen.arg[2], "--json");
    assert_null(seen.arg[4]);
    assert_int_equal(ces_graph_ranks(g), 3);
    assert_int_equal(ces_graph_nbuffers(g), 0); /* the barrier, not the default alltoall */
    ces_graph_destroy(g);
    {
        char b0[] = "--quiet", b1[] = "-", b2[] = "--dot";
        char *bargv[] = {b0, b1, b2};

        assert_string_equal(ces_tool_input(3, bargv, dot_valued), "-");
        assert_null(ces_tool_input(1, bargv, dot_valued));
    }
    ces_test_ctx_end(ctx, &st);
    /* through the command, for every subcommand that takes a schedule */
    ces_test_tool_says("check --quiet --ranks 2 barrier", 0, "verdict: OK\n");
    ces_test_tool_says("check --max-states 100000 --quiet alltoall --ranks 2", 0, "verdict: OK\n");
    ces_test_tool_says("check --quiet barrier alltoall", 2,
                       "cesync: check: unexpected argument 'alltoall' (one schedule per "
                       "command; see cesync check --help)\n");
    ces_test_tool_says("validate --ranks 2 barrier", 0,
                       "valid: 2 ranks, 1 stream per rank, 0 buffers, 1 signal array, 1 "
                       "iteration, 4 ops\n");
    ces_test_tool_says("validate barrier allgather", 2,
                       "cesync: validate: unexpected argument 'allgather' (one schedule per "
                       "command; see cesync validate --help)\n");
    ces_test_tool_says("print -o /nonexistent-dir/x.ces barrier", 2,
                       "cesync: print: cannot create /nonexistent-dir/x.ces: No such file or "
                       "directory\n");
    ces_test_tool_says("dot -o /nonexistent-dir/x.dot barrier", 2,
                       "cesync: dot: cannot create /nonexistent-dir/x.dot: No such file or "
                       "directory\n");
    ces_test_tool_says("promela -o /nonexistent-dir/x.pml barrier", 2,
                       "cesync: promela: cannot create /nonexistent-dir/x.pml: No such file or "
                       "directory\n");
    ces_test_tool_says("check --predict --kind nope barrier", 2,
                       "cesync: check --predict: --kind: unknown machine kind 'nope' (known: h200)\n");
}

/* Sends stderr into a new file (without a name once open: a test that
 * fails leaves none behind) until stderr_end; its descriptor, and
 * stderr's kept in *saved. */
static int stderr_begin(int *saved)
{
    char tmpl[256];
    int fd;

    snprintf(tmpl, sizeof(tmpl), "%s/ces_note_XXXXXX", ces_test_tmp_base());
    fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    unlink(tmpl);
    *saved = dup(2);
    assert_true(*saved >= 0);
    fflush(stderr);
    assert_int_equal(dup2(fd, 2), 2);
    return fd;
}

/* Gives stderr back and puts what was written to it since stderr_begin
 * into out (size bytes, a string); the file is closed. */
static void stderr_end(int fd, int saved, char *out, size_t size)
{
    ssize_t n;

    fflush(stderr);
    assert_int_equal(dup2(saved, 2), 2);
    close(saved);
    n = pread(fd, out, size - 1, 0);
    assert_true(n >= 0);
    out[n] = '\0';
    close(fd);
}

/* The size of the picture of an alltoall of `ranks` and `iterations`, and
 * its ops. */
static void dot_size(const char *ranks, const char *iterations, struct ces_dot_size *sz,
                     uint64_t *ops)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;
    char a0[] = "alltoall", a1[] = "--ranks", a2[16], a3[] = "--iterations", a4[16];
    char *argv[] = {a0, a1, a2, a3, a4};

    snprintf(a2, sizeof(a2), "%s", ranks);
    snprintf(a4, sizeof(a4), "%s", iterations);
    assert_int_equal(ces_tool_load("dot", ctx, 5, argv, NULL, NULL, NULL, NULL, &g, NULL),
                     CES_EXIT_OK);
    assert_int_equal(ces_tool_dot_size(ctx, g, NULL, sz, 0), CES_OK);
    *ops = ces_tool_dot_ops(g);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
}

/* What ces_tool_dot_note prints to stderr for a picture of `ops` ops and
 * size sz drawn into `path`, in out. */
static void dot_note(uint64_t ops, const struct ces_dot_size *sz, const char *path, char *out,
                     size_t size)
{
    int saved, fd = stderr_begin(&saved);

    ces_tool_dot_note("dot", ops, sz, path);
    stderr_end(fd, saved, out, size);
}

/* A picture whose layout may take 10 s or more is announced before
 * Graphviz lays it out, with about how long that may take: seconds at
 * 10,000 ops, minutes at 56,000 and hours at 392,000 (it said "minutes"
 * for every one of them); a smaller one, or a .dot file (no layout), is
 * not.  Its nodes and the ranks its edges across lanes span say it, not
 * its ops: the alltoall of 32 ranks, 4,192 ops whose edges span 95,232
 * ranks, took 29 s of CPU on a busy machine and was not announced (below
 * 10,000 ops).  Hours are asked of the alltoall of 128 ranks (65,920
 * ops): that of 8 ranks and 1,400 iterations, 392,000 ops, 369,600 nodes
 * spanning 1,881,600 ranks, says 14 hours, but sizing it under ASan took
 * 30 s of this program's 84 on a busy machine, and most of its peak memory
 * (623 MB; 289 MB without it).  Each picture is sized once and its note
 * asked under each of its names. */
static void test_dot_note(void **state)
{
    struct ces_dot_size sz;
    uint64_t ops;
    char out[512];

    (void)state;
    dot_size("8", "36", &sz, &ops);
    dot_note(ops, &sz, "a.svg", out, sizeof(out));
    assert_string_equal(out, "cesync: dot: drawing 10080 ops (9504 nodes, edges across lanes 48384 "
                             "ranks long); Graphviz may take about 20 s to lay out so many (fewer "
                             "iterations or ranks draw faster, and a .dot file skips the layout)\n");
    dot_note(ops, &sz, "a.png", out, sizeof(out));
    assert_true(strncmp(out, "cesync: dot: drawing 10080 ops (", 32) == 0);
    /* the ending in either case, as the picture is drawn */
    dot_note(ops, &sz, "a.SVG", out, sizeof(out));
    assert_true(strncmp(out, "cesync: dot: drawing 10080 ops (", 32) == 0);
    dot_note(ops, &sz, "a.DOT", out, sizeof(out));
    assert_string_equal(out, "");
    dot_note(ops, &sz, "a.dot", out, sizeof(out));
    assert_string_equal(out, "");
    dot_note(ops, &sz, "svg", out, sizeof(out));
    assert_string_equal(out, "");
    dot_size("8", "200", &sz, &ops);
    dot_note(ops, &sz, "a.svg", out, sizeof(out));
    assert_string_equal(out, "cesync: dot: drawing 56000 ops (52800 nodes, edges across lanes "
                             "268800 ranks long); Graphviz may take about 13 minutes to lay out so "
                             "many (fewer iterations or ranks draw faster, and a .dot file skips "
                             "the layout)\n");
    dot_size("128", "1", &sz, &ops);
    dot_note(ops, &sz, "a.svg", out, sizeof(out));
    assert_string_equal(out, "cesync: dot: drawing 65920 ops (65664 nodes, edges across lanes "
                             "6242304 ranks long); Graphviz may take about 3 hours to lay out so "
                             "many (fewer iterations or ranks draw faster, and a .dot file skips "
                             "the layout)\n");
    dot_size("8", "24", &sz, &ops);
    dot_note(ops, &sz, "a.svg", out, sizeof(out));
    assert_string_equal(out, "");
    dot_size("32", "1", &sz, &ops);
    dot_note(ops, &sz, "a.svg", out, sizeof(out));
    assert_string_equal(out, "cesync: dot: drawing 4192 ops (4128 nodes, edges across lanes 95232 "
                             "ranks long); Graphviz may take about 10 s to lay out so many (fewer "
                             "iterations or ranks draw faster, and a .dot file skips the layout)\n");
}

/* What ces_tool_dot_text_note says of dot text of `len` bytes written to
 * standard output (path NULL), in out. */
static void dot_text_note(size_t len, char *out, size_t size)
{
    int saved, fd = stderr_begin(&saved);

    ces_tool_dot_text_note("check", 7, len, NULL);
    stderr_end(fd, saved, out, size);
}

/* Dot text is announced from 16 MiB on, to standard output too (a file:
 * tools_test_main's test_dot_text_large). */
static void test_dot_text_note(void **state)
{
    char out[256];

    (void)state;
    dot_text_note((size_t)(16 << 20) - 1, out, sizeof(out));
    assert_string_equal(out, "");
    dot_text_note((size_t)16 << 20, out, sizeof(out));
    assert_string_equal(out, "cesync: check: writing 16 MiB of dot text (7 ops) to standard output; "
                             "fewer iterations or ranks draw less\n");
}

/* The one message of the four commands that say a library error naming an
 * op by its line at the op's place in the file (ces_tool_op_message):
 * "CMD: PLACE:L:C: LEAD: REST", REST the error without " (line L:C)",
 * wherever that stood; with the lead of each caller: run's lowering (none),
 * a run's rank (its rank and step; the rank's path needs a GPU, the
 * others are asserted whole through the command as well), check
 * --predict's slow mode and validate's machine.  None for a built-in
 * schedule (no place) or an error without a well-formed "(line L:C)". */
static void test_op_message(void **state)
{
    static const struct {
        const char *cmd, *place, *why, *lead, *want;
    } cases[] = {
        {"run", "frozen.ces", "r0.s0#1 (line 6:13): wait f[1] >= 1: the wait reads $i", NULL,
         "run: frozen.ces:6:13: r0.s0#1: wait f[1] >= 1: the wait reads $i"},
        {"run", "<stdin>", "r0.s0#3 (line 9:6): flush is not supported on GPU 0",
         "rank 0: preparing the schedule",
         "run: <stdin>:9:6: rank 0: preparing the schedule: r0.s0#3: flush is not supported on "
         "GPU 0"},
        {"check --predict", "slow.ces",
         "the schedule does not finish: r1.s0#1 wait f[0] == 1 (line 12:6) is blocked",
         "10.91 us with the model's timing, but in the slow mode of blocked waits "
         "(slow_wake_us = 50.00 us)",
         "check --predict: slow.ces:12:6: 10.91 us with the model's timing, but in the slow mode "
         "of blocked waits (slow_wake_us = 50.00 us): the schedule does not finish: r1.s0#1 wait "
         "f[0] == 1 is blocked"},
        {"validate", "good/barrier_flush.ces", "r0.s0#3 (line 9:6): flush is not supported",
         "h200 + two.model cannot run it",
         "validate: good/barrier_flush.ces:9:6: h200 + two.model cannot run it: r0.s0#3: flush "
         "is not supported"},
    };
    static const char *const none[] = {
        "9 ranks, the h200 model has at most 8 GPUs", "r0.s0#3 (line 0:6): x",
        "r0.s0#3 (line 9): x", "r0.s0#3 (line 9:x): x", "r0.s0#3 (line :6): x",
        "r0.s0#3 (line 9:6 x", "r0.s0#3 (line 4294967296:6): x",
    };
    char *msg;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        msg = ces_tool_op_message(cases[i].cmd, cases[i].place, cases[i].why, cases[i].lead);
        assert_non_null(msg);
        assert_string_equal(msg, cases[i].want);
        free(msg);
    }
    assert_null(ces_tool_op_message("run", NULL, cases[0].why, NULL));
    for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
        assert_null(ces_tool_op_message("validate", "a.ces", none[i], "h200 cannot run it"));
}

/* validate --kind / --model: whether the machine has every op the
 * schedule uses, the first op it lacks named where it stands; a schedule
 * it cannot run is not valid for it: no "valid:" summary on standard
 * output (it came before the refusal and its exit 2); a file's op is named
 * at FILE:LINE:COL, as the parser names a place in it (it said "cannot run
 * good/barrier_flush.ces: r0.s0#3 (line 9:6)"), standard input's at
 * <stdin>:LINE:COL, as the parser names a place there (it said "r0.s0#3
 * (line 9:6)"). */
static void test_validate_machine(void **state)
{
    (void)state;
    ces_test_tool_says("validate good/barrier_flush.ces --kind h200", 2,
                       "cesync: validate: good/barrier_flush.ces:9:6: h200 cannot run it: r0.s0#3: "
                       "flush is not supported on h200 (can_flush_remote_writes = 0)\n");
    ces_test_tool_says("validate - --kind h200 <good/barrier_flush.ces", 2,
                       "cesync: validate: <stdin>:9:6: h200 cannot run it: r0.s0#3: flush is not "
                       "supported on h200 (can_flush_remote_writes = 0)\n");
    ces_test_tool_says("validate good/barrier_flush.ces", 0,
                       "valid: 2 ranks, 1 stream per rank, 0 buffers, 1 signal array, "
                       "2 iterations, 16 ops\n");
    ces_test_tool_says("validate barrier --ranks 2 --kind h200", 0,
                       "valid: 2 ranks, 1 stream per rank, 0 buffers, 1 signal array, "
                       "1 iteration, 4 ops\n"
                       "machine: h200 has every op it uses\n");
    ces_test_tool_says("validate barrier --ranks 9 --kind h200", 2,
                       "cesync: validate: h200 cannot run it: 9 ranks, the h200 model has at "
                       "most 8 GPUs\n");
    ces_test_tool_says("validate barrier --ranks 2 --model ../../model/calibrated/h200_2gpu.model",
                       0,
                       "valid: 2 ranks, 1 stream per rank, 0 buffers, 1 signal array, "
                       "1 iteration, 4 ops\n"
                       "machine: h200 + ../../model/calibrated/h200_2gpu.model has every op it "
                       "uses\n");
    {
        /* what a model file takes away is the machine's, named with the
         * file as when it has every op (it said "h200 cannot run it") */
        char *dir = ces_test_tmpdir(), *out = NULL, path[128];
        FILE *f;

        snprintf(path, sizeof(path), "%s/two.model", dir);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs("max_ranks = 2\n", f);
        fclose(f);
        assert_int_equal(ces_test_tool(dir, "validate barrier --ranks 4 --model two.model", &out),
                         2);
        /* the limit named as the file's, not the kind's */
        assert_string_equal(out, "cesync: validate: h200 + two.model cannot run it: 4 ranks, the "
                                 "model of two.model (kind h200) has at most 2 GPUs\n");
        free(out);
        remove(path);
        rmdir(dir);
    }
    ces_test_tool_says("validate barrier --kind a100", 2,
                       "cesync: validate: --kind: unknown machine kind 'a100' (known: h200)\n");
    ces_test_tool_says("validate barrier --kind", 2,
                       "cesync: validate: --kind expects a machine kind\n");
    ces_test_tool_says("validate barrier --model --kind h200", 2,
                       "cesync: validate: --model expects a model file, not the option '--kind'\n");
    ces_test_tool_says("validate barrier --model no-such.model", 2,
                       "cesync: no-such.model: cannot open: No such file or directory\n");
    /* a kind there is none of, as it is read, before the schedule is (it
     * said the file's error, and came after the expansion, seconds for a
     * long schedule), the first wrong argument on the line */
    ces_test_tool_says("validate malformed/bad_version.ces --kind a100 --bogus", 2,
                       "cesync: validate: --kind: unknown machine kind 'a100' (known: h200)\n");
    ces_test_tool_says("check --predict malformed/bad_version.ces --kind a100", 2,
                       "cesync: check --predict: --kind: unknown machine kind 'a100' (known: "
                       "h200)\n");
}

/* No schedule named: the built-in 4-rank alltoall, unless standard input
 * is a pipe or a file, which the user most likely meant: refused then,
 * "-" reads it. */
static void test_load_default(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_graph *g = NULL;

    (void)state;
    assert_non_null(freopen("/dev/null", "r", stdin));
    assert_int_equal(ces_tool_load("check", ctx, 0, NULL, NULL, NULL, NULL, NULL, &g, NULL),
                     CES_EXIT_OK);
    assert_int_equal(ces_graph_ranks(g), 4);
    assert_true(ces_graph_find_buffer(g, "recv") >= 0);
    ces_graph_destroy(g);
    ces_test_ctx_end(ctx, &st);
    ces_test_tool_says("check --quiet <bad/alltoall_no_complete.ces", 2,
                       "cesync: check: no schedule named, and standard input is a pipe or a file: "
                       "name - to read it, or alltoall for the built-in default\n");
    ces_test_tool_says("check --quiet - <bad/alltoall_no_complete.ces", 1, "verdict: RACE\n");
    ces_test_tool_says("validate --ranks 2 --", 0,
                       "valid: 2 ranks, 1 stream per rank, 2 buffers, 2 signal arrays, "
                       "1 iteration, 22 ops\n");
}

/* A misspelt collective is not reported as a file that cannot be opened;
 * the command is named before it, a file's errors start with the file. */
static void test_unknown_name(void **state)
{
    char *dir, *out = NULL, args[512];

    (void)state;
    ces_test_tool_says("validate alltoal", 2,
                       "cesync: validate: 'alltoal' is neither a file nor a built-in collective "
                       "(alltoall, allgather, gather, scatter, broadcast, sendrecv, barrier)\n");
    ces_test_tool_says("dot alltoal --ranks 3", 2,
                       "cesync: dot: 'alltoal' is neither a file nor a built-in collective "
                       "(alltoall, allgather, gather, scatter, broadcast, sendrecv, barrier)\n");
    /* with a '/' or a '.' it is a path */
    ces_test_tool_says("validate no-such.ces", 2,
                       "cesync: no-such.ces: cannot open: No such file or directory\n");
    ces_test_tool_says("validate ./alltoal", 2,
                       "cesync: ./alltoal: cannot open: No such file or directory\n");
    /* a missing file is said as such, not blamed on the builder options,
     * which apply to a file that is there */
    ces_test_tool_says("check alltoall.ces --ranks 2", 2,
                       "cesync: alltoall.ces: cannot open: No such file or directory\n");
    ces_test_tool_says("check good/allgather_graph.ces --ranks 2", 2,
                       "cesync: check: builder options (--ranks, --bytes, ...) apply to a "
                       "collective, not to the file 'good/allgather_graph.ces'\n");
    /* a file without '.' is still read */
    dir = ces_test_tmpdir();
    snprintf(args, sizeof(args), "print barrier --ranks 2 -o sched && '%s' validate sched",
             CES_TOOL);
    assert_int_equal(ces_test_tool(dir, args, &out), 0);
    assert_non_null(strstr(out, "valid: 2 ranks"));
    free(out);
    snprintf(args, sizeof(args), "%s/sched", dir);
    assert_int_equal(unlink(args), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void put_file(const char *dir, const char *name, const char *text)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    ces_test_put_file(path, text);
}

/* Whether file dir/name holds exactly text. */
static void holds(const char *dir, const char *name, const char *text)
{
    char path[512], *back;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    back = ces_test_read_file(path, NULL);
    assert_string_equal(back, text);
    free(back);
}

/* Lowers the file size limit to `limit` bytes (SIGXFSZ ignored, so writes
 * past it fail with EFBIG), or restores it when limit is 0; children
 * inherit both. */
static void fsize_limit(rlim_t limit)
{
    static struct rlimit old;
    struct rlimit low;

    if (limit == 0) {
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
        signal(SIGXFSZ, SIG_DFL);
        return;
    }
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    low = old;
    low.rlim_cur = limit;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &low), 0);
}

/* ces_tool_write_file: a unique temporary file beside the target, renamed
 * over it; the target's mode kept; nothing left behind on a failure. */
static void test_write_file(void **state)
{
    char *dir = ces_test_tmpdir(), path[512], got[512];
    char big[8192];
    struct stat sb;
    mode_t mask = umask(022);

    (void)state;
    snprintf(path, sizeof(path), "%s/out.ces", dir);
    put_file(dir, "out.ces.tmp", "unrelated\n");
    assert_int_equal(ces_tool_write_file("print", path, "one\n", 4), CES_EXIT_OK);
    holds(dir, "out.ces", "one\n");
    holds(dir, "out.ces.tmp", "unrelated\n");
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0644);
    assert_int_equal(chmod(path, 0640), 0);
    assert_int_equal(ces_tool_write_file("print", path, "two\n", 4), CES_EXIT_OK);
    holds(dir, "out.ces", "two\n");
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0640);
    /* a write that cannot complete leaves the old file */
    memset(big, 'x', sizeof(big));
    fsize_limit(4096);
    assert_int_equal(ces_tool_write_file("print", path, big, sizeof(big)), CES_EXIT_USAGE);
    fsize_limit(0);
    holds(dir, "out.ces", "two\n");
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "out.ces;out.ces.tmp;");
    snprintf(path, sizeof(path), "%s/no-such-dir/out.ces", dir);
    assert_int_equal(ces_tool_write_file("print", path, "x", 1), CES_EXIT_USAGE);
    umask(mask);
    snprintf(path, sizeof(path), "%s/out.ces", dir);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof(path), "%s/out.ces.tmp", dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* ces_write_file (core/file.c) itself: a new file gets 0666 less the
 * umask, whatever the mask; a file it replaces keeps its sticky bit with
 * its mode; a chain of links ends at the file the last one names, every
 * link left a link; the empty name and a directory are refused with the
 * error, nothing left behind. */
static void test_write_file_modes(void **state)
{
    struct ces_ctx *ctx = NULL;
    char *dir = ces_test_tmpdir(), path[512], want[600], got[512], cwd[4096];
    struct stat sb;
    mode_t mask = umask(077);

    (void)state;
    assert_int_equal(ces_ctx_create(NULL, &ctx), CES_OK);
    snprintf(path, sizeof(path), "%s/a.ces", dir);
    assert_int_equal(ces_write_file(ctx, path, "a\n", 2), CES_OK);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0600);
    assert_int_equal(unlink(path), 0);
    umask(002);
    assert_int_equal(ces_write_file(ctx, path, "a\n", 2), CES_OK);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0664);
    umask(mask);
    assert_int_equal(chmod(path, 01640), 0);
    assert_int_equal(ces_write_file(ctx, path, "b\n", 2), CES_OK);
    holds(dir, "a.ces", "b\n");
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 01640);

    /* two.ces -> one.ces -> a.ces */
    snprintf(path, sizeof(path), "%s/one.ces", dir);
    assert_int_equal(symlink("a.ces", path), 0);
    snprintf(path, sizeof(path), "%s/two.ces", dir);
    assert_int_equal(symlink("one.ces", path), 0);
    assert_int_equal(ces_write_file(ctx, path, "c\n", 2), CES_OK);
    holds(dir, "a.ces", "c\n");
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    snprintf(path, sizeof(path), "%s/one.ces", dir);
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "a.ces;one.ces;two.ces;");
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof(path), "%s/two.ces", dir);
    assert_int_equal(unlink(path), 0);

    /* no file has the empty name: nothing is written in the current
     * directory */
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(dir), 0);
    assert_int_equal(ces_write_file(ctx, "", "d\n", 2), CES_ERR_IO);
    assert_string_equal(ces_ctx_last_error(ctx), "cannot create '': No such file or directory");
    assert_int_equal(chdir(cwd), 0);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "a.ces;");

    /* a directory is no file to write in place, nor to replace: refused
     * before a temporary file is made */
    snprintf(path, sizeof(path), "%s/d", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(ces_write_file(ctx, path, "e\n", 2), CES_ERR_IO);
    snprintf(want, sizeof(want), "cannot write %s: Is a directory", path);
    assert_string_equal(ces_ctx_last_error(ctx), want);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "a.ces;d;");
    assert_int_equal(rmdir(path), 0);
    snprintf(path, sizeof(path), "%s/a.ces", dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
    ces_ctx_destroy(ctx);
}

/* An output path that is no regular file is written, not replaced: a named
 * pipe (or a device such as /dev/null) stays what it was and gets the text;
 * a symbolic link stays a link and the file it names gets the text; links
 * in a loop are refused, kept. */
static void test_write_not_a_file(void **state)
{
    char *dir = ces_test_tmpdir(), path[512], target[512], got[512];
    struct stat sb;
    ssize_t n;
    int fd;

    (void)state;
    snprintf(path, sizeof(path), "%s/pipe", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    fd = open(path, O_RDONLY | O_NONBLOCK); /* a reader, so that the writer's open returns */
    assert_true(fd >= 0);
    assert_int_equal(ces_tool_write_file("print", path, "one\n", 4), CES_EXIT_OK);
    n = read(fd, got, sizeof(got));
    assert_int_equal(n, 4);
    assert_memory_equal(got, "one\n", 4);
    assert_int_equal(close(fd), 0);
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    assert_int_equal(unlink(path), 0);

    put_file(dir, "real.ces", "old\n");
    snprintf(path, sizeof(path), "%s/link.ces", dir);
    assert_int_equal(symlink("real.ces", path), 0);
    assert_int_equal(ces_tool_write_file("print", path, "two\n", 4), CES_EXIT_OK);
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    holds(dir, "real.ces", "two\n");
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "link.ces;real.ces;");
    assert_int_equal(unlink(path), 0);
    /* a link that names its file by an absolute path: the file it names,
     * not that path taken from the link's directory */
    snprintf(target, sizeof(target), "%s/real.ces", dir);
    snprintf(path, sizeof(path), "%s/abs.ces", dir);
    assert_int_equal(symlink(target, path), 0);
    assert_int_equal(ces_tool_write_file("print", path, "three\n", 6), CES_EXIT_OK);
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    holds(dir, "real.ces", "three\n");
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "abs.ces;real.ces;");
    assert_int_equal(unlink(path), 0);
    assert_int_equal(unlink(target), 0);
    /* links in a loop name no file: refused as open(2) refuses them, the
     * links kept (the first was replaced by a file, reported written) */
    snprintf(path, sizeof(path), "%s/loop.ces", dir);
    assert_int_equal(symlink("loop2.ces", path), 0);
    snprintf(target, sizeof(target), "%s/loop2.ces", dir);
    assert_int_equal(symlink("loop.ces", target), 0);
    assert_int_equal(ces_tool_write_file("print", path, "four\n", 5), CES_EXIT_USAGE);
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "loop.ces;loop2.ces;");
    assert_int_equal(unlink(path), 0);
    assert_int_equal(unlink(target), 0);
    /* a chain of 40 links ends at its file, as open(2) follows it (it was
     * refused as a loop); a 41st link is one too many, as for open(2) */
    put_file(dir, "end.ces", "old\n");
    for (int i = 40; i >= 0; i--) {
        char to[64];

        if (i == 40)
            snprintf(to, sizeof(to), "end.ces");
        else
            snprintf(to, sizeof(to), "c%d", i + 1);
        snprintf(path, sizeof(path), "%s/c%d", dir, i);
        assert_int_equal(symlink(to, path), 0);
    }
    snprintf(path, sizeof(path), "%s/c1", dir);
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0); /* (Linux: 40 links) */
    assert_int_equal(close(fd), 0);
    assert_int_equal(ces_tool_write_file("print", path, "five\n", 5), CES_EXIT_OK);
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    holds(dir, "end.ces", "five\n");
    snprintf(path, sizeof(path), "%s/c0", dir);
    assert_true(open(path, O_WRONLY) < 0 && errno == ELOOP);
    assert_int_equal(ces_tool_write_file("print", path, "six\n", 4), CES_EXIT_USAGE);
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    holds(dir, "end.ces", "five\n");
    for (int i = 0; i <= 40; i++) {
        snprintf(path, sizeof(path), "%s/c%d", dir, i);
        assert_int_equal(unlink(path), 0);
    }
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "end.ces;");
    snprintf(path, sizeof(path), "%s/end.ces", dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* An output path that names one of the process's own descriptors
 * (/dev/stdout, /dev/fd/N, /proc/self/fd/N, /proc/thread-self/fd/N,
 * /proc/PID/fd/N of its PID, which was replaced, and /proc/self/task/TID/fd/N
 * and /proc/PID/task/TID/fd/N of a thread of it, which were) is written
 * through that descriptor at its offset, as -o - is: a file behind it, opened for
 * appending (`-o /dev/stdout >> log`), keeps what it held (it was replaced
 * by the output alone, the log lost), and a link to such a name is
 * followed to it (by ces_dot_write too); a descriptor that is not open is
 * refused, nothing made, and so is one that cannot be written (a
 * directory, a file opened for reading) before anything is. */
static void test_write_own_descriptor(void **state)
{
    static const char *const names[] = {"/dev/fd/%d", "/proc/self/fd/%d",
                                        "/proc/thread-self/fd/%d", "/proc/%ld/fd/%d",
                                        "/proc/self/task/%ld/fd/%d", "/proc/%ld/task/%ld/fd/%d"};
    char *dir = ces_test_tmpdir(), *out = NULL, path[512], name[600], got[512], want[600];
    char text[700];
    struct ces_ctx *ctx = NULL;
    int fd, ends[2];

    (void)state;
    snprintf(path, sizeof(path), "%s/log.txt", dir);
    ces_test_put_file(path, "kept\n");
    snprintf(name, sizeof(name), "%s/link", dir);
    assert_int_equal(symlink("/dev/stdout", name), 0);
    fd = open(path, O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        /* (this thread's ID is the process's: the one thread) */
        if (i < 3)
            snprintf(name, sizeof(name), names[i], fd);
        else if (i < 5)
            snprintf(name, sizeof(name), names[i], (long)getpid(), fd);
        else
            snprintf(name, sizeof(name), names[i], (long)getpid(), (long)getpid(), fd);
        assert_int_equal(ces_file_own_descriptor(name), fd);
        snprintf(text, sizeof(text), "%zu\n", i);
        assert_int_equal(ces_tool_write_file("print", name, text, strlen(text)), CES_EXIT_OK);
    }
    /* a task directory of no thread of it names no descriptor of it, nor
     * does a number the kernel does not read as one */
    snprintf(name, sizeof(name), "/proc/self/task/%ld/fd/%d", (long)getppid(), fd);
    assert_int_equal(ces_file_own_descriptor(name), -1);
    snprintf(name, sizeof(name), "/proc/self/task/0%ld/fd/%d", (long)getpid(), fd);
    assert_int_equal(ces_file_own_descriptor(name), -1);
    /* ces_dot_write too, through a .dot link to one */
    assert_int_equal(ces_ctx_create(NULL, &ctx), CES_OK);
    snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
    snprintf(text, sizeof(text), "%s/pic.dot", dir);
    assert_int_equal(symlink(name, text), 0);
    assert_int_equal(ces_dot_write(ctx, "6\n", text), CES_OK);
    assert_int_equal(unlink(text), 0);
    assert_int_equal(close(fd), 0);
    holds(dir, "log.txt", "kept\n0\n1\n2\n3\n4\n5\n6\n");
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "link;log.txt;");
    /* the command's standard output, by name and by a link to it */
    assert_int_equal(ces_test_tool(dir, "print barrier --ranks 2 -o /dev/stdout >>log.txt", &out),
                     0);
    free(out);
    assert_int_equal(ces_test_tool(dir, "print barrier --ranks 2 -o link >>log.txt", &out), 0);
    free(out);
    assert_int_equal(ces_test_tool(NULL, "print barrier --ranks 2", &out), 0);
    /* (each said on stderr, which the shell sends there too) */
    snprintf(want, sizeof(want),
             "kept\n0\n1\n2\n3\n4\n5\n6\n%scesync: wrote /dev/stdout\n%scesync: wrote link\n",
             out, out);
    free(out);
    holds(dir, "log.txt", want);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "link;log.txt;");
    ces_test_tool_says("print barrier --ranks 2 -o /dev/fd/987", 2,
                       "cesync: print: cannot write /dev/fd/987: Bad file descriptor\n");
    /* one that cannot be written is refused before the work, as a
     * directory by name is (it failed at its write: a picture's Graphviz
     * laid it out first, "dot -Tsvg failed drawing"): a directory, and a
     * file opened for reading, which check's probe of --dot took */
    fd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    snprintf(name, sizeof(name), "/dev/fd/%d", fd);
    assert_int_equal(ces_write_file(ctx, name, "x\n", 2), CES_ERR_IO);
    snprintf(text, sizeof(text), "cannot write %s: Is a directory", name);
    assert_string_equal(ces_ctx_last_error(ctx), text);
    assert_int_equal(close(fd), 0);
    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
    assert_int_equal(ces_tool_out_probe("check", name), CES_EXIT_USAGE);
    assert_int_equal(ces_write_file(ctx, name, "x\n", 2), CES_ERR_IO);
    snprintf(text, sizeof(text), "cannot write %s: Bad file descriptor", name);
    assert_string_equal(ces_ctx_last_error(ctx), text);
    assert_int_equal(close(fd), 0);
    /* and so is a pipe's or a device's end opened for reading, which the
     * probe asked access(2) of as it asks a pipe by name: the work ran,
     * then its write failed */
    assert_int_equal(pipe(ends), 0);
    snprintf(name, sizeof(name), "/dev/fd/%d", ends[0]);
    assert_int_equal(ces_tool_out_probe("check", name), CES_EXIT_USAGE);
    snprintf(name, sizeof(name), "/proc/self/fd/%d", ends[1]);
    assert_int_equal(ces_tool_out_probe("check", name), CES_EXIT_OK);
    assert_int_equal(close(ends[0]), 0);
    assert_int_equal(close(ends[1]), 0);
    ces_ctx_destroy(ctx);
    holds(dir, "log.txt", want);
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "link;log.txt;");
    ces_test_remove_in(dir, "link\0log.txt\0");
}

/* print, promela and dot -o through the built command: an output that
 * cannot be completed leaves the previous file and nothing else; print
 * leaves an unrelated FILE.tmp alone and says why it cannot create a file;
 * dot takes a relative "-x.svg" for a file, not a Graphviz option. */
static void test_tool_outputs(void **state)
{
    static const char *const outs[] = {
        "print alltoall --ranks 8 --expand -o out.ces", "out.ces",
        "promela alltoall --ranks 8 -o out.pml", "out.pml",
        "dot alltoall --ranks 8 -o out.dot", "out.dot",
    };
    char *dir = ces_test_tmpdir(), *out = NULL, got[512], want[512], path[512];

    (void)state;
    for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i += 2) {
        put_file(dir, outs[i + 1], "good\n");
        fsize_limit(4096);
        assert_int_equal(ces_test_tool(dir, outs[i], &out), 2);
        fsize_limit(0);
        snprintf(want, sizeof(want), "cesync: %.*s: cannot write %s: File too large\n",
                 (int)strcspn(outs[i], " "), outs[i], outs[i + 1]);
        assert_string_equal(out, want);
        free(out);
        holds(dir, outs[i + 1], "good\n");
        ces_test_dir_entries(dir, got, sizeof(got));
        snprintf(want, sizeof(want), "%s;", outs[i + 1]);
        assert_string_equal(got, want);
        snprintf(path, sizeof(path), "%s/%s", dir, outs[i + 1]);
        assert_int_equal(unlink(path), 0);
    }

    put_file(dir, "k.ces.tmp", "keep\n");
    assert_int_equal(ces_test_tool(dir, "print alltoall -o k.ces", &out), 0);
    free(out);
    holds(dir, "k.ces.tmp", "keep\n");
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "k.ces;k.ces.tmp;");
    ces_test_tool_says("print alltoall -o /nonexistent-dir/x.ces", 2,
                       "cesync: print: cannot create /nonexistent-dir/x.ces: No such file or "
                       "directory\n");

    if (ces_test_tool(dir, "dot barrier --ranks 2 -o -x.svg", &out) == 0) {
        assert_string_equal(out, "cesync: wrote -x.svg\n");
        snprintf(path, sizeof(path), "%s/-x.svg", dir);
        free(out);
        out = ces_test_read_file(path, NULL);
        assert_non_null(strstr(out, "<svg"));
        assert_int_equal(unlink(path), 0);
    } else {
        assert_non_null(strstr(out, "Graphviz 'dot' is not installed"));
    }
    free(out);
    snprintf(path, sizeof(path), "%s/k.ces", dir);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof(path), "%s/k.ces.tmp", dir);
    assert_int_equal(unlink(path), 0);
    /* a writable file in a directory that takes no new one: the temporary
     * file beside it failed, and its directory is named (the message named
     * the file, which could be written; root writes into any directory) */
    if (geteuid() != 0) {
        snprintf(path, sizeof(path), "%s/ro", dir);
        assert_int_equal(mkdir(path, 0755), 0);
        put_file(dir, "ro/w.ces", "old\n");
        assert_int_equal(chmod(path, 0555), 0);
        assert_int_equal(ces_test_tool(dir, "print alltoall -o ro/w.ces", &out), 2);
        assert_string_equal(out, "cesync: print: cannot replace ro/w.ces: cannot create its "
                                 "temporary file in ro: Permission denied\n");
        free(out);
        holds(dir, "ro/w.ces", "old\n");
        assert_int_equal(chmod(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/ro/w.ces", dir);
        assert_int_equal(unlink(path), 0);
        snprintf(path, sizeof(path), "%s/ro", dir);
        assert_int_equal(rmdir(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
}

/* A sanitized cesync run with an effective user that is not its real one
 * (an exec that makes it undumpable, its /proc/self unreadable to it) has
 * a sanitizer that cannot read its options (ASAN_OPTIONS=detect_leaks=0 is
 * not taken) and ends in LeakSanitizer's fatal error: that case runs in
 * plain builds only. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define COMMON_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define COMMON_SANITIZED 1
#endif
#endif
#ifndef COMMON_SANITIZED
#define COMMON_SANITIZED 0
#endif

/* An output file the command may not write (chmod a-w) is refused before
 * any work, as open(2) refuses it, and kept: the file renamed over it
 * replaced it whole, its owner the writer's ('cesync print x.ces -o
 * golden.ces' of a golden.ces of mode 0444).  Root may write any file, so
 * as root the commands run as nobody (setpriv); skipped where they cannot
 * run so. */
static void test_read_only_output(void **state)
{
    static const char *const cmds[] = {
        "print", "print barrier -o r.dot", "promela", "promela barrier -o r.dot",
        "dot", "dot barrier -o r.dot", "check", "check barrier --dot r.dot",
        "bench", "bench alltoall --dry-run --csv r.dot", "print", "print barrier -o l.dot",
    };
    const char *as = geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "";
    char *dir = ces_test_tmpdir(), *out = NULL, got[512], want[512], path[512];

    (void)state;
    assert_int_equal(chmod(dir, 0777), 0); /* nobody's temporary file could go there */
    if (ces_test_tool_env(dir, as, "--version", &out) != 0) {
        free(out);
        assert_int_equal(rmdir(dir), 0);
        skip();
    }
    free(out);
    put_file(dir, "r.dot", "old\n");
    snprintf(path, sizeof(path), "%s/r.dot", dir);
    assert_int_equal(chmod(path, 0444), 0);
    snprintf(path, sizeof(path), "%s/l.dot", dir);
    assert_int_equal(symlink("r.dot", path), 0);
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i += 2) {
        assert_int_equal(ces_test_tool_env(dir, as, cmds[i + 1], &out), 2);
        snprintf(want, sizeof(want), "cesync: %s: cannot write %s: Permission denied\n", cmds[i],
                 strrchr(cmds[i + 1], ' ') + 1);
        assert_string_equal(out, want);
        free(out);
        holds(dir, "r.dot", "old\n");
    }
    /* judged by the effective user, as open(2) judges: root's own file of
     * mode 0644 was replaced by nobody's where the real user stayed root
     * (access(2) takes the real one), as a setuid process runs */
    if (geteuid() == 0 && !COMMON_SANITIZED) {
        snprintf(path, sizeof(path), "%s/r.dot", dir);
        assert_int_equal(chmod(path, 0644), 0);
        assert_int_equal(ces_test_tool_env(dir,
                                           "setpriv --ruid=0 --euid=65534 --egid=65534 "
                                           "--clear-groups",
                                           "print barrier -o r.dot", &out),
                         2);
        assert_string_equal(out, "cesync: print: cannot write r.dot: Permission denied\n");
        free(out);
        holds(dir, "r.dot", "old\n");
    }
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "l.dot;r.dot;");
    ces_test_remove_in(dir, "l.dot\0r.dot\0");
}

/* A signal that ends a command leaves no temporary file of an output
 * (`cesync gen -o DIR` stopped by SIGINT left gen-N.ces.XXXXXX, dot -o
 * k.svg.XXXXXX): ces_file_unlink_pending removes the temporary files not
 * ended yet, and only those, and ends the child drawing one (dot went on
 * for seconds); the command calls it from its handler and then dies of
 * the signal, as it would have. */
static void test_signal_leaves_no_temporary(void **state)
{
    char *dir = ces_test_tmpdir(), path[1024], gdir[512];
    struct ces_ctx *ctx = NULL;
    struct ces_out_file of;
    struct dirent *e;
    size_t files = 0;
    DIR *d;
    int fd, st;
    pid_t pid;

    (void)state;
    assert_int_equal(ces_ctx_create(NULL, &ctx), CES_OK);
    snprintf(path, sizeof(path), "%s/out.txt", dir);
    fd = ces_file_create_beside(ctx, path, &of);
    assert_true(fd >= 0);
    assert_int_equal(access(of.name, F_OK), 0);
    ces_file_unlink_pending();
    assert_int_equal(access(of.name, F_OK), -1);
    close(fd);
    assert_int_equal(ces_file_replace(ctx, &of, path, CES_ERR_IO), CES_ERR_IO);
    assert_int_equal(access(path, F_OK), -1);
    /* one that took its place is listed no more */
    fd = ces_file_create_beside(ctx, path, &of);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(ces_file_replace(ctx, &of, path, CES_OK), CES_OK);
    ces_test_put_file(of.name, "not ours\n");
    ces_file_unlink_pending();
    assert_int_equal(access(of.name, F_OK), 0);
    assert_int_equal(unlink(of.name), 0);
    assert_int_equal(unlink(path), 0);
    ces_ctx_destroy(ctx);
    /* the child drawing a pending file (dot) is ended with it */
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        for (;;)
            pause();
    }
    ces_file_child((int)pid);
    ces_file_unlink_pending();
    ces_file_child(0);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    /* the command, writing file after file, stopped by SIGTERM */
    snprintf(gdir, sizeof(gdir), "%s/g", dir);
    assert_int_equal(mkdir(gdir, 0755), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);

        if (null < 0 || chdir(dir) != 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
            _exit(127);
        execl(CES_TOOL, "cesync", "gen", "--seed", "1", "--count", "1000000", "-o", "g",
              (char *)NULL);
        _exit(127);
    }
    /* once it writes (its handler is in place by then), a while on */
    for (int waited = 0; waited < 10000; waited += 10) {
        snprintf(path, sizeof(path), "%s/gen-1.ces", gdir);
        if (access(path, F_OK) == 0)
            break;
        ces_test_sleep_ms(10);
    }
    ces_test_sleep_ms(100);
    assert_int_equal(kill(pid, SIGTERM), 0);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGTERM)
        fail_msg("cesync gen stopped by SIGTERM: status %#x", (unsigned)st);
    d = opendir(gdir);
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);

        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n < 4 || strcmp(e->d_name + n - 4, ".ces") != 0)
            fail_msg("left in %s: %s", gdir, e->d_name);
        snprintf(path, sizeof(path), "%s/%s", gdir, e->d_name);
        assert_int_equal(unlink(path), 0);
        files++;
    }
    closedir(d);
    assert_true(files > 0);
    assert_int_equal(rmdir(gdir), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* Each command of cases (pairs: the command, what it says) in dir exits 2
 * saying what it must, and leaves file `name` holding `text`. */
static void refused_all(const char *dir, const char *const *cases, size_t n, const char *name,
                        const char *text)
{
    char *out = NULL;

    for (size_t i = 0; i < n; i += 2) {
        assert_int_equal(ces_test_tool(dir, cases[i], &out), 2);
        if (strcmp(out, cases[i + 1]) != 0)
            fail_msg("'cesync %s' said:\n%s", cases[i], out);
        free(out);
        holds(dir, name, text);
    }
}

/* An output that names the input file is refused before anything is
 * written (print -o, promela -o, dot -o and check --dot replaced the
 * schedule they read: print dropped its comments, the others overwrote it),
 * by the same path, another path, a link or a second hard link, and so is
 * the file that standard input reads for "-" (it was replaced as the named
 * one was); a collective is no file, so a file of its name may be written. */
static void test_output_is_not_input(void **state)
{
    static const char sched[] = "# kept\ncesync 1\nranks 2\nstreams 1\nsignal ready u64 1\n"
                                "phase eager x1\nr* : write ready[0] = $i\n"
                                "r* over p : wait ready[0]@$p >= $i\n";
    static const char *const cases[] = {
        "print a.dot -o a.dot",
        "cesync: print: -o a.dot is the input file (name another output file)\n",
        "print --expand -o a.dot a.dot",
        "cesync: print: -o a.dot is the input file (name another output file)\n",
        "promela a.dot -o ./a.dot",
        "cesync: promela: -o ./a.dot is the input file a.dot (name another output file)\n",
        "dot a.dot -o link.dot",
        "cesync: dot: -o link.dot is the input file a.dot (name another output file)\n",
        "check a.dot --dot hard.dot",
        "cesync: check: --dot hard.dot is the input file a.dot (name another output file)\n",
        "print - -o a.dot <a.dot",
        "cesync: print: -o a.dot is the file standard input reads (name another output file)\n",
        "promela -o link.dot - <a.dot",
        "cesync: promela: -o link.dot is the file standard input reads (name another output "
        "file)\n",
        "dot - -o ./a.dot <hard.dot",
        "cesync: dot: -o ./a.dot is the file standard input reads (name another output file)\n",
        "check - --dot hard.dot <link.dot",
        "cesync: check: --dot hard.dot is the file standard input reads (name another output "
        "file)\n",
        /* nor is a model file read from it (it read the schedule as the
         * model, or, where the schedule was read first, an empty model) */
        "validate - --model /dev/stdin <a.dot",
        "cesync: validate: --model /dev/stdin is the file standard input reads, which holds the "
        "schedule (name the model's own file)\n",
        "check --predict --model /dev/stdin - <link.dot",
        "cesync: check --predict: --model /dev/stdin is the file standard input reads, which "
        "holds the schedule (name the model's own file)\n",
        /* nor from the schedule's own file, by any name (it read the
         * schedule as the model) */
        "validate a.dot --model a.dot",
        "cesync: validate: --model a.dot is the schedule's file (name the model's own file)\n",
        "check --predict --model hard.dot link.dot",
        "cesync: check --predict: --model hard.dot is the schedule's file link.dot (name the "
        "model's own file)\n",
    };
    /* judged once every option is read (the last -o is the one taken),
     * before the schedule is: one that does not read said its own error (a
     * long one's expansion came first); an unknown option later on the line
     * is said first, as each option is judged before the options together;
     * dot's name without a format alike */
    static const char *const early[] = {
        "print bad.ces -o bad.ces",
        "cesync: print: -o bad.ces is the input file (name another output file)\n",
        "promela bad.ces -o ./bad.ces --no-races",
        "cesync: promela: -o ./bad.ces is the input file bad.ces (name another output file)\n",
        "promela bad.ces -o ./bad.ces --bogus",
        "cesync: promela: unknown option '--bogus' (see cesync promela --help)\n",
        "dot bad.ces -o bad.ces",
        "cesync: dot: -o bad.ces is the input file (name another output file)\n",
        "dot bad.ces -o bad.txt",
        "cesync: dot: -o bad.txt: the name must end in .dot, .svg or .png (-o - writes the dot "
        "text to standard output)\n",
    };
    char *dir = ces_test_tmpdir(), *out = NULL, path[512], path2[512];

    (void)state;
    put_file(dir, "a.dot", sched);
    put_file(dir, "m.model", "max_ranks = 2\n");
    snprintf(path, sizeof(path), "%s/link.dot", dir);
    assert_int_equal(symlink("a.dot", path), 0);
    snprintf(path, sizeof(path), "%s/a.dot", dir);
    snprintf(path2, sizeof(path2), "%s/hard.dot", dir);
    assert_int_equal(link(path, path2), 0);
    refused_all(dir, cases, sizeof(cases) / sizeof(cases[0]), "a.dot", sched);
    assert_int_equal(unlink(path2), 0);
    snprintf(path2, sizeof(path2), "%s/link.dot", dir);
    assert_int_equal(unlink(path2), 0);
    put_file(dir, "bad.ces", "cesync 2\n");
    refused_all(dir, early, sizeof(early) / sizeof(early[0]), "bad.ces", "cesync 2\n");
    snprintf(path2, sizeof(path2), "%s/bad.ces", dir);
    assert_int_equal(unlink(path2), 0);
    /* a model file on standard input beside a schedule by name is read */
    assert_int_equal(ces_test_tool(dir, "validate a.dot --model /dev/stdin <m.model", &out), 0);
    assert_string_equal(out, "valid: 2 ranks, 1 stream per rank, 0 buffers, 1 signal array, 1 "
                             "iteration, 4 ops\nmachine: h200 + /dev/stdin has every op it "
                             "uses\n");
    free(out);
    /* a collective is read from no file */
    assert_int_equal(ces_test_tool(dir, "print barrier --ranks 2 -o barrier", &out), 0);
    free(out);
    snprintf(path2, sizeof(path2), "%s/barrier", dir);
    assert_int_equal(unlink(path2), 0);
    snprintf(path2, sizeof(path2), "%s/m.model", dir);
    assert_int_equal(unlink(path2), 0);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* What no schedule decides is judged before the schedule is read, so that
 * a long one's expansion (seconds; check's --max-seconds may stop it) does
 * not come first and one that does not read is not said instead: a --model
 * file of validate and check --predict that does not open or parse (at its
 * FILE:LINE:COL, over a --kind before or after it), an -o of print, dot
 * and promela whose directory is not there or is no directory, or that is
 * a directory (said when the file was written, after the expansion),
 * options that exclude each other (promela --data-at-end --no-data,
 * check's, and check's --dot whose directory is not there, judged with
 * them); a file of the wrong version stands for the schedule: each said
 * its version error.  Nothing is left in the directory. */
static void test_judged_before_schedule(void **state)
{
    static const char *const cases[] = {
        "validate bad.ces --model no.model",
        "cesync: no.model: cannot open: No such file or directory\n",
        "validate bad.ces --model syntax.model --kind h200",
        "cesync: syntax.model:2:7: expected '=', found 'line'\n",
        "check --predict bad.ces --kind h200 --model syntax.model",
        "cesync: syntax.model:2:7: expected '=', found 'line'\n",
        "print bad.ces -o no-dir/x.ces",
        "cesync: print: cannot create no-dir/x.ces: No such file or directory\n",
        "print bad.ces --expand -o file/x.ces",
        "cesync: print: cannot create file/x.ces: Not a directory\n",
        "print bad.ces -o dir",
        "cesync: print: cannot write dir: Is a directory\n",
        "dot bad.ces -o no-dir/x.svg",
        "cesync: dot: cannot create no-dir/x.svg: No such file or directory\n",
        "promela bad.ces -o file/x.pml",
        "cesync: promela: cannot create file/x.pml: Not a directory\n",
        "promela bad.ces --data-at-end --no-data",
        "cesync: promela: --data-at-end judges the data at end states, which --no-data leaves "
        "out: give one of them\n",
        "check bad.ces --dot no-dir/x.dot",
        "cesync: check: cannot create no-dir/x.dot: No such file or directory\n",
        "check bad.ces --json --quiet",
        "cesync: check: --quiet (the verdict line) and --json (the whole report) exclude each "
        "other\n",
        "check bad.ces --seed 2",
        "cesync: check: --seed applies to --random\n",
    };
    char *dir = ces_test_tmpdir(), path[512], got[512];

    (void)state;
    put_file(dir, "bad.ces", "cesync 2\n");
    put_file(dir, "file", "");
    put_file(dir, "syntax.model", "per_copy_us = 1\nbogus line\n");
    snprintf(path, sizeof(path), "%s/dir", dir);
    assert_int_equal(mkdir(path, 0777), 0);
    refused_all(dir, cases, sizeof(cases) / sizeof(cases[0]), "bad.ces", "cesync 2\n");
    ces_test_dir_entries(dir, got, sizeof(got));
    assert_string_equal(got, "bad.ces;dir;file;syntax.model;");
    assert_int_equal(rmdir(path), 0);
    for (size_t i = 0; i < 3; i++) {
        static const char *const names[] = {"bad.ces", "file", "syntax.model"};

        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        assert_int_equal(unlink(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
}

/* Writes `text` whole to descriptor fd and closes it: 0, or 2 where a
 * write failed. */
static int fd_put(int fd, const char *text)
{
    size_t len = strlen(text), done = 0;

    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);

        if (w <= 0) {
            close(fd);
            return 2;
        }
        done += (size_t)w;
    }
    close(fd);
    return 0;
}

/* Writes `text` whole to the named pipe `path` once a reader has it open,
 * asking every 10 ms for `ms` milliseconds (first calling `late`, where it
 * is not NULL, with the pipe `other`): 0 written, 1 written after the
 * deadline, 2 never (the deadline passed twice or open failed). */
static int fifo_put(const char *path, const char *text, const char *other, long ms)
{
    int fd, late = 0, flags;

    for (long waited = 0; (fd = open(path, O_WRONLY | O_NONBLOCK)) < 0; waited += 10) {
        if (errno != ENXIO || (waited >= ms && (late || other == NULL)))
            return 2;
        if (waited >= ms) {
            /* the command waits to read `other`: a writer opened and closed
             * there lets it read an empty file and go on */
            int r = open(other, O_RDWR);

            if (r >= 0)
                close(r);
            late = 1;
            waited = 0;
        }
        ces_test_sleep_ms(10);
    }
    flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
        return 2;
    return fd_put(fd, text) != 0 ? 2 : late;
}

/* A --model file of validate and check --predict that is a named pipe (or
 * a pipe: <(producer), /dev/fd/N) is judged before the schedule is read
 * without reading it, and read once the schedule is, as it was read before
 * a regular model file was read first: a writer that writes the model only
 * after the schedule was read, or never where the schedule fails, is not
 * waited for before the schedule (the command opened the model's pipe
 * first and waited for a writer that waited for the schedule's reader).
 * A child writes the schedule into the pipe s.fifo, then the model into
 * m.fifo, each once the command opens it; where the command opens m.fifo
 * first, the child, finding no reader of s.fifo for 20 s, opens and closes
 * m.fifo so that the command reads an empty model and goes on, and exits
 * 1. */
static void test_model_pipe_after_schedule(void **state)
{
    static const char good[] = "cesync 1\nranks 2\nstreams 1\nsignal ready u64 1\n"
                               "phase eager x1\nr* : write ready[0] = $i\n";
    static const char bad[] = "cesync 2\n";
    static const struct {
        const char *args, *sched, *model, *says;
        int rc;
    } cases[] = {
        {"validate s.fifo --model m.fifo", good, "max_ranks = 2\n",
         "valid: 2 ranks, 1 stream per rank, 0 buffers, 1 signal array, 1 iteration, 2 ops\n"
         "machine: h200 + m.fifo has every op it uses\n", 0},
        {"validate --kind h200 --model m.fifo s.fifo", good, "max_ranks = 1\n",
         "cesync: validate: s.fifo:2:7: h200 + m.fifo cannot run it: 2 ranks, the model of "
         "m.fifo (kind h200) has at most 1 GPU\n", 2},
        {"check --predict s.fifo --model m.fifo", good, "bogus line\n",
         "cesync: m.fifo:1:7: expected '=', found 'line'\n", 2},
        /* the model never written: the schedule's error */
        {"validate s.fifo --model m.fifo", bad, NULL,
         "cesync: s.fifo:1:8: unsupported format version 2: expected 'cesync 1'\n", 2},
        {"check --predict --model m.fifo s.fifo --kind h200", bad, NULL,
         "cesync: s.fifo:1:8: unsupported format version 2: expected 'cesync 1'\n", 2},
    };
    char *dir = ces_test_tmpdir(), sp[512], mp[512], *out = NULL;
    pid_t pid;
    int rc;

    (void)state;
    snprintf(sp, sizeof(sp), "%s/s.fifo", dir);
    snprintf(mp, sizeof(mp), "%s/m.fifo", dir);
    assert_int_equal(mkfifo(sp, 0600), 0);
    assert_int_equal(mkfifo(mp, 0600), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int st;

        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            int first = fifo_put(sp, cases[i].sched, mp, 20000);

            /* (a model written after the release would wait for no reader) */
            _exit(first != 0                ? first
                  : cases[i].model == NULL ? 0
                                           : fifo_put(mp, cases[i].model, NULL, 20000));
        }
        rc = ces_test_tool(dir, cases[i].args, &out);
        assert_int_equal(waitpid(pid, &st, 0), pid);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            fail_msg("'cesync %s': the writer's status %#x (1: the model was opened before the "
                     "schedule); it said:\n%s", cases[i].args, (unsigned)st, out);
        if (rc != cases[i].rc || strcmp(out, cases[i].says) != 0)
            fail_msg("'cesync %s' exited %d, saying:\n%s", cases[i].args, rc, out);
        free(out);
    }
    /* the schedule's own pipe as the model is refused before either is
     * opened: read once the schedule is, it waited for a second writer (a
     * child here writes the schedule, then opens and closes s.fifo each
     * time it has a reader, where the command read an empty model) */
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int r = fifo_put(sp, good, NULL, 20000);

        while (r == 0)
            r = fifo_put(sp, "", NULL, 20000);
        _exit(0);
    }
    rc = ces_test_tool(dir, "validate s.fifo --model ./s.fifo", &out);
    assert_int_equal(kill(pid, SIGKILL), 0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    if (rc != 2 || strcmp(out, "cesync: validate: --model ./s.fifo is the schedule's file s.fifo "
                               "(name the model's own file)\n") != 0)
        fail_msg("'cesync validate s.fifo --model ./s.fifo' exited %d, saying:\n%s", rc, out);
    free(out);
    ces_test_remove_in(dir, "s.fifo\0m.fifo\0");
}

/* `cesync run COLLECTIVE` without --ranks takes a rank a GPU, at least 2
 * and at most 8, as run --help, the builder help and README.md say (a
 * machine of one GPU or none gets 2 ranks, which ces_devices_fit refuses
 * naming its GPUs without CES_SHARE_GPUS=1: cuda_test_no_comm). */
static void test_run_default_ranks(void **state)
{
    static const uint32_t gpus[] = {0, 1, 2, 3, 7, 8, 9, 64, UINT32_MAX};
    static const uint32_t ranks[] = {2, 2, 2, 3, 7, 8, 8, 8, 8};

    (void)state;
    for (size_t i = 0; i < sizeof(gpus) / sizeof(gpus[0]); i++)
        if (ces_tool_run_ranks(gpus[i]) != ranks[i])
            fail_msg("%lu GPUs: %lu ranks, not %lu", (unsigned long)gpus[i],
                     (unsigned long)ces_tool_run_ranks(gpus[i]), (unsigned long)ranks[i]);
}

/* A schedule and a --model file that are both pipes are read as each is
 * written, so a producer may write either first: read after the schedule,
 * a model written first waited for a reader while the command waited for
 * the schedule that came after it ('( cat m > m.fifo; cat a.ces ) |
 * cesync validate - --model m.fifo' never ended).  The schedule on
 * standard input from a pipe and in the named pipe s.fifo, the model in
 * m.fifo, each order; a child writes them, each waited for 5 s at most
 * (then it gives the command an empty schedule where that is a named pipe,
 * or the schedule and then an empty model where it is standard input, so
 * that a command that does not read them in that order ends and the test
 * fails on the child's status).  A schedule's error is said without the model being written;
 * a model written well after the schedule is waited for. */
static void test_model_pipe_either_order(void **state)
{
    static const char good[] = "cesync 1\nranks 2\nstreams 1\nsignal ready u64 1\n"
                               "phase eager x1\nr* : write ready[0] = $i\n";
    static const char valid[] =
        "valid: 2 ranks, 1 stream per rank, 0 buffers, 1 signal array, 1 iteration, 2 ops\n"
        "machine: h200 + m.fifo has every op it uses\n";
    static const struct {
        const char *args, *sched, *model, *says;
        bool model_first;
        int rc;
    } cases[] = {
        {"validate - --model m.fifo", good, "max_ranks = 2\n", valid, true, 0},
        {"validate - --model m.fifo", good, "max_ranks = 2\n", valid, false, 0},
        {"validate s.fifo --model m.fifo", good, "max_ranks = 2\n", valid, true, 0},
        {"validate s.fifo --model m.fifo", good, "max_ranks = 2\n", valid, false, 0},
        {"check --predict - --model m.fifo", good, "bogus line\n",
         "cesync: m.fifo:1:7: expected '=', found 'line'\n", true, 2},
        {"check --predict --model m.fifo s.fifo", good, "max_ranks = 1\n",
         "cesync: check --predict: s.fifo:2:7: 2 ranks, the model of m.fifo (kind h200) has "
         "at most 1 GPU\n", true, 2},
        /* the model never written: the schedule's error */
        {"validate - --model m.fifo", "cesync 2\n", NULL,
         "cesync: <stdin>:1:8: unsupported format version 2: expected 'cesync 1'\n", false, 2},
    };
    char *dir = ces_test_tmpdir(), sp[512], mp[512], args[128], *out = NULL;

    (void)state;
    snprintf(sp, sizeof(sp), "%s/s.fifo", dir);
    snprintf(mp, sizeof(mp), "%s/m.fifo", dir);
    assert_int_equal(mkfifo(sp, 0600), 0);
    assert_int_equal(mkfifo(mp, 0600), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bool piped = strstr(cases[i].args, " - ") != NULL;
        int p[2] = {-1, -1}, st, rc;
        pid_t pid;

        if (piped)
            assert_int_equal(pipe(p), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            int r = 0;

            if (piped)
                close(p[0]);
            /* (a model 200 ms after the schedule: the command waits) */
            if (cases[i].model != NULL && cases[i].model_first)
                r = fifo_put(mp, cases[i].model, piped ? NULL : sp, 5000);
            if (piped) {
                /* then an empty model for a command that reads it only now */
                r |= fd_put(p[1], cases[i].sched);
                if (r != 0 && cases[i].model_first)
                    fifo_put(mp, "", NULL, 5000);
            } else if (r == 0) {
                r = fifo_put(sp, cases[i].sched, mp, 5000);
            }
            if (r == 0 && cases[i].model != NULL && !cases[i].model_first) {
                ces_test_sleep_ms(200);
                r = fifo_put(mp, cases[i].model, NULL, 5000);
            }
            _exit(r);
        }
        if (piped) {
            close(p[1]);
            snprintf(args, sizeof(args), "%s <&%d", cases[i].args, p[0]);
        } else {
            snprintf(args, sizeof(args), "%s", cases[i].args);
        }
        rc = ces_test_tool(dir, args, &out);
        if (piped)
            close(p[0]);
        assert_int_equal(waitpid(pid, &st, 0), pid);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            fail_msg("'cesync %s' (the model written %s): the writer's status %#x; it said:\n%s",
                     cases[i].args, cases[i].model_first ? "first" : "last", (unsigned)st, out);
        if (rc != cases[i].rc || strcmp(out, cases[i].says) != 0)
            fail_msg("'cesync %s' (the model written %s) exited %d, saying:\n%s", cases[i].args,
                     cases[i].model_first ? "first" : "last", rc, out);
        free(out);
    }
    ces_test_remove_in(dir, "s.fifo\0m.fifo\0");
}

/* Runs 'cesync validate - --model m.fifo' in a new directory, after `pre`
 * (shell words before the command), its standard input a pipe that a
 * child writes: `writer`, given the named pipe m.fifo's path and the
 * pipe's end (SIGPIPE ignored), writes both and returns the child's
 * status, which must be 0 (`status` says what another means); the
 * command must exit 2, saying `says`. */
static void model_pipe_validate(const char *pre, int (*writer)(const char *mp, int fd),
                                const char *status, const char *says)
{
    char *dir = ces_test_tmpdir(), mp[512], args[128], *out = NULL;
    int p[2], st, rc;
    pid_t pid;

    snprintf(mp, sizeof(mp), "%s/m.fifo", dir);
    assert_int_equal(mkfifo(mp, 0600), 0);
    assert_int_equal(pipe(p), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        signal(SIGPIPE, SIG_IGN);
        _exit(writer(mp, p[1]));
    }
    close(p[1]);
    snprintf(args, sizeof(args), "validate - --model m.fifo <&%d", p[0]);
    rc = ces_test_tool_env(dir, pre, args, &out);
    close(p[0]);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("the writer's status %#x%s; the command said:\n%s", (unsigned)st, status, out);
    if (rc != 2 || strcmp(out, says) != 0)
        fail_msg("'cesync %s' exited %d, saying:\n%s", args, rc, out);
    free(out);
    ces_test_remove_in(dir, "m.fifo\0");
}

/* test_model_pipe_long_schedule's writer: a model, then more than the
 * schedule's bound of '#' on the pipe (the command stops reading past
 * the bound) */
static int long_schedule(const char *mp, int fd)
{
    static char chunk[65536];
    size_t done = 0;
    int r;

    memset(chunk, '#', sizeof(chunk));
    r = fifo_put(mp, "max_ranks = 2\n", NULL, 5000);
    while (r == 0 && done <= CES_SOURCE_MAX) {
        ssize_t n = write(fd, chunk, sizeof(chunk));

        if (n < 0 && errno != EINTR)
            r = errno == EPIPE && done > CES_SOURCE_MAX - sizeof(chunk) ? 0 : 2;
        else if (n > 0)
            done += (size_t)n;
    }
    close(fd);
    return r;
}

/* A schedule on a pipe beside a --model named pipe, read as it comes
 * (ces_tool_load_beside), is read in time linear in its length: each
 * read looked for a NUL byte in the whole text kept so far, so that
 * 'validate - --model m.fifo' of 257 MiB of '#' took 40 s of CPU to say
 * its size bound, where without --model it took 2 s.  The command runs
 * under a CPU limit of 10 s (killed by SIGXCPU past it). */
static void test_model_pipe_long_schedule(void **state)
{
    (void)state;
    model_pipe_validate("ulimit -t 10;", long_schedule, "",
                        "cesync: <stdin>: larger than 268435456 bytes, more than it may hold\n");
}

/* test_model_pipe_past_bound's writer: the model until a write fails,
 * then the schedule; past 5 s of the model, the schedule and 1 */
static int past_bound(const char *mp, int fd)
{
    static const char good[] = "cesync 1\nranks 2\nstreams 1\nsignal ready u64 1\n"
                               "phase eager x1\nr* : write ready[0] = $i\n";
    static char chunk[65536];
    int mfd = -1, r = 1;

    memset(chunk, '#', sizeof(chunk));
    for (long ms = 0; ms < 5000 && r == 1; ms += 10) {
        if (mfd < 0)
            mfd = open(mp, O_WRONLY | O_NONBLOCK);
        if (mfd < 0 && errno != ENXIO)
            r = 2;
        /* (a full pipe: the command reads it or closed it) */
        while (mfd >= 0 && r == 1 && write(mfd, chunk, sizeof(chunk)) < 0 && errno != EAGAIN)
            r = errno == EPIPE ? 0 : 2;
        if (r == 1)
            ces_test_sleep_ms(10);
    }
    return fd_put(fd, good) != 0 ? 2 : r;
}

/* A --model named pipe whose writer writes past the model's bound of
 * 1 MiB while the schedule is read beside it (its producer writing the
 * model first, as '( yes > m.fifo; cat a.ces ) | cesync validate -
 * --model m.fifo') is read no more once past it: its next write fails
 * (EPIPE), the producer goes on to the schedule, and the bound is said,
 * exit 2.  The model was read and dropped until the schedule's end, here
 * never (its writer wrote on until the command's end: 'yes' drained
 * 1.1 s of CPU while a schedule came 3 s later).  A child writes the
 * model until a write fails, then the schedule; past 5 s of the model it
 * gives up, writes the schedule and exits 1, so that without the change
 * the test fails on its status instead of hanging. */
static void test_model_pipe_past_bound(void **state)
{
    (void)state;
    model_pipe_validate("", past_bound, " (1: the model was read on past its bound for 5 s)",
                        "cesync: m.fifo: larger than 1048576 bytes, more than it may hold\n");
}

/* A --model named pipe, opened before the schedule is read, does not take
 * the descriptor of a standard input that was closed: 'validate - --model
 * m.fifo <&-' read the model's text as the schedule ("<stdin>:1:1:
 * expected 'cesync 1' as the first statement, found 'max_ranks'"), where
 * before 2c8d598 it said the read error as without --model. */
static void test_model_pipe_stdin_closed(void **state)
{
    static const char says[] = "cesync: <stdin>: read error: Bad file descriptor\n";
    char *dir = ces_test_tmpdir(), mp[512], *out = NULL;
    int st, rc;
    pid_t pid;

    (void)state;
    snprintf(mp, sizeof(mp), "%s/m.fifo", dir);
    assert_int_equal(mkfifo(mp, 0600), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(fifo_put(mp, "max_ranks = 2\n", NULL, 5000));
    rc = ces_test_tool(dir, "validate - --model m.fifo <&-", &out);
    /* (the writer, which the command may leave before it had a reader) */
    kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (rc != 2 || strcmp(out, says) != 0)
        fail_msg("'cesync validate - --model m.fifo <&-' exited %d, saying:\n%s", rc, out);
    free(out);
    ces_test_remove_in(dir, "m.fifo\0");
}

/* An -o of print, dot and promela given twice takes its last value, as
 * every option does: the file of an earlier one is not judged (probed as
 * each -o was read, 'print barrier -o no-dir/x.ces -o ok.ces' said "cannot
 * create no-dir/x.ces" where it wrote ok.ces before), and it is judged with
 * the options together, once all are read, as check --dot's file and a
 * --model file are: an unknown option later on the line, or options that
 * exclude each other, are said first. */
static void test_output_last_value(void **state)
{
    static const char *const ext[] = {"print", "ces", "dot", "dot", "promela", "pml"};
    static const char *const cases[] = {
        "promela bad.ces -o no-dir/x.pml --bogus",
        "cesync: promela: unknown option '--bogus' (see cesync promela --help)\n",
        "promela bad.ces -o no-dir/x.pml --data-at-end --no-data",
        "cesync: promela: --data-at-end judges the data at end states, which --no-data leaves "
        "out: give one of them\n",
        "print bad.ces -o no-dir/x.ces --expand --explain",
        "cesync: print: --expand and --explain exclude each other (--explain expands too)\n",
        "dot bad.ces -o no-dir/x.svg --bogus",
        "cesync: dot: unknown option '--bogus' (see cesync dot --help)\n",
        "check bad.ces --dot no-dir/x.dot --bogus",
        "cesync: check: unknown option '--bogus' (see cesync check --help)\n",
        "validate bad.ces --model no.model --bogus",
        "cesync: validate: unknown option '--bogus' (see cesync validate --help)\n",
    };
    char *dir = ces_test_tmpdir(), args[256], want[64], names[64], *out = NULL;

    (void)state;
    for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i += 2) {
        snprintf(args, sizeof(args), "%s barrier --ranks 2 -o no-dir/x.%s -o ok.%s", ext[i],
                 ext[i + 1], ext[i + 1]);
        assert_int_equal(ces_test_tool(dir, args, &out), 0);
        snprintf(want, sizeof(want), "cesync: wrote ok.%s\n", ext[i + 1]);
        assert_string_equal(out, want);
        free(out);
        snprintf(want, sizeof(want), "ok.%s;", ext[i + 1]);
        ces_test_dir_entries(dir, names, sizeof(names));
        assert_string_equal(names, want);
        snprintf(args, sizeof(args), "%s/ok.%s", dir, ext[i + 1]);
        assert_int_equal(unlink(args), 0);
        /* and standard output, the last -o being - */
        snprintf(args, sizeof(args), "%s barrier --ranks 2 -o no-dir/x.%s -o -", ext[i],
                 ext[i + 1]);
        assert_int_equal(ces_test_tool(dir, args, &out), 0);
        assert_true(strlen(out) > 0 && strncmp(out, "cesync:", 7) != 0);
        free(out);
        ces_test_dir_entries(dir, names, sizeof(names));
        assert_string_equal(names, "");
    }
    put_file(dir, "bad.ces", "cesync 2\n");
    refused_all(dir, cases, sizeof(cases) / sizeof(cases[0]), "bad.ces", "cesync 2\n");
    ces_test_dir_entries(dir, names, sizeof(names));
    assert_string_equal(names, "bad.ces;");
    ces_test_remove_in(dir, "bad.ces\0");
}

/* Every output option given twice is judged on its last value only, as
 * every option given twice takes its last value: an earlier one that
 * names the input (print, dot and promela refused the first -o as the
 * input file where the last named another, 'print a.ces -o a.ces -o
 * ok.ces'), dot's without a format, gen's '' are not judged, and the
 * command writes the last one; a last one that names the input is
 * refused, whatever came before it.  check --dot, bench's --csv and a
 * --model file given twice alike. */
static void test_output_last_not_input(void **state)
{
    static const char sched[] = "cesync 1\nranks 2\nstreams 1\nsignal ready u64 1\n"
                                "phase eager x1\nr* : write ready[0] = $i\n";
    static const char *const ok[] = {
        "print s.dot -o s.dot -o ok.ces", "cesync: wrote ok.ces\n", "ok.ces",
        "dot s.dot -o ./s.dot -o ok.dot", "cesync: wrote ok.dot\n", "ok.dot",
        "dot s.dot -o a.txt -o ok.dot", "cesync: wrote ok.dot\n", "ok.dot",
        "promela -o s.dot s.dot -o ok.pml", "cesync: wrote ok.pml\n", "ok.pml",
        "check s.dot --quiet --dot s.dot --dot ok.dot",
        "verdict: OK\ncesync: wrote ok.dot (the schedule)\n", "ok.dot",
    };
    static const char *const refused[] = {
        "print s.dot -o ok.ces -o s.dot",
        "cesync: print: -o s.dot is the input file (name another output file)\n",
        "dot s.dot -o ok.dot -o ./s.dot",
        "cesync: dot: -o ./s.dot is the input file s.dot (name another output file)\n",
        "dot s.dot -o ok.dot -o a.txt",
        "cesync: dot: -o a.txt: the name must end in .dot, .svg or .png (-o - writes the dot "
        "text to standard output)\n",
        "promela s.dot -o ok.pml -o s.dot",
        "cesync: promela: -o s.dot is the input file (name another output file)\n",
        "check s.dot --dot ok.dot --dot s.dot",
        "cesync: check: --dot s.dot is the input file (name another output file)\n",
        "bench alltoall --dry-run --model m.model --csv ok.csv --csv m.model",
        "cesync: bench: --csv m.model is the input file (name another output file)\n",
        "gen --seed 1 -o g -o ''", "cesync: gen: -o expects a directory, not ''\n",
        "validate s.dot --model m.model --model no.model",
        "cesync: no.model: cannot open: No such file or directory\n",
    };
    char *dir = ces_test_tmpdir(), *out = NULL, names[128], path[512];

    (void)state;
    put_file(dir, "s.dot", sched);
    put_file(dir, "m.model", "max_ranks = 2\n");
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i += 3) {
        assert_int_equal(ces_test_tool(dir, ok[i], &out), 0);
        if (strcmp(out, ok[i + 1]) != 0)
            fail_msg("'cesync %s' said:\n%s", ok[i], out);
        free(out);
        snprintf(names, sizeof(names), "m.model;%s;s.dot;", ok[i + 2]);
        ces_test_dir_entries(dir, path, sizeof(path));
        assert_string_equal(path, names);
        holds(dir, "s.dot", sched);
        snprintf(path, sizeof(path), "%s/%s", dir, ok[i + 2]);
        assert_int_equal(unlink(path), 0);
    }
    /* bench's CSV, of a dry run (no GPU), and gen's directory */
    assert_int_equal(ces_test_tool(dir, "bench alltoall --dry-run --max-bytes 1K --model m.model "
                                        "--csv m.model --csv ok.csv", &out), 0);
    free(out);
    holds(dir, "m.model", "max_ranks = 2\n");
    snprintf(path, sizeof(path), "%s/ok.csv", dir);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof(path), "%s/g", dir);
    assert_int_equal(mkdir(path, 0777), 0);
    assert_int_equal(ces_test_tool(dir, "gen --seed 1 -o '' -o g", &out), 0);
    assert_string_equal(out, "cesync: wrote 1 schedule to g\n");
    free(out);
    ces_test_remove_in(path, "gen-1.ces\0");
    /* a --model given twice reads the last */
    assert_int_equal(ces_test_tool(dir, "validate s.dot --model no.model --model m.model", &out),
                     0);
    assert_string_equal(out, "valid: 2 ranks, 1 stream per rank, 0 buffers, 1 signal array, 1 "
                             "iteration, 2 ops\nmachine: h200 + m.model has every op it uses\n");
    free(out);
    refused_all(dir, refused, sizeof(refused) / sizeof(refused[0]), "s.dot", sched);
    ces_test_dir_entries(dir, names, sizeof(names));
    assert_string_equal(names, "m.model;s.dot;");
    ces_test_remove_in(dir, "s.dot\0m.model\0");
}

/* ces_tool_same_file: two names of one file, written or not yet (./x and
 * x, d/../x, a linked directory, a link to it), are one; two files, or a
 * name that exists and one that does not, are not.  A link to a file not
 * written yet is the file the writer makes through it: bench --csv l
 * --plot p.svg, l a link to p.dot, wrote its CSV to p.dot, then the plot's
 * source over it, removed once drawn (exit 0, no CSV). */
static void test_same_file(void **state)
{
    static const char *const same[][2] = {
        {"x", "./x"},      {"x", ".//x"},        {"x", "d/../x"},   {"d/x", "ld/x"},
        {"d/x", "ld/./x"}, {"ld/../x", "x"},     {"e", "./e"},      {"e", "le"},
        {"l", "x"},        {"l", "./x"},         {"ld/l2", "d/y"},  {"l3", "d/y"},
        {"dl", "d/y"},
    };
    static const char *const other[][2] = {
        {"x", "y"},         {"d/x", "d/y"},    {"x", "d/x"},         {"e", "x"},
        {"e", "./f"},       {"x/", "x"},       {"nodir/x", "nodir/./x"},
        {"l", "y"},         {"l", "e"},        {"l2", "x"},          {"loop", "x"},
    };
    char *dir = ces_test_tmpdir(), cwd[4096], abs[4200];
    static const char *const links[][2] = {{"d", "ld"}, {"e", "le"},   {"x", "l"},
                                           {"../d/y", "d/l2"}, {"d/l2", "l3"},
                                           {"d/y", "dl"}, {"loop", "loop"}};

    (void)state;
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(dir), 0);
    assert_int_equal(mkdir("d", 0777), 0);
    put_file(dir, "e", "");
    for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
        assert_int_equal(symlink(links[i][0], links[i][1]), 0);
    for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
        for (int k = 0; k < 2; k++)
            if (!ces_tool_same_file(same[i][k], same[i][!k]))
                fail_msg("%s and %s taken for two files", same[i][k], same[i][!k]);
    for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
        for (int k = 0; k < 2; k++)
            if (ces_tool_same_file(other[i][k], other[i][!k]))
                fail_msg("%s and %s taken for one file", other[i][k], other[i][!k]);
    /* by an absolute path too */
    snprintf(abs, sizeof(abs), "%s/x", dir);
    assert_true(ces_tool_same_file(abs, "d/../x"));
    assert_true(ces_tool_same_file("l", abs));
    assert_false(ces_tool_same_file(abs, "d/x"));
    for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
        assert_int_equal(unlink(links[i][1]), 0);
    assert_int_equal(unlink("e"), 0);
    assert_int_equal(rmdir("d"), 0);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* -o - is standard output for the text outputs (it made a file named
 * "-"): the same text as without -o, and nothing in the directory. */
static void test_output_dash(void **state)
{
    static const char *const cmds[] = {"print barrier --ranks 2", "print barrier --ranks 2 --expand",
                                       "promela barrier --ranks 2", "dot barrier --ranks 2"};
    char *dir = ces_test_tmpdir(), *want = NULL, *got = NULL, args[256], names[256];

    (void)state;
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        assert_int_equal(ces_test_tool(dir, cmds[i], &want), 0);
        snprintf(args, sizeof(args), "%s -o -", cmds[i]);
        assert_int_equal(ces_test_tool(dir, args, &got), 0);
        assert_string_equal(got, want);
        free(got);
        free(want);
        ces_test_dir_entries(dir, names, sizeof(names));
        assert_string_equal(names, "");
    }
    /* a picture or a check's drawing is no text for standard output */
    ces_test_tool_says("check barrier --ranks 2 --dot -", 2,
                       "cesync: check: --dot -: standard output carries the report (name a .dot, "
                       ".svg or .png file)\n");
    assert_int_equal(rmdir(dir), 0);
}

/* Builder defaults that fit what was asked: 1024 bytes rounded up to 8-byte
 * pieces per rank (alltoall on 3 ranks) or per chunk (sendrecv), and the
 * credit protocol for --graph, where mono cannot run, unless --sync says
 * otherwise; a builder's refusal names the protocol to choose as --sync
 * does. */
static void test_builder_defaults(void **state)
{
    char *o;

    (void)state;
    ces_test_tool_says("check alltoall --ranks 3 --quiet", 0, "verdict: OK\n");
    assert_int_equal(ces_test_tool(NULL, "print alltoall --ranks 7", &o), 0);
    assert_non_null(strstr(o, "\nlet C = 152\nbuffer send 1064\n"));
    free(o);
    assert_int_equal(ces_test_tool(NULL, "print sendrecv --ranks 2 --chunks 3", &o), 0);
    assert_non_null(strstr(o, "\nbuffer send 1032\n"));
    free(o);
    assert_int_equal(ces_test_tool(NULL, "print alltoall --ranks 4", &o), 0);
    assert_non_null(strstr(o, "\nbuffer send 1024\n"));
    free(o);
    ces_test_tool_says("check alltoall --ranks 3 --bytes 1024", 2,
                       "cesync: check: alltoall: --bytes (1024) must be divisible by --ranks "
                       "(3)\n");
    /* the library names the parameter, the tool the option that set it */
    ces_test_tool_says("check alltoall --bytes 300000000000000", 2,
                       "cesync: check: --bytes expects a size in 1..262144G (suffixes K M G), "
                       "not '300000000000000'\n");
    ces_test_tool_says("validate gather --ranks 1024 --bytes 300G", 2,
                       "cesync: validate: gather: --ranks x --bytes (1024 x 322122547200) exceeds "
                       "2^48 bytes\n");
    ces_test_tool_says("validate gather --ranks 2 --root 1 --bytes 1G --ranks 1", 2,
                       "cesync: validate: gather: --root must be a rank (0..0), not 1\n");
    ces_test_tool_says("validate sendrecv --ranks 2 --bytes 1001", 2,
                       "cesync: validate: sendrecv: --bytes (1001) must be divisible by --chunks "
                       "(4)\n");
    assert_int_equal(ces_test_tool(NULL, "print barrier --ranks 2 --graph", &o), 0);
    assert_non_null(strstr(o, "\nsignal ready_ack u32 2\n"));
    free(o);
    ces_test_tool_says("check barrier --ranks 2 --graph --sync mono", 2,
                       "cesync: check: barrier: mono is not graph-safe: its counters grow with $i, "
                       "which a graph replay freezes; use --sync credit for graph phases\n");
    /* the library names the protocol CES_PROTO_CREDIT; the tool says its flag */
    ces_test_tool_says("check sendrecv --ranks 3 --chunks 4 --slots 5 --sync credit", 2,
                       "cesync: check: sendrecv: --slots must be at most --chunks (4) with "
                       "--sync credit, not 5\n");
    ces_test_tool_says("check barrier --ranks 2 --sync pull", 2,
                       "cesync: check: barrier: pull needs two barriers per iteration (a rank "
                       "writes its flag for a peer again only after a later barrier shows that "
                       "the peer has reset it); use --sync credit\n");
}

/* A value that is another option is refused, not taken as a file name;
 * after "--" the next argument is the schedule whatever its name. */
static void test_values_and_dashes(void **state)
{
    char *dir = ces_test_tmpdir(), path[256], *o;
    FILE *f;

    (void)state;
    ces_test_tool_says("print -o --expand alltoall", 2,
                       "cesync: print: -o expects a file name, not the option '--expand'\n");
    /* two modes of print are no option given twice: refused (the last won) */
    ces_test_tool_says("print barrier --explain --expand", 2,
                       "cesync: print: --expand and --explain exclude each other (--explain "
                       "expands too)\n");
    ces_test_tool_says("check alltoall --dot --quiet", 2,
                       "cesync: check: --dot expects an output file, not the option '--quiet'\n");
    ces_test_tool_says("check alltoall --ranks --bytes 64", 2,
                       "cesync: check: --ranks expects a number in 1..1024, not the option '--bytes'\n");
    snprintf(path, sizeof(path), "%s/-x.ces", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("cesync 1\nranks 2\nsignal f u32 2\nphase eager x1\nr0 : wait f[0] >= 1\n", f);
    fclose(f);
    assert_int_equal(ces_test_tool(dir, "check --quiet -- -x.ces", &o), 1);
    assert_string_equal(o, "verdict: HANG\n");
    free(o);
    /* a schedule named --help or -h is checked, not taken for help */
    for (size_t i = 0; i < 2; i++) {
        static const char *const names[] = {"--help", "-h"};
        char to[256], args[64];

        snprintf(to, sizeof(to), "%s/%s", dir, names[i]);
        assert_int_equal(rename(path, to), 0);
        snprintf(args, sizeof(args), "check --quiet -- %s", names[i]);
        assert_int_equal(ces_test_tool(dir, args, &o), 1);
        assert_string_equal(o, "verdict: HANG\n");
        free(o);
        snprintf(args, sizeof(args), "validate -- %s", names[i]);
        assert_int_equal(ces_test_tool(dir, args, &o), 0);
        assert_string_equal(o, "valid: 2 ranks, 1 stream per rank, 0 buffers, 1 signal array, 1 "
                               "iteration, 1 op\n");
        free(o);
        assert_int_equal(rename(to, path), 0);
    }
    ces_test_tool_says("check --quiet -- --ranks", 2,
                       "cesync: check: '--ranks' is neither a file nor a built-in collective "
                       "(alltoall, allgather, gather, scatter, broadcast, sendrecv, barrier)\n");
    snprintf(path, sizeof(path), "%s/-x.ces", dir);
    remove(path);
    rmdir(dir);
}

/* Every error of ces_tool_load names the command, as the command's own
 * errors do (they said only "cesync: --ranks ...", whichever command it
 * was); check --predict is named as typed.  A file's errors start with the
 * file, as the commands print the other files' errors, without it. */
static void test_errors_name_the_command(void **state)
{
    (void)state;
    ces_test_tool_says("check alltoall --ranks 0", 2,
                       "cesync: check: --ranks expects a number in 1..1024, not '0'\n");
    ces_test_tool_says("dot alltoall --ranks 0", 2,
                       "cesync: dot: --ranks expects a number in 1..1024, not '0'\n");
    ces_test_tool_says("promela --ranks many barrier", 2,
                       "cesync: promela: --ranks expects a number in 1..1024, not 'many'\n");
    ces_test_tool_says("check alltoall --ranks 1K", 2,
                       "cesync: check: --ranks expects a number in 1..1024, not '1K'\n");
    ces_test_tool_says("check --predict alltoall --ranks 0", 2,
                       "cesync: check --predict: --ranks expects a number in 1..1024, not '0'\n");
    /* one rank: its local copies, barriers without a peer */
    ces_test_tool_says("check alltoall --ranks 1 --quiet", 0, "verdict: OK\n");
    ces_test_tool_says("validate sendrecv --ranks 1", 2,
                       "cesync: validate: sendrecv: --ranks must be 2..1024 for a pair, not 1\n");
    ces_test_tool_says("print alltoall --ranks", 2, "cesync: print: --ranks expects a number in 1..1024\n");
    ces_test_tool_says("dot alltoall --bytes 0", 2,
                       "cesync: dot: --bytes expects a size in 1..262144G (suffixes K M G), "
                       "not '0'\n");
    ces_test_tool_says("print alltoall --sync fast", 2,
                       "cesync: print: --sync expects nccl, mono, credit or pull, not 'fast'\n");
    ces_test_tool_says("validate allgather --variant wide", 2,
                       "cesync: validate: --variant expects plain, overlap or early, not 'wide'\n");
    /* standard input a pipe or a file, no schedule named */
    ces_test_tool_says("dot <good/alltoall.ces", 2,
                       "cesync: dot: no schedule named, and standard input is a pipe or a file: "
                       "name - to read it, or alltoall for the built-in default\n");
    ces_test_tool_says("validate <good/alltoall.ces", 2,
                       "cesync: validate: no schedule named, and standard input is a pipe or a "
                       "file: name - to read it, or alltoall for the built-in default\n");
    /* builder options with a file */
    ces_test_tool_says("print good/alltoall.ces --bytes 64", 2,
                       "cesync: print: builder options (--ranks, --bytes, ...) apply to a "
                       "collective, not to the file 'good/alltoall.ces'\n");
    ces_test_tool_says("check --predict good/alltoall.ces --graph", 2,
                       "cesync: check --predict: builder options (--ranks, --bytes, ...) apply to "
                       "a collective, not to the file 'good/alltoall.ces'\n");
    /* a collective the builder refuses */
    ces_test_tool_says("dot sendrecv --pairs 0:0", 2,
                       "cesync: dot: sendrecv: pair 0 (0->0) must name two different ranks of "
                       "0..3\n");
    /* a file's errors: FILE:LINE:COL, FILE: cannot open, no command */
    ces_test_tool_says("check malformed/await_without_record.ces", 2,
                       "cesync: malformed/await_without_record.ces:7:9: 'await ev' has no "
                       "'record ev' before it on rank 1 (r1.s1#0)\n");
    ces_test_tool_says("dot no-such.ces", 2,
                       "cesync: no-such.ces: cannot open: No such file or directory\n");
}

/* The edges of the builder options, each with the message or the program
 * it gives: the last --variant is the one taken (an earlier one's flag was
 * kept beside it), a rank of --pairs past 32 bits is refused (it wrapped to
 * rank 0), --root's range ends at the last rank of CES_MAX_RANKS, broadcast
 * takes --root, a word "-" after the schedule is an unexpected argument,
 * not an option, and a builder error's count is left as a count ("3 slots
 * x", not "3 --slots x"). */
static void test_builder_edges(void **state)
{
    char *a = NULL, *b = NULL;

    (void)state;
    assert_int_equal(ces_test_tool(NULL, "print alltoall --ranks 2 --variant overlap "
                                         "--variant plain", &a), 0);
    assert_int_equal(ces_test_tool(NULL, "print alltoall --ranks 2", &b), 0);
    assert_string_equal(a, b);
    free(a);
    free(b);
    assert_int_equal(ces_test_tool(NULL, "print allgather --ranks 2 --variant early "
                                         "--variant overlap", &a), 0);
    assert_int_equal(ces_test_tool(NULL, "print allgather --ranks 2 --variant overlap", &b), 0);
    assert_string_equal(a, b);
    free(a);
    free(b);
    ces_test_tool_says("validate sendrecv --pairs 4294967296:1", 2,
                       "cesync: validate: --pairs expects sender:receiver[,sender:receiver...], "
                       "not '4294967296:1'\n");
    ces_test_tool_says("validate sendrecv --pairs 0:4294967297", 2,
                       "cesync: validate: --pairs expects sender:receiver[,sender:receiver...], "
                       "not '0:4294967297'\n");
    ces_test_tool_says("validate gather --root 1024", 2,
                       "cesync: validate: --root expects a number in 0..1023, not '1024'\n");
    ces_test_tool_says("validate broadcast --root 1 --ranks 2", 0,
                       "valid: 2 ranks, 1 stream per rank, 2 buffers, 2 signal arrays, "
                       "1 iteration, 15 ops\n");
    ces_test_tool_says("print barrier -", 2,
                       "cesync: print: unexpected argument '-' (one schedule per command; see "
                       "cesync print --help)\n");
    ces_test_tool_says("validate sendrecv --ranks 3 --pairs 0:2,1:2 --bytes 65536G --chunks 1 "
                       "--slots 3", 2,
                       "cesync: validate: sendrecv: the staging buffer, 2 incoming messages x 3 "
                       "slots x a chunk of 70368744177664 bytes, exceeds 2^48 bytes\n");
}

/* `cesync dot -o PICTURE` says how long the layout takes before dot runs
 * (said here with a dot on PATH that draws nothing and exits 3: the note,
 * then why nothing was drawn). */
static void test_dot_command_note(void **state)
{
    char *dir = ces_test_tmpdir(), bin[256], env[300], *out;

    (void)state;
    snprintf(bin, sizeof(bin), "%s/bin", dir);
    ces_test_put_program(bin, "dot", "#!/bin/sh\nexit 3\n");
    snprintf(env, sizeof(env), "PATH='%s'", bin);
    assert_int_equal(ces_test_tool_env(dir, env, "dot alltoall --ranks 8 --iterations 36 -o a.svg",
                                       &out),
                     2);
    assert_string_equal(out, "cesync: dot: drawing 10080 ops (9504 nodes, edges across lanes 48384 "
                             "ranks long); Graphviz may take about 20 s to lay out so many (fewer "
                             "iterations or ranks draw faster, and a .dot file skips the layout)\n"
                             "cesync: dot: dot -Tsvg failed drawing a.svg (exit status 3)\n");
    free(out);
    ces_test_remove_in(dir, "bin/dot\0bin\0");
}

/* What `cesync dot -o PICTURE` needs to draw is judged with its file,
 * before the schedule is read, as check --dot judges it: Graphviz for .svg
 * and .png, and the temporary file that feeds it in TMPDIR, said in the
 * words the drawing said after the schedule's expansion and the dot text
 * (16 ranks of `phase eager x100000` took 5.4 s, with a note that the
 * layout may take 74 hours first; a file of the wrong version said its
 * version error); a .dot file needs neither.  Nothing is left behind. */
static void test_dot_drawing_before_schedule(void **state)
{
    static const struct {
        const char *env, *args, *says;
    } cases[] = {
        {"PATH=/nonexistent-dir", "dot bad.ces -o a.svg",
         "cesync: dot: cannot write a.svg: Graphviz 'dot' is not installed (not found on PATH); "
         "install graphviz or write a .dot file\n"},
        {"PATH=/nonexistent-dir", "dot bad.ces -o no-dir/a.png",
         "cesync: dot: cannot write no-dir/a.png: Graphviz 'dot' is not installed (not found on "
         "PATH); install graphviz or write a .dot file\n"},
        {"PATH=/nonexistent-dir", "dot bad.ces -o a.dot",
         "cesync: bad.ces:1:8: unsupported format version 2: expected 'cesync 1'\n"},
        {"TMPDIR=/nonexistent-tmp", "dot bad.ces -o a.png",
         "cesync: dot: cannot write a.png: cannot create a temporary file in /nonexistent-tmp "
         "(TMPDIR): No such file or directory\n"},
        {"TMPDIR=/nonexistent-tmp", "dot bad.ces -o no-dir/a.png",
         "cesync: dot: cannot create no-dir/a.png: No such file or directory\n"},
        {"TMPDIR=/nonexistent-tmp", "dot bad.ces -o a.dot",
         "cesync: bad.ces:1:8: unsupported format version 2: expected 'cesync 1'\n"},
    };
    char *dir = ces_test_tmpdir(), names[64], *out;

    (void)state;
    put_file(dir, "bad.ces", "cesync 2\n");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(ces_test_tool_env(dir, cases[i].env, cases[i].args, &out), 2);
        if (strcmp(out, cases[i].says) != 0)
            fail_msg("'%s cesync %s' said:\n%s", cases[i].env, cases[i].args, out);
        free(out);
        ces_test_dir_entries(dir, names, sizeof(names));
        assert_string_equal(names, "bad.ces;");
    }
    ces_test_remove_in(dir, "bad.ces\0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_wants_help),
        cmocka_unit_test(test_load_collective),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_load_input_anywhere),
        cmocka_unit_test(test_op_message),
        cmocka_unit_test(test_validate_machine),
        cmocka_unit_test(test_dot_note),
        cmocka_unit_test(test_dot_text_note),
        cmocka_unit_test(test_load_default),
        cmocka_unit_test(test_builder_defaults),
        cmocka_unit_test(test_values_and_dashes),
        cmocka_unit_test(test_errors_name_the_command),
        cmocka_unit_test(test_slots_follow_chunks),
        cmocka_unit_test(test_options_must_apply),
        cmocka_unit_test(test_unknown_name),
        cmocka_unit_test(test_write_file),
        cmocka_unit_test(test_write_file_modes),
        cmocka_unit_test(test_write_not_a_file),
        cmocka_unit_test(test_write_own_descriptor),
        cmocka_unit_test(test_tool_outputs),
        cmocka_unit_test(test_read_only_output),
        cmocka_unit_test(test_signal_leaves_no_temporary),
        cmocka_unit_test(test_output_is_not_input),
        cmocka_unit_test(test_judged_before_schedule),
        cmocka_unit_test(test_model_pipe_after_schedule),
        cmocka_unit_test(test_model_pipe_either_order),
        cmocka_unit_test(test_model_pipe_long_schedule),
        cmocka_unit_test(test_model_pipe_past_bound),
        cmocka_unit_test(test_model_pipe_stdin_closed),
        cmocka_unit_test(test_run_default_ranks),
        cmocka_unit_test(test_output_last_value),
        cmocka_unit_test(test_output_last_not_input),
        cmocka_unit_test(test_same_file),
        cmocka_unit_test(test_output_dash),
        cmocka_unit_test(test_builder_edges),
        cmocka_unit_test(test_dot_command_note),
        cmocka_unit_test(test_dot_drawing_before_schedule),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
