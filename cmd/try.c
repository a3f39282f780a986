/*
 * tide try SERIES: does a developer's series apply to the day, which
 * trees does it collide with, does it build and boot on top of it.  The
 * report reads like the kernel test robot's mails: what was tested on,
 * one result per step, the new diagnostics with file:line.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opt.h"
#include "boot.h"
#include "buildconf.h"
#include "day.h"
#include "error.h"
#include "try.h"
#include "util.h"

/* Kernel builds yield to interactive work on the machine. */
#define TRY_NICE 10

struct try_cli {
	const char *series, *date, *repo, *config;
	int build, boot, json;
	struct build_day_opts bo;
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
			 const struct try_outcome *o)
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

static void print_build(const struct try_outcome *o)
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

static void print_boot(const struct try_outcome *o)
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
			 const struct try_outcome *o)
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

static void print_json(const struct try_series *s, const struct day *day,
		       const struct try_outcome *o)
{
	json_t *j = try_result_json(&o->res, s, day);

	if (o->built || o->build_skipped)
		json_object_set_new(j, "build", try_build_json(o));
	if (o->booted)
		json_object_set_new(j, "boot", boot_result_json(&o->boot, "console.log"));
	json_object_set(j, "problems", o->problems);
	json_object_set_new(j, "result", json_string(json_array_size(o->problems) ? "problems" : "ok"));
	json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(j);
}

static int try_run(struct cmd_ctx *ctx, const struct try_cli *cli)
{
	struct try_request rq = { cli->series, cli->repo, cli->date, cli->build, cli->boot,
				  cli->bo };
	struct try_outcome o;
	int status;

	if (try_pipeline(&o, ctx->ws, &rq) < 0) {
		status = cmd_fail(NULL);
	} else {
		if (cli->json)
			print_json(&o.series, o.day, &o);
		else
			print_report(&o.series, o.day, &o);
		status = json_array_size(o.problems) ? EXIT_PROBLEMS : EXIT_OK;
	}
	try_outcome_release(&o);
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
