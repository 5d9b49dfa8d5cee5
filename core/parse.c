/*
 * core/parse.c - the .ces text parser (format version 1): a line-oriented
 * lexer and a recursive-descent parser that builds the symbolic program
 * (core/prog.h).  Header constants (ranks, streams, connections, lets,
 * buffer and signal sizes) are evaluated here; op expressions are kept
 * symbolic for core/expand.c.  Every error names file:line:col.
 */
#include "prog.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

enum tok_kind {
    T_EOL, /* end of line, comment or input */
    T_IDENT,
    T_INT,
    T_VAR, /* $name */
    T_LBRACK,
    T_RBRACK,
    T_LPAREN,
    T_RPAREN,
    T_COLON,
    T_ARROW,
    T_AT,
    T_STAR,
    T_PLUS,
    T_MINUS,
    T_SLASH,
    T_PERCENT,
    T_ASSIGN, /* = */
    T_EQ,     /* == */
    T_GEQ,    /* >= */
    T_BAD,    /* a character that starts no token */
    T_BIGINT  /* digits that do not fit in 63 bits */
};

struct tok {
    int kind;
    size_t off, len; /* the token's text in the input */
    uint32_t col;
    int64_t ival;
};

/* Nesting limit of expressions, so that hostile input cannot exhaust the
 * stack. */
#define MAX_DEPTH 64
/* Expression nodes per statement (a+b+c+... nests to the left). */
#define MAX_NODES 4096

/* Variables an expression may use, and why not when it may not. */
enum {
    ALLOW_R = 1u << CES_VAR_R,
    ALLOW_N = 1u << CES_VAR_N,
    ALLOW_P = 1u << CES_VAR_P,
    ALLOW_I = 1u << CES_VAR_I
};

struct parser {
    struct ces_ctx *ctx;
    struct ces_prog *prog;
    const char *text;
    size_t len;
    size_t pos;        /* lexer position */
    size_t line_start; /* offset of the current line */
    uint32_t line;
    struct tok tok; /* the current token */
    /* header state */
    bool seen_cesync, seen_ranks, seen_streams, seen_conn;
    bool in_phases;
    /* expression state */
    unsigned allowed;
    bool in_header;
    bool uses_i;
    int depth;
    int stmt_nodes;
};

static const char *const var_names = "rnpi";

/* --- errors --------------------------------------------------------------- */

static int perr(struct parser *P, int status, uint32_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int perr(struct parser *P, int status, uint32_t col, const char *fmt, ...)
{
    char msg[CES_ERRMSG_MAX], cr[160] = "";
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* A carriage return alone before the error, the line going on after
     * it: a file whose lines end with CR alone (old Mac files) reads as
     * one line, and its error (line 1, "found 'ranks'") said nothing of
     * why.  The first CR of the line decides: blanks and CRs alone after
     * it up to the line's end end no line either.  (The blanks after each
     * byte before the error were scanned: a line of 200000 spaces before
     * its error took 16 s.) */
    for (size_t i = P->line_start; i < P->len && i + 1 < P->line_start + col; i++) {
        size_t j = i + 1;

        if (P->text[i] != '\r')
            continue;
        while (j < P->len && (P->text[j] == ' ' || P->text[j] == '\t' || P->text[j] == '\r'))
            j++;
        if (j < P->len && P->text[j] != '\n')
            snprintf(cr, sizeof(cr), " (column %zu is a carriage return alone, which ends no "
                     "line: lines end with LF or CRLF, not with CR as in old Mac files)",
                     i - P->line_start + 1);
        break;
    }
    return ces_ctx_error(P->ctx, status, "%s:%" PRIu32 ":%" PRIu32 ": %s%s", P->prog->file,
                         P->line, col, msg, cr);
}

static int nomem(struct parser *P)
{
    return ces_ctx_error(P->ctx, CES_ERR_NOMEM, "%s:%" PRIu32 ": out of memory while parsing",
                         P->prog->file, P->line);
}

/* A token quoted in a message, cut as every message cuts one (internal.h). */
#define SHOWN(len) CES_SHOWN_LEN(len)
#define MORE(len) CES_SHOWN_MORE(len)

/* "'text'" or "end of line", for "found ..." in messages. */
static const char *describe(const struct parser *P, const struct tok *t, char *buf, size_t size)
{
    if (t->kind == T_EOL)
        return "end of line";
    if (t->kind == T_BAD && t->len == 1 &&
        ((unsigned char)P->text[t->off] < 0x20 || (unsigned char)P->text[t->off] >= 0x7f)) {
        snprintf(buf, size, "byte 0x%02x", (unsigned char)P->text[t->off]);
        return buf;
    }
    snprintf(buf, size, "'%.*s%s'", SHOWN(t->len), P->text + t->off, MORE(t->len));
    return buf;
}

/* Error "expected WHAT, found TOKEN" at the current token. */
static int expected(struct parser *P, const char *what)
{
    char buf[64];

    return perr(P, CES_ERR_PARSE, P->tok.col, "expected %s, found %s", what,
                describe(P, &P->tok, buf, sizeof(buf)));
}

/* --- lexer ---------------------------------------------------------------- */

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Reads the next token of the current line into P->tok.  Never moves past
 * the end of the line. */
