/* Typed events from the stages (event.h). */
#include "event.h"

void event_emit(const struct event_sink *sink, const struct event *ev)
{
	if (sink && sink->fn)
		sink->fn(sink->data, ev);
}

const char *event_kind_name(enum event_kind kind)
{
	static const char *const names[] = {
		[EVENT_FETCH] = "fetch", [EVENT_MERGE] = "merge", [EVENT_CONFLICT] = "conflict",
		[EVENT_FIXUP] = "fixup", [EVENT_CHECK] = "check", [EVENT_BUILD] = "build",
		[EVENT_BOOT] = "boot", [EVENT_RECORD] = "record",
	};

	return (unsigned)kind < sizeof(names) / sizeof(names[0]) && names[kind] ? names[kind] : "?";
}

const char *event_severity_name(enum event_severity severity)
{
	static const char *const names[] = {
		[EVENT_PROGRESS] = "progress", [EVENT_INFO] = "info",
		[EVENT_WARNING] = "warning", [EVENT_PROBLEM] = "problem",
	};

	return (unsigned)severity < sizeof(names) / sizeof(names[0]) ? names[severity] : "?";
}

int event_stays(enum event_severity severity)
{
	return severity >= EVENT_WARNING;
}
