#include <string.h>

#include "error.h"
#include "mailmap.h"
#include "util.h"

int mailmap_from_commit(git_mailmap **out, git_repository *repo, const git_oid *commit)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	int error;

	*out = NULL;
	if (!commit || git_commit_lookup(&c, repo, commit) < 0 || git_commit_tree(&tree, c) < 0 ||
	    git_tree_entry_bypath(&entry, tree, ".mailmap") < 0 ||
	    git_blob_lookup(&blob, repo, git_tree_entry_id(entry)) < 0) {
		/* No .mailmap: nobody is renamed. */
		error = git_mailmap_new(out);
		goto done;
	}
	error = git_mailmap_from_buffer(out, git_blob_rawcontent(blob),
					(size_t)git_blob_rawsize(blob));
done:
	if (error < 0)
		error = tide_error_git(TIDE_ERROR, "cannot read .mailmap");
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(c);
	return error;
}
