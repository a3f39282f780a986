/*
 * tide bisect: find the tree and the commit that broke a day.  The search
 * is src/bisect.c; this file picks the check, prints the steps as they
 * are decided and maps the outcome to an exit status (man/tide-bisect.1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opt.h"
#include "../src/bisect.h"
#include "../src/boot.h"
#include "../src/build.h"
#include "../src/error.h"
#include "../src/text.h"
#include "../src/util.h"
#include "../src/workspace.h"

/* Outcomes that are not "found": distinct statuses a script can test. */
enum {
	EXIT_NOTHING = 6,	/* the day passes the check */
	EXIT_BASE_BROKEN = 7,	/* the base fails the check: mainline is broken */
};

/* What the user asked for; also what state.json keeps for --continue. */
struct spec {
	const char *kind;	/* "cmd", "build", "boot", "test" */
	const char *arg;	/* the command, the test name, or --build's make target */
};

struct checker {
	struct bisect_check check;
	struct bisect_cmd cmd;
	struct build_opts bopts;
	int have_bopts;
	const char *test;	/* --test NAME; NULL for --boot */
	struct boot_ws_paths paths;
	char *srcdir, *state_path, *log_path, *console_path;
};

/* The step's build and boot, as they start: a kernel build is minutes of silence otherwise. */
static void say_building(const struct checker *ck, const git_oid *commit)
{
	char hex[GIT_OID_HEXSZ + 1];

	fprintf(stderr, "tide: bisect: building %.12s (%s%s)\n", git_oid_tostr(hex, sizeof(hex), commit),
		ck->bopts.target ? "make " : "the kernel", ck->bopts.target ? ck->bopts.target : "");
}

/* Why a build failed, for the step's note: the first error if the log has one. */
static char *build_note(const struct build_result *res)
{
	const struct build_diag *e = res->log.errors.n ? &res->log.errors.v[0] : NULL;

	if (e && e->file)
		return xasprintf("%s:%d: %s", e->file, e->line, e->message ? e->message : "");
	return xstrdup(res->failure ? res->failure : "build failed");
}

/* --build: a failed build is bad.  (Under --boot/--test it would be a skip.) */
static int build_check(void *data, git_repository *repo, const git_oid *commit,
		       enum bisect_verdict *verdict, char **note)
{
	struct checker *ck = data;
	struct build_result res = { 0 };
	int err;

	say_building(ck, commit);
	if ((err = build_run(&res, repo, commit, &ck->bopts)) < 0)
		return err;
	*verdict = res.ok ? BISECT_GOOD : BISECT_BAD;
	if (!res.ok)
		*note = build_note(&res);
	build_result_release(&res);
	return 0;
}

struct find_test {
	const char *name;
	const struct ktap_node *node;
};

static int find_test_cb(const struct ktap_node *n, const char *path, int depth, void *data)
{
	struct find_test *f = data;

	(void)depth;
	if (!strcmp(path, f->name))
		f->node = n;
	return 0;
}

/* --boot: bad when the kernel panics, oopses, hangs or stays silent. */
static enum bisect_verdict boot_verdict(const struct boot_result *br)
{
	switch (br->verdict.status) {
	case BOOT_PASSED:
	case BOOT_TESTS_FAILED:
		return BISECT_GOOD;
	default:
		return BISECT_BAD;
	}
}

/* --test NAME: bad when NAME fails or is missing from a boot that ran; a boot that did not run is a skip. */
static enum bisect_verdict test_verdict(const struct boot_result *br, const char *name,
					char **note)
{
	struct find_test f = { name, NULL };

	ktap_walk(&br->verdict.ktap, find_test_cb, &f);
	if (!f.node) {
		if (br->verdict.status != BOOT_PASSED && br->verdict.status != BOOT_TESTS_FAILED) {
			*note = xasprintf("boot %s: %s", boot_status_name(br->verdict.status),
					  br->verdict.reason ? br->verdict.reason : "");
			return BISECT_SKIP;
		}
		*note = xasprintf("test %s did not report", name);
		return BISECT_BAD;
	}
	if (ktap_node_failed(f.node)) {
		*note = xasprintf("test %s failed", name);
		return BISECT_BAD;
	}
	return BISECT_GOOD;
}

