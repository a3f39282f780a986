#ifndef TIDE_BUILD_H
#define TIDE_BUILD_H

#include <stddef.h>
#include <git2.h>
#include <jansson.h>

#include "buf.h"
#include "buildconf.h"
#include "checkout.h"

struct build_config;
struct event_sink;

/*
 * Building a day's kernel: an incremental checkout of the commit into
 * DIR/build/src (only files that changed since the last checkout are
 * rewritten, so make stays incremental), a config made from tinyconfig
 * plus a fragment, Kbuild out of tree (O=DIR/build/out) through ccache,
 * and the first errors and the warnings read back from the log.
 */

/*
 * Parse a day record's object name (hex): TIDE_EINVAL "day record has no
 * valid WHAT" when it is missing or not an object name.
 */
int build_record_oid(git_oid *out, const char *hex, const char *what);

/* ---- log parsing ---- */

enum build_diag_kind {
	BUILD_DIAG_COMPILER,	/* file:line[:col]: error|warning: ... */
	BUILD_DIAG_LINKER,	/* ld: ..., undefined reference, ... */
	BUILD_DIAG_KCONFIG,	/* Kconfig syntax, config fragment checks */
	BUILD_DIAG_MAKE,	/* make: *** ... Error N */
	BUILD_DIAG_TOOL,	/* a missing tool (compiler, make) */
	BUILD_DIAG_MODPOST,	/* modpost: section mismatches, undefined module symbols */
};

struct build_diag {
	enum build_diag_kind kind;
	char *file;		/* relative to the source tree; NULL if none */
	int line;		/* 0 if none */
	int column;		/* 0 if none */
	char *message;		/* without the "error: "/"warning: " prefix */
	char *tree;		/* attribution (new warnings), or NULL */
};

struct build_diags {
	struct build_diag *v;
	size_t n, alloc;
};

struct build_log {
	struct build_diags errors;	/* the first BUILD_MAX_ERRORS, in log order */
	size_t nerrors_total;		/* including those not kept */
	struct build_diags warnings;	/* unique by (file, line, message) */
};

#define BUILD_MAX_ERRORS 20

/*
 * Extract errors and warnings from a build log.  Paths that start with
 * one of strip_prefixes (NULL-terminated, may be NULL) lose it, so records
 * name files relative to the source tree whatever the build directory.
 */
void build_log_parse(struct build_log *out, const char *text, size_t len,
		     const char *const *strip_prefixes);
void build_log_release(struct build_log *log);

const char *build_diag_kind_name(enum build_diag_kind kind);
/* The key two days' warnings are compared by: file and message, no line. */
char *build_diag_key(const struct build_diag *d);
void build_diag_push(struct build_diags *d, enum build_diag_kind kind,
		     const char *file, int line, int column, const char *msg);
void build_diags_release(struct build_diags *d);
/* Push unless the same diagnostic is there: 1 pushed, 0 not. */
int build_diags_add_unique(struct build_diags *d, enum build_diag_kind kind,
			   const char *file, int line, int column, const char *msg);
/* An error counted, and kept unless it is there or the log holds the most it keeps. */
void build_log_add_error(struct build_log *log, enum build_diag_kind kind,
			 const char *file, int line, int column, const char *msg);

/*
 * The warnings of now that a previous build's list (prev, a record's
 * "warnings"; NULL: every warning is new) does not have, by
 * build_diag_key().
 */
void build_new_warnings(struct build_diags *out, const struct build_diags *now,
			const json_t *prev);

/*
 * Set diag->tree for each diagnostic (a build's new warnings and its
 * errors, so each tree's report can name them): the tree whose first-parent merge
 * between base and tip touched the file (the "Tide-Tree:" trailer of the
 * merge commit), else "mainline".
 */
int build_attribute(git_repository *repo, const git_oid *tip,
		    const git_oid *base, struct build_diags *diags);

/* ---- several machines: a shared ccache and distcc (src/build_farm.c) ---- */

/*
 * The workspace's build settings in DIR/config (man/tide-config.5), all
 * unset by default:
 *   cache = redis://HOST[:PORT][/DB] | http://HOST[:PORT][/PATH]
 *           ccache's remote_storage, shared by every workspace and machine
 *   distcc-hosts = HOST[:PORT][/LIMIT][,lzo] ...   DISTCC_HOSTS
 *   distcc-jobs = N          make -jN when distcc-hosts is set
 */
struct build_farm {
	char *cache;		/* NULL: the local ccache only */
	char *distcc_hosts;	/* NULL: compile on this machine */
	int distcc_jobs;	/* 0: the hosts' slots plus this machine's CPUs */
	int distcc_slots;	/* the sum of the hosts' limits */
};

