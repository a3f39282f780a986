/*
 * Parsing diffs for the applier: git diffs with their extended headers and
 * binary parts, and the plain unified diffs quilt, akpm's scripts and
 * diff(1) write.  Text between file patches (diffstats, "Index:" and
 * "===" lines, "diff -puN" lines) is skipped, as patch(1) does.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "apply_int.h"
#include "error.h"
#include "util.h"

#define MAX_PATH_LEN 4096

struct rd {
	const char *p, *end;
	size_t lineno;		/* of the line at p */
	const char *hint;	/* the text of the last "Index:" line */
	size_t hint_len;
};

/* Length of the line at offset at (including its '\n'); 0 at the end. */
static size_t rd_peek_at(const struct rd *r, const char *at)
{
	const char *nl;

	if (at >= r->end)
		return 0;
	nl = memchr(at, '\n', (size_t)(r->end - at));
	return nl ? (size_t)(nl - at) + 1 : (size_t)(r->end - at);
}

static size_t rd_peek(const struct rd *r)
{
	return rd_peek_at(r, r->p);
}

static void rd_skip(struct rd *r, size_t n)
{
	r->p += n;
	r->lineno++;
}

static int starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

/* Without the line's '\n' (and a '\r' before it). */
static size_t trim_eol(const char *s, size_t len)
{
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	return len;
}

int apply_check_path(const char *path, size_t lineno)
{
	const char *c = path, *slash;
	size_t n;

	if (!*path)
		return tide_error_set(TIDE_EINVAL, "line %zu: empty file name", lineno);
	if (strlen(path) > MAX_PATH_LEN)
		return tide_error_set(TIDE_EINVAL, "line %zu: file name too long", lineno);
	if (*path == '/')
		return tide_error_set(TIDE_EINVAL, "line %zu: refusing absolute path '%s'",
				      lineno, path);
	for (;; c = slash + 1) {
		slash = strchr(c, '/');
		n = slash ? (size_t)(slash - c) : strlen(c);
		if (!n || (n == 1 && *c == '.') || (n == 2 && !memcmp(c, "..", 2)))
			return tide_error_set(TIDE_EINVAL, "line %zu: refusing path '%s' "
					      "(empty, '.' or '..' component)", lineno, path);
		if (n == 4 && !strncasecmp(c, ".git", 4))
			return tide_error_set(TIDE_EINVAL, "line %zu: refusing path '%s' "
					      "(a '.git' component)", lineno, path);
		if (!slash)
			return 0;
	}
}

static int unquote_escape(struct buf *b, const char **s, const char *end)
{
	static const char from[] = "abfnrtv\\\"", to[] = "\a\b\f\n\r\t\v\\\"";
	const char *hit;
	unsigned v = 0;
	int i;

	if (*s >= end)
		return -1;
	if ((hit = strchr(from, **s)) && **s) {
		buf_putc(b, to[hit - from]);
		(*s)++;
		return 0;
	}
	for (i = 0; i < 3; i++, (*s)++) {
		if (*s >= end || **s < '0' || **s > '7')
			return -1;
		v = v * 8 + (unsigned)(**s - '0');
	}
	if (!v || v > 255)
		return -1;
	buf_putc(b, (char)v);
	return 0;
}

/* A C-style quoted name as git writes it; *s is past the opening quote. */
static int unquote(struct buf *b, const char **s, const char *end)
{
	while (*s < end && **s != '"') {
		if (**s == '\\') {
			(*s)++;
			if (unquote_escape(b, s, end) < 0)
				return -1;
		} else {
			buf_putc(b, *(*s)++);
		}
	}
	if (*s >= end)
		return -1;
	(*s)++;
	return 0;
}

/* Drop strip leading components ("a/", "linux.orig/"). */
static const char *strip_components(const char *name, int strip)
{
	const char *slash;

	for (; strip > 0; strip--) {
		if (!(slash = strchr(name, '/')))
			return NULL;
		name = slash + 1;
		while (*name == '/')
			name++;
	}
	return name;
}

/*
 * The name in s[0..len): quoted, or up to a tab (diff's timestamp).  Sets
 * *out to NULL for /dev/null; otherwise strips and checks it.
 */
