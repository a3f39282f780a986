#include <ctype.h>
#include <stdarg.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "util.h"

/*
 * An open level of nesting: the node whose subtests are being read and
 * the indentation of their lines.  Diagnostics wait in `node`'s pending
 * child until the result they precede arrives.
 */
struct frame {
	struct ktap_node *node;	/* owned by the frame until its result attaches it */
	int indent;
	struct ktap_node pending;	/* diagnostics for the next result */
};

struct parser {
	struct ktap_result *res;
	struct frame *stack;
	size_t depth, alloc;	/* stack[0] is the document (res->root) */
	int doc_results, doc_plan;	/* the current top-level document */
};

static void node_init(struct ktap_node *n)
{
	memset(n, 0, sizeof(*n));
	n->plan = -1;
}

static void node_release(struct ktap_node *n)
{
	size_t i;

	for (i = 0; i < n->nchildren; i++)
		node_release(&n->children[i]);
	for (i = 0; i < n->ndiag; i++)
		free(n->diag[i]);
	free(n->children);
	free(n->diag);
	free(n->name);
	free(n->reason);
}

static void add_diag(struct ktap_node *n, const char *text)
{
	array_grow(&n->diag, &n->diag_alloc, n->ndiag + 1, sizeof(*n->diag));
	n->diag[n->ndiag++] = xstrdup(text);
}

static void problem(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void problem(struct parser *p, const char *fmt, ...)
{
	struct ktap_result *r = p->res;
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	array_grow(&r->problems, &r->problems_alloc, r->nproblems + 1,
		   sizeof(*r->problems));
	r->problems[r->nproblems++] = buf_detach(&b);
}

/* Move n (by value) into parent's children; returns the stored copy. */
static struct ktap_node *adopt(struct ktap_node *parent, struct ktap_node *n)
{
	array_grow(&parent->children, &parent->children_alloc,
		   parent->nchildren + 1, sizeof(*parent->children));
	parent->children[parent->nchildren] = *n;
	node_init(n);
	return &parent->children[parent->nchildren++];
}

static struct frame *top(struct parser *p)
{
	return &p->stack[p->depth - 1];
}

static void push(struct parser *p, int indent, char *name)
{
	struct frame *f;

	array_grow(&p->stack, &p->alloc, p->depth + 1, sizeof(*p->stack));
	f = &p->stack[p->depth++];
	f->node = xmalloc(sizeof(*f->node));
	node_init(f->node);
	node_init(&f->pending);
	f->node->name = name;
	f->indent = indent;
}

/* Check a finished level's plan against what it holds. */
static void check_plan(struct parser *p, const struct ktap_node *n)
{
	if (n->plan >= 0 && (size_t)n->plan != n->nchildren)
		problem(p, "'%s' planned %d tests, has %zu results",
			n->name ? n->name : "?", n->plan, n->nchildren);
}

/*
 * Close the innermost subtest.  With res == NULL the output ended (or
 * an outer result came) without its result line: it is kept as a failed,
 * result-less node so the crash or hang stays visible.
 */
static void pop(struct parser *p, struct ktap_node *result)
{
	struct frame *f = top(p);
	struct ktap_node *parent = p->stack[p->depth - 2].node, *n = f->node;
	size_t i;

	for (i = 0; i < f->pending.ndiag; i++)
		add_diag(n, f->pending.diag[i]);
	node_release(&f->pending);
	node_init(&f->pending);
	if (result) {
		free(n->name);
		n->name = result->name;
		n->number = result->number;
		n->ok = result->ok;
		n->directive = result->directive;
		n->reason = result->reason;
		n->has_result = 1;
		for (i = 0; i < result->ndiag; i++)
			add_diag(n, result->diag[i]);
		result->name = result->reason = NULL;
	} else {
		problem(p, "'%s' has no result line", n->name ? n->name : "?");
	}
	check_plan(p, n);
	adopt(parent, n);
	free(n);
	p->depth--;
}

static enum ktap_directive parse_directive(const char *s, const char **rest)
{
	static const struct { const char *word; enum ktap_directive d; } dirs[] = {
		{ "SKIP", KTAP_SKIP }, { "TODO", KTAP_TODO }, { "XFAIL", KTAP_XFAIL },
		{ "TIMEOUT", KTAP_TIMEOUT }, { "ERROR", KTAP_ERROR },
	};
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		len = strlen(dirs[i].word);
		if (!strncasecmp(s, dirs[i].word, len) &&
		    (!s[len] || isspace((unsigned char)s[len]))) {
			*rest = s + len;
			return dirs[i].d;
		}
	}
	return KTAP_NONE;
}

