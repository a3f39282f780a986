#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "apply.h"
#include "error.h"
#include "util.h"

void apply_result_release(struct apply_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nnotes; i++) {
		free(r->notes[i].path);
		free(r->notes[i].note);
	}
	free(r->notes);
	memset(r, 0, sizeof(*r));
}

int apply_to_tree(git_oid *out, git_repository *repo, const git_oid *tree,
		  const char *diff, size_t len, const struct apply_opts *o,
		  struct apply_result *res)
{
	return tide_error_set(TIDE_ERROR, "apply_to_tree: not implemented yet");
}

static int make_author(git_signature **out, const struct patch *p, const git_commit *parent)
{
	const char *name = p->author_name ? p->author_name : "Unknown";
	const char *email = p->author_email ? p->author_email : "unknown@unknown";
	/* Without a Date: header, reuse the parent's time: same input, same ids. */
	git_time_t when = p->date ? (git_time_t)p->date : git_commit_time(parent);
	int tz = p->date ? p->tz_minutes : 0;

	if (git_signature_new(out, name, email, when, tz) < 0)
		return tide_error_git(TIDE_EINVAL, "bad author '%s <%s>'", name, email);
	return 0;
}

int apply_patch_commit(git_oid *out, git_repository *repo, const git_oid *parent_id,
		       const struct patch *p, const struct apply_opts *o,
		       const git_signature *committer, const char *trailer,
		       struct apply_result *res)
{
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	git_signature *author = NULL;
	char *msg = NULL;
	git_oid tree_id;
	int error;

	if (git_commit_lookup(&parent, repo, parent_id) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the parent commit");
		goto done;
	}
	if ((error = apply_to_tree(&tree_id, repo, git_commit_tree_id(parent), p->diff,
				   p->diff_len, o, res)) < 0 ||
	    (error = make_author(&author, p, parent)) < 0)
		goto done;
	if (git_tree_lookup(&tree, repo, &tree_id) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the new tree");
		goto done;
	}
	msg = trailer ? xasprintf("%s\n%s\n", p->message, trailer) : xstrdup(p->message);
	if (git_commit_create(out, repo, NULL, author, committer ? committer : author, NULL,
			      msg, tree, 1, (const git_commit **)&parent) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot commit the patch");
done:
	free(msg);
	git_signature_free(author);
	git_tree_free(tree);
	git_commit_free(parent);
	return error;
}
