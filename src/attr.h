#ifndef TIDE_ATTR_H
#define TIDE_ATTR_H

#include <git2.h>

/*
 * gitattributes(5) that change how tide writes a conflict, read as git
 * reads them for a merge in a checkout of ours: the .gitattributes files
 * of ours' tree (each directory's applies below it) and the repository's
 * info/attributes.
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

#endif
