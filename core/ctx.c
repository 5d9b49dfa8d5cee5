/*
 * core/ctx.c - the context (allocation hooks, last error), status strings,
 * name tables generated from the X-macro lists, and the small containers of
 * internal.h (growable array, index of names, string builder).
 */
#include "internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *std_malloc(void *ud, size_t size)
{
    (void)ud;
    return malloc(size);
}

static void *std_realloc(void *ud, void *ptr, size_t size)
{
    (void)ud;
    return realloc(ptr, size);
}

static void std_free(void *ud, void *ptr)
{
    (void)ud;
    free(ptr);
}

int ces_ctx_create(const struct ces_alloc *hooks, struct ces_ctx **out)
{
    struct ces_alloc h = {std_malloc, std_realloc, std_free, NULL};
    struct ces_ctx *ctx;

    if (out == NULL)
        return CES_ERR_INVALID;
    *out = NULL;
    if (hooks != NULL) {
        if (hooks->malloc == NULL || hooks->realloc == NULL || hooks->free == NULL)
            return CES_ERR_INVALID;
        h = *hooks;
    }
    ctx = h.malloc(h.ud, sizeof(*ctx));
    if (ctx == NULL)
        return CES_ERR_NOMEM;
    memset(ctx, 0, sizeof(*ctx));
    ctx->hooks = h;
    *out = ctx;
    return CES_OK;
}

void ces_ctx_destroy(struct ces_ctx *ctx)
{
    if (ctx == NULL)
        return;
    ctx->hooks.free(ctx->hooks.ud, ctx);
}

const char *ces_ctx_last_error(const struct ces_ctx *ctx)
{
    return ctx != NULL ? ctx->errmsg : "";
}

/* Whether byte c continues a character of UTF-8 (10xxxxxx). */
static bool utf8_continues(char c)
{
    return ((unsigned char)c & 0xc0) == 0x80;
}

/* The whole of a message of n bytes (more than msg holds), fmt with the
 * arguments `ap`, into msg (CES_ERRMSG_MAX bytes) as its first
 * CES_ERRMSG_HEAD bytes, "..." and its last bytes, each part ending and
 * starting on a character of UTF-8: what is wrong is said last, after a
 * path or a name that may be longer than the message (a schedule's path of
 * more than 8 KB was said without its "cannot open: File name too long").
 * A character is at most 4 bytes: a cut moves over at most 3 continuation
 * bytes, and where more stand there (no UTF-8: a path's bytes may be any)
 * it cuts among them (moving over all of them kept "..." and 19 bytes of a
 * message of 10,020).  Without memory for the whole, msg keeps what
 * vsnprintf cut it to. */
static void keep_ends(struct ces_ctx *ctx, char *msg, size_t n, const char *fmt, va_list ap)
{
    char *whole = ces_malloc(ctx, n + 1);
    size_t head = CES_ERRMSG_HEAD, tail;

    if (whole == NULL)
        return;
    vsnprintf(whole, n + 1, fmt, ap);
    /* while whole[head], the first byte left out, begins no character */
    for (int k = 0; k < 3 && utf8_continues(whole[head]); k++)
        head--;
    tail = n - (CES_ERRMSG_MAX - 1 - head - 3);
    for (int k = 0; k < 3 && utf8_continues(whole[tail]); k++)
        tail++;
    memcpy(msg, whole, head);
    memcpy(msg + head, "...", 3);
    memcpy(msg + head + 3, whole + tail, n - tail + 1);
    ces_free(ctx, whole);
}

int ces_ctx_verror(struct ces_ctx *ctx, int status, const char *fmt, va_list ap)
{
    char msg[CES_ERRMSG_MAX];
    va_list again;
    int n;

    if (ctx == NULL)
        return status;
    /* formatted apart: an argument may be the last error itself (a caller
     * adding context to it), which vsnprintf must not read while writing */
    if (fmt == NULL) {
        ctx->errmsg[0] = '\0';
        return status;
    }
    va_copy(again, ap);
    n = vsnprintf(msg, sizeof(msg), fmt, ap);
    if (n >= (int)sizeof(msg))
        keep_ends(ctx, msg, (size_t)n, fmt, again);
    va_end(again);
    memcpy(ctx->errmsg, msg, sizeof(msg));
    return status;
}

