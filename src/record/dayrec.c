#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "dayrec.h"
#include "error.h"
#include "text.h"
#include "util.h"

/* F_LIST: a list of records of the field's sub kind (struct dayrec_list). */
enum field_type { F_STR, F_REAL, F_INT, F_BOOL, F_ARRAY, F_OBJECT, F_LIST };

/* F_ALWAYS: a complete record has the key (JSON null when the value is NULL). */
#define F_ALWAYS 1

struct kind;

struct field {
	const char *name;
	enum field_type type;
	size_t off;
	unsigned flags;
	const struct kind *sub;	/* F_LIST: the kind of its records */
};

struct kind {
	const char *key;	/* the record's key in day.json */
	size_t size;
	const struct field *fields;
	size_t nfields;
};

/* The layout of every F_LIST member (struct day_findings, ...). */
struct dayrec_list {
	void **v;
	size_t n;
};

#define B(name, type, flags) { #name, type, offsetof(struct day_build, name), flags, NULL }
static const struct field build_fields[] = {
	B(status, F_STR, F_ALWAYS),
	B(failure, F_STR, 0),
	B(commit, F_STR, 0),
	B(config, F_STR, 0),
	B(arch, F_STR, 0),
	B(seconds, F_REAL, F_ALWAYS),
	B(checkout_seconds, F_REAL, F_ALWAYS),
	B(config_seconds, F_REAL, F_ALWAYS),
	B(make_seconds, F_REAL, F_ALWAYS),
	B(objects, F_INT, 0),
	B(checked, F_INT, 0),
	B(check_seconds, F_REAL, 0),
	B(checkout, F_OBJECT, F_ALWAYS),
	B(config_regenerated, F_BOOL, F_ALWAYS),
	B(jobs, F_INT, F_ALWAYS),
	B(ccache, F_BOOL, F_ALWAYS),
	B(remote_cache, F_STR, F_ALWAYS),
	B(ccache_stats, F_OBJECT, 0),
	B(distcc, F_OBJECT, 0),
	B(errors, F_ARRAY, F_ALWAYS),
	B(errors_total, F_INT, F_ALWAYS),
	B(warnings, F_ARRAY, F_ALWAYS),
	B(new_warnings, F_ARRAY, F_ALWAYS),
	B(log, F_STR, F_ALWAYS),
	B(kernel, F_STR, F_ALWAYS),
	B(make_command, F_ARRAY, 0),
	B(compiler, F_STR, 0),
	B(binutils, F_STR, 0),
	B(config_sha256, F_STR, 0),
	B(kernel_sha256, F_STR, 0),
};
#undef B

#define O(name, type, flags) { #name, type, offsetof(struct day_boot, name), flags, NULL }
static const struct field boot_fields[] = {
	O(status, F_STR, F_ALWAYS),
	O(failure, F_STR, 0),
	O(reason, F_STR, F_ALWAYS),
	O(seconds, F_REAL, F_ALWAYS),
	O(accel, F_STR, F_ALWAYS),
	O(smp, F_INT, F_ALWAYS),
	O(timed_out, F_BOOL, F_ALWAYS),
	O(exit_status, F_INT, F_ALWAYS),
	O(timeout, F_REAL, F_ALWAYS),
	O(counts, F_OBJECT, F_ALWAYS),
	O(tests, F_ARRAY, F_ALWAYS),
	O(problems, F_ARRAY, F_ALWAYS),
	O(warnings, F_ARRAY, F_ALWAYS),
	O(documents, F_ARRAY, 0),
	O(cmdline, F_STR, F_ALWAYS),
	O(initramfs_seconds, F_REAL, F_ALWAYS),
	O(accel_note, F_STR, 0),
	O(smp_note, F_STR, 0),
	O(console, F_STR, 0),
	O(qemu_command, F_ARRAY, 0),
	O(qemu_version, F_STR, 0),
	O(initramfs_sha256, F_STR, 0),
	O(attempts, F_ARRAY, 0),
	O(flaky, F_ARRAY, 0),
};
#undef O

