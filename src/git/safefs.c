/*
 * Writing below a root directory without ever leaving it (safefs.h).
 * Nothing here resolves a path string: each step is an *at() call on the
 * directory fd reached so far, with O_NOFOLLOW or AT_SYMLINK_NOFOLLOW, so
 * what a symbolic link points to is never opened, written or removed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fsck.h"
#include "safefs.h"
#include "util.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* The fsck rules once more, whatever checked the tree before. */
static int check_name(const char *name, size_t len, unsigned int mode, const char *shown)
{
	struct buf q = BUF_INIT;
	const char *why;
	int error;

	if (fsck_entry_name(name, len, mode, &why) == 0)
		return 0;
	fsck_quote(&q, shown, strlen(shown));
	error = tide_error_set(TIDE_EINVAL, "refusing path '%s': %s", buf_cstr(&q), why);
	buf_release(&q);
	return error;
}

int safefs_mkdir(int *out, int dirfd, const char *name, size_t *removed, const char *shown)
{
	struct stat st;

	*out = -1;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) < 0)
			return tide_error_errno(TIDE_EIO, "cannot remove '%s'", shown);
		if (removed)
			(*removed)++;
	}
	if (mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST)
		return tide_error_errno(TIDE_EIO, "cannot create directory '%s'", shown);
	/* O_NOFOLLOW: a link swapped in since the fstatat() is not followed either. */
	if ((*out = openat(dirfd, name, DIR_FLAGS)) < 0)
		return tide_error_errno(TIDE_EIO, "cannot open directory '%s'", shown);
	return 0;
}

static int open_existing(int *out, int dirfd, const char *name, const char *shown)
{
	if ((*out = openat(dirfd, name, DIR_FLAGS)) >= 0)
		return 0;
	if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
		return tide_error_set(TIDE_ENOTFOUND, "no directory '%s'", shown);
	return tide_error_errno(TIDE_EIO, "cannot open directory '%s'", shown);
}

/* One step down: the directory name (len bytes) in fd, made if create. */
static int step(int *out, int fd, const char *name, size_t len, int create, size_t *removed,
		const char *shown)
{
	char *one = xstrndup(name, len);
	int error = create ? safefs_mkdir(out, fd, one, removed, shown)
			   : open_existing(out, fd, one, shown);

	free(one);
	return error;
}

/* Every component first: a refused path leaves no directory made for it. */
static int check_all(const char *rel, size_t len, const char *shown)
{
	const char *p = rel, *end = rel + len, *slash;
	int error = 0;

	while (p < end && !error) {
		if (!(slash = memchr(p, '/', (size_t)(end - p))))
			slash = end;
		error = check_name(p, (size_t)(slash - p), 040000, shown);
		p = slash + 1;
	}
	return error;
}

static int open_dir(int *out, int rootfd, const char *rel, size_t len, int create,
		    size_t *removed, const char *shown)
{
	const char *p = rel, *end = rel + len, *slash;
	int fd, next = -1, error = 0;

	*out = -1;
	if ((error = check_all(rel, len, shown)) < 0)
		return error;
	if ((fd = openat(rootfd, ".", DIR_FLAGS)) < 0) {
		error = tide_error_errno(TIDE_EIO, "cannot open the checkout directory");
		goto done;
	}
	while (p < end) {
		if (!(slash = memchr(p, '/', (size_t)(end - p))))
			slash = end;
		error = step(&next, fd, p, (size_t)(slash - p), create, removed, shown);
		close(fd);
		fd = next;
		if (error)
			goto done;
		p = slash + 1;
	}
	*out = fd;
	fd = -1;
done:
	if (fd >= 0)
		close(fd);
	return error;
}

int safefs_open_dir(int *out, int rootfd, const char *rel, size_t len, int create,
		    size_t *removed)
{
	char *shown = xstrndup(rel, len);
	int error = open_dir(out, rootfd, rel, len, create, removed, shown);

	free(shown);
	return error;
}

int safefs_open_parent(int *out, const char **name, int rootfd, const char *rel, int create,
		       size_t *removed)
{
	const char *slash = strrchr(rel, '/');

	/* Errors name all of rel: the parent alone would not say what was refused. */
	*name = slash ? slash + 1 : rel;
	return open_dir(out, rootfd, rel, slash ? (size_t)(slash - rel) : 0, create, removed, rel);
}

