/*
 * render_mkdb.c - writes the render tests' fixture trace (see
 * tests/unit/test_export_fixture.c) to a file, for the CLI and browser
 * tests: render_mkdb <out.db> [variant]. Replaces an existing file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_export_fixture.h"

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: render_mkdb <out.db> [variant]\n");
		return 2;
	}
	unlink(argv[1]);
	return fixture_write(argv[1], argc == 3 ? atoi(argv[2]) : 0) ? 1 : 0;
}
