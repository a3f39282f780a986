#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <git2.h>

#include "cpio.h"
#include "error.h"
#include "util.h"

#define NEWC_MAGIC "070701"
#define NEWC_HDR 110

static void pad4(struct buf *b)
{
	while (b->len % 4)
		buf_putc(b, '\0');
}

static void put_header(struct cpio *c, const char *name, unsigned mode,
		       size_t size, unsigned rmaj, unsigned rmin)
{
	size_t namesize = strlen(name) + 1;
	int nlink = S_ISDIR(mode) ? 2 : 1;

	/* ino mode uid gid nlink mtime size devmaj devmin rdevmaj rdevmin namesize check */
	buf_printf(&c->data, NEWC_MAGIC "%08lX%08X%08X%08X%08X%08X%08lX%08X%08X%08X%08X%08lX%08X",
		   c->next_ino++, mode, 0, 0, nlink, 0, (unsigned long)size, 0, 0,
		   rmaj, rmin, (unsigned long)namesize, 0);
	buf_put(&c->data, name, namesize);
	pad4(&c->data);
}

void cpio_add_dir(struct cpio *c, const char *name, unsigned mode)
{
	put_header(c, name, S_IFDIR | (mode & 07777), 0, 0, 0);
}

void cpio_add_file(struct cpio *c, const char *name, unsigned mode,
		   const void *data, size_t len)
{
	put_header(c, name, S_IFREG | (mode & 07777), len, 0, 0);
	buf_put(&c->data, data, len);
	pad4(&c->data);
}

void cpio_add_chardev(struct cpio *c, const char *name, unsigned mode,
		      unsigned major, unsigned minor)
{
	put_header(c, name, S_IFCHR | (mode & 07777), 0, major, minor);
}

void cpio_finish(struct cpio *c)
{
	if (c->finished)
		return;
	c->next_ino = 0;
	put_header(c, "TRAILER!!!", 0, 0, 0, 0);
	c->finished = 1;
}

void cpio_release(struct cpio *c)
{
	buf_release(&c->data);
	c->next_ino = 1;
	c->finished = 0;
}

static int hex_field(unsigned long *out, const char *p)
{
	char tmp[9], *end;

	memcpy(tmp, p, 8);
	tmp[8] = '\0';
	*out = strtoul(tmp, &end, 16);
	return *end ? -1 : 0;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

int cpio_next(struct cpio_entry *out, const char *archive, size_t len,
	      size_t *pos)
{
	unsigned long f[13];
	size_t p = *pos, name_at, data_at;
	int i;

	if (p + NEWC_HDR > len || memcmp(archive + p, NEWC_MAGIC, 6))
		return tide_error_set(TIDE_EINVAL, "cpio: no newc header at offset %zu", p);
	for (i = 0; i < 13; i++)
		if (hex_field(&f[i], archive + p + 6 + 8 * i) < 0)
			return tide_error_set(TIDE_EINVAL, "cpio: bad header field at offset %zu", p);
	name_at = p + NEWC_HDR;
	if (f[11] == 0 || name_at + f[11] > len || archive[name_at + f[11] - 1])
		return tide_error_set(TIDE_EINVAL, "cpio: bad name at offset %zu", p);
	data_at = align4(name_at + f[11]);
	if (data_at + f[6] > len)
		return tide_error_set(TIDE_EINVAL, "cpio: entry at offset %zu is truncated", p);
	out->name = archive + name_at;
	out->namelen = f[11] - 1;
	out->mode = (unsigned)f[1];
	out->rdevmajor = (unsigned)f[9];
	out->rdevminor = (unsigned)f[10];
	out->data = archive + data_at;
	out->size = f[6];
	*pos = align4(data_at + f[6]);
	if (out->namelen == 10 && !memcmp(out->name, "TRAILER!!!", 10))
		return 0;
	return 1;
}

static int build_image(struct cpio *c, const char *init_path,
		       const char *config_path)
{
	struct buf init = BUF_INIT, config = BUF_INIT;
	int error;

	if ((error = file_read(&init, init_path)) < 0) {
		tide_error_wrap(error, "guest init program");
		goto done;
	}
	if (config_path && (error = file_read(&config, config_path)) < 0) {
		tide_error_wrap(error, "kernel config");
		goto done;
	}
	cpio_add_dir(c, "dev", 0755);
	cpio_add_chardev(c, "dev/console", 0600, 5, 1);
	cpio_add_dir(c, "proc", 0755);
	cpio_add_dir(c, "sys", 0755);
	cpio_add_file(c, "init", 0755, init.ptr, init.len);
	if (config_path)
		cpio_add_file(c, "config", 0644, config.ptr, config.len);
	cpio_finish(c);
done:
	buf_release(&init);
	buf_release(&config);
	return error;
}

int cpio_initramfs(char **out_path, int *reused, const char *cache_dir,
		   const char *init_path, const char *config_path)
{
	struct cpio c = CPIO_INIT;
	char hex[GIT_OID_HEXSZ + 1], *name = NULL, *path = NULL;
	git_oid id;
	int error;

	*out_path = NULL;
	*reused = 0;
	if ((error = build_image(&c, init_path, config_path)) < 0)
		goto done;
	/* The archive is deterministic, so hashing it hashes the inputs. */
	if (git_odb_hash(&id, c.data.ptr, c.data.len, GIT_OBJECT_BLOB) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot hash the initramfs");
		goto done;
	}
	git_oid_tostr(hex, sizeof(hex), &id);
	name = xasprintf("%s.cpio", hex);
	path = path_join(cache_dir, name);
	if (path_exists(path)) {
		*reused = 1;
	} else if ((error = mkdir_p(cache_dir, 0755)) < 0 ||
		   (error = file_write_atomic(path, c.data.ptr, c.data.len)) < 0) {
		goto done;
	}
	*out_path = path;
	path = NULL;
done:
	cpio_release(&c);
	free(name);
	free(path);
	return error;
}
