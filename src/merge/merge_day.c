/*
 * The day's merge stage (merge_day.h): one tree at a time onto the day's
 * state, its conflicts, recorded resolutions, previous versions, fixups.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "ccdiff.h"
#include "conf.h"
#include "day.h"
#include "diffstat.h"
#include "error.h"
#include "event.h"
#include "fetch.h"
#include "fsck.h"
#include "graph.h"
#include "history.h"
#include "lineblame.h"
#include "mailmap.h"
#include "merge.h"
#include "merge_day.h"
#include "merge_isolate.h"
#include "merge_step.h"
#include "next_base.h"
#include "nextfiles.h"
#include "quilt.h"
#include "rerere.h"
#include "text.h"
#include "treepaths.h"
#include "util.h"
#include "workspace.h"

#define MAX_SIDE_COMMITS 50	/* commits recorded per side of a conflict */
#define MAX_WALK 5000		/* commits examined per side */
#define QUILT_TIMEOUT 300	/* one quilt file's transfer ("timeout="), man/trees.conf.5 */

/* ---- one tree ---- */

static int commit_exists(git_repository *repo, const git_oid *id)
{
	git_commit *c = NULL;
	int ok = git_commit_lookup(&c, repo, id) == 0;

	git_commit_free(c);
	return ok;
}

/*
 * Every commit that can reach a merge is checked first (src/fsck.h): a
 * tree entry named "..", "a/b" or ".git" would otherwise be written
 * outside DIR/build/src by the checkout, or into a resolution worktree.
 * The set of trees found good makes this a walk of today's new trees.
 * TIDE_EINVAL (message: the path and why) when the commit is refused.
 */
static int check_commit(struct merge_day *md, const git_oid *commit)
{
	return fsck_tree(md->fsck, md->repo, commit);
}

/*
 * A tip, and its history since the base or what an earlier check found
 * good: every commit parses, every object its trees name is there (git's
 * connectivity check after a fetch).  Any error refuses the tip.
 */
static int check_history(struct merge_day *md, const git_oid *tip)
{
	return fsck_history(md->fsck, md->repo, tip, &md->base, 1);
}

/*
 * A tree that could not be fetched, or conflicts, is merged as it was on
 * the last day it was merged, if its commit is still in the repository.
 * The earlier days are read once a run, newest first and only as far
 * back as a lookup needs, into this index: looking each such tree up day
 * by day read every earlier day.json again for each one (all of them for
 * a tree that never merged), 0.1 s a tree with a few days on disk.
 */
struct previous_entry {
	char *tree, *sha, *from;
};

struct previous_index {
	struct previous_entry *v;	/* in day order, newest first */
	size_t n, alloc;
	char **dates;			/* the days on disk, oldest first */
	int ndates, next;		/* next: the newest day not read yet, -1 when none */
};

/* The trees a day merged (in any way that counts as merged) with their commits. */
static void previous_add_day(struct previous_index *x, const struct day *d)
{
	size_t i;

	for (i = 0; i < d->ntrees; i++) {
		const struct day_tree *dt = &d->trees[i];
		struct previous_entry *e;

		if (!dt->name || !dt->sha || !tree_status_in_day(dt->status))
			continue;
		array_grow(&x->v, &x->alloc, x->n + 1, sizeof(*x->v));
		e = &x->v[x->n++];
		e->tree = xstrdup(dt->name);
		e->sha = xstrdup(dt->sha);
		e->from = xstrdup(d->tag ? d->tag : d->date ? d->date : "an earlier day");
	}
}

/* Read the next older day into the index; 0 when there is none left. */
static int previous_read_day(struct merge_day *md, struct previous_index *x)
{
	while (x->next >= 0) {
		struct day *d = NULL;
		const char *date = x->dates[x->next--];

		if (strcmp(date, md->sum->date) > 0)
			continue;	/* a later day (today's run is for an older date) */
		if (day_open(&d, md->days_dir, date) < 0) {
			tide_error_clear();
			continue;
		}
		previous_add_day(x, d);
		day_free(d);
		return 1;
	}
	return 0;
}

static struct previous_index *previous_index(struct merge_day *md)
{
	struct previous_index *x = md->previous;

	if (x)
		return x;
	x = md->previous = xcalloc(1, sizeof(*x));
	if ((x->ndates = day_list(&x->dates, md->days_dir)) < 0) {
		tide_error_clear();
		x->ndates = 0;
	}
	x->next = x->ndates - 1;
	return x;
}

static void previous_index_free(struct previous_index *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->n; i++) {
		free(x->v[i].tree);
		free(x->v[i].sha);
		free(x->v[i].from);
	}
	free(x->v);
	day_list_free(x->dates, x->ndates);
	free(x);
}

/*
 * The newest day up to today's date (a rerun's earlier record of today
 * too) that merged tree t at a commit still here: the days already read
 * first, then older ones, each read once a run.
 */
static int find_previous_sha(struct merge_day *md, const struct tree *t, git_oid *out, char **from)
{
	struct previous_index *x = previous_index(md);
	size_t i = 0;

	do {
		for (; i < x->n; i++)
			if (!strcmp(x->v[i].tree, t->name) && git_oid_fromstr(out, x->v[i].sha) == 0 &&
			    commit_exists(md->repo, out)) {
				*from = xstrdup(x->v[i].from);
				return 1;
			}
	} while (previous_read_day(md, x));
	git_error_clear();
	return 0;
}

/*
 * The earlier days try_previous() may look through, read here, before the
 * tree's process starts: what that process reads dies with it, and a tree
 * conflicting day after day had its process read every earlier day.json
 * again (on git.git's 400 topics, a third of an unchanged night's CPU).
 * Read here, each day is read once a run and every tree's process
 * inherits the index.
 */
static void prefetch_previous(struct merge_day *md, const struct tree *t)
{
	git_oid prev;
	char *from = NULL;

	if (find_previous_sha(md, t, &prev, &from))
		free(from);
}

/* A file named in trees.conf: as given when absolute, else relative to trees.conf. */
static char *conf_relative_path(const struct merge_day *md, const char *name)
{
	const char *slash = strrchr(md->conf->path, '/');

	if (name[0] == '/' || !slash)
		return xstrdup(name);
	return xasprintf("%.*s/%s", (int)(slash - md->conf->path), md->conf->path, name);
}

/*
 * "#tide NAME fuzz=N": hunks may ignore up to N outer context lines, as
 * patch --fuzz; exact (0) unless a tree asks, as dpkg-source and git am.
 */
/*
 * Quilt and mmotm trees: the series applied onto the base as commits
 * (refs/quilt/<tree>).  The one place a quilt tree becomes a commit.
 */
