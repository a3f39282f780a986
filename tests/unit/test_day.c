#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t.h"
#include "day.h"
#include "error.h"
#include "util.h"

static struct day *sample_day(void)
{
	struct day *d = day_new();
	struct day_tree *t;
	struct day_conflict *c;
	struct day_commit *k;

	d->date = xstrdup("2026-12-03");
	d->tag = xstrdup("next-20261203");
	d->status = xstrdup("complete");
	d->base_url = xstrdup("work/world/mainline.git");
	d->base_tag = xstrdup("v6.1.192");
	d->base_commit = xstrdup("1111111111111111111111111111111111111111");
	d->commit = xstrdup("2222222222222222222222222222222222222222");
	t = day_add_tree(d);
	t->name = xstrdup("fixes");
	t->status = TREE_MERGED;
	t->fetch_status = xstrdup("ok");
	t->fetch_seconds = 0.25;
	t->sha = xstrdup("3333333333333333333333333333333333333333");
	t = day_add_tree(d);
	t->name = xstrdup("gpio");
	t->status = TREE_CONFLICT;
	t->fetch_status = xstrdup("stale");
	t->fetch_error = xstrdup("cannot reach 'x'");
	c = day_tree_add_conflict(t);
	c->path = xstrdup("drivers/gpio/Kconfig");
	c->kind = xstrdup("content");
	day_conflict_add_hunk(c, "<<<<<<< a\nx\n=======\ny\n>>>>>>> b\n");
	k = day_conflict_add_commit(c, 0);
	k->id = xstrdup("4444");
	k->subject = xstrdup("gpio: fix \"quotes\" and \\ backslashes");
	k->tree = xstrdup("fixes");
	k = day_conflict_add_commit(c, 1);
	k->id = xstrdup("5555");
	k->author = xstrdup("A <a@b>");
	return d;
}

static void check_same(const struct day *a, const struct day *b)
{
	CHECK_STR(b->date, a->date);
	CHECK_STR(b->tag, a->tag);
	CHECK_STR(b->base_commit, a->base_commit);
	CHECK_STR(b->commit, a->commit);
	REQUIRE(b->ntrees == 2);
	CHECK_STR(b->trees[0].sha, a->trees[0].sha);
	CHECK(b->trees[0].fetch_seconds == 0.25);
	CHECK(b->trees[0].merge_commit == NULL);
	CHECK_STR(b->trees[1].fetch_error, "cannot reach 'x'");
	REQUIRE(b->trees[1].nconflicts == 1);
	CHECK_STR(b->trees[1].conflicts[0].path, "drivers/gpio/Kconfig");
	REQUIRE(b->trees[1].conflicts[0].nhunks == 1);
	CHECK_STR(b->trees[1].conflicts[0].hunks[0], a->trees[1].conflicts[0].hunks[0]);
	REQUIRE(b->trees[1].conflicts[0].nours == 1);
	CHECK_STR(b->trees[1].conflicts[0].ours[0].subject, a->trees[1].conflicts[0].ours[0].subject);
	CHECK_STR(b->trees[1].conflicts[0].ours[0].tree, "fixes");
	REQUIRE(b->trees[1].conflicts[0].ntheirs == 1);
	CHECK_STR(b->trees[1].conflicts[0].theirs[0].author, "A <a@b>");
}

TEST(day__round_trip_through_a_file)
{
	char dir[] = "/tmp/tide-test-day-XXXXXX";
	struct day *a = sample_day(), *b = NULL;
	char *path;

	REQUIRE(mkdtemp(dir) != NULL);
	path = path_join(dir, "day.json");
	CHECK(day_save(a, path) == 0);
	CHECK(day_load(&b, path) == 0);
	if (b)
		check_same(a, b);
	day_free(a);
	day_free(b);
	free(path);
	rm_rf(dir);
}

