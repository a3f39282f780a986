#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "buf.h"
#include "day.h"
#include "error.h"
#include "mail.h"
#include "regress.h"
#include "util.h"
#include "workspace.h"

static const struct regress_settings S = { 0.1, 14 };

/*
 * A day from JSON: date, then the "build" and "boot" records (NULL: not
 * built, not booted), and more top-level keys as a JSON text (or NULL).
 */
static struct day *mkday(const char *date, const char *build, const char *boot, const char *more)
{
	struct buf b = BUF_INIT;
	json_error_t jerr;
	json_t *j;
	struct day *d = NULL;
	char *tag = day_tag_for(date);

	buf_printf(&b, "{\"version\": 1, \"date\": \"%s\", \"tag\": \"%s\", \"trees\": [],"
		   " \"base\": {\"tag\": \"v1.0\"}", date, tag);
	if (build)
		buf_printf(&b, ", \"build\": %s", build);
	if (boot)
		buf_printf(&b, ", \"boot\": %s", boot);
	if (more)
		buf_printf(&b, ", %s", more);
	buf_puts(&b, "}");
	j = json_loads(buf_cstr(&b), 0, &jerr);
	if (!j)
		fprintf(stderr, "  bad test JSON: %s: %s\n", jerr.text, buf_cstr(&b));
	else if (day_from_json(&d, j, "test") < 0)
		fprintf(stderr, "  %s\n", tide_error_last());
	json_decref(j);
	buf_release(&b);
	free(tag);
	return d;
}

#define OK_BUILD "{\"status\": \"ok\", \"errors\": [], \"warnings\": [], \"new_warnings\": []}"

/* A boot whose guest ran gpio.a and gpio.b: each "ok" or "not ok"; flaky a JSON list or NULL. */
static char *boot_rec(const char *a, const char *b, const char *flaky)
{
	int fa = !strcmp(a, "not ok"), fb = !strcmp(b, "not ok");

	return xasprintf("{\"status\": \"%s\", \"tests\": [{\"name\": \"gpio\", \"ok\": %s},"
			 " {\"name\": \"gpio.a\", \"ok\": %s}, {\"name\": \"gpio.b\", \"ok\": %s},"
			 " {\"name\": \"gpio.s\", \"ok\": true, \"directive\": \"SKIP\"}]%s%s}",
			 fa || fb ? "tests-failed" : "passed", fa || fb ? "false" : "true",
			 fa ? "false" : "true", fb ? "false" : "true",
			 flaky ? ", \"flaky\": " : "", flaky ? flaky : "");
}

static void fold(struct regress_list *l, const char *date, const char *build, const char *a,
		 const char *b, const char *flaky, struct buf *changes)
{
	char *boot = a ? boot_rec(a, b, flaky) : NULL;
	struct day *d = mkday(date, build, boot, NULL);

	if (d)
		regress_fold_day(l, d, &S, changes);
	day_free(d);
	free(boot);
}

static const struct regression *entry(const struct regress_list *l, const char *key)
{
	size_t i;

	for (i = l->n; i-- > 0;)
		if (!strcmp(l->items[i]->key, key))
			return l->items[i];
	return NULL;
}