/* *applying: 1 when the files were fetched and the series did not apply. */
static int prepare_quilt(struct merge_day *md, const struct tree *t, git_oid *tip, int *applying)
{
	struct quilt_opts qopts = QUILT_OPTS_INIT;
	struct quilt_stats stats = { 0 };
	char *cachedir = workspace_quilt_tree(md->ws->dir, t->name);
	const char *cainfo = tree_opt(t, "cainfo");
	char *ca = NULL;
	double start;
	int error;

	/* "#tide NAME cainfo=FILE": CA bundle for https://, relative to trees.conf. */
	if (cainfo)
		qopts.cainfo = ca = conf_relative_path(md, cainfo);

	/* "#tide NAME timeout= stall= max-size=", checked by conf.c. */
	qopts.timeout = tree_opt_seconds(t, "timeout", QUILT_TIMEOUT);
	qopts.low_speed_time = tree_opt_seconds(t, "stall", FETCH_STALL);
	qopts.max_size = tree_opt_size(t, "max-size", QUILT_MAX_SIZE);
	/* "max-patches= series-timeout=": a series of any length must end. */
	qopts.max_patches = tree_opt_count(t, "max-patches", QUILT_MAX_PATCHES);
	qopts.series_timeout = tree_opt_seconds(t, "series-timeout", QUILT_SERIES_TIMEOUT);
	if (md->conf->fetch_deadline)
		qopts.deadline = time_now() + (double)md->conf->fetch_deadline - md->fetch->spent;
	start = time_now();
	/* "fuzz=N", 0 to 10, checked by conf.c. */
	qopts.fuzz = tree_opt(t, "fuzz") ? atoi(tree_opt(t, "fuzz")) : 0;
	error = quilt_prepare(tip, &stats, md->repo, t->name, t->location, cachedir,
			      &md->base, &qopts);
	md->fetch->spent += time_now() - start;
	*applying = error < 0 && stats.fetched;
	event_emitf(&md->events, EVENT_FETCH, EVENT_INFO, t->name, "%s: quilt series: %zu requests, %zu downloaded, %zu not modified",
		  t->name, stats.requests, stats.downloaded, stats.not_modified);
	free(ca);
	free(cachedir);
	return error;
}

/* Find the tip to merge; 0 with dt->status TREE_FETCH_FAILED when there is none. */
static int tree_tip(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			git_oid *tip, int *have)
{
	const struct fetch_job *job = t->type == TREE_GIT ? fetch_day_job(md->fetch, t) : NULL;
	double start = time_now();
	char *from = NULL;
	int error = 0, applying = 0;

	*have = 0;
	if (job) {
		dt->fetch_seconds = job->seconds;
		if (!job->error)
			git_oid_cpy(tip, &job->oid);
		else
			dt->fetch_error = xstrdup(job->message);
	} else {
		error = prepare_quilt(md, t, tip, &applying);
		dt->fetch_seconds = time_now() - start;
		if (error < 0)
			dt->fetch_error = xstrdup(tide_error_last());
	}
	if (!dt->fetch_error) {
		dt->fetch_status = xstrdup("ok");
		*have = 1;
	} else if (find_previous_sha(md, t, tip, &from)) {
		dt->fetch_status = xstrdup("stale");
		event_emitf(&md->events, EVENT_FETCH, EVENT_WARNING, t->name, "%s: %s, using its commit of %s", t->name,
			  applying ? "a patch failed to apply" : "fetch failed", from);
		dt->fetch_patch_failed = applying;
		*have = 1;
	} else {
		dt->fetch_status = xstrdup("failed");
		dt->fetch_patch_failed = applying;
		dt->status = applying ? TREE_PATCH_FAILED : TREE_FETCH_FAILED;
	}
	free(from);
	return 0;
}

/* ---- conflicts ---- */

/*
 * Decoded from the commit's encoding: a Latin-1 subject must not vanish
 * from a report; cut as published files take it (nextfiles.h).
 */
static char *commit_subject(const git_commit *c)
{
	return nextfiles_cut_owned(commit_summary_utf8((git_commit *)c), NEXTFILES_SUBJECT_MAX);
}

/* The author as the base's .mailmap names them today. */
static char *commit_author(const struct merge_day *md, const git_commit *c)
{
	return nextfiles_cut_owned(commit_author_utf8(c, md->mailmap), NEXTFILES_AUTHOR_MAX);
}

/*
 * How a side's list of a conflict's commits came about: by the lines of
 * its hunks (as `git log -L` on them), or, when there are none to trace,
 * by the file (every commit that changed it), which the record says.
 */
enum side_blame {
	BLAME_LINES,
	BLAME_NO_LINES,		/* no text hunks: modify/delete, binary, a file/directory ... */
	BLAME_UNPLACED,		/* the hunks' lines are not a run of the side's version */
};

/* A tree's conflicts as the walks of its two sides need them (index 0 ours, 1 theirs). */
struct conflict_sides {
	size_t n;
	const char **path[2];		/* the file in each side's tip (they differ under renames) */
	struct line_ranges *lines[2];	/* the conflicting lines in each side's version */
	enum side_blame *how[2];
	unsigned char *status[2];	/* enum graph_lines_status, from the line walk */
};

static void conflict_sides_init(struct conflict_sides *cs, const struct merge_result *res)
{
	size_t i, side;

	cs->n = res->nconflicts;
	for (side = 0; side < 2; side++) {
		cs->path[side] = xcalloc(cs->n + 1, sizeof(*cs->path[side]));
		cs->lines[side] = xcalloc(cs->n + 1, sizeof(*cs->lines[side]));
		cs->how[side] = xcalloc(cs->n + 1, sizeof(*cs->how[side]));
		cs->status[side] = xcalloc(cs->n + 1, 1);
		for (i = 0; i < cs->n; i++) {
			const struct merge_conflict *mc = &res->conflicts[i];
			const char *p = side ? mc->theirs_path : mc->ours_path;

			cs->path[side][i] = p ? p : mc->path;
			cs->how[side][i] = BLAME_NO_LINES;
		}
	}
}

static void conflict_sides_release(struct conflict_sides *cs)
{
	size_t i, side;

	for (side = 0; side < 2; side++) {
		for (i = 0; i < cs->n; i++)
			line_ranges_release(&cs->lines[side][i]);
		free(cs->path[side]);
		free(cs->lines[side]);
		free(cs->how[side]);
		free(cs->status[side]);
	}
}

static void add_day_hunk(void *payload, const char *hunk, size_t len)
{
	char *copy = xstrndup(hunk, len);

	day_conflict_add_hunk(payload, copy);
	free(copy);
}

/* A blob to read as text: none over the merge's limits (never merged by line, merge.h). */
static int blob_text(git_blob **out, git_repository *repo, const git_oid *id, unsigned mode)
{
	size_t size;

	*out = NULL;
	if (!mode || git_oid_is_zero(id) || merge_diff_over_limits(repo, id, NULL, &size, &size) ||
	    git_blob_lookup(out, repo, id) < 0) {
		git_error_clear();
		return -1;
	}
	return 0;
}

/*
 * Conflict i's hunks from its merged file (merged, the blob in the
 * result), and where they are in each side's version of the file.
 */
static void conflict_text(struct merge_day *md, struct day_conflict *dc,
			  const struct merge_conflict *mc, const git_blob *merged,
			  struct conflict_sides *cs, size_t i)
{
	git_blob *side[2] = { NULL, NULL };
	const char *text = git_blob_rawcontent(merged);
	size_t len = (size_t)git_blob_rawsize(merged);
	int ok[2];

	conflict_regions(text, len, mc->marker_size, add_day_hunk, dc);
	if (!dc->nhunks || blob_text(&side[0], md->repo, &mc->ours, mc->ours_mode) < 0 ||
	    blob_text(&side[1], md->repo, &mc->theirs, mc->theirs_mode) < 0)
		goto done;
	line_ranges_of_conflicts(&cs->lines[0][i], &ok[0], &cs->lines[1][i], &ok[1], text, len,
				 mc->marker_size,
				 git_blob_rawcontent(side[0]), (size_t)git_blob_rawsize(side[0]),
				 git_blob_rawcontent(side[1]), (size_t)git_blob_rawsize(side[1]));
	cs->how[0][i] = ok[0] ? BLAME_LINES : BLAME_UNPLACED;
	cs->how[1][i] = ok[1] ? BLAME_LINES : BLAME_UNPLACED;
	if (ok[0])
		dc->ours_lines = line_ranges_format(&cs->lines[0][i]);
	if (ok[1])
		dc->theirs_lines = line_ranges_format(&cs->lines[1][i]);
	if (strcmp(cs->path[0][i], mc->path))
		dc->ours_path = xstrdup(cs->path[0][i]);
	if (strcmp(cs->path[1][i], mc->path))
		dc->theirs_path = xstrdup(cs->path[1][i]);
done:
	git_blob_free(side[0]);
	git_blob_free(side[1]);
}

