/*
 * The walk under every graph.h operation: commits read from tide's
 * commit-graph file (graph_file.c) or parsed once, exact generation
 * numbers, the queue in generation order; ranges and reachability.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "graph_int.h"
#include "error.h"
#include "lineblame.h"
#include "treepaths.h"
#include "util.h"

static size_t oid_hash(const git_oid *id)
{
	size_t h;

	memcpy(&h, id->id, sizeof(h));
	return h;
}

static void table_grow(struct walk *k)
{
	size_t size = k->tsize ? k->tsize * 2 : 1024, i;
	uint32_t *t = xcalloc(size, sizeof(*t));

	for (i = 0; i < k->n; i++) {
		size_t h = oid_hash(&k->nodes[i].id) & (size - 1);

		while (t[h])
			h = (h + 1) & (size - 1);
		t[h] = (uint32_t)i + 1;
	}
	free(k->table);
	k->table = t;
	k->tsize = size;
}

uint32_t walk_node_get(struct walk *k, const git_oid *id)
{
	size_t h;
	struct node *n;

	if ((k->n + 1) * 2 > k->tsize)
		table_grow(k);
	for (h = oid_hash(id) & (k->tsize - 1); k->table[h]; h = (h + 1) & (k->tsize - 1))
		if (git_oid_equal(&k->nodes[k->table[h] - 1].id, id))
			return k->table[h] - 1;
	array_grow(&k->nodes, &k->alloc, k->n + 1, sizeof(*k->nodes));
	n = &k->nodes[k->n];
	memset(n, 0, sizeof(*n));
	git_oid_cpy(&n->id, id);
	n->owner = -1;
	k->table[h] = (uint32_t)k->n + 1;
	return (uint32_t)k->n++;
}

static void parent_add(struct walk *k, uint32_t ni, const git_oid *pid)
{
	uint32_t pi = walk_node_get(k, pid);

	array_grow(&k->parents, &k->parents_alloc, k->nparents + 1, sizeof(*k->parents));
	k->parents[k->nparents++] = pi;
	k->nodes[ni].nparents++;
}

static int parse_from_graph(struct walk *k, uint32_t ni, uint32_t pos)
{
	const struct cgraph *g = k->g;
	const unsigned char *d = g->cdat + (size_t)pos * 36;
	uint32_t p1 = get_be32(d + 20), p2 = get_be32(d + 24);
	uint32_t hi = get_be32(d + 28), lo = get_be32(d + 32);
	git_oid pid;

	git_oid_fromraw(&k->nodes[ni].tree, d);
	k->nodes[ni].gen = hi >> 2;
	k->nodes[ni].time = (int64_t)(((uint64_t)(hi & 3) << 32) | lo);
	k->nodes[ni].parents = (uint32_t)k->nparents;
	if (p1 != CG_NONE) {
		if (p1 >= g->n)
			return -1;
		git_oid_fromraw(&pid, g->oids + (size_t)p1 * 20);
		parent_add(k, ni, &pid);
	}
	if (p2 == CG_NONE)
		return 0;
	if (!(p2 & CG_EXTRA)) {
		if (p2 >= g->n)
			return -1;
		git_oid_fromraw(&pid, g->oids + (size_t)p2 * 20);
		parent_add(k, ni, &pid);
		return 0;
	}
	for (p2 &= ~CG_EXTRA; p2 < g->nedges; p2++) {
		uint32_t e = get_be32(g->edges + (size_t)p2 * 4);

		if ((e & ~CG_LAST) >= g->n)
			return -1;
		git_oid_fromraw(&pid, g->oids + (size_t)(e & ~CG_LAST) * 20);
		parent_add(k, ni, &pid);
		if (e & CG_LAST)
			return 0;
	}
	return -1;
}

/*
 * The tree, parents and committer time from the raw commit, without
 * libgit2's full parse or its object cache (a first commit-graph of a
 * deep history reads every commit once).  -1 when it does not look like
 * a commit header; the caller then asks git_commit_lookup().
 */
