/* Trees based on a linux-next day: their own commits, applied onto the day (next_base.h). */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include <git2.h>

#include "buf.h"
#include "error.h"
#include "merge.h"
#include "merge_step.h"
#include "next_base.h"
#include "util.h"

#define LOCALVERSION "localversion-next"

/* Does commit c's tree have localversion-next? -1 when it cannot be read. */
static int has_localversion(const git_commit *c)
{
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	int rc;

	if (git_commit_tree(&t, c) < 0)
		return -1;
	rc = git_tree_entry_bypath(&e, t, LOCALVERSION) == 0;
	git_tree_entry_free(e);
	git_tree_free(t);
	return rc;
}

static int commit_has_localversion(git_repository *repo, const git_oid *id)
{
	git_commit *c = NULL;
	int rc;

	if (git_commit_lookup(&c, repo, id) < 0)
		return -1;
	rc = has_localversion(c);
	git_commit_free(c);
	return rc;
}

/*
 * The day's name from its localversion-next ("-next-20261206\n"), checked
 * to be "next-" and eight digits: anything else is the tree's text, and
 * the commit's short id names the day instead.
 */
static char *day_name(git_commit *day)
{
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	git_blob *b = NULL;
	char *name = NULL;

	if (git_commit_tree(&t, day) == 0 && git_tree_entry_bypath(&e, t, LOCALVERSION) == 0 &&
	    git_blob_lookup(&b, git_commit_owner(day), git_tree_entry_id(e)) == 0) {
		const char *p = git_blob_rawcontent(b);
		size_t n = (size_t)git_blob_rawsize(b), i;

		while (n && (p[n - 1] == '\n' || p[n - 1] == '\r'))
			n--;
		if (n == 14 && !memcmp(p, "-next-", 6)) {
			for (i = 6; i < n && isdigit((unsigned char)p[i]); i++)
				;
			if (i == n)
				name = xasprintf("%.*s", (int)(n - 1), p + 1);
		}
	}
	git_error_clear();
	if (!name) {
		char hex[13];

		git_oid_tostr(hex, sizeof(hex), git_commit_id(day));
		name = xasprintf("the linux-next day %s", hex);
	}
	git_blob_free(b);
	git_tree_entry_free(e);
	git_tree_free(t);
	return name;
}

/*
 * Walk tip's first parents down to the commit whose parent has no
 * localversion-next: the day.  Every commit above it goes to out->commits
 * (newest first here; reversed by the caller).
 */
