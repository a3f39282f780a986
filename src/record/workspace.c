#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

static int open_repo(struct workspace *ws, unsigned flags)
{
	int error;

	if (!path_exists(ws->repo_path)) {
		if (!(flags & WORKSPACE_CREATE))
			return tide_error_set(TIDE_ENOTFOUND, "no workspace at '%s' (no repo.git; 'tide run' creates it)",
					      ws->dir);
		if (git_repository_init(&ws->repo, ws->repo_path, 1) < 0)
			return tide_error_git(TIDE_EIO, "cannot create '%s'", ws->repo_path);
		return 0;
	}
	error = git_repository_open_bare(&ws->repo, ws->repo_path);
	if (error < 0)
		return tide_error_git(TIDE_EINVAL, "'%s' is not a usable git repository", ws->repo_path);
	return 0;
}

int workspace_open(struct workspace **out, const char *dir, unsigned flags)
{
	struct workspace *ws = xcalloc(1, sizeof(*ws));
	int error = 0;

	ws->lock_fd = -1;
	ws->dir = path_absolute(dir);
	ws->repo_path = workspace_repo_git(ws->dir);
	if (path_exists(ws->dir) && !path_is_dir(ws->dir)) {
		error = tide_error_set(TIDE_EINVAL, "workspace '%s' is not a directory", ws->dir);
		goto done;
	}
	if (!path_is_dir(ws->dir)) {
		if (!(flags & WORKSPACE_CREATE)) {
			error = tide_error_set(TIDE_ENOTFOUND, "no workspace at '%s'", ws->dir);
			goto done;
		}
		if ((error = mkdir_p(ws->dir, 0777)) < 0)
			goto done;
	}
	if ((flags & WORKSPACE_CREATE) && access(ws->dir, W_OK) < 0) {
		error = tide_error_errno(TIDE_EIO, "workspace '%s' is not writable", ws->dir);
		goto done;
	}
	error = open_repo(ws, flags);
done:
	if (error < 0) {
		workspace_free(ws);
		return error;
	}
	*out = ws;
	return 0;
}

void workspace_free(struct workspace *ws)
{
	if (!ws)
		return;
	if (ws->lock_fd >= 0)
		close(ws->lock_fd);
	git_repository_free(ws->repo);
	free(ws->dir);
	free(ws->repo_path);
	free(ws);
}

/* One accessor per workspace path (git's GIT_PATH_FUNC). */
#define WORKSPACE_PATH_FUNC(func, name) \
	char *func(const char *dir) { return path_join(dir, name); }
#define WORKSPACE_PATH_FUNC_ARG(func, fmt) \
	char *func(const char *dir, const char *arg) { return xasprintf("%s/" fmt, dir, arg); }

WORKSPACE_PATH_FUNC(workspace_repo_git, "repo.git")
WORKSPACE_PATH_FUNC(workspace_fsck_trees, "repo.git/tide-fsck-trees")
WORKSPACE_PATH_FUNC(workspace_install_reserve, "repo.git/tide-install-reserve")
WORKSPACE_PATH_FUNC(workspace_patch_ids, "repo.git/tide-patch-ids")
WORKSPACE_PATH_FUNC(workspace_days_dir, "days")
WORKSPACE_PATH_FUNC_ARG(workspace_day_dir, "days/%s")
WORKSPACE_PATH_FUNC_ARG(workspace_day_json, "days/%s/day.json")
WORKSPACE_PATH_FUNC_ARG(workspace_day_json_in, "%s/day.json")
WORKSPACE_PATH_FUNC(workspace_config, "config")
WORKSPACE_PATH_FUNC(workspace_trees_conf, "trees.conf")
WORKSPACE_PATH_FUNC(workspace_lock_file, "lock")
WORKSPACE_PATH_FUNC(workspace_tide_log, "tide.log")
WORKSPACE_PATH_FUNC(workspace_build_dir, "build")
WORKSPACE_PATH_FUNC(workspace_build_src, "build/src")
WORKSPACE_PATH_FUNC(workspace_build_out, "build/out")
WORKSPACE_PATH_FUNC_ARG(workspace_build_out_config, "build/out-%s")
WORKSPACE_PATH_FUNC(workspace_build_state, "build/src.tree")
WORKSPACE_PATH_FUNC(workspace_build_log, "build/build.log")
WORKSPACE_PATH_FUNC(workspace_build_initramfs, "build/initramfs")
WORKSPACE_PATH_FUNC(workspace_build_kvm_probe, "build/kvm-probe")
WORKSPACE_PATH_FUNC(workspace_rr_cache, "rr-cache")
WORKSPACE_PATH_FUNC(workspace_rr_cache_git, "rr-cache.git")
WORKSPACE_PATH_FUNC(workspace_rerere_conf, "rerere.conf")
WORKSPACE_PATH_FUNC(workspace_resolve_dir, "resolve")
WORKSPACE_PATH_FUNC_ARG(workspace_resolve_tree, "resolve/%s")
WORKSPACE_PATH_FUNC_ARG(workspace_fixups_tree, "fixups/%s")
WORKSPACE_PATH_FUNC_ARG(workspace_quilt_tree, "quilt/%s")
WORKSPACE_PATH_FUNC(workspace_mail_conf, "mail.conf")
WORKSPACE_PATH_FUNC(workspace_bisect_dir, "bisect")
WORKSPACE_PATH_FUNC(workspace_bisect_state, "bisect/state.json")
WORKSPACE_PATH_FUNC(workspace_bisect_src, "bisect/src")
WORKSPACE_PATH_FUNC(workspace_bisect_src_state, "bisect/src.tree")
WORKSPACE_PATH_FUNC(workspace_bisect_check_log, "bisect/check.log")
WORKSPACE_PATH_FUNC(workspace_bisect_console_log, "bisect/console.log")
WORKSPACE_PATH_FUNC(workspace_try_dir, "try")
WORKSPACE_PATH_FUNC(workspace_kcidb_spool, "kcidb-spool")
WORKSPACE_PATH_FUNC(workspace_kcidb_rejected, "kcidb-rejected")
WORKSPACE_PATH_FUNC(workspace_dashboard, "dashboard")
WORKSPACE_PATH_FUNC(workspace_regressions, "regressions.json")

