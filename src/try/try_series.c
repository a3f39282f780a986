/*
 * Loading a developer's series for `tide try`: an mbox or a patch file,
 * a directory of patches, or a revision range.  Everything is turned into
 * the same thing, a list of diffs with their authors and messages, and
 * checked at the door: a patch must parse as a diff and stay in the tree.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "patch.h"
#include "quilt.h"
#include "try.h"
#include "util.h"

void try_series_release(struct try_series *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		struct try_patch *p = &s->v[i];

		free(p->name);
		free(p->subject);
		free(p->author);
		free(p->message);
		free(p->diff);
		git_signature_free(p->sig);
	}
	free(s->v);
	free(s->source);
	free(s->base_commit);
	free(s->cover);
	memset(s, 0, sizeof(*s));
}

/* A path a patch may touch: relative, no "..", nothing under .git. */
static int path_is_safe(const char *path)
{
	const char *p = path, *e;

	if (!path || !*path || *path == '/')
		return 0;
	for (; *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, '/');
		if ((e - p == 2 && !memcmp(p, "..", 2)) ||
		    (e - p == 4 && !strncasecmp(p, ".git", 4)) || e == p)
			return 0;
	}
	return 1;
}

/* The diff must parse, and name only paths inside the tree. */
static int check_diff(const struct try_patch *p)
{
	git_diff *diff = NULL;
	size_t i;
	int error = 0;

	if (git_diff_from_buffer(&diff, p->diff, p->diff_len) < 0)
		return tide_error_git(TIDE_EINVAL, "patch '%s' is not a valid diff", p->name);
	if (git_diff_num_deltas(diff) == 0)
		error = tide_error_set(TIDE_EINVAL, "patch '%s' changes no file", p->name);
	for (i = 0; i < git_diff_num_deltas(diff) && !error; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *bad = !path_is_safe(d->old_file.path) ? d->old_file.path :
				  !path_is_safe(d->new_file.path) ? d->new_file.path : NULL;

		if (bad)
			error = tide_error_set(TIDE_EINVAL, "patch '%s' touches '%s', outside the tree",
					       p->name, bad);
	}
	git_diff_free(diff);
	return error;
}

static struct try_patch *series_add(struct try_series *s, const char *name)
{
	struct try_patch *p;

