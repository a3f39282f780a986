/* Unit tests of the commit checks (src/checks.c, checks_parse.c, checks_dup.c, checkmail.c). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <git2.h>

#include "t.h"
#include "checkmail.h"
#include "checks.h"
#include "conf.h"
#include "day.h"
#include "error.h"
#include "history.h"
#include "text.h"
#include "util.h"

/* ---- the parsers ---- */

static unsigned problems_of(const char *msg, size_t *n, char **subject)
{
	struct fixes_list l;
	unsigned p;

	fixes_parse(&l, msg, strlen(msg));
	*n = l.n;
	p = l.n ? l.v[0].problems : 0;
	if (subject)
		*subject = l.n && l.v[0].subject ? xstrdup(l.v[0].subject) : NULL;
	fixes_list_release(&l);
	return p;
}

TEST(fixes__a_good_tag_has_no_problem)
{
	struct fixes_list l;
	const char *msg = "gpio: fix\n\nbody\n\nFixes: 0123456789ab (\"gpio: add it\")\n"
			  "Signed-off-by: A <a@ex.org>\n";

	fixes_parse(&l, msg, strlen(msg));
	REQUIRE(l.n == 1);
	CHECK_INT(l.total, 1);
	CHECK_INT(l.v[0].problems, 0);
	CHECK_STR(l.v[0].sha, "0123456789ab");
	CHECK_STR(l.v[0].subject, "gpio: add it");
	CHECK_STR(l.v[0].line, "Fixes: 0123456789ab (\"gpio: add it\")");
	fixes_list_release(&l);
}

/* The forms of the real mails (linux-next's archive), each with its problems. */
TEST(fixes__malformed_lines_have_their_problems)
{
	size_t n;
	char *subject = NULL;

	CHECK_INT(problems_of("x\n\nFixes: 993161d (\"crypto: qat - fix handling\")\n", &n, NULL),
		  FIXES_SHORT_SHA);
	CHECK_INT(problems_of("x\n\nFixes: 961de0a856e3 (\"mmc: sdhci-omap: Workaround errata regarding\n"
			      "SDR104/HS200 tuning failures (i929)\")\n", &n, NULL),
		  FIXES_NO_CLOSING_PAREN | FIXES_NO_CLOSING_QUOTE);
	CHECK_INT(problems_of("x\n\nFixes: 95b5a48c4f2b (\"KVM: VMX: Handle NMIs\", 2019-06-18)\n", &n,
			      &subject), FIXES_NO_CLOSING_QUOTE);
	CHECK_STR(subject, "KVM: VMX: Handle NMIs\", 2019-06-18");
	free(subject);
	CHECK_INT(problems_of("x\n\nFixes: Fixes: b05229f44228 (\"gre6: Cleanup GREv6 transmit path, call common\n",
			      &n, NULL),
		  FIXES_EXTRA_WORD | FIXES_NO_CLOSING_PAREN | FIXES_NO_CLOSING_QUOTE);
	CHECK_INT(problems_of("x\n\nFixes: 69aba7948cbe(\"nvmem: Add a simple NVMEM framework\")\n", &n,
			      NULL), FIXES_NO_SPACE);
	CHECK_INT(problems_of("x\n\nFixes: commit 0123456789ab (\"a\")\n", &n, NULL), FIXES_LEADING_WORD);
	CHECK_INT(problems_of("x\n\nFixes: 0123456789ab\n", &n, NULL), FIXES_NO_SUBJECT);
	CHECK_INT(problems_of("x\n\nFixes: the bug from last week\n", &n, NULL), FIXES_NO_SHA);
	CHECK_INT(problems_of("x\n\n   fixes:\t0123456789ab \xe2\x80\x9c" "a b\xe2\x80\x9d\n", &n, &subject), 0);
	CHECK_INT(n, 1);
	CHECK_STR(subject, "a b");
	free(subject);
	CHECK_INT(problems_of("x\n\nnot a Fixes: 0123 line\nPrefixes: 0123456789ab (\"a\")\n", &n, NULL), 0);
	CHECK_INT(n, 0);
	/* the subject of a commit of a tree called "fixes" */
	CHECK_INT(problems_of("fixes: two\n\nSigned-off-by: A <a@ex.org>\n", &n, NULL), 0);
	CHECK_INT(n, 0);
}

TEST(fixes__ten_thousand_tags_are_bounded_and_counted)
{
	struct buf msg = BUF_INIT;
	struct fixes_list l;
	int i;

	buf_puts(&msg, "x\n\n");
	for (i = 0; i < 10000; i++)
		buf_printf(&msg, "Fixes: %012x (\"s\")\n", i);
	fixes_parse(&l, msg.ptr, msg.len);
	CHECK_INT(l.n, CHECKS_MAX_FIXES);
	CHECK_INT(l.total, 10000);
	fixes_list_release(&l);
	buf_release(&msg);
}