static void lex(struct parser *P)
{
    const char *s = P->text;
    size_t n = P->len;
    struct tok *t = &P->tok;
    char c;

    while (P->pos < n && (s[P->pos] == ' ' || s[P->pos] == '\t' || s[P->pos] == '\r'))
        P->pos++;
    t->off = P->pos;
    t->len = 0;
    t->col = (uint32_t)(P->pos - P->line_start + 1);
    t->ival = 0;
    if (P->pos >= n || s[P->pos] == '\n' || s[P->pos] == '#') {
        t->kind = T_EOL;
        /* a line's end is where it stands without the CR of a CRLF */
        if ((P->pos >= n || s[P->pos] == '\n') && P->pos > P->line_start && s[P->pos - 1] == '\r')
            t->col--;
        return;
    }
    c = s[P->pos];
    if (is_alpha(c) || c == '$') {
        size_t e = P->pos + 1;

        while (e < n && (is_alpha(s[e]) || is_digit(s[e])))
            e++;
        t->kind = c == '$' ? T_VAR : T_IDENT;
        if (c == '$' && (e == P->pos + 1 || is_digit(s[P->pos + 1])))
            t->kind = T_BAD; /* '$' not followed by an identifier */
        t->len = e - P->pos;
        P->pos = e;
        return;
    }
    if (is_digit(c)) {
        size_t e = P->pos;
        int64_t v = 0;
        bool big = false;

        while (e < n && is_digit(s[e])) {
            int d = s[e] - '0';

            if (v > (INT64_MAX - d) / 10)
                big = true;
            else
                v = v * 10 + d;
            e++;
        }
        t->kind = big ? T_BIGINT : T_INT;
        t->ival = v;
        /* "12ab" is one bad token, not a number followed by a name */
        if (e < n && is_alpha(s[e])) {
            while (e < n && (is_alpha(s[e]) || is_digit(s[e])))
                e++;
            t->kind = T_BAD;
        }
        t->len = e - P->pos;
        P->pos = e;
        return;
    }
    t->len = 1;
    switch (c) {
    case '[': t->kind = T_LBRACK; break;
    case ']': t->kind = T_RBRACK; break;
    case '(': t->kind = T_LPAREN; break;
    case ')': t->kind = T_RPAREN; break;
    case ':': t->kind = T_COLON; break;
    case '@': t->kind = T_AT; break;
    case '*': t->kind = T_STAR; break;
    case '+': t->kind = T_PLUS; break;
    case '/': t->kind = T_SLASH; break;
    case '%': t->kind = T_PERCENT; break;
    case '-':
        t->kind = T_MINUS;
        if (P->pos + 1 < n && s[P->pos + 1] == '>') {
            t->kind = T_ARROW;
            t->len = 2;
        }
        break;
    case '=':
        t->kind = T_ASSIGN;
        if (P->pos + 1 < n && s[P->pos + 1] == '=') {
            t->kind = T_EQ;
            t->len = 2;
        }
        break;
    case '>':
        t->kind = T_BAD;
        if (P->pos + 1 < n && s[P->pos + 1] == '=') {
            t->kind = T_GEQ;
            t->len = 2;
        }
        break;
    default:
        t->kind = T_BAD;
        break;
    }
    P->pos += t->len;
}

static bool tok_is(const struct parser *P, const char *word)
{
    size_t l = strlen(word);

    return P->tok.kind == T_IDENT && P->tok.len == l && memcmp(P->text + P->tok.off, word, l) == 0;
}

/* Copies the current token's text into a new string. */
static char *tok_dup(struct parser *P)
{
    char *s = ces_malloc(P->ctx, P->tok.len + 1);

    if (s != NULL) {
        memcpy(s, P->text + P->tok.off, P->tok.len);
        s[P->tok.len] = '\0';
    }
    return s;
}

/* Matches IDENT of the form <letter><digits> (r3, s1, x2); the number goes
 * to *out.  Returns false if the form does not match; *too_big is set when
 * the digits do not fit in 32 bits. */
static bool tok_numbered(const struct parser *P, char letter, uint64_t *out, bool *too_big)
{
    const char *s = P->text + P->tok.off;
    uint64_t v = 0;

    *too_big = false;
    if (P->tok.kind != T_IDENT || P->tok.len < 2 || s[0] != letter)
        return false;
    for (size_t k = 1; k < P->tok.len; k++) {
        if (!is_digit(s[k]))
            return false;
        v = v * 10 + (uint64_t)(s[k] - '0');
        if (v > UINT32_MAX)
            *too_big = true;
    }
    *out = v;
    return true;
}

/* --- expressions ---------------------------------------------------------- */

static int add_expr(struct parser *P, const struct ces_pexpr *e, int32_t *idx)
{
    /* a long chain a+b+c+... is a deep tree; bound it like nesting */
    if (++P->stmt_nodes > MAX_NODES || P->prog->exprs.len >= INT32_MAX)
        return perr(P, CES_ERR_LIMIT, e->opcol,
                    "statement too long: more than %d expression nodes (numbers, names and "
                    "operators)",
                    MAX_NODES);
    if (ces_vec_push(P->ctx, &P->prog->exprs, sizeof(*e), e) != CES_OK)
        return nomem(P);
    *idx = (int32_t)(P->prog->exprs.len - 1);
    return CES_OK;
}

static int64_t find_let(const struct ces_prog *p, const char *name, size_t len)
{
    return ces_names_find(&p->let_names, name, len);
}

static int parse_expr(struct parser *P, int32_t *out);

/* A variable reference $name at the current token. */
static int parse_var(struct parser *P, int32_t *out)
{
    struct ces_pexpr e = {CES_EX_VAR, 0, P->line, P->tok.col, P->tok.col, 0, CES_EX_NONE,
                          CES_EX_NONE};
    const char *name = P->text + P->tok.off + 1;
    size_t len = P->tok.len - 1;
    const char *v = len == 1 ? strchr(var_names, name[0]) : NULL;

    if (v != NULL) {
        unsigned var = (unsigned)(v - var_names);

        if (!(P->allowed & (1u << var))) {
            if (var == CES_VAR_P && !P->in_header)
                return perr(P, CES_ERR_SEMANTIC, P->tok.col,
                            "$p is only defined in an op line with 'over p' or 'over p*'");
            if (var == CES_VAR_N)
                return perr(P, CES_ERR_SEMANTIC, P->tok.col, "$n is used before 'ranks'");
            return perr(P, CES_ERR_SEMANTIC, P->tok.col,
                        "$%c is not defined in a header statement: only $n and constants are",
                        var_names[var]);
        }
        e.var = (uint8_t)var;
        if (var == CES_VAR_I)
            P->uses_i = true;
    } else {
        int64_t k = find_let(P->prog, name, len);

        if (k < 0)
            return perr(P, CES_ERR_SEMANTIC, P->tok.col,
                        "undefined constant $%.*s%s: define it with 'let %.*s%s = ...' before use",
                        SHOWN(len), name, MORE(len), SHOWN(len), name, MORE(len));
        e.kind = CES_EX_CONST;
        e.value = k;
    }
    lex(P);
    return add_expr(P, &e, out);
}

