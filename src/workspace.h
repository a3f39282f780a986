#ifndef TIDE_WORKSPACE_H
#define TIDE_WORKSPACE_H

#include <git2.h>

/*
 * A workspace directory (layout in docs/design.md): the bare integration
 * repository DIR/repo.git, the day records DIR/days/, the lock DIR/lock.
 */
struct workspace {
	char *dir;		/* absolute path */
	char *repo_path;	/* DIR/repo.git */
	git_repository *repo;
	int lock_fd;		/* -1 unless workspace_lock() succeeded */
};

enum {
	WORKSPACE_CREATE = 1 << 0,	/* create DIR and repo.git if missing */
};

/*
 * Open the workspace at dir.  Without WORKSPACE_CREATE a missing
 * workspace is TIDE_ENOTFOUND; a repo.git that is not a git repository is
 * TIDE_EINVAL; a directory that cannot be created is TIDE_EIO.
 */
int workspace_open(struct workspace **out, const char *dir, unsigned flags);
void workspace_free(struct workspace *ws);

/*
 * Take DIR/lock with flock() (released when the process ends, even by
 * SIGKILL).  TIDE_ELOCKED names the pid of the holder.
 */
int workspace_lock(struct workspace *ws);

/* DIR/<name>; the caller frees it. */
char *workspace_path(const struct workspace *ws, const char *name);

/*
 * Borrow the objects of a local repository (like `git clone --shared`):
 * add its objects directory to repo.git/objects/info/alternates, so a
 * fetch from it copies nothing.  Handles opened later see the objects.
 */
int workspace_add_alternate(struct workspace *ws, const char *local_repo);

/* Reopen ws->repo, e.g. after other handles changed refs or alternates. */
int workspace_reopen(struct workspace *ws);

/* Append one line to DIR/tide.log with a UTC timestamp. */
void workspace_log(struct workspace *ws, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
