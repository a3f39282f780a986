/*
 * Building a try in DIR/try/, next to the day's DIR/build/ and never in
 * it.  Kbuild builds out of tree with absolute paths (srctree is
 * DIR/build/src in every .cmd file and dependency list), so a copy of
 * the object directory is only incremental once those paths name the
 * copy: text files that mention DIR/build/ are rewritten to DIR/try/,
 * everything else is copied as is, timestamps kept, so make sees the
 * day's objects as up to date and compiles what the series changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildconf.h"
#include "day.h"
#include "error.h"
#include "try.h"
#include "util.h"
#include "workspace.h"

#define REWRITE_MAX (4 << 20)	/* bigger files are objects and images: copied */

char *try_path(const char *wsdir, const char *name)
{
	char *abs = path_absolute(wsdir), *dir = workspace_try_dir(abs);
	char *p = name ? path_join(dir, name) : xstrdup(dir);

	free(abs);
	free(dir);
	return p;
}

struct seed {
	const char *from, *to;	/* "DIR/build/", "DIR/try/" */
	int link;		/* hard-link files (the source tree) */
};

static int keep_times(const char *path, const struct stat *st)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };

	if (utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW) < 0)
		return tide_error_errno(TIDE_EIO, "cannot set the time of '%s'", path);
	return 0;
}

/* data with every from replaced by to. */
static void rewrite(struct buf *out, const char *data, size_t len, const struct seed *s)
{
	size_t flen = strlen(s->from);
	const char *p = data, *end = data + len, *hit;

	while ((hit = memmem(p, (size_t)(end - p), s->from, flen))) {
		buf_put(out, p, (size_t)(hit - p));
		buf_puts(out, s->to);
		p = hit + flen;
	}
	buf_put(out, p, (size_t)(end - p));
}

static int copy_big(const char *src, const char *dst, mode_t mode)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, error = 0;
	ssize_t n;

	if (in < 0 || (out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)) < 0) {
		error = tide_error_errno(TIDE_EIO, "cannot copy '%s'", src);
		goto done;
	}
	while ((n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0)) > 0)
		;
	if (n < 0)
		error = tide_error_errno(TIDE_EIO, "cannot copy '%s'", src);
done:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0 && !error)
		error = tide_error_errno(TIDE_EIO, "cannot write '%s'", dst);
	return error;
}

static int copy_file(const char *src, const char *dst, const struct stat *st,
		     const struct seed *s)
{
	struct buf in = BUF_INIT, out = BUF_INIT;
	int fd, error;

	if (s->link) {
		if (link(src, dst) < 0)
			return tide_error_errno(TIDE_EIO, "cannot link '%s'", dst);
		return 0;
	}
	if (st->st_size > REWRITE_MAX)
		error = copy_big(src, dst, st->st_mode & 07777);
	else if ((error = file_read(&in, src)) == 0) {
		/* Only text names paths make reads back; binaries keep theirs. */
		if (!memchr(buf_cstr(&in), '\0', in.len))
			rewrite(&out, buf_cstr(&in), in.len, s);
		else
			buf_put(&out, buf_cstr(&in), in.len);
		fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st->st_mode & 07777);
		if (fd < 0 || fd_write_all(fd, buf_cstr(&out), out.len) < 0 || close(fd) < 0)
			error = tide_error_errno(TIDE_EIO, "cannot write '%s'", dst);
	}
	buf_release(&in);
	buf_release(&out);
	if (!error && chmod(dst, st->st_mode & 07777) < 0)
		error = tide_error_errno(TIDE_EIO, "cannot chmod '%s'", dst);
	return error ? error : keep_times(dst, st);
}

static int copy_link(const char *src, const char *dst, const struct stat *st,
		     const struct seed *s)
{
	struct buf target = BUF_INIT, moved = BUF_INIT;
	ssize_t n;
	int error = 0;

	buf_grow(&target, (size_t)st->st_size + 1);
	if ((n = readlink(src, target.ptr, (size_t)st->st_size + 1)) < 0) {
		error = tide_error_errno(TIDE_EIO, "cannot read link '%s'", src);
		goto done;
	}
	/* out/source points at the source tree: the copy's own. */
	rewrite(&moved, target.ptr, (size_t)n, s);
	if (symlink(moved.ptr, dst) < 0)
		error = tide_error_errno(TIDE_EIO, "cannot create link '%s'", dst);
done:
	buf_release(&target);
	buf_release(&moved);
	return error;
}