static int node_parse_raw(struct walk *k, uint32_t ni)
{
	git_odb_object *obj = NULL;
	const char *p, *end, *nl, *gt;
	git_oid id;
	int have_tree = 0, rc = -1;

	if (git_odb_read(&obj, k->odb, &k->nodes[ni].id) < 0 ||
	    git_odb_object_type(obj) != GIT_OBJECT_COMMIT)
		goto done;
	p = git_odb_object_data(obj);
	end = p + git_odb_object_size(obj);
	k->nodes[ni].nparents = 0;
	k->nodes[ni].parents = (uint32_t)k->nparents;
	k->nodes[ni].gen = GEN_INF;
	for (; p < end && *p != '\n'; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			goto done;
		if (nl - p == 45 && !memcmp(p, "tree ", 5)) {
			if (git_oid_fromstrn(&k->nodes[ni].tree, p + 5, 40) < 0)
				goto done;
			have_tree = 1;
		} else if (nl - p == 47 && !memcmp(p, "parent ", 7)) {
			if (git_oid_fromstrn(&id, p + 7, 40) < 0)
				goto done;
			parent_add(k, ni, &id);
		} else if (nl - p > 10 && !memcmp(p, "committer ", 10)) {
			for (gt = nl; gt > p && gt[-1] != '>'; gt--)
				;
			if (gt == p)
				goto done;
			k->nodes[ni].time = strtoll(gt, NULL, 10);
		}
	}
	rc = have_tree ? 0 : -1;
done:
	git_error_clear();
	git_odb_object_free(obj);
	return rc;
}

/*
 * Commits outside the commit-graph (today's merges, mostly) as parsed
 * once in this process, with their generation numbers once known: each
 * tree's merge-base walk passes every merge of the day before it.
 * Commits never change, nor their generation numbers.
 */
struct extra {
	git_oid id, tree;
	int64_t time;
	uint32_t gen;			/* 0: not known yet */
	uint32_t nparents;
	git_oid *parents;
};

static struct extra *extras;
static size_t nextras, extras_alloc;
static uint32_t *extra_table;
static size_t extra_tsize;

static struct extra *extra_find(const git_oid *id)
{
	size_t h;

	if (!extra_tsize)
		return NULL;
	for (h = oid_hash(id) & (extra_tsize - 1); extra_table[h]; h = (h + 1) & (extra_tsize - 1))
		if (git_oid_equal(&extras[extra_table[h] - 1].id, id))
			return &extras[extra_table[h] - 1];
	return NULL;
}

static void extra_add(const struct walk *k, uint32_t ni)
{
	const struct node *n = &k->nodes[ni];
	struct extra *e;
	size_t h, i;

	if ((nextras + 1) * 2 > extra_tsize) {
		size_t size = extra_tsize ? extra_tsize * 2 : 1024;

		free(extra_table);
		extra_table = xcalloc(size, sizeof(*extra_table));
		extra_tsize = size;
		for (i = 0; i < nextras; i++) {
			for (h = oid_hash(&extras[i].id) & (size - 1); extra_table[h];
			     h = (h + 1) & (size - 1))
				;
			extra_table[h] = (uint32_t)i + 1;
		}
	}
	array_grow(&extras, &extras_alloc, nextras + 1, sizeof(*extras));
	e = &extras[nextras];
	e->id = n->id;
	e->tree = n->tree;
	e->time = n->time;
	e->gen = 0;
	e->nparents = n->nparents;
	e->parents = xcalloc(n->nparents ? n->nparents : 1, sizeof(*e->parents));
	for (i = 0; i < n->nparents; i++)
		e->parents[i] = k->nodes[k->parents[n->parents + i]].id;
	for (h = oid_hash(&e->id) & (extra_tsize - 1); extra_table[h]; h = (h + 1) & (extra_tsize - 1))
		;
	extra_table[h] = (uint32_t)nextras++ + 1;
}

static int node_parse_commit(struct walk *k, uint32_t ni);

static int node_parse_commit_once(struct walk *k, uint32_t ni)
{
	if (k->nodes[ni].flags & F_PARSED)
		return 0;
	k->nodes[ni].flags |= F_PARSED;
	return node_parse_commit(k, ni);
}

