#include <git2.h>

#include "t.h"
#include "t_files.h"
#include "error.h"
#include "fsck.h"
#include "util.h"

struct name_case {
	const char *name;
	size_t len;		/* 0: strlen(name) */
	unsigned int mode;
	int bad;
};

#define GOOD(n, m) { n, 0, m, 0 }
#define BAD(n, m) { n, 0, m, 1 }

static const struct name_case name_cases[] = {
	/* ordinary kernel names */
	GOOD("Makefile", 0100644), GOOD("drivers", 040000), GOOD("checkpatch.pl", 0100755),
	GOOD(".gitignore", 0100644), GOOD(".mailmap", 0100644), GOOD("dts", 0120000),
	GOOD("..a", 0100644), GOOD("a..", 0100644), GOOD("...", 0100644), GOOD(".gitx", 040000),
	GOOD("git", 040000), GOOD("git~2", 0100644), GOOD(".git~1", 0100644),
	GOOD(".gitmodules", 0100644), GOOD("gitmod~1", 0100644), GOOD("x.git", 040000),
	GOOD("\xe2\x80\x8c", 0100644), GOOD(".g\xe2\x80\x8bit", 040000),	/* U+200B is not ignored */
	GOOD("sub", 0160000), GOOD("old", 0100664), GOOD("caf\xc3\xa9", 0100644),
	GOOD(".gitmodules", 040000), GOOD("a\\b", 0100644),
	/* shape */
	BAD("", 0100644), BAD(".", 040000), BAD("..", 040000), BAD("..", 0100644),
	BAD("../../../x", 0100644), BAD("a/b", 0100644), BAD("/", 040000), BAD("x/", 040000),
	{ "a\0b", 3, 0100644, 1 }, { "\0", 1, 0100644, 1 },
	/* .git in any case */
	BAD(".git", 040000), BAD(".git", 0100644), BAD(".GIT", 040000), BAD(".Git", 0120000),
	BAD(".gIt", 0160000),
	/* NTFS */
	BAD(".git.", 040000), BAD(".git ", 040000), BAD(".git. .", 040000), BAD(".GIT...", 040000),
	BAD("git~1", 040000), BAD("GIT~1", 040000), BAD("git~1.", 040000),
	BAD(".git::$INDEX_ALLOCATION", 040000), BAD(".git:stream", 0100644),
	BAD("GIT~1::$INDEX_ALLOCATION", 040000), BAD("x\\.git", 040000), BAD(".git\\x", 040000),
	/* HFS+ ignorable code points */
	BAD(".g\xe2\x80\x8cit", 040000),	/* U+200C */
	BAD(".\xe2\x80\x8dgit", 040000),	/* U+200D */
	BAD(".gi\xe2\x80\x8et", 040000),	/* U+200E */
	BAD(".git\xe2\x80\x8f", 040000),	/* U+200F */
	BAD("\xe2\x80\xaa.git", 040000),	/* U+202A */
	BAD(".g\xe2\x80\xaeIT", 040000),	/* U+202E */
	BAD(".g\xe2\x81\xaait", 040000),	/* U+206A */
	BAD(".G\xe2\x81\xafit", 040000),	/* U+206F */
	BAD(".g\xef\xbb\xbfit", 040000),	/* U+FEFF */
	BAD(".g\xe2\x80\x8c\xe2\x80\x8dit", 040000),
	/* .gitmodules as a symbolic link */
	BAD(".gitmodules", 0120000), BAD(".GITMODULES", 0120000), BAD(".gitmodules.", 0120000),
	BAD(".gitmodules ", 0120000), BAD(".gitmodules:x", 0120000), BAD("gitmod~1", 0120000),
	BAD("GITMOD~4", 0120000), BAD("gi7eba~1", 0120000), BAD("GI7EBA~9", 0120000),
	BAD("gi7eb~12", 0120000), BAD(".gitmod\xe2\x80\x8cules", 0120000),
	BAD(".g\xef\xbb\xbfitmodules", 0120000), BAD("x\\.gitmodules", 0120000),
	GOOD("gitmod~5", 0120000), GOOD(".gitmodulesx", 0120000), GOOD("gi7eba~0", 0120000),
	/* modes */
	BAD("a", 0100600), BAD("a", 0100666), BAD("a", 0100777), BAD("a", 0), BAD("a", 0644),
	BAD("a", 040755), BAD("a", 0120777), BAD("a", 0160644), BAD("a", 0170000),
	BAD("a", 0xffffffffu), BAD("a", 0100000),
	/* not UTF-8: not an HFS+ spelling of anything, and not refused for it */
	GOOD(".g\xe2\x80it", 040000), GOOD(".git\xff", 0100644), GOOD("\xc3", 0100644),
};

