/*
 * `tide try` on a day: where the series applies, and which of the day's
 * trees it collides with.  The trees are found on the day's first-parent
 * chain (base, merge of tree 1 [+ its fixups], ..., Next/ files), each
 * step named by its "Tide-Tree:" trailer, as bisect and the build's
 * attribution read it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>

#include "alternates.h"
#include "apply.h"
#include "day.h"
#include "error.h"
#include "history.h"
#include "merge.h"
#include "merge_step.h"
#include "try.h"
#include "util.h"

#define TRY_MAX_COMMITS 5	/* a tree's commits listed per conflicted path */
#define TRY_MAX_CHAIN 100000	/* first-parent steps from a day to its base */

const char *try_tree_status_name(enum try_tree_status s)
{
	static const char *const names[] = {
		"ok", "conflict", "needed", "before", "not-merged", "untested",
	};

	return s < ARRAY_SIZE(names) ? names[s] : "?";
}

/* ---- a read-only object database ---- */

/*
 * libgit2 "freshens" an object it is asked to write and already has:
 * it touches the loose file or the pack.  A try writes merge trees that
 * the day already holds, so its object database is the repository's
 * (and its alternates') without write or freshen: an existing object is
 * only looked up, and new ones go to the memory backend the caller adds.
 */
static int add_objects_dir(git_odb *odb, const char *dir, int priority)
{
	git_odb_backend *loose = NULL, *pack = NULL;

	if (git_odb_backend_loose(&loose, dir, -1, 0, 0, 0) < 0 ||
	    git_odb_backend_pack(&pack, dir) < 0) {
		if (loose)
			loose->free(loose);
		return tide_error_git(TIDE_ERROR, "cannot read objects in '%s'", dir);
	}
	loose->write = NULL;
	loose->writestream = NULL;
	loose->freshen = NULL;
	pack->writepack = NULL;
	pack->freshen = NULL;
	if (git_odb_add_backend(odb, loose, priority) < 0) {
		loose->free(loose);
		pack->free(pack);
		return tide_error_git(TIDE_ERROR, "cannot read objects in '%s'", dir);
	}
	if (git_odb_add_backend(odb, pack, priority + 1) < 0) {
		pack->free(pack);
		return tide_error_git(TIDE_ERROR, "cannot read objects in '%s'", dir);
	}
	return 0;
}

/* Each alternate's objects, below the repository's own (alternates.h). */
struct alternate_add {
	git_odb *odb;
	int prio;
};

static int add_alternate(const char *dir, void *payload)
{
	struct alternate_add *a = payload;

	a->prio -= 2;
	return add_objects_dir(a->odb, dir, a->prio);
}

