/*
 * Three-way text merge as git 2.39 writes it (see xmerge.h), rewritten
 * from the rules of git's xdiff/xmerge.c.
 *
 * The lines of the three texts (each line with its newline, as xdiff
 * cuts them) are classified once: equal bytes, equal id.  Base is diffed
 * against each side (linediff.h); the two scripts are walked together:
 * a change only one side made is taken, the same change on both sides
 * once, anything else overlapping becomes a conflict hunk spanning both
 * changes.  Each conflict is then refined as git's ZEALOUS level does:
 * the two sides' texts are diffed against each other and only the lines
 * that differ stay in conflict, and conflicts fewer than four lines apart
 * are joined again.  The output copies ours around the hunks, with
 * markers sized by marker_size and lines ended as the surrounding text
 * ends them (CRLF when both sides and the base use it there).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xmerge.h"
#include "error.h"
#include "linediff.h"
#include "util.h"

#define MAX_TEXT ((size_t)INT32_MAX)
#define DEFAULT_MARKER_SIZE 7

struct text {
	const char *ptr;
	size_t size;
	uint32_t n;
	uint32_t *start;		/* n + 1 offsets: line i is [start[i], start[i + 1]) */
	uint32_t *id;			/* each line's class */
};

enum {
	HUNK_CONFLICT = 0,
	HUNK_OURS = 1,			/* only ours changed here: take ours */
	HUNK_THEIRS = 2,		/* only theirs changed here: take theirs */
	HUNK_BOTH = 3,			/* the union: ours, then theirs */
	HUNK_SAME = 4,			/* both made it, found by refining: ours has it */
};

/* A region of the merge: base [i0, +chg0), ours [i1, +chg1), theirs [i2, +chg2). */
struct hunk {
	int mode;
	long i0, chg0, i1, chg1, i2, chg2;
};

struct hunks {
	struct hunk *v;
	size_t n, alloc;
};

/* --- classifying lines --- */

struct line_class {
	const char *ptr;
	uint32_t len;
};

/*
 * Open addressing; a slot holds a class's hash (high half) and index + 1
 * (low half, 0: empty), so a probe that does not match reads no class.
 */
struct classifier {
	struct line_class *cls;
	size_t ncls, cls_alloc;
	uint64_t *slots;
	size_t nslots;			/* a power of two */
};

/* Eight bytes at a time, then a full avalanche: the table uses low bits. */
static uint32_t line_hash(const char *p, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	for (w = 0; len; len--)
		w = (w << 8) | (unsigned char)p[len - 1];
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (uint32_t)h;
}

static void classifier_grow(struct classifier *c)
{
	size_t n = c->nslots ? c->nslots * 2 : 1024, i, s;
	uint64_t *slots = xcalloc(n, sizeof(*slots));

	for (i = 0; i < c->nslots; i++) {
		if (!c->slots[i])
			continue;
		for (s = (c->slots[i] >> 32) & (n - 1); slots[s]; s = (s + 1) & (n - 1))
			;
		slots[s] = c->slots[i];
	}
	free(c->slots);
	c->slots = slots;
	c->nslots = n;
}

static uint32_t classify(struct classifier *c, const char *p, uint32_t len)
{
	uint64_t h = line_hash(p, len);
	size_t s;

	if ((c->ncls + 1) * 2 > c->nslots)
		classifier_grow(c);
	for (s = h & (c->nslots - 1); c->slots[s]; s = (s + 1) & (c->nslots - 1)) {
		const struct line_class *k = &c->cls[(uint32_t)c->slots[s] - 1];

		if (c->slots[s] >> 32 == h && k->len == len && !memcmp(k->ptr, p, len))
			return (uint32_t)c->slots[s] - 1;
	}
	array_grow(&c->cls, &c->cls_alloc, c->ncls + 1, sizeof(*c->cls));
	c->cls[c->ncls] = (struct line_class){ p, len };
	c->slots[s] = h << 32 | (uint64_t)++c->ncls;
	return (uint32_t)c->ncls - 1;
}

static uint32_t count_lines(const char *p, size_t size)
{
	const char *end = p + size, *nl;
	uint32_t n = 0;

	for (; p < end; p = nl + 1, n++)
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			return n + 1;
	return n;
}

/* Cut t into lines and give each its class. */
static void text_split(struct text *t, struct classifier *c)
{
	const char *end = t->ptr + t->size, *p = t->ptr, *nl;
	uint32_t i = 0;

	t->n = count_lines(t->ptr, t->size);
	t->start = xmalloc(((size_t)t->n + 1) * sizeof(*t->start));
	t->id = xmalloc(((size_t)t->n + 1) * sizeof(*t->id));
	for (; p < end; p = nl, i++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl + 1 : end;
		t->start[i] = (uint32_t)(p - t->ptr);
		t->id[i] = classify(c, p, (uint32_t)(nl - p));
	}
	t->start[t->n] = (uint32_t)t->size;
}

