#ifndef TIDE_BISECT_INT_H
#define TIDE_BISECT_INT_H

/*
 * What bisect.c (the search: context, steps, merges of mixes, days'
 * chains, semantic conflicts, the confirmation) and bisect_days.c (day
 * against day: which tree's new version broke a day) share.
 */
#include <git2.h>
#include <jansson.h>

#include "bisect.h"
#include "buf.h"

struct day;
struct merge_objects;

struct bctx {
	git_repository *repo;
	const struct bisect_opts *opts;
	git_signature *sig;	/* the temporary commits' name (their time: the newest parent's) */
	char *state_path;
	json_t *state;		/* what DIR/bisect/state.json holds */
	json_t *steps;		/* state["steps"], borrowed */
	json_t *old_steps;	/* the interrupted run's steps, replayed in order */
	size_t replay;
	double t0, elapsed_before;
	size_t nsteps, nruns, nbuilds, nreplayed;
	char *store;		/* DIR/rr-cache: recorded resolutions */
	json_t *memo;		/* "ours theirs fixups..." -> the merged commit, or "!why" */
	struct merge_objects *mo;	/* temporary objects kept in memory */
	/* What building the current step's state took. */
	struct {
		size_t merges, reused, resolved, fixups;
		struct buf notes;
		double t;
		int begun;	/* step_begin() called, test_state() not yet */
	} st;
};

/*
 * One tree of a state, as `tide run` merged it: its tip merged onto the
 * state, the recorded resolutions (DIR/rr-cache) replayed on the
 * conflicts, then its fixups (the day's fixup commits, picked in order).
 */
struct mixslot {
	const git_oid *tip;	/* NULL: the tree is absent */
	const char *name;
	const json_t *fixups;	/* array of commit hexes, or NULL */
};

/*
 * A tree's part of a day's first-parent chain: its merge and the fixup
 * commits `tide run` put after it (same Tide-Tree: trailer, one parent).
 * The state after the tree is the last of them.
 */
struct group {
	int has_merge;
	git_oid merge;
	char *name;		/* the Tide-Tree: trailer, or NULL */
	json_t *fixups;		/* commit hexes, oldest first */
};

/*
 * A mix: vec[0].tip (a base commit) with the trees of vec[1..n] merged on
 * top in order (tip NULL: tree absent).  A series varies one slot over
 * candidate commits: state 0 is the mix as given (known good), state i
 * puts cand[i-1] in the slot; known_bad, when set, stands for the last
 * state (the day's own commits, resolutions and fixups included).
 */
struct series {
	struct bctx *c;
	const char *stage;
	const char *what;		/* tree name for labels */
	struct mixslot *vec;
	size_t nvec;
	size_t slot;
	const git_oid *cand;
	size_t ncand;
	const git_oid *known_bad;
	const git_oid *known_good;	/* state 0 */
};

struct bday {
	char date[11];		/* YYYY-MM-DD */
	char *path;		/* its day.json */
	char *days_dir;		/* DIR/days */
	struct day *day;	/* the record, as day_open() checked it */
	git_oid tip, base;
	int has_base;
	json_t *fixups;		/* tree name -> its fixup commits that day */
};

int bday_load(struct bday *d, git_repository *repo, const char *wsdir,
		    const char *date);
void bday_release(struct bday *d);
char *bisect_commit_subject(git_repository *repo, const git_oid *id);
int bisect_confirm(struct bctx *c, struct bisect_result *res,
		   const git_oid *bad, const git_oid *good);
int bday_chain(struct bctx *c, const struct bday *d, git_oid **chain,
		     struct group **groups, size_t *n);
void bisect_groups_free(struct group *g, size_t n);
int bisect_mix_commit(struct bctx *c, const struct mixslot *vec, size_t nvec, git_oid *out,
		      char **why);
int bisect_oid_field(git_oid *out, const char *hex);
void bisect_progress(struct bctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bisect_set_commit(struct bisect_result *res, git_repository *repo, const git_oid *id);
void bisect_set_str(char **dst, const char *s);
int bisect_stage2(struct bctx *c, struct bisect_result *res, struct series *s,
		  size_t *found);
void bisect_step_begin(struct bctx *c, const char *stage, const char *label);
int bisect_test_base(struct bctx *c, struct bisect_result *res, const git_oid *good,
		     const char *label, int *go_on);
int bisect_test_state(struct bctx *c, const char *stage, const char *label,
		      const git_oid *commit, const char *why, enum bisect_verdict *out);
int bisect_test_tip(struct bctx *c, struct bisect_result *res, const git_oid *bad,
		    const char *label, int *go_on);

/* bisect_days.c */
int bisect_days(struct bctx *c, struct bisect_result *res, struct bday *bad,
		       const char *since);

#endif
