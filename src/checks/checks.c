/*
 * The commit checks stage (checks.h, docs/design.md "Commit checks").
 *
 *   checks_day
 *     checks_day_commits  the day's commits not in mainline, one walk, and
 *                     which of them the previous day lacked (a second)
 *     checks_own_commits  each commit to the first tree (merge order) that brought it
 *     check_new       per new commit: Fixes: tags, sign-offs, empty
 *     checks_duplicates   every commit's patch-id against the others' and mainline's
 *     tree_checks     trees adding only merges, stale trees, failing fetches
 *     carry           yesterday's findings whose commit is still in the day
 *     set_since       the first day of each finding
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "checks_int.h"
#include "diffstat.h"
#include "error.h"
#include "history.h"
#include "mailmap.h"
#include "nextfiles.h"
#include "settings.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

/* ---- the commit map ---- */

static size_t oid_hash(const git_oid *id)
{
	size_t h;

	memcpy(&h, id->id, sizeof(h));
	return h;
}

void oidmap_put(struct oidmap *m, const git_oid *id, size_t val)
{
	size_t h, i;

	if ((m->n + 1) * 2 > m->size) {
		struct oidmap bigger = { NULL, NULL, NULL, 0, m->size ? m->size * 2 : 1024 };

		bigger.keys = xcalloc(bigger.size, sizeof(*bigger.keys));
		bigger.vals = xcalloc(bigger.size, sizeof(*bigger.vals));
		bigger.used = xcalloc(bigger.size, 1);
		for (i = 0; i < m->size; i++)
			if (m->used[i])
				oidmap_put(&bigger, &m->keys[i], m->vals[i]);
		oidmap_release(m);
		*m = bigger;
	}
	for (h = oid_hash(id) & (m->size - 1); m->used[h]; h = (h + 1) & (m->size - 1))
		if (git_oid_equal(&m->keys[h], id)) {
			m->vals[h] = val;
			return;
		}
	m->used[h] = 1;
	git_oid_cpy(&m->keys[h], id);
	m->vals[h] = val;
	m->n++;
}

int oidmap_get(const struct oidmap *m, const git_oid *id, size_t *val)
{
	size_t h;

	if (!m->size)
		return 0;
	for (h = oid_hash(id) & (m->size - 1); m->used[h]; h = (h + 1) & (m->size - 1))
		if (git_oid_equal(&m->keys[h], id)) {
			*val = m->vals[h];
			return 1;
		}
	return 0;
}

