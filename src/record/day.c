#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "day.h"
#include "safefs.h"
#include "error.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

static const char *const tree_status_names[] = {
	[TREE_MERGED] = "merged", [TREE_UP_TO_DATE] = "up-to-date",
	[TREE_PREVIOUS] = "previous", [TREE_CONFLICT] = "conflict",
	[TREE_FETCH_FAILED] = "fetch-failed", [TREE_PATCH_FAILED] = "patch-failed",
	[TREE_DROPPED] = "dropped", [TREE_REJECTED] = "rejected",
};

const char *tree_status_name(enum tree_status s)
{
	return (size_t)s < ARRAY_SIZE(tree_status_names) ? tree_status_names[s] : NULL;
}

int tree_status_parse(enum tree_status *out, const char *name)
{
	size_t i;

	*out = TREE_STATUS_NONE;
	if (!name)
		return 0;
	for (i = 1; i < ARRAY_SIZE(tree_status_names); i++)
		if (!strcmp(name, tree_status_names[i])) {
			*out = (enum tree_status)i;
			return 0;
		}
	return -1;
}

int tree_status_in_day(enum tree_status s)
{
	return s == TREE_MERGED || s == TREE_UP_TO_DATE || s == TREE_PREVIOUS;
}

struct day *day_new(void)
{
	return xcalloc(1, sizeof(struct day));
}

static void commits_free(struct day_commit *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(c[i].id);
		free(c[i].subject);
		free(c[i].author);
		free(c[i].tree);
	}
	free(c);
}

static void conflict_clear(struct day_conflict *c)
{
	size_t i;

	free(c->path);
	free(c->kind);
	for (i = 0; i < c->nhunks; i++)
		free(c->hunks[i]);
	free(c->hunks);
	commits_free(c->ours, c->nours);
	commits_free(c->theirs, c->ntheirs);
	free(c->ours_lines);
	free(c->theirs_lines);
	free(c->ours_path);
	free(c->theirs_path);
	free(c->blame);
}

static void strings_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void day_handling_clear(struct day_handling *h)
{
	size_t i;

	free(h->handled);
	free(h->attempted_sha);
	free(h->version_from);
	free(h->rejected);
	free(h->reason);
	for (i = 0; i < h->nresolutions; i++) {
		free(h->resolutions[i].path);
		free(h->resolutions[i].id);
		free(h->resolutions[i].diff);
		free(h->resolutions[i].combined);
	}
	free(h->resolutions);
	strings_free(h->resolution_errors, h->nresolution_errors);
	free(h->fixup_error);
	free(h->fixup_commit);
	strings_free(h->fixups, h->nfixups);
	free(h->next_base.day);
	free(h->next_base.commit);
	free(h->next_base.failed_commit);
	free(h->next_base.failed_subject);
	memset(h, 0, sizeof(*h));
}

struct day_resolution *day_handling_add_resolution(struct day_handling *h)
{
	h->resolutions = xrealloc(h->resolutions, (h->nresolutions + 1) * sizeof(*h->resolutions));
	memset(&h->resolutions[h->nresolutions], 0, sizeof(*h->resolutions));
	return &h->resolutions[h->nresolutions++];
}

void day_strings_add(char ***list, size_t *n, const char *text)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = xstrdup(text);
}

static void tree_clear(struct day_tree *t)
{
	size_t i;

	free(t->name);
	free(t->type);
	free(t->url);
	free(t->branch);
	free(t->sha);
	free(t->fetch_status);
	free(t->fetch_error);
	free(t->merge_commit);
	free(t->merge_base);
	for (i = 0; i < t->nconflicts; i++)
		conflict_clear(&t->conflicts[i]);
	free(t->conflicts);
	day_handling_clear(&t->handling);
	day_build_free(t->build);
	day_moved_free(t->moved);
	json_decref(t->extra);
}

void day_free(struct day *day)
{
	size_t i;

	if (!day)
		return;
	for (i = 0; i < day->ntrees; i++)
		tree_clear(&day->trees[i]);
	free(day->trees);
	free(day->date);
	free(day->tag);
	free(day->status);
	free(day->started);
	free(day->finished);
	free(day->base_url);
	free(day->base_tag);
	free(day->base_commit);
	free(day->commit);
	free(day->project);
	day_build_free(day->build);
	day_boot_free(day->boot);
	day_bisect_free(day->bisect);
	for (i = 0; i < day->nearlier_bisects; i++)
		day_bisect_free(day->earlier_bisects[i]);
	free(day->earlier_bisects);
	day_checks_free(day->checks);
	for (i = 0; i < day->nconfigs; i++) {
		free(day->configs[i].name);
		day_build_free(day->configs[i].build);
		day_boot_free(day->configs[i].boot);
	}
	free(day->configs);
	json_decref(day->extra);
	free(day);
}