int ces_ctx_error(struct ces_ctx *ctx, int status, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    ces_ctx_verror(ctx, status, fmt, ap);
    va_end(ap);
    return status;
}

void *ces_malloc(struct ces_ctx *ctx, size_t size)
{
    return ctx != NULL ? ctx->hooks.malloc(ctx->hooks.ud, size == 0 ? 1 : size) : NULL;
}

void *ces_realloc(struct ces_ctx *ctx, void *ptr, size_t size)
{
    return ctx != NULL ? ctx->hooks.realloc(ctx->hooks.ud, ptr, size == 0 ? 1 : size) : NULL;
}

void ces_free(struct ces_ctx *ctx, void *ptr)
{
    if (ctx != NULL && ptr != NULL)
        ctx->hooks.free(ctx->hooks.ud, ptr);
}

char *ces_strdup(struct ces_ctx *ctx, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = ces_malloc(ctx, n);

    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

bool ces_is_ident(const char *s)
{
    if (s == NULL || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return false;
    for (s++; *s != '\0'; s++) {
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    }
    return true;
}

/* The length of the UTF-8 sequence that s starts, 0 where none valid does
 * (RFC 3629: no overlong form, no surrogate, nothing past U+10FFFF). */
static size_t utf8_len(const unsigned char *s)
{
    unsigned lo = 0x80, hi = 0xbf;
    size_t n;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4;
    else
        return 0;
    if (s[0] == 0xe0 || s[0] == 0xf0)
        lo = s[0] == 0xe0 ? 0xa0 : 0x90;
    if (s[0] == 0xed || s[0] == 0xf4)
        hi = s[0] == 0xed ? 0x9f : 0x8f;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    }
    return n;
}

/* Whether the character of n bytes (0: a byte of no valid UTF-8
 * sequence) that s starts is said as \xNN: raw, a control could move the
 * terminal's cursor, change its colours or its title (U+009B begins an
 * escape sequence as ESC [ does), and a bidirectional formatting
 * character turned the rest of the line around on a terminal that honours
 * them, so that "cesync: x.ces: cannot open" could read as another file's
 * message. */
static bool said_in_hex(const unsigned char *s, size_t n)
{
    switch (n) {
    case 0:
        return true;
    case 1:
        return (s[0] < 0x20 && s[0] != '\t') || s[0] == 0x7f;
    case 2:
        return (s[0] == 0xc2 && s[1] <= 0x9f) || (s[0] == 0xd8 && s[1] == 0x9c);
    case 3:
        if (s[0] != 0xe2)
            return false;
        if (s[1] == 0x80)
            return (s[2] >= 0x8e && s[2] <= 0x8f) || (s[2] >= 0xaa && s[2] <= 0xae);
        return s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9;
    default:
        return false;
    }
}

size_t ces_spell(const char *s, char *out, size_t *used)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    size_t n = utf8_len(u), k = 0;

    *used = n != 0 ? n : 1;
    if (s[0] == '\\') {
        out[0] = out[1] = '\\';
        return 2;
    }
    if (!said_in_hex(u, n)) {
        memcpy(out, s, n);
        return n;
    }
    for (size_t i = 0; i < *used; i++) {
        out[k++] = '\\';
        out[k++] = 'x';
        out[k++] = hex[u[i] >> 4];
        out[k++] = hex[u[i] & 0xf];
    }
    return k;
}

/* --- status and name tables ------------------------------------------- */

const char *ces_status_str(int status)
{
    switch (status) {
#define CES_X_(name, value, text)                                              \
    case value:                                                                \
        return text;
        CES_STATUS_MAP(CES_X_)
#undef CES_X_
    default:
        return "unknown status";
    }
}

static const char *const op_names[] = {
#define CES_X_(e, kw, syn) kw,
    CES_OP_MAP(CES_X_)
#undef CES_X_
};
static const char *const op_synopses[] = {
#define CES_X_(e, kw, syn) syn,
    CES_OP_MAP(CES_X_)
#undef CES_X_
};
_Static_assert(sizeof(op_names) / sizeof(op_names[0]) == CES_OP_COUNT, "op name table");
_Static_assert(sizeof(op_synopses) / sizeof(op_synopses[0]) == CES_OP_COUNT,
               "op synopsis table");

const char *ces_op_kind_name(int kind)
{
    return kind >= 0 && kind < CES_OP_COUNT ? op_names[kind] : NULL;
}

