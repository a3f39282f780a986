/* Unit tests of the commit-graph upkeep and the attribution walk (src/graph.c). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>
#include <git2/sys/commit_graph.h>

#include "t.h"
#include "graph.h"
#include "util.h"

static git_repository *repo;
static char *repo_dir;
static int clock_now;

static void repo_open(void)
{
	char tmpl[] = "/tmp/tide-test-graph.XXXXXX";

	git_libgit2_init();
	if (!mkdtemp(tmpl))
		abort();
	repo_dir = xstrdup(tmpl);
	if (git_repository_init(&repo, repo_dir, 1) < 0)
		abort();
	clock_now = 0;
}

static void repo_close(void)
{
	git_repository_free(repo);
	repo = NULL;
	rm_rf(repo_dir);
	free(repo_dir);
	git_libgit2_shutdown();
}

/*
 * A commit whose tree is parent's (or empty) with each "path=content"
 * spec applied; parents p1, p2 may be NULL.  Every commit is a second
 * newer than the one before.
 */
static git_oid commit(const char *msg, const char *const *specs, const git_oid *p1,
		      const git_oid *p2)
{
	git_signature *sig = NULL;
	git_commit *parents[2] = { NULL, NULL };
	git_tree *base = NULL, *tree = NULL;
	git_index *idx = NULL;
	git_oid oid, tree_id;
	size_t n = 0;

	if (p1)
		git_commit_lookup(&parents[n++], repo, p1);
	if (p2)
		git_commit_lookup(&parents[n++], repo, p2);
	if (git_index_new(&idx) < 0)
		abort();
	if (p1 && (git_commit_tree(&base, parents[0]) < 0 || git_index_read_tree(idx, base) < 0))
		abort();
	for (; specs && *specs; specs++) {
		const char *eq = strchr(*specs, '=');
		char *path = xstrndup(*specs, (size_t)(eq - *specs));
		git_index_entry e;

		memset(&e, 0, sizeof(e));
		e.mode = GIT_FILEMODE_BLOB;
		e.path = path;
		if (git_blob_create_from_buffer(&e.id, repo, eq + 1, strlen(eq + 1)) < 0 ||
		    git_index_add(idx, &e) < 0)
			abort();
		free(path);
	}
	if (git_index_write_tree_to(&tree_id, idx, repo) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) < 0)
		abort();
	git_signature_new(&sig, "T", "t@tide.invalid", 1700000000 + ++clock_now, 0);
	if (git_commit_create(&oid, repo, NULL, sig, sig, NULL, msg, tree, n,
			      (const git_commit **)parents) < 0)
		abort();
	git_commit_free(parents[0]);
	git_commit_free(parents[1]);
	git_tree_free(base);
	git_tree_free(tree);
	git_index_free(idx);
	git_signature_free(sig);
	return oid;
}

static void ref(const char *name, const git_oid *id)
{
	git_reference *r = NULL;

	if (git_reference_create(&r, repo, name, id, 1, NULL) < 0)
		abort();
	git_reference_free(r);
}

struct seen {
	struct buf list;	/* "msg[owner] " per commit */
};

static int note(const git_oid *id, int owner, const unsigned char *changed, void *payload)
{
	struct seen *s = payload;
	git_commit *c = NULL;

	(void)changed;
	if (git_commit_lookup(&c, repo, id) < 0)
		abort();
	buf_printf(&s->list, "%s[%d] ", git_commit_message(c), owner);
	git_commit_free(c);
	return 0;
}

static char *walk(const git_oid *tip, const git_oid *bottoms, size_t nb, const char *path,
		  const git_oid *owners, size_t no)
{
	const char *paths[1] = { path };
	struct graph_walk w;
	struct seen s = { BUF_INIT };

	memset(&w, 0, sizeof(w));
	w.tip = tip;
	w.bottoms = bottoms;
	w.nbottoms = nb;
	w.paths = paths;
	w.npaths = 1;
	w.owners = owners;
	w.nowners = no;
	w.max_commits = 1000;
	if (graph_walk_touching(repo, &w, note, &s) < 0)
		abort();
	buf_putc(&s.list, '\0');
	return s.list.ptr;
}

static char *graph_file(void)
{
	return xasprintf("%s/objects/info/tide-commit-graph", repo_dir);
}

static int removed_git;

static enum graph_refresh_what refresh(const char **why)
{
	struct graph_refresh_result r;

