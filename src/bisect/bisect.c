#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisect.h"
#include "bisect_int.h"
#include "day.h"
#include "buf.h"
#include "build.h"
#include "error.h"
#include "graph.h"
#include "history.h"
#include "proc.h"
#include "merge.h"
#include "merge_step.h"
#include "rerere.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

/* ---- names and the pure search ---- */

const char *bisect_verdict_name(enum bisect_verdict v)
{
	switch (v) {
	case BISECT_GOOD:
		return "good";
	case BISECT_BAD:
		return "bad";
	case BISECT_SKIP:
		return "skip";
	default:
		return "untested";
	}
}

static enum bisect_verdict verdict_parse(const char *s)
{
	if (!s)
		return BISECT_UNTESTED;
	if (!strcmp(s, "good"))
		return BISECT_GOOD;
	if (!strcmp(s, "bad"))
		return BISECT_BAD;
	if (!strcmp(s, "skip"))
		return BISECT_SKIP;
	return BISECT_UNTESTED;
}

const char *bisect_outcome_name(enum bisect_outcome o)
{
	static const char *const names[] = {
		[BISECT_FOUND] = "found",
		[BISECT_SEMANTIC] = "semantic-conflict",
		[BISECT_RANGE] = "range",
		[BISECT_UNCONFIRMED] = "unconfirmed",
		[BISECT_NOTHING] = "nothing-to-bisect",
		[BISECT_BASE_BROKEN] = "base-broken",
	};
	return (size_t)o < ARRAY_SIZE(names) ? names[o] : "?";
}

size_t bisect_log2_ceil(size_t n)
{
	size_t k = 0;

	while (n > 1 && ((size_t)1 << k) < n)
		k++;
	return k;
}

/* The untested state in (lo, hi) nearest the middle, or 0 if none. */
static size_t pick_middle(const enum bisect_verdict *v, size_t lo, size_t hi)
{
	size_t mid = lo + (hi - lo) / 2, d;

	for (d = 0; d < hi - lo; d++) {
		if (mid >= d && mid - d > lo && mid - d < hi &&
		    v[mid - d] == BISECT_UNTESTED)
			return mid - d;
		if (mid + d > lo && mid + d < hi && v[mid + d] == BISECT_UNTESTED)
			return mid + d;
	}
	return 0;
}

int bisect_search(enum bisect_verdict *v, size_t n,
		  int (*test)(void *data, size_t i, enum bisect_verdict *out),
		  void *data, size_t *lo, size_t *hi)
{
	size_t i, l = 0, h = n;
	int err;

	/* Known verdicts inside narrow the range before anything runs. */
	for (i = 1; i < n; i++)
		if (v[i] == BISECT_GOOD && i > l && i < h)
			l = i;
	for (i = n; i > l; i--)
		if (v[i] == BISECT_BAD)
			h = i;
	while ((i = pick_middle(v, l, h)) != 0) {
		err = test(data, i, &v[i]);
		if (err < 0)
			return err;
		if (v[i] == BISECT_GOOD)
			l = i;
		else if (v[i] == BISECT_BAD)
			h = i;
		else
			v[i] = BISECT_SKIP;
	}
	*lo = l;
	*hi = h;
	return 0;
}

/* ---- symbols of a diff, for naming semantic-conflict candidates ---- */

static int is_common_word(const char *w, size_t len)
{
	static const char *const words[] = {
		"auto", "break", "case", "char", "const", "continue", "default",
		"define", "defined", "double", "else", "endif", "enum", "extern",
		"float", "goto", "ifdef", "ifndef", "include", "inline", "long",
		"return", "short", "signed", "sizeof", "static", "struct",
		"switch", "typedef", "union", "unsigned", "void", "volatile",
		"while", "NULL", "true", "false", "bool", "this", "that", "with",
		"from", "into", "line", "file", "else", "elif", "undef", "pragma",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (strlen(words[i]) == len && !memcmp(words[i], w, len))
			return 1;
	return 0;
}

static void add_words(json_t *set, const char *p, const char *end)
{
	while (p < end) {
		const char *s;

		if (!(isalpha((unsigned char)*p) || *p == '_')) {
			p++;
			continue;
		}
		s = p;
		while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		/* Words like "fine" or "data" say nothing; kernel symbols have '_' or length. */
		if (p - s >= 4 && (memchr(s, '_', (size_t)(p - s)) || p - s >= 8) &&
		    !is_common_word(s, (size_t)(p - s))) {
			char *w = xstrndup(s, (size_t)(p - s));

			json_object_set_new(set, w, json_true());
			free(w);
		}
	}
}

int bisect_diff_symbols(json_t *set, const char *text)
{
	const char *line = text;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);

		/* Changed lines only; "+++"/"---" headers name files, not symbols. */
		if ((*line == '+' || *line == '-') &&
		    !str_starts_with(line, "+++") && !str_starts_with(line, "---"))
			add_words(set, line + 1, end);
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* ---- the bisect context: steps, replay, persistence ---- */

void bisect_progress(struct bctx *c, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	if (!c->opts->progress)
		return;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	c->opts->progress(c->opts->progress_data, buf_cstr(&b));
	buf_release(&b);
}

static double elapsed(const struct bctx *c)
{
	return c->elapsed_before + (time_now() - c->t0);
}

static int state_save(struct bctx *c)
{
	char *text;
	int err;

	json_object_set_new(c->state, "seconds", json_real(elapsed(c)));
	json_object_set_new(c->state, "steps_done", json_integer((json_int_t)c->nsteps));
	json_object_set_new(c->state, "builds", json_integer((json_int_t)c->nbuilds));
	json_object_set_new(c->state, "runs", json_integer((json_int_t)c->nruns));
	text = json_dumps(c->state, JSON_INDENT(2));
	if (!text)
		return tide_error_set(TIDE_ERROR, "cannot encode the bisect state");
	err = file_write_atomic(c->state_path, text, strlen(text));
	free(text);
	return err;
}

/* Run the check retries times: one pass is good, one skip is skip, bad only if every run fails. */
static int run_check(struct bctx *c, const git_oid *commit, json_t *runs,
		     enum bisect_verdict *out, char **note)
{
	int r, err;

	*out = BISECT_UNTESTED;
	for (r = 0; r < c->opts->retries; r++) {
		enum bisect_verdict v = BISECT_UNTESTED;

		free(*note);
		*note = NULL;
		err = c->opts->check->run(c->opts->check->data, c->repo, commit, &v, note);
		if (err < 0)
			return err;
		c->nruns++;
		if (c->opts->check_builds)
			c->nbuilds++;
		json_array_append_new(runs, json_text(bisect_verdict_name(v)));
		*out = v;
		if (v != BISECT_BAD)
			break;
	}
	return 0;
}

/* A recorded step for this key, when replaying an interrupted run. */
static const json_t *replayed(struct bctx *c, const char *key)
{
	const json_t *s;

	if (!c->old_steps || c->replay >= json_array_size(c->old_steps))
		return NULL;
	s = json_array_get(c->old_steps, c->replay);
	if (!json_is_string(json_object_get(s, "key")) ||
	    strcmp(json_string_value(json_object_get(s, "key")), key)) {
		/* The path left the recorded one: test everything from here. */
		c->old_steps = NULL;
		return NULL;
	}
	c->replay++;
	return s;
}

/*
 * A step starts before its state is built: the line names it, so the
 * merges that follow are not silence.
 */
void bisect_step_begin(struct bctx *c, const char *stage, const char *label)
{
	c->nsteps++;
	c->st.merges = c->st.reused = c->st.resolved = c->st.fixups = 0;
	buf_clear(&c->st.notes);
	c->st.t = time_now();
	c->st.begun = 1;
	bisect_progress(c, "step %zu: %s: %s ...", c->nsteps, stage, label);
}

/* One line on how the state was built, when building it did anything. */
static void step_built(struct bctx *c)
{
	struct buf b = BUF_INIT;

	if (!c->st.merges && !c->st.notes.len)
		return;
	buf_printf(&b, "step %zu: merged %zu tree%s", c->nsteps, c->st.merges,
		   c->st.merges == 1 ? "" : "s");
	if (c->st.reused)
		buf_printf(&b, " (%zu more reused)", c->st.reused);
	if (c->st.resolved)
		buf_printf(&b, ", %zu conflict%s resolved from recorded resolutions",
			   c->st.resolved, c->st.resolved == 1 ? "" : "s");
	if (c->st.fixups)
		buf_printf(&b, ", %zu fixup%s applied", c->st.fixups, c->st.fixups == 1 ? "" : "s");
	if (c->st.notes.len)
		buf_printf(&b, "; %s", c->st.notes.ptr);
	buf_printf(&b, " (%.2fs)", time_now() - c->st.t);
	bisect_progress(c, "%s", buf_cstr(&b));
	buf_release(&b);
}

/*
 * Decide one state: replayed, or tested now.  A state that cannot be
 * built (why != NULL: a merge still conflicts after the recorded
 * resolutions) is a skip without running the check.  The step is saved
 * before returning, so a kill after this point never repeats it.
 * bisect_step_begin() was called (callers call it before building the state).
 */
int bisect_test_state(struct bctx *c, const char *stage, const char *label,
		      const git_oid *commit, const char *why, enum bisect_verdict *out)
{
	char hex[GIT_OID_HEXSZ + 1] = "";
	char *key, *note = NULL;
	const json_t *old;
	json_t *step = NULL, *runs;
	double t = c->st.t;
	int err = 0;

	if (commit)
		git_oid_tostr(hex, sizeof(hex), commit);
	key = xasprintf("%s:%s", stage, why ? "conflict" : hex);
	step_built(c);
	c->st.begun = 0;
	old = replayed(c, key);
	if (old) {
		step = json_deep_copy(old);
		*out = verdict_parse(json_string_value(json_object_get(old, "verdict")));
		json_object_set_new(step, "replayed", json_true());
		json_array_append_new(c->steps, step);
		c->nreplayed++;
		bisect_progress(c, "step %zu: %s (recorded)", c->nsteps, bisect_verdict_name(*out));
		goto save;
	}
	runs = json_array();
	if (why) {
		*out = BISECT_SKIP;
		note = xstrdup(why);
	} else {
		err = run_check(c, commit, runs, out, &note);
		if (err < 0) {
			json_decref(runs);
			goto done;
		}
	}
	step = json_pack("{s:o, s:o, s:o, s:s, s:s, s:o, s:f}", "key", json_text(key),
			 "stage", json_text(stage), "label", json_text(label), "commit", hex,
			 "verdict", bisect_verdict_name(*out), "runs", runs,
			 "seconds", time_now() - t);
	if (note)
		json_object_set_new(step, "note", json_text(note));
	if (c->st.notes.len)
		json_object_set_new(step, "built", json_text(c->st.notes.ptr));
	json_array_append_new(c->steps, step);
	bisect_progress(c, "step %zu: %s%s%s (%.1fs)", c->nsteps, bisect_verdict_name(*out),
		 note ? ": " : "", note ? note : "", time_now() - t);
save:
	err = state_save(c);
done:
	free(note);
	free(key);
	return err;
}

/* A state that is a known commit (the day's own, or one built before). */
static int test_known(struct bctx *c, const char *stage, const char *label,
		      const git_oid *commit, enum bisect_verdict *out)
{
	bisect_step_begin(c, stage, label);
	return bisect_test_state(c, stage, label, commit, NULL, out);
}

/* ---- commits, merges, temporary commits ---- */

/* A set member; jansson refuses a key that is not UTF-8, and the path must still count. */
static void set_text_key(json_t *set, const char *key)
{
	struct buf b = BUF_INIT;

	utf8_lossy(&b, key, strlen(key));
	json_object_set_new(set, buf_cstr(&b), json_true());
	buf_release(&b);
}

char *bisect_commit_subject(git_repository *repo, const git_oid *id)
{
	git_commit *cm = NULL;
	char *s;

	if (git_commit_lookup(&cm, repo, id) < 0)
		return xstrdup("");
	s = commit_summary_utf8(cm);
	git_commit_free(cm);
	return s;
}

void bisect_groups_free(struct group *g, size_t n)
{
	size_t i;

	for (i = 0; g && i < n; i++) {
		free(g[i].name);
		json_decref(g[i].fixups);
	}
	free(g);
}

static int write_commit(struct bctx *c, const git_oid *tree_id, const git_oid *p1,
			const git_oid *p2, const char *msg, git_oid *out)
{
	const git_commit *parents[2] = { NULL, NULL };
	git_commit *a = NULL, *b = NULL;
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_time_t when;
	int err = 0;

	if (git_commit_lookup(&a, c->repo, p1) < 0 ||
	    (p2 && git_commit_lookup(&b, c->repo, p2) < 0) ||
	    git_tree_lookup(&tree, c->repo, tree_id) < 0) {
		err = tide_error_git(TIDE_ERROR, "bisect: cannot read a merge");
		goto done;
	}
	parents[0] = a;
	parents[1] = b;
	/*
	 * Dated as its newest parent: reproducible, and in date order with
	 * the history.  A commit older than its parents makes every walk
	 * for merge bases (ordered by date) go through the whole history
	 * before it reaches the temporary merges.
	 */
	when = git_commit_time(a);
	if (b && git_commit_time(b) > when)
		when = git_commit_time(b);
	if (git_signature_new(&sig, c->sig->name, c->sig->email, when, 0) < 0 ||
	    git_commit_create(out, c->repo, NULL, sig, sig, NULL, msg,
			      tree, p2 ? 2 : 1, parents) < 0)
		err = tide_error_git(TIDE_ERROR, "bisect: cannot write a temporary commit");
done:
	git_signature_free(sig);
	git_tree_free(tree);
	git_commit_free(a);
	git_commit_free(b);
	return err;
}

/* Why the conflicts of a merge stay: the first file no recorded resolution resolves. */
static char *unresolved_why(const char *name, const struct rerere_outcome *o, size_t n,
			    const struct merge_result *mr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!o[i].resolved)
			return xasprintf("the merge of %s conflicts in %s (%s)", name, o[i].path,
					 o[i].missing ? "no recorded resolution" :
					 o[i].error ? o[i].error : "not resolved");
	return xasprintf("the merge of %s conflicts in %s", name,
			 mr->nconflicts ? mr->conflicts[0].path : "?");
}

