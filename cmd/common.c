/*
 * What the command table's flags ask for, done once before the command
 * runs: load trees.conf, open (or for `tide run`, create) the workspace,
 * take its lock.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd.h"
#include "buf.h"
#include "build.h"
#include "buildconf.h"
#include "conf.h"
#include "day.h"
#include "error.h"
#include "event.h"
#include "merge.h"
#include "settings.h"
#include "util.h"
#include "workspace.h"

/*
 * DIR/config (tide-config(5)); a workspace that does not exist yet has
 * none.  A TIDE_E* code with the error set; open_settings() says it.
 */
static int load_settings(struct cmd_ctx *ctx)
{
	char *path;
	int error;

	if (ctx->settings || !ctx->wsdir)
		return 0;
	path = workspace_config(ctx->wsdir);
	error = settings_load(&ctx->settings, path);
	free(path);
	return error;
}

/*
 * The content-merge limits of DIR/config (big-file-threshold,
 * merge-memory; tide-config(5)) for every merge of this command.
 */
static int apply_merge_limits(struct cmd_ctx *ctx)
{
	static const char *const keys[] = { "big-file-threshold", "merge-memory" };
	size_t v[2] = { 0, 0 };
	int i;

	for (i = 0; i < 2 && ctx->settings; i++) {
		const char *value = settings_get(ctx->settings, keys[i]);
		long long n = value ? conf_parse_size(value) : 0;

		if (n < 0) {
			char *path = workspace_config(ctx->wsdir);

			cmd_error("%s:%zu: bad %s '%s': a size (bytes, or with K, M or G)", path,
				  settings_line_of(ctx->settings, keys[i]), keys[i], value);
			free(path);
			return EXIT_BADINPUT;
		}
		v[i] = (size_t)n;
	}
	merge_set_limits(v[0], v[1]);
	return 0;
}

static int open_settings(struct cmd_ctx *ctx)
{
	return load_settings(ctx) < 0 ? cmd_fail(NULL) : apply_merge_limits(ctx);
}

/*
 * -f FILE, else the trees.conf the workspace remembers (key "trees" of
 * DIR/config, written by the first `tide -f FILE run`), else
 * DIR/trees.conf, else ./trees.conf without a workspace.
 */
static char *conf_path(const struct cmd_ctx *ctx)
{
	const char *remembered = ctx->settings ? settings_get(ctx->settings, "trees") : NULL;

	if (ctx->conf_path)
		return xstrdup(ctx->conf_path);
	if (remembered)
		return xstrdup(remembered);
	if (ctx->wsdir)
		return workspace_trees_conf(ctx->wsdir);
	return xstrdup("trees.conf");
}

/* trees.conf (conf_path()); a TIDE_E* code with the error set; open_conf() says it. */
static int load_conf(struct cmd_ctx *ctx)
{
	char *path;
	int error;

	if (ctx->conf)
		return 0;
	path = conf_path(ctx);
	error = trees_conf_load(&ctx->conf, path);
	free(path);
	return error;
}

static int open_conf(struct cmd_ctx *ctx)
{
	return load_conf(ctx) < 0 ? cmd_fail(NULL) : 0;
}

/*
 * `tide -f FILE run` remembers FILE (absolute) for the later commands; a
 * changed path is said on stderr, never replaced silently.  Other
 * commands read -f for themselves only.
 */
static int remember_conf(struct cmd_ctx *ctx)
{
	char abs[PATH_MAX];
	const char *old;

	if (!ctx->conf_path)
		return 0;
	if (!realpath(ctx->conf_path, abs)) {
		cmd_error("cannot resolve '%s': %s", ctx->conf_path, strerror(errno));
		return EXIT_FAILED;
	}
	old = settings_get(ctx->settings, "trees");
	if (old && !strcmp(old, abs))
		return 0;
	if (old)
		cmd_error("note: workspace '%s' now uses trees.conf '%s' (was '%s')",
			  ctx->ws->dir, abs, old);
	if (settings_set(ctx->settings, "trees", abs) < 0 || settings_save(ctx->settings) < 0)
		return cmd_fail(NULL);
	return 0;
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

	if ((flags & (NEED_CONF | NEED_WORKSPACE)) && (status = open_settings(ctx)) != 0)
		return status;
	/* The conf first: a bad conf must not leave a new, empty workspace behind. */
	if ((flags & NEED_CONF) && (status = open_conf(ctx)) != 0)
		return status;
	if ((flags & NEED_WORKSPACE) && !ctx->ws && (status = open_workspace(ctx, flags)) != 0)
		return status;
	if ((flags & TAKES_LOCK) && (flags & NEED_CONF) && (status = remember_conf(ctx)) != 0)
		return status;
	return 0;
}

int cmd_try_conf(struct cmd_ctx *ctx)
{
	int error;

	if ((error = load_settings(ctx)) < 0)
		return error;
	return load_conf(ctx);
}

int cmd_load_conf(struct cmd_ctx *ctx)
{
	int status;

	if ((status = open_settings(ctx)) != 0)
		return status;
	return open_conf(ctx);
}

void cmd_close(struct cmd_ctx *ctx)
{
	settings_free(ctx->settings);
	ctx->settings = NULL;
	workspace_free(ctx->ws);
	ctx->ws = NULL;
	trees_conf_free(ctx->conf);
	ctx->conf = NULL;
}

