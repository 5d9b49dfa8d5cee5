/*
 * backend/sim/queues.c - the assignments of a rank's streams to hardware
 * queues that CUDA may make: with CUDA_DEVICE_MAX_CONNECTIONS = Q it puts
 * a process's streams on its Q queues round robin, in the order the
 * process (the application, the libraries it uses, cesync) created them,
 * so which of a schedule's streams share a queue depends on the whole
 * process.  ces_check takes one assignment (struct ces_check_opts
 * .queue_map); these list them all, each partition of a rank's streams
 * once (numbered as a restricted growth string: stream s takes a queue of
 * an earlier stream or the next unused one), every rank's independently.
 */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int ces_queue_map_next(uint32_t ranks, uint32_t streams, uint32_t queues, uint32_t *map)
{
    if (map == NULL || streams == 0 || queues == 0)
        return 0;
    for (uint32_t r = ranks; r-- > 0;) {
        uint32_t *m = map + (size_t)r * streams;

        for (uint32_t i = streams; i-- > 1;) {
            uint32_t top = 0; /* the highest queue of streams 0..i-1 */

            for (uint32_t j = 0; j < i; j++)
                top = m[j] > top ? m[j] : top;
            if (m[i] <= top && m[i] + 1 < queues) {
                m[i]++;
                for (uint32_t j = i + 1; j < streams; j++)
                    m[j] = 0;
                return 1;
            }
        }
        for (uint32_t j = 0; j < streams; j++)
            m[j] = 0; /* the last of rank r: carry into rank r-1 */
    }
    return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

uint64_t ces_queue_map_count(uint32_t ranks, uint32_t streams, uint32_t queues)
{
    /* S(n, k), the partitions of n streams into k queues:
     * S(n, k) = k S(n-1, k) + S(n-1, k-1), row by row */
    uint64_t row[CES_MAX_STREAMS + 1] = {1}, per = 0, all = 1;

    if (streams == 0 || streams > CES_MAX_STREAMS || queues == 0)
        return 0;
    for (uint32_t n = 1; n <= streams; n++) {
        for (uint32_t k = n; k >= 1; k--)
            row[k] = sat_add(sat_mul(k, row[k]), row[k - 1]);
        row[0] = 0;
    }
    for (uint32_t k = 1; k <= streams && k <= queues; k++)
        per = sat_add(per, row[k]);
    for (uint32_t r = 0; r < ranks; r++)
        all = sat_mul(all, per);
    return all;
}

/* Whether every rank's streams take the same queues. */
static int same_for_all(uint32_t ranks, uint32_t streams, const uint32_t *map)
{
    for (size_t i = streams; i < (size_t)ranks * streams; i++)
        if (map[i] != map[i % streams])
            return 0;
    return 1;
}

int ces_queue_map_format(uint32_t ranks, uint32_t streams, const uint32_t *map, char *buf,
                         size_t size)
{
    uint32_t shown;
    size_t len = 0;

    if (size > 0)
        buf[0] = '\0';
    if (map == NULL)
        return -1;
    /* a map of no rank or no stream holds no number (one list of ranks
     * 0 was written from map[0..streams-1], past its end) */
    shown = ranks == 0 ? 0 : same_for_all(ranks, streams, map) ? 1 : ranks;
    for (size_t i = 0; i < (size_t)shown * streams; i++) {
        const char *sep = i == 0 ? "" : i % streams == 0 ? "/" : ",";
        int n = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
                         "%s%" PRIu32, sep, map[i]);

        if (n < 0)
            return n;
        len += (size_t)n;
    }
    return (int)len;
}

/* ces_queue_map_parse's reading; map NULL: only the checks; ranks 0 (and
 * streams): only those that need neither, every list as long as the
 * first in place of one number per stream, and the lists, numbers and
 * queues within what a schedule may have (CES_MAX_RANKS ranks of
 * CES_MAX_STREAMS streams). */