/*
 * Every conflict's hunks and conflicting lines, in one pass over the
 * merged tree: a tree conflicting in 10,000 files of one directory reads
 * that directory once, not once per file.
 */
static void conflict_texts(struct merge_day *md, struct day_tree *dt,
			   const struct merge_result *res, struct conflict_sides *cs)
{
	const char **paths = xcalloc(res->nconflicts + 1, sizeof(*paths));
	struct tree_path_entry *e = xcalloc(res->nconflicts + 1, sizeof(*e));
	struct tree_paths *tp;
	git_blob *blob = NULL;
	size_t i;

	for (i = 0; i < res->nconflicts; i++)
		paths[i] = res->conflicts[i].path;
	tp = tree_paths_new(paths, res->nconflicts);
	if (tree_paths_read(e, tp, md->repo, &res->tree) < 0)
		goto done;
	for (i = 0; i < res->nconflicts; i++) {
		if (blob_text(&blob, md->repo, &e[i].id, e[i].mode) < 0)
			continue;
		conflict_text(md, &dt->conflicts[i], &res->conflicts[i], blob, cs, i);
		git_blob_free(blob);
	}
done:
	tide_error_clear();
	tree_paths_free(tp);
	free(e);
	free(paths);
}

struct side_walk {
	struct merge_day *md;
	struct day_tree *dt;
	int theirs;
	const size_t *conflict;		/* the walk's path i is conflict[i] */
	size_t n;
};

/* A commit of one side that changed conflicted paths: record it under each. */
static int record_touching(const git_oid *id, int owner, const unsigned char *changed,
			   void *payload)
{
	struct side_walk *s = payload;
	git_commit *c = NULL;
	size_t i;

	if (git_commit_lookup(&c, s->md->repo, id) < 0) {
		git_error_clear();
		return 0;
	}
	for (i = 0; i < s->n; i++) {
		struct day_conflict *dc = &s->dt->conflicts[s->conflict[i]];
		struct day_commit *rc;

		if (!changed[i] || (s->theirs ? dc->ntheirs : dc->nours) >= MAX_SIDE_COMMITS)
			continue;
		rc = day_conflict_add_commit(dc, s->theirs);
		rc->id = history_oid_hex(id);
		rc->subject = commit_subject(c);
		rc->author = commit_author(s->md, c);
		/* owner 0 is the day's base, i > 0 the tip of the i-th merge of the day */
		if (!s->theirs)
			rc->tree = xstrdup(owner > 0 ? s->md->merged[owner - 1].name : "mainline");
	}
	git_commit_free(c);
	return 0;
}

/*
 * One walk of a side for the conflicts picked (conflict[0..n)): by their
 * lines when lines is set (graph_walk_lines()), else by their files
 * (graph_walk_touching()).  See record_side().
 */
static void side_walk(struct merge_day *md, struct day_tree *dt, const git_oid *tip,
		      const git_oidarray *bases, int theirs, const struct conflict_sides *cs,
		      const size_t *conflict, size_t n, int lines)
{
	struct side_walk s = { md, dt, theirs, conflict, n };
	struct graph_walk w;
	const char **paths = xcalloc(n + 1, sizeof(*paths));
	struct line_ranges *ranges = lines ? xcalloc(n + 1, sizeof(*ranges)) : NULL;
	unsigned char *status = xcalloc(n + 1, 1);
	git_oid *owners = NULL;
	size_t i;
	int error;

	for (i = 0; i < n; i++) {
		paths[i] = cs->path[theirs][conflict[i]];
		if (ranges)
			ranges[i] = cs->lines[theirs][conflict[i]];	/* shallow: read only */
	}
	memset(&w, 0, sizeof(w));
	w.tip = tip;
	w.bottoms = bases->ids;
	w.nbottoms = bases->count;
	w.paths = paths;
	w.npaths = n;
	w.max_commits = MAX_WALK;
	w.max_per_path = MAX_SIDE_COMMITS;
	w.lines = ranges;
	w.status = status;
	if (!theirs) {
		owners = xcalloc(md->nmerged + 1, sizeof(*owners));
		git_oid_cpy(&owners[0], &md->base);
		for (i = 0; i < md->nmerged; i++)
			git_oid_cpy(&owners[i + 1], &md->merged[i].tip);
		w.owners = owners;
		w.nowners = md->nmerged + 1;
	}
	error = lines ? graph_walk_lines(md->repo, &w, record_touching, &s)
		      : graph_walk_touching(md->repo, &w, record_touching, &s);
	if (error < 0)
		event_emitf(&md->events, EVENT_CONFLICT, EVENT_WARNING, dt->name,
			  "%s: cannot find the commits of the conflict: %s", dt->name,
			  tide_error_last());
	tide_error_clear();
	for (i = 0; lines && i < n; i++)
		cs->status[theirs][conflict[i]] = status[i];
	free(owners);
	free(status);
	free(ranges);
	free(paths);
}

/*
 * The commits of one side (the day's state, or the tree's tip) since the
 * merge bases that changed the conflicting lines, as `git log -L` on each
 * file's hunks finds them (graph_walk_lines()); for a conflict with no
 * lines to trace, those that changed the file (graph_walk_touching()).
 * Each is one walk, simplified by the paths, so the earlier merges of the
 * day that did not touch them cost a look at their trees.  Every merge
 * base is hidden: a commit below any of them is in both histories, and
 * belongs to neither side.  On the state's side the walk also says which
 * of today's merges (or mainline) brought each commit.
 */
static void record_side(struct merge_day *md, struct day_tree *dt, const git_oid *tip,
			const git_oidarray *bases, int theirs, struct conflict_sides *cs)
{
	size_t *pick = xcalloc(cs->n + 1, sizeof(*pick));
	size_t i, n = 0;

	for (i = 0; i < cs->n; i++)
		if (cs->how[theirs][i] == BLAME_LINES)
			pick[n++] = i;
	if (n)
		side_walk(md, dt, tip, bases, theirs, cs, pick, n, 1);
	for (n = 0, i = 0; i < cs->n; i++)
		if (cs->how[theirs][i] != BLAME_LINES ||
		    cs->status[theirs][i] == GRAPH_LINES_UNREADABLE)
			pick[n++] = i;
	if (n)
		side_walk(md, dt, tip, bases, theirs, cs, pick, n, 0);
	free(pick);
}

/* Why a side's list of conflict i is not "the commits that changed the lines", or NULL. */
static char *side_note(const struct conflict_sides *cs, const struct day_conflict *dc, size_t i,
		       int theirs, const char *tree)
{
	char *side = theirs ? xasprintf("%s's", tree) : xstrdup("the day's");
	char *note = NULL;

	switch (cs->how[theirs][i]) {
	case BLAME_NO_LINES:
		note = xasprintf("no conflicting lines to follow on %s side (a %s conflict): "
				 "its commits listed are those that changed the file", side, dc->kind);
		break;
	case BLAME_UNPLACED:
		note = xasprintf("the conflicting lines are not found in %s version of the file: "
				 "its commits listed are those that changed the file", side);
		break;
	case BLAME_LINES:
		if (cs->status[theirs][i] == GRAPH_LINES_UNREADABLE)
			note = xasprintf("%s version of the file is binary or too large to follow "
					 "line by line: its commits listed are those that changed "
					 "the file", side);
		else if (cs->status[theirs][i] == GRAPH_LINES_CUT &&
			 (theirs ? dc->ntheirs : dc->nours) >= MAX_SIDE_COMMITS)
			note = xasprintf("only the newest %d commits on %s side that changed the "
					 "lines are listed", MAX_SIDE_COMMITS, side);
		else if (cs->status[theirs][i] == GRAPH_LINES_CUT)
			note = xasprintf("the search on %s side stopped after %d commits: older "
					 "commits that changed the lines are not listed", side, MAX_WALK);
		else if (cs->status[theirs][i] == GRAPH_LINES_BUDGET)
			note = xasprintf("the search on %s side stopped after comparing %zu MB of "
					 "versions of its files: older commits that changed the lines "
					 "are not listed", side, GRAPH_LINES_DIFF_BUDGET >> 20);
		break;
	}
	free(side);
	return note;
}

