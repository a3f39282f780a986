#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "opt.h"
#include "../src/conf.h"
#include "../src/text.h"


static json_t *str_or_null(const char *s)
{
	return s ? json_text(s) : json_null();
}

/* What tide shows of a URL: its password redacted. */
static json_t *url_json(const char *url)
{
	char *shown = url ? url_redact(url) : NULL;
	json_t *j = json_text(shown);

	free(shown);
	return j;
}

static json_t *tree_json(const struct tree *t)
{
	json_t *opts = json_object();
	size_t i;

	for (i = 0; i < t->nopts; i++) {
		struct buf key = BUF_INIT;

		/* jansson drops a key that is not UTF-8: repair it instead. */
		utf8_lossy(&key, t->opts[i].key, strlen(t->opts[i].key));
		json_object_set_new(opts, buf_cstr(&key), json_text(t->opts[i].value));
		buf_release(&key);
	}
	return json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:i}",
			 "name", json_text(t->name), "type", tree_type_name(t->type),
			 "url", url_json(t->url), "location", url_json(t->location),
			 "branch", str_or_null(t->branch),
			 "contact", str_or_null(t->contact), "opts", opts, "line", t->line);
}

static int print_json(const struct trees_conf *conf)
{
	json_t *trees = json_array(), *root;
	size_t i;

	for (i = 0; i < conf->ntrees; i++)
		json_array_append_new(trees, tree_json(&conf->trees[i]));
	root = json_pack("{s:o, s:{s:o, s:o, s:o}, s:o}", "file", json_text(conf->path),
			 "base", "url", url_json(conf->base_url),
			 "location", url_json(conf->base_location),
			 "tag", str_or_null(conf->base_tag), "trees", trees);
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(root);
	return EXIT_OK;
}

static int print_table(const struct trees_conf *conf)
{
	int wname = 4, wurl = 3;
	size_t i;

	for (i = 0; i < conf->ntrees; i++) {
		if ((int)strlen(conf->trees[i].name) > wname)
			wname = (int)strlen(conf->trees[i].name);
		if ((int)strlen(conf->trees[i].url) > wurl)
			wurl = (int)strlen(conf->trees[i].url);
	}
	if (conf->base_url) {
		char *url = url_redact(conf->base_url);

		printf("base: %s tag %s\n", url, conf->base_tag);
		free(url);
	}
	for (i = 0; i < conf->ntrees; i++) {
		const struct tree *t = &conf->trees[i];
		char *url = url_redact(t->url);

		printf("%-*s  %-5s  %-*s  %s", wname, t->name, tree_type_name(t->type), wurl,
		       url, t->branch ? t->branch : "-");
		free(url);
		if (t->contact)
			printf("  %s", t->contact);
		putchar('\n');
	}
	return EXIT_OK;
}

int cmd_trees(struct cmd_ctx *ctx, int argc, char **argv)
{
	int json = 0, status;
	const struct opt_spec specs[] = {
		{ OPT_SWITCH, "json", 0, &json, 1, 0, NULL, "print the trees as JSON" },
		{ 0 },
	};

	if ((status = opt_parse("trees", specs, argc, argv, 0)) != 0)
		return status < 0 ? EXIT_OK : status;
	if ((status = cmd_open(ctx, ctx->open_flags)) != 0)
		return status;
	return json ? print_json(ctx->conf) : print_table(ctx->conf);
}