/*
 * Merge theirs onto ours in memory, as the day merges a tree
 * (merge_step_run(): the day's merge bases, the recorded resolutions on
 * conflicts), and commit it.  Returns 0, or 1 with *why set when the
 * state cannot be tested (conflicts remain, no common history).
 */
static int merge_commit(struct bctx *c, const git_oid *ours, const git_oid *theirs,
			const char *name, git_oid *out, char **why)
{
	struct merge_step_opts so = { NULL, name, c->store };
	struct merge_step s;
	char *msg = NULL;
	int err;

	if ((err = merge_step_run(&s, c->repo, ours, theirs, &so)) < 0) {
		tide_error_wrap(err, "bisect: cannot merge %s", name);
		goto done;
	}
	switch (s.kind) {
	case MERGE_STEP_UP_TO_DATE:
		*out = *ours;	/* already contained: no merge, like a run */
		break;
	case MERGE_STEP_UNRELATED:
		*why = xasprintf("%s has no common history with the state (the day leaves "
				 "such a tree out)", name);
		err = 1;
		break;
	case MERGE_STEP_CONFLICT:
		c->st.merges++;
		*why = s.rr_error ? xasprintf("the merge of %s conflicts; the recorded resolutions "
					      "cannot be read: %s", name, s.rr_error) :
			unresolved_why(name, s.rr, s.nrr, &s.res);
		err = 1;
		break;
	case MERGE_STEP_MERGED:
		c->st.merges++;
		if (s.res.nconflicts)
			c->st.resolved += s.nrr;
		msg = history_bisect_message(name, theirs);
		err = write_commit(c, &s.tree, ours, theirs, msg, out);
		break;
	}
done:
	free(msg);
	merge_step_release(&s);
	return err;
}

/*
 * The tree's fixups picked onto cur (a three-way merge with the fixup's
 * parent as the base).  As in a run, a fixup that does not apply leaves
 * the state without any of them, and the step says so.
 */
static int apply_fixups(struct bctx *c, const char *name, const json_t *fixups, git_oid *cur)
{
	git_oid state = *cur, id;
	size_t i;
	const json_t *f;
	int err = 0;

	json_array_foreach(fixups, i, f) {
		git_commit *fc = NULL, *sc = NULL;
		git_oid tree;

		if (git_oid_fromstr(&id, json_string_value(f) ?: "") < 0 ||
		    git_commit_lookup(&fc, c->repo, &id) < 0 ||
		    git_commit_lookup(&sc, c->repo, &state) < 0)
			err = tide_error_git(TIDE_ERROR, "bisect: cannot read the fixup of %s", name);
		else if ((err = merge_step_pick(&tree, c->repo, git_commit_tree_id(sc), &id)) == 0)
			err = write_commit(c, &tree, &state, NULL, git_commit_message(fc), &state);
		git_commit_free(fc);
		git_commit_free(sc);
		if (err < 0)
			return err;
		if (err == 1) {
			buf_printf(&c->st.notes, "%sthe fixups of %s do not apply here", c->st.notes.len ? "; " : "", name);
			return 0;
		}
	}
	if (json_array_size(fixups)) {
		c->st.fixups += json_array_size(fixups);
		*cur = state;
	}
	return err;
}

/*
 * One slot merged onto cur, remembered: the states of a bisect share
 * most of their merges (all the trees before the one that changes), and
 * the temporary commits are reproducible, so each merge is done once.
 */