void day_add_bisect(struct day *day, struct day_bisect *b)
{
	if (day->bisect) {
		if (day->nearlier_bisects == DAY_MAX_BISECTS) {
			day_bisect_free(day->earlier_bisects[0]);
			memmove(day->earlier_bisects, day->earlier_bisects + 1,
				(DAY_MAX_BISECTS - 1) * sizeof(*day->earlier_bisects));
			day->nearlier_bisects--;
		}
		day->earlier_bisects = xrealloc(day->earlier_bisects, (day->nearlier_bisects + 1) *
						sizeof(*day->earlier_bisects));
		day->earlier_bisects[day->nearlier_bisects++] = day->bisect;
	}
	day->bisect = b;
}

const struct day_config *day_find_config(const struct day *day, const char *name)
{
	size_t i;

	for (i = 0; day && i < day->nconfigs; i++)
		if (!strcmp(day->configs[i].name, name))
			return &day->configs[i];
	return NULL;
}

struct day_config *day_config_get(struct day *day, const char *name)
{
	struct day_config *c = (struct day_config *)day_find_config(day, name);

	if (c)
		return c;
	day->configs = xrealloc(day->configs, (day->nconfigs + 1) * sizeof(*day->configs));
	c = &day->configs[day->nconfigs++];
	memset(c, 0, sizeof(*c));
	c->name = xstrdup(name);
	return c;
}

struct day_tree *day_add_tree(struct day *day)
{
	day->trees = xrealloc(day->trees, (day->ntrees + 1) * sizeof(*day->trees));
	memset(&day->trees[day->ntrees], 0, sizeof(*day->trees));
	return &day->trees[day->ntrees++];
}

struct day_conflict *day_tree_add_conflict(struct day_tree *t)
{
	t->conflicts = xrealloc(t->conflicts, (t->nconflicts + 1) * sizeof(*t->conflicts));
	memset(&t->conflicts[t->nconflicts], 0, sizeof(*t->conflicts));
	return &t->conflicts[t->nconflicts++];
}

struct day_commit *day_conflict_add_commit(struct day_conflict *c, int theirs)
{
	struct day_commit **arr = theirs ? &c->theirs : &c->ours;
	size_t *n = theirs ? &c->ntheirs : &c->nours;

	*arr = xrealloc(*arr, (*n + 1) * sizeof(**arr));
	memset(&(*arr)[*n], 0, sizeof(**arr));
	return &(*arr)[(*n)++];
}

void day_conflict_add_hunk(struct day_conflict *c, const char *text)
{
	c->hunks = xrealloc(c->hunks, (c->nhunks + 1) * sizeof(*c->hunks));
	c->hunks[c->nhunks++] = xstrdup(text);
}

const struct day_tree *day_find_tree(const struct day *day, const char *name)
{
	size_t i;

	for (i = 0; i < day->ntrees; i++)
		if (day->trees[i].name && !strcmp(day->trees[i].name, name))
			return &day->trees[i];
	return NULL;
}

size_t day_tree_conflicts_with(const struct day_tree *t, const char **names, size_t max)
{
	size_t n = 0, i, j, k;

	for (i = 0; i < t->nconflicts; i++)
		for (j = 0; j < t->conflicts[i].nours; j++) {
			const char *name = t->conflicts[i].ours[j].tree;
			int seen = 0;

			if (!name || !strcmp(name, "mainline"))
				continue;
			for (k = 0; k < n; k++)
				seen |= !strcmp(names[k], name);
			if (!seen && n < max)
				names[n++] = name;
		}
	return n;
}

/* ---- to JSON ---- */

/* json_text(): a value that is not UTF-8 must not make json_pack() drop the whole tree. */
static json_t *str_or_null(const char *s)
{
	return json_text(s);
}

/* The record is published: a password in a tree's URL stays out of it. */
static json_t *url_or_null(const char *url)
{
	char *shown = url ? url_redact(url) : NULL;
	json_t *j = json_text(shown);

	free(shown);
	return j;
}

/* A message naming a URL (a fetch error): written with every password redacted. */
static json_t *msg_or_null(const char *msg)
{
	struct buf b = BUF_INIT;
	json_t *j;

	if (!msg)
		return json_null();
	text_redact(&b, msg);
	j = json_text(buf_cstr(&b));
	buf_release(&b);
	return j;
}

