/* The static HTML dashboard (dashboard.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "dashboard.h"
#include "day.h"
#include "error.h"
#include "regress.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

struct dash {
	const char *wsdir;
	const char *out;
	char *days_dir;		/* DIR/days */
	char *days_href;	/* DIR/days relative to out, URL-escaped */
	char **dates;
	struct day **days;	/* NULL where the record could not be read */
	size_t ndates;
	const char **trees;	/* names, newest day's merge order first */
	size_t ntrees, trees_alloc;
	struct regress_list *regs;	/* DIR/regressions.json, or NULL */
	int ever_built;		/* some day has a build: a day without one says so */
	struct dashboard_result *res;
};

/* ---- escaping and names ---- */

void html_escape(struct buf *out, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': buf_puts(out, "&amp;"); break;
		case '<': buf_puts(out, "&lt;"); break;
		case '>': buf_puts(out, "&gt;"); break;
		case '"': buf_puts(out, "&quot;"); break;
		case '\'': buf_puts(out, "&#39;"); break;
		default:
			if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
				buf_puts(out, "&#xFFFD;");
			else
				buf_putc(out, (char)c);
		}
	}
}

static int url_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

void url_path_escape(struct buf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (url_safe(c) || c == '/')
			buf_putc(out, (char)c);
		else
			buf_printf(out, "%%%02X", c);
	}
}

/* name in file names and anchors: A-Z a-z 0-9 - . as they are, the rest _XX. */
static void name_encode(struct buf *out, const char *name)
{
	for (; *name; name++) {
		unsigned char c = (unsigned char)*name;

		if (url_safe(c) && c != '_' && c != '~')
			buf_putc(out, (char)c);
		else
			buf_printf(out, "_%02X", c);
	}
}

char *dashboard_page_name(const char *prefix, const char *name)
{
	struct buf b = BUF_INIT;

	buf_puts(&b, prefix);
	name_encode(&b, name);
	buf_puts(&b, ".html");
	return buf_detach(&b);
}

char *path_relative(const char *from, const char *to)
{
	struct buf b = BUF_INIT;
	size_t common = 0, i;

	/* The longest common prefix that ends at a component boundary. */
	for (i = 0; from[i] && from[i] == to[i]; i++)
		if (from[i] == '/')
			common = i;
	if (!from[i] && (to[i] == '/' || !to[i]))
		common = i;
	else if (!to[i] && from[i] == '/')
		common = i;
	for (i = common; from[i]; i++)
		if (from[i] == '/' && from[i + 1])
			buf_puts(&b, "../");
	if (to[common] == '/')
		buf_puts(&b, to + common + 1);
	else
		buf_puts(&b, to + common);
	if (!b.len)
		buf_putc(&b, '.');
	else if (b.ptr[b.len - 1] == '/')
		buf_truncate(&b, b.len - 1);
	return buf_detach(&b);
}

/* ---- reading the days ---- */

static void add_tree(struct dash *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->ntrees; i++)
		if (!strcmp(d->trees[i], name))
			return;
	array_grow(&d->trees, &d->trees_alloc, d->ntrees + 1, sizeof(*d->trees));
	d->trees[d->ntrees++] = name;
}

static void note_unreadable(struct dash *d, const char *path)
{
	d->res->unreadable++;
	if (!d->res->first_unreadable)
		d->res->first_unreadable = xasprintf("%s: %s", path, tide_error_last());
	tide_error_clear();
}

static int load_days(struct dash *d)
{
	size_t i;
	int n;

	d->days_dir = workspace_days_dir(d->wsdir);
	if ((n = day_list(&d->dates, d->days_dir)) < 0)
		return n;
	if (n == 0)
		return tide_error_set(TIDE_ENOTFOUND, "no day in workspace '%s' yet", d->wsdir);
	d->ndates = (size_t)n;
	d->days = xcalloc(d->ndates, sizeof(*d->days));
	for (i = 0; i < d->ndates; i++) {
		char *path = workspace_day_json_in(d->days_dir, d->dates[i]);

		if (day_open(&d->days[i], d->days_dir, d->dates[i]) < 0)
			note_unreadable(d, path);
		else
			d->res->days++;
		free(path);
	}
	for (i = 0; i < d->ndates; i++)
		d->ever_built |= d->days[i] && (d->days[i]->build || d->days[i]->boot);
	if (regress_load(&d->regs, d->wsdir) < 0) {
		d->res->regressions_unreadable = xstrdup(tide_error_last());
		tide_error_clear();
	}
	/* Rows in the newest day's merge order, then trees only older days had. */
	for (i = d->ndates; i-- > 0;) {
		size_t j;

		for (j = 0; d->days[i] && j < d->days[i]->ntrees; j++)
			add_tree(d, d->days[i]->trees[j].name);
	}
	d->res->trees = d->ntrees;
	return 0;
}

static const struct day_tree *tree_on(const struct dash *d, size_t day, const char *name)
{
	return d->days[day] ? day_find_tree(d->days[day], name) : NULL;
}

/* The nearest earlier day that has a readable record, or -1. */
static long prev_day(const struct dash *d, size_t day)
{
	while (day-- > 0)
		if (d->days[day])
			return (long)day;
	return -1;
}

/* ---- fields of the records ---- */

/* A CSS class for a status word from a record: [a-z-] only, else "other". */
static void status_class(struct buf *out, const char *prefix, const char *status)
{
	const char *p;

	buf_puts(out, prefix);
	for (p = status; p && *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || *p == '-'))
			break;
	buf_puts(out, status && *status && !*p ? status : "other");
}

/* The trees whose commits are on the ours side of t's conflicts, as changes.c names them. */
static void conflicting_trees(struct buf *out, const struct day_tree *t)
{
	const char *names[16];
	size_t n, i;

	n = day_tree_conflicts_with(t, names, ARRAY_SIZE(names));
	for (i = 0; i < n; i++)
		buf_printf(out, "%s%s", i ? ", " : "", names[i]);
}

/* t has the commit and the status it had on the day before (the nearest readable one). */
static int unchanged_since(const struct dash *d, size_t day, const struct day_tree *t)
{
	long p = prev_day(d, day);
	const struct day_tree *pt = p < 0 ? NULL : tree_on(d, (size_t)p, t->name);

	return pt && t->sha && pt->sha && !strcmp(t->sha, pt->sha) && pt->status &&
	       pt->status == t->status;
}

/*
 * How the tree's tip moved since the day before (the record's "moved"):
 * forward by N commits, or rebased / rewound with its own commits by
 * patch id.
 */
static void moved_note(struct buf *out, const struct day_moved *m)
{
	const char *sep = out->len ? "; " : "";

	if (!m)
		return;
	if (!m->rewound) {
		buf_printf(out, "%s+%lld commit%s", sep, m->ahead, m->ahead == 1 ? "" : "s");
		return;
	}
	if (!day_moved_has(m, "dropped")) {
		buf_printf(out, "%srewound: %lld dropped, %lld new", sep, m->behind, m->ahead);
		return;
	}
	buf_printf(out, "%s%s: %lld dropped, %lld rebased, %lld new", sep,
		   m->rebased ? "rebased" : "rewound", m->dropped, m->rebased, m->added);
}

