#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

#include <git2.h>

#include "cmd.h"
#include "error.h"
#include "fetch.h"
#include "text.h"

#define TIDE_VERSION "0.1"

static const struct cmd commands[] = {
	{ "trees", cmd_trees, NEED_CONF, "list the trees trees.conf names, in merge order" },
	{ "run", cmd_run, NEED_WORKSPACE | TAKES_LOCK | NEED_CONF, "integrate today's trees" },
	{ "log", cmd_log, NEED_WORKSPACE, "one line per integrated day" },
	{ "show", cmd_show, NEED_WORKSPACE, "per-tree status of one day" },
	{ "merge-tree", cmd_merge_tree, 0, "merge two revisions in memory (plumbing)" },
	{ "apply-patch", cmd_apply_patch, 0, "apply a patch to a tree in memory (plumbing)" },
	{ "build", cmd_build, NEED_WORKSPACE | TAKES_LOCK, "build a day's kernel" },
	{ "boot", cmd_boot, 0, "boot a day's kernel in QEMU and run the smoke tests" },
	{ "report", cmd_report, NEED_WORKSPACE, "per-tree conflict and build reports of a day" },
	{ "resolve", cmd_resolve, NEED_WORKSPACE, "resolve a tree's conflict and record the resolution" },
	/* bisect locks itself: --status reads a running bisect's state. */
	{ "bisect", cmd_bisect, NEED_WORKSPACE, "find the tree and commit that broke a day" },
	/* try changes nothing of the workspace: no lock (its build locks DIR/try). */
	{ "try", cmd_try, NEED_WORKSPACE, "try a patch series against a day: apply, trees it collides with, build" },
	{ "kcidb", cmd_kcidb, NEED_WORKSPACE, "a day's results as a KCIDB v5.3 document" },
	/* dashboard reads the day records and writes only its own directory: no lock. */
	{ "dashboard", cmd_dashboard, NEED_WORKSPACE, "the workspace's days as static HTML pages" },
	/* regressions folds the days it has not seen and sends mails: it writes, so it locks. */
	{ "regressions", cmd_regressions, NEED_WORKSPACE | TAKES_LOCK,
	  "failures followed across days: new, still failing, fixed, flaky" },
	{ "stats", cmd_stats, NEED_WORKSPACE, "how much of a mainline tag a day had, and what it never got" },
	{ "reproducer", cmd_reproducer, NEED_WORKSPACE | TAKES_LOCK, "write a day's reproducer.sh and metadata.json" },
	{ "help", cmd_help, 0, "list the commands, or show one command's usage" },
};

static const char usage_text[] =
	"usage: tide [-C DIR] [-f TREES] COMMAND [ARGS]\n"
	"       tide --version | --help\n";

void cmd_error(const char *fmt, ...)
{
	struct buf raw = BUF_INIT, msg = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&raw, fmt, ap);
	va_end(ap);
	/* cron mails stderr: a URL's password must not be in it. */
	text_redact(&msg, buf_cstr(&raw));
	fprintf(stderr, "tide: %s\n", buf_cstr(&msg));
	buf_release(&raw);
	buf_release(&msg);
}

int cmd_exit_for(int code)
{
	switch (code) {
	case 0:
		return EXIT_OK;
	case TIDE_EINVAL:
	case TIDE_ENOTFOUND:
		return EXIT_BADINPUT;
	case TIDE_ELOCKED:
		return EXIT_LOCKED;
	default:
		return EXIT_FAILED;
	}
}

int cmd_fail(const char *what)
{
	if (what)
		cmd_error("%s: %s", what, tide_error_last());
	else
		cmd_error("%s", tide_error_last());
	return cmd_exit_for(tide_error_code());
}

int cmd_usage(const char *usage)
{
	fputs(usage, stderr);
	return EXIT_USAGE;
}

int cmd_finish_stdout(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			cmd_error("cannot write to standard output: %s", strerror(errno));
		return status ? status : EXIT_FAILED;
	}
	return status;
}

void cmd_print_help(FILE *fp)
{
	size_t i;

	fputs(usage_text, fp);
	fputs("\ncommands:\n", fp);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(fp, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fputs("\nSee tide(1) for options and exit statuses.\n", fp);
}

const struct cmd *cmd_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	struct cmd_ctx ctx = { 0 };
	const struct cmd *cmd;
	int i, status;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-C") && i + 1 < argc) {
			ctx.wsdir = argv[++i];
		} else if (!strcmp(argv[i], "-f") && i + 1 < argc) {
			ctx.conf_path = argv[++i];
		} else if (!strcmp(argv[i], "--version")) {
			printf("tide %s\n", TIDE_VERSION);
			return cmd_finish_stdout(EXIT_OK);
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			cmd_print_help(stdout);
			return cmd_finish_stdout(EXIT_OK);
		} else {
			cmd_error("unknown option '%s'", argv[i]);
			return cmd_usage(usage_text);
		}
	}
	if (i >= argc)
		return cmd_usage(usage_text);
	if (!(cmd = cmd_find(argv[i]))) {
		cmd_error("'%s' is not a tide command; see 'tide --help'", argv[i]);
		return EXIT_USAGE;
	}
	if (!ctx.wsdir)
		ctx.wsdir = getenv("TIDE_DIR");
	ctx.progress = isatty(STDERR_FILENO);
	ctx.open_flags = cmd->flags;

	git_libgit2_init();
	/*
	 * Objects are hashed once, where they come in: the indexer names
	 * every object of a fetched pack by its hash, and tide writes the
	 * rest itself.  libgit2 hashes each object again on every read by
	 * default (as git does not): a fifth of a first night's CPU on
	 * git.git's 400 topics, for a check that can only find the disk
	 * damaged since.
	 */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	/*
	 * Each command parses its arguments (cmd/opt.h) before it calls
	 * cmd_open(ctx, ctx->open_flags): "tide CMD -h" and a bad option need
	 * no workspace or trees.conf.
	 */
	status = cmd->fn(&ctx, argc - i, argv + i);
	cmd_close(&ctx);
	/* An abandoned fetch thread may still be inside libgit2: leave it its state. */
	if (!fetch_abandoned_threads())
		git_libgit2_shutdown();
	return cmd_finish_stdout(status);
}