static int parse_primary(struct parser *P, int32_t *out)
{
    int rc;

    switch (P->tok.kind) {
    case T_INT: {
        struct ces_pexpr e = {CES_EX_INT, 0, P->line, P->tok.col, P->tok.col, P->tok.ival,
                              CES_EX_NONE, CES_EX_NONE};

        lex(P);
        return add_expr(P, &e, out);
    }
    case T_BIGINT:
        return perr(P, CES_ERR_PARSE, P->tok.col, "integer %.*s%s does not fit in 64 bits",
                    SHOWN(P->tok.len), P->text + P->tok.off, MORE(P->tok.len));
    case T_VAR:
        return parse_var(P, out);
    case T_LPAREN: {
        uint32_t col = P->tok.col;

        /* said at the '(' that opens the level too many */
        if (P->depth >= MAX_DEPTH)
            return perr(P, CES_ERR_LIMIT, col, "expression nested too deeply (over %d levels)",
                        MAX_DEPTH);
        lex(P);
        rc = parse_expr(P, out);
        if (rc != CES_OK)
            return rc;
        if (P->tok.kind != T_RPAREN) {
            char buf[64];

            return perr(P, CES_ERR_PARSE, P->tok.col,
                        "expected ')' to close the '(' at column %" PRIu32 ", found %s", col,
                        describe(P, &P->tok, buf, sizeof(buf)));
        }
        /* The node keeps its own column: parentheses are not part of the
         * tree, the canonical printer puts back the ones it needs. */
        lex(P);
        return CES_OK;
    }
    default:
        return expected(P, "an expression (a number, a $name or '(')");
    }
}

static int parse_unary(struct parser *P, int32_t *out)
{
    struct ces_pexpr e = {CES_EX_NEG, 0, P->line, P->tok.col, P->tok.col, 0, CES_EX_NONE,
                          CES_EX_NONE};
    int rc;

    if (P->tok.kind != T_MINUS)
        return parse_primary(P, out);
    if (++P->depth > MAX_DEPTH)
        return perr(P, CES_ERR_LIMIT, P->tok.col, "expression nested too deeply (over %d levels)",
                    MAX_DEPTH);
    lex(P);
    if (P->tok.kind == T_BIGINT && P->tok.len == 19 &&
        memcmp(P->text + P->tok.off, "9223372036854775808", 19) == 0) {
        /* -2^63 is a literal of its own: its magnitude has no int64 */
        e.kind = CES_EX_INT;
        e.value = INT64_MIN;
        P->depth--;
        lex(P);
        return add_expr(P, &e, out);
    }
    rc = parse_unary(P, &e.a);
    P->depth--;
    if (rc != CES_OK)
        return rc;
    return add_expr(P, &e, out);
}

static int binop_kind(int tk)
{
    switch (tk) {
    case T_PLUS: return CES_EX_ADD;
    case T_MINUS: return CES_EX_SUB;
    case T_STAR: return CES_EX_MUL;
    case T_SLASH: return CES_EX_DIV;
    case T_PERCENT: return CES_EX_MOD;
    default: return -1;
    }
}

static int parse_term(struct parser *P, int32_t *out)
{
    int rc = parse_unary(P, out);

    while (rc == CES_OK &&
           (P->tok.kind == T_STAR || P->tok.kind == T_SLASH || P->tok.kind == T_PERCENT)) {
        struct ces_pexpr e = {(uint8_t)binop_kind(P->tok.kind), 0, P->line,
                              CES_PEXPR(P->prog, *out)->col, P->tok.col, 0, *out, CES_EX_NONE};

        lex(P);
        rc = parse_unary(P, &e.b);
        if (rc == CES_OK)
            rc = add_expr(P, &e, out);
    }
    return rc;
}

/* (a level deeper: the '(' before it, if any, checked the bound) */
static int parse_expr(struct parser *P, int32_t *out)
{
    int rc;

    P->depth++;
    rc = parse_term(P, out);
    while (rc == CES_OK && (P->tok.kind == T_PLUS || P->tok.kind == T_MINUS)) {
        struct ces_pexpr e = {(uint8_t)binop_kind(P->tok.kind), 0, P->line,
                              CES_PEXPR(P->prog, *out)->col, P->tok.col, 0, *out, CES_EX_NONE};

        lex(P);
        rc = parse_term(P, &e.b);
        if (rc == CES_OK)
            rc = add_expr(P, &e, out);
    }
    P->depth--;
    return rc;
}

/* A header expression, evaluated now: only $n (once ranks is known) and
 * constants. */
static int parse_const_expr(struct parser *P, int32_t *idx, int64_t *value)
{
    struct ces_env env = {0, P->prog->ranks, 0, 0, false};
    int rc;

    P->allowed = P->seen_ranks ? ALLOW_N : 0;
    P->in_header = true;
    rc = parse_expr(P, idx);
    if (rc == CES_OK)
        rc = ces_prog_eval(P->ctx, P->prog, *idx, &env, value);
    return rc;
}

/* A rank after '@': an integer, a $name or a parenthesised expression. */
static int parse_rank(struct parser *P, int32_t *out)
{
    int rc;

    if (P->tok.kind != T_INT && P->tok.kind != T_VAR && P->tok.kind != T_LPAREN &&
        P->tok.kind != T_BIGINT)
        return expected(P, "a rank after '@' (a number, a $name or a parenthesised expression)");
    /* a level of its own, as an expression's line is: the same parentheses
     * nest as deep after '@' as anywhere */
    if (++P->depth > MAX_DEPTH) {
        P->depth--;
        return perr(P, CES_ERR_LIMIT, P->tok.col, "expression nested too deeply (over %d levels)",
                    MAX_DEPTH);
    }
    rc = parse_primary(P, out);
    P->depth--;
    return rc;
}

/* --- header statements ---------------------------------------------------- */

/* The current token must be the end of the line. */
static int expect_eol(struct parser *P, const char *after)
{
    char buf[64];

    if (P->tok.kind == T_EOL)
        return CES_OK;
    return perr(P, CES_ERR_PARSE, P->tok.col, "expected end of line after %s, found %s", after,
                describe(P, &P->tok, buf, sizeof(buf)));
}

static int header_allowed(struct parser *P, const char *kw, uint32_t col)
{
    if (P->in_phases)
        return perr(P, CES_ERR_PARSE, col,
                    "'%s' after the first 'phase': header statements come before the phases", kw);
    return CES_OK;
}

static int64_t find_buffer(const struct ces_prog *p, const char *name, size_t len)
{
    return ces_names_find(&p->buffer_names, name, len);
}

static int64_t find_signal(const struct ces_prog *p, const char *name, size_t len)
{
    return ces_names_find(&p->signal_names, name, len);
}

/* Appends entry e (of `item` bytes, its name `name`) to table v, whose
 * names ix indexes. */
