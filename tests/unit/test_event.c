#include <string.h>

#include "t.h"
#include "event.h"

struct seen {
	int n;
	struct event last;
};

static void record(void *data, const struct event *ev)
{
	struct seen *s = data;

	s->n++;
	s->last = *ev;
}

TEST(event__emit_reaches_the_sink_unchanged)
{
	struct seen s = { 0 };
	struct event_sink sink = { record, &s };
	struct event ev = { EVENT_MERGE, EVENT_PROGRESS, "conflict-fixes", 2, 5,
			    "conflict-fixes: merged", 0 };

	event_emit(&sink, &ev);
	CHECK_INT(s.n, 1);
	CHECK_INT(s.last.kind, EVENT_MERGE);
	CHECK_INT(s.last.severity, EVENT_PROGRESS);
	CHECK_STR(s.last.tree, "conflict-fixes");
	CHECK_INT((int)s.last.done, 2);
	CHECK_INT((int)s.last.total, 5);
}

/* No sink, or one without a function: nothing is called, its data untouched. */
TEST(event__no_sink_is_nowhere)
{
	struct seen s = { 0 };
	struct event_sink none = EVENT_SINK_INIT, no_fn = { NULL, &s }, sink = { record, &s };
	struct event ev = { EVENT_FETCH, EVENT_PROBLEM, NULL, 0, 0, "fetch x failed", 0 };

	event_emit(&none, &ev);
	event_emit(NULL, &ev);
	event_emit(&no_fn, &ev);
	event_emitf(&no_fn, EVENT_FETCH, EVENT_PROBLEM, "x", "fetch %s failed", "x");
	event_redrawf(&no_fn, EVENT_FETCH, "nowhere");
	CHECK_INT(s.n, 0);
	CHECK_STR(ev.message, "fetch x failed");
	/* The same event does reach a sink that has a function. */
	event_emit(&sink, &ev);
	CHECK_INT(s.n, 1);
	CHECK_STR(s.last.message, "fetch x failed");
	CHECK_INT(s.last.severity, EVENT_PROBLEM);
}

/* A redraw is a progress event marked so, its message redacted like any other. */
TEST(event__redraw_is_marked)
{
	struct seen s = { 0 };
	struct event_sink sink = { record, &s };

	event_redrawf(&sink, EVENT_BUILD, "smoke: compiling, %d objects", 12);
	CHECK_INT(s.n, 1);
	CHECK_INT(s.last.redraw, 1);
	CHECK_INT(s.last.severity, EVENT_PROGRESS);
	CHECK_INT(s.last.kind, EVENT_BUILD);
	event_emitf(&sink, EVENT_BUILD, EVENT_PROGRESS, NULL, "smoke: linked");
	CHECK_INT(s.last.redraw, 0);
	event_redrawf(NULL, EVENT_BUILD, "nowhere");
	CHECK_INT(s.n, 2);
}

TEST(event__severity_not_words_decides_what_stays)
{
	CHECK_INT(event_stays(EVENT_PROGRESS), 0);
	CHECK_INT(event_stays(EVENT_INFO), 0);
	CHECK_INT(event_stays(EVENT_WARNING), 1);
	CHECK_INT(event_stays(EVENT_PROBLEM), 1);
}

TEST(event__names)
{
	CHECK_STR(event_kind_name(EVENT_CONFLICT), "conflict");
	CHECK_STR(event_kind_name(EVENT_RECORD), "record");
	CHECK_STR(event_kind_name((enum event_kind)99), "?");
	CHECK_STR(event_severity_name(EVENT_WARNING), "warning");
	CHECK_STR(event_severity_name((enum event_severity)-1), "?");
}

TESTS(event__emit_reaches_the_sink_unchanged, event__no_sink_is_nowhere,
      event__redraw_is_marked, event__severity_not_words_decides_what_stays, event__names)
