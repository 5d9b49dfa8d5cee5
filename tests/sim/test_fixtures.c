/*
 * tests/sim/test_fixtures.c - every schedule under tests/fixtures/bad gets
 * exactly the verdict set its `# expect-verdict:` directive names, from the
 * reduced and from the unreduced search, and each counterexample replays;
 * and every fixture gets the same report where the visited set's
 * fingerprints collide in one word.
 */
#include "ces_test.h"
#include "../../backend/sim/internal.h" /* ces_sim_fp_keep */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "RACE,MISMATCH" -> verdict bits; fails the test on an unknown name. */
static uint32_t parse_verdict(const char *path, const char *text)
{
    static const struct {
        const char *name;
        uint32_t bit;
    } names[] = {{"OK", CES_V_OK},          {"DEADLOCK", CES_V_DEADLOCK}, {"HANG", CES_V_HANG},
                 {"RACE", CES_V_RACE},      {"MISMATCH", CES_V_MISMATCH},
                 {"INCOMPLETE", CES_V_INCOMPLETE}};
    uint32_t v = 0;
    const char *p = text;

    while (*p == ' ')
        p++;
    while (*p != '\0') {
        size_t n = strcspn(p, ", ");
        bool found = false;

        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
            if (strlen(names[i].name) == n && strncmp(p, names[i].name, n) == 0) {
                v |= names[i].bit;
                found = true;
            }
        }
        if (!found)
            fail_msg("%s: unknown verdict '%.*s' in expect-verdict", path, (int)n, p);
        p += n;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return v;
}

/* A check of g (flags) under the fingerprint words' bits keep0 and keep1
 * (ces_sim_fp_keep, put back before any assertion can leave). */
static struct ces_check_report *check_kept(struct ces_ctx *ctx, const struct ces_graph *g,
                                           uint32_t flags, uint64_t keep0, uint64_t keep1)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    int rc;

    ces_check_opts_init(&o);
    o.flags = flags;
    o.max_seconds = 60;
    ces_sim_fp_keep[0] = keep0;
    ces_sim_fp_keep[1] = keep1;
    rc = ces_check(ctx, g, &o, &r);
    ces_sim_fp_keep[0] = ces_sim_fp_keep[1] = UINT64_MAX;
    assert_int_equal(rc, CES_OK);
    return r;
}

static uint32_t check(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t flags)
{
    struct ces_check_report *r = check_kept(ctx, g, flags, UINT64_MAX, UINT64_MAX);
    uint32_t v = ces_check_report_verdict(r);

    ces_check_report_destroy(r);
    return v;
}

/* How many defect classes the verdict v names. */
static size_t classes(uint32_t v)
{
    size_t n = 0;

    for (uint32_t bit = CES_V_DEADLOCK; bit <= CES_V_MISMATCH; bit <<= 1)
        n += (v & bit) != 0;
    return n;
}

/* Every counterexample of a reduced check of g is real: its replay string
 * re-runs an execution of as many steps, over the same ops, that shows the
 * same defect class.  Returns the number of counterexamples replayed. */
static size_t replay_all(struct ces_ctx *ctx, const struct ces_graph *g, const char *path)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    size_t nd;

    ces_check_opts_init(&o);
    o.max_seconds = 30;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    nd = ces_check_report_ndefects(r);
    for (size_t i = 0; i < nd; i++) {
        const struct ces_check_defect *d = ces_check_report_defect(r, i);
        struct ces_check_report *rr = NULL;
        const struct ces_check_defect *d2 = NULL;

        o.replay = d->replay;
        o.queue_map = ces_check_report_queue_map(r); /* `connections any`: the one that failed */
        if (ces_check(ctx, g, &o, &rr) != CES_OK)
            fail_msg("%s: replay '%s' refused: %s", path, d->replay, ces_ctx_last_error(ctx));
        for (size_t j = 0; j < ces_check_report_ndefects(rr); j++)
            if (ces_check_report_defect(rr, j)->cls == d->cls)
                d2 = ces_check_report_defect(rr, j);
        if (d2 == NULL || !(ces_check_report_verdict(rr) & d->cls))
            fail_msg("%s: replay '%s' does not show defect class %u", path, d->replay, d->cls);
        assert_int_equal(d2->nsteps, d->nsteps);
        for (size_t k = 0; k < d->nsteps; k++) {
            assert_int_equal(d2->steps[k].pos.rank, d->steps[k].pos.rank);
            assert_int_equal(d2->steps[k].pos.stream, d->steps[k].pos.stream);
            assert_int_equal(d2->steps[k].pos.index, d->steps[k].pos.index);
        }
        ces_check_report_destroy(rr);
    }
    ces_check_report_destroy(r);
    return nd;
}

/* The verdict that fixture `path`'s `# expect-verdict:` line names (where
 * it has none, a failure if `named`, else OK), and the fixture loaded into
 * *g (a failure names it). */
static uint32_t load_fixture(struct ces_ctx *ctx, const char *path, bool named,
                             struct ces_graph **g)
{
    char *text = ces_test_read_file(path, NULL);
    char *want_s = ces_test_directive(text, "# expect-verdict:");
    uint32_t want = CES_V_OK;

