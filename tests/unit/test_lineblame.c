/* Unit tests of line ranges carried through diffs and conflict sections (src/lineblame.c). */
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "t.h"
#include "buf.h"
#include "lineblame.h"
#include "util.h"

/* "N,M ..." of r (1-based, inclusive; points "@N": after line N). */
static char *fmt(const struct line_ranges *r)
{
	return line_ranges_format(r);
}

/* Carry "a,b" ranges of target across the diff parent -> target; the result formatted. */
static char *carry(const char *parent, const char *target, const long *pairs, size_t n,
		   int *touched)
{
	struct line_ranges rs = { 0 }, out = { 0 };
	struct line_diff d;
	char *s;
	size_t i;

	git_libgit2_init();
	for (i = 0; i < n; i++)
		line_ranges_add(&rs, pairs[2 * i], pairs[2 * i + 1]);
	if (line_diff_compute(&d, parent, strlen(parent), target, strlen(target)) < 0)
		abort();
	*touched = line_ranges_map(&out, &rs, &d);
	s = fmt(&out);
	line_diff_release(&d);
	line_ranges_release(&rs);
	line_ranges_release(&out);
	git_libgit2_shutdown();
	return s;
}

TEST(lineblame__untouched_lines_move_with_the_hunks_before_them)
{
	/* target has two lines inserted before the range c..d */
	long r[] = { 4, 6 };	/* "c", "d" (0-based 4 and 5) */
	int hit;
	char *s = carry("a\nb\nc\nd\ne\n", "a\nb\nX\nY\nc\nd\ne\n", r, 1, &hit);

	CHECK_INT(hit, 0);
	CHECK_STR(s, "3,4");
	free(s);
}

TEST(lineblame__a_changed_line_is_replaced_by_the_lines_it_came_from)
{
	long r[] = { 1, 3 };	/* "B", "c" */
	int hit;
	char *s = carry("a\nb1\nb2\nc\nd\n", "a\nB\nc\nd\n", r, 1, &hit);

	CHECK_INT(hit, 1);
	/* "B" came from b1, b2 (lines 2-3 of the parent); "c" is line 4 there */
	CHECK_STR(s, "2,4");
	free(s);
}

TEST(lineblame__lines_all_added_leave_nothing_to_trace)
{
	long r[] = { 0, 2 };
	int hit;
	char *s = carry("", "x\ny\n", r, 1, &hit);

	CHECK_INT(hit, 1);
	CHECK_STR(s, "");
	free(s);
}

TEST(lineblame__a_hunk_next_to_a_range_does_not_touch_it)
{
	long r[] = { 2, 4 };	/* "c", "d" */
	int hit;
	char *s = carry("a\nb\nc\nd\ne\n", "a\nB\nc\nd\nE\n", r, 1, &hit);

	CHECK_INT(hit, 0);
	CHECK_STR(s, "3,4");
	free(s);
}

/*
 * git's filter checks a hunk against the first range not ending before
 * it, only: a hunk starting where one range ends and reaching into the
 * next is not seen as touching either.  Carried as git carries it.
 */
TEST(lineblame__git_quirk_a_hunk_between_two_ranges_is_not_seen)
{
	long r[] = { 0, 2, 3, 5 };	/* "a", "b" and "D", "e" */
	int hit;
	char *s = carry("a\nb\nc\nd\ne\n", "a\nb\nC\nD\ne\n", r, 2, &hit);

	CHECK_INT(hit, 0);
	free(s);
}

TEST(lineblame__a_point_is_changed_by_the_commit_that_removed_lines_there)
{
	struct line_ranges rs = { 0 }, out = { 0 };
	struct line_diff d;
	char *s;
	int hit;

	git_libgit2_init();
	/* the target lost b1, b2: the point after "a" (1) */
	line_ranges_add(&rs, 1, 1);
	CHECK_STR((s = fmt(&rs)), "@1");
	free(s);
	REQUIRE(line_diff_compute(&d, "a\nb1\nb2\nc\n", 10, "a\nc\n", 4) == 0);
	hit = line_ranges_map(&out, &rs, &d);
	CHECK_INT(hit, 1);
	CHECK_STR((s = fmt(&out)), "2,3");	/* the lines removed, traced on */
	free(s);
	line_diff_release(&d);
	line_ranges_release(&out);
	/* lines added elsewhere only move it */
	REQUIRE(line_diff_compute(&d, "c\n", 2, "x\ny\nc\n", 6) == 0);
	line_ranges_release(&rs);
	line_ranges_add(&rs, 3, 3);
	hit = line_ranges_map(&out, &rs, &d);
	CHECK_INT(hit, 0);
	CHECK_STR((s = fmt(&out)), "@1");
	free(s);
	line_diff_release(&d);
	line_ranges_release(&rs);
	line_ranges_release(&out);
	git_libgit2_shutdown();
}

