#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <gmime/gmime.h>

#include "error.h"
#include "patch.h"
#include "util.h"

/*
 * One mail to a patch, in git mailinfo's steps: the headers (decoded by
 * GMime, charsets checked), the text parts of the body (transfer encoding
 * undone by GMime), then mailinfo's line rules on the text: in-body
 * headers, scissors, the "---" break, the diff.
 */

static pthread_once_t gmime_once = PTHREAD_ONCE_INIT;

static void gmime_start(void)
{
	g_mime_init();
}

static void patch_gmime_init(void)
{
	pthread_once(&gmime_once, gmime_start);
}

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

static int line_is(const char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(line, prefix, n);
}

/* Up to max bytes of untrusted text for an error message, control characters as '?'. */
static char *printable(const char *s, size_t len, size_t max)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < len && i < max && s[i] != '\n'; i++)
		buf_putc(&b, (unsigned char)s[i] < ' ' || s[i] == 127 ? '?' : s[i]);
	return buf_detach(&b);
}

/* Replace invalid UTF-8 (a mail's charset label may lie) and hand back a malloc()ed copy. */
static char *utf8_dup(const char *s, size_t len)
{
	char *valid = g_utf8_make_valid(s, (gssize)len), *out = xstrdup(valid);

	g_free(valid);
	return out;
}

/* Can iconv convert from this charset?  Unknown ones are errors, not guesses. */
static int charset_check(const char *charset, const char *where)
{
	iconv_t cd;
	char *name;
	int error;

	if (!charset || !*charset)
		return 0;
	cd = g_mime_iconv_open("UTF-8", charset);
	if (cd != (iconv_t)-1) {
		g_mime_iconv_close(cd);
		return 0;
	}
	name = printable(charset, strlen(charset), 40);
	error = tide_error_set(TIDE_EINVAL, "unknown charset '%s' in the %s", name, where);
	free(name);
	return error;
}

/* Every "=?charset?" of the RFC 2047 words in a raw header value. */
static int check_header_charsets(const char *name, const char *raw)
{
	const char *s = raw, *q;
	char *cs;
	int error = 0;

	while (!error && (s = strstr(s, "=?")) != NULL) {
		s += 2;
		if (!(q = strchr(s, '?')) || q - s > 64)
			continue;
		cs = xstrndup(s, (size_t)(q - s));
		/* RFC 2231 language suffix: "utf-8*en". */
		if (strchr(cs, '*'))
			*strchr(cs, '*') = '\0';
		error = charset_check(cs, name);
		free(cs);
		s = q;
	}
	return error;
}

/* Unfold, decode RFC 2047 words (any charset GMime's iconv knows) to UTF-8, trim. */
static int decode_header(char **out, const char *name, const char *raw)
{
	struct buf b = BUF_INIT;
	char *dec, *valid;
	const char *s;
	int error;

	*out = NULL;
	if ((error = check_header_charsets(name, raw)) < 0)
		return error;
	for (s = raw; *s; s++)
		if (!(*s == '\n' && (s[1] == ' ' || s[1] == '\t')) && *s != '\r')
			buf_putc(&b, *s);
	dec = g_mime_utils_header_decode_text(NULL, buf_cstr(&b));
	valid = utf8_dup(dec, strlen(dec));
	str_rtrim(valid);
	*out = xstrdup(valid + strspn(valid, " \t"));
	free(valid);
	g_free(dec);
	buf_release(&b);
	return 0;
}

/* A display name as git mailinfo gives it: quotes off, backslash pairs undone. */
static char *unquote_name(const char *v, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;

	while (n && isspace((unsigned char)v[n - 1]))
		n--;
	for (i = 0; i < n; i++) {
		if (v[i] == '"')
			continue;
		if (v[i] == '\\' && i + 1 < n)
			i++;
		buf_putc(&b, v[i]);
	}
	return str_rtrim(buf_detach(&b));
}

