/*
 * Rename detection for one side of a merge, as git's diffcore-rename
 * does it when merge-ort calls it (see merge_int.h).  The result must be
 * git's pairing exactly, ties included, so the order of every step is
 * git's:
 *
 *  1. exact renames: each destination, in order, takes an unused source
 *     with the same blob, preferring one with the same file name, among
 *     the first 100 candidates;
 *  2. same-basename renames: a source whose file name is unique among the
 *     sources and among the destinations is compared with that one
 *     destination (or with the file of that name in the directory its
 *     siblings were exactly renamed to), needing 75% similarity;
 *  3. the sources that still matter (relevant: the other side changed
 *     them, or a directory rename needs them, and the directory's new
 *     place is not yet decided) against every destination left, best
 *     four candidates per destination, pairs taken by score - unless
 *     sources x destinations exceeds merge.renameLimit squared, where
 *     git (and we) keep the exact and basename renames only.
 *
 * Similarity is git's estimate (diffcore-delta): each blob cut into
 * chunks at newlines or every 64 bytes, chunks hashed into 107927
 * buckets, and the bytes of the destination whose chunk the source also
 * has, over the larger size, in units of 60000.
 *
 * Bounds: identical blobs (a million copies) are matched through lists
 * of unused sources per blob, so each destination looks at no more than
 * git's 100 candidates; the inexact matrix is at most renameLimit^2
 * comparisons of chunk counts; each blob is read once, one at a time,
 * and a larger than RENAME_BLOB_MAX is never read (it only takes part in
 * exact renames); its counts are 8 bytes per distinct chunk (at most
 * 107927), kept for the sources while destinations are compared one by
 * one.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "merge_int.h"
#include "error.h"
#include "util.h"

#define CANDIDATES 4		/* per destination, as git keeps them */
#define EXACT_CANDIDATES 100	/* identical sources looked at per destination */
#define BINARY_PROBE 8000
#define CHUNK_BUCKETS 107927	/* git's HASHBASE */

static const char UNKNOWN_DIR[] = "/";

struct rn_counts {
	uint32_t n;
	uint64_t total;			/* the bytes counted */
	struct chunk {
		uint32_t hash, cnt;
	} v[];
};

struct dst_ent {
	struct rn_pair *p;
	int is_rename;
};

struct rn_ctx {
	struct rename_opts *o;
	struct dst_ent *dst;
	size_t ndst;
	struct rn_pair **src;
	size_t nsrc;
	size_t renames;
	/* directory rename bookkeeping (git's dir_rename_info) */
	int setup;
	struct gmap idx_map;		/* unpaired destination path -> index */
	struct gmap guess;		/* old dir -> most likely new dir */
	struct gmap *counts;		/* old dir -> (new dir -> count) */
	struct gmap *dirs_removed;
	struct gmap *relevant;
	struct rn_file **owned;		/* files whose counts we made */
	size_t nowned, owned_alloc;
};

static int is_reg(unsigned mode)
{
	return S_ISREG(mode);
}

