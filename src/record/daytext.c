/*
 * The day's stage records as tide show prints them (dayrec.h): plain text
 * from the typed records; the commands print it.
 */
#include <string.h>

#include "buf.h"
#include "dayrec.h"
#include "text.h"

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
				   json_str_or(t, "name", "?"),
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
	kind = json_str_or(check, "kind", "?");
	/* --build's argument is its make target; the others' follow the option. */
	buf_printf(&b, "--%s%s%s", kind,
		   !json_is_string(json_object_get(check, "arg")) ? "" :
		   !strcmp(kind, "build") ? " --target " : " ",
		   json_str_or(check, "arg", ""));
	if (json_is_string(json_object_get(check, "config")))
		buf_printf(&b, " --config %s", json_str_or(check, "config", "?"));
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
			   !strcmp(json_str_or(rec->revert, "how", ""), "tree-left-out") ?
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

/* One line of a finding: kind, tree, commit, subject, then what is wrong. */
static void finding_line(struct buf *b, const struct day_finding *f)
{
	const json_t *t, *p;
	size_t i, j;

	buf_printf(b, "        %-12s %s", f->kind ? f->kind : "?", f->tree ? f->tree : "-");
	if (f->commit)
		buf_printf(b, " %.12s", f->commit);
	if (f->subject)
		buf_printf(b, " (\"%s\")", f->subject);
	if (f->since)
		buf_printf(b, " since %s", f->since);
	if (f->missing)
		buf_printf(b, ": no Signed-off-by of its %s", f->missing);
	if (f->other_tree)
		buf_printf(b, ": also %s%s%s as %.12s", strcmp(f->other_tree, "mainline") ? "in the " : "in ",
			   f->other_tree, strcmp(f->other_tree, "mainline") ? " tree" : "",
			   f->other_commit ? f->other_commit : "?");
	if (f->kind && !strcmp(f->kind, "stale"))
		buf_printf(b, ": last commit %s, %lld days ago", f->date ? f->date : "?", f->days);
	if (f->kind && !strcmp(f->kind, "fetch-failed"))
		buf_printf(b, ": %lld day%s in a row: %s", f->days, f->days == 1 ? "" : "s",
			   f->error ? f->error : "?");
	if (f->kind && !strcmp(f->kind, "empty"))
		buf_puts(b, ": changes nothing");
	if (f->kind && !strcmp(f->kind, "merge-only"))
		buf_puts(b, ": only merges beyond mainline");
	if (f->tags_total > CHECKS_MAX_FIXES)
		buf_printf(b, ": %lld Fixes: tags, the first %d checked", f->tags_total,
			   CHECKS_MAX_FIXES);
	buf_putc(b, '\n');
	json_array_foreach(f->tags, i, t) {
		buf_printf(b, "          %s:", json_str_or(t, "tag", "?"));
		json_array_foreach(json_object_get(t, "problems"), j, p)
			buf_printf(b, "%s %s", j ? "," : "", json_string_value(p) ? json_string_value(p) : "?");
		buf_putc(b, '\n');
	}
}

void day_checks_shortstat(struct buf *out, const json_t *mainline)
{
	long long f = json_integer_value(json_object_get(mainline, "files"));
	long long i = json_integer_value(json_object_get(mainline, "insertions"));
	long long d = json_integer_value(json_object_get(mainline, "deletions"));

	if (!f) {
		buf_puts(out, "0 files changed");
		return;
	}
	buf_printf(out, "%lld file%s changed", f, f == 1 ? "" : "s");
	if (i || !d)
		buf_printf(out, ", %lld insertion%s(+)", i, i == 1 ? "" : "s");
	if (d || !i)
		buf_printf(out, ", %lld deletion%s(-)", d, d == 1 ? "" : "s");
}

char *day_checks_text(const struct day_checks *c)
{
	struct buf b = BUF_INIT;
	size_t i;

	if (!c)
		return NULL;
	buf_printf(&b, "checks  %s", c->status ? c->status : "?");
	if (c->failure)
		buf_printf(&b, " (%s)", c->failure);
	buf_printf(&b, ": %lld new commit%s in %lld tree%s, %zu finding%s in %.1f s\n", c->commits,
		   c->commits == 1 ? "" : "s", c->trees, c->trees == 1 ? "" : "s", c->findings.n,
		   c->findings.n == 1 ? "" : "s", c->seconds);
	if (c->mainline) {
		json_int_t n = json_integer_value(json_object_get(c->mainline, "commits"));

		buf_printf(&b, "        against the base: %lld non-merge commit%s", (long long)n,
			   n == 1 ? "" : "s");
		if (json_object_get(c->mainline, "files")) {
			buf_puts(&b, ", ");
			day_checks_shortstat(&b, c->mainline);
		}
		buf_putc(&b, '\n');
	}
	for (i = 0; i < c->findings.n; i++)
		finding_line(&b, c->findings.v[i]);
	return buf_detach(&b);
}

static void summary_distcc_hosts(struct buf *b, const json_t *hosts, const char *key,
				 const char *what)
{
	const json_t *h;
	size_t i;
	int first = 1;

	json_array_foreach(hosts, i, h) {
		json_int_t n = json_integer_value(json_object_get(h, key));

		if (!n)
			continue;
		buf_printf(b, "%s%s %lld%s", first ? " (" : ", ",
			   json_string_value(json_object_get(h, "host")) ?: "?", (long long)n,
			   what);
		first = 0;
	}
	if (!first)
		buf_putc(b, ')');
}

void build_farm_summary(struct buf *b, const json_t *cs, const json_t *dc, const char *remote,
			const char *indent)
{
#define N(o, k) ((long long)json_integer_value(json_object_get(o, k)))
	if (cs) {
		buf_printf(b, "%sccache: %lld hits (%lld local, %lld remote), %lld misses, "
			   "%lld uncacheable", indent, N(cs, "local_hits") + N(cs, "remote_hits"),
			   N(cs, "local_hits"), N(cs, "remote_hits"), N(cs, "misses"),
			   N(cs, "uncacheable"));
		if (N(cs, "remote_errors"))
			buf_printf(b, ", %lld remote errors", N(cs, "remote_errors"));
		if (remote)
			buf_printf(b, "; shared cache %s", remote);
		buf_putc(b, '\n');
	}
	if (dc) {
		const json_t *hosts = json_object_get(dc, "hosts");

		if (!N(dc, "remote") && N(dc, "fallbacks"))
			buf_printf(b, "%sdistcc: no host answered, %lld compiles ran here", indent,
				   N(dc, "local"));
		else
			buf_printf(b, "%sdistcc: %lld compiles on hosts, %lld here (%lld fallbacks)",
				   indent, N(dc, "remote"), N(dc, "local"), N(dc, "fallbacks"));
		summary_distcc_hosts(b, hosts, "compiles", "");
		summary_distcc_hosts(b, hosts, "failures", " failed");
		buf_putc(b, '\n');
	}
#undef N
}