/* "Name <addr>", "addr (Name)" or "addr" (git mailinfo's handle_from()). */
static void set_from(struct patch *p, const char *v)
{
	const char *lt = strchr(v, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	const char *open = strchr(v, '('), *close = open ? strrchr(open, ')') : NULL;
	struct buf name = BUF_INIT;

	free(p->author_name);
	free(p->author_email);
	if (lt && gt) {
		p->author_email = xstrndup(lt + 1, (size_t)(gt - lt - 1));
		buf_put(&name, v, (size_t)(lt - v));
		/* A comment after the address stays with the name, as mailinfo keeps it. */
		if (gt[1] && strspn(gt + 1, " \t") < strlen(gt + 1)) {
			if (name.len && !isspace((unsigned char)name.ptr[name.len - 1]))
				buf_putc(&name, ' ');
			buf_puts(&name, gt + 1 + strspn(gt + 1, " \t"));
		}
	} else if (open && close) {
		p->author_email = xstrndup(v, (size_t)(open - v));
		str_rtrim(p->author_email);
		buf_put(&name, open + 1, (size_t)(close - open - 1));
	} else {
		p->author_email = xstrdup(v);
	}
	p->author_name = unquote_name(buf_cstr(&name), name.len);
	buf_release(&name);
	if (!*p->author_name) {
		free(p->author_name);
		p->author_name = xstrdup(p->author_email);
	}
}

static void set_date(struct patch *p, const char *value)
{
	static const char *const fmts[] = { "%a, %d %b %Y %H:%M:%S %z",
					    "%d %b %Y %H:%M:%S %z" };
	GDateTime *dt;
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
	/* Odd but readable dates ("Tue,  1 Dec 2026 09:30 GMT"): GMime's parser. */
	if ((dt = g_mime_utils_header_decode_date(value)) != NULL) {
		p->date = (time_t)g_date_time_to_unix(dt);
		p->tz_minutes = (int)(g_date_time_get_utc_offset(dt) / G_TIME_SPAN_MINUTE);
		g_date_time_unref(dt);
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

/* One token of a "[PATCH v3 2/7]" prefix. */
static void subject_token(struct patch *p, const char *t, size_t n)
{
	char *tok = xstrndup(t, n), *end;
	const char *v = tok;
	long a, b;

	if (!strncasecmp(v, "patch", 5) && (v[5] == 'v' || v[5] == 'V'))
		v += 5;
	if ((v[0] == 'v' || v[0] == 'V') && isdigit((unsigned char)v[1])) {
		a = strtol(v + 1, &end, 10);
		if (!*end && a > 0 && a < 1000)
			p->version = (int)a;
	} else if (isdigit((unsigned char)v[0])) {
		a = strtol(v, &end, 10);
		if (*end == '/' && isdigit((unsigned char)end[1])) {
			b = strtol(end + 1, &end, 10);
			if (!*end && a >= 0 && a <= b && b < 100000)
				p->number = (int)a, p->total = (int)b;
		}
	}
	free(tok);
}

/* Numbering, revision and reply-ness from the prefixes git mailinfo strips. */
static void subject_prefixes(struct patch *p, const char *s)
{
	const char *close, *t;

	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (!strncasecmp(s, "re:", 3) || !strncasecmp(s, "aw:", 3)) {
			p->is_reply = 1;
			s += 3;
		} else if (*s == '[' && (close = strchr(s, ']')) != NULL) {
			for (t = s + 1; t < close;) {
				size_t n = strcspn(t, " \t,]");

				if (n)
					subject_token(p, t, n);
				t += n ? n : 1;
			}
			s = close + 1;
		} else {
			return;
		}
	}
}

static void set_subject(struct patch *p, const char *decoded)
{
	free(p->raw_subject);
	free(p->subject);
	p->raw_subject = xstrdup(decoded);
	p->number = p->total = p->version = p->is_reply = 0;
	subject_prefixes(p, decoded);
	p->subject = patch_clean_subject(decoded);
}

static int read_header(struct patch *p, GMimeObject *obj, const char *name)
{
	GMimeHeader *h = g_mime_header_list_get_header(g_mime_object_get_header_list(obj), name);
	const char *raw = h ? g_mime_header_get_raw_value(h) : NULL;
	char *v = NULL;
	int error;

	if (!raw)
		return 0;
	if ((error = decode_header(&v, name, raw)) < 0)
		return error;
	if (!strcmp(name, "From"))
		set_from(p, v);
	else if (!strcmp(name, "Subject"))
		set_subject(p, v);
	else
		set_date(p, v);
	free(v);
	return 0;
}

/* ---- the body: text parts, decoded ---- */

struct body {
	struct buf msg;		/* UTF-8: what comes before the diff */
	struct buf diff;	/* the diff's bytes, as sent */
	int in_diff;
	int keep_cr;		/* an LF text: a CR ending a line of a plain part is content */
};

/* Whether the line after the current one starts with prefix. */
static int next_is(const struct cursor *c, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(c->end - c->p) >= n && !memcmp(c->p, prefix, n);
}

/*
 * A diff starts at "diff --git", at "--- " followed by "+++ ", and, in
 * patches with no "---" break before it, at quilt's "Index: f" (then
 * "====" or "--- ") or at a "diff -puN a b" command line (then "--- ").
 */
static int starts_diff(const char *line, size_t len, const struct cursor *c)
{
	if (line_is(line, len, "diff --git "))
		return 1;
	if (line_is(line, len, "Index: ") && (next_is(c, "====") || next_is(c, "--- ")))
		return 1;
	if (line_is(line, len, "diff -") && next_is(c, "--- "))
		return 1;
	return line_is(line, len, "--- ") && next_is(c, "+++ ");
}

/* Offset of the first diff line in text, len if none. */
static size_t diff_offset(const char *text, size_t len)
{
	struct cursor c = { text, text + len };
	const char *line, *at;
	size_t n;

	for (at = c.p; next_line(&c, &line, &n); at = c.p)
		if (starts_diff(line, n, &c))
			return (size_t)(at - text);
	return len;
}

/* Append text to dst converted from charset to UTF-8. */
static int put_converted(struct buf *dst, const char *text, size_t len, const char *charset)
{
	iconv_t cd;
	char *conv = NULL, *valid;

	if (!len)
		return 0;
	if (charset && *charset && g_ascii_strcasecmp(g_mime_charset_canon_name(charset), "utf-8")) {
		if (charset_check(charset, "body") < 0)
			return TIDE_EINVAL;
		cd = g_mime_iconv_open("UTF-8", charset);
		conv = g_mime_iconv_strndup(cd, text, len);
		g_mime_iconv_close(cd);
		if (!conv)
			return tide_error_set(TIDE_EINVAL, "the body is not valid %s",
					      g_mime_charset_canon_name(charset));
		text = conv, len = strlen(conv);
	}
	valid = g_utf8_make_valid(text, (gssize)len);
	buf_puts(dst, valid);
	g_free(valid);
	g_free(conv);
	return 0;
}

/* One leaf part's bytes, the transfer encoding (base64, QP) undone. */
static void part_bytes(struct buf *out, GMimePart *part, int keep_cr)
{
	GMimeDataWrapper *w = g_mime_part_get_content(part);
	GMimeContentEncoding enc = g_mime_part_get_content_encoding(part);
	GMimeStream *mem;
	GByteArray *arr;
	size_t i;

	if (!w)
		return;
	mem = g_mime_stream_mem_new();
	g_mime_data_wrapper_write_to_stream(w, mem);
	arr = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(mem));
	/*
	 * Decoded CRLF lines are mail transport, as for the undecoded body;
	 * in a part sent as it is in an LF text they are the file's (a diff
	 * of a CR LF file), kept as patch(1) keeps them.
	 */
	keep_cr = keep_cr && enc != GMIME_CONTENT_ENCODING_BASE64 &&
		  enc != GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE &&
		  enc != GMIME_CONTENT_ENCODING_UUENCODE;
	for (i = 0; i < arr->len; i++)
		if (keep_cr ||
		    !(arr->data[i] == '\r' && i + 1 < arr->len && arr->data[i + 1] == '\n'))
			buf_putc(out, (char)arr->data[i]);
	g_object_unref(mem);
}

/* Text parts hold the message and the patch; HTML, images and signatures do not. */
static int is_text_part(GMimeObject *obj)
{
	GMimeContentType *ct = g_mime_object_get_content_type(obj);
	const char *file = g_mime_part_get_filename(GMIME_PART(obj));

	if (!ct)
		return 1;	/* RFC 2045: text/plain by default */
	if (g_mime_content_type_is_type(ct, "text", "html"))
		return 0;
	if (g_mime_content_type_is_type(ct, "text", "*") ||
	    g_mime_content_type_is_type(ct, "application", "x-patch") ||
	    g_mime_content_type_is_type(ct, "application", "x-diff"))
		return 1;
	/* Some mailers send a .patch as application/octet-stream. */
	return file && (str_ends_with(file, ".patch") || str_ends_with(file, ".diff"));
}

static int add_part(struct body *b, GMimeObject *obj)
{
	struct buf raw = BUF_INIT;
	const char *charset = g_mime_object_get_content_type_parameter(obj, "charset");
	size_t at;
	int error = 0;

	if (!is_text_part(obj))
		return 0;
	part_bytes(&raw, GMIME_PART(obj), b->keep_cr);
	at = b->in_diff ? 0 : diff_offset(buf_cstr(&raw), raw.len);
	/* After the diff, only more diffs count (not a list footer part). */
	if (b->in_diff && diff_offset(buf_cstr(&raw), raw.len) == raw.len)
		goto done;
	if ((error = put_converted(&b->msg, buf_cstr(&raw), at, charset)) < 0)
		goto done;
	if (b->msg.len && b->msg.ptr[b->msg.len - 1] != '\n')
		buf_putc(&b->msg, '\n');
	if (at < raw.len) {
		buf_put(&b->diff, raw.ptr + at, raw.len - at);
		b->in_diff = 1;
	}
done:
	buf_release(&raw);
	return error;
}

static int add_object(struct body *b, GMimeObject *obj, int depth)
{
	GMimeMultipart *mp;
	int i, n, error = 0;

	if (depth > 16)
		return tide_error_set(TIDE_EINVAL, "MIME parts nested too deeply");
	if (GMIME_IS_PART(obj))
		return add_part(b, obj);
	if (!GMIME_IS_MULTIPART(obj))
		return 0;	/* an attached message/rfc822 is not this patch */
	mp = GMIME_MULTIPART(obj);
	n = g_mime_multipart_get_count(mp);
	if (g_mime_content_type_is_type(g_mime_object_get_content_type(obj), "multipart",
					"alternative")) {
		/* The text/plain alternative, not the HTML one. */
		for (i = 0; i < n; i++)
			if (GMIME_IS_PART(g_mime_multipart_get_part(mp, i)) &&
			    is_text_part(g_mime_multipart_get_part(mp, i)))
				return add_part(b, g_mime_multipart_get_part(mp, i));
		return 0;
	}
	for (i = 0; i < n && !error; i++)
		error = add_object(b, g_mime_multipart_get_part(mp, i), depth + 1);
	return error;
}

/* ---- mailinfo's line rules on the message text ---- */

/* git mailinfo's is_scissors_line(): "-- >8 --", "8<------", with some cruft allowed. */
static int is_scissors_line(const char *line, size_t len)
{
	int scissors = 0, gap = 0, perforation = 0, in_perf = 0;
	const char *first = NULL, *last = NULL;
	size_t i;

	for (i = 0; i < len; i++) {
		const char *c = line + i;

		if (isspace((unsigned char)*c)) {
			if (in_perf)
				perforation++, gap++;
			continue;
		}
		last = c;
		if (!first)
			first = c;
		if (*c == '-') {
			in_perf = 1, perforation++;
			continue;
		}
		if (i + 1 < len && (!memcmp(c, ">8", 2) || !memcmp(c, "8<", 2) ||
				    !memcmp(c, ">%", 2) || !memcmp(c, "%<", 2))) {
			in_perf = 1, perforation += 2, scissors += 2, i++;
			continue;
		}
		in_perf = 0;
	}
	/* The mark is at least 8 wide, over a third of the line, mostly dashes and scissors. */
	return scissors && first && last && 8 <= last - first + 1 &&
	       last - first + 1 < perforation * 3 && gap * 2 < perforation;
}

/* git mailinfo's patchbreak(): where the message ends. */
static int patchbreak(const char *line, size_t len)
{
	size_t i;

	if (line_is(line, len, "diff -") || line_is(line, len, "Index: "))
		return 1;
	if (!line_is(line, len, "---"))
		return 0;
	if (len > 4 && line[3] == ' ' && !isspace((unsigned char)line[4]))
		return 1;
	for (i = 3; i < len; i++)
		if (!isspace((unsigned char)line[i]))
			return 0;
	return 1;
}

enum { IB_FROM, IB_SUBJECT, IB_DATE, IB_N };

static int inbody_header(const char *line, size_t len)
{
	static const char *const names[IB_N] = { "From", "Subject", "Date" };
	size_t i, n;

	for (i = 0; i < IB_N; i++) {
		n = strlen(names[i]);
		if (len > n && !strncasecmp(line, names[i], n) && line[n] == ':')
			return (int)i;
	}
	/* A "[PATCH] subject" line at the top is a subject too (mailinfo). */
	if (line_is(line, len, "[PATCH]") && len > 7 && isspace((unsigned char)line[7]))
		return IB_SUBJECT;
	return -1;
}

struct msgstate {
	struct buf log;
	struct buf accum;	/* the in-body header line being read */
	int accum_which;
	char *inbody[IB_N];
	int header_stage;
};

static void flush_accum(struct msgstate *m)
{
	const char *v = buf_cstr(&m->accum);

	if (!m->accum.len)
		return;
	/* "[PATCH] x" is a subject as it stands; "Name: value" loses its name. */
	if (!(m->accum_which == IB_SUBJECT && str_starts_with(v, "[PATCH]")))
		v = strchr(v, ':') + 1;
	free(m->inbody[m->accum_which]);
	m->inbody[m->accum_which] = xstrdup(v);
	buf_clear(&m->accum);
}

/* mailinfo's check_inbody_header(): 1 while the line belongs to the in-body headers. */
static int check_inbody(struct msgstate *m, const char *line, size_t len)
{
	int which;

	if (m->accum.len && len && (line[0] == ' ' || line[0] == '\t')) {
		buf_putc(&m->accum, '\n');
		buf_put(&m->accum, line, len);
		return 1;
	}
	flush_accum(m);
	if ((which = inbody_header(line, len)) < 0)
		return 0;
	m->accum_which = which;
	buf_put(&m->accum, line, len);
	return 1;
}

/* One line of the message; 1 at the patch break. */
static int message_line(struct msgstate *m, const char *line, size_t len)
{
	size_t i;

	if (m->header_stage && !len) {
		if (m->accum.len) {
			flush_accum(m);
			m->header_stage = 0;
		}
		return 0;
	}
	if (m->header_stage && (m->header_stage = check_inbody(m, line, len)))
		return 0;
	if (is_scissors_line(line, len)) {
		/* Above the scissors is discussion, in-body headers included. */
		buf_clear(&m->log);
		for (i = 0; i < IB_N; i++)
			free(m->inbody[i]), m->inbody[i] = NULL;
		m->header_stage = 1;
		return 0;
	}
	if (patchbreak(line, len))
		return 1;
	buf_put(&m->log, line, len);
	buf_putc(&m->log, '\n');
	return 0;
}

/* git's strbuf_stripspace() without comments: trailing blanks, runs of empty lines. */
static char *stripspace(const char *text)
{
	struct cursor c = { text, text + strlen(text) };
	struct buf out = BUF_INIT;
	const char *line;
	size_t n;
	int empties = 0;

	while (next_line(&c, &line, &n)) {
		while (n && isspace((unsigned char)line[n - 1]))
			n--;
		if (!n) {
			empties++;
			continue;
		}
		if (empties && out.len)
			buf_putc(&out, '\n');
		empties = 0;
		buf_put(&out, line, n);
		buf_putc(&out, '\n');
	}
	return buf_detach(&out);
}

static int apply_inbody(struct patch *p, struct msgstate *m)
{
	char *v = NULL;
	int error = 0;

	if (m->inbody[IB_FROM] && !(error = decode_header(&v, "in-body From", m->inbody[IB_FROM])))
		set_from(p, v);
	free(v), v = NULL;
	if (!error && m->inbody[IB_SUBJECT] &&
	    !(error = decode_header(&v, "in-body Subject", m->inbody[IB_SUBJECT]))) {
		int number = p->number, total = p->total, version = p->version;
		int is_reply = p->is_reply;

		/* The mail's numbering and reply-ness stay: the in-body subject is the commit's. */
		set_subject(p, v);
		p->number = number, p->total = total, p->version = version;
		p->is_reply = is_reply;
	}
	free(v), v = NULL;
	if (!error && m->inbody[IB_DATE])
		set_date(p, m->inbody[IB_DATE]);
	return error;
}

static int build_message(struct patch *p, const char *text)
{
	struct msgstate m = { BUF_INIT, BUF_INIT, 0, { NULL }, 1 };
	struct cursor c = { text, text + strlen(text) };
	struct buf msg = BUF_INIT;
	const char *line;
	size_t n, i;
	int error;

	while (next_line(&c, &line, &n) && !message_line(&m, line, n))
		;
	flush_accum(&m);
	error = apply_inbody(p, &m);
	buf_printf(&msg, "%s\n\n%s", p->subject ? p->subject : "(no subject)", buf_cstr(&m.log));
	p->message = stripspace(buf_cstr(&msg));
	/* A subject of only blanks leaves nothing, and a commit needs a message. */
	if (!*p->message) {
		free(p->message);
		p->message = xstrdup("(no subject)\n");
	}
	buf_release(&msg);
	buf_release(&m.log);
	buf_release(&m.accum);
	for (i = 0; i < IB_N; i++)
		free(m.inbody[i]);
	return error;
}

/* ---- the diff ---- */

static int is_hex_id(const char *s, size_t n)
{
	size_t i;

	if (n != 40 && n != 64)
		return 0;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return 0;
	return 1;
}

/* A "base-commit:" or "prerequisite-patch-id:" line (git format-patch --base); 1 if it was one. */
static int base_info_line(struct patch *p, const char *line, size_t len)
{
	static const char base[] = "base-commit: ", prereq[] = "prerequisite-patch-id: ";

	if (line_is(line, len, base) && is_hex_id(line + sizeof(base) - 1, len - (sizeof(base) - 1))) {
		free(p->base_commit);
		p->base_commit = xstrndup(line + sizeof(base) - 1, len - (sizeof(base) - 1));
		return 1;
	}
	if (line_is(line, len, prereq) &&
	    is_hex_id(line + sizeof(prereq) - 1, len - (sizeof(prereq) - 1))) {
		p->prereq_patch_ids = xrealloc(p->prereq_patch_ids,
					       (p->nprereq + 1) * sizeof(char *));
		p->prereq_patch_ids[p->nprereq++] =
			xstrndup(line + sizeof(prereq) - 1, len - (sizeof(prereq) - 1));
		return 1;
	}
	return 0;
}

static void scan_base_info(struct patch *p, const char *text, size_t len)
{
	struct cursor c = { text, text + len };
	const char *line;
	size_t n;

	while (next_line(&c, &line, &n))
		base_info_line(p, line, n);
}

/*
 * Whether the text after a "-- " line looks like a mail signature (a few
 * lines, none of them a diff line), not the rest of a hunk that removes a
 * line reading "- ".
 */
static int is_signature(const char *s, size_t len)
{
	struct cursor c = { s, s + len };
	const char *line;
	size_t n, lines = 0;

	while (next_line(&c, &line, &n)) {
		if (++lines > 4 || (n && strchr(" +-@\\", line[0])))
			return 0;
	}
	return 1;
}

/* Where the format-patch signature ("-- \n2.39.5\n") starts, len if none. */
static size_t signature_at(const char *diff, size_t len)
{
	size_t i;

	for (i = len; i >= 4; i--)
		if (!memcmp(diff + i - 4, "\n-- ", 4) && (i == len || diff[i] == '\n'))
			return is_signature(diff + i, len - i) ? i - 3 : len;
	return len;
}

/* Does the diff change anything: a hunk, a binary patch, a mode, a rename? */
static int diff_has_change(const char *diff, size_t len)
{
	static const char *const marks[] = { "@@ ", "GIT binary patch", "Binary files ",
		"new file mode ", "deleted file mode ", "old mode ", "rename from ",
		"copy from " };
	struct cursor c = { diff, diff + len };
	const char *line;
	size_t n, i;

	while (next_line(&c, &line, &n))
		for (i = 0; i < ARRAY_SIZE(marks); i++)
			if (line_is(line, n, marks[i]))
				return 1;
	return 0;
}

/* The diff without signature, base info lines and trailing empty lines; owned by p. */
static int finish_diff(struct patch *p, const struct buf *raw)
{
	struct cursor c = { buf_cstr(raw), buf_cstr(raw) + signature_at(buf_cstr(raw), raw->len) };
	struct buf d = BUF_INIT;
	const char *line;
	size_t n;
	int error;

	while (next_line(&c, &line, &n)) {
		if (base_info_line(p, line, n))
			continue;
		buf_put(&d, line, n);
		buf_putc(&d, '\n');
	}
	while (d.len >= 2 && d.ptr[d.len - 1] == '\n' && d.ptr[d.len - 2] == '\n')
		d.len--, d.ptr[d.len] = '\0';
	if (!diff_has_change(buf_cstr(&d), d.len)) {
		char *first = printable(buf_cstr(&d), d.len, 80);

		error = tide_error_set(TIDE_EINVAL, "the diff has no hunks (it starts '%s')", first);
		free(first);
		buf_release(&d);
		return error;
	}
	p->diff_len = d.len;
	p->owned = buf_detach(&d);
	p->diff = p->owned;
	return 0;
}

/* ---- one mail ---- */

static int is_header_line(const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < len && line[i] != ':'; i++)
		if (isspace((unsigned char)line[i]) || (unsigned char)line[i] < 33)
			return 0;
	return i > 0 && i < len;
}

