/* tide kcidb: a day's results as a KCIDB v5.3 document (man/tide-kcidb.1). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "../src/day.h"
#include "../src/error.h"
#include "../src/kcidb.h"
#include "../src/settings.h"
#include "../src/util.h"
#include "../src/workspace.h"

static const char usage[] =
	"usage: tide kcidb [--origin NAME] [--url URL] [--out FILE] [DATE]\n"
	"       tide kcidb --submit URL [--token-file FILE] [--timeout S] [--origin NAME] [--url URL] [DATE]\n";

#define DEFAULT_ORIGIN "tide"

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
 * Spool the document, then send the whole spool (older documents a
 * failed submission left first).  A server that fails keeps them for the
 * next --submit: exit 1, nothing lost.
 */
static int submit(struct cmd_ctx *ctx, const struct day *day, const json_t *doc,
		  const char *url, const char *token_file, long timeout)
{
	struct kcidb_server srv = { .url = url, .timeout = timeout };
	char *spool = workspace_kcidb_spool(ctx->ws->dir), *token = NULL;
	char *text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	int sent = 0, left = 0, status = EXIT_OK;

	if (token_file && kcidb_token_read(&token, token_file) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	srv.token = token;
	if (!text || kcidb_spool_add(spool, day->tag ? day->tag : day->date, text, strlen(text)) < 0) {
		status = text ? cmd_fail(NULL) : EXIT_FAILED;
		goto done;
	}
	if (kcidb_spool_send(spool, &srv, &sent, &left) < 0) {
		cmd_fail(NULL);
		cmd_error("%d document%s sent, %d kept in %s for the next --submit",
			  sent, sent == 1 ? "" : "s", left, spool);
		status = EXIT_PROBLEMS;
		goto done;
	}
	printf("kcidb: %d document%s sent\n", sent, sent == 1 ? "" : "s");
	status = cmd_finish_stdout(EXIT_OK);
done:
	if (token)
		memset(token, 0, strlen(token));
	free(token);
	free(text);
	free(spool);
	return status;
}

int cmd_kcidb(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "origin", required_argument, NULL, 'o' },
		{ "url", required_argument, NULL, 'u' },
		{ "out", required_argument, NULL, 'O' },
		{ "submit", required_argument, NULL, 's' },
		{ "token-file", required_argument, NULL, 't' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kcidb_opts o = { 0 };
	const char *out = NULL, *submit_url = NULL, *token_file = NULL;
	long timeout = 60;
	char *end;
	struct day *day = NULL;
	json_t *doc = NULL;
	char *date = NULL;
	int c, status;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.origin = optarg;
			break;
		case 'u':
			o.url_base = optarg;
			break;
		case 'O':
			out = optarg;
			break;
		case 's':
			submit_url = optarg;
			break;
		case 't':
			token_file = optarg;
			break;
		case 'T':
			timeout = strtol(optarg, &end, 10);
			if (*end || timeout < 1 || timeout > 3600) {
				cmd_error("--timeout wants seconds from 1 to 3600, not '%s'", optarg);
				return cmd_usage(usage);
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return EXIT_OK;
		default:
			return cmd_usage(usage);
		}
	}
	if (argc - optind > 1 || (out && submit_url))
		return cmd_usage(usage);
	if (!token_file && submit_url && ctx->settings)
		token_file = settings_get(ctx->settings, "kcidb-token-file");
	if (submit_url && !str_starts_with(submit_url, "http://") &&
	    !str_starts_with(submit_url, "https://")) {
		cmd_error("--submit wants an http:// or https:// URL, not '%s'", submit_url);
		return EXIT_USAGE;
	}
	/* The options win over DIR/config's kcidb-origin and kcidb-url. */
	if (!o.origin && ctx->settings)
		o.origin = settings_get(ctx->settings, "kcidb-origin");
	if (!o.origin)
		o.origin = DEFAULT_ORIGIN;
	if (!o.url_base && ctx->settings)
		o.url_base = settings_get(ctx->settings, "kcidb-url");
	if (!kcidb_origin_valid(o.origin)) {
		cmd_error("KCIDB origin '%s' is not valid: use lower-case letters, digits and '_'",
			  o.origin);
		return EXIT_USAGE;
	}
	if (optind < argc && !(date = cmd_day_arg(argv[optind])))
		return cmd_fail(NULL);
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
	free(date);
	return status;
}
