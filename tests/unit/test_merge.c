/* Unit tests of the merge engine (src/merge.c) on throw-away repositories. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "t.h"
#include "merge.h"
#include "merge_int.h"
#include "util.h"

static git_repository *repo;
static char *repo_dir;

static void repo_open(void)
{
	char tmpl[] = "/tmp/tide-test-merge.XXXXXX";

	git_libgit2_init();
	if (!mkdtemp(tmpl))
		abort();
	repo_dir = xstrdup(tmpl);
	if (git_repository_init(&repo, repo_dir, 1) < 0)
		abort();
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
 * A tree from specs "path=content" ("path@=target" for a symlink,
 * "path*=content" for an executable), NULL-terminated.  Contents get a
 * trailing newline; "\n" in a spec separates lines.
 */
static git_tree *mktree(const char *const *specs)
{
	git_index *idx = NULL;
	git_tree *tree = NULL;
	git_oid oid;

	if (git_index_new(&idx) < 0)
		abort();
	for (; *specs; specs++) {
		const char *eq = strchr(*specs, '=');
		git_index_entry e;
		char *path = xstrndup(*specs, (size_t)(eq - *specs));
		size_t plen = strlen(path);
		struct buf data = BUF_INIT;

		memset(&e, 0, sizeof(e));
		e.mode = GIT_FILEMODE_BLOB;
		if (plen && path[plen - 1] == '@') {
			e.mode = GIT_FILEMODE_LINK;
			path[plen - 1] = '\0';
			buf_puts(&data, eq + 1);
		} else {
			if (plen && path[plen - 1] == '*') {
				e.mode = GIT_FILEMODE_BLOB_EXECUTABLE;
				path[plen - 1] = '\0';
			}
			buf_puts(&data, eq + 1);
			buf_putc(&data, '\n');
		}
		if (git_blob_create_from_buffer(&e.id, repo, data.ptr, data.len) < 0)
			abort();
		e.path = path;
		if (git_index_add(idx, &e) < 0)
			abort();
		free(path);
		buf_release(&data);
	}
	if (git_index_write_tree_to(&oid, idx, repo) < 0 ||
	    git_tree_lookup(&tree, repo, &oid) < 0)
		abort();
	git_index_free(idx);
	return tree;
}

static char *blob_at(const git_oid *tree_oid, const char *path)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	char *s = NULL;

	if (git_tree_lookup(&tree, repo, tree_oid) == 0 &&
	    git_tree_entry_bypath(&e, tree, path) == 0 &&
	    git_blob_lookup(&blob, repo, git_tree_entry_id(e)) == 0)
		s = xstrndup(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	return s;
}

static unsigned mode_at(const git_oid *tree_oid, const char *path)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	unsigned mode = 0;

	if (git_tree_lookup(&tree, repo, tree_oid) == 0 &&
	    git_tree_entry_bypath(&e, tree, path) == 0)
		mode = git_tree_entry_filemode_raw(e);
	git_tree_entry_free(e);
	git_tree_free(tree);
	return mode;
}

/* Merge three spec lists with labels L and R. */
static int merge3(struct merge_result *res, const char *const *b,
		  const char *const *o, const char *const *t, int renames)
{
	struct merge_opts opts = { "L", "R", renames, NULL, 0, 0, 0, NULL, 0 };
	git_tree *tb = b ? mktree(b) : NULL, *to = mktree(o), *tt = mktree(t);
	int error = merge_trees(res, repo, tb, to, tt, &opts);

	git_tree_free(tb);
	git_tree_free(to);
	git_tree_free(tt);
	return error;
}

static int same_tree(const git_oid *got, const char *const *want)
{
	git_tree *w = mktree(want);
	int same = git_oid_equal(got, git_tree_id(w));

	git_tree_free(w);
	return same;
}

