#ifndef TIDE_EVENT_H
#define TIDE_EVENT_H

#include <stddef.h>

/*
 * What a stage tells the user while it works, typed: the renderer in
 * cmd/ decides from the severity what stays on a terminal and what only
 * redraws the status line, never from the words of the message.  The
 * message is one line without a newline, already free of URL passwords;
 * it names the tree itself where it has one, so it reads the same in
 * DIR/tide.log and on a cron job's stderr.
 */
enum event_kind {
	EVENT_FETCH,		/* fetching trees and the base */
	EVENT_MERGE,		/* merging a tree, up to date, left out */
	EVENT_CONFLICT,		/* a conflict: resolved, previous version, dropped */
	EVENT_FIXUP,		/* fixup patches after a merge */
	EVENT_CHECK,		/* fsck at the door: a refused tree */
	EVENT_BUILD,
	EVENT_BOOT,
	EVENT_RECORD,		/* the day recorded, tagged, reports, rr-cache sharing */
};

enum event_severity {
	EVENT_PROGRESS,		/* a step is starting or done: the status line */
	EVENT_INFO,		/* worth a line in the log, nothing to act on */
	EVENT_WARNING,		/* the day goes on, something older or partial was used */
	EVENT_PROBLEM,		/* a tree left out, a stage failed: someone must act */
};

struct event {
	enum event_kind kind;
	enum event_severity severity;
	const char *tree;	/* the tree it is about, or NULL */
	size_t done, total;	/* trees done so far, of total */
	const char *message;
	/*
	 * A redraw of the status line only (a count going up while a kernel
	 * compiles): a terminal shows it, a log and tide.log leave it out.
	 */
	int redraw;
};

/* Where a stage sends its events; fn NULL: nowhere. */
struct event_sink {
	void (*fn)(void *data, const struct event *ev);
	void *data;
};

#define EVENT_SINK_INIT { NULL, NULL }

void event_emit(const struct event_sink *sink, const struct event *ev);

/*
 * Emit an event whose message is printf-style, with any URL password
 * taken out (events name trees and quote messages).  done and total are
 * 0: a sink that counts trees fills them in.
 */
void event_emitf(const struct event_sink *sink, enum event_kind kind,
		 enum event_severity severity, const char *tree, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* event_emitf() of an EVENT_PROGRESS event that only redraws the status line. */
void event_redrawf(const struct event_sink *sink, enum event_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "fetch", "merge", ...; "warning", "problem", ...: for logs and JSON. */
const char *event_kind_name(enum event_kind kind);
const char *event_severity_name(enum event_severity severity);

/* Does an event of this severity stay on a terminal (not just the status line)? */
int event_stays(enum event_severity severity);

#endif