	if (graph_refresh(&r, repo_dir) < 0)
		return (enum graph_refresh_what)-1;
	if (why)
		*why = r.why;
	removed_git = r.removed_git;
	return r.what;
}

/* git's own check of every entry of tide's file, generation numbers included */
static int git_verifies(void)
{
	char *cmd = xasprintf("cd '%s' && cp objects/info/tide-commit-graph objects/info/commit-graph && "
			      "git --git-dir=. commit-graph verify >/dev/null 2>&1; rc=$?; "
			      "rm -f objects/info/commit-graph; exit $rc", repo_dir);
	int rc = system(cmd);

	free(cmd);
	return rc;
}

/* base -> m1 -> m2 (mainline), x and y branches from base merged onto m2 */
struct day {
	git_oid base, m1, x1, x2, y1, state1, state2;
};

static void make_day(struct day *d)
{
	const char *init[] = { "a/p.c=1\n", "b/q.c=1\n", "c/r.c=1\n", NULL };
	const char *xp[] = { "a/p.c=x\n", NULL }, *xr[] = { "c/r.c=x\n", NULL };
	const char *yq[] = { "b/q.c=y\n", NULL }, *mr[] = { "c/r.c=m\n", NULL };
	const char *s1[] = { "a/p.c=x\n", "c/r.c=m+x\n", NULL }, *s2[] = { "b/q.c=y\n", NULL };

	d->base = commit("base", init, NULL, NULL);
	d->m1 = commit("m1", mr, &d->base, NULL);
	d->x1 = commit("x1", xp, &d->base, NULL);
	d->x2 = commit("x2", xr, &d->x1, NULL);
	d->y1 = commit("y1", yq, &d->base, NULL);
	(void)xr;
	d->state1 = commit("merge x", s1, &d->m1, &d->x2);
	d->state2 = commit("merge y", s2, &d->state1, &d->y1);
	ref("refs/heads/main", &d->m1);
	ref("refs/heads/x", &d->x2);
	ref("refs/heads/y", &d->y1);
	ref("refs/heads/state", &d->state2);
}

TEST(graph__written_once_and_verified_by_git)
{
	struct day d;
	git_commit_graph *cg = NULL;
	char *objects;

	repo_open();
	make_day(&d);
	CHECK_INT(refresh(NULL), GRAPH_WRITTEN);
	CHECK_INT(refresh(NULL), GRAPH_UP_TO_DATE);
	CHECK_INT(git_verifies(), 0);
	/* where libgit2 looks there is nothing, so it never reads an unchecked file */
	objects = xasprintf("%s/objects", repo_dir);
	CHECK(git_commit_graph_open(&cg, objects) < 0);
	git_commit_graph_free(cg);
	free(objects);
	repo_close();
}

static void check_bases(const git_oid *a, const git_oid *b)
{
	git_oidarray mine = { NULL, 0 }, lib = { NULL, 0 };
	size_t i, j;

	REQUIRE(graph_merge_bases(&mine, repo, a, b) == 0);
	if (git_merge_bases(&lib, repo, a, b) < 0)
		lib.count = 0;
	CHECK_INT(mine.count, lib.count);
	for (i = 0; i < mine.count && mine.count == lib.count; i++) {
		for (j = 0; j < lib.count && !git_oid_equal(&mine.ids[i], &lib.ids[j]); j++)
			;
		CHECK(j < lib.count);
	}
	git_oidarray_dispose(&mine);
	git_oidarray_dispose(&lib);
}

static void bases_match(int with_graph)
{
	struct day d;
	const char *init[] = { "p=0\n", NULL }, *one[] = { "p=1\n", NULL };
	git_oid r0, l1, r1, m1, m2, o, t, lone;

	repo_open();
	make_day(&d);
	r0 = commit("root", init, &d.base, NULL);
	l1 = commit("l1", one, &r0, NULL);
	r1 = commit("r1", init, &r0, NULL);
	m1 = commit("m1", one, &l1, &r1);
	m2 = commit("m2", one, &r1, &l1);
	o = commit("o", init, &m1, NULL);
	t = commit("t", one, &m2, NULL);
	lone = commit("lone", init, NULL, NULL);
	ref("refs/heads/o", &o);
	ref("refs/heads/t", &t);
	ref("refs/heads/lone", &lone);
	if (with_graph)
		CHECK_INT(refresh(NULL), GRAPH_WRITTEN);
	check_bases(&d.state2, &d.y1);
	check_bases(&d.state2, &d.m1);
	check_bases(&d.x2, &d.y1);
	check_bases(&o, &t);
	check_bases(&o, &d.state2);
	check_bases(&o, &o);
	check_bases(&lone, &o);
	repo_close();
}