TEST(merge__clean_disjoint_changes)
{
	const char *b[] = { "a/x=1", "b/y=1", "c=1", NULL };
	const char *o[] = { "a/x=2", "b/y=1", "c=1", NULL };
	const char *t[] = { "a/x=1", "b/y=2", "c=1", "d/new=n", NULL };
	const char *want[] = { "a/x=2", "b/y=2", "c=1", "d/new=n", NULL };
	struct merge_result res;

	repo_open();
	CHECK_INT(merge3(&res, b, o, t, 1), 0);
	CHECK_INT(res.nconflicts, 0);
	CHECK(same_tree(&res.tree, want));
	CHECK_INT(res.blobs_merged, 0);
	merge_result_clear(&res);
	repo_close();
}

TEST(merge__same_file_far_apart_merges_contents)
{
	const char *b[] = { "f=1\n2\n3\n4\n5\n6\n7\n8", NULL };
	const char *o[] = { "f=1\nO\n3\n4\n5\n6\n7\n8", NULL };
	const char *t[] = { "f=1\n2\n3\n4\n5\n6\nT\n8", NULL };
	struct merge_result res;
	char *f;

	repo_open();
	CHECK_INT(merge3(&res, b, o, t, 1), 0);
	CHECK_INT(res.nconflicts, 0);
	CHECK_INT(res.blobs_merged, 1);
	f = blob_at(&res.tree, "f");
	CHECK_STR(f, "1\nO\n3\n4\n5\n6\nT\n8\n");
	free(f);
	merge_result_clear(&res);
	repo_close();
}

TEST(merge__content_conflict_has_markers_and_stages)
{
	const char *b[] = { "d/f=1\n2\n3", NULL };
	const char *o[] = { "d/f=1\nO\n3", NULL };
	const char *t[] = { "d/f=1\nT\n3", NULL };
	struct merge_result res;
	char *f;

	repo_open();
	CHECK_INT(merge3(&res, b, o, t, 1), 0);
	REQUIRE(res.nconflicts == 1);
	CHECK_STR(res.conflicts[0].path, "d/f");
	CHECK_INT(res.conflicts[0].kind, MERGE_CONFLICT_CONTENT);
	CHECK_INT(res.conflicts[0].nhunks, 1);
	CHECK(!git_oid_is_zero(&res.conflicts[0].base));
	CHECK(!git_oid_is_zero(&res.conflicts[0].ours));
	CHECK(!git_oid_is_zero(&res.conflicts[0].theirs));
	CHECK_INT(res.conflicts[0].ours_mode, 0100644);
	f = blob_at(&res.tree, "d/f");
	CHECK_STR(f, "1\n<<<<<<< L\nO\n=======\nT\n>>>>>>> R\n3\n");
	free(f);
	merge_result_clear(&res);
	repo_close();
}

TEST(merge__add_add_different_conflicts_same_is_clean)
{
	const char *b[] = { "k=1", NULL };
	const char *o[] = { "k=1", "n=ours", "s=same", NULL };
	const char *t[] = { "k=1", "n=theirs", "s=same", NULL };
	struct merge_result res;

	repo_open();
	CHECK_INT(merge3(&res, b, o, t, 1), 0);
	REQUIRE(res.nconflicts == 1);
	CHECK_STR(res.conflicts[0].path, "n");
	CHECK_INT(res.conflicts[0].kind, MERGE_CONFLICT_ADD_ADD);
	CHECK(git_oid_is_zero(&res.conflicts[0].base));
	CHECK_INT(res.conflicts[0].base_mode, 0);
	CHECK(mode_at(&res.tree, "s") == 0100644);
	merge_result_clear(&res);
	repo_close();
}

