#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "buildconf.h"
#include "error.h"
#include "event.h"
#include "proc.h"
#include "safefs.h"
#include "text.h"
#include "util.h"

/* ---- running make ---- */

static void log_printf(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_printf(int fd, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (b.len)
		(void)fd_write_all(fd, b.ptr, b.len);
	buf_release(&b);
}

/* An outer make's jobserver must not leak into the kernel's. */
static const char *const env_drop[] = {
	"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "MAKEOVERRIDES=", "KBUILD_OUTPUT=", NULL,
};

/*
 * Run argv (no shell) in cwd with output appended to logfd.  Returns the
 * exit status, 128+N for a signal, or a negative code if it could not be
 * started at all.
 */
static int run_logged_watch(char *const *argv, const char *cwd, char **env,
			    int logfd, int niceness, void (*tick)(void *), void *arg);

static int run_logged(char *const *argv, const char *cwd, char **env,
		      int logfd, int niceness)
{
	return run_logged_watch(argv, cwd, env, logfd, niceness, NULL, NULL);
}

/* run_logged() calling tick(arg) about four times a second while argv runs, and once after. */
static int run_logged_watch(char *const *argv, const char *cwd, char **env,
			    int logfd, int niceness, void (*tick)(void *), void *arg)
{
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res;
	size_t i;
	int rc;

	log_printf(logfd, "# tide:");
	for (i = 0; argv[i]; i++)
		log_printf(logfd, " %s", argv[i]);
	log_printf(logfd, "\n");
	o.argv = argv;
	o.env = env;
	o.cwd = cwd;
	o.nice = niceness;
	o.out = o.err = PROC_FD;
	o.out_fd = o.err_fd = logfd;
	/* A killed tide must not leave make running in the workspace. */
	o.death_signal = SIGTERM;
	o.tick = tick;
	o.tick_data = arg;
	if (proc_run(&res, &o) < 0)
		return tide_error_code();
	if (res.failed_start)
		log_printf(logfd, "# tide: %s\n", res.failed_start);
	rc = proc_code(&res);
	proc_result_release(&res);
	return rc;
}

/* A config fragment: its name as given (messages, records) and its text. */
struct build_frag {
	char *name;
	char *path;		/* absolute */
	struct buf text;
};

/* What one build carries from step to step. */
struct build_ctx {
	const struct build_opts *opts;
	struct build_result *res;
	git_repository *repo;
	git_tree *tree;
	struct build_frag *frags;	/* merged onto the base, in order */
	size_t nfrags;
	const char *base_target;	/* "tinyconfig", ...; NULL: base_file */
	char *base_file;		/* a configuration's base .config (absolute) */
	struct buf base_text;
	const char *arch;	/* ARCH=, or NULL for the host's */
	const char *cross;	/* CROSS_COMPILE=, or NULL */
	char *cc;		/* "gcc" or "ccache gcc" (or the cross gcc) */
	char *hostcc;		/* HOSTCC: the host's gcc, through ccache when cc is */
	char **env;
	char *env_over[24];
	char *stats_log;	/* CCACHE_STATSLOG, absolute */
	char *distcc_log;	/* DISTCC_LOG, absolute; NULL without distcc */
	char *distcc_dir;	/* DISTCC_DIR: distcc's locks and host backoff */
	int logfd;
	int make_ran;
	/* Watching make's log while it runs (watch_make()). */
	char *label;		/* "build" or "build NAME", for the events */
	int watch_fd;		/* the log, read from watch_off on; -1: not watching */
	off_t watch_off;
	struct buf watch_line;	/* the last line, not complete yet */
	long objects;		/* CC and AS lines so far */
	long last_objects;	/* the last build's count of this O=, -1: unknown */
	double compile_start, link_start, last_redraw;
	json_t *old_warnings;	/* the last build's, read before make starts */
};

static void fail(struct build_ctx *b, enum build_diag_kind kind,
		 const char *file, int line, const char *msg)
{
	if (!b->res->failure)
		b->res->failure = xstrdup(msg);
	build_log_add_error(&b->res->log, kind, file, line, 0, msg);
	log_printf(b->logfd, "# tide: %s\n", msg);
}

/* "CONFIG_FOO=y" or "# CONFIG_FOO is not set": the name's end, or NULL. */
static const char *config_name_end(const char *line)
{
	const char *p = line;

	if (!str_starts_with(p, "CONFIG_"))
		return NULL;
	p += 7;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	return p > line + 7 ? p : NULL;
}

/* A fragment line tide cannot use is a recorded failure, with its line. */
static int check_fragment(struct build_ctx *b, const struct build_frag *f)
{
	char *text = xstrdup(buf_cstr(&f->text)), *save = NULL, *line;
	int lno = 0, ok = 1;

	for (line = text; line && ok; line = save) {
		const char *end;

		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		lno++;
		str_rtrim(line);
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		if (!(end = config_name_end(line)) || *end != '=' || !end[1]) {
			char *msg = xasprintf("config fragment '%s' line %d: not a CONFIG_NAME=VALUE line",
					      f->name, lno);
			fail(b, BUILD_DIAG_KCONFIG, f->name, lno, msg);
			free(msg);
			ok = 0;
		}
	}
	free(text);
	return ok;
}

static int check_fragments(struct build_ctx *b)
{
	size_t i;

	for (i = 0; i < b->nfrags; i++)
		if (!check_fragment(b, &b->frags[i]))
			return 0;
	return 1;
}

/* Does a fragment after f set name (NAME=... or "# NAME is not set")? Then it decides. */
static int set_later(const struct build_ctx *b, const struct build_frag *f, const char *name)
{
	char *set = xasprintf("\n%s=", name), *unset = xasprintf("\n# %s is not set", name);
	const struct build_frag *g;
	int found = 0;

	for (g = f + 1; g < b->frags + b->nfrags && !found; g++) {
		char *text = xasprintf("\n%s", buf_cstr(&g->text));

		found = strstr(text, set) || strstr(text, unset);
		free(text);
	}
	free(set);
	free(unset);
	return found;
}

/* Options the fragment asks for that the final .config does not have. */
static void check_config_result(struct build_ctx *b, const struct build_frag *f,
				const char *config)
{
	char *text = xstrdup(buf_cstr(&f->text)), *save = NULL, *line;
	int lno = 0;

	for (line = text; line; line = save) {
		const char *end;
		int want_unset;

		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		lno++;
		str_rtrim(line);
		if (str_starts_with(line, "# CONFIG_") && str_ends_with(line, " is not set"))
			line += 2;
		if (!(end = config_name_end(line)))
			continue;
		want_unset = *end != '=' || !strcmp(end, "=n");
		char *name = xstrndup(line, (size_t)(end - line));
		char *set = xasprintf("\n%s=", name), *exact = xasprintf("\n%s\n", line);
		int have = strstr(config, set) != NULL;
		int good = want_unset ? !have : strstr(config, exact) != NULL;

		if (!good && !set_later(b, f, name)) {
			char *msg = xasprintf("%s requested by the fragment is not in the final .config",
					      want_unset ? name : line);
			build_diags_add_unique(&b->res->log.warnings, BUILD_DIAG_KCONFIG,
				   f->name, lno, 0, msg);
			free(msg);
		}
		free(name);
		free(set);
		free(exact);
	}
	free(text);
}

static int kconfig_walk_cb(const char *root, const git_tree_entry *e, void *payload)
{
	const char *name = git_tree_entry_name(e);
	char hex[GIT_OID_HEXSZ + 1];

	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		return 0;
	if (str_starts_with(name, "Kconfig") || str_ends_with(name, ".config") ||
	    str_starts_with(root, "scripts/kconfig/")) {
		git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(e));
		buf_printf(payload, "%s%s %s\n", root, name, hex);
	}
	return 0;
}

