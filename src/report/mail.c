#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>

#include "buf.h"
#include "error.h"
#include "mail.h"
#include "util.h"

void mail_add_rcpt(char ***list, size_t *n, const char *addr)
{
	size_t i;

	if (!addr || !*addr)
		return;
	for (i = 0; i < *n; i++)
		if (!strcmp((*list)[i], addr))
			return;
	*list = xrealloc(*list, (*n + 1) * sizeof(char *));
	(*list)[(*n)++] = xstrdup(addr);
}

void mail_add_author(char ***list, size_t *n, const char *author)
{
	const char *lt = author ? strchr(author, '<') : NULL, *p;
	char *addr;
	int ats = 0, ok;
	struct buf b = BUF_INIT;

	if (!lt)
		return;
	addr = mail_address(author);
	for (p = addr, ok = *addr && strlen(addr) <= 254; *p && ok; p++) {
		ats += *p == '@';
		ok = *p > ' ' && *p < 0x7f && !strchr("<>,;:\"\\()[]", *p);
	}
	if (ok && ats == 1 && addr[0] != '@' && addr[strlen(addr) - 1] != '@') {
		size_t nlen = (size_t)(lt - author);

		while (nlen && author[nlen - 1] == ' ')
			nlen--;
		for (p = author; p < author + nlen && *p >= ' ' && *p < 0x7f && !strchr("\"\\", *p); p++)
			;
		if (nlen && p == author + nlen)
			buf_printf(&b, "\"%.*s\" <%s>", (int)nlen, author, addr);
		else
			buf_puts(&b, addr);
		mail_add_rcpt(list, n, buf_cstr(&b));
	}
	buf_release(&b);
	free(addr);
}

static void free_list(char **list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

void mail_msg_release(struct mail_msg *m)
{
	if (!m)
		return;
	free(m->from);
	free_list(m->to, m->nto);
	free_list(m->cc, m->ncc);
	free(m->subject);
	free(m->body);
	free(m->message_id);
	free(m->in_reply_to);
	memset(m, 0, sizeof(*m));
}

char *mail_address(const char *from)
{
	const char *lt = strchr(from, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	if (lt && gt)
		return xstrndup(lt + 1, (size_t)(gt - lt - 1));
	return str_rtrim(xstrdup(from + strspn(from, " \t")));
}

/*
 * RFC 5322 allows 998 octets on a line; quoted-printable lines are at
 * most 76 (RFC 2045).  A header is folded below MAIL_LINE_MAX.
 */
#define MAIL_LINE_MAX 998
#define QP_LINE_MAX 76

/*
 * One logical header line: every CR, LF and other control character but
 * TAB made a space (a value must not start a header of its own), folded
 * at white space so no line is longer than MAIL_LINE_MAX; a run without
 * white space that long is folded where it reaches it.
 */
static void put_folded(struct buf *out, const char *text, const char *eol)
{
	struct buf line = BUF_INIT;
	const char *p;
	size_t start, k;

	for (p = text; *p; p++)
		buf_putc(&line, ((unsigned char)*p < ' ' && *p != '\t') || *p == 0x7f ? ' ' : *p);
	for (start = 0; line.len - start >= MAIL_LINE_MAX; start += k) {
		for (k = MAIL_LINE_MAX - 2; k > 1 && !strchr(" \t", line.ptr[start + k]); k--)
			;
		if (k <= 1)
			k = MAIL_LINE_MAX - 2;
		buf_put(out, line.ptr + start, k);
		buf_puts(out, eol);
		if (!strchr(" \t", line.ptr[start + k]))
			buf_putc(out, ' ');	/* a continuation starts with white space */
	}
	buf_puts(out, line.ptr + start);
	buf_puts(out, eol);
	buf_release(&line);
}

static void put_header(struct buf *out, const char *name, const char *value, const char *eol)
{
	struct buf line = BUF_INIT;

	buf_printf(&line, "%s: %s", name, value ? value : "");
	put_folded(out, line.ptr, eol);
	buf_release(&line);
}

/* To and Cc: one address a line after the first, so a long list stays short lines. */
static void put_list(struct buf *out, const char *name, char **list, size_t n,
		     const char *eol)
{
	struct buf line = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		buf_clear(&line);
		if (!i)
			buf_printf(&line, "%s: ", name);
		else
			buf_putc(&line, '\t');
		buf_printf(&line, "%s%s", list[i], i + 1 < n ? "," : "");
		put_folded(out, line.ptr, eol);
	}
	buf_release(&line);
}

/*
 * The body's lines: CRLF, a bare CR and a bare LF each end one, so no
 * bare CR or LF reaches SMTP DATA whatever text a tree put in a subject.
 * Returns the length of the longest line.
 */
static size_t body_lines(struct buf *out, const char *body)
{
	size_t longest = 0, cur = 0;
	const char *p;

	for (p = body; *p; p++) {
		if (*p == '\r' || *p == '\n') {
			if (*p == '\r' && p[1] == '\n')
				p++;
			buf_putc(out, '\n');
			cur = 0;
			continue;
		}
		buf_putc(out, *p);
		if (++cur > longest)
			longest = cur;
	}
	if (out->len && out->ptr[out->len - 1] != '\n')
		buf_putc(out, '\n');
	return longest;
}

/* One line as quoted-printable (RFC 2045 6.7), soft breaks at QP_LINE_MAX. */
static void put_qp_line(struct buf *out, const char *s, size_t len, const char *eol)
{
	size_t i, col = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char enc[4];
		int literal = (c >= 33 && c <= 126 && c != '=') ||
			      ((c == ' ' || c == '\t') && i + 1 < len);
		size_t w = literal ? 1 : 3;

		/* Room for this and a soft break's "=" on the line. */
		if (col + w > QP_LINE_MAX - 1 && !(i + 1 == len && col + w <= QP_LINE_MAX)) {
			buf_putc(out, '=');
			buf_puts(out, eol);
			col = 0;
		}
		if (literal) {
			buf_putc(out, (char)c);
		} else {
			snprintf(enc, sizeof(enc), "=%02X", c);
			buf_puts(out, enc);
		}
		col += w;
	}
	buf_puts(out, eol);
}