/* One line under the status: why a tree is how it is. */
static void tree_note(struct buf *out, const struct dash *d, size_t day, const struct day_tree *t)
{
	struct buf with = BUF_INIT;
	const char *handled = t->handling.handled, *from = t->handling.version_from;

	conflicting_trees(&with, t);
	if (t->nconflicts && handled && !strcmp(handled, "recorded"))
		buf_printf(out, "resolved conflict with %s", with.len ? buf_cstr(&with) : "mainline");
	else if (t->nconflicts)
		/* Conflicts of a tree that is in the day: at an earlier version. */
		buf_printf(out, "%swith %s", tree_status_in_day(t->status) ? "conflict " : "",
			   with.len ? buf_cstr(&with) : "mainline");
	else if (t->handling.reason)
		buf_puts(out, t->handling.reason);
	if (from)
		buf_printf(out, "%sversion of %s", out->len ? "; " : "", from);
	if (t->handling.rejected)
		buf_printf(out, "%srefused by fsck", out->len ? "; " : "");
	if (t->fetch_status && !strcmp(t->fetch_status, "stale"))
		buf_printf(out, "%sfetch failed, older commit", out->len ? "; " : "");
	if (t->handling.fixup_error)
		buf_printf(out, "%sfixup failed", out->len ? "; " : "");
	else if (t->handling.nfixups)
		buf_printf(out, "%sfixed up", out->len ? "; " : "");
	if (t->build && strcmp(t->build->status ? t->build->status : "", "ok"))
		buf_printf(out, "%sits build failed", out->len ? "; " : "");
	moved_note(out, t->moved);
	if (!out->len && unchanged_since(d, day, t))
		buf_puts(out, "unchanged");
	buf_release(&with);
}

/* ---- page frame ---- */

static void page_begin(struct buf *p, const char *title)
{
	buf_puts(p, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		 "<meta name=\"generator\" content=\"tide\">\n<title>");
	html_escape(p, title);
	buf_puts(p, "</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n"
		 "<nav><a href=\"index.html\">tide dashboard</a></nav>\n<h1>");
	html_escape(p, title);
	buf_puts(p, "</h1>\n");
}

static void page_end(struct buf *p)
{
	buf_puts(p, "</body>\n</html>\n");
}

/* Write one page atomically; a page that did not change is left alone (no fsync per old day). */
static int page_write(struct dash *d, const char *name, struct buf *p)
{
	char *path = path_join(d->out, name);
	struct buf old = BUF_INIT;
	int error = 0;

	if (file_read(&old, path) < 0 || old.len != p->len || memcmp(buf_cstr(&old), buf_cstr(p), p->len))
		error = file_write_atomic(path, buf_cstr(p), p->len);
	if (!error) {
		tide_error_clear();	/* file_read() of a page not there yet */
		d->res->pages++;
	}
	buf_release(&old);
	free(path);
	buf_clear(p);
	return error;
}

/* A link to days/DATE/file when the day has that file; nothing when it has not. */
static void day_file_link(struct buf *p, const struct dash *d, const char *date,
			  const char *file, const char *text)
{
	char *path = xasprintf("%s/%s/%s", d->days_dir, date, file);

	if (path_exists(path)) {
		buf_printf(p, "<a href=\"%s/%s/", d->days_href, date);
		url_path_escape(p, file);
		buf_puts(p, "\">");
		html_escape(p, text);
		buf_puts(p, "</a>");
	}
	free(path);
}

/* A file name a record names (build.log, console.log): one plain component. */
static const char *plain_name(const char *name, const char *fallback)
{
	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return fallback;
	return name;
}

static void page_link(struct buf *p, const char *prefix, const char *name, const char *anchor)
{
	char *page = dashboard_page_name(prefix, name);

	buf_printf(p, "<a href=\"%s%s\">", page, anchor ? anchor : "");
	html_escape(p, name);
	buf_puts(p, "</a>");
	free(page);
}

/* ---- stages ---- */

/* A stage's time, when its record has one. */
static void seconds(struct buf *p, int have, double v)
{
	if (have)
		buf_printf(p, " <span class=\"time\">%.1f s</span>", v);
}

/* The build in a few words: status, time, new warnings. */
static void build_brief(struct buf *p, const struct day_build *b)
{
	size_t nw;

	if (!b) {
		buf_puts(p, "<span class=\"none\">no build</span>");
		return;
	}
	buf_puts(p, "<span class=\"");
	status_class(p, "stage-", b->status);
	buf_puts(p, "\">build ");
	html_escape(p, b->status ? b->status : "?");
	buf_puts(p, "</span>");
	seconds(p, day_build_has(b, "seconds"), b->seconds);
	if ((nw = json_array_size(b->new_warnings)))
		buf_printf(p, " <span class=\"warn\">%zu new warning%s</span>", nw, nw == 1 ? "" : "s");
}

static void boot_brief(struct buf *p, const struct day_boot *b)
{
	const json_t *counts = b ? b->counts : NULL;

	if (!b) {
		buf_puts(p, "<span class=\"none\">no boot</span>");
		return;
	}
	buf_puts(p, "<span class=\"");
	status_class(p, "stage-", b->status);
	buf_puts(p, "\">boot ");
	html_escape(p, b->status ? b->status : "?");
	buf_puts(p, "</span>");
	seconds(p, day_boot_has(b, "seconds"), b->seconds);
	if (json_is_object(counts))
		buf_printf(p, " <span class=\"counts\">%lld passed, %lld failed, %lld skipped</span>",
			   (long long)json_integer_value(json_object_get(counts, "pass")),
			   (long long)json_integer_value(json_object_get(counts, "fail")),
			   (long long)json_integer_value(json_object_get(counts, "skip")));
}

static void bisect_brief(struct buf *p, const struct day_bisect *b)
{
	if (!b)
		return;
	buf_puts(p, "<span class=\"bisect\">bisect ");
	html_escape(p, b->outcome ? b->outcome : "?");
	if (b->tree) {
		buf_puts(p, ": ");
		html_escape(p, b->tree);
	}
	buf_puts(p, "</span>");
}

/* Whether tree has a page (tree-NAME.html): one of the index's trees. */
static int has_tree_page(const struct dash *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->ntrees; i++)
		if (!strcmp(d->trees[i], name))
			return 1;
	return 0;
}

static void diag_item(struct buf *p, const struct dash *d, const json_t *v)
{
	json_int_t line = json_integer_value(json_object_get(v, "line"));

	buf_puts(p, "<li><code>");
	if (json_str(v, "file")) {
		html_escape(p, json_str(v, "file"));
		if (line)
			buf_printf(p, ":%lld", (long long)line);
		buf_puts(p, ": ");
	}
	html_escape(p, json_str(v, "message"));
	buf_puts(p, "</code>");
	if (json_str(v, "tree")) {
		/* "mainline" (the base's own files) and the like have no page. */
		buf_puts(p, " (");
		if (has_tree_page(d, json_str(v, "tree")))
			page_link(p, "tree-", json_str(v, "tree"), NULL);
		else
			html_escape(p, json_str(v, "tree"));
		buf_puts(p, ")");
	}
	buf_puts(p, "</li>\n");
}

static void diag_list(struct buf *p, const struct dash *d, int level, const char *title,
		      const json_t *list, size_t max)
{
	const json_t *v;
	size_t i;

	if (!json_array_size(list))
		return;
	buf_printf(p, "<h%d>%s (%zu)</h%d>\n<ul class=\"diags\">\n", level, title,
		   json_array_size(list), level);
	json_array_foreach(list, i, v)
		if (i < max)
			diag_item(p, d, v);
	if (json_array_size(list) > max)
		buf_printf(p, "<li>... %zu more in the log</li>\n", json_array_size(list) - max);
	buf_puts(p, "</ul>\n");
}

/*
 * A build's line, its errors and new warnings; level: the lists' heading
 * level; dflt: its log when the record names none (NULL: no link).
 */
