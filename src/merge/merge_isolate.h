#ifndef TIDE_MERGE_ISOLATE_H
#define TIDE_MERGE_ISOLATE_H

#include <git2.h>

/*
 * One tree's work of the merge stage (its check at the door, merge,
 * conflicts, fixups, or its previous version) done in a child process
 * (src/isolate.h) with the tree's time and memory budget: a tree whose
 * objects crash a parser, or that costs more than its budget, is left
 * out, the night goes on.  What the work changed (the tree's record, the
 * day's state and merges, the counts, merge.log, the objects found good)
 * is sent back and applied here; a failed work changes nothing but the
 * objects found good.
 */

struct merge_day;
struct tree;
struct day_tree;

typedef int (*merge_day_work)(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			      const git_oid *tip);

/*
 * Run work(md, t, dt, tip) in a child.  Returns the work's own result (>= 0)
 * once applied; *why NULL.  When the work failed because of the tree (a
 * crash, a budget spent, a TIDE_E* error that is not the workspace's),
 * returns 0 with *why the reason (the caller frees it).  A failure of the
 * workspace (no space left, an I/O error, the day's state unreadable, no
 * process) is returned as it is, with its message.
 */
int merge_day_isolated(char **why, struct merge_day *md, const struct tree *t,
		       struct day_tree *dt, const git_oid *tip, merge_day_work work);

#endif