TEST(merge__modify_delete_keeps_modified_version)
{
	const char *b[] = { "k=1", "g=old", NULL };
	const char *o[] = { "k=1", NULL };
	const char *t[] = { "k=1", "g=new", NULL };
	struct merge_result res;
	char *g;

	repo_open();
	CHECK_INT(merge3(&res, b, o, t, 1), 0);
	REQUIRE(res.nconflicts == 1);
	CHECK_STR(res.conflicts[0].path, "g");
	CHECK_INT(res.conflicts[0].kind, MERGE_CONFLICT_MODIFY_DELETE);
	CHECK(git_oid_is_zero(&res.conflicts[0].ours));
	CHECK_INT(res.conflicts[0].ours_mode, 0);
	g = blob_at(&res.tree, "g");
	CHECK_STR(g, "new\n");
	free(g);
	merge_result_clear(&res);
	repo_close();
}

TEST(merge__delete_delete_is_clean)
{
	const char *b[] = { "k=1", "g=old", NULL };
	const char *o[] = { "k=1", NULL };
	const char *t[] = { "k=1", NULL };
	const char *want[] = { "k=1", NULL };
	struct merge_result res;

	repo_open();
	CHECK_INT(merge3(&res, b, o, t, 1), 0);
	CHECK_INT(res.nconflicts, 0);
	CHECK(same_tree(&res.tree, want));
	merge_result_clear(&res);
	repo_close();
}

TEST(merge__file_directory_moves_the_file_aside)
{
	const char *b[] = { "k=1", NULL };
	const char *o[] = { "k=1", "x=file", NULL };
	const char *t[] = { "k=1", "x/y=dir", NULL };
	struct merge_result res;
	char *s;

	repo_open();
	CHECK_INT(merge3(&res, b, o, t, 1), 0);
	REQUIRE(res.nconflicts == 1);
	CHECK_STR(res.conflicts[0].path, "x~L");
	CHECK_INT(res.conflicts[0].kind, MERGE_CONFLICT_FILE_DIRECTORY);
	s = blob_at(&res.tree, "x/y");
	CHECK_STR(s, "dir\n");
	free(s);
	s = blob_at(&res.tree, "x~L");
	CHECK_STR(s, "file\n");
	free(s);
	merge_result_clear(&res);
	repo_close();
}

TEST(merge__exec_bit_on_one_side_content_on_other)
{
	const char *b[] = { "f=1\n2\n3", NULL };
	const char *o[] = { "f*=1\n2\n3", NULL };
	const char *t[] = { "f=1\n2\nT", NULL };
	const char *want[] = { "f*=1\n2\nT", NULL };
	struct merge_result res;

	repo_open();
	CHECK_INT(merge3(&res, b, o, t, 1), 0);
	CHECK_INT(res.nconflicts, 0);
	CHECK(same_tree(&res.tree, want));
	merge_result_clear(&res);
	repo_close();
}

TEST(merge__file_vs_symlink_is_a_mode_conflict)
{
	const char *b[] = { "f=1", NULL };
	const char *o[] = { "f*=1", NULL };
	const char *t[] = { "f@=target", NULL };
	struct merge_result res;

	repo_open();
	CHECK_INT(merge3(&res, b, o, t, 1), 0);
	REQUIRE(res.nconflicts == 2);
	CHECK_STR(res.conflicts[0].path, "f");
	CHECK_STR(res.conflicts[1].path, "f~L");
	CHECK_INT(res.conflicts[0].kind, MERGE_CONFLICT_MODE);
	CHECK_INT(mode_at(&res.tree, "f"), 0120000);
	CHECK_INT(mode_at(&res.tree, "f~L"), 0100755);
	merge_result_clear(&res);
	repo_close();
}

