#ifndef TIDE_TRY_H
#define TIDE_TRY_H

#include <stddef.h>
#include <git2.h>
#include <jansson.h>

#include "boot.h"
#include "build.h"

/*
 * `tide try`: a developer's series against a day.  Since the day is
 * rebuilt every night nobody can base work on it; instead the series is
 * applied to the day's base, to the day itself and to its own
 * base-commit, merged against the state before and after every tree of
 * the day's first-parent chain (so the trees it collides with are
 * named), and optionally built and booted in DIR/try/.
 *
 * Nothing of the workspace changes: the commits a try makes live in
 * memory (merge_objects_begin(), never flushed), no ref or day record is
 * written, and the build happens in DIR/try/, seeded from DIR/build/.
 */

/*
 * Make repo's object database read-only and never touch a file of it
 * (libgit2 refreshes the mtime of objects written again); add a memory
 * backend (merge_objects_begin()) for what a try writes.
 */
int try_odb_readonly(git_repository *repo);

/* ---- the series ---- */

struct try_patch {
	char *name;		/* file name, "mbox #N" or the commit id */
	char *subject;
	char *author;		/* "Name <email>" */
	git_signature *sig;	/* the author, with the patch's date */
	char *message;		/* commit message */
	char *diff;		/* the diff text (NUL-terminated) */
	size_t diff_len;
};

struct try_series {
	char *source;		/* what the user named */
	struct try_patch *v;
	size_t n, alloc;
	char *base_commit;	/* "base-commit:" of the series (hex), or NULL */
	char *cover;		/* the cover letter's subject, or NULL */
	int version;		/* the revision tried ("v3"), 1 when none */
};

/*
 * Load a series: an mbox or a single patch file, a directory of patches
 * (its `series` file if there is one, else its patch files), read as
 * patch_series_from_path() does (replies and the cover letter skipped,
 * the newest revision, n/m order), or a revision range A..B of repo
 * (rev_repo, or the workspace's repo when NULL).  Every patch is checked: it must be a diff, and every
 * path it names must stay inside the tree.  TIDE_EINVAL for a malformed
 * series, TIDE_ENOTFOUND for a missing file or revision.
 */
int try_series_load(struct try_series *out, git_repository *repo,
		    const char *spec, const char *rev_repo);
void try_series_release(struct try_series *s);

/* ---- applying ---- */

struct try_apply {
	char *onto_name;	/* "base", "day", "base-commit" */
	char *onto_label;	/* "v6.1.192", "next-20261203", ... */
	git_oid onto;
	int ok;
	git_oid tip;		/* the last patch's commit, when ok */
	size_t failed;		/* index of the patch that failed, when !ok */
	char *file;		/* the file it failed on, or NULL */
	char *hunk;		/* the failing hunk, or NULL */
	char *error;		/* libgit2's reason */
};

/*
 * Apply the series onto a commit, one commit per patch.  A patch that
 * does not apply is an outcome (out->ok == 0, which patch, file, hunk),
 * not an error; errors are the repository's.
 */
int try_apply_series(struct try_apply *out, git_repository *repo,
		     const git_oid *onto, const struct try_series *s);
void try_apply_release(struct try_apply *a);

/* ---- the day's trees ---- */

struct try_conflict {
	char *path;
	const char *kind;	/* merge_conflict_kind_name() */
	char **hunks;		/* conflicted regions of the merged file */
	size_t nhunks;
	char **commits;		/* "<12 hex> <subject>" of the tree touching path */
	size_t ncommits;
};

enum try_tree_status {
	TRY_TREE_OK,		/* the series merges with the state after it */
	TRY_TREE_CONFLICT,	/* its merge brings conflicts with the series */
	TRY_TREE_NEEDED,	/* the series applies only from this tree on */
	TRY_TREE_BEFORE,	/* merged before the state the series applies to */
	TRY_TREE_NOT_MERGED,	/* the day left it out (conflict, dropped ...) */
	TRY_TREE_UNTESTED,	/* the series applies nowhere */
};

const char *try_tree_status_name(enum try_tree_status s);

