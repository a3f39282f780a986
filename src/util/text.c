#include <errno.h>
#include <stdarg.h>
#include <iconv.h>
#include <string.h>
#include <strings.h>

#include <git2.h>

#include "text.h"
#include "util.h"

/*
 * The length of the well-formed UTF-8 sequence at s[0..len), or 0 when
 * there is none: overlong forms, surrogates and code points above
 * U+10FFFF are refused, as jansson refuses them.
 */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	size_t n, i;
	unsigned cp;

	if (s[0] >= 0x01 && s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int utf8_valid(const char *s, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		if (!(n = utf8_seq((const unsigned char *)s + i, len - i)))
			return 0;
		i += n;
	}
	return 1;
}

void utf8_lossy(struct buf *out, const char *s, size_t len)
{
	size_t i = 0, n;

	buf_grow(out, len);
	out->ptr[out->len] = '\0';	/* terminated even when s is empty */
	while (i < len) {
		n = utf8_seq((const unsigned char *)s + i, len - i);
		if (n) {
			buf_put(out, s + i, n);
			i += n;
		} else {
			buf_puts(out, "\xef\xbf\xbd");
			i++;
		}
	}
}

json_t *json_textn(const char *s, size_t len)
{
	struct buf b = BUF_INIT;
	json_t *j;

	if (!s)
		return json_null();
	if (utf8_valid(s, len))
		return json_stringn_nocheck(s, len);
	utf8_lossy(&b, s, len);
	j = json_stringn_nocheck(buf_cstr(&b), b.len);
	buf_release(&b);
	return j;
}

const char *json_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

const char *json_str_or(const json_t *o, const char *key, const char *dflt)
{
	const char *s = json_str(o, key);

	return s ? s : dflt;
}

json_t *json_text(const char *s)
{
	return json_textn(s, s ? strlen(s) : 0);
}

json_t *json_text_printf(const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	json_t *j;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	j = json_textn(buf_cstr(&b), b.len);
	buf_release(&b);
	return j;
}

static int is_utf8_name(const char *charset)
{
	return !charset || !*charset || !strcasecmp(charset, "UTF-8") ||
	       !strcasecmp(charset, "UTF8");
}

/* iconv s[0..len) from charset; 0 when every byte converted. */
static int iconv_all(struct buf *out, const char *s, size_t len, const char *charset)
{
	iconv_t cd = iconv_open("UTF-8", charset);
	char chunk[4096], *in = (char *)s;
	size_t left = len;
	int error = 0;

	if (cd == (iconv_t)-1)
		return -1;
	while (left && !error) {
		char *o = chunk;
		size_t room = sizeof(chunk);

		if (iconv(cd, &in, &left, &o, &room) == (size_t)-1 && errno != E2BIG)
			error = -1;
		buf_put(out, chunk, (size_t)(o - chunk));
	}
	iconv_close(cd);
	return error;
}

void text_decode(struct buf *out, const char *s, size_t len, const char *charset)
{
	struct buf conv = BUF_INIT;

	/* The result is checked too: a wrong header must not let bad bytes through. */
	if (!is_utf8_name(charset) && iconv_all(&conv, s, len, charset) == 0)
		utf8_lossy(out, conv.ptr ? conv.ptr : "", conv.len);
	else
		utf8_lossy(out, s, len);
	buf_release(&conv);
}

char *commit_summary_utf8(git_commit *c)
{
	const char *s = git_commit_summary(c);
	struct buf b = BUF_INIT;

	if (s)
		text_decode(&b, s, strlen(s), git_commit_message_encoding(c));
	return buf_detach(&b);
}

char *commit_author_utf8(const git_commit *c, const git_mailmap *mm)
{
	git_signature *mapped = NULL;
	const git_signature *a = git_commit_author(c);
	const char *enc = git_commit_message_encoding(c);
	struct buf raw = BUF_INIT, b = BUF_INIT;

	if (mm && git_commit_author_with_mailmap(&mapped, c, mm) == 0)
		a = mapped;

	/* git re-encodes the whole commit, author included, from that header. */
	buf_printf(&raw, "%s <%s>", a && a->name ? a->name : "", a && a->email ? a->email : "");
	text_decode(&b, raw.ptr, raw.len, enc);
	git_signature_free(mapped);
	buf_release(&raw);
	return buf_detach(&b);
}

