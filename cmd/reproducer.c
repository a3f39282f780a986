/* tide reproducer: (re)write a day's reproducer.sh and metadata.json (man/tide-reproducer.1). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../src/conf.h"
#include "../src/day.h"
#include "../src/error.h"
#include "../src/reproducer.h"
#include "../src/util.h"
#include "../src/workspace.h"

static const char usage[] =
	"usage: tide reproducer [DATE]\n";

/*
 * The conf a first write records: the workspace's (-f or the remembered
 * one).  A rewrite keeps what metadata.json says the day ran with.
 */
static void conf_for_day(struct cmd_ctx *ctx, struct reproducer_input *in,
			 struct buf *text, const char *daydir)
{
	char *meta = path_join(daydir, REPRODUCER_METADATA);

	if (!path_exists(meta) && cmd_load_conf(ctx) == 0 && ctx->conf &&
	    file_read_text(text, ctx->conf->path) == 0) {
		in->conf_path = ctx->conf->path;
		in->conf_text = buf_cstr(text);
	}
	tide_error_clear();
	free(meta);
}

int cmd_reproducer(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct reproducer_input in = { 0 };
	struct buf conf = BUF_INIT;
	struct day *day = NULL;
	char *date = NULL, *daydir = NULL;
	int c, status = EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return EXIT_OK;
		}
		return cmd_usage(usage);
	}
	if (argc - optind > 1)
		return cmd_usage(usage);
	if (optind < argc && !(date = cmd_day_arg(argv[optind])))
		return cmd_fail(NULL);
	if (cmd_load_days(&day, NULL, ctx->ws, date) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	daydir = xasprintf("%s/days/%s", ctx->ws->dir, day->date);
	in.wsdir = ctx->ws->dir;
	in.repo = ctx->ws->repo;
	in.day = day;
	conf_for_day(ctx, &in, &conf, daydir);
	if (reproducer_write(daydir, &in) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	printf("%s/%s\n", daydir, REPRODUCER_SCRIPT);
	status = cmd_finish_stdout(EXIT_OK);
done:
	buf_release(&conf);
	day_free(day);
	free(daydir);
	free(date);
	return status;
}