TEST(fixes__a_line_is_kept_short_and_in_utf8)
{
	struct buf msg = BUF_INIT;
	struct fixes_list l;
	int i;

	buf_puts(&msg, "x\n\nFixes: 0123456789ab (\"caf\xe9 ");
	for (i = 0; i < 300; i++)
		buf_puts(&msg, "\xc3\xa9");	/* é, two bytes: the cut lands inside one */
	buf_puts(&msg, "\")\n");
	fixes_parse(&l, msg.ptr, msg.len);
	REQUIRE(l.n == 1);
	CHECK(strlen(l.v[0].line) <= CHECKS_MAX_LINE);
	CHECK(utf8_valid(l.v[0].line, strlen(l.v[0].line)));
	CHECK(utf8_valid(l.v[0].subject, strlen(l.v[0].subject)));
	CHECK(!strncmp(l.v[0].line, "Fixes: 0123456789ab (\"caf\xef\xbf\xbd \xc3\xa9", 29));
	fixes_list_release(&l);
	buf_release(&msg);
}

TEST(fixes__subjects_match_as_check_fixes_does)
{
	const char *t = "gpio: add the legacy API back";

	CHECK(fixes_subject_matches("gpio: add the legacy API back", t));
	CHECK(fixes_subject_matches("gpio: add the legacy", t));
	CHECK(fixes_subject_matches("gpio: add the ...", t));
	CHECK(fixes_subject_matches("...the legacy API back", t));
	CHECK(fixes_subject_matches("gpio: add ... API back", t));
	CHECK(fixes_subject_matches("  gpio: add the legacy API back  ", t));
	CHECK(!fixes_subject_matches("gpio: add the legacy API", "gpio: add the leg"));
	CHECK(!fixes_subject_matches("gpio: remove the legacy API", t));
	CHECK(!fixes_subject_matches("gpio: add ... API front", t));
	CHECK(!fixes_subject_matches("KVM: VMX: Handle NMIs\", 2019-06-18", "KVM: VMX: Handle NMIs"));
}

TEST(fixes__problem_names_and_sentences)
{
	unsigned bit;

	for (bit = 1; bit < 1u << FIXES_NPROBLEMS; bit <<= 1) {
		CHECK(fixes_problem_name(bit) != NULL);
		CHECK(fixes_problem_text(bit) != NULL);
		CHECK_INT(fixes_problem_parse(fixes_problem_name(bit)), bit);
	}
	CHECK(!fixes_problem_name(3));
	CHECK_INT(fixes_problem_parse("no-such-problem"), 0);
}

TEST(signoff__author_and_committer_by_address_name_or_map)
{
	struct person a = { "Ann Author", "ann@ex.org" }, c = { "Carl Committer", "carl@ex.org" };
	struct person am = { "Ann Author", "ann@new.example" };
	const char *both = "x\n\nSigned-off-by: Ann Author <ann@ex.org>\nSigned-off-by: Carl Committer <carl@ex.org>\n";
	const char *by_case = "x\n\n  signed-off-by: someone <ANN@EX.ORG>\nSIGNED-OFF-BY: carl committer <c@elsewhere>\n";
	const char *mapped = "x\n\nSigned-off-by: A. <ann@new.example>\nSigned-off-by: Carl Committer <carl@ex.org>\n";

	CHECK_INT(signoff_missing(both, strlen(both), &a, NULL, &c, NULL), 0);
	CHECK_INT(signoff_missing(by_case, strlen(by_case), &a, NULL, &c, NULL), 0);
	CHECK_INT(signoff_missing(mapped, strlen(mapped), &a, NULL, &c, NULL), SIGNOFF_AUTHOR);
	CHECK_INT(signoff_missing(mapped, strlen(mapped), &a, &am, &c, NULL), 0);
	CHECK_INT(signoff_missing("x\n", 2, &a, NULL, &c, NULL), SIGNOFF_AUTHOR | SIGNOFF_COMMITTER);
	CHECK_INT(signoff_missing(both, strlen(both), &a, NULL, &a, NULL), 0);
	/* An empty name or address names nobody. */
	{
		struct person empty = { "", "" };

		CHECK_INT(signoff_missing("x\n\nSigned-off-by: <>\n", 21, &empty, NULL, &empty, NULL),
			  SIGNOFF_AUTHOR | SIGNOFF_COMMITTER);
	}
}

/* ---- the record ---- */

TEST(record__checks_round_trip_and_bad_types_are_named)
{
	struct day_checks *c = day_checks_new(), *back = NULL;
	struct day_finding *f = day_finding_new();
	json_t *j, *bad;
	char *text;

	c->status = xstrdup("ok");
	c->commits = 3;
	f->kind = xstrdup("fetch-failed");
	f->tree = xstrdup("gpio");
	f->since = xstrdup("2026-12-01");
	f->days = 2;
	day_finding_set_has(f, "days");
	day_checks_add(c, f);
	j = day_checks_to_json(c);
	text = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
	CHECK_STR(text, "{\"commits\":3,\"fetch_failed_after\":0,\"findings\":[{\"commit\":null,"
			"\"days\":2,\"kind\":\"fetch-failed\",\"since\":\"2026-12-01\",\"tree\":\"gpio\"}],"
			"\"seconds\":0.0,\"stale_after\":0,\"status\":\"ok\",\"trees\":0}");
	free(text);
	REQUIRE(day_checks_from_json(&back, j, "day.json") == 0);
	CHECK_INT(back->findings.n, 1);
	CHECK_INT(back->findings.v[0]->days, 2);
	CHECK_STR(back->findings.v[0]->since, "2026-12-01");
	day_checks_free(back);
	bad = json_deep_copy(j);
	json_object_set_new(json_array_get(json_object_get(bad, "findings"), 0), "days",
			    json_string("two"));
	CHECK_INT(day_checks_from_json(&back, bad, "day.json"), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "\"days\" is not an integer") != NULL);
	tide_error_clear();
	json_object_set_new(bad, "findings", json_pack("[s]", "x"));
	CHECK_INT(day_checks_from_json(&back, bad, "day.json"), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "\"findings\" is not a list of objects") != NULL);
	tide_error_clear();
	json_decref(bad);
	json_decref(j);
	day_checks_free(c);
}

