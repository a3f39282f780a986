/*
 * The line diff (linediff.h) and the three-way text merge (xmerge.h).
 * Every expected merge below is what git 2.39's `git merge-tree
 * --write-tree` wrote for the same three files (branches "ours" and
 * "theirs"); the random comparison with git is tests/cmd/t1040.
 */
#include "t.h"
#include "buf.h"
#include "error.h"
#include "linediff.h"
#include "util.h"
#include "xmerge.h"

static int merge3(struct buf *out, const char *b, const char *o, const char *t, int marker,
		  int favor)
{
	struct xmerge_text in[3] = {
		{ b, b ? strlen(b) : 0, NULL },
		{ o, strlen(o), "ours" },
		{ t, strlen(t), "theirs" },
	};
	struct xmerge_opts opts = XMERGE_OPTS_INIT;

	opts.marker_size = marker;
	opts.favor = favor;
	return xmerge(out, &in[0], &in[1], &in[2], &opts);
}

/* Merge and check the text and the number of conflicts. */
static void check_merge(const char *b, const char *o, const char *t, const char *want,
			int conflicts)
{
	struct buf out = BUF_INIT;

	CHECK_INT(merge3(&out, b, o, t, 0, 0), conflicts);
	CHECK_STR(buf_cstr(&out), want);
	buf_release(&out);
}

static char *repeat(const char *s, int n)
{
	struct buf b = BUF_INIT;

	while (n-- > 0)
		buf_puts(&b, s);
	return buf_detach(&b);
}

TEST(xmerge__changes_apart_merge_cleanly)
{
	check_merge("1\n2\n3\n4\n5\n", "1\nA\n3\n4\n5\n", "1\n2\n3\n4\nB\n", "1\nA\n3\n4\nB\n",
		    0);
}

TEST(xmerge__the_same_change_on_both_sides_is_clean)
{
	check_merge("1\n2\n3\n", "1\n2a\n3\n", "1\n2a\n3\n", "1\n2a\n3\n", 0);
}

TEST(xmerge__one_side_unchanged_gives_the_other)
{
	check_merge("1\n2\n", "1\n2\n", "x\r\ny", "x\r\ny", 0);
	check_merge("1\n2\n", "z", "1\n2\n", "z", 0);
}

TEST(xmerge__zealous_takes_common_lines_out_of_a_conflict)
{
	check_merge("1\n2\n3\n4\n5\n", "1\nA\nsame\nX\n5\n", "1\nA\nsame\nY\n5\n",
		    "1\nA\nsame\n<<<<<<< ours\nX\n=======\nY\n>>>>>>> theirs\n5\n", 1);
}

TEST(xmerge__conflicts_closer_than_four_lines_become_one)
{
	check_merge("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\nA\n3\n4\nB\n6\n7\n8\n9\n",
		    "1\nC\n3\n4\nD\n6\n7\n8\n9\n",
		    "1\n<<<<<<< ours\nA\n3\n4\nB\n=======\nC\n3\n4\nD\n>>>>>>> theirs\n"
		    "6\n7\n8\n9\n", 1);
	check_merge("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\nA\n3\n4\n5\n6\nB\n8\n9\n",
		    "1\nC\n3\n4\n5\n6\nD\n8\n9\n",
		    "1\n<<<<<<< ours\nA\n=======\nC\n>>>>>>> theirs\n3\n4\n5\n6\n"
		    "<<<<<<< ours\nB\n=======\nD\n>>>>>>> theirs\n8\n9\n", 2);
}

TEST(xmerge__a_side_without_final_newline_gets_one_before_the_marker)
{
	check_merge("a\nb\n", "a\nc", "a\nd", "a\n<<<<<<< ours\nc\n=======\nd\n>>>>>>> theirs\n",
		    1);
}

TEST(xmerge__crlf_texts_get_crlf_markers)
{
	check_merge("a\r\nb\r\nc\r\n", "a\r\nX\r\nc\r\n", "a\r\nY\r\nc\r\n",
		    "a\r\n<<<<<<< ours\r\nX\r\n=======\r\nY\r\n>>>>>>> theirs\r\nc\r\n", 1);
}

TEST(xmerge__add_add_merges_against_an_empty_base)
{
	check_merge(NULL, "same\nA\n", "same\nB\n",
		    "same\n<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\n", 1);
}