TEST(fsck__entry_name_table)
{
	const char *why;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(name_cases); i++) {
		const struct name_case *c = &name_cases[i];
		size_t len = c->len ? c->len : strlen(c->name);
		int rc = fsck_entry_name(c->name, len, c->mode, &why);

		if ((rc < 0) != c->bad)
			fprintf(stderr, "  case %zu '%s' mode %o: expected %s\n", i, c->name,
				c->mode, c->bad ? "bad" : "good");
		CHECK((rc < 0) == c->bad);
		CHECK(rc == 0 || rc == TIDE_EINVAL);
		CHECK(rc == 0 ? why == NULL : why != NULL && *why);
	}
}

TEST(fsck__entry_name_reasons)
{
	const char *why = NULL;

	CHECK_INT(fsck_entry_name("..", 2, 040000, &why), TIDE_EINVAL);
	CHECK_STR(why, "name is '..'");
	CHECK_INT(fsck_entry_name("a/b", 3, 0100644, &why), TIDE_EINVAL);
	CHECK_STR(why, "name contains '/'");
	CHECK_INT(fsck_entry_name("a", 1, 0100600, &why), TIDE_EINVAL);
	CHECK_STR(why, "bad file mode");
	CHECK_INT(fsck_entry_name(".gitmodules", 11, 0120000, &why), TIDE_EINVAL);
	CHECK_STR(why, "'.gitmodules' is a symbolic link");
	/* the length counts, not a NUL: a prefix of ".." is "." */
	CHECK_INT(fsck_entry_name("..", 1, 040000, &why), TIDE_EINVAL);
	CHECK_STR(why, "name is '.'");
	CHECK_INT(fsck_entry_name(".git", 3, 040000, NULL), 0);	/* ".gi" */
	CHECK_INT(fsck_entry_name(NULL, 0, 040000, &why), TIDE_EINVAL);
}

/* Append one raw tree entry: "MODE NAME\0" and the binary OID. */
static void put_entry(struct buf *t, const char *mode, const char *name, size_t len,
		      const git_oid *id)
{
	buf_printf(t, "%s ", mode);
	buf_put(t, name, len);
	buf_putc(t, '\0');
	buf_put(t, id->id, GIT_OID_RAWSZ);
}

/* Objects written as raw bytes, unchecked, the way a hostile tree arrives. */
static int write_raw(git_oid *out, git_repository *repo, const struct buf *b, git_object_t type)
{
	git_odb *odb = NULL;
	int rc;

	if ((rc = git_repository_odb(&odb, repo)) == 0)
		rc = git_odb_write(out, odb, b->ptr, b->len, type);
	git_odb_free(odb);
	return rc;
}

static int write_commit(git_oid *out, git_repository *repo, const git_oid *tree)
{
	struct buf b = BUF_INIT;
	int rc;

	buf_printf(&b, "tree %s\nauthor T <t@t> 1 +0000\ncommitter T <t@t> 1 +0000\n\nt\n",
		   git_oid_tostr_s(tree));
	rc = write_raw(out, repo, &b, GIT_OBJECT_COMMIT);
	buf_release(&b);
	return rc;
}