/* ---- a day in a throw-away repository ---- */

static git_repository *repo;
static char *repo_dir;
static long long clock_now;

static void repo_open(void)
{
	char tmpl[] = "/tmp/tide-test-checks.XXXXXX";

	git_libgit2_init();
	if (!mkdtemp(tmpl))
		abort();
	repo_dir = xstrdup(tmpl);
	if (git_repository_init(&repo, repo_dir, 1) < 0)
		abort();
	clock_now = 1793491200;	/* 2026-11-01 */
}

static void repo_close(void)
{
	git_repository_free(repo);
	repo = NULL;
	rm_rf(repo_dir);
	free(repo_dir);
	git_libgit2_shutdown();
}

struct who {
	const char *name, *email;
};

static const struct who ann = { "Ann Author", "ann@ex.org" };
static const struct who carl = { "Carl Committer", "carl@ex.org" };

/*
 * A commit on p1 (and p2) with "path=content" specs applied (content
 * "-" removes, "gitlink:HEX" is a submodule's commit), authored and committed as given (NULL: Ann both), a
 * minute after the one before; encoding names the message's charset.
 */
static git_oid commit_by(const char *msg, const char *const *specs, const git_oid *p1,
			 const git_oid *p2, const struct who *author, const struct who *committer,
			 const char *encoding)
{
	git_signature *as = NULL, *cs = NULL;
	git_commit *parents[2] = { NULL, NULL };
	git_tree *base = NULL, *tree = NULL;
	git_index *idx = NULL;
	git_oid oid, tree_id;
	size_t n = 0;

	author = author ? author : &ann;
	committer = committer ? committer : author;
	if (p1)
		git_commit_lookup(&parents[n++], repo, p1);
	if (p2)
		git_commit_lookup(&parents[n++], repo, p2);
	if (git_index_new(&idx) < 0)
		abort();
	if (p1 && (git_commit_tree(&base, parents[0]) < 0 || git_index_read_tree(idx, base) < 0))
		abort();
	for (; specs && *specs; specs++) {
		const char *eq = strchr(*specs, '=');
		char *path = xstrndup(*specs, (size_t)(eq - *specs));
		git_index_entry e;

		if (!strcmp(eq + 1, "-")) {
			git_index_remove_bypath(idx, path);
			free(path);
			continue;
		}
		memset(&e, 0, sizeof(e));
		e.mode = GIT_FILEMODE_BLOB;
		e.path = path;
		if (!strncmp(eq + 1, "gitlink:", 8)) {
			e.mode = GIT_FILEMODE_COMMIT;
			if (git_oid_fromstr(&e.id, eq + 9) < 0)
				abort();
		} else if (git_blob_create_from_buffer(&e.id, repo, eq + 1, strlen(eq + 1)) < 0) {
			abort();
		}
		if (git_index_add(idx, &e) < 0)
			abort();
		free(path);
	}
	if (git_index_write_tree_to(&tree_id, idx, repo) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) < 0)
		abort();
	clock_now += 60;
	git_signature_new(&as, author->name, author->email, clock_now, 0);
	git_signature_new(&cs, committer->name, committer->email, clock_now, 0);
	if (git_commit_create(&oid, repo, NULL, as, cs, encoding, msg, tree, n,
			      (const git_commit **)parents) < 0)
		abort();
	git_commit_free(parents[0]);
	git_commit_free(parents[1]);
	git_tree_free(base);
	git_tree_free(tree);
	git_index_free(idx);
	git_signature_free(as);
	git_signature_free(cs);
	return oid;
}

static git_oid commit(const char *msg, const char *const *specs, const git_oid *p1)
{
	return commit_by(msg, specs, p1, NULL, NULL, NULL, NULL);
}

static char *hex(const git_oid *id)
{
	return history_oid_hex(id);
}

/* A day on base with the trees' tips merged in order (each a merge commit). */
static struct day *make_day(const char *date, const git_oid *base, const char *const *names,
			    const git_oid *tips, size_t n)
{
	struct day *d = day_new();
	git_oid state = *base;
	size_t i;

	d->date = xstrdup(date);
	d->tag = day_tag_for(date);
	d->project = xstrdup("linux-next");
	d->base_commit = hex(base);
	for (i = 0; i < n; i++) {
		struct day_tree *t = day_add_tree(d);

		t->name = xstrdup(names[i]);
		t->sha = hex(&tips[i]);
		t->status = TREE_MERGED;
		t->fetch_status = xstrdup("ok");
		state = commit_by("Merge", NULL, &state, &tips[i], &carl, NULL, NULL);
		t->merge_commit = hex(&state);
	}
	d->commit = hex(&state);
	return d;
}