/* "ok N [- ]name [# DIRECTIVE reason]" into n; 0 if the line is not one. */
static int parse_result(struct ktap_node *n, const char *s)
{
	const char *hash, *rest;
	char *end;
	long num;
	int ok;

	if (!strncmp(s, "ok ", 3) || !strcmp(s, "ok"))
		ok = 1, s += 2;
	else if (!strncmp(s, "not ok ", 7) || !strcmp(s, "not ok"))
		ok = 0, s += 6;
	else
		return 0;
	while (*s == ' ')
		s++;
	num = strtol(s, &end, 10);
	if (end == s)
		return 0;
	s = end;
	while (*s == ' ')
		s++;
	if (s[0] == '-' && s[1] == ' ')
		s += 2;
	node_init(n);
	n->ok = ok;
	n->number = (int)num;
	hash = strstr(s, " # ");
	if (!hash && s[0] == '#' && s[1] == ' ')
		hash = s - 1;
	if (hash && (n->directive = parse_directive(hash + 3, &rest)) != KTAP_NONE) {
		while (*rest == ' ')
			rest++;
		n->reason = *rest ? xstrdup(rest) : NULL;
		n->name = hash >= s ? xstrndup(s, hash - s) : xstrdup("");
	} else {
		n->name = xstrdup(s);
	}
	str_rtrim(n->name);
	return 1;
}

/* Close every open subtest deeper than indent (a result or a document
 * less indented means their output ended). */
static void close_deeper(struct parser *p, int indent)
{
	while (p->depth > 1 && top(p)->indent > indent)
		pop(p, NULL);
}

/* The deepest open level whose lines are not more indented than indent. */
static struct frame *frame_for(struct parser *p, int indent)
{
	size_t i = p->depth;

	while (i > 1 && p->stack[i - 1].indent > indent)
		i--;
	return &p->stack[i - 1];
}

static void take_pending(struct ktap_node *n, struct frame *f)
{
	size_t i;

	for (i = 0; i < f->pending.ndiag; i++)
		add_diag(n, f->pending.diag[i]);
	node_release(&f->pending);
	node_init(&f->pending);
}

static void on_result(struct parser *p, int indent, const char *s)
{
	struct ktap_node n;

	if (!parse_result(&n, s))
		return;
	n.has_result = 1;
	if (p->depth > 1 && top(p)->indent > indent) {
		/* Less indented than the open subtest: that subtest's result
		 * (and anything deeper never got one). */
		while (p->depth > 2 && p->stack[p->depth - 2].indent > indent)
			pop(p, NULL);
		take_pending(&n, &p->stack[p->depth - 2]);
		pop(p, &n);
	} else {
		take_pending(&n, top(p));
		adopt(top(p)->node, &n);
	}
	node_release(&n);
	if (p->depth == 1)
		p->doc_results++;
}

static void end_document(struct parser *p)
{
	struct ktap_doc *doc = p->res->ndocs ? &p->res->docs[p->res->ndocs - 1] : NULL;

	close_deeper(p, -1);
	if (doc) {
		doc->count = p->res->root.nchildren - doc->first;
		doc->plan = p->doc_plan;
	}
	if (doc && p->doc_plan >= 0 && p->doc_plan != p->doc_results)
		problem(p, "document %zu planned %d tests, has %d results",
			p->res->ndocs, p->doc_plan, p->doc_results);
	node_release(&p->stack[0].pending);
	node_init(&p->stack[0].pending);
	p->doc_plan = -1;
	p->doc_results = 0;
}

/* Just opened by "# Subtest:" (the order some kernels print). */
static int fresh_level(struct parser *p, int indent)
{
	struct ktap_node *n = top(p)->node;

	return p->depth > 1 && top(p)->indent == indent && n->name &&
	       !n->nchildren && n->plan < 0;
}

