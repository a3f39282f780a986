#ifndef TIDE_APPLY_H
#define TIDE_APPLY_H

#include <stddef.h>
#include <git2.h>

#include "patch.h"

/*
 * A patch applier with the semantics of patch(1) and git-apply, working
 * on trees in the object database (no work tree, no index file).
 *
 * Understands git diffs (extended headers, renames, copies, modes,
 * "GIT binary patch" literal and delta) and plain unified diffs as quilt,
 * akpm's scripts and diff(1) write them ("Index:" / "===" lines,
 * "diff -puN a/f.c~name b/f.c", any -pN prefix, /dev/null for created
 * and deleted files, "\ No newline at end of file", CRLF).
 *
 * Exact by default, like dpkg-source and git am: a hunk must match its
 * context; it may be found some lines away (an offset, reported in the
 * result's notes), and with fuzz > 0 up to that many outer context lines
 * may be ignored, as patch(1) --fuzz does.
 *
 * Everything in a patch is untrusted: sizes are bounded and every path
 * is checked (no absolute paths, no "..", no ".git", no empty names).
 */

/* Bounds on what a patch may make us read or hold. */
#define APPLY_MAX_PATCH (256u << 20)	/* bytes of diff text */
#define APPLY_MAX_LINE (1u << 20)	/* bytes of one line */

struct apply_opts {
	int strip;	/* -pN; -1 = guess: 1 for git diffs and a/ b/-like prefixes */
	int reverse;	/* -R */
	int fuzz;	/* outer context lines a hunk may ignore; 0 = exact */
	size_t lineno;	/* line number of diff[0] in its file, for messages */
};

#define APPLY_OPTS_INIT { -1, 0, 0, 1 }

/* Something worth telling about one file, e.g. "hunk #2 applied at offset 3". */
struct apply_file_note {
	char *path;
	char *note;
};

struct apply_result {
	struct apply_file_note *notes;
	size_t nnotes;
	size_t files;	/* file patches applied */
	size_t hunks;	/* hunks applied */
};

#define APPLY_RESULT_INIT { NULL, 0, 0, 0 }

void apply_result_release(struct apply_result *r);

/*
 * Apply diff text (the diff part of a patch) to tree; out gets the new
 * tree's id.  A hunk that does not apply is TIDE_ECONFLICT with a message
 * naming the file, the hunk header and the lines that differ; a malformed
 * patch or a refused path is TIDE_EINVAL naming the line.  o may be NULL
 * (APPLY_OPTS_INIT), res may be NULL.
 */
int apply_to_tree(git_oid *out, git_repository *repo, const git_oid *tree,
		  const char *diff, size_t len, const struct apply_opts *o,
		  struct apply_result *res);

/*
 * Apply a parsed mail-format patch (src/patch.h) to parent's tree and
 * commit the result on parent: author, date and message from the patch
 * (without a Date: header the parent's time, so the same input gives the
 * same ids), trailer (if not NULL) appended to the message as its own
 * line.  committer NULL means the author, with the author's time.
 */
int apply_patch_commit(git_oid *out, git_repository *repo, const git_oid *parent,
		       const struct patch *p, const struct apply_opts *o,
		       const git_signature *committer, const char *trailer,
		       struct apply_result *res);

#endif
