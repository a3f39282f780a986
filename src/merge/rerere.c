#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <git2.h>
#include <openssl/evp.h>

#include "attr.h"
#include "checkout.h"
#include "error.h"
#include "merge.h"
#include "rerere.h"
#include "text.h"
#include "safefs.h"
#include "treepaths.h"
#include "util.h"
#include "workspace.h"
#include "worktree.h"


static int write_under(const char *dir, const char *rel, const void *text, size_t len);

/*
 * SHA-1 from OpenSSL's libcrypto.  libgit2 only exposes object hashing
 * (with a "blob N\0" header), and rerere ids hash the raw sides.
 */
struct sha1 {
	EVP_MD_CTX *ctx;
};

static void sha1_init(struct sha1 *s)
{
	/* Like allocation failure (buf.h): nothing sensible to do without it. */
	if (!(s->ctx = EVP_MD_CTX_new()) || !EVP_DigestInit_ex(s->ctx, EVP_sha1(), NULL))
		abort();
}

static void sha1_update(struct sha1 *s, const void *data, size_t len)
{
	if (!EVP_DigestUpdate(s->ctx, data, len))
		abort();
}

/* Finish: hex gets 40 digits and a NUL; the context is freed. */
static void sha1_hex(struct sha1 *s, char *hex)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	if (!EVP_DigestFinal_ex(s->ctx, md, &n) || n != 20)
		abort();
	EVP_MD_CTX_free(s->ctx);
	s->ctx = NULL;
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

void rerere_sha1_hex(char *hex, const void *data, size_t len)
{
	struct sha1 s;

	sha1_init(&s);
	sha1_update(&s, data, len);
	sha1_hex(&s, hex);
}

/* Line reader over a memory buffer; a line keeps its '\n'. */
struct lines {
	const char *p, *end;
};

static int line_next(struct lines *l, const char **line, size_t *len)
{
	const char *nl;

	if (l->p >= l->end)
		return 0;
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	*line = l->p;
	*len = nl ? (size_t)(nl - l->p + 1) : (size_t)(l->end - l->p);
	l->p += *len;
	return 1;
}

/*
 * git's is_cmarker(): exactly size marker characters ('<' and '>' then
 * need a space, the label), so with conflict-marker-size 32 a line of
 * seven '<' is text, as git reads it (git.git's test scripts hold such
 * lines).
 */
static int is_marker(const char *line, size_t len, char c, int size)
{
	size_t i, n = size > 0 ? (size_t)size : ATTR_MARKER_SIZE;

	if (len <= n)
		return 0;
	for (i = 0; i < n; i++)
		if (line[i] != c)
			return 0;
	if ((c == '<' || c == '>') && line[n] != ' ')
		return 0;
	return isspace((unsigned char)line[n]);
}

static void put_marker(struct buf *out, char c, int size)
{
	int i;

	for (i = 0; i < size; i++)
		buf_putc(out, c);
	buf_putc(out, '\n');
}

