/*
 * The day's build (build.h): the build options a day starts from, its
 * record written and read, the previous good day, build_day().
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "day.h"
#include "error.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

/* ---- the record ---- */

json_t *build_diags_json(const struct build_diags *d)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < d->n; i++) {
		const struct build_diag *w = &d->v[i];
		json_t *o = json_object();

		json_object_set_new(o, "file", w->file ? json_text(w->file) : json_null());
		json_object_set_new(o, "line", json_integer(w->line));
		if (w->column)
			json_object_set_new(o, "column", json_integer(w->column));
		json_object_set_new(o, "message", json_text(w->message));
		json_object_set_new(o, "kind", json_string(build_diag_kind_name(w->kind)));
		if (w->tree)
			json_object_set_new(o, "tree", json_string(w->tree));
		json_array_append_new(arr, o);
	}
	return arr;
}

/*
 * The build's record, filled from the result: the one place a build's
 * outcome becomes the day's "build" (its JSON is day_build_to_json()'s).
 */
struct day_build *build_result_record(const struct build_result *res, const char *log_name)
{
	struct day_build *b = day_build_full();

	b->status = xstrdup(res->ok ? "ok" : "failed");
	b->failure = dayrec_text(res->failure);
	b->commit = dayrec_text(res->commit);
	b->config = dayrec_text(res->config);
	b->arch = dayrec_text(res->arch);
	b->seconds = res->seconds;
	b->checkout_seconds = res->checkout_seconds;
	b->config_seconds = res->config_seconds;
	b->make_seconds = res->make_seconds;
	if ((b->objects = res->objects))
		day_build_set_has(b, "objects");
	if ((b->checked = res->checked)) {
		b->check_seconds = res->check_seconds;
		day_build_set_has(b, "checked");
		day_build_set_has(b, "check_seconds");
	}
	b->checkout = json_pack("{s:b, s:I, s:I}", "full", res->checkout.full,
				"written", (json_int_t)res->checkout.written,
				"removed", (json_int_t)res->checkout.removed);
	b->config_regenerated = res->config_regenerated;
	b->jobs = res->jobs;
	b->ccache = res->ccache;
	b->remote_cache = dayrec_text(res->remote_cache);
	b->ccache_stats = res->have_cache_stats ? build_cache_stats_json(&res->cache_stats) : NULL;
	b->distcc = res->distcc_hosts ? build_distcc_json(res) : NULL;
	b->errors = build_diags_json(&res->log.errors);
	b->errors_total = (long long)res->log.nerrors_total;
	b->warnings = build_diags_json(&res->log.warnings);
	b->new_warnings = build_diags_json(&res->new_warnings);
	b->log = dayrec_text(log_name);
	b->kernel = dayrec_text(res->kernel);
	b->make_command = res->make_command ? json_deep_copy(res->make_command) : NULL;
	b->compiler = dayrec_text(res->compiler);
	b->binutils = dayrec_text(res->binutils);
	b->config_sha256 = dayrec_text(res->config_sha256);
	b->kernel_sha256 = dayrec_text(res->kernel_sha256);
	return b;
}

json_t *build_result_json(const struct build_result *res, const char *log_name)
{
	struct day_build *b = build_result_record(res, log_name);
	json_t *j = day_build_to_json(b);

	day_build_free(b);
	return j;
}

void build_result_release(struct build_result *res)
{
	free(res->failure);
	free(res->commit);
	free(res->config);
	free(res->arch);
	free(res->kernel);
	free(res->remote_cache);
	free(res->distcc_hosts);
	json_decref(res->make_command);
	free(res->compiler);
	free(res->binutils);
	free(res->config_sha256);
	free(res->kernel_sha256);
	build_distcc_stats_release(&res->distcc);
	build_log_release(&res->log);
	build_diags_release(&res->new_warnings);
	checkout_stats_release(&res->checkout);
	memset(res, 0, sizeof(*res));
}

/* ---- a day's build ---- */

char *build_config_outdir(const char *wsdir, const struct build_config *c)
{
	if (c && strcmp(c->name, BUILD_CONFIG_DEFAULT))
		return workspace_build_out_config(wsdir, c->name);
	return workspace_build_out(wsdir);
}

void build_opts_init(struct build_opts *opts, const char *wsdir, const char *log_path,
		     const struct build_day_opts *o)
{
	char *abs = path_absolute(wsdir);

	memset(opts, 0, sizeof(*opts));
	/* Fixed paths from day to day: ccache hits need them. */
	opts->srcdir = workspace_build_src(abs);
	opts->outdir = build_config_outdir(abs, o ? o->config : NULL);
	opts->config = o ? o->config : NULL;
	opts->state_path = workspace_build_state(abs);
	opts->log_path = log_path ? xstrdup(log_path) : workspace_build_log(abs);
	opts->ccache_basedir = abs;
	opts->fragment = o && o->fragment ? xstrdup(o->fragment) : build_default_fragment();
	opts->jobs = o ? o->jobs : 0;
	opts->no_ccache = o ? o->no_ccache : 0;
	opts->nice = o ? o->nice : 0;
	opts->no_checkout = o ? o->no_checkout : 0;
	opts->events = o ? o->events : NULL;
	if (build_farm_load(&opts->farm, abs) < 0) {
		opts->farm_error = xstrdup(tide_error_last());
		tide_error_clear();
	}
}

