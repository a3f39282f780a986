/* What changed since the day before (changes.h). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "changes.h"
#include "day.h"
#include "error.h"
#include "history.h"
#include "util.h"

static void sentence_end(struct buf *out)
{
	buf_puts(out, ".\n\n");
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}


/*
 * The patch ids (hex -> true) of the commits reachable from tip and from
 * none of hide[0..nhide) (NULL entries skipped), merges left out.
 */
static int own_patches(json_t *set, git_repository *repo, const char *tip,
		       const char *const *hide, size_t nhide)
{
	git_revwalk *walk = NULL;
	git_oid id, pid;
	char hex[GIT_OID_HEXSZ + 1];
	size_t i;
	int err = 0;

	if (git_revwalk_new(&walk, repo) < 0 || git_oid_fromstr(&id, tip) < 0 ||
	    git_revwalk_push(walk, &id) < 0) {
		err = tide_error_git(TIDE_ERROR, "cannot walk commit %.12s", tip);
		goto done;
	}
	for (i = 0; i < nhide; i++)
		if (hide[i] && (git_oid_fromstr(&id, hide[i]) < 0 || git_revwalk_hide(walk, &id) < 0)) {
			err = tide_error_git(TIDE_ERROR, "cannot walk commit %.12s", tip);
			goto done;
		}
	while (!err && git_revwalk_next(&id, walk) == 0) {
		git_commit *cm = NULL;

		if (git_commit_lookup(&cm, repo, &id) < 0) {
			err = tide_error_git(TIDE_ERROR, "cannot read a commit of %.12s", tip);
			break;
		}
		if (git_commit_parentcount(cm) <= 1 && (err = history_patch_id(&pid, repo, &id)) == 0)
			json_object_set_new(set, git_oid_tostr(hex, sizeof(hex), &pid), json_true());
		git_commit_free(cm);
	}
done:
	git_revwalk_free(walk);
	return err;
}

/* A rewound tree's own commits by patch id: dropped, rebased, added. */
static int classify(struct day_moved *m, git_repository *repo, const char *then,
		    const char *now, const char *base_then, const char *base_now)
{
	const char *hide_old[] = { now, base_now, base_then };
	const char *hide_new[] = { then, base_now, base_then };
	json_t *old = json_object(), *new = json_object();
	long long rebased = 0;
	const char *k;
	json_t *v;
	int err;

	if ((err = own_patches(old, repo, then, hide_old, ARRAY_SIZE(hide_old))) == 0 &&
	    (err = own_patches(new, repo, now, hide_new, ARRAY_SIZE(hide_new))) == 0) {
		json_object_foreach(old, k, v)
			rebased += json_object_get(new, k) != NULL;
		m->rebased = rebased;
		m->dropped = (long long)json_object_size(old) - rebased;
		m->added = (long long)json_object_size(new) - rebased;
		day_moved_set_has(m, "dropped");
		day_moved_set_has(m, "rebased");
		day_moved_set_has(m, "added");
	}
	json_decref(old);
	json_decref(new);
	return err;
}

int changes_tree_moved(struct day_moved **out, git_repository *repo, const struct day *prev,
		       const struct day_tree *pt, const struct day *d, const struct day_tree *t)
{
	const char *now = day_tree_tip(t), *then = day_tree_tip(pt);
	struct day_moved *m;
	git_oid a, b;
	size_t ahead = 0, behind = 0;

	*out = NULL;
	if (!now || !then || !strcmp(now, then))
		return 0;
	if (git_oid_fromstr(&a, now) < 0 || git_oid_fromstr(&b, then) < 0 ||
	    git_graph_ahead_behind(&ahead, &behind, repo, &a, &b) < 0)
		return tide_error_git(TIDE_ERROR, "cannot compare the %s tree's commits %.12s "
				      "and %.12s", t->name, then, now);
	m = day_moved_new();
	m->since = prev->date ? xstrdup(prev->date) : NULL;
	m->from = xstrdup(then);
	m->ahead = (long long)ahead;
	m->behind = (long long)behind;
	m->rewound = behind > 0;
	/* Without the patch ids (a commit gone), git's counts still say what happened. */
	if (m->rewound && classify(m, repo, then, now, prev->base_commit, d->base_commit) < 0)
		tide_error_clear();
	*out = m;
	return 0;
}

void changes_record_moves(git_repository *repo, const struct day *prev, struct day *d)
{
	size_t i;

	for (i = 0; prev && i < d->ntrees; i++) {
		struct day_tree *t = &d->trees[i];
		const struct day_tree *pt = day_find_tree(prev, t->name);

		day_moved_free(t->moved);
		t->moved = NULL;
		if (pt && changes_tree_moved(&t->moved, repo, prev, pt, d, t) < 0)
			tide_error_clear();
	}
}

/* "1 commit dropped, 7 rebased, 3 new": the parts that are not zero. */
static void rewind_counts(struct buf *out, const struct day_moved *m)
{
	size_t start = out->len;

	if (m->dropped)
		buf_printf(out, "%lld commit%s dropped", m->dropped, plural((size_t)m->dropped));
	if (m->rebased)
		buf_printf(out, "%s%lld rebased", out->len > start ? ", " : "", m->rebased);
	if (m->added)
		buf_printf(out, "%s%lld new", out->len > start ? ", " : "", m->added);
	if (out->len == start)
		buf_puts(out, "none of its own commits changed");
}

