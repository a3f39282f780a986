/*
 * One integration day (see run.h and docs/design.md "The day's history").
 *
 *   run_day
 *     run_setup          date, tag, the temporary day directory
 *     run_fetch          every git tree and the base, in parallel (fetch_day.c)
 *     run_resolve_base   the base tag's commit becomes the state
 *     merge_day_tree     per tree: tip, contained?, merge, commit or conflict
 *                        (merge_day.c; run_build_merge is its build hook)
 *     run_final_commit   Next/ files and localversion-next (nextfiles_commit)
 *     run_stage_checks   the commit checks (checks.c)
 *     run_stage_build, run_stage_boot   hook points for later stages
 *     run_stage_reproducer   reproducer.sh and metadata.json of the day
 *     run_install        day directory, refs/heads/master, then the tag
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "conf.h"
#include "boot.h"
#include "changes.h"
#include "build.h"
#include "build_matrix.h"
#include "buildconf.h"
#include "checks.h"
#include "dashboard.h"
#include "day.h"
#include "event.h"
#include "error.h"
#include "fetch.h"
#include "fsck.h"
#include "graph.h"
#include "history.h"
#include "kcidb.h"
#include "merge_day.h"
#include "nextfiles.h"
#include "report.h"
#include "regress.h"
#include "rerere.h"
#include "settings.h"
#include "reproducer.h"
#include "run.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

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
	struct fetch_day fetch;
	struct buf mergelog;
	struct fsck_seen fsck;	/* tree objects found good, DIR/repo.git/tide-fsck-trees */
	struct merge_day md;
	struct merge_day_run mrun;	/* what md reads of sum and counts for it */
	struct event_sink sink;	/* run_relay() */
};

/*
 * The sink the stages send to: each event goes to DIR/tide.log, then,
 * with the count of trees done, to the caller's sink.
 */
static void run_relay(void *data, const struct event *ev)
{
	struct run *r = data;
	struct event counted = *ev;

	if (!ev->redraw)
		workspace_log(r->ws, "%s", ev->message);
	counted.done = r->md.ndone;
	counted.total = r->conf->ntrees;
	event_emit(&r->opts->events, &counted);
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
	{
		char *tag = day_tag_for(r->sum->date);

		snprintf(r->sum->tag, sizeof(r->sum->tag), "%s", tag);
		free(tag);
	}
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

static int run_fetch(struct run *r)
{
	int error;

	if ((error = fetch_day_run(&r->fetch, r->ws, r->conf, r->opts->jobs, &r->sink)) < 0)
		return error;
	r->repo = r->ws->repo;	/* reopened by fetch_run */
	run_die_point("fetch", 0);
	return 0;
}

/* The name reports use (src/report.h), fixed for the day in its record. */
static void record_project(struct run *r)
{
	char *name = report_project_name(r->conf, r->repo, &r->base, r->ws->dir);

	free(r->day->project);
	r->day->project = name;
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
		event_emitf(&r->sink, EVENT_FETCH, EVENT_WARNING, NULL, "commit-graph not written, merging without it: %s", tide_error_last());
		tide_error_clear();
		return 0;
	}
	if (g.removed_git)
		event_emitf(&r->sink, EVENT_FETCH, EVENT_INFO, NULL, "commit-graph of git's removed from the workspace (libgit2 cannot use it safely)");
	if (g.what == GRAPH_UP_TO_DATE && !g.removed_git)
		return 0;
	if (g.what == GRAPH_REBUILT)
		event_emitf(&r->sink, EVENT_FETCH, EVENT_WARNING, NULL, "commit-graph on disk %s, not used: written again (%.2fs)", g.why,
			  g.seconds);
	else if (g.what == GRAPH_WRITTEN)
		event_emitf(&r->sink, EVENT_FETCH, EVENT_INFO, NULL, "commit-graph written (%.2fs)", g.seconds);
	if ((error = workspace_reopen(r->ws)) < 0)
		return error;
	r->repo = r->ws->repo;
	return 0;
}

