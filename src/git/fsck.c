/*
 * Tree entries checked at the door (see fsck.h).  The rules are git's:
 * fsck.c's fsck_tree() (hasDot, hasDotdot, hasDotgit, fullPathname,
 * emptyName, badFilemode, gitmodulesSymlink, treeNotSorted,
 * duplicateEntries) with path.c's NTFS and utf8.c's HFS+ spellings of
 * ".git" and ".gitmodules", which `git fsck` checks on every platform: a
 * tree fetched on Linux may still be checked out elsewhere, and the
 * checkout of DIR/build/src must not depend on the file system being
 * case-sensitive.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fsck.h"
#include "graph.h"
#include "safefs.h"
#include "util.h"

#define MODE_TREE 0040000u
#define MODE_BLOB 0100644u
#define MODE_BLOB_GROUP_WRITABLE 0100664u
#define MODE_EXEC 0100755u
#define MODE_LINK 0120000u
#define MODE_COMMIT 0160000u

static const char why_bad_mode[] = "bad file mode";

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Do the n bytes at s equal the lowercase ASCII needle, ignoring case? */
static int equals_nocase(const char *s, const char *needle, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (lower((unsigned char)s[i]) != needle[i])
			return 0;
	return 1;
}

/* ---- NTFS ---- */

/*
 * NTFS drops trailing spaces and dots, and "name:stream" opens a stream of
 * name: ".git . ", ".git::$INDEX_ALLOCATION" are all ".git".  Is the rest
 * of the segment, from i, such a tail?
 */
static int ntfs_tail(const char *s, size_t len, size_t i)
{
	for (; i < len; i++) {
		if (s[i] == ':')
			return 1;
		if (s[i] != ' ' && s[i] != '.')
			return 0;
	}
	return 1;
}

/*
 * An 8.3 short name NTFS may give the file: the first six characters and
 * "~1".."~4", or git's fall-back: a hash-based prefix (shortname) and "~N"
 * with a digit string, eight characters in all.
 */
static int ntfs_short(const char *s, size_t len, const char *name, const char *shortname)
{
	size_t i;

	if (len >= 8 && equals_nocase(s, name, 6) && s[6] == '~' && s[7] >= '1' && s[7] <= '4')
		return ntfs_tail(s, len, 8);
	for (i = 0; i < 8; i++) {
		if (i >= len)
			return 0;
		if (s[i] == '~')
			break;
		if (i >= 6 || (unsigned char)s[i] >= 0x80 || lower((unsigned char)s[i]) != shortname[i])
			return 0;
	}
	if (i == 8 || i + 1 >= len || s[i + 1] < '1' || s[i + 1] > '9')
		return 0;
	for (i += 2; i < 8; i++)
		if (i >= len || s[i] < '0' || s[i] > '9')
			return 0;
	return ntfs_tail(s, len, 8);
}

/* Is one backslash-separated segment ".<name>" as NTFS reads it? */
static int ntfs_dot(const char *s, size_t len, const char *name, const char *shortname)
{
	size_t n = strlen(name);

	if (len >= n + 1 && s[0] == '.' && equals_nocase(s + 1, name, n) && ntfs_tail(s, len, n + 1))
		return 1;
	return ntfs_short(s, len, name, shortname);
}

/*
 * Windows takes a backslash for a directory separator, so "x\.git" names
 * ".git" in x: each segment counts.
 */
static int ntfs_any_segment(const char *s, size_t len, const char *name, const char *shortname)
{
	const char *end = s + len, *bs;

	for (;;) {
		bs = memchr(s, '\\', (size_t)(end - s));
		if (ntfs_dot(s, (size_t)((bs ? bs : end) - s), name, shortname))
			return 1;
		if (!bs)
			return 0;
		s = bs + 1;
	}
}

static int ntfs_dotgit_segment(const char *s, size_t len)
{
	if (len >= 4 && s[0] == '.' && equals_nocase(s + 1, "git", 3))
		return ntfs_tail(s, len, 4);
	if (len >= 5 && equals_nocase(s, "git~1", 5))
		return ntfs_tail(s, len, 5);
	return 0;
}

static int ntfs_dotgit(const char *s, size_t len)
{
	const char *end = s + len, *bs;

	for (;;) {
		bs = memchr(s, '\\', (size_t)(end - s));
		if (ntfs_dotgit_segment(s, (size_t)((bs ? bs : end) - s)))
			return 1;
		if (!bs)
			return 0;
		s = bs + 1;
	}
}

/* ---- HFS+ ---- */