TEST(day__unknown_keys_survive)
{
	json_error_t jerr;
	json_t *in = json_loads("{\"version\":1,\"date\":\"2026-12-03\",\"trees\":["
				"{\"name\":\"x\",\"report\":\"r.txt\"}],\"matrix\":[1],"
				"\"build\":{\"status\":\"ok\",\"seconds\":40.5,\"arch\":\"arm64\"}}",
				0, &jerr);
	json_t *out = NULL;
	struct day *d = NULL;

	REQUIRE(in != NULL);
	REQUIRE(day_from_json(&d, in, "test") == 0);
	REQUIRE(d->build != NULL);
	CHECK_STR(d->build->status, "ok");
	CHECK(d->build->seconds == 40.5);
	CHECK(d->extra && json_object_get(d->extra, "matrix"));
	CHECK(json_object_get(d->extra, "build") == NULL);
	day_to_json(&out, d);
	/* the record's own unknown key too */
	CHECK(json_equal(json_object_get(out, "build"), json_object_get(in, "build")));
	CHECK(json_equal(json_object_get(out, "matrix"), json_object_get(in, "matrix")));
	CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(out, "trees"), 0),
						    "report")), "r.txt");
	json_decref(in);
	json_decref(out);
	day_free(d);
}

/* The later stages' records are typed: a key of the wrong type is an error naming it. */
/* A day record with the keys bad is refused as t.json with the error want. */
static void check_refused(const char *bad, const char *want)
{
	char *text = xasprintf("{\"version\":1,\"date\":\"2026-12-03\",\"trees\":[],%s}", bad);
	json_error_t jerr;
	json_t *in = json_loads(text, 0, &jerr);
	struct day *d = (struct day *)1;

	free(text);
	REQUIRE(in != NULL);
	CHECK_INT(day_from_json(&d, in, "t.json"), TIDE_EINVAL);
	CHECK(d == NULL);
	CHECK_STR(tide_error_last(), want);
	tide_error_clear();
	json_decref(in);
}

