/*
 * core/print.c - the canonical text of a parsed .ces program: no comments,
 * one space between tokens, the header in a fixed order, expressions
 * without spaces and with only the parentheses their tree needs.  Printing
 * the parse of canonical text gives the same text.
 */
#include "prog.h"

#include <inttypes.h>

/* Binding strength: sums < products < unary minus < leaves. */
static int prec(const struct ces_pexpr *x)
{
    switch (x->kind) {
    case CES_EX_ADD:
    case CES_EX_SUB:
        return 1;
    case CES_EX_MUL:
    case CES_EX_DIV:
    case CES_EX_MOD:
        return 2;
    case CES_EX_NEG:
        return 3;
    default:
        return 4;
    }
}

static const char *op_text(int kind)
{
    switch (kind) {
    case CES_EX_ADD: return "+";
    case CES_EX_SUB: return "-";
    case CES_EX_MUL: return "*";
    case CES_EX_DIV: return "/";
    default: return "%";
    }
}

static const char var_letter[] = "rnpi";

/* Prints e, parenthesised when its binding is weaker than `min`.  A
 * negation takes none after an operator (`a*-b`, `a--b`, `--b`): the
 * parentheses printed are those the tree needs, which its source had too,
 * so canonical text nests no deeper than the text it came from, whose
 * depth the parser bounds. */
static void print_expr(struct ces_sb *sb, const struct ces_prog *p, int32_t e, int min)
{
    const struct ces_pexpr *x = CES_PEXPR(p, e);
    bool paren = prec(x) < min;

    if (paren)
        ces_sb_puts(sb, "(");
    switch (x->kind) {
    case CES_EX_INT:
        ces_sb_printf(sb, "%" PRId64, x->value);
        break;
    case CES_EX_VAR:
        ces_sb_printf(sb, "$%c", var_letter[x->var]);
        break;
    case CES_EX_CONST:
        ces_sb_printf(sb, "$%s", CES_VEC_AT(&p->lets, struct ces_plet, (size_t)x->value).name);
        break;
    case CES_EX_NEG:
        ces_sb_puts(sb, "-");
        print_expr(sb, p, x->a, 3);
        break;
    default:
        /* left associative: the right operand of the same strength needs
         * parentheses, the left one does not */
        print_expr(sb, p, x->a, prec(x));
        ces_sb_puts(sb, op_text(x->kind));
        print_expr(sb, p, x->b, prec(x) + 1);
        break;
    }
    if (paren)
        ces_sb_puts(sb, ")");
}

void ces_prog_print_expr(struct ces_sb *sb, const struct ces_prog *p, int32_t e)
{
    print_expr(sb, p, e, 0);
}

/* The rank after '@': bare when a number or a $name, else parenthesised. */
static void print_rank(struct ces_sb *sb, const struct ces_prog *p, int32_t e)
{
    int k = CES_PEXPR(p, e)->kind;

    ces_sb_puts(sb, "@");
    if ((k == CES_EX_INT && CES_PEXPR(p, e)->value >= 0) || k == CES_EX_VAR ||
        k == CES_EX_CONST) {
        print_expr(sb, p, e, 0);
    } else {
        ces_sb_puts(sb, "(");
        print_expr(sb, p, e, 0);
        ces_sb_puts(sb, ")");
    }
}

static void print_region(struct ces_sb *sb, const struct ces_prog *p, const struct ces_pregion *r)
{
    ces_sb_printf(sb, "%s[", CES_VEC_AT(&p->buffers, struct ces_pbuf, r->buf).name);
    print_expr(sb, p, r->lo, 0);
    ces_sb_puts(sb, ":");
    print_expr(sb, p, r->hi, 0);
    ces_sb_puts(sb, "]");
    if (r->rank != CES_EX_NONE)
        print_rank(sb, p, r->rank);
}

static void print_slot(struct ces_sb *sb, const struct ces_prog *p, const struct ces_pslot *s)
{
    ces_sb_printf(sb, "%s[", CES_VEC_AT(&p->signals, struct ces_psig, s->sig).name);
    print_expr(sb, p, s->idx, 0);
    ces_sb_puts(sb, "]");
    if (s->all)
        ces_sb_puts(sb, "@*");
    else if (s->rank != CES_EX_NONE)
        print_rank(sb, p, s->rank);
}

