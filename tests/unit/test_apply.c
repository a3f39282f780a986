/*
 * Unit tests of src/apply.c, src/apply_parse.c and src/gitbin.c: each form
 * of diff parsed and applied to trees of a scratch repository.  The
 * comparison with patch(1) and git apply on generated patches is
 * tests/cmd/t5220-apply-compare.sh.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "apply.h"
#include "apply_int.h"
#include "error.h"
#include "gitbin.h"
#include "patch.h"
#include "quilt.h"
#include "util.h"
#include "t.h"
#include "t_files.h"

static git_repository *repo;
static char *dir;

static git_repository *scratch(void)
{
	if (!repo) {
		git_libgit2_init();
		dir = t_tmpdir("apply");
		if (git_repository_init(&repo, dir, 1) < 0)
			abort();
	}
	return repo;
}

/* A tree of "path", "content" pairs (NULL-terminated); mode 0755 if path ends in '*'. */
static git_oid make_tree(const char *const *files)
{
	git_index *idx = NULL;
	git_index_entry e;
	git_oid out;
	size_t i;

	scratch();	/* libgit2 initialised before the index */
	git_index_new(&idx);
	for (i = 0; files[i]; i += 2) {
		char *path = xstrdup(files[i]);

		memset(&e, 0, sizeof(e));
		e.mode = str_ends_with(path, "*") ? 0100755 : 0100644;
		if (str_ends_with(path, "*"))
			path[strlen(path) - 1] = '\0';
		e.path = path;
		git_blob_create_from_buffer(&e.id, scratch(), files[i + 1], strlen(files[i + 1]));
		git_index_add(idx, &e);
		free(path);
	}
	git_index_write_tree_to(&out, idx, scratch());
	git_index_free(idx);
	return out;
}

/* The content of path in tree, or NULL; *mode gets its mode. */
static char *tree_file(const git_oid *tree_id, const char *path, unsigned *mode)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	char *out = NULL;

	if (git_tree_lookup(&tree, scratch(), tree_id) == 0 &&
	    git_tree_entry_bypath(&e, tree, path) == 0 &&
	    git_blob_lookup(&blob, scratch(), git_tree_entry_id(e)) == 0) {
		out = xstrndup(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
		if (mode)
			*mode = git_tree_entry_filemode(e);
	}
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	return out;
}

static int apply_str(git_oid *out, const git_oid *tree, const char *diff,
		     const struct apply_opts *o, struct apply_result *res)
{
	return apply_to_tree(out, scratch(), tree, diff, strlen(diff), o, res);
}

