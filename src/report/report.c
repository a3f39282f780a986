#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "changes.h"
#include "checkmail.h"
#include "conf.h"
#include "day.h"
#include "error.h"
#include "mail.h"
#include "report.h"
#include "rerere.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

static int base_is_kernel(git_repository *repo, const git_oid *base)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	int kernel = 0;

	if (git_commit_lookup(&c, repo, base) == 0 && git_commit_tree(&tree, c) == 0)
		kernel = git_tree_entry_byname(tree, "Kbuild") && git_tree_entry_byname(tree, "Kconfig");
	git_tree_free(tree);
	git_commit_free(c);
	return kernel;
}

char *report_project_name(const struct trees_conf *conf, git_repository *repo,
			  const git_oid *base, const char *wsdir)
{
	const char *slash;

	if (conf && conf->project)
		return xstrdup(conf->project);
	if (repo && base && base_is_kernel(repo, base))
		return xstrdup("linux-next");
	slash = wsdir ? strrchr(wsdir, '/') : NULL;
	if (slash && slash[1])
		return xstrdup(slash + 1);
	return xstrdup(wsdir && *wsdir ? wsdir : "the integration tree");
}

int report_tree_has_conflict(const struct day_tree *dt)
{
	return dt->nconflicts > 0;
}

/* The diagnostics of diags attributed to tree (build_attribute()). */
static json_t *tree_diags(const json_t *diags, const char *tree)
{
	json_t *mine = json_array(), *d;
	size_t i;

	json_array_foreach(diags, i, d) {
		const char *t = json_string_value(json_object_get(d, "tree"));

		if (t && !strcmp(t, tree))
			json_array_append(mine, d);
	}
	return mine;
}

/* What one configuration's build says about tree, or NULL when nothing. */
static json_t *config_json(const char *name, const struct day_build *b, const char *tree)
{
	json_t *errors, *warnings;

	if (!b)
		return NULL;
	errors = tree_diags(b->errors, tree);
	warnings = tree_diags(b->new_warnings, tree);
	if (!json_array_size(errors) && !json_array_size(warnings)) {
		json_decref(errors);
		json_decref(warnings);
		return NULL;
	}
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "name", json_text(name),
			 "arch", json_text(b->arch ? b->arch : "?"),
			 "status", json_text(b->status ? b->status : "?"),
			 "errors", errors, "new_warnings", warnings);
}

/*
 * The declared configurations whose build has errors or new warnings in
 * tree's files, the day's own build first; a day without declared
 * configurations (its build has no "config") has none.
 */
static json_t *configs_json(const struct day *day, const char *tree)
{
	json_t *all = json_array(), *c;
	size_t i;

	if (!day->build || !day->build->config)
		return all;
	if ((c = config_json(day->build->config, day->build, tree)))
		json_array_append_new(all, c);
	for (i = 0; i < day->nconfigs; i++)
		if ((c = config_json(day->configs[i].name, day->configs[i].build, tree)))
			json_array_append_new(all, c);
	return all;
}

int report_tree_has_report(const struct day *day, const struct day_tree *dt)
{
	json_t *configs;
	int has;

	if (report_tree_has_conflict(dt))
		return 1;
	configs = configs_json(day, dt->name);
	has = json_array_size(configs) > 0;
	json_decref(configs);
	return has;
}

static json_t *strings_json(char *const *v, size_t n)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(arr, json_text(v[i]));
	return arr;
}

static json_t *commits_json(const struct day_commit *c, size_t n)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(arr, json_pack("{s:o, s:o, s:o, s:o}",
						     "id", json_text(c[i].id),
						     "subject", json_text(c[i].subject),
						     "author", json_text(c[i].author),
						     "tree", json_text(c[i].tree)));
	return arr;
}

/* The rerere id of a conflict: only the hunks count, so joining them is enough. */
static void conflict_id(char *id, const struct day_conflict *c)
{
	struct buf all = BUF_INIT;
	size_t i;

	for (i = 0; i < c->nhunks; i++)
		buf_puts(&all, c->hunks[i]);
	/* The hunks carry their markers: their length is the file's conflict-marker-size. */
	if (rerere_normalize(NULL, id, buf_cstr(&all), all.len,
			     rerere_marker_size_of(buf_cstr(&all), all.len)) <= 0) {
		/* No text conflict (modify/delete ...): identify it by path and kind. */
		buf_printf(&all, "%s\n%s\n", c->path, c->kind ? c->kind : "");
		rerere_sha1_hex(id, all.ptr, all.len);
		tide_error_clear();
	}
	buf_release(&all);
}

