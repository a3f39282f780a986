#ifndef TIDE_T_FILES_H
#define TIDE_T_FILES_H
/*
 * Helpers for unit tests that work on files and git repositories: a
 * scratch directory, a shell command run in a directory (the git CLI is
 * the reference tool), a file read whole.  Static inline so a test that
 * does not use one is not warned about it.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "buf.h"
#include "util.h"

/* Identity and config for git commands run by tests: none from the host. */
#define T_GITENV "export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent GIT_AUTHOR_NAME=T " \
	"GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@t; "

/* A new directory /tmp/tide-NAME.XXXXXX (caller frees the path). */
static inline char *t_tmpdir(const char *name)
{
	struct buf tmpl = BUF_INIT;
	char *dir;

	buf_printf(&tmpl, "/tmp/tide-%s.XXXXXX", name);
	if (!mkdtemp(tmpl.ptr))
		abort();
	dir = xstrdup(tmpl.ptr);
	buf_release(&tmpl);
	return dir;
}

/* Run a shell command line in dir, output discarded; its exit status. */
static inline int t_sh_in(const char *dir, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int t_sh_in(const char *dir, const char *fmt, ...)
{
	struct buf cmd = BUF_INIT;
	va_list ap;
	int rc;

	buf_printf(&cmd, "cd '%s' && { ", dir);
	va_start(ap, fmt);
	buf_vprintf(&cmd, fmt, ap);
	va_end(ap);
	buf_puts(&cmd, "; } >/dev/null 2>&1");
	rc = system(cmd.ptr);
	buf_release(&cmd);
	return rc;
}

/* The whole of dir/name (name alone when dir is NULL), or NULL. */
static inline char *t_slurp(const char *dir, const char *name)
{
	struct buf b = BUF_INIT;
	char *path = dir ? path_join(dir, name) : xstrdup(name);
	int err = file_read(&b, path);

	free(path);
	if (err < 0) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

#endif
