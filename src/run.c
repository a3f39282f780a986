/*
 * One integration day (see run.h and docs/design.md "The day's history").
 *
 *   run_day
 *     run_setup          date, tag, the temporary day directory
 *     run_fetch          every git tree and the base, in parallel
 *     run_resolve_base   the base tag's commit becomes the state
 *     run_tree           per tree: tip, contained?, merge, commit or conflict
 *       run_prepare_quilt    quilt/mmotm trees become commits
 *       run_handle_conflict  what a conflict records
 *     run_final_commit   Next/ files and localversion-next
 *     run_stage_build, run_stage_boot   hook points for later stages
 *     run_stage_reproducer   reproducer.sh and metadata.json of the day
 *     run_install        day directory, refs/heads/master, then the tag
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "conf.h"
#include "boot.h"
#include "build.h"
#include "day.h"
#include "diffstat.h"
#include "event.h"
#include "error.h"
#include "history.h"
#include "fetch.h"
#include "fsck.h"
#include "graph.h"
#include "mailmap.h"
#include "merge.h"
#include "nextfiles.h"
#include "quilt.h"
#include "report.h"
#include "rerere.h"
#include "reproducer.h"
#include "run.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

#define MAX_SIDE_COMMITS 50	/* commits recorded per side of a conflict */
#define MAX_WALK 5000		/* commits examined per side */
/* The defaults of man/trees.conf.5, in seconds. */
#define FETCH_TIMEOUT 1800	/* a git tree's whole fetch ("timeout=") */
#define FETCH_STALL 300		/* no data, git and quilt ("stall=") */
#define QUILT_TIMEOUT 300	/* one quilt file's transfer ("timeout=") */

/* A merge made today: bisect and reports map commits to trees with it. */
struct merged_tree {
	const char *name;
	git_oid tip;
};

struct run {
	struct workspace *ws;
	git_repository *repo;
	const struct trees_conf *conf;
	const struct run_opts *opts;
	struct run_summary *sum;
	struct day *day;
	char *days_dir, *tmp_dir;
	git_signature *sig;
	git_oid base, state;
	struct fetch_job *jobs;	/* [0] the base, then the git trees */
	size_t njobs;
	/*
	 * "#tide fetch-deadline=": the git fetch stage's end (a time_now(),
	 * 0: none), and the fetching time spent so far, which quilt trees,
	 * fetched one by one later, add to.
	 */
	double fetch_deadline, fetch_spent;
	struct merged_tree *merged;
	size_t nmerged;
	size_t ndone;
	int nmerges;		/* merge attempts, for TIDE_TEST_DIE_AFTER */
	struct buf mergelog;
	const char *version_from;	/* set while merging a tree's previous version */
	struct fsck_seen fsck;	/* tree objects found good, DIR/repo.git/tide-fsck-trees */
	git_mailmap *mailmap;	/* the conflicting tree's .mailmap, while its sides are recorded */
};

static void run_event(struct run *r, enum event_kind kind, enum event_severity severity,
		      const char *tree, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void run_event(struct run *r, enum event_kind kind, enum event_severity severity,
		      const char *tree, const char *fmt, ...)
{
	struct buf raw = BUF_INIT, line = BUF_INIT;
	struct event ev;
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&raw, fmt, ap);
	va_end(ap);
	/* Events name trees and quote messages: no URL password in the log or on screen. */
	text_redact(&line, buf_cstr(&raw));
	buf_release(&raw);
	workspace_log(r->ws, "%s", line.ptr);
	ev.kind = kind;
	ev.severity = severity;
	ev.tree = tree;
	ev.done = r->ndone;
	ev.total = r->conf->ntrees;
	ev.message = line.ptr;
	event_emit(&r->opts->events, &ev);
	buf_release(&line);
}

/*
 * Tests kill the run at a chosen point (TIDE_TEST_DIE_AFTER=merge:2,
 * fetch, commit, install) to check that nothing earlier is damaged.
 */
static void run_die_point(const char *stage, int n)
{
	const char *want = getenv("TIDE_TEST_DIE_AFTER");
	char *here;

	if (!want)
		return;
	here = n ? xasprintf("%s:%d", stage, n) : xstrdup(stage);
	if (!strcmp(want, here))
		kill(getpid(), SIGKILL);	/* as abrupt as kill -9 from outside */
	free(here);
}

void run_today(char *out)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(out, 11, "%Y-%m-%d", &tm);
}

static char *iso_now(void)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(stamp);
}

static char *oid_str(const git_oid *oid)
{
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), oid);
	return xstrdup(hex);
}

static void oid_abbrev(char *out, const git_oid *oid)
{
	git_oid_tostr(out, 13, oid);
}

/* ---- setup ---- */

/* Unfinished day directories of killed runs: the lock says none is ours. */
static void remove_stale_temporaries(const char *days_dir)
{
	DIR *d = opendir(days_dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (str_starts_with(e->d_name, ".tmp-")) {
			char *path = path_join(days_dir, e->d_name);

			rm_rf(path);	/* best effort: a leftover only costs space */
			free(path);
		}
	}
	closedir(d);
}

static int run_setup(struct run *r)
{
	const char *date = r->opts->date;
	int error;

	if (!date) {
		run_today(r->sum->date);
	} else {
		if (!day_date_is_valid(date))
			return tide_error_set(TIDE_EINVAL, "bad date '%s' (expected YYYY-MM-DD)", date);
		snprintf(r->sum->date, sizeof(r->sum->date), "%s", date);
	}
	snprintf(r->sum->tag, sizeof(r->sum->tag), "next-%.4s%.2s%.2s",
		 r->sum->date, r->sum->date + 5, r->sum->date + 8);
	if (!r->conf->base_url)
		return tide_error_set(TIDE_EINVAL, "%s: no base: add '#tide<TAB>base<TAB>URL#TAG'",
				      r->conf->path);
	r->days_dir = workspace_days_dir(r->ws->dir);
	r->tmp_dir = xasprintf("%s/.tmp-%s-%ld", r->days_dir, r->sum->date, (long)getpid());
	remove_stale_temporaries(r->days_dir);
	if ((error = mkdir_p(r->tmp_dir, 0777)) < 0)
		return error;
	if (git_signature_default(&r->sig, r->repo) < 0 &&
	    git_signature_now(&r->sig, "tide", "tide@localhost") < 0)
		return tide_error_git(TIDE_ERROR, "cannot make a signature");
	r->day = day_new();
	r->day->date = xstrdup(r->sum->date);
	r->day->tag = xstrdup(r->sum->tag);
	r->day->started = iso_now();
	r->day->base_url = xstrdup(r->conf->base_url);
	r->day->base_tag = xstrdup(r->conf->base_tag);
	return 0;
}

/* ---- fetch ---- */

static struct fetch_job *job_for_tree(struct run *r, const struct tree *t)
{
	size_t i;

	for (i = 1; i < r->njobs; i++)
		if (!strcmp(r->jobs[i].name, t->name))
			return &r->jobs[i];
	return NULL;
}

/* "#tide NAME timeout=SECONDS stall=SECONDS" (checked by conf.c), and the stage's deadline. */
static void set_fetch_limits(struct run *r, struct fetch_job *job, const struct tree *t)
{
	job->timeout = (double)(t ? tree_opt_seconds(t, "timeout", FETCH_TIMEOUT) : FETCH_TIMEOUT);
	job->stall = (double)(t ? tree_opt_seconds(t, "stall", FETCH_STALL) : FETCH_STALL);
	job->deadline = r->fetch_deadline;
}

