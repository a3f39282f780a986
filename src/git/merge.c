/*
 * The in-memory three-way merge engine (see merge.h).  It follows git's
 * merge-ort step by step, so that results (tree OIDs of clean merges,
 * conflicted paths and their stages) agree with
 * `git merge-tree --write-tree`:
 *
 *  1. collect: the three trees are walked together, one directory at a
 *     time.  A name equal on all sides, or a file only one side changed,
 *     is resolved on the spot; a directory only one side changed is left
 *     unread unless rename detection needs that side's files (it is then
 *     read at the end, "deferred").  Every other name becomes an open
 *     entry with its three versions, and files a side added or deleted
 *     become that side's rename candidates.
 *  2. renames: each side's deletions are paired with its additions
 *     (merge_rename.c), in virtual bases too; in the outermost merge,
 *     directories a side removed are renamed where most of their files
 *     went, taking along what the other side added to them; the renames
 *     then move the open entries' versions to their new paths.
 *  3. process: open entries are merged, children before their
 *     directory, and each directory's tree is written once complete.
 * A merge thus costs in proportion to the directories both sides
 * touched, never to the size of the tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>

#include "lineblame.h"
#include "merge.h"
#include "attr.h"
#include "merge_int.h"
#include "error.h"
#include "graph.h"
#include "treepaths.h"
#include "util.h"
#include "xmerge.h"

#define MODE_TREE 0040000u
#define MODE_GITLINK 0160000u
#define MODE_TYPE(m) ((m) & 0170000u)
/* git's buffer_is_binary(): a NUL in the first 8000 bytes. */
#define BINARY_PROBE 8000
#define RENAME_LIMIT 7000	/* merge.renameLimit's default */
/* Bytes per line a two-way xdiff (libgit2's, for diffstats) holds. */
#define DIFF_LINE_COST 130

/* One side's version of a path; mode 0 means absent. */
struct version {
	git_oid oid;
	unsigned mode;
};

static const struct version NO_VERSION;

/* merge_set_limits() */
static size_t default_big_file = MERGE_BIG_FILE_DEFAULT;
static size_t default_budget = MERGE_CONTENT_BUDGET_DEFAULT;

/*
 * A path the merge looked at (merge-ort's merged_info, and while not
 * clean its conflict_info).  The walk's entries, the renames' moves and
 * the processing all work on these, kept in m->paths by path.
 */
struct mpath {
	const char *path;		/* its key in m->paths */
	const char *dir;		/* the parent's path, pointer-equal; "" on top */
	size_t base_off;		/* where the last component starts */
	struct version result;
	unsigned is_null:1;		/* the result is nothing */
	unsigned clean:1;		/* resolved: only result and is_null count */
	/* while open: */
	unsigned df_conflict:1;		/* a file on one side, a directory on another */
	unsigned path_conflict:1;	/* a rename or location conflict */
	unsigned filemask:3, dirmask:3;	/* which of base/ours/theirs is a file, a tree */
	unsigned match_mask:3;		/* which versions are equal (0 or two bits or more) */
	struct version stages[3];
	const char *pathnames[3];	/* where each version came from */
	struct version ours;		/* ours at this path, for the changed list */
	int kind;			/* enum merge_conflict_kind noted, -1 none */
	int nhunks;
};

/* A path in a directory the other side renamed would be moved by several
 * renames at once: git's collision_info. */
struct collision {
	char **sources;
	size_t n, alloc;
	int reported;
};

struct mctx {
	git_repository *repo;
	git_odb *odb;
	const char *ours_label, *theirs_label;
	int depth;			/* > 0 while building a virtual base */
	int marker_bump;		/* one more marker character (nested merges) */
	size_t big_file, budget;	/* content limits (merge_opts) */
	int marker_size;
	int marker_fixed;		/* the caller chose the size: no attribute lookup */
	const git_oid *attr_commit;	/* conflict-marker-size from here (attr.h) */
	int find_renames;
	struct merge_result *res;
	size_t conflicts_alloc, changed_alloc, warnings_alloc;
	struct buf path;		/* the path being merged, for messages */
	struct pool pool;
	const char *top;		/* the top directory's interned name "" */
	struct gmap paths;		/* path -> struct mpath */
	struct gmap conflicted;		/* path -> struct mpath, still conflicted */
	/* rename detection, per side ([1] ours, [2] theirs) */
	struct rn_queue pairs[3];
	struct gmap relevant[3];	/* deleted paths that matter -> RELEVANT_* */
	struct gmap dirs_removed[3];	/* removed directories -> relevance */
	struct gmap dir_counts[3];	/* old dir -> (new dir -> files) */
	struct gmap dir_renames[3];	/* old dir -> new dir */
	struct gmap deferred[3];	/* unread directories -> dir_rename_mask */
	int deferred_okay[3];
	/*
	 * 0: nothing below needs directory rename detection; 2 or 4: a
	 * directory the other side removed, this side may add to it; 7: the
	 * sources below are needed to place a directory rename.
	 */
	unsigned dir_rename_mask;
	int rename_limit;		/* merge_opts.rename_limit resolved: > 0, or < 0 none */
	int needed_limit;
	size_t big_skipped;
	/* conflicts without stages (git lists no file for them) */
	struct merge_conflict *notes;
	size_t nnotes, notes_alloc;
};

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
	for (i = 0; i < res->nwarnings; i++)
		free(res->warnings[i]);
	free(res->warnings);
	memset(res, 0, sizeof(*res));
}