static void build_body(struct buf *p, const struct dash *d, const char *date,
		       const struct day_build *b, int level, const char *dflt)
{
	const char *log = plain_name(b->log, dflt);

	buf_puts(p, "<p>");
	build_brief(p, b);
	if (b->failure) {
		buf_puts(p, ": ");
		html_escape(p, b->failure);
	}
	if (day_build_has(b, "make_seconds"))
		buf_printf(p, "; make %.1f s", b->make_seconds);
	if (day_build_has(b, "jobs"))
		buf_printf(p, ", -j%lld", b->jobs);
	if (day_build_has(b, "warnings"))
		buf_printf(p, "; %zu warning%s", json_array_size(b->warnings),
			   json_array_size(b->warnings) == 1 ? "" : "s");
	buf_puts(p, ". ");
	if (log)
		day_file_link(p, d, date, log, "build log");
	buf_puts(p, "</p>\n");
	diag_list(p, d, level, "Errors", b->errors, 10);
	diag_list(p, d, level, "New warnings", b->new_warnings, 50);
}

static void build_section(struct buf *p, const struct dash *d, const struct day *day)
{
	buf_puts(p, "<section id=\"build\">\n<h2>Build</h2>\n");
	if (day->build && day->build->config && day->nconfigs) {
		buf_puts(p, "<p>Configuration <code>");
		html_escape(p, day->build->config);
		buf_puts(p, "</code>, the day's own; the others are under Configurations.</p>\n");
	}
	if (!day->build)
		buf_puts(p, "<p class=\"none\">This day was not built.</p>\n");
	else
		build_body(p, d, day->date, day->build, 3, "build.log");
	buf_puts(p, "</section>\n");
}

static void failed_tests(struct buf *p, const struct day_boot *b, int level)
{
	const json_t *t, *v;
	size_t i, j, n = 0;

	json_array_foreach(b->tests, i, t) {
		if (!json_is_false(json_object_get(t, "ok")))
			continue;
		if (!n++)
			buf_printf(p, "<h%d>Failed tests</h%d>\n<ul class=\"diags\">\n", level,
				   level);
		buf_puts(p, "<li><code>");
		html_escape(p, json_str(t, "name") ? json_str(t, "name") : "?");
		buf_puts(p, "</code>");
		json_array_foreach(json_object_get(t, "diagnostics"), j, v)
			if (j < 5 && json_is_string(v)) {
				buf_puts(p, "<br><small>");
				html_escape(p, json_string_value(v));
				buf_puts(p, "</small>");
			}
		buf_puts(p, "</li>\n");
	}
	if (n)
		buf_puts(p, "</ul>\n");
}

/* A boot's line and its failed tests; level and dflt as build_body()'s. */
static void boot_body(struct buf *p, const struct dash *d, const char *date,
		      const struct day_boot *b, int level, const char *dflt)
{
	const char *console = plain_name(b->console, dflt);
	const char *why;
	const json_t *v;
	size_t i;

	buf_puts(p, "<p>");
	boot_brief(p, b);
	why = b->reason ? b->reason : b->failure;
	if (why) {
		buf_puts(p, ": ");
		html_escape(p, why);
	}
	if (b->accel)
		buf_puts(p, "; QEMU ");
	html_escape(p, b->accel);
	if (day_boot_has(b, "smp"))
		buf_printf(p, ", %lld CPUs", b->smp);
	if (json_array_size(b->attempts))
		buf_printf(p, "; booted %zu times, the tests failing on the first %zu",
			   json_array_size(b->attempts) + 1, json_array_size(b->attempts));
	json_array_foreach(b->flaky, i, v) {
		buf_puts(p, i ? ", " : "; flaky: ");
		html_escape(p, json_string_value(v));
	}
	buf_puts(p, ". ");
	if (console)
		day_file_link(p, d, date, console, "console log");
	buf_puts(p, "</p>\n");
	failed_tests(p, b, level);
}

static void boot_section(struct buf *p, const struct dash *d, const struct day *day)
{
	buf_puts(p, "<section id=\"boot\">\n<h2>Boot</h2>\n");
	if (!day->boot)
		buf_puts(p, "<p class=\"none\">This day was not booted.</p>\n");
	else
		boot_body(p, d, day->date, day->boot, 3, "console.log");
	buf_puts(p, "</section>\n");
}

/*
 * The day's other configurations (trees.conf's build matrix): each with
 * its arch, its build and, when it was booted, its boot.
 */
static void configs_section(struct buf *p, const struct dash *d, const struct day *day)
{
	size_t i;

	if (!day->nconfigs)
		return;
	buf_puts(p, "<section id=\"configs\">\n<h2>Configurations</h2>\n");
	for (i = 0; i < day->nconfigs; i++) {
		const struct day_config *c = &day->configs[i];

		buf_puts(p, "<div class=\"config\" data-config=\"");
		html_escape(p, c->name);
		buf_puts(p, "\">\n<h3><code>");
		html_escape(p, c->name);
		buf_puts(p, "</code>");
		if (c->build && c->build->arch) {
			buf_puts(p, " (");
			html_escape(p, c->build->arch);
			buf_puts(p, ")");
		}
		buf_puts(p, "</h3>\n");
		if (c->build)
			build_body(p, d, day->date, c->build, 4, NULL);
		else
			buf_puts(p, "<p class=\"none\">not built</p>\n");
		if (c->boot)
			boot_body(p, d, day->date, c->boot, 4, NULL);
		buf_puts(p, "</div>\n");
	}
	buf_puts(p, "</section>\n");
}

static void bisect_section(struct buf *p, const struct day *day)
{
	const struct day_bisect *b = day->bisect;
	char *summary;

	if (!b)
		return;
	summary = day_bisect_text(b);
	buf_puts(p, "<section id=\"bisect\">\n<h2>Bisect</h2>\n<p>");
	bisect_brief(p, b);
	buf_puts(p, "</p>\n<pre>");
	html_escape(p, summary);
	buf_puts(p, "</pre>\n</section>\n");
	free(summary);
}

/* ---- totals and problems ---- */

/* n/m of the day's builds (its own and its configurations') that went ok. */
static void stage_total(struct buf *p, const char *what, const char *good, size_t ok, size_t n,
			const char *one)
{
	if (!n)
		return;
	buf_printf(p, " <span class=\"total %s\">", what);
	if (n == 1)
		html_escape(p, one);
	else
		buf_printf(p, "%zu/%zu %ss %s", ok, n, what, good);
	buf_puts(p, "</span>");
}

static int is_conflicted(const struct day_tree *t)
{
	return t->nconflicts > 0 || t->status == TREE_CONFLICT;
}

/* merged, conflicts, left out; build and boot results: a day in a few words. */
static void day_totals(struct buf *p, const struct day *day)
{
	struct day_counts c;
	size_t i, conflicts = 0, builds = 0, built = 0, boots = 0, booted = 0;
	struct buf one_build = BUF_INIT, one_boot = BUF_INIT;

	day_counts(&c, day);
	for (i = 0; i < day->ntrees; i++)
		conflicts += is_conflicted(&day->trees[i]);
	buf_printf(p, "<span class=\"total merged\">%zu/%zu merged</span>", c.merged, c.trees);
	if (conflicts)
		buf_printf(p, " <span class=\"total conflicts\">%zu conflict%s</span>", conflicts,
			   conflicts == 1 ? "" : "s");
	if (c.conflicts + c.not_merged)
		buf_printf(p, " <span class=\"total left-out\">%zu left out</span>",
			   c.conflicts + c.not_merged);
	for (i = 0; i <= day->nconfigs; i++) {
		const struct day_build *b = i ? day->configs[i - 1].build : day->build;
		const struct day_boot *t = i ? day->configs[i - 1].boot : day->boot;

		if (b && !builds++)
			buf_printf(&one_build, "build %s", b->status ? b->status : "?");
		built += b && b->status && !strcmp(b->status, "ok");
		if (t && t->status && strcmp(t->status, "skipped") && !boots++)
			buf_printf(&one_boot, "boot %s", t->status);
		booted += t && t->status && !strcmp(t->status, "passed");
	}
	stage_total(p, "build", "ok", built, builds, buf_cstr(&one_build));
	stage_total(p, "boot", "passed", booted, boots, buf_cstr(&one_boot));
	buf_release(&one_build);
	buf_release(&one_boot);
}

