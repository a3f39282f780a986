/* Typed events from the stages (event.h). */
#include <stdarg.h>

#include "buf.h"
#include "event.h"
#include "text.h"

void event_emit(const struct event_sink *sink, const struct event *ev)
{
	if (sink && sink->fn)
		sink->fn(sink->data, ev);
}

static void emit_v(const struct event_sink *sink, struct event *ev, const char *fmt, va_list ap)
{
	struct buf raw = BUF_INIT, line = BUF_INIT;

	buf_vprintf(&raw, fmt, ap);
	text_redact(&line, buf_cstr(&raw));
	ev->message = buf_cstr(&line);
	event_emit(sink, ev);
	buf_release(&raw);
	buf_release(&line);
}

void event_redrawf(const struct event_sink *sink, enum event_kind kind, const char *fmt, ...)
{
	struct event ev = { kind, EVENT_PROGRESS, NULL, 0, 0, NULL, 1 };
	va_list ap;

	if (!sink || !sink->fn)
		return;
	va_start(ap, fmt);
	emit_v(sink, &ev, fmt, ap);
	va_end(ap);
}

void event_emitf(const struct event_sink *sink, enum event_kind kind,
		 enum event_severity severity, const char *tree, const char *fmt, ...)
{
	struct event ev = { kind, severity, tree, 0, 0, NULL, 0 };
	va_list ap;

	if (!sink || !sink->fn)
		return;
	va_start(ap, fmt);
	emit_v(sink, &ev, fmt, ap);
	va_end(ap);
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
