#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "opt.h"
#include "../src/boot.h"
#include "../src/day.h"
#include "../src/error.h"
#include "../src/util.h"
#include "../src/workspace.h"

struct boot_cli {
	struct boot_opts opts;
	int json;
};

static void print_failures(const struct boot_verdict *v);

static int print_test(const struct ktap_node *n, const char *path, int depth,
		      void *data)
{
	size_t i;

	if (!ktap_node_failed(n) || (n->nchildren && n->has_result))
		return 0;
	printf("not ok %s%s\n", path, n->has_result ? "" : " (no result: output ended)");
	for (i = 0; i < n->ndiag; i++)
		printf("    # %s\n", n->diag[i]);
	return 0;
}

static void print_failures(const struct boot_verdict *v)
{
	size_t i;

	ktap_walk(&v->ktap, print_test, NULL);
	for (i = 0; i < v->ktap.nproblems; i++)
		printf("problem: %s\n", v->ktap.problems[i]);
}

static void print_result(const struct boot_result *res, const char *console)
{
	const struct boot_verdict *v = &res->verdict;

	printf("boot: %s", boot_status_name(v->status));
	if (v->reason)
		printf(": %s", v->reason);
	printf(" (%.1f s, %s, %d CPUs): %d passed, %d failed, %d skipped\n",
	       res->seconds, res->accel, res->smp, v->pass, v->fail, v->skip);
	if (res->accel_note)
		printf("accel: tcg, %s\n", res->accel_note);
	if (res->smp_note)
		printf("smp: %s\n", res->smp_note);
	print_failures(v);
	if (console)
		printf("console: %s\n", console);
}

