/*
 * What the command table's flags ask for, done once before the command
 * runs: load trees.conf, open (or for `tide run`, create) the workspace,
 * take its lock.
 */
#include <stdlib.h>

#include "cmd.h"
#include "../src/conf.h"
#include "../src/day.h"
#include "../src/error.h"
#include "../src/util.h"
#include "../src/workspace.h"

static int open_conf(struct cmd_ctx *ctx)
{
	char *path;
	int error;

	if (ctx->conf_path)
		path = xstrdup(ctx->conf_path);
	else if (ctx->wsdir)
		path = path_join(ctx->wsdir, "trees.conf");
	else
		path = xstrdup("trees.conf");
	error = trees_conf_load(&ctx->conf, path);
	free(path);
	return error < 0 ? cmd_fail(NULL) : 0;
}

static int open_workspace(struct cmd_ctx *ctx, unsigned flags)
{
	/* Only the command that integrates (locks and reads the conf) creates a workspace. */
	unsigned wflags = (flags & TAKES_LOCK) && (flags & NEED_CONF) ? WORKSPACE_CREATE : 0;

	if (!ctx->wsdir) {
		cmd_error("no workspace: give -C DIR or set TIDE_DIR");
		return EXIT_USAGE;
	}
	if (workspace_open(&ctx->ws, ctx->wsdir, wflags) < 0)
		return cmd_fail(NULL);
	if ((flags & TAKES_LOCK) && workspace_lock(ctx->ws) < 0)
		return cmd_fail(NULL);
	return 0;
}

int cmd_open(struct cmd_ctx *ctx, unsigned flags)
{
	int status;

	/* The conf first: a bad conf must not leave a new, empty workspace behind. */
	if ((flags & NEED_CONF) && (status = open_conf(ctx)) != 0)
		return status;
	if ((flags & NEED_WORKSPACE) && (status = open_workspace(ctx, flags)) != 0)
		return status;
	return 0;
}

void cmd_close(struct cmd_ctx *ctx)
{
	workspace_free(ctx->ws);
	ctx->ws = NULL;
	trees_conf_free(ctx->conf);
	ctx->conf = NULL;
}

char *cmd_newest_day(struct workspace *ws)
{
	char *days = workspace_path(ws, "days"), *date = day_newest(days);

	if (!date && tide_error_code() == TIDE_ENOTFOUND)
		tide_error_set(TIDE_ENOTFOUND, "no day in workspace '%s' yet", ws->dir);
	free(days);
	return date;
}
