#ifndef TIDE_UTIL_H
#define TIDE_UTIL_H

#include <stddef.h>
#include <stdio.h>

#include "buf.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation helpers: abort on out-of-memory (see buf.h for why). */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *arr (of element size elsz) so that it holds at least want elements. */
void array_grow(void *arr_ptr, size_t *alloc, size_t want, size_t elsz);

/* Read a whole file into out (appending).  Returns 0 or a TIDE_E* code. */
int file_read(struct buf *out, const char *path);
/*
 * file_read() for a configuration file: a NUL byte in it is an error
 * ("PATH:LINE: NUL byte", TIDE_EINVAL), since the string functions that
 * parse it would stop there and lose the rest of the file unseen.
 */
int file_read_text(struct buf *out, const char *path);
/*
 * Write data to path atomically: a temporary file in the same directory,
 * fsync, rename.  A reader sees the old or the new file, never half.
 */
int file_write_atomic(const char *path, const void *data, size_t len);
/* The same with the file's mode (0755 for a script), whatever the umask. */
int file_write_atomic_mode(const char *path, const void *data, size_t len, int mode);
/* The SHA-256 of a file's content as 64 hex digits and a NUL (out has 65 bytes). */
int file_sha256_hex(char *out, const char *path);
/* write() all of data, retrying on EINTR and short writes; -1 with errno. */
int fd_write_all(int fd, const void *data, size_t len);
/*
 * fsync() the directory dir, so a rename into it survives a crash (the
 * rename is in the directory, not in the file).  File systems that cannot
 * fsync a directory (EINVAL) are not an error.
 */
int dir_fsync(const char *dir);
/* dir_fsync() of the directory holding path. */
int dir_fsync_parent(const char *path);
int mkdir_p(const char *path, int mode);
/* Remove a file or a directory tree; a missing path is not an error. */
int rm_rf(const char *path);
int path_is_dir(const char *path);
int path_exists(const char *path);
/* dir + "/" + name, without doubling slashes. */
char *path_join(const char *dir, const char *name);
/* An absolute, normalized version of path (need not exist). */
char *path_absolute(const char *path);

/* Seconds from a monotonic clock, for timings in records. */
double time_now(void);

/*
 * Binary search of a table of sorted raw object ids of idlen bytes each,
 * between entries lo and hi (hi excluded): 1 and *pos when id is there.
 */
int sorted_ids_find(const unsigned char *table, size_t idlen, size_t lo, size_t hi,
		    const unsigned char *id, size_t *pos);

int str_starts_with(const char *s, const char *prefix);
int str_ends_with(const char *s, const char *suffix);
/* Strip trailing whitespace in place; returns s. */
char *str_rtrim(char *s);

#endif
