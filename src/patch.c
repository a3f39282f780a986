#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "error.h"
#include "patch.h"
#include "util.h"

struct cursor {
	const char *p, *end;
};

/* The next line without its '\n' (len), advancing past it. */
static int next_line(struct cursor *c, const char **line, size_t *len)
{
	const char *nl;

	if (c->p >= c->end)
		return 0;
	nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	*line = c->p;
	*len = nl ? (size_t)(nl - c->p) : (size_t)(c->end - c->p);
	c->p = nl ? nl + 1 : c->end;
	return 1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decode RFC 2047 "=?charset?q?...?=" words (the Q form git send-email uses). */
static char *decode_words(const char *s)
{
	struct buf b = BUF_INIT;
	const char *start, *enc, *end;

	while (*s) {
		start = strstr(s, "=?");
		enc = start ? strchr(start + 2, '?') : NULL;
		end = enc && (enc[1] == 'q' || enc[1] == 'Q') && enc[2] == '?' ?
			strstr(enc + 3, "?=") : NULL;
		if (!end) {
			buf_puts(&b, s);
			break;
		}
		buf_put(&b, s, (size_t)(start - s));
		for (s = enc + 3; s < end; s++) {
			if (*s == '_')
				buf_putc(&b, ' ');
			else if (*s == '=' && s + 2 < end && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
				buf_putc(&b, (char)(hexval(s[1]) * 16 + hexval(s[2])));
				s += 2;
			} else
				buf_putc(&b, *s);
		}
		s = end + 2;
	}
	return buf_detach(&b);
}

static void parse_from(struct patch *p, const char *value)
{
	char *v = decode_words(value);
	char *lt = strchr(v, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	size_t n;

	if (lt && gt) {
		p->author_email = xstrndup(lt + 1, (size_t)(gt - lt - 1));
		n = (size_t)(lt - v);
		while (n && isspace((unsigned char)v[n - 1]))
			n--;
		if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
			p->author_name = xstrndup(v + 1, n - 2);
		else
			p->author_name = xstrndup(v, n);
	} else {
		p->author_email = xstrdup(v);
		p->author_name = xstrdup(v);
	}
	if (!*p->author_name) {
		free(p->author_name);
		p->author_name = xstrdup(p->author_email);
	}
	free(v);
}

static void parse_date(struct patch *p, const char *value)
{
	static const char *const fmts[] = { "%a, %d %b %Y %H:%M:%S %z",
					    "%d %b %Y %H:%M:%S %z" };
	struct tm tm;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fmts); i++) {
		memset(&tm, 0, sizeof(tm));
		if (strptime(value, fmts[i], &tm)) {
			long off = tm.tm_gmtoff;	/* timegm() resets it */

			p->tz_minutes = (int)(off / 60);
			p->date = timegm(&tm) - off;
			return;
		}
	}
}

char *patch_clean_subject(const char *subject)
{
	const char *s = subject;

	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (!strncasecmp(s, "re:", 3))
			s += 3;
		else if (*s == '[' && strchr(s, ']'))
			s = strchr(s, ']') + 1;
		else
			break;
	}
	return str_rtrim(xstrdup(s));
}

static void set_header(struct patch *p, const char *name, const char *value)
{
	char *decoded;

	if (!strcasecmp(name, "from") && !p->author_email) {
		parse_from(p, value);
	} else if (!strcasecmp(name, "date") && !p->date) {
		parse_date(p, value);
	} else if (!strcasecmp(name, "subject") && !p->subject) {
		decoded = decode_words(value);
		p->subject = patch_clean_subject(decoded);
		free(decoded);
	}
}

static int is_header(const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < len && line[i] != ':'; i++)
		if (isspace((unsigned char)line[i]))
			return 0;
	return i > 0 && i < len;
}

/* Mail headers, with folded continuation lines, up to the blank line. */
static void parse_headers(struct patch *p, struct cursor *c)
{
	struct buf name = BUF_INIT, value = BUF_INIT;
	struct cursor save = *c;
	const char *line, *colon;
	size_t len;

	if (next_line(c, &line, &len) && !(len > 5 && !memcmp(line, "From ", 5)))
		*c = save;
	for (save = *c; next_line(c, &line, &len); save = *c) {
		if (len && (line[0] == ' ' || line[0] == '\t') && name.len) {
			buf_put(&value, line, len);
			continue;
		}
		if (name.len)
			set_header(p, name.ptr, value.ptr);
		buf_clear(&name);
		buf_clear(&value);
		if (!len)
			break;
		if (!is_header(line, len)) {
			*c = save;
			break;
		}
		colon = memchr(line, ':', len);
		buf_put(&name, line, (size_t)(colon - line));
		colon++;
		while (colon < line + len && isspace((unsigned char)*colon))
			colon++;
		buf_put(&value, colon, (size_t)(line + len - colon));
	}
	if (name.len)
		set_header(p, name.ptr, value.ptr);
	buf_release(&name);
	buf_release(&value);
}

static int starts_diff(const char *line, size_t len, const struct cursor *c)
{
	if (len >= 11 && !memcmp(line, "diff --git ", 11))
		return 1;
	return len >= 4 && !memcmp(line, "--- ", 4) && c->end - c->p >= 4 &&
	       !memcmp(c->p, "+++ ", 4);
}

/* Drop a trailing format-patch signature ("-- \n2.39.5\n"). */
static size_t strip_signature(const char *diff, size_t len)
{
	size_t i;

	for (i = len; i >= 4; i--)
		if (!memcmp(diff + i - 4, "\n-- ", 4) &&
		    (i == len || diff[i] == '\n'))
			return i - 3;
	return len;
}

int patch_parse(struct patch *out, const char *text, size_t len)
{
	struct cursor c = { text, text + len };
	struct buf body = BUF_INIT, msg = BUF_INIT;
	const char *line;
	size_t n;
	int past_message = 0;

	memset(out, 0, sizeof(*out));
	parse_headers(out, &c);
	for (;;) {
		const char *at = c.p;

		if (!next_line(&c, &line, &n))
			break;
		if (starts_diff(line, n, &c)) {
			out->diff = at;
			break;
		}
		/* After "---" comes the diffstat, not the message. */
		if (n == 3 && !memcmp(line, "---", 3))
			past_message = 1;
		if (past_message)
			continue;
		buf_put(&body, line, n);
		buf_putc(&body, '\n');
	}
	if (!out->diff) {
		buf_release(&body);
		patch_release(out);
		return tide_error_set(TIDE_EINVAL, "no diff in patch");
	}
	out->diff_len = strip_signature(out->diff, (size_t)(text + len - out->diff));
	buf_puts(&msg, out->subject ? out->subject : "(no subject)");
	if (body.ptr && *str_rtrim(body.ptr)) {
		char *b = body.ptr;

		while (*b == '\n')
			b++;
		if (*b)
			buf_printf(&msg, "\n\n%s", b);
	}
	buf_putc(&msg, '\n');
	out->message = buf_detach(&msg);
	buf_release(&body);
	return 0;
}

void patch_release(struct patch *p)
{
	if (!p)
		return;
	free(p->author_name);
	free(p->author_email);
	free(p->subject);
	free(p->message);
	memset(p, 0, sizeof(*p));
}