/* Each conflict's note (day.json "blame"): what its lists of commits cannot say. */
static void blame_notes(struct day_tree *dt, const struct conflict_sides *cs)
{
	size_t i;

	for (i = 0; i < cs->n; i++) {
		struct day_conflict *dc = &dt->conflicts[i];
		char *ours = side_note(cs, dc, i, 0, dt->name);
		char *theirs = side_note(cs, dc, i, 1, dt->name);

		if (ours && theirs && cs->how[0][i] == BLAME_NO_LINES &&
		    cs->how[1][i] == BLAME_NO_LINES)
			dc->blame = xasprintf("no conflicting lines to follow (a %s conflict): the "
					      "commits listed are those that changed the file", dc->kind);
		else if (ours || theirs)
			dc->blame = xasprintf("%s%s%s", ours ? ours : "", ours && theirs ? "; " : "",
					      theirs ? theirs : "");
		free(ours);
		free(theirs);
	}
}

/* ---- conflicts: recorded resolutions, the previous version, fixups ---- */

/* A copy of s made valid UTF-8, as the record keeps it (json_text()). */
static char *text_copy(const char *s)
{
	struct buf b = BUF_INIT;

	if (!s)
		return NULL;
	utf8_lossy(&b, s, strlen(s));
	return buf_detach(&b);
}

/* Set *field to value, replacing what it held. */
static void set_field(char **field, const char *value)
{
	free(*field);
	*field = text_copy(value);
}

static void add_text(char ***list, size_t *n, const char *text)
{
	char *copy = text_copy(text);

	day_strings_add(list, n, copy);
	free(copy);
}

static int merge_clean(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			   const struct merge_result *res, const git_oid *tip);
static char *tree_ref_label(const struct tree *t);

static void note_outcomes(struct day_tree *dt, const struct rerere_outcome *o, size_t n,
			  struct buf *outcome)
{
	struct day_handling *h = &dt->handling;
	char **errors = NULL;
	size_t i, nerrors = 0;

	for (i = 0; i < n; i++) {
		if (o[i].resolved) {
			struct day_resolution *res = day_handling_add_resolution(h);

			res->path = text_copy(o[i].path);
			res->id = text_copy(o[i].id);
			res->diff = text_copy(o[i].diff);
			buf_printf(outcome, "Resolved '%s' using previous resolution.\n", o[i].path);
		} else if (!o[i].missing) {
			char *e = xasprintf("%s: %s", o[i].path, o[i].error);

			add_text(&errors, &nerrors, e);
			free(e);
		}
	}
	if (nerrors) {	/* they replace the store's error */
		for (i = 0; i < h->nresolution_errors; i++)
			free(h->resolution_errors[i]);
		free(h->resolution_errors);
		h->resolution_errors = errors;
		h->nresolution_errors = nerrors;
	}
}

/* At most this much of a file's combined diff goes into the record and the mail. */
#define COMBINED_MAX (256 * 1024)

/* cc as the record keeps it: cut at a line end past COMBINED_MAX, saying so. */
static char *combined_text(struct buf *cc)
{
	size_t keep = cc->len, total = cc->len;

	if (total > COMBINED_MAX) {
		for (keep = COMBINED_MAX; keep > 0 && cc->ptr[keep - 1] != '\n'; keep--)
			;
		buf_truncate(cc, keep);
		buf_printf(cc, "(%zu more bytes of the combined diff left out)\n", total - keep);
	}
	return text_copy(cc->ptr);
}

/*
 * Each resolved file as git shows the merge commit the day is about to
 * write (parents: the state and tip; tree: the resolved one), for the
 * conflict mail.  A file git would not show (the result is one side's)
 * gets none; a failure only loses the text.
 */
static void note_combined(struct merge_day *md, struct day_tree *dt, const git_oid *tip,
			  const git_oid *resolved)
{
	const git_oid parents[2] = { md->state, *tip };
	struct buf cc = BUF_INIT;
	size_t i;

	for (i = 0; i < dt->handling.nresolutions; i++) {
		struct day_resolution *r = &dt->handling.resolutions[i];

		buf_clear(&cc);
		if (!r->path || r->combined)
			continue;
		if (ccdiff_path(&cc, md->repo, r->path, parents, 2, resolved) < 0)
			tide_error_clear();
		else if (cc.len)
			r->combined = combined_text(&cc);
	}
	buf_release(&cc);
}

/*
 * The recorded resolutions (DIR/rr-cache, git rerere's layout) the merge
 * step replayed on every conflicted file; when all resolved, the tree is
 * merged with them.  Returns 1 when merged, 0 when not, or a TIDE_E* code.
 */
static int try_recorded(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			    const struct merge_step *step, const git_oid *tip, struct buf *outcome)
{
	struct merge_result resolved = step->res;	/* only .tree differs */
	int rc = step->kind == MERGE_STEP_MERGED;

	resolved.tree = step->tree;
	if (step->rr_error)	/* a broken store must not stop the day */
		add_text(&dt->handling.resolution_errors, &dt->handling.nresolution_errors,
			 step->rr_error);
	note_outcomes(dt, step->rr, step->nrr, outcome);
	if (rc == 1) {
		set_field(&dt->handling.handled, "recorded");
		note_combined(md, dt, tip, &step->tree);
		nextfiles_log_outcome(md->mergelog, outcome->ptr);
		event_emitf(&md->events, EVENT_CONFLICT, EVENT_INFO, t->name, "%s: conflict resolved from recorded resolutions", t->name);
		if ((rc = merge_clean(md, t, dt, &resolved, tip)) == 0)
			rc = 1;
	}
	return rc;
}

/* Is commit based on a linux-next day (next_base.h)?  An error counts as yes: never merged whole. */
static int next_based(struct merge_day *md, const git_oid *commit)
{
	struct next_base nb;
	int rc = next_base_find(&nb, md->repo, &md->base, commit);

	next_base_release(&nb);
	tide_error_clear();
	return rc != 0;
}

/*
 * No resolution: merge the tree as it was on the last day it merged, if
 * that merges cleanly today.  Returns 1 when merged, 0 when not.
 */
static int try_previous(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			    const git_oid *tip)
{
	struct merge_result res;
	struct merge_opts mopts = MERGE_OPTS_INIT;
	git_commit *ours = NULL, *theirs = NULL;
	char *from = NULL, *label = tree_ref_label(t);
	git_oid prev;
	int rc = 0;

	memset(&res, 0, sizeof(res));
	if (!find_previous_sha(md, t, &prev, &from) || git_oid_equal(&prev, tip) ||
	    next_based(md, &prev))	/* merged whole, it would bring its linux-next day along */
		goto done;
	if (check_history(md, &prev) < 0) {	/* merged before tide checked trees */
		event_emitf(&md->events, EVENT_CHECK, EVENT_PROBLEM, t->name, "%s: its version of %s is refused too: %s", t->name, from,
			  tide_error_last());
		tide_error_clear();
		goto done;
	}
	mopts.ours_label = md->sum->tag;
	mopts.theirs_label = label;
	if (git_commit_lookup(&ours, md->repo, &md->state) < 0 ||
	    git_commit_lookup(&theirs, md->repo, &prev) < 0 ||
	    merge_commits(&res, md->repo, ours, theirs, &mopts) < 0 || res.nconflicts) {
		tide_error_clear();
		goto done;
	}
	md->version_from = from;
	rc = merge_clean(md, t, dt, &res, &prev);
	md->version_from = NULL;
	if (rc < 0)
		goto done;
	dt->status = TREE_PREVIOUS;
	set_field(&dt->handling.attempted_sha, dt->sha);
	free(dt->sha);
	dt->sha = history_oid_hex(&prev);
	set_field(&dt->handling.handled, "previous");
	set_field(&dt->handling.version_from, from);
	event_emitf(&md->events, EVENT_CONFLICT, EVENT_WARNING, t->name, "%s: used the version from %s", t->name, from);
	rc = 1;
done:
	merge_result_clear(&res);
	git_commit_free(ours);
	git_commit_free(theirs);
	free(label);
	free(from);
	return rc;
}

