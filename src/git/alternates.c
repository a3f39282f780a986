/* objects/info/alternates, followed (alternates.h). */
#include <stdlib.h>
#include <string.h>

#include "alternates.h"
#include "buf.h"
#include "error.h"
#include "safefs.h"
#include "util.h"

#define ALTERNATES_FILE_MAX (1u << 16)	/* a file of directory names */

static int walk(const char *objects, int depth, alternates_fn fn, void *payload)
{
	char *file = path_join(objects, "info/alternates"), *line, *save = NULL;
	struct buf text = BUF_INIT;
	int rc = 0;

	if (depth > ALTERNATES_DEPTH ||
	    safefs_read_file(&text, file, ALTERNATES_FILE_MAX) < 0 || !text.len) {
		tide_error_clear();
		goto done;
	}
	for (line = strtok_r(text.ptr, "\n", &save); line && !rc;
	     line = strtok_r(NULL, "\n", &save)) {
		char *dir;

		if (!*str_rtrim(line) || *line == '#')
			continue;
		dir = *line == '/' ? xstrdup(line) : path_join(objects, line);
		if ((rc = fn(dir, payload)) == 0)
			rc = walk(dir, depth + 1, fn, payload);
		free(dir);
	}
done:
	buf_release(&text);
	free(file);
	return rc;
}

int alternates_each(const char *objects, alternates_fn fn, void *payload)
{
	return walk(objects, 1, fn, payload);
}
