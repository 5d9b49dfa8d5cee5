/* tools/run.c - placeholder until `cesync run` lands. */
#include "tool.h"

#include <stdio.h>

int ces_cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "cesync run: not built yet\n");
    return CES_EXIT_USAGE;
}
