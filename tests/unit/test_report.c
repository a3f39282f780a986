/* Unit tests of src/report.c on hand-made day records. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "day.h"
#include "error.h"
#include "mail.h"
#include "report.h"
#include "rerere.h"
#include "util.h"
#include "t.h"

static const char *hunk = "<<<<<<< next-20261203\nA\n=======\nB\n>>>>>>> gpio/for-next\n";

static void add_commit(struct day_conflict *c, int theirs, const char *id, const char *subj,
		       const char *tree)
{
	struct day_commit *dc = day_conflict_add_commit(c, theirs);

	dc->id = xstrdup(id);
	dc->subject = xstrdup(subj);
	dc->author = xstrdup("A U Thor <a@ex.org>");
	dc->tree = tree ? xstrdup(tree) : NULL;
}

/* A day where gpio conflicts in drivers/gpio/Kconfig with a commit from fixes. */
static struct day *make_day(const char *date, const char *h, const char *handled)
{
	struct day *d = day_new();
	struct day_tree *t;
	struct day_conflict *c;

	d->date = xstrdup(date);
	d->tag = day_tag_for(date);
	t = day_add_tree(d);
	t->name = xstrdup("fixes");
	t->status = TREE_MERGED;
	t = day_add_tree(d);
	t->name = xstrdup("gpio");
	t->status = handled && !strcmp(handled, "recorded") ? TREE_MERGED : TREE_CONFLICT;
	c = day_tree_add_conflict(t);
	c->path = xstrdup("drivers/gpio/Kconfig");
	c->kind = xstrdup("content");
	day_conflict_add_hunk(c, h);
	add_commit(c, 0, "0123456789abcdef0123456789abcdef01234567", "gpio: fix A", "fixes");
	add_commit(c, 1, "fedcba9876543210fedcba9876543210fedcba98", "gpio: add B", NULL);
	if (handled) {
		t->handling.handled = xstrdup(handled);
		if (!strcmp(handled, "recorded")) {
			struct day_resolution *r = day_handling_add_resolution(&t->handling);

			r->path = xstrdup("drivers/gpio/Kconfig");
			r->id = xstrdup("abc123");
			r->diff = xstrdup("-A\n+AB\n");
			r->combined = xstrdup("diff --cc drivers/gpio/Kconfig\n@@@ -1,1 -1,1 +1,1 @@@\n"
					      "- A\n -B\n++AB\n");
		}
		if (!strcmp(handled, "previous"))
			t->handling.version_from = xstrdup("next-20261202");
	}
	return d;
}

TEST(report__bad_utf8_is_replaced_not_dropped)
{
	struct day *d = make_day("2026-12-03", "<<<<<<< a\n\xff\n=======\nB\n>>>>>>> b\n", NULL);
	struct day_conflict *c = &d->trees[1].conflicts[0];
	json_t *r = NULL, *f, *rec = NULL;

	free(c->path);
	c->path = xstrdup("drivers/\xe9.c");
	free(c->theirs[0].subject);
	c->theirs[0].subject = xstrdup("gpio: caf\xe9");
	REQUIRE(report_tree_json(&r, d, &d->trees[1], NULL) == 0);
	REQUIRE(r != NULL);
	f = json_array_get(json_object_get(r, "files"), 0);
	CHECK_STR(json_string_value(json_object_get(f, "path")), "drivers/\xef\xbf\xbd.c");
	CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(f,
		  "theirs_commits"), 0), "subject")), "gpio: caf\xef\xbf\xbd");
	CHECK(strstr(json_string_value(json_array_get(json_object_get(f, "hunks"), 0)),
		     "\xef\xbf\xbd") != NULL);
	/* the day record keeps the tree too */
	REQUIRE(day_to_json(&rec, d) == 0);
	CHECK_INT(json_array_size(json_object_get(rec, "trees")), 2);
	CHECK_INT(json_array_size(json_object_get(json_array_get(json_object_get(rec, "trees"), 1),
						  "conflicts")), 1);
	json_decref(rec);
	json_decref(r);
	day_free(d);
}

