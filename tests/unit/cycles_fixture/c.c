/* a leaf: used by nobody, uses nothing of the others */
int c_leaf(void) { return 3; }
