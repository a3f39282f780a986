#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd.h"
#include "../src/build.h"
#include "../src/conf.h"
#include "../src/error.h"
#include "../src/run.h"
#include "../src/workspace.h"

static const char usage[] =
	"usage: tide run [--date YYYY-MM-DD] [--no-build] [--no-boot] [--jobs N]\n";

struct progress {
	int tty;
	int drawn;	/* a status line is on the screen */
};

/* Problems stay on screen; everything else only redraws the status line. */
static int is_problem(const char *line)
{
	return strstr(line, "failed") || strstr(line, "conflict") || strstr(line, "left out") ||
	       strstr(line, "refus");
}

static void on_event(void *arg, const char *line, size_t done, size_t total)
{
	struct progress *p = arg;

	if (!p->tty) {
		fprintf(stderr, "tide: %s\n", line);
		return;
	}
	if (is_problem(line)) {
		fprintf(stderr, "\r\033[K[%zu/%zu] %s\n", done, total, line);
	} else {
		/* A status line longer than the terminal would wrap and not redraw. */
		struct winsize ws;
		int width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ?
			ws.ws_col - 12 : 68;

		fprintf(stderr, "\r\033[K[%zu/%zu] %.*s", done, total, width, line);
	}
	p->drawn = !is_problem(line);
	fflush(stderr);
}

static int parse_args(struct run_opts *opts, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "date", required_argument, NULL, 'd' },
		{ "no-build", no_argument, NULL, 'B' },
		{ "no-boot", no_argument, NULL, 'b' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "hj:", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			opts->date = optarg;
			break;
		case 'B':
			opts->no_build = 1;
			break;
		case 'b':
			opts->no_boot = 1;
			break;
		case 'j':
			opts->jobs = (int)strtol(optarg, &end, 10);
			if (*end || opts->jobs < 1 || opts->jobs > 64) {
				cmd_error("bad --jobs '%s' (1 to 64)", optarg);
				return cmd_usage(usage);
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			return cmd_usage(usage);
		}
	}
	if (optind < argc) {
		cmd_error("unexpected argument '%s'", argv[optind]);
		return cmd_usage(usage);
	}
	return 0;
}

int cmd_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct run_opts opts = RUN_OPTS_INIT;
	struct run_summary sum;
	struct progress p = { ctx->progress, 0 };
	int status, error;

	if ((status = parse_args(&opts, argc, argv)) != 0)
		return status < 0 ? EXIT_OK : status;
	opts.progress = on_event;
	opts.progress_arg = &p;
	/* DIR/config's build settings are checked before the day starts. */
	if (!opts.no_build && build_farm_check(ctx->ws->dir) < 0)
		return cmd_fail(NULL);
	error = run_day(&sum, ctx->ws, ctx->conf, &opts);
	if (p.drawn)
		fputs("\r\033[K", stderr);
	if (error < 0)
		return cmd_fail(NULL);
	printf("%s: %zu of %zu trees merged", sum.tag, sum.merged, sum.ntrees);
	if (sum.left_out)
		printf(", %zu left out", sum.left_out);
	if (sum.stale)
		printf(", %zu not fetched (older commit used)", sum.stale);
	if (sum.unapplied)
		printf(", %zu with a patch that does not apply (older commit used)", sum.unapplied);
	if (sum.previous)
		printf(", %zu at an earlier day's version", sum.previous);
	printf("\n");
	if (sum.left_out || sum.stale || sum.unapplied || sum.previous || sum.stage_failed) {
		printf("see 'tide show %s'\n", sum.date);
		return EXIT_PROBLEMS;
	}
	return EXIT_OK;
}
