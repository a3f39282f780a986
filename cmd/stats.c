/*
 * tide stats TAG [--day DATE] [--json]: how much of a mainline tag (a new
 * -rc1) the integration had, by id, patch-id and subject, and the day's
 * commits the tag does not have, per tree (src/stats.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "opt.h"
#include "day.h"
#include "error.h"
#include "graph.h"
#include "stats.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

struct base_before {
	git_repository *repo;
	git_oid tag;
};

/* A day built on a mainline older than the tag: its base is in the tag's history. */
static int built_before(const struct day *d, void *data)
{
	struct base_before *b = data;
	git_oidarray mb = { 0 };
	git_oid base;
	int before;

	if (!d->base_commit || !d->commit || git_oid_fromstr(&base, d->base_commit) < 0 ||
	    git_oid_equal(&base, &b->tag) || graph_merge_bases(&mb, b->repo, &base, &b->tag) < 0) {
		tide_error_clear();
		return 0;
	}
	before = mb.count == 1 && git_oid_equal(&mb.ids[0], &base);
	git_oidarray_dispose(&mb);
	return before;
}

/* --day DATE, else the newest day built on a mainline before the tag. */
static int find_day(struct day **out, struct cmd_ctx *ctx, const char *date, const char *tag)
{
	struct base_before b = { ctx->ws->repo, { { 0 } } };
	git_object *obj = NULL, *commit = NULL;
	char *days = workspace_days_dir(ctx->ws->dir), *d = NULL;
	int status = EXIT_OK, found;

	if (date) {
		if (!(d = cmd_day_arg(date))) {
			cmd_error("%s", tide_error_last());
			status = EXIT_USAGE;
		} else if (day_open(out, days, d) < 0) {
			status = cmd_fail(NULL);
		}
		goto done;
	}
	if (git_revparse_single(&obj, ctx->ws->repo, tag) < 0 ||
	    git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		cmd_error("no commit named '%s' in the workspace", tag);
		status = EXIT_BADINPUT;
		goto done;
	}
	git_oid_cpy(&b.tag, git_object_id(commit));
	if ((found = day_previous(out, days, "9999-12-31", 1, built_before, &b)) < 0) {
		status = cmd_fail(NULL);
	} else if (!found) {
		cmd_error("no day built on a mainline before '%s' (name one with --day)", tag);
		status = EXIT_BADINPUT;
	}
done:
	git_object_free(commit);
	git_object_free(obj);
	free(days);
	free(d);
	return status;
}

static unsigned percent(size_t part, size_t whole)
{
	return whole ? (unsigned)((part * 100 + whole / 2) / whole) : 0;
}

static void print_text(const struct stats_result *r, const struct day *d)
{
	size_t in = r->by_id + r->by_patch_id + r->by_subject, t, i;

	printf("%s: %zu commits, %zu (%u%%) of them in %s:\n", r->tag, r->commits, in,
	       percent(in, r->commits), d->tag ? d->tag : d->date);
	printf("  %zu by the same id\n  %zu by the same patch-id\n  %zu by the same subject\n",
	       r->by_id, r->by_patch_id, r->by_subject);
	printf("%s: %zu of its %zu commits are not in %s\n", d->tag ? d->tag : d->date, r->never,
	       r->day_commits, r->tag);
	for (t = 0; t < r->ntrees; t++) {
		const struct stats_tree *st = &r->trees[t];

		if (!st->nnever)
			continue;
		printf("\n%s: %zu of %zu\n", st->name, st->nnever, st->commits);
		for (i = 0; i < st->nnever; i++)
			printf("  %.12s (\"%s\")\n", st->never[i].id, st->never[i].subject);
	}
}

static void print_json(const struct stats_result *r, const struct day *d)
{
	json_t *trees = json_array(), *o;
	size_t t, i;
	char *dump;

	for (t = 0; t < r->ntrees; t++) {
		json_t *never = json_array();

		for (i = 0; i < r->trees[t].nnever; i++)
			json_array_append_new(never, json_pack("{s:o, s:o}",
				"id", json_text(r->trees[t].never[i].id),
				"subject", json_text(r->trees[t].never[i].subject)));
		json_array_append_new(trees, json_pack("{s:o, s:I, s:o}", "tree",
			json_text(r->trees[t].name), "commits", (json_int_t)r->trees[t].commits,
			"never", never));
	}
	o = json_pack("{s:o, s:o, s:o, s:I, s:{s:I, s:I, s:I}, s:I, s:I, s:o}",
		      "tag", json_text(r->tag), "tag_commit", json_text(r->tag_commit),
		      "day", json_text(d->date), "commits", (json_int_t)r->commits,
		      "in_day", "by_id", (json_int_t)r->by_id, "by_patch_id",
		      (json_int_t)r->by_patch_id, "by_subject", (json_int_t)r->by_subject,
		      "day_commits", (json_int_t)r->day_commits, "never", (json_int_t)r->never,
		      "trees", trees);
	dump = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	printf("%s\n", dump ? dump : "null");
	free(dump);
	json_decref(o);
}

int cmd_stats(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *tag = NULL, *date = NULL;
	int json = 0, status;
	struct day *d = NULL;
	struct stats_result r;
	char *pids;
	const struct opt_spec specs[] = {
		{ OPT_ARG, "tag", 0, &tag, 0, OPT_BARE | OPT_MANDATORY, "TAG",
		  "the mainline tag (or any revision), e.g. a new -rc1" },
		{ OPT_VALUE, "day", 0, &date, 0, 0, "DATE",
		  "the day to compare with (default: the newest built on a mainline before TAG)" },
		{ OPT_SWITCH, "json", 0, &json, 1, 0, NULL, "print the numbers and lists as JSON" },
		{ 0 },
	};

	if ((status = opt_parse("stats", specs, argc, argv, 0)) != 0)
		return status < 0 ? EXIT_OK : status;
	if ((status = cmd_open(ctx, ctx->open_flags)) != 0)
		return status;
	if ((status = find_day(&d, ctx, date, tag)) != EXIT_OK)
		return status;
	pids = workspace_patch_ids(ctx->ws->dir);
	if (stats_day(&r, ctx->ws->repo, d, tag, pids) < 0) {
		status = cmd_fail(NULL);
	} else {
		if (json)
			print_json(&r, d);
		else
			print_text(&r, d);
		stats_result_release(&r);
	}
	free(pids);
	day_free(d);
	return status;
}
