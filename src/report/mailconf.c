/*
 * mail.conf, mail.json and the daily mail limit of `tide report --mail`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "day.h"
#include "error.h"
#include "mailconf.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

void mailconf_init(struct mailconf *c)
{
	memset(c, 0, sizeof(*c));
	c->max_per_day = MAILCONF_MAX_PER_DAY;
}

void mailconf_release(struct mailconf *c)
{
	mail_server_release(&c->server);
	free(c->from);
	free(c->announce);
	free(c->regressions);
	free(c->credentials);
	memset(c, 0, sizeof(*c));
}

/* A line's text for a message: bad bytes as \xNN. */
static int bad(const char *path, int lineno, const char *what, const char *s, const char *why)
{
	struct buf esc = BUF_INIT;
	int error;

	text_escape(&esc, s);
	error = tide_error_set(TIDE_EINVAL, "%s:%d: %s '%s'%s", path, lineno, what,
			       buf_cstr(&esc), why);
	buf_release(&esc);
	return error;
}

/* A whole decimal number from min to max; nothing else on the line. */
static int number(long *out, const char *s, long min, long max)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static void set_str(char **field, const char *value)
{
	free(*field);
	*field = xstrdup(value);
}

static int parse_line(struct mailconf *c, char *line, const char *path, int lineno,
		      const char *wsdir)
{
	char *eq = strchr(line, '='), *key = line, *value;

	if (!eq)
		return bad(path, lineno, "bad line", line, " (want key=value)");
	*eq = '\0';
	value = eq + 1;
	if (!strcmp(key, "smtp"))
		set_str(&c->server.url, value);
	else if (!strcmp(key, "from"))
		set_str(&c->from, value);
	else if (!strcmp(key, "credentials")) {
		free(c->credentials);
		c->credentials = value[0] == '/' ? xstrdup(value) : path_join(wsdir, value);
	} else if (!strcmp(key, "starttls"))
		c->server.starttls = !strcmp(value, "yes") || !strcmp(value, "true");
	else if (!strcmp(key, "max-per-day")) {
		if (number(&c->max_per_day, value, 0, MAILCONF_MAX_PER_DAY_MAX) < 0)
			return bad(path, lineno, "bad max-per-day", value,
				   " (a whole number of mails, 0 to 100000)");
	} else if (!strcmp(key, "timeout")) {
		long seconds = conf_parse_seconds(value);	/* as trees.conf's timeout= */

		if (seconds < 0)
			return bad(path, lineno, "bad timeout", value,
				   " (whole seconds, 1 to 86400)");
		c->server.timeout = seconds;
	} else if (!strcmp(key, "announce"))
		set_str(&c->announce, value);
	else if (!strcmp(key, "regressions"))
		set_str(&c->regressions, value);
	else if (!strcmp(key, "cainfo"))
		set_str(&c->server.cainfo, value);
	else
		return bad(path, lineno, "unknown key", key, "");
	return 0;
}

int mailconf_parse(struct mailconf *c, const char *text, size_t len, const char *path,
		   const char *wsdir)
{
	const char *p = text, *end = text + len, *nl;
	char *line;
	int lineno = 0, error = 0;

	while (p < end && error == 0) {
		lineno++;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (memchr(p, '\0', (size_t)((nl ? nl : end) - p)))
			return tide_error_set(TIDE_EINVAL, "%s:%d: NUL byte", path, lineno);
		line = xstrndup(p, (size_t)((nl ? nl : end) - p));
		str_rtrim(line);
		if (*line && *line != '#')
			error = parse_line(c, line, path, lineno, wsdir);
		free(line);
		p = nl ? nl + 1 : end;
	}
	return error;
}

int mailconf_load(struct mailconf *c, const char *wsdir)
{
	char *path = workspace_mail_conf(wsdir);
	struct buf text = BUF_INIT;
	int error;

	mailconf_init(c);
	if ((error = file_read_text(&text, path)) < 0 ||
	    (error = mailconf_parse(c, text.ptr ? text.ptr : "", text.len, path, wsdir)) < 0)
		goto done;
	if (c->credentials && (error = mail_credentials_load(&c->server, c->credentials)) < 0)
		goto done;
	if ((error = mail_server_check(&c->server)) < 0)
		tide_error_wrap(error, "%s", path);
done:
	if (!c->from)
		c->from = xstrdup(MAILCONF_FROM);
	free(path);
	buf_release(&text);
	return error;
}