/* good: "f"; evil: "drivers/.." and "drivers/sub" (good), "ok" (good). */
static int make_trees(git_oid *good_commit, git_oid *evil_commit, git_repository *repo)
{
	struct buf t = BUF_INIT;
	git_oid blob, good, evil, top;
	int rc;

	if ((rc = git_blob_create_from_buffer(&blob, repo, "hi\n", 3)) < 0)
		return rc;
	put_entry(&t, "100644", "f", 1, &blob);
	if ((rc = write_raw(&good, repo, &t, GIT_OBJECT_TREE)) < 0)
		goto done;
	buf_clear(&t);
	put_entry(&t, "100644", "..", 2, &blob);
	put_entry(&t, "40000", "sub", 3, &good);
	if ((rc = write_raw(&evil, repo, &t, GIT_OBJECT_TREE)) < 0)
		goto done;
	buf_clear(&t);
	put_entry(&t, "40000", "drivers", 7, &evil);
	put_entry(&t, "40000", "ok", 2, &good);
	if ((rc = write_raw(&top, repo, &t, GIT_OBJECT_TREE)) == 0 &&
	    (rc = write_commit(evil_commit, repo, &top)) == 0)
		rc = write_commit(good_commit, repo, &good);
done:
	buf_release(&t);
	return rc;
}

TEST(fsck__tree_names_the_path_and_remembers_good_trees)
{
	char *dir = t_tmpdir("fsck"), *repo_path = path_join(dir, "r.git");
	char *set_path = path_join(dir, "seen");
	struct fsck_seen seen = FSCK_SEEN_INIT;
	git_repository *repo = NULL;
	git_commit *c = NULL;
	git_oid evil, good;

	git_libgit2_init();
	REQUIRE(git_repository_init(&repo, repo_path, 1) == 0);
	REQUIRE(make_trees(&good, &evil, repo) == 0);
	fsck_seen_load(&seen, set_path);
	CHECK_INT(fsck_tree(&seen, repo, &evil), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "refusing path 'drivers/..': name is '..'");
	/* the walk stopped at "drivers/..": nothing found good yet */
	CHECK_INT(seen.nadded, 0);
	CHECK_INT(fsck_tree(&seen, repo, &good), 0);
	CHECK_INT(seen.nadded, 2);	/* the tree and its blob */
	CHECK_INT(fsck_tree(&seen, repo, &good), 0);
	CHECK_INT(seen.nadded, 2);
	REQUIRE(git_commit_lookup(&c, repo, &good) == 0);
	CHECK(fsck_seen_has(&seen, git_commit_tree_id(c)));
	CHECK_INT(fsck_seen_save(&seen), 0);
	fsck_seen_release(&seen);
	/* the next run finds it in the file */
	fsck_seen_load(&seen, set_path);
	CHECK_INT(seen.nsorted, 2);
	CHECK_INT(seen.nadded, 0);
	CHECK(fsck_seen_has(&seen, git_commit_tree_id(c)));
	CHECK_INT(fsck_tree(&seen, repo, &evil), TIDE_EINVAL);
	fsck_seen_release(&seen);
	/* a damaged file is an empty set */
	REQUIRE(file_write_atomic(set_path, "tidefsk2xyz", 11) == 0);
	fsck_seen_load(&seen, set_path);
	CHECK_INT(seen.nsorted, 0);
	CHECK_INT(fsck_tree(&seen, repo, &good), 0);
	fsck_seen_release(&seen);
	git_commit_free(c);
	git_repository_free(repo);
	rm_rf(dir);
	free(set_path);
	free(repo_path);
	free(dir);
}

