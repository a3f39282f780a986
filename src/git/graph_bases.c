/* Merge bases on tide's commit-graph: git's paint-down-to-common (graph.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "graph_int.h"
#include "error.h"
#include "util.h"

/* ---- merge bases ---- */

#define F_P1 64u
#define F_P2 128u
#define F_STALE 256u
#define F_RESULT 512u

/*
 * Queue entries whose node is not stale and carries each side's flag:
 * when one side has none left, no commit can be reached from both sides
 * any more, and the walk stops there instead of draining the other side
 * (the earlier merges of the day, seen from the state).  That needs a
 * walk in exact generation order (a commit-graph); without one, the walk
 * goes on while any entry is not stale, as git's does.
 */
struct mb_state {
	size_t side1, side2;
	size_t nonstale;	/* without exact generations: git's own rule */
};

static void mb_count(struct mb_state *st, unsigned flags, uint32_t times, int sign)
{
	if (flags & F_STALE)
		return;
	st->nonstale += sign > 0 ? times : -(size_t)times;
	if (flags & F_P1)
		st->side1 += sign > 0 ? times : -(size_t)times;
	if (flags & F_P2)
		st->side2 += sign > 0 ? times : -(size_t)times;
}

static int mb_push(struct walk *k, struct mb_state *st, uint32_t ni)
{
	int error;

	if ((error = walk_node_parse(k, ni)) < 0)
		return error;
	k->nodes[ni].inq++;
	mb_count(st, k->nodes[ni].flags, 1, 1);
	walk_heap_push(k, ni);
	return 0;
}

static void mb_flag(struct walk *k, struct mb_state *st, uint32_t ni, unsigned f)
{
	struct node *n = &k->nodes[ni];

	mb_count(st, n->flags, n->inq, -1);
	n->flags |= f;
	mb_count(st, n->flags, n->inq, 1);
}

/* git's paint_down_to_common(), ordered by generation: the common ancestors found first. */
static int mb_paint(struct walk *k, uint32_t a, const git_oid *twos, size_t ntwos,
		    uint32_t **res, size_t *nres)
{
	struct mb_state st = { 0 };
	size_t alloc = 0, i;
	int error;

	mb_flag(k, &st, a, F_P1);
	if ((error = mb_push(k, &st, a)) < 0)
		return error;
	for (i = 0; i < ntwos; i++) {
		uint32_t b = walk_node_get(k, &twos[i]);

		mb_flag(k, &st, b, F_P2);
		if ((error = mb_push(k, &st, b)) < 0)
			return error;
	}
	while (k->nheap && (k->g ? st.side1 && st.side2 : st.nonstale)) {
		uint32_t ni = walk_heap_pop(k), j;
		unsigned f;

		k->nodes[ni].inq--;
		mb_count(&st, k->nodes[ni].flags, 1, -1);
		f = k->nodes[ni].flags & (F_P1 | F_P2 | F_STALE);
		if ((f & (F_P1 | F_P2)) == (F_P1 | F_P2)) {
			if (!(k->nodes[ni].flags & F_RESULT)) {
				k->nodes[ni].flags |= F_RESULT;
				array_grow(res, &alloc, *nres + 1, sizeof(**res));
				(*res)[(*nres)++] = ni;
			}
			f |= F_STALE;
		}
		for (j = 0; j < k->nodes[ni].nparents; j++) {
			uint32_t pi = k->parents[k->nodes[ni].parents + j];

			if ((k->nodes[pi].flags & f) == f)
				continue;
			mb_flag(k, &st, pi, f);
			if ((error = mb_push(k, &st, pi)) < 0)
				return error;
		}
	}
	return 0;
}

#define F_BASE 2048u	/* merge bases: a candidate */
#define F_REDUNDANT 4096u	/* merge bases: a candidate another one reaches */

