#include "t.h"
#include "fixture.h"
#include "ktap.h"

static const struct ktap_node *child(const struct ktap_node *n, const char *name)
{
	size_t i;

	for (i = 0; n && i < n->nchildren; i++)
		if (!strcmp(n->children[i].name, name))
			return &n->children[i];
	return NULL;
}

static void parse_str(struct ktap_result *r, const char *s)
{
	ktap_parse(r, s, strlen(s));
}

TEST(ktap__real_kunit_cpumask_with_kernel_lines)
{
	struct ktap_result r;
	struct buf b = BUF_INIT;
	const struct ktap_node *suite;

	REQUIRE(fixture_read(&b, "kunit-cpumask.log") == 0);
	ktap_parse(&r, b.ptr, b.len);
	CHECK_INT((int)r.ndocs, 1);
	CHECK_INT(r.nproblems, 0);
	REQUIRE((suite = child(&r.root, "cpumask")) != NULL);
	CHECK(suite->ok && suite->has_result);
	CHECK_INT(suite->plan, 6);
	CHECK_INT(suite->nchildren, 6);
	CHECK(child(suite, "test_cpumask_iterators_builtin") != NULL);
	CHECK_INT(suite->children[5].number, 6);
	/* the summary lines become the suite's diagnostics */
	CHECK(suite->ndiag >= 1 && strstr(suite->diag[0], "pass:6") != NULL);
	ktap_result_release(&r);
	buf_release(&b);
}

TEST(ktap__real_boot_has_both_documents)
{
	struct ktap_result r;
	struct buf b = BUF_INIT;
	const struct ktap_node *gpio, *legacy;

	REQUIRE(fixture_read(&b, "pass.log") == 0);
	ktap_parse(&r, b.ptr, b.len);
	CHECK_INT((int)r.ndocs, 2);
	CHECK_INT(r.nproblems, 0);
	CHECK_INT(r.root.nchildren, 3);
	REQUIRE((gpio = child(&r.root, "gpio")) != NULL);
	CHECK_INT(gpio->nchildren, 8);
	REQUIRE((legacy = child(gpio, "legacy_api")) != NULL);
	CHECK(legacy->ok);
	CHECK(legacy->ndiag == 1 && strstr(legacy->diag[0], "mainline") != NULL);
	CHECK(child(child(&r.root, "cpumask_smoke"), "hotplug") != NULL);
	/* Each document on its own: KUnit's has no header, the guest's does. */
	REQUIRE(r.ndocs == 2);
	CHECK(r.docs[0].header == NULL);
	CHECK(r.docs[0].first == 0 && r.docs[0].count == 1 && r.docs[0].plan == 1);
	CHECK_STR(r.docs[1].header, "tide smoke tests on 6.1.192 x86_64");
	CHECK(r.docs[1].first == 1 && r.docs[1].count == 2 && r.docs[1].plan == 2);
	ktap_result_release(&r);
	buf_release(&b);
}

/* A header is the document's first diagnostic, before any result; later ones are not. */
TEST(ktap__document_headers)
{
	struct ktap_result r;

	parse_str(&r, "KTAP version 1\n1..1\nok 1 a\n# not a header\n"
		      "KTAP version 1\n# guest\n# second line\n1..2\nok 1 b\nok 2 c\n"
		      "ok 3 stray\n");
	REQUIRE(r.ndocs == 2);
	CHECK(r.docs[0].header == NULL);
	CHECK(r.docs[0].first == 0 && r.docs[0].count == 1);
	CHECK_STR(r.docs[1].header, "guest");
	CHECK(r.docs[1].first == 1 && r.docs[1].count == 3 && r.docs[1].plan == 2);
	CHECK_INT(r.nproblems, 1);	/* planned 2, has 3 */
	ktap_result_release(&r);
	/* Results before any version line belong to no document. */
	parse_str(&r, "ok 1 early\nKTAP version 1\n1..1\nok 1 late\n");
	REQUIRE(r.ndocs == 1);
	CHECK(r.docs[0].first == 1 && r.docs[0].count == 1);
	ktap_result_release(&r);
}

