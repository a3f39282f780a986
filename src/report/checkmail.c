/*
 * The commit checks' mails (checkmail.h).  The fields and their order are
 * those of linux-next's mails, the wording is tide's: a script that reads
 * "In commit / Fixes tag / has these problem(s):" or "Commit ... is
 * missing a Signed-off-by from its committer" finds the same parts here.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkmail.h"
#include "checks.h"
#include "conf.h"
#include "day.h"
#include "text.h"
#include "util.h"

static const char *project_of(const struct day *d)
{
	return d->project ? d->project : "linux-next";
}

static const char *contact_of(const struct trees_conf *conf, const char *tree)
{
	const struct tree *t = conf && tree ? trees_conf_find(conf, tree) : NULL;

	return t ? t->contact : NULL;
}

static int is_kind(const struct day_finding *f, const char *kind)
{
	return f->kind && !strcmp(f->kind, kind);
}

static void commit_line(struct buf *b, const char *id, const char *subject)
{
	buf_printf(b, "  %.12s (\"%s\")\n", id ? id : "?", subject ? subject : "");
}

static void signature(struct buf *b, const struct day *d)
{
	buf_printf(b, "\n-- \nCheers,\ntide (%s)\n", d->tag ? d->tag : d->date);
}

/* ---- one mail per kind ---- */

struct group {
	const struct day_finding **v;
	size_t n;
};

static unsigned tag_problems(const json_t *tag)
{
	const json_t *p;
	unsigned bits = 0;
	size_t i;

	json_array_foreach(json_object_get(tag, "problems"), i, p)
		bits |= fixes_problem_parse(json_string_value(p));
	return bits;
}

static void fixes_problem_lines(struct buf *b, const json_t *tag)
{
	unsigned bits = tag_problems(tag), bit;

	for (bit = 1; bit < 1u << FIXES_NPROBLEMS; bit <<= 1) {
		if (!(bits & bit))
			continue;
		buf_printf(b, "  - %s\n", fixes_problem_text(bit));
		if (bit == FIXES_SHORT_SHA)
			buf_puts(b, "    (git writes 12 or more when core.abbrev is 12 or more, or unset\n"
				    "    with git 2.11 or later)\n");
		if (bit == FIXES_SUBJECT_MISMATCH && *json_str_or(tag, "target", ""))
			buf_printf(b, "    The target is %.12s (\"%s\"); git writes the tag with\n"
				      "      git log -1 --format='Fixes: %%h (\"%%s\")' %.12s\n",
				   json_str_or(tag, "target", ""), json_str_or(tag, "target_subject", ""), json_str_or(tag, "target", ""));
	}
}

static void fixes_body(struct buf *b, const struct group *g)
{
	const json_t *tag;
	size_t i, j;

	for (i = 0; i < g->n; i++) {
		const struct day_finding *f = g->v[i];

		buf_puts(b, "In commit\n\n");
		commit_line(b, f->commit, f->subject);
		json_array_foreach(f->tags, j, tag) {
			buf_printf(b, "\nFixes tag\n\n  %s\n\nhas these problem(s):\n\n", json_str_or(tag, "tag", ""));
			fixes_problem_lines(b, tag);
		}
		if (f->tags_total > CHECKS_MAX_FIXES)
			buf_printf(b, "\nThe commit has %lld Fixes: tags; the first %d were checked.\n",
				   f->tags_total, CHECKS_MAX_FIXES);
		buf_putc(b, '\n');
	}
}

static const char *const signoff_whom[] = { "author", "committer", "author and committer" };

static void signoff_body(struct buf *b, const struct group *g)
{
	size_t w, i, n;

	for (w = 0; w < ARRAY_SIZE(signoff_whom); w++) {
		for (i = n = 0; i < g->n; i++)
			n += g->v[i]->missing && !strcmp(g->v[i]->missing, signoff_whom[w]);
		if (!n)
			continue;
		buf_printf(b, "Commit%s\n\n", n > 1 ? "s" : "");
		for (i = 0; i < g->n; i++)
			if (g->v[i]->missing && !strcmp(g->v[i]->missing, signoff_whom[w]))
				commit_line(b, g->v[i]->commit, g->v[i]->subject);
		buf_printf(b, "\n%s missing a Signed-off-by from %s %s%s.\n\n", n > 1 ? "are" : "is",
			   n > 1 ? "their" : "its", signoff_whom[w], n > 1 && w < 2 ? "s" : "");
	}
}

