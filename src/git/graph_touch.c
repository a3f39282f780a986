/* The path-limited attribution walks, by path and by line (graph.h). */
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

static _Thread_local struct graph_walk_stats last_stats;

void graph_walk_last_stats(struct graph_walk_stats *out)
{
	*out = last_stats;
}

/* The entries at the walk's paths in a node's tree. */
static int node_sig(struct walk *k, uint32_t ni, const struct pent **out)
{
	struct pent *sig;
	int error;

	if ((error = walk_node_parse(k, ni)) < 0)
		return error;
	if (!(k->nodes[ni].flags & F_SIG)) {
		if (!k->tp)
			k->tp = tree_paths_new(k->w->paths, k->w->npaths);
		sig = xcalloc(k->w->npaths ? k->w->npaths : 1, sizeof(*sig));
		if ((error = tree_paths_read(sig, k->tp, k->repo, &k->nodes[ni].tree)) < 0) {
			free(sig);
			return error;
		}
		array_grow(&k->sigs, &k->sigs_alloc, k->nsigs + 1, sizeof(*k->sigs));
		k->nodes[ni].sig = (uint32_t)k->nsigs;
		k->sigs[k->nsigs++] = sig;
		k->nodes[ni].flags |= F_SIG;
	}
	*out = k->sigs[k->nodes[ni].sig];
	return 0;
}

/*
 * A node's entries are read for its children and for itself: once it is
 * done (its children came before it), they can go.  Without exact
 * generation numbers a late child reads them again.
 */
static void node_sig_drop(struct walk *k, uint32_t ni)
{
	if (!(k->nodes[ni].flags & F_SIG))
		return;
	free(k->sigs[k->nodes[ni].sig]);
	k->sigs[k->nodes[ni].sig] = NULL;
	k->nodes[ni].flags &= ~F_SIG;
}

static int pent_same(const struct pent *a, const struct pent *b)
{
	return a->mode == b->mode && (!a->mode || git_oid_equal(&a->id, &b->id));
}

static void give_owner(struct walk *k, uint32_t from, uint32_t to)
{
	int o = k->nodes[from].owner;

	if (o >= 0 && (k->nodes[to].owner < 0 || o < k->nodes[to].owner))
		k->nodes[to].owner = o;
}

/* A commit to pass to the callback, with the paths it changed. */
static void cand_push(struct walk *k, uint32_t ni, const unsigned char *changed)
{
	size_t i, np = k->w->npaths;

	array_grow(&k->cand, &k->cand_alloc, k->ncand + 1, sizeof(*k->cand));
	array_grow(&k->changed, &k->changed_alloc, (k->ncand + 1) * np, 1);
	memcpy(k->changed + k->ncand * np, changed, np);
	for (i = 0; i < np; i++)
		if (k->changed[k->ncand * np + i] && k->per_path[i]++ + 1 == k->w->max_per_path)
			k->paths_full++;
	k->cand[k->ncand++] = ni;
	k->nodes[ni].flags |= F_CAND;
}

static void cand_add(struct walk *k, uint32_t ni, const struct pent *mine, const struct pent *par)
{
	size_t i, np = k->w->npaths;
	unsigned char *changed = xcalloc(np ? np : 1, 1);

	for (i = 0; i < np; i++)
		changed[i] = par ? !pent_same(&mine[i], &par[i]) : mine[i].mode != 0;
	cand_push(k, ni, changed);
	free(changed);
}

/* An interesting commit: note it if it changed the paths, queue the parents to follow. */
static int walk_interesting(struct walk *k, uint32_t ni)
{
	const struct pent *mine, *ps = NULL;
	uint32_t i, np, first;
	size_t p;
	int error, same;

	k->stats.examined++;
	if ((error = node_sig(k, ni, &mine)) < 0)
		return error;
	np = k->nodes[ni].nparents;
	first = k->nodes[ni].parents;
	if (np == 0) {
		for (p = 0; p < k->w->npaths && !mine[p].mode; p++)
			;
		if (p < k->w->npaths)
			cand_add(k, ni, mine, NULL);
		return 0;
	}
	for (i = 0; i < np; i++) {
		uint32_t pi = k->parents[first + i];

		if ((error = walk_node_parse(k, pi)) < 0)
			return error;
		if (git_oid_equal(&k->nodes[pi].tree, &k->nodes[ni].tree)) {
			same = 1;
		} else {
			if ((error = node_sig(k, pi, &ps)) < 0)
				return error;
			mine = k->sigs[k->nodes[ni].sig];
			for (same = 1, p = 0; p < k->w->npaths && same; p++)
				same = pent_same(&mine[p], &ps[p]);
		}
		if (np == 1 && !same)
			cand_add(k, ni, mine, ps);
		if (same && np > 1 && !k->full) {
			/* follow the parent it took the paths from, only */
			give_owner(k, ni, pi);
			return walk_enqueue(k, pi);
		}
	}
	for (i = 0; i < np; i++) {
		uint32_t pi = k->parents[first + i];

		give_owner(k, ni, pi);
		if ((error = walk_enqueue(k, pi)) < 0)
			return error;
	}
	return 0;
}

