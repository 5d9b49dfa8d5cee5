/*
 * tests/fuzz/fuzz_ces.c - one input through everything that reads text:
 * the .ces parser, the printers, the expander, the checker and its replay
 * strings, the dot and Promela emitters, the cost model, the CUDA
 * backend's lowering, the model file parser, and the fault and queue map
 * readers; then the readers again with one allocation failing (which one
 * the input's hash picks), where the call it fails must return an error
 * and every block must be freed.  Besides
 * crashes and leaks (every block of a context is counted), it asserts what
 * the API promises of any input it accepts:
 *   - canonical text (ces_prog_print) parses, and prints again the same;
 *   - the program and its canonical text expand to equal graphs;
 *   - the graph's text (ces_graph_print) loads to a graph that prints the
 *     same;
 *   - a prediction's critical path parts add up to its total;
 *   - every rank lowers into CUDA calls eagerly (captured where no wait's
 *     value would freeze), each memop call of 1..255 ops, each stream's
 *     calls in its ops' order;
 *   - the search with and without partial-order reduction, where both end
 *     within their bounds, give the same verdict;
 *   - under the watchdog model nothing stays blocked, and the races and
 *     mismatches are those found without it;
 *   - each defect's replay string re-runs an execution with that defect;
 *   - the fault sweep of a small graph, within its bounds, under a memory
 *     bound and with its time bound spent, checks the first of the faults
 *     this file lists from the unrolled program, in position order, and
 *     counts the others in its rest, each kind's, naming the first and the
 *     last, with its bound; under the memory bound one more row would not
 *     have stayed below it, with the time bound spent it checks none;
 *   - a model file that parses prints as a file that parses to the same
 *     text;
 *   - the input's first line, read as a fault (--fault) or a queue map
 *     (--queues, for 3 ranks of 3 streams), formats as text that parses to
 *     the same.
 * A broken promise prints both texts and aborts.  Built as a libFuzzer
 * target with -DCES_FUZZ=ON (clang), and always as fuzz_replay, which runs
 * it over files (tests/fuzz/CMakeLists.txt).
 */
#include "fuzz.h"

#include "ces_test.h"
#include "lower.h" /* backend/cuda: the lowering is pure C, built everywhere */
#include "prog.h"  /* core: the program's phases, counted before expanding */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The search's bounds per input: enough to reach every kind of verdict on
 * a small schedule, small enough for thousands of inputs a second. */
#define FUZZ_MAX_STATES 3000
#define FUZZ_MAX_STATES_FULL 30000
#define FUZZ_MAX_SECONDS 1.0
/* The most ops a run of a graph may execute (each block's ops times its
 * repetitions) for it to go on past the parser and the expander: the
 * checker's counterexample, the model and the lowering step through them,
 * and a short text that repeats a phase 112,737 times (a counterexample of
 * 225,484 steps, printed in three forms) took 19 s an input under
 * libFuzzer's instrumentation. */
#define FUZZ_MAX_OPS 20000u
/* The most an input's program may expand to for it to be expanded at all:
 * its ops plus an op list per block and rank, counted from the program
 * alone.  A graph phase is one block whatever it replays, so this bounds
 * the expander's work before it starts: a 6-line text of `phase eager
 * x612736` writing $i on 2 ranks (1.2 million ops, within the library's
 * bounds of docs/FORMAT.md) took 23 s an input in its expansions (the
 * program's, the canonical text's and those with an allocation failing). */
#define FUZZ_MAX_EXPANDED 100000u
/* The fault sweep's graphs: at most this many ops in a run (so at most
 * 4 times as many faults: a drop, a delay and a stop at each op, and a
 * stop of its rank as a whole), each check at most this many states, a
 * sweep at most this many seconds (two checks a fault: a sweep of 96
 * faults of a `connections any` graph took 2.9 s an input under
 * libFuzzer's instrumentation before its time bound; where it passes, the
 * faults left are the sweep's rest, whose promises hold as well). */
#define FUZZ_SWEEP_MAX_OPS 24u
#define FUZZ_SWEEP_MAX_FAULTS (4 * FUZZ_SWEEP_MAX_OPS)
#define FUZZ_SWEEP_MAX_STATES 100
#define FUZZ_SWEEP_MAX_SECONDS 0.1
/* The graph shape a queue map is read for: 3 ranks of 3 streams. */
#define FUZZ_MAP_RANKS 3
#define FUZZ_MAP_STREAMS 3