TEST(day__stage_records_are_typed)
{
	static const char *const bad[] = {
		"\"build\":{\"status\":3}",
		"\"boot\":{\"smp\":\"four\"}",
		"\"bisect\":[]",
	};
	static const char *const want[] = {
		"t.json: \"build\": \"status\" is not a string",
		"t.json: \"boot\": \"smp\" is not an integer",
		"t.json: \"bisect\" is not an object",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		check_refused(bad[i], want[i]);
}

/* A tree's build after its merge (build-each-merge) is typed too. */
TEST(day__tree_build_record)
{
	json_error_t jerr;
	json_t *in = json_loads("{\"version\":1,\"date\":\"2026-12-03\",\"trees\":["
				"{\"name\":\"x\",\"build\":{\"status\":\"failed\",\"failure\":\"make\"}}]}",
				0, &jerr), *out = NULL;
	struct day *d = NULL;

	REQUIRE(in && day_from_json(&d, in, "test") == 0);
	REQUIRE(d->trees[0].build != NULL);
	CHECK_STR(d->trees[0].build->failure, "make");
	CHECK(d->trees[0].extra == NULL);
	day_to_json(&out, d);
	CHECK(json_equal(json_object_get(json_array_get(json_object_get(out, "trees"), 0), "build"),
			 json_object_get(json_array_get(json_object_get(in, "trees"), 0), "build")));
	json_decref(in);
	json_decref(out);
	day_free(d);
}

/* The other configurations' records: typed, in order, written back as read; bad ones refused. */
TEST(day__config_records)
{
	static const char *const bad[] = {
		"\"configs\":{}",
		"\"configs\":[{\"build\":{}}]",
		"\"configs\":[{\"name\":\"up\"},{\"name\":\"up\"}]",
		"\"configs\":[{\"name\":\"up\",\"build\":{\"arch\":1}}]",
	};
	static const char *const want[] = {
		"t.json: \"configs\" is not a list",
		"t.json: configs[0] has no name",
		"t.json: configuration 'up' recorded twice",
		"t.json: \"build\": \"arch\" is not a string",
	};
	json_error_t jerr;
	json_t *in = json_loads("{\"version\":1,\"date\":\"2026-12-03\",\"trees\":[],"
				"\"build\":{\"status\":\"ok\",\"config\":\"smoke\",\"arch\":\"x86_64\"},"
				"\"configs\":[{\"name\":\"up\",\"build\":{\"status\":\"ok\","
				"\"config\":\"up\",\"arch\":\"x86_64\"}},"
				"{\"name\":\"arm64\",\"build\":{\"status\":\"failed\",\"failure\":\"no gcc\"},"
				"\"boot\":{\"status\":\"skipped\"}}]}", 0, &jerr), *out = NULL;
	struct day *d = NULL;
	size_t i;

	REQUIRE(in && day_from_json(&d, in, "t.json") == 0);
	CHECK_STR(d->build->config, "smoke");
	REQUIRE(d->nconfigs == 2);
	CHECK_STR(d->configs[0].name, "up");
	CHECK_STR(d->configs[0].build->arch, "x86_64");
	CHECK(d->configs[0].boot == NULL);
	CHECK_STR(d->configs[1].build->failure, "no gcc");
	CHECK_STR(d->configs[1].boot->status, "skipped");
	CHECK(day_find_config(d, "arm64") == &d->configs[1]);
	CHECK(day_find_config(d, "smoke") == NULL);
	CHECK(d->extra == NULL);
	day_to_json(&out, d);
	CHECK(json_equal(json_object_get(out, "configs"), json_object_get(in, "configs")));
	CHECK(day_config_get(d, "up") == &d->configs[0]);
	CHECK_STR(day_config_get(d, "defmod")->name, "defmod");
	CHECK_INT((int)d->nconfigs, 3);
	json_decref(in);
	json_decref(out);
	day_free(d);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		check_refused(bad[i], want[i]);
}

/* The handling keys are typed: read into struct day_handling, written back under their names, only when set. */
TEST(day__handling_is_typed_and_written_back)
{
	json_error_t jerr;
	json_t *in = json_loads("{\"version\":1,\"date\":\"2026-12-03\",\"trees\":["
				"{\"name\":\"x\",\"handled\":\"previous\",\"attempted_sha\":\"abc\","
				"\"version_from\":\"next-20261202\",\"rejected\":\"bad tree\","
				"\"resolutions\":[{\"path\":\"a.c\",\"id\":\"r1\",\"diff\":\"-a\\n+b\\n\"}],"
				"\"resolution_errors\":[\"b.c: broken\"],\"fixup_commit\":\"def\","
				"\"fixups\":[\"1.patch\",\"2.patch\"]},{\"name\":\"y\"}]}", 0, &jerr);
	json_t *out = NULL, *t;
	struct day *d = NULL;
	const struct day_handling *h;

	REQUIRE(in != NULL);
	REQUIRE(day_from_json(&d, in, "test") == 0);
	h = &d->trees[0].handling;
	CHECK_STR(h->handled, "previous");
	CHECK_STR(h->attempted_sha, "abc");
	CHECK_STR(h->version_from, "next-20261202");
	CHECK_STR(h->rejected, "bad tree");
	CHECK(h->reason == NULL && h->fixup_error == NULL);
	REQUIRE(h->nresolutions == 1);
	CHECK_STR(h->resolutions[0].diff, "-a\n+b\n");
	REQUIRE(h->nresolution_errors == 1 && h->nfixups == 2);
	CHECK_STR(h->fixups[1], "2.patch");
	CHECK(d->trees[0].extra == NULL);	/* none of them is left untyped */
	day_to_json(&out, d);
	t = json_array_get(json_object_get(out, "trees"), 0);
	json_object_del(t, "type");	/* what day.c adds to every tree */
	CHECK(json_equal(json_object_get(t, "resolutions"),
			 json_object_get(json_array_get(json_object_get(in, "trees"), 0), "resolutions")));
	CHECK_STR(json_string_value(json_object_get(t, "fixup_commit")), "def");
	CHECK_INT((int)json_array_size(json_object_get(t, "fixups")), 2);
	t = json_array_get(json_object_get(out, "trees"), 1);
	CHECK(json_object_get(t, "handled") == NULL && json_object_get(t, "fixups") == NULL);
	json_decref(in);
	json_decref(out);
	day_free(d);
}

TEST(day__bad_records_are_refused)
{
	char dir[] = "/tmp/tide-test-day-XXXXXX";
	struct day *d = NULL;
	char *path;

	REQUIRE(mkdtemp(dir) != NULL);
	path = path_join(dir, "day.json");
	CHECK_INT(day_load(&d, path), TIDE_ENOTFOUND);
	file_write_atomic(path, "{\"version\":1, \"date\":", 21);
	CHECK_INT(day_load(&d, path), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), path) != NULL);
	file_write_atomic(path, "[1,2]", 5);
	CHECK_INT(day_load(&d, path), TIDE_EINVAL);
	file_write_atomic(path, "{\"version\":9,\"date\":\"x\",\"trees\":[]}", 35);
	CHECK_INT(day_load(&d, path), TIDE_EINVAL);
	CHECK(d == NULL);
	free(path);
	rm_rf(dir);
}

