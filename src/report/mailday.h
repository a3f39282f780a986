#ifndef TIDE_MAILDAY_H
#define TIDE_MAILDAY_H

#include <stddef.h>

/*
 * The mailing policy of a day (tide report --mail): which of its tree
 * reports and commit-check mails go out, to whom, and what DIR/mail.json
 * and DIR/tide.log keep of it.  A conflict goes out once, and only when
 * it is new since the previous day (unless all); a check finding once
 * over the days; mail.conf's max-per-day bounds them all.  Recipients are
 * trees.conf's contact= lines as written: no .mailmap rewrites them,
 * since any tree merged into the day could ship one and send another
 * tree's conflict, hunks and all, anywhere.
 */
struct day;
struct mail_msg;
struct trees_conf;
struct workspace;

enum mailday_what {
	MAILDAY_NOT_NEW,	/* a conflict not new since the previous day */
	MAILDAY_ALREADY,	/* mailed today already */
	MAILDAY_LIMIT,		/* max-per-day mails already sent today */
	MAILDAY_NO_CONTACT,	/* a check mail with nobody to go to */
	MAILDAY_UNMAILABLE,	/* the report cannot be made a mail: why */
	MAILDAY_DRY_RUN,	/* msg is the mail that would go */
	MAILDAY_SENT,		/* msg went out */
	MAILDAY_FAILED,		/* the server failed: why (mail.json says so for a tree) */
	MAILDAY_UNSAVED,	/* DIR/mail.json could not be saved: why, code */
};

/* What happened to one mail, as it happens. */
struct mailday_event {
	enum mailday_what what;
	const char *who;	/* the tree, or "stale trees" */
	const char *kind;	/* a check mail's kind; NULL: the tree's report */
	const struct mail_msg *msg;	/* DRY_RUN, SENT */
	const char *why;	/* UNMAILABLE, FAILED, UNSAVED */
	int code;		/* UNSAVED's TIDE_E* code */
	long max_per_day;	/* LIMIT */
};

struct mailday_opts {
	const char *tree;	/* only this tree's mails; NULL: all */
	int dry_run;		/* make the mails, send none, keep nothing */
	int all;		/* also the conflicts and findings mailed or not new */
	void (*tell)(void *data, const struct mailday_event *ev);
	void *data;
};

/*
 * Mail day's reports (prev: the day before, what "new" is measured
 * against, or NULL), then its check mails, with DIR/mail.conf.  Returns 0
 * (what happened to each mail went to tell), or an error when mail.conf
 * cannot be read (a dry run goes on without it).
 */
int mailday_send(struct workspace *ws, const struct trees_conf *conf, const struct day *d,
		 const struct day *prev, const struct mailday_opts *o);

#endif
