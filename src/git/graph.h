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
	/*
	 * graph_walk_lines() only: for each path, the lines to trace in the
	 * tip's version of the file (lineblame.h), and per path what became
	 * of them (enum graph_lines_status), set by the walk.
	 */
	const struct line_ranges *lines;
	unsigned char *status;
};

typedef int (*graph_touch_cb)(const git_oid *commit, int owner, const unsigned char *changed,
			      void *payload);

int graph_walk_touching(git_repository *repo, const struct graph_walk *w, graph_touch_cb cb,
			void *payload);

/*
 * The commits of tip's history, not in the bottoms', that changed the
 * given lines of each path, as `git log -L START,END:PATH tip --not
 * bottoms` lists them, one such walk per path: a commit is passed to cb
 * (changed[i] for each path i whose lines it changed, newest first) when
 * its diff against its parent touches the lines; the lines then go on
 * as they were in the parent.  At a merge, the first parent whose
 * version leaves the lines as they are takes them all and the merge is
 * not listed; when none does, the merge changed them (it is listed) and
 * each parent gets its part.  Unlike git, renames are not followed (the
 * commit that added the file at its path is the last one listed), and
 * where one side removed the conflicting lines (a point, lineblame.h)
 * the commit that removed them is listed, and the lines it removed are
 * traced on.  Bounded like graph_walk_touching(); w->status says per path
 * whether the lines were traced to their end.
 */
/* Text compared per line walk, at most (a file rewritten by every commit of a long side). */
#define GRAPH_LINES_DIFF_BUDGET ((size_t)16 << 20)

enum graph_lines_status {
	GRAPH_LINES_DONE,	/* every line traced to a merge base or to the commit that made it */
	GRAPH_LINES_CUT,	/* the walk stopped (max_commits, max_per_path) first */
	GRAPH_LINES_BUDGET,	/* the walk stopped: its budget of text to diff was spent */
	GRAPH_LINES_UNREADABLE,	/* a version is binary, too large or missing */
};

struct line_ranges;
int graph_walk_lines(git_repository *repo, const struct graph_walk *w, graph_touch_cb cb,
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
 * Read and check repo's commit-graph now (it is read once per process):
 * the merge stage's processes, forked after this, share it instead of
 * each reading and hashing it again.
 */
void graph_warm(git_repository *repo);
/*
 * Parse commit (and what it needs below it outside the commit-graph) and
 * keep its generation number for this process, as a walk would: the
 * day's merges, made in the merge stage's processes, are then known to
 * every later one.
 */
void graph_remember(git_repository *repo, const git_oid *commit);

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
