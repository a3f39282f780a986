/*
 * Line ranges carried through diffs, as git log -L does (lineblame.h).
 * The range arithmetic follows git's line-log.c rule for rule, quirks
 * included, so that the commits named are the ones `git log -L` lists.
 */
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "buf.h"
#include "error.h"
#include "lineblame.h"
#include "util.h"

void line_ranges_release(struct line_ranges *r)
{
	free(r->v);
	free(r->points);
	memset(r, 0, sizeof(*r));
}

static void ranges_push(struct line_ranges *r, long start, long end)
{
	array_grow(&r->v, &r->alloc, r->n + 1, sizeof(*r->v));
	r->v[r->n].start = start;
	r->v[r->n++].end = end;
}

static void points_add(struct line_ranges *r, long at)
{
	size_t i;

	for (i = 0; i < r->npoints; i++)
		if (r->points[i] == at)
			return;
	array_grow(&r->points, &r->points_alloc, r->npoints + 1, sizeof(*r->points));
	r->points[r->npoints++] = at;
}

/* git's range_set_union(): out = a | b, empty ranges dropped, meeting ones merged. */
static void ranges_union(struct line_ranges *out, const struct line_range *a, size_t na,
			 const struct line_range *b, size_t nb)
{
	size_t i = 0, j = 0;

	while (i < na || j < nb) {
		const struct line_range *r;

		if (i < na && j < nb) {
			if (a[i].start != b[j].start)
				r = a[i].start < b[j].start ? &a[i++] : &b[j++];
			else
				r = a[i].end < b[j].end ? &a[i++] : &b[j++];
		} else {
			r = i < na ? &a[i++] : &b[j++];
		}
		if (r->start == r->end)
			continue;
		if (!out->n || out->v[out->n - 1].end < r->start)
			ranges_push(out, r->start, r->end);
		else if (out->v[out->n - 1].end < r->end)
			out->v[out->n - 1].end = r->end;
	}
}

void line_ranges_union(struct line_ranges *out, const struct line_ranges *a)
{
	struct line_ranges tmp = { 0 };
	size_t i;

	ranges_union(&tmp, out->v, out->n, a->v, a->n);
	free(out->v);
	out->v = tmp.v;
	out->n = tmp.n;
	out->alloc = tmp.alloc;
	for (i = 0; i < a->npoints; i++)
		points_add(out, a->points[i]);
}

void line_ranges_add(struct line_ranges *r, long start, long end)
{
	struct line_range one = { start, end };
	struct line_ranges tmp = { 0 };

	if (start == end) {
		points_add(r, start);
		return;
	}
	ranges_union(&tmp, r->v, r->n, &one, 1);
	free(r->v);
	r->v = tmp.v;
	r->n = tmp.n;
	r->alloc = tmp.alloc;
}

int line_ranges_empty(const struct line_ranges *r)
{
	return !r->n && !r->npoints;
}

char *line_ranges_format(const struct line_ranges *r)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < r->n; i++)
		buf_printf(&b, "%s%ld,%ld", i ? " " : "", r->v[i].start + 1, r->v[i].end);
	for (i = 0; i < r->npoints; i++)
		buf_printf(&b, "%s@%ld", b.len ? " " : "", r->points[i]);
	return buf_detach(&b);
}

/* ---- diffs ---- */

void line_diff_release(struct line_diff *d)
{
	free(d->parent);
	free(d->target);
	memset(d, 0, sizeof(*d));
}

/* A unified-diff hunk start (1-based; the line before when count is 0) as a 0-based range. */
static struct line_range hunk_range(int start, int count)
{
	struct line_range r;

	r.start = count ? start - 1 : start;
	r.end = r.start + count;
	return r;
}

static int diff_hunk(const git_diff_delta *delta, const git_diff_hunk *h, void *payload)
{
	struct line_diff *d = payload;
	size_t alloc = d->alloc;

	(void)delta;
	array_grow(&d->parent, &alloc, d->n + 1, sizeof(*d->parent));
	array_grow(&d->target, &d->alloc, d->n + 1, sizeof(*d->target));
	d->parent[d->n] = hunk_range(h->old_start, h->old_lines);
	d->target[d->n++] = hunk_range(h->new_start, h->new_lines);
	return 0;
}