static int run_resolve_base(struct run *r)
{
	const struct fetch_job *job = &r->fetch.jobs[0];
	git_object *obj = NULL, *commit = NULL;
	char *ref = xasprintf("refs/tags/%s", r->conf->base_tag);
	int error = 0;

	if (git_revparse_single(&obj, r->repo, ref) < 0) {
		char *shown = url_redact(r->conf->base_url);

		if (job->error == TIDE_ENOTFOUND)
			error = tide_error_set(TIDE_ENOTFOUND, "base tag '%s' not found in '%s'",
					       r->conf->base_tag, shown);
		else
			error = tide_error_set(TIDE_EINVAL, "cannot fetch the base: %s",
					       job->message ? job->message : "tag missing");
		free(shown);
		goto done;
	}
	if (job->error)	/* an older copy of the tag is still usable */
		event_emitf(&r->sink, EVENT_FETCH, EVENT_WARNING, NULL, "using the base tag '%s' fetched earlier", r->conf->base_tag);
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		error = tide_error_git(TIDE_EINVAL, "base tag '%s' does not name a commit",
				       r->conf->base_tag);
		goto done;
	}
	git_oid_cpy(&r->base, git_object_id(commit));
	git_oid_cpy(&r->state, &r->base);
	r->day->base_commit = history_oid_hex(&r->base);
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
	r->fsck.max_depth = (unsigned)r->conf->max_tree_depth;
	free(path);
	if ((error = fsck_tree(&r->fsck, r->repo, &r->base)) == TIDE_EINVAL) {
		history_oid_abbrev(abbrev, &r->base);
		tide_error_wrap(error, "base tag '%s' commit %s", r->conf->base_tag, abbrev);
	}
	return error;
}

/* ---- merge ---- */

static int run_build_merge(void *data, const struct tree *t, struct day_tree *dt);

static void run_merge_setup(struct run *r)
{
	struct merge_day *md = &r->md;

	md->ws = r->ws;
	md->repo = r->repo;
	md->conf = r->conf;
	md->sig = r->sig;
	md->days_dir = r->days_dir;
	md->day = r->day;
	snprintf(r->mrun.date, sizeof(r->mrun.date), "%s", r->sum->date);
	snprintf(r->mrun.tag, sizeof(r->mrun.tag), "%s", r->sum->tag);
	md->sum = &r->mrun;
	md->fetch = &r->fetch;
	md->fsck = &r->fsck;
	md->mergelog = &r->mergelog;
	md->events = r->sink;
	md->build_merge.fn = run_build_merge;
	md->build_merge.data = r;
	md->tree_seconds = r->conf->merge_timeout ? r->conf->merge_timeout : MERGE_DAY_TIMEOUT;
	md->tree_memory = r->opts->merge_memory ? r->opts->merge_memory : MERGE_DAY_MEMORY;
	git_oid_cpy(&md->base, &r->base);
	git_oid_cpy(&md->state, &r->base);
	graph_warm(r->repo);	/* before the trees' processes are forked */
}

/* ---- per-merge builds (trees.conf option build-each-merge) ---- */

/*
 * Build right after a tree's clean merge (merge_day.h's hook).  If that
 * build fails, 1: the merge stage drops the merge for today and retries
 * the tree at its SHA from the last day it merged (linux-next's "used
 * the version from next-YYYYMMDD").
 */
