/*
 * A build's log read back (build.h): its first errors and its warnings,
 * the warnings new against the previous day, and the tree each is in.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "error.h"
#include "history.h"
#include "util.h"

/* ---- log parsing ---- */

const char *build_diag_kind_name(enum build_diag_kind kind)
{
	switch (kind) {
	case BUILD_DIAG_COMPILER:
		return "compiler";
	case BUILD_DIAG_LINKER:
		return "linker";
	case BUILD_DIAG_KCONFIG:
		return "kconfig";
	case BUILD_DIAG_MAKE:
		return "make";
	case BUILD_DIAG_TOOL:
		return "tool";
	case BUILD_DIAG_MODPOST:
		return "modpost";
	}
	return "unknown";
}

static int diag_same(const struct build_diag *d, const char *file, int line,
		     int column, const char *msg)
{
	return d->line == line && d->column == column && !strcmp(d->message, msg) &&
	       (d->file ? file && !strcmp(d->file, file) : !file);
}

void build_diag_push(struct build_diags *d, enum build_diag_kind kind,
		     const char *file, int line, int column, const char *msg)
{
	struct build_diag *n;

	array_grow(&d->v, &d->alloc, d->n + 1, sizeof(*d->v));
	n = &d->v[d->n++];
	n->kind = kind;
	n->file = file ? xstrdup(file) : NULL;
	n->line = line;
	n->column = column;
	n->message = xstrdup(msg);
	n->tree = NULL;
}

void build_diags_release(struct build_diags *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->v[i].file);
		free(d->v[i].message);
		free(d->v[i].tree);
	}
	free(d->v);
	d->v = NULL;
	d->n = d->alloc = 0;
}

void build_log_release(struct build_log *log)
{
	build_diags_release(&log->errors);
	build_diags_release(&log->warnings);
	log->nerrors_total = 0;
}

char *build_diag_key(const struct build_diag *d)
{
	return xasprintf("%s: %s", d->file ? d->file : "", d->message);
}

int build_diags_add_unique(struct build_diags *d, enum build_diag_kind kind,
		      const char *file, int line, int column, const char *msg)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (diag_same(&d->v[i], file, line, column, msg))
			return 0;
	build_diag_push(d, kind, file, line, column, msg);
	return 1;
}

void build_log_add_error(struct build_log *log, enum build_diag_kind kind,
		      const char *file, int line, int column, const char *msg)
{
	size_t i;

	for (i = 0; i < log->errors.n; i++)
		if (diag_same(&log->errors.v[i], file, line, column, msg))
			return;
	log->nerrors_total++;
	if (log->errors.n < BUILD_MAX_ERRORS)
		build_diag_push(&log->errors, kind, file, line, column, msg);
}

/* Relative to the source tree: drop a build-directory prefix and "./". */
static const char *strip_path(const char *file, const char *const *prefixes)
{
	size_t i;

	for (i = 0; prefixes && prefixes[i]; i++) {
		size_t n = strlen(prefixes[i]);

		if (n && !strncmp(file, prefixes[i], n)) {
			file += n;
			while (*file == '/')
				file++;
			break;
		}
	}
	while (!strncmp(file, "./", 2))
		file += 2;
	return file;
}

/*
 * "FILE:LINE[:COL]:" at the start of line.  FILE has no blanks; returns
 * the text after the location (blanks skipped) or NULL.
 */
static const char *parse_location(const char *line, struct buf *file,
				  int *lno, int *col)
{
	const char *p = line, *colon;
	char *end;

	for (;;) {
		if (!(colon = strchr(p, ':')))
			return NULL;
		if (isdigit((unsigned char)colon[1]))
			break;
		p = colon + 1;
	}
	if (colon == line || memchr(line, ' ', (size_t)(colon - line)) ||
	    memchr(line, '\t', (size_t)(colon - line)))
		return NULL;
	*lno = (int)strtol(colon + 1, &end, 10);
	*col = 0;
	if (*end != ':')
		return NULL;
	if (isdigit((unsigned char)end[1])) {
		*col = (int)strtol(end + 1, &end, 10);
		if (*end != ':')
			return NULL;
	}
	buf_clear(file);
	buf_put(file, line, (size_t)(colon - line));
	end++;
	while (*end == ' ')
		end++;
	return end;
}

