/*
 * tools/gen.c - `cesync gen`: write random small schedules (the corpus of
 * the checker's differential test) as concrete .ces text.
 */
#include "tool.h"
#include "internal.h" /* ces_plural */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char gen_help[] =
    "usage: cesync gen --seed S [--count N] [--ranks R] [--streams S] [--steps K]\n"
    "                  [--mutate PCT] [--shapes NAME] [-o DIR] [--progress S]\n"
    "\n"
    "Writes random small valid schedules as concrete .ces text, one per seed S, S+1,\n"
    "..., S+N-1, each built from correct protocol steps of which about PCT percent are\n"
    "mutated into a likely defect.  The same seed and options give the same schedule;\n"
    "each begins with a comment holding the command that writes it again.\n"
    "\n"
    "  --seed S     first seed (required)\n"
    "  --count N    number of schedules, 1..1000000 (default 1; more than one needs -o)\n"
    "  --ranks R    ranks, 2..8, or 0 (the default): 2 or 3 at random\n"
    "  --streams S  streams per rank, 1..3, or 0 (the default): 1 or 2 at random\n"
    "  --steps K    protocol steps per phase body, 1..3, or 0 (the default): at random\n"
    "  --mutate PCT\n"
    "               chance that a step is mutated, 0..100 (default 45)\n"
    "  --shapes NAME\n"
    "               classic (the default) or handoff: hand-off steps, more graph phases\n"
    "  -o DIR       write DIR/gen-SEED.ces files (DIR must exist; default -: stdout)\n"
    "  --progress S\n"
    "               a line on stderr every S seconds (default 2 s on a terminal)\n"
    "\n"
    "Exit: 0 written, 2 bad usage or a file that cannot be written.\n"
    "Example: mkdir -p out && cesync gen --seed 1 --count 100 --ranks 3 -o out\n"
    "Full reference: docs/CLI.md, section \"gen\".\n";

/* The options of gen, each with a number: its range, and whether 0 is
 * taken too, for "at random" (the generator's default). */
enum { GEN_SEED, GEN_COUNT, GEN_RANKS, GEN_STREAMS, GEN_STEPS, GEN_MUTATE, GEN_NOPTS };
static const struct gen_opt {
    const char *name;
    uint64_t min, max;
    int random0;
} gen_opts[GEN_NOPTS] = {
    {"--seed", 0, UINT64_MAX, 0},  {"--count", 1, 1000000, 0}, {"--ranks", 2, 8, 1},
    {"--streams", 1, 3, 1},        {"--steps", 1, 3, 1},       {"--mutate", 0, 100, 0},
};