static int merge_slot(struct bctx *c, const git_oid *cur, const struct mixslot *s,
		      git_oid *out, char **why)
{
	char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1], *key;
	const char *memo;
	size_t i, notes_before;
	const json_t *f;
	struct buf k = BUF_INIT;
	int err;

	buf_printf(&k, "%s %s", git_oid_tostr(a, sizeof(a), cur), git_oid_tostr(b, sizeof(b), s->tip));
	json_array_foreach(s->fixups, i, f)
		buf_printf(&k, " %s", json_string_value(f) ?: "");
	key = buf_detach(&k);
	memo = json_string_value(json_object_get(c->memo, key));
	if (memo) {
		c->st.reused++;
		if (*memo == '!')
			*why = xstrdup(memo + 1);
		else if (strlen(memo) > GIT_OID_HEXSZ)
			buf_printf(&c->st.notes, "%s%s", c->st.notes.len ? "; " : "",
				   memo + GIT_OID_HEXSZ + 1);
		err = *memo == '!' ? 1 : git_oid_fromstr(out, memo) < 0 ? -1 : 0;
		if (err >= 0) {
			free(key);
			return err;
		}
	}
	notes_before = c->st.notes.len;
	err = merge_commit(c, cur, s->tip, s->name, out, why);
	if (err == 0 && !git_oid_equal(out, cur))
		err = apply_fixups(c, s->name, s->fixups, out);
	if (err == 0)
		json_object_set_new(c->memo, key, json_text_printf("%s%s%s",
				    git_oid_tostr(a, sizeof(a), out),
				    c->st.notes.len > notes_before ? " " : "",
				    c->st.notes.len > notes_before ?
				    c->st.notes.ptr + notes_before + (notes_before ? 2 : 0) : ""));
	else if (err == 1)
		json_object_set_new(c->memo, key, json_text_printf("!%s", *why));
	free(key);
	return err;
}

/*
 * start, then each slot merged on top in order (absent trees skipped).
 * Returns 1 with *why set if a merge conflicts after the recorded
 * resolutions.
 */
static int merge_series(struct bctx *c, const git_oid *start, const struct mixslot *slots,
			size_t n, git_oid *out, char **why)
{
	git_oid cur = *start, next;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		if (!slots[i].tip || git_oid_equal(slots[i].tip, &cur))
			continue;
		err = merge_slot(c, &cur, &slots[i], &next, why);
		if (err)
			return err;
		cur = next;
	}
	*out = cur;
	return 0;
}

/* ---- searching a series of mixes ---- */

int bisect_mix_commit(struct bctx *c, const struct mixslot *vec, size_t nvec, git_oid *out,
		      char **why)
{
	return merge_series(c, vec[0].tip, vec + 1, nvec - 1, out, why);
}

/* The commit of state i (1 = conflict, untestable: *why says which). */
static int series_state(struct series *s, size_t i, git_oid *out, char **why)
{
	const git_oid *saved = s->vec[s->slot].tip;
	int err;

	if (i == 0 && s->known_good) {
		*out = *s->known_good;
		return 0;
	}
	if (i == s->ncand && s->known_bad) {
		*out = *s->known_bad;
		return 0;
	}
	if (i > 0)
		s->vec[s->slot].tip = &s->cand[i - 1];
	err = bisect_mix_commit(s->c, s->vec, s->nvec, out, why);
	s->vec[s->slot].tip = saved;
	return err;
}

static int series_test(void *data, size_t i, enum bisect_verdict *out)
{
	struct series *s = data;
	char hex[12], *subject = NULL, *label, *why = NULL;
	git_oid id;
	int err, r;

	git_oid_tostr(hex, sizeof(hex), &s->cand[i - 1]);
	subject = bisect_commit_subject(s->c->repo, &s->cand[i - 1]);
	label = xasprintf("%s %zu/%zu %s \"%s\"", s->what, i, s->ncand, hex, subject);
	bisect_step_begin(s->c, s->stage, label);
	r = series_state(s, i, &id, &why);
	err = r < 0 ? r : bisect_test_state(s->c, s->stage, label, r ? NULL : &id, why, out);
	free(why);
	free(label);
	free(subject);
	return err;
}

/* Search s; *culprit = index of the first bad candidate (1-based), or 0 with a range. */
static int series_search(struct series *s, size_t *lo, size_t *hi)
{
	enum bisect_verdict *v = xcalloc(s->ncand + 1, sizeof(*v));
	int err;

	v[0] = BISECT_GOOD;
	v[s->ncand] = BISECT_BAD;
	err = bisect_search(v, s->ncand, series_test, s, lo, hi);
	free(v);
	return err;
}

/* ---- results ---- */

void bisect_set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? xstrdup(s) : NULL;
}

void bisect_set_commit(struct bisect_result *res, git_repository *repo, const git_oid *id)
{
	char hex[GIT_OID_HEXSZ + 1];

	bisect_set_str(&res->commit, git_oid_tostr(hex, sizeof(hex), id));
	free(res->subject);
	res->subject = bisect_commit_subject(repo, id);
}

/* Test the culprit state again (must be bad) and its parent state (must be good). */
int bisect_confirm(struct bctx *c, struct bisect_result *res,
		   const git_oid *bad, const git_oid *good)
{
	enum bisect_verdict vb, vg;
	int err;

	err = test_known(c, "confirm", "the first bad state again", bad, &vb);
	if (!err)
		err = test_known(c, "confirm", "the state before it again", good, &vg);
	if (err)
		return err;
	res->bound += 2;
	if (vb != BISECT_BAD || vg != BISECT_GOOD) {
		bisect_progress(c, "not confirmed: the culprit was %s, its parent state %s",
			 bisect_verdict_name(vb), bisect_verdict_name(vg));
		res->outcome = BISECT_UNCONFIRMED;
	}
	return 0;
}

int bisect_stage2(struct bctx *c, struct bisect_result *res, struct series *s,
		  size_t *found)
{
	char hex[GIT_OID_HEXSZ + 1], *why = NULL;
	git_oid bad, good;
	size_t lo, hi;
	int err;

	*found = 0;
	if (s->ncand == 0)
		return 0;
	res->bound += bisect_log2_ceil(s->ncand);
	err = series_search(s, &lo, &hi);
	if (err)
		return err;
	if (hi - lo > 1) {
		res->outcome = BISECT_RANGE;
		bisect_set_str(&res->range_first, git_oid_tostr(hex, sizeof(hex), &s->cand[lo]));
		bisect_set_str(&res->range_last, git_oid_tostr(hex, sizeof(hex), &s->cand[hi - 1]));
		bisect_progress(c, "skipped steps leave %zu candidate commits in %s", hi - lo, s->what);
		return 0;
	}
	res->outcome = BISECT_FOUND;
	bisect_set_commit(res, c->repo, &s->cand[hi - 1]);
	bisect_progress(c, "first bad commit in %s: %.12s %s", s->what, res->commit, res->subject);
	/* Both states were tested (or known) during the search: they merge cleanly. */
	if ((err = series_state(s, hi, &bad, &why)) != 0 ||
	    (err = series_state(s, hi - 1, &good, &why)) != 0)
		err = err < 0 ? err : tide_error_set(TIDE_ERROR, "bisect: a tested state no longer "
						      "merges: %s", why);
	free(why);
	if (err)
		return err;
	*found = hi;
	return bisect_confirm(c, res, &bad, &good);
}

/* ---- semantic conflicts: which earlier tree ---- */

/* Paths and symbols changed between commits a and b. */
static int diff_info(git_repository *repo, const git_oid *a, const git_oid *b,
		     json_t *paths, json_t *syms)
{
	git_commit *ca = NULL, *cb = NULL;
	git_tree *ta = NULL, *tb = NULL;
	git_diff *diff = NULL;
	git_buf text = { 0 };
	size_t i;
	int err = 0;

	if (git_commit_lookup(&ca, repo, a) < 0 || git_commit_lookup(&cb, repo, b) < 0 ||
	    git_commit_tree(&ta, ca) < 0 || git_commit_tree(&tb, cb) < 0 ||
	    git_diff_tree_to_tree(&diff, repo, ta, tb, NULL) < 0 ||
	    git_diff_to_buf(&text, diff, GIT_DIFF_FORMAT_PATCH) < 0) {
		err = tide_error_git(TIDE_ERROR, "bisect: cannot diff");
		goto done;
	}
	for (i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		set_text_key(paths, d->new_file.path);
		set_text_key(paths, d->old_file.path);
	}
	bisect_diff_symbols(syms, text.ptr ? text.ptr : "");
done:
	git_buf_dispose(&text);
	git_diff_free(diff);
	git_tree_free(ta);
	git_tree_free(tb);
	git_commit_free(ca);
	git_commit_free(cb);
	return err;
}

static int sets_overlap(const json_t *a, const json_t *b)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)a, k, v)
		if (json_object_get(b, k))
			return 1;
	return 0;
}

/* Earlier merged trees: the merge commit's second parent, with a name and its fixups. */
struct earlier {
	git_oid tip;
	char *name;
	const json_t *fixups;	/* borrowed from the chain's groups */
};