TEST(graph__merge_bases_as_libgit2_finds_them)
{
	bases_match(0);
	bases_match(1);
}

TEST(graph__moved_refs_write_it_again)
{
	struct day d;
	const char *more[] = { "a/p.c=z\n", NULL };
	git_oid z, s1, s2, s3;

	repo_open();
	make_day(&d);
	CHECK_INT(refresh(NULL), GRAPH_WRITTEN);
	s1 = commit("s1", more, &d.base, NULL);
	s2 = commit("s2", more, &s1, NULL);
	ref("refs/heads/solo", &s2);
	CHECK_INT(refresh(NULL), GRAPH_WRITTEN);
	/* s1 is reachable only through s2, which only the new s3 names now */
	s3 = commit("s3", more, &s2, NULL);
	ref("refs/heads/solo", &s3);
	z = commit("z", more, &d.y1, NULL);
	ref("refs/heads/y", &z);
	/* written from the old file and the one new commit: every entry complete */
	CHECK_INT(refresh(NULL), GRAPH_WRITTEN);
	CHECK_INT(git_verifies(), 0);
	CHECK_INT(refresh(NULL), GRAPH_UP_TO_DATE);
	repo_close();
}

TEST(graph__truncated_file_is_rebuilt)
{
	struct day d;
	char *path;
	const char *why = NULL;

	repo_open();
	make_day(&d);
	CHECK_INT(refresh(NULL), GRAPH_WRITTEN);
	path = graph_file();
	CHECK_INT(truncate(path, 200), 0);
	CHECK_INT(refresh(&why), GRAPH_REBUILT);
	CHECK_STR(why, "truncated");
	CHECK_INT(refresh(NULL), GRAPH_UP_TO_DATE);
	free(path);
	repo_close();
}

/*
 * The file as untrusted input: a link to /dev/zero or a FIFO in its place
 * is neither hashed (it was read whole first: 14.5 GB) nor waited on; it
 * is removed and the graph written again.
 */
TEST(graph__link_or_fifo_is_rebuilt_unread)
{
	struct day d;
	char *path;
	const char *why = NULL;
	double start;

	repo_open();
	make_day(&d);
	CHECK_INT(refresh(NULL), GRAPH_WRITTEN);
	path = graph_file();
	REQUIRE(unlink(path) == 0 && symlink("/dev/zero", path) == 0);
	start = time_now();
	CHECK_INT(refresh(&why), GRAPH_REBUILT);
	CHECK_STR(why, "not a regular file");
	CHECK(time_now() - start < 10);
	REQUIRE(unlink(path) == 0 && mkfifo(path, 0644) == 0);
	start = time_now();
	CHECK_INT(refresh(&why), GRAPH_REBUILT);
	CHECK_STR(why, "not a regular file");
	CHECK(time_now() - start < 10);
	CHECK_INT(refresh(NULL), GRAPH_UP_TO_DATE);
	CHECK_INT(git_verifies(), 0);
	free(path);
	repo_close();
}

TEST(graph__foreign_file_is_rebuilt)
{
	struct day d;
	struct buf mine = BUF_INIT, other = BUF_INIT;
	char *path, *cmd, *side;
	const char *why = NULL;

	repo_open();
	make_day(&d);
	CHECK_INT(refresh(NULL), GRAPH_WRITTEN);
	path = graph_file();
	REQUIRE(file_read(&mine, path) == 0);
	/* git's own file, where libgit2 looks: removed */
	cmd = xasprintf("git --git-dir='%s' commit-graph write --reachable >/dev/null 2>&1 && "
			"cp '%s/objects/info/commit-graph' '%s'", repo_dir, repo_dir, path);
	CHECK_INT(system(cmd), 0);
	REQUIRE(file_read(&other, path) == 0);
	CHECK(other.len != mine.len || memcmp(other.ptr, mine.ptr, mine.len));
	/* and copied over tide's: not used, written again */
	CHECK_INT(refresh(&why), GRAPH_REBUILT);
	CHECK(removed_git);
	free(cmd);
	cmd = xasprintf("%s/objects/info/commit-graph", repo_dir);
	CHECK(!path_exists(cmd));
	CHECK_STR(why, "changed on disk");
	buf_clear(&other);
	REQUIRE(file_read(&other, path) == 0);
	CHECK(other.len == mine.len && !memcmp(other.ptr, mine.ptr, mine.len));
	/* a good file with no record of ours beside it */
	side = xasprintf("%s.check", path);
	CHECK_INT(unlink(side), 0);
	CHECK_INT(refresh(&why), GRAPH_REBUILT);
	CHECK_STR(why, "not written by tide");
	free(side);
	free(cmd);
	free(path);
	buf_release(&mine);
	buf_release(&other);
	repo_close();
}

