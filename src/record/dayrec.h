#ifndef TIDE_DAYREC_H
#define TIDE_DAYREC_H

#include <stdint.h>
#include <jansson.h>

/*
 * The later stages' records of a day (man/tide-show.1, THE DAY RECORD):
 * "build" (the day's, and a tree's after its merge), "boot", "bisect" and
 * a tree's "moved"; and the entries of DIR/regressions.json.
 * Each is described by one field table in dayrec.c, which drives its one
 * reader and its one writer: a new key is one line there and one member
 * here.
 *
 * A key is written when its bit is in `have` (a NULL string or object
 * then is JSON null) or when it is a string or JSON value that is set.
 * The reader sets `have` for each key it finds.  A full record from a
 * stage has every "always" key (dayrec_*_full()); a stage that could not
 * run has only "status" and "failure".  Nested objects and lists
 * (warnings, tests, steps, ...) are kept as checked JSON values.
 */
struct dayrec_head {
	uint64_t have;		/* keys present, bit i for field i of the table */
	json_t *extra;		/* keys of a newer tide, written back unchanged; or NULL */
};

struct day_build {
	struct dayrec_head head;
	char *status;		/* "ok", "failed" */
	char *failure;		/* why it failed, or NULL */
	char *commit;		/* hex */
	char *config, *arch;	/* a declared configuration's name and arch, or NULL */
	double seconds, checkout_seconds, config_seconds, make_seconds;
	long long objects;	/* compiled (Kbuild's CC and AS lines); 0 when not counted */
	long long checked;	/* objects rebuilt with W=1 / C=1 (the day's changed files) */
	double check_seconds;
	json_t *checkout;	/* {full, written, removed} */
	int config_regenerated;
	long long jobs;
	int ccache;
	char *remote_cache;	/* or NULL */
	json_t *ccache_stats;	/* object, or NULL */
	json_t *distcc;		/* object, or NULL */
	json_t *errors;		/* [{file, line, column?, message, kind, tree?}] */
	long long errors_total;
	json_t *warnings, *new_warnings;	/* like errors */
	char *log;		/* the log's name in the day directory, or NULL */
	char *kernel;		/* the image built, or NULL */
	json_t *make_command;	/* make's argv, or NULL */
	char *compiler, *binutils, *config_sha256;	/* or NULL */
	char *kernel_sha256;	/* of the image, or NULL */
};

struct day_boot {
	struct dayrec_head head;
	char *status;		/* passed, failed, panic, timeout, error, skipped, ... */
	char *failure;		/* the stage could not run: why; or NULL */
	char *reason;		/* or NULL */
	double seconds;
	char *accel;
	long long smp;
	int timed_out;
	long long exit_status;
	double timeout;
	json_t *counts;		/* {pass, fail, skip} */
	json_t *tests, *problems, *warnings;
	/* [{name: "kernel"|"guest", header, suites, counts}], one per KTAP document; or NULL */
	json_t *documents;
	char *cmdline;
	double initramfs_seconds;
	char *accel_note, *smp_note, *console;	/* or NULL */
	json_t *qemu_command;	/* argv, or NULL */
	char *qemu_version, *initramfs_sha256;	/* or NULL */
	/*
	 * The boots before the last when guest tests failed and the boot was
	 * tried again (DIR/config's boot-attempts): [{status, reason, seconds,
	 * failed: [test names], console}], oldest first; or NULL.
	 */
	json_t *attempts;
	/* Tests that failed on one boot of this kernel and passed on another; or NULL. */
	json_t *flaky;
};

struct day_bisect {
	struct dayrec_head head;
	char *outcome;
	json_t *check;		/* the check's spec, or NULL */
	char *since;		/* or NULL */
	long long retries;
	char *tree, *commit, *subject;	/* the culprit, or NULL */
	char *conflicts_with;	/* or NULL */
	char *range_first, *range_last;	/* or NULL */
	json_t *dropped;	/* [{commit, subject}], or NULL */
	long long steps_done, builds, runs, replayed, bound;
	double seconds;
	json_t *steps;
	/*
	 * The culprit reverted on the bad day (or its tree left out when the
	 * revert does not apply) and the check run again: {how: "reverted" |
	 * "tree-left-out", commit, verdict, confirmed: true | false | null,
	 * note}; or NULL.
	 */
	json_t *revert;
};

