#ifndef TIDE_KTAP_H
#define TIDE_KTAP_H

#include <stddef.h>

/*
 * A parser for KTAP version 1 (and the older "TAP version 14" that KUnit
 * printed, with "ok N - name") as it appears on a kernel console: several
 * documents one after the other, kernel messages with "[    1.234567] "
 * timestamps in between and in the middle, subtests at any indentation,
 * plans that do not match, documents cut off by a crash.
 */

enum ktap_directive {
	KTAP_NONE = 0,
	KTAP_SKIP,
	KTAP_TODO,
	KTAP_XFAIL,
	KTAP_TIMEOUT,
	KTAP_ERROR,
};

struct ktap_node {
	char *name;		/* from the result line (or "# Subtest:") */
	int number;		/* N of "ok N", 0 if none */
	int ok;
	int has_result;		/* 0: the output ended before its result line */
	enum ktap_directive directive;
	char *reason;		/* text after the directive, or NULL */
	char **diag;		/* "# ..." lines before the result, without "# " */
	size_t ndiag, diag_alloc;
	int plan;		/* "1..N" of its subtests, -1 if none */
	struct ktap_node *children;
	size_t nchildren, children_alloc;
};

/*
 * One top-level document of the console: the kernel's KUnit results at
 * boot, then the guest program's.  Its tests are root.children[first]
 * to [first + count - 1].
 */
struct ktap_doc {
	char *header;		/* its first "# " line before any result, or NULL */
	size_t first, count;
	int plan;		/* its "1..N", -1 if none */
};

struct ktap_result {
	struct ktap_node root;	/* children: top-level tests of every document */
	/* One per "KTAP version" / "TAP version" line at top level, in console order. */
	struct ktap_doc *docs;
	size_t ndocs, docs_alloc;
	char **problems;	/* plan mismatches, missing results, ... */
	size_t nproblems, problems_alloc;
};

/* Parse console text (any bytes; NULs and non-ASCII become '?'). */
void ktap_parse(struct ktap_result *out, const char *text, size_t len);
void ktap_result_release(struct ktap_result *res);

/* A result that counts as a failure: not ok (unless TODO/SKIP), TIMEOUT,
 * ERROR, or no result line at all. */
int ktap_node_failed(const struct ktap_node *n);
const char *ktap_directive_name(enum ktap_directive d);

/* Visit every node depth first with its dotted path ("gpio.edge_events"). */
typedef int (*ktap_visit_fn)(const struct ktap_node *n, const char *path,
			     int depth, void *data);
int ktap_walk(const struct ktap_result *res, ktap_visit_fn fn, void *data);

#endif
