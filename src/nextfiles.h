#ifndef TIDE_NEXTFILES_H
#define TIDE_NEXTFILES_H

#include <git2.h>

#include "buf.h"

struct trees_conf;
struct day;

/*
 * The files linux-next adds under Next/ in every daily tree, in its
 * formats (see shared/reference/linux-next/<file>.sample): the tree table, the
 * commit each tree was at, and the log of the day's merges.
 */
void nextfiles_trees(struct buf *out, const struct trees_conf *conf);
void nextfiles_sha1s(struct buf *out, const struct day *day);

/* merge.log pieces, appended to out in the order the run does things. */
void nextfiles_log_start(struct buf *out, const char *base_tag, const char *base_abbrev,
			 const char *base_subject);
void nextfiles_log_merging(struct buf *out, const char *ref, const char *abbrev,
			   const char *subject);
/* outcome: the text git would print ("Already up to date.", ...), one or more lines. */
void nextfiles_log_outcome(struct buf *out, const char *outcome);

/* "-next-YYYYMMDD\n" for the localversion-next file. */
void nextfiles_localversion(struct buf *out, const char *date);

/*
 * The day's last commit, on state: its tree with Next/Trees, Next/SHA1s
 * and Next/merge.log (mergelog) written (other Next/ files kept) and
 * localversion-next, "Add linux-next specific files for YYYYMMDD".
 */
int nextfiles_commit(git_oid *out, git_repository *repo, const git_signature *sig,
		     const git_oid *state, const struct trees_conf *conf, const struct day *day,
		     const struct buf *mergelog);

#endif