/* A chain of n trees "d/d/.../d/f" (depth n + 1 for f); its top tree into *out. */
static int deep_tree(git_oid *out, git_repository *repo, int n)
{
	struct buf t = BUF_INIT;
	git_oid blob, cur;
	int rc, i;

	if ((rc = git_blob_create_from_buffer(&blob, repo, "deep\n", 5)) < 0)
		return rc;
	put_entry(&t, "100644", "f", 1, &blob);
	rc = write_raw(&cur, repo, &t, GIT_OBJECT_TREE);
	for (i = 1; i < n && rc == 0; i++) {
		buf_clear(&t);
		put_entry(&t, "40000", "d", 1, &cur);
		rc = write_raw(&cur, repo, &t, GIT_OBJECT_TREE);
	}
	git_oid_cpy(out, &cur);
	buf_release(&t);
	return rc;
}

static int tree_of(git_oid *out, git_repository *repo, const char *mode, const char *name,
		   const git_oid *id)
{
	struct buf t = BUF_INIT;
	int rc;

	put_entry(&t, mode, name, strlen(name), id);
	rc = write_raw(out, repo, &t, GIT_OBJECT_TREE);
	buf_release(&t);
	return rc;
}

TEST(fsck__depth_is_capped_without_recursion)
{
	char *dir = t_tmpdir("fsck"), *repo_path = path_join(dir, "r.git");
	struct fsck_seen seen = FSCK_SEEN_INIT;
	git_repository *repo = NULL;
	git_oid deep, shallow, top;

	git_libgit2_init();
	REQUIRE(git_repository_init(&repo, repo_path, 1) == 0);
	/* deeper than the limit (t2410 has a tree 60,000 deep, which overflowed the old recursive walk) */
	REQUIRE(deep_tree(&deep, repo, 5000) == 0);
	CHECK_INT(fsck_tree(&seen, repo, &deep), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "deeper than 4096 directories (max-tree-depth)") != NULL);
	CHECK(strstr(tide_error_last(), "refusing path 'd/d/d/") == tide_error_last());
	CHECK(strstr(tide_error_last(), "[...]") != NULL);	/* the path cut to fit */
	/* at the limit: "d/.../d/f" with 10 components passes max_depth 10, not 9 */
	REQUIRE(deep_tree(&shallow, repo, 10) == 0);
	seen.max_depth = 9;
	CHECK_INT(fsck_tree(&seen, repo, &shallow), TIDE_EINVAL);
	seen.max_depth = 10;
	CHECK_INT(fsck_tree(&seen, repo, &shallow), 0);
	/* found good at the top, then met one level deeper: refused by its height */
	REQUIRE(tree_of(&top, repo, "40000", "x", &shallow) == 0);
	CHECK_INT(fsck_tree(&seen, repo, &top), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "refusing path 'x': deeper than 10 directories (max-tree-depth)");
	seen.max_depth = 11;
	CHECK_INT(fsck_tree(&seen, repo, &top), 0);
	fsck_seen_release(&seen);
	git_repository_free(repo);
	rm_rf(dir);
	free(repo_path);
	free(dir);
}

TEST(fsck__objects_named_must_be_there)
{
	char *dir = t_tmpdir("fsck"), *repo_path = path_join(dir, "r.git");
	struct fsck_seen seen = FSCK_SEEN_INIT;
	git_repository *repo = NULL;
	git_oid ghost, blob, t1, t2;

	git_libgit2_init();
	REQUIRE(git_repository_init(&repo, repo_path, 1) == 0);
	REQUIRE(git_oid_fromstr(&ghost, "1111111111111111111111111111111111111111") == 0);
	REQUIRE(tree_of(&t1, repo, "100644", "ghost", &ghost) == 0);
	CHECK_INT(fsck_tree(&seen, repo, &t1), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "refusing path 'ghost': blob "
		  "1111111111111111111111111111111111111111 is missing");
	REQUIRE(tree_of(&t2, repo, "40000", "sub", &ghost) == 0);
	CHECK_INT(fsck_tree(&seen, repo, &t2), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "refusing path 'sub': tree "
		  "1111111111111111111111111111111111111111 is missing");
	/* a blob's mode naming a tree */
	REQUIRE(git_blob_create_from_buffer(&blob, repo, "x\n", 2) == 0);
	REQUIRE(tree_of(&t1, repo, "100644", "f", &blob) == 0);
	REQUIRE(tree_of(&t2, repo, "100644", "notblob", &t1) == 0);
	CHECK_INT(fsck_tree(&seen, repo, &t2), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "refusing path 'notblob': object ") != NULL);
	CHECK(strstr(tide_error_last(), " is not a blob") != NULL);
	/* a submodule's commit is not looked for */
	REQUIRE(tree_of(&t2, repo, "160000", "sub", &ghost) == 0);
	CHECK_INT(fsck_tree(&seen, repo, &t2), 0);
	fsck_seen_release(&seen);
	git_repository_free(repo);
	rm_rf(dir);
	free(repo_path);
	free(dir);
}