/*
 * Drop each candidate that another one reaches (git's remove_redundant()),
 * in one walk from all of them at once: a candidate it meets below
 * another is an ancestor of that one.  Only commits of a generation at
 * least the lowest candidate's are walked (a commit-graph generation is
 * larger than any of its ancestors'; commits outside the graph are never
 * ancestors of ones in it; without a graph nothing is cut).  A walk per
 * pair of candidates cost seconds a tree late in a 400-tree day, whose
 * state has many merge bases with each tree.
 */
static int mb_reduce(struct walk *k, uint32_t *res, size_t *nres)
{
	uint32_t *stack = NULL, min_gen = UINT32_MAX, i;
	size_t n = 0, alloc = 0, c, kept = 0, redundant = 0;
	int error = 0;

	for (c = 0; c < *nres; c++) {
		k->nodes[res[c]].flags |= F_BASE;
		if (k->nodes[res[c]].gen < min_gen)
			min_gen = k->nodes[res[c]].gen;
		array_grow(&stack, &alloc, n + 1, sizeof(*stack));
		stack[n++] = res[c];
	}
	while (n && !error && redundant + 1 < *nres) {
		uint32_t ni = stack[--n];

		if ((error = walk_node_parse(k, ni)) < 0)
			break;
		for (i = 0; i < k->nodes[ni].nparents && !error; i++) {
			uint32_t pi = k->parents[k->nodes[ni].parents + i];

			if (k->nodes[pi].epoch == 1 || (error = walk_node_parse(k, pi)) < 0)
				continue;
			k->nodes[pi].epoch = 1;
			if ((k->nodes[pi].flags & (F_BASE | F_REDUNDANT)) == F_BASE) {
				k->nodes[pi].flags |= F_REDUNDANT;
				redundant++;
			}
			if (k->nodes[pi].gen < min_gen)
				continue;
			array_grow(&stack, &alloc, n + 1, sizeof(*stack));
			stack[n++] = pi;
		}
	}
	free(stack);
	if (error < 0)
		return error;
	for (c = 0; c < *nres; c++)
		if (!(k->nodes[res[c]].flags & F_REDUNDANT))
			res[kept++] = res[c];
	*nres = kept;
	return 0;
}

int graph_merge_bases(git_oidarray *out, git_repository *repo, const git_oid *one,
		      const git_oid *two)
{
	return graph_merge_bases_many(out, repo, one, two, 1);
}

int graph_merge_bases_many(git_oidarray *out, git_repository *repo, const git_oid *one,
			   const git_oid *twos, size_t ntwos)
{
	struct walk k;
	uint32_t *res = NULL;
	size_t nres = 0, i, kept = 0;
	int error, same = 0;

	memset(out, 0, sizeof(*out));
	memset(&k, 0, sizeof(k));
	k.repo = repo;
	k.g = cgraph_get_for_reading(repo);
	if (git_repository_odb(&k.odb, repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot open the object database");
	for (i = 0; i < ntwos; i++)
		same |= git_oid_equal(one, &twos[i]);
	if (same) {
		res = xcalloc(1, sizeof(*res));
		res[nres++] = walk_node_get(&k, one);
	} else if ((error = mb_paint(&k, walk_node_get(&k, one), twos, ntwos, &res, &nres)) < 0) {
		goto done;
	} else {
		for (i = 0; i < nres; i++)	/* found stale later: below another base */
			if (!(k.nodes[res[i]].flags & F_STALE))
				res[kept++] = res[i];
		nres = kept;
	}
	if (nres > 1 && (error = mb_reduce(&k, res, &nres)) < 0)
		goto done;
	for (i = 1; i < nres; i++) {	/* newest first, as git lists them */
		uint32_t v = res[i];
		size_t j;

		for (j = i; j > 0 && k.nodes[res[j - 1]].time < k.nodes[v].time; j--)
			res[j] = res[j - 1];
		res[j] = v;
	}
	out->ids = malloc(nres ? nres * sizeof(git_oid) : 1);
	if (!out->ids)
		abort();
	for (i = 0; i < nres; i++)
		git_oid_cpy(&out->ids[i], &k.nodes[res[i]].id);
	out->count = nres;
	error = 0;
done:
	free(res);
	walk_free(&k);
	return error;
}