#define S(name, type, flags) { #name, type, offsetof(struct day_bisect, name), flags, NULL }
static const struct field bisect_fields[] = {
	S(outcome, F_STR, F_ALWAYS),
	S(check, F_OBJECT, 0),
	S(since, F_STR, 0),
	S(retries, F_INT, F_ALWAYS),
	S(tree, F_STR, F_ALWAYS),
	S(commit, F_STR, F_ALWAYS),
	S(subject, F_STR, F_ALWAYS),
	S(conflicts_with, F_STR, 0),
	S(range_first, F_STR, 0),
	S(range_last, F_STR, 0),
	S(dropped, F_ARRAY, 0),
	S(steps_done, F_INT, F_ALWAYS),
	S(builds, F_INT, F_ALWAYS),
	S(runs, F_INT, F_ALWAYS),
	S(replayed, F_INT, F_ALWAYS),
	S(bound, F_INT, F_ALWAYS),
	S(seconds, F_REAL, F_ALWAYS),
	S(steps, F_ARRAY, F_ALWAYS),
	S(revert, F_OBJECT, 0),
};
#undef S

#define M(name, type, flags) { #name, type, offsetof(struct day_moved, name), flags, NULL }
static const struct field moved_fields[] = {
	M(since, F_STR, 0),
	M(from, F_STR, 0),
	M(ahead, F_INT, F_ALWAYS),
	M(behind, F_INT, F_ALWAYS),
	M(rewound, F_BOOL, F_ALWAYS),
	M(dropped, F_INT, 0),
	M(rebased, F_INT, 0),
	M(added, F_INT, 0),
};
#undef M

#define R(name, type, flags) { #name, type, offsetof(struct regression, name), flags, NULL }
static const struct field regression_fields[] = {
	R(id, F_STR, F_ALWAYS),
	R(key, F_STR, F_ALWAYS),
	R(kind, F_STR, F_ALWAYS),
	R(config, F_STR, F_ALWAYS),
	R(arch, F_STR, F_ALWAYS),
	R(test, F_STR, F_ALWAYS),
	R(detail, F_STR, 0),
	R(state, F_STR, F_ALWAYS),
	R(first_bad, F_STR, F_ALWAYS),
	R(last_good, F_STR, F_ALWAYS),
	R(last_bad, F_STR, F_ALWAYS),
	R(fixed, F_STR, F_ALWAYS),
	R(first_tag, F_STR, 0),
	R(last_good_tag, F_STR, 0),
	R(base_tag, F_STR, 0),
	R(bad_days, F_INT, F_ALWAYS),
	R(score, F_REAL, F_ALWAYS),
	R(culprit, F_OBJECT, 0),
	R(mails, F_OBJECT, 0),
};
#undef R
#define N(name, type, flags) { #name, type, offsetof(struct day_finding, name), flags, NULL }
static const struct field finding_fields[] = {
	N(kind, F_STR, F_ALWAYS),
	N(tree, F_STR, F_ALWAYS),
	N(commit, F_STR, F_ALWAYS),
	N(subject, F_STR, 0),
	N(author, F_STR, 0),
	N(since, F_STR, F_ALWAYS),
	N(tags, F_ARRAY, 0),
	N(tags_total, F_INT, 0),
	N(missing, F_STR, 0),
	N(other_tree, F_STR, 0),
	N(other_commit, F_STR, 0),
	N(other_subject, F_STR, 0),
	N(date, F_STR, 0),
	N(days, F_INT, 0),
	N(url, F_STR, 0),
	N(error, F_STR, 0),
};
#undef N

static const struct kind finding_kind = {
	"findings", sizeof(struct day_finding), finding_fields, ARRAY_SIZE(finding_fields)
};

#define C(name, type, flags) { #name, type, offsetof(struct day_checks, name), flags, NULL }
static const struct field checks_fields[] = {
	C(status, F_STR, F_ALWAYS),
	C(failure, F_STR, 0),
	C(commits, F_INT, F_ALWAYS),
	C(trees, F_INT, F_ALWAYS),
	C(seconds, F_REAL, F_ALWAYS),
	C(mainline, F_OBJECT, 0),
	C(stale_after, F_INT, F_ALWAYS),
	C(fetch_failed_after, F_INT, F_ALWAYS),
	{ "findings", F_LIST, offsetof(struct day_checks, findings), F_ALWAYS, &finding_kind },
};
#undef C

static const struct kind build_kind = {
	"build", sizeof(struct day_build), build_fields, ARRAY_SIZE(build_fields)
};
static const struct kind boot_kind = {
	"boot", sizeof(struct day_boot), boot_fields, ARRAY_SIZE(boot_fields)
};
static const struct kind bisect_kind = {
	"bisect", sizeof(struct day_bisect), bisect_fields, ARRAY_SIZE(bisect_fields)
};
static const struct kind moved_kind = {
	"moved", sizeof(struct day_moved), moved_fields, ARRAY_SIZE(moved_fields)
};
static const struct kind regression_kind = {
	"regression", sizeof(struct regression), regression_fields, ARRAY_SIZE(regression_fields)
};
static const struct kind checks_kind = {
	"checks", sizeof(struct day_checks), checks_fields, ARRAY_SIZE(checks_fields)
};

