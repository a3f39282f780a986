/*
 * tide try SERIES: does a developer's series apply to the day, which
 * trees does it collide with, does it build and boot on top of it.  The
 * report reads like the kernel test robot's mails: what was tested on,
 * one result per step, the new diagnostics with file:line.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "opt.h"
#include "../src/boot.h"
#include "../src/buildconf.h"
#include "../src/day.h"
#include "../src/error.h"
#include "../src/merge.h"
#include "../src/try.h"
#include "../src/util.h"
#include "../src/workspace.h"

/* Kernel builds yield to interactive work on the machine. */
#define TRY_NICE 10

struct try_cli {
	const char *series, *date, *repo, *config;
	int build, boot, json;
	struct build_day_opts bo;
};

/* What the try found, as the report and the JSON name it. */
struct outcome {
	struct try_result res;
	struct try_build build;
	int built;
	const char *build_skipped;	/* why not, when asked */
	struct boot_result boot;
	int booted;
	json_t *problems;		/* ["apply", "conflict", "build", "warnings", "boot"] */
};

static void print_indented(const char *text, const char *indent)
{
	const char *p, *nl;

	for (p = text; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		printf("%s%.*s\n", indent, nl ? (int)(nl - p) : (int)strlen(p), p);
		if (!nl)
			break;
	}
}

static void print_header(const struct try_series *s, const struct day *day,
			 const struct outcome *o)
{
	printf("tide try: %zu patch%s from '%s' on %s\n\n", s->n, s->n == 1 ? "" : "es",
	       s->source, day->tag ? day->tag : day->date);
	printf("tested on:\n");
	printf("  day:         %s %s %.12s\n", day->date, day->tag ? day->tag : "", day->commit);
	printf("  base:        %s %.12s\n", day->base_tag ? day->base_tag : "", day->base_commit);
	if (s->base_commit)
		printf("  base-commit: %s (from the series)\n", s->base_commit);
	if (o->res.have_tip)
		printf("  commit:      %s (the series on the day)\n", git_oid_tostr_s(&o->res.tip));
	putchar('\n');
}

static void print_applies(const struct try_series *s, const struct try_result *r)
{
	size_t i;

	printf("apply:\n");
	for (i = 0; i < r->napplies; i++) {
		const struct try_apply *a = &r->applies[i];
		char *what = !strcmp(a->onto_name, "after") ? xstrdup(a->onto_label) :
			     xasprintf("%s (%s)", a->onto_name, a->onto_label);

		printf("  %-28s ", what);
		free(what);
		if (a->ok) {
			printf("ok\n");
			continue;
		}
		if (a->failed >= s->n) {
			printf("failed: %s\n", a->error ? a->error : "?");
			continue;
		}
		/* The applier's message names the file and the lines that differ. */
		printf("failed: patch %zu/%zu \"%s\": %s\n", a->failed + 1, s->n,
		       s->v[a->failed].subject, a->error ? a->error : "does not apply");
		if (a->hunk)
			print_indented(a->hunk, "      ");
	}
	putchar('\n');
}

static void print_trees(const struct try_result *r)
{
	size_t i, j, k;

	printf("trees (the series merged from %s):\n",
	       r->home >= 0 ? r->applies[r->home].onto_label : "nowhere: it applies nowhere");
	for (i = 0; i < r->ntrees; i++) {
		const struct try_tree *t = &r->trees[i];

		printf("  %-20s %s", t->name, try_tree_status_name(t->status));
		if (t->status == TRY_TREE_NOT_MERGED)
			printf(" (the day: %s)", t->day_status ? t->day_status : "?");
		else if (t->status == TRY_TREE_NEEDED)
			printf(" (the series applies from this tree on)");
		for (j = 0; j < t->nconflicts; j++)
			printf("%s%s (%s)", j ? ", " : ": ", t->conflicts[j].path, t->conflicts[j].kind);
		putchar('\n');
		for (j = 0; j < t->nconflicts; j++) {
			const struct try_conflict *c = &t->conflicts[j];

			printf("      %s:\n", c->path);
			for (k = 0; k < c->nhunks; k++)
				print_indented(c->hunks[k], "        ");
			for (k = 0; k < c->ncommits; k++)
				printf("        %s commit %s\n", t->name, c->commits[k]);
		}
	}
	putchar('\n');
}

