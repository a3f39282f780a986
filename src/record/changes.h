#ifndef TIDE_CHANGES_H
#define TIDE_CHANGES_H

#include <git2.h>

#include "buf.h"

struct day;

/*
 * linux-next's "Changes since YYYYMMDD:" section: what happened to each
 * tree between the day prev and the day d, one sentence each, in merge
 * order: new, moved forward by N commits, rewound (commits dropped and
 * new, counted in repo), fetch failed, refused, conflict appeared (against
 * which trees, and how it was handled), conflict gone, resolution
 * reused, fixups applied or failed; then the trees of prev that d no
 * longer has.  Built from the two records and the commit graph only.
 */
void changes_text(struct buf *out, git_repository *repo, const struct day *prev,
		  const struct day *d);

struct day_moved;
struct day_tree;

/*
 * How tree t of day d moved since pt, the same tree on the day prev, as
 * the record keeps it (dayrec.h's struct day_moved): git's counts of the
 * commits its tip gained and lost and, when it lost some (a rebase or a
 * rewind), its own commits by patch id: dropped (a patch prev's version
 * had and d's has not), rebased (the same patch again) and added.  The
 * commits of the days' mainline and merges are not the tree's own.
 * *out is NULL when the tip did not move.
 */
int changes_tree_moved(struct day_moved **out, git_repository *repo, const struct day *prev,
		       const struct day_tree *pt, const struct day *d, const struct day_tree *t);

/*
 * Each tree of d that moved since prev gets its "moved" record; a tree
 * whose commits cannot be read gets none (the day is not held up).
 */
void changes_record_moves(git_repository *repo, const struct day *prev, struct day *d);

#endif
