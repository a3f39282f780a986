#ifndef TIDE_BUF_H
#define TIDE_BUF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * A growable, always NUL-terminated byte buffer (in the spirit of git's
 * strbuf).  Allocation failure aborts: there is nothing sensible a nightly
 * integration run can do without memory, and every caller checking it
 * would hide the real logic.
 */
struct buf {
	char *ptr;
	size_t len;
	size_t cap;
};

#define BUF_INIT { NULL, 0, 0 }

void buf_grow(struct buf *b, size_t extra);
void buf_put(struct buf *b, const void *data, size_t len);
void buf_puts(struct buf *b, const char *s);
void buf_putc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
void buf_truncate(struct buf *b, size_t len);
void buf_clear(struct buf *b);
/* Return the string (never NULL) and reset b; the caller frees it. */
char *buf_detach(struct buf *b);
void buf_release(struct buf *b);
/* The contents as a C string; "" for an empty, never-grown buffer. */
const char *buf_cstr(const struct buf *b);

#endif
