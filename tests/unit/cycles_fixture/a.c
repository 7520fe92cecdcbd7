/* check_cycles.py's own test: a.c and b.c call each other (a call circle),
 * x.h and y.h include each other (an include circle); c.c only calls down. */
#include "x.h"

static int a_private(void) { return 1; } /* static: no edge */
int a_top(void) { return b_mid() + a_private(); }
int a_low(void) { return 2; }
