#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "fetch.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

enum slot_state { SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE, SLOT_ABANDONED };

/*
 * The pool's own copy of a job.  Workers never touch the caller's jobs:
 * an abandoned worker may still be running after fetch_run() returned.
 * Everything below `state` is read and written under pool->lock.
 */
struct slot {
	struct fetch_job job;	/* strings owned by the pool */
	/*
	 * The location as every message names it, password redacted: each
	 * message is built from this, never from job.location, so none can
	 * carry the password into day.json, whatever path produced it.
	 */
	char *shown;
	struct pool *pool;
	enum slot_state state;
	double started, last_data;
	size_t last_bytes;	/* pack bytes received at last_data */
	char *why;		/* the limit a callback found passed, or NULL */
	int worker;		/* index in pool->threads, -1 in the caller's thread */
};

/* Workers given up while maybe still inside libgit2 (fetch_abandoned_threads()). */
static atomic_int abandoned_threads;

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* signalled when a slot is done */
	char *repo_path;
	struct slot *slots;
	size_t nslots, next, ndone;
	int refs;		/* the caller and every live worker */
	/*
	 * Workers are joined at the end, so none is still tearing down
	 * (libgit2's per-thread state) when the caller goes on; only the
	 * worker of an abandoned slot is detached and left to end alone.
	 */
	pthread_t *threads;
	int *detached;
	size_t nthreads, threads_alloc;
};