/*
 * The mail as GMime should see it: no mbox "From " line, LF line ends
 * (git mailsplit).  Only a text whose first line ends in CR LF is taken
 * as sent with CR LF line ends, as patch(1) and the applier take a
 * mangled patch: in an LF text, a CR ending a line is content (a diff of
 * a CR LF file), kept as patch(1) keeps it.
 */
static int normalize(struct buf *out, const char *text, size_t len)
{
	struct cursor c = { text, text + len }, first;
	const char *line;
	size_t n;
	int crlf;

	if (line_is(text, len, "From "))
		next_line(&c, &line, &n);
	first = c;
	crlf = next_line(&first, &line, &n) && n && line[n - 1] == '\r';
	while (next_line(&c, &line, &n)) {
		if (crlf && n && line[n - 1] == '\r')
			n--;
		buf_put(out, line, n);
		buf_putc(out, '\n');
	}
	return crlf;
}

/*
 * DEP-3 (Debian's patch headers) when the mail ones are missing: Author
 * for From, Description for Subject, as gbp pq reads them.  The first
 * line of Description is the subject; its continuation lines (" ." an
 * empty one, as in debian/control) open the message.
 */
static int read_dep3(struct patch *p, GMimeObject *obj, struct body *b)
{
	GMimeHeaderList *list = g_mime_object_get_header_list(obj);
	GMimeHeader *h;
	const char *raw, *nl, *line, *end;
	char *first = NULL, *v = NULL;
	int error = 0;

	if (!p->author_name && (h = g_mime_header_list_get_header(list, "Author")) &&
	    (raw = g_mime_header_get_raw_value(h)) && !(error = decode_header(&v, "Author", raw)))
		set_from(p, v);
	free(v), v = NULL;
	if (error || p->subject || !(h = g_mime_header_list_get_header(list, "Description")) ||
	    !(raw = g_mime_header_get_raw_value(h)))
		return error;
	nl = strchr(raw, '\n');
	first = nl ? xstrndup(raw, (size_t)(nl - raw)) : xstrdup(raw);
	if (!(error = decode_header(&v, "Description", first)))
		set_subject(p, v);
	for (line = nl ? nl + 1 : NULL; !error && line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		end = nl ? nl : line + strlen(line);
		if (*line == ' ' || *line == '\t')
			line++;
		if (end - line == 1 && *line == '.')
			line = end;
		error = put_converted(&b->msg, line, (size_t)(end - line), "utf-8");
		buf_putc(&b->msg, '\n');
	}
	if (b->msg.len && !error)
		buf_putc(&b->msg, '\n');
	free(first);
	free(v);
	return error;
}