static json_t *commits_to_json(const struct day_commit *c, size_t n)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(arr, json_pack("{s:o, s:o, s:o, s:o}",
			"id", str_or_null(c[i].id), "subject", str_or_null(c[i].subject),
			"author", str_or_null(c[i].author), "tree", str_or_null(c[i].tree)));
	return arr;
}

static json_t *conflict_to_json(const struct day_conflict *c)
{
	json_t *hunks = json_array();
	size_t i;

	json_t *obj;

	for (i = 0; i < c->nhunks; i++)
		json_array_append_new(hunks, json_text(c->hunks[i]));
	obj = json_pack("{s:o, s:o, s:o, s:o, s:o}",
			"path", str_or_null(c->path), "kind", str_or_null(c->kind),
			"hunks", hunks,
			"ours_commits", commits_to_json(c->ours, c->nours),
			"theirs_commits", commits_to_json(c->theirs, c->ntheirs));
	if (c->ours_lines)
		json_object_set_new(obj, "ours_lines", json_text(c->ours_lines));
	if (c->theirs_lines)
		json_object_set_new(obj, "theirs_lines", json_text(c->theirs_lines));
	if (c->ours_path)
		json_object_set_new(obj, "ours_path", json_text(c->ours_path));
	if (c->theirs_path)
		json_object_set_new(obj, "theirs_path", json_text(c->theirs_path));
	if (c->blame)
		json_object_set_new(obj, "blame", json_text(c->blame));
	return obj;
}

static json_t *strings_to_json(char *const *v, size_t n)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(arr, json_text(v[i]));
	return arr;
}

static void set_str(json_t *obj, const char *key, const char *value)
{
	if (value)
		json_object_set_new(obj, key, json_text(value));
}

static json_t *next_base_to_json(const struct day_next_base *nb)
{
	json_t *o = json_pack("{s:o, s:o, s:I, s:I, s:I}", "day", json_text(nb->day),
			      "commit", str_or_null(nb->commit), "commits", (json_int_t)nb->commits,
			      "applied", (json_int_t)nb->applied, "empty", (json_int_t)nb->empty);

	if (o && nb->failed)
		json_object_set_new(o, "failed", json_pack("{s:I, s:o, s:o}",
				    "position", (json_int_t)nb->failed,
				    "commit", str_or_null(nb->failed_commit),
				    "subject", str_or_null(nb->failed_subject)));
	return o;
}

/* The handling keys of a tree object: each only when set. */
static void handling_to_json(json_t *obj, const struct day_handling *h)
{
	size_t i;

	set_str(obj, "handled", h->handled);
	set_str(obj, "attempted_sha", h->attempted_sha);
	set_str(obj, "version_from", h->version_from);
	set_str(obj, "rejected", h->rejected);
	set_str(obj, "reason", h->reason);
	if (h->nresolutions) {
		json_t *list = json_array();

		for (i = 0; i < h->nresolutions; i++) {
			json_t *r = json_pack("{s:o, s:o, s:o}",
				"path", str_or_null(h->resolutions[i].path),
				"id", str_or_null(h->resolutions[i].id),
				"diff", str_or_null(h->resolutions[i].diff));

			if (h->resolutions[i].combined)
				json_object_set_new(r, "combined", json_text(h->resolutions[i].combined));
			json_array_append_new(list, r);
		}
		json_object_set_new(obj, "resolutions", list);
	}
	if (h->nresolution_errors)
		json_object_set_new(obj, "resolution_errors",
				    strings_to_json(h->resolution_errors, h->nresolution_errors));
	set_str(obj, "fixup_error", h->fixup_error);
	set_str(obj, "fixup_commit", h->fixup_commit);
	if (h->nfixups)
		json_object_set_new(obj, "fixups", strings_to_json(h->fixups, h->nfixups));
	if (h->next_base.day)
		json_object_set_new(obj, "next_base", next_base_to_json(&h->next_base));
}

