/* tide kcidb: a day's results as a KCIDB v5.3 document (man/tide-kcidb.1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "opt.h"
#include "buf.h"
#include "day.h"
#include "error.h"
#include "kcidb.h"
#include "regress.h"
#include "settings.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

static int write_doc(const json_t *doc, const char *out)
{
	char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	int status = EXIT_OK;

	if (!text) {
		cmd_error("cannot format the KCIDB document");
		return EXIT_FAILED;
	}
	if (out) {
		if (file_write_atomic(out, text, strlen(text)) < 0)
			status = cmd_fail(NULL);
	} else {
		fputs(text, stdout);
		putchar('\n');
		status = cmd_finish_stdout(EXIT_OK);
	}
	free(text);
	return status;
}

/*
 * Say how a submission went: what failed on stderr (the exit status its
 * code's), each document the server rejected with where it went and why,
 * then the counts.  A server that failed kept the rest for the next
 * --submit or run (next): exit 1, nothing lost; a rejected document is
 * exit 1 for this submission only.
 */
int cmd_kcidb_tell(const struct kcidb_submission *s, const char *next)
{
	size_t i;

	if (s->failed == KCIDB_SUBMIT_DOCUMENT || s->failed == KCIDB_SUBMIT_SPOOL) {
		cmd_error("%s%s", s->failed == KCIDB_SUBMIT_DOCUMENT ? "kcidb: " : "", s->why);
		return cmd_exit_for(s->code);
	}
	if (s->failed)
		cmd_error("%s", s->why);
	for (i = 0; i < s->sent.nrejected; i++)
		cmd_error("kcidb: %s rejected, moved to %s: %s", s->sent.rejected[i].name,
			  s->rejected_dir, s->sent.rejected[i].why);
	if (s->failed) {
		cmd_error("%d document%s sent, %d kept in %s for the next %s", s->sent.sent,
			  s->sent.sent == 1 ? "" : "s", s->sent.left, s->spool, next);
		return EXIT_PROBLEMS;
	}
	printf("kcidb: %d document%s sent", s->sent.sent, s->sent.sent == 1 ? "" : "s");
	if (s->sent.nrejected)
		printf(", %zu rejected (in %s)", s->sent.nrejected, s->rejected_dir);
	putchar('\n');
	return cmd_finish_stdout(s->sent.nrejected ? EXIT_PROBLEMS : EXIT_OK);
}

/* Spool the document, then send the whole spool. */
static int submit(struct cmd_ctx *ctx, const struct day *day, const json_t *doc,
		  const char *url, const char *token_file, long timeout)
{
	struct kcidb_submission s;
	int status;

	kcidb_submit_day(&s, ctx->ws, day->tag ? day->tag : day->date, doc, url, token_file,
			 timeout);
	status = cmd_kcidb_tell(&s, "--submit");
	kcidb_submission_release(&s);
	return status;
}

/*
 * DIR/regressions.json, for the regressions' issues (src/kcidb.h); one
 * that does not load leaves them out, and says so.
 */
static struct regress_list *load_regressions(struct cmd_ctx *ctx)
{
	struct regress_list *l = NULL;

	if (regress_load(&l, ctx->ws->dir) < 0)
		cmd_error("warning: regressions left out: %s", tide_error_last());
	tide_error_clear();
	return l;
}

int cmd_kcidb(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct kcidb_opts o = { 0 };
	const char *out = NULL, *submit_url = NULL, *token_file = NULL, *arg = NULL, *secs = NULL;
	long timeout = KCIDB_DEFAULT_TIMEOUT;
	char *end;
	struct day *day = NULL;
	struct regress_list *regs = NULL;
	json_t *doc = NULL;
	char *date = NULL;
	int status;
	const struct opt_spec specs[] = {
		{ OPT_VALUE, "origin", 0, &o.origin, 0, 0, "NAME", "the KCIDB origin (default: tide)" },
		{ OPT_VALUE, "url", 0, &o.url_base, 0, 0, "URL", "where the workspace's days are published" },
		{ OPT_VALUE, "out", 0, &out, 0, 0, "FILE", "write the document to FILE (default: stdout)" },
		{ OPT_ARG, "date", 0, &arg, 0, 0, "DATE",
		  "YYYY-MM-DD or next-YYYYMMDD (default: the newest day)" },
		{ OPT_FORM, NULL, 0, NULL, 0, 0, NULL, NULL },
		{ OPT_VALUE, "submit", 0, &submit_url, 0, OPT_BARE, "URL",
		  "post the document to a KCIDB-REST server" },
		{ OPT_VALUE, "token-file", 0, &token_file, 0, 0, "FILE", "the bearer token for --submit" },
		{ OPT_VALUE, "timeout", 0, &secs, 0, 0, "S",
		  "give up on the server after S seconds (default 60)" },
		{ OPT_REF, "origin", 0, NULL, 0, 0, NULL, NULL },
		{ OPT_REF, "url", 0, NULL, 0, 0, NULL, NULL },
		{ OPT_REF, "date", 0, NULL, 0, 0, NULL, NULL },
		{ 0 },
	};

	if ((status = opt_parse("kcidb", specs, argc, argv, 0)) != 0)
		return status < 0 ? EXIT_OK : status;
	if (secs && ((timeout = strtol(secs, &end, 10)) < 1 || *end || timeout > 3600))
		return opt_usage_error("kcidb", specs, "--timeout wants seconds from 1 to 3600, not '%s'", secs);
	if (out && submit_url)
		return opt_usage_error("kcidb", specs, "--out and --submit do not go together");
	if ((status = cmd_open(ctx, ctx->open_flags)) != 0)
		return status;
	if (!token_file && submit_url && ctx->settings)
		token_file = settings_get(ctx->settings, "kcidb-token-file");
	if (submit_url && !str_starts_with(submit_url, "http://") &&
	    !str_starts_with(submit_url, "https://")) {
		char *shown = url_redact(submit_url);

		cmd_error("--submit wants an http:// or https:// URL, not '%s'", shown);
		free(shown);
		return EXIT_USAGE;
	}
	/* The options win over DIR/config's kcidb-origin and kcidb-url. */
	if (!o.origin && ctx->settings)
		o.origin = settings_get(ctx->settings, "kcidb-origin");
	if (!o.origin)
		o.origin = KCIDB_DEFAULT_ORIGIN;
	if (!o.url_base && ctx->settings)
		o.url_base = settings_get(ctx->settings, "kcidb-url");
	if (!kcidb_origin_valid(o.origin)) {
		cmd_error("KCIDB origin '%s' is not valid: use lower-case letters, digits and '_'",
			  o.origin);
		return EXIT_USAGE;
	}
	if (arg && !(date = cmd_day_arg(arg)))
		return cmd_fail(NULL);
	o.regressions = regs = load_regressions(ctx);
	if (cmd_load_days(&day, NULL, ctx->ws, date) < 0)
		status = cmd_fail(NULL);
	else if (kcidb_day(&doc, day, &o) < 0)
		status = cmd_fail(NULL);
	else if (submit_url)
		status = submit(ctx, day, doc, submit_url, token_file, timeout);
	else
		status = write_doc(doc, out);
	json_decref(doc);
	day_free(day);
	regress_list_free(regs);
	free(date);
	return status;
}

int cmd_kcidb_check_settings(struct cmd_ctx *ctx)
{
	if (kcidb_check_settings(ctx->settings, ctx->ws->dir) < 0) {
		cmd_error("%s", tide_error_last());
		tide_error_clear();
		return EXIT_BADINPUT;
	}
	return EXIT_OK;
}