int line_diff_compute(struct line_diff *out, const char *parent, size_t plen,
		      const char *target, size_t tlen)
{
	git_diff_options opts;

	memset(out, 0, sizeof(*out));
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.context_lines = 0;
	opts.interhunk_lines = 0;
	opts.flags |= GIT_DIFF_FORCE_TEXT;
	if (git_diff_buffers(parent, plen, NULL, target, tlen, NULL, &opts, NULL, NULL,
			     diff_hunk, NULL, out) < 0) {
		line_diff_release(out);
		return tide_error_git(TIDE_ERROR, "cannot diff two versions of a file");
	}
	return 0;
}

/* ---- carrying ranges across a diff (git's range_set_map_across_diff()) ---- */

static int ranges_overlap(const struct line_range *a, const struct line_range *b)
{
	return !(a->end <= b->start || b->end <= a->start);
}

/*
 * The hunks of d touching rs, as git's diff_ranges_filter_touched():
 * each hunk is checked against the first range not ending before it
 * starts, only (a hunk in the gap after a range that ends where it
 * starts is not checked against the next range: git does the same).
 */
static void filter_touched(struct line_diff *out, const struct line_diff *d,
			   const struct line_ranges *rs)
{
	size_t i, j = 0;

	if (!rs->n)
		return;
	for (i = 0; i < d->n; i++) {
		while (d->target[i].start > rs->v[j].end)
			if (++j == rs->n)
				return;
		if (ranges_overlap(&d->target[i], &rs->v[j])) {
			size_t alloc = out->alloc;

			array_grow(&out->parent, &alloc, out->n + 1, sizeof(*out->parent));
			array_grow(&out->target, &out->alloc, out->n + 1, sizeof(*out->target));
			out->parent[out->n] = d->parent[i];
			out->target[out->n++] = d->target[i];
		}
	}
}

/* out = a minus the lines of b (git's range_set_difference()). */
static void ranges_difference(struct line_ranges *out, const struct line_ranges *a,
			      const struct line_range *b, size_t nb)
{
	size_t i, j = 0;

	for (i = 0; i < a->n; i++) {
		long start = a->v[i].start, end = a->v[i].end;

		while (start < end) {
			while (j < nb && start >= b[j].end)
				j++;
			if (j >= nb || end <= b[j].start) {
				ranges_push(out, start, end);
				break;
			}
			if (start < b[j].start)
				ranges_push(out, start, b[j].start);
			start = b[j].end;
		}
	}
}

/* Each range moved by the lines the hunks before it add or remove (git's range_set_shift_diff()). */
static void ranges_shift(struct line_ranges *out, const struct line_ranges *rs,
			 const struct line_diff *d)
{
	size_t i, j = 0;
	long offset = 0;

	for (i = 0; i < rs->n; i++) {
		while (j < d->n && rs->v[i].start >= d->target[j].start) {
			offset += (d->parent[j].end - d->parent[j].start) -
				  (d->target[j].end - d->target[j].start);
			j++;
		}
		ranges_push(out, rs->v[i].start + offset, rs->v[i].end + offset);
	}
}

/*
 * A point (the place of lines one side removed, or next to which it
 * added lines the other side did not): a hunk there is the change; if it
 * removed lines the trace goes on from them, if it only added lines it
 * ends.  Otherwise the point moves with the hunks before it.
 */
static int map_point(struct line_ranges *out, long at, const struct line_diff *d)
{
	long offset = 0;
	size_t j;

	for (j = 0; j < d->n; j++) {
		const struct line_range *t = &d->target[j], *p = &d->parent[j];

		if (t->start <= at && at <= t->end) {
			if (p->end > p->start)
				line_ranges_add(out, p->start, p->end);
			return 1;
		}
		if (t->end > at)
			break;
		offset += (p->end - p->start) - (t->end - t->start);
	}
	points_add(out, at + offset);
	return 0;
}

