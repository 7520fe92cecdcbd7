#include "x.h"
int b_mid(void);
