/*
 * A tree's work in a child process (merge_isolate.h).  The child sends
 * what the work changed as tagged records on its pipe:
 *
 *   R  the work's result: int32 code, int32 "the workspace failed", message
 *   F  objects found good: FSCK_REC_SIZE-byte records (fsck.h)
 *   S  the day's state after it (an OID)
 *   M  the tips of the merges it made, one OID each
 *   C  the count of merge attempts (int32)
 *   U  the run's counts (struct merge_day_run, as this very binary lays it out)
 *   L  the text it added to merge.log
 *   T  the tree's record, as a one-tree day record in JSON
 *   E  the end: a result without it is a child that died while writing
 *
 * Each record is its tag, its length (8 bytes, host order: the reader is
 * this process's parent) and its bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>
#include <jansson.h>

#include "conf.h"
#include "day.h"
#include "error.h"
#include "fsck.h"
#include "graph.h"
#include "isolate.h"
#include "merge_day.h"
#include "merge_isolate.h"
#include "util.h"
#include "workspace.h"

struct job {
	struct merge_day *md;
	const struct tree *t;
	struct day_tree *dt;
	const git_oid *tip;
	merge_day_work work;
};

/* ---- the child ---- */

static void put_record(struct buf *out, char tag, const void *data, size_t len)
{
	uint64_t n = len;

	buf_putc(out, tag);
	buf_put(out, &n, sizeof(n));
	buf_put(out, data, len);
}

static void put_int(struct buf *out, char tag, int32_t v)
{
	put_record(out, tag, &v, sizeof(v));
}

/*
 * A failure that is the workspace's, not the tree's: tide's I/O errors,
 * and libgit2's errors of the operating system that say the disk is full
 * or failing.  Only libgit2's own message is looked at: a tree's text
 * (paths, subjects) is in tide's messages, never in that one.
 */
static int workspace_fault(int code)
{
	static const int errs[] = { ENOSPC, EDQUOT, EROFS, EIO, EMFILE, ENFILE };
	const git_error *e = git_error_last();
	size_t i;

	if (code == TIDE_EIO)
		return 1;
	if (!e || e->klass != GIT_ERROR_OS || !e->message)
		return 0;
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (strstr(e->message, strerror(errs[i])))
			return 1;
	return 0;
}

static void put_tree(struct buf *out, struct day_tree *dt)
{
	struct day one;
	json_t *json = NULL;
	char *text;

	memset(&one, 0, sizeof(one));
	one.date = "0000-00-00";
	one.trees = dt;
	one.ntrees = 1;
	day_to_json(&json, &one);
	text = json_dumps(json, JSON_COMPACT);
	put_record(out, 'T', text ? text : "", text ? strlen(text) : 0);
	free(text);
	json_decref(json);
}

static void put_outcome(struct buf *out, struct merge_day *md, struct day_tree *dt,
			size_t nmerged, size_t nlog)
{
	size_t i;

	put_record(out, 'S', md->state.id, GIT_OID_RAWSZ);
	for (i = nmerged; i < md->nmerged; i++)
		put_record(out, 'M', md->merged[i].tip.id, GIT_OID_RAWSZ);
	put_int(out, 'C', md->nmerges);
	put_record(out, 'U', md->sum, sizeof(*md->sum));
	put_record(out, 'L', md->mergelog->ptr + nlog, md->mergelog->len - nlog);
	put_tree(out, dt);
}