int line_ranges_map(struct line_ranges *out, const struct line_ranges *rs,
		    const struct line_diff *d)
{
	struct line_diff touched = { 0 };
	struct line_ranges left = { 0 }, shifted = { 0 };
	int hit;
	size_t i;

	filter_touched(&touched, d, rs);
	ranges_difference(&left, rs, touched.target, touched.n);
	ranges_shift(&shifted, &left, d);
	ranges_union(out, shifted.v, shifted.n, touched.parent, touched.n);
	hit = touched.n > 0;
	for (i = 0; i < rs->npoints; i++)
		hit |= map_point(out, rs->points[i], d);
	line_diff_release(&touched);
	line_ranges_release(&left);
	line_ranges_release(&shifted);
	return hit;
}

/* ---- carrying ranges without a diff ---- */

/* The lines of a text: where each starts; starts[n] is the length. */
struct lines {
	const char *text;
	size_t *starts;
	size_t n;
};

static void lines_split(struct lines *l, const char *text, size_t len)
{
	size_t alloc = 0, at = 0;
	const char *nl;

	l->text = text;
	l->n = 0;
	l->starts = NULL;
	while (at < len) {
		array_grow(&l->starts, &alloc, l->n + 2, sizeof(*l->starts));
		l->starts[l->n++] = at;
		nl = memchr(text + at, '\n', len - at);
		at = nl ? (size_t)(nl - text) + 1 : len;
	}
	array_grow(&l->starts, &alloc, l->n + 1, sizeof(*l->starts));
	l->starts[l->n] = len;
}

static int line_eq(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	size_t la = a->starts[i + 1] - a->starts[i], lb = b->starts[j + 1] - b->starts[j];

	return la == lb && !memcmp(a->text + a->starts[i], b->text + b->starts[j], la);
}

/* Is line i of a equal to one of lines [from, to) of b or of c's [cfrom, cto)? */
static int line_in(const struct lines *a, size_t i, const struct lines *b, size_t from, size_t to,
		   const struct lines *c, size_t cfrom, size_t cto)
{
	size_t j;

	for (j = from; j < to; j++)
		if (line_eq(a, i, b, j))
			return 1;
	for (j = cfrom; j < cto; j++)
		if (line_eq(a, i, c, j))
			return 1;
	return 0;
}

#define QUICK_MIDDLE_MAX 64	/* lines in the middle parts, above which the diff is run */

int line_ranges_map_quick(struct line_ranges *out, const struct line_ranges *rs,
			  const char *parent, size_t plen, const char *target, size_t tlen)
{
	struct lines a, b;
	size_t pre = 0, suf = 0, i, lo, hi;
	long shift;
	int rc = 1;

	lines_split(&a, parent, plen);
	lines_split(&b, target, tlen);
	while (pre < a.n && pre < b.n && line_eq(&a, pre, &b, pre))
		pre++;
	while (suf < a.n - pre && suf < b.n - pre && line_eq(&a, a.n - 1 - suf, &b, b.n - 1 - suf))
		suf++;
	if ((a.n - pre - suf) + (b.n - pre - suf) > QUICK_MIDDLE_MAX)
		goto done;
	/* the hunks lie in target lines [lo, hi], the middle and how far a hunk may slide */
	for (lo = pre; lo > 0 && line_in(&b, lo - 1, &a, pre, a.n - suf, &b, pre, b.n - suf); lo--)
		;
	for (hi = b.n - suf; hi < b.n && line_in(&b, hi, &a, pre, a.n - suf, &b, pre, b.n - suf); hi++)
		;
	shift = (long)a.n - (long)b.n;
	for (i = 0; i < rs->n; i++)
		if (rs->v[i].end > (long)lo && rs->v[i].start < (long)hi)
			goto done;
	for (i = 0; i < rs->npoints; i++)
		if (rs->points[i] >= (long)lo && rs->points[i] <= (long)hi)
			goto done;
	for (i = 0; i < rs->n; i++) {
		long d = rs->v[i].start >= (long)hi ? shift : 0;

		line_ranges_add(out, rs->v[i].start + d, rs->v[i].end + d);
	}
	for (i = 0; i < rs->npoints; i++)
		points_add(out, rs->points[i] + (rs->points[i] > (long)hi ? shift : 0));
	rc = 0;
done:
	free(a.starts);
	free(b.starts);
	return rc;
}

/* ---- conflict markers ---- */

