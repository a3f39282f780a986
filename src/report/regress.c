/*
 * Failures followed across days (regress.h, man/tide-regressions.1): a
 * day's results, folded into DIR/regressions.json.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "buf.h"
#include "buildconf.h"
#include "day.h"
#include "error.h"
#include "regress.h"
#include "settings.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

/* ---- settings ---- */

static int bad_setting(const char *path, const struct settings *s, const char *key,
		       const char *value, const char *want)
{
	return tide_error_set(TIDE_EINVAL, "%s:%zu: %s '%s': %s", path, settings_line_of(s, key),
			      key, value, want);
}

int regress_settings_load(struct regress_settings *out, const char *wsdir)
{
	char *path = workspace_config(wsdir), *end;
	struct settings *s = NULL;
	const char *v;
	int error;

	out->threshold = REGRESS_DEFAULT_THRESHOLD;
	out->window = REGRESS_DEFAULT_WINDOW;
	if ((error = settings_load(&s, path)) < 0)
		goto done;
	if ((v = settings_get(s, "flaky-threshold"))) {
		double t = strtod(v, &end);

		if (!*v || strspn(v, "0123456789.") != strlen(v) || *end || !(t >= 0 && t <= 1)) {
			error = bad_setting(path, s, "flaky-threshold", v, "a number from 0 to 1");
			goto done;
		}
		out->threshold = t;
	}
	if ((v = settings_get(s, "flaky-window"))) {
		long n = strtol(v, &end, 10);

		if (*v < '0' || *v > '9' || *end || n < 1 || n > REGRESS_MAX_WINDOW) {
			error = bad_setting(path, s, "flaky-window", v, "a number of days from 1 to 365");
			goto done;
		}
		out->window = (int)n;
	}
done:
	settings_free(s);
	free(path);
	return error;
}

/* ---- the list and its file ---- */

struct regress_list *regress_list_new(void)
{
	struct regress_list *l = xcalloc(1, sizeof(*l));

	l->history = json_object();
	return l;
}

static void list_clear(struct regress_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		regression_free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = l->alloc = 0;
	free(l->through);
	l->through = NULL;
	json_decref(l->history);
	l->history = json_object();
}

void regress_list_free(struct regress_list *l)
{
	if (!l)
		return;
	list_clear(l);
	json_decref(l->history);
	free(l);
}

static void list_add(struct regress_list *l, struct regression *r)
{
	array_grow(&l->items, &l->alloc, l->n + 1, sizeof(*l->items));
	l->items[l->n++] = r;
}

int regression_is_open(const struct regression *r)
{
	return r->state && strcmp(r->state, "fixed") != 0;
}

/* An entry must at least say what it is and how it stands. */
static int entry_check(const struct regression *r, const char *path, size_t i)
{
	if (!r->id || !r->key || !r->state || !r->first_bad)
		return tide_error_set(TIDE_EINVAL, "%s: regressions[%zu] lacks its id, key, state "
				      "or first_bad", path, i);
	if (strcmp(r->state, "new") && strcmp(r->state, "still-failing") &&
	    strcmp(r->state, "fixed") && strcmp(r->state, "flaky"))
		return tide_error_set(TIDE_EINVAL, "%s: regressions[%zu]: \"state\" '%s' is not new, "
				      "still-failing, fixed or flaky", path, i, r->state);
	return 0;
}

static int list_from_json(struct regress_list *l, const json_t *json, const char *path)
{
	const json_t *through = json_object_get(json, "through"), *v;
	const json_t *items = json_object_get(json, "regressions");
	const json_t *history = json_object_get(json, "history");
	size_t i;
	int error;

	if (!json_is_object(json) || json_integer_value(json_object_get(json, "version")) != 1)
		return tide_error_set(TIDE_EINVAL, "%s: not a tide regressions file (version 1)", path);
	if (through && !json_is_null(through) &&
	    (!json_is_string(through) || !day_date_is_valid(json_string_value(through))))
		return tide_error_set(TIDE_EINVAL, "%s: \"through\" is not a date", path);
	if ((items && !json_is_array(items)) || (history && !json_is_object(history)))
		return tide_error_set(TIDE_EINVAL, "%s: \"regressions\" is not a list or \"history\" "
				      "not an object", path);
	l->through = json_is_string(through) ? xstrdup(json_string_value(through)) : NULL;
	json_array_foreach(items, i, v) {
		struct regression *r = NULL;

		if ((error = regression_from_json(&r, v, path)) < 0)
			return error;
		if (!r || (error = entry_check(r, path, i)) < 0) {
			regression_free(r);
			return r ? error : tide_error_set(TIDE_EINVAL, "%s: regressions[%zu] is null",
							  path, i);
		}
		list_add(l, r);
	}
	if (history) {
		json_decref(l->history);
		l->history = json_deep_copy(history);
	}
	return 0;
}