/* ---- mail.json ---- */

static json_t *object_member(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_object(v)) {
		v = json_object();
		json_object_set_new(obj, key, v);
	}
	return v;
}

void mail_state_load(struct mail_state *st, const char *wsdir, const char *date)
{
	char *daydir = workspace_day_dir(wsdir, date);

	st->path = workspace_daydir_mail_json(daydir);
	free(daydir);
	st->json = json_load_file(st->path, 0, NULL);
	if (!json_is_object(st->json)) {
		json_decref(st->json);
		st->json = json_object();
	}
	object_member(st->json, "sent");
	object_member(st->json, "failed");
}

int mail_state_save(const struct mail_state *st)
{
	char *dump = json_dumps(st->json, JSON_INDENT(2) | JSON_SORT_KEYS);
	char *dir = xstrdup(st->path);
	int error;

	*strrchr(dir, '/') = '\0';
	if ((error = mkdir_p(dir, 0777)) == 0)
		error = file_write_atomic(st->path, dump, strlen(dump));
	free(dump);
	free(dir);
	return error;
}

void mail_state_release(struct mail_state *st)
{
	json_decref(st->json);
	free(st->path);
	memset(st, 0, sizeof(*st));
}

const char *mail_state_sent(const struct mail_state *st, const char *tree)
{
	json_t *id = json_object_get(json_object_get(st->json, "sent"), tree);

	/* Any value counts as sent, as before the state had a reader of its own. */
	return id ? (json_string_value(id) ? json_string_value(id) : "") : NULL;
}

size_t mail_state_nsent(const struct mail_state *st)
{
	return json_object_size(json_object_get(st->json, "sent"));
}

void mail_state_set_sent(struct mail_state *st, const char *tree, const char *message_id)
{
	json_object_del(object_member(st->json, "failed"), tree);
	json_object_set_new(object_member(st->json, "sent"), tree, json_text(message_id));
}

void mail_state_set_failed(struct mail_state *st, const char *tree, const char *why)
{
	json_object_set_new(object_member(st->json, "failed"), tree, json_text(why));
}

const char *mail_state_announced(const struct mail_state *st)
{
	return json_string_value(json_object_get(st->json, "announce"));
}

void mail_state_set_announced(struct mail_state *st, const char *message_id)
{
	json_object_set_new(st->json, "announce", json_text(message_id));
}

const char *mail_state_check_sent(const struct mail_state *st, const char *key)
{
	return json_string_value(json_object_get(json_object_get(st->json, "checks"), key));
}

void mail_state_set_check_sent(struct mail_state *st, const char *key, const char *message_id)
{
	json_object_set_new(object_member(st->json, "checks"), key, json_text(message_id));
}

/* Check mails sent: one message id for all the findings a mail told of. */
static size_t check_mails_sent(const struct mail_state *st)
{
	json_t *ids = json_object(), *v;
	const char *key;
	size_t n;

	json_object_foreach(json_object_get(st->json, "checks"), key, v)
		if (json_string_value(v))
			json_object_set(ids, json_string_value(v), json_true());
	n = json_object_size(ids);
	json_decref(ids);
	return n;
}

int mailconf_limit_reached(const struct mailconf *c, const struct mail_state *st)
{
	return (long)(mail_state_nsent(st) + check_mails_sent(st)) >= c->max_per_day;
}

void mail_history_load(struct mail_history *h, const char *wsdir, const char *from,
		       const char *to)
{
	char *days = workspace_days_dir(wsdir), **dates = NULL;
	int n = day_list(&dates, days), i;

	memset(h, 0, sizeof(*h));
	tide_error_clear();
	h->v = xcalloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*h->v));
	for (i = 0; i < n; i++)
		if (strcmp(dates[i], from) >= 0 && strcmp(dates[i], to) <= 0)
			mail_state_load(&h->v[h->n++], wsdir, dates[i]);
	day_list_free(dates, n > 0 ? n : 0);
	free(days);
}

int mail_history_check_sent(const struct mail_history *h, const char *key)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (mail_state_check_sent(&h->v[i], key))
			return 1;
	return 0;
}

void mail_history_release(struct mail_history *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		mail_state_release(&h->v[i]);
	free(h->v);
	memset(h, 0, sizeof(*h));
}
