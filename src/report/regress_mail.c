/*
 * The mails of a regression (regress.h): when it appears, when bisect
 * names its culprit, when it is fixed; each once, the later ones in
 * reply to the first, with the lines the kernel's tools read
 * (Reported-by:, Closes:, #regzbot).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "conf.h"
#include "day.h"
#include "error.h"
#include "mail.h"
#include "regress.h"
#include "text.h"
#include "util.h"

const char *regress_mail_name(enum regress_mail m)
{
	switch (m) {
	case REGRESS_MAIL_NEW:
		return "new";
	case REGRESS_MAIL_CULPRIT:
		return "culprit";
	case REGRESS_MAIL_FIXED:
		return "fixed";
	default:
		return "none";
	}
}

/* A culprit worth a mail: named, and not refuted by its revert. */
static const char *mailable_culprit(const struct regression *r)
{
	if (!r->culprit || json_is_false(json_object_get(r->culprit, "confirmed")))
		return NULL;
	return json_str(r->culprit, "commit");
}

enum regress_mail regress_mail_due(const struct regression *r)
{
	const char *culprit = mailable_culprit(r);
	const char *mailed = json_str(json_object_get(r->mails, "culprit"), "commit");

	if (!json_str(r->mails, "new"))
		return !strcmp(r->state, "new") || !strcmp(r->state, "still-failing")
			? REGRESS_MAIL_NEW : REGRESS_MAIL_NONE;
	if (culprit && (!mailed || strcmp(mailed, culprit)))
		return REGRESS_MAIL_CULPRIT;
	if (!strcmp(r->state, "fixed") && !json_str(r->mails, "fixed"))
		return REGRESS_MAIL_FIXED;
	return REGRESS_MAIL_NONE;
}

void regress_mail_sent(struct regression *r, enum regress_mail what, const char *message_id)
{
	const char *culprit = mailable_culprit(r);

	if (!r->mails)
		r->mails = json_object();
	if (what == REGRESS_MAIL_FIXED)
		json_object_set_new(r->mails, "fixed", json_text(message_id));
	if (what == REGRESS_MAIL_NEW)
		json_object_set_new(r->mails, "new", json_text(message_id));
	/* The first mail names a culprit already known: that one is told. */
	if (culprit && what != REGRESS_MAIL_FIXED)
		json_object_set_new(r->mails, "culprit", json_pack("{s:s, s:o}", "commit", culprit,
								   "id", json_text(message_id)));
}

/* printable ASCII for a header, at most max bytes, "..." past that */
static void header_text(struct buf *out, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s && s[i] && i < max; i++)
		buf_putc(out, s[i] >= ' ' && s[i] < 0x7f ? s[i] : '?');
	if (s && s[i])
		buf_puts(out, "...");
}

/* The file of "FILE: MESSAGE", or NULL. */
static char *diag_file(const char *test)
{
	const char *colon = strstr(test, ": ");

	return colon && colon > test ? xstrndup(test, (size_t)(colon - test)) : NULL;
}

/* "gpio.edge_events fails", "the kernel does not boot", "build error in gpio.c" */
static void what_fails(struct buf *out, const struct regression *r, size_t max)
{
	char *file = diag_file(r->test);

	if (!strcmp(r->kind, "test")) {
		header_text(out, r->test, max);
		buf_puts(out, " fails");
	} else if (!strcmp(r->kind, "boot")) {
		buf_puts(out, "the kernel does not boot");
	} else if (!strcmp(r->kind, "build") && !strcmp(r->test, "build")) {
		buf_puts(out, "the build fails");
	} else {
		buf_puts(out, !strcmp(r->kind, "warning") ? "new build warning" : "build error");
		if (file) {
			buf_puts(out, " in ");
			header_text(out, file, max);
		}
	}
	free(file);
}

static void subject(struct buf *out, const struct regression *r, const char *project, int reply)
{
	buf_printf(out, "%s[REGRESSION] ", reply ? "Re: " : "");
	header_text(out, project, 32);
	buf_puts(out, ": ");
	what_fails(out, r, 64);
	buf_puts(out, " on ");
	header_text(out, r->config, 32);
	buf_puts(out, " (");
	header_text(out, r->arch, 16);
	buf_printf(out, ") since %s", r->first_tag ? r->first_tag : r->first_bad);
}

static char *message_id(const struct regression *r, const char *part, const char *from)
{
	char *addr = mail_address(from), *at = strchr(addr, '@');
	char *id = xasprintf("<%s.%s.regression.tide@%s>", r->id, part,
			     at && at[1] ? at + 1 : "localhost");

	free(addr);
	return id;
}

/* "https://lore.kernel.org/r/ID/" for Closes:, the id without its angle brackets. */
static void closes_url(struct buf *out, const char *lore, const char *id)
{
	size_t len = strlen(id);

	if (len >= 2 && id[0] == '<' && id[len - 1] == '>')
		buf_printf(out, "%s/%.*s/", lore, (int)(len - 2), id + 1);
	else
		buf_printf(out, "%s/%s/", lore, id);
}

/* The lines to paste into the fix, pointing at the first mail. */
static void tags(struct buf *out, const struct regress_mail_opts *o, const char *first_id)
{
	buf_puts(out, "When you fix it, please add these lines to the fix's commit message:\n\n");
	buf_printf(out, "Reported-by: %s\nCloses: ", o->from);
	closes_url(out, o->lore ? o->lore : "https://lore.kernel.org/r", first_id);
	buf_puts(out, "\n\n");
}