TEST(day__dates_and_tags)
{
	char *tag = day_tag_for("2026-12-03");

	CHECK_STR(tag, "next-20261203");
	free(tag);
	CHECK(day_date_is_valid("2026-12-03"));
	CHECK(day_date_is_valid("2024-02-29"));
	CHECK(!day_date_is_valid("2026-02-29"));
	CHECK(!day_date_is_valid("2026-13-01"));
	CHECK(!day_date_is_valid("2026-1-01"));
	CHECK(!day_date_is_valid("2026-12-03x"));
	CHECK(!day_date_is_valid("../../etc"));
	CHECK(!day_date_is_valid(""));
}

TEST(day__one_converter_for_names)
{
	static const char *const good[][2] = {
		{ "2026-12-03", "2026-12-03" }, { "next-20261203", "2026-12-03" },
		{ "20261203", "2026-12-03" }, { "next-20240229", "2024-02-29" },
	};
	static const char *const bad[] = {
		"next-2026120", "next-20260229", "next-2026-12-03", "2026-1203", "yesterday",
		"", "next-", "202612031", "2026-12-03x",
	};
	char date[11], *s;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		memset(date, 'x', sizeof(date));
		CHECK_INT(day_date_parse(date, good[i][0]), 0);
		CHECK_STR(date, good[i][1]);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		CHECK_INT(day_date_parse(date, bad[i]), TIDE_EINVAL);
		CHECK(strstr(tide_error_last(), "bad date") != NULL);
		tide_error_clear();
	}
	s = day_date_compact("2026-12-03");
	CHECK_STR(s, "20261203");
	free(s);
}

TEST(day__tree_status_names_and_the_day)
{
	enum tree_status st;
	int i, in = 0;

	/* Every status round-trips through its name; only three are in the day. */
	for (i = TREE_MERGED; i <= TREE_REJECTED; i++) {
		CHECK(tree_status_name((enum tree_status)i) != NULL);
		CHECK_INT(tree_status_parse(&st, tree_status_name((enum tree_status)i)), 0);
		CHECK_INT(st, i);
		in += tree_status_in_day((enum tree_status)i);
	}
	CHECK_INT(in, 3);
	CHECK(tree_status_in_day(TREE_PREVIOUS));
	CHECK(!tree_status_in_day(TREE_CONFLICT));
	CHECK(!tree_status_in_day(TREE_STATUS_NONE));
	CHECK(tree_status_name(TREE_STATUS_NONE) == NULL);
	CHECK_INT(tree_status_parse(&st, NULL), 0);
	CHECK_INT(st, TREE_STATUS_NONE);
	CHECK_INT(tree_status_parse(&st, "Merged"), -1);
	CHECK_STR(tree_status_name(TREE_UP_TO_DATE), "up-to-date");
	CHECK_STR(tree_status_name(TREE_PATCH_FAILED), "patch-failed");
}

/* An unknown status is refused, naming the file, the tree and the key; null loads as none. */
TEST(day__unknown_tree_status_is_refused)
{
	static const char head[] = "{\"version\":1,\"date\":\"2026-12-03\",\"trees\":[";
	char dir[] = "/tmp/tide-test-day-XXXXXX";
	struct day *d = NULL;
	struct buf b = BUF_INIT;
	char *path;

	REQUIRE(mkdtemp(dir) != NULL);
	path = path_join(dir, "day.json");
	buf_printf(&b, "%s{\"name\":\"a\",\"status\":\"merged\"},"
		   "{\"name\":\"gpio\",\"status\":\"half-merged\"}]}", head);
	file_write_atomic(path, b.ptr, b.len);
	CHECK_INT(day_load(&d, path), TIDE_EINVAL);
	CHECK(d == NULL);
	CHECK(strstr(tide_error_last(), path) != NULL);
	CHECK(strstr(tide_error_last(), "trees[1] ('gpio'): \"status\" is not a tree status") != NULL);
	tide_error_clear();
	buf_clear(&b);
	buf_printf(&b, "%s{\"name\":\"a\",\"status\":7}]}", head);
	file_write_atomic(path, b.ptr, b.len);
	CHECK_INT(day_load(&d, path), TIDE_EINVAL);
	tide_error_clear();
	buf_clear(&b);
	buf_printf(&b, "%s{\"name\":\"a\",\"status\":null},{\"name\":\"b\"},"
		   "{\"name\":\"c\",\"status\":\"previous\"}]}", head);
	file_write_atomic(path, b.ptr, b.len);
	CHECK_INT(day_load(&d, path), 0);
	REQUIRE(d != NULL);
	CHECK_INT(d->trees[0].status, TREE_STATUS_NONE);
	CHECK_INT(d->trees[1].status, TREE_STATUS_NONE);
	CHECK_INT(d->trees[2].status, TREE_PREVIOUS);
	day_free(d);
	buf_release(&b);
	free(path);
	rm_rf(dir);
}