/* --boot / --test: build (a failed build is a skip, not a verdict), boot in QEMU. */
static int boot_check(void *data, git_repository *repo, const git_oid *commit,
		      enum bisect_verdict *verdict, char **note)
{
	struct checker *ck = data;
	struct build_result res = { 0 };
	struct boot_result br;
	struct boot_opts bo = { 0 };
	int err;

	say_building(ck, commit);
	err = build_run(&res, repo, commit, &ck->bopts);
	memset(&br, 0, sizeof(br));
	if (err < 0)
		goto done;
	if (!res.ok) {
		*verdict = BISECT_SKIP;
		char *why = build_note(&res);

		*note = xasprintf("build failed: %s", why);
		free(why);
		goto done;
	}
	bo.kernel = res.kernel ? res.kernel : ck->paths.kernel;
	bo.config = ck->paths.config;
	bo.initramfs_dir = ck->paths.initramfs_dir;
	bo.kvm_cache = ck->paths.kvm_cache;
	bo.console_path = ck->console_path;
	bo.accel = "tcg";
	fprintf(stderr, "tide: bisect: booting it in QEMU\n");
	if ((err = boot_run(&br, &bo)) < 0)
		goto done;
	if (ck->test) {
		*verdict = test_verdict(&br, ck->test, note);
	} else {
		*verdict = boot_verdict(&br);
		if (*verdict == BISECT_BAD)
			*note = xasprintf("boot %s: %s", boot_status_name(br.verdict.status),
					  br.verdict.reason ? br.verdict.reason : "");
	}
	boot_result_release(&br);
done:
	build_result_release(&res);
	return err;
}

static void show_progress(void *data, const char *line);

static int checker_init(struct checker *ck, const struct spec *sp, const char *wsdir)
{
	memset(ck, 0, sizeof(*ck));
	ck->srcdir = workspace_bisect_src(wsdir);
	ck->state_path = workspace_bisect_src_state(wsdir);
	ck->log_path = workspace_bisect_check_log(wsdir);
	ck->check.data = ck;
	if (!strcmp(sp->kind, "cmd")) {
		ck->cmd.cmd = sp->arg;
		ck->cmd.srcdir = ck->srcdir;
		ck->cmd.state_path = ck->state_path;
		ck->cmd.log_path = ck->log_path;
		ck->cmd.progress = show_progress;
		ck->check.run = bisect_cmd_run;
		ck->check.data = &ck->cmd;
		return 0;
	}
	if (!strcmp(sp->kind, "build") || !strcmp(sp->kind, "boot") ||
	    !strcmp(sp->kind, "test")) {
		/* The CPUs here (or distcc-jobs with build hosts), at a lower priority. */
		build_opts_init(&ck->bopts, wsdir, ck->log_path,
				&(struct build_day_opts){ .nice = 10 });
		ck->have_bopts = 1;
		if (!ck->bopts.fragment) {
			cmd_error("no config fragment: kernel-tests/smoke.config not found "
				  "(set TIDE_KERNEL_TESTS)");
			return EXIT_BADINPUT;
		}
		ck->check.run = build_check;
		if (!strcmp(sp->kind, "build"))
			ck->bopts.target = sp->arg;
		if (strcmp(sp->kind, "build")) {
			ck->test = sp->arg;
			boot_ws_paths_init(&ck->paths, wsdir);
			ck->console_path = workspace_bisect_console_log(wsdir);
			ck->check.run = boot_check;
		}
		return 0;
	}
	cmd_error("unknown check '%s'", sp->kind);
	return EXIT_BADINPUT;
}

static void checker_release(struct checker *ck)
{
	if (ck->have_bopts)
		build_opts_release(&ck->bopts);
	boot_ws_paths_release(&ck->paths);
	free(ck->console_path);
	free(ck->srcdir);
	free(ck->state_path);
	free(ck->log_path);
}

