/*
 * The day's merge stage (merge_day.h): one tree at a time onto the day's
 * state, its conflicts, recorded resolutions, previous versions, fixups.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "conf.h"
#include "day.h"
#include "diffstat.h"
#include "error.h"
#include "event.h"
#include "fetch.h"
#include "fsck.h"
#include "graph.h"
#include "history.h"
#include "mailmap.h"
#include "merge.h"
#include "merge_day.h"
#include "merge_step.h"
#include "nextfiles.h"
#include "quilt.h"
#include "rerere.h"
#include "run.h"
#include "text.h"
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
 * A tree that could not be fetched is merged as it was on the last day
 * it was merged, if its commit is still in the repository.
 */
struct previous_sha {
	git_repository *repo;
	const char *tree;
	git_oid *out;
};

/* A day that merged the tree at a commit still in the repository. */
static int merged_tree_then(const struct day *d, void *data)
{
	struct previous_sha *p = data;
	const struct day_tree *dt = day_find_tree(d, p->tree);

	return dt && dt->sha && tree_status_in_day(dt->status) &&
	       git_oid_fromstr(p->out, dt->sha) == 0 && commit_exists(p->repo, p->out);
}

static int find_previous_sha(struct merge_day *md, const struct tree *t, git_oid *out, char **from)
{
	struct previous_sha p = { md->repo, t->name, out };
	struct day *d = NULL;

	if (day_previous(&d, md->days_dir, md->sum->date, 1, merged_tree_then, &p) <= 0) {
		tide_error_clear();
		return 0;
	}
	*from = xstrdup(d->tag ? d->tag : d->date ? d->date : "an earlier day");
	day_free(d);
	return 1;
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

/* Decoded from the commit's encoding: a Latin-1 subject must not vanish from a report. */
static char *commit_subject(const git_commit *c)
{
	return commit_summary_utf8((git_commit *)c);
}

/* The author as the base's .mailmap names them today. */
static char *commit_author(const struct merge_day *md, const git_commit *c)
{
	return commit_author_utf8(c, md->mailmap);
}

static void add_day_hunk(void *payload, const char *hunk)
{
	day_conflict_add_hunk(payload, hunk);
}

struct side_walk {
	struct merge_day *md;
	struct day_tree *dt;
	int theirs;
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
	for (i = 0; i < s->dt->nconflicts; i++) {
		struct day_conflict *dc = &s->dt->conflicts[i];
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
 * The commits of one side (the day's state, or the tree's tip) since the
 * merge bases that changed the conflicted paths: one walk simplified by
 * those paths (graph.h), so the earlier merges of the day that did not
 * touch them cost a look at their trees, and none of them is walked again
 * for each tree.  Every merge base is hidden: a commit below any of them
 * is in both histories, and belongs to neither side.  On the state's side
 * the walk also says which of today's merges (or mainline) brought each
 * commit.
 */
static void record_side(struct merge_day *md, struct day_tree *dt, const git_oid *tip,
			const git_oidarray *bases, int theirs)
{
	struct side_walk s = { md, dt, theirs };
	struct graph_walk w;
	const char **paths = xcalloc(dt->nconflicts ? dt->nconflicts : 1, sizeof(*paths));
	git_oid *owners = NULL;
	size_t i;

	for (i = 0; i < dt->nconflicts; i++)
		paths[i] = dt->conflicts[i].path;
	memset(&w, 0, sizeof(w));
	w.tip = tip;
	w.bottoms = bases->ids;
	w.nbottoms = bases->count;
	w.paths = paths;
	w.npaths = dt->nconflicts;
	w.max_commits = MAX_WALK;
	w.max_per_path = MAX_SIDE_COMMITS;
	if (!theirs) {
		owners = xcalloc(md->nmerged + 1, sizeof(*owners));
		git_oid_cpy(&owners[0], &md->base);
		for (i = 0; i < md->nmerged; i++)
			git_oid_cpy(&owners[i + 1], &md->merged[i].tip);
		w.owners = owners;
		w.nowners = md->nmerged + 1;
	}
	if (graph_walk_touching(md->repo, &w, record_touching, &s) < 0)
		event_emitf(&md->events, EVENT_CONFLICT, EVENT_WARNING, dt->name,
			  "%s: cannot find the commits of the conflict: %s", dt->name,
			  tide_error_last());
	tide_error_clear();
	free(owners);
	free(paths);
}

/* ---- conflicts: the commits that touched the conflicting lines ---- */

/* Is line (no newline) a whole line of one side of dc's hunks? */
static int line_in_hunks(const struct day_conflict *dc, const char *line, size_t len)
{
	size_t k;
	const char *p, *nl;

	if (len == 0 || (len >= 7 && (!memcmp(line, "<<<<<<<", 7) || !memcmp(line, ">>>>>>>", 7) ||
				      !memcmp(line, "=======", 7))))
		return 0;
	for (k = 0; k < dc->nhunks; k++)
		for (p = dc->hunks[k]; p && *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl)
				nl = p + strlen(p);
			if ((size_t)(nl - p) == len && !memcmp(p, line, len))
				return 1;
			if (!*nl)
				break;
		}
	return 0;
}

/* Does commit id add or remove, in dc's file, a line of the conflict? */
static int commit_touches_hunks(struct merge_day *md, const char *id, const struct day_conflict *dc)
{
	git_commit *c = NULL, *parent = NULL;
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	git_patch *patch = NULL;
	git_diff_options dopts;
	const git_diff_line *line;
	char *paths[1] = { dc->path };
	git_oid oid;
	size_t h, l, len;
	int hit = 0;

	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	dopts.pathspec.strings = paths;
	dopts.pathspec.count = 1;
	dopts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	if (git_oid_fromstr(&oid, id) < 0 || git_commit_lookup(&c, md->repo, &oid) < 0 ||
	    git_commit_parent(&parent, c, 0) < 0 || git_commit_tree(&a, parent) < 0 ||
	    git_commit_tree(&b, c) < 0 || git_diff_tree_to_tree(&diff, md->repo, a, b, &dopts) < 0 ||
	    git_diff_num_deltas(diff) < 1 ||
	    merge_diff_over_limits(md->repo, &git_diff_get_delta(diff, 0)->old_file.id,
				   &git_diff_get_delta(diff, 0)->new_file.id, &len, &len) ||
	    git_patch_from_diff(&patch, diff, 0) < 0 || !patch)
		goto done;
	for (h = 0; h < git_patch_num_hunks(patch) && !hit; h++)
		for (l = 0; l < (size_t)git_patch_num_lines_in_hunk(patch, h) && !hit; l++) {
			if (git_patch_get_line_in_hunk(&line, patch, h, l) < 0 ||
			    (line->origin != '+' && line->origin != '-'))
				continue;
			len = line->content_len;
			if (len && line->content[len - 1] == '\n')
				len--;
			hit = line_in_hunks(dc, line->content, len);
		}
done:
	tide_error_clear();
	git_patch_free(patch);
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(parent);
	git_commit_free(c);
	return hit;
}

/*
 * Keep only the commits of a side that changed the conflicting lines
 * themselves (blame-like); if none did, keep every commit touching the file.
 */
static void prune_side(struct merge_day *md, const struct day_conflict *dc, struct day_commit *v,
		       size_t *n)
{
	unsigned char *hit = xcalloc(*n ? *n : 1, 1);
	size_t i, kept = 0, nhits = 0;

	for (i = 0; i < *n; i++)
		nhits += hit[i] = (unsigned char)commit_touches_hunks(md, v[i].id, dc);
	for (i = 0; i < *n && nhits; i++) {
		if (hit[i]) {
			v[kept++] = v[i];
			continue;
		}
		free(v[i].id);
		free(v[i].subject);
		free(v[i].author);
		free(v[i].tree);
	}
	if (nhits)
		*n = kept;
	free(hit);
}

static void prune_to_conflict_lines(struct merge_day *md, struct day_tree *dt)
{
	size_t i;

	for (i = 0; i < dt->nconflicts; i++) {
		struct day_conflict *dc = &dt->conflicts[i];

		if (!dc->nhunks)
			continue;	/* no lines to blame (binary, too big, not a text conflict) */
		prune_side(md, dc, dc->ours, &dc->nours);
		prune_side(md, dc, dc->theirs, &dc->ntheirs);
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
		nextfiles_log_outcome(md->mergelog, outcome->ptr);
		event_emitf(&md->events, EVENT_CONFLICT, EVENT_INFO, t->name, "%s: conflict resolved from recorded resolutions", t->name);
		if ((rc = merge_clean(md, t, dt, &resolved, tip)) == 0)
			rc = 1;
	}
	return rc;
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
	if (!find_previous_sha(md, t, &prev, &from) || git_oid_equal(&prev, tip))
		goto done;
	if (check_commit(md, &prev) < 0) {	/* merged before tide checked trees */
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

/*
 * A tip fsck refuses never reaches a merge: the tree is merged at its
 * last good day's version (status "previous", as for a conflict) or left
 * out with status "rejected"; the record keeps the reason either way.
 * Returns 0 when tip is fine, 1 when the tree was handled here, or a
 * TIDE_E* code when tide could not tell.
 */
static int check_tip(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			 const git_oid *tip)
{
	char abbrev[13], *why;
	int rc;

	if ((rc = check_commit(md, tip)) != TIDE_EINVAL)
		return rc;
	history_oid_abbrev(abbrev, tip);
	why = xasprintf("tree '%s' commit %s: %s", t->name, abbrev, tide_error_last());
	tide_error_clear();
	set_field(&dt->handling.rejected, why);
	nextfiles_log_outcome(md->mergelog, why);
	event_emitf(&md->events, EVENT_CHECK, EVENT_PROBLEM, t->name, "%s", why);
	if ((rc = try_previous(md, t, dt, tip)) == 0) {
		dt->status = TREE_REJECTED;
		event_emitf(&md->events, EVENT_CHECK, EVENT_PROBLEM, t->name, "%s: refused, left out", t->name);
	}
	free(why);
	return rc < 0 ? rc : 1;
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
		subjects[k++] = commit_summary_utf8(c);
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
	size_t i;
	int rc;

	for (i = 0; i < res->nconflicts; i++) {
		const struct merge_conflict *mc = &res->conflicts[i];
		struct day_conflict *dc = day_tree_add_conflict(dt);

		dc->path = xstrdup(mc->path);
		dc->kind = xstrdup(merge_conflict_kind_name(mc->kind));
		merge_conflict_hunks(md->repo, &res->tree, dc->path, add_day_hunk, dc);
		tide_error_clear();
		buf_printf(&outcome, "CONFLICT (%s): Merge conflict in %s\n", dc->kind, dc->path);
	}
	/* The base's .mailmap, never the tree's: a tree does not rename people. */
	if (mailmap_from_commit(&md->mailmap, md->repo, &md->base) < 0)
		tide_error_clear();	/* authors then as the commits spell them */
	record_side(md, dt, &md->state, bases, 0);
	record_side(md, dt, tip, bases, 1);
	git_mailmap_free(md->mailmap);
	md->mailmap = NULL;
	prune_to_conflict_lines(md, dt);
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
	git_diff_options dopts;

	if (!res->nchanged)
		return;
	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	dopts.pathspec.strings = res->changed;
	dopts.pathspec.count = res->nchanged;
	dopts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	if (git_commit_lookup(&c, md->repo, before) == 0 && git_commit_tree(&a, c) == 0 &&
	    git_tree_lookup(&b, md->repo, &res->tree) == 0 &&
	    git_diff_tree_to_tree(&diff, md->repo, a, b, &dopts) == 0 &&
	    git_diff_find_similar(diff, NULL) == 0 && diffstat_format(&text, md->repo, diff, 80) == 0 &&
	    text.len)
		nextfiles_log_outcome(md->mergelog, text.ptr);
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
	if ((error = try_previous(md, t, dt, tip)) != 0)
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

int merge_day_tree(struct merge_day *md, const struct tree *t)
{
	struct day_tree *dt = day_add_tree(md->day);
	double start = time_now();
	struct merge_step step;
	struct merge_step_opts sopts = { md->sum->tag, NULL, NULL };
	char *label = NULL, *store = NULL;
	git_oid tip, before;
	int have, error = 0;

	memset(&step, 0, sizeof(step));
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
	log_merging(md, t, &tip);
	if ((error = check_tip(md, t, dt, &tip)) != 0) {
		error = error < 0 ? error : 0;
		goto done;
	}
	/*
	 * The one merge of a tree (merge_step.h), as bisect and try make it:
	 * one walk finds the merge bases for the merge and for "up to date",
	 * and the recorded resolutions are replayed on its conflicts.
	 */
	sopts.theirs_label = label = tree_ref_label(t);
	sopts.rr_cache = store = workspace_rr_cache(md->ws->dir);
	if ((error = merge_step_run(&step, md->repo, &md->state, &tip, &sopts)) < 0) {
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
	git_oid_cpy(&before, &md->state);
	error = merge_tip(md, t, dt, &tip, &step);
	if (!error && dt->status == TREE_MERGED && tree_opt(t, "build-each-merge") &&
	    md->build_merge.fn && md->build_merge.fn(md->build_merge.data, t, dt))
		error = drop_merge(md, t, dt, &before, &tip);
	md->nmerges++;
done:
	merge_step_release(&step);
	free(label);
	free(store);
	dt->seconds = time_now() - start;
	md->ndone++;
	return error;
}

void merge_day_release(struct merge_day *md)
{
	free(md->merged);
	md->merged = NULL;
	md->nmerged = 0;
	git_mailmap_free(md->mailmap);
	md->mailmap = NULL;
}