/*
 * The userinfo of the URL starting at url: *start at its first byte and
 * the length up to (not including) the '@'; 0 when there is none.  The
 * authority ends at '/', '?', '#', white space or a quote, so a URL
 * inside a message ("... 'https://u:p@h/x': ...") is found too.
 */
static size_t userinfo_of(const char *url, const char **start)
{
	const char *p = strstr(url, "://"), *at = NULL, *q;

	if (!p)
		return 0;
	p += 3;
	for (q = p; *q && !strchr("/?#'\" \t\n<>", *q); q++)
		if (*q == '@')
			at = q;
	if (!at)
		return 0;
	*start = p;
	return (size_t)(at - p);
}

/*
 * The userinfo of url when url is the whole string, as a URL parser
 * reads it: the authority ends only at '/', '?' or '#' (RFC 3986), so a
 * password holding a quote or a space, which end a URL in running text,
 * is still found.
 */
static size_t userinfo_of_url(const char *url, const char **start)
{
	const char *p = strstr(url, "://"), *at = NULL, *q;

	if (!p || strcspn(url, "/?#") < (size_t)(p - url))
		return userinfo_of(url, start);
	p += 3;
	for (q = p; *q && !strchr("/?#", *q); q++)
		if (*q == '@')
			at = q;
	if (!at)
		return 0;
	*start = p;
	return (size_t)(at - p);
}

static char *url_edit(const char *url, int strip)
{
	struct buf b = BUF_INIT;
	const char *ui, *colon;
	size_t n = userinfo_of_url(url, &ui);

	if (!n)
		return xstrdup(url);
	buf_put(&b, url, (size_t)(ui - url));
	colon = memchr(ui, ':', n);
	if (!strip && colon) {
		buf_put(&b, ui, (size_t)(colon - ui));
		buf_puts(&b, ":***@");
	} else if (!strip) {
		buf_put(&b, ui, n + 1);
	}
	buf_puts(&b, ui + n + 1);
	return buf_detach(&b);
}

char *url_redact(const char *url)
{
	return url_edit(url, 0);
}

char *url_strip_userinfo(const char *url)
{
	return url_edit(url, 1);
}

void text_redact(struct buf *out, const char *text)
{
	const char *p = text, *hit;

	while ((hit = strstr(p, "://"))) {
		const char *ui, *colon;
		size_t n = userinfo_of(hit, &ui);

		colon = n ? memchr(ui, ':', n) : NULL;
		if (!colon) {
			buf_put(out, p, (size_t)(hit + 3 - p));
			p = hit + 3;
			continue;
		}
		buf_put(out, p, (size_t)(colon + 1 - p));
		buf_puts(out, "***");
		p = ui + n;
	}
	buf_puts(out, p);
}

void text_strip_userinfo(struct buf *out, const char *text)
{
	const char *p = text, *hit, *ui;
	size_t n;

	while ((hit = strstr(p, "://"))) {
		buf_put(out, p, (size_t)(hit + 3 - p));
		p = hit + 3;
		if ((n = userinfo_of(hit, &ui)))
			p = ui + n + 1;	/* and the '@' */
	}
	buf_puts(out, p);
}

void text_escape(struct buf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf_putc(out, (char)c);
		else
			buf_printf(out, "\\x%02x", c);
	}
}

int ref_component_valid(const char *name)
{
	size_t n = strlen(name);
	const char *p;

	if (!n || name[0] == '.' || name[0] == '-' || !strcmp(name, "@") ||
	    name[n - 1] == '.' || str_ends_with(name, ".lock") ||
	    strstr(name, "..") || strstr(name, "@{"))
		return 0;
	for (p = name; *p; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f ||
		    strchr("~^:?*[\\/", *p))
			return 0;
	return 1;
}