static void walk_day(int with_graph)
{
	struct day d;
	git_oid owners[3];
	struct graph_walk_stats st;
	char *got;

	repo_open();
	make_day(&d);
	if (with_graph)
		CHECK_INT(refresh(NULL), GRAPH_WRITTEN);
	owners[0] = d.m1;
	owners[1] = d.x2;
	owners[2] = d.y1;
	/* a/p.c: only x1 changed it; y's merge and history are not walked */
	got = walk(&d.state2, &d.base, 1, "a/p.c", owners, 3);
	CHECK_STR(got, "x1[1] ");
	graph_walk_last_stats(&st);
	CHECK(st.examined <= 5);
	CHECK(with_graph ? st.from_graph > 0 : st.from_graph == 0);
	free(got);
	/* c/r.c: mainline's m1 and x2 both changed it */
	got = walk(&d.state2, &d.base, 1, "c/r.c", owners, 3);
	CHECK_STR(got, "x2[1] m1[0] ");
	free(got);
	got = walk(&d.state2, &d.base, 1, "b/q.c", owners, 3);
	CHECK_STR(got, "y1[2] ");
	free(got);
	/* the bottom itself and below is never listed */
	got = walk(&d.x2, &d.x1, 1, "a/p.c", NULL, 0);
	CHECK_STR(got, "");
	free(got);
	repo_close();
}

TEST(walk__skips_merges_that_did_not_touch_the_paths)
{
	walk_day(0);
}

TEST(walk__reads_parents_from_the_graph)
{
	walk_day(1);
}

TEST(walk__two_merge_bases_hide_the_shared_commits)
{
	const char *init[] = { "p=0\n", "q=0\n", NULL };
	const char *l[] = { "p=l\n", NULL }, *r[] = { "q=r\n", NULL };
	const char *both[] = { "p=l\n", "q=r\n", NULL };
	const char *o[] = { "p=ours\n", NULL }, *t[] = { "p=theirs\n", NULL };
	git_oid root, l1, r1, m1, m2, ours, theirs, bases[2];
	git_oidarray mb = { NULL, 0 };
	char *got;

	repo_open();
	root = commit("root", init, NULL, NULL);
	l1 = commit("l1", l, &root, NULL);
	r1 = commit("r1", r, &root, NULL);
	m1 = commit("m1", both, &l1, &r1);
	m2 = commit("m2", both, &r1, &l1);
	ours = commit("ours", o, &m1, NULL);
	theirs = commit("theirs", t, &m2, NULL);
	REQUIRE(git_merge_bases(&mb, repo, &ours, &theirs) == 0);
	CHECK_INT(mb.count, 2);
	bases[0] = l1;
	bases[1] = r1;
	got = walk(&ours, bases, 2, "p", NULL, 0);
	CHECK_STR(got, "ours[-1] ");
	free(got);
	got = walk(&theirs, bases, 2, "p", NULL, 0);
	CHECK_STR(got, "theirs[-1] ");
	free(got);
	/* with only one base hidden, l1 (shared by both sides) would be listed */
	got = walk(&theirs, &r1, 1, "p", NULL, 0);
	CHECK_STR(got, "theirs[-1] l1[-1] ");
	free(got);
	git_oidarray_dispose(&mb);
	repo_close();
}