static void show_progress(void *data, const char *line)
{
	(void)data;
	fprintf(stderr, "tide: bisect: %s\n", line);
}

static int print_result(const struct bisect_result *r)
{
	switch (r->outcome) {
	case BISECT_NOTHING:
		printf("nothing to bisect: %s passes the check\n", r->date);
		break;
	case BISECT_BASE_BROKEN:
		if (json_object_get(r->record, "since"))
			printf("the good day is broken too: %s's commits fail the check\n",
			       json_string_value(json_object_get(r->record, "since")));
		else
			printf("mainline is broken: the base %.12s fails the check\n",
			       r->commit ? r->commit : "?");
		break;
	case BISECT_RANGE:
		printf("skipped steps leave a range: %s .. %s%s%s\n", r->range_first,
		       r->range_last, r->tree ? " in " : "", r->tree ? r->tree : "");
		break;
	default:
		printf("tree: %s\n", r->tree ? r->tree : "(none)");
		if (r->commit && r->dropped)
			printf("rewound: %zu commit%s of %s dropped\n"
			       "dropped commit: %s %s\n", r->dropped, r->dropped == 1 ? "" : "s",
			       json_string_value(json_object_get(r->record, "since")) ?: "the good day",
			       r->commit, r->subject);
		else if (r->commit)
			printf("first bad commit: %s %s\n", r->commit, r->subject);
		else if (json_object_get(r->record, "since"))
			printf("no commit to blame: the tree's patches did not change\n");
		if (r->outcome == BISECT_SEMANTIC)
			printf("semantic conflict with %s: the commit passes without it\n",
			       r->other_tree ? r->other_tree : "(an earlier tree, not found)");
		if (r->outcome == BISECT_UNCONFIRMED)
			printf("not confirmed: the result did not reproduce\n");
	}
	printf("steps: %zu (bound %zu), builds: %zu, runs: %zu, time: %.1fs\n", r->steps,
	       r->bound, r->builds, r->runs, r->seconds);
	switch (r->outcome) {
	case BISECT_FOUND:
	case BISECT_SEMANTIC:
		return EXIT_OK;
	case BISECT_NOTHING:
		return EXIT_NOTHING;
	case BISECT_BASE_BROKEN:
		return EXIT_BASE_BROKEN;
	default:
		return EXIT_PROBLEMS;
	}
}

static int run(struct cmd_ctx *ctx, const char *date, const struct spec *sp,
	       const char *since, int retries, int resume)
{
	struct bisect_result res;
	struct bisect_opts o = { 0 };
	struct checker ck;
	json_t *spec = json_pack("{s:o, s:o}", "kind", json_text(sp->kind),
				  "arg", json_text(sp->arg));
	int status = checker_init(&ck, sp, ctx->ws->dir);

	if (status)
		goto done;
	o.wsdir = ctx->ws->dir;
	o.date = date;
	o.since = since;
	o.retries = retries;
	o.check_spec = spec;
	o.resume = resume;
	o.check = &ck.check;
	o.check_builds = strcmp(sp->kind, "cmd") != 0;
	o.progress = show_progress;
	if (bisect_run(&res, ctx->ws->repo, &o) < 0) {
		status = cmd_fail("bisect");
		if (status == EXIT_FAILED)
			cmd_error("the state is kept: 'tide bisect --continue' resumes");
		goto done;
	}
	status = print_result(&res);
	bisect_result_release(&res);
done:
	checker_release(&ck);
	json_decref(spec);
	return cmd_finish_stdout(status);
}

