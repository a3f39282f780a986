/*
 * Unit tests of src/try.c and src/try_series.c on a throw-away day made
 * with the git CLI: base, a merge per tree with its Tide-Tree: trailer,
 * the Next/ commit.
 */
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "day.h"
#include "error.h"
#include "merge.h"
#include "try.h"
#include "util.h"
#include "t.h"
#include "t_files.h"

static char *tmpdir(void)
{
	static int inited;

	if (!inited++)
		git_libgit2_init();
	return t_tmpdir("try");
}

/*
 * dir/r: base (tag base: f = 1..12, g), tree t1 changes f line 2, tree t2
 * changes g; the day merges t1 then t2 (--no-ff, Tide-Tree trailers) and
 * adds Next/; tag day.  dir/dev: branch ok (changes f line 9), branch
 * clash (changes f line 2).
 */
static int make_day(const char *dir)
{
	return t_sh_in(dir, T_GITENV
		  "git init -q -b main r && cd r && seq 1 12 >f && echo g >g && git add . && "
		  "git commit -qm base && git tag base && "
		  "git checkout -q -b t1 && sed -i s/^2$/2t1/ f && git commit -qam 't1: f' && "
		  "git checkout -q -b t2 base && echo g2 >g && git commit -qam 't2: g' && "
		  "git checkout -q -b day base && "
		  "git merge -q --no-ff -m \"Merge t1\" -m 'Tide-Tree: t1' t1 && "
		  "git merge -q --no-ff -m \"Merge t2\" -m 'Tide-Tree: t2' t2 && "
		  "mkdir Next && echo x >Next/Trees && git add Next && git commit -qm next && "
		  "git tag day && "
		  "git checkout -q -b ok base && sed -i s/^9$/9ok/ f && git commit -qam 'dev: ok' && "
		  "git checkout -q -b clash base && sed -i s/^2$/2dev/ f && git commit -qam 'dev: clash'");
}

static struct day *day_of(git_repository *repo)
{
	struct day *d = day_new();
	git_object *o = NULL;
	struct day_tree *t;

	d->date = xstrdup("2026-01-01");
	d->tag = xstrdup("day");
	d->base_tag = xstrdup("base");
	git_revparse_single(&o, repo, "base^{commit}");
	d->base_commit = xstrdup(git_oid_tostr_s(git_object_id(o)));
	git_object_free(o);
	git_revparse_single(&o, repo, "day^{commit}");
	d->commit = xstrdup(git_oid_tostr_s(git_object_id(o)));
	git_object_free(o);
	t = day_add_tree(d);
	t->name = xstrdup("t1");
	t->status = TREE_MERGED;
	t = day_add_tree(d);
	t->name = xstrdup("t2");
	t->status = TREE_MERGED;
	t = day_add_tree(d);
	t->name = xstrdup("t3");
	t->status = TREE_CONFLICT;
	return d;
}

/* Try range in dir/r against its day; results in *res (caller releases). */
static int try_range(struct try_result *res, struct try_series *s, const char *dir,
		     const char *range)
{
	char *path = path_join(dir, "r");
	git_repository *repo = NULL;
	struct merge_objects *mo = NULL;
	struct day *day = NULL;
	int error;

	if ((error = git_repository_open(&repo, path)) < 0)
		goto done;
	day = day_of(repo);
	if ((error = try_odb_readonly(repo)) == 0 && (error = merge_objects_begin(&mo, repo)) == 0 &&
	    (error = try_series_load(s, repo, range, NULL)) == 0)
		error = try_day(res, repo, day, s);
done:
	merge_objects_free(mo);
	day_free(day);
	git_repository_free(repo);
	free(path);
	return error;
}