static json_t *tree_to_json(const struct day_tree *t)
{
	json_t *obj = json_object();
	json_t *conflicts = json_array();
	size_t i;

	handling_to_json(obj, &t->handling);
	if (t->build)
		json_object_set_new(obj, "build", day_build_to_json(t->build));
	if (t->moved)
		json_object_set_new(obj, "moved", day_moved_to_json(t->moved));
	if (t->extra)
		json_object_update(obj, t->extra);
	for (i = 0; i < t->nconflicts; i++)
		json_array_append_new(conflicts, conflict_to_json(&t->conflicts[i]));
	json_object_set_new(obj, "name", str_or_null(t->name));
	json_object_set_new(obj, "type", str_or_null(t->type));
	json_object_set_new(obj, "url", url_or_null(t->url));
	json_object_set_new(obj, "branch", str_or_null(t->branch));
	json_object_set_new(obj, "sha", str_or_null(t->sha));
	json_object_set_new(obj, "fetch", json_pack("{s:o, s:o, s:f}",
		"status", str_or_null(t->fetch_status), "error", msg_or_null(t->fetch_error),
		"seconds", t->fetch_seconds));
	if (t->fetch_patch_failed)
		json_object_set_new(json_object_get(obj, "fetch"), "patch_failed", json_true());
	json_object_set_new(obj, "status", str_or_null(tree_status_name(t->status)));
	json_object_set_new(obj, "merge_commit", str_or_null(t->merge_commit));
	json_object_set_new(obj, "merge_base", str_or_null(t->merge_base));
	json_object_set_new(obj, "seconds", json_real(t->seconds));
	json_object_set_new(obj, "conflicts", conflicts);
	return obj;
}

int day_to_json(json_t **out, const struct day *day)
{
	json_t *obj = day->extra ? json_deep_copy(day->extra) : json_object();
	json_t *trees = json_array();
	size_t i;

	for (i = 0; i < day->ntrees; i++)
		json_array_append_new(trees, tree_to_json(&day->trees[i]));
	json_object_set_new(obj, "version", json_integer(1));
	json_object_set_new(obj, "date", str_or_null(day->date));
	json_object_set_new(obj, "tag", str_or_null(day->tag));
	json_object_set_new(obj, "status", str_or_null(day->status));
	json_object_set_new(obj, "started", str_or_null(day->started));
	json_object_set_new(obj, "finished", str_or_null(day->finished));
	json_object_set_new(obj, "base", json_pack("{s:o, s:o, s:o}",
		"url", url_or_null(day->base_url), "tag", str_or_null(day->base_tag),
		"commit", str_or_null(day->base_commit)));
	json_object_set_new(obj, "commit", str_or_null(day->commit));
	json_object_set_new(obj, "trees", trees);
	if (day->project)
		json_object_set_new(obj, "project", json_text(day->project));
	if (day->build)
		json_object_set_new(obj, "build", day_build_to_json(day->build));
	if (day->boot)
		json_object_set_new(obj, "boot", day_boot_to_json(day->boot));
	if (day->nconfigs) {
		json_t *configs = json_array();

		for (i = 0; i < day->nconfigs; i++) {
			const struct day_config *c = &day->configs[i];
			json_t *o = json_pack("{s:s}", "name", c->name);

			if (c->build)
				json_object_set_new(o, "build", day_build_to_json(c->build));
			if (c->boot)
				json_object_set_new(o, "boot", day_boot_to_json(c->boot));
			json_array_append_new(configs, o);
		}
		json_object_set_new(obj, "configs", configs);
	}
	if (day->bisect)
		json_object_set_new(obj, "bisect", day_bisect_to_json(day->bisect));
	if (day->nearlier_bisects) {
		json_t *list = json_array();

		for (i = 0; i < day->nearlier_bisects; i++)
			json_array_append_new(list, day_bisect_to_json(day->earlier_bisects[i]));
		json_object_set_new(obj, "earlier_bisects", list);
	}
	if (day->checks)
		json_object_set_new(obj, "checks", day_checks_to_json(day->checks));
	*out = obj;
	return 0;
}

/* ---- from JSON ---- */

static char *get_str(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? xstrdup(s) : NULL;
}

static double get_num(const json_t *obj, const char *key)
{
	return json_number_value(json_object_get(obj, key));
}

static void commits_from_json(struct day_conflict *c, const json_t *arr, int theirs)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v) {
		struct day_commit *dc = day_conflict_add_commit(c, theirs);

		dc->id = get_str(v, "id");
		dc->subject = get_str(v, "subject");
		dc->author = get_str(v, "author");
		dc->tree = get_str(v, "tree");
	}
}

static void conflict_from_json(struct day_conflict *c, const json_t *obj)
{
	size_t i;
	json_t *v;

	c->path = get_str(obj, "path");
	c->kind = get_str(obj, "kind");
	json_array_foreach(json_object_get(obj, "hunks"), i, v)
		if (json_is_string(v))
			day_conflict_add_hunk(c, json_string_value(v));
	commits_from_json(c, json_object_get(obj, "ours_commits"), 0);
	commits_from_json(c, json_object_get(obj, "theirs_commits"), 1);
	c->ours_lines = get_str(obj, "ours_lines");
	c->theirs_lines = get_str(obj, "theirs_lines");
	c->ours_path = get_str(obj, "ours_path");
	c->theirs_path = get_str(obj, "theirs_path");
	c->blame = get_str(obj, "blame");
}

