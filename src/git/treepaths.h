#ifndef TIDE_TREEPATHS_H
#define TIDE_TREEPATHS_H

#include <stddef.h>
#include <git2.h>

/*
 * The entries of many paths of one tree, each tree object on the way read
 * once: the paths are visited in sorted order, so the paths below one
 * directory come together and its tree stays open while they are looked
 * up.  Looking paths up one at a time (git_tree_entry_bypath()) reads and
 * parses every directory on the way again for each path: a tree with
 * 10,000 conflicted files in one directory read that directory 10,000
 * times per commit (libgit2 keeps no tree above 4 KB in its cache).
 */
struct tree_paths;

struct tree_path_entry {
	git_oid id;
	unsigned mode;		/* 0: no such path (or a directory on the way is missing) */
};

/* The paths are copied; their order is the caller's (out[i] is paths[i]). */
struct tree_paths *tree_paths_new(const char *const *paths, size_t n);
void tree_paths_free(struct tree_paths *tp);

/*
 * out[i] for each path i of tp in the tree tree_id.  A missing path is
 * mode 0, not an error; TIDE_ERROR when a tree object cannot be read.
 */
int tree_paths_read(struct tree_path_entry *out, const struct tree_paths *tp,
		    git_repository *repo, const git_oid *tree_id);

#endif
