#ifndef TIDE_DAY_H
#define TIDE_DAY_H

#include <stddef.h>
#include <jansson.h>

#include "dayrec.h"

/*
 * The day record, DIR/days/YYYY-MM-DD/day.json (schema: man/tide-show.1,
 * THE DAY RECORD).  The later stages' records are typed (dayrec.h); keys
 * this version does not know are kept in `extra` and written back
 * unchanged.
 */
struct day_commit {
	char *id, *subject, *author;
	char *tree;		/* ours side: the tree whose merge brought it, or "mainline" */
};

struct day_conflict {
	char *path;
	char *kind;
	char **hunks;
	size_t nhunks;
	struct day_commit *ours, *theirs;
	size_t nours, ntheirs;
	/*
	 * The conflicting lines in each side's version of the file, as
	 * `git log -L` takes them ("12,14 30,31"; "@N" the place after line
	 * N where a side removed lines), or NULL; and NULL when each side's
	 * commits are those that changed them, else why a side's list is not
	 * that (no lines to trace, only the file's commits; the search
	 * stopped early).
	 */
	char *ours_lines, *theirs_lines;
	char *ours_path, *theirs_path;	/* the file in each side, when it is not path (renames) */
	char *blame;
};

/* A conflict resolved from DIR/rr-cache: its path, rerere id and the resolution's diff. */
struct day_resolution {
	char *path, *id, *diff;
	char *combined;		/* the merge's `diff --cc` of path, or NULL */
};

/*
 * A tree based on a linux-next day (next_base.h): the day, its commit,
 * the tree's own commits after it, how many were applied onto the state
 * and how many the state had already; failed, when one did not apply,
 * its position (1-based), id and subject.  Only when day is set.
 */
struct day_next_base {
	char *day, *commit;
	size_t commits, applied, empty, failed;
	char *failed_commit, *failed_subject;
};

/*
 * What the merge stage did about a tree beyond merging it (merge_day.c):
 * each field is written to the tree's object under its own name, and
 * only when set.
 */
struct day_handling {
	char *handled;		/* "recorded", "previous", "dropped", or NULL */
	char *attempted_sha;	/* today's tip, when an earlier version was merged instead */
	char *version_from;	/* the day ("next-YYYYMMDD") whose version was merged */
	char *rejected;		/* why fsck refused today's tip */
	char *reason;		/* why the tree was left out (no common history) */
	struct day_resolution *resolutions;
	size_t nresolutions;
	char **resolution_errors;	/* "path: why", or the store's error */
	size_t nresolution_errors;
	char *fixup_error;	/* why the fixups did not apply */
	char *fixup_commit;	/* the state after the tree's fixups */
	char **fixups;		/* the fixup patches' file names, in order */
	size_t nfixups;
	struct day_next_base next_base;	/* "next_base", a tree based on linux-next */
};

/*
 * What became of a tree that day.  day.json spells each as the string
 * tree_status_name() gives (man/tide-show.1, THE DAY RECORD); a string
 * this version does not know is refused by the reader, naming the file
 * and the key: what a new outcome means for the day (is the tree in it?)
 * cannot be guessed.
 */
enum tree_status {
	TREE_STATUS_NONE = 0,	/* not decided yet; null in the record */
	TREE_MERGED,		/* "merged": today's version merged */
	TREE_UP_TO_DATE,	/* "up-to-date": the day already had it */
	TREE_PREVIOUS,		/* "previous": an earlier day's version merged instead */
	TREE_CONFLICT,		/* "conflict": left out, its merge conflicts (or unrelated history) */
	TREE_FETCH_FAILED,	/* "fetch-failed": not fetched, no earlier commit */
	TREE_PATCH_FAILED,	/* "patch-failed": a quilt patch did not apply, no earlier commit */
	TREE_DROPPED,		/* "dropped": its build failed after the merge (build-each-merge) */
	TREE_REJECTED,		/* "rejected": fsck refused its commit */
};