TEST(merge__binary_conflict_keeps_ours)
{
	static const char base[] = "bin\0base", ours[] = "bin\0ours", theirs[] = "bin\0theirs";
	git_tree *trees[3];
	const char *data[3] = { base, ours, theirs };
	size_t len[3] = { sizeof(base), sizeof(ours), sizeof(theirs) };
	struct merge_opts opts = MERGE_OPTS_INIT;
	struct merge_result res;
	git_treebuilder *tb;
	git_oid blob[3], oid;
	int i;

	repo_open();
	for (i = 0; i < 3; i++) {
		git_blob_create_from_buffer(&blob[i], repo, data[i], len[i]);
		git_treebuilder_new(&tb, repo, NULL);
		git_treebuilder_insert(NULL, tb, "b.bin", &blob[i], GIT_FILEMODE_BLOB);
		git_treebuilder_write(&oid, tb);
		git_treebuilder_free(tb);
		git_tree_lookup(&trees[i], repo, &oid);
	}
	CHECK_INT(merge_trees(&res, repo, trees[0], trees[1], trees[2], &opts), 0);
	REQUIRE(res.nconflicts == 1);
	CHECK_INT(res.conflicts[0].kind, MERGE_CONFLICT_BINARY);
	CHECK(git_oid_equal(&res.conflicts[0].ours, &blob[1]));
	git_tree_free(trees[0]);
	git_tree_free(trees[1]);
	git_tree_free(trees[2]);
	REQUIRE(git_tree_lookup(&trees[0], repo, &res.tree) == 0);
	CHECK(git_oid_equal(git_tree_entry_id(git_tree_entry_byname(trees[0], "b.bin")),
			    &blob[1]));
	git_tree_free(trees[0]);
	merge_result_clear(&res);
	repo_close();
}

/* Over big_file_threshold or content_budget: not merged by lines. */
TEST(merge__text_over_the_limits_is_a_binary_conflict_keeping_ours)
{
	const char *b[] = { "f=1\n2\n3\n4\n5\n6\n7\n8", NULL };
	const char *o[] = { "f=1\nO\n3\n4\n5\n6\n7\n8", NULL };
	const char *t[] = { "f=1\n2\n3\n4\n5\n6\nT\n8", NULL };
	struct merge_opts opts = MERGE_OPTS_INIT;
	git_tree *tb, *to, *tt;
	struct merge_result res;
	char *f;
	int i;

	repo_open();
	tb = mktree(b), to = mktree(o), tt = mktree(t);
	for (i = 0; i < 3; i++) {
		opts.big_file_threshold = i == 0 ? 8 : 0;
		opts.content_budget = i == 1 ? 1000 : 0;
		CHECK_INT(merge_trees(&res, repo, tb, to, tt, &opts), 0);
		if (i == 2) {
			/* within both: merged by lines */
			CHECK_INT(res.nconflicts, 0);
			merge_result_clear(&res);
			continue;
		}
		REQUIRE(res.nconflicts == 1);
		CHECK_INT(res.conflicts[0].kind, MERGE_CONFLICT_BINARY);
		f = blob_at(&res.tree, "f");
		CHECK_STR(f, "1\nO\n3\n4\n5\n6\n7\n8\n");
		free(f);
		merge_result_clear(&res);
	}
	git_tree_free(tb);
	git_tree_free(to);
	git_tree_free(tt);
	repo_close();
}

#define LONG_TEXT "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12"

TEST(merge__rename_on_one_side_modify_on_the_other)
{
	const char *b[] = { "a/f=" LONG_TEXT, "a/k=1", "b/k=1", NULL };
	const char *o[] = { "a/k=1", "b/k=1", "b/g=" LONG_TEXT "\nl13", NULL };
	const char *t[] = { "a/f=l1\nT2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12",
			    "a/k=1", "b/k=1", NULL };
	const char *want[] = { "a/k=1", "b/k=1",
			       "b/g=l1\nT2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12\nl13",
			       NULL };
	struct merge_result res;

	repo_open();
	CHECK_INT(merge3(&res, b, o, t, 1), 0);
	CHECK_INT(res.nconflicts, 0);
	CHECK(same_tree(&res.tree, want));
	merge_result_clear(&res);
	/* without rename detection it is a modify/delete conflict */
	CHECK_INT(merge3(&res, b, o, t, 0), 0);
	REQUIRE(res.nconflicts == 1);
	CHECK_INT(res.conflicts[0].kind, MERGE_CONFLICT_MODIFY_DELETE);
	merge_result_clear(&res);
	repo_close();
}