/* A device with every feature the lowering asks about. */
static const struct ces_cuda_caps full_caps = {1, 1, 0, CES_CUDA_SPLIT_WAIT_BYTES};

static void broken(const char *promise, const char *a, const char *b)
{
    fprintf(stderr, "fuzz: broken promise: %s\n--- first\n%s\n--- second\n%s\n", promise,
            a != NULL ? a : "", b != NULL ? b : "");
    abort();
}

static int same_text(const char *a, size_t la, const char *b, size_t lb)
{
    return la == lb && memcmp(a, b, la) == 0;
}

/* Whether p expands to little enough for the expander (FUZZ_MAX_EXPANDED):
 * each eager iteration a block of the body, a graph phase one block. */
static int small_prog(const struct ces_prog *p)
{
    uint64_t size = 0;

    for (size_t f = 0; f < p->phases.len; f++) {
        const struct ces_pphase *ph = &CES_VEC_AT(&p->phases, struct ces_pphase, f);
        uint64_t block = p->ranks;

        for (size_t k = 0; k < ph->nops; k++)
            block += ces_prog_line_ops(p, &CES_VEC_AT(&p->ops, struct ces_pop, ph->first_op + k));
        if (block > FUZZ_MAX_EXPANDED)
            return 0;
        size += block * (ph->kind == CES_PHASE_GRAPH ? 1 : ph->reps);
        if (size > FUZZ_MAX_EXPANDED)
            return 0;
    }
    return 1;
}

/* Canonical text is a fixed point, and expands as the program did.
 * Returns the program's graph, NULL if it does not expand or is not
 * expanded (small_prog). */
static struct ces_graph *canonical(struct ces_ctx *ctx, const struct ces_prog *p)
{
    struct ces_prog *p2 = NULL;
    struct ces_graph *g = NULL, *g2 = NULL;
    char *t1 = NULL, *t2 = NULL;
    size_t l1 = 0, l2 = 0;

    if (ces_prog_print(ctx, p, &t1, &l1) != CES_OK)
        broken("ces_prog_print succeeds on a parsed program", ces_ctx_last_error(ctx), NULL);
    if (ces_prog_parse(ctx, t1, l1, "canonical", &p2) != CES_OK)
        broken("canonical text parses", t1, ces_ctx_last_error(ctx));
    if (ces_prog_print(ctx, p2, &t2, &l2) != CES_OK || !same_text(t1, l1, t2, l2))
        broken("canonical text prints the same again", t1, t2);
    if (small_prog(p)) {
        int e1 = ces_prog_expand(ctx, p, &g);
        int e2 = ces_prog_expand(ctx, p2, &g2);

        /* to equal graphs: a printer that dropped needed parentheses
         * (2-(3-1) as 2-3-1) writes a fixed point that expands to other
         * values */
        if ((e1 == CES_OK) != (e2 == CES_OK))
            broken("a program and its canonical text expand alike", t1,
                   ces_ctx_last_error(ctx));
        if (e1 == CES_OK && !ces_graph_equal(g, g2))
            broken("a program and its canonical text expand to equal graphs", t1, NULL);
    }
    ces_graph_destroy(g2);
    ces_prog_destroy(p2);
    ces_free(ctx, t1);
    ces_free(ctx, t2);
    return g;
}

/* Whether a run of g is short enough for the readers after the expander
 * (FUZZ_MAX_OPS). */
static int short_graph(const struct ces_graph *g)
{
    uint64_t ops = 0;

    for (uint32_t b = 0; b < ces_graph_nblocks(g); b++)
        for (uint32_t r = 0; r < ces_graph_ranks(g); r++) {
            uint32_t n;

            (void)ces_graph_ops(g, b, r, &n);
            ops += (uint64_t)n * ces_graph_block(g, b).reps;
        }
    return ops <= FUZZ_MAX_OPS;
}

/* g's run ops (each block's ops times its repetitions), where they are
 * FUZZ_SWEEP_MAX_OPS or fewer, else FUZZ_SWEEP_MAX_OPS + 1. */