static int is_make_error(const char *line, const char **msg)
{
	const char *p;

	if (strncmp(line, "make", 4))
		return 0;
	p = line + 4;
	if (*p == '[')
		p = strchr(p, ']') ? strchr(p, ']') + 1 : p;
	if (strncmp(p, ": *** ", 6))
		return 0;
	*msg = p + 6;
	return 1;
}

/* "ld: ...", "x86_64-linux-gnu-ld: ...", "ld.bfd: ..." */
static const char *linker_message(const char *line)
{
	const char *colon = strstr(line, ": ");
	const char *name;

	if (!colon || memchr(line, ' ', (size_t)(colon - line)))
		return NULL;
	for (name = colon; name > line && name[-1] != '/' && name[-1] != '-'; name--)
		;
	if (!strncmp(name, "ld", 2) && (name + 2 == colon || name[2] == '.'))
		return colon + 2;
	return NULL;
}

/* "cc1: error: ...", "gcc: fatal error: ...", "ccache: error: ..." */
static const char *tool_error(const char *line)
{
	const char *colon = strstr(line, ": ");

	if (!colon || memchr(line, ' ', (size_t)(colon - line)) ||
	    memchr(line, '/', (size_t)(colon - line)))
		return NULL;
	if (!strncmp(colon + 2, "error: ", 7))
		return colon + 9;
	if (!strncmp(colon + 2, "fatal error: ", 13))
		return colon + 15;
	return NULL;
}

static int is_kconfig_file(const char *file)
{
	const char *base = strrchr(file, '/');

	return str_starts_with(base ? base + 1 : file, "Kconfig");
}

static void parse_located(struct build_log *log, const char *file, int lno,
			  int col, const char *rest)
{
	enum build_diag_kind kind = is_kconfig_file(file) ? BUILD_DIAG_KCONFIG
							  : BUILD_DIAG_COMPILER;

	if (str_starts_with(rest, "error: "))
		build_log_add_error(log, kind, file, lno, col, rest + 7);
	else if (str_starts_with(rest, "fatal error: "))
		build_log_add_error(log, kind, file, lno, col, rest + 13);
	else if (str_starts_with(rest, "warning: "))
		build_diags_add_unique(&log->warnings, kind, file, lno, col, rest + 9);
	else if (strstr(rest, "undefined reference to") ||
		 strstr(rest, "multiple definition of"))
		build_log_add_error(log, BUILD_DIAG_LINKER, file, lno, col, rest);
	else if (kind == BUILD_DIAG_KCONFIG && !str_starts_with(rest, "note: "))
		build_log_add_error(log, kind, file, lno, col, rest);	/* "syntax error" */
}

/* "[ld: ]obj.o:(.text+0x1a): undefined reference to `x'": file obj.o */
static void parse_link_error(struct build_log *log, const char *line,
			     const char *msg, const char *const *prefixes)
{
	const char *start = linker_message(line), *colon;
	char *file = NULL;

	if (!start || start > msg)
		start = line;
	colon = strchr(start, ':');
	if (colon && colon < msg && !memchr(start, ' ', (size_t)(colon - start)))
		file = xstrndup(start, (size_t)(colon - start));
	build_log_add_error(log, BUILD_DIAG_LINKER, file ? strip_path(file, prefixes) : NULL,
		  0, 0, msg);
	free(file);
}

/*
 * The source file a modpost message names, for attribution: the object
 * of "[drivers/x/y.ko]", "... in drivers/x/y.o" or "drivers/x/y.o: ..."
 * as its .c (a guess for a module of several objects); none for
 * vmlinux.o, whose message names the symbols instead.
 */