static void text_release(struct text *t)
{
	free(t->start);
	free(t->id);
}

static const char *line_ptr(const struct text *t, long i)
{
	return t->ptr + t->start[i];
}

static size_t line_len(const struct text *t, long i)
{
	return t->start[i + 1] - t->start[i];
}

/* --- building the hunks --- */

static void hunk_append(struct hunks *h, int mode, long i0, long chg0, long i1, long chg1,
			long i2, long chg2)
{
	struct hunk *m = h->n ? &h->v[h->n - 1] : NULL;

	/* touching the previous hunk on either side: one hunk */
	if (m && (i1 <= m->i1 + m->chg1 || i2 <= m->i2 + m->chg2)) {
		if (mode != m->mode)
			m->mode = HUNK_CONFLICT;
		m->chg0 = i0 + chg0 - m->i0;
		m->chg1 = i1 + chg1 - m->i1;
		m->chg2 = i2 + chg2 - m->i2;
		return;
	}
	array_grow(&h->v, &h->alloc, h->n + 1, sizeof(*h->v));
	h->v[h->n++] = (struct hunk){ mode, i0, chg0, i1, chg1, i2, chg2 };
}

static int same_lines(const struct text *o, long i1, const struct text *t, long i2, long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (o->id[i1 + i] != t->id[i2 + i])
			return 0;
	return 1;
}

/* Both sides changed overlapping base lines: one conflict over both. */
static void overlap(struct hunks *h, const struct ld_change *x1, const struct ld_change *x2)
{
	long off = (long)x1->a - x2->a, ffo = off + (long)x1->na - x2->na;
	long i0 = x1->a, i1 = x1->b, i2 = x2->b, chg0, chg1, chg2;

	if (off > 0) {
		i0 -= off;
		i1 -= off;
	} else {
		i2 += off;
	}
	chg0 = (long)x1->a + x1->na - i0;
	chg1 = (long)x1->b + x1->nb - i1;
	chg2 = (long)x2->b + x2->nb - i2;
	if (ffo < 0) {
		chg0 -= ffo;
		chg1 -= ffo;
	} else {
		chg2 += ffo;
	}
	hunk_append(h, HUNK_CONFLICT, i0, chg0, i1, chg1, i2, chg2);
}

/* xdl_do_merge()'s walk of the two scripts. */
static void walk_scripts(struct hunks *h, const struct ld_script *s1, const struct ld_script *s2,
			 const struct text *b, const struct text *o, const struct text *t)
{
	size_t p1 = 0, p2 = 0;

	while (p1 < s1->n && p2 < s2->n) {
		const struct ld_change *x1 = &s1->v[p1], *x2 = &s2->v[p2];
		long e1 = (long)x1->a + x1->na, e2 = (long)x2->a + x2->na;

		if (e1 < x2->a) {
			hunk_append(h, HUNK_OURS, x1->a, x1->na, x1->b, x1->nb,
				    (long)x2->b - x2->a + x1->a, x1->na);
			p1++;
			continue;
		}
		if (e2 < x1->a) {
			hunk_append(h, HUNK_THEIRS, x2->a, x2->na, (long)x1->b - x1->a + x2->a,
				    x2->na, x2->b, x2->nb);
			p2++;
			continue;
		}
		if (x1->a != x2->a || x1->na != x2->na || x1->nb != x2->nb ||
		    !same_lines(o, x1->b, t, x2->b, x1->nb))
			overlap(h, x1, x2);
		if (e1 >= e2)
			p2++;
		if (e2 >= e1)
			p1++;
	}
	for (; p1 < s1->n; p1++) {
		const struct ld_change *x1 = &s1->v[p1];

		hunk_append(h, HUNK_OURS, x1->a, x1->na, x1->b, x1->nb,
			    (long)x1->a + t->n - b->n, x1->na);
	}
	for (; p2 < s2->n; p2++) {
		const struct ld_change *x2 = &s2->v[p2];

		hunk_append(h, HUNK_THEIRS, x2->a, x2->na, (long)x2->a + o->n - b->n, x2->na,
			    x2->b, x2->nb);
	}
}

/*
 * ZEALOUS refinement: diff the two sides of each conflict against each
 * other; only what differs stays in conflict (identical sides: none).
 */