void oidmap_release(struct oidmap *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

/* ---- findings ---- */

struct day_finding *checks_add(struct checks_ctx *c, const char *kind, const char *tree,
			       const git_oid *commit)
{
	struct day_finding *f;

	if (c->out->findings.n >= CHECKS_MAX_FINDINGS) {
		if (!c->out->failure)
			c->out->failure = xasprintf("more than %d findings: the rest are left out",
						    CHECKS_MAX_FINDINGS);
		return NULL;
	}
	f = day_finding_new();
	f->kind = xstrdup(kind);
	f->tree = tree ? xstrdup(tree) : NULL;
	f->commit = commit ? history_oid_hex(commit) : NULL;
	f->since = xstrdup(c->d->date);
	day_checks_add(c->out, f);
	return f;
}

void checks_commit_info(struct checks_ctx *c, struct day_finding *f, git_commit *commit)
{
	if (!f || !commit)
		return;
	free(f->subject);
	free(f->author);
	/* a tree's text in day.json, the dashboard and the mails: cut as merge.log's */
	f->subject = nextfiles_cut_owned(commit_summary_utf8(commit), NEXTFILES_SUBJECT_MAX);
	f->author = nextfiles_cut_owned(commit_author_utf8(commit, c->mm), NEXTFILES_AUTHOR_MAX);
}

static const char *tree_name(const struct checks_ctx *c, int owner)
{
	return owner >= 0 ? c->d->trees[owner].name : NULL;
}

/* ---- the day's commits ---- */

int checks_day_commits(struct checks_ctx *c)
{
	struct graph_commits recent = { 0 };
	git_oid hides[2];
	size_t i, at;
	int error, nhides = 1;

	if ((error = graph_range(&c->all, c->repo, &c->day, 1, &c->base, 1, 0)) < 0)
		return error;
	if (c->all.truncated)
		return tide_error_set(TIDE_ERROR, "the day's history is too deep to walk");
	c->owner = xcalloc(c->all.n + 1, sizeof(*c->owner));
	c->is_new = xcalloc(c->all.n + 1, 1);
	for (i = 0; i < c->all.n; i++) {
		oidmap_put(&c->index, &c->all.v[i].id, i);
		c->owner[i] = -1;
	}
	git_oid_cpy(&hides[0], &c->base);
	if (c->prev && c->prev->commit && git_oid_fromstr(&hides[1], c->prev->commit) == 0) {
		git_odb *odb = NULL;

		/* a previous day whose commit is gone (a new workspace): every commit is new */
		if (git_repository_odb(&odb, c->repo) == 0 && git_odb_exists(odb, &hides[1]))
			nhides = 2;
		git_odb_free(odb);
		git_error_clear();
	}
	if (nhides == 1) {
		memset(c->is_new, 1, c->all.n);
		return 0;
	}
	if ((error = graph_range(&recent, c->repo, &c->day, 1, hides, 2, 0)) < 0)
		return error;
	for (i = 0; i < recent.n; i++)
		if (oidmap_get(&c->index, &recent.v[i].id, &at))
			c->is_new[at] = 1;
	graph_commits_release(&recent);
	return 0;
}

/*
 * Each commit goes to the first tree, in merge order, whose merged tip
 * reaches it without leaving the day's commits: the tree whose merge
 * brought it.  Commits no tree reaches are tide's (merges, fixups).
 */
void checks_own_commits(struct checks_ctx *c)
{
	size_t *stack = xcalloc(c->all.n + 1, sizeof(*stack)), n, t, at, p;
	git_oid tip;

	for (t = 0; t < c->d->ntrees; t++) {
		const struct day_tree *dt = &c->d->trees[t];

		if (!tree_status_in_day(dt->status) || !dt->sha || git_oid_fromstr(&tip, dt->sha) < 0 ||
		    !oidmap_get(&c->index, &tip, &at) || c->owner[at] >= 0)
			continue;
		n = 0;
		c->owner[at] = (int)t;
		stack[n++] = at;
		while (n) {
			const struct graph_commit *gc = &c->all.v[stack[--n]];

			for (p = 0; p < gc->nparents; p++)
				if (oidmap_get(&c->index, &c->all.parents[gc->parents + p], &at) &&
				    c->owner[at] < 0) {
					c->owner[at] = (int)t;
					stack[n++] = at;
				}
		}
	}
	free(stack);
}

/* ---- the checks of one new commit ---- */

static json_t *problems_json(unsigned problems)
{
	json_t *list = json_array();
	unsigned bit;

	for (bit = 1; bit && bit < 1u << FIXES_NPROBLEMS; bit <<= 1)
		if (problems & bit)
			json_array_append_new(list, json_string(fixes_problem_name(bit)));
	return list;
}

/* Where the tag points: the object, then whether the day or mainline has it, then its subject. */
static void fixes_target(struct checks_ctx *c, struct graph_reach **mainline,
			 struct fixes_tag *t, git_oid *target, char **target_subject)
{
	git_object *obj = NULL;
	git_oid prefix;
	size_t len = t->sha ? strlen(t->sha) : 0, at;
	int error;

	if (!len)
		return;
	if (len > GIT_OID_HEXSZ || git_oid_fromstrn(&prefix, t->sha, len) < 0) {
		t->problems |= FIXES_NOT_FOUND;
		return;
	}
	error = git_object_lookup_prefix(&obj, c->repo, &prefix, len, GIT_OBJECT_ANY);
	git_error_clear();
	if (error == GIT_EAMBIGUOUS) {
		t->problems |= FIXES_AMBIGUOUS;
		return;
	}
	if (error < 0) {
		t->problems |= FIXES_NOT_FOUND;
		return;
	}
	git_oid_cpy(target, git_object_id(obj));
	if (git_object_type(obj) != GIT_OBJECT_COMMIT) {
		t->problems |= FIXES_NOT_COMMIT;
		goto done;
	}
	if (!*mainline && graph_reach_new(mainline, c->repo, &c->base) < 0)
		tide_error_clear();	/* without the set, a target is taken as present */
	if (!oidmap_get(&c->index, target, &at) && *mainline &&
	    !graph_reach_has(*mainline, target))
		t->problems |= FIXES_NOT_IN_DAY;
	*target_subject = commit_summary_utf8((git_commit *)obj);
	if (t->subject && !fixes_subject_matches(t->subject, *target_subject))
		t->problems |= FIXES_SUBJECT_MISMATCH;
	/* matched whole, recorded cut as merge.log's */
	*target_subject = nextfiles_cut_owned(*target_subject, NEXTFILES_SUBJECT_MAX);
done:
	git_object_free(obj);
}

static void check_fixes(struct checks_ctx *c, struct graph_reach **mainline, git_commit *commit,
			const char *msg, size_t len, const char *tree)
{
	struct fixes_list tags;
	struct day_finding *f = NULL;
	json_t *list = json_array();
	size_t i;

	fixes_parse(&tags, msg, len);
	for (i = 0; i < tags.n; i++) {
		struct fixes_tag *t = &tags.v[i];
		git_oid target;
		char *subject = NULL;
		int found = 0;

		memset(&target, 0, sizeof(target));
		fixes_target(c, mainline, t, &target, &subject);
		found = !git_oid_is_zero(&target);
		if (t->problems) {
			char *hex = found ? history_oid_hex(&target) : NULL;

			json_array_append_new(list, json_pack("{s:o, s:o, s:o, s:o}",
				"tag", json_text(t->line), "target", json_text(hex),
				"target_subject", json_text(subject),
				"problems", problems_json(t->problems)));
			free(hex);
		}
		free(subject);
	}
	if (json_array_size(list) || tags.total > tags.n) {
		f = checks_add(c, "fixes", tree, git_commit_id(commit));
		if (f) {
			f->tags = json_incref(list);
			f->tags_total = (long long)tags.total;
			day_finding_set_has(f, "tags_total");
			checks_commit_info(c, f, commit);
		}
	}
	json_decref(list);
	fixes_list_release(&tags);
}

/* A signature's name and address made UTF-8 (the commit's encoding) into p. */
static void person_of(struct person *p, struct buf *name, struct buf *email,
		      const char *n, const char *e, const char *enc)
{
	text_decode(name, n ? n : "", n ? strlen(n) : 0, enc);
	text_decode(email, e ? e : "", e ? strlen(e) : 0, enc);
	p->name = buf_cstr(name);
	p->email = buf_cstr(email);
}

static unsigned missing_signoffs(struct checks_ctx *c, git_commit *commit, const char *msg,
				 size_t len)
{
	const git_signature *a = git_commit_author(commit), *m = git_commit_committer(commit);
	const char *enc = git_commit_message_encoding(commit), *rn, *re;
	struct person p[4];
	struct buf b[8];
	unsigned missing;
	int i;

	memset(b, 0, sizeof(b));
	person_of(&p[0], &b[0], &b[1], a ? a->name : NULL, a ? a->email : NULL, enc);
	person_of(&p[2], &b[4], &b[5], m ? m->name : NULL, m ? m->email : NULL, enc);
	p[1] = p[0];
	p[3] = p[2];
	if (c->mm && git_mailmap_resolve(&rn, &re, c->mm, p[0].name, p[0].email) == 0)
		person_of(&p[1], &b[2], &b[3], rn, re, NULL);
	if (c->mm && git_mailmap_resolve(&rn, &re, c->mm, p[2].name, p[2].email) == 0)
		person_of(&p[3], &b[6], &b[7], rn, re, NULL);
	git_error_clear();
	missing = signoff_missing(msg, len, &p[0], &p[1], &p[2], &p[3]);
	for (i = 0; i < 8; i++)
		buf_release(&b[i]);
	return missing;
}

/*
 * A quilt tree's commits are tide's (it applies the series, as git am
 * without -s): their committer's sign-off is not the tree's to give.
 */
static void check_signoffs(struct checks_ctx *c, git_commit *commit, const char *msg,
			   size_t len, const struct day_tree *t)
{
	unsigned missing = missing_signoffs(c, commit, msg, len);
	const char *tree = t->name;
	struct day_finding *f;

	if (t->type && strcmp(t->type, "git"))
		missing &= ~(unsigned)SIGNOFF_COMMITTER;

	if (!missing || !(f = checks_add(c, "signoff", tree, git_commit_id(commit))))
		return;
	f->missing = xstrdup(missing == (SIGNOFF_AUTHOR | SIGNOFF_COMMITTER) ?
			     "author and committer" :
			     missing == SIGNOFF_AUTHOR ? "author" : "committer");
	checks_commit_info(c, f, commit);
}

/* The tree of a commit's first parent: from the day's commits, or read. */
static int parent_tree(struct checks_ctx *c, const git_oid *parent, git_oid *out)
{
	git_commit *p = NULL;
	size_t at;

	if (oidmap_get(&c->index, parent, &at)) {
		git_oid_cpy(out, &c->all.v[at].tree);
		return 0;
	}
	if (git_commit_lookup(&p, c->repo, parent) < 0) {
		git_error_clear();
		return -1;
	}
	git_oid_cpy(out, git_commit_tree_id(p));
	git_commit_free(p);
	return 0;
}

static void check_empty(struct checks_ctx *c, const struct graph_commit *gc, git_commit *commit,
			const char *tree)
{
	git_oid ptree;

	if (gc->nparents != 1 || parent_tree(c, &c->all.parents[gc->parents], &ptree) < 0 ||
	    !git_oid_equal(&ptree, &gc->tree))
		return;
	checks_commit_info(c, checks_add(c, "empty", tree, &gc->id), commit);
}

static int check_new(struct checks_ctx *c)
{
	struct graph_reach *mainline = NULL;
	struct buf msg = BUF_INIT;
	size_t i;
	int error = 0;

	for (i = 0; i < c->all.n && !error; i++) {
		const struct graph_commit *gc = &c->all.v[i];
		const char *tree = tree_name(c, c->owner[i]), *raw;
		git_commit *commit = NULL;

		if (!c->is_new[i] || !tree || gc->nparents > 1)
			continue;
		c->out->commits++;
		if (git_commit_lookup(&commit, c->repo, &gc->id) < 0) {
			error = tide_error_git(TIDE_ERROR, "cannot read commit %s",
					       git_oid_tostr_s(&gc->id));
			break;
		}
		raw = git_commit_message(commit);
		buf_clear(&msg);
		text_decode(&msg, raw ? raw : "", raw ? strlen(raw) : 0,
			    git_commit_message_encoding(commit));
		check_fixes(c, &mainline, commit, msg.ptr, msg.len, tree);
		check_signoffs(c, commit, msg.ptr, msg.len, &c->d->trees[c->owner[i]]);
		check_empty(c, gc, commit, tree);
		git_commit_free(commit);
	}
	buf_release(&msg);
	graph_reach_free(mainline);
	return error;
}

/* ---- per tree ---- */

static void check_merge_only(struct checks_ctx *c)
{
	size_t *merges = xcalloc(c->d->ntrees + 1, sizeof(*merges));
	size_t *others = xcalloc(c->d->ntrees + 1, sizeof(*others)), i;
	git_oid tip;

	for (i = 0; i < c->all.n; i++) {
		if (c->owner[i] < 0)
			continue;
		if (c->all.v[i].nparents > 1)
			merges[c->owner[i]]++;
		else
			others[c->owner[i]]++;
	}
	for (i = 0; i < c->d->ntrees; i++) {
		const struct day_tree *t = &c->d->trees[i];
		struct day_finding *f;
		git_commit *commit = NULL;

		if (!merges[i] || others[i] || !t->sha || git_oid_fromstr(&tip, t->sha) < 0 ||
		    !(f = checks_add(c, "merge-only", t->name, &tip)))
			continue;
		if (git_commit_lookup(&commit, c->repo, &tip) == 0)
			checks_commit_info(c, f, commit);
		git_error_clear();
		git_commit_free(commit);
	}
	free(merges);
	free(others);
}

/* 00:00 UTC of the day's date. */
static time_t day_time(const char *date)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if (!date || !strptime(date, "%Y-%m-%d", &tm))
		return time(NULL);
	return timegm(&tm);
}