/* The record's spelling of s; NULL for TREE_STATUS_NONE. */
const char *tree_status_name(enum tree_status s);
/* name (NULL: TREE_STATUS_NONE) to *out; -1 when it is no status. */
int tree_status_parse(enum tree_status *out, const char *name);
/*
 * Is the tree in the day, some version of it in the day's commit
 * (merged, up-to-date, previous)?  The one answer the record's readers
 * (counts, reports, KCIDB, bisect, the dashboard, show, try) use.
 */
int tree_status_in_day(enum tree_status s);

struct day_tree {
	char *name, *type, *url, *branch;
	char *sha;		/* tip merged or attempted, or NULL */
	char *fetch_status;	/* "ok", "failed", "stale" */
	char *fetch_error;	/* or NULL */
	int fetch_patch_failed;	/* the quilt series was fetched and did not apply */
	double fetch_seconds;
	enum tree_status status;
	char *merge_commit;	/* or NULL */
	char *merge_base;	/* or NULL */
	double seconds;
	struct day_conflict *conflicts;
	size_t nconflicts;
	struct day_handling handling;
	struct day_build *build;	/* its build after its merge (build-each-merge), or NULL */
	struct day_moved *moved;	/* how its tip moved since the day before (changes.c), or NULL */
	json_t *extra;		/* other keys of the tree object, or NULL */
};

/* One more build configuration of the day (trees.conf's second and later). */
struct day_config {
	char *name;
	struct day_build *build;	/* or NULL */
	struct day_boot *boot;		/* or NULL */
};

struct day {
	char *date;		/* YYYY-MM-DD */
	char *tag;		/* next-YYYYMMDD */
	char *status;		/* "complete" */
	char *started, *finished;
	char *base_url, *base_tag, *base_commit;
	char *commit;		/* the tagged commit */
	struct day_tree *trees;
	size_t ntrees;
	char *project;		/* the project name KCIDB exports use, or NULL */
	struct day_build *build;	/* the day's build (build.c), or NULL */
	struct day_boot *boot;		/* its boot (boot.c), or NULL */
	/* The other configurations' builds and boots, in trees.conf's order ("configs"). */
	struct day_config *configs;
	size_t nconfigs;
	struct day_bisect *bisect;	/* the last bisect of the day (bisect.c), or NULL */
	/* The bisects before it, oldest first ("earlier_bisects", at most DAY_MAX_BISECTS). */
	struct day_bisect **earlier_bisects;
	size_t nearlier_bisects;
	struct day_checks *checks;	/* the commit checks (checks.c), or NULL */
	json_t *extra;		/* keys of a newer tide, or NULL */
};

/* How many earlier bisects a day keeps besides its last one. */
#define DAY_MAX_BISECTS 32

struct day *day_new(void);
/*
 * b (taken) becomes the day's last bisect; the one before joins
 * earlier_bisects, the oldest dropped past DAY_MAX_BISECTS.
 */
void day_add_bisect(struct day *day, struct day_bisect *b);
void day_free(struct day *day);
/* Append a zeroed tree to day and return it. */
struct day_tree *day_add_tree(struct day *day);
struct day_conflict *day_tree_add_conflict(struct day_tree *t);
struct day_commit *day_conflict_add_commit(struct day_conflict *c, int theirs);
void day_conflict_add_hunk(struct day_conflict *c, const char *text);
/* Append a zeroed resolution to h and return it. */
struct day_resolution *day_handling_add_resolution(struct day_handling *h);
/* Append a copy of text to *list (resolution_errors, fixups). */
void day_strings_add(char ***list, size_t *n, const char *text);
void day_handling_clear(struct day_handling *h);
/* The configuration name's entry, added (zeroed) when the day has none. */
struct day_config *day_config_get(struct day *day, const char *name);
/* The configuration name's entry, or NULL. */
const struct day_config *day_find_config(const struct day *day, const char *name);
const struct day_tree *day_find_tree(const struct day *day, const char *name);
/*
 * The trees whose commits are on the ours side of t's conflicts (who t
 * conflicts with), each once in the order met, "mainline" left out: at
 * most max names into names (borrowed from t).  Returns the count.
 */
size_t day_tree_conflicts_with(const struct day_tree *t, const char **names, size_t max);

/*
 * The tree's own tip that day: the commit it had, even when an older
 * version was merged (that one is t->sha then).
 */
const char *day_tree_tip(const struct day_tree *t);


