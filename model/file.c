/*
 * model/file.c - the one override path of the machine model: a model file of
 * `key = value` lines parsed over a kind's table, and the printer that
 * `cesync bench --calibrate --model-out` uses to write one.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ces_mfield {
    const char *name;
    const char *unit;
    size_t offset;
    int is_f64;
};

static const struct ces_mfield ces_model_fields_[] = {
#define CES_X_(f, unit) {#f, unit, offsetof(struct ces_model, f), 0},
    CES_MODEL_U32_FIELDS(CES_X_)
#undef CES_X_
#define CES_X_(f, unit) {#f, unit, offsetof(struct ces_model, f), 1},
    CES_MODEL_F64_FIELDS(CES_X_)
#undef CES_X_
};

#define CES_MODEL_NFIELDS (sizeof(ces_model_fields_) / sizeof(ces_model_fields_[0]))

/* The largest cost (us) or bandwidth (GB/s) a model file may give; the
 * smallest bandwidth is its inverse. */
#define CES_MODEL_VALUE_MAX 1e9

/* Whether d lies in the range a model file may give field f: bounded so
 * that no prediction can overflow to infinity (2^24 ops of 2^48 bytes at
 * the slowest bandwidth stay finite; 1e308 us once summed to inf, which the
 * prediction took for a stall) and none runs backwards.  False for NaN. */
static bool in_range(const struct ces_mfield *f, double d)
{
    double lo = strstr(f->name, "_gbps") != NULL ? 1.0 / CES_MODEL_VALUE_MAX : 0.0;

    return d >= lo && d <= CES_MODEL_VALUE_MAX;
}

/* Whether a model file may not give integer field f the value 0. */
static bool must_be_positive(const struct ces_mfield *f)
{
    return strcmp(f->name, "max_memops_per_batch") == 0 || strcmp(f->name, "copy_engines") == 0 ||
           strcmp(f->name, "batch_engines") == 0 || strcmp(f->name, "max_ranks") == 0;
}

/* The most ops one cuStreamBatchMemOp takes (CES_CUDA_MAX_MEMOPS of
 * backend/cuda/lower.h): a larger max_memops_per_batch would predict fewer
 * calls than the backend issues. */
#define CES_MODEL_MAX_MEMOPS 255u

/* The fewest ops a memop call may take for the CUDA backend to lower any
 * schedule (ces_model_require refuses fewer): a call that waits carries the
 * watchdog's writes besides the wait, eagerly a progress write, captured an
 * enter and an exit write. */
#define CES_MODEL_MIN_MEMOPS 3u

/* Why max_memops_per_batch may not be below CES_MODEL_MIN_MEMOPS. */
#define CES_MODEL_MIN_MEMOPS_WHY                                                                 \
    "the CUDA backend needs 3 or more (a memop call that waits carries the watchdog's writes "  \
    "besides the wait: eagerly a progress write, captured an enter and an exit write)"

/* Whether integer field f is a yes/no: 0 or 1. */
static bool is_flag(const struct ces_mfield *f) { return strcmp(f->unit, "0/1") == 0; }

/* Shortest text that reads back as exactly d. */
static void fmt_double(char *buf, size_t size, double d)
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            return;
    }
}

