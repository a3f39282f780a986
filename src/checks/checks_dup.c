/*
 * Duplicate patches (checks.h): the same patch (git's stable patch-id)
 * under two commit ids, in two trees of the day or in a tree and in
 * mainline.  Every commit of the day is looked at each day (a duplicate
 * appears when mainline or another tree takes the patch, not only when
 * the commit is new), so patch-ids are kept in a cache beside the
 * objects, DIR/repo.git/tide-patch-ids: "tidepid2", then 60-byte records
 * (commit id, patch-id, paths key; zero ids for a commit that changes
 * nothing; a patch-id of all 0xff bytes when only the paths key was
 * made) in commit order, at most PID_CACHE_MAX bytes.  A damaged file is
 * an empty cache: it costs time, never a wrong answer.  The file is
 * rewritten with the records used today, so it holds the day's commits
 * and the mainline window.
 *
 * The paths key sums the paths and modes of the files a commit changes
 * (the patch-id's first part, no blob read): two commits with one
 * patch-id have one paths key, so a mainline commit's patch-id is made
 * only when its paths key is a day commit's, as git cherry does.  Most
 * mainline commits touch other files than the trees' commits: their key
 * costs a walk of the trees that differ, never a diff of their blobs.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "buf.h"
#include "checks_int.h"
#include "error.h"
#include "history.h"
#include "nextfiles.h"
#include "safefs.h"
#include "text.h"
#include "util.h"

#define PID_MAGIC "tidepid2"
#define PID_REC 60
#define PID_CACHE_MAX (8 + (size_t)PID_REC * 2000000)	/* a day and its window are far less */

/*
 * Trees read for patch-ids, by id (one slot each): consecutive mainline
 * commits share their root and their busy directories, which libgit2
 * does not keep (only small trees stay in its cache), and reading them
 * again was most of a first night's checks on git.git.
 */
#define TREE_SLOTS 256

struct tree_cache {
	git_tree *t[TREE_SLOTS];
};

struct pid_cache {
	struct buf file;		/* as read; records from offset 8 */
	size_t nold;
	unsigned char *today;		/* records used today, unsorted */
	size_t ntoday, alloc;
	size_t computed;
	struct tree_cache trees;
};

/* The tree id names, a reference of the caller's own (git_tree_free() it). */
static int tree_get(git_tree **out, struct tree_cache *tc, git_repository *repo, const git_oid *id)
{
	git_tree **slot;
	size_t h;

	memcpy(&h, id->id, sizeof(h));
	slot = &tc->t[h % TREE_SLOTS];
	if (!*slot || !git_oid_equal(git_tree_id(*slot), id)) {
		git_tree *t = NULL;

		if (git_tree_lookup(&t, repo, id) < 0)
			return -1;
		git_tree_free(*slot);
		*slot = t;
	}
	return git_object_dup((git_object **)out, (git_object *)*slot);
}

static void tree_cache_release(struct tree_cache *tc)
{
	size_t i;

	for (i = 0; i < TREE_SLOTS; i++)
		git_tree_free(tc->t[i]);
	memset(tc, 0, sizeof(*tc));
}