static struct day *check(struct day *d, const struct day *prev)
{
	struct checks_opts o = { 0 };

	CHECK_INT(checks_day(d, prev, repo, &o), 0);
	CHECK_STR(d->checks->status, "ok");
	return d;
}

/* The findings as "kind tree subject: detail" lines, in order. */
static char *findings_text(const struct day *d)
{
	struct buf b = BUF_INIT;
	const json_t *t, *p;
	size_t i, j, k;

	for (i = 0; i < d->checks->findings.n; i++) {
		const struct day_finding *f = d->checks->findings.v[i];

		buf_printf(&b, "%s %s %s", f->kind, f->tree ? f->tree : "-",
			   f->subject ? f->subject : "-");
		json_array_foreach(f->tags, j, t)
			json_array_foreach(json_object_get(t, "problems"), k, p)
				buf_printf(&b, " %s", json_string_value(p));
		if (f->missing)
			buf_printf(&b, " %s", f->missing);
		if (f->other_tree)
			buf_printf(&b, " %s:%s", f->other_tree, f->other_subject ? f->other_subject : "?");
		if (f->days)
			buf_printf(&b, " %lld", f->days);
		buf_printf(&b, " since %s\n", f->since);
	}
	return buf_detach(&b);
}

static const char *sob_ann = "\n\nSigned-off-by: Ann Author <ann@ex.org>\n";

TEST(checks__fixes_targets_in_the_day_mainline_nowhere_or_not_commits)
{
	const char *f1[] = { "f=1", NULL }, *g1[] = { "g=1", NULL }, *g2[] = { "g=2", NULL },
		   *n1[] = { "n=1", NULL };
	git_oid base, lost, blob, tips[2];
	const char *names[] = { "gpio", "net" };
	struct buf msg = BUF_INIT;
	struct day *d;
	char *b, *l, *t, *text, *g;

	repo_open();
	base = commit("mainline: first\n\nSigned-off-by: Ann Author <ann@ex.org>\n", f1, NULL);
	lost = commit("gpio: rebased away", g1, &base);
	tips[0] = commit("gpio: add g\n\nSigned-off-by: Ann Author <ann@ex.org>\n", g1, &base);
	g = hex(&tips[0]);
	git_blob_create_from_buffer(&blob, repo, "a blob\n", 7);
	b = hex(&base), l = hex(&lost), t = hex(&blob);
	buf_printf(&msg, "gpio: fix\n\nFixes: %.12s (\"mainline: first\")\nFixes: %.12s (\"mainline: frist\")\n"
		   "Fixes: %.8s (\"mainline: first\")\nFixes: %.12s (\"gpio: rebased away\")\n"
		   "Fixes: %s (\"a blob\")\nFixes: 0123456789abcdef (\"nowhere\")\n"
		   "Fixes: %.12s (\"gpio: add g\")%s", b, b, b, l, t, g, sob_ann);
	tips[0] = commit_by(msg.ptr, g2, &tips[0], NULL, NULL, NULL, NULL);
	tips[1] = commit("net: add n\n\nSigned-off-by: Ann Author <ann@ex.org>\n", n1, &base);
	d = check(make_day("2026-12-01", &base, names, tips, 2), NULL);
	text = findings_text(d);
	CHECK_STR(text, "fixes gpio gpio: fix subject-mismatch short-sha not-in-day not-a-commit "
			"not-found since 2026-12-01\n");
	CHECK_INT(d->checks->commits, 3);
	CHECK_INT(d->checks->trees, 2);
	CHECK_INT(d->checks->findings.v[0]->tags_total, 7);
	CHECK_INT(json_array_size(d->checks->findings.v[0]->tags), 5);
	CHECK_STR(json_string_value(json_object_get(json_array_get(d->checks->findings.v[0]->tags, 0),
						    "target_subject")), "mainline: first");
	free(text);
	free(b), free(l), free(t), free(g);
	buf_release(&msg);
	day_free(d);
	repo_close();
}

TEST(checks__ten_thousand_fixes_lines_and_a_latin1_message_are_one_finding)
{
	const char *f1[] = { "f=1", NULL }, *g1[] = { "g=1", NULL }, *g2[] = { "g=2", NULL };
	const struct who latin = { "Ren\xe9 Dupont", "rene@ex.org" };
	const char *names[] = { "gpio" };
	struct buf msg = BUF_INIT;
	git_oid base, tips[1];
	struct day *d;
	int i;

	repo_open();
	base = commit("mainline: first", f1, NULL);
	buf_puts(&msg, "gpio: many\n\n");
	for (i = 0; i < 10000; i++)
		buf_printf(&msg, "Fixes: %.12s (\"mainline: first\")\n", "000000000000");
	buf_puts(&msg, "Signed-off-by: Ann Author <ann@ex.org>\n");
	tips[0] = commit_by(msg.ptr, g1, &base, NULL, NULL, NULL, NULL);
	/* ISO-8859-1 throughout, the sign-off naming the author by name only */
	tips[0] = commit_by("gpio: caf\xe9\n\nSigned-off-by: Ren\xe9 Dupont <other@ex.org>\n"
			    "Signed-off-by: Ann Author <ann@ex.org>\n", g2, &tips[0], NULL, &latin,
			    &ann, "ISO-8859-1");
	d = check(make_day("2026-12-01", &base, names, tips, 1), NULL);
	REQUIRE(d->checks->findings.n == 1);
	CHECK_STR(d->checks->findings.v[0]->subject, "gpio: many");
	CHECK_INT(d->checks->findings.v[0]->tags_total, 10000);
	CHECK_INT(json_array_size(d->checks->findings.v[0]->tags), CHECKS_MAX_FIXES);
	buf_release(&msg);
	day_free(d);
	repo_close();
}