static int same_version(const struct version *a, const struct version *b)
{
	return a->mode == b->mode && (!a->mode || git_oid_equal(&a->oid, &b->oid));
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

/* --- file contents --- */

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
	xo.marker_size = m->marker_size + 2 * m->depth + m->marker_bump;
	xo.favor = do_union ? 3 : 0;	/* git's union driver: both sides, clean */
	if ((n = xmerge(&text, &in[0], &in[1], &in[2], &xo)) < 0) {
		error = tide_error_wrap(n, "cannot merge '%s'", path);
		goto done;
	}
	/* Only a conflict pays the attribute lookup: its markers are the path's size. */
	if (n > 0 && (size = path_marker_size(m, path)) != m->marker_size) {
		buf_clear(&text);
		xo.marker_size = size + 2 * m->depth + m->marker_bump;
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

/* --- paths --- */

static struct mpath *path_get(struct mctx *m, const char *path)
{
	struct gmap_ent *e = gmap_find(&m->paths, path);

	return e ? e->v.p : NULL;
}

/* Put p at path (a pool string), which becomes p's path. */
static void path_put(struct mctx *m, const char *path, struct mpath *p)
{
	struct gmap_ent *e = gmap_put(&m->paths, path, NULL);

	e->v.p = p;
	p->path = e->key;
}

static struct mpath *path_new(struct mctx *m, const char *path, const char *dir)
{
	struct mpath *p = pool_alloc(&m->pool, sizeof(*p));

	p->dir = dir;
	p->base_off = *dir ? strlen(dir) + 1 : 0;
	p->kind = -1;
	path_put(m, path, p);
	return p;
}

/* Note the kind of a conflicted path: the first one met, except that a
 * conflict in the text wins (its markers are what rerere records). */
static void set_kind(struct mpath *p, enum merge_conflict_kind kind)
{
	if (p->kind < 0 || kind == MERGE_CONFLICT_CONTENT || kind == MERGE_CONFLICT_ADD_ADD)
		p->kind = (int)kind;
}

/* A conflict without stages at path (directory rename trouble). */
static void note_add(struct mctx *m, const char *path)
{
	struct merge_conflict *c;

	array_grow(&m->notes, &m->notes_alloc, m->nnotes + 1, sizeof(*m->notes));
	c = &m->notes[m->nnotes++];
	memset(c, 0, sizeof(*c));
	c->path = xstrdup(path);
	c->kind = MERGE_CONFLICT_DIR_RENAME;
}

static void changed_add(struct mctx *m, const char *path)
{
	struct merge_result *r = m->res;

	if (m->depth)
		return;
	array_grow(&r->changed, &m->changed_alloc, r->nchanged + 1, sizeof(*r->changed));
	r->changed[r->nchanged++] = xstrdup(path);
}

static void warning_add(struct merge_result *r, size_t *alloc, char *msg)
{
	size_t i;

	for (i = 0; i < r->nwarnings; i++)
		if (!strcmp(r->warnings[i], msg)) {
			free(msg);
			return;
		}
	array_grow(&r->warnings, alloc, r->nwarnings + 1, sizeof(*r->warnings));
	r->warnings[r->nwarnings++] = msg;
}

/* --- walking three trees --- */

static int tree_load(struct mctx *m, const struct version *v, git_tree **out)
{
	*out = NULL;
	if (MODE_TYPE(v->mode) != MODE_TREE)
		return 0;
	if (git_tree_lookup(out, m->repo, &v->oid) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read tree '%s'",
				      m->path.len ? buf_cstr(&m->path) : "/");
	m->res->trees_read++;
	return 0;
}

/* One name of a directory and its three versions. */
struct slot {
	const char *name;
	size_t len;
	struct version e[3];
};

static int name_cmp(const char *a, size_t al, const char *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);

	if (c)
		return c;
	return al < bl ? -1 : al > bl;
}

struct tcursor {
	const git_tree *t;
	size_t n, pos;
	unsigned char *used;
};

static const char *entry_name(const struct tcursor *c, size_t i, size_t *len)
{
	const char *s = git_tree_entry_name(git_tree_entry_byindex(c->t, i));

	*len = strlen(s);
	return s;
}

/*
 * Where first is in tree c, as git's traverse_trees() finds it: the next
 * unread entry, or one behind it when a directory "t" sorts after files
 * "t-2" or "t.c" (tree order puts "t/" there).  SIZE_MAX: not there.
 */
static size_t cursor_find(const struct tcursor *c, const char *first, size_t flen)
{
	size_t i;

	for (i = c->pos; i < c->n; i++) {
		size_t len;
		const char *name = entry_name(c, i, &len);
		int cmp = name_cmp(first, flen, name, len);

		if (!cmp)
			return c->used[i] ? SIZE_MAX : i;
		if (cmp < 0 && !(flen < len && !memcmp(first, name, flen) && name[flen] < '/'))
			return SIZE_MAX;
	}
	return SIZE_MAX;
}

/* The names of up to three directories in the order git visits them. */
static void walk_order(git_tree *const trees[3], struct slot **out, size_t *nout)
{
	struct tcursor c[3];
	struct slot *all = NULL;
	size_t n = 0, alloc = 0, k;

	for (k = 0; k < 3; k++) {
		c[k].t = trees[k];
		c[k].n = trees[k] ? git_tree_entrycount(trees[k]) : 0;
		c[k].pos = 0;
		c[k].used = xcalloc(c[k].n + 1, 1);
	}
	for (;;) {
		const char *first = NULL;
		size_t flen = 0;
		struct slot *s;

		for (k = 0; k < 3; k++) {
			size_t len;
			const char *name;

			while (c[k].pos < c[k].n && c[k].used[c[k].pos])
				c[k].pos++;
			if (c[k].pos >= c[k].n)
				continue;
			name = entry_name(&c[k], c[k].pos, &len);
			if (!first || name_cmp(name, len, first, flen) < 0) {
				first = name;
				flen = len;
			}
		}
		if (!first)
			break;
		array_grow(&all, &alloc, n + 1, sizeof(*all));
		s = &all[n++];
		memset(s, 0, sizeof(*s));
		s->name = first;
		s->len = flen;
		for (k = 0; k < 3; k++) {
			size_t i = c[k].n ? cursor_find(&c[k], first, flen) : SIZE_MAX;
			const git_tree_entry *te;

			if (i == SIZE_MAX)
				continue;
			c[k].used[i] = 1;
			te = git_tree_entry_byindex(c[k].t, i);
			s->e[k].oid = *git_tree_entry_id(te);
			s->e[k].mode = git_tree_entry_filemode_raw(te);
		}
	}
	for (k = 0; k < 3; k++)
		free(c[k].used);
	*out = all;
	*nout = n;
}

/* --- collect (merge-ort's collect_merge_info) --- */

static int collect_dir(struct mctx *m, const char *dir, const struct version v[3]);

static void add_pair(struct mctx *m, const struct slot *s, const char *path, int side,
		     int is_add, unsigned match_mask)
{
	struct rn_pair *p = pool_alloc(&m->pool, sizeof(*p));
	struct rn_file *f = pool_alloc(&m->pool, sizeof(*f));
	struct rn_file *none = pool_alloc(&m->pool, sizeof(*none));

	if (!is_add) {
		int content = match_mask == 0, location = m->dir_rename_mask == 7;

		if (content || location)
			gmap_set_int(&m->relevant[side], path,
				     content ? RELEVANT_CONTENT : RELEVANT_LOCATION);
	}
	f->path = none->path = path;
	f->oid = s->e[is_add ? side : 0].oid;
	f->mode = s->e[is_add ? side : 0].mode;
	f->size = none->size = -1;
	p->one = is_add ? none : f;
	p->two = is_add ? f : none;
	rn_queue_push(&m->pairs[side], p);
}

/*
 * What rename detection needs from this name: which directories a side
 * removed (and whether a directory rename must be looked for there), and
 * the files each side added or deleted (git's collect_rename_info()).
 */
static void collect_rename_info(struct mctx *m, const struct slot *s, const char *dir,
				const char *path, unsigned filemask, unsigned dirmask,
				unsigned match_mask)
{
	int side;

	if (m->dir_rename_mask != 7 && (dirmask == 3 || dirmask == 5))
		m->dir_rename_mask = dirmask & ~1u;
	if (dirmask == 1 || dirmask == 3 || dirmask == 5) {
		unsigned sides = (7 - dirmask) / 2;
		int rel = m->dir_rename_mask == 7 ? RELEVANT_FOR_ANCESTOR : NOT_RELEVANT;

		if (sides & 1)
			gmap_set_int(&m->dirs_removed[1], path, rel);
		if (sides & 2)
			gmap_set_int(&m->dirs_removed[2], path, rel);
	}
	/* a file added where the other side removed the directory */
	if (m->dir_rename_mask == 7 && (filemask == 2 || filemask == 4))
		gmap_set_int(&m->dirs_removed[3 - (filemask >> 1)], dir, RELEVANT_FOR_SELF);
	if (filemask == 0 || filemask == 7)
		return;
	for (side = 1; side <= 2; side++) {
		unsigned side_mask = 1u << side;

		if ((filemask & 1) && !(filemask & side_mask))
			add_pair(m, s, path, side, 0, match_mask & filemask);
		if (!(filemask & 1) && (filemask & side_mask))
			add_pair(m, s, path, side, 1, match_mask & filemask);
	}
}

static void resolve_now(struct mctx *m, const char *path, const char *dir,
			const struct slot *s, int k)
{
	struct mpath *p = path_new(m, path, dir);

	p->clean = 1;
	p->result = s->e[k];
	p->ours = s->e[1];
}

static void slot_masks(const struct slot *s, unsigned *mask, unsigned *dirmask)
{
	int k;

	*mask = *dirmask = 0;
	for (k = 0; k < 3; k++) {
		if (!s->e[k].mode)
			continue;
		*mask |= 1u << k;
		if (MODE_TYPE(s->e[k].mode) == MODE_TREE)
			*dirmask |= 1u << k;
	}
}

/* Descend into an open directory now, or leave it for later when only
 * one side changed it and no directory rename can need its files. */
static int collect_below(struct mctx *m, struct mpath *p, const struct slot *s,
			 unsigned filemask, unsigned dirmask, int s1mb, int s2mb,
			 unsigned prev_mask)
{
	struct version v[3];
	int side = s1mb ? 2 : s2mb ? 1 : 0, k, error;

	if (filemask == 0 && (dirmask == 2 || dirmask == 4)) {
		/* a new directory on one side only */
		p->match_mask = 7 - dirmask;
		side = (int)dirmask / 2;
	}
	if (m->dir_rename_mask != 7 && side && m->deferred_okay[side]) {
		gmap_set_int(&m->deferred[side], p->path, m->dir_rename_mask);
		m->dir_rename_mask = prev_mask;
		return 0;
	}
	p->match_mask &= filemask;
	for (k = 0; k < 3; k++)
		v[k] = dirmask & (1u << k) ? s->e[k] : NO_VERSION;
	error = collect_dir(m, p->path, v);
	m->dir_rename_mask = prev_mask;
	return error;
}

/* dir/name in the arena ("" for the top directory). */
static const char *path_join_pool(struct mctx *m, const char *dir, const char *name, size_t len)
{
	size_t dl = strlen(dir);
	char *p;

	if (!dl)
		return pool_strndup(&m->pool, name, len);
	p = pool_alloc(&m->pool, dl + 1 + len + 1);
	memcpy(p, dir, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, name, len);
	return p;
}

/* One name: resolve it, or record it open (git's collect_merge_info_callback()). */
static int collect_entry(struct mctx *m, const char *dir, const struct slot *s)
{
	unsigned mask, dirmask, filemask, match_mask = 0, prev_mask = m->dir_rename_mask;
	const struct version *e = s->e;
	int s1mb = e[1].mode && e[0].mode && same_version(&e[0], &e[1]);
	int s2mb = e[2].mode && e[0].mode && same_version(&e[0], &e[2]);
	int sides = e[1].mode && e[2].mode && same_version(&e[1], &e[2]);
	const char *path;
	struct mpath *p;
	int k;

	slot_masks(s, &mask, &dirmask);
	filemask = mask & ~dirmask;
	if (s1mb)
		match_mask = s2mb ? 7 : 3;
	else if (s2mb)
		match_mask = 5;
	else if (sides)
		match_mask = 6;
	path = path_join_pool(m, dir, s->name, s->len);
	/* equal everywhere; or files changed on one side at most */
	if (s1mb && s2mb) {
		resolve_now(m, path, dir, s, 0);
		return 0;
	}
	if (filemask == 7 && (sides || s2mb)) {
		resolve_now(m, path, dir, s, 1);
		return 0;
	}
	if (filemask == 7 && s1mb) {
		resolve_now(m, path, dir, s, 2);
		return 0;
	}
	collect_rename_info(m, s, dir, path, filemask, dirmask, match_mask);
	p = path_new(m, path, dir);
	for (k = 0; k < 3; k++) {
		p->stages[k] = e[k];
		p->pathnames[k] = p->path;
	}
	p->ours = e[1];
	p->filemask = filemask;
	p->dirmask = dirmask;
	p->df_conflict = filemask && dirmask;
	p->match_mask = match_mask;
	/* a directory's result is written once its entries are merged */
	p->is_null = dirmask != 0;
	if (!dirmask)
		return 0;
	return collect_below(m, p, s, filemask, dirmask, s1mb, s2mb, prev_mask);
}

static int collect_dir(struct mctx *m, const char *dir, const struct version v[3])
{
	git_tree *t[3] = { NULL, NULL, NULL };
	struct slot *slots = NULL;
	size_t n = 0, i;
	int k, error = 0;

	buf_clear(&m->path);
	buf_puts(&m->path, dir);
	for (k = 0; k < 3 && error == 0; k++)
		error = tree_load(m, &v[k], &t[k]);
	if (error == 0)
		walk_order(t, &slots, &n);
	/* a directory the other side removed: does this side add a file
	 * right in it?  Then its old files must say where it went. */
	if (m->dir_rename_mask == 2 || m->dir_rename_mask == 4)
		for (i = 0; i < n; i++) {
			unsigned mask, dirmask;

			slot_masks(&slots[i], &mask, &dirmask);
			if ((mask & ~dirmask) && (mask & ~dirmask) == m->dir_rename_mask)
				m->dir_rename_mask = 7;
		}
	for (i = 0; i < n && error == 0; i++)
		error = collect_entry(m, dir, &slots[i]);
	free(slots);
	for (k = 0; k < 3; k++)
		git_tree_free(t[k]);
	return error;
}

/*
 * The directories left unread: when a side has rename sources that
 * matter, all its changed directories are read for destinations (in
 * the order git's map of them gives); otherwise each takes the changed
 * side's tree whole.
 */
static int collect_deferred(struct mctx *m)
{
	int side, error = 0;

	for (side = 1; side <= 2 && error == 0; side++) {
		struct gmap todo = m->deferred[side];
		struct gmap_iter it;
		struct gmap_ent *e;
		int okay = m->relevant[side].count == 0;

		m->deferred_okay[side] = okay;
		gmap_init(&m->deferred[side], &m->pool);
		gmap_iter_init(&it, &todo);
		while (error == 0 && (e = gmap_iter_next(&it))) {
			struct mpath *p = path_get(m, e->key);
			struct version v[3];
			int k;

			if (okay) {
				p->result = p->stages[side];
				p->is_null = !p->stages[side].mode;
				p->match_mask = 0;
				p->clean = 1;
				continue;
			}
			for (k = 0; k < 3; k++)
				v[k] = p->dirmask & (1u << k) ? p->stages[k] : NO_VERSION;
			p->match_mask &= p->filemask;
			m->dir_rename_mask = (unsigned)e->v.i;
			error = collect_dir(m, p->path, v);
		}
		gmap_release(&todo);
		/* deferred meanwhile (git allows for it): taken whole */
		gmap_iter_init(&it, &m->deferred[side]);
		while (error == 0 && (e = gmap_iter_next(&it))) {
			struct mpath *p = path_get(m, e->key);

			p->result = p->stages[side];
			p->is_null = !p->stages[side].mode;
			p->match_mask = 0;
			p->clean = 1;
		}
	}
	return error;
}

static int collect(struct mctx *m, const struct version roots[3])
{
	int error;

	m->deferred_okay[1] = m->deferred_okay[2] = 1;
	if ((error = collect_dir(m, m->top, roots)) < 0)
		return error;
	return collect_deferred(m);
}

/* --- content merges (merge-ort's handle_content_merge) --- */

struct cmerge {
	struct version v;
	int clean;			/* content and mode */
	int content_clean;
	int binary;
	int nhunks;
};

static int write_empty_blob(struct mctx *m, git_oid *out)
{
	if (git_blob_create_from_buffer(out, m->repo, "", 0) < 0)
		return tide_error_git(TIDE_ERROR, "cannot write an empty blob");
	return 0;
}

/* Merge regular files a and b over o (o of another type: no base). */
static int content_merge_text(struct mctx *m, const char *path, const struct version *o,
			      const struct version *a,
			      const struct version *b, const char *const pathnames[3],
			      int bump, struct cmerge *out)
{
	int two_way = MODE_TYPE(o->mode) != MODE_TYPE(a->mode);
	int plain = pathnames[0] == pathnames[1] && pathnames[1] == pathnames[2];
	char *ol = plain ? xstrdup(m->ours_label) : xasprintf("%s:%s", m->ours_label, pathnames[1]);
	char *tl = plain ? xstrdup(m->theirs_label) : xasprintf("%s:%s", m->theirs_label, pathnames[2]);
	struct content c;
	int error;

	m->marker_bump = bump;
	error = merge_blobs(m, path, two_way ? NULL : &o->oid, &a->oid, &b->oid, ol, tl, &c);
	m->marker_bump = 0;
	free(ol);
	free(tl);
	if (error < 0)
		return error;
	out->v.oid = c.oid;
	out->binary = c.binary;
	out->nhunks = c.nhunks;
	out->content_clean = c.clean;
	if (c.binary && m->depth) {
		/* inside a virtual base git takes the base, cleanly */
		out->content_clean = 1;
		if (two_way && (error = write_empty_blob(m, &out->v.oid)) < 0)
			return error;
	}
	return 0;
}

static int content_merge(struct mctx *m, const char *path, const struct version *o,
			 const struct version *a, const struct version *b,
			 const char *const pathnames[3], int bump, struct cmerge *out)
{
	int error = 0;

	memset(out, 0, sizeof(*out));
	out->content_clean = 1;
	buf_clear(&m->path);
	buf_puts(&m->path, path);
	if (a->mode == b->mode || a->mode == o->mode) {
		out->v.mode = b->mode;
		out->clean = 1;
	} else {
		out->v.mode = a->mode;
		out->clean = b->mode == o->mode;
	}
	if (git_oid_equal(&a->oid, &b->oid) || git_oid_equal(&a->oid, &o->oid)) {
		out->v.oid = b->oid;
	} else if (git_oid_equal(&b->oid, &o->oid)) {
		out->v.oid = a->oid;
	} else if (S_ISREG(a->mode)) {
		error = content_merge_text(m, path, o, a, b, pathnames, bump, out);
	} else if (MODE_TYPE(a->mode) == MODE_GITLINK) {
		/* submodules are never checked out here: a conflict, ours */
		out->content_clean = 0;
		out->v.oid = m->depth ? o->oid : a->oid;
		if (m->depth && MODE_TYPE(o->mode) != MODE_TYPE(a->mode))
			out->v = *o;
	} else {
		/* symlinks do not merge: ours, or the base in a virtual base */
		out->content_clean = 0;
		out->v = m->depth ? *o : (struct version){ a->oid, out->v.mode };
	}
	out->clean = out->clean && out->content_clean;
	return error;
}

/* --- directory renames (merge.directoryRenames=conflict) --- */

/*
 * Each directory a side removed goes where most of its files went; a tie
 * is git's "directory rename split", a conflict with nothing staged.
 */
static void dir_renames_decide(struct mctx *m, int side)
{
	struct gmap_iter it, ci;
	struct gmap_ent *e, *c;

	gmap_iter_init(&it, &m->dir_counts[side]);
	while ((e = gmap_iter_next(&it))) {
		intptr_t max = 0, bad_max = 0;
		const char *best = NULL;

		gmap_iter_init(&ci, e->v.p);
		while ((c = gmap_iter_next(&ci))) {
			if (c->v.i == max) {
				bad_max = max;
			} else if (c->v.i > max) {
				max = c->v.i;
				best = c->key;
			}
		}
		if (!max)
			continue;
		if (bad_max == max)
			note_add(m, e->key);
		else
			gmap_put(&m->dir_renames[side], e->key, NULL)->v.p = (void *)best;
	}
}

/* A directory both sides renamed moves with neither. */
static void dir_renames_both(struct mctx *m)
{
	struct gmap_iter it;
	struct gmap_ent *e;
	const char **both = NULL;
	size_t n = 0, alloc = 0, i;

	gmap_iter_init(&it, &m->dir_renames[1]);
	while ((e = gmap_iter_next(&it)))
		if (gmap_find(&m->dir_renames[2], e->key)) {
			array_grow(&both, &alloc, n + 1, sizeof(*both));
			both[n++] = e->key;
		}
	for (i = 0; i < n; i++) {
		gmap_remove(&m->dir_renames[2], both[i]);
		gmap_remove(&m->dir_renames[1], both[i]);
	}
	free(both);
}

/* The deepest renamed directory holding path. */
static struct gmap_ent *dir_renamed(const struct gmap *renames, const char *path)
{
	char *t = xstrdup(path), *s;
	struct gmap_ent *e = NULL;

	while (!e && (s = strrchr(t, '/'))) {
		*s = '\0';
		e = gmap_find(renames, t);
	}
	free(t);
	return e;
}

static char *dir_rename_apply(struct mctx *m, const struct gmap_ent *r, const char *path)
{
	const char *new_dir = r->v.p, *rest = path + strlen(r->key);
	size_t nl = strlen(new_dir), rl = strlen(rest);
	char *s;

	if (!nl)
		return pool_strdup(&m->pool, rest + 1);
	s = pool_alloc(&m->pool, nl + rl + 1);
	memcpy(s, new_dir, nl);
	memcpy(s + nl, rest, rl + 1);
	return s;
}

static int str_ptr_cmp(const void *pa, const void *pb)
{
	return strcmp(*(char *const *)pa, *(char *const *)pb);
}

/* Which new paths the other side's directory renames would give the
 * files this side added (or renamed), and from where. */
static void collisions_compute(struct mctx *m, struct gmap *out, const struct gmap *renames,
			       const struct rn_queue *pairs)
{
	size_t i;

	gmap_init(out, &m->pool);
	if (!renames->count)
		return;
	for (i = 0; i < pairs->n; i++) {
		const struct rn_pair *p = pairs->v[i];
		struct gmap_ent *r, *e;
		struct collision *c;
		char *to;
		int added;

		if ((p->status != 'A' && p->status != 'R') ||
		    !(r = dir_renamed(renames, p->two->path)))
			continue;
		to = dir_rename_apply(m, r, p->two->path);
		e = gmap_put(out, to, &added);
		if (added)
			e->v.p = pool_alloc(&m->pool, sizeof(*c));
		c = e->v.p;
		if (c->n && bsearch(&p->two->path, c->sources, c->n, sizeof(char *), str_ptr_cmp))
			continue;
		array_grow(&c->sources, &c->alloc, c->n + 1, sizeof(*c->sources));
		c->sources[c->n++] = (char *)p->two->path;
		qsort(c->sources, c->n, sizeof(*c->sources), str_ptr_cmp);
	}
}

static void collisions_free(struct gmap *g)
{
	struct gmap_iter it;
	struct gmap_ent *e;

	gmap_iter_init(&it, g);
	while ((e = gmap_iter_next(&it)))
		free(((struct collision *)e->v.p)->sources);
	gmap_release(g);
}

/* Is something of side_mask's, or anything settled, at path already? */
static int path_in_way(struct mctx *m, const char *path, unsigned side_mask)
{
	struct mpath *p = path_get(m, path);

	return p && (p->clean || (side_mask & (p->filemask | p->dirmask)));
}

/*
 * The new path of side's added (or renamed) file path under the other
 * side's directory renames, or NULL: no rename applies, the renamed
 * directory was itself renamed on this side, or the move collides (an
 * entry in the way, several files onto one path: git's "implicit dir
 * rename" conflicts, recorded without stages).
 */
static const char *dir_rename_target(struct mctx *m, const char *path, int side,
				     struct gmap *collisions)
{
	const struct gmap *renames = &m->dir_renames[3 - side];
	struct gmap_ent *r, *ce;
	struct collision *c;
	char *to;

	if (!renames->count || gmap_find(&collisions[3 - side], path) ||
	    !(r = dir_renamed(renames, path)) || gmap_find(&m->dir_renames[side], r->v.p))
		return NULL;
	to = dir_rename_apply(m, r, path);
	ce = gmap_find(&collisions[side], to);
	c = ce ? ce->v.p : NULL;
	if (!c || c->reported) {
		to = NULL;
	} else if (path_in_way(m, to, 1u << side) || c->n > 1) {
		c->reported = 1;
		note_add(m, to);
		to = NULL;
	}
	return to;
}

/* The interned parent directory of path, created (with the ones above)
 * as open directory entries of side's when the merge has none yet. */
static const char *dir_intern(struct mctx *m, const char *path, unsigned filemask)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	struct mpath *p;
	const char *parent;

	if (!slash)
		return m->top;
	dir = pool_strndup(&m->pool, path, (size_t)(slash - path));
	if ((p = path_get(m, dir)))
		return p->path;
	parent = dir_intern(m, dir, filemask);
	p = path_new(m, dir, parent);
	p->dirmask = filemask;
	p->is_null = 1;
	return p->path;
}