static uint32_t sweep_ops(const struct ces_graph *g)
{
    uint64_t ops = 0;

    for (uint32_t b = 0; b < ces_graph_nblocks(g) && ops <= FUZZ_SWEEP_MAX_OPS; b++)
        for (uint32_t r = 0; r < ces_graph_ranks(g); r++) {
            uint32_t n;

            (void)ces_graph_ops(g, b, r, &n);
            ops += (uint64_t)n * ces_graph_block(g, b).reps;
        }
    return ops <= FUZZ_SWEEP_MAX_OPS ? (uint32_t)ops : FUZZ_SWEEP_MAX_OPS + 1;
}

/* The graph's text loads to a graph that prints the same. */
static void reload(struct ces_ctx *ctx, const struct ces_graph *g)
{
    struct ces_prog *p = NULL;
    struct ces_graph *g2 = NULL;
    char *t1 = NULL, *t2 = NULL;
    size_t l1 = 0, l2 = 0;

    if (ces_graph_print(ctx, g, 0, &t1, &l1) != CES_OK)
        broken("ces_graph_print succeeds on a valid graph", ces_ctx_last_error(ctx), NULL);
    if (ces_prog_parse(ctx, t1, l1, "printed", &p) != CES_OK ||
        ces_prog_expand(ctx, p, &g2) != CES_OK)
        broken("a graph's text loads", t1, ces_ctx_last_error(ctx));
    if (ces_graph_print(ctx, g2, 0, &t2, &l2) != CES_OK || !same_text(t1, l1, t2, l2))
        broken("a graph's text loads to a graph that prints the same", t1, t2);
    ces_graph_destroy(g2);
    ces_prog_destroy(p);
    ces_free(ctx, t1);
    ces_free(ctx, t2);
}

/* Each defect's replay string (with the report's queue map) re-runs an
 * execution with that defect. */
static void replay(struct ces_ctx *ctx, const struct ces_graph *g,
                   const struct ces_check_report *r)
{
    for (size_t i = 0; i < ces_check_report_ndefects(r); i++) {
        const struct ces_check_defect *d = ces_check_report_defect(r, i);
        struct ces_check_opts o;
        struct ces_check_report *again = NULL;

        if (d->cls == CES_CHECK_ABORTED)
            continue; /* the watchdog model's example: not under these options */
        ces_check_opts_init(&o);
        o.replay = d->replay;
        o.queue_map = ces_check_report_queue_map(r);
        if (ces_check(ctx, g, &o, &again) != CES_OK)
            broken("a report's replay string replays", d->replay, ces_ctx_last_error(ctx));
        if (!(ces_check_report_verdict(again) & d->cls)) {
            char want[64];

            ces_verdict_format(d->cls, want, sizeof(want));
            broken("a replay shows the defect it was reported for", d->replay, want);
        }
        ces_check_report_destroy(again);
    }
}

/* g searched again under `flags` within the larger bounds; the verdict,
 * with CES_V_INCOMPLETE where a bound stopped it. */
static uint32_t check_again(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t flags,
                            const char *promise)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    uint32_t v;

    ces_check_opts_init(&o);
    o.flags = flags;
    o.max_states = FUZZ_MAX_STATES_FULL;
    o.max_seconds = FUZZ_MAX_SECONDS;
    if (ces_check(ctx, g, &o, &r) != CES_OK)
        broken(promise, ces_ctx_last_error(ctx), NULL);
    v = ces_check_report_verdict(r);
    ces_check_report_destroy(r);
    return v;
}

static void verdicts_broken(const char *promise, uint32_t v, uint32_t w)
{
    char a[64], b[64];

    ces_verdict_format(v, a, sizeof(a));
    ces_verdict_format(w, b, sizeof(b));
    broken(promise, a, b);
}

/* The search without partial-order reduction, where both end within their
 * bounds, gives the same verdict. */
static void reference(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t v)
{
    uint32_t w;

    if (v & CES_V_INCOMPLETE)
        return;
    w = check_again(ctx, g, CES_CHECK_NO_REDUCTION,
                    "the reference search runs where the reduced one did");
    if (!(w & CES_V_INCOMPLETE) && w != v)
        verdicts_broken("the reduced search and the reference search agree", v, w);
}

/* Under the watchdog model nothing stays blocked (no DEADLOCK or HANG),
 * and the races and mismatches are those found without it: the watchdog
 * fires only where every stream left is blocked, and nothing after it is
 * judged (docs/SEMANTICS.md section 9).  Not for `connections any`, whose
 * report is the first hardware queue assignment that fails, which may
 * differ between the two. */