/*
 * What the generated .config depends on: the base, the fragments, the
 * compiler and arch, the Kconfig files and the tiny configs.  The same
 * key means the .config of the last build is still right and 11 s of
 * config can be skipped.
 */
static char *config_key(struct build_ctx *b)
{
	struct buf in = BUF_INIT;
	char hex[GIT_OID_HEXSZ + 1];
	git_oid id;
	size_t i;

	buf_printf(&in, "cc %s\narch %s\n", b->cc, b->arch ? b->arch : "");
	if (b->opts->config)
		buf_printf(&in, "base %s\n%s\n", b->base_target ? b->base_target : "file",
			   buf_cstr(&b->base_text));
	for (i = 0; i < b->nfrags; i++)
		buf_printf(&in, "fragment\n%s\n", buf_cstr(&b->frags[i].text));
	git_tree_walk(b->tree, GIT_TREEWALK_PRE, kconfig_walk_cb, &in);
	git_odb_hash(&id, in.ptr, in.len, GIT_OBJECT_BLOB);
	buf_release(&in);
	return xstrdup(git_oid_tostr(hex, sizeof(hex), &id));
}

/* make -C SRC O=OUT CC=... HOSTCC=... [ARCH= CROSS_COMPILE=] [-jN] [target]; free with argv_free(). */
static char **make_argv(struct build_ctx *b, const char *target, int jobs)
{
	char **args = xcalloc(12, sizeof(*args));
	size_t n = 0;

	args[n++] = xstrdup("make");
	args[n++] = xstrdup("-C");
	args[n++] = xstrdup(b->opts->srcdir);
	args[n++] = xasprintf("O=%s", b->opts->outdir);
	args[n++] = xasprintf("CC=%s", b->cc);
	args[n++] = xasprintf("HOSTCC=%s", b->hostcc ? b->hostcc : b->cc);
	if (b->arch)
		args[n++] = xasprintf("ARCH=%s", b->arch);
	if (b->cross)
		args[n++] = xasprintf("CROSS_COMPILE=%s", b->cross);
	if (jobs)
		args[n++] = xasprintf("-j%d", jobs);
	if (target)
		args[n++] = xstrdup(target);
	return args;
}

static void argv_free(char **args)
{
	size_t i;

	for (i = 0; args && args[i]; i++)
		free(args[i]);
	free(args);
}

static int run_make(struct build_ctx *b, const char *target, int jobs)
{
	char **args = make_argv(b, target, jobs);
	int rc = run_logged(args, NULL, b->env, b->logfd, b->opts->nice);

	argv_free(args);
	return rc;
}

/* ---- progress while make runs ---- */

