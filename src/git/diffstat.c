/* git diff --stat, reimplemented on a libgit2 diff (diffstat.h). */
#include <stdlib.h>
#include <string.h>

#include "diffstat.h"
#include "error.h"
#include "merge.h"
#include "util.h"

struct stat_file {
	char *name;		/* as printed: quoted, rename folded */
	size_t added, deleted;	/* lines, or for binary files the old and new size */
	int binary;
};

/* core.quotePath: a name with a byte git would escape is printed "quoted". */
static int needs_quote(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\' || c >= 0x7f;
}

static void quote_name(struct buf *out, const char *name)
{
	static const char esc[] = "\a\b\t\n\v\f\r";
	static const char letter[] = "abtnvfr";
	const unsigned char *p;
	const char *e;

	for (p = (const unsigned char *)name; *p && !needs_quote(*p); p++)
		;
	if (!*p) {
		buf_puts(out, name);
		return;
	}
	buf_putc(out, '"');
	for (p = (const unsigned char *)name; *p; p++) {
		if (!needs_quote(*p))
			buf_putc(out, (char)*p);
		else if (*p == '"' || *p == '\\')
			buf_printf(out, "\\%c", *p);
		else if (*p && (e = strchr(esc, *p)))
			buf_printf(out, "\\%c", letter[e - esc]);
		else
			buf_printf(out, "\\%03o", *p);
	}
	buf_putc(out, '"');
}

static int quoted(const char *name)
{
	const unsigned char *p;

	for (p = (const unsigned char *)name; *p; p++)
		if (needs_quote(*p))
			return 1;
	return 0;
}

/* "old => new" with the common leading directories and trailing path in braces. */
static void rename_name(struct buf *out, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), pfx = 0, sfx = 0, i, amid, bmid;
	const char *pa, *pb;

	if (quoted(a) || quoted(b)) {
		quote_name(out, a);
		buf_puts(out, " => ");
		quote_name(out, b);
		return;
	}
	for (i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			pfx = i + 1;
	/* The suffix may reach back onto the prefix's closing slash, no further. */
	pa = a + la;
	pb = b + lb;
	while (pa >= a + pfx - (pfx ? 1 : 0) && pb >= b + pfx - (pfx ? 1 : 0) && *pa == *pb) {
		if (*pa == '/')
			sfx = la - (size_t)(pa - a);
		if (pa == a || pb == b)
			break;
		pa--;
		pb--;
	}
	amid = la >= pfx + sfx ? la - pfx - sfx : 0;
	bmid = lb >= pfx + sfx ? lb - pfx - sfx : 0;
	if (pfx + sfx) {
		buf_put(out, a, pfx);
		buf_putc(out, '{');
	}
	buf_put(out, a + pfx, amid);
	buf_puts(out, " => ");
	buf_put(out, b + pfx, bmid);
	if (pfx + sfx) {
		buf_putc(out, '}');
		buf_put(out, a + la - sfx, sfx);
	}
}

static int decimal_width(size_t n)
{
	int w = 1;

	for (; n >= 10; n /= 10)
		w++;
	return w;
}

/* At least one column for any change: scale as if one column shorter, add one. */
static size_t scale_linear(size_t it, size_t width, size_t max_change)
{
	return it ? 1 + it * (width - 1) / max_change : 0;
}

static size_t blob_size(git_repository *repo, const git_diff_file *f)
{
	git_blob *blob = NULL;
	size_t size = 0;

	if (!(f->flags & GIT_DIFF_FLAG_VALID_ID) || git_oid_is_zero(&f->id))
		return 0;
	if (git_blob_lookup(&blob, repo, &f->id) == 0)
		size = (size_t)git_blob_rawsize(blob);
	git_blob_free(blob);
	return size;
}

static int collect(struct stat_file **out, size_t *n, git_repository *repo, git_diff *diff)
{
	size_t i, nd = git_diff_num_deltas(diff);
	struct stat_file *files = xcalloc(nd ? nd : 1, sizeof(*files));
	int error = 0;

	for (i = 0; i < nd; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		struct stat_file *f = &files[i];
		struct buf name = BUF_INIT;
		git_patch *patch = NULL;

		if (d->status == GIT_DELTA_RENAMED || d->status == GIT_DELTA_COPIED)
			rename_name(&name, d->old_file.path, d->new_file.path);
		else
			quote_name(&name, d->new_file.path ? d->new_file.path : d->old_file.path);
		f->name = buf_detach(&name);
		if (merge_diff_over_limits(repo, &d->old_file.id, &d->new_file.id, &f->deleted,
					   &f->added)) {
			f->binary = 1;	/* too big to diff by lines (merge.h) */
			continue;
		}
		if ((error = git_patch_from_diff(&patch, diff, i)) < 0) {
			error = tide_error_git(TIDE_ERROR, "diffstat of %s", f->name);
			break;
		}
		if (git_patch_get_delta(patch)->flags & GIT_DIFF_FLAG_BINARY) {
			f->binary = 1;
			f->deleted = blob_size(repo, &d->old_file);
			f->added = blob_size(repo, &d->new_file);
		} else {
			git_patch_line_stats(NULL, &f->added, &f->deleted, patch);
		}
		git_patch_free(patch);
	}
	*out = files;
	*n = i;
	return error;
}

