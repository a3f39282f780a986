/*
 * The in-memory three-way merge engine (see merge.h).
 *
 * The three trees are walked together, one directory at a time.  A name
 * whose entries are equal on both sides, or unchanged on one side, is
 * resolved by OID without reading anything below it, so a merge costs in
 * proportion to the directories both sides touched, not to the tree size.
 * Only where both sides changed the same path do we descend or merge
 * contents.  The rules follow git's merge-ort so that the results (tree
 * OIDs of clean merges, conflicted paths) agree with
 * `git merge-tree --write-tree`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include <git2.h>
#include <git2/sys/hashsig.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>

#include "lineblame.h"
#include "merge.h"
#include "attr.h"
#include "error.h"
#include "graph.h"
#include "treepaths.h"
#include "util.h"
#include "xmerge.h"

#define MODE_TREE 0040000u
#define MODE_LINK 0120000u
#define MODE_GITLINK 0160000u
#define MODE_TYPE(m) ((m) & 0170000u)
#define IS_TREE(e) (MODE_TYPE((e)->mode) == MODE_TREE)
#define IS_BLOB_REG(e) (MODE_TYPE((e)->mode) == 0100000u)
#define IS_FILE(e) ((e)->mode && !IS_TREE(e))
/* git's buffer_is_binary(): a NUL in the first 8000 bytes. */
#define BINARY_PROBE 8000
#define RENAME_SCORE 50		/* merge-ort's default similarity */
#define RENAME_LIMIT 7000	/* merge.renameLimit's default */
/* Bytes per line a two-way xdiff (libgit2's, for diffstats) holds. */
#define DIFF_LINE_COST 130

struct strlist {
	char **v;
	size_t n, alloc;
};

/* A path side `side` added in a directory the other side renamed. */
struct dir_move {
	char *from, *to;
	int side;			/* 1: ours added it, 2: theirs */
	int used;			/* placed by a rename plan */
};

/* One side's entry at a name; mode 0 means absent. */
struct ent {
	git_oid oid;
	unsigned mode;
};

static const struct ent NONE_ENT;

/* merge_set_limits() */
static size_t default_big_file = MERGE_BIG_FILE_DEFAULT;
static size_t default_budget = MERGE_CONTENT_BUDGET_DEFAULT;

/* An entry of a result directory. */
struct out_ent {
	char *name;
	git_oid oid;
	unsigned mode;
};

struct out_dir {
	struct out_ent *v;
	size_t n, alloc;
};

/* A decision made before the walk (rename results): path -> entry. */
struct override {
	char *path;
	struct ent ent;			/* mode 0: remove the path */
	int has_conflict;
	struct merge_conflict conflict;
};

struct mctx {
	git_repository *repo;
	git_odb *odb;
	const char *ours_label, *theirs_label;
	int depth;			/* > 0 while building a virtual base */
	size_t big_file, budget;	/* content limits (merge_opts) */
	int marker_size;
	int marker_fixed;		/* the caller chose the size: no attribute lookup */
	const git_oid *attr_commit;	/* conflict-marker-size from here (attr.h) */
	struct merge_result *res;
	size_t conflicts_alloc;
	struct override *ov;
	size_t nov;
	struct buf path;		/* current directory, "" or "a/b/" */
	/* Regular files both sides deleted (first walk): rename sources. */
	struct merge_conflict *gone;
	size_t ngone, gone_alloc;
	int collect_gone;
	size_t changed_alloc;
	/*
	 * Directories one side removed while the other side changed them
	 * (first walk), [1] ours, [2] theirs: where a directory rename may
	 * move the other side's new files.  Then the moves themselves.
	 */
	struct strlist removed[3];
	struct dir_move *moves;
	size_t nmoves, moves_alloc;
	/* conflicts without stages, kept across the second walk */
	struct merge_conflict *notes;
	size_t nnotes, notes_alloc;
};

/* The union of names of up to three directories. */
struct slot {
	const char *name;
	size_t len;
	struct ent e[3];		/* base, ours, theirs */
};

static int merge_dir(struct mctx *m, const struct ent *b, const struct ent *o,
		     const struct ent *t, struct ent *out);

const char *merge_conflict_kind_name(enum merge_conflict_kind kind)
{
	static const char *const names[] = {
		"content", "add/add", "modify/delete", "file/directory",
		"mode", "binary", "rename", "submodule", "file location",
		"directory rename",
	};

	if ((size_t)kind < ARRAY_SIZE(names))
		return names[kind];
	return "unknown";
}

static int ent_same(const struct ent *a, const struct ent *b)
{
	if (a->mode != b->mode)
		return 0;
	return !a->mode || git_oid_equal(&a->oid, &b->oid);
}

static const struct ent *tree_or_none(const struct ent *e)
{
	return IS_TREE(e) ? e : &NONE_ENT;
}

static void conflict_release(struct merge_conflict *c)
{
	free(c->path);
	free(c->base_path);
	free(c->ours_path);
	free(c->theirs_path);
	memset(c, 0, sizeof(*c));
}

void merge_result_clear(struct merge_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->nconflicts; i++)
		conflict_release(&res->conflicts[i]);
	free(res->conflicts);
	for (i = 0; i < res->nchanged; i++)
		free(res->changed[i]);
	free(res->changed);
	memset(res, 0, sizeof(*res));
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void conflict_push(struct mctx *m, const struct merge_conflict *c)
{
	struct merge_result *r = m->res;
	struct merge_conflict *n;

	array_grow(&r->conflicts, &m->conflicts_alloc, r->nconflicts + 1,
		   sizeof(*r->conflicts));
	n = &r->conflicts[r->nconflicts++];
	*n = *c;
	n->path = xstrdup(c->path);
	n->base_path = dup_or_null(c->base_path);
	n->ours_path = dup_or_null(c->ours_path);
	n->theirs_path = dup_or_null(c->theirs_path);
}

/* Record a conflict at path with its three stages (absent ones zero). */
static void conflict_add(struct mctx *m, const char *path,
			 enum merge_conflict_kind kind, const struct ent *b,
			 const struct ent *o, const struct ent *t, int nhunks)
{
	struct merge_conflict c;

	memset(&c, 0, sizeof(c));
	c.path = (char *)path;
	c.kind = kind;
	c.nhunks = nhunks;
	if (b && IS_FILE(b)) {
		c.base = b->oid;
		c.base_mode = b->mode;
		c.base_path = (char *)path;
	}
	if (o && IS_FILE(o)) {
		c.ours = o->oid;
		c.ours_mode = o->mode;
		c.ours_path = (char *)path;
	}
	if (t && IS_FILE(t)) {
		c.theirs = t->oid;
		c.theirs_mode = t->mode;
		c.theirs_path = (char *)path;
	}
	conflict_push(m, &c);
}

/* The current directory's path joined with name; the caller frees it. */
static char *child_path(struct mctx *m, const char *name)
{
	return xasprintf("%s%s", buf_cstr(&m->path), name);
}

/* Note that the result may differ from ours at name (not inside a
 * virtual base, which nobody diffs). */
static void changed_add(struct mctx *m, const char *name)
{
	struct merge_result *r = m->res;

	if (m->depth)
		return;
	array_grow(&r->changed, &m->changed_alloc, r->nchanged + 1, sizeof(*r->changed));
	r->changed[r->nchanged++] = child_path(m, name);
}

static void out_add(struct out_dir *d, const char *name, const struct ent *e)
{
	struct out_ent *x;

	if (!e->mode)
		return;
	array_grow(&d->v, &d->alloc, d->n + 1, sizeof(*d->v));
	x = &d->v[d->n++];
	x->name = xstrdup(name);
	x->oid = e->oid;
	x->mode = e->mode;
}

static void out_dir_release(struct out_dir *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->v[i].name);
	free(d->v);
}

/* git's tree order: names compare as if directories ended in '/'. */
static int out_ent_cmp(const void *pa, const void *pb)
{
	const struct out_ent *a = pa, *b = pb;
	size_t la = strlen(a->name), lb = strlen(b->name);
	size_t n = la < lb ? la : lb;
	int c = memcmp(a->name, b->name, n);
	unsigned ca, cb;

	if (c)
		return c;
	ca = n < la ? (unsigned char)a->name[n] : (a->mode == MODE_TREE ? '/' : 0);
	cb = n < lb ? (unsigned char)b->name[n] : (b->mode == MODE_TREE ? '/' : 0);
	return (int)ca - (int)cb;
}

/* Why a write failed when libgit2 did not say: its errno, or a full disk. */
static const char *lost_write_reason(const char *dir, int write_errno)
{
	struct statvfs st;

	if (write_errno)
		return strerror(write_errno);
	/* libgit2 can lose a write to a full disk without an error: next to nothing left is that */
	if (statvfs(dir, &st) == 0 && ((uint64_t)st.f_bavail * st.f_frsize < (1u << 20) ||
				       (st.f_files && st.f_favail < 64)))
		return strerror(ENOSPC);
	return "the object is missing after it was written";
}