static void cache_load(struct pid_cache *pc, const char *path)
{
	const unsigned char *r;
	size_t i;

	if (!path || safefs_read_file(&pc->file, path, PID_CACHE_MAX) < 0) {
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

static int cache_find(const struct pid_cache *pc, const git_oid *commit, git_oid *pid,
		      git_oid *pkey)
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
			git_oid_fromraw(pkey, r + mid * PID_REC + 2 * GIT_OID_RAWSZ);
			return 1;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void cache_use(struct pid_cache *pc, const git_oid *commit, const git_oid *pid,
		      const git_oid *pkey)
{
	unsigned char *r;

	array_grow(&pc->today, &pc->alloc, (pc->ntoday + 1) * PID_REC, 1);
	r = pc->today + pc->ntoday * PID_REC;
	memcpy(r, commit->id, GIT_OID_RAWSZ);
	memcpy(r + GIT_OID_RAWSZ, pid->id, GIT_OID_RAWSZ);
	memcpy(r + 2 * GIT_OID_RAWSZ, pkey->id, GIT_OID_RAWSZ);
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
	tree_cache_release(&pc->trees);
}

/*
 * A patch-id of our own, with git's stable one's properties: the files a
 * commit changes against its first parent, each hashed on its own (its
 * paths and modes, then every line of its diff, context included, white
 * space removed, line numbers left out), the hashes added byte by byte
 * so the order of the files does not matter.  Two commits making the same
 * change have the same id wherever the change lands in the file; ids are
 * only compared with each other (and kept in the cache), never with
 * git's.  The trees are compared entry by entry, descending only into
 * subtrees whose ids differ: libgit2's git_diff_tree_to_tree() visits
 * every entry of every level it opens through its iterators, 0.9 ms a
 * commit on a wide root tree, which made the checks of a 10,000-commit
 * day take 10 s.
 */
#define PID_BLOB_MAX (8u << 20)	/* larger files are hashed by id, not diffed */
/*
 * Files of one commit diffed by lines; the others are hashed by id, as a
 * big file is: a tree's commit adding a million files took the run's
 * checks over ten minutes (a diff a file), after its merge had its budget.
 */
#define PID_FILES_DIFFED 10000

struct pid_hash {
	unsigned char sum[GIT_OID_RAWSZ];	/* the patch-id */
	unsigned char paths[GIT_OID_RAWSZ];	/* the paths key */
	int any, paths_only;
	size_t files;
	struct tree_cache *trees;
};

static void sum_add(unsigned char *sum, const unsigned char *md)
{
	unsigned carry = 0;
	size_t i;

	for (i = 0; i < GIT_OID_RAWSZ; i++) {
		carry += sum[i] + md[i];
		sum[i] = (unsigned char)carry;
		carry >>= 8;
	}
}

/* A patch-id not made (the paths key only): all 0xff. */
static void pid_unknown(git_oid *pid)
{
	memset(pid->id, 0xff, GIT_OID_RAWSZ);
}

static int pid_is_unknown(const git_oid *pid)
{
	git_oid u;

	pid_unknown(&u);
	return git_oid_equal(pid, &u);
}

static void hash_no_space(EVP_MD_CTX *ctx, const char *s, size_t len)
{
	size_t i, start = 0;

	for (i = 0; i <= len; i++)
		if (i == len || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			if (i > start)
				EVP_DigestUpdate(ctx, s + start, i - start);
			start = i + 1;
		}
}

static int blob_text(git_repository *repo, const git_oid *id, git_blob **out)
{
	*out = NULL;
	if (git_oid_is_zero(id))
		return 0;
	if (git_blob_lookup(out, repo, id) < 0)
		return -1;
	return 0;
}

/*
 * One side of a change involving a gitlink (a submodule's commit, mode
 * 160000): the commit is in another repository, never looked up here.
 * A gitlink is the line git's diff shows for it ("Subproject commit
 * <id>"); a blob turned into a gitlink or back, by its id.
 */
static void gitlink_side(EVP_MD_CTX *ctx, char origin, unsigned mode, const git_oid *id)
{
	static const char line[] = "Subprojectcommit";	/* white space removed, as hash_no_space() */

	if (!mode)
		return;
	if (mode != GIT_FILEMODE_COMMIT) {
		EVP_DigestUpdate(ctx, id->id, GIT_OID_RAWSZ);
		return;
	}
	EVP_DigestUpdate(ctx, &origin, 1);
	EVP_DigestUpdate(ctx, line, sizeof(line) - 1);
	EVP_DigestUpdate(ctx, git_oid_tostr_s(id), GIT_OID_HEXSZ);
}

/*
 * Whether the blob id is over PID_BLOB_MAX, read from its header: a 2 GB
 * file from a tree is hashed by id without being inflated.
 */
static int blob_too_big(git_repository *repo, const git_oid *id)
{
	git_odb *odb = NULL;
	git_object_t type;
	size_t size = 0;
	int big = 0;

	if (git_oid_is_zero(id) || git_repository_odb(&odb, repo) < 0)
		goto done;
	big = git_odb_read_header(&size, &type, odb, id) == 0 && size > PID_BLOB_MAX;
done:
	git_error_clear();
	git_odb_free(odb);
	return big;
}

/* A file's diff's lines, each its origin and its text without white space. */
static int blobs_hash(EVP_MD_CTX *ctx, git_repository *repo, const char *path,
		      const git_oid *ao, const git_oid *bo)
{
	git_blob *ab = NULL, *bb = NULL;
	git_patch *patch = NULL;
	size_t hk, ln;
	int error = -1;

	if (blob_too_big(repo, ao) || blob_too_big(repo, bo)) {
		EVP_DigestUpdate(ctx, ao->id, GIT_OID_RAWSZ);
		EVP_DigestUpdate(ctx, bo->id, GIT_OID_RAWSZ);
		error = 0;
		goto done;
	}
	if (blob_text(repo, ao, &ab) < 0 || blob_text(repo, bo, &bb) < 0)
		goto done;
	if ((ab && git_blob_rawsize(ab) > PID_BLOB_MAX) || (bb && git_blob_rawsize(bb) > PID_BLOB_MAX) ||
	    (ab && git_blob_is_binary(ab)) || (bb && git_blob_is_binary(bb))) {
		EVP_DigestUpdate(ctx, ao->id, GIT_OID_RAWSZ);
		EVP_DigestUpdate(ctx, bo->id, GIT_OID_RAWSZ);
		error = 0;
		goto done;
	}
	if (git_patch_from_blobs(&patch, ab, path, bb, path, NULL) < 0)
		goto done;
	for (hk = 0; hk < git_patch_num_hunks(patch); hk++)
		for (ln = 0; ln < (size_t)git_patch_num_lines_in_hunk(patch, hk); ln++) {
			const git_diff_line *l = NULL;
			char origin;

			if (git_patch_get_line_in_hunk(&l, patch, hk, ln) < 0)
				goto done;
			origin = l->origin;
			EVP_DigestUpdate(ctx, &origin, 1);
			hash_no_space(ctx, l->content, l->content_len);
		}
	error = 0;
done:
	git_patch_free(patch);
	git_blob_free(ab);
	git_blob_free(bb);
	return error;
}

/* One file's hash: its paths and modes, then its diff's lines. */
static int file_hash(struct pid_hash *h, git_repository *repo, const char *path,
		     const git_tree_entry *a, const git_tree_entry *b)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new(), *pctx = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, am = a ? git_tree_entry_filemode(a) : 0, bm = b ? git_tree_entry_filemode(b) : 0;
	git_oid zero, ao, bo;
	int error = 0;

	memset(&zero, 0, sizeof(zero));
	git_oid_cpy(&ao, a ? git_tree_entry_id(a) : &zero);
	git_oid_cpy(&bo, b ? git_tree_entry_id(b) : &zero);
	EVP_DigestInit_ex(ctx, EVP_sha1(), NULL);
	EVP_DigestUpdate(ctx, path, strlen(path) + 1);
	EVP_DigestUpdate(ctx, &am, sizeof(am));
	EVP_DigestUpdate(ctx, &bm, sizeof(bm));
	/* the paths key: the same digest of the path and modes alone */
	if (!EVP_MD_CTX_copy_ex(pctx, ctx) || !EVP_DigestFinal_ex(pctx, md, &mdlen)) {
		error = -1;
		goto done;
	}
	sum_add(h->paths, md);
	h->any = 1;
	if (h->paths_only)
		goto done;
	if (am == GIT_FILEMODE_COMMIT || bm == GIT_FILEMODE_COMMIT) {
		gitlink_side(ctx, '-', am, &ao);
		gitlink_side(ctx, '+', bm, &bo);
	} else if (++h->files > PID_FILES_DIFFED) {
		EVP_DigestUpdate(ctx, ao.id, GIT_OID_RAWSZ);
		EVP_DigestUpdate(ctx, bo.id, GIT_OID_RAWSZ);
	} else {
		error = blobs_hash(ctx, repo, path, &ao, &bo);
	}
	if (!error) {
		EVP_DigestFinal_ex(ctx, md, &mdlen);
		sum_add(h->sum, md);
	}
done:
	EVP_MD_CTX_free(ctx);
	EVP_MD_CTX_free(pctx);
	return error;
}

static int tree_changes(struct pid_hash *h, git_repository *repo, const git_oid *a,
			const git_oid *b, struct buf *path, int depth);

/* One name of both trees (either entry may be NULL): the files that differ under it. */
static int entry_changes(struct pid_hash *h, git_repository *repo, const git_tree_entry *a,
			 const git_tree_entry *b, struct buf *path, int depth)
{
	const git_tree_entry *any = a ? a : b;
	int ta = a && git_tree_entry_type(a) == GIT_OBJECT_TREE;
	int tb = b && git_tree_entry_type(b) == GIT_OBJECT_TREE;
	size_t len = path->len;
	int error = 0;

	if (a && b && git_tree_entry_filemode(a) == git_tree_entry_filemode(b) &&
	    git_oid_equal(git_tree_entry_id(a), git_tree_entry_id(b)))
		return 0;
	buf_printf(path, "%s%s", len ? "/" : "", git_tree_entry_name(any));
	if (ta || tb)	/* a directory on either side: what is under it */
		error = tree_changes(h, repo, ta ? git_tree_entry_id(a) : NULL,
				     tb ? git_tree_entry_id(b) : NULL, path, depth + 1);
	if (!error && ((a && !ta) || (b && !tb)))	/* a file on either side */
		error = file_hash(h, repo, buf_cstr(path), a && !ta ? a : NULL, b && !tb ? b : NULL);
	buf_truncate(path, len);
	return error;
}

static int tree_changes(struct pid_hash *h, git_repository *repo, const git_oid *a,
			const git_oid *b, struct buf *path, int depth)
{
	git_tree *ta = NULL, *tb = NULL;
	size_t i = 0, j = 0, na, nb;
	int error = -1;

	if (depth > 4096 || (a && tree_get(&ta, h->trees, repo, a) < 0) ||
	    (b && tree_get(&tb, h->trees, repo, b) < 0))
		goto done;
	na = ta ? git_tree_entrycount(ta) : 0;
	nb = tb ? git_tree_entrycount(tb) : 0;
	error = 0;
	while (!error && (i < na || j < nb)) {
		const git_tree_entry *ea = i < na ? git_tree_entry_byindex(ta, i) : NULL;
		const git_tree_entry *eb = j < nb ? git_tree_entry_byindex(tb, j) : NULL;
		/* git's order, a directory's name as if it ended in '/' */
		int cmp = !ea ? 1 : !eb ? -1 : git_tree_entry_cmp(ea, eb);

		error = entry_changes(h, repo, cmp <= 0 ? ea : NULL, cmp >= 0 ? eb : NULL, path, depth);
		i += cmp <= 0;
		j += cmp >= 0;
	}
done:
	git_tree_free(ta);
	git_tree_free(tb);
	return error;
}

/*
 * The patch-id and paths key of a commit against its first parent; zero
 * when it changes nothing.  paths_only: the patch-id is left unknown.
 */
static int compute_pid(struct checks_ctx *c, struct tree_cache *trees,
		       const struct graph_commit *gc, const git_oid *parents, int paths_only,
		       git_oid *pid, git_oid *pkey)
{
	struct pid_hash h;
	struct buf path = BUF_INIT;
	git_commit *p = NULL;
	const git_oid *pt = NULL;
	size_t at;
	int error = 0;

	memset(&h, 0, sizeof(h));
	memset(pid, 0, sizeof(*pid));
	memset(pkey, 0, sizeof(*pkey));
	h.paths_only = paths_only;
	h.trees = trees;
	if (gc->nparents) {
		if (oidmap_get(&c->index, &parents[gc->parents], &at))
			pt = &c->all.v[at].tree;
		else if (git_commit_lookup(&p, c->repo, &parents[gc->parents]) == 0)
			pt = git_commit_tree_id(p);
		else
			error = -1;
	}
	if (!error)
		error = tree_changes(&h, c->repo, pt, &gc->tree, &path, 0);
	if (error < 0)
		error = tide_error_git(TIDE_ERROR, "cannot make the patch-id of %s",
				       git_oid_tostr_s(&gc->id));
	else if (h.any && paths_only)
		pid_unknown(pid);
	else if (h.any)
		git_oid_fromraw(pid, h.sum);
	if (!error && h.any)
		git_oid_fromraw(pkey, h.paths);
	buf_release(&path);
	git_commit_free(p);
	return error;
}

/*
 * Which trees a mainline commit can be a duplicate for: those it is not
 * in the history of, as git cherry compares a branch only with the
 * upstream commits it does not have.  A tree forked from mainline last
 * week has every older mainline commit in its history, and comparing
 * its commits' keys with theirs made most of a first night's patch-ids
 * on git.git (8,700 of 36,655 mainline commits diffed, nearly all of
 * them older than the fork point of the topic whose key they shared).
 * A tree's history is read once, the first time it is asked about.
 */
struct tree_reach {
	struct graph_reach **r;
	unsigned char *done;
	size_t n;
};

/* Is the mainline commit id in the history of tree t's tip? */
static int tree_has(const struct checks_ctx *c, struct tree_reach *tr, int t, const git_oid *id)
{
	git_oid tip;

	if (t < 0 || (size_t)t >= tr->n)
		return 0;
	if (!tr->done[t]) {
		tr->done[t] = 1;
		/* a history that cannot be read hides nothing: every commit compared */
		if (c->d->trees[t].sha && git_oid_fromstr(&tip, c->d->trees[t].sha) == 0 &&
		    graph_reach_new(&tr->r[t], c->repo, &tip) < 0)
			tr->r[t] = NULL;
		tide_error_clear();
		git_error_clear();
	}
	return graph_reach_has(tr->r[t], id);
}

static void tree_reach_release(struct tree_reach *tr)
{
	size_t i;

	for (i = 0; i < tr->n; i++)
		graph_reach_free(tr->r[i]);
	free(tr->r);
	free(tr->done);
}

/* Paths keys of the day's commits, sorted, each with its commit's tree. */
struct key_tree {
	git_oid key;
	int tree;
};

struct keyset {
	struct key_tree *v;
	size_t n, alloc;
	const struct checks_ctx *c;
	struct tree_reach *reach;
};

static int key_tree_cmp(const void *a, const void *b)
{
	const struct key_tree *x = a, *y = b;
	int cmp = git_oid_cmp(&x->key, &y->key);

	return cmp ? cmp : (x->tree > y->tree) - (x->tree < y->tree);
}

/* Is key a day commit's, of a tree whose history does not hold the mainline commit id? */
static int keyset_has(const struct keyset *k, const git_oid *key, const git_oid *id)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (git_oid_cmp(&k->v[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < k->n && git_oid_equal(&k->v[lo].key, key); lo++)
		if ((lo == 0 || !git_oid_equal(&k->v[lo - 1].key, key) ||
		     k->v[lo - 1].tree != k->v[lo].tree) &&
		    !tree_has(k->c, k->reach, k->v[lo].tree, id))
			return 1;
	return 0;
}

/*
 * A commit's paths key and patch-id, from the cache or made.  want NULL:
 * the patch-id always; else only when the paths key is in want (the
 * patch-id is left unknown, pid_is_unknown(), otherwise).
 */
static int patch_key(struct checks_ctx *c, struct pid_cache *pc, const struct graph_commit *gc,
		     const git_oid *parents, const struct keyset *want, git_oid *pid, git_oid *pkey)
{
	int error, cached = cache_find(pc, &gc->id, pid, pkey);

	if (!cached) {
		if ((error = compute_pid(c, &pc->trees, gc, parents, want != NULL, pid, pkey)) < 0)
			return error;
		pc->computed++;
	}
	if (pid_is_unknown(pid) && (!want || keyset_has(want, pkey, &gc->id))) {
		if ((error = compute_pid(c, &pc->trees, gc, parents, 0, pid, pkey)) < 0)
			return error;
		pc->computed += cached;
	}
	cache_use(pc, &gc->id, pid, pkey);
	return 0;
}

static int patch_id(struct checks_ctx *c, struct pid_cache *pc, const struct graph_commit *gc,
		    const git_oid *parents, git_oid *pid)
{
	git_oid pkey;

	return patch_key(c, pc, gc, parents, NULL, pid, &pkey);
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
static int duplicates(const struct checks_ctx *c, struct tree_reach *reach,
		      const struct graph_commits *window, const struct pid_entry *x,
		      const struct pid_entry *e)
{
	int oc = c->owner[x->at], oe;

	if (e->mainline)
		return !tree_has(c, reach, oc, &window->v[e->at].id);
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
		f->other_subject = nextfiles_cut_owned(commit_summary_utf8(commit),
						       NEXTFILES_SUBJECT_MAX);
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

static void pair_up(struct checks_ctx *c, struct tree_reach *reach, struct pid_entry *v,
		    size_t n, const struct graph_commits *window)
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
				if (e != k && duplicates(c, reach, window, &v[k], &v[e])) {
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
	struct keyset keys = { 0 };
	struct tree_reach reach = { 0 };
	size_t n = 0, alloc = 0, i, cached;
	git_oid pid, pkey;
	int error = 0;

	memset(&pc, 0, sizeof(pc));
	reach.n = c->d->ntrees;
	reach.r = xcalloc(reach.n + 1, sizeof(*reach.r));
	reach.done = xcalloc(reach.n + 1, 1);
	keys.c = c;
	keys.reach = &reach;
	cache_load(&pc, c->o->patch_ids);
	for (i = 0; i < c->all.n && !error; i++) {
		if (c->owner[i] < 0 || c->all.v[i].nparents > 1)
			continue;
		if ((error = patch_key(c, &pc, &c->all.v[i], c->all.parents, NULL, &pid, &pkey)) < 0 ||
		    git_oid_is_zero(&pid))
			continue;
		array_grow(&v, &alloc, n + 1, sizeof(*v));
		v[n++] = (struct pid_entry){ pid, i, 0 };
		array_grow(&keys.v, &keys.alloc, keys.n + 1, sizeof(*keys.v));
		keys.v[keys.n++] = (struct key_tree){ pkey, c->owner[i] };
	}
	if (keys.n)
		qsort(keys.v, keys.n, sizeof(*keys.v), key_tree_cmp);
	if (!error && n)
		error = mainline_window(c, &window);
	/* a mainline commit's patch-id only when a day commit changes the same paths */
	for (i = 0; i < window.n && !error; i++) {
		if (window.v[i].nparents > 1)
			continue;
		if ((error = patch_key(c, &pc, &window.v[i], window.parents, &keys, &pid, &pkey)) < 0 ||
		    git_oid_is_zero(&pid) || pid_is_unknown(&pid))
			continue;
		array_grow(&v, &alloc, n + 1, sizeof(*v));
		v[n++] = (struct pid_entry){ pid, i, 1 };
	}
	if (!error)
		pair_up(c, &reach, v, n, &window);
	cached = pc.ntoday - pc.computed;
	event_emitf(c->o->events, EVENT_CHECK, EVENT_INFO, NULL,
		    "checks: %zu mainline commits compared, patch-ids of %zu commits: %zu made, %zu from the cache",
		    window.n, pc.ntoday, pc.computed, cached);
	/* what was made before a failure is kept: the next day need not make it again */
	cache_save(&pc, c->o->patch_ids);
	free(keys.v);
	free(v);
	tree_reach_release(&reach);
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