WORKSPACE_PATH_FUNC(workspace_daydir_json, "day.json")
WORKSPACE_PATH_FUNC(workspace_daydir_reports, "reports")
WORKSPACE_PATH_FUNC(workspace_daydir_mail_json, "reports/mail.json")
WORKSPACE_PATH_FUNC(workspace_daydir_build_log, "build.log")
WORKSPACE_PATH_FUNC(workspace_daydir_console_log, "console.log")
WORKSPACE_PATH_FUNC(workspace_daydir_merge_log, "merge.log")

char *workspace_path(const struct workspace *ws, const char *name)
{
	return path_join(ws->dir, name);
}

static long lock_holder(int fd)
{
	char text[32];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);

	if (n <= 0)
		return 0;
	text[n] = '\0';
	return strtol(text, NULL, 10);
}

int workspace_lock(struct workspace *ws)
{
	char *path = workspace_lock_file(ws->dir);
	char pid[32];
	struct stat st;
	int fd, error = 0, len;

	/* The pid is written into it: a planted symlink must not aim that write elsewhere. */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 && errno == ELOOP) {
		error = tide_error_set(TIDE_EIO, "'%s' is a symbolic link; not following it "
				       "(remove it: tide creates the lock)", path);
		goto done;
	}
	if (fd < 0) {
		error = tide_error_errno(TIDE_EIO, "cannot open '%s'", path);
		goto done;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		error = tide_error_set(TIDE_EIO, "'%s' is not a regular file", path);
		close(fd);
		goto done;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			error = tide_error_set(TIDE_ELOCKED, "workspace '%s' is locked by another run (pid %ld)",
					       ws->dir, lock_holder(fd));
		else
			error = tide_error_errno(TIDE_EIO, "cannot lock '%s'", path);
		close(fd);
		goto done;
	}
	/* The pid is only for the message above; flock() is the lock. */
	len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)len, 0) != len) {
		error = tide_error_errno(TIDE_EIO, "cannot write '%s'", path);
		close(fd);
		goto done;
	}
	ws->lock_fd = fd;
done:
	free(path);
	return error;
}

/* The objects directory of a local repository (bare or not), or NULL. */
static char *local_objects_dir(const char *location)
{
	const char *path = location;
	char *objects, *dotgit;

	if (str_starts_with(path, "file://"))
		path += strlen("file://");
	if (path[0] != '/')
		return NULL;
	dotgit = path_join(path, ".git/objects");
	if (path_is_dir(dotgit))
		return dotgit;
	free(dotgit);
	objects = path_join(path, "objects");
	if (path_is_dir(objects))
		return objects;
	free(objects);
	return NULL;
}

static int alternates_has(const char *text, const char *dir)
{
	size_t n = strlen(dir);
	const char *p = text;

	while ((p = strstr(p, dir))) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

int workspace_add_alternate(struct workspace *ws, const char *local_repo)
{
	struct buf text = BUF_INIT;
	char *objects = local_objects_dir(local_repo);
	char *info = path_join(ws->repo_path, "objects/info");
	char *alt = path_join(info, "alternates");
	int error = 0;

	if (!objects)
		goto done;	/* not local: nothing to borrow */
	if ((error = mkdir_p(info, 0777)) < 0)
		goto done;
	error = file_read(&text, alt);
	if (error == TIDE_ENOTFOUND)
		error = 0;
	if (error < 0 || alternates_has(buf_cstr(&text), objects))
		goto done;
	if (text.len && text.ptr[text.len - 1] != '\n')
		buf_putc(&text, '\n');
	buf_printf(&text, "%s\n", objects);
	error = file_write_atomic(alt, text.ptr, text.len);
done:
	buf_release(&text);
	free(objects);
	free(info);
	free(alt);
	return error;
}

int workspace_reopen(struct workspace *ws)
{
	git_repository *repo = NULL;

	if (git_repository_open_bare(&repo, ws->repo_path) < 0)
		return tide_error_git(TIDE_EINVAL, "cannot open '%s'", ws->repo_path);
	git_repository_free(ws->repo);
	ws->repo = repo;
	return 0;
}

void workspace_log(struct workspace *ws, const char *fmt, ...)
{
	struct buf raw = BUF_INIT, line = BUF_INIT;
	char *path = workspace_tide_log(ws->dir);
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;
	int fd;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	buf_printf(&line, "%s [%ld] ", stamp, (long)getpid());
	va_start(ap, fmt);
	buf_vprintf(&raw, fmt, ap);
	va_end(ap);
	text_redact(&line, buf_cstr(&raw));
	buf_release(&raw);
	buf_putc(&line, '\n');
	/*
	 * O_APPEND: one write() per line keeps lines whole. Best effort.
	 * O_NOFOLLOW: a symlink planted in the workspace must not make a
	 * cron run append to a file elsewhere.
	 */
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd >= 0) {
		if (write(fd, line.ptr, line.len) < 0)
			(void)0;
		close(fd);
	}
	buf_release(&line);
	free(path);
}