/*
 * The next UTF-8 code point at *p (before end), or 0 at the end, or -1 if
 * the bytes are not UTF-8 (HFS+ would not store them as such a name).
 */
static long utf8_next(const unsigned char **p, const unsigned char *end)
{
	const unsigned char *s = *p;
	size_t n, i;
	long c;

	if (s >= end)
		return 0;
	if (s[0] < 0x80) {
		*p = s + 1;
		return s[0];
	}
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, c = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, c = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, c = s[0] & 0x07;
	else
		return -1;
	if ((size_t)(end - s) < n)
		return -1;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		c = (c << 6) | (s[i] & 0x3f);
	}
	*p = s + n;
	return c;
}

/* HFS+ ignores these code points in names: ".g\u200cit" is ".git". */
static int hfs_ignorable(long c)
{
	return (c >= 0x200c && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x206a && c <= 0x206f) || c == 0xfeff;
}

static long hfs_next(const unsigned char **p, const unsigned char *end)
{
	long c;

	do
		c = utf8_next(p, end);
	while (hfs_ignorable(c));
	return c;
}

/* Is name ".<needle>" once HFS+ drops ignorables and folds ASCII case? */
static int hfs_dot(const char *name, size_t len, const char *needle)
{
	const unsigned char *p = (const unsigned char *)name, *end = p + len;
	long c;

	if (hfs_next(&p, end) != '.')
		return 0;
	for (; *needle; needle++) {
		c = hfs_next(&p, end);
		if (c <= 0 || c > 127 || lower((int)c) != *needle)
			return 0;
	}
	return hfs_next(&p, end) == 0;
}

/* ---- one entry ---- */

static int mode_ok(unsigned int mode)
{
	return mode == MODE_TREE || mode == MODE_BLOB || mode == MODE_EXEC ||
	       mode == MODE_LINK || mode == MODE_COMMIT || mode == MODE_BLOB_GROUP_WRITABLE;
}

static int is_dotgit(const char *name, size_t len)
{
	return ntfs_dotgit(name, len) || hfs_dot(name, len, "git");
}

static int is_dotgitmodules(const char *name, size_t len)
{
	return ntfs_any_segment(name, len, "gitmodules", "gi7eba") ||
	       hfs_dot(name, len, "gitmodules");
}

int fsck_entry_name(const char *name, size_t len, unsigned int mode, const char **why)
{
	const char *r = NULL;

	if (!name || !len)
		r = "empty name";
	else if (memchr(name, '\0', len))
		r = "name contains a NUL byte";
	else if (memchr(name, '/', len))
		r = "name contains '/'";
	else if (len == 1 && name[0] == '.')
		r = "name is '.'";
	else if (len == 2 && name[0] == '.' && name[1] == '.')
		r = "name is '..'";
	else if (!mode_ok(mode))
		r = why_bad_mode;
	else if (is_dotgit(name, len))
		r = "name is '.git' or a spelling of it that NTFS or HFS+ would take for it";
	else if (mode == MODE_LINK && is_dotgitmodules(name, len))
		r = "'.gitmodules' is a symbolic link";
	if (why)
		*why = r;
	return r ? TIDE_EINVAL : 0;
}

/* ---- the set of objects found good ---- */

static const char seen_magic[8] = { 't', 'i', 'd', 'e', 'f', 's', 'k', '2' };

static size_t oid_hash(const git_oid *id, size_t cap)
{
	size_t h = 0, i;

	for (i = 0; i < sizeof(h); i++)
		h = (h << 8) | id->id[i];
	return h & (cap - 1);
}

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(struct buf *b, uint32_t v)
{
	unsigned char c[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 8), (unsigned char)v };

	buf_put(b, c, 4);
}

