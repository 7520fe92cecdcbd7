/* cmd_record.c - placeholder: being written (must not stay a stub). */
#include "cli.h"
int cmd_record(int argc, char **argv)
{
	(void)argc;
	gs_error(argv[0], "not implemented yet");
	return GS_EXIT_INTERNAL;
}