/* A step done or started: a plain line in a log, the status line on a terminal. */
static void step_event(struct build_ctx *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void step_event(struct build_ctx *b, const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	va_list ap;

	if (!b->opts->events)
		return;
	va_start(ap, fmt);
	buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	event_emitf(b->opts->events, EVENT_BUILD, EVENT_PROGRESS, NULL, "%s: %s", b->label,
		    buf_cstr(&msg));
	buf_release(&msg);
}

/* Kbuild's "  CC      kernel/fork.o", "  CC [M]  ...", "  AS      ...": one object. */
static int kbuild_compiles(const char *line)
{
	return str_starts_with(line, "  CC ") || str_starts_with(line, "  AS ");
}

/* "  LD      vmlinux.o" (or .tmp_vmlinux.kallsyms1, vmlinux): the kernel's link. */
static int kbuild_links(const char *line)
{
	if (!str_starts_with(line, "  LD "))
		return 0;
	line += 5;
	while (*line == ' ')
		line++;
	return str_starts_with(line, "vmlinux") || str_starts_with(line, ".tmp_vmlinux");
}

static void watch_line(struct build_ctx *b, const char *line)
{
	if (kbuild_compiles(line))
		b->objects++;
	else if (!b->link_start && kbuild_links(line))
		b->link_start = time_now();
}

/*
 * Read what make wrote since the last call (a bounded amount each time)
 * and count the objects; redraw the status line at most once a second.
 */
static void watch_make(void *arg)
{
	struct build_ctx *b = arg;
	char chunk[65536];
	ssize_t n;
	int rounds;
	double now;

	for (rounds = 0; rounds < 64; rounds++) {
		if ((n = pread(b->watch_fd, chunk, sizeof(chunk), b->watch_off)) <= 0)
			break;
		b->watch_off += n;
		for (ssize_t i = 0; i < n; i++) {
			if (chunk[i] == '\n') {
				watch_line(b, buf_cstr(&b->watch_line));
				buf_clear(&b->watch_line);
			} else if (b->watch_line.len < 4096) {
				buf_putc(&b->watch_line, chunk[i]);
			}
		}
	}
	now = time_now();
	if (!b->opts->events || now - b->last_redraw < 1.0)
		return;
	b->last_redraw = now;
	if (b->link_start)
		event_redrawf(b->opts->events, EVENT_BUILD, "%s: linking (%ld objects compiled in %.0f s)",
			      b->label, b->objects, b->link_start - b->compile_start);
	else if (b->last_objects > 0)
		event_redrawf(b->opts->events, EVENT_BUILD,
			      "%s: compiling, %ld of ~%ld objects (estimate) in %.0f s",
			      b->label, b->objects, b->last_objects, now - b->compile_start);
	else
		event_redrawf(b->opts->events, EVENT_BUILD, "%s: compiling, %ld objects in %.0f s",
			      b->label, b->objects, now - b->compile_start);
}

static char *objects_path(struct build_ctx *b)
{
	return path_join(b->opts->outdir, ".tide-objects");
}

/*
 * make's run, watched.  The estimate is the most objects one build in
 * this O= has compiled since its .config was last made (a full build,
 * once there has been one): an incremental build compiles fewer.
 */
static int run_make_watched(struct build_ctx *b, const char *target, int jobs)
{
	char **args = make_argv(b, target, jobs);
	char *counts = objects_path(b);
	struct buf text = BUF_INIT;
	char *end;
	int rc;

	b->last_objects = -1;
	if (safefs_read_file(&text, counts, 4096) == 0 && text.len) {
		long v = strtol(text.ptr, &end, 10);

		if (v >= 0 && (*end == '\n' || !*end))
			b->last_objects = v;
	}
	tide_error_clear();
	b->watch_off = lseek(b->logfd, 0, SEEK_END);
	b->watch_fd = open(b->opts->log_path, O_RDONLY | O_CLOEXEC);
	b->compile_start = time_now();
	if (b->res->config_regenerated || b->last_objects <= 0) {
		b->last_objects = -1;
		step_event(b, "compiling");
	} else {
		step_event(b, "compiling (a full build here compiles about %ld objects)",
			   b->last_objects);
	}
	rc = b->watch_fd >= 0 ? run_logged_watch(args, NULL, b->env, b->logfd, b->opts->nice,
						 watch_make, b)
			      : run_logged(args, NULL, b->env, b->logfd, b->opts->nice);
	if (b->watch_fd >= 0)
		close(b->watch_fd);
	b->watch_fd = -1;
	b->res->objects = b->objects;
	if (rc == 0 && b->objects > b->last_objects) {
		buf_clear(&text);
		buf_printf(&text, "%ld\n", b->objects);
		if (file_write_atomic(counts, text.ptr, text.len) < 0)
			tide_error_clear();	/* only the next estimate is lost */
	}
	buf_release(&text);
	free(counts);
	argv_free(args);
	return rc;
}

/* The record's make command, as run ("make_command"). */
static json_t *make_command_json(struct build_ctx *b, const char *target, int jobs)
{
	char **args = make_argv(b, target, jobs);
	json_t *list = json_array();
	size_t i;

	for (i = 0; args[i]; i++)
		json_array_append_new(list, json_text(args[i]));
	argv_free(args);
	return list;
}

/* gcc's and binutils' first --version lines, for the record. */
static void probe_toolchain(struct build_ctx *b)
{
	char *gcc = b->opts->cc ? xstrdup(b->opts->cc) : xasprintf("%sgcc", b->cross ? b->cross : "");
	char *ld = xasprintf("%sld", b->cross ? b->cross : "");
	char *cc_argv[] = { gcc, "--version", NULL };
	char *ld_argv[] = { ld, "--version", NULL };

	b->res->compiler = proc_first_line(cc_argv);
	b->res->binutils = proc_first_line(ld_argv);
	free(gcc);
	free(ld);
}

static int step_failed(struct build_ctx *b, int rc, const char *what)
{
	char *msg;

	if (rc < 0)
		return rc;
	if (rc == 0)
		return 0;
	msg = rc > 128 ? xasprintf("%s killed by signal %d", what, rc - 128)
		       : xasprintf("%s failed (exit status %d)", what, rc);
	if (!b->res->failure)
		b->res->failure = xstrdup(msg);
	log_printf(b->logfd, "# tide: %s\n", msg);
	free(msg);
	return 1;
}

/* The base: make its target, or its file as the .config merge_config.sh starts from. */
static int make_base(struct build_ctx *b, const char *config)
{
	char *what;
	int rc;

	if (b->base_target) {
		what = xasprintf("make %s", b->base_target);
		rc = step_failed(b, run_make(b, b->base_target, 0), what);
		free(what);
		return rc;
	}
	log_printf(b->logfd, "# tide: base config %s\n", b->base_file);
	return file_write_atomic(config, b->base_text.ptr, b->base_text.len);
}

/* merge_config.sh -m onto the .config, every fragment in order. */
static int merge_fragments(struct build_ctx *b, const char *config)
{
	char *script = path_join(b->opts->srcdir, "scripts/kconfig/merge_config.sh");
	char **margv = xcalloc(b->nfrags + 6, sizeof(*margv));
	size_t n = 0, i;
	int rc;

	margv[n++] = script;
	margv[n++] = "-m";
	margv[n++] = "-O";
	margv[n++] = (char *)b->opts->outdir;
	margv[n++] = (char *)config;
	for (i = 0; i < b->nfrags; i++)
		margv[n++] = b->frags[i].path;
	rc = b->nfrags ? step_failed(b, run_logged(margv, b->opts->outdir, b->env, b->logfd, 0),
				     "merge_config.sh") : 0;
	free(margv);
	free(script);
	return rc;
}

/* base + fragments + olddefconfig; returns 1 on a recorded failure. */
static int make_config(struct build_ctx *b)
{
	char *config = path_join(b->opts->outdir, ".config");
	char *keyfile = path_join(b->opts->outdir, ".tide-config-key");
	char *key = config_key(b);
	struct buf old = BUF_INIT, text = BUF_INIT;
	size_t i;
	int rc = 0;

	if (!path_exists(config) || safefs_read_file(&old, keyfile, 4096) < 0 ||
	    strcmp(str_rtrim(old.ptr), key)) {
		tide_error_clear();
		unlink(keyfile);
		b->res->config_regenerated = 1;
		if ((rc = make_base(b, config)) ||
		    (rc = merge_fragments(b, config)) ||
		    (rc = step_failed(b, run_make(b, "olddefconfig", 0),
				      "make olddefconfig")))
			goto done;
		buf_clear(&old);
		buf_printf(&old, "%s\n", key);
		if ((rc = file_write_atomic(keyfile, old.ptr, old.len)) < 0)
			goto done;
	}
	buf_putc(&text, '\n');
	if ((rc = file_read(&text, config)) == 0)
		for (i = 0; i < b->nfrags; i++)
			check_config_result(b, &b->frags[i], text.ptr);
done:
	buf_release(&old);
	buf_release(&text);
	free(key);
	free(keyfile);
	free(config);
	return rc;
}

static void set_env(struct build_ctx *b)
{
	size_t n = 0;

	b->env_over[n++] = xstrdup("LC_ALL=C");
	/* Kbuild unexports LC_ALL; gcc's quotes would follow LANG then. */
	b->env_over[n++] = xstrdup("LANG=C");
	b->env_over[n++] = xstrdup("KBUILD_BUILD_TIMESTAMP=2026-01-01 00:00:00 UTC");
	b->env_over[n++] = xstrdup("KBUILD_BUILD_USER=tide");
	b->env_over[n++] = xstrdup("KBUILD_BUILD_HOST=tide");
	/* The link counter in out/.version would make init/ differ every build. */
	b->env_over[n++] = xstrdup("KBUILD_BUILD_VERSION=1");
	if (b->opts->ccache_basedir)
		b->env_over[n++] = xasprintf("CCACHE_BASEDIR=%s", b->opts->ccache_basedir);
	/*
	 * With the base directory, ccache sees ../src/... from build/out in
	 * every workspace; the directory itself must then stay out of the
	 * hash too, or two workspaces (two machines) never share a result.
	 */
	b->env_over[n++] = xstrdup("CCACHE_NOHASHDIR=1");
	b->env_over[n++] = xasprintf("CCACHE_STATSLOG=%s", b->stats_log);
	if (b->opts->farm.cache)
		b->env_over[n++] = xasprintf("CCACHE_REMOTE_STORAGE=%s", b->opts->farm.cache);
	if (b->distcc_log) {
		/* ccache runs distcc for the compile only: cpp and links stay here. */
		b->env_over[n++] = xstrdup("CCACHE_PREFIX=distcc");
		b->env_over[n++] = xasprintf("DISTCC_HOSTS=%s", b->opts->farm.distcc_hosts);
		/* Its messages in a file: ccache would cache them as compiler output. */
		b->env_over[n++] = xasprintf("DISTCC_LOG=%s", b->distcc_log);
		b->env_over[n++] = xasprintf("DISTCC_DIR=%s", b->distcc_dir);
		b->env_over[n++] = xstrdup("DISTCC_FALLBACK=1");
	}
	b->env_over[n] = NULL;
	b->env = proc_env(b->env_over, env_drop);
}

/* Where ccache and distcc write about this build: fresh files in outdir. */
static void farm_paths(struct build_ctx *b)
{
	char *out = path_absolute(b->opts->outdir);

	b->stats_log = path_join(out, ".tide-ccache-stats");
	if (b->opts->farm.distcc_hosts) {
		b->distcc_log = path_join(out, ".tide-distcc.log");
		b->distcc_dir = path_join(out, ".tide-distcc");
	}
	free(out);
}

/* Empty the logs of the last build; distcc needs its directory to exist. */
static int farm_start(struct build_ctx *b)
{
	if (unlink(b->stats_log) < 0 && errno != ENOENT)
		return tide_error_errno(TIDE_EIO, "cannot remove '%s'", b->stats_log);
	if (!b->distcc_log)
		return 0;
	if (unlink(b->distcc_log) < 0 && errno != ENOENT)
		return tide_error_errno(TIDE_EIO, "cannot remove '%s'", b->distcc_log);
	return mkdir_p(b->distcc_dir, 0755);
}

/* The logs are written by tools on this machine; a kernel's are a few MB. */
#define FARM_LOG_MAX (256u << 20)

static int read_tool_log(struct buf *out, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > FARM_LOG_MAX)
		return -1;
	if (file_read(out, path) < 0) {
		tide_error_clear();
		return -1;
	}
	return 0;
}