int merge_object_written(git_repository *repo, const git_oid *id, int write_errno,
			 const char *what)
{
	git_odb *odb = NULL;
	char *dir;
	int there, error = 0;

	if (git_repository_odb(&odb, repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot open the object database");
	there = git_odb_exists(odb, id);
	git_odb_free(odb);
	if (there)
		return 0;
	dir = path_join(git_repository_path(repo), "objects");
	error = tide_error_set(TIDE_EIO, "cannot write %s to '%s': %s", what, dir,
			       lost_write_reason(dir, write_errno));
	free(dir);
	return error;
}

/* Serialize and store a directory; tree objects are simple enough that
 * writing them directly beats a treebuilder's per-entry checks. */
static int tree_write(struct mctx *m, struct out_dir *d, git_oid *out)
{
	struct buf raw = BUF_INIT;
	size_t i;
	int error;

	if (d->n)
		qsort(d->v, d->n, sizeof(*d->v), out_ent_cmp);
	for (i = 0; i < d->n; i++) {
		buf_printf(&raw, "%o %s", d->v[i].mode, d->v[i].name);
		buf_putc(&raw, '\0');
		buf_put(&raw, d->v[i].oid.id, GIT_OID_RAWSZ);
	}
	errno = 0;
	error = git_odb_write(out, m->odb, raw.ptr ? raw.ptr : "", raw.len,
			      GIT_OBJECT_TREE);
	buf_release(&raw);
	if (error < 0)
		return tide_error_git(TIDE_ERROR, "cannot write tree '%s'",
				      m->path.len ? buf_cstr(&m->path) : "/");
	if (errno && (error = merge_object_written(m->repo, out, errno, "a merged tree")) < 0)
		return error;
	m->res->trees_written++;
	return 0;
}

static int tree_load(struct mctx *m, const struct ent *e, git_tree **out)
{
	*out = NULL;
	if (!e->mode)
		return 0;
	if (git_tree_lookup(out, m->repo, &e->oid) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read tree '%s'",
				      m->path.len ? buf_cstr(&m->path) : "/");
	m->res->trees_read++;
	return 0;
}

static int slot_name_cmp(const void *pa, const void *pb)
{
	const struct slot *a = pa, *b = pb;
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->name, b->name, n);

	if (c)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

/*
 * Line up the entries of up to three trees by name.  Tree order puts
 * "foo.c" before a directory "foo", so a file on one side and a
 * directory on the other only meet after sorting by plain name.
 */
static void slots_build(git_tree *const trees[3], struct slot **out, size_t *nout)
{
	struct slot *all = NULL;
	size_t n = 0, alloc = 0, i, j, k;

	for (k = 0; k < 3; k++) {
		size_t cnt = trees[k] ? git_tree_entrycount(trees[k]) : 0;

		for (i = 0; i < cnt; i++) {
			const git_tree_entry *te = git_tree_entry_byindex(trees[k], i);

			array_grow(&all, &alloc, n + 1, sizeof(*all));
			memset(&all[n], 0, sizeof(*all));
			all[n].name = git_tree_entry_name(te);
			all[n].len = strlen(all[n].name);
			all[n].e[k].oid = *git_tree_entry_id(te);
			all[n].e[k].mode = git_tree_entry_filemode_raw(te);
			n++;
		}
	}
	if (n)
		qsort(all, n, sizeof(*all), slot_name_cmp);
	for (i = 0, j = 0; i < n; i++) {
		if (j && !slot_name_cmp(&all[j - 1], &all[i])) {
			for (k = 0; k < 3; k++)
				if (all[i].e[k].mode)
					all[j - 1].e[k] = all[i].e[k];
			continue;
		}
		all[j++] = all[i];
	}
	*out = all;
	*nout = j;
}

/* --- overrides (rename results) --- */

static int override_cmp(const void *pa, const void *pb)
{
	return strcmp(((const struct override *)pa)->path,
		      ((const struct override *)pb)->path);
}

static struct override *override_find(struct mctx *m, const char *path)
{
	struct override key;

	if (!m->nov)
		return NULL;
	key.path = (char *)path;
	return bsearch(&key, m->ov, m->nov, sizeof(*m->ov), override_cmp);
}

/* Does any override lie below directory path? */
static int override_below(struct mctx *m, const char *path)
{
	size_t lo = 0, hi = m->nov, len = strlen(path);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strncmp(m->ov[mid].path, path, len);

		if (c < 0 || (c == 0 && m->ov[mid].path[len] < '/'))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < m->nov; lo++) {
		if (strncmp(m->ov[lo].path, path, len))
			return 0;
		if (m->ov[lo].path[len] == '/')
			return 1;
	}
	return 0;
}

static void overrides_free(struct override *ov, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(ov[i].path);
		if (ov[i].has_conflict)
			conflict_release(&ov[i].conflict);
	}
	free(ov);
}

/* --- file contents --- */

