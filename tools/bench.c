/* tools/bench.c - placeholder until `cesync bench` lands. */
#include "tool.h"

#include <stdio.h>

int ces_cmd_bench(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "cesync bench: not built yet\n");
    return CES_EXIT_USAGE;
}