/* Binary search of the loaded records (FSCK_REC_SIZE apart, keyed by the id). */
static int sorted_find(const struct fsck_seen *seen, const git_oid *id, size_t *pos)
{
	size_t lo = 0, hi = seen->nsorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(seen->sorted + mid * FSCK_REC_SIZE, id->id, GIT_OID_RAWSZ);

		if (!c) {
			*pos = mid;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Is id in the set?  *height (may be NULL) set from its record. */
static int seen_find(const struct fsck_seen *seen, const git_oid *id, uint32_t *height)
{
	size_t i, pos;

	if (!seen)
		return 0;
	if (sorted_find(seen, id, &pos)) {
		if (height)
			*height = get_be32(seen->sorted + pos * FSCK_REC_SIZE + GIT_OID_RAWSZ);
		return 1;
	}
	if (!seen->cap)
		return 0;
	for (i = oid_hash(id, seen->cap); seen->slots[i]; i = (i + 1) & (seen->cap - 1))
		if (git_oid_equal(&seen->recs[seen->slots[i] - 1].id, id)) {
			if (height)
				*height = seen->recs[seen->slots[i] - 1].height;
			return 1;
		}
	return 0;
}

int fsck_seen_has(const struct fsck_seen *seen, const git_oid *id)
{
	uint32_t height;

	return seen_find(seen, id, &height) && height != FSCK_BLOB;
}

static void slot_put(uint32_t *slots, size_t cap, const struct fsck_rec *recs, uint32_t n)
{
	size_t i = oid_hash(&recs[n].id, cap);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = n + 1;
}

/* The hash is kept at most half full, so a probe always ends at an empty slot. */
void fsck_seen_put(struct fsck_seen *seen, const git_oid *id, uint32_t height)
{
	size_t i;

	if (!seen || git_oid_is_zero(id) || seen_find(seen, id, NULL))
		return;
	if (2 * (seen->nadded + 1) > seen->cap) {
		size_t cap = seen->cap ? 2 * seen->cap : 1024;

		free(seen->slots);
		seen->slots = xcalloc(cap, sizeof(*seen->slots));
		seen->cap = cap;
		for (i = 0; i < seen->nadded; i++)
			slot_put(seen->slots, cap, seen->recs, (uint32_t)i);
	}
	array_grow(&seen->recs, &seen->alloc, seen->nadded + 1, sizeof(*seen->recs));
	git_oid_cpy(&seen->recs[seen->nadded].id, id);
	seen->recs[seen->nadded].height = height;
	slot_put(seen->slots, seen->cap, seen->recs, (uint32_t)seen->nadded);
	seen->nadded++;
}

void fsck_seen_load(struct fsck_seen *seen, const char *path)
{
	struct buf b = BUF_INIT;
	size_t n, i;

	memset(seen, 0, sizeof(*seen));
	if (!path)
		return;
	seen->path = xstrdup(path);
	/* A cache anyone may replace: no link, FIFO or device, and bounded (50M trees). */
	if (safefs_read_file(&b, path, 1u << 30) < 0 || b.len < sizeof(seen_magic) ||
	    memcmp(b.ptr, seen_magic, sizeof(seen_magic)) ||
	    (b.len - sizeof(seen_magic)) % FSCK_REC_SIZE)
		goto done;
	n = (b.len - sizeof(seen_magic)) / FSCK_REC_SIZE;
	/* Out of order means damaged: the binary search would miss. */
	for (i = 1; i < n; i++)
		if (memcmp(b.ptr + sizeof(seen_magic) + (i - 1) * FSCK_REC_SIZE,
			   b.ptr + sizeof(seen_magic) + i * FSCK_REC_SIZE, GIT_OID_RAWSZ) >= 0)
			goto done;
	seen->sorted = xmalloc(n * FSCK_REC_SIZE + 1);
	memcpy(seen->sorted, b.ptr + sizeof(seen_magic), n * FSCK_REC_SIZE);
	seen->nsorted = n;
done:
	tide_error_clear();
	buf_release(&b);
}

static int rec_order(const void *a, const void *b)
{
	return memcmp(((const struct fsck_rec *)a)->id.id, ((const struct fsck_rec *)b)->id.id,
		      GIT_OID_RAWSZ);
}

/* Today's additions, sorted, merged into the loaded records. */
static void seen_merge(struct buf *out, const struct fsck_seen *seen)
{
	struct fsck_rec *add = xmalloc((seen->nadded + 1) * sizeof(*add));
	size_t n = seen->nadded, i = 0, j = 0;

	memcpy(add, seen->recs, n * sizeof(*add));
	qsort(add, n, sizeof(*add), rec_order);
	buf_put(out, seen_magic, sizeof(seen_magic));
	for (i = 0; i < seen->nsorted || j < n;) {
		const unsigned char *old = seen->sorted + i * FSCK_REC_SIZE;

		if (j == n || (i < seen->nsorted && memcmp(old, add[j].id.id, GIT_OID_RAWSZ) < 0)) {
			buf_put(out, old, FSCK_REC_SIZE);
			i++;
		} else {
			buf_put(out, add[j].id.id, GIT_OID_RAWSZ);
			put_be32(out, add[j++].height);
		}
	}
	free(add);
}

int fsck_seen_save(struct fsck_seen *seen)
{
	struct buf b = BUF_INIT;
	int error;

	if (!seen->path || !seen->nadded)
		return 0;
	seen_merge(&b, seen);
	error = file_write_atomic(seen->path, b.ptr, b.len);
	buf_release(&b);
	return error;
}

void fsck_seen_release(struct fsck_seen *seen)
{
	free(seen->sorted);
	free(seen->recs);
	free(seen->slots);
	free(seen->path);
	memset(seen, 0, sizeof(*seen));
}

/* ---- the walk ---- */

/*
 * A name as it may be shown and stored (day.json is UTF-8 JSON): control
 * bytes, bytes above 0x7e, the quote and the backslash as \xNN.
 */
void fsck_quote(struct buf *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c > 0x7e || c == '\\' || c == '\'')
			buf_printf(out, "\\x%02x", c);
		else
			buf_putc(out, (char)c);
	}
}

