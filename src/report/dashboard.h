#ifndef TIDE_DASHBOARD_H
#define TIDE_DASHBOARD_H

#include <stddef.h>

#include "buf.h"

/*
 * The static HTML dashboard of a workspace (man/tide-dashboard.1), built
 * from the day records and DIR/regressions.json only: index.html (the
 * newest day's problems first, trees by days with each day's totals,
 * build, boot and bisect and a trend of build and boot times where
 * something was built), one page per day (day-YYYY-MM-DD.html, its
 * problems first) and per tree (tree-NAME.html), style.css.
 * No JavaScript; links to the day's logs and reports are relative, so
 * the pages read from files and from any web server that publishes the
 * workspace.  Every page is written atomically, below out_dir only.
 */

/* How many of the newest days index.html shows (every day has its page). */
#define DASHBOARD_INDEX_DAYS 30

struct dashboard_result {
	size_t days;		/* day records read */
	size_t trees;		/* rows of the grid */
	size_t pages;		/* files written, style.css included */
	size_t unreadable;	/* day records that could not be read (left out) */
	char *first_unreadable;	/* "PATH: why" of the first one, or NULL */
	char *regressions_unreadable;	/* why DIR/regressions.json was left out, or NULL */
};

/*
 * Write the dashboard of the workspace wsdir into out_dir (created when
 * missing).  TIDE_ENOTFOUND when the workspace has no day yet, TIDE_EIO
 * naming out_dir (or the file) when it cannot be written.
 */
int dashboard_write(struct dashboard_result *out, const char *wsdir, const char *out_dir);
void dashboard_result_release(struct dashboard_result *res);
/*
 * "N day records could not be read, marked unreadable (PATH: why)", or
 * NULL when every record was read.  The caller frees it.
 */
char *dashboard_unreadable_text(const struct dashboard_result *res);

/* s as HTML text or attribute value: & < > " ' escaped, control bytes U+FFFD. */
void html_escape(struct buf *out, const char *s);
/* s as a URL path: bytes other than A-Z a-z 0-9 - . _ ~ / as %XX. */
void url_path_escape(struct buf *out, const char *s);
/*
 * The file name of a page about name: prefix, then name with bytes other
 * than A-Z a-z 0-9 - . as _XX (so no '/', no leading '.', one name per
 * page), then ".html".  The caller frees it.
 */
char *dashboard_page_name(const char *prefix, const char *name);
/* The path to reach to (absolute) from the directory from (absolute), lexically. */
char *path_relative(const char *from, const char *to);

#endif