static char *url_shown(const char *url)
{
	return url ? url_redact(url) : NULL;
}

static void check_stale(struct checks_ctx *c, const struct day_tree *t, time_t now, long after)
{
	git_commit *commit = NULL;
	struct day_finding *f;
	const char *tip = day_tree_tip(t);
	git_oid id;
	time_t when;
	long days;
	char date[16];
	struct tm tm;

	if (!tip || git_oid_fromstr(&id, tip) < 0 || git_commit_lookup(&commit, c->repo, &id) < 0) {
		git_error_clear();
		return;
	}
	when = (time_t)git_commit_committer(commit)->when.time;
	days = when < now ? (long)((now - when) / 86400) : 0;
	if (days > after && (f = checks_add(c, "stale", t->name, &id))) {
		gmtime_r(&when, &tm);
		strftime(date, sizeof(date), "%Y-%m-%d", &tm);
		f->date = xstrdup(date);
		f->days = days;
		day_finding_set_has(f, "days");
		f->url = url_shown(t->url);
		checks_commit_info(c, f, commit);
	}
	git_commit_free(commit);
}

static const struct day_finding *prev_finding(const struct day *prev, const char *kind,
					      const char *tree)
{
	size_t i;

	for (i = 0; prev && prev->checks && i < prev->checks->findings.n; i++) {
		const struct day_finding *f = prev->checks->findings.v[i];

		if (f->kind && !strcmp(f->kind, kind) && f->tree && tree && !strcmp(f->tree, tree))
			return f;
	}
	return NULL;
}

