#ifndef TIDE_CHECKS_H
#define TIDE_CHECKS_H

#include <stddef.h>
#include <git2.h>

#include "dayrec.h"
#include "event.h"

/*
 * The commit checks linux-next's maintainer does by hand, as a stage of
 * the run after the merges (docs/design.md, "Commit checks"): on each
 * tree's commits new in the day (in the day, not in mainline, not in the
 * previous day) the Fixes: tags (format, target in the day or mainline,
 * subject), the Signed-off-by of author and committer (the base's
 * .mailmap), and empty commits; on every commit of the day the same
 * patch (patch-id) under another id in another tree or in mainline, and
 * trees that add only merges; per tree, no new commit for a long time
 * and a fetch failing day after day.  The findings go to the day record
 * (struct day_checks, "checks"); reports mail them (src/checkmail.c).
 */

struct day;

#define CHECKS_STALE_AFTER 365		/* days without a new commit: DIR/config stale-after */
#define CHECKS_FETCH_FAILED_AFTER 3	/* days of failed fetches: DIR/config fetch-failed-after */
#define CHECKS_MAX_LINE 400		/* bytes of a Fixes: line the record keeps */
#define CHECKS_MAX_SIGNOFFS 256		/* Signed-off-by lines of one commit read */
#define CHECKS_MAX_FINDINGS 5000	/* findings a day records */
#define CHECKS_MAX_DUPLICATES 8		/* other commits named for one duplicate patch */
#define CHECKS_MAX_SAME_PATCH 256	/* commits of one patch-id paired */
/* Mainline commits (the newest) whose patches are compared with the trees' */
#define CHECKS_MAINLINE_WINDOW 50000

struct checks_opts {
	long stale_after, fetch_failed_after;	/* days; 0: the defaults */
	const char *patch_ids;	/* the patch-id cache (workspace_patch_ids()), or NULL */
	int no_diffstat;	/* leave the day-against-base diffstat out */
	struct event_sink *events;	/* or NULL */
};

/*
 * DIR/config's stale-after= and fetch-failed-after= (days) into o; a bad
 * value is TIDE_EINVAL naming the file and line (o keeps the default).
 */
int checks_settings(struct checks_opts *o, const char *wsdir);

/*
 * Check day d (its trees, "base", "commit"; prev the previous day or
 * NULL) in repo and set d->checks.  0 when the checks ran (their status
 * may still be "error" with the findings found so far, failure says
 * why); a TIDE_E* code only when nothing could be recorded.
 */
int checks_day(struct day *d, const struct day *prev, git_repository *repo,
	       const struct checks_opts *opts);

struct day_finding;

/*
 * What makes a finding the same one on another day: its kind and commit
 * (a duplicate: both commits; a tree's finding: the tree too; a failing
 * fetch: the tree and the first day).  reports/mail.json keeps these.
 * The caller frees it.
 */
char *checks_finding_key(const struct day_finding *f);

/* ---- the parsers (pure: fuzzed by tests/fuzz/fuzz_fixes.c) ---- */

/* What is wrong with a Fixes: tag; the record spells each as fixes_problem_name(). */
enum fixes_problem {
	FIXES_EXTRA_WORD = 1u << 0,	/* "Fixes: Fixes: ..." */
	FIXES_LEADING_WORD = 1u << 1,	/* "commit" before the id */
	FIXES_NO_SHA = 1u << 2,		/* no id of at least 5 hex digits */
	FIXES_NO_SUBJECT = 1u << 3,
	FIXES_NO_SPACE = 1u << 4,	/* between the id and the subject */
	FIXES_SHORT_SHA = 1u << 5,	/* fewer than 12 digits */
	FIXES_NO_CLOSING_PAREN = 1u << 6,
	FIXES_NO_CLOSING_QUOTE = 1u << 7,
	/* found against the repository (checks.c) */
	FIXES_NOT_FOUND = 1u << 8,	/* no object has this id */
	FIXES_AMBIGUOUS = 1u << 9,	/* several objects start with it */
	FIXES_NOT_COMMIT = 1u << 10,	/* a blob, tree or tag */
	FIXES_NOT_IN_DAY = 1u << 11,	/* a commit, but neither in the day nor in mainline */
	FIXES_SUBJECT_MISMATCH = 1u << 12,
};
#define FIXES_NPROBLEMS 13

/* "short-sha", "subject-mismatch", ... (one bit); NULL for none. */
const char *fixes_problem_name(unsigned bit);
/* The bit of a name, 0 when none. */
unsigned fixes_problem_parse(const char *name);
/* The sentence a mail says for one bit. */
const char *fixes_problem_text(unsigned bit);

struct fixes_tag {
	char *line;		/* the line as written, trimmed, UTF-8, at most CHECKS_MAX_LINE bytes */
	char *sha;		/* the hex digits (at most 64), or NULL */
	char *subject;		/* the quoted subject reduced (parentheses, quotes), or NULL */
	unsigned problems;	/* enum fixes_problem */
};

struct fixes_list {
	struct fixes_tag *v;
	size_t n;
	size_t total;		/* Fixes: lines in the message; only the first CHECKS_MAX_FIXES are in v */
};

/*
 * The Fixes: lines of a commit message (any bytes: a line is what ends
 * in '\n'; a line's text is made UTF-8 as utf8_lossy() does), the
 * subject (first line) left out, with the problems of their form, as
 * linux-next's check_fixes finds them.
 */
void fixes_parse(struct fixes_list *out, const char *msg, size_t len);
void fixes_list_release(struct fixes_list *l);

/*
 * Does a tag's subject (as fixes_parse() reduced it) name target, the
 * subject of the commit it points to: a prefix of it, "..." allowed at
 * its end, its start or in its middle (" ... ")?
 */
int fixes_subject_matches(const char *quoted, const char *target);

/* Which sign-offs a message lacks. */
enum { SIGNOFF_AUTHOR = 1, SIGNOFF_COMMITTER = 2 };

/* One person: name and address, as a signature or a Signed-off-by line gives them. */
struct person {
	const char *name, *email;
};

/*
 * The sign-offs msg (UTF-8) lacks: a "Signed-off-by:" line (any case,
 * any indentation, at most CHECKS_MAX_SIGNOFFS read) names the author
 * when its address or its name is the author's (case does not matter),
 * or the author's as the .mailmap has it (author_mapped, may be NULL);
 * the same for the committer.
 */
unsigned signoff_missing(const char *msg, size_t len, const struct person *author,
			 const struct person *author_mapped, const struct person *committer,
			 const struct person *committer_mapped);

#endif