static int copy_tree(const char *src, const char *dst, const struct seed *s)
{
	DIR *d = opendir(src);
	struct dirent *e;
	int error = 0;

	if (!d)
		return tide_error_errno(TIDE_EIO, "cannot read '%s'", src);
	if (mkdir(dst, 0755) < 0 && errno != EEXIST) {
		closedir(d);
		return tide_error_errno(TIDE_EIO, "cannot create '%s'", dst);
	}
	while (!error && (e = readdir(d))) {
		char *from, *to;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		from = path_join(src, e->d_name);
		to = path_join(dst, e->d_name);
		if (lstat(from, &st) < 0)
			error = tide_error_errno(TIDE_EIO, "cannot stat '%s'", from);
		else if (S_ISDIR(st.st_mode))
			error = copy_tree(from, to, s);
		else if (S_ISLNK(st.st_mode))
			error = copy_link(from, to, &st, s);
		else if (S_ISREG(st.st_mode))
			error = copy_file(from, to, &st, s);
		free(from);
		free(to);
	}
	closedir(d);
	return error;
}

int try_lock(int *fd, const char *wsdir)
{
	char *dir = try_path(wsdir, NULL), *path = path_join(dir, "lock");
	int error;

	*fd = -1;
	if ((error = mkdir_p(dir, 0755)) < 0)
		goto done;
	if ((*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		error = tide_error_errno(TIDE_EIO, "cannot open '%s'", path);
	} else if (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
		error = errno == EWOULDBLOCK ?
			tide_error_set(TIDE_ELOCKED, "another try is building in '%s'", dir) :
			tide_error_errno(TIDE_EIO, "cannot lock '%s'", path);
		close(*fd);
		*fd = -1;
	}
done:
	free(dir);
	free(path);
	return error;
}

/* The tree DIR/build/src holds (build/src.tree), or NULL. */
static char *read_first_line(const char *path)
{
	struct buf b = BUF_INIT;

	if (file_read(&b, path) < 0) {
		tide_error_clear();
		buf_release(&b);
		return NULL;
	}
	str_rtrim(b.ptr);
	return buf_detach(&b);
}

/*
 * DIR/build is the day's: read it under a shared lock of the workspace,
 * so a run (which holds it exclusively) is not changing it meanwhile.
 */
static int lock_shared(int *fd, const char *wsdir)
{
	char *path = workspace_lock_file(wsdir);
	int error = 0;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd >= 0 && flock(*fd, LOCK_SH | LOCK_NB) < 0) {
		error = errno == EWOULDBLOCK ?
			tide_error_set(TIDE_ELOCKED, "workspace '%s' is locked by a run: "
				       "its build directory is changing", wsdir) :
			tide_error_errno(TIDE_EIO, "cannot lock '%s'", path);
		close(*fd);
		*fd = -1;
	}
	free(path);
	return error;
}

/*
 * DIR/try/out, or DIR/try/out-NAME: the name configuration c's O= has
 * under DIR/build, so the seed's moved paths hold.
 */
static char *try_outdir(const char *wsdir, const struct build_config *c)
{
	char *bout = build_config_outdir(wsdir, c), *out = try_path(wsdir, strrchr(bout, '/') + 1);

	free(bout);
	return out;
}

/*
 * Seed DIR/try/{src,out,src.tree} from DIR/build and the configuration's
 * O= there, when that build or the configuration changed since.
 */
static int seed(struct try_build *b, const char *wsdir, const struct build_config *c)
{
	char *abs = path_absolute(wsdir);
	char *build = workspace_build_dir(abs), *state = workspace_build_state(abs);
	char *tdir = try_path(wsdir, NULL);
	char *from = xasprintf("%s/", build), *to = xasprintf("%s/", tdir);
	char *bsrc = workspace_build_src(abs), *bout = build_config_outdir(abs, c);
	char *tsrc = try_path(wsdir, "src"), *tout = try_outdir(wsdir, c);
	char *tstate = try_path(wsdir, "src.tree"), *seedfile = try_path(wsdir, "seed");
	char *have = NULL, *had = NULL, *key = NULL;
	struct seed src = { from, to, 1 }, out = { from, to, 0 };
	double t0 = time_now();
	int fd = -1, error;

	if ((error = lock_shared(&fd, abs)) < 0)
		goto done;
	have = read_first_line(state);
	/* The seed's key: the build's tree and the configuration seeded. */
	key = have ? xasprintf("%s %s", have, c ? c->name : BUILD_CONFIG_DEFAULT) : NULL;
	had = read_first_line(seedfile);
	if (!have || !path_is_dir(bsrc) || !path_is_dir(bout) ||
	    (had && !strcmp(had, key) && path_exists(tstate)))
		goto done;	/* nothing to seed from, or seeded from this build */
	b->seeded = 1;
	unlink(seedfile);
	if ((error = rm_rf(tsrc)) < 0 || (error = rm_rf(tout)) < 0 ||
	    (error = mkdir_p(to, 0755)) < 0 || (error = copy_tree(bsrc, tsrc, &src)) < 0 ||
	    (error = copy_tree(bout, tout, &out)) < 0 ||
	    (error = file_write_atomic(tstate, have, strlen(have))) < 0)
		goto done;
	/* Last: a seed interrupted before this line is redone next time. */
	error = file_write_atomic(seedfile, key, strlen(key));
done:
	if (fd >= 0)
		close(fd);
	b->seed_seconds = time_now() - t0;
	free(abs), free(build), free(tdir), free(state), free(from), free(to), free(tsrc), free(tout);
	free(bsrc), free(bout), free(tstate), free(seedfile), free(have), free(had);
	free(key);
	return error;
}

