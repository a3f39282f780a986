/* The whole try (try.h's try_pipeline()): load, apply, merge, build, boot. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "buildconf.h"
#include "day.h"
#include "error.h"
#include "merge.h"
#include "try.h"
#include "util.h"
#include "workspace.h"

static void note_problems(struct try_outcome *o)
{
	const struct try_result *r = &o->res;
	size_t i;
	int conflict = 0;

	o->problems = json_array();
	if (!r->have_tip)
		json_array_append_new(o->problems, json_string("apply"));
	for (i = 0; i < r->ntrees; i++)
		conflict |= r->trees[i].status == TRY_TREE_CONFLICT;
	if (conflict)
		json_array_append_new(o->problems, json_string("conflict"));
	if (o->built && (!o->build.res.ok || o->build.new_errors.n))
		json_array_append_new(o->problems, json_string("build"));
	if (o->built && o->build.new_warnings.n)
		json_array_append_new(o->problems, json_string("warnings"));
	if (o->booted && o->boot.verdict.status != BOOT_PASSED)
		json_array_append_new(o->problems, json_string("boot"));
}

/* The try's kernel, booted with the smoke tests; caches in DIR/try. */
static int boot_try(struct try_outcome *o, const char *wsdir, const struct build_config *c)
{
	struct boot_opts bo = { 0 };
	char *config = xasprintf("%s/.config", o->build.outdir), *cache = try_path(wsdir, "initramfs");
	char *kvm = try_path(wsdir, "kvm-probe"), *console = try_path(wsdir, "console.log");
	int error;

	bo.kernel = o->build.res.kernel;
	bo.config = config;
	bo.initramfs_dir = cache;
	bo.kvm_cache = kvm;
	bo.console_path = console;
	if (c) {
		boot_opts_use_config(&bo, c);
		bo.smp = c->smp;
	}
	if ((error = boot_run(&o->boot, &bo)) == 0)
		o->booted = 1;
	free(config);
	free(cache);
	free(kvm);
	free(console);
	return error;
}

/* Build and boot: only a series that applies to the day. */
static int build_and_boot(struct try_outcome *o, struct workspace *ws,
			  const struct try_request *rq)
{
	int fd = -1, error;

	if (!o->res.have_tip) {
		o->build_skipped = "the series does not apply to the day";
		return 0;
	}
	if ((error = try_lock(&fd, ws->dir)) < 0)
		return error;
	if ((error = try_build_run(&o->build, ws->repo, ws->dir, o->day, &o->res.tip,
				   &rq->bo)) == 0) {
		o->built = 1;
		if (rq->boot && o->build.res.ok)
			error = boot_try(o, ws->dir, rq->bo.config);
	}
	close(fd);
	return error;
}

/* rq's day, or the newest one. */
static int load_day(struct day **out, struct workspace *ws, const struct try_request *rq)
{
	char *days = workspace_days_dir(ws->dir);
	char *date = rq->date ? xstrdup(rq->date) : day_newest(days);
	int error;

	if (!date) {
		error = tide_error_code();
		if (error == TIDE_ENOTFOUND)
			tide_error_set(TIDE_ENOTFOUND, "no day in workspace '%s' yet", ws->dir);
	} else if ((error = day_open(out, days, date)) == TIDE_ENOTFOUND) {
		error = tide_error_set(TIDE_ENOTFOUND, "no day %s in workspace '%s'", date, ws->dir);
	}
	free(days);
	free(date);
	return error;
}

int try_pipeline(struct try_outcome *out, struct workspace *ws, const struct try_request *rq)
{
	int error;

	memset(out, 0, sizeof(*out));
	/* Every object a try writes stays in memory: the workspace is not changed. */
	if ((error = try_odb_readonly(ws->repo)) < 0 ||
	    (error = merge_objects_begin(&out->mo, ws->repo)) < 0 ||
	    (error = load_day(&out->day, ws, rq)) < 0 ||
	    (error = try_series_load(&out->series, ws->repo, rq->series, rq->rev_repo)) < 0 ||
	    (error = try_day(&out->res, ws->repo, out->day, &out->series)) < 0 ||
	    ((rq->build || rq->boot) && (error = build_and_boot(out, ws, rq)) < 0))
		return error;
	note_problems(out);
	return 0;
}

json_t *try_build_json(const struct try_outcome *o)
{
	json_t *j;

	if (o->build_skipped)
		return json_pack("{s:s, s:s}", "status", "skipped", "failure", o->build_skipped);
	j = build_result_json(&o->build.res, "build.log");
	json_object_set_new(j, "new_warnings", build_diags_json(&o->build.new_warnings));
	json_object_set_new(j, "new_errors", build_diags_json(&o->build.new_errors));
	json_object_set_new(j, "seeded", json_boolean(o->build.seeded));
	json_object_set_new(j, "seed_seconds", json_real(o->build.seed_seconds));
	json_object_set_new(j, "day_built_first", json_boolean(o->build.baseline_built));
	json_object_set_new(j, "log", json_string(o->build.log));
	return j;
}

void try_outcome_release(struct try_outcome *o)
{
	json_decref(o->problems);
	boot_result_release(&o->boot);
	try_build_release(&o->build);
	try_result_release(&o->res);
	try_series_release(&o->series);
	day_free(o->day);
	merge_objects_free(o->mo);
	memset(o, 0, sizeof(*o));
}