static const char *const ten[] = { "f.c", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", NULL };

TEST(apply__parse_git_extended_headers)
{
	static const char diff[] =
		"diff --git a/old.c b/new.c\n"
		"old mode 100644\nnew mode 100755\n"
		"similarity index 90%\nrename from old.c\nrename to new.c\n"
		"index 0123456..789abcd\n"
		"--- a/old.c\n+++ b/new.c\n"
		"@@ -1 +1 @@\n-a\n+b\n";
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_parsed p;

	REQUIRE(apply_parse(&p, diff, strlen(diff), &o) == 0);
	REQUIRE(p.nfiles == 1);
	CHECK_STR(p.files[0].old_path, "old.c");
	CHECK_STR(p.files[0].new_path, "new.c");
	CHECK(p.files[0].rename && p.files[0].git);
	CHECK_INT(p.files[0].old_mode, 0100644);
	CHECK_INT(p.files[0].new_mode, 0100755);
	CHECK_STR(p.files[0].old_id, "0123456");
	REQUIRE(p.files[0].nhunks == 1);
	CHECK_INT(p.files[0].hunks[0].old_count, 1);
	CHECK_INT(p.files[0].hunks[0].new_count, 1);
	apply_parsed_release(&p);
}

TEST(apply__parse_quilt_akpm_and_quoted_names)
{
	static const char diff[] =
		"Index: linux/mm/a.c\n"
		"===================================================================\n"
		"--- linux.orig/mm/a.c\n+++ linux/mm/a.c\n@@ -1 +1 @@\n-a\n+b\n"
		"diff -puN mm/b.c~fix-it mm/b.c\n"
		"--- a/mm/b.c~fix-it\n+++ a/mm/b.c\n@@ -1 +1 @@\n-a\n+b\n"
		"diff --git \"a/sp ace\\tx\" \"b/sp ace\\tx\"\nnew file mode 100644\n"
		"index 0000000..e69de29\n";
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_parsed p;

	REQUIRE(apply_parse(&p, diff, strlen(diff), &o) == 0);
	REQUIRE(p.nfiles == 3);
	CHECK_STR(p.files[0].old_path, "mm/a.c");
	CHECK_STR(p.files[0].hint, "mm/a.c");
	CHECK_STR(p.files[1].old_path, "mm/b.c~fix-it");
	CHECK_STR(p.files[1].new_path, "mm/b.c");
	CHECK_STR(p.files[2].new_path, "sp ace\tx");
	CHECK(p.files[2].create && !p.files[2].old_path);
	apply_parsed_release(&p);
}

TEST(apply__parse_no_newline_and_reverse)
{
	static const char diff[] = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n"
				   "\\ No newline at end of file\n+c\n";
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_parsed p;

	o.reverse = 1;
	REQUIRE(apply_parse(&p, diff, strlen(diff), &o) == 0);
	REQUIRE(p.nfiles == 1 && p.files[0].nlines == 3);
	CHECK_INT(p.files[0].lines[1].op, '+');
	CHECK_INT(p.files[0].lines[1].len, 1);	/* "b", no newline */
	CHECK_INT(p.files[0].lines[2].op, '-');
	apply_parsed_release(&p);
}

TEST(apply__malformed_patches_are_einval_with_the_line)
{
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_parsed p;

	static const char *const bad[] = { "x\n@@ -1 +1 @@\n",
					   "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n",
					   "--- a/f\n+++ b/f\n@@ -1 +1 @@\n?x\n" };

	CHECK_INT(apply_parse(&p, bad[0], strlen(bad[0]), &o), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "line 2: hunk header outside a file patch");
	CHECK_INT(apply_parse(&p, bad[1], strlen(bad[1]), &o), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "line 5: patch ends inside a hunk");
	CHECK_INT(apply_parse(&p, bad[2], strlen(bad[2]), &o), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "line 4: malformed hunk") != NULL);
}

TEST(apply__unsafe_paths_are_refused)
{
	static const char *const bad[] = { "/etc/passwd", "../x", ".git/config",
					   "x/.GIT/hooks", "x//y", "x/", "x/./y" };
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_parsed p;
	size_t i;

	o.strip = 0;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char *diff = xasprintf("--- %s\n+++ %s\n@@ -1 +1 @@\n-a\n+b\n", bad[i], bad[i]);

		CHECK_INT(apply_parse(&p, diff, strlen(diff), &o), TIDE_EINVAL);
		CHECK(strstr(tide_error_last(), "line 1: ") == tide_error_last());
		free(diff);
	}
	CHECK_INT(apply_check_path("ok/.gitignore", 1), 0);
}

TEST(apply__offset_is_applied_and_noted)
{
	static const char *const shifted[] = { "f.c", "a\nb\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", NULL };
	static const char diff[] = "--- a/f.c\n+++ b/f.c\n@@ -4,5 +4,5 @@\n 4\n 5\n-6\n+six\n 7\n 8\n";
	struct apply_result res = APPLY_RESULT_INIT;
	git_oid base = make_tree(shifted), out;
	char *got;

	REQUIRE(apply_str(&out, &base, diff, NULL, &res) == 0);
	got = tree_file(&out, "f.c", NULL);
	CHECK_STR(got, "a\nb\n1\n2\n3\n4\n5\nsix\n7\n8\n9\n10\n");
	REQUIRE(res.nnotes == 1);
	CHECK_STR(res.notes[0].path, "f.c");
	CHECK_STR(res.notes[0].note, "hunk #1 applied at line 6 (offset 2 lines)");
	CHECK_INT(res.files, 1);
	CHECK_INT(res.hunks, 1);
	free(got);
	apply_result_release(&res);
}

TEST(apply__conflict_names_file_hunk_and_lines)
{
	static const char diff[] = "--- a/f.c\n+++ b/f.c\n@@ -4,5 +4,5 @@\n 4\n 5\n-SIX\n+six\n 7\n 8\n";
	git_oid base = make_tree(ten), out;

	CHECK_INT(apply_str(&out, &base, diff, NULL, NULL), TIDE_ECONFLICT);
	CHECK_STR(tide_error_last(), "does not apply to 'f.c': hunk #1 (@@ -4,5 +4,5 @@): "
		  "line 6: expected 'SIX', found '6'");
}

