/*
 * core/prog.h - the parsed .ces program (struct ces_prog): the symbolic AST
 * that core/parse.c builds, core/print.c prints canonically and
 * core/expand.c turns into a concrete struct ces_graph.  Private to core/.
 *
 * Everything lives in flat vectors owned by the program: expression nodes
 * refer to their operands by index into `exprs`, ops refer to buffers,
 * signals and events by index into the program's tables, so freeing the
 * program is freeing its vectors and names.
 */
#ifndef CES_CORE_PROG_H
#define CES_CORE_PROG_H

#include "internal.h"

/* Expression node kinds.  INT and the variables are leaves; NEG is unary;
 * the rest are binary, left associative. */
enum ces_ex_kind {
    CES_EX_INT,   /* value = the literal; negative only for -9223372036854775808,
                   * every other '-' is a NEG node */
    CES_EX_VAR,   /* var = enum ces_ex_var */
    CES_EX_CONST, /* value = index into prog->lets */
    CES_EX_NEG,   /* -a */
    CES_EX_ADD,
    CES_EX_SUB,
    CES_EX_MUL,
    CES_EX_DIV,
    CES_EX_MOD
};

enum ces_ex_var { CES_VAR_R, CES_VAR_N, CES_VAR_P, CES_VAR_I };

/* No operand. */
#define CES_EX_NONE (-1)

struct ces_pexpr {
    uint8_t kind; /* enum ces_ex_kind */
    uint8_t var;  /* CES_EX_VAR: enum ces_ex_var */
    uint32_t line;
    uint32_t col;   /* first character of the expression */
    uint32_t opcol; /* NEG and binary nodes: the operator's column */
    int64_t value;
    int32_t a, b; /* operands (CES_EX_NONE when unused) */
};

struct ces_plet {
    char *name;
    int32_t expr;
    int64_t value; /* evaluated when parsed: a let is a constant */
};

struct ces_pbuf {
    char *name;
    int32_t expr;
    uint64_t size;
};

struct ces_psig {
    char *name;
    uint32_t width; /* enum ces_width */
    int32_t expr;
    uint32_t slots;
};

/* NAME[lo:hi]@rank; rank == CES_EX_NONE: the issuing rank. */
struct ces_pregion {
    uint32_t buf;
    int32_t lo, hi, rank;
    uint32_t line, col; /* the buffer name */
};

/* NAME[idx]@rank or NAME[idx]@*; rank == CES_EX_NONE: the issuing rank. */
struct ces_pslot {
    uint32_t sig;
    int32_t idx, rank;
    uint8_t all; /* @* */
    uint32_t line, col;
};

enum ces_over { CES_OVER_NONE = 0, CES_OVER_PEERS = 1, CES_OVER_ALL = 2 };

struct ces_pop {
    uint8_t kind;      /* enum ces_op_kind */
    uint8_t cmp;       /* wait: enum ces_cmp */
    uint8_t over;      /* enum ces_over */
    uint8_t expect;    /* consume: `== REGION` given */
    uint8_t all_ranks; /* r* */
    uint8_t uses_i;    /* some expression of the op reads $i */
    uint32_t rank;     /* rN (when !all_ranks) */
    uint32_t stream;
    struct ces_pregion a, b;
    struct ces_pslot slot;
    int32_t value;  /* write, wait */
    uint32_t event; /* record, await: index into prog->events */
    uint32_t line;
    uint32_t col;      /* the op keyword */
    uint32_t who_col;  /* the rN / r* token */
};

struct ces_pphase {
    uint32_t kind; /* enum ces_phase_kind */
    uint32_t reps;
    size_t first_op; /* index into prog->ops */
    size_t nops;
    uint32_t line;
};

struct ces_prog {
    struct ces_ctx *ctx;
    char *file; /* the name used in messages */
    uint32_t ranks, streams, connections;
    /* [enum ces_setting]: the line giving it (0: none, the default) and
     * its value's column */
    uint32_t setting_line[3], setting_col[3];
    struct ces_vec exprs;   /* struct ces_pexpr */
    struct ces_vec lets;    /* struct ces_plet */
    struct ces_vec buffers; /* struct ces_pbuf */
    struct ces_vec signals; /* struct ces_psig */
    struct ces_vec events;  /* char *, in order of first mention */
    struct ces_vec phases;  /* struct ces_pphase */
    struct ces_vec ops;     /* struct ces_pop, phase by phase */
    /* the tables' names */
    struct ces_names let_names, buffer_names, signal_names, event_names;
};

#define CES_PEXPR(p, i) (&CES_VEC_AT(&(p)->exprs, struct ces_pexpr, (size_t)(i)))

/* Appends the canonical text of expression e (core/print.c). */
void ces_prog_print_expr(struct ces_sb *sb, const struct ces_prog *p, int32_t e);

/* Evaluation environment of core/expand.c and the parser's header constants. */
struct ces_env {
    int64_t r, n, p, i;
    bool used_i; /* set when $i was read */
};

/* Evaluates e in 64-bit signed arithmetic; overflow and division or modulo by
 * zero are CES_ERR_SEMANTIC errors naming file:line:col, reported to ctx
 * (core/expand.c). */
int ces_prog_eval(struct ces_ctx *ctx, const struct ces_prog *p, int32_t e, struct ces_env *env,
                  int64_t *out);

/* The ops one expansion of line po of its phase body makes (core/expand.c). */
uint64_t ces_prog_line_ops(const struct ces_prog *p, const struct ces_pop *po);
/* The expansion's refusal of the op at line:col of `file`, the first past
 * CES_EXPAND_MAX_OPS; `advice` says what to use instead (core/expand.c). */
int ces_prog_ops_error(struct ces_ctx *ctx, const char *file, uint32_t line, uint32_t col,
                       const char *advice);

/* How far an expansion has come, for its watcher: the blocks (an eager
 * iteration is one, a graph phase one however often it replays) and ops
 * made so far, of all the program makes, then the ops validated. */
struct ces_expand_done {
    uint64_t blocks, blocks_all;
    uint64_t ops, ops_all;
    uint64_t validated; /* ops validated, of ops_all (0 while expanding) */
};

/* Called about every 65,536 ops made or validated; a nonzero return stops
 * the expansion (a time bound that passed). */
typedef int ces_expand_watch_fn(void *ud, const struct ces_expand_done *done);

/* ces_prog_expand, with `watch` (NULL: none) called as it goes: where it
 * returns nonzero, the expansion stops and returns CES_ERR_TIMEOUT, no
 * graph, the message saying how far it came ("FILE: 12 of 1000 blocks (192
 * of 16000 ops) expanded", or "FILE: every block expanded, 65536 of its
 * 16000000 ops validated") (core/expand.c). */
int ces_prog_expand_watched(struct ces_ctx *ctx, const struct ces_prog *p,
                            ces_expand_watch_fn *watch, void *ud, struct ces_graph **out);

#endif /* CES_CORE_PROG_H */