const char *ces_op_kind_synopsis(int kind)
{
    return kind >= 0 && kind < CES_OP_COUNT ? op_synopses[kind] : NULL;
}

static const char *const coll_names[] = {
#define CES_X_(e, name) name,
    CES_COLL_MAP(CES_X_)
#undef CES_X_
};
_Static_assert(sizeof(coll_names) / sizeof(coll_names[0]) == CES_COLL_COUNT, "coll table");

static const char *const proto_names[] = {
#define CES_X_(e, name) name,
    CES_PROTO_MAP(CES_X_)
#undef CES_X_
};
_Static_assert(sizeof(proto_names) / sizeof(proto_names[0]) == CES_PROTO_COUNT,
               "proto table");

static int find_name(const char *const *table, int n, const char *name)
{
    for (int i = 0; name != NULL && i < n; i++) {
        if (strcmp(table[i], name) == 0)
            return i;
    }
    return -1;
}

const char *ces_coll_name(int coll)
{
    return coll >= 0 && coll < CES_COLL_COUNT ? coll_names[coll] : NULL;
}

int ces_coll_from_name(const char *name)
{
    return find_name(coll_names, CES_COLL_COUNT, name);
}

const char *ces_proto_name(int proto)
{
    return proto >= 0 && proto < CES_PROTO_COUNT ? proto_names[proto] : NULL;
}

int ces_proto_from_name(const char *name)
{
    return find_name(proto_names, CES_PROTO_COUNT, name);
}

/* --- growable array ----------------------------------------------------- */

int ces_vec_reserve(struct ces_ctx *ctx, struct ces_vec *v, size_t item, size_t extra)
{
    size_t cap;
    void *data;

    assert(item > 0);
    /* len + extra items must be addressable before anything is computed
     * from them: a sum that wrapped would look like room to spare */
    if (extra > SIZE_MAX / item - v->len)
        return CES_ERR_NOMEM;
    if (v->len + extra <= v->cap)
        return CES_OK;
    cap = v->cap > 0 ? v->cap : 1; /* (many vectors hold one item: an op list per rank and block) */
    while (cap < v->len + extra)
        cap = cap > SIZE_MAX / 2 ? v->len + extra : cap * 2;
    if (cap > SIZE_MAX / item)
        return CES_ERR_NOMEM;
    data = ces_realloc(ctx, v->data, cap * item);
    if (data == NULL)
        return CES_ERR_NOMEM;
    v->data = data;
    v->cap = cap;
    return CES_OK;
}

int ces_vec_push(struct ces_ctx *ctx, struct ces_vec *v, size_t item, const void *elem)
{
    int rc = ces_vec_reserve(ctx, v, item, 1);

    if (rc != CES_OK)
        return rc;
    memcpy((char *)v->data + v->len * item, elem, item);
    v->len++;
    return CES_OK;
}

void ces_vec_free(struct ces_ctx *ctx, struct ces_vec *v)
{
    ces_free(ctx, v->data);
    v->data = NULL;
    v->len = v->cap = 0;
}

int ces_cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

    return a < b ? -1 : a > b;
}

/* --- index of a table's names ------------------------------------------ */

/* FNV-1a over the name's bytes. */
static uint32_t name_hash(const char *s, size_t len)
{
    uint32_t h = 2166136261u;

    for (size_t k = 0; k < len; k++)
        h = (h ^ (unsigned char)s[k]) * 16777619u;
    return h;
}

static void names_put(struct ces_name_slot *slots, size_t cap, const struct ces_name_slot *in)
{
    size_t k = in->hash & (cap - 1);

    while (slots[k].name != NULL)
        k = (k + 1) & (cap - 1);
    slots[k] = *in;
}

int ces_names_reserve(struct ces_ctx *ctx, struct ces_names *ix)
{
    struct ces_name_slot *slots;
    size_t cap = ix->cap > 0 ? ix->cap : 16;

    if (ix->len + 1 <= ix->cap / 2)
        return CES_OK;
    while (ix->len + 1 > cap / 2) {
        if (cap > SIZE_MAX / 2 / sizeof(*slots))
            return CES_ERR_NOMEM;
        cap *= 2;
    }
    slots = ces_malloc(ctx, cap * sizeof(*slots));
    if (slots == NULL)
        return CES_ERR_NOMEM;
    memset(slots, 0, cap * sizeof(*slots));
    for (size_t k = 0; k < ix->cap; k++) {
        if (ix->slots[k].name != NULL)
            names_put(slots, cap, &ix->slots[k]);
    }
    ces_free(ctx, ix->slots);
    ix->slots = slots;
    ix->cap = cap;
    return CES_OK;
}

