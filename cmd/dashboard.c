/* tide dashboard: the workspace's days as static HTML pages (man/tide-dashboard.1). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "../src/dashboard.h"
#include "../src/error.h"
#include "../src/util.h"
#include "../src/workspace.h"

static const char usage[] = "usage: tide dashboard [--out DIR]\n";

static void warn_unreadable(const struct dashboard_result *res)
{
	if (res->unreadable)
		cmd_error("warning: %zu day record%s could not be read, marked unreadable (%s)", res->unreadable,
			  res->unreadable == 1 ? "" : "s", res->first_unreadable);
}

int cmd_dashboard_regenerate(struct cmd_ctx *ctx)
{
	struct dashboard_result res;
	char *out = workspace_path(ctx->ws, "dashboard");
	int error = dashboard_write(&res, ctx->ws->dir, out);

	/* The day is recorded whatever happens here: a warning, never a failure. */
	if (error < 0)
		cmd_error("warning: %s", tide_error_last());
	else
		warn_unreadable(&res);
	tide_error_clear();
	dashboard_result_release(&res);
	free(out);
	return error;
}

int cmd_dashboard(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dashboard_result res;
	const char *out_arg = NULL;
	char *out;
	int c, status;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out_arg = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return EXIT_OK;
		default:
			return cmd_usage(usage);
		}
	}
	if (optind < argc) {
		cmd_error("unexpected argument '%s'", argv[optind]);
		return cmd_usage(usage);
	}
	out = out_arg ? xstrdup(out_arg) : workspace_path(ctx->ws, "dashboard");
	if (dashboard_write(&res, ctx->ws->dir, out) < 0) {
		status = cmd_fail(NULL);
	} else {
		warn_unreadable(&res);
		printf("dashboard: %zu days, %zu trees, %zu files in %s\n", res.days, res.trees,
		       res.pages, out);
		status = cmd_finish_stdout(EXIT_OK);
	}
	dashboard_result_release(&res);
	free(out);
	return status;
}
