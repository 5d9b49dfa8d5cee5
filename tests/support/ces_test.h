/*
 * tests/support/ces_test.h - what every cmocka test here shares: cmocka's
 * headers in the right order, a counting allocator that can fail on demand,
 * and fixture helpers.
 */
#ifndef CES_TEST_H
#define CES_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <cmocka.h>

#include "cesync.h"

/* Counting allocator.  Every test context uses it; a test ends by asserting
 * that no block is still live. */
struct ces_test_alloc {
    long live;        /* blocks allocated and not freed */
    long calls;       /* allocations attempted (malloc + realloc) */
    long fail_at;     /* fail the allocation with this 1-based call number; 0 = never */
    size_t largest;   /* the largest block asked for */
};

/* Hooks that count into *state. */
struct ces_alloc ces_test_hooks(struct ces_test_alloc *state);

/* A context over a fresh counting allocator; ces_test_ctx_end destroys it and
 * asserts zero live blocks. */
struct ces_ctx *ces_test_ctx(struct ces_test_alloc *state);
void ces_test_ctx_end(struct ces_ctx *ctx, struct ces_test_alloc *state);

/* Runs `body` with allocation failures injected at call 1, 2, ... until it
 * succeeds without a failure; each failing run must return CES_ERR_NOMEM and
 * leave zero live blocks.  Returns the number of failure points tried. */
long ces_test_alloc_failures(int (*body)(struct ces_ctx *ctx, void *arg), void *arg);

/* Reads a whole file (NULL-terminated, malloc'd with the C allocator) or
 * fails the test. */
char *ces_test_read_file(const char *path, size_t *len);
/* Reads a stream to its end (NULL-terminated, malloc'd with the C
 * allocator, its length in *len where len is not NULL) or fails the test;
 * the stream stays open. */
char *ces_test_read_stream(FILE *f, size_t *len);
/* Reads descriptor fd until a read gives nothing or fails (a terminal's
 * master fails once every slave is closed), as ces_test_read_stream does;
 * fd stays open. */
char *ces_test_read_fd(int fd, size_t *len);

/* Lists files in a fixtures subdirectory with a suffix, sorted; returns the
 * count, paths in *out (malloc'd array of malloc'd strings). */
size_t ces_test_list(const char *subdir, const char *suffix, char ***out);
void ces_test_list_free(char **paths, size_t n);

/* The first line of `text` that starts with `key` (e.g. "# expect-error: "),
 * with the key and trailing newline removed, malloc'd; NULL if absent. */
char *ces_test_directive(const char *text, const char *key);

/* Runs `cesync ARGS` (the built tool) through the shell in directory `dir`
 * (NULL: the fixtures directory); returns its exit code and its stdout and
 * stderr together in *out (malloc'd).  Fails the test if it did not exit. */
int ces_test_tool(const char *dir, const char *args, char **out);
/* The same with the shell's variable assignments `env` ("PATH=...") in
 * the tool's environment. */
int ces_test_tool_env(const char *dir, const char *env, const char *args, char **out);

/* `cesync ARGS` in the fixtures directory exits `rc` and prints exactly
 * `want` (stdout and stderr together); fails the test otherwise. */
void ces_test_tool_says(const char *args, int rc, const char *want);

/* The graph of a schedule written as .ces text (parsed and expanded; fails
 * the test if it does not). */
struct ces_graph *ces_test_text_graph(struct ces_ctx *ctx, const char *text);
/* A graph built op by op (a file holds no u64 value past 2^63-1): 2 ranks,
 * u64 signal f; rank 0 writes f[0]@1 = w, rank 1 waits f[0] cmp v. */
struct ces_graph *ces_test_u64_pair(struct ces_ctx *ctx, uint64_t w, uint8_t cmp, uint64_t v);

/* The checker's verdict on g, searched to the end (fails the test if the
 * search does not complete within 30 s). */
uint32_t ces_test_verdict(struct ces_ctx *ctx, const struct ces_graph *g);
/* The same with the check's flags (enum ces_check_flags). */
uint32_t ces_test_verdict_flags(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t flags);

/* r and w, two checks of one schedule, agree (`what` names it, `cut` what
 * w's check changed): verdict, every count of the search, and each
 * counterexample (its class and replay string). */
void ces_test_same_report(const char *what, const char *cut, const struct ces_check_report *r,
                          const struct ces_check_report *w);

/* The parameters of collective coll in one call: protocol proto, `ranks`
 * ranks, `bytes` a rank, `iterations` calls of phase kind phase; the rest
 * ces_coll_params_init's. */
struct ces_coll_params ces_test_coll_params(uint32_t coll, uint32_t proto, uint32_t ranks,
                                            uint64_t bytes, uint32_t iterations, uint32_t phase);

