/*
 * KCIDB-REST submission (kcidb.h): POST /submit with a bearer token, one
 * JSON document per request, from a spool directory; a document the
 * server rejects goes to a dead-letter directory.
 *
 * The server is untrusted like any other: every wait is bounded (the
 * whole submission, connects included, by the timeout), its answer is read only up to
 * RESPONSE_MAX bytes and only its first line, cleaned, reaches an error
 * message.  The token goes into one header and nowhere else.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "buf.h"
#include "error.h"
#include "kcidb.h"
#include "settings.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

#define TOKEN_MAX 4096
#define RESPONSE_MAX 65536
#define DOC_MAX (256L << 20)	/* a spooled file larger than this is not ours */

/* file_read() of a file no larger than max bytes (checked before reading). */
static int read_bounded(struct buf *b, const char *path, off_t max)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return tide_error_set(TIDE_EIO, "cannot read '%s': %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size > max)
		return tide_error_set(TIDE_EINVAL, "'%s' is not a regular file of at most %lld bytes",
				      path, (long long)max);
	return file_read(b, path);
}

int kcidb_token_read(char **out, const char *path)
{
	struct buf b = BUF_INIT;
	size_t i;
	int error;

	*out = NULL;
	if ((error = read_bounded(&b, path, TOKEN_MAX + 2)) < 0)
		return error;
	while (b.len && (b.ptr[b.len - 1] == '\n' || b.ptr[b.len - 1] == '\r'))
		b.len--;
	if (!b.len || b.len > TOKEN_MAX) {
		buf_release(&b);
		return tide_error_set(TIDE_EINVAL, "token file '%s': %s", path,
				      b.len ? "longer than 4096 bytes" : "empty");
	}
	for (i = 0; i < b.len; i++)
		if ((unsigned char)b.ptr[i] <= ' ' || (unsigned char)b.ptr[i] >= 0x7f) {
			buf_release(&b);
			return tide_error_set(TIDE_EINVAL,
				"token file '%s': not one line of printable characters", path);
		}
	*out = xstrndup(b.ptr, b.len);
	memset(b.ptr, 0, b.cap);
	buf_release(&b);
	return 0;
}

int kcidb_spool_add(const char *spool_dir, const char *name, const char *text, size_t len)
{
	char *file = xasprintf("%s.json", name), *path;
	int error;

	if (!*name || strchr(name, '/') || name[0] == '.') {
		free(file);
		return tide_error_set(TIDE_EINVAL, "bad spool name '%s'", name);
	}
	path = path_join(spool_dir, file);
	if ((error = mkdir_p(spool_dir, 0755)) >= 0)
		error = file_write_atomic(path, text, len);
	free(path);
	free(file);
	return error;
}

struct response {
	struct buf body;
};

static size_t on_body(char *p, size_t size, size_t n, void *data)
{
	struct response *r = data;
	size_t len = size * n, room = RESPONSE_MAX - r->body.len;

	buf_put(&r->body, p, len < room ? len : room);
	return len;	/* the rest is read and dropped, not an error */
}

/* The server's first line, cut and with control characters replaced. */
static char *first_line(const struct buf *b)
{
	size_t n = 0, i;
	char *s;

	while (n < b->len && n < 200 && b->ptr[n] != '\n' && b->ptr[n] != '\r')
		n++;
	s = xstrndup(b->ptr ? b->ptr : "", n);
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < ' ' || (unsigned char)s[i] == 0x7f)
			s[i] = '?';
	return s;
}

static char *submit_url(const char *url)
{
	size_t n = strlen(url);

	while (n && url[n - 1] == '/')
		n--;
	if (n >= 7 && !strncmp(url + n - 7, "/submit", 7))
		return xstrndup(url, n);
	return xasprintf("%.*s/submit", (int)n, url);
}

