#ifndef TIDE_CHECKOUT_H
#define TIDE_CHECKOUT_H

#include <stddef.h>
#include <git2.h>

/*
 * An incremental checkout of a commit into a directory: only the files
 * that changed since the last checkout are rewritten (so make stays
 * incremental), every path written below the directory's fd by git
 * fsck's name rules.  The build, bisect, try and rerere's resolve
 * checkouts use it.
 */

struct checkout_stats {
	int full;		/* 1: no usable previous tree, every file compared */
	size_t written;		/* files (re)written */
	size_t removed;		/* files or directories removed */
	size_t unchanged;	/* full checkout: files left alone (same content) */
	double seconds;
	/* Paths (relative) written or removed, for checkout_stats_release(). */
	char **changed;
	size_t nchanged, achanged;
};

void checkout_stats_release(struct checkout_stats *stats);
/* Did the checkout write or remove path? */
int checkout_changed(const struct checkout_stats *stats, const char *path);

/*
 * Make srcdir hold exactly the tree of commit.  state_path remembers the
 * tree last checked out; it is removed before srcdir is touched and written
 * only after success, so an interrupted checkout is never taken as
 * complete: a missing or unknown state means a full checkout, which still
 * leaves files whose content is right (and their mtimes) alone.
 */
int checkout_tree(struct checkout_stats *stats, git_repository *repo,
		   const git_oid *commit, const char *srcdir,
		   const char *state_path);

#endif