TEST(checks__signoffs_of_author_and_committer)
{
	const char *f1[] = { "f=1", NULL }, *g1[] = { "g=1", NULL }, *g2[] = { "g=2", NULL },
		   *g3[] = { "g=3", NULL };
	const char *names[] = { "gpio" };
	git_oid base, tips[1];
	struct day *d;
	char *text;

	repo_open();
	base = commit("mainline: first", f1, NULL);
	tips[0] = commit_by("gpio: no committer\n\nSigned-off-by: Ann Author <ann@ex.org>\n", g1,
			    &base, NULL, &ann, &carl, NULL);
	tips[0] = commit_by("gpio: no author\n\nSigned-off-by: Carl Committer <carl@ex.org>\n", g2,
			    &tips[0], NULL, &ann, &carl, NULL);
	tips[0] = commit_by("gpio: none\n", g3, &tips[0], NULL, &ann, &carl, NULL);
	d = check(make_day("2026-12-01", &base, names, tips, 1), NULL);
	text = findings_text(d);
	CHECK_STR(text, "signoff gpio gpio: none author and committer since 2026-12-01\n"
			"signoff gpio gpio: no author author since 2026-12-01\n"
			"signoff gpio gpio: no committer committer since 2026-12-01\n");
	free(text);
	day_free(d);
	/* a quilt tree's commits are committed by tide: only the author's sign-off counts */
	d = make_day("2026-12-01", &base, names, tips, 1);
	d->trees[0].type = xstrdup("quilt");
	check(d, NULL);
	text = findings_text(d);
	CHECK_STR(text, "signoff gpio gpio: none author since 2026-12-01\n"
			"signoff gpio gpio: no author author since 2026-12-01\n");
	free(text);
	day_free(d);
	repo_close();
}

TEST(checks__the_bases_mailmap_names_the_author)
{
	const char *f1[] = { "f=1", ".mailmap=Ann Author <ann@new.example> <ann@ex.org>\n", NULL },
		   *g1[] = { "g=1", NULL };
	const char *names[] = { "gpio" };
	git_oid base, tips[1];
	struct day *d;

	repo_open();
	base = commit("mainline: first", f1, NULL);
	tips[0] = commit("gpio: signed with the new address\n\n"
			 "Signed-off-by: A. Author <ann@new.example>\n", g1, &base);
	d = check(make_day("2026-12-01", &base, names, tips, 1), NULL);
	CHECK_INT(d->checks->findings.n, 0);
	day_free(d);
	repo_close();
}

TEST(checks__duplicates_across_trees_and_with_mainline)
{
	const char *f1[] = { "f=1", NULL }, *m1[] = { "m=1", NULL }, *g1[] = { "g=1", NULL },
		   *n1[] = { "n=1", NULL }, *n2[] = { "n=2", NULL };
	const char *names[] = { "gpio", "net" };
	git_oid base, fork, fix, tips[2];
	struct day *d;
	char *text;

	repo_open();
	fork = commit("mainline: first\n\nSigned-off-by: Ann Author <ann@ex.org>\n", f1, NULL);
	/* mainline took the net fix after net forked */
	fix = commit("mainline: the n fix\n\nSigned-off-by: Ann Author <ann@ex.org>\n", n1, &fork);
	base = commit("mainline: more\n\nSigned-off-by: Ann Author <ann@ex.org>\n", m1, &fix);
	tips[0] = commit("gpio: g\n\nSigned-off-by: Ann Author <ann@ex.org>\n", g1, &fork);
	tips[1] = commit("net: the n fix\n\nSigned-off-by: Ann Author <ann@ex.org>\n", n1, &fork);
	tips[1] = commit("net: g again\n\nSigned-off-by: Ann Author <ann@ex.org>\n", g1, &tips[1]);
	tips[1] = commit("net: n2\n\nSigned-off-by: Ann Author <ann@ex.org>\n", n2, &tips[1]);
	d = check(make_day("2026-12-01", &base, names, tips, 2), NULL);
	text = findings_text(d);
	CHECK_STR(text, "duplicate net net: g again gpio:gpio: g since 2026-12-01\n"
			"duplicate net net: the n fix mainline:mainline: the n fix since 2026-12-01\n");
	/* the newer commit of the pair is the one told, the older is "other" */
	free(text);
	day_free(d);
	repo_close();
}