/* Read back what ccache and distcc did; a missing log is no statistics. */
static void farm_finish(struct build_ctx *b)
{
	struct build_result *res = b->res;
	struct buf text = BUF_INIT;

	/* No log: ccache never ran, make had nothing to compile. */
	if (res->ccache) {
		res->have_cache_stats = 1;
		if (read_tool_log(&text, b->stats_log) == 0)
			build_cache_stats_parse(&res->cache_stats, text.ptr, text.len);
	}
	buf_clear(&text);
	if (b->distcc_log && read_tool_log(&text, b->distcc_log) == 0)
		build_distcc_stats_parse(&res->distcc, text.ptr, text.len);
	buf_release(&text);
	if (b->distcc_log && !res->distcc.remote && res->distcc.fallbacks)
		log_printf(b->logfd, "# tide: distcc: no host answered, %ld compiles ran here\n",
			   res->distcc.local);
}

static void ctx_release(struct build_ctx *b)
{
	size_t i;

	for (i = 0; b->env_over[i]; i++)
		free(b->env_over[i]);
	free(b->env);
	free(b->stats_log);
	free(b->distcc_log);
	free(b->distcc_dir);
	free(b->cc);
	free(b->hostcc);
	for (i = 0; i < b->nfrags; i++) {
		free(b->frags[i].name);
		free(b->frags[i].path);
		buf_release(&b->frags[i].text);
	}
	free(b->frags);
	free(b->base_file);
	buf_release(&b->base_text);
	json_decref(b->old_warnings);
	buf_release(&b->watch_line);
	free(b->label);
	git_tree_free(b->tree);
	if (b->logfd >= 0)
		close(b->logfd);
}

