/*
 * The parsers of the commit checks (checks.h): Fixes: tags and
 * Signed-off-by lines of a commit message.  Pure: no repository, no
 * allocation beyond the result, bounded by the message's length and
 * CHECKS_MAX_*.  The rules are those of linux-next's check_fixes and
 * verify_signedoff scripts, in code of our own.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "checks.h"
#include "text.h"
#include "util.h"

static const char *const problem_names[FIXES_NPROBLEMS] = {
	"extra-word", "leading-word", "no-sha", "no-subject", "no-space", "short-sha",
	"no-closing-parenthesis", "no-closing-quote", "not-found", "ambiguous",
	"not-a-commit", "not-in-day", "subject-mismatch",
};

static const char *const problem_texts[FIXES_NPROBLEMS] = {
	"the word \"Fixes:\" is there twice",
	"the word before the SHA1 is not expected",
	"no SHA1 recognised",
	"no subject after the SHA1",
	"no space between the SHA1 and the subject",
	"the SHA1 has fewer than 12 digits",
	"the subject opens a parenthesis it does not close",
	"the subject opens a quote it does not close",
	"no object has this SHA1",
	"more than one object starts with this SHA1",
	"the SHA1 names something that is not a commit",
	"the target commit is neither in the day nor in mainline",
	"the subject is not the target commit's subject",
};

static int bit_index(unsigned bit)
{
	int i;

	for (i = 0; i < FIXES_NPROBLEMS; i++)
		if (bit == 1u << i)
			return i;
	return -1;
}

const char *fixes_problem_name(unsigned bit)
{
	int i = bit_index(bit);

	return i < 0 ? NULL : problem_names[i];
}

const char *fixes_problem_text(unsigned bit)
{
	int i = bit_index(bit);

	return i < 0 ? NULL : problem_texts[i];
}

unsigned fixes_problem_parse(const char *name)
{
	int i;

	for (i = 0; name && i < FIXES_NPROBLEMS; i++)
		if (!strcmp(name, problem_names[i]))
			return 1u << i;
	return 0;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* s[0..*len) without the white space at both ends. */
static const char *trim(const char *s, size_t *len)
{
	while (*len && is_space(*s))
		s++, (*len)--;
	while (*len && is_space(s[*len - 1]))
		(*len)--;
	return s;
}

static int starts_nocase(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	return len >= n && !strncasecmp(s, word, n);
}

static size_t hex_run(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && isxdigit((unsigned char)s[i]); i++)
		;
	return i;
}

/* UTF-8 of the opening and closing quotes check_fixes knows. */
static const char *const quote_pairs[][2] = {
	{ "\"", "\"" }, { "\xe2\x80\x9c", "\xe2\x80\x9d" },
	{ "'", "'" }, { "\xe2\x80\x98", "\xe2\x80\x99" },
};

/*
 * The subject between its parentheses, then between its quotes (matching
 * pairs; a straight quote may close a curly one of the same kind, as
 * check_fixes' patterns allow), noting what was opened and not closed.
 */
static char *reduce_subject(const char *s, size_t len, unsigned *problems)
{
	const char *close;
	size_t i, j, ol, cl;

	s = trim(s, &len);
	if (len && s[0] == '(') {
		close = len > 1 ? memrchr(s + 1, ')', len - 1) : NULL;
		if (close) {
			len = (size_t)(close - s) - 1;
		} else {
			len--;
			*problems |= FIXES_NO_CLOSING_PAREN;
		}
		s++;
	}
	for (i = 0; i < ARRAY_SIZE(quote_pairs); i++) {
		ol = strlen(quote_pairs[i][0]);
		if (len < ol || memcmp(s, quote_pairs[i][0], ol))
			continue;
		for (j = i & ~1u; j < (i & ~1u) + 2; j++) {
			cl = strlen(quote_pairs[j][1]);
			if (len >= ol + cl && !memcmp(s + len - cl, quote_pairs[j][1], cl))
				break;
		}
		if (j < (i & ~1u) + 2) {
			s += ol;
			len -= ol + strlen(quote_pairs[j][1]);
		} else {
			s += ol;
			len -= ol;
			*problems |= FIXES_NO_CLOSING_QUOTE;
		}
		break;
	}
	s = trim(s, &len);
	return xstrndup(s, len);
}

/* One tag: f[0..len) is what follows "Fixes:". */
static void parse_tag(struct fixes_tag *t, const char *f, size_t len)
{
	size_t n, rest;

	f = trim(f, &len);
	if (starts_nocase(f, len, "fixes:")) {
		t->problems |= FIXES_EXTRA_WORD;
		f += 6, len -= 6;
		f = trim(f, &len);
	}
	if (starts_nocase(f, len, "commit")) {
		size_t skip = 6;

		while (skip < len && is_space(f[skip]))
			skip++;
		if (hex_run(f + skip, len - skip) >= 5) {
			t->problems |= FIXES_LEADING_WORD;
			f += skip, len -= skip;
		}
	}
	n = hex_run(f, len);
	if (n < 5) {
		t->problems |= FIXES_NO_SHA;
		return;
	}
	t->sha = xstrndup(f, n > 64 ? 64 : n);
	if (n < 12)
		t->problems |= FIXES_SHORT_SHA;
	for (rest = n; rest < len && is_space(f[rest]); rest++)
		;
	if (rest == len)
		t->problems |= FIXES_NO_SUBJECT;
	else if (rest == n)
		t->problems |= FIXES_NO_SPACE;
	if (rest < len)
		t->subject = reduce_subject(f + rest, len - rest, &t->problems);
}