static int run_build_merge(void *data, const struct tree *t, struct day_tree *dt)
{
	struct run *r = data;
	struct build_opts opts;
	struct build_result res;
	char *name = xasprintf("build-%s.log", t->name), *log = path_join(r->tmp_dir, name);
	int error = 0;

	memset(&res, 0, sizeof(res));
	build_opts_init(&opts, r->ws->dir, log, &(struct build_day_opts){ .nice = 10 });
	event_emitf(&r->sink, EVENT_BUILD, EVENT_PROGRESS, t->name, "%s: building the merge", t->name);
	if (!opts.fragment || build_run(&res, r->repo, &r->md.state, &opts) < 0) {
		if (!opts.fragment)
			tide_error_set(TIDE_ENOTFOUND, "no config fragment (kernel-tests/smoke.config)");
		build_record_failure(&dt->build, "failed");	/* the merge stays */
		goto done;
	}
	build_record_set(&dt->build, &res, name);
	if (res.ok)
		goto done;
	event_emitf(&r->sink, EVENT_BUILD, EVENT_PROBLEM, t->name, "%s: build failed after its merge (%s), merge dropped", t->name, res.failure);
	error = 1;
done:
	build_result_release(&res);
	build_opts_release(&opts);
	free(log);
	free(name);
	return error;
}

static int run_final_commit(struct run *r)
{
	git_oid commit;
	int error;

	if ((error = nextfiles_commit(&commit, r->repo, r->sig, &r->state, r->conf, r->day,
				      &r->mergelog)) < 0)
		return error;
	git_oid_cpy(&r->state, &commit);
	r->day->commit = history_oid_hex(&commit);
	run_die_point("commit", 0);
	return 0;
}

/* ---- later stages ---- */

/*
 * HOOK: the commit checks (src/checks.h), on the day's final commit,
 * before the build: the findings go into r->day->checks.  Whatever they
 * find, or fail to check, the day goes on.
 */
static void run_stage_checks(struct run *r)
{
	struct checks_opts o = { 0 };
	struct day *prev = NULL;
	char *pids = workspace_patch_ids(r->ws->dir);
	const struct day_checks *c;

	if (checks_settings(&o, r->ws->dir) < 0)
		event_emitf(&r->sink, EVENT_CHECK, EVENT_WARNING, NULL, "checks: %s (the default used)",
			    tide_error_last());
	tide_error_clear();
	o.patch_ids = pids;
	o.events = &r->sink;
	if (day_previous(&prev, r->days_dir, r->sum->date, 0, NULL, NULL) < 0)
		prev = NULL;
	tide_error_clear();
	checks_day(r->day, prev, r->repo, &o);
	if ((c = r->day->checks) && c->failure)
		event_emitf(&r->sink, EVENT_CHECK, EVENT_WARNING, NULL, "checks: %s", c->failure);
	if (c)
		event_emitf(&r->sink, EVENT_CHECK, EVENT_INFO, NULL,
			    "checks: %lld new commit%s in %lld tree%s, %zu finding%s (%.1f s)",
			    c->commits, c->commits == 1 ? "" : "s", c->trees, c->trees == 1 ? "" : "s",
			    c->findings.n, c->findings.n == 1 ? "" : "s", c->seconds);
	day_free(prev);
	free(pids);
}

/* The build matrix's hooks: a line as each configuration starts and ends. */
static void run_build_started(void *data, const struct build_day_opts *o)
{
	struct run *r = data;

	if (r->conf->nconfigs > 1)
		event_emitf(&r->sink, EVENT_BUILD, EVENT_PROGRESS, NULL, "building %s (%s)",
			    r->sum->tag, o->config->name);
	else
		event_emitf(&r->sink, EVENT_BUILD, EVENT_PROGRESS, NULL, "building %s", r->sum->tag);
}

/*
 * rec NULL: tide itself failed (no fragment, I/O); that is this
 * configuration's record: the merges and the other configurations still
 * count.
 */
static void run_build_finished(void *data, const struct build_day_opts *o,
			       const struct day_build *rec, const char *why)
{
	struct run *r = data;
	const char *name = o->config ? o->config->name : BUILD_CONFIG_DEFAULT;
	int ok = rec && rec->status && !strcmp(rec->status, "ok");

	if (!rec)
		event_emitf(&r->sink, EVENT_BUILD, EVENT_PROBLEM, NULL, "build%s%s: %s",
			    o->extra ? " " : "", o->extra ? name : "", why);
	else
		event_emitf(&r->sink, EVENT_BUILD, ok ? EVENT_INFO : EVENT_PROBLEM, NULL,
			    "build%s%s %s in %.0f s%s%s", o->extra ? " " : "", o->extra ? name : "",
			    ok ? "ok" : "failed", rec->seconds, ok ? "" : ": ",
			    ok ? "" : rec->failure ? rec->failure : "build failed");
	r->sum->stage_failed |= !ok;
}