/* git's similarity estimate of two contents, in 60000ths. */
static int similarity(const char *a, size_t alen, const char *b, size_t blen)
{
	git_oid oa, ob;
	int score = -1;

	if (git_blob_create_from_buffer(&oa, repo, a, alen) < 0 ||
	    git_blob_create_from_buffer(&ob, repo, b, blen) < 0 ||
	    rename_similarity(repo, &oa, &ob, &score) < 0)
		return -1;
	return score;
}

#define SIM(a, b) similarity(a, sizeof(a) - 1, b, sizeof(b) - 1)

TEST(merge__similarity_is_gits_estimate)
{
	char longa[102], longb[102];

	repo_open();
	/* the bytes of the source's lines found in the other, over the larger size */
	CHECK_INT(SIM("a\nb\nc\nd\n", "a\nb\nx\ny\n"), 30000);
	CHECK_INT(SIM("a\na\na\n", "a\n"), 20000);
	/* a CR before a LF does not count in text, but the size does */
	CHECK_INT(SIM("a\r\nb\r\n", "a\nb\n"), 40000);
	/* in a binary file (a NUL) it does */
	CHECK_INT(SIM("\0a\r\nb\r\n", "\0a\nb\n"), 0);
	/* lines are cut every 64 bytes */
	memset(longa, 'x', 100);
	longa[100] = '\n';
	longa[101] = '\0';
	memcpy(longb, longa, sizeof(longb));
	longb[99] = 'y';
	CHECK_INT(similarity(longa, 101, longb, 101), 64 * 60000 / 101);
	/* bytes after the last newline are not counted */
	CHECK_INT(SIM("abc", "abc"), 0);
	CHECK_INT(SIM("line\nabc", "line\nxyz"), 5 * 60000 / 8);
	repo_close();
}

/* Two destinations as similar as each other: the one with the source's
 * file name wins, as in git (a unique name is compared first). */
TEST(merge__rename_prefers_the_same_file_name)
{
	const char *b[] = { "src/orig.c=" LONG_TEXT, "k=1", NULL };
	const char *o[] = { "a/x.c=" LONG_TEXT "\nl13", "b/orig.c=" LONG_TEXT "\nl13", "k=1",
			    NULL };
	const char *t[] = { "src/orig.c=l1\nT2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12",
			    "k=1", NULL };
	const char *want[] = { "a/x.c=" LONG_TEXT "\nl13",
			       "b/orig.c=l1\nT2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12\nl13",
			       "k=1", NULL };
	struct merge_result res;

	repo_open();
	CHECK_INT(merge3(&res, b, o, t, 1), 0);
	CHECK_INT(res.nconflicts, 0);
	CHECK(same_tree(&res.tree, want));
	CHECK_INT(res.nwarnings, 0);
	merge_result_clear(&res);
	repo_close();
}

TEST(merge__everything_deleted_gives_the_empty_tree)
{
	const char *b[] = { "a/x=1", NULL };
	const char *o[] = { "a/x=1", NULL };
	const char *t[] = { "a/x=1", NULL };
	struct merge_opts opts = MERGE_OPTS_INIT;
	struct merge_result res;
	git_tree *tb, *te = NULL;
	git_treebuilder *bld;
	git_oid empty;

	repo_open();
	(void)o;
	(void)t;
	tb = mktree(b);
	git_treebuilder_new(&bld, repo, NULL);
	git_treebuilder_write(&empty, bld);
	git_treebuilder_free(bld);
	git_tree_lookup(&te, repo, &empty);
	CHECK_INT(merge_trees(&res, repo, tb, te, te, &opts), 0);
	CHECK(git_oid_equal(&res.tree, &empty));
	CHECK_INT(res.nconflicts, 0);
	merge_result_clear(&res);
	git_tree_free(tb);
	git_tree_free(te);
	repo_close();
}

