/* Unit tests of the day's history contract (src/history.c). */
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "t.h"
#include "day.h"
#include "error.h"
#include "history.h"
#include "util.h"

static git_repository *repo;
static char *repo_dir;

static void repo_open(void)
{
	char tmpl[] = "/tmp/tide-test-history.XXXXXX";

	git_libgit2_init();
	if (!mkdtemp(tmpl))
		abort();
	repo_dir = xstrdup(tmpl);
	if (git_repository_init(&repo, repo_dir, 1) < 0)
		abort();
}

static void repo_close(void)
{
	git_repository_free(repo);
	repo = NULL;
	rm_rf(repo_dir);
	free(repo_dir);
	git_libgit2_shutdown();
}

/* A commit of the empty tree with message msg on top of the given parents. */
static git_oid commit_with(const char *msg, const git_oid *parents, size_t n)
{
	git_treebuilder *tb = NULL;
	git_signature *sig = NULL;
	const git_commit *pc[2] = { NULL, NULL };
	git_commit *owned[2] = { NULL, NULL };
	git_tree *tree = NULL;
	git_oid tree_id, id;
	size_t i;

	if (git_treebuilder_new(&tb, repo, NULL) < 0 || git_treebuilder_write(&tree_id, tb) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) < 0 ||
	    git_signature_new(&sig, "T", "t@example.org", 1700000000, 0) < 0)
		abort();
	for (i = 0; i < n; i++) {
		if (git_commit_lookup(&owned[i], repo, &parents[i]) < 0)
			abort();
		pc[i] = owned[i];
	}
	if (git_commit_create(&id, repo, NULL, sig, sig, NULL, msg, tree, n, pc) < 0)
		abort();
	for (i = 0; i < n; i++)
		git_commit_free(owned[i]);
	git_tree_free(tree);
	git_signature_free(sig);
	git_treebuilder_free(tb);
	return id;
}

static char *tree_of(const git_oid *id, int version)
{
	git_commit *c = NULL;
	char *v;

	if (git_commit_lookup(&c, repo, id) < 0)
		abort();
	v = version ? history_version_from(c) : history_tree_of(c);
	git_commit_free(c);
	return v;
}

TEST(history__merge_message_trailers_read_back)
{
	git_oid base, tip, m1, m2;
	char *msg, *v;

	repo_open();
	base = commit_with("base\n", NULL, 0);
	tip = commit_with("net: change\n", &base, 1);
	msg = history_merge_message("remote-tracking branch", "net/master", "net", NULL);
	CHECK_STR(msg, "Merge remote-tracking branch 'net/master'\n\nTide-Tree: net\n");
	m1 = commit_with(msg, (git_oid[]){ base, tip }, 2);
	free(msg);
	msg = history_merge_message("branch", "drv", "drv", "next-20261201");
	CHECK_STR(msg, "Merge branch 'drv'\n\nTide-Tree: drv\nTide-Version-From: next-20261201\n");
	m2 = commit_with(msg, (git_oid[]){ m1, tip }, 2);
	free(msg);

	CHECK_STR(v = tree_of(&m1, 0), "net");
	free(v);
	CHECK(!(v = tree_of(&m1, 1)));
	free(v);
	CHECK_STR(v = tree_of(&m2, 0), "drv");
	free(v);
	CHECK_STR(v = tree_of(&m2, 1), "next-20261201");
	free(v);
	CHECK(!(v = tree_of(&base, 0)));
	free(v);
	repo_close();
}