static void where(struct buf *b, const char *tree)
{
	if (!strcmp(tree, "mainline"))
		buf_puts(b, "mainline");
	else
		buf_printf(b, "the %s tree", tree);
}

static void duplicate_body(struct buf *b, const struct group *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		const struct day_finding *f = g->v[i];
		const char *other = f->other_tree ? f->other_tree : "mainline";

		buf_puts(b, "This commit carries the same patch as a commit with another id\nin ");
		where(b, other);
		buf_puts(b, ":\n\n");
		commit_line(b, f->commit, f->subject);
		buf_puts(b, "\nThere it is commit\n\n");
		commit_line(b, f->other_commit, f->other_subject);
		buf_puts(b, "\n");
	}
}

static void empty_body(struct buf *b, const struct group *g)
{
	size_t i;

	buf_printf(b, "Commit%s\n\n", g->n > 1 ? "s" : "");
	for (i = 0; i < g->n; i++)
		commit_line(b, g->v[i]->commit, g->v[i]->subject);
	buf_printf(b, "\nchange%s nothing: the tree of each is its parent's.\n\n", g->n > 1 ? "" : "s");
}

static void merge_only_body(struct buf *b, const struct group *g, const char *tree)
{
	buf_printf(b, "The %s tree adds nothing but merge commits to mainline; its tip is\n\n", tree);
	commit_line(b, g->v[0]->commit, g->v[0]->subject);
	buf_puts(b, "\n");
}

static void fetch_body(struct buf *b, const struct group *g, const char *tree)
{
	const struct day_finding *f = g->v[0];

	buf_printf(b, "Fetching the %s tree\n(%s) has failed %lld days in a row, since %s;\n"
		      "today like this:\n\n", tree, f->url ? f->url : "?", f->days,
		   f->since ? f->since : "?");
	buf_printf(b, "  %s\n\n", f->error ? f->error : "(no message)");
}

/* "1 year" for 365 days, else "N days". */
static void stale_period(struct buf *b, long long days)
{
	if (days % 365 == 0)
		buf_printf(b, "%lld year%s", days / 365, days == 365 ? "" : "s");
	else
		buf_printf(b, "%lld days", days);
}

static void stale_table(struct buf *b, const struct group *g)
{
	size_t i;

	buf_puts(b, "Tree\t\t\tLast commit date\n  URL\n  its newest commit\n----\t\t\t----------------\n");
	for (i = 0; i < g->n; i++) {
		const struct day_finding *f = g->v[i];
		size_t len = f->tree ? strlen(f->tree) : 0;

		buf_printf(b, "%s%s%s\n", f->tree ? f->tree : "?",
			   len < 8 ? "\t\t\t" : len < 16 ? "\t\t" : "\t", f->date ? f->date : "?");
		buf_printf(b, "  %s\n", f->url ? f->url : "?");
		commit_line(b, f->commit, f->subject);
	}
}

static void stale_body(struct buf *b, const struct group *g, long long after)
{
	buf_puts(b, "These trees have had no new commit for more than ");
	stale_period(b, after);
	buf_puts(b, ".\nIf one should stay in the integration, update its branch (and tell me);\n"
		    "otherwise it can come out of trees.conf.\n\n");
	stale_table(b, g);
}

/* ---- building the mails ---- */

