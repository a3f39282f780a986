/*
 * The day's fetch stage (fetch.h): the base tag and every git tree of
 * trees.conf fetched in parallel, each with its limits.  Quilt trees are
 * fetched one by one by the merge stage (merge_day.c), in merge order.
 */
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "event.h"
#include "fetch.h"
#include "util.h"
#include "workspace.h"

const struct fetch_job *fetch_day_job(const struct fetch_day *fd, const struct tree *t)
{
	size_t i;

	for (i = 1; i < fd->njobs; i++)
		if (!strcmp(fd->jobs[i].name, t->name))
			return &fd->jobs[i];
	return NULL;
}

/* "#tide NAME timeout=SECONDS stall=SECONDS" (checked by conf.c), and the stage's deadline. */
static void set_fetch_limits(struct fetch_day *fd, struct fetch_job *job, const struct tree *t)
{
	job->timeout = (double)(t ? tree_opt_seconds(t, "timeout", FETCH_TIMEOUT) : FETCH_TIMEOUT);
	job->stall = (double)(t ? tree_opt_seconds(t, "stall", FETCH_STALL) : FETCH_STALL);
	job->deadline = fd->deadline;
}

static void fetch_day_jobs(struct fetch_day *fd, const struct trees_conf *conf)
{
	char *tagref = xasprintf("refs/tags/%s", conf->base_tag);
	size_t i;

	fd->jobs = xcalloc(conf->ntrees + 1, sizeof(*fd->jobs));
	if (conf->fetch_deadline)
		fd->deadline = time_now() + (double)conf->fetch_deadline;
	fetch_job_init(&fd->jobs[fd->njobs], "base", conf->base_location, tagref, tagref);
	set_fetch_limits(fd, &fd->jobs[fd->njobs++], NULL);
	for (i = 0; i < conf->ntrees; i++) {
		const struct tree *t = &conf->trees[i];
		char *src, *dst;

		if (t->type != TREE_GIT)
			continue;
		src = xasprintf("refs/heads/%s", t->branch);
		dst = xasprintf("refs/remotes/%s/%s", t->name, t->branch);
		fetch_job_init(&fd->jobs[fd->njobs], t->name, t->location, src, dst);
		set_fetch_limits(fd, &fd->jobs[fd->njobs++], t);
		free(src);
		free(dst);
	}
	free(tagref);
}

int fetch_day_run(struct fetch_day *fd, struct workspace *ws, const struct trees_conf *conf,
		  int jobs, const struct event_sink *events)
{
	double start;
	size_t i;
	int error;

	fetch_day_jobs(fd, conf);
	event_emitf(events, EVENT_FETCH, EVENT_PROGRESS, NULL,
		    "fetching %zu repositories (%d at a time)", fd->njobs, jobs);
	start = time_now();
	if ((error = fetch_run(ws, fd->jobs, fd->njobs, jobs)) < 0)
		return error;
	fd->spent = time_now() - start;
	for (i = 0; i < fd->njobs; i++) {
		const struct fetch_job *job = &fd->jobs[i];

		if (job->error)
			event_emitf(events, EVENT_FETCH, EVENT_PROBLEM, job->name, "fetch %s failed: %s",
				    job->name, job->message);
		else
			event_emitf(events, EVENT_FETCH, EVENT_PROGRESS, job->name, "fetched %s (%.2fs)",
				    job->name, job->seconds);
	}
	return 0;
}

void fetch_day_release(struct fetch_day *fd)
{
	size_t i;

	for (i = 0; i < fd->njobs; i++)
		fetch_job_clear(&fd->jobs[i]);
	free(fd->jobs);
	fd->jobs = NULL;
	fd->njobs = 0;
}