static void put_body(struct buf *out, const char *lines, int qp, const char *eol)
{
	const char *p = lines, *nl;

	for (; (nl = strchr(p, '\n')); p = nl + 1) {
		if (qp) {
			put_qp_line(out, p, (size_t)(nl - p), eol);
		} else {
			buf_put(out, p, (size_t)(nl - p));
			buf_puts(out, eol);
		}
	}
}

void mail_format(struct buf *out, const struct mail_msg *m, int crlf)
{
	const char *eol = crlf ? "\r\n" : "\n";
	struct buf lines = BUF_INIT;
	char date[64];
	struct tm tm;
	int qp;

	/* Text from trees can make a line of any length: such a body goes quoted-printable. */
	qp = body_lines(&lines, m->body ? m->body : "") > MAIL_LINE_MAX;
	gmtime_r(&m->date, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	put_header(out, "Date", date, eol);
	put_header(out, "From", m->from, eol);
	put_list(out, "To", m->to, m->nto, eol);
	put_list(out, "Cc", m->cc, m->ncc, eol);
	put_header(out, "Subject", m->subject, eol);
	put_header(out, "Message-ID", m->message_id, eol);
	if (m->in_reply_to) {
		put_header(out, "In-Reply-To", m->in_reply_to, eol);
		put_header(out, "References", m->in_reply_to, eol);
	}
	put_header(out, "MIME-Version", "1.0", eol);
	put_header(out, "Content-Type", "text/plain; charset=UTF-8", eol);
	put_header(out, "Content-Transfer-Encoding", qp ? "quoted-printable" : "8bit", eol);
	buf_puts(out, eol);
	put_body(out, buf_cstr(&lines), qp, eol);
	buf_release(&lines);
}

static char *cred_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text, *nl;

	for (; *p; p = *nl ? nl + 1 : nl) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if ((size_t)(nl - p) > klen && !strncmp(p, key, klen) && p[klen] == '=')
			return xstrndup(p + klen + 1, (size_t)(nl - p - (long)klen - 1));
	}
	return NULL;
}

