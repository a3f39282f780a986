#ifndef TIDE_QUILT_H
#define TIDE_QUILT_H

#include <stddef.h>
#include <git2.h>

/*
 * Quilt trees (linux-next's "quilt" and "mmotm" rows): a directory (HTTP,
 * HTTPS, file:// or a local path) holding a `series` file and the patches
 * it names.  The files are mirrored into a cache directory with their
 * ETag / Last-Modified, so the next fetch sends conditional requests and
 * an unchanged series downloads nothing.  The patches are then applied
 * onto a base commit, one commit per patch, author/date/subject from the
 * patch's mail headers, and refs/quilt/<tree> points at the last one.
 */

/* The defaults of man/trees.conf.5. */
#define QUILT_MAX_SIZE (256LL << 20)
#define QUILT_MAX_REDIRS 5L
#define QUILT_MAX_PATCHES 10000L	/* "max-patches=" */
#define QUILT_SERIES_TIMEOUT 1800L	/* "series-timeout=": fetch and apply, seconds */

/*
 * Limits of each HTTP transfer; every one fails the transfer (TIDE_ETIMEOUT
 * for time, TIDE_ERROR otherwise) and leaves the cached copy as it was.
 */
struct quilt_opts {
	long connect_timeout;	/* seconds; default 10 */
	long low_speed_time;	/* abort a transfer stalled this many seconds; default 300 */
	long timeout;		/* seconds for one whole transfer; default 300 */
	long long max_size;	/* bytes of one file; default QUILT_MAX_SIZE */
	double deadline;	/* a time_now() no transfer may pass; 0: none */
	const char *committer_name;	/* default: the patch's author */
	const char *committer_email;
	const char *trailer;	/* appended to each commit message, e.g. "Tide-Tree: x" */
	const char *cainfo;	/* CA bundle for https://; NULL: the system's */
	int fuzz;		/* context lines a hunk may ignore (apply_opts.fuzz); 0 */
	long max_patches;	/* patches a series may have; 0: no limit */
	/*
	 * A time_now() by which the whole series must be fetched and applied
	 * (quilt_prepare() sets it from series_timeout); 0: none.
	 */
	double series_deadline;
	long series_timeout;	/* seconds; 0: none */
};

#define QUILT_OPTS_INIT { 10, 300, 300, QUILT_MAX_SIZE, 0, NULL, NULL, NULL, NULL, 0, \
			  QUILT_MAX_PATCHES, 0, 0 }

struct quilt_stats {
	size_t requests;	/* HTTP requests sent */
	size_t downloaded;	/* files whose body was transferred (200) */
	size_t not_modified;	/* files answered 304 Not Modified */
	int fetched;		/* 1 once every file is cached: a later failure is applying */
};

/* The options a series line may give after the name ("x.patch -p0 -R"). */
struct quilt_patch_opts {
	int strip;	/* -pN; default 1, as quilt */
	int reverse;	/* -R */
};

struct quilt_series {
	char **patches;		/* names, in series order */
	size_t npatches;
	struct quilt_patch_opts *opts;	/* one per patch; NULL: all -p1 */
};

/*
 * Parse a series file: comments and blank lines dropped, "-pN" and "-R"
 * after a name kept in opts; any other option is TIDE_EINVAL.
 */
int quilt_series_parse(struct quilt_series *out, const char *text);
void quilt_series_release(struct quilt_series *s);

/*
 * The *.patch files of a local directory in name order, as a series (for
 * per-tree fixup patches).  A missing directory is an empty series.
 */
int quilt_series_from_dir(struct quilt_series *out, const char *dir);

/*
 * Mirror url's series and its patches into cachedir.  Errors name the
 * file and URL ("cannot fetch 'x.patch' from 'URL': HTTP 404").  A series
 * of more than max_patches is refused before any patch is fetched.  The
 * cached files are written without an fsync each (two per patch made a
 * 100,000-patch series take over 15 minutes): one syncfs() at the end
 * makes the whole cache durable, and a copy whose recorded hash does not
 * match (a crash before that sync) is fetched again, never trusted.
 */
int quilt_fetch(struct quilt_series *out, struct quilt_stats *stats,
		const char *url, const char *cachedir, const struct quilt_opts *opts);

/*
 * Apply the cached series onto base as one commit per patch; out gets the
 * last commit (base itself for an empty series).  A patch that does not
 * apply is TIDE_ECONFLICT naming the patch and the file; past
 * series_deadline, TIDE_ETIMEOUT saying how far it got.
 */
int quilt_apply(git_oid *out, git_repository *repo, const git_oid *base,
		const struct quilt_series *series, const char *cachedir,
		const struct quilt_opts *opts);

/*
 * Both steps and the ref: fetch url into cachedir, apply onto base,
 * update refs/quilt/<name>, all within series_timeout.  Messages are
 * prefixed with the tree's name.
 */
int quilt_prepare(git_oid *out, struct quilt_stats *stats, git_repository *repo,
		  const char *name, const char *url, const char *cachedir,
		  const git_oid *base, const struct quilt_opts *opts);

#endif