static int add_entry(struct parser *P, struct ces_vec *v, struct ces_names *ix, size_t item,
                     const void *e, const char *name)
{
    if (ces_names_reserve(P->ctx, ix) != CES_OK || ces_vec_push(P->ctx, v, item, e) != CES_OK)
        return nomem(P);
    ces_names_add(ix, name, (uint32_t)(v->len - 1));
    return CES_OK;
}

/* ranks / streams / connections N */
static int parse_count(struct parser *P, const char *kw, uint32_t col)
{
    bool *seen;
    uint32_t *dst, which;
    int64_t v, lo, hi;
    int32_t e;
    uint32_t vcol;
    char after[32];
    int rc;

    if (strcmp(kw, "ranks") == 0) {
        seen = &P->seen_ranks, which = CES_SETTING_RANKS, dst = &P->prog->ranks;
        lo = 1, hi = CES_MAX_RANKS;
    } else if (strcmp(kw, "streams") == 0) {
        seen = &P->seen_streams, which = CES_SETTING_STREAMS, dst = &P->prog->streams;
        lo = 1, hi = CES_MAX_STREAMS;
    } else {
        seen = &P->seen_conn, which = CES_SETTING_CONNECTIONS, dst = &P->prog->connections;
        lo = 0, hi = CES_MAX_STREAMS;
    }
    rc = header_allowed(P, kw, col);
    if (rc != CES_OK)
        return rc;
    if (*seen)
        return perr(P, CES_ERR_PARSE, col, "'%s' given twice (first on line %" PRIu32 ")", kw,
                    P->prog->setting_line[which]);
    lex(P);
    vcol = P->tok.col;
    if (dst == &P->prog->connections && tok_is(P, "any")) {
        /* `connections any`: whatever queues CUDA gives the streams */
        lex(P);
        *seen = true;
        P->prog->setting_line[which] = P->line;
        P->prog->setting_col[which] = vcol;
        *dst = CES_CONNECTIONS_ANY;
        return expect_eol(P, "'connections any'");
    }
    if (dst == &P->prog->connections && P->tok.kind != T_INT && P->tok.kind != T_BIGINT &&
        P->tok.kind != T_VAR && P->tok.kind != T_LPAREN && P->tok.kind != T_MINUS)
        return expected(P, "a queue count or 'any' after 'connections'");
    rc = parse_const_expr(P, &e, &v);
    if (rc != CES_OK)
        return rc;
    if (v < lo || v > hi)
        return perr(P, CES_ERR_SEMANTIC, vcol, "%s must be %" PRId64 "..%" PRId64 "%s, not %" PRId64,
                    kw, lo, hi, dst == &P->prog->connections ? " or any" : "", v);
    *seen = true;
    P->prog->setting_line[which] = P->line;
    P->prog->setting_col[which] = vcol;
    *dst = (uint32_t)v;
    snprintf(after, sizeof(after), "'%s N'", kw);
    return expect_eol(P, after);
}

static bool reserved_name(const char *s, size_t len)
{
    return len == 1 && strchr(var_names, s[0]) != NULL;
}

static int parse_let(struct parser *P, uint32_t col)
{
    struct ces_plet l = {NULL, CES_EX_NONE, 0};
    int rc = header_allowed(P, "let", col);

    if (rc != CES_OK)
        return rc;
    lex(P);
    if (P->tok.kind != T_IDENT)
        return expected(P, "a constant name after 'let'");
    if (reserved_name(P->text + P->tok.off, P->tok.len))
        return perr(P, CES_ERR_SEMANTIC, P->tok.col,
                    "'%.*s%s' is reserved: $r, $n, $p and $i are built in", SHOWN(P->tok.len),
                    P->text + P->tok.off, MORE(P->tok.len));
    if (find_let(P->prog, P->text + P->tok.off, P->tok.len) >= 0)
        return perr(P, CES_ERR_SEMANTIC, P->tok.col, "constant '%.*s%s' is defined twice",
                    SHOWN(P->tok.len), P->text + P->tok.off, MORE(P->tok.len));
    l.name = tok_dup(P);
    if (l.name == NULL)
        return nomem(P);
    lex(P);
    if (P->tok.kind != T_ASSIGN) {
        rc = expected(P, "'=' after the constant's name");
        goto fail;
    }
    lex(P);
    rc = parse_const_expr(P, &l.expr, &l.value);
    if (rc != CES_OK)
        goto fail;
    rc = expect_eol(P, "the constant's value");
    if (rc != CES_OK)
        goto fail;
    rc = add_entry(P, &P->prog->lets, &P->prog->let_names, sizeof(l), &l, l.name);
    if (rc != CES_OK)
        goto fail;
    return CES_OK;
fail:
    ces_free(P->ctx, l.name);
    return rc;
}

/* The name of a new buffer or signal; checks it is not taken. */
static int new_object_name(struct parser *P, const char *what, char **name)
{
    const char *s = P->text + P->tok.off;

    if (P->tok.kind != T_IDENT) {
        char buf[64];

        snprintf(buf, sizeof(buf), "a %s name", what);
        return expected(P, buf);
    }
    if (find_buffer(P->prog, s, P->tok.len) >= 0)
        return perr(P, CES_ERR_SEMANTIC, P->tok.col, "'%.*s%s' is already declared as a buffer",
                    SHOWN(P->tok.len), s, MORE(P->tok.len));
    if (find_signal(P->prog, s, P->tok.len) >= 0)
        return perr(P, CES_ERR_SEMANTIC, P->tok.col, "'%.*s%s' is already declared as a signal",
                    SHOWN(P->tok.len), s, MORE(P->tok.len));
    *name = tok_dup(P);
    if (*name == NULL)
        return nomem(P);
    lex(P);
    return CES_OK;
}

static int parse_buffer(struct parser *P, uint32_t col)
{
    struct ces_pbuf b = {NULL, CES_EX_NONE, 0};
    int64_t v;
    uint32_t vcol;
    int rc = header_allowed(P, "buffer", col);

    if (rc != CES_OK)
        return rc;
    lex(P);
    rc = new_object_name(P, "buffer", &b.name);
    if (rc != CES_OK)
        return rc;
    vcol = P->tok.col;
    rc = parse_const_expr(P, &b.expr, &v);
    if (rc != CES_OK)
        goto fail;
    if (v < 1 || (uint64_t)v > CES_MAX_BYTES) {
        rc = perr(P, CES_ERR_SEMANTIC, vcol,
                  "buffer %.*s%s has size %" PRId64 ": expected 1..2^48 bytes",
                  CES_SHOWN(b.name), v);
        goto fail;
    }
    b.size = (uint64_t)v;
    rc = expect_eol(P, "the buffer's size");
    if (rc != CES_OK)
        goto fail;
    rc = add_entry(P, &P->prog->buffers, &P->prog->buffer_names, sizeof(b), &b, b.name);
    if (rc != CES_OK)
        goto fail;
    return CES_OK;
fail:
    ces_free(P->ctx, b.name);
    return rc;
}