TEST(ktap__directives_and_diagnostics)
{
	struct ktap_result r;
	const struct ktap_node *s;

	parse_str(&r, "KTAP version 1\n1..1\n"
		  "  KTAP version 1\n  # Subtest: s\n  1..6\n"
		  "  ok 1 a # SKIP no hardware\n"
		  "  # b: expected 1, got 2\n  not ok 2 b\n"
		  "  not ok 3 c # TODO later\n  ok 4 d # xfail\n"
		  "  not ok 5 e # TIMEOUT\n  ok 6 f # not a directive\n"
		  "not ok 1 s\n");
	REQUIRE((s = child(&r.root, "s")) != NULL);
	REQUIRE(s->nchildren == 6);
	CHECK_INT(s->children[0].directive, KTAP_SKIP);
	CHECK_STR(s->children[0].reason, "no hardware");
	CHECK_STR(s->children[0].name, "a");
	CHECK(!ktap_node_failed(&s->children[0]));
	CHECK(ktap_node_failed(&s->children[1]));
	CHECK(s->children[1].ndiag == 1);
	CHECK_STR(s->children[1].diag[0], "b: expected 1, got 2");
	CHECK(!ktap_node_failed(&s->children[2]));
	CHECK_INT(s->children[3].directive, KTAP_XFAIL);
	CHECK(ktap_node_failed(&s->children[4]));
	CHECK_STR(ktap_directive_name(s->children[4].directive), "TIMEOUT");
	CHECK_STR(s->children[5].name, "f # not a directive");
	CHECK_INT(r.nproblems, 0);
	ktap_result_release(&r);
}

TEST(ktap__old_tap14_form)
{
	struct ktap_result r;
	struct buf b = BUF_INIT;
	const struct ktap_node *ex, *list;

	REQUIRE(fixture_read(&b, "tap14-kunit.log") == 0);
	ktap_parse(&r, b.ptr, b.len);
	CHECK_INT((int)r.ndocs, 1);
	CHECK_INT(r.nproblems, 0);
	REQUIRE((ex = child(&r.root, "example")) != NULL);
	CHECK(ex->ok && ex->nchildren == 2);
	CHECK(child(ex, "example_simple_test") != NULL);
	CHECK_INT(child(ex, "example_skip_test")->directive, KTAP_SKIP);
	REQUIRE((list = child(&r.root, "list-kunit-test")) != NULL);
	CHECK(!list->ok && list->nchildren == 3);
	CHECK(ktap_node_failed(child(list, "list_test_list_add")));
	CHECK(child(list, "list_test_list_add")->ndiag == 1);
	CHECK(!ktap_node_failed(child(list, "list_test_list_add_tail")));
	ktap_result_release(&r);
	buf_release(&b);
}

TEST(ktap__cut_off_document_and_plan_mismatch)
{
	struct ktap_result r;
	const struct ktap_node *s;

	parse_str(&r, "KTAP version 1\n1..2\n    KTAP version 1\n    # Subtest: gpio\n"
		  "    1..3\n    ok 1 a\n[    3.1] BUG: kernel NULL pointer dereference\n");
	CHECK_INT(r.root.nchildren, 1);
	REQUIRE((s = child(&r.root, "gpio")) != NULL);
	CHECK(!s->has_result);
	CHECK(ktap_node_failed(s));
	CHECK_INT(s->nchildren, 1);
	/* no result line, 3 planned but 1 seen, document planned 2 */
	CHECK_INT(r.nproblems, 3);
	ktap_result_release(&r);
}

TEST(ktap__deeper_nesting_and_odd_indentation)
{
	struct ktap_result r;
	const struct ktap_node *a, *b;

	parse_str(&r, "KTAP version 1\n1..1\n"
		  "  KTAP version 1\n  # Subtest: a\n  1..1\n"
		  "      KTAP version 1\n      # Subtest: b\n      1..2\n"
		  "      ok 1 x\n      not ok 2 y\n"
		  "  not ok 1 b\n"
		  "not ok 1 a\n");
	REQUIRE((a = child(&r.root, "a")) != NULL);
	REQUIRE((b = child(a, "b")) != NULL);
	CHECK_INT(b->nchildren, 2);
	CHECK(ktap_node_failed(child(b, "y")));
	CHECK_INT(r.nproblems, 0);
	ktap_result_release(&r);
}

static int collect(const struct ktap_node *n, const char *path, int depth, void *data)
{
	buf_printf(data, "%s%s;", path, ktap_node_failed(n) ? "!" : "");
	return 0;
}

TEST(ktap__garbage_bytes_do_not_break_parsing)
{
	struct ktap_result r;
	struct buf b = BUF_INIT, paths = BUF_INIT;

	REQUIRE(fixture_read(&b, "garbage.log") == 0);
	ktap_parse(&r, b.ptr, b.len);
	ktap_walk(&r, collect, &paths);
	/* every test is still found and named in printable ASCII */
	CHECK(strstr(buf_cstr(&paths), "gpio.edge_events;") != NULL);
	CHECK(strstr(buf_cstr(&paths), "cpumask.test_cpumask_weight") != NULL);
	for (size_t i = 0; i < paths.len; i++)
		CHECK(paths.ptr[i] >= 0x20 && paths.ptr[i] < 0x7f);
	ktap_result_release(&r);
	buf_release(&b);
	buf_release(&paths);
}

