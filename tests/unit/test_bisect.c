#include <jansson.h>

#include "t.h"
#include "dayrec.h"
#include "bisect.h"
#include "error.h"

/* A fake history: states >= culprit are bad, those in skip[] untestable. */
struct fake {
	size_t culprit;
	const size_t *skip;
	size_t nskip;
	size_t calls;
	int fail_at;		/* call number that returns an error, 0 none */
};

static int fake_test(void *data, size_t i, enum bisect_verdict *out)
{
	struct fake *f = data;
	size_t k;

	f->calls++;
	if (f->fail_at && (int)f->calls == f->fail_at)
		return tide_error_set(TIDE_ERROR, "injected");
	for (k = 0; k < f->nskip; k++)
		if (f->skip[k] == i) {
			*out = BISECT_SKIP;
			return 0;
		}
	*out = i >= f->culprit ? BISECT_BAD : BISECT_GOOD;
	return 0;
}

static int run_fake(struct fake *f, size_t n, size_t *lo, size_t *hi)
{
	enum bisect_verdict *v = calloc(n + 1, sizeof(*v));
	int err;

	v[0] = BISECT_GOOD;
	v[n] = BISECT_BAD;
	err = bisect_search(v, n, fake_test, f, lo, hi);
	free(v);
	return err;
}

TEST(log2_ceil__matches_the_definition)
{
	CHECK_INT(bisect_log2_ceil(0), 0);
	CHECK_INT(bisect_log2_ceil(1), 0);
	CHECK_INT(bisect_log2_ceil(2), 1);
	CHECK_INT(bisect_log2_ceil(3), 2);
	CHECK_INT(bisect_log2_ceil(4), 2);
	CHECK_INT(bisect_log2_ceil(5), 3);
	CHECK_INT(bisect_log2_ceil(1024), 10);
	CHECK_INT(bisect_log2_ceil(1025), 11);
}

TEST(search__finds_every_culprit_within_log2_steps)
{
	size_t n, c, lo, hi;

	for (n = 1; n <= 64; n++)
		for (c = 1; c <= n; c++) {
			struct fake f = { c, NULL, 0, 0, 0 };

			REQUIRE(run_fake(&f, n, &lo, &hi) == 0);
			CHECK_INT(hi, c);
			CHECK_INT(lo, c - 1);
			if (f.calls > bisect_log2_ceil(n)) {
				fprintf(stderr, "  n=%zu culprit=%zu: %zu calls\n", n, c, f.calls);
				CHECK(0);
			}
		}
}

TEST(search__steps_around_skipped_states)
{
	static const size_t skip[] = { 4 };
	struct fake f = { 6, skip, 1, 0, 0 };
	size_t lo, hi;

	REQUIRE(run_fake(&f, 8, &lo, &hi) == 0);
	CHECK_INT(hi, 6);
	CHECK_INT(lo, 5);
	CHECK(f.calls <= bisect_log2_ceil(8) + 2);
}

TEST(search__skips_around_the_culprit_leave_a_range)
{
	static const size_t skip[] = { 3, 4, 5 };
	struct fake f = { 4, skip, 3, 0, 0 };
	size_t lo, hi;

	REQUIRE(run_fake(&f, 8, &lo, &hi) == 0);
	/* 3, 4 and 5 untestable, 2 good, 6 bad: the culprit is one of 3..6. */
	CHECK_INT(lo, 2);
	CHECK_INT(hi, 6);
}

TEST(search__uses_known_verdicts_and_passes_errors_on)
{
	enum bisect_verdict v[9] = { BISECT_GOOD };
	struct fake f = { 7, NULL, 0, 0, 0 }, g = { 3, NULL, 0, 0, 2 };
	size_t lo, hi;

	v[8] = BISECT_BAD;
	v[6] = BISECT_GOOD;	/* already known: only 7 and 8 remain */
	REQUIRE(bisect_search(v, 8, fake_test, &f, &lo, &hi) == 0);
	CHECK_INT(hi, 7);
	CHECK_INT(f.calls, 1);
	CHECK_INT(run_fake(&g, 8, &lo, &hi), TIDE_ERROR);
	CHECK_INT(g.calls, 2);
}

TEST(diff_symbols__changed_lines_only_without_keywords)
{
	json_t *set = json_object();

	bisect_diff_symbols(set,
			    "diff --git a/api.h b/api.h\n"
			    "--- a/api.h\n"
			    "+++ b/api.h\n"
			    "@@ -1 +1 @@ context_word\n"
			    " unchanged_word\n"
			    "-static int gpio_old_name(void);\n"
			    "+static int gpio_new_name(void);\n");
	CHECK(json_object_get(set, "gpio_old_name") != NULL);
	CHECK(json_object_get(set, "gpio_new_name") != NULL);
	CHECK(json_object_get(set, "static") == NULL);
	CHECK(json_object_get(set, "void") == NULL);
	CHECK(json_object_get(set, "int") == NULL);
	CHECK(json_object_get(set, "unchanged_word") == NULL);
	CHECK(json_object_get(set, "api") == NULL);
	json_decref(set);
}

TEST(names__verdicts_and_outcomes)
{
	CHECK_STR(bisect_verdict_name(BISECT_GOOD), "good");
	CHECK_STR(bisect_verdict_name(BISECT_BAD), "bad");
	CHECK_STR(bisect_verdict_name(BISECT_SKIP), "skip");
	CHECK_STR(bisect_outcome_name(BISECT_SEMANTIC), "semantic-conflict");
	CHECK_STR(bisect_outcome_name(BISECT_NOTHING), "nothing-to-bisect");
	CHECK_STR(bisect_outcome_name(BISECT_BASE_BROKEN), "base-broken");
}

TEST(state_load__no_bisect_is_not_found)
{
	json_t *st = NULL;

	CHECK_INT(bisect_state_load(&st, "/nonexistent-tide-dir"), TIDE_ENOTFOUND);
	CHECK(st == NULL);
}

TESTS(log2_ceil__matches_the_definition,
      search__finds_every_culprit_within_log2_steps,
      search__steps_around_skipped_states,
      search__skips_around_the_culprit_leave_a_range,
      search__uses_known_verdicts_and_passes_errors_on,
      diff_symbols__changed_lines_only_without_keywords,
      names__verdicts_and_outcomes,
      state_load__no_bisect_is_not_found)
