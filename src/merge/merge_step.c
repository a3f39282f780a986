/* One tree merged onto a state as the day does it (merge_step.h). */
#include <string.h>

#include <git2.h>

#include "error.h"
#include "graph.h"
#include "merge.h"
#include "merge_step.h"
#include "rerere.h"
#include "util.h"

static int state_tree(git_oid *out, git_repository *repo, const git_oid *state)
{
	git_commit *c = NULL;

	if (git_commit_lookup(&c, repo, state) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read the state %s", git_oid_tostr_s(state));
	git_oid_cpy(out, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}

/* The recorded resolutions on res's conflicts: MERGED when all resolve. */
static void replay_recorded(struct merge_step *s, git_repository *repo, const char *store)
{
	int rc = rerere_resolve_merge(&s->tree, &s->rr, &s->nrr, repo, &s->res.tree,
				      s->res.conflicts, s->res.nconflicts, store);

	if (rc < 0) {	/* a broken store leaves the conflicts, it does not stop a merge */
		s->rr_error = xstrdup(tide_error_last());
		tide_error_clear();
	}
	s->kind = rc == 1 ? MERGE_STEP_MERGED : MERGE_STEP_CONFLICT;
}

int merge_step_run(struct merge_step *out, git_repository *repo, const git_oid *state,
		   const git_oid *tip, const struct merge_step_opts *opts)
{
	struct merge_opts mopts = MERGE_OPTS_INIT;
	git_commit *ours = NULL, *theirs = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	/* One walk finds the bases for the merge and for "up to date". */
	if ((error = graph_merge_bases(&out->bases, repo, state, tip)) < 0)
		return tide_error_wrap(error, "cannot find merge bases");
	if (git_oid_equal(tip, state) ||
	    (out->bases.count == 1 && git_oid_equal(&out->bases.ids[0], tip))) {
		out->kind = MERGE_STEP_UP_TO_DATE;
		return state_tree(&out->tree, repo, state);
	}
	if (!out->bases.count) {
		out->kind = MERGE_STEP_UNRELATED;
		return 0;
	}
	mopts.ours_label = opts ? opts->ours_label : NULL;
	mopts.theirs_label = opts ? opts->theirs_label : NULL;
	mopts.bases = &out->bases;
	if (git_commit_lookup(&ours, repo, state) < 0 || git_commit_lookup(&theirs, repo, tip) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read commits to merge");
		goto done;
	}
	if ((error = merge_commits(&out->res, repo, ours, theirs, &mopts)) < 0)
		goto done;
	git_oid_cpy(&out->tree, &out->res.tree);
	out->kind = MERGE_STEP_MERGED;
	if (out->res.nconflicts) {
		out->kind = MERGE_STEP_CONFLICT;
		if (opts && opts->rr_cache)
			replay_recorded(out, repo, opts->rr_cache);
	}
done:
	git_commit_free(ours);
	git_commit_free(theirs);
	return error;
}

void merge_step_release(struct merge_step *s)
{
	git_oidarray_dispose(&s->bases);
	merge_result_clear(&s->res);
	rerere_outcomes_free(s->rr, s->nrr);
	free(s->rr_error);
	memset(s, 0, sizeof(*s));
}

int merge_step_pick_result(struct merge_result *res, git_repository *repo,
			   const git_oid *state_tree, const git_oid *commit,
			   const struct merge_step_opts *opts)
{
	struct merge_opts mopts = MERGE_OPTS_INIT;
	git_commit *fc = NULL, *pc = NULL;
	git_tree *ft = NULL, *pt = NULL, *st = NULL;
	int error;

	memset(res, 0, sizeof(*res));
	mopts.ours_label = opts ? opts->ours_label : NULL;
	mopts.theirs_label = opts ? opts->theirs_label : NULL;
	if (git_commit_lookup(&fc, repo, commit) < 0 || git_commit_parent(&pc, fc, 0) < 0 ||
	    git_commit_tree(&ft, fc) < 0 || git_commit_tree(&pt, pc) < 0 ||
	    git_tree_lookup(&st, repo, state_tree) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the commit %s", git_oid_tostr_s(commit));
		goto done;
	}
	if ((error = merge_trees(res, repo, pt, st, ft, &mopts)) == 0)
		error = res->nconflicts ? 1 : 0;
done:
	git_tree_free(ft);
	git_tree_free(pt);
	git_tree_free(st);
	git_commit_free(fc);
	git_commit_free(pc);
	return error;
}

int merge_step_pick(git_oid *out, git_repository *repo, const git_oid *state_tree,
		    const git_oid *fixup)
{
	struct merge_result mr;
	int error = merge_step_pick_result(&mr, repo, state_tree, fixup, NULL);

	if (error >= 0)
		git_oid_cpy(out, &mr.tree);
	merge_result_clear(&mr);
	return error;
}