/*
 * The patch-id: the same change at another place of the file, or in a
 * tree whose other files differ, is the same patch; the same lines in
 * another file, or with other context, are not.  Paths in git's order
 * ("foo.c" before the directory "foo") are paired right.
 */
TEST(checks__patch_ids_see_the_change_not_where_it_lands)
{
	const char *base_f[] = { "f=a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n", NULL },
		   *moved[] = { "f=0\n1\n2\n3\n4\n5\n6\n7\na\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n",
				"foo/x=1", NULL },
		   *g1[] = { "f=a\nb\nc\nd\ne\nf\nNEW\ng\nh\ni\nj\nk\nl\n", NULL },
		   *g2[] = { "f=0\n1\n2\n3\n4\n5\n6\n7\na\nb\nc\nd\ne\nf\nNEW\ng\nh\ni\nj\nk\nl\n",
			     "other=x", NULL },
		   *g3[] = { "foo.c=2", NULL };
	const char *names[] = { "gpio", "net", "spi", "usb" };
	git_oid base, fork2, tips[4];
	struct day *d;
	char *text;

	repo_open();
	base = commit("mainline: first\n\nSigned-off-by: Ann Author <ann@ex.org>\n", base_f, NULL);
	fork2 = commit("mainline: lines before\n\nSigned-off-by: Ann Author <ann@ex.org>\n", moved, &base);
	tips[0] = commit("gpio: NEW\n\nSigned-off-by: Ann Author <ann@ex.org>\n", g1, &base);
	/* net: forked later (8 lines above) and with another file added first */
	tips[1] = commit("net: other\n\nSigned-off-by: Ann Author <ann@ex.org>\n", (const char *[]){ "other=x", NULL }, &fork2);
	tips[1] = commit("net: NEW too\n\nSigned-off-by: Ann Author <ann@ex.org>\n", g2, &tips[1]);
	/* foo.c added next to no foo/, and next to foo/: the same patch */
	tips[2] = commit("spi: foo.c\n\nSigned-off-by: Ann Author <ann@ex.org>\n", g3, &base);
	tips[3] = commit("usb: foo.c\n\nSigned-off-by: Ann Author <ann@ex.org>\n", g3, &fork2);
	d = check(make_day("2026-12-01", &fork2, names, tips, 4), NULL);
	text = findings_text(d);
	CHECK_STR(text, "duplicate net net: NEW too gpio:gpio: NEW since 2026-12-01\n"
			"duplicate usb usb: foo.c spi:spi: foo.c since 2026-12-01\n");
	free(text);
	day_free(d);
	repo_close();
}

/*
 * A gitlink (mode 160000) names a commit of another repository, absent
 * here: its change is the line "Subproject commit <id>", as git's diff
 * shows it, never an object to read.
 */
TEST(checks__a_gitlink_is_its_commit_id_never_read)
{
	const char *f1[] = { "f=1", NULL },
		   *s1[] = { "sub=gitlink:16033998da4b273aebd92c84b1e1b12e4aaf7009", NULL },
		   *s2[] = { "sub=gitlink:4125f78222749cb8fc91115abec3ac83e5dfb194", NULL },
		   *s3[] = { "sub=-", "sub2=gitlink:4125f78222749cb8fc91115abec3ac83e5dfb194", NULL };
	const char *names[] = { "gpio", "net", "spi", "usb" };
	git_oid base, tips[4];
	struct day *d;
	char *text;

	repo_open();
	base = commit("mainline: first\n\nSigned-off-by: Ann Author <ann@ex.org>\n", f1, NULL);
	tips[0] = commit("gpio: sub\n\nSigned-off-by: Ann Author <ann@ex.org>\n", s1, &base);
	tips[1] = commit("net: the same sub\n\nSigned-off-by: Ann Author <ann@ex.org>\n", s1, &base);
	tips[2] = commit("spi: another sub\n\nSigned-off-by: Ann Author <ann@ex.org>\n", s2, &base);
	/* the submodule moved on, then moved to another path: other changes */
	tips[3] = commit("usb: sub\n\nSigned-off-by: Ann Author <ann@ex.org>\n", s1, &base);
	tips[3] = commit("usb: sub moved on\n\nSigned-off-by: Ann Author <ann@ex.org>\n", s2, &tips[3]);
	tips[3] = commit("usb: sub2\n\nSigned-off-by: Ann Author <ann@ex.org>\n", s3, &tips[3]);
	d = check(make_day("2026-12-01", &base, names, tips, 4), NULL);
	text = findings_text(d);
	CHECK_STR(text, "duplicate net net: the same sub gpio:gpio: sub since 2026-12-01\n"
			"duplicate usb usb: sub net:net: the same sub since 2026-12-01\n"
			"duplicate usb usb: sub gpio:gpio: sub since 2026-12-01\n");
	free(text);
	day_free(d);
	repo_close();
}

