#ifndef TIDE_MERGE_H
#define TIDE_MERGE_H

#include <stddef.h>
#include <git2.h>

/*
 * An in-memory three-way merge of git trees that never builds a full index:
 * subtrees equal on both sides, or changed on one side only, are taken by
 * OID without descending (merge-ort's trivial directory resolution).  The
 * result tree (with conflict markers in conflicted files, as
 * `git merge-tree --write-tree` writes it) is written to the repository.
 */
enum merge_conflict_kind {
	MERGE_CONFLICT_CONTENT,		/* both modified, hunks overlap */
	MERGE_CONFLICT_ADD_ADD,		/* both added different contents */
	MERGE_CONFLICT_MODIFY_DELETE,	/* one modified, the other deleted */
	MERGE_CONFLICT_FILE_DIRECTORY,	/* a file on one side, a directory on the other */
	MERGE_CONFLICT_MODE,		/* incompatible mode changes (e.g. file vs symlink) */
	MERGE_CONFLICT_BINARY,		/* both modified a binary file */
	MERGE_CONFLICT_RENAME,		/* rename/rename, rename/delete ... */
	MERGE_CONFLICT_SUBMODULE,
	/*
	 * A path the other side added (or renamed to) in a directory that
	 * one side renamed, placed at the directory's new name (git's
	 * "file location", merge.directoryRenames=conflict).
	 */
	MERGE_CONFLICT_LOCATION,
	/*
	 * A directory rename git cannot apply (split without a majority,
	 * several paths renamed onto one, a path in the way): no stages,
	 * path is the directory or the target path, and merge-tree lists
	 * no file for it (git lists only paths with index stages).
	 */
	MERGE_CONFLICT_DIR_RENAME,
};

struct merge_conflict {
	char *path;			/* path in the result tree */
	enum merge_conflict_kind kind;
	/* The three stages; a zero OID (git_oid_is_zero) where absent. */
	git_oid base, ours, theirs;
	unsigned base_mode, ours_mode, theirs_mode;
	char *base_path, *ours_path, *theirs_path;	/* differ under renames */
	int nhunks;			/* conflict hunks in the merged text */
	/* Text conflicts: the size of the markers written (conflict-marker-size), else 0. */
	int marker_size;
};

struct merge_opts {
	const char *ours_label;		/* conflict marker labels; default "ours" */
	const char *theirs_label;	/* default "theirs" */
	int find_renames;		/* default 1: like merge-ort */
	/*
	 * The merge bases of ours and theirs when the caller has them (count
	 * 0: unrelated histories), else NULL.  Finding them walks the history
	 * back to the common ancestors: in an integration tree that is every
	 * earlier merge of the day, so a caller that needs them anyway passes
	 * them rather than walking twice.
	 */
	const git_oidarray *bases;
	/*
	 * Content limits (0: the defaults).  A file over big_file_threshold
	 * bytes on any side is not merged by lines but handled as a binary
	 * file (a conflict keeping ours), without being read; so is a merge
	 * whose texts, result and line tables would need more than
	 * content_budget bytes (xmerge_cost()).
	 */
	size_t big_file_threshold;
	size_t content_budget;
	/*
	 * Conflict markers of this size for every path, and no attributes
	 * read; 0: each path's conflict-marker-size (7 without one) and merge
	 * driver (binary, union or text: src/attr.h) from attr_commit.  Twice
	 * the depth is added inside virtual bases.
	 */
	int marker_size;
	/*
	 * The commit whose .gitattributes give each path's conflict marker
	 * size and merge driver (conflict-marker-size, merge=; src/attr.h),
	 * as git's merge in a checkout of ours reads them.  NULL:
	 * merge_commits() takes ours, merge_trees() git's defaults (7, text).
	 */
	const git_oid *attr_commit;
	/*
	 * merge.renameLimit: inexact renames are looked for only while
	 * sources times destinations stay within its square.  0: git's
	 * default, 7000; negative: no limit (git's 0 and -1).
	 */
	int rename_limit;
};

#define MERGE_BIG_FILE_DEFAULT ((size_t)512 << 20)	/* git's core.bigFileThreshold */
#define MERGE_CONTENT_BUDGET_DEFAULT ((size_t)512 << 20)