static int read_map(struct ces_ctx *ctx, const char *text, uint32_t ranks, uint32_t streams,
                    uint32_t *map)
{
    const char *s = text;
    uint32_t lists = 1, first = 0;

    for (const char *c = text; *c != '\0'; c++)
        lists += *c == '/';
    if (ranks > 0 && lists != 1 && lists != ranks)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "queue map '%.*s%s': %" PRIu32 " lists for %" PRIu32
                             " rank%s (one list for every rank, or one per rank split by /)",
                             CES_SHOWN(text), lists, ranks, ces_plural(ranks));
    if (ranks == 0 && lists > CES_MAX_RANKS)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "queue map '%.*s%s': %" PRIu32 " lists; expected one list for every "
                             "rank, or one per rank split by /, of which a schedule has at most %u",
                             CES_SHOWN(text), lists, CES_MAX_RANKS);
    for (uint32_t l = 0; l < lists; l++) {
        uint32_t n = 0;

        for (;;) {
            char *end;
            unsigned long v;

            if (*s < '0' || *s > '9')
                return ces_ctx_error(ctx, CES_ERR_INVALID,
                                     "queue map '%.*s%s': expected a queue number at column %zu",
                                     CES_SHOWN(text), (size_t)(s - text) + 1);
            v = strtoul(s, &end, 10);
            /* one wording whatever the streams ("a rank's 1 stream take
             * queues 0..0" needed a second); the number as given (past
             * ULONG_MAX strtoul gave that) */
            if (ranks > 0 && v >= streams)
                return ces_ctx_error(ctx, CES_ERR_INVALID,
                                     "queue map '%.*s%s': queue %.*s%s at column %zu; expected a "
                                     "queue number less than the streams per rank, %" PRIu32,
                                     CES_SHOWN(text), CES_SHOWN_LEN((size_t)(end - s)), s,
                                     CES_SHOWN_MORE((size_t)(end - s)), (size_t)(s - text) + 1,
                                     streams);
            if (ranks == 0 && v >= CES_MAX_STREAMS)
                return ces_ctx_error(ctx, CES_ERR_INVALID,
                                     "queue map '%.*s%s': queue %.*s%s at column %zu; expected a "
                                     "queue number less than the streams per rank, of which a "
                                     "rank has at most %u",
                                     CES_SHOWN(text), CES_SHOWN_LEN((size_t)(end - s)), s,
                                     CES_SHOWN_MORE((size_t)(end - s)), (size_t)(s - text) + 1,
                                     CES_MAX_STREAMS);
            if (n < streams && map != NULL)
                map[l * streams + n] = (uint32_t)v;
            n++;
            s = end;
            if (*s != ',')
                break;
            s++;
        }
        if (*s != '\0' && *s != '/')
            return ces_ctx_error(ctx, CES_ERR_INVALID,
                                 "queue map '%.*s%s': expected ',' or '/' at column %zu",
                                 CES_SHOWN(text), (size_t)(s - text) + 1);
        if (ranks > 0 && n != streams)
            return ces_ctx_error(ctx, CES_ERR_INVALID,
                                 "queue map '%.*s%s': list %" PRIu32 " has %" PRIu32
                                 " number%s; expected one per stream, %" PRIu32,
                                 CES_SHOWN(text), l + 1, n, ces_plural(n), streams);
        if (ranks == 0 && n > CES_MAX_STREAMS)
            return ces_ctx_error(ctx, CES_ERR_INVALID,
                                 "queue map '%.*s%s': list %" PRIu32 " has %" PRIu32
                                 " numbers; expected one per stream, of which a rank has at most "
                                 "%u", CES_SHOWN(text), l + 1, n, CES_MAX_STREAMS);
        if (ranks == 0 && l > 0 && n != first)
            return ces_ctx_error(ctx, CES_ERR_INVALID,
                                 "queue map '%.*s%s': list %" PRIu32 " has %" PRIu32
                                 " number%s, list 1 %" PRIu32 "; expected one per stream in "
                                 "every list",
                                 CES_SHOWN(text), l + 1, n, ces_plural(n), first);
        first = l == 0 ? n : first;
        if (*s == '/')
            s++;
    }
    for (uint32_t i = lists * streams; map != NULL && i < ranks * streams; i++)
        map[i] = map[i % streams];
    return CES_OK;
}

int ces_queue_map_parse(struct ces_ctx *ctx, const char *text, uint32_t ranks, uint32_t streams,
                        uint32_t *map)
{
    int rc;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (text == NULL || map == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "ces_queue_map_parse: NULL argument");
    if (ranks == 0 || streams == 0)
        return ces_ctx_error(ctx, CES_ERR_INVALID,
                             "ces_queue_map_parse: ranks and streams must be at least 1, not %"
                             PRIu32 " and %" PRIu32, ranks, streams);
    /* checked whole first: a refused text leaves map as it was */
    rc = read_map(ctx, text, ranks, streams, NULL);
    return rc == CES_OK ? read_map(ctx, text, ranks, streams, map) : rc;
}

int ces_sim_queue_map_syntax(struct ces_ctx *ctx, const char *text)
{
    return read_map(ctx, text, 0, 0, NULL);
}

int ces_sim_queue_map_check(struct ces_ctx *ctx, const char *what, uint32_t ranks,
                            uint32_t streams, const uint32_t *map)
{
    for (uint32_t i = 0; map != NULL && i < ranks * streams; i++)
        if (map[i] >= streams)
            return ces_ctx_error(ctx, CES_ERR_INVALID,
                                 "%s puts r%" PRIu32 ".s%" PRIu32 " on queue %" PRIu32
                                 "; expected a queue number less than the streams per rank, %"
                                 PRIu32,
                                 what, i / streams, i % streams, map[i], streams);
    return CES_OK;
}

void ces_sim_sb_queue_map(struct ces_sb *sb, uint32_t ranks, uint32_t streams,
                          const uint32_t *map)
{
    int n = ces_queue_map_format(ranks, streams, map, NULL, 0);
    char *buf = n >= 0 ? ces_malloc(sb->ctx, (size_t)n + 1) : NULL;

    if (buf == NULL) {
        if (sb->status == CES_OK) /* the finished text says so */
            sb->status = ces_ctx_error(sb->ctx, CES_ERR_NOMEM, "out of memory writing a queue map");
        return;
    }
    ces_queue_map_format(ranks, streams, map, buf, (size_t)n + 1);
    ces_sb_puts(sb, buf);
    ces_free(sb->ctx, buf);
}