/* Names readdir() gives are real entries; only these would climb or loop. */
static int is_step_out(const char *name)
{
	return !*name || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/');
}

static int remove_children(int fd, const char *shown)
{
	int copy = openat(fd, ".", DIR_FLAGS), error = 0;
	DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
	struct dirent *e;

	if (!d) {
		if (copy >= 0)
			close(copy);
		return tide_error_errno(TIDE_EIO, "cannot read directory '%s'", shown);
	}
	while (!error && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			error = safefs_remove(fd, e->d_name, shown);
	closedir(d);
	return error;
}

int safefs_remove(int dirfd, const char *name, const char *shown)
{
	struct stat st;
	int fd, error;

	if (is_step_out(name))
		return check_name(name, strlen(name), 0100644, shown);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : tide_error_errno(TIDE_EIO, "cannot remove '%s'", shown);
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			return tide_error_errno(TIDE_EIO, "cannot remove '%s'", shown);
		return 0;
	}
	if ((fd = openat(dirfd, name, DIR_FLAGS)) < 0)
		return tide_error_errno(TIDE_EIO, "cannot remove '%s'", shown);
	error = remove_children(fd, shown);
	close(fd);
	if (!error && unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		error = tide_error_errno(TIDE_EIO, "cannot remove '%s'", shown);
	return error;
}

/* Create name (which does not exist) in dirfd with data. */
static int create_at(int dirfd, const char *name, const void *data, size_t len, int flags,
		     const char *shown)
{
	int fd, error = 0;

	if (flags & SAFEFS_LINK) {
		char *target = xstrndup(data, len);

		if (symlinkat(target, dirfd, name) < 0)
			error = tide_error_errno(TIDE_EIO, "cannot create symlink '%s'", shown);
		free(target);
		return error;
	}
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    (flags & SAFEFS_EXEC) ? 0755 : 0644);
	if (fd < 0 || fd_write_all(fd, data, len) < 0 ||
	    ((flags & SAFEFS_ATOMIC) && fsync(fd) < 0))
		error = tide_error_errno(TIDE_EIO, "cannot write '%s'", shown);
	if (fd >= 0 && close(fd) < 0 && !error)
		error = tide_error_errno(TIDE_EIO, "cannot write '%s'", shown);
	return error;
}

static int write_aside(int dirfd, const char *name, const void *data, size_t len, int flags,
		       const char *shown)
{
	char *tmp = xasprintf(".tide-tmp-%ld", (long)getpid());
	struct stat st;
	int error;

	unlinkat(dirfd, tmp, 0);
	if ((error = create_at(dirfd, tmp, data, len, flags, shown)) < 0)
		goto done;
	/* rename() replaces a file or a link, not a directory. */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	    (error = safefs_remove(dirfd, name, shown)) < 0)
		goto done;
	if (renameat(dirfd, tmp, dirfd, name) < 0)
		error = tide_error_errno(TIDE_EIO, "cannot write '%s'", shown);
done:
	if (error)
		unlinkat(dirfd, tmp, 0);
	free(tmp);
	return error;
}

int safefs_write(int dirfd, const char *name, const void *data, size_t len, int flags,
		 const char *shown)
{
	unsigned int mode = (flags & SAFEFS_LINK) ? 0120000 : (flags & SAFEFS_EXEC) ? 0100755 : 0100644;
	int error;

	if ((error = check_name(name, strlen(name), mode, shown)) < 0)
		return error;
	if (flags & SAFEFS_ATOMIC)
		return write_aside(dirfd, name, data, len, flags, shown);
	if ((error = safefs_remove(dirfd, name, shown)) < 0)
		return error;
	return create_at(dirfd, name, data, len, flags, shown);
}

/* ---- reading ---- */

#define READ_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/* Why st (of shown) may not be read, as an error; 0 if it may. */
static int check_regular(const struct stat *st, size_t max, const char *shown)
{
	if (S_ISLNK(st->st_mode))
		return tide_error_set(TIDE_EINVAL, "refusing '%s': a symbolic link", shown);
	if (!S_ISREG(st->st_mode))
		return tide_error_set(TIDE_EINVAL, "refusing '%s': not a regular file", shown);
	if ((unsigned long long)st->st_size > (unsigned long long)max)
		return tide_error_set(TIDE_EINVAL, "refusing '%s': %lld bytes, over the limit of %zu",
				      shown, (long long)st->st_size, max);
	return 0;
}

