#ifndef TIDE_REGRESS_H
#define TIDE_REGRESS_H

#include <stddef.h>
#include <jansson.h>

#include "dayrec.h"

/*
 * Failures followed across days (man/tide-regressions.1): every build
 * error, new warning, boot failure and guest or KUnit test failure of a
 * day is one result, named across days by its kind, the configuration
 * and arch it was built for, and the test (or the error's file and
 * message).  The results fold, day after day, into DIR/regressions.json:
 *
 *   { "version": 1, "through": "YYYY-MM-DD",
 *     "regressions": [ struct regression (dayrec.h), ... ],
 *     "history": { KEY: { "days": [["YYYY-MM-DD", "pass|fail|mixed"], ...],
 *                         "last_pass": "YYYY-MM-DD" } } }
 *
 * A failure with no open entry opens one ("new"), or "flaky" when the
 * test's flakiness is at least the threshold; failing again it is
 * "still-failing"; passing it is "fixed" (closed); a test that failed
 * one boot and passed another of the same kernel ("mixed") makes its
 * entry "flaky".  Flakiness is the share of the test's days in the
 * window that were mixed.  The file is derived from the day records
 * (the mails and culprits aside): folding a day again rebuilds it from
 * every day, keeping what was mailed.
 */

struct day;
struct buf;
struct mail_msg;
struct trees_conf;

#define REGRESS_DEFAULT_THRESHOLD 0.1
#define REGRESS_DEFAULT_WINDOW 14
#define REGRESS_MAX_WINDOW 365

struct regress_settings {
	double threshold;	/* DIR/config's flaky-threshold */
	int window;		/* flaky-window: a test's latest days with a result */
};

/* DIR/config's flaky-threshold and flaky-window (TIDE_EINVAL naming FILE:LINE). */
int regress_settings_load(struct regress_settings *out, const char *wsdir);

struct regress_list {
	char *through;			/* the newest day folded in, or NULL */
	struct regression **items;	/* oldest first */
	size_t n, alloc;
	json_t *history;		/* KEY -> {days, last_pass} */
};

/* DIR/regressions.json (missing: an empty list); TIDE_EINVAL naming the file and key. */
int regress_load(struct regress_list **out, const char *wsdir);
/* Written atomically. */
int regress_save(const struct regress_list *l, const char *wsdir);
struct regress_list *regress_list_new(void);
void regress_list_free(struct regress_list *l);

/* Open: new, still failing or flaky (not fixed). */
int regression_is_open(const struct regression *r);

/*
 * A day's results, KEY -> {kind, config, arch, test, outcome
 * ("pass", "fail", "mixed"), opens (may start a regression), detail}.
 * Only what the day's records say: a stage that did not run says
 * nothing, so a day that was not booted neither fails nor fixes a test.
 */
json_t *regress_day_results(const struct day *d);

/*
 * Fold day d (newer than l->through) into l; each change (an entry
 * opened, fixed, turned flaky) is a line of changes (may be NULL).
 */
void regress_fold_day(struct regress_list *l, const struct day *d,
		      const struct regress_settings *s, struct buf *changes);

/*
 * The workspace's days through date (NULL: the newest) folded into l:
 * those after l->through in order.  A date given at or before
 * l->through (a day run again) rebuilds l from the first day through the
 * newest folded, keeping the mails sent and the culprits of the entries
 * that are the same again.  Days that do not load are passed over.
 */
int regress_update(struct regress_list *l, const char *wsdir, const char *date,
		   const struct regress_settings *s, struct buf *changes);

/*
 * The culprits the bisects of day d name (found or semantic-conflict,
 * a --test, --boot or --build check), attached to the entries of the
 * same configuration and kind that were failing that day.  Returns how
 * many entries got a new culprit.
 */
size_t regress_attach_bisects(struct regress_list *l, const struct day *d);

/* "KIND:CONFIG/ARCH:TEST", the name of a result across days; the caller frees it. */
char *regress_key(const char *kind, const char *config, const char *arch, const char *test);
/* "FILE: MESSAGE": a build error's or warning's TEST in its key; the caller frees it. */
char *regress_diag_name(const json_t *diag);
/* The configuration and arch a day's own build and boot (the first) are named by. */
const char *regress_day_config(const struct day *d);
const char *regress_day_arch(const struct day *d);
/*
 * The entry of key that the day date is part of: failing that day
 * (first_bad <= date <= last_bad), or fixed on it; NULL when none.
 */
const struct regression *regress_find(const struct regress_list *l, const char *key,
				      const char *date);

/* ---- mails (src/regress_mail.c) ---- */

enum regress_mail {
	REGRESS_MAIL_NONE = -1,
	REGRESS_MAIL_NEW,	/* the regression appeared */
	REGRESS_MAIL_CULPRIT,	/* bisect named its culprit (not refuted by the revert) */
	REGRESS_MAIL_FIXED,	/* it passes again */
};

const char *regress_mail_name(enum regress_mail m);

/*
 * The next mail r is owed, once each: the "new" one while it is open
 * and not flaky, then the culprit (each culprit commit once), then
 * "fixed".  A regression never announced gets no later mail.
 */
enum regress_mail regress_mail_due(const struct regression *r);

struct regress_mail_opts {
	const char *project;	/* "linux-next" */
	const char *to;		/* the list (mail.conf's regressions=, else announce=) */
	const char *from;
	const char *lore;	/* archive URL for Closes:, "https://lore.kernel.org/r" */
	const struct trees_conf *conf;	/* the culprit tree's contact=, or NULL */
};

/*
 * The mail what of r: the subject and body (the detail, the days, the
 * culprit), ready-to-paste Reported-by: and Closes: lines and regzbot's
 * "#regzbot introduced:" (the culprit's commit, else the last good and
 * first bad days' tags).  The later mails answer the first.
 */
int regress_mail_make(struct mail_msg *out, const struct regression *r, enum regress_mail what,
		      const struct regress_mail_opts *o);
/* Record what was sent (mails.new, mails.culprit {commit, id}, mails.fixed). */
void regress_mail_sent(struct regression *r, enum regress_mail what, const char *message_id);

#endif