static int previous_isolated(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			     const git_oid *tip);

/*
 * A tree refused (its tip failed the check at the door, or its work
 * failed: see merge_isolate.h) is merged at its last good day's version
 * (status "previous") or left out with status "rejected"; the record,
 * merge.log and the events keep the reason either way.  isolated: try
 * the previous version in a process of its own (the caller is the run,
 * not a tree's process).  Returns 1, or a TIDE_E* code of the workspace.
 */
static int refuse_tip(struct merge_day *md, const struct tree *t, struct day_tree *dt,
		      const git_oid *tip, const char *reason, int isolated)
{
	char abbrev[13], *why;
	int rc;

	history_oid_abbrev(abbrev, tip);
	why = xasprintf("tree '%s' commit %s: %s", t->name, abbrev, reason);
	set_field(&dt->handling.rejected, why);
	nextfiles_log_outcome(md->mergelog, why);
	event_emitf(&md->events, EVENT_CHECK, EVENT_PROBLEM, t->name, "%s", why);
	rc = isolated ? previous_isolated(md, t, dt, tip) : try_previous(md, t, dt, tip);
	if (rc == 0) {
		dt->status = TREE_REJECTED;
		event_emitf(&md->events, EVENT_CHECK, EVENT_PROBLEM, t->name, "%s: refused, left out", t->name);
	}
	free(why);
	return rc < 0 ? rc : 1;
}

/*
 * A tip fsck refuses never reaches a merge (refuse_tip()).  Returns 0
 * when tip is fine, 1 when the tree was handled here, or a TIDE_E* code
 * when tide could not tell.
 */
static int check_tip(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			 const git_oid *tip)
{
	size_t before = md->fsck ? md->fsck->nadded : 0, i;
	double start = time_now();
	char *reason;
	int rc;

	rc = check_history(md, tip);
	md->sum->door_seconds += time_now() - start;
	for (i = before; md->fsck && i < md->fsck->nadded; i++) {
		if (md->fsck->recs[i].height == FSCK_BLOB)
			continue;
		if (md->fsck->recs[i].height)
			md->sum->door_trees++;
		else
			md->sum->door_commits++;
	}
	if (rc == 0)
		return 0;
	reason = xstrdup(tide_error_last());
	tide_error_clear();
	rc = refuse_tip(md, t, dt, tip, reason, 0);
	free(reason);
	return rc;
}

/*
 * Per-tree fixup patches (the *.patch files of DIR/fixups/<tree>, for semantic
 * conflicts) as commits on top of the tree's merge.  A fixup that does not
 * apply is recorded and skipped: the day goes on.
 */
static void fixup_series(struct merge_day *md, const struct tree *t, struct quilt_series *out)
{
	char *dir = workspace_fixups_tree(md->ws->dir, t->name), *abs;
	const char *v;
	size_t i;

	if (quilt_series_from_dir(out, dir) < 0)
		tide_error_clear();
	for (i = 0; i < out->npatches; i++) {
		abs = path_join(dir, out->patches[i]);
		free(out->patches[i]);
		out->patches[i] = abs;
	}
	/* trees.conf "fixup=FILE" extras, relative to the conf's directory. */
	for (i = 0; i < t->nopts; i++) {
		if (strcmp(t->opts[i].key, "fixup") || !*(v = t->opts[i].value))
			continue;
		out->patches = xrealloc(out->patches, (out->npatches + 1) * sizeof(char *));
		abs = conf_relative_path(md, v);
		out->patches[out->npatches++] = path_absolute(abs);
		free(abs);
	}
	free(dir);
}

/*
 * "Applying: SUBJECT" in merge.log for each fixup commit from before to
 * tip (at most n), as `git am` prints them in linux-next's log.
 */
static void log_fixups(struct merge_day *md, const git_oid *before, const git_oid *tip, size_t n)
{
	git_commit *c = NULL, *parent = NULL;
	char **subjects = xcalloc(n ? n : 1, sizeof(*subjects));
	size_t k = 0;

	if (git_commit_lookup(&c, md->repo, tip) < 0)
		goto done;
	while (k < n && !git_oid_equal(git_commit_id(c), before)) {
		subjects[k++] = commit_subject(c);
		if (git_commit_parent(&parent, c, 0) < 0)
			break;
		git_commit_free(c);
		c = parent;
		parent = NULL;
	}
	while (k--) {
		char *line = xasprintf("Applying: %s", subjects[k]);

		nextfiles_log_outcome(md->mergelog, line);
		free(line);
		free(subjects[k]);
	}
done:
	tide_error_clear();
	git_commit_free(c);
	free(subjects);
}

static void apply_fixups(struct merge_day *md, const struct tree *t, struct day_tree *dt)
{
	struct quilt_opts qopts = QUILT_OPTS_INIT;
	struct quilt_series s;
	char *trailer = NULL;
	git_oid tip;
	size_t i;

	qopts.committer_name = md->sig->name;
	qopts.committer_email = md->sig->email;
	/* Bisect and reports map first-parent commits to trees by this trailer. */
	trailer = history_tree_trailer(t->name);
	qopts.trailer = trailer;
	fixup_series(md, t, &s);
	if (!s.npatches)
		goto done;
	if (quilt_apply(&tip, md->repo, &md->state, &s, "/", &qopts) < 0 ||
	    check_commit(md, &tip) < 0) {
		set_field(&dt->handling.fixup_error, tide_error_last());
		event_emitf(&md->events, EVENT_FIXUP, EVENT_PROBLEM, t->name, "%s: fixup failed: %s", t->name, tide_error_last());
		nextfiles_log_outcome(md->mergelog, "Applying fixups failed; none applied.");
		goto done;
	}
	log_fixups(md, &md->state, &tip, s.npatches);
	git_oid_cpy(&md->state, &tip);
	/* The state after this tree: what `tide resolve` merges the next tree onto. */
	set_field(&dt->handling.fixup_commit, git_oid_tostr_s(&tip));
	for (i = 0; i < s.npatches; i++)
		add_text(&dt->handling.fixups, &dt->handling.nfixups, strrchr(s.patches[i], '/') + 1);
	event_emitf(&md->events, EVENT_FIXUP, EVENT_INFO, t->name, "%s: applied %zu fixup%s", t->name, s.npatches, s.npatches == 1 ? "" : "s");
done:
	tide_error_clear();
	quilt_series_release(&s);
	free(trailer);
}

/*
 * A tree whose merge conflicts is left out today; the record says where
 * and why: each conflicted path, its hunks, and the commits of each side
 * that touched it.  The one place a conflict is handled.
 */
