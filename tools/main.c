/* placeholder until the tool lands */
#include "cesync.h"
int main(void) { return 0; }