/*
 * git's order of tree entries: by name bytes, a tree's name compared as
 * if it ended in '/'.  Returns <0, 0 (the same name: a duplicate) or >0.
 */
static int entry_order(const git_tree_entry *a, const git_tree_entry *b)
{
	const char *na = git_tree_entry_name(a), *nb = git_tree_entry_name(b);
	size_t la = strlen(na), lb = strlen(nb), n = la < lb ? la : lb;
	int c = memcmp(na, nb, n), ca, cb;

	if (c || la == lb)
		return c;
	ca = la > n ? (unsigned char)na[n] : git_tree_entry_type(a) == GIT_OBJECT_TREE ? '/' : 0;
	cb = lb > n ? (unsigned char)nb[n] : git_tree_entry_type(b) == GIT_OBJECT_TREE ? '/' : 0;
	return ca - cb;
}

/* A path as messages show it: a deep one has its middle cut, so the reason still fits. */
#define SHOW_MAX 200

static void show_path(struct buf *out, const struct buf *dir, const char *name, size_t len)
{
	struct buf full = BUF_INIT;

	buf_put(&full, dir->ptr ? dir->ptr : "", dir->len);
	if (name)
		fsck_quote(&full, name, len);
	if (!full.len)
		buf_putc(&full, '/');
	if (full.len <= SHOW_MAX) {
		buf_put(out, full.ptr, full.len);
	} else {
		buf_put(out, full.ptr, SHOW_MAX / 2);
		buf_puts(out, "[...]");
		buf_put(out, full.ptr + full.len - SHOW_MAX / 2, SHOW_MAX / 2);
	}
	buf_release(&full);
}

static int refuse(const struct buf *dir, const char *name, size_t len, unsigned int mode,
		  const char *why)
{
	struct buf path = BUF_INIT;
	int error;

	show_path(&path, dir, name, len);
	if (why == why_bad_mode)
		error = tide_error_set(TIDE_EINVAL, "refusing path '%s': %s %06o",
				       buf_cstr(&path), why, mode);
	else
		error = tide_error_set(TIDE_EINVAL, "refusing path '%s': %s", buf_cstr(&path), why);
	buf_release(&path);
	return error;
}

/*
 * The walk keeps its own stack (a tree 60,000 directories deep must not
 * overflow the C one): one frame per tree being read, its path in dir.
 */
struct frame {
	git_tree *tree;
	size_t i, n;
	size_t dirlen;		/* dir's length before this tree's name */
	uint32_t height;	/* 1 + the tallest subtree so far */
};

/*
 * Blobs found good by a check, by a hash of their id: a tree naming one
 * blob a million times reads it once, and the commits of one history
 * mostly name the same blobs.
 */
#define BLOB_MEMO 65536

struct walker {
	git_oid *memo;		/* BLOB_MEMO slots, direct-mapped */
	struct fsck_seen *seen;
	git_repository *repo;
	git_odb *odb;
	struct buf dir;
	struct frame *stack;
	size_t depth, alloc;	/* frames; the top one's entries are this many components deep */
	unsigned max_depth;
};

static int refuse_depth(struct walker *w, const git_tree_entry *e)
{
	const char *name = git_tree_entry_name(e);
	char why[64];

	snprintf(why, sizeof(why), "deeper than %u directories (max-tree-depth)", w->max_depth);
	return refuse(&w->dir, name, strlen(name), 0, why);
}

