#ifndef TIDE_TEXT_H
#define TIDE_TEXT_H

#include <stddef.h>

#include <jansson.h>

#include "buf.h"

/*
 * Text tide did not write itself: commit subjects and authors, file
 * names, hunks, console lines, messages of libgit2 and curl, URLs from
 * trees.conf.  Anything from these that reaches JSON, a log or a
 * terminal goes through here first, so one bad byte can neither crash a
 * run (jansson refuses invalid UTF-8) nor silently drop a value, and a
 * password in a URL is never written anywhere.
 */

/* 1 if s[0..len) is well-formed UTF-8 (RFC 3629) with no NUL byte. */
int utf8_valid(const char *s, size_t len);
/*
 * Append s[0..len) to out, each byte that is not part of a well-formed
 * UTF-8 sequence (and each NUL) replaced by U+FFFD.
 */
void utf8_lossy(struct buf *out, const char *s, size_t len);

/* A JSON string of s with invalid UTF-8 replaced; JSON null for NULL.  Never NULL. */
json_t *json_text(const char *s);
/* The same for s[0..len), which may hold NUL bytes (they become U+FFFD). */
json_t *json_textn(const char *s, size_t len);
/* json_text() of a formatted string (jansson's json_sprintf() returns NULL on bad bytes). */
json_t *json_text_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* o's key as a string: NULL when o is no object, or key is missing or no string. */
const char *json_str(const json_t *o, const char *key);
/* The same, dflt instead of NULL. */
const char *json_str_or(const json_t *o, const char *key, const char *dflt);

/*
 * Append s[0..len), written in charset (a commit's "encoding" header),
 * to out as UTF-8.  NULL, "" and UTF-8 mean UTF-8.  When iconv does not
 * know the charset or the text is not valid in it, the bytes are kept
 * with the invalid ones replaced: the text is never dropped.
 */
void text_decode(struct buf *out, const char *s, size_t len, const char *charset);

/*
 * A commit's summary line and "Name <email>" author, in UTF-8 decoded
 * from the commit's encoding header (git_commit_message_encoding()).
 * Never NULL; the caller frees.
 */
struct git_commit;
struct git_mailmap;
char *commit_summary_utf8(struct git_commit *c);
char *commit_author_utf8(const struct git_commit *c, const struct git_mailmap *mm);

/* "scheme://user:PASSWORD@host/..." -> "scheme://user:***@host/..."; a copy. */
char *url_redact(const char *url);
/* The URL without any userinfo ("scheme://host/..."), for Next/Trees; a copy. */
char *url_strip_userinfo(const char *url);
/* Append text to out with the password of every URL in it redacted. */
void text_redact(struct buf *out, const char *text);
/* Append text to out with the whole userinfo of every URL in it removed. */
void text_strip_userinfo(struct buf *out, const char *text);

/* Append s to out for a message: printable ASCII as is, other bytes as \xNN. */
void text_escape(struct buf *out, const char *s);

/*
 * Is name one component of a git reference name, in printable ASCII?
 * git check-ref-format's rules for a component: no control characters,
 * space, ~ ^ : ? * [ \ or /, no "..", no "@{", not "@", not starting
 * with "." or "-", not ending in "." or ".lock"; and not empty.
 */
int ref_component_valid(const char *name);

#endif