static void on_version(struct parser *p, int indent)
{
	/* At the top level, or less indented than any open subtest: a new
	 * document (the kernel's KUnit one, then init's). */
	if (indent == 0 || (p->depth > 1 && indent < p->stack[1].indent)) {
		struct ktap_doc *doc;

		end_document(p);
		array_grow(&p->res->docs, &p->res->docs_alloc, p->res->ndocs + 1,
			   sizeof(*p->res->docs));
		doc = &p->res->docs[p->res->ndocs++];
		memset(doc, 0, sizeof(*doc));
		doc->first = p->res->root.nchildren;
		doc->plan = -1;
		return;
	}
	if (fresh_level(p, indent))
		return;
	close_deeper(p, indent - 1);
	push(p, indent, NULL);
}

static void on_subtest(struct parser *p, int indent, const char *name)
{
	struct frame *f = top(p);

	if (p->depth > 1 && f->indent == indent && !f->node->name &&
	    !f->node->nchildren) {
		f->node->name = xstrdup(name);	/* KTAP: after "KTAP version" */
		return;
	}
	/* TAP 14: "# Subtest:" comes first and opens the level. */
	if (indent > 0 && indent > f->indent)
		push(p, indent, xstrdup(name));
}

static void on_plan(struct parser *p, int indent, int n)
{
	struct frame *f = frame_for(p, indent);

	if (f == &p->stack[0]) {
		if (indent == 0)
			p->doc_plan = n;
	} else if (f->indent == indent) {
		f->node->plan = n;
	}
}

static void on_diag(struct parser *p, int indent, const char *text)
{
	struct frame *f = frame_for(p, indent);
	struct ktap_doc *doc = p->res->ndocs ? &p->res->docs[p->res->ndocs - 1] : NULL;

	/* "# tide smoke tests on ...": the document's header, before its first result. */
	if (f == &p->stack[0] && indent == 0 && doc && !doc->header && !p->doc_results &&
	    p->depth == 1 && *text)
		doc->header = xstrdup(text);
	add_diag(&f->pending, text);
}

/* Strip a printk timestamp "[    1.234567] " (kernel lines). */
static const char *skip_timestamp(const char *s)
{
	const char *q = s;

	if (*q != '[')
		return s;
	q++;
	while (*q == ' ')
		q++;
	if (!isdigit((unsigned char)*q))
		return s;
	while (isdigit((unsigned char)*q) || *q == '.')
		q++;
	if (*q != ']')
		return s;
	q++;
	return *q == ' ' ? q + 1 : q;
}

static void on_line(struct parser *p, char *line)
{
	const char *s = skip_timestamp(line);
	int indent = 0, n;
	size_t i;
	char *end;

	/* A tab counts 8 columns but is one byte: i walks the bytes.  Past a
	 * million columns all indents are equal (no int overflow). */
	for (i = 0; (s[i] == ' ' || s[i] == '\t') && indent < 1000000; i++)
		indent += s[i] == '\t' ? 8 : 1;
	s += strspn(s, " \t");
	str_rtrim((char *)s);
	if (!strcmp(s, "KTAP version 1") || !strcmp(s, "TAP version 14") ||
	    !strcmp(s, "TAP version 13"))
		on_version(p, indent);
	else if (!strncmp(s, "# Subtest: ", 11))
		on_subtest(p, indent, s + 11);
	else if (!strncmp(s, "1..", 3) && (n = (int)strtol(s + 3, &end, 10)) >= 0 &&
		 end != s + 3 && !*end)
		on_plan(p, indent, n);
	else if (s[0] == '#')
		on_diag(p, indent, s[1] == ' ' ? s + 2 : s + 1);
	else if (!strncmp(s, "ok", 2) || !strncmp(s, "not ok", 6))
		on_result(p, indent, s);
}

/* Console bytes to printable ASCII, so names and diagnostics are JSON-safe. */
static void clean_line(struct buf *out, const char *s, size_t len)
{
	size_t i;

	buf_clear(out);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\r')
			continue;
		buf_putc(out, c == '\t' || (c >= 0x20 && c < 0x7f) ? (char)c : '?');
	}
}

/*
 * The kernel writes its messages to the UART directly while a process's
 * console output waits in the tty buffer, so a message can cut into the
 * middle of a KTAP line: "    ok 1 chip[    1.2] msg" then "_info".  The
 * offset of such a timestamp in a line that is not itself a kernel
 * message, or 0.
 */