/*
 * Move the open entry of pair's destination to new_path, where the other
 * side's directory rename puts it: git's default for that is a "file
 * location" conflict, the file placed at the new path.
 */
static void dir_rename_move(struct mctx *m, struct rn_pair *pair, const char *new_path)
{
	struct mpath *p = path_get(m, pair->two->path), *there;
	const char *parent = dir_intern(m, new_path, p->filemask);

	if (!p->dirmask) {
		if (p->ours.mode && !m->depth)
			changed_add(m, p->path);
		gmap_remove(&m->paths, p->path);
	} else {
		/* a directory stays there: split the file off */
		struct mpath *f = pool_alloc(&m->pool, sizeof(*f));
		int k;

		*f = *p;
		f->dirmask = 0;
		f->stages[1] = NO_VERSION;
		p->filemask = 0;
		p->clean = 1;
		for (k = 0; k < 3; k++)
			if (!(p->dirmask & (1u << k)))
				p->stages[k] = NO_VERSION;
		p = f;
	}
	p->dir = parent;
	p->base_off = *parent ? strlen(parent) + 1 : 0;
	p->ours = NO_VERSION;
	there = path_get(m, new_path);
	if (!there) {
		path_put(m, pool_strdup(&m->pool, new_path), p);
	} else {
		int idx = (int)p->filemask >> 1;

		there->filemask |= p->filemask;
		if (there->dirmask)
			there->df_conflict = 1;
		there->pathnames[idx] = p->pathnames[idx];
		there->stages[idx] = p->stages[idx];
		p = there;
	}
	p->path_conflict = 1;
	set_kind(p, MERGE_CONFLICT_LOCATION);
	pair->two->path = p->path;
}

