#ifndef TIDE_GITBIN_H
#define TIDE_GITBIN_H

#include <stddef.h>

#include "buf.h"

/*
 * The pieces of git's "GIT binary patch" format: base85 lines (a length
 * character 'A'-'Z' = 1..26, 'a'-'z' = 27..52 bytes, then 5 characters per
 * 4 bytes) carrying zlib data that inflates to a literal blob or to a git
 * delta (two sizes, then copy and insert instructions).  The input is
 * untrusted: every length is checked against the data.
 */

/* Largest blob a binary patch may produce. */
#define GITBIN_MAX_SIZE (512u << 20)

/*
 * Decode the base85 lines text[0..len) (each ending in '\n') and inflate
 * them to exactly size bytes into out.  lineno names text's first line
 * in messages.
 */
int gitbin_decode(struct buf *out, const char *text, size_t len, size_t size,
		  size_t lineno);

/* Apply a git delta to src, into out. */
int gitbin_delta_apply(struct buf *out, const char *src, size_t srclen,
		       const char *delta, size_t dlen);

#endif