int regress_load(struct regress_list **out, const char *wsdir)
{
	char *path = workspace_regressions(wsdir);
	struct regress_list *l = regress_list_new();
	json_error_t jerr;
	json_t *json = NULL;
	int error = 0;

	*out = NULL;
	if (path_exists(path)) {
		if (!(json = json_load_file(path, 0, &jerr)))
			error = tide_error_set(TIDE_EINVAL, "%s:%d: %s", path, jerr.line, jerr.text);
		else
			error = list_from_json(l, json, path);
	}
	json_decref(json);
	free(path);
	if (error < 0)
		regress_list_free(l);
	else
		*out = l;
	return error;
}

int regress_save(const struct regress_list *l, const char *wsdir)
{
	char *path = workspace_regressions(wsdir), *text;
	json_t *items = json_array(), *o;
	size_t i;
	int error;

	for (i = 0; i < l->n; i++)
		json_array_append_new(items, regression_to_json(l->items[i]));
	o = json_pack("{s:i, s:o, s:o, s:O}", "version", 1, "through", json_text(l->through),
		      "regressions", items, "history", l->history);
	text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	error = text ? file_write_atomic(path, text, strlen(text))
		     : tide_error_set(TIDE_ERROR, "cannot encode %s", path);
	free(text);
	json_decref(o);
	free(path);
	return error;
}

/* ---- a day's results ---- */

static const char *config_name(const struct day_build *b)
{
	return b && b->config ? b->config : BUILD_CONFIG_DEFAULT;
}

static const char *arch_name(const struct day_build *b)
{
	return b && b->arch ? b->arch : BUILD_ARCH_HOST;
}

char *regress_key(const char *kind, const char *config, const char *arch, const char *test)
{
	return xasprintf("%s:%s/%s:%s", kind, config, arch, test);
}

const char *regress_day_config(const struct day *d)
{
	return config_name(d->build);
}

const char *regress_day_arch(const struct day *d)
{
	return arch_name(d->build);
}

const struct regression *regress_find(const struct regress_list *l, const char *key,
				      const char *date)
{
	size_t i;

	for (i = 0; l && i < l->n; i++) {
		const struct regression *r = l->items[i];

		if (strcmp(r->key, key))
			continue;
		if ((strcmp(r->first_bad, date) <= 0 && r->last_bad && strcmp(date, r->last_bad) <= 0) ||
		    (r->fixed && !strcmp(r->fixed, date)))
			return r;
	}
	return NULL;
}

/* One result; two for one key (one error message twice): a failure wins. */
static void add_result(json_t *res, const char *kind, const char *config, const char *arch,
		       const char *test, const char *outcome, int opens, const char *detail)
{
	char *key = regress_key(kind, config, arch, test);
	json_t *old = json_object_get(res, key);

	if (old && strcmp(outcome, "fail"))
		goto done;
	if (old && !strcmp(json_str(old, "outcome") ?: "", "fail")) {
		/* The first of its lines says how it fails. */
		if (opens)
			json_object_set_new(old, "opens", json_true());
		goto done;
	}
	json_object_set_new(res, key, json_pack("{s:s, s:o, s:o, s:o, s:s, s:b, s:o}", "kind", kind,
						"config", json_text(config), "arch", json_text(arch),
						"test", json_text(test), "outcome", outcome,
						"opens", opens, "detail", json_text(detail)));
done:
	free(key);
}