#define AT(rec, f, type) ((type *)((char *)(rec) + (f)->off))
#define CAT(rec, f, type) ((const type *)((const char *)(rec) + (f)->off))

static void *rec_new(const struct kind *k, int full)
{
	struct dayrec_head *h = xcalloc(1, k->size);
	size_t i;

	for (i = 0; full && i < k->nfields; i++)
		if (k->fields[i].flags & F_ALWAYS)
			h->have |= UINT64_C(1) << i;
	return h;
}

static void rec_free(const struct kind *k, void *rec)
{
	size_t i, j;

	if (!rec)
		return;
	for (i = 0; i < k->nfields; i++) {
		const struct field *f = &k->fields[i];

		if (f->type == F_STR) {
			free(*AT(rec, f, char *));
		} else if (f->type == F_ARRAY || f->type == F_OBJECT) {
			json_decref(*AT(rec, f, json_t *));
		} else if (f->type == F_LIST) {
			struct dayrec_list *l = AT(rec, f, struct dayrec_list);

			for (j = 0; j < l->n; j++)
				rec_free(f->sub, l->v[j]);
			free(l->v);
		}
	}
	json_decref(((struct dayrec_head *)rec)->extra);
	free(rec);
}

static json_t *rec_to_json(const struct kind *k, const void *rec);

static json_t *field_to_json(const void *rec, const struct field *f)
{
	switch (f->type) {
	case F_LIST: {
		const struct dayrec_list *l = CAT(rec, f, struct dayrec_list);
		json_t *a = json_array();
		size_t i;

		for (i = 0; i < l->n; i++)
			json_array_append_new(a, rec_to_json(f->sub, l->v[i]));
		return a;
	}
	case F_STR:
		return json_text(*CAT(rec, f, char *));
	case F_REAL:
		return json_real(*CAT(rec, f, double));
	case F_INT:
		return json_integer(*CAT(rec, f, long long));
	case F_BOOL:
		return json_boolean(*CAT(rec, f, int));
	default: {
		json_t *v = *(json_t *const *)((const char *)rec + f->off);

		return v ? json_incref(v) : json_null();
	}
	}
}

static int field_is_set(const void *rec, const struct field *f)
{
	if (f->type == F_STR)
		return *CAT(rec, f, char *) != NULL;
	if (f->type == F_ARRAY || f->type == F_OBJECT)
		return *CAT(rec, f, json_t *) != NULL;
	if (f->type == F_LIST)
		return CAT(rec, f, struct dayrec_list)->n > 0;
	return 0;
}

static json_t *rec_to_json(const struct kind *k, const void *rec)
{
	const struct dayrec_head *h = rec;
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < k->nfields; i++) {
		const struct field *f = &k->fields[i];

		if ((h->have & (UINT64_C(1) << i)) || field_is_set(rec, f))
			json_object_set_new(o, f->name, field_to_json(rec, f));
	}
	if (h->extra)
		json_object_update_missing(o, h->extra);
	return o;
}

static const char *const type_names[] = {
	[F_STR] = "a string", [F_REAL] = "a number", [F_INT] = "an integer",
	[F_BOOL] = "true or false", [F_ARRAY] = "a list", [F_OBJECT] = "an object",
	[F_LIST] = "a list of objects",
};

static int rec_from_json(void **out, const struct kind *k, const json_t *json, const char *what);

/*
 * Each element a record of the sub kind: 1, or 0 when the value is not a
 * list of objects, or -1 when an element has a key of the wrong type
 * (rec_from_json()'s message, which names it, is kept).
 */
static int list_from_json(void *rec, const struct field *f, const json_t *v, const char *what)
{
	struct dayrec_list *l = AT(rec, f, struct dayrec_list);
	const json_t *e;
	size_t i;

	if (json_is_null(v))
		return 1;
	if (!json_is_array(v))
		return 0;
	l->v = xcalloc(json_array_size(v) + 1, sizeof(*l->v));
	json_array_foreach(v, i, e) {
		if (!json_is_object(e))
			return 0;
		if (rec_from_json(&l->v[l->n], f->sub, e, what) < 0)
			return -1;
		l->n++;
	}
	return 1;
}