static void modpost_file(struct buf *file, const char *msg)
{
	const char *start = NULL, *end = NULL, *p;

	buf_clear(file);
	if ((p = strchr(msg, '[')) && (end = strchr(p, ']'))) {
		start = p + 1;
	} else if ((p = strstr(msg, " in ")) && str_ends_with(msg, ".o")) {
		start = p + 4;
		end = msg + strlen(msg);
	} else if ((p = strstr(msg, ".o: "))) {
		start = msg;
		end = p + 2;
	}
	if (!start || end <= start || memchr(start, ' ', (size_t)(end - start)))
		return;
	buf_put(file, start, (size_t)(end - start));
	if (str_ends_with(buf_cstr(file), ".ko"))
		buf_truncate(file, file->len - 3);
	else if (str_ends_with(buf_cstr(file), ".o"))
		buf_truncate(file, file->len - 2);
	else {
		buf_clear(file);
		return;
	}
	if (!strcmp(buf_cstr(file), "vmlinux")) {
		buf_clear(file);
		return;
	}
	buf_puts(file, ".c");
}

/* "WARNING: modpost: ..." (section mismatches, missing licenses) and "ERROR: modpost: ...". */
static int parse_modpost(struct build_log *log, const char *line, struct buf *file)
{
	const char *msg;
	int error;

	if (str_starts_with(line, "WARNING: modpost: "))
		msg = line + 18, error = 0;
	else if (str_starts_with(line, "ERROR: modpost: "))
		msg = line + 16, error = 1;
	else
		return 0;
	modpost_file(file, msg);
	if (error)
		build_log_add_error(log, BUILD_DIAG_MODPOST, file->len ? buf_cstr(file) : NULL, 0, 0, msg);
	else
		build_diags_add_unique(&log->warnings, BUILD_DIAG_MODPOST, file->len ? buf_cstr(file) : NULL,
			   0, 0, msg);
	return 1;
}

static void parse_line(struct build_log *log, const char *line,
		       const char *const *prefixes, struct buf *file)
{
	const char *rest;
	int lno, col;

	if (line[0] == '#' || line[0] == ' ' || line[0] == '\0')
		return;
	if (parse_modpost(log, line, file))
		return;
	if (is_make_error(line, &rest)) {
		build_log_add_error(log, BUILD_DIAG_MAKE, NULL, 0, 0, rest);
	} else if ((rest = parse_location(line, file, &lno, &col))) {
		parse_located(log, strip_path(buf_cstr(file), prefixes), lno, col, rest);
	} else if ((rest = strstr(line, "undefined reference to")) ||
		   (rest = strstr(line, "multiple definition of"))) {
		parse_link_error(log, line, rest, prefixes);
	} else if ((rest = linker_message(line))) {
		if (str_starts_with(rest, "warning: "))
			build_diags_add_unique(&log->warnings, BUILD_DIAG_LINKER, NULL, 0, 0, rest + 9);
		else if (!strstr(rest, "in function") && !strstr(rest, "more undefined"))
			build_log_add_error(log, BUILD_DIAG_LINKER, NULL, 0, 0,
				  str_starts_with(rest, "error: ") ? rest + 7 : rest);
	} else if ((rest = tool_error(line))) {
		build_log_add_error(log, BUILD_DIAG_TOOL, NULL, 0, 0, rest);
	} else if ((strstr(line, ": not found") && strstr(line, "sh: ")) ||
		   strstr(line, ": No such file or directory")) {
		build_log_add_error(log, BUILD_DIAG_TOOL, NULL, 0, 0, line);
	}
}

/* Drop ANSI color sequences ("\033[01;31m") a compiler may have written. */
static void put_without_colors(struct buf *b, const char *p, size_t n)
{
	const char *end = p + n, *esc;

	while (p < end && (esc = memchr(p, '\033', (size_t)(end - p)))) {
		buf_put(b, p, (size_t)(esc - p));
		p = esc + 1;
		if (p < end && *p == '[') {
			while (++p < end && !isalpha((unsigned char)*p))
				;
			if (p < end)
				p++;
		}
	}
	if (p < end)
		buf_put(b, p, (size_t)(end - p));
}