static void movement_text(struct buf *out, const struct day_tree *t, const struct day_moved *m)
{
	if (!m->behind) {
		buf_printf(out, "The %s tree moved forward by %lld commit%s", t->name, m->ahead,
			   plural((size_t)m->ahead));
	} else if (!day_moved_has(m, "dropped")) {
		buf_printf(out, "The %s tree was rewound (%lld commit%s dropped, %lld new)", t->name,
			   m->behind, plural((size_t)m->behind), m->ahead);
	} else {
		buf_printf(out, "The %s tree was %s (", t->name, m->rebased ? "rebased" : "rewound");
		rewind_counts(out, m);
		buf_puts(out, ")");
	}
	sentence_end(out);
}

/* The record's movement when the day has it, else worked out now. */
static void movement(struct buf *out, git_repository *repo, const struct day *prev,
		     const struct day *d, const struct day_tree *t, const struct day_tree *pt)
{
	struct day_moved *m = NULL;
	const char *now = day_tree_tip(t);

	if (t->moved && t->moved->from && pt && day_tree_tip(pt) &&
	    !strcmp(t->moved->from, day_tree_tip(pt))) {
		movement_text(out, t, t->moved);
		return;
	}
	if (changes_tree_moved(&m, repo, prev, pt, d, t) < 0) {
		tide_error_clear();
		buf_printf(out, "The %s tree moved to commit %.12s", t->name, now);
		sentence_end(out);
		return;
	}
	if (m)
		movement_text(out, t, m);
	day_moved_free(m);
}

static void fetch_problem(struct buf *out, const struct day_tree *t)
{
	const char *why = t->fetch_error ? t->fetch_error : "no reason recorded";

	if (!t->fetch_status || !strcmp(t->fetch_status, "ok"))
		return;
	if (!strcmp(t->fetch_status, "stale"))
		buf_printf(out, "Fetching the %s tree failed (%s), so I used its commit %.12s "
			   "of an earlier day", t->name, why, t->sha ? t->sha : "-");
	else
		buf_printf(out, "Fetching the %s tree failed (%s), so it was left out", t->name,
			   why);
	sentence_end(out);
}

/* "the fixes tree and the net tree": the trees of the ours-side commits. */
static void against(struct buf *out, const struct day_tree *t)
{
	const char *names[16];
	size_t n, i;

	n = day_tree_conflicts_with(t, names, sizeof(names) / sizeof(names[0]));
	if (!n)
		names[n++] = "mainline";
	for (i = 0; i < n; i++)
		buf_printf(out, "%sthe %s tree", i == 0 ? "" : i + 1 == n ? " and " : ", ", names[i]);
}

static void conflict_change(struct buf *out, const struct day_tree *t, const struct day_tree *pt)
{
	const char *handled = t->handling.handled;
	int now = t->nconflicts > 0, before = pt && pt->nconflicts > 0;

	if (now && !before) {
		buf_printf(out, "The %s tree gained a conflict against ", t->name);
		against(out, t);
		if (handled && !strcmp(handled, "previous"))
			buf_printf(out, ", so I used the version from %s",
				   t->handling.version_from ? t->handling.version_from : "an earlier day");
		else if (handled && !strcmp(handled, "dropped"))
			buf_puts(out, ", so it was left out today");
		sentence_end(out);
	} else if (!now && before) {
		buf_printf(out, "The %s tree lost its conflict", t->name);
		sentence_end(out);
	}
	if (now && handled && !strcmp(handled, "recorded")) {
		buf_printf(out, "The %s tree's conflict was resolved by a recorded resolution", t->name);
		sentence_end(out);
	}
}

static void fixups(struct buf *out, const struct day_tree *t)
{
	const struct day_handling *h = &t->handling;
	size_t i;

	if (h->nfixups) {
		buf_printf(out, "I applied %s after merging the %s tree:",
			   h->nfixups == 1 ? "a fixup" : "fixups", t->name);
		for (i = 0; i < h->nfixups; i++)
			buf_printf(out, "%s%s", i ? ", " : " ", h->fixups[i]);
		sentence_end(out);
	}
	if (h->fixup_error) {
		buf_printf(out, "The fixups of the %s tree did not apply", t->name);
		sentence_end(out);
	}
}

static void tree_changes(struct buf *out, git_repository *repo, const struct day *prev,
			 const struct day *d, const struct day_tree *t, const struct day_tree *pt)
{
	if (!pt) {
		buf_printf(out, "The %s tree is new", t->name);
		sentence_end(out);
	} else {
		movement(out, repo, prev, d, t, pt);
	}
	fetch_problem(out, t);
	if (t->handling.rejected && !(pt && pt->handling.rejected)) {
		buf_printf(out, "The %s tree was refused (%s)", t->name, t->handling.rejected);
		sentence_end(out);
	}
	conflict_change(out, t, pt);
	fixups(out, t);
}

void changes_text(struct buf *out, git_repository *repo, const struct day *prev,
		  const struct day *d)
{
	char *since = day_date_compact(prev->date);
	size_t i, start;

	buf_printf(out, "Changes since %s:\n\n", since);
	free(since);
	start = out->len;
	for (i = 0; i < d->ntrees; i++)
		tree_changes(out, repo, prev, d, &d->trees[i], day_find_tree(prev, d->trees[i].name));
	for (i = 0; i < prev->ntrees; i++)
		if (!day_find_tree(d, prev->trees[i].name)) {
			buf_printf(out, "The %s tree was dropped from the tree list",
				   prev->trees[i].name);
			sentence_end(out);
		}
	if (out->len == start)
		buf_puts(out, "No tree changed.\n\n");
	/* One blank line between sentences, none after the last. */
	buf_truncate(out, out->len - 1);
}