/* --- renames (merge-ort's process_renames) --- */

static int pair_one_cmp(const void *pa, const void *pb)
{
	const struct rn_pair *a = *(struct rn_pair *const *)pa, *b = *(struct rn_pair *const *)pb;
	int c = strcmp(a->one->path, b->one->path);

	/* stable: sides were queued one after the other */
	if (c)
		return c;
	return a->side != b->side ? a->side - b->side : (a < b ? -1 : a > b);
}

/* One source renamed by both sides: to one path (the renames merge
 * there), or to two (rename/rename, both kept, the base too). */
static int rename_both(struct mctx *m, struct rn_pair *p1, struct rn_pair *p2,
		       const char *oldpath, const char *newpath)
{
	const char *names[3] = { oldpath, newpath, p2->two->path };
	struct mpath *base = path_get(m, names[0]);
	struct mpath *s1 = path_get(m, names[1]), *s2 = path_get(m, names[2]);
	struct cmerge c;
	int error, was_binary;

	if (!base || !s1 || !s2 || base->clean || s1->clean || s2->clean)
		return tide_error_set(TIDE_ERROR, "merge: lost track of the renames of '%s'",
				      oldpath);
	if (!strcmp(names[1], names[2])) {
		s1->stages[0] = base->stages[0];
		s1->filemask |= 1;
		base->is_null = 1;
		base->clean = 1;
		return 0;
	}
	if ((error = content_merge(m, p1->one->path, &base->stages[0], &s1->stages[1],
				   &s2->stages[2], names, 1 + 2 * m->depth, &c)) < 0)
		return error;
	was_binary = !c.clean && same_version(&c.v, &s1->stages[1]);
	s1->stages[1] = c.v;
	s2->stages[2] = was_binary ? s2->stages[2] : c.v;
	s1->path_conflict = s2->path_conflict = base->path_conflict = 1;
	set_kind(s1, MERGE_CONFLICT_RENAME);
	set_kind(s2, MERGE_CONFLICT_RENAME);
	set_kind(base, MERGE_CONFLICT_RENAME);
	return 0;
}