int mail_credentials_load(struct mail_server *s, const char *path)
{
	struct buf text = BUF_INIT;
	struct stat st;
	int error;

	if (stat(path, &st) < 0)
		return tide_error_errno(TIDE_EINVAL, "cannot read credentials file '%s'", path);
	if (st.st_uid != geteuid())
		return tide_error_set(TIDE_EINVAL, "credentials file '%s' belongs to another user",
				      path);
	if (st.st_mode & 077)
		return tide_error_set(TIDE_EINVAL,
				      "credentials file '%s' is accessible by group or others "
				      "(mode %03o; chmod 600 it)", path, (unsigned)(st.st_mode & 0777));
	if ((error = file_read_text(&text, path)) < 0)
		goto done;
	free(s->user);
	free(s->password);
	s->user = cred_value(text.ptr, "user");
	s->password = cred_value(text.ptr, "password");
	if (s->user)
		str_rtrim(s->user);
	if (s->password && strchr(s->password, '\r'))
		*strchr(s->password, '\r') = '\0';
	if (!s->user || !s->password)
		error = tide_error_set(TIDE_EINVAL,
				       "credentials file '%s' needs 'user=' and 'password=' lines", path);
done:
	/* The buffer held the password: clear it before freeing. */
	if (text.ptr)
		memset(text.ptr, 0, text.len);
	buf_release(&text);
	return error;
}

int mail_server_check(const struct mail_server *s)
{
	const char *host;

	if (!s->url || !*s->url)
		return tide_error_set(TIDE_EINVAL, "no SMTP server configured");
	if (!str_starts_with(s->url, "smtp://") && !str_starts_with(s->url, "smtps://"))
		return tide_error_set(TIDE_EINVAL, "SMTP server must be smtp:// or smtps://");
	host = strstr(s->url, "://") + 3;
	if (strchr(host, '@') && strchr(host, '@') < host + strcspn(host, "/"))
		return tide_error_set(TIDE_EINVAL,
				      "SMTP URL must not carry credentials; use a credentials file");
	return 0;
}

struct reader {
	const char *p;
	size_t left;
};

static size_t on_read(char *dst, size_t size, size_t n, void *payload)
{
	struct reader *r = payload;
	size_t len = size * n < r->left ? size * n : r->left;

	memcpy(dst, r->p, len);
	r->p += len;
	r->left -= len;
	return len;
}

static struct curl_slist *recipients(const struct mail_msg *m)
{
	struct curl_slist *list = NULL;
	char *addr;
	size_t i;

	for (i = 0; i < m->nto + m->ncc; i++) {
		addr = mail_address(i < m->nto ? m->to[i] : m->cc[i - m->nto]);
		list = curl_slist_append(list, addr);
		free(addr);
	}
	return list;
}

static void setup(CURL *curl, const struct mail_server *s, char *errbuf)
{
	long timeout = s->timeout > 0 ? s->timeout : 30;

	curl_easy_setopt(curl, CURLOPT_URL, s->url);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, timeout);
	curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, timeout);
	if (s->starttls || str_starts_with(s->url, "smtps://"))
		curl_easy_setopt(curl, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	if (s->cainfo)
		curl_easy_setopt(curl, CURLOPT_CAINFO, s->cainfo);
	if (s->user) {
		curl_easy_setopt(curl, CURLOPT_USERNAME, s->user);
		curl_easy_setopt(curl, CURLOPT_PASSWORD, s->password);
	}
}

int mail_send(const struct mail_server *s, const struct mail_msg *m)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct buf text = BUF_INIT;
	struct reader r;
	struct curl_slist *rcpt = NULL;
	char *from = NULL;
	CURL *curl = NULL;
	CURLcode rc;
	int error;

	if ((error = mail_server_check(s)) < 0)
		return error;
	if (!m->nto && !m->ncc)
		return tide_error_set(TIDE_EINVAL, "mail '%s' has no recipients", m->subject);
	mail_format(&text, m, 1);
	r.p = text.ptr, r.left = text.len;
	rcpt = recipients(m);
	from = mail_address(m->from);
	curl = curl_easy_init();
	setup(curl, s, errbuf);
	curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from);
	curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(curl, CURLOPT_READFUNCTION, on_read);
	curl_easy_setopt(curl, CURLOPT_READDATA, &r);
	curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
	rc = curl_easy_perform(curl);
	if (rc != CURLE_OK)
		error = tide_error_set(rc == CURLE_OPERATION_TIMEDOUT ? TIDE_ETIMEOUT : TIDE_ERROR,
				       "cannot send mail to %s: %s", m->nto ? m->to[0] : m->cc[0],
				       *errbuf ? errbuf : curl_easy_strerror(rc));
	curl_easy_cleanup(curl);
	curl_slist_free_all(rcpt);
	free(from);
	buf_release(&text);
	return error;
}

void mail_server_release(struct mail_server *s)
{
	if (!s)
		return;
	free(s->url);
	free(s->user);
	if (s->password)
		memset(s->password, 0, strlen(s->password));
	free(s->password);
	free(s->cainfo);
	memset(s, 0, sizeof(*s));
}