static void problem_begin(struct buf *p, const char *kind, const char *attr, const char *value)
{
	buf_printf(p, "<li class=\"problem\" data-kind=\"%s\"", kind);
	if (attr) {
		buf_printf(p, " data-%s=\"", attr);
		html_escape(p, value);
		buf_puts(p, "\"");
	}
	buf_puts(p, ">");
}

static void tree_ref(struct buf *p, const struct dash *d, const char *name)
{
	if (has_tree_page(d, name))
		page_link(p, "tree-", name, NULL);
	else
		html_escape(p, name);
}

/* A conflicted tree: with whom, and what the day did about it. */
static void conflict_problem(struct buf *p, const struct dash *d, const struct day_tree *t)
{
	struct buf with = BUF_INIT;
	const char *handled = t->handling.handled;

	conflicting_trees(&with, t);
	problem_begin(p, "conflict", "tree", t->name);
	tree_ref(p, d, t->name);
	buf_puts(p, " conflicts with ");
	html_escape(p, with.len ? buf_cstr(&with) : t->handling.reason ? "the day" : "mainline");
	if (t->status == TREE_PREVIOUS)
		buf_printf(p, ": its version of %s merged instead",
			   t->handling.version_from ? t->handling.version_from : "an earlier day");
	else if (handled && !strcmp(handled, "recorded"))
		buf_puts(p, ": resolved by a recorded resolution");
	else if (!tree_status_in_day(t->status))
		buf_puts(p, ": left out");
	if (t->handling.reason) {
		buf_puts(p, " (");
		html_escape(p, t->handling.reason);
		buf_puts(p, ")");
	}
	buf_puts(p, "</li>\n");
	buf_release(&with);
}

/* Trees conflicted, left out, or merged at an older commit than asked for. */
static size_t tree_problems(struct buf *p, const struct dash *d, const struct day *day)
{
	size_t i, n = 0;

	for (i = 0; i < day->ntrees; i++) {
		const struct day_tree *t = &day->trees[i];
		const char *why = t->handling.rejected ? t->handling.rejected : t->fetch_error;

		if (is_conflicted(t)) {
			conflict_problem(p, d, t);
		} else if (!tree_status_in_day(t->status)) {
			problem_begin(p, "left-out", "tree", t->name);
			tree_ref(p, d, t->name);
			buf_printf(p, " left out: %s", tree_status_name(t->status) ?: "?");
			if (!why && t->build && t->build->failure)
				why = t->build->failure;
		} else if (t->fetch_status && !strcmp(t->fetch_status, "stale")) {
			problem_begin(p, "fetch", "tree", t->name);
			tree_ref(p, d, t->name);
			buf_puts(p, " not fetched: an older commit merged");
		} else {
			continue;
		}
		if (!is_conflicted(t)) {
			if (why) {
				buf_puts(p, " (");
				html_escape(p, why);
				buf_puts(p, ")");
			}
			buf_puts(p, "</li>\n");
		}
		n++;
	}
	return n;
}

static void config_words(struct buf *p, const char *config, const char *arch)
{
	buf_puts(p, " on ");
	html_escape(p, config);
	if (arch) {
		buf_puts(p, " (");
		html_escape(p, arch);
		buf_puts(p, ")");
	}
}

static size_t build_problem(struct buf *p, const char *config, const char *arch,
			    const struct day_build *b)
{
	const json_t *e = json_array_get(b ? b->errors : NULL, 0);

	if (!b || (b->status && !strcmp(b->status, "ok")))
		return 0;
	problem_begin(p, "build", "config", config);
	buf_puts(p, "build ");
	html_escape(p, b->status ? b->status : "?");
	config_words(p, config, arch);
	if (b->failure) {
		buf_puts(p, ": ");
		html_escape(p, b->failure);
	}
	if (e) {
		buf_puts(p, "; <code>");
		if (json_str(e, "file")) {
			html_escape(p, json_str(e, "file"));
			buf_printf(p, ":%lld: ", (long long)json_integer_value(json_object_get(e, "line")));
		}
		html_escape(p, json_str(e, "message"));
		buf_puts(p, "</code>");
	}
	buf_puts(p, "</li>\n");
	return 1;
}

/* The failing leaf tests of a boot record (a suite fails with its cases: left out). */
static void failing_leaves(struct buf *p, const json_t *tests)
{
	const json_t *t, *u;
	size_t i, j, n = 0;

	json_array_foreach(tests, i, t) {
		const char *name = json_str(t, "name");
		size_t len = name ? strlen(name) : 0;
		int suite = 0;

		if (!name || !json_is_false(json_object_get(t, "ok")))
			continue;
		json_array_foreach(tests, j, u)
			suite |= json_str(u, "name") && !strncmp(json_str(u, "name"), name, len) &&
				 json_str(u, "name")[len] == '.';
		if (suite)
			continue;
		buf_puts(p, n++ ? ", " : ": ");
		buf_puts(p, "<code>");
		html_escape(p, name);
		buf_puts(p, "</code>");
	}
}

static size_t boot_problem(struct buf *p, const char *config, const char *arch,
			   const struct day_boot *b)
{
	const char *st = b ? b->status : NULL;

	if (!st || !strcmp(st, "passed") || !strcmp(st, "skipped"))
		return 0;
	if (!strcmp(st, "tests-failed")) {
		problem_begin(p, "tests", "config", config);
		buf_puts(p, "tests failing");
		config_words(p, config, arch);
		failing_leaves(p, b->tests);
	} else {
		problem_begin(p, "boot", "config", config);
		buf_puts(p, "boot ");
		html_escape(p, st);
		config_words(p, config, arch);
		if (b->reason || b->failure) {
			buf_puts(p, ": ");
			html_escape(p, b->reason ? b->reason : b->failure);
		}
	}
	buf_puts(p, "</li>\n");
	return 1;
}

/* The builds and boots that failed: the day's own (named as the regressions name it), then each configuration's. */
static size_t stage_problems(struct buf *p, const struct day *day)
{
	const char *config = regress_day_config(day), *arch = regress_day_arch(day);
	size_t i, n;

	n = build_problem(p, config, arch, day->build) + boot_problem(p, config, arch, day->boot);
	for (i = 0; i < day->nconfigs; i++) {
		const struct day_config *c = &day->configs[i];

		arch = c->build && c->build->arch ? c->build->arch : NULL;
		n += build_problem(p, c->name, arch, c->build) + boot_problem(p, c->name, arch, c->boot);
	}
	return n;
}

/* A regression failing on date (NULL: open now), with its first bad day. */
static int regression_shown(const struct regression *r, const char *date)
{
	if (!date)
		return regression_is_open(r);
	return strcmp(r->first_bad, date) <= 0 && r->last_bad && strcmp(date, r->last_bad) <= 0;
}