void ces_names_add(struct ces_names *ix, const char *name, uint32_t idx)
{
    struct ces_name_slot in = {name, name_hash(name, strlen(name)), idx};

    assert(ix->len + 1 <= ix->cap / 2);
    names_put(ix->slots, ix->cap, &in);
    ix->len++;
}

int64_t ces_names_find(const struct ces_names *ix, const char *s, size_t len)
{
    uint32_t h;

    if (ix->len == 0)
        return -1;
    h = name_hash(s, len);
    for (size_t k = h & (ix->cap - 1); ix->slots[k].name != NULL; k = (k + 1) & (ix->cap - 1)) {
        const struct ces_name_slot *e = &ix->slots[k];

        if (e->hash == h && strncmp(e->name, s, len) == 0 && e->name[len] == '\0')
            return e->idx;
    }
    return -1;
}

void ces_names_free(struct ces_ctx *ctx, struct ces_names *ix)
{
    ces_free(ctx, ix->slots);
    ix->slots = NULL;
    ix->cap = ix->len = 0;
}

/* --- string builder ----------------------------------------------------- */

void ces_sb_init(struct ces_sb *sb, struct ces_ctx *ctx)
{
    memset(sb, 0, sizeof(*sb));
    sb->ctx = ctx;
}

double ces_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void ces_sb_vprintf(struct ces_sb *sb, const char *fmt, va_list ap)
{
    va_list ap2;
    int need;

    if (sb->status == CES_OK && sb->deadline > 0 && (sb->appends++ & 1023) == 0 &&
        ces_now() >= sb->deadline)
        sb->status = CES_ERR_TIMEOUT;
    if (sb->status != CES_OK)
        return;
    va_copy(ap2, ap);
    need = vsnprintf(sb->buf != NULL ? sb->buf + sb->len : NULL,
                     sb->buf != NULL ? sb->cap - sb->len : 0, fmt, ap2);
    va_end(ap2);
    if (need < 0) {
        sb->status = CES_ERR_INTERNAL;
        return;
    }
    if (sb->buf == NULL || sb->len + (size_t)need + 1 > sb->cap) {
        size_t cap = sb->cap < 256 ? 256 : sb->cap;
        char *buf;

        while (cap < sb->len + (size_t)need + 1)
            cap *= 2;
        buf = ces_realloc(sb->ctx, sb->buf, cap);
        if (buf == NULL) {
            sb->status = CES_ERR_NOMEM;
            return;
        }
        sb->buf = buf;
        sb->cap = cap;
        vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
    }
    sb->len += (size_t)need;
}

void ces_sb_printf(struct ces_sb *sb, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    ces_sb_vprintf(sb, fmt, ap);
    va_end(ap);
}

void ces_sb_puts(struct ces_sb *sb, const char *s)
{
    ces_sb_printf(sb, "%s", s);
}

void ces_sb_spelled(struct ces_sb *sb, const char *s)
{
    char c[CES_SPELL_MAX];

    while (*s != '\0') {
        size_t used, n = ces_spell(s, c, &used);

        ces_sb_printf(sb, "%.*s", (int)n, c);
        s += used;
    }
}

int ces_sb_finish(struct ces_sb *sb, char **text, size_t *len)
{
    if (sb->status == CES_OK && sb->buf == NULL) {
        sb->buf = ces_malloc(sb->ctx, 1);
        if (sb->buf == NULL)
            sb->status = CES_ERR_NOMEM;
        else
            sb->buf[0] = '\0';
    }
    if (sb->status != CES_OK) {
        int rc = sb->status;

        ces_sb_free(sb);
        return ces_ctx_error(sb->ctx, rc, "%s while building text", ces_status_str(rc));
    }
    *text = sb->buf;
    if (len != NULL)
        *len = sb->len;
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return CES_OK;
}

void ces_sb_free(struct ces_sb *sb)
{
    ces_free(sb->ctx, sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}