TEST(regress__a_day_results_named_across_days)
{
	struct day *d = mkday("2026-01-02",
		"{\"status\": \"failed\", \"failure\": \"make failed\", \"errors\": ["
		"{\"file\": \"g.c\", \"line\": 3, \"message\": \"x undeclared\"},"
		"{\"file\": \"g.c\", \"line\": 9, \"message\": \"x undeclared\"}],"
		" \"warnings\": [], \"new_warnings\": []}", NULL,
		"\"configs\": [{\"name\": \"arm64\", \"build\": {\"status\": \"ok\", \"arch\": \"arm64\","
		" \"errors\": [], \"warnings\": [{\"file\": \"m.c\", \"message\": \"old\"}],"
		" \"new_warnings\": [{\"file\": \"n.c\", \"message\": \"new\"}]},"
		" \"boot\": {\"status\": \"panic\", \"reason\": \"Kernel panic\", \"tests\": []}},"
		" {\"name\": \"up\", \"build\": {\"status\": \"failed\", \"failure\": \"no fragment\"}}]");
	json_t *r;
	const char *k;
	json_t *v;
	struct buf all = BUF_INIT;

	REQUIRE(d != NULL);
	r = regress_day_results(d);
	json_object_foreach(r, k, v)
		buf_printf(&all, "%s %s%s\n", k, json_string_value(json_object_get(v, "outcome")),
			   json_is_true(json_object_get(v, "opens")) ? "" : " (not new)");
	/* The error's line is not its name; a build tide could not run says nothing. */
	CHECK_STR(buf_cstr(&all),
		  "build:smoke/x86_64:build fail (not new)\n"
		  "build:smoke/x86_64:g.c: x undeclared fail\n"
		  "build:arm64/arm64:build pass (not new)\n"
		  "warning:arm64/arm64:n.c: new fail\n"
		  "warning:arm64/arm64:m.c: old fail (not new)\n"
		  "boot:arm64/arm64:boot fail\n");
	CHECK_STR(json_string_value(json_object_get(json_object_get(r,
		  "build:smoke/x86_64:g.c: x undeclared"), "detail")), "g.c:3: x undeclared");
	json_decref(r);
	day_free(d);
	buf_release(&all);
}

TEST(regress__new_still_failing_fixed_each_said_once)
{
	struct regress_list *l = regress_list_new();
	struct buf ch = BUF_INIT;
	const struct regression *e;

	fold(l, "2026-01-01", OK_BUILD, "ok", "ok", NULL, &ch);
	fold(l, "2026-01-02", OK_BUILD, "not ok", "ok", NULL, &ch);
	fold(l, "2026-01-03", OK_BUILD, "not ok", "ok", NULL, &ch);
	/* Not booted: a day that says nothing about the test. */
	fold(l, "2026-01-04", OK_BUILD, NULL, NULL, NULL, &ch);
	e = entry(l, "test:smoke/x86_64:gpio.a");
	REQUIRE(e != NULL);
	CHECK_STR(e->state, "still-failing");
	CHECK_STR(e->first_bad, "2026-01-02");
	CHECK_STR(e->last_good, "2026-01-01");
	CHECK_STR(e->last_good_tag, "next-20260101");
	CHECK_STR(e->last_bad, "2026-01-03");
	CHECK_INT(e->bad_days, 2);
	fold(l, "2026-01-05", OK_BUILD, "ok", "ok", NULL, &ch);
	CHECK_STR(e->state, "fixed");
	CHECK_STR(e->fixed, "2026-01-05");
	CHECK_STR(l->through, "2026-01-05");
	CHECK_INT(l->n, 1);
	CHECK_STR(buf_cstr(&ch), "new: test smoke (x86_64) gpio.a since next-20260102\n"
		  "fixed: test smoke (x86_64) gpio.a, failing since next-20260102\n");
	/* Failing again after the fix: a new regression, not the old one. */
	fold(l, "2026-01-06", OK_BUILD, "not ok", "ok", NULL, NULL);
	REQUIRE(l->n == 2);
	CHECK_STR(l->items[1]->state, "new");
	CHECK_STR(l->items[1]->last_good, "2026-01-05");
	CHECK(strcmp(l->items[0]->id, l->items[1]->id) != 0);
	regress_list_free(l);
	buf_release(&ch);
}