/*
 * HOOK: the build stage (src/build.h, src/build_matrix.h).  Runs on the
 * day's final commit (r->state) before the day is installed, once per
 * configuration of trees.conf: in trees.conf's build-order, one after
 * another unless build-parallel says how many side by side, sharing
 * build-jobs make jobs.  The first declared is r->day->build, the others
 * go to r->day->configs (in trees.conf's order, whatever the build
 * order); the logs in r->tmp_dir.  A failed build sets
 * r->sum->stage_failed; it does not stop the day.
 */
static int run_stage_build(struct run *r)
{
	struct build_matrix_hooks hooks = { run_build_started, run_build_finished, r };
	struct build_day_opts *opts;
	size_t *order, i, n = r->conf->nconfigs;
	int parallel = r->opts->build_parallel ? r->opts->build_parallel : r->conf->build_parallel;
	int jobs = r->opts->build_jobs ? r->opts->build_jobs : r->conf->build_jobs;
	int each = build_matrix_jobs(jobs, parallel);
	struct day *prev;
	int error;

	if (r->opts->no_build)
		return 0;
	prev = build_previous_day(r->days_dir, r->sum->date);
	order = trees_conf_build_order(r->conf);
	opts = xcalloc(n, sizeof(*opts));
	for (i = 0; i < n; i++) {
		const struct build_config *c = &r->conf->configs[order[i]];

		/* The default configuration (none declared) builds as tide always has. */
		opts[i] = (struct build_day_opts){ .config = c->line ? c : NULL,
						   .extra = order[i] > 0, .events = &r->sink,
						   .nice = 10, .jobs = each };
	}
	for (i = 1; i < n; i++)
		day_config_get(r->day, r->conf->configs[i].name);
	if (parallel > 1 && n > 1)
		event_emitf(&r->sink, EVENT_BUILD, EVENT_INFO, NULL,
			    "building %zu configurations, %d at a time, %d make job%s each", n,
			    parallel, each, each == 1 ? "" : "s");
	error = build_matrix_run(r->day, r->repo, r->ws->dir, r->tmp_dir, prev, opts, n, parallel,
				 &r->sink, &hooks);
	if (error < 0) {
		event_emitf(&r->sink, EVENT_BUILD, EVENT_PROBLEM, NULL, "build: %s", tide_error_last());
		tide_error_clear();
		r->sum->stage_failed = 1;
	}
	free(opts);
	free(order);
	day_free(prev);
	return 0;
}

/*
 * The boot of trees.conf's configuration i, if it asks for one (boot=yes):
 * its O='s kernel and .config, its arch's QEMU, machine and CPU, its
 * smp=.  The first configuration's is the day's boot (console.log), the
 * others' are in r->day->configs (console.NAME.log).  No kernel, or a
 * first configuration with boot=no, is a "skipped" record saying why.
 */
