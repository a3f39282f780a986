/*
 * The day's stage records as tide show prints them (dayrec.h): plain text
 * from the typed records; the commands print it.
 */
#include <string.h>

#include "buf.h"
#include "build.h"
#include "dayrec.h"

static const char *jstr(const json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : dflt;
}

static void summary_diag(struct buf *b, const char *what, const json_t *d)
{
	const char *file = json_string_value(json_object_get(d, "file"));
	const char *tree = json_string_value(json_object_get(d, "tree"));
	json_int_t line = json_integer_value(json_object_get(d, "line"));

	buf_printf(b, "        %s: ", what);
	if (file && line)
		buf_printf(b, "%s:%lld: ", file, (long long)line);
	else if (file)
		buf_printf(b, "%s: ", file);
	buf_puts(b, json_string_value(json_object_get(d, "message")) ?: "");
	if (tree)
		buf_printf(b, " (%s)", tree);
	buf_putc(b, '\n');
}

char *day_build_text(const struct day_build *rec)
{
	struct buf b = BUF_INIT;
	const json_t *v;
	size_t i;

	if (!rec)
		return NULL;
	buf_puts(&b, "build   ");
	if (rec->config)
		buf_printf(&b, "[%s %s] ", rec->config, rec->arch ? rec->arch : "?");
	buf_printf(&b, "%s", rec->status ? rec->status : "?");
	if (rec->failure)
		buf_printf(&b, ": %s", rec->failure);
	if (day_build_has(rec, "seconds"))
		buf_printf(&b, " in %.0f s, %zu warnings, %zu new", rec->seconds,
			   json_array_size(rec->warnings), json_array_size(rec->new_warnings));
	buf_putc(&b, '\n');
	build_farm_summary(&b, rec->ccache_stats, rec->distcc, rec->remote_cache, "        ");
	json_array_foreach(rec->errors, i, v)
		if (i < 5)
			summary_diag(&b, "error", v);
	json_array_foreach(rec->new_warnings, i, v)
		summary_diag(&b, "new warning", v);
	return buf_detach(&b);
}

char *day_boot_text(const struct day_boot *rec, const char *config)
{
	const char *why;
	const json_t *t;
	struct buf b = BUF_INIT;
	size_t i;

	if (!rec)
		return NULL;
	why = rec->reason ? rec->reason : rec->failure;
	buf_puts(&b, "boot    ");
	if (config)
		buf_printf(&b, "[%s] ", config);
	buf_printf(&b, "%s", rec->status ? rec->status : "?");
	if (why)
		buf_printf(&b, ": %s", why);
	if (day_boot_has(rec, "seconds"))
		buf_printf(&b, " in %.1f s", rec->seconds);
	if (rec->counts)
		buf_printf(&b, ", %lld passed, %lld failed, %lld skipped",
			   (long long)json_integer_value(json_object_get(rec->counts, "pass")),
			   (long long)json_integer_value(json_object_get(rec->counts, "fail")),
			   (long long)json_integer_value(json_object_get(rec->counts, "skip")));
	buf_putc(&b, '\n');
	/* Several KTAP documents (the kernel's KUnit, the guest's): each one's counts. */
	if (json_array_size(rec->documents) > 1)
		json_array_foreach(rec->documents, i, t) {
			const json_t *c = json_object_get(t, "counts");

			buf_printf(&b, "        %s KTAP: %lld passed, %lld failed, %lld skipped\n",
				   jstr(t, "name", "?"),
				   (long long)json_integer_value(json_object_get(c, "pass")),
				   (long long)json_integer_value(json_object_get(c, "fail")),
				   (long long)json_integer_value(json_object_get(c, "skip")));
		}
	json_array_foreach(rec->tests, i, t)
		if (json_is_false(json_object_get(t, "ok")))
			buf_printf(&b, "        not ok: %s\n",
				   json_string_value(json_object_get(t, "name")) ?: "?");
	/* Retried because tests failed: how many boots, and what failed on one only. */
	if (json_array_size(rec->attempts))
		buf_printf(&b, "        %zu boots: the tests failed on the first %zu\n",
			   json_array_size(rec->attempts) + 1, json_array_size(rec->attempts));
	json_array_foreach(rec->flaky, i, t)
		buf_printf(&b, "        flaky: %s (failed on one boot, passed on another)\n",
			   json_string_value(t) ?: "?");
	return buf_detach(&b);
}

char *day_bisect_text(const struct day_bisect *rec)
{
	const json_t *check;
	const char *kind;
	struct buf b = BUF_INIT;

	if (!rec)
		return NULL;
	check = rec->check;
	kind = jstr(check, "kind", "?");
	/* --build's argument is its make target; the others' follow the option. */
	buf_printf(&b, "--%s%s%s", kind,
		   !json_is_string(json_object_get(check, "arg")) ? "" :
		   !strcmp(kind, "build") ? " --target " : " ",
		   jstr(check, "arg", ""));
	if (json_is_string(json_object_get(check, "config")))
		buf_printf(&b, " --config %s", jstr(check, "config", "?"));
	if (day_bisect_has(rec, "since"))
		buf_printf(&b, " --since %s", rec->since ? rec->since : "?");
	buf_printf(&b, ": %s", rec->outcome ? rec->outcome : "?");
	if (rec->tree)
		buf_printf(&b, " %s", rec->tree);
	if (rec->commit)
		buf_printf(&b, " %.12s \"%s\"", rec->commit, rec->subject ? rec->subject : "");
	if (day_bisect_has(rec, "conflicts_with"))
		buf_printf(&b, " with %s", rec->conflicts_with ? rec->conflicts_with : "?");
	if (json_array_size(rec->dropped))
		buf_printf(&b, " (dropped)");
	if (rec->revert) {
		const json_t *c = json_object_get(rec->revert, "confirmed");

		buf_printf(&b, json_is_true(c) ? ", confirmed by %s" : json_is_false(c) ?
			   ", not confirmed by %s (the day still fails)" : ", %s untested",
			   !strcmp(jstr(rec->revert, "how", ""), "tree-left-out") ?
			   "leaving its tree out" : "revert");
	}
	/* Records before "steps_done" counted every step as a build. */
	if (day_bisect_has(rec, "steps_done"))
		buf_printf(&b, " (%lld steps, %lld builds, %.0fs)", rec->steps_done, rec->builds,
			   rec->seconds);
	else
		buf_printf(&b, " (%lld builds, %.0fs)", rec->builds, rec->seconds);
	return buf_detach(&b);
}