/* The compiler and make must exist: their absence is a named outcome. */
static int find_tools(struct build_ctx *b)
{
	const struct build_config *c = b->opts->config;
	char *cross_cc = b->cross ? xasprintf("%sgcc", b->cross) : NULL;
	const char *cc = b->opts->cc ? b->opts->cc : cross_cc ? cross_cc : "gcc";
	char *path = NULL, *ccache = NULL;
	const char *need[] = { "make", cc, c && c->sparse ? "sparse" : NULL };
	/* What to install, where a configuration asked for the tool. */
	const char *package[] = { NULL, cross_cc && !b->opts->cc ? c->arch->cc_package : NULL,
				  "sparse" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(need); i++) {
		if (!need[i])
			continue;
		if (!(path = build_which(need[i]))) {
			char *hint = package[i] ? xasprintf(" (Debian package %s)", package[i])
						: xstrdup("");
			char *msg = xasprintf(i == 1 ? "compiler '%s' not found in PATH%s"
						     : "'%s' not found in PATH%s", need[i], hint);

			free(hint);
			fail(b, BUILD_DIAG_TOOL, NULL, 0, msg);
			free(msg);
			free(cross_cc);
			return 0;
		}
		free(path);
	}
	if (b->distcc_log && !(path = build_which("distcc"))) {
		fail(b, BUILD_DIAG_TOOL, NULL, 0,
		     "distcc-hosts is set (DIR/config) but 'distcc' is not in PATH");
		return 0;
	}
	if (b->distcc_log)
		free(path);
	if (!b->opts->no_ccache && (ccache = build_which("ccache")))
		b->res->ccache = 1;
	/* Without ccache, distcc is the compiler's wrapper itself. */
	b->cc = b->res->ccache ? xasprintf("ccache %s", cc) :
		b->distcc_log ? xasprintf("distcc %s", cc) : xstrdup(cc);
	if (cross_cc)
		b->hostcc = b->res->ccache ? xstrdup("ccache gcc") : xstrdup("gcc");
	free(ccache);
	free(cross_cc);
	return 1;
}