static int parse_signal(struct parser *P, uint32_t col)
{
    struct ces_psig s = {NULL, 0, CES_EX_NONE, 0};
    int64_t v;
    uint32_t vcol;
    int rc = header_allowed(P, "signal", col);

    if (rc != CES_OK)
        return rc;
    lex(P);
    rc = new_object_name(P, "signal", &s.name);
    if (rc != CES_OK)
        return rc;
    if (tok_is(P, "u32")) {
        s.width = CES_U32;
    } else if (tok_is(P, "u64")) {
        s.width = CES_U64;
    } else {
        rc = expected(P, "the signal's width 'u32' or 'u64'");
        goto fail;
    }
    lex(P);
    vcol = P->tok.col;
    rc = parse_const_expr(P, &s.expr, &v);
    if (rc != CES_OK)
        goto fail;
    if (v < 1 || v > (1 << 24)) {
        rc = perr(P, CES_ERR_SEMANTIC, vcol,
                  "signal %.*s%s has %" PRId64 " slots: expected 1..16777216",
                  CES_SHOWN(s.name), v);
        goto fail;
    }
    s.slots = (uint32_t)v;
    rc = expect_eol(P, "the signal's slot count");
    if (rc != CES_OK)
        goto fail;
    rc = add_entry(P, &P->prog->signals, &P->prog->signal_names, sizeof(s), &s, s.name);
    if (rc != CES_OK)
        goto fail;
    return CES_OK;
fail:
    ces_free(P->ctx, s.name);
    return rc;
}

static int parse_phase(struct parser *P, uint32_t col)
{
    struct ces_pphase ph = {0, 0, P->prog->ops.len, 0, P->line};
    uint64_t reps;
    bool big;

    if (!P->seen_ranks)
        return perr(P, CES_ERR_PARSE, col, "expected 'ranks N' before the first 'phase'");
    lex(P);
    if (tok_is(P, "eager"))
        ph.kind = CES_PHASE_EAGER;
    else if (tok_is(P, "graph"))
        ph.kind = CES_PHASE_GRAPH;
    else
        return expected(P, "'eager' or 'graph' after 'phase'");
    lex(P);
    if (!tok_numbered(P, 'x', &reps, &big))
        return expected(P, "a repeat count 'xK' (K >= 1) after the phase kind");
    if (big || reps < 1)
        return perr(P, CES_ERR_PARSE, P->tok.col,
                    "expected a repeat count x1..x4294967295, found '%.*s%s'", SHOWN(P->tok.len),
                    P->text + P->tok.off, MORE(P->tok.len));
    ph.reps = (uint32_t)reps;
    lex(P);
    if (P->tok.kind != T_EOL)
        return expect_eol(P, "the phase's repeat count");
    if (ces_vec_push(P->ctx, &P->prog->phases, sizeof(ph), &ph) != CES_OK)
        return nomem(P);
    P->in_phases = true;
    return CES_OK;
}

/* --- op lines ------------------------------------------------------------- */

static int parse_region(struct parser *P, struct ces_pregion *reg, const char *role)
{
    char buf[96];
    int64_t b;
    int rc;

    if (P->tok.kind != T_IDENT) {
        snprintf(buf, sizeof(buf), "%s region 'NAME[lo:hi]'", role);
        return expected(P, buf);
    }
    b = find_buffer(P->prog, P->text + P->tok.off, P->tok.len);
    if (b < 0 && find_signal(P->prog, P->text + P->tok.off, P->tok.len) >= 0)
        return perr(P, CES_ERR_SEMANTIC, P->tok.col,
                    "'%.*s%s' is a signal: %s region needs a buffer", SHOWN(P->tok.len),
                    P->text + P->tok.off, MORE(P->tok.len), role);
    if (b < 0)
        return perr(
            P, CES_ERR_SEMANTIC, P->tok.col,
            "unknown buffer '%.*s%s': declare it with 'buffer %.*s%s SIZE' before the phases",
            SHOWN(P->tok.len), P->text + P->tok.off, MORE(P->tok.len), SHOWN(P->tok.len),
            P->text + P->tok.off, MORE(P->tok.len));
    reg->buf = (uint32_t)b;
    reg->line = P->line;
    reg->col = P->tok.col;
    reg->rank = CES_EX_NONE;
    lex(P);
    if (P->tok.kind != T_LBRACK)
        return expected(P, "'[' after the buffer name");
    lex(P);
    rc = parse_expr(P, &reg->lo);
    if (rc != CES_OK)
        return rc;
    if (P->tok.kind != T_COLON)
        return expected(P, "':' between the region's lower and upper bounds");
    lex(P);
    rc = parse_expr(P, &reg->hi);
    if (rc != CES_OK)
        return rc;
    if (P->tok.kind != T_RBRACK)
        return expected(P, "']' after the region's upper bound");
    lex(P);
    if (P->tok.kind == T_AT) {
        lex(P);
        rc = parse_rank(P, &reg->rank);
    }
    return rc;
}