static void regression_item(struct buf *p, const struct dash *d, const struct regression *r)
{
	const json_t *c = r->culprit;
	int flaky = !strcmp(r->state, "flaky");
	char *page;

	problem_begin(p, flaky ? "flaky" : "regression", "id", r->id);
	buf_puts(p, "<code>");
	html_escape(p, r->test);
	buf_puts(p, "</code> (");
	html_escape(p, r->kind);
	buf_puts(p, ")");
	config_words(p, r->config, r->arch);
	buf_puts(p, flaky ? ": flaky since " : ": failing since ");
	page = dashboard_page_name("day-", r->first_bad);
	buf_printf(p, "<a class=\"first-bad\" href=\"%s\">", page);
	html_escape(p, r->first_bad);
	buf_puts(p, "</a>");
	free(page);
	if (flaky)
		buf_printf(p, " (flakiness %.2f)", r->score);
	else if (r->last_good) {
		buf_puts(p, " (last good ");
		html_escape(p, r->last_good);
		buf_puts(p, ")");
	}
	if (c && json_string_value(json_object_get(c, "commit"))) {
		buf_puts(p, "; culprit ");
		tree_ref(p, d, json_str(c, "tree") ? json_str(c, "tree") : "?");
		buf_printf(p, " <code>%.12s</code> ", json_str(c, "commit"));
		html_escape(p, json_str(c, "subject"));
		if (json_is_true(json_object_get(c, "confirmed")))
			buf_puts(p, " (confirmed)");
		else if (json_is_false(json_object_get(c, "confirmed")))
			buf_puts(p, " (not confirmed: the day fails without it too)");
	}
	buf_puts(p, "</li>\n");
}

static size_t regression_problems(struct buf *p, const struct dash *d, const char *date)
{
	size_t i, n = 0;

	for (i = 0; d->regs && i < d->regs->n; i++)
		if (regression_shown(d->regs->items[i], date)) {
			regression_item(p, d, d->regs->items[i]);
			n++;
		}
	return n;
}

/*
 * What needs someone on a day, first: conflicts and trees left out, the
 * builds and boots that failed, the regressions failing that day (on the
 * index: the newest day's, and every regression open now).
 */
static void problems_section(struct buf *p, const struct dash *d, size_t day, int index)
{
	const struct day *dy = d->days[day];
	struct buf items = BUF_INIT;
	size_t n = 0;
	char *page;

	buf_puts(p, "<section id=\"problems\">\n<h2>Problems");
	if (index) {
		page = dashboard_page_name("day-", d->dates[day]);
		buf_printf(p, " on <a href=\"%s\">%s</a>", page, d->dates[day]);
		free(page);
	}
	buf_puts(p, "</h2>\n");
	if (dy) {
		buf_puts(p, "<p class=\"totals\">");
		day_totals(p, dy);
		buf_puts(p, "</p>\n");
		n += tree_problems(&items, d, dy) + stage_problems(&items, dy);
	}
	n += regression_problems(&items, d, index ? NULL : d->dates[day]);
	if (n)
		buf_printf(p, "<ul class=\"problems\">\n%s</ul>\n", buf_cstr(&items));
	else
		buf_puts(p, dy ? "<p class=\"none\">No problems.</p>\n" :
			 "<p class=\"none\">The record of this day could not be read.</p>\n");
	buf_puts(p, "</section>\n");
	buf_release(&items);
}

/* What one finding says, in a table cell. */
static void finding_detail(struct buf *p, const struct day_finding *f)
{
	const json_t *t, *v;
	size_t i, j;

	if (f->missing)
		buf_printf(p, "no Signed-off-by of its %s", f->missing);
	if (f->other_tree) {
		char *other = xstrndup(f->other_commit ? f->other_commit : "?", 12);

		buf_puts(p, "same patch as ");
		html_escape(p, other);
		free(other);
		buf_puts(p, " in ");
		html_escape(p, f->other_tree);
	}
	if (f->date)
		buf_printf(p, "last commit %s, %lld days ago", f->date, f->days);
	if (f->kind && !strcmp(f->kind, "fetch-failed")) {
		buf_printf(p, "%lld day%s in a row: ", f->days, f->days == 1 ? "" : "s");
		html_escape(p, f->error ? f->error : "");
	}
	json_array_foreach(f->tags, i, t) {
		buf_puts(p, i ? "<br>" : "");
		html_escape(p, json_string_value(json_object_get(t, "tag")));
		buf_puts(p, ":");
		json_array_foreach(json_object_get(t, "problems"), j, v) {
			buf_puts(p, j ? ", " : " ");
			html_escape(p, json_string_value(v));
		}
	}
}

/* The commit checks (src/checks.h): what was checked, then each finding. */
static void checks_section(struct buf *p, const struct day *day)
{
	const struct day_checks *c = day->checks;
	size_t i;

	if (!c)
		return;
	buf_printf(p, "<section id=\"checks\">\n<h2>Commit checks</h2>\n<p>%lld new commit%s in "
		      "%lld tree%s, %zu finding%s (%.1f s)", c->commits, c->commits == 1 ? "" : "s",
		   c->trees, c->trees == 1 ? "" : "s", c->findings.n, c->findings.n == 1 ? "" : "s",
		   c->seconds);
	if (c->failure) {
		buf_puts(p, "; ");
		html_escape(p, c->failure);
	}
	buf_puts(p, ".</p>\n");
	if (!c->findings.n) {
		buf_puts(p, "</section>\n");
		return;
	}
	buf_puts(p, "<table class=\"checks\">\n<thead><tr><th>check</th><th>tree</th><th>commit</th>"
		    "<th>subject</th><th>what</th><th>since</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < c->findings.n; i++) {
		const struct day_finding *f = c->findings.v[i];

		buf_puts(p, "<tr><td>");
		html_escape(p, f->kind ? f->kind : "");
		buf_puts(p, "</td><td>");
		html_escape(p, f->tree ? f->tree : "");
		buf_printf(p, "</td><td><code>%.12s</code></td><td>", f->commit ? f->commit : "");
		html_escape(p, f->subject ? f->subject : "");
		buf_puts(p, "</td><td>");
		finding_detail(p, f);
		buf_puts(p, "</td><td>");
		html_escape(p, f->since ? f->since : "");
		buf_puts(p, "</td></tr>\n");
	}
	buf_puts(p, "</tbody>\n</table>\n</section>\n");
}

/* ---- the grid ---- */

static void status_cell(struct buf *p, const struct dash *d, size_t day, const char *name)
{
	const struct day_tree *t = tree_on(d, day, name);
	struct buf note = BUF_INIT;
	char *page;

	if (!t) {
		buf_puts(p, "<td class=\"st-absent\"></td>");
		return;
	}
	buf_puts(p, "<td class=\"");
	status_class(p, "st-", tree_status_name(t->status));
	/* Merged, but not today's commit: the fetch failed. */
	if (t->fetch_status && !strcmp(t->fetch_status, "stale"))
		buf_puts(p, " stale");
	if (t->moved && t->moved->rewound)
		buf_puts(p, " rebased");
	buf_puts(p, "\" data-status=\"");
	html_escape(p, tree_status_name(t->status) ?: "");
	page = dashboard_page_name("day-", d->dates[day]);
	buf_printf(p, "\"><a href=\"%s#t-", page);
	free(page);
	name_encode(p, t->name);
	buf_puts(p, "\"><span class=\"status\">");
	html_escape(p, tree_status_name(t->status) ?: "?");
	buf_puts(p, "</span>");
	tree_note(&note, d, day, t);
	if (note.len) {
		buf_puts(p, "<span class=\"note\">");
		html_escape(p, buf_cstr(&note));
		buf_puts(p, "</span>");
	}
	buf_puts(p, "</a></td>");
	buf_release(&note);
}

static size_t index_first(const struct dash *d)
{
	return d->ndates > DASHBOARD_INDEX_DAYS ? d->ndates - DASHBOARD_INDEX_DAYS : 0;
}

static void grid_head(struct buf *p, const struct dash *d)
{
	size_t i;

	buf_puts(p, "<thead><tr><th class=\"tree\">tree</th>");
	for (i = index_first(d); i < d->ndates; i++) {
		char *page = dashboard_page_name("day-", d->dates[i]);

		buf_printf(p, "<th class=\"day\" data-date=\"%s\"><a href=\"%s\">%s</a></th>",
			   d->dates[i], page, d->dates[i]);
		free(page);
	}
	buf_puts(p, "</tr></thead>\n");
}