struct prefix {
	struct bctx *c;
	git_oid base, culprit;
	const char *culprit_tree;
	const json_t *culprit_fixups;
	struct earlier *cand;
	size_t ncand;
};

static void earlier_slot(struct mixslot *s, const struct earlier *e)
{
	s->tip = &e->tip;
	s->name = e->name;
	s->fixups = e->fixups;
}

static int prefix_state(struct prefix *p, size_t x, git_oid *out, char **why)
{
	struct mixslot *slots = xcalloc(p->ncand + 1, sizeof(*slots));
	size_t i;
	int err;

	for (i = 0; i < x; i++)
		earlier_slot(&slots[i], &p->cand[i]);
	slots[p->ncand].tip = &p->culprit;
	slots[p->ncand].name = p->culprit_tree;
	slots[p->ncand].fixups = p->culprit_fixups;
	err = merge_series(p->c, &p->base, slots, p->ncand + 1, out, why);
	free(slots);
	return err;
}

static int prefix_test(void *data, size_t x, enum bisect_verdict *out)
{
	struct prefix *p = data;
	char *label, *why = NULL;
	git_oid id;
	int r, err;

	label = xasprintf("mainline + %zu earlier tree%s (through %s) + the culprit",
			  x, x == 1 ? "" : "s", x ? p->cand[x - 1].name : "-");
	bisect_step_begin(p->c, "semantic", label);
	r = prefix_state(p, x, &id, &why);
	err = r < 0 ? r : bisect_test_state(p->c, "semantic", label, r ? NULL : &id, why, out);
	free(why);
	free(label);
	return err;
}

/* Which of the candidates, merged in before the culprit, makes it fail. */
static int find_partner(struct bctx *c, struct bisect_result *res, struct prefix *p,
			int *found)
{
	enum bisect_verdict *v, all;
	size_t lo, hi;
	int err;

	*found = 0;
	if (p->ncand == 0)
		return 0;
	err = prefix_test(p, p->ncand, &all);
	res->bound++;
	if (err || all != BISECT_BAD)
		return err;
	v = xcalloc(p->ncand + 1, sizeof(*v));
	v[0] = BISECT_GOOD;
	v[p->ncand] = BISECT_BAD;
	res->bound += bisect_log2_ceil(p->ncand);
	err = bisect_search(v, p->ncand, prefix_test, p, &lo, &hi);
	free(v);
	if (!err && hi - lo == 1) {
		bisect_set_str(&res->other_tree, p->cand[hi - 1].name);
		*found = 1;
	}
	return err;
}

static void earlier_free(struct earlier *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(e[i].name);
	free(e);
}

/*
 * The earlier trees (merged at chain[1..k-1]) into all, and into cand
 * those whose merge touches a file or an identifier the tree touches
 * between its merge base and the culprit.
 */
static int earlier_trees(struct bctx *c, const git_oid *chain, const struct group *groups,
			 size_t k, const git_oid *culprit, struct prefix *p,
			 struct earlier **all, size_t *nall)
{
	json_t *paths = json_object(), *syms = json_object();
	git_oid mb;
	size_t i;
	int err = 0;

	*all = xcalloc(k, sizeof(**all));
	p->cand = xcalloc(k, sizeof(*p->cand));
	if (git_merge_base(&mb, c->repo, &chain[k - 1], culprit) < 0) {
		err = tide_error_git(TIDE_ERROR, "bisect: no merge base");
		goto out;
	}
	if ((err = diff_info(c->repo, &mb, culprit, paths, syms)) < 0)
		goto out;
	for (i = 1; i < k && !err; i++) {
		git_commit *m = NULL;
		json_t *ep, *es;
		struct earlier *e = &(*all)[*nall];

		if (!groups[i].has_merge)
			continue;
		if (git_commit_lookup(&m, c->repo, &groups[i].merge) < 0) {
			err = tide_error_git(TIDE_ERROR, "bisect: cannot read a merge");
			break;
		}
		if (git_commit_parentcount(m) != 2) {
			git_commit_free(m);
			continue;
		}
		e->tip = *git_commit_parent_id(m, 1);
		e->name = history_tree_of(m);
		if (!e->name)
			e->name = xstrdup(git_commit_summary(m));
		e->fixups = groups[i].fixups;
		(*nall)++;
		git_commit_free(m);
		ep = json_object();
		es = json_object();
		err = diff_info(c->repo, &chain[i - 1], &chain[i], ep, es);
		if (!err && (sets_overlap(paths, ep) || sets_overlap(syms, es))) {
			p->cand[p->ncand] = *e;
			p->cand[p->ncand++].name = xstrdup(e->name);
		}
		json_decref(ep);
		json_decref(es);
	}
	if (!err)
		bisect_progress(c, "%zu of %zu earlier trees touch the same files or symbols",
			 p->ncand, *nall);
out:
	json_decref(paths);
	json_decref(syms);
	return err;
}

/*
 * The culprit fails on mainline alone too, which may only mean the tree
 * needs an earlier one (an API it uses).  Merge every earlier tree but
 * one of the candidates: if the culprit passes then, that tree is the
 * one it conflicts with.
 */
static int leave_one_out(struct bctx *c, struct bisect_result *res, const struct prefix *p,
			 const struct earlier *all, size_t nall)
{
	struct mixslot *slots = xcalloc(nall + 1, sizeof(*slots));
	enum bisect_verdict v = BISECT_UNTESTED;
	size_t x, i, n;
	int err = 0, r;

	for (x = 0; x < p->ncand && !err && v != BISECT_GOOD; x++) {
		char *label, *why = NULL;
		git_oid id;

		for (i = n = 0; i < nall; i++)
			if (!git_oid_equal(&all[i].tip, &p->cand[x].tip))
				earlier_slot(&slots[n++], &all[i]);
		slots[n].tip = &p->culprit;
		slots[n].name = p->culprit_tree;
		slots[n++].fixups = p->culprit_fixups;
		label = xasprintf("the culprit with every earlier tree but %s", p->cand[x].name);
		bisect_step_begin(c, "semantic", label);
		r = merge_series(c, &p->base, slots, n, &id, &why);
		err = r < 0 ? r : bisect_test_state(c, "semantic", label, r ? NULL : &id, why, &v);
		free(why);
		free(label);
		res->bound++;
		if (!err && v == BISECT_GOOD) {
			res->outcome = BISECT_SEMANTIC;
			bisect_set_str(&res->other_tree, p->cand[x].name);
		}
	}
	free(slots);
	return err;
}

/*
 * The culprit fails merged on mainline alone: *v is what its parent does
 * there.  A parent that is already in mainline is mainline, which the
 * search takes as good, so it costs no step.
 */
static int parent_alone(struct bctx *c, struct bisect_result *res, const struct prefix *p,
			const char *tree, enum bisect_verdict *v)
{
	struct mixslot slot = { NULL, tree, p->culprit_fixups };
	git_commit *cm = NULL;
	git_oid parent, id;
	char *label, *why = NULL;
	int err;

	*v = BISECT_GOOD;
	if (git_commit_lookup(&cm, c->repo, &p->culprit) < 0)
		return tide_error_git(TIDE_ERROR, "bisect: cannot read the culprit");
	if (git_commit_parentcount(cm) == 0) {
		git_commit_free(cm);
		return 0;
	}
	parent = *git_commit_parent_id(cm, 0);
	git_commit_free(cm);
	slot.tip = &parent;
	label = xasprintf("%s's culprit's parent merged on mainline alone", tree);
	bisect_step_begin(c, "semantic", label);
	err = merge_series(c, &p->base, &slot, 1, &id, &why);
	if (err == 0 && git_oid_equal(&id, &p->base)) {
		c->st.begun = 0;
		c->nsteps--;	/* nothing to test: no step */
	} else {
		err = err < 0 ? err : bisect_test_state(c, "semantic", label, err ? NULL : &id, why, v);
		res->bound++;
	}
	free(why);
	free(label);
	return err;
}

/*
 * The culprit (a commit of the tree merged at chain[k]) is bad on top of
 * chain[k-1].  If it is good merged on mainline alone, the failure needs
 * an earlier tree: search the prefixes of the earlier trees that touch
 * the same files or symbols (all earlier trees if those are not enough).
 * If it is bad alone too, it may still need one earlier tree to build and
 * break with another: leave each candidate out in turn.
 */
