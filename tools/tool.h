/*
 * tools/tool.h - the subcommands of the cesync command.  Each returns the
 * process exit code: 0 fine, 1 a defect was found, 2 bad usage or bad input,
 * 3 incomplete.  main.c dispatches; each subcommand lives in its own file.
 */
#ifndef CES_TOOL_H
#define CES_TOOL_H

#include "cesync.h"

#include <signal.h>
#include <stdbool.h>

enum ces_exit { CES_EXIT_OK = 0, CES_EXIT_DEFECT = 1, CES_EXIT_USAGE = 2, CES_EXIT_INCOMPLETE = 3 };

int ces_cmd_print(int argc, char **argv);    /* tools/print.c */
int ces_cmd_validate(int argc, char **argv); /* tools/print.c */
int ces_cmd_dot(int argc, char **argv);      /* tools/dot.c */
int ces_cmd_check(int argc, char **argv);    /* tools/check.c */
int ces_cmd_gen(int argc, char **argv);      /* tools/gen.c */
int ces_cmd_promela(int argc, char **argv);  /* tools/promela.c */
int ces_cmd_run(int argc, char **argv);      /* tools/run.c */
int ces_cmd_bench(int argc, char **argv);    /* tools/bench.c */
int ces_cmd_devices(int argc, char **argv);  /* tools/devices.c */
int ces_cmd_predict(int argc, char **argv);  /* tools/predict.c: `check --predict` */

/* The most ranks `cesync run` drives (its per-rank arrays), the range of
 * its --ranks and of `cesync devices --ranks`. */
#define CES_TOOL_RUN_RANKS 64u

/* The most ranks `cesync run` gives a collective without --ranks: the code
 * and the model were run up to 8 (README's 4 and 8 GPUs). */
#define CES_TOOL_RUN_DEFAULT_RANKS 8u

/* The ranks of `cesync run COLLECTIVE` without --ranks on a machine of
 * `gpus` GPUs: each GPU one rank, at least 2 (a collective needs them: on
 * one GPU or none they are refused as too many for its GPUs, unless
 * CES_SHARE_GPUS=1) and at most CES_TOOL_RUN_DEFAULT_RANKS (GPUs 0 to 7
 * of more). */
uint32_t ces_tool_run_ranks(uint32_t gpus);

/* The options of check (tools/check.c), NULL-terminated: those that take a
 * value (--predict's --model and --kind among them) and those that take
 * none. */
extern const char *const ces_check_valued[];
extern const char *const ces_check_flags[];

/* Shared by the subcommands (tools/common.c). */

/* A subcommand's own option `opt`, one of the `valued` or `flags` that
 * ces_tool_load was given, in its place on the command line: its value v
 * (NULL for a flag, and for a valued option where the command line ends at
 * it: the option says what it expects), the subcommand's state in ud.
 * A value that is another option (--x) is refused here, as ces_tool_value
 * refuses it, saying what the option expects (--dot --quiet would write a
 * file named --quiet).
 * Once every argument is taken, before the input is read, it is called once
 * more with opt and v NULL: the options together (those that exclude each
 * other or need another) and what they name that no schedule decides (a
 * --model file, an output file of the last value given), judged before the
 * schedule's expansion, which may take seconds.
 * Returns CES_EXIT_OK, or CES_EXIT_USAGE (printed) for a value it refuses. */
typedef int ces_tool_opt_fn(void *ud, const char *opt, const char *v);