static const struct day_resolution *find_resolution(const struct day_tree *dt, const char *path)
{
	size_t i;

	for (i = 0; i < dt->handling.nresolutions; i++) {
		const struct day_resolution *r = &dt->handling.resolutions[i];

		if (r->path && !strcmp(r->path, path))
			return r;
	}
	return NULL;
}

static json_t *file_json(const struct day_tree *dt, const struct day_conflict *c)
{
	const struct day_resolution *res;
	json_t *f, *hunks = json_array();
	char id[RERERE_ID_LEN + 1];
	size_t i;

	for (i = 0; i < c->nhunks; i++)
		json_array_append_new(hunks, json_text(c->hunks[i]));
	conflict_id(id, c);
	f = json_pack("{s:o, s:o, s:s, s:o, s:o, s:o}", "path", json_text(c->path),
		      "kind", json_text(c->kind), "conflict_id", id, "hunks", hunks,
		      "ours_commits", commits_json(c->ours, c->nours),
		      "theirs_commits", commits_json(c->theirs, c->ntheirs));
	if (c->blame)
		json_object_set_new(f, "blame", json_text(c->blame));
	if ((res = find_resolution(dt, c->path))) {
		json_object_set_new(f, "resolution", json_pack("{s:o, s:o, s:o}",
			"path", json_text(res->path), "id", json_text(res->id),
			"diff", json_text(res->diff)));
		if (res->combined)
			json_object_set_new(json_object_get(f, "resolution"), "combined",
					    json_text(res->combined));
	}
	return f;
}

/* The trees the ours-side commits came from ("mainline" only if nothing else). */
static json_t *other_trees(const struct day_tree *dt)
{
	json_t *with = json_array(), *v;
	int seen;
	size_t i, j, k;

	for (i = 0; i < dt->nconflicts; i++)
		for (j = 0; j < dt->conflicts[i].nours; j++) {
			const char *t = dt->conflicts[i].ours[j].tree;

			if (!t || !strcmp(t, "mainline"))
				continue;
			seen = 0;
			json_array_foreach(with, k, v)
				seen |= !strcmp(json_string_value(v), t);
			if (!seen)
				json_array_append_new(with, json_text(t));
		}
	if (!json_array_size(with))
		json_array_append_new(with, json_text("mainline"));
	return with;
}

/* Conflict ids in the previous day's record of the same tree. */
static int seen_before(const struct day *prev, const char *tree, const char *id)
{
	const struct day_tree *pt = prev ? day_find_tree(prev, tree) : NULL;
	char pid[RERERE_ID_LEN + 1];
	size_t i;

	for (i = 0; pt && i < pt->nconflicts; i++) {
		conflict_id(pid, &pt->conflicts[i]);
		if (!strcmp(pid, id))
			return 1;
	}
	return 0;
}

static const char *handled(const struct day_tree *dt)
{
	const char *h = dt->handling.handled;

	if (h)
		return h;
	if (dt->status == TREE_PREVIOUS)
		return "previous";
	return dt->status == TREE_MERGED ? "recorded" : "dropped";
}

/*
 * The commit behind a tree's build problems, when the day's bisect named
 * one of the tree's: "culprit": {commit, subject, conflicts_with?}.
 */
static void culprit_json(json_t *r, const struct day *day, const struct day_tree *dt)
{
	const struct day_bisect *b = day->bisect;

	if (!b || !b->tree || strcmp(b->tree, dt->name) || !b->commit || !b->outcome ||
	    (strcmp(b->outcome, "found") && strcmp(b->outcome, "semantic-conflict")))
		return;
	json_object_set_new(r, "culprit", json_pack("{s:o, s:o}", "commit", json_text(b->commit),
						    "subject", json_text(b->subject)));
	if (b->conflicts_with)
		json_object_set_new(json_object_get(r, "culprit"), "conflicts_with",
				    json_text(b->conflicts_with));
}