TEST(apply__fuzz_is_opt_in)
{
	static const char diff[] = "--- a/f.c\n+++ b/f.c\n@@ -3,7 +3,7 @@\n 3\n 4\n X\n-6\n+six\n"
				   " 7\n 8\n 9\n";
	struct apply_opts o = APPLY_OPTS_INIT;
	git_oid base = make_tree(ten), out;
	char *got;

	CHECK_INT(apply_str(&out, &base, diff, &o, NULL), TIDE_ECONFLICT);
	o.fuzz = 2;
	CHECK_INT(apply_str(&out, &base, diff, &o, NULL), TIDE_ECONFLICT);	/* X is inner */
	o.fuzz = 3;
	REQUIRE(apply_str(&out, &base, diff, &o, NULL) == 0);
	got = tree_file(&out, "f.c", NULL);
	CHECK_STR(got, "1\n2\n3\n4\n5\nsix\n7\n8\n9\n10\n");
	free(got);
}

TEST(apply__new_deleted_renamed_and_mode)
{
	static const char *const files[] = { "a", "x\n", "b", "y\n", "c", "z\n", NULL };
	static const char diff[] =
		"diff --git a/a b/a\ndeleted file mode 100644\n--- a/a\n+++ /dev/null\n"
		"@@ -1 +0,0 @@\n-x\n"
		"diff --git a/n/new b/n/new\nnew file mode 100755\n--- /dev/null\n+++ b/n/new\n"
		"@@ -0,0 +1 @@\n+new\n"
		"diff --git a/b b/d/b2\nsimilarity index 100%\nrename from b\nrename to d/b2\n"
		"diff --git a/c b/c\nold mode 100644\nnew mode 100755\n";
	git_oid base = make_tree(files), out;
	char *got, *gone;
	unsigned mode = 0;

	REQUIRE(apply_str(&out, &base, diff, NULL, NULL) == 0);
	CHECK((gone = tree_file(&out, "a", NULL)) == NULL);
	got = tree_file(&out, "n/new", &mode);
	CHECK_STR(got, "new\n");
	CHECK_INT(mode, 0100755);
	free(got);
	got = tree_file(&out, "d/b2", NULL);
	CHECK_STR(got, "y\n");
	free(got);
	CHECK((gone = tree_file(&out, "b", NULL)) == NULL);
	got = tree_file(&out, "c", &mode);
	CHECK_INT(mode, 0100755);
	free(got);
}

TEST(apply__plain_names_pick_the_existing_file)
{
	static const char *const files[] = { "mm/b.c", "a\n", NULL };
	static const char diff[] = "diff -puN mm/b.c~x mm/b.c\n--- a/mm/b.c~x\n+++ a/mm/b.c\n"
				   "@@ -1 +1 @@\n-a\n+b\n";
	git_oid base = make_tree(files), out;
	char *got;

	REQUIRE(apply_str(&out, &base, diff, NULL, NULL) == 0);
	got = tree_file(&out, "mm/b.c", NULL);
	CHECK_STR(got, "b\n");
	free(got);
}

TEST(apply__crlf_patch_and_no_newline)
{
	static const char *const files[] = { "f", "a\nb\n", NULL };
	static const char diff[] = "--- a/f\r\n+++ b/f\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n"
				   "\\ No newline at end of file\r\n";
	git_oid base = make_tree(files), out;
	char *got;

	REQUIRE(apply_str(&out, &base, diff, NULL, NULL) == 0);
	got = tree_file(&out, "f", NULL);
	CHECK_STR(got, "a\nc");
	free(got);
}

TEST(apply__anchored_hunks_and_missing_files)
{
	static const char at_start[] = "--- a/f.c\n+++ b/f.c\n@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n";
	static const char *const shifted[] = { "f.c", "x\n1\n2\n3\n4\n", NULL };
	static const char missing[] = "--- a/nope\n+++ b/nope\n@@ -1 +1 @@\n-a\n+b\n";
	git_oid base = make_tree(shifted), out;

	/* No leading context: the hunk belongs at the start, where "x" is. */
	CHECK_INT(apply_str(&out, &base, at_start, NULL, NULL), TIDE_ECONFLICT);
	CHECK_INT(apply_str(&out, &base, missing, NULL, NULL), TIDE_ECONFLICT);
	CHECK_STR(tide_error_last(), "does not apply to 'nope': no such file");
	CHECK_INT(apply_str(&out, &base, "just text\n", NULL, NULL), TIDE_EINVAL);
}

