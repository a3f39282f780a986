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

/* ---- the set of trees found good ---- */

static const char seen_magic[8] = { 't', 'i', 'd', 'e', 'f', 's', 'k', '1' };

static size_t oid_hash(const git_oid *id, size_t cap)
{
	size_t h = 0, i;

	for (i = 0; i < sizeof(h); i++)
		h = (h << 8) | id->id[i];
	return h & (cap - 1);
}

static int sorted_has(const struct fsck_seen *seen, const git_oid *id)
{
	return sorted_ids_find(seen->sorted, GIT_OID_RAWSZ, 0, seen->nsorted, id->id, NULL);
}

static int added_has(const struct fsck_seen *seen, const git_oid *id)
{
	size_t i;

	if (!seen->cap)
		return 0;
	for (i = oid_hash(id, seen->cap); !git_oid_is_zero(&seen->added[i]);
	     i = (i + 1) & (seen->cap - 1))
		if (git_oid_equal(&seen->added[i], id))
			return 1;
	return 0;
}

int fsck_seen_has(const struct fsck_seen *seen, const git_oid *id)
{
	return seen && (sorted_has(seen, id) || added_has(seen, id));
}

static void added_put(git_oid *table, size_t cap, const git_oid *id)
{
	size_t i = oid_hash(id, cap);

	while (!git_oid_is_zero(&table[i]))
		i = (i + 1) & (cap - 1);
	git_oid_cpy(&table[i], id);
}

/* Kept at most half full, so a probe always ends at an empty (zero) slot. */
static void seen_add(struct fsck_seen *seen, const git_oid *id)
{
	size_t i;

	if (!seen || git_oid_is_zero(id) || fsck_seen_has(seen, id))
		return;
	if (2 * (seen->nadded + 1) > seen->cap) {
		size_t cap = seen->cap ? 2 * seen->cap : 1024;
		git_oid *table = xcalloc(cap, sizeof(*table));

		for (i = 0; i < seen->cap; i++)
			if (!git_oid_is_zero(&seen->added[i]))
				added_put(table, cap, &seen->added[i]);
		free(seen->added);
		seen->added = table;
		seen->cap = cap;
	}
	added_put(seen->added, seen->cap, id);
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
	    (b.len - sizeof(seen_magic)) % GIT_OID_RAWSZ)
		goto done;
	n = (b.len - sizeof(seen_magic)) / GIT_OID_RAWSZ;
	/* Out of order means damaged: the binary search would miss. */
	for (i = 1; i < n; i++)
		if (memcmp(b.ptr + sizeof(seen_magic) + (i - 1) * GIT_OID_RAWSZ,
			   b.ptr + sizeof(seen_magic) + i * GIT_OID_RAWSZ, GIT_OID_RAWSZ) >= 0)
			goto done;
	seen->sorted = xmalloc(n * GIT_OID_RAWSZ + 1);
	memcpy(seen->sorted, b.ptr + sizeof(seen_magic), n * GIT_OID_RAWSZ);
	seen->nsorted = n;
done:
	tide_error_clear();
	buf_release(&b);
}

static int oid_order(const void *a, const void *b)
{
	return memcmp(a, b, GIT_OID_RAWSZ);
}

/* Today's additions, sorted, merged into the loaded records. */
static void seen_merge(struct buf *out, const struct fsck_seen *seen)
{
	git_oid *add = xmalloc((seen->nadded + 1) * sizeof(*add));
	size_t n = 0, i = 0, j = 0;

	for (i = 0; i < seen->cap; i++)
		if (!git_oid_is_zero(&seen->added[i]))
			add[n++] = seen->added[i];
	qsort(add, n, sizeof(*add), oid_order);
	buf_put(out, seen_magic, sizeof(seen_magic));
	for (i = 0; i < seen->nsorted || j < n;) {
		const unsigned char *old = seen->sorted + i * GIT_OID_RAWSZ;

		if (j == n || (i < seen->nsorted && memcmp(old, add[j].id, GIT_OID_RAWSZ) < 0)) {
			buf_put(out, old, GIT_OID_RAWSZ);
			i++;
		} else {
			buf_put(out, add[j++].id, GIT_OID_RAWSZ);
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
	free(seen->added);
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

static int refuse(const struct buf *dir, const char *name, size_t len, unsigned int mode,
		  const char *why)
{
	struct buf path = BUF_INIT;
	int error;

	buf_put(&path, dir->ptr ? dir->ptr : "", dir->len);
	fsck_quote(&path, name, len);
	if (why == why_bad_mode)
		error = tide_error_set(TIDE_EINVAL, "refusing path '%s': %s %06o",
				       buf_cstr(&path), why, mode);
	else
		error = tide_error_set(TIDE_EINVAL, "refusing path '%s': %s", buf_cstr(&path), why);
	buf_release(&path);
	return error;
}

static int walk(struct fsck_seen *seen, git_repository *repo, const git_oid *id, struct buf *dir);

/* One entry of the tree at dir (which ends in '/' unless it is the root). */
static int check_entry(struct fsck_seen *seen, git_repository *repo, const git_tree_entry *e,
		       const git_tree_entry *prev, struct buf *dir)
{
	const char *name = git_tree_entry_name(e), *why;
	unsigned int mode = (unsigned int)git_tree_entry_filemode_raw(e);
	size_t len = strlen(name), at = dir->len;
	int error;

	if (fsck_entry_name(name, len, mode, &why) < 0)
		return refuse(dir, name, len, mode, why);
	if (prev && (error = entry_order(prev, e)) >= 0)
		return refuse(dir, name, len, mode, error ? "tree entries out of order" :
			      "duplicate tree entry");
	if (mode != MODE_TREE || fsck_seen_has(seen, git_tree_entry_id(e)))
		return 0;
	fsck_quote(dir, name, len);
	buf_putc(dir, '/');
	error = walk(seen, repo, git_tree_entry_id(e), dir);
	buf_truncate(dir, at);
	return error;
}

static int walk(struct fsck_seen *seen, git_repository *repo, const git_oid *id, struct buf *dir)
{
	git_tree *tree = NULL;
	size_t i, n;
	int error = 0;

	if (git_tree_lookup(&tree, repo, id) < 0)
		return tide_error_git(TIDE_EINVAL, "refusing path '%s': tree %s cannot be read",
				      dir->len ? buf_cstr(dir) : "/", git_oid_tostr_s(id));
	n = git_tree_entrycount(tree);
	for (i = 0; i < n && !error; i++)
		error = check_entry(seen, repo, git_tree_entry_byindex(tree, i),
				    i ? git_tree_entry_byindex(tree, i - 1) : NULL, dir);
	if (!error)
		seen_add(seen, id);	/* everything below was checked */
	git_tree_free(tree);
	return error;
}

int fsck_tree(struct fsck_seen *seen, git_repository *repo, const git_oid *commit)
{
	git_object *obj = NULL, *tree = NULL;
	struct buf dir = BUF_INIT;
	int error = 0;

	if (git_object_lookup(&obj, repo, commit, GIT_OBJECT_ANY) < 0 ||
	    git_object_peel(&tree, obj, GIT_OBJECT_TREE) < 0) {
		error = tide_error_git(TIDE_ENOTFOUND, "cannot read the tree of %s",
				       git_oid_tostr_s(commit));
		goto done;
	}
	if (!fsck_seen_has(seen, git_object_id(tree)))
		error = walk(seen, repo, git_object_id(tree), &dir);
done:
	buf_release(&dir);
	git_object_free(tree);
	git_object_free(obj);
	return error;
}
