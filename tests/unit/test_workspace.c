#include <stdlib.h>
#include <unistd.h>

#include <git2.h>

#include "t.h"
#include "error.h"
#include "util.h"
#include "workspace.h"

static char *scratch(void)
{
	char *dir = xstrdup("/tmp/tide-test-ws-XXXXXX");

	if (!mkdtemp(dir))
		abort();
	return dir;
}

TEST(workspace__created_only_when_asked)
{
	char *top = scratch(), *dir = path_join(top, "a/b");
	struct workspace *ws = NULL;
	char *head;

	CHECK_INT(workspace_open(&ws, dir, 0), TIDE_ENOTFOUND);
	CHECK(!path_exists(dir));
	REQUIRE(workspace_open(&ws, dir, WORKSPACE_CREATE) == 0);
	CHECK(git_repository_is_bare(ws->repo));
	head = path_join(dir, "repo.git/HEAD");
	CHECK(path_exists(head));
	free(head);
	workspace_free(ws);
	ws = NULL;
	CHECK(workspace_open(&ws, dir, 0) == 0);
	workspace_free(ws);
	rm_rf(top);
	free(top);
	free(dir);
}

TEST(workspace__lock_refuses_a_second_holder)
{
	char *dir = scratch();
	struct workspace *a = NULL, *b = NULL;
	char pid[32];

	REQUIRE(workspace_open(&a, dir, WORKSPACE_CREATE) == 0);
	REQUIRE(workspace_open(&b, dir, 0) == 0);
	CHECK(workspace_lock(a) == 0);
	CHECK_INT(workspace_lock(b), TIDE_ELOCKED);
	snprintf(pid, sizeof(pid), "(pid %ld)", (long)getpid());
	CHECK(strstr(tide_error_last(), pid) != NULL);
	CHECK(strstr(tide_error_last(), dir) != NULL);
	workspace_free(a);	/* closing the descriptor releases the lock */
	CHECK(workspace_lock(b) == 0);
	workspace_free(b);
	rm_rf(dir);
	free(dir);
}

TEST(workspace__corrupt_repository_is_refused)
{
	char *dir = scratch(), *repo = path_join(dir, "repo.git"), *junk;
	struct workspace *ws = NULL;

	mkdir_p(repo, 0777);
	junk = path_join(repo, "HEAD");
	file_write_atomic(junk, "garbage", 7);
	CHECK_INT(workspace_open(&ws, dir, WORKSPACE_CREATE), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "repo.git") != NULL);
	CHECK(ws == NULL);
	free(junk);
	free(repo);
	rm_rf(dir);
	free(dir);
}

TEST(workspace__a_file_is_not_a_workspace)
{
	char *dir = scratch(), *file = path_join(dir, "f"), *below = path_join(file, "ws");
	struct workspace *ws = NULL;

	file_write_atomic(file, "x", 1);
	CHECK_INT(workspace_open(&ws, file, WORKSPACE_CREATE), TIDE_EINVAL);
	CHECK(workspace_open(&ws, below, WORKSPACE_CREATE) < 0);
	CHECK(strstr(tide_error_last(), file) != NULL);
	free(below);
	free(file);
	rm_rf(dir);
	free(dir);
}

TEST(workspace__alternates_are_added_once)
{
	char *dir = scratch(), *src = path_join(dir, "src.git"), *alt;
	struct workspace *ws = NULL;
	git_repository *r = NULL;
	struct buf text = BUF_INIT;

	REQUIRE(git_repository_init(&r, src, 1) == 0);
	git_repository_free(r);
	REQUIRE(workspace_open(&ws, dir, WORKSPACE_CREATE) == 0);
	CHECK(workspace_add_alternate(ws, src) == 0);
	CHECK(workspace_add_alternate(ws, src) == 0);
	CHECK(workspace_add_alternate(ws, "git://example.org/x.git") == 0);
	alt = path_join(dir, "repo.git/objects/info/alternates");
	CHECK(file_read(&text, alt) == 0);
	{
		char *want = xasprintf("%s/objects\n", src);
		CHECK_STR(buf_cstr(&text), want);
		free(want);
	}
	buf_release(&text);
	free(alt);
	workspace_free(ws);
	free(src);
	rm_rf(dir);
	free(dir);
}

/* The accessors spell docs/design.md's layout; a wrong one fails here before any command test. */
TEST(workspace__paths_follow_the_layout)
{
	static const struct {
		char *(*fn)(const char *);
		const char *want;
	} paths[] = {
		{ workspace_repo_git, "/ws/repo.git" },
		{ workspace_fsck_trees, "/ws/repo.git/tide-fsck-trees" },
		{ workspace_days_dir, "/ws/days" },
		{ workspace_config, "/ws/config" },
		{ workspace_lock_file, "/ws/lock" },
		{ workspace_tide_log, "/ws/tide.log" },
		{ workspace_build_src, "/ws/build/src" },
		{ workspace_build_out, "/ws/build/out" },
		{ workspace_build_state, "/ws/build/src.tree" },
		{ workspace_rr_cache, "/ws/rr-cache" },
		{ workspace_bisect_state, "/ws/bisect/state.json" },
		{ workspace_try_dir, "/ws/try" },
		{ workspace_kcidb_spool, "/ws/kcidb-spool" },
		{ workspace_dashboard, "/ws/dashboard" },
		{ workspace_daydir_json, "/ws/day.json" },
		{ workspace_daydir_mail_json, "/ws/reports/mail.json" },
	};
	size_t i;
	char *p;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		p = paths[i].fn("/ws");
		CHECK_STR(p, paths[i].want);
		free(p);
	}
	p = workspace_day_json("/ws", "2026-12-01");
	CHECK_STR(p, "/ws/days/2026-12-01/day.json");
	free(p);
	p = workspace_day_json_in("/ws/days", "2026-12-01");
	CHECK_STR(p, "/ws/days/2026-12-01/day.json");
	free(p);
	p = workspace_resolve_tree("/ws", "gpio");
	CHECK_STR(p, "/ws/resolve/gpio");
	free(p);
}

int main(int argc, char **argv)
{
	static const struct t_case cases[] = {
		T_CASE(workspace__created_only_when_asked)
		T_CASE(workspace__lock_refuses_a_second_holder)
		T_CASE(workspace__corrupt_repository_is_refused)
		T_CASE(workspace__a_file_is_not_a_workspace)
		T_CASE(workspace__alternates_are_added_once)
		T_CASE(workspace__paths_follow_the_layout)
	};
	int rc;

	git_libgit2_init();
	rc = t_run(cases, ARRAY_SIZE(cases), argc, argv);
	git_libgit2_shutdown();
	return rc;
}