static int run_fetch(struct run *r)
{
	const struct trees_conf *conf = r->conf;
	char *tagref = xasprintf("refs/tags/%s", conf->base_tag);
	double start;
	size_t i;
	int error;

	r->jobs = xcalloc(conf->ntrees + 1, sizeof(*r->jobs));
	if (conf->fetch_deadline)
		r->fetch_deadline = time_now() + (double)conf->fetch_deadline;
	fetch_job_init(&r->jobs[r->njobs], "base", conf->base_location, tagref, tagref);
	set_fetch_limits(r, &r->jobs[r->njobs++], NULL);
	for (i = 0; i < conf->ntrees; i++) {
		const struct tree *t = &conf->trees[i];
		char *src, *dst;

		if (t->type != TREE_GIT)
			continue;
		src = xasprintf("refs/heads/%s", t->branch);
		dst = xasprintf("refs/remotes/%s/%s", t->name, t->branch);
		fetch_job_init(&r->jobs[r->njobs], t->name, t->location, src, dst);
		set_fetch_limits(r, &r->jobs[r->njobs++], t);
		free(src);
		free(dst);
	}
	free(tagref);
	run_event(r, EVENT_FETCH, EVENT_PROGRESS, NULL, "fetching %zu repositories (%d at a time)", r->njobs, r->opts->jobs);
	start = time_now();
	if ((error = fetch_run(r->ws, r->jobs, r->njobs, r->opts->jobs)) < 0)
		return error;
	r->fetch_spent = time_now() - start;
	r->repo = r->ws->repo;	/* reopened by fetch_run */
	for (i = 0; i < r->njobs; i++) {
		if (r->jobs[i].error)
			run_event(r, EVENT_FETCH, EVENT_PROBLEM, r->jobs[i].name, "fetch %s failed: %s", r->jobs[i].name, r->jobs[i].message);
		else
			run_event(r, EVENT_FETCH, EVENT_PROGRESS, r->jobs[i].name, "fetched %s (%.2fs)", r->jobs[i].name, r->jobs[i].seconds);
	}
	run_die_point("fetch", 0);
	return 0;
}

/* The name reports use (src/report.h), fixed for the day in its record. */
static void record_project(struct run *r)
{
	char *name = report_project_name(r->conf, r->repo, &r->base, r->ws->dir);

	if (!r->day->extra)
		r->day->extra = json_object();
	json_object_set_new(r->day->extra, "project", json_text(name));
	free(name);
}

/*
 * The commit-graph of the day's refs, written after the fetch: merge
 * bases (libgit2) and the conflict walks (graph.c) read parents and
 * generation numbers from it instead of parsing commits.  Without it the
 * day is slower, not wrong.
 */
static int run_commit_graph(struct run *r)
{
	struct graph_refresh_result g;
	int error;

	if (graph_refresh(&g, r->ws->repo_path) < 0) {
		run_event(r, EVENT_FETCH, EVENT_WARNING, NULL, "commit-graph not written, merging without it: %s", tide_error_last());
		tide_error_clear();
		return 0;
	}
	if (g.removed_git)
		run_event(r, EVENT_FETCH, EVENT_INFO, NULL, "commit-graph of git's removed from the workspace (libgit2 cannot use it safely)");
	if (g.what == GRAPH_UP_TO_DATE && !g.removed_git)
		return 0;
	if (g.what == GRAPH_REBUILT)
		run_event(r, EVENT_FETCH, EVENT_WARNING, NULL, "commit-graph on disk %s, not used: written again (%.2fs)", g.why,
			  g.seconds);
	else if (g.what == GRAPH_WRITTEN)
		run_event(r, EVENT_FETCH, EVENT_INFO, NULL, "commit-graph written (%.2fs)", g.seconds);
	if ((error = workspace_reopen(r->ws)) < 0)
		return error;
	r->repo = r->ws->repo;
	return 0;
}

static int run_resolve_base(struct run *r)
{
	const struct fetch_job *job = &r->jobs[0];
	git_object *obj = NULL, *commit = NULL;
	char *ref = xasprintf("refs/tags/%s", r->conf->base_tag);
	int error = 0;

	if (git_revparse_single(&obj, r->repo, ref) < 0) {
		if (job->error == TIDE_ENOTFOUND)
			error = tide_error_set(TIDE_ENOTFOUND, "base tag '%s' not found in '%s'",
					       r->conf->base_tag, r->conf->base_url);
		else
			error = tide_error_set(TIDE_EINVAL, "cannot fetch the base: %s",
					       job->message ? job->message : "tag missing");
		goto done;
	}
	if (job->error)	/* an older copy of the tag is still usable */
		run_event(r, EVENT_FETCH, EVENT_WARNING, NULL, "using the base tag '%s' fetched earlier", r->conf->base_tag);
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		error = tide_error_git(TIDE_EINVAL, "base tag '%s' does not name a commit",
				       r->conf->base_tag);
		goto done;
	}
	git_oid_cpy(&r->base, git_object_id(commit));
	git_oid_cpy(&r->state, &r->base);
	r->day->base_commit = oid_str(&r->base);
	record_project(r);
done:
	git_object_free(commit);
	git_object_free(obj);
	free(ref);
	return error;
}

/*
 * The base is checked like every tree (once: its trees are then in the
 * set), but a refused base leaves nothing to make a day from.
 */
static int run_check_base(struct run *r)
{
	char *path = workspace_fsck_trees(r->ws->dir);
	char abbrev[13];
	int error;

	fsck_seen_load(&r->fsck, path);
	free(path);
	if ((error = fsck_tree(&r->fsck, r->repo, &r->base)) == TIDE_EINVAL) {
		oid_abbrev(abbrev, &r->base);
		tide_error_wrap(error, "base tag '%s' commit %s", r->conf->base_tag, abbrev);
	}
	return error;
}

/* ---- one tree ---- */

static int commit_exists(git_repository *repo, const git_oid *id)
{
	git_commit *c = NULL;
	int ok = git_commit_lookup(&c, repo, id) == 0;

	git_commit_free(c);
	return ok;
}

/*
 * Every commit that can reach a merge is checked first (src/fsck.h): a
 * tree entry named "..", "a/b" or ".git" would otherwise be written
 * outside DIR/build/src by the checkout, or into a resolution worktree.
 * The set of trees found good makes this a walk of today's new trees.
 * TIDE_EINVAL (message: the path and why) when the commit is refused.
 */
static int run_fsck(struct run *r, const git_oid *commit)
{
	return fsck_tree(&r->fsck, r->repo, commit);
}

/*
 * A tree that could not be fetched is merged as it was on the last day
 * it was merged, if its commit is still in the repository.
 */
static int find_previous_sha(struct run *r, const struct tree *t, git_oid *out, char **from)
{
	char **dates = NULL;
	int n = day_list(&dates, r->days_dir), i, found = 0;

	for (i = n - 1; i >= 0 && !found; i--) {
		char *path = workspace_day_json_in(r->days_dir, dates[i]);
		struct day *d = NULL;
		const struct day_tree *dt;

		if (strcmp(dates[i], r->sum->date) <= 0 && day_load(&d, path) == 0 &&
		    (dt = day_find_tree(d, t->name)) && dt->sha && dt->status &&
		    (!strcmp(dt->status, "merged") || !strcmp(dt->status, "up-to-date") ||
		     !strcmp(dt->status, "previous")) &&
		    git_oid_fromstr(out, dt->sha) == 0 &&
		    commit_exists(r->repo, out)) {
			*from = xstrdup(d->tag ? d->tag : dates[i]);
			found = 1;
		}
		day_free(d);
		free(path);
	}
	day_list_free(dates, n > 0 ? n : 0);
	tide_error_clear();
	return found;
}

/* A file named in trees.conf: as given when absolute, else relative to trees.conf. */
static char *conf_relative_path(const struct run *r, const char *name)
{
	const char *slash = strrchr(r->conf->path, '/');

	if (name[0] == '/' || !slash)
		return xstrdup(name);
	return xasprintf("%.*s/%s", (int)(slash - r->conf->path), r->conf->path, name);
}

/*
 * "#tide NAME fuzz=N": hunks may ignore up to N outer context lines, as
 * patch --fuzz; exact (0) unless a tree asks, as dpkg-source and git am.
 */
/*
 * Quilt and mmotm trees: the series applied onto the base as commits
 * (refs/quilt/<tree>).  The one place a quilt tree becomes a commit.
 */
