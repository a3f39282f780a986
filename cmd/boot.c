#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "opt.h"
#include "boot.h"
#include "build.h"
#include "buildconf.h"
#include "conf.h"
#include "day.h"
#include "error.h"
#include "util.h"
#include "workspace.h"

struct boot_cli {
	struct boot_opts opts;
	int json;
	const struct build_config *config;	/* --config NAME, or NULL */
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

static void print_result(const struct boot_result *res, const struct boot_cli *cli,
			 const char *console)
{
	const struct boot_verdict *v = &res->verdict;

	if (cli->config)
		printf("config: %s (%s)\n", cli->config->name, cli->config->arch->name);
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
		print_result(res, cli, console);
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

/*
 * The records configuration c's boot goes with (boot_day_records()); a
 * configuration other than the day's own needs a recorded image.
 */
static int pick_records(struct boot_day_records *r, struct day *day, const struct build_config *c,
			int first)
{
	boot_day_records(r, day, c, first);
	if (r->own || (r->build && r->build->kernel))
		return 0;
	if (r->build)
		cmd_error("no kernel built for %s: its build %s: run 'tide build --config %s %s' first",
			  day->date, r->build->status ?: "failed", c->name, day->date);
	else
		cmd_error("no build of configuration '%s' for %s: run 'tide build --config %s %s' first",
			  c->name, day->date, c->name, day->date);
	return EXIT_BADINPUT;
}

/*
 * Boot a kernel of the day, configuration c's (NULL: the day's own build
 * in build/out, as before configurations were declared), and put the
 * result into its boot record.
 */
static int boot_day(struct workspace *ws, struct boot_cli *cli, const char *date,
		    const struct build_config *c, int first)
{
	char *daydir = workspace_day_dir(ws->dir, date);
	char *record = workspace_daydir_json(daydir), *outdir = build_config_outdir(ws->dir, c);
	char *console = NULL;
	struct boot_day_records rec = { 0 };
	struct boot_config_run in = { 0 };
	struct boot_result res = { 0 };
	struct day *day = NULL;
	int status, error, passed;

	if (day_load(&day, record) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	if ((status = pick_records(&rec, day, c, first)) != 0)
		goto done;
	console = path_join(daydir, rec.console_name);
	in.build = rec.build;
	in.config = c;
	in.wsdir = ws->dir;
	in.outdir = outdir;
	in.date = date;
	in.smp = cli->opts.smp ? cli->opts.smp : c ? c->smp : 0;
	in.console_path = console;
	in.console_name = rec.console_name;
	in.opts = &cli->opts;
	in.res = &res;
	if ((error = boot_workspace_config(rec.slot, &passed, &in)) < 0) {
		/* The kernel or its .config missing, or another build's now. */
		if (error != TIDE_ENOTFOUND && error != TIDE_EINVAL) {
			status = cmd_fail("boot");
			goto done;
		}
		if (c)
			cmd_error("%s: run 'tide build --config %s %s' first", tide_error_last(),
				  c->name, date);
		else
			cmd_error("%s: run 'tide build %s' first", tide_error_last(), date);
		tide_error_clear();
		status = EXIT_BADINPUT;
		goto done;
	}
	if (day_save(day, record) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	if (c)
		workspace_log(ws, "boot %s (%s): %s", date, c->name,
			      boot_status_name(res.verdict.status));
	else
		workspace_log(ws, "boot %s: %s", date, boot_status_name(res.verdict.status));
	status = emit(&res, cli, console);
done:
	boot_result_release(&res);
	day_free(day);
	free(daydir);
	free(record);
	free(outdir);
	boot_day_records_release(&rec);
	free(console);
	return status;
}

static int open_ws_and_boot(struct cmd_ctx *ctx, struct boot_cli *cli, const char *arg,
			    const char *config)
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
	/* boot=no does not matter: asked for, it boots. */
	if (config && (status = cmd_find_config(&cli->config, ctx, config)) != 0)
		return status;
	if (workspace_open(&ws, ctx->wsdir, 0) < 0 || workspace_lock(ws) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	if (!(date = arg ? xstrdup(arg) : cmd_newest_day(ws))) {
		cmd_error("no day to boot yet; run 'tide run' first");
		status = EXIT_BADINPUT;
		goto done;
	}
	status = boot_day(ws, cli, date, cli->config,
			  !cli->config || cli->config == &ctx->conf->configs[0]);
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
	struct boot_cli cli = { { 0 }, 0, NULL };
	const char *console = NULL, *day = NULL, *smp = NULL, *timeout = NULL, *config = NULL;
	/* --config is a declared NAME for a day's kernel, the FILE of --kernel (as before). */
	const struct opt_spec specs[] = {
		{ OPT_ARG, "day", 0, &day, 0, 0, "DAY", "the day whose kernel to boot (default: the newest)" },
		{ OPT_VALUE, "config", 0, &config, 0, 0, "NAME",
		  "a configuration trees.conf declares (default: the day's own build)" },
		{ OPT_VALUE, "smp", 0, &smp, 0, 0, "N", "CPUs of the guest (default 4)" },
		{ OPT_VALUE, "timeout", 0, &timeout, 0, 0, "S", "give up on the guest after S seconds" },
		{ OPT_VALUE, "accel", 0, &cli.opts.accel, 0, 0, "auto|tcg|kvm", "QEMU's accelerator" },
		{ OPT_VALUE, "append", 0, &cli.opts.append, 0, 0, "ARGS", "more kernel command line" },
		{ OPT_VALUE, "init", 0, &cli.opts.init, 0, 0, "FILE", "the guest program" },
		{ OPT_SWITCH, "json", 0, &cli.json, 1, 0, NULL, "print the result as JSON" },
		{ OPT_FORM, NULL, 0, NULL, 0, 0, NULL, NULL },
		{ OPT_VALUE, "kernel", 0, &cli.opts.kernel, 0, OPT_BARE, "FILE",
		  "boot this kernel, not a day's" },
		{ OPT_VALUE, "config", 0, &config, 0, 0, "FILE", "the .config of --kernel" },
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
		cli.opts.config = config;
		return boot_file(ctx, &cli, console);
	}
	if (console)
		return opt_usage_error("boot", specs, "--console goes with --kernel");
	return open_ws_and_boot(ctx, &cli, day, config);
}