static int handle_conflict(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			       const struct merge_step *step, const git_oid *tip)
{
	const struct merge_result *res = &step->res;
	const git_oidarray *bases = &step->bases;
	struct buf outcome = BUF_INIT;
	struct conflict_sides cs;
	size_t i;
	int rc;

	for (i = 0; i < res->nconflicts; i++) {
		const struct merge_conflict *mc = &res->conflicts[i];
		struct day_conflict *dc = day_tree_add_conflict(dt);

		dc->path = xstrdup(mc->path);
		dc->kind = xstrdup(merge_conflict_kind_name(mc->kind));
		buf_printf(&outcome, "CONFLICT (%s): Merge conflict in %s\n", dc->kind, dc->path);
	}
	conflict_sides_init(&cs, res);
	conflict_texts(md, dt, res, &cs);
	/* The base's .mailmap, never the tree's: a tree does not rename people. */
	if (mailmap_from_commit(&md->mailmap, md->repo, &md->base) < 0)
		tide_error_clear();	/* authors then as the commits spell them */
	record_side(md, dt, &md->state, bases, 0, &cs);
	record_side(md, dt, tip, bases, 1, &cs);
	git_mailmap_free(md->mailmap);
	md->mailmap = NULL;
	blame_notes(dt, &cs);
	conflict_sides_release(&cs);
	if ((rc = try_recorded(md, t, dt, step, tip, &outcome)) != 0)
		goto done;
	buf_puts(&outcome, "Automatic merge failed; fix conflicts and then commit the result.\n");
	buf_puts(&outcome, "$ git merge --abort\n");
	nextfiles_log_outcome(md->mergelog, outcome.ptr);
	if ((rc = try_previous(md, t, dt, tip)) != 0)
		goto done;
	dt->status = TREE_CONFLICT;
	set_field(&dt->handling.handled, "dropped");
	event_emitf(&md->events, EVENT_CONFLICT, EVENT_PROBLEM, t->name, "%s: conflict in %zu path%s (%s%s), left out", t->name, res->nconflicts,
		  res->nconflicts == 1 ? "" : "s", res->conflicts[0].path,
		  res->nconflicts > 1 ? ", ..." : "");
done:
	buf_release(&outcome);
	return rc < 0 ? rc : 0;
}

/*
 * A tree whose history shares no commit with the day's (no merge base):
 * merging it would add its whole tree as new files, or conflict in every
 * one, so it is left out with that reason, as git refuses such a merge.
 */
static void leave_unrelated(struct merge_day *md, const struct tree *t, struct day_tree *dt)
{
	const char *why = "no common history with the day";

	dt->status = TREE_CONFLICT;
	set_field(&dt->handling.reason, why);
	set_field(&dt->handling.handled, "dropped");
	nextfiles_log_outcome(md->mergelog, "fatal: refusing to merge unrelated histories");
	event_emitf(&md->events, EVENT_CONFLICT, EVENT_PROBLEM, t->name, "%s: %s, left out", t->name, why);
}

/* ---- merging ---- */

/* "gpio/for-next" for git trees, "quilt/mmotm" for quilt trees. */
static char *tree_ref_label(const struct tree *t)
{
	if (t->type == TREE_GIT)
		return xasprintf("%s/%s", t->name, t->branch);
	return xasprintf("quilt/%s", t->name);
}

struct diffstat_more {
	size_t listed, left_out;
};

/* The diff keeps the first NEXTFILES_DIFFSTAT_FILES files and counts the others. */
static int diffstat_cap(const git_diff *diff, const git_diff_delta *delta, const char *spec,
			void *payload)
{
	struct diffstat_more *more = payload;

	if (more->listed < NEXTFILES_DIFFSTAT_FILES) {
		more->listed++;
		return 0;
	}
	more->left_out++;
	return 1;	/* skip it */
}

/*
 * The diffstat git prints after a merge, for merge.log.  libgit2 1.5's
 * tree diff reads every tree of a 78,000-file kernel, so the diff is
 * limited to the paths the merge engine says differ from ours: it costs
 * what the merge changed.
 */
static void log_diffstat(struct merge_day *md, const git_oid *before, const struct merge_result *res)
{
	git_commit *c = NULL;
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	struct buf text = BUF_INIT;
	struct diffstat_more more = { 0, 0 };
	git_diff_options dopts;

	if (!res->nchanged)
		return;
	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	dopts.pathspec.strings = res->changed;
	dopts.pathspec.count = res->nchanged;
	/* A tree of a million new files must not make merge.log 20 MB longer. */
	dopts.notify_cb = diffstat_cap;
	dopts.payload = &more;
	dopts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	if (git_commit_lookup(&c, md->repo, before) == 0 && git_commit_tree(&a, c) == 0 &&
	    git_tree_lookup(&b, md->repo, &res->tree) == 0 &&
	    git_diff_tree_to_tree(&diff, md->repo, a, b, &dopts) == 0 &&
	    git_diff_find_similar(diff, NULL) == 0 && diffstat_format(&text, md->repo, diff, 80) == 0 &&
	    text.len) {
		if (more.left_out)
			buf_printf(&text, " ... and %zu more files changed (merge.log lists %d a merge)\n",
				   more.left_out, NEXTFILES_DIFFSTAT_FILES);
		nextfiles_log_outcome(md->mergelog, text.ptr);
	}
	tide_error_clear();	/* the log is a courtesy: never fail a merge for it */
	buf_release(&text);
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(c);
}

static int merge_clean(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			   const struct merge_result *res, const git_oid *tip)
{
	const git_oid *parents[2] = { &md->state, tip };
	git_oid before = md->state;
	char *label = tree_ref_label(t);
	char *msg = history_merge_message(t->type == TREE_GIT ? "remote-tracking branch" : "branch",
					  label, t->name, md->version_from);
	git_oid commit;
	int error;

	if ((error = history_commit(&commit, md->repo, md->sig, &res->tree, parents, 2, msg)) < 0)
		goto done;
	git_oid_cpy(&md->state, &commit);
	dt->merge_commit = history_oid_hex(&commit);
	dt->status = TREE_MERGED;
	md->merged = xrealloc(md->merged, (md->nmerged + 1) * sizeof(*md->merged));
	md->merged[md->nmerged].name = t->name;
	git_oid_cpy(&md->merged[md->nmerged++].tip, tip);
	nextfiles_log_outcome(md->mergelog, "Merge made by the 'ort' strategy.");
	log_diffstat(md, &before, res);
	event_emitf(&md->events, EVENT_MERGE, EVENT_PROGRESS, t->name, "%s: merged", t->name);
	apply_fixups(md, t, dt);
done:
	free(msg);
	free(label);
	return error;
}

/* bases: the merge bases of the state and tip (merge_day_tree() found them). */
/*
 * The build of a merge failed (build-each-merge): the merge is dropped
 * for today and the tree retried at its SHA from the last day it merged
 * (linux-next's "used the version from next-YYYYMMDD").
 */
static int drop_merge(struct merge_day *md, const struct tree *t, struct day_tree *dt,
		      const git_oid *before, const git_oid *tip)
{
	int error;

	git_oid_cpy(&md->state, before);
	md->nmerged--;
	free(dt->merge_commit);
	dt->merge_commit = NULL;
	dt->status = TREE_STATUS_NONE;
	nextfiles_log_outcome(md->mergelog, "Build failed after the merge; merge dropped.");
	if ((error = previous_isolated(md, t, dt, tip)) != 0)
		return error < 0 ? error : 0;
	dt->status = TREE_DROPPED;
	set_field(&dt->handling.handled, "dropped");
	return 0;
}

