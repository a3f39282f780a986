/*
 * KCIDB-REST submission (kcidb.h): POST /submit with a bearer token, one
 * JSON document per request, from a spool directory.
 *
 * The server is untrusted like any other: every wait is bounded (connect
 * and the whole request by the timeout), its answer is read only up to
 * RESPONSE_MAX bytes and only its first line, cleaned, reaches an error
 * message.  The token goes into one header and nowhere else.
 */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "buf.h"
#include "error.h"
#include "kcidb.h"
#include "util.h"

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

static int post(const struct kcidb_server *srv, const char *what, const struct buf *doc)
{
	char errbuf[CURL_ERROR_SIZE] = "", *url = submit_url(srv->url), *auth = NULL;
	struct response r = { BUF_INIT };
	struct curl_slist *headers = NULL;
	long timeout = srv->timeout > 0 ? srv->timeout : 60, code = 0;
	CURL *curl = curl_easy_init();
	CURLcode rc;
	int error = 0;

	if (!curl) {
		free(url);
		return tide_error_set(TIDE_ERROR, "cannot start libcurl");
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
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, timeout);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, timeout);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, doc->ptr);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)doc->len);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r);
	rc = curl_easy_perform(curl);
	if (rc == CURLE_OK)
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
	if (rc != CURLE_OK) {
		error = tide_error_set(rc == CURLE_OPERATION_TIMEDOUT ? TIDE_ETIMEOUT : TIDE_ERROR,
				       "cannot submit %s to %s: %s", what, url,
				       *errbuf ? errbuf : curl_easy_strerror(rc));
	} else if (code < 200 || code > 299) {
		char *line = first_line(&r.body);

		error = tide_error_set(TIDE_ERROR, "cannot submit %s to %s: HTTP %ld%s%s", what, url,
				       code, *line ? ": " : "", line);
		free(line);
	}
	curl_easy_cleanup(curl);
	curl_slist_free_all(headers);
	if (auth)
		memset(auth, 0, strlen(auth));
	free(auth);
	free(url);
	buf_release(&r.body);
	return error;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The spooled documents' names, sorted; returns the count or an error. */
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

int kcidb_spool_send(const char *spool_dir, const struct kcidb_server *srv, int *sent, int *left)
{
	char **names = NULL;
	int n = spool_list(&names, spool_dir), i, error = 0;

	*sent = 0;
	*left = n;
	for (i = 0; i < n && !error; i++) {
		char *path = path_join(spool_dir, names[i]);
		struct buf doc = BUF_INIT;

		if ((error = read_bounded(&doc, path, DOC_MAX)) >= 0) {
			if ((error = post(srv, names[i], &doc)) >= 0 && unlink(path) < 0)
				error = tide_error_set(TIDE_EIO, "cannot remove '%s' after sending it", path);
		}
		if (error >= 0) {
			(*sent)++;
			(*left)--;
		}
		buf_release(&doc);
		free(path);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return error < 0 ? error : 0;
}