static void add_tag(struct fixes_list *out, const char *line, size_t len)
{
	struct fixes_tag *t;
	struct buf shown = BUF_INIT;

	out->total++;
	if (out->n >= CHECKS_MAX_FIXES)
		return;
	out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
	t = &out->v[out->n++];
	memset(t, 0, sizeof(*t));
	utf8_lossy(&shown, line, len > CHECKS_MAX_LINE ? CHECKS_MAX_LINE : len);
	if (shown.len > CHECKS_MAX_LINE) {
		size_t cut = CHECKS_MAX_LINE;

		/* on a character boundary: the first byte left out starts a character */
		while (cut && ((unsigned char)shown.ptr[cut] & 0xc0) == 0x80)
			cut--;
		buf_truncate(&shown, cut);
	}
	t->line = buf_detach(&shown);
	parse_tag(t, line + 6, len - 6);
	/* The subject compared is made UTF-8 too: the target's subject is. */
	if (t->subject && !utf8_valid(t->subject, strlen(t->subject))) {
		struct buf b = BUF_INIT;

		utf8_lossy(&b, t->subject, strlen(t->subject));
		free(t->subject);
		t->subject = buf_detach(&b);
	}
}

void fixes_parse(struct fixes_list *out, const char *msg, size_t len)
{
	const char *p = msg, *end = msg + len, *nl;

	memset(out, 0, sizeof(*out));
	/* The subject is no tag, even of a tree called "fixes" ("fixes: ..."). */
	nl = memchr(p, '\n', len);
	p = nl ? nl + 1 : end;
	for (; p < end; p = nl + 1) {
		size_t n;
		const char *line;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		n = (size_t)(nl - p);
		line = trim(p, &n);
		if (starts_nocase(line, n, "fixes:"))
			add_tag(out, line, n);
	}
}

void fixes_list_release(struct fixes_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].line);
		free(l->v[i].sha);
		free(l->v[i].subject);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* s (len bytes) compared with the same number of bytes of t at its start or end. */
static int part_equal(const char *s, size_t slen, const char *t, size_t tlen, int at_end)
{
	if (slen > tlen)
		return 0;
	return !memcmp(s, at_end ? t + tlen - slen : t, slen);
}

int fixes_subject_matches(const char *quoted, const char *target)
{
	size_t qlen = strlen(quoted), tlen = strlen(target), l1, l2;
	const char *q = trim(quoted, &qlen), *t = trim(target, &tlen), *mid;

	if (qlen >= 3 && !memcmp(q + qlen - 3, "...", 3)) {
		qlen -= 3;
		q = trim(q, &qlen);
		return part_equal(q, qlen, t, tlen, 0);
	}
	if (qlen >= 3 && !memcmp(q, "...", 3)) {
		q += 3, qlen -= 3;
		q = trim(q, &qlen);
		return part_equal(q, qlen, t, tlen, 1);
	}
	if (qlen >= 5 && (mid = memmem(q, qlen, " ... ", 5))) {
		const char *last = mid, *m;

		/* the part before the last " ... " and the part after the first */
		while ((m = memmem(last + 1, qlen - (size_t)(last + 1 - q), " ... ", 5)))
			last = m;
		l1 = (size_t)(last - q);
		l2 = qlen - (size_t)(mid + 5 - q);
		return l1 + l2 <= tlen && part_equal(q, l1, t, tlen, 0) &&
		       part_equal(mid + 5, l2, t, tlen, 1);
	}
	return part_equal(q, qlen, t, tlen, 0);
}

/* ---- Signed-off-by ---- */

static int same_nocase(const char *a, size_t alen, const char *b)
{
	size_t blen;

	if (!b)
		return 0;
	blen = strlen(b);
	b = trim(b, &blen);
	return alen && alen == blen && !strncasecmp(a, b, alen);
}

/* Does the line's "Name <address>" name p? */
static int names(const char *name, size_t nlen, const char *addr, size_t alen,
		 const struct person *p)
{
	if (!p)
		return 0;
	return (addr && same_nocase(addr, alen, p->email)) || same_nocase(name, nlen, p->name);
}

static unsigned signoff_line(const char *v, size_t len, const struct person *a,
			     const struct person *am, const struct person *c,
			     const struct person *cm)
{
	const char *lt = memchr(v, '<', len), *gt, *addr = NULL;
	size_t nlen = lt ? (size_t)(lt - v) : len, alen = 0;
	const char *name = trim(v, &nlen);
	unsigned found = 0;

	if (lt && (gt = memchr(lt, '>', len - (size_t)(lt - v)))) {
		addr = lt + 1;
		alen = (size_t)(gt - addr);
		addr = trim(addr, &alen);
	}
	if (names(name, nlen, addr, alen, a) || names(name, nlen, addr, alen, am))
		found |= SIGNOFF_AUTHOR;
	if (names(name, nlen, addr, alen, c) || names(name, nlen, addr, alen, cm))
		found |= SIGNOFF_COMMITTER;
	return found;
}

unsigned signoff_missing(const char *msg, size_t len, const struct person *author,
			 const struct person *author_mapped, const struct person *committer,
			 const struct person *committer_mapped)
{
	const char *p = msg, *end = msg + len, *nl;
	unsigned found = 0;
	size_t seen = 0;

	for (; p < end && seen < CHECKS_MAX_SIGNOFFS; p = nl + 1) {
		size_t n;
		const char *line;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		n = (size_t)(nl - p);
		line = trim(p, &n);
		if (!starts_nocase(line, n, "signed-off-by:"))
			continue;
		seen++;
		found |= signoff_line(line + 14, n - 14, author, author_mapped, committer,
				      committer_mapped);
	}
	return (SIGNOFF_AUTHOR | SIGNOFF_COMMITTER) & ~found;
}
