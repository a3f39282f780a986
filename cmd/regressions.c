/*
 * tide regressions: the failures followed across days (src/regress.h,
 * man/tide-regressions.1), listed, or their mails sent: when a
 * regression appears, when bisect names its culprit, when it is fixed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opt.h"
#include "day.h"
#include "error.h"
#include "mail.h"
#include "mailconf.h"
#include "regress.h"
#include "text.h"
#include "workspace.h"

struct args {
	int all, json, mail, dry_run;
};

/* DIR/regressions.json brought up to date with the workspace's days. */
static int load_current(struct regress_list **out, struct cmd_ctx *ctx)
{
	struct regress_settings s;
	int error;

	*out = NULL;
	if ((error = regress_settings_load(&s, ctx->ws->dir)) < 0 ||
	    (error = regress_load(out, ctx->ws->dir)) < 0 ||
	    (error = regress_update(*out, ctx->ws->dir, NULL, &s, NULL)) < 0 ||
	    (error = regress_save(*out, ctx->ws->dir)) < 0) {
		regress_list_free(*out);
		*out = NULL;
	}
	return error;
}

static void print_culprit(const json_t *c)
{
	const json_t *confirmed = json_object_get(c, "confirmed");

	if (!c)
		return;
	printf("    culprit: %s %.12s \"%s\" (bisect of %s)", json_str(c, "tree") ?: "?",
	       json_str(c, "commit") ?: "?", json_str(c, "subject") ?: "", json_str(c, "day") ?: "?");
	if (json_str(c, "conflicts_with"))
		printf(", with %s", json_str(c, "conflicts_with"));
	if (json_is_true(confirmed))
		printf(", confirmed by %s",
		       !strcmp(json_str(c, "how") ?: "", "tree-left-out") ? "leaving its tree out" : "revert");
	else if (json_is_false(confirmed))
		printf(", not confirmed: the day still fails without it");
	putchar('\n');
}

static void print_one(const struct regression *r)
{
	printf("%-13s %-7s %s/%s %s: first bad %s (last good %s), last bad %s", r->state, r->kind,
	       r->config, r->arch, r->test, r->first_bad, r->last_good ? r->last_good : "none",
	       r->last_bad ? r->last_bad : "-");
	if (r->fixed)
		printf(", fixed %s", r->fixed);
	if (!strcmp(r->state, "flaky"))
		printf(", flakiness %.2f", r->score);
	putchar('\n');
	print_culprit(r->culprit);
}

static int list(const struct regress_list *l, const struct args *a)
{
	json_t *all = json_array();
	size_t i, shown = 0;

	for (i = 0; i < l->n; i++) {
		if (!a->all && !regression_is_open(l->items[i]))
			continue;
		shown++;
		if (a->json)
			json_array_append_new(all, regression_to_json(l->items[i]));
		else
			print_one(l->items[i]);
	}
	if (a->json) {
		char *text = json_dumps(all, JSON_INDENT(2));

		printf("%s\n", text);
		free(text);
	} else if (!shown) {
		printf("no %sregressions%s%s\n", a->all ? "" : "open ",
		       l->through ? " through " : "", l->through ? l->through : "");
	}
	json_decref(all);
	return EXIT_OK;
}

/* ---- mail ---- */

struct mailer {
	struct mailconf conf;
	struct regress_mail_opts o;
	struct day *newest;
};

static int mailer_init(struct mailer *m, struct cmd_ctx *ctx, const struct args *a)
{
	int status;

	memset(m, 0, sizeof(*m));
	if ((status = cmd_load_conf(ctx)) != 0)
		return status;
	if (mailconf_load(&m->conf, ctx->ws->dir) < 0 && !a->dry_run)
		return cmd_fail(NULL);
	tide_error_clear();
	if (cmd_load_days(&m->newest, NULL, ctx->ws, NULL) < 0)
		tide_error_clear();	/* no day yet: nothing is owed a mail either */
	m->o.project = m->newest && m->newest->project ? m->newest->project : NULL;
	m->o.to = m->conf.regressions ? m->conf.regressions : m->conf.announce;
	m->o.from = m->conf.from ? m->conf.from : MAILCONF_FROM;
	m->o.conf = ctx->conf;
	if (!m->o.to && !a->dry_run) {
		char *path = workspace_mail_conf(ctx->ws->dir);

		cmd_error("no regressions= or announce= address in %s for --mail", path);
		free(path);
		return EXIT_BADINPUT;
	}
	return 0;
}

static void mailer_release(struct mailer *m)
{
	mailconf_release(&m->conf);
	day_free(m->newest);
}

/* One mail of r: printed (--dry-run) or sent and recorded at once. 1 sent, 0 printed, <0 failed. */
static int mail_one(struct cmd_ctx *ctx, struct mailer *m, struct regression *r,
		    enum regress_mail what, const struct args *a)
{
	struct mail_msg msg;
	struct buf text = BUF_INIT;
	int error;