int cmd_first_config(const struct build_config **out, struct cmd_ctx *ctx)
{
	*out = NULL;
	if (cmd_try_conf(ctx) < 0) {
		tide_error_clear();
		return 0;
	}
	if (!ctx->conf->nconfigs || !ctx->conf->configs[0].line)
		return 0;
	if (build_config_check_files(&ctx->conf->configs[0]) < 0)
		return cmd_fail(NULL);
	*out = &ctx->conf->configs[0];
	return 0;
}

int cmd_find_config(const struct build_config **out, struct cmd_ctx *ctx, const char *name)
{
	char *names;
	int status;

	*out = NULL;
	if ((status = cmd_load_conf(ctx)) != 0)
		return status;
	if ((*out = trees_conf_find_config(ctx->conf, name)))
		return 0;
	names = trees_conf_config_names(ctx->conf);
	cmd_error("no configuration '%s' in %s (it declares: %s)", name, ctx->conf->path, names);
	free(names);
	return EXIT_BADINPUT;
}

/*
 * --config NAME: a configuration trees.conf declares (the first is the
 * day's own build, the others are recorded under "configs"); a NAME
 * that is not declared but is a file is a fragment, as --config was
 * before configurations were declared (then trees.conf need not exist).
 */
int cmd_pick_config(struct cmd_ctx *ctx, struct build_day_opts *o, const char *name)
{
	const struct build_config *c = NULL;
	int is_file = path_exists(name) && !path_is_dir(name);
	char *names;

	if (cmd_try_conf(ctx) < 0) {
		if (!is_file) {
			cmd_error("--config '%s': no fragment file of that name, and no "
				  "configurations to look it up in (%s)", name, tide_error_last());
			tide_error_clear();
			return EXIT_BADINPUT;
		}
		tide_error_clear();
	} else {
		c = trees_conf_find_config(ctx->conf, name);
	}
	if (c) {
		/* The default configuration builds as tide always has. */
		o->config = c->line ? c : NULL;
		o->extra = c != &ctx->conf->configs[0];
		if (o->config && build_config_check_files(c) < 0)
			return cmd_fail(NULL);
		return 0;
	}
	if (is_file) {
		o->fragment = name;
		return 0;
	}
	names = trees_conf_config_names(ctx->conf);
	cmd_error("no configuration '%s' in %s (it declares: %s), and no fragment file of that name",
		  name, ctx->conf->path, names);
	free(names);
	return EXIT_BADINPUT;
}

char *cmd_newest_day(struct workspace *ws)
{
	char *days = workspace_days_dir(ws->dir), *date = day_newest(days);

	if (!date && tide_error_code() == TIDE_ENOTFOUND)
		tide_error_set(TIDE_ENOTFOUND, "no day in workspace '%s' yet", ws->dir);
	free(days);
	return date;
}

char *cmd_day_arg(const char *arg)
{
	char date[11];

	return day_date_parse(date, arg) < 0 ? NULL : xstrdup(date);
}

/* DIR/days/DATE/day.json and, unless prev is NULL, the day before it (NULL if none). */
int cmd_load_days(struct day **day, struct day **prev, struct workspace *ws, const char *date)
{
	char *days = workspace_days_dir(ws->dir), **dates = NULL;
	int n = day_list(&dates, days), i, error = 0;

	*day = NULL;
	if (prev)
		*prev = NULL;
	for (i = n - 1; i >= 0; i--)
		if (!date || !strcmp(dates[i], date))
			break;
	if (n < 0) {
		error = n;
		goto done;
	}
	if (i < 0) {
		error = tide_error_set(TIDE_ENOTFOUND, "no day %s", date ? date : "recorded yet");
		goto done;
	}
	if ((error = day_open(day, days, dates[i])) < 0 || i == 0 || !prev)
		goto done;
	if (day_open(prev, days, dates[i - 1]) < 0) {
		*prev = NULL;	/* an unreadable earlier day only makes every conflict new */
		tide_error_clear();
	}
done:
	day_list_free(dates, n < 0 ? 0 : n);
	free(days);
	return error;
}

/*
 * A terminal keeps warnings and problems on screen and redraws one status
 * line for the rest; a log (cron) gets every message as a line, except
 * the redraws of a count.
 */
void cmd_on_event(void *arg, const struct event *ev)
{
	struct cmd_progress *p = arg;
	int stays = event_stays(ev->severity);

	if (!p->tty) {
		if (!ev->redraw)
			fprintf(stderr, "tide: %s\n", ev->message);
		return;
	}
	if (stays) {
		fprintf(stderr, "\r\033[K[%zu/%zu] %s\n", ev->done, ev->total, ev->message);
	} else {
		/* A status line longer than the terminal would wrap and not redraw. */
		struct winsize ws;
		int width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ?
			ws.ws_col - 12 : 68;

		if (ev->total)
			fprintf(stderr, "\r\033[K[%zu/%zu] %.*s", ev->done, ev->total, width,
				ev->message);
		else
			fprintf(stderr, "\r\033[K%.*s", width, ev->message);
	}
	p->drawn = !stays;
	fflush(stderr);
}

void cmd_progress_end(struct cmd_progress *p)
{
	if (p->tty && p->drawn)
		fputs("\r\033[K", stderr);
	p->drawn = 0;
}