static void add_frag(struct build_ctx *b, const char *name, const char *path)
{
	struct build_frag *f;

	b->frags = xrealloc(b->frags, (b->nfrags + 1) * sizeof(*b->frags));
	f = &b->frags[b->nfrags++];
	f->name = xstrdup(name);
	f->path = path_absolute(path);
	memset(&f->text, 0, sizeof(f->text));
}

/*
 * What the .config is made of: opts->fragment onto tinyconfig, or the
 * configuration's base and fragments, and its arch.  A file that cannot
 * be read is tide's error (the record names it), not a build outcome.
 */
static int config_inputs(struct build_ctx *b)
{
	const struct build_opts *o = b->opts;
	const struct build_config *c = o->config;
	size_t i;
	int error;

	if (!c) {
		b->base_target = "tinyconfig";
		b->arch = o->arch;
		if (!o->fragment)
			return tide_error_set(TIDE_ENOTFOUND, "no config fragment");
		add_frag(b, o->fragment, o->fragment);
	} else {
		if ((error = build_config_check_files(c)) < 0)
			return error;
		b->base_target = c->base_target;
		if (c->arch->cross_compile[0]) {
			b->arch = c->arch->name;
			b->cross = c->arch->cross_compile;
		}
		if (!b->base_target) {
			b->base_file = path_absolute(c->base.path);
			if ((error = file_read(&b->base_text, b->base_file)) < 0)
				return tide_error_wrap(error, "config '%s': base", c->name);
		}
		for (i = 0; i < c->nfragments; i++)
			add_frag(b, c->fragments[i].written, c->fragments[i].path);
	}
	for (i = 0; i < b->nfrags; i++)
		if ((error = file_read(&b->frags[i].text, b->frags[i].path)) < 0)
			return tide_error_wrap(error, "config fragment");
	return 0;
}