/*
 * POST doc, giving up after ms milliseconds; *code gets the HTTP status
 * (0 when none came) and *why, for an answer that is not 2xx, "HTTP N"
 * and the answer's first line.  Messages name the URL with its password
 * redacted.
 */
static int post(long *code, char **why, const struct kcidb_server *srv, const char *what,
		const struct buf *doc, long ms)
{
	char errbuf[CURL_ERROR_SIZE] = "", *url = submit_url(srv->url), *auth = NULL;
	char *shown = url_redact(url);
	struct response r = { BUF_INIT };
	struct curl_slist *headers = NULL;
	CURL *curl = curl_easy_init();
	CURLcode rc;
	int error = 0;

	*code = 0;
	*why = NULL;
	if (!curl) {
		error = tide_error_set(TIDE_ERROR, "cannot start libcurl");
		goto done;
	}
	headers = curl_slist_append(headers, "Content-Type: application/json");
	if (srv->token) {
		auth = xasprintf("Authorization: Bearer %s", srv->token);
		headers = curl_slist_append(headers, auth);
	}
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, ms);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, ms);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, doc->ptr);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)doc->len);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r);
	rc = curl_easy_perform(curl);
	if (rc == CURLE_OK)
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, code);
	if (rc != CURLE_OK) {
		error = tide_error_set(rc == CURLE_OPERATION_TIMEDOUT ? TIDE_ETIMEOUT : TIDE_ERROR,
				       "cannot submit %s to %s: %s", what, shown,
				       *errbuf ? errbuf : curl_easy_strerror(rc));
	} else if (*code < 200 || *code > 299) {
		char *line = first_line(&r.body);

		*why = xasprintf("HTTP %ld%s%s", *code, *line ? ": " : "", line);
		error = tide_error_set(TIDE_ERROR, "cannot submit %s to %s: %s", what, shown, *why);
		free(line);
	}
done:
	curl_easy_cleanup(curl);
	curl_slist_free_all(headers);
	if (auth)
		memset(auth, 0, strlen(auth));
	free(auth);
	free(url);
	free(shown);
	buf_release(&r.body);
	return error;
}

/*
 * A 4xx about the document itself.  401, 403 and 407 are about the
 * token, 404 and 405 about the URL, 408 and 429 about the pace: sending
 * the same document later can succeed, so it stays in the spool.
 */
static int rejects_document(long code)
{
	return code >= 400 && code <= 499 && code != 401 && code != 403 && code != 404 &&
	       code != 405 && code != 407 && code != 408 && code != 429;
}

/*
 * A spooled document: a regular file (not followed if a symbolic link,
 * never a FIFO that would block) of at most DOC_MAX bytes.  TIDE_EINVAL
 * when it is not one, TIDE_EIO when it cannot be read.
 */
static int read_doc(struct buf *b, const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), error = 0;
	struct stat st;
	char chunk[65536];
	ssize_t n;

	if (fd < 0)
		return errno == ELOOP ? tide_error_set(TIDE_EINVAL, "'%s' is a symbolic link", path)
				      : tide_error_errno(TIDE_EIO, "cannot open '%s'", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > DOC_MAX) {
		error = tide_error_set(TIDE_EINVAL, "'%s' is not a regular file of at most %ld bytes",
				       path, DOC_MAX);
		goto done;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 && b->len + (size_t)n <= (size_t)DOC_MAX)
		buf_put(b, chunk, (size_t)n);
	if (n < 0)
		error = tide_error_errno(TIDE_EIO, "cannot read '%s'", path);
	else if (n > 0)
		error = tide_error_set(TIDE_EINVAL, "'%s' grew past %ld bytes", path, DOC_MAX);
done:
	close(fd);
	return error;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The spooled documents' names, sorted; returns the count. */
static int spool_list(char ***out, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, alloc = 0;

	*out = NULL;
	if (!d)
		return 0;	/* no spool yet: nothing to send */
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !str_ends_with(e->d_name, ".json"))
			continue;
		array_grow(&names, &alloc, n + 1, sizeof(*names));
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	*out = names;
	return (int)n;
}