TEST(ktap__walk_paths)
{
	struct ktap_result r;
	struct buf paths = BUF_INIT;

	parse_str(&r, "KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: gpio\n"
		  "    1..2\n    ok 1 a\n    not ok 2 b\nnot ok 1 gpio\n");
	ktap_walk(&r, collect, &paths);
	CHECK_STR(buf_cstr(&paths), "gpio!;gpio.a;gpio.b!;");
	ktap_result_release(&r);
	buf_release(&paths);
}

/* A kernel message written while init's line sat in the tty buffer. */
TEST(ktap__kernel_message_cutting_a_line)
{
	struct ktap_result r;
	const struct ktap_node *s;

	parse_str(&r, "KTAP version 1\r\n1..1\r\n    KTAP version 1\r\n    # Subtest: gpio\r\n"
		  "    1..2\r\n    ok 1 chip[    1.243468] gpio-1021 (tide-hog): hogged as output/high\r\n"
		  "[    1.243500] another message\r\n"
		  "_info\r\n    not ok 2 line_info # TIMEOUT\r\nok 1 gpio\r\n");
	REQUIRE((s = child(&r.root, "gpio")) != NULL);
	REQUIRE(s->nchildren == 2);
	CHECK_STR(s->children[0].name, "chip_info");
	CHECK_STR(s->children[1].name, "line_info");
	CHECK_INT(r.nproblems, 0);
	ktap_result_release(&r);
}

TEST(ktap__empty_and_no_ktap)
{
	struct ktap_result r;

	parse_str(&r, "");
	CHECK_INT((int)r.ndocs, 0);
	CHECK_INT(r.root.nchildren, 0);
	ktap_result_release(&r);
	parse_str(&r, "SeaBIOS\nBooting from ROM..\nok then\n");
	CHECK_INT(r.root.nchildren, 0);
	ktap_result_release(&r);
}

TEST(ktap__empty_line)
{
	struct ktap_result r;

	/* One byte: the line is "" and nothing after it may be read. */
	parse_str(&r, "\n");
	CHECK_INT((int)r.ndocs, 0);
	CHECK_INT(r.root.nchildren, 0);
	ktap_result_release(&r);
}

TEST(ktap__console_starting_with_empty_line)
{
	struct ktap_result r;

	parse_str(&r, "\n\nKTAP version 1\n1..2\nok 1 first\n\nok 2 second\n");
	CHECK_INT((int)r.ndocs, 1);
	REQUIRE(r.root.nchildren == 2);
	CHECK_STR(r.root.children[0].name, "first");
	CHECK_STR(r.root.children[1].name, "second");
	CHECK_INT(r.nproblems, 0);
	ktap_result_release(&r);
}

/* Found by tests/fuzz/fuzz_ktap: a tab advanced the scan by 8 bytes, not 1. */
TEST(ktap__tab_indented_subtests)
{
	static const char text[] =
		"KTAP version 1\n1..1\n"
		"\tKTAP version 1\n\t# Subtest: outer\n\t1..1\n"
		"\t\tKTAP version 1\n\t\t# Subtest: inner\n\t\t1..1\n"
		"\t\tok 1 leaf\n"
		"\tok 1 inner\n"
		"ok 1 outer\n";
	const struct ktap_node *outer, *inner;
	struct ktap_result r;

	parse_str(&r, text);
	CHECK_INT(r.nproblems, 0);
	REQUIRE((outer = child(&r.root, "outer")) != NULL);
	REQUIRE((inner = child(outer, "inner")) != NULL);
	CHECK(child(inner, "leaf") != NULL);
	CHECK(outer->ok && inner->ok && outer->has_result && inner->has_result);
	ktap_result_release(&r);
	/* 63 tabs fill the 64-byte line buffer; the scan read byte 64 (ASan). */
	{
		static const char rest[] = "\nnot ok 1 deep\n";
		char line[63 + sizeof(rest)];

		memset(line, '\t', 63);
		memcpy(line + 63, rest, sizeof(rest));
		parse_str(&r, line);
	}
	REQUIRE(r.root.nchildren == 1);
	CHECK_STR(r.root.children[0].name, "deep");
	CHECK(!r.root.children[0].ok);
	ktap_result_release(&r);
}

TESTS(ktap__real_kunit_cpumask_with_kernel_lines, ktap__real_boot_has_both_documents,
      ktap__document_headers,
      ktap__directives_and_diagnostics, ktap__old_tap14_form,
      ktap__cut_off_document_and_plan_mismatch, ktap__deeper_nesting_and_odd_indentation,
      ktap__garbage_bytes_do_not_break_parsing, ktap__walk_paths, ktap__kernel_message_cutting_a_line,
      ktap__empty_and_no_ktap, ktap__empty_line, ktap__console_starting_with_empty_line,
      ktap__tab_indented_subtests)
