#ifndef TIDE_LINEDIFF_H
#define TIDE_LINEDIFF_H

#include <stddef.h>
#include <stdint.h>

/*
 * The line diff git 2.39's merges use: xdiff's histogram algorithm, its
 * fall back to Myers' algorithm (with xdiff's discarding of unmatched
 * lines and its cost heuristics) where a region has only lines that
 * occur too often, and xdl_change_compact()'s sliding of each change to
 * the last place it can line up with the other file's changes.  Every
 * tie is broken as xdiff breaks it, so a three-way merge built on it
 * (xmerge.h) writes git's bytes.
 *
 * The diff works on line ids: two lines are equal when their ids are.
 * Ids come from an id space of `nids` values (xmerge classifies the lines
 * of a merge's three texts once); the diff renumbers them itself where
 * xdiff's choices depend on the numbering.
 */

/* Lines [a, a + na) of A are replaced by lines [b, b + nb) of B. */
struct ld_change {
	uint32_t a, na, b, nb;
};

struct ld_script {
	struct ld_change *v;
	size_t n, alloc;
};

/*
 * Scratch shared by the diffs of one merge: a map over the id space,
 * kept all-unused between calls.
 */
struct ld_ids {
	uint32_t nids;
	uint32_t *map;
};

int ld_ids_init(struct ld_ids *ids, uint32_t nids);
void ld_ids_release(struct ld_ids *ids);

/*
 * Diff A (na ids) against B (nb ids), appending the changes in order to
 * out.  TIDE_EINVAL where git's diff fails too: a region whose histogram
 * hash chain reaches 64 distinct lines (xdiff gives up on it, and git's
 * merge then fails).
 */
int ld_diff(struct ld_script *out, const uint32_t *a, uint32_t na,
	    const uint32_t *b, uint32_t nb, struct ld_ids *ids);

void ld_script_release(struct ld_script *s);

/* Bytes of working memory ld_diff() may need for n1 and n2 lines. */
size_t ld_diff_cost(size_t n1, size_t n2);

#endif
