#ifndef TIDE_GRAPH_H
#define TIDE_GRAPH_H

#include <stddef.h>
#include <git2.h>

/*
 * The commit history as the merge stage needs it on a deep history: a
 * commit-graph file that libgit2 1.5 reads (git 2.39's default one it
 * cannot), and one bounded, path-limited walk for conflict attribution.
 * See docs/design.md, "Commit-graph and attribution".
 */

/* What graph_refresh() did, for the day's events. */
enum graph_refresh_what {
	GRAPH_UP_TO_DATE,	/* the file covers today's refs: untouched */
	GRAPH_WRITTEN,		/* written (none before, or refs moved) */
	GRAPH_REBUILT,		/* the file on disk was not ours or damaged: replaced */
};

struct graph_refresh_result {
	enum graph_refresh_what what;
	const char *why;	/* GRAPH_REBUILT: "truncated", "changed on disk", ... */
	int removed_git;	/* a commit-graph of git's was removed (see graph.c) */
	double seconds;
};

/*
 * Make objects/info/tide-commit-graph of the repository at repo_path (git's
 * commit-graph format, version 1) cover every ref.  Its hash and size are
 * kept next to it (tide-commit-graph.check); a file that does not match
 * (truncated, changed, copied from elsewhere) is removed before anything
 * reads it and written afresh.  A commit-graph of git's own is removed.
 */
int graph_refresh(struct graph_refresh_result *out, const char *repo_path);

/*
 * The commits of tip's history that are not in the history of any of
 * bottoms (the merge bases), found by one walk simplified by paths as
 * `git log bottoms..tip -- paths` simplifies it: a merge whose entries at
 * paths equal one parent's is followed through that parent only, so the
 * walk skips every merge (an earlier tree of the day, a mainline merge)
 * that did not touch the paths.  Each non-merge commit that changed one of
 * the paths is passed to cb, newest first, with changed[i] set for each
 * path i it changed, and owner: the index in owners of the first owner
 * commit (in the order given) from which the walk reached it, or -1.
 * When the simplified walk finds nothing, it is done again following every
 * parent of each merge.  At most max_commits commits are examined per
 * walk (see also max_per_path); a non-zero return from cb
 * ends the walk and is returned.
 */
struct graph_walk {
	const git_oid *tip;
	const git_oid *bottoms;
	size_t nbottoms;
	const char *const *paths;
	size_t npaths;
	const git_oid *owners;
	size_t nowners;
	size_t max_commits;
	/* 0, or stop once this many commits changing each path were found */
	size_t max_per_path;
};

typedef int (*graph_touch_cb)(const git_oid *commit, int owner, const unsigned char *changed,
			      void *payload);

int graph_walk_touching(git_repository *repo, const struct graph_walk *w, graph_touch_cb cb,
			void *payload);

/*
 * The merge bases of one and two (count 0: no common history), as
 * git_merge_bases() finds them, newest first, but from the commit-graph
 * tide keeps: libgit2 1.5 cannot be pointed at that file safely (see
 * graph.c).  Free with git_oidarray_dispose().
 */
int graph_merge_bases(git_oidarray *out, git_repository *repo, const git_oid *one,
		      const git_oid *two);
/* The merge bases of one and the set twos (git merge-base ONE TWO...). */
int graph_merge_bases_many(git_oidarray *out, git_repository *repo, const git_oid *one,
			   const git_oid *twos, size_t ntwos);

/*
 * The commits of tips' histories that none of hides' histories has (git
 * rev-list TIPS --not HIDES), each once, children before parents (the
 * walk's order: generation, then time), each with its tree and parents
 * (v[i].nparents ids from parents[v[i].parents]).  With max > 0 at most
 * max are listed (the newest); truncated says the walk stopped early
 * (max reached, or more than two million commits walked below hides).
 */
struct graph_commit {
	git_oid id, tree;
	size_t parents;
	unsigned nparents;
};

struct graph_commits {
	struct graph_commit *v;
	size_t n;
	git_oid *parents;
	size_t nparents;
	int truncated;
};

int graph_range(struct graph_commits *out, git_repository *repo, const git_oid *tips,
		size_t ntips, const git_oid *hides, size_t nhides, size_t max);
void graph_commits_release(struct graph_commits *c);

/*
 * The history of tip as a set: one bit per commit of the commit-graph
 * (the file is closed under parents), the commits outside it read one by
 * one.  A mainline of a million commits costs a walk of the file's
 * parent columns and 128 KB.  The set reads the file tide keeps for
 * repo: it is valid while no other repository's commit-graph is read.
 */
struct graph_reach;
int graph_reach_new(struct graph_reach **out, git_repository *repo, const git_oid *tip);
/* Is id in the history (tip included)? */
int graph_reach_has(const struct graph_reach *r, const git_oid *id);
void graph_reach_free(struct graph_reach *r);

/* Counters of the last graph_walk_touching() in this thread, for tests. */
struct graph_walk_stats {
	size_t examined;	/* interesting commits whose paths were read */
	size_t hidden;		/* commits walked as ancestors of the bottoms */
	size_t from_graph;	/* commits whose parents came from the commit-graph */
};
void graph_walk_last_stats(struct graph_walk_stats *out);

#endif