/* regzbot's "introduced": the culprit commit, else the days it appeared between. */
static void regzbot(struct buf *out, const struct regression *r, int reply)
{
	const char *culprit = mailable_culprit(r);

	buf_printf(out, "#regzbot %sintroduced: ", reply ? "^" : "");
	if (culprit)
		buf_printf(out, "%.12s\n", culprit);
	else
		buf_printf(out, "%s..%s\n", r->last_good_tag ? r->last_good_tag :
			   r->base_tag ? r->base_tag : "?", r->first_tag ? r->first_tag : "?");
}

static void culprit_lines(struct buf *out, const struct regression *r)
{
	const json_t *c = r->culprit, *confirmed = json_object_get(c, "confirmed");
	const char *with = json_str(c, "conflicts_with");

	buf_printf(out, "tide bisect of %s names the culprit:\n\n    %.12s (\"%s\")\n    in the %s tree",
		   json_str(c, "day") ?: "?", json_str(c, "commit") ?: "?", json_str(c, "subject") ?: "",
		   json_str(c, "tree") ?: "?");
	if (with)
		buf_printf(out, ", a semantic conflict with the %s tree", with);
	buf_puts(out, "\n\n");
	if (json_is_true(confirmed))
		buf_printf(out, "Confirmed: the day passes %s.\n\n",
			   !strcmp(json_str(c, "how") ?: "", "tree-left-out")
			   ? "without that tree (the revert does not apply)" : "with it reverted");
	else
		buf_puts(out, "Not confirmed by a revert (the day without it could not be tested).\n\n");
}

static void body_new(struct buf *out, const struct regression *r, const char *project)
{
	buf_printf(out, "Hi all,\n\nSince %s, %s: ", r->first_tag ? r->first_tag : r->first_bad,
		   project);
	what_fails(out, r, 200);
	buf_printf(out, " on the %s configuration (%s):\n\n    %s\n\n", r->config, r->arch,
		   r->detail ? r->detail : r->test);
	if (r->last_good_tag)
		buf_printf(out, "%s was the last good day.\n\n", r->last_good_tag);
	else
		buf_puts(out, "It has failed since tide first ran it.\n\n");
	if (mailable_culprit(r))
		culprit_lines(out, r);
}

static void body_fixed(struct buf *out, const struct regression *r, const char *project)
{
	char *last = r->last_bad ? day_tag_for(r->last_bad) : NULL;
	char *fixed = r->fixed ? day_tag_for(r->fixed) : NULL;

	buf_printf(out, "Hi all,\n\n%s passes again on the %s configuration (%s): ",
		   fixed ? fixed : "the newest day", r->config, r->arch);
	what_fails(out, r, 200);
	buf_printf(out, " from %s to %s in %s, no longer.\n\n",
		   r->first_tag ? r->first_tag : r->first_bad, last ? last : "?", project);
	free(last);
	free(fixed);
}

int regress_mail_make(struct mail_msg *out, const struct regression *r, enum regress_mail what,
		      const struct regress_mail_opts *o)
{
	struct buf subj = BUF_INIT, body = BUF_INIT;
	const char *project = o->project ? o->project : "linux-next";
	const struct tree *t;
	char *first, *part;

	memset(out, 0, sizeof(*out));
	if (what == REGRESS_MAIL_NONE)
		return tide_error_set(TIDE_EINVAL, "regression %s owes no mail", r->id);
	mail_add_rcpt(&out->to, &out->nto, o->to);
	/* The culprit's maintainer only when the culprit stands (its revert did not refute it). */
	t = o->conf && mailable_culprit(r) && json_str(r->culprit, "tree")
		? trees_conf_find(o->conf, json_str(r->culprit, "tree")) : NULL;
	if (t && t->contact)
		mail_add_rcpt(out->nto ? &out->cc : &out->to, out->nto ? &out->ncc : &out->nto,
			      t->contact);
	if (!out->nto)
		return tide_error_set(TIDE_ENOTFOUND, "no address for regression mails: set "
				      "regressions= (or announce=) in mail.conf");
	first = json_str(r->mails, "new") ? xstrdup(json_str(r->mails, "new"))
				      : message_id(r, "new", o->from);
	part = what == REGRESS_MAIL_CULPRIT
		? xasprintf("culprit-%.12s", json_str(r->culprit, "commit") ?: "none")
		: xstrdup(regress_mail_name(what));
	subject(&subj, r, project, what != REGRESS_MAIL_NEW);
	if (what == REGRESS_MAIL_NEW)
		body_new(&body, r, project);
	else if (what == REGRESS_MAIL_CULPRIT) {
		buf_puts(&body, "Hi all,\n\n");
		culprit_lines(&body, r);
	} else
		body_fixed(&body, r, project);
	if (what != REGRESS_MAIL_FIXED) {
		tags(&body, o, first);
		regzbot(&body, r, what != REGRESS_MAIL_NEW);
	}
	buf_puts(&body, "\n-- \ntide\n");
	out->from = xstrdup(o->from);
	out->subject = buf_detach(&subj);
	out->body = buf_detach(&body);
	out->message_id = message_id(r, part, o->from);
	if (what != REGRESS_MAIL_NEW)
		out->in_reply_to = xstrdup(first);
	out->date = time(NULL);
	free(part);
	free(first);
	return 0;
}