/* A fetch that failed (the tree left out, or merged at an older commit): counted day by day. */
static void check_fetch(struct checks_ctx *c, const struct day_tree *t)
{
	const struct day_finding *before;
	struct day_finding *f;
	struct buf err = BUF_INIT;

	/* "stale" with patch_failed: a quilt series fetched that did not apply */
	if (!t->fetch_status || (strcmp(t->fetch_status, "failed") && strcmp(t->fetch_status, "stale")) ||
	    t->fetch_patch_failed || !(f = checks_add(c, "fetch-failed", t->name, NULL)))
		return;
	before = prev_finding(c->prev, "fetch-failed", t->name);
	f->days = before ? before->days + 1 : 1;
	day_finding_set_has(f, "days");
	if (before && before->since) {
		free(f->since);
		f->since = xstrdup(before->since);
	}
	f->url = url_shown(t->url);
	if (t->fetch_error) {
		text_redact(&err, t->fetch_error);
		f->error = buf_detach(&err);
	}
}

static void tree_checks(struct checks_ctx *c)
{
	time_t now = day_time(c->d->date);
	size_t i;

	check_merge_only(c);
	for (i = 0; i < c->d->ntrees; i++) {
		check_stale(c, &c->d->trees[i], now, c->out->stale_after);
		check_fetch(c, &c->d->trees[i]);
	}
}