static void print_diag(const char *what, const struct build_diag *d)
{
	printf("  %s: ", what);
	if (d->file && d->line && d->column)
		printf("%s:%d:%d: ", d->file, d->line, d->column);
	else if (d->file && d->line)
		printf("%s:%d: ", d->file, d->line);
	else if (d->file)
		printf("%s: ", d->file);
	printf("%s\n", d->message);
}

static void print_build(const struct outcome *o)
{
	const struct build_result *b = &o->build.res;
	size_t i;

	if (o->build_skipped) {
		printf("build: skipped: %s\n", o->build_skipped);
		return;
	}
	if (!o->built)
		return;
	printf("build: %s", b->ok ? "ok" : "failed");
	if (!b->ok)
		printf(": %s", b->failure ? b->failure : "?");
	printf(" (%.1f s, %zu files checked out%s%s), %zu new errors, %zu new warnings\n",
	       b->seconds, b->checkout.written, o->build.seeded ? ", seeded from the day's build" : "",
	       o->build.baseline_built ? ", the day built first" : "",
	       o->build.new_errors.n, o->build.new_warnings.n);
	for (i = 0; i < o->build.new_errors.n; i++)
		print_diag("error", &o->build.new_errors.v[i]);
	for (i = 0; i < o->build.new_warnings.n; i++)
		print_diag("warning", &o->build.new_warnings.v[i]);
	printf("  log: %s\n", o->build.log);
}

static void print_boot(const struct outcome *o)
{
	const struct boot_verdict *v = &o->boot.verdict;

	if (!o->booted)
		return;
	printf("boot: %s", boot_status_name(v->status));
	if (v->reason)
		printf(": %s", v->reason);
	printf(" (%.1f s): %d passed, %d failed, %d skipped\n", o->boot.seconds, v->pass,
	       v->fail, v->skip);
}

static void print_report(const struct try_series *s, const struct day *day,
			 const struct outcome *o)
{
	size_t i;
	json_t *p;

	print_header(s, day, o);
	print_applies(s, &o->res);
	print_trees(&o->res);
	print_build(o);
	print_boot(o);
	if (!json_array_size(o->problems)) {
		printf("result: ok\n");
		return;
	}
	printf("result: problems:");
	json_array_foreach(o->problems, i, p)
		printf(" %s", json_string_value(p));
	putchar('\n');
}

static json_t *build_json(const struct outcome *o)
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

static void print_json(const struct try_series *s, const struct day *day,
		       const struct outcome *o)
{
	json_t *j = try_result_json(&o->res, s, day);

	if (o->built || o->build_skipped)
		json_object_set_new(j, "build", build_json(o));
	if (o->booted)
		json_object_set_new(j, "boot", boot_result_json(&o->boot, "console.log"));
	json_object_set(j, "problems", o->problems);
	json_object_set_new(j, "result", json_string(json_array_size(o->problems) ? "problems" : "ok"));
	json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(j);
}

static void note_problems(struct outcome *o)
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
static int boot_try(struct outcome *o, const char *wsdir, const struct build_config *c)
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

/* --build and --boot: only on a series that applies to the day. */
static int build_and_boot(struct outcome *o, struct cmd_ctx *ctx, const struct try_cli *cli,
			  const struct day *day)
{
	int fd = -1, error;

	if (!o->res.have_tip) {
		o->build_skipped = "the series does not apply to the day";
		return 0;
	}
	if ((error = try_lock(&fd, ctx->ws->dir)) < 0)
		return error;
	if ((error = try_build_run(&o->build, ctx->ws->repo, ctx->ws->dir, day, &o->res.tip,
				   &cli->bo)) == 0) {
		o->built = 1;
		if (cli->boot && o->build.res.ok)
			error = boot_try(o, ctx->ws->dir, cli->bo.config);
	}
	close(fd);
	return error;
}