static void make_day(const char *days, const char *name)
{
	char *dir = path_join(days, name), *rec = path_join(dir, "day.json");

	mkdir_p(dir, 0777);
	file_write_atomic(rec, "{}", 2);
	free(rec);
	free(dir);
}

TEST(day__list_is_sorted_and_skips_temporaries)
{
	char dir[] = "/tmp/tide-test-day-XXXXXX";
	char **dates = NULL;
	int n;

	REQUIRE(mkdtemp(dir) != NULL);
	make_day(dir, "2026-12-03");
	make_day(dir, "2026-11-30");
	make_day(dir, ".tmp-2026-12-04-123");
	mkdir_p(dir, 0777);
	{
		char *empty = path_join(dir, "2026-12-05");	/* no day.json: unfinished */
		mkdir_p(empty, 0777);
		free(empty);
	}
	n = day_list(&dates, dir);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_STR(dates[0], "2026-11-30");
		CHECK_STR(dates[1], "2026-12-03");
	}
	day_list_free(dates, n);
	rm_rf(dir);
}

TEST(day__install_replaces_atomically)
{
	char dir[] = "/tmp/tide-test-day-XXXXXX";
	struct buf b = BUF_INIT;
	char *tmp, *rec;

	REQUIRE(mkdtemp(dir) != NULL);
	make_day(dir, "2026-12-03");
	tmp = path_join(dir, ".tmp-new");
	mkdir_p(tmp, 0777);
	rec = path_join(tmp, "day.json");
	file_write_atomic(rec, "new", 3);
	free(rec);
	CHECK(day_install(dir, "2026-12-03", tmp) == 0);
	CHECK(!path_exists(tmp));
	rec = path_join(dir, "2026-12-03/day.json");
	CHECK(file_read(&b, rec) == 0);
	CHECK_STR(buf_cstr(&b), "new");
	free(rec);
	free(tmp);
	buf_release(&b);
	rm_rf(dir);
}

TEST(day__conflicts_with_names_each_tree_once)
{
	struct day *d = day_new();
	struct day_tree *t = day_add_tree(d);
	struct day_conflict *c1, *c2;
	const char *who[][2] = { { "a.c", "fixes" }, { "a.c", "mainline" }, { "b.c", "net" },
				 { "b.c", "fixes" }, { "b.c", NULL } };
	const char *names[2];
	size_t i;

	/* day_tree_add_conflict() may move the array: take both pointers after. */
	day_tree_add_conflict(t);
	day_tree_add_conflict(t);
	c1 = &t->conflicts[0];
	c2 = &t->conflicts[1];
	for (i = 0; i < ARRAY_SIZE(who); i++) {
		struct day_commit *k = day_conflict_add_commit(i < 2 ? c1 : c2, 0);

		k->tree = who[i][1] ? xstrdup(who[i][1]) : NULL;
	}
	day_conflict_add_commit(c2, 1)->tree = xstrdup("theirs-side");
	CHECK_INT(day_tree_conflicts_with(t, names, 2), 2);
	CHECK_STR(names[0], "fixes");
	CHECK_STR(names[1], "net");
	CHECK_INT(day_tree_conflicts_with(t, names, 1), 1);
	CHECK_STR(names[0], "fixes");
	day_free(d);
}

/* days/DATE/day.json from sample_day(), its tag naming the date. */
static void save_day(const char *days, const char *date, enum tree_status status)
{
	struct day *d = sample_day();
	char *dir = path_join(days, date), *rec = path_join(dir, "day.json");

	free(d->date);
	d->date = xstrdup(date);
	d->trees[0].status = status;
	mkdir_p(dir, 0777);
	CHECK(day_save(d, rec) == 0);
	day_free(d);
	free(rec);
	free(dir);
}

static int first_tree_merged(const struct day *d, void *data)
{
	(void)data;
	return d->ntrees && d->trees[0].status == TREE_MERGED;
}

