/* tools/predict.c - placeholder until `cesync check --predict` lands. */
#include "tool.h"

#include <stdio.h>

int ces_cmd_predict(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "cesync check --predict: not built yet\n");
    return CES_EXIT_USAGE;
}