static int cand_cmp_walk(const struct walk *k, uint32_t a, uint32_t b)
{
	const struct node *x = &k->nodes[a], *y = &k->nodes[b];

	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Candidates newest first (insertion sort: they are nearly in order). */
static void cand_sort(struct walk *k, size_t *order)
{
	size_t i, j;

	for (i = 0; i < k->ncand; i++) {
		size_t v = i;

		for (j = i; j > 0 && cand_cmp_walk(k, k->cand[order[j - 1]], k->cand[v]) > 0; j--)
			order[j] = order[j - 1];
		order[j] = v;
	}
}

/* ---- the line walk (graph_walk_lines()) ---- */

#define LINES_MAX_BLOB (16u << 20)	/* a larger version is not traced line by line */
/*
 * GRAPH_LINES_DIFF_BUDGET: text diffed per walk, at most; past it the
 * walk stops and says so (GRAPH_LINES_BUDGET).  A conflict in files every
 * commit rewrites (a translation, regenerated whole) on a side of
 * thousands of commits would otherwise diff each version of them.
 */

/* The line sets of node ni (npaths of them), empty ones made when it has none. */
static struct line_ranges *lines_of(struct walk *k, uint32_t ni)
{
	if (!k->nodes[ni].lines) {
		array_grow(&k->lines, &k->lines_alloc, k->nlines + 1, sizeof(*k->lines));
		k->lines[k->nlines++] = xcalloc(k->w->npaths ? k->w->npaths : 1,
						sizeof(struct line_ranges));
		k->nodes[ni].lines = (uint32_t)k->nlines;
	}
	return k->lines[k->nodes[ni].lines - 1];
}

void walk_lines_drop(struct walk *k, uint32_t ni)
{
	struct line_ranges *l;
	size_t p;

	if (!k->nodes[ni].lines)
		return;
	l = k->lines[k->nodes[ni].lines - 1];
	for (p = 0; p < k->w->npaths; p++)
		line_ranges_release(&l[p]);
	free(l);
	k->lines[k->nodes[ni].lines - 1] = NULL;
	k->nodes[ni].lines = 0;
}

/* Hand path p's lines r, as they are in parent pi, to pi. */
static int lines_pass(struct walk *k, uint32_t ni, uint32_t pi, size_t p,
		      const struct line_ranges *r)
{
	if (line_ranges_empty(r) || (k->nodes[pi].flags & F_DONE))
		return 0;
	line_ranges_union(&lines_of(k, pi)[p], r);
	give_owner(k, ni, pi);
	return walk_enqueue(k, pi);
}

/* A blob, from the few read last when it is one of them. */
static int blob_get(git_blob **out, struct walk *k, const git_oid *id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(k->blobs); i++)
		if (k->blobs[i] && git_oid_equal(git_blob_id(k->blobs[i]), id))
			return git_object_dup((git_object **)out, (git_object *)k->blobs[i]);
	if (git_blob_lookup(out, k->repo, id) < 0)
		return -1;
	git_blob_free(k->blobs[k->nextblob]);
	k->blobs[k->nextblob] = NULL;
	if (git_object_dup((git_object **)&k->blobs[k->nextblob], (git_object *)*out) == 0)
		k->nextblob = (k->nextblob + 1) % ARRAY_SIZE(k->blobs);
	return 0;
}

/* One version of a file as text: none is empty; 1 when it cannot be traced by line. */
static int version_load(git_blob **blob, const char **text, size_t *len, struct walk *k,
			const struct pent *e)
{
	git_object_t type;
	size_t size;

	*blob = NULL;
	*text = "";
	*len = 0;
	if (!e->mode || e->mode == GIT_FILEMODE_TREE)
		return 0;
	/* the size from the header: a huge version is not read to be refused */
	if (e->mode == GIT_FILEMODE_COMMIT || git_odb_read_header(&size, &type, k->odb, &e->id) < 0 ||
	    size > LINES_MAX_BLOB || blob_get(blob, k, &e->id) < 0) {
		git_error_clear();
		return 1;
	}
	if (git_blob_rawsize(*blob) > LINES_MAX_BLOB || git_blob_is_binary(*blob))
		return 1;
	*text = git_blob_rawcontent(*blob);
	*len = (size_t)git_blob_rawsize(*blob);
	return 0;
}