TEST(report__json_names_both_sides_and_the_conflict_id)
{
	struct day *d = make_day("2026-12-03", hunk, NULL);
	json_t *r = NULL, *f;
	char id[41];

	REQUIRE(report_tree_has_conflict(&d->trees[1]));
	CHECK(!report_tree_has_conflict(&d->trees[0]));
	CHECK_INT(report_tree_json(&r, d, &d->trees[1], NULL), 0);
	REQUIRE(r);
	CHECK_STR(json_string_value(json_object_get(r, "tree")), "gpio");
	CHECK_STR(json_string_value(json_array_get(json_object_get(r, "with"), 0)), "fixes");
	CHECK_STR(json_string_value(json_object_get(r, "handled")), "dropped");
	CHECK(json_is_true(json_object_get(r, "new")));
	f = json_array_get(json_object_get(r, "files"), 0);
	rerere_normalize(NULL, id, hunk, strlen(hunk), 7);
	CHECK_STR(json_string_value(json_object_get(f, "conflict_id")), id);
	CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(f, "ours_commits"), 0), "subject")),
		  "gpio: fix A");
	json_decref(r);
	day_free(d);
}

TEST(report__text_follows_linux_next_mails)
{
	struct day *d = make_day("2026-12-03", hunk, "recorded");
	struct buf text = BUF_INIT;
	json_t *r = NULL;

	CHECK_INT(report_tree_json(&r, d, &d->trees[1], NULL), 0);
	report_text(&text, r);
	CHECK(strstr(text.ptr, "Today's linux-next merge of the gpio tree got a conflict in:\n\n"
			       "  drivers/gpio/Kconfig\n\nbetween commit:\n\n"
			       "  0123456789ab (\"gpio: fix A\")\n\nfrom the fixes tree and commit:\n\n"
			       "  fedcba987654 (\"gpio: add B\")\n\nfrom the gpio tree.\n") != NULL);
	CHECK(strstr(text.ptr, "resolved from recorded resolution abc123") != NULL);
	/* the combined diff after the signature, the unified one not at all */
	CHECK(strstr(text.ptr, "resolved from recorded resolution abc123\n\n-- \nCheers,\n"
			       "tide (next-20261203)\n\ndiff --cc drivers/gpio/Kconfig\n") != NULL);
	CHECK(strstr(text.ptr, "\n++AB\n") != NULL && !strstr(text.ptr, "\n+AB\n"));
	CHECK(strstr(text.ptr, "  <<<<<<< next-20261203\n  A\n") != NULL);
	json_decref(r);
	day_free(d);
	d = make_day("2026-12-03", hunk, "previous");
	CHECK_INT(report_tree_json(&r, d, &d->trees[1], NULL), 0);
	buf_clear(&text);
	report_text(&text, r);
	CHECK(strstr(text.ptr, "used the version from next-20261202") != NULL);
	json_decref(r);
	day_free(d);
	buf_release(&text);
}

TEST(report__only_changed_conflicts_are_new)
{
	struct day *prev = make_day("2026-12-02", hunk, NULL);
	struct day *same = make_day("2026-12-03", hunk, NULL);
	struct day *other = make_day("2026-12-03", "<<<<<<< a\nC\n=======\nB\n>>>>>>> b\n", NULL);
	json_t *r = NULL;

	CHECK_INT(report_tree_json(&r, same, &same->trees[1], prev), 0);
	CHECK(json_is_false(json_object_get(r, "new")));
	json_decref(r);
	CHECK_INT(report_tree_json(&r, other, &other->trees[1], prev), 0);
	CHECK(json_is_true(json_object_get(r, "new")));
	json_decref(r);
	day_free(prev), day_free(same), day_free(other);
}

TEST(report__mail_goes_to_both_trees_and_cc_the_authors)
{
	const char *text = "#tide\tbase\t/m#v1\nfixes\tgit\t/f#master\ngpio\tgit\t/g#for-next\n"
			   "#tide\tfixes\tcontact=Fixes <fixes@ex.org>\n"
			   "#tide\tgpio\tcontact=gpio@ex.org\n";
	struct trees_conf *conf = NULL;
	struct day *d = make_day("2026-12-03", hunk, NULL);
	struct mail_msg m;
	json_t *r = NULL;

	if (trees_conf_parse(&conf, "/tmp/trees.conf", text) < 0)
		fprintf(stderr, "%s\n", tide_error_last());
	REQUIRE(conf);
	CHECK_INT(report_tree_json(&r, d, &d->trees[1], NULL), 0);
	CHECK_INT(report_mail(&m, r, conf, "Tide <next@tide.example>"), 0);
	REQUIRE(m.nto == 2 && m.ncc == 1);
	CHECK_STR(m.to[0], "gpio@ex.org");
	CHECK_STR(m.to[1], "Fixes <fixes@ex.org>");
	CHECK_STR(m.cc[0], "\"A U Thor\" <a@ex.org>");
	CHECK_STR(m.subject, "linux-next: manual merge of the gpio tree with the fixes tree");
	CHECK_STR(m.message_id, "<next-20261203.gpio.tide@tide.example>");
	mail_msg_release(&m);
	json_decref(r);
	trees_conf_free(conf);
	day_free(d);
}