static void watchdog(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t v)
{
    const uint32_t data = CES_V_RACE | CES_V_MISMATCH;
    uint32_t w;

    if ((v & CES_V_INCOMPLETE) || ces_graph_connections(g) == CES_CONNECTIONS_ANY)
        return;
    w = check_again(ctx, g, CES_CHECK_ABORT,
                    "the watchdog model's search runs where the plain one did");
    if (!(w & CES_V_INCOMPLETE) &&
        ((w & (CES_V_DEADLOCK | CES_V_HANG)) || (w & data) != (v & data)))
        verdicts_broken("under the watchdog model nothing stays blocked and the data defects "
                        "stay",
                        v, w);
}

/* Every fault of the sweep of g (at most FUZZ_SWEEP_MAX_OPS ops), in
 * position order as ces_check_fault_sweep documents it, listed here from
 * the unrolled program: each stream's ops with a drop and (below
 * CES_MAX_STREAMS streams) a delay at each write and a stop at each op,
 * then a stop of the rank as a whole before each of its ops where two of
 * its streams or more still have ops to enqueue.  Returns their number. */
static size_t sweep_list(const struct ces_graph *g, struct ces_fault *all)
{
    uint32_t streams = ces_graph_streams(g);
    size_t n = 0;

    for (uint32_t r = 0; r < ces_graph_ranks(g); r++) {
        uint32_t left[CES_MAX_STREAMS] = {0}, k = 0;

        for (uint32_t s = 0; s < streams; s++, k = 0)
            for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
                uint32_t nops;
                const struct ces_op *ops = ces_graph_ops(g, b, r, &nops);

                for (uint64_t j = 0; j < ces_graph_block(g, b).reps; j++)
                    for (uint32_t i = 0; i < nops; i++) {
                        if (ops[i].stream != s)
                            continue;
                        if (ops[i].kind == CES_OP_WRITE) {
                            all[n++] = (struct ces_fault){CES_FAULT_DROP, r, s, k};
                            if (streams < CES_MAX_STREAMS)
                                all[n++] = (struct ces_fault){CES_FAULT_DELAY, r, s, k};
                        }
                        all[n++] = (struct ces_fault){CES_FAULT_STOP, r, s, k++};
                        left[s]++;
                    }
            }
        for (uint32_t b = 0; b < ces_graph_nblocks(g); b++) {
            uint32_t nops;
            const struct ces_op *ops = ces_graph_ops(g, b, r, &nops);

            for (uint64_t j = 0; j < ces_graph_block(g, b).reps; j++)
                for (uint32_t i = 0; i < nops; i++, k++) {
                    uint32_t alive = 0;

                    for (uint32_t s = 0; s < streams; s++)
                        alive += left[s] > 0;
                    if (alive > 1)
                        all[n++] = (struct ces_fault){CES_FAULT_STOP, r, CES_FAULT_RANK, k};
                    left[ops[i].stream]--;
                }
        }
    }
    return n;
}

static int same_fault(const struct ces_fault *a, const struct ces_fault *b)
{
    return a->kind == b->kind && a->rank == b->rank && a->stream == b->stream &&
           a->index == b->index;
}

static void sweep_broken(const char *promise, const struct ces_fault *f, size_t n, size_t total)
{
    char a[64], b[64];

    if (f != NULL)
        (void)ces_fault_format(f, a, sizeof(a));
    else
        snprintf(a, sizeof(a), "(none)");
    snprintf(b, sizeof(b), "%zu rows of %zu faults", n, total);
    broken(promise, a, b);
}

/* g's fault sweep under o: the rows are the first of its faults (sweep_list)
 * in position order and the rest counts, by kind, the others, naming the
 * first and the last, its bound "time" or "memory"; under the memory
 * bound, the rows stay below it and one more would not.  Returns the
 * rows' number. */
