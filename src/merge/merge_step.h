#ifndef TIDE_MERGE_STEP_H
#define TIDE_MERGE_STEP_H

#include <stddef.h>
#include <git2.h>

#include "merge.h"

struct rerere_outcome;

/*
 * One tree merged onto a state the way the day merges it: the day's
 * merge stage (merge_day.c), bisect's states (bisect.c) and try's
 * collisions (try.c) all merge through merge_step_run(), so a state
 * bisect builds from a day's commits is the day's own (docs/design.md,
 * "One merge of a tree").
 *
 * - The merge bases are tide's (graph_merge_bases(): generation numbers,
 *   one walk), handed to the engine: a criss-cross history is merged
 *   over the same virtual base wherever it is merged.
 * - Up to date: tip is the state or the only merge base; nothing merged.
 * - Unrelated: no merge base; the day refuses such a merge.
 * - Else merge_commits() with those bases; with a store, conflicts get
 *   the recorded resolutions (rerere_resolve_merge()).
 */
enum merge_step_kind {
	MERGE_STEP_MERGED,	/* .tree is the result: clean, or every conflict resolved */
	MERGE_STEP_UP_TO_DATE,	/* the state has tip already; .tree is the state's */
	MERGE_STEP_UNRELATED,	/* no merge base; nothing merged */
	MERGE_STEP_CONFLICT,	/* conflicts left; .res has them, .rr what the store did */
};

struct merge_step_opts {
	const char *ours_label, *theirs_label;	/* conflict markers; the engine's defaults if NULL */
	const char *rr_cache;	/* recorded resolutions replayed on conflicts, or NULL */
};

struct merge_step {
	enum merge_step_kind kind;
	git_oidarray bases;		/* of state and tip, newest first */
	struct merge_result res;	/* the engine's merge, its conflicts as they were */
	git_oid tree;			/* MERGED, UP_TO_DATE: the tree after the step */
	struct rerere_outcome *rr;	/* per conflicted path, when a store was given */
	size_t nrr;
	char *rr_error;			/* why the store could not be read, or NULL */
};

/* 0 with out filled (any kind), or a TIDE_E* code when tide could not merge. */
int merge_step_run(struct merge_step *out, git_repository *repo, const git_oid *state,
		   const git_oid *tip, const struct merge_step_opts *opts);
void merge_step_release(struct merge_step *s);

/*
 * A fixup commit of a day picked onto the tree state_tree, as the day
 * applied it after a tree's merge: a three-way merge with the fixup's
 * parent as the base.  0 with *out the new tree, 1 when it does not apply
 * there, or a TIDE_E* code.
 */
int merge_step_pick(git_oid *out, git_repository *repo, const git_oid *state_tree,
		    const git_oid *fixup);
/*
 * merge_step_pick() keeping the engine's result in *res (cleared by the
 * caller): its tree and, when the commit does not apply (1), the
 * conflicts, marked with opts' labels (NULL: the engine's).
 */
int merge_step_pick_result(struct merge_result *res, git_repository *repo,
			   const git_oid *state_tree, const git_oid *commit,
			   const struct merge_step_opts *opts);

#endif