TEST(regress__flaky_by_its_history_not_a_regression)
{
	struct regress_list *l = regress_list_new();
	const struct regression *e;
	struct regress_settings strict = { 0.6, 14 };

	fold(l, "2026-01-01", OK_BUILD, "ok", "ok", "[\"gpio.b\"]", NULL);
	e = entry(l, "test:smoke/x86_64:gpio.b");
	REQUIRE(e != NULL);
	CHECK_STR(e->state, "flaky");
	CHECK(e->score == 1.0);
	fold(l, "2026-01-02", OK_BUILD, "ok", "ok", NULL, NULL);
	fold(l, "2026-01-03", OK_BUILD, "ok", "not ok", NULL, NULL);
	/* 1 mixed day of 3: over 0.1, so failing every boot is still flaky. */
	CHECK_STR(e->state, "flaky");
	CHECK_INT(l->n, 1);
	regress_list_free(l);

	/* The same history with a threshold it does not reach: a regression. */
	l = regress_list_new();
	{
		char *b1 = boot_rec("ok", "ok", NULL), *b2 = boot_rec("ok", "ok", "[\"gpio.b\"]");
		char *b3 = boot_rec("ok", "not ok", NULL);
		struct day *d1 = mkday("2026-01-01", OK_BUILD, b1, NULL);
		struct day *d2 = mkday("2026-01-02", OK_BUILD, b2, NULL);
		struct day *d3 = mkday("2026-01-03", OK_BUILD, b3, NULL);

		regress_fold_day(l, d1, &strict, NULL);
		regress_fold_day(l, d2, &strict, NULL);
		CHECK_INT(l->n, 0);	/* one flake in two days, under 0.6: nothing opened */
		regress_fold_day(l, d3, &strict, NULL);
		CHECK_INT(l->n, 1);
		CHECK_STR(l->items[0]->state, "new");
		day_free(d1);
		day_free(d2);
		day_free(d3);
		free(b1);
		free(b2);
		free(b3);
	}
	regress_list_free(l);
}

TEST(regress__warnings_open_only_when_new_and_close_only_on_a_build_that_passed)
{
	struct regress_list *l = regress_list_new();
	const char *w1 = "{\"status\": \"ok\", \"errors\": [], \"warnings\": [{\"file\": \"a.c\","
		" \"message\": \"old\"}], \"new_warnings\": []}";
	const char *w2 = "{\"status\": \"ok\", \"errors\": [], \"warnings\": [{\"file\": \"a.c\","
		" \"message\": \"old\"}, {\"file\": \"b.c\", \"line\": 4, \"message\": \"new\"}],"
		" \"new_warnings\": [{\"file\": \"b.c\", \"line\": 4, \"message\": \"new\"}]}";
	const char *broken = "{\"status\": \"failed\", \"errors\": [{\"file\": \"c.c\","
		" \"message\": \"boom\"}], \"warnings\": [], \"new_warnings\": []}";
	const struct regression *e;

	fold(l, "2026-01-01", w1, NULL, NULL, NULL, NULL);
	CHECK_INT(l->n, 0);	/* mainline's own warning: nobody's regression */
	fold(l, "2026-01-02", w2, NULL, NULL, NULL, NULL);
	REQUIRE(l->n == 1);
	e = l->items[0];
	CHECK_STR(e->key, "warning:smoke/x86_64:b.c: new");
	CHECK_STR(e->detail, "b.c:4: new");
	fold(l, "2026-01-03", broken, NULL, NULL, NULL, NULL);
	CHECK_STR(e->state, "new");	/* a failed build says nothing about warnings */
	CHECK_STR(l->items[1]->key, "build:smoke/x86_64:c.c: boom");
	fold(l, "2026-01-04", w1, NULL, NULL, NULL, NULL);
	CHECK_STR(e->state, "fixed");
	CHECK_STR(l->items[1]->state, "fixed");
	regress_list_free(l);
}

