#ifndef TIDE_CPIO_H
#define TIDE_CPIO_H

#include <stddef.h>

#include "buf.h"

/*
 * A newc ("070701") cpio archive written in memory, as the kernel's
 * initramfs unpacker reads it.  Entries get fixed owners (root) and
 * mtime 0, so the same inputs always make the same bytes: that is what
 * lets tide cache initramfs images by content.
 */
struct cpio {
	struct buf data;
	unsigned long next_ino;
	int finished;
};

#define CPIO_INIT { BUF_INIT, 1, 0 }

/* name is the path inside the archive, without a leading slash. */
void cpio_add_dir(struct cpio *c, const char *name, unsigned mode);
void cpio_add_file(struct cpio *c, const char *name, unsigned mode,
		   const void *data, size_t len);
/* A character device node (mode without S_IFCHR). */
void cpio_add_chardev(struct cpio *c, const char *name, unsigned mode,
		      unsigned major, unsigned minor);
/* Append the TRAILER!!! entry; nothing may be added afterwards. */
void cpio_finish(struct cpio *c);
void cpio_release(struct cpio *c);

/* One entry read back from an archive (tests, checks). */
struct cpio_entry {
	const char *name;	/* points into the archive; not NUL-terminated */
	size_t namelen;		/* without the NUL */
	unsigned mode, rdevmajor, rdevminor;
	const char *data;
	size_t size;
};

/*
 * Read the entry at *pos and advance *pos past it.  Returns 1 for an
 * entry, 0 at the trailer, TIDE_EINVAL for a malformed archive.
 */
int cpio_next(struct cpio_entry *out, const char *archive, size_t len,
	      size_t *pos);

/*
 * The smoke-test initramfs: /init (the static guest program init_path),
 * /config (the kernel's .config, so guest tests can see what was
 * configured; config_path may be NULL), /dev/console and the mount points.
 * The image is cache_dir/<content hash>.cpio; an image that exists is
 * reused, not rewritten (*reused = 1).  *out_path is allocated.
 */
int cpio_initramfs(char **out_path, int *reused, const char *cache_dir,
		   const char *init_path, const char *config_path);

#endif