/* Myers would pair these lines differently (libgit2's merge gives
 * "<<<<<<< ours\na\nb\n=======\nb\nd\nF\n>>>>>>> theirs\na\na\nd\n"). */
TEST(xmerge__histogram_anchors_where_git_does)
{
	check_merge("b\nd\na\na\na\n", "a\nb\na\na\nd\n", "b\nd\nF\na\na\n",
		    "a\nb\na\na\nd\n<<<<<<< ours\n=======\nF\na\na\n>>>>>>> theirs\n", 1);
	check_merge("b\nd\na\na\na\n", "a\nb\na\na\nd\n", "b\nD\na\na\na\n",
		    "a\nb\n<<<<<<< ours\na\na\nd\n=======\nD\na\na\na\n>>>>>>> theirs\n", 1);
}

/* A region whose lines all occur more than 64 times is diffed with
 * Myers' algorithm; without it both insertions would conflict. */
TEST(xmerge__lines_repeated_too_often_fall_back_to_myers)
{
	char *x30 = repeat("x\n", 30), *x40 = repeat("x\n", 40), *x29 = repeat("x\n", 29);
	char *x69 = repeat("x\n", 69), *x70 = repeat("x\n", 70), *b = repeat("x\n", 99);
	char *o = xasprintf("%sy\n%s", x30, x69), *t = xasprintf("%sz\n%s", x70, x29);
	char *want = xasprintf("%sy\n%sz\n%s", x30, x40, x29);

	check_merge(b, o, t, want, 0);
	free(x30), free(x40), free(x29), free(x69), free(x70);
	free(b), free(o), free(t), free(want);
}

TEST(xmerge__marker_size_is_a_parameter)
{
	struct buf out = BUF_INIT;

	CHECK_INT(merge3(&out, "a\nb\nc\n", "a\nX\nc\n", "a\nY\nc\n", 9, 0), 1);
	CHECK_STR(buf_cstr(&out), "a\n<<<<<<<<< ours\nX\n=========\nY\n>>>>>>>>> theirs\nc\n");
	CHECK_INT(merge3(&out, "a\nb\nc\n", "a\nX\nc\n", "a\nY\nc\n", 32, 0), 1);
	CHECK(strstr(buf_cstr(&out), "\n================================\n") != NULL);
	buf_release(&out);
}

/* As `git merge-file --ours/--theirs/--union` resolve the same files. */
TEST(xmerge__favor_resolves_conflicts_for_one_side_or_both)
{
	struct buf out = BUF_INIT;
	const char *b = "1\n2\n3\n4\n5\n", *o = "1\nA\nsame\nX\n5\n", *t = "1\nA\nsame\nY\n5\n";

	CHECK_INT(merge3(&out, b, o, t, 0, 1), 0);
	CHECK_STR(buf_cstr(&out), "1\nA\nsame\nX\n5\n");
	CHECK_INT(merge3(&out, b, o, t, 0, 2), 0);
	CHECK_STR(buf_cstr(&out), "1\nA\nsame\nY\n5\n");
	CHECK_INT(merge3(&out, b, o, t, 0, 3), 0);
	CHECK_STR(buf_cstr(&out), "1\nA\nsame\nX\nY\n5\n");
	CHECK_INT(merge3(&out, "a\n", "a\nb", "a\nc", 0, 3), 0);
	CHECK_STR(buf_cstr(&out), "a\nb\nc");
	buf_release(&out);
}

TEST(xmerge__empty_texts)
{
	check_merge("", "", "a\n", "a\n", 0);
	check_merge("a\n", "", "", "", 0);
	check_merge(NULL, "", "b", "b", 0);
}

/* git gives up on a histogram hash chain of 64 distinct lines (its
 * merge fails: "Failed to execute internal merge"); so does tide. */
TEST(xmerge__a_full_histogram_hash_chain_fails_as_in_git)
{
	struct buf b = BUF_INIT, t = BUF_INIT, out = BUF_INIT;
	int n, j;

	for (n = 64; n <= 65; n++) {
		buf_truncate(&b, 0);
		for (j = 0; j < 8400; j++)
			buf_printf(&b, "L%d\n", j);
		buf_puts(&b, "X\n");
		/* ids spread so that all 65 land in one of 128 buckets */
		for (j = 0; j < n; j++)
			buf_printf(&b, "L%d\n", 128 * j + (5 - j + 128) % 128);
		buf_puts(&b, "Y\n");
		buf_truncate(&t, 0);
		buf_put(&t, b.ptr, b.len);
		buf_puts(&t, "T\n");
		if (n == 64)
			CHECK_INT(merge3(&out, b.ptr, "X\nQ\nY\n", t.ptr, 0, 0), 0);
		else
			CHECK_INT(merge3(&out, b.ptr, "X\nQ\nY\n", t.ptr, 0, 0), TIDE_EINVAL);
	}
	CHECK(strstr(tide_error_last(), "histogram hash chain") != NULL);
	buf_release(&b);
	buf_release(&t);
	buf_release(&out);
}

