#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "opt.h"
#include "bisect.h"
#include "build.h"
#include "day.h"
#include "error.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

/* DATE as YYYY-MM-DD, or next-YYYYMMDD; NULL: the newest day. */
static char *find_date(struct workspace *ws, const char *arg)
{
	return arg ? cmd_day_arg(arg) : cmd_newest_day(ws);
}

/* How a merged tree got in: from a recorded resolution, with fixups. */
static void print_handling(const struct day_tree *t)
{
	const struct day_handling *h = &t->handling;
	const char *handled = h->handled, *fixup_error = h->fixup_error;
	size_t i;

	if (handled && !strcmp(handled, "recorded"))
		printf("  resolved (recorded resolution)");
	if (h->nfixups) {
		printf("  fixed up:");
		for (i = 0; i < h->nfixups; i++)
			printf("%s%s", i ? ", " : " ", h->fixups[i]);
	}
	if (fixup_error)
		printf("  fixup failed");
}

static void print_tree(const struct day_tree *t, int width)
{
	const char *from, *why;
	size_t i;

	printf("  %-*s %-12s %.12s", width, t->name, tree_status_name(t->status) ?: "-",
	       t->sha ? t->sha : "-");
	print_handling(t);
	if ((from = t->handling.version_from))
		printf("  version of %s", from);
	if (t->fetch_status && strcmp(t->fetch_status, "ok"))
		printf("  fetch %s: %s", t->fetch_status, t->fetch_error ? t->fetch_error : "");
	putchar('\n');
	/* src/merge_day.c check_tip(): why fsck refused today's commit */
	if ((why = t->handling.rejected))
		printf("      %s\n", why);
	for (i = 0; i < t->nconflicts; i++)
		printf("      %s (%s)\n", t->conflicts[i].path, t->conflicts[i].kind);
}

/* The build and boot lines (src/build.h), freed here. */
static void print_stage(char *text)
{
	if (text)
		fputs(text, stdout);
	free(text);
}

static void print_day(const struct day *d)
{
	char *bisect, *base;
	size_t i;
	int width = 20;

	printf("%s  %s  %s\n", d->date, d->tag ? d->tag : "-", d->status ? d->status : "-");
	/* Records written before redaction may still hold a password. */
	base = d->base_url ? url_redact(d->base_url) : xstrdup("-");
	printf("base    %s %s %.12s\n", base,
	       d->base_tag ? d->base_tag : "-", d->base_commit ? d->base_commit : "-");
	free(base);
	printf("commit  %s\n", d->commit ? d->commit : "-");
	/* Columns stay aligned whatever the longest name (ref components have no wide characters). */
	for (i = 0; i < d->ntrees; i++)
		if ((int)strlen(d->trees[i].name) > width)
			width = (int)strlen(d->trees[i].name);
	for (i = 0; i < d->ntrees; i++)
		print_tree(&d->trees[i], width);
	print_stage(day_build_text(d->build));
	/* With other configurations, the day's own boot names its configuration too. */
	print_stage(day_boot_text(d->boot, d->nconfigs && d->build ? d->build->config : NULL));
	for (i = 0; i < d->nconfigs; i++) {
		if (!d->configs[i].build)
			printf("build   [%s] not built\n", d->configs[i].name);
		print_stage(day_build_text(d->configs[i].build));
		print_stage(day_boot_text(d->configs[i].boot, d->configs[i].name));
	}
	print_stage(day_checks_text(d->checks));
	bisect = day_bisect_text(d->bisect);
	if (bisect)
		printf("bisect  %s\n", bisect);
	free(bisect);
}

static int show_json(const char *path)
{
	json_t *json = NULL;

	if (day_json_read(&json, path) < 0)
		return cmd_fail(NULL);
	json_dumpf(json, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(json);
	return EXIT_OK;
}

static int parse_args(int argc, char **argv, int *json, const char **date)
{
	const struct opt_spec specs[] = {
		{ OPT_SWITCH, "json", 0, json, 1, 0, NULL, "print day.json as it is" },
		{ OPT_ARG, "date", 0, date, 0, 0, "DATE",
		  "YYYY-MM-DD or next-YYYYMMDD (default: the newest day)" },
		{ 0 },
	};

	return opt_parse("show", specs, argc, argv, 0);
}

int cmd_show(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *arg = NULL;
	char *date, *path = NULL, *days;
	struct day *d = NULL;
	int json = 0, status, error;

	if ((status = parse_args(argc, argv, &json, &arg)) != 0)
		return status < 0 ? EXIT_OK : status;
	if ((status = cmd_open(ctx, ctx->open_flags)) != 0)
		return status;
	if (!(date = find_date(ctx->ws, arg)))
		return cmd_fail(NULL);
	path = workspace_day_json(ctx->ws->dir, date);
	days = workspace_days_dir(ctx->ws->dir);
	/* --json prints the file as it is, once the loader has found it a day. */
	if ((error = day_open(&d, days, date)) == TIDE_ENOTFOUND) {
		cmd_error("no day %s in workspace '%s'", date, ctx->ws->dir);
		status = EXIT_BADINPUT;
	} else if (error < 0) {
		status = cmd_fail(NULL);
	} else if (json) {
		status = show_json(path);
	} else {
		print_day(d);
	}
	day_free(d);
	free(days);
	free(path);
	free(date);
	return status;
}