static int parse_slot(struct parser *P, struct ces_pslot *slot, bool may_all)
{
    int64_t s;
    int rc;

    if (P->tok.kind != T_IDENT)
        return expected(P, "a slot 'NAME[index]'");
    s = find_signal(P->prog, P->text + P->tok.off, P->tok.len);
    if (s < 0 && find_buffer(P->prog, P->text + P->tok.off, P->tok.len) >= 0)
        return perr(P, CES_ERR_SEMANTIC, P->tok.col, "'%.*s%s' is a buffer: a slot needs a signal",
                    SHOWN(P->tok.len), P->text + P->tok.off, MORE(P->tok.len));
    if (s < 0)
        return perr(
            P, CES_ERR_SEMANTIC, P->tok.col,
            "unknown signal '%.*s%s': declare it with 'signal %.*s%s u32|u64 SLOTS' before the "
            "phases",
            SHOWN(P->tok.len), P->text + P->tok.off, MORE(P->tok.len), SHOWN(P->tok.len),
            P->text + P->tok.off, MORE(P->tok.len));
    slot->sig = (uint32_t)s;
    slot->line = P->line;
    slot->col = P->tok.col;
    slot->rank = CES_EX_NONE;
    slot->all = 0;
    lex(P);
    if (P->tok.kind != T_LBRACK)
        return expected(P, "'[' after the signal name");
    lex(P);
    rc = parse_expr(P, &slot->idx);
    if (rc != CES_OK)
        return rc;
    if (P->tok.kind != T_RBRACK)
        return expected(P, "']' after the slot index");
    lex(P);
    if (P->tok.kind != T_AT)
        return CES_OK;
    lex(P);
    if (P->tok.kind == T_STAR) {
        if (!may_all)
            return perr(P, CES_ERR_SEMANTIC, P->tok.col,
                        "a wait needs one rank's slot: '@*' is only allowed in a write");
        slot->all = 1;
        lex(P);
        return CES_OK;
    }
    return parse_rank(P, &slot->rank);
}

static int parse_event(struct parser *P, uint32_t *idx)
{
    struct ces_vec *ev = &P->prog->events;
    int64_t k;
    char *name;
    int rc;

    if (P->tok.kind != T_IDENT)
        return expected(P, "an event name");
    k = ces_names_find(&P->prog->event_names, P->text + P->tok.off, P->tok.len);
    if (k >= 0) {
        *idx = (uint32_t)k;
        lex(P);
        return CES_OK;
    }
    name = tok_dup(P);
    if (name == NULL)
        return nomem(P);
    rc = add_entry(P, ev, &P->prog->event_names, sizeof(name), &name, name);
    if (rc != CES_OK) {
        ces_free(P->ctx, name);
        return rc;
    }
    *idx = (uint32_t)(ev->len - 1);
    lex(P);
    return CES_OK;
}

static int find_op_kind(const struct parser *P)
{
    for (int k = 0; k < CES_OP_COUNT; k++) {
        if (tok_is(P, ces_op_kind_name(k)))
            return k;
    }
    return -1;
}

static int parse_op(struct parser *P)
{
    struct ces_pop op;
    const struct ces_pregion *last = NULL; /* the region that ends the op, if one does */
    struct ces_pphase *ph;
    uint64_t num;
    bool big;
    int rc = CES_OK, op_stream_given = 0;

    memset(&op, 0, sizeof(op));
    op.line = P->line;
    op.who_col = P->tok.col;
    op.value = CES_EX_NONE;
    op.a.lo = op.a.hi = op.a.rank = CES_EX_NONE;
    op.b.lo = op.b.hi = op.b.rank = CES_EX_NONE;
    op.slot.idx = op.slot.rank = CES_EX_NONE;
    if (!P->in_phases)
        return perr(P, CES_ERR_PARSE, P->tok.col,
                    "op line before the first 'phase': expected 'phase eager xK' or 'phase graph "
                    "xK' first");
    if (tok_is(P, "r")) {
        lex(P);
        if (P->tok.kind == T_INT || P->tok.kind == T_BIGINT)
            return expected(P, "'*' after 'r' (a rank is one token: r0, r1, ...)");
        if (P->tok.kind != T_STAR)
            return expected(P, "'*' or a rank number after 'r'");
        op.all_ranks = 1;
    } else {
        if (!tok_numbered(P, 'r', &num, &big))
            return expected(P, "'rN' or 'r*'");
        if (big || num >= P->prog->ranks)
            return perr(P, CES_ERR_SEMANTIC, P->tok.col,
                        "rank r%.*s%s is out of range: ranks are r0..r%" PRIu32,
                        SHOWN(P->tok.len - 1), P->text + P->tok.off + 1, MORE(P->tok.len - 1),
                        P->prog->ranks - 1);
        op.rank = (uint32_t)num;
    }
    lex(P);
    if (P->tok.kind == T_IDENT && P->text[P->tok.off] == 's' && !tok_is(P, "s")) {
        if (!tok_numbered(P, 's', &num, &big))
            return expected(P, "a stream 'sN', 'over' or ':'");
        if (big || num >= P->prog->streams)
            return perr(P, CES_ERR_SEMANTIC, P->tok.col,
                        "stream s%.*s%s is out of range: streams are s0..s%" PRIu32,
                        SHOWN(P->tok.len - 1), P->text + P->tok.off + 1, MORE(P->tok.len - 1),
                        P->prog->streams - 1);
        op.stream = (uint32_t)num;
        op_stream_given = 1;
        lex(P);
    }
    if (tok_is(P, "over")) {
        lex(P);
        if (!tok_is(P, "p"))
            return expected(P, "'p' or 'p*' after 'over'");
        lex(P);
        op.over = CES_OVER_PEERS;
        if (P->tok.kind == T_STAR) {
            op.over = CES_OVER_ALL;
            lex(P);
        }
    }
    if (P->tok.kind != T_COLON)
        return expected(P, op.over || find_op_kind(P) >= 0 ? "':' before the op"
                           : op_stream_given               ? "'over' or ':'"
                                                           : "a stream 'sN', 'over' or ':'");
    lex(P);
    if (P->tok.kind != T_IDENT || find_op_kind(P) < 0)
        return expected(P, "an op (copy, batch, end, write, wait, fence, flush, record, await, "
                           "produce or consume)");
    op.kind = (uint8_t)find_op_kind(P);
    op.col = P->tok.col;
    P->allowed = ALLOW_R | ALLOW_N | ALLOW_I | (op.over ? ALLOW_P : 0);
    P->in_header = false;
    P->uses_i = false;
    lex(P);
    switch (op.kind) {
    case CES_OP_COPY:
        rc = parse_region(P, &op.a, "a source");
        if (rc == CES_OK && P->tok.kind != T_ARROW)
            rc = expected(P, op.a.rank == CES_EX_NONE
                                 ? "'@' (a rank) or '->' between the copy's source and destination"
                                 : "'->' between the copy's source and destination");
        if (rc == CES_OK) {
            lex(P);
            rc = parse_region(P, &op.b, "a destination");
        }
        last = &op.b;
        break;
    case CES_OP_WRITE:
        rc = parse_slot(P, &op.slot, true);
        if (rc == CES_OK && P->tok.kind != T_ASSIGN)
            rc = expected(P, op.slot.rank == CES_EX_NONE && !op.slot.all
                                 ? "'@' (a rank or '*') or '=' after the written slot"
                                 : "'=' after the written slot");
        if (rc == CES_OK) {
            lex(P);
            rc = parse_expr(P, &op.value);
        }
        break;
    case CES_OP_WAIT:
        rc = parse_slot(P, &op.slot, false);
        if (rc == CES_OK && P->tok.kind != T_GEQ && P->tok.kind != T_EQ)
            rc = expected(P, op.slot.rank == CES_EX_NONE
                                 ? "'@' (a rank), '>=' or '==' after the awaited slot"
                                 : "'>=' or '==' after the awaited slot");
        if (rc == CES_OK) {
            op.cmp = P->tok.kind == T_EQ ? CES_CMP_EQ : CES_CMP_GEQ;
            lex(P);
            rc = parse_expr(P, &op.value);
        }
        break;
    case CES_OP_RECORD:
    case CES_OP_AWAIT:
        rc = parse_event(P, &op.event);
        break;
    case CES_OP_PRODUCE:
        rc = parse_region(P, &op.a, "a");
        last = &op.a;
        break;
    case CES_OP_CONSUME:
        rc = parse_region(P, &op.a, "a");
        if (rc == CES_OK && P->tok.kind == T_EQ) {
            lex(P);
            op.expect = 1;
            rc = parse_region(P, &op.b, "an expected");
            last = &op.b;
        } else if (rc == CES_OK && P->tok.kind != T_EOL) {
            rc = expected(P, op.a.rank == CES_EX_NONE
                                 ? "'@' (a rank), '==' and the expected region, or end of line, "
                                   "after the consumed region"
                                 : "'==' and the expected region, or end of line, after the "
                                   "consumed region");
        }
        break;
    default:
        break;
    }
    if (rc != CES_OK)
        return rc;
    /* a region that ends the op may still take its rank */
    if (last != NULL && last->rank == CES_EX_NONE && P->tok.kind != T_EOL)
        return expected(P, "'@' (a rank) or end of line after the op");
    rc = expect_eol(P, "the op");
    if (rc != CES_OK)
        return rc;
    op.uses_i = P->uses_i;
    if (ces_vec_push(P->ctx, &P->prog->ops, sizeof(op), &op) != CES_OK)
        return nomem(P);
    ph = &CES_VEC_AT(&P->prog->phases, struct ces_pphase, P->prog->phases.len - 1);
    ph->nops++;
    return CES_OK;
}