int report_tree_json(json_t **out, const struct day *day, const struct day_tree *dt,
		     const struct day *prev)
{
	const struct day_handling *h = &dt->handling;
	json_t *r, *files = json_array(), *f, *configs;
	const char *project;
	int is_new = 0;
	size_t i;

	for (i = 0; i < dt->nconflicts; i++) {
		f = file_json(dt, &dt->conflicts[i]);
		is_new |= !seen_before(prev, dt->name,
				       json_string_value(json_object_get(f, "conflict_id")));
		json_array_append_new(files, f);
	}
	project = day->project;
	configs = configs_json(day, dt->name);
	/* A failed build is mailed each day it fails; new warnings are new by definition. */
	is_new |= json_array_size(configs) > 0;
	r = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o}", "date", json_text(day->date),
		      "tag", json_text(day->tag), "project", json_text(project ? project : "linux-next"),
		      "tree", json_text(dt->name),
		      "status", json_text(tree_status_name(dt->status)),
		      "with", dt->nconflicts ? other_trees(dt) : json_array(),
		      "handled", json_text(handled(dt)), "new", is_new,
		      "files", files);
	if (!r) {
		json_decref(configs);
		return tide_error_set(TIDE_ERROR, "cannot build the report of '%s'", dt->name);
	}
	if (!dt->nconflicts)
		json_object_del(r, "handled");
	if (json_array_size(configs))
		json_object_set(r, "configs", configs);
	json_decref(configs);
	if (json_array_size(configs))
		culprit_json(r, day, dt);
	if (h->version_from)
		json_object_set_new(r, "version_from", json_text(h->version_from));
	if (h->nresolution_errors)
		json_object_set_new(r, "errors",
				    strings_json(h->resolution_errors, h->nresolution_errors));
	if (h->nfixups)
		json_object_set_new(r, "fixups", strings_json(h->fixups, h->nfixups));
	if (h->fixup_error)
		json_object_set_new(r, "fixup_error", json_text(h->fixup_error));
	if (h->next_base.day)
		json_object_set_new(r, "next_base", json_pack("{s:o, s:I, s:I}",
				    "day", json_text(h->next_base.day),
				    "commits", (json_int_t)h->next_base.commits,
				    "failed", (json_int_t)h->next_base.failed));
	*out = r;
	return 0;
}

static void tree_phrase(struct buf *out, const char *tree)
{
	if (!strcmp(tree, "mainline"))
		buf_puts(out, "the mainline tree");
	else
		buf_printf(out, "the %s tree", tree);
}

static void with_phrase(struct buf *out, const json_t *with)
{
	json_t *v;
	size_t i, n = json_array_size(with);

	json_array_foreach(with, i, v) {
		if (i)
			buf_puts(out, i + 1 == n ? " and " : ", ");
		tree_phrase(out, json_string_value(v));
	}
}

static void commit_lines(struct buf *out, const json_t *commits)
{
	json_t *c;
	size_t i;

	json_array_foreach(commits, i, c)
		buf_printf(out, "  %.12s (\"%s\")\n", json_str_or(c, "id", ""), json_str_or(c, "subject", ""));
	if (!json_array_size(commits))
		buf_puts(out, "  (no commit found touching this file)\n");
}

static int has_string(const json_t *arr, const char *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
		if (!strcmp(json_string_value(v), s))
			return 1;
	return 0;
}

/* The trees of a file's ours-side commits, in order ("mainline" if none). */
static json_t *file_with(const json_t *f)
{
	json_t *with = json_array(), *c;
	size_t i;

	json_array_foreach(json_object_get(f, "ours_commits"), i, c) {
		const char *t = json_str_or(c, "tree", "");

		if (*t && strcmp(t, "mainline") && !has_string(with, t))
			json_array_append_new(with, json_text(t));
	}
	if (!json_array_size(with))
		json_array_append_new(with, json_text("mainline"));
	return with;
}

/* Add the commits of list to all, each id once. */
static void add_commits(json_t *all, const json_t *list)
{
	json_t *c, *d;
	size_t i, j;
	int seen;

	json_array_foreach(list, i, c) {
		seen = 0;
		json_array_foreach(all, j, d)
			seen |= !strcmp(json_str_or(c, "id", ""), json_str_or(d, "id", ""));
		if (!seen)
			json_array_append(all, c);
	}
}