static int parse_headers_and_body(struct patch *p, struct body *b, const struct buf *mail)
{
	GMimeStream *stream = g_mime_stream_mem_new_with_buffer(buf_cstr(mail), mail->len);
	GMimeParser *parser = g_mime_parser_new_with_stream(stream);
	GMimeMessage *msg;
	GMimeObject *part;
	int error = 0;

	g_mime_parser_set_format(parser, GMIME_FORMAT_MESSAGE);
	msg = g_mime_parser_construct_message(parser, NULL);
	if (!msg) {
		error = tide_error_set(TIDE_EINVAL, "not a mail message");
		goto done;
	}
	if ((error = read_header(p, GMIME_OBJECT(msg), "From")) < 0 ||
	    (error = read_header(p, GMIME_OBJECT(msg), "Subject")) < 0 ||
	    (error = read_header(p, GMIME_OBJECT(msg), "Date")) < 0 ||
	    (error = read_dep3(p, GMIME_OBJECT(msg), b)) < 0)
		goto done;
	if ((part = g_mime_message_get_mime_part(msg)) != NULL)
		error = add_object(b, part, 0);
done:
	if (msg)
		g_object_unref(msg);
	g_object_unref(parser);
	g_object_unref(stream);
	return error;
}

/*
 * Where a file's header block ends without the blank line a mail has:
 * git mailinfo takes the first line that is neither a header nor a
 * header's continuation as the body's first line, and patch(1) starts
 * the diff at its first "--- "/"+++ " pair whatever text is above it.
 * Debian's DEP-3 headers ("Description:" with continuation lines) often
 * run straight into "--- a/...".  Returns the offset of that first body
 * line, or len when the headers end with a blank line (or the text).
 */