/* Loads the schedule named on a subcommand's command line: argv holds the
 * subcommand's arguments (without the subcommand's name).  The input is the
 * first argument, anywhere among the options, that is no option and no
 * option's value: a .ces path ("-" = stdin) or a collective name.  `valued`
 * lists the subcommand's own options that take a value (NULL-terminated;
 * NULL for none), so that their values are not taken for the input, and
 * `flags` those that take none; each of them is given to `opt` with `ud`.
 * Every argument is judged in its place, left to right, before the input
 * is read, and the first wrong one is said: a builder option's value, the
 * subcommand's option's (by `opt`), an unknown option (any other argument
 * that starts with '-', but "-" and the input after "--"; its value is not
 * taken for the schedule) or a second input; then the options together
 * (`opt` with NULL), still before the input is read.
 * Builder options anywhere in argv apply to a collective:
 *   --ranks N --bytes B --iterations K --sync nccl|mono|credit --graph
 *   --root R --pairs a:b,c:d --chunks C --slots S --variant plain|overlap|early
 * (defaults: 4 ranks, 1024 bytes, 1 iteration, mono, eager); --root for
 * another collective than gather, scatter or broadcast, and --pairs,
 * --chunks or --slots for another than sendrecv, are errors.
 * With no input at all, the built-in default is the 4-rank alltoall.  An
 * input without '/' or '.' that is neither a collective nor an existing
 * file is reported as such, with the list of collectives.  *prog may be
 * NULL if the caller does not want the program.  Errors are printed to
 * stderr as "cesync: CMD: ..." with `cmd` the command as the user typed it
 * ("check", "check --predict"), as its own errors name it; a file's parse
 * and expansion errors keep the form "cesync: FILE:LINE:COL: ..." (and
 * "cesync: FILE: cannot open: ...").  Returns CES_EXIT_OK or
 * CES_EXIT_USAGE. */
int ces_tool_load(const char *cmd, struct ces_ctx *ctx, int argc, char **argv,
                  const char *const *valued, const char *const *flags, ces_tool_opt_fn *opt,
                  void *ud, struct ces_graph **out, struct ces_prog **prog);

/* ces_tool_load, the schedule expanded under `watch` (core/prog.h's
 * ces_expand_watch_fn, with ud; called once the options are taken): where
 * it stops the expansion, CES_EXIT_INCOMPLETE, nothing printed, the
 * context's message saying how far it came. */
struct ces_expand_done;
int ces_tool_load_watched(const char *cmd, struct ces_ctx *ctx, int argc, char **argv,
                          const char *const *valued, const char *const *flags,
                          ces_tool_opt_fn *opt, void *ud,
                          int (*watch)(void *ud, const struct ces_expand_done *done),
                          struct ces_graph **out, struct ces_prog **prog);

/* ces_tool_load, where the options (`opt` with NULL) left a model file
 * pending in *beside: a schedule that is no regular file either (standard
 * input from a pipe or a terminal, a named pipe) is read while the
 * model's text is taken as it comes, each as it is ready, so that neither
 * waits for a writer that writes the other first; once the schedule's end
 * came it is parsed, and its error said, whether or not the model came.
 * A schedule that is a regular file or a collective is read as
 * ces_tool_load reads it. */
struct ces_tool_pending;
int ces_tool_load_beside(const char *cmd, struct ces_ctx *ctx, int argc, char **argv,
                         const char *const *valued, const char *const *flags,
                         ces_tool_opt_fn *opt, void *ud, struct ces_tool_pending *beside,
                         struct ces_graph **out);

/* The input that ces_tool_load would take from the same arguments, NULL if
 * none. */
const char *ces_tool_input(int argc, char **argv, const char *const *valued);

/* What ces_tool_load would read the schedule from: its input when that is
 * no collective (a file, or "-" for standard input); NULL otherwise. */
const char *ces_tool_input_read(int argc, char **argv, const char *const *valued);

/* The file that ces_tool_load would read the schedule from: its input when
 * that is neither a collective nor "-" (standard input); NULL otherwise. */
const char *ces_tool_input_file(int argc, char **argv, const char *const *valued);

/* The name the parser gives the schedule it reads in its places
 * (FILE:LINE:COL): its input's file, "<stdin>" for "-" (as ces_prog_parse_file
 * names standard input); NULL for a collective, which has no file. */
const char *ces_tool_input_place(int argc, char **argv, const char *const *valued);

/* Whether paths a and b name one file: the same path, an existing file
 * by another name or a link (device and inode), or, where neither exists,
 * one name in one directory by two paths (./x and x), a link to one not
 * there yet taken as the name it ends at (l -> x and x). */