static void hunks_section(struct buf *out, const json_t *f, int named)
{
	json_t *h;
	size_t i;

	if (named)
		buf_printf(out, "The conflict in %s (%s, rerere id %.12s):\n\n", json_str_or(f, "path", ""),
			   json_str_or(f, "kind", ""), json_str_or(f, "conflict_id", ""));
	else
		buf_printf(out, "The conflict (%s, rerere id %.12s):\n\n", json_str_or(f, "kind", ""),
			   json_str_or(f, "conflict_id", ""));
	json_array_foreach(json_object_get(f, "hunks"), i, h) {
		const char *p = json_string_value(h), *nl;

		for (; p && *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl)
				nl = p + strlen(p) - 1;
			buf_printf(out, "  %.*s\n", (int)(nl - p), p);
			if (!nl[1])
				break;
		}
		buf_putc(out, '\n');
	}
	if (!json_array_size(json_object_get(f, "hunks")))
		buf_puts(out, "  (no text hunks: the file itself conflicts)\n\n");
}

/* What the commit lists cannot say, per file (day.json's "blame"). */
static void blame_notes(struct buf *out, const json_t *files)
{
	size_t i, n = json_array_size(files), notes = 0;
	json_t *f;

	json_array_foreach(files, i, f) {
		const char *note = json_string_value(json_object_get(f, "blame"));

		if (!note)
			continue;
		if (n > 1)
			buf_printf(out, "Note on %s: %s.\n", json_str_or(f, "path", ""), note);
		else
			buf_printf(out, "Note: %s.\n", note);
		notes++;
	}
	if (notes)
		buf_putc(out, '\n');
}

/*
 * One block for every file whose conflict is with the same trees, as
 * linux-next's mails list them: the paths, the commits of both sides
 * (each once), then each file's hunks.
 */
static void group_section(struct buf *out, const json_t *r, const json_t *files,
			  const json_t *with)
{
	json_t *ours = json_array(), *theirs = json_array(), *f;
	size_t i, n = json_array_size(files);

	json_array_foreach(files, i, f) {
		add_commits(ours, json_object_get(f, "ours_commits"));
		add_commits(theirs, json_object_get(f, "theirs_commits"));
	}
	buf_printf(out, "Today's %s merge of the %s tree got %s in:\n\n", json_str_or(r, "project", ""),
		   json_str_or(r, "tree", ""), n == 1 ? "a conflict" : "conflicts");
	json_array_foreach(files, i, f)
		buf_printf(out, "  %s\n", json_str_or(f, "path", ""));
	buf_printf(out, "\nbetween commit%s:\n\n", json_array_size(ours) > 1 ? "s" : "");
	commit_lines(out, ours);
	buf_puts(out, "\nfrom ");
	with_phrase(out, with);
	buf_printf(out, " and commit%s:\n\n", json_array_size(theirs) > 1 ? "s" : "");
	commit_lines(out, theirs);
	buf_printf(out, "\nfrom the %s tree.\n\n", json_str_or(r, "tree", ""));
	blame_notes(out, files);
	json_array_foreach(files, i, f)
		hunks_section(out, f, n > 1);
	json_decref(ours);
	json_decref(theirs);
}

static int same_trees(const json_t *a, const json_t *b)
{
	json_t *v;
	size_t i;

	if (json_array_size(a) != json_array_size(b))
		return 0;
	json_array_foreach(a, i, v)
		if (!has_string(b, json_string_value(v)))
			return 0;
	return 1;
}

/* The files of the report grouped by the trees they conflict with, in file order. */
static void conflict_sections(struct buf *out, const json_t *r)
{
	const json_t *files = json_object_get(r, "files");
	size_t i, j, n = json_array_size(files);
	char *done = xcalloc(n ? n : 1, 1);

	for (i = 0; i < n; i++) {
		json_t *with, *group;

		if (done[i])
			continue;
		with = file_with(json_array_get(files, i));
		group = json_array();
		for (j = i; j < n; j++) {
			json_t *w = file_with(json_array_get(files, j));

			if (!done[j] && same_trees(with, w)) {
				json_array_append(group, json_array_get(files, j));
				done[j] = 1;
			}
			json_decref(w);
		}
		group_section(out, r, group, with);
		json_decref(group);
		json_decref(with);
	}
	free(done);
}