int try_odb_readonly(git_repository *repo)
{
	char *objects = path_join(git_repository_path(repo), "objects");
	struct alternate_add alt = { NULL, 0 };
	git_odb *odb = NULL;
	int error;

	if (git_odb_new(&odb) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot set up an object database");
		goto done;
	}
	alt.odb = odb;
	if ((error = add_objects_dir(odb, objects, 2)) < 0 ||
	    (error = alternates_each(objects, add_alternate, &alt)) < 0)
		goto done;
	if (git_repository_set_odb(repo, odb) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot set up an object database");
done:
	git_odb_free(odb);
	free(objects);
	return error;
}

/* ---- applying ---- */

/* The text of the hunk that failed, header and lines, as in the patch. */
static char *hunk_text(git_diff *diff, size_t delta, int hunk)
{
	git_patch *patch = NULL;
	const git_diff_hunk *h;
	const git_diff_line *l;
	struct buf b = BUF_INIT;
	size_t nlines, i;

	if (hunk < 0 || git_patch_from_diff(&patch, diff, delta) < 0 || !patch ||
	    git_patch_get_hunk(&h, &nlines, patch, (size_t)hunk) < 0)
		goto done;
	buf_put(&b, h->header, h->header_len);
	for (i = 0; i < nlines; i++) {
		if (git_patch_get_line_in_hunk(&l, patch, (size_t)hunk, i) < 0)
			break;
		if (l->origin == '+' || l->origin == '-' || l->origin == ' ')
			buf_putc(&b, l->origin);
		buf_put(&b, l->content, l->content_len);
		if (!l->content_len || l->content[l->content_len - 1] != '\n')
			buf_putc(&b, '\n');
	}
done:
	git_patch_free(patch);
	git_error_clear();
	return b.len ? buf_detach(&b) : (buf_release(&b), NULL);
}

/*
 * Where the applier's message says it failed: "does not apply to 'PATH':
 * hunk #N (...)".  *path and *hunk (1-based, 0 if none) from it.
 */
static void failure_place(char **path, int *hunk, const char *msg)
{
	const char *p = strstr(msg, "does not apply to '"), *q, *h;

	*path = NULL;
	*hunk = 0;
	if (!p || !(q = strchr(p += 19, '\'')))
		return;
	*path = xstrndup(p, (size_t)(q - p));
	if ((h = strstr(q, ": hunk #")))
		*hunk = atoi(h + 8);
}

/* The delta of diff that patches path, for its hunk text. */
static int delta_of(git_diff *diff, const char *path, size_t *out)
{
	size_t i;

	for (i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if ((d->new_file.path && !strcmp(d->new_file.path, path)) ||
		    (d->old_file.path && !strcmp(d->old_file.path, path))) {
			*out = i;
			return 1;
		}
	}
	return 0;
}

/* Record why patch idx does not apply: the applier's message, file, hunk. */
static void note_failure(struct try_apply *a, const struct try_patch *p, size_t idx)
{
	git_diff *diff = NULL;
	size_t delta;
	int hunk;

	a->failed = idx;
	a->error = xstrdup(tide_error_last());
	failure_place(&a->file, &hunk, a->error);
	if (a->file && hunk > 0 && git_diff_from_buffer(&diff, p->diff, p->diff_len) == 0 &&
	    delta_of(diff, a->file, &delta))
		a->hunk = hunk_text(diff, delta, hunk - 1);
	git_diff_free(diff);
	git_error_clear();
	tide_error_clear();
}

/* Apply patch p on *tip (src/apply.h); 1 when it does not apply (recorded in a). */
static int apply_patch(struct try_apply *a, git_repository *repo, git_oid *tip,
		       const struct try_patch *p, size_t idx)
{
	git_commit *parent = NULL;
	git_tree *newtree = NULL;
	git_signature *committer = NULL;
	git_oid tree_id;
	int error;

	if (git_commit_lookup(&parent, repo, tip) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the commit to apply '%s' on", p->name);
		goto done;
	}
	error = apply_to_tree(&tree_id, repo, git_commit_tree_id(parent), p->diff, p->diff_len,
			      NULL, NULL);
	if (error == TIDE_ECONFLICT || error == TIDE_EINVAL) {
		note_failure(a, p, idx);
		error = 1;
		goto done;
	}
	if (error < 0)
		goto done;
	/* The committer is tide, at the author's time: a rerun makes the same ids. */
	if (git_tree_lookup(&newtree, repo, &tree_id) < 0 ||
	    git_signature_new(&committer, "tide try", "tide@localhost", p->sig->when.time,
			      p->sig->when.offset) < 0 ||
	    git_commit_create(tip, repo, NULL, p->sig, committer, NULL, p->message, newtree,
			      1, (const git_commit **)&parent) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot commit patch '%s'", p->name);
done:
	git_signature_free(committer);
	git_tree_free(newtree);
	git_commit_free(parent);
	return error;
}

int try_apply_series(struct try_apply *out, git_repository *repo,
		     const git_oid *onto, const struct try_series *s)
{
	git_oid tip;
	size_t i;
	int rc = 0;

	git_oid_cpy(&out->onto, onto);
	git_oid_cpy(&tip, onto);
	for (i = 0; i < s->n && rc == 0; i++)
		rc = apply_patch(out, repo, &tip, &s->v[i], i);
	if (rc < 0)
		return rc;
	out->ok = rc == 0;
	if (out->ok)
		git_oid_cpy(&out->tip, &tip);
	return 0;
}

void try_apply_release(struct try_apply *a)
{
	if (!a)
		return;
	free(a->onto_name);
	free(a->onto_label);
	free(a->file);
	free(a->hunk);
	free(a->error);
	memset(a, 0, sizeof(*a));
}

/* ---- the chain ---- */

struct step {
	char *tree;		/* "Tide-Tree:" of its commits, NULL for others */
	git_oid before, after;
	git_oid tip;		/* the tree's tip: the merge's second parent */
	int have_tip;
};

struct chain {
	struct step *v;
	size_t n, alloc;
};

static void chain_release(struct chain *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i].tree);
	free(c->v);
}