	if ((error = regress_mail_make(&msg, r, what, &m->o)) < 0) {
		printf("%s: %s mail not sent: %s\n", r->id, regress_mail_name(what), tide_error_last());
		tide_error_clear();
		return error;
	}
	if (a->dry_run) {
		mail_format(&text, &msg, 0);
		printf("%s\n", buf_cstr(&text));
		regress_mail_sent(r, what, msg.message_id);
	} else if ((error = mail_send(&m->conf.server, &msg)) < 0) {
		cmd_error("regression %s: %s", r->id, tide_error_last());
		workspace_log(ctx->ws, "mail: regression %s (%s) failed: %s", r->id,
			      regress_mail_name(what), tide_error_last());
	} else {
		regress_mail_sent(r, what, msg.message_id);
		printf("%s: mailed %s to %s\n", r->id, regress_mail_name(what), msg.to[0]);
		workspace_log(ctx->ws, "mail: regression %s (%s) sent to %s", r->id,
			      regress_mail_name(what), msg.to[0]);
		error = 1;
	}
	buf_release(&text);
	mail_msg_release(&msg);
	return error;
}

/* Every mail owed, in order; each sent is recorded before the next (a crash resends none). */
static int mail_all(struct cmd_ctx *ctx, struct regress_list *l, const struct args *a)
{
	struct mailer m;
	size_t i, sent = 0;
	int status, error;

	if ((status = mailer_init(&m, ctx, a)) != 0)
		goto done;
	for (i = 0; i < l->n; i++) {
		/* A dry run marks a copy: what would follow is shown, nothing is kept. */
		struct regression *r = a->dry_run ? regression_dup(l->items[i]) : l->items[i];
		enum regress_mail what, last = REGRESS_MAIL_NONE;

		/* Each mail is owed once: one owed again right after it went is a bug, not a loop. */
		while ((what = regress_mail_due(r)) != REGRESS_MAIL_NONE && what > last) {
			last = what;
			if ((error = mail_one(ctx, &m, r, what, a)) < 0) {
				status = EXIT_PROBLEMS;
				break;
			}
			sent += error;
			if (error && regress_save(l, ctx->ws->dir) < 0) {
				status = cmd_fail(NULL);
				break;
			}
		}
		if (a->dry_run)
			regression_free(r);
	}
	if (!sent && !a->dry_run && status == EXIT_OK)
		printf("no regression mail is due\n");
done:
	mailer_release(&m);
	return status;
}

static int parse_args(struct args *a, int argc, char **argv)
{
	const struct opt_spec specs[] = {
		{ OPT_SWITCH, "all", 0, &a->all, 1, 0, NULL, "fixed regressions too" },
		{ OPT_SWITCH, "json", 0, &a->json, 1, 0, NULL, "print them as JSON" },
		{ OPT_FORM, NULL, 0, NULL, 0, 0, NULL, NULL },
		{ OPT_SWITCH, "mail", 0, &a->mail, 1, OPT_BARE, NULL,
		  "send the mails due: a regression new, its culprit found, it fixed" },
		{ OPT_SWITCH, "dry-run", 0, &a->dry_run, 1, 0, NULL, "print the mails instead" },
		{ 0 },
	};
	int status;

	if ((status = opt_parse("regressions", specs, argc, argv, 0)) != 0)
		return status;
	if (a->dry_run && !a->mail)
		return opt_usage_error("regressions", specs, "--dry-run goes with --mail");
	if (a->mail && (a->all || a->json))
		return opt_usage_error("regressions", specs, "--mail does not go with --all or --json");
	return 0;
}

int cmd_regressions(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct regress_list *l = NULL;
	struct args a = { 0 };
	int status = parse_args(&a, argc, argv);

	if (status != 0)
		return status < 0 ? EXIT_OK : status;
	if ((status = cmd_open(ctx, ctx->open_flags)) != 0)
		return status;
	if (load_current(&l, ctx) < 0)
		return cmd_fail(NULL);
	status = a.mail ? mail_all(ctx, l, &a) : list(l, &a);
	regress_list_free(l);
	return cmd_finish_stdout(status);
}

int cmd_regressions_after_bisect(struct cmd_ctx *ctx, const char *date)
{
	struct regress_list *l = NULL;
	struct day *d = NULL;
	size_t n = 0;
	int error;

	if ((error = load_current(&l, ctx)) == 0 &&
	    (error = cmd_load_days(&d, NULL, ctx->ws, date)) == 0 &&
	    (n = regress_attach_bisects(l, d)) > 0)
		error = regress_save(l, ctx->ws->dir);
	if (error < 0)
		cmd_error("warning: regressions not updated: %s", tide_error_last());
	else if (n)
		printf("regressions: the culprit is noted for %zu regression%s\n", n,
		       n == 1 ? "" : "s");
	tide_error_clear();
	day_free(d);
	regress_list_free(l);
	return error;
}