static void print_op(struct ces_sb *sb, const struct ces_prog *p, const struct ces_pop *op)
{
    if (op->all_ranks)
        ces_sb_puts(sb, "r*");
    else
        ces_sb_printf(sb, "r%" PRIu32, op->rank);
    if (op->stream != 0)
        ces_sb_printf(sb, " s%" PRIu32, op->stream);
    if (op->over == CES_OVER_PEERS)
        ces_sb_puts(sb, " over p");
    else if (op->over == CES_OVER_ALL)
        ces_sb_puts(sb, " over p*");
    ces_sb_printf(sb, " : %s", ces_op_kind_name(op->kind));
    switch (op->kind) {
    case CES_OP_COPY:
        ces_sb_puts(sb, " ");
        print_region(sb, p, &op->a);
        ces_sb_puts(sb, " -> ");
        print_region(sb, p, &op->b);
        break;
    case CES_OP_WRITE:
    case CES_OP_WAIT:
        ces_sb_puts(sb, " ");
        print_slot(sb, p, &op->slot);
        ces_sb_puts(sb, op->kind == CES_OP_WRITE ? " = " : op->cmp == CES_CMP_EQ ? " == " : " >= ");
        print_expr(sb, p, op->value, 0);
        break;
    case CES_OP_RECORD:
    case CES_OP_AWAIT:
        ces_sb_printf(sb, " %s", CES_VEC_AT(&p->events, char *, op->event));
        break;
    case CES_OP_PRODUCE:
        ces_sb_puts(sb, " ");
        print_region(sb, p, &op->a);
        break;
    case CES_OP_CONSUME:
        ces_sb_puts(sb, " ");
        print_region(sb, p, &op->a);
        if (op->expect) {
            ces_sb_puts(sb, " == ");
            print_region(sb, p, &op->b);
        }
        break;
    default:
        break;
    }
    ces_sb_puts(sb, "\n");
}

int ces_prog_print(struct ces_ctx *ctx, const struct ces_prog *p, char **text, size_t *len)
{
    struct ces_sb sb;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (p == NULL || text == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_prog_print: NULL argument");
    ces_sb_init(&sb, ctx);
    /* ranks, streams and connections print as their values: a let they used
     * prints later, and the values are what the schedule means */
    ces_sb_printf(&sb, "cesync %d\nranks %" PRIu32 "\nstreams %" PRIu32 "\n", CES_FORMAT_VERSION,
                  p->ranks, p->streams);
    ces_sb_connections(&sb, p->connections);
    for (size_t k = 0; k < p->lets.len; k++) {
        const struct ces_plet *l = &CES_VEC_AT(&p->lets, struct ces_plet, k);

        ces_sb_printf(&sb, "let %s = ", l->name);
        print_expr(&sb, p, l->expr, 0);
        ces_sb_puts(&sb, "\n");
    }
    for (size_t k = 0; k < p->buffers.len; k++) {
        const struct ces_pbuf *b = &CES_VEC_AT(&p->buffers, struct ces_pbuf, k);

        ces_sb_printf(&sb, "buffer %s ", b->name);
        print_expr(&sb, p, b->expr, 0);
        ces_sb_puts(&sb, "\n");
    }
    for (size_t k = 0; k < p->signals.len; k++) {
        const struct ces_psig *s = &CES_VEC_AT(&p->signals, struct ces_psig, k);

        ces_sb_printf(&sb, "signal %s u%" PRIu32 " ", s->name, s->width);
        print_expr(&sb, p, s->expr, 0);
        ces_sb_puts(&sb, "\n");
    }
    for (size_t f = 0; f < p->phases.len; f++) {
        const struct ces_pphase *ph = &CES_VEC_AT(&p->phases, struct ces_pphase, f);

        ces_sb_printf(&sb, "phase %s x%" PRIu32 "\n",
                      ph->kind == CES_PHASE_GRAPH ? "graph" : "eager", ph->reps);
        for (size_t k = 0; k < ph->nops; k++)
            print_op(&sb, p, &CES_VEC_AT(&p->ops, struct ces_pop, ph->first_op + k));
    }
    return ces_sb_finish(&sb, text, len);
}