static int node_parse_commit(struct walk *k, uint32_t ni)
{
	git_commit *c = NULL;
	uint32_t pos;
	unsigned i;
	const struct extra *e;

	if (k->g && cgraph_find(k->g, &k->nodes[ni].id, &pos)) {
		k->stats.from_graph++;
		k->nodes[ni].nparents = 0;
		k->nodes[ni].flags |= F_GEN;
		if (parse_from_graph(k, ni, pos) == 0)
			return 0;
		k->nodes[ni].flags &= ~F_GEN;
		k->nparents = k->nodes[ni].parents;	/* a bad entry: read the commit */
	}
	if ((e = extra_find(&k->nodes[ni].id))) {
		k->nodes[ni].tree = e->tree;
		k->nodes[ni].time = e->time;
		k->nodes[ni].gen = e->gen ? e->gen : GEN_INF;
		if (e->gen)
			k->nodes[ni].flags |= F_GEN;
		k->nodes[ni].nparents = 0;
		k->nodes[ni].parents = (uint32_t)k->nparents;
		for (i = 0; i < e->nparents; i++)
			parent_add(k, ni, &extras[e - extras].parents[i]);
		return 0;
	}
	if (k->odb && node_parse_raw(k, ni) == 0)
		goto parsed;
	k->nparents = k->nodes[ni].parents;
	if (git_commit_lookup(&c, k->repo, &k->nodes[ni].id) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read commit %s",
				      git_oid_tostr_s(&k->nodes[ni].id));
	k->nodes[ni].nparents = 0;
	k->nodes[ni].gen = GEN_INF;
	k->nodes[ni].time = git_commit_time(c);
	git_oid_cpy(&k->nodes[ni].tree, git_commit_tree_id(c));
	k->nodes[ni].parents = (uint32_t)k->nparents;
	for (i = 0; i < git_commit_parentcount(c); i++)
		parent_add(k, ni, git_commit_parent_id(c, i));
	git_commit_free(c);
parsed:
	if (!k->no_cache)
		extra_add(k, ni);
	return 0;
}

/*
 * With a commit-graph, a commit outside it gets its exact generation
 * number (1 + its parents' largest): walks ordered by generation then
 * never see a parent before its child, however the clocks went.  Only
 * commits outside the graph are walked for it; without a graph every
 * commit stays GEN_INF, ordered by time.
 */
static int node_gen(struct walk *k, uint32_t ni)
{
	uint32_t *stack = NULL, i;
	size_t n = 0, alloc = 0;
	int error = 0;

	if (!k->g || (k->nodes[ni].flags & F_GEN))
		return 0;
	array_grow(&stack, &alloc, 1, sizeof(*stack));
	stack[n++] = ni;
	while (n && !error) {
		uint32_t t = stack[n - 1], max = 0, pending = 0;
		struct extra *e;

		for (i = 0; i < k->nodes[t].nparents && !error; i++) {
			uint32_t pi = k->parents[k->nodes[t].parents + i];

			if ((error = node_parse_commit_once(k, pi)) < 0)
				break;
			if (!(k->nodes[pi].flags & F_GEN)) {
				array_grow(&stack, &alloc, n + 1, sizeof(*stack));
				stack[n++] = pi;
				pending = 1;
				break;
			}
			if (k->nodes[pi].gen > max)
				max = k->nodes[pi].gen;
		}
		if (pending || error)
			continue;
		k->nodes[t].gen = max + 1 >= 0x3FFFFFFF ? 0x3FFFFFFF : max + 1;
		k->nodes[t].flags |= F_GEN;
		if ((e = extra_find(&k->nodes[t].id)))
			e->gen = k->nodes[t].gen;
		n--;
	}
	free(stack);
	return error;
}

int walk_node_parse(struct walk *k, uint32_t ni)
{
	int error;

	if ((error = node_parse_commit_once(k, ni)) < 0)
		return error;
	return node_gen(k, ni);
}


void graph_warm(git_repository *repo)
{
	cgraph_get(repo);
}

void graph_remember(git_repository *repo, const git_oid *commit)
{
	struct walk k;

	memset(&k, 0, sizeof(k));
	k.repo = repo;
	k.g = cgraph_get(repo);
	if (git_repository_odb(&k.odb, repo) < 0 || walk_node_parse(&k, walk_node_get(&k, commit)) < 0)
		tide_error_clear();
	git_error_clear();
	walk_free(&k);
}


static int node_before(const struct walk *k, uint32_t a, uint32_t b)
{
	const struct node *x = &k->nodes[a], *y = &k->nodes[b];

	if (x->gen != y->gen)
		return x->gen > y->gen;
	if (x->time != y->time)
		return x->time > y->time;
	return a < b;	/* found first: a child is found before its parents */
}