/* One commit of the chain (newest first), joined to its tree's step. */
static void chain_add(struct chain *ch, const git_commit *c)
{
	char *name = history_tree_of(c);
	struct step *s = ch->n ? &ch->v[ch->n - 1] : NULL;

	/* A tree's merge and its fixups, read newest first, are one step. */
	if (s && name && s->tree && !strcmp(s->tree, name)) {
		git_oid_cpy(&s->before, git_commit_parent_id(c, 0));
	} else {
		array_grow(&ch->v, &ch->alloc, ch->n + 1, sizeof(*ch->v));
		s = &ch->v[ch->n++];
		memset(s, 0, sizeof(*s));
		s->tree = name ? xstrdup(name) : NULL;
		git_oid_cpy(&s->after, git_commit_id(c));
		git_oid_cpy(&s->before, git_commit_parent_id(c, 0));
	}
	if (git_commit_parentcount(c) == 2) {
		git_oid_cpy(&s->tip, git_commit_parent_id(c, 1));
		s->have_tip = 1;
	}
	free(name);
}

/* The steps from base to tip, oldest first. */
static int chain_read(struct chain *out, git_repository *repo, const git_oid *base,
		      const git_oid *tip)
{
	git_commit *c = NULL, *parent = NULL;
	size_t i, n = 0;
	int error = 0;

	memset(out, 0, sizeof(*out));
	if (git_commit_lookup(&c, repo, tip) < 0)
		return tide_error_git(TIDE_ENOTFOUND, "cannot read the day's commit");
	while (!git_oid_equal(git_commit_id(c), base)) {
		if (++n > TRY_MAX_CHAIN || git_commit_parentcount(c) == 0) {
			error = tide_error_set(TIDE_EINVAL, "the day's commit does not descend from its base");
			break;
		}
		chain_add(out, c);
		if (git_commit_parent(&parent, c, 0) < 0) {
			error = tide_error_git(TIDE_ERROR, "cannot read the day's history");
			break;
		}
		git_commit_free(c);
		c = parent;
		parent = NULL;
	}
	git_commit_free(c);
	for (i = 0; i < out->n / 2; i++) {
		struct step t = out->v[i];

		out->v[i] = out->v[out->n - 1 - i];
		out->v[out->n - 1 - i] = t;
	}
	return error;
}

/* ---- merging the series against the chain ---- */

struct cset {
	struct merge_result res;
	int have;
};

/*
 * Merge the series (theirs) into state (ours) as the day merges a tree
 * (merge_step.h: the day's merge bases), without recorded resolutions:
 * the conflicts are what try reports.
 */
static int merge_with(struct cset *out, git_repository *repo, const git_oid *state,
		      const git_oid *series)
{
	struct merge_step_opts so = { "next", "series", NULL };
	struct merge_step s;
	int error;

	merge_result_clear(&out->res);
	out->have = 0;
	error = merge_step_run(&s, repo, state, series, &so);
	if (error == 0 && s.kind == MERGE_STEP_UNRELATED)
		error = tide_error_set(TIDE_EINVAL, "the series shares no history with the state %s",
				       git_oid_tostr_s(state));
	if (error == 0) {
		out->res = s.res;	/* taken over: the conflicts as they were */
		memset(&s.res, 0, sizeof(s.res));
		out->res.tree = s.tree;	/* up to date: the state's tree */
		out->have = 1;
	}
	merge_step_release(&s);
	return error;
}

