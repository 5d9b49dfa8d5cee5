/* tools/gen.c - placeholder until `cesync gen` lands. */
#include "tool.h"

#include <stdio.h>

int ces_cmd_gen(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "cesync gen: not built yet\n");
    return CES_EXIT_USAGE;
}