static void handling_section(struct buf *out, const json_t *r)
{
	const char *how = json_str_or(r, "handled", "");
	const json_t *nb = json_object_get(r, "next_base");
	json_t *f, *res;
	size_t i;

	if (!strcmp(how, "recorded")) {
		buf_printf(out, "I fixed it up (see below) and can carry the fix as necessary. This\n"
			   "is now fixed as far as %s is concerned, but any non trivial\n"
			   "conflicts should be mentioned to your upstream maintainer when your\n"
			   "tree is submitted for merging.\n\n", json_str_or(r, "project", ""));
		json_array_foreach(json_object_get(r, "files"), i, f)
			if ((res = json_object_get(f, "resolution")))
				buf_printf(out, "%s: resolved from recorded resolution %s\n",
					   json_str_or(f, "path", ""), json_str_or(res, "id", ""));
		buf_putc(out, '\n');
	} else if (!strcmp(how, "previous")) {
		buf_printf(out, "No recorded resolution applies, so I used the version from %s\n"
			   "of the %s tree for today.\n\n", json_str_or(r, "version_from", ""), json_str_or(r, "tree", ""));
	} else if (nb) {
		buf_printf(out, "The %s tree is based on %s: I applied its commits onto today's tree\n"
			   "one by one, as a quilt series, and its commit %lld of %lld above no longer\n"
			   "applies, so I have dropped the %s tree for today.\n\n", json_str_or(r, "tree", ""),
			   json_str_or(nb, "day", ""), (long long)json_integer_value(json_object_get(nb, "failed")),
			   (long long)json_integer_value(json_object_get(nb, "commits")),
			   json_str_or(r, "tree", ""));
	} else {
		buf_printf(out, "No recorded resolution applies and no earlier version of the %s\n"
			   "tree merges, so I have dropped the %s tree for today.\n\n",
			   json_str_or(r, "tree", ""), json_str_or(r, "tree", ""));
	}
	json_array_foreach(json_object_get(r, "errors"), i, f)
		buf_printf(out, "Note: %s\n", json_string_value(f));
	json_array_foreach(json_object_get(r, "fixups"), i, f)
		buf_printf(out, "Fixup applied after the merge: %s\n", json_string_value(f));
	if (json_object_get(r, "fixup_error"))
		buf_printf(out, "Fixup failed: %s\n", json_str_or(r, "fixup_error", ""));
}

/* At most this many errors and as many new warnings of a configuration are listed. */
#define REPORT_MAX_DIAGS 20

/* As the compiler says it: "file:line:column: error: message". */
static void diag_lines(struct buf *out, const char *what, const json_t *diags)
{
	json_t *d;
	size_t i, n = json_array_size(diags);

	json_array_foreach(diags, i, d) {
		json_int_t line = json_integer_value(json_object_get(d, "line"));
		json_int_t col = json_integer_value(json_object_get(d, "column"));

		if (i == REPORT_MAX_DIAGS) {
			buf_printf(out, "... and %zu more\n", n - i);
			break;
		}
		if (*json_str_or(d, "file", ""))
			buf_printf(out, "%s:", json_str_or(d, "file", ""));
		if (*json_str_or(d, "file", "") && line > 0)
			buf_printf(out, "%lld:", (long long)line);
		if (*json_str_or(d, "file", "") && line > 0 && col > 0)
			buf_printf(out, "%lld:", (long long)col);
		buf_printf(out, "%s%s: %s\n", *json_str_or(d, "file", "") ? " " : "", what, json_str_or(d, "message", ""));
	}
}

/*
 * linux-next's "After merging the X tree, today's linux-next build
 * (CONFIG) failed like this:" for each configuration, then what caused
 * it (the day's bisect, when it named a commit of the tree) and what was
 * done about the tree.
 */