static void job_child(void *data, int fd)
{
	struct job *j = data;
	struct merge_day *md = j->md;
	size_t nrecs = md->fsck ? md->fsck->nadded : 0, nlog = md->mergelog->len, i;
	size_t nmerged = md->nmerged;
	struct buf out = BUF_INIT, rec = BUF_INIT;
	const char *crash = getenv("TIDE_TEST_MERGE_ABORT");
	int rc, ws;
	int32_t head[2];

	/* Tests make one tree's process die as a crash would (t2420). */
	if (crash && !strcmp(crash, j->t->name))
		abort();
	rc = j->work(md, j->t, j->dt, j->tip);
	ws = rc < 0 && workspace_fault(rc);
	head[0] = rc;
	head[1] = ws;

	buf_put(&rec, head, sizeof(head));
	if (rc < 0)
		buf_puts(&rec, tide_error_last());
	put_record(&out, 'R', rec.ptr, rec.len);
	buf_clear(&rec);
	for (i = nrecs; md->fsck && i < md->fsck->nadded; i++) {
		uint32_t h = md->fsck->recs[i].height;

		buf_put(&rec, md->fsck->recs[i].id.id, GIT_OID_RAWSZ);
		buf_put(&rec, &h, sizeof(h));
	}
	put_record(&out, 'F', rec.ptr, rec.len);
	if (rc >= 0)
		put_outcome(&out, md, j->dt, nmerged, nlog);
	put_record(&out, 'E', "", 0);
	isolate_write(fd, out.ptr, out.len);
	buf_release(&rec);
	buf_release(&out);
}

/* ---- the parent ---- */

struct record {
	char tag;
	const char *data;
	size_t len;
};

/* The records of out, in order; -1 when cut short or unfinished ('E' missing). */
static int records(struct record **out, size_t *n, const struct buf *b)
{
	size_t at = 0, alloc = 0;
	uint64_t len;

	*out = NULL;
	*n = 0;
	while (at + 1 + sizeof(len) <= b->len) {
		memcpy(&len, b->ptr + at + 1, sizeof(len));
		if (len > b->len - at - 1 - sizeof(len))
			break;
		array_grow(out, &alloc, *n + 1, sizeof(**out));
		(*out)[*n].tag = b->ptr[at];
		(*out)[*n].data = b->ptr + at + 1 + sizeof(len);
		(*out)[*n].len = (size_t)len;
		at += 1 + sizeof(len) + (size_t)len;
		if ((*out)[(*n)++].tag == 'E')
			return at == b->len ? 0 : -1;
	}
	return -1;
}

static void take_recs(struct merge_day *md, const struct record *r)
{
	size_t i;
	uint32_t h;
	git_oid id;

	for (i = 0; md->fsck && i + FSCK_REC_SIZE <= r->len; i += FSCK_REC_SIZE) {
		git_oid_fromraw(&id, (const unsigned char *)r->data + i);
		memcpy(&h, r->data + i + GIT_OID_RAWSZ, sizeof(h));
		fsck_seen_put(md->fsck, &id, h);
	}
}

/* dt becomes the child's record of the tree, keeping the names tide gave it. */
static int take_tree(struct day_tree *dt, const struct record *r)
{
	json_error_t jerr;
	json_t *json = json_loadb(r->data, r->len, 0, &jerr);
	struct day *d = NULL;
	struct day_tree keep;
	char *swap;
	int error;

	if (!json)
		return tide_error_set(TIDE_ERROR, "the merge process sent a bad record: %s",
				      jerr.text);
	error = day_from_json(&d, json, "the merge process's record");
	json_decref(json);
	if (error < 0)
		return error;
	if (d->ntrees != 1) {
		day_free(d);
		return tide_error_set(TIDE_ERROR, "the merge process sent no tree record");
	}
	keep = *dt;
	*dt = d->trees[0];
	d->trees[0] = keep;
#define KEEP(f) (swap = dt->f, dt->f = d->trees[0].f, d->trees[0].f = swap)
	KEEP(name), KEEP(type), KEEP(url), KEEP(branch);
#undef KEEP
	day_free(d);
	return 0;
}

