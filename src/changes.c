/* What changed since the day before (changes.h). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "changes.h"
#include "day.h"
#include "error.h"

static void sentence_end(struct buf *out)
{
	buf_puts(out, ".\n\n");
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

static void movement(struct buf *out, git_repository *repo, const struct day_tree *t,
		     const struct day_tree *pt)
{
	const char *now = day_tree_tip(t), *then = day_tree_tip(pt);
	git_oid a, b;
	size_t ahead = 0, behind = 0;

	if (!now || !then || !strcmp(now, then))
		return;
	if (git_oid_fromstr(&a, now) < 0 || git_oid_fromstr(&b, then) < 0 ||
	    git_graph_ahead_behind(&ahead, &behind, repo, &a, &b) < 0) {
		tide_error_clear();
		buf_printf(out, "The %s tree moved to commit %.12s", t->name, now);
	} else if (!behind) {
		buf_printf(out, "The %s tree moved forward by %zu commit%s", t->name, ahead,
			   plural(ahead));
	} else {
		buf_printf(out, "The %s tree was rewound (%zu commit%s dropped, %zu new)", t->name,
			   behind, plural(behind), ahead);
	}
	sentence_end(out);
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

static void tree_changes(struct buf *out, git_repository *repo, const struct day_tree *t,
			 const struct day_tree *pt)
{
	if (!pt) {
		buf_printf(out, "The %s tree is new", t->name);
		sentence_end(out);
	} else {
		movement(out, repo, t, pt);
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
		tree_changes(out, repo, &d->trees[i], day_find_tree(prev, d->trees[i].name));
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