static void config_sections(struct buf *out, const json_t *r)
{
	const json_t *configs = json_object_get(r, "configs"), *c, *culprit;
	size_t i, nw;
	int failed = 0;

	if (!json_array_size(configs))
		return;
	if (out->len > 1 && memcmp(out->ptr + out->len - 2, "\n\n", 2))
		buf_putc(out, '\n');
	json_array_foreach(configs, i, c) {
		int errors = json_array_size(json_object_get(c, "errors")) > 0;

		nw = json_array_size(json_object_get(c, "new_warnings"));
		failed |= errors;
		buf_printf(out, "After merging the %s tree, today's %s build (%s %s)\n", json_str_or(r, "tree", ""),
			   json_str_or(r, "project", ""), json_str_or(c, "arch", ""), json_str_or(c, "name", ""));
		if (errors)
			buf_puts(out, "failed like this:\n\n");
		else
			buf_printf(out, "produced %s:\n\n", nw > 1 ? "these warnings" : "this warning");
		diag_lines(out, "error", json_object_get(c, "errors"));
		diag_lines(out, "warning", json_object_get(c, "new_warnings"));
		buf_putc(out, '\n');
	}
	if ((culprit = json_object_get(r, "culprit"))) {
		buf_printf(out, "%s by commit\n\n  %.12s (\"%s\")\n\n", failed ? "Caused" : "Introduced",
			   json_str_or(culprit, "commit", ""), json_str_or(culprit, "subject", ""));
		if (*json_str_or(culprit, "conflicts_with", ""))
			buf_printf(out, "interacting with the %s tree (a semantic conflict).\n\n",
				   json_str_or(culprit, "conflicts_with", ""));
	} else {
		buf_printf(out, "The commit of the %s tree behind this is not known yet\n"
				"(tide bisect %s --build finds it).\n\n", json_str_or(r, "tree", ""), json_str_or(r, "date", ""));
	}
	if (*json_str_or(r, "version_from", "") && !json_array_size(json_object_get(r, "files")))
		buf_printf(out, "I have used the %s tree from %s for today.\n", json_str_or(r, "tree", ""),
			   json_str_or(r, "version_from", ""));
	else if (!strcmp(json_str_or(r, "status", ""), "dropped"))
		buf_printf(out, "I have dropped the %s tree for today.\n", json_str_or(r, "tree", ""));
	else if (failed)
		buf_printf(out, "The %s tree is in today's tree as it is.\n", json_str_or(r, "tree", ""));
}

/*
 * After the signature, as linux-next's mails carry it: how the merge
 * resolved each file, as git shows the merge commit (`diff --cc`).  A
 * file whose result is one side's version has none (git shows none).
 */
static void resolution_diffs(struct buf *out, const json_t *r)
{
	const json_t *f;
	size_t i;

	if (strcmp(json_str_or(r, "handled", ""), "recorded"))
		return;
	json_array_foreach(json_object_get(r, "files"), i, f) {
		const char *cc = json_str_or(json_object_get(f, "resolution"), "combined", "");

		if (*cc)
			buf_printf(out, "\n%s", cc);
	}
}

void report_text(struct buf *out, const json_t *r)
{
	buf_printf(out, "Hi all,\n\n");
	if (json_array_size(json_object_get(r, "files"))) {
		conflict_sections(out, r);
		handling_section(out, r);
	}
	config_sections(out, r);
	/* one blank line before the signature, whichever section came last */
	while (out->len > 1 && out->ptr[out->len - 1] == '\n' && out->ptr[out->len - 2] == '\n')
		buf_truncate(out, out->len - 1);
	buf_printf(out, "\n-- \nCheers,\ntide (%s)\n", json_str_or(r, "tag", ""));
	resolution_diffs(out, r);
}

static int write_one(const char *dir, const char *tree, const json_t *r)
{
	struct buf text = BUF_INIT;
	char *json = json_dumps(r, JSON_INDENT(2) | JSON_SORT_KEYS);
	char *name = xasprintf("%s.json", tree), *path = path_join(dir, name);
	int error;

	/* A value jansson refused would be a bug elsewhere: fail, do not crash. */
	if (!json) {
		error = tide_error_set(TIDE_ERROR, "cannot encode the report of '%s'", tree);
		goto done;
	}
	report_text(&text, r);
	if ((error = file_write_atomic(path, json, strlen(json))) == 0) {
		free(name), free(path);
		name = xasprintf("%s.txt", tree);
		path = path_join(dir, name);
		error = file_write_atomic(path, buf_cstr(&text), text.len);
	}
done:
	buf_release(&text);
	free(json), free(name), free(path);
	return error;
}