static void subject_for(struct buf *s, const struct day *d, const char *kind, const char *tree,
			const struct group *g)
{
	size_t tags = 0, i;

	buf_printf(s, "%s: ", project_of(d));
	if (!strcmp(kind, "fixes")) {
		for (i = 0; i < g->n; i++)
			tags += json_array_size(g->v[i]->tags) ? json_array_size(g->v[i]->tags) : 1;
		buf_printf(s, "Fixes tag%s need%s some work in the %s tree", tags > 1 ? "s" : "",
			   tags > 1 ? "" : "s", tree);
	} else if (!strcmp(kind, "signoff")) {
		buf_printf(s, "Signed-off-by missing for commit%s in the %s tree", g->n > 1 ? "s" : "",
			   tree);
	} else if (!strcmp(kind, "duplicate")) {
		buf_printf(s, "duplicate patch%s in the %s tree", g->n > 1 ? "es" : "", tree);
	} else if (!strcmp(kind, "empty")) {
		buf_printf(s, "empty commit%s in the %s tree", g->n > 1 ? "s" : "", tree);
	} else if (!strcmp(kind, "merge-only")) {
		buf_printf(s, "only merge commits in the %s tree", tree);
	} else if (!strcmp(kind, "fetch-failed")) {
		buf_printf(s, "error fetching the %s tree", tree);
	} else {
		buf_puts(s, "trees without a new commit for more than ");
		stale_period(s, d->checks->stale_after);
	}
}

static void body_for(struct buf *b, const struct day *d, const char *kind, const char *tree,
		     const struct group *g)
{
	buf_puts(b, "Hi all,\n\n");
	if (!strcmp(kind, "fixes"))
		fixes_body(b, g);
	else if (!strcmp(kind, "signoff"))
		signoff_body(b, g);
	else if (!strcmp(kind, "duplicate"))
		duplicate_body(b, g);
	else if (!strcmp(kind, "empty"))
		empty_body(b, g);
	else if (!strcmp(kind, "merge-only"))
		merge_only_body(b, g, tree);
	else if (!strcmp(kind, "fetch-failed"))
		fetch_body(b, g, tree);
	else
		stale_body(b, g, d->checks->stale_after);
	while (b->len > 1 && b->ptr[b->len - 1] == '\n' && b->ptr[b->len - 2] == '\n')
		buf_truncate(b, b->len - 1);
	signature(b, d);
}

static char *message_id(const struct day *d, const char *kind, const char *tree, const char *from)
{
	char *addr = mail_address(from), *at = strchr(addr, '@');
	char *id = xasprintf("<%s.checks.%s%s%s.tide@%s>", d->tag ? d->tag : d->date, kind,
			     tree ? "." : "", tree ? tree : "", at && at[1] ? at + 1 : "localhost");

	free(addr);
	return id;
}

static void recipients(struct mail_msg *m, const struct trees_conf *conf, const char *kind,
		       const char *tree, const struct group *g, const char *list)
{
	size_t i;

	if (tree) {
		mail_add_rcpt(&m->to, &m->nto, contact_of(conf, tree));
	} else {
		for (i = 0; i < g->n; i++)
			mail_add_rcpt(&m->to, &m->nto, contact_of(conf, g->v[i]->tree));
		mail_add_rcpt(&m->cc, &m->ncc, list);
	}
	for (i = 0; i < g->n; i++) {
		if (!strcmp(kind, "duplicate") && g->v[i]->other_tree)
			mail_add_rcpt(&m->cc, &m->ncc, contact_of(conf, g->v[i]->other_tree));
		if (strcmp(kind, "stale") && strcmp(kind, "fetch-failed") && strcmp(kind, "merge-only"))
			mail_add_author(&m->cc, &m->ncc, g->v[i]->author);
	}
}

static void add_mail(struct checks_mail **out, size_t *n, const struct day *d,
		     const struct trees_conf *conf, const char *from, const char *list,
		     const char *kind, const char *tree, const struct group *g)
{
	struct checks_mail *cm;
	struct buf s = BUF_INIT, b = BUF_INIT;
	size_t i;

	*out = xrealloc(*out, (*n + 1) * sizeof(**out));
	cm = &(*out)[(*n)++];
	memset(cm, 0, sizeof(*cm));
	cm->kind = xstrdup(kind);
	cm->tree = tree ? xstrdup(tree) : NULL;
	cm->keys = xcalloc(g->n, sizeof(*cm->keys));
	for (i = 0; i < g->n; i++)
		cm->keys[cm->nkeys++] = checks_finding_key(g->v[i]);
	subject_for(&s, d, kind, tree, g);
	body_for(&b, d, kind, tree, g);
	recipients(&cm->msg, conf, kind, tree, g, list);
	cm->msg.from = xstrdup(from);
	cm->msg.subject = buf_detach(&s);
	cm->msg.body = buf_detach(&b);
	cm->msg.message_id = message_id(d, kind, tree, from);
	cm->msg.date = time(NULL);
}