TEST(xmerge__cost_counts_texts_and_lines)
{
	struct xmerge_text a = { "a\nb\n", 4, NULL }, e = { "", 0, NULL };
	size_t small = xmerge_cost(&e, &e, &e), two = xmerge_cost(&a, &a, &a);

	CHECK(two > small);
	CHECK(two >= 5 * 4 + 6 * 8);
}

static void diff_ids(struct ld_script *s, const uint32_t *a, uint32_t na, const uint32_t *b,
		     uint32_t nb)
{
	struct ld_ids ids;

	ld_ids_init(&ids, 16);
	s->n = 0;
	CHECK_INT(ld_diff(s, a, na, b, nb, &ids), 0);
	ld_ids_release(&ids);
}

TEST(linediff__one_changed_line)
{
	static const uint32_t a[] = { 1, 2, 3 }, b[] = { 1, 4, 3 };
	struct ld_script s = { NULL, 0, 0 };

	diff_ids(&s, a, 3, b, 3);
	REQUIRE(s.n == 1);
	CHECK_INT(s.v[0].a, 1);
	CHECK_INT(s.v[0].na, 1);
	CHECK_INT(s.v[0].b, 1);
	CHECK_INT(s.v[0].nb, 1);
	ld_script_release(&s);
}

/* An insertion that could sit in several places slides down as far as
 * it goes, as xdl_change_compact() leaves it. */
TEST(linediff__an_ambiguous_insertion_slides_down)
{
	static const uint32_t a[] = { 1, 2, 3 }, b[] = { 1, 2, 3, 2, 3 };
	static const uint32_t c[] = { 5, 5, 5 }, d[] = { 5, 5, 5, 5 };
	struct ld_script s = { NULL, 0, 0 };

	diff_ids(&s, a, 3, b, 5);
	REQUIRE(s.n == 1);
	CHECK_INT(s.v[0].a, 3);
	CHECK_INT(s.v[0].na, 0);
	CHECK_INT(s.v[0].b, 3);
	CHECK_INT(s.v[0].nb, 2);
	diff_ids(&s, c, 3, d, 4);
	REQUIRE(s.n == 1);
	CHECK_INT(s.v[0].a, 3);
	CHECK_INT(s.v[0].b, 3);
	CHECK_INT(s.v[0].nb, 1);
	ld_script_release(&s);
}

TEST(linediff__empty_sides)
{
	static const uint32_t a[] = { 1, 2 };
	struct ld_script s = { NULL, 0, 0 };

	diff_ids(&s, a, 2, NULL, 0);
	REQUIRE(s.n == 1);
	CHECK_INT(s.v[0].na, 2);
	CHECK_INT(s.v[0].nb, 0);
	diff_ids(&s, NULL, 0, NULL, 0);
	CHECK_INT(s.n, 0);
	ld_script_release(&s);
}

TESTS(xmerge__changes_apart_merge_cleanly,
      xmerge__the_same_change_on_both_sides_is_clean,
      xmerge__one_side_unchanged_gives_the_other,
      xmerge__zealous_takes_common_lines_out_of_a_conflict,
      xmerge__conflicts_closer_than_four_lines_become_one,
      xmerge__a_side_without_final_newline_gets_one_before_the_marker,
      xmerge__crlf_texts_get_crlf_markers,
      xmerge__add_add_merges_against_an_empty_base,
      xmerge__histogram_anchors_where_git_does,
      xmerge__lines_repeated_too_often_fall_back_to_myers,
      xmerge__marker_size_is_a_parameter,
      xmerge__favor_resolves_conflicts_for_one_side_or_both,
      xmerge__empty_texts,
      xmerge__a_full_histogram_hash_chain_fails_as_in_git,
      xmerge__cost_counts_texts_and_lines,
      linediff__one_changed_line,
      linediff__an_ambiguous_insertion_slides_down,
      linediff__empty_sides)