static git_oid commit_of(const char *const *specs, const git_oid *p1, const git_oid *p2)
{
	git_signature *sig = NULL;
	git_commit *parents[2] = { NULL, NULL };
	git_tree *tree = mktree(specs);
	git_oid oid;
	size_t n = 0;

	git_signature_new(&sig, "T", "t@tide.invalid", 1700000000 + (p1 ? 100 : 0) + (p2 ? 100 : 0), 0);
	if (p1)
		git_commit_lookup(&parents[n++], repo, p1);
	if (p2)
		git_commit_lookup(&parents[n++], repo, p2);
	if (git_commit_create(&oid, repo, NULL, sig, sig, NULL, "c", tree, n,
			      (const git_commit **)parents) < 0)
		abort();
	git_commit_free(parents[0]);
	git_commit_free(parents[1]);
	git_tree_free(tree);
	git_signature_free(sig);
	return oid;
}

TEST(merge__criss_cross_merges_the_bases_first)
{
	const char *base[] = { "a=1", "b=1", "c=1", NULL };
	const char *o1[] = { "a=2", "b=1", "c=1", NULL };
	const char *t1[] = { "a=1", "b=2", "c=1", NULL };
	const char *x[] = { "a=2", "b=2", "c=1", NULL };
	const char *ours[] = { "a=2", "b=2", "c=ours", NULL };
	const char *theirs[] = { "a=2", "b=3", "c=1", NULL };
	const char *want[] = { "a=2", "b=3", "c=ours", NULL };
	git_oid ob, oo1, ot1, ox, oy, oo, ot;
	git_commit *co = NULL, *ct = NULL;
	git_oidarray bases = { NULL, 0 };
	struct merge_opts opts = MERGE_OPTS_INIT;
	struct merge_result res;

	repo_open();
	ob = commit_of(base, NULL, NULL);
	oo1 = commit_of(o1, &ob, NULL);
	ot1 = commit_of(t1, &ob, NULL);
	ox = commit_of(x, &oo1, &ot1);
	oy = commit_of(x, &ot1, &oo1);
	oo = commit_of(ours, &ox, NULL);
	ot = commit_of(theirs, &oy, NULL);
	REQUIRE(git_merge_bases(&bases, repo, &oo, &ot) == 0);
	CHECK_INT(bases.count, 2);
	git_oidarray_dispose(&bases);
	git_commit_lookup(&co, repo, &oo);
	git_commit_lookup(&ct, repo, &ot);
	CHECK_INT(merge_commits(&res, repo, co, ct, &opts), 0);
	CHECK_INT(res.nconflicts, 0);
	CHECK(same_tree(&res.tree, want));
	merge_result_clear(&res);
	git_commit_free(co);
	git_commit_free(ct);
	repo_close();
}

/* 40 top directories x 10 subdirectories x 5 files = 2000 files. */
static git_tree *wide_tree(const char *changed1, const char *changed2)
{
	const char **specs = xcalloc(2003, sizeof(*specs));
	size_t n = 0, i;
	int d, s, f;
	git_tree *tree;

	for (d = 0; d < 40; d++)
		for (s = 0; s < 10; s++)
			for (f = 0; f < 5; f++) {
				char *p = xasprintf("d%02d/s%d/f%d", d, s, f);

				if ((changed1 && !strcmp(p, changed1)) ||
				    (changed2 && !strcmp(p, changed2)))
					specs[n++] = xasprintf("%s=changed %s", p, p);
				else
					specs[n++] = xasprintf("%s=%s", p, p);
				free(p);
			}
	tree = mktree(specs);
	for (i = 0; i < n; i++)
		free((char *)specs[i]);
	free(specs);
	return tree;
}