/* The value s of option o: a decimal number in its range. */
static int gen_number(const struct gen_opt *o, const char *s, uint64_t *out)
{
    char what[64], *end = NULL;
    unsigned long long v;

    snprintf(what, sizeof(what), "%sa number in %" PRIu64 "..%" PRIu64,
             o->random0 ? "0 (at random) or " : "", o->min, o->max);
    if (ces_tool_value("gen", o->name, s, what) != CES_EXIT_OK)
        return CES_EXIT_USAGE;
    errno = 0;
    v = strtoull(s, &end, 10); /* decimal, as every other command reads numbers */
    if (errno != 0 || end == s || *end != '\0' || s[0] < '0' || s[0] > '9' || v > o->max ||
        (v < o->min && !(v == 0 && o->random0)))
        return ces_tool_fail("gen: %s expects %s, not '%s'", o->name, what, s);
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
    /* -o dir/ names dir too (its files were said as dir//gen-1.ces) */
    const char *sep = dir != NULL && dir[strlen(dir) - 1] == '/' ? "" : "/";

    if (ces_gen_source(ctx, seed, o, &text, &len) != CES_OK)
        return ces_tool_fail("%s", ces_ctx_last_error(ctx)); /* it starts with "gen: " */
    /* the command that gives this schedule again: every option that shapes
     * it, with its value (the defaults may change, the seed's draws not) */
    hlen = (size_t)snprintf(head, sizeof(head),
                            "# cesync gen --seed %" PRIu64 " --ranks %" PRIu32 " --streams %" PRIu32
                            " --steps %" PRIu32 " --mutate %" PRIu32 "%s\n",
                            seed, o->ranks, o->streams, o->steps, o->mutate_pct,
                            o->shapes == CES_GEN_HANDOFF ? " --shapes handoff" : "");
    if (dir == NULL) {
        fwrite(head, 1, hlen, stdout);
        fwrite(text, 1, len, stdout);
    } else if ((size_t)snprintf(path, sizeof(path), "%s%sgen-%" PRIu64 ".ces", dir, sep, seed) >=
               sizeof(path)) {
        ec = ces_tool_fail("gen: cannot write %s%sgen-%" PRIu64 ".ces: %s", dir, sep, seed,
                           strerror(ENAMETOOLONG));
    } else {
        char *whole = malloc(hlen + len);

        if (whole == NULL) {
            ec = ces_tool_fail("out of memory");
        } else {
            memcpy(whole, head, hlen);
            memcpy(whole + hlen, text, len);
            ec = ces_tool_write_file("gen", path, whole, hlen + len);
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
    uint64_t v[GEN_NOPTS] = {0, 1, 0, 0, 0, 0};
    const char *dir = NULL;
    int have_seed = 0, ec = CES_EXIT_OK;
    double every = 0, start, next; /* --progress; 0: not asked */

    if (ces_tool_wants_help(argc, argv)) {
        fputs(gen_help, stdout);
        return CES_EXIT_OK;
    }
    ces_gen_opts_init(&o);
    v[GEN_MUTATE] = o.mutate_pct;
    for (int i = 0; i < argc && ec == CES_EXIT_OK; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        int k = 0;

        while (k < GEN_NOPTS && strcmp(a, gen_opts[k].name) != 0)
            k++;
        if (k < GEN_NOPTS) {
            ec = gen_number(&gen_opts[k], val, &v[k]);
            have_seed |= k == GEN_SEED;
        } else if (strcmp(a, "-o") == 0) {
            /* judged once all are read: the last -o is the one taken */
            ec = ces_tool_value("gen", a, val, "a directory");
            dir = val;
        } else if (strcmp(a, "--progress") == 0) {
            ec = ces_tool_seconds("gen", a, val, &every);
        } else if (strcmp(a, "--shapes") == 0) {
            ec = ces_tool_value("gen", a, val, "classic or handoff");
            if (ec == CES_EXIT_OK && strcmp(val, "classic") == 0)
                o.shapes = CES_GEN_CLASSIC;
            else if (ec == CES_EXIT_OK && strcmp(val, "handoff") == 0)
                o.shapes = CES_GEN_HANDOFF;
            else if (ec == CES_EXIT_OK)
                ec = ces_tool_fail("gen: --shapes expects classic or handoff, not '%s'", val);
        } else {
            return ces_tool_unexpected("gen", a);
        }
        i++; /* every option takes a value */
    }
    if (ec != CES_EXIT_OK)
        return ec;
    /* "" made the files /gen-SEED.ces, at the root */
    if (dir != NULL && dir[0] == '\0')
        return ces_tool_fail("gen: -o expects a directory, not ''");
    /* "-": standard output, as for the other commands' -o */
    if (dir != NULL && strcmp(dir, "-") == 0)
        dir = NULL;
    if (!have_seed)
        return ces_tool_fail("gen: --seed S is required (see cesync gen --help)");
    if (v[GEN_SEED] > UINT64_MAX - (v[GEN_COUNT] - 1))
        return ces_tool_fail("gen: --seed %" PRIu64 " --count %" PRIu64 " runs past the last seed, "
                             "%" PRIu64, v[GEN_SEED], v[GEN_COUNT], UINT64_MAX);
    /* schedules one after another are no schedule any command reads */
    if (v[GEN_COUNT] > 1 && dir == NULL)
        return ces_tool_fail("gen: --count %" PRIu64 " needs -o DIR (a file per schedule): "
                             "standard output takes one schedule",
                             v[GEN_COUNT]);
    o.ranks = (uint32_t)v[GEN_RANKS];
    o.streams = (uint32_t)v[GEN_STREAMS];
    o.steps = (uint32_t)v[GEN_STEPS];
    o.mutate_pct = (uint32_t)v[GEN_MUTATE];
    if (ces_ctx_create(NULL, &ctx) != CES_OK)
        return ces_tool_fail("out of memory");
    if (every == 0 && ces_tool_isatty(STDERR_FILENO))
        every = 2;
    start = ces_now();
    next = start + every;
    for (uint64_t k = 0; k < v[GEN_COUNT] && ec == CES_EXIT_OK; k++) {
        double now;

        ec = gen_write(ctx, v[GEN_SEED] + k, &o, dir);
        /* (a schedule that failed is not written: its error ends the run) */
        if (ec == CES_EXIT_OK && every > 0 && k + 1 < v[GEN_COUNT] &&
            (now = ces_now()) >= next) {
            fprintf(stderr, "gen: %" PRIu64 " of %" PRIu64 " schedules written, %.1f s\n", k + 1,
                    v[GEN_COUNT], now - start);
            next = now + every;
        }
    }
    if (dir != NULL && ec == CES_EXIT_OK)
        ces_tool_say("wrote %" PRIu64 " schedule%s to %s", v[GEN_COUNT],
                     ces_plural(v[GEN_COUNT]), dir);
    ces_ctx_destroy(ctx);
    return ec;
}