int ces_model_check_values(struct ces_ctx *ctx, const struct ces_model *m, const char *who)
{
    int rc = ces_model_check_kind(ctx, m, who);

    if (rc != CES_OK)
        return rc;
    if (m->flag_widths < CES_MODEL_W32 || m->flag_widths > (CES_MODEL_W32 | CES_MODEL_W64))
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "%s: the model's flag_widths is %u: expected CES_MODEL_W32, "
                             "CES_MODEL_W64 or both", who, (unsigned)m->flag_widths);
    if (m->slow_waits > 1)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "%s: the model's slow_waits is %" PRIu32 ": expected 0 or 1", who,
                             m->slow_waits);
    if (m->unlinked > 1)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "%s: the model's unlinked is %" PRIu32 ": expected 0 or 1", who,
                             m->unlinked);
    if (m->max_memops_per_batch > CES_MODEL_MAX_MEMOPS)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "%s: the model's max_memops_per_batch is %" PRIu32 ": expected at "
                             "most %u: cuStreamBatchMemOp takes at most %u ops",
                             who, m->max_memops_per_batch, CES_MODEL_MAX_MEMOPS,
                             CES_MODEL_MAX_MEMOPS);
    if ((m->flag_widths & CES_MODEL_W64) && !m->has_64bit_memops)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "%s: the model's flag_widths has 64 but has_64bit_memops is 0: "
                             "expected has_64bit_memops = 1 for 64-bit flags",
                             who);
    for (size_t i = 0; i < CES_MODEL_NFIELDS; i++) {
        const struct ces_mfield *f = &ces_model_fields_[i];
        double d;
        uint32_t u;

        if (!f->is_f64) {
            memcpy(&u, (const char *)m + f->offset, sizeof(u));
            if (u == 0 && must_be_positive(f))
                return ces_ctx_error(ctx, CES_ERR_INVALID,
                                     "%s: the model's %s is 0: expected 1 or more", who, f->name);
            if (u > 1 && is_flag(f))
                return ces_ctx_error(ctx, CES_ERR_INVALID,
                                     "%s: the model's %s is %" PRIu32 ": expected 0 or 1", who,
                                     f->name, u);
            continue;
        }
        memcpy(&d, (const char *)m + f->offset, sizeof(d));
        if (!in_range(f, d)) {
            char num[40];

            /* exact: %g gave 1e9 + 1 as "1e+09", inside the range named */
            fmt_double(num, sizeof(num), d);
            return ces_ctx_error(ctx, CES_ERR_INVALID, "%s: the model's %s is %s: expected %s",
                                 who, f->name, num,
                                 strstr(f->name, "_gbps") != NULL ? "a bandwidth of 1e-9..1e9"
                                                                  : "a number of 0..1e9");
        }
    }
    if (m->per_graph_copy_us > m->per_copy_us) {
        char g[40], c[40];

        fmt_double(g, sizeof(g), m->per_graph_copy_us);
        fmt_double(c, sizeof(c), m->per_copy_us);
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "%s: the model's per_graph_copy_us is %s, above its per_copy_us %s: "
                             "expected at most per_copy_us",
                             who, g, c);
    }
    if (m->link_gbps < m->peer_copy_gbps) {
        char l[40], c[40];

        fmt_double(l, sizeof(l), m->link_gbps);
        fmt_double(c, sizeof(c), m->peer_copy_gbps);
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "%s: the model's link_gbps is %s, below its peer_copy_gbps %s: "
                             "expected at least peer_copy_gbps (one copy crosses the link)",
                             who, l, c);
    }
    return CES_OK;
}

