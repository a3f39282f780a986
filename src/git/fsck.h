#ifndef TIDE_FSCK_H
#define TIDE_FSCK_H

#include <stddef.h>
#include <stdint.h>
#include <git2.h>

/*
 * Objects checked at the door, as `git fsck` and git's verify_path() do:
 * a fetched tree whose tree objects name an entry "..", "a/b", ".git" (in
 * any spelling NTFS or HFS+ would take for it) or carry a mode git does
 * not write must never reach a merge, a checkout or a resolution worktree.
 */

/*
 * Is name (len bytes, any bytes at all) with raw tree-entry mode fine as
 * one entry of a tree?  0 if so; TIDE_EINVAL with *why set to a static
 * reason if not.  Pure: no tide_error_set(), no allocation, so a fuzzer
 * and the checkout can call it on anything.
 *
 * Modes allowed: 040000, 100644, 100755, 120000, 160000, and the legacy
 * 100664 of 2005-era trees, which `git fsck` accepts unless --strict and
 * which libgit2 reads as 100644.
 */
int fsck_entry_name(const char *name, size_t len, unsigned int mode, const char **why);

/*
 * Append name (len bytes) as it may be shown and stored in day.json (UTF-8
 * JSON): control bytes, bytes above 0x7e, the quote and the backslash as
 * \xNN.
 */
struct buf;
void fsck_quote(struct buf *out, const char *name, size_t len);

/*
 * The objects already found good.  A tree's OID names its content, and a
 * tree is only added once everything below it was checked (with its
 * height: the most levels of entries it holds, so a tree met again deeper
 * down is still held to the depth limit); a commit only once its tree
 * and its history down to what was known then were.  So an object in the
 * set needs no second look, today or on any later day.
 */
struct fsck_rec {
	git_oid id;
	uint32_t height;	/* trees: 1 + the tallest subtree's; commits: 0; blobs: FSCK_BLOB */
};

/*
 * A blob found present and a blob.  Kept like the trees: the first tree
 * of each fetched tree repeats its fork point's hundreds of files, each
 * looked up in the pack (its delta's header inflated) by every tree of
 * the day, which was most of the door check's time on git.git.  An entry
 * of one type naming a record of another is not taken as checked.
 */
#define FSCK_BLOB UINT32_MAX

struct fsck_seen {
	unsigned char *sorted;	/* loaded from the file: FSCK_REC_SIZE bytes a record, by id */
	size_t nsorted;
	struct fsck_rec *recs;	/* today's additions, in the order made */
	size_t nadded, alloc;
	uint32_t *slots;	/* open-addressing hash of recs: index + 1, 0 empty */
	size_t cap;
	char *path;		/* where the set is kept; NULL: memory only */
	/* The deepest path (in components) a tree may hold; 0: FSCK_MAX_DEPTH. */
	unsigned max_depth;
};

#define FSCK_SEEN_INIT { NULL, 0, NULL, 0, 0, NULL, 0, NULL, 0 }
#define FSCK_REC_SIZE (GIT_OID_RAWSZ + 4)
/* git's core.maxTreeDepth: "a/b/cde/f" is 4 deep. */
#define FSCK_MAX_DEPTH 4096

/*
 * Load the set kept at path (NULL: start empty, keep nothing).  A missing
 * or damaged file is an empty set: that only costs a longer walk.
 */
void fsck_seen_load(struct fsck_seen *seen, const char *path);
/* Write the set back (atomically) if objects were added. */
int fsck_seen_save(struct fsck_seen *seen);
void fsck_seen_release(struct fsck_seen *seen);
int fsck_seen_has(const struct fsck_seen *seen, const git_oid *id);
/* Add a record found good elsewhere (another process's recs). */
void fsck_seen_put(struct fsck_seen *seen, const git_oid *id, uint32_t height);

/*
 * Check every entry of the tree of commit (a commit or a tree OID),
 * walking the tree without recursion, skipping trees in seen (may be
 * NULL) and adding those found good: names and modes (fsck_entry_name()),
 * git's order, every blob and tree an entry names present and of that
 * type, no path deeper than seen->max_depth.  TIDE_EINVAL with
 * "refusing path 'drivers/gpio/..': <why>" recorded when something is
 * wrong or an object cannot be read; TIDE_ENOTFOUND when the commit is
 * missing.  Time is bounded by the caller (the merge stage runs it in a
 * process it can stop).
 */
int fsck_tree(struct fsck_seen *seen, git_repository *repo, const git_oid *commit);

/*
 * The door check of a tip, like git's connectivity check after a fetch:
 * every commit reachable from tip and not from the known commits (the
 * base) nor already in seen must exist and parse, and its tree pass
 * fsck_tree().  The commits are added to seen when all passed.
 * TIDE_EINVAL with what is wrong: "cannot be read: <libgit2's reason>"
 * or "refusing path ..." for tip itself, "commit 1234abcd5678 of its
 * history cannot be read: ..." or "commit 1234abcd5678 of its history:
 * refusing path ..." for an older commit.
 */
int fsck_history(struct fsck_seen *seen, git_repository *repo, const git_oid *tip,
		 const git_oid *known, size_t nknown);

#endif
