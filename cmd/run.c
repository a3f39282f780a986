#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "opt.h"
#include "changes.h"
#include "build.h"
#include "conf.h"
#include "day.h"
#include "error.h"
#include "event.h"
#include "kcidb.h"
#include "run.h"
#include "settings.h"
#include "workspace.h"

static int parse_args(struct run_opts *opts, const char **configs, int argc, char **argv)
{
	const char *jobs = NULL, *parallel = NULL, *build_jobs = NULL;
	const struct opt_spec specs[] = {
		{ OPT_VALUE, "date", 0, &opts->date, 0, 0, "YYYY-MM-DD",
		  "integrate this day (default: today, UTC)" },
		{ OPT_SWITCH, "no-build", 0, &opts->no_build, 1, 0, NULL, "do not build the kernel" },
		{ OPT_SWITCH, "no-boot", 0, &opts->no_boot, 1, 0, NULL, "do not boot the kernel" },
		{ OPT_VALUE, "jobs", 'j', &jobs, 0, 0, "N", "fetch N trees at a time (1 to 64)" },
		{ OPT_VALUE, "configs", 0, configs, 0, 0, "NAME[,NAME...]",
		  "build only these of trees.conf's configurations" },
		{ OPT_VALUE, "build-parallel", 0, &parallel, 0, 0, "N",
		  "build N configurations side by side (1 to 64; trees.conf's build-parallel=)" },
		{ OPT_VALUE, "build-jobs", 0, &build_jobs, 0, 0, "N",
		  "make jobs for all builds together (1 to 1024; trees.conf's build-jobs=)" },
		{ 0 },
	};
	char *end;
	int status;

	if ((status = opt_parse("run", specs, argc, argv, 0)) != 0)
		return status;
	if (jobs) {
		opts->jobs = (int)strtol(jobs, &end, 10);
		if (*end || opts->jobs < 1 || opts->jobs > 64)
			return opt_usage_error("run", specs, "bad --jobs '%s' (1 to 64)", jobs);
	}
	if (parallel) {
		opts->build_parallel = (int)strtol(parallel, &end, 10);
		if (!*parallel || *end || opts->build_parallel < 1 || opts->build_parallel > 64)
			return opt_usage_error("run", specs, "bad --build-parallel '%s' (1 to 64)",
					       parallel);
	}
	if (build_jobs) {
		opts->build_jobs = (int)strtol(build_jobs, &end, 10);
		if (!*build_jobs || *end || opts->build_jobs < 1 || opts->build_jobs > 1024)
			return opt_usage_error("run", specs, "bad --build-jobs '%s' (1 to 1024)",
					       build_jobs);
	}
	if (opts->date && !day_date_is_valid(opts->date))
		return opt_usage_error("run", specs, "bad date '%s' for --date (expected YYYY-MM-DD)",
				       opts->date);
	return 0;
}

/*
 * DIR/config's merge-memory (tide-config(5)): what one tree's merge may
 * add to the run's memory.  A bad value is bad input naming its line.
 */
static int merge_memory_setting(struct run_opts *opts, struct cmd_ctx *ctx)
{
	const char *v = ctx->settings ? settings_get(ctx->settings, "merge-memory") : NULL;
	long long n;
	char *path;

	if (!v)
		return EXIT_OK;
	if ((n = conf_parse_size(v)) >= (1LL << 20)) {
		opts->merge_memory = (size_t)n;
		return EXIT_OK;
	}
	path = workspace_config(ctx->ws->dir);
	cmd_error("%s:%zu: bad merge-memory '%s' (bytes, or a number with K, M or G, "
		  "from 1M to 64G)", path, settings_line_of(ctx->settings, "merge-memory"), v);
	free(path);
	return EXIT_BADINPUT;
}

/* The day's "Changes since" section (src/changes.h), after the summary line. */
static void print_changes(struct cmd_ctx *ctx, const char *date)
{
	struct day *d = NULL, *prev = NULL;
	struct buf text = BUF_INIT;

	if (cmd_load_days(&d, &prev, ctx->ws, date) == 0 && prev) {
		changes_text(&text, ctx->ws->repo, prev, d);
		printf("\n%s", buf_cstr(&text));
	}
	tide_error_clear();	/* the section is a courtesy: the day is recorded */
	buf_release(&text);
	day_free(d);
	day_free(prev);
}

int cmd_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct run_opts opts = RUN_OPTS_INIT;
	struct run_summary sum;
	const struct day_counts *c = &sum.counts;
	struct cmd_progress p = { ctx->progress, 0 };
	const char *configs = NULL;
	int status, error;

	if ((status = parse_args(&opts, &configs, argc, argv)) != 0)
		return status < 0 ? EXIT_OK : status;
	if ((status = cmd_open(ctx, ctx->open_flags)) != 0)
		return status;
	if (configs && trees_conf_select_configs(ctx->conf, configs) < 0)
		return cmd_fail("--configs");
	opts.events.fn = cmd_on_event;
	opts.events.data = &p;
	opts.settings = ctx->settings;
	/* DIR/config's build settings are checked before the day starts. */
	if (!opts.no_build && build_farm_check(ctx->ws->dir) < 0)
		return cmd_fail(NULL);
	if ((status = cmd_kcidb_check_settings(ctx)) != EXIT_OK ||
	    (status = merge_memory_setting(&opts, ctx)) != EXIT_OK)
		return status;
	error = run_day(&sum, ctx->ws, ctx->conf, &opts);
	cmd_progress_end(&p);
	if (error < 0) {
		run_summary_release(&sum);
		return cmd_fail(NULL);
	}
	printf("%s: %zu of %zu trees merged", sum.tag, c->merged, c->trees);
	if (c->conflicts + c->not_merged)
		printf(", %zu left out", c->conflicts + c->not_merged);
	if (c->stale)
		printf(", %zu not fetched (older commit used)", c->stale);
	if (c->unapplied)
		printf(", %zu with a patch that does not apply (older commit used)", c->unapplied);
	if (c->previous)
		printf(", %zu at an earlier day's version", c->previous);
	printf("\n");
	status = EXIT_OK;
	if (c->conflicts + c->not_merged || c->stale || c->unapplied || c->previous ||
	    sum.stage_failed) {
		printf("see 'tide show %s'\n", sum.date);
		status = EXIT_PROBLEMS;
	}
	print_changes(ctx, sum.date);
	/* The day is recorded whatever happened after: warnings and problems, never a failure. */
	if (sum.regressions_warning)
		cmd_error("warning: regressions not updated: %s", sum.regressions_warning);
	else if (sum.regressions_changes)
		printf("\nRegressions:\n%s", sum.regressions_changes);
	if (sum.dashboard_warning)
		cmd_error("warning: %s", sum.dashboard_warning);
	if (sum.dashboard_regressions_warning)
		cmd_error("warning: regressions left out: %s", sum.dashboard_regressions_warning);
	if (sum.kcidb_regressions_warning)
		cmd_error("warning: regressions left out: %s", sum.kcidb_regressions_warning);
	fflush(stdout);
	if (sum.kcidb_asked && cmd_kcidb_tell(&sum.kcidb, "run") != EXIT_OK)
		status = EXIT_PROBLEMS;
	run_summary_release(&sum);
	return status;
}
