#ifndef TIDE_BISECT_H
#define TIDE_BISECT_H

#include <stddef.h>
#include <git2.h>
#include <jansson.h>

/*
 * Bisecting a failing day.  Stage 1 searches the day's first-parent chain
 * (base, merge 1 .. merge N, the Next/ files commit) for the first state
 * that fails; stage 2 searches the guilty tree's commits, each merged onto
 * the state just before that tree's merge.  A culprit that is good when
 * merged on mainline alone is a semantic conflict: a third search finds
 * the earlier tree it conflicts with.  Day against day (since != NULL)
 * first switches trees from the good day's SHAs to the bad day's.
 *
 * The check is a callback, so the search runs the same with a shell
 * command (tests), a kernel build or a boot.  Every step is appended to
 * DIR/bisect/state.json as soon as it is decided; a resumed bisect
 * replays the recorded verdicts of the same states instead of testing
 * them again, so a run killed half-way loses at most one step.
 */

enum bisect_verdict {
	BISECT_UNTESTED = 0,
	BISECT_GOOD,
	BISECT_BAD,
	BISECT_SKIP,		/* untestable: exit 125, a failed build under --boot */
};

/*
 * Test commit (a real or a temporary merge commit in repo).  Returns 0
 * with *verdict set, or a negative TIDE_E* code when the check itself
 * could not run (then the bisect stops; its state stays resumable).
 * *note may be set to a malloc'd one-line remark (e.g. why a step skipped).
 */
struct day_bisect;

struct bisect_check {
	int (*run)(void *data, git_repository *repo, const git_oid *commit,
		   enum bisect_verdict *verdict, char **note);
	void *data;
};

/*
 * The --cmd check: check the commit out into srcdir (checkout_tree(),
 * incremental) and run `sh -c CMD` there, output appended to log_path.
 * Exit 0 is good, 125 skip, 126/127 (not executable, not found) an
 * error (TIDE_EINVAL), death by a signal an error, anything else bad,
 * as `git bisect run`.  TIDE_BISECT_COMMIT holds the commit's hex.
 */
struct bisect_cmd {
	const char *cmd;
	const char *srcdir;
	const char *state_path;
	const char *log_path;
	/* One line when the checkout is done and the command starts (may be NULL). */
	void (*progress)(void *data, const char *line);
	void *progress_data;
};

int bisect_cmd_run(void *data, git_repository *repo, const git_oid *commit,
		   enum bisect_verdict *verdict, char **note);

enum bisect_outcome {
	BISECT_FOUND = 0,	/* a commit (or the Next/ files commit) */
	BISECT_SEMANTIC,	/* a commit good alone, bad with another tree */
	BISECT_RANGE,		/* skipped steps leave several candidates */
	BISECT_UNCONFIRMED,	/* the culprit did not fail (or its parent pass) again */
	BISECT_NOTHING,		/* the day passes the check */
	BISECT_BASE_BROKEN,	/* the base (mainline, or the good day) fails */
};

struct bisect_opts {
	const char *wsdir;	/* the workspace: days/, bisect/ */
	const char *date;	/* the failing day, YYYY-MM-DD (or YYYYMMDD) */
	const char *since;	/* the good day for day against day, or NULL */
	int retries;		/* runs per verdict, >= 1 */
	const json_t *check_spec;	/* how cmd/ describes the check; stored for --continue */
	int resume;		/* replay DIR/bisect/state.json's steps */
	const struct bisect_check *check;
	int check_builds;	/* the check builds a kernel: its runs count as builds */
	/* One line per event (step started/decided, stage results). */
	void (*progress)(void *data, const char *line);
	void *progress_data;
};

struct bisect_result {
	enum bisect_outcome outcome;
	char *date;		/* YYYY-MM-DD */
	char *tree;		/* the guilty tree, "mainline", or NULL */
	char *commit;		/* the first bad commit (hex) */
	char *subject;
	char *other_tree;	/* semantic conflict: the earlier tree */
	char *range_first, *range_last;	/* BISECT_RANGE: the candidates */
	size_t steps;		/* states decided (tested, replayed or skipped unbuilt) */
	size_t runs;		/* check runs, retries included */
	size_t builds;		/* runs that built a kernel (0 for --cmd) */
	size_t replayed;	/* steps taken from the interrupted run's state */
	size_t dropped;		/* the culprit is a dropped commit: how many were */
	json_t *dropped_list;	/* [{commit, subject}] of the dropped commits */
	size_t bound;		/* ceil(log2 N1) + ceil(log2 N2) + endpoints + confirmations */
	double seconds;
	/* The culprit reverted on the day: the record's "revert" (dayrec.h), or NULL. */
	json_t *revert;
	struct day_bisect *record;	/* the day.json "bisect" record */
};

/*
 * Run (or resume) the bisect.  Returns 0 with res filled (any outcome),
 * or a negative TIDE_E* code: TIDE_ENOTFOUND for a day that does not
 * exist, TIDE_EINVAL for a day without the documented shape.  On success
 * the result is stored in the day's day.json under "bisect".
 */
int bisect_run(struct bisect_result *res, git_repository *repo,
	       const struct bisect_opts *opts);
void bisect_result_release(struct bisect_result *res);

/* DIR/bisect/state.json, or TIDE_ENOTFOUND when no bisect was started. */
int bisect_state_load(json_t **out, const char *wsdir);


const char *bisect_verdict_name(enum bisect_verdict v);
const char *bisect_outcome_name(enum bisect_outcome o);

/*
 * The pure search: states 0..n where 0 is good and n is bad, the others
 * untested (v[i] == BISECT_UNTESTED) or already known.  test() decides
 * state i.  Picks the untested state nearest the middle of the open range,
 * stepping around skipped ones as `git bisect` does.  On return *lo is the
 * last good state and *hi the first bad one; hi - lo > 1 means the states
 * between were all skipped.  Returns 0 or test()'s error.
 */
int bisect_search(enum bisect_verdict *v, size_t n,
		  int (*test)(void *data, size_t i, enum bisect_verdict *out),
		  void *data, size_t *lo, size_t *hi);

/* ceil(log2(n)) for n >= 1 (0 for n <= 1): the searches' step bound. */
size_t bisect_log2_ceil(size_t n);

/*
 * Identifiers in the +/- lines of a diff text: C-like words of 4+ chars
 * with an underscore, or of 8+ chars, not keywords.
 */
int bisect_diff_symbols(json_t *set, const char *patch_text);

/* One tree of a day: the tree after it in the day, and in bisect's state. */
struct bisect_rebuilt {
	char *tree;		/* the tree's name */
	git_oid day_tree;	/* the tree of the day's commit after it (its merge or last fixup) */
	git_oid state_tree;	/* the tree of the state bisect built (zero when it could not) */
	char *why;		/* why bisect could not build the state, or NULL */
	size_t nbases;		/* merge bases of the state before it and its commit (2+: criss-cross) */
};

/*
 * Day date rebuilt the way bisect builds the states it tests: from the
 * base, each tree the record has in the day merged in order at the commit
 * the day merged, with the day's fixup commits, through a bisect step's
 * own merges (merge_step_run(), the recorded resolutions, the fixups
 * picked).  One entry per tree in the day, in order.  Nothing is written
 * to the repository.  For the tests that bisect's states are the day's.
 */
int bisect_rebuild_day(struct bisect_rebuilt **out, size_t *n, git_repository *repo,
		       const char *wsdir, const char *date);
void bisect_rebuilt_free(struct bisect_rebuilt *r, size_t n);

#endif
