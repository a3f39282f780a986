#ifndef TIDE_DIFFSTAT_H
#define TIDE_DIFFSTAT_H

#include <git2.h>

#include "buf.h"

/*
 * The text `git diff --stat` prints for diff, byte for byte (git 2.39's
 * show_stats() with stat-width width and no name or graph limit): one
 * line per file, names C-quoted as core.quotePath does and shortened with
 * "..." from the left, renames as "a/{b => c}/d", the +/- graph scaled
 * to the room left (a file gets a '-' only if it has deletions), binary
 * files as "Bin OLD -> NEW bytes", then the "N files changed" summary.
 * Nothing is appended for an empty diff.  repo holds the blobs (for the
 * sizes of binary files).
 */
int diffstat_format(struct buf *out, git_repository *repo, git_diff *diff, int width);

#endif
