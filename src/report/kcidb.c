/*
 * The day record as a KCIDB v5.3 document (see kcidb.h, man/tide-kcidb.1).
 *
 * KCIDB's rules that shape the code: no property may be null (a missing
 * value is a missing key), ids start with "<origin>:", test paths are
 * dot-separated components of [a-zA-Z0-9_-], log excerpts hold at most
 * 16384 characters, and a URL property must be a URL (tree URLs that are
 * local paths go to "misc" instead).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "buf.h"
#include "day.h"
#include "error.h"
#include "checks.h"
#include "kcidb.h"
#include "regress.h"
#include "text.h"
#include "util.h"

#define EXCERPT_MAX 16384	/* KCIDB's maxLength of log_excerpt */

struct doc {
	const struct kcidb_opts *o;
	const struct day *day;
	char *checkout_id;	/* the day's */
	char *build_id;		/* NULL without a build */
	json_t *checkouts, *builds, *tests, *issues, *incidents;
	json_t *seen;		/* ids already in issues/incidents */
};

int kcidb_origin_valid(const char *origin)
{
	const char *p;

	if (!origin || !*origin)
		return 0;
	for (p = origin; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	return 1;
}

static int path_char_ok(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

char *kcidb_path_component(const char *name, size_t len)
{
	char *out;
	size_t i;

	if (!len)
		return xstrdup("_");
	out = xmalloc(len + 1);
	for (i = 0; i < len; i++)
		out[i] = path_char_ok((unsigned char)name[i]) ? name[i] : '_';
	out[len] = '\0';
	return out;
}

/* "boot." + each dot-separated part of a KTAP name, mapped. */
static char *test_path(const char *ktap_name)
{
	struct buf b = BUF_INIT;
	const char *p = ktap_name, *dot;

	buf_puts(&b, "boot");
	for (;;) {
		char *part;

		dot = strchr(p, '.');
		part = kcidb_path_component(p, dot ? (size_t)(dot - p) : strlen(p));
		buf_printf(&b, ".%s", part);
		free(part);
		if (!dot)
			break;
		p = dot + 1;
	}
	return buf_detach(&b);
}

static int is_hex_id(const char *s)
{
	size_t i;

	if (!s || strlen(s) != 40)
		return 0;
	for (i = 0; i < 40; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* What KCIDB accepts as a repository URL: https:// or git://. */
static int is_remote_url(const char *url)
{
	return url && (str_starts_with(url, "https://") || str_starts_with(url, "git://")) &&
	       !strpbrk(url, " \t\r\n\"<>\\^`{|}");
}

/* A URL base and a name below it: base has no trailing slash (checked). */
static char *url_under(const struct doc *d, const char *name)
{
	const char *date = d->day->date;

	if (!d->o->url_base || !name || !*name || strchr(name, '/'))
		return NULL;
	return xasprintf("%s/%s/%s", d->o->url_base, date, name);
}

static void set_str(json_t *o, const char *key, const char *value)
{
	if (value)
		json_object_set_new(o, key, json_text(value));
}

static void set_url(json_t *o, const char *key, char *url)
{
	if (url)
		json_object_set_new(o, key, json_text(url));
	free(url);
}

/*
 * The excerpt, repaired to UTF-8 and cut to KCIDB's 16384 characters
 * (characters, not bytes: a kernel log is mostly ASCII, a message in
 * another script is not) on a character boundary.
 */
static void set_excerpt(json_t *o, const struct buf *text)
{
	json_t *j;
	const char *v;
	size_t len, i, chars = 0;

	if (!text->len)
		return;
	j = json_textn(buf_cstr(text), text->len);
	v = json_string_value(j);
	len = json_string_length(j);
	for (i = 0; i < len; i++)
		if (((unsigned char)v[i] & 0xc0) != 0x80 && ++chars > EXCERPT_MAX)
			break;
	if (i < len) {
		json_t *cut = json_stringn(v, i);

		json_decref(j);
		j = cut;
	}
	json_object_set_new(o, "log_excerpt", j);
}

/* --- checkouts --- */

static void day_checkout(struct doc *d)
{
	const struct day *day = d->day;
	const char *project = d->o->project ? d->o->project : day->project;
	json_t *c = json_object(), *misc = json_object();

	json_object_set_new(c, "id", json_text(d->checkout_id));
	json_object_set_new(c, "origin", json_text(d->o->origin));
	set_str(c, "tree_name", project);
	if (is_hex_id(day->commit)) {
		json_object_set_new(c, "git_commit_hash", json_string(day->commit));
		if (day->tag) {
			json_object_set_new(c, "git_commit_name", json_text(day->tag));
			json_object_set_new(c, "git_commit_tags", json_pack("[o]", json_text(day->tag)));
		}
	}
	set_str(c, "start_time", day->started);
	json_object_set_new(c, "valid", json_boolean(day->commit != NULL));
	set_url(c, "log_url", url_under(d, "merge.log"));
	if (day->tag || day->base_tag)
		json_object_set_new(c, "comment", json_text_printf("%s on %s",
			day->tag ? day->tag : day->date, day->base_tag ? day->base_tag : "its base"));
	set_str(misc, "date", day->date);
	if (day->base_url) {
		char *url = url_redact(day->base_url);

		set_str(misc, "base_url", url);
		free(url);
	}
	set_str(misc, "base_tag", day->base_tag);
	set_str(misc, "base_commit", day->base_commit);
	set_str(misc, "status", day->status);
	json_object_set_new(misc, "trees", json_integer((json_int_t)day->ntrees));
	json_object_set_new(c, "misc", misc);
	json_array_append_new(d->checkouts, c);
}

/* The checkout (the tree at the commit the record names) is valid when that commit is in the day. */
static int tree_valid(const struct day_tree *t)
{
	return tree_status_in_day(t->status);
}

/* Why a tree was left out, as the lines a maintainer would look at. */
static void tree_excerpt(struct buf *b, const struct day_tree *t)
{
	const char *why = t->handling.rejected, *reason = t->handling.reason;
	size_t i, h;

	if (t->fetch_status && strcmp(t->fetch_status, "ok"))
		buf_printf(b, "fetch %s: %s\n", t->fetch_status, t->fetch_error ? t->fetch_error : "");
	if (why)
		buf_printf(b, "%s\n", why);
	if (reason)
		buf_printf(b, "%s\n", reason);
	for (i = 0; i < t->nconflicts; i++) {
		const struct day_conflict *c = &t->conflicts[i];

		buf_printf(b, "CONFLICT (%s): %s\n", c->kind ? c->kind : "content", c->path);
		for (h = 0; h < c->nhunks; h++)
			buf_printf(b, "%s%s", c->hunks[h],
				   str_ends_with(c->hunks[h], "\n") ? "" : "\n");
	}
}

/* The commit checks' findings about the tree. */
static size_t tree_findings(const struct day *day, const struct day_tree *t)
{
	size_t i, n = 0;

	for (i = 0; i < day->checks->findings.n; i++)
		n += day->checks->findings.v[i]->tree && !strcmp(day->checks->findings.v[i]->tree, t->name);
	return n;
}

static void tree_checkout(struct doc *d, const struct day_tree *t)
{
	json_t *c = json_object(), *misc = json_object();
	struct buf excerpt = BUF_INIT;
	char *url = t->url ? url_redact(t->url) : NULL;
	const char *v;

	json_object_set_new(c, "id", json_text_printf("%s:tree:%s", d->checkout_id, t->name));
	json_object_set_new(c, "origin", json_text(d->o->origin));
	json_object_set_new(c, "tree_name", json_text(t->name));
	if (is_remote_url(url))
		json_object_set_new(c, "git_repository_url", json_text(url));
	else
		set_str(misc, "url", url);
	set_str(c, "git_repository_branch", t->branch);
	if (is_hex_id(t->sha))
		json_object_set_new(c, "git_commit_hash", json_string(t->sha));
	set_str(c, "start_time", d->day->started);
	json_object_set_new(c, "valid", json_boolean(tree_valid(t)));
	/* Left out, or in at an earlier version: the lines that say why. */
	if (!tree_valid(t) || t->status == TREE_PREVIOUS) {
		tree_excerpt(&excerpt, t);
		set_excerpt(c, &excerpt);
	}
	set_str(misc, "status", tree_status_name(t->status));
	set_str(misc, "type", t->type);
	set_str(misc, "merge_commit", t->merge_commit);
	if ((v = t->handling.handled))
		set_str(misc, "handled", v);
	if ((v = t->handling.version_from))
		set_str(misc, "version_from", v);
	if ((v = t->handling.attempted_sha))
		set_str(misc, "attempted_sha", v);
	json_object_set_new(misc, "conflicts", json_integer((json_int_t)t->nconflicts));
	if (d->day->checks)
		json_object_set_new(misc, "check_findings", json_integer((json_int_t)tree_findings(d->day, t)));
	json_object_set_new(c, "misc", misc);
	json_array_append_new(d->checkouts, c);
	buf_release(&excerpt);
	free(url);
}

/* --- issues and incidents --- */

/* 16 hex digits of SHA-1 over text: a stable id part for a breakage. */
static void short_hash(char out[17], const char *text)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	int i;

	EVP_Digest(text, strlen(text), md, &n, EVP_sha1(), NULL);
	for (i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* ---- regressions as issues ---- */

/* The regression failing today that kind/test of the day's own configuration is part of. */
static const struct regression *regression_of(const struct doc *d, const char *kind,
					      const char *test)
{
	char *key;
	const struct regression *r;

	if (!d->o->regressions)
		return NULL;
	key = regress_key(kind, regress_day_config(d->day), regress_day_arch(d->day), test);
	r = regress_find(d->o->regressions, key, d->day->date);
	free(key);
	return r && !(r->fixed && !strcmp(r->fixed, d->day->date)) ? r : NULL;
}

/* What was learnt since it appeared (a culprit, a fix): KCIDB's issue version. */
static int regression_version(const struct regression *r)
{
	return (r->culprit != NULL) + (r->fixed != NULL);
}

static json_t *regression_issue(const struct doc *d, const struct regression *r, const char *id)
{
	json_t *i = json_object(), *misc = json_object();
	const char *first = json_string_value(json_object_get(r->mails, "new"));

	json_object_set_new(i, "id", json_text(id));
	json_object_set_new(i, "version", json_integer(regression_version(r)));
	json_object_set_new(i, "origin", json_text(d->o->origin));
	json_object_set_new(i, "categories", json_pack("[s]", strcmp(r->state, "flaky") ?
						       "regression" : "flaky"));
	json_object_set_new(i, "comment", json_text_printf("%s %s on %s (%s) since %s", r->kind,
				r->test, r->config, r->arch, r->first_tag ? r->first_tag : r->first_bad));
	if (strcmp(r->state, "flaky"))
		json_object_set_new(i, "culprit", json_pack("{s:b}", "code", 1));
	if (first && strlen(first) > 2 && first[0] == '<') {
		const char *lore = d->o->lore ? d->o->lore : "https://lore.kernel.org/r";

		json_object_set_new(i, "report_url", json_text_printf("%s/%.*s/", lore,
				    (int)strlen(first) - 2, first + 1));
	}
	set_str(misc, "state", r->state);
	set_str(misc, "first_bad", r->first_bad);
	set_str(misc, "last_good", r->last_good);
	set_str(misc, "fixed", r->fixed);
	json_object_set_new(misc, "flakiness", json_real(r->score));
	if (r->culprit)
		json_object_set(misc, "culprit", r->culprit);
	json_object_set_new(i, "misc", misc);
	return i;
}

/* The regression's issue (once per document) and its incident on object build_id or test_id. */
static void regression_incident(struct doc *d, const struct regression *r, const char *build_id,
				const char *test_id, int present)
{
	char *issue_id = xasprintf("%s:regression:%s", d->o->origin, r->id);
	char *incident_id = xasprintf("%s:regression:%s", d->checkout_id, r->id);

	if (!json_object_get(d->seen, issue_id)) {
		json_array_append_new(d->issues, regression_issue(d, r, issue_id));
		json_object_set_new(d->seen, issue_id, json_true());
	}
	if (!json_object_get(d->seen, incident_id)) {
		json_t *n = json_object();

		json_object_set_new(n, "id", json_text(incident_id));
		json_object_set_new(n, "origin", json_text(d->o->origin));
		json_object_set_new(n, "issue_id", json_text(issue_id));
		json_object_set_new(n, "issue_version", json_integer(regression_version(r)));
		set_str(n, "build_id", build_id);
		set_str(n, "test_id", test_id);
		json_object_set_new(n, "present", json_boolean(present));
		json_array_append_new(d->incidents, n);
		json_object_set_new(d->seen, incident_id, json_true());
	}
	free(issue_id);
	free(incident_id);
}

/* A failure of the day: its regression's incident when it has one (1), else 0. */
static int regression_failure(struct doc *d, const char *kind, const char *test,
			      const char *build_id, const char *test_id)
{
	const struct regression *r = regression_of(d, kind, test);

	if (r)
		regression_incident(d, r, build_id, test_id, 1);
	return r != NULL;
}

/*
 * The regressions fixed this day: an incident saying each is no longer
 * present, on the build (errors, warnings) or the test that now passes.
 */
static void fixed_regressions(struct doc *d)
{
	const struct regress_list *l = d->o->regressions;
	size_t i;

	for (i = 0; l && d->build_id && i < l->n; i++) {
		const struct regression *r = l->items[i];
		char *path = NULL, *id = NULL;

		if (!r->fixed || strcmp(r->fixed, d->day->date) ||
		    strcmp(r->config, regress_day_config(d->day)) ||
		    strcmp(r->arch, regress_day_arch(d->day)))
			continue;
		if (!strcmp(r->kind, "test"))
			id = d->day->boot ? xasprintf("%s:test:%s", d->checkout_id,
						      (path = test_path(r->test))) : NULL;
		else if (!strcmp(r->kind, "boot"))
			id = d->day->boot ? xasprintf("%s:boot", d->checkout_id) : NULL;
		if (id || (strcmp(r->kind, "test") && strcmp(r->kind, "boot")))
			regression_incident(d, r, id ? NULL : d->build_id, id, 0);
		free(path);
		free(id);
	}
}

/*
 * An issue (once per document) and its incident in the build or test
 * object_id; key makes the issue id, so it must not name the day.
 */
static void add_incident(struct doc *d, const char *key, const char *comment,
			 const char *build_id, const char *test_id)
{
	char *issue_id = xasprintf("%s:%s", d->o->origin, key);
	char *incident_id = xasprintf("%s:%s", d->checkout_id, key);

	if (!json_object_get(d->seen, issue_id)) {
		json_t *i = json_object();

		json_object_set_new(i, "id", json_text(issue_id));
		json_object_set_new(i, "version", json_integer(0));
		json_object_set_new(i, "origin", json_text(d->o->origin));
		json_object_set_new(i, "comment", json_text(comment));
		json_object_set_new(i, "culprit", json_pack("{s:b}", "code", 1));
		json_array_append_new(d->issues, i);
		json_object_set_new(d->seen, issue_id, json_true());
	}
	if (!json_object_get(d->seen, incident_id)) {
		json_t *n = json_object();

		json_object_set_new(n, "id", json_text(incident_id));
		json_object_set_new(n, "origin", json_text(d->o->origin));
		json_object_set_new(n, "issue_id", json_text(issue_id));
		json_object_set_new(n, "issue_version", json_integer(0));
		set_str(n, "build_id", build_id);
		set_str(n, "test_id", test_id);
		json_object_set_new(n, "present", json_true());
		json_array_append_new(d->incidents, n);
		json_object_set_new(d->seen, incident_id, json_true());
	}
	free(issue_id);
	free(incident_id);
}

/* --- build --- */

static const char *build_status(const char *s)
{
	if (!s)
		return NULL;
	if (!strcmp(s, "ok"))
		return "PASS";
	if (!strcmp(s, "failed"))
		return "FAIL";
	if (!strcmp(s, "skipped"))
		return "SKIP";
	return "ERROR";
}

static void diag_line(struct buf *b, const json_t *e)
{
	const char *file = json_str(e, "file"), *msg = json_str(e, "message");
	json_int_t line = json_integer_value(json_object_get(e, "line"));
	json_int_t col = json_integer_value(json_object_get(e, "column"));

	if (file && line > 0 && col > 0)
		buf_printf(b, "%s:%lld:%lld: ", file, (long long)line, (long long)col);
	else if (file && line > 0)
		buf_printf(b, "%s:%lld: ", file, (long long)line);
	else if (file)
		buf_printf(b, "%s: ", file);
	buf_printf(b, "error: %s\n", msg ? msg : "");
}

static void build_issues(struct doc *d, const struct day_build *b)
{
	const json_t *errors = b->errors, *e;
	const char *failure = b->failure;
	size_t i;

	json_array_foreach(errors, i, e) {
		const char *file = json_str(e, "file"), *msg = json_str(e, "message"), *kind = json_str(e, "kind");
		char *what = xasprintf("%s\n%s\n%s", kind ? kind : "", file ? file : "", msg ? msg : "");
		char hash[17], *key, *comment, *name = regress_diag_name(e);
		int covered = regression_failure(d, "build", name, d->build_id, NULL);

		free(name);
		if (covered) {
			free(what);
			continue;
		}
		short_hash(hash, what);
		key = xasprintf("build:%s", hash);
		comment = xasprintf("%s%s%s", file ? file : "", file ? ": " : "", msg ? msg : "build error");
		add_incident(d, key, comment, d->build_id, NULL);
		free(what);
		free(key);
		free(comment);
	}
	if (!json_array_size(errors) && failure && strcmp(b->status ? b->status : "", "ok") &&
	    !regression_failure(d, "build", "build", d->build_id, NULL)) {
		char hash[17], *key;

		short_hash(hash, failure);
		key = xasprintf("build:%s", hash);
		add_incident(d, key, failure, d->build_id, NULL);
		free(key);
	}
}

static void build_object(struct doc *d, const struct day_build *b)
{
	json_t *o = json_object(), *misc = json_object();
	struct buf excerpt = BUF_INIT;
	const char *status = build_status(b->status);
	const json_t *e;
	size_t i;

	json_object_set_new(o, "id", json_text(d->build_id));
	json_object_set_new(o, "checkout_id", json_text(d->checkout_id));
	json_object_set_new(o, "origin", json_text(d->o->origin));
	if (day_build_has(b, "seconds"))
		json_object_set_new(o, "duration", json_real(b->seconds));
	/* Only what the record knows; nothing is guessed. */
	set_str(o, "compiler", b->compiler);
	set_url(o, "log_url", url_under(d, b->log));
	if (status)
		json_object_set_new(o, "status", json_string(status));
	json_array_foreach(b->errors, i, e)
		diag_line(&excerpt, e);
	if (!excerpt.len && b->failure)
		buf_printf(&excerpt, "%s\n", b->failure);
	set_excerpt(o, &excerpt);
	/* New warnings are no issue of their own, but one of a regression. */
	json_array_foreach(b->warnings, i, e) {
		char *name = regress_diag_name(e);

		regression_failure(d, "warning", name, d->build_id, NULL);
		free(name);
	}
	set_str(misc, "commit", b->commit);
	if (day_build_has(b, "errors_total"))
		json_object_set_new(misc, "errors_total", json_integer(b->errors_total));
	json_object_set_new(misc, "warnings", json_integer((json_int_t)json_array_size(b->warnings)));
	json_object_set_new(misc, "new_warnings",
			    json_integer((json_int_t)json_array_size(b->new_warnings)));
	if (day_build_has(b, "jobs"))
		json_object_set_new(misc, "jobs", json_integer(b->jobs));
	if (day_build_has(b, "ccache"))
		json_object_set_new(misc, "ccache", json_boolean(b->ccache));
	json_object_set_new(o, "misc", misc);
	json_array_append_new(d->builds, o);
	build_issues(d, b);
	buf_release(&excerpt);
}

/* --- boot and its KTAP results --- */

/*
 * The boot as a test: the kernel booted and the guest ran its tests
 * (PASS, whatever they said), the kernel broke (FAIL), or tide could not
 * boot it (MISS: the harness, not the code).
 */
static const char *boot_status(const char *s)
{
	if (!s)
		return NULL;
	if (!strcmp(s, "passed") || !strcmp(s, "tests-failed"))
		return "PASS";
	if (!strcmp(s, "skipped"))
		return "SKIP";
	if (!strcmp(s, "panic") || !strcmp(s, "oops") || !strcmp(s, "hang") ||
	    !strcmp(s, "no-output"))
		return "FAIL";
	return "MISS";
}

static json_t *environment(const struct day_boot *boot)
{
	const char *accel = boot->accel;
	long long smp = boot->smp;
	json_t *env = json_object(), *misc = json_object();

	json_object_set_new(env, "comment", smp > 0
		? json_text_printf("QEMU, %s, %lld CPU%s", accel ? accel : "accel unknown",
				   (long long)smp, smp == 1 ? "" : "s")
		: json_text_printf("QEMU, %s", accel ? accel : "accel unknown"));
	json_object_set_new(misc, "emulator", json_string("qemu"));
	set_str(misc, "accel", accel);
	if (smp > 0)
		json_object_set_new(misc, "smp", json_integer(smp));
	set_str(misc, "cmdline", boot->cmdline);
	json_object_set_new(env, "misc", misc);
	return env;
}

/* A KTAP result: ok, ok # SKIP, not ok, not ok # TODO (expected to fail). */
static const char *ktap_status(const json_t *t)
{
	const char *dir = json_str(t, "directive");

	if (dir && !strncasecmp(dir, "SKIP", 4))
		return "SKIP";
	if (json_is_true(json_object_get(t, "ok")))
		return "PASS";
	if (dir && !strncasecmp(dir, "TODO", 4))
		return "SKIP";
	return "FAIL";
}

static void ktap_test(struct doc *d, const struct day_boot *boot, const json_t *t,
		      const char *console_url)
{
	const char *name = json_str(t, "name"), *status = ktap_status(t), *dir = json_str(t, "directive");
	const json_t *diags = json_object_get(t, "diagnostics"), *l;
	json_t *o = json_object(), *misc = json_object();
	struct buf excerpt = BUF_INIT;
	char *path, *id;
	size_t i;

	if (!name)
		name = "";
	path = test_path(name);
	id = xasprintf("%s:test:%s", d->checkout_id, path);
	json_object_set_new(o, "id", json_text(id));
	json_object_set_new(o, "build_id", json_text(d->build_id));
	json_object_set_new(o, "origin", json_text(d->o->origin));
	json_object_set_new(o, "path", json_text(path));
	json_object_set_new(o, "status", json_string(status));
	json_object_set_new(o, "environment", environment(boot));
	if (console_url)
		json_object_set_new(o, "log_url", json_text(console_url));
	json_array_foreach(diags, i, l)
		if (json_is_string(l))
			buf_printf(&excerpt, "%s\n", json_string_value(l));
	if (json_str(t, "reason"))
		buf_printf(&excerpt, "%s\n", json_str(t, "reason"));
	set_excerpt(o, &excerpt);
	json_object_set_new(misc, "ktap_name", json_text(name));
	set_str(misc, "directive", dir);
	json_object_set_new(o, "misc", misc);
	json_array_append_new(d->tests, o);
	if (!strcmp(status, "FAIL") && !regression_failure(d, "test", name, NULL, id)) {
		char *key = xasprintf("test:%s", path), *comment = xasprintf("%s fails", name);

		add_incident(d, key, comment, NULL, id);
		free(key);
		free(comment);
	}
	buf_release(&excerpt);
	free(path);
	free(id);
}

static void boot_objects(struct doc *d, const struct day_boot *boot)
{
	const char *status = boot_status(boot->status), *reason = boot->reason;
	const json_t *t, *v;
	json_t *o = json_object(), *misc = json_object();
	struct buf excerpt = BUF_INIT;
	char *console = url_under(d, boot->console);
	char *id = xasprintf("%s:boot", d->checkout_id);
	size_t i;

	json_object_set_new(o, "id", json_text(id));
	json_object_set_new(o, "build_id", json_text(d->build_id));
	json_object_set_new(o, "origin", json_text(d->o->origin));
	json_object_set_new(o, "path", json_string("boot"));
	if (status)
		json_object_set_new(o, "status", json_string(status));
	if (day_boot_has(boot, "seconds"))
		json_object_set_new(o, "duration", json_real(boot->seconds));
	json_object_set_new(o, "environment", environment(boot));
	if (console)
		json_object_set_new(o, "log_url", json_text(console));
	if (reason)
		buf_printf(&excerpt, "%s\n", reason);
	json_array_foreach(boot->problems, i, v)
		if (json_is_string(v))
			buf_printf(&excerpt, "%s\n", json_string_value(v));
	set_excerpt(o, &excerpt);
	set_str(misc, "status", boot->status);
	if (boot->counts)
		json_object_set(misc, "counts", boot->counts);
	json_object_set_new(o, "misc", misc);
	json_array_append_new(d->tests, o);
	if (status && !strcmp(status, "FAIL") && !regression_failure(d, "boot", "boot", NULL, id)) {
		char *key = xasprintf("boot:%s", boot->status);
		char *comment = xasprintf("the kernel does not boot: %s",
					  reason ? reason : boot->status);

		add_incident(d, key, comment, NULL, id);
		free(key);
		free(comment);
	}
	json_array_foreach(boot->tests, i, t)
		if (json_is_object(t))
			ktap_test(d, boot, t, console);
	buf_release(&excerpt);
	free(console);
	free(id);
}

/*
 * The commit checks' findings (src/checks.h) as issues, culprit the code.
 * KCIDB v5.3 has no incident for a checkout (an incident names a build or
 * a test, and a Fixes: tag or a sign-off is neither), so none is made:
 * the issue's misc names the tree's checkout, the commit and the first
 * day; its id does not name the day, so a finding carried from day to
 * day is one issue.
 */
static void check_issues(struct doc *d)
{
	const struct day_checks *c = d->day->checks;
	size_t i;

	for (i = 0; c && i < c->findings.n; i++) {
		const struct day_finding *f = c->findings.v[i];
		char *key = checks_finding_key(f), hash[17], *id;
		json_t *issue, *misc = json_object();
		struct buf comment = BUF_INIT;

		short_hash(hash, key);
		id = xasprintf("%s:check:%s:%s", d->o->origin, f->kind ? f->kind : "?", hash);
		buf_printf(&comment, "%s in the %s tree", f->kind ? f->kind : "?",
			   f->tree ? f->tree : "?");
		if (f->commit)
			buf_printf(&comment, ": commit %.12s (\"%s\")", f->commit,
				   f->subject ? f->subject : "");
		if (f->missing)
			buf_printf(&comment, ": no Signed-off-by of its %s", f->missing);
		if (f->other_tree)
			buf_printf(&comment, ": the same patch as %.12s in %s",
				   f->other_commit ? f->other_commit : "?", f->other_tree);
		set_str(misc, "kind", f->kind);
		set_str(misc, "tree", f->tree);
		set_str(misc, "commit", f->commit);
		set_str(misc, "since", f->since);
		if (f->tree)
			json_object_set_new(misc, "checkout_id",
					    json_text_printf("%s:tree:%s", d->checkout_id, f->tree));
		issue = json_pack("{s:o, s:i, s:o, s:o, s:{s:b}, s:o}", "id", json_text(id),
				  "version", 0, "origin", json_text(d->o->origin),
				  "comment", json_text(buf_cstr(&comment)), "culprit", "code", 1,
				  "misc", misc);
		if (!json_object_get(d->seen, id)) {
			json_array_append_new(d->issues, issue);
			json_object_set_new(d->seen, id, json_true());
		} else {
			json_decref(issue);
		}
		buf_release(&comment);
		free(id);
		free(key);
	}
}

static int url_base_valid(const char *base)
{
	return !base || (*base && !str_ends_with(base, "/") && strstr(base, "://") &&
			 !strpbrk(base, " \t\r\n\"<>\\^`{|}"));
}

int kcidb_day(json_t **out, const struct day *day, const struct kcidb_opts *o)
{
	struct doc d = { .o = o, .day = day };
	json_t *doc;
	size_t i;

	*out = NULL;
	if (!kcidb_origin_valid(o->origin))
		return tide_error_set(TIDE_EINVAL,
			"KCIDB origin '%s' is not valid: use lower-case letters, digits and '_'",
			o->origin ? o->origin : "");
	if (!url_base_valid(o->url_base))
		return tide_error_set(TIDE_EINVAL,
			"URL base '%s' is not valid: a URL without a trailing '/'", o->url_base);
	d.checkout_id = xasprintf("%s:%s", o->origin, day->tag ? day->tag : day->date);
	d.checkouts = json_array();
	d.builds = json_array();
	d.tests = json_array();
	d.issues = json_array();
	d.incidents = json_array();
	d.seen = json_object();
	day_checkout(&d);
	for (i = 0; i < day->ntrees; i++)
		tree_checkout(&d, &day->trees[i]);
	check_issues(&d);
	if (day->build) {
		d.build_id = xasprintf("%s:build", d.checkout_id);
		build_object(&d, day->build);
		if (day->boot)
			boot_objects(&d, day->boot);
		fixed_regressions(&d);
	}
	doc = json_pack("{s:{s:i, s:i}, s:o, s:o, s:o, s:o, s:o}",
			"version", "major", 5, "minor", 3,
			"checkouts", d.checkouts, "builds", d.builds, "tests", d.tests,
			"issues", d.issues, "incidents", d.incidents);
	json_decref(d.seen);
	free(d.checkout_id);
	free(d.build_id);
	if (!doc)
		return tide_error_set(TIDE_ERROR, "cannot build the KCIDB document");
	*out = doc;
	return 0;
}
