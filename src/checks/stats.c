/*
 * tide stats (stats.h): a mainline tag against a day, by id, patch-id
 * and subject.  The day's commits and their trees are the checks'
 * (checks_day_commits(), checks_own_commits()); patch-ids come from their
 * cache when it has them.
 */
#include <stdlib.h>
#include <string.h>

#include "checks_int.h"
#include "error.h"
#include "history.h"
#include "stats.h"
#include "text.h"
#include "util.h"

struct subject_ref {
	const char *subject;
	size_t at;
};

static int subject_cmp(const void *a, const void *b)
{
	const struct subject_ref *x = a, *y = b;

	return strcmp(x->subject, y->subject);
}

struct stats_ctx {
	struct checks_ctx c;
	struct pid_cache *pc;
	char **subjects;		/* per day commit (owned, non-merge), or NULL */
	unsigned char *matched;		/* per day commit: the tag has it */
	struct oidmap pids;		/* patch-id -> day commit */
	struct subject_ref *by_subject;
	size_t nsubjects;
};

static int resolve_tag(git_oid *out, git_repository *repo, const char *tag)
{
	git_object *obj = NULL, *commit = NULL;
	int error = 0;

	if (git_revparse_single(&obj, repo, tag) < 0 ||
	    git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0)
		error = tide_error_set(TIDE_ENOTFOUND, "no commit named '%s' in the workspace", tag);
	else
		git_oid_cpy(out, git_object_id(commit));
	git_error_clear();
	git_object_free(commit);
	git_object_free(obj);
	return error;
}

/* The day's commits of its trees: patch-ids and subjects to look the tag's up in. */
static int index_day(struct stats_ctx *s, struct stats_result *out)
{
	struct checks_ctx *c = &s->c;
	size_t i;
	git_oid pid;
	int error;

	s->subjects = xcalloc(c->all.n + 1, sizeof(*s->subjects));
	s->matched = xcalloc(c->all.n + 1, 1);
	s->by_subject = xcalloc(c->all.n + 1, sizeof(*s->by_subject));
	for (i = 0; i < c->all.n; i++) {
		git_commit *commit = NULL;

		if (c->owner[i] < 0 || c->all.v[i].nparents > 1)
			continue;
		out->day_commits++;
		if ((error = pid_cache_get(c, s->pc, &c->all.v[i], c->all.parents, &pid)) < 0)
			return error;
		if (!git_oid_is_zero(&pid))
			oidmap_put(&s->pids, &pid, i);
		if (git_commit_lookup(&commit, c->repo, &c->all.v[i].id) < 0)
			return tide_error_git(TIDE_ERROR, "cannot read commit %s",
					      git_oid_tostr_s(&c->all.v[i].id));
		s->subjects[i] = commit_summary_utf8(commit);
		git_commit_free(commit);
		s->by_subject[s->nsubjects++] = (struct subject_ref){ s->subjects[i], i };
	}
	if (s->nsubjects)
		qsort(s->by_subject, s->nsubjects, sizeof(*s->by_subject), subject_cmp);
	return 0;
}