static void run_boot_config(struct run *r, size_t i)
{
	const struct build_config *c = &r->conf->configs[i];
	struct boot_day_records rec;
	struct boot_config_run in = { 0 };
	char *console, *label;
	int passed = 0;

	if (i > 0 && !c->boot)
		return;		/* a configuration only built has no boot record */
	boot_day_records(&rec, r->day, c, i == 0);
	label = rec.own ? xstrdup("") : xasprintf(" %s", c->name);
	if (!c->boot || !rec.build || !rec.build->kernel) {
		day_boot_free(*rec.slot);
		*rec.slot = day_boot_failed("skipped", !c->boot ? "the configuration says boot=no"
							  : "no kernel: the build failed");
		event_emitf(&r->sink, EVENT_BOOT, EVENT_INFO, NULL, "boot%s skipped: %s", label,
			    (*rec.slot)->failure);
		goto done;
	}
	console = path_join(r->tmp_dir, rec.console_name);
	in.config = c;
	in.wsdir = r->ws->dir;
	in.outdir = build_config_outdir(r->ws->dir, c);
	in.build = rec.build;
	in.date = r->day->date;
	in.smp = c->smp;
	in.console_path = console;
	in.console_name = rec.console_name;
	if (rec.own)
		event_emitf(&r->sink, EVENT_BOOT, EVENT_PROGRESS, NULL, "booting %s", r->sum->tag);
	else
		event_emitf(&r->sink, EVENT_BOOT, EVENT_PROGRESS, NULL, "booting %s (%s)",
			    r->sum->tag, c->name);
	if (boot_workspace_config(rec.slot, &passed, &in) < 0) {
		event_emitf(&r->sink, EVENT_BOOT, EVENT_PROBLEM, NULL, "boot%s: %s", label,
			    tide_error_last());
		day_boot_free(*rec.slot);
		*rec.slot = day_boot_failed("error", tide_error_last());
		tide_error_clear();
	} else {
		event_emitf(&r->sink, EVENT_BOOT, passed ? EVENT_INFO : EVENT_PROBLEM, NULL,
			    "boot%s %s in %.1f s", label, (*rec.slot)->status, (*rec.slot)->seconds);
	}
	r->sum->stage_failed |= !passed;
	free((char *)in.outdir);
	free(console);
done:
	free(label);
	boot_day_records_release(&rec);
}

/*
 * HOOK: the boot stage (src/boot.h), after the build: boots each built
 * kernel that asks for it in QEMU, its record in r->day, its console log
 * in r->tmp_dir.
 */
static int run_stage_boot(struct run *r)
{
	if (r->opts->no_boot || r->opts->no_build)
		return 0;
	for (size_t i = 0; i < r->conf->nconfigs; i++)
		run_boot_config(r, i);
	return 0;
}

/*
 * The day's reproducer (src/reproducer.h) beside the record, after the
 * build and boot whatever they did.  Failing to write it is a warning:
 * the day stands without it; but not a failing disk, which would install
 * the day with half a reproducer (TIDE_EIO is returned).
 */
static int run_stage_reproducer(struct run *r)
{
	struct reproducer_input in = { r->ws->dir, r->repo, r->day, r->conf->path, NULL };
	struct buf conf = BUF_INIT;
	int error;

	if (file_read_text(&conf, r->conf->path) == 0)
		in.conf_text = buf_cstr(&conf);
	tide_error_clear();
	if ((error = reproducer_write(r->tmp_dir, &in)) < 0 && error != TIDE_EIO)
		event_emitf(&r->sink, EVENT_RECORD, EVENT_WARNING, NULL, "cannot write the reproducer: %s",
			  tide_error_last());
	if (error == TIDE_EIO)
		tide_error_wrap(error, "cannot write the reproducer");
	else
		tide_error_clear();
	buf_release(&conf);
	return error == TIDE_EIO ? error : 0;
}

/*
 * HOOK (issue 38): how each tree moved since the day before (changes.h),
 * in the record, so the dashboard and the regressions read it without
 * the repository.  A day before that does not load leaves it out.
 */