static const char *const tree_keys[] = {
	"name", "type", "url", "branch", "sha", "fetch", "status",
	"merge_commit", "merge_base", "seconds", "conflicts",
	/* handling_from_json() */
	"handled", "attempted_sha", "version_from", "rejected", "reason", "resolutions",
	"resolution_errors", "fixup_error", "fixup_commit", "fixups", "next_base",
	"build", "moved",
};

static const char *const day_keys[] = {
	"version", "date", "tag", "status", "started", "finished", "base",
	"commit", "trees", "project", "build", "boot", "configs", "bisect", "earlier_bisects", "checks",
};

/* A copy of obj without the keys this module reads itself. */
static json_t *extra_keys(const json_t *obj, const char *const *known, size_t nknown)
{
	json_t *extra = json_deep_copy(obj);
	size_t i;

	for (i = 0; i < nknown; i++)
		json_object_del(extra, known[i]);
	if (!json_object_size(extra)) {
		json_decref(extra);
		return NULL;
	}
	return extra;
}

/* "configs": [{name, build?, boot?}], each name once. */
static int configs_from_json(struct day *day, const json_t *arr, const char *what)
{
	size_t i;
	json_t *v;
	int err;

	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return tide_error_set(TIDE_EINVAL, "%s: \"configs\" is not a list", what);
	json_array_foreach(arr, i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));
		struct day_config *c;

		if (!name || !*name)
			return tide_error_set(TIDE_EINVAL, "%s: configs[%zu] has no name", what, i);
		if (day_find_config(day, name))
			return tide_error_set(TIDE_EINVAL, "%s: configuration '%s' recorded twice",
					      what, name);
		c = day_config_get(day, name);
		if ((err = day_build_from_json(&c->build, json_object_get(v, "build"), what)) < 0 ||
		    (err = day_boot_from_json(&c->boot, json_object_get(v, "boot"), what)) < 0)
			return err;
	}
	return 0;
}

static void strings_from_json(char ***list, size_t *n, const json_t *arr)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (json_is_string(v))
			day_strings_add(list, n, json_string_value(v));
}

/* A count of the record: 0 unless a non-negative integer. */
static size_t get_count(const json_t *obj, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(obj, key));

	return v > 0 ? (size_t)v : 0;
}

static void next_base_from_json(struct day_next_base *nb, const json_t *obj)
{
	const json_t *failed = json_object_get(obj, "failed");

	if (!(nb->day = get_str(obj, "day")))
		return;
	nb->commit = get_str(obj, "commit");
	nb->commits = get_count(obj, "commits");
	nb->applied = get_count(obj, "applied");
	nb->empty = get_count(obj, "empty");
	nb->failed = get_count(failed, "position");
	nb->failed_commit = get_str(failed, "commit");
	nb->failed_subject = get_str(failed, "subject");
}

static void handling_from_json(struct day_handling *h, const json_t *obj)
{
	size_t i;
	json_t *v;

	h->handled = get_str(obj, "handled");
	h->attempted_sha = get_str(obj, "attempted_sha");
	h->version_from = get_str(obj, "version_from");
	h->rejected = get_str(obj, "rejected");
	h->reason = get_str(obj, "reason");
	json_array_foreach(json_object_get(obj, "resolutions"), i, v) {
		struct day_resolution *r = day_handling_add_resolution(h);

		r->path = get_str(v, "path");
		r->id = get_str(v, "id");
		r->diff = get_str(v, "diff");
		r->combined = get_str(v, "combined");
	}
	strings_from_json(&h->resolution_errors, &h->nresolution_errors,
			  json_object_get(obj, "resolution_errors"));
	h->fixup_error = get_str(obj, "fixup_error");
	h->fixup_commit = get_str(obj, "fixup_commit");
	strings_from_json(&h->fixups, &h->nfixups, json_object_get(obj, "fixups"));
	next_base_from_json(&h->next_base, json_object_get(obj, "next_base"));
}