/* One commit of the tag: in the day by id, else by patch-id, else by subject. */
static int match_one(struct stats_ctx *s, struct stats_result *out, const struct graph_commit *gc,
		     const git_oid *parents)
{
	struct checks_ctx *c = &s->c;
	struct subject_ref key, *hit;
	git_commit *commit = NULL;
	git_oid pid;
	size_t at;
	int error;

	if (oidmap_get(&c->index, &gc->id, &at) && c->owner[at] >= 0) {
		s->matched[at] = 1;
		out->by_id++;
		return 0;
	}
	if ((error = pid_cache_get(c, s->pc, gc, parents, &pid)) < 0)
		return error;
	if (!git_oid_is_zero(&pid) && oidmap_get(&s->pids, &pid, &at)) {
		s->matched[at] = 1;
		out->by_patch_id++;
		return 0;
	}
	if (git_commit_lookup(&commit, c->repo, &gc->id) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read commit %s", git_oid_tostr_s(&gc->id));
	key.subject = commit_summary_utf8(commit);
	git_commit_free(commit);
	hit = s->nsubjects ? bsearch(&key, s->by_subject, s->nsubjects, sizeof(*s->by_subject),
				     subject_cmp) : NULL;
	if (hit) {
		s->matched[hit->at] = 1;
		out->by_subject++;
	}
	free((char *)key.subject);
	return 0;
}

static void never_lists(struct stats_ctx *s, struct stats_result *out)
{
	struct checks_ctx *c = &s->c;
	size_t t, i;

	out->trees = xcalloc(c->d->ntrees + 1, sizeof(*out->trees));
	for (t = 0; t < c->d->ntrees; t++) {
		struct stats_tree *st = &out->trees[out->ntrees];

		for (i = 0; i < c->all.n; i++) {
			if (c->owner[i] != (int)t || !s->subjects[i])
				continue;
			st->commits++;
			if (s->matched[i])
				continue;
			st->never = xrealloc(st->never, (st->nnever + 1) * sizeof(*st->never));
			st->never[st->nnever].id = history_oid_hex(&c->all.v[i].id);
			st->never[st->nnever++].subject = xstrdup(s->subjects[i]);
			out->never++;
		}
		if (st->commits) {
			st->name = xstrdup(c->d->trees[t].name);
			out->ntrees++;
		}
	}
}

static int base_in_tag(struct stats_ctx *s, const git_oid *tag, const char *name)
{
	git_oidarray mb = { 0 };
	int error, in;

	if ((error = graph_merge_bases(&mb, s->c.repo, &s->c.base, tag)) < 0)
		return error;
	in = mb.count == 1 && git_oid_equal(&mb.ids[0], &s->c.base);
	git_oidarray_dispose(&mb);
	if (!in)
		return tide_error_set(TIDE_EINVAL, "the base of %s (%.12s) is not in the history of '%s'",
				      s->c.d->date, s->c.d->base_commit, name);
	return 0;
}

static int stats_run(struct stats_ctx *s, struct stats_result *out, const char *tag)
{
	struct graph_commits mainline = { 0 };
	git_oid id;
	size_t i;
	int error;

	if ((error = resolve_tag(&id, s->c.repo, tag)) < 0 ||
	    (error = base_in_tag(s, &id, tag)) < 0 ||
	    (error = checks_day_commits(&s->c)) < 0)
		return error;
	out->tag_commit = history_oid_hex(&id);
	checks_own_commits(&s->c);
	if ((error = index_day(s, out)) < 0 ||
	    (error = graph_range(&mainline, s->c.repo, &id, 1, &s->c.base, 1, 0)) < 0)
		goto done;
	for (i = 0; i < mainline.n && !error; i++) {
		if (mainline.v[i].nparents > 1)
			continue;
		out->commits++;
		error = match_one(s, out, &mainline.v[i], mainline.parents);
	}
	if (!error)
		never_lists(s, out);
done:
	graph_commits_release(&mainline);
	return error;
}

int stats_day(struct stats_result *out, git_repository *repo, const struct day *d,
	      const char *tag, const char *patch_ids)
{
	struct stats_ctx s;
	size_t i;
	int error;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	out->tag = xstrdup(tag);
	s.c.repo = repo;
	s.c.d = (struct day *)d;
	s.pc = pid_cache_open(patch_ids);
	if (!d->base_commit || !d->commit || git_oid_fromstr(&s.c.base, d->base_commit) < 0 ||
	    git_oid_fromstr(&s.c.day, d->commit) < 0)
		error = tide_error_set(TIDE_EINVAL, "day %s has no base or no commit", d->date);
	else
		error = stats_run(&s, out, tag);
	for (i = 0; s.subjects && i < s.c.all.n; i++)
		free(s.subjects[i]);
	free(s.subjects);
	free(s.matched);
	free(s.by_subject);
	oidmap_release(&s.pids);
	pid_cache_close(s.pc);
	checks_ctx_release(&s.c);
	if (error < 0)
		stats_result_release(out);
	return error;
}

void stats_result_release(struct stats_result *r)
{
	size_t t, i;

	for (t = 0; t < r->ntrees; t++) {
		for (i = 0; i < r->trees[t].nnever; i++) {
			free(r->trees[t].never[i].id);
			free(r->trees[t].never[i].subject);
		}
		free(r->trees[t].never);
		free(r->trees[t].name);
	}
	free(r->trees);
	free(r->tag);
	free(r->tag_commit);
	memset(r, 0, sizeof(*r));
}