static int semantic(struct bctx *c, struct bisect_result *res, const git_oid *chain,
		    const struct group *groups, size_t k, const git_oid *culprit, const char *tree)
{
	struct prefix p = { c, chain[0], *culprit, tree, groups[k].fixups, NULL, 0 };
	struct earlier *all = NULL;
	enum bisect_verdict v;
	size_t nall = 0;
	int err = 0, found = 0;
	char *label, *why = NULL;
	git_oid id;

	if (k < 2)
		return 0;
	if ((err = earlier_trees(c, chain, groups, k, culprit, &p, &all, &nall)) < 0)
		goto out;
	/* No earlier tree touches what the culprit touches: nothing to conflict with. */
	if (p.ncand == 0)
		goto out;
	label = xasprintf("%s's culprit merged on mainline alone", tree);
	bisect_step_begin(c, "semantic", label);
	if ((err = prefix_state(&p, 0, &id, &why)) >= 0)
		err = bisect_test_state(c, "semantic", label, err ? NULL : &id, why, &v);
	free(why);
	free(label);
	res->bound++;
	if (err)
		goto out;
	if (v != BISECT_GOOD) {
		/* Bad by itself unless the tree needs an earlier tree at all: ask its parent. */
		if ((err = parent_alone(c, res, &p, tree, &v)) < 0)
			goto out;
		if (v == BISECT_GOOD) {
			bisect_progress(c, "the culprit fails on mainline alone and its parent passes there: "
				 "the tree's own failure, no earlier tree is searched");
			goto out;
		}
		err = leave_one_out(c, res, &p, all, nall);
		found = res->outcome == BISECT_SEMANTIC;
		goto report;
	}
	res->outcome = BISECT_SEMANTIC;
	bisect_progress(c, "the culprit is good on mainline alone: a semantic conflict with an earlier tree");
	err = find_partner(c, res, &p, &found);
	if (!err && !found && p.ncand < nall) {
		earlier_free(p.cand, p.ncand);
		p.cand = all;
		p.ncand = nall;
		all = NULL;
		nall = 0;
		err = find_partner(c, res, &p, &found);
	}
report:
	if (!err && found)
		bisect_progress(c, "%s conflicts with %s", tree, res->other_tree);
out:
	earlier_free(all, nall);
	earlier_free(p.cand, p.ncand);
	return err;
}

/* ---- days ---- */

int bisect_oid_field(git_oid *out, const char *hex)
{
	return hex && git_oid_fromstr(out, hex) == 0 ? 0 : -1;
}

void bday_release(struct bday *d)
{
	free(d->path);
	day_free(d->day);
	free(d->days_dir);
	json_decref(d->fixups);
	memset(d, 0, sizeof(*d));
}

int bday_load(struct bday *d, git_repository *repo, const char *wsdir,
		    const char *date)
{
	git_commit *cm = NULL;
	int err;

	memset(d, 0, sizeof(*d));
	if (day_date_parse(d->date, date) < 0)
		return tide_error_set(TIDE_EINVAL, "'%s' is not a date (YYYY-MM-DD or next-YYYYMMDD)",
				      date);
	d->path = workspace_day_json(wsdir, d->date);
	d->days_dir = workspace_days_dir(wsdir);
	err = day_open(&d->day, d->days_dir, d->date);
	if (err == TIDE_ENOTFOUND)
		return tide_error_set(TIDE_ENOTFOUND, "no day %s (%s does not exist)",
				      d->date, d->path);
	if (err < 0)
		return err;
	if (bisect_oid_field(&d->tip, d->day->commit) < 0)
		return tide_error_set(TIDE_EINVAL, "%s: no \"commit\": the day has no tagged commit",
				      d->path);
	/* The record is well formed: a commit it names and the repository lacks is a broken repository. */
	if (git_commit_lookup(&cm, repo, &d->tip) < 0)
		return tide_error_git(TIDE_ERROR, "%s: commit not in the repository", d->path);
	git_commit_free(cm);
	d->has_base = bisect_oid_field(&d->base, d->day->base_commit) == 0;
	return 0;
}

/*
 * Add a first-parent commit to the chain: a fixup commit (one parent,
 * the Tide-Tree: of the group before it) joins that group, anything
 * else starts a new state.
 */
static int chain_add(struct bctx *c, const struct bday *d, git_oid *chain,
		     struct group *groups, size_t *n, const git_oid *id)
{
	git_commit *cm = NULL;
	char *name, hex[GIT_OID_HEXSZ + 1];
	struct group *g;

	if (git_commit_lookup(&cm, c->repo, id) < 0)
		return tide_error_git(TIDE_ERROR, "%s: cannot walk the day", d->path);
	name = history_tree_of(cm);
	g = &groups[*n];
	if (*n > 0 && name && g->has_merge && g->name && !strcmp(g->name, name) &&
	    git_commit_parentcount(cm) == 1) {
		json_array_append_new(g->fixups, json_string(git_oid_tostr(hex, sizeof(hex), id)));
		json_object_set(d->fixups, name, g->fixups);
		chain[*n] = *id;
		free(name);
	} else {
		g = &groups[++*n];
		g->has_merge = git_commit_parentcount(cm) > 1;
		g->merge = *id;
		g->name = name;
		g->fixups = json_array();
		chain[*n] = *id;
	}
	git_commit_free(cm);
	return 0;
}

/*
 * base, then the state after each tree up to the tip: a tree's merge
 * commit, or its last fixup commit (groups[i] says which; groups[0] is
 * the base's, empty).  Without a recorded base, the chain stops at the
 * first commit that is neither a Tide-Tree commit nor the tip (the
 * documented shape of a day).
 */
int bday_chain(struct bctx *c, const struct bday *d, git_oid **chain,
		     struct group **groups, size_t *n)
{
	git_oid *list = NULL;
	size_t nl = 0, i;
	int err;

	*chain = NULL;
	*groups = NULL;
	*n = 0;
	if (!d->has_base) {
		git_oid cur = d->tip;

		for (;;) {
			git_commit *cm = NULL;
			char *t;

			if (git_commit_lookup(&cm, c->repo, &cur) < 0)
				return tide_error_git(TIDE_ERROR, "%s: cannot walk the day", d->path);
			t = history_tree_of(cm);
			if (!git_oid_equal(&cur, &d->tip) && !t) {
				git_commit_free(cm);
				break;
			}
			free(t);
			if (git_commit_parentcount(cm) == 0) {
				git_commit_free(cm);
				return tide_error_set(TIDE_EINVAL, "%s: no base found", d->path);
			}
			cur = *git_commit_parent_id(cm, 0);
			git_commit_free(cm);
		}
		((struct bday *)d)->base = cur;
	}
	err = history_first_parents(&list, &nl, c->repo, &d->tip, &d->base);
	if (err)
		return err;
	*chain = xcalloc(nl + 1, sizeof(**chain));
	*groups = xcalloc(nl + 1, sizeof(**groups));
	(*chain)[0] = d->base;
	json_decref(d->fixups);
	((struct bday *)d)->fixups = json_object();
	for (i = 0; i < nl && !err; i++)
		err = chain_add(c, d, *chain, *groups, n, &list[i]);
	free(list);
	if (err) {
		free(*chain);
		bisect_groups_free(*groups, *n + 1);
		*chain = NULL;
		*groups = NULL;
		*n = 0;
	}
	return err;
}

/* The name of the tree merged at commit id ("Tide-Tree:" trailer), or NULL. */
static char *tree_at(git_repository *repo, const git_oid *id, int *is_merge)
{
	git_commit *cm = NULL;
	char *name;

	*is_merge = 0;
	if (git_commit_lookup(&cm, repo, id) < 0)
		return NULL;
	*is_merge = git_commit_parentcount(cm) > 1;
	name = history_tree_of(cm);
	git_commit_free(cm);
	return name;
}

struct chain_series {
	struct bctx *c;
	const git_oid *chain;
	size_t n;
};

static char *chain_label(struct bctx *c, const git_oid *chain, size_t n, size_t i)
{
	int merge;
	char *name = tree_at(c->repo, &chain[i], &merge), *label;

	if (name)
		label = xasprintf("merge %zu/%zu (%s)", i, n, name);
	else
		label = xasprintf("commit %zu/%zu (%s)", i, n,
				  merge ? "an unnamed merge" : "not a merge");
	free(name);
	return label;
}

static int chain_test(void *data, size_t i, enum bisect_verdict *out)
{
	struct chain_series *s = data;
	char *label = chain_label(s->c, s->chain, s->n, i);
	int err = test_known(s->c, "merges", label, &s->chain[i], out);

	free(label);
	return err;
}

/* The day must fail the check, else there is nothing to search. */
int bisect_test_tip(struct bctx *c, struct bisect_result *res, const git_oid *bad,
		    const char *label, int *go_on)
{
	enum bisect_verdict v;
	int err;

	*go_on = 0;
	res->bound += 2;	/* this one and, possibly, the base */
	if (!c->st.begun)
		bisect_step_begin(c, "endpoints", label);
	err = bisect_test_state(c, "endpoints", label, bad, NULL, &v);
	if (err)
		return err;
	if (v == BISECT_SKIP)
		return tide_error_set(TIDE_ERROR, "the check cannot test %s (it skipped)", label);
	if (v == BISECT_GOOD) {
		res->outcome = BISECT_NOTHING;
		bisect_progress(c, "%s passes the check: nothing to bisect", label);
		return 0;
	}
	*go_on = 1;
	return 0;
}