/* The renamed file meets a file the other side has at its new path. */
static int rename_collides(struct mctx *m, struct rn_pair *pair, struct mpath *oldp,
			   struct mpath *newp, int target)
{
	const char *names[3];
	struct mpath *v[3];
	struct cmerge c;
	int error;

	names[0] = names[3 - target] = oldp->path;
	names[target] = newp->path;
	v[0] = v[3 - target] = oldp;
	v[target] = newp;
	if ((error = content_merge(m, pair->one->path, &v[0]->stages[0], &v[1]->stages[1],
				   &v[2]->stages[2], names, 1 + 2 * m->depth, &c)) < 0)
		return error;
	newp->stages[target] = c.v;
	if (!c.clean)
		set_kind(newp, MERGE_CONFLICT_RENAME);
	return 0;
}

/* One side's rename of an open entry: its versions move to the new path. */
static int rename_one(struct mctx *m, struct rn_pair *pair, struct mpath *oldp,
		      struct mpath *newp)
{
	int target = pair->side, other = 3 - target, error = 0;
	int deleted = oldp->filemask == 1;
	int collision = (newp->filemask & (1u << other)) != 0;
	int type_changed = !deleted && S_ISREG(oldp->stages[other].mode) !=
					S_ISREG(newp->stages[target].mode);

	if (type_changed && collision)
		collision = 0;
	if (collision && !deleted) {
		error = rename_collides(m, pair, oldp, newp, target);
	} else if (collision) {
		newp->path_conflict = 1;
		set_kind(newp, MERGE_CONFLICT_RENAME);
	} else {
		newp->stages[0] = oldp->stages[0];
		newp->filemask |= 1;
		newp->pathnames[0] = oldp->path;
		if (type_changed) {
			oldp->stages[0] = NO_VERSION;
			oldp->filemask &= 6;
		} else if (deleted) {
			newp->path_conflict = 1;
			set_kind(newp, MERGE_CONFLICT_RENAME);
		} else {
			newp->stages[other] = oldp->stages[other];
			newp->filemask |= 1u << other;
			newp->pathnames[other] = oldp->path;
		}
	}
	if (!type_changed) {
		oldp->is_null = 1;
		oldp->clean = 1;
	}
	return error;
}

static int renames_process(struct mctx *m, struct rn_queue *q)
{
	size_t i;
	int error = 0;

	for (i = 0; i < q->n && error == 0; i++) {
		struct rn_pair *pair = q->v[i];
		struct mpath *oldp = path_get(m, pair->one->path);
		struct mpath *newp = path_get(m, pair->two->path);

		/* gone with a directory rename, or nothing to carry over */
		if (!oldp || oldp->clean)
			continue;
		if (i + 1 < q->n && !strcmp(oldp->path, q->v[i + 1]->one->path)) {
			error = rename_both(m, pair, q->v[i + 1], oldp->path,
					    newp ? newp->path : pair->two->path);
			i++;
			continue;
		}
		if (!newp || newp->clean)
			return tide_error_set(TIDE_ERROR, "merge: lost track of '%s'",
					      pair->two->path);
		error = rename_one(m, pair, oldp, newp);
	}
	return error;
}

/* Additions and renames of side, moved by the other side's directory
 * renames where they apply, queued for processing. */
static void renames_collect(struct mctx *m, struct rn_queue *out, int side,
			    struct gmap *collisions)
{
	struct rn_queue *q = &m->pairs[side];
	size_t i;

	for (i = 0; i < q->n; i++) {
		struct rn_pair *p = q->v[i];
		const char *to;

		if (p->status != 'A' && p->status != 'R')
			continue;
		to = dir_rename_target(m, p->two->path, side, collisions);
		if (p->status != 'R' && !to)
			continue;
		if (to)
			dir_rename_move(m, p, to);
		p->side = side;
		rn_queue_push(out, p);
	}
}

static void statuses_plain(struct rn_queue *q)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		q->v[i]->status = !q->v[i]->one->mode ? 'A' : 'D';
}

static int renames_detect_side(struct mctx *m, int side)
{
	struct rename_opts o;
	int error;

	if (!m->pairs[side].n || !m->relevant[side].count) {
		statuses_plain(&m->pairs[side]);
		return 0;
	}
	memset(&o, 0, sizeof(o));
	o.repo = m->repo;
	o.odb = m->odb;
	o.pool = &m->pool;
	o.limit = m->rename_limit;
	error = rename_detect(&o, &m->pairs[side], &m->relevant[side], &m->dirs_removed[side],
			      &m->dir_counts[side]);
	if (o.needed_limit > m->needed_limit)
		m->needed_limit = o.needed_limit;
	m->big_skipped += o.big_skipped;
	return error;
}

/* Find the renames and apply them to the open entries (git's
 * detect_and_process_renames()). */
static int renames(struct mctx *m)
{
	struct rn_queue all = { NULL, 0, 0 };
	struct gmap collisions[3];
	int side, error;

	if (!(m->pairs[1].n && m->relevant[1].count) && !(m->pairs[2].n && m->relevant[2].count))
		return 0;
	if ((error = renames_detect_side(m, 1)) < 0 || (error = renames_detect_side(m, 2)) < 0)
		return error;
	if (!m->depth) {
		dir_renames_decide(m, 1);
		dir_renames_decide(m, 2);
		dir_renames_both(m);
	}
	for (side = 1; side <= 2; side++)
		collisions_compute(m, &collisions[side], &m->dir_renames[3 - side], &m->pairs[side]);
	renames_collect(m, &all, 1, collisions);
	renames_collect(m, &all, 2, collisions);
	for (side = 1; side <= 2; side++)
		collisions_free(&collisions[side]);
	if (all.n)
		qsort(all.v, all.n, sizeof(*all.v), pair_one_cmp);
	error = renames_process(m, &all);
	free(all.v);
	return error;
}