/*
 * git log -L's step over one commit for path p: a parent with the same
 * lines there takes them all (the first such parent of a merge), and the
 * commit did not change them; else the commit changed them, and each
 * parent gets the lines they came from.  *bad when a version cannot be
 * read as text.
 */
static int lines_step(struct walk *k, uint32_t ni, size_t p, const struct pent *me,
		      unsigned char *changed, int *bad)
{
	const struct line_ranges *r = &lines_of(k, ni)[p];
	uint32_t np = k->nodes[ni].nparents, first = k->nodes[ni].parents, i, took = np;
	struct line_ranges *from = xcalloc(np, sizeof(*from));
	git_blob *mine = NULL, *theirs = NULL;
	const char *mtext = NULL, *ptext;
	size_t mlen = 0, plen;
	const struct pent *ps;
	struct line_diff d;
	int error = 0;

	for (i = 0; i < np && took == np; i++) {
		if ((error = node_sig(k, k->parents[first + i], &ps)) < 0)
			goto done;
		if (pent_same(&me[p], &ps[p])) {
			line_ranges_union(&from[i], r);
			took = i;
			break;
		}
		if ((!mtext && version_load(&mine, &mtext, &mlen, k, &me[p])) ||
		    version_load(&theirs, &ptext, &plen, k, &ps[p])) {
			*bad = 1;
			goto done;
		}
		if (!line_ranges_map_quick(&from[i], r, ptext, plen, mtext, mlen)) {
			took = i;
		} else if (k->diffed + plen + mlen > GRAPH_LINES_DIFF_BUDGET) {
			k->w->status[p] = GRAPH_LINES_BUDGET;
			k->stop = 1;
			goto done;
		} else {
			k->diffed += plen + mlen;
			if ((error = line_diff_compute(&d, ptext, plen, mtext, mlen)) < 0)
				goto done;
			if (!line_ranges_map(&from[i], r, &d))
				took = i;
			line_diff_release(&d);
		}
		git_blob_free(theirs);
		theirs = NULL;
	}
	*changed = took == np;
	for (i = 0; i < np && !error; i++)
		if (took == np || took == i)
			error = lines_pass(k, ni, k->parents[first + i], p, &from[i]);
done:
	for (i = 0; i < np; i++)
		line_ranges_release(&from[i]);
	free(from);
	git_blob_free(mine);
	git_blob_free(theirs);
	return error;
}

/* An interesting commit of the line walk: which paths' lines it changed, and on. */
static int lines_interesting(struct walk *k, uint32_t ni)
{
	const struct graph_walk *w = k->w;
	const struct pent *me;
	size_t p;
	int error = 0, any = 0, bad;

	k->stats.examined++;
	if ((error = node_sig(k, ni, &me)) < 0)
		return error;
	memset(k->lchanged, 0, w->npaths);
	for (p = 0; p < w->npaths && k->nodes[ni].lines && !error; p++) {
		if (line_ranges_empty(&lines_of(k, ni)[p]) || w->status[p] != GRAPH_LINES_DONE ||
		    !me[p].mode)
			continue;	/* no lines, a path given up, or no file to have them */
		if (w->max_per_path && k->per_path[p] >= w->max_per_path) {
			w->status[p] = GRAPH_LINES_CUT;
			continue;
		}
		bad = 0;
		if (!k->nodes[ni].nparents)
			k->lchanged[p] = me[p].mode != 0;	/* the root made the file */
		else
			error = lines_step(k, ni, p, me, &k->lchanged[p], &bad);
		if (bad)
			w->status[p] = GRAPH_LINES_UNREADABLE;
		any |= k->lchanged[p];
	}
	if (any && !error)
		cand_push(k, ni, k->lchanged);
	walk_lines_drop(k, ni);
	return error;
}