/* Was path already conflicted, the same way, before this tree? */
static int conflict_known(const struct cset *before, const struct merge_conflict *c)
{
	size_t i;

	for (i = 0; before->have && i < before->res.nconflicts; i++) {
		const struct merge_conflict *b = &before->res.conflicts[i];

		if (!strcmp(b->path, c->path))
			return git_oid_equal(&b->ours, &c->ours);
	}
	return 0;
}

/* The hunks of the conflicts from first on. */
struct try_hunks {
	struct try_tree *t;
	size_t first;
};

static void add_try_hunk(void *payload, size_t i, const char *hunk)
{
	struct try_hunks *h = payload;
	struct try_conflict *tc = &h->t->conflicts[h->first + i];

	tc->hunks = xrealloc(tc->hunks, (tc->nhunks + 1) * sizeof(char *));
	tc->hunks[tc->nhunks++] = xstrdup(hunk);
}

/* Does commit c (one parent) change path? */
static int commit_touches(git_repository *repo, git_commit *c, const char *path)
{
	git_commit *parent = NULL;
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	git_diff_options o;
	char *paths[1] = { (char *)path };
	int hit = 0;

	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.pathspec.strings = paths;
	o.pathspec.count = 1;
	o.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	if (git_commit_parent(&parent, c, 0) == 0 && git_commit_tree(&a, parent) == 0 &&
	    git_commit_tree(&b, c) == 0 && git_diff_tree_to_tree(&diff, repo, a, b, &o) == 0)
		hit = git_diff_num_deltas(diff) > 0;
	git_error_clear();
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(parent);
	return hit;
}

/* The tree's own commits (tip, not in the state before it) that touch path. */
static void add_commits(struct try_conflict *tc, git_repository *repo, const struct step *st)
{
	git_revwalk *walk = NULL;
	git_commit *c = NULL;
	git_oid id;

	if (!st->have_tip || git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_push(walk, &st->tip) < 0 || git_revwalk_hide(walk, &st->before) < 0)
		goto done;
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL);
	while (tc->ncommits < TRY_MAX_COMMITS && git_revwalk_next(&id, walk) == 0) {
		if (git_commit_lookup(&c, repo, &id) < 0)
			break;
		if (git_commit_parentcount(c) == 1 && commit_touches(repo, c, tc->path)) {
			tc->commits = xrealloc(tc->commits, (tc->ncommits + 1) * sizeof(char *));
			tc->commits[tc->ncommits++] = xasprintf("%.12s %s", git_oid_tostr_s(&id),
								git_commit_summary(c) ?: "");
		}
		git_commit_free(c);
		c = NULL;
	}
done:
	git_revwalk_free(walk);
	git_error_clear();
}

/* The conflicts this step's merge brought in: new paths, or paths it changed. */
static void note_conflicts(struct try_tree *t, git_repository *repo, const struct step *st,
			   const struct cset *before, const struct cset *after)
{
	struct try_hunks h = { t, t->nconflicts };
	const char **paths = xcalloc(after->res.nconflicts + 1, sizeof(*paths));
	int *sizes = xcalloc(after->res.nconflicts + 1, sizeof(*sizes));
	size_t i;

	for (i = 0; i < after->res.nconflicts; i++) {
		const struct merge_conflict *c = &after->res.conflicts[i];
		struct try_conflict *tc;

		if (conflict_known(before, c))
			continue;
		t->conflicts = xrealloc(t->conflicts, (t->nconflicts + 1) * sizeof(*t->conflicts));
		tc = &t->conflicts[t->nconflicts++];
		memset(tc, 0, sizeof(*tc));
		tc->path = xstrdup(c->path);
		tc->kind = merge_conflict_kind_name(c->kind);
		paths[t->nconflicts - 1 - h.first] = tc->path;
		sizes[t->nconflicts - 1 - h.first] = c->marker_size;
	}
	/* every file's hunks in one pass over the merged tree */
	merge_conflict_hunks(repo, &after->res.tree, paths, sizes, t->nconflicts - h.first,
			     add_try_hunk, &h);
	for (i = h.first; i < t->nconflicts; i++)
		add_commits(&t->conflicts[i], repo, st);
	free(sizes);
	free(paths);
	t->status = t->nconflicts ? TRY_TREE_CONFLICT : TRY_TREE_OK;
}

