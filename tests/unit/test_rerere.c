/* Unit tests of src/rerere.c, checked against the real `git rerere`. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <git2.h>

#include "error.h"
#include "merge.h"
#include "rerere.h"
#include "util.h"
#include "t.h"
#include "t_files.h"

/* A scratch directory; libgit2 is initialised on first use. */
static char *tmpdir(void)
{
	static int inited;

	if (!inited++)
		git_libgit2_init();
	return t_tmpdir("rerere");
}

/*
 * A repository whose branches "a" and "b" both change line 3 of f.txt;
 * merging b into a conflicts.  rerere is enabled.
 */
static int make_conflict_repo(const char *dir)
{
	return t_sh_in(dir, T_GITENV
		  "git init -q -b main r && cd r && git config rerere.enabled true && "
		  "printf '1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n' >f.txt && git add f.txt && "
		  "git commit -qm base && git checkout -qb a && "
		  "sed -i s/^3/three-a/ f.txt && git commit -qam a && "
		  "git checkout -q main && git checkout -qb b && "
		  "sed -i s/^3/three-b/ f.txt && git commit -qam b && "
		  "git checkout -q a");
}

TEST(rerere__sha1_known_vectors)
{
	char hex[41];

	rerere_sha1_hex(hex, "abc", 3);
	CHECK_STR(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
	rerere_sha1_hex(hex, "", 0);
	CHECK_STR(hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
	rerere_sha1_hex(hex, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56);
	CHECK_STR(hex, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
}

TEST(rerere__normalize_sorts_sides_and_drops_labels_and_base)
{
	const char *text = "x\n<<<<<<< HEAD\nzed\n||||||| base\nold\n=======\nalpha\n>>>>>>> b\ny\n";
	struct buf pre = BUF_INIT;
	char id[41], want[41];
	static const char hashed[] = "alpha\n\0zed\n";

	CHECK_INT(rerere_normalize(&pre, id, text, strlen(text), 7), 1);
	CHECK_STR(pre.ptr, "x\n<<<<<<<\nalpha\n=======\nzed\n>>>>>>>\ny\n");
	rerere_sha1_hex(want, hashed, sizeof(hashed));
	CHECK_STR(id, want);
	buf_release(&pre);
}

TEST(rerere__nested_conflict_becomes_text_of_its_side)
{
	const char *text = "<<<<<<< o\nb\n<<<<<<< i\nz\n=======\ny\n>>>>>>> i\n=======\na\n>>>>>>> t\n";
	struct buf pre = BUF_INIT;
	char id[41];

	CHECK_INT(rerere_normalize(&pre, id, text, strlen(text), 7), 1);
	CHECK_STR(pre.ptr, "<<<<<<<\na\n=======\nb\n<<<<<<<\ny\n=======\nz\n>>>>>>>\n>>>>>>>\n");
	buf_release(&pre);
}

TEST(rerere__unbalanced_markers_are_bad_input)
{
	const char *text = "<<<<<<< o\na\n=======\nb\n";
	char id[41];

	CHECK_INT(rerere_normalize(NULL, id, text, strlen(text), 7), TIDE_EINVAL);
	CHECK_INT(rerere_normalize(NULL, id, "plain\n", 6, 7), 0);
	CHECK(rerere_has_markers(text, strlen(text), 7));
	CHECK(!rerere_has_markers("a\n======== x\n", 13, 7));
	CHECK(!rerere_has_markers("Title\n=======\n", 14, 7));
	CHECK(rerere_has_markers("x\n>>>>>>> theirs\n", 17, 7));
}

/* Found by tests/fuzz/fuzz_rerere: each nested hunk was a stack frame. */
TEST(rerere__deeply_nested_markers_are_bad_input_not_a_crash)
{
	struct buf text = BUF_INIT, pre = BUF_INIT;
	char id[41];
	int i;

	for (i = 0; i < 200000; i++)
		buf_puts(&text, "<<<<<<< a\n");
	CHECK_INT(rerere_normalize(&pre, id, text.ptr, text.len, 7), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "nested") != NULL);
	CHECK_INT(pre.len, 0);
	/* 64 levels, each closed, are still one hunk. */
	buf_clear(&text);
	for (i = 0; i < 64; i++)
		buf_puts(&text, "<<<<<<< a\nx\n");
	for (i = 0; i < 64; i++)
		buf_puts(&text, "=======\ny\n>>>>>>> b\n");
	CHECK_INT(rerere_normalize(NULL, id, text.ptr, text.len, 7), 1);
	buf_clear(&pre);
	buf_printf(&pre, "<<<<<<< a\n%s=======\n>>>>>>> b\n", text.ptr);
	CHECK_INT(rerere_normalize(NULL, id, pre.ptr, pre.len, 7), TIDE_EINVAL);
	buf_release(&text);
	buf_release(&pre);
}

/* git records a resolution; tide computes the same id and replays it. */
TEST(rerere__replays_resolution_recorded_by_git)
{
	char *dir = tmpdir(), *conflicted = NULL, *gitpre = NULL, *store = NULL;
	struct buf pre = BUF_INIT, out = BUF_INIT;
	char id[41], id2[41], *name = NULL;

	REQUIRE(make_conflict_repo(dir) == 0);
	CHECK(t_sh_in(dir, T_GITENV "cd r && git merge -q b") != 0);
	conflicted = t_slurp(dir, "r/f.txt");
	REQUIRE(conflicted);
	CHECK_INT(rerere_normalize(&pre, id, conflicted, strlen(conflicted), 7), 1);
	name = xasprintf("r/.git/rr-cache/%s/preimage", id);
	gitpre = t_slurp(dir, name);
	REQUIRE(gitpre);
	CHECK_STR(pre.ptr, gitpre);
	CHECK_INT(t_sh_in(dir, T_GITENV "cd r && printf '1\\n2\\nthree-both\\n4\\n5\\n6\\n7\\n8\\n9\\n' >f.txt && "
		     "git add f.txt && git commit -qm merged && "
		     "test -f .git/rr-cache/%s/postimage", id), 0);
	store = path_join(dir, "r/.git/rr-cache");
	CHECK_INT(rerere_apply(&out, id2, store, conflicted, strlen(conflicted), 7), 0);
	if (out.len == 0)
		fprintf(stderr, "%s\n", tide_error_last());
	CHECK_STR(id2, id);
	CHECK_STR(out.ptr, "1\n2\nthree-both\n4\n5\n6\n7\n8\n9\n");
	t_sh_in(dir, "rm -rf '%s'", dir);
	free(name), free(store), free(conflicted), free(gitpre), free(dir);
	buf_release(&pre);
	buf_release(&out);
}

/* tide records a resolution; git replays it in a fresh repository. */
TEST(rerere__resolution_recorded_by_tide_is_used_by_git)
{
	char *dir = tmpdir(), *conflicted = NULL, *store = NULL, *merged = NULL;
	const char *fix = "1\n2\nthree-tide\n4\n5\n6\n7\n8\n9\n";
	char id[41];
	int variant = -1;

	REQUIRE(make_conflict_repo(dir) == 0);
	CHECK(t_sh_in(dir, T_GITENV "cd r && git config rerere.enabled false && git merge -q b") != 0);
	conflicted = t_slurp(dir, "r/f.txt");
	REQUIRE(conflicted);
	store = path_join(dir, "store");
	CHECK_INT(rerere_record(store, conflicted, strlen(conflicted), fix, strlen(fix), 7,
				id, &variant), 0);
	CHECK_INT(variant, 0);
	CHECK_INT(t_sh_in(dir, T_GITENV "cd r && git merge --abort && git config rerere.enabled true && "
		     "mkdir -p .git/rr-cache && cp -r ../store/* .git/rr-cache/ && "
		     "{ git merge -q b; true; } && ! grep -q '<<<<<<<' f.txt"), 0);
	merged = t_slurp(dir, "r/f.txt");
	CHECK_STR(merged, fix);
	t_sh_in(dir, "rm -rf '%s'", dir);
	free(merged), free(store), free(conflicted), free(dir);
}

TEST(rerere__applies_when_context_moved)
{
	char *dir = tmpdir(), *store = path_join(dir, "s");
	const char *c1 = "a\n<<<<<<< x\nl\n=======\nr\n>>>>>>> y\nb\nc\nd\ne\n";
	const char *r1 = "a\nlr\nb\nc\nd\ne\n";
	const char *c2 = "a\n<<<<<<< p\nr\n=======\nl\n>>>>>>> q\nb\nc\nd\nE\n>>>>>>>>>> not a marker\n";
	struct buf out = BUF_INIT;
	char id[41], id2[41];

	CHECK_INT(rerere_record(store, c1, strlen(c1), r1, strlen(r1), 7, id, NULL), 0);
	CHECK_INT(rerere_apply(&out, id2, store, c2, strlen(c2), 7), 0);
	CHECK_STR(id2, id);
	CHECK_STR(out.ptr, "a\nlr\nb\nc\nd\nE\n>>>>>>>>>> not a marker\n");
	rm_rf(dir);
	free(store), free(dir);
	buf_release(&out);
}

TEST(rerere__missing_corrupt_and_stale_entries)
{
	char *dir = tmpdir(), *store = path_join(dir, "s"), *post = NULL, *pre = NULL;
	const char *c1 = "a\n<<<<<<< x\nl\n=======\nr\n>>>>>>> y\nb\n";
	const char *r1 = "a\nlr\nb\n";
	struct buf out = BUF_INIT;
	char id[41], id2[41];

	CHECK_INT(rerere_apply(&out, id2, store, c1, strlen(c1), 7), TIDE_ENOTFOUND);
	CHECK_INT(rerere_record(store, c1, strlen(c1), r1, strlen(r1), 7, id, NULL), 0);
	post = xasprintf("%s/%s/postimage", store, id);
	pre = xasprintf("%s/%s/preimage", store, id);
	/* A postimage with markers is corrupt. */
	CHECK_INT(file_write_atomic(post, c1, strlen(c1)), 0);
	CHECK_INT(rerere_apply(&out, id2, store, c1, strlen(c1), 7), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), id) != NULL);
	/* A preimage whose text no longer matches: the merge conflicts. */
	CHECK_INT(file_write_atomic(post, "a\nXX\nb\n", 7), 0);
	CHECK_INT(file_write_atomic(pre, "<<<<<<<\nq\n=======\nw\n>>>>>>>\na\nb\n", 30), 0);
	CHECK_INT(rerere_apply(&out, id2, store, c1, strlen(c1), 7), TIDE_ECONFLICT);
	/* Missing postimage. */
	unlink(post);
	CHECK_INT(rerere_apply(&out, id2, store, c1, strlen(c1), 7), TIDE_EINVAL);
	CHECK_INT((int)out.len, 0);
	rm_rf(dir);
	free(pre), free(post), free(store), free(dir);
	buf_release(&out);
}