/* --- processing (merge-ort's process_entries) --- */

/* The entries of the directories being completed, children first. */
struct dir_versions {
	struct dv_ent {
		const char *name;
		const struct version *v;
	} *v;
	size_t n, alloc;
	struct dv_off {
		const char *dir;
		size_t off;
	} *off;
	size_t noff, off_alloc;
	const char *last;
	size_t last_len;
};

static void record_entry(struct dir_versions *d, const char *path, const struct mpath *p)
{
	if (p->is_null)
		return;
	array_grow(&d->v, &d->alloc, d->n + 1, sizeof(*d->v));
	d->v[d->n].name = path + p->base_off;
	d->v[d->n].v = &p->result;
	d->n++;
}

/* git's tree order: a directory's name compares as if it ended in '/'. */
static int dv_cmp(const void *pa, const void *pb)
{
	const struct dv_ent *a = pa, *b = pb;
	size_t la = strlen(a->name), lb = strlen(b->name), n = la < lb ? la : lb;
	int c = memcmp(a->name, b->name, n);
	unsigned ca, cb;

	if (c)
		return c;
	ca = n < la ? (unsigned char)a->name[n] : (MODE_TYPE(a->v->mode) == MODE_TREE ? '/' : 0);
	cb = n < lb ? (unsigned char)b->name[n] : (MODE_TYPE(b->v->mode) == MODE_TREE ? '/' : 0);
	return (int)ca - (int)cb;
}

/* Write entries off.. of d as one tree object. */
static int tree_write(struct mctx *m, struct dir_versions *d, size_t off, git_oid *out)
{
	struct buf raw = BUF_INIT;
	size_t i;
	int error;

	if (d->n > off)
		qsort(d->v + off, d->n - off, sizeof(*d->v), dv_cmp);
	for (i = off; i < d->n; i++) {
		buf_printf(&raw, "%o %s", d->v[i].v->mode, d->v[i].name);
		buf_putc(&raw, '\0');
		buf_put(&raw, d->v[i].v->oid.id, GIT_OID_RAWSZ);
	}
	errno = 0;
	error = git_odb_write(out, m->odb, raw.ptr ? raw.ptr : "", raw.len, GIT_OBJECT_TREE);
	buf_release(&raw);
	if (error < 0)
		return tide_error_git(TIDE_ERROR, "cannot write a merged tree");
	if (errno && (error = merge_object_written(m->repo, out, errno, "a merged tree")) < 0)
		return error;
	m->res->trees_written++;
	return 0;
}

/*
 * Entries come in reverse path order, so when the next one lies outside
 * the directory of the last, that directory is complete: write it (or
 * drop it when nothing is left in it), as git's
 * write_completed_directory() does.
 */
static int dir_complete(struct mctx *m, const char *new_dir, struct dir_versions *d)
{
	struct mpath *info;
	size_t off;
	const char *prev;
	int error = 0;

	if (new_dir == d->last)
		return 0;
	if (!d->last || !strncmp(new_dir, d->last, d->last_len)) {
		array_grow(&d->off, &d->off_alloc, d->noff + 1, sizeof(*d->off));
		d->off[d->noff].dir = new_dir;
		d->off[d->noff++].off = d->n;
		d->last = new_dir;
		d->last_len = strlen(new_dir);
		return 0;
	}
	info = path_get(m, d->last);
	off = d->off[d->noff - 1].off;
	if (!info)
		return tide_error_set(TIDE_ERROR, "merge: lost directory '%s'", d->last);
	if (off == d->n) {
		info->is_null = 1;
	} else {
		info->is_null = 0;
		info->result.mode = MODE_TREE;
		error = tree_write(m, d, off, &info->result.oid);
	}
	d->noff--;
	d->n = off;
	prev = d->noff ? d->off[d->noff - 1].dir : NULL;
	if (new_dir != prev) {
		array_grow(&d->off, &d->off_alloc, d->noff + 1, sizeof(*d->off));
		d->off[d->noff].dir = new_dir;
		d->off[d->noff++].off = d->n;
	}
	d->last = new_dir;
	d->last_len = strlen(new_dir);
	return error;
}

static void note_changed(struct mctx *m, const char *path, const struct mpath *p)
{
	struct version now = p->is_null ? NO_VERSION : p->result;

	if (!same_version(&now, &p->ours))
		changed_add(m, path);
}

/* "path~label", the label's slashes flattened, numbered while taken. */
static char *unique_path(struct mctx *m, const char *path, const char *label)
{
	struct buf b = BUF_INIT;
	size_t base, i;
	int n = 0;
	char *r;

	buf_printf(&b, "%s~", path);
	base = b.len;
	buf_puts(&b, label);
	for (i = base; i < b.len; i++)
		if (b.ptr[i] == '/')
			b.ptr[i] = '_';
	base = b.len;
	while (gmap_find(&m->paths, buf_cstr(&b))) {
		buf_truncate(&b, base);
		buf_printf(&b, "_%d", n++);
	}
	r = pool_strdup(&m->pool, buf_cstr(&b));
	buf_release(&b);
	return r;
}

static void drop_stages_but(struct mpath *p, unsigned keep)
{
	int k;

	for (k = 0; k < 3; k++)
		if (!(keep & (1u << k)))
			p->stages[k] = NO_VERSION;
}

/* A file where a directory remains: it moves to "path~<its side>". */
static struct mpath *df_move_file(struct mctx *m, struct mpath *p, int *df_index)
{
	struct mpath *f = pool_alloc(&m->pool, sizeof(*f));

	*f = *p;
	f->match_mask &= ~f->dirmask;
	f->dirmask = 0;
	drop_stages_but(f, f->filemask);
	*df_index = p->dirmask & 2 ? 2 : 1;
	path_put(m, unique_path(m, p->path, *df_index == 1 ? m->ours_label : m->theirs_label), f);
	f->ours = NO_VERSION;
	set_kind(f, MERGE_CONFLICT_FILE_DIRECTORY);
	p->filemask = 0;
	return f;
}

/* A file, a symlink or a submodule, different types on each side: the
 * regular file (both, when neither is one) moves to "path~<side>". */
static struct mpath *distinct_types(struct mctx *m, struct mpath *p, struct dir_versions *d)
{
	unsigned o = MODE_TYPE(p->stages[0].mode), a = MODE_TYPE(p->stages[1].mode);
	unsigned b = MODE_TYPE(p->stages[2].mode);
	int ren_a = S_ISREG(p->stages[1].mode), ren_b = !ren_a && S_ISREG(p->stages[2].mode);
	const char *path = p->path, *a_path, *b_path;
	struct mpath *t = pool_alloc(&m->pool, sizeof(*t));

	if (!ren_a && !ren_b)
		ren_a = ren_b = 1;
	a_path = ren_a ? unique_path(m, path, m->ours_label) : NULL;
	b_path = ren_b ? unique_path(m, path, m->theirs_label) : path;
	p->clean = 0;
	*t = *p;
	t->result = p->stages[2];
	t->stages[1] = NO_VERSION;
	t->filemask = 5;
	if (b != o) {
		t->stages[0] = NO_VERSION;
		t->filemask = 4;
	}
	p->result = p->stages[1];
	p->stages[2] = NO_VERSION;
	p->filemask = 3;
	if (a != o) {
		p->stages[0] = NO_VERSION;
		p->filemask = 2;
	}
	set_kind(p, MERGE_CONFLICT_MODE);
	set_kind(t, MERGE_CONFLICT_MODE);
	if (ren_a) {
		path_put(m, a_path, p);
		if (ren_b)
			gmap_remove(&m->paths, path);
	}
	path_put(m, b_path, t);
	if (ren_a)
		p->ours = NO_VERSION;
	if (ren_b)
		t->ours = NO_VERSION;
	gmap_put(&m->conflicted, t->path, NULL)->v.p = t;
	record_entry(d, t->path, t);
	note_changed(m, t->path, t);
	return p;
}

