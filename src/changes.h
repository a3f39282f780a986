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

#endif