void walk_heap_push(struct walk *k, uint32_t ni)
{
	size_t i;

	array_grow(&k->heap, &k->heap_alloc, k->nheap + 1, sizeof(*k->heap));
	for (i = k->nheap++; i > 0 && node_before(k, ni, k->heap[(i - 1) / 2]); i = (i - 1) / 2)
		k->heap[i] = k->heap[(i - 1) / 2];
	k->heap[i] = ni;
}

uint32_t walk_heap_pop(struct walk *k)
{
	uint32_t top = k->heap[0], last = k->heap[--k->nheap];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < k->nheap) {
		if (c + 1 < k->nheap && node_before(k, k->heap[c + 1], k->heap[c]))
			c++;
		if (!node_before(k, k->heap[c], last))
			break;
		k->heap[i] = k->heap[c];
		i = c;
	}
	if (k->nheap)
		k->heap[i] = last;
	return top;
}

/* Queue a node (parsed, so that it is ordered by its generation). */
int walk_enqueue(struct walk *k, uint32_t ni)
{
	int error;

	if (k->nodes[ni].flags & F_QUEUED)
		return 0;
	if ((error = walk_node_parse(k, ni)) < 0)
		return error;
	k->nodes[ni].flags |= F_QUEUED;
	if (!(k->nodes[ni].flags & F_HIDDEN))
		k->queued_interesting++;
	walk_heap_push(k, ni);
	return 0;
}

static void hide(struct walk *k, uint32_t ni)
{
	struct node *n = &k->nodes[ni];

	if (n->flags & F_HIDDEN)
		return;
	n->flags |= F_HIDDEN;
	if ((n->flags & F_QUEUED) && !(n->flags & F_DONE) && k->queued_interesting)
		k->queued_interesting--;	/* queued as interesting, still queued */
}

int walk_hidden(struct walk *k, uint32_t ni)
{
	uint32_t i;
	int error;

	k->stats.hidden++;
	for (i = 0; i < k->nodes[ni].nparents; i++) {
		uint32_t pi = k->parents[k->nodes[ni].parents + i];

		if (k->nodes[pi].flags & F_QUEUED)
			hide(k, pi);	/* popped already if it was interesting: cand filtered */
		else {
			k->nodes[pi].flags |= F_HIDDEN;
			if ((error = walk_enqueue(k, pi)) < 0)
				return error;
		}
	}
	return 0;
}

void walk_free(struct walk *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		walk_lines_drop(k, (uint32_t)i);
	for (i = 0; i < ARRAY_SIZE(k->blobs); i++)
		git_blob_free(k->blobs[i]);
	free(k->lines);
	free(k->lchanged);
	git_odb_free(k->odb);
	free(k->nodes);
	free(k->table);
	free(k->parents);
	for (i = 0; i < k->nsigs; i++)
		free(k->sigs[i]);
	free(k->sigs);
	tree_paths_free(k->tp);
	free(k->heap);
	free(k->cand);
	free(k->changed);
	free(k->per_path);
}


/* ---- ranges and reachability (src/checks.c, src/stats.c) ---- */

void graph_commits_release(struct graph_commits *c)
{
	free(c->v);
	free(c->parents);
	memset(c, 0, sizeof(*c));
}

static void range_add(struct graph_commits *out, size_t *alloc, size_t *palloc,
		      const struct walk *k, uint32_t ni)
{
	const struct node *n = &k->nodes[ni];
	struct graph_commit *c;
	uint32_t i;

	array_grow(&out->v, alloc, out->n + 1, sizeof(*out->v));
	array_grow(&out->parents, palloc, out->nparents + n->nparents + 1, sizeof(*out->parents));
	c = &out->v[out->n++];
	git_oid_cpy(&c->id, &n->id);
	git_oid_cpy(&c->tree, &n->tree);
	c->parents = out->nparents;
	c->nparents = n->nparents;
	for (i = 0; i < n->nparents; i++)
		git_oid_cpy(&out->parents[out->nparents++], &k->nodes[k->parents[n->parents + i]].id);
}

/*
 * The interesting commits are popped in generation order, so a commit is
 * final when popped; without a commit-graph (time order) one may turn out
 * hidden later, and is left out at the end, as the attribution walk does.
 */