static void grid_stage_row(struct buf *p, const struct dash *d, const char *what)
{
	size_t i;

	buf_printf(p, "<tr class=\"stage\"><th>%s</th>", what);
	for (i = index_first(d); i < d->ndates; i++) {
		const struct day *day = d->days[i];

		buf_printf(p, "<td data-stage=\"%s\">", what);
		if (!day)
			buf_puts(p, "<span class=\"none\">unreadable</span>");
		else if (!strcmp(what, "build"))
			build_brief(p, day->build);
		else if (!strcmp(what, "boot"))
			boot_brief(p, day->boot);
		else
			bisect_brief(p, day->bisect);
		buf_puts(p, "</td>");
	}
	buf_puts(p, "</tr>\n");
}

/* Whether a day the index shows has a build (what 'b'), boot ('t') or bisect ('s'). */
static int index_has(const struct dash *d, char what)
{
	size_t i;

	for (i = index_first(d); i < d->ndates; i++) {
		const struct day *dy = d->days[i];

		if (dy && ((what == 'b' && dy->build) || (what == 't' && dy->boot) ||
			   (what == 's' && dy->bisect)))
			return 1;
	}
	return 0;
}

static void grid_totals(struct buf *p, const struct dash *d)
{
	size_t i;

	buf_puts(p, "<tr class=\"totals\"><th>totals</th>");
	for (i = index_first(d); i < d->ndates; i++) {
		buf_printf(p, "<td data-date=\"%s\">", d->dates[i]);
		if (d->days[i])
			day_totals(p, d->days[i]);
		else
			buf_puts(p, "<span class=\"none\">unreadable</span>");
		buf_puts(p, "</td>");
	}
	buf_puts(p, "</tr>\n");
}

static void grid(struct buf *p, const struct dash *d)
{
	size_t i, j;

	buf_puts(p, "<table class=\"grid\" id=\"grid\">\n");
	grid_head(p, d);
	buf_puts(p, "<tbody>\n");
	grid_totals(p, d);
	for (j = 0; j < d->ntrees; j++) {
		buf_puts(p, "<tr class=\"tree\" data-tree=\"");
		html_escape(p, d->trees[j]);
		buf_puts(p, "\"><th class=\"tree\">");
		page_link(p, "tree-", d->trees[j], NULL);
		buf_puts(p, "</th>");
		for (i = index_first(d); i < d->ndates; i++)
			status_cell(p, d, i, d->trees[j]);
		buf_puts(p, "</tr>\n");
	}
	/* A workspace that does not build gets no empty build and boot rows. */
	if (index_has(d, 'b'))
		grid_stage_row(p, d, "build");
	if (index_has(d, 't'))
		grid_stage_row(p, d, "boot");
	if (index_has(d, 's'))
		grid_stage_row(p, d, "bisect");
	buf_puts(p, "</tbody>\n</table>\n");
}

/* ---- the trend ---- */

#define TREND_W 640
#define TREND_H 120
#define TREND_PAD 28

static double stage_seconds(const struct dash *d, size_t day, const char *key)
{
	const struct day *dy = d->days[day];

	if (!dy)
		return -1;
	if (!strcmp(key, "build"))
		return day_build_has(dy->build, "seconds") ? dy->build->seconds : -1;
	return day_boot_has(dy->boot, "seconds") ? dy->boot->seconds : -1;
}

static double trend_x(const struct dash *d, size_t i)
{
	size_t first = index_first(d), n = d->ndates - first;

	return TREND_PAD + (n > 1 ? (double)(i - first) * (TREND_W - TREND_PAD - 16) / (double)(n - 1) : 0);
}

static double trend_y(double v, double max)
{
	return TREND_H - TREND_PAD - v / max * (TREND_H - 2 * TREND_PAD);
}

/* The points joined where consecutive days have a time, a dot with its date and time on each. */
static void trend_points(struct buf *p, const struct dash *d, const char *key, double max)
{
	size_t i;
	double v;
	int open = 0;

	for (i = index_first(d); i < d->ndates; i++) {
		if ((v = stage_seconds(d, i, key)) < 0) {
			if (open)
				buf_puts(p, "\"/>\n");
			open = 0;
			continue;
		}
		buf_printf(p, "%s%.1f,%.1f", open ? " " : "<polyline class=\"line\" points=\"",
			   trend_x(d, i), trend_y(v, max));
		open = 1;
	}
	if (open)
		buf_puts(p, "\"/>\n");
	for (i = index_first(d); i < d->ndates; i++)
		if ((v = stage_seconds(d, i, key)) >= 0)
			buf_printf(p, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>%s: %.1f s</title></circle>\n",
				   trend_x(d, i), trend_y(v, max), d->dates[i], v);
}

/* One small line chart of a stage's seconds over the index's days; a day without one is a gap. */
static void trend(struct buf *p, const struct dash *d, const char *key, const char *title)
{
	size_t i;
	double max = 0, v;

	for (i = index_first(d); i < d->ndates; i++)
		if ((v = stage_seconds(d, i, key)) > max)
			max = v;
	buf_printf(p, "<figure class=\"trend\" id=\"trend-%s\"><figcaption>%s (seconds)</figcaption>\n",
		   key, title);
	buf_printf(p, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s seconds per day\">\n",
		   TREND_W, TREND_H, TREND_W, TREND_H, title);
	buf_printf(p, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
		   TREND_PAD, TREND_H - TREND_PAD, TREND_W - 8, TREND_H - TREND_PAD);
	if (max <= 0) {
		buf_printf(p, "<text x=\"%d\" y=\"%d\">no %s yet</text>\n", TREND_PAD, TREND_H / 2, key);
	} else {
		buf_printf(p, "<text class=\"max\" x=\"2\" y=\"%d\">%.*f s</text>\n", TREND_PAD - 10,
			   max < 10 ? 1 : 0, max);
		trend_points(p, d, key, max);
		buf_printf(p, "<text x=\"%d\" y=\"%d\">%s</text>\n", TREND_PAD, TREND_H - 8,
			   d->dates[index_first(d)]);
		buf_printf(p, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", TREND_W - 8,
			   TREND_H - 8, d->dates[d->ndates - 1]);
	}
	buf_puts(p, "</svg></figure>\n");
}

static int write_index(struct dash *d, struct buf *p)
{
	size_t i;

	page_begin(p, "tide: trees by day");
	buf_printf(p, "<p class=\"summary\">%zu tree%s, %zu day%s", d->ntrees, d->ntrees == 1 ? "" : "s",
		   d->ndates, d->ndates == 1 ? "" : "s");
	if (d->ndates > DASHBOARD_INDEX_DAYS)
		buf_printf(p, " (the newest %d shown)", DASHBOARD_INDEX_DAYS);
	buf_puts(p, ".</p>\n");
	problems_section(p, d, d->ndates - 1, 1);
	grid(p, d);
	if (index_has(d, 'b') || index_has(d, 't')) {
		buf_puts(p, "<div class=\"trends\">\n");
		if (index_has(d, 'b'))
			trend(p, d, "build", "build time");
		if (index_has(d, 't'))
			trend(p, d, "boot", "boot time");
		buf_puts(p, "</div>\n");
	}
	buf_puts(p, "<h2>Every day</h2>\n<ul class=\"days\">\n");
	for (i = d->ndates; i-- > 0;) {
		char *page = dashboard_page_name("day-", d->dates[i]);

		buf_printf(p, "<li><a href=\"%s\">%s</a></li>\n", page, d->dates[i]);
		free(page);
	}
	buf_puts(p, "</ul>\n");
	page_end(p);
	return page_write(d, "index.html", p);
}