/* ---- from the previous day ---- */

/* Intrinsic to a commit, so found once and kept while the commit is in the day. */
static int carried_kind(const char *kind)
{
	return kind && (!strcmp(kind, "fixes") || !strcmp(kind, "signoff") || !strcmp(kind, "empty"));
}

static void carry(struct checks_ctx *c)
{
	size_t i, at;
	git_oid id;

	for (i = 0; c->prev && c->prev->checks && i < c->prev->checks->findings.n; i++) {
		const struct day_finding *f = c->prev->checks->findings.v[i];
		struct day_finding *copy;

		if (!carried_kind(f->kind) || !f->commit || git_oid_fromstr(&id, f->commit) < 0 ||
		    !oidmap_get(&c->index, &id, &at) || c->is_new[at] || c->owner[at] < 0)
			continue;
		if (c->out->findings.n >= CHECKS_MAX_FINDINGS)
			break;
		copy = day_finding_dup(f);
		free(copy->tree);
		copy->tree = xstrdup(tree_name(c, c->owner[at]));
		day_checks_add(c->out, copy);
	}
}

char *checks_finding_key(const struct day_finding *f)
{
	const char *kind = f->kind ? f->kind : "";

	if (!strcmp(kind, "duplicate"))
		return xasprintf("duplicate:%s:%s", f->commit ? f->commit : "",
				 f->other_commit ? f->other_commit : "");
	if (!strcmp(kind, "fetch-failed"))
		return xasprintf("fetch-failed:%s:%s", f->tree ? f->tree : "",
				 f->since ? f->since : "");
	if (carried_kind(kind))
		return xasprintf("%s:%s", kind, f->commit ? f->commit : "");
	return xasprintf("%s:%s:%s", kind, f->tree ? f->tree : "", f->commit ? f->commit : "");
}