static int walk_to_day(struct next_base *out, git_repository *repo, const git_oid *tip)
{
	git_commit *c = NULL, *parent = NULL;
	char hex[13];
	size_t cap = 0;
	int error = 0, rc;

	if (git_commit_lookup(&c, repo, tip) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read the commit %s", git_oid_tostr_s(tip));
	for (;;) {
		if (git_commit_parentcount(c) == 0) {
			error = tide_error_set(TIDE_EINVAL, "its root commit %s has localversion-next: "
					       "no linux-next day found under it",
					       git_oid_tostr(hex, sizeof(hex), git_commit_id(c)));
			break;
		}
		if (git_commit_parent(&parent, c, 0) < 0) {
			error = tide_error_git(TIDE_ERROR, "cannot read a parent of %s",
					       git_oid_tostr_s(git_commit_id(c)));
			break;
		}
		if ((rc = has_localversion(parent)) < 0) {
			error = tide_error_git(TIDE_ERROR, "cannot read the tree of %s",
					       git_oid_tostr_s(git_commit_id(parent)));
			break;
		}
		if (!rc) {	/* c added localversion-next: the day */
			git_oid_cpy(&out->day, git_commit_id(c));
			out->name = day_name(c);
			break;
		}
		if (git_commit_parentcount(c) > 1) {
			error = tide_error_set(TIDE_EINVAL, "merge %s among its commits after the "
					       "linux-next day: a tree based on linux-next is taken "
					       "as a series of single-parent commits",
					       git_oid_tostr(hex, sizeof(hex), git_commit_id(c)));
			break;
		}
		if (out->ncommits == NEXT_BASE_MAX_COMMITS) {
			error = tide_error_set(TIDE_EINVAL, "more than %d commits after the linux-next "
					       "day it is based on", NEXT_BASE_MAX_COMMITS);
			break;
		}
		if (out->ncommits == cap) {
			cap = cap ? 2 * cap : 16;
			out->commits = xrealloc(out->commits, cap * sizeof(*out->commits));
		}
		git_oid_cpy(&out->commits[out->ncommits++], git_commit_id(c));
		git_commit_free(c);
		c = parent;
		parent = NULL;
	}
	git_commit_free(parent);
	git_commit_free(c);
	return error;
}

int next_base_find(struct next_base *out, git_repository *repo, const git_oid *base,
		   const git_oid *tip)
{
	size_t i;
	int rc, error;

	memset(out, 0, sizeof(*out));
	/* One tree entry each: a tree without localversion-next costs no walk. */
	if ((rc = commit_has_localversion(repo, tip)) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read the tree of %s", git_oid_tostr_s(tip));
	if (!rc)
		return 0;
	if ((rc = commit_has_localversion(repo, base)) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read the tree of %s", git_oid_tostr_s(base));
	if (rc)
		return 0;
	if ((error = walk_to_day(out, repo, tip)) < 0) {
		next_base_release(out);
		return error;
	}
	for (i = 0; i < out->ncommits / 2; i++) {
		git_oid t = out->commits[i];

		out->commits[i] = out->commits[out->ncommits - 1 - i];
		out->commits[out->ncommits - 1 - i] = t;
	}
	return 1;
}

void next_base_release(struct next_base *nb)
{
	free(nb->name);
	free(nb->commits);
	memset(nb, 0, sizeof(*nb));
}

/* Is the message's last line a trailer ("Token: value")?  Then git adds -x's line without a blank line. */
static int ends_in_trailer(const char *msg)
{
	size_t n = strlen(msg), start;
	const char *colon, *p;

	while (n && msg[n - 1] == '\n')
		n--;
	for (start = n; start && msg[start - 1] != '\n'; start--)
		;
	colon = memchr(msg + start, ':', n - start);
	if (!colon || colon == msg + start || start == 0)
		return 0;
	for (p = msg + start; p < colon; p++)
		if (!isalnum((unsigned char)*p) && *p != '-')
			return 0;
	return 1;
}

/* The picked commit's message: the original's, and the line git cherry-pick -x writes. */
static char *pick_message(const git_commit *c)
{
	struct buf b = BUF_INIT;
	const char *msg = git_commit_message(c);

	buf_puts(&b, msg ? msg : "");
	while (b.len && b.ptr[b.len - 1] == '\n')
		buf_truncate(&b, b.len - 1);
	buf_puts(&b, ends_in_trailer(b.ptr ? b.ptr : "") ? "\n" : "\n\n");
	buf_printf(&b, "(cherry picked from commit %s)\n", git_oid_tostr_s(git_commit_id(c)));
	return buf_detach(&b);
}

/* Commit tree on parent as c was committed: its author, encoding and message; committer sig. */
static int commit_pick(git_oid *out, git_repository *repo, const git_signature *sig,
		       const git_commit *c, const git_oid *parent_id, const git_oid *tree_id)
{
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	char *msg = pick_message(c);
	int error;

	if (git_commit_lookup(&parent, repo, parent_id) < 0 ||
	    git_tree_lookup(&tree, repo, tree_id) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the state to apply onto");
		goto done;
	}
	errno = 0;
	if (git_commit_create(out, repo, NULL, git_commit_author(c), sig,
			      git_commit_message_encoding(c), msg, tree, 1,
			      (const git_commit **)&parent) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot write a commit");
	else
		error = merge_object_written(repo, out, errno, "a commit");
done:
	git_tree_free(tree);
	git_commit_free(parent);
	free(msg);
	return error;
}

/* The conflict markers' labels of a commit, as git cherry-pick writes them: "abc123def456 (subject)". */
static char *pick_label(const git_commit *c)
{
	char hex[13];

	git_oid_tostr(hex, sizeof(hex), git_commit_id(c));
	return xasprintf("%s (%s)", hex, git_commit_summary((git_commit *)c));
}

int next_base_apply(struct next_base_pick *out, git_repository *repo, const git_signature *sig,
		    const git_oid *state, const struct next_base *nb, const char *ours_label)
{
	struct merge_step_opts sopts = { ours_label, NULL, NULL };
	git_commit *c = NULL, *s = NULL;
	git_oid tree;
	char *label = NULL;
	size_t i;
	int error = 0;

	memset(out, 0, sizeof(*out));
	git_oid_cpy(&out->tip, state);
	if (git_commit_lookup(&s, repo, state) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read the state %s", git_oid_tostr_s(state));
	git_oid_cpy(&tree, git_commit_tree_id(s));
	for (i = 0; i < nb->ncommits && !error; i++) {
		if (git_commit_lookup(&c, repo, &nb->commits[i]) < 0) {
			error = tide_error_git(TIDE_ERROR, "cannot read the commit %s",
					       git_oid_tostr_s(&nb->commits[i]));
			break;
		}
		sopts.theirs_label = label = pick_label(c);
		merge_result_clear(&out->res);
		error = merge_step_pick_result(&out->res, repo, &tree, &nb->commits[i], &sopts);
		if (error == 1) {
			out->failed = i + 1;
			error = 0;
		} else if (!error && git_oid_equal(&out->res.tree, &tree)) {
			out->empty++;	/* the day has this change already (git am: "No changes") */
		} else if (!error &&
			   (error = commit_pick(&out->tip, repo, sig, c, &out->tip, &out->res.tree)) == 0) {
			git_oid_cpy(&tree, &out->res.tree);
			out->applied++;
		}
		free(label);
		label = NULL;
		git_commit_free(c);
		c = NULL;
		if (out->failed)
			break;
	}
	if (!out->failed)
		merge_result_clear(&out->res);
	git_commit_free(s);
	return error;
}

void next_base_pick_release(struct next_base_pick *p)
{
	merge_result_clear(&p->res);
	memset(p, 0, sizeof(*p));
}