/* Load and check DIR/config; a bad value is TIDE_EINVAL naming DIR/config:LINE. */
int build_farm_load(struct build_farm *out, const char *wsdir);
void build_farm_release(struct build_farm *farm);
/* Only the check of build_farm_load(), for commands that build later. */
int build_farm_check(const char *wsdir);

/* Checks of one value; 0 or -1 with *why set to a static reason. */
int build_cache_url_check(const char *url, const char **why);
int build_distcc_hosts_check(const char *hosts, int *slots, const char **why);

/* What ccache's stats log (CCACHE_STATSLOG) says about one build. */
struct build_cache_stats {
	long calls;		/* every ccache invocation */
	long local_hits, remote_hits, misses;
	long uncacheable;	/* links, preprocessing only, configure tests, failures */
	long remote_errors;	/* the remote storage failed or timed out */
};

void build_cache_stats_parse(struct build_cache_stats *out, const char *text, size_t len);

struct build_distcc_host {
	char *host;		/* HOST:PORT */
	long compiles;		/* compiled there */
	long failures;		/* could not be used: the compile ran here instead */
};

/* What distcc's client log (DISTCC_LOG) says about one build. */
struct build_distcc_stats {
	long remote;		/* compiles that ran on a host */
	long local;		/* compiles that ran here (localhost or a fallback),
				   not counting compiler runs without a source file */
	long fallbacks;		/* of those, the ones meant for a host */
	double seconds;		/* distcc's runs' elapsed times added up */
	struct build_distcc_host *hosts;
	size_t nhosts, ahosts;
};

void build_distcc_stats_parse(struct build_distcc_stats *out, const char *text, size_t len);
void build_distcc_stats_release(struct build_distcc_stats *st);

json_t *build_cache_stats_json(const struct build_cache_stats *st);

/* ---- the whole build ---- */

struct build_opts {
	const char *srcdir;	/* DIR/build/src */
	const char *outdir;	/* DIR/build/out */
	const char *state_path;	/* DIR/build/src.tree */
	const char *fragment;	/* config fragment merged onto tinyconfig */
	const char *log_path;	/* full log, replaced */
	const char *ccache_basedir;	/* CCACHE_BASEDIR, usually DIR */
	const char *cc;		/* compiler, default "gcc" */
	const char *target;	/* make target (no image expected), NULL for the default */
	const char *arch;	/* ARCH=, NULL for the host's (config's arch wins) */
	/*
	 * A declared configuration (borrowed): its base (a make target or a
	 * file), its fragments merged in order, its arch (ARCH= and
	 * CROSS_COMPILE= when it is not the host's), W=1 and C=1.  NULL:
	 * tinyconfig plus fragment, the host's compiler.
	 */
	const struct build_config *config;
	/* Each step with its time, and the objects compiled so far (redraws); NULL: quiet. */
	const struct event_sink *events;
	/*
	 * The day's base: with a configuration's w1= or sparse=, the objects
	 * of the .c files changed since base are rebuilt once more with W=1
	 * and C=1 after the build (NULL: every file counts as changed only
	 * when there is no base; then the extra pass is skipped).
	 */
	const git_oid *touched_base;
	int jobs;		/* 0: the number of online CPUs */
	int no_ccache;
	int nice;		/* niceness added to make and its children */
	/*
	 * srcdir already holds commit (the build matrix checked it out once
	 * for configurations building side by side): no checkout, which would
	 * rewrite the state file under the others' feet.
	 */
	int no_checkout;
	/*
	 * DIR/config's build settings (build_opts_init() loads them).
	 * A bad DIR/config is kept in farm_error: build_run() then fails
	 * with it (TIDE_EINVAL) before it touches anything.
	 */
	struct build_farm farm;
	char *farm_error;
};

struct build_result {
	int ok;				/* make exited 0 */
	char *failure;			/* a one-line reason when !ok */
	double seconds;			/* all of it */
	double checkout_seconds, config_seconds, make_seconds;
	long objects;			/* Kbuild's CC and AS lines: objects compiled */
	long checked;			/* objects rebuilt with W=1 / C=1 (the day's files) */
	double check_seconds;
	struct checkout_stats checkout;
	int config_regenerated;
	int jobs;
	int ccache;			/* went through ccache */
	char *remote_cache;		/* the shared cache used (password redacted) */
	int have_cache_stats;		/* ccache wrote its stats log */
	struct build_cache_stats cache_stats;
	char *distcc_hosts;		/* DISTCC_HOSTS used, NULL without distcc */
	struct build_distcc_stats distcc;
	char *commit;			/* hex */
	char *config, *arch;		/* opts->config's name and arch, or NULL */
	struct build_log log;
	struct build_diags new_warnings;
	char *kernel;			/* the image, when ok */
	json_t *make_command;		/* make's argv as run, or NULL */
	char *compiler, *binutils;	/* first lines of `gcc --version`, `ld --version` */
	char *config_sha256;		/* of the .config built with, or NULL */
	char *kernel_sha256;		/* of the image, or NULL */
};

