#ifndef TIDE_TEST_FIXTURE_H
#define TIDE_TEST_FIXTURE_H

/*
 * Recorded console logs live in tests/fixtures/console/.  __FILE__ is
 * relative to the top of the source tree, where make runs; $TIDE_SRC
 * overrides it for a run from elsewhere.
 */
#include <stdlib.h>

#include "buf.h"
#include "util.h"

static char *fixture_path(const char *name)
{
	const char *top = getenv("TIDE_SRC");

	return xasprintf("%s/tests/fixtures/console/%s", top ? top : ".", name);
}

/* The fixture's bytes in out; 0 or -1 (a missing fixture fails the test). */
static int fixture_read(struct buf *out, const char *name)
{
	char *path = fixture_path(name);
	int error = file_read(out, path);

	if (error < 0)
		fprintf(stderr, "  cannot read fixture %s\n", path);
	free(path);
	return error < 0 ? -1 : 0;
}

#endif