/*
 * The base is tested only when no later state passed: the search assumes
 * it good, and testing it first would cost a build far from every other
 * state (the whole tree recompiled when a tree touches a common header).
 */
int bisect_test_base(struct bctx *c, struct bisect_result *res, const git_oid *good,
		     const char *label, int *go_on)
{
	enum bisect_verdict v;
	int err;

	*go_on = 0;
	if (!c->st.begun)
		bisect_step_begin(c, "endpoints", label);
	err = bisect_test_state(c, "endpoints", label, good, NULL, &v);
	if (err)
		return err;
	if (v != BISECT_GOOD) {
		res->outcome = BISECT_BASE_BROKEN;
		bisect_set_str(&res->tree, "mainline");
		bisect_set_commit(res, c->repo, good);
		bisect_progress(c, "%s %s the check: the base is broken", label,
			 v == BISECT_BAD ? "fails" : "cannot run");
		return 0;
	}
	*go_on = 1;
	return 0;
}

/*
 * A tree whose state after it fails may fail only through a fixup the
 * day applied after its merge.  The states inside the group (its merge,
 * then each fixup commit) need not be monotone: a first fixup typically
 * repairs the merge.  So they are tested from the last but one down:
 * the first that passes makes the fixup after it the culprit; if none
 * does (the merge alone fails too), the tree's own commits are searched.
 * *found says whether a fixup was the culprit.
 */
static int fixup_culprit(struct bctx *c, struct bisect_result *res, const struct group *g,
			 int *found)
{
	size_t n = json_array_size(g->fixups), i;
	git_oid *states;
	enum bisect_verdict v = BISECT_BAD;
	int err = 0;

	*found = 0;
	if (!n)
		return 0;
	states = xcalloc(n + 1, sizeof(*states));
	states[0] = g->merge;
	for (i = 0; i < n; i++)
		git_oid_fromstr(&states[i + 1], json_string_value(json_array_get(g->fixups, i)));
	for (i = n; i-- > 0 && v != BISECT_GOOD && !err;) {
		char *subject = i ? bisect_commit_subject(c->repo, &states[i]) : NULL;
		char *label = i ? xasprintf("%s: up to fixup %zu/%zu \"%s\"", g->name, i, n, subject) :
			xasprintf("%s's merge without its %zu fixup%s", g->name, n, n == 1 ? "" : "s");

		err = test_known(c, "fixups", label, &states[i], &v);
		res->bound++;
		free(label);
		free(subject);
	}
	if (err || v != BISECT_GOOD)
		goto done;
	i++;	/* the loop's last decrement: states[i] passed, states[i + 1] failed */
	*found = 1;
	res->outcome = BISECT_FOUND;
	bisect_set_commit(res, c->repo, &states[i + 1]);
	bisect_progress(c, "%s passes up to its fixup %.12s %s, which breaks it", g->name,
		 res->commit, res->subject);
	err = bisect_confirm(c, res, &states[i + 1], &states[i]);
done:
	free(states);
	return err;
}

static int stage1(struct bctx *c, struct bisect_result *res, struct bday *d)
{
	struct chain_series cs = { c, NULL, 0 };
	struct series s = { 0 };
	enum bisect_verdict *v = NULL;
	git_oid *chain = NULL, *commits = NULL, tip2;
	struct group *groups = NULL;
	struct mixslot vec[2];
	git_commit *m = NULL;
	size_t n, lo, hi, ncom, found;
	int err, go_on, by_fixup;
	const char *name;

	if ((err = bday_chain(c, d, &chain, &groups, &n)) < 0)
		return err;
	if (n == 0) {
		err = tide_error_set(TIDE_EINVAL, "day %s: nothing merged on the base", d->date);
		goto done;
	}
	err = bisect_test_tip(c, res, &chain[n], "the day", &go_on);
	if (err || !go_on)
		goto done;
	cs.c = c;
	cs.chain = chain;
	cs.n = n;
	v = xcalloc(n + 1, sizeof(*v));
	v[0] = BISECT_GOOD;
	v[n] = BISECT_BAD;
	res->bound += bisect_log2_ceil(n);
	if ((err = bisect_search(v, n, chain_test, &cs, &lo, &hi)) < 0)
		goto done;
	if (lo == 0 && ((err = bisect_test_base(c, res, &chain[0], "the base", &go_on)) < 0 || !go_on))
		goto done;
	if (hi - lo > 1) {
		char *a = chain_label(c, chain, n, lo + 1), *b = chain_label(c, chain, n, hi);

		res->outcome = BISECT_RANGE;
		bisect_set_str(&res->range_first, a);
		bisect_set_str(&res->range_last, b);
		bisect_progress(c, "skipped steps leave %s .. %s", a, b);
		free(a);
		free(b);
		goto done;
	}
	name = groups[hi].name;
	bisect_set_str(&res->tree, name ? name : groups[hi].has_merge ? NULL : "next-files");
	bisect_progress(c, "first bad merge: %s", name ? name : "(not a tree merge)");
	if (!groups[hi].has_merge) {
		res->outcome = BISECT_FOUND;
		bisect_set_commit(res, c->repo, &chain[hi]);
		err = bisect_confirm(c, res, &chain[hi], &chain[hi - 1]);
		goto done;
	}
	if ((err = fixup_culprit(c, res, &groups[hi], &by_fixup)) < 0 || by_fixup)
		goto done;
	if (git_commit_lookup(&m, c->repo, &groups[hi].merge) < 0) {
		err = tide_error_git(TIDE_ERROR, "bisect: cannot read the merge");
		goto done;
	}
	tip2 = *git_commit_parent_id(m, 1);
	if ((err = history_first_parents(&commits, &ncom, c->repo, &tip2, &chain[hi - 1])) < 0)
		goto done;
	memset(vec, 0, sizeof(vec));
	vec[0].tip = &chain[hi - 1];
	vec[1].tip = &tip2;
	vec[1].name = name ? name : "the tree";
	vec[1].fixups = groups[hi].fixups;
	s.c = c;
	s.stage = "tree";
	s.what = name ? name : "the tree";
	s.vec = vec;
	s.nvec = 2;
	s.slot = 1;
	s.cand = commits;
	s.ncand = ncom;
	s.known_good = &chain[hi - 1];
	s.known_bad = &chain[hi];
	bisect_progress(c, "%s: %zu commits since its merge base%s", s.what, ncom,
		 json_array_size(groups[hi].fixups) ? ", its fixups applied after each" : "");
	if ((err = bisect_stage2(c, res, &s, &found)) < 0 || !found)
		goto done;
	if (res->outcome == BISECT_FOUND)
		err = semantic(c, res, chain, groups, hi, &commits[found - 1], s.what);
done:
	git_commit_free(m);
	free(v);
	free(commits);
	free(chain);
	bisect_groups_free(groups, n + 1);
	return err;
}

/* ---- the culprit confirmed by reverting it ---- */

/*
 * The day's tip with commit reverted: a three-way merge of the tip and the
 * commit's parent over the commit.  0 with *out the state, 1 when the
 * revert conflicts (*why says where).
 */
static int revert_state(struct bctx *c, const git_oid *tip, const git_oid *commit,
			git_oid *out, char **why)
{
	struct merge_result mr;
	git_commit *cm = NULL, *pc = NULL, *tc = NULL;
	git_tree *ct = NULL, *pt = NULL, *tt = NULL;
	char *msg = NULL;
	int err;

	memset(&mr, 0, sizeof(mr));
	if (git_commit_lookup(&cm, c->repo, commit) < 0 || git_commit_parent(&pc, cm, 0) < 0 ||
	    git_commit_lookup(&tc, c->repo, tip) < 0 || git_commit_tree(&ct, cm) < 0 ||
	    git_commit_tree(&pt, pc) < 0 || git_commit_tree(&tt, tc) < 0) {
		err = tide_error_git(TIDE_ERROR, "bisect: cannot read the culprit to revert it");
		goto done;
	}
	if ((err = merge_trees(&mr, c->repo, ct, tt, pt, NULL)) < 0)
		goto done;
	if (mr.nconflicts) {
		*why = xasprintf("the revert conflicts in %s", mr.conflicts[0].path);
		err = 1;
		goto done;
	}
	msg = xasprintf("Revert \"%s\"\n\nThis reverts commit %s (tide bisect).\n",
			git_commit_summary(cm) ?: "", git_oid_tostr_s(commit));
	err = write_commit(c, &mr.tree, tip, NULL, msg, out);
done:
	free(msg);
	merge_result_clear(&mr);
	git_tree_free(ct);
	git_tree_free(pt);
	git_tree_free(tt);
	git_commit_free(cm);
	git_commit_free(pc);
	git_commit_free(tc);
	return err;
}

/*
 * The day rebuilt from its base without the tree name: every other
 * tree's merge and fixups, in order.  1 with *why when a merge conflicts.
 */