void build_log_parse(struct build_log *out, const char *text, size_t len,
		     const char *const *strip_prefixes)
{
	struct buf line = BUF_INIT, file = BUF_INIT;
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		buf_clear(&line);
		put_without_colors(&line, p, n);
		/* A NUL in the log (garbage) ends the line early: harmless. */
		parse_line(out, str_rtrim(line.ptr ? line.ptr : (char *)""),
			   strip_prefixes, &file);
		p += n + 1;
	}
	buf_release(&line);
	buf_release(&file);
}

/* ---- new warnings and their trees ---- */

static char *json_diag_key(const json_t *w)
{
	const char *file = json_string_value(json_object_get(w, "file"));
	const char *msg = json_string_value(json_object_get(w, "message"));

	return xasprintf("%s: %s", file ? file : "", msg ? msg : "");
}

void build_new_warnings(struct build_diags *out, const struct build_diags *now,
			const json_t *prev)
{
	size_t i, j;

	for (i = 0; i < now->n; i++) {
		const struct build_diag *w = &now->v[i];
		char *key = build_diag_key(w);
		int seen = 0;

		for (j = 0; !seen && j < json_array_size(prev); j++) {
			char *pk = json_diag_key(json_array_get(prev, j));

			seen = !strcmp(pk, key);
			free(pk);
		}
		/* The same key twice today (two lines) is one new warning each. */
		if (!seen)
			build_diag_push(out, w->kind, w->file, w->line, w->column,
					w->message);
		free(key);
	}
}

/* Give every warning without a tree whose file the merge touched, name. */
static int attribute_merge(git_repository *repo, const git_commit *m,
			   const char *name, struct build_diags *diags)
{
	git_commit *parent = NULL;
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	size_t i, j;
	int error = 0;

	if (git_commit_parent(&parent, m, 0) < 0 || git_commit_tree(&a, parent) < 0 ||
	    git_commit_tree(&b, m) < 0 ||
	    git_diff_tree_to_tree(&diff, repo, a, b, NULL) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot diff merge %s",
				       git_oid_tostr_s(git_commit_id(m)));
		goto done;
	}
	for (i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		for (j = 0; j < diags->n; j++) {
			struct build_diag *w = &diags->v[j];

			if (!w->tree && w->file && !strcmp(w->file, d->new_file.path))
				w->tree = xstrdup(name);
		}
	}
done:
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(parent);
	return error;
}

/*
 * Walk the first-parent chain from tip down to base, oldest merge last:
 * the first merge (in merge order) to touch a file gets it, so walk the
 * chain into a list and attribute from the oldest.
 */
int build_attribute(git_repository *repo, const git_oid *tip,
		    const git_oid *base, struct build_diags *diags)
{
	git_commit **chain = NULL, *c = NULL;
	size_t n = 0, alloc = 0, i, j;
	int error = 0;

	if (!diags->n)
		return 0;
	if (git_commit_lookup(&c, repo, tip) < 0)
		return tide_error_git(TIDE_ENOTFOUND, "cannot read commit %s",
				      git_oid_tostr_s(tip));
	/* Without a base, a day's merges are still near the tip: bound the walk. */
	while (c && !(base && git_oid_equal(git_commit_id(c), base)) &&
	       (base || n < 5000)) {
		git_commit *next = NULL;

		array_grow(&chain, &alloc, n + 1, sizeof(*chain));
		chain[n++] = c;
		if (git_commit_parentcount(c) == 0)
			break;
		if (git_commit_parent(&next, c, 0) < 0) {
			error = tide_error_git(TIDE_ERROR, "cannot read a parent of %s",
					       git_oid_tostr_s(git_commit_id(c)));
			break;
		}
		c = next;
	}
	if (c && (n == 0 || chain[n - 1] != c))
		git_commit_free(c);
	for (i = n; i-- > 0 && !error;) {
		char *name = git_commit_parentcount(chain[i]) > 1 ? history_tree_of(chain[i]) : NULL;

		if (name)
			error = attribute_merge(repo, chain[i], name, diags);
		free(name);
	}
	for (j = 0; j < diags->n; j++)
		if (!diags->v[j].tree)
			diags->v[j].tree = xstrdup("mainline");
	for (i = 0; i < n; i++)
		git_commit_free(chain[i]);
	free(chain);
	return error;
}