/* The step merged tip (merge_step_run(), conflicts or not): commit it, or handle its conflicts. */
static int merge_tip(struct merge_day *md, const struct tree *t, struct day_tree *dt, const git_oid *tip,
		     const struct merge_step *step)
{
	/* the merge went on as git's does (a rename limit reached): say so */
	for (size_t i = 0; i < step->res.nwarnings; i++)
		event_emitf(&md->events, EVENT_MERGE, EVENT_WARNING, t->name, "%s: %s", t->name,
			    step->res.warnings[i]);
	dt->merge_base = history_oid_hex(&step->bases.ids[0]);
	if (step->res.nconflicts)
		return handle_conflict(md, t, dt, step, tip);
	return merge_clean(md, t, dt, &step->res, tip);
}

static void log_merging(struct merge_day *md, const struct tree *t, const git_oid *tip)
{
	git_commit *c = NULL;
	char *label = tree_ref_label(t);
	char abbrev[13];

	history_oid_abbrev(abbrev, tip);
	if (git_commit_lookup(&c, md->repo, tip) == 0) {
		char *subject = commit_summary_utf8(c);

		nextfiles_log_merging(md->mergelog, label, abbrev, subject);
		free(subject);
	}
	git_commit_free(c);
	free(label);
}

/* The trees of the ours-side commits of dt's conflicts, each once: what moved under a commit. */
static void moved_trees(struct buf *out, const struct day_tree *dt)
{
	size_t i, j;

	for (i = 0; i < dt->nconflicts; i++)
		for (j = 0; j < dt->conflicts[i].nours; j++) {
			const char *tree = dt->conflicts[i].ours[j].tree;
			char *quoted;

			if (!tree)
				continue;
			quoted = xasprintf(" %s,", tree);
			if (!out->ptr || !strstr(out->ptr, quoted))
				buf_puts(out, quoted);
			free(quoted);
		}
	if (out->len)
		buf_truncate(out, out->len - 1);	/* the last comma */
}

/* Did commit c change path (its blob, or presence, differs from its first parent's)? */
static int commit_changes_path(const git_commit *c, const char *path)
{
	git_commit *p = NULL;
	git_tree *a = NULL, *b = NULL;
	git_tree_entry *ea = NULL, *eb = NULL;
	int changed = 0;

	if (git_commit_parent(&p, c, 0) == 0 && git_commit_tree(&a, p) == 0 &&
	    git_commit_tree(&b, c) == 0) {
		int ha = git_tree_entry_bypath(&ea, a, path) == 0;
		int hb = git_tree_entry_bypath(&eb, b, path) == 0;

		changed = ha != hb || (ha && !git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb)));
	}
	git_error_clear();
	git_tree_entry_free(ea);
	git_tree_entry_free(eb);
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(p);
	return changed;
}

static int merged_today(const struct merge_day *md, const char *tree)
{
	size_t i;

	for (i = 0; i < md->nmerged; i++)
		if (!strcmp(md->merged[i].name, tree))
			return 1;
	return 0;
}

/*
 * The trees whose merges in the linux-next day changed a conflicting
 * path and that are not in today's state before this tree (merged after
 * it, or left out): what the commit may need.  The day's first-parent
 * chain below its Next/ commit is read by its Tide-Tree: trailers, down
 * to the first commit without one (its base), at most MAX_WALK commits.
 */
static void needed_trees(struct buf *out, struct merge_day *md, const struct day_tree *dt,
			 const git_oid *day)
{
	git_commit *c = NULL, *p = NULL;
	size_t i, n = 0;
	char *tree;

	if (git_commit_lookup(&c, md->repo, day) < 0 || git_commit_parent(&p, c, 0) < 0)
		goto done;
	while (n++ < MAX_WALK && (tree = history_tree_of(p))) {
		char *quoted = xasprintf(" %s,", tree);

		for (i = 0; i < dt->nconflicts; i++)
			if (strcmp(tree, dt->name) && !merged_today(md, tree) &&
			    (!out->ptr || !strstr(out->ptr, quoted)) &&
			    commit_changes_path(p, dt->conflicts[i].path))
				buf_puts(out, quoted);
		free(quoted);
		free(tree);
		git_commit_free(c);
		c = p;
		p = NULL;
		if (git_commit_parent(&p, c, 0) < 0)
			break;
	}
	if (out->len)
		buf_truncate(out, out->len - 1);
done:
	git_error_clear();
	git_commit_free(p);
	git_commit_free(c);
}

/*
 * A commit of a tree based on linux-next does not apply onto the state:
 * the tree is left out, and its record has the conflicts as a merge's
 * (paths, hunks), the commits of today's state since the linux-next day
 * that touched the conflicting lines (the trees that moved underneath,
 * or mainline) and the commit itself.
 */
static void next_pick_failed(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			     const struct next_base *nb, const struct next_base_pick *pick)
{
	struct day_next_base *rec = &dt->handling.next_base;
	const git_oid *bad = &nb->commits[pick->failed - 1];
	git_oid day = nb->day, parent;
	git_oidarray since_day = { &day, 1 }, since_parent = { &parent, 1 };
	struct buf outcome = BUF_INIT, moved = BUF_INIT, needed = BUF_INIT;
	struct conflict_sides cs;
	git_commit *c = NULL;
	char abbrev[13], *why;
	size_t i;

	history_oid_abbrev(abbrev, bad);
	if (git_commit_lookup(&c, md->repo, bad) == 0) {
		rec->failed_subject = commit_subject(c);
		git_oid_cpy(&parent, git_commit_parent_id(c, 0));
	}
	rec->failed = pick->failed;
	rec->failed_commit = history_oid_hex(bad);
	buf_printf(&outcome, "Applying: %s\n", rec->failed_subject ? rec->failed_subject : abbrev);
	for (i = 0; i < pick->res.nconflicts; i++) {
		const struct merge_conflict *mc = &pick->res.conflicts[i];
		struct day_conflict *dc = day_tree_add_conflict(dt);

		dc->path = xstrdup(mc->path);
		dc->kind = xstrdup(merge_conflict_kind_name(mc->kind));
		buf_printf(&outcome, "CONFLICT (%s): Merge conflict in %s\n", dc->kind, dc->path);
	}
	buf_printf(&outcome, "Patch failed at %04zu %s\n", pick->failed,
		   rec->failed_subject ? rec->failed_subject : abbrev);
	nextfiles_log_outcome(md->mergelog, outcome.ptr);
	/* As a merge's conflict (handle_conflict()), the linux-next day and the commit's parent as bases. */
	conflict_sides_init(&cs, &pick->res);
	conflict_texts(md, dt, &pick->res, &cs);
	if (mailmap_from_commit(&md->mailmap, md->repo, &md->base) < 0)
		tide_error_clear();
	record_side(md, dt, &md->state, &since_day, 0, &cs);
	if (c)
		record_side(md, dt, bad, &since_parent, 1, &cs);
	git_mailmap_free(md->mailmap);
	md->mailmap = NULL;
	blame_notes(dt, &cs);
	conflict_sides_release(&cs);
	moved_trees(&moved, dt);
	needed_trees(&needed, md, dt, &nb->day);
	why = xasprintf("based on %s: its commit %zu of %zu, %s (\"%s\"), does not apply onto "
			"today's state%s%s%s%s", rec->day, pick->failed, nb->ncommits, abbrev,
			rec->failed_subject ? rec->failed_subject : "", moved.len ? "; moved since:" : "",
			moved.len ? moved.ptr : "", needed.len ? "; not merged before it today:" : "",
			needed.len ? needed.ptr : "");
	set_field(&dt->handling.reason, why);
	set_field(&dt->handling.handled, "dropped");
	dt->status = TREE_CONFLICT;
	event_emitf(&md->events, EVENT_CONFLICT, EVENT_PROBLEM, t->name, "%s: %s, left out", t->name, why);
	free(why);
	buf_release(&needed);
	buf_release(&moved);
	buf_release(&outcome);
	git_commit_free(c);
}

