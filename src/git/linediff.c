/*
 * git's line diff for merges (see linediff.h), rewritten from the rules
 * of git 2.39's xdiff/xhistogram.c, xdiffi.c and xprepare.c.
 *
 * Histogram: for a region of A and B, find the common run whose rarest
 * line occurs least often in A's region (the longest one among equals,
 * the first one B meets among those), keep it, and do the same on both
 * sides of it.  A region whose common lines all occur more than 64
 * times falls back to Myers' algorithm, as xdiff's does: the region is
 * diffed on its own, with the unmatched-line discarding, the trimmed
 * ends and the cost cut-offs of xdiff's classic diff.  Then each change
 * is slid, as xdl_change_compact() slides it, down as far as it goes
 * and back up to the last place it lines up with a change of the other
 * file.
 *
 * The results depend on how xdiff numbers lines (the histogram's hash
 * table, and so its chain-length limit, is indexed by the number of a
 * line's first occurrence), so each diff renumbers its ids in xdiff's
 * order: A's lines first, then B's.  Memory is a few words per line
 * (ld_diff_cost()); recursion is replaced by explicit work lists, so a
 * hostile text cannot exhaust the stack.
 */
#include <stdlib.h>
#include <string.h>

#include "linediff.h"
#include "error.h"
#include "util.h"

#define UNUSED_ID UINT32_MAX
#define MAX_CHAIN 64		/* xhistogram.c's max_chain_length */
#define SNAKE_CNT 20		/* xdiffi.c's XDL_SNAKE_CNT */
#define HEUR_MIN_COST 256	/* XDL_HEUR_MIN_COST */
#define MAX_COST_MIN 256	/* XDL_MAX_COST_MIN */
#define K_HEUR 4		/* XDL_K_HEUR */
#define MAX_EQLIMIT 1024	/* xprepare.c's XDL_MAX_EQLIMIT */
#define SIMSCAN_WINDOW 100	/* XDL_SIMSCAN_WINDOW */
#define KPDIS_RUN 4		/* XDL_KPDIS_RUN */
#define LINE_MAX_K INT32_MAX

int ld_ids_init(struct ld_ids *ids, uint32_t nids)
{
	ids->nids = nids;
	ids->map = xmalloc((nids ? nids : 1) * sizeof(*ids->map));
	memset(ids->map, 0xff, (nids ? nids : 1) * sizeof(*ids->map));
	return 0;
}

void ld_ids_release(struct ld_ids *ids)
{
	free(ids->map);
	ids->map = NULL;
	ids->nids = 0;
}

