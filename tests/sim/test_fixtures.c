/*
 * tests/sim/test_fixtures.c - every schedule under tests/fixtures/bad gets
 * exactly the verdict set its `# expect-verdict:` directive names, from the
 * reduced and from the unreduced search.
 */
#include "ces_test.h"

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

static uint32_t check(struct ces_ctx *ctx, const struct ces_graph *g, uint32_t flags)
{
    struct ces_check_opts o;
    struct ces_check_report *r = NULL;
    uint32_t v;

    ces_check_opts_init(&o);
    o.flags = flags;
    o.max_seconds = 30;
    assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
    v = ces_check_report_verdict(r);
    ces_check_report_destroy(r);
    return v;
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
        char *text = ces_test_read_file(paths[i], NULL);
        char *want_s = ces_test_directive(text, "# expect-verdict:");
        uint32_t want, got, got_ref;
        char a[64], b[64], c[64];

        if (want_s == NULL)
            fail_msg("%s: no '# expect-verdict:' line", paths[i]);
        want = parse_verdict(paths[i], want_s);
        if (ces_graph_load(ctx, paths[i], &g) != CES_OK)
            fail_msg("%s: %s", paths[i], ces_ctx_last_error(ctx));
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
        ces_graph_destroy(g);
        free(want_s);
        free(text);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_fixtures),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
