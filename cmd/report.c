/*
 * tide report [DATE] [--tree NAME] [--json]: the per-tree reports of a
 * day (conflicts, and the declared configurations' errors and new
 * warnings in the tree's files); with --mail they go to the trees'
 * contacts, one mail per tree.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opt.h"
#include "conf.h"
#include "day.h"
#include "error.h"
#include "mail.h"
#include "mailconf.h"
#include "mailday.h"
#include "report.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

struct report_args {
	const char *date, *tree;
	int json, mail, dry_run, all, announce;
};

/*
 * Trees whose tip tide refused (src/merge_day.c check_tip()): no conflict
 * to report, but as much the maintainer's to fix, so they are listed.
 */
static void print_refused(const struct day *d, const struct report_args *a)
{
	const char *why, *from;
	size_t i;

	for (i = 0; i < d->ntrees; i++) {
		const struct day_tree *t = &d->trees[i];

		if ((a->tree && strcmp(t->name, a->tree)) ||
		    !(why = t->handling.rejected))
			continue;
		from = t->handling.version_from;
		if (from)
			printf("%s (merged at its version of %s)\n", why, from);
		else
			printf("%s (left out)\n", why);
	}
}

static int print_reports(const struct day *d, const struct day *prev,
			 const struct report_args *a)
{
	json_t *all = json_array(), *r = NULL;
	struct buf text = BUF_INIT;
	size_t i;
	char *dump;

	for (i = 0; i < d->ntrees; i++) {
		if (a->tree && strcmp(d->trees[i].name, a->tree))
			continue;
		if (!report_tree_has_report(d, &d->trees[i]))
			continue;
		report_tree_json(&r, d, &d->trees[i], prev);
		if (!a->json) {
			if (text.len)
				buf_puts(&text, "\n");
			report_text(&text, r);
		}
		json_array_append_new(all, r);
	}
	if (a->json) {
		dump = json_dumps(all, JSON_INDENT(2) | JSON_SORT_KEYS);
		printf("%s\n", dump);
		free(dump);
	} else if (!json_array_size(all)) {
		printf("no conflicts on %s%s%s\n", d->date, a->tree ? " for " : "",
		       a->tree ? a->tree : "");
	} else {
		fputs(text.ptr, stdout);
	}
	if (!a->json)
		print_refused(d, a);
	json_decref(all);
	buf_release(&text);
	return EXIT_OK;
}

/* ---- mail ---- */

struct mailer {
	struct mailconf conf;
	struct mail_state state;
};

static void mailer_release(struct mailer *m)
{
	mailconf_release(&m->conf);
	mail_state_release(&m->state);
}

static void print_rcpts(const struct mail_msg *msg)
{
	size_t i;

	printf(" to %s", msg->to[0]);
	for (i = 1; i < msg->nto; i++)
		printf(", %s", msg->to[i]);
	for (i = 0; i < msg->ncc; i++)
		printf("%s%s", i ? ", " : ", cc ", msg->cc[i]);
	putchar('\n');
}

/* What happened to one mail (src/mailday.h), said; data: the exit status so far. */
static void tell_mail(void *data, const struct mailday_event *ev)
{
	int *status = data;
	struct buf head = BUF_INIT, text = BUF_INIT;

	/* "TREE" for a tree's report, "WHO KIND" for a check mail. */
	buf_puts(&head, ev->who ? ev->who : "");
	if (ev->kind)
		buf_printf(&head, ": %s", ev->kind);
	switch (ev->what) {
	case MAILDAY_NOT_NEW:
		printf("%s: conflict not new since the previous day, not mailed\n", ev->who);
		break;
	case MAILDAY_ALREADY:
		printf("%s: already mailed\n", ev->who);
		break;
	case MAILDAY_LIMIT:
		printf("%s%s not mailed: %ld mails a day already sent (max-per-day)\n",
		       buf_cstr(&head), ev->kind ? "" : ":", ev->max_per_day);
		break;
	case MAILDAY_NO_CONTACT:
		printf("%s not mailed: no contact address\n", buf_cstr(&head));
		break;
	case MAILDAY_UNMAILABLE:
		printf("%s: not mailed: %s\n", ev->who, ev->why);
		break;
	case MAILDAY_DRY_RUN:
		mail_format(&text, ev->msg, 0);
		printf("%s\n", text.ptr);
		break;
	case MAILDAY_SENT:
		printf("%s%s mailed", buf_cstr(&head), ev->kind ? "" : ":");
		print_rcpts(ev->msg);
		break;
	case MAILDAY_FAILED:
		cmd_error("%s: %s", buf_cstr(&head), ev->why);
		*status = EXIT_PROBLEMS;
		break;
	case MAILDAY_UNSAVED:
		cmd_error("%s", ev->why);
		*status = cmd_exit_for(ev->code);
		break;
	}
	buf_release(&text);
	buf_release(&head);
}

static int mail_reports(struct cmd_ctx *ctx, const struct day *d, const struct day *prev,
			const struct report_args *a)
{
	int status = EXIT_OK;
	struct mailday_opts o = { a->tree, a->dry_run, a->all, tell_mail, &status };

	if ((status = cmd_load_conf(ctx)) != 0)
		return status;
	if (mailday_send(ctx->ws, ctx->conf, d, prev, &o) < 0)
		return cmd_fail(NULL);
	return status;
}

