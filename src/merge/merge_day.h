#ifndef TIDE_MERGE_DAY_H
#define TIDE_MERGE_DAY_H

#include <stddef.h>
#include <git2.h>

#include "event.h"

/*
 * The day's merge stage: each tree of trees.conf, in order, merged onto
 * the day's state (docs/design.md, "The day's history"), its conflicts
 * recorded, recorded resolutions tried, then the tree's previous
 * version; fixups applied after a merge.  Everything goes into the day
 * record (one struct day_tree a tree), merge.log and events.  The run
 * (run.c) sets the context up and calls merge_day_tree() for each tree.
 */

struct buf;
struct day;
struct day_tree;
struct fetch_day;
struct fsck_seen;
struct tree;
struct trees_conf;
struct workspace;

struct previous_index;

/*
 * What the merge stage reads of the run (its date and tag) and counts for
 * it (the check at the door); run.c copies the counts into its summary.
 */
struct merge_day_run {
	char date[11];
	char tag[16];
	size_t door_commits, door_trees;
	double door_seconds;
};

/* A merge made today: bisect and reports map commits to trees with it. */
struct merged_tree {
	const char *name;
	git_oid tip;
};

/*
 * After a tree's clean merge when trees.conf says "build-each-merge":
 * returns 1 when the merge must be dropped (its build failed), else 0.
 * The merge stage then merges the tree's previous version, or leaves it
 * out with status "dropped".
 */
struct merge_day_build_hook {
	int (*fn)(void *data, const struct tree *t, struct day_tree *dt);
	void *data;
};

struct merge_day {
	/* set by the caller */
	struct workspace *ws;
	git_repository *repo;
	const struct trees_conf *conf;
	const git_signature *sig;
	const char *days_dir;		/* earlier days, for previous versions */
	struct day *day;		/* trees are added to it */
	struct merge_day_run *sum;	/* date and tag; the door's counts */
	struct fetch_day *fetch;	/* the git trees' tips; quilt time added */
	struct fsck_seen *fsck;		/* tree objects found good */
	struct buf *mergelog;		/* Next/merge.log */
	struct event_sink events;
	struct merge_day_build_hook build_merge;
	/*
	 * Each tree's work (merge_isolate.h) gets at most tree_seconds (its
	 * "merge-timeout=" wins) and tree_memory bytes more than the run had.
	 */
	long tree_seconds;
	size_t tree_memory;
	git_oid base;
	/* the stage's state */
	git_oid state;			/* the day so far; starts at base */
	struct merged_tree *merged;
	size_t nmerged;
	size_t ndone;			/* trees done */
	int nmerges;			/* merge attempts */
	const char *version_from;	/* set while merging a tree's previous version */
	git_mailmap *mailmap;		/* the base's .mailmap, while a conflict's sides are recorded */
	struct previous_index *previous;	/* earlier days' versions of the trees, read once */
};

/* The defaults of trees.conf's merge-timeout= and DIR/config's merge-memory. */
#define MERGE_DAY_TIMEOUT 300
#define MERGE_DAY_MEMORY ((size_t)512 << 20)

/*
 * Merge tree t: 0 whatever became of it (a failure of the tree's own
 * leaves it out, with its previous version where it has one), or a
 * TIDE_E* code when the workspace failed (disk, repository).
 */
int merge_day_tree(struct merge_day *md, const struct tree *t);
void merge_day_release(struct merge_day *md);

#endif
