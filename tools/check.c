/* tools/check.c - placeholder until `cesync check` lands. */
#include "tool.h"

#include <stdio.h>

int ces_cmd_check(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "cesync check: not built yet\n");
    return CES_EXIT_USAGE;
}