/* The tree's "status": one of tree_status_names, or null (or absent: not decided). */
static int status_from_json(struct day_tree *t, const json_t *obj, const char *what, size_t at)
{
	const json_t *v = json_object_get(obj, "status");

	if ((v && !json_is_null(v) && !json_is_string(v)) ||
	    tree_status_parse(&t->status, json_string_value(v)) < 0)
		return tide_error_set(TIDE_EINVAL, "%s: trees[%zu] ('%s'): \"status\" is not a tree "
				      "status (merged, up-to-date, previous, conflict, fetch-failed, "
				      "patch-failed, dropped, rejected)", what, at,
				      t->name ? t->name : "?");
	return 0;
}

static int tree_from_json(struct day_tree *t, const json_t *obj, const char *what, size_t at)
{
	const json_t *fetch = json_object_get(obj, "fetch");
	size_t i;
	json_t *v;
	int err;

	t->name = get_str(obj, "name");
	t->type = get_str(obj, "type");
	t->url = get_str(obj, "url");
	t->branch = get_str(obj, "branch");
	t->sha = get_str(obj, "sha");
	t->fetch_status = get_str(fetch, "status");
	t->fetch_error = get_str(fetch, "error");
	if (t->fetch_error && strstr(t->fetch_error, "://")) {
		struct buf b = BUF_INIT;	/* a record written before messages were redacted */

		text_redact(&b, t->fetch_error);
		free(t->fetch_error);
		t->fetch_error = buf_detach(&b);
	}
	t->fetch_seconds = get_num(fetch, "seconds");
	t->fetch_patch_failed = json_is_true(json_object_get(fetch, "patch_failed"));
	if ((err = status_from_json(t, obj, what, at)) < 0)
		return err;
	t->merge_commit = get_str(obj, "merge_commit");
	t->merge_base = get_str(obj, "merge_base");
	t->seconds = get_num(obj, "seconds");
	json_array_foreach(json_object_get(obj, "conflicts"), i, v)
		conflict_from_json(day_tree_add_conflict(t), v);
	handling_from_json(&t->handling, obj);
	t->extra = extra_keys(obj, tree_keys, ARRAY_SIZE(tree_keys));
	if ((err = day_moved_from_json(&t->moved, json_object_get(obj, "moved"), what)) < 0)
		return err;
	return day_build_from_json(&t->build, json_object_get(obj, "build"), what);
}

/* "earlier_bisects": [bisect records], oldest first. */
static int bisects_from_json(struct day *day, const json_t *arr, const char *what)
{
	struct day_bisect *b;
	size_t i;
	json_t *v;
	int err;

	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return tide_error_set(TIDE_EINVAL, "%s: \"earlier_bisects\" is not a list", what);
	json_array_foreach(arr, i, v) {
		if (i >= DAY_MAX_BISECTS)
			break;
		if ((err = day_bisect_from_json(&b, v, what)) < 0)
			return err;
		day->earlier_bisects = xrealloc(day->earlier_bisects, (day->nearlier_bisects + 1) *
						sizeof(*day->earlier_bisects));
		day->earlier_bisects[day->nearlier_bisects++] = b;
	}
	return 0;
}

int day_from_json(struct day **out, const json_t *json, const char *what)
{
	const json_t *base = json_object_get(json, "base");
	struct day *day;
	size_t i;
	json_t *v;
	int err;

	*out = NULL;
	if (!json_is_object(json) || !json_is_array(json_object_get(json, "trees")) ||
	    !json_is_string(json_object_get(json, "date")))
		return tide_error_set(TIDE_EINVAL, "%s: not a tide day record", what);
	if (json_integer_value(json_object_get(json, "version")) != 1)
		return tide_error_set(TIDE_EINVAL, "%s: unsupported day record version", what);
	day = day_new();
	day->date = get_str(json, "date");
	day->tag = get_str(json, "tag");
	day->status = get_str(json, "status");
	day->started = get_str(json, "started");
	day->finished = get_str(json, "finished");
	day->base_url = get_str(base, "url");
	day->base_tag = get_str(base, "tag");
	day->base_commit = get_str(base, "commit");
	day->commit = get_str(json, "commit");
	day->project = get_str(json, "project");
	day->extra = extra_keys(json, day_keys, ARRAY_SIZE(day_keys));
	json_array_foreach(json_object_get(json, "trees"), i, v)
		if (json_is_object(v) && (err = tree_from_json(day_add_tree(day), v, what, i)) < 0)
			goto fail;
	if ((err = day_build_from_json(&day->build, json_object_get(json, "build"), what)) < 0 ||
	    (err = day_boot_from_json(&day->boot, json_object_get(json, "boot"), what)) < 0 ||
	    (err = day_bisect_from_json(&day->bisect, json_object_get(json, "bisect"), what)) < 0 ||
	    (err = bisects_from_json(day, json_object_get(json, "earlier_bisects"), what)) < 0 ||
	    (err = day_checks_from_json(&day->checks, json_object_get(json, "checks"), what)) < 0 ||
	    (err = configs_from_json(day, json_object_get(json, "configs"), what)) < 0)
		goto fail;
	*out = day;
	return 0;
fail:
	day_free(day);
	return err;
}