static size_t sweep_once(struct ces_ctx *ctx, const struct ces_graph *g,
                         const struct ces_check_opts *o, const struct ces_fault *all,
                         size_t total)
{
    struct ces_check_sweep_row *rows = NULL;
    struct ces_check_sweep_rest rest;
    size_t n = 0, kinds[3] = {0};
    char *t = NULL;

    if (ces_check_fault_sweep(ctx, g, o, &rows, &n, &rest) != CES_OK)
        broken("the fault sweep runs where the check did", ces_ctx_last_error(ctx), NULL);
    if (n + rest.n != total)
        sweep_broken("the sweep's rows and its rest are every fault", NULL, n, total);
    for (size_t i = 0; i < n; i++)
        if (!same_fault(&rows[i].fault, &all[i]))
            sweep_broken("the sweep's rows are its faults in position order", &rows[i].fault, i,
                         total);
    for (size_t i = n; i < total; i++)
        kinds[all[i].kind]++;
    if (rest.kinds[0] != kinds[0] || rest.kinds[1] != kinds[1] || rest.kinds[2] != kinds[2])
        sweep_broken("the sweep's rest counts each kind's faults after its rows", NULL, n, total);
    if (rest.n > 0 &&
        (!same_fault(&rest.first, &all[n]) || !same_fault(&rest.last, &all[total - 1])))
        sweep_broken("the sweep's rest names its first and last faults", &rest.first, n, total);
    if ((rest.n > 0) != (rest.bound != NULL) ||
        (rest.bound != NULL && strcmp(rest.bound, "time") != 0 &&
         strcmp(rest.bound, "memory") != 0))
        sweep_broken("the sweep's rest has a bound where it holds faults", NULL, n, total);
    if (rest.bound != NULL && strcmp(rest.bound, "memory") == 0 &&
        (o->max_memory == 0 || (uint64_t)n * sizeof(*rows) >= o->max_memory ||
         (uint64_t)(n + 1) * sizeof(*rows) < o->max_memory))
        sweep_broken("the memory bound stops the sweep where one more row would not stay below "
                     "it",
                     &rest.first, n, total);
    if (ces_check_sweep_text(ctx, rows, n, &rest, &t, NULL) != CES_OK)
        broken("a sweep's table is written", ces_ctx_last_error(ctx), NULL);
    ces_free(ctx, t);
    ces_free(ctx, rows);
    return n;
}

/* A memory bound for the sweep of `total` faults that the input's hash `h`
 * picks: from 1 byte to one row more than the rows of all (a check has
 * what the rows leave: little, so the checks are quick). */
static uint64_t sweep_memory(size_t total, uint64_t h)
{
    return 1 + h % (sizeof(struct ces_check_sweep_row) * (total + 1));
}

/* The fault sweep of a small g three times: within the search's bounds, with
 * a memory bound that the input's hash `h` picks, and with its time bound
 * spent before its first fault (none checked). */
static void sweep(struct ces_ctx *ctx, const struct ces_graph *g, uint64_t h)
{
    struct ces_fault all[FUZZ_SWEEP_MAX_FAULTS];
    struct ces_check_opts o;
    size_t total;

    if (sweep_ops(g) > FUZZ_SWEEP_MAX_OPS)
        return;
    total = sweep_list(g, all);
    ces_check_opts_init(&o);
    o.max_states = FUZZ_SWEEP_MAX_STATES;
    o.max_seconds = FUZZ_SWEEP_MAX_SECONDS;
    sweep_once(ctx, g, &o, all, total);
    o.max_memory = sweep_memory(total, h);
    sweep_once(ctx, g, &o, all, total);
    o.max_memory = 0;
    o.spent_seconds = o.max_seconds;
    if (sweep_once(ctx, g, &o, all, total) != 0)
        sweep_broken("a sweep whose time bound is spent checks no fault", NULL, 0, total);
}

static void check_and_draw(struct ces_ctx *ctx, const struct ces_graph *g, uint64_t h)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    struct ces_promela_opts po;
    char *t = NULL;
    size_t l = 0;

    ces_check_opts_init(&o);
    o.max_states = FUZZ_MAX_STATES;
    o.max_seconds = FUZZ_MAX_SECONDS;
    if (ces_check(ctx, g, &o, &r) == CES_OK) {
        reference(ctx, g, ces_check_report_verdict(r));
        sweep(ctx, g, h);
        watchdog(ctx, g, ces_check_report_verdict(r));
        replay(ctx, g, r);
        if (ces_check_report_text(ctx, r, &t, &l) == CES_OK)
            ces_free(ctx, t);
        if (ces_check_report_json(ctx, r, &t, &l) == CES_OK)
            ces_free(ctx, t);
        ces_check_report_destroy(r);
    }
    if (ces_dot_emit(ctx, g, NULL, &t, &l) == CES_OK)
        ces_free(ctx, t);
    ces_promela_opts_init(&po);
    if (ces_promela_emit(ctx, g, &po, &t, &l) == CES_OK)
        ces_free(ctx, t);
}