/* ---- a try ---- */

static struct try_tree *result_tree(struct try_result *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->ntrees; i++)
		if (!strcmp(r->trees[i].name, name))
			return &r->trees[i];
	r->trees = xrealloc(r->trees, (r->ntrees + 1) * sizeof(*r->trees));
	memset(&r->trees[r->ntrees], 0, sizeof(*r->trees));
	r->trees[r->ntrees].name = xstrdup(name);
	r->trees[r->ntrees].status = TRY_TREE_UNTESTED;
	return &r->trees[r->ntrees++];
}

static struct try_apply *add_apply(struct try_result *r, const char *name, const char *label)
{
	struct try_apply *a;

	r->applies = xrealloc(r->applies, (r->napplies + 1) * sizeof(*r->applies));
	a = &r->applies[r->napplies++];
	memset(a, 0, sizeof(*a));
	a->onto_name = xstrdup(name);
	a->onto_label = xstrdup(label);
	a->failed = SIZE_MAX;
	return a;
}

static int oid_of(git_oid *out, const char *hex, const char *what)
{
	if (!hex || git_oid_fromstr(out, hex) < 0)
		return tide_error_set(TIDE_EINVAL, "day record has no valid %s", what);
	return 0;
}

/* The series' own base-commit, if the workspace repository has it. */
static int apply_base_commit(struct try_result *r, git_repository *repo,
			     const struct try_series *s)
{
	struct try_apply *a = add_apply(r, "base-commit", s->base_commit);
	git_object *obj = NULL;
	int error = 0;

	if (git_revparse_single(&obj, repo, s->base_commit) < 0 ||
	    git_object_type(obj) != GIT_OBJECT_COMMIT) {
		git_error_clear();
		a->error = xstrdup("not in the workspace repository");
	} else {
		error = try_apply_series(a, repo, git_object_id(obj), s);
	}
	git_object_free(obj);
	return error;
}

static int apply_index(const struct try_result *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->napplies; i++)
		if (!strcmp(r->applies[i].onto_name, name) && r->applies[i].ok)
			return (int)i;
	return -1;
}

/*
 * Where the series is merged from: its base-commit, the base, or the
 * first state of the chain it applies to (an apply "after <tree>"; the
 * trees up to that one are what it needs).  *from is the step the chain
 * is checked from; ch->n when none is.
 */
static int find_home(struct try_result *r, git_repository *repo, const struct chain *ch,
		     const struct try_series *s, size_t *from)
{
	size_t i;
	int error = 0;

	*from = 0;
	if ((r->home = apply_index(r, "base-commit")) < 0)
		r->home = apply_index(r, "base");
	for (i = 0; r->home < 0 && i < ch->n && !error; i++) {
		struct try_apply *a;
		char *label;

		if (!ch->v[i].tree)
			continue;
		label = xasprintf("after %s", ch->v[i].tree);
		a = add_apply(r, "after", label);
		free(label);
		if ((error = try_apply_series(a, repo, &ch->v[i].after, s)) == 0 && a->ok) {
			r->home = (int)r->napplies - 1;
			*from = i + 1;
		}
	}
	for (i = 0; i < *from; i++)
		if (ch->v[i].tree)
			result_tree(r, ch->v[i].tree)->status =
				i + 1 == *from ? TRY_TREE_NEEDED : TRY_TREE_BEFORE;
	if (r->home < 0)
		*from = ch->n;
	return error;
}