static enum merge_conflict_kind content_kind(const struct mpath *p, const struct cmerge *c)
{
	if (c->binary)
		return MERGE_CONFLICT_BINARY;
	if (MODE_TYPE(c->v.mode) == MODE_GITLINK)
		return MERGE_CONFLICT_SUBMODULE;
	if (c->content_clean)
		return MERGE_CONFLICT_MODE;
	return p->filemask == 6 ? MERGE_CONFLICT_ADD_ADD : MERGE_CONFLICT_CONTENT;
}

/* Both sides have a file of one type here (and maybe the base). */
static int process_both(struct mctx *m, struct mpath *p, int df_index)
{
	struct cmerge c;
	int error;

	if ((error = content_merge(m, p->path, &p->stages[0], &p->stages[1], &p->stages[2],
				   p->pathnames, 0, &c)) < 0)
		return error;
	p->clean = c.clean && !p->df_conflict && !p->path_conflict;
	p->result = c.v;
	p->is_null = !c.v.mode;
	p->nhunks = c.nhunks;
	if (c.clean && p->df_conflict) {
		p->filemask = 1u << df_index;
		p->stages[df_index] = c.v;
	}
	if (!c.clean)
		set_kind(p, content_kind(p, &c));
	return 0;
}

/* The one-sided cases: unchanged on a side, deleted, added. */
static void process_rest(struct mctx *m, struct mpath *p)
{
	if (p->match_mask) {
		p->clean = !p->df_conflict && !p->path_conflict;
		if (p->match_mask == 6) {
			p->result = p->stages[1];
		} else {
			int side = (7 & ~p->match_mask) == 4 ? 2 : 1;

			p->result = p->stages[side];
			p->is_null = !p->result.mode;
			if (p->is_null)
				p->clean = 1;
		}
	} else if (p->filemask == 3 || p->filemask == 5) {
		int side = p->filemask == 5 ? 2 : 1;

		p->result = p->stages[m->depth ? 0 : side];
		p->clean = 0;
		if (!p->path_conflict || !git_oid_equal(&p->stages[0].oid, &p->stages[side].oid))
			set_kind(p, MERGE_CONFLICT_MODIFY_DELETE);
	} else if (p->filemask == 2 || p->filemask == 4) {
		p->result = p->stages[p->filemask == 4 ? 2 : 1];
		p->clean = !p->df_conflict && !p->path_conflict;
	} else if (p->filemask == 1) {
		p->is_null = 1;
		p->result = NO_VERSION;
		p->clean = !p->path_conflict;
	}
}

/* Merge one open entry (git's process_entry()). */
static int process_entry(struct mctx *m, struct mpath *p, struct dir_versions *d)
{
	int df_index = 0, error = 0;

	if (p->dirmask) {
		record_entry(d, p->path, p);
		if (!p->filemask)
			return 0;
	}
	if (p->df_conflict && !p->result.mode) {
		/* the directory is gone: only the file is left here */
		p->df_conflict = 0;
		p->clean = 0;
		p->is_null = 0;
		p->match_mask &= ~p->dirmask;
		p->dirmask = 0;
		drop_stages_but(p, p->filemask);
	} else if (p->df_conflict) {
		if (p->filemask == 1) {
			p->filemask = 0;
			return 0;
		}
		p = df_move_file(m, p, &df_index);
	}
	if (p->match_mask) {
		process_rest(m, p);
	} else if (p->filemask >= 6 &&
		   MODE_TYPE(p->stages[1].mode) != MODE_TYPE(p->stages[2].mode)) {
		if (m->depth) {
			p->clean = 0;
			p->result = p->stages[0];
			p->is_null = !p->result.mode;
		} else {
			p = distinct_types(m, p, d);
		}
	} else if (p->filemask >= 6) {
		error = process_both(m, p, df_index);
	} else {
		process_rest(m, p);
	}
	if (error < 0)
		return error;
	if (!p->clean)
		gmap_put(&m->conflicted, p->path, NULL)->v.p = p;
	record_entry(d, p->path, p);
	note_changed(m, p->path, p);
	return 0;
}

/* git's order for processing: as if every name ended in '/', so a
 * directory comes right before what it holds. */
static int dirs_first_cmp(const void *pa, const void *pb)
{
	const unsigned char *a = (const unsigned char *)(*(struct mpath *const *)pa)->path;
	const unsigned char *b = (const unsigned char *)(*(struct mpath *const *)pb)->path;
	unsigned c1, c2;

	while (*a && *a == *b) {
		a++;
		b++;
	}
	c1 = *a ? *a : '/';
	c2 = *b ? *b : '/';
	if (c1 == c2)
		return *a ? 1 : -1;
	return (int)c1 - (int)c2;
}

static int process_entries(struct mctx *m, git_oid *tree)
{
	struct dir_versions d;
	struct mpath **all;
	struct gmap_iter it;
	struct gmap_ent *e;
	size_t n = 0, i;
	int error = 0;

	memset(&d, 0, sizeof(d));
	if (!m->paths.count) {
		d.n = 0;
		return tree_write(m, &d, 0, tree);
	}
	all = xmalloc(m->paths.count * sizeof(*all));
	gmap_iter_init(&it, &m->paths);
	while ((e = gmap_iter_next(&it)))
		all[n++] = e->v.p;
	qsort(all, n, sizeof(*all), dirs_first_cmp);
	for (i = n; i-- > 0 && error == 0;) {
		struct mpath *p = all[i];

		if ((error = dir_complete(m, p->dir, &d)) < 0)
			break;
		if (p->clean) {
			record_entry(&d, p->path, p);
			note_changed(m, p->path, p);
		} else {
			error = process_entry(m, p, &d);
		}
	}
	if (error == 0 && (d.noff != 1 || d.off[0].off != 0))
		error = tide_error_set(TIDE_ERROR, "merge: directories out of order");
	if (error == 0)
		error = tree_write(m, &d, 0, tree);
	free(all);
	free(d.v);
	free(d.off);
	return error;
}

/* --- the result --- */

static void conflict_from(struct merge_conflict *c, const struct mpath *p)
{
	memset(c, 0, sizeof(*c));
	c->path = xstrdup(p->path);
	if (p->kind >= 0)
		c->kind = (enum merge_conflict_kind)p->kind;
	else if (p->df_conflict)
		c->kind = MERGE_CONFLICT_FILE_DIRECTORY;
	else if (p->path_conflict)
		c->kind = MERGE_CONFLICT_RENAME;
	else
		c->kind = MERGE_CONFLICT_CONTENT;
	c->nhunks = p->nhunks;
	if (p->filemask & 1) {
		c->base = p->stages[0].oid;
		c->base_mode = p->stages[0].mode;
		c->base_path = xstrdup(p->pathnames[0]);
	}
	if (p->filemask & 2) {
		c->ours = p->stages[1].oid;
		c->ours_mode = p->stages[1].mode;
		c->ours_path = xstrdup(p->pathnames[1]);
	}
	if (p->filemask & 4) {
		c->theirs = p->stages[2].oid;
		c->theirs_mode = p->stages[2].mode;
		c->theirs_path = xstrdup(p->pathnames[2]);
	}
}

static int conflict_cmp(const void *pa, const void *pb)
{
	const struct merge_conflict *a = pa, *b = pb;
	int c = strcmp(a->path, b->path);

	/* staged ones first at one path, as notes are appended */
	if (c)
		return c;
	return (a->base_mode || a->ours_mode || a->theirs_mode) ?
	       -!(b->base_mode || b->ours_mode || b->theirs_mode) :
	       !!(b->base_mode || b->ours_mode || b->theirs_mode);
}

static int str_cmp(const void *pa, const void *pb)
{
	return strcmp(*(char *const *)pa, *(char *const *)pb);
}

