/* cmd_graph.c - placeholder: being written (must not stay a stub). */
#include "cli.h"
int cmd_graph(int argc, char **argv)
{
	(void)argc;
	gs_error(argv[0], "not implemented yet");
	return GS_EXIT_INTERNAL;
}