/* The collective p built out of place (in the variant that p->flags name,
 * if any; CES_COLL_F_INPLACE is left out) with the ranks of `mask` (bit r:
 * rank r; ranks <= 64) in place: on each, the region that holds its own
 * part out of place renamed to the block where that part belongs
 * (allgather: send is recv + r*bytes; gather: the root's send is recv +
 * root*bytes; scatter: the root's recv is send + root*bytes; broadcast:
 * the root's send is recv), and the copy this makes onto itself dropped,
 * with its batch if that leaves it empty.  Validated; fails the test on
 * any error (tests/support/inplace.c). */
struct ces_graph *ces_test_in_place_on(struct ces_ctx *ctx, const struct ces_coll_params *p,
                                       uint64_t mask);

/* The tables of `from` (buffers, signals, events, constants, in order, so
 * indices stay) into the empty graph g; fails the test on any error. */
void ces_test_copy_tables(const struct ces_graph *from, struct ces_graph *g);

/* Where the tests put their temporary files: $TMPDIR, or /tmp where that
 * is unset or empty. */
const char *ces_test_tmp_base(void);

/* An environment variable as a test found it (a copy, NULL where unset),
 * and putting it back after the test set its own: set again or unset, the
 * copy freed. */
char *ces_test_env_save(const char *name);
void ces_test_env_restore(const char *name, char *saved);

/* The longest TMPDIR the tests take (ces_test_tmpdir fails the test with a
 * longer one, naming it), and the size of a buffer for a directory made
 * in it ("TMPDIR/ces_test_XXXXXX"). */
#define CES_TEST_TMP_BASE_MAX 64
#define CES_TEST_TMPDIR_SIZE 96

/* A new empty directory in ces_test_tmp_base (a static buffer: one at a
 * time), removed with what it still holds when the process that made it
 * exits (a test whose assertion failed, or that did not remove it). */
char *ces_test_tmpdir(void);

/* The same, without cmocka (the GPU tests, plain programs): a new empty
 * directory into dir (size at least CES_TEST_TMPDIR_SIZE), which the
 * caller removes (ces_test_remove_tree).  Returns 0, or -1 with errno
 * (ENAMETOOLONG: a TMPDIR longer than CES_TEST_TMP_BASE_MAX). */
int ces_test_mkdtemp(char *dir, size_t size);

/* Removes path, a directory with everything under it (made writable
 * first: a test may have taken that away), a link not followed; nothing
 * where it does not exist. */
void ces_test_remove_tree(const char *path);

/* The longest socket name ces_test_sock_path takes: with the longest
 * TMPDIR, 64 + "/ces_test_XXXXXX/" + 26 = 107 characters, what the path of
 * a Unix socket holds (sun_path's 108 bytes, its NUL included). */
#define CES_TEST_SOCK_NAME_MAX 26

/* A path for a Unix socket named `name` in a new ces_test_tmpdir (so
 * removed at exit with what a rank left there), into buf. */
void ces_test_sock_path(char *buf, size_t size, const char *name);

/* A new file in ces_test_tmp_base, already unlinked (memory that forked
 * processes share, a descriptor to pass): its descriptor, or -1 with
 * errno.  Asserts nothing: a forked child may make one. */
int ces_test_tmpfile(void);

/* Sleeps ms milliseconds. */
void ces_test_sleep_ms(long ms);

/* The entries of directory dir, "name;" each, sorted, into out. */
void ces_test_dir_entries(const char *dir, char *out, size_t size);

/* Removes each of `names` in directory dir (relative paths, each ended by
 * '\0', the list by an empty one; a directory after what it held), then dir,
 * asserting each removal. */
void ces_test_remove_in(const char *dir, const char *names);

/* Starts a reader of the named pipe `fifo` that takes nothing for 20 s:
 * where `opened`, one holding the pipe open from before it returns (however
 * late the child runs; the only holder), else one that has not opened it.
 * Returns the child, which ces_test_end_reader ends. */
pid_t ces_test_idle_reader(const char *fifo, int opened);

/* Kills and reaps a ces_test_idle_reader. */
void ces_test_end_reader(pid_t pid);

/* Makes directory bindir (new) holding an executable `name`, the shell
 * script `script`: a stand-in for a program found on PATH. */
void ces_test_put_program(const char *bindir, const char *name, const char *script);

/* Creates (or truncates) the file `path` holding text. */
void ces_test_put_file(const char *path, const char *text);

/* How many times `needle` stands in `hay`, overlapping ones counted. */
size_t ces_test_count(const char *hay, const char *needle);

/* Writes `s` n times at buf + at (buf holds `size` bytes, the result
 * NUL-terminated, cut where it does not fit); returns the length after. */
size_t ces_test_repeat(char *buf, size_t size, size_t at, const char *s, unsigned n);

/* docs/CLI.md's section `section` ("## check", from its heading to the
 * next "## ") holds `words`, every run of blanks and newlines in either
 * read as one space; fails the test otherwise.  The rules a command's
 * --help leaves out stand there. */
void ces_test_cli_doc_says(const char *section, const char *words);

#endif