static int range_walk(struct walk *k, const git_oid *tips, size_t ntips, const git_oid *hides,
		      size_t nhides, size_t max, int *truncated, uint32_t **found, size_t *nfound)
{
	size_t i, alloc = 0;
	int error;

	for (i = 0; i < nhides; i++) {
		uint32_t ni = walk_node_get(k, &hides[i]);

		k->nodes[ni].flags |= F_HIDDEN;
		if ((error = walk_enqueue(k, ni)) < 0)
			return error;
	}
	for (i = 0; i < ntips; i++)
		if ((error = walk_enqueue(k, walk_node_get(k, &tips[i]))) < 0)
			return error;
	while (k->nheap && k->queued_interesting) {
		uint32_t ni = walk_heap_pop(k), p;

		k->nodes[ni].flags |= F_DONE;
		if (k->nodes[ni].flags & F_HIDDEN) {
			if (k->stats.hidden >= HIDDEN_MAX) {
				*truncated = 1;
				break;
			}
			if ((error = walk_hidden(k, ni)) < 0)
				return error;
			continue;
		}
		k->queued_interesting--;
		if (max && *nfound >= max) {
			*truncated = 1;
			break;
		}
		array_grow(found, &alloc, *nfound + 1, sizeof(**found));
		(*found)[(*nfound)++] = ni;
		for (p = 0; p < k->nodes[ni].nparents; p++)
			if ((error = walk_enqueue(k, k->parents[k->nodes[ni].parents + p])) < 0)
				return error;
	}
	return 0;
}