TEST(apply__bounds_on_line_length)
{
	struct buf b = BUF_INIT;
	git_oid base = make_tree(ten), out;
	size_t i;

	buf_puts(&b, "--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-1\n+");
	for (i = 0; i <= APPLY_MAX_LINE; i++)
		buf_putc(&b, 'x');
	buf_putc(&b, '\n');
	CHECK_INT(apply_to_tree(&out, scratch(), &base, b.ptr, b.len, NULL, NULL), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "line 5: line too long");
	buf_release(&b);
}

TEST(apply__huge_hunk_on_equal_lines_gives_up_in_bounded_time)
{
	struct buf file = BUF_INIT, diff = BUF_INIT;
	const char *files[3] = { "f", NULL, NULL };
	git_oid base, out;
	size_t i, n = 40000;

	for (i = 0; i < n; i++)
		buf_puts(&file, "x\n");
	files[1] = file.ptr;
	base = make_tree(files);
	/* Each of n/2 places matches n/4 lines before "y" differs. */
	buf_printf(&diff, "--- a/f\n+++ b/f\n@@ -9,%zu +9,%zu @@\n", n / 2 + 1, n / 2 + 1);
	for (i = 0; i <= n / 2; i++)	/* as much context before as after */
		buf_puts(&diff, i == n / 4 ? "-y\n+z\n" : " x\n");
	CHECK_INT(apply_to_tree(&out, scratch(), &base, diff.ptr, diff.len, NULL, NULL),
		  TIDE_ECONFLICT);
	CHECK(strstr(tide_error_last(), "too many places to try") != NULL);
	buf_release(&file);
	buf_release(&diff);
}

TEST(gitbin__delta_and_bad_base85)
{
	/* src 5, dst 7; copy 5 bytes from 0; insert "!!" */
	static const char delta[] = { 5, 7, (char)0x90, 5, 2, '!', '!' };
	struct buf out = BUF_INIT;

	REQUIRE(gitbin_delta_apply(&out, "hello", 5, delta, sizeof(delta)) == 0);
	CHECK_STR(buf_cstr(&out), "hello!!");
	buf_clear(&out);
	CHECK_INT(gitbin_delta_apply(&out, "hell", 4, delta, sizeof(delta)), TIDE_ECONFLICT);
	buf_clear(&out);
	CHECK_INT(gitbin_decode(&out, "A\"\"\"\"\"\n", 7, 1, 3), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "line 3: bad base85 data");
	buf_release(&out);
}

TEST(apply__patch_commit_takes_author_message_and_trailer)
{
	static const char mail[] = "From: A U Thor <a@ex.org>\nDate: Mon, 30 Nov 2026 12:00:00 +0100\n"
				   "Subject: [PATCH] f: six\n\nWhy.\n---\n"
				   "--- a/f.c\n+++ b/f.c\n@@ -5,3 +5,3 @@\n 5\n-6\n+six\n 7\n";
	git_oid tree = make_tree(ten), parent, out;
	git_signature *sig = NULL;
	git_tree *t = NULL;
	git_commit *c = NULL;
	struct patch p;

	git_signature_new(&sig, "C", "c@ex.org", 1000, 0);
	git_tree_lookup(&t, scratch(), &tree);
	git_commit_create(&parent, scratch(), NULL, sig, sig, NULL, "base\n", t, 0, NULL);
	REQUIRE(patch_parse(&p, mail, strlen(mail)) == 0);
	REQUIRE(apply_patch_commit(&out, scratch(), &parent, &p, NULL, NULL, "Tide-Tree: x",
				   NULL) == 0);
	REQUIRE(git_commit_lookup(&c, scratch(), &out) == 0);
	CHECK_STR(git_commit_message(c), "f: six\n\nWhy.\n\nTide-Tree: x\n");
	CHECK_STR(git_commit_author(c)->name, "A U Thor");
	CHECK_STR(git_commit_committer(c)->email, "a@ex.org");
	CHECK_INT(git_commit_author(c)->when.offset, 60);
	patch_release(&p);
	git_commit_free(c);
	git_tree_free(t);
	git_signature_free(sig);
}