static int field_from_json(void *rec, const struct field *f, const json_t *v, const char *what)
{
	int ok;

	switch (f->type) {
	case F_LIST:
		ok = list_from_json(rec, f, v, what);
		break;
	case F_STR:
		if ((ok = json_is_string(v) || json_is_null(v)) && json_is_string(v))
			*AT(rec, f, char *) = xstrdup(json_string_value(v));
		break;
	case F_REAL:
		if ((ok = json_is_number(v)))
			*AT(rec, f, double) = json_number_value(v);
		break;
	case F_INT:
		if ((ok = json_is_integer(v)))
			*AT(rec, f, long long) = json_integer_value(v);
		break;
	case F_BOOL:
		if ((ok = json_is_boolean(v)))
			*AT(rec, f, int) = json_is_true(v);
		break;
	default:
		ok = json_is_null(v) || (f->type == F_ARRAY ? json_is_array(v) : json_is_object(v));
		if (ok && !json_is_null(v))
			*AT(rec, f, json_t *) = json_deep_copy(v);
		break;
	}
	return ok;
}

static int rec_from_json(void **out, const struct kind *k, const json_t *json, const char *what)
{
	struct dayrec_head *h;
	size_t i;
	int ok;

	*out = NULL;
	if (!json)
		return 0;
	if (!json_is_object(json))
		return tide_error_set(TIDE_EINVAL, "%s: \"%s\" is not an object", what, k->key);
	h = rec_new(k, 0);
	h->extra = json_deep_copy(json);
	for (i = 0; i < k->nfields; i++) {
		const struct field *f = &k->fields[i];
		const json_t *v = json_object_get(json, f->name);

		if (!v)
			continue;
		if ((ok = field_from_json(h, f, v, what)) < 0) {
			rec_free(k, h);
			return tide_error_code();
		}
		if (!ok) {
			rec_free(k, h);
			return tide_error_set(TIDE_EINVAL, "%s: \"%s\": \"%s\" is not %s",
					      what, k->key, f->name, type_names[f->type]);
		}
		h->have |= UINT64_C(1) << i;
		json_object_del(h->extra, f->name);
	}
	if (!json_object_size(h->extra)) {
		json_decref(h->extra);
		h->extra = NULL;
	}
	*out = h;
	return 0;
}

static void *rec_failed(const struct kind *k, const char *status, const char *failure)
{
	json_t *o = json_pack("{s:s, s:o}", "status", status, "failure", json_text(failure));
	void *rec = NULL;

	rec_from_json(&rec, k, o, k->key);
	json_decref(o);
	return rec;
}

static int rec_has(const struct kind *k, const void *rec, const char *key)
{
	const struct dayrec_head *h = rec;
	size_t i;

	for (i = 0; rec && i < k->nfields; i++)
		if (!strcmp(k->fields[i].name, key))
			return !!(h->have & (UINT64_C(1) << i));
	return 0;
}

char *dayrec_text(const char *s)
{
	struct buf b = BUF_INIT;

	if (!s)
		return NULL;
	utf8_lossy(&b, s, strlen(s));
	return buf_detach(&b);
}

/* key must be a field of k's table: a misspelt name is a bug, caught by the tests. */
static void rec_set_has(const struct kind *k, void *rec, const char *key)
{
	struct dayrec_head *h = rec;
	size_t i;

	for (i = 0; i < k->nfields; i++)
		if (!strcmp(k->fields[i].name, key)) {
			h->have |= UINT64_C(1) << i;
			return;
		}
	abort();
}

void day_build_set_has(struct day_build *b, const char *key) { rec_set_has(&build_kind, b, key); }
void day_moved_set_has(struct day_moved *m, const char *key) { rec_set_has(&moved_kind, m, key); }
void regression_set_has(struct regression *r, const char *key) { rec_set_has(&regression_kind, r, key); }
int day_moved_has(const struct day_moved *m, const char *key) { return rec_has(&moved_kind, m, key); }
int day_build_has(const struct day_build *b, const char *key) { return rec_has(&build_kind, b, key); }
int day_boot_has(const struct day_boot *b, const char *key) { return rec_has(&boot_kind, b, key); }
int day_bisect_has(const struct day_bisect *b, const char *key) { return rec_has(&bisect_kind, b, key); }