/* Each finding the previous day had too keeps the day it was first found. */
static void set_since(struct checks_ctx *c)
{
	struct day_checks *p = c->prev ? c->prev->checks : NULL;
	size_t i, j;

	for (i = 0; p && i < c->out->findings.n; i++) {
		struct day_finding *f = c->out->findings.v[i];
		char *key = checks_finding_key(f);

		for (j = 0; j < p->findings.n; j++) {
			char *pk = checks_finding_key(p->findings.v[j]);
			int same = !strcmp(pk, key) && p->findings.v[j]->since;

			if (same) {
				free(f->since);
				f->since = xstrdup(p->findings.v[j]->since);
			}
			free(pk);
			if (same)
				break;
		}
		free(key);
	}
}

/* ---- the order of the record ---- */

static const char *const kind_order[] = {
	"fixes", "signoff", "duplicate", "empty", "merge-only", "stale", "fetch-failed",
};

struct ranked {
	struct day_finding *f;
	size_t tree, kind, at;
};

static int ranked_cmp(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->tree != y->tree)
		return x->tree < y->tree ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* Trees in merge order, each tree's findings by kind, as the mails go out. */
static void sort_findings(struct checks_ctx *c)
{
	struct day_findings *all = &c->out->findings;
	struct ranked *r = xcalloc(all->n + 1, sizeof(*r));
	size_t i, t, k;

	for (i = 0; i < all->n; i++) {
		r[i].f = all->v[i];
		r[i].at = i;
		for (t = 0; t < c->d->ntrees && (!all->v[i]->tree ||
						 strcmp(c->d->trees[t].name, all->v[i]->tree)); t++)
			;
		for (k = 0; k < ARRAY_SIZE(kind_order) && (!all->v[i]->kind ||
							 strcmp(kind_order[k], all->v[i]->kind)); k++)
			;
		r[i].tree = t;
		r[i].kind = k;
	}
	if (all->n)
		qsort(r, all->n, sizeof(*r), ranked_cmp);
	for (i = 0; i < all->n; i++)
		all->v[i] = r[i].f;
	free(r);
}

