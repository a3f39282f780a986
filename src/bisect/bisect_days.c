/*
 * Bisect day against day (bisect.h): the trees whose version changed
 * between a good and a bad day, searched as one series of mixes, then
 * the culprit inside the tree that broke it.
 */
#include <stdlib.h>
#include <string.h>

#include "bisect_int.h"
#include "day.h"
#include "error.h"
#include "history.h"
#include "text.h"
#include "util.h"

struct item {
	const char *name;	/* borrowed from a day's record */
	git_oid old, new;
	int has_old, has_new;
	const json_t *old_fixups, *new_fixups;	/* borrowed from the days */
};

/* The commit a day merged for tree name: 0 when the tree is not in that day. */
static int day_tree(const struct bday *d, const char *name, git_oid *out)
{
	const struct day_tree *t = day_find_tree(d->day, name);

	return t && tree_status_in_day(t->status) && bisect_oid_field(out, t->sha) == 0;
}

static int add_item(struct item **items, size_t *n, size_t *alloc, const char *name,
		    const struct bday *good, const struct bday *bad)
{
	struct item *it;
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*items)[i].name, name))
			return 0;
	array_grow(items, alloc, *n + 1, sizeof(**items));
	it = &(*items)[(*n)++];
	memset(it, 0, sizeof(*it));
	it->name = name;
	it->has_old = day_tree(good, name, &it->old);
	it->has_new = day_tree(bad, name, &it->new);
	it->old_fixups = json_object_get(good->fixups, name);
	it->new_fixups = json_object_get(bad->fixups, name);
	return 0;
}

static int item_changed(const struct item *it)
{
	return it->has_old != it->has_new ||
		(it->has_old && !git_oid_equal(&it->old, &it->new));
}

struct days_series {
	struct bctx *c;
	struct item *items;
	size_t nitems;
	size_t *changed;
	size_t nchanged;
	struct mixslot *vec;
};

static void item_slot(struct mixslot *s, const struct item *it, int new)
{
	s->name = it->name;
	s->tip = new ? (it->has_new ? &it->new : NULL) : (it->has_old ? &it->old : NULL);
	s->fixups = new ? it->new_fixups : it->old_fixups;
}

/* vec = the first j changed items at the bad day's commits, the rest at the good day's. */
static void days_vec(struct days_series *s, size_t j)
{
	size_t i, k;

	for (i = 0; i < s->nitems; i++) {
		int to_new = 0;

		for (k = 0; k < j; k++)
			if (s->changed[k] == i)
				to_new = 1;
		item_slot(&s->vec[i], &s->items[i], to_new);
	}
}

static int days_state(struct days_series *s, size_t j, git_oid *out, char **why)
{
	days_vec(s, j);
	return bisect_mix_commit(s->c, s->vec, s->nitems, out, why);
}

static int days_test(void *data, size_t j, enum bisect_verdict *out)
{
	struct days_series *s = data;
	char *label, *why = NULL;
	git_oid id;
	int r, err;

	label = xasprintf("%zu/%zu trees at the new day's commits (through %s)", j,
			  s->nchanged, s->items[s->changed[j - 1]].name);
	bisect_step_begin(s->c, "days", label);
	r = days_state(s, j, &id, &why);
	err = r < 0 ? r : bisect_test_state(s->c, "days", label, r ? NULL : &id, why, out);
	free(why);
	free(label);
	return err;
}

/* The patch ids of list[0..n) as a set of hex keys. */
static int patch_id_set(git_repository *repo, const git_oid *list, size_t n, json_t *set,
			git_oid *pids)
{
	char hex[GIT_OID_HEXSZ + 1];
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		if ((err = history_patch_id(&pids[i], repo, &list[i])) < 0)
			return err;
		json_object_set_new(set, git_oid_tostr(hex, sizeof(hex), &pids[i]), json_true());
	}
	return 0;
}

/*
 * The culprit tree's two versions compared by patch id: the new commits
 * (a patch the good day's version did not have), the dropped ones (a
 * patch of the good day's version the new one lacks), and how many of
 * the new version's commits come before its first new one (the version
 * rewound: the good day's patches that were kept).
 */