static int parse_name(char **out, const char *s, size_t len, int strip, size_t lineno)
{
	struct buf b = BUF_INIT;
	const char *end = s + trim_eol(s, len), *tab, *name;
	int error = 0;

	*out = NULL;
	if (s < end && *s == '"') {
		s++;
		if (unquote(&b, &s, end) < 0) {
			error = tide_error_set(TIDE_EINVAL, "line %zu: bad quoted file name", lineno);
			goto done;
		}
	} else {
		tab = memchr(s, '\t', (size_t)(end - s));
		if (tab)
			end = tab;
		while (end > s && end[-1] == ' ')
			end--;
		buf_put(&b, s, (size_t)(end - s));
	}
	if (!strcmp(buf_cstr(&b), "/dev/null"))
		goto done;
	if (!(name = strip_components(buf_cstr(&b), strip))) {
		error = tide_error_set(TIDE_EINVAL, "line %zu: cannot strip %d components from '%s'",
				       lineno, strip, buf_cstr(&b));
		goto done;
	}
	if ((error = apply_check_path(name, lineno)) == 0)
		*out = xstrdup(name);
done:
	buf_release(&b);
	return error;
}

static long parse_num(const char **s, const char *end)
{
	long v = 0;

	if (*s >= end || **s < '0' || **s > '9')
		return -1;
	while (*s < end && **s >= '0' && **s <= '9') {
		v = v * 10 + (**s - '0');
		if (v > 1000000000L)
			return -1;
		(*s)++;
	}
	return v;
}

/* "-12,3" or "-12" (a count of 1). */
static int parse_range(const char **s, const char *end, char sign, long *start, long *count)
{
	if (*s >= end || **s != sign)
		return -1;
	(*s)++;
	if ((*start = parse_num(s, end)) < 0)
		return -1;
	*count = 1;
	if (*s < end && **s == ',') {
		(*s)++;
		if ((*count = parse_num(s, end)) < 0)
			return -1;
	}
	return 0;
}

static void add_line(struct apply_file *f, char op, const char *text, size_t len)
{
	array_grow(&f->lines, &f->alines, f->nlines + 1, sizeof(*f->lines));
	f->lines[f->nlines].op = op;
	f->lines[f->nlines].text = text;
	f->lines[f->nlines].len = len;
	f->nlines++;
}

/* "\ No newline at end of file": the line before it has no '\n'. */
static void no_newline(struct apply_file *f, size_t first)
{
	struct apply_line *l;

	if (f->nlines <= first)
		return;
	l = &f->lines[f->nlines - 1];
	if (l->len && l->text[l->len - 1] == '\n')
		l->len--;
}

/* One hunk line; *old and *new count down what the header announced. */
static int hunk_line(struct apply_file *f, const char *s, size_t len, long *old, long *new)
{
	char op = s[0] == '\n' ? ' ' : s[0];

	if (op != ' ' && op != '-' && op != '+')
		return -1;
	if ((op != '+' && --*old < 0) || (op != '-' && --*new < 0))
		return -1;
	/* An empty line is a context line whose space a mailer ate. */
	if (s[0] == '\n')
		add_line(f, ' ', s, len);
	else
		add_line(f, op, s + 1, len - 1);
	return 0;
}

static int parse_hunk_header(struct apply_hunk *h, const char *s, size_t len)
{
	const char *end = s + trim_eol(s, len);

	h->header = s;
	s += 3;
	if (parse_range(&s, end, '-', &h->old_start, &h->old_count) < 0 ||
	    s >= end || *s++ != ' ' ||
	    parse_range(&s, end, '+', &h->new_start, &h->new_count) < 0 ||
	    end - s < 3 || memcmp(s, " @@", 3))
		return -1;
	h->header_len = (size_t)(s + 3 - h->header);
	return 0;
}

static int parse_hunk(struct apply_file *f, struct rd *r)
{
	struct apply_hunk h;
	size_t len = rd_peek(r);
	long old, new;

	memset(&h, 0, sizeof(h));
	h.lineno = r->lineno;
	if (parse_hunk_header(&h, r->p, len) < 0)
		return tide_error_set(TIDE_EINVAL, "line %zu: bad hunk header '%.*s'", r->lineno,
				      (int)trim_eol(r->p, len), r->p);
	rd_skip(r, len);
	h.first = f->nlines;
	old = h.old_count, new = h.new_count;
	while (old > 0 || new > 0) {
		if (!(len = rd_peek(r)))
			return tide_error_set(TIDE_EINVAL, "line %zu: patch ends inside a hunk",
					      r->lineno);
		if (r->p[0] == '\\')
			no_newline(f, h.first);
		else if (hunk_line(f, r->p, len, &old, &new) < 0)
			return tide_error_set(TIDE_EINVAL, "line %zu: malformed hunk "
					      "(%ld old and %ld new lines missing)",
					      r->lineno, old, new);
		rd_skip(r, len);
	}
	if ((len = rd_peek(r)) && r->p[0] == '\\') {
		no_newline(f, h.first);
		rd_skip(r, len);
	}
	h.n = f->nlines - h.first;
	array_grow(&f->hunks, &f->ahunks, f->nhunks + 1, sizeof(*f->hunks));
	f->hunks[f->nhunks++] = h;
	return 0;
}

static int parse_hunks(struct apply_file *f, struct rd *r)
{
	size_t len;
	int error;

	while ((len = rd_peek(r)) && starts(r->p, len, "@@ -"))
		if ((error = parse_hunk(f, r)) < 0)
			return error;
	return 0;
}

/* "literal N" / "delta N" and its base85 lines, up to an empty line. */
static int parse_binary_part(struct apply_binary *b, struct rd *r)
{
	size_t len = rd_peek(r), skip;
	const char *s = r->p, *end = r->p + trim_eol(r->p, len);
	long size;

	if (starts(s, len, "literal "))
		skip = 8;
	else if (starts(s, len, "delta "))
		skip = 6, b->delta = 1;
	else
		return 0;
	s += skip;
	if ((size = parse_num(&s, end)) < 0 || s != end)
		return tide_error_set(TIDE_EINVAL, "line %zu: bad binary size", r->lineno);
	b->size = (size_t)size;
	rd_skip(r, len);
	b->data = r->p;
	b->lineno = r->lineno;
	while ((len = rd_peek(r)) && trim_eol(r->p, len))
		rd_skip(r, len);
	b->len = (size_t)(r->p - b->data);
	if (len)
		rd_skip(r, len);
	return 1;
}

static int parse_binary(struct apply_file *f, struct rd *r)
{
	size_t lineno = r->lineno;
	int rc;

	f->binary = 1;
	while (f->nbin < 2) {
		memset(&f->bin[f->nbin], 0, sizeof(f->bin[0]));
		if ((rc = parse_binary_part(&f->bin[f->nbin], r)) < 0)
			return rc;
		if (!rc)
			break;
		f->nbin++;
	}
	if (!f->nbin)
		return tide_error_set(TIDE_EINVAL, "line %zu: binary patch without data", lineno);
	return 0;
}

static unsigned parse_mode(const char *s, size_t len)
{
	unsigned m = 0;
	size_t i, n = trim_eol(s, len);

	for (i = 0; i < n && s[i] >= '0' && s[i] <= '7'; i++)
		m = m * 8 + (unsigned)(s[i] - '0');
	return i == n && i ? m : 0;
}

/* "index abc..def[ mode]" */
static void parse_index(struct apply_file *f, const char *s, size_t len)
{
	const char *end = s + trim_eol(s, len), *dots, *sp;
	size_t n;

	if (!(dots = memmem(s, (size_t)(end - s), "..", 2)))
		return;
	n = (size_t)(dots - s);
	if (n < sizeof(f->old_id))
		memcpy(f->old_id, s, n), f->old_id[n] = '\0';
	s = dots + 2;
	sp = memchr(s, ' ', (size_t)(end - s));
	n = (size_t)((sp ? sp : end) - s);
	if (n < sizeof(f->new_id))
		memcpy(f->new_id, s, n), f->new_id[n] = '\0';
	if (sp && !f->old_mode && !f->new_mode)
		f->old_mode = f->new_mode = parse_mode(sp + 1, (size_t)(end - sp - 1));
}

/*
 * The two names of "diff --git a/x b/x", needed when no other line names
 * the file (mode changes, binary, empty files).  Unquoted names with
 * spaces are ambiguous: take the split whose halves agree after -pN.
 */
static void git_line_names(char **a, char **b, const char *s, size_t len, int strip,
			   size_t lineno)
{
	const char *end = s + trim_eol(s, len), *sp;
	struct buf l = BUF_INIT, r = BUF_INIT;
	const char *la, *lb;

	*a = *b = NULL;
	if (s < end && *s == '"') {
		const char *q = s + 1;

		if (unquote(&l, &q, end) == 0 && q < end && *q == ' ' &&
		    parse_name(a, q + 1, (size_t)(end - q - 1), strip, lineno) == 0 && *a &&
		    (la = strip_components(buf_cstr(&l), strip)) && !apply_check_path(la, lineno))
			*b = *a, *a = xstrdup(la);
		goto done;
	}
	/* Both halves are copied: the line is not NUL-terminated where it ends. */
	for (sp = s; (sp = memchr(sp, ' ', (size_t)(end - sp))); sp++) {
		buf_clear(&l);
		buf_clear(&r);
		buf_put(&l, s, (size_t)(sp - s));
		buf_put(&r, sp + 1, (size_t)(end - sp - 1));
		la = strip_components(buf_cstr(&l), strip);
		lb = strip_components(buf_cstr(&r), strip);
		if (la && lb && !strcmp(la, lb) && !apply_check_path(la, lineno)) {
			*a = xstrdup(la), *b = xstrdup(la);
			break;
		}
	}
done:
	tide_error_clear();
	buf_release(&l);
	buf_release(&r);
}

static int set_name(char **slot, const char *s, size_t len, int strip, size_t lineno)
{
	free(*slot);
	*slot = NULL;
	return parse_name(slot, s, len, strip, lineno);
}

/* One extended header line; 1 if it was one, 0 if the header is over. */
static int git_header_line(struct apply_file *f, struct rd *r, int strip)
{
	const char *s = r->p;
	size_t len = rd_peek(r), ln = r->lineno;
	int rs = strip > 0 ? strip - 1 : 0;	/* rename/copy names have no a/ b/ */

	if (starts(s, len, "old mode "))
		f->old_mode = parse_mode(s + 9, len - 9);
	else if (starts(s, len, "new mode "))
		f->new_mode = parse_mode(s + 9, len - 9);
	else if (starts(s, len, "deleted file mode "))
		f->delete = 1, f->old_mode = parse_mode(s + 18, len - 18);
	else if (starts(s, len, "new file mode "))
		f->create = 1, f->new_mode = parse_mode(s + 14, len - 14);
	else if (starts(s, len, "rename from "))
		return f->rename = 1, set_name(&f->old_path, s + 12, len - 12, rs, ln) < 0 ? -1 : 1;
	else if (starts(s, len, "rename to "))
		return f->rename = 1, set_name(&f->new_path, s + 10, len - 10, rs, ln) < 0 ? -1 : 1;
	else if (starts(s, len, "copy from "))
		return f->copy = 1, set_name(&f->old_path, s + 10, len - 10, rs, ln) < 0 ? -1 : 1;
	else if (starts(s, len, "copy to "))
		return f->copy = 1, set_name(&f->new_path, s + 8, len - 8, rs, ln) < 0 ? -1 : 1;
	else if (starts(s, len, "index "))
		parse_index(f, s + 6, len - 6);
	else if (!starts(s, len, "similarity index ") && !starts(s, len, "dissimilarity index "))
		return 0;
	return 1;
}

/* "--- a/x" and "+++ b/x" at r; either may be /dev/null. */
static int parse_minus_plus(struct apply_file *f, struct rd *r, int strip)
{
	size_t len = rd_peek(r), len2 = rd_peek_at(r, r->p + len);
	char *old = NULL, *new = NULL;
	int error;

	if ((error = parse_name(&old, r->p + 4, len - 4, strip, r->lineno)) < 0 ||
	    (error = parse_name(&new, r->p + len + 4, len2 - 4, strip, r->lineno + 1)) < 0) {
		free(old);
		return error;
	}
	if (old || !f->create) {
		free(f->old_path);
		f->old_path = old;
	}
	if (new || !f->delete) {
		free(f->new_path);
		f->new_path = new;
	}
	f->create |= !old;
	f->delete |= !new;
	rd_skip(r, len);
	rd_skip(r, len2);
	return 0;
}

static int git_names(struct apply_file *f, const char *line, size_t len, int strip)
{
	char *a, *b;

	if ((f->old_path || f->create) && (f->new_path || f->delete))
		return 0;
	git_line_names(&a, &b, line + 11, len - 11, strip, f->lineno);
	if (!a)
		return tide_error_set(TIDE_EINVAL, "line %zu: cannot tell the file name from "
				      "'diff --git' line", f->lineno);
	if (!f->old_path && !f->create)
		f->old_path = a, a = NULL;
	if (!f->new_path && !f->delete)
		f->new_path = b, b = NULL;
	free(a);
	free(b);
	return 0;
}

static int parse_git_file(struct apply_file *f, struct rd *r, int strip)
{
	const char *line = r->p;
	size_t len = rd_peek(r), l;
	int rc;

	f->git = 1;
	rd_skip(r, len);
	while ((l = rd_peek(r))) {
		if (starts(r->p, l, "--- ") && starts(r->p + l, rd_peek_at(r, r->p + l), "+++ ")) {
			if ((rc = parse_minus_plus(f, r, strip)) < 0 || (rc = parse_hunks(f, r)) < 0)
				return rc;
			break;
		}
		if (starts(r->p, l, "GIT binary patch")) {
			rd_skip(r, l);
			if ((rc = parse_binary(f, r)) < 0)
				return rc;
			break;
		}
		if (starts(r->p, l, "Binary files ")) {
			f->binary = 1;
			rd_skip(r, l);
			break;
		}
		if ((rc = git_header_line(f, r, strip)) < 0)
			return rc;
		if (!rc)
			break;
		rd_skip(r, l);
	}
	return git_names(f, line, len, strip);
}

/* diff's timestamp for a file that did not exist (old quilt, diff -N). */
static int epoch_name(const char *s, size_t len)
{
	const char *tab = memchr(s, '\t', len);

	if (!tab)
		return 0;
	len -= (size_t)(tab + 1 - s);
	return starts(tab + 1, len, "1970-01-01 00:00:00") ||
	       starts(tab + 1, len, "1969-12-31 ");
}

/* A name that is not /dev/null has no directory: the patch was made with -p0. */
static int flat_name(const char *s, size_t len)
{
	const char *end = s + trim_eol(s, len), *tab = memchr(s, '\t', (size_t)(end - s));

	if (tab)
		end = tab;
	if (starts(s, (size_t)(end - s), "/dev/null"))
		return 0;
	return !memchr(s, '/', (size_t)(end - s));
}

/* The -pN to use: the caller's, or 1 unless a name has no directory. */
static int guess_strip(const struct rd *r, const struct apply_opts *o)
{
	size_t len = rd_peek(r);

	if (o->strip >= 0)
		return o->strip;
	return flat_name(r->p + 4, len - 4) ||
	       flat_name(r->p + len + 4, rd_peek_at(r, r->p + len) - 4) ? 0 : 1;
}

static int parse_plain_file(struct apply_file *f, struct rd *r, const struct apply_opts *o)
{
	size_t len = rd_peek(r), len2 = rd_peek_at(r, r->p + len);
	int strip = guess_strip(r, o), old_epoch = epoch_name(r->p, len);
	int new_epoch = epoch_name(r->p + len, len2), error;

	if (r->hint && parse_name(&f->hint, r->hint, r->hint_len, strip, f->lineno) < 0)
		tide_error_clear();	/* only a hint: the ---/+++ names decide */
	r->hint = NULL;
	if ((error = parse_minus_plus(f, r, strip)) < 0)
		return error;
	if (old_epoch && f->old_path && f->new_path) {
		free(f->old_path);
		f->old_path = NULL;
		f->create = 1;
	} else if (new_epoch && f->old_path && f->new_path) {
		free(f->new_path);
		f->new_path = NULL;
		f->delete = 1;
	}
	return parse_hunks(f, r);
}

#define SWAP(type, a, b) do { type t_ = (a); (a) = (b); (b) = t_; } while (0)

static int reverse_file(struct apply_file *f)
{
	size_t i;

	SWAP(char *, f->old_path, f->new_path);
	SWAP(int, f->create, f->delete);
	SWAP(unsigned, f->old_mode, f->new_mode);
	for (i = 0; i < sizeof(f->old_id); i++)
		SWAP(char, f->old_id[i], f->new_id[i]);
	for (i = 0; i < f->nhunks; i++) {
		SWAP(long, f->hunks[i].old_start, f->hunks[i].new_start);
		SWAP(long, f->hunks[i].old_count, f->hunks[i].new_count);
	}
	for (i = 0; i < f->nlines; i++)
		if (f->lines[i].op != ' ')
			f->lines[i].op = f->lines[i].op == '+' ? '-' : '+';
	if (f->nbin == 1)
		return tide_error_set(TIDE_EINVAL, "line %zu: binary patch cannot be reversed "
				      "(no reverse data)", f->lineno);
	if (f->nbin == 2)
		SWAP(struct apply_binary, f->bin[0], f->bin[1]);
	return 0;
}

static void file_release(struct apply_file *f)
{
	free(f->old_path);
	free(f->new_path);
	free(f->hint);
	free(f->lines);
	free(f->hunks);
}

void apply_parsed_release(struct apply_parsed *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nfiles; i++)
		file_release(&p->files[i]);
	free(p->files);
	memset(p, 0, sizeof(*p));
}

static struct apply_file *new_file(struct apply_parsed *p, size_t lineno)
{
	struct apply_file *f;

	array_grow(&p->files, &p->afiles, p->nfiles + 1, sizeof(*p->files));
	f = &p->files[p->nfiles++];
	memset(f, 0, sizeof(*f));
	f->lineno = lineno;
	return f;
}

static int check_lines(const char *diff, size_t len, size_t lineno)
{
	const char *p = diff, *end = diff + len, *nl;

	if (len > APPLY_MAX_PATCH)
		return tide_error_set(TIDE_EINVAL, "patch too large (%zu bytes, at most %u)",
				      len, APPLY_MAX_PATCH);
	for (; p < end; p = nl + 1, lineno++) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			nl = end;
		if ((size_t)(nl - p) > APPLY_MAX_LINE)
			return tide_error_set(TIDE_EINVAL, "line %zu: line too long", lineno);
	}
	return 0;
}

/* One step of the top level: a file patch starts at r, or r is skipped. */
static int parse_step(struct apply_parsed *out, struct rd *r, const struct apply_opts *o)
{
	size_t len = rd_peek(r);
	struct apply_file *f;
	int error;

	if (starts(r->p, len, "diff --git ")) {
		f = new_file(out, r->lineno);
		r->hint = NULL;
		error = parse_git_file(f, r, o->strip >= 0 ? o->strip : 1);
	} else if (starts(r->p, len, "--- ") &&
		   starts(r->p + len, rd_peek_at(r, r->p + len), "+++ ")) {
		f = new_file(out, r->lineno);
		error = parse_plain_file(f, r, o);
	} else if (starts(r->p, len, "@@ -")) {
		return tide_error_set(TIDE_EINVAL, "line %zu: hunk header outside a file patch",
				      r->lineno);
	} else {
		if (starts(r->p, len, "Index: "))
			r->hint = r->p + 7, r->hint_len = len - 7;
		rd_skip(r, len);
		return 0;
	}
	if (!error && o->reverse)
		error = reverse_file(f);
	return error;
}

int apply_parse(struct apply_parsed *out, const char *diff, size_t len,
		const struct apply_opts *o)
{
	struct rd r = { diff, diff + len, o->lineno, NULL, 0 };
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = check_lines(diff, len, o->lineno)) < 0)
		return error;
	while (rd_peek(&r))
		if ((error = parse_step(out, &r, o)) < 0) {
			apply_parsed_release(out);
			return error;
		}
	return 0;
}