static int refine(struct hunks *out, const struct hunks *in, const struct text *o,
		  const struct text *t, struct ld_ids *ids)
{
	struct ld_script s = { NULL, 0, 0 };
	size_t i, j;
	int error = 0;

	for (i = 0; i < in->n && error == 0; i++) {
		const struct hunk *m = &in->v[i];

		array_grow(&out->v, &out->alloc, out->n + 1, sizeof(*out->v));
		out->v[out->n++] = *m;
		if (m->mode != HUNK_CONFLICT || m->chg1 == 0 || m->chg2 == 0)
			continue;
		s.n = 0;
		if ((error = ld_diff(&s, o->id + m->i1, (uint32_t)m->chg1, t->id + m->i2,
				     (uint32_t)m->chg2, ids)) < 0)
			break;
		if (!s.n) {
			out->v[out->n - 1].mode = HUNK_SAME;
			continue;
		}
		out->n--;
		array_grow(&out->v, &out->alloc, out->n + s.n, sizeof(*out->v));
		for (j = 0; j < s.n; j++) {
			struct hunk *r = &out->v[out->n++];

			*r = *m;
			r->i1 = m->i1 + s.v[j].a;
			r->chg1 = s.v[j].na;
			r->i2 = m->i2 + s.v[j].b;
			r->chg2 = s.v[j].nb;
		}
	}
	ld_script_release(&s);
	return error;
}

/* Conflicts fewer than four of ours' lines apart become one. */
static void simplify(struct hunks *h)
{
	size_t w = 0, r;

	if (!h->n)
		return;
	for (r = 1; r < h->n; r++) {
		struct hunk *m = &h->v[w], *next = &h->v[r];

		if (m->mode == HUNK_CONFLICT && next->mode == HUNK_CONFLICT &&
		    next->i1 - (m->i1 + m->chg1) <= 3) {
			m->chg1 = next->i1 + next->chg1 - m->i1;
			m->chg2 = next->i2 + next->chg2 - m->i2;
		} else {
			h->v[++w] = *next;
		}
	}
	h->n = w + 1;
}

/* --- writing the result --- */

/*
 * 1 if line i ends in CRLF (for a last line without a newline: the line
 * before it), 0 if in LF, -1 when it cannot tell (xmerge.c's is_eol_crlf).
 */
static int eol_crlf(const struct text *f, long i)
{
	size_t size;

	if (i < (long)f->n - 1) {
		size = line_len(f, i);
		return size > 1 && line_ptr(f, i)[size - 2] == '\r';
	}
	if (!f->n)
		return -1;
	size = line_len(f, i);
	if (size && line_ptr(f, i)[size - 1] == '\n')
		return size > 1 && line_ptr(f, i)[size - 2] == '\r';
	if (!i)
		return -1;
	size = line_len(f, i - 1);
	return size > 1 && line_ptr(f, i - 1)[size - 2] == '\r';
}

/* Markers and lines added at a hunk end as the lines before it end. */
static int needs_cr(const struct text *b, const struct text *o, const struct text *t,
		    const struct hunk *m)
{
	int cr = eol_crlf(o, m->i1 ? m->i1 - 1 : 0);

	if (cr)
		cr = eol_crlf(t, m->i2 ? m->i2 - 1 : 0);
	if (cr)
		cr = eol_crlf(b, 0);
	return cr < 0 ? 0 : cr;
}

/* Lines [i, i + n) of f; add_nl ends an unterminated last line. */
static void put_lines(struct buf *out, const struct text *f, long i, long n, int cr, int add_nl)
{
	size_t len;

	if (n < 1)
		return;
	buf_put(out, line_ptr(f, i), f->start[i + n] - f->start[i]);
	len = line_len(f, i + n - 1);
	if (add_nl && (len == 0 || line_ptr(f, i + n - 1)[len - 1] != '\n')) {
		if (cr)
			buf_putc(out, '\r');
		buf_putc(out, '\n');
	}
}

static void put_marker(struct buf *out, char c, int size, const char *label, int cr)
{
	int i;

	for (i = 0; i < size; i++)
		buf_putc(out, c);
	if (label) {
		buf_putc(out, ' ');
		buf_puts(out, label);
	}
	if (cr)
		buf_putc(out, '\r');
	buf_putc(out, '\n');
}

static void put_conflict(struct buf *out, const struct text *b, const struct text *o,
			 const struct text *t, const struct hunk *m, int marker,
			 const char *olabel, const char *tlabel)
{
	int cr = needs_cr(b, o, t, m);

	put_marker(out, '<', marker, olabel, cr);
	put_lines(out, o, m->i1, m->chg1, cr, 1);
	put_marker(out, '=', marker, NULL, cr);
	put_lines(out, t, m->i2, m->chg2, cr, 1);
	put_marker(out, '>', marker, tlabel, cr);
}

