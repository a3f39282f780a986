/*
 * Duplicate patches (checks.h): the same patch (git's stable patch-id)
 * under two commit ids, in two trees of the day or in a tree and in
 * mainline.  Every commit of the day is looked at each day (a duplicate
 * appears when mainline or another tree takes the patch, not only when
 * the commit is new), so patch-ids are kept in a cache beside the
 * objects, DIR/repo.git/tide-patch-ids: "tidepid1", then 40-byte records
 * (commit id, patch-id; a zero patch-id for a commit that changes
 * nothing) in commit order.  A damaged file is an empty cache: it costs
 * time, never a wrong answer.  The file is rewritten with the records
 * used today, so it holds the day's commits and the mainline window.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "checks_int.h"
#include "error.h"
#include "history.h"
#include "text.h"
#include "util.h"

#define PID_MAGIC "tidepid1"
#define PID_REC 40

struct pid_cache {
	struct buf file;		/* as read; records from offset 8 */
	size_t nold;
	unsigned char *today;		/* records used today, unsorted */
	size_t ntoday, alloc;
	size_t computed;
};

static void cache_load(struct pid_cache *pc, const char *path)
{
	const unsigned char *r;
	size_t i;

	if (!path || file_read(&pc->file, path) < 0) {
		tide_error_clear();
		return;
	}
	if (pc->file.len < 8 || memcmp(pc->file.ptr, PID_MAGIC, 8) ||
	    (pc->file.len - 8) % PID_REC)
		goto bad;
	pc->nold = (pc->file.len - 8) / PID_REC;
	r = (const unsigned char *)pc->file.ptr + 8;
	for (i = 1; i < pc->nold; i++)
		if (memcmp(r + (i - 1) * PID_REC, r + i * PID_REC, GIT_OID_RAWSZ) >= 0)
			goto bad;
	return;
bad:
	pc->nold = 0;
}