TEST(quilt__series_options_per_patch)
{
	struct quilt_series s;

	REQUIRE(quilt_series_parse(&s, "a.patch\nb.patch -p0 # c\n  c.patch -R -p2\n") == 0);
	REQUIRE(s.npatches == 3);
	CHECK_INT(s.opts[0].strip, 1);
	CHECK_INT(s.opts[1].strip, 0);
	CHECK_INT(s.opts[2].strip, 2);
	CHECK_INT(s.opts[2].reverse, 1);
	quilt_series_release(&s);
	CHECK_INT(quilt_series_parse(&s, "a.patch --fuzz=3\n"), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "unsupported option '--fuzz=3' for 'a.patch' in series");
}

/*
 * git apply's symbolic link rule (t4122, t4115): nothing is written below
 * a link the tree has or the patch creates, unless the patch removes it.
 */
TEST(apply__writing_beyond_a_symbolic_link_is_refused)
{
	static const char add_link[] =
		"diff --git a/d b/d\nnew file mode 120000\n--- /dev/null\n+++ b/d\n"
		"@@ -0,0 +1 @@\n+../elsewhere\n\\ No newline at end of file\n";
	static const char add_file[] =
		"diff --git a/d/f b/d/f\nnew file mode 100644\n--- /dev/null\n+++ b/d/f\n"
		"@@ -0,0 +1 @@\n+x\n";
	static const char del_link[] =
		"diff --git a/d b/d\ndeleted file mode 120000\n--- a/d\n+++ /dev/null\n"
		"@@ -1 +0,0 @@\n-../elsewhere\n\\ No newline at end of file\n";
	static const char ren_link[] =
		"diff --git a/d b/e\nsimilarity index 100%\nrename from d\nrename to e\n";
	static const char add_under_e[] =
		"diff --git a/e/f b/e/f\nnew file mode 100644\n--- /dev/null\n+++ b/e/f\n"
		"@@ -0,0 +1 @@\n+x\n";
	static const char *const base[] = { "a.c", "a\n", NULL };
	git_oid t = make_tree(base), linked, out;
	struct buf both = BUF_INIT;
	unsigned mode = 0;
	char *got;

	/* One patch creates the link, a later one writes through it. */
	CHECK_INT(apply_str(&linked, &t, add_link, NULL, NULL), 0);
	CHECK_INT(apply_str(&out, &linked, add_file, NULL, NULL), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "affected file 'd/f' is beyond a symbolic link");
	/* Or both in one patch. */
	buf_puts(&both, add_link);
	buf_puts(&both, add_file);
	CHECK_INT(apply_str(&out, &t, buf_cstr(&both), NULL, NULL), TIDE_EINVAL);
	/* A patch that removes the link may make a directory there. */
	buf_clear(&both);
	buf_puts(&both, del_link);
	buf_puts(&both, add_file);
	CHECK_INT(apply_str(&out, &linked, buf_cstr(&both), NULL, NULL), 0);
	got = tree_file(&out, "d/f", &mode);
	CHECK_STR(got, "x\n");
	free(got);
	/* A link renamed by the patch is still a link at its new name. */
	buf_clear(&both);
	buf_puts(&both, ren_link);
	buf_puts(&both, add_under_e);
	CHECK_INT(apply_str(&out, &linked, buf_cstr(&both), NULL, NULL), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "affected file 'e/f' is beyond a symbolic link");
	buf_release(&both);
}

/* The scratch repository the tests above wrote to is removed, and gone. */
TEST(apply__cleanup)
{
	REQUIRE(repo != NULL && dir != NULL);
	git_repository_free(repo);
	repo = NULL;
	CHECK_INT(t_sh_in("/tmp", "rm -rf '%s'", dir), 0);
	CHECK(access(dir, F_OK) != 0 && errno == ENOENT);
	free(dir);
	dir = NULL;
}

TESTS(apply__parse_git_extended_headers, apply__parse_quilt_akpm_and_quoted_names,
      apply__parse_no_newline_and_reverse, apply__malformed_patches_are_einval_with_the_line,
      apply__unsafe_paths_are_refused, apply__offset_is_applied_and_noted,
      apply__conflict_names_file_hunk_and_lines, apply__fuzz_is_opt_in,
      apply__new_deleted_renamed_and_mode, apply__plain_names_pick_the_existing_file,
      apply__crlf_patch_and_no_newline, apply__anchored_hunks_and_missing_files,
      apply__bounds_on_line_length, apply__huge_hunk_on_equal_lines_gives_up_in_bounded_time,
      gitbin__delta_and_bad_base85,
      apply__patch_commit_takes_author_message_and_trailer, quilt__series_options_per_patch,
      apply__writing_beyond_a_symbolic_link_is_refused,
      apply__cleanup)
