#ifndef TIDE_MAILMAP_H
#define TIDE_MAILMAP_H

#include <git2.h>

struct mail_msg;

/*
 * A tree's .mailmap (git's format, read by libgit2): people change
 * addresses, and a conflict report should name and mail the address
 * they use now, as `git shortlog` and get_maintainer.pl do.
 */

/* The .mailmap at the top of commit's tree; an empty map when there is none. */
int mailmap_from_commit(git_mailmap **out, git_repository *repo, const git_oid *commit);

/*
 * "Name <addr>" or "addr" through mm, as a new string.  A mapping to
 * something that is not a plain name and address (a mailmap is text from
 * a tree, and this ends up in mail headers) is ignored.
 */
char *mailmap_resolve_addr(const git_mailmap *mm, const char *addr);

/* Resolve a mail's To and Cc, dropping addresses that become duplicates. */
void mailmap_resolve_rcpts(const git_mailmap *mm, struct mail_msg *m);

#endif