int report_write_day(const struct day *day, const struct day *prev, const char *daydir)
{
	char *dir = workspace_daydir_reports(daydir);
	json_t *r = NULL;
	size_t i;
	int error = 0, count = 0;

	for (i = 0; i < day->ntrees && !error; i++) {
		if (!report_tree_has_report(day, &day->trees[i]))
			continue;
		if ((error = mkdir_p(dir, 0777)) < 0 ||
		    (error = report_tree_json(&r, day, &day->trees[i], prev)) < 0)
			break;
		error = write_one(dir, day->trees[i].name, r);
		json_decref(r);
		count++;
	}
	free(dir);
	return error < 0 ? error : count;
}

static const char *contact_of(const struct trees_conf *conf, const char *tree)
{
	const struct tree *t = conf ? trees_conf_find(conf, tree) : NULL;

	return t ? t->contact : NULL;
}

/* "<next-20261203.gpio.tide@DOMAIN>": one id per tree and day, DOMAIN from the sender. */
static char *message_id(const json_t *r, const char *from)
{
	char *addr = mail_address(from), *at = strchr(addr, '@');
	char *id = xasprintf("<%s.%s.tide@%s>", json_str_or(r, "tag", ""), json_str_or(r, "tree", ""),
			     at && at[1] ? at + 1 : "localhost");

	free(addr);
	return id;
}

/* "linux-next: build failure after merge of the gpio tree" (or warning, warnings). */
static void build_subject(struct buf *out, const json_t *r)
{
	const json_t *configs = json_object_get(r, "configs"), *c;
	size_t i, warnings = 0;
	int failed = 0;

	json_array_foreach(configs, i, c) {
		failed |= json_array_size(json_object_get(c, "errors")) > 0;
		warnings += json_array_size(json_object_get(c, "new_warnings"));
	}
	buf_printf(out, "%s: build %s after merge of the %s tree", json_str_or(r, "project", ""),
		   failed ? "failure" : warnings > 1 ? "warnings" : "warning", json_str_or(r, "tree", ""));
}

/* The commits a report names (both sides of each file), each author once, as Cc. */
static void cc_authors(struct mail_msg *m, const json_t *r)
{
	const json_t *f, *c;
	size_t i, j, k;
	const char *const sides[] = { "ours_commits", "theirs_commits" };

	json_array_foreach(json_object_get(r, "files"), i, f)
		for (k = 0; k < 2; k++)
			json_array_foreach(json_object_get(f, sides[k]), j, c)
				mail_add_author(&m->cc, &m->ncc, json_string_value(json_object_get(c, "author")));
}

int report_mail(struct mail_msg *out, const json_t *r, const struct trees_conf *conf,
		const char *from)
{
	struct buf subject = BUF_INIT, body = BUF_INIT;
	const char *tree = json_str_or(r, "tree", "");
	json_t *v;
	size_t i;

	memset(out, 0, sizeof(*out));
	/* the maintainers of both trees, the authors of the commits named */
	mail_add_rcpt(&out->to, &out->nto, contact_of(conf, tree));
	json_array_foreach(json_object_get(r, "with"), i, v)
		mail_add_rcpt(&out->to, &out->nto, contact_of(conf, json_string_value(v)));
	if (!out->nto) {
		mail_msg_release(out);
		return tide_error_set(TIDE_ENOTFOUND, "no contact address for tree '%s'", tree);
	}
	cc_authors(out, r);
	if (json_array_size(json_object_get(r, "files"))) {
		buf_printf(&subject, "%s: manual merge of the %s tree with ", json_str_or(r, "project", ""),
			   tree);
		with_phrase(&subject, json_object_get(r, "with"));
	} else {
		build_subject(&subject, r);
	}
	report_text(&body, r);
	out->from = xstrdup(from);
	out->subject = buf_detach(&subject);
	out->body = buf_detach(&body);
	out->message_id = message_id(r, from);
	out->date = time(NULL);
	return 0;
}