TEST(day__open_and_previous)
{
	char dir[] = "/tmp/tide-test-day-XXXXXX";
	struct day *d = NULL;

	REQUIRE(mkdtemp(dir) != NULL);
	save_day(dir, "2026-12-01", TREE_MERGED);
	save_day(dir, "2026-12-02", TREE_CONFLICT);
	make_day(dir, "2026-12-03");	/* does not load: passed over */
	save_day(dir, "2026-12-04", TREE_MERGED);
	CHECK(day_open(&d, dir, "2026-12-02") == 0);
	CHECK_STR(d ? d->date : NULL, "2026-12-02");
	day_free(d);
	CHECK(day_open(&d, dir, "2026-12-09") == TIDE_ENOTFOUND);
	CHECK(d == NULL);
	CHECK(strstr(tide_error_last(), "no day 2026-12-09") != NULL);
	tide_error_clear();

	CHECK_INT(day_previous(&d, dir, "2026-12-04", 0, NULL, NULL), 1);
	CHECK_STR(d ? d->date : NULL, "2026-12-02");
	day_free(d);
	CHECK_INT(day_previous(&d, dir, "2026-12-04", 1, NULL, NULL), 1);
	CHECK_STR(d ? d->date : NULL, "2026-12-04");
	day_free(d);
	CHECK_INT(day_previous(&d, dir, "2026-12-04", 0, first_tree_merged, NULL), 1);
	CHECK_STR(d ? d->date : NULL, "2026-12-01");
	day_free(d);
	CHECK_INT(day_previous(&d, dir, "2026-12-01", 0, NULL, NULL), 0);
	CHECK(d == NULL);
	rm_rf(dir);
	CHECK_INT(day_previous(&d, dir, "2026-12-01", 1, NULL, NULL), 0);
}

TEST(day__counts_by_outcome)
{
	struct day *d = sample_day();	/* fixes merged; gpio conflict, stale */
	struct day_counts c;
	const enum tree_status more[] = {
		TREE_UP_TO_DATE, TREE_PREVIOUS, TREE_FETCH_FAILED, TREE_DROPPED
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(more); i++)
		day_add_tree(d)->status = more[i];
	day_add_tree(d);	/* no status at all: not merged */
	day_counts(&c, d);
	CHECK_INT(c.trees, 7);
	CHECK_INT(c.merged, 3);
	CHECK_INT(c.previous, 1);
	CHECK_INT(c.conflicts, 1);
	CHECK_INT(c.not_merged, 3);
	CHECK_INT(c.stale, 1);
	CHECK_INT(c.unapplied, 0);
	day_free(d);
}

/* A quilt tree whose series did not apply, merged at an older commit: counted apart, and kept. */
TEST(day__counts_unapplied_apart_from_stale)
{
	struct day *d = sample_day(), *back = NULL;
	struct day_tree *t = day_add_tree(d);
	struct day_counts c;
	json_t *j = NULL;

	t->name = xstrdup("mm");
	t->status = TREE_MERGED;
	t->fetch_status = xstrdup("stale");
	t->fetch_patch_failed = 1;
	day_counts(&c, d);
	CHECK_INT(c.stale, 1);
	CHECK_INT(c.unapplied, 1);
	CHECK_INT(c.merged, 2);
	day_to_json(&j, d);
	CHECK(json_is_true(json_object_get(json_object_get(json_array_get(
		json_object_get(j, "trees"), 2), "fetch"), "patch_failed")));
	CHECK(!json_object_get(json_object_get(json_array_get(json_object_get(j, "trees"), 1),
						   "fetch"), "patch_failed"));
	CHECK_INT(day_from_json(&back, j, "day.json"), 0);
	REQUIRE(back != NULL);
	CHECK(back->trees[2].fetch_patch_failed);
	CHECK(!back->trees[1].fetch_patch_failed);
	CHECK(!back->trees[2].extra);
	day_free(back);
	json_decref(j);
	day_free(d);
}