TEST(try__clean_series_applies_everywhere)
{
	char *dir = tmpdir();
	struct try_result r = { 0 };
	struct try_series s = { 0 };

	REQUIRE(make_day(dir) == 0);
	CHECK_INT(try_range(&r, &s, dir, "base..ok"), 0);
	CHECK_INT(s.n, 1);
	CHECK_STR(s.v[0].subject, "dev: ok");
	CHECK_INT(r.napplies, 2);
	CHECK(r.applies[0].ok && r.applies[1].ok && r.have_tip);
	CHECK_INT(r.ntrees, 3);
	CHECK_STR(r.trees[0].name, "t1");
	CHECK_INT(r.trees[0].status, TRY_TREE_OK);
	CHECK_INT(r.trees[1].status, TRY_TREE_OK);
	CHECK_INT(r.trees[2].status, TRY_TREE_NOT_MERGED);
	try_result_release(&r);
	try_series_release(&s);
	free(dir);
}

TEST(try__clash_names_tree_path_and_hunk)
{
	char *dir = tmpdir();
	struct try_result r = { 0 };
	struct try_series s = { 0 };

	REQUIRE(make_day(dir) == 0);
	CHECK_INT(try_range(&r, &s, dir, "base..clash"), 0);
	REQUIRE(r.napplies == 2 && r.ntrees == 3);
	CHECK(r.applies[0].ok);
	CHECK(!r.applies[1].ok && !r.have_tip);
	CHECK_INT(r.applies[1].failed, 0);
	CHECK_STR(r.applies[1].file, "f");
	CHECK(r.applies[1].hunk && strstr(r.applies[1].hunk, "\n-2\n+2dev\n"));
	CHECK_INT(r.trees[0].status, TRY_TREE_CONFLICT);
	REQUIRE(r.trees[0].nconflicts == 1);
	CHECK_STR(r.trees[0].conflicts[0].path, "f");
	CHECK_STR(r.trees[0].conflicts[0].kind, "content");
	CHECK_INT(r.trees[0].conflicts[0].ncommits, 1);
	CHECK(strstr(r.trees[0].conflicts[0].commits[0], " t1: f") != NULL);
	/* The conflict t1 brought is not t2's. */
	CHECK_INT(r.trees[1].status, TRY_TREE_OK);
	try_result_release(&r);
	try_series_release(&s);
	free(dir);
}

TEST(try__series_made_on_a_tree_needs_it)
{
	char *dir = tmpdir();
	struct try_result r = { 0 };
	struct try_series s = { 0 };

	REQUIRE(make_day(dir) == 0);
	REQUIRE(t_sh_in(dir, T_GITENV "cd r && git checkout -q -b on t1 && "
			"sed -i s/^2t1$/2both/ f && git commit -qam 'dev: on t1'") == 0);
	CHECK_INT(try_range(&r, &s, dir, "t1..on"), 0);
	REQUIRE(r.napplies == 3);
	CHECK(!r.applies[0].ok && r.applies[1].ok && r.applies[2].ok);
	CHECK_STR(r.applies[2].onto_label, "after t1");
	CHECK_INT(r.home, 2);
	CHECK_INT(r.trees[0].status, TRY_TREE_NEEDED);
	CHECK_INT(r.trees[1].status, TRY_TREE_OK);
	try_result_release(&r);
	try_series_release(&s);
	free(dir);
}

TEST(try__paths_outside_the_tree_are_refused)
{
	static const char *const bad[] = { "../x", "d/../../x", ".git/config", "d/.GIT/hooks/x" };
	char *dir = tmpdir(), *file = path_join(dir, "p.patch");
	struct try_series s;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char *text = xasprintf("From: A <a@a>\nSubject: [PATCH] x\n\n---\n"
				       "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n"
				       "@@ -1 +1 @@\n-a\n+b\n", bad[i], bad[i], bad[i], bad[i]);

		REQUIRE(file_write_atomic(file, text, strlen(text)) == 0);
		CHECK_INT(try_series_load(&s, NULL, file, NULL), TIDE_EINVAL);
		free(text);
	}
	free(file);
	free(dir);
}

TESTS(try__clean_series_applies_everywhere,
      try__clash_names_tree_path_and_hunk,
      try__series_made_on_a_tree_needs_it,
      try__paths_outside_the_tree_are_refused)
