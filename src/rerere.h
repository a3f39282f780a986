#ifndef TIDE_RERERE_H
#define TIDE_RERERE_H

#include <stddef.h>
#include <time.h>

#include "buf.h"

/*
 * Recorded resolutions in git rerere's rr-cache layout, so that a
 * directory written by `git rerere` is usable by tide and the other way
 * round:
 *
 *     STORE/<id>/preimage, postimage        the first resolution of a conflict
 *     STORE/<id>/preimage.N, postimage.N    further variants (same id)
 *
 * The id is computed exactly as git's rerere.c does: every top-level
 * conflict hunk, with marker labels and any diff3 base section dropped
 * and its two sides sorted bytewise, feeds "side1 NUL side2 NUL" into one
 * SHA-1 per file.  Like `git rerere gc`, the mtime of a postimage is its
 * last-used date: applying a resolution touches it, expiry reads it.
 */

#define RERERE_ID_LEN 40

/*
 * Normalize a conflicted file: preimage (may be NULL) gets the text with
 * bare markers and sorted sides, id the hex SHA-1 (41 bytes).  Returns the
 * number of conflict hunks (0: no conflict, id is then meaningless) or
 * TIDE_EINVAL for unbalanced markers.
 */
int rerere_normalize(struct buf *preimage, char *id, const char *text, size_t len);

/* Non-zero if text still holds a line starting with a conflict marker. */
int rerere_has_markers(const char *text, size_t len);

/*
 * Record resolved as the resolution of the conflicted text.  Reuses a
 * variant with the same preimage, else adds the next free variant.  id
 * (41 bytes) receives the conflict id; variant (may be NULL) its number
 * (0 for plain "preimage").
 */
int rerere_record(const char *store, const char *conflicted, size_t clen,
		  const char *resolved, size_t rlen, char *id, int *variant);

/*
 * Replay a recorded resolution on a conflicted text, as git does: if the
 * normalized text equals a variant's preimage take its postimage, else a
 * three-way merge preimage -> postimage onto the text.  Returns 0 with
 * out holding the resolved text (no markers left), TIDE_ENOTFOUND when no
 * entry exists, TIDE_ECONFLICT when entries exist but none applies
 * anymore, TIDE_EINVAL when the entry is corrupt (message says which).
 * id gets the conflict id in every case where the text has conflicts.
 */
int rerere_apply(struct buf *out, char *id, const char *store,
		 const char *conflicted, size_t clen);

/*
 * Remove resolutions not used for more than days days before now (the
 * postimage's mtime), and entries with no postimage older than that.
 * *removed (may be NULL) counts removed variants.
 */
int rerere_expire(const char *store, int days, time_t now, size_t *removed);

/*
 * Share the store as a branch of a git repository (like the DRM
 * maintainers' rerere-cache): fetch replaces the store's entries by the
 * branch's (keeping local-only ones), push commits the store as the
 * branch's new tip (parent: the fetched tip) and pushes it.  cache is a
 * private bare repository used for the transfer.
 */
int rerere_share_fetch(const char *store, const char *cache, const char *url,
		       const char *branch);
int rerere_share_push(const char *store, const char *cache, const char *url,
		      const char *branch);

/* The raw SHA-1 of data as 40 hex digits plus NUL (exposed for tests). */
void rerere_sha1_hex(char *hex, const void *data, size_t len);

#endif