static const struct ces_mfield *find_field(const char *name, size_t len)
{
    for (size_t i = 0; i < CES_MODEL_NFIELDS; i++)
        if (strlen(ces_model_fields_[i].name) == len &&
            memcmp(ces_model_fields_[i].name, name, len) == 0)
            return &ces_model_fields_[i];
    return NULL;
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static int is_key(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
static int is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == ',' || c == '+' || c == '-';
}

/* One `key = value` line (without its newline), comments already cut. */
struct mline {
    const char *file;
    unsigned line;
    const char *text;
    size_t len;
};

/* "FILE:LINE:COL: WHAT, found 'TOKEN'": the word at the column (cut as
 * every message cuts one), one other character, a byte that is no
 * printable ASCII by its value (as a .ces file's parser names it), or the
 * end of the line. */
static int perr(struct ces_ctx *ctx, const struct mline *l, size_t col, const char *what)
{
    size_t n = 0;

    while (col + n < l->len && is_word(l->text[col + n]))
        n++;
    if (n == 0 && col < l->len &&
        ((unsigned char)l->text[col] < 0x20 || (unsigned char)l->text[col] >= 0x7f))
        return ces_ctx_error(ctx, CES_ERR_PARSE, "%s:%u:%zu: %s, found byte 0x%02x", l->file,
                             l->line, col + 1, what, (unsigned char)l->text[col]);
    if (n == 0 && col < l->len)
        n = 1;
    if (n == 0)
        return ces_ctx_error(ctx, CES_ERR_PARSE, "%s:%u:%zu: %s, found the end of the line",
                             l->file, l->line, col + 1, what);
    return ces_ctx_error(ctx, CES_ERR_PARSE, "%s:%u:%zu: %s, found '%.*s%s'", l->file, l->line,
                         col + 1, what, CES_SHOWN_LEN(n), l->text + col, CES_SHOWN_MORE(n));
}

/* An unknown field (kinds 0) or machine kind (kinds 1) at col, with every
 * name it could have been. */
static int unknown_name(struct ces_ctx *ctx, const struct mline *l, size_t col, int kinds)
{
    char what[CES_MODEL_NFIELDS * 32 + 64];
    size_t at = (size_t)snprintf(what, sizeof(what), "%s",
                                 kinds ? "expected a known machine kind ("
                                       : "expected a field of the machine model (kind, flag_widths");
    const char *name;

    for (uint32_t i = 0; at < sizeof(what); i++) {
        name = kinds ? ces_model_kind_name(i) : i < CES_MODEL_NFIELDS ? ces_model_fields_[i].name
                                                                      : NULL;
        if (name == NULL)
            break;
        at += (size_t)snprintf(what + at, sizeof(what) - at, "%s%s", kinds && i == 0 ? "" : ", ",
                               name);
    }
    if (at < sizeof(what))
        snprintf(what + at, sizeof(what) - at, ")");
    return perr(ctx, l, col, what);
}

/* A field named at col that an earlier line (first_line) already gave. */
static int given_twice(struct ces_ctx *ctx, const struct mline *l, size_t col, size_t len,
                       unsigned first_line)
{
    char what[96];

    snprintf(what, sizeof(what), "`%.*s` given twice (first on line %u)", (int)len, l->text + col,
             first_line);
    return perr(ctx, l, col, what);
}

static int parse_value(struct ces_ctx *ctx, const struct mline *l, size_t col,
                       const struct ces_mfield *f, const char *v, size_t vlen,
                       struct ces_model *m)
{
    char buf[64];
    char *end = NULL;

    if (vlen >= sizeof(buf)) {
        char what[64];

        snprintf(what, sizeof(what), "expected a number of at most %zu characters",
                 sizeof(buf) - 1);
        return perr(ctx, l, col, what);
    }
    memcpy(buf, v, vlen);
    buf[vlen] = '\0';
    errno = 0;
    if (f->is_f64) {
        double d = strtod(buf, &end);

        /* decimal only, as the tools read numbers: strtod takes 0x10 for 16 */
        /* a bandwidth says > 0, which it takes (it said >= 0, and 0 was
         * then refused) */
        if (end == buf || *end != '\0' || strpbrk(buf, "xX") != NULL || isnan(d) || d < 0.0)
            return perr(ctx, l, col,
                        strstr(f->name, "_gbps") != NULL ? "expected a bandwidth > 0"
                                                         : "expected a number >= 0");
        /* strtod's ERANGE: beyond a double, or nearer 0 than it can tell
         * from 0; a subnormal result (ERANGE too) is a number it holds, as
         * ces_model_print writes one */
        if (errno == ERANGE && (d > 1.0 || d == 0.0))
            return perr(ctx, l, col,
                        d > 1.0 ? "expected a number at most 1e9: out of range, too large to "
                                  "represent"
                        : strstr(f->name, "_gbps") != NULL
                            ? "expected a bandwidth of at least 1e-9: out of range, too small "
                              "to represent"
                            : "expected 0 or a number a double can hold: out of range, too "
                              "small to represent");
        if (strstr(f->name, "_gbps") != NULL && d <= 0.0)
            return perr(ctx, l, col, "expected a bandwidth > 0");
        if (!in_range(f, d))
            return perr(ctx, l, col, d > CES_MODEL_VALUE_MAX ? "expected a number at most 1e9"
                                                             : "expected a bandwidth of at least "
                                                               "1e-9");
        memcpy((char *)m + f->offset, &d, sizeof(d));
    } else {
        unsigned long u;

        if (buf[0] < '0' || buf[0] > '9')
            return perr(ctx, l, col, "expected an unsigned integer");
        u = strtoul(buf, &end, 10);
        if (*end != '\0')
            return perr(ctx, l, col, "expected an unsigned integer");
        if (errno != 0 || u > UINT32_MAX)
            return perr(ctx, l, col, "expected an unsigned integer at most 4294967295");
        /* below it parsed and only predict refused it, without the line */
        if (strcmp(f->name, "max_memops_per_batch") == 0 && u < CES_MODEL_MIN_MEMOPS)
            return perr(ctx, l, col,
                        "expected an unsigned integer at least 3: " CES_MODEL_MIN_MEMOPS_WHY);
        if (must_be_positive(f) && u == 0)
            return perr(ctx, l, col, "expected an unsigned integer > 0");
        if (is_flag(f) && u > 1)
            return perr(ctx, l, col, "expected 0 or 1");
        if (strcmp(f->name, "max_memops_per_batch") == 0 && u > CES_MODEL_MAX_MEMOPS)
            return perr(ctx, l, col,
                        "expected an unsigned integer at most 255: cuStreamBatchMemOp takes at "
                        "most 255 ops");
        {
            uint32_t u32 = (uint32_t)u;

            memcpy((char *)m + f->offset, &u32, sizeof(u32));
        }
    }
    return CES_OK;
}

/* The index of field `name` in ces_model_fields_. */
static size_t field_index(const char *name)
{
    return (size_t)(find_field(name, strlen(name)) - ces_model_fields_);
}

/* An error of two fields that bound each other, at the later of their
 * lines in the file (0: not given there, the kind's table or base's); at
 * the file alone where it gave neither. */
static int pair_error(struct ces_ctx *ctx, const char *file, unsigned la, size_t ca, unsigned lb,
                      size_t cb, const char *what)
{
    unsigned line = la > lb ? la : lb;
    size_t col = la > lb ? ca : cb;

    if (line == 0)
        return ces_ctx_error(ctx, CES_ERR_PARSE, "%s: %s", file, what);
    return ces_ctx_error(ctx, CES_ERR_PARSE, "%s:%u:%zu: %s", file, line, col + 1, what);
}

/* The fields that bound each other, checked once the whole file is read (a
 * file may give them in any order): per_graph_copy_us at most per_copy_us
 * (predict took the smaller), link_gbps at least peer_copy_gbps, and 64-bit
 * flags only with 64-bit memops.  Where the file gives per_copy_us but not
 * per_graph_copy_us, the table's per_graph_copy_us is lowered to per_copy_us
 * instead; where it gives peer_copy_gbps but not link_gbps, link_gbps is
 * set to it (a calibration on two GPUs tells them apart no more than the
 * files written before link_gbps did). */
static int check_pairs(struct ces_ctx *ctx, const char *file, struct ces_model *m,
                       const unsigned *field_line, const size_t *field_col, unsigned widths_line,
                       size_t widths_col)
{
    size_t g = field_index("per_graph_copy_us"), c = field_index("per_copy_us");
    size_t l = field_index("link_gbps"), p = field_index("peer_copy_gbps");
    size_t w = field_index("has_64bit_memops");
    char what[200];

    /* a file that lowers per_copy_us below the table's per_graph_copy_us
     * without giving that one lowers it too: the value predict always used */
    if (field_line[g] == 0 && m->per_graph_copy_us > m->per_copy_us)
        m->per_graph_copy_us = m->per_copy_us;
    if (m->per_graph_copy_us > m->per_copy_us) {
        char gv[40], cv[40];

        fmt_double(gv, sizeof(gv), m->per_graph_copy_us);
        fmt_double(cv, sizeof(cv), m->per_copy_us);
        /* at the per_graph_copy_us line where the file gives it */
        snprintf(what, sizeof(what),
                 "expected per_graph_copy_us at most per_copy_us: per_graph_copy_us = %s%s is "
                 "above per_copy_us = %s%s",
                 gv, field_line[g] != 0 ? "" : " (the kind's)", cv,
                 field_line[c] != 0 ? "" : " (the kind's)");
        if (field_line[g] != 0)
            return pair_error(ctx, file, field_line[g], field_col[g], 0, 0, what);
        return pair_error(ctx, file, field_line[c], field_col[c], 0, 0, what);
    }
    if (field_line[l] == 0 && field_line[p] != 0)
        m->link_gbps = m->peer_copy_gbps;
    if (m->link_gbps < m->peer_copy_gbps) {
        char lv[40], pv[40];

        fmt_double(lv, sizeof(lv), m->link_gbps);
        fmt_double(pv, sizeof(pv), m->peer_copy_gbps);
        /* at the link_gbps line: the file gives it (peer_copy_gbps alone
         * would have set it) */
        snprintf(what, sizeof(what),
                 "expected link_gbps at least peer_copy_gbps: link_gbps = %s is below "
                 "peer_copy_gbps = %s%s",
                 lv, pv, field_line[p] != 0 ? "" : " (the kind's)");
        return pair_error(ctx, file, field_line[l], field_col[l], 0, 0, what);
    }
    if ((m->flag_widths & CES_MODEL_W64) && !m->has_64bit_memops) {
        snprintf(what, sizeof(what),
                 "expected has_64bit_memops = 1 with 64-bit flags: flag_widths%s has 64 but "
                 "has_64bit_memops%s is 0",
                 widths_line != 0 ? "" : " (the kind's)",
                 field_line[w] != 0 ? "" : " (the kind's)");
        return pair_error(ctx, file, widths_line, widths_col, field_line[w], field_col[w], what);
    }
    return CES_OK;
}

int ces_model_parse(struct ces_ctx *ctx, const char *text, size_t len, const char *file,
                    const struct ces_model *base, struct ces_model *out)
{
    struct ces_model m;
    size_t pos = 0;
    unsigned line = 0, kind_line = 0, widths_line = 0;
    unsigned field_line[CES_MODEL_NFIELDS] = {0}; /* where each field was given */
    size_t field_col[CES_MODEL_NFIELDS] = {0};    /* and at which column (0-based) */
    size_t widths_col = 0;
    int seen_field = 0;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (out == NULL || (text == NULL && len > 0))
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_model_parse: NULL argument");
    m = base != NULL ? *base : *ces_model_find("h200");
    /* A UTF-8 byte order mark, which some editors put first, is skipped: the
     * columns of line 1 count from after it, as in a .ces file. */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        pos = 3;
    while (pos < len) {
        struct mline l = {file != NULL ? file : "<model>", ++line, text + pos, 0};
        size_t i = 0, k0, k1, v0, v1;
        const struct ces_mfield *f;

        while (pos + l.len < len && text[pos + l.len] != '\n')
            l.len++;
        pos += l.len + 1;
        {
            /* (before the comment is cut: in one too, the text may stop
             * there, ces_read_stream reading no further) */
            const char *nul = memchr(l.text, '\0', l.len);

            if (nul != NULL)
                return ces_ctx_error(ctx, CES_ERR_PARSE, "%s:%u:%zu: a NUL byte: a model file is "
                                     "text (is this a binary file?)", l.file, l.line,
                                     (size_t)(nul - l.text) + 1);
        }
        for (size_t j = 0; j < l.len; j++)
            if (l.text[j] == '#') {
                l.len = j;
                break;
            }
        while (i < l.len && is_blank(l.text[i]))
            i++;
        if (i == l.len)
            continue;
        k0 = i;
        while (i < l.len && is_key(l.text[i]))
            i++;
        k1 = i;
        if (k1 == k0)
            return perr(ctx, &l, k0, "expected a field name");
        while (i < l.len && is_blank(l.text[i]))
            i++;
        if (i == l.len || l.text[i] != '=')
            return perr(ctx, &l, i, "expected '='");
        i++;
        while (i < l.len && is_blank(l.text[i]))
            i++;
        v0 = i;
        while (i < l.len && is_word(l.text[i]))
            i++;
        v1 = i;
        while (i < l.len && is_blank(l.text[i]))
            i++;
        if (v1 == v0)
            return perr(ctx, &l, v0, "expected a value");
        if (i != l.len)
            return perr(ctx, &l, i, "expected the end of the line");
        if (k1 - k0 == 4 && memcmp(l.text + k0, "kind", 4) == 0) {
            char kind[sizeof(m.kind)];
            const struct ces_model *km;

            if (kind_line != 0)
                return given_twice(ctx, &l, k0, k1 - k0, kind_line);
            if (seen_field)
                return perr(ctx, &l, k0, "expected `kind` before every other field");
            kind_line = l.line;
            if (v1 - v0 >= sizeof(kind))
                return unknown_name(ctx, &l, v0, 1);
            memcpy(kind, l.text + v0, v1 - v0);
            kind[v1 - v0] = '\0';
            km = ces_model_find(kind);
            if (km == NULL)
                return unknown_name(ctx, &l, v0, 1);
            m = *km;
            seen_field = 1;
            continue;
        }
        seen_field = 1;
        if (k1 - k0 == 11 && memcmp(l.text + k0, "flag_widths", 11) == 0) {
            const char *v = l.text + v0;
            size_t n = v1 - v0;

            if (widths_line != 0)
                return given_twice(ctx, &l, k0, k1 - k0, widths_line);
            widths_line = l.line;
            widths_col = k0;
            if (n == 2 && memcmp(v, "32", 2) == 0)
                m.flag_widths = CES_MODEL_W32;
            else if (n == 2 && memcmp(v, "64", 2) == 0)
                m.flag_widths = CES_MODEL_W64;
            else if (n == 5 && memcmp(v, "32,64", 5) == 0)
                m.flag_widths = CES_MODEL_W32 | CES_MODEL_W64;
            else
                return perr(ctx, &l, v0, "expected 32, 64 or 32,64");
            continue;
        }
        f = find_field(l.text + k0, k1 - k0);
        if (f == NULL)
            return unknown_name(ctx, &l, k0, 0);
        if (field_line[f - ces_model_fields_] != 0)
            return given_twice(ctx, &l, k0, k1 - k0, field_line[f - ces_model_fields_]);
        field_line[f - ces_model_fields_] = l.line;
        field_col[f - ces_model_fields_] = k0;
        {
            int rc = parse_value(ctx, &l, v0, f, l.text + v0, v1 - v0, &m);

            if (rc != CES_OK)
                return rc;
        }
    }
    {
        int rc = check_pairs(ctx, file != NULL ? file : "<model>", &m, field_line, field_col,
                             widths_line, widths_col);

        if (rc != CES_OK)
            return rc;
    }
    *out = m;
    return CES_OK;
}

int ces_model_load(struct ces_ctx *ctx, const char *path, const struct ces_model *base,
                   struct ces_model *out)
{
    FILE *fp;
    char *buf = NULL;
    size_t len = 0;
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (path == NULL || out == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_model_load: NULL argument");
    /* (the tools read a schedule from "-": both would not fit one stream) */
    if (strcmp(path, "-") == 0)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "-: a model is read from a file by name, not from standard input");
    if (path[0] == '\0') /* (said as '': a bare ": cannot open" named nothing) */
        return ces_ctx_error(ctx, CES_ERR_INVALID, "'': a model file's path is empty");
    fp = ces_fopen_read(path);
    if (fp == NULL)
        return ces_ctx_error(ctx, CES_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    rc = ces_read_stream(ctx, fp, path, CES_MODEL_FILE_MAX, &buf, &len);
    if (rc == CES_OK)
        rc = ces_model_parse(ctx, buf, len, path, base, out);
    ces_free(ctx, buf);
    fclose(fp);
    return rc;
}

int ces_model_print(struct ces_ctx *ctx, const struct ces_model *m, char **text, size_t *len)
{
    struct ces_sb sb;
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (m == NULL || text == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_model_print: NULL argument");
    /* only what a model file can hold, so that parsing the text gives m */
    rc = ces_model_check_values(ctx, m, "model print");
    if (rc != CES_OK)
        return rc;
    /* ces_model_parse refuses it (predict only refuses it as UNSUPPORTED,
     * so ces_model_check_values takes it) */
    if (m->max_memops_per_batch < CES_MODEL_MIN_MEMOPS)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "model print: the model's max_memops_per_batch is %" PRIu32
                             ": expected at least 3: " CES_MODEL_MIN_MEMOPS_WHY,
                             m->max_memops_per_batch);
    if (ces_model_find(m->kind) == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "model print: the model's kind '%s' is no built-in kind, which a "
                             "model file's `kind` must name",
                             m->kind);
    ces_sb_init(&sb, ctx);
    ces_sb_printf(&sb, "# cesync machine model\nkind = %s\n", m->kind);
    ces_sb_printf(&sb, "flag_widths = %s # bits\n",
                  m->flag_widths == (CES_MODEL_W32 | CES_MODEL_W64) ? "32,64"
                  : m->flag_widths == CES_MODEL_W64                 ? "64"
                                                                    : "32");
    for (size_t i = 0; i < CES_MODEL_NFIELDS; i++) {
        const struct ces_mfield *f = &ces_model_fields_[i];
        char num[40];

        if (f->is_f64) {
            double d;

            memcpy(&d, (const char *)m + f->offset, sizeof(d));
            fmt_double(num, sizeof(num), d);
        } else {
            uint32_t u;

            memcpy(&u, (const char *)m + f->offset, sizeof(u));
            snprintf(num, sizeof(num), "%u", (unsigned)u);
        }
        ces_sb_printf(&sb, "%s = %s # %s\n", f->name, num, f->unit);
    }
    return ces_sb_finish(&sb, text, len);
}