/* *applying: 1 when the files were fetched and the series did not apply. */
static int run_prepare_quilt(struct run *r, const struct tree *t, git_oid *tip, int *applying)
{
	struct quilt_opts qopts = QUILT_OPTS_INIT;
	struct quilt_stats stats = { 0 };
	char *cachedir = workspace_quilt_tree(r->ws->dir, t->name);
	const char *cainfo = tree_opt(t, "cainfo");
	char *ca = NULL;
	double start;
	int error;

	/* "#tide NAME cainfo=FILE": CA bundle for https://, relative to trees.conf. */
	if (cainfo)
		qopts.cainfo = ca = conf_relative_path(r, cainfo);

	/* "#tide NAME timeout= stall= max-size=", checked by conf.c. */
	qopts.timeout = tree_opt_seconds(t, "timeout", QUILT_TIMEOUT);
	qopts.low_speed_time = tree_opt_seconds(t, "stall", FETCH_STALL);
	qopts.max_size = tree_opt_size(t, "max-size", QUILT_MAX_SIZE);
	if (r->conf->fetch_deadline)
		qopts.deadline = time_now() + (double)r->conf->fetch_deadline - r->fetch_spent;
	start = time_now();
	/* "fuzz=N", 0 to 10, checked by conf.c. */
	qopts.fuzz = tree_opt(t, "fuzz") ? atoi(tree_opt(t, "fuzz")) : 0;
	error = quilt_prepare(tip, &stats, r->repo, t->name, t->location, cachedir,
			      &r->base, &qopts);
	r->fetch_spent += time_now() - start;
	*applying = error < 0 && stats.fetched;
	run_event(r, EVENT_FETCH, EVENT_INFO, t->name, "%s: quilt series: %zu requests, %zu downloaded, %zu not modified",
		  t->name, stats.requests, stats.downloaded, stats.not_modified);
	free(ca);
	free(cachedir);
	return error;
}

/* Find the tip to merge; 0 with dt->status set to fetch-failed when there is none. */
static int run_tree_tip(struct run *r, const struct tree *t, struct day_tree *dt,
			git_oid *tip, int *have)
{
	const struct fetch_job *job = t->type == TREE_GIT ? job_for_tree(r, t) : NULL;
	double start = time_now();
	char *from = NULL;
	int error = 0, applying = 0;

	*have = 0;
	if (job) {
		dt->fetch_seconds = job->seconds;
		if (!job->error)
			git_oid_cpy(tip, &job->oid);
		else
			dt->fetch_error = xstrdup(job->message);
	} else {
		error = run_prepare_quilt(r, t, tip, &applying);
		dt->fetch_seconds = time_now() - start;
		if (error < 0)
			dt->fetch_error = xstrdup(tide_error_last());
	}
	if (!dt->fetch_error) {
		dt->fetch_status = xstrdup("ok");
		*have = 1;
	} else if (find_previous_sha(r, t, tip, &from)) {
		dt->fetch_status = xstrdup("stale");
		run_event(r, EVENT_FETCH, EVENT_WARNING, t->name, "%s: %s, using its commit of %s", t->name,
			  applying ? "a patch failed to apply" : "fetch failed", from);
		if (applying)
			r->sum->unapplied++;
		else
			r->sum->stale++;
		*have = 1;
	} else {
		dt->fetch_status = xstrdup("failed");
		dt->status = xstrdup(applying ? "patch-failed" : "fetch-failed");
	}
	free(from);
	return 0;
}

/* ---- conflicts ---- */

/* Decoded from the commit's encoding: a Latin-1 subject must not vanish from a report. */
static char *commit_subject(const git_commit *c)
{
	return commit_summary_utf8((git_commit *)c);
}

/* The author as the tree's .mailmap names them today. */
static char *commit_author(const struct run *r, const git_commit *c)
{
	return commit_author_utf8(c, r->mailmap);
}

static void add_day_hunk(void *payload, const char *hunk)
{
	day_conflict_add_hunk(payload, hunk);
}

struct side_walk {
	struct run *r;
	struct day_tree *dt;
	int theirs;
};

/* A commit of one side that changed conflicted paths: record it under each. */
static int record_touching(const git_oid *id, int owner, const unsigned char *changed,
			   void *payload)
{
	struct side_walk *s = payload;
	git_commit *c = NULL;
	size_t i;

	if (git_commit_lookup(&c, s->r->repo, id) < 0) {
		git_error_clear();
		return 0;
	}
	for (i = 0; i < s->dt->nconflicts; i++) {
		struct day_conflict *dc = &s->dt->conflicts[i];
		struct day_commit *rc;

		if (!changed[i] || (s->theirs ? dc->ntheirs : dc->nours) >= MAX_SIDE_COMMITS)
			continue;
		rc = day_conflict_add_commit(dc, s->theirs);
		rc->id = oid_str(id);
		rc->subject = commit_subject(c);
		rc->author = commit_author(s->r, c);
		/* owner 0 is the day's base, i > 0 the tip of the i-th merge of the day */
		if (!s->theirs)
			rc->tree = xstrdup(owner > 0 ? s->r->merged[owner - 1].name : "mainline");
	}
	git_commit_free(c);
	return 0;
}

/*
 * The commits of one side (the day's state, or the tree's tip) since the
 * merge bases that changed the conflicted paths: one walk simplified by
 * those paths (graph.h), so the earlier merges of the day that did not
 * touch them cost a look at their trees, and none of them is walked again
 * for each tree.  Every merge base is hidden: a commit below any of them
 * is in both histories, and belongs to neither side.  On the state's side
 * the walk also says which of today's merges (or mainline) brought each
 * commit.
 */
static void record_side(struct run *r, struct day_tree *dt, const git_oid *tip,
			const git_oidarray *bases, int theirs)
{
	struct side_walk s = { r, dt, theirs };
	struct graph_walk w;
	const char **paths = xcalloc(dt->nconflicts ? dt->nconflicts : 1, sizeof(*paths));
	git_oid *owners = NULL;
	size_t i;

	for (i = 0; i < dt->nconflicts; i++)
		paths[i] = dt->conflicts[i].path;
	memset(&w, 0, sizeof(w));
	w.tip = tip;
	w.bottoms = bases->ids;
	w.nbottoms = bases->count;
	w.paths = paths;
	w.npaths = dt->nconflicts;
	w.max_commits = MAX_WALK;
	w.max_per_path = MAX_SIDE_COMMITS;
	if (!theirs) {
		owners = xcalloc(r->nmerged + 1, sizeof(*owners));
		git_oid_cpy(&owners[0], &r->base);
		for (i = 0; i < r->nmerged; i++)
			git_oid_cpy(&owners[i + 1], &r->merged[i].tip);
		w.owners = owners;
		w.nowners = r->nmerged + 1;
	}
	if (graph_walk_touching(r->repo, &w, record_touching, &s) < 0)
		run_event(r, EVENT_CONFLICT, EVENT_WARNING, dt->name,
			  "%s: cannot find the commits of the conflict: %s", dt->name,
			  tide_error_last());
	tide_error_clear();
	free(owners);
	free(paths);
}

/* ---- conflicts: the commits that touched the conflicting lines ---- */

/* Is line (no newline) a whole line of one side of dc's hunks? */
static int line_in_hunks(const struct day_conflict *dc, const char *line, size_t len)
{
	size_t k;
	const char *p, *nl;

	if (len == 0 || (len >= 7 && (!memcmp(line, "<<<<<<<", 7) || !memcmp(line, ">>>>>>>", 7) ||
				      !memcmp(line, "=======", 7))))
		return 0;
	for (k = 0; k < dc->nhunks; k++)
		for (p = dc->hunks[k]; p && *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl)
				nl = p + strlen(p);
			if ((size_t)(nl - p) == len && !memcmp(p, line, len))
				return 1;
			if (!*nl)
				break;
		}
	return 0;
}