/* --- statements ----------------------------------------------------------- */

static int parse_cesync(struct parser *P)
{
    if (!tok_is(P, "cesync"))
        return expected(P, "'cesync 1' as the first statement");
    lex(P);
    if (P->tok.kind != T_INT && P->tok.kind != T_BIGINT)
        return expected(P, "the format version after 'cesync'");
    if (P->tok.kind == T_BIGINT || P->tok.ival != CES_FORMAT_VERSION)
        return perr(P, CES_ERR_PARSE, P->tok.col,
                    "unsupported format version %.*s%s: expected 'cesync %d'", SHOWN(P->tok.len),
                    P->text + P->tok.off, MORE(P->tok.len), CES_FORMAT_VERSION);
    lex(P);
    P->seen_cesync = true;
    return expect_eol(P, "'cesync 1'");
}

static int parse_statement(struct parser *P)
{
    uint32_t col = P->tok.col;
    uint64_t num;
    bool big;

    if (!P->seen_cesync)
        return parse_cesync(P);
    if (P->tok.kind != T_IDENT)
        return expected(P, "a statement (ranks, streams, connections, let, buffer, signal, "
                           "phase or an op line 'rN : op')");
    if (tok_is(P, "cesync"))
        return perr(P, CES_ERR_PARSE, col, "'cesync' given twice: it is only the first statement");
    if (tok_is(P, "ranks"))
        return parse_count(P, "ranks", col);
    if (tok_is(P, "streams"))
        return parse_count(P, "streams", col);
    if (tok_is(P, "connections"))
        return parse_count(P, "connections", col);
    if (tok_is(P, "let"))
        return parse_let(P, col);
    if (tok_is(P, "buffer"))
        return parse_buffer(P, col);
    if (tok_is(P, "signal"))
        return parse_signal(P, col);
    if (tok_is(P, "phase"))
        return parse_phase(P, col);
    if (tok_is(P, "r") || tok_numbered(P, 'r', &num, &big))
        return parse_op(P);
    return perr(P, CES_ERR_PARSE, col,
                "unknown statement '%.*s%s': expected ranks, streams, connections, let, buffer, "
                "signal, phase or an op line 'rN : op'",
                SHOWN(P->tok.len), P->text + P->tok.off, MORE(P->tok.len));
}

/* --- the program ---------------------------------------------------------- */

void ces_prog_destroy(struct ces_prog *p)
{
    struct ces_ctx *ctx;

    if (p == NULL)
        return;
    ctx = p->ctx;
    for (size_t k = 0; k < p->lets.len; k++)
        ces_free(ctx, CES_VEC_AT(&p->lets, struct ces_plet, k).name);
    for (size_t k = 0; k < p->buffers.len; k++)
        ces_free(ctx, CES_VEC_AT(&p->buffers, struct ces_pbuf, k).name);
    for (size_t k = 0; k < p->signals.len; k++)
        ces_free(ctx, CES_VEC_AT(&p->signals, struct ces_psig, k).name);
    for (size_t k = 0; k < p->events.len; k++)
        ces_free(ctx, CES_VEC_AT(&p->events, char *, k));
    ces_vec_free(ctx, &p->exprs);
    ces_vec_free(ctx, &p->lets);
    ces_vec_free(ctx, &p->buffers);
    ces_vec_free(ctx, &p->signals);
    ces_vec_free(ctx, &p->events);
    ces_vec_free(ctx, &p->phases);
    ces_vec_free(ctx, &p->ops);
    ces_names_free(ctx, &p->let_names);
    ces_names_free(ctx, &p->buffer_names);
    ces_names_free(ctx, &p->signal_names);
    ces_names_free(ctx, &p->event_names);
    ces_free(ctx, p->file);
    ces_free(ctx, p);
}