TEST(rerere__second_resolution_is_a_variant)
{
	char *dir = tmpdir(), *store = path_join(dir, "s"), *p = NULL;
	const char *c1 = "<<<<<<< x\nl\n=======\nr\n>>>>>>> y\nb\n";
	const char *c2 = "top\n<<<<<<< x\nl\n=======\nr\n>>>>>>> y\nc\n";
	char id[41], id2[41];
	int v = -1;

	CHECK_INT(rerere_record(store, c1, strlen(c1), "lr\nb\n", 5, 7, id, &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(rerere_record(store, c2, strlen(c2), "top\nrl\nc\n", 9, 7, id2, &v), 0);
	CHECK_STR(id2, id);
	CHECK_INT(v, 1);
	p = xasprintf("%s/%s/postimage.1", store, id);
	CHECK(path_exists(p));
	CHECK_INT(rerere_record(store, c1, strlen(c1), "LR\nb\n", 5, 7, id, &v), 0);
	CHECK_INT(v, 0);
	rm_rf(dir);
	free(p), free(store), free(dir);
}

TEST(rerere__expire_removes_unused_entries)
{
	char *dir = tmpdir(), *store = path_join(dir, "s"), *post = NULL, *edir = NULL;
	const char *c1 = "<<<<<<< x\nl\n=======\nr\n>>>>>>> y\n";
	const char *c2 = "<<<<<<< x\nm\n=======\nn\n>>>>>>> y\n";
	struct timeval old[2] = { { time(NULL) - 40 * 86400, 0 }, { time(NULL) - 40 * 86400, 0 } };
	struct buf out = BUF_INIT;
	char id[41], id2[41];
	size_t removed = 99;

	CHECK_INT(rerere_record(store, c1, strlen(c1), "lr\n", 3, 7, id, NULL), 0);
	CHECK_INT(rerere_record(store, c2, strlen(c2), "mn\n", 3, 7, id2, NULL), 0);
	post = xasprintf("%s/%s/postimage", store, id);
	CHECK_INT(utimes(post, old), 0);
	CHECK_INT(rerere_expire(store, 30, time(NULL), &removed), 0);
	CHECK_INT((int)removed, 1);
	edir = xasprintf("%s/%s", store, id);
	CHECK(!path_exists(edir));
	/* Using an entry renews it. */
	free(post);
	post = xasprintf("%s/%s/postimage", store, id2);
	CHECK_INT(utimes(post, old), 0);
	CHECK_INT(rerere_apply(&out, id, store, c2, strlen(c2), 7), 0);
	CHECK_INT(rerere_expire(store, 30, time(NULL), &removed), 0);
	CHECK_INT((int)removed, 0);
	rm_rf(dir);
	free(edir), free(post), free(store), free(dir);
	buf_release(&out);
}

/* The store shared through a branch of a bare repository, both ways. */
TEST(rerere__store_is_shared_through_a_git_branch)
{
	char *dir = tmpdir(), *a = path_join(dir, "a"), *b = path_join(dir, "b");
	char *bare = path_join(dir, "shared.git"), *ca = path_join(dir, "a.git");
	char *cb = path_join(dir, "b.git"), *got = NULL, *want = NULL, *p = NULL;
	const char *c1 = "<<<<<<< x\nl\n=======\nr\n>>>>>>> y\n";
	char id[41];

	REQUIRE(t_sh_in(dir, "git init -q --bare shared.git") == 0);
	CHECK_INT(rerere_record(a, c1, strlen(c1), "lr\n", 3, 7, id, NULL), 0);
	CHECK_INT(rerere_share_push(a, ca, bare, "rerere-cache"), 0);
	CHECK_INT(t_sh_in(dir, "test \"$(git --git-dir=shared.git ls-tree -r --name-only rerere-cache)\" = "
		     "\"$(printf '%%s/postimage\\n%%s/preimage' %s %s)\"", id, id), 0);
	/* Nothing changed: no new commit. */
	CHECK_INT(rerere_share_push(a, ca, bare, "rerere-cache"), 0);
	CHECK_INT(t_sh_in(dir, "test $(git --git-dir=shared.git rev-list --count rerere-cache) = 1"), 0);
	CHECK_INT(rerere_share_fetch(b, cb, bare, "rerere-cache"), 0);
	p = xasprintf("%s/postimage", id);
	got = t_slurp(b, p);
	want = t_slurp(a, p);
	CHECK(got && want && !strcmp(got, want));
	/* b adds an entry and pushes; a fetches it. */
	free(got), free(p);
	CHECK_INT(rerere_record(b, "<<<<<<< x\nm\n=======\nn\n>>>>>>> y\n", 30, "mn\n", 3, 7, id, NULL), 0);
	CHECK_INT(rerere_share_push(b, cb, bare, "rerere-cache"), 0);
	CHECK_INT(rerere_share_fetch(a, ca, bare, "rerere-cache"), 0);
	p = xasprintf("%s/postimage", id);
	got = t_slurp(a, p);
	CHECK_STR(got, "mn\n");
	CHECK_INT(t_sh_in(dir, "test $(git --git-dir=shared.git rev-list --count rerere-cache) = 2"), 0);
	/* A URL that is no repository is an error, not a crash. */
	CHECK(rerere_share_fetch(a, ca, "/nonexistent/repo.git", "x") < 0);
	t_sh_in(dir, "rm -rf '%s'", dir);
	free(got), free(want), free(p), free(a), free(b), free(bare), free(ca), free(cb), free(dir);
}

TEST(rerere__sync_reads_rerere_conf)
{
	char *dir = tmpdir(), *conf = path_join(dir, "ws/rerere.conf"), *ws = path_join(dir, "ws");
	char *store = path_join(dir, "ws/rr-cache"), *text = NULL;
	const char *c1 = "<<<<<<< x\nl\n=======\nr\n>>>>>>> y\n";
	struct buf done = BUF_INIT;
	char id[41];

	REQUIRE(t_sh_in(dir, "git init -q --bare shared.git && mkdir ws") == 0);
	text = xasprintf("share=%s/shared.git#rr\nexpire-days=30\n", dir);
	REQUIRE(file_write_atomic(conf, text, strlen(text)) == 0);
	CHECK_INT(rerere_sync_before(ws, &done), 0);
	CHECK_INT(rerere_record(store, c1, strlen(c1), "lr\n", 3, 7, id, NULL), 0);
	CHECK_INT(rerere_sync_after(ws, &done), 0);
	CHECK(strstr(buf_cstr(&done), "pushed recorded resolutions to") != NULL);
	CHECK_INT(t_sh_in(dir, "git --git-dir=shared.git rev-parse -q --verify rr"), 0);
	REQUIRE(file_write_atomic(conf, "bogus\n", 6) == 0);
	CHECK_INT(rerere_sync_before(ws, NULL), TIDE_EINVAL);
	t_sh_in(dir, "rm -rf '%s'", dir);
	buf_release(&done);
	free(text), free(conf), free(ws), free(store), free(dir);
}

/* A person fixes a worktree; the recorded fix then resolves the merge in memory. */
TEST(rerere__worktree_record_then_resolve_merge)
{
	char *dir = tmpdir(), *gitdir = path_join(dir, "r"), *wt = path_join(dir, "wt");
	char *store = path_join(dir, "store"), *text = NULL;
	const char *fix = "1\n2\nthree-fixed\n4\n5\n6\n7\n8\n9\n";
	git_repository *repo = NULL;
	git_object *a = NULL, *b = NULL;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	struct merge_result res;
	struct rerere_outcome *o = NULL;
	struct buf ids = BUF_INIT;
	struct rerere_worktree w;
	git_oid resolved;
	size_t n = 0;

	memset(&res, 0, sizeof(res));
	REQUIRE(make_conflict_repo(dir) == 0);
	REQUIRE(git_repository_open(&repo, gitdir) == 0);
	REQUIRE(git_revparse_single(&a, repo, "a") == 0 && git_revparse_single(&b, repo, "b") == 0);
	CHECK_INT(rerere_worktree_prepare(&w, repo, wt, store, git_object_id(a), git_object_id(b),
					  "A", "B"), 0);
	CHECK_INT((int)w.nfiles, 1);
	CHECK_INT((int)w.nknown, 0);
	rerere_worktree_release(&w);
	text = t_slurp(wt, "f.txt");
	CHECK(text && strstr(text, "<<<<<<< A\n"));
	free(text);
	CHECK_INT(rerere_worktree_record(&ids, wt, store), TIDE_EINVAL);
	REQUIRE(file_write_atomic(text = path_join(wt, "f.txt"), fix, strlen(fix)) == 0);
	free(text);
	CHECK_INT(rerere_worktree_record(&ids, wt, store), 0);
	CHECK(str_ends_with(buf_cstr(&ids), " f.txt\n"));
	/* Without the store: not resolved, and "missing" says why. */
	REQUIRE(merge_commits(&res, repo, (git_commit *)a, (git_commit *)b, NULL) == 0);
	REQUIRE(res.nconflicts == 1);
	CHECK_INT(rerere_resolve_merge(&resolved, &o, &n, repo, &res.tree, res.conflicts, 1, wt), 0);
	CHECK(n == 1 && !o[0].resolved && o[0].missing);
	rerere_outcomes_free(o, n);
	CHECK_INT(rerere_resolve_merge(&resolved, &o, &n, repo, &res.tree, res.conflicts, 1, store), 1);
	CHECK(n == 1 && o[0].resolved && strstr(o[0].diff, "+three-fixed\n"));
	CHECK(ids.ptr && !strncmp(ids.ptr, o[0].id, 40));
	REQUIRE(git_tree_lookup(&tree, repo, &resolved) == 0);
	REQUIRE(git_tree_entry_bypath(&e, tree, "f.txt") == 0);
	REQUIRE(git_blob_lookup(&blob, repo, git_tree_entry_id(e)) == 0);
	CHECK((size_t)git_blob_rawsize(blob) == strlen(fix) &&
	      !memcmp(git_blob_rawcontent(blob), fix, strlen(fix)));
	rerere_outcomes_free(o, n);
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	merge_result_clear(&res);
	git_object_free(a);
	git_object_free(b);
	git_repository_free(repo);
	buf_release(&ids);
	t_sh_in(dir, "rm -rf '%s'", dir);
	free(store), free(wt), free(gitdir), free(dir);
}


/*
 * git.git's case: its test scripts have conflict-marker-size=32 and hold lines of
 * seven '<' as text.  b's side of the conflict is executable.
 */
static int make_sized_repo(const char *dir)
{
	return t_sh_in(dir, T_GITENV
		  "git init -q -b main r && cd r && git config rerere.enabled true && "
		  "echo 't/*.sh conflict-marker-size=32' >.gitattributes && mkdir t && "
		  "printf 'cat <<EOF\\n<<<<<<< HEAD\\nx\\n=======\\ny\\n>>>>>>> b\\nEOF\\n1\\n2\\n3\\n4\\n' >t/t1.sh && "
		  "chmod +x t/t1.sh && git add . && git commit -qm base && git checkout -qb a && "
		  "sed -i s/^3/three-a/ t/t1.sh && git commit -qam a && "
		  "git checkout -q main && git checkout -qb b && "
		  "sed -i s/^3/three-b/ t/t1.sh && git commit -qam b && "
		  "git checkout -q a");
}

/* tide writes git's 32-character markers, and its preimage and id are git rerere's. */
TEST(rerere__marker_size_from_gitattributes_as_git)
{
	char *dir = tmpdir(), *gitdir = path_join(dir, "r"), *gitfile = NULL, *gitpre = NULL;
	char *name = NULL, *mine = NULL;
	const char *text;
	git_repository *repo = NULL;
	git_object *a = NULL, *b = NULL;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	struct merge_opts mo = MERGE_OPTS_INIT;
	struct merge_result res;
	struct buf pre = BUF_INIT;
	char id[41];

	memset(&res, 0, sizeof(res));
	REQUIRE(make_sized_repo(dir) == 0);
	CHECK(t_sh_in(dir, T_GITENV "cd r && git merge -q b") != 0);
	gitfile = t_slurp(dir, "r/t/t1.sh");
	REQUIRE(gitfile && strstr(gitfile, "<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<< HEAD\n"));
	REQUIRE(git_repository_open(&repo, gitdir) == 0);
	REQUIRE(git_revparse_single(&a, repo, "a") == 0 && git_revparse_single(&b, repo, "b") == 0);
	mo.ours_label = "HEAD", mo.theirs_label = "b";
	REQUIRE(merge_commits(&res, repo, (git_commit *)a, (git_commit *)b, &mo) == 0);
	REQUIRE(res.nconflicts == 1);
	CHECK_INT(res.conflicts[0].marker_size, 32);
	REQUIRE(git_tree_lookup(&tree, repo, &res.tree) == 0);
	REQUIRE(git_tree_entry_bypath(&e, tree, "t/t1.sh") == 0);
	REQUIRE(git_blob_lookup(&blob, repo, git_tree_entry_id(e)) == 0);
	mine = xstrndup(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	CHECK_STR(mine, gitfile);
	/* Read with 32, the file has one conflict; the 7-character lines are text. */
	CHECK_INT(rerere_normalize(&pre, id, mine, strlen(mine), 32), 1);
	name = xasprintf("r/.git/rr-cache/%s/preimage", id);
	gitpre = t_slurp(dir, name);
	REQUIRE(gitpre);
	CHECK_STR(pre.ptr, gitpre);
	CHECK(!rerere_has_markers("cat <<EOF\n<<<<<<< HEAD\n>>>>>>> b\n", 32, 32));
	CHECK(rerere_has_markers(mine, strlen(mine), 32));
	text = strstr(mine, "<<<<<<<<<<<<");
	CHECK_INT(rerere_marker_size_of(text, strlen(text)), 32);
	CHECK_INT(rerere_marker_size_of("<<<<<<< x\n", 10), 7);
	free(mine), free(name), free(gitpre), free(gitfile);
	buf_release(&pre);
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	merge_result_clear(&res);
	git_object_free(a);
	git_object_free(b);
	git_repository_free(repo);
	t_sh_in(dir, "rm -rf '%s'", dir);
	free(gitdir), free(dir);
}

/*
 * The resolve worktree of that merge: the executable stays executable,
 * --record refuses git's 32-character markers and takes the 7-character
 * text, and a second prepare says the resolution is recorded.
 */
TEST(rerere__worktree_keeps_mode_and_checks_sized_markers)
{
	char *dir = tmpdir(), *gitdir = path_join(dir, "r"), *wt = path_join(dir, "wt");
	char *store = path_join(dir, "store"), *path = path_join(wt, "t/t1.sh"), *text = NULL;
	const char *fix = "cat <<EOF\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\nEOF\n1\n2\nthree-ab\n4\n";
	git_repository *repo = NULL;
	git_object *a = NULL, *b = NULL;
	struct rerere_worktree w;
	struct buf ids = BUF_INIT;
	struct stat st;

	REQUIRE(make_sized_repo(dir) == 0);
	REQUIRE(git_repository_open(&repo, gitdir) == 0);
	REQUIRE(git_revparse_single(&a, repo, "a") == 0 && git_revparse_single(&b, repo, "b") == 0);
	CHECK_INT(rerere_worktree_prepare(&w, repo, wt, store, git_object_id(a), git_object_id(b),
					  "A", "B"), 0);
	CHECK_INT((int)w.nfiles, 1);
	rerere_worktree_release(&w);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0111));
	text = t_slurp(wt, ".tide/files");
	CHECK_STR(text, "32\tt/t1.sh\n");
	free(text);
	/* Unchanged: git's markers are still there. */
	CHECK_INT(rerere_worktree_record(&ids, wt, store), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "still has conflict markers (32 characters"));
	REQUIRE(file_write_atomic(path, fix, strlen(fix)) == 0);
	CHECK_INT(rerere_worktree_record(&ids, wt, store), 0);
	CHECK(str_ends_with(buf_cstr(&ids), " t/t1.sh\n"));
	CHECK_INT(rerere_worktree_prepare(&w, repo, wt, store, git_object_id(a), git_object_id(b),
					  "A", "B"), 0);
	CHECK_INT((int)w.nknown, 1);
	CHECK(w.nknown == 1 && w.known[0].applies && w.known[0].replaces &&
	      !strcmp(w.known[0].path, "t/t1.sh") && strstr(w.known[0].text, "+three-ab\n"));
	rerere_worktree_release(&w);
	git_object_free(a);
	git_object_free(b);
	git_repository_free(repo);
	buf_release(&ids);
	t_sh_in(dir, "rm -rf '%s'", dir);
	free(path), free(store), free(wt), free(gitdir), free(dir);
}

