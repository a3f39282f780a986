#ifndef TIDE_REPORT_H
#define TIDE_REPORT_H

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
 *     { "date", "tag", "tree", "with": ["fixes"], "handled", "version_from",
 *       "new": true, "files": [ { "path", "kind", "conflict_id", "hunks",
 *       "ours_commits", "theirs_commits", "resolution": { "id", "diff" } } ],
 *       "errors": [...], "fixups": [...] }
 *
 * "conflict_id" is the git rerere id of the file's conflict; "new" says
 * whether some id was not in that tree's report of the previous day.
 */

/* Does this tree of the day have a conflict report? */
int report_tree_has_conflict(const struct day_tree *dt);

/* The report of one tree; prev (may be NULL) is the previous day's record. */
int report_tree_json(json_t **out, const struct day *day, const struct day_tree *dt,
		     const struct day *prev);

/* The linux-next style mail text of a report. */
void report_text(struct buf *out, const json_t *report);

/* Write DIR/reports/<tree>.txt and .json for every tree with a conflict; returns the count. */
int report_write_day(const struct day *day, const struct day *prev, const char *daydir);

/*
 * The mail for a report: To the tree's contact, Cc the other trees'
 * contacts (from conf), From from.  TIDE_ENOTFOUND when nobody has a
 * contact address.
 */
int report_mail(struct mail_msg *out, const json_t *report, const struct trees_conf *conf,
		const char *from);

#endif
