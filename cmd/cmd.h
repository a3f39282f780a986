#ifndef TIDE_CMD_H
#define TIDE_CMD_H

#include <stdio.h>

/*
 * Exit statuses, documented in tide(1).  A cron job can tell "the tool
 * broke" (3, 4, 5) from "the day completed with problems" (1).
 */
enum {
	EXIT_OK = 0,		/* success: the day is complete and clean */
	EXIT_PROBLEMS = 1,	/* completed, with trees left out or failures */
	EXIT_USAGE = 2,		/* bad command line */
	EXIT_BADINPUT = 3,	/* bad input: trees.conf, date, day, revision */
	EXIT_FAILED = 4,	/* the tool failed: I/O, repository, system */
	EXIT_LOCKED = 5,	/* another run holds the workspace lock */
};

/*
 * Table flags: what cmd_open(ctx, ctx->open_flags) prepares.  A command
 * parses its arguments first (cmd/opt.h) and then calls it, so a bad
 * option is a usage error even where there is no trees.conf or workspace.
 */
enum {
	NEED_WORKSPACE = 1 << 0,	/* open (-C DIR / $TIDE_DIR) */
	TAKES_LOCK = 1 << 1,		/* hold the workspace lock while running */
	NEED_CONF = 1 << 2,		/* load trees.conf */
};

struct workspace;
struct trees_conf;
struct settings;

struct cmd_ctx {
	const char *wsdir;		/* -C DIR or $TIDE_DIR; NULL if neither */
	const char *conf_path;		/* -f FILE or NULL (workspace default) */
	struct workspace *ws;		/* set when NEED_WORKSPACE */
	struct trees_conf *conf;	/* set when NEED_CONF */
	struct settings *settings;	/* DIR/config, loaded with the workspace or conf */
	int progress;			/* stderr is a terminal: draw progress */
	unsigned open_flags;		/* the table's flags, for cmd_open() */
};

struct cmd {
	const char *name;
	int (*fn)(struct cmd_ctx *ctx, int argc, char **argv);
	unsigned flags;
	const char *summary;
};

/* "tide: <msg>" on stderr. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report the library's last error and map its code to an exit status. */
int cmd_fail(const char *what);
/* Map a TIDE_E* code to an exit status. */
int cmd_exit_for(int code);
/* Print usage to stderr and return EXIT_USAGE. */
int cmd_usage(const char *usage);
/* Flush stdout; a failed write (EPIPE, full disk) is an error. */
int cmd_finish_stdout(int status);

/* Implemented in cmd/main.c: the command table. */
const struct cmd *cmd_find(const char *name);
void cmd_print_help(FILE *fp);

/* Implemented in cmd/common.c. */
struct event;
struct cmd_progress {
	int tty;	/* stderr is a terminal */
	int drawn;	/* a status line is on the screen */
};
/* An event_sink's fn (data: a struct cmd_progress): lines, or a status line on a terminal. */
void cmd_on_event(void *data, const struct event *ev);
/* Clear a status line left on the terminal. */
void cmd_progress_end(struct cmd_progress *p);
int cmd_open(struct cmd_ctx *ctx, unsigned flags);
void cmd_close(struct cmd_ctx *ctx);
/* Load trees.conf as NEED_CONF does, for a command that needs it only sometimes. */
int cmd_load_conf(struct cmd_ctx *ctx);
/* cmd_load_conf() that prints nothing: a TIDE_E* code with the error set. */
int cmd_try_conf(struct cmd_ctx *ctx);
struct build_config;
/*
 * The configuration a command without --config builds: trees.conf's
 * first declared one (the day's own, as tide run builds it); NULL when
 * none is declared or there is no trees.conf (the default configuration).
 * Returns 0, or an exit status when its files are missing.
 */
int cmd_first_config(const struct build_config **out, struct cmd_ctx *ctx);
/*
 * --config NAME of tide build and tide try: a configuration trees.conf
 * declares (o->config; o->extra unless it is the first), or, when no
 * configuration has that name, a fragment file (o->fragment).  Exit
 * status on error, said.
 */
struct build_day_opts;
int cmd_pick_config(struct cmd_ctx *ctx, struct build_day_opts *o, const char *name);

/*
 * --config NAME of boot and bisect: the configuration trees.conf
 * declares by that name into *out (borrowed from ctx->conf), loading
 * trees.conf first.  Otherwise an exit status, said on stderr: an
 * unknown name is EXIT_BADINPUT listing the declared names.
 */
int cmd_find_config(const struct build_config **out, struct cmd_ctx *ctx, const char *name);
/* The newest day of the workspace, or NULL with the error set (caller frees). */
char *cmd_newest_day(struct workspace *ws);
struct day;
/*
 * days/DATE/day.json (NULL: the newest day) and, unless prev is NULL, the day
 * before it (NULL when there is none or it cannot be read); the caller frees both.
 */
int cmd_load_days(struct day **day, struct day **prev, struct workspace *ws, const char *date);
/* A day named YYYY-MM-DD or by its tag next-YYYYMMDD, as YYYY-MM-DD; NULL with the error set. */
char *cmd_day_arg(const char *arg);

int cmd_trees(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_run(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_log(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_show(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_stats(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_kcidb(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_dashboard(struct cmd_ctx *ctx, int argc, char **argv);
/*
 * DIR/config's kcidb-submit (man/tide-config.5): checked before a run
 * (EXIT_BADINPUT naming DIR/config:LINE); run_day() sends the day after
 * it.  A server that fails keeps the document in DIR/kcidb-spool/ and
 * the result is EXIT_PROBLEMS; the day itself is never changed.
 */
int cmd_kcidb_check_settings(struct cmd_ctx *ctx);
struct kcidb_submission;
/* How a submission of a day went, on stdout and stderr; the exit status (next: "run", "--submit"). */
int cmd_kcidb_tell(const struct kcidb_submission *s, const char *next);
int cmd_reproducer(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_regressions(struct cmd_ctx *ctx, int argc, char **argv);
/*
 * After a bisect of date: its culprit noted on the regressions it
 * explains (run_day() updates DIR/regressions.json after a run).  A
 * failure is a warning on stderr (cmd/regressions.c).
 */
int cmd_regressions_after_bisect(struct cmd_ctx *ctx, const char *date);
int cmd_merge_tree(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_apply_patch(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_build(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_boot(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_report(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_resolve(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_bisect(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_try(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_help(struct cmd_ctx *ctx, int argc, char **argv);

#endif