/* ---- one day ---- */

/* A build-each-merge tree's own build (src/run.c): status, why, its log. */
static void tree_build(struct buf *p, const struct dash *d, size_t day, const struct day_tree *t)
{
	const struct day_build *b = t->build;
	char *log;

	if (!b)
		return;
	log = xasprintf("build-%s.log", t->name);
	buf_puts(p, "<div>build after its merge: <span class=\"");
	status_class(p, "stage-", b->status);
	buf_puts(p, "\">");
	html_escape(p, b->status ? b->status : "?");
	buf_puts(p, "</span>");
	if (b->failure) {
		buf_puts(p, ": ");
		html_escape(p, b->failure);
	}
	buf_puts(p, " ");
	day_file_link(p, d, d->dates[day], log, "log");
	buf_puts(p, "</div>");
	free(log);
}

static void tree_details(struct buf *p, const struct dash *d, size_t day, const struct day_tree *t)
{
	const char *s;
	size_t i;

	if ((s = t->handling.rejected) || (s = t->handling.reason)) {
		buf_puts(p, "<div>");
		html_escape(p, s);
		buf_puts(p, "</div>");
	}
	if (t->fetch_error) {
		buf_puts(p, "<div>fetch: ");
		html_escape(p, t->fetch_error);
		buf_puts(p, "</div>");
	}
	if ((s = t->handling.fixup_error)) {
		buf_puts(p, "<div>fixups: ");
		html_escape(p, s);
		buf_puts(p, "</div>");
	}
	tree_build(p, d, day, t);
	for (i = 0; i < t->nconflicts; i++) {
		buf_puts(p, "<div><code>");
		html_escape(p, t->conflicts[i].path);
		buf_puts(p, "</code> (");
		html_escape(p, t->conflicts[i].kind);
		buf_puts(p, ")</div>");
	}
}

/* A tree's cells on a day: status and why, commit, details, report. */
static void tree_cells(struct buf *p, const struct dash *d, size_t day, const struct day_tree *t)
{
	struct buf note = BUF_INIT;
	char *report = xasprintf("reports/%s.txt", t->name);

	buf_puts(p, "<td class=\"");
	status_class(p, "st-", tree_status_name(t->status));
	if (t->moved && t->moved->rewound)
		buf_puts(p, " rebased");
	buf_puts(p, "\" data-status=\"");
	html_escape(p, tree_status_name(t->status) ?: "");
	buf_puts(p, "\"><span class=\"status\">");
	html_escape(p, tree_status_name(t->status) ?: "?");
	buf_puts(p, "</span>");
	tree_note(&note, d, day, t);
	if (note.len) {
		buf_puts(p, "<span class=\"note\">");
		html_escape(p, buf_cstr(&note));
		buf_puts(p, "</span>");
	}
	buf_printf(p, "</td><td><code>%.12s</code></td><td>", t->sha ? t->sha : "-");
	tree_details(p, d, day, t);
	buf_puts(p, "</td><td>");
	day_file_link(p, d, d->dates[day], report, "report");
	buf_puts(p, "</td></tr>\n");
	buf_release(&note);
	free(report);
}

static void day_tree_row(struct buf *p, const struct dash *d, size_t day, const struct day_tree *t)
{
	buf_puts(p, "<tr id=\"t-");
	name_encode(p, t->name);
	buf_puts(p, "\" data-tree=\"");
	html_escape(p, t->name);
	buf_puts(p, "\"><th>");
	page_link(p, "tree-", t->name, NULL);
	buf_puts(p, "</th>");
	tree_cells(p, d, day, t);
}

static void day_header(struct buf *p, const struct dash *d, const struct day *dy)
{
	char *base = dy->base_url ? url_redact(dy->base_url) : NULL;

	buf_puts(p, "<dl class=\"facts\">\n<dt>tag</dt><dd>");
	html_escape(p, dy->tag ? dy->tag : "-");
	buf_puts(p, "</dd>\n<dt>status</dt><dd>");
	html_escape(p, dy->status ? dy->status : "-");
	buf_puts(p, "</dd>\n<dt>base</dt><dd>");
	html_escape(p, base ? base : "-");
	buf_puts(p, " ");
	html_escape(p, dy->base_tag);
	buf_printf(p, " <code>%.12s</code></dd>\n<dt>commit</dt><dd><code>", dy->base_commit ? dy->base_commit : "");
	html_escape(p, dy->commit ? dy->commit : "-");
	/* The day integrated is its date; the run that made it may have been any time. */
	buf_puts(p, "</code></dd>\n<dt>integration date</dt><dd class=\"date\">");
	html_escape(p, dy->date ? dy->date : "-");
	buf_puts(p, "</dd>\n<dt>run</dt><dd class=\"run\">started ");
	html_escape(p, dy->started ? dy->started : "-");
	buf_puts(p, ", finished ");
	html_escape(p, dy->finished ? dy->finished : "-");
	buf_puts(p, "</dd>\n<dt>files</dt><dd>");
	day_file_link(p, d, dy->date, "merge.log", "merge.log");
	buf_puts(p, " ");
	day_file_link(p, d, dy->date, "day.json", "day.json");
	buf_puts(p, "</dd>\n</dl>\n");
	free(base);
}

static int write_day(struct dash *d, size_t day, struct buf *p)
{
	const struct day *dy = d->days[day];
	char *title = xasprintf("tide: %s", d->dates[day]), *page;
	size_t i;
	int error;

	page_begin(p, title);
	if (!dy) {
		buf_puts(p, "<p class=\"none\">The record of this day could not be read.</p>\n");
	} else {
		problems_section(p, d, day, 0);
		day_header(p, d, dy);
		buf_puts(p, "<section id=\"trees\">\n<h2>Trees</h2>\n<table class=\"trees\">\n"
			 "<thead><tr><th>tree</th><th>status</th><th>commit</th><th>details</th>"
			 "<th>report</th></tr></thead>\n<tbody>\n");
		for (i = 0; i < dy->ntrees; i++)
			day_tree_row(p, d, day, &dy->trees[i]);
		buf_puts(p, "</tbody>\n</table>\n</section>\n");
		/* "Not built" is news only in a workspace that builds. */
		if (d->ever_built) {
			build_section(p, d, dy);
			boot_section(p, d, dy);
		}
		configs_section(p, d, dy);
		checks_section(p, dy);
		bisect_section(p, dy);
	}
	page_end(p);
	page = dashboard_page_name("day-", d->dates[day]);
	error = page_write(d, page, p);
	free(page);
	free(title);
	return error;
}

/* ---- one tree ---- */

static void tree_facts(struct buf *p, const struct dash *d, const char *name)
{
	const struct day_tree *t = NULL;
	char *url;
	size_t i;

	for (i = d->ndates; i-- > 0 && !t;)
		t = tree_on(d, i, name);
	if (!t)
		return;
	url = t->url ? url_redact(t->url) : NULL;
	buf_puts(p, "<dl class=\"facts\">\n<dt>type</dt><dd>");
	html_escape(p, t->type ? t->type : "-");
	buf_puts(p, "</dd>\n<dt>url</dt><dd>");
	html_escape(p, url ? url : "-");
	buf_puts(p, "</dd>\n<dt>branch</dt><dd>");
	html_escape(p, t->branch ? t->branch : "-");
	buf_puts(p, "</dd>\n</dl>\n");
	free(url);
}