/* Each tree's merge against the series, oldest first. */
static int check_trees(struct try_result *r, git_repository *repo, const struct chain *ch,
		       size_t from)
{
	struct cset before, after, none, tmp;
	const git_oid *series;
	size_t i;
	int error = 0;

	memset(&before, 0, sizeof(before));
	memset(&after, 0, sizeof(after));
	memset(&none, 0, sizeof(none));
	if (from >= ch->n || r->home < 0)
		return 0;
	series = &r->applies[r->home].tip;
	if ((error = merge_with(&before, repo, &ch->v[from].before, series)) < 0)
		goto done;
	/* From an older base-commit, mainline since then may collide: say so. */
	if (before.res.nconflicts && from == 0) {
		struct step st;

		memset(&st, 0, sizeof(st));
		note_conflicts(result_tree(r, "mainline"), repo, &st, &none, &before);
	}
	for (i = from; i < ch->n && !error; i++) {
		if ((error = merge_with(&after, repo, &ch->v[i].after, series)) < 0)
			break;
		if (ch->v[i].tree)
			note_conflicts(result_tree(r, ch->v[i].tree), repo, &ch->v[i], &before, &after);
		tmp = before;
		before = after;
		after = tmp;
	}
done:
	merge_result_clear(&before.res);
	merge_result_clear(&after.res);
	return error;
}

/* The day's trees in its order; those the chain lacks say why. */
static void order_trees(struct try_result *r, const struct day *day)
{
	struct try_tree *v = xcalloc(day->ntrees + r->ntrees + 1, sizeof(*v));
	size_t n = 0, i, j;

	for (i = 0; i < day->ntrees; i++) {
		const struct day_tree *dt = &day->trees[i];
		struct try_tree *t = result_tree(r, dt->name);

		t->day_status = xstrdup(tree_status_name(dt->status) ?: "?");
		/* A tree in the day with no commit of its own in the chain: up to date. */
		if (t->status == TRY_TREE_UNTESTED && dt->status == TREE_UP_TO_DATE)
			t->status = TRY_TREE_OK;
		else if (t->status == TRY_TREE_UNTESTED && dt->status != TREE_STATUS_NONE &&
			 !tree_status_in_day(dt->status))
			t->status = TRY_TREE_NOT_MERGED;
	}
	/* "mainline" first, then the day's order, then anything else of the chain. */
	for (i = 0; i < r->ntrees; i++)
		if (!strcmp(r->trees[i].name, "mainline"))
			v[n++] = r->trees[i];
	for (i = 0; i < day->ntrees; i++)
		for (j = 0; j < r->ntrees; j++)
			if (!strcmp(r->trees[j].name, day->trees[i].name) &&
			    strcmp(r->trees[j].name, "mainline"))
				v[n++] = r->trees[j];
	for (j = 0; j < r->ntrees; j++)
		if (!r->trees[j].day_status && strcmp(r->trees[j].name, "mainline"))
			v[n++] = r->trees[j];
	free(r->trees);
	r->trees = v;
	r->ntrees = n;
}

int try_day(struct try_result *out, git_repository *repo, const struct day *day,
	    const struct try_series *s)
{
	struct chain ch = { NULL, 0, 0 };
	struct try_apply *a;
	git_oid base, tip;
	size_t from;
	int error;

	memset(out, 0, sizeof(*out));
	out->home = -1;
	if ((error = oid_of(&base, day->base_commit, "base commit")) < 0 ||
	    (error = oid_of(&tip, day->commit, "commit")) < 0 ||
	    (error = chain_read(&ch, repo, &base, &tip)) < 0)
		goto done;
	a = add_apply(out, "base", day->base_tag ? day->base_tag : "base");
	if ((error = try_apply_series(a, repo, &base, s)) < 0)
		goto done;
	a = add_apply(out, "day", day->tag ? day->tag : "day");
	if ((error = try_apply_series(a, repo, &tip, s)) < 0)
		goto done;
	if ((out->have_tip = a->ok))
		git_oid_cpy(&out->tip, &a->tip);
	if (s->base_commit && (error = apply_base_commit(out, repo, s)) < 0)
		goto done;
	if ((error = find_home(out, repo, &ch, s, &from)) < 0 ||
	    (error = check_trees(out, repo, &ch, from)) < 0)
		goto done;
	order_trees(out, day);
done:
	chain_release(&ch);
	return error;
}

