#ifndef TIDE_NEXT_BASE_H
#define TIDE_NEXT_BASE_H

#include <stddef.h>
#include <git2.h>

#include "merge.h"

/*
 * A tree developed on top of a linux-next day, as -mm was in 2008: "you
 * cannot really base anything on it that is to be merged into it", since
 * next is rebuilt from the trees every day.  The merge stage takes only
 * the tree's own commits, those after the day it is based on, and applies
 * them one by one onto the day's state at the tree's place in the merge
 * order, as linux-next imports a quilt series (docs/design.md, "Trees
 * based on linux-next"; man/trees.conf.5).
 *
 * The day is found by its shape, not by a tag: the commit on the tip's
 * first-parent line that adds localversion-next ("Add linux-next specific
 * files for YYYYMMDD", tide's own day commit as linux-next's), so a tree
 * based on any linux-next, this workspace's or kernel.org's, is taken the
 * same way.  The tree's own commits must be a line of single-parent
 * commits on it (a series), at most NEXT_BASE_MAX_COMMITS.
 */
#define NEXT_BASE_MAX_COMMITS 10000

struct next_base {
	git_oid day;		/* the linux-next day's commit */
	char *name;		/* "next-YYYYMMDD" from its localversion-next, else its short id */
	git_oid *commits;	/* the tree's own commits after the day, oldest first */
	size_t ncommits;
};

/*
 * Is tip based on a linux-next day?  base is the day's mainline base: a
 * base with localversion-next (a day integrated onto a next tag) makes
 * every tree an ordinary one.  Returns 1 with out filled, 0 when it is
 * not, TIDE_EINVAL when it is but cannot be taken (a merge among its
 * commits, too many of them; the message says which), or another TIDE_E*
 * code when tide failed.
 */
int next_base_find(struct next_base *out, git_repository *repo, const git_oid *base,
		   const git_oid *tip);
void next_base_release(struct next_base *nb);

struct next_base_pick {
	git_oid tip;		/* the last commit made, or the state when none was */
	size_t applied;		/* commits made */
	size_t empty;		/* commits whose change the state already had: none made */
	size_t failed;		/* 0, or the position (1-based) of the commit that does not apply */
	struct merge_result res;	/* failed: the engine's merge of that commit, its conflicts */
};

/*
 * Apply nb's commits in order onto state: each is picked as a three-way
 * merge with its parent as the base (merge_step_pick()), and committed
 * with its author and message and committer sig, "(cherry picked from
 * commit ...)" added as git cherry-pick -x does.  The first that conflicts
 * stops the series: out->failed and out->res say which and where.
 * Returns 0 (out filled either way) or a TIDE_E* code.
 */
int next_base_apply(struct next_base_pick *out, git_repository *repo, const git_signature *sig,
		    const git_oid *state, const struct next_base *nb, const char *ours_label);
void next_base_pick_release(struct next_base_pick *p);

#endif