TEST(merge__wide_tree_reads_only_the_changed_paths)
{
	git_tree *b, *o, *t;
	struct merge_opts opts = MERGE_OPTS_INIT;
	struct merge_result res;

	repo_open();
	b = wide_tree(NULL, NULL);
	o = wide_tree("d05/s1/f3", "d30/s2/f0");
	t = wide_tree("d05/s1/f4", "d12/s9/f1");
	CHECK_INT(merge_trees(&res, repo, b, o, t, &opts), 0);
	CHECK_INT(res.nconflicts, 0);
	/* root, d05 and d05/s1 of each side: nothing else is read */
	CHECK_INT(res.trees_read, 9);
	CHECK_INT(res.trees_written, 3);
	CHECK_INT(res.blobs_merged, 0);
	/* what differs from ours: one file, one directory taken whole */
	REQUIRE(res.nchanged == 2);
	CHECK_STR(res.changed[0], "d05/s1/f4");
	CHECK_STR(res.changed[1], "d12");
	merge_result_clear(&res);
	git_tree_free(b);
	git_tree_free(o);
	git_tree_free(t);
	repo_close();
}

TEST(merge__objects_in_memory_until_flushed)
{
	const char *b[] = { "a/x=1\n2\n3\n4\n5\n6", NULL };
	const char *o[] = { "a/x=O\n2\n3\n4\n5\n6", NULL };
	const char *t[] = { "a/x=1\n2\n3\n4\n5\nT", NULL };
	struct merge_objects *mo = NULL;
	struct merge_result res;
	git_repository *other = NULL;
	git_odb *odb = NULL;

	repo_open();
	REQUIRE(merge_objects_begin(&mo, repo) == 0);
	CHECK_INT(merge3(&res, b, o, t, 1), 0);
	CHECK_INT(res.blobs_merged, 1);
	/* another handle on the repository does not see them yet */
	REQUIRE(git_repository_open(&other, repo_dir) == 0);
	git_repository_odb(&odb, other);
	CHECK(!git_odb_exists(odb, &res.tree));
	git_odb_free(odb);
	git_repository_free(other);
	CHECK_INT(merge_objects_flush(mo), 0);
	REQUIRE(git_repository_open(&other, repo_dir) == 0);
	git_repository_odb(&odb, other);
	CHECK(git_odb_exists(odb, &res.tree));
	git_odb_free(odb);
	git_repository_free(other);
	merge_objects_free(mo);
	merge_result_clear(&res);
	repo_close();
}

TEST(merge__kind_names)
{
	CHECK_STR(merge_conflict_kind_name(MERGE_CONFLICT_CONTENT), "content");
	CHECK_STR(merge_conflict_kind_name(MERGE_CONFLICT_MODIFY_DELETE), "modify/delete");
	CHECK_STR(merge_conflict_kind_name((enum merge_conflict_kind)99), "unknown");
	merge_result_clear(NULL);
}

TESTS(merge__clean_disjoint_changes, merge__same_file_far_apart_merges_contents,
      merge__content_conflict_has_markers_and_stages,
      merge__add_add_different_conflicts_same_is_clean,
      merge__modify_delete_keeps_modified_version, merge__delete_delete_is_clean,
      merge__file_directory_moves_the_file_aside,
      merge__exec_bit_on_one_side_content_on_other,
      merge__file_vs_symlink_is_a_mode_conflict, merge__binary_conflict_keeps_ours,
      merge__text_over_the_limits_is_a_binary_conflict_keeping_ours,
      merge__rename_on_one_side_modify_on_the_other, merge__similarity_is_gits_estimate,
      merge__rename_prefers_the_same_file_name,
      merge__everything_deleted_gives_the_empty_tree,
      merge__criss_cross_merges_the_bases_first,
      merge__wide_tree_reads_only_the_changed_paths,
      merge__objects_in_memory_until_flushed, merge__kind_names)