/* Does commit id add or remove, in dc's file, a line of the conflict? */
static int commit_touches_hunks(struct run *r, const char *id, const struct day_conflict *dc)
{
	git_commit *c = NULL, *parent = NULL;
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	git_patch *patch = NULL;
	git_diff_options dopts;
	const git_diff_line *line;
	char *paths[1] = { dc->path };
	git_oid oid;
	size_t h, l, len;
	int hit = 0;

	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	dopts.pathspec.strings = paths;
	dopts.pathspec.count = 1;
	dopts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	if (git_oid_fromstr(&oid, id) < 0 || git_commit_lookup(&c, r->repo, &oid) < 0 ||
	    git_commit_parent(&parent, c, 0) < 0 || git_commit_tree(&a, parent) < 0 ||
	    git_commit_tree(&b, c) < 0 || git_diff_tree_to_tree(&diff, r->repo, a, b, &dopts) < 0 ||
	    git_diff_num_deltas(diff) < 1 || git_patch_from_diff(&patch, diff, 0) < 0 || !patch)
		goto done;
	for (h = 0; h < git_patch_num_hunks(patch) && !hit; h++)
		for (l = 0; l < (size_t)git_patch_num_lines_in_hunk(patch, h) && !hit; l++) {
			if (git_patch_get_line_in_hunk(&line, patch, h, l) < 0 ||
			    (line->origin != '+' && line->origin != '-'))
				continue;
			len = line->content_len;
			if (len && line->content[len - 1] == '\n')
				len--;
			hit = line_in_hunks(dc, line->content, len);
		}
done:
	tide_error_clear();
	git_patch_free(patch);
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(parent);
	git_commit_free(c);
	return hit;
}

/*
 * Keep only the commits of a side that changed the conflicting lines
 * themselves (blame-like); if none did, keep every commit touching the file.
 */
static void prune_side(struct run *r, const struct day_conflict *dc, struct day_commit *v,
		       size_t *n)
{
	unsigned char *hit = xcalloc(*n ? *n : 1, 1);
	size_t i, kept = 0, nhits = 0;

	for (i = 0; i < *n; i++)
		nhits += hit[i] = (unsigned char)commit_touches_hunks(r, v[i].id, dc);
	for (i = 0; i < *n && nhits; i++) {
		if (hit[i]) {
			v[kept++] = v[i];
			continue;
		}
		free(v[i].id);
		free(v[i].subject);
		free(v[i].author);
		free(v[i].tree);
	}
	if (nhits)
		*n = kept;
	free(hit);
}

static void prune_to_conflict_lines(struct run *r, struct day_tree *dt)
{
	size_t i;

	for (i = 0; i < dt->nconflicts; i++) {
		struct day_conflict *dc = &dt->conflicts[i];

		prune_side(r, dc, dc->ours, &dc->nours);
		prune_side(r, dc, dc->theirs, &dc->ntheirs);
	}
}

/* ---- conflicts: recorded resolutions, the previous version, fixups ---- */

static json_t *tree_extra(struct day_tree *dt)
{
	if (!dt->extra)
		dt->extra = json_object();
	return dt->extra;
}

static int run_merge_clean(struct run *r, const struct tree *t, struct day_tree *dt,
			   const struct merge_result *res, const git_oid *tip);
static char *tree_ref_label(const struct tree *t);

static void note_outcomes(struct day_tree *dt, const struct rerere_outcome *o, size_t n,
			  struct buf *outcome)
{
	json_t *list = json_array(), *errors = json_array();
	size_t i;

	for (i = 0; i < n; i++) {
		if (o[i].resolved) {
			json_array_append_new(list, json_pack("{s:o, s:o, s:o}",
							      "path", json_text(o[i].path),
							      "id", json_text(o[i].id),
							      "diff", json_text(o[i].diff)));
			buf_printf(outcome, "Resolved '%s' using previous resolution.\n", o[i].path);
		} else if (!o[i].missing) {
			json_array_append_new(errors, json_text_printf("%s: %s", o[i].path,
								       o[i].error));
		}
	}
	if (json_array_size(errors))
		json_object_set(tree_extra(dt), "resolution_errors", errors);
	if (json_array_size(list))
		json_object_set(tree_extra(dt), "resolutions", list);
	json_decref(list);
	json_decref(errors);
}

/*
 * Replay recorded resolutions (DIR/rr-cache, git rerere's layout) on every
 * conflicted file; when all resolve, the tree is merged with them.
 * Returns 1 when merged, 0 when not, or a TIDE_E* code.
 */
static int run_try_recorded(struct run *r, const struct tree *t, struct day_tree *dt,
			    const struct merge_result *res, const git_oid *tip, struct buf *outcome)
{
	char *store = workspace_rr_cache(r->ws->dir);
	struct rerere_outcome *o = NULL;
	struct merge_result resolved = *res;	/* only .tree differs */
	size_t n = 0;
	int rc;

	rc = rerere_resolve_merge(&resolved.tree, &o, &n, r->repo, &res->tree, res->conflicts,
				  res->nconflicts, store);
	if (rc < 0) {	/* a broken store must not stop the day */
		json_object_set_new(tree_extra(dt), "resolution_errors",
				    json_pack("[o]", json_text(tide_error_last())));
		rc = 0;
	}
	note_outcomes(dt, o, n, outcome);
	if (rc == 1) {
		json_object_set_new(tree_extra(dt), "handled", json_text("recorded"));
		nextfiles_log_outcome(&r->mergelog, outcome->ptr);
		run_event(r, EVENT_CONFLICT, EVENT_INFO, t->name, "%s: conflict resolved from recorded resolutions", t->name);
		if ((rc = run_merge_clean(r, t, dt, &resolved, tip)) == 0)
			rc = 1;
	}
	rerere_outcomes_free(o, n);
	free(store);
	return rc;
}

/*
 * No resolution: merge the tree as it was on the last day it merged, if
 * that merges cleanly today.  Returns 1 when merged, 0 when not.
 */
static int run_try_previous(struct run *r, const struct tree *t, struct day_tree *dt,
			    const git_oid *tip)
{
	struct merge_result res;
	struct merge_opts mopts = MERGE_OPTS_INIT;
	git_commit *ours = NULL, *theirs = NULL;
	char *from = NULL, *label = tree_ref_label(t);
	git_oid prev;
	int rc = 0;

	memset(&res, 0, sizeof(res));
	if (!find_previous_sha(r, t, &prev, &from) || git_oid_equal(&prev, tip))
		goto done;
	if (run_fsck(r, &prev) < 0) {	/* merged before tide checked trees */
		run_event(r, EVENT_CHECK, EVENT_PROBLEM, t->name, "%s: its version of %s is refused too: %s", t->name, from,
			  tide_error_last());
		tide_error_clear();
		goto done;
	}
	mopts.ours_label = r->sum->tag;
	mopts.theirs_label = label;
	if (git_commit_lookup(&ours, r->repo, &r->state) < 0 ||
	    git_commit_lookup(&theirs, r->repo, &prev) < 0 ||
	    merge_commits(&res, r->repo, ours, theirs, &mopts) < 0 || res.nconflicts) {
		tide_error_clear();
		goto done;
	}
	r->version_from = from;
	rc = run_merge_clean(r, t, dt, &res, &prev);
	r->version_from = NULL;
	if (rc < 0)
		goto done;
	free(dt->status);
	dt->status = xstrdup("previous");
	json_object_set_new(tree_extra(dt), "attempted_sha", json_text(dt->sha));
	free(dt->sha);
	dt->sha = oid_str(&prev);
	json_object_set_new(tree_extra(dt), "handled", json_text("previous"));
	json_object_set_new(tree_extra(dt), "version_from", json_text(from));
	run_event(r, EVENT_CONFLICT, EVENT_WARNING, t->name, "%s: used the version from %s", t->name, from);
	rc = 1;
done:
	merge_result_clear(&res);
	git_commit_free(ours);
	git_commit_free(theirs);
	free(label);
	free(from);
	return rc;
}

/*
 * A tip fsck refuses never reaches a merge: the tree is merged at its
 * last good day's version (status "previous", as for a conflict) or left
 * out with status "rejected"; the record keeps the reason either way.
 * Returns 0 when tip is fine, 1 when the tree was handled here, or a
 * TIDE_E* code when tide could not tell.
 */
static int run_check_tip(struct run *r, const struct tree *t, struct day_tree *dt,
			 const git_oid *tip)
{
	char abbrev[13], *why;
	int rc;

	if ((rc = run_fsck(r, tip)) != TIDE_EINVAL)
		return rc;
	oid_abbrev(abbrev, tip);
	why = xasprintf("tree '%s' commit %s: %s", t->name, abbrev, tide_error_last());
	tide_error_clear();
	json_object_set_new(tree_extra(dt), "rejected", json_text(why));
	nextfiles_log_outcome(&r->mergelog, why);
	run_event(r, EVENT_CHECK, EVENT_PROBLEM, t->name, "%s", why);
	if ((rc = run_try_previous(r, t, dt, tip)) == 0) {
		dt->status = xstrdup("rejected");
		r->sum->left_out++;
		run_event(r, EVENT_CHECK, EVENT_PROBLEM, t->name, "%s: refused, left out", t->name);
	}
	free(why);
	return rc < 0 ? rc : 1;
}

