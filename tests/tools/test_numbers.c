/*
 * tests/tools/test_numbers.c - every numeric option of every command, given
 * a value it does not take, said in one wording (the built tool).
 */
#include "ces_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every numeric option of every command refuses a value it does not take
 * in one wording: the option, what it expects with its range, the value
 * quoted (check said "--max-states expects a number, got 'x'" and
 * "--max-depth expects N >= 1", gen "--count expects a number 1..1000000",
 * bench "--root expects a number, not '-1'" and "--compute-bytes must be
 * 8..16G (...), not 0", the builder options "--bytes expects a positive
 * size like 4096, ..." and "--ranks expects a value" where the line ends):
 * 0 where the range starts above it, -1, 1x, a number past 2^64, the
 * empty value; the line ending at the option and another option in the
 * value's place are said with the same range. */
static void test_numbers_one_wording(void **state)
{
#define U64 "18446744073709551615"
    static const char *const values[] = {"0", "-1", "1x", "99999999999999999999", ""};
    static const struct {
        const char *line, *cmd, *opt, *what;
        unsigned ok; /* the values[] it takes: bit i */
    } cases[] = {
        {"check barrier", "check", "--max-states", "a number in 0.." U64, 1},
        {"check barrier", "check", "--max-depth", "a number in 1.." U64, 0},
        {"check barrier", "check", "--random", "a number in 1.." U64, 0},
        {"check barrier --random 1", "check", "--seed", "a number in 0.." U64, 1},
        {"check barrier", "check", "--max-memory", "a size in 0.." U64 " (suffixes K M G)", 1},
        {"check barrier", "check", "--max-seconds", "a finite number > 0", 8},
        {"check barrier", "check", "--progress", "a finite number > 0", 8},
        {"check alltoall", "check", "--ranks", "a number in 1..1024", 0},
        {"print alltoall", "print", "--bytes", "a size in 1..262144G (suffixes K M G)", 0},
        {"dot alltoall", "dot", "--iterations", "a number in 1..1000000", 0},
        {"check --predict broadcast", "check --predict", "--root", "a number in 0..1023", 1},
        {"validate sendrecv", "validate", "--chunks", "a number in 1..1024", 0},
        {"promela sendrecv", "promela", "--slots", "a number in 1..1024", 0},
        {"check alltoall", "check", "--wake", "a number in 0..256", 1},
        {"gen", "gen", "--seed", "a number in 0.." U64, 1},
        {"gen --seed 1", "gen", "--count", "a number in 1..1000000", 0},
        {"gen --seed 1", "gen", "--ranks", "0 (at random) or a number in 2..8", 1},
        {"gen --seed 1", "gen", "--mutate", "a number in 0..100", 1},
        {"gen --seed 1", "gen", "--progress", "a finite number > 0", 8},
        {"bench alltoall --dry-run", "bench", "--ranks", "a number in 2..8", 0},
        {"bench alltoall --dry-run", "bench", "--warmup", "a number in 0..50", 1},
        {"bench alltoall --dry-run", "bench", "--min-bytes", "a size in 4..16G (suffixes K M G)",
         0},
        {"bench broadcast --dry-run", "bench", "--root", "a number in 0..7", 1},
        {"bench alltoall --dry-run --with-compute", "bench", "--compute-bytes",
         "a size in 4..16G (suffixes K M G)", 0},
    };
    char args[256], want[256];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        for (size_t k = 0; k <= sizeof(values) / sizeof(values[0]) + 1; k++) {
            char *out = NULL;
            int rc;

            if (k < sizeof(values) / sizeof(values[0]) && (cases[i].ok & (1u << k)))
                continue;
            if (k < sizeof(values) / sizeof(values[0])) {
                snprintf(args, sizeof(args), "%s %s '%s'", cases[i].line, cases[i].opt,
                         values[k]);
                snprintf(want, sizeof(want), "cesync: %s: %s expects %s, not '%s'\n",
                         cases[i].cmd, cases[i].opt, cases[i].what, values[k]);
            } else if (k == sizeof(values) / sizeof(values[0])) { /* the line ends */
                snprintf(args, sizeof(args), "%s %s", cases[i].line, cases[i].opt);
                snprintf(want, sizeof(want), "cesync: %s: %s expects %s\n", cases[i].cmd,
                         cases[i].opt, cases[i].what);
            } else {
                snprintf(args, sizeof(args), "%s %s --quiet", cases[i].line, cases[i].opt);
                snprintf(want, sizeof(want),
                         "cesync: %s: %s expects %s, not the option '--quiet'\n", cases[i].cmd,
                         cases[i].opt, cases[i].what);
            }
            rc = ces_test_tool(NULL, args, &out);
            if (rc != 2 || strcmp(out, want) != 0)
                fail_msg("'cesync %s' exited %d:\n%swanted:\n%s", args, rc, out, want);
            free(out);
        }
    }
#undef U64
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_one_wording),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
