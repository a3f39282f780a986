#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <git2.h>

#include "error.h"
#include "text.h"

static _Thread_local char last_msg[4096];
static _Thread_local int last_code;

/*
 * Messages end up on stderr, in tide.log and in day.json, and libgit2's
 * and curl's messages quote the URL they were given, password and all:
 * redact it here, once, for every message, before the message is cut to
 * size (a URL cut inside its password would no longer look like one).
 */
static int record(int code, const char *suffix, const char *fmt, va_list ap)
{
	struct buf raw = BUF_INIT, clean = BUF_INIT;

	buf_vprintf(&raw, fmt, ap);
	if (suffix && *suffix)
		buf_printf(&raw, ": %s", suffix);
	text_redact(&clean, buf_cstr(&raw));
	/* A message that does not fit is cut; it stays terminated. */
	snprintf(last_msg, sizeof(last_msg), "%s", buf_cstr(&clean));
	buf_release(&raw);
	buf_release(&clean);
	last_code = code;
	return code;
}

int tide_error_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(code, NULL, fmt, ap);
	va_end(ap);
	return code;
}

int tide_error_git(int code, const char *fmt, ...)
{
	const git_error *e = git_error_last();
	va_list ap;

	va_start(ap, fmt);
	record(code, e && e->message ? e->message : "unknown libgit2 error",
	       fmt, ap);
	va_end(ap);
	return code;
}

int tide_error_errno(int code, const char *fmt, ...)
{
	const char *msg = strerror(errno);
	va_list ap;

	va_start(ap, fmt);
	record(code, msg, fmt, ap);
	va_end(ap);
	return code;
}

int tide_error_wrap(int code, const char *fmt, ...)
{
	char old[sizeof(last_msg)];
	va_list ap;

	/* fmt's arguments may point into last_msg: keep a copy first. */
	memcpy(old, last_msg, sizeof(old));
	va_start(ap, fmt);
	record(code, old, fmt, ap);
	va_end(ap);
	return code;
}

const char *tide_error_last(void)
{
	return last_msg[0] ? last_msg : "unknown error";
}

int tide_error_code(void)
{
	return last_code;
}

void tide_error_clear(void)
{
	last_msg[0] = '\0';
	last_code = 0;
}
