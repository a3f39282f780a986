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

TESTS(dayrec__build_round_trip, dayrec__full_record_has_every_always_key,
      dayrec__failed_stage_has_status_and_failure_only, dayrec__unknown_keys_kept,
      dayrec__wrong_types_refused, dayrec__absent_record_is_null, dayrec__dup_is_deep)