void ld_script_release(struct ld_script *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

size_t ld_diff_cost(size_t n1, size_t n2)
{
	/*
	 * Renumbered ids and change marks of both files (10 bytes a line),
	 * the histogram index over A (line map, next pointers, records and
	 * hash heads: 28), a fall back's copy (ids, indexes, marks, counts
	 * and both diagonal vectors: about 30 a line of both).
	 */
	return 10 * (n1 + n2) + 28 * n1 + 30 * (n1 + n2) + 4096;
}

/* xdiff's integer square root estimate (xdl_bogosqrt). */
static long bogosqrt(long n)
{
	long i;

	for (i = 1; n > 0; n >>= 2)
		i <<= 1;
	return i;
}

/* The smallest number of bits whose power of two holds size (xdl_hashbits). */
static unsigned hashbits(uint32_t size)
{
	unsigned bits = 0;
	uint64_t val = 1;

	while (val < size && bits < 32) {
		val <<= 1;
		bits++;
	}
	return bits ? bits : 1;
}

/*
 * Renumber a then b by first occurrence into ra and rb; returns the
 * number of distinct lines.  ids->map is left all-unused again.
 */
static uint32_t renumber(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb,
			 struct ld_ids *ids, uint32_t *ra, uint32_t *rb)
{
	uint32_t *map = ids->map, next = 0, i;

	for (i = 0; i < na; i++) {
		if (map[a[i]] == UNUSED_ID)
			map[a[i]] = next++;
		ra[i] = map[a[i]];
	}
	for (i = 0; i < nb; i++) {
		if (map[b[i]] == UNUSED_ID)
			map[b[i]] = next++;
		rb[i] = map[b[i]];
	}
	for (i = 0; i < na; i++)
		map[a[i]] = UNUSED_ID;
	for (i = 0; i < nb; i++)
		map[b[i]] = UNUSED_ID;
	return next;
}

/* Change marks with a clear sentinel before and after (xdiff's rchg). */
static char *marks_new(uint32_t n)
{
	return (char *)xcalloc((size_t)n + 2, 1) + 1;
}

static void marks_free(char *m)
{
	if (m)
		free(m - 1);
}

/* --- Myers' algorithm, as xdiff's classic diff runs it --- */

struct box {
	long off1, lim1, off2, lim2;
	int need_min;
};

struct myers {
	const uint32_t *ha1, *ha2;	/* the lines kept after discarding */
	const uint32_t *rindex1, *rindex2;
	char *rchg1, *rchg2;
	int32_t *kvdf, *kvdb;		/* indexed by diagonal */
	long mxcost;
	struct box *todo;
	size_t ntodo, todo_alloc;
};

struct split {
	long i1, i2;
	int min_lo, min_hi;
};

static void split_at(struct split *spl, long i1, long i2, int lo, int hi)
{
	spl->i1 = i1;
	spl->i2 = i2;
	spl->min_lo = lo;
	spl->min_hi = hi;
}

/* The forward half of one edit-cost step; 1 when the paths met. */
static int split_forward(struct myers *my, const struct box *bx, long *fmin, long *fmax,
			 long dmin, long dmax, long bmin, long bmax, int odd,
			 int *got_snake, struct split *spl)
{
	int32_t *kvdf = my->kvdf, *kvdb = my->kvdb;
	long d, i1, i2, prev1;

	if (*fmin > dmin)
		kvdf[--*fmin - 1] = -1;
	else
		++*fmin;
	if (*fmax < dmax)
		kvdf[++*fmax + 1] = -1;
	else
		--*fmax;
	for (d = *fmax; d >= *fmin; d -= 2) {
		i1 = kvdf[d - 1] >= kvdf[d + 1] ? kvdf[d - 1] + 1 : kvdf[d + 1];
		prev1 = i1;
		i2 = i1 - d;
		while (i1 < bx->lim1 && i2 < bx->lim2 && my->ha1[i1] == my->ha2[i2]) {
			i1++;
			i2++;
		}
		if (i1 - prev1 > SNAKE_CNT)
			*got_snake = 1;
		kvdf[d] = (int32_t)i1;
		if (odd && bmin <= d && d <= bmax && kvdb[d] <= i1) {
			split_at(spl, i1, i2, 1, 1);
			return 1;
		}
	}
	return 0;
}

static int split_backward(struct myers *my, const struct box *bx, long *bmin, long *bmax,
			  long dmin, long dmax, long fmin, long fmax, int odd,
			  int *got_snake, struct split *spl)
{
	int32_t *kvdf = my->kvdf, *kvdb = my->kvdb;
	long d, i1, i2, prev1;

	if (*bmin > dmin)
		kvdb[--*bmin - 1] = LINE_MAX_K;
	else
		++*bmin;
	if (*bmax < dmax)
		kvdb[++*bmax + 1] = LINE_MAX_K;
	else
		--*bmax;
	for (d = *bmax; d >= *bmin; d -= 2) {
		i1 = kvdb[d - 1] < kvdb[d + 1] ? kvdb[d - 1] : kvdb[d + 1] - 1;
		prev1 = i1;
		i2 = i1 - d;
		while (i1 > bx->off1 && i2 > bx->off2 && my->ha1[i1 - 1] == my->ha2[i2 - 1]) {
			i1--;
			i2--;
		}
		if (prev1 - i1 > SNAKE_CNT)
			*got_snake = 1;
		kvdb[d] = (int32_t)i1;
		if (!odd && fmin <= d && d <= fmax && i1 <= kvdf[d]) {
			split_at(spl, i1, i2, 1, 1);
			return 1;
		}
	}
	return 0;
}

/*
 * After a costly step with a long snake: a diagonal far enough along
 * whose last SNAKE_CNT lines match is a good enough split.
 */
static int split_heuristic(struct myers *my, const struct box *bx, long ec, long fmin,
			   long fmax, long fmid, long bmin, long bmax, long bmid,
			   struct split *spl)
{
	long best = 0, d, dd, i1, i2, v, k;

	for (d = fmax; d >= fmin; d -= 2) {
		dd = d > fmid ? d - fmid : fmid - d;
		i1 = my->kvdf[d];
		i2 = i1 - d;
		v = (i1 - bx->off1) + (i2 - bx->off2) - dd;
		if (v > K_HEUR * ec && v > best && bx->off1 + SNAKE_CNT <= i1 &&
		    i1 < bx->lim1 && bx->off2 + SNAKE_CNT <= i2 && i2 < bx->lim2) {
			for (k = 1; my->ha1[i1 - k] == my->ha2[i2 - k]; k++)
				if (k == SNAKE_CNT) {
					best = v;
					split_at(spl, i1, i2, 1, 0);
					break;
				}
		}
	}
	if (best > 0)
		return 1;
	for (d = bmax; d >= bmin; d -= 2) {
		dd = d > bmid ? d - bmid : bmid - d;
		i1 = my->kvdb[d];
		i2 = i1 - d;
		v = (bx->lim1 - i1) + (bx->lim2 - i2) - dd;
		if (v > K_HEUR * ec && v > best && bx->off1 < i1 &&
		    i1 <= bx->lim1 - SNAKE_CNT && bx->off2 < i2 && i2 <= bx->lim2 - SNAKE_CNT) {
			for (k = 0; my->ha1[i1 + k] == my->ha2[i2 + k]; k++)
				if (k == SNAKE_CNT - 1) {
					best = v;
					split_at(spl, i1, i2, 0, 1);
					break;
				}
		}
	}
	return best > 0;
}

/* Too costly: split at the furthest-reaching path either way. */
static void split_furthest(struct myers *my, const struct box *bx, long fmin, long fmax,
			   long bmin, long bmax, struct split *spl)
{
	long fbest = -1, fbest1 = -1, bbest = LINE_MAX_K * 4L, bbest1 = LINE_MAX_K;
	long d, i1, i2;

	for (d = fmax; d >= fmin; d -= 2) {
		i1 = my->kvdf[d] < bx->lim1 ? my->kvdf[d] : bx->lim1;
		i2 = i1 - d;
		if (bx->lim2 < i2) {
			i1 = bx->lim2 + d;
			i2 = bx->lim2;
		}
		if (fbest < i1 + i2) {
			fbest = i1 + i2;
			fbest1 = i1;
		}
	}
	for (d = bmax; d >= bmin; d -= 2) {
		i1 = my->kvdb[d] > bx->off1 ? my->kvdb[d] : bx->off1;
		i2 = i1 - d;
		if (i2 < bx->off2) {
			i1 = bx->off2 + d;
			i2 = bx->off2;
		}
		if (i1 + i2 < bbest) {
			bbest = i1 + i2;
			bbest1 = i1;
		}
	}
	if ((bx->lim1 + bx->lim2) - bbest < fbest - (bx->off1 + bx->off2))
		split_at(spl, fbest1, fbest - fbest1, 1, 0);
	else
		split_at(spl, bbest1, bbest - bbest1, 0, 1);
}

/* xdl_split(): where to divide the box, searching from both corners. */
static void split_box(struct myers *my, const struct box *bx, struct split *spl)
{
	long dmin = bx->off1 - bx->lim2, dmax = bx->lim1 - bx->off2;
	long fmid = bx->off1 - bx->off2, bmid = bx->lim1 - bx->lim2;
	int odd = (int)((fmid - bmid) & 1);
	long fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid, ec;

	my->kvdf[fmid] = (int32_t)bx->off1;
	my->kvdb[bmid] = (int32_t)bx->lim1;
	for (ec = 1;; ec++) {
		int got_snake = 0;

		if (split_forward(my, bx, &fmin, &fmax, dmin, dmax, bmin, bmax, odd,
				  &got_snake, spl) ||
		    split_backward(my, bx, &bmin, &bmax, dmin, dmax, fmin, fmax, odd,
				   &got_snake, spl))
			return;
		if (bx->need_min)
			continue;
		if (got_snake && ec > HEUR_MIN_COST &&
		    split_heuristic(my, bx, ec, fmin, fmax, fmid, bmin, bmax, bmid, spl))
			return;
		if (ec >= my->mxcost) {
			split_furthest(my, bx, fmin, fmax, bmin, bmax, spl);
			return;
		}
	}
}

static void box_push(struct myers *my, long off1, long lim1, long off2, long lim2, int need_min)
{
	struct box *bx;

	array_grow(&my->todo, &my->todo_alloc, my->ntodo + 1, sizeof(*my->todo));
	bx = &my->todo[my->ntodo++];
	bx->off1 = off1;
	bx->lim1 = lim1;
	bx->off2 = off2;
	bx->lim2 = lim2;
	bx->need_min = need_min;
}

/* xdl_recs_cmp(), with a work list instead of recursion. */
static void myers_boxes(struct myers *my, long n1, long n2)
{
	box_push(my, 0, n1, 0, n2, 0);
	while (my->ntodo) {
		struct box bx = my->todo[--my->ntodo];
		struct split spl;

		while (bx.off1 < bx.lim1 && bx.off2 < bx.lim2 &&
		       my->ha1[bx.off1] == my->ha2[bx.off2]) {
			bx.off1++;
			bx.off2++;
		}
		while (bx.off1 < bx.lim1 && bx.off2 < bx.lim2 &&
		       my->ha1[bx.lim1 - 1] == my->ha2[bx.lim2 - 1]) {
			bx.lim1--;
			bx.lim2--;
		}
		if (bx.off1 == bx.lim1) {
			for (; bx.off2 < bx.lim2; bx.off2++)
				my->rchg2[my->rindex2[bx.off2]] = 1;
		} else if (bx.off2 == bx.lim2) {
			for (; bx.off1 < bx.lim1; bx.off1++)
				my->rchg1[my->rindex1[bx.off1]] = 1;
		} else {
			split_box(my, &bx, &spl);
			box_push(my, spl.i1, bx.lim1, spl.i2, bx.lim2, spl.min_hi);
			box_push(my, bx.off1, spl.i1, bx.off2, spl.i2, spl.min_lo);
		}
	}
}

/*
 * xdl_clean_mmatch(): whether a line matching too often (dis 2) sits in
 * a run of unmatched lines and can be discarded with them.
 */
static int mmatch_discardable(const char *dis, long i, long s, long e)
{
	long r, rdis0 = 0, rpdis0 = 1, rdis1 = 0, rpdis1 = 1;

	if (i - s > SIMSCAN_WINDOW)
		s = i - SIMSCAN_WINDOW;
	if (e - i > SIMSCAN_WINDOW)
		e = i + SIMSCAN_WINDOW;
	for (r = 1; i - r >= s; r++) {
		if (!dis[i - r])
			rdis0++;
		else if (dis[i - r] == 2)
			rpdis0++;
		else
			break;
	}
	if (rdis0 == 0)
		return 0;
	for (r = 1; i + r <= e; r++) {
		if (!dis[i + r])
			rdis1++;
		else if (dis[i + r] == 2)
			rpdis1++;
		else
			break;
	}
	if (rdis1 == 0)
		return 0;
	rdis1 += rdis0;
	rpdis1 += rpdis0;
	return rpdis1 * KPDIS_RUN < rpdis1 + rdis1;
}

/*
 * One side of xdl_cleanup_records(): keep (in ha/rindex) the lines of
 * [start, end] the Myers pass must see; mark the others changed.
 * other_cnt[id] is how often the line occurs in the other file.
 */
static long discard_side(const uint32_t *la, long n, long start, long end,
			 const uint32_t *other_cnt, char *rchg, uint32_t *ha, uint32_t *rindex)
{
	long mlim = bogosqrt(n), i, nreff = 0;
	char *dis = xcalloc((size_t)n + 1, 1);

	if (mlim > MAX_EQLIMIT)
		mlim = MAX_EQLIMIT;
	for (i = start; i <= end; i++) {
		uint32_t nm = other_cnt[la[i]];

		dis[i] = nm == 0 ? 0 : (long)nm >= mlim ? 2 : 1;
	}
	for (i = start; i <= end; i++) {
		if (dis[i] == 1 || (dis[i] == 2 && !mmatch_discardable(dis, i, start, end))) {
			rindex[nreff] = (uint32_t)i;
			ha[nreff++] = la[i];
		} else {
			rchg[i] = 1;
		}
	}
	free(dis);
	return nreff;
}

/* The Myers pass over the kept lines. */
static void myers_run(const uint32_t *ha1, const uint32_t *ri1, long nreff1, char *rchg1,
		      const uint32_t *ha2, const uint32_t *ri2, long nreff2, char *rchg2)
{
	long ndiags = nreff1 + nreff2 + 3;
	int32_t *kvd = xmalloc((size_t)(2 * ndiags + 2) * sizeof(*kvd));
	struct myers my = { ha1, ha2, ri1, ri2, rchg1, rchg2, NULL, NULL, 0, NULL, 0, 0 };

	my.kvdf = kvd + nreff2 + 1;
	my.kvdb = kvd + ndiags + nreff2 + 1;
	my.mxcost = bogosqrt(ndiags);
	if (my.mxcost < MAX_COST_MIN)
		my.mxcost = MAX_COST_MIN;
	myers_boxes(&my, nreff1, nreff2);
	free(my.todo);
	free(kvd);
}

/*
 * xdiff's classic diff of A against B (xdl_do_diff without an algorithm
 * flag), marking rchg1 and rchg2: renumber, trim the common ends, discard
 * lines without a match, then Myers.
 */
static void classic_diff(const uint32_t *a, uint32_t n1, const uint32_t *b, uint32_t n2,
			 struct ld_ids *ids, char *rchg1, char *rchg2)
{
	uint32_t *la = xmalloc(((size_t)n1 + n2 + 1) * sizeof(*la)), *lb = la + n1;
	uint32_t k = renumber(a, n1, b, n2, ids, la, lb), i;
	uint32_t *cnt1 = xcalloc((size_t)k + 1, sizeof(*cnt1)), *cnt2 = xcalloc((size_t)k + 1, 4);
	uint32_t *ha = xmalloc(((size_t)n1 + n2 + 1) * 2 * sizeof(*ha));
	uint32_t *ha1 = ha, *ri1 = ha + n1, *ha2 = ri1 + n1, *ri2 = ha2 + n2;
	long start = 0, lim = n1 < n2 ? n1 : n2, tail = 0, nreff1, nreff2;

	for (i = 0; i < n1; i++)
		cnt1[la[i]]++;
	for (i = 0; i < n2; i++)
		cnt2[lb[i]]++;
	while (start < lim && la[start] == lb[start])
		start++;
	for (lim -= start; tail < lim && la[n1 - 1 - tail] == lb[n2 - 1 - tail]; tail++)
		;
	nreff1 = discard_side(la, n1, start, (long)n1 - tail - 1, cnt2, rchg1, ha1, ri1);
	nreff2 = discard_side(lb, n2, start, (long)n2 - tail - 1, cnt1, rchg2, ha2, ri2);
	myers_run(ha1, ri1, nreff1, rchg1, ha2, ri2, nreff2, rchg2);
	free(ha);
	free(cnt1);
	free(cnt2);
	free(la);
}

/* --- the histogram diff --- */

struct hrec {
	uint32_t ptr, cnt;
	uint32_t next;			/* index + 1 of the next record in the chain */
};

struct region {
	uint32_t begin1, end1, begin2, end2;
};

struct env {
	uint32_t *ha1, *ha2;		/* renumbered ids, line l at [l - 1] */
	uint32_t n1, n2;
	char *rchg1, *rchg2;
	struct ld_ids *ids;
	/* the histogram index, sized once for A's whole length */
	uint32_t *heads, *line_map, *next_ptrs;
	struct hrec *recs;
	size_t nrecs;
	uint32_t bits, ptr_shift, cnt;
	int has_common;
};

static uint32_t table_hash(const struct env *e, uint32_t id)
{
	uint64_t v = id;

	return (uint32_t)((v + (v >> e->bits)) & ((1ull << e->bits) - 1));
}

/* Index A's region: each distinct line, its occurrences and their count. */
static int scan_a(struct env *e, uint32_t line1, uint32_t count1)
{
	uint32_t ptr;

	for (ptr = line1 + count1 - 1; line1 <= ptr; ptr--) {
		uint32_t id = e->ha1[ptr - 1], *head = &e->heads[table_hash(e, id)];
		uint32_t r = *head, chain = 0;

		for (; r; r = e->recs[r - 1].next, chain++) {
			struct hrec *rec = &e->recs[r - 1];

			if (e->ha1[rec->ptr - 1] == id) {
				e->next_ptrs[ptr - e->ptr_shift] = rec->ptr;
				rec->ptr = ptr;
				if (rec->cnt < UINT32_MAX)
					rec->cnt++;
				e->line_map[ptr - e->ptr_shift] = r - 1;
				break;
			}
		}
		if (r)
			continue;
		if (chain == MAX_CHAIN)
			return -1;
		e->recs[e->nrecs] = (struct hrec){ ptr, 1, *head };
		e->line_map[ptr - e->ptr_shift] = (uint32_t)e->nrecs;
		*head = (uint32_t)++e->nrecs;
	}
	return 0;
}

static uint32_t cnt_of(const struct env *e, uint32_t a_line)
{
	return e->recs[e->line_map[a_line - e->ptr_shift]].cnt;
}

/* Grow the common run through A's line as and B's line bs; keep the best. */
static uint32_t extend_run(struct env *e, struct region *lcs, const struct hrec *rec,
			   uint32_t as, uint32_t b_ptr, uint32_t b_next, const struct region *r)
{
	for (;;) {
		uint32_t np = e->next_ptrs[as - e->ptr_shift];
		uint32_t bs = b_ptr, ae = as, be = bs, rc = rec->cnt;

		while (r->begin1 < as && r->begin2 < bs && e->ha1[as - 2] == e->ha2[bs - 2]) {
			as--;
			bs--;
			if (1 < rc && cnt_of(e, as) < rc)
				rc = cnt_of(e, as);
		}
		while (ae < r->end1 && be < r->end2 && e->ha1[ae] == e->ha2[be]) {
			ae++;
			be++;
			if (1 < rc && cnt_of(e, ae) < rc)
				rc = cnt_of(e, ae);
		}
		if (b_next <= be)
			b_next = be + 1;
		if (lcs->end1 - lcs->begin1 < ae - as || rc < e->cnt) {
			*lcs = (struct region){ as, ae, bs, be };
			e->cnt = rc;
		}
		if (np == 0)
			break;
		while (np <= ae) {
			np = e->next_ptrs[np - e->ptr_shift];
			if (np == 0)
				return b_next;
		}
		as = np;
	}
	return b_next;
}

/* try_lcs(): the runs through B's line b_ptr; returns the next B line. */
static uint32_t try_lcs(struct env *e, struct region *lcs, uint32_t b_ptr,
			const struct region *r)
{
	uint32_t b_next = b_ptr + 1, id = e->ha2[b_ptr - 1];
	uint32_t ri = e->heads[table_hash(e, id)];

	for (; ri; ri = e->recs[ri - 1].next) {
		const struct hrec *rec = &e->recs[ri - 1];

		if (rec->cnt > e->cnt) {
			if (!e->has_common)
				e->has_common = e->ha1[rec->ptr - 1] == id;
			continue;
		}
		if (e->ha1[rec->ptr - 1] != id)
			continue;
		e->has_common = 1;
		b_next = extend_run(e, lcs, rec, rec->ptr, b_ptr, b_next, r);
	}
	return b_next;
}

/*
 * find_lcs(): -1 on failure, 1 when the region must fall back to the
 * classic diff, 0 with lcs set (all zero: nothing in common).
 */
static int find_lcs(struct env *e, struct region *lcs, const struct region *r)
{
	uint32_t count1 = r->end1 - r->begin1 + 1, b_ptr;

	e->bits = hashbits(count1);
	memset(e->heads, 0, ((size_t)1 << e->bits) * sizeof(*e->heads));
	memset(e->line_map, 0, (size_t)count1 * sizeof(*e->line_map));
	memset(e->next_ptrs, 0, (size_t)count1 * sizeof(*e->next_ptrs));
	e->nrecs = 0;
	e->ptr_shift = r->begin1;
	e->has_common = 0;
	if (scan_a(e, r->begin1, count1) < 0)
		return -1;
	e->cnt = MAX_CHAIN + 1;
	for (b_ptr = r->begin2; b_ptr <= r->end2;)
		b_ptr = try_lcs(e, lcs, b_ptr, r);
	return e->has_common && MAX_CHAIN < e->cnt;
}

static void mark_all(char *rchg, uint32_t line, uint32_t count)
{
	memset(rchg + line - 1, 1, count);
}

static void fall_back(struct env *e, const struct region *r)
{
	uint32_t c1 = r->end1 - r->begin1 + 1, c2 = r->end2 - r->begin2 + 1;

	classic_diff(e->ha1 + r->begin1 - 1, c1, e->ha2 + r->begin2 - 1, c2, e->ids,
		     e->rchg1 + r->begin1 - 1, e->rchg2 + r->begin2 - 1);
}

/*
 * One region (lines begin..end, 1-based, end < begin when empty): mark
 * it, or split it at its best common run, pushing the part before the
 * run and going on with the part after it.  Returns -1 on failure.
 */
static int histogram_region(struct env *e, struct region r, struct region **todo,
			    size_t *ntodo, size_t *alloc)
{
	for (;;) {
		uint32_t c1 = r.end1 + 1 - r.begin1, c2 = r.end2 + 1 - r.begin2;
		struct region lcs = { 0, 0, 0, 0 };
		int found;

		if (!c1 || !c2) {
			mark_all(e->rchg1, r.begin1, c1);
			mark_all(e->rchg2, r.begin2, c2);
			return 0;
		}
		if ((found = find_lcs(e, &lcs, &r)) < 0)
			return -1;
		if (found) {
			fall_back(e, &r);
			return 0;
		}
		if (lcs.begin1 == 0 && lcs.begin2 == 0) {
			mark_all(e->rchg1, r.begin1, c1);
			mark_all(e->rchg2, r.begin2, c2);
			return 0;
		}
		array_grow(todo, alloc, *ntodo + 1, sizeof(**todo));
		(*todo)[(*ntodo)++] = (struct region){ r.begin1, lcs.begin1 - 1,
						       r.begin2, lcs.begin2 - 1 };
		r.begin1 = lcs.end1 + 1;
		r.begin2 = lcs.end2 + 1;
	}
}

static int histogram(struct env *e)
{
	struct region *todo = NULL;
	size_t ntodo = 0, alloc = 0;
	int error = 0;

	array_grow(&todo, &alloc, 1, sizeof(*todo));
	todo[ntodo++] = (struct region){ 1, e->n1, 1, e->n2 };
	while (ntodo && error == 0)
		error = histogram_region(e, todo[--ntodo], &todo, &ntodo, &alloc);
	free(todo);
	return error;
}

/* --- sliding changes (xdl_change_compact, without the indent heuristic) --- */

struct group {
	long start, end;
};

struct side {
	char *rchg;
	const uint32_t *ha;
	long n;
};

static void group_init(const struct side *s, struct group *g)
{
	g->start = g->end = 0;
	while (s->rchg[g->end])
		g->end++;
}

static int group_next(const struct side *s, struct group *g)
{
	if (g->end == s->n)
		return -1;
	g->start = g->end + 1;
	for (g->end = g->start; s->rchg[g->end]; g->end++)
		;
	return 0;
}

static int group_previous(const struct side *s, struct group *g)
{
	if (g->start == 0)
		return -1;
	g->end = g->start - 1;
	for (g->start = g->end; s->rchg[g->start - 1]; g->start--)
		;
	return 0;
}

static int group_slide_down(const struct side *s, struct group *g)
{
	if (g->end < s->n && s->ha[g->start] == s->ha[g->end]) {
		s->rchg[g->start++] = 0;
		s->rchg[g->end++] = 1;
		while (s->rchg[g->end])
			g->end++;
		return 0;
	}
	return -1;
}

static int group_slide_up(const struct side *s, struct group *g)
{
	if (g->start > 0 && s->ha[g->start - 1] == s->ha[g->end - 1]) {
		s->rchg[--g->start] = 1;
		s->rchg[--g->end] = 0;
		while (s->rchg[g->start - 1])
			g->start--;
		return 0;
	}
	return -1;
}

/*
 * Slide one group up, then down as far as it goes (merging what it
 * meets), then back up to the last place it lined up with a change of
 * the other file, as xdiff does.
 */
static void compact_group(const struct side *x, struct group *g, const struct side *o,
			  struct group *go)
{
	long groupsize, earliest_end, end_matching_other;

	do {
		groupsize = g->end - g->start;
		end_matching_other = -1;
		while (!group_slide_up(x, g))
			group_previous(o, go);
		earliest_end = g->end;
		if (go->end > go->start)
			end_matching_other = g->end;
		while (!group_slide_down(x, g)) {
			group_next(o, go);
			if (go->end > go->start)
				end_matching_other = g->end;
		}
	} while (groupsize != g->end - g->start);
	if (g->end != earliest_end && end_matching_other != -1) {
		while (go->end == go->start) {
			group_slide_up(x, g);
			group_previous(o, go);
		}
	}
}

static void compact(const struct side *x, const struct side *o)
{
	struct group g, go;

	group_init(x, &g);
	group_init(o, &go);
	for (;;) {
		if (g.end != g.start)
			compact_group(x, &g, o, &go);
		if (group_next(x, &g))
			break;
		group_next(o, &go);
	}
}

static void build_script(struct ld_script *out, const struct env *e)
{
	uint32_t i1 = 0, i2 = 0;

	while (i1 < e->n1 || i2 < e->n2) {
		struct ld_change *c;

		if (!e->rchg1[i1] && !e->rchg2[i2]) {
			i1++;
			i2++;
			continue;
		}
		array_grow(&out->v, &out->alloc, out->n + 1, sizeof(*out->v));
		c = &out->v[out->n++];
		c->a = i1;
		c->b = i2;
		while (e->rchg1[i1])
			i1++;
		while (e->rchg2[i2])
			i2++;
		c->na = i1 - c->a;
		c->nb = i2 - c->b;
	}
}

static void env_free(struct env *e)
{
	free(e->ha1);
	marks_free(e->rchg1);
	marks_free(e->rchg2);
	free(e->heads);
	free(e->line_map);
	free(e->next_ptrs);
	free(e->recs);
}

int ld_diff(struct ld_script *out, const uint32_t *a, uint32_t na,
	    const uint32_t *b, uint32_t nb, struct ld_ids *ids)
{
	struct env e;
	struct side s1, s2;
	int error = 0;

	memset(&e, 0, sizeof(e));
	e.n1 = na;
	e.n2 = nb;
	e.ids = ids;
	e.ha1 = xmalloc(((size_t)na + nb + 1) * sizeof(*e.ha1));
	e.ha2 = e.ha1 + na;
	renumber(a, na, b, nb, ids, e.ha1, e.ha2);
	e.rchg1 = marks_new(na);
	e.rchg2 = marks_new(nb);
	e.heads = xmalloc(((size_t)1 << hashbits(na)) * sizeof(*e.heads));
	e.line_map = xmalloc(((size_t)na + 1) * sizeof(*e.line_map));
	e.next_ptrs = xmalloc(((size_t)na + 1) * sizeof(*e.next_ptrs));
	e.recs = xmalloc(((size_t)na + 1) * sizeof(*e.recs));
	if (histogram(&e) < 0) {
		/* the text's fault (it takes crafting), and git's merge fails on it too */
		error = tide_error_set(TIDE_EINVAL, "lines that fill a histogram hash chain "
				       "(%d distinct lines), which git cannot merge either",
				       MAX_CHAIN);
		goto done;
	}
	s1 = (struct side){ e.rchg1, e.ha1, na };
	s2 = (struct side){ e.rchg2, e.ha2, nb };
	compact(&s1, &s2);
	compact(&s2, &s1);
	build_script(out, &e);
done:
	env_free(&e);
	return error;
}
