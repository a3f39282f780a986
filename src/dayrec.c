#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "dayrec.h"
#include "error.h"
#include "text.h"
#include "util.h"

enum field_type { F_STR, F_REAL, F_INT, F_BOOL, F_ARRAY, F_OBJECT };

/* F_ALWAYS: a complete record has the key (JSON null when the value is NULL). */
#define F_ALWAYS 1

struct field {
	const char *name;
	enum field_type type;
	size_t off;
	unsigned flags;
};

struct kind {
	const char *key;	/* the record's key in day.json */
	size_t size;
	const struct field *fields;
	size_t nfields;
};

#define B(name, type, flags) { #name, type, offsetof(struct day_build, name), flags }
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

#define O(name, type, flags) { #name, type, offsetof(struct day_boot, name), flags }
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
};
#undef O

#define S(name, type, flags) { #name, type, offsetof(struct day_bisect, name), flags }
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
};
#undef S

static const struct kind build_kind = {
	"build", sizeof(struct day_build), build_fields, ARRAY_SIZE(build_fields)
};
static const struct kind boot_kind = {
	"boot", sizeof(struct day_boot), boot_fields, ARRAY_SIZE(boot_fields)
};
static const struct kind bisect_kind = {
	"bisect", sizeof(struct day_bisect), bisect_fields, ARRAY_SIZE(bisect_fields)
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
	size_t i;

	if (!rec)
		return;
	for (i = 0; i < k->nfields; i++) {
		const struct field *f = &k->fields[i];

		if (f->type == F_STR)
			free(*AT(rec, f, char *));
		else if (f->type == F_ARRAY || f->type == F_OBJECT)
			json_decref(*AT(rec, f, json_t *));
	}
	json_decref(((struct dayrec_head *)rec)->extra);
	free(rec);
}

static json_t *field_to_json(const void *rec, const struct field *f)
{
	switch (f->type) {
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
};

static int field_from_json(void *rec, const struct field *f, const json_t *v)
{
	int ok;

	switch (f->type) {
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
		if (!field_from_json(h, f, v)) {
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
