#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "day.h"
#include "kcidb.h"
#include "util.h"

TEST(kcidb__origin_pattern)
{
	CHECK(kcidb_origin_valid("tide"));
	CHECK(kcidb_origin_valid("next_2026"));
	CHECK(!kcidb_origin_valid(""));
	CHECK(!kcidb_origin_valid(NULL));
	CHECK(!kcidb_origin_valid("Tide"));
	CHECK(!kcidb_origin_valid("tide-ci"));
	CHECK(!kcidb_origin_valid("tide:x"));
}

TEST(kcidb__path_components_keep_kcidb_characters)
{
	char *p = kcidb_path_component("edge events/rising", 18);

	CHECK_STR(p, "edge_events_rising");
	free(p);
	p = kcidb_path_component("", 0);
	CHECK_STR(p, "_");
	free(p);
	p = kcidb_path_component("a-b_C9", 6);
	CHECK_STR(p, "a-b_C9");
	free(p);
	p = kcidb_path_component("\xc3\xa9t\xc3\xa9", 5);
	CHECK_STR(p, "__t__");
	free(p);
}

/* A day with no trees and no build: one checkout, nothing else, no nulls. */
TEST(kcidb__bare_day_has_one_checkout_and_bad_options_fail)
{
	struct day *d = day_new();
	struct kcidb_opts o = { .origin = "tide" };
	json_t *doc = NULL;

	d->date = xstrdup("2026-12-01");
	d->tag = xstrdup("next-20261201");
	CHECK(kcidb_day(&doc, d, &o) == 0);
	CHECK(json_array_size(json_object_get(doc, "checkouts")) == 1);
	CHECK(json_array_size(json_object_get(doc, "builds")) == 0);
	CHECK(json_array_size(json_object_get(doc, "tests")) == 0);
	CHECK_STR(json_string_value(json_object_get(
		json_array_get(json_object_get(doc, "checkouts"), 0), "id")), "tide:next-20261201");
	CHECK(json_is_false(json_object_get(
		json_array_get(json_object_get(doc, "checkouts"), 0), "valid")));
	json_decref(doc);
	o.origin = "Bad";
	CHECK(kcidb_day(&doc, d, &o) < 0 && !doc);
	o.origin = "tide";
	o.url_base = "https://x.example/";
	CHECK(kcidb_day(&doc, d, &o) < 0 && !doc);
	day_free(d);
}

TESTS(kcidb__origin_pattern, kcidb__path_components_keep_kcidb_characters,
      kcidb__bare_day_has_one_checkout_and_bad_options_fail)