struct layout {
	size_t max_change, max_len;
	int number_width, bin_width, name_width, graph_width;
};

static void lay_out(struct layout *l, const struct stat_file *files, size_t n, int width)
{
	size_t i;
	int graph;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < n; i++) {
		const struct stat_file *f = &files[i];

		if (strlen(f->name) > l->max_len)
			l->max_len = strlen(f->name);
		if (f->binary) {
			/* "Bin OLD -> NEW bytes", change counts aligned with "Bin" */
			int w = 14 + decimal_width(f->added) + decimal_width(f->deleted);

			if (w > l->bin_width)
				l->bin_width = w;
			l->number_width = 3;
		} else if (f->added + f->deleted > l->max_change) {
			l->max_change = f->added + f->deleted;
		}
	}
	if (decimal_width(l->max_change) > l->number_width)
		l->number_width = decimal_width(l->max_change);
	if (width < 16 + 6 + l->number_width)
		width = 16 + 6 + l->number_width;
	graph = (int)l->max_change + 4 > l->bin_width ? (int)l->max_change : l->bin_width - 4;
	l->name_width = (int)l->max_len;
	/* Too wide: the graph gets at most 3/8 of the line, the name the rest. */
	if (l->name_width + l->number_width + 6 + graph > width) {
		if (graph > width * 3 / 8 - l->number_width - 6) {
			graph = width * 3 / 8 - l->number_width - 6;
			if (graph < 6)
				graph = 6;
		}
		if (l->name_width > width - l->number_width - 6 - graph)
			l->name_width = width - l->number_width - 6 - graph;
		else
			graph = width - l->number_width - 6 - l->name_width;
	}
	l->graph_width = graph;
}

static void file_line(struct buf *out, const struct stat_file *f, const struct layout *l)
{
	const char *name = f->name, *prefix = "", *slash;
	int len = l->name_width, padding;
	size_t add = f->added, del = f->deleted, total;

	if ((int)strlen(name) > len) {
		prefix = "...";
		len = len > 3 ? len - 3 : 0;
		name += strlen(name) - (size_t)len;
		if ((slash = strchr(name, '/')))
			name = slash;
	}
	padding = len - (int)strlen(name);
	if (padding < 0)
		padding = 0;
	buf_printf(out, " %s%s%*s | ", prefix, name, padding, "");
	if (f->binary) {
		buf_printf(out, "%*s", l->number_width, "Bin");
		if (f->added || f->deleted)
			buf_printf(out, " %zu -> %zu bytes", f->deleted, f->added);
		buf_putc(out, '\n');
		return;
	}
	if ((size_t)l->graph_width <= l->max_change) {
		total = scale_linear(add + del, (size_t)l->graph_width, l->max_change);
		if (total < 2 && add && del)
			total = 2;
		if (add < del) {
			add = scale_linear(add, (size_t)l->graph_width, l->max_change);
			del = total - add;
		} else {
			del = scale_linear(del, (size_t)l->graph_width, l->max_change);
			add = total - del;
		}
	}
	buf_printf(out, "%*zu%s", l->number_width, f->added + f->deleted,
		   f->added + f->deleted ? " " : "");
	for (; add; add--)
		buf_putc(out, '+');
	for (; del; del--)
		buf_putc(out, '-');
	buf_putc(out, '\n');
}

static void summary_line(struct buf *out, const struct stat_file *files, size_t n)
{
	size_t i, adds = 0, dels = 0;

	for (i = 0; i < n; i++)
		if (!files[i].binary) {
			adds += files[i].added;
			dels += files[i].deleted;
		}
	buf_printf(out, " %zu file%s changed", n, n == 1 ? "" : "s");
	if (adds || !dels)
		buf_printf(out, ", %zu insertion%s(+)", adds, adds == 1 ? "" : "s");
	if (dels || !adds)
		buf_printf(out, ", %zu deletion%s(-)", dels, dels == 1 ? "" : "s");
	buf_putc(out, '\n');
}

int diffstat_format(struct buf *out, git_repository *repo, git_diff *diff, int width)
{
	struct stat_file *files = NULL;
	struct layout l;
	size_t n = 0, i;
	int error;

	if ((error = collect(&files, &n, repo, diff)) == 0 && n) {
		lay_out(&l, files, n, width);
		for (i = 0; i < n; i++)
			file_line(out, &files[i], &l);
		summary_line(out, files, n);
	}
	for (i = 0; i < n; i++)
		free(files[i].name);
	free(files);
	return error;
}
