#include "y.h"
int a_top(void);
int a_low(void);