TEST(regress__a_bisect_names_the_culprit_of_what_it_checked)
{
	struct regress_list *l = regress_list_new();
	char *boot = boot_rec("not ok", "ok", NULL);
	struct day *d = mkday("2026-01-02", OK_BUILD, boot,
		"\"bisect\": {\"outcome\": \"found\", \"check\": {\"kind\": \"test\", \"arg\": \"gpio.a\"},"
		" \"tree\": \"gpio\", \"commit\": \"0123456789abcdef0123456789abcdef01234567\","
		" \"subject\": \"gpio: break a\", \"revert\": {\"how\": \"reverted\", \"confirmed\": true}},"
		" \"earlier_bisects\": [{\"outcome\": \"found\", \"check\": {\"kind\": \"test\","
		" \"arg\": \"gpio.b\"}, \"tree\": \"x\", \"commit\": \"ab\"}]");
	const struct regression *e;

	REQUIRE(d != NULL);
	fold(l, "2026-01-01", OK_BUILD, "ok", "ok", NULL, NULL);
	regress_fold_day(l, d, &S, NULL);
	e = entry(l, "test:smoke/x86_64:gpio.a");
	REQUIRE(e && e->culprit);
	CHECK_STR(json_string_value(json_object_get(e->culprit, "tree")), "gpio");
	CHECK(json_is_true(json_object_get(e->culprit, "confirmed")));
	CHECK_STR(json_string_value(json_object_get(e->culprit, "day")), "2026-01-02");
	/* The same bisect again: nothing new. */
	CHECK_INT(regress_attach_bisects(l, d), 0);
	CHECK_INT(regress_mail_due(e), REGRESS_MAIL_NEW);
	day_free(d);
	free(boot);
	regress_list_free(l);
}

TEST(regress__mails_each_once_in_order_with_the_tags)
{
	struct regress_list *l = regress_list_new();
	struct regress_mail_opts o = { "linux-next", "regressions@ex.org", "tide <next@ex.org>",
				       NULL, NULL };
	struct regression *e;
	struct mail_msg m;
	char *first;

	fold(l, "2026-01-01", OK_BUILD, "ok", "ok", NULL, NULL);
	fold(l, "2026-01-02", OK_BUILD, "not ok", "ok", NULL, NULL);
	e = l->items[0];
	REQUIRE(regress_mail_due(e) == REGRESS_MAIL_NEW);
	REQUIRE(regress_mail_make(&m, e, REGRESS_MAIL_NEW, &o) == 0);
	CHECK_STR(m.subject, "[REGRESSION] linux-next: gpio.a fails on smoke (x86_64) since next-20260102");
	CHECK(strstr(m.body, "\nReported-by: tide <next@ex.org>\n") != NULL);
	CHECK(strstr(m.body, "\nCloses: https://lore.kernel.org/r/") != NULL);
	CHECK(strstr(m.body, "\n#regzbot introduced: next-20260101..next-20260102\n") != NULL);
	CHECK(m.in_reply_to == NULL);
	first = xstrdup(m.message_id);
	regress_mail_sent(e, REGRESS_MAIL_NEW, m.message_id);
	mail_msg_release(&m);
	CHECK_INT(regress_mail_due(e), REGRESS_MAIL_NONE);
	/* A culprit refuted by its revert is no mail; a confirmed one is. */
	e->culprit = json_pack("{s:s, s:s, s:s, s:b}", "tree", "gpio", "commit",
			       "0123456789abcdef0123", "subject", "gpio: x", "confirmed", 0);
	CHECK_INT(regress_mail_due(e), REGRESS_MAIL_NONE);
	json_object_set_new(e->culprit, "confirmed", json_true());
	REQUIRE(regress_mail_due(e) == REGRESS_MAIL_CULPRIT);
	REQUIRE(regress_mail_make(&m, e, REGRESS_MAIL_CULPRIT, &o) == 0);
	CHECK_STR(m.in_reply_to, first);
	CHECK(strstr(m.body, "\n#regzbot ^introduced: 0123456789ab\n") != NULL);
	regress_mail_sent(e, REGRESS_MAIL_CULPRIT, m.message_id);
	mail_msg_release(&m);
	CHECK_INT(regress_mail_due(e), REGRESS_MAIL_NONE);
	fold(l, "2026-01-03", OK_BUILD, "not ok", "ok", NULL, NULL);
	CHECK_INT(regress_mail_due(e), REGRESS_MAIL_NONE);	/* still failing: no mail */
	fold(l, "2026-01-04", OK_BUILD, "ok", "ok", NULL, NULL);
	REQUIRE(regress_mail_due(e) == REGRESS_MAIL_FIXED);
	REQUIRE(regress_mail_make(&m, e, REGRESS_MAIL_FIXED, &o) == 0);
	CHECK(strstr(m.body, "next-20260104 passes again") != NULL);
	regress_mail_sent(e, REGRESS_MAIL_FIXED, m.message_id);
	mail_msg_release(&m);
	CHECK_INT(regress_mail_due(e), REGRESS_MAIL_NONE);
	o.to = NULL;
	CHECK_INT(regress_mail_make(&m, e, REGRESS_MAIL_NEW, &o), TIDE_ENOTFOUND);
	mail_msg_release(&m);
	free(first);
	regress_list_free(l);
}