int ces_tool_same_file(const char *a, const char *b);

/* Refuses an output that would replace an input: `out`, the file option
 * `opt` of command `cmd` writes, names the file `in` it read (the same path,
 * or the same file by another name or a link), or `in` is "-" and `out`
 * the file that standard input reads.  `in` NULL (no file read) passes.
 * Returns CES_EXIT_OK or CES_EXIT_USAGE (printed). */
int ces_tool_out_not_in(const char *cmd, const char *opt, const char *out, const char *in);

/* The -o of a text output of `cmd`: "-" is standard output (*out becomes
 * NULL, as without -o), and a file must not be the input `in`
 * (ces_tool_out_not_in).  Returns CES_EXIT_OK or CES_EXIT_USAGE (printed). */
int ces_tool_text_out(const char *cmd, const char **out, const char *in);

/* True if a is a builder option that takes a value (--ranks, --sync, ...). */
int ces_tool_builder_valued(const char *a);

/* True if a is a builder option that takes none (--graph, --in-place,
 * --directed). */
int ces_tool_builder_flag(const char *a);

/* Whether v (NULL: none) is a value that builder option opt takes, as
 * ces_tool_load judges it.  Returns CES_EXIT_OK or CES_EXIT_USAGE (printed,
 * naming command `cmd`). */
int ces_tool_builder_value(const char *cmd, const char *opt, const char *v);

/* Prints the schedule and builder-option part of ces_tool_load's usage text
 * to stdout, for --help; `run` as `cesync run` takes them: a schedule is
 * needed, and a collective runs on as many ranks as there are GPUs. */
void ces_tool_builder_help(int run);

/* Writes text[0..len) to the file `path`, replacing it only when complete:
 * the text goes to a new temporary file beside it (PATH.XXXXXX, with the
 * mode of the file it replaces, or of a new file), which is then renamed
 * over it.  On an error the temporary file is removed, `path` is left as it
 * was, and "cesync: CMD: cannot create|write|replace PATH: why" is printed,
 * naming command `cmd` as its other errors do.
 * A symbolic link stays (the file it names is replaced; links in a loop
 * are refused, "cannot create PATH: Too many levels of symbolic links"); a
 * path that is no regular file (/dev/null, a named pipe) is written in
 * place, never replaced by a file.
 * A named pipe that no reader opens, or whose reader takes none of the
 * text, for CES_TOOL_DOT_STALL_SECONDS stops it ("no reader opened PATH in
 * 60 s", "cannot write PATH: its reader took none of it for 60 s"): print
 * -o, promela -o, gen -o DIR's files, bench --csv and --model-out waited
 * for ever.  A name of one of the process's descriptors (/dev/stdout) is
 * written as standard output is, without that bound; where a relay stands
 * in for it (ces_tool_streams_wait), what it holds is given first, and its
 * write that failed (a reader gone) is this one's, "cannot write
 * /dev/stdout: Broken pipe", as where the command writes it itself.
 * Returns CES_EXIT_OK or CES_EXIT_USAGE. */
int ces_tool_write_file(const char *cmd, const char *path, const char *text, size_t len);