enum marker { MK_NONE, MK_OPEN, MK_BASE, MK_SEP, MK_CLOSE };

static size_t run_of(const char *p, size_t len, char c)
{
	size_t n = 0;

	while (n < len && p[n] == c)
		n++;
	return n;
}

/*
 * What line (without its newline) is: a marker of size *size (an opening
 * one sets it; inside a region only markers of that size count), as git
 * writes them: "<<<<<<< label", "||||||| label", "=======", ">>>>>>> label".
 * want: the size an opening marker must have (the file's
 * conflict-marker-size), 0 for any of 7 or more.
 */
static enum marker marker_of(const char *line, size_t len, size_t *size, size_t want)
{
	static const struct { char c; enum marker m; } kinds[] = {
		{ '<', MK_OPEN }, { '|', MK_BASE }, { '=', MK_SEP }, { '>', MK_CLOSE },
	};
	size_t i, n;

	if (len && line[len - 1] == '\r')
		len--;
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (!len || line[0] != kinds[i].c)
			continue;
		n = run_of(line, len, kinds[i].c);
		if (kinds[i].m == MK_OPEN ? (want ? n != want : n < 7) : n != *size)
			return MK_NONE;
		if (n < len && (kinds[i].m == MK_SEP || line[n] != ' '))
			return MK_NONE;
		if (kinds[i].m == MK_OPEN)
			*size = n;
		return kinds[i].m;
	}
	return MK_NONE;
}

/* The parts of a conflicted file, line by line (scan_conflicts()). */
enum part { PART_BOTH, PART_OURS, PART_BASE, PART_THEIRS, PART_MARKER };

/*
 * Call each(payload, part, line, len, region) for every line of text
 * (newline included): outside a region both sides have it; a region that
 * never closes is no region, its lines are PART_BOTH.
 */
struct scan {
	void (*each)(void *payload, enum part part, const char *line, size_t len, size_t region);
	void *payload;
	size_t want;	/* an opening marker's size, 0 for any of 7 or more */
};

static const char *region_end(const char *p, const char *end, size_t size, size_t want)
{
	enum part state = PART_OURS;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p), msize = size;
		enum marker m = marker_of(p, len, &msize, want);	/* an inner "<<<<<<<" is text */

		p += nl ? len + 1 : len;
		if (m == MK_BASE && state == PART_OURS)
			state = PART_BASE;
		else if (m == MK_SEP && state != PART_THEIRS)
			state = PART_THEIRS;
		else if (m == MK_CLOSE && state == PART_THEIRS)
			return p;
	}
	return NULL;
}

static void scan_conflicts(const char *text, size_t tlen, const struct scan *s)
{
	const char *p = text, *end = text + tlen, *close = NULL;
	enum part state = PART_BOTH;
	size_t size = 0, region = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		size_t msize = size;
		enum marker m = marker_of(p, nl ? len - 1 : len, &msize, s->want);

		if (state == PART_BOTH && m == MK_OPEN &&
		    (close = region_end(p + len, end, msize, s->want))) {
			size = msize;
			state = PART_OURS;
			s->each(s->payload, PART_MARKER, p, len, region);
		} else if (state != PART_BOTH && m == MK_BASE && state == PART_OURS) {
			state = PART_BASE;
			s->each(s->payload, PART_MARKER, p, len, region);
		} else if (state != PART_BOTH && m == MK_SEP && state != PART_THEIRS) {
			state = PART_THEIRS;
			s->each(s->payload, PART_MARKER, p, len, region);
		} else if (state == PART_THEIRS && m == MK_CLOSE && p + len == close) {
			s->each(s->payload, PART_MARKER, p, len, region++);
			state = PART_BOTH;
		} else {
			s->each(s->payload, state, p, len, region);
		}
		p += len;
	}
}

struct regions {
	struct buf cur;
	void (*add)(void *payload, const char *region, size_t rlen);
	void *payload;
};

static void region_line(void *payload, enum part part, const char *line, size_t len,
			size_t region)
{
	struct regions *r = payload;

	(void)region;
	if (part == PART_BOTH)
		return;
	buf_put(&r->cur, line, len);
	if (part == PART_MARKER && line[0] == '>') {
		r->add(r->payload, r->cur.ptr, r->cur.len);
		buf_clear(&r->cur);
	}
}