/* "FILE: MESSAGE" names a diagnostic across days (its line moves); "FILE:LINE: ..." shows it. */
static void diag_names(const json_t *e, char **name, char **detail)
{
	const char *file = json_str(e, "file"), *msg = json_str(e, "message");
	json_int_t line = json_integer_value(json_object_get(e, "line"));

	*name = xasprintf("%s%s%s", file ? file : "", file ? ": " : "", msg ? msg : "?");
	*detail = line > 0 ? xasprintf("%s:%lld: %s", file ? file : "?", (long long)line,
				       msg ? msg : "?")
			   : xstrdup(*name);
}

char *regress_diag_name(const json_t *diag)
{
	char *name, *detail;

	diag_names(diag, &name, &detail);
	free(detail);
	return name;
}

/* Whether a build's errors have one that is not make's own "*** [...] Error N". */
static int has_own_error(const json_t *errors)
{
	const json_t *e;
	size_t i;

	json_array_foreach(errors, i, e)
		if (strcmp(json_str(e, "kind") ?: "", "make"))
			return 1;
	return 0;
}

/*
 * Each diagnostic of list a result; make's own error lines only when
 * nothing else failed (they follow a compiler's or linker's error, name an
 * object under the output directory and say nothing of their own).
 */
static void diag_results(json_t *res, const char *kind, const char *config, const char *arch,
			 const json_t *list, const char *outcome, int opens)
{
	const json_t *e;
	size_t i;
	int own = !strcmp(kind, "build") && has_own_error(list);

	json_array_foreach(list, i, e) {
		char *name, *detail;

		if (own && !strcmp(json_str(e, "kind") ?: "", "make"))
			continue;
		diag_names(e, &name, &detail);
		add_result(res, kind, config, arch, name, outcome, opens, detail);
		free(name);
		free(detail);
	}
}

/*
 * A build that ran: "build" passes or fails, each error fails; a build
 * that passed fails each warning, but only its new ones may start a
 * regression (mainline's own warnings are nobody's regression).
 */
static void build_results(json_t *res, const char *config, const char *arch,
			  const struct day_build *b)
{
	int ok;

	if (!b || !day_build_has(b, "errors"))
		return;		/* tide could not run the build: it says nothing */
	ok = b->status && !strcmp(b->status, "ok");
	add_result(res, "build", config, arch, "build", ok ? "pass" : "fail",
		   !ok && !json_array_size(b->errors), b->failure);
	diag_results(res, "build", config, arch, b->errors, "fail", 1);
	if (!ok)
		return;
	diag_results(res, "warning", config, arch, b->new_warnings, "fail", 1);
	diag_results(res, "warning", config, arch, b->warnings, "fail", 0);
}

/* Suites (a name with "NAME.something" below it) into suites, as name -> true. */
static void suite_names(json_t *suites, const json_t *tests)
{
	const json_t *t;
	size_t i;

	json_array_foreach(tests, i, t) {
		char *copy = xstrdup(json_str(t, "name") ?: ""), *dot;

		while ((dot = strrchr(copy, '.'))) {
			*dot = '\0';
			json_object_set_new(suites, copy, json_true());
		}
		free(copy);
	}
}