int graph_range(struct graph_commits *out, git_repository *repo, const git_oid *tips,
		size_t ntips, const git_oid *hides, size_t nhides, size_t max)
{
	struct walk k;
	uint32_t *found = NULL;
	size_t nfound = 0, alloc = 0, palloc = 0, i;
	int error;

	memset(out, 0, sizeof(*out));
	memset(&k, 0, sizeof(k));
	k.repo = repo;
	k.g = cgraph_get(repo);
	if (git_repository_odb(&k.odb, repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot open the object database");
	error = range_walk(&k, tips, ntips, hides, nhides, max, &out->truncated, &found, &nfound);
	for (i = 0; !error && i < nfound; i++)
		if (!(k.nodes[found[i]].flags & F_HIDDEN))
			range_add(out, &alloc, &palloc, &k, found[i]);
	free(found);
	walk_free(&k);
	if (error < 0)
		graph_commits_release(out);
	return error;
}

/*
 * Reachability: the commit-graph is closed under parents, so from a
 * commit in it a walk needs only its positions (a bit each); commits
 * outside it (today's merges, a repository without the file) are read
 * and kept in a sorted list.
 */
struct graph_reach {
	const struct cgraph *g;
	unsigned char *bits;		/* g->n bits */
	git_oid *outside;		/* sorted */
	size_t noutside;
};

static int oid_cmp_qsort(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

static void reach_mark_graph(struct graph_reach *r, uint32_t pos, uint32_t **stack,
			     size_t *alloc)
{
	const struct cgraph *g = r->g;
	size_t n = 0;

	if (r->bits[pos / 8] & (1u << (pos % 8)))
		return;
	r->bits[pos / 8] |= (unsigned char)(1u << (pos % 8));
	array_grow(stack, alloc, 1, sizeof(**stack));
	(*stack)[n++] = pos;
	while (n) {
		const unsigned char *d = g->cdat + (size_t)(*stack)[--n] * 36;
		uint32_t par[2] = { get_be32(d + 20), get_be32(d + 24) }, e, i, q;

		for (i = 0; i < 2; i++) {
			if (par[i] == CG_NONE)
				continue;
			if (i == 1 && (par[i] & CG_EXTRA)) {
				for (e = par[i] & ~CG_EXTRA; e < g->nedges; e++) {
					q = get_be32(g->edges + (size_t)e * 4);
					if ((q & ~CG_LAST) < g->n &&
					    !(r->bits[(q & ~CG_LAST) / 8] & (1u << ((q & ~CG_LAST) % 8)))) {
						r->bits[(q & ~CG_LAST) / 8] |=
							(unsigned char)(1u << ((q & ~CG_LAST) % 8));
						array_grow(stack, alloc, n + 1, sizeof(**stack));
						(*stack)[n++] = q & ~CG_LAST;
					}
					if (q & CG_LAST)
						break;
				}
				continue;
			}
			q = par[i];
			if (q >= g->n || (r->bits[q / 8] & (1u << (q % 8))))
				continue;
			r->bits[q / 8] |= (unsigned char)(1u << (q % 8));
			array_grow(stack, alloc, n + 1, sizeof(**stack));
			(*stack)[n++] = q;
		}
	}
}

static int reach_outside_has(const struct graph_reach *r, const git_oid *id)
{
	return r->noutside && bsearch(id, r->outside, r->noutside, sizeof(*r->outside),
				      oid_cmp_qsort) != NULL;
}

/* A set of commit ids (open addressing), for the commits outside the file. */
struct oidset {
	git_oid *slots;
	unsigned char *used;
	size_t n, size;
};

/* 1 when id was added, 0 when it was there. */
static int oidset_add(struct oidset *s, const git_oid *id)
{
	size_t h, i;

	if ((s->n + 1) * 2 > s->size) {
		struct oidset bigger = { NULL, NULL, 0, s->size ? s->size * 2 : 256 };

		bigger.slots = xcalloc(bigger.size, sizeof(*bigger.slots));
		bigger.used = xcalloc(bigger.size, 1);
		for (i = 0; i < s->size; i++)
			if (s->used[i])
				oidset_add(&bigger, &s->slots[i]);
		free(s->slots);
		free(s->used);
		*s = bigger;
	}
	for (h = oid_hash(id) & (s->size - 1); s->used[h]; h = (h + 1) & (s->size - 1))
		if (git_oid_equal(&s->slots[h], id))
			return 0;
	s->used[h] = 1;
	git_oid_cpy(&s->slots[h], id);
	s->n++;
	return 1;
}

int graph_reach_new(struct graph_reach **out, git_repository *repo, const git_oid *tip)
{
	struct graph_reach *r = xcalloc(1, sizeof(*r));
	struct oidset seen = { 0 };
	git_oid *todo = NULL;
	uint32_t *stack = NULL, pos;
	size_t ntodo = 0, todo_alloc = 0, stack_alloc = 0, out_alloc = 0, i;
	int error = 0;

	*out = NULL;
	r->g = cgraph_get(repo);
	if (r->g)
		r->bits = xcalloc(r->g->n / 8 + 1, 1);
	array_grow(&todo, &todo_alloc, 1, sizeof(*todo));
	git_oid_cpy(&todo[ntodo++], tip);
	while (ntodo && !error) {
		git_oid id = todo[--ntodo];
		git_commit *c = NULL;

		if (r->g && cgraph_find(r->g, &id, &pos)) {
			reach_mark_graph(r, pos, &stack, &stack_alloc);
			continue;
		}
		if (!oidset_add(&seen, &id))
			continue;	/* outside the file, and seen already */
		if (r->noutside >= HIDDEN_MAX) {
			error = tide_error_set(TIDE_ERROR, "more than %d commits outside the commit-graph",
					       HIDDEN_MAX);
			break;
		}
		if (git_commit_lookup(&c, repo, &id) < 0) {
			error = tide_error_git(TIDE_ERROR, "cannot read commit %s", git_oid_tostr_s(&id));
			break;
		}
		array_grow(&r->outside, &out_alloc, r->noutside + 1, sizeof(*r->outside));
		git_oid_cpy(&r->outside[r->noutside++], &id);
		for (i = 0; i < git_commit_parentcount(c); i++) {
			array_grow(&todo, &todo_alloc, ntodo + 1, sizeof(*todo));
			git_oid_cpy(&todo[ntodo++], git_commit_parent_id(c, i));
		}
		git_commit_free(c);
	}
	free(todo);
	free(stack);
	free(seen.slots);
	free(seen.used);
	if (error < 0) {
		graph_reach_free(r);
		return error;
	}
	if (r->noutside)
		qsort(r->outside, r->noutside, sizeof(*r->outside), oid_cmp_qsort);
	*out = r;
	return 0;
}

int graph_reach_has(const struct graph_reach *r, const git_oid *id)
{
	uint32_t pos;

	if (!r)
		return 0;
	if (r->g && cgraph_find(r->g, id, &pos))
		return !!(r->bits[pos / 8] & (1u << (pos % 8)));
	return reach_outside_has(r, id);
}

void graph_reach_free(struct graph_reach *r)
{
	if (!r)
		return;
	free(r->bits);
	free(r->outside);
	free(r);
}
