#ifndef TIDE_APPLY_INT_H
#define TIDE_APPLY_INT_H

/*
 * Inside the applier (src/apply.c, src/apply_parse.c): the parsed form of
 * a diff.  Line texts point into the diff text; they keep their '\n'
 * except a line followed by "\ No newline at end of file".
 */
#include <stddef.h>

#include "apply.h"

struct apply_line {
	char op;		/* ' ', '-' or '+' */
	const char *text;
	size_t len;
};

struct apply_hunk {
	long old_start, old_count, new_start, new_count;
	const char *header;	/* "@@ -1,3 +1,4 @@", without the newline */
	size_t header_len;
	size_t first, n;	/* lines[first .. first+n) of the file patch */
	size_t lineno;
};

struct apply_binary {
	int delta;		/* "delta N" rather than "literal N" */
	size_t size;
	const char *data;	/* the base85 lines */
	size_t len;
	size_t lineno;
};

struct apply_file {
	char *old_path, *new_path;	/* stripped and checked; NULL for /dev/null */
	char *hint;			/* the name of an "Index:" line, if any */
	int git;			/* had a "diff --git" line */
	int create, delete, rename, copy;
	int binary;			/* "GIT binary patch" or "Binary files ... differ" */
	unsigned old_mode, new_mode;	/* 0 if the patch does not say */
	char old_id[41], new_id[41];	/* "index" line ids, "" if none */
	struct apply_line *lines;
	size_t nlines, alines;
	struct apply_hunk *hunks;
	size_t nhunks, ahunks;
	struct apply_binary bin[2];	/* forward, reverse */
	int nbin;
	size_t lineno;			/* of the file patch's first line */
};

struct apply_parsed {
	struct apply_file *files;
	size_t nfiles, afiles;
};

/* Parse diff text; with o->reverse the result is already reversed. */
int apply_parse(struct apply_parsed *out, const char *diff, size_t len,
		const struct apply_opts *o);
void apply_parsed_release(struct apply_parsed *p);

/* 0 if path is a safe relative path for a tree, else TIDE_EINVAL. */
int apply_check_path(const char *path, size_t lineno);

#endif