/*
 * The store is untrusted input (shared caches fill it): a postimage that
 * is a link to a private file, a FIFO or /dev/zero is refused unread, and
 * the apply says why; a variant numbered a billion is not looked for.
 */
TEST(rerere__store_files_are_read_as_untrusted_input)
{
	char *dir = tmpdir(), *store = path_join(dir, "s"), *post = NULL, *secret = NULL;
	const char *c1 = "a\n<<<<<<< x\nl\n=======\nr\n>>>>>>> y\nb\n";
	struct buf out = BUF_INIT;
	char id[41], id2[41];
	double start;

	CHECK_INT(rerere_record(store, c1, strlen(c1), "a\nlr\nb\n", 7, 7, id, NULL), 0);
	post = xasprintf("%s/%s/postimage", store, id);
	secret = path_join(dir, "secret");
	REQUIRE(file_write_atomic(secret, "a\nSECRET\nb\n", 11) == 0);
	REQUIRE(unlink(post) == 0 && symlink(secret, post) == 0);
	CHECK_INT(rerere_apply(&out, id2, store, c1, strlen(c1), 7), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "a symbolic link"));
	CHECK(!strstr(buf_cstr(&out), "SECRET"));
	REQUIRE(unlink(post) == 0 && mkfifo(post, 0644) == 0);
	start = time_now();
	CHECK_INT(rerere_apply(&out, id2, store, c1, strlen(c1), 7), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "not a regular file"));
	CHECK(time_now() - start < 5);
	REQUIRE(unlink(post) == 0 && symlink("/dev/zero", post) == 0);
	CHECK_INT(rerere_apply(&out, id2, store, c1, strlen(c1), 7), TIDE_EINVAL);
	CHECK_INT((int)out.len, 0);
	/* Recording again replaces the planted file, and never writes through a link. */
	REQUIRE(unlink(post) == 0 && symlink(secret, post) == 0);
	CHECK_INT(rerere_record(store, c1, strlen(c1), "a\nLR\nb\n", 7, 7, id, NULL), 0);
	free(post);
	post = t_slurp(dir, "secret");
	CHECK_STR(post, "a\nSECRET\nb\n");
	CHECK_INT(rerere_apply(&out, id2, store, c1, strlen(c1), 7), 0);
	CHECK_STR(buf_cstr(&out), "a\nLR\nb\n");
	free(post);
	post = xasprintf("%s/%s/postimage.999999999", store, id);
	REQUIRE(file_write_atomic(post, "x\n", 2) == 0);
	buf_clear(&out);
	start = time_now();
	CHECK_INT(rerere_apply(&out, id2, store, c1, strlen(c1), 7), 0);
	CHECK(time_now() - start < 5);
	t_sh_in(dir, "rm -rf '%s'", dir);
	buf_release(&out);
	free(post), free(secret), free(store), free(dir);
}

TESTS(rerere__sha1_known_vectors,
      rerere__normalize_sorts_sides_and_drops_labels_and_base,
      rerere__nested_conflict_becomes_text_of_its_side,
      rerere__unbalanced_markers_are_bad_input,
      rerere__deeply_nested_markers_are_bad_input_not_a_crash,
      rerere__replays_resolution_recorded_by_git,
      rerere__resolution_recorded_by_tide_is_used_by_git,
      rerere__applies_when_context_moved,
      rerere__missing_corrupt_and_stale_entries,
      rerere__second_resolution_is_a_variant,
      rerere__expire_removes_unused_entries,
      rerere__store_is_shared_through_a_git_branch,
      rerere__sync_reads_rerere_conf,
      rerere__worktree_record_then_resolve_merge,
      rerere__marker_size_from_gitattributes_as_git,
      rerere__worktree_keeps_mode_and_checks_sized_markers,
      rerere__store_files_are_read_as_untrusted_input)