void conflict_regions(const char *text, size_t len, int marker_size,
		      void (*add)(void *payload, const char *region, size_t rlen), void *payload)
{
	struct regions r = { BUF_INIT, add, payload };
	struct scan s = { region_line, &r, marker_size > 0 ? (size_t)marker_size : 7 };

	scan_conflicts(text, len, &s);
	buf_release(&r.cur);
}

/* ---- the conflicted lines of each side ---- */

/*
 * One side's view of a conflicted file: the file with each region
 * replaced by that side's section, and where each section is in it.
 */
struct side_view {
	int theirs;
	struct buf text;
	long lines;
	struct line_range *sections;	/* one per region */
	size_t nsections, alloc;
};

static void view_line(void *payload, enum part part, const char *line, size_t len,
		      size_t region)
{
	struct side_view *v = payload;
	enum part mine = v->theirs ? PART_THEIRS : PART_OURS;

	if (part == PART_MARKER && line[0] == '<') {
		array_grow(&v->sections, &v->alloc, region + 1, sizeof(*v->sections));
		v->sections[region].start = v->sections[region].end = v->lines;
		v->nsections = region + 1;
	}
	if (part != PART_BOTH && part != mine)
		return;
	buf_put(&v->text, line, len);
	v->lines++;
	if (part == mine)
		v->sections[region].end = v->lines;
}

/* A copy of text ending in a newline, so that a last line without one compares equal. */
static void with_newline(struct buf *out, const char *text, size_t len)
{
	buf_put(out, text, len);
	if (len && text[len - 1] != '\n')
		buf_putc(out, '\n');
}

/*
 * Place each section of v in the side's own file: v's text is the file
 * plus the other side's clean changes, so the section's lines are
 * unchanged lines of their diff, moved by the hunks before them.
 * Returns 0 when a section cannot be placed that way.
 */
static int place_sections(struct line_ranges *out, const struct side_view *v,
			  const char *file, size_t flen)
{
	struct line_diff d;
	struct buf a = BUF_INIT, b = BUF_INIT;
	size_t i, j;
	int ok = 1;

	with_newline(&a, v->text.ptr ? v->text.ptr : "", v->text.len);
	with_newline(&b, file, flen);
	if (line_diff_compute(&d, a.ptr ? a.ptr : "", a.len, b.ptr ? b.ptr : "", b.len) < 0) {
		tide_error_clear();
		ok = 0;
		goto done;
	}
	for (i = 0; i < v->nsections && ok; i++) {
		const struct line_range *s = &v->sections[i];
		long offset = 0;

		/* hunks are in order: those before the section move it, one in it spoils it */
		for (j = 0; j < d.n; j++) {
			const struct line_range *p = &d.parent[j], *t = &d.target[j];

			if (p->end > s->start) {
				ok = p->start >= s->end;
				break;
			}
			offset += (t->end - t->start) - (p->end - p->start);
		}
		if (ok)
			line_ranges_add(out, s->start + offset, s->end + offset);
	}
done:
	line_diff_release(&d);
	buf_release(&a);
	buf_release(&b);
	return ok;
}

int line_ranges_of_conflicts(struct line_ranges *ours, int *ours_ok,
			     struct line_ranges *theirs, int *theirs_ok,
			     const char *merged, size_t mlen, int marker_size,
			     const char *ours_text, size_t olen,
			     const char *theirs_text, size_t tlen)
{
	struct side_view v[2];
	struct scan s;
	int side, n;

	memset(v, 0, sizeof(v));
	for (side = 0; side < 2; side++) {
		v[side].theirs = side;
		s.each = view_line;
		s.payload = &v[side];
		s.want = marker_size > 0 ? (size_t)marker_size : 7;
		scan_conflicts(merged, mlen, &s);
	}
	n = (int)v[0].nsections;
	*ours_ok = place_sections(ours, &v[0], ours_text, olen);
	*theirs_ok = place_sections(theirs, &v[1], theirs_text, tlen);
	for (side = 0; side < 2; side++) {
		buf_release(&v[side].text);
		free(v[side].sections);
	}
	return n;
}
