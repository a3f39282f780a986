#ifndef TIDE_FSCK_H
#define TIDE_FSCK_H

#include <stddef.h>
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
 * The tree objects already found good.  A tree's OID names its content,
 * and a tree is only added once everything below it was checked, so a
 * tree in the set needs no second look, today or on any later day.
 */
struct fsck_seen {
	unsigned char *sorted;	/* loaded from the file: GIT_OID_RAWSZ records, ascending */
	size_t nsorted;
	git_oid *added;		/* open-addressing hash set of today's additions */
	size_t nadded, cap;
	char *path;		/* where the set is kept; NULL: memory only */
};

#define FSCK_SEEN_INIT { NULL, 0, NULL, 0, 0, NULL }

/*
 * Load the set kept at path (NULL: start empty, keep nothing).  A missing
 * or damaged file is an empty set: that only costs a longer walk.
 */
void fsck_seen_load(struct fsck_seen *seen, const char *path);
/* Write the set back (atomically) if trees were added. */
int fsck_seen_save(struct fsck_seen *seen);
void fsck_seen_release(struct fsck_seen *seen);
int fsck_seen_has(const struct fsck_seen *seen, const git_oid *id);

/*
 * Check every entry of the tree of commit (a commit or a tree OID),
 * recursively, skipping trees in seen (may be NULL) and adding those
 * found good.  TIDE_EINVAL with "refusing path 'drivers/gpio/..': <why>"
 * recorded when an entry is bad or a tree object cannot be parsed;
 * TIDE_ENOTFOUND when the commit is missing.
 */
int fsck_tree(struct fsck_seen *seen, git_repository *repo, const git_oid *commit);

#endif