static int push_tree(struct walker *w, const git_oid *id, const char *name, size_t len)
{
	struct frame *f;
	git_tree *tree = NULL;
	size_t at = w->dir.len;

	if (name) {
		fsck_quote(&w->dir, name, len);
		buf_putc(&w->dir, '/');
	}
	if (git_tree_lookup(&tree, w->repo, id) < 0) {
		const git_error *e = git_error_last();
		struct buf why = BUF_INIT;
		int error;

		buf_printf(&why, "tree %s cannot be read: %s", git_oid_tostr_s(id),
			   e && e->message ? e->message : "unknown error");
		if (!git_odb_exists(w->odb, id)) {
			buf_clear(&why);
			buf_printf(&why, "tree %s is missing", git_oid_tostr_s(id));
		}
		buf_truncate(&w->dir, at);
		error = refuse(&w->dir, name, len, 0, buf_cstr(&why));
		buf_release(&why);
		git_error_clear();
		return error;
	}
	array_grow(&w->stack, &w->alloc, w->depth + 1, sizeof(*w->stack));
	f = &w->stack[w->depth++];
	f->tree = tree;
	f->i = 0;
	f->n = git_tree_entrycount(tree);
	f->dirlen = at;
	f->height = 1;
	return 0;
}

/* The top tree is done: everything below it passed. */
static void pop_tree(struct walker *w)
{
	struct frame *f = &w->stack[--w->depth];

	fsck_seen_put(w->seen, git_tree_id(f->tree), f->height);
	if (w->depth && w->stack[w->depth - 1].height < f->height + 1)
		w->stack[w->depth - 1].height = f->height + 1;
	buf_truncate(&w->dir, f->dirlen);
	git_tree_free(f->tree);
}

/* A record of a tree (not of a commit or a blob). */
static int is_tree_height(uint32_t height)
{
	return height && height != FSCK_BLOB;
}

/* A blob entry names an object that is there and is a blob. */
static int check_blob(struct walker *w, const git_tree_entry *e)
{
	const char *name = git_tree_entry_name(e);
	const git_oid *id = git_tree_entry_id(e);
	git_object_t type;
	size_t size;
	git_oid *slot = &w->memo[oid_hash(id, BLOB_MEMO)];

	struct buf msg = BUF_INIT;
	int error;

	uint32_t height;

	if (!git_oid_is_zero(id) && git_oid_equal(slot, id))
		return 0;
	if (seen_find(w->seen, id, &height) && height == FSCK_BLOB) {
		git_oid_cpy(slot, id);
		return 0;
	}
	if ((error = git_odb_read_header(&size, &type, w->odb, id)) == 0 && type == GIT_OBJECT_BLOB) {
		git_oid_cpy(slot, id);
		if (w->seen)
			fsck_seen_put(w->seen, id, FSCK_BLOB);
		return 0;
	}
	if (error == 0) {
		buf_printf(&msg, "object %s is not a blob", git_oid_tostr_s(id));
	} else {
		const git_error *ge = git_error_last();

		buf_printf(&msg, "blob %s cannot be read: %s", git_oid_tostr_s(id),
			   ge && ge->message ? ge->message : "unknown error");
		if (!git_odb_exists(w->odb, id)) {
			buf_clear(&msg);
			buf_printf(&msg, "blob %s is missing", git_oid_tostr_s(id));
		}
	}
	git_error_clear();
	error = refuse(&w->dir, name, strlen(name), 0, buf_cstr(&msg));
	buf_release(&msg);
	return error;
}

/* The next entry of the top tree: checked, and a new subtree pushed. */
static int walk_entry(struct walker *w)
{
	struct frame *f = &w->stack[w->depth - 1];
	const git_tree_entry *e = git_tree_entry_byindex(f->tree, f->i);
	const git_tree_entry *prev = f->i ? git_tree_entry_byindex(f->tree, f->i - 1) : NULL;
	const char *name = git_tree_entry_name(e), *why;
	unsigned int mode = (unsigned int)git_tree_entry_filemode_raw(e);
	size_t len = strlen(name);
	uint32_t height;
	int error;

	f->i++;
	if (fsck_entry_name(name, len, mode, &why) < 0)
		return refuse(&w->dir, name, len, mode, why);
	if (prev && (error = entry_order(prev, e)) >= 0)
		return refuse(&w->dir, name, len, mode, error ? "tree entries out of order" :
			      "duplicate tree entry");
	if (mode == MODE_COMMIT)
		return 0;	/* a submodule's commit is not in this repository */
	if (mode != MODE_TREE)
		return check_blob(w, e);
	if (seen_find(w->seen, git_tree_entry_id(e), &height) && is_tree_height(height)) {
		/* its entries are w->depth + 1 .. w->depth + height deep */
		if (w->depth + height > w->max_depth)
			return refuse_depth(w, e);
		if (f->height < height + 1)
			f->height = height + 1;
		return 0;
	}
	if (w->depth + 1 > w->max_depth)
		return refuse_depth(w, e);
	return push_tree(w, git_tree_entry_id(e), name, len);
}

