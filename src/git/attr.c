/*
 * Attributes from a commit's .gitattributes (attr.h).  libgit2 reads them
 * from the commit's tree (GIT_ATTR_CHECK_INCLUDE_COMMIT), so a bare
 * repository, which has no checkout to read them from, sees what a
 * person's `git merge` in a checkout of that commit would.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"

/* The attribute name of path as commit's .gitattributes give it; -1: unreadable. */
static int attr_get(const char **value, git_repository *repo, const git_oid *commit,
		    const char *path, const char *name)
{
	git_attr_options opts;

	memset(&opts, 0, sizeof(opts));
	opts.version = GIT_ATTR_OPTIONS_VERSION;
	/* No work tree to look at, and no /etc/gitattributes: the same answer on every machine. */
	opts.flags = GIT_ATTR_CHECK_INDEX_ONLY | GIT_ATTR_CHECK_NO_SYSTEM |
		     GIT_ATTR_CHECK_INCLUDE_COMMIT;
	git_oid_cpy(&opts.attr_commit_id, commit);
	if (git_attr_get_ext(value, repo, &opts, path, name) < 0) {
		git_error_clear();	/* an unreadable .gitattributes: git's default, as git */
		return -1;
	}
	return 0;
}

int attr_marker_size(git_repository *repo, const git_oid *commit, const char *path)
{
	const char *value = NULL;
	long n;

	if (!commit || attr_get(&value, repo, commit, path, "conflict-marker-size") < 0)
		return ATTR_MARKER_SIZE;
	if (git_attr_value(value) != GIT_ATTR_VALUE_STRING)
		return ATTR_MARKER_SIZE;
	/* git takes atoi() of the value: leading digits count, anything else is 0. */
	while (isspace((unsigned char)*value))
		value++;
	n = strtol(value, NULL, 10);
	if (n <= 0)
		return ATTR_MARKER_SIZE;
	return n > ATTR_MARKER_SIZE_MAX ? ATTR_MARKER_SIZE_MAX : (int)n;
}

enum attr_merge attr_merge_driver(git_repository *repo, const git_oid *commit, const char *path)
{
	const char *value = NULL;

	if (!commit || attr_get(&value, repo, commit, path, "merge") < 0)
		return ATTR_MERGE_TEXT;
	switch (git_attr_value(value)) {
	case GIT_ATTR_VALUE_FALSE:
		return ATTR_MERGE_BINARY;
	case GIT_ATTR_VALUE_STRING:
		if (!strcmp(value, "binary"))
			return ATTR_MERGE_BINARY;
		if (!strcmp(value, "union"))
			return ATTR_MERGE_UNION;
		/* "text", or a driver of the integrator's config: never run */
		return ATTR_MERGE_TEXT;
	default:
		return ATTR_MERGE_TEXT;
	}
}