/* Gives the command's standard output and error, where another program
 * left their description O_NONBLOCK (its end of a pipe, shared: `python3
 * -c 'fcntl(1, F_SETFL, O_NONBLOCK); execvp(cesync)' | (sleep 2; wc -c)`)
 * and they are a pipe or a terminal, a description of their own that
 * waits, opened again through /proc/self/fd/N: a write that the reader
 * was too slow for failed, "cannot write to standard output: Resource
 * temporarily unavailable" (exit 2), and a line on standard error was
 * lost.  The shared description keeps its flags (the other program's
 * writes do not wait).  Where it cannot be opened again (a socket, no
 * /proc, a terminal that would be another: ces_file_reopen) a pipe stands
 * in for it under its number, one for both where standard error is
 * standard output's file, and a thread gives what that pipe takes to the
 * description, waiting with poll(2) where it takes nothing, until
 * ces_tool_streams_end (printed text failed there as above); a read of
 * that pipe that fails ends the command at once, exit CES_EXIT_USAGE,
 * said on standard error ("cannot write to standard output: the pipe that
 * stood in for it could not be read: ..."), after what standard error's
 * own relay's pipe held then and before anything after, its outputs'
 * temporary files removed; where it loses
 * none of the command's text (the pipe empty with no writer left, or once
 * ces_tool_streams_end gave it all and decided the exit status) the
 * status stands, and what a program the command started wrote there
 * after its end, held in the pipe or still to come, is said lost ("cesync:
 * CMD: what a program it started wrote to standard output after it ended
 * is lost (N bytes held): ...", where the process has not exited first).
 * The thread blocks the signals but SIGPIPE and SIGTTOU (a
 * background job's write to its terminal under tostop stops it, as the
 * command's own).  A regular
 * file or /dev/null so left, which takes every write whole, stays as it
 * is, with no pipe or thread.  Called first
 * by main, before anything is written: the standard streams' FILEs and
 * the programs the command starts get the new description, or the pipe,
 * under the same number (dup2). */
void ces_tool_streams_wait(void);

/* The time bound of the command (--max-seconds S: its deadline, as
 * ces_now, and S) for what ces_tool_streams_wait's relay gives a standard
 * output or error that it could not open again: past it none of the rest
 * is waited for, said by ces_tool_streams_end (it waited for the reader
 * for ever). */
void ces_tool_streams_bound(double deadline, double seconds);

/* Whether standard output or error fd (1 or 2) is a terminal, as isatty,
 * or, where ces_tool_streams_wait's relay stands in for it (a terminal
 * left O_NONBLOCK without /proc), the description it stands in for is
 * one: check's and gen's progress are said there by default. */
bool ces_tool_isatty(int fd);

/* Ends what ces_tool_streams_wait started: the standard streams flushed,
 * the description again under its number, what a relay's pipe holds
 * given to it (not waited for to the pipe's end, which a child's child
 * that outlived the command may hold), and a relay's failure said as
 * command cmd's (NULL: none), a write that failed as "cannot write to
 * standard output: ..." (exit CES_EXIT_USAGE), the time bound that passed
 * with some left as "standard output not written whole (--max-seconds S):
 * ..." (exit CES_EXIT_INCOMPLETE, or rc where it is CES_EXIT_DEFECT); a
 * failed write to standard error alone is lost unsaid and leaves rc, as
 * where the command writes there itself;
 * where rc is CES_EXIT_USAGE the command has said its own failure and no
 * more is said.  Returns the exit status.  Once: later calls return rc. */
int ces_tool_streams_end(const char *cmd, int rc);

/* The description that ces_tool_streams_wait's relay stands in for under
 * number fd (a socket left O_NONBLOCK), once what the relay held of it is
 * given (or lost past the time bound): an output written under the bound
 * goes there itself, and its own bound's message says where it stopped;
 * -1 where no relay stands in for fd.  It stays the relay's (not to be
 * closed). */
int ces_tool_streams_stood_in(int fd);

/* Ignores SIGPIPE while an output is written, its disposition kept in
 * *was for sigaction(SIGPIPE, was, NULL): a pipe whose reader goes away
 * fails the write (EPIPE), said as any failing output, where the signal
 * ended the command with no word (exit 141).  Whether it was ignored. */
bool ces_tool_sigpipe_ignore(struct sigaction *was);

/* Whether the output file `path` of command `cmd` can be written, tried
 * before the work that fills it (a run of minutes must not end in "cannot
 * write"): the temporary file that writes it whole (ces_tool_write_file,
 * ces_dot_write: PATH.XXXXXX beside it, then renamed over it) is created and
 * removed again; a directory is refused, and a path that exists as no
 * regular file (/dev/null, a named pipe) is asked with access(2), unless
 * it names one of the process's descriptors (/dev/fd/N, a link to one),
 * which must be open for writing.  Returns
 * CES_EXIT_OK, or CES_EXIT_USAGE with "cesync: CMD: cannot write|create
 * PATH: why" printed. */