/* ---- the day against its base ---- */

/*
 * Files changed above which the day gets no diffstat (its lines read
 * every blob): a linux-next day changes about 15,000; a tree adding a
 * million files made the checks take minutes after its merge's budget.
 */
#define STATS_FILES_MAX 200000

static const char *const stats_keys[] = { "files", "insertions", "deletions" };

/*
 * Yesterday's diffstat when yesterday had the same base and the same
 * tree: the same two trees, not diffed again (a day with no new commit
 * spent most of its checks there).  Values read from the record are
 * used only when they are counts.
 */
static int stats_from_prev(struct checks_ctx *c)
{
	const json_t *m = c->prev && c->prev->checks ? c->prev->checks->mainline : NULL;
	git_commit *pc = NULL, *dc = NULL;
	git_oid id;
	size_t i;
	int same;

	if (!m || !c->prev->base_commit || !c->prev->commit ||
	    git_oid_fromstr(&id, c->prev->base_commit) < 0 || !git_oid_equal(&id, &c->base) ||
	    git_oid_fromstr(&id, c->prev->commit) < 0)
		return 0;
	for (i = 0; i < ARRAY_SIZE(stats_keys); i++) {
		const json_t *v = json_object_get(m, stats_keys[i]);

		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return 0;
	}
	same = git_commit_lookup(&pc, c->repo, &id) == 0 &&
	       git_commit_lookup(&dc, c->repo, &c->day) == 0 &&
	       git_oid_equal(git_commit_tree_id(pc), git_commit_tree_id(dc));
	git_error_clear();
	git_commit_free(pc);
	git_commit_free(dc);
	if (!same)
		return 0;
	for (i = 0; i < ARRAY_SIZE(stats_keys); i++)
		json_object_set_new(c->out->mainline, stats_keys[i],
				    json_integer(json_integer_value(json_object_get(m, stats_keys[i]))));
	return 1;
}

static void mainline_stats(struct checks_ctx *c)
{
	git_commit *bc = NULL, *dc = NULL;
	git_tree *bt = NULL, *dt = NULL;
	git_diff *diff = NULL;
	git_diff_stats *stats = NULL;
	size_t i, commits = 0;

	for (i = 0; i < c->all.n; i++)
		commits += c->all.v[i].nparents <= 1;
	c->out->mainline = json_pack("{s:I}", "commits", (json_int_t)commits);
	if (c->o->no_diffstat || stats_from_prev(c))
		return;
	if (git_commit_lookup(&bc, c->repo, &c->base) < 0 || git_commit_tree(&bt, bc) < 0 ||
	    git_commit_lookup(&dc, c->repo, &c->day) < 0 || git_commit_tree(&dt, dc) < 0 ||
	    git_diff_tree_to_tree(&diff, c->repo, bt, dt, NULL) < 0 ||
	    git_diff_num_deltas(diff) > STATS_FILES_MAX ||
	    git_diff_find_similar(diff, NULL) < 0 || git_diff_get_stats(&stats, diff) < 0) {
		git_error_clear();	/* the count stands without the diffstat */
		goto done;
	}
	json_object_set_new(c->out->mainline, "files",
			    json_integer((json_int_t)git_diff_stats_files_changed(stats)));
	json_object_set_new(c->out->mainline, "insertions",
			    json_integer((json_int_t)git_diff_stats_insertions(stats)));
	json_object_set_new(c->out->mainline, "deletions",
			    json_integer((json_int_t)git_diff_stats_deletions(stats)));
done:
	git_diff_stats_free(stats);
	git_diff_free(diff);
	git_tree_free(bt);
	git_tree_free(dt);
	git_commit_free(bc);
	git_commit_free(dc);
}

