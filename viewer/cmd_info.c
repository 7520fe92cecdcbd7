/* cmd_info.c - placeholder: being written (must not stay a stub). */
#include "cli.h"
int cmd_info(int argc, char **argv)
{
	(void)argc;
	gs_error(argv[0], "not implemented yet");
	return GS_EXIT_INTERNAL;
}
