/* Unit tests of src/mailmap.c: the base's .mailmap, for commit authors. */
#include <string.h>

#include <git2.h>

#include "mailmap.h"
#include "text.h"
#include "util.h"
#include "t.h"
#include "t_files.h"

/* dir/repo with commits: one by old@ex.org, a .mailmap, and a .mailmap that is a directory. */
static git_repository *make_repo(const char *dir, git_oid *plain, git_oid *mapped, git_oid *odd)
{
	git_repository *repo = NULL;

	git_libgit2_init();
	if (t_sh_in(dir, T_GITENV "git init -q -b m repo && cd repo && "
		    "echo a >a && git add a && "
		    "GIT_AUTHOR_NAME='Old Name' GIT_AUTHOR_EMAIL=old@ex.org git commit -qm one && "
		    "git tag plain && "
		    "printf 'Real Name <new@ex.org> <old@ex.org>\\n' >.mailmap && git add .mailmap && "
		    "git commit -qm two && git tag mapped && "
		    "git rm -q .mailmap && mkdir .mailmap && echo x >.mailmap/x && git add .mailmap && "
		    "git commit -qm three && git tag odd") != 0)
		return NULL;
	{
		char *path = path_join(dir, "repo");

		if (git_repository_open(&repo, path) < 0 ||
		    git_reference_name_to_id(plain, repo, "refs/tags/plain") < 0 ||
		    git_reference_name_to_id(mapped, repo, "refs/tags/mapped") < 0 ||
		    git_reference_name_to_id(odd, repo, "refs/tags/odd") < 0)
			repo = NULL;
		free(path);
	}
	return repo;
}

static char *author_through(git_repository *repo, const git_oid *author_of, const git_oid *map_of)
{
	git_mailmap *mm = NULL;
	git_commit *c = NULL;
	char *s = NULL;

	if (mailmap_from_commit(&mm, repo, map_of) == 0 && git_commit_lookup(&c, repo, author_of) == 0)
		s = commit_author_utf8(c, mm);
	git_commit_free(c);
	git_mailmap_free(mm);
	return s;
}

TEST(mailmap__renames_authors_by_the_commit_s_map)
{
	char *dir = t_tmpdir("mailmap"), *s;
	git_oid plain, mapped, odd;
	git_repository *repo = make_repo(dir, &plain, &mapped, &odd);

	REQUIRE(repo != NULL);
	CHECK_STR((s = author_through(repo, &plain, &mapped)), "Real Name <new@ex.org>");
	free(s);
	/* No .mailmap, none at all, or one that is not a file: nobody is renamed. */
	CHECK_STR((s = author_through(repo, &plain, &plain)), "Old Name <old@ex.org>");
	free(s);
	CHECK_STR((s = author_through(repo, &plain, NULL)), "Old Name <old@ex.org>");
	free(s);
	CHECK_STR((s = author_through(repo, &plain, &odd)), "Old Name <old@ex.org>");
	free(s);
	git_repository_free(repo);
	rm_rf(dir);
	free(dir);
}

TESTS(mailmap__renames_authors_by_the_commit_s_map)
