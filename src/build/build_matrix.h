#ifndef TIDE_BUILD_MATRIX_H
#define TIDE_BUILD_MATRIX_H
/*
 * A day's configurations built one after another, or several side by
 * side ("#tide build-parallel=N").  Side by side, the source tree is
 * checked out once, then each configuration builds in a child process
 * of its own (build_day() with no_checkout) in its own O=; the children
 * send their events and, at the end, their record back through a pipe,
 * and this process relays the events (the status line shows every
 * running build's count at once) and puts each record in the day.
 */
#include <stddef.h>
#include <git2.h>
#include "build.h"
#include "day.h"
#include "event.h"

struct build_matrix_hooks {
	/* A configuration's build is starting (o is the caller's). */
	void (*started)(void *data, const struct build_day_opts *o);
	/*
	 * It ended: rec is its record, now in the day, or NULL when tide
	 * could not build it at all (why says why; the record in the day
	 * is then a "failed" one with why as its failure).
	 */
	void (*finished)(void *data, const struct build_day_opts *o,
			 const struct day_build *rec, const char *why);
	void *data;
};

/*
 * Build the n configurations of opts (each as build_day() would, in this
 * order) for day, at most parallel at a time (<= 1: one after another,
 * in this process).  events gets the builds' events (for side-by-side
 * builds, relayed from the children).  Returns 0 when every
 * configuration has a record, whatever it says; < 0 only when tide
 * itself could not go on (the configurations not yet built then have
 * a "failed" record saying why).
 */
int build_matrix_run(struct day *day, git_repository *repo, const char *wsdir,
		     const char *daydir, const struct day *prev,
		     const struct build_day_opts *opts, size_t n, int parallel,
		     const struct event_sink *events, const struct build_matrix_hooks *hooks);

/*
 * The make jobs each of parallel side-by-side builds gets out of a
 * budget of jobs in all (0: one per online CPU): an even share, at least
 * one.  With parallel <= 1, jobs itself (0 stays "build's default").
 */
int build_matrix_jobs(int jobs, int parallel);

#endif