/* A tree based on linux-next: "next_base" is typed, written back whole, negative counts read as 0. */
TEST(day__next_base_is_typed)
{
	json_t *in = json_loads("{\"version\":1,\"date\":\"2026-12-03\",\"trees\":["
				"{\"name\":\"mm\",\"next_base\":{\"day\":\"next-20261202\","
				"\"commit\":\"abc\",\"commits\":3,\"applied\":1,\"empty\":0,"
				"\"failed\":{\"position\":2,\"commit\":\"def\",\"subject\":\"mm: x\"}}},"
				"{\"name\":\"y\",\"next_base\":{\"day\":\"next-20261202\",\"commits\":-4}}]}",
				0, NULL);
	json_t *out = NULL, *t;
	struct day *d = NULL;
	const struct day_next_base *nb;

	REQUIRE(in != NULL);
	REQUIRE(day_from_json(&d, in, "test") == 0);
	nb = &d->trees[0].handling.next_base;
	CHECK_STR(nb->day, "next-20261202");
	CHECK(nb->commits == 3 && nb->applied == 1 && nb->empty == 0 && nb->failed == 2);
	CHECK_STR(nb->failed_subject, "mm: x");
	CHECK(d->trees[0].extra == NULL);
	CHECK(d->trees[1].handling.next_base.commits == 0);
	day_to_json(&out, d);
	t = json_array_get(json_object_get(out, "trees"), 0);
	CHECK(json_equal(json_object_get(t, "next_base"),
			 json_object_get(json_array_get(json_object_get(in, "trees"), 0), "next_base")));
	json_decref(in);
	json_decref(out);
	day_free(d);
}

/* A tree's "moved" is typed, a wrong type refused; every bisect of a day is kept, bounded. */
TEST(day__moved_and_earlier_bisects)
{
	json_error_t jerr;
	json_t *in = json_loads("{\"version\":1,\"date\":\"2026-12-03\",\"trees\":["
				"{\"name\":\"x\",\"moved\":{\"since\":\"2026-12-02\",\"from\":\"ab\","
				"\"ahead\":10,\"behind\":8,\"rewound\":true,\"dropped\":1,"
				"\"rebased\":7,\"added\":3}}],"
				"\"bisect\":{\"outcome\":\"found\"},"
				"\"earlier_bisects\":[{\"outcome\":\"range\"}]}", 0, &jerr), *out = NULL;
	json_t *bad = json_loads("{\"version\":1,\"date\":\"2026-12-03\",\"trees\":["
				 "{\"name\":\"x\",\"moved\":{\"ahead\":\"ten\"}}]}", 0, &jerr);
	struct day *d = NULL;
	size_t i;

	REQUIRE(in && bad && day_from_json(&d, in, "t.json") == 0);
	REQUIRE(d->trees[0].moved != NULL);
	CHECK_INT(d->trees[0].moved->rebased, 7);
	CHECK_INT(d->trees[0].moved->added, 3);
	CHECK(d->trees[0].extra == NULL);
	CHECK_INT(d->nearlier_bisects, 1);
	day_to_json(&out, d);
	CHECK(json_equal(json_object_get(json_array_get(json_object_get(out, "trees"), 0), "moved"),
			 json_object_get(json_array_get(json_object_get(in, "trees"), 0), "moved")));
	CHECK(json_equal(json_object_get(out, "earlier_bisects"),
			 json_object_get(in, "earlier_bisects")));
	json_decref(out);
	for (i = 0; i < DAY_MAX_BISECTS + 3; i++) {
		struct day_bisect *b = day_bisect_full();

		b->outcome = xasprintf("b%zu", i);
		day_add_bisect(d, b);
	}
	CHECK_STR(d->bisect->outcome, "b34");
	CHECK_INT(d->nearlier_bisects, DAY_MAX_BISECTS);
	CHECK_STR(d->earlier_bisects[DAY_MAX_BISECTS - 1]->outcome, "b33");
	CHECK_STR(d->earlier_bisects[0]->outcome, "b2");
	day_free(d);
	d = NULL;
	CHECK_INT(day_from_json(&d, bad, "t.json"), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "t.json: \"moved\": \"ahead\" is not an integer");
	json_decref(in);
	json_decref(bad);
}

TESTS(day__round_trip_through_a_file, day__unknown_keys_survive, day__moved_and_earlier_bisects, day__next_base_is_typed,
      day__stage_records_are_typed, day__tree_build_record, day__config_records,
      day__handling_is_typed_and_written_back, day__bad_records_are_refused,
      day__dates_and_tags, day__list_is_sorted_and_skips_temporaries,
      day__install_replaces_atomically, day__conflicts_with_names_each_tree_once,
      day__open_and_previous, day__counts_by_outcome, day__one_converter_for_names,
      day__tree_status_names_and_the_day, day__unknown_tree_status_is_refused,
      day__counts_unapplied_apart_from_stale, day__next_base_is_typed)
