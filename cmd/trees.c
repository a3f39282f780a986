#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "opt.h"
#include "buf.h"
#include "buildconf.h"
#include "conf.h"
#include "error.h"
#include "text.h"
#include "util.h"


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

/* What this machine lacks to build (and boot) c, without "config 'NAME': "; or NULL. */
static char *config_problem(const struct build_config *c)
{
	char *prefix;
	const char *msg;
	char *out;

	if (build_config_check(c) == 0)
		return NULL;
	prefix = xasprintf("config '%s': ", c->name);
	msg = tide_error_last();
	out = xstrdup(str_starts_with(msg, prefix) ? msg + strlen(prefix) : msg);
	free(prefix);
	tide_error_clear();
	return out;
}

static json_t *config_json(const struct build_config *c)
{
	json_t *fragments = json_array();
	char *problem = config_problem(c);
	json_t *j;
	size_t i;

	for (i = 0; i < c->nfragments; i++)
		json_array_append_new(fragments, json_pack("{s:o, s:o}",
				      "file", json_text(c->fragments[i].written),
				      "path", str_or_null(c->fragments[i].path)));
	j = json_pack("{s:o, s:s, s:o, s:o, s:o, s:b, s:o, s:o, s:i, s:b, s:b, s:i, s:o}",
	      "name", json_text(c->name), "arch", c->arch->name,
		      "base", json_text(build_config_base(c)),
		      "base_path", str_or_null(c->base_target ? NULL : c->base.path),
		      "fragments", fragments, "boot", c->boot,
		      "machine", json_text(c->machine), "cpu", str_or_null(c->cpu),
		      "smp", c->smp, "w1", c->w1, "sparse", c->sparse, "line", c->line,
		      "problem", str_or_null(problem));
	free(problem);
	return j;
}

static int print_json(const struct trees_conf *conf)
{
	json_t *trees = json_array(), *configs = json_array(), *root;
	size_t i;

	for (i = 0; i < conf->ntrees; i++)
		json_array_append_new(trees, tree_json(&conf->trees[i]));
	for (i = 0; i < conf->nconfigs; i++)
		json_array_append_new(configs, config_json(&conf->configs[i]));
	root = json_pack("{s:o, s:{s:o, s:o, s:o}, s:o, s:o}", "file", json_text(conf->path),
			 "base", "url", url_json(conf->base_url),
			 "location", url_json(conf->base_location),
			 "tag", str_or_null(conf->base_tag), "trees", trees,
			 "configs", configs);
	if (conf->build_order || conf->build_parallel || conf->build_jobs) {
		size_t *order = trees_conf_build_order(conf);
		json_t *names = json_array();

		for (i = 0; i < conf->nconfigs; i++)
			json_array_append_new(names, json_text(conf->configs[order[i]].name));
		json_object_set_new(root, "build", json_pack("{s:o, s:i, s:i}", "order", names,
							     "parallel", conf->build_parallel ? conf->build_parallel : 1,
							     "jobs", conf->build_jobs));
		free(order);
	}
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(root);
	return EXIT_OK;
}

/* "boot MACHINE [cpu CPU] [smp N]" or "no boot", then W=1 and C=1. */
static char *config_how(const struct build_config *c)
{
	struct buf b = BUF_INIT;
	char *out;

	if (c->boot) {
		buf_printf(&b, "boot %s", c->machine);
		if (c->cpu)
			buf_printf(&b, " cpu %s", c->cpu);
		if (c->smp)
			buf_printf(&b, " smp %d", c->smp);
	} else {
		buf_puts(&b, "no boot");
	}
	if (c->w1)
		buf_puts(&b, " W=1");
	if (c->sparse)
		buf_puts(&b, " C=1");
	out = xstrdup(buf_cstr(&b));
	buf_release(&b);
	return out;
}

static char *config_fragments(const struct build_config *c)
{
	struct buf b = BUF_INIT;
	char *out;
	size_t i;

	for (i = 0; i < c->nfragments; i++)
		buf_printf(&b, "%s%s", i ? "," : "", c->fragments[i].written);
	out = xstrdup(c->nfragments ? buf_cstr(&b) : "-");
	buf_release(&b);
	return out;
}

/*
 * "builds  arm64, up, smoke; 2 at a time; 4 make jobs in all": how tide
 * run builds them, when trees.conf says more than its default.
 */
static void print_build_plan(const struct trees_conf *conf)
{
	size_t *order, i;

	if (!conf->build_order && !conf->build_parallel && !conf->build_jobs)
		return;
	order = trees_conf_build_order(conf);
	printf("builds ");
	for (i = 0; i < conf->nconfigs; i++)
		printf("%s%s", i ? ", " : " ", conf->configs[order[i]].name);
	printf("; %d at a time", conf->build_parallel ? conf->build_parallel : 1);
	if (conf->build_jobs)
		printf("; %d make job%s in all", conf->build_jobs, conf->build_jobs == 1 ? "" : "s");
	putchar('\n');
	free(order);
}

/* One line per configuration, after the trees; "! why" when this machine cannot run it. */
static void print_configs(const struct trees_conf *conf)
{
	int wname = 0, wbase = 0, wfrag = 0;
	size_t i;

	for (i = 0; i < conf->nconfigs; i++) {
		const struct build_config *c = &conf->configs[i];
		char *frags = config_fragments(c);

		if ((int)strlen(c->name) > wname)
			wname = (int)strlen(c->name);
		if ((int)strlen(build_config_base(c)) > wbase)
			wbase = (int)strlen(build_config_base(c));
		if ((int)strlen(frags) > wfrag)
			wfrag = (int)strlen(frags);
		free(frags);
	}
	for (i = 0; i < conf->nconfigs; i++) {
		const struct build_config *c = &conf->configs[i];
		char *frags = config_fragments(c), *how = config_how(c);
		char *problem = config_problem(c);

		printf("config %-*s  %-6s  %-*s  %-*s  %s", wname, c->name, c->arch->name,
		       wbase, build_config_base(c), wfrag, frags, how);
		if (problem)
			printf("  ! %s", problem);
		putchar('\n');
		free(frags);
		free(how);
		free(problem);
	}
	print_build_plan(conf);
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
	print_configs(conf);
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