static void result_finish(struct mctx *m)
{
	struct merge_result *r = m->res;
	struct gmap_iter it;
	struct gmap_ent *e;
	size_t i;

	gmap_iter_init(&it, &m->conflicted);
	while ((e = gmap_iter_next(&it))) {
		array_grow(&r->conflicts, &m->conflicts_alloc, r->nconflicts + 1,
			   sizeof(*r->conflicts));
		conflict_from(&r->conflicts[r->nconflicts++], e->v.p);
	}
	for (i = 0; i < m->nnotes; i++) {
		array_grow(&r->conflicts, &m->conflicts_alloc, r->nconflicts + 1,
			   sizeof(*r->conflicts));
		r->conflicts[r->nconflicts++] = m->notes[i];
	}
	m->nnotes = 0;
	if (r->nconflicts)
		qsort(r->conflicts, r->nconflicts, sizeof(*r->conflicts), conflict_cmp);
	if (r->nchanged)
		qsort(r->changed, r->nchanged, sizeof(*r->changed), str_cmp);
	if (m->needed_limit)
		warning_add(r, &m->warnings_alloc,
			    xasprintf("inexact rename detection was skipped: it would need "
				      "merge.renameLimit of %d (%d is used), so only renames of "
				      "unchanged files and files of the same name were found",
				      m->needed_limit, m->rename_limit));
	if (m->big_skipped)
		warning_add(r, &m->warnings_alloc,
			    xasprintf("%zu file%s larger than %u MiB %s paired by identical "
				      "content only", m->big_skipped,
				      m->big_skipped == 1 ? "" : "s", RENAME_BLOB_MAX >> 20,
				      m->big_skipped == 1 ? "was" : "were"));
}

static void version_of_tree(struct version *v, const git_tree *tree)
{
	memset(v, 0, sizeof(*v));
	if (tree) {
		v->oid = *git_tree_id(tree);
		v->mode = MODE_TREE;
	}
}

static void mctx_release(struct mctx *m)
{
	size_t i;
	int k;

	for (k = 0; k < 3; k++) {
		free(m->pairs[k].v);
		gmap_release(&m->relevant[k]);
		gmap_release(&m->dirs_removed[k]);
		gmap_release(&m->dir_renames[k]);
		gmap_release(&m->deferred[k]);
		if (m->dir_counts[k].table) {
			struct gmap_iter it;
			struct gmap_ent *e;

			gmap_iter_init(&it, &m->dir_counts[k]);
			while ((e = gmap_iter_next(&it)))
				gmap_release(e->v.p);
		}
		gmap_release(&m->dir_counts[k]);
	}
	gmap_release(&m->paths);
	gmap_release(&m->conflicted);
	for (i = 0; i < m->nnotes; i++)
		conflict_release(&m->notes[i]);
	free(m->notes);
	pool_release(&m->pool);
	buf_release(&m->path);
	git_odb_free(m->odb);
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
	struct version roots[3];
	int k, error;

	memset(out, 0, sizeof(*out));
	memset(&m, 0, sizeof(m));
	m.repo = repo;
	m.res = out;
	m.depth = depth;
	m.attr_commit = opts ? opts->attr_commit : NULL;
	m.ours_label = opts && opts->ours_label ? opts->ours_label : "ours";
	m.theirs_label = opts && opts->theirs_label ? opts->theirs_label : "theirs";
	m.find_renames = opts ? opts->find_renames : 1;
	m.rename_limit = opts && opts->rename_limit ? opts->rename_limit : RENAME_LIMIT;
	m.top = "";
	m.big_file = opts && opts->big_file_threshold ? opts->big_file_threshold
						      : default_big_file;
	m.budget = opts && opts->content_budget ? opts->content_budget : default_budget;
	m.marker_size = opts && opts->marker_size > 0 ? opts->marker_size : ATTR_MARKER_SIZE;
	m.marker_fixed = opts && opts->marker_size > 0;
	if (git_repository_odb(&m.odb, repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot open the object database");
	gmap_init(&m.paths, &m.pool);
	gmap_init(&m.conflicted, &m.pool);
	for (k = 0; k < 3; k++) {
		gmap_init(&m.relevant[k], &m.pool);
		gmap_init(&m.dirs_removed[k], &m.pool);
		gmap_init(&m.dir_counts[k], &m.pool);
		gmap_init(&m.dir_renames[k], &m.pool);
		gmap_init(&m.deferred[k], &m.pool);
	}
	version_of_tree(&roots[0], base);
	version_of_tree(&roots[1], ours);
	version_of_tree(&roots[2], theirs);
	if ((error = collect(&m, roots)) == 0 && (!m.find_renames || (error = renames(&m)) == 0) &&
	    (error = process_entries(&m, &out->tree)) == 0) {
		result_finish(&m);
		if (depth == 0)
			note_marker_sizes(&m);
	}
	mctx_release(&m);
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
		      const struct merge_opts *opts, int depth, struct merge_result *w);

/* Move from's warnings (an inner merge's) to the end of to's. */
static void warnings_move(struct merge_result *to, struct merge_result *from)
{
	size_t i, alloc = to->nwarnings;

	for (i = 0; i < from->nwarnings; i++)
		warning_add(to, &alloc, from->warnings[i]);
	free(from->warnings);
	from->warnings = NULL;
	from->nwarnings = 0;
}

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
		     const git_commit *next, const struct merge_opts *opts, int depth,
		     struct merge_result *w)
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
	error = bases_tree(out, repo, &bases, opts, depth, w);
	git_oidarray_dispose(&bases);
	return error;
}

/*
 * Several merge bases (criss-cross): merge them one by one, oldest first,
 * into a virtual base tree, as merge-ort does, with its labels.
 */
static int virtual_base(git_tree **out, git_repository *repo,
			const git_oidarray *bases, const struct merge_opts *opts,
			int depth, struct merge_result *w)
{
	struct merge_opts vo = { "Temporary merge branch 1",
				 "Temporary merge branch 2", 1, NULL, 0, 0, 0, NULL, 0 };
	git_commit **commits = xcalloc(bases->count, sizeof(*commits));
	git_tree *acc = NULL;
	size_t i;
	int error = 0;

	vo.find_renames = opts ? opts->find_renames : 1;
	if (opts) {
		vo.big_file_threshold = opts->big_file_threshold;
		vo.content_budget = opts->content_budget;
		vo.marker_size = opts->marker_size;
		vo.rename_limit = opts->rename_limit;
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
		error = step_base(&base, repo, commits, i, commits[i], opts, depth + 1, w);
		if (error < 0)
			break;
		if (git_commit_tree(&next, commits[i]) < 0)
			error = tide_error_git(TIDE_ERROR, "cannot read merge base tree");
		else
			error = merge_trees_depth(&vb, repo, base, acc, next, &vo, depth + 1);
		git_tree_free(base);
		git_tree_free(next);
		warnings_move(w, &vb);
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
		      const struct merge_opts *opts, int depth, struct merge_result *w)
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
		error = virtual_base(out, repo, bases, opts, depth, w);
	}
	return error;
}

/* The merge base tree of two commits (NULL when unrelated). */
static int base_tree(git_tree **out, git_repository *repo, const git_oid *a,
		     const git_oid *b, const struct merge_opts *opts, int depth,
		     struct merge_result *w)
{
	git_oidarray bases = { NULL, 0 };
	int error;

	*out = NULL;
	if (depth == 0 && opts && opts->bases)
		return bases_tree(out, repo, opts->bases, opts, depth, w);
	if ((error = graph_merge_bases(&bases, repo, a, b)) < 0)
		return tide_error_wrap(error, "cannot compute merge bases");
	error = bases_tree(out, repo, &bases, opts, depth, w);
	git_oidarray_dispose(&bases);
	return error;
}

static int merge_commit_ids(struct merge_result *out, git_repository *repo,
			    const git_oid *ours, const git_oid *theirs,
			    const struct merge_opts *opts, int depth)
{
	git_commit *co = NULL, *ct = NULL;
	git_tree *b = NULL, *o = NULL, *t = NULL;
	struct merge_result w;		/* the virtual bases' warnings */
	int error;

	memset(out, 0, sizeof(*out));
	memset(&w, 0, sizeof(w));
	if (git_commit_lookup(&co, repo, ours) < 0 ||
	    git_commit_lookup(&ct, repo, theirs) < 0 ||
	    git_commit_tree(&o, co) < 0 || git_commit_tree(&t, ct) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the commits to merge");
		goto done;
	}
	if ((error = base_tree(&b, repo, ours, theirs, opts, depth, &w)) < 0)
		goto done;
	if ((error = merge_trees_depth(out, repo, b, o, t, opts, depth)) == 0)
		warnings_move(out, &w);
done:
	merge_result_clear(&w);
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