/* ---- the stage ---- */

void checks_ctx_release(struct checks_ctx *c)
{
	graph_commits_release(&c->all);
	oidmap_release(&c->index);
	free(c->owner);
	free(c->is_new);
	git_mailmap_free(c->mm);
}

static void count_trees(struct checks_ctx *c)
{
	unsigned char *seen = xcalloc(c->d->ntrees + 1, 1);
	size_t i;

	for (i = 0; i < c->all.n; i++)
		if (c->is_new[i] && c->owner[i] >= 0 && !seen[c->owner[i]]) {
			seen[c->owner[i]] = 1;
			c->out->trees++;
		}
	free(seen);
}

static int run_checks(struct checks_ctx *c)
{
	int error;

	if ((error = checks_day_commits(c)) < 0)
		return error;
	checks_own_commits(c);
	count_trees(c);
	mainline_stats(c);
	if (mailmap_from_commit(&c->mm, c->repo, &c->base) < 0)
		tide_error_clear();	/* nobody renamed */
	if ((error = check_new(c)) < 0 || (error = checks_duplicates(c)) < 0)
		return error;
	tree_checks(c);
	carry(c);
	set_since(c);
	sort_findings(c);
	return 0;
}

int checks_day(struct day *d, const struct day *prev, git_repository *repo,
	       const struct checks_opts *opts)
{
	struct checks_ctx c;
	double start = time_now();
	int error;

	memset(&c, 0, sizeof(c));
	c.repo = repo;
	c.d = d;
	c.prev = prev;
	c.o = opts;
	c.out = day_checks_new();
	c.out->stale_after = opts->stale_after > 0 ? opts->stale_after : CHECKS_STALE_AFTER;
	c.out->fetch_failed_after = opts->fetch_failed_after > 0 ? opts->fetch_failed_after :
				    CHECKS_FETCH_FAILED_AFTER;
	day_checks_free(d->checks);
	d->checks = c.out;
	if (!d->base_commit || !d->commit || git_oid_fromstr(&c.base, d->base_commit) < 0 ||
	    git_oid_fromstr(&c.day, d->commit) < 0) {
		error = tide_error_set(TIDE_EINVAL, "day %s has no base or no commit to check",
				       d->date ? d->date : "?");
	} else {
		error = run_checks(&c);
	}
	c.out->status = xstrdup(error < 0 ? "error" : "ok");
	if (error < 0) {
		free(c.out->failure);
		c.out->failure = xstrdup(tide_error_last());
		tide_error_clear();
	}
	c.out->seconds = time_now() - start;
	checks_ctx_release(&c);
	return 0;
}

/* A number of days from DIR/config, 1 to 36500; TIDE_EINVAL naming the file and line. */
static int setting_days(long *out, const struct settings *s, const char *path, const char *key)
{
	const char *v = settings_get(s, key);
	char *end;
	long n;

	if (!v)
		return 0;
	n = strtol(v, &end, 10);
	if (end == v || *end || n < 1 || n > 36500)
		return tide_error_set(TIDE_EINVAL, "%s:%zu: %s wants a number of days (1 to 36500), not '%s'",
				      path, settings_line_of(s, key), key, v);
	*out = n;
	return 0;
}

int checks_settings(struct checks_opts *o, const char *wsdir)
{
	struct settings *s = NULL;
	char *path = workspace_config(wsdir);
	int error;

	if ((error = settings_load(&s, path)) == 0 &&
	    (error = setting_days(&o->stale_after, s, path, "stale-after")) == 0)
		error = setting_days(&o->fetch_failed_after, s, path, "fetch-failed-after");
	settings_free(s);
	free(path);
	return error;
}