void try_result_release(struct try_result *r)
{
	size_t i, j, k;

	if (!r)
		return;
	for (i = 0; i < r->napplies; i++)
		try_apply_release(&r->applies[i]);
	free(r->applies);
	for (i = 0; i < r->ntrees; i++) {
		struct try_tree *t = &r->trees[i];

		for (j = 0; j < t->nconflicts; j++) {
			for (k = 0; k < t->conflicts[j].nhunks; k++)
				free(t->conflicts[j].hunks[k]);
			for (k = 0; k < t->conflicts[j].ncommits; k++)
				free(t->conflicts[j].commits[k]);
			free(t->conflicts[j].hunks);
			free(t->conflicts[j].commits);
			free(t->conflicts[j].path);
		}
		free(t->conflicts);
		free(t->name);
		free(t->day_status);
	}
	free(r->trees);
	memset(r, 0, sizeof(*r));
}

/* ---- the record ---- */

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *strings_json(char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *apply_json(const struct try_apply *a, const struct try_series *s)
{
	json_t *o = json_pack("{s:s, s:s, s:s}", "onto", a->onto_name, "label", a->onto_label,
			      "status", a->ok ? "ok" : "failed");

	json_object_set_new(o, "commit", git_oid_is_zero(&a->onto) ? json_null() :
			    json_string(git_oid_tostr_s(&a->onto)));
	if (a->ok) {
		json_object_set_new(o, "tip", json_string(git_oid_tostr_s(&a->tip)));
		return o;
	}
	if (a->failed < s->n) {
		json_object_set_new(o, "patch", json_integer((json_int_t)a->failed + 1));
		json_object_set_new(o, "subject", json_string(s->v[a->failed].subject));
	}
	json_object_set_new(o, "file", str_or_null(a->file));
	json_object_set_new(o, "hunk", str_or_null(a->hunk));
	json_object_set_new(o, "error", str_or_null(a->error));
	return o;
}

static json_t *tree_json(const struct try_tree *t)
{
	json_t *o = json_pack("{s:s, s:s}", "name", t->name, "status",
			      try_tree_status_name(t->status));
	json_t *files = json_array();
	size_t i;

	json_object_set_new(o, "day_status", str_or_null(t->day_status));
	for (i = 0; i < t->nconflicts; i++) {
		const struct try_conflict *c = &t->conflicts[i];
		json_t *f = json_pack("{s:s, s:s}", "path", c->path, "kind", c->kind);

		json_object_set_new(f, "hunks", strings_json(c->hunks, c->nhunks));
		json_object_set_new(f, "commits", strings_json(c->commits, c->ncommits));
		json_array_append_new(files, f);
	}
	json_object_set_new(o, "conflicts", files);
	return o;
}

json_t *try_result_json(const struct try_result *r, const struct try_series *s,
			const struct day *day)
{
	json_t *o = json_object(), *patches = json_array(), *applies = json_array();
	json_t *trees = json_array();
	size_t i;

	for (i = 0; i < s->n; i++)
		json_array_append_new(patches, json_pack("{s:s, s:s, s:s}", "name", s->v[i].name,
							 "subject", s->v[i].subject,
							 "author", s->v[i].author));
	json_object_set_new(o, "version", json_integer(1));
	json_object_set_new(o, "series", json_pack("{s:s, s:o, s:o, s:i, s:o}", "source", s->source,
						   "base_commit", str_or_null(s->base_commit),
						   "cover", str_or_null(s->cover),
						   "version", s->version ? s->version : 1,
						   "patches", patches));
	json_object_set_new(o, "day", json_pack("{s:s, s:o, s:s, s:o, s:s}", "date", day->date,
						"tag", str_or_null(day->tag),
						"commit", day->commit,
						"base", str_or_null(day->base_tag),
						"base_commit", day->base_commit));
	for (i = 0; i < r->napplies; i++)
		json_array_append_new(applies, apply_json(&r->applies[i], s));
	json_object_set_new(o, "apply", applies);
	json_object_set_new(o, "merged_from", r->home < 0 ? json_null() :
			    json_string(r->applies[r->home].onto_label));
	for (i = 0; i < r->ntrees; i++)
		json_array_append_new(trees, tree_json(&r->trees[i]));
	json_object_set_new(o, "trees", trees);
	json_object_set_new(o, "commit", r->have_tip ? json_string(git_oid_tostr_s(&r->tip)) :
			    json_null());
	return o;
}
