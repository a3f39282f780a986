/* A resolution worktree as a git repository mid-merge (worktree.h). */
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "util.h"
#include "worktree.h"

static int write_git_file(const char *gitdir, const char *name, const char *text)
{
	char *path = path_join(gitdir, name);
	int error = file_write_atomic(path, text, strlen(text));

	free(path);
	return error;
}

/* The files git reads for a merge in progress, and the object borrowing. */
static int write_meta(git_repository *repo, const char *gitdir, const git_oid *theirs,
		      const char *msg)
{
	char *objects = path_join(git_repository_path(repo), "objects");
	char *alt = xasprintf("%s\n", objects);
	char *head = xasprintf("%s\n", git_oid_tostr_s(theirs));
	char *merge_msg = xasprintf("%s\n", msg);
	int error;

	if ((error = write_git_file(gitdir, "objects/info/alternates", alt)) == 0 &&
	    (error = write_git_file(gitdir, "MERGE_HEAD", head)) == 0 &&
	    (error = write_git_file(gitdir, "MERGE_MSG", merge_msg)) == 0)
		error = write_git_file(gitdir, "info/exclude", "/.tide/\n");
	free(objects);
	free(alt);
	free(head);
	free(merge_msg);
	return error;
}

/* The stat data of the file just checked out, so git does not rehash it. */
static int fill_stat(git_index *idx, const char *dir, size_t i)
{
	const git_index_entry *e = git_index_get_byindex(idx, i);
	git_index_entry copy;
	struct stat st;
	char *path;
	int ok;

	if (!e || git_index_entry_stage(e) != 0)
		return 0;
	path = path_join(dir, e->path);
	ok = lstat(path, &st) == 0;
	free(path);
	if (!ok)
		return 0;	/* a path git will look at itself */
	copy = *e;
	copy.ctime.seconds = (int32_t)st.st_ctim.tv_sec;
	copy.ctime.nanoseconds = (uint32_t)st.st_ctim.tv_nsec;
	copy.mtime.seconds = (int32_t)st.st_mtim.tv_sec;
	copy.mtime.nanoseconds = (uint32_t)st.st_mtim.tv_nsec;
	copy.dev = (uint32_t)st.st_dev;
	copy.ino = (uint32_t)st.st_ino;
	copy.uid = (uint32_t)st.st_uid;
	copy.gid = (uint32_t)st.st_gid;
	copy.file_size = (uint32_t)st.st_size;
	return git_index_add(idx, &copy) < 0 ? tide_error_git(TIDE_ERROR, "index '%s'", e->path) : 0;
}

static void stage_entry(git_index_entry *e, const char *path, const git_oid *id, unsigned mode)
{
	memset(e, 0, sizeof(*e));
	e->path = path;
	e->mode = mode;
	git_oid_cpy(&e->id, id);
}

static int add_conflict(git_index *idx, const struct merge_conflict *c)
{
	git_index_entry base, ours, theirs;
	int has_base = !git_oid_is_zero(&c->base), has_ours = !git_oid_is_zero(&c->ours);
	int has_theirs = !git_oid_is_zero(&c->theirs);

	git_index_remove_bypath(idx, c->path);
	stage_entry(&base, c->base_path ? c->base_path : c->path, &c->base, c->base_mode);
	stage_entry(&ours, c->ours_path ? c->ours_path : c->path, &c->ours, c->ours_mode);
	stage_entry(&theirs, c->theirs_path ? c->theirs_path : c->path, &c->theirs, c->theirs_mode);
	if (has_ours && c->ours_path && strcmp(c->ours_path, c->path))
		git_index_remove_bypath(idx, c->ours_path);
	if (has_theirs && c->theirs_path && strcmp(c->theirs_path, c->path))
		git_index_remove_bypath(idx, c->theirs_path);
	if (git_index_conflict_add(idx, has_base ? &base : NULL, has_ours ? &ours : NULL,
				   has_theirs ? &theirs : NULL) < 0)
		return tide_error_git(TIDE_ERROR, "cannot record the conflict of '%s'", c->path);
	return 0;
}

static int write_index(git_repository *wt, const char *dir, const git_oid *merged,
		       const struct merge_conflict *conflicts, size_t n)
{
	git_index *idx = NULL;
	git_tree *tree = NULL;
	size_t i;
	int error = 0;

	if (git_repository_index(&idx, wt) < 0 || git_tree_lookup(&tree, wt, merged) < 0 ||
	    git_index_read_tree(idx, tree) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot build the index of '%s'", dir);
		goto done;
	}
	for (i = 0; i < git_index_entrycount(idx) && !error; i++)
		error = fill_stat(idx, dir, i);
	for (i = 0; i < n && !error; i++)
		error = add_conflict(idx, &conflicts[i]);
	if (!error && git_index_write(idx) < 0)
		error = tide_error_git(TIDE_EIO, "cannot write the index of '%s'", dir);
done:
	git_tree_free(tree);
	git_index_free(idx);
	return error;
}

int worktree_git_init(git_repository *repo, const char *dir, const git_oid *ours,
		      const git_oid *theirs, const git_oid *merged,
		      const struct merge_conflict *conflicts, size_t nconflicts, const char *msg)
{
	git_repository_init_options opts;
	git_repository *wt = NULL;
	git_config *cfg = NULL;
	char *gitdir = path_join(dir, ".git");
	int error;

	git_repository_init_options_init(&opts, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	opts.flags = GIT_REPOSITORY_INIT_NO_REINIT | GIT_REPOSITORY_INIT_MKPATH;
	if (git_repository_init_ext(&wt, dir, &opts) < 0) {
		error = tide_error_git(TIDE_EIO, "cannot make '%s' a git repository", dir);
		goto done;
	}
	git_repository_free(wt);
	wt = NULL;
	/* Reopened once the alternates are in place, so it sees the objects. */
	if ((error = write_meta(repo, gitdir, theirs, msg)) < 0)
		goto done;
	if (git_repository_open(&wt, dir) < 0 || git_repository_set_head_detached(wt, ours) < 0 ||
	    git_repository_config(&cfg, wt) < 0 ||
	    git_config_set_bool(cfg, "rerere.enabled", 1) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot set up '%s'", gitdir);
		goto done;
	}
	error = write_index(wt, dir, merged, conflicts, nconflicts);
done:
	git_config_free(cfg);
	git_repository_free(wt);
	free(gitdir);
	return error;
}