int ces_tool_out_probe(const char *cmd, const char *path);

/* The number s (plain decimal digits, min..max) given to option `opt` of
 * command `cmd`, into *out; otherwise "cesync: CMD: OPT expects a number in
 * MIN..MAX (NOTE), not 'S'" (without " (NOTE)" where note is NULL), every
 * command's one wording of a number refused: 0, -1, 1x, one past 2^64, the
 * empty one alike; s NULL (the line ends at the option) is said without
 * "not", and another option (--x) as ces_tool_value says it.  Returns
 * CES_EXIT_OK or CES_EXIT_USAGE (printed). */
int ces_tool_number(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max,
                    const char *note, uint64_t *out);

/* ces_tool_number of a count that fits 32 bits, without a note. */
int ces_tool_count(const char *cmd, const char *opt, const char *s, uint32_t min, uint32_t max,
                   uint32_t *out);

/* The size s (ces_tool_parse_size: digits, then K, M or G) given to option
 * `opt` of command `cmd`, min..max bytes, into *out; otherwise, as
 * ces_tool_number says a number, "cesync: CMD: OPT expects a size in
 * MIN..MAX (suffixes K M G; NOTE), not 'S'", the bounds with the largest
 * suffix that says them exactly (4..16G). */
int ces_tool_size(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max,
                  const char *note, uint64_t *out);

/* Parses an unsigned number with an optional K/M/G suffix (powers of 1024). */
int ces_tool_parse_size(const char *s, uint64_t *out);

/* Whether v is a decimal number as written by hand ("2", "0.5", "1e3") and
 * its value, in *out; strtod's hexadecimal, blanks, inf and nan are not. */
int ces_tool_decimal(const char *v, double *out);

/* The value v of option opt of cmd in seconds, a finite number > 0, in
 * *out; a missing one and another option are refused as ces_tool_value
 * refuses them.  Returns CES_EXIT_OK or CES_EXIT_USAGE (printed). */
int ces_tool_seconds(const char *cmd, const char *opt, const char *v, double *out);

/* True if s is in the NULL-terminated list (NULL: an empty one). */
int ces_tool_listed(const char *const *list, const char *s);

/* True if argv[0..argc) holds --help or -h, except as the argument after "--"
 * (the schedule, or bench's COLL, whatever its name). */
int ces_tool_wants_help(int argc, char **argv);

/* The value v of option `opt` of command `cmd` (NULL: the option came
 * last): refuses a missing one and one that is another option (--x), which
 * would otherwise be taken as a file name, with "cesync: CMD: OPT expects
 * WHAT".  Returns CES_EXIT_OK or CES_EXIT_USAGE (printed). */
int ces_tool_value(const char *cmd, const char *opt, const char *v, const char *what);

/* The ops a picture of g draws: every block's once, a graph phase's
 * replays or not. */
uint64_t ces_tool_dot_ops(const struct ces_graph *g);

struct ces_dot_size;

/* The size of g's picture for the note below (ces_dot_emit_sized, over
 * `overlay` where not NULL); an error code where it could not be drawn,
 * CES_ERR_TIMEOUT where `deadline` (ces_now's; 0: none) passed
 * first. */
int ces_tool_dot_size(struct ces_ctx *ctx, const struct ces_graph *g,
                      const struct ces_dot_overlay *overlay, struct ces_dot_size *size,
                      double deadline);

/* Before Graphviz lays out a picture of `ops` ops and `size` into `path`
 * (.svg, .png): a line on stderr where the layout may take 10 s or more,
 * with about how long (its nodes and the ranks its edges across lanes
 * span decide it, not the ops alone).  check --dot says it before the
 * search, dot before it draws. */
void ces_tool_dot_note(const char *cmd, uint64_t ops, const struct ces_dot_size *size,
                       const char *path);

/* The seconds that an output file that is no regular file (a named pipe)
 * may wait for a reader to open it, or for its reader to take more of it
 * (the dot text, Graphviz's picture, a text file), where no --max-seconds
 * bounds the command (dot -o, check --dot, bench --plot, which has none,
 * and every file of ces_tool_write_file): a named pipe that no one read
 * held it for ever. */