struct worker_arg {
	struct pool *pool;
	int index;
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
static int find_remote_ref(git_oid *out, git_remote *remote, const struct slot *slot)
{
	const git_remote_head **heads;
	size_t n, i;

	if (git_remote_ls(&heads, &n, remote) < 0)
		return tide_error_git(TIDE_ERROR, "cannot list refs of '%s'", slot->shown);
	for (i = 0; i < n; i++) {
		if (!strcmp(heads[i]->name, slot->job.src_ref)) {
			git_oid_cpy(out, &heads[i]->oid);
			return 0;
		}
	}
	return tide_error_set(TIDE_ENOTFOUND, "'%s' not found in '%s'", slot->job.src_ref,
			      slot->shown);
}

/* Called with pool->lock held: why the slot must stop now, or NULL. */
static char *slot_over_limit(const struct slot *slot, double now)
{
	const struct fetch_job *job = &slot->job;

	if (job->timeout > 0 && now - slot->started >= job->timeout)
		return xasprintf("'%s': timed out after %.0f s", slot->shown, job->timeout);
	if (job->stall > 0 && now - slot->last_data >= job->stall)
		return xasprintf("'%s': no data for %.0f s, given up", slot->shown, job->stall);
	if (job->deadline > 0 && now >= job->deadline)
		return xasprintf("'%s': fetch-deadline reached after %.0f s", slot->shown,
				 now - slot->started);
	return NULL;
}

/*
 * Every libgit2 callback of a fetch ends here.  Only new pack bytes count
 * as data; the limits are checked on every call, so a server that talks
 * without sending anything is cut off by libgit2 itself, not only by the
 * watchdog.  Nonzero makes libgit2 abort the fetch.
 */
static int on_progress(struct slot *slot, size_t bytes)
{
	struct pool *pool = slot->pool;
	double now = time_now();
	int stop;

	pthread_mutex_lock(&pool->lock);
	if (bytes != slot->last_bytes) {
		slot->last_bytes = bytes;
		slot->last_data = now;
	}
	if (slot->state == SLOT_RUNNING && !slot->why)
		slot->why = slot_over_limit(slot, now);
	stop = slot->state == SLOT_ABANDONED || slot->why;
	pthread_mutex_unlock(&pool->lock);
	return stop ? -1 : 0;
}

static size_t slot_bytes(struct slot *slot)
{
	size_t bytes;

	pthread_mutex_lock(&slot->pool->lock);
	bytes = slot->last_bytes;
	pthread_mutex_unlock(&slot->pool->lock);
	return bytes;
}

static int on_sideband(const char *str, int len, void *payload)
{
	(void)str;
	(void)len;
	return on_progress(payload, slot_bytes(payload));
}

static int on_transfer(const git_indexer_progress *stats, void *payload)
{
	return on_progress(payload, stats->received_bytes);
}

static int on_update_tips(const char *refname, const git_oid *a, const git_oid *b, void *payload)
{
	(void)refname;
	(void)a;
	(void)b;
	return on_progress(payload, slot_bytes(payload));
}

/* Connected and refs listed: that was data from the remote. */
static void mark_data(struct slot *slot)
{
	pthread_mutex_lock(&slot->pool->lock);
	slot->last_data = time_now();
	pthread_mutex_unlock(&slot->pool->lock);
}

static int fetch_one(git_oid *out, git_repository *repo, struct slot *slot)
{
	const struct fetch_job *job = &slot->job;
	git_remote *remote = NULL;
	git_fetch_options opts;
	git_remote_create_options copts;
	char *spec = xasprintf("+%s:%s", job->src_ref, job->dst_ref);
	char *specs[] = { spec };
	git_strarray refspecs = { specs, 1 };
	/* libgit2's own reflog message would be "fetch URL", password and all. */
	char *reflog = xasprintf("fetch %s", slot->shown);
	git_reference *ref = NULL;
	int error;

	git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION);
	git_remote_create_options_init(&copts, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	/* FETCH_HEAD would keep the URL as given, password and all; tide never reads it. */
	opts.update_fetchhead = 0;
	opts.callbacks.sideband_progress = on_sideband;
	opts.callbacks.transfer_progress = on_transfer;
	opts.callbacks.update_tips = on_update_tips;
	opts.callbacks.payload = slot;
	/*
	 * Like git_remote_create_anonymous(), without the url.*.insteadOf
	 * lookup: libgit2 1.5 leaks a regex match block per config entry
	 * there, and a workspace repository has no such settings.
	 */
	if (job->location[0] == '/' && !path_exists(job->location)) {
		error = tide_error_set(TIDE_ENOTFOUND, "repository '%s' does not exist", slot->shown);
		goto done;
	}
	copts.repository = repo;
	copts.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if ((error = git_remote_create_with_opts(&remote, job->location, &copts)) < 0) {
		error = tide_error_git(TIDE_ERROR, "bad URL '%s'", slot->shown);
		goto done;
	}
	if (git_remote_connect(remote, GIT_DIRECTION_FETCH, &opts.callbacks, &opts.proxy_opts, NULL) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot reach '%s'", slot->shown);
		goto done;
	}
	mark_data(slot);
	if ((error = find_remote_ref(out, remote, slot)) < 0)
		goto done;
	if (git_remote_fetch(remote, &refspecs, &opts, reflog) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot fetch '%s' from '%s'", job->src_ref, slot->shown);
		goto done;
	}
	/* The advertised tip must now be what the ref points at. */
	if (git_reference_lookup(&ref, repo, job->dst_ref) < 0 ||
	    !git_oid_equal(git_reference_target(ref), out))
		error = tide_error_set(TIDE_ERROR, "fetch of '%s' from '%s' did not update '%s'",
				       job->src_ref, slot->shown, job->dst_ref);
done:
	git_reference_free(ref);
	git_remote_free(remote);
	free(reflog);
	free(spec);
	return error;
}

static void pool_unref(struct pool *pool)
{
	size_t i;
	int last;

	pthread_mutex_lock(&pool->lock);
	last = --pool->refs == 0;
	pthread_mutex_unlock(&pool->lock);
	if (!last)
		return;
	for (i = 0; i < pool->nslots; i++) {
		fetch_job_clear(&pool->slots[i].job);
		free((char *)pool->slots[i].job.name);
		free((char *)pool->slots[i].job.location);
		free(pool->slots[i].shown);
		free(pool->slots[i].why);
	}
	free(pool->slots);
	free(pool->threads);
	free(pool->detached);
	free(pool->repo_path);
	pthread_cond_destroy(&pool->cond);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

/* Called with pool->lock held: a queued slot reached its deadline. */
static int queued_too_late(struct pool *pool, struct slot *slot, double now)
{
	if (slot->state != SLOT_QUEUED || slot->job.deadline <= 0 || now < slot->job.deadline)
		return 0;
	slot->state = SLOT_DONE;
	slot->job.error = TIDE_ETIMEOUT;
	slot->job.message = xasprintf("'%s': fetch-deadline reached before the fetch started",
				      slot->shown);
	pool->ndone++;
	pthread_cond_signal(&pool->cond);
	return 1;
}

static struct slot *take_slot(struct pool *pool, int index)
{
	struct slot *slot = NULL;

	pthread_mutex_lock(&pool->lock);
	/* Slots that reached their deadline in the queue are done already. */
	while (pool->next < pool->nslots &&
	       (pool->slots[pool->next].state != SLOT_QUEUED ||
		queued_too_late(pool, &pool->slots[pool->next], time_now())))
		pool->next++;
	if (pool->next < pool->nslots) {
		slot = &pool->slots[pool->next++];
		slot->state = SLOT_RUNNING;
		slot->worker = index;
		slot->started = slot->last_data = time_now();
	}
	pthread_mutex_unlock(&pool->lock);
	return slot;
}

/*
 * A failed fetch's message for the record.  tide's own messages name
 * slot->shown; libgit2's may quote the URL as given, which error.c's
 * redaction finds unless its password holds a character that also ends
 * a URL in running text (a quote: RFC 3986 allows it).  Every copy of the
 * location is replaced here first, so that case is covered too.
 */
static char *slot_message(const struct slot *slot, const char *msg)
{
	struct buf raw = BUF_INIT, out = BUF_INIT;
	const char *p = msg, *hit;
	size_t n = strlen(slot->job.location);

	while (n && (hit = strstr(p, slot->job.location))) {
		buf_put(&raw, p, (size_t)(hit - p));
		buf_puts(&raw, slot->shown);
		p = hit + n;
	}
	buf_puts(&raw, p);
	text_redact(&out, buf_cstr(&raw));
	buf_release(&raw);
	return buf_detach(&out);
}

/* Store a result unless the slot was abandoned meanwhile; 1 if abandoned. */
static int finish_slot(struct slot *slot, int error, const git_oid *oid)
{
	struct pool *pool = slot->pool;
	int abandoned;

	pthread_mutex_lock(&pool->lock);
	abandoned = slot->state == SLOT_ABANDONED;
	if (!abandoned) {
		/* libgit2's message for a cancelled fetch does not say why. */
		slot->job.error = error && slot->why ? TIDE_ETIMEOUT : error;
		slot->job.message = !error ? NULL :
			slot->why ? xstrdup(slot->why) : slot_message(slot, tide_error_last());
		git_oid_cpy(&slot->job.oid, oid);
		slot->job.seconds = time_now() - slot->started;
		slot->state = SLOT_DONE;
		pool->ndone++;
		pthread_cond_signal(&pool->cond);
	}
	pthread_mutex_unlock(&pool->lock);
	return abandoned;
}

static void *worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct pool *pool = wa->pool;
	int index = wa->index;
	git_repository *repo = NULL;
	struct slot *slot;

	free(wa);
	while ((slot = take_slot(pool, index))) {
		git_oid tip;
		int error;

		memset(&tip, 0, sizeof(tip));
		if (!repo && git_repository_open_bare(&repo, pool->repo_path) < 0)
			error = tide_error_git(TIDE_ERROR, "cannot open '%s'", pool->repo_path);
		else
			error = fetch_one(&tip, repo, slot);
		/* Abandoned: the caller started another worker for the rest. */
		if (finish_slot(slot, error, &tip))
			break;
	}
	git_repository_free(repo);
	pool_unref(pool);
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

static struct pool *pool_new(const char *repo_path, const struct fetch_job *jobs, size_t njobs)
{
	struct pool *pool = xcalloc(1, sizeof(*pool));
	size_t i;

	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->cond, NULL);
	pool->repo_path = xstrdup(repo_path);
	pool->slots = xcalloc(njobs + 1, sizeof(*pool->slots));
	pool->nslots = njobs;
	pool->refs = 1;
	for (i = 0; i < njobs; i++) {
		struct slot *slot = &pool->slots[i];

		fetch_job_init(&slot->job, NULL, NULL, jobs[i].src_ref, jobs[i].dst_ref);
		slot->job.location = xstrdup(jobs[i].location);
		slot->shown = url_redact(jobs[i].location);
		slot->job.name = xstrdup(jobs[i].name);
		slot->job.timeout = jobs[i].timeout;
		slot->job.stall = jobs[i].stall;
		slot->job.deadline = jobs[i].deadline;
		slot->pool = pool;
	}
	return pool;
}

/* Called with pool->lock held. */
static int start_worker(struct pool *pool)
{
	struct worker_arg *wa = xcalloc(1, sizeof(*wa));
	size_t i = pool->nthreads;

	array_grow(&pool->threads, &pool->threads_alloc, i + 1, sizeof(*pool->threads));
	pool->detached = xrealloc(pool->detached, pool->threads_alloc * sizeof(*pool->detached));
	wa->pool = pool;
	wa->index = (int)i;
	pool->refs++;
	if (pthread_create(&pool->threads[i], NULL, worker, wa) != 0) {
		pool->refs--;
		free(wa);
		return 0;
	}
	pool->detached[i] = 0;
	pool->nthreads++;
	return 1;
}

static void join_workers(struct pool *pool)
{
	size_t i, n;

	pthread_mutex_lock(&pool->lock);
	n = pool->nthreads;	/* no worker starts once every slot is done */
	pthread_mutex_unlock(&pool->lock);
	for (i = 0; i < n; i++)
		if (!pool->detached[i])
			pthread_join(pool->threads[i], NULL);
}

/* Called with pool->lock held: the caller stops waiting for a running slot. */
static void abandon_slot(struct pool *pool, struct slot *slot, char *why, double now)
{
	slot->state = SLOT_ABANDONED;
	if (slot->worker >= 0) {
		pthread_detach(pool->threads[slot->worker]);
		pool->detached[slot->worker] = 1;
		atomic_fetch_add(&abandoned_threads, 1);
	}
	slot->job.error = TIDE_ETIMEOUT;
	slot->job.message = why;
	slot->job.seconds = now - slot->started;
	pool->ndone++;
	if (pool->next < pool->nslots)
		start_worker(pool);
}

/*
 * Called with pool->lock held: give up slots past a limit, even when
 * their worker is blocked in a read and no callback runs, and queued
 * slots past their deadline.
 */
static void expire_slots(struct pool *pool)
{
	double now = time_now();
	size_t i;

	for (i = 0; i < pool->nslots; i++) {
		struct slot *slot = &pool->slots[i];
		char *why;

		if (slot->state == SLOT_RUNNING && (why = slot_over_limit(slot, now)))
			abandon_slot(pool, slot, why, now);
		else
			queued_too_late(pool, slot, now);
	}
}

int fetch_abandoned_threads(void)
{
	return atomic_load(&abandoned_threads);
}

static void wait_for_slots(struct pool *pool)
{
	pthread_mutex_lock(&pool->lock);
	while (pool->ndone < pool->nslots) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 250 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&pool->cond, &pool->lock, &ts);
		expire_slots(pool);
	}
	pthread_mutex_unlock(&pool->lock);
}