/* Rank r's plan: every memop call holds 1..255 ops within the block's
 * memop array, every copy call copies within its array, and each stream's
 * calls start with its ops in order. */
static void plan_shape(const struct ces_cuda_plan *p, const char *what)
{
    uint32_t *last = calloc(p->streams, sizeof(*last));

    if (last == NULL)
        broken("memory for the plan's check", NULL, NULL);
    for (uint32_t b = 0; b < p->nblocks; b++) {
        const struct ces_cuda_pblock *pb = &p->blocks[b];

        memset(last, 0, sizeof(*last) * p->streams);
        for (size_t i = 0; i < pb->calls.len; i++) {
            const struct ces_cuda_call *c = &CES_VEC_AT(&pb->calls, struct ces_cuda_call, i);
            size_t n = c->kind == CES_CALL_MEMOPS ? pb->memops.len
                       : c->kind == CES_CALL_COPY_BATCH || c->kind == CES_CALL_COPY
                           ? pb->copies.len
                           : SIZE_MAX;

            if (c->stream >= p->streams)
                broken("a call is on a stream of the graph", what, NULL);
            if (c->kind == CES_CALL_MEMOPS && (c->count == 0 || c->count > CES_CUDA_MAX_MEMOPS))
                broken("a memop call holds 1..255 ops", what, NULL);
            if (n != SIZE_MAX && ((size_t)c->first + c->count > n || c->count == 0))
                broken("a call's ops lie in the block's arrays", what, NULL);
            if (c->op + 1 < last[c->stream])
                broken("a stream's calls keep its ops' order", what, NULL);
            last[c->stream] = c->op + 1;
        }
    }
    free(last);
}

/* Every rank lowers as the CUDA backend would issue it, eagerly with the
 * watchdog's progress writes and captured with its in-flight words, on a
 * device with every feature: only capture may refuse (a wait whose value
 * a replay would freeze), and a plan has the shape of plan_shape. */
static void lower(struct ces_ctx *ctx, const struct ces_graph *g)
{
    const unsigned modes[] = {CES_LOWER_PROGRESS, CES_LOWER_CAPTURE | CES_LOWER_FLIGHT};
    int graph_blocks = 0;

    for (uint32_t b = 0; b < ces_graph_nblocks(g); b++)
        graph_blocks |= ces_graph_block(g, b).kind == CES_PHASE_GRAPH;
    for (uint32_t r = 0; r < ces_graph_ranks(g); r++) {
        for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
            struct ces_cuda_plan *plan = NULL;
            char *text = NULL;
            int rc = ces_cuda_lower(ctx, g, r, &full_caps, modes[m], &plan);

            if (rc == CES_ERR_UNSUPPORTED && (graph_blocks || (modes[m] & CES_LOWER_CAPTURE)))
                continue;
            if (rc != CES_OK)
                broken("lowering for a device with every feature succeeds eagerly",
                       ces_ctx_last_error(ctx), NULL);
            plan_shape(plan, m == 0 ? "eager" : "captured");
            if (ces_cuda_plan_format(ctx, g, plan, &text) != CES_OK)
                broken("a plan formats", ces_ctx_last_error(ctx), NULL);
            ces_free(ctx, text);
            ces_cuda_plan_destroy(plan);
        }
    }
}

static void predict(struct ces_ctx *ctx, const struct ces_graph *g)
{
    struct ces_predict p;
    double parts;

    if (ces_model_predict(ctx, ces_model_find("h200"), g, &p) != CES_OK)
        return;
    parts = p.path_copy_us + p.path_signal_us + p.path_memop_us + p.path_event_us +
            p.path_host_us;
    if (!isfinite(p.total_us) || p.total_us < 0 ||
        fabs(parts - p.total_us) > 1e-6 * (1.0 + p.total_us)) {
        char a[128], b[128];

        snprintf(a, sizeof(a), "total %.9g us", p.total_us);
        snprintf(b, sizeof(b), "parts %.9g us", parts);
        broken("a prediction's critical path parts add up to its total", a, b);
    }
}

