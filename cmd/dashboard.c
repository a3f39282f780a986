/* tide dashboard: the workspace's days as static HTML pages (man/tide-dashboard.1). */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "opt.h"
#include "dashboard.h"
#include "error.h"
#include "util.h"
#include "workspace.h"

static void warn_unreadable(const struct dashboard_result *res)
{
	char *text = dashboard_unreadable_text(res);

	if (text)
		cmd_error("warning: %s", text);
	free(text);
	if (res->regressions_unreadable)
		cmd_error("warning: regressions left out: %s", res->regressions_unreadable);
}

int cmd_dashboard(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct dashboard_result res;
	const char *out_arg = NULL;
	char *out;
	int status;
	const struct opt_spec specs[] = {
		{ OPT_VALUE, "out", 0, &out_arg, 0, 0, "DIR", "write the pages to DIR (default: DIR/dashboard)" },
		{ 0 },
	};

	if ((status = opt_parse("dashboard", specs, argc, argv, 0)) != 0)
		return status < 0 ? EXIT_OK : status;
	if ((status = cmd_open(ctx, ctx->open_flags)) != 0)
		return status;
	out = out_arg ? xstrdup(out_arg) : workspace_dashboard(ctx->ws->dir);
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
