#ifndef TIDE_GRAPH_INT_H
#define TIDE_GRAPH_INT_H

/*
 * What graph.c (the walk: nodes read from the commit-graph file or parsed,
 * generation numbers, the queue; ranges and reachability), graph_file.c
 * (tide's commit-graph file read, checked and written), graph_touch.c
 * (the attribution walks by path and by line) and graph_bases.c (merge
 * bases) share.  Nothing outside those files includes it.
 */
#include <stdint.h>
#include <sys/stat.h>
#include <git2.h>

#include "buf.h"
#include "graph.h"
#include "treepaths.h"

#define GEN_INF UINT32_MAX	/* not in the commit-graph: newer than all that are */
#define CG_NONE 0x70000000u
#define CG_EXTRA 0x80000000u
#define CG_LAST 0x80000000u
#define HIDDEN_MAX 2000000	/* commits walked below the bottoms, at most */
#define GIT_GRAPH_MAX (512 << 20)	/* a larger git commit-graph is not read (9M commits) */

struct cgraph {
	struct buf data;
	uint32_t n;
	const unsigned char *fanout, *oids, *cdat, *edges;
	size_t nedges;
	/* which file this is, so a rewritten one is read again */
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};


static inline uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t get_be64(const unsigned char *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

/* ---- the walk ---- */

#define F_PARSED 1u
#define F_QUEUED 2u	/* pushed once; never again */
#define F_HIDDEN 4u	/* an ancestor of a bottom (or one) */
#define F_SIG 8u
#define F_CAND 16u
#define F_DONE 32u	/* popped */
#define F_GEN 1024u	/* gen is the exact generation number */

struct node {
	git_oid id, tree;
	uint32_t gen;
	int64_t time;
	uint32_t parents, nparents;	/* into walk.parents */
	uint32_t sig;			/* into walk.sigs: npaths entries, once F_SIG */
	int owner;
	unsigned flags;
	uint32_t inq;			/* merge bases: entries in the queue */
	uint32_t epoch;			/* merge bases: 1 once mb_reduce() walked it */
	uint32_t lines;			/* line walk: into walk.lines + 1, 0 none */
};

/* A path's entry in a commit's tree (mode 0: none). */
#define pent tree_path_entry

struct walk {
	git_repository *repo;
	git_odb *odb;
	const struct cgraph *g;
	const struct graph_walk *w;
	struct node *nodes;
	size_t n, alloc;
	uint32_t *table;		/* node index + 1; 0 empty */
	size_t tsize;
	uint32_t *parents;
	size_t nparents, parents_alloc;
	struct tree_paths *tp;		/* the walk's paths, read in one pass per tree */
	struct pent **sigs;
	size_t nsigs, sigs_alloc;
	uint32_t *heap;
	size_t nheap, heap_alloc;
	size_t queued_interesting;
	uint32_t *cand;
	size_t ncand, cand_alloc;
	unsigned char *changed;		/* npaths flags per candidate */
	size_t changed_alloc;
	size_t *per_path;		/* candidates found changing each path */
	size_t paths_full;		/* paths with max_per_path of them */
	int full;			/* follow every parent of a merge */
	int stop;			/* a budget is spent: end the walk */
	/* graph_walk_lines(): each node's lines still to trace, npaths sets per slot */
	struct line_ranges **lines;
	size_t nlines, lines_alloc;
	unsigned char *lchanged;	/* the node being done: paths whose lines it changed */
	git_blob *blobs[8];		/* the versions read last: a parent's is its child's next */
	size_t nextblob;
	size_t diffed;			/* bytes of text diffed line by line */
	int no_cache;			/* writing the graph: keep no extras */
	struct graph_walk_stats stats;
};

/* the walk (graph.c) */
uint32_t walk_node_get(struct walk *k, const git_oid *id);
int walk_node_parse(struct walk *k, uint32_t ni);
void walk_free(struct walk *k);
void walk_heap_push(struct walk *k, uint32_t ni);
uint32_t walk_heap_pop(struct walk *k);
int walk_enqueue(struct walk *k, uint32_t ni);
int walk_hidden(struct walk *k, uint32_t ni);

/* the commit-graph file (graph_file.c) */
int cgraph_find(const struct cgraph *g, const git_oid *id, uint32_t *pos);
const struct cgraph *cgraph_get(git_repository *repo);
const struct cgraph *cgraph_get_for_reading(git_repository *repo);

/* the attribution walks (graph_touch.c) */
void walk_lines_drop(struct walk *k, uint32_t ni);

#endif