/* Lines left on commits the walk did not get to: those paths' histories are cut short. */
static void lines_cut(struct walk *k)
{
	size_t ni, p;

	for (ni = 0; ni < k->n; ni++) {
		const struct line_ranges *l;

		if (!k->nodes[ni].lines || (k->nodes[ni].flags & F_HIDDEN))
			continue;
		l = k->lines[k->nodes[ni].lines - 1];
		for (p = 0; p < k->w->npaths; p++)
			if (!line_ranges_empty(&l[p]) && k->w->status[p] == GRAPH_LINES_DONE)
				k->w->status[p] = k->stop ? GRAPH_LINES_BUDGET : GRAPH_LINES_CUT;
	}
}

static int walk_run(struct walk *k)
{
	const struct graph_walk *w = k->w;
	size_t i;
	int error = 0;

	for (i = 0; i < w->nowners; i++) {
		uint32_t ni = walk_node_get(k, &w->owners[i]);

		if (k->nodes[ni].owner < 0)
			k->nodes[ni].owner = (int)i;
	}
	for (i = 0; i < w->nbottoms; i++) {
		uint32_t ni = walk_node_get(k, &w->bottoms[i]);

		k->nodes[ni].flags |= F_HIDDEN;
		if ((error = walk_enqueue(k, ni)) < 0)
			return error;
	}
	if (w->lines) {
		uint32_t ti = walk_node_get(k, w->tip);

		for (i = 0; i < w->npaths; i++) {
			w->status[i] = GRAPH_LINES_DONE;
			line_ranges_union(&lines_of(k, ti)[i], &w->lines[i]);
		}
	}
	if ((error = walk_enqueue(k, walk_node_get(k, w->tip))) < 0)
		return error;
	while (k->nheap && k->queued_interesting) {
		uint32_t ni = walk_heap_pop(k);

		k->nodes[ni].flags |= F_DONE;
		if (k->nodes[ni].flags & F_HIDDEN) {
			if (k->stats.hidden >= HIDDEN_MAX)
				break;
			error = walk_hidden(k, ni);
			walk_lines_drop(k, ni);	/* lines from below a merge base: on neither side */
		} else {
			k->queued_interesting--;
			if (k->stats.examined >= w->max_commits)
				break;
			error = w->lines ? lines_interesting(k, ni) : walk_interesting(k, ni);
			node_sig_drop(k, ni);
		}
		if (error < 0)
			return error;
		if (k->stop || (w->max_per_path && k->paths_full == w->npaths))
			break;	/* the newest max_per_path of each path are found */
	}
	return 0;
}

/* One walk; *found is the number of commits passed to cb. */
static int walk_once(git_repository *repo, const struct graph_walk *w, int full,
		     graph_touch_cb cb, void *payload, size_t *found)
{
	struct walk k;
	size_t *order = NULL, i;
	int error;

	memset(&k, 0, sizeof(k));
	*found = 0;
	k.repo = repo;
	k.w = w;
	k.full = full;
	k.g = cgraph_get_for_reading(repo);
	if (git_repository_odb(&k.odb, repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot open the object database");
	k.per_path = xcalloc(w->npaths ? w->npaths : 1, sizeof(*k.per_path));
	k.lchanged = xcalloc(w->npaths ? w->npaths : 1, 1);
	if ((error = walk_run(&k)) < 0)
		goto done;
	if (w->lines)
		lines_cut(&k);
	order = xcalloc(k.ncand ? k.ncand : 1, sizeof(*order));
	cand_sort(&k, order);
	for (i = 0; i < k.ncand && !error; i++) {
		uint32_t ni = k.cand[order[i]];

		if (k.nodes[ni].flags & F_HIDDEN)
			continue;	/* found to be below a bottom after all */
		++*found;
		error = cb(&k.nodes[ni].id, k.nodes[ni].owner, k.changed + order[i] * w->npaths,
			   payload);
	}
done:
	last_stats = k.stats;
	free(order);
	walk_free(&k);
	return error;
}

int graph_walk_touching(git_repository *repo, const struct graph_walk *w, graph_touch_cb cb,
			void *payload)
{
	size_t found;
	int error = walk_once(repo, w, 0, cb, payload, &found);

	/*
	 * Nothing: the paths' history on this side is hidden behind a merge
	 * equal to a parent that leads below the bottoms (a tree that added
	 * and removed a file, merged onto a base without it).  Walk again
	 * through every parent, within the same bound.
	 */
	if (!error && !found)
		error = walk_once(repo, w, 1, cb, payload, &found);
	return error;
}

int graph_walk_lines(git_repository *repo, const struct graph_walk *w, graph_touch_cb cb,
		     void *payload)
{
	size_t found;

	return walk_once(repo, w, 0, cb, payload, &found);
}