static void run_record_moves(struct run *r)
{
	struct day *prev = NULL;

	if (day_previous(&prev, r->days_dir, r->sum->date, 0, NULL, NULL) > 0)
		changes_record_moves(r->repo, prev, r->day);
	tide_error_clear();
	day_free(prev);
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

/*
 * The trees' reports into the day directory; a failure is logged, not
 * fatal, unless the disk failed (the day would be installed without them).
 */
static int run_write_reports(struct run *r)
{
	struct day *prev = NULL;
	int error = 0;

	/* The newest earlier day that loads: each conflict new or not against it. */
	if (day_previous(&prev, r->days_dir, r->sum->date, 0, NULL, NULL) < 0)
		prev = NULL;
	if ((error = report_write_day(r->day, prev, r->tmp_dir)) == TIDE_EIO)
		goto done;
	if (error < 0)
		event_emitf(&r->sink, EVENT_RECORD, EVENT_PROBLEM, NULL, "cannot write the trees' reports: %s", tide_error_last());
	tide_error_clear();
	error = 0;
done:
	day_free(prev);
	return error;
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

/* A ref the install changes, and what it held before, to put back. */
struct ref_undo {
	const char *name;
	git_oid old;
	int existed, changed;
};

static void ref_remember(struct run *r, struct ref_undo *u, const char *name)
{
	u->name = name;
	u->existed = git_reference_name_to_id(&u->old, r->repo, name) == 0;
	u->changed = 0;
	git_error_clear();
}

static int ref_update(struct run *r, struct ref_undo *u, const char *what)
{
	int error;

	if ((error = update_ref(r, u->name, what)) == 0)
		u->changed = 1;
	return error;
}

static void ref_restore(struct run *r, const struct ref_undo *u)
{
	git_reference *ref = NULL;

	if (!u->changed)
		return;
	if (u->existed)
		git_reference_create(&ref, r->repo, u->name, &u->old, 1, "tide: install undone");
	else
		git_reference_remove(r->repo, u->name);
	git_reference_free(ref);
	git_error_clear();
}

/*
 * Room for the refs, taken before the day directory goes in and given
 * back just before the refs are written: with a full disk the refs get
 * the space the reservation held, and putting them back after a failure
 * does too.  Written, not only allocated where the file system cannot.
 */
#define INSTALL_RESERVE (64 * 1024)

static int reserve_space(const char *path)
{
	static const char zeros[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600), error = 0;
	size_t done;

	if (fd < 0)
		return tide_error_errno(TIDE_EIO, "cannot create '%s'", path);
	if (posix_fallocate(fd, 0, INSTALL_RESERVE) != 0) {
		for (done = 0; done < INSTALL_RESERVE && !error; done += sizeof(zeros))
			if (fd_write_all(fd, zeros, sizeof(zeros)) < 0)
				error = tide_error_errno(TIDE_EIO, "cannot write '%s'", path);
	}
	if (!error && fsync(fd) < 0)
		error = tide_error_errno(TIDE_EIO, "cannot write '%s'", path);
	close(fd);
	if (error)
		unlink(path);
	return error;
}

/* The day's files into the temporary directory: the record last. */
static int write_day_files(struct run *r)
{
	char *path = workspace_daydir_json(r->tmp_dir);
	char *log = workspace_daydir_merge_log(r->tmp_dir);
	int error;

	free(r->day->finished);
	r->day->finished = iso_now();
	r->day->status = xstrdup("complete");
	if ((error = run_write_reports(r)) == 0 &&
	    (error = file_write_atomic(log, buf_cstr(&r->mergelog), r->mergelog.len)) == 0)
		error = day_save(r->day, path);
	free(log);
	free(path);
	return error;
}

/*
 * The day directory, master and the tag go in together or not at all:
 * the directory is swapped in, then the refs are written; when a ref
 * cannot be written, the refs are put back and the directory swapped
 * out again (renames: no space needed).  A kill -9 between the steps
 * can still leave the directory without its tag.
 */
static int run_install(struct run *r)
{
	char *tagref = xasprintf("refs/tags/%s", r->sum->tag);
	char *reserve = workspace_install_reserve(r->ws->dir);
	struct ref_undo master, tag;
	int error, exchanged = 0, newest;

	if ((error = write_day_files(r)) < 0)
		goto done;
	newest = is_newest_day(r);
	ref_remember(r, &master, "refs/heads/master");
	ref_remember(r, &tag, tagref);
	if ((error = reserve_space(reserve)) < 0) {
		tide_error_wrap(error, "no room to install the day");
		goto done;
	}
	if ((error = day_install_swap(r->days_dir, r->sum->date, r->tmp_dir, &exchanged)) < 0) {
		unlink(reserve);
		goto done;
	}
	run_die_point("install", 0);
	unlink(reserve);
	if ((newest && (error = ref_update(r, &master, "day")) < 0) ||
	    (error = ref_update(r, &tag, "tag")) < 0) {
		char *why = xstrdup(tide_error_last());

		ref_restore(r, &tag);
		ref_restore(r, &master);
		if (day_install_undo(r->days_dir, r->sum->date, r->tmp_dir, exchanged) < 0)
			tide_error_wrap(error, "%s; the day stays installed", why);
		else
			tide_error_set(error, "%s", why);
		free(why);
		goto done;
	}
	if (day_install_finish(r->days_dir, r->tmp_dir) < 0)	/* the day is in place */
		event_emitf(&r->sink, EVENT_RECORD, EVENT_WARNING, NULL, "%s", tide_error_last());
	tide_error_clear();
	event_emitf(&r->sink, EVENT_RECORD, EVENT_INFO, NULL, "tagged %s (%zu of %zu trees merged)", r->sum->tag,
		  r->sum->counts.merged, r->sum->counts.trees);
done:
	free(reserve);
	free(tagref);
	return error;
}

/* ---- after the install: stages that read the recorded day ---- */

/* DIR/dashboard written again; whatever happens, a warning in the summary. */
static void run_stage_dashboard(struct run *r)
{
	struct dashboard_result res;
	char *out = workspace_dashboard(r->ws->dir);

	if (dashboard_write(&res, r->ws->dir, out) < 0) {
		r->sum->dashboard_warning = xstrdup(tide_error_last());
	} else {
		r->sum->dashboard_warning = dashboard_unreadable_text(&res);
		if (res.regressions_unreadable)
			r->sum->dashboard_regressions_warning = xstrdup(res.regressions_unreadable);
	}
	tide_error_clear();
	dashboard_result_release(&res);
	free(out);
}

/*
 * The recorded day to DIR/config's kcidb-submit= server: how it went is
 * in the summary (a failing server is the day's problem, not its end).
 */
static void run_stage_kcidb(struct run *r)
{
	const struct settings *s = r->opts->settings;
	const char *url = s ? settings_get(s, "kcidb-submit") : NULL;
	const char *timeout;
	struct kcidb_opts o = { 0 };
	struct regress_list *regs = NULL;
	struct day *d = NULL;
	json_t *doc = NULL;

	if (!url)
		return;
	r->sum->kcidb_asked = 1;
	if (regress_load(&regs, r->ws->dir) < 0)
		r->sum->kcidb_regressions_warning = xstrdup(tide_error_last());
	tide_error_clear();
	o.regressions = regs;
	if (!(o.origin = settings_get(s, "kcidb-origin")))
		o.origin = KCIDB_DEFAULT_ORIGIN;
	o.url_base = settings_get(s, "kcidb-url");
	timeout = settings_get(s, "kcidb-timeout");
	if (day_open(&d, r->days_dir, r->sum->date) < 0 || kcidb_day(&doc, d, &o) < 0) {
		r->sum->kcidb.failed = KCIDB_SUBMIT_DOCUMENT;
		r->sum->kcidb.code = tide_error_code();
		r->sum->kcidb.why = xstrdup(tide_error_last());
	} else {
		kcidb_submit_day(&r->sum->kcidb, r->ws, d->tag ? d->tag : d->date, doc, url,
				 settings_get(s, "kcidb-token-file"),
				 timeout ? strtol(timeout, NULL, 10) : KCIDB_DEFAULT_TIMEOUT);
	}
	tide_error_clear();
	json_decref(doc);
	day_free(d);
	regress_list_free(regs);
}

/* DIR/regressions.json brought up to the recorded day, before the dashboard shows it. */
static void run_stage_regressions(struct run *r)
{
	struct regress_settings s;
	struct regress_list *l = NULL;
	struct buf changes = BUF_INIT;

	if (regress_settings_load(&s, r->ws->dir) < 0 || regress_load(&l, r->ws->dir) < 0 ||
	    regress_update(l, r->ws->dir, r->sum->date, &s, &changes) < 0 ||
	    regress_save(l, r->ws->dir) < 0)
		r->sum->regressions_warning = xstrdup(tide_error_last());
	else if (changes.len)
		r->sum->regressions_changes = buf_detach(&changes);
	tide_error_clear();
	buf_release(&changes);
	regress_list_free(l);
}

void run_summary_release(struct run_summary *sum)
{
	free(sum->regressions_changes);
	free(sum->regressions_warning);
	free(sum->dashboard_warning);
	free(sum->dashboard_regressions_warning);
	free(sum->kcidb_regressions_warning);
	kcidb_submission_release(&sum->kcidb);
	memset(sum, 0, sizeof(*sum));
}

/* ---- the day ---- */

static void log_start(struct run *r)
{
	git_commit *c = NULL;
	char abbrev[13];

	history_oid_abbrev(abbrev, &r->base);
	if (git_commit_lookup(&c, r->repo, &r->base) == 0) {
		char *subject = commit_summary_utf8(c);

		nextfiles_log_start(&r->mergelog, r->conf->base_tag, abbrev, subject);
		free(subject);
	}
	git_commit_free(c);
}

static void run_release(struct run *r)
{
	fetch_day_release(&r->fetch);
	merge_day_release(&r->md);
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
		event_emitf(&r->sink, EVENT_RECORD, EVENT_WARNING, NULL, "recorded resolutions: %s", tide_error_last());
	for (p = buf_cstr(&done); (nl = strchr(p, '\n')); p = nl + 1)
		event_emitf(&r->sink, EVENT_RECORD, EVENT_INFO, NULL, "%.*s", (int)(nl - p), p);
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
	r.sink.fn = run_relay;
	r.sink.data = &r;
	if ((error = run_setup(&r)) < 0 || (error = run_fetch(&r)) < 0 ||
	    (error = run_commit_graph(&r)) < 0 || (error = run_resolve_base(&r)) < 0 || (error = run_check_base(&r)) < 0)
		goto done;
	log_start(&r);
	run_rerere_sync(&r, 0);
	run_merge_setup(&r);
	for (i = 0; i < conf->ntrees && !error; i++) {
		int nmerges = r.md.nmerges;

		error = merge_day_tree(&r.md, &conf->trees[i]);
		if (r.md.nmerges != nmerges)
			run_die_point("merge", r.md.nmerges);
	}
	git_oid_cpy(&r.state, &r.md.state);
	out->door_commits = r.mrun.door_commits;
	out->door_trees = r.mrun.door_trees;
	out->door_seconds = r.mrun.door_seconds;
	event_emitf(&r.sink, EVENT_CHECK, EVENT_INFO, NULL,
		    "checked at the door: %zu new commits, %zu new trees in %.3f s",
		    out->door_commits, out->door_trees, out->door_seconds);
	day_counts(&out->counts, r.day);
	if (error < 0 || (error = run_final_commit(&r)) < 0)
		goto done;
	run_stage_checks(&r);
	if ((error = run_stage_build(&r)) < 0 || (error = run_stage_boot(&r)) < 0)
		goto done;
	if ((error = run_stage_reproducer(&r)) == 0) {
		run_record_moves(&r);
		error = run_install(&r);
	}
	if (error == 0)
		run_rerere_sync(&r, 1);
	if (!error && fsck_seen_save(&r.fsck) < 0) {	/* costs only a longer walk tomorrow */
		event_emitf(&r.sink, EVENT_RECORD, EVENT_WARNING, NULL, "cannot keep the trees checked: %s", tide_error_last());
		tide_error_clear();
	}
	if (!error) {
		run_stage_regressions(&r);
		run_stage_dashboard(&r);
		run_stage_kcidb(&r);
	}
done:
	if (error < 0)
		workspace_log(ws, "run %s failed: %s", out->date, tide_error_last());
	run_release(&r);
	return error;
}