static int emit(const struct boot_result *res, const struct boot_cli *cli,
		const char *console)
{
	json_t *j;

	if (!cli->json) {
		print_result(res, console);
	} else {
		j = boot_result_json(res, console);
		json_dumpf(j, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(j);
	}
	return res->verdict.status == BOOT_PASSED ? EXIT_OK : EXIT_PROBLEMS;
}

/* --kernel: any kernel, no day record; caches under -C DIR or $TMPDIR. */
static int boot_file(struct cmd_ctx *ctx, struct boot_cli *cli, const char *console)
{
	struct boot_result res = { 0 };
	char *base = ctx->wsdir ? NULL
				: xasprintf("%s/tide-%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
					    (int)getuid());
	char *cache = base ? path_join(base, "initramfs") : workspace_build_initramfs(ctx->wsdir);
	char *kvm = base ? path_join(base, "kvm-probe") : workspace_build_kvm_probe(ctx->wsdir);
	int status;

	cli->opts.initramfs_dir = cache;
	cli->opts.kvm_cache = kvm;
	cli->opts.console_path = console;
	if (boot_run(&res, &cli->opts) < 0)
		status = cmd_fail("boot");
	else
		status = emit(&res, cli, console);
	boot_result_release(&res);
	free(base);
	free(cache);
	free(kvm);
	return status;
}

/* Boot the day's kernel and put "boot" into its day.json. */
static int boot_day(struct workspace *ws, struct boot_cli *cli, const char *date)
{
	char *daydir = workspace_day_dir(ws->dir, date);
	char *record = workspace_daydir_json(daydir), *console = workspace_daydir_console_log(daydir);
	struct boot_ws_paths paths;
	struct boot_result res = { 0 };
	struct day *day = NULL;
	int status;

	boot_ws_paths_init(&paths, ws->dir);
	if (day_load(&day, record) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	boot_opts_use_paths(&cli->opts, &paths, console);
	if (boot_day_kernel(&cli->opts.kernel, day, &paths) < 0) {
		cmd_error("%s: run 'tide build %s' first", tide_error_last(), date);
		tide_error_clear();
		status = EXIT_BADINPUT;
		goto done;
	}
	if (boot_run(&res, &cli->opts) < 0) {
		status = cmd_fail("boot");
		goto done;
	}
	boot_record_day(day, &res);
	if (day_save(day, record) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	workspace_log(ws, "boot %s: %s", date, boot_status_name(res.verdict.status));
	status = emit(&res, cli, console);
done:
	boot_result_release(&res);
	boot_ws_paths_release(&paths);
	day_free(day);
	free(daydir);
	free(record);
	free(console);
	return status;
}

static int open_ws_and_boot(struct cmd_ctx *ctx, struct boot_cli *cli, const char *arg)
{
	struct workspace *ws = NULL;
	char *date = NULL;
	int status;

	if (!ctx->wsdir) {
		cmd_error("no workspace: give -C DIR or set TIDE_DIR (or use --kernel FILE)");
		return EXIT_USAGE;
	}
	if (arg && !day_date_is_valid(arg)) {
		cmd_error("'%s' is not a day (YYYY-MM-DD)", arg);
		return EXIT_BADINPUT;
	}
	if (workspace_open(&ws, ctx->wsdir, 0) < 0 || workspace_lock(ws) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	if (!(date = arg ? xstrdup(arg) : cmd_newest_day(ws))) {
		cmd_error("no day to boot yet; run 'tide run' first");
		status = EXIT_BADINPUT;
		goto done;
	}
	status = boot_day(ws, cli, date);
done:
	free(date);
	workspace_free(ws);
	return status;
}

static int parse_number(double *out, const char *arg)
{
	char *end;

	*out = strtod(arg, &end);
	return *end || *out <= 0 ? -1 : 0;
}

int cmd_boot(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct boot_cli cli = { { 0 }, 0 };
	const char *console = NULL, *day = NULL, *smp = NULL, *timeout = NULL;
	const struct opt_spec specs[] = {
		{ OPT_ARG, "day", 0, &day, 0, 0, "DAY", "the day whose kernel to boot (default: the newest)" },
		{ OPT_VALUE, "smp", 0, &smp, 0, 0, "N", "CPUs of the guest (default 4)" },
		{ OPT_VALUE, "timeout", 0, &timeout, 0, 0, "S", "give up on the guest after S seconds" },
		{ OPT_VALUE, "accel", 0, &cli.opts.accel, 0, 0, "auto|tcg|kvm", "QEMU's accelerator" },
		{ OPT_VALUE, "append", 0, &cli.opts.append, 0, 0, "ARGS", "more kernel command line" },
		{ OPT_VALUE, "init", 0, &cli.opts.init, 0, 0, "FILE", "the guest program" },
		{ OPT_SWITCH, "json", 0, &cli.json, 1, 0, NULL, "print the result as JSON" },
		{ OPT_FORM, NULL, 0, NULL, 0, 0, NULL, NULL },
		{ OPT_VALUE, "kernel", 0, &cli.opts.kernel, 0, OPT_BARE, "FILE",
		  "boot this kernel, not a day's" },
		{ OPT_VALUE, "config", 0, &cli.opts.config, 0, 0, "FILE", "the .config of --kernel" },
		{ OPT_VALUE, "console", 0, &console, 0, 0, "FILE", "write the console of --kernel to FILE" },
		{ OPT_TEXT, NULL, 0, NULL, 0, 0, "options", NULL },
		{ 0 },
	};
	double num;
	int status;

	if ((status = opt_parse("boot", specs, argc, argv, 0)) != 0)
		return status < 0 ? EXIT_OK : status;
	if (smp && (parse_number(&num, smp) < 0 || num != (int)num || num > 64))
		return opt_usage_error("boot", specs, "--smp wants a positive number up to 64, not '%s'", smp);
	if (smp)
		cli.opts.smp = (int)num;
	if (timeout && parse_number(&cli.opts.timeout, timeout) < 0)
		return opt_usage_error("boot", specs, "--timeout wants a positive number, not '%s'", timeout);
	if (cli.opts.accel && strcmp(cli.opts.accel, "auto") && strcmp(cli.opts.accel, "tcg") &&
	    strcmp(cli.opts.accel, "kvm"))
		return opt_usage_error("boot", specs, "--accel wants auto, tcg or kvm, not '%s'", cli.opts.accel);
	if (cli.opts.kernel) {
		if (day)
			return opt_usage_error("boot", specs, "give a DAY or --kernel FILE, not both");
		return boot_file(ctx, &cli, console);
	}
	if (cli.opts.config || console)
		return opt_usage_error("boot", specs, "--config and --console go with --kernel");
	return open_ws_and_boot(ctx, &cli, day);
}
