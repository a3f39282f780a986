/* Unit tests of many paths of a tree read in one pass (src/treepaths.c). */
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "t.h"
#include "treepaths.h"
#include "util.h"

static git_repository *repo;
static char *repo_dir;

static void repo_open(void)
{
	char tmpl[] = "/tmp/tide-test-treepaths.XXXXXX";

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
	rm_rf(repo_dir);
	free(repo_dir);
	git_libgit2_shutdown();
}

/* A tree of "path=content" files (content "@x" makes an executable). */
static git_oid tree_of(const char *const *specs)
{
	git_index *idx = NULL;
	git_oid id;

	if (git_index_new(&idx) < 0)
		abort();
	for (; *specs; specs++) {
		const char *eq = strchr(*specs, '=');
		char *path = xstrndup(*specs, (size_t)(eq - *specs));
		git_index_entry e;

		memset(&e, 0, sizeof(e));
		e.mode = eq[1] == '@' ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
		e.path = path;
		if (git_blob_create_from_buffer(&e.id, repo, eq + 1, strlen(eq + 1)) < 0 ||
		    git_index_add(idx, &e) < 0)
			abort();
		free(path);
	}
	if (git_index_write_tree_to(&id, idx, repo) < 0)
		abort();
	git_index_free(idx);
	return id;
}

static void blob_is(const struct tree_path_entry *e, const char *content, unsigned mode)
{
	git_oid want;

	CHECK_INT(e->mode, mode);
	if (git_blob_create_from_buffer(&want, repo, content, strlen(content)) < 0)
		abort();
	CHECK(git_oid_equal(&e->id, &want));
}

TEST(treepaths__each_path_in_the_callers_order)
{
	const char *files[] = { "a/b.c=1", "a/b/x=2", "a/b/y=3", "a/c=@4", "z=5", "a/b-x/q=6",
				NULL };
	/* strcmp order puts "a/b-x/q" before "a/b.c" before "a/b/x": one pass, any order given */
	const char *paths[] = { "z", "a/b/y", "a/b.c", "a/b-x/q", "a/c", "a/b/x", "a/b/none",
				"a/nodir/x", "z/under-a-file", "a/b", "" };
	struct tree_path_entry e[ARRAY_SIZE(paths)];
	struct tree_paths *tp;
	git_oid tree;

	repo_open();
	tree = tree_of(files);
	tp = tree_paths_new(paths, ARRAY_SIZE(paths));
	REQUIRE(tree_paths_read(e, tp, repo, &tree) == 0);
	blob_is(&e[0], "5", GIT_FILEMODE_BLOB);
	blob_is(&e[1], "3", GIT_FILEMODE_BLOB);
	blob_is(&e[2], "1", GIT_FILEMODE_BLOB);
	blob_is(&e[3], "6", GIT_FILEMODE_BLOB);
	blob_is(&e[4], "@4", GIT_FILEMODE_BLOB_EXECUTABLE);
	blob_is(&e[5], "2", GIT_FILEMODE_BLOB);
	CHECK_INT(e[6].mode, 0);	/* no such file */
	CHECK_INT(e[7].mode, 0);	/* no such directory */
	CHECK_INT(e[8].mode, 0);	/* a file where a directory would be */
	CHECK_INT(e[9].mode, GIT_FILEMODE_TREE);	/* a directory is an entry too */
	CHECK_INT(e[10].mode, 0);
	tree_paths_free(tp);
	repo_close();
}

TEST(treepaths__a_missing_tree_is_an_error)
{
	const char *paths[] = { "a" };
	struct tree_path_entry e[1];
	struct tree_paths *tp = tree_paths_new(paths, 1);
	git_oid none;

	repo_open();
	git_oid_fromstr(&none, "1111111111111111111111111111111111111111");
	CHECK(tree_paths_read(e, tp, repo, &none) < 0);
	tree_paths_free(tp);
	repo_close();
}

TESTS(treepaths__each_path_in_the_callers_order, treepaths__a_missing_tree_is_an_error)
