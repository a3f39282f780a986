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

#include "build.h"
#include "error.h"
#include "merge.h"
#include "rerere.h"
#include "text.h"
#include "safefs.h"
#include "util.h"
#include "workspace.h"
#include "worktree.h"

#define MARKER_SIZE 7

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

/* git's is_cmarker(): '<' and '>' need a space (the label) after them. */
static int is_marker(const char *line, size_t len, char c)
{
	size_t i;

	if (len <= MARKER_SIZE)
		return 0;
	for (i = 0; i < MARKER_SIZE; i++)
		if (line[i] != c)
			return 0;
	if ((c == '<' || c == '>') && line[MARKER_SIZE] != ' ')
		return 0;
	return isspace((unsigned char)line[MARKER_SIZE]);
}

static void put_marker(struct buf *out, char c)
{
	int i;

	for (i = 0; i < MARKER_SIZE; i++)
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
static int handle_conflict(struct buf *out, struct lines *l, struct sha1 *ctx, int depth)
{
	enum { SIDE_1, SIDE_2, ORIGINAL } hunk = SIDE_1;
	struct buf one = BUF_INIT, two = BUF_INIT, nested = BUF_INIT, tmp;
	const char *line;
	size_t len;
	int ret = -1;

	if (depth > MAX_NESTING)
		return -2;
	while (line_next(l, &line, &len)) {
		if (is_marker(line, len, '<')) {
			if ((ret = handle_conflict(&nested, l, NULL, depth + 1)) < 0)
				break;
			ret = -1;
			buf_put(hunk == SIDE_1 ? &one : &two, nested.ptr, nested.len);
			buf_clear(&nested);
		} else if (is_marker(line, len, '|')) {
			if (hunk != SIDE_1)
				break;
			hunk = ORIGINAL;
		} else if (is_marker(line, len, '=')) {
			if (hunk == SIDE_2)
				break;
			hunk = SIDE_2;
		} else if (is_marker(line, len, '>')) {
			if (hunk != SIDE_2)
				break;
			if (buf_cmp(&one, &two) > 0)
				tmp = one, one = two, two = tmp;
			put_marker(out, '<');
			buf_put(out, one.ptr, one.len);
			put_marker(out, '=');
			buf_put(out, two.ptr, two.len);
			put_marker(out, '>');
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

int rerere_normalize(struct buf *preimage, char *id, const char *text, size_t len)
{
	struct lines l = { text, text + len };
	struct buf out = BUF_INIT;
	struct sha1 ctx;
	const char *line;
	size_t n;
	int hunks = 0, error;

	sha1_init(&ctx);
	while (line_next(&l, &line, &n)) {
		if (!is_marker(line, n, '<')) {
			buf_put(&out, line, n);
			continue;
		}
		if ((error = handle_conflict(&out, &l, &ctx, 1)) < 0) {
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

int rerere_has_markers(const char *text, size_t len)
{
	struct lines l = { text, text + len };
	const char *line;
	size_t n;

	/* A lone "=======" is legitimate text (reST, help texts): only the labelled ends count. */
	while (line_next(&l, &line, &n))
		if (is_marker(line, n, '<') || is_marker(line, n, '>'))
			return 1;
	return 0;
}

static char *variant_path(const char *store, const char *id, const char *name,
			  int variant)
{
	if (variant)
		return xasprintf("%s/%s/%s.%d", store, id, name, variant);
	return xasprintf("%s/%s/%s", store, id, name);
}

/* Highest variant number present in STORE/<id> plus one (0 if none). */
static int variant_count(const char *store, const char *id)
{
	char *dir = xasprintf("%s/%s", store, id);
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0, v;

	free(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, "preimage") || !strcmp(de->d_name, "postimage"))
			v = 0;
		else if (sscanf(de->d_name, "preimage.%d", &v) != 1 &&
			 sscanf(de->d_name, "postimage.%d", &v) != 1)
			continue;
		if (v + 1 > n)
			n = v + 1;
	}
	closedir(d);
	return n;
}

static int same_file(const char *path, const struct buf *want)
{
	struct buf b = BUF_INIT;
	int same = file_read(&b, path) == 0 && b.len == want->len &&
		   (!b.len || !memcmp(b.ptr, want->ptr, b.len));

	buf_release(&b);
	tide_error_clear();
	return same;
}

int rerere_record(const char *store, const char *conflicted, size_t clen,
		  const char *resolved, size_t rlen, char *id, int *variant)
{
	struct buf pre = BUF_INIT;
	char *dir = NULL, *path = NULL;
	int n, v, error;

	if ((error = rerere_normalize(&pre, id, conflicted, clen)) < 0)
		goto done;
	if (error == 0) {
		error = tide_error_set(TIDE_EINVAL, "no conflict to record");
		goto done;
	}
	if (rerere_has_markers(resolved, rlen)) {
		error = tide_error_set(TIDE_EINVAL, "resolution still has conflict markers");
		goto done;
	}
	dir = xasprintf("%s/%s", store, id);
	if ((error = mkdir_p(dir, 0777)) < 0)
		goto done;
	n = variant_count(store, id);
	for (v = 0; v < n; v++) {
		free(path);
		path = variant_path(store, id, "preimage", v);
		if (same_file(path, &pre))
			break;
	}
	free(path);
	path = variant_path(store, id, "preimage", v);
	if ((error = file_write_atomic(path, pre.ptr, pre.len)) < 0)
		goto done;
	free(path);
	path = variant_path(store, id, "postimage", v);
	error = file_write_atomic(path, resolved, rlen);
	if (variant)
		*variant = v;
done:
	free(path);
	free(dir);
	buf_release(&pre);
	return error;
}

/*
 * Try one variant (git's try_merge(): base preimage, ours the current
 * normalized text, theirs postimage).  0 applied, TIDE_ECONFLICT not
 * applicable, TIDE_EINVAL corrupt.
 */
static int try_variant(struct buf *out, const char *store, const char *id,
		       int v, const struct buf *cur)
{
	struct buf pre = BUF_INIT, post = BUF_INIT;
	git_merge_file_input base, ours, theirs;
	git_merge_file_result res = { 0 };
	char *pre_path = variant_path(store, id, "preimage", v);
	char *post_path = variant_path(store, id, "postimage", v);
	int error;

	if (file_read(&pre, pre_path) < 0 || file_read(&post, post_path) < 0) {
		error = tide_error_set(TIDE_EINVAL, "rr-cache entry '%s' is incomplete", id);
		goto done;
	}
	if (rerere_has_markers(post.ptr, post.len)) {
		error = tide_error_set(TIDE_EINVAL,
				       "rr-cache entry '%s' is corrupt: postimage has conflict markers", id);
		goto done;
	}
	if (pre.len == cur->len && !memcmp(pre.ptr, cur->ptr, pre.len)) {
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
	if (!res.automergeable || rerere_has_markers(res.ptr, res.len)) {
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
	free(pre_path);
	free(post_path);
	return error;
}

int rerere_apply(struct buf *out, char *id, const char *store,
		 const char *conflicted, size_t clen)
{
	struct buf cur = BUF_INIT;
	char *post = NULL;
	int n, v, error, worst = 0;

	if ((error = rerere_normalize(&cur, id, conflicted, clen)) < 0)
		goto done;
	if (error == 0) {
		error = tide_error_set(TIDE_ENOTFOUND, "no conflict markers");
		goto done;
	}
	n = variant_count(store, id);
	if (!n) {
		error = tide_error_set(TIDE_ENOTFOUND, "no recorded resolution for '%s'", id);
		goto done;
	}
	for (v = 0; v < n; v++) {
		size_t keep = out->len;

		if ((error = try_variant(out, store, id, v, &cur)) == 0)
			break;
		buf_truncate(out, keep);
		if (error == TIDE_ERROR)
			goto done;
		if (!worst || error == TIDE_EINVAL)
			worst = error;
	}
	if (v == n) {
		error = worst;
		goto done;
	}
	/* Like git: a replayed postimage's mtime is its last-used date. */
	post = variant_path(store, id, "postimage", v);
	utimes(post, NULL);
done:
	free(post);
	buf_release(&cur);
	return error;
}

static int older_than(const char *path, time_t limit)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_mtime < limit;
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
static int write_under(const char *dir, const char *rel, const void *text, size_t len)
{
	const char *name;
	int rootfd, fd, error;

	if ((error = mkdir_p(dir, 0777)) < 0)
		return error;
	if ((rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return tide_error_errno(TIDE_EIO, "cannot open '%s'", dir);
	if ((error = safefs_open_parent(&fd, &name, rootfd, rel, 1, NULL)) == 0) {
		error = safefs_write(fd, name, text, len, SAFEFS_ATOMIC, rel);
		close(fd);
	}
	close(rootfd);
	return error;
}

static int write_conflict(git_repository *repo, const char *dir, const git_tree *tree,
			  const struct merge_conflict *mc, struct buf *files, struct buf *other)
{
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	const char *text;
	char *copy = NULL;
	size_t len;
	int error = 0;

	if (mc->kind != MERGE_CONFLICT_CONTENT && mc->kind != MERGE_CONFLICT_ADD_ADD)
		goto not_text;
	if (git_tree_entry_bypath(&entry, tree, mc->path) < 0 ||
	    git_blob_lookup(&blob, repo, git_tree_entry_id(entry)) < 0)
		goto not_text;
	text = git_blob_rawcontent(blob);
	len = (size_t)git_blob_rawsize(blob);
	if (!rerere_has_markers(text, len))
		goto not_text;
	copy = xasprintf(".tide/conflicts/%s", mc->path);
	if ((error = write_under(dir, mc->path, text, len)) == 0 &&
	    (error = write_under(dir, copy, text, len)) == 0)
		buf_printf(files, "%s\n", mc->path);
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
 * The whole merged tree, markers and all, checked out into the empty dir
 * (src/build.c's checkout, through src/safefs): a commit of it, with
 * ours and theirs as parents and a fixed signature so a rerun makes the
 * same object, is what build_checkout() takes.
 */
static int checkout_merged(git_repository *repo, const char *dir, const git_tree *tree,
			   git_commit *ours, git_commit *theirs, const char *msg)
{
	struct build_checkout_stats st = { 0 };
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
	error = build_checkout(&st, repo, &commit, dir, state);
	unlink(state);
done:
	build_checkout_stats_release(&st);
	git_signature_free(sig);
	free(state);
	return error;
}

/*
 * What `git merge` leaves for git rerere after a conflict: each conflicted
 * file's preimage in .git/rr-cache/<id>/ and "<id> TAB path NUL" in
 * .git/MERGE_RR, so `git rerere` and `git commit` in the worktree record
 * the postimage as they would after a merge of their own.
 */
static int git_rerere_state(const char *dir, const char *files)
{
	struct buf rr = BUF_INIT, text = BUF_INIT, pre = BUF_INIT;
	char id[RERERE_ID_LEN + 1], *copy, *entry, *path;
	const char *p, *nl;
	int error = 0, n;

	/* .git is tide's own directory here (ids are hex): no tree path is in these names. */
	for (p = files; !error && (nl = strchr(p, '\n')); p = nl + 1) {
		copy = xasprintf("%s/.tide/conflicts/%.*s", dir, (int)(nl - p), p);
		buf_clear(&text);
		buf_clear(&pre);
		if ((error = file_read(&text, copy)) == 0 &&
		    (n = rerere_normalize(&pre, id, text.ptr, text.len)) > 0) {
			entry = xasprintf("%s/.git/rr-cache/%s", dir, id);
			path = path_join(entry, "preimage");
			if ((error = mkdir_p(entry, 0777)) == 0)
				error = file_write_atomic(path, pre.ptr, pre.len);
			buf_printf(&rr, "%s\t%.*s", id, (int)(nl - p), p);
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
	buf_release(&rr);
	buf_release(&text);
	buf_release(&pre);
	return error;
}

int rerere_worktree_prepare(size_t *nfiles, git_repository *repo, const char *dir,
			    const git_oid *ours, const git_oid *theirs,
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
	*nfiles = 0;
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
		*nfiles += files.ptr[i] == '\n';
	if (!error)
		error = write_under(dir, ".tide/files", buf_cstr(&files), files.len);
	if (!error)
		error = write_under(dir, ".tide/other", buf_cstr(&other), other.len);
	if (!error)
		error = worktree_git_init(repo, dir, ours, theirs, &res.tree, res.conflicts,
					  res.nconflicts, msg);
	if (!error)
		error = git_rerere_state(dir, buf_cstr(&files));
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

/* Read the conflicted copy and the person's version of path. */
static int read_pair(struct buf *conflicted, struct buf *resolved, const char *dir,
		     const char *path)
{
	char *orig = xasprintf("%s/.tide/conflicts/%s", dir, path);
	char *mine = path_join(dir, path);
	int error;

	if ((error = file_read(conflicted, orig)) == 0 && (error = file_read(resolved, mine)) == 0 &&
	    rerere_has_markers(resolved->ptr, resolved->len))
		error = tide_error_set(TIDE_EINVAL, "'%s' still has conflict markers", mine);
	free(orig);
	free(mine);
	return error;
}

static int for_each_file(const char *dir, const char *store, struct buf *ids, int record)
{
	struct buf list = BUF_INIT, c = BUF_INIT, r = BUF_INIT;
	char *listpath = xasprintf("%s/.tide/files", dir), *p, *nl;
	char id[RERERE_ID_LEN + 1];
	int error;

	if ((error = file_read(&list, listpath)) < 0) {
		error = tide_error_set(TIDE_ENOTFOUND, "'%s' is not a resolution worktree", dir);
		goto done;
	}
	for (p = list.ptr; *p && !error; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			break;
		*nl = '\0';
		buf_clear(&c);
		buf_clear(&r);
		if ((error = read_pair(&c, &r, dir, p)) < 0 || !record)
			continue;
		if ((error = rerere_record(store, c.ptr, c.len, r.ptr, r.len, id, NULL)) == 0 && ids)
			buf_printf(ids, "%s %s\n", id, p);
	}
done:
	free(listpath);
	buf_release(&list);
	buf_release(&c);
	buf_release(&r);
	return error;
}

static int has_files(const char *dir)
{
	char *path = xasprintf("%s/.tide/files", dir);
	struct buf list = BUF_INIT;
	int any = file_read(&list, path) == 0 && list.len > 0;

	tide_error_clear();
	buf_release(&list);
	free(path);
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
static int resolve_one(struct rerere_outcome *o, git_tree_update *up, git_repository *repo,
		       const git_tree *tree, const struct merge_conflict *mc, const char *store)
{
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	struct buf out = BUF_INIT;
	int error = 0;

	o->path = xstrdup(mc->path);
	if (git_tree_entry_bypath(&entry, tree, mc->path) < 0 ||
	    git_blob_lookup(&blob, repo, git_tree_entry_id(entry)) < 0 ||
	    !rerere_has_markers(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob))) {
		o->error = xasprintf("%s conflict: no recorded resolution possible",
				     merge_conflict_kind_name(mc->kind));
		goto done;
	}
	error = rerere_apply(&out, o->id, store, git_blob_rawcontent(blob),
			     (size_t)git_blob_rawsize(blob));
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
	up->filemode = git_tree_entry_filemode(entry);
	up->path = o->path;
	o->resolved = 1;
	o->diff = resolution_diff(mc->path, git_blob_rawcontent(blob),
				  (size_t)git_blob_rawsize(blob), out.ptr, out.len);
done:
	buf_release(&out);
	git_blob_free(blob);
	git_tree_entry_free(entry);
	return error;
}

int rerere_resolve_merge(git_oid *out_tree, struct rerere_outcome **outcomes, size_t *n,
			 git_repository *repo, const git_oid *merged_tree,
			 const struct merge_conflict *conflicts, size_t nconflicts,
			 const char *store)
{
	struct rerere_outcome *o = xcalloc(nconflicts, sizeof(*o));
	git_tree_update *ups = xcalloc(nconflicts, sizeof(*ups));
	git_tree *tree = NULL;
	size_t i, done = 0;
	int error = 0;

	if (git_tree_lookup(&tree, repo, merged_tree) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the merged tree");
		goto out;
	}
	for (i = 0; i < nconflicts && !error; i++) {
		error = resolve_one(&o[i], &ups[done], repo, tree, &conflicts[i], store);
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

/* Write blob to store/<id>/<name> unless it already holds that content. */
static int import_file(git_repository *repo, const char *store, const char *id,
		       const git_tree_entry *e)
{
	git_blob *blob = NULL;
	struct buf want = BUF_INIT;
	char *rel = xasprintf("%s/%s", id, git_tree_entry_name(e)), *path = path_join(store, rel);
	int error = 0;

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
	size_t i, j;
	int error = 0;

	for (i = 0; i < git_tree_entrycount(root) && !error; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(root, i);

		if (git_tree_entry_type(e) != GIT_OBJECT_TREE ||
		    strlen(git_tree_entry_name(e)) != RERERE_ID_LEN)
			continue;
		if (git_tree_lookup(&sub, repo, git_tree_entry_id(e)) < 0)
			return tide_error_git(TIDE_ERROR, "cannot read the shared store");
		for (j = 0; j < git_tree_entrycount(sub) && !error; j++)
			if (git_tree_entry_type(git_tree_entry_byindex(sub, j)) == GIT_OBJECT_BLOB)
				error = import_file(repo, store, git_tree_entry_name(e),
						    git_tree_entry_byindex(sub, j));
		git_tree_free(sub);
		sub = NULL;
	}
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
	DIR *d = opendir(dir);
	struct dirent *e;
	git_oid blob;
	char *path;
	int error = 0;

	*nfiles = 0;
	if (!d)
		return tide_error_errno(TIDE_EIO, "cannot read '%s'", dir);
	if (git_treebuilder_new(&tb, repo, NULL) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot build a tree");
	while (!error && (e = readdir(d))) {
		if (!str_starts_with(e->d_name, "preimage") && !str_starts_with(e->d_name, "postimage"))
			continue;
		path = path_join(dir, e->d_name);
		buf_clear(&text);
		if ((error = file_read(&text, path)) == 0 &&
		    (git_blob_create_from_buffer(&blob, repo, text.ptr, text.len) < 0 ||
		     git_treebuilder_insert(NULL, tb, e->d_name, &blob, GIT_FILEMODE_BLOB) < 0))
			error = tide_error_git(TIDE_ERROR, "cannot store '%s'", path);
		*nfiles += !error;
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
		if (strlen(e->d_name) != RERERE_ID_LEN)
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
