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

/*
 * Text a tree wrote (a commit subject, an author) as tide copies it into
 * published files: at most max bytes, cut at a UTF-8 character boundary
 * and marked with "[...]" when cut.  A 100 MB commit message must not
 * become a 100 MB line of Next/merge.log, committed every day.
 */
#define NEXTFILES_SUBJECT_MAX 256	/* merge.log, day.json, reports */
#define NEXTFILES_AUTHOR_MAX 256	/* day.json, reports */
#define NEXTFILES_DIFFSTAT_FILES 1000	/* files listed per merge in merge.log */
void nextfiles_cut(struct buf *out, const char *text, size_t max);
/* nextfiles_cut() of s into a new string, in place of s (freed); NULL stays NULL. */
char *nextfiles_cut_owned(char *s, size_t max);

/* merge.log pieces, appended to out in the order the run does things; subjects cut. */
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