TEST(checks__empty_commits_and_trees_of_merges_only)
{
	const char *f1[] = { "f=1", NULL }, *f2[] = { "f=2", NULL }, *g1[] = { "g=1", NULL };
	const char *names[] = { "gpio", "back" };
	git_oid base, old, tips[2];
	struct day *d;
	char *text;

	repo_open();
	old = commit("mainline: first\n\nSigned-off-by: Ann Author <ann@ex.org>\n", f1, NULL);
	base = commit("mainline: second\n\nSigned-off-by: Ann Author <ann@ex.org>\n", f2, &old);
	tips[0] = commit("gpio: g\n\nSigned-off-by: Ann Author <ann@ex.org>\n", g1, &base);
	tips[0] = commit("gpio: nothing\n\nSigned-off-by: Ann Author <ann@ex.org>\n", NULL, &tips[0]);
	tips[1] = commit_by("Merge mainline\n", NULL, &old, &base, NULL, NULL, NULL);
	d = check(make_day("2026-12-01", &base, names, tips, 2), NULL);
	text = findings_text(d);
	CHECK_STR(text, "empty gpio gpio: nothing since 2026-12-01\n"
			"merge-only back Merge mainline since 2026-12-01\n");
	free(text);
	day_free(d);
	repo_close();
}

TEST(checks__a_finding_is_carried_while_its_commit_is_in_the_day)
{
	const char *f1[] = { "f=1", NULL }, *g1[] = { "g=1", NULL }, *g2[] = { "g=2", NULL };
	const char *names[] = { "gpio" };
	git_oid base, bad, tips[1];
	struct day *d1, *d2, *d3;
	char *text;

	repo_open();
	base = commit("mainline: first", f1, NULL);
	bad = commit("gpio: unsigned\n", g1, &base);
	tips[0] = bad;
	d1 = check(make_day("2026-12-01", &base, names, tips, 1), NULL);
	tips[0] = commit("gpio: more\n\nSigned-off-by: Ann Author <ann@ex.org>\n", g2, &bad);
	d2 = check(make_day("2026-12-02", &base, names, tips, 1), d1);
	text = findings_text(d2);
	CHECK_STR(text, "signoff gpio gpio: unsigned author and committer since 2026-12-01\n");
	CHECK_INT(d2->checks->commits, 1);
	free(text);
	/* rebased: the unsigned commit is gone, and so is the finding */
	tips[0] = commit("gpio: signed\n\nSigned-off-by: Ann Author <ann@ex.org>\n", g1, &base);
	d3 = check(make_day("2026-12-03", &base, names, tips, 1), d2);
	text = findings_text(d3);
	CHECK_STR(text, "");
	free(text);
	day_free(d1), day_free(d2), day_free(d3);
	repo_close();
}

static long long mainline_count(const struct day *d, const char *key)
{
	return json_integer_value(json_object_get(d->checks->mainline, key));
}

/* d's commit made a merge of base and its tree's tip whose tree has specs applied. */
static struct day *day_on_tip(struct day *d, const git_oid *base, const char *const *specs)
{
	git_oid tip, merge;

	if (git_oid_fromstr(&tip, d->trees[0].sha) < 0)
		abort();
	merge = commit_by("Merge", specs, base, &tip, &carl, NULL, NULL);
	free(d->commit);
	d->commit = hex(&merge);
	return d;
}

/*
 * The diffstat against the base is yesterday's when the base and the
 * tree are yesterday's (a count planted in yesterday's record shows it
 * is not made again), and is made when either changed.
 */
TEST(checks__the_diffstat_of_an_unchanged_day_is_yesterdays)
{
	const char *f1[] = { "f=1", NULL }, *g1[] = { "g=1\n2\n", NULL }, *g2[] = { "g=2", NULL };
	const char *names[] = { "gpio" };
	git_oid base, tips[1];
	struct day *d1, *d2, *d3;

	repo_open();
	base = commit("mainline: first", f1, NULL);
	tips[0] = commit("gpio: g\n\nSigned-off-by: Ann Author <ann@ex.org>\n", g1, &base);
	/* make_day()'s merges keep the base's tree: the day's commit has the tip's */
	d1 = day_on_tip(make_day("2026-12-01", &base, names, tips, 1), &base, g1);
	check(d1, NULL);
	CHECK_INT(mainline_count(d1, "files"), 1);
	CHECK_INT(mainline_count(d1, "insertions"), 2);
	json_object_set_new(d1->checks->mainline, "insertions", json_integer(77));
	d2 = day_on_tip(make_day("2026-12-02", &base, names, tips, 1), &base, g1);
	check(d2, d1);
	CHECK_INT(mainline_count(d2, "commits"), 1);
	CHECK_INT(mainline_count(d2, "insertions"), 77);
	tips[0] = commit("gpio: g2\n\nSigned-off-by: Ann Author <ann@ex.org>\n", g2, &tips[0]);
	d3 = day_on_tip(make_day("2026-12-03", &base, names, tips, 1), &base, g2);
	check(d3, d2);
	CHECK_INT(mainline_count(d3, "insertions"), 1);
	day_free(d1), day_free(d2), day_free(d3);
	repo_close();
}

