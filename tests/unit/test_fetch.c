#include <stdlib.h>
#include <unistd.h>

#include <git2.h>

#include "t.h"
#include "error.h"
#include "fetch.h"
#include "util.h"
#include "workspace.h"

/* A source repository with one commit on branch "for-next". */
static void make_source(const char *path, git_oid *out)
{
	git_repository *repo = NULL;
	git_signature *sig = NULL;
	git_treebuilder *tb = NULL;
	git_tree *tree = NULL;
	git_oid blob, tree_id;

	if (git_repository_init(&repo, path, 1) < 0 ||
	    git_signature_now(&sig, "T", "t@example.org") < 0 ||
	    git_blob_create_from_buffer(&blob, repo, "x\n", 2) < 0 ||
	    git_treebuilder_new(&tb, repo, NULL) < 0 ||
	    git_treebuilder_insert(NULL, tb, "x", &blob, GIT_FILEMODE_BLOB) < 0 ||
	    git_treebuilder_write(&tree_id, tb) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) < 0 ||
	    git_commit_create(out, repo, "refs/heads/for-next", sig, sig, NULL, "one\n", tree, 0,
			      NULL) < 0)
		abort();
	git_tree_free(tree);
	git_treebuilder_free(tb);
	git_signature_free(sig);
	git_repository_free(repo);
}

TEST(fetch__local_trees_in_parallel_and_failures_named)
{
	char dir[] = "/tmp/tide-test-fetch-XXXXXX";
	struct workspace *ws = NULL;
	struct fetch_job jobs[4];
	git_reference *ref = NULL;
	git_oid tip;
	char *src, *wsdir;
	size_t i;

	REQUIRE(mkdtemp(dir) != NULL);
	src = path_join(dir, "src.git");
	wsdir = path_join(dir, "ws");
	make_source(src, &tip);
	REQUIRE(workspace_open(&ws, wsdir, WORKSPACE_CREATE) == 0);
	fetch_job_init(&jobs[0], "a", src, "refs/heads/for-next", "refs/remotes/a/for-next");
	fetch_job_init(&jobs[1], "b", src, "refs/heads/for-next", "refs/remotes/b/for-next");
	fetch_job_init(&jobs[2], "nobranch", src, "refs/heads/nope", "refs/remotes/nobranch/nope");
	fetch_job_init(&jobs[3], "nourl", "/nonexistent/repo.git", "refs/heads/x", "refs/remotes/nourl/x");
	jobs[0].timeout = 30;
	CHECK(fetch_run(ws, jobs, 4, 3) == 0);
	CHECK_INT(jobs[0].error, 0);
	CHECK_INT(jobs[1].error, 0);
	CHECK(git_oid_equal(&jobs[0].oid, &tip));
	CHECK(git_reference_lookup(&ref, ws->repo, "refs/remotes/b/for-next") == 0);
	CHECK(ref && git_oid_equal(git_reference_target(ref), &tip));
	CHECK_INT(jobs[2].error, TIDE_ENOTFOUND);
	CHECK(jobs[2].message && strstr(jobs[2].message, "refs/heads/nope"));
	CHECK_INT(jobs[3].error, TIDE_ENOTFOUND);
	CHECK(jobs[3].message && strstr(jobs[3].message, "/nonexistent/repo.git"));
	git_reference_free(ref);
	for (i = 0; i < ARRAY_SIZE(jobs); i++)
		fetch_job_clear(&jobs[i]);
	workspace_free(ws);
	rm_rf(dir);
	free(src);
	free(wsdir);
}

TEST(fetch__queued_past_the_deadline_never_starts)
{
	char dir[] = "/tmp/tide-test-fetch-XXXXXX";
	struct workspace *ws = NULL;
	struct fetch_job jobs[2];
	git_reference *ref = NULL;
	git_oid tip;
	char *src, *wsdir;
	size_t i;

	REQUIRE(mkdtemp(dir) != NULL);
	src = path_join(dir, "src.git");
	wsdir = path_join(dir, "ws");
	make_source(src, &tip);
	REQUIRE(workspace_open(&ws, wsdir, WORKSPACE_CREATE) == 0);
	fetch_job_init(&jobs[0], "a", src, "refs/heads/for-next", "refs/remotes/a/for-next");
	fetch_job_init(&jobs[1], "late", src, "refs/heads/for-next", "refs/remotes/late/for-next");
	jobs[0].timeout = jobs[1].timeout = 30;
	jobs[1].deadline = time_now() - 1;
	CHECK(fetch_run(ws, jobs, 2, 1) == 0);
	CHECK_INT(jobs[0].error, 0);
	CHECK_INT(jobs[1].error, TIDE_ETIMEOUT);
	CHECK(jobs[1].message && strstr(jobs[1].message, "fetch-deadline reached before the fetch started"));
	CHECK(git_reference_lookup(&ref, ws->repo, "refs/remotes/late/for-next") == GIT_ENOTFOUND);
	CHECK_INT(fetch_abandoned_threads(), 0);
	git_reference_free(ref);
	for (i = 0; i < ARRAY_SIZE(jobs); i++)
		fetch_job_clear(&jobs[i]);
	workspace_free(ws);
	rm_rf(dir);
	free(src);
	free(wsdir);
}

/* Whatever way a fetch fails, its message names the URL with the password redacted. */
TEST(fetch__messages_never_hold_the_password)
{
	char dir[] = "/tmp/tide-test-fetch-XXXXXX";
	const char *url = "http://alice:pa'SECRET@127.0.0.1:1/x.git";
	struct workspace *ws = NULL;
	struct fetch_job jobs[2];
	char *wsdir;
	size_t i;

	REQUIRE(mkdtemp(dir) != NULL);
	wsdir = path_join(dir, "ws");
	REQUIRE(workspace_open(&ws, wsdir, WORKSPACE_CREATE) == 0);
	fetch_job_init(&jobs[0], "refused", url, "refs/heads/m", "refs/remotes/refused/m");
	fetch_job_init(&jobs[1], "late", url, "refs/heads/m", "refs/remotes/late/m");
	jobs[0].timeout = jobs[1].timeout = 30;
	jobs[1].deadline = time_now() - 1;
	CHECK(fetch_run(ws, jobs, 2, 1) == 0);
	for (i = 0; i < ARRAY_SIZE(jobs); i++) {
		CHECK(jobs[i].error < 0);
		CHECK(jobs[i].message != NULL);
		if (!jobs[i].message)
			continue;
		if (strstr(jobs[i].message, "SECRET") || !strstr(jobs[i].message, "alice:***@127.0.0.1:1"))
			fprintf(stderr, "  %s\n", jobs[i].message);
		CHECK(!strstr(jobs[i].message, "SECRET"));
		CHECK(strstr(jobs[i].message, "'http://alice:***@127.0.0.1:1/x.git'") != NULL);
	}
	for (i = 0; i < ARRAY_SIZE(jobs); i++)
		fetch_job_clear(&jobs[i]);
	workspace_free(ws);
	rm_rf(dir);
	free(wsdir);
}

int main(int argc, char **argv)
{
	static const struct t_case cases[] = {
		T_CASE(fetch__local_trees_in_parallel_and_failures_named)
		T_CASE(fetch__queued_past_the_deadline_never_starts)
		T_CASE(fetch__messages_never_hold_the_password)
	};
	int rc;

	git_libgit2_init();
	rc = t_run(cases, ARRAY_SIZE(cases), argc, argv);
	git_libgit2_shutdown();
	return rc;
}