/*
 * A tree's movement since the day before (changes.c), the "moved" key of
 * its object: git's counts of commits its tip gained and lost, and for a
 * tree that lost some (rebased or rewound) its own commits compared by
 * patch id (mainline's commits and merges left out).
 */
struct day_moved {
	struct dayrec_head head;
	char *since;		/* the earlier day, YYYY-MM-DD */
	char *from;		/* the tree's tip that day */
	long long ahead, behind;
	int rewound;		/* behind > 0 */
	long long dropped, rebased, added;	/* by patch id, rewound only */
};

/*
 * One failure followed across days, an entry of DIR/regressions.json
 * (src/regress.h): what fails where, since when, and what became of it.
 */
struct regression {
	struct dayrec_head head;
	char *id;		/* stable: from the key and the first bad day */
	char *key;		/* "KIND:CONFIG/ARCH:TEST" */
	char *kind;		/* "build", "warning", "boot", "test" */
	char *config, *arch;
	char *test;		/* a test's name, "FILE: MESSAGE" of an error or warning, "boot" */
	char *detail;		/* one line on how it failed the first day */
	char *state;		/* "new", "still-failing", "fixed", "flaky" */
	char *first_bad, *last_good, *last_bad, *fixed;	/* dates, or NULL */
	char *first_tag, *last_good_tag;	/* next-YYYYMMDD of those days, or NULL */
	char *base_tag;		/* the first bad day's mainline tag, or NULL */
	long long bad_days;	/* days it failed (flaky: failed at least one boot) */
	double score;		/* the test's flakiness when last seen */
	json_t *culprit;	/* {tree, commit, subject, day, outcome, conflicts_with?, confirmed?} */
	json_t *mails;		/* {"new": ID, "culprit": {commit, id}, "fixed": ID} */
};

/*
 * The commit checks of the day (src/checks.h, key "checks"): what was
 * looked at and each finding.  A finding stays in the record while its
 * commit is in the day (carried from day to day, "since" the first day
 * it was found); it is mailed once (reports/mail.json "checks").
 */
/* Fixes: lines of one commit checked: a finding's tags are at most that many. */
#define CHECKS_MAX_FIXES 32

struct day_finding {
	struct dayrec_head head;
	/* fixes, signoff, duplicate, empty, merge-only, stale, fetch-failed */
	char *kind;
	char *tree;
	char *commit;		/* 40 hex; stale: the tree's tip; fetch-failed: NULL */
	char *subject;		/* the commit's subject, or NULL */
	char *author;		/* "Name <address>" (the base's .mailmap), or NULL */
	char *since;		/* the day it was first found, YYYY-MM-DD */
	json_t *tags;		/* fixes: [{"tag", "target", "problems": [...]}], or NULL */
	long long tags_total;	/* fixes: the Fixes: lines of the message (more than tags when bounded) */
	char *missing;		/* signoff: "author", "committer" or "author and committer" */
	char *other_tree;	/* duplicate: the other tree, or "mainline" */
	char *other_commit, *other_subject;
	char *date;		/* stale: the tip's committer date, YYYY-MM-DD */
	long long days;		/* stale: days without a new commit; fetch-failed: days in a row */
	char *url;		/* stale, fetch-failed: the tree's URL (password redacted) */
	char *error;		/* fetch-failed: the last fetch's error */
};

/* The layout every list of records has (dayrec.c reads and writes them). */
struct day_findings {
	struct day_finding **v;
	size_t n;
};

struct day_checks {
	struct dayrec_head head;
	char *status;		/* "ok", or "error" (failure: why; the findings may be partial) */
	char *failure;
	long long commits;	/* commits checked: new in the day, not in mainline */
	long long trees;	/* trees that brought them */
	double seconds;
	/* {"commits": non-merge, "files", "insertions", "deletions"}: the day against its base */
	json_t *mainline;
	long long stale_after, fetch_failed_after;	/* the settings used, in days */
	struct day_findings findings;
};

struct day_checks *day_checks_new(void);	/* every "always" key */
void day_checks_free(struct day_checks *c);
struct day_finding *day_finding_new(void);
void day_finding_free(struct day_finding *f);
struct day_finding *day_finding_dup(const struct day_finding *f);
/* Mark an integer key (tags_total, days) as present: it is written then even when 0. */
void day_finding_set_has(struct day_finding *f, const char *key);
/* Append f (now owned by c). */
void day_checks_add(struct day_checks *c, struct day_finding *f);
json_t *day_checks_to_json(const struct day_checks *c);
json_t *day_finding_to_json(const struct day_finding *f);
int day_checks_from_json(struct day_checks **out, const json_t *json, const char *what);
int day_finding_from_json(struct day_finding **out, const json_t *json, const char *what);
int day_checks_has(const struct day_checks *c, const char *key);
/*
 * "7 files changed, 37 insertions(+)": the day against its base as git's
 * --shortstat writes it (a count of 0 is left out when the other is not).
 */