struct try_tree {
	char *name;
	char *day_status;	/* the tree's status in the day record */
	enum try_tree_status status;
	struct try_conflict *conflicts;
	size_t nconflicts;
};

/* ---- a try ---- */

struct day;

struct try_result {
	struct try_apply *applies;	/* base, day, and base-commit if given */
	size_t napplies;
	int home;			/* the apply the series is merged from, or -1 */
	struct try_tree *trees;
	size_t ntrees;
	git_oid tip;			/* the series on the day, when it applies there */
	int have_tip;
};

/*
 * Apply the series to the day's base, the day and the series'
 * base-commit, then merge it against every tree's state.  The series is
 * merged from its base-commit when it applies there, else from the base,
 * else from the first state of the chain it applies to (the trees before
 * that one are what it needs).
 */
int try_day(struct try_result *out, git_repository *repo, const struct day *day,
	    const struct try_series *s);
void try_result_release(struct try_result *r);

/* ---- build and boot in DIR/try ---- */

struct try_build {
	int ran;
	struct build_result res;
	struct build_diags new_warnings;	/* warnings the day's build lacks */
	struct build_diags new_errors;		/* errors the day's build lacks */
	int seeded;			/* DIR/try was (re)seeded from DIR/build */
	double seed_seconds;
	int baseline_built;		/* the day had no build record: built first */
	char *log;			/* DIR/try/build.log */
	char *outdir;			/* DIR/try/out, or out-NAME for configuration NAME */
};

/*
 * Build commit (the series on the day) in DIR/try/{src,out}, seeded from
 * DIR/build/{src,out} when the workspace's build holds another tree than
 * the last seed or another configuration is tried (o->config: its O= is
 * out-NAME in both, as build_config_outdir() names it; source files hard-linked, which the checkout never
 * writes through; the object directory copied with its timestamps and
 * its absolute paths moved over), so only what the series changes is
 * compiled.  New diagnostics are those the day's build of that
 * configuration lacks; a day without one is built first in DIR/try.
 */
int try_build_run(struct try_build *out, git_repository *repo, const char *wsdir,
		  const struct day *day, const git_oid *commit,
		  const struct build_day_opts *o);
void try_build_release(struct try_build *b);

/* Hold DIR/try/lock (*fd, close to release): one try builds at a time. */
int try_lock(int *fd, const char *wsdir);

/* DIR/try/<name>; the caller frees it. */
char *try_path(const char *wsdir, const char *name);

/* ---- the record ---- */

json_t *try_result_json(const struct try_result *r, const struct try_series *s,
			const struct day *day);

/* ---- the whole try (src/try_run.c) ---- */

struct build_config;
struct merge_objects;
struct workspace;

/* What tide try was asked. */
struct try_request {
	const char *series;	/* try_series_load()'s spec */
	const char *rev_repo;	/* the repository of an A..B series, or NULL */
	const char *date;	/* the day (YYYY-MM-DD); NULL: the newest */
	int build, boot;	/* boot implies build */
	struct build_day_opts bo;	/* the build's configuration, jobs, niceness */
};

/* What a try found, as the report and the JSON name it. */
struct try_outcome {
	struct day *day;
	struct try_series series;
	struct try_result res;
	struct try_build build;
	int built;
	const char *build_skipped;	/* why not, when asked */
	struct boot_result boot;
	int booted;
	json_t *problems;		/* ["apply", "conflict", "build", "warnings", "boot"] */
	struct merge_objects *mo;	/* the try's commits, in memory only */
};

/*
 * The try pipeline: the day loaded, the series loaded, applied and merged
 * against the day's trees (try_day()), then with rq->build built in
 * DIR/try (one try at a time) and with rq->boot booted with the smoke
 * tests, when the series applies to the day; out->problems names what
 * went wrong.  Nothing of the workspace changes.  An error is the
 * workspace's, the repository's or the series' (out then holds what was
 * done).
 */
int try_pipeline(struct try_outcome *out, struct workspace *ws, const struct try_request *rq);
void try_outcome_release(struct try_outcome *o);

/* The build part of the JSON: the build record and what the try adds to it. */
json_t *try_build_json(const struct try_outcome *o);

#endif
