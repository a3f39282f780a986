#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "dayrec.h"
#include "error.h"
#include "util.h"

static json_t *parse(const char *text)
{
	json_error_t jerr;

	return json_loads(text, 0, &jerr);
}

static int same_json(json_t *a, const char *text)
{
	json_t *b = parse(text);
	int eq = b && json_equal(a, b);

	json_decref(b);
	return eq;
}

TEST(dayrec__build_round_trip)
{
	const char *text = "{\"status\": \"ok\", \"commit\": \"abc\", \"seconds\": 1.5,"
		" \"jobs\": 4, \"ccache\": true, \"remote_cache\": null,"
		" \"warnings\": [{\"file\": \"a.c\", \"line\": 3}], \"kernel\": \"out/bzImage\","
		" \"make_command\": [\"make\", \"-j4\"]}";
	json_t *in = parse(text), *out;
	struct day_build *b = NULL;

	REQUIRE(day_build_from_json(&b, in, "day.json") == 0);
	CHECK_STR(b->status, "ok");
	CHECK_STR(b->kernel, "out/bzImage");
	CHECK(b->seconds == 1.5);
	CHECK_INT(b->jobs, 4);
	CHECK_INT(b->ccache, 1);
	CHECK(b->remote_cache == NULL);
	CHECK(b->failure == NULL);
	CHECK_INT(json_array_size(b->warnings), 1);
	out = day_build_to_json(b);
	/* keys absent stay absent, a null stays null */
	CHECK(json_equal(in, out));
	CHECK(json_is_null(json_object_get(out, "remote_cache")));
	CHECK(!json_object_get(out, "failure"));
	json_decref(out);
	json_decref(in);
	day_build_free(b);
}

TEST(dayrec__full_record_has_every_always_key)
{
	struct day_boot *b = day_boot_full();
	json_t *o;

	b->status = xstrdup("passed");
	o = day_boot_to_json(b);
	CHECK_STR(json_string_value(json_object_get(o, "status")), "passed");
	CHECK(json_is_null(json_object_get(o, "reason")));
	CHECK(json_is_real(json_object_get(o, "seconds")));
	CHECK(json_is_integer(json_object_get(o, "smp")));
	CHECK(json_is_boolean(json_object_get(o, "timed_out")));
	CHECK(!json_object_get(o, "console"));
	CHECK(!json_object_get(o, "failure"));
	json_decref(o);
	day_boot_free(b);
}

TEST(dayrec__failed_stage_has_status_and_failure_only)
{
	struct day_boot *b = day_boot_failed("skipped", "no kernel: the build failed");
	json_t *o;

	REQUIRE(b != NULL);
	o = day_boot_to_json(b);
	CHECK(same_json(o, "{\"status\": \"skipped\", \"failure\": \"no kernel: the build failed\"}"));
	json_decref(o);
	day_boot_free(b);
}

TEST(dayrec__unknown_keys_kept)
{
	json_t *in = parse("{\"outcome\": \"found\", \"steps_done\": 3,"
			   " \"future\": {\"x\": [1, 2]}, \"note\": \"later\"}");
	struct day_bisect *b = NULL;
	json_t *out;

	REQUIRE(day_bisect_from_json(&b, in, "day.json") == 0);
	CHECK_STR(b->outcome, "found");
	CHECK_INT(b->steps_done, 3);
	REQUIRE(b->head.extra != NULL);
	CHECK_INT(json_object_size(b->head.extra), 2);
	out = day_bisect_to_json(b);
	CHECK(json_equal(in, out));
	json_decref(out);
	json_decref(in);
	day_bisect_free(b);
}

static int load_build(const json_t *j)
{
	struct day_build *b = NULL;
	int err = day_build_from_json(&b, j, "days/2026-12-05/day.json");

	CHECK(err < 0 ? b == NULL : 1);
	day_build_free(b);
	return err;
}

