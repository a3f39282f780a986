/*
 * tide bisect: find the tree and the commit that broke a day.  The search
 * is src/bisect.c, the checks src/bisect_check.c; this file reads the
 * options, prints the steps as they are decided and maps the outcome to
 * an exit status (man/tide-bisect.1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opt.h"
#include "bisect.h"
#include "bisect_check.h"
#include "buildconf.h"
#include "dayrec.h"
#include "error.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

/* Outcomes that are not "found": distinct statuses a script can test. */
enum {
	EXIT_NOTHING = 6,	/* the day passes the check */
	EXIT_BASE_BROKEN = 7,	/* the base fails the check: mainline is broken */
};

/* What the user asked for; also what state.json keeps for --continue. */
struct spec {
	const char *kind;	/* "cmd", "build", "boot", "test" */
	const char *arg;	/* the command, the test name, or --build's make target */
	const char *config;	/* --config NAME, or NULL: the day's first configuration */
};

static void show_progress(void *data, const char *line)
{
	(void)data;
	fprintf(stderr, "tide: bisect: %s\n", line);
}

/* What the day did with the culprit reverted (or its tree left out). */
static void print_revert(const json_t *rv)
{
	const json_t *confirmed = json_object_get(rv, "confirmed");
	const char *how = json_string_value(json_object_get(rv, "how")) ?: "reverted";
	const char *note = json_string_value(json_object_get(rv, "note"));
	const char *without = !strcmp(how, "reverted") ? "with it reverted"
		: "without its tree (the revert does not apply)";

	if (!rv)
		return;
	if (json_is_true(confirmed))
		printf("confirmed: the day passes %s\n", without);
	else if (json_is_false(confirmed))
		printf("not confirmed: the day still fails %s: something else breaks it too\n",
		       without);
	else
		printf("not confirmed: the day %s cannot be tested%s%s\n", without,
		       note ? ": " : "", note ? note : "");
}

/* Found, but reverting it does not make the day pass: not the whole answer. */
static int revert_refuted(const struct bisect_result *r)
{
	return r->revert && json_is_false(json_object_get(r->revert, "confirmed"));
}

static int print_result(const struct bisect_result *r)
{
	switch (r->outcome) {
	case BISECT_NOTHING:
		printf("nothing to bisect: %s passes the check\n", r->date);
		break;
	case BISECT_BASE_BROKEN:
		if (r->record && r->record->since)
			printf("the good day is broken too: %s's commits fail the check\n",
			       r->record->since);
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
			       r->record && r->record->since ? r->record->since : "the good day",
			       r->commit, r->subject);
		else if (r->commit)
			printf("first bad commit: %s %s\n", r->commit, r->subject);
		else if (r->record && r->record->since)
			printf("no commit to blame: the tree's patches did not change\n");
		if (r->outcome == BISECT_SEMANTIC)
			printf("semantic conflict with %s: the commit passes without it\n",
			       r->other_tree ? r->other_tree : "(an earlier tree, not found)");
		if (r->outcome == BISECT_UNCONFIRMED)
			printf("not confirmed: the result did not reproduce\n");
		print_revert(r->revert);
	}
	printf("steps: %zu (bound %zu), builds: %zu, runs: %zu, time: %.1fs\n", r->steps,
	       r->bound, r->builds, r->runs, r->seconds);
	switch (r->outcome) {
	case BISECT_FOUND:
	case BISECT_SEMANTIC:
		return revert_refuted(r) ? EXIT_PROBLEMS : EXIT_OK;
	case BISECT_NOTHING:
		return EXIT_NOTHING;
	case BISECT_BASE_BROKEN:
		return EXIT_BASE_BROKEN;
	default:
		return EXIT_PROBLEMS;
	}
}

/*
 * --config NAME as the kernel checks build and boot it; without it,
 * trees.conf's first declared configuration, as tide build builds; NULL
 * for the default configuration (none declared, or no trees.conf).
 */
static int find_config(const struct build_config **out, struct cmd_ctx *ctx, const struct spec *sp)
{
	const struct build_config *c;
	int status;

	*out = NULL;
	if (!sp->config)
		return cmd_first_config(out, ctx);
	if ((status = cmd_find_config(&c, ctx, sp->config)) != 0)
		return status;
	if (build_config_check_files(c) < 0)
		return cmd_fail(NULL);
	*out = c->line ? c : NULL;
	return 0;
}

static int run(struct cmd_ctx *ctx, const char *date, const struct spec *sp,
	       const char *since, int retries, int resume)
{
	struct bisect_result res;
	struct bisect_opts o = { 0 };
	struct bisect_checker ck = { 0 };
	const struct build_config *config;
	json_t *spec = json_pack("{s:o, s:o}", "kind", json_text(sp->kind),
				  "arg", json_text(sp->arg));
	int status = EXIT_OK;

	/* Kept for continue: a later step builds what the first did. */
	if (sp->config)
		json_object_set_new(spec, "config", json_text(sp->config));
	if ((status = find_config(&config, ctx, sp)) != 0)
		goto done;
	if (bisect_checker_init(&ck, sp->kind, sp->arg, ctx->ws->dir, config, show_progress,
				NULL) < 0) {
		cmd_error("%s", tide_error_last());
		status = EXIT_BADINPUT;
		goto done;
	}
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
	cmd_regressions_after_bisect(ctx, res.date);
	bisect_result_release(&res);
done:
	bisect_checker_release(&ck);
	json_decref(spec);
	return cmd_finish_stdout(status);
}

static int status_cmd(struct cmd_ctx *ctx)
{
	json_t *st = NULL, *s, *res, *check;
	const char *status;
	size_t i;

	if (bisect_state_load(&st, ctx->ws->dir) < 0)
		return cmd_fail(NULL);
	printf("date: %s\n", json_string_value(json_object_get(st, "date")) ?: "?");
	if (json_is_string(json_object_get(st, "since")))
		printf("since: %s\n", json_string_value(json_object_get(st, "since")));
	check = json_object_get(st, "check");
	printf("check: --%s%s%s%s%s\n", json_string_value(json_object_get(check, "kind")) ?: "?",
	       json_is_string(json_object_get(check, "arg")) ? " " : "",
	       json_string_value(json_object_get(check, "arg")) ?: "",
	       json_is_string(json_object_get(check, "config")) ? " --config " : "",
	       json_string_value(json_object_get(check, "config")) ?: "");
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
	sp.config = json_string_value(json_object_get(check, "config"));
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
	struct spec sp = { NULL, NULL, NULL };
	const char *date = NULL, *since = NULL, *target = NULL, *test = NULL, *cmd = NULL;
	const char *config = NULL;
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
		{ OPT_VALUE, "config", 0, &config, 0, 0, "NAME",
		  "build (and boot) this configuration trees.conf declares" },
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
	if (verb != VERB_START && (date || sp.kind || since || target || tries || config))
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
	if (config && !strcmp(sp.kind, "cmd")) {
		cmd_error("--config goes with --build, --boot or --test (--cmd builds nothing)");
		return EXIT_USAGE;
	}
	sp.config = config;
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