static int load_day(struct day **out, struct workspace *ws, const char *arg)
{
	char *date = arg ? xstrdup(arg) : cmd_newest_day(ws), *days;
	int error;

	if (!date)
		return tide_error_code();
	days = workspace_days_dir(ws->dir);
	error = day_open(out, days, date);
	if (error == TIDE_ENOTFOUND)
		error = tide_error_set(TIDE_ENOTFOUND, "no day %s in workspace '%s'", date, ws->dir);
	free(days);
	free(date);
	return error;
}

static int try_run(struct cmd_ctx *ctx, const struct try_cli *cli)
{
	struct try_series s = { 0 };
	struct outcome o;
	struct day *day = NULL;
	struct merge_objects *mo = NULL;
	int status;

	memset(&o, 0, sizeof(o));
	/* Every object a try writes stays in memory: the workspace is not changed. */
	if (try_odb_readonly(ctx->ws->repo) < 0 || merge_objects_begin(&mo, ctx->ws->repo) < 0 ||
	    load_day(&day, ctx->ws, cli->date) < 0 ||
	    try_series_load(&s, ctx->ws->repo, cli->series, cli->repo) < 0 ||
	    try_day(&o.res, ctx->ws->repo, day, &s) < 0 ||
	    ((cli->build || cli->boot) && build_and_boot(&o, ctx, cli, day) < 0)) {
		status = cmd_fail(NULL);
		goto done;
	}
	note_problems(&o);
	if (cli->json)
		print_json(&s, day, &o);
	else
		print_report(&s, day, &o);
	status = json_array_size(o.problems) ? EXIT_PROBLEMS : EXIT_OK;
done:
	json_decref(o.problems);
	boot_result_release(&o.boot);
	try_build_release(&o.build);
	try_result_release(&o.res);
	try_series_release(&s);
	day_free(day);
	merge_objects_free(mo);
	return status;
}

int cmd_try(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct try_cli cli = { .bo = { .nice = TRY_NICE } };
	const char *jobs = NULL;
	const struct opt_spec specs[] = {
		{ OPT_ARG, "series", 0, &cli.series, 0, OPT_BARE | OPT_MANDATORY, "SERIES",
		  "an mbox, a patch, a directory of patches or A..B of --repo" },
		{ OPT_VALUE, "day", 0, &cli.date, 0, 0, "DATE", "the day to try against (default: the newest)" },
		{ OPT_VALUE, "repo", 0, &cli.repo, 0, 0, "PATH", "the repository of an A..B series" },
		{ OPT_SWITCH, "build", 0, &cli.build, 1, 0, NULL, "build the day with the series" },
		{ OPT_SWITCH, "boot", 0, &cli.boot, 1, 0, NULL, "build and boot it, with the smoke tests" },
		{ OPT_VALUE, "config", 0, &cli.config, 0, 0, "NAME",
		  "a configuration of trees.conf, or a fragment file (default: the first declared)" },
		{ OPT_VALUE, "jobs", 0, &jobs, 0, 0, "N", "make -j N" },
		{ OPT_SWITCH, "json", 0, &cli.json, 1, 0, NULL, "print the result as JSON" },
		{ 0 },
	};
	char *end;
	int status;

	if ((status = opt_parse("try", specs, argc, argv, 0)) != 0)
		return status < 0 ? EXIT_OK : status;
	if (cli.boot)
		cli.build = 1;
	if (jobs && ((cli.bo.jobs = (int)strtol(jobs, &end, 10)) < 1 || *end))
		return opt_usage_error("try", specs, "--jobs wants a positive number, not '%s'", jobs);
	if ((status = cmd_open(ctx, ctx->open_flags)) != 0)
		return status;
	if (cli.date && !day_date_is_valid(cli.date)) {
		cmd_error("'%s' is not a day (YYYY-MM-DD)", cli.date);
		return EXIT_BADINPUT;
	}
	/* The day's own configuration unless told: its build is the baseline. */
	if (cli.build && cli.config && (status = cmd_pick_config(ctx, &cli.bo, cli.config)) != 0)
		return status;
	if (cli.build && !cli.config && (status = cmd_first_config(&cli.bo.config, ctx)) != 0)
		return status;
	return try_run(ctx, &cli);
}
