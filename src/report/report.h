#ifndef TIDE_REPORT_H
#define TIDE_REPORT_H

#include <git2.h>
#include <jansson.h>

#include "buf.h"

struct day;
struct day_tree;
struct trees_conf;
struct mail_msg;

/*
 * Per-tree conflict reports, built from the day record only (data flows
 * one way).  A tree's record tells how its conflict was handled through
 * keys the conflict stage adds to the tree object of day.json:
 *
 *     "handled": "recorded" | "previous" | "dropped"
 *     "version_from": "next-YYYYMMDD"             (handled == previous)
 *     "resolutions": [ { "path", "id", "diff" } ]  (recorded resolutions used)
 *     "resolution_errors": [ "..." ]              (corrupt/stale entries)
 *     "fixups": [ "name.patch" ], "fixup_error": "..."
 *
 * The JSON report of a tree:
 *
 *     { "date", "tag", "project", "tree", "with": ["fixes"], "handled", "version_from",
 *       "new": true, "files": [ { "path", "kind", "conflict_id", "hunks",
 *       "ours_commits", "theirs_commits", "resolution": { "id", "diff" } } ],
 *       "errors": [...], "fixups": [...] }
 *
 * "conflict_id" is the git rerere id of the file's conflict; "new" says
 * whether some id was not in that tree's report of the previous day, or
 * the report has configurations.  When the day declares configurations
 * and some build has errors or new warnings in the tree's files, the
 * report has
 *
 *     "configs": [ { "name", "arch", "status", "errors": [...],
 *                    "new_warnings": [...] } ]
 *
 * in the day's order (its own build first), only the diagnostics
 * attributed to the tree (the build record's objects), and, when the
 * day's bisect named a commit of the tree, "culprit": {"commit",
 * "subject", "conflicts_with"?}.  A tree without
 * a conflict has "files": [], "with": [] and no "handled".
 */

/*
 * The project name the reports use ("Today's NAME merge of ..."):
 * trees.conf's "#tide project=NAME", else "linux-next" when the base is a
 * kernel tree (a top-level Kbuild and Kconfig), else the workspace
 * directory's name.  run records it in day.json as "project"; a record
 * without one is a linux-next day.  The caller frees it.
 */
char *report_project_name(const struct trees_conf *conf, git_repository *repo,
			  const git_oid *base, const char *wsdir);

/* Does this tree of the day have a conflict? */
int report_tree_has_conflict(const struct day_tree *dt);

/*
 * Does this tree of the day have a report: a conflict, or a declared
 * configuration (trees.conf's "#tide config") whose build has errors or
 * new warnings attributed to it (the diagnostics' "tree")?  Boots are
 * not attributed to trees, so a failed boot makes no report.
 */
int report_tree_has_report(const struct day *day, const struct day_tree *dt);

/* The report of one tree; prev (may be NULL) is the previous day's record. */
int report_tree_json(json_t **out, const struct day *day, const struct day_tree *dt,
		     const struct day *prev);

/* The linux-next style mail text of a report. */
void report_text(struct buf *out, const json_t *report);

/* Write DIR/reports/<tree>.txt and .json for every tree with a conflict; returns the count. */
int report_write_day(const struct day *day, const struct day *prev, const char *daydir);

/*
 * The mail for a report, in linux-next's layouts ("manual merge of the X
 * tree with the Y tree", "build failure after merge of the X tree"): To
 * the contacts (from conf) of the tree and of the trees it conflicts
 * with, Cc the authors of the commits it names (mail_add_author()), From
 * from.  TIDE_ENOTFOUND when no tree has a contact address.
 */
int report_mail(struct mail_msg *out, const json_t *report, const struct trees_conf *conf,
		const char *from);

/*
 * The day's announcement to the project's list, shaped like linux-next's
 * "linux-next: Tree for Dec 3": the tag and its base, the "Changes since"
 * section against prev (src/changes.h; none without a previous day), and
 * the trees that were not merged at today's version, with their status.
 * To to, From from.
 */
int report_announcement(struct mail_msg *out, git_repository *repo, const struct day *d,
			const struct day *prev, const char *to, const char *from);

#endif