struct buf;
void day_checks_shortstat(struct buf *out, const json_t *mainline);
/* The checks as tide show prints them: a line, then one per finding (daytext.c). */
char *day_checks_text(const struct day_checks *c);

/* New records; _full() marks every key a complete record has. */
struct day_build *day_build_new(void);
struct day_build *day_build_full(void);
struct day_boot *day_boot_new(void);
struct day_boot *day_boot_full(void);
struct day_bisect *day_bisect_new(void);
struct day_bisect *day_bisect_full(void);
struct day_moved *day_moved_new(void);
struct regression *regression_new(void);
void day_moved_free(struct day_moved *m);
void regression_free(struct regression *r);
void day_build_free(struct day_build *b);
void day_boot_free(struct day_boot *b);
void day_bisect_free(struct day_bisect *b);

/* A stage that did not run: {"status": status, "failure": failure}. */
struct day_build *day_build_failed(const char *status, const char *failure);
struct day_boot *day_boot_failed(const char *status, const char *failure);

json_t *day_build_to_json(const struct day_build *b);
json_t *day_boot_to_json(const struct day_boot *b);
json_t *day_bisect_to_json(const struct day_bisect *b);
json_t *day_moved_to_json(const struct day_moved *m);
json_t *regression_to_json(const struct regression *r);

/*
 * Read a record; a key of the wrong type is TIDE_EINVAL naming what (the
 * file) and the key.  A NULL json gives *out NULL and 0.
 */
int day_build_from_json(struct day_build **out, const json_t *json, const char *what);
int day_boot_from_json(struct day_boot **out, const json_t *json, const char *what);
int day_bisect_from_json(struct day_bisect **out, const json_t *json, const char *what);
int day_moved_from_json(struct day_moved **out, const json_t *json, const char *what);
int regression_from_json(struct regression **out, const json_t *json, const char *what);

/* Whether the record has key (a field of its table); for keys added later. */
int day_build_has(const struct day_build *b, const char *key);
int day_boot_has(const struct day_boot *b, const char *key);
int day_bisect_has(const struct day_bisect *b, const char *key);
int day_moved_has(const struct day_moved *m, const char *key);
/*
 * Mark key (a field of the table) as present, for a stage filling its
 * record: a number or boolean is written only when marked (or "always"
 * in a _full() record); a string or JSON value whenever it is set.
 */
void day_build_set_has(struct day_build *b, const char *key);
void day_moved_set_has(struct day_moved *m, const char *key);
void regression_set_has(struct regression *r, const char *key);
/*
 * A copy of s for a record's string (NULL gives NULL), bad UTF-8 bytes
 * replaced as json_text() would: the record in memory reads as it will
 * from day.json.
 */
char *dayrec_text(const char *s);

/*
 * The records as tide show prints them (daytext.c; NULL when rec is NULL;
 * the caller frees): the build and the boot as lines (each
 * "        "-indented after the first, ending in a newline), the bisect as
 * one line: the check, the outcome, the tree and commit, the cost.  A
 * configuration's boot (config not NULL) says "boot    [NAME] ...".
 */
/*
 * A build's ccache and distcc lines (its "ccache_stats", "distcc" and
 * "remote_cache"; each may be NULL), each starting with indent.
 */
void build_farm_summary(struct buf *out, const json_t *ccache_stats, const json_t *distcc,
			const char *remote_cache, const char *indent);

char *day_build_text(const struct day_build *rec);
char *day_boot_text(const struct day_boot *rec, const char *config);
char *day_bisect_text(const struct day_bisect *rec);

/* Copies through JSON (NULL gives NULL). */
struct day_build *day_build_dup(const struct day_build *b);
struct day_boot *day_boot_dup(const struct day_boot *b);
struct day_bisect *day_bisect_dup(const struct day_bisect *b);
struct day_moved *day_moved_dup(const struct day_moved *m);
struct regression *regression_dup(const struct regression *r);

#endif
