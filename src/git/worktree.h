#ifndef TIDE_WORKTREE_H
#define TIDE_WORKTREE_H

#include <git2.h>

#include "merge.h"

/*
 * Make dir, which holds a checkout of merged (a merge of theirs into ours
 * with conflict markers in the conflicted files), a git repository in
 * the middle of that merge, as `git merge` leaves one: dir/.git borrows
 * the objects of repo (objects/info/alternates, nothing copied), HEAD is
 * ours (detached), MERGE_HEAD theirs, MERGE_MSG msg, and the index has
 * every path of merged at stage 0, with the stat data of the checked-out
 * file, except the conflicts, which have their base/ours/theirs stages.
 * So git status, git diff, git rerere and builds work there.  rerere is
 * enabled; dir/.tide is excluded.
 */
int worktree_git_init(git_repository *repo, const char *dir, const git_oid *ours,
		      const git_oid *theirs, const git_oid *merged,
		      const struct merge_conflict *conflicts, size_t nconflicts, const char *msg);

#endif