/* Is f to be mailed today: not yet mailed, and a failing fetch only from its Nth day. */
static int due(const struct day *d, const struct day_finding *f, checks_mailed_fn mailed,
	       void *data)
{
	char *key;
	int was;

	if (is_kind(f, "fetch-failed") && f->days < d->checks->fetch_failed_after)
		return 0;
	key = checks_finding_key(f);
	was = mailed && mailed(key, data);
	free(key);
	return !was;
}

static const char *const kinds[] = {
	"fixes", "signoff", "duplicate", "empty", "merge-only", "fetch-failed",
};

size_t checks_mails(struct checks_mail **out, const struct day *d, const struct trees_conf *conf,
		    const char *from, const char *list, checks_mailed_fn mailed, void *data)
{
	const struct day_findings *all;
	struct group g = { NULL, 0 };
	size_t n = 0, t, k, i;

	*out = NULL;
	if (!d->checks)
		return 0;
	all = &d->checks->findings;
	g.v = xcalloc(all->n + 1, sizeof(*g.v));
	for (t = 0; t < d->ntrees; t++)
		for (k = 0; k < ARRAY_SIZE(kinds); k++) {
			for (i = g.n = 0; i < all->n; i++)
				if (is_kind(all->v[i], kinds[k]) && all->v[i]->tree &&
				    !strcmp(all->v[i]->tree, d->trees[t].name) && due(d, all->v[i], mailed, data))
					g.v[g.n++] = all->v[i];
			if (g.n)
				add_mail(out, &n, d, conf, from, list, kinds[k], d->trees[t].name, &g);
		}
	for (i = g.n = 0; i < all->n; i++)
		if (is_kind(all->v[i], "stale") && due(d, all->v[i], mailed, data))
			g.v[g.n++] = all->v[i];
	if (g.n)
		add_mail(out, &n, d, conf, from, list, "stale", NULL, &g);
	free(g.v);
	return n;
}

void checks_mails_free(struct checks_mail *m, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		free(m[i].kind);
		free(m[i].tree);
		for (k = 0; k < m[i].nkeys; k++)
			free(m[i].keys[k]);
		free(m[i].keys);
		mail_msg_release(&m[i].msg);
	}
	free(m);
}

void checks_announce_text(struct buf *out, const struct day *d)
{
	const struct day_findings *all = d->checks ? &d->checks->findings : NULL;
	size_t i, stale = 0, failing = 0;

	for (i = 0; all && i < all->n; i++) {
		stale += is_kind(all->v[i], "stale");
		failing += is_kind(all->v[i], "fetch-failed") &&
			   all->v[i]->days >= d->checks->fetch_failed_after;
	}
	if (stale) {
		buf_puts(out, "\nTrees without a new commit for more than ");
		stale_period(out, d->checks->stale_after);
		buf_puts(out, ":\n\n");
		for (i = 0; i < all->n; i++)
			if (is_kind(all->v[i], "stale"))
				buf_printf(out, "  %s (last commit %s)\n", all->v[i]->tree,
					   all->v[i]->date ? all->v[i]->date : "?");
	}
	if (failing) {
		buf_puts(out, "\nTrees whose fetch has failed day after day:\n\n");
		for (i = 0; i < all->n; i++)
			if (is_kind(all->v[i], "fetch-failed") &&
			    all->v[i]->days >= d->checks->fetch_failed_after)
				buf_printf(out, "  %s (%lld days, since %s)\n", all->v[i]->tree,
					   all->v[i]->days, all->v[i]->since ? all->v[i]->since : "?");
	}
}