void build_opts_release(struct build_opts *opts)
{
	free((char *)opts->srcdir);
	free((char *)opts->outdir);
	free((char *)opts->state_path);
	free((char *)opts->log_path);
	free((char *)opts->ccache_basedir);
	free((char *)opts->fragment);
	build_farm_release(&opts->farm);
	free(opts->farm_error);
	memset(opts, 0, sizeof(*opts));
}

const struct day_build *build_record(const struct day *day)
{
	return day ? day->build : NULL;
}

static int build_was_ok(const struct day *d, void *data)
{
	(void)data;
	return d->build && d->build->status && !strcmp(d->build->status, "ok");
}

struct day *build_previous_day(const char *days_dir, const char *date)
{
	struct day *found = NULL;

	if (day_previous(&found, days_dir, date, 0, build_was_ok, NULL) < 0)
		found = NULL;
	tide_error_clear();
	return found;
}

int build_record_oid(git_oid *out, const char *hex, const char *what)
{
	if (!hex || git_oid_fromstr(out, hex) < 0)
		return tide_error_set(TIDE_EINVAL, "day record has no valid %s", what);
	return 0;
}

void build_record_set(struct day_build **slot, const struct build_result *res,
		      const char *log_name)
{
	day_build_free(*slot);
	*slot = build_result_record(res, log_name);
}

void build_record_failure(struct day_build **slot, const char *status)
{
	day_build_free(*slot);
	*slot = day_build_failed(status, tide_error_last());
	tide_error_clear();
}

static int build_day_opts(struct build_opts *opts, const struct build_day_opts *o,
			  const char *wsdir, const char *log)
{
	build_opts_init(opts, wsdir, log, o);
	if (!opts->fragment && !opts->config)
		return tide_error_set(TIDE_ENOTFOUND,
				      "no config fragment: kernel-tests/smoke.config not found "
				      "(set TIDE_KERNEL_TESTS or give one)");
	return 0;
}

struct day_build **build_day_slot(struct day *day, const struct build_day_opts *o)
{
	if (o && o->config && o->extra)
		return &day_config_get(day, o->config->name)->build;
	return &day->build;
}

char *build_day_log_name(const struct build_day_opts *o)
{
	if (o && o->config && o->extra)
		return xasprintf("build.%s.log", o->config->name);
	return xstrdup("build.log");
}

static int config_was_ok(const struct day *d, void *data)
{
	const struct day_config *c = day_find_config(d, data);

	return c && c->build && c->build->status && !strcmp(c->build->status, "ok");
}

/*
 * The day new warnings are counted against: prev for the day's own
 * build; for another configuration, the newest day before whose build of
 * that configuration succeeded (NULL: none).
 */
static struct day *previous_config_day(const char *wsdir, const struct day *day,
				       const struct build_day_opts *o)
{
	char *days = workspace_days_dir(wsdir);
	struct day *found = NULL;

	if (day->date && day_previous(&found, days, day->date, 0, config_was_ok,
				      (void *)o->config->name) < 0)
		found = NULL;
	tide_error_clear();
	free(days);
	return found;
}

int build_day(struct day *day, git_repository *repo, const char *wsdir,
	      const char *daydir, const struct day *prev,
	      const struct build_day_opts *o, struct build_result *res)
{
	struct build_result local;
	struct build_opts opts;
	struct day *own_prev = o && o->config && o->extra ? previous_config_day(wsdir, day, o) : NULL;
	const struct day_config *pc = own_prev ? day_find_config(own_prev, o->config->name) : NULL;
	const struct day_build *before = own_prev ? pc->build : o && o->config && o->extra ? NULL
				       : prev ? prev->build : NULL;
	char *name = build_day_log_name(o);
	char *log = path_join(daydir, name);
	char *tmp = xasprintf("%s.tmp", log);
	git_oid commit, base;
	int error, have_base;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	if ((error = build_day_opts(&opts, o, wsdir, tmp)) < 0 ||
	    (error = build_record_oid(&commit, day->commit, "commit")) < 0)
		goto done;
	have_base = build_record_oid(&base, day->base_commit, "base commit") == 0;
	tide_error_clear();
	opts.touched_base = have_base ? &base : NULL;
	if ((error = build_run(res, repo, &commit, &opts)) < 0)
		goto done;
	build_new_warnings(&res->new_warnings, &res->log.warnings,
			   before ? before->warnings : NULL);
	if ((error = build_attribute(repo, &commit, have_base ? &base : NULL,
				     &res->new_warnings)) < 0 ||
	    (error = build_attribute(repo, &commit, have_base ? &base : NULL,
				     &res->log.errors)) < 0)
		goto done;
	if (rename(tmp, log) < 0) {
		error = tide_error_errno(TIDE_EIO, "cannot rename '%s'", tmp);
		goto done;
	}
	build_record_set(build_day_slot(day, o), res, name);
done:
	if (res == &local)
		build_result_release(res);
	build_opts_release(&opts);
	day_free(own_prev);
	free(name);
	free(log);
	free(tmp);
	return error;
}