struct versions {
	git_oid *newl, *cand, *dropped;
	size_t nnew, ncand, ndropped, kept;
};

static void versions_release(struct versions *v)
{
	free(v->newl);
	free(v->cand);
	free(v->dropped);
}

static int compare_versions(struct bctx *c, const struct item *it, const struct bday *good,
			    const struct bday *bad, struct versions *v)
{
	git_oid *oldl = NULL, *opid = NULL, *npid = NULL;
	json_t *oldset = json_object(), *newset = json_object();
	size_t nold = 0, i, a1 = 0, a2 = 0;
	char hex[GIT_OID_HEXSZ + 1];
	int err;

	memset(v, 0, sizeof(*v));
	if ((err = history_first_parents(&v->newl, &v->nnew, c->repo, &it->new, &bad->base)) < 0)
		goto done;
	if (it->has_old &&
	    (err = history_first_parents(&oldl, &nold, c->repo, &it->old, &good->base)) < 0)
		goto done;
	opid = xcalloc(nold + 1, sizeof(*opid));
	npid = xcalloc(v->nnew + 1, sizeof(*npid));
	if ((err = patch_id_set(c->repo, oldl, nold, oldset, opid)) < 0 ||
	    (err = patch_id_set(c->repo, v->newl, v->nnew, newset, npid)) < 0)
		goto done;
	v->kept = v->nnew;
	for (i = 0; i < v->nnew; i++) {
		if (json_object_get(oldset, git_oid_tostr(hex, sizeof(hex), &npid[i])))
			continue;	/* rebased, already in the good day */
		if (v->ncand == 0)
			v->kept = i;
		array_grow(&v->cand, &a1, v->ncand + 1, sizeof(*v->cand));
		v->cand[v->ncand++] = v->newl[i];
	}
	for (i = 0; i < nold; i++) {
		if (json_object_get(newset, git_oid_tostr(hex, sizeof(hex), &opid[i])))
			continue;
		array_grow(&v->dropped, &a2, v->ndropped + 1, sizeof(*v->dropped));
		v->dropped[v->ndropped++] = oldl[i];
	}
	bisect_progress(c, "%s: %zu commits, %zu with a new patch id, %zu of %s's dropped", it->name,
		 v->nnew, v->ncand, v->ndropped, good->date);
done:
	json_decref(oldset);
	json_decref(newset);
	free(opid);
	free(npid);
	free(oldl);
	return err;
}

/* The tree lost commits between the days, and that is what broke it. */
static int blame_dropped(struct bctx *c, struct bisect_result *res, const struct item *it,
			 const struct versions *v, const git_oid *bad, const git_oid *good)
{
	size_t i;

	res->outcome = BISECT_FOUND;
	res->dropped = v->ndropped;
	bisect_set_commit(res, c->repo, &v->dropped[0]);
	res->dropped_list = json_array();
	for (i = 0; i < v->ndropped; i++) {
		char hex[GIT_OID_HEXSZ + 1], *subject = bisect_commit_subject(c->repo, &v->dropped[i]);

		json_array_append_new(res->dropped_list, json_pack("{s:s, s:o}", "commit",
				      git_oid_tostr(hex, sizeof(hex), &v->dropped[i]),
				      "subject", json_text(subject)));
		free(subject);
	}
	bisect_progress(c, "%s was rewound: %zu commit%s of its good version dropped, first %.12s %s",
		 it->name, v->ndropped, v->ndropped == 1 ? "" : "s", res->commit, res->subject);
	return bisect_confirm(c, res, bad, good);
}