static int start(struct build_ctx *b, const git_oid *commit)
{
	const struct build_opts *o = b->opts;
	git_commit *c = NULL;
	int error = 0;

	if (git_commit_lookup(&c, b->repo, commit) < 0 || git_commit_tree(&b->tree, c) < 0)
		error = tide_error_git(TIDE_ENOTFOUND, "cannot read commit %s",
				       git_oid_tostr_s(commit));
	git_commit_free(c);
	if (error)
		return error;
	if ((error = config_inputs(b)) < 0)
		return error;
	if ((error = mkdir_p(o->outdir, 0755)) < 0)
		return error;
	b->logfd = open(o->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (b->logfd < 0)
		return tide_error_errno(TIDE_EIO, "cannot create '%s'", o->log_path);
	log_printf(b->logfd, "# tide: build of %s\n", git_oid_tostr_s(commit));
	return 0;
}

static char *find_kernel(const struct build_opts *o)
{
	static const char *const images[] = {
		"arch/x86/boot/bzImage", "arch/arm64/boot/Image", "vmlinux",
	};
	size_t i;

	if (o->config) {
		char *p = path_join(o->outdir, o->config->arch->image);

		if (path_exists(p))
			return p;
		free(p);
		return NULL;
	}

	for (i = 0; i < ARRAY_SIZE(images); i++) {
		char *p = path_join(o->outdir, images[i]);

		if (path_exists(p))
			return p;
		free(p);
	}
	return NULL;
}

/*
 * "../src/" when srcdir and outdir are siblings: with CCACHE_BASEDIR,
 * ccache hands the compiler paths relative to outdir (make's directory),
 * and the messages name them so.  NULL otherwise.
 */
static char *sibling_prefix(const char *abs_src, const char *abs_out)
{
	const char *s = strrchr(abs_src, '/'), *o = strrchr(abs_out, '/');

	if (!s || !o || s - abs_src != o - abs_out || strncmp(abs_src, abs_out, (size_t)(s - abs_src)))
		return NULL;
	return xasprintf("..%s/", s);
}

/* Read the log back for errors and warnings, paths relative to the source. */
static int parse_build_log(struct build_ctx *b)
{
	struct buf text = BUF_INIT;
	char *abs_src = path_absolute(b->opts->srcdir);
	char *abs_out = path_absolute(b->opts->outdir);
	char *rel_src = sibling_prefix(abs_src, abs_out);
	const char *abs_prefixes[] = { abs_src, abs_out, b->opts->srcdir,
				       b->opts->outdir, rel_src, NULL };
	int error;

	if ((error = file_read(&text, b->opts->log_path)) == 0)
		build_log_parse(&b->res->log, text.ptr, text.len, abs_prefixes);
	buf_release(&text);
	free(abs_src);
	free(abs_out);
	free(rel_src);
	return error;
}

static char *warnings_path(struct build_ctx *b)
{
	return path_join(b->opts->outdir, ".tide-warnings.json");
}

/* Until make has finished, nobody knows which objects hold warnings. */
static void unlink_warnings(struct build_ctx *b)
{
	char *path = warnings_path(b);

	b->old_warnings = json_load_file(path, 0, NULL);
	unlink(path);
	free(path);
}

/*
 * make prints no warnings for objects it did not rebuild.  Keep the last
 * build's compiler warnings for files this checkout left alone, so an
 * incremental build lists what a full one would, and remember the list
 * for the next build.
 */
static int carry_warnings(struct build_ctx *b)
{
	struct build_result *res = b->res;
	char *path = warnings_path(b);
	json_t *old = b->old_warnings, *w;
	size_t i;
	char *text;
	int error;

	json_array_foreach(old, i, w) {
		const char *file = json_string_value(json_object_get(w, "file"));
		const char *msg = json_string_value(json_object_get(w, "message"));
		const char *kind = json_string_value(json_object_get(w, "kind"));
		char *src;

		if (!file || !msg || !kind || strcmp(kind, "compiler") ||
		    checkout_changed(&res->checkout, file))
			continue;
		src = path_join(b->opts->srcdir, file);
		if (path_exists(src))
			build_diags_add_unique(&res->log.warnings, BUILD_DIAG_COMPILER, file,
				   (int)json_integer_value(json_object_get(w, "line")),
				   (int)json_integer_value(json_object_get(w, "column")), msg);
		free(src);
	}
	w = build_diags_json(&res->log.warnings);
	text = json_dumps(w, JSON_INDENT(1));
	error = file_write_atomic(path, text, strlen(text));
	free(text);
	json_decref(w);
	free(path);
	return error;
}

/* The .config's SHA-256, for a reproducer to check its own against. */
static void config_hash(struct build_ctx *b)
{
	char *config = path_join(b->opts->outdir, ".config");
	char hex[65];

	if (path_exists(config) && file_sha256_hex(hex, config) == 0)
		b->res->config_sha256 = xstrdup(hex);
	tide_error_clear();
	free(config);
}

/* At most this many objects get the W=1 / sparse pass: a day that touched more is a tree-wide change. */
#define BUILD_MAX_CHECKED 400

struct touched {
	struct build_ctx *b;
	char **objs;
	size_t n, alloc;
	size_t skipped;		/* beyond BUILD_MAX_CHECKED */
};

/* A .c file the diff adds or changes whose object this build made: a target. */
static int touched_cb(const git_diff_delta *d, float progress, void *payload)
{
	struct touched *t = payload;
	const char *path = d->new_file.path;
	size_t len = path ? strlen(path) : 0;
	char *obj, *built;

	(void)progress;
	if (d->status == GIT_DELTA_DELETED || len < 3 || strcmp(path + len - 2, ".c"))
		return 0;
	obj = xstrdup(path);
	obj[len - 1] = 'o';
	built = path_join(t->b->opts->outdir, obj);
	if (!path_exists(built)) {
		free(obj);
	} else if (t->n >= BUILD_MAX_CHECKED) {
		t->skipped++;
		free(obj);
	} else {
		array_grow(&t->objs, &t->alloc, t->n + 2, sizeof(*t->objs));
		t->objs[t->n++] = obj;
		t->objs[t->n] = NULL;
	}
	free(built);
	return 0;
}

/*
 * The configuration's W=1 and sparse: the objects of the .c files that
 * changed between the day's base and this commit, made once more with
 * W=1 / C=1 (Kbuild rebuilds them: the command line changed), their
 * warnings read back with the build's.  Returns 0 or a TIDE_E* code.
 */
static int extra_checks(struct build_ctx *b)
{
	const struct build_config *c = b->opts->config;
	struct touched t = { .b = b };
	git_commit *bc = NULL;
	git_tree *base_tree = NULL;
	git_diff *diff = NULL;
	double t0 = time_now();
	char **args, **all;
	size_t n, i;
	int rc = 0;

	if (!c || (!c->w1 && !c->sparse) || !b->opts->touched_base || b->opts->target)
		return 0;
	if (git_commit_lookup(&bc, b->repo, b->opts->touched_base) < 0 ||
	    git_commit_tree(&base_tree, bc) < 0 ||
	    git_diff_tree_to_tree(&diff, b->repo, base_tree, b->tree, NULL) < 0 ||
	    git_diff_foreach(diff, touched_cb, NULL, NULL, NULL, &t) < 0) {
		rc = tide_error_git(TIDE_ERROR, "cannot list the files changed since the base");
		goto done;
	}
	if (t.skipped)
		log_printf(b->logfd, "# tide: %zu more changed objects not checked (at most %d)\n",
			   t.skipped, BUILD_MAX_CHECKED);
	if (!t.n) {
		step_event(b, "no changed object to check with%s%s", c->w1 ? " W=1" : "",
			   c->sparse ? " C=1" : "");
		goto done;
	}
	step_event(b, "checking %zu changed object%s with%s%s", t.n, t.n == 1 ? "" : "s",
		   c->w1 ? " W=1" : "", c->sparse ? " C=1" : "");
	/* The build's make command, then W=1 / C=1 and the objects as its targets. */
	args = make_argv(b, NULL, b->res->jobs);
	for (n = 0; args[n]; n++)
		;
	all = xcalloc(n + 2 + t.n + 1, sizeof(*all));
	memcpy(all, args, n * sizeof(*all));
	if (c->w1)
		all[n++] = "W=1";
	if (c->sparse)
		all[n++] = "C=1";
	for (i = 0; i < t.n; i++)
		all[n + i] = t.objs[i];
	/* The kernel is built: a check pass that stops (CONFIG_WERROR) is a warning, not a failure. */
	rc = run_logged(all, NULL, b->env, b->logfd, b->opts->nice);
	if (rc > 0) {
		char *msg = xasprintf("the%s%s pass over the changed objects failed (exit status %d)",
				      c->w1 ? " W=1" : "", c->sparse ? " C=1" : "", rc);

		build_diags_add_unique(&b->res->log.warnings, BUILD_DIAG_MAKE, NULL, 0, 0, msg);
		log_printf(b->logfd, "# tide: %s\n", msg);
		free(msg);
		rc = 0;
	}
	free(all);
	argv_free(args);
	b->res->checked = (long)t.n;
	b->res->check_seconds = time_now() - t0;
	step_event(b, "checked %zu object%s in %.1f s", t.n, t.n == 1 ? "" : "s",
		   b->res->check_seconds);
done:
	for (i = 0; i < t.n; i++)
		free(t.objs[i]);
	free(t.objs);
	git_diff_free(diff);
	git_tree_free(base_tree);
	git_commit_free(bc);
	return rc;
}

static int build_steps(struct build_ctx *b)
{
	struct build_result *res = b->res;
	char hex[65];
	double t;
	int rc;

	if (!check_fragments(b) || !find_tools(b))
		return 0;
	t = time_now();
	rc = make_config(b);
	res->config_seconds = time_now() - t;
	step_event(b, "config in %.1f s (%s)", res->config_seconds,
		   res->config_regenerated ? "made" : "unchanged, kept");
	if (rc)
		return rc < 0 ? rc : 0;
	t = time_now();
	b->make_ran = 1;
	unlink_warnings(b);
	res->make_command = make_command_json(b, b->opts->target, res->jobs);
	probe_toolchain(b);
	rc = step_failed(b, run_make_watched(b, b->opts->target, res->jobs), "make");
	res->make_seconds = time_now() - t;
	step_event(b, "compiled %ld object%s in %.1f s", b->objects, b->objects == 1 ? "" : "s",
		   (b->link_start ? b->link_start : time_now()) - t);
	if (b->link_start)
		step_event(b, "linked in %.1f s", time_now() - b->link_start);
	farm_finish(b);
	if (rc < 0)
		return rc;
	/* A named target (an object file) builds no image; the default must. */
	if (rc == 0 && !b->opts->target && !(res->kernel = find_kernel(b->opts)))
		fail(b, BUILD_DIAG_MAKE, NULL, 0, "make succeeded but left no kernel image");
	/* So a boot can tell the image is still this build's (the next replaces it). */
	if (res->kernel && file_sha256_hex(hex, res->kernel) == 0)
		res->kernel_sha256 = xstrdup(hex);
	tide_error_clear();
	res->ok = !res->failure;
	if (res->ok && (rc = extra_checks(b)) < 0)
		return rc;
	return 0;
}

/* --jobs wins; with distcc, its setting or every host's slots and ours. */
static int build_jobs(const struct build_opts *opts, int cpus)
{
	if (opts->jobs > 0)
		return opts->jobs;
	if (opts->farm.distcc_hosts)
		return opts->farm.distcc_jobs ? opts->farm.distcc_jobs
					      : opts->farm.distcc_slots + cpus;
	return cpus;
}

int build_run(struct build_result *res, git_repository *repo,
	      const git_oid *commit, const struct build_opts *opts)
{
	struct build_ctx b = { .opts = opts, .res = res, .repo = repo, .logfd = -1,
			       .watch_fd = -1 };
	double t0 = time_now();
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int error;

	memset(res, 0, sizeof(*res));
	if (opts->farm_error)
		return tide_error_set(TIDE_EINVAL, "%s", opts->farm_error);
	res->commit = xstrdup(git_oid_tostr_s(commit));
	b.label = opts->config ? xasprintf("build %s", opts->config->name) : xstrdup("build");
	if (opts->config) {
		res->config = xstrdup(opts->config->name);
		res->arch = xstrdup(opts->config->arch->name);
	}
	res->jobs = build_jobs(opts, cpus > 0 ? (int)cpus : 1);
	if (opts->farm.cache)
		res->remote_cache = url_redact(opts->farm.cache);
	if (opts->farm.distcc_hosts)
		res->distcc_hosts = xstrdup(opts->farm.distcc_hosts);
	farm_paths(&b);
	set_env(&b);
	if ((error = start(&b, commit)) < 0 || (error = farm_start(&b)) < 0)
		goto done;
	if (opts->no_checkout) {
		step_event(&b, "source of %.12s checked out for the matrix", res->commit);
	} else {
		step_event(&b, "checkout of %.12s", res->commit);
		error = checkout_tree(&res->checkout, repo, commit, opts->srcdir,
				       opts->state_path);
		res->checkout_seconds = res->checkout.seconds;
		if (error < 0)
			goto done;
		step_event(&b, "checkout in %.1f s (%zu files written, %zu removed)",
			   res->checkout_seconds, res->checkout.written, res->checkout.removed);
	}
	if ((error = build_steps(&b)) < 0)
		goto done;
	if ((error = parse_build_log(&b)) == 0 && b.make_ran)
		error = carry_warnings(&b);
	if (!res->ok && !res->failure)
		res->failure = xstrdup("build failed");
	config_hash(&b);
done:
	res->seconds = time_now() - t0;
	ctx_release(&b);
	return error;
}
