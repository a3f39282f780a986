/* Unit tests of src/ccdiff.c, each checked against `git diff-tree --cc` of the same merge. */
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "buf.h"
#include "ccdiff.h"
#include "error.h"
#include "util.h"

#include "t.h"
#include "t_files.h"

/*
 * mk NAME PATH BASE OURS THEIRS RESULT [x]: a merge of THEIRS into OURS
 * (both from BASE) committed with RESULT (executable with x), tagged
 * m-NAME; NAME.want is what git shows of PATH in it.
 */
static const char script[] =
	"set -e\n"
	"git init -q -b main r && cd r\n"
	"git config core.quotepath true\n"
	"mk() {\n"
	"  git checkout -q --orphan \"b-$1\" && { git rm -rqf . || true; }\n"
	"  printf \"$3\" >\"$2\" && git add -A && git commit -qm base\n"
	"  git checkout -qb \"t-$1\" && printf \"$5\" >\"$2\" && git commit -qam theirs --allow-empty\n"
	"  git checkout -q \"b-$1\" && git checkout -qb \"o-$1\"\n"
	"  printf \"$4\" >\"$2\" && git commit -qam ours --allow-empty\n"
	"  git merge -q --no-ff --no-commit \"t-$1\" || true\n"
	"  printf \"$6\" >\"$2\" && if [ \"${7:-}\" = x ]; then chmod +x \"$2\"; fi\n"
	"  git add -A && git commit -qm merge\n"
	"  git tag \"m-$1\"\n"
	"  git diff-tree --cc --no-commit-id HEAD -- \"$2\" >\"../$1.want\"\n"
	"}\n"
	"mk classic f '1\\n2\\n3\\n' '1\\ntwo-o\\n3\\n' '1\\ntwo-t\\n3\\n' '1\\ntwo\\n3\\n'\n"
	"mk dense f 'a\\nb\\nc\\nd\\ne\\nf\\ng\\nh\\ni\\nj\\nk\\nl\\n' "
	"'a\\nB1\\nc\\nd\\ne\\nf\\ng\\nh\\ni\\nj\\nK1\\nl\\n' 'a\\nB2\\nc\\nd\\ne\\nf\\ng\\nh\\ni\\nj\\nk\\nl\\n' "
	"'a\\nB\\nc\\nd\\ne\\nf\\ng\\nh\\ni\\nj\\nK1\\nl\\n'\n"
	"mk tail f '1\\n2\\n3\\n4\\n' '1\\n2\\n3\\n4\\no\\n' '1\\n2\\n3\\n4\\nt\\n' '1\\n2\\n'\n"
	"mk noeol f 'x\\n' 'x\\no\\n' 'x\\nt\\n' 'x\\nr'\n"
	"mk oneside f '1\\n2\\n3\\n' '1\\ntwo-o\\n3\\n' '1\\ntwo-t\\n3\\n' '1\\ntwo-o\\n3\\n'\n"
	"mk func f 'int main(void)\\n{\\n a\\n b\\n c\\n d\\n e\\n}\\n' "
	"'int main(void)\\n{\\n a\\n b\\n c\\n d\\n E1\\n}\\n' 'int main(void)\\n{\\n a\\n b\\n c\\n d\\n E2\\n}\\n' "
	"'int main(void)\\n{\\n a\\n b\\n c\\n d\\n E\\n}\\n'\n"
	"mk utf8 \"caf$(printf '\\303\\251').txt\" '1\\n2\\n' '1\\no\\n' '1\\nt\\n' '1\\nr\\n'\n"
	"mk mode f '1\\n2\\n' '1\\no\\n' '1\\nt\\n' '1\\nr\\n' x\n"
	"mk binary f 'a\\000b\\n' 'a\\000o\\n' 'a\\000t\\n' 'a\\000r\\n'\n";

static char *dir;
static git_repository *repo;

static void setup(void)
{
	char *path;

	if (repo)
		return;
	git_libgit2_init();
	dir = t_tmpdir("ccdiff");
	path = path_join(dir, "cases.sh");
	if (file_write_atomic(path, script, strlen(script)) < 0 ||
	    t_sh_in(dir, T_GITENV "sh cases.sh") != 0)
		abort();
	free(path);
	path = path_join(dir, "r");
	if (git_repository_open(&repo, path) < 0)
		abort();
	free(path);
}

/* ccdiff_path() of path in merge m-NAME, as git's NAME.want. */
static void check_case(const char *name, const char *path)
{
	struct buf out = BUF_INIT;
	char *want, *ref, *file;
	git_object *obj = NULL;
	git_commit *m = NULL;
	git_oid parents[2];

	setup();
	ref = xasprintf("m-%s", name);
	file = xasprintf("%s.want", name);
	want = t_slurp(dir, file);
	REQUIRE(want);
	REQUIRE(git_revparse_single(&obj, repo, ref) == 0);
	REQUIRE(git_commit_lookup(&m, repo, git_object_id(obj)) == 0);
	CHECK_INT((int)git_commit_parentcount(m), 2);
	git_oid_cpy(&parents[0], git_commit_parent_id(m, 0));
	git_oid_cpy(&parents[1], git_commit_parent_id(m, 1));
	CHECK_INT(ccdiff_path(&out, repo, path, parents, 2, git_commit_tree_id(m)), 0);
	CHECK_STR(buf_cstr(&out), want);
	buf_release(&out);
	git_commit_free(m);
	git_object_free(obj);
	free(want), free(ref), free(file);
}

TEST(ccdiff__both_sides_replaced_by_a_third_version)
{
	check_case("classic", "f");
}

TEST(ccdiff__a_hunk_taken_from_one_side_is_left_out)
{
	check_case("dense", "f");
}

TEST(ccdiff__lines_lost_at_the_end_from_both_parents)
{
	check_case("tail", "f");
}

TEST(ccdiff__result_without_a_final_newline)
{
	check_case("noeol", "f");
}

TEST(ccdiff__result_equal_to_one_side_prints_nothing)
{
	char *want;

	check_case("oneside", "f");
	/* git has nothing there, so the check above says nothing else */
	want = t_slurp(dir, "oneside.want");
	CHECK(want && !*want);
	free(want);
}

TEST(ccdiff__hunk_header_names_the_function_as_git_cuts_it)
{
	check_case("func", "f");
}

TEST(ccdiff__non_ascii_path_is_quoted)
{
	check_case("utf8", "caf\303\251.txt");
}

TEST(ccdiff__mode_change_is_shown)
{
	check_case("mode", "f");
}

TEST(ccdiff__binary_file_differs)
{
	check_case("binary", "f");
}

TEST(ccdiff__too_many_parents_is_bad_input)
{
	struct ccdiff_side s[9];
	struct buf out = BUF_INIT;

	memset(s, 0, sizeof(s));
	setup();
	CHECK_INT(ccdiff_file(&out, repo, "f", s, 9, &s[0]), TIDE_EINVAL);
	tide_error_clear();
	buf_release(&out);
}

TESTS(ccdiff__both_sides_replaced_by_a_third_version,
      ccdiff__a_hunk_taken_from_one_side_is_left_out,
      ccdiff__lines_lost_at_the_end_from_both_parents,
      ccdiff__result_without_a_final_newline,
      ccdiff__result_equal_to_one_side_prints_nothing,
      ccdiff__hunk_header_names_the_function_as_git_cuts_it,
      ccdiff__non_ascii_path_is_quoted,
      ccdiff__mode_change_is_shown,
      ccdiff__binary_file_differs,
      ccdiff__too_many_parents_is_bad_input)