static int write_tree(struct dash *d, const char *name, struct buf *p)
{
	char *title = xasprintf("tide: %s", name), *page;
	size_t i;
	int error;

	page_begin(p, title);
	tree_facts(p, d, name);
	buf_puts(p, "<table class=\"trees\">\n<thead><tr><th>day</th><th>status</th><th>commit</th>"
		 "<th>details</th><th>report</th></tr></thead>\n<tbody>\n");
	for (i = d->ndates; i-- > 0;) {
		const struct day_tree *t = tree_on(d, i, name);
		char *day_page;

		if (!t)
			continue;
		day_page = dashboard_page_name("day-", d->dates[i]);
		buf_printf(p, "<tr data-date=\"%s\"><th><a href=\"%s#t-", d->dates[i], day_page);
		name_encode(p, name);
		buf_printf(p, "\">%s</a></th>", d->dates[i]);
		tree_cells(p, d, i, t);
		free(day_page);
	}
	buf_puts(p, "</tbody>\n</table>\n");
	page_end(p);
	page = dashboard_page_name("tree-", name);
	error = page_write(d, page, p);
	free(page);
	free(title);
	return error;
}

/* ---- style ---- */

static const char css[] =
	"body { font: 14px/1.4 sans-serif; margin: 1em 2em; color: #222; background: #fff; }\n"
	"nav { margin-bottom: .5em; }\n"
	"a { color: inherit; }\n"
	"h1 { font-size: 1.4em; } h2 { font-size: 1.2em; margin-top: 1.5em; } h3 { font-size: 1em; }\n"
	"table { border-collapse: collapse; }\n"
	"th, td { border: 1px solid #ccc; padding: 3px 6px; vertical-align: top; text-align: left; }\n"
	"table.grid td { min-width: 7em; }\n"
	"table.grid td a { display: block; text-decoration: none; }\n"
	"tr.stage td, tr.stage th { background: #f6f6f6; font-size: .9em; }\n"
	".status { font-weight: bold; display: block; }\n"
	".note { display: block; font-size: .85em; }\n"
	".time, .counts { color: #555; font-size: .9em; }\n"
	".none { color: #888; font-style: italic; }\n"
	".warn { color: #8a5a00; display: block; }\n"
	".st-merged { background: #c8ecc8; }\n"
	".st-up-to-date { background: #e4f5e4; }\n"
	".st-conflict, .st-dropped { background: #f6b8b8; }\n"
	".st-previous { background: #fde2a8; }\n"
	".st-fetch-failed, .st-patch-failed { background: #d8d8d8; }\n"
	".st-rejected { background: #e3c8f0; }\n"
	".st-other { background: #fff; }\n"
	".stale { box-shadow: inset 5px 0 #d08a00; }\n"
	".st-absent { background: repeating-linear-gradient(45deg, #fff, #fff 4px, #eee 4px, #eee 8px); }\n"
	".stage-ok, .stage-passed { color: #1a6b1a; font-weight: bold; }\n"
	".stage-failed, .stage-error, .stage-tests-failed, .stage-panic, .stage-oops, .stage-hang,"
	" .stage-no-output { color: #b01c1c; font-weight: bold; }\n"
	".stage-skipped, .stage-other { color: #666; font-weight: bold; }\n"
	".bisect { color: #3a3a9a; }\n"
	"dl.facts { display: grid; grid-template-columns: max-content auto; gap: 2px 1em; }\n"
	"dl.facts dt { font-weight: bold; } dl.facts dd { margin: 0; }\n"
	".trends { display: flex; flex-wrap: wrap; gap: 1em; margin-top: 1em; }\n"
	"figure.trend { margin: 0; } figcaption { font-size: .9em; color: #555; }\n"
	"svg { background: #fafafa; border: 1px solid #ddd; }\n"
	"svg .axis { stroke: #999; } svg .line { fill: none; stroke: #2a62b0; stroke-width: 2; }\n"
	"svg circle { fill: #2a62b0; } svg text { font-size: 10px; fill: #555; }\n"
	".rebased { box-shadow: inset -5px 0 #7a4fb0; }\n"
	"section#problems { border: 2px solid #b01c1c; padding: 0 1em .5em; margin: 1em 0; }\n"
	"ul.problems { list-style: none; padding-left: .5em; } ul.problems li { margin: .2em 0; }\n"
	"li.problem[data-kind=conflict]::before, li.problem[data-kind=left-out]::before { content: \"\\25A0  \"; color: #b01c1c; }\n"
	"li.problem[data-kind=regression]::before, li.problem[data-kind=build]::before,"
	" li.problem[data-kind=boot]::before, li.problem[data-kind=tests]::before { content: \"\\25B2  \"; color: #b01c1c; }\n"
	"li.problem[data-kind=flaky]::before, li.problem[data-kind=fetch]::before { content: \"\\25CB  \"; color: #8a5a00; }\n"
	".totals .total, tr.totals td { font-size: .9em; }\n"
	".total { display: inline-block; margin-right: .5em; }\n"
	".total.conflicts, .total.left-out { color: #b01c1c; font-weight: bold; }\n"
	"pre { background: #f6f6f6; padding: .5em; white-space: pre-wrap; }\n"
	"ul.diags code { white-space: pre-wrap; }\n";

static int write_css(struct dash *d, struct buf *p)
{
	buf_puts(p, css);
	return page_write(d, "style.css", p);
}

/* ---- the whole ---- */

static int prepare_out(struct dash *d)
{
	char *abs_out = path_absolute(d->out), *abs_days = path_absolute(d->days_dir), *rel;
	struct buf href = BUF_INIT;
	struct stat st;

	if (mkdir_p(d->out, 0777) < 0 || stat(d->out, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(abs_out);
		free(abs_days);
		if (!tide_error_code())
			tide_error_set(TIDE_EIO, "'%s' is not a directory", d->out);
		return tide_error_wrap(TIDE_EIO, "cannot write the dashboard to '%s'", d->out);
	}
	rel = path_relative(abs_out, abs_days);
	url_path_escape(&href, rel);
	d->days_href = buf_detach(&href);
	free(rel);
	free(abs_out);
	free(abs_days);
	return 0;
}

static int write_pages(struct dash *d)
{
	struct buf p = BUF_INIT;
	size_t i;
	int error;

	if ((error = write_css(d, &p)) < 0)
		goto done;
	for (i = 0; i < d->ndates; i++)
		if ((error = write_day(d, i, &p)) < 0)
			goto done;
	for (i = 0; i < d->ntrees; i++)
		if ((error = write_tree(d, d->trees[i], &p)) < 0)
			goto done;
	/* The index last: it links to the others. */
	error = write_index(d, &p);
done:
	buf_release(&p);
	if (error < 0)
		tide_error_wrap(TIDE_EIO, "cannot write the dashboard to '%s'", d->out);
	return error;
}

int dashboard_write(struct dashboard_result *out, const char *wsdir, const char *out_dir)
{
	struct dash d = { .wsdir = wsdir, .out = out_dir, .res = out };
	size_t i;
	int error;

	memset(out, 0, sizeof(*out));
	tide_error_clear();
	if ((error = load_days(&d)) < 0)
		goto done;
	if ((error = prepare_out(&d)) < 0)
		goto done;
	error = write_pages(&d);
done:
	for (i = 0; i < d.ndates; i++)
		day_free(d.days ? d.days[i] : NULL);
	free(d.days);
	day_list_free(d.dates, (int)d.ndates);
	free(d.trees);
	free(d.days_dir);
	free(d.days_href);
	regress_list_free(d.regs);
	return error;
}

void dashboard_result_release(struct dashboard_result *res)
{
	free(res->first_unreadable);
	res->first_unreadable = NULL;
	free(res->regressions_unreadable);
	res->regressions_unreadable = NULL;
}

char *dashboard_unreadable_text(const struct dashboard_result *res)
{
	if (!res->unreadable)
		return NULL;
	return xasprintf("%zu day record%s could not be read, marked unreadable (%s)",
			 res->unreadable, res->unreadable == 1 ? "" : "s", res->first_unreadable);
}