    if (want_s != NULL)
        want = parse_verdict(path, want_s);
    else if (named)
        fail_msg("%s: no '# expect-verdict:' line", path);
    free(want_s);
    free(text);
    if (ces_graph_load(ctx, path, g) != CES_OK)
        fail_msg("%s: %s", path, ces_ctx_last_error(ctx));
    return want;
}

static void check_dir(const char *subdir, size_t at_least)
{
    char **paths = NULL;
    size_t n = ces_test_list(subdir, ".ces", &paths), bad = 0;

    assert_true(n >= at_least);
    for (size_t i = 0; i < n; i++) {
        struct ces_test_alloc st;
        struct ces_ctx *ctx = ces_test_ctx(&st);
        struct ces_graph *g = NULL;
        uint32_t want = load_fixture(ctx, paths[i], true, &g), got, got_ref;
        char a[64], b[64], c[64];

        got = check(ctx, g, 0);
        got_ref = check(ctx, g, CES_CHECK_NO_REDUCTION);
        ces_verdict_format(want, a, sizeof(a));
        ces_verdict_format(got, b, sizeof(b));
        ces_verdict_format(got_ref, c, sizeof(c));
        printf("%-60s expect %-14s got %-14s unreduced %s\n", paths[i], a, b, c);
        if (got != want || got_ref != want) {
            print_error("%s: expected %s, the checker says %s (unreduced: %s)\n", paths[i], a,
                        b, c);
            bad++;
        }
        /* one counterexample per class found */
        assert_int_equal(replay_all(ctx, g, paths[i]), classes(got));
        ces_graph_destroy(g);
        ces_test_ctx_end(ctx, &st);
    }
    ces_test_list_free(paths, n);
    assert_int_equal(bad, 0);
}

static void test_bad_fixtures(void **state)
{
    (void)state;
    check_dir("bad", 17);
}

/* The visited set tells states apart by a 128-bit fingerprint, two 64-bit
 * words; the first picks the table's slot.  With only 2 bits of either
 * word kept, distinct states share that word (every search of more than
 * 4 states has two that do) and, where it is the first, a slot and its
 * probe chain: every fixture, reduced and unreduced, still gets its
 * expected verdict and the same report, counts and counterexamples, so
 * the table compares both words of every entry its probe passes.  Both
 * words cut to nothing, every state of a search is its first one's, and
 * such a check stores fewer: the cut reaches the search. */
/* (The checks above it are left out: the cut makes the probes quadratic;
 * the three unreduced fixtures of 8,746 to 16,415 states took 8 s for
 * compares that the smaller ones already hold.) */
#define CUT_MOST 2000

static void test_fingerprint_collisions(void **state)
{
    static const char *const dirs[] = {"bad", "good"};
    const uint64_t part = 3;
    size_t collided = 0;

    (void)state;
    for (size_t di = 0; di < 2; di++) {
        char **paths = NULL;
        size_t n = ces_test_list(dirs[di], ".ces", &paths);

        assert_true(n >= 10);
        for (size_t i = 0; i < n; i++) {
            struct ces_test_alloc st;
            struct ces_ctx *ctx = ces_test_ctx(&st);
            struct ces_graph *g = NULL;
            uint32_t want = load_fixture(ctx, paths[i], false, &g);

            for (uint32_t f = 0; f < 2; f++) {
                uint32_t flags = f ? CES_CHECK_NO_REDUCTION : 0;
                struct ces_check_report *r = check_kept(ctx, g, flags, UINT64_MAX, UINT64_MAX);
                struct ces_check_report *w0, *w1, *w2;
                uint64_t states = ces_check_report_stats(r).states;

                if (ces_check_report_verdict(r) != want)
                    fail_msg("%s: verdict %u, expected %u", paths[i],
                             ces_check_report_verdict(r), want);
                printf("%-50s %-10s %8" PRIu64 " states\n", paths[i],
                       f ? "unreduced" : "reduced", states);
                if (states > CUT_MOST) {
                    ces_check_report_destroy(r);
                    continue;
                }
                w0 = check_kept(ctx, g, flags, part, UINT64_MAX);
                w1 = check_kept(ctx, g, flags, UINT64_MAX, part);
                w2 = check_kept(ctx, g, flags, 0, 0);
                ces_test_same_report(paths[i], "a word of the fingerprints cut", r, w0);
                ces_test_same_report(paths[i], "a word of the fingerprints cut", r, w1);
                if (states > 4) {
                    collided++;
                    assert_true(ces_check_report_stats(w2).states < states);
                }
                ces_check_report_destroy(r);
                ces_check_report_destroy(w0);
                ces_check_report_destroy(w1);
                ces_check_report_destroy(w2);
            }
            ces_graph_destroy(g);
            ces_test_ctx_end(ctx, &st);
        }
        ces_test_list_free(paths, n);
    }
    printf("%zu checks of more than 4 states\n", collided);
    assert_true(collided >= 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_fixtures),
        cmocka_unit_test(test_fingerprint_collisions),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