/* Move spool_dir/name to rejected_dir/name and note it in out. */
static int reject(struct kcidb_sent *out, const char *spool_dir, const char *rejected_dir,
		  const char *name, const char *why)
{
	char *from = path_join(spool_dir, name), *to = path_join(rejected_dir, name);
	int error;

	if ((error = mkdir_p(rejected_dir, 0755)) == 0 && rename(from, to) < 0)
		error = tide_error_errno(TIDE_EIO, "cannot move '%s' to '%s'", from, to);
	if (error == 0) {
		out->rejected = xrealloc(out->rejected, (out->nrejected + 1) * sizeof(*out->rejected));
		out->rejected[out->nrejected].name = xstrdup(name);
		out->rejected[out->nrejected++].why = xstrdup(why);
		out->left--;
	}
	free(from);
	free(to);
	return error;
}

/*
 * Send spool_dir/name within ms: 0 when it went or was rejected (moved
 * away), or the error that stops the submission.
 */
static int send_one(struct kcidb_sent *out, const char *spool_dir, const char *rejected_dir,
		    const struct kcidb_server *srv, const char *name, long ms)
{
	char *path = path_join(spool_dir, name), *why = NULL;
	struct buf doc = BUF_INIT;
	long code = 0;
	int error = read_doc(&doc, path);

	if (error == TIDE_EINVAL) {
		error = reject(out, spool_dir, rejected_dir, name, tide_error_last());
	} else if (error == 0 && (error = post(&code, &why, srv, name, &doc, ms)) == 0) {
		if (unlink(path) < 0)
			error = tide_error_errno(TIDE_EIO, "cannot remove '%s' after sending it", path);
		else
			out->sent++, out->left--;
	} else if (error < 0 && rejects_document(code)) {
		error = reject(out, spool_dir, rejected_dir, name, why);
	}
	buf_release(&doc);
	free(why);
	free(path);
	return error;
}

