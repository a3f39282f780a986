/* The mailing policy of a day (see mailday.h). */
#include <string.h>

#include <jansson.h>

#include "checkmail.h"
#include "day.h"
#include "error.h"
#include "mail.h"
#include "mailconf.h"
#include "mailday.h"
#include "report.h"
#include "workspace.h"

struct mailer {
	struct workspace *ws;
	const struct mailday_opts *o;
	struct mailconf conf;
	struct mail_state state;
};

static void tell(struct mailer *m, enum mailday_what what, const char *who, const char *kind,
		 const struct mail_msg *msg, const char *why)
{
	struct mailday_event ev = { what, who, kind, msg, why, 0, m->conf.max_per_day };

	m->o->tell(m->o->data, &ev);
}

/* DIR/mail.json after a mail went or failed; failing to keep it is told. */
static void save_state(struct mailer *m)
{
	struct mailday_event ev = { MAILDAY_UNSAVED, NULL, NULL, NULL, NULL, 0, 0 };

	if (mail_state_save(&m->state) == 0)
		return;
	ev.why = tide_error_last();
	ev.code = tide_error_code();
	m->o->tell(m->o->data, &ev);
	tide_error_clear();
}

/* One tree's report: 1 sent, 0 not, <0 the server failed. */
static int mail_one(struct mailer *m, const struct trees_conf *conf, const json_t *r)
{
	const char *tree = json_string_value(json_object_get(r, "tree"));
	struct mail_msg msg;
	int error;

	if (!m->o->all && !json_is_true(json_object_get(r, "new"))) {
		tell(m, MAILDAY_NOT_NEW, tree, NULL, NULL, NULL);
		return 0;
	}
	if (!m->o->dry_run && mail_state_sent(&m->state, tree)) {
		tell(m, MAILDAY_ALREADY, tree, NULL, NULL, NULL);
		return 0;
	}
	if (!m->o->dry_run && mailconf_limit_reached(&m->conf, &m->state)) {
		tell(m, MAILDAY_LIMIT, tree, NULL, NULL, NULL);
		workspace_log(m->ws, "mail: %s not mailed: daily limit reached", tree);
		return 0;
	}
	if (report_mail(&msg, r, conf, m->conf.from) < 0) {
		tell(m, MAILDAY_UNMAILABLE, tree, NULL, NULL, tide_error_last());
		tide_error_clear();
		return 0;
	}
	if (m->o->dry_run) {
		tell(m, MAILDAY_DRY_RUN, tree, NULL, &msg, NULL);
		error = 0;
	} else if ((error = mail_send(&m->conf.server, &msg)) < 0) {
		tell(m, MAILDAY_FAILED, tree, NULL, NULL, tide_error_last());
		workspace_log(m->ws, "mail: %s failed: %s", tree, tide_error_last());
		mail_state_set_failed(&m->state, tree, tide_error_last());
		tide_error_clear();
	} else {
		mail_state_set_sent(&m->state, tree, msg.message_id);
		tell(m, MAILDAY_SENT, tree, NULL, &msg, NULL);
		workspace_log(m->ws, "mail: %s report sent to %s", tree, msg.to[0]);
		error = 1;
	}
	mail_msg_release(&msg);
	return error;
}

static void mail_trees(struct mailer *m, const struct trees_conf *conf, const struct day *d,
		       const struct day *prev)
{
	json_t *r = NULL;
	size_t i;

	for (i = 0; i < d->ntrees; i++) {
		if ((m->o->tree && strcmp(d->trees[i].name, m->o->tree)) ||
		    !report_tree_has_report(d, &d->trees[i]))
			continue;
		report_tree_json(&r, d, &d->trees[i], prev);
		if (mail_one(m, conf, r) != 0)
			save_state(m);
		json_decref(r);
	}
}

/* ---- the commit checks' mails (src/checkmail.h) ---- */

struct mailed {
	const struct mail_history *history;
	const struct mail_state *today;
	int all;		/* mail them again */
};

static int check_mailed(const char *key, void *data)
{
	const struct mailed *m = data;

	return !m->all && (mail_state_check_sent(m->today, key) ||
			   mail_history_check_sent(m->history, key));
}

/* The first day of the oldest finding: mail.json from there on says what went out. */
static const char *oldest_since(const struct day *d)
{
	const char *since = d->date;
	size_t i;

	for (i = 0; d->checks && i < d->checks->findings.n; i++) {
		const char *s = d->checks->findings.v[i]->since;

		if (s && strcmp(s, since) < 0)
			since = s;
	}
	return since;
}

/* One check mail: 1 sent, 0 not. */
static int mail_check(struct mailer *m, struct checks_mail *cm)
{
	const char *who = cm->tree ? cm->tree : "stale trees";
	size_t k;

	if (!cm->msg.nto) {
		tell(m, MAILDAY_NO_CONTACT, who, cm->kind, NULL, NULL);
		return 0;
	}
	if (m->o->dry_run) {
		tell(m, MAILDAY_DRY_RUN, who, cm->kind, &cm->msg, NULL);
		return 0;
	}
	if (mailconf_limit_reached(&m->conf, &m->state)) {
		tell(m, MAILDAY_LIMIT, who, cm->kind, NULL, NULL);
		return 0;
	}
	if (mail_send(&m->conf.server, &cm->msg) < 0) {
		tell(m, MAILDAY_FAILED, who, cm->kind, NULL, tide_error_last());
		workspace_log(m->ws, "mail: %s %s failed: %s", who, cm->kind, tide_error_last());
		tide_error_clear();
		return 0;
	}
	for (k = 0; k < cm->nkeys; k++)
		mail_state_set_check_sent(&m->state, cm->keys[k], cm->msg.message_id);
	tell(m, MAILDAY_SENT, who, cm->kind, &cm->msg, NULL);
	workspace_log(m->ws, "mail: %s %s sent to %s", who, cm->kind, cm->msg.to[0]);
	return 1;
}

static void mail_checks(struct mailer *m, const struct trees_conf *conf, const struct day *d)
{
	struct mail_history history;
	struct mailed mailed = { &history, &m->state, m->o->all };
	struct checks_mail *mails = NULL;
	size_t n, i;

	mail_history_load(&history, m->ws->dir, oldest_since(d), d->date);
	n = checks_mails(&mails, d, conf, m->conf.from ? m->conf.from : MAILCONF_FROM,
			 m->conf.announce, check_mailed, &mailed);
	for (i = 0; i < n; i++) {
		if (m->o->tree && (!mails[i].tree || strcmp(mails[i].tree, m->o->tree)))
			continue;
		if (mail_check(m, &mails[i]) > 0)
			save_state(m);
	}
	checks_mails_free(mails, n);
	mail_history_release(&history);
}

int mailday_send(struct workspace *ws, const struct trees_conf *conf, const struct day *d,
		 const struct day *prev, const struct mailday_opts *o)
{
	struct mailer m;
	int error = 0;

	memset(&m, 0, sizeof(m));
	m.ws = ws;
	m.o = o;
	if ((error = mailconf_load(&m.conf, ws->dir)) < 0 && !o->dry_run)
		goto done;
	error = 0;
	tide_error_clear();
	mail_state_load(&m.state, ws->dir, d->date);
	mail_trees(&m, conf, d, prev);
	mail_checks(&m, conf, d);
done:
	mailconf_release(&m.conf);
	mail_state_release(&m.state);
	return error;
}
