/* tide reproducer: (re)write a day's reproducer.sh and metadata.json (man/tide-reproducer.1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opt.h"
#include "conf.h"
#include "day.h"
#include "error.h"
#include "reproducer.h"
#include "util.h"
#include "workspace.h"

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
	struct reproducer_input in = { 0 };
	struct buf conf = BUF_INIT;
	struct day *day = NULL;
	const char *arg = NULL;
	char *date = NULL, *daydir = NULL;
	int status = EXIT_OK;
	const struct opt_spec specs[] = {
		{ OPT_ARG, "date", 0, &arg, 0, 0, "DATE",
		  "YYYY-MM-DD or next-YYYYMMDD (default: the newest day)" },
		{ 0 },
	};

	if ((status = opt_parse("reproducer", specs, argc, argv, 0)) != 0)
		return status < 0 ? EXIT_OK : status;
	if ((status = cmd_open(ctx, ctx->open_flags)) != 0)
		return status;
	if (arg && !(date = cmd_day_arg(arg)))
		return cmd_fail(NULL);
	if (cmd_load_days(&day, NULL, ctx->ws, date) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	daydir = workspace_day_dir(ctx->ws->dir, day->date);
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