/* A model file that parses prints as one that parses to the same text. */
static void model_text(struct ces_ctx *ctx, const char *text, size_t len)
{
    struct ces_model m, m2;
    char *t1 = NULL, *t2 = NULL;
    size_t l1 = 0, l2 = 0;

    if (ces_model_parse(ctx, text, len, "fuzz", NULL, &m) != CES_OK)
        return;
    if (ces_model_print(ctx, &m, &t1, &l1) != CES_OK)
        broken("ces_model_print succeeds on a parsed model", ces_ctx_last_error(ctx), NULL);
    if (ces_model_parse(ctx, t1, l1, "printed", NULL, &m2) != CES_OK)
        broken("a printed model parses", t1, ces_ctx_last_error(ctx));
    if (ces_model_print(ctx, &m2, &t2, &l2) != CES_OK || !same_text(t1, l1, t2, l2))
        broken("a printed model parses to the same text", t1, t2);
    ces_free(ctx, t1);
    ces_free(ctx, t2);
}

/* A fault and a queue map that parse format as text that parses to the
 * same. */
static void options_text(struct ces_ctx *ctx, const char *text)
{
    struct ces_fault f, f2;
    uint32_t map[FUZZ_MAP_RANKS * FUZZ_MAP_STREAMS], map2[FUZZ_MAP_RANKS * FUZZ_MAP_STREAMS];
    char buf[256];

    if (ces_fault_parse(ctx, text, &f) == CES_OK) {
        if (ces_fault_format(&f, buf, sizeof(buf)) >= (int)sizeof(buf) ||
            ces_fault_parse(ctx, buf, &f2) != CES_OK || memcmp(&f, &f2, sizeof(f)) != 0)
            broken("a fault formats as text that parses to the same", text, buf);
    }
    if (ces_queue_map_parse(ctx, text, FUZZ_MAP_RANKS, FUZZ_MAP_STREAMS, map) == CES_OK) {
        if (ces_queue_map_format(FUZZ_MAP_RANKS, FUZZ_MAP_STREAMS, map, buf, sizeof(buf)) >=
                (int)sizeof(buf) ||
            ces_queue_map_parse(ctx, buf, FUZZ_MAP_RANKS, FUZZ_MAP_STREAMS, map2) != CES_OK ||
            memcmp(map, map2, sizeof(map)) != 0)
            broken("a queue map formats as text that parses to the same", text, buf);
    }
}

/* Whether the failing allocation fell in the call that began at
 * allocation `before`: if so, the call returned an error (rc). */
static void failed_says(const struct ces_test_alloc *st, long before, int rc, const char *call)
{
    if (st->fail_at > before && st->fail_at <= st->calls && rc == CES_OK) {
        char n[64];

        snprintf(n, sizeof(n), "allocation %ld failed", st->fail_at);
        broken("a call whose allocation fails returns an error", call, n);
    }
}

/* The readers again with allocation `fail_at` failing (0: none): the call
 * it fails returns an error, and every block is freed.  Returns the
 * allocations they tried. */