static int take_outcome(struct merge_day *md, const struct tree *t, struct day_tree *dt,
			const struct record *r, size_t n)
{
	git_oid before = md->state;
	size_t i;
	int error = 0;

	for (i = 0; i < n && !error; i++) {
		switch (r[i].tag) {
		case 'S':
			git_oid_fromraw(&md->state, (const unsigned char *)r[i].data);
			break;
		case 'M':
			md->merged = xrealloc(md->merged, (md->nmerged + 1) * sizeof(*md->merged));
			md->merged[md->nmerged].name = t->name;
			git_oid_fromraw(&md->merged[md->nmerged++].tip,
					(const unsigned char *)r[i].data);
			break;
		case 'C':
			memcpy(&md->nmerges, r[i].data, sizeof(int32_t));
			break;
		case 'U':
			memcpy(md->sum, r[i].data, sizeof(*md->sum));
			break;
		case 'L':
			buf_put(md->mergelog, r[i].data, r[i].len);
			break;
		case 'T':
			error = take_tree(dt, &r[i]);
			break;
		}
	}
	/* The next tree's process finds the merge bases without parsing the day again. */
	if (!error && !git_oid_equal(&before, &md->state))
		graph_remember(md->repo, &md->state);
	return error;
}

/* Is the day so far still readable?  If not, the repository broke, not the tree. */
static int state_readable(struct merge_day *md)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	int ok = git_commit_lookup(&c, md->repo, &md->state) == 0 && git_commit_tree(&tree, c) == 0;

	git_tree_free(tree);
	git_commit_free(c);
	git_error_clear();
	return ok;
}

/* The child's result record: its code, and its message (a tree's failure) or error. */
static int take_result(char **why, struct merge_day *md, const struct record *r)
{
	int32_t head[2];

	if (r->len < sizeof(head))
		return tide_error_set(TIDE_ERROR, "the merge process sent a bad record");
	memcpy(head, r->data, sizeof(head));
	if (head[0] >= 0)
		return head[0];
	if (head[1] || !state_readable(md))
		return tide_error_set(head[0], "%.*s", (int)(r->len - sizeof(head)),
				      r->data + sizeof(head));
	*why = xstrndup(r->data + sizeof(head), r->len - sizeof(head));
	return 0;
}

static void limits_of(struct isolate_limits *out, const struct merge_day *md,
		      const struct tree *t)
{
	out->seconds = (double)md->tree_seconds;
	if (t)
		out->seconds = (double)tree_opt_seconds(t, "merge-timeout", md->tree_seconds);
	out->memory = md->tree_memory;
	/* the run holds what the child sends: bounded like the child's memory */
	out->output = md->tree_memory;
}

int merge_day_isolated(char **why, struct merge_day *md, const struct tree *t,
		       struct day_tree *dt, const git_oid *tip, merge_day_work work)
{
	struct job j = { md, t, dt, tip, work };
	struct isolate_limits limits;
	struct isolate_result res;
	struct record *r = NULL;
	struct buf how = BUF_INIT;
	size_t n = 0, i;
	int error;

	*why = NULL;
	limits_of(&limits, md, t);
	if ((error = isolate_run(&res, &limits, job_child, &j)) < 0)
		return error;
	/* For whoever sets the budgets: what each tree's work took. */
	workspace_log(md->ws, "%s: its merge process took %.2f s and %zu MB more memory",
		      t->name, res.seconds, res.peak >> 20);
	if (res.end != ISOLATE_EXITED || res.status != 0 || records(&r, &n, &res.out) < 0 ||
	    r[0].tag != 'R') {
		isolate_describe(&how, &res, &limits);
		*why = xasprintf("merge stopped: %s", buf_cstr(&how));
		error = 0;
		goto done;
	}
	for (i = 0; i < n; i++)
		if (r[i].tag == 'F')
			take_recs(md, &r[i]);
	if ((error = take_result(why, md, &r[0])) >= 0 && !*why) {
		int rc = error;

		if ((error = take_outcome(md, t, dt, r, n)) == 0)
			error = rc;
	}
done:
	free(r);
	buf_release(&how);
	isolate_result_release(&res);
	return error;
}