/* "Dec 3" of YYYY-MM-DD, as linux-next's subjects write the day. */
static void short_date(struct buf *out, const char *date)
{
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	int m = atoi(date + 5), dd = atoi(date + 8);

	if (m >= 1 && m <= 12)
		buf_printf(out, "%s %d", months[m - 1], dd);
	else
		buf_puts(out, date);
}

/* In the day at today's version: nothing to say about the tree in the announcement. */
static int merged_today(const struct day_tree *t)
{
	return tree_status_in_day(t->status) && t->status != TREE_PREVIOUS;
}

/* linux-next's "Non-merge commits (relative to Linus' tree)" and its diffstat line. */
static void announce_counts(struct buf *b, const struct day *d)
{
	const json_t *m = d->checks ? d->checks->mainline : NULL;

	if (!m)
		return;
	buf_printf(b, "Non-merge commits (relative to mainline): %lld\n",
		   (long long)json_integer_value(json_object_get(m, "commits")));
	if (json_object_get(m, "files")) {
		buf_putc(b, ' ');
		day_checks_shortstat(b, m);
		buf_putc(b, '\n');
	}
	buf_putc(b, '\n');
}

static void config_built(struct buf *b, const char *name, const struct day_build *build)
{
	buf_printf(b, "  %s (%s): %s\n", name, build && build->arch ? build->arch : "?",
		   !build ? "not built" : build->status ? build->status : "?");
}

/* The configurations the day built, the first one's build being the day's. */
static void announce_configs(struct buf *b, const struct day *d)
{
	size_t i;

	if (!d->build && !d->nconfigs)
		return;
	buf_puts(b, "\nConfigurations built:\n\n");
	if (d->build)
		config_built(b, d->build->config ? d->build->config : "default", d->build);
	for (i = 0; i < d->nconfigs; i++)
		config_built(b, d->configs[i].name, d->configs[i].build);
}

int report_announcement(struct mail_msg *out, git_repository *repo, const struct day *d,
			const struct day *prev, const char *to, const char *from)
{
	struct buf subject = BUF_INIT, body = BUF_INIT;
	const char *project = d->project;
	size_t i, merged = 0, width = 0;
	char *addr;

	memset(out, 0, sizeof(*out));
	if (!project)
		project = "linux-next";
	for (i = 0; i < d->ntrees; i++) {
		merged += merged_today(&d->trees[i]);
		if (strlen(d->trees[i].name) > width)
			width = strlen(d->trees[i].name);
	}
	buf_printf(&subject, "%s: Tree for ", project);
	short_date(&subject, d->date);
	buf_printf(&body, "Hi all,\n\n");
	if (prev) {
		changes_text(&body, repo, prev, d);
		while (body.len && body.ptr[body.len - 1] == '\n')
			buf_truncate(&body, body.len - 1);
		buf_puts(&body, "\n\n");
	}
	announce_counts(&body, d);
	buf_printf(&body, "The %s tree is tagged %s: %s (%.12s) with %zu of %zu trees "
		   "merged at today's version.\n", project, d->tag ? d->tag : d->date,
		   d->base_tag ? d->base_tag : "the base", d->base_commit ? d->base_commit : "",
		   merged, d->ntrees);
	if (merged < d->ntrees) {
		buf_puts(&body, "\nNot merged at today's version:\n\n");
		for (i = 0; i < d->ntrees; i++)
			if (!merged_today(&d->trees[i]))
				buf_printf(&body, "  %-*s  %s\n", (int)width, d->trees[i].name,
					   tree_status_name(d->trees[i].status) ?: "unknown");
	}
	checks_announce_text(&body, d);
	announce_configs(&body, d);
	buf_printf(&body, "\nEach tree's conflicts: tide report %s\n", d->date);
	mail_add_rcpt(&out->to, &out->nto, to);
	out->from = xstrdup(from);
	out->subject = buf_detach(&subject);
	out->body = buf_detach(&body);
	addr = mail_address(from);
	out->message_id = xasprintf("<%s.announce.tide@%s>", d->tag ? d->tag : d->date,
				    strchr(addr, '@') && strchr(addr, '@')[1] ?
				    strchr(addr, '@') + 1 : "localhost");
	free(addr);
	out->date = time(NULL);
	return 0;
}