static int in_list(const json_t *list, const char *s)
{
	const json_t *v;
	size_t i;

	json_array_foreach(list, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return 1;
	return 0;
}

/* How a test failed, in one line: its reason or first diagnostic. */
static const char *test_detail(const json_t *t)
{
	const json_t *diags = json_object_get(t, "diagnostics");

	if (json_str(t, "reason"))
		return json_str(t, "reason");
	if (json_is_string(json_array_get(diags, 0)))
		return json_string_value(json_array_get(diags, 0));
	return json_is_true(json_object_get(t, "missing_result")) ? "no result" : "not ok";
}

/*
 * A boot that ran: "boot" fails when the kernel broke (its tests then
 * say nothing); else each leaf test (skipped and TODO ones aside)
 * passes, fails, or is mixed when it failed on one boot and passed on
 * another.
 */
static void boot_results(json_t *res, const char *config, const char *arch,
			 const struct day_boot *t)
{
	const char *st = t ? t->status : NULL;
	json_t *suites;
	const json_t *v;
	size_t i;
	int crashed;

	if (!st || !day_boot_has(t, "tests"))
		return;
	crashed = !strcmp(st, "panic") || !strcmp(st, "oops") || !strcmp(st, "hang") ||
		  !strcmp(st, "no-output");
	if (!crashed && strcmp(st, "passed") && strcmp(st, "tests-failed"))
		return;
	add_result(res, "boot", config, arch, "boot", crashed ? "fail" : "pass", 1,
		   t->reason ? t->reason : st);
	if (crashed)
		return;
	suites = json_object();
	suite_names(suites, t->tests);
	json_array_foreach(t->tests, i, v) {
		const char *name = json_str(v, "name"), *dir = json_str(v, "directive");

		if (!name || json_object_get(suites, name) ||
		    (dir && (!strncasecmp(dir, "SKIP", 4) || !strncasecmp(dir, "TODO", 4))))
			continue;
		add_result(res, "test", config, arch, name,
			   in_list(t->flaky, name) ? "mixed" :
			   json_is_false(json_object_get(v, "ok")) ? "fail" : "pass", 1,
			   test_detail(v));
	}
	json_decref(suites);
}

json_t *regress_day_results(const struct day *d)
{
	json_t *res = json_object();
	size_t i;

	build_results(res, config_name(d->build), arch_name(d->build), d->build);
	boot_results(res, config_name(d->build), arch_name(d->build), d->boot);
	for (i = 0; i < d->nconfigs; i++) {
		const struct day_config *c = &d->configs[i];
		const char *arch = arch_name(c->build);

		build_results(res, c->name, arch, c->build);
		boot_results(res, c->name, arch, c->boot);
	}
	return res;
}

/* ---- history and flakiness ---- */

static json_t *member(json_t *obj, const char *key, int array)
{
	json_t *v = json_object_get(obj, key);

	if (array ? !json_is_array(v) : !json_is_object(v)) {
		v = array ? json_array() : json_object();
		json_object_set_new(obj, key, v);
	}
	return v;
}

/*
 * Today's outcome of key into its history (the latest window days); the
 * test's flakiness: the share of those days that were mixed.
 */
static double history_add(struct regress_list *l, const char *key, const char *date,
			  const char *outcome, int window)
{
	json_t *h = member(l->history, key, 0), *days = member(h, "days", 1), *last;
	size_t i, mixed = 0;

	last = json_array_get(days, json_array_size(days) - 1);
	if (json_is_string(json_array_get(last, 0)) &&
	    !strcmp(json_string_value(json_array_get(last, 0)), date))
		json_array_remove(days, json_array_size(days) - 1);
	json_array_append_new(days, json_pack("[s,s]", date, outcome));
	while (json_array_size(days) > (size_t)window)
		json_array_remove(days, 0);
	json_array_foreach(days, i, last)
		mixed += !strcmp(json_string_value(json_array_get(last, 1)) ?: "", "mixed");
	if (strcmp(outcome, "fail"))
		json_object_set_new(h, "last_pass", json_string(date));
	return (double)mixed / (double)json_array_size(days);
}

static const char *last_pass(const struct regress_list *l, const char *key)
{
	return json_str(json_object_get(l->history, key), "last_pass");
}

/* ---- folding a day ---- */

static struct regression *open_entry(const struct regress_list *l, const char *key)
{
	size_t i;

	for (i = l->n; i-- > 0;)
		if (!strcmp(l->items[i]->key, key) && regression_is_open(l->items[i]))
			return l->items[i];
	return NULL;
}

/* 12 hex digits of SHA-1 over the key and the first bad day: the same entry, the same id. */
static char *entry_id(const char *key, const char *first_bad)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	char *text = xasprintf("%s\n%s", key, first_bad), hex[13];
	unsigned int n = 0;
	int i;

	EVP_Digest(text, strlen(text), md, &n, EVP_sha1(), NULL);
	for (i = 0; i < 6; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	free(text);
	return xstrdup(hex);
}

static void set(char **field, const char *value)
{
	free(*field);
	*field = value ? xstrdup(value) : NULL;
}

/* The entry's failure starts today: its first bad day, last good day (good), tags. */
static void entry_starts(struct regression *r, const char *good, const struct day *d)
{
	set(&r->first_bad, d->date);
	set(&r->first_tag, d->tag);
	set(&r->base_tag, d->base_tag);
	set(&r->last_good, good);
	free(r->last_good_tag);
	r->last_good_tag = good ? day_tag_for(good) : NULL;
}

static struct regression *entry_new(struct regress_list *l, const char *key, const json_t *res,
				    const struct day *d, const char *good, const char *state)
{
	struct regression *r = regression_new();

	r->key = xstrdup(key);
	r->kind = xstrdup(json_str(res, "kind"));
	r->config = xstrdup(json_str(res, "config"));
	r->arch = xstrdup(json_str(res, "arch"));
	r->test = xstrdup(json_str(res, "test"));
	r->detail = dayrec_text(json_str(res, "detail"));
	r->state = xstrdup(state);
	entry_starts(r, good, d);
	r->id = entry_id(key, d->date);
	list_add(l, r);
	return r;
}

static void change(struct buf *out, const struct regression *r, const char *what)
{
	if (!out)
		return;
	buf_printf(out, "%s: %s %s (%s) %s", what, r->kind, r->config, r->arch, r->test);
	if (!strcmp(what, "new") || !strcmp(what, "regression"))
		buf_printf(out, " since %s", r->first_tag ? r->first_tag : r->first_bad);
	else if (!strcmp(what, "fixed"))
		buf_printf(out, ", failing since %s", r->first_tag ? r->first_tag : r->first_bad);
	else if (!strcmp(what, "flaky"))
		buf_printf(out, " (flakiness %.2f)", r->score);
	buf_putc(out, '\n');
}

/*
 * Today's result of one key, as the fold sees it: the entry open for it
 * (or NULL), the day it last passed before today, its flakiness.
 */
struct fold {
	struct regress_list *l;
	const struct day *d;
	const char *key;
	const json_t *res;
	struct regression *e;
	const char *good;
	double score, threshold;
	struct buf *changes;
};

/* A failure on every boot (or a build or boot failure). */
static void on_fail(struct fold *f)
{
	struct regression *e = f->e;
	const struct day *d = f->d;
	double score = f->score;

	if (!e) {
		if (!json_is_true(json_object_get(f->res, "opens")))
			return;
		e = entry_new(f->l, f->key, f->res, d, f->good,
			      score >= f->threshold && score > 0 ? "flaky" : "new");
		e->score = score;
		e->bad_days = 1;
		set(&e->last_bad, d->date);
		change(f->changes, e, e->state);
		return;
	}
	e->bad_days++;
	e->score = score;
	set(&e->last_bad, d->date);
	if (strcmp(e->state, "flaky"))
		set(&e->state, "still-failing");
	else if (score < f->threshold) {
		/* No longer flaky by its history: a regression from today. */
		set(&e->state, "new");
		entry_starts(e, f->good, d);
		change(f->changes, e, "regression");
	}
}

/* Failed on one boot, passed on another: flaky, whatever it was. */
static void on_mixed(struct fold *f)
{
	struct regression *e = f->e;

	if (!e && f->score < f->threshold)
		return;		/* one flake in a long clean history: not worth a line */
	if (!e)
		e = entry_new(f->l, f->key, f->res, f->d, f->good, "flaky");
	e->score = f->score;
	e->bad_days++;
	set(&e->last_bad, f->d->date);
	if (e->bad_days == 1 || strcmp(e->state, "flaky")) {
		set(&e->state, "flaky");
		change(f->changes, e, "flaky");
	}
}

static void on_pass(struct regression *e, const struct day *d, double score, double threshold,
		    struct buf *changes)
{
	if (!e)
		return;
	e->score = score;
	if (!strcmp(e->state, "flaky") && score >= threshold)
		return;
	set(&e->state, "fixed");
	set(&e->fixed, d->date);
	change(changes, e, "fixed");
}

/*
 * The build and warning entries of a configuration that built today and
 * whose error or warning is gone: fixed (a failed build proves nothing
 * about the errors after its first).
 */
static void fold_absent(struct regress_list *l, const json_t *results, const struct day *d,
			const struct regress_settings *s, struct buf *changes)
{
	size_t i, n = l->n;

	for (i = 0; i < n; i++) {
		struct regression *e = l->items[i];
		char *build;
		const json_t *b;

		if (!regression_is_open(e) || json_object_get(results, e->key) ||
		    (strcmp(e->kind, "build") && strcmp(e->kind, "warning")))
			continue;
		build = xasprintf("build:%s/%s:build", e->config, e->arch);
		b = json_object_get(results, build);
		if (b && !strcmp(json_str(b, "outcome"), "pass"))
			on_pass(e, d, history_add(l, e->key, d->date, "pass", s->window),
				s->threshold, changes);
		free(build);
	}
}

/*
 * The day each configuration's build last passed before today, by its
 * build's key: the last good day of a new error or warning, which has no
 * history of its own (it was not there on the days the build passed).
 */
static json_t *builds_passed(const struct regress_list *l, json_t *results)
{
	json_t *out = json_object(), *res;
	const char *key;

	json_object_foreach(results, key, res)
		if (!strcmp(json_str(res, "kind") ?: "", "build") &&
		    !strcmp(json_str(res, "test") ?: "", "build") && last_pass(l, key))
			json_object_set_new(out, key, json_string(last_pass(l, key)));
	return out;
}

static char *last_good(const struct regress_list *l, const char *key, const json_t *res,
		       const json_t *passed)
{
	const char *kind = json_str(res, "kind") ?: "", *good = last_pass(l, key);
	char *build;

	if (!good && (!strcmp(kind, "build") || !strcmp(kind, "warning"))) {
		build = regress_key("build", json_str(res, "config"), json_str(res, "arch"), "build");
		good = json_str(passed, build);
		free(build);
	}
	return good ? xstrdup(good) : NULL;
}

void regress_fold_day(struct regress_list *l, const struct day *d,
		      const struct regress_settings *s, struct buf *changes)
{
	json_t *results = regress_day_results(d);
	json_t *passed = builds_passed(l, results);
	const char *key;
	json_t *res;

	json_object_foreach(results, key, res) {
		const char *outcome = json_str(res, "outcome");
		struct fold f = { l, d, key, res, open_entry(l, key), NULL, 0, s->threshold, changes };
		char *good;

		/* Mainline's warnings are in every build: kept out of the history. */
		if (!f.e && !strcmp(outcome, "fail") && !json_is_true(json_object_get(res, "opens")))
			continue;
		good = last_good(l, key, res, passed);
		f.good = good;
		f.score = history_add(l, key, d->date, outcome, s->window);
		if (!strcmp(outcome, "fail"))
			on_fail(&f);
		else if (!strcmp(outcome, "mixed"))
			on_mixed(&f);
		else
			on_pass(f.e, d, f.score, s->threshold, changes);
		free(good);
	}
	fold_absent(l, results, d, s, changes);
	json_decref(passed);
	json_decref(results);
	regress_attach_bisects(l, d);
	set(&l->through, d->date);
}

/* ---- culprits ---- */

/* Does a bisect's check look at what entry e is about? */
static int check_matches(const struct regression *e, const json_t *check, const char *config)
{
	const char *kind = json_str(check, "kind"), *arg = json_str(check, "arg");

	if (!kind || strcmp(e->config, config))
		return 0;
	if (!strcmp(kind, "test"))
		return !strcmp(e->kind, "test") && arg && !strcmp(e->test, arg);
	if (!strcmp(kind, "boot"))
		return !strcmp(e->kind, "boot");
	if (!strcmp(kind, "build"))
		return !strcmp(e->kind, "build");
	return 0;
}

static json_t *culprit_of(const struct day_bisect *b, const char *date)
{
	json_t *c = json_pack("{s:o, s:o, s:o, s:s, s:o}", "tree", json_text(b->tree),
			      "commit", json_text(b->commit), "subject", json_text(b->subject),
			      "day", date, "outcome", json_text(b->outcome));

	if (b->conflicts_with)
		json_object_set_new(c, "conflicts_with", json_text(b->conflicts_with));
	if (b->revert) {
		json_object_set(c, "confirmed", json_object_get(b->revert, "confirmed") ?: json_null());
		if (json_str(b->revert, "how"))
			json_object_set_new(c, "how", json_text(json_str(b->revert, "how")));
	}
	return c;
}

/* e's culprit is b's already, confirmed (or not) the same way. */
static int same_culprit(const json_t *culprit, const struct day_bisect *b)
{
	const json_t *was = json_object_get(culprit, "confirmed");
	const json_t *now = b->revert ? json_object_get(b->revert, "confirmed") : NULL;

	return culprit && !strcmp(json_str(culprit, "commit") ?: "", b->commit) &&
	       ((!was && !now) || (was && now && json_equal(was, now)));
}

static size_t attach_one(struct regress_list *l, const struct day *d, const struct day_bisect *b)
{
	const char *config = json_string_value(json_object_get(b->check, "config"));
	size_t i, n = 0;

	if (!b->outcome || !b->commit || !b->tree ||
	    (strcmp(b->outcome, "found") && strcmp(b->outcome, "semantic-conflict")))
		return 0;
	if (!config)
		config = config_name(d->build);
	for (i = 0; i < l->n; i++) {
		struct regression *e = l->items[i];

		if (!check_matches(e, b->check, config) || strcmp(e->first_bad, d->date) > 0 ||
		    !e->last_bad || strcmp(e->last_bad, d->date) < 0 || same_culprit(e->culprit, b))
			continue;
		json_decref(e->culprit);
		e->culprit = culprit_of(b, d->date);
		n++;
	}
	return n;
}

size_t regress_attach_bisects(struct regress_list *l, const struct day *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->nearlier_bisects; i++)
		n += attach_one(l, d, d->earlier_bisects[i]);
	if (d->bisect)
		n += attach_one(l, d, d->bisect);
	return n;
}

