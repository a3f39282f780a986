#ifndef TIDE_ATTR_H
#define TIDE_ATTR_H

#include <git2.h>

/*
 * gitattributes(5) that change how tide merges a file and writes its
 * conflict, read as git reads them for a merge in a checkout of ours: the
 * .gitattributes files of ours' tree (each directory's applies below it)
 * and the repository's info/attributes.
 */

/* git's default, DEFAULT_CONFLICT_MARKER_SIZE. */
#define ATTR_MARKER_SIZE 7
/*
 * A tree sets the size: a value past this is taken as this, so that a
 * hostile .gitattributes cannot make every conflict a huge line.
 */
#define ATTR_MARKER_SIZE_MAX 128

/*
 * The conflict-marker-size of path in commit's .gitattributes (git's
 * ll_merge_marker_size()): the attribute's number, ATTR_MARKER_SIZE when
 * it is unset, not a positive number, or commit is NULL or unreadable.
 */
int attr_marker_size(git_repository *repo, const git_oid *commit, const char *path);

/* The built-in merge drivers (gitattributes(5) "Built-in merge drivers"). */
enum attr_merge {
	ATTR_MERGE_TEXT,		/* merge by lines: unset, set, "text" */
	ATTR_MERGE_BINARY,		/* -merge or merge=binary: keep ours, a conflict */
	ATTR_MERGE_UNION,		/* merge=union: both sides' lines, no conflict */
};

/*
 * The merge attribute of path in commit's .gitattributes, as git's
 * find_ll_merge_driver() picks a driver: ATTR_MERGE_TEXT for any other
 * name, as git falls back to text for a driver it does not know (a
 * configured merge.NAME.driver is a command: tide never runs one).
 */
enum attr_merge attr_merge_driver(git_repository *repo, const git_oid *commit, const char *path);

#endif
