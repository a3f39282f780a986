/* An incremental, safe checkout of a commit into a directory (checkout.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkout.h"
#include "error.h"
#include "fsck.h"
#include "safefs.h"
#include "util.h"


static void note_changed(struct checkout_stats *st, const char *rel)
{
	array_grow(&st->changed, &st->achanged, st->nchanged + 1, sizeof(*st->changed));
	st->changed[st->nchanged++] = xstrdup(rel);
}

void checkout_stats_release(struct checkout_stats *st)
{
	size_t i;

	for (i = 0; i < st->nchanged; i++)
		free(st->changed[i]);
	free(st->changed);
	st->changed = NULL;
	st->nchanged = st->achanged = 0;
}

int checkout_changed(const struct checkout_stats *st, const char *path)
{
	size_t i;

	for (i = 0; i < st->nchanged; i++)
		if (!strcmp(st->changed[i], path))
			return 1;
	return 0;
}

/*
 * Everything below works on directory fds of DIR/build/src (src/safefs.h):
 * a tree that names "..", or whose symlink "a" is followed by a
 * directory "a/", cannot lead a write or a removal outside it.
 */

/* Write one blob as name in dirfd (a file or a symlink), replacing what is there. */
static int write_blob(git_repository *repo, const git_oid *id, git_filemode_t mode,
		      int dirfd, const char *name, const char *rel)
{
	git_blob *blob = NULL;
	int flags = mode == GIT_FILEMODE_LINK ? SAFEFS_LINK :
		    mode == GIT_FILEMODE_BLOB_EXECUTABLE ? SAFEFS_EXEC : 0;
	int error;

	if (git_blob_lookup(&blob, repo, id) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read blob for '%s'", rel);
	error = safefs_write(dirfd, name, git_blob_rawcontent(blob),
			     (size_t)git_blob_rawsize(blob), flags, rel);
	git_blob_free(blob);
	return error;
}

/* Read all of fd into out; -1 with errno on failure. */
static int fd_read_all(int fd, struct buf *out)
{
	ssize_t n;

	for (;;) {
		buf_grow(out, 65536);
		n = read(fd, out->ptr + out->len, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return (int)n;
		out->len += (size_t)n;
		out->ptr[out->len] = '\0';
	}
}

static int link_is_current(const git_oid *id, int dirfd, const char *name, const struct stat *st)
{
	struct buf target = BUF_INIT;
	git_oid have;
	ssize_t n;
	int same;

	buf_grow(&target, (size_t)st->st_size + 1);
	n = readlinkat(dirfd, name, target.ptr, (size_t)st->st_size + 1);
	same = n == st->st_size && git_odb_hash(&have, target.ptr, (size_t)n, GIT_OBJECT_BLOB) == 0 &&
	       git_oid_equal(&have, id);
	buf_release(&target);
	return same;
}

/* Does name in dirfd already hold this blob with this mode?  Fixes a wrong x bit. */
static int blob_is_current(const git_oid *id, git_filemode_t mode, int dirfd, const char *name)
{
	struct buf data = BUF_INIT;
	struct stat st;
	git_oid have;
	int fd, same = 0, exec = mode == GIT_FILEMODE_BLOB_EXECUTABLE;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (mode == GIT_FILEMODE_LINK)
		return S_ISLNK(st.st_mode) && link_is_current(id, dirfd, name, &st);
	if (!S_ISREG(st.st_mode) ||
	    (fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return 0;
	if (fd_read_all(fd, &data) == 0 &&
	    git_odb_hash(&have, buf_cstr(&data), data.len, GIT_OBJECT_BLOB) == 0 &&
	    git_oid_equal(&have, id)) {
		same = 1;
		if (!!(st.st_mode & S_IXUSR) != exec)
			fchmod(fd, exec ? 0755 : 0644);
	}
	close(fd);
	buf_release(&data);
	return same;
}

/* Remove what dirfd holds that tree does not name. */
static int prune_extra(const git_tree *tree, int dirfd, const char *rel,
		       struct checkout_stats *st)
{
	int copy = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), error = 0;
	DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
	struct dirent *e;

	if (!d) {
		if (copy >= 0)
			close(copy);
		return tide_error_errno(TIDE_EIO, "cannot open directory '%s'", *rel ? rel : ".");
	}
	while (!error && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (git_tree_entry_byname(tree, e->d_name))
			continue;
		error = safefs_remove(dirfd, e->d_name, e->d_name);
		st->removed++;
	}
	closedir(d);
	return error;
}

/* The fsck rules at the last moment: a bad name is refused, not written. */
static int check_entry_name(const git_tree_entry *e, const char *rel)
{
	const char *name = git_tree_entry_name(e), *why;
	struct buf q = BUF_INIT;
	int error;

	if (fsck_entry_name(name, strlen(name), (unsigned int)git_tree_entry_filemode_raw(e),
			    &why) == 0)
		return 0;
	fsck_quote(&q, rel, strlen(rel));
	error = tide_error_set(TIDE_EINVAL, "refusing path '%s': %s", buf_cstr(&q), why);
	buf_release(&q);
	return error;
}

static int sync_tree(git_repository *repo, const git_tree *tree, int dirfd,
		     struct buf *rel, struct checkout_stats *st);

/* One entry of a full checkout; rel is its path. */
static int sync_entry(git_repository *repo, const git_tree_entry *e, int dirfd,
		      struct buf *rel, struct checkout_stats *st)
{
	git_filemode_t mode = git_tree_entry_filemode(e);
	const char *name = git_tree_entry_name(e);
	git_tree *sub = NULL;
	int fd = -1, error;

	if ((error = check_entry_name(e, rel->ptr)) < 0)
		return error;
	if (mode == GIT_FILEMODE_TREE || mode == GIT_FILEMODE_COMMIT) {
		/* A submodule is left as an empty directory. */
		if ((error = safefs_mkdir(&fd, dirfd, name, &st->removed, rel->ptr)) < 0 ||
		    mode == GIT_FILEMODE_COMMIT)
			goto done;
		if (git_tree_lookup(&sub, repo, git_tree_entry_id(e)) < 0)
			error = tide_error_git(TIDE_ERROR, "cannot read tree '%s'", rel->ptr);
		else
			error = sync_tree(repo, sub, fd, rel, st);
	} else if (blob_is_current(git_tree_entry_id(e), mode, dirfd, name)) {
		st->unchanged++;
	} else {
		error = write_blob(repo, git_tree_entry_id(e), mode, dirfd, name, rel->ptr);
		note_changed(st, rel->ptr);
		st->written++;
	}
done:
	if (fd >= 0)
		close(fd);
	git_tree_free(sub);
	return error;
}

/* Full checkout: make dirfd (at rel) match tree, comparing content before writing. */
static int sync_tree(git_repository *repo, const git_tree *tree, int dirfd,
		     struct buf *rel, struct checkout_stats *st)
{
	size_t i, n = git_tree_entrycount(tree), at = rel->len;
	int error;

	if ((error = prune_extra(tree, dirfd, buf_cstr(rel), st)) < 0)
		return error;
	for (i = 0; i < n && !error; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(tree, i);

		if (at)
			buf_putc(rel, '/');
		buf_puts(rel, git_tree_entry_name(e));
		error = sync_entry(repo, e, dirfd, rel, st);
		buf_truncate(rel, at);
	}
	return error;
}

/* After removing path, remove the directories above it that became empty. */
static void prune_empty_parents(int rootfd, const char *path)
{
	char *dir = xstrdup(path), *slash;
	const char *name;
	int fd;

	while ((slash = strrchr(dir, '/'))) {
		*slash = '\0';
		if (safefs_open_parent(&fd, &name, rootfd, dir, 0, NULL) < 0)
			break;
		slash = unlinkat(fd, name, AT_REMOVEDIR) < 0 ? NULL : dir;
		close(fd);
		if (!slash)
			break;
	}
	tide_error_clear();
	free(dir);
}

/* A deleted path: nothing to do when its directory is not there (or not a directory). */
static int remove_path(int rootfd, const char *path)
{
	const char *name;
	int fd, error;

	error = safefs_open_parent(&fd, &name, rootfd, path, 0, NULL);
	if (error == TIDE_ENOTFOUND) {
		tide_error_clear();
		return 0;
	}
	if (error < 0)
		return error;
	error = safefs_remove(fd, name, path);
	close(fd);
	if (!error)
		prune_empty_parents(rootfd, path);
	return error;
}

static int write_path(git_repository *repo, const git_diff_file *f, int rootfd,
		      struct checkout_stats *st)
{
	const char *name;
	int fd, sub = -1, error;

	if ((error = safefs_open_parent(&fd, &name, rootfd, f->path, 1, NULL)) < 0)
		return error;
	if (f->mode == GIT_FILEMODE_COMMIT) {
		error = safefs_mkdir(&sub, fd, name, &st->removed, f->path);
		if (sub >= 0)
			close(sub);
	} else {
		error = write_blob(repo, &f->id, f->mode, fd, name, f->path);
		note_changed(st, f->path);
		st->written++;
	}
	close(fd);
	return error;
}

static int apply_delta(git_repository *repo, const git_diff_delta *d, int rootfd, int pass,
		       struct checkout_stats *st)
{
	int error = 0;

	if (pass == 0 && d->status == GIT_DELTA_DELETED) {
		error = remove_path(rootfd, d->old_file.path);
		note_changed(st, d->old_file.path);
		st->removed++;
	} else if (pass == 1 && d->status != GIT_DELTA_DELETED) {
		error = write_path(repo, &d->new_file, rootfd, st);
	}
	return error;
}

/* Incremental checkout: write what the diff between the trees names. */
static int checkout_diff(git_repository *repo, const git_tree *old, const git_tree *new,
			 int rootfd, struct checkout_stats *st)
{
	git_diff *diff = NULL;
	size_t i, n;
	int pass, error = 0;

	if (git_diff_tree_to_tree(&diff, repo, (git_tree *)old, (git_tree *)new, NULL) < 0)
		return tide_error_git(TIDE_ERROR, "cannot diff the trees");
	n = git_diff_num_deltas(diff);
	/* Deletions first, so a file that became a directory is out of the way. */
	for (pass = 0; pass < 2 && !error; pass++)
		for (i = 0; i < n && !error; i++)
			error = apply_delta(repo, git_diff_get_delta(diff, i), rootfd, pass, st);
	git_diff_free(diff);
	return error;
}

/* The tree recorded in state_path, or NULL (none, garbage, unknown). */
static git_tree *read_state_tree(git_repository *repo, const char *state_path)
{
	struct buf b = BUF_INIT;
	git_tree *tree = NULL;
	git_oid id;

	/* A cache of one line: never a link's target, a FIFO's wait or a device's stream. */
	if (safefs_read_file(&b, state_path, 4096) == 0 &&
	    git_oid_fromstrn(&id, str_rtrim(b.ptr), GIT_OID_HEXSZ) == 0 &&
	    strlen(b.ptr) == GIT_OID_HEXSZ)
		git_tree_lookup(&tree, repo, &id);
	buf_release(&b);
	tide_error_clear();
	git_error_clear();
	return tree;
}

/* The checkout into srcdir (made if missing), by directory fd. */
static int checkout_into(git_repository *repo, const git_tree *old, const git_tree *tree,
			 const char *srcdir, struct checkout_stats *st)
{
	struct buf rel = BUF_INIT;
	int rootfd, error;

	if ((error = mkdir_p(srcdir, 0777)) < 0)
		return error;
	if ((rootfd = open(srcdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return tide_error_errno(TIDE_EIO, "cannot open '%s'", srcdir);
	if (old) {
		error = checkout_diff(repo, old, tree, rootfd, st);
	} else {
		st->full = 1;
		error = sync_tree(repo, tree, rootfd, &rel, st);
	}
	close(rootfd);
	buf_release(&rel);
	return error;
}

int checkout_tree(struct checkout_stats *stats, git_repository *repo,
		   const git_oid *commit, const char *srcdir,
		   const char *state_path)
{
	struct checkout_stats st = { 0 };
	git_commit *c = NULL;
	git_tree *tree = NULL, *old = NULL;
	char hex[GIT_OID_HEXSZ + 2];
	double t0 = time_now();
	int error = 0;

	if (git_commit_lookup(&c, repo, commit) < 0 || git_commit_tree(&tree, c) < 0) {
		error = tide_error_git(TIDE_ENOTFOUND, "cannot read commit %s",
				       git_oid_tostr_s(commit));
		goto done;
	}
	old = path_is_dir(srcdir) ? read_state_tree(repo, state_path) : NULL;
	/* From here on srcdir is in flux: no state until it is consistent. */
	if (unlink(state_path) < 0 && errno != ENOENT) {
		error = tide_error_errno(TIDE_EIO, "cannot remove '%s'", state_path);
		goto done;
	}
	if ((error = checkout_into(repo, old, tree, srcdir, &st)) < 0)
		goto done;
	git_oid_tostr(hex, GIT_OID_HEXSZ + 1, git_tree_id(tree));
	hex[GIT_OID_HEXSZ] = '\n';
	error = file_write_atomic(state_path, hex, GIT_OID_HEXSZ + 1);
done:
	st.seconds = time_now() - t0;
	if (stats)
		*stats = st;
	else
		checkout_stats_release(&st);
	git_tree_free(old);
	git_tree_free(tree);
	git_commit_free(c);
	return error;
}