/* ---- bringing the list up to date ---- */

/* What a rebuilt list keeps of the old one: the mails sent, and culprits no day names now. */
static void carry_over(struct regress_list *l, const struct regress_list *old)
{
	size_t i, j;

	for (i = 0; i < l->n; i++)
		for (j = 0; j < old->n; j++) {
			struct regression *e = l->items[i];
			const struct regression *o = old->items[j];

			if (strcmp(e->id, o->id))
				continue;
			if (o->mails && !e->mails)
				e->mails = json_deep_copy(o->mails);
			if (o->culprit && !e->culprit)
				e->culprit = json_deep_copy(o->culprit);
		}
}

int regress_update(struct regress_list *l, const char *wsdir, const char *date,
		   const struct regress_settings *s, struct buf *changes)
{
	char *days_dir = workspace_days_dir(wsdir), **dates = NULL;
	struct regress_list old = { 0 };
	const char *target, *limit;
	int n, i, rebuild;

	if ((n = day_list(&dates, days_dir)) < 0) {
		free(days_dir);
		return n;
	}
	target = date ? date : n ? dates[n - 1] : NULL;
	limit = target;
	/* Only a day named again is a rerun; the newest day already folded is nothing to do. */
	rebuild = date && l->through && strcmp(date, l->through) <= 0;
	if (rebuild) {
		old = *l;
		memset(l, 0, sizeof(*l));
		l->history = json_object();
		limit = old.through;	/* an older day again: the days after it too */
	}
	for (i = 0; limit && i < n && strcmp(dates[i], limit) <= 0; i++) {
		struct day *d = NULL;

		if (l->through && strcmp(dates[i], l->through) <= 0)
			continue;
		if (day_open(&d, days_dir, dates[i]) < 0) {
			tide_error_clear();	/* a day that does not load says nothing */
			continue;
		}
		regress_fold_day(l, d, s, !rebuild || !strcmp(dates[i], target) ? changes : NULL);
		day_free(d);
	}
	if (rebuild) {
		carry_over(l, &old);
		list_clear(&old);
		json_decref(old.history);
	}
	day_list_free(dates, n);
	free(days_dir);
	return 0;
}