static int days_stage2(struct bctx *c, struct bisect_result *res, struct days_series *ds,
		       size_t hi, const struct bday *good, const struct bday *bad)
{
	size_t slot = ds->changed[hi - 1], found;
	struct item *it = &ds->items[slot];
	struct series s = { 0 };
	struct versions v = { 0 };
	git_oid good_state, bad_state, kept_state;
	char *why = NULL;
	enum bisect_verdict kv = BISECT_UNTESTED;
	int err;

	bisect_set_str(&res->tree, it->name);
	if (!it->has_new) {
		res->outcome = BISECT_FOUND;
		bisect_progress(c, "%s was left out of the bad day", it->name);
		return 0;
	}
	if ((err = days_state(ds, hi - 1, &good_state, &why)) != 0 ||
	    (err = days_state(ds, hi, &bad_state, &why)) != 0) {
		err = err < 0 ? err : tide_error_set(TIDE_ERROR, "bisect: a tested state no "
						     "longer merges: %s", why);
		goto done;
	}
	s.c = c;
	s.stage = "tree";
	s.what = it->name;
	s.vec = ds->vec;	/* as days_state(hi) left it */
	s.nvec = ds->nitems;
	s.slot = slot;
	s.known_good = &good_state;
	s.known_bad = &bad_state;
	if (slot == 0) {
		if ((err = history_first_parents(&v.cand, &v.ncand, c->repo, &it->new,
						 it->has_old ? &it->old : NULL)) < 0)
			goto done;
	} else if ((err = compare_versions(c, it, good, bad, &v)) < 0) {
		goto done;
	}
	if (v.ndropped && v.ncand == 0) {
		err = blame_dropped(c, res, it, &v, &bad_state, &good_state);
		goto done;
	}
	if (v.ndropped) {
		/* The new version up to its first new commit: the good one, rewound. */
		char *label = xasprintf("%s rewound: %zu of %s's commits dropped, none added",
					it->name, v.ndropped, good->date);

		bisect_step_begin(c, "tree", label);
		ds->vec[slot].tip = v.kept ? &v.newl[v.kept - 1] : NULL;
		err = bisect_mix_commit(c, ds->vec, ds->nitems, &kept_state, &why);
		ds->vec[slot].tip = &it->new;
		if (err >= 0)
			err = bisect_test_state(c, "tree", label, err ? NULL : &kept_state, why, &kv);
		free(label);
		res->bound++;
		if (err < 0)
			goto done;
		if (kv == BISECT_BAD) {
			err = blame_dropped(c, res, it, &v, &kept_state, &good_state);
			goto done;
		}
		if (kv == BISECT_GOOD) {
			s.known_good = &kept_state;
			s.vec[slot].tip = v.kept ? &v.newl[v.kept - 1] : NULL;
		}
	}
	if (v.ncand == 0) {
		res->outcome = BISECT_FOUND;
		bisect_progress(c, "%s: the same patches as on %s on a new base: no commit to blame",
			 it->name, good->date);
		err = bisect_confirm(c, res, &bad_state, &good_state);
		goto done;
	}
	s.cand = v.cand;
	s.ncand = v.ncand;
	/* The day's version is the last state only if its tip is the last new commit. */
	if (!git_oid_equal(&v.cand[v.ncand - 1], &it->new))
		s.known_bad = NULL;
	err = bisect_stage2(c, res, &s, &found);
	s.vec[slot].tip = &it->new;
done:
	free(why);
	versions_release(&v);
	return err;
}

