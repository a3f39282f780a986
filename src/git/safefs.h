#ifndef TIDE_SAFEFS_H
#define TIDE_SAFEFS_H

#include <stddef.h>

#include "buf.h"

/*
 * Files written from a tree (the kernel checkout in DIR/build/src, the
 * worktrees of tide resolve, the shared rr-cache) go through here: every
 * path is opened relative to a directory fd of its root, one component
 * at a time, with O_NOFOLLOW, so neither a name like ".." (each component
 * must pass fsck_entry_name()) nor a symbolic link the tree itself made
 * can lead a write or a removal outside the root.  A symbolic link (or a
 * file) where a directory is wanted is removed and replaced by a
 * directory, never followed.
 *
 * `shown` arguments name the path in error messages.
 */

/*
 * Open the directory rel (len bytes, '/'-separated, relative) below
 * rootfd; len 0 opens rootfd itself again.  create: missing directories
 * are made and anything else in the way removed (counted in *removed
 * when removed is not NULL).  Without create, a component that is
 * missing or not a directory is TIDE_ENOTFOUND.  A bad component is
 * TIDE_EINVAL.
 */
int safefs_open_dir(int *out, int rootfd, const char *rel, size_t len, int create,
		    size_t *removed);

/*
 * Open the directory holding rel (as safefs_open_dir) and point *name at
 * rel's last component.
 */
int safefs_open_parent(int *out, const char **name, int rootfd, const char *rel, int create,
		       size_t *removed);

/* name in dirfd as a directory (whatever else is there removed), opened. */
int safefs_mkdir(int *out, int dirfd, const char *name, size_t *removed, const char *shown);

/* Remove name in dirfd and, if a directory, all it holds; missing is fine. */
int safefs_remove(int dirfd, const char *name, const char *shown);

#define SAFEFS_EXEC 1		/* mode 0755, else 0644 */
#define SAFEFS_LINK 2		/* a symbolic link to data */
#define SAFEFS_ATOMIC 4		/* written aside and renamed into place */

/* Write name in dirfd, replacing whatever is there. */
int safefs_write(int dirfd, const char *name, const void *data, size_t len, int flags,
		 const char *shown);

/*
 * Reading the workspace's files that others can change (rr-cache entries,
 * which also come from shared caches; day records; tide's commit-graph;
 * caches) as untrusted input: the file is opened with O_NOFOLLOW and
 * O_NONBLOCK and read only when fstat() says it is a regular file of at
 * most max bytes, so a symbolic link is never read through, a FIFO never
 * blocks, a device never streams, and a huge file costs nothing.  A file
 * that grows past max while it is read is refused too.
 *
 * Appends to out.  Missing: TIDE_ENOTFOUND; a link, something that is
 * not a regular file, or too big: TIDE_EINVAL naming shown and why;
 * TIDE_EIO when reading fails.
 */
int safefs_read_at(struct buf *out, int dirfd, const char *name, size_t max,
		   const char *shown);

/*
 * safefs_read_at() of a path: the directory holding the file is opened
 * with O_NOFOLLOW as well (DIR/rr-cache/<id>/, DIR/days/<date>/), so
 * neither the file nor its directory leads out of the workspace.
 */
int safefs_read_file(struct buf *out, const char *path, size_t max);

/*
 * A file named by the person who runs tide, outside the workspace (a
 * local quilt series): links are followed, as they chose the path, but
 * the file must still be a regular one of at most max bytes, so a FIFO or
 * a device named by a series does not hang or flood the run.
 */
int safefs_read_regular(struct buf *out, const char *path, size_t max);

/*
 * rel (relative, '/'-separated, each component checked as safefs_open_dir()
 * does) below the directory root, read as safefs_read_at() reads: no
 * symbolic link is followed on the way either, root's last component
 * included (a resolve worktree that is a link is not a worktree).
 */
int safefs_read_under(struct buf *out, const char *root, const char *rel, size_t max);

#endif