static int raw_commit(git_oid *out, git_repository *repo, const git_oid *tree,
		      const git_oid *parent, const char *author)
{
	struct buf b = BUF_INIT;
	int rc;

	buf_printf(&b, "tree %s\n", git_oid_tostr_s(tree));
	if (parent)
		buf_printf(&b, "parent %s\n", git_oid_tostr_s(parent));
	buf_printf(&b, "author %s 1700000000 +0000\ncommitter C <c@c> 1700000000 +0000\n\nm\n",
		   author);
	rc = write_raw(out, repo, &b, GIT_OBJECT_COMMIT);
	buf_release(&b);
	return rc;
}

TEST(fsck__history_since_the_known_commits)
{
	char *dir = t_tmpdir("fsck"), *repo_path = path_join(dir, "r.git");
	struct fsck_seen seen = FSCK_SEEN_INIT;
	git_repository *repo = NULL;
	git_oid good, evil, base, c1, bad, c2, ghost, orphan, tip;

	git_libgit2_init();
	REQUIRE(git_repository_init(&repo, repo_path, 1) == 0);
	REQUIRE(make_trees(&good, &evil, repo) == 0);
	REQUIRE(git_oid_fromstr(&ghost, "2222222222222222222222222222222222222222") == 0);
	{
		git_commit *g = NULL, *e = NULL;

		REQUIRE(git_commit_lookup(&g, repo, &good) == 0);
		REQUIRE(git_commit_lookup(&e, repo, &evil) == 0);
		git_oid_cpy(&c1, git_commit_tree_id(g));	/* c1: the good tree for now */
		git_oid_cpy(&c2, git_commit_tree_id(e));
		git_commit_free(g);
		git_commit_free(e);
	}
	REQUIRE(raw_commit(&base, repo, &c1, NULL, "A <a@a>") == 0);
	/* an author without an e-mail, one commit below the tip */
	REQUIRE(raw_commit(&bad, repo, &c1, &base, "No Email") == 0);
	REQUIRE(raw_commit(&tip, repo, &c1, &bad, "A <a@a>") == 0);
	CHECK_INT(fsck_history(&seen, repo, &tip, &base, 1), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "commit ") == tide_error_last());
	CHECK(strstr(tide_error_last(), " of its history cannot be read: ") != NULL);
	CHECK(strncmp(tide_error_last() + 7, git_oid_tostr_s(&bad), 12) == 0);
	CHECK_INT(fsck_history(&seen, repo, &bad, &base, 1), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "cannot be read: ") == tide_error_last());
	/* a parent that does not exist */
	REQUIRE(raw_commit(&orphan, repo, &c1, &ghost, "A <a@a>") == 0);
	CHECK_INT(fsck_history(&seen, repo, &orphan, &base, 1), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "commit 222222222222 of its history cannot be read") ==
	      tide_error_last());
	/* an older commit's tree is refused, naming the commit */
	REQUIRE(raw_commit(&bad, repo, &c2, &base, "A <a@a>") == 0);
	REQUIRE(raw_commit(&tip, repo, &c1, &bad, "A <a@a>") == 0);
	CHECK_INT(fsck_history(&seen, repo, &tip, &base, 1), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), " of its history: refusing path 'drivers/..': ") != NULL);
	/* good history: the commits join the set, the next look is one lookup */
	REQUIRE(raw_commit(&c2, repo, &c1, &base, "A <a@a>") == 0);
	REQUIRE(raw_commit(&tip, repo, &c1, &c2, "A <a@a>") == 0);
	CHECK_INT(fsck_history(&seen, repo, &tip, &base, 1), 0);
	CHECK(fsck_seen_has(&seen, &tip));
	CHECK(fsck_seen_has(&seen, &c2));
	CHECK(!fsck_seen_has(&seen, &base));	/* known, not checked */
	fsck_seen_release(&seen);
	git_repository_free(repo);
	rm_rf(dir);
	free(repo_path);
	free(dir);
}