int bisect_days(struct bctx *c, struct bisect_result *res, struct bday *bad,
		       const char *since)
{
	struct days_series ds = { c, NULL, 0, NULL, 0, NULL };
	struct bday good = { 0 };
	struct group *groups = NULL;
	enum bisect_verdict *v = NULL;
	git_oid *chain = NULL, sgood, sbad;
	size_t alloc = 0, i, n = 0, lo, hi;
	char *why = NULL;
	const char *which;
	int err, go_on;

	if ((err = bday_load(&good, c->repo, c->opts->wsdir, since)) < 0)
		goto done;
	if (!strcmp(good.date, bad->date)) {
		err = tide_error_set(TIDE_EINVAL, "--since names the same day %s", bad->date);
		goto done;
	}
	/* day_chain finds (and sets) each day's base and fixups. */
	if ((err = bday_chain(c, &good, &chain, &groups, &n)) < 0)
		goto done;
	free(chain);
	bisect_groups_free(groups, n + 1);
	chain = NULL;
	groups = NULL;
	if ((err = bday_chain(c, bad, &chain, &groups, &n)) < 0)
		goto done;
	array_grow(&ds.items, &alloc, 1, sizeof(*ds.items));
	memset(ds.items, 0, sizeof(*ds.items));
	ds.items[0].name = "mainline";
	ds.items[0].old = good.base;
	ds.items[0].new = bad->base;
	ds.items[0].has_old = ds.items[0].has_new = 1;
	ds.nitems = 1;
	for (i = 0; i < bad->day->ntrees; i++)
		add_item(&ds.items, &ds.nitems, &alloc, bad->day->trees[i].name ?: "?", &good, bad);
	for (i = 0; i < good.day->ntrees; i++)
		add_item(&ds.items, &ds.nitems, &alloc, good.day->trees[i].name ?: "?", &good, bad);
	ds.changed = xcalloc(ds.nitems, sizeof(*ds.changed));
	for (i = 0; i < ds.nitems; i++)
		if (item_changed(&ds.items[i]))
			ds.changed[ds.nchanged++] = i;
	ds.vec = xcalloc(ds.nitems, sizeof(*ds.vec));
	bisect_progress(c, "%zu of %zu trees (mainline included) moved since %s", ds.nchanged,
		 ds.nitems, good.date);
	/* Each endpoint is built inside its step, so that its merges are shown. */
	which = bad->date;
	bisect_step_begin(c, "endpoints", "the bad day's commits");
	if ((err = days_state(&ds, ds.nchanged, &sbad, &why)) != 0)
		goto unbuilt;
	err = bisect_test_tip(c, res, &sbad, "the bad day's commits", &go_on);
	if (err || !go_on)
		goto done;
	if (ds.nchanged == 0) {
		which = good.date;
		bisect_step_begin(c, "endpoints", "the good day's commits");
		if ((err = days_state(&ds, 0, &sgood, &why)) != 0)
			goto unbuilt;
		err = bisect_test_base(c, res, &sgood, "the good day's commits", &go_on);
		if (!err && go_on)
			err = tide_error_set(TIDE_ERROR, "no tree moved between %s and %s",
					     good.date, bad->date);
		goto done;
	}
	v = xcalloc(ds.nchanged + 1, sizeof(*v));
	v[0] = BISECT_GOOD;
	v[ds.nchanged] = BISECT_BAD;
	res->bound += bisect_log2_ceil(ds.nchanged);
	if ((err = bisect_search(v, ds.nchanged, days_test, &ds, &lo, &hi)) < 0)
		goto done;
	if (lo == 0) {
		which = good.date;
		bisect_step_begin(c, "endpoints", "the good day's commits");
		if ((err = days_state(&ds, 0, &sgood, &why)) != 0)
			goto unbuilt;
		if ((err = bisect_test_base(c, res, &sgood, "the good day's commits", &go_on)) < 0 ||
		    !go_on)
			goto done;
	}
	if (hi - lo > 1) {
		res->outcome = BISECT_RANGE;
		bisect_set_str(&res->range_first, ds.items[ds.changed[lo]].name);
		bisect_set_str(&res->range_last, ds.items[ds.changed[hi - 1]].name);
		bisect_progress(c, "skipped steps leave the trees %s .. %s", res->range_first,
			 res->range_last);
		goto done;
	}
	bisect_progress(c, "the tree that made it fail: %s", ds.items[ds.changed[hi - 1]].name);
	err = days_stage2(c, res, &ds, hi, &good, bad);
	goto done;
unbuilt:
	if (err > 0)
		err = tide_error_set(TIDE_ERROR, "the trees of %s cannot be merged again: %s",
				     which, why);
	c->st.begun = 0;
	c->nsteps--;	/* no step was decided */
done:
	free(why);
	free(v);
	free(ds.vec);
	free(ds.changed);
	free(ds.items);
	free(chain);
	bisect_groups_free(groups, n + 1);
	bday_release(&good);
	return err;
}
