#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "error.h"
#include "util.h"

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return buf_detach(&b);
}

void array_grow(void *arr_ptr, size_t *alloc, size_t want, size_t elsz)
{
	void **arr = arr_ptr;
	size_t n = *alloc ? *alloc : 8;

	if (want <= *alloc)
		return;
	while (n < want)
		n *= 2;
	*arr = xrealloc(*arr, n * elsz);
	memset((char *)*arr + *alloc * elsz, 0, (n - *alloc) * elsz);
	*alloc = n;
}

int file_read(struct buf *out, const char *path)
{
	char chunk[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return tide_error_errno(errno == ENOENT ? TIDE_ENOTFOUND : TIDE_EIO,
					"cannot open '%s'", path);
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			tide_error_errno(TIDE_EIO, "cannot read '%s'", path);
			close(fd);
			return TIDE_EIO;
		}
		buf_put(out, chunk, (size_t)n);
	}
	close(fd);
	if (!out->ptr) {
		/* An empty file is still a C string: buf_grow() alone does not terminate it. */
		buf_grow(out, 0);
		out->ptr[0] = '\0';
	}
	return 0;
}

int file_read_text(struct buf *out, const char *path)
{
	size_t start = out->len;
	const char *nul, *q;
	int error, line = 1;

	if ((error = file_read(out, path)) < 0)
		return error;
	if (!(nul = memchr(out->ptr + start, '\0', out->len - start)))
		return 0;
	for (q = out->ptr + start; q < nul; q++)
		line += *q == '\n';
	return tide_error_set(TIDE_EINVAL, "%s:%d: NUL byte", path, line);
}

int fd_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int file_write_atomic(const char *path, const void *data, size_t len)
{
	return file_write_atomic_mode(path, data, len, 0644);
}

int file_write_atomic_mode(const char *path, const void *data, size_t len, int mode)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd, error = 0;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		error = tide_error_errno(TIDE_EIO, "cannot create '%s'", tmp);
		goto done;
	}
	/* fchmod: the umask must not take the execute bit of a script. */
	if (fd_write_all(fd, data, len) < 0 || fchmod(fd, (mode_t)mode) < 0 || fsync(fd) < 0) {
		error = tide_error_errno(TIDE_EIO, "cannot write '%s'", tmp);
		close(fd);
		unlink(tmp);
		goto done;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		error = tide_error_errno(TIDE_EIO, "cannot replace '%s'", path);
		unlink(tmp);
		goto done;
	}
	error = dir_fsync_parent(path);
done:
	free(tmp);
	return error;
}

int dir_fsync(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), error = 0;

	if (fd < 0)
		return tide_error_errno(TIDE_EIO, "cannot open directory '%s'", dir);
	if (fsync(fd) < 0 && errno != EINVAL)
		error = tide_error_errno(TIDE_EIO, "cannot sync directory '%s'", dir);
	close(fd);
	return error;
}

int dir_fsync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int error;

	if (!slash)
		return dir_fsync(".");
	dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
	error = dir_fsync(dir);
	free(dir);
	return error;
}

int mkdir_p(const char *path, int mode)
{
	char *p = xstrdup(path), *s;
	int error = 0;

	for (s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST) {
			error = tide_error_errno(TIDE_EIO, "cannot create directory '%s'", p);
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	if (!error && !path_is_dir(path))
		error = tide_error_set(TIDE_EIO, "'%s' exists and is not a directory", path);
	free(p);
	return error;
}

int rm_rf(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int error = 0;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : tide_error_errno(TIDE_EIO, "cannot stat '%s'", path);
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) < 0 && errno != ENOENT)
			return tide_error_errno(TIDE_EIO, "cannot remove '%s'", path);
		return 0;
	}
	if (!(d = opendir(path)))
		return tide_error_errno(TIDE_EIO, "cannot open directory '%s'", path);
	while (!error && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *child = path_join(path, e->d_name);
		error = rm_rf(child);
		free(child);
	}
	closedir(d);
	if (!error && rmdir(path) < 0 && errno != ENOENT)
		error = tide_error_errno(TIDE_EIO, "cannot remove '%s'", path);
	return error;
}

int path_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	while (*name == '/')
		name++;
	return xasprintf("%.*s/%s", (int)n, dir, name);
}

char *path_absolute(const char *path)
{
	struct buf b = BUF_INIT;
	const char *p;

	if (path[0] != '/') {
		char *cwd = getcwd(NULL, 0);

		if (!cwd)
			abort();
		buf_puts(&b, cwd);
		free(cwd);
	}
	/* Normalize: drop "." and empty components, resolve "..". */
	p = path;
	while (*p) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* skip */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = b.ptr ? strrchr(b.ptr, '/') : NULL;
			if (slash)
				buf_truncate(&b, (size_t)(slash - b.ptr));
		} else {
			buf_putc(&b, '/');
			buf_put(&b, p, n);
		}
		p += n;
		if (*p == '/')
			p++;
	}
	if (!b.len)
		buf_putc(&b, '/');
	return buf_detach(&b);
}

double time_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int str_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int str_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !memcmp(s + a - b, suffix, b);
}

char *str_rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' ||
		     s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

int sorted_ids_find(const unsigned char *table, size_t idlen, size_t lo, size_t hi,
		    const unsigned char *id, size_t *pos)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(table + mid * idlen, id, idlen);

		if (!c) {
			if (pos)
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

int file_sha256_hex(char *out, const char *path)
{
	struct buf data = BUF_INIT;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;
	int error;

	if ((error = file_read(&data, path)) == 0 &&
	    !EVP_Digest(data.ptr ? data.ptr : "", data.len, md, &n, EVP_sha256(), NULL))
		error = tide_error_set(TIDE_ERROR, "cannot hash '%s'", path);
	for (i = 0; !error && i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	buf_release(&data);
	return error;
}
