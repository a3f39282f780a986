#ifndef TIDE_HISTORY_H
#define TIDE_HISTORY_H

#include <stddef.h>
#include <git2.h>

/*
 * The day's history contract (docs/design.md, "The day's history"): a
 * day is its base, then on the first-parent chain, per tree in merge
 * order, one merge commit (second parent: the tree's tip) followed by
 * the tree's fixup commits (one parent each), then the commit adding the
 * Next/ files.  Every merge and fixup commit names its tree in a
 * "Tide-Tree:" trailer; a merge of a tree's previous version also has
 * "Tide-Version-From: DATE".  run writes this; bisect, build, try and
 * resolve read it, all through this file.
 */

/*
 * The message of the merge of tree (what: "branch" or "remote-tracking
 * branch", label: the ref as shown), with its trailers; version_from is
 * the day whose version of the tree was merged, or NULL.
 */
char *history_merge_message(const char *what, const char *label, const char *tree,
			    const char *version_from);

/* The message of a merge bisect makes to test a state, with its trailer. */
char *history_bisect_message(const char *tree, const git_oid *tip);

/* "Tide-Tree: NAME", the trailer a tree's fixup commits carry. */
char *history_tree_trailer(const char *tree);

/*
 * Write a commit of the day: tree with nparents (at most 2) parents,
 * sig as author and committer, message as given (history_merge_message()
 * for a merge, with its trailers).  The objects are checked as written
 * (merge_object_written()).
 */
int history_commit(git_oid *out, git_repository *repo, const git_signature *sig,
		   const git_oid *tree_id, const git_oid *const *parent_ids, size_t nparents,
		   const char *message);

/* The tree a commit belongs to (its "Tide-Tree:" trailer), or NULL. */
char *history_tree_of(const git_commit *c);

/* The day a merged previous version came from ("Tide-Version-From:"), or NULL. */
char *history_version_from(const git_commit *c);

/*
 * The first-parent commits of tip not reachable from hide (NULL: down
 * to the root), oldest first, into a new array.
 */
int history_first_parents(git_oid **out, size_t *n, git_repository *repo,
			  const git_oid *tip, const git_oid *hide);

struct day;
struct day_tree;

/*
 * The state tree dt of day d was merged onto: the last merge before it on
 * the first-parent chain (after that tree's fixups, if any), or the base.
 */
int history_state_before(git_oid *out, const struct day *d, const struct day_tree *dt);

/* A commit id as 40 hex digits, a new string. */
char *history_oid_hex(const git_oid *oid);

/*
 * The patch id of commit against its first parent (libgit2's
 * git_diff_patchid(), white space ignored as git patch-id does): how the
 * day-against-day comparisons tell a rebased commit from a new one.
 */
int history_patch_id(git_oid *out, git_repository *repo, const git_oid *commit);

/* The 12-digit abbreviation merge.log and the events show, into out[13]. */
void history_oid_abbrev(char *out, const git_oid *oid);

#endif