/*
 * Check commit out and build it.  Returns 0 when the build ran, whether it
 * succeeded or not (res->ok, res->failure: a broken fragment, a missing
 * compiler or a compile error are recorded outcomes); a negative TIDE_E*
 * code when tide itself could not do its part (I/O, repository, a missing
 * fragment file).
 */
int build_run(struct build_result *res, git_repository *repo,
	      const git_oid *commit, const struct build_opts *opts);
void build_result_release(struct build_result *res);

/* The day.json "build" object of res, build_result_record()'s JSON. */
json_t *build_result_json(const struct build_result *res, const char *log_name);
json_t *build_diags_json(const struct build_diags *d);
/* The record's "distcc" object. */
json_t *build_distcc_json(const struct build_result *res);



/* ---- a day's build ---- */


struct build_day_opts {
	const char *fragment;	/* NULL: build_default_fragment() */
	/*
	 * A declared configuration (borrowed), or NULL for the fragment's
	 * build.  Its O= is DIR/build/out for BUILD_CONFIG_DEFAULT, else
	 * DIR/build/out-NAME; the source tree is shared.
	 */
	const struct build_config *config;
	/*
	 * config is one of the day's other configurations (not trees.conf's
	 * first): its record goes to the day's "configs", its log to
	 * build.NAME.log.
	 */
	int extra;
	const struct event_sink *events;	/* as build_opts' */
	int jobs;
	int no_ccache;
	int nice;
	int no_checkout;	/* as build_opts' */
};

/*
 * The O= directory of configuration c (NULL: the fragment's build) in
 * workspace wsdir: DIR/build/out for BUILD_CONFIG_DEFAULT, else
 * DIR/build/out-NAME.  The caller frees it.
 */
char *build_config_outdir(const char *wsdir, const struct build_config *c);

struct day;
struct day_build;
struct day_boot;

/*
 * Build day->commit in workspace wsdir, log to daydir/build.log (written
 * aside and renamed into place, so a killed build leaves the old log),
 * compare warnings with the previous day's build (prev may be NULL),
 * attribute the new ones to the trees merged between day->base_commit and
 * day->commit, and set the record's "build" key.  res (optional) receives
 * the result; returns like build_run().
 */
int build_day(struct day *day, git_repository *repo, const char *wsdir,
	      const char *daydir, const struct day *prev,
	      const struct build_day_opts *o, struct build_result *res);

/*
 * The newest day before date (in days_dir) whose build succeeded: the
 * day new warnings are counted against.  NULL if there is none.
 */
struct day *build_previous_day(const char *days_dir, const char *date);

/*
 * The only writers of a "build" record, the day's (&day->build) or a
 * tree's (&dt->build, build-each-merge): the result as the record (its
 * log named log_name in the day directory), or, when tide could not
 * build at all, status with the last error as its failure (cleared).
 */
void build_record_set(struct day_build **slot, const struct build_result *res,
		      const char *log_name);
void build_record_failure(struct day_build **slot, const char *status);
/*
 * The record of res (its log named log_name in the day directory), as
 * build_record_set() writes it: the one place a build result becomes a
 * record.  The caller frees it.
 */
struct day_build *build_result_record(const struct build_result *res, const char *log_name);

/* The day's build record, or NULL. */
const struct day_build *build_record(const struct day *day);
/*
 * Where build_day() records a build with o (NULL: the day's own): the
 * day's "build", or its configuration's under "configs"; and the log's
 * name in the day directory (the caller frees it).
 */
struct day_build **build_day_slot(struct day *day, const struct build_day_opts *o);
char *build_day_log_name(const struct build_day_opts *o);


/*
 * The one builder of build options: DIR/build's fixed paths, the log at
 * log_path (NULL: DIR/build/build.log), DIR/config's build settings
 * (opts->farm, or opts->farm_error), and o's fragment (NULL:
 * build_default_fragment()), jobs, no_ccache and nice (o may be NULL).
 * opts->fragment stays NULL when there is no fragment: each caller says
 * so in its own words.  Callers then set only what differs; the strings
 * are opts' own (build_opts_release() frees them).
 */
void build_opts_init(struct build_opts *opts, const char *wsdir, const char *log_path,
		     const struct build_day_opts *o);
void build_opts_release(struct build_opts *opts);

#endif