/*
 * Two texts of lines from a tiny alphabet (so that hunks can slide over
 * equal lines), the second with one edit: k lines inserted or removed
 * at *at.
 */
static void texts_gen(struct buf *a, struct buf *b, unsigned *seed, long *at)
{
	static const char *const alphabet[] = { "x\n", "y\n", "}\n", "\n" };
	int n = 40, i, k = 1 + (int)(rand_r(seed) % 3), del = (int)(rand_r(seed) % 2);
	const char *line[40];

	*at = (long)(rand_r(seed) % (unsigned)(n - k));
	for (i = 0; i < n; i++) {
		line[i] = alphabet[rand_r(seed) % 4];
		buf_puts(a, line[i]);
	}
	for (i = 0; i < n; i++) {
		if (i == *at && !del)
			for (int j = 0; j < k; j++)
				buf_puts(b, alphabet[rand_r(seed) % 4]);
		if (del && i >= *at && i < *at + k)
			continue;
		buf_puts(b, line[i]);
	}
}

/*
 * The quick carry (no diff) must give what the diff gives whenever it
 * answers: texts of repeated lines where hunks slide, ranges and points
 * near the edit.
 */
TEST(lineblame__quick_carry_agrees_with_the_diff)
{
	unsigned seed = 42;
	int round, answered = 0;

	git_libgit2_init();
	for (round = 0; round < 2000; round++) {
		struct buf a = BUF_INIT, b = BUF_INIT;
		struct line_ranges rs = { 0 }, quick = { 0 }, slow = { 0 };
		struct line_diff d;
		long at, start;
		char *q, *w;
		int k;

		texts_gen(&a, &b, &seed, &at);
		for (k = 0; k < 1 + round % 2; k++) {
			start = at - 6 + (long)(rand_r(&seed) % 12);
			if (start < 0)
				start = 0;
			line_ranges_add(&rs, start, start + (round % 4 == 0 ? 0 : 1 + rand_r(&seed) % 3));
		}
		REQUIRE(line_diff_compute(&d, a.ptr, a.len, b.ptr, b.len) == 0);
		if (!line_ranges_map_quick(&quick, &rs, a.ptr, a.len, b.ptr, b.len)) {
			answered++;
			CHECK_INT(line_ranges_map(&slow, &rs, &d), 0);
			q = fmt(&quick);
			w = fmt(&slow);
			if (strcmp(q, w))
				fprintf(stderr, "  round %d: quick %s, diff %s\n", round, q, w);
			CHECK_STR(q, w);
			free(q);
			free(w);
		}
		line_diff_release(&d);
		line_ranges_release(&rs);
		line_ranges_release(&quick);
		line_ranges_release(&slow);
		buf_release(&a);
		buf_release(&b);
	}
	CHECK(answered > 200);	/* the quick path is taken often */
	git_libgit2_shutdown();
}

/* The merge of base, ours, theirs with markers, by libgit2. */
static char *merged_text(const char *base, const char *ours, const char *theirs, int diff3)
{
	git_merge_file_input in[3];
	git_merge_file_options opts;
	git_merge_file_result res;
	const char *t[3] = { base, ours, theirs };
	char *out;
	int i;

	for (i = 0; i < 3; i++) {
		git_merge_file_input_init(&in[i], GIT_MERGE_FILE_INPUT_VERSION);
		in[i].ptr = t[i];
		in[i].size = strlen(t[i]);
	}
	git_merge_file_options_init(&opts, GIT_MERGE_FILE_OPTIONS_VERSION);
	opts.ancestor_label = "base";
	opts.our_label = "ours";
	opts.their_label = "theirs";
	if (diff3)
		opts.flags = GIT_MERGE_FILE_STYLE_DIFF3;
	if (git_merge_file(&res, &in[0], &in[1], &in[2], &opts) < 0)
		abort();
	out = xstrndup(res.ptr, res.len);
	git_merge_file_result_free(&res);
	return out;
}