/*
 * A tree based on a linux-next day (next_base.h): its own commits are
 * applied onto the state, as linux-next imports a quilt series, and *tip
 * becomes the last of them, which then merges like any tree's (the state
 * its only base; nothing applied: up to date).  Returns 0 (*tip untouched
 * for an ordinary tree), 1 when the tree was left out here (a commit does
 * not apply, a history tide cannot take apart), or a TIDE_E* code.
 */
static int take_next_based(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			   git_oid *tip)
{
	struct day_next_base *rec = &dt->handling.next_base;
	struct next_base nb;
	struct next_base_pick pick;
	char *why;
	int rc;

	memset(&pick, 0, sizeof(pick));
	if ((rc = next_base_find(&nb, md->repo, &md->base, tip)) == TIDE_EINVAL) {
		why = xasprintf("based on linux-next: %s", tide_error_last());
		tide_error_clear();
		dt->status = TREE_CONFLICT;
		set_field(&dt->handling.reason, why);
		set_field(&dt->handling.handled, "dropped");
		nextfiles_log_outcome(md->mergelog, why);
		event_emitf(&md->events, EVENT_MERGE, EVENT_PROBLEM, t->name, "%s: %s, left out", t->name, why);
		free(why);
		return 1;
	}
	if (rc <= 0)
		return rc;
	rec->day = xstrdup(nb.name);
	rec->commit = history_oid_hex(&nb.day);
	rec->commits = nb.ncommits;
	why = xasprintf("Applying the %zu commit%s of %s after %s", nb.ncommits,
			nb.ncommits == 1 ? "" : "s", t->name, nb.name);
	nextfiles_log_outcome(md->mergelog, why);
	free(why);
	if ((rc = next_base_apply(&pick, md->repo, md->sig, &md->state, &nb, md->sum->tag)) < 0)
		goto done;
	log_fixups(md, &md->state, &pick.tip, pick.applied);
	rec->applied = pick.applied;
	rec->empty = pick.empty;
	if (pick.failed) {
		next_pick_failed(md, t, dt, &nb, &pick);
		rc = 1;
	} else if ((rc = check_commit(md, &pick.tip)) == 0) {
		event_emitf(&md->events, EVENT_MERGE, EVENT_INFO, t->name,
			    "%s: based on %s: %zu of its %zu commits applied%s", t->name, nb.name,
			    pick.applied, nb.ncommits, pick.empty ? " (the rest were in the day)" : "");
		git_oid_cpy(tip, &pick.tip);
	}
done:
	next_base_pick_release(&pick);
	next_base_release(&nb);
	return rc;
}

/*
 * Today's tip of a tree, in a process of its own (merge_isolate.h):
 * checked at the door, then merged onto the day (or found up to date or
 * unrelated), its conflicts recorded and handled, its fixups applied.
 */
static int merge_today(struct merge_day *md, const struct tree *t, struct day_tree *dt,
		       const git_oid *tip)
{
	struct merge_step step;
	struct merge_step_opts sopts = { md->sum->tag, NULL, NULL };
	char *label = NULL, *store = NULL;
	git_oid mine;	/* the tip merged: a tree based on linux-next has its commits applied first */
	int error;

	memset(&step, 0, sizeof(step));
	git_oid_cpy(&mine, tip);
	log_merging(md, t, tip);
	if ((error = check_tip(md, t, dt, tip)) != 0 ||
	    (error = take_next_based(md, t, dt, &mine)) != 0)
		return error < 0 ? error : 0;
	tip = &mine;
	/*
	 * The one merge of a tree (merge_step.h), as bisect and try make it:
	 * one walk finds the merge bases for the merge and for "up to date",
	 * and the recorded resolutions are replayed on its conflicts.
	 */
	sopts.theirs_label = label = tree_ref_label(t);
	sopts.rr_cache = store = workspace_rr_cache(md->ws->dir);
	if ((error = merge_step_run(&step, md->repo, &md->state, tip, &sopts)) < 0) {
		tide_error_wrap(error, "cannot merge '%s'", t->name);
		goto done;
	}
	if (step.kind == MERGE_STEP_UP_TO_DATE) {
		dt->status = TREE_UP_TO_DATE;
		nextfiles_log_outcome(md->mergelog, "Already up to date.");
		event_emitf(&md->events, EVENT_MERGE, EVENT_PROGRESS, t->name, "%s: up to date", t->name);
		goto done;
	}
	if (step.kind == MERGE_STEP_UNRELATED) {
		leave_unrelated(md, t, dt);
		goto done;
	}
	error = merge_tip(md, t, dt, tip, &step);
	md->nmerges++;
done:
	merge_step_release(&step);
	free(label);
	free(store);
	return error;
}

static int previous_work(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			 const git_oid *tip)
{
	return try_previous(md, t, dt, tip);
}

/* try_previous() in a process of its own: 1 merged, 0 not, or the workspace's TIDE_E*. */
static int previous_isolated(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			     const git_oid *tip)
{
	char *why = NULL;
	int rc = merge_day_isolated(&why, md, t, dt, tip, previous_work);

	if (why)
		event_emitf(&md->events, EVENT_CHECK, EVENT_PROBLEM, t->name,
			    "%s: its previous version was not merged either: %s", t->name, why);
	free(why);
	return rc;
}

/*
 * The tree's work failed: nothing of it is kept.  merge.log gets the
 * "Merging" line it would have written (without the subject: the commit
 * is not read here), then the reason, as for a tip refused at the door.
 */
static int work_failed(struct merge_day *md, const struct tree *t, struct day_tree *dt,
		       const git_oid *tip, const char *why)
{
	char *label = tree_ref_label(t);
	char abbrev[13];

	history_oid_abbrev(abbrev, tip);
	nextfiles_log_merging(md->mergelog, label, abbrev, "[not read]");
	free(label);
	return refuse_tip(md, t, dt, tip, why, 1);
}

int merge_day_tree(struct merge_day *md, const struct tree *t)
{
	struct day_tree *dt = day_add_tree(md->day);
	double start = time_now();
	git_oid tip, before;
	char *why = NULL;
	int have, error = 0;

	dt->name = xstrdup(t->name);
	dt->type = xstrdup(tree_type_name(t->type));
	dt->url = xstrdup(t->url);
	dt->branch = t->branch ? xstrdup(t->branch) : NULL;
	event_emitf(&md->events, EVENT_MERGE, EVENT_PROGRESS, t->name, "merging %s", t->name);
	tree_tip(md, t, dt, &tip, &have);
	if (!have) {
		event_emitf(&md->events, EVENT_MERGE, EVENT_PROBLEM, t->name, "%s: %s, left out: %s", t->name,
			  dt->status != TREE_PATCH_FAILED ? "not fetched" : "patch failed to apply",
			  dt->fetch_error);
		goto done;
	}
	dt->sha = history_oid_hex(&tip);
	git_oid_cpy(&before, &md->state);
	prefetch_previous(md, t);
	if ((error = merge_day_isolated(&why, md, t, dt, &tip, merge_today)) < 0)
		goto done;
	if (why) {
		error = work_failed(md, t, dt, &tip, why);
		error = error < 0 ? error : 0;
		goto done;
	}
	if (!error && dt->status == TREE_MERGED && tree_opt(t, "build-each-merge") &&
	    md->build_merge.fn && md->build_merge.fn(md->build_merge.data, t, dt))
		error = drop_merge(md, t, dt, &before, &tip);
done:
	free(why);
	dt->seconds = time_now() - start;
	md->ndone++;
	return error < 0 ? error : 0;
}

void merge_day_release(struct merge_day *md)
{
	previous_index_free(md->previous);
	md->previous = NULL;
	free(md->merged);
	md->merged = NULL;
	md->nmerged = 0;
	git_mailmap_free(md->mailmap);
	md->mailmap = NULL;
}