static int day_without(struct bctx *c, const struct bday *d, const char *name, git_oid *out,
		       char **why)
{
	git_oid *chain = NULL, *tips;
	struct group *groups = NULL;
	struct mixslot *slots;
	size_t n = 0, i, ns = 0;
	int err;

	if ((err = bday_chain(c, d, &chain, &groups, &n)) < 0)
		return err;
	tips = xcalloc(n + 1, sizeof(*tips));
	slots = xcalloc(n + 1, sizeof(*slots));
	for (i = 1; i <= n && !err; i++) {
		git_commit *m = NULL;

		if (!groups[i].has_merge || !groups[i].name || !strcmp(groups[i].name, name))
			continue;
		if (git_commit_lookup(&m, c->repo, &groups[i].merge) < 0) {
			err = tide_error_git(TIDE_ERROR, "bisect: cannot read a merge");
			break;
		}
		if (git_commit_parentcount(m) == 2) {
			tips[ns] = *git_commit_parent_id(m, 1);
			slots[ns].tip = &tips[ns];
			slots[ns].name = groups[i].name;
			slots[ns].fixups = groups[i].fixups;
			ns++;
		}
		git_commit_free(m);
	}
	if (!err)
		err = merge_series(c, &chain[0], slots, ns, out, why);
	free(slots);
	free(tips);
	free(chain);
	bisect_groups_free(groups, n + 1);
	return err;
}

static void revert_record(struct bisect_result *res, const char *how, const git_oid *state,
			  enum bisect_verdict v, const char *note)
{
	char hex[GIT_OID_HEXSZ + 1] = "";

	if (state)
		git_oid_tostr(hex, sizeof(hex), state);
	json_decref(res->revert);
	res->revert = json_pack("{s:s, s:o, s:s, s:o}", "how", how,
				"commit", state ? json_string(hex) : json_null(),
				"verdict", bisect_verdict_name(v),
				"confirmed", v == BISECT_GOOD ? json_true() :
				v == BISECT_BAD ? json_false() : json_null());
	if (note)
		json_object_set_new(res->revert, "note", json_text(note));
}

/*
 * A culprit commit named, the day (d's tip) is tested once more with it
 * reverted, or without its tree when the revert does not apply: it
 * failed with the commit (the day did), so passing without it confirms
 * it (KernelCI's fails-with, passes-without); failing still means the
 * day fails for another reason too, and the culprit is not the whole
 * answer.  The Next/ files commit and a dropped commit (it is not in
 * the day to revert) are not reverted.
 */
static int revert_confirm(struct bctx *c, struct bisect_result *res, const struct bday *d)
{
	enum bisect_verdict v = BISECT_UNTESTED;
	git_oid commit, state;
	char *label, *why = NULL;
	const char *how = "reverted";
	int r, err = 0;

	if ((res->outcome != BISECT_FOUND && res->outcome != BISECT_SEMANTIC) || !res->commit ||
	    !res->tree || res->dropped || !strcmp(res->tree, "next-files") ||
	    git_oid_fromstr(&commit, res->commit) < 0)
		return 0;
	label = xasprintf("the day with %.12s reverted", res->commit);
	bisect_step_begin(c, "revert", label);
	r = revert_state(c, &d->tip, &commit, &state, &why);
	if (r == 1) {
		bisect_progress(c, "%s: leaving the %s tree out instead", why, res->tree);
		free(label);
		label = xasprintf("the day without the %s tree (the revert of %.12s does not apply)",
				  res->tree, res->commit);
		free(why);
		why = NULL;
		how = "tree-left-out";
		r = day_without(c, d, res->tree, &state, &why);
	}
	if (r >= 0)
		err = bisect_test_state(c, "revert", label, r ? NULL : &state, why, &v);
	else
		err = r;
	res->bound++;
	if (!err) {
		revert_record(res, how, r ? NULL : &state, v, why);
		if (v == BISECT_GOOD)
			bisect_progress(c, "confirmed: the day passes with %.12s %s", res->commit,
				 r == 0 && !strcmp(how, "reverted") ? "reverted" : "left out with its tree");
		else if (v == BISECT_BAD)
			bisect_progress(c, "not confirmed: the day still fails without %.12s: something "
				 "else breaks it too", res->commit);
		else
			bisect_progress(c, "not confirmed: the day without %.12s cannot be tested", res->commit);
	}
	free(why);
	free(label);
	return err;
}

/* ---- the whole bisect ---- */

/* The bisect's record, filled from the result: the one place it becomes a day's "bisect". */
static struct day_bisect *result_record(const struct bisect_result *res, const struct bctx *c)
{
	struct day_bisect *b = day_bisect_full();

	b->outcome = xstrdup(bisect_outcome_name(res->outcome));
	b->check = c->opts->check_spec ? json_deep_copy(c->opts->check_spec) : NULL;
	b->since = dayrec_text(c->opts->since);
	b->retries = c->opts->retries;
	b->tree = dayrec_text(res->tree);
	b->commit = dayrec_text(res->commit);
	b->subject = dayrec_text(res->subject);
	b->conflicts_with = dayrec_text(res->other_tree);
	if (res->range_first) {
		b->range_first = dayrec_text(res->range_first);
		b->range_last = dayrec_text(res->range_last);
	}
	b->dropped = res->dropped_list ? json_deep_copy(res->dropped_list) : NULL;
	b->steps_done = (long long)res->steps;
	b->builds = (long long)res->builds;
	b->runs = (long long)res->runs;
	b->replayed = (long long)res->replayed;
	b->bound = (long long)res->bound;
	b->seconds = res->seconds;
	b->steps = json_deep_copy(c->steps);
	b->revert = res->revert ? json_deep_copy(res->revert) : NULL;
	return b;
}

/*
 * The only writer of a day's "bisect" record: the day loaded again (a
 * build or boot may have changed it since), set and saved (atomically: a
 * reader sees the old record or the new).  The day's bisect before it
 * joins "earlier_bisects": every bisect of a day is kept.
 */
static int record_in_day(const struct bday *d, const struct day_bisect *record)
{
	struct day *day = NULL;
	int err;

	if ((err = day_open(&day, d->days_dir, d->date)) < 0)
		return err;
	day_add_bisect(day, day_bisect_dup(record));
	err = day_save(day, d->path);
	day_free(day);
	return err;
}

int bisect_state_load(json_t **out, const char *wsdir)
{
	char *path = workspace_bisect_state(wsdir);
	json_error_t jerr;
	int err = 0;

	*out = NULL;
	if (!path_exists(path))
		err = tide_error_set(TIDE_ENOTFOUND, "no bisect was started in %s", wsdir);
	else if (!(*out = json_load_file(path, 0, &jerr)))
		err = tide_error_set(TIDE_EINVAL, "%s:%d: %s", path, jerr.line, jerr.text);
	free(path);
	return err;
}

static int ctx_init(struct bctx *c, git_repository *repo, const struct bisect_opts *opts,
		    const char *date)
{
	char *dir = workspace_bisect_dir(opts->wsdir);
	json_t *old = NULL;
	int err;

	memset(c, 0, sizeof(*c));
	c->repo = repo;
	c->opts = opts;
	c->t0 = time_now();
	c->state_path = workspace_bisect_state(opts->wsdir);
	c->store = workspace_rr_cache(opts->wsdir);
	c->memo = json_object();
	err = mkdir_p(dir, 0777);
	free(dir);
	if (err)
		return err;
	if (git_signature_new(&c->sig, "tide bisect", "bisect@tide.invalid", 0, 0) < 0)
		return tide_error_git(TIDE_ERROR, "bisect: signature");
	/* The temporary merges stay in memory; one pack at the end. */
	if ((err = merge_objects_begin(&c->mo, repo)) < 0)
		return err;
	if (opts->resume && bisect_state_load(&old, opts->wsdir) == 0) {
		c->old_steps = json_incref(json_object_get(old, "steps"));
		c->elapsed_before = json_number_value(json_object_get(old, "seconds"));
		json_decref(old);
	}
	c->state = json_pack("{s:i, s:o, s:o, s:i, s:O?, s:s, s:[]}", "version", 1,
			     "date", json_text(date), "since", json_text(opts->since), "retries", opts->retries,
			     "check", opts->check_spec, "status", "running", "steps");
	if (!c->state)
		return tide_error_set(TIDE_ERROR, "bisect: cannot make the state");
	c->steps = json_object_get(c->state, "steps");
	return state_save(c);
}

static void ctx_release(struct bctx *c)
{
	merge_objects_free(c->mo);
	git_signature_free(c->sig);
	buf_release(&c->st.notes);
	json_decref(c->memo);
	free(c->store);
	free(c->state_path);
	json_decref(c->state);
	json_decref(c->old_steps);
}

