#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opt.h"
#include "build.h"
#include "buildconf.h"
#include "conf.h"
#include "day.h"
#include "error.h"
#include "event.h"
#include "util.h"
#include "workspace.h"

/* Kernel builds yield to interactive work on the machine. */
#define BUILD_NICE 10

static void print_diag(const char *what, const struct build_diag *d)
{
	printf("%s: ", what);
	if (d->file && d->line && d->column)
		printf("%s:%d:%d: ", d->file, d->line, d->column);
	else if (d->file && d->line)
		printf("%s:%d: ", d->file, d->line);
	else if (d->file)
		printf("%s: ", d->file);
	printf("%s", d->message);
	if (d->tree)
		printf(" (%s)", d->tree);
	putchar('\n');
}

/* The shared cache's and distcc's lines, as tide show has them. */
static void print_farm(const struct build_result *res)
{
	struct day_build *rec = build_result_record(res, NULL);
	struct buf b = BUF_INIT;

	build_farm_summary(&b, rec->ccache_stats, rec->distcc, rec->remote_cache, "");
	fputs(buf_cstr(&b), stdout);
	buf_release(&b);
	day_build_free(rec);
}

static void print_result(const struct build_result *res, const char *log)
{
	size_t i;

	if (res->config)
		printf("config: %s (%s)\n", res->config, res->arch ? res->arch : "?");
	if (res->ok)
		printf("build: ok");
	else
		printf("build: failed: %s", res->failure ? res->failure : "unknown");
	printf(" (%.1f s: checkout %.1f s, config %.1f s, make %.1f s), "
	       "%zu warnings, %zu new\n", res->seconds, res->checkout_seconds,
	       res->config_seconds, res->make_seconds, res->log.warnings.n,
	       res->new_warnings.n);
	for (i = 0; i < res->log.errors.n; i++)
		print_diag("error", &res->log.errors.v[i]);
	if (res->log.nerrors_total > res->log.errors.n)
		printf("error: ... %zu more\n", res->log.nerrors_total - res->log.errors.n);
	for (i = 0; i < res->new_warnings.n; i++)
		print_diag("new warning", &res->new_warnings.v[i]);
	print_farm(res);
	if (res->kernel)
		printf("kernel: %s\n", res->kernel);
	printf("log: %s\n", log);
}

static int build_one_day(struct cmd_ctx *ctx, const char *date,
			 const struct build_day_opts *o)
{
	char *daydir = workspace_day_dir(ctx->ws->dir, date);
	char *path = workspace_daydir_json(daydir), *name = build_day_log_name(o);
	char *log = path_join(daydir, name);
	struct day *day = NULL, *prev = NULL;
	struct build_result res = { 0 };
	char *days = NULL;
	int status;

	if (day_load(&day, path) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	days = workspace_days_dir(ctx->ws->dir);
	prev = build_previous_day(days, date);
	if (build_day(day, ctx->ws->repo, ctx->ws->dir, daydir, prev, o, &res) < 0 ||
	    day_save(day, path) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	print_result(&res, log);
	status = res.ok ? EXIT_OK : EXIT_PROBLEMS;
done:
	build_result_release(&res);
	day_free(day);
	day_free(prev);
	free(days);
	free(daydir);
	free(path);
	free(name);
	free(log);
	return status;
}

/* A revision, not a day: no record, the log in DIR/build/build.log. */
static int build_one_rev(struct cmd_ctx *ctx, const char *rev,
			 const struct build_day_opts *o)
{
	struct build_result res = { 0 };
	struct build_opts opts;
	git_object *obj = NULL, *commit = NULL;
	int status;

	build_opts_init(&opts, ctx->ws->dir, NULL, o);
	if (git_revparse_single(&obj, ctx->ws->repo, rev) < 0 ||
	    git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		tide_error_git(TIDE_ENOTFOUND, "unknown revision '%s'", rev);
		status = cmd_fail(NULL);
		goto done;
	}
	if (!opts.fragment && !opts.config) {
		cmd_error("no config fragment: kernel-tests/smoke.config not found "
			  "(set TIDE_KERNEL_TESTS or use --config)");
		status = EXIT_BADINPUT;
		goto done;
	}
	if (build_run(&res, ctx->ws->repo, git_object_id(commit), &opts) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	print_result(&res, opts.log_path);
	status = res.ok ? EXIT_OK : EXIT_PROBLEMS;
done:
	build_result_release(&res);
	build_opts_release(&opts);
	git_object_free(commit);
	git_object_free(obj);
	return status;
}

int cmd_build(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct build_day_opts o = { .nice = BUILD_NICE };
	const char *arg = NULL, *jobs = NULL, *config = NULL;
	const struct opt_spec specs[] = {
		{ OPT_ARG, "day", 0, &arg, 0, 0, "DAY|REV", "a day (default: the newest) or any revision" },
		{ OPT_VALUE, "config", 0, &config, 0, 0, "NAME",
		  "a configuration trees.conf declares (or a fragment file)" },
		{ OPT_VALUE, "fragment", 0, &o.fragment, 0, 0, "FILE",
		  "config fragment onto tinyconfig (default: kernel-tests/smoke.config)" },
		{ OPT_VALUE, "jobs", 'j', &jobs, 0, 0, "N", "make -j N" },
		{ OPT_SWITCH, "no-ccache", 0, &o.no_ccache, 1, 0, NULL, "compile without ccache" },
		{ 0 },
	};
	struct cmd_progress p = { ctx->progress, 0 };
	struct event_sink sink = { cmd_on_event, &p };
	char *date = NULL, *end;
	int status;

	if ((status = opt_parse("build", specs, argc, argv, 0)) != 0)
		return status < 0 ? EXIT_OK : status;
	if (jobs && ((o.jobs = (int)strtol(jobs, &end, 10)) < 1 || *end))
		return opt_usage_error("build", specs, "--jobs wants a positive number, not '%s'", jobs);
	if (config && o.fragment)
		return opt_usage_error("build", specs, "--config and --fragment exclude each other");
	if ((status = cmd_open(ctx, ctx->open_flags)) != 0)
		return status;
	if (config && (status = cmd_pick_config(ctx, &o, config)) != 0)
		return status;
	/* Neither: the day's own configuration, as tide run built it. */
	if (!config && !o.fragment && (status = cmd_first_config(&o.config, ctx)) != 0)
		return status;
	if (o.fragment && !path_exists(o.fragment)) {
		cmd_error("config fragment '%s' does not exist", o.fragment);
		return EXIT_BADINPUT;
	}
	/* DIR/config's build settings, before anything is looked up or built. */
	if (build_farm_check(ctx->ws->dir) < 0)
		return cmd_fail(NULL);
	o.events = &sink;
	if (arg && !day_date_is_valid(arg)) {
		status = build_one_rev(ctx, arg, &o);
		cmd_progress_end(&p);
		return status;
	}
	date = arg ? xstrdup(arg) : cmd_newest_day(ctx->ws);
	if (!date) {
		cmd_error("no day to build yet; run 'tide run' or name a revision");
		return EXIT_BADINPUT;
	}
	status = build_one_day(ctx, date, &o);
	cmd_progress_end(&p);
	free(date);
	return status;
}