static size_t header_block_end(const char *text, size_t len)
{
	struct cursor c = { text, text + len };
	const char *line, *at = text;
	size_t n;
	int in_header = 0;

	while (next_line(&c, &line, &n)) {
		if (!n)
			return len;	/* the mail's own blank line */
		if (starts_diff(line, n, &c))
			return (size_t)(at - text);
		if (is_header_line(line, n))
			in_header = 1;
		else if (!(in_header && (line[0] == ' ' || line[0] == '\t')))
			return (size_t)(at - text);
		at = c.p;
	}
	return len;
}

/*
 * The blank line GMime needs between headers and body, where the file
 * has none (header_block_end()).
 */
static void end_headers(struct buf *mail)
{
	size_t at = header_block_end(buf_cstr(mail), mail->len);
	struct buf fixed = BUF_INIT;

	if (at >= mail->len)
		return;
	buf_put(&fixed, mail->ptr, at);
	buf_putc(&fixed, '\n');
	buf_put(&fixed, mail->ptr + at, mail->len - at);
	buf_release(mail);
	*mail = fixed;
}

/* A plain patch file (quilt): no headers, the text is the body. */
static void plain_body(struct body *b, const struct buf *mail)
{
	size_t at = diff_offset(buf_cstr(mail), mail->len);
	char *valid = g_utf8_make_valid(buf_cstr(mail), (gssize)at);

	buf_puts(&b->msg, valid);
	g_free(valid);
	if (at < mail->len)
		buf_put(&b->diff, mail->ptr + at, mail->len - at);
}