static int buf_cmp(const struct buf *a, const struct buf *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = n ? memcmp(a->ptr, b->ptr, n) : 0;

	if (c)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

/*
 * Hunks nested deeper than this are refused: the recursion below would
 * otherwise let a file of "<<<<<<< x" lines from a tree overflow the stack.
 */
#define MAX_NESTING 64

/*
 * One conflict hunk after its "<<<<<<<" line (git's handle_conflict()).
 * Returns 1 when the hunk ended properly, -1 when the markers are
 * unbalanced, -2 when hunks are nested more than MAX_NESTING deep.
 */
static int handle_conflict(struct buf *out, struct lines *l, struct sha1 *ctx, int depth,
			   int size)
{
	enum { SIDE_1, SIDE_2, ORIGINAL } hunk = SIDE_1;
	struct buf one = BUF_INIT, two = BUF_INIT, nested = BUF_INIT, tmp;
	const char *line;
	size_t len;
	int ret = -1;

	if (depth > MAX_NESTING)
		return -2;
	while (line_next(l, &line, &len)) {
		if (is_marker(line, len, '<', size)) {
			if ((ret = handle_conflict(&nested, l, NULL, depth + 1, size)) < 0)
				break;
			ret = -1;
			buf_put(hunk == SIDE_1 ? &one : &two, nested.ptr, nested.len);
			buf_clear(&nested);
		} else if (is_marker(line, len, '|', size)) {
			if (hunk != SIDE_1)
				break;
			hunk = ORIGINAL;
		} else if (is_marker(line, len, '=', size)) {
			if (hunk == SIDE_2)
				break;
			hunk = SIDE_2;
		} else if (is_marker(line, len, '>', size)) {
			if (hunk != SIDE_2)
				break;
			if (buf_cmp(&one, &two) > 0)
				tmp = one, one = two, two = tmp;
			put_marker(out, '<', size);
			buf_put(out, one.ptr, one.len);
			put_marker(out, '=', size);
			buf_put(out, two.ptr, two.len);
			put_marker(out, '>', size);
			if (ctx) {
				sha1_update(ctx, buf_cstr(&one), one.len + 1);
				sha1_update(ctx, buf_cstr(&two), two.len + 1);
			}
			ret = 1;
			break;
		} else if (hunk != ORIGINAL) {
			buf_put(hunk == SIDE_1 ? &one : &two, line, len);
		}
	}
	buf_release(&one);
	buf_release(&two);
	buf_release(&nested);
	return ret;
}

int rerere_normalize(struct buf *preimage, char *id, const char *text, size_t len,
		     int marker_size)
{
	struct lines l = { text, text + len };
	struct buf out = BUF_INIT;
	struct sha1 ctx;
	const char *line;
	size_t n;
	int hunks = 0, error;

	if (marker_size <= 0)
		marker_size = ATTR_MARKER_SIZE;
	sha1_init(&ctx);
	while (line_next(&l, &line, &n)) {
		if (!is_marker(line, n, '<', marker_size)) {
			buf_put(&out, line, n);
			continue;
		}
		if ((error = handle_conflict(&out, &l, &ctx, 1, marker_size)) < 0) {
			EVP_MD_CTX_free(ctx.ctx);
			buf_release(&out);
			if (error == -2)
				return tide_error_set(TIDE_EINVAL,
						      "conflict markers nested more than %d deep",
						      MAX_NESTING);
			return tide_error_set(TIDE_EINVAL, "unbalanced conflict markers");
		}
		hunks++;
	}
	sha1_hex(&ctx, id);
	if (preimage)
		buf_put(preimage, out.ptr, out.len);
	buf_release(&out);
	return hunks;
}

int rerere_has_markers(const char *text, size_t len, int marker_size)
{
	struct lines l = { text, text + len };
	const char *line;
	size_t n;

	/* A lone "=======" is legitimate text (reST, help texts): only the labelled ends count. */
	while (line_next(&l, &line, &n))
		if (is_marker(line, n, '<', marker_size) || is_marker(line, n, '>', marker_size))
			return 1;
	return 0;
}

int rerere_marker_size_of(const char *hunk, size_t len)
{
	size_t n = 0;

	while (n < len && hunk[n] == '<')
		n++;
	if (n < ATTR_MARKER_SIZE || n > ATTR_MARKER_SIZE_MAX || n == len ||
	    (hunk[n] != ' ' && hunk[n] != '\n'))
		return ATTR_MARKER_SIZE;
	return (int)n;
}

static char *variant_path(const char *store, const char *id, const char *name,
			  int variant)
{
	if (variant)
		return xasprintf("%s/%s/%s.%d", store, id, name, variant);
	return xasprintf("%s/%s/%s", store, id, name);
}

/*
 * The variant an entry file name is of: "preimage" and "postimage" 0,
 * "preimage.N" N; -1 for any other name, and for N past
 * RERERE_MAX_VARIANTS (a shared cache naming postimage.999999999 would
 * otherwise make every lookup try a billion variants).
 */
static int variant_of(const char *name)
{
	const char *dot;
	char *end;
	long v;

	if (!strcmp(name, "preimage") || !strcmp(name, "postimage"))
		return 0;
	if (!(str_starts_with(name, "preimage.") || str_starts_with(name, "postimage.")))
		return -1;
	dot = strchr(name, '.') + 1;
	if (*dot < '1' || *dot > '9')
		return -1;
	v = strtol(dot, &end, 10);
	return *end || v >= RERERE_MAX_VARIANTS ? -1 : (int)v;
}

/* The id's directory, opened without following a link (-1 when there is none). */
static int open_entry(const char *store, const char *id)
{
	char *dir = path_join(store, id);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	free(dir);
	return fd;
}

/* Highest variant number present in STORE/<id> plus one (0 if none). */
static int variant_count(const char *store, const char *id)
{
	int fd = open_entry(store, id), n = 0, v;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((de = readdir(d)))
		if ((v = variant_of(de->d_name)) >= 0 && v + 1 > n)
			n = v + 1;
	closedir(d);
	return n;
}

/* Does the store's file at path hold want?  A link or a FIFO there holds nothing. */
static int same_file(const char *path, const struct buf *want)
{
	struct buf b = BUF_INIT;
	int same = safefs_read_file(&b, path, RERERE_MAX_FILE) == 0 && b.len == want->len &&
		   (!b.len || !memcmp(b.ptr, want->ptr, b.len));

	buf_release(&b);
	tide_error_clear();
	return same;
}

/* Write text to store/<id>/<name>[.v] without following a link planted there. */
static int store_write(const char *store, const char *id, const char *name, int v,
		       const void *text, size_t len)
{
	char *rel = v ? xasprintf("%s/%s.%d", id, name, v) : xasprintf("%s/%s", id, name);
	int error = write_under(store, rel, len ? text : "", len);

	free(rel);
	return error;
}

int rerere_record(const char *store, const char *conflicted, size_t clen,
		  const char *resolved, size_t rlen, int marker_size, char *id, int *variant)
{
	struct buf pre = BUF_INIT;
	char *path = NULL;
	int n, v, error;

	if ((error = rerere_normalize(&pre, id, conflicted, clen, marker_size)) < 0)
		goto done;
	if (error == 0) {
		error = tide_error_set(TIDE_EINVAL, "no conflict to record");
		goto done;
	}
	if (rerere_has_markers(resolved, rlen, marker_size)) {
		error = tide_error_set(TIDE_EINVAL, "resolution still has conflict markers");
		goto done;
	}
	n = variant_count(store, id);
	for (v = 0; v < n; v++) {
		free(path);
		path = variant_path(store, id, "preimage", v);
		if (same_file(path, &pre))
			break;
	}
	if (v >= RERERE_MAX_VARIANTS) {
		error = tide_error_set(TIDE_EINVAL, "rr-cache entry '%s' has %d variants already", id, v);
		goto done;
	}
	if ((error = store_write(store, id, "preimage", v, pre.ptr, pre.len)) == 0)
		error = store_write(store, id, "postimage", v, resolved, rlen);
	if (variant)
		*variant = v;
done:
	free(path);
	buf_release(&pre);
	return error;
}

/*
 * Both files of a variant, read as untrusted input (safefs_read_file()):
 * shared caches fill the store, and a link or a FIFO there must not be
 * read through into a published day.  1 when the variant is not there.
 */
static int read_variant(struct buf *pre, struct buf *post, const char *store, const char *id,
			int v)
{
	char *pre_path = variant_path(store, id, "preimage", v);
	char *post_path = variant_path(store, id, "postimage", v);
	int epre = safefs_read_file(pre, pre_path, RERERE_MAX_FILE), epost = 0, error = 0;

	if (epre == 0 || epre == TIDE_ENOTFOUND)
		epost = safefs_read_file(post, post_path, RERERE_MAX_FILE);
	if (epre == TIDE_ENOTFOUND && epost == TIDE_ENOTFOUND)
		error = 1;	/* a gap in the numbers: nothing to try */
	else if (epre == TIDE_ENOTFOUND || epost == TIDE_ENOTFOUND)
		error = tide_error_set(TIDE_EINVAL, "rr-cache entry '%s' is incomplete", id);
	else if (epre < 0 || epost < 0)
		error = tide_error_wrap(TIDE_EINVAL, "rr-cache entry '%s' is unusable", id);
	if (error == 1)
		tide_error_clear();
	free(pre_path);
	free(post_path);
	return error;
}

/*
 * Try one variant (git's try_merge(): base preimage, ours the current
 * normalized text, theirs postimage).  0 applied, 1 no such variant,
 * TIDE_ECONFLICT not applicable, TIDE_EINVAL corrupt.
 */
static int try_variant(struct buf *out, int *same, const char *store, const char *id,
		       int v, const struct buf *cur, int marker_size)
{
	struct buf pre = BUF_INIT, post = BUF_INIT;
	git_merge_file_input base, ours, theirs;
	git_merge_file_result res = { 0 };
	int error;

	if ((error = read_variant(&pre, &post, store, id, v)) != 0)
		goto done;
	if (rerere_has_markers(post.ptr, post.len, marker_size)) {
		error = tide_error_set(TIDE_EINVAL,
				       "rr-cache entry '%s' is corrupt: postimage has conflict markers", id);
		goto done;
	}
	if (pre.len == cur->len && !memcmp(pre.ptr, cur->ptr, pre.len)) {
		*same = 1;
		buf_put(out, post.ptr, post.len);
		error = 0;
		goto done;
	}
	git_merge_file_input_init(&base, GIT_MERGE_FILE_INPUT_VERSION);
	git_merge_file_input_init(&ours, GIT_MERGE_FILE_INPUT_VERSION);
	git_merge_file_input_init(&theirs, GIT_MERGE_FILE_INPUT_VERSION);
	base.ptr = pre.ptr, base.size = pre.len;
	ours.ptr = cur->ptr, ours.size = cur->len;
	theirs.ptr = post.ptr, theirs.size = post.len;
	if (git_merge_file(&res, &base, &ours, &theirs, NULL) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot merge resolution '%s'", id);
		goto done;
	}
	if (!res.automergeable || rerere_has_markers(res.ptr, res.len, marker_size)) {
		error = tide_error_set(TIDE_ECONFLICT,
				       "recorded resolution '%s' no longer applies", id);
		goto done;
	}
	buf_put(out, res.ptr, res.len);
	error = 0;
done:
	git_merge_file_result_free(&res);
	buf_release(&pre);
	buf_release(&post);
	return error;
}

/* Like git: a replayed postimage's mtime is its last-used date (never a link's target's). */
static void touch_postimage(const char *store, const char *id, int v)
{
	char *post = variant_path(store, id, "postimage", v);

	utimensat(AT_FDCWD, post, NULL, AT_SYMLINK_NOFOLLOW);
	free(post);
}

/*
 * rerere_apply(); *same_pre (may be NULL) tells whether a variant was
 * recorded for exactly this conflict (recording again replaces it), touch
 * whether a use counts as one (not for a look).
 */
static int apply_variants(struct buf *out, char *id, int *same_pre, const char *store,
			  const char *conflicted, size_t clen, int marker_size, int touch)
{
	struct buf cur = BUF_INIT;
	int same = 0;
	char *why = NULL;
	int n, v, error, worst = 0;

	if ((error = rerere_normalize(&cur, id, conflicted, clen, marker_size)) < 0)
		goto done;
	if (error == 0) {
		error = tide_error_set(TIDE_ENOTFOUND, "no conflict markers");
		goto done;
	}
	n = variant_count(store, id);
	for (v = 0; v < n; v++) {
		size_t keep = out->len;

		if ((error = try_variant(out, &same, store, id, v, &cur, marker_size)) == 0)
			break;
		buf_truncate(out, keep);
		if (error == TIDE_ERROR)
			goto done;
		/* A corrupt variant says more than a stale one. */
		if (error < 0 && (!worst || (error == TIDE_EINVAL && worst != TIDE_EINVAL))) {
			worst = error;
			free(why);
			why = xstrdup(tide_error_last());
		}
	}
	if (v < n) {
		if (touch)
			touch_postimage(store, id, v);
		error = 0;
	} else if (worst) {
		error = tide_error_set(worst, "%s", why);
	} else {
		error = tide_error_set(TIDE_ENOTFOUND, "no recorded resolution for '%s'", id);
	}
done:
	if (same_pre)
		*same_pre = same;
	free(why);
	buf_release(&cur);
	return error;
}

int rerere_apply(struct buf *out, char *id, const char *store,
		 const char *conflicted, size_t clen, int marker_size)
{
	return apply_variants(out, id, NULL, store, conflicted, clen, marker_size, 1);
}

static int older_than(const char *path, time_t limit)
{
	struct stat st;

	return lstat(path, &st) == 0 && st.st_mtime < limit;
}

static int expire_entry(const char *store, const char *id, time_t limit,
			size_t *removed)
{
	int n = variant_count(store, id), v, left = 0;
	char *pre, *post, *dir;

	for (v = 0; v < n; v++) {
		pre = variant_path(store, id, "preimage", v);
		post = variant_path(store, id, "postimage", v);
		if (path_exists(post) ? older_than(post, limit) : older_than(pre, limit)) {
			unlink(pre);
			unlink(post);
			(*removed)++;
		} else if (path_exists(pre) || path_exists(post)) {
			left++;
		}
		free(pre);
		free(post);
	}
	if (!left) {
		dir = xasprintf("%s/%s", store, id);
		rm_rf(dir);
		free(dir);
	}
	return 0;
}

int rerere_expire(const char *store, int days, time_t now, size_t *removed)
{
	DIR *d = opendir(store);
	struct dirent *de;
	size_t count = 0;
	time_t limit = now - (time_t)days * 86400;

	if (!d) {
		if (errno == ENOENT)
			goto done;
		return tide_error_errno(TIDE_EIO, "cannot read '%s'", store);
	}
	while ((de = readdir(d)))
		if (strlen(de->d_name) == RERERE_ID_LEN)
			expire_entry(store, de->d_name, limit, &count);
	closedir(d);
done:
	if (removed)
		*removed = count;
	return 0;
}

/*
 * Write text to dir/rel, creating parent directories.  rel comes from a
 * tree (a conflicted path, a shared rr-cache entry): it is opened below
 * dir one component at a time (src/safefs.h), so neither ".." nor a
 * symlink already in the worktree can lead the write out of dir.
 */
static int write_under_mode(const char *dir, const char *rel, const void *text, size_t len,
			    int exec)
{
	const char *name;
	int rootfd, fd, error;

	if ((error = mkdir_p(dir, 0777)) < 0)
		return error;
	if ((rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return tide_error_errno(TIDE_EIO, "cannot open '%s'", dir);
	if ((error = safefs_open_parent(&fd, &name, rootfd, rel, 1, NULL)) == 0) {
		error = safefs_write(fd, name, text, len, SAFEFS_ATOMIC | (exec ? SAFEFS_EXEC : 0),
				     rel);
		close(fd);
	}
	close(rootfd);
	return error;
}

static int write_under(const char *dir, const char *rel, const void *text, size_t len)
{
	return write_under_mode(dir, rel, text, len, 0);
}

/*
 * A text conflict for the person: the file as merged, markers and all,
 * with its mode (an executable script stays one), a copy under
 * .tide/conflicts/, and a line "SIZE<TAB>PATH" in files, SIZE being its
 * conflict-marker-size, which --record checks the fix against.
 */
static int write_conflict(git_repository *repo, const char *dir, const git_tree *tree,
			  const struct merge_conflict *mc, struct buf *files, struct buf *other)
{
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	const char *text;
	char *copy = NULL;
	int size = mc->marker_size > 0 ? mc->marker_size : ATTR_MARKER_SIZE, error = 0;
	size_t len;

	if (mc->kind != MERGE_CONFLICT_CONTENT && mc->kind != MERGE_CONFLICT_ADD_ADD)
		goto not_text;
	if (git_tree_entry_bypath(&entry, tree, mc->path) < 0 ||
	    git_blob_lookup(&blob, repo, git_tree_entry_id(entry)) < 0)
		goto not_text;
	text = git_blob_rawcontent(blob);
	len = (size_t)git_blob_rawsize(blob);
	if (!rerere_has_markers(text, len, size))
		goto not_text;
	copy = xasprintf(".tide/conflicts/%s", mc->path);
	if ((error = write_under_mode(dir, mc->path, text, len, git_tree_entry_filemode(entry) ==
				      GIT_FILEMODE_BLOB_EXECUTABLE)) == 0 &&
	    (error = write_under(dir, copy, text, len)) == 0)
		buf_printf(files, "%d\t%s\n", size, mc->path);
	goto done;
not_text:
	tide_error_clear();
	buf_printf(other, "%s\t%s\n", merge_conflict_kind_name(mc->kind), mc->path);
done:
	free(copy);
	git_blob_free(blob);
	git_tree_entry_free(entry);
	return error;
}

/*
 * The next "SIZE<TAB>PATH" line of .tide/files (plain "PATH" lines, from
 * an older tide, are size 7), cut in place; 0 at the end.
 */
static int files_next(char **p, int *size, char **path)
{
	char *nl, *tab, *end;
	long n;

	if (!**p || !(nl = strchr(*p, '\n')))
		return 0;
	*nl = '\0';
	*size = ATTR_MARKER_SIZE;
	*path = *p;
	if ((tab = strchr(*p, '\t'))) {
		n = strtol(*p, &end, 10);
		if (end == tab && n > 0 && n <= ATTR_MARKER_SIZE_MAX)
			*size = (int)n;
		*path = tab + 1;
	}
	*p = nl + 1;
	return 1;
}

/*
 * The whole merged tree, markers and all, checked out into the empty dir
 * (src/build.c's checkout, through src/safefs): a commit of it, with
 * ours and theirs as parents and a fixed signature so a rerun makes the
 * same object, is what checkout_tree() takes.
 */
static int checkout_merged(git_repository *repo, const char *dir, const git_tree *tree,
			   git_commit *ours, git_commit *theirs, const char *msg)
{
	struct checkout_stats st = { 0 };
	const git_commit *parents[2] = { ours, theirs };
	git_signature *sig = NULL;
	git_oid commit;
	const char *slash = strrchr(dir, '/');
	char *state = slash ? xasprintf("%.*s/.%s.checkout", (int)(slash - dir), dir, slash + 1) :
			      xasprintf(".%s.checkout", dir);
	int error;

	if (git_signature_new(&sig, "tide", "tide@localhost", 0, 0) < 0 ||
	    git_commit_create(&commit, repo, NULL, sig, sig, NULL, msg, tree, 2, parents) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot write the merged state");
		goto done;
	}
	error = checkout_tree(&st, repo, &commit, dir, state);
	unlink(state);
done:
	checkout_stats_release(&st);
	git_signature_free(sig);
	free(state);
	return error;
}

/*
 * What `git merge` leaves for git rerere after a conflict: each conflicted
 * file's preimage in .git/rr-cache/<id>/ and "<id> TAB path NUL" in
 * .git/MERGE_RR, so `git rerere` and `git commit` in the worktree record
 * the postimage as they would after a merge of their own.  The preimage
 * has the file's own marker size, as git's has.
 */
static int git_rerere_state(const char *dir, const char *files)
{
	struct buf rr = BUF_INIT, text = BUF_INIT, pre = BUF_INIT;
	char id[RERERE_ID_LEN + 1], *list = xstrdup(files), *p = list, *rel, *copy, *entry, *path;
	int error = 0, n, size;

	/* .git is tide's own directory here (ids are hex): no tree path is in these names. */
	while (!error && files_next(&p, &size, &rel)) {
		copy = xasprintf(".tide/conflicts/%s", rel);
		buf_clear(&text);
		buf_clear(&pre);
		if ((error = safefs_read_under(&text, dir, copy, RERERE_MAX_FILE)) == 0 &&
		    (n = rerere_normalize(&pre, id, text.ptr, text.len, size)) > 0) {
			entry = xasprintf("%s/.git/rr-cache/%s", dir, id);
			path = path_join(entry, "preimage");
			if ((error = mkdir_p(entry, 0777)) == 0)
				error = file_write_atomic(path, pre.ptr, pre.len);
			buf_printf(&rr, "%s\t%s", id, rel);
			buf_putc(&rr, '\0');
			free(path);
			free(entry);
		} else if (!error && n < 0) {
			error = n;
		}
		free(copy);
	}
	path = xasprintf("%s/.git/MERGE_RR", dir);
	if (!error)
		error = file_write_atomic(path, rr.ptr ? rr.ptr : "", rr.len);
	free(path);
	free(list);
	buf_release(&rr);
	buf_release(&text);
	buf_release(&pre);
	return error;
}

static char *resolution_diff(const char *path, const char *a, size_t alen,
			     const char *b, size_t blen);
static int apply_variants(struct buf *out, char *id, int *same_pre, const char *store,
			  const char *conflicted, size_t clen, int marker_size, int touch);

void rerere_worktree_release(struct rerere_worktree *wt)
{
	size_t i;

	for (i = 0; i < wt->nknown; i++) {
		free(wt->known[i].path);
		free(wt->known[i].text);
	}
	free(wt->known);
	memset(wt, 0, sizeof(*wt));
}

/* A resolution of one of the files already in store: what it would do, or why it would not. */
static void check_known(struct rerere_worktree *wt, size_t *alloc, const char *store,
			const char *rel, const struct buf *text, int size)
{
	struct rerere_known k;
	struct buf out = BUF_INIT;
	int error;

	memset(&k, 0, sizeof(k));
	error = apply_variants(&out, k.id, &k.replaces, store, text->ptr, text->len, size, 0);
	if (error != TIDE_ENOTFOUND && error != TIDE_ERROR && *k.id) {
		k.path = xstrdup(rel);
		k.applies = error == 0;
		k.text = k.applies ? resolution_diff(rel, text->ptr, text->len, out.ptr, out.len)
				   : xstrdup(tide_error_last());
		array_grow(&wt->known, alloc, wt->nknown + 1, sizeof(*wt->known));
		wt->known[wt->nknown++] = k;
	}
	tide_error_clear();
	buf_release(&out);
}

static void check_all_known(struct rerere_worktree *wt, const char *dir, const char *store,
			    const char *files)
{
	struct buf text = BUF_INIT;
	char *list = xstrdup(files), *p = list, *rel, *copy;
	size_t alloc = 0;
	int size;

	while (store && files_next(&p, &size, &rel)) {
		copy = xasprintf(".tide/conflicts/%s", rel);
		buf_clear(&text);
		if (safefs_read_under(&text, dir, copy, RERERE_MAX_FILE) == 0)
			check_known(wt, &alloc, store, rel, &text, size);
		tide_error_clear();
		free(copy);
	}
	free(list);
	buf_release(&text);
}

int rerere_worktree_prepare(struct rerere_worktree *out, git_repository *repo, const char *dir,
			    const char *store, const git_oid *ours, const git_oid *theirs,
			    const char *ours_label, const char *theirs_label)
{
	struct merge_opts mopts = MERGE_OPTS_INIT;
	struct merge_result res;
	struct buf files = BUF_INIT, other = BUF_INIT;
	git_commit *a = NULL, *b = NULL;
	git_tree *tree = NULL;
	char *msg = NULL;
	size_t i;
	int error;

	memset(&res, 0, sizeof(res));
	memset(out, 0, sizeof(*out));
	mopts.ours_label = ours_label;
	mopts.theirs_label = theirs_label;
	if (git_commit_lookup(&a, repo, ours) < 0 || git_commit_lookup(&b, repo, theirs) < 0) {
		error = tide_error_git(TIDE_ENOTFOUND, "cannot read the commits to merge");
		goto done;
	}
	if ((error = merge_commits(&res, repo, a, b, &mopts)) < 0)
		goto done;
	if (git_tree_lookup(&tree, repo, &res.tree) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the merged tree");
		goto done;
	}
	msg = xasprintf("Merge %s into %s\n\nConflicts:\n", theirs_label, ours_label);
	if ((error = rm_rf(dir)) < 0 || (error = mkdir_p(dir, 0777)) < 0 ||
	    (error = checkout_merged(repo, dir, tree, a, b, msg)) < 0)
		goto done;
	for (i = 0; i < res.nconflicts && !error; i++)
		error = write_conflict(repo, dir, tree, &res.conflicts[i], &files, &other);
	for (i = 0; i < files.len; i++)
		out->nfiles += files.ptr[i] == '\n';
	if (!error)
		error = write_under(dir, ".tide/files", buf_cstr(&files), files.len);
	if (!error)
		error = write_under(dir, ".tide/other", buf_cstr(&other), other.len);
	if (!error)
		error = worktree_git_init(repo, dir, ours, theirs, &res.tree, res.conflicts,
					  res.nconflicts, msg);
	if (!error)
		error = git_rerere_state(dir, buf_cstr(&files));
	if (!error)
		check_all_known(out, dir, store, buf_cstr(&files));
done:
	free(msg);
	buf_release(&files);
	buf_release(&other);
	git_tree_free(tree);
	git_commit_free(a);
	git_commit_free(b);
	merge_result_clear(&res);
	return error;
}

/*
 * Read the conflicted copy and the person's version of rel, below dir
 * without following a link (the path is the tree's).  The fix may not
 * keep markers of the file's own size: with conflict-marker-size 32 a
 * 32-character "<<<<" line is a marker, and a 7-character one text.
 */
static int read_pair(struct buf *conflicted, struct buf *resolved, const char *dir,
		     const char *rel, int size)
{
	char *orig = xasprintf(".tide/conflicts/%s", rel), *mine = path_join(dir, rel);
	int error;

	if ((error = safefs_read_under(conflicted, dir, orig, RERERE_MAX_FILE)) == 0 &&
	    (error = safefs_read_under(resolved, dir, rel, RERERE_MAX_FILE)) == 0 &&
	    rerere_has_markers(resolved->ptr, resolved->len, size))
		error = tide_error_set(TIDE_EINVAL, "'%s' still has conflict markers (%d characters "
				       "long, its conflict-marker-size)", mine, size);
	free(orig);
	free(mine);
	return error;
}

static int for_each_file(const char *dir, const char *store, struct buf *ids, int record)
{
	struct buf list = BUF_INIT, c = BUF_INIT, r = BUF_INIT;
	char id[RERERE_ID_LEN + 1], *p, *rel;
	int error, size;

	if ((error = safefs_read_under(&list, dir, ".tide/files", RERERE_MAX_FILE)) < 0) {
		error = tide_error_set(TIDE_ENOTFOUND, "'%s' is not a resolution worktree", dir);
		goto done;
	}
	for (p = list.ptr; !error && files_next(&p, &size, &rel);) {
		buf_clear(&c);
		buf_clear(&r);
		if ((error = read_pair(&c, &r, dir, rel, size)) < 0 || !record)
			continue;
		if ((error = rerere_record(store, c.ptr, c.len, r.ptr, r.len, size, id, NULL)) == 0 &&
		    ids)
			buf_printf(ids, "%s %s\n", id, rel);
	}
done:
	buf_release(&list);
	buf_release(&c);
	buf_release(&r);
	return error;
}

static int has_files(const char *dir)
{
	struct buf list = BUF_INIT;
	int any = safefs_read_under(&list, dir, ".tide/files", RERERE_MAX_FILE) == 0 &&
		  list.len > 0;

	tide_error_clear();
	buf_release(&list);
	return any;
}

int rerere_worktree_record(struct buf *ids, const char *dir, const char *store)
{
	int error;

	/* Check every file first: record all of the fix or nothing. */
	if ((error = for_each_file(dir, store, NULL, 0)) < 0)
		return error;
	if (error == 0 && !has_files(dir))
		return tide_error_set(TIDE_EINVAL, "'%s' has no text conflict to record", dir);
	return for_each_file(dir, store, ids, 1);
}

void rerere_outcomes_free(struct rerere_outcome *o, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(o[i].path);
		free(o[i].diff);
		free(o[i].error);
	}
	free(o);
}

static char *resolution_diff(const char *path, const char *a, size_t alen,
			     const char *b, size_t blen)
{
	git_patch *patch = NULL;
	git_buf out = { 0 };
	char *text;

	if (git_patch_from_buffers(&patch, a, alen, path, b, blen, path, NULL) < 0 ||
	    git_patch_to_buf(&out, patch) < 0) {
		git_patch_free(patch);
		tide_error_clear();
		return xstrdup("");
	}
	text = xstrndup(out.ptr, out.size);
	git_buf_dispose(&out);
	git_patch_free(patch);
	return text;
}

/* Resolve one conflicted path; on success adds the tree update (blob) to up. */
/* entry: the conflicted file in the merged tree (mode 0 when there is none). */
static int resolve_one(struct rerere_outcome *o, git_tree_update *up, git_repository *repo,
		       const struct tree_path_entry *entry, const struct merge_conflict *mc,
		       const char *store)
{
	git_blob *blob = NULL;
	struct buf out = BUF_INIT;
	int size = mc->marker_size > 0 ? mc->marker_size : ATTR_MARKER_SIZE, error = 0;

	o->path = xstrdup(mc->path);
	if (!entry->mode || git_blob_lookup(&blob, repo, &entry->id) < 0 ||
	    !rerere_has_markers(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), size)) {
		o->error = xasprintf("%s conflict: no recorded resolution possible",
				     merge_conflict_kind_name(mc->kind));
		goto done;
	}
	error = rerere_apply(&out, o->id, store, git_blob_rawcontent(blob),
			     (size_t)git_blob_rawsize(blob), size);
	if (error < 0 && error != TIDE_ERROR) {
		o->missing = error == TIDE_ENOTFOUND;
		o->error = xstrdup(tide_error_last());
		error = 0;
		goto done;
	}
	if (error < 0 || git_blob_create_from_buffer(&up->id, repo, out.ptr, out.len) < 0) {
		error = error < 0 ? error : tide_error_git(TIDE_ERROR, "cannot write '%s'", mc->path);
		goto done;
	}
	up->action = GIT_TREE_UPDATE_UPSERT;
	up->filemode = entry->mode;
	up->path = o->path;
	o->resolved = 1;
	o->diff = resolution_diff(mc->path, git_blob_rawcontent(blob),
				  (size_t)git_blob_rawsize(blob), out.ptr, out.len);
done:
	buf_release(&out);
	git_blob_free(blob);
	git_error_clear();
	return error;
}

int rerere_resolve_merge(git_oid *out_tree, struct rerere_outcome **outcomes, size_t *n,
			 git_repository *repo, const git_oid *merged_tree,
			 const struct merge_conflict *conflicts, size_t nconflicts,
			 const char *store)
{
	struct rerere_outcome *o = xcalloc(nconflicts, sizeof(*o));
	git_tree_update *ups = xcalloc(nconflicts, sizeof(*ups));
	struct tree_path_entry *entries = xcalloc(nconflicts + 1, sizeof(*entries));
	const char **paths = xcalloc(nconflicts + 1, sizeof(*paths));
	struct tree_paths *tp = NULL;
	git_tree *tree = NULL;
	size_t i, done = 0;
	int error = 0;

	if (git_tree_lookup(&tree, repo, merged_tree) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the merged tree");
		goto out;
	}
	/* every conflicted file found in one pass over the tree, not a walk from the root each */
	for (i = 0; i < nconflicts; i++)
		paths[i] = conflicts[i].path;
	tp = tree_paths_new(paths, nconflicts);
	if ((error = tree_paths_read(entries, tp, repo, merged_tree)) < 0)
		goto out;
	for (i = 0; i < nconflicts && !error; i++) {
		error = resolve_one(&o[i], &ups[done], repo, &entries[i], &conflicts[i], store);
		done += o[i].resolved;
	}
	if (!error && done == nconflicts) {
		if (git_tree_create_updated(out_tree, repo, tree, done, ups) < 0)
			error = tide_error_git(TIDE_ERROR, "cannot write the resolved tree");
		else
			error = 1;
	}
out:
	git_tree_free(tree);
	tree_paths_free(tp);
	free(entries);
	free(paths);
	free(ups);
	*outcomes = o;
	*n = nconflicts;
	return error;
}

/* ---- sharing the store as a branch of a git repository ---- */

static int open_cache(git_repository **out, const char *cache)
{
	if (git_repository_open_bare(out, cache) == 0)
		return 0;
	if (git_repository_init(out, cache, 1) < 0)
		return tide_error_git(TIDE_ERROR, "cannot create '%s'", cache);
	return 0;
}

static char *tracking_ref(const char *branch)
{
	return xasprintf("refs/remotes/share/%s", branch);
}

static int share_transfer(git_repository *repo, const char *url, const char *spec, int push)
{
	git_remote *remote = NULL;
	git_remote_create_options copts;
	git_fetch_options fopts;
	git_strarray specs = { NULL, 1 };
	char *s = xstrdup(spec), *shown = url_redact(url);
	int error = 0;

	specs.strings = &s;
	/* Anonymous, without the url.*.insteadOf lookup that leaks in libgit2 1.5 (see fetch.c). */
	git_remote_create_options_init(&copts, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	copts.repository = repo;
	copts.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	/* FETCH_HEAD would keep the URL, password and all. */
	git_fetch_options_init(&fopts, GIT_FETCH_OPTIONS_VERSION);
	fopts.update_fetchhead = 0;
	if (git_remote_create_with_opts(&remote, url, &copts) < 0)
		error = tide_error_git(TIDE_EINVAL, "bad rerere share URL '%s'", shown);
	else if ((push ? git_remote_push(remote, &specs, NULL)
		       : git_remote_fetch(remote, &specs, &fopts, NULL)) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot %s recorded resolutions %s '%s'",
				       push ? "push" : "fetch", push ? "to" : "from", shown);
	git_remote_free(remote);
	free(shown);
	free(s);
	return error;
}

/* An id directory's name: 40 lowercase hex digits. */
static int is_entry_id(const char *name)
{
	return strlen(name) == RERERE_ID_LEN && strspn(name, "0123456789abcdef") == RERERE_ID_LEN;
}

/*
 * Write blob to store/<id>/<name> unless it already holds that content.
 * The branch is anyone's who can push to it: only entry files are taken,
 * and only up to RERERE_MAX_FILE bytes (the size is read before the blob).
 */
static int import_file(git_repository *repo, git_odb *odb, const char *store, const char *id,
		       const git_tree_entry *e)
{
	git_blob *blob = NULL;
	struct buf want = BUF_INIT;
	char *rel = xasprintf("%s/%s", id, git_tree_entry_name(e)), *path = path_join(store, rel);
	git_object_t type;
	size_t size = 0;
	int error = 0;

	if (variant_of(git_tree_entry_name(e)) < 0 ||
	    git_odb_read_header(&size, &type, odb, git_tree_entry_id(e)) < 0 ||
	    size > RERERE_MAX_FILE) {
		git_error_clear();	/* not an entry file, or missing: left out, as git would not read it */
		goto done;
	}
	if (git_blob_lookup(&blob, repo, git_tree_entry_id(e)) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read shared '%s'", rel);
		goto done;
	}
	buf_put(&want, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	if (!same_file(path, &want))	/* keep the mtime (last use) of unchanged files */
		error = write_under(store, rel, want.ptr ? want.ptr : "", want.len);
done:
	buf_release(&want);
	git_blob_free(blob);
	free(rel);
	free(path);
	return error;
}

static int import_tree(git_repository *repo, const git_tree *root, const char *store)
{
	git_tree *sub = NULL;
	git_odb *odb = NULL;
	size_t i, j;
	int error = 0;

	if (git_repository_odb(&odb, repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot open the shared store's objects");
	for (i = 0; i < git_tree_entrycount(root) && !error; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(root, i);

		if (git_tree_entry_type(e) != GIT_OBJECT_TREE || !is_entry_id(git_tree_entry_name(e)))
			continue;
		if (git_tree_lookup(&sub, repo, git_tree_entry_id(e)) < 0) {
			error = tide_error_git(TIDE_ERROR, "cannot read the shared store");
			break;
		}
		for (j = 0; j < git_tree_entrycount(sub) && !error; j++)
			if (git_tree_entry_filemode(git_tree_entry_byindex(sub, j)) == GIT_FILEMODE_BLOB)
				error = import_file(repo, odb, store, git_tree_entry_name(e),
						    git_tree_entry_byindex(sub, j));
		git_tree_free(sub);
		sub = NULL;
	}
	git_odb_free(odb);
	return error;
}

int rerere_share_fetch(const char *store, const char *cache, const char *url,
		       const char *branch)
{
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	char *ref = tracking_ref(branch), *spec = xasprintf("+refs/heads/%s:%s", branch, ref);
	git_oid id;
	int error;

	if ((error = open_cache(&repo, cache)) < 0 ||
	    (error = share_transfer(repo, url, spec, 0)) < 0)
		goto done;
	if (git_reference_name_to_id(&id, repo, ref) < 0) {
		tide_error_clear();	/* a branch nobody pushed yet: nothing to import */
		goto done;
	}
	if (git_commit_lookup(&commit, repo, &id) < 0 || git_commit_tree(&tree, commit) < 0) {
		char *shown = url_redact(url);

		error = tide_error_git(TIDE_ERROR, "cannot read '%s' of '%s'", branch, shown);
		free(shown);
		goto done;
	}
	error = import_tree(repo, tree, store);
done:
	git_tree_free(tree);
	git_commit_free(commit);
	git_repository_free(repo);
	free(spec);
	free(ref);
	return error;
}

/* The tree of one entry directory: its preimage/postimage files. */
static int entry_tree(git_oid *out, int *nfiles, git_repository *repo, const char *dir)
{
	git_treebuilder *tb = NULL;
	struct buf text = BUF_INIT;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	git_oid blob;
	char *path;
	int error = 0;

	*nfiles = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		/* A link or a file where an entry was is not an entry. */
		return errno == ENOTDIR || errno == ELOOP ? 0 :
			tide_error_errno(TIDE_EIO, "cannot read '%s'", dir);
	}
	if (git_treebuilder_new(&tb, repo, NULL) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot build a tree");
	while (!error && (e = readdir(d))) {
		if (variant_of(e->d_name) < 0)
			continue;
		path = path_join(dir, e->d_name);
		buf_clear(&text);
		/* A link or a FIFO planted in the store is left out, never read through and pushed. */
		if ((error = safefs_read_file(&text, path, RERERE_MAX_FILE)) == TIDE_EINVAL) {
			tide_error_clear();
			error = 0;
		} else if (!error &&
			   (git_blob_create_from_buffer(&blob, repo, text.ptr, text.len) < 0 ||
			    git_treebuilder_insert(NULL, tb, e->d_name, &blob, GIT_FILEMODE_BLOB) < 0)) {
			error = tide_error_git(TIDE_ERROR, "cannot store '%s'", path);
		} else {
			*nfiles += !error;
		}
		free(path);
	}
	if (!error && *nfiles && git_treebuilder_write(out, tb) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot write a tree");
	closedir(d);
	git_treebuilder_free(tb);
	buf_release(&text);
	return error;
}

static int store_tree(git_oid *out, git_repository *repo, const char *store)
{
	git_treebuilder *root = NULL;
	DIR *d = opendir(store);
	struct dirent *e;
	git_oid sub;
	char *dir;
	int error = 0, n;

	if (git_treebuilder_new(&root, repo, NULL) < 0) {
		if (d)
			closedir(d);
		return tide_error_git(TIDE_ERROR, "cannot build a tree");
	}
	while (d && !error && (e = readdir(d))) {
		if (!is_entry_id(e->d_name))
			continue;
		dir = path_join(store, e->d_name);
		if ((error = entry_tree(&sub, &n, repo, dir)) == 0 && n &&
		    git_treebuilder_insert(NULL, root, e->d_name, &sub, GIT_FILEMODE_TREE) < 0)
			error = tide_error_git(TIDE_ERROR, "cannot add '%s'", e->d_name);
		free(dir);
	}
	if (!error && git_treebuilder_write(out, root) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot write the store's tree");
	if (d)
		closedir(d);
	git_treebuilder_free(root);
	return error;
}

/* Commit tree on top of the fetched tip (if any); *out unchanged tip when equal. */
static int store_commit(git_oid *out, int *changed, git_repository *repo, const git_oid *tree_id,
			const char *tracking)
{
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_oid tip;
	int error = 0;

	*changed = 0;
	if (git_reference_name_to_id(&tip, repo, tracking) == 0 &&
	    git_commit_lookup(&parent, repo, &tip) == 0 &&
	    git_oid_equal(git_commit_tree_id(parent), tree_id)) {
		git_oid_cpy(out, &tip);
		goto done;
	}
	tide_error_clear();
	if (git_tree_lookup(&tree, repo, tree_id) < 0 ||
	    git_signature_now(&sig, "tide", "tide@localhost") < 0 ||
	    git_commit_create(out, repo, NULL, sig, sig, NULL, "tide: recorded resolutions\n",
			      tree, parent ? 1 : 0, (const git_commit **)&parent) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot commit the recorded resolutions");
	*changed = !error;
done:
	git_signature_free(sig);
	git_tree_free(tree);
	git_commit_free(parent);
	return error;
}

int rerere_share_push(const char *store, const char *cache, const char *url,
		      const char *branch)
{
	git_repository *repo = NULL;
	git_reference *ref = NULL;
	char *tracking = tracking_ref(branch), *local = xasprintf("refs/heads/%s", branch);
	char *spec = xasprintf("%s:refs/heads/%s", local, branch);
	git_oid tree, commit;
	int error, changed;

	if ((error = open_cache(&repo, cache)) < 0 || (error = store_tree(&tree, repo, store)) < 0 ||
	    (error = store_commit(&commit, &changed, repo, &tree, tracking)) < 0 || !changed)
		goto done;
	if (git_reference_create(&ref, repo, local, &commit, 1, "tide: store") < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot update '%s'", local);
		goto done;
	}
	git_reference_free(ref);
	ref = NULL;
	if ((error = share_transfer(repo, url, spec, 1)) == 0 &&
	    git_reference_create(&ref, repo, tracking, &commit, 1, "tide: pushed") < 0)
		error = tide_error_git(TIDE_ERROR, "cannot update '%s'", tracking);
done:
	git_reference_free(ref);
	git_repository_free(repo);
	free(spec);
	free(local);
	free(tracking);
	return error;
}

struct rerere_conf {
	char *url, *branch;
	int expire_days;
};

static int conf_load(struct rerere_conf *c, const char *wsdir)
{
	char *path = workspace_rerere_conf(wsdir), *line, *save = NULL, *eq, *hash;
	struct buf text = BUF_INIT;
	int error = 0;

	memset(c, 0, sizeof(*c));
	c->expire_days = 60;	/* git's rerere.resolved default */
	if ((error = file_read_text(&text, path)) < 0) {
		/* No rerere.conf is no sharing; a broken one is an error. */
		if (error == TIDE_ENOTFOUND) {
			error = 0;
			tide_error_clear();
		}
		goto done;
	}
	for (line = strtok_r(text.ptr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		str_rtrim(line);
		if (!*line || *line == '#')
			continue;
		eq = strchr(line, '=');
		if (eq && !strncmp(line, "share=", 6)) {
			hash = strrchr(eq + 1, '#');
			free(c->url);
			free(c->branch);
			c->url = hash ? xstrndup(eq + 1, (size_t)(hash - eq - 1)) : xstrdup(eq + 1);
			c->branch = xstrdup(hash ? hash + 1 : "rerere-cache");
		} else if (eq && !strncmp(line, "expire-days=", 12)) {
			c->expire_days = atoi(eq + 1);
		} else {
			error = tide_error_set(TIDE_EINVAL, "%s: bad line '%s'", path, line);
			break;
		}
	}
done:
	buf_release(&text);
	free(path);
	return error;
}

static void conf_release(struct rerere_conf *c)
{
	free(c->url);
	free(c->branch);
}

/* "WHAT URL#BRANCH", the URL's password redacted. */
static void share_done(struct buf *done, const char *what, const struct rerere_conf *c)
{
	char *shown = url_redact(c->url);

	buf_printf(done, "%s %s#%s\n", what, shown, c->branch);
	free(shown);
}

int rerere_sync_before(const char *wsdir, struct buf *done)
{
	struct rerere_conf c;
	char *store = workspace_rr_cache(wsdir), *cache = workspace_rr_cache_git(wsdir);
	int error;

	if ((error = conf_load(&c, wsdir)) == 0 && c.url &&
	    (error = rerere_share_fetch(store, cache, c.url, c.branch)) == 0 && done)
		share_done(done, "fetched recorded resolutions from", &c);
	conf_release(&c);
	free(store);
	free(cache);
	return error;
}

int rerere_sync_after(const char *wsdir, struct buf *done)
{
	struct rerere_conf c;
	char *store = workspace_rr_cache(wsdir), *cache = workspace_rr_cache_git(wsdir);
	size_t removed = 0;
	int error;

	if ((error = conf_load(&c, wsdir)) < 0)
		goto out;
	if (c.expire_days > 0 && (error = rerere_expire(store, c.expire_days, time(NULL), &removed)) < 0)
		goto out;
	if (removed && done)
		buf_printf(done, "expired %zu recorded resolution%s unused for %d days\n", removed,
			   removed == 1 ? "" : "s", c.expire_days);
	if (c.url && (error = rerere_share_push(store, cache, c.url, c.branch)) == 0 && done)
		share_done(done, "pushed recorded resolutions to", &c);
out:
	conf_release(&c);
	free(store);
	free(cache);
	return error;
}
