/*
 * Commit-graph upkeep and the path-limited attribution walk (graph.h).
 *
 * libgit2 1.5 reads commit-graph files with generation data version 1
 * only, and git 2.39 writes version 2 by default; libgit2 then ignores the
 * file and parses every commit it walks.  So tide writes its own file with
 * libgit2's writer after each fetch, and keeps the file's hash beside it
 * (commit-graph.tide): a file that does not match is never read, neither
 * by libgit2 nor by the walk here, which reads parents and generation
 * numbers from the file directly (libgit2 does not export its reader).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>
#include <openssl/evp.h>

#include "graph.h"
#include "error.h"
#include "safefs.h"
#include "lineblame.h"
#include "treepaths.h"
#include "util.h"

#define GEN_INF UINT32_MAX	/* not in the commit-graph: newer than all that are */
#define CG_NONE 0x70000000u
#define CG_EXTRA 0x80000000u
#define CG_LAST 0x80000000u
#define HIDDEN_MAX 2000000	/* commits walked below the bottoms, at most */
#define GIT_GRAPH_MAX (512 << 20)	/* a larger git commit-graph is not read (9M commits) */

/* ---- the commit-graph file ---- */

struct cgraph {
	struct buf data;
	uint32_t n;
	const unsigned char *fanout, *oids, *cdat, *edges;
	size_t nedges;
	/* which file this is, so a rewritten one is read again */
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

static struct cgraph *cg_cache;

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get_be64(const unsigned char *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

static void cgraph_free(struct cgraph *g)
{
	if (!g)
		return;
	buf_release(&g->data);
	free(g->path);
	free(g);
}

/* The chunks of a version 1 file with SHA-1 ids; 0 or -1 when malformed. */
static int cgraph_parse(struct cgraph *g)
{
	const unsigned char *p = (const unsigned char *)g->data.ptr;
	size_t len = g->data.len, i, nchunks;
	uint64_t oids_len = 0, cdat_len = 0;

	if (len < 8 + 12 + 20 || memcmp(p, "CGPH", 4) || p[4] != 1 || p[5] != 1)
		return -1;
	nchunks = p[6];
	if (8 + (nchunks + 1) * 12 > len - 20)
		return -1;
	for (i = 0; i < nchunks; i++) {
		const unsigned char *c = p + 8 + i * 12;
		uint64_t off = get_be64(c + 4), end = get_be64(c + 16);

		if (off > end || end > len - 20)
			return -1;
		if (!memcmp(c, "OIDF", 4) && end - off == 256 * 4) {
			g->fanout = p + off;
		} else if (!memcmp(c, "OIDL", 4)) {
			g->oids = p + off;
			oids_len = end - off;
		} else if (!memcmp(c, "CDAT", 4)) {
			g->cdat = p + off;
			cdat_len = end - off;
		}
		else if (!memcmp(c, "EDGE", 4)) {
			g->edges = p + off;
			g->nedges = (size_t)(end - off) / 4;
		}
	}
	if (!g->fanout || !g->oids || !g->cdat)
		return -1;
	g->n = get_be32(g->fanout + 255 * 4);
	if (oids_len < (uint64_t)g->n * 20 || cdat_len < (uint64_t)g->n * 36)
		return -1;
	return 0;
}

static int cgraph_find(const struct cgraph *g, const git_oid *id, uint32_t *pos)
{
	uint32_t lo = id->id[0] ? get_be32(g->fanout + (id->id[0] - 1) * 4) : 0;
	uint32_t hi = get_be32(g->fanout + id->id[0] * 4);
	size_t at;

	if (hi > g->n || !sorted_ids_find(g->oids, 20, lo, hi, id->id, &at))
		return 0;
	*pos = (uint32_t)at;
	return 1;
}

/* ---- the record of what tide wrote ---- */

struct graph_paths {
	char *info, *graph, *side;
	char *git_graph, *git_chain;	/* where git (and libgit2) look */
};

static void graph_paths_release(struct graph_paths *p)
{
	free(p->info);
	free(p->graph);
	free(p->side);
	free(p->git_graph);
	free(p->git_chain);
}

static int graph_paths_of(struct graph_paths *out, git_repository *repo)
{
	git_buf objects = GIT_BUF_INIT;

	memset(out, 0, sizeof(*out));
	if (git_repository_item_path(&objects, repo, GIT_REPOSITORY_ITEM_OBJECTS) < 0)
		return tide_error_git(TIDE_ERROR, "cannot find the objects directory");
	out->info = path_join(objects.ptr, "info");
	out->graph = path_join(out->info, "tide-commit-graph");
	out->side = path_join(out->info, "tide-commit-graph.check");
	out->git_graph = path_join(out->info, "commit-graph");
	out->git_chain = path_join(out->info, "commit-graphs");
	git_buf_dispose(&objects);
	return 0;
}

static void hash_hex(char out[GIT_OID_HEXSZ + 1], const void *data, size_t len)
{
	git_oid id;

	if (git_odb_hash(&id, data, len, GIT_OBJECT_BLOB) < 0)
		memset(&id, 0, sizeof(id));
	git_oid_tostr(out, GIT_OID_HEXSZ + 1, &id);
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A hash of every ref and what it points at: the graph is stale when it changes. */
static int refs_digest(char out[GIT_OID_HEXSZ + 1], git_repository *repo)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	char **lines = NULL;
	size_t n = 0, alloc = 0, i;
	struct buf all = BUF_INIT;

	if (git_reference_iterator_new(&it, repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot list refs");
	while (git_reference_next(&ref, it) == 0) {
		git_reference *res = NULL;

		if (git_reference_resolve(&res, ref) == 0) {
			array_grow(&lines, &alloc, n + 1, sizeof(*lines));
			lines[n++] = xasprintf("%s %s", git_reference_name(ref),
					       git_oid_tostr_s(git_reference_target(res)));
		}
		git_reference_free(res);
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	git_error_clear();
	qsort(lines, n, sizeof(*lines), line_cmp);
	for (i = 0; i < n; i++) {
		buf_printf(&all, "%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
	hash_hex(out, all.ptr ? all.ptr : "", all.len);
	buf_release(&all);
	return 0;
}

/*
 * The side file is four short lines; anything bigger was not written by
 * tide.  A graph of a million commits is about 40 MB: one claiming more
 * than GRAPH_MAX is not read.
 */
#define GRAPH_SIDE_MAX 4096
#define GRAPH_MAX (1ULL << 30)

/*
 * Is the file at p->graph the one tide wrote (its hash and size in
 * p->side)?  0 yes (refs_out set to the digest recorded, data (may be
 * NULL) to the file), 1 no, why set.  Both are read as untrusted input
 * (src/safefs.h): a link, a FIFO or a device is not the file, and the
 * graph is refused by its size before it is read, never read whole to
 * be hashed (a link to /dev/zero took 14.5 GB).
 */
static int graph_check(const struct graph_paths *p, char refs_out[GIT_OID_HEXSZ + 1],
		       const char **why, struct buf *data)
{
	struct buf side = BUF_INIT, file = BUF_INIT;
	char hash[GIT_OID_HEXSZ + 1], want[GIT_OID_HEXSZ + 1], refs[GIT_OID_HEXSZ + 1];
	unsigned long long size;
	struct stat st;
	int bad = 1;

	*why = "not written by tide";
	if (safefs_read_file(&side, p->side, GRAPH_SIDE_MAX) < 0 ||
	    sscanf(buf_cstr(&side), "tide commit-graph 1\nhash %40s\nsize %llu\nrefs %40s\n",
		   want, &size, refs) != 3 || size > GRAPH_MAX)
		goto done;
	if (lstat(p->graph, &st) == 0 && !S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		goto done;
	}
	if (lstat(p->graph, &st) == 0 && (unsigned long long)st.st_size != size) {
		*why = (unsigned long long)st.st_size < size ? "truncated" : "changed on disk";
		goto done;
	}
	if (safefs_read_file(&file, p->graph, (size_t)size) < 0) {
		*why = "unreadable";
		goto done;
	}
	if (file.len != size) {
		*why = file.len < size ? "truncated" : "changed on disk";
		goto done;
	}
	hash_hex(hash, file.ptr, file.len);
	if (strcmp(hash, want)) {
		*why = "changed on disk";
		goto done;
	}
	memcpy(refs_out, refs, sizeof(refs));
	if (data) {
		buf_release(data);
		*data = file;
		file = (struct buf)BUF_INIT;
	}
	bad = 0;
done:
	tide_error_clear();
	buf_release(&side);
	buf_release(&file);
	return bad;
}

/* The cached file when it is still the one at path. */
static struct cgraph *cgraph_cached(const char *path, const struct stat *st)
{
	if (cg_cache && !strcmp(cg_cache->path, path) && cg_cache->dev == st->st_dev &&
	    cg_cache->ino == st->st_ino && cg_cache->size == st->st_size &&
	    cg_cache->mtime.tv_sec == st->st_mtim.tv_sec &&
	    cg_cache->mtime.tv_nsec == st->st_mtim.tv_nsec)
		return cg_cache;
	return NULL;
}

/*
 * The file's bytes (data, taken over; read once, so the bytes checked are
 * the bytes parsed) parsed into the cache as the file at path.
 */
static struct cgraph *cgraph_adopt(struct buf *data, const char *path, const struct stat *st)
{
	struct cgraph *g = xcalloc(1, sizeof(*g));

	g->data = *data;
	*data = (struct buf)BUF_INIT;
	if (cgraph_parse(g) < 0) {
		cgraph_free(g);
		return NULL;
	}
	g->path = xstrdup(path);
	g->dev = st->st_dev;
	g->ino = st->st_ino;
	g->size = st->st_size;
	g->mtime = st->st_mtim;
	cgraph_free(cg_cache);
	cg_cache = g;
	return g;
}

/* The verified commit-graph of repo, or NULL; read once per file. */
static const struct cgraph *cgraph_get(git_repository *repo)
{
	struct graph_paths p;
	struct cgraph *g = NULL;
	struct buf data = BUF_INIT;
	char refs[GIT_OID_HEXSZ + 1];
	const char *why;
	struct stat st;

	if (graph_paths_of(&p, repo) < 0 || lstat(p.graph, &st) < 0 || !S_ISREG(st.st_mode))
		goto done;
	if (!(g = cgraph_cached(p.graph, &st)) && graph_check(&p, refs, &why, &data) == 0)
		g = cgraph_adopt(&data, p.graph, &st);
done:
	tide_error_clear();
	buf_release(&data);
	graph_paths_release(&p);
	return g;
}

/*
 * git's single-file commit-graph for a repository's objects/info
 * directory: its own, else the first of its alternates' (followed as
 * git follows them, at most GIT_GRAPH_ALTERNATES deep), as git reads an
 * alternate's graph for the commits it holds: a --shared clone has none
 * of its own.  NULL when there is none.
 */
#define GIT_GRAPH_ALTERNATES 5

static char *git_graph_path(const char *info, int depth)
{
	char *path = path_join(info, "commit-graph"), *alts, *line, *save = NULL;
	struct buf text = BUF_INIT;
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		return path;
	free(path);
	path = NULL;
	alts = path_join(info, "alternates");
	if (depth >= GIT_GRAPH_ALTERNATES || safefs_read_file(&text, alts, 1 << 16) < 0 ||
	    !text.len)
		goto done;
	for (line = strtok_r(text.ptr, "\n", &save); line && !path;
	     line = strtok_r(NULL, "\n", &save)) {
		char *objects, *alt_info;

		if (!*str_rtrim(line) || *line == '#')
			continue;
		/* relative lines are relative to this objects directory (info/..) */
		if (*line == '/') {
			objects = xstrdup(line);
		} else {
			char *up = path_join(info, "..");

			objects = path_join(up, line);
			free(up);
		}
		alt_info = path_join(objects, "info");
		path = git_graph_path(alt_info, depth + 1);
		free(alt_info);
		free(objects);
	}
done:
	tide_error_clear();
	buf_release(&text);
	free(alts);
	return path;
}

/*
 * For reading history (merge bases, the attribution walks): tide's file,
 * or in a repository without one (a user's, for tide merge-tree) git's
 * own single-file commit-graph, trusted as git trusts it: the generation
 * numbers of its CDAT chunk (topological levels, in both of git's
 * versions) are what the walks need.  A tide file that fails its check
 * is no reason to read git's; a workspace has none of git's anyway
 * (graph_refresh() removes it).  Without either, every commit is parsed.
 */
static const struct cgraph *cgraph_get_for_reading(git_repository *repo)
{
	const struct cgraph *g = cgraph_get(repo);
	struct graph_paths p;
	struct buf data = BUF_INIT;
	struct stat st;

	if (g || graph_paths_of(&p, repo) < 0) {
		tide_error_clear();
		return g;
	}
	if (lstat(p.graph, &st) < 0) {
		char *path = git_graph_path(p.info, 0);

		if (path && lstat(path, &st) == 0 && st.st_size <= GIT_GRAPH_MAX &&
		    !(g = cgraph_cached(path, &st)) &&
		    safefs_read_file(&data, path, GIT_GRAPH_MAX) == 0)
			g = cgraph_adopt(&data, path, &st);
		free(path);
	}
	tide_error_clear();
	buf_release(&data);
	graph_paths_release(&p);
	return g;
}


/* ---- the walk ---- */

#define F_PARSED 1u
#define F_QUEUED 2u	/* pushed once; never again */
#define F_HIDDEN 4u	/* an ancestor of a bottom (or one) */
#define F_SIG 8u
#define F_CAND 16u
#define F_DONE 32u	/* popped */
#define F_GEN 1024u	/* gen is the exact generation number */

struct node {
	git_oid id, tree;
	uint32_t gen;
	int64_t time;
	uint32_t parents, nparents;	/* into walk.parents */
	uint32_t sig;			/* into walk.sigs: npaths entries, once F_SIG */
	int owner;
	unsigned flags;
	uint32_t inq;			/* merge bases: entries in the queue */
	uint32_t epoch;			/* merge bases: 1 once mb_reduce() walked it */
	uint32_t lines;			/* line walk: into walk.lines + 1, 0 none */
};

/* A path's entry in a commit's tree (mode 0: none). */
#define pent tree_path_entry

struct walk {
	git_repository *repo;
	git_odb *odb;
	const struct cgraph *g;
	const struct graph_walk *w;
	struct node *nodes;
	size_t n, alloc;
	uint32_t *table;		/* node index + 1; 0 empty */
	size_t tsize;
	uint32_t *parents;
	size_t nparents, parents_alloc;
	struct tree_paths *tp;		/* the walk's paths, read in one pass per tree */
	struct pent **sigs;
	size_t nsigs, sigs_alloc;
	uint32_t *heap;
	size_t nheap, heap_alloc;
	size_t queued_interesting;
	uint32_t *cand;
	size_t ncand, cand_alloc;
	unsigned char *changed;		/* npaths flags per candidate */
	size_t changed_alloc;
	size_t *per_path;		/* candidates found changing each path */
	size_t paths_full;		/* paths with max_per_path of them */
	int full;			/* follow every parent of a merge */
	int stop;			/* a budget is spent: end the walk */
	/* graph_walk_lines(): each node's lines still to trace, npaths sets per slot */
	struct line_ranges **lines;
	size_t nlines, lines_alloc;
	unsigned char *lchanged;	/* the node being done: paths whose lines it changed */
	git_blob *blobs[8];		/* the versions read last: a parent's is its child's next */
	size_t nextblob;
	size_t diffed;			/* bytes of text diffed line by line */
	int no_cache;			/* writing the graph: keep no extras */
	struct graph_walk_stats stats;
};

static _Thread_local struct graph_walk_stats last_stats;

void graph_walk_last_stats(struct graph_walk_stats *out)
{
	*out = last_stats;
}

static size_t oid_hash(const git_oid *id)
{
	size_t h;

	memcpy(&h, id->id, sizeof(h));
	return h;
}

static void table_grow(struct walk *k)
{
	size_t size = k->tsize ? k->tsize * 2 : 1024, i;
	uint32_t *t = xcalloc(size, sizeof(*t));

	for (i = 0; i < k->n; i++) {
		size_t h = oid_hash(&k->nodes[i].id) & (size - 1);

		while (t[h])
			h = (h + 1) & (size - 1);
		t[h] = (uint32_t)i + 1;
	}
	free(k->table);
	k->table = t;
	k->tsize = size;
}

static uint32_t node_get(struct walk *k, const git_oid *id)
{
	size_t h;
	struct node *n;

	if ((k->n + 1) * 2 > k->tsize)
		table_grow(k);
	for (h = oid_hash(id) & (k->tsize - 1); k->table[h]; h = (h + 1) & (k->tsize - 1))
		if (git_oid_equal(&k->nodes[k->table[h] - 1].id, id))
			return k->table[h] - 1;
	array_grow(&k->nodes, &k->alloc, k->n + 1, sizeof(*k->nodes));
	n = &k->nodes[k->n];
	memset(n, 0, sizeof(*n));
	git_oid_cpy(&n->id, id);
	n->owner = -1;
	k->table[h] = (uint32_t)k->n + 1;
	return (uint32_t)k->n++;
}

static void parent_add(struct walk *k, uint32_t ni, const git_oid *pid)
{
	uint32_t pi = node_get(k, pid);

	array_grow(&k->parents, &k->parents_alloc, k->nparents + 1, sizeof(*k->parents));
	k->parents[k->nparents++] = pi;
	k->nodes[ni].nparents++;
}

static int parse_from_graph(struct walk *k, uint32_t ni, uint32_t pos)
{
	const struct cgraph *g = k->g;
	const unsigned char *d = g->cdat + (size_t)pos * 36;
	uint32_t p1 = get_be32(d + 20), p2 = get_be32(d + 24);
	uint32_t hi = get_be32(d + 28), lo = get_be32(d + 32);
	git_oid pid;

	git_oid_fromraw(&k->nodes[ni].tree, d);
	k->nodes[ni].gen = hi >> 2;
	k->nodes[ni].time = (int64_t)(((uint64_t)(hi & 3) << 32) | lo);
	k->nodes[ni].parents = (uint32_t)k->nparents;
	if (p1 != CG_NONE) {
		if (p1 >= g->n)
			return -1;
		git_oid_fromraw(&pid, g->oids + (size_t)p1 * 20);
		parent_add(k, ni, &pid);
	}
	if (p2 == CG_NONE)
		return 0;
	if (!(p2 & CG_EXTRA)) {
		if (p2 >= g->n)
			return -1;
		git_oid_fromraw(&pid, g->oids + (size_t)p2 * 20);
		parent_add(k, ni, &pid);
		return 0;
	}
	for (p2 &= ~CG_EXTRA; p2 < g->nedges; p2++) {
		uint32_t e = get_be32(g->edges + (size_t)p2 * 4);

		if ((e & ~CG_LAST) >= g->n)
			return -1;
		git_oid_fromraw(&pid, g->oids + (size_t)(e & ~CG_LAST) * 20);
		parent_add(k, ni, &pid);
		if (e & CG_LAST)
			return 0;
	}
	return -1;
}

/*
 * The tree, parents and committer time from the raw commit, without
 * libgit2's full parse or its object cache (a first commit-graph of a
 * deep history reads every commit once).  -1 when it does not look like
 * a commit header; the caller then asks git_commit_lookup().
 */
static int node_parse_raw(struct walk *k, uint32_t ni)
{
	git_odb_object *obj = NULL;
	const char *p, *end, *nl, *gt;
	git_oid id;
	int have_tree = 0, rc = -1;

	if (git_odb_read(&obj, k->odb, &k->nodes[ni].id) < 0 ||
	    git_odb_object_type(obj) != GIT_OBJECT_COMMIT)
		goto done;
	p = git_odb_object_data(obj);
	end = p + git_odb_object_size(obj);
	k->nodes[ni].nparents = 0;
	k->nodes[ni].parents = (uint32_t)k->nparents;
	k->nodes[ni].gen = GEN_INF;
	for (; p < end && *p != '\n'; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			goto done;
		if (nl - p == 45 && !memcmp(p, "tree ", 5)) {
			if (git_oid_fromstrn(&k->nodes[ni].tree, p + 5, 40) < 0)
				goto done;
			have_tree = 1;
		} else if (nl - p == 47 && !memcmp(p, "parent ", 7)) {
			if (git_oid_fromstrn(&id, p + 7, 40) < 0)
				goto done;
			parent_add(k, ni, &id);
		} else if (nl - p > 10 && !memcmp(p, "committer ", 10)) {
			for (gt = nl; gt > p && gt[-1] != '>'; gt--)
				;
			if (gt == p)
				goto done;
			k->nodes[ni].time = strtoll(gt, NULL, 10);
		}
	}
	rc = have_tree ? 0 : -1;
done:
	git_error_clear();
	git_odb_object_free(obj);
	return rc;
}

/*
 * Commits outside the commit-graph (today's merges, mostly) as parsed
 * once in this process, with their generation numbers once known: each
 * tree's merge-base walk passes every merge of the day before it.
 * Commits never change, nor their generation numbers.
 */
struct extra {
	git_oid id, tree;
	int64_t time;
	uint32_t gen;			/* 0: not known yet */
	uint32_t nparents;
	git_oid *parents;
};

static struct extra *extras;
static size_t nextras, extras_alloc;
static uint32_t *extra_table;
static size_t extra_tsize;

static struct extra *extra_find(const git_oid *id)
{
	size_t h;

	if (!extra_tsize)
		return NULL;
	for (h = oid_hash(id) & (extra_tsize - 1); extra_table[h]; h = (h + 1) & (extra_tsize - 1))
		if (git_oid_equal(&extras[extra_table[h] - 1].id, id))
			return &extras[extra_table[h] - 1];
	return NULL;
}

static void extra_add(const struct walk *k, uint32_t ni)
{
	const struct node *n = &k->nodes[ni];
	struct extra *e;
	size_t h, i;

	if ((nextras + 1) * 2 > extra_tsize) {
		size_t size = extra_tsize ? extra_tsize * 2 : 1024;

		free(extra_table);
		extra_table = xcalloc(size, sizeof(*extra_table));
		extra_tsize = size;
		for (i = 0; i < nextras; i++) {
			for (h = oid_hash(&extras[i].id) & (size - 1); extra_table[h];
			     h = (h + 1) & (size - 1))
				;
			extra_table[h] = (uint32_t)i + 1;
		}
	}
	array_grow(&extras, &extras_alloc, nextras + 1, sizeof(*extras));
	e = &extras[nextras];
	e->id = n->id;
	e->tree = n->tree;
	e->time = n->time;
	e->gen = 0;
	e->nparents = n->nparents;
	e->parents = xcalloc(n->nparents ? n->nparents : 1, sizeof(*e->parents));
	for (i = 0; i < n->nparents; i++)
		e->parents[i] = k->nodes[k->parents[n->parents + i]].id;
	for (h = oid_hash(&e->id) & (extra_tsize - 1); extra_table[h]; h = (h + 1) & (extra_tsize - 1))
		;
	extra_table[h] = (uint32_t)nextras++ + 1;
}

static int node_parse_commit(struct walk *k, uint32_t ni);

static int node_parse_commit_once(struct walk *k, uint32_t ni)
{
	if (k->nodes[ni].flags & F_PARSED)
		return 0;
	k->nodes[ni].flags |= F_PARSED;
	return node_parse_commit(k, ni);
}

static int node_parse_commit(struct walk *k, uint32_t ni)
{
	git_commit *c = NULL;
	uint32_t pos;
	unsigned i;
	const struct extra *e;

	if (k->g && cgraph_find(k->g, &k->nodes[ni].id, &pos)) {
		k->stats.from_graph++;
		k->nodes[ni].nparents = 0;
		k->nodes[ni].flags |= F_GEN;
		if (parse_from_graph(k, ni, pos) == 0)
			return 0;
		k->nodes[ni].flags &= ~F_GEN;
		k->nparents = k->nodes[ni].parents;	/* a bad entry: read the commit */
	}
	if ((e = extra_find(&k->nodes[ni].id))) {
		k->nodes[ni].tree = e->tree;
		k->nodes[ni].time = e->time;
		k->nodes[ni].gen = e->gen ? e->gen : GEN_INF;
		if (e->gen)
			k->nodes[ni].flags |= F_GEN;
		k->nodes[ni].nparents = 0;
		k->nodes[ni].parents = (uint32_t)k->nparents;
		for (i = 0; i < e->nparents; i++)
			parent_add(k, ni, &extras[e - extras].parents[i]);
		return 0;
	}
	if (k->odb && node_parse_raw(k, ni) == 0)
		goto parsed;
	k->nparents = k->nodes[ni].parents;
	if (git_commit_lookup(&c, k->repo, &k->nodes[ni].id) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read commit %s",
				      git_oid_tostr_s(&k->nodes[ni].id));
	k->nodes[ni].nparents = 0;
	k->nodes[ni].gen = GEN_INF;
	k->nodes[ni].time = git_commit_time(c);
	git_oid_cpy(&k->nodes[ni].tree, git_commit_tree_id(c));
	k->nodes[ni].parents = (uint32_t)k->nparents;
	for (i = 0; i < git_commit_parentcount(c); i++)
		parent_add(k, ni, git_commit_parent_id(c, i));
	git_commit_free(c);
parsed:
	if (!k->no_cache)
		extra_add(k, ni);
	return 0;
}

/*
 * With a commit-graph, a commit outside it gets its exact generation
 * number (1 + its parents' largest): walks ordered by generation then
 * never see a parent before its child, however the clocks went.  Only
 * commits outside the graph are walked for it; without a graph every
 * commit stays GEN_INF, ordered by time.
 */
static int node_gen(struct walk *k, uint32_t ni)
{
	uint32_t *stack = NULL, i;
	size_t n = 0, alloc = 0;
	int error = 0;

	if (!k->g || (k->nodes[ni].flags & F_GEN))
		return 0;
	array_grow(&stack, &alloc, 1, sizeof(*stack));
	stack[n++] = ni;
	while (n && !error) {
		uint32_t t = stack[n - 1], max = 0, pending = 0;
		struct extra *e;

		for (i = 0; i < k->nodes[t].nparents && !error; i++) {
			uint32_t pi = k->parents[k->nodes[t].parents + i];

			if ((error = node_parse_commit_once(k, pi)) < 0)
				break;
			if (!(k->nodes[pi].flags & F_GEN)) {
				array_grow(&stack, &alloc, n + 1, sizeof(*stack));
				stack[n++] = pi;
				pending = 1;
				break;
			}
			if (k->nodes[pi].gen > max)
				max = k->nodes[pi].gen;
		}
		if (pending || error)
			continue;
		k->nodes[t].gen = max + 1 >= 0x3FFFFFFF ? 0x3FFFFFFF : max + 1;
		k->nodes[t].flags |= F_GEN;
		if ((e = extra_find(&k->nodes[t].id)))
			e->gen = k->nodes[t].gen;
		n--;
	}
	free(stack);
	return error;
}

static int node_parse(struct walk *k, uint32_t ni)
{
	int error;

	if ((error = node_parse_commit_once(k, ni)) < 0)
		return error;
	return node_gen(k, ni);
}

static void walk_free(struct walk *k);

void graph_warm(git_repository *repo)
{
	cgraph_get(repo);
}

void graph_remember(git_repository *repo, const git_oid *commit)
{
	struct walk k;

	memset(&k, 0, sizeof(k));
	k.repo = repo;
	k.g = cgraph_get(repo);
	if (git_repository_odb(&k.odb, repo) < 0 || node_parse(&k, node_get(&k, commit)) < 0)
		tide_error_clear();
	git_error_clear();
	walk_free(&k);
}

/* The entries at the walk's paths in a node's tree. */
static int node_sig(struct walk *k, uint32_t ni, const struct pent **out)
{
	struct pent *sig;
	int error;

	if ((error = node_parse(k, ni)) < 0)
		return error;
	if (!(k->nodes[ni].flags & F_SIG)) {
		if (!k->tp)
			k->tp = tree_paths_new(k->w->paths, k->w->npaths);
		sig = xcalloc(k->w->npaths ? k->w->npaths : 1, sizeof(*sig));
		if ((error = tree_paths_read(sig, k->tp, k->repo, &k->nodes[ni].tree)) < 0) {
			free(sig);
			return error;
		}
		array_grow(&k->sigs, &k->sigs_alloc, k->nsigs + 1, sizeof(*k->sigs));
		k->nodes[ni].sig = (uint32_t)k->nsigs;
		k->sigs[k->nsigs++] = sig;
		k->nodes[ni].flags |= F_SIG;
	}
	*out = k->sigs[k->nodes[ni].sig];
	return 0;
}

/*
 * A node's entries are read for its children and for itself: once it is
 * done (its children came before it), they can go.  Without exact
 * generation numbers a late child reads them again.
 */
static void node_sig_drop(struct walk *k, uint32_t ni)
{
	if (!(k->nodes[ni].flags & F_SIG))
		return;
	free(k->sigs[k->nodes[ni].sig]);
	k->sigs[k->nodes[ni].sig] = NULL;
	k->nodes[ni].flags &= ~F_SIG;
}

static int pent_same(const struct pent *a, const struct pent *b)
{
	return a->mode == b->mode && (!a->mode || git_oid_equal(&a->id, &b->id));
}

/* Heap order: higher generation first (children before parents), then newer. */
static int node_before(const struct walk *k, uint32_t a, uint32_t b)
{
	const struct node *x = &k->nodes[a], *y = &k->nodes[b];

	if (x->gen != y->gen)
		return x->gen > y->gen;
	if (x->time != y->time)
		return x->time > y->time;
	return a < b;	/* found first: a child is found before its parents */
}

static void heap_push(struct walk *k, uint32_t ni)
{
	size_t i;

	array_grow(&k->heap, &k->heap_alloc, k->nheap + 1, sizeof(*k->heap));
	for (i = k->nheap++; i > 0 && node_before(k, ni, k->heap[(i - 1) / 2]); i = (i - 1) / 2)
		k->heap[i] = k->heap[(i - 1) / 2];
	k->heap[i] = ni;
}

static uint32_t heap_pop(struct walk *k)
{
	uint32_t top = k->heap[0], last = k->heap[--k->nheap];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < k->nheap) {
		if (c + 1 < k->nheap && node_before(k, k->heap[c + 1], k->heap[c]))
			c++;
		if (!node_before(k, k->heap[c], last))
			break;
		k->heap[i] = k->heap[c];
		i = c;
	}
	if (k->nheap)
		k->heap[i] = last;
	return top;
}

/* Queue a node (parsed, so that it is ordered by its generation). */
static int enqueue(struct walk *k, uint32_t ni)
{
	int error;

	if (k->nodes[ni].flags & F_QUEUED)
		return 0;
	if ((error = node_parse(k, ni)) < 0)
		return error;
	k->nodes[ni].flags |= F_QUEUED;
	if (!(k->nodes[ni].flags & F_HIDDEN))
		k->queued_interesting++;
	heap_push(k, ni);
	return 0;
}

static void hide(struct walk *k, uint32_t ni)
{
	struct node *n = &k->nodes[ni];

	if (n->flags & F_HIDDEN)
		return;
	n->flags |= F_HIDDEN;
	if ((n->flags & F_QUEUED) && !(n->flags & F_DONE) && k->queued_interesting)
		k->queued_interesting--;	/* queued as interesting, still queued */
}

static int walk_hidden(struct walk *k, uint32_t ni)
{
	uint32_t i;
	int error;

	k->stats.hidden++;
	for (i = 0; i < k->nodes[ni].nparents; i++) {
		uint32_t pi = k->parents[k->nodes[ni].parents + i];

		if (k->nodes[pi].flags & F_QUEUED)
			hide(k, pi);	/* popped already if it was interesting: cand filtered */
		else {
			k->nodes[pi].flags |= F_HIDDEN;
			if ((error = enqueue(k, pi)) < 0)
				return error;
		}
	}
	return 0;
}

static void give_owner(struct walk *k, uint32_t from, uint32_t to)
{
	int o = k->nodes[from].owner;

	if (o >= 0 && (k->nodes[to].owner < 0 || o < k->nodes[to].owner))
		k->nodes[to].owner = o;
}

/* A commit to pass to the callback, with the paths it changed. */
static void cand_push(struct walk *k, uint32_t ni, const unsigned char *changed)
{
	size_t i, np = k->w->npaths;

	array_grow(&k->cand, &k->cand_alloc, k->ncand + 1, sizeof(*k->cand));
	array_grow(&k->changed, &k->changed_alloc, (k->ncand + 1) * np, 1);
	memcpy(k->changed + k->ncand * np, changed, np);
	for (i = 0; i < np; i++)
		if (k->changed[k->ncand * np + i] && k->per_path[i]++ + 1 == k->w->max_per_path)
			k->paths_full++;
	k->cand[k->ncand++] = ni;
	k->nodes[ni].flags |= F_CAND;
}

static void cand_add(struct walk *k, uint32_t ni, const struct pent *mine, const struct pent *par)
{
	size_t i, np = k->w->npaths;
	unsigned char *changed = xcalloc(np ? np : 1, 1);

	for (i = 0; i < np; i++)
		changed[i] = par ? !pent_same(&mine[i], &par[i]) : mine[i].mode != 0;
	cand_push(k, ni, changed);
	free(changed);
}

/* An interesting commit: note it if it changed the paths, queue the parents to follow. */
static int walk_interesting(struct walk *k, uint32_t ni)
{
	const struct pent *mine, *ps = NULL;
	uint32_t i, np, first;
	size_t p;
	int error, same;

	k->stats.examined++;
	if ((error = node_sig(k, ni, &mine)) < 0)
		return error;
	np = k->nodes[ni].nparents;
	first = k->nodes[ni].parents;
	if (np == 0) {
		for (p = 0; p < k->w->npaths && !mine[p].mode; p++)
			;
		if (p < k->w->npaths)
			cand_add(k, ni, mine, NULL);
		return 0;
	}
	for (i = 0; i < np; i++) {
		uint32_t pi = k->parents[first + i];

		if ((error = node_parse(k, pi)) < 0)
			return error;
		if (git_oid_equal(&k->nodes[pi].tree, &k->nodes[ni].tree)) {
			same = 1;
		} else {
			if ((error = node_sig(k, pi, &ps)) < 0)
				return error;
			mine = k->sigs[k->nodes[ni].sig];
			for (same = 1, p = 0; p < k->w->npaths && same; p++)
				same = pent_same(&mine[p], &ps[p]);
		}
		if (np == 1 && !same)
			cand_add(k, ni, mine, ps);
		if (same && np > 1 && !k->full) {
			/* follow the parent it took the paths from, only */
			give_owner(k, ni, pi);
			return enqueue(k, pi);
		}
	}
	for (i = 0; i < np; i++) {
		uint32_t pi = k->parents[first + i];

		give_owner(k, ni, pi);
		if ((error = enqueue(k, pi)) < 0)
			return error;
	}
	return 0;
}

static int cand_cmp_walk(const struct walk *k, uint32_t a, uint32_t b)
{
	const struct node *x = &k->nodes[a], *y = &k->nodes[b];

	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Candidates newest first (insertion sort: they are nearly in order). */
static void cand_sort(struct walk *k, size_t *order)
{
	size_t i, j;

	for (i = 0; i < k->ncand; i++) {
		size_t v = i;

		for (j = i; j > 0 && cand_cmp_walk(k, k->cand[order[j - 1]], k->cand[v]) > 0; j--)
			order[j] = order[j - 1];
		order[j] = v;
	}
}

/* ---- the line walk (graph_walk_lines()) ---- */

#define LINES_MAX_BLOB (16u << 20)	/* a larger version is not traced line by line */
/*
 * GRAPH_LINES_DIFF_BUDGET: text diffed per walk, at most; past it the
 * walk stops and says so (GRAPH_LINES_BUDGET).  A conflict in files every
 * commit rewrites (a translation, regenerated whole) on a side of
 * thousands of commits would otherwise diff each version of them.
 */

/* The line sets of node ni (npaths of them), empty ones made when it has none. */
static struct line_ranges *lines_of(struct walk *k, uint32_t ni)
{
	if (!k->nodes[ni].lines) {
		array_grow(&k->lines, &k->lines_alloc, k->nlines + 1, sizeof(*k->lines));
		k->lines[k->nlines++] = xcalloc(k->w->npaths ? k->w->npaths : 1,
						sizeof(struct line_ranges));
		k->nodes[ni].lines = (uint32_t)k->nlines;
	}
	return k->lines[k->nodes[ni].lines - 1];
}

static void lines_drop(struct walk *k, uint32_t ni)
{
	struct line_ranges *l;
	size_t p;

	if (!k->nodes[ni].lines)
		return;
	l = k->lines[k->nodes[ni].lines - 1];
	for (p = 0; p < k->w->npaths; p++)
		line_ranges_release(&l[p]);
	free(l);
	k->lines[k->nodes[ni].lines - 1] = NULL;
	k->nodes[ni].lines = 0;
}

/* Hand path p's lines r, as they are in parent pi, to pi. */
static int lines_pass(struct walk *k, uint32_t ni, uint32_t pi, size_t p,
		      const struct line_ranges *r)
{
	if (line_ranges_empty(r) || (k->nodes[pi].flags & F_DONE))
		return 0;
	line_ranges_union(&lines_of(k, pi)[p], r);
	give_owner(k, ni, pi);
	return enqueue(k, pi);
}

/* A blob, from the few read last when it is one of them. */
static int blob_get(git_blob **out, struct walk *k, const git_oid *id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(k->blobs); i++)
		if (k->blobs[i] && git_oid_equal(git_blob_id(k->blobs[i]), id))
			return git_object_dup((git_object **)out, (git_object *)k->blobs[i]);
	if (git_blob_lookup(out, k->repo, id) < 0)
		return -1;
	git_blob_free(k->blobs[k->nextblob]);
	k->blobs[k->nextblob] = NULL;
	if (git_object_dup((git_object **)&k->blobs[k->nextblob], (git_object *)*out) == 0)
		k->nextblob = (k->nextblob + 1) % ARRAY_SIZE(k->blobs);
	return 0;
}

/* One version of a file as text: none is empty; 1 when it cannot be traced by line. */
static int version_load(git_blob **blob, const char **text, size_t *len, struct walk *k,
			const struct pent *e)
{
	git_object_t type;
	size_t size;

	*blob = NULL;
	*text = "";
	*len = 0;
	if (!e->mode || e->mode == GIT_FILEMODE_TREE)
		return 0;
	/* the size from the header: a huge version is not read to be refused */
	if (e->mode == GIT_FILEMODE_COMMIT || git_odb_read_header(&size, &type, k->odb, &e->id) < 0 ||
	    size > LINES_MAX_BLOB || blob_get(blob, k, &e->id) < 0) {
		git_error_clear();
		return 1;
	}
	if (git_blob_rawsize(*blob) > LINES_MAX_BLOB || git_blob_is_binary(*blob))
		return 1;
	*text = git_blob_rawcontent(*blob);
	*len = (size_t)git_blob_rawsize(*blob);
	return 0;
}

/*
 * git log -L's step over one commit for path p: a parent with the same
 * lines there takes them all (the first such parent of a merge), and the
 * commit did not change them; else the commit changed them, and each
 * parent gets the lines they came from.  *bad when a version cannot be
 * read as text.
 */
static int lines_step(struct walk *k, uint32_t ni, size_t p, const struct pent *me,
		      unsigned char *changed, int *bad)
{
	const struct line_ranges *r = &lines_of(k, ni)[p];
	uint32_t np = k->nodes[ni].nparents, first = k->nodes[ni].parents, i, took = np;
	struct line_ranges *from = xcalloc(np, sizeof(*from));
	git_blob *mine = NULL, *theirs = NULL;
	const char *mtext = NULL, *ptext;
	size_t mlen = 0, plen;
	const struct pent *ps;
	struct line_diff d;
	int error = 0;

	for (i = 0; i < np && took == np; i++) {
		if ((error = node_sig(k, k->parents[first + i], &ps)) < 0)
			goto done;
		if (pent_same(&me[p], &ps[p])) {
			line_ranges_union(&from[i], r);
			took = i;
			break;
		}
		if ((!mtext && version_load(&mine, &mtext, &mlen, k, &me[p])) ||
		    version_load(&theirs, &ptext, &plen, k, &ps[p])) {
			*bad = 1;
			goto done;
		}
		if (!line_ranges_map_quick(&from[i], r, ptext, plen, mtext, mlen)) {
			took = i;
		} else if (k->diffed + plen + mlen > GRAPH_LINES_DIFF_BUDGET) {
			k->w->status[p] = GRAPH_LINES_BUDGET;
			k->stop = 1;
			goto done;
		} else {
			k->diffed += plen + mlen;
			if ((error = line_diff_compute(&d, ptext, plen, mtext, mlen)) < 0)
				goto done;
			if (!line_ranges_map(&from[i], r, &d))
				took = i;
			line_diff_release(&d);
		}
		git_blob_free(theirs);
		theirs = NULL;
	}
	*changed = took == np;
	for (i = 0; i < np && !error; i++)
		if (took == np || took == i)
			error = lines_pass(k, ni, k->parents[first + i], p, &from[i]);
done:
	for (i = 0; i < np; i++)
		line_ranges_release(&from[i]);
	free(from);
	git_blob_free(mine);
	git_blob_free(theirs);
	return error;
}

/* An interesting commit of the line walk: which paths' lines it changed, and on. */
static int lines_interesting(struct walk *k, uint32_t ni)
{
	const struct graph_walk *w = k->w;
	const struct pent *me;
	size_t p;
	int error = 0, any = 0, bad;

	k->stats.examined++;
	if ((error = node_sig(k, ni, &me)) < 0)
		return error;
	memset(k->lchanged, 0, w->npaths);
	for (p = 0; p < w->npaths && k->nodes[ni].lines && !error; p++) {
		if (line_ranges_empty(&lines_of(k, ni)[p]) || w->status[p] != GRAPH_LINES_DONE ||
		    !me[p].mode)
			continue;	/* no lines, a path given up, or no file to have them */
		if (w->max_per_path && k->per_path[p] >= w->max_per_path) {
			w->status[p] = GRAPH_LINES_CUT;
			continue;
		}
		bad = 0;
		if (!k->nodes[ni].nparents)
			k->lchanged[p] = me[p].mode != 0;	/* the root made the file */
		else
			error = lines_step(k, ni, p, me, &k->lchanged[p], &bad);
		if (bad)
			w->status[p] = GRAPH_LINES_UNREADABLE;
		any |= k->lchanged[p];
	}
	if (any && !error)
		cand_push(k, ni, k->lchanged);
	lines_drop(k, ni);
	return error;
}

/* Lines left on commits the walk did not get to: those paths' histories are cut short. */
static void lines_cut(struct walk *k)
{
	size_t ni, p;

	for (ni = 0; ni < k->n; ni++) {
		const struct line_ranges *l;

		if (!k->nodes[ni].lines || (k->nodes[ni].flags & F_HIDDEN))
			continue;
		l = k->lines[k->nodes[ni].lines - 1];
		for (p = 0; p < k->w->npaths; p++)
			if (!line_ranges_empty(&l[p]) && k->w->status[p] == GRAPH_LINES_DONE)
				k->w->status[p] = k->stop ? GRAPH_LINES_BUDGET : GRAPH_LINES_CUT;
	}
}

static int walk_run(struct walk *k)
{
	const struct graph_walk *w = k->w;
	size_t i;
	int error = 0;

	for (i = 0; i < w->nowners; i++) {
		uint32_t ni = node_get(k, &w->owners[i]);

		if (k->nodes[ni].owner < 0)
			k->nodes[ni].owner = (int)i;
	}
	for (i = 0; i < w->nbottoms; i++) {
		uint32_t ni = node_get(k, &w->bottoms[i]);

		k->nodes[ni].flags |= F_HIDDEN;
		if ((error = enqueue(k, ni)) < 0)
			return error;
	}
	if (w->lines) {
		uint32_t ti = node_get(k, w->tip);

		for (i = 0; i < w->npaths; i++) {
			w->status[i] = GRAPH_LINES_DONE;
			line_ranges_union(&lines_of(k, ti)[i], &w->lines[i]);
		}
	}
	if ((error = enqueue(k, node_get(k, w->tip))) < 0)
		return error;
	while (k->nheap && k->queued_interesting) {
		uint32_t ni = heap_pop(k);

		k->nodes[ni].flags |= F_DONE;
		if (k->nodes[ni].flags & F_HIDDEN) {
			if (k->stats.hidden >= HIDDEN_MAX)
				break;
			error = walk_hidden(k, ni);
			lines_drop(k, ni);	/* lines from below a merge base: on neither side */
		} else {
			k->queued_interesting--;
			if (k->stats.examined >= w->max_commits)
				break;
			error = w->lines ? lines_interesting(k, ni) : walk_interesting(k, ni);
			node_sig_drop(k, ni);
		}
		if (error < 0)
			return error;
		if (k->stop || (w->max_per_path && k->paths_full == w->npaths))
			break;	/* the newest max_per_path of each path are found */
	}
	return 0;
}

static void walk_free(struct walk *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		lines_drop(k, (uint32_t)i);
	for (i = 0; i < ARRAY_SIZE(k->blobs); i++)
		git_blob_free(k->blobs[i]);
	free(k->lines);
	free(k->lchanged);
	git_odb_free(k->odb);
	free(k->nodes);
	free(k->table);
	free(k->parents);
	for (i = 0; i < k->nsigs; i++)
		free(k->sigs[i]);
	free(k->sigs);
	tree_paths_free(k->tp);
	free(k->heap);
	free(k->cand);
	free(k->changed);
	free(k->per_path);
}

/* One walk; *found is the number of commits passed to cb. */
static int walk_once(git_repository *repo, const struct graph_walk *w, int full,
		     graph_touch_cb cb, void *payload, size_t *found)
{
	struct walk k;
	size_t *order = NULL, i;
	int error;

	memset(&k, 0, sizeof(k));
	*found = 0;
	k.repo = repo;
	k.w = w;
	k.full = full;
	k.g = cgraph_get_for_reading(repo);
	if (git_repository_odb(&k.odb, repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot open the object database");
	k.per_path = xcalloc(w->npaths ? w->npaths : 1, sizeof(*k.per_path));
	k.lchanged = xcalloc(w->npaths ? w->npaths : 1, 1);
	if ((error = walk_run(&k)) < 0)
		goto done;
	if (w->lines)
		lines_cut(&k);
	order = xcalloc(k.ncand ? k.ncand : 1, sizeof(*order));
	cand_sort(&k, order);
	for (i = 0; i < k.ncand && !error; i++) {
		uint32_t ni = k.cand[order[i]];

		if (k.nodes[ni].flags & F_HIDDEN)
			continue;	/* found to be below a bottom after all */
		++*found;
		error = cb(&k.nodes[ni].id, k.nodes[ni].owner, k.changed + order[i] * w->npaths,
			   payload);
	}
done:
	last_stats = k.stats;
	free(order);
	walk_free(&k);
	return error;
}

int graph_walk_touching(git_repository *repo, const struct graph_walk *w, graph_touch_cb cb,
			void *payload)
{
	size_t found;
	int error = walk_once(repo, w, 0, cb, payload, &found);

	/*
	 * Nothing: the paths' history on this side is hidden behind a merge
	 * equal to a parent that leads below the bottoms (a tree that added
	 * and removed a file, merged onto a base without it).  Walk again
	 * through every parent, within the same bound.
	 */
	if (!error && !found)
		error = walk_once(repo, w, 1, cb, payload, &found);
	return error;
}

int graph_walk_lines(git_repository *repo, const struct graph_walk *w, graph_touch_cb cb,
		     void *payload)
{
	size_t found;

	return walk_once(repo, w, 0, cb, payload, &found);
}

/* ---- merge bases ---- */

#define F_P1 64u
#define F_P2 128u
#define F_STALE 256u
#define F_RESULT 512u

/*
 * Queue entries whose node is not stale and carries each side's flag:
 * when one side has none left, no commit can be reached from both sides
 * any more, and the walk stops there instead of draining the other side
 * (the earlier merges of the day, seen from the state).  That needs a
 * walk in exact generation order (a commit-graph); without one, the walk
 * goes on while any entry is not stale, as git's does.
 */
struct mb_state {
	size_t side1, side2;
	size_t nonstale;	/* without exact generations: git's own rule */
};

static void mb_count(struct mb_state *st, unsigned flags, uint32_t times, int sign)
{
	if (flags & F_STALE)
		return;
	st->nonstale += sign > 0 ? times : -(size_t)times;
	if (flags & F_P1)
		st->side1 += sign > 0 ? times : -(size_t)times;
	if (flags & F_P2)
		st->side2 += sign > 0 ? times : -(size_t)times;
}

static int mb_push(struct walk *k, struct mb_state *st, uint32_t ni)
{
	int error;

	if ((error = node_parse(k, ni)) < 0)
		return error;
	k->nodes[ni].inq++;
	mb_count(st, k->nodes[ni].flags, 1, 1);
	heap_push(k, ni);
	return 0;
}

static void mb_flag(struct walk *k, struct mb_state *st, uint32_t ni, unsigned f)
{
	struct node *n = &k->nodes[ni];

	mb_count(st, n->flags, n->inq, -1);
	n->flags |= f;
	mb_count(st, n->flags, n->inq, 1);
}

/* git's paint_down_to_common(), ordered by generation: the common ancestors found first. */
static int mb_paint(struct walk *k, uint32_t a, const git_oid *twos, size_t ntwos,
		    uint32_t **res, size_t *nres)
{
	struct mb_state st = { 0 };
	size_t alloc = 0, i;
	int error;

	mb_flag(k, &st, a, F_P1);
	if ((error = mb_push(k, &st, a)) < 0)
		return error;
	for (i = 0; i < ntwos; i++) {
		uint32_t b = node_get(k, &twos[i]);

		mb_flag(k, &st, b, F_P2);
		if ((error = mb_push(k, &st, b)) < 0)
			return error;
	}
	while (k->nheap && (k->g ? st.side1 && st.side2 : st.nonstale)) {
		uint32_t ni = heap_pop(k), j;
		unsigned f;

		k->nodes[ni].inq--;
		mb_count(&st, k->nodes[ni].flags, 1, -1);
		f = k->nodes[ni].flags & (F_P1 | F_P2 | F_STALE);
		if ((f & (F_P1 | F_P2)) == (F_P1 | F_P2)) {
			if (!(k->nodes[ni].flags & F_RESULT)) {
				k->nodes[ni].flags |= F_RESULT;
				array_grow(res, &alloc, *nres + 1, sizeof(**res));
				(*res)[(*nres)++] = ni;
			}
			f |= F_STALE;
		}
		for (j = 0; j < k->nodes[ni].nparents; j++) {
			uint32_t pi = k->parents[k->nodes[ni].parents + j];

			if ((k->nodes[pi].flags & f) == f)
				continue;
			mb_flag(k, &st, pi, f);
			if ((error = mb_push(k, &st, pi)) < 0)
				return error;
		}
	}
	return 0;
}

#define F_BASE 2048u	/* merge bases: a candidate */
#define F_REDUNDANT 4096u	/* merge bases: a candidate another one reaches */

/*
 * Drop each candidate that another one reaches (git's remove_redundant()),
 * in one walk from all of them at once: a candidate it meets below
 * another is an ancestor of that one.  Only commits of a generation at
 * least the lowest candidate's are walked (a commit-graph generation is
 * larger than any of its ancestors'; commits outside the graph are never
 * ancestors of ones in it; without a graph nothing is cut).  A walk per
 * pair of candidates cost seconds a tree late in a 400-tree day, whose
 * state has many merge bases with each tree.
 */
static int mb_reduce(struct walk *k, uint32_t *res, size_t *nres)
{
	uint32_t *stack = NULL, min_gen = UINT32_MAX, i;
	size_t n = 0, alloc = 0, c, kept = 0, redundant = 0;
	int error = 0;

	for (c = 0; c < *nres; c++) {
		k->nodes[res[c]].flags |= F_BASE;
		if (k->nodes[res[c]].gen < min_gen)
			min_gen = k->nodes[res[c]].gen;
		array_grow(&stack, &alloc, n + 1, sizeof(*stack));
		stack[n++] = res[c];
	}
	while (n && !error && redundant + 1 < *nres) {
		uint32_t ni = stack[--n];

		if ((error = node_parse(k, ni)) < 0)
			break;
		for (i = 0; i < k->nodes[ni].nparents && !error; i++) {
			uint32_t pi = k->parents[k->nodes[ni].parents + i];

			if (k->nodes[pi].epoch == 1 || (error = node_parse(k, pi)) < 0)
				continue;
			k->nodes[pi].epoch = 1;
			if ((k->nodes[pi].flags & (F_BASE | F_REDUNDANT)) == F_BASE) {
				k->nodes[pi].flags |= F_REDUNDANT;
				redundant++;
			}
			if (k->nodes[pi].gen < min_gen)
				continue;
			array_grow(&stack, &alloc, n + 1, sizeof(*stack));
			stack[n++] = pi;
		}
	}
	free(stack);
	if (error < 0)
		return error;
	for (c = 0; c < *nres; c++)
		if (!(k->nodes[res[c]].flags & F_REDUNDANT))
			res[kept++] = res[c];
	*nres = kept;
	return 0;
}

int graph_merge_bases(git_oidarray *out, git_repository *repo, const git_oid *one,
		      const git_oid *two)
{
	return graph_merge_bases_many(out, repo, one, two, 1);
}

int graph_merge_bases_many(git_oidarray *out, git_repository *repo, const git_oid *one,
			   const git_oid *twos, size_t ntwos)
{
	struct walk k;
	uint32_t *res = NULL;
	size_t nres = 0, i, kept = 0;
	int error, same = 0;

	memset(out, 0, sizeof(*out));
	memset(&k, 0, sizeof(k));
	k.repo = repo;
	k.g = cgraph_get_for_reading(repo);
	if (git_repository_odb(&k.odb, repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot open the object database");
	for (i = 0; i < ntwos; i++)
		same |= git_oid_equal(one, &twos[i]);
	if (same) {
		res = xcalloc(1, sizeof(*res));
		res[nres++] = node_get(&k, one);
	} else if ((error = mb_paint(&k, node_get(&k, one), twos, ntwos, &res, &nres)) < 0) {
		goto done;
	} else {
		for (i = 0; i < nres; i++)	/* found stale later: below another base */
			if (!(k.nodes[res[i]].flags & F_STALE))
				res[kept++] = res[i];
		nres = kept;
	}
	if (nres > 1 && (error = mb_reduce(&k, res, &nres)) < 0)
		goto done;
	for (i = 1; i < nres; i++) {	/* newest first, as git lists them */
		uint32_t v = res[i];
		size_t j;

		for (j = i; j > 0 && k.nodes[res[j - 1]].time < k.nodes[v].time; j--)
			res[j] = res[j - 1];
		res[j] = v;
	}
	out->ids = malloc(nres ? nres * sizeof(git_oid) : 1);
	if (!out->ids)
		abort();
	for (i = 0; i < nres; i++)
		git_oid_cpy(&out->ids[i], &k.nodes[res[i]].id);
	out->count = nres;
	error = 0;
done:
	free(res);
	walk_free(&k);
	return error;
}

/* ---- writing the file ---- */

static void put_be32(struct buf *b, uint32_t v)
{
	unsigned char c[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 8), (unsigned char)v };

	buf_put(b, c, 4);
}

static void put_be64(struct buf *b, uint64_t v)
{
	put_be32(b, (uint32_t)(v >> 32));
	put_be32(b, (uint32_t)v);
}

/* Every commit reachable from a ref, parsed (from the old graph where it has them). */
static int collect_commits(struct walk *k)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	uint32_t *stack = NULL;
	size_t n = 0, alloc = 0;
	int error = 0;

	if (git_reference_iterator_new(&it, k->repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot list refs");
	while (git_reference_next(&ref, it) == 0) {
		git_object *obj = NULL;

		if (git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) == 0) {
			array_grow(&stack, &alloc, n + 1, sizeof(*stack));
			stack[n++] = node_get(k, git_object_id(obj));
		}
		git_object_free(obj);
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	git_error_clear();
	while (n && !error) {
		uint32_t ni = stack[--n], i;

		/* F_QUEUED: collected (node_parse() may parse parents too) */
		if (k->nodes[ni].flags & F_QUEUED)
			continue;
		k->nodes[ni].flags |= F_QUEUED;
		if ((error = node_parse(k, ni)) < 0)
			break;
		for (i = 0; i < k->nodes[ni].nparents; i++) {
			uint32_t pi = k->parents[k->nodes[ni].parents + i];

			if (!(k->nodes[pi].flags & F_QUEUED)) {
				array_grow(&stack, &alloc, n + 1, sizeof(*stack));
				stack[n++] = pi;
			}
		}
	}
	free(stack);
	return error;
}

/* Generation numbers (1 + the largest of the parents'), without recursion. */
static void compute_generations(struct walk *k)
{
	uint32_t *stack = NULL, i;
	size_t n = 0, alloc = 0, j;

	for (j = 0; j < k->n; j++)
		k->nodes[j].gen = 0;
	for (j = 0; j < k->n; j++) {
		if (k->nodes[j].gen)
			continue;
		array_grow(&stack, &alloc, n + 1, sizeof(*stack));
		stack[n++] = (uint32_t)j;
		while (n) {
			struct node *t = &k->nodes[stack[n - 1]];
			uint32_t max = 0, pending = 0;

			for (i = 0; i < t->nparents; i++) {
				uint32_t pi = k->parents[t->parents + i];

				if (!k->nodes[pi].gen) {
					array_grow(&stack, &alloc, n + 1, sizeof(*stack));
					stack[n++] = pi;
					pending = 1;
					break;
				}
				if (k->nodes[pi].gen > max)
					max = k->nodes[pi].gen;
			}
			if (pending)
				continue;
			t->gen = max + 1 > 0x3FFFFFFF ? 0x3FFFFFFF : max + 1;
			n--;
		}
	}
	free(stack);
}

static const struct walk *sort_walk;

static int node_oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(&sort_walk->nodes[*(const uint32_t *)a].id,
			   &sort_walk->nodes[*(const uint32_t *)b].id);
}

static void put_cdat(struct buf *cdat, struct buf *edges, const struct walk *k,
		     const struct node *nd, const uint32_t *pos)
{
	uint32_t i, np = nd->nparents;
	const uint32_t *par = k->parents + nd->parents;
	uint64_t t = nd->time < 0 ? 0 : (uint64_t)nd->time;

	buf_put(cdat, nd->tree.id, 20);
	put_be32(cdat, np > 0 ? pos[par[0]] : CG_NONE);
	if (np < 2) {
		put_be32(cdat, CG_NONE);
	} else if (np == 2) {
		put_be32(cdat, pos[par[1]]);
	} else {
		put_be32(cdat, CG_EXTRA | (uint32_t)(edges->len / 4));
		for (i = 1; i < np; i++)
			put_be32(edges, pos[par[i]] | (i + 1 == np ? CG_LAST : 0));
	}
	put_be32(cdat, nd->gen << 2 | (uint32_t)((t >> 32) & 3));
	put_be32(cdat, (uint32_t)t);
}

/* The file in git's format, version 1 (what libgit2 1.5 reads). */
static void graph_serialize(struct buf *out, const struct walk *k)
{
	uint32_t *order = xcalloc(k->n ? k->n : 1, sizeof(*order));
	uint32_t *pos = xcalloc(k->n ? k->n : 1, sizeof(*pos));
	struct buf oidf = BUF_INIT, oidl = BUF_INIT, cdat = BUF_INIT, edges = BUF_INIT;
	uint32_t fan[256] = { 0 }, i, nchunks;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	uint64_t off;

	for (i = 0; i < k->n; i++)
		order[i] = i;
	sort_walk = k;
	qsort(order, k->n, sizeof(*order), node_oid_cmp);
	for (i = 0; i < k->n; i++) {
		pos[order[i]] = i;
		fan[k->nodes[order[i]].id.id[0]]++;
	}
	for (i = 1; i < 256; i++)
		fan[i] += fan[i - 1];
	for (i = 0; i < 256; i++)
		put_be32(&oidf, fan[i]);
	for (i = 0; i < k->n; i++) {
		buf_put(&oidl, k->nodes[order[i]].id.id, 20);
		put_cdat(&cdat, &edges, k, &k->nodes[order[i]], pos);
	}
	nchunks = edges.len ? 4 : 3;
	buf_put(out, "CGPH", 4);
	buf_putc(out, 1);	/* version */
	buf_putc(out, 1);	/* SHA-1 */
	buf_putc(out, (char)nchunks);
	buf_putc(out, 0);	/* no base graphs */
	off = 8 + (nchunks + 1) * 12;
	buf_put(out, "OIDF", 4);
	put_be64(out, off);
	buf_put(out, "OIDL", 4);
	put_be64(out, off += oidf.len);
	buf_put(out, "CDAT", 4);
	put_be64(out, off += oidl.len);
	off += cdat.len;
	if (edges.len) {
		buf_put(out, "EDGE", 4);
		put_be64(out, off);
		off += edges.len;
	}
	put_be32(out, 0);
	put_be64(out, off);
	buf_put(out, oidf.ptr, oidf.len);
	buf_put(out, oidl.ptr, oidl.len);
	buf_put(out, cdat.ptr, cdat.len);
	if (edges.len)
		buf_put(out, edges.ptr, edges.len);
	EVP_Digest(out->ptr, out->len, md, &mdlen, EVP_sha1(), NULL);
	buf_put(out, md, mdlen);
	buf_release(&oidf);
	buf_release(&oidl);
	buf_release(&cdat);
	buf_release(&edges);
	free(order);
	free(pos);
}

/*
 * Write the file with our own writer: libgit2 1.5's git_commit_graph_writer
 * gives some commits generation 1 although they have parents (`git
 * commit-graph verify` says so), and merge bases read from such a file
 * would be wrong.  The old file, when it checked good, supplies the
 * commits it has, so only the newly fetched ones are parsed.
 */
static int graph_write(const struct graph_paths *p, const char *repo_path, const char *refs)
{
	struct walk k;
	struct buf file = BUF_INIT, side = BUF_INIT;
	char hash[GIT_OID_HEXSZ + 1];
	int error;

	memset(&k, 0, sizeof(k));
	if (git_repository_open_ext(&k.repo, repo_path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return tide_error_git(TIDE_ERROR, "cannot open '%s'", repo_path);
	k.g = cgraph_get(k.repo);
	k.no_cache = 1;
	if (git_repository_odb(&k.odb, k.repo) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot open the object database");
		goto done;
	}
	if ((error = collect_commits(&k)) < 0)
		goto done;
	compute_generations(&k);
	graph_serialize(&file, &k);
	if ((error = file_write_atomic(p->graph, file.ptr, file.len)) < 0)
		goto done;
	hash_hex(hash, file.ptr, file.len);
	buf_printf(&side, "tide commit-graph 1\nhash %s\nsize %zu\nrefs %s\n", hash, file.len, refs);
	error = file_write_atomic(p->side, side.ptr, side.len);
done:
	walk_free(&k);
	git_repository_free(k.repo);
	buf_release(&file);
	buf_release(&side);
	return error;
}

/*
 * A commit-graph where libgit2 looks (written by git, or copied in) is
 * removed: libgit2 1.5 would trust a version 1 file unchecked, and leaks
 * each copy it reads again after an object database refresh (gigabytes
 * over a day of merges); a version 2 file it cannot read at all.
 */
static int remove_git_graph(struct graph_refresh_result *out, const struct graph_paths *p)
{
	int had = path_exists(p->git_graph) || path_exists(p->git_chain);

	if (!had)
		return 0;
	if (unlink(p->git_graph) < 0 && errno != ENOENT)
		return tide_error_errno(TIDE_EIO, "cannot remove '%s'", p->git_graph);
	if (rm_rf(p->git_chain) < 0)
		return tide_error_errno(TIDE_EIO, "cannot remove '%s'", p->git_chain);
	out->removed_git = 1;
	return 0;
}

int graph_refresh(struct graph_refresh_result *out, const char *repo_path)
{
	git_repository *repo = NULL;
	struct graph_paths p;
	char refs[GIT_OID_HEXSZ + 1], had[GIT_OID_HEXSZ + 1];
	double start = time_now();
	int error, exists;

	memset(out, 0, sizeof(*out));
	memset(&p, 0, sizeof(p));
	if (git_repository_open_ext(&repo, repo_path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return tide_error_git(TIDE_ERROR, "cannot open '%s'", repo_path);
	if ((error = graph_paths_of(&p, repo)) < 0 || (error = refs_digest(refs, repo)) < 0)
		goto done;
	git_repository_free(repo);
	repo = NULL;
	out->what = GRAPH_WRITTEN;
	exists = path_exists(p.graph);
	if (exists && graph_check(&p, had, &out->why, NULL) == 0) {
		if (!strcmp(had, refs)) {
			out->what = GRAPH_UP_TO_DATE;
			error = remove_git_graph(out, &p);
			goto done;
		}
	} else if (exists) {
		out->what = GRAPH_REBUILT;
		if (unlink(p.graph) < 0 && errno != ENOENT) {
			error = tide_error_errno(TIDE_EIO, "cannot remove '%s'", p.graph);
			goto done;
		}
	}
	if ((error = mkdir_p(p.info, 0777)) < 0)
		goto done;
	error = graph_write(&p, repo_path, refs);
	if (!error)
		error = remove_git_graph(out, &p);
done:
	out->seconds = time_now() - start;
	git_repository_free(repo);
	graph_paths_release(&p);
	return error;
}


/* ---- ranges and reachability (src/checks.c, src/stats.c) ---- */

void graph_commits_release(struct graph_commits *c)
{
	free(c->v);
	free(c->parents);
	memset(c, 0, sizeof(*c));
}

static void range_add(struct graph_commits *out, size_t *alloc, size_t *palloc,
		      const struct walk *k, uint32_t ni)
{
	const struct node *n = &k->nodes[ni];
	struct graph_commit *c;
	uint32_t i;

	array_grow(&out->v, alloc, out->n + 1, sizeof(*out->v));
	array_grow(&out->parents, palloc, out->nparents + n->nparents + 1, sizeof(*out->parents));
	c = &out->v[out->n++];
	git_oid_cpy(&c->id, &n->id);
	git_oid_cpy(&c->tree, &n->tree);
	c->parents = out->nparents;
	c->nparents = n->nparents;
	for (i = 0; i < n->nparents; i++)
		git_oid_cpy(&out->parents[out->nparents++], &k->nodes[k->parents[n->parents + i]].id);
}

/*
 * The interesting commits are popped in generation order, so a commit is
 * final when popped; without a commit-graph (time order) one may turn out
 * hidden later, and is left out at the end, as the attribution walk does.
 */
static int range_walk(struct walk *k, const git_oid *tips, size_t ntips, const git_oid *hides,
		      size_t nhides, size_t max, int *truncated, uint32_t **found, size_t *nfound)
{
	size_t i, alloc = 0;
	int error;

	for (i = 0; i < nhides; i++) {
		uint32_t ni = node_get(k, &hides[i]);

		k->nodes[ni].flags |= F_HIDDEN;
		if ((error = enqueue(k, ni)) < 0)
			return error;
	}
	for (i = 0; i < ntips; i++)
		if ((error = enqueue(k, node_get(k, &tips[i]))) < 0)
			return error;
	while (k->nheap && k->queued_interesting) {
		uint32_t ni = heap_pop(k), p;

		k->nodes[ni].flags |= F_DONE;
		if (k->nodes[ni].flags & F_HIDDEN) {
			if (k->stats.hidden >= HIDDEN_MAX) {
				*truncated = 1;
				break;
			}
			if ((error = walk_hidden(k, ni)) < 0)
				return error;
			continue;
		}
		k->queued_interesting--;
		if (max && *nfound >= max) {
			*truncated = 1;
			break;
		}
		array_grow(found, &alloc, *nfound + 1, sizeof(**found));
		(*found)[(*nfound)++] = ni;
		for (p = 0; p < k->nodes[ni].nparents; p++)
			if ((error = enqueue(k, k->parents[k->nodes[ni].parents + p])) < 0)
				return error;
	}
	return 0;
}

int graph_range(struct graph_commits *out, git_repository *repo, const git_oid *tips,
		size_t ntips, const git_oid *hides, size_t nhides, size_t max)
{
	struct walk k;
	uint32_t *found = NULL;
	size_t nfound = 0, alloc = 0, palloc = 0, i;
	int error;

	memset(out, 0, sizeof(*out));
	memset(&k, 0, sizeof(k));
	k.repo = repo;
	k.g = cgraph_get(repo);
	if (git_repository_odb(&k.odb, repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot open the object database");
	error = range_walk(&k, tips, ntips, hides, nhides, max, &out->truncated, &found, &nfound);
	for (i = 0; !error && i < nfound; i++)
		if (!(k.nodes[found[i]].flags & F_HIDDEN))
			range_add(out, &alloc, &palloc, &k, found[i]);
	free(found);
	walk_free(&k);
	if (error < 0)
		graph_commits_release(out);
	return error;
}

/*
 * Reachability: the commit-graph is closed under parents, so from a
 * commit in it a walk needs only its positions (a bit each); commits
 * outside it (today's merges, a repository without the file) are read
 * and kept in a sorted list.
 */
struct graph_reach {
	const struct cgraph *g;
	unsigned char *bits;		/* g->n bits */
	git_oid *outside;		/* sorted */
	size_t noutside;
};

static int oid_cmp_qsort(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

static void reach_mark_graph(struct graph_reach *r, uint32_t pos, uint32_t **stack,
			     size_t *alloc)
{
	const struct cgraph *g = r->g;
	size_t n = 0;

	if (r->bits[pos / 8] & (1u << (pos % 8)))
		return;
	r->bits[pos / 8] |= (unsigned char)(1u << (pos % 8));
	array_grow(stack, alloc, 1, sizeof(**stack));
	(*stack)[n++] = pos;
	while (n) {
		const unsigned char *d = g->cdat + (size_t)(*stack)[--n] * 36;
		uint32_t par[2] = { get_be32(d + 20), get_be32(d + 24) }, e, i, q;

		for (i = 0; i < 2; i++) {
			if (par[i] == CG_NONE)
				continue;
			if (i == 1 && (par[i] & CG_EXTRA)) {
				for (e = par[i] & ~CG_EXTRA; e < g->nedges; e++) {
					q = get_be32(g->edges + (size_t)e * 4);
					if ((q & ~CG_LAST) < g->n &&
					    !(r->bits[(q & ~CG_LAST) / 8] & (1u << ((q & ~CG_LAST) % 8)))) {
						r->bits[(q & ~CG_LAST) / 8] |=
							(unsigned char)(1u << ((q & ~CG_LAST) % 8));
						array_grow(stack, alloc, n + 1, sizeof(**stack));
						(*stack)[n++] = q & ~CG_LAST;
					}
					if (q & CG_LAST)
						break;
				}
				continue;
			}
			q = par[i];
			if (q >= g->n || (r->bits[q / 8] & (1u << (q % 8))))
				continue;
			r->bits[q / 8] |= (unsigned char)(1u << (q % 8));
			array_grow(stack, alloc, n + 1, sizeof(**stack));
			(*stack)[n++] = q;
		}
	}
}

static int reach_outside_has(const struct graph_reach *r, const git_oid *id)
{
	return r->noutside && bsearch(id, r->outside, r->noutside, sizeof(*r->outside),
				      oid_cmp_qsort) != NULL;
}

/* A set of commit ids (open addressing), for the commits outside the file. */
struct oidset {
	git_oid *slots;
	unsigned char *used;
	size_t n, size;
};

/* 1 when id was added, 0 when it was there. */
static int oidset_add(struct oidset *s, const git_oid *id)
{
	size_t h, i;

	if ((s->n + 1) * 2 > s->size) {
		struct oidset bigger = { NULL, NULL, 0, s->size ? s->size * 2 : 256 };

		bigger.slots = xcalloc(bigger.size, sizeof(*bigger.slots));
		bigger.used = xcalloc(bigger.size, 1);
		for (i = 0; i < s->size; i++)
			if (s->used[i])
				oidset_add(&bigger, &s->slots[i]);
		free(s->slots);
		free(s->used);
		*s = bigger;
	}
	for (h = oid_hash(id) & (s->size - 1); s->used[h]; h = (h + 1) & (s->size - 1))
		if (git_oid_equal(&s->slots[h], id))
			return 0;
	s->used[h] = 1;
	git_oid_cpy(&s->slots[h], id);
	s->n++;
	return 1;
}

int graph_reach_new(struct graph_reach **out, git_repository *repo, const git_oid *tip)
{
	struct graph_reach *r = xcalloc(1, sizeof(*r));
	struct oidset seen = { 0 };
	git_oid *todo = NULL;
	uint32_t *stack = NULL, pos;
	size_t ntodo = 0, todo_alloc = 0, stack_alloc = 0, out_alloc = 0, i;
	int error = 0;

	*out = NULL;
	r->g = cgraph_get(repo);
	if (r->g)
		r->bits = xcalloc(r->g->n / 8 + 1, 1);
	array_grow(&todo, &todo_alloc, 1, sizeof(*todo));
	git_oid_cpy(&todo[ntodo++], tip);
	while (ntodo && !error) {
		git_oid id = todo[--ntodo];
		git_commit *c = NULL;

		if (r->g && cgraph_find(r->g, &id, &pos)) {
			reach_mark_graph(r, pos, &stack, &stack_alloc);
			continue;
		}
		if (!oidset_add(&seen, &id))
			continue;	/* outside the file, and seen already */
		if (r->noutside >= HIDDEN_MAX) {
			error = tide_error_set(TIDE_ERROR, "more than %d commits outside the commit-graph",
					       HIDDEN_MAX);
			break;
		}
		if (git_commit_lookup(&c, repo, &id) < 0) {
			error = tide_error_git(TIDE_ERROR, "cannot read commit %s", git_oid_tostr_s(&id));
			break;
		}
		array_grow(&r->outside, &out_alloc, r->noutside + 1, sizeof(*r->outside));
		git_oid_cpy(&r->outside[r->noutside++], &id);
		for (i = 0; i < git_commit_parentcount(c); i++) {
			array_grow(&todo, &todo_alloc, ntodo + 1, sizeof(*todo));
			git_oid_cpy(&todo[ntodo++], git_commit_parent_id(c, i));
		}
		git_commit_free(c);
	}
	free(todo);
	free(stack);
	free(seen.slots);
	free(seen.used);
	if (error < 0) {
		graph_reach_free(r);
		return error;
	}
	if (r->noutside)
		qsort(r->outside, r->noutside, sizeof(*r->outside), oid_cmp_qsort);
	*out = r;
	return 0;
}

int graph_reach_has(const struct graph_reach *r, const git_oid *id)
{
	uint32_t pos;

	if (!r)
		return 0;
	if (r->g && cgraph_find(r->g, id, &pos))
		return !!(r->bits[pos / 8] & (1u << (pos % 8)));
	return reach_outside_has(r, id);
}

void graph_reach_free(struct graph_reach *r)
{
	if (!r)
		return;
	free(r->bits);
	free(r->outside);
	free(r);
}