TEST(report__write_day_writes_txt_and_json)
{
	char tmpl[] = "/tmp/tide-report.XXXXXX", *dir = mkdtemp(tmpl), *p;
	struct day *d = make_day("2026-12-03", hunk, NULL);

	CHECK_INT(report_write_day(d, NULL, dir), 1);
	p = xasprintf("%s/reports/gpio.txt", dir);
	CHECK(path_exists(p));
	free(p);
	p = xasprintf("%s/reports/gpio.json", dir);
	CHECK(path_exists(p));
	free(p);
	p = xasprintf("%s/reports/fixes.txt", dir);
	CHECK(!path_exists(p));
	free(p);
	rm_rf(dir);
	day_free(d);
}

/* A build record: status, its configuration (NULL: none declared), errors and new warnings as JSON. */
static struct day_build *make_build(const char *config, const char *status, const char *errors,
				    const char *new_warnings)
{
	struct day_build *b = day_build_new();

	b->config = config ? xstrdup(config) : NULL;
	b->arch = config ? xstrdup("x86_64") : NULL;
	b->status = xstrdup(status);
	b->errors = json_loads(errors, 0, NULL);
	b->new_warnings = json_loads(new_warnings, 0, NULL);
	return b;
}

static const char *gpio_error =
	"[{\"file\": \"gpio.c\", \"line\": 2, \"message\": \"broken\", \"kind\": \"compiler\", \"tree\": \"gpio\"},"
	" {\"file\": \"fix.c\", \"line\": 1, \"message\": \"fixes broke\", \"kind\": \"compiler\", \"tree\": \"fixes\"}]";
static const char *gpio_warning =
	"[{\"file\": \"gpio.c\", \"line\": 3, \"message\": \"unused x\", \"kind\": \"compiler\", \"tree\": \"gpio\"}]";

TEST(report__configurations_follow_the_conflict)
{
	struct day *d = make_day("2026-12-03", hunk, "recorded");
	struct buf text = BUF_INIT;
	json_t *r = NULL;

	d->build = make_build("smoke", "ok", "[]", gpio_warning);
	day_config_get(d, "up")->build = make_build("up", "failed", gpio_error, "[]");
	day_config_get(d, "defmod")->build = make_build("defmod", "ok", "[]", "[]");
	CHECK(report_tree_has_report(d, &d->trees[0]));
	CHECK_INT(report_tree_json(&r, d, &d->trees[1], NULL), 0);
	CHECK_INT(json_array_size(json_object_get(r, "configs")), 2);
	report_text(&text, r);
	CHECK(strstr(text.ptr, "resolved from recorded resolution abc123\n\nAfter merging the gpio tree, today's linux-next build (x86_64 smoke)\n"
			       "produced this warning:\n\n"
			       "gpio.c:3: warning: unused x\n\n"
			       "After merging the gpio tree, today's linux-next build (x86_64 up)\n"
			       "failed like this:\n\n"
			       "gpio.c:2: error: broken\n\n"
			       "The commit of the gpio tree behind this is not known yet\n"
			       "(tide bisect 2026-12-03 --build finds it).\n\n"
			       "The gpio tree is in today's tree as it is.\n\n-- \n") != NULL);
	CHECK(!strstr(text.ptr, "fixes broke"));
	CHECK(!strstr(text.ptr, "defmod"));
	json_decref(r);
	/* fixes has no conflict: only its configuration, no handling paragraph. */
	CHECK_INT(report_tree_json(&r, d, &d->trees[0], NULL), 0);
	buf_clear(&text);
	report_text(&text, r);
	CHECK_STR(text.ptr, "Hi all,\n\nAfter merging the fixes tree, today's linux-next build (x86_64 up)\n"
			    "failed like this:\n\n"
			    "fix.c:1: error: fixes broke\n\n"
			    "The commit of the fixes tree behind this is not known yet\n"
			    "(tide bisect 2026-12-03 --build finds it).\n\n"
			    "The fixes tree is in today's tree as it is.\n\n"
			    "-- \nCheers,\ntide (next-20261203)\n");
	CHECK(json_is_true(json_object_get(r, "new")));
	CHECK(!json_object_get(r, "handled"));
	json_decref(r);
	buf_release(&text);
	day_free(d);
}