static int is_empty_blob(const git_oid *oid)
{
	static const unsigned char empty[GIT_OID_RAWSZ] = {
		0xe6, 0x9d, 0xe2, 0x9b, 0xb2, 0xd1, 0xd6, 0x43, 0x4b, 0x8b,
		0x29, 0xae, 0x77, 0x5a, 0xd8, 0xc2, 0xe4, 0x8c, 0x53, 0x91,
	};

	return !memcmp(oid->id, empty, GIT_OID_RAWSZ);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static char *dir_name(struct pool *p, const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? pool_strndup(p, path, (size_t)(s - path)) : pool_strdup(p, "");
}

/* --- similarity (git's diffcore-delta) --- */

struct chunk_table {
	struct chunk *v;
	uint32_t size, used;
};

static void chunk_add(struct chunk_table *t, uint32_t hash, uint32_t n);

static void chunk_grow(struct chunk_table *t)
{
	struct chunk_table bigger = { NULL, t->size ? t->size * 2 : 512, 0 };
	uint32_t i;

	bigger.v = xcalloc(bigger.size, sizeof(*bigger.v));
	for (i = 0; i < t->size; i++)
		if (t->v[i].cnt)
			chunk_add(&bigger, t->v[i].hash, t->v[i].cnt);
	free(t->v);
	*t = bigger;
}

static void chunk_add(struct chunk_table *t, uint32_t hash, uint32_t n)
{
	uint32_t b;

	if ((t->used + 1) * 5 > t->size * 4)
		chunk_grow(t);
	for (b = hash & (t->size - 1);; b = (b + 1) & (t->size - 1)) {
		if (!t->v[b].cnt) {
			t->v[b].hash = hash;
			t->v[b].cnt = n;
			t->used++;
			return;
		}
		if (t->v[b].hash == hash) {
			t->v[b].cnt += n;
			return;
		}
	}
}

static int chunk_cmp(const void *pa, const void *pb)
{
	const struct chunk *a = pa, *b = pb;

	return a->hash < b->hash ? -1 : a->hash > b->hash;
}

/*
 * Cut data into chunks (a newline ends one, so do 64 bytes; a CR before
 * a LF does not count in text) and sum the bytes per chunk hash.  The
 * bytes after the last newline that do not fill 64 are not counted, as
 * in git.
 */
static struct rn_counts *chunks_count(const unsigned char *data, size_t size)
{
	struct chunk_table t = { NULL, 0, 0 };
	size_t probe = size < BINARY_PROBE ? size : BINARY_PROBE;
	int text = !memchr(data, 0, probe);
	uint32_t a1 = 0, a2 = 0, n = 0, i, k;
	struct rn_counts *c;
	size_t pos;

	chunk_grow(&t);
	for (pos = 0; pos < size; pos++) {
		uint32_t ch = data[pos], old1 = a1;

		if (text && ch == '\r' && pos + 1 < size && data[pos + 1] == '\n')
			continue;
		a1 = (a1 << 7) ^ (a2 >> 25);
		a2 = (a2 << 7) ^ (old1 >> 25);
		a1 += ch;
		if (++n < 64 && ch != '\n')
			continue;
		chunk_add(&t, (a1 + a2 * 0x61) % CHUNK_BUCKETS, n);
		n = a1 = a2 = 0;
	}
	c = xmalloc(sizeof(*c) + t.used * sizeof(c->v[0]));
	c->total = 0;
	for (i = k = 0; i < t.size; i++)
		if (t.v[i].cnt) {
			c->v[k++] = t.v[i];
			c->total += t.v[i].cnt;
		}
	c->n = k;
	free(t.v);
	if (c->n)
		qsort(c->v, c->n, sizeof(c->v[0]), chunk_cmp);
	return c;
}

/*
 * The bytes of dst whose chunks src has too (git's src_copied), or 0
 * as soon as need cannot be reached: a score below the minimum is never
 * used, so its exact value does not matter.
 */
static uint64_t chunks_copied(const struct rn_counts *s, const struct rn_counts *d,
			      uint64_t need)
{
	uint64_t copied = 0, left = s->total;
	uint32_t i, j = 0;

	if ((s->total < d->total ? s->total : d->total) < need)
		return 0;
	for (i = 0; i < s->n; i++) {
		uint32_t dc = 0;

		if (copied + left < need)
			return 0;
		left -= s->v[i].cnt;
		while (j < d->n && d->v[j].hash < s->v[i].hash)
			j++;
		if (j < d->n && d->v[j].hash == s->v[i].hash)
			dc = d->v[j++].cnt;
		copied += s->v[i].cnt < dc ? s->v[i].cnt : dc;
	}
	return copied;
}

static int file_size(struct rn_ctx *c, struct rn_file *f)
{
	size_t len;
	git_object_t type;

	if (f->size >= 0)
		return 0;
	if (git_odb_read_header(&len, &type, c->o->odb, &f->oid) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read blob of '%s'", f->path);
	f->size = (int64_t)len;
	return 0;
}

static int file_counts(struct rn_ctx *c, struct rn_file *f)
{
	git_blob *blob = NULL;

	if (f->counts)
		return 0;
	if (git_blob_lookup(&blob, c->o->repo, &f->oid) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read blob of '%s'", f->path);
	f->counts = chunks_count(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	c->o->blobs_hashed++;
	array_grow(&c->owned, &c->owned_alloc, c->nowned + 1, sizeof(*c->owned));
	c->owned[c->nowned++] = f;
	return 0;
}

static void counts_free(struct rn_ctx *c)
{
	size_t i;

	for (i = 0; i < c->nowned; i++) {
		free(c->owned[i]->counts);
		c->owned[i]->counts = NULL;
	}
	free(c->owned);
	c->owned = NULL;
	c->nowned = c->owned_alloc = 0;
}

static void too_big(struct rn_ctx *c, struct rn_file *f)
{
	if ((uint64_t)f->size > RENAME_BLOB_MAX && !f->too_big) {
		f->too_big = 1;
		c->o->big_skipped++;
	}
}

/*
 * git's estimate_similarity(): 0 for anything but two regular files, for
 * sizes too far apart to reach min_score, else the copied share of the
 * larger size.
 */
static int estimate(struct rn_ctx *c, struct rn_file *src, struct rn_file *dst,
		    int min_score, int *score)
{
	uint64_t max, base, delta;
	int error;

	*score = 0;
	if (!is_reg(src->mode) || !is_reg(dst->mode))
		return 0;
	if ((error = file_size(c, src)) < 0 || (error = file_size(c, dst)) < 0)
		return error;
	max = (uint64_t)(src->size > dst->size ? src->size : dst->size);
	base = (uint64_t)(src->size < dst->size ? src->size : dst->size);
	delta = max - base;
	if (max * (uint64_t)(RENAME_MAX_SCORE - min_score) < delta * RENAME_MAX_SCORE)
		return 0;
	if (max > RENAME_BLOB_MAX) {
		too_big(c, src);
		too_big(c, dst);
		return 0;
	}
	if ((error = file_counts(c, src)) < 0 || (error = file_counts(c, dst)) < 0)
		return error;
	if (dst->size) {
		/* score >= min_score exactly when copied * MAX >= min_score * max */
		uint64_t need = ((uint64_t)min_score * max + RENAME_MAX_SCORE - 1) / RENAME_MAX_SCORE;

		*score = (int)(chunks_copied(src->counts, dst->counts, need) * RENAME_MAX_SCORE / max);
	}
	return 0;
}

int rename_similarity(git_repository *repo, const git_oid *a, const git_oid *b, int *score)
{
	struct rename_opts o;
	struct rn_ctx c;
	struct rn_file fa, fb;
	int error;

	memset(&o, 0, sizeof(o));
	memset(&c, 0, sizeof(c));
	memset(&fa, 0, sizeof(fa));
	memset(&fb, 0, sizeof(fb));
	o.repo = repo;
	if (git_repository_odb(&o.odb, repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot open the object database");
	c.o = &o;
	fa.path = "a";
	fb.path = "b";
	fa.oid = *a;
	fb.oid = *b;
	fa.mode = fb.mode = 0100644;
	fa.size = fb.size = -1;
	error = estimate(&c, &fa, &fb, 0, score);
	counts_free(&c);
	git_odb_free(o.odb);
	return error;
}

/* --- directory rename counts --- */

static void count_dir(struct rn_ctx *c, const char *old_dir, const char *new_dir)
{
	struct gmap_ent *e;
	struct gmap *counts;
	int added;

	e = gmap_put(c->counts, pool_strdup(c->o->pool, old_dir), &added);
	if (added) {
		counts = pool_alloc(c->o->pool, sizeof(*counts));
		gmap_init(counts, c->o->pool);
		e->v.p = counts;
	}
	counts = e->v.p;
	e = gmap_put(counts, new_dir, &added);
	if (added)
		e->key = pool_strdup(c->o->pool, new_dir);
	e->v.i++;
}

/* Cut the last component off path in place; returns it. */
static char *strip_last(char *path)
{
	char *s = strrchr(path, '/');

	if (!s) {
		/* the whole path is the component: keep a copy past the end */
		size_t len = strlen(path);

		memmove(path + 1, path, len + 1);
		path[0] = '\0';
		return path + 1;
	}
	*s = '\0';
	return s + 1;
}

/*
 * A rename of oldname to newname counts for its directory's move, and
 * for the parents' while the trailing directory names agree (a/b/c/f ->
 * x/y/c/f also counts a/b -> x/y) and the old directory matters for
 * itself (git's update_dir_rename_counts()).
 */
static void count_rename(struct rn_ctx *c, const char *oldname, const char *newname)
{
	size_t lo = strlen(oldname), ln = strlen(newname);
	char *od = xmalloc(lo + 2), *nd = xmalloc(ln + 2);
	int first;

	if (!c->setup)
		goto done;
	memcpy(od, oldname, lo + 1);
	memcpy(nd, newname, ln + 1);
	for (first = 1;; first = 0) {
		const char *oc = strip_last(od), *nc;
		intptr_t rel;

		if (!gmap_find(c->dirs_removed, od))
			break;
		nc = strip_last(nd);
		if (!first && strcmp(oc, nc))
			break;
		rel = gmap_get_int(c->dirs_removed, od, NOT_RELEVANT);
		if (rel == RELEVANT_FOR_SELF || first)
			count_dir(c, od, nd);
		if (rel == NOT_RELEVANT || !*od || !*nd)
			break;
	}
done:
	free(od);
	free(nd);
}

/* The new directory with the highest count, the first met in git's
 * map order on a tie. */
static const char *highest_dir(const struct gmap *counts)
{
	struct gmap_iter it;
	struct gmap_ent *e;
	const char *best = NULL;
	intptr_t max = 0;

	gmap_iter_init(&it, counts);
	while ((e = gmap_iter_next(&it)))
		if (e->v.i > max) {
			max = e->v.i;
			best = e->key;
		}
	return best;
}

/* Could the directory's new place be decided whatever the sources left
 * turn out to be? */
static int dir_determinable(const struct gmap *counts)
{
	struct gmap_iter it;
	struct gmap_ent *e;
	intptr_t first = 0, second = 0, unknown = 0;

	gmap_iter_init(&it, counts);
	while ((e = gmap_iter_next(&it))) {
		if (!strcmp(e->key, UNKNOWN_DIR)) {
			unknown = e->v.i;
		} else if (e->v.i >= first) {
			second = first;
			first = e->v.i;
		} else if (e->v.i >= second) {
			second = e->v.i;
		}
	}
	return first > second + unknown;
}

static void dir_info_setup(struct rn_ctx *c)
{
	struct gmap_iter it;
	struct gmap_ent *e;
	size_t i;

	c->setup = 1;
	gmap_init(&c->idx_map, c->o->pool);
	gmap_init(&c->guess, c->o->pool);
	for (i = 0; i < c->ndst; i++) {
		if (!c->dst[i].is_rename)
			gmap_set_int(&c->idx_map, c->dst[i].p->two->path, (intptr_t)i);
		else
			count_rename(c, c->dst[i].p->one->path, c->dst[i].p->two->path);
	}
	gmap_iter_init(&it, c->counts);
	while ((e = gmap_iter_next(&it)))
		gmap_put(&c->guess, e->key, NULL)->v.p = (void *)highest_dir(e->v.p);
}

/* Keep only the counts of directories that were removed; drop the
 * placeholders of sources never looked at. */
static void dir_info_cleanup(struct rn_ctx *c)
{
	struct gmap_iter it;
	struct gmap_ent *e;
	const char **drop = NULL;
	size_t n = 0, alloc = 0, i;

	if (!c->setup)
		return;
	gmap_release(&c->idx_map);
	gmap_release(&c->guess);
	gmap_iter_init(&it, c->counts);
	while ((e = gmap_iter_next(&it))) {
		if (!gmap_get_int(c->dirs_removed, e->key, NOT_RELEVANT)) {
			array_grow(&drop, &alloc, n + 1, sizeof(*drop));
			drop[n++] = e->key;
			gmap_release(e->v.p);
			continue;
		}
		gmap_remove(e->v.p, UNKNOWN_DIR);
	}
	for (i = 0; i < n; i++)
		gmap_remove(c->counts, drop[i]);
	free(drop);
}

/* --- pairing --- */

static void record_pair(struct rn_ctx *c, size_t di, struct rn_pair *src, int score)
{
	struct rn_pair *dst = c->dst[di].p;

	src->one->rename_used++;
	c->dst[di].is_rename = 1;
	dst->one = src->one;
	dst->renamed = 1;
	dst->score = score;
	c->renames++;
}

/* Sources in blob order (regular files together, other types by mode),
 * source order within a blob; unused ones chained per blob. */
struct exact_idx {
	size_t *order;			/* source indexes, sorted */
	size_t *next, *prev;		/* by position in order; SIZE_MAX ends */
};

static int exact_class(unsigned mode)
{
	return is_reg(mode) ? 0100000 : (int)mode;
}

/* Same blob and class (0 when equal), else their order. */
static int exact_key_cmp(const struct rn_file *a, const struct rn_file *b)
{
	int r = git_oid_cmp(&a->oid, &b->oid);

	if (r)
		return r;
	if (exact_class(a->mode) != exact_class(b->mode))
		return exact_class(a->mode) < exact_class(b->mode) ? -1 : 1;
	return 0;
}

static int exact_cmp(const void *pa, const void *pb, void *ctx)
{
	struct rn_ctx *c = ctx;
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	int r = exact_key_cmp(c->src[ia]->one, c->src[ib]->one);

	return r ? r : (ia < ib ? -1 : ia > ib);
}

/* The first position of the sources with dst's blob and class. */
static size_t exact_first(struct rn_ctx *c, const struct exact_idx *x, const struct rn_file *f)
{
	size_t lo = 0, hi = c->nsrc;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (exact_key_cmp(c->src[x->order[mid]]->one, f) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void exact_unlink(struct exact_idx *x, size_t pos, size_t *head)
{
	if (x->prev[pos] != SIZE_MAX)
		x->next[x->prev[pos]] = x->next[pos];
	else
		*head = x->next[pos];
	if (x->next[pos] != SIZE_MAX)
		x->prev[x->next[pos]] = x->prev[pos];
}

/* Sort the sources by blob and chain each run of one blob; head[p] is
 * the first unused of the run starting at position p. */
static void exact_index(struct rn_ctx *c, struct exact_idx *x, size_t *head)
{
	size_t i;

	for (i = 0; i < c->nsrc; i++)
		x->order[i] = i;
	qsort_r(x->order, c->nsrc, sizeof(*x->order), exact_cmp, c);
	for (i = 0; i < c->nsrc; i++) {
		x->prev[i] = i && !exact_key_cmp(c->src[x->order[i - 1]]->one,
						 c->src[x->order[i]]->one) ? i - 1 : SIZE_MAX;
		x->next[i] = SIZE_MAX;
		if (x->prev[i] != SIZE_MAX)
			x->next[i - 1] = i;
		head[i] = x->prev[i] == SIZE_MAX ? i : head[x->prev[i]];
	}
}

static void find_exact(struct rn_ctx *c)
{
	size_t n = c->nsrc ? c->nsrc : 1, i;
	size_t *head = xcalloc(n, sizeof(*head));
	struct exact_idx x;

	x.order = xmalloc(n * sizeof(*x.order));
	x.next = xmalloc(n * sizeof(*x.next));
	x.prev = xmalloc(n * sizeof(*x.prev));
	exact_index(c, &x, head);
	for (i = 0; i < c->ndst; i++) {
		const struct rn_file *t = c->dst[i].p->two;
		size_t start = exact_first(c, &x, t), pos, best = SIZE_MAX;
		int seen = 0;

		if (start >= c->nsrc || exact_key_cmp(c->src[x.order[start]]->one, t))
			continue;
		/* the first unused one, or the first of the same name among 100 */
		for (pos = head[start]; pos != SIZE_MAX && seen < EXACT_CANDIDATES;
		     pos = x.next[pos], seen++) {
			if (best == SIZE_MAX)
				best = pos;
			if (!strcmp(base_name(c->src[x.order[pos]]->one->path), base_name(t->path))) {
				best = pos;
				break;
			}
		}
		if (best == SIZE_MAX)
			continue;
		record_pair(c, i, c->src[x.order[best]], RENAME_MAX_SCORE);
		exact_unlink(&x, best, &head[start]);
	}
	free(head);
	free(x.order);
	free(x.next);
	free(x.prev);
}

/* Drop the sources already paired, and with relevant those that do not
 * matter. */
static void sources_cull(struct rn_ctx *c, const struct gmap *relevant)
{
	size_t i, w = 0;

	for (i = 0; i < c->nsrc; i++) {
		struct rn_file *one = c->src[i]->one;

		if (one->rename_used || (relevant && !gmap_find(relevant, one->path)))
			continue;
		c->src[w++] = c->src[i];
	}
	c->nsrc = w;
}

/* The destination a source with a shared file name may have gone to:
 * its name in the directory its siblings went to. */
static intptr_t guess_dst(struct rn_ctx *c, const char *path)
{
	const char *dir = dir_name(c->o->pool, path), *nd;
	char *p;
	intptr_t idx;

	nd = gmap_find(&c->guess, dir) ? gmap_find(&c->guess, dir)->v.p : NULL;
	if (!nd)
		return -1;
	p = xasprintf("%s/%s", nd, base_name(path));
	idx = gmap_get_int(&c->idx_map, p, -1);
	free(p);
	return idx;
}

static int find_basename(struct rn_ctx *c, int min_score)
{
	struct gmap srcs, dsts;
	size_t i;
	int error = 0;

	gmap_init(&srcs, c->o->pool);
	gmap_init(&dsts, c->o->pool);
	for (i = 0; i < c->nsrc; i++) {
		int added;
		struct gmap_ent *e = gmap_put(&srcs, base_name(c->src[i]->one->path), &added);

		e->v.i = added ? (intptr_t)i : -1;
	}
	for (i = 0; i < c->ndst; i++) {
		int added;
		struct gmap_ent *e;

		if (c->dst[i].is_rename)
			continue;
		e = gmap_put(&dsts, base_name(c->dst[i].p->two->path), &added);
		e->v.i = added ? (intptr_t)i : -1;
	}
	for (i = 0; i < c->nsrc && error == 0; i++) {
		struct rn_pair *sp = c->src[i];
		const char *base = base_name(sp->one->path);
		struct gmap_ent *d;
		intptr_t si, di;
		int score;

		if (!gmap_find(c->relevant, sp->one->path) || !(d = gmap_find(&dsts, base)))
			continue;
		si = gmap_get_int(&srcs, base, -1);
		di = d->v.i;
		if (si == -1 || di == -1) {
			si = (intptr_t)i;
			di = guess_dst(c, sp->one->path);
		}
		if (di == -1 || c->dst[di].is_rename)
			continue;
		if ((error = estimate(c, c->src[si]->one, c->dst[di].p->two, min_score, &score)) < 0 ||
		    score < min_score)
			continue;
		record_pair(c, (size_t)di, c->src[si], score);
		count_rename(c, c->src[si]->one->path, c->dst[di].p->two->path);
	}
	gmap_release(&srcs);
	gmap_release(&dsts);
	return error;
}

/*
 * Directories whose new place the renames found so far already decide
 * (a majority nothing left could overturn) need no more of their
 * location-only sources (git's handle_early_known_dir_renames()).
 */
static void cull_decided(struct rn_ctx *c)
{
	struct gmap_iter it;
	struct gmap_ent *e;
	size_t i, w = 0;

	for (i = 0; i < c->nsrc; i++) {
		char *d = dir_name(c->o->pool, c->src[i]->one->path);

		while (*d && gmap_get_int(c->dirs_removed, d, NOT_RELEVANT) != NOT_RELEVANT) {
			count_dir(c, d, UNKNOWN_DIR);
			d = dir_name(c->o->pool, d);
		}
	}
	gmap_iter_init(&it, c->counts);
	while ((e = gmap_iter_next(&it)))
		if (gmap_get_int(c->dirs_removed, e->key, NOT_RELEVANT) == RELEVANT_FOR_SELF &&
		    dir_determinable(e->v.p))
			gmap_set_int(c->dirs_removed, e->key, RELEVANT_FOR_ANCESTOR);
	for (i = 0; i < c->nsrc; i++) {
		const char *path = c->src[i]->one->path;
		int removable = 1;

		if (gmap_get_int(c->relevant, path, -1) == RELEVANT_LOCATION) {
			char *d = dir_name(c->o->pool, path);

			for (;;) {
				intptr_t r = gmap_get_int(c->dirs_removed, d, NOT_RELEVANT);

				if (r == NOT_RELEVANT)
					break;
				if (r == RELEVANT_FOR_SELF) {
					removable = 0;
					break;
				}
				d = dir_name(c->o->pool, d);
			}
			if (removable) {
				gmap_set_int(c->relevant, path, RELEVANT_NO_MORE);
				continue;
			}
		}
		c->src[w++] = c->src[i];
	}
	c->nsrc = w;
}

struct score {
	int src, dst;			/* dst -1: unused slot */
	int score, name_score;
	size_t seq;			/* position before sorting: keeps it stable */
};

/* git's score_compare(): unused last, then by score and same file name. */
static int score_cmp(const struct score *a, const struct score *b)
{
	if (a->dst < 0)
		return b->dst >= 0;
	if (b->dst < 0)
		return -1;
	if (a->score == b->score)
		return b->name_score - a->name_score;
	return b->score - a->score;
}

static int score_sort_cmp(const void *pa, const void *pb)
{
	const struct score *a = pa, *b = pb;
	int r = score_cmp(a, b);

	return r ? r : (a->seq < b->seq ? -1 : a->seq > b->seq);
}

static void keep_if_better(struct score m[CANDIDATES], const struct score *o)
{
	int i, worst = 0;

	for (i = 1; i < CANDIDATES; i++)
		if (score_cmp(&m[i], &m[worst]) > 0)
			worst = i;
	if (score_cmp(&m[worst], o) > 0)
		m[worst] = *o;
}

static int find_inexact(struct rn_ctx *c, size_t ndst_left)
{
	struct score *mx = xmalloc(ndst_left * CANDIDATES * sizeof(*mx));
	size_t i, j, cnt = 0;
	int error = 0;

	for (i = 0; i < c->ndst && error == 0; i++) {
		struct rn_file *two = c->dst[i].p->two;
		struct score *m;

		if (c->dst[i].is_rename)
			continue;
		m = &mx[cnt * CANDIDATES];
		for (j = 0; j < CANDIDATES; j++)
			m[j].dst = -1;
		for (j = 0; j < c->nsrc && error == 0; j++) {
			struct rn_file *one = c->src[j]->one;
			struct score s;

			error = estimate(c, one, two, RENAME_MIN_SCORE, &s.score);
			s.name_score = !strcmp(base_name(one->path), base_name(two->path));
			s.dst = (int)i;
			s.src = (int)j;
			keep_if_better(m, &s);
		}
		/* a destination is in one row only: its counts are done with */
		free(two->counts);
		two->counts = NULL;
		cnt++;
	}
	for (i = 0; i < cnt * CANDIDATES; i++)
		mx[i].seq = i;
	if (error == 0 && cnt)
		qsort(mx, cnt * CANDIDATES, sizeof(*mx), score_sort_cmp);
	for (i = 0; i < cnt * CANDIDATES && error == 0; i++) {
		struct rn_pair *sp;

		if (mx[i].dst < 0 || mx[i].score < RENAME_MIN_SCORE)
			break;
		sp = c->src[mx[i].src];
		if (c->dst[mx[i].dst].is_rename || sp->one->rename_used)
			continue;
		record_pair(c, (size_t)mx[i].dst, sp, mx[i].score);
		count_rename(c, sp->one->path, c->dst[mx[i].dst].p->two->path);
	}
	free(mx);
	return error;
}

/* Keep the additions, the renames and the deletions nothing took. */
static void queue_write_back(struct rn_queue *q)
{
	size_t i, w = 0;

	for (i = 0; i < q->n; i++) {
		struct rn_pair *p = q->v[i];

		if (p->one->mode && !p->two->mode && p->one->rename_used)
			continue;
		p->status = !p->one->mode ? 'A' : !p->two->mode ? 'D' : 'R';
		q->v[w++] = p;
	}
	q->n = w;
}

static int detect(struct rn_ctx *c, struct rn_queue *q)
{
	size_t i, ndst_left, nsrc_left, dst_alloc = 0, src_alloc = 0;
	int error;

	for (i = 0; i < q->n; i++) {
		struct rn_pair *p = q->v[i];

		if (!p->one->mode) {
			if (!p->two->mode || is_empty_blob(&p->two->oid))
				continue;
			array_grow(&c->dst, &dst_alloc, c->ndst + 1, sizeof(*c->dst));
			c->dst[c->ndst].p = p;
			c->dst[c->ndst++].is_rename = 0;
		} else if (!is_empty_blob(&p->one->oid) && !p->two->mode) {
			array_grow(&c->src, &src_alloc, c->nsrc + 1, sizeof(*c->src));
			c->src[c->nsrc++] = p;
		}
	}
	if (!c->ndst || !c->nsrc)
		return 0;
	find_exact(c);
	sources_cull(c, NULL);
	dir_info_setup(c);
	/* 75%: halfway from the minimum score to an exact copy */
	if ((error = find_basename(c, RENAME_MIN_SCORE + (RENAME_MAX_SCORE - RENAME_MIN_SCORE) / 2)) < 0)
		return error;
	sources_cull(c, c->relevant);
	cull_decided(c);
	ndst_left = c->ndst - c->renames;
	nsrc_left = c->nsrc;
	if (!ndst_left || !nsrc_left)
		return 0;
	if (c->o->limit > 0 &&
	    (uint64_t)ndst_left * nsrc_left > (uint64_t)c->o->limit * (uint64_t)c->o->limit) {
		c->o->needed_limit = (int)(nsrc_left > ndst_left ? nsrc_left : ndst_left);
		return 0;
	}
	return find_inexact(c, ndst_left);
}

int rename_detect(struct rename_opts *o, struct rn_queue *q, struct gmap *relevant,
		  struct gmap *dirs_removed, struct gmap *dir_counts)
{
	struct rn_ctx c;
	int error;

	memset(&c, 0, sizeof(c));
	c.o = o;
	c.relevant = relevant;
	c.dirs_removed = dirs_removed;
	c.counts = dir_counts;
	o->needed_limit = 0;
	error = detect(&c, q);
	dir_info_cleanup(&c);
	if (error == 0)
		queue_write_back(q);
	counts_free(&c);
	free(c.dst);
	free(c.src);
	return error;
}