static int write_result(struct buf *out, const struct hunks *h, const struct text *b,
			const struct text *o, const struct text *t,
			const struct xmerge_text *ot, const struct xmerge_text *tt,
			const struct xmerge_opts *opts)
{
	int marker = opts->marker_size > 0 ? opts->marker_size : DEFAULT_MARKER_SIZE;
	long i = 0;
	size_t k;
	int conflicts = 0;

	for (k = 0; k < h->n; k++) {
		struct hunk m = h->v[k];

		if (opts->favor && m.mode == HUNK_CONFLICT)
			m.mode = opts->favor;
		if (m.mode == HUNK_SAME)
			continue;
		put_lines(out, o, i, m.i1 - i, 0, 0);
		if (m.mode == HUNK_CONFLICT) {
			put_conflict(out, b, o, t, &m, marker, ot->label, tt->label);
			conflicts++;
		} else {
			if (m.mode & HUNK_OURS)
				put_lines(out, o, m.i1, m.chg1, needs_cr(b, o, t, &m),
					  m.mode & HUNK_THEIRS);
			if (m.mode & HUNK_THEIRS)
				put_lines(out, t, m.i2, m.chg2, 0, 0);
		}
		i = m.i1 + m.chg1;
	}
	put_lines(out, o, i, (long)o->n - i, 0, 0);
	return conflicts;
}

static int merge_texts(struct buf *out, struct text *tx, const struct xmerge_text *in[3],
		       uint32_t nids, const struct xmerge_opts *opts)
{
	struct ld_script s1 = { NULL, 0, 0 }, s2 = { NULL, 0, 0 };
	struct hunks h = { NULL, 0, 0 }, refined = { NULL, 0, 0 };
	struct ld_ids ids;
	int error;

	ld_ids_init(&ids, nids);
	if ((error = ld_diff(&s1, tx[0].id, tx[0].n, tx[1].id, tx[1].n, &ids)) < 0 ||
	    (error = ld_diff(&s2, tx[0].id, tx[0].n, tx[2].id, tx[2].n, &ids)) < 0)
		goto done;
	if (!s1.n || !s2.n) {
		/* one side did not change: the other is the result */
		const struct text *r = !s1.n ? &tx[2] : &tx[1];

		buf_put(out, r->ptr, r->size);
		goto done;
	}
	walk_scripts(&h, &s1, &s2, &tx[0], &tx[1], &tx[2]);
	ld_script_release(&s1);
	ld_script_release(&s2);
	if ((error = refine(&refined, &h, &tx[1], &tx[2], &ids)) < 0)
		goto done;
	simplify(&refined);
	error = write_result(out, &refined, &tx[0], &tx[1], &tx[2], in[1], in[2], opts);
done:
	free(h.v);
	free(refined.v);
	ld_script_release(&s1);
	ld_script_release(&s2);
	ld_ids_release(&ids);
	return error;
}

int xmerge(struct buf *out, const struct xmerge_text *base, const struct xmerge_text *ours,
	   const struct xmerge_text *theirs, const struct xmerge_opts *opts)
{
	static const struct xmerge_opts defaults = XMERGE_OPTS_INIT;
	const struct xmerge_text *in[3] = { base, ours, theirs };
	struct classifier c;
	struct text tx[3];
	int i, error;

	buf_truncate(out, 0);
	for (i = 0; i < 3; i++)
		if (in[i]->size > MAX_TEXT)
			return tide_error_set(TIDE_EINVAL, "a text of %zu bytes is too large "
					      "to merge by lines", in[i]->size);
	memset(&c, 0, sizeof(c));
	memset(tx, 0, sizeof(tx));
	for (i = 0; i < 3; i++) {
		tx[i].ptr = in[i]->ptr ? in[i]->ptr : "";
		tx[i].size = in[i]->size;
		text_split(&tx[i], &c);
	}
	free(c.slots);
	free(c.cls);
	error = merge_texts(out, tx, in, (uint32_t)c.ncls, opts ? opts : &defaults);
	for (i = 0; i < 3; i++)
		text_release(&tx[i]);
	return error;
}

size_t xmerge_cost(const struct xmerge_text *base, const struct xmerge_text *ours,
		   const struct xmerge_text *theirs)
{
	size_t nb = count_lines(base->ptr, base->size), no = count_lines(ours->ptr, ours->size);
	size_t nt = count_lines(theirs->ptr, theirs->size), lines = nb + no + nt;
	size_t side = no > nt ? no : nt, tables, diff;

	/* line offsets and classes, kept; the classifier (32 a line) or a diff at a time */
	tables = 8 * lines;
	diff = ld_diff_cost(nb, side) + 16 * (nb + side);
	if (diff < 32 * lines)
		diff = 32 * lines;
	return base->size + ours->size + theirs->size + ours->size + theirs->size +
	       tables + diff;
}
