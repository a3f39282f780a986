/*
 * tide resolve TREE [--date DATE]: a full worktree (and git repository
 * mid-merge) of a tree's conflicted merge, for a person to fix, build and
 * test; tide resolve --record [TREE]: store the fix
 * in the workspace's rr-cache, where the next run finds it.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opt.h"
#include "day.h"
#include "error.h"
#include "history.h"
#include "rerere.h"
#include "safefs.h"
#include "util.h"
#include "workspace.h"

/* Conflicts rerere cannot record (modify/delete ...), listed in .tide/other. */
static void print_other(const char *dir, const char *tree)
{
	char *path = path_join(dir, ".tide/other"), *p, *nl, *tab;
	struct buf text = BUF_INIT;

	/* Lines are "KIND<TAB>PATH". */
	if (safefs_read_file(&text, path, RERERE_MAX_FILE) == 0)
		for (p = text.ptr; (nl = strchr(p, '\n')) && (tab = memchr(p, '\t', (size_t)(nl - p)));
		     p = nl + 1)
			printf("%s: %.*s conflict in %.*s: not text, fix it in the tree itself\n", tree,
			       (int)(tab - p), p, (int)(nl - tab - 1), tab + 1);
	tide_error_clear();
	buf_release(&text);
	free(path);
}

/* Lines of a recorded resolution's diff shown; the rest is counted. */
#define KNOWN_DIFF_LINES 200

static void print_diff(const char *diff)
{
	const char *p = diff, *nl;
	size_t shown = 0, more = 0;

	for (; *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		if (shown < KNOWN_DIFF_LINES) {
			printf("    %.*s\n", nl ? (int)(nl - p) : (int)strlen(p), p);
			shown++;
		} else {
			more++;
		}
		if (!nl)
			break;
	}
	if (more)
		printf("    ... (%zu more lines)\n", more);
}

/* Conflicts the rr-cache already has a resolution for: what the next run does with it. */
static void print_known(const struct rerere_worktree *wt, const char *tree)
{
	const struct rerere_known *k;
	size_t i;

	for (i = 0; i < wt->nknown; i++) {
		k = &wt->known[i];
		if (k->applies) {
			printf("%s: %s: already resolved by recorded resolution %s, which the next "
			       "run applies; --record %s. It changes:\n", tree, k->path, k->id,
			       k->replaces ? "replaces it" : "adds a variant beside it");
			print_diff(k->text);
		} else {
			printf("%s: %s: recorded resolution %s does not apply: %s; --record %s\n",
			       tree, k->path, k->id, k->text,
			       k->replaces ? "replaces it" : "adds a variant for this conflict");
		}
	}
}

static int prepare(struct cmd_ctx *ctx, const char *tree, const char *date)
{
	struct day *d = NULL;
	const struct day_tree *dt;
	char *dir = workspace_resolve_tree(ctx->ws->dir, tree);
	char *store = workspace_rr_cache(ctx->ws->dir), *label = NULL;
	struct rerere_worktree wt = { 0, NULL, 0 };
	const char *sha;
	git_oid ours, theirs;
	int status = EXIT_OK;

	if (cmd_load_days(&d, NULL, ctx->ws, date) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	if (!(dt = day_find_tree(d, tree)) || !dt->sha) {
		cmd_error("no tree '%s' with a commit on %s", tree, d->date);
		status = EXIT_BADINPUT;
		goto done;
	}
	sha = day_tree_tip(dt);
	if (history_state_before(&ours, d, dt) < 0 || git_oid_fromstr(&theirs, sha) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	label = dt->branch ? xasprintf("%s/%s", tree, dt->branch) : xstrdup(tree);
	if (rerere_worktree_prepare(&wt, ctx->ws->repo, dir, store, &ours, &theirs,
				    d->tag ? d->tag : d->date, label) < 0) {
		status = cmd_fail(tree);
		goto done;
	}
	print_other(dir, tree);
	print_known(&wt, tree);
	if (!wt.nfiles)
		printf("%s: no text conflict to resolve on %s\n", tree, d->date);
	else
		printf("%s: %zu conflicted file%s in %s\n"
		       "a git worktree mid-merge: fix them (build and test there), then run\n"
		       "'tide resolve --record %s'\n",
		       tree, wt.nfiles, wt.nfiles == 1 ? "" : "s", dir, tree);
done:
	rerere_worktree_release(&wt);
	free(label);
	free(store);
	free(dir);
	day_free(d);
	return status;
}

static int record_one(struct cmd_ctx *ctx, const char *tree)
{
	char *dir = workspace_resolve_tree(ctx->ws->dir, tree);
	char *store = workspace_rr_cache(ctx->ws->dir);
	struct buf ids = BUF_INIT;
	const char *p, *nl;
	int status = EXIT_OK;

	if (rerere_worktree_record(&ids, dir, store) < 0) {
		status = cmd_fail(tree);
		goto done;
	}
	/* ids holds "ID PATH" lines. */
	for (p = buf_cstr(&ids); (nl = strchr(p, '\n')); p = nl + 1)
		printf("%s: recorded resolution %.*s for %.*s\n", tree, RERERE_ID_LEN, p,
		       (int)(nl - p - RERERE_ID_LEN - 1), p + RERERE_ID_LEN + 1);
	workspace_log(ctx->ws, "resolve: recorded %s", tree);
	rm_rf(dir);	/* recorded: a stale worktree would only confuse */
done:
	buf_release(&ids);
	free(store);
	free(dir);
	return status;
}

/* Every prepared worktree under DIR/resolve. */
static int record_all(struct cmd_ctx *ctx)
{
	char *base = workspace_resolve_dir(ctx->ws->dir);
	DIR *d = opendir(base);
	struct dirent *e;
	int status = EXIT_OK, n = 0, s;

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		n++;
		if ((s = record_one(ctx, e->d_name)) != EXIT_OK)
			status = s;
	}
	if (d)
		closedir(d);
	free(base);
	if (!n) {
		cmd_error("nothing to record: run 'tide resolve TREE' first");
		return EXIT_BADINPUT;
	}
	return status;
}

int cmd_resolve(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *date = NULL, *tree = NULL;
	int record = 0, status;
	const struct opt_spec specs[] = {
		{ OPT_ARG, "tree", 0, &tree, 0, OPT_BARE, "TREE", "the tree whose conflict to check out" },
		{ OPT_VALUE, "date", 0, &date, 0, 0, "DATE", "the day of the conflict (default: the newest)" },
		{ OPT_FORM, NULL, 0, NULL, 0, 0, NULL, NULL },
		{ OPT_SWITCH, "record", 0, &record, 1, OPT_BARE, NULL,
		  "record the resolution of TREE (default: of every checked-out tree)" },
		{ OPT_REF, "tree", 0, NULL, 0, 0, NULL, NULL },
		{ 0 },
	};

	if ((status = opt_parse("resolve", specs, argc, argv, 0)) != 0)
		return status < 0 ? EXIT_OK : status;
	if (!record && !tree)
		return opt_usage_error("resolve", specs, "missing TREE");
	if (record && date)
		return opt_usage_error("resolve", specs, "--record does not go with --date");
	if (date && !day_date_is_valid(date)) {
		cmd_error("bad date '%s' (expected YYYY-MM-DD)", date);
		return EXIT_USAGE;
	}
	if ((status = cmd_open(ctx, ctx->open_flags)) != 0)
		return status;
	if (record)
		return tree ? record_one(ctx, tree) : record_all(ctx);
	return prepare(ctx, tree, date);
}