TEST(dayrec__wrong_types_refused)
{
	static const struct { const char *text, *key; } cases[] = {
		{ "{\"status\": true}", "\"status\"" },
		{ "{\"status\": \"ok\", \"seconds\": \"12\"}", "\"seconds\"" },
		{ "{\"jobs\": 1.5}", "\"jobs\"" },
		{ "{\"ccache\": 1}", "\"ccache\"" },
		{ "{\"warnings\": {}}", "\"warnings\"" },
		{ "{\"checkout\": []}", "\"checkout\"" },
		{ "[\"ok\"]", "\"build\"" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		json_t *j = parse(cases[i].text);

		CHECK_INT(load_build(j), TIDE_EINVAL);
		CHECK(strstr(tide_error_last(), "days/2026-12-05/day.json") != NULL);
		CHECK(strstr(tide_error_last(), cases[i].key) != NULL);
		json_decref(j);
	}
	{
		json_t *j = parse("{\"status\": \"passed\", \"smp\": \"2\"}");
		struct day_boot *b = NULL;

		CHECK_INT(day_boot_from_json(&b, j, "x/day.json"), TIDE_EINVAL);
		CHECK(strstr(tide_error_last(), "\"boot\": \"smp\"") != NULL);
		json_decref(j);
	}
	{
		json_t *j = parse("{\"outcome\": \"found\", \"steps\": 3}");
		struct day_bisect *b = NULL;

		CHECK_INT(day_bisect_from_json(&b, j, "x/day.json"), TIDE_EINVAL);
		CHECK(strstr(tide_error_last(), "\"bisect\": \"steps\"") != NULL);
		json_decref(j);
	}
}

TEST(dayrec__absent_record_is_null)
{
	struct day_build *b = (struct day_build *)1;

	CHECK_INT(day_build_from_json(&b, NULL, "x"), 0);
	CHECK(b == NULL);
}

TEST(dayrec__dup_is_deep)
{
	struct day_build *a = day_build_full(), *b;

	a->status = xstrdup("ok");
	a->kernel = xstrdup("k");
	a->errors = json_array();
	b = day_build_dup(a);
	REQUIRE(b != NULL);
	CHECK_STR(b->kernel, "k");
	CHECK(b->errors != a->errors);
	CHECK(b->head.have == a->head.have);
	day_build_free(a);
	day_build_free(b);
}

TEST(dayrec__build_and_boot_text_for_show)
{
	json_error_t jerr;
	json_t *b = json_loads(
		"{\"status\": \"failed\", \"failure\": \"make failed (exit status 2)\", \"seconds\": 12.4,"
		" \"errors\": [{\"file\": \"a.c\", \"line\": 3, \"message\": \"boom\"}],"
		" \"warnings\": [{}, {}], \"new_warnings\": [{\"file\": \"g.c\", \"line\": 0,"
		" \"message\": \"w\", \"tree\": \"gpio\"}]}", 0, &jerr);
	json_t *boot = json_loads(
		"{\"status\": \"tests-failed\", \"reason\": \"1 test failed\", \"seconds\": 3.31,"
		" \"counts\": {\"pass\": 16, \"fail\": 1, \"skip\": 0},"
		" \"tests\": [{\"name\": \"gpio.edge_events\", \"ok\": false},"
		"           {\"name\": \"gpio.chip_info\", \"ok\": true}]}", 0, &jerr);
	struct day_build *rb = NULL;
	struct day_boot *rt = NULL;
	char *text;

	REQUIRE(b && boot);
	REQUIRE(day_build_from_json(&rb, b, "test") == 0);
	REQUIRE(day_boot_from_json(&rt, boot, "test") == 0);
	text = day_build_text(rb);
	CHECK_STR(text, "build   failed: make failed (exit status 2) in 12 s, 2 warnings, 1 new\n"
			"        error: a.c:3: boom\n"
			"        new warning: g.c: w (gpio)\n");
	free(text);
	text = day_boot_text(rt, NULL);
	CHECK_STR(text, "boot    tests-failed: 1 test failed in 3.3 s, 16 passed, 1 failed, 0 skipped\n"
			"        not ok: gpio.edge_events\n");
	free(text);
	CHECK(day_build_text(NULL) == NULL);
	day_build_free(rb);
	day_boot_free(rt);
	json_decref(b);
	json_decref(boot);
}

TEST(dayrec__bisect_text_one_line)
{
	json_t *rec = json_pack("{s:s, s:{s:s, s:s}, s:s, s:s, s:s, s:s, s:i, s:f}",
				"outcome", "semantic-conflict", "check", "kind", "test",
				"arg", "gpio.edge_events", "tree", "cpumask",
				"commit", "0123456789abcdef0123", "subject", "cpumask: add x",
				"conflicts_with", "fixes", "builds", 9, "seconds", 612.4);
	struct day_bisect *b = NULL;
	char *line;

	REQUIRE(day_bisect_from_json(&b, rec, "test") == 0);
	line = day_bisect_text(b);

	CHECK_STR(line, "--test gpio.edge_events: semantic-conflict cpumask 0123456789ab "
		  "\"cpumask: add x\" with fixes (9 builds, 612s)");
	free(line);
	CHECK(day_bisect_text(NULL) == NULL);
	day_bisect_free(b);
	json_decref(rec);
}

TEST(dayrec__bisect_text_steps_builds_dropped)
{
	json_t *rec = json_pack("{s:s, s:{s:s, s:s}, s:s, s:s, s:s, s:s, s:[{s:s}],"
				" s:i, s:i, s:f}",
				"outcome", "found", "check", "kind", "cmd", "arg", "make test",
				"since", "2026-07-02", "tree", "t04",
				"commit", "0123456789abcdef0123", "subject", "t04: define x",
				"dropped", "commit", "0123456789abcdef0123",
				"steps_done", 6, "builds", 0, "seconds", 1.2);
	struct day_bisect *b = NULL;
	char *line;

	REQUIRE(day_bisect_from_json(&b, rec, "test") == 0);
	line = day_bisect_text(b);

	CHECK_STR(line, "--cmd make test --since 2026-07-02: found t04 0123456789ab "
		  "\"t04: define x\" (dropped) (6 steps, 0 builds, 1s)");
	free(line);
	day_bisect_free(b);
	json_decref(rec);
}

/* A regression entry of DIR/regressions.json: typed, every always-key written. */
TEST(dayrec__regression_round_trip)
{
	struct regression *r = regression_new(), *back = NULL;
	json_t *o, *bad;

	r->id = xstrdup("r1");
	r->key = xstrdup("test:smoke/x86_64:gpio.edge_events");
	r->state = xstrdup("new");
	r->first_bad = xstrdup("2026-01-02");
	r->bad_days = 1;
	r->culprit = json_pack("{s:s}", "tree", "gpio");
	o = regression_to_json(r);
	CHECK(json_is_null(json_object_get(o, "last_good")));
	CHECK(json_is_null(json_object_get(o, "fixed")));
	CHECK(json_is_real(json_object_get(o, "score")));
	CHECK(!json_object_get(o, "mails"));
	REQUIRE(regression_from_json(&back, o, "regressions.json") == 0);
	CHECK_STR(back->first_bad, "2026-01-02");
	CHECK_STR(json_string_value(json_object_get(back->culprit, "tree")), "gpio");
	CHECK_INT(back->bad_days, 1);
	bad = json_pack("{s:s}", "culprit", "gpio");
	regression_free(back);
	back = NULL;
	CHECK_INT(regression_from_json(&back, bad, "regressions.json"), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "regressions.json: \"regression\": \"culprit\" is not an object");
	json_decref(bad);
	json_decref(o);
	regression_free(r);
}

/* Retried boots and a bisect's revert in tide show's lines. */
TEST(dayrec__retries_and_revert_in_text)
{
	json_t *boot = json_pack("{s:s, s:[{s:s}], s:[s], s:[]}", "status", "passed",
				 "attempts", "status", "tests-failed", "flaky", "timer.jitter",
				 "tests");
	json_t *bis = json_pack("{s:s, s:{s:s}, s:s, s:s, s:s, s:{s:s, s:b}}", "outcome", "found",
				"check", "kind", "build", "tree", "gpio",
				"commit", "0123456789abcdef0123", "subject", "gpio: x",
				"revert", "how", "reverted", "confirmed", 0);
	struct day_boot *rb = NULL;
	struct day_bisect *rs = NULL;
	char *text;

	REQUIRE(day_boot_from_json(&rb, boot, "t") == 0 && day_bisect_from_json(&rs, bis, "t") == 0);
	text = day_boot_text(rb, NULL);
	CHECK_STR(text, "boot    passed\n"
			"        2 boots: the tests failed on the first 1\n"
			"        flaky: timer.jitter (failed on one boot, passed on another)\n");
	free(text);
	text = day_bisect_text(rs);
	CHECK_STR(text, "--build: found gpio 0123456789ab \"gpio: x\", not confirmed by revert "
			"(the day still fails) (0 builds, 0s)");
	free(text);
	day_boot_free(rb);
	day_bisect_free(rs);
	json_decref(boot);
	json_decref(bis);
}

TESTS(dayrec__regression_round_trip, dayrec__retries_and_revert_in_text,
      dayrec__build_and_boot_text_for_show, dayrec__bisect_text_one_line,
      dayrec__bisect_text_steps_builds_dropped, dayrec__build_round_trip, dayrec__full_record_has_every_always_key,
      dayrec__failed_stage_has_status_and_failure_only, dayrec__unknown_keys_kept,
      dayrec__wrong_types_refused, dayrec__absent_record_is_null, dayrec__dup_is_deep)
