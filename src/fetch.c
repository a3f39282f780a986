#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fetch.h"
#include "util.h"
#include "workspace.h"

struct pool {
	const char *repo_path;
	struct fetch_job *jobs;
	size_t njobs;
	size_t next;		/* next job to take, under lock */
	pthread_mutex_t lock;
};

void fetch_job_init(struct fetch_job *job, const char *name, const char *location,
		    const char *src_ref, const char *dst_ref)
{
	memset(job, 0, sizeof(*job));
	job->name = name;
	job->location = location;
	job->src_ref = xstrdup(src_ref);
	job->dst_ref = xstrdup(dst_ref);
}

void fetch_job_clear(struct fetch_job *job)
{
	free(job->src_ref);
	free(job->dst_ref);
	free(job->message);
	job->src_ref = job->dst_ref = job->message = NULL;
}

/* Find src_ref among the remote's refs: a missing branch is named, not silently skipped. */
static int find_remote_ref(git_oid *out, git_remote *remote, const struct fetch_job *job)
{
	const git_remote_head **heads;
	size_t n, i;

	if (git_remote_ls(&heads, &n, remote) < 0)
		return tide_error_git(TIDE_ERROR, "cannot list refs of '%s'", job->location);
	for (i = 0; i < n; i++) {
		if (!strcmp(heads[i]->name, job->src_ref)) {
			git_oid_cpy(out, &heads[i]->oid);
			return 0;
		}
	}
	return tide_error_set(TIDE_ENOTFOUND, "'%s' not found in '%s'", job->src_ref, job->location);
}

static int fetch_one(git_repository *repo, struct fetch_job *job)
{
	git_remote *remote = NULL;
	git_fetch_options opts;
	git_remote_create_options copts;
	char *spec = xasprintf("+%s:%s", job->src_ref, job->dst_ref);
	char *specs[] = { spec };
	git_strarray refspecs = { specs, 1 };
	git_reference *ref = NULL;
	int error;

	git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION);
	git_remote_create_options_init(&copts, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	/*
	 * Like git_remote_create_anonymous(), without the url.*.insteadOf
	 * lookup: libgit2 1.5 leaks a regex match block per config entry
	 * there, and a workspace repository has no such settings.
	 */
	if (job->location[0] == '/' && !path_exists(job->location)) {
		error = tide_error_set(TIDE_ENOTFOUND, "repository '%s' does not exist", job->location);
		goto done;
	}
	copts.repository = repo;
	copts.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if ((error = git_remote_create_with_opts(&remote, job->location, &copts)) < 0) {
		error = tide_error_git(TIDE_ERROR, "bad URL '%s'", job->location);
		goto done;
	}
	if (git_remote_connect(remote, GIT_DIRECTION_FETCH, &opts.callbacks, &opts.proxy_opts, NULL) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot reach '%s'", job->location);
		goto done;
	}
	if ((error = find_remote_ref(&job->oid, remote, job)) < 0)
		goto done;
	if (git_remote_fetch(remote, &refspecs, &opts, NULL) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot fetch '%s' from '%s'", job->src_ref, job->location);
		goto done;
	}
	/* The advertised tip must now be what the ref points at. */
	if (git_reference_lookup(&ref, repo, job->dst_ref) < 0 ||
	    !git_oid_equal(git_reference_target(ref), &job->oid))
		error = tide_error_set(TIDE_ERROR, "fetch of '%s' from '%s' did not update '%s'",
				       job->src_ref, job->location, job->dst_ref);
done:
	git_reference_free(ref);
	git_remote_free(remote);
	free(spec);
	return error;
}

static void *worker(void *arg)
{
	struct pool *pool = arg;
	git_repository *repo = NULL;

	for (;;) {
		struct fetch_job *job;
		double start;

		pthread_mutex_lock(&pool->lock);
		job = pool->next < pool->njobs ? &pool->jobs[pool->next++] : NULL;
		pthread_mutex_unlock(&pool->lock);
		if (!job)
			break;
		start = time_now();
		if (!repo && git_repository_open_bare(&repo, pool->repo_path) < 0)
			job->error = tide_error_git(TIDE_ERROR, "cannot open '%s'", pool->repo_path);
		else
			job->error = fetch_one(repo, job);
		if (job->error)
			job->message = xstrdup(tide_error_last());
		job->seconds = time_now() - start;
	}
	git_repository_free(repo);
	return NULL;
}

static int add_alternates(struct workspace *ws, struct fetch_job *jobs, size_t njobs)
{
	size_t i;
	int error;

	for (i = 0; i < njobs; i++)
		if ((error = workspace_add_alternate(ws, jobs[i].location)) < 0)
			return error;
	return 0;
}

int fetch_run(struct workspace *ws, struct fetch_job *jobs, size_t njobs, int nthreads)
{
	struct pool pool = { ws->repo_path, jobs, njobs, 0, PTHREAD_MUTEX_INITIALIZER };
	pthread_t *threads;
	int i, started = 0, error;

	if ((error = add_alternates(ws, jobs, njobs)) < 0)
		return error;
	if (nthreads < 1)
		nthreads = 1;
	if ((size_t)nthreads > njobs)
		nthreads = (int)njobs;
	threads = xcalloc((size_t)nthreads + 1, sizeof(*threads));
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&threads[started], NULL, worker, &pool) == 0)
			started++;
	if (!started && njobs)
		worker(&pool);	/* no threads: still fetch, one at a time */
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	/* The main handle must see the new refs and alternates. */
	return workspace_reopen(ws);
}