/* A workspace with days 1-3 (gpio.a fails from day 2); a day run again keeps the mails. */
TEST(regress__the_file_and_a_day_run_again)
{
	char dir[] = "/tmp/tide-test-regress-XXXXXX";
	struct regress_list *l = NULL, *back = NULL;
	const char *fails[] = { "ok", "not ok", "not ok" };
	const char *dates[] = { "2026-01-01", "2026-01-02", "2026-01-03" };
	char *path, *boot;
	int i;

	REQUIRE(mkdtemp(dir));
	for (i = 0; i < 3; i++) {
		const char *date = dates[i];
		struct day *d;

		boot = boot_rec(fails[i], "ok", NULL);
		d = mkday(date, OK_BUILD, boot, NULL);
		path = workspace_day_json(dir, date);
		*strrchr(path, '/') = '\0';
		mkdir_p(path, 0777);
		*strchr(path, '\0') = '/';
		REQUIRE(d && day_save(d, path) == 0);
		day_free(d);
		free(boot);
		free(path);
	}
	REQUIRE(regress_load(&l, dir) == 0);
	CHECK_INT(l->n, 0);
	REQUIRE(regress_update(l, dir, NULL, &S, NULL) == 0);
	REQUIRE(l->n == 1);
	CHECK_STR(l->items[0]->state, "still-failing");
	regress_mail_sent(l->items[0], REGRESS_MAIL_NEW, "<x@y>");
	REQUIRE(regress_save(l, dir) == 0);
	/* Day 2 run again: rebuilt from every day, through day 3, the mail kept. */
	REQUIRE(regress_update(l, dir, "2026-01-02", &S, NULL) == 0);
	REQUIRE(l->n == 1);
	CHECK_STR(l->through, "2026-01-03");
	CHECK_STR(l->items[0]->last_bad, "2026-01-03");
	CHECK_STR(json_string_value(json_object_get(l->items[0]->mails, "new")), "<x@y>");
	REQUIRE(regress_load(&back, dir) == 0);
	CHECK_INT(back->n, 1);
	CHECK_STR(back->items[0]->id, l->items[0]->id);
	CHECK(regress_find(back, "test:smoke/x86_64:gpio.a", "2026-01-03") != NULL);
	CHECK(regress_find(back, "test:smoke/x86_64:gpio.a", "2026-01-01") == NULL);
	regress_list_free(back);
	back = NULL;
	/* A file of the wrong shape is refused, naming it. */
	path = workspace_regressions(dir);
	{
		const char *bad = "{\"version\": 1, \"regressions\": [{\"id\": \"a\"}]}";

		file_write_atomic(path, bad, strlen(bad));
	}
	CHECK_INT(regress_load(&back, dir), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "regressions[0] lacks its id, key, state or first_bad") != NULL);
	free(path);
	regress_list_free(l);
	rm_rf(dir);
}

TESTS(regress__a_day_results_named_across_days, regress__new_still_failing_fixed_each_said_once,
      regress__flaky_by_its_history_not_a_regression,
      regress__warnings_open_only_when_new_and_close_only_on_a_build_that_passed,
      regress__a_bisect_names_the_culprit_of_what_it_checked,
      regress__mails_each_once_in_order_with_the_tags, regress__the_file_and_a_day_run_again)