static int cache_find(const struct pid_cache *pc, const git_oid *commit, git_oid *pid)
{
	const unsigned char *r;
	size_t lo = 0, hi = pc->nold;

	if (!pc->nold)
		return 0;
	r = (const unsigned char *)pc->file.ptr + 8;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = memcmp(r + mid * PID_REC, commit->id, GIT_OID_RAWSZ);

		if (!cmp) {
			git_oid_fromraw(pid, r + mid * PID_REC + GIT_OID_RAWSZ);
			return 1;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void cache_use(struct pid_cache *pc, const git_oid *commit, const git_oid *pid)
{
	array_grow(&pc->today, &pc->alloc, (pc->ntoday + 1) * PID_REC, 1);
	memcpy(pc->today + pc->ntoday * PID_REC, commit->id, GIT_OID_RAWSZ);
	memcpy(pc->today + pc->ntoday * PID_REC + GIT_OID_RAWSZ, pid->id, GIT_OID_RAWSZ);
	pc->ntoday++;
}

static int rec_cmp(const void *a, const void *b)
{
	return memcmp(a, b, GIT_OID_RAWSZ);
}

/* Today's records, each commit once, in order; a failure costs only time tomorrow. */
static void cache_save(struct pid_cache *pc, const char *path)
{
	struct buf out = BUF_INIT;
	size_t i;

	if (!path)
		return;
	if (pc->ntoday)
		qsort(pc->today, pc->ntoday, PID_REC, rec_cmp);
	buf_put(&out, PID_MAGIC, 8);
	for (i = 0; i < pc->ntoday; i++)
		if (!i || memcmp(pc->today + (i - 1) * PID_REC, pc->today + i * PID_REC,
				 GIT_OID_RAWSZ))
			buf_put(&out, pc->today + i * PID_REC, PID_REC);
	if (file_write_atomic(path, out.ptr, out.len) < 0)
		tide_error_clear();
	buf_release(&out);
}

static void cache_release(struct pid_cache *pc)
{
	buf_release(&pc->file);
	free(pc->today);
}

/* The patch-id of a commit against its first parent; zero when it changes nothing. */
static int compute_pid(struct checks_ctx *c, const struct graph_commit *gc, const git_oid *parents,
		       git_oid *pid)
{
	git_tree *tree = NULL, *ptree = NULL;
	git_commit *p = NULL;
	git_diff *diff = NULL;
	size_t at;
	int error = 0;

	memset(pid, 0, sizeof(*pid));
	if (git_tree_lookup(&tree, c->repo, &gc->tree) < 0)
		goto fail;
	if (gc->nparents) {
		const git_oid *pt = NULL;

		if (oidmap_get(&c->index, &parents[gc->parents], &at))
			pt = &c->all.v[at].tree;
		else if (git_commit_lookup(&p, c->repo, &parents[gc->parents]) == 0)
			pt = git_commit_tree_id(p);
		if (!pt || git_tree_lookup(&ptree, c->repo, pt) < 0)
			goto fail;
	}
	if (git_diff_tree_to_tree(&diff, c->repo, ptree, tree, NULL) < 0)
		goto fail;
	if (git_diff_num_deltas(diff) && git_diff_patchid(pid, diff, NULL) < 0)
		goto fail;
	goto done;
fail:
	error = tide_error_git(TIDE_ERROR, "cannot make the patch-id of %s",
			       git_oid_tostr_s(&gc->id));
done:
	git_diff_free(diff);
	git_tree_free(tree);
	git_tree_free(ptree);
	git_commit_free(p);
	return error;
}

static int patch_id(struct checks_ctx *c, struct pid_cache *pc, const struct graph_commit *gc,
		    const git_oid *parents, git_oid *pid)
{
	int error;

	if (!cache_find(pc, &gc->id, pid)) {
		if ((error = compute_pid(c, gc, parents, pid)) < 0)
			return error;
		pc->computed++;
	}
	cache_use(pc, &gc->id, pid);
	return 0;
}

/* ---- the mainline window ---- */

/*
 * The mainline commits a tree of the day may carry again: those since
 * the oldest point any tree of the day starts from (the merge base of
 * the mainline parents of the day's commits), the newest
 * CHECKS_MAINLINE_WINDOW of them.
 */
static int mainline_window(struct checks_ctx *c, struct graph_commits *out)
{
	struct oidmap seen = { 0 };
	git_oid oldest;
	size_t i, p, at;
	int have = 0, error = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < c->all.n && !error; i++) {
		const struct graph_commit *gc = &c->all.v[i];

		for (p = 0; p < gc->nparents && !error; p++) {
			const git_oid *fork = &c->all.parents[gc->parents + p];
			git_oidarray mb = { 0 };

			if (oidmap_get(&c->index, fork, &at) || oidmap_get(&seen, fork, &at))
				continue;
			oidmap_put(&seen, fork, 0);
			if (!have) {
				git_oid_cpy(&oldest, fork);
				have = 1;
				continue;
			}
			if ((error = graph_merge_bases(&mb, c->repo, &oldest, fork)) < 0)
				break;
			if (mb.count)
				git_oid_cpy(&oldest, &mb.ids[0]);
			git_oidarray_dispose(&mb);
		}
	}
	oidmap_release(&seen);
	if (error < 0 || !have)
		return error;
	return graph_range(out, c->repo, &c->base, 1, &oldest, 1, CHECKS_MAINLINE_WINDOW);
}

/* ---- pairing ---- */

struct pid_entry {
	git_oid pid;
	size_t at;
	int mainline;		/* at indexes the window, not the day's commits */
};

static int entry_cmp(const void *a, const void *b)
{
	const struct pid_entry *x = a, *y = b;
	int cmp = git_oid_cmp(&x->pid, &y->pid);

	if (cmp)
		return cmp;
	if (x->mainline != y->mainline)
		return x->mainline - y->mainline;
	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * Does e duplicate c (a commit of the day, owned): a mainline commit, or
 * a commit of an earlier tree, or an older commit of the same tree.  So
 * each pair is told once, to the tree whose merge brought it second.
 */
static int duplicates(const struct checks_ctx *c, const struct pid_entry *x,
		      const struct pid_entry *e)
{
	int oc = c->owner[x->at], oe;

	if (e->mainline)
		return 1;
	oe = c->owner[e->at];
	return oe >= 0 && (oe < oc || (oe == oc && e->at > x->at));
}

static void add_duplicate(struct checks_ctx *c, const struct pid_entry *x,
			  const struct pid_entry *e, const struct graph_commits *window)
{
	const git_oid *other = e->mainline ? &window->v[e->at].id : &c->all.v[e->at].id;
	struct day_finding *f = checks_add(c, "duplicate", c->d->trees[c->owner[x->at]].name,
					   &c->all.v[x->at].id);
	git_commit *commit = NULL;

	if (!f)
		return;
	f->other_tree = xstrdup(e->mainline ? "mainline" : c->d->trees[c->owner[e->at]].name);
	f->other_commit = history_oid_hex(other);
	if (git_commit_lookup(&commit, c->repo, &c->all.v[x->at].id) == 0)
		checks_commit_info(c, f, commit);
	git_commit_free(commit);
	commit = NULL;
	if (git_commit_lookup(&commit, c->repo, other) == 0)
		f->other_subject = commit_summary_utf8(commit);
	git_commit_free(commit);
	git_error_clear();
}

struct pair {
	const struct pid_entry *x, *e;
};

/* The day's order (newest first), as the other checks list their findings. */
static int pair_cmp(const void *a, const void *b)
{
	const struct pair *p = a, *q = b;

	if (p->x->at != q->x->at)
		return p->x->at < q->x->at ? -1 : 1;
	return entry_cmp(p->e, q->e);
}

static void pair_up(struct checks_ctx *c, struct pid_entry *v, size_t n,
		    const struct graph_commits *window)
{
	struct pair *pairs = NULL;
	size_t i, j, k, told, npairs = 0, alloc = 0;

	if (n < 2)
		return;
	qsort(v, n, sizeof(*v), entry_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && git_oid_equal(&v[j].pid, &v[i].pid); j++)
			;
		/* one patch many times over (a tree re-applying a series): pairs bounded */
		for (k = i; j - i > 1 && k < j && k < i + CHECKS_MAX_SAME_PATCH; k++) {
			size_t e;

			if (v[k].mainline)
				continue;
			for (e = i, told = 0; e < j && e < i + CHECKS_MAX_SAME_PATCH &&
			     told < CHECKS_MAX_DUPLICATES; e++)
				if (e != k && duplicates(c, &v[k], &v[e])) {
					array_grow(&pairs, &alloc, npairs + 1, sizeof(*pairs));
					pairs[npairs++] = (struct pair){ &v[k], &v[e] };
					told++;
				}
		}
	}
	if (npairs)
		qsort(pairs, npairs, sizeof(*pairs), pair_cmp);
	for (i = 0; i < npairs; i++)
		add_duplicate(c, pairs[i].x, pairs[i].e, window);
	free(pairs);
}

int checks_duplicates(struct checks_ctx *c)
{
	struct pid_cache pc;
	struct graph_commits window = { 0 };
	struct pid_entry *v = NULL;
	size_t n = 0, alloc = 0, i;
	git_oid pid;
	int error = 0;

	memset(&pc, 0, sizeof(pc));
	cache_load(&pc, c->o->patch_ids);
	for (i = 0; i < c->all.n && !error; i++) {
		if (c->owner[i] < 0 || c->all.v[i].nparents > 1)
			continue;
		if ((error = patch_id(c, &pc, &c->all.v[i], c->all.parents, &pid)) < 0 ||
		    git_oid_is_zero(&pid))
			continue;
		array_grow(&v, &alloc, n + 1, sizeof(*v));
		v[n++] = (struct pid_entry){ pid, i, 0 };
	}
	if (!error && n)
		error = mainline_window(c, &window);
	for (i = 0; i < window.n && !error; i++) {
		if (window.v[i].nparents > 1)
			continue;
		if ((error = patch_id(c, &pc, &window.v[i], window.parents, &pid)) < 0 ||
		    git_oid_is_zero(&pid))
			continue;
		array_grow(&v, &alloc, n + 1, sizeof(*v));
		v[n++] = (struct pid_entry){ pid, i, 1 };
	}
	if (!error)
		pair_up(c, v, n, &window);
	if (!error)
		cache_save(&pc, c->o->patch_ids);
	free(v);
	graph_commits_release(&window);
	cache_release(&pc);
	return error;
}

struct pid_cache *pid_cache_open(const char *path)
{
	struct pid_cache *pc = xcalloc(1, sizeof(*pc));

	cache_load(pc, path);
	return pc;
}

int pid_cache_get(struct checks_ctx *c, struct pid_cache *pc, const struct graph_commit *gc,
		  const git_oid *parents, git_oid *pid)
{
	return patch_id(c, pc, gc, parents, pid);
}

void pid_cache_close(struct pid_cache *pc)
{
	if (!pc)
		return;
	cache_release(pc);
	free(pc);
}
