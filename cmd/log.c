#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "opt.h"
#include "changes.h"
#include "day.h"
#include "error.h"
#include "util.h"
#include "workspace.h"

static void print_day(const struct day *d)
{
	struct day_counts c;
	const char *s;

	day_counts(&c, d);
	printf("%s  %s  %zu/%zu merged", d->date, d->tag ? d->tag : "-", c.merged, c.trees);
	if (c.conflicts)
		printf("  %zu conflict%s", c.conflicts, c.conflicts == 1 ? "" : "s");
	if (c.previous)
		printf("  %zu at an earlier version", c.previous);
	if (c.not_merged)
		printf("  %zu not merged", c.not_merged);
	if (c.stale)
		printf("  %zu not fetched (older commit used)", c.stale);
	if (c.unapplied)
		printf("  %zu with a patch that does not apply (older commit used)", c.unapplied);
	if (d->build && (s = d->build->status))
		printf("  build: %s", s);
	if (d->boot && (s = d->boot->status))
		printf("  boot: %s", s);
	/* The other configurations, each "NAME: build[/boot]" (man/tide-build.1, CONFIGURATIONS). */
	for (size_t i = 0; i < d->nconfigs; i++) {
		const struct day_config *dc = &d->configs[i];

		printf("  %s: %s", dc->name, dc->build && dc->build->status ? dc->build->status : "-");
		if (dc->boot && dc->boot->status)
			printf("/%s", dc->boot->status);
	}
	putchar('\n');
}

/* tide log --changes [DAY]: linux-next's "Changes since" section of DAY. */
static int print_changes(struct cmd_ctx *ctx, const char *arg)
{
	struct day *d = NULL, *prev = NULL;
	struct buf text = BUF_INIT;
	char *date = NULL;
	int status = EXIT_OK;

	if (arg && !(date = cmd_day_arg(arg))) {
		cmd_error("%s", tide_error_last());
		return EXIT_USAGE;
	}
	if (cmd_load_days(&d, &prev, ctx->ws, date) < 0) {
		status = cmd_fail(NULL);
	} else if (!prev) {
		printf("%s is the first day: nothing to compare with\n", d->date);
	} else {
		changes_text(&text, ctx->ws->repo, prev, d);
		fputs(buf_cstr(&text), stdout);
	}
	buf_release(&text);
	day_free(d);
	day_free(prev);
	free(date);
	return status;
}

int cmd_log(struct cmd_ctx *ctx, int argc, char **argv)
{
	char *days = NULL, **dates = NULL;
	const char *day = NULL;
	int n, i, status = EXIT_OK, changes = 0;
	const struct opt_spec specs[] = {
		{ OPT_FORM, NULL, 0, NULL, 0, 0, NULL, NULL },
		{ OPT_SWITCH, "changes", 0, &changes, 1, OPT_BARE, NULL,
		  "what changed in DAY since the day before (default: the newest day)" },
		{ OPT_ARG, "day", 0, &day, 0, 0, "DAY", "YYYY-MM-DD or next-YYYYMMDD" },
		{ 0 },
	};

	if ((status = opt_parse("log", specs, argc, argv, 0)) != 0)
		return status < 0 ? EXIT_OK : status;
	if (day && !changes)
		return opt_usage_error("log", specs, "unexpected argument '%s' (DAY goes with --changes)", day);
	if ((status = cmd_open(ctx, ctx->open_flags)) != 0)
		return status;
	if (changes)
		return print_changes(ctx, day);
	days = workspace_days_dir(ctx->ws->dir);
	if ((n = day_list(&dates, days)) < 0) {
		free(days);
		return cmd_fail(NULL);
	}
	for (i = n - 1; i >= 0; i--) {	/* newest first, like git log */
		struct day *d = NULL;

		if (day_open(&d, days, dates[i]) < 0) {
			/* One broken record hides no other day, as run and dashboard pass it over. */
			printf("%s  -  unreadable\n", dates[i]);
			cmd_error("warning: %s", tide_error_last());
			tide_error_clear();
		} else {
			print_day(d);
		}
		day_free(d);
	}
	day_list_free(dates, n);
	free(days);
	return cmd_finish_stdout(status);
}