int day_json_read(json_t **out, const char *path)
{
	struct buf text = BUF_INIT;
	json_error_t jerr;
	int error;

	*out = NULL;
	/* Anyone may have put anything there: no link, FIFO or device, and a bounded size. */
	if ((error = safefs_read_file(&text, path, DAY_MAX_RECORD)) < 0) {
		if (error == TIDE_ENOTFOUND)
			tide_error_set(error, "no day record '%s'", path);
		goto done;
	}
	if (!(*out = json_loadb(buf_cstr(&text), text.len, 0, &jerr)))
		error = tide_error_set(TIDE_EINVAL, "%s:%d: %s", path, jerr.line, jerr.text);
done:
	buf_release(&text);
	return error;
}

int day_load(struct day **out, const char *path)
{
	json_t *json;
	int error;

	if ((error = day_json_read(&json, path)) < 0)
		return error;
	error = day_from_json(out, json, path);
	json_decref(json);
	return error;
}

int day_save(const struct day *day, const char *path)
{
	json_t *json = NULL;
	char *text;
	int error;

	day_to_json(&json, day);
	text = json_dumps(json, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(json);
	if (!text)
		return tide_error_set(TIDE_ERROR, "cannot encode the day record");
	{
		struct buf b = BUF_INIT;

		buf_printf(&b, "%s\n", text);
		error = file_write_atomic(path, b.ptr, b.len);
		buf_release(&b);
	}
	free(text);
	return error;
}

int day_date_is_valid(const char *date)
{
	struct tm tm = { 0 };
	const char *end;
	int i;

	if (strlen(date) != 10)
		return 0;
	for (i = 0; i < 10; i++)
		if ((i == 4 || i == 7) ? date[i] != '-' : (date[i] < '0' || date[i] > '9'))
			return 0;
	end = strptime(date, "%Y-%m-%d", &tm);
	if (!end || *end)
		return 0;
	/* strptime accepts 02-31; a round trip through timegm does not. */
	{
		struct tm check = tm;
		time_t t = timegm(&check);

		gmtime_r(&t, &check);
		return check.tm_mday == tm.tm_mday && check.tm_mon == tm.tm_mon;
	}
}

int day_date_parse(char out[11], const char *name)
{
	const char *digits = str_starts_with(name, "next-") ? name + 5 : name;
	size_t i, n = strlen(digits);

	/* "YYYYMMDD" after "next-" or alone: rewritten as a date, then checked as one. */
	for (i = 0; n == 8 && i < 8; i++)
		if (digits[i] < '0' || digits[i] > '9')
			n = 0;
	if (n == 8)
		snprintf(out, 11, "%.4s-%.2s-%.2s", digits, digits + 4, digits + 6);
	else if (digits == name && n == 10)
		memcpy(out, name, 11);
	else
		out[0] = '\0';
	if (!day_date_is_valid(out))
		return tide_error_set(TIDE_EINVAL, "bad date '%s' (expected YYYY-MM-DD or next-YYYYMMDD)",
				      name);
	return 0;
}

char *day_date_compact(const char *date)
{
	return xasprintf("%.4s%.2s%.2s", date, date + 5, date + 8);
}

char *day_tag_for(const char *date)
{
	char *digits = day_date_compact(date), *tag = xasprintf("next-%s", digits);

	free(digits);
	return tag;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int day_list(char ***out, const char *days_dir)
{
	char **dates = NULL;
	size_t n = 0, alloc = 0;
	DIR *d = opendir(days_dir);
	struct dirent *e;

	*out = NULL;
	if (!d)
		return errno == ENOENT ? 0 :
			tide_error_errno(TIDE_EIO, "cannot read '%s'", days_dir);
	while ((e = readdir(d))) {
		char *rec;

		if (!day_date_is_valid(e->d_name))
			continue;
		rec = workspace_day_json_in(days_dir, e->d_name);
		if (path_exists(rec)) {
			array_grow(&dates, &alloc, n + 1, sizeof(*dates));
			dates[n++] = xstrdup(e->d_name);
		}
		free(rec);
	}
	closedir(d);
	if (n)
		qsort(dates, n, sizeof(*dates), cmp_str);
	*out = dates;
	return (int)n;
}

void day_list_free(char **dates, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(dates[i]);
	free(dates);
}

char *day_newest(const char *days_dir)
{
	char **dates = NULL, *date = NULL;
	int n = day_list(&dates, days_dir);

	if (n > 0)
		date = xstrdup(dates[n - 1]);
	else if (n == 0)
		tide_error_set(TIDE_ENOTFOUND, "no day under '%s' yet", days_dir);
	day_list_free(dates, n > 0 ? n : 0);
	return date;
}

const char *day_tree_tip(const struct day_tree *t)
{
	return t->handling.attempted_sha ? t->handling.attempted_sha : t->sha;
}

int day_open(struct day **out, const char *days_dir, const char *date)
{
	char *path = workspace_day_json_in(days_dir, date);
	int error;

	*out = NULL;
	if (!path_exists(path))
		error = tide_error_set(TIDE_ENOTFOUND, "no day %s", date);
	else
		error = day_load(out, path);
	free(path);
	return error;
}

int day_previous(struct day **out, const char *days_dir, const char *date, int or_same,
		 day_match_fn match, void *data)
{
	char **dates = NULL;
	int n = day_list(&dates, days_dir), i, cmp;

	*out = NULL;
	if (n < 0)
		return n;
	for (i = n - 1; i >= 0 && !*out; i--) {
		struct day *d = NULL;

		cmp = strcmp(dates[i], date);
		if (cmp > 0 || (cmp == 0 && !or_same))
			continue;
		if (day_open(&d, days_dir, dates[i]) < 0) {
			tide_error_clear();
			continue;
		}
		if (!match || match(d, data))
			*out = d;
		else
			day_free(d);
	}
	day_list_free(dates, n);
	return *out != NULL;
}

void day_counts(struct day_counts *out, const struct day *day)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->trees = day->ntrees;
	for (i = 0; i < day->ntrees; i++) {
		const struct day_tree *t = &day->trees[i];

		if (t->fetch_status && !strcmp(t->fetch_status, "stale")) {
			if (t->fetch_patch_failed)
				out->unapplied++;
			else
				out->stale++;
		}
		if (t->status == TREE_PREVIOUS)
			out->previous++;
		if (tree_status_in_day(t->status))
			out->merged++;
		else if (t->status == TREE_CONFLICT)
			out->conflicts++;
		else
			out->not_merged++;
	}
}

int day_install_swap(const char *days_dir, const char *date, const char *tmp_dir, int *exchanged)
{
	char *final = path_join(days_dir, date);
	int error = 0;

	*exchanged = 0;
	/* The new day's own entries first, then the rename that installs it. */
	if ((error = dir_fsync(tmp_dir)) < 0)
		goto done;
	if (!path_exists(final)) {
		if (rename(tmp_dir, final) < 0)
			error = tide_error_errno(TIDE_EIO, "cannot rename '%s' to '%s'", tmp_dir, final);
	} else if (renameat2(AT_FDCWD, tmp_dir, AT_FDCWD, final, RENAME_EXCHANGE) < 0) {
		error = tide_error_errno(TIDE_EIO, "cannot replace '%s'", final);
	} else {
		*exchanged = 1;
	}
done:
	free(final);
	return error;
}

int day_install_undo(const char *days_dir, const char *date, const char *tmp_dir, int exchanged)
{
	char *final = path_join(days_dir, date);
	int rc;

	/* Renames only: an undo needs no free space. */
	if (exchanged)
		rc = renameat2(AT_FDCWD, tmp_dir, AT_FDCWD, final, RENAME_EXCHANGE);
	else
		rc = rename(final, tmp_dir);
	if (rc < 0)
		rc = tide_error_errno(TIDE_EIO, "cannot put '%s' back", final);
	free(final);
	return rc;
}

int day_install_finish(const char *days_dir, const char *tmp_dir)
{
	int error;

	/* Until days/ is synced, a crash may bring back the old day or none. */
	if ((error = dir_fsync(days_dir)) == 0 && path_exists(tmp_dir))
		error = rm_rf(tmp_dir);	/* the old day, after the exchange */
	return error;
}

int day_install(const char *days_dir, const char *date, const char *tmp_dir)
{
	int exchanged, error;

	if ((error = day_install_swap(days_dir, date, tmp_dir, &exchanged)) < 0)
		return error;
	return day_install_finish(days_dir, tmp_dir);
}
