/*
 * tools/gen.c - `cesync gen`: write random small schedules (the corpus of
 * the checker's differential test) as concrete .ces text.
 */
#include "tool.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char gen_help[] =
    "usage: cesync gen --seed S [--count N] [--ranks R] [--streams S] [--steps K]\n"
    "                  [--mutate PCT] [-o DIR]\n"
    "\n"
    "Writes random small valid schedules (2-3 ranks, 1-2 streams, 1-2 phases)\n"
    "as concrete .ces text, one per seed S, S+1, ..., S+N-1.  Each is built from\n"
    "correct protocol steps (a push transfer with a ready/done handshake, a local\n"
    "copy, a barrier) of which about PCT percent (default 45) are mutated into a\n"
    "likely defect.  The same seed and options always give the same schedule.\n"
    "\n"
    "  --seed S     first seed (required)\n"
    "  --count N    number of schedules (default 1); more than one needs -o: a\n"
    "               command reads one schedule, so standard output takes one\n"
    "  --ranks R    ranks, 2..8 (default, or 0: 2 or 3 at random)\n"
    "  --streams S  streams per rank, 1..2 (default: at random)\n"
    "  --steps K    protocol steps per phase body, 1..3 (default: at random)\n"
    "  --mutate PCT chance that a step is mutated, 0..100 (default 45)\n"
    "  -o DIR       write DIR/gen-SEED.ces files instead of standard output (one\n"
    "               that exists is replaced only by a complete file)\n"
    "\n"
    "Each schedule follows a line with the command that writes it again, every\n"
    "option that shapes it given (0: at random, drawn from the seed):\n"
    "  # cesync gen --seed SEED --ranks R --streams S --steps K --mutate PCT\n";

static int gen_u64(const char *opt, const char *s, uint64_t max, uint64_t *out)
{
    char *end = NULL;
    unsigned long long v;

    if (s == NULL)
        return ces_tool_fail("gen: %s needs a value", opt);
    errno = 0;
    v = strtoull(s, &end, 10); /* decimal, as every other command reads numbers */
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v > max)
        return ces_tool_fail("gen: %s expects a number 0..%" PRIu64 ", not '%s'", opt, max, s);
    *out = v;
    return CES_EXIT_OK;
}

/* One schedule after its header line: to standard output (dir NULL) or to
 * DIR/gen-SEED.ces, which is replaced only by a complete file (a write that
 * fails leaves an earlier one as it was and says why). */
static int gen_write(struct ces_ctx *ctx, uint64_t seed, const struct ces_gen_opts *o,
                     const char *dir)
{
    char *text = NULL, head[160], path[4096];
    size_t len = 0, hlen;
    int ec = CES_EXIT_OK;

    if (ces_gen_source(ctx, seed, o, &text, &len) != CES_OK)
        return ces_tool_fail("%s", ces_ctx_last_error(ctx)); /* it starts with "gen: " */
    /* the command that gives this schedule again: every option that shapes
     * it, with its value (the defaults may change, the seed's draws not) */
    hlen = (size_t)snprintf(head, sizeof(head),
                            "# cesync gen --seed %" PRIu64 " --ranks %" PRIu32 " --streams %" PRIu32
                            " --steps %" PRIu32 " --mutate %" PRIu32 "\n",
                            seed, o->ranks, o->streams, o->steps, o->mutate_pct);
    if (dir == NULL) {
        fwrite(head, 1, hlen, stdout);
        fwrite(text, 1, len, stdout);
    } else if ((size_t)snprintf(path, sizeof(path), "%s/gen-%" PRIu64 ".ces", dir, seed) >=
               sizeof(path)) {
        ec = ces_tool_fail("gen: cannot write %s/gen-%" PRIu64 ".ces: %s", dir, seed,
                           strerror(ENAMETOOLONG));
    } else {
        char *whole = malloc(hlen + len);

        if (whole == NULL) {
            ec = ces_tool_fail("out of memory");
        } else {
            memcpy(whole, head, hlen);
            memcpy(whole + hlen, text, len);
            ec = ces_tool_write_file(path, whole, hlen + len);
            free(whole);
        }
    }
    ces_free(ctx, text);
    return ec;
}

int ces_cmd_gen(int argc, char **argv)
{
    struct ces_gen_opts o;
    struct ces_ctx *ctx = NULL;
    uint64_t seed = 0, count = 1, v = 0;
    const char *dir = NULL;
    int have_seed = 0, ec = CES_EXIT_OK;

    ces_gen_opts_init(&o);
    for (int i = 0; i < argc && ec == CES_EXIT_OK; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(gen_help, stdout);
            return CES_EXIT_OK;
        }
        if (strcmp(a, "--seed") == 0) {
            ec = gen_u64(a, val, UINT64_MAX, &seed);
            have_seed = 1;
        } else if (strcmp(a, "--count") == 0) {
            ec = gen_u64(a, val, 1000000, &count);
        } else if (strcmp(a, "--ranks") == 0) {
            ec = gen_u64(a, val, 8, &v);
            o.ranks = (uint32_t)v;
        } else if (strcmp(a, "--streams") == 0) {
            ec = gen_u64(a, val, 2, &v);
            o.streams = (uint32_t)v;
        } else if (strcmp(a, "--steps") == 0) {
            ec = gen_u64(a, val, 3, &v);
            o.steps = (uint32_t)v;
        } else if (strcmp(a, "--mutate") == 0) {
            ec = gen_u64(a, val, 100, &v);
            o.mutate_pct = (uint32_t)v;
        } else if (strcmp(a, "-o") == 0) {
            if (val == NULL)
                ec = ces_tool_fail("gen: -o needs a directory");
            dir = val;
        } else {
            return ces_tool_fail("gen: unexpected argument '%s' (see cesync gen --help)", a);
        }
        i++; /* every option takes a value */
    }
    if (ec != CES_EXIT_OK)
        return ec;
    if (!have_seed)
        return ces_tool_fail("gen: --seed S is required (see cesync gen --help)");
    if (count > 0 && seed > UINT64_MAX - (count - 1))
        return ces_tool_fail("gen: --seed %" PRIu64 " --count %" PRIu64 " runs past the last seed, "
                             "%" PRIu64, seed, count, UINT64_MAX);
    /* schedules one after another are no schedule any command reads */
    if (count > 1 && dir == NULL)
        return ces_tool_fail("gen: --count %" PRIu64 " needs -o DIR (a file per schedule): "
                             "standard output takes one schedule",
                             count);
    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return ces_tool_fail("out of memory");
    for (uint64_t k = 0; k < count && ec == CES_EXIT_OK; k++)
        ec = gen_write(ctx, seed + k, &o, dir);
    if (dir != NULL && ec == CES_EXIT_OK)
        fprintf(stderr, "cesync: wrote %" PRIu64 " schedules to %s\n", count, dir);
    ces_ctx_destroy(ctx);
    return ec;
}
