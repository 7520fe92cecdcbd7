/* calls back up into a.c: the loop check_cycles.py must find */
#include "y.h"

int b_mid(void) { return a_low(); }
/* a comment naming c_leaf() makes no edge, nor does "c_leaf()" in a string */
const char *b_text = "c_leaf()";