TEST(history__trailer_only_in_the_last_paragraph)
{
	git_oid base, a, b, c;
	char *v, *fixup = history_tree_trailer("gpio");

	repo_open();
	CHECK_STR(fixup, "Tide-Tree: gpio");
	base = commit_with("base\n", NULL, 0);
	/* A fixup commit: its own message, the trailer added as the last paragraph. */
	v = xasprintf("gpio: fix the build\n\nSigned-off-by: A <a@example.org>\n%s\n", fixup);
	a = commit_with(v, &base, 1);
	free(v);
	/* A tree's own commit quoting the trailer in its body is not a tide commit. */
	b = commit_with("doc: explain\n\nTide-Tree: fake\n\nThe text above is an example.\n", &a, 1);
	c = commit_with("x\n\nTide-Tree:\n", &b, 1);
	CHECK_STR(v = tree_of(&a, 0), "gpio");
	free(v);
	CHECK(!(v = tree_of(&b, 0)));
	free(v);
	CHECK(!(v = tree_of(&c, 0)));
	free(v);
	free(fixup);
	repo_close();
}

TEST(history__first_parents_oldest_first_without_hidden)
{
	git_oid base, side, m1, m2, *list = NULL;
	size_t n = 0;

	repo_open();
	base = commit_with("base\n", NULL, 0);
	side = commit_with("side\n", &base, 1);
	m1 = commit_with("m1\n", (git_oid[]){ base, side }, 2);
	m2 = commit_with("m2\n", &m1, 1);
	REQUIRE(history_first_parents(&list, &n, repo, &m2, &base) == 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK(git_oid_equal(&list[0], &m1));
		CHECK(git_oid_equal(&list[1], &m2));
	}
	free(list);
	REQUIRE(history_first_parents(&list, &n, repo, &m2, NULL) == 0);
	CHECK_INT(n, 3);	/* base, m1, m2: the side commit is not on the chain */
	if (n == 3)
		CHECK(git_oid_equal(&list[0], &base));
	free(list);
	repo_close();
}

TEST(history__state_before_a_tree_follows_merges_and_fixups)
{
	struct day *d = day_new();
	struct day_tree *a, *b, *c;
	git_oid out;
	char hex[GIT_OID_HEXSZ + 1];

	git_libgit2_init();	/* a bad id leaves a libgit2 error behind */
	d->date = xstrdup("2026-12-05");
	d->base_commit = xstrdup("1111111111111111111111111111111111111111");
	day_add_tree(d);
	day_add_tree(d);
	day_add_tree(d);
	day_add_tree(d);
	a = &d->trees[0], b = &d->trees[1], c = &d->trees[2];
	a->merge_commit = xstrdup("2222222222222222222222222222222222222222");
	a->handling.fixup_commit = xstrdup("3333333333333333333333333333333333333333");
	/* b left out: no merge commit */
	c->merge_commit = xstrdup("4444444444444444444444444444444444444444");
	c->sha = xstrdup("5555555555555555555555555555555555555555");
	c->handling.attempted_sha = xstrdup("6666666666666666666666666666666666666666");

	REQUIRE(history_state_before(&out, d, &d->trees[0]) == 0);
	CHECK_STR(git_oid_tostr(hex, sizeof(hex), &out), d->base_commit);
	REQUIRE(history_state_before(&out, d, b) == 0);
	CHECK_STR(git_oid_tostr(hex, sizeof(hex), &out), "3333333333333333333333333333333333333333");
	REQUIRE(history_state_before(&out, d, c) == 0);
	CHECK_STR(git_oid_tostr(hex, sizeof(hex), &out), "3333333333333333333333333333333333333333");
	REQUIRE(history_state_before(&out, d, &d->trees[3]) == 0);
	CHECK_STR(git_oid_tostr(hex, sizeof(hex), &out), "4444444444444444444444444444444444444444");
	CHECK_STR(day_tree_tip(c), "6666666666666666666666666666666666666666");
	CHECK(day_tree_tip(b) == NULL);

	free(c->merge_commit);
	c->merge_commit = xstrdup("not-a-commit");
	CHECK(history_state_before(&out, d, &d->trees[3]) == TIDE_EINVAL);
	tide_error_clear();
	day_free(d);
	git_libgit2_shutdown();
}

TESTS(history__merge_message_trailers_read_back,
      history__trailer_only_in_the_last_paragraph,
      history__first_parents_oldest_first_without_hidden,
      history__state_before_a_tree_follows_merges_and_fixups)