static int walk(struct fsck_seen *seen, git_repository *repo, const git_oid *root,
		git_oid *memo)
{
	struct walker w;
	uint32_t height;
	int error;

	memset(&w, 0, sizeof(w));
	w.seen = seen;
	w.repo = repo;
	w.max_depth = seen && seen->max_depth ? seen->max_depth : FSCK_MAX_DEPTH;
	if (seen_find(seen, root, &height) && is_tree_height(height)) {
		if (height <= w.max_depth)
			return 0;
		return tide_error_set(TIDE_EINVAL, "refusing path '/': deeper than %u directories "
				      "(max-tree-depth)", w.max_depth);
	}
	if (git_repository_odb(&w.odb, repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot open the object database");
	w.memo = memo;
	error = push_tree(&w, root, NULL, 0);
	while (!error && w.depth) {
		if (w.stack[w.depth - 1].i == w.stack[w.depth - 1].n)
			pop_tree(&w);
		else
			error = walk_entry(&w);
	}
	while (w.depth)
		git_tree_free(w.stack[--w.depth].tree);	/* refused: nothing added */
	free(w.stack);
	buf_release(&w.dir);
	git_odb_free(w.odb);
	return error;
}

int fsck_tree(struct fsck_seen *seen, git_repository *repo, const git_oid *commit)
{
	git_object *obj = NULL, *tree = NULL;
	git_oid *memo;
	int error = 0;

	if (git_object_lookup(&obj, repo, commit, GIT_OBJECT_ANY) < 0 ||
	    git_object_peel(&tree, obj, GIT_OBJECT_TREE) < 0) {
		error = tide_error_git(TIDE_ENOTFOUND, "cannot read the tree of %s",
				       git_oid_tostr_s(commit));
		goto done;
	}
	memo = xcalloc(BLOB_MEMO, sizeof(*memo));
	error = walk(seen, repo, git_object_id(tree), memo);
	free(memo);
done:
	git_object_free(tree);
	git_object_free(obj);
	return error;
}

/* ---- a tip's new history ---- */

/*
 * The commits reachable from a tip and not from the known commits, found
 * as git's revision walk finds A..B (limit_list()): newest first by
 * committer time, each commit parsed whole (so one that does not parse is
 * named), the known commits' ancestry marked uninteresting as it is met,
 * until every commit still queued is uninteresting.  A commit in the set
 * of objects found good counts as known: its history was checked.
 * libgit2's revwalk would do the walk but does not say which commit did
 * not parse (and leaks when one does not).
 */
#define H_QUEUED 1u
#define H_PARSED 2u
#define H_KNOWN 4u	/* reachable from a known commit: not checked */

struct hnode {
	git_oid id, tree;
	int64_t time;
	uint32_t parents, nparents;	/* into hwalk.parents */
	unsigned flags;
};

struct hwalk {
	git_repository *repo;
	const struct fsck_seen *seen;
	struct hnode *nodes;
	size_t n, alloc;
	uint32_t *table;	/* open addressing: node index + 1 */
	size_t tsize;
	uint32_t *parents;
	size_t nparents, palloc;
	uint32_t *heap;		/* queued nodes, newest on top */
	size_t nheap, halloc;
	size_t interesting;	/* queued nodes not H_KNOWN */
	uint32_t *order;	/* the new commits, as found */
	size_t norder, oalloc;
};

static uint32_t hnode_get(struct hwalk *w, const git_oid *id)
{
	size_t h, i;

	if (2 * (w->n + 1) > w->tsize) {
		size_t size = w->tsize ? 2 * w->tsize : 1024;

		free(w->table);
		w->table = xcalloc(size, sizeof(*w->table));
		w->tsize = size;
		for (i = 0; i < w->n; i++) {
			for (h = oid_hash(&w->nodes[i].id, size); w->table[h]; h = (h + 1) & (size - 1))
				;
			w->table[h] = (uint32_t)i + 1;
		}
	}
	for (h = oid_hash(id, w->tsize); w->table[h]; h = (h + 1) & (w->tsize - 1))
		if (git_oid_equal(&w->nodes[w->table[h] - 1].id, id))
			return w->table[h] - 1;
	array_grow(&w->nodes, &w->alloc, w->n + 1, sizeof(*w->nodes));
	memset(&w->nodes[w->n], 0, sizeof(w->nodes[w->n]));
	git_oid_cpy(&w->nodes[w->n].id, id);
	w->table[h] = (uint32_t)w->n + 1;
	return (uint32_t)w->n++;
}

static int heap_newer(const struct hwalk *w, uint32_t a, uint32_t b)
{
	return w->nodes[a].time > w->nodes[b].time;
}

static void heap_push(struct hwalk *w, uint32_t ni)
{
	size_t i;

	array_grow(&w->heap, &w->halloc, w->nheap + 1, sizeof(*w->heap));
	for (i = w->nheap++; i && heap_newer(w, ni, w->heap[(i - 1) / 2]); i = (i - 1) / 2)
		w->heap[i] = w->heap[(i - 1) / 2];
	w->heap[i] = ni;
}

static uint32_t heap_pop(struct hwalk *w)
{
	uint32_t top = w->heap[0], last = w->heap[--w->nheap];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < w->nheap) {
		if (c + 1 < w->nheap && heap_newer(w, w->heap[c + 1], w->heap[c]))
			c++;
		if (!heap_newer(w, w->heap[c], last))
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	if (w->nheap)
		w->heap[i] = last;
	return top;
}

/* ni and everything already parsed below it are reachable from a known commit. */
static void mark_known(struct hwalk *w, uint32_t ni)
{
	uint32_t *stack = NULL, i;
	size_t n = 0, alloc = 0;

	array_grow(&stack, &alloc, 1, sizeof(*stack));
	stack[n++] = ni;
	while (n) {
		struct hnode *node = &w->nodes[stack[--n]];

		if (node->flags & H_KNOWN)
			continue;
		node->flags |= H_KNOWN;
		if (node->flags & H_QUEUED)
			w->interesting--;
		for (i = 0; (node->flags & H_PARSED) && i < node->nparents; i++) {
			array_grow(&stack, &alloc, n + 1, sizeof(*stack));
			stack[n++] = w->parents[node->parents + i];
		}
	}
	free(stack);
}

static void hwalk_add(struct hwalk *w, const git_oid *id, int known)
{
	uint32_t ni = hnode_get(w, id);

	if (known || fsck_seen_has(w->seen, id))
		mark_known(w, ni);
	if (w->nodes[ni].flags & (H_QUEUED | H_PARSED))
		return;
	w->nodes[ni].flags |= H_QUEUED;
	if (!(w->nodes[ni].flags & H_KNOWN))
		w->interesting++;
	heap_push(w, ni);
}

/* Parse the next commit; an unreadable one that is not known is the answer. */
static int hwalk_step(struct hwalk *w)
{
	uint32_t ni = heap_pop(w), i, n;
	git_commit *c = NULL;
	int known;

	w->nodes[ni].flags &= ~H_QUEUED;
	w->nodes[ni].flags |= H_PARSED;
	known = (w->nodes[ni].flags & H_KNOWN) != 0;
	if (!known)
		w->interesting--;
	if (git_commit_lookup(&c, w->repo, &w->nodes[ni].id) < 0) {
		if (known) {	/* the known history is not ours to check */
			git_error_clear();
			return 0;
		}
		return tide_error_git(TIDE_EINVAL, "commit %s", git_oid_tostr_s(&w->nodes[ni].id));
	}
	w->nodes[ni].time = git_commit_time(c);
	git_oid_cpy(&w->nodes[ni].tree, git_commit_tree_id(c));
	n = (uint32_t)git_commit_parentcount(c);
	w->nodes[ni].parents = (uint32_t)w->nparents;
	w->nodes[ni].nparents = n;
	for (i = 0; i < n; i++) {
		uint32_t pi = hnode_get(w, git_commit_parent_id(c, i));

		array_grow(&w->parents, &w->palloc, w->nparents + 1, sizeof(*w->parents));
		w->parents[w->nparents++] = pi;
	}
	for (i = 0; i < n; i++) {
		const git_oid *pid = &w->nodes[w->parents[w->nodes[ni].parents + i]].id;

		/* parents are dated like their children until read: the queue stays in order */
		if (!(w->nodes[w->parents[w->nodes[ni].parents + i]].flags & (H_QUEUED | H_PARSED)))
			w->nodes[w->parents[w->nodes[ni].parents + i]].time = w->nodes[ni].time;
		hwalk_add(w, pid, (w->nodes[ni].flags & H_KNOWN) != 0);
	}
	if (!(w->nodes[ni].flags & H_KNOWN)) {
		array_grow(&w->order, &w->oalloc, w->norder + 1, sizeof(*w->order));
		w->order[w->norder++] = ni;
	}
	git_commit_free(c);
	return 0;
}

static void hwalk_release(struct hwalk *w)
{
	free(w->nodes);
	free(w->table);
	free(w->parents);
	free(w->heap);
	free(w->order);
}

/* "cannot be read" for tip itself, "commit X of its history cannot be read" else. */
static int unreadable(const char *hex, const git_oid *tip)
{
	struct buf why = BUF_INIT;
	char tiphex[GIT_OID_HEXSZ + 1];
	const char *colon = strstr(tide_error_last(), ": ");
	int error;

	git_oid_tostr(tiphex, sizeof(tiphex), tip);
	buf_puts(&why, colon ? colon + 2 : "unknown error");
	if (!strcmp(hex, tiphex))
		error = tide_error_set(TIDE_EINVAL, "cannot be read: %s", buf_cstr(&why));
	else
		error = tide_error_set(TIDE_EINVAL, "commit %.12s of its history cannot be read: %s",
				       hex, buf_cstr(&why));
	buf_release(&why);
	return error;
}

/* A new commit and its tree: read once (a big commit is not kept in libgit2's cache). */
struct new_commit {
	git_oid id, tree;
};

/* The commits reachable from tip, not from known or a commit in seen, newest first. */
static int new_commits(struct new_commit **out, size_t *n, struct fsck_seen *seen,
		       git_repository *repo, const git_oid *tip, const git_oid *known,
		       size_t nknown)
{
	struct hwalk w;
	size_t i;
	int error = 0;

	memset(&w, 0, sizeof(w));
	w.repo = repo;
	w.seen = seen;
	hwalk_add(&w, tip, 0);
	w.nodes[0].time = INT64_MAX;
	for (i = 0; i < nknown; i++) {
		uint32_t ni = hnode_get(&w, &known[i]);

		w.nodes[ni].time = INT64_MAX;	/* read before anything they could hide */
		hwalk_add(&w, &known[i], 1);
	}
	while (!error && w.nheap && w.interesting)
		error = hwalk_step(&w);
	*out = NULL;
	*n = 0;
	if (error) {
		char hex[GIT_OID_HEXSZ + 1];
		const char *msg = tide_error_last();

		/* "commit <hex>: <libgit2's reason>" from hwalk_step() */
		snprintf(hex, sizeof(hex), "%.40s", msg + strlen("commit "));
		error = unreadable(hex, tip);
	} else {
		*out = xcalloc(w.norder ? w.norder : 1, sizeof(**out));
		for (i = 0; i < w.norder; i++)
			if (!(w.nodes[w.order[i]].flags & H_KNOWN)) {
				git_oid_cpy(&(*out)[*n].id, &w.nodes[w.order[i]].id);
				git_oid_cpy(&(*out)[(*n)++].tree, &w.nodes[w.order[i]].tree);
			}
	}
	hwalk_release(&w);
	return error;
}

/* One new commit (the walk parsed it whole): its tree passes. */
static int check_commit(struct fsck_seen *seen, git_repository *repo,
			const struct new_commit *nc, const git_oid *tip, git_oid *memo)
{
	int error;

	if ((error = walk(seen, repo, &nc->tree, memo)) == TIDE_EINVAL &&
	    !git_oid_equal(&nc->id, tip))
		tide_error_wrap(error, "commit %.12s of its history", git_oid_tostr_s(&nc->id));
	return error;
}

int fsck_history(struct fsck_seen *seen, git_repository *repo, const git_oid *tip,
		 const git_oid *known, size_t nknown)
{
	struct new_commit *ids = NULL;
	git_oidarray bases = { NULL, 0 };
	git_oid *memo;
	size_t n = 0, i;
	int error;

	if (fsck_seen_has(seen, tip))
		return 0;
	/*
	 * A commit the tip shares with the known ones is below one of their
	 * merge bases: hiding those instead spares the walk the known
	 * commits' history down to the tip's oldest (tide's commit-graph
	 * finds them in one walk).  If they cannot be found, the walk from
	 * the known commits themselves names the commit at fault.
	 */
	if (nknown && graph_merge_bases_many(&bases, repo, tip, known, nknown) == 0 &&
	    bases.count) {
		known = bases.ids;
		nknown = bases.count;
	}
	tide_error_clear();
	error = new_commits(&ids, &n, seen, repo, tip, known, nknown);
	git_oidarray_dispose(&bases);
	if (error < 0)
		return error;
	memo = xcalloc(BLOB_MEMO, sizeof(*memo));
	for (i = 0; i < n && !error; i++)
		error = check_commit(seen, repo, &ids[i], tip, memo);
	free(memo);
	/* A commit is good once everything it reaches is: all of them, or none. */
	for (i = 0; i < n && !error; i++)
		fsck_seen_put(seen, &ids[i].id, 0);
	free(ids);
	return error;
}