TEST(fsck__heights_are_kept_in_the_file)
{
	char *dir = t_tmpdir("fsck"), *repo_path = path_join(dir, "r.git");
	char *set_path = path_join(dir, "seen");
	struct fsck_seen seen = FSCK_SEEN_INIT;
	git_repository *repo = NULL;
	git_oid chain, top;

	git_libgit2_init();
	REQUIRE(git_repository_init(&repo, repo_path, 1) == 0);
	REQUIRE(deep_tree(&chain, repo, 20) == 0);
	REQUIRE(tree_of(&top, repo, "40000", "x", &chain) == 0);
	fsck_seen_load(&seen, set_path);
	CHECK_INT(fsck_tree(&seen, repo, &chain), 0);
	CHECK_INT(seen.nadded, 21);	/* 20 trees and the blob at the bottom */
	CHECK_INT(fsck_seen_save(&seen), 0);
	fsck_seen_release(&seen);
	fsck_seen_load(&seen, set_path);
	CHECK_INT(seen.nsorted, 21);
	seen.max_depth = 20;
	CHECK_INT(fsck_tree(&seen, repo, &top), TIDE_EINVAL);	/* 21 deep */
	seen.max_depth = 21;
	CHECK_INT(fsck_tree(&seen, repo, &top), 0);
	CHECK_INT(seen.nadded, 1);	/* only the new top was read */
	fsck_seen_release(&seen);
	git_repository_free(repo);
	rm_rf(dir);
	free(set_path);
	free(repo_path);
	free(dir);
}


/* A blob found good is not a tree found good: the entry's type still counts. */
TEST(fsck__a_good_blob_named_as_a_tree_is_refused)
{
	char *dir = t_tmpdir("fsck"), *repo_path = path_join(dir, "r.git");
	struct fsck_seen seen = FSCK_SEEN_INIT;
	git_repository *repo = NULL;
	git_oid blob, good, bad;

	git_libgit2_init();
	REQUIRE(git_repository_init(&repo, repo_path, 1) == 0);
	REQUIRE(git_blob_create_from_buffer(&blob, repo, "hi\n", 3) == 0);
	REQUIRE(tree_of(&good, repo, "100644", "f", &blob) == 0);
	REQUIRE(tree_of(&bad, repo, "40000", "d", &blob) == 0);
	fsck_seen_load(&seen, NULL);
	CHECK_INT(fsck_tree(&seen, repo, &good), 0);
	CHECK(!fsck_seen_has(&seen, &blob));	/* not a tree or a commit */
	CHECK_INT(fsck_tree(&seen, repo, &bad), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "refusing path 'd': tree ") != NULL);
	CHECK(strstr(tide_error_last(), "cannot be read") != NULL);
	tide_error_clear();
	fsck_seen_release(&seen);
	git_repository_free(repo);
	rm_rf(dir);
	free(repo_path);
	free(dir);
}

TESTS(fsck__entry_name_table, fsck__entry_name_reasons,
      fsck__tree_names_the_path_and_remembers_good_trees, fsck__depth_is_capped_without_recursion,
      fsck__objects_named_must_be_there, fsck__history_since_the_known_commits,
      fsck__heights_are_kept_in_the_file, fsck__a_good_blob_named_as_a_tree_is_refused)
