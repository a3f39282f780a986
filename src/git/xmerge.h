#ifndef TIDE_XMERGE_H
#define TIDE_XMERGE_H

#include <stddef.h>

#include "buf.h"

/*
 * A three-way merge of texts that writes what git 2.39's merge-ort
 * writes for a content merge (ll-merge's xdl_merge() at level ZEALOUS,
 * merge style, histogram diffs; see linediff.h): the same clean text or
 * the same conflict hunks, markers, labels and line endings, and the
 * same clean/conflicted verdict.
 *
 * Binary detection and size limits are the caller's: the texts are
 * merged as lines whatever they hold.
 */
struct xmerge_text {
	const char *ptr;
	size_t size;
	const char *label;		/* after the marker; NULL: none */
};

struct xmerge_opts {
	int marker_size;		/* <= 0: 7, git's default */
	/*
	 * Favour one side in conflicting hunks (git's -Xours/-Xtheirs):
	 * 0 (none), 1 (ours), 2 (theirs), 3 (both: the union driver).
	 */
	int favor;
};

#define XMERGE_OPTS_INIT { 0, 0 }

/*
 * Merge ours and theirs against base into out (reset first).  Returns
 * the number of conflict hunks (0: clean) or a TIDE_E* code (a text
 * over 2^31 bytes, or lines git cannot diff either: TIDE_EINVAL).
 */
int xmerge(struct buf *out, const struct xmerge_text *base, const struct xmerge_text *ours,
	   const struct xmerge_text *theirs, const struct xmerge_opts *opts);

/*
 * The most memory xmerge() uses for these texts, theirs included (their
 * sizes, the result and the per-line tables), so a caller can refuse a
 * merge over a budget before any table is built.
 */
size_t xmerge_cost(const struct xmerge_text *base, const struct xmerge_text *ours,
		   const struct xmerge_text *theirs);

#endif