static int status_cmd(struct cmd_ctx *ctx)
{
	json_t *st = NULL, *s, *res;
	const char *status;
	size_t i;

	if (bisect_state_load(&st, ctx->ws->dir) < 0)
		return cmd_fail(NULL);
	printf("date: %s\n", json_string_value(json_object_get(st, "date")) ?: "?");
	if (json_is_string(json_object_get(st, "since")))
		printf("since: %s\n", json_string_value(json_object_get(st, "since")));
	printf("check: --%s%s%s\n",
	       json_string_value(json_object_get(json_object_get(st, "check"), "kind")) ?: "?",
	       json_object_get(json_object_get(st, "check"), "arg") ? " " : "",
	       json_string_value(json_object_get(json_object_get(st, "check"), "arg")) ?: "");
	status = json_string_value(json_object_get(st, "status")) ?: "?";
	/* "running" in a state nobody holds the lock for: killed half-way. */
	if (!strcmp(status, "running") && workspace_lock(ctx->ws) == 0)
		status = "interrupted ('tide bisect --continue' resumes)";
	tide_error_clear();
	printf("status: %s\n", status);
	if (json_is_string(json_object_get(st, "error")))
		printf("stopped by: %s ('tide bisect --continue' resumes)\n",
		       json_string_value(json_object_get(st, "error")));
	json_array_foreach(json_object_get(st, "steps"), i, s)
		printf("step %zu: %s: %s: %s\n", i + 1,
		       json_string_value(json_object_get(s, "stage")) ?: "?",
		       json_string_value(json_object_get(s, "label")) ?: "?",
		       json_string_value(json_object_get(s, "verdict")) ?: "?");
	res = json_object_get(st, "result");
	if (res)
		printf("result: %s %s %s\n",
		       json_string_value(json_object_get(res, "outcome")) ?: "?",
		       json_string_value(json_object_get(res, "tree")) ?: "-",
		       json_string_value(json_object_get(res, "commit")) ?: "-");
	json_decref(st);
	return cmd_finish_stdout(EXIT_OK);
}

static int continue_cmd(struct cmd_ctx *ctx)
{
	json_t *st = NULL, *check;
	struct spec sp;
	int status;

	if (bisect_state_load(&st, ctx->ws->dir) < 0)
		return cmd_fail(NULL);
	check = json_object_get(st, "check");
	sp.kind = json_string_value(json_object_get(check, "kind"));
	sp.arg = json_string_value(json_object_get(check, "arg"));
	if (!sp.kind || !json_is_string(json_object_get(st, "date"))) {
		char *path = workspace_bisect_state(ctx->ws->dir);

		cmd_error("%s: no date or check recorded", path);
		free(path);
		json_decref(st);
		return EXIT_BADINPUT;
	}
	if (!strcmp(json_string_value(json_object_get(st, "status")) ?: "", "done")) {
		printf("the bisect of %s is finished; 'tide bisect --status' shows it\n",
		       json_string_value(json_object_get(st, "date")));
		json_decref(st);
		return cmd_finish_stdout(EXIT_OK);
	}
	status = run(ctx, json_string_value(json_object_get(st, "date")), &sp,
		     json_string_value(json_object_get(st, "since")),
		     (int)json_integer_value(json_object_get(st, "retries")) ?: 1, 1);
	json_decref(st);
	return status;
}

/* The check: at most one of --build, --boot, --test NAME, --cmd CMD (default --build). */
static int pick_check(struct spec *sp, int build, int boot, const char *test, const char *cmd)
{
	if (build + boot + !!test + !!cmd > 1)
		return -1;
	sp->kind = boot ? "boot" : test ? "test" : cmd ? "cmd" : build ? "build" : NULL;
	sp->arg = test ? test : cmd;
	return 0;
}

enum { VERB_START = 1, VERB_CONTINUE, VERB_STATUS };

