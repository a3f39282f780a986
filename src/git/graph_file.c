/*
 * tide's commit-graph file (graph.h): libgit2 1.5 reads commit-graph
 * files with generation data version 1 only, and git 2.39 writes version
 * 2 by default; libgit2 then ignores the file and parses every commit it
 * walks.  So tide writes its own file after each fetch and keeps the
 * file's hash beside it: a file that does not match is never read.  The
 * walk reads parents and generation numbers from it directly (libgit2
 * does not export its reader).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>
#include <openssl/evp.h>

#include "graph_int.h"
#include "alternates.h"
#include "error.h"
#include "safefs.h"
#include "util.h"

/* ---- the commit-graph file ---- */

static struct cgraph *cg_cache;

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

int cgraph_find(const struct cgraph *g, const git_oid *id, uint32_t *pos)
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
const struct cgraph *cgraph_get(git_repository *repo)
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

/* An objects directory's git commit-graph file: *out set, 1; else 0. */
static int graph_in(const char *objects, void *payload)
{
	char **out = payload, *path = path_join(objects, "info/commit-graph");
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		*out = path;
		return 1;
	}
	free(path);
	return 0;
}

/*
 * git's single-file commit-graph for a repository's objects/info
 * directory: its own, else the first of its alternates' (alternates.h),
 * as git reads an alternate's graph for the commits it holds: a --shared
 * clone has none of its own.  NULL when there is none.
 */
static char *git_graph_path(const char *info)
{
	char *path = path_join(info, "commit-graph"), *objects;
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		return path;
	free(path);
	path = NULL;
	objects = path_join(info, "..");
	alternates_each(objects, graph_in, &path);
	free(objects);
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
const struct cgraph *cgraph_get_for_reading(git_repository *repo)
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
		char *path = git_graph_path(p.info);

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
			stack[n++] = walk_node_get(k, git_object_id(obj));
		}
		git_object_free(obj);
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	git_error_clear();
	while (n && !error) {
		uint32_t ni = stack[--n], i;

		/* F_QUEUED: collected (walk_node_parse() may parse parents too) */
		if (k->nodes[ni].flags & F_QUEUED)
			continue;
		k->nodes[ni].flags |= F_QUEUED;
		if ((error = walk_node_parse(k, ni)) < 0)
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