/*
 * The content limits of every merge whose merge_opts leave them 0 (like
 * git's core.bigFileThreshold, a process-wide setting: cmd/ sets it from
 * tide-config(5)); 0 keeps the current value.
 */
void merge_set_limits(size_t big_file_threshold, size_t content_budget);

/*
 * Whether a line diff of blobs a and b (NULL or zero: none) would pass
 * those limits: callers (the diffstat) then show the pair as binary, as
 * git shows files over core.bigFileThreshold.  The sizes are set from the
 * objects' headers; only texts near the budget are read, to count lines.
 */
int merge_diff_over_limits(git_repository *repo, const git_oid *a, const git_oid *b,
			   size_t *size_a, size_t *size_b);

#define MERGE_OPTS_INIT { NULL, NULL, 1, NULL, 0, 0, 0, NULL, 0 }

struct merge_result {
	git_oid tree;			/* the written result tree */
	struct merge_conflict *conflicts;	/* sorted by path, as git lists them */
	size_t nconflicts;
	/* Counters, so tests and benchmarks can show no full-tree walk happened. */
	size_t trees_read;
	size_t trees_written;
	size_t blobs_merged;
	/*
	 * Paths where the result differs from ours (files, or directories
	 * taken whole from theirs), sorted; a superset is possible.  As a
	 * git_diff pathlist (GIT_DIFF_DISABLE_PATHSPEC_MATCH) they make the
	 * diffstat of a merge cost what the merge changed: a full
	 * git_diff_tree_to_tree of two kernel trees reads every tree (~0.4 s).
	 */
	char **changed;
	size_t nchanged;
	/*
	 * What the merge could not do as asked and did as git does instead
	 * (rename detection past merge.renameLimit keeps exact and same-name
	 * renames only), one sentence each, for the caller to report with
	 * the tree's name.  The result is still the merge git makes.
	 */
	char **warnings;
	size_t nwarnings;
};

/* Merge two commits; several merge bases are merged recursively first. */
int merge_commits(struct merge_result *out, git_repository *repo,
		  const git_commit *ours, const git_commit *theirs,
		  const struct merge_opts *opts);
/* Merge trees with an explicit base tree (NULL for no common ancestor). */
int merge_trees(struct merge_result *out, git_repository *repo,
		const git_tree *base, const git_tree *ours, const git_tree *theirs,
		const struct merge_opts *opts);
void merge_result_clear(struct merge_result *res);

/*
 * Optional: keep the objects written through repo's object database
 * (merge results, merge commits) in memory, and write them as one pack
 * at merge_objects_flush().  Where creating a file is slow, the loose
 * objects of hundreds of merges cost more than the merges.  Flush before
 * any ref points at a new object; objects written after a flush stay in
 * memory until the next one (the memory backend cannot be detached).
 */
struct merge_objects;
int merge_objects_begin(struct merge_objects **out, git_repository *repo);
int merge_objects_flush(struct merge_objects *mo);
void merge_objects_free(struct merge_objects *mo);
const char *merge_conflict_kind_name(enum merge_conflict_kind kind);

/*
 * Check that object id, just written to repo, is there.  libgit2 1.5's
 * git_odb_write() can return success when its loose write failed (the
 * streaming retry drops the error), and a full disk then surfaced much
 * later as "object not found".  write_errno is errno right after the
 * write; the message names the objects directory and the system's error
 * ("no space left on device").  Returns 0 or TIDE_EIO.
 */
int merge_object_written(git_repository *repo, const git_oid *id, int write_errno,
			 const char *what);

/*
 * The conflicted regions of each of the n paths in a merged tree, markers
 * included: each "<<<<<<<" .. ">>>>>>>" region of paths[i] is passed to
 * add(payload, i, hunk), in order; its markers are of exactly
 * marker_sizes[i] characters (the conflict's marker_size, 0 for 7; NULL
 * for 7 everywhere), so lines of seven '<' in a file with
 * conflict-marker-size 32 stay text.  Nothing for a path or blob that is
 * missing (the conflict is then not a text one).  One pass over the
 * tree: each directory is read once, however many paths it holds.
 */
void merge_conflict_hunks(git_repository *repo, const git_oid *tree,
			  const char *const *paths, const int *marker_sizes, size_t n,
			  void (*add)(void *payload, size_t i, const char *hunk), void *payload);

#endif
