/* tools/promela.c - placeholder until `cesync promela` lands. */
#include "tool.h"

#include <stdio.h>

int ces_cmd_promela(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "cesync promela: not built yet\n");
    return CES_EXIT_USAGE;
}