int ces_prog_parse(struct ces_ctx *ctx, const char *text, size_t len, const char *file,
                   struct ces_prog **out)
{
    struct parser P;
    struct ces_prog *p;
    size_t text0 = 0, end; /* where the text starts (after a BOM) and ends */
    uint32_t col;
    int rc = CES_OK;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (out == NULL || (text == NULL && len > 0))
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_prog_parse: NULL argument");
    *out = NULL;
    /* the bound ces_prog_parse_file reads up to, before a byte is read */
    if (len > CES_SOURCE_MAX)
        return ces_ctx_error(ctx, CES_ERR_LIMIT, "%s: larger than %zu bytes, more than it may hold",
                             file != NULL ? file : "<input>", CES_SOURCE_MAX);
    p = ces_malloc(ctx, sizeof(*p));
    if (p == NULL)
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory parsing %s",
                             file != NULL ? file : "<input>");
    memset(p, 0, sizeof(*p));
    p->ctx = ctx;
    p->streams = 1;
    p->file = ces_strdup(ctx, file != NULL ? file : "<input>");
    if (p->file == NULL) {
        rc = ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory parsing %s",
                           file != NULL ? file : "<input>");
        goto fail;
    }
    memset(&P, 0, sizeof(P));
    P.ctx = ctx;
    P.prog = p;
    P.text = text != NULL ? text : "";
    P.len = len;
    /* A UTF-8 byte order mark, which some editors put first, is skipped: the
     * columns of line 1 count from after it. */
    if (len >= 3 && memcmp(P.text, "\xef\xbb\xbf", 3) == 0)
        P.pos = text0 = 3;
    /* A NUL byte is said where it is, whatever token it splits. */
    {
        const char *nul = memchr(P.text, '\0', len);

        if (nul != NULL) {
            size_t at = (size_t)(nul - P.text), start = at;
            uint32_t line = 1;

            while (start > 0 && P.text[start - 1] != '\n')
                start--;
            for (size_t i = 0; i < start; i++)
                line += P.text[i] == '\n';
            rc = ces_ctx_error(ctx, CES_ERR_PARSE, "%s:%" PRIu32 ":%zu: a NUL byte: a schedule "
                               "is text (is this a binary file?)", p->file, line,
                               at - start + 1 - (line == 1 ? P.pos : 0));
            goto fail;
        }
    }
    for (P.line = 1; P.pos <= P.len; P.line++) {
        P.line_start = P.pos;
        P.stmt_nodes = 0;
        lex(&P);
        if (P.tok.kind != T_EOL) {
            rc = parse_statement(&P);
            if (rc != CES_OK)
                goto fail;
        }
        while (P.pos < P.len && P.text[P.pos] != '\n')
            P.pos++;
        P.pos++; /* past the newline (or past the end: the loop stops) */
    }
    /* where the input ends, for errors there: the last line, just past
     * its last character (a final newline ends that line, no new one) */
    P.line -= (len > 0 && P.text[len - 1] == '\n') ? 2 : 1;
    end = len - (len > text0 && P.text[len - 1] == '\n');
    end -= end > text0 && P.text[end - 1] == '\r';
    for (P.line_start = end; P.line_start > text0 && P.text[P.line_start - 1] != '\n';)
        P.line_start--;
    col = (uint32_t)(end - P.line_start + 1);
    if (!P.seen_cesync) {
        rc = perr(&P, CES_ERR_PARSE, col,
                  "expected 'cesync 1' as the first statement, found end of input");
        goto fail;
    }
    if (!P.seen_ranks) {
        rc = perr(&P, CES_ERR_PARSE, col,
                  "expected 'ranks N' in the header, found end of input");
        goto fail;
    }
    if (p->phases.len == 0) {
        rc = perr(&P, CES_ERR_PARSE, col,
                  "expected 'phase eager xK' or 'phase graph xK', found end of input");
        goto fail;
    }
    *out = p;
    return CES_OK;
fail:
    ces_prog_destroy(p);
    return rc;
}

int ces_read_stream(struct ces_ctx *ctx, FILE *f, const char *name, size_t max, char **text,
                    size_t *len)
{
    char *buf = NULL;
    size_t n = 0, cap = 0;
    /* the most a buffer needs: max bytes, one past them to see it is
     * more, and the NUL (doubling past it held 512 MiB to refuse a stream
     * of more than 256) */
    size_t most = max > SIZE_MAX - 2 ? SIZE_MAX : max + 2;

    *text = NULL;
    *len = 0;
    for (;;) {
        size_t got;

        /* one byte kept free for the terminating NUL */
        if (cap - n < 4096 && cap < most) {
            size_t ncap = cap == 0 ? 8192 : cap * 2;
            char *nb;

            if (ncap > most || ncap <= cap)
                ncap = most;
            nb = ces_realloc(ctx, buf, ncap);

            if (nb == NULL) {
                ces_free(ctx, buf);
                return ces_ctx_error(ctx, CES_ERR_NOMEM, "%s: out of memory reading", name);
            }
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
        if (n > max) {
            ces_free(ctx, buf);
            return ces_ctx_error(ctx, CES_ERR_LIMIT, "%s: larger than %zu bytes, more than it may hold",
                                 name, max);
        }
        /* a NUL byte is no text: what came so far is enough for the parse
         * to say where it is (a device of zeros is not read whole first) */
        if (memchr(buf + n - got, '\0', got) != NULL)
            break;
    }
    if (ferror(f)) {
        ces_free(ctx, buf);
        return ces_ctx_error(ctx, CES_ERR_IO, "%s: read error: %s", name, strerror(errno));
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return CES_OK;
}

int ces_prog_parse_file(struct ces_ctx *ctx, const char *path, struct ces_prog **out)
{
    FILE *f = NULL;
    char *buf = NULL;
    size_t len = 0;
    bool is_stdin;
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (path == NULL || out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_prog_parse_file: NULL argument");
    *out = NULL;
    if (path[0] == '\0')
        return ces_ctx_error(ctx, CES_ERR_INVALID, "'': a schedule file's path is empty");
    is_stdin = strcmp(path, "-") == 0;
    f = is_stdin ? stdin : ces_fopen_read(path);
    if (f == NULL)
        return ces_ctx_error(ctx, CES_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    rc = ces_read_stream(ctx, f, is_stdin ? "<stdin>" : path, CES_SOURCE_MAX, &buf, &len);
    if (rc == CES_OK)
        rc = ces_prog_parse(ctx, buf, len, is_stdin ? "<stdin>" : path, out);
    ces_free(ctx, buf);
    if (!is_stdin)
        fclose(f);
    return rc;
}