#define CES_TOOL_DOT_STALL_SECONDS 60.0
_Static_assert((int)CES_TOOL_DOT_STALL_SECONDS == 60, "dot's and check's help say 60 s");

/* The memory bound of check and dot where --max-memory is not given: half
 * of this machine's memory, so that a search or a picture too large for it
 * ends with a line that says so instead of being killed or swapping (0
 * when unknown: no bound). */
uint64_t ces_tool_default_memory(void);

/* What a picture holds (its dot text and the tables that make it, in a
 * context of its own: ces_tool_pic_ctx), counted against --max-memory as
 * a search's model and states are: each block starts with its size, and
 * one that would take `held` past `limit` (0: no bound) is refused, `over`
 * set; the picture then fails as out of memory, which check --dot and dot
 * say as the bound (check's 109 MiB of text for 16 ranks of 'phase eager
 * x30000' were written under --max-memory 50M). */
struct ces_tool_pic_mem {
    uint64_t limit, held;
    bool over;
};

/* A context whose allocations are counted in *m under `limit` bytes (0:
 * none; the context itself among them, not refused); NULL where it cannot
 * be made. */
struct ces_ctx *ces_tool_pic_ctx(uint64_t limit, struct ces_tool_pic_mem *m);

/* Why the memory bound of `limit` bytes stopped a picture, into buf as
 * check --dot and dot say it after "not written: ": rc CES_ERR_LIMIT,
 * Graphviz out of the `left` bytes the text left it (ces_dot_memory_floor
 * at least); any other, its text and tables past the bound. */
void ces_tool_pic_memory_why(char *buf, size_t size, int rc, uint64_t limit, uint64_t left);

struct ces_dot_bounds;

/* The bounds that dot and check write a picture under, and bench its
 * plot (ces_dot_write_by): `deadline` (ces_now's, --max-seconds from the
 * command's start; 0: none), Graphviz's data segment `memory` (0: none),
 * and without a deadline the stall of CES_TOOL_DOT_STALL_SECONDS (a
 * deadline replaces it). */
void ces_tool_dot_bounds(struct ces_dot_bounds *b, double deadline, uint64_t memory);

/* Before a picture's dot text of `len` bytes, of `ops` ops, is written as
 * text to `path` (NULL: standard output): a line on stderr where it is 16
 * MiB or more, with its size (the alltoall of 1024 ranks draws about 900
 * MB, which a user who asked for a file may not expect).  dot says it for
 * -o x.dot and standard output, check --dot for x.dot. */
void ces_tool_dot_text_note(const char *cmd, uint64_t ops, size_t len, const char *path);

/* Takes option `opt` if it is `--kind K` or `--model FILE`, its value v
 * (NULL: none given) into *kind or *model_path: 1 taken, 0 neither, -1 a
 * missing value or a kind there is none of (printed, naming `cmd`, as
 * ces_tool_machine says it). */
int ces_tool_machine_opt(const char *cmd, const char *opt, const char *v, const char **kind,
                         const char **model_path);

/* A --model file that is no regular file (a named pipe, a pipe such as
 * <(producer) or /dev/fd/N, a terminal): opened by ces_tool_machine
 * without waiting for a writer, its text taken as it comes while a
 * schedule that is no regular file either is read (ces_tool_load_beside),
 * so that a producer may write either first, and read to its end once the
 * schedule is read and expanded (ces_tool_machine_read).  Zeroed by its
 * owner, who ends it with ces_tool_pending_end. */
struct ces_tool_pending {
    const char *path; /* the file: NULL where none is pending */
    int fd;       /* -1 once closed early: read past what its error needs */
    size_t max;   /* the most a model file holds, as ces_model_load reads it */
    char *text;   /* what came, up to one byte past max or a NUL (malloc) */
    size_t len, cap;
    bool nul;     /* the text holds a NUL byte */
    int err;      /* a read's errno, ENOMEM where no memory held it; 0 none */
    bool end;     /* its end came, a read failed, or it was closed early */
};