TEST(report__a_day_without_declared_configurations_reads_as_before)
{
	struct day *d = make_day("2026-12-03", hunk, NULL), *plain = make_day("2026-12-03", hunk, NULL);
	struct buf text = BUF_INIT, before = BUF_INIT;
	json_t *r = NULL;

	d->build = make_build(NULL, "failed", gpio_error, gpio_warning);
	CHECK(!report_tree_has_report(d, &d->trees[0]));
	CHECK(report_tree_has_report(d, &d->trees[1]));
	CHECK_INT(report_tree_json(&r, d, &d->trees[1], NULL), 0);
	CHECK(!json_object_get(r, "configs"));
	report_text(&text, r);
	json_decref(r);
	CHECK_INT(report_tree_json(&r, plain, &plain->trees[1], NULL), 0);
	report_text(&before, r);
	CHECK_STR(text.ptr, before.ptr);
	json_decref(r);
	buf_release(&text);
	buf_release(&before);
	day_free(d);
	day_free(plain);
}

TEST(report__build_subject_names_the_tree_and_the_body_the_configuration)
{
	const char *text = "#tide\tbase\t/m#v1\nfixes\tgit\t/f#master\n"
			   "#tide\tfixes\tcontact=fixes@ex.org\n";
	struct trees_conf *conf = NULL;
	struct day *d = make_day("2026-12-03", hunk, NULL);
	struct mail_msg m;
	json_t *r = NULL;

	REQUIRE(trees_conf_parse(&conf, "/tmp/trees.conf", text) == 0);
	/* A record edited by hand: the name is not what trees.conf allows. */
	d->build = make_build("smoke\nBcc: x@evil.example-and-a-very-long-tail", "failed",
			      gpio_error, "[]");
	CHECK_INT(report_tree_json(&r, d, &d->trees[0], NULL), 0);
	CHECK_INT(report_mail(&m, r, conf, "tide <t@ex.org>"), 0);
	CHECK_STR(m.subject, "linux-next: build failure after merge of the fixes tree");
	CHECK_INT(m.ncc, 0);
	/* the name is in the body, where a line break starts no header */
	CHECK(strstr(m.body, "build (x86_64 smoke\nBcc: x@evil") != NULL);
	mail_msg_release(&m);
	json_decref(r);
	day_config_get(d, "up")->build = make_build("up", "ok", "[]",
		"[{\"file\": \"f.c\", \"line\": 1, \"message\": \"w\", \"tree\": \"fixes\"}]");
	free(d->build->status);
	d->build->status = xstrdup("ok");
	json_decref(d->build->errors);
	d->build->errors = json_array();
	CHECK_INT(report_tree_json(&r, d, &d->trees[0], NULL), 0);
	CHECK_INT(report_mail(&m, r, conf, "tide <t@ex.org>"), 0);
	CHECK_STR(m.subject, "linux-next: build warning after merge of the fixes tree");
	CHECK(strstr(m.body, "produced this warning:\n\nf.c:1: warning: w\n\n") != NULL);
	mail_msg_release(&m);
	json_decref(r);
	trees_conf_free(conf);
	day_free(d);
}

TEST(report__a_configuration_lists_at_most_twenty_of_each)
{
	struct day *d = make_day("2026-12-03", hunk, NULL);
	struct buf text = BUF_INIT;
	json_t *many = json_array(), *r = NULL;
	char *p;
	int i;

	for (i = 1; i <= 25; i++)
		json_array_append_new(many, json_pack("{s:s, s:i, s:s, s:s, s:s}", "file", "f.c",
						      "line", i, "message", "w", "kind",
						      "compiler", "tree", "fixes"));
	d->build = make_build("smoke", "ok", "[]", "[]");
	json_decref(d->build->new_warnings);
	d->build->new_warnings = many;
	CHECK_INT(report_tree_json(&r, d, &d->trees[0], NULL), 0);
	report_text(&text, r);
	CHECK(strstr(text.ptr, "f.c:20: warning: w\n... and 5 more\n\n") != NULL);
	CHECK(!strstr(text.ptr, "f.c:21:"));
	for (i = 0, p = text.ptr; (p = strstr(p, ": warning: ")); p++)
		i++;
	CHECK_INT(i, 20);
	json_decref(r);
	buf_release(&text);
	day_free(d);
}

TESTS(report__bad_utf8_is_replaced_not_dropped, report__json_names_both_sides_and_the_conflict_id,
      report__text_follows_linux_next_mails,
      report__only_changed_conflicts_are_new,
      report__mail_goes_to_both_trees_and_cc_the_authors,
      report__write_day_writes_txt_and_json,
      report__configurations_follow_the_conflict,
      report__a_day_without_declared_configurations_reads_as_before,
      report__build_subject_names_the_tree_and_the_body_the_configuration,
      report__a_configuration_lists_at_most_twenty_of_each)