int kcidb_spool_send(struct kcidb_sent *out, const char *spool_dir, const char *rejected_dir,
		     const struct kcidb_server *srv)
{
	char **names = NULL;
	int n = spool_list(&names, spool_dir), i, error = 0;
	long timeout = srv->timeout > 0 ? srv->timeout : 60;
	double deadline = time_now() + (double)timeout;

	memset(out, 0, sizeof(*out));
	out->left = n;
	for (i = 0; i < n && !error; i++) {
		double ms = (deadline - time_now()) * 1000;

		/* kcidb-timeout bounds the submission, not each document. */
		if (ms < 1)
			error = tide_error_set(TIDE_ETIMEOUT,
					       "the submission's %ld s are spent before %s was sent",
					       timeout, names[i]);
		else
			error = send_one(out, spool_dir, rejected_dir, srv, names[i], (long)ms);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return error;
}

void kcidb_sent_release(struct kcidb_sent *s)
{
	size_t i;

	for (i = 0; i < s->nrejected; i++) {
		free(s->rejected[i].name);
		free(s->rejected[i].why);
	}
	free(s->rejected);
	memset(s, 0, sizeof(*s));
}

/* ---- a day's submission (tide run, tide kcidb --submit) ---- */

static int submission_failed(struct kcidb_submission *s, enum kcidb_submit_step step, int code)
{
	s->failed = step;
	s->code = code;
	free(s->why);
	s->why = xstrdup(tide_error_last());
	tide_error_clear();
	return code;
}

/*
 * Send the spool.  A server that fails keeps the rest for the next
 * submission; a document it rejects is moved out of the way so the
 * others go.  DIR/tide.log says which and how many.
 */
static int send_spool(struct kcidb_submission *s, struct workspace *ws,
		      const struct kcidb_server *srv)
{
	int error = kcidb_spool_send(&s->sent, s->spool, s->rejected_dir, srv);
	size_t i;

	if (error < 0) {
		workspace_log(ws, "kcidb: %s", tide_error_last());
		submission_failed(s, KCIDB_SUBMIT_SEND, error);
	}
	for (i = 0; i < s->sent.nrejected; i++)
		workspace_log(ws, "kcidb: %s rejected, moved to %s: %s", s->sent.rejected[i].name,
			      s->rejected_dir, s->sent.rejected[i].why);
	workspace_log(ws, "kcidb: %d sent, %zu rejected, %d left in the spool", s->sent.sent,
		      s->sent.nrejected, s->sent.left);
	return error;
}

int kcidb_submit_day(struct kcidb_submission *out, struct workspace *ws, const char *name,
		     const json_t *doc, const char *url, const char *token_file, long timeout)
{
	struct kcidb_server srv = { .url = url, .timeout = timeout };
	char *token = NULL, *text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	int error = 0;

	memset(out, 0, sizeof(*out));
	out->spool = workspace_kcidb_spool(ws->dir);
	out->rejected_dir = workspace_kcidb_rejected(ws->dir);
	if (token_file && (error = kcidb_token_read(&token, token_file)) < 0)
		goto fail;
	srv.token = token;
	if (!text) {
		error = tide_error_set(TIDE_ERROR, "cannot format the KCIDB document");
		goto fail;
	}
	if ((error = kcidb_spool_add(out->spool, name, text, strlen(text))) < 0)
		goto fail;
	error = send_spool(out, ws, &srv);
	goto done;
fail:
	submission_failed(out, KCIDB_SUBMIT_SPOOL, error);
done:
	if (token)
		memset(token, 0, strlen(token));
	free(token);
	free(text);
	return error;
}

void kcidb_submission_release(struct kcidb_submission *s)
{
	kcidb_sent_release(&s->sent);
	free(s->why);
	free(s->spool);
	free(s->rejected_dir);
	memset(s, 0, sizeof(*s));
}

/* Seconds for one submission: 1 to 3600, digits only. */
static int timeout_valid(const char *text)
{
	char *end;
	long n = strtol(text, &end, 10);

	return end != text && !*end && n >= 1 && n <= 3600;
}

/* DIR/config:LINE of key, for a message. */
static char *config_where(const struct settings *s, const char *wsdir, const char *key)
{
	char *path = workspace_config(wsdir);
	char *where = xasprintf("%s:%zu", path, settings_line_of(s, key));

	free(path);
	return where;
}

int kcidb_check_settings(const struct settings *s, const char *wsdir)
{
	const char *url = s ? settings_get(s, "kcidb-submit") : NULL;
	const char *origin, *timeout;
	char *where = NULL, *shown = NULL;
	int error = 0;

	if (!url)
		return 0;
	if (!str_starts_with(url, "http://") && !str_starts_with(url, "https://")) {
		where = config_where(s, wsdir, "kcidb-submit");
		shown = url_redact(url);
		error = tide_error_set(TIDE_EINVAL, "%s: kcidb-submit wants an http:// or https:// URL, not '%s'",
				       where, shown);
	} else if ((origin = settings_get(s, "kcidb-origin")) && !kcidb_origin_valid(origin)) {
		where = config_where(s, wsdir, "kcidb-origin");
		error = tide_error_set(TIDE_EINVAL,
				       "%s: KCIDB origin '%s' is not valid: use lower-case letters, digits and '_'",
				       where, origin);
	} else if ((timeout = settings_get(s, "kcidb-timeout")) && !timeout_valid(timeout)) {
		where = config_where(s, wsdir, "kcidb-timeout");
		error = tide_error_set(TIDE_EINVAL, "%s: kcidb-timeout wants seconds from 1 to 3600, not '%s'",
				       where, timeout);
	}
	free(where);
	free(shown);
	return error;
}