/*
 * Per-tree fixup patches (the *.patch files of DIR/fixups/<tree>, for semantic
 * conflicts) as commits on top of the tree's merge.  A fixup that does not
 * apply is recorded and skipped: the day goes on.
 */
static void fixup_series(struct run *r, const struct tree *t, struct quilt_series *out)
{
	char *dir = workspace_fixups_tree(r->ws->dir, t->name), *abs;
	const char *v;
	size_t i;

	if (quilt_series_from_dir(out, dir) < 0)
		tide_error_clear();
	for (i = 0; i < out->npatches; i++) {
		abs = path_join(dir, out->patches[i]);
		free(out->patches[i]);
		out->patches[i] = abs;
	}
	/* trees.conf "fixup=FILE" extras, relative to the conf's directory. */
	for (i = 0; i < t->nopts; i++) {
		if (strcmp(t->opts[i].key, "fixup") || !*(v = t->opts[i].value))
			continue;
		out->patches = xrealloc(out->patches, (out->npatches + 1) * sizeof(char *));
		abs = conf_relative_path(r, v);
		out->patches[out->npatches++] = path_absolute(abs);
		free(abs);
	}
	free(dir);
}

/*
 * "Applying: SUBJECT" in merge.log for each fixup commit from before to
 * tip (at most n), as `git am` prints them in linux-next's log.
 */
static void log_fixups(struct run *r, const git_oid *before, const git_oid *tip, size_t n)
{
	git_commit *c = NULL, *parent = NULL;
	char **subjects = xcalloc(n ? n : 1, sizeof(*subjects));
	size_t k = 0;

	if (git_commit_lookup(&c, r->repo, tip) < 0)
		goto done;
	while (k < n && !git_oid_equal(git_commit_id(c), before)) {
		subjects[k++] = commit_summary_utf8(c);
		if (git_commit_parent(&parent, c, 0) < 0)
			break;
		git_commit_free(c);
		c = parent;
		parent = NULL;
	}
	while (k--) {
		char *line = xasprintf("Applying: %s", subjects[k]);

		nextfiles_log_outcome(&r->mergelog, line);
		free(line);
		free(subjects[k]);
	}
done:
	tide_error_clear();
	git_commit_free(c);
	free(subjects);
}

static void run_apply_fixups(struct run *r, const struct tree *t, struct day_tree *dt)
{
	struct quilt_opts qopts = QUILT_OPTS_INIT;
	struct quilt_series s;
	char *trailer = NULL;
	json_t *names;
	git_oid tip;
	size_t i;

	qopts.committer_name = r->sig->name;
	qopts.committer_email = r->sig->email;
	/* Bisect and reports map first-parent commits to trees by this trailer. */
	trailer = history_tree_trailer(t->name);
	qopts.trailer = trailer;
	fixup_series(r, t, &s);
	if (!s.npatches)
		goto done;
	if (quilt_apply(&tip, r->repo, &r->state, &s, "/", &qopts) < 0 ||
	    run_fsck(r, &tip) < 0) {
		json_object_set_new(tree_extra(dt), "fixup_error", json_text(tide_error_last()));
		run_event(r, EVENT_FIXUP, EVENT_PROBLEM, t->name, "%s: fixup failed: %s", t->name, tide_error_last());
		nextfiles_log_outcome(&r->mergelog, "Applying fixups failed; none applied.");
		goto done;
	}
	log_fixups(r, &r->state, &tip, s.npatches);
	git_oid_cpy(&r->state, &tip);
	/* The state after this tree: what `tide resolve` merges the next tree onto. */
	json_object_set_new(tree_extra(dt), "fixup_commit", json_string_nocheck(git_oid_tostr_s(&tip)));
	names = json_array();
	for (i = 0; i < s.npatches; i++)
		json_array_append_new(names, json_text(strrchr(s.patches[i], '/') + 1));
	json_object_set_new(tree_extra(dt), "fixups", names);
	run_event(r, EVENT_FIXUP, EVENT_INFO, t->name, "%s: applied %zu fixup%s", t->name, s.npatches, s.npatches == 1 ? "" : "s");
done:
	tide_error_clear();
	quilt_series_release(&s);
	free(trailer);
}

/*
 * A tree whose merge conflicts is left out today; the record says where
 * and why: each conflicted path, its hunks, and the commits of each side
 * that touched it.  The one place a conflict is handled.
 */
static int run_handle_conflict(struct run *r, const struct tree *t, struct day_tree *dt,
			       const struct merge_result *res, const git_oid *tip,
			       const git_oidarray *bases)
{
	struct buf outcome = BUF_INIT;
	size_t i;
	int rc;

	for (i = 0; i < res->nconflicts; i++) {
		const struct merge_conflict *mc = &res->conflicts[i];
		struct day_conflict *dc = day_tree_add_conflict(dt);

		dc->path = xstrdup(mc->path);
		dc->kind = xstrdup(merge_conflict_kind_name(mc->kind));
		merge_conflict_hunks(r->repo, &res->tree, dc->path, add_day_hunk, dc);
		tide_error_clear();
		buf_printf(&outcome, "CONFLICT (%s): Merge conflict in %s\n", dc->kind, dc->path);
	}
	if (mailmap_from_commit(&r->mailmap, r->repo, tip) < 0)
		tide_error_clear();	/* authors then as the commits spell them */
	record_side(r, dt, &r->state, bases, 0);
	record_side(r, dt, tip, bases, 1);
	git_mailmap_free(r->mailmap);
	r->mailmap = NULL;
	prune_to_conflict_lines(r, dt);
	if ((rc = run_try_recorded(r, t, dt, res, tip, &outcome)) != 0)
		goto done;
	buf_puts(&outcome, "Automatic merge failed; fix conflicts and then commit the result.\n");
	buf_puts(&outcome, "$ git merge --abort\n");
	nextfiles_log_outcome(&r->mergelog, outcome.ptr);
	if ((rc = run_try_previous(r, t, dt, tip)) != 0)
		goto done;
	dt->status = xstrdup("conflict");
	json_object_set_new(tree_extra(dt), "handled", json_text("dropped"));
	r->sum->left_out++;
	run_event(r, EVENT_CONFLICT, EVENT_PROBLEM, t->name, "%s: conflict in %zu path%s (%s%s), left out", t->name, res->nconflicts,
		  res->nconflicts == 1 ? "" : "s", res->conflicts[0].path,
		  res->nconflicts > 1 ? ", ..." : "");
done:
	buf_release(&outcome);
	return rc < 0 ? rc : 0;
}

/*
 * A tree whose history shares no commit with the day's (no merge base):
 * merging it would add its whole tree as new files, or conflict in every
 * one, so it is left out with that reason, as git refuses such a merge.
 */
static void run_unrelated(struct run *r, const struct tree *t, struct day_tree *dt)
{
	const char *why = "no common history with the day";

	dt->status = xstrdup("conflict");
	json_object_set_new(tree_extra(dt), "reason", json_text(why));
	json_object_set_new(tree_extra(dt), "handled", json_text("dropped"));
	nextfiles_log_outcome(&r->mergelog, "fatal: refusing to merge unrelated histories");
	r->sum->left_out++;
	run_event(r, EVENT_CONFLICT, EVENT_PROBLEM, t->name, "%s: %s, left out", t->name, why);
}

/* ---- merging ---- */