/* The messages of a range, in its order, as "a b c ". */
static char *range_text(const git_oid *tips, size_t nt, const git_oid *hides, size_t nh, size_t max,
			int *truncated)
{
	struct graph_commits r;
	struct buf b = BUF_INIT;
	size_t i;

	if (graph_range(&r, repo, tips, nt, hides, nh, max) < 0)
		abort();
	for (i = 0; i < r.n; i++) {
		git_commit *c = NULL;

		if (git_commit_lookup(&c, repo, &r.v[i].id) < 0)
			abort();
		buf_printf(&b, "%s/%u ", git_commit_message(c), r.v[i].nparents);
		git_commit_free(c);
	}
	*truncated = r.truncated;
	graph_commits_release(&r);
	buf_putc(&b, '\0');
	return b.ptr;
}

/* base - m1 - m2 (mainline); t1 - t2 on m1; day = merge(m2, t2) */
TEST(range__lists_what_the_hides_lack_with_and_without_the_graph)
{
	git_oid base, m1, m2, t1, t2, day, tips[1], hides[2];
	const char *f1[] = { "f=1", NULL }, *f2[] = { "f=2", NULL }, *g1[] = { "g=1", NULL },
		   *g2[] = { "g=2", NULL };
	int pass, truncated;
	char *text;

	repo_open();
	base = commit("base", f1, NULL, NULL);
	m1 = commit("m1", f2, &base, NULL);
	t1 = commit("t1", g1, &m1, NULL);
	m2 = commit("m2", NULL, &m1, NULL);
	t2 = commit("t2", g2, &t1, NULL);
	day = commit("day", g2, &m2, &t2);
	ref("refs/heads/main", &m2);
	ref("refs/heads/tree", &t2);
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1)
			CHECK_INT(refresh(NULL), GRAPH_WRITTEN);
		tips[0] = day;
		hides[0] = m2;
		text = range_text(tips, 1, hides, 1, 0, &truncated);
		CHECK_STR(text, "day/2 t2/1 t1/1 ");
		CHECK(!truncated);
		free(text);
		hides[1] = t1;
		text = range_text(tips, 1, hides, 2, 0, &truncated);
		CHECK_STR(text, "day/2 t2/1 ");
		free(text);
		text = range_text(tips, 1, hides, 1, 2, &truncated);
		CHECK_STR(text, "day/2 t2/1 ");
		CHECK(truncated);
		free(text);
		tips[0] = m2;
		text = range_text(tips, 1, &base, 1, 0, &truncated);
		CHECK_STR(text, "m2/1 m1/1 ");
		free(text);
	}
	repo_close();
}

TEST(reach__is_the_history_of_a_commit_inside_and_outside_the_graph)
{
	git_oid base, m1, t1, day, other;
	const char *f1[] = { "f=1", NULL }, *g1[] = { "g=1", NULL };
	struct graph_reach *r = NULL;
	int pass;

	repo_open();
	base = commit("base", f1, NULL, NULL);
	m1 = commit("m1", NULL, &base, NULL);
	t1 = commit("t1", g1, &base, NULL);
	other = commit("other", g1, &base, NULL);
	ref("refs/heads/main", &m1);
	ref("refs/heads/tree", &t1);
	ref("refs/heads/other", &other);
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1)
			CHECK_INT(refresh(NULL), GRAPH_WRITTEN);
		/* today's merge is outside the file in the second pass */
		day = commit(pass ? "day2" : "day", g1, &m1, &t1);
		REQUIRE(graph_reach_new(&r, repo, &day) == 0);
		CHECK(graph_reach_has(r, &day));
		CHECK(graph_reach_has(r, &m1));
		CHECK(graph_reach_has(r, &t1));
		CHECK(graph_reach_has(r, &base));
		CHECK(!graph_reach_has(r, &other));
		graph_reach_free(r);
		REQUIRE(graph_reach_new(&r, repo, &m1) == 0);
		CHECK(!graph_reach_has(r, &t1));
		CHECK(graph_reach_has(r, &base));
		graph_reach_free(r);
	}
	repo_close();
}

TESTS(graph__written_once_and_verified_by_git, graph__merge_bases_as_libgit2_finds_them, graph__moved_refs_write_it_again,
      graph__truncated_file_is_rebuilt,
      graph__link_or_fifo_is_rebuilt_unread, graph__foreign_file_is_rebuilt,
      walk__skips_merges_that_did_not_touch_the_paths, walk__reads_parents_from_the_graph,
      walk__two_merge_bases_hide_the_shared_commits,
      range__lists_what_the_hides_lack_with_and_without_the_graph,
      reach__is_the_history_of_a_commit_inside_and_outside_the_graph)