TEST(checks__stale_trees_and_fetches_failing_day_after_day)
{
	const char *f1[] = { "f=1", NULL }, *g1[] = { "g=1", NULL }, *n1[] = { "n=1", NULL };
	const char *names[] = { "gpio", "net" };
	git_oid base, tips[2];
	struct day *d1, *d2;
	char *text;

	repo_open();
	base = commit("mainline: first", f1, NULL);
	tips[0] = commit("gpio: old\n\nSigned-off-by: Ann Author <ann@ex.org>\n", g1, &base);
	tips[1] = commit("net: n\n\nSigned-off-by: Ann Author <ann@ex.org>\n", n1, &base);
	/* more than 365 days after the commits (2026-11-01) */
	d1 = make_day("2027-11-03", &base, names, tips, 2);
	free(d1->trees[1].fetch_status);
	d1->trees[1].fetch_status = xstrdup("stale");
	d1->trees[1].fetch_error = xstrdup("cannot fetch 'https://u:Sekr1t@git.ex.org/net': 503");
	d1->trees[1].url = xstrdup("https://u:Sekr1t@git.ex.org/net");
	check(d1, NULL);
	text = findings_text(d1);
	CHECK_STR(text, "stale gpio gpio: old 366 since 2027-11-03\n"
			"stale net net: n 366 since 2027-11-03\n"
			"fetch-failed net - 1 since 2027-11-03\n");
	free(text);
	CHECK(!strstr(d1->checks->findings.v[2]->error, "Sekr1t"));
	CHECK(!strstr(d1->checks->findings.v[2]->url, "Sekr1t"));
	d2 = make_day("2027-11-04", &base, names, tips, 2);
	free(d2->trees[1].fetch_status);
	d2->trees[1].fetch_status = xstrdup("failed");
	check(d2, d1);
	CHECK_STR(d2->checks->findings.v[2]->kind, "fetch-failed");
	CHECK_INT(d2->checks->findings.v[2]->days, 2);
	CHECK_STR(d2->checks->findings.v[2]->since, "2027-11-03");
	CHECK_STR(d2->checks->findings.v[0]->since, "2027-11-03");
	CHECK_INT(d2->checks->findings.v[0]->days, 367);
	day_free(d1), day_free(d2);
	repo_close();
}

/* ---- the mails ---- */

static int never_mailed(const char *key, void *data)
{
	(void)key, (void)data;
	return 0;
}

static int all_mailed(const char *key, void *data)
{
	(void)key, (void)data;
	return 1;
}

TEST(checkmail__one_mail_per_kind_and_tree_and_only_once)
{
	const char *f1[] = { "f=1", NULL }, *g1[] = { "g=1", NULL };
	const char *names[] = { "gpio" };
	const char *conf_text = "#tide\tbase\t/m#v1\ngpio\tgit\t/g#master\n#tide\tgpio\tcontact=gpio@ex.org\n";
	struct trees_conf *conf = NULL;
	struct checks_mail *m = NULL;
	git_oid base, tips[1];
	struct day *d;
	size_t n;

	repo_open();
	REQUIRE(trees_conf_parse(&conf, "/tmp/trees.conf", conf_text) == 0);
	base = commit("mainline: first", f1, NULL);
	tips[0] = commit_by("gpio: unsigned\n", g1, &base, NULL, &ann, &carl, NULL);
	d = check(make_day("2026-12-01", &base, names, tips, 1), NULL);
	n = checks_mails(&m, d, conf, "tide <t@ex.org>", NULL, never_mailed, NULL);
	REQUIRE(n == 1);
	CHECK_STR(m[0].msg.subject, "linux-next: Signed-off-by missing for commit in the gpio tree");
	CHECK_STR(m[0].msg.to[0], "gpio@ex.org");
	CHECK_STR(m[0].msg.cc[0], "\"Ann Author\" <ann@ex.org>");
	CHECK(strstr(m[0].msg.body, "\nis missing a Signed-off-by from its author and committer.\n") != NULL);
	CHECK_INT(m[0].nkeys, 1);
	checks_mails_free(m, n);
	CHECK_INT(checks_mails(&m, d, conf, "tide <t@ex.org>", NULL, all_mailed, NULL), 0);
	checks_mails_free(m, 0);
	trees_conf_free(conf);
	day_free(d);
	repo_close();
}

TESTS(fixes__a_good_tag_has_no_problem, fixes__malformed_lines_have_their_problems,
      fixes__ten_thousand_tags_are_bounded_and_counted, fixes__a_line_is_kept_short_and_in_utf8,
      fixes__subjects_match_as_check_fixes_does, fixes__problem_names_and_sentences,
      signoff__author_and_committer_by_address_name_or_map,
      record__checks_round_trip_and_bad_types_are_named,
      checks__fixes_targets_in_the_day_mainline_nowhere_or_not_commits,
      checks__ten_thousand_fixes_lines_and_a_latin1_message_are_one_finding,
      checks__signoffs_of_author_and_committer, checks__the_bases_mailmap_names_the_author,
      checks__duplicates_across_trees_and_with_mainline,
      checks__patch_ids_see_the_change_not_where_it_lands,
      checks__a_gitlink_is_its_commit_id_never_read,
      checks__empty_commits_and_trees_of_merges_only,
      checks__a_finding_is_carried_while_its_commit_is_in_the_day,
      checks__the_diffstat_of_an_unchanged_day_is_yesterdays,
      checks__stale_trees_and_fetches_failing_day_after_day,
      checkmail__one_mail_per_kind_and_tree_and_only_once)