static size_t cut_at(const char *s)
{
	const char *q = s;

	/* The search below starts after s[0]: an empty line has nothing there. */
	if (!*s || skip_timestamp(s) != s)
		return 0;
	while ((q = strchr(q + 1, '[')))
		if (skip_timestamp(q) != q)
			return (size_t)(q - s);
	return 0;
}

/* Could s[0..len) be the start of a KTAP line (not, say, BIOS output)? */
static int looks_like_ktap(const char *s, size_t len)
{
	static const char *const starts[] = { "ok", "not ok", "#", "KTAP", "TAP", "1.." };
	size_t i, ws = strspn(s, " \t");

	if (ws >= len)
		return 1;
	s += ws;
	len -= ws;
	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		size_t n = strlen(starts[i]);

		if (!strncmp(s, starts[i], len < n ? len : n))
			return 1;
	}
	return 0;
}

/* One console line; carry holds the start of a line a message cut. */
static void feed(struct parser *p, struct buf *line, struct buf *carry)
{
	const char *s = buf_cstr(line);
	size_t at;

	if (carry->len && skip_timestamp(s) == s) {
		buf_puts(carry, s);
		buf_clear(line);
		buf_puts(line, carry->ptr);
		buf_clear(carry);
		s = line->ptr;
	}
	if ((at = cut_at(s)) > 0 && looks_like_ktap(s, at)) {
		buf_put(carry, s, at);
		s += at;
	}
	on_line(p, (char *)s);
}

void ktap_parse(struct ktap_result *out, const char *text, size_t len)
{
	struct parser p = { out, NULL, 0, 0, 0, -1 };
	struct buf line = BUF_INIT, carry = BUF_INIT;
	size_t i = 0, j;

	memset(out, 0, sizeof(*out));
	node_init(&out->root);
	array_grow(&p.stack, &p.alloc, 1, sizeof(*p.stack));
	p.stack[0].node = &out->root;
	p.stack[0].indent = 0;
	node_init(&p.stack[0].pending);
	p.depth = 1;
	while (i < len) {
		for (j = i; j < len && text[j] != '\n'; j++)
			;
		clean_line(&line, text + i, j - i);
		feed(&p, &line, &carry);
		i = j + 1;
	}
	end_document(&p);
	node_release(&p.stack[0].pending);
	free(p.stack);
	buf_release(&line);
	buf_release(&carry);
}

void ktap_result_release(struct ktap_result *res)
{
	size_t i;

	node_release(&res->root);
	for (i = 0; i < res->nproblems; i++)
		free(res->problems[i]);
	free(res->problems);
	for (i = 0; i < res->ndocs; i++)
		free(res->docs[i].header);
	free(res->docs);
	memset(res, 0, sizeof(*res));
}

int ktap_node_failed(const struct ktap_node *n)
{
	if (!n->has_result)
		return 1;
	if (n->directive == KTAP_TIMEOUT || n->directive == KTAP_ERROR)
		return 1;
	return !n->ok && n->directive != KTAP_TODO && n->directive != KTAP_SKIP &&
	       n->directive != KTAP_XFAIL;
}

const char *ktap_directive_name(enum ktap_directive d)
{
	static const char *const names[] = {
		NULL, "SKIP", "TODO", "XFAIL", "TIMEOUT", "ERROR",
	};

	return (unsigned)d < ARRAY_SIZE(names) ? names[d] : NULL;
}

static int walk(const struct ktap_node *n, struct buf *path, int depth,
		ktap_visit_fn fn, void *data)
{
	size_t i, keep = path->len;
	int error = 0;

	for (i = 0; i < n->nchildren && !error; i++) {
		const struct ktap_node *c = &n->children[i];

		buf_truncate(path, keep);
		if (keep)
			buf_putc(path, '.');
		buf_puts(path, c->name && *c->name ? c->name : "?");
		if ((error = fn(c, path->ptr, depth, data)) == 0)
			error = walk(c, path, depth + 1, fn, data);
	}
	buf_truncate(path, keep);
	return error;
}

int ktap_walk(const struct ktap_result *res, ktap_visit_fn fn, void *data)
{
	struct buf path = BUF_INIT;
	int error;

	buf_grow(&path, 64);
	error = walk(&res->root, &path, 0, fn, data);
	buf_release(&path);
	return error;
}
