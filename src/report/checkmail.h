#ifndef TIDE_CHECKMAIL_H
#define TIDE_CHECKMAIL_H

#include <stddef.h>

#include "buf.h"
#include "mail.h"

/*
 * The mails of the commit checks (src/checks.h), in the layouts of
 * linux-next's own: "Fixes tag needs some work in the X tree",
 * "Signed-off-by missing for commit in the X tree", "duplicate patch in
 * the X tree", "error fetching the X tree", the trees without a new
 * commit for a long time; one mail per kind and tree (the stale trees:
 * one for all), built from the day record only.  Each finding is mailed
 * once: the caller says which were (reports/mail.json "checks", by
 * checks_finding_key()), and a mail carries only the others.
 */
struct day;
struct trees_conf;

struct checks_mail {
	char *kind, *tree;	/* tree NULL for the stale trees' mail */
	char **keys;		/* the findings it tells of */
	size_t nkeys;
	struct mail_msg msg;	/* msg.nto 0: nobody to send it to (no contact= in trees.conf) */
};

/* Was the finding with this key mailed already? */
typedef int (*checks_mailed_fn)(const char *key, void *data);

/*
 * The day's check mails (the caller frees them with checks_mails_free());
 * From from; list (mail.conf's announce=, or NULL) is Cc'd on the stale
 * trees' mail.  A failing fetch is mailed once it has failed for the
 * day's fetch-failed-after days in a row.
 */
size_t checks_mails(struct checks_mail **out, const struct day *d, const struct trees_conf *conf,
		    const char *from, const char *list, checks_mailed_fn mailed, void *data);
void checks_mails_free(struct checks_mail *m, size_t n);

/*
 * The announcement's part (report_announcement()): the trees without a
 * new commit for stale-after days, and those whose fetch has failed for
 * fetch-failed-after days in a row; nothing when there are none.
 */
void checks_announce_text(struct buf *out, const struct day *d);

#endif