int cmd_bisect(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct spec sp = { NULL, NULL };
	const char *date = NULL, *since = NULL, *target = NULL, *test = NULL, *cmd = NULL;
	const char *tries = NULL;
	int retries = 1, verb = 0, old_cont = 0, old_stat = 0, build = 0, boot = 0, status;
	char *end;
	const struct opt_spec specs[] = {
		{ OPT_SUBCOMMAND, "start", 0, &verb, VERB_START, OPT_NOUSAGE,
		  NULL, "start a bisect (the verb may be left out)" },
		{ OPT_ARG, "date", 0, &date, 0, OPT_BARE, "DATE", "the bad day" },
		{ OPT_SWITCH, "build", 0, &build, 1, 0, NULL, "a state is bad when it does not build (default)" },
		{ OPT_VALUE, "target", 0, &target, 0, OPT_NESTED, "OBJ", "build only this make target" },
		{ OPT_SWITCH, "boot", 0, &boot, 1, OPT_CHOICE, NULL, "... or does not boot" },
		{ OPT_VALUE, "test", 0, &test, 0, OPT_CHOICE, "NAME", "... or fails this smoke test" },
		{ OPT_VALUE, "cmd", 0, &cmd, 0, OPT_CHOICE, "CMD", "... or CMD exits non-zero in the checkout" },
		{ OPT_VALUE, "since", 0, &since, 0, 0, "GOOD-DATE", "bisect against this good day" },
		{ OPT_VALUE, "retries", 0, &tries, 0, 0, "N",
		  "ask each verdict up to N times: bad only if every try is" },
		{ OPT_FORM, NULL, 0, NULL, 0, 0, NULL, NULL },
		{ OPT_SUBCOMMAND, "continue", 0, &verb, VERB_CONTINUE, OPT_BARE, NULL,
		  "go on with an interrupted bisect" },
		{ OPT_FORM, NULL, 0, NULL, 0, 0, NULL, NULL },
		{ OPT_SUBCOMMAND, "status", 0, &verb, VERB_STATUS, OPT_BARE, NULL,
		  "show the running or last bisect" },
		/* The spellings before the verbs. */
		{ OPT_SWITCH, "continue", 0, &old_cont, 1, OPT_HIDDEN, NULL, NULL },
		{ OPT_SWITCH, "status", 0, &old_stat, 1, OPT_HIDDEN, NULL, NULL },
		{ 0 },
	};

	if ((status = opt_parse("bisect", specs, argc, argv, 0)) != 0)
		return status < 0 ? cmd_finish_stdout(EXIT_OK) : status;
	if ((old_cont || old_stat) && (verb || (old_cont && old_stat)))
		return opt_usage_error("bisect", specs, "one of start, continue, status");
	verb = old_cont ? VERB_CONTINUE : old_stat ? VERB_STATUS : verb ? verb : VERB_START;
	if (pick_check(&sp, build, boot, test, cmd) < 0)
		return opt_usage_error("bisect", specs, "only one of --build, --boot, --test, --cmd");
	if (tries && ((retries = (int)strtol(tries, &end, 10)) < 1 || *end || retries > 100))
		return opt_usage_error("bisect", specs,
				       "--retries wants a number from 1 to 100, not '%s'", tries);
	if (verb != VERB_START && (date || sp.kind || since || target || tries))
		return opt_usage_error("bisect", specs, "%s takes no date or options",
				       verb == VERB_STATUS ? "status" : "continue");
	if (verb == VERB_START && !date)
		return opt_usage_error("bisect", specs, "missing DATE");
	if ((status = cmd_open(ctx, ctx->open_flags)) != 0)
		return status;
	if (verb == VERB_STATUS)
		return status_cmd(ctx);
	/* state.json is replaced atomically, so --status needs no lock; the rest does. */
	if (workspace_lock(ctx->ws) < 0)
		return cmd_fail(NULL);
	if (verb == VERB_CONTINUE)
		return continue_cmd(ctx);
	if (sp.kind && !strcmp(sp.kind, "cmd") && !*sp.arg) {
		cmd_error("--cmd wants a command");
		return EXIT_USAGE;
	}
	if (!sp.kind)
		sp.kind = "build";
	if (target) {
		if (strcmp(sp.kind, "build")) {
			cmd_error("--target goes with --build (a boot needs the whole kernel)");
			return EXIT_USAGE;
		}
		if (!*target || *target == '-' || strpbrk(target, " \t\n=")) {
			cmd_error("--target wants one make target such as kernel/smp.o, not '%s'",
				  target);
			return EXIT_USAGE;
		}
		sp.arg = target;
	}
	return run(ctx, date, &sp, since, retries, 0);
}