	array_grow(&s->v, &s->alloc, s->n + 1, sizeof(*s->v));
	p = &s->v[s->n++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	return p;
}

/* One parsed patch of a posted series, checked at the door. */
static int add_patch(struct try_series *s, const char *name, const struct patch *p)
{
	struct try_patch *tp = series_add(s, name);

	tp->subject = xstrdup(p->subject ? p->subject : "(no subject)");
	tp->author = xasprintf("%s <%s>", p->author_name ? p->author_name : "Unknown",
			       p->author_email ? p->author_email : "unknown@unknown");
	tp->message = xstrdup(p->message);
	tp->diff = xstrndup(p->diff, p->diff_len);
	tp->diff_len = p->diff_len;
	/* Without a Date: header, a fixed time: the same series, the same ids. */
	if (git_signature_new(&tp->sig, p->author_name ? p->author_name : "Unknown",
			      p->author_email ? p->author_email : "unknown@unknown",
			      p->date ? (git_time_t)p->date : 0, p->date ? p->tz_minutes : 0) < 0)
		return tide_error_git(TIDE_EINVAL, "patch '%s': bad author", name);
	return check_diff(tp);
}

/* Every patch a directory's `series` names exists: a missing one is bad input. */
static int check_series_file(const char *dir)
{
	char *series = path_join(dir, "series"), *file;
	struct quilt_series qs = { 0 };
	struct buf text = BUF_INIT;
	size_t i;
	int error = 0;

	if (!path_is_dir(dir) || !path_exists(series) || file_read(&text, series) < 0 ||
	    (error = quilt_series_parse(&qs, buf_cstr(&text))) < 0)
		goto done;
	for (i = 0; i < qs.npatches && !error; i++) {
		file = path_join(dir, qs.patches[i]);
		if (!path_exists(file))
			error = tide_error_set(TIDE_ENOTFOUND, "patch '%s' of series '%s' does not exist",
					       qs.patches[i], dir);
		free(file);
	}
done:
	if (!error)
		tide_error_clear();
	quilt_series_release(&qs);
	buf_release(&text);
	free(series);
	return error;
}

/*
 * An mbox, a patch file or a directory, read as a posting (src/patch.h):
 * replies and the cover letter skipped, the newest revision, n/m order.
 */
static int load_posting(struct try_series *s, const char *path)
{
	struct patch_series ps;
	size_t i;
	char *name;
	int error;

	if ((error = check_series_file(path)) < 0)
		return error;
	if ((error = patch_series_from_path(&ps, path)) < 0)
		return tide_error_wrap(error, "series '%s'", path);
	if (!ps.n)
		error = tide_error_set(TIDE_EINVAL, "series '%s' holds no patch", path);
	for (i = 0; i < ps.n && !error; i++) {
		name = ps.n == 1 && !path_is_dir(path) ? xstrdup(path) :
		       xasprintf("%s #%zu", path, i + 1);
		error = add_patch(s, name, &ps.patches[i]);
		free(name);
	}
	if (ps.base_commit)
		s->base_commit = xstrdup(ps.base_commit);
	if (ps.cover_subject)
		s->cover = xstrdup(ps.cover_subject);
	s->version = ps.version;
	patch_series_release(&ps);
	return error;
}

/* The commit as a patch: its diff against its parent, its author and message. */
static int add_commit(struct try_series *s, git_repository *repo, const git_commit *c)
{
	git_commit *parent = NULL;
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	git_diff_options dopts;
	git_buf text = GIT_BUF_INIT;
	struct try_patch *p;
	const git_signature *au = git_commit_author(c);
	int error = 0;

	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	dopts.flags |= GIT_DIFF_SHOW_BINARY;
	if (git_commit_parent(&parent, c, 0) < 0 || git_commit_tree(&a, parent) < 0 ||
	    git_commit_tree(&b, c) < 0 || git_diff_tree_to_tree(&diff, repo, a, b, &dopts) < 0 ||
	    git_diff_to_buf(&text, diff, GIT_DIFF_FORMAT_PATCH) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot diff commit %s",
				       git_oid_tostr_s(git_commit_id(c)));
		goto done;
	}
	p = series_add(s, git_oid_tostr_s(git_commit_id(c)));
	p->subject = xstrdup(git_commit_summary((git_commit *)c) ?: "");
	p->author = xasprintf("%s <%s>", au->name, au->email);
	p->message = xstrdup(git_commit_message(c));
	p->diff = xstrndup(text.ptr ? text.ptr : "", text.size);
	p->diff_len = text.size;
	if (git_signature_dup(&p->sig, au) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot copy an author");
	else if (!p->diff_len)
		error = tide_error_set(TIDE_EINVAL, "commit %s changes nothing", p->name);
	else
		error = check_diff(p);
done:
	git_buf_dispose(&text);
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(parent);
	return error;
}

/* A..B as format-patch would: oldest first, merges left out. */
static int load_range(struct try_series *s, git_repository *repo, const char *range)
{
	git_revwalk *walk = NULL;
	git_commit *c = NULL;
	git_oid id;
	int error = 0;

	if (git_revwalk_new(&walk, repo) < 0)
		return tide_error_git(TIDE_ERROR, "cannot walk '%s'", range);
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	if (git_revwalk_push_range(walk, range) < 0) {
		error = tide_error_git(TIDE_ENOTFOUND, "unknown revision range '%s'", range);
		goto done;
	}
	while (!error && git_revwalk_next(&id, walk) == 0) {
		if (git_commit_lookup(&c, repo, &id) < 0) {
			error = tide_error_git(TIDE_ERROR, "cannot read commit in '%s'", range);
			break;
		}
		if (git_commit_parentcount(c) == 1)
			error = add_commit(s, repo, c);
		git_commit_free(c);
		c = NULL;
	}
	if (!error && !s->n)
		error = tide_error_set(TIDE_EINVAL, "revision range '%s' has no commit to try", range);
done:
	git_revwalk_free(walk);
	return error;
}

static int load_range_in(struct try_series *s, git_repository *ws_repo, const char *range,
			 const char *rev_repo)
{
	git_repository *repo = NULL;
	int error;

	if (!rev_repo)
		return load_range(s, ws_repo, range);
	if (git_repository_open_ext(&repo, rev_repo, 0, NULL) < 0)
		return tide_error_git(TIDE_ENOTFOUND, "cannot open repository '%s'", rev_repo);
	error = load_range(s, repo, range);
	git_repository_free(repo);
	return error;
}

int try_series_load(struct try_series *out, git_repository *repo,
		    const char *spec, const char *rev_repo)
{
	int error;

	memset(out, 0, sizeof(*out));
	out->source = xstrdup(spec);
	if (rev_repo || (!path_exists(spec) && strstr(spec, "..")))
		error = load_range_in(out, repo, spec, rev_repo);
	else if (path_exists(spec))
		error = load_posting(out, spec);
	else
		error = tide_error_set(TIDE_ENOTFOUND,
				       "'%s' is not a file, a directory or a revision range A..B", spec);
	if (error < 0)
		try_series_release(out);
	return error;
}
