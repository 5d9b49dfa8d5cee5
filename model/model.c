/* placeholder until the model lands */
#include "cesync.h"
int ces_model_placeholder_(void);
int ces_model_placeholder_(void) { return 0; }
