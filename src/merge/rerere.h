#ifndef TIDE_RERERE_H
#define TIDE_RERERE_H

#include <stddef.h>
#include <time.h>
#include <git2.h>

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
 * Bounds on what the store may make tide read: every file of it is read
 * as untrusted input (src/safefs.h: no link followed, no FIFO or device,
 * nothing bigger than RERERE_MAX_FILE), and variant numbers past
 * RERERE_MAX_VARIANTS are not looked at.
 */
#define RERERE_MAX_FILE (64u << 20)
#define RERERE_MAX_VARIANTS 100

/*
 * Every function taking a marker_size reads markers of exactly that many
 * characters, the file's conflict-marker-size (src/attr.h; 0 is git's 7),
 * as git's rerere does: with 32, a line of seven '<' is text.
 */

/*
 * Normalize a conflicted file: preimage (may be NULL) gets the text with
 * bare markers (of marker_size) and sorted sides, id the hex SHA-1 (41
 * bytes), which does not depend on the marker size.  Returns the number
 * of conflict hunks (0: no conflict, id is then meaningless) or
 * TIDE_EINVAL for unbalanced markers.
 */
int rerere_normalize(struct buf *preimage, char *id, const char *text, size_t len,
		     int marker_size);

/* Non-zero if text still holds a "<<<<<<< label" or ">>>>>>> label" line. */
int rerere_has_markers(const char *text, size_t len, int marker_size);

/*
 * The marker size of a conflict hunk as a report holds it (it starts with
 * its "<<<<<<< label" line): the length of that run of '<', else 7.
 */
int rerere_marker_size_of(const char *hunk, size_t len);

/*
 * Record resolved as the resolution of the conflicted text.  Reuses a
 * variant with the same preimage, else adds the next free variant.  id
 * (41 bytes) receives the conflict id; variant (may be NULL) its number
 * (0 for plain "preimage").
 */
int rerere_record(const char *store, const char *conflicted, size_t clen,
		  const char *resolved, size_t rlen, int marker_size, char *id, int *variant);

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
		 const char *conflicted, size_t clen, int marker_size);

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

/*
 * The workspace's sharing and expiry settings, DIR/rerere.conf:
 *     share=URL#BRANCH     a git repository branch holding the store
 *     expire-days=N        drop resolutions unused for N days (default 60, 0: never)
 * rerere_sync_before() fetches the shared store into DIR/rr-cache;
 * rerere_sync_after() expires old entries and pushes the store back.
 * Without a rerere.conf, after only expires (default days).  done (may
 * be NULL) gets one line per action, for the run's log.
 */
int rerere_sync_before(const char *wsdir, struct buf *done);
int rerere_sync_after(const char *wsdir, struct buf *done);

/*
 * A resolution worktree for a person: the whole merge of theirs into ours
 * checked out into dir, markers in the conflicted files (sized by ours'
 * .gitattributes, as git writes them; files keep their mode), and dir a
 * git repository in the middle of that merge (src/worktree.h), with the
 * preimages and MERGE_RR git rerere expects after a conflicted merge; a
 * copy of each conflicted file under dir/.tide/conflicts/ plus the list
 * dir/.tide/files ("SIZE<TAB>PATH" lines, SIZE the marker size).
 * out->nfiles gets the number of files with text conflicts written; other
 * conflicts (modify/delete ...) are listed in dir/.tide/other and cannot be
 * recorded.  out->known lists the files store (may be NULL) already has a
 * resolution for, and what it does: a look, which does not count as a
 * use for expiry.  An existing dir is replaced.
 */
struct rerere_known {
	char *path;
	char id[RERERE_ID_LEN + 1];
	int applies;		/* it resolves the conflict as checked out */
	int replaces;		/* recorded for exactly this conflict: --record replaces it */
	char *text;		/* applies: its diff (conflicted -> resolved); else why not */
};

struct rerere_worktree {
	size_t nfiles;
	struct rerere_known *known;
	size_t nknown;
};

int rerere_worktree_prepare(struct rerere_worktree *out, git_repository *repo, const char *dir,
			    const char *store, const git_oid *ours, const git_oid *theirs,
			    const char *ours_label, const char *theirs_label);
void rerere_worktree_release(struct rerere_worktree *wt);

/*
 * Record the person's fixes from such a worktree into store.  Each file
 * must be free of conflict markers of its size (TIDE_EINVAL naming it
 * otherwise, and nothing is recorded).  ids (may be NULL) gets one "ID PATH" line per file.
 */
int rerere_worktree_record(struct buf *ids, const char *dir, const char *store);

/*
 * Replay recorded resolutions on a merge's result (the tree with markers,
 * as merge_commits() writes it, each conflict's marker_size).  One outcome per conflict: the id, and
 * either the resolution as a diff (conflicted -> resolved) or why it was
 * not resolved.  Returns 1 with *out_tree set when every conflict was
 * resolved, 0 when some was not, or a TIDE_E* code when the repository
 * failed.
 */
struct rerere_outcome {
	char *path;
	char id[RERERE_ID_LEN + 1];	/* "" if the file had no text conflict */
	int resolved;
	char *diff;		/* resolved: the unified diff */
	char *error;		/* not resolved: why (no entry, corrupt, stale, ...) */
	int missing;		/* not resolved because there is no entry at all */
};

struct merge_conflict;
int rerere_resolve_merge(git_oid *out_tree, struct rerere_outcome **outcomes, size_t *n,
			 git_repository *repo, const git_oid *merged_tree,
			 const struct merge_conflict *conflicts, size_t nconflicts,
			 const char *store);
void rerere_outcomes_free(struct rerere_outcome *o, size_t n);

/* The raw SHA-1 of data as 40 hex digits plus NUL (exposed for tests). */
void rerere_sha1_hex(char *hex, const void *data, size_t len);

#endif
