/*
 * tide report [DATE] [--tree NAME] [--json]: the per-tree conflict
 * reports of a day; with --mail they go to the trees' contacts.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opt.h"
#include "../src/conf.h"
#include "../src/day.h"
#include "../src/error.h"
#include "../src/mail.h"
#include "../src/mailmap.h"
#include "../src/report.h"
#include "../src/text.h"
#include "../src/util.h"
#include "../src/workspace.h"

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
		if (!report_tree_has_conflict(&d->trees[i]))
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
	struct mail_server server;
	char *from;
	char *announce;		/* the list the day's announcement goes to, or NULL */
	long max_per_day;
	json_t *state;		/* DIR/days/DATE/reports/mail.json: {"sent": {tree: id}, "failed": {tree: why}} */
	char *state_path;
	git_mailmap *mailmap;	/* the day's .mailmap: contacts as they are known today */
};

/* DIR/mail.conf: smtp=, from=, credentials=, starttls=yes, max-per-day=, timeout=, cainfo=, announce= */
static int mailer_load(struct mailer *m, struct workspace *ws)
{
	char *path = workspace_mail_conf(ws->dir), *line, *save = NULL, *eq, *cred = NULL;
	struct buf text = BUF_INIT;
	int error, lineno = 0;

	m->max_per_day = 20;
	if ((error = file_read_text(&text, path)) < 0)
		goto done;
	for (line = strtok_r(text.ptr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		str_rtrim(line);
		if (!*line || *line == '#')
			continue;
		if (!(eq = strchr(line, '='))) {
			error = tide_error_set(TIDE_EINVAL, "%s: bad line '%s'", path, line);
			goto done;
		}
		*eq++ = '\0';
		if (!strcmp(line, "smtp"))
			free(m->server.url), m->server.url = xstrdup(eq);
		else if (!strcmp(line, "from"))
			free(m->from), m->from = xstrdup(eq);
		else if (!strcmp(line, "credentials"))
			free(cred), cred = eq[0] == '/' ? xstrdup(eq) : workspace_path(ws, eq);
		else if (!strcmp(line, "starttls"))
			m->server.starttls = !strcmp(eq, "yes") || !strcmp(eq, "true");
		else if (!strcmp(line, "max-per-day"))
			m->max_per_day = strtol(eq, NULL, 10);
		else if (!strcmp(line, "timeout"))
			m->server.timeout = strtol(eq, NULL, 10);
		else if (!strcmp(line, "announce"))
			free(m->announce), m->announce = xstrdup(eq);
		else if (!strcmp(line, "cainfo"))
			free(m->server.cainfo), m->server.cainfo = xstrdup(eq);
		else {
			error = tide_error_set(TIDE_EINVAL, "%s: unknown key '%s'", path, line);
			goto done;
		}
	}
	if (!m->from)
		m->from = xstrdup("tide <tide@localhost>");
	if (cred && (error = mail_credentials_load(&m->server, cred)) < 0)
		goto done;
	error = mail_server_check(&m->server);
	if (error < 0)
		tide_error_wrap(error, "%s", path);
done:
	free(cred);
	free(path);
	buf_release(&text);
	return error;
}

static void mailer_release(struct mailer *m)
{
	mail_server_release(&m->server);
	free(m->from);
	free(m->announce);
	json_decref(m->state);
	free(m->state_path);
	git_mailmap_free(m->mailmap);
}

static void state_load(struct mailer *m, struct workspace *ws, const char *date)
{
	char *daydir = workspace_day_dir(ws->dir, date);

	m->state_path = workspace_daydir_mail_json(daydir);
	free(daydir);
	m->state = json_load_file(m->state_path, 0, NULL);
	if (!json_is_object(m->state)) {
		json_decref(m->state);
		m->state = json_object();
	}
	if (!json_is_object(json_object_get(m->state, "sent")))
		json_object_set_new(m->state, "sent", json_object());
	if (!json_is_object(json_object_get(m->state, "failed")))
		json_object_set_new(m->state, "failed", json_object());
}

static int state_save(struct mailer *m)
{
	char *dump = json_dumps(m->state, JSON_INDENT(2) | JSON_SORT_KEYS);
	char *dir = xstrdup(m->state_path);
	int error;

	*strrchr(dir, '/') = '\0';
	if ((error = mkdir_p(dir, 0777)) == 0)
		error = file_write_atomic(m->state_path, dump, strlen(dump));
	free(dump);
	free(dir);
	return error;
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

/* Mail one report; returns 1 if sent, 0 if skipped, <0 on failure. */
static int mail_one(struct cmd_ctx *ctx, struct mailer *m, const json_t *r,
		    const struct report_args *a)
{
	const char *tree = json_string_value(json_object_get(r, "tree"));
	json_t *sent = json_object_get(m->state, "sent");
	struct mail_msg msg;
	struct buf text = BUF_INIT;
	int error;

	if (!a->all && !json_is_true(json_object_get(r, "new"))) {
		printf("%s: conflict not new since the previous day, not mailed\n", tree);
		return 0;
	}
	if (!a->dry_run && json_object_get(sent, tree)) {
		printf("%s: already mailed\n", tree);
		return 0;
	}
	if (!a->dry_run && (long)json_object_size(sent) >= m->max_per_day) {
		printf("%s: not mailed: %ld mails a day already sent (max-per-day)\n", tree,
		       m->max_per_day);
		workspace_log(ctx->ws, "mail: %s not mailed: daily limit reached", tree);
		return 0;
	}
	if ((error = report_mail(&msg, r, ctx->conf, m->from)) < 0) {
		printf("%s: not mailed: %s\n", tree, tide_error_last());
		return 0;
	}
	mailmap_resolve_rcpts(m->mailmap, &msg);
	if (a->dry_run) {
		mail_format(&text, &msg, 0);
		printf("%s\n", text.ptr);
		buf_release(&text);
		mail_msg_release(&msg);
		return 0;
	}
	if ((error = mail_send(&m->server, &msg)) < 0) {
		cmd_error("%s: %s", tree, tide_error_last());
		workspace_log(ctx->ws, "mail: %s failed: %s", tree, tide_error_last());
		json_object_set_new(json_object_get(m->state, "failed"), tree,
				    json_text(tide_error_last()));
	} else {
		json_object_del(json_object_get(m->state, "failed"), tree);
		json_object_set_new(sent, tree, json_text(msg.message_id));
		printf("%s: mailed", tree);
		print_rcpts(&msg);
		workspace_log(ctx->ws, "mail: %s report sent to %s", tree, msg.to[0]);
		error = 1;
	}
	mail_msg_release(&msg);
	return error;
}

static int mail_reports(struct cmd_ctx *ctx, const struct day *d, const struct day *prev,
			const struct report_args *a)
{
	struct mailer m = { { 0 }, NULL, NULL, 0, NULL, NULL, NULL };
	git_oid day_commit;
	json_t *r = NULL;
	int status = EXIT_OK, error;
	size_t i;

	if ((status = cmd_load_conf(ctx)) != 0)
		return status;
	if (mailer_load(&m, ctx->ws) < 0 && !a->dry_run) {
		status = cmd_fail(NULL);
		goto done;
	}
	tide_error_clear();
	if (!m.from)
		m.from = xstrdup("tide <tide@localhost>");
	state_load(&m, ctx->ws, d->date);
	if (mailmap_from_commit(&m.mailmap, ctx->ws->repo,
				d->commit && git_oid_fromstr(&day_commit, d->commit) == 0 ?
				&day_commit : NULL) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	for (i = 0; i < d->ntrees; i++) {
		if ((a->tree && strcmp(d->trees[i].name, a->tree)) ||
		    !report_tree_has_conflict(&d->trees[i]))
			continue;
		report_tree_json(&r, d, &d->trees[i], prev);
		error = mail_one(ctx, &m, r, a);
		json_decref(r);
		if (error < 0)
			status = EXIT_PROBLEMS;
		if (error != 0 && state_save(&m) < 0)
			status = cmd_fail(NULL);
	}
done:
	mailer_release(&m);
	return status;
}

/* --announce: the day's announcement printed, or with --mail sent once to mail.conf's announce=. */
static int announce(struct cmd_ctx *ctx, const struct day *d, const struct day *prev,
		    const struct report_args *a)
{
	struct mailer m = { { 0 }, NULL, NULL, 0, NULL, NULL, NULL };
	struct buf text = BUF_INIT;
	struct mail_msg msg;
	const char *sent;
	int status = EXIT_OK;

	if (a->mail && mailer_load(&m, ctx->ws) < 0 && !a->dry_run) {
		status = cmd_fail(NULL);
		goto done;
	}
	tide_error_clear();
	if (a->mail && !m.announce && !a->dry_run) {
		char *path = workspace_mail_conf(ctx->ws->dir);

		cmd_error("no announce= address in %s for --announce --mail", path);
		free(path);
		status = EXIT_BADINPUT;
		goto done;
	}
	report_announcement(&msg, ctx->ws->repo, d, prev, m.announce ? m.announce : "",
			    m.from ? m.from : "tide <tide@localhost>");
	if (!a->mail) {
		printf("Subject: %s\n\n%s", msg.subject, msg.body);
	} else if (a->dry_run) {
		mail_format(&text, &msg, 0);
		printf("%s\n", text.ptr);
	} else {
		state_load(&m, ctx->ws, d->date);
		if ((sent = json_string_value(json_object_get(m.state, "announce")))) {
			printf("announcement of %s already mailed (%s)\n", d->tag, sent);
		} else if (mail_send(&m.server, &msg) < 0) {
			cmd_error("announcement: %s", tide_error_last());
			workspace_log(ctx->ws, "mail: announcement failed: %s", tide_error_last());
			status = EXIT_PROBLEMS;
		} else {
			json_object_set_new(m.state, "announce", json_text(msg.message_id));
			printf("announcement mailed to %s\n", msg.to[0]);
			workspace_log(ctx->ws, "mail: announcement sent to %s", msg.to[0]);
			if (state_save(&m) < 0)
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