int bisect_run(struct bisect_result *res, git_repository *repo,
	       const struct bisect_opts *opts)
{
	struct bctx c;
	struct bday d = { 0 };
	int err = 0;

	memset(res, 0, sizeof(*res));
	if (opts->retries < 1 || !opts->check)
		return tide_error_set(TIDE_EINVAL, "bisect: retries must be at least 1");
	if ((err = bday_load(&d, repo, opts->wsdir, opts->date)) < 0) {
		bday_release(&d);
		return err;
	}
	res->date = xstrdup(d.date);
	if ((err = ctx_init(&c, repo, opts, d.date)) < 0)
		goto done;
	err = opts->since ? bisect_days(&c, res, &d, opts->since) : stage1(&c, res, &d);
	if (!err)
		err = revert_confirm(&c, res, &d);
	res->steps = c.nsteps;
	res->runs = c.nruns;
	res->builds = c.nbuilds;
	res->replayed = c.nreplayed;
	res->seconds = elapsed(&c);
	if (err < 0) {
		/* "stopped", with the reason: --continue picks it up. */
		json_object_set_new(c.state, "status", json_text("stopped"));
		json_object_set_new(c.state, "error", json_text(tide_error_last()));
		state_save(&c);
		goto done;
	}
	/* The tested states on disk, so that the steps' commits can be looked at. */
	if (merge_objects_flush(c.mo) < 0)
		tide_error_clear();
	res->record = result_record(res, &c);
	json_object_set_new(c.state, "status", json_text("done"));
	json_object_set_new(c.state, "result", day_bisect_to_json(res->record));
	if ((err = state_save(&c)) == 0)
		err = record_in_day(&d, res->record);
done:
	if (err < 0)
		bisect_result_release(res);
	ctx_release(&c);
	bday_release(&d);
	return err;
}

void bisect_result_release(struct bisect_result *res)
{
	free(res->date);
	free(res->tree);
	free(res->commit);
	free(res->subject);
	free(res->other_tree);
	free(res->range_first);
	free(res->range_last);
	json_decref(res->dropped_list);
	json_decref(res->revert);
	day_bisect_free(res->record);
	memset(res, 0, sizeof(*res));
}

/* ---- the --cmd check ---- */

/*
 * sh -c CMD in the checkout with TIDE_BISECT_COMMIT set, its output
 * appended to the log (or nowhere): 0 with *code its exit status, or an
 * error (it could not be started, or a signal ended it).
 */
static int run_cmd(int *code, const struct bisect_cmd *bc, const char *hex)
{
	char *var = xasprintf("TIDE_BISECT_COMMIT=%s", hex);
	char *set[] = { var, NULL }, *argv[] = { "sh", "-c", (char *)bc->cmd, NULL };
	char **env = proc_env(set, NULL);
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res = { 0 };
	int error = 0, fd = -1;

	if (bc->log_path && (fd = open(bc->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
				       O_NOFOLLOW, 0666)) < 0) {
		error = tide_error_errno(TIDE_EIO, "cannot open the log '%s'", bc->log_path);
		goto done;
	}
	o.argv = argv;
	o.program = "/bin/sh";
	o.env = env;
	o.cwd = bc->srcdir;
	o.out = o.err = fd >= 0 ? PROC_FD : PROC_NULL;
	o.out_fd = o.err_fd = fd;
	if ((error = proc_run(&res, &o)) < 0)
		goto done;
	if (res.signal)
		error = tide_error_set(TIDE_ERROR, "--cmd '%s' was killed by signal %d", bc->cmd,
				       res.signal);
	*code = res.status;
done:
	if (fd >= 0)
		close(fd);
	proc_result_release(&res);
	free(env);
	free(var);
	return error;
}

int bisect_cmd_run(void *data, git_repository *repo, const git_oid *commit,
		   enum bisect_verdict *verdict, char **note)
{
	const struct bisect_cmd *bc = data;
	struct checkout_stats st = { 0 };
	char hex[GIT_OID_HEXSZ + 1];
	int err, code = 0;
	double t;

	git_oid_tostr(hex, sizeof(hex), commit);
	t = time_now();
	if ((err = mkdir_p(bc->srcdir, 0777)) == 0)
		err = checkout_tree(&st, repo, commit, bc->srcdir, bc->state_path);
	if (err == 0 && bc->progress) {
		char *line = xasprintf("checked out %.12s (%s%zu written, %zu removed, %.2fs); "
				       "running %s", hex, st.full ? "full, " : "", st.written,
				       st.removed, time_now() - t, bc->cmd);

		bc->progress(bc->progress_data, line);
		free(line);
	}
	checkout_stats_release(&st);
	if (err < 0)
		return err;
	if ((err = run_cmd(&code, bc, hex)) < 0)
		return err;
	if (code == 126 || code == 127)
		return tide_error_set(TIDE_EINVAL, "--cmd '%s': command not found or not "
				      "executable (exit %d)", bc->cmd, code);
	*verdict = code == 0 ? BISECT_GOOD : code == 125 ? BISECT_SKIP : BISECT_BAD;
	if (code != 0)
		*note = xasprintf("exit %d", code);
	return 0;
}

/* ---- a day rebuilt through bisect's merges ---- */

/* The day's own state after the tree name: its group's last commit, or NULL. */
static const git_oid *day_state_after(const git_oid *chain, const struct group *groups,
				      size_t ng, const char *name)
{
	size_t k;

	for (k = ng; k >= 1; k--)
		if (groups[k].name && !strcmp(groups[k].name, name))
			return &chain[k];
	return NULL;
}

static int tree_of(git_oid *out, git_repository *repo, const git_oid *commit)
{
	git_commit *cm = NULL;

	if (git_commit_lookup(&cm, repo, commit) < 0)
		return tide_error_git(TIDE_ERROR, "bisect: cannot read %s", git_oid_tostr_s(commit));
	git_oid_cpy(out, git_commit_tree_id(cm));
	git_commit_free(cm);
	return 0;
}

/* One tree of the day: bisect's state after it from cur, and the day's. */
static int rebuild_tree(struct bctx *c, const struct bday *d, const struct day_tree *t,
			git_oid *cur, const git_oid *day_state, struct bisect_rebuilt *r)
{
	struct mixslot slot = { NULL, t->name, json_object_get(d->fixups, t->name) };
	git_oidarray bases = { NULL, 0 };
	git_oid tip, next;
	int err;

	r->tree = xstrdup(t->name);
	if (bisect_oid_field(&tip, t->sha) < 0)
		return tide_error_set(TIDE_EINVAL, "%s: tree '%s' has no valid \"sha\"", d->path,
				      t->name);
	slot.tip = &tip;
	if ((err = graph_merge_bases(&bases, c->repo, cur, &tip)) < 0)
		return err;
	r->nbases = bases.count;
	git_oidarray_dispose(&bases);
	if ((err = tree_of(&r->day_tree, c->repo, day_state)) < 0)
		return err;
	err = merge_series(c, cur, &slot, 1, &next, &r->why);
	if (err < 0)
		return err;
	/* A state bisect cannot build: the next tree goes on from the day's. */
	*cur = err ? *day_state : next;
	return err ? 0 : tree_of(&r->state_tree, c->repo, &next);
}

int bisect_rebuild_day(struct bisect_rebuilt **out, size_t *n, git_repository *repo,
		       const char *wsdir, const char *date)
{
	struct bctx c;
	struct bday d;
	struct group *groups = NULL;
	git_oid *chain = NULL, cur;
	const git_oid *day_state, *after;
	size_t ng = 0, i;
	int err;

	*out = NULL;
	*n = 0;
	memset(&c, 0, sizeof(c));
	c.repo = repo;
	c.store = workspace_rr_cache(wsdir);
	c.memo = json_object();
	if ((err = bday_load(&d, repo, wsdir, date)) < 0)
		goto done;
	if (git_signature_new(&c.sig, "tide bisect", "bisect@tide.invalid", 0, 0) < 0) {
		err = tide_error_git(TIDE_ERROR, "bisect: signature");
		goto done;
	}
	/* The states stay in memory and are dropped: nothing is written to the repository. */
	if ((err = merge_objects_begin(&c.mo, repo)) < 0 ||
	    (err = bday_chain(&c, &d, &chain, &groups, &ng)) < 0)
		goto done;
	cur = d.base;
	day_state = &d.base;
	*out = xcalloc(d.day->ntrees ? d.day->ntrees : 1, sizeof(**out));
	for (i = 0; i < d.day->ntrees && !err; i++) {
		const struct day_tree *t = &d.day->trees[i];

		if (!tree_status_in_day(t->status))
			continue;
		if ((after = day_state_after(chain, groups, ng, t->name)))
			day_state = after;
		err = rebuild_tree(&c, &d, t, &cur, day_state, &(*out)[(*n)++]);
	}
done:
	if (err < 0) {
		bisect_rebuilt_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	free(chain);
	bisect_groups_free(groups, ng + 1);
	bday_release(&d);
	ctx_release(&c);
	return err;
}

void bisect_rebuilt_free(struct bisect_rebuilt *r, size_t n)
{
	size_t i;

	for (i = 0; r && i < n; i++) {
		free(r[i].tree);
		free(r[i].why);
	}
	free(r);
}