static void sections(const char *base, const char *ours, const char *theirs, int diff3,
		     const char *want_ours, const char *want_theirs)
{
	struct line_ranges o = { 0 }, t = { 0 };
	char *m = merged_text(base, ours, theirs, diff3), *so, *st;
	int ook, tok;

	line_ranges_of_conflicts(&o, &ook, &t, &tok, m, strlen(m), 0, ours, strlen(ours), theirs,
				 strlen(theirs));
	CHECK_INT(ook, 1);
	CHECK_INT(tok, 1);
	CHECK_STR((so = fmt(&o)), want_ours);
	CHECK_STR((st = fmt(&t)), want_theirs);
	free(so);
	free(st);
	free(m);
	line_ranges_release(&o);
	line_ranges_release(&t);
}

TEST(lineblame__conflict_sections_are_placed_in_each_side)
{
	git_libgit2_init();
	/* theirs also changed line 1 cleanly: ours' lines do not move */
	sections("a\nb\nc\nd\ne\nf\n", "a\nb\nOURS\nd\ne\nf\n", "A\nb\nTHEIRS\nT2\nd\ne\nf\n", 0,
		 "3,3", "3,4");
	/* diff3 style: the base section is in neither side */
	sections("a\nb\nc\nd\ne\nf\n", "a\nb\nOURS\nd\ne\nf\n", "A\nb\nTHEIRS\nT2\nd\ne\nf\n", 1,
		 "3,3", "3,4");
	/* two regions; ours removed the lines theirs changed in the second (a point) */
	sections("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\nO\n3\n4\n5\n6\n9\n",
		 "1\nT\n3\n4\n5\n6\n7x\n8\n9\n", 0, "2,2 @6", "2,2 7,8");
	git_libgit2_shutdown();
}

struct regions {
	struct buf all;
};

static void one_region(void *payload, const char *region, size_t len)
{
	struct regions *r = payload;

	buf_put(&r->all, region, len);
	buf_puts(&r->all, "--\n");
}

TEST(lineblame__regions_are_whole_marker_runs_of_one_size)
{
	struct regions r = { BUF_INIT };
	const char *text =
		"x\n"
		"<<<<<<<<< ours\n"		/* size 9 (git's conflict-marker-size=9) */
		"<<<<<<< inner\n"		/* text at size 9 */
		"a\n"
		"=========\n"
		"b\n"
		">>>>>>> inner\n"
		">>>>>>>>> theirs\n"
		"y\n"
		"<<<<<<< never closed\n"
		"z\n";

	conflict_regions(text, strlen(text), 9, one_region, &r);
	CHECK_STR(buf_cstr(&r.all),
		  "<<<<<<<<< ours\n<<<<<<< inner\na\n=========\nb\n>>>>>>> inner\n>>>>>>>>> theirs\n--\n");
	/* at git's default size the 9-character markers are text: no region closes */
	buf_clear(&r.all);
	conflict_regions(text, strlen(text), 0, one_region, &r);
	CHECK_STR(buf_cstr(&r.all), "");
	buf_release(&r.all);
}

TESTS(lineblame__untouched_lines_move_with_the_hunks_before_them,
      lineblame__a_changed_line_is_replaced_by_the_lines_it_came_from,
      lineblame__lines_all_added_leave_nothing_to_trace,
      lineblame__a_hunk_next_to_a_range_does_not_touch_it,
      lineblame__git_quirk_a_hunk_between_two_ranges_is_not_seen,
      lineblame__a_point_is_changed_by_the_commit_that_removed_lines_there,
      lineblame__quick_carry_agrees_with_the_diff,
      lineblame__conflict_sections_are_placed_in_each_side,
      lineblame__regions_are_whole_marker_runs_of_one_size)