/* Parse a mail; without need_diff a mail with no diff (a cover letter, a reply) is fine. */
int patch_parse_mail(struct patch *out, const char *text, size_t len, int need_diff)
{
	struct body b = { BUF_INIT, BUF_INIT, 0, 0 };
	struct buf mail = BUF_INIT;
	const char *nl;
	int error = 0;

	memset(out, 0, sizeof(*out));
	if (len > PATCH_MAX_MESSAGE)
		return tide_error_set(TIDE_EINVAL, "mail of %zu bytes is over the %u MB limit",
				      len, PATCH_MAX_MESSAGE >> 20);
	patch_gmime_init();
	b.keep_cr = !normalize(&mail, text, len);
	nl = memchr(buf_cstr(&mail), '\n', mail.len);
	if (mail.len && is_header_line(mail.ptr, nl ? (size_t)(nl - mail.ptr) : mail.len)) {
		end_headers(&mail);
		error = parse_headers_and_body(out, &b, &mail);
	} else
		plain_body(&b, &mail);
	if (error < 0)
		goto done;
	scan_base_info(out, buf_cstr(&b.msg), b.msg.len);
	if ((error = build_message(out, buf_cstr(&b.msg))) < 0)
		goto done;
	if (b.diff.len)
		error = finish_diff(out, &b.diff);
	else if (need_diff)
		error = tide_error_set(TIDE_EINVAL, "no diff in patch");
done:
	if (error < 0)
		patch_release(out);
	buf_release(&mail);
	buf_release(&b.msg);
	buf_release(&b.diff);
	return error;
}

size_t patch_diff_lineno(const struct patch *p, const char *text, size_t len)
{
	/* Without its newline: a CRLF file has "\r\n" where the copy has "\n". */
	const char *nl = memchr(p->diff, '\n', p->diff_len), *at, *s;
	size_t first = nl ? (size_t)(nl - p->diff) : p->diff_len, n = 1;

	if (!first || !(at = memmem(text, len, p->diff, first)))
		return 1;
	for (s = text; s < at; s++)
		n += *s == '\n';
	return n;
}

int patch_parse(struct patch *out, const char *text, size_t len)
{
	return patch_parse_mail(out, text, len, 1);
}

void patch_release(struct patch *p)
{
	size_t i;

	if (!p)
		return;
	free(p->author_name);
	free(p->author_email);
	free(p->subject);
	free(p->raw_subject);
	free(p->message);
	free(p->base_commit);
	for (i = 0; i < p->nprereq; i++)
		free(p->prereq_patch_ids[i]);
	free(p->prereq_patch_ids);
	free(p->owned);
	memset(p, 0, sizeof(*p));
}
