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
	"usage: tide kcidb [--origin NAME] [--url URL] [--out FILE] [DATE]\n";

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

int cmd_kcidb(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "origin", required_argument, NULL, 'o' },
		{ "url", required_argument, NULL, 'u' },
		{ "out", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kcidb_opts o = { 0 };
	const char *out = NULL;
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
		case 'h':
			fputs(usage, stdout);
			return EXIT_OK;
		default:
			return cmd_usage(usage);
		}
	}
	if (argc - optind > 1)
		return cmd_usage(usage);
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
	else
		status = write_doc(doc, out);
	json_decref(doc);
	day_free(day);
	free(date);
	return status;
}
