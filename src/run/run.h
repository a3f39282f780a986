#ifndef TIDE_RUN_H
#define TIDE_RUN_H

#include <stddef.h>

#include "day.h"
#include "event.h"
#include "kcidb.h"

struct workspace;
struct trees_conf;
struct settings;

/*
 * One integration day: fetch every tree, merge them in order onto the
 * base tag, commit Next/ files, write the day record, tag next-YYYYMMDD.
 * The day is built in a temporary directory and put into place only when
 * complete; the tag moves last, so a killed run leaves every earlier day
 * as it was.  Then the workspace's dashboard is written again and the
 * day sent to KCIDB (when DIR/config asks): a whole day.
 */
struct run_opts {
	const char *date;	/* YYYY-MM-DD; NULL: today (UTC) */
	int no_build;		/* skip the build stage */
	int no_boot;		/* skip the boot stage */
	int jobs;		/* parallel fetches; default 4 */
	/*
	 * Configurations built side by side and make jobs in all: trees.conf's
	 * build-parallel= and build-jobs= when 0.
	 */
	int build_parallel, build_jobs;
	/*
	 * Gets every event of the run (src/event.h); each message is also
	 * appended to DIR/tide.log.
	 */
	struct event_sink events;
	/* What each tree's merge may add to the run's memory (DIR/config merge-memory); 0: the default. */
	size_t merge_memory;
	/*
	 * DIR/config: its kcidb-submit= (with kcidb-origin=, kcidb-url=,
	 * kcidb-token-file=, kcidb-timeout=, checked by the caller) sends
	 * the day to a KCIDB server once it is recorded.  NULL: nothing sent.
	 */
	const struct settings *settings;
};

#define RUN_OPTS_INIT { NULL, 0, 0, 4, 0, 0, EVENT_SINK_INIT, 0, NULL }

struct run_summary {
	char date[11];
	char tag[16];
	/* The trees by outcome, day_counts() of the day recorded: what tide log says. */
	struct day_counts counts;
	int stage_failed;	/* build or boot reported a failure */
	/* The check at the door (fsck_history()): what it read, and its time. */
	size_t door_commits, door_trees;
	double door_seconds;
	/*
	 * The stages after the day is recorded, which never change it:
	 * DIR/regressions.json updated (what changed, or why it was not),
	 * DIR/dashboard written again (why it is not whole, or NULL), and
	 * the day's KCIDB submission (kcidb_asked: opts' settings had
	 * kcidb-submit=).
	 */
	char *regressions_changes, *regressions_warning;
	char *dashboard_warning, *dashboard_regressions_warning;
	char *kcidb_regressions_warning;	/* the document went without them: why */
	int kcidb_asked;
	struct kcidb_submission kcidb;
};

/* What run_day() left in a summary; the summary can be used again. */
void run_summary_release(struct run_summary *sum);

/*
 * Returns 0 when the day was recorded (the summary tells whether trees
 * were left out), or a TIDE_E* code when no day could be made: bad date
 * (TIDE_EINVAL), base tag missing (TIDE_ENOTFOUND), repository or I/O
 * failure.
 */
int run_day(struct run_summary *out, struct workspace *ws, const struct trees_conf *conf,
	    const struct run_opts *opts);

/* Today's date in UTC as YYYY-MM-DD (out has room for 11 bytes). */
void run_today(char *out);

#endif