static int blob_load(struct mctx *m, const git_oid *oid, git_blob **out)
{
	if (git_blob_lookup(out, m->repo, oid) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read blob %s", git_oid_tostr_s(oid));
	return 0;
}

/* One side of a content merge at path. */
static int content_load(struct mctx *m, const char *path, const git_oid *oid, git_blob **out)
{
	if (git_blob_lookup(out, m->repo, oid) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read blob %s of '%s'",
				      git_oid_tostr_s(oid), path);
	return 0;
}

static int blob_is_binary(const git_blob *blob)
{
	git_object_size_t size = git_blob_rawsize(blob);

	if (size > BINARY_PROBE)
		size = BINARY_PROBE;
	return memchr(git_blob_rawcontent(blob), 0, (size_t)size) != NULL;
}

/*
 * Whether contents are too big to merge by lines, from the blobs' headers
 * (a big blob is never read whole): a side over the big-file threshold,
 * or texts and a result that alone pass the content budget.
 */
static int blobs_too_big(struct mctx *m, const char *path, const git_oid *const oids[3],
			 int *big)
{
	size_t len[3] = { 0, 0, 0 };
	git_object_t type;
	int i;

	for (i = 0; i < 3; i++) {
		if (oids[i] && git_odb_read_header(&len[i], &type, m->odb, oids[i]) < 0)
			return tide_error_git(TIDE_ERROR, "cannot read blob %s of '%s'",
					      git_oid_tostr_s(oids[i]), path);
		if (len[i] > m->big_file)
			*big = 1;
	}
	/* as xmerge_cost() counts them, without the lines */
	if (len[0] / 2 + len[1] + len[2] > m->budget / 2)
		*big = 1;
	return 0;
}

static void text_from_blob(struct xmerge_text *in, const git_blob *blob, const char *label)
{
	in->ptr = blob ? git_blob_rawcontent(blob) : "";
	in->size = blob ? (size_t)git_blob_rawsize(blob) : 0;
	in->label = label;
}

/*
 * The conflict marker size of path: the caller's (merge_opts.marker_size),
 * else its conflict-marker-size attribute (git's ll_merge_marker_size(),
 * src/attr.h) in attr_commit's .gitattributes.
 */
static int path_marker_size(struct mctx *m, const char *path)
{
	if (m->marker_fixed)
		return m->marker_size;
	return attr_marker_size(m->repo, m->attr_commit, path);
}

/* The merge driver of path (attr.h): text where the caller chose a marker size. */
static enum attr_merge path_merge_driver(struct mctx *m, const char *path)
{
	if (m->marker_fixed)
		return ATTR_MERGE_TEXT;
	return attr_merge_driver(m->repo, m->attr_commit, path);
}

/* The outcome of merging the contents of one path. */
struct content {
	git_oid oid;
	int clean;
	int binary;			/* binary, or too big to merge by lines */
	int nhunks;
};

/*
 * What git does with contents it cannot merge by lines: keep ours, as a
 * conflict; inside a virtual base, take the base (an empty file where
 * both added one) and go on.
 */
static int binary_result(struct mctx *m, const git_oid *base, const git_oid *ours,
			 struct content *out)
{
	out->binary = 1;
	out->clean = 0;
	out->oid = *ours;
	if (!m->depth)
		return 0;
	if (base) {
		out->oid = *base;
		return 0;
	}
	if (git_blob_create_from_buffer(&out->oid, m->repo, "", 0) < 0)
		return tide_error_git(TIDE_ERROR, "cannot write an empty blob");
	return 0;
}

/* The line merge proper (xmerge.h), within the content budget. */
static int merge_text(struct mctx *m, const char *path, git_blob *const blobs[3],
		      const char *olabel, const char *tlabel, int do_union, struct content *out)
{
	struct xmerge_opts xo = XMERGE_OPTS_INIT;
	struct xmerge_text in[3];
	struct buf text = BUF_INIT;
	int n, size, error = 0;

	text_from_blob(&in[0], blobs[0], NULL);
	text_from_blob(&in[1], blobs[1], olabel);
	text_from_blob(&in[2], blobs[2], tlabel);
	if (xmerge_cost(&in[0], &in[1], &in[2]) > m->budget)
		return 1;
	xo.marker_size = m->marker_size + 2 * m->depth;
	xo.favor = do_union ? 3 : 0;	/* git's union driver: both sides, clean */
	if ((n = xmerge(&text, &in[0], &in[1], &in[2], &xo)) < 0) {
		error = tide_error_wrap(n, "cannot merge '%s'", path);
		goto done;
	}
	/* Only a conflict pays the attribute lookup: its markers are the path's size. */
	if (n > 0 && (size = path_marker_size(m, path)) != m->marker_size) {
		buf_clear(&text);
		xo.marker_size = size + 2 * m->depth;
		if ((n = xmerge(&text, &in[0], &in[1], &in[2], &xo)) < 0) {
			error = tide_error_wrap(n, "cannot merge '%s'", path);
			goto done;
		}
	}
	out->clean = n == 0;
	out->nhunks = n;
	if (git_blob_create_from_buffer(&out->oid, m->repo, text.ptr ? text.ptr : "", text.len) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot write merged '%s'", path);
done:
	buf_release(&text);
	return error;
}

/*
 * Three-way merge of blob contents (base may be NULL: add/add) at path.
 * The labels are the tree names, or "name:path" where a rename made the
 * paths differ, as git writes them.
 */
static int merge_blobs(struct mctx *m, const char *path, const git_oid *base,
		       const git_oid *ours, const git_oid *theirs, const char *olabel,
		       const char *tlabel, struct content *out)
{
	git_blob *blobs[3] = { NULL, NULL, NULL };
	const git_oid *oids[3] = { base, ours, theirs };
	enum attr_merge driver = ATTR_MERGE_TEXT;
	int error = 0, big = 0, i;

	memset(out, 0, sizeof(*out));
	out->clean = 1;
	if (git_oid_equal(ours, theirs) || (base && git_oid_equal(base, theirs))) {
		out->oid = *ours;
		return 0;
	}
	if (base && git_oid_equal(base, ours)) {
		out->oid = *theirs;
		return 0;
	}
	m->res->blobs_merged++;
	error = blobs_too_big(m, path, oids, &big);
	/* -merge or merge=binary: a conflict keeping ours, as for binary content */
	if (error == 0 && !big && (driver = path_merge_driver(m, path)) == ATTR_MERGE_BINARY)
		big = 1;
	for (i = 0; i < 3 && error == 0 && !big; i++)
		if (oids[i] && (error = content_load(m, path, oids[i], &blobs[i])) == 0)
			big = blob_is_binary(blobs[i]);
	if (error == 0 && !big)
		big = (error = merge_text(m, path, blobs, olabel, tlabel,
					  driver == ATTR_MERGE_UNION, out)) > 0;
	if (big)
		error = binary_result(m, base, ours, out);
	for (i = 0; i < 3; i++)
		git_blob_free(blobs[i]);
	return error;
}

/* "path~label" with slashes in the label flattened, as git names the
 * side of a file/directory or distinct-types conflict. */
static char *unique_path(const char *path, const char *label)
{
	char *s = xasprintf("%s~%s", path, label), *p;

	for (p = s + strlen(path) + 1; *p; p++)
		if (*p == '/')
			*p = '_';
	return s;
}

/* The name part of unique_path() for an entry of the current directory. */
static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* --- per-name resolution --- */

static int add_subtree(struct mctx *m, struct out_dir *d, const char *name,
		       const struct ent *b, const struct ent *o, const struct ent *t)
{
	struct ent res;
	size_t old = m->path.len;
	int error;

	buf_puts(&m->path, name);
	buf_putc(&m->path, '/');
	error = merge_dir(m, b, o, t, &res);
	buf_truncate(&m->path, old);
	if (error < 0)
		return error;
	out_add(d, name, &res);
	return 0;
}

/* Two different types (file, symlink, submodule) at one path: git keeps
 * the non-regular one at the path and moves the regular file aside. */
static int distinct_types(struct mctx *m, struct out_dir *d, const char *name,
			  const struct ent *b, const struct ent *o, const struct ent *t)
{
	char *path = child_path(m, name);
	int rename_o = IS_BLOB_REG(o), rename_t = !rename_o && IS_BLOB_REG(t);
	char *alt;

	if (m->depth) {
		if (IS_FILE(b))
			out_add(d, name, b);
		free(path);
		return 0;
	}
	if (!rename_o && !rename_t)
		rename_o = rename_t = 1;
	if (rename_o) {
		alt = unique_path(path, m->ours_label);
		changed_add(m, base_name(alt));
		out_add(d, base_name(alt), o);
		conflict_add(m, alt, MERGE_CONFLICT_MODE, b, o, NULL, 0);
		free(alt);
	} else {
		out_add(d, name, o);
		conflict_add(m, path, MERGE_CONFLICT_MODE, b, o, NULL, 0);
	}
	if (rename_t) {
		alt = unique_path(path, m->theirs_label);
		changed_add(m, base_name(alt));
		out_add(d, base_name(alt), t);
		conflict_add(m, alt, MERGE_CONFLICT_MODE, b, NULL, t, 0);
		free(alt);
	} else {
		out_add(d, name, t);
		conflict_add(m, path, MERGE_CONFLICT_MODE, b, NULL, t, 0);
	}
	free(path);
	return 0;
}

/* merge-ort's mode rule: take the side that changed it; both changing
 * it differently is a conflict that keeps ours. */
static unsigned merge_mode(unsigned b, unsigned o, unsigned t, int *clean)
{
	if (o == t || o == b)
		return t;
	if (t != b)
		*clean = 0;
	return o;
}

/* Both sides have a non-tree entry at name and they differ. */
static int merge_files(struct mctx *m, struct out_dir *d, const char *name,
		       const struct ent *b, const struct ent *o, const struct ent *t)
{
	const struct ent *base = IS_FILE(b) ? b : &NONE_ENT;
	enum merge_conflict_kind kind = base->mode ? MERGE_CONFLICT_CONTENT
						   : MERGE_CONFLICT_ADD_ADD;
	struct content c;
	struct ent res;
	char *path;
	int mode_clean = 1, error;

	if (MODE_TYPE(o->mode) != MODE_TYPE(t->mode))
		return distinct_types(m, d, name, base, o, t);
	path = child_path(m, name);
	res.mode = merge_mode(base->mode, o->mode, t->mode, &mode_clean);
	if (MODE_TYPE(o->mode) != 0100000u) {
		/* symlinks and submodules do not merge: ours (base if virtual) */
		memset(&c, 0, sizeof(c));
		c.clean = git_oid_equal(&o->oid, &t->oid) ||
			  (base->mode && git_oid_equal(&base->oid, &o->oid));
		c.oid = c.clean && base->mode && git_oid_equal(&base->oid, &o->oid)
			? t->oid : o->oid;
		if (!c.clean && m->depth && base->mode)
			c.oid = base->oid;
		if (MODE_TYPE(o->mode) == MODE_GITLINK)
			kind = MERGE_CONFLICT_SUBMODULE;
		error = 0;
	} else {
		/* a base of another type (a symlink) is no base: two-way, as git */
		int same_type = MODE_TYPE(base->mode) == MODE_TYPE(o->mode);

		error = merge_blobs(m, path, same_type ? &base->oid : NULL, &o->oid,
				    &t->oid, m->ours_label, m->theirs_label, &c);
		if (c.binary)
			kind = MERGE_CONFLICT_BINARY;
	}
	if (error == 0) {
		res.oid = c.oid;
		out_add(d, name, &res);
		if (!c.clean || !mode_clean)
			conflict_add(m, path, c.clean ? MERGE_CONFLICT_MODE : kind,
				     base, o, t, c.nhunks);
	}
	free(path);
	return error;
}

static void strlist_push(struct strlist *l, char *s)
{
	array_grow(&l->v, &l->alloc, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = s;
}

static void strlist_release(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Side `side` removed directory name, which the other side changed: the
 * other side's new files there may follow a directory rename. */
static void removed_note(struct mctx *m, const char *name, int side)
{
	struct strlist *l = &m->removed[side];
	char *path;
	size_t len;

	if (!m->collect_gone)
		return;
	path = child_path(m, name);
	/* the walk is depth first: a root we are below was noted last */
	len = l->n ? strlen(l->v[l->n - 1]) : 0;
	if (len && !strncmp(path, l->v[l->n - 1], len) && path[len] == '/')
		free(path);
	else
		strlist_push(l, path);
}

/* One side deleted the path, the other changed it (present is that side). */
static int modify_delete(struct mctx *m, struct out_dir *d, const char *name,
			 const struct ent *b, const struct ent *o, const struct ent *t)
{
	const struct ent *present = o->mode ? o : t;
	char *path;

	if (IS_TREE(present)) {
		if (IS_TREE(b))
			removed_note(m, name, o->mode ? 2 : 1);
		if (IS_TREE(b))
			return add_subtree(m, d, name, b, o->mode ? o : &NONE_ENT,
					   t->mode ? t : &NONE_ENT);
		out_add(d, name, present);
		return 0;
	}
	if (!IS_FILE(b)) {
		/* the deleting side removed a whole directory: nothing left
		 * of it to conflict with the new file */
		out_add(d, name, present);
		return 0;
	}
	if (m->depth) {
		out_add(d, name, b);
		return 0;
	}
	path = child_path(m, name);
	out_add(d, name, present);
	conflict_add(m, path, MERGE_CONFLICT_MODIFY_DELETE, b, o, t, 0);
	free(path);
	return 0;
}

/* A directory on one side, a file on the other: the directory keeps the
 * path and the file moves to "path~<its side's label>". */
static int file_directory(struct mctx *m, struct out_dir *d, const char *name,
			  const struct ent *b, const struct ent *o, const struct ent *t)
{
	int ours_dir = IS_TREE(o);
	const struct ent *dir = ours_dir ? o : t, *file = ours_dir ? t : o;
	const struct ent *fbase = IS_FILE(b) ? b : &NONE_ENT;
	char *path, *alt;
	int error = 0;

	if (IS_TREE(b))
		removed_note(m, name, ours_dir ? 2 : 1);
	if (IS_TREE(b))
		error = add_subtree(m, d, name, b, ours_dir ? o : &NONE_ENT,
				    ours_dir ? &NONE_ENT : t);
	else
		out_add(d, name, dir);
	/* a virtual base keeps the directory only; an untouched file on
	 * the file side is simply deleted by the directory side */
	if (error < 0 || m->depth || (fbase->mode && ent_same(fbase, file)))
		return error;
	path = child_path(m, name);
	alt = unique_path(path, ours_dir ? m->theirs_label : m->ours_label);
	changed_add(m, base_name(alt));
	out_add(d, base_name(alt), file);
	conflict_add(m, alt, MERGE_CONFLICT_FILE_DIRECTORY, fbase,
		     ours_dir ? NULL : o, ours_dir ? t : NULL, 0);
	free(alt);
	free(path);
	return 0;
}

/* Apply a precomputed decision; returns 1 if one applied to name. */
static int apply_override(struct mctx *m, struct out_dir *d, const char *name)
{
	char *path = child_path(m, name);
	struct override *ov = override_find(m, path);

	free(path);
	if (!ov)
		return 0;
	changed_add(m, name);
	out_add(d, name, &ov->ent);
	if (ov->has_conflict)
		conflict_push(m, &ov->conflict);
	return 1;
}

/* Would the trivial resolution skip over an override below name? */
static int must_descend(struct mctx *m, const char *name)
{
	char *path;
	int below;

	if (!m->nov)
		return 0;
	path = child_path(m, name);
	below = override_below(m, path);
	free(path);
	return below;
}

/* A file deleted on both sides may have been renamed on one or both. */
static void gone_add(struct mctx *m, const char *name, const struct ent *b)
{
	struct merge_conflict *g;

	array_grow(&m->gone, &m->gone_alloc, m->ngone + 1, sizeof(*m->gone));
	g = &m->gone[m->ngone++];
	memset(g, 0, sizeof(*g));
	g->path = child_path(m, name);
	g->base = b->oid;
	g->base_mode = b->mode;
}

/*
 * Both sides changed directory name the same way: the result is theirs
 * (= ours), but files deleted in it may be rename sources, so list them
 * (merge-ort, too, never resolves such trees without looking inside).
 */
static int gone_collect(struct mctx *m, const char *name, const struct ent *b,
			const struct ent *o)
{
	git_tree *trees[3] = { NULL, NULL, NULL };
	struct slot *slots = NULL;
	size_t nslots = 0, i, old = m->path.len;
	int error;

	buf_puts(&m->path, name);
	buf_putc(&m->path, '/');
	if ((error = tree_load(m, b, &trees[0])) < 0 ||
	    (error = tree_load(m, o, &trees[1])) < 0)
		goto done;
	slots_build(trees, &slots, &nslots);
	for (i = 0; i < nslots && error == 0; i++) {
		const struct ent *eb = &slots[i].e[0], *eo = &slots[i].e[1];

		if (ent_same(eb, eo))
			continue;
		if (IS_BLOB_REG(eb) && !IS_FILE(eo))
			gone_add(m, slots[i].name, eb);
		else if (IS_TREE(eb))
			error = gone_collect(m, slots[i].name, eb, tree_or_none(eo));
	}
done:
	buf_truncate(&m->path, old);
	free(slots);
	git_tree_free(trees[0]);
	git_tree_free(trees[1]);
	return error;
}

static int merge_slot(struct mctx *m, struct out_dir *d, const struct slot *s)
{
	const struct ent *b = &s->e[0], *o = &s->e[1], *t = &s->e[2];
	const struct ent *trivial = NULL;

	if (m->nov && apply_override(m, d, s->name))
		return 0;
	if (ent_same(o, t))
		trivial = o;
	else if (ent_same(b, o))
		trivial = t;
	else if (ent_same(b, t))
		trivial = o;
	if (m->collect_gone && ent_same(o, t)) {
		int error = 0;

		if (!o->mode && IS_BLOB_REG(b))
			gone_add(m, s->name, b);
		else if (IS_TREE(b) && !ent_same(b, o))
			error = gone_collect(m, s->name, b, tree_or_none(o));
		if (error < 0)
			return error;
	}
	if (trivial) {
		if ((IS_TREE(trivial) || !trivial->mode) && must_descend(m, s->name))
			return add_subtree(m, d, s->name, tree_or_none(b),
					   tree_or_none(o), tree_or_none(t));
		if (trivial != o && !ent_same(trivial, o))
			changed_add(m, s->name);
		out_add(d, s->name, trivial);
		return 0;
	}
	if (!(IS_TREE(o) && IS_TREE(t)))
		changed_add(m, s->name);
	if (!o->mode || !t->mode)
		return modify_delete(m, d, s->name, b, o, t);
	if (IS_TREE(o) && IS_TREE(t))
		return add_subtree(m, d, s->name, tree_or_none(b), o, t);
	if (IS_TREE(o) || IS_TREE(t))
		return file_directory(m, d, s->name, b, o, t);
	return merge_files(m, d, s->name, b, o, t);
}

/*
 * Names below the current directory that only overrides have: where a
 * directory rename moves a file to a path (or a directory) none of the
 * three trees has.  The overrides under the directory are found by
 * binary search, each checked against the sorted slots.
 */
static void slots_inject(struct mctx *m, struct slot **slots, size_t *nslots,
			 struct strlist *names)
{
	const char *dir = buf_cstr(&m->path);
	size_t len = m->path.len, lo = 0, hi = m->nov, n = *nslots, i;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strncmp(m->ov[mid].path, dir, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < m->nov && !strncmp(m->ov[i].path, dir, len); i++) {
		const char *rest = m->ov[i].path + len, *slash = strchr(rest, '/');
		struct slot key;

		memset(&key, 0, sizeof(key));
		key.name = rest;
		key.len = slash ? (size_t)(slash - rest) : strlen(rest);
		if (!key.len || (names->n && strlen(names->v[names->n - 1]) == key.len &&
				 !memcmp(names->v[names->n - 1], rest, key.len)))
			continue;
		if (n && bsearch(&key, *slots, n, sizeof(key), slot_name_cmp))
			continue;
		strlist_push(names, xstrndup(rest, key.len));
		key.name = names->v[names->n - 1];
		*slots = xrealloc(*slots, (*nslots + 1) * sizeof(**slots));
		(*slots)[(*nslots)++] = key;
	}
	if (*nslots != n)
		qsort(*slots, *nslots, sizeof(**slots), slot_name_cmp);
}

/* Merge three directories (each a tree entry or absent) into out (mode 0
 * when the result is empty, as git drops empty directories). */
static int merge_dir(struct mctx *m, const struct ent *b, const struct ent *o,
		     const struct ent *t, struct ent *out)
{
	git_tree *trees[3] = { NULL, NULL, NULL };
	struct out_dir d = { NULL, 0, 0 };
	struct slot *slots = NULL;
	struct strlist injected = { NULL, 0, 0 };
	size_t nslots = 0, i;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = tree_load(m, b, &trees[0])) < 0 ||
	    (error = tree_load(m, o, &trees[1])) < 0 ||
	    (error = tree_load(m, t, &trees[2])) < 0)
		goto done;
	slots_build(trees, &slots, &nslots);
	if (m->nov)
		slots_inject(m, &slots, &nslots, &injected);
	for (i = 0; i < nslots; i++)
		if ((error = merge_slot(m, &d, &slots[i])) < 0)
			goto done;
	if (d.n) {
		if ((error = tree_write(m, &d, &out->oid)) < 0)
			goto done;
		out->mode = MODE_TREE;
	}
done:
	free(slots);
	strlist_release(&injected);
	out_dir_release(&d);
	for (i = 0; i < 3; i++)
		git_tree_free(trees[i]);
	return error;
}

/* --- renames --- */

/* A file one side added, a candidate rename target. */
struct added {
	char *path;
	struct ent e;
	git_hashsig *sig;
	int used;
	int moved;			/* placed by a directory rename */
};

struct added_list {
	struct added *v;
	size_t n, alloc;
	int loaded;
};

static void added_list_release(struct added_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		git_hashsig_free(l->v[i].sig);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Collect files present on side s and not in base (or, with modified,
 * regular files both have and s changed), descending only into
 * directories that differ. */
static int collect_changed(struct mctx *m, const struct ent *b, const struct ent *s,
			   const char *prefix, int modified, struct added_list *out)
{
	git_tree *trees[3] = { NULL, NULL, NULL };
	struct slot *slots = NULL;
	size_t nslots = 0, i;
	int error;

	if ((error = tree_load(m, b, &trees[0])) < 0 ||
	    (error = tree_load(m, s, &trees[1])) < 0)
		goto done;
	slots_build(trees, &slots, &nslots);
	for (i = 0; i < nslots && error == 0; i++) {
		const struct ent *eb = &slots[i].e[0], *es = &slots[i].e[1];
		char *path;

		if (ent_same(eb, es) || !es->mode)
			continue;
		path = xasprintf("%s%s", prefix, slots[i].name);
		if (IS_TREE(es)) {
			char *sub = xasprintf("%s/", path);

			error = collect_changed(m, tree_or_none(eb), es, sub, modified, out);
			free(sub);
			free(path);
		} else if (IS_BLOB_REG(es) && (modified ? IS_BLOB_REG(eb) : !IS_FILE(eb))) {
			array_grow(&out->v, &out->alloc, out->n + 1, sizeof(*out->v));
			memset(&out->v[out->n], 0, sizeof(*out->v));
			out->v[out->n].path = path;
			out->v[out->n].e = *es;
			out->n++;
		} else {
			free(path);
		}
	}
done:
	free(slots);
	for (i = 0; i < 3; i++)
		git_tree_free(trees[i]);
	return error;
}

static int collect_added(struct mctx *m, const struct ent *b, const struct ent *s,
			 const char *prefix, struct added_list *out)
{
	return collect_changed(m, b, s, prefix, 0, out);
}

static int blob_sig(struct mctx *m, const git_oid *oid, git_hashsig **out)
{
	git_blob *blob = NULL;
	int error;

	*out = NULL;
	if ((error = blob_load(m, oid, &blob)) < 0)
		return error;
	/* too small or too uniform to sign: leave it to exact matches */
	if (git_hashsig_create(out, git_blob_rawcontent(blob),
			       (size_t)git_blob_rawsize(blob),
			       GIT_HASHSIG_ALLOW_SMALL_FILES) < 0) {
		git_error_clear();
		*out = NULL;
	}
	git_blob_free(blob);
	return 0;
}

static const char *path_basename(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* The best rename target of the base blob src among the added files:
 * an exact copy first (preferring the same basename), else the most
 * similar file above the threshold. */
static int find_rename(struct mctx *m, const char *src_path, const git_oid *src,
		       struct added_list *l, struct added **out)
{
	git_hashsig *sig = NULL;
	int best = -1, error = 0;
	size_t i;

	*out = NULL;
	for (i = 0; i < l->n; i++) {
		struct added *a = &l->v[i];

		if (a->used || !git_oid_equal(&a->e.oid, src))
			continue;
		if (!*out || !strcmp(path_basename(a->path), path_basename(src_path)))
			*out = a;
	}
	if (*out || l->n > RENAME_LIMIT)
		return 0;
	if ((error = blob_sig(m, src, &sig)) < 0 || !sig)
		return error;
	for (i = 0; i < l->n; i++) {
		struct added *a = &l->v[i];
		int score;

		if (a->used)
			continue;
		if (!a->sig && (error = blob_sig(m, &a->e.oid, &a->sig)) < 0)
			break;
		if (!a->sig)
			continue;
		score = git_hashsig_compare(sig, a->sig);
		if (score >= RENAME_SCORE && score > best) {
			best = score;
			*out = a;
		}
	}
	git_hashsig_free(sig);
	return error;
}

static void override_push(struct override **ov, size_t *n, size_t *alloc,
			  const char *path, const struct ent *e)
{
	struct override *x;

	array_grow(ov, alloc, *n + 1, sizeof(**ov));
	x = &(*ov)[(*n)++];
	memset(x, 0, sizeof(*x));
	x->path = xstrdup(path);
	if (e)
		x->ent = *e;
}

/*
 * Side `s_ours` (1: ours, 0: theirs) renamed src to dst; the other side
 * modified src (other).  The result is the three-way merge at dst.
 */
static int ent_at(struct mctx *m, const struct ent *root, const char *path,
		  struct ent *out)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	int error = 0;

	memset(out, 0, sizeof(*out));
	if (!root->mode)
		return 0;
	if (git_tree_lookup(&tree, m->repo, &root->oid) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read tree");
	if (git_tree_entry_bypath(&e, tree, path) == 0) {
		out->oid = *git_tree_entry_id(e);
		out->mode = git_tree_entry_filemode_raw(e);
	} else {
		git_error_clear();
	}
	git_tree_entry_free(e);
	git_tree_free(tree);
	return error;
}

/* The other side added its own file where one side renamed to: git
 * merges the two as an add/add. */
static int rename_add(struct mctx *m, struct override *ov, const struct ent *theirs_dst,
		      int s_ours)
{
	const git_oid *o = s_ours ? &ov->ent.oid : &theirs_dst->oid;
	const git_oid *t = s_ours ? &theirs_dst->oid : &ov->ent.oid;
	struct merge_conflict *k = &ov->conflict;
	struct content c;
	int error;

	if (git_oid_equal(o, t))
		return 0;
	if ((error = merge_blobs(m, ov->path, NULL, o, t, m->ours_label, m->theirs_label,
				 &c)) < 0)
		return error;
	if (!ov->has_conflict) {
		ov->has_conflict = 1;
		k->path = xstrdup(ov->path);
	}
	k->kind = MERGE_CONFLICT_ADD_ADD;
	k->nhunks = c.nhunks;
	k->ours = *o;
	k->theirs = *t;
	k->ours_mode = k->theirs_mode = ov->ent.mode;
	free(k->ours_path);
	free(k->theirs_path);
	k->ours_path = xstrdup(ov->path);
	k->theirs_path = xstrdup(ov->path);
	ov->ent.oid = c.oid;
	return 0;
}

static int rename_merge(struct mctx *m, const struct merge_conflict *md,
			const struct added *dst, int s_ours, struct override *ov)
{
	const git_oid *other = s_ours ? &md->theirs : &md->ours;
	unsigned other_mode = s_ours ? md->theirs_mode : md->ours_mode;
	char *ol = xasprintf("%s:%s", m->ours_label, s_ours ? dst->path : md->path);
	char *tl = xasprintf("%s:%s", m->theirs_label, s_ours ? md->path : dst->path);
	struct content c;
	int mode_clean = 1, error;

	ov->ent.mode = merge_mode(md->base_mode, s_ours ? dst->e.mode : other_mode,
				  s_ours ? other_mode : dst->e.mode, &mode_clean);
	error = merge_blobs(m, dst->path, &md->base, s_ours ? &dst->e.oid : other,
			    s_ours ? other : &dst->e.oid, ol, tl, &c);
	if (error == 0) {
		ov->ent.oid = c.oid;
		if (!c.clean || !mode_clean) {
			struct merge_conflict *k = &ov->conflict;

			ov->has_conflict = 1;
			k->path = xstrdup(dst->path);
			k->kind = c.binary ? MERGE_CONFLICT_BINARY : MERGE_CONFLICT_CONTENT;
			k->nhunks = c.nhunks;
			k->base = md->base;
			k->base_mode = md->base_mode;
			k->base_path = xstrdup(md->path);
			k->ours = s_ours ? dst->e.oid : *other;
			k->ours_mode = s_ours ? dst->e.mode : other_mode;
			k->ours_path = xstrdup(s_ours ? dst->path : md->path);
			k->theirs = s_ours ? *other : dst->e.oid;
			k->theirs_mode = s_ours ? other_mode : dst->e.mode;
			k->theirs_path = xstrdup(s_ours ? md->path : dst->path);
		}
	}
	free(ol);
	free(tl);
	return error;
}

/* A conflict on an override, copying the strings of c. */
static void override_conflict(struct override *x, const struct merge_conflict *c)
{
	struct merge_conflict *k = &x->conflict;

	x->has_conflict = 1;
	*k = *c;
	k->path = xstrdup(x->path);
	k->base_path = dup_or_null(c->base_path);
	k->ours_path = dup_or_null(c->ours_path);
	k->theirs_path = dup_or_null(c->theirs_path);
}

/* Keep the renamed file at dst (side s_ours), recording a rename conflict
 * against the base version at src. */
static void rename_conflict_at(struct override *x, const struct merge_conflict *src,
			       const struct added *dst, int s_ours, int with_base)
{
	struct merge_conflict c;

	memset(&c, 0, sizeof(c));
	c.kind = MERGE_CONFLICT_RENAME;
	if (with_base) {
		c.base = src->base;
		c.base_mode = src->base_mode;
		c.base_path = src->path;
	}
	if (s_ours) {
		c.ours = dst->e.oid;
		c.ours_mode = dst->e.mode;
		c.ours_path = dst->path;
	} else {
		c.theirs = dst->e.oid;
		c.theirs_mode = dst->e.mode;
		c.theirs_path = dst->path;
	}
	x->ent = dst->e;
	override_conflict(x, &c);
}

/* --- directory renames (merge-ort's merge.directoryRenames=conflict) --- */

/* A count of one file renamed from directory `from` to `to`, or (once
 * decided) one directory rename. */
struct dir_pair {
	char *from, *to;
};

struct dir_pairs {
	struct dir_pair *v;
	size_t n, alloc;
};

static void dir_pairs_push(struct dir_pairs *l, const char *from, const char *to)
{
	array_grow(&l->v, &l->alloc, l->n + 1, sizeof(*l->v));
	l->v[l->n].from = xstrdup(from);
	l->v[l->n].to = xstrdup(to);
	l->n++;
}

static void dir_pairs_release(struct dir_pairs *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].from);
		free(l->v[i].to);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int dir_pair_cmp(const void *pa, const void *pb)
{
	const struct dir_pair *a = pa, *b = pb;
	int c = strcmp(a->from, b->from);

	return c ? c : strcmp(a->to, b->to);
}

static struct dir_pair *dir_pairs_find(const struct dir_pairs *l, const char *from)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(l->v[mid].from, from);

		if (!c)
			return &l->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int strp_cmp(const void *pa, const void *pb)
{
	return strcmp(*(char *const *)pa, *(char *const *)pb);
}

static int strlist_has(const struct strlist *l, const char *s)
{
	return l->n && bsearch(&s, l->v, l->n, sizeof(*l->v), strp_cmp) != NULL;
}

/* Is directory dir (no trailing slash) at or below one of the sorted
 * roots?  Each ancestor is one binary search, so a side removing many
 * directories costs a logarithm per look, not a scan. */
static int dir_under(const struct strlist *roots, const char *dir)
{
	char *t = xstrdup(dir), *s;
	int found = 0;

	for (;;) {
		if ((found = strlist_has(roots, t)) || !(s = strrchr(t, '/')))
			break;
		*s = '\0';
	}
	free(t);
	return found;
}

static int dir_removed(const struct strlist *roots, const char *dir)
{
	return *dir && dir_under(roots, dir);
}

static char *path_dirname(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? xstrndup(p, (size_t)(s - p)) : xstrdup("");
}

/*
 * A file renamed from src to dst counts for its directory's rename, and
 * for the parents' while the trailing directory names agree (a/b/c/f ->
 * a/x/c/f counts a/b/c -> a/x/c and a/b -> a/x), as long as the old
 * directory is one the side removed (git's update_dir_rename_counts()).
 */
static void dir_count_pair(struct dir_pairs *counts, const struct strlist *roots,
			   const struct strlist *relevant, const char *src, const char *dst)
{
	char *od = path_dirname(src), *nd = path_dirname(dst);
	int first = 1;

	for (;; first = 0) {
		if (!first) {
			char *os = strrchr(od, '/'), *ns = strrchr(nd, '/');

			if (!*od || !*nd ||
			    strcmp(os ? os + 1 : od, ns ? ns + 1 : nd))
				break;
			if (os)
				*os = '\0';
			else
				*od = '\0';
			if (ns)
				*ns = '\0';
			else
				*nd = '\0';
		}
		/* git goes on through removed directories at or below one the
		 * other side added files to, and counts those it added to */
		if (!dir_removed(roots, od) || !dir_under(relevant, od))
			break;
		if (strlist_has(relevant, od))
			dir_pairs_push(counts, od, nd);
	}
	free(od);
	free(nd);
}

static int added_oid_cmp(const void *pa, const void *pb)
{
	const struct added *a = pa, *b = pb;
	int c = git_oid_cmp(&a->e.oid, &b->e.oid);

	return c ? c : strcmp(a->path, b->path);
}

/* Identical files scanned per source: many copies of one blob (empty
 * files) must not make exact matching quadratic. */
#define EXACT_SCAN 256

static struct added *exact_match(struct added_list *dst, const struct added *src)
{
	size_t lo = 0, hi = dst->n, i, seen = 0;
	struct added *pick = NULL;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (git_oid_cmp(&dst->v[mid].e.oid, &src->e.oid) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < dst->n && seen < EXACT_SCAN; i++, seen++) {
		struct added *a = &dst->v[i];

		if (!git_oid_equal(&a->e.oid, &src->e.oid))
			break;
		if (a->used)
			continue;
		if (!strcmp(path_basename(a->path), path_basename(src->path)))
			return a;
		if (!pick)
			pick = a;
	}
	return pick;
}

/* The best inexact target of src among dst's unused files, or NULL. */
static int similar_match(struct mctx *m, struct added_list *dst, struct added *src,
			 struct added **out)
{
	int best = -1, error = 0;
	size_t i;

	*out = NULL;
	if (!src->sig && (error = blob_sig(m, &src->e.oid, &src->sig)) < 0)
		return error;
	if (!src->sig)
		return 0;
	for (i = 0; i < dst->n; i++) {
		struct added *a = &dst->v[i];
		int score;

		if (a->used)
			continue;
		if (!a->sig && (error = blob_sig(m, &a->e.oid, &a->sig)) < 0)
			return error;
		if (!a->sig)
			continue;
		score = git_hashsig_compare(src->sig, a->sig);
		if (score >= RENAME_SCORE && score > best) {
			best = score;
			*out = a;
		}
	}
	return 0;
}

/*
 * The rename sources below removed root r that git looks at (its
 * "relevant" sources): files in a directory at or below one the other
 * side added files to, and files the other side modified.
 */
static int dir_sources(struct mctx *m, const struct ent *roots, int side, const char *r,
		       const struct strlist *relevant, struct added_list *out)
{
	struct added_list all, mod;
	struct strlist modp = { NULL, 0, 0 };
	struct ent b, o;
	char *prefix = xasprintf("%s/", r);
	size_t i;
	int error;

	memset(&all, 0, sizeof(all));
	memset(&mod, 0, sizeof(mod));
	if ((error = ent_at(m, &roots[0], r, &b)) < 0 || !IS_TREE(&b) ||
	    (error = ent_at(m, &roots[3 - side], r, &o)) < 0 ||
	    (error = collect_added(m, &NONE_ENT, &b, prefix, &all)) < 0 ||
	    (error = collect_changed(m, &b, tree_or_none(&o), prefix, 1, &mod)) < 0)
		goto done;
	for (i = 0; i < mod.n; i++)
		strlist_push(&modp, xstrdup(mod.v[i].path));
	if (modp.n)
		qsort(modp.v, modp.n, sizeof(*modp.v), strp_cmp);
	for (i = 0; i < all.n; i++) {
		char *dir = path_dirname(all.v[i].path);

		if (dir_under(relevant, dir) || strlist_has(&modp, all.v[i].path)) {
			array_grow(&out->v, &out->alloc, out->n + 1, sizeof(*out->v));
			out->v[out->n++] = all.v[i];
			all.v[i].path = NULL;
		}
		free(dir);
	}
done:
	free(prefix);
	added_list_release(&all);
	added_list_release(&mod);
	strlist_release(&modp);
	return error;
}

/* Pair the files side removed under its removed roots with the files it
 * added: exact copies first, then by similarity; count each pair. */
static int dir_counts_side(struct mctx *m, const struct ent *roots, int side,
			   const struct strlist *relevant, struct dir_pairs *counts)
{
	struct added_list src, dst;
	size_t i;
	int error = 0;

	memset(&src, 0, sizeof(src));
	memset(&dst, 0, sizeof(dst));
	for (i = 0; i < m->removed[side].n && error == 0; i++)
		error = dir_sources(m, roots, side, m->removed[side].v[i], relevant, &src);
	if (error == 0 && src.n)
		error = collect_added(m, &roots[0], &roots[side], "", &dst);
	if (error == 0 && dst.n)
		qsort(dst.v, dst.n, sizeof(*dst.v), added_oid_cmp);
	for (i = 0; i < src.n && dst.n; i++) {
		struct added *a = exact_match(&dst, &src.v[i]);

		if (a) {
			a->used = src.v[i].used = 1;
			dir_count_pair(counts, &m->removed[side], relevant, src.v[i].path,
				       a->path);
		}
	}
	for (i = 0; i < src.n && error == 0 && dst.n <= RENAME_LIMIT &&
		    src.n <= RENAME_LIMIT; i++) {
		struct added *a;

		if (src.v[i].used)
			continue;
		if ((error = similar_match(m, &dst, &src.v[i], &a)) == 0 && a) {
			a->used = 1;
			dir_count_pair(counts, &m->removed[side], relevant, src.v[i].path,
				       a->path);
		}
	}
	added_list_release(&src);
	added_list_release(&dst);
	return error;
}

/* A conflict without stages (see MERGE_CONFLICT_DIR_RENAME). */
static void dir_note(struct mctx *m, const char *path)
{
	struct merge_conflict c;

	memset(&c, 0, sizeof(c));
	c.path = (char *)path;
	c.kind = MERGE_CONFLICT_DIR_RENAME;
	array_grow(&m->notes, &m->notes_alloc, m->nnotes + 1, sizeof(*m->notes));
	m->notes[m->nnotes] = c;
	m->notes[m->nnotes].path = xstrdup(path);
	m->nnotes++;
}

/*
 * Collapse the counts into renames: each old directory goes where most of
 * its files went; a tie is git's "directory rename split", a conflict
 * where the other side added files to the directory (relevant).
 */
static void dir_renames_decide(struct mctx *m, struct dir_pairs *counts,
			       const struct strlist *relevant, struct dir_pairs *out)
{
	size_t i = 0, j;

	if (counts->n)
		qsort(counts->v, counts->n, sizeof(*counts->v), dir_pair_cmp);
	while (i < counts->n) {
		const char *best = NULL, *from = counts->v[i].from;
		size_t max = 0, ties = 0;

		for (j = i; j < counts->n && !strcmp(counts->v[j].from, counts->v[i].from);) {
			size_t k = j;

			while (k < counts->n && !dir_pair_cmp(&counts->v[k], &counts->v[j]))
				k++;
			if (k - j > max) {
				max = k - j;
				best = counts->v[j].to;
				ties = 0;
			} else if (k - j == max) {
				ties++;
			}
			j = k;
		}
		/* only directories the other side added files to move */
		if (strlist_has(relevant, from) && ties)
			dir_note(m, from);
		else if (strlist_has(relevant, from))
			dir_pairs_push(out, from, best);
		i = j;
	}
}

/* The deepest renamed directory holding path, as in check_dir_renamed(). */
static const struct dir_pair *dir_renamed(const struct dir_pairs *ren, const char *path)
{
	char *t = xstrdup(path), *s;
	const struct dir_pair *r = NULL;

	while (!r && (s = strrchr(t, '/'))) {
		*s = '\0';
		r = dir_pairs_find(ren, t);
	}
	free(t);
	return r;
}

static char *dir_apply(const struct dir_pair *r, const char *path)
{
	const char *rest = path + strlen(r->from);

	return *r->to ? xasprintf("%s%s", r->to, rest) : xstrdup(rest + 1);
}

static int dir_move_cmp(const void *pa, const void *pb)
{
	const struct dir_move *a = pa, *b = pb;
	int c = strcmp(a->to, b->to);

	return c ? c : strcmp(a->from, b->from);
}

/*
 * The files side `adder` added under directories the other side renamed
 * move with them (t6423's rules): not into a directory the adder itself
 * renamed away, not when several would land on one path or something of
 * the adder's is in the way (both conflicts without a move).
 */
static int dir_moves_side(struct mctx *m, const struct ent *roots, int adder,
			  const struct dir_pairs *ren, const struct dir_pairs *own,
			  const struct added_list *adds)
{
	struct dir_move *c = NULL;
	size_t n = 0, alloc = 0, i, j;
	int error = 0;

	for (i = 0; i < adds->n; i++) {
		const struct dir_pair *r = dir_renamed(ren, adds->v[i].path);

		if (!r || dir_pairs_find(own, r->to))
			continue;
		array_grow(&c, &alloc, n + 1, sizeof(*c));
		c[n].from = adds->v[i].path;
		c[n].to = dir_apply(r, adds->v[i].path);
		c[n].side = adder;
		c[n].used = 0;
		n++;
	}
	if (n)
		qsort(c, n, sizeof(*c), dir_move_cmp);
	for (i = 0; i < n; i = j) {
		struct ent way;

		for (j = i + 1; j < n && !strcmp(c[j].to, c[i].to); j++)
			;
		if (j - i > 1) {
			dir_note(m, c[i].to);
			continue;
		}
		if ((error = ent_at(m, &roots[adder], c[i].to, &way)) < 0)
			break;
		if (way.mode) {
			dir_note(m, c[i].to);
			continue;
		}
		array_grow(&m->moves, &m->moves_alloc, m->nmoves + 1, sizeof(*m->moves));
		m->moves[m->nmoves] = c[i];
		m->moves[m->nmoves].from = xstrdup(c[i].from);
		c[i].to = NULL;
		m->nmoves++;
	}
	for (i = 0; i < n; i++)
		free(c[i].to);
	free(c);
	return error;
}

/* The files the other side of `side` added under side's removed roots,
 * and their directories (the removed ones a rename is looked for). */
static int dir_adds_side(struct mctx *m, const struct ent *roots, int side,
			 struct added_list *adds, struct strlist *relevant)
{
	size_t i;
	int error = 0;

	for (i = 0; i < m->removed[side].n && error == 0; i++) {
		const char *r = m->removed[side].v[i];
		struct ent b, o;
		char *prefix = xasprintf("%s/", r);

		if ((error = ent_at(m, &roots[0], r, &b)) == 0 &&
		    (error = ent_at(m, &roots[3 - side], r, &o)) == 0 && IS_TREE(&o))
			error = collect_added(m, tree_or_none(&b), &o, prefix, adds);
		free(prefix);
	}
	for (i = 0; i < adds->n; i++)
		strlist_push(relevant, path_dirname(adds->v[i].path));
	if (relevant->n)
		qsort(relevant->v, relevant->n, sizeof(*relevant->v), strp_cmp);
	return error;
}

/* Find each side's directory renames and the moves they imply. */
static int dir_renames_plan(struct mctx *m, const struct ent *roots)
{
	struct dir_pairs ren[3], shared[3];
	struct added_list adds[3];
	struct strlist relevant[3];
	int side, error = 0;

	memset(ren, 0, sizeof(ren));
	memset(shared, 0, sizeof(shared));
	memset(adds, 0, sizeof(adds));
	memset(relevant, 0, sizeof(relevant));
	for (side = 1; side <= 2 && error == 0; side++) {
		struct dir_pairs counts = { NULL, 0, 0 };

		if (!m->removed[side].n)
			continue;
		qsort(m->removed[side].v, m->removed[side].n, sizeof(char *), strp_cmp);
		if ((error = dir_adds_side(m, roots, side, &adds[side], &relevant[side])) == 0 &&
		    adds[side].n &&
		    (error = dir_counts_side(m, roots, side, &relevant[side], &counts)) == 0)
			dir_renames_decide(m, &counts, &relevant[side], &ren[side]);
		dir_pairs_release(&counts);
	}
	/* both maps are looked up while one is pruned: prune copies */
	for (side = 1; side <= 2; side++) {
		size_t i;

		for (i = 0; i < ren[side].n; i++)
			dir_pairs_push(&shared[side], ren[side].v[i].from, ren[side].v[i].to);
	}
	for (side = 1; side <= 2; side++) {
		size_t i, w = 0;

		for (i = 0; i < ren[side].n; i++) {
			if (dir_pairs_find(&shared[3 - side], ren[side].v[i].from)) {
				free(ren[side].v[i].from);
				free(ren[side].v[i].to);
			} else {
				ren[side].v[w++] = ren[side].v[i];
			}
		}
		ren[side].n = w;
	}
	for (side = 1; side <= 2 && error == 0; side++)
		if (ren[side].n)
			error = dir_moves_side(m, roots, 3 - side, &ren[side], &ren[3 - side],
					       &adds[side]);
	for (side = 0; side < 3; side++) {
		dir_pairs_release(&ren[side]);
		dir_pairs_release(&shared[side]);
		added_list_release(&adds[side]);
		strlist_release(&relevant[side]);
	}
	return error;
}

/*
 * After a first walk, each modify/delete conflict of a regular file may
 * be a rename on the deleting side.  Only those paths are looked at (as
 * merge-ort limits itself to "relevant" rename sources), so a merge
 * without such conflicts never pays for rename detection.
 */
struct plan {
	struct added_list added[2];	/* [0]: theirs added, [1]: ours added */
	struct override *ov;
	size_t nov, alloc;
};

static int move_from_cmp(const void *pa, const void *pb)
{
	const struct dir_move *a = pa, *b = pb;
	int c = strcmp(a->from, b->from);

	return c ? c : a->side - b->side;
}

/* The move of a path side added (moves are sorted by from, side). */
static struct dir_move *move_find(struct mctx *m, const char *from, int side)
{
	struct dir_move key, *mv;

	if (!m->nmoves)
		return NULL;
	key.from = (char *)from;
	key.side = side;
	mv = bsearch(&key, m->moves, m->nmoves, sizeof(key), move_from_cmp);
	return mv && !mv->used ? mv : NULL;
}

/* A rename target in a directory the other side renamed moves along:
 * its old place gets the other side's entry (none, usually). */
static int plan_moved(struct mctx *m, const struct ent *roots, struct plan *p,
		      struct added *a, int side)
{
	struct dir_move *mv = move_find(m, a->path, side);
	struct ent other;
	int error;

	if (!mv)
		return 0;
	mv->used = 1;
	if ((error = ent_at(m, &roots[3 - side], a->path, &other)) < 0)
		return error;
	override_push(&p->ov, &p->nov, &p->alloc, a->path, IS_FILE(&other) ? &other : NULL);
	free(a->path);
	a->path = xstrdup(mv->to);
	a->moved = 1;
	return 0;
}

/* A clean result at a moved path is still git's "file location" conflict. */
static void location_conflict(struct override *x, const struct merge_conflict *src,
			      const struct ent *e, int side, const char *from)
{
	struct merge_conflict c;

	if (x->has_conflict)
		return;
	memset(&c, 0, sizeof(c));
	c.kind = MERGE_CONFLICT_LOCATION;
	if (src && src->base_mode) {
		c.base = src->base;
		c.base_mode = src->base_mode;
		c.base_path = src->path;
	}
	if (side == 1) {
		c.ours = e->oid;
		c.ours_mode = e->mode;
		c.ours_path = (char *)from;
	} else {
		c.theirs = e->oid;
		c.theirs_mode = e->mode;
		c.theirs_path = (char *)from;
	}
	override_conflict(x, &c);
}

static int plan_rename(struct mctx *m, const struct ent *roots, struct plan *p,
		       const struct merge_conflict *src, int s_ours, struct added **out)
{
	struct added_list *l = &p->added[s_ours];
	int error;

	*out = NULL;
	if (!l->loaded) {
		l->loaded = 1;
		if ((error = collect_added(m, &roots[0], &roots[s_ours ? 1 : 2], "", l)) < 0)
			return error;
	}
	if ((error = find_rename(m, src->path, &src->base, l, out)) < 0)
		return error;
	if (*out) {
		(*out)->used = 1;
		error = plan_moved(m, roots, p, *out, s_ours ? 1 : 2);
	}
	return error;
}

/* Modify/delete: the deleting side may have renamed the file. */
static int plan_modify_delete(struct mctx *m, const struct ent *roots, struct plan *p,
			      const struct merge_conflict *md)
{
	int s_ours = md->ours_mode == 0;
	struct added *dst;
	struct override *x;
	struct ent other_dst;
	int error;

	if ((error = plan_rename(m, roots, p, md, s_ours, &dst)) < 0 || !dst)
		return error;
	override_push(&p->ov, &p->nov, &p->alloc, md->path, NULL);
	override_push(&p->ov, &p->nov, &p->alloc, dst->path, NULL);
	x = &p->ov[p->nov - 1];
	if ((error = rename_merge(m, md, dst, s_ours, x)) < 0 ||
	    (error = ent_at(m, &roots[s_ours ? 2 : 1], dst->path, &other_dst)) < 0)
		return error;
	if (IS_FILE(&other_dst))
		error = rename_add(m, x, &other_dst, s_ours);
	if (error == 0 && dst->moved)
		location_conflict(x, md, &x->ent, s_ours ? 1 : 2, x->path);
	return error;
}

/* Deleted on both sides: renamed on one (rename/delete), on both to one
 * path (merge there) or to two (rename/rename), as git reports them. */
static int plan_gone(struct mctx *m, const struct ent *roots, struct plan *p,
		     const struct merge_conflict *g)
{
	struct added *dst_o, *dst_t;
	struct merge_conflict md;
	int error;

	if ((error = plan_rename(m, roots, p, g, 1, &dst_o)) < 0 ||
	    (error = plan_rename(m, roots, p, g, 0, &dst_t)) < 0)
		return error;
	if (!dst_o && !dst_t)
		return 0;
	if (dst_o && dst_t && !strcmp(dst_o->path, dst_t->path)) {
		md = *g;
		md.theirs = dst_t->e.oid;
		md.theirs_mode = dst_t->e.mode;
		override_push(&p->ov, &p->nov, &p->alloc, dst_o->path, NULL);
		if ((error = rename_merge(m, &md, dst_o, 1, &p->ov[p->nov - 1])) == 0 &&
		    (dst_o->moved || dst_t->moved))
			location_conflict(&p->ov[p->nov - 1], g, &p->ov[p->nov - 1].ent,
					  dst_o->moved ? 1 : 2, p->ov[p->nov - 1].path);
		return error;
	}
	if (dst_o && dst_t) {
		memset(&md, 0, sizeof(md));
		md.kind = MERGE_CONFLICT_RENAME;
		md.base = g->base;
		md.base_mode = g->base_mode;
		md.base_path = g->path;
		override_push(&p->ov, &p->nov, &p->alloc, g->path, NULL);
		override_conflict(&p->ov[p->nov - 1], &md);
	}
	if (dst_o) {
		override_push(&p->ov, &p->nov, &p->alloc, dst_o->path, NULL);
		rename_conflict_at(&p->ov[p->nov - 1], g, dst_o, 1, !dst_t);
	}
	if (dst_t) {
		override_push(&p->ov, &p->nov, &p->alloc, dst_t->path, NULL);
		rename_conflict_at(&p->ov[p->nov - 1], g, dst_t, 0, !dst_o);
	}
	return 0;
}

/*
 * After a first walk, each modify/delete conflict of a regular file, and
 * each file deleted on both sides, may be a rename.  Only those paths are
 * looked at (merge-ort, too, limits itself to "relevant" rename sources),
 * so a merge without such paths never pays for rename detection.
 */
/*
 * A file the adding side added where the other side renamed the
 * directory: at the new place, merged as an add/add with what the
 * renaming side has there, and a conflict either way.
 */
static int plan_move(struct mctx *m, const struct ent *roots, struct plan *p,
		     const struct dir_move *mv)
{
	struct ent added, left, there;
	struct override *x;
	int error;

	if ((error = ent_at(m, &roots[mv->side], mv->from, &added)) < 0 ||
	    (error = ent_at(m, &roots[3 - mv->side], mv->from, &left)) < 0 ||
	    (error = ent_at(m, &roots[3 - mv->side], mv->to, &there)) < 0)
		return error;
	if (!IS_FILE(&added))
		return 0;
	override_push(&p->ov, &p->nov, &p->alloc, mv->from, IS_FILE(&left) ? &left : NULL);
	override_push(&p->ov, &p->nov, &p->alloc, mv->to, &added);
	x = &p->ov[p->nov - 1];
	if (IS_FILE(&there) && MODE_TYPE(there.mode) == MODE_TYPE(added.mode))
		error = rename_add(m, x, &there, mv->side == 1);
	if (error == 0)
		location_conflict(x, NULL, &added, mv->side, mv->from);
	return error;
}

static int renames_plan(struct mctx *m, const struct ent *roots)
{
	struct plan p;
	size_t i;
	int error = 0;

	memset(&p, 0, sizeof(p));
	if (m->removed[1].n || m->removed[2].n)
		error = dir_renames_plan(m, roots);
	if (m->nmoves)
		qsort(m->moves, m->nmoves, sizeof(*m->moves), move_from_cmp);
	for (i = 0; i < m->res->nconflicts && error == 0; i++) {
		const struct merge_conflict *md = &m->res->conflicts[i];

		if (md->kind == MERGE_CONFLICT_MODIFY_DELETE &&
		    MODE_TYPE(md->base_mode) == 0100000u)
			error = plan_modify_delete(m, roots, &p, md);
	}
	for (i = 0; i < m->ngone && error == 0; i++)
		error = plan_gone(m, roots, &p, &m->gone[i]);
	for (i = 0; i < m->nmoves && error == 0; i++)
		if (!m->moves[i].used)
			error = plan_move(m, roots, &p, &m->moves[i]);
	added_list_release(&p.added[0]);
	added_list_release(&p.added[1]);
	if (error < 0 || !p.nov) {
		overrides_free(p.ov, p.nov);
		return error;
	}
	qsort(p.ov, p.nov, sizeof(*p.ov), override_cmp);
	m->ov = p.ov;
	m->nov = p.nov;
	return 1;
}

static int str_cmp(const void *pa, const void *pb)
{
	return strcmp(*(char *const *)pa, *(char *const *)pb);
}

static int conflict_cmp(const void *pa, const void *pb)
{
	return strcmp(((const struct merge_conflict *)pa)->path,
		      ((const struct merge_conflict *)pb)->path);
}

static void conflicts_reset(struct mctx *m)
{
	size_t i;

	for (i = 0; i < m->res->nconflicts; i++)
		conflict_release(&m->res->conflicts[i]);
	m->res->nconflicts = 0;
	for (i = 0; i < m->res->nchanged; i++)
		free(m->res->changed[i]);
	m->res->nchanged = 0;
}

static void root_ent(struct ent *e, const git_tree *tree)
{
	memset(e, 0, sizeof(*e));
	if (tree) {
		e->oid = *git_tree_id(tree);
		e->mode = MODE_TREE;
	}
}

static int merge_roots(struct mctx *m, const struct ent roots[3], int find_renames)
{
	struct ent res;
	int error;

	m->collect_gone = find_renames && !m->depth;
	error = merge_dir(m, &roots[0], &roots[1], &roots[2], &res);
	m->collect_gone = 0;
	if (error < 0)
		return error;
	if (find_renames && (m->res->nconflicts || m->ngone || m->removed[1].n ||
			     m->removed[2].n)) {
		if ((error = renames_plan(m, roots)) < 0)
			return error;
		if (error > 0) {
			conflicts_reset(m);
			if ((error = merge_dir(m, &roots[0], &roots[1], &roots[2], &res)) < 0)
				return error;
		}
	}
	if (!res.mode) {
		struct out_dir empty = { NULL, 0, 0 };

		if ((error = tree_write(m, &empty, &res.oid)) < 0)
			return error;
	}
	m->res->tree = res.oid;
	for (size_t i = 0; i < m->nnotes; i++)
		conflict_push(m, &m->notes[i]);
	if (m->res->nconflicts)
		qsort(m->res->conflicts, m->res->nconflicts, sizeof(*m->res->conflicts),
	      conflict_cmp);
	if (m->res->nchanged)
		qsort(m->res->changed, m->res->nchanged, sizeof(*m->res->changed), str_cmp);
	return 0;
}

/* Each text conflict's marker size, for rerere and reports (merge.h). */
static void note_marker_sizes(struct mctx *m)
{
	struct merge_conflict *c;
	size_t i;

	for (i = 0; i < m->res->nconflicts; i++) {
		c = &m->res->conflicts[i];
		if (c->nhunks && (c->kind == MERGE_CONFLICT_CONTENT ||
				  c->kind == MERGE_CONFLICT_ADD_ADD))
			c->marker_size = path_marker_size(m, c->path);
	}
}

static int merge_trees_depth(struct merge_result *out, git_repository *repo,
			     const git_tree *base, const git_tree *ours,
			     const git_tree *theirs, const struct merge_opts *opts,
			     int depth)
{
	struct mctx m;
	struct ent roots[3];
	int error;

	memset(out, 0, sizeof(*out));
	memset(&m, 0, sizeof(m));
	m.repo = repo;
	m.res = out;
	m.depth = depth;
	m.attr_commit = opts ? opts->attr_commit : NULL;
	m.ours_label = opts && opts->ours_label ? opts->ours_label : "ours";
	m.theirs_label = opts && opts->theirs_label ? opts->theirs_label : "theirs";
	m.big_file = opts && opts->big_file_threshold ? opts->big_file_threshold
						      : default_big_file;
	m.budget = opts && opts->content_budget ? opts->content_budget : default_budget;
	m.marker_size = opts && opts->marker_size > 0 ? opts->marker_size : ATTR_MARKER_SIZE;
	m.marker_fixed = opts && opts->marker_size > 0;
	if (git_repository_odb(&m.odb, repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot open the object database");
	root_ent(&roots[0], base);
	root_ent(&roots[1], ours);
	root_ent(&roots[2], theirs);
	error = merge_roots(&m, roots, opts ? opts->find_renames : 1);
	if (error == 0 && depth == 0)
		note_marker_sizes(&m);
	overrides_free(m.ov, m.nov);
	for (size_t i = 0; i < m.ngone; i++)
		conflict_release(&m.gone[i]);
	free(m.gone);
	for (size_t i = 0; i < m.nnotes; i++)
		conflict_release(&m.notes[i]);
	free(m.notes);
	for (size_t i = 0; i < m.nmoves; i++) {
		free(m.moves[i].from);
		free(m.moves[i].to);
	}
	free(m.moves);
	strlist_release(&m.removed[1]);
	strlist_release(&m.removed[2]);
	buf_release(&m.path);
	git_odb_free(m.odb);
	if (error < 0)
		merge_result_clear(out);
	return error;
}

void merge_set_limits(size_t big_file_threshold, size_t content_budget)
{
	if (big_file_threshold)
		default_big_file = big_file_threshold;
	if (content_budget)
		default_budget = content_budget;
}

int merge_trees(struct merge_result *out, git_repository *repo,
		const git_tree *base, const git_tree *ours, const git_tree *theirs,
		const struct merge_opts *opts)
{
	return merge_trees_depth(out, repo, base, ours, theirs, opts, 0);
}

/* --- merge bases --- */

static int bases_tree(git_tree **out, git_repository *repo, const git_oidarray *bases,
		      const struct merge_opts *opts, int depth);

static int commit_time_cmp(const void *pa, const void *pb)
{
	const git_commit *a = *(git_commit *const *)pa, *b = *(git_commit *const *)pb;
	git_time_t ta = git_commit_time(a), tb = git_commit_time(b);

	return ta < tb ? -1 : ta > tb;
}

/*
 * The base tree for merging the next merge base into the virtual base of
 * the ones before it: merge-ort makes a virtual commit whose parents are
 * the bases merged so far, so its merge bases with the next one are those
 * of the next one and all of them together (nested virtual bases when
 * there are several).
 */
static int step_base(git_tree **out, git_repository *repo, git_commit **done, size_t ndone,
		     const git_commit *next, const struct merge_opts *opts, int depth)
{
	git_oid *ids = xcalloc(ndone, sizeof(*ids));
	git_oidarray bases = { NULL, 0 };
	size_t i;
	int error;

	for (i = 0; i < ndone; i++)
		git_oid_cpy(&ids[i], git_commit_id(done[i]));
	error = graph_merge_bases_many(&bases, repo, git_commit_id(next), ids, ndone);
	free(ids);
	if (error < 0)
		return tide_error_wrap(error, "cannot compute merge bases");
	error = bases_tree(out, repo, &bases, opts, depth);
	git_oidarray_dispose(&bases);
	return error;
}

/*
 * Several merge bases (criss-cross): merge them one by one, oldest first,
 * into a virtual base tree, as merge-ort does, with its labels.
 */
static int virtual_base(git_tree **out, git_repository *repo,
			const git_oidarray *bases, const struct merge_opts *opts,
			int depth)
{
	struct merge_opts vo = { "Temporary merge branch 1",
				 "Temporary merge branch 2", 1, NULL, 0, 0, 0, NULL };
	git_commit **commits = xcalloc(bases->count, sizeof(*commits));
	git_tree *acc = NULL;
	size_t i;
	int error = 0;

	vo.find_renames = opts ? opts->find_renames : 1;
	if (opts) {
		vo.big_file_threshold = opts->big_file_threshold;
		vo.content_budget = opts->content_budget;
		vo.marker_size = opts->marker_size;
	}
	vo.attr_commit = opts ? opts->attr_commit : NULL;
	for (i = 0; i < bases->count && error == 0; i++)
		if (git_commit_lookup(&commits[i], repo, &bases->ids[i]) < 0)
			error = tide_error_git(TIDE_ERROR, "cannot read merge base");
	if (error == 0)
		qsort(commits, bases->count, sizeof(*commits), commit_time_cmp);
	if (error == 0 && git_commit_tree(&acc, commits[0]) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot read merge base tree");
	for (i = 1; i < bases->count && error == 0; i++) {
		struct merge_result vb;
		git_tree *base = NULL, *next = NULL;

		memset(&vb, 0, sizeof(vb));
		error = step_base(&base, repo, commits, i, commits[i], opts, depth + 1);
		if (error < 0)
			break;
		if (git_commit_tree(&next, commits[i]) < 0)
			error = tide_error_git(TIDE_ERROR, "cannot read merge base tree");
		else
			error = merge_trees_depth(&vb, repo, base, acc, next, &vo, depth + 1);
		git_tree_free(base);
		git_tree_free(next);
		if (error == 0) {
			git_tree_free(acc);
			acc = NULL;
			if (git_tree_lookup(&acc, repo, &vb.tree) < 0)
				error = tide_error_git(TIDE_ERROR, "cannot read virtual base");
		}
		merge_result_clear(&vb);
	}
	for (i = 0; i < bases->count; i++)
		git_commit_free(commits[i]);
	free(commits);
	if (error < 0) {
		git_tree_free(acc);
		acc = NULL;
	}
	*out = acc;
	return error;
}

/* The tree of one merge base, the virtual base of several, or NULL for none. */
static int bases_tree(git_tree **out, git_repository *repo, const git_oidarray *bases,
		      const struct merge_opts *opts, int depth)
{
	git_commit *c = NULL;
	int error = 0;

	*out = NULL;
	if (bases->count == 1) {
		if (git_commit_lookup(&c, repo, &bases->ids[0]) < 0 ||
		    git_commit_tree(out, c) < 0)
			error = tide_error_git(TIDE_ERROR, "cannot read merge base");
		git_commit_free(c);
	} else if (bases->count > 1) {
		error = virtual_base(out, repo, bases, opts, depth);
	}
	return error;
}

/* The merge base tree of two commits (NULL when unrelated). */
static int base_tree(git_tree **out, git_repository *repo, const git_oid *a,
		     const git_oid *b, const struct merge_opts *opts, int depth)
{
	git_oidarray bases = { NULL, 0 };
	int error;

	*out = NULL;
	if (depth == 0 && opts && opts->bases)
		return bases_tree(out, repo, opts->bases, opts, depth);
	if ((error = graph_merge_bases(&bases, repo, a, b)) < 0)
		return tide_error_wrap(error, "cannot compute merge bases");
	error = bases_tree(out, repo, &bases, opts, depth);
	git_oidarray_dispose(&bases);
	return error;
}

static int merge_commit_ids(struct merge_result *out, git_repository *repo,
			    const git_oid *ours, const git_oid *theirs,
			    const struct merge_opts *opts, int depth)
{
	git_commit *co = NULL, *ct = NULL;
	git_tree *b = NULL, *o = NULL, *t = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	if (git_commit_lookup(&co, repo, ours) < 0 ||
	    git_commit_lookup(&ct, repo, theirs) < 0 ||
	    git_commit_tree(&o, co) < 0 || git_commit_tree(&t, ct) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the commits to merge");
		goto done;
	}
	if ((error = base_tree(&b, repo, ours, theirs, opts, depth)) < 0)
		goto done;
	error = merge_trees_depth(out, repo, b, o, t, opts, depth);
done:
	git_tree_free(b);
	git_tree_free(o);
	git_tree_free(t);
	git_commit_free(co);
	git_commit_free(ct);
	return error;
}

int merge_commits(struct merge_result *out, git_repository *repo,
		  const git_commit *ours, const git_commit *theirs,
		  const struct merge_opts *opts)
{
	struct merge_opts o = MERGE_OPTS_INIT;

	if (opts)
		o = *opts;
	/* Attributes as `git merge` in a checkout of ours reads them. */
	if (!o.attr_commit)
		o.attr_commit = git_commit_id(ours);
	return merge_commit_ids(out, repo, git_commit_id(ours), git_commit_id(theirs), &o, 0);
}

/* --- objects in memory, one pack --- */

/*
 * An odb backend that keeps written objects in a mempack and remembers
 * which they were: git_mempack_dump() would pack each commit's whole tree
 * (the kernel, every time), we want exactly the new objects.
 */
struct mem_backend {
	git_odb_backend parent;
	git_odb_backend *mem;
	git_oid *oids;
	size_t n, alloc;
};

static int mem_read(void **data, size_t *len, git_object_t *type,
		    git_odb_backend *be, const git_oid *oid)
{
	git_odb_backend *mem = ((struct mem_backend *)be)->mem;

	return mem->read(data, len, type, mem, oid);
}

static int mem_read_header(size_t *len, git_object_t *type, git_odb_backend *be,
			   const git_oid *oid)
{
	git_odb_backend *mem = ((struct mem_backend *)be)->mem;

	return mem->read_header(len, type, mem, oid);
}

static int mem_exists(git_odb_backend *be, const git_oid *oid)
{
	git_odb_backend *mem = ((struct mem_backend *)be)->mem;

	return mem->exists(mem, oid);
}

static int mem_write(git_odb_backend *be, const git_oid *oid, const void *data,
		     size_t len, git_object_t type)
{
	struct mem_backend *mb = (struct mem_backend *)be;

	array_grow(&mb->oids, &mb->alloc, mb->n + 1, sizeof(*mb->oids));
	mb->oids[mb->n++] = *oid;
	return mb->mem->write(mb->mem, oid, data, len, type);
}

static void mem_free(git_odb_backend *be)
{
	struct mem_backend *mb = (struct mem_backend *)be;

	mb->mem->free(mb->mem);
	free(mb->oids);
	free(mb);
}

struct merge_objects {
	git_repository *repo;
	struct mem_backend *be;		/* owned by the repository's odb */
};

int merge_objects_begin(struct merge_objects **out, git_repository *repo)
{
	struct mem_backend *mb = xcalloc(1, sizeof(*mb));
	git_odb *odb = NULL;
	int error = 0;

	*out = NULL;
	git_odb_init_backend(&mb->parent, GIT_ODB_BACKEND_VERSION);
	mb->parent.read = mem_read;
	mb->parent.read_header = mem_read_header;
	mb->parent.exists = mem_exists;
	mb->parent.write = mem_write;
	mb->parent.free = mem_free;
	if (git_mempack_new(&mb->mem) < 0) {
		free(mb);
		return tide_error_git(TIDE_ERROR, "cannot set up in-memory objects");
	}
	if (git_repository_odb(&odb, repo) < 0 ||
	    git_odb_add_backend(odb, &mb->parent, 999) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot set up in-memory objects");
		mem_free(&mb->parent);
	} else {
		*out = xcalloc(1, sizeof(**out));
		(*out)->repo = repo;
		(*out)->be = mb;
	}
	git_odb_free(odb);
	return error;
}

static int write_pack(git_repository *repo, const git_buf *pack)
{
	git_odb *odb = NULL;
	git_odb_writepack *wp = NULL;
	git_indexer_progress stats;
	int error = 0;

	memset(&stats, 0, sizeof(stats));
	if (git_repository_odb(&odb, repo) < 0 ||
	    git_odb_write_pack(&wp, odb, NULL, NULL) < 0 ||
	    wp->append(wp, pack->ptr, pack->size, &stats) < 0 ||
	    wp->commit(wp, &stats) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot write the merged objects");
	if (wp)
		wp->free(wp);
	git_odb_free(odb);
	return error;
}

int merge_objects_flush(struct merge_objects *mo)
{
	git_packbuilder *pb = NULL;
	git_buf pack = GIT_BUF_INIT;
	size_t i;
	int error = 0;

	if (!mo || !mo->be->n)
		return 0;
	if (git_packbuilder_new(&pb, mo->repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot pack the merged objects");
	for (i = 0; i < mo->be->n && error == 0; i++)
		if (git_packbuilder_insert(pb, &mo->be->oids[i], NULL) < 0)
			error = tide_error_git(TIDE_ERROR, "cannot pack the merged objects");
	if (error == 0 && git_packbuilder_write_buf(&pack, pb) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot pack the merged objects");
	if (error == 0)
		error = write_pack(mo->repo, &pack);
	if (error == 0) {
		/* on disk now: the memory copies can go */
		git_mempack_reset(mo->be->mem);
		mo->be->n = 0;
	}
	git_buf_dispose(&pack);
	git_packbuilder_free(pb);
	return error;
}

void merge_objects_free(struct merge_objects *mo)
{
	free(mo);
}

static size_t blob_header_size(git_odb *odb, const git_oid *id)
{
	git_object_t type;
	size_t len = 0;

	if (id && !git_oid_is_zero(id) && git_odb_read_header(&len, &type, odb, id) < 0) {
		git_error_clear();
		len = 0;
	}
	return len;
}

/* Lines of a blob, reading it (the caller bounded its size). */
static size_t blob_lines(git_repository *repo, const git_oid *id)
{
	git_blob *blob = NULL;
	const char *p, *end;
	size_t n = 0;

	if (!id || git_oid_is_zero(id) || git_blob_lookup(&blob, repo, id) < 0)
		return 0;
	p = git_blob_rawcontent(blob);
	end = p + git_blob_rawsize(blob);
	for (; p < end && (p = memchr(p, '\n', (size_t)(end - p))); p++)
		n++;
	git_blob_free(blob);
	return n + 1;
}

int merge_diff_over_limits(git_repository *repo, const git_oid *a, const git_oid *b,
			   size_t *size_a, size_t *size_b)
{
	git_odb *odb = NULL;
	size_t la, lb;

	if (git_repository_odb(&odb, repo) < 0) {
		git_error_clear();
		return 0;
	}
	la = *size_a = blob_header_size(odb, a);
	lb = *size_b = blob_header_size(odb, b);
	git_odb_free(odb);
	if (la > default_big_file || lb > default_big_file || la + lb > default_budget / 2)
		return 1;
	/* a line costs at most DIFF_LINE_COST: only big texts need counting */
	if ((la + lb) * (DIFF_LINE_COST + 1) <= default_budget)
		return 0;
	return la + lb + DIFF_LINE_COST * (blob_lines(repo, a) + blob_lines(repo, b)) >
	       default_budget;
}

struct hunk_sink {
	void (*add)(void *payload, size_t i, const char *hunk);
	void *payload;
	size_t i;
	struct buf text;
};

static void hunk_region(void *payload, const char *region, size_t len)
{
	struct hunk_sink *h = payload;

	buf_clear(&h->text);
	buf_put(&h->text, region, len);
	h->add(h->payload, h->i, buf_cstr(&h->text));
}

void merge_conflict_hunks(git_repository *repo, const git_oid *tree_id,
			  const char *const *paths, const int *marker_sizes, size_t n,
			  void (*add)(void *payload, size_t i, const char *hunk), void *payload)
{
	struct tree_paths *tp = tree_paths_new(paths, n);
	struct tree_path_entry *e = xcalloc(n ? n : 1, sizeof(*e));
	struct hunk_sink h = { add, payload, 0, BUF_INIT };
	git_blob *blob = NULL;
	size_t size;

	if (tree_paths_read(e, tp, repo, tree_id) < 0)
		goto done;
	for (h.i = 0; h.i < n; h.i++) {
		if (!e[h.i].mode || e[h.i].mode == GIT_FILEMODE_TREE ||
		    e[h.i].mode == GIT_FILEMODE_COMMIT)
			continue;	/* not a file: no text to conflict in */
		/* a blob over the limits was never merged by lines: no markers of ours */
		if (merge_diff_over_limits(repo, &e[h.i].id, NULL, &size, &size) ||
		    git_blob_lookup(&blob, repo, &e[h.i].id) < 0)
			continue;
		conflict_regions(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob),
				 marker_sizes ? marker_sizes[h.i] : 0, hunk_region, &h);
		git_blob_free(blob);
		blob = NULL;
	}
done:
	buf_release(&h.text);
	free(e);
	tree_paths_free(tp);
	tide_error_clear();
	git_error_clear();
}