static int open_error(const char *shown)
{
	if (errno == ELOOP)
		return tide_error_set(TIDE_EINVAL, "refusing '%s': a symbolic link", shown);
	return tide_error_errno(errno == ENOENT || errno == ENOTDIR ? TIDE_ENOTFOUND : TIDE_EIO,
				"cannot open '%s'", shown);
}

/* Read fd to its end, but never more than max bytes in all. */
static int read_bounded(struct buf *out, int fd, size_t max, const char *shown)
{
	char chunk[65536];
	size_t total = 0;
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return tide_error_errno(TIDE_EIO, "cannot read '%s'", shown);
		}
		if ((size_t)n > max - total)
			return tide_error_set(TIDE_EINVAL, "refusing '%s': grew over the limit of %zu "
					      "bytes while read", shown, max);
		buf_put(out, chunk, (size_t)n);
		total += (size_t)n;
	}
	return 0;
}

int safefs_read_at(struct buf *out, int dirfd, const char *name, size_t max, const char *shown)
{
	struct stat st;
	size_t start = out->len;
	int fd, error;

	/* Looked at before it is opened: opening a device or a FIFO can do things. */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return open_error(shown);
	if ((error = check_regular(&st, max, shown)) < 0)
		return error;
	if ((fd = openat(dirfd, name, READ_FLAGS)) < 0)
		return open_error(shown);
	/* And again once open: it may have been swapped in between. */
	if (fstat(fd, &st) < 0)
		error = tide_error_errno(TIDE_EIO, "cannot read '%s'", shown);
	else if ((error = check_regular(&st, max, shown)) == 0)
		error = read_bounded(out, fd, max, shown);
	close(fd);
	if (error)
		buf_truncate(out, start);
	/* An empty file is still a C string, as file_read() gives it. */
	buf_grow(out, 0);
	out->ptr[out->len] = '\0';
	return error;
}

int safefs_read_regular(struct buf *out, const char *path, size_t max)
{
	struct stat st;
	size_t start = out->len;
	int fd, error;

	if (stat(path, &st) < 0)
		return open_error(path);
	if ((error = check_regular(&st, max, path)) < 0)
		return error;
	if ((fd = open(path, READ_FLAGS & ~O_NOFOLLOW)) < 0)
		return open_error(path);
	if (fstat(fd, &st) < 0)
		error = tide_error_errno(TIDE_EIO, "cannot read '%s'", path);
	else if ((error = check_regular(&st, max, path)) == 0)
		error = read_bounded(out, fd, max, path);
	close(fd);
	if (error)
		buf_truncate(out, start);
	buf_grow(out, 0);
	out->ptr[out->len] = '\0';
	return error;
}

int safefs_read_file(struct buf *out, const char *path, size_t max)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	int dirfd = open(dir, DIR_FLAGS), error;
	struct stat st;

	/* O_DIRECTORY | O_NOFOLLOW on a link fails with ENOTDIR: say what it is. */
	if (dirfd < 0 && errno == ENOTDIR && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
		error = tide_error_set(TIDE_EINVAL, "refusing '%s': a symbolic link", dir);
	else if (dirfd < 0)
		error = open_error(dir);
	else
		error = safefs_read_at(out, dirfd, slash ? slash + 1 : path, max, path);
	if (dirfd >= 0)
		close(dirfd);
	free(dir);
	return error;
}

int safefs_read_under(struct buf *out, const char *root, const char *rel, size_t max)
{
	const char *name;
	char *shown = path_join(root, rel);
	int rootfd = open(root, DIR_FLAGS), fd = -1, error;

	if (rootfd < 0)
		error = open_error(root);
	else if ((error = safefs_open_parent(&fd, &name, rootfd, rel, 0, NULL)) == 0)
		error = safefs_read_at(out, fd, name, max, shown);
	if (fd >= 0)
		close(fd);
	if (rootfd >= 0)
		close(rootfd);
	free(shown);
	return error;
}
