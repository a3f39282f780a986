#ifndef TIDE_STATS_H
#define TIDE_STATS_H

#include <stddef.h>
#include <git2.h>

/*
 * After a merge window, how much of a mainline tag (a new -rc1) the
 * integration had seen, as linux-next's statistics mail tells it: the
 * tag's commits since the day's base (merges left out), how many of them
 * were in the day by the same id, by the same patch-id (rebased or
 * applied again) or by the same subject; and the day's own commits (each
 * given to the tree that brought it) that the tag has in none of these
 * ways, per tree.
 */
struct day;

struct stats_commit {
	char *id, *subject;
};

struct stats_tree {
	char *name;
	struct stats_commit *never;	/* the tree's commits the tag does not have */
	size_t nnever;
	size_t commits;			/* the tree's commits in the day */
};

struct stats_result {
	char *tag, *tag_commit;
	size_t commits;			/* the tag's non-merge commits not in the day's base */
	size_t by_id, by_patch_id, by_subject;
	size_t day_commits;		/* the day's non-merge commits of its trees */
	size_t never;			/* of those, the tag has none */
	struct stats_tree *trees;	/* in merge order, those with commits in the day */
	size_t ntrees;
};

/*
 * Stats of tag (a ref name or revision in repo) against day d;
 * patch_ids the patch-id cache (workspace_patch_ids(), read only) or
 * NULL.  TIDE_ENOTFOUND when tag names no commit, TIDE_EINVAL when the
 * day's base is not in the tag's history (no merge window between them).
 */
int stats_day(struct stats_result *out, git_repository *repo, const struct day *d,
	      const char *tag, const char *patch_ids);
void stats_result_release(struct stats_result *r);

#endif
