#ifndef TIDE_MAILMAP_H
#define TIDE_MAILMAP_H

#include <git2.h>

/*
 * The base's .mailmap (git's format, read by libgit2): people change
 * addresses, and a conflict report should name commit authors by the
 * address they use now, as `git shortlog` does.  Only the base's map is
 * used, and only for authors: a tree's .mailmap is the tree's text, and
 * the mail's recipients are trees.conf's contact= lines as written.
 */

/* The .mailmap at the top of commit's tree; an empty map when there is none. */
int mailmap_from_commit(git_mailmap **out, git_repository *repo, const git_oid *commit);

#endif