static long out_of_memory(const char *text, size_t size, long fail_at)
{
    struct ces_test_alloc st = {0, 0, 0, 0};
    struct ces_alloc hooks = ces_test_hooks(&st);
    struct ces_ctx *ctx = NULL;
    struct ces_prog *p = NULL;
    struct ces_graph *g = NULL;
    struct ces_model m;
    long before;
    int rc;

    st.fail_at = fail_at;
    if (ces_ctx_create(&hooks, &ctx) != CES_OK)
        return st.calls; /* the context itself was the allocation */
#define CES_FUZZ_CALL_(call)                                                   \
    (before = st.calls, rc = (call), failed_says(&st, before, rc, #call), rc)
    if (CES_FUZZ_CALL_(ces_prog_parse(ctx, text, size, "fuzz", &p)) == CES_OK) {
        char *t = NULL;
        size_t l = 0;

        if (CES_FUZZ_CALL_(ces_prog_print(ctx, p, &t, &l)) == CES_OK)
            ces_free(ctx, t);
        if (small_prog(p) && CES_FUZZ_CALL_(ces_prog_expand(ctx, p, &g)) == CES_OK &&
            !short_graph(g)) {
            ces_graph_destroy(g);
        } else if (g != NULL) {
            struct ces_check_opts o;
            struct ces_check_report *r = NULL;
            struct ces_predict pr;
            struct ces_cuda_plan *plan = NULL;

            if (CES_FUZZ_CALL_(ces_graph_print(ctx, g, 0, &t, &l)) == CES_OK)
                ces_free(ctx, t);
            ces_check_opts_init(&o);
            o.max_states = FUZZ_MAX_STATES;
            o.max_seconds = FUZZ_MAX_SECONDS;
            if (CES_FUZZ_CALL_(ces_check(ctx, g, &o, &r)) == CES_OK) {
                if (CES_FUZZ_CALL_(ces_check_report_text(ctx, r, &t, &l)) == CES_OK)
                    ces_free(ctx, t);
                ces_check_report_destroy(r);
            }
            if (sweep_ops(g) <= FUZZ_SWEEP_MAX_OPS) {
                struct ces_check_sweep_row *rows = NULL;
                struct ces_check_sweep_rest rest;
                size_t n = 0;

                /* under a memory bound, as sweep's second: the rows' and a
                 * check's allocations, each check quick; no time bound, so
                 * that both runs try the same allocations (the one that
                 * fails is picked from the first's count) */
                o.max_states = FUZZ_SWEEP_MAX_STATES;
                o.max_seconds = 0;
                o.max_memory = sweep_memory(FUZZ_SWEEP_MAX_FAULTS, size);
                if (CES_FUZZ_CALL_(ces_check_fault_sweep(ctx, g, &o, &rows, &n, &rest)) ==
                        CES_OK &&
                    CES_FUZZ_CALL_(ces_check_sweep_text(ctx, rows, n, &rest, &t, NULL)) == CES_OK)
                    ces_free(ctx, t);
                ces_free(ctx, rows);
            }
            if (CES_FUZZ_CALL_(ces_dot_emit(ctx, g, NULL, &t, &l)) == CES_OK)
                ces_free(ctx, t);
            (void)CES_FUZZ_CALL_(ces_model_predict(ctx, ces_model_find("h200"), g, &pr));
            if (CES_FUZZ_CALL_(ces_cuda_lower(ctx, g, 0, &full_caps, CES_LOWER_PROGRESS, &plan)) ==
                CES_OK)
                ces_cuda_plan_destroy(plan);
            ces_graph_destroy(g);
        }
        ces_prog_destroy(p);
    }
    (void)CES_FUZZ_CALL_(ces_model_parse(ctx, text, size, "fuzz", NULL, &m));
#undef CES_FUZZ_CALL_
    ces_ctx_destroy(ctx);
    if (st.live != 0) {
        char n[64];

        snprintf(n, sizeof(n), "%ld blocks, allocation %ld failed", st.live, fail_at);
        broken("every block is freed when an allocation fails", n, NULL);
    }
    return st.calls;
}

int ces_fuzz_one(const uint8_t *data, size_t size)
{
    struct ces_test_alloc st = {0, 0, 0, 0};
    struct ces_alloc hooks = ces_test_hooks(&st);
    struct ces_ctx *ctx = NULL;
    struct ces_prog *p = NULL;
    const char *text = (const char *)data;
    char *line;
    /* the input's hash (FNV-1a): picks a sweep's memory bound and the
     * allocation that fails */
    uint64_t h = UINT64_C(14695981039346656037);

    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * UINT64_C(1099511628211);

    if (ces_ctx_create(&hooks, &ctx) != CES_OK)
        broken("a context can be created", NULL, NULL);
    if (ces_prog_parse(ctx, text, size, "fuzz", &p) == CES_OK) {
        struct ces_graph *g = canonical(ctx, p);

        if (g != NULL && short_graph(g)) {
            reload(ctx, g);
            check_and_draw(ctx, g, h);
            predict(ctx, g);
            lower(ctx, g);
        }
        ces_graph_destroy(g);
        ces_prog_destroy(p);
    }
    model_text(ctx, text, size);
    /* the options read from the command line take the first line */
    line = malloc(size + 1);
    if (line == NULL)
        broken("memory for the first line", NULL, NULL);
    memcpy(line, data, size);
    line[size] = '\0';
    line[strcspn(line, "\n")] = '\0';
    options_text(ctx, line);
    free(line);
    ces_ctx_destroy(ctx);
    if (st.live != 0) {
        char n[32];

        snprintf(n, sizeof(n), "%ld blocks", st.live);
        broken("every block is freed", n, NULL);
    }
    /* one allocation picked by the input's hash fails */
    out_of_memory(text, size, 1 + (long)(h % (uint64_t)out_of_memory(text, size, 0)));
    return 0;
}