static void try_build_opts(struct build_opts *opts, const char *wsdir, const char *log,
			   const struct build_day_opts *o)
{
	build_opts_init(opts, wsdir, NULL, o);
	/* Same layout as DIR/build: src and out siblings, so ccache's relative paths match. */
	free((char *)opts->srcdir);
	free((char *)opts->outdir);
	free((char *)opts->state_path);
	free((char *)opts->log_path);
	opts->srcdir = try_path(wsdir, "src");
	opts->outdir = try_outdir(wsdir, o ? o->config : NULL);
	opts->state_path = try_path(wsdir, "src.tree");
	opts->log_path = try_path(wsdir, log);
}

/* The day's build of the configuration tried (NULL: none yet). */
static const struct day_build *baseline_record(const struct day *day,
					       const struct build_day_opts *o)
{
	const struct day_config *dc;

	if (!o->config || !o->extra)
		return build_record(day);
	dc = day_find_config(day, o->config->name);
	return dc ? dc->build : NULL;
}

/* A day never built: build it here first, for the diagnostics it has itself. */
static int build_baseline(struct day_build **out, struct try_build *b, git_repository *repo,
			  const struct day *day, const struct build_opts *opts)
{
	struct build_result res;
	git_oid commit;
	int error;

	if (!day->commit || git_oid_fromstr(&commit, day->commit) < 0)
		return tide_error_set(TIDE_EINVAL, "day record has no valid commit");
	b->baseline_built = 1;
	if ((error = build_run(&res, repo, &commit, opts)) == 0)
		*out = build_result_record(&res, "build-day.log");
	build_result_release(&res);
	return error;
}

int try_build_run(struct try_build *out, git_repository *repo, const char *wsdir,
		  const struct day *day, const git_oid *commit,
		  const struct build_day_opts *o)
{
	struct build_opts opts, dayopts;
	struct day_build *baseline = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	try_build_opts(&opts, wsdir, "build.log", o);
	try_build_opts(&dayopts, wsdir, "build-day.log", o);
	out->log = xstrdup(opts.log_path);
	out->outdir = xstrdup(opts.outdir);
	if (!opts.fragment && !opts.config) {
		error = tide_error_set(TIDE_ENOTFOUND, "no config fragment: kernel-tests/smoke.config "
				       "not found (set TIDE_KERNEL_TESTS or give one)");
		goto done;
	}
	if ((error = seed(out, wsdir, o->config)) < 0)
		goto done;
	if ((baseline = day_build_dup(baseline_record(day, o))) == NULL &&
	    (error = build_baseline(&baseline, out, repo, day, &dayopts)) < 0)
		goto done;
	if ((error = build_run(&out->res, repo, commit, &opts)) < 0)
		goto done;
	out->ran = 1;
	/* Diagnostics the day's build did not have. */
	build_new_warnings(&out->new_warnings, &out->res.log.warnings, baseline->warnings);
	build_new_warnings(&out->new_errors, &out->res.log.errors, baseline->errors);
done:
	day_build_free(baseline);
	build_opts_release(&opts);
	build_opts_release(&dayopts);
	return error;
}

void try_build_release(struct try_build *b)
{
	if (!b)
		return;
	build_result_release(&b->res);
	build_diags_release(&b->new_warnings);
	build_diags_release(&b->new_errors);
	free(b->log);
	free(b->outdir);
	memset(b, 0, sizeof(*b));
}