static void copy_results(struct fetch_job *jobs, struct pool *pool)
{
	size_t i;

	pthread_mutex_lock(&pool->lock);
	for (i = 0; i < pool->nslots; i++) {
		const struct fetch_job *done = &pool->slots[i].job;

		jobs[i].error = done->error;
		jobs[i].message = done->message ? xstrdup(done->message) : NULL;
		git_oid_cpy(&jobs[i].oid, &done->oid);
		jobs[i].seconds = done->seconds;
	}
	pthread_mutex_unlock(&pool->lock);
}

int fetch_run(struct workspace *ws, struct fetch_job *jobs, size_t njobs, int nthreads)
{
	struct pool *pool;
	int i, started = 0, error;

	if ((error = add_alternates(ws, jobs, njobs)) < 0)
		return error;
	if (nthreads < 1)
		nthreads = 1;
	if ((size_t)nthreads > njobs)
		nthreads = (int)njobs;
	pool = pool_new(ws->repo_path, jobs, njobs);
	pthread_mutex_lock(&pool->lock);
	for (i = 0; i < nthreads; i++)
		started += start_worker(pool);
	if (!started && njobs)
		pool->refs++;
	pthread_mutex_unlock(&pool->lock);
	if (!started && njobs) {
		struct worker_arg *wa = xcalloc(1, sizeof(*wa));

		wa->pool = pool;
		wa->index = -1;
		worker(wa);	/* no threads: still fetch, one at a time, without timeouts */
	}
	wait_for_slots(pool);
	join_workers(pool);
	copy_results(jobs, pool);
	pool_unref(pool);
	/* The main handle must see the new refs and alternates. */
	return workspace_reopen(ws);
}