/* Closes and frees what *p holds (nothing where none is pending). */
void ces_tool_pending_end(struct ces_tool_pending *p);

/* The machine of `--kind K` (NULL: h200) with `--model FILE`'s overrides
 * (NULL: none) in *out; `in` the schedule's input as ces_tool_input names
 * it (NULL: none), whose "-" (standard input) the model file must not be
 * read from as well.  Called before the schedule is read, it reads a
 * regular file (and says one that is not there or is a directory); a
 * model file that is none, whose writer may wait for the schedule's
 * reading or write it only after the model, is opened without waiting
 * for a writer or reading it (*pend set, *out holding the kind's table),
 * for ces_tool_load_beside and ces_tool_machine_read.  Returns
 * CES_EXIT_OK, or CES_EXIT_USAGE with the unknown kind (and the known
 * ones) or the model file's error printed. */
int ces_tool_machine(const char *cmd, struct ces_ctx *ctx, const char *kind,
                     const char *model_path, const char *in, struct ces_model *out,
                     struct ces_tool_pending *pend);

/* Reads the pending model file `pend` to its end (waiting for its writer:
 * a model never written is waited for as a schedule is) over the table in
 * *m, in ces_model_load's words.  Returns CES_EXIT_OK, or CES_EXIT_USAGE
 * with the file's error printed. */
int ces_tool_machine_read(struct ces_ctx *ctx, struct ces_tool_pending *pend,
                          struct ces_model *m);

/* Where the library's error `why` names an op of the schedule by its place,
 * "r0.s0#3 (line 9:6): flush is not supported", and the schedule was read
 * (place: its file or <stdin>, ces_tool_input_place; NULL: a built-in),
 * the message of command `cmd` saying it as an error of the file at that
 * place, as the parser says its own, for an editor to go to: "CMD:
 * PLACE:9:6: LEAD: r0.s0#3: flush is not supported" (without "LEAD: " for
 * a NULL lead), a new string to free.  NULL where it names none (or no
 * memory): the caller says `why` its own way. */
char *ces_tool_op_message(const char *cmd, const char *place, const char *why, const char *lead);

/* Says `why`, the library's or the command's refusal of the schedule read
 * from `place` (ces_tool_input_place; NULL: a built-in), where it names a
 * place of the file (an op's, or a header setting's: " (line 2:7)", as
 * ces_setting_where writes it) as an error of the file there, "CMD:
 * PLACE:2:7: ..." (ces_tool_op_message); else "CMD: why".  Returns
 * CES_EXIT_USAGE. */
int ces_tool_fail_at(const char *cmd, const char *place, const char *why);

/* Refuses a `--` of command `cmd` that would name a second schedule, `input`
 * being the first.  Returns CES_EXIT_USAGE (printed). */
int ces_tool_second_schedule(const char *cmd, const char *input);

/* Refuses argument `arg` of command `cmd` that no option of it takes:
 * "unknown option" for -x, "unexpected argument" for a word, with a pointer
 * to cmd's --help.  Returns CES_EXIT_USAGE (printed). */
int ces_tool_unexpected(const char *cmd, const char *arg);

/* Prints "cesync: " + message + newline to stderr, each character of the
 * message as ces_spell (internal.h) says it: each byte of a control (C0
 * but tab, a newline too: the message is one line; DEL; C1), of a
 * bidirectional formatting character and of no valid UTF-8 sequence as
 * \xNN, a backslash as \\. */
void ces_tool_say(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A path given, as the messages name it: as it is, but the empty name as
 * '' (the library's "cannot create '': ..."), which would otherwise leave a
 * gap where the name goes ("-o : the name must end in ..."). */
const char *ces_tool_path(const char *path);

/* Writes a name or value given (a file name) to f, in a report on
 * standard output, as ces_tool_say says it. */
void ces_tool_put_name(FILE *f, const char *name);

/* ces_tool_say, then returns CES_EXIT_USAGE. */
int ces_tool_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif
