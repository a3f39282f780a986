#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "patch.h"
#include "quilt.h"
#include "util.h"

/*
 * A posting as it comes from a list archive or b4: mbox messages to the
 * patches of one series.  Each mail is parsed by patch.c; here they are
 * split, sorted out (replies, cover letter, revisions) and checked
 * (missing and duplicate numbers).  Errors name the message by number,
 * line and subject.
 */

/* One mail of the input, as parsed. */
struct entry {
	struct patch p;
	char *where;		/* "message 3 (line 120, '[PATCH 2/3] x')" for errors */
	int has_diff;
};

struct entries {
	struct entry *v;
	size_t n, alloc;
	int ordered;		/* a quilt series file gave the order */
};

static void entries_release(struct entries *e)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		patch_release(&e->v[i].p);
		free(e->v[i].where);
	}
	free(e->v);
	memset(e, 0, sizeof(*e));
}

static int next_line(const char **p, const char *end, const char **line, size_t *len)
{
	const char *nl;

	if (*p >= end)
		return 0;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	*line = *p;
	*len = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	*p = nl ? nl + 1 : end;
	return 1;
}

/* "From <sender> <date with a time>" (mailsplit's test, a little looser). */
static int is_from_line(const char *line, size_t len)
{
	size_t i;

	if (len < 12 || memcmp(line, "From ", 5))
		return 0;
	for (i = 6; i + 2 < len; i++)
		if (line[i] == ':' && isdigit((unsigned char)line[i - 1]) &&
		    isdigit((unsigned char)line[i + 1]) && isdigit((unsigned char)line[i + 2]))
			return 1;
	return 0;
}

static int is_header_line(const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < len && line[i] != ':'; i++)
		if ((unsigned char)line[i] <= ' ' || (unsigned char)line[i] >= 127)
			return 0;
	return i > 0 && i < len;
}

/* The raw Subject: of a mail, printable and short: only for naming it in errors. */
static char *peek_subject(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *line;
	struct buf b = BUF_INIT;
	size_t n, i;
	char *out;

	while (next_line(&p, end, &line, &n) && n) {
		if (n > 8 && !strncasecmp(line, "subject:", 8)) {
			for (i = 8; i < n && b.len < 80; i++)
				buf_putc(&b, (unsigned char)line[i] < ' ' ||
					     (unsigned char)line[i] >= 127 ? '?' : line[i]);
			break;
		}
	}
	buf_puts(&b, "");
	str_rtrim(b.ptr);
	out = xstrdup(b.ptr + strspn(b.ptr, " \t"));
	buf_release(&b);
	return out;
}

/* mboxrd: ">From " in a body was "From "; one '>' comes off. */
static void unquote(struct buf *out, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *line;
	size_t n, q;

	while (next_line(&p, end, &line, &n)) {
		for (q = 0; q < n && line[q] == '>'; q++)
			;
		if (q && n - q >= 5 && !memcmp(line + q, "From ", 5))
			line++, n--;
		buf_put(out, line, n);
		buf_putc(out, '\n');
	}
}

/* Parse one mail of the input into a new entry; where (freed here) names it. */
static int add_mail(struct entries *e, const char *text, size_t len, char *where)
{
	struct buf mail = BUF_INIT;
	struct entry *en;
	char *subject = peek_subject(text, len);
	int error;

	array_grow(&e->v, &e->alloc, e->n + 1, sizeof(*e->v));
	en = &e->v[e->n];
	memset(en, 0, sizeof(*en));
	en->where = *subject ? xasprintf("%s, '%s'", where, subject) : xstrdup(where);
	/* Refused before a copy is made: a 1 GB attachment is not a patch. */
	if (len > PATCH_MAX_MESSAGE) {
		error = tide_error_set(TIDE_EINVAL, "%s: %zu bytes, over the %u MB limit of a mail",
				       en->where, len, PATCH_MAX_MESSAGE >> 20);
		goto done;
	}
	unquote(&mail, text, len);
	error = patch_parse_mail(&en->p, buf_cstr(&mail), mail.len, 0);
	if (error < 0 && !strncasecmp(subject, "re:", 3)) {
		/* A reply is skipped anyway: what it says cannot break the series. */
		tide_error_clear();
		error = 1;
	} else if (error < 0) {
		error = tide_error_wrap(error, "%s", en->where);
	}
done:
	if (error == 0) {
		en->has_diff = en->p.diff != NULL;
		e->n++;
	} else {
		free(en->where);
	}
	buf_release(&mail);
	free(subject);
	free(where);
	return error < 0 ? error : 0;
}

/* Split an mbox into its mails; a text that is one mail without "From " is fine. */
static int add_mbox(struct entries *e, const char *text, size_t len, const char *name)
{
	const char *p = text, *end = text + len, *line = NULL, *start = NULL;
	size_t n = 0, lineno = 0, start_line = 0, count = 0;
	int prev_empty = 1, error = 0;

	if (!len)
		return tide_error_set(TIDE_EINVAL, "%s: empty", name);
	next_line(&p, end, &line, &n);
	if (!is_from_line(line, n) && !is_header_line(line, n))
		return tide_error_set(TIDE_EINVAL, "%s: not an mbox: line 1 is neither a "
				      "'From ' line nor a mail header", name);
	for (p = text; !error;) {
		const char *at = p;
		int more = next_line(&p, end, &line, &n);

		lineno++;
		if (more && !(prev_empty && is_from_line(line, n)) && start) {
			prev_empty = n == 0;
			continue;
		}
		if (start)
			error = add_mail(e, start, (size_t)(at - start),
					 xasprintf("%s: message %zu (line %zu)", name, ++count,
						   start_line));
		if (!more)
			break;
		start = at, start_line = lineno, prev_empty = n == 0;
	}
	return error;
}

/* ---- the series ---- */

static void add_prereq(struct patch_series *s, const char *id)
{
	size_t i;

	for (i = 0; i < s->nprereq; i++)
		if (!strcmp(s->prereq_patch_ids[i], id))
			return;
	s->prereq_patch_ids = xrealloc(s->prereq_patch_ids, (s->nprereq + 1) * sizeof(char *));
	s->prereq_patch_ids[s->nprereq++] = xstrdup(id);
}

static void take_base_info(struct patch_series *s, const struct patch *p)
{
	size_t i;

	if (p->base_commit && !s->base_commit)
		s->base_commit = xstrdup(p->base_commit);
	for (i = 0; i < p->nprereq; i++)
		add_prereq(s, p->prereq_patch_ids[i]);
}

static int version_of(const struct patch *p)
{
	return p->version ? p->version : 1;
}

/* Is entry i a patch of the chosen revision (not a reply, cover letter or mail without diff)? */
static int is_member(const struct entries *e, size_t i, int version)
{
	const struct entry *en = &e->v[i];

	return en->has_diff && !en->p.is_reply && version_of(&en->p) == version;
}

static int cmp_number(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a, *y = *(const struct entry *const *)b;

	return x->p.number < y->p.number ? -1 : x->p.number > y->p.number;
}

/* The message that says it is number/total but has no diff, for a better error. */
static const char *nodiff_with(const struct entries *e, int number, int version)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (!e->v[i].has_diff && !e->v[i].p.is_reply && e->v[i].p.number == number &&
		    version_of(&e->v[i].p) == version)
			return e->v[i].where;
	return NULL;
}

/* Numbers 1..total, each once. */
static int check_numbers(const struct entries *e, struct entry **v, size_t n, int version)
{
	int total = 0, want = 1;
	size_t i;
	const char *nd;

	for (i = 0; i < n; i++) {
		if (!v[i]->p.total)
			return tide_error_set(TIDE_EINVAL, "%s: no n/m number, in a numbered series",
					      v[i]->where);
		if (v[i]->p.total > total)
			total = v[i]->p.total;
		if (i && v[i]->p.number == v[i - 1]->p.number)
			return tide_error_set(TIDE_EINVAL, "duplicate patch %d/%d (v%d): %s and %s",
					      v[i]->p.number, v[i]->p.total, version,
					      v[i - 1]->where, v[i]->where);
	}
	for (i = 0; i < n && total; i++, want++)
		if (v[i]->p.number != want)
			break;
	if (total && (i < n || want <= total)) {
		nd = nodiff_with(e, want, version);
		return tide_error_set(TIDE_EINVAL, "patch %d/%d of the series (v%d) is missing%s%s%s",
				      want, total, version, nd ? " (" : "", nd ? nd : "",
				      nd ? " has no diff)" : "");
	}
	return 0;
}

static int numbered(struct entry *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i]->p.total)
			return 1;
	return 0;
}

/* The cover letter (0/m, no diff) of the revision, if any. */
static void take_cover(struct patch_series *s, const struct entries *e, int version)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		const struct patch *p = &e->v[i].p;

		if (!e->v[i].has_diff && !p->is_reply && p->number == 0 && p->total > 0 &&
		    version_of(p) == version) {
			free(s->cover_subject);
			s->cover_subject = xstrdup(p->subject ? p->subject : "");
			take_base_info(s, p);
		}
	}
}

static int assemble(struct patch_series *out, struct entries *e, const char *name)
{
	struct entry **v = NULL;
	size_t i, n = 0;
	int version = 0, error;

	for (i = 0; i < e->n; i++)
		if (e->v[i].has_diff && !e->v[i].p.is_reply && version_of(&e->v[i].p) > version)
			version = version_of(&e->v[i].p);
	if (!version)
		return tide_error_set(TIDE_EINVAL, "%s: no patch: every mail is a reply or has no diff",
				      name);
	v = xcalloc(e->n, sizeof(*v));
	for (i = 0; i < e->n; i++)
		if (is_member(e, i, version))
			v[n++] = &e->v[i];
	/* Unnumbered "[PATCH]" mails (or a series file) keep the order they come in. */
	if (!e->ordered && numbered(v, n)) {
		qsort(v, n, sizeof(*v), cmp_number);
		if ((error = check_numbers(e, v, n, version)) < 0) {
			error = tide_error_wrap(error, "%s", name);
			goto done;
		}
	}
	out->version = version;
	take_cover(out, e, version);
	out->patches = xcalloc(n, sizeof(*out->patches));
	for (i = 0; i < n; i++) {
		take_base_info(out, &v[i]->p);
		out->patches[out->n++] = v[i]->p;
		memset(&v[i]->p, 0, sizeof(v[i]->p));	/* moved to out */
	}
	error = 0;
done:
	free(v);
	return error;
}

int patch_series_from_mbox(struct patch_series *out, const char *text, size_t len)
{
	struct entries e = { NULL, 0, 0, 0 };
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = add_mbox(&e, text, len, "mbox")) == 0)
		error = assemble(out, &e, "mbox");
	entries_release(&e);
	if (error < 0)
		patch_series_release(out);
	return error;
}

/* ---- files and directories ---- */

/* Map a file read-only: a 1 GB mbox is looked at, never copied whole. */
static int map_file(const char *path, const char **data, size_t *len)
{
	struct stat st;
	void *m;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*data = NULL, *len = 0;
	if (fd < 0)
		return tide_error_errno(TIDE_EIO, "cannot open '%s'", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return tide_error_set(TIDE_EIO, "'%s' is not a regular file", path);
	}
	if (st.st_size == 0) {
		close(fd);
		return 0;
	}
	if ((unsigned long long)st.st_size > PATCH_MAX_FILE) {
		close(fd);
		return tide_error_set(TIDE_EINVAL, "'%s' is %llu MB, over the %u MB limit of a "
				      "series file", path, (unsigned long long)st.st_size >> 20,
				      PATCH_MAX_FILE >> 20);
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return tide_error_errno(TIDE_EIO, "cannot map '%s'", path);
	*data = m, *len = (size_t)st.st_size;
	return 0;
}

static void unmap_file(const char *data, size_t len)
{
	if (data)
		munmap((void *)data, len);
}

static int add_file(struct entries *e, const char *path, const char *name)
{
	const char *data;
	size_t len;
	int error;

	if ((error = map_file(path, &data, &len)) < 0)
		return error;
	error = add_mbox(e, data, len, name);
	unmap_file(data, len);
	return error;
}

static int is_patch_name(const char *name)
{
	static const char *const ext[] = { ".patch", ".diff", ".eml", ".mbox", ".mbx" };
	size_t i;

	if (name[0] == '.')
		return 0;
	for (i = 0; i < ARRAY_SIZE(ext); i++)
		if (str_ends_with(name, ext[i]))
			return 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The patch files of dir in name order (format-patch numbers them so). */
static int list_dir(struct quilt_series *out, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t alloc = 0;

	memset(out, 0, sizeof(*out));
	if (!d)
		return tide_error_errno(TIDE_EIO, "cannot read directory '%s'", dir);
	while ((de = readdir(d)) != NULL) {
		if (!is_patch_name(de->d_name))
			continue;
		array_grow(&out->patches, &alloc, out->npatches + 1, sizeof(char *));
		out->patches[out->npatches++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (out->npatches)
		qsort(out->patches, out->npatches, sizeof(char *), cmp_str);
	return 0;
}

static int series_file(struct quilt_series *out, struct entries *e, const char *dir)
{
	struct buf text = BUF_INIT;
	char *path = path_join(dir, "series");
	int error;

	if (!path_exists(path)) {
		free(path);
		return list_dir(out, dir);
	}
	e->ordered = 1;
	if ((error = file_read(&text, path)) == 0)
		error = quilt_series_parse(out, buf_cstr(&text));
	buf_release(&text);
	free(path);
	return error;
}

int patch_series_from_dir(struct patch_series *out, const char *dir)
{
	struct entries e = { NULL, 0, 0, 0 };
	struct quilt_series names = { NULL, 0, NULL };
	size_t i;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = series_file(&names, &e, dir)) < 0)
		goto done;
	if (!names.npatches) {
		error = tide_error_set(TIDE_EINVAL, "no patches in '%s'", dir);
		goto done;
	}
	for (i = 0; i < names.npatches && !error; i++) {
		char *path = path_join(dir, names.patches[i]);

		error = add_file(&e, path, names.patches[i]);
		free(path);
	}
	if (!error)
		error = assemble(out, &e, dir);
done:
	quilt_series_release(&names);
	entries_release(&e);
	if (error < 0)
		patch_series_release(out);
	return error;
}

int patch_series_from_path(struct patch_series *out, const char *path)
{
	struct entries e = { NULL, 0, 0, 0 };
	int error;

	memset(out, 0, sizeof(*out));
	if (path_is_dir(path))
		return patch_series_from_dir(out, path);
	if ((error = add_file(&e, path, path)) == 0)
		error = assemble(out, &e, path);
	entries_release(&e);
	if (error < 0)
		patch_series_release(out);
	return error;
}

void patch_series_release(struct patch_series *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		patch_release(&s->patches[i]);
	free(s->patches);
	for (i = 0; i < s->nprereq; i++)
		free(s->prereq_patch_ids[i]);
	free(s->prereq_patch_ids);
	free(s->base_commit);
	free(s->cover_subject);
	memset(s, 0, sizeof(*s));
}
