#ifndef TIDE_FETCH_H
#define TIDE_FETCH_H

#include <stddef.h>
#include <git2.h>

struct workspace;

/*
 * One fetch: the branch (or tag) `src_ref` of `location` into `dst_ref` of
 * the workspace repository.  Local repositories are first added as
 * alternates, so nothing is copied (see workspace_add_alternate()).
 */
struct fetch_job {
	const char *name;	/* for messages: the tree name or "base" */
	const char *location;	/* path or URL */
	char *src_ref;		/* "refs/heads/for-next", "refs/tags/v6.1" */
	char *dst_ref;		/* "refs/remotes/gpio/for-next" */
	/*
	 * Limits, each giving the fetch up as TIDE_ETIMEOUT; 0: none.
	 * libgit2 1.5 has no network timeouts of its own, and a server can
	 * keep a fetch alive for ever with progress messages, so `timeout`
	 * counts from the fetch's start and nothing the server sends extends
	 * it.  `stall` is the longest wait for pack data (progress messages
	 * do not count as data); `deadline` is a time_now() by which the
	 * fetch must be done, queued or not (the fetch stage's deadline).
	 */
	double timeout;
	double stall;
	double deadline;
	/* results */
	int error;		/* 0 or a TIDE_E* code */
	char *message;		/* why it failed, or NULL */
	git_oid oid;		/* the fetched tip (the tag object for tags) */
	double seconds;
};

void fetch_job_init(struct fetch_job *job, const char *name, const char *location,
		    const char *src_ref, const char *dst_ref);
void fetch_job_clear(struct fetch_job *job);

/*
 * Run the jobs with at most nthreads at once, each thread with its own
 * repository handle.  Every job records its own result; the return value
 * is 0 unless the pool itself could not run.  A job that times out is
 * abandoned: its thread is left to end on its own (its late result is
 * dropped) and a new thread takes the remaining jobs.  Jobs still queued
 * at their deadline fail without starting.
 */
int fetch_run(struct workspace *ws, struct fetch_job *jobs, size_t njobs, int nthreads);

/*
 * How many worker threads were abandoned, still maybe blocked in a read
 * inside libgit2: the caller must then not git_libgit2_shutdown() under
 * them, and just exits.
 */
int fetch_abandoned_threads(void);

/* ---- the day's fetch stage (src/fetch_day.c) ---- */

struct trees_conf;
struct tree;
struct event_sink;

/* The defaults of man/trees.conf.5, in seconds. */
#define FETCH_TIMEOUT 1800	/* a git tree's whole fetch ("timeout=") */
#define FETCH_STALL 300		/* no data, git and quilt ("stall=") */

struct fetch_day {
	struct fetch_job *jobs;	/* [0] the base, then the git trees */
	size_t njobs;
	/*
	 * "#tide fetch-deadline=": the git fetch stage's end (a time_now(),
	 * 0: none), and the fetching time spent so far, which quilt trees,
	 * fetched one by one later, add to.
	 */
	double deadline, spent;
};

/*
 * Fetch the base tag and every git tree of conf, jobs at a time, each
 * with its "#tide NAME timeout= stall=" limits; events for each.  A
 * tree that fails is recorded in its job, not returned.
 */
int fetch_day_run(struct fetch_day *fd, struct workspace *ws, const struct trees_conf *conf,
		  int jobs, const struct event_sink *events);
/* The job of git tree t, or NULL (a quilt tree). */
const struct fetch_job *fetch_day_job(const struct fetch_day *fd, const struct tree *t);
void fetch_day_release(struct fetch_day *fd);

#endif
