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
 * One accessor per path of the workspace (docs/design.md, "Workspace
 * layout"), like git's GIT_PATH_FUNC: the names are spelled only in
 * workspace.c.  Each takes the workspace directory and returns a string
 * the caller frees.
 */
char *workspace_repo_git(const char *dir);		/* DIR/repo.git */
char *workspace_fsck_trees(const char *dir);		/* DIR/repo.git/tide-fsck-trees */
char *workspace_install_reserve(const char *dir);	/* DIR/repo.git/tide-install-reserve */
char *workspace_patch_ids(const char *dir);		/* DIR/repo.git/tide-patch-ids */
char *workspace_days_dir(const char *dir);		/* DIR/days */
char *workspace_day_dir(const char *dir, const char *date);	/* DIR/days/DATE */
char *workspace_day_json(const char *dir, const char *date);	/* DIR/days/DATE/day.json */
/* DAYS/DATE/day.json, for code that is given the days directory itself. */
char *workspace_day_json_in(const char *days_dir, const char *date);
char *workspace_config(const char *dir);		/* DIR/config */
char *workspace_trees_conf(const char *dir);		/* DIR/trees.conf */
char *workspace_lock_file(const char *dir);		/* DIR/lock */
char *workspace_tide_log(const char *dir);		/* DIR/tide.log */
char *workspace_build_dir(const char *dir);		/* DIR/build */
char *workspace_build_src(const char *dir);		/* DIR/build/src */
char *workspace_build_out(const char *dir);		/* DIR/build/out */
/* DIR/build/out-NAME: a declared configuration's O=, the default's is build/out */
char *workspace_build_out_config(const char *dir, const char *name);
char *workspace_build_state(const char *dir);		/* DIR/build/src.tree */
char *workspace_build_log(const char *dir);		/* DIR/build/build.log */
char *workspace_build_initramfs(const char *dir);	/* DIR/build/initramfs */
char *workspace_build_kvm_probe(const char *dir);	/* DIR/build/kvm-probe */
char *workspace_rr_cache(const char *dir);		/* DIR/rr-cache */
char *workspace_rr_cache_git(const char *dir);		/* DIR/rr-cache.git */
char *workspace_rerere_conf(const char *dir);		/* DIR/rerere.conf */
char *workspace_resolve_dir(const char *dir);		/* DIR/resolve */
char *workspace_resolve_tree(const char *dir, const char *tree);	/* DIR/resolve/TREE */
char *workspace_fixups_tree(const char *dir, const char *tree);	/* DIR/fixups/TREE */
char *workspace_quilt_tree(const char *dir, const char *tree);	/* DIR/quilt/TREE */
char *workspace_mail_conf(const char *dir);		/* DIR/mail.conf */
char *workspace_bisect_dir(const char *dir);		/* DIR/bisect */
char *workspace_bisect_state(const char *dir);		/* DIR/bisect/state.json */
char *workspace_bisect_src(const char *dir);		/* DIR/bisect/src */
char *workspace_bisect_src_state(const char *dir);	/* DIR/bisect/src.tree */
char *workspace_bisect_check_log(const char *dir);	/* DIR/bisect/check.log */
char *workspace_bisect_console_log(const char *dir);	/* DIR/bisect/console.log */
char *workspace_try_dir(const char *dir);		/* DIR/try */
char *workspace_kcidb_spool(const char *dir);		/* DIR/kcidb-spool */
char *workspace_kcidb_rejected(const char *dir);	/* DIR/kcidb-rejected */
char *workspace_dashboard(const char *dir);		/* DIR/dashboard */
char *workspace_regressions(const char *dir);		/* DIR/regressions.json */

/*
 * The files of one day directory: DIR/days/DATE, or the temporary
 * directory a run fills before it replaces the day's.
 */
char *workspace_daydir_json(const char *daydir);	/* day.json */
char *workspace_daydir_reports(const char *daydir);	/* reports */
char *workspace_daydir_mail_json(const char *daydir);	/* reports/mail.json */
char *workspace_daydir_build_log(const char *daydir);	/* build.log */
char *workspace_daydir_console_log(const char *daydir);	/* console.log */
char *workspace_daydir_merge_log(const char *daydir);	/* merge.log */

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