static int make_commit(struct run *r, git_oid *out, const git_oid *tree_id,
		       const git_oid *const *parent_ids, size_t nparents, const char *message)
{
	git_tree *tree = NULL;
	git_commit *parents[2] = { NULL, NULL };
	size_t i;
	int error = 0;

	if (git_tree_lookup(&tree, r->repo, tree_id) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read a merged tree");
		goto done;
	}
	for (i = 0; i < nparents; i++)
		if (git_commit_lookup(&parents[i], r->repo, parent_ids[i]) < 0) {
			error = tide_error_git(TIDE_ERROR, "cannot read a parent commit");
			goto done;
		}
	errno = 0;
	if (git_commit_create(out, r->repo, NULL, r->sig, r->sig, NULL, message, tree,
			      nparents, (const git_commit **)parents) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot write a commit");
	else
		error = merge_object_written(r->repo, out, errno, "a commit");
done:
	for (i = 0; i < nparents; i++)
		git_commit_free(parents[i]);
	git_tree_free(tree);
	return error;
}

/* "gpio/for-next" for git trees, "quilt/mmotm" for quilt trees. */
static char *tree_ref_label(const struct tree *t)
{
	if (t->type == TREE_GIT)
		return xasprintf("%s/%s", t->name, t->branch);
	return xasprintf("quilt/%s", t->name);
}

/*
 * The diffstat git prints after a merge, for merge.log.  libgit2 1.5's
 * tree diff reads every tree of a 78,000-file kernel, so the diff is
 * limited to the paths the merge engine says differ from ours: it costs
 * what the merge changed.
 */
static void log_diffstat(struct run *r, const git_oid *before, const struct merge_result *res)
{
	git_commit *c = NULL;
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	struct buf text = BUF_INIT;
	git_diff_options dopts;

	if (!res->nchanged)
		return;
	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	dopts.pathspec.strings = res->changed;
	dopts.pathspec.count = res->nchanged;
	dopts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	if (git_commit_lookup(&c, r->repo, before) == 0 && git_commit_tree(&a, c) == 0 &&
	    git_tree_lookup(&b, r->repo, &res->tree) == 0 &&
	    git_diff_tree_to_tree(&diff, r->repo, a, b, &dopts) == 0 &&
	    git_diff_find_similar(diff, NULL) == 0 && diffstat_format(&text, r->repo, diff, 80) == 0 &&
	    text.len)
		nextfiles_log_outcome(&r->mergelog, text.ptr);
	tide_error_clear();	/* the log is a courtesy: never fail a merge for it */
	buf_release(&text);
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(c);
}

static int run_merge_clean(struct run *r, const struct tree *t, struct day_tree *dt,
			   const struct merge_result *res, const git_oid *tip)
{
	const git_oid *parents[2] = { &r->state, tip };
	git_oid before = r->state;
	char *label = tree_ref_label(t);
	char *msg = history_merge_message(t->type == TREE_GIT ? "remote-tracking branch" : "branch",
					  label, t->name, r->version_from);
	git_oid commit;
	int error;

	if ((error = make_commit(r, &commit, &res->tree, parents, 2, msg)) < 0)
		goto done;
	git_oid_cpy(&r->state, &commit);
	dt->merge_commit = oid_str(&commit);
	dt->status = xstrdup("merged");
	r->merged = xrealloc(r->merged, (r->nmerged + 1) * sizeof(*r->merged));
	r->merged[r->nmerged].name = t->name;
	git_oid_cpy(&r->merged[r->nmerged++].tip, tip);
	r->sum->merged++;
	nextfiles_log_outcome(&r->mergelog, "Merge made by the 'ort' strategy.");
	log_diffstat(r, &before, res);
	run_event(r, EVENT_MERGE, EVENT_PROGRESS, t->name, "%s: merged", t->name);
	run_apply_fixups(r, t, dt);
done:
	free(msg);
	free(label);
	return error;
}

/* bases: the merge bases of the state and tip (run_tree() found them). */
static int run_merge(struct run *r, const struct tree *t, struct day_tree *dt, const git_oid *tip,
		     const git_oidarray *bases)
{
	struct merge_result res;
	struct merge_opts mopts = MERGE_OPTS_INIT;
	git_commit *ours = NULL, *theirs = NULL;
	char *label = tree_ref_label(t);
	git_oid mb;
	int error;

	memset(&res, 0, sizeof(res));
	mopts.ours_label = r->sum->tag;
	mopts.theirs_label = label;
	mopts.bases = bases;
	if (bases->count) {
		git_oid_cpy(&mb, &bases->ids[0]);
		dt->merge_base = oid_str(&mb);
	}
	if (git_commit_lookup(&ours, r->repo, &r->state) < 0 ||
	    git_commit_lookup(&theirs, r->repo, tip) < 0) {
		error = tide_error_git(TIDE_ERROR, "%s: cannot read commits to merge", t->name);
		goto done;
	}
	if ((error = merge_commits(&res, r->repo, ours, theirs, &mopts)) < 0) {
		tide_error_wrap(error, "cannot merge '%s'", t->name);
		goto done;
	}
	if (res.nconflicts)
		error = run_handle_conflict(r, t, dt, &res, tip, bases);
	else
		error = run_merge_clean(r, t, dt, &res, tip);
done:
	merge_result_clear(&res);
	git_commit_free(ours);
	git_commit_free(theirs);
	free(label);
	return error;
}

static void log_merging(struct run *r, const struct tree *t, const git_oid *tip)
{
	git_commit *c = NULL;
	char *label = tree_ref_label(t);
	char abbrev[13];

	oid_abbrev(abbrev, tip);
	if (git_commit_lookup(&c, r->repo, tip) == 0) {
		char *subject = commit_summary_utf8(c);

		nextfiles_log_merging(&r->mergelog, label, abbrev, subject);
		free(subject);
	}
	git_commit_free(c);
	free(label);
}

/* ---- per-merge builds (trees.conf option build-each-merge) ---- */

static void record_failure(json_t **obj, const char *key, const char *status)
{
	if (!*obj)
		*obj = json_object();
	json_object_set_new(*obj, key, json_pack("{s:s, s:o}", "status", status,
						 "failure", json_text(tide_error_last())));
	tide_error_clear();
}

/*
 * Build right after a tree's clean merge.  If that build fails, the merge
 * is dropped for today and the tree retried at its SHA from the last day
 * it merged (linux-next's "used the version from next-YYYYMMDD").
 */
static int run_build_merge(struct run *r, const struct tree *t, struct day_tree *dt,
			   const git_oid *before, const git_oid *tip)
{
	struct build_opts opts;
	struct build_result res;
	char *name = xasprintf("build-%s.log", t->name), *log = path_join(r->tmp_dir, name);
	int error = 0;

	memset(&res, 0, sizeof(res));
	build_opts_init(&opts, r->ws->dir, log, &(struct build_day_opts){ .nice = 10 });
	run_event(r, EVENT_BUILD, EVENT_PROGRESS, t->name, "%s: building the merge", t->name);
	if (!opts.fragment || build_run(&res, r->repo, &r->state, &opts) < 0) {
		if (!opts.fragment)
			tide_error_set(TIDE_ENOTFOUND, "no config fragment (kernel-tests/smoke.config)");
		record_failure(&dt->extra, "build", "failed");	/* the merge stays */
		goto done;
	}
	json_object_set_new(tree_extra(dt), "build", build_result_json(&res, name));
	if (res.ok)
		goto done;
	run_event(r, EVENT_BUILD, EVENT_PROBLEM, t->name, "%s: build failed after its merge (%s), merge dropped", t->name, res.failure);
	git_oid_cpy(&r->state, before);
	r->nmerged--;
	r->sum->merged--;
	free(dt->merge_commit);
	free(dt->status);
	dt->merge_commit = dt->status = NULL;
	nextfiles_log_outcome(&r->mergelog, "Build failed after the merge; merge dropped.");
	if ((error = run_try_previous(r, t, dt, tip)) != 0)
		goto done;
	dt->status = xstrdup("dropped");
	json_object_set_new(tree_extra(dt), "handled", json_text("dropped"));
	r->sum->left_out++;
done:
	build_result_release(&res);
	build_opts_release(&opts);
	free(log);
	free(name);
	return error < 0 ? error : 0;
}

static int run_tree(struct run *r, const struct tree *t)
{
	struct day_tree *dt = day_add_tree(r->day);
	double start = time_now();
	git_oidarray bases = { NULL, 0 };
	git_oid tip, before;
	int have, error = 0;

	dt->name = xstrdup(t->name);
	dt->type = xstrdup(tree_type_name(t->type));
	dt->url = xstrdup(t->url);
	dt->branch = t->branch ? xstrdup(t->branch) : NULL;
	run_event(r, EVENT_MERGE, EVENT_PROGRESS, t->name, "merging %s", t->name);
	run_tree_tip(r, t, dt, &tip, &have);
	if (!have) {
		r->sum->left_out++;
		run_event(r, EVENT_MERGE, EVENT_PROBLEM, t->name, "%s: %s, left out: %s", t->name,
			  strcmp(dt->status, "patch-failed") ? "not fetched" : "patch failed to apply",
			  dt->fetch_error);
		goto done;
	}
	dt->sha = oid_str(&tip);
	log_merging(r, t, &tip);
	if ((error = run_check_tip(r, t, dt, &tip)) != 0) {
		error = error < 0 ? error : 0;
		goto done;
	}
	/*
	 * One walk of the history finds the merge bases, for the merge and for
	 * "up to date" (the tip is then the only base): each walk goes back
	 * through every earlier merge of the day, so it is done once a tree.
	 */
	if ((error = graph_merge_bases(&bases, r->repo, &r->state, &tip)) < 0) {
		tide_error_wrap(error, "%s: cannot find merge bases", t->name);
		goto done;
	}
	if (git_oid_equal(&tip, &r->state) ||
	    (bases.count == 1 && git_oid_equal(&bases.ids[0], &tip))) {
		dt->status = xstrdup("up-to-date");
		r->sum->merged++;
		nextfiles_log_outcome(&r->mergelog, "Already up to date.");
		run_event(r, EVENT_MERGE, EVENT_PROGRESS, t->name, "%s: up to date", t->name);
		goto done;
	}
	if (!bases.count) {
		run_unrelated(r, t, dt);
		goto done;
	}
	git_oid_cpy(&before, &r->state);
	error = run_merge(r, t, dt, &tip, &bases);
	if (!error && dt->status && !strcmp(dt->status, "merged") && tree_opt(t, "build-each-merge"))
		error = run_build_merge(r, t, dt, &before, &tip);
	run_die_point("merge", ++r->nmerges);
done:
	git_oidarray_dispose(&bases);
	dt->seconds = time_now() - start;
	r->ndone++;
	return error;
}

/* ---- the day's last commit ---- */

static int insert_blob(git_treebuilder *tb, git_repository *repo, const char *name,
		       const struct buf *content)
{
	git_oid blob;
	int error;

	errno = 0;
	if (git_blob_create_from_buffer(&blob, repo, buf_cstr(content), content->len) < 0)
		return tide_error_git(TIDE_ERROR, "cannot write '%s'", name);
	if ((error = merge_object_written(repo, &blob, errno, "a Next/ file")) < 0)
		return error;
	if (git_treebuilder_insert(NULL, tb, name, &blob, GIT_FILEMODE_BLOB) < 0)
		return tide_error_git(TIDE_ERROR, "cannot write '%s'", name);
	return 0;
}

/* Next/Trees, Next/SHA1s, Next/merge.log; existing Next/ files are kept. */
static int write_next_dir(struct run *r, git_oid *out, const git_tree *root)
{
	const git_tree_entry *e = git_tree_entry_byname(root, "Next");
	git_tree *old = NULL;
	git_treebuilder *tb = NULL;
	struct buf trees = BUF_INIT, sha1s = BUF_INIT;
	int error = 0;

	if (e && git_tree_entry_type(e) == GIT_OBJECT_TREE)
		git_tree_lookup(&old, r->repo, git_tree_entry_id(e));
	if (git_treebuilder_new(&tb, r->repo, old) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot build Next/");
		goto done;
	}
	nextfiles_trees(&trees, r->conf);
	nextfiles_sha1s(&sha1s, r->day);
	if ((error = insert_blob(tb, r->repo, "Trees", &trees)) < 0 ||
	    (error = insert_blob(tb, r->repo, "SHA1s", &sha1s)) < 0 ||
	    (error = insert_blob(tb, r->repo, "merge.log", &r->mergelog)) < 0)
		goto done;
	errno = 0;
	if (git_treebuilder_write(out, tb) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot write Next/");
	else
		error = merge_object_written(r->repo, out, errno, "the Next/ tree");
done:
	buf_release(&trees);
	buf_release(&sha1s);
	git_treebuilder_free(tb);
	git_tree_free(old);
	return error;
}

static int run_final_commit(struct run *r)
{
	git_commit *state = NULL;
	git_tree *root = NULL;
	git_treebuilder *tb = NULL;
	struct buf lv = BUF_INIT;
	const git_oid *parents[1] = { &r->state };
	git_oid next, tree, commit;
	char *msg = xasprintf("Add linux-next specific files for %.4s%.2s%.2s\n",
			      r->sum->date, r->sum->date + 5, r->sum->date + 8);
	int error;

	if (git_commit_lookup(&state, r->repo, &r->state) < 0 ||
	    git_commit_tree(&root, state) < 0 || git_treebuilder_new(&tb, r->repo, root) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the merged tree");
		goto done;
	}
	nextfiles_localversion(&lv, r->sum->date);
	if ((error = write_next_dir(r, &next, root)) < 0 ||
	    (error = insert_blob(tb, r->repo, "localversion-next", &lv)) < 0)
		goto done;
	errno = 0;
	if (git_treebuilder_insert(NULL, tb, "Next", &next, GIT_FILEMODE_TREE) < 0 ||
	    git_treebuilder_write(&tree, tb) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot write the final tree");
		goto done;
	}
	if ((error = merge_object_written(r->repo, &tree, errno, "the final tree")) < 0)
		goto done;
	if ((error = make_commit(r, &commit, &tree, parents, 1, msg)) < 0)
		goto done;
	git_oid_cpy(&r->state, &commit);
	r->day->commit = oid_str(&commit);
	run_die_point("commit", 0);
done:
	free(msg);
	buf_release(&lv);
	git_treebuilder_free(tb);
	git_tree_free(root);
	git_commit_free(state);
	return error;
}

/* ---- later stages ---- */

/*
 * HOOK: the build stage (src/build.h).  Runs on the day's final commit
 * (r->state) before the day is installed; records its results as the
 * "build" key of r->day->extra and its logs in r->tmp_dir.  A failed build
 * sets r->sum->stage_failed; it does not stop the day.
 */
static int run_stage_build(struct run *r)
{
	struct build_day_opts o = { .nice = 10 };
	struct build_result res;
	struct day *prev;

	if (r->opts->no_build)
		return 0;
	run_event(r, EVENT_BUILD, EVENT_PROGRESS, NULL, "building %s", r->sum->tag);
	prev = build_previous_day(r->days_dir, r->sum->date);
	if (build_day(r->day, r->repo, r->ws->dir, r->tmp_dir, prev, &o, &res) < 0) {
		/* tide could not build (no fragment, I/O): the merges still count */
		run_event(r, EVENT_BUILD, EVENT_PROBLEM, NULL, "build: %s", tide_error_last());
		record_failure(&r->day->extra, "build", "failed");
		r->sum->stage_failed = 1;
	} else {
		run_event(r, EVENT_BUILD, res.ok ? EVENT_INFO : EVENT_PROBLEM, NULL, "build %s in %.0f s%s%s", res.ok ? "ok" : "failed", res.seconds,
			  res.ok ? "" : ": ", res.ok ? "" : res.failure);
		r->sum->stage_failed |= !res.ok;
	}
	build_result_release(&res);
	day_free(prev);
	return 0;
}

/*
 * HOOK: the boot stage (src/boot.h), after the build: boots the built
 * kernel in QEMU, records "boot" in r->day->extra, console.log in
 * r->tmp_dir.
 */
static int run_stage_boot(struct run *r)
{
	const json_t *b = json_object_get(r->day->extra, "build");
	json_t *rec = NULL;
	char *console;
	int passed;

	if (r->opts->no_boot || r->opts->no_build)
		return 0;
	if (!json_string_value(json_object_get(b, "kernel"))) {
		tide_error_set(TIDE_ERROR, "no kernel: the build failed");
		record_failure(&r->day->extra, "boot", "skipped");
		return 0;
	}
	console = workspace_daydir_console_log(r->tmp_dir);
	run_event(r, EVENT_BOOT, EVENT_PROGRESS, NULL, "booting %s", r->sum->tag);
	if (boot_workspace(&rec, &passed, r->ws->dir, console) < 0) {
		run_event(r, EVENT_BOOT, EVENT_PROBLEM, NULL, "boot: %s", tide_error_last());
		record_failure(&r->day->extra, "boot", "error");
		passed = 0;
	} else {
		json_object_set_new(r->day->extra, "boot", rec);
		run_event(r, EVENT_BOOT, passed ? EVENT_INFO : EVENT_PROBLEM, NULL, "boot %s in %.1f s",
			  json_string_value(json_object_get(rec, "status")),
			  json_number_value(json_object_get(rec, "seconds")));
	}
	r->sum->stage_failed |= !passed;
	free(console);
	return 0;
}

/*
 * The day's reproducer (src/reproducer.h) beside the record, after the
 * build and boot whatever they did.  Failing to write it is a warning:
 * the day stands without it.
 */
static void run_stage_reproducer(struct run *r)
{
	struct reproducer_input in = { r->ws->dir, r->repo, r->day, r->conf->path, NULL };
	struct buf conf = BUF_INIT;

	if (file_read_text(&conf, r->conf->path) == 0)
		in.conf_text = buf_cstr(&conf);
	tide_error_clear();
	if (reproducer_write(r->tmp_dir, &in) < 0)
		run_event(r, EVENT_RECORD, EVENT_WARNING, NULL, "cannot write the reproducer: %s",
			  tide_error_last());
	tide_error_clear();
	buf_release(&conf);
}

/* ---- install ---- */

static int update_ref(struct run *r, const char *name, const char *what)
{
	git_reference *ref = NULL;
	char *msg = xasprintf("tide: %s %s", what, r->sum->tag);
	int error = 0;

	if (git_reference_create(&ref, r->repo, name, &r->state, 1, msg) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot update '%s'", name);
	git_reference_free(ref);
	free(msg);
	return error;
}

/* Conflict reports into the day directory; a failure is logged, not fatal. */
static void run_write_reports(struct run *r)
{
	char **dates = NULL, *path = NULL;
	struct day *prev = NULL;
	int n = day_list(&dates, r->days_dir), i;

	for (i = n - 1; i >= 0; i--) {
		if (strcmp(dates[i], r->sum->date) >= 0)
			continue;
		path = workspace_day_json_in(r->days_dir, dates[i]);
		if (day_load(&prev, path) < 0)
			prev = NULL;
		break;
	}
	if (report_write_day(r->day, prev, r->tmp_dir) < 0)
		run_event(r, EVENT_RECORD, EVENT_PROBLEM, NULL, "cannot write conflict reports: %s", tide_error_last());
	tide_error_clear();
	day_free(prev);
	free(path);
	day_list_free(dates, n < 0 ? 0 : n);
}

/* master is the newest day: re-running an older date leaves it alone. */
static int is_newest_day(struct run *r)
{
	char **dates = NULL;
	int n = day_list(&dates, r->days_dir), newest;

	newest = n <= 0 || strcmp(dates[n - 1], r->sum->date) <= 0;
	day_list_free(dates, n > 0 ? n : 0);
	return newest;
}

/* Record, then master, then the tag: an interrupted install leaves the old tag. */
static int run_install(struct run *r)
{
	char *path = workspace_daydir_json(r->tmp_dir);
	char *log = workspace_daydir_merge_log(r->tmp_dir);
	char *tagref = xasprintf("refs/tags/%s", r->sum->tag);
	int error;

	free(r->day->finished);
	r->day->finished = iso_now();
	r->day->status = xstrdup("complete");
	run_write_reports(r);
	if ((error = file_write_atomic(log, buf_cstr(&r->mergelog), r->mergelog.len)) < 0 ||
	    (error = day_save(r->day, path)) < 0 ||
	    (error = day_install(r->days_dir, r->sum->date, r->tmp_dir)) < 0)
		goto done;
	run_die_point("install", 0);
	if ((is_newest_day(r) && (error = update_ref(r, "refs/heads/master", "day")) < 0) ||
	    (error = update_ref(r, tagref, "tag")) < 0)
		goto done;
	run_event(r, EVENT_RECORD, EVENT_INFO, NULL, "tagged %s (%zu of %zu trees merged)", r->sum->tag, r->sum->merged,
		  r->sum->ntrees);
done:
	free(tagref);
	free(log);
	free(path);
	return error;
}

/* ---- the day ---- */

static void log_start(struct run *r)
{
	git_commit *c = NULL;
	char abbrev[13];

	oid_abbrev(abbrev, &r->base);
	if (git_commit_lookup(&c, r->repo, &r->base) == 0) {
		char *subject = commit_summary_utf8(c);

		nextfiles_log_start(&r->mergelog, r->conf->base_tag, abbrev, subject);
		free(subject);
	}
	git_commit_free(c);
}

static void run_release(struct run *r)
{
	size_t i;

	for (i = 0; i < r->njobs; i++)
		fetch_job_clear(&r->jobs[i]);
	free(r->jobs);
	free(r->merged);
	fsck_seen_release(&r->fsck);
	if (r->tmp_dir && path_exists(r->tmp_dir))
		rm_rf(r->tmp_dir);
	free(r->tmp_dir);
	free(r->days_dir);
	day_free(r->day);
	git_signature_free(r->sig);
	buf_release(&r->mergelog);
}

/*
 * Recorded resolutions shared through a git branch (DIR/rerere.conf):
 * fetched before the merges, expired and pushed after the install.  A
 * failure is an event of the day, never the end of it.
 */
static void run_rerere_sync(struct run *r, int after)
{
	struct buf done = BUF_INIT;
	const char *p, *nl;

	if ((after ? rerere_sync_after(r->ws->dir, &done) : rerere_sync_before(r->ws->dir, &done)) < 0)
		run_event(r, EVENT_RECORD, EVENT_WARNING, NULL, "recorded resolutions: %s", tide_error_last());
	for (p = buf_cstr(&done); (nl = strchr(p, '\n')); p = nl + 1)
		run_event(r, EVENT_RECORD, EVENT_INFO, NULL, "%.*s", (int)(nl - p), p);
	tide_error_clear();
	buf_release(&done);
}

int run_day(struct run_summary *out, struct workspace *ws, const struct trees_conf *conf,
	    const struct run_opts *opts)
{
	struct run r;
	size_t i;
	int error;

	memset(&r, 0, sizeof(r));
	memset(out, 0, sizeof(*out));
	r.ws = ws;
	r.repo = ws->repo;
	r.conf = conf;
	r.opts = opts;
	r.sum = out;
	out->ntrees = conf->ntrees;
	if ((error = run_setup(&r)) < 0 || (error = run_fetch(&r)) < 0 ||
	    (error = run_commit_graph(&r)) < 0 || (error = run_resolve_base(&r)) < 0 || (error = run_check_base(&r)) < 0)
		goto done;
	log_start(&r);
	run_rerere_sync(&r, 0);
	for (i = 0; i < conf->ntrees && !error; i++)
		error = run_tree(&r, &conf->trees[i]);
	for (i = 0; i < r.day->ntrees; i++)
		if (r.day->trees[i].status && !strcmp(r.day->trees[i].status, "previous"))
			out->previous++;
	if (error < 0 || (error = run_final_commit(&r)) < 0 ||
	    (error = run_stage_build(&r)) < 0 || (error = run_stage_boot(&r)) < 0)
		goto done;
	run_stage_reproducer(&r);
	if ((error = run_install(&r)) == 0)
		run_rerere_sync(&r, 1);
	if (!error && fsck_seen_save(&r.fsck) < 0) {	/* costs only a longer walk tomorrow */
		run_event(&r, EVENT_RECORD, EVENT_WARNING, NULL, "cannot keep the trees checked: %s", tide_error_last());
		tide_error_clear();
	}
done:
	if (error < 0)
		workspace_log(ws, "run %s failed: %s", out->date, tide_error_last());
	run_release(&r);
	return error;
}
