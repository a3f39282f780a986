#ifndef TIDE_CCDIFF_H
#define TIDE_CCDIFF_H

#include <stddef.h>
#include <stdint.h>
#include <git2.h>

struct buf;

/*
 * A merge's resolution of one file as git shows a merge commit
 * (`git show`, `git diff-tree --cc`): the dense combined diff of the
 * result against every parent, three lines of context, each parent
 * diffed with git's default (Myers with the indent heuristic).  Hunks
 * where the result is one parent's version are left out, as git leaves
 * them out; a file with no hunk left and no mode change prints nothing.
 * Index ids are abbreviated to 7 hex digits or more where ambiguous
 * (git scales its default with the object count; a small repository
 * gets 7).
 */
struct ccdiff_side {
	git_oid id;		/* the blob */
	uint32_t mode;		/* 0: the path is absent on this side */
};

/* Files larger than this on any side are named, not diffed. */
#define CCDIFF_MAX_BYTES (1024 * 1024)

/* Append path's combined diff to out.  0, or a TIDE_E* code. */
int ccdiff_file(struct buf *out, git_repository *repo, const char *path,
		const struct ccdiff_side *parents, size_t nparents,
		const struct ccdiff_side *result);

/*
 * The same for path between the trees of commits parents[] and the tree
 * result: what `git show MERGE -- path` prints of a merge of parents.
 */
int ccdiff_path(struct buf *out, git_repository *repo, const char *path,
		const git_oid *parents, size_t nparents, const git_oid *result_tree);

#endif
