#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "t.h"
#include "dayrec.h"
#include "bisect.h"
#include "conf.h"
#include "error.h"
#include "run.h"
#include "util.h"
#include "workspace.h"

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

/* ---- a day rebuilt through bisect's merges ---- */

/* The day DATE made by tide's own run (no build, no boot) in DIR/ws from DIR/trees.conf. */
static int run_world(struct workspace **ws, const char *dir, const char *date)
{
	struct run_opts opts = RUN_OPTS_INIT;
	struct run_summary sum;
	struct trees_conf *conf = NULL;
	char *wsdir = path_join(dir, "ws"), *path = path_join(dir, "trees.conf");
	int err;

	opts.date = date;
	opts.no_build = opts.no_boot = 1;
	git_libgit2_init();
	if ((err = workspace_open(ws, wsdir, WORKSPACE_CREATE)) == 0 &&
	    (err = trees_conf_load(&conf, path)) == 0) {
		err = run_day(&sum, *ws, conf, &opts);
		run_summary_release(&sum);
	}
	if (err < 0)
		fprintf(stderr, "  run: %s\n", tide_error_last());
	trees_conf_free(conf);
	free(path);
	free(wsdir);
	return err;
}

/*
 * Every tree of the day rebuilt through bisect's merges (from the base,
 * tree after tree) gives the day's own tree after it.  *trees and
 * *crisscross: the trees compared, and those merged over 2+ bases.
 */
static void check_rebuilt(struct workspace *ws, const char *date, size_t *trees,
			  size_t *crisscross)
{
	struct bisect_rebuilt *r = NULL;
	size_t n = 0, i;
	char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];

	*trees = *crisscross = 0;
	CHECK_INT(bisect_rebuild_day(&r, &n, ws->repo, ws->dir, date), 0);
	for (i = 0; i < n; i++) {
		if (r[i].why)
			fprintf(stderr, "  %s: bisect cannot build it: %s\n", r[i].tree, r[i].why);
		CHECK(r[i].why == NULL);
		if (!git_oid_equal(&r[i].day_tree, &r[i].state_tree)) {
			fprintf(stderr, "  %s: the day's tree %s, bisect's %s (%zu bases)\n", r[i].tree,
				git_oid_tostr(a, sizeof(a), &r[i].day_tree),
				git_oid_tostr(b, sizeof(b), &r[i].state_tree), r[i].nbases);
			CHECK(0);
		}
		*crisscross += r[i].nbases > 1;
	}
	*trees = n;
	bisect_rebuilt_free(r, n);
}

/* Three criss-cross pairs (tests/data/crisscross-world.sh), a fixup, an up-to-date and a left-out tree. */
TEST(rebuild__a_criss_cross_day_is_the_day)
{
	char dir[] = "/tmp/tide-test-bisect-XXXXXX";
	const char *top = getenv("TIDE_SRC");
	struct workspace *ws = NULL;
	size_t trees, crisscross;
	char *cmd;

	REQUIRE(mkdtemp(dir) != NULL);
	cmd = xasprintf("sh '%s/tests/data/crisscross-world.sh' '%s' 3 >/dev/null 2>&1",
			top ? top : ".", dir);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	if (run_world(&ws, dir, "2026-12-01") == 0) {
		check_rebuilt(ws, "2026-12-01", &trees, &crisscross);
		/* A1 B1 A2 B2 A3 B3 and "same" are in the day, "clash" is not. */
		CHECK_INT(trees, 7);
		CHECK_INT(crisscross, 3);
	} else {
		CHECK(0);
	}
	workspace_free(ws);
	git_libgit2_shutdown();
	rm_rf(dir);
}

/*
 * A real day: libgit2's v1.7.0 and twelve of its branches, one merged over
 * two bases (jss/fix-ignore-pop).  The clone of the bundle is kept under
 * $TIDE_TEST_DATA (build/test-data) for the next run.
 */
TEST(rebuild__a_real_libgit2_day_is_the_day)
{
	static const char *const branches[] = {
		"jss/fix-ignore-pop", "ethomson/reftable_build", "ethomson/octopus",
		"ethomson/v2.0", "ethomson/index", "ethomson/ci", "ethomson/docs-update",
		"ethomson/debug_build", "ethomson/linked_tokens",
		"ethomson/commits_with_empty_signatures", "ethomson/blamefix", "ethomson/7265",
		"ethomson/cygwin",
	};
	const char *bundle = getenv("TIDE_LIBGIT2_BUNDLE");
	const char *data = getenv("TIDE_TEST_DATA");
	char dir[] = "/tmp/tide-test-bisect-XXXXXX";
	struct workspace *ws = NULL;
	struct buf conf = BUF_INIT;
	size_t i, trees, crisscross;
	char *clone, *cmd, *path;

	if (!bundle)
		bundle = "/work/shared/data/libgit2.bundle";
	if (!path_exists(bundle)) {
		fprintf(stderr, "  skip: no libgit2 bundle at %s (TIDE_LIBGIT2_BUNDLE)\n", bundle);
		return;
	}
	clone = path_join(data ? data : "build/test-data", "libgit2.git");
	if (!path_exists(clone)) {
		cmd = xasprintf("git clone -q --bare '%s' '%s.tmp' && mv '%s.tmp' '%s'", bundle, clone,
				clone, clone);
		mkdir_p(data ? data : "build/test-data", 0777);
		CHECK_INT(system(cmd), 0);
		free(cmd);
	}
	REQUIRE(mkdtemp(dir) != NULL);
	path = path_absolute(clone);
	buf_printf(&conf, "#tide\tbase\t%s#v1.7.0\n", path);
	for (i = 0; i < ARRAY_SIZE(branches); i++)
		buf_printf(&conf, "t%zu\tgit\t%s#%s\n", i + 1, path, branches[i]);
	free(path);
	path = path_join(dir, "trees.conf");
	file_write_atomic(path, conf.ptr, conf.len);
	if (run_world(&ws, dir, "2026-12-01") == 0) {
		check_rebuilt(ws, "2026-12-01", &trees, &crisscross);
		CHECK_INT(trees, 12);	/* ethomson/octopus conflicts: left out */
		CHECK_INT(crisscross, 1);
	} else {
		CHECK(0);
	}
	workspace_free(ws);
	git_libgit2_shutdown();
	buf_release(&conf);
	free(path);
	free(clone);
	rm_rf(dir);
}

TESTS(log2_ceil__matches_the_definition,
      search__finds_every_culprit_within_log2_steps,
      search__steps_around_skipped_states,
      search__skips_around_the_culprit_leave_a_range,
      search__uses_known_verdicts_and_passes_errors_on,
      diff_symbols__changed_lines_only_without_keywords,
      names__verdicts_and_outcomes,
      state_load__no_bisect_is_not_found,
      rebuild__a_criss_cross_day_is_the_day, rebuild__a_real_libgit2_day_is_the_day)
