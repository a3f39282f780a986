/* The day's history contract: trailers and the first-parent chain (history.h). */
#include <errno.h>
#include <string.h>

#include "error.h"
#include "day.h"
#include "history.h"
#include "merge.h"
#include "util.h"

#define TREE_KEY "Tide-Tree"
#define VERSION_FROM_KEY "Tide-Version-From"

char *history_merge_message(const char *what, const char *label, const char *tree,
			    const char *version_from)
{
	if (version_from)
		return xasprintf("Merge %s '%s'\n\n" TREE_KEY ": %s\n" VERSION_FROM_KEY ": %s\n",
				 what, label, tree, version_from);
	return xasprintf("Merge %s '%s'\n\n" TREE_KEY ": %s\n", what, label, tree);
}

int history_commit(git_oid *out, git_repository *repo, const git_signature *sig,
		   const git_oid *tree_id, const git_oid *const *parent_ids, size_t nparents,
		   const char *message)
{
	git_tree *tree = NULL;
	git_commit *parents[2] = { NULL, NULL };
	size_t i;
	int error = 0;

	if (nparents > 2)
		return tide_error_set(TIDE_EINVAL, "a day's commit has at most two parents");
	if (git_tree_lookup(&tree, repo, tree_id) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read a merged tree");
		goto done;
	}
	for (i = 0; i < nparents; i++)
		if (git_commit_lookup(&parents[i], repo, parent_ids[i]) < 0) {
			error = tide_error_git(TIDE_ERROR, "cannot read a parent commit");
			goto done;
		}
	errno = 0;
	if (git_commit_create(out, repo, NULL, sig, sig, NULL, message, tree,
			      nparents, (const git_commit **)parents) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot write a commit");
	else
		error = merge_object_written(repo, out, errno, "a commit");
done:
	for (i = 0; i < nparents; i++)
		git_commit_free(parents[i]);
	git_tree_free(tree);
	return error;
}

char *history_bisect_message(const char *tree, const git_oid *tip)
{
	char hex[GIT_OID_HEXSZ + 1];

	return xasprintf("tide bisect: merge %s %s\n\n" TREE_KEY ": %s\n", tree,
			 git_oid_tostr(hex, sizeof(hex), tip), tree);
}

char *history_tree_trailer(const char *tree)
{
	return xasprintf(TREE_KEY ": %s", tree);
}

/* The value of trailer key of c's message (git's trailer rules), or NULL. */
static char *trailer_of(const git_commit *c, const char *key)
{
	git_message_trailer_array arr = { 0 };
	char *value = NULL;
	size_t i;

	if (git_message_trailers(&arr, git_commit_message(c)) < 0) {
		git_error_clear();
		return NULL;
	}
	for (i = 0; i < arr.count && !value; i++) {
		const char *v = arr.trailers[i].value;
		size_t len;

		if (strcmp(arr.trailers[i].key, key))
			continue;
		/* libgit2 keeps the newline of an empty value: trim, skip empty. */
		v += strspn(v, " \t\r\n");
		for (len = strlen(v); len && strchr(" \t\r\n", v[len - 1]); len--)
			;
		if (len)
			value = xstrndup(v, len);
	}
	git_message_trailer_array_free(&arr);
	return value;
}

char *history_tree_of(const git_commit *c)
{
	return trailer_of(c, TREE_KEY);
}

char *history_version_from(const git_commit *c)
{
	return trailer_of(c, VERSION_FROM_KEY);
}

int history_first_parents(git_oid **out, size_t *n, git_repository *repo,
			  const git_oid *tip, const git_oid *hide)
{
	git_revwalk *w = NULL;
	git_oid id;
	size_t alloc = 0;
	int err;

	*out = NULL;
	*n = 0;
	if (git_revwalk_new(&w, repo) < 0 ||
	    git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) < 0 ||
	    git_revwalk_simplify_first_parent(w) < 0 ||
	    git_revwalk_push(w, tip) < 0 || (hide && git_revwalk_hide(w, hide) < 0)) {
		err = tide_error_git(TIDE_ERROR, "cannot walk history");
		goto done;
	}
	while ((err = git_revwalk_next(&id, w)) == 0) {
		array_grow(out, &alloc, *n + 1, sizeof(**out));
		(*out)[(*n)++] = id;
	}
	if (err == GIT_ITEROVER)
		err = 0;
	else
		err = tide_error_git(TIDE_ERROR, "cannot walk history");
done:
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	git_revwalk_free(w);
	return err;
}

char *history_oid_hex(const git_oid *oid)
{
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), oid);
	return xstrdup(hex);
}

void history_oid_abbrev(char *out, const git_oid *oid)
{
	git_oid_tostr(out, 13, oid);
}

int history_state_before(git_oid *out, const struct day *d, const struct day_tree *dt)
{
	const struct day_tree *t;
	const char *id;

	if (!d->base_commit || git_oid_fromstr(out, d->base_commit) < 0)
		return tide_error_set(TIDE_EINVAL, "day %s has no base commit", d->date);
	for (t = d->trees; t < dt; t++) {
		id = t->handling.fixup_commit ? t->handling.fixup_commit : t->merge_commit;
		if (id && git_oid_fromstr(out, id) < 0)
			return tide_error_set(TIDE_EINVAL, "bad merge commit of '%s'", t->name);
	}
	return 0;
}

int history_patch_id(git_oid *out, git_repository *repo, const git_oid *commit)
{
	git_commit *cm = NULL, *parent = NULL;
	git_tree *t = NULL, *pt = NULL;
	git_diff *diff = NULL;
	int err = 0;

	if (git_commit_lookup(&cm, repo, commit) < 0 || git_commit_tree(&t, cm) < 0 ||
	    (git_commit_parentcount(cm) > 0 &&
	     (git_commit_parent(&parent, cm, 0) < 0 || git_commit_tree(&pt, parent) < 0)) ||
	    git_diff_tree_to_tree(&diff, repo, pt, t, NULL) < 0 ||
	    git_diff_patchid(out, diff, NULL) < 0)
		err = tide_error_git(TIDE_ERROR, "cannot compute the patch id of %.12s",
				     git_oid_tostr_s(commit));
	git_diff_free(diff);
	git_tree_free(pt);
	git_tree_free(t);
	git_commit_free(parent);
	git_commit_free(cm);
	return err;
}