struct day_build *day_build_new(void) { return rec_new(&build_kind, 0); }
struct day_build *day_build_full(void) { return rec_new(&build_kind, 1); }
struct day_boot *day_boot_new(void) { return rec_new(&boot_kind, 0); }
struct day_boot *day_boot_full(void) { return rec_new(&boot_kind, 1); }
struct day_bisect *day_bisect_new(void) { return rec_new(&bisect_kind, 0); }
struct day_bisect *day_bisect_full(void) { return rec_new(&bisect_kind, 1); }
void day_build_free(struct day_build *b) { rec_free(&build_kind, b); }
void day_boot_free(struct day_boot *b) { rec_free(&boot_kind, b); }
void day_bisect_free(struct day_bisect *b) { rec_free(&bisect_kind, b); }
struct day_moved *day_moved_new(void) { return rec_new(&moved_kind, 1); }
struct regression *regression_new(void) { return rec_new(&regression_kind, 1); }
void day_moved_free(struct day_moved *m) { rec_free(&moved_kind, m); }
void regression_free(struct regression *r) { rec_free(&regression_kind, r); }

struct day_build *day_build_failed(const char *status, const char *failure)
{
	return rec_failed(&build_kind, status, failure);
}

struct day_boot *day_boot_failed(const char *status, const char *failure)
{
	return rec_failed(&boot_kind, status, failure);
}

json_t *day_build_to_json(const struct day_build *b) { return rec_to_json(&build_kind, b); }
json_t *day_boot_to_json(const struct day_boot *b) { return rec_to_json(&boot_kind, b); }
json_t *day_bisect_to_json(const struct day_bisect *b) { return rec_to_json(&bisect_kind, b); }
json_t *day_moved_to_json(const struct day_moved *m) { return rec_to_json(&moved_kind, m); }
json_t *regression_to_json(const struct regression *r) { return rec_to_json(&regression_kind, r); }

int day_build_from_json(struct day_build **out, const json_t *json, const char *what)
{
	return rec_from_json((void **)out, &build_kind, json, what);
}

int day_boot_from_json(struct day_boot **out, const json_t *json, const char *what)
{
	return rec_from_json((void **)out, &boot_kind, json, what);
}

int day_bisect_from_json(struct day_bisect **out, const json_t *json, const char *what)
{
	return rec_from_json((void **)out, &bisect_kind, json, what);
}

int day_moved_from_json(struct day_moved **out, const json_t *json, const char *what)
{
	return rec_from_json((void **)out, &moved_kind, json, what);
}

int regression_from_json(struct regression **out, const json_t *json, const char *what)
{
	return rec_from_json((void **)out, &regression_kind, json, what);
}

static void *rec_dup(const struct kind *k, const void *rec)
{
	json_t *j;
	void *copy = NULL;

	if (!rec)
		return NULL;
	j = rec_to_json(k, rec);
	rec_from_json(&copy, k, j, k->key);
	json_decref(j);
	return copy;
}

struct day_build *day_build_dup(const struct day_build *b) { return rec_dup(&build_kind, b); }
struct day_boot *day_boot_dup(const struct day_boot *b) { return rec_dup(&boot_kind, b); }
struct day_bisect *day_bisect_dup(const struct day_bisect *b) { return rec_dup(&bisect_kind, b); }
struct day_moved *day_moved_dup(const struct day_moved *m) { return rec_dup(&moved_kind, m); }
struct regression *regression_dup(const struct regression *r) { return rec_dup(&regression_kind, r); }

struct day_checks *day_checks_new(void) { return rec_new(&checks_kind, 1); }
void day_checks_free(struct day_checks *c) { rec_free(&checks_kind, c); }
struct day_finding *day_finding_new(void) { return rec_new(&finding_kind, 1); }
void day_finding_free(struct day_finding *f) { rec_free(&finding_kind, f); }
json_t *day_checks_to_json(const struct day_checks *c) { return rec_to_json(&checks_kind, c); }
json_t *day_finding_to_json(const struct day_finding *f) { return rec_to_json(&finding_kind, f); }
int day_checks_has(const struct day_checks *c, const char *key) { return rec_has(&checks_kind, c, key); }

int day_checks_from_json(struct day_checks **out, const json_t *json, const char *what)
{
	return rec_from_json((void **)out, &checks_kind, json, what);
}

int day_finding_from_json(struct day_finding **out, const json_t *json, const char *what)
{
	return rec_from_json((void **)out, &finding_kind, json, what);
}

void day_finding_set_has(struct day_finding *f, const char *key)
{
	rec_set_has(&finding_kind, f, key);
}

struct day_finding *day_finding_dup(const struct day_finding *f)
{
	return rec_dup(&finding_kind, f);
}

void day_checks_add(struct day_checks *c, struct day_finding *f)
{
	c->findings.v = xrealloc(c->findings.v, (c->findings.n + 1) * sizeof(*c->findings.v));
	c->findings.v[c->findings.n++] = f;
}