/* --announce: the day's announcement printed, or with --mail sent once to mail.conf's announce=. */
static int announce(struct cmd_ctx *ctx, const struct day *d, const struct day *prev,
		    const struct report_args *a)
{
	struct mailer m = { 0 };
	struct buf text = BUF_INIT;
	struct mail_msg msg;
	const char *sent;
	int status = EXIT_OK;

	mailconf_init(&m.conf);
	if (a->mail && mailconf_load(&m.conf, ctx->ws->dir) < 0 && !a->dry_run) {
		status = cmd_fail(NULL);
		goto done;
	}
	tide_error_clear();
	if (a->mail && !m.conf.announce && !a->dry_run) {
		char *path = workspace_mail_conf(ctx->ws->dir);

		cmd_error("no announce= address in %s for --announce --mail", path);
		free(path);
		status = EXIT_BADINPUT;
		goto done;
	}
	report_announcement(&msg, ctx->ws->repo, d, prev, m.conf.announce ? m.conf.announce : "",
			    m.conf.from ? m.conf.from : MAILCONF_FROM);
	if (!a->mail) {
		printf("Subject: %s\n\n%s", msg.subject, msg.body);
	} else if (a->dry_run) {
		mail_format(&text, &msg, 0);
		printf("%s\n", text.ptr);
	} else {
		mail_state_load(&m.state, ctx->ws->dir, d->date);
		if ((sent = mail_state_announced(&m.state))) {
			printf("announcement of %s already mailed (%s)\n", d->tag, sent);
		} else if (mail_send(&m.conf.server, &msg) < 0) {
			cmd_error("announcement: %s", tide_error_last());
			workspace_log(ctx->ws, "mail: announcement failed: %s", tide_error_last());
			status = EXIT_PROBLEMS;
		} else {
			mail_state_set_announced(&m.state, msg.message_id);
			printf("announcement mailed to %s\n", msg.to[0]);
			workspace_log(ctx->ws, "mail: announcement sent to %s", msg.to[0]);
			if (mail_state_save(&m.state) < 0)
				status = cmd_fail(NULL);
		}
	}
	mail_msg_release(&msg);
done:
	buf_release(&text);
	mailer_release(&m);
	return status;
}

static int parse_args(struct report_args *a, int argc, char **argv)
{
	const struct opt_spec specs[] = {
		{ OPT_ARG, "date", 0, &a->date, 0, 0, "DATE",
		  "YYYY-MM-DD or next-YYYYMMDD (default: the newest day)" },
		{ OPT_VALUE, "tree", 0, &a->tree, 0, 0, "NAME", "only this tree's report" },
		{ OPT_SWITCH, "json", 0, &a->json, 1, 0, NULL, "print the reports as JSON" },
		{ OPT_FORM, NULL, 0, NULL, 0, 0, NULL, NULL },
		{ OPT_REF, "date", 0, NULL, 0, 0, NULL, NULL },
		{ OPT_SWITCH, "mail", 0, &a->mail, 1, OPT_BARE, NULL, "mail each report to the tree's contacts" },
		{ OPT_SWITCH, "dry-run", 0, &a->dry_run, 1, 0, NULL, "print the mails instead of sending them" },
		{ OPT_SWITCH, "all", 0, &a->all, 1, 0, NULL, "also mail the conflicts that are not new" },
		{ OPT_REF, "tree", 0, NULL, 0, 0, NULL, NULL },
		{ OPT_FORM, NULL, 0, NULL, 0, 0, NULL, NULL },
		{ OPT_REF, "date", 0, NULL, 0, 0, NULL, NULL },
		{ OPT_SWITCH, "announce", 0, &a->announce, 1, OPT_BARE, NULL, "the day's announcement" },
		{ OPT_REF, "mail", 0, NULL, 0, OPT_NESTED, NULL, NULL },
		{ OPT_REF, "dry-run", 0, NULL, 0, OPT_NESTED2, NULL, NULL },
		{ 0 },
	};
	int status;

	if ((status = opt_parse("report", specs, argc, argv, 0)) != 0)
		return status;
	if ((a->dry_run || a->all) && !a->mail)
		return opt_usage_error("report", specs, "--dry-run and --all go with --mail");
	if (a->mail && a->json)
		return opt_usage_error("report", specs, "--mail and --json do not go together");
	if (a->announce && (a->json || a->tree || a->all))
		return opt_usage_error("report", specs, "--announce does not go with --json, --tree or --all");
	return 0;
}

int cmd_report(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct report_args a = { 0 };
	struct day *d = NULL, *prev = NULL;
	char *date = NULL;
	int status = parse_args(&a, argc, argv);

	if (status != 0)
		return status < 0 ? EXIT_OK : status;
	if ((status = cmd_open(ctx, ctx->open_flags)) != 0)
		return status;
	if (a.date && !(date = cmd_day_arg(a.date))) {
		cmd_error("%s", tide_error_last());
		return EXIT_USAGE;
	}
	a.date = date;
	if (cmd_load_days(&d, &prev, ctx->ws, a.date) < 0) {
		free(date);
		return cmd_fail(NULL);
	}
	if (a.tree && !day_find_tree(d, a.tree)) {
		cmd_error("no tree '%s' on %s", a.tree, d->date);
		status = EXIT_BADINPUT;
	} else if (a.announce) {
		status = announce(ctx, d, prev, &a);
	} else if (a.mail) {
		status = mail_reports(ctx, d, prev, &a);
	} else {
		status = print_reports(d, prev, &a);
	}
	day_free(d);
	day_free(prev);
	free(date);
	return status;
}