int day_to_json(json_t **out, const struct day *day);
/*
 * A record of the wrong shape, or a stage record with a key of the wrong
 * type, is TIDE_EINVAL naming what (the file) and the key.
 */
int day_from_json(struct day **out, const json_t *json, const char *what);
/*
 * Read/write a day.json file; the write is atomic.  Reading takes the
 * record as untrusted input (src/safefs.h): not through a link, only a
 * regular file of at most DAY_MAX_RECORD bytes.  day_json_read() is the
 * reading alone, for callers that keep the JSON.
 */
#define DAY_MAX_RECORD (64u << 20)
int day_json_read(json_t **out, const char *path);
int day_load(struct day **out, const char *path);
int day_save(const struct day *day, const char *path);

/*
 * The one converter between a day's names: its date "YYYY-MM-DD" (the
 * day's directory, the record's "date"), its tag "next-YYYYMMDD" and
 * linux-next's "YYYYMMDD" (merge.log, localversion-next, "Changes since").
 */
/* "YYYY-MM-DD" that is a real calendar date. */
int day_date_is_valid(const char *date);
/*
 * A day named as "YYYY-MM-DD", "next-YYYYMMDD" or "YYYYMMDD" (a real
 * calendar date) into out as "YYYY-MM-DD"; TIDE_EINVAL naming name when
 * it is none of them.
 */
int day_date_parse(char out[11], const char *name);
/* "next-YYYYMMDD" for date; the caller frees it. */
char *day_tag_for(const char *date);
/* "YYYYMMDD" for date; the caller frees it. */
char *day_date_compact(const char *date);

/*
 * The dates that have a day directory under days_dir, oldest first
 * (entries that are not YYYY-MM-DD, like unfinished temporaries, are
 * skipped).  Returns the count, or a TIDE_E* code.
 */
int day_list(char ***out, const char *days_dir);
void day_list_free(char **dates, int n);
/*
 * The newest date under days_dir, or NULL: TIDE_ENOTFOUND when there is
 * no day yet, else day_list()'s error.  The caller frees it.
 */
char *day_newest(const char *days_dir);

/*
 * days_dir/DATE/day.json loaded: TIDE_ENOTFOUND naming the date when
 * there is no such day, the parser's error when it does not load.
 */
int day_open(struct day **out, const char *days_dir, const char *date);

/* Which days day_previous() takes; NULL takes any day that loads. */
typedef int (*day_match_fn)(const struct day *day, void *data);

/*
 * The newest day before date (or_same: date itself too) that loads and
 * that match accepts, into *out; days that do not load are passed over.
 * Returns 1 when found, 0 when none (*out NULL), or day_list()'s error.
 */
int day_previous(struct day **out, const char *days_dir, const char *date, int or_same,
		 day_match_fn match, void *data);

/*
 * A day's trees by outcome: the one count tide run's summary, tide log
 * and the announcement print.
 */
struct day_counts {
	size_t trees;
	size_t merged;		/* in the day: merged, up-to-date or previous */
	size_t previous;	/* merged at an earlier day's version */
	size_t conflicts;	/* left out by a conflict */
	size_t not_merged;	/* left out otherwise: fetch or patch failure, dropped, rejected */
	size_t stale;		/* fetch failed, an older commit used */
	size_t unapplied;	/* a quilt patch did not apply, an older commit used */
};

void day_counts(struct day_counts *out, const struct day *day);

/*
 * Put the finished directory tmp_dir into place as days_dir/date: an
 * atomic exchange when the day exists (readers see the old or the new
 * day, never neither), then the old one is removed.
 */
int day_install(const char *days_dir, const char *date, const char *tmp_dir);
/*
 * day_install() in steps, for an install that must be undone when what
 * goes with the day (its refs) cannot be written: the swap (*exchanged:
 * the old day is now at tmp_dir), its undo (renames only: no free space
 * needed), and the finish (days_dir synced, the old day removed).
 */
int day_install_swap(const char *days_dir, const char *date, const char *tmp_dir, int *exchanged);
int day_install_undo(const char *days_dir, const char *date, const char *tmp_dir, int exchanged);
int day_install_finish(const char *days_dir, const char *tmp_dir);

#endif
