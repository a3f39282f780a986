#ifndef TIDE_MAILCONF_H
#define TIDE_MAILCONF_H

#include <stddef.h>
#include <jansson.h>

#include "conf.h"
#include "mail.h"

/*
 * DIR/mail.conf, the mail settings of `tide report --mail`
 * (man/tide-report.1, MAIL CONFIGURATION): key=value lines, '#' comments
 *   smtp=URL  from=ADDRESS  credentials=FILE  starttls=yes  cainfo=FILE
 *   announce=ADDRESS  regressions=ADDRESS  max-per-day=N  timeout=SECONDS
 * and DIR/days/DATE/reports/mail.json, what was mailed that day:
 *   {"sent": {tree: message-id}, "failed": {tree: why}, "announce": message-id}
 */

#define MAILCONF_MAX_PER_DAY 20		/* max-per-day= when unset */
#define MAILCONF_MAX_PER_DAY_MAX 100000
#define MAILCONF_TIMEOUT_MAX CONF_MAX_SECONDS	/* timeout= in whole seconds, 1 to this */
#define MAILCONF_FROM "tide <tide@localhost>"

struct mailconf {
	struct mail_server server;	/* smtp=, starttls=, timeout=, cainfo=, credentials' user */
	char *from;			/* NULL: MAILCONF_FROM */
	char *announce;			/* the list the announcement goes to, or NULL */
	char *regressions;		/* the list regression mails go to (else announce), or NULL */
	long max_per_day;
	char *credentials;		/* credentials=, made absolute against wsdir */
};

void mailconf_init(struct mailconf *c);
void mailconf_release(struct mailconf *c);

/*
 * Parse text (len bytes; path names it in messages) into c (set up with
 * mailconf_init()).  A relative credentials= is taken in wsdir.  An error
 * is TIDE_EINVAL "PATH:LINE: what is wrong"; c then holds what the lines
 * before the bad one set.  Reads no other file.
 */
int mailconf_parse(struct mailconf *c, const char *text, size_t len, const char *path,
		   const char *wsdir);

/*
 * mailconf_init() and the workspace's DIR/mail.conf parsed, its
 * credentials file read, the server checked (mail_server_check()).  A
 * missing file is TIDE_ENOTFOUND.  c->from is set in any case, and c
 * holds what was read before an error (a dry run goes on with it).
 */
int mailconf_load(struct mailconf *c, const char *wsdir);

/* ---- mail.json ---- */

struct mail_state {
	json_t *json;
	char *path;
};

/* DIR/days/DATE/reports/mail.json; missing or unreadable is empty. */
void mail_state_load(struct mail_state *st, const char *wsdir, const char *date);
int mail_state_save(const struct mail_state *st);
void mail_state_release(struct mail_state *st);

/* The message id tree's report went out with, or NULL. */
const char *mail_state_sent(const struct mail_state *st, const char *tree);
size_t mail_state_nsent(const struct mail_state *st);
void mail_state_set_sent(struct mail_state *st, const char *tree, const char *message_id);
void mail_state_set_failed(struct mail_state *st, const char *tree, const char *why);
/* The announcement's message id, or NULL. */
const char *mail_state_announced(const struct mail_state *st);
void mail_state_set_announced(struct mail_state *st, const char *message_id);

/* The check mail a finding (checks_finding_key()) went out with, or NULL: "checks" of mail.json. */
const char *mail_state_check_sent(const struct mail_state *st, const char *key);
void mail_state_set_check_sent(struct mail_state *st, const char *key, const char *message_id);

/*
 * The mail.json of every day from from to to (YYYY-MM-DD, both kept):
 * a finding is mailed once, on whichever day that was.
 */
struct mail_history {
	struct mail_state *v;
	size_t n;
};
void mail_history_load(struct mail_history *h, const char *wsdir, const char *from,
		       const char *to);
int mail_history_check_sent(const struct mail_history *h, const char *key);
void mail_history_release(struct mail_history *h);

/*
 * The day's report mails have reached max-per-day (the announcement does
 * not count; each check mail does, however many findings it tells of).
 */
int mailconf_limit_reached(const struct mailconf *c, const struct mail_state *st);

#endif
