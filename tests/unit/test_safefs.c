#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t.h"
#include "t_files.h"
#include "error.h"
#include "safefs.h"
#include "util.h"

/* dir/root (the root), dir/outside/keep (what must stay as it is). */
static int setup(char **dir, int *rootfd)
{
	char *root;

	*dir = t_tmpdir("safefs");
	if (t_sh_in(*dir, "mkdir root outside && echo keep > outside/keep") != 0)
		return -1;
	root = path_join(*dir, "root");
	*rootfd = open(root, O_RDONLY | O_DIRECTORY);
	free(root);
	return *rootfd < 0 ? -1 : 0;
}

static int outside_untouched(const char *dir)
{
	return t_sh_in(dir, "test \"$(ls -A outside)\" = keep && test \"$(cat outside/keep)\" = keep") == 0;
}

static void teardown(char *dir, int rootfd)
{
	close(rootfd);
	rm_rf(dir);
	free(dir);
}

TEST(safefs__a_link_where_a_directory_is_wanted_is_replaced)
{
	char *dir;
	const char *name;
	int rootfd, fd = -1;

	REQUIRE(setup(&dir, &rootfd) == 0);
	REQUIRE(t_sh_in(dir, "ln -s ../outside root/a && ln -s ../outside/keep root/k") == 0);
	CHECK_INT(safefs_open_parent(&fd, &name, rootfd, "a/keep", 1, NULL), 0);
	CHECK_STR(name, "keep");
	CHECK_INT(safefs_write(fd, name, "new\n", 4, SAFEFS_ATOMIC, "a/keep"), 0);
	close(fd);
	/* a link to a file, written over: the link goes, the file stays */
	CHECK_INT(safefs_write(rootfd, "k", "new\n", 4, 0, "k"), 0);
	CHECK(outside_untouched(dir));
	CHECK(t_sh_in(dir, "test -d root/a && ! test -L root/a && test \"$(cat root/a/keep)\" = new"
		      " && ! test -L root/k && test \"$(cat root/k)\" = new") == 0);
	teardown(dir, rootfd);
}

TEST(safefs__removal_never_follows_a_link)
{
	char *dir;
	const char *name;
	int rootfd, fd = -1;

	REQUIRE(setup(&dir, &rootfd) == 0);
	REQUIRE(t_sh_in(dir, "ln -s ../outside root/a && mkdir -p root/d && "
			"ln -s ../../outside root/d/l") == 0);
	/* under a link: not a directory of the root, so nothing to remove */
	CHECK_INT(safefs_open_parent(&fd, &name, rootfd, "a/keep", 0, NULL), TIDE_ENOTFOUND);
	CHECK_INT(safefs_remove(rootfd, "d", "d"), 0);	/* removes the link, not its target */
	CHECK_INT(safefs_remove(rootfd, "a", "a"), 0);
	CHECK(outside_untouched(dir));
	CHECK(t_sh_in(dir, "test -z \"$(ls -A root)\"") == 0);
	teardown(dir, rootfd);
}

TEST(safefs__bad_names_are_refused)
{
	char *dir;
	const char *name;
	int rootfd, fd = -1;

	REQUIRE(setup(&dir, &rootfd) == 0);
	CHECK_INT(safefs_open_parent(&fd, &name, rootfd, "../outside/pwned", 1, NULL), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "refusing path '../outside/pwned': name is '..'");
	CHECK_INT(safefs_open_parent(&fd, &name, rootfd, "x/.git/config", 1, NULL), TIDE_EINVAL);
	CHECK_INT(safefs_open_dir(&fd, rootfd, "a//b", 4, 1, NULL), TIDE_EINVAL);
	CHECK_INT(safefs_write(rootfd, "..", "x", 1, 0, ".."), TIDE_EINVAL);
	CHECK_INT(safefs_write(rootfd, ".GIT", "x", 1, 0, ".GIT"), TIDE_EINVAL);
	CHECK_INT(safefs_write(rootfd, ".gitmodules", "x", 1, SAFEFS_LINK, ".gitmodules"),
		  TIDE_EINVAL);
	CHECK_INT(safefs_remove(rootfd, "..", ".."), TIDE_EINVAL);
	CHECK_INT(safefs_remove(rootfd, ".", "."), TIDE_EINVAL);
	CHECK(outside_untouched(dir));
	CHECK(t_sh_in(dir, "test -z \"$(ls -A root)\"") == 0);
	teardown(dir, rootfd);
}

/*
 * The readers: a regular file within the limit is read; a link (to a
 * file, or as the directory holding it), a FIFO, a device or a file over
 * the limit is refused unread, with the path and why.
 */
TEST(safefs__readers_take_only_bounded_regular_files)
{
	struct buf b = BUF_INIT;
	char *dir, *p;
	int rootfd;
	double start;

	REQUIRE(setup(&dir, &rootfd) == 0);
	REQUIRE(t_sh_in(dir, "mkdir -p root/d && echo data > root/d/f && "
			     "ln -s ../outside/keep root/d/link && mkfifo root/d/fifo && "
			     "ln -s /dev/zero root/d/zero && ln -s ../outside root/out && "
			     "head -c 5000 /dev/zero > root/d/big") == 0);
	p = xasprintf("%s/root/d/f", dir);
	CHECK_INT(safefs_read_file(&b, p, 100), 0);
	CHECK_STR(buf_cstr(&b), "data\n");
	free(p);
	buf_clear(&b);
	p = xasprintf("%s/root/d/link", dir);
	CHECK_INT(safefs_read_file(&b, p, 100), TIDE_EINVAL);
	CHECK(str_ends_with(tide_error_last(), "/root/d/link': a symbolic link"));
	CHECK_INT((int)b.len, 0);
	free(p);
	p = xasprintf("%s/root/d/fifo", dir);
	start = time_now();
	CHECK_INT(safefs_read_file(&b, p, 100), TIDE_EINVAL);
	CHECK(str_ends_with(tide_error_last(), "/root/d/fifo': not a regular file"));
	CHECK(time_now() - start < 5);
	CHECK_INT(safefs_read_regular(&b, p, 100), TIDE_EINVAL);
	free(p);
	p = xasprintf("%s/root/d/zero", dir);
	CHECK_INT(safefs_read_regular(&b, p, 100), TIDE_EINVAL);
	CHECK(str_ends_with(tide_error_last(), "': not a regular file"));
	free(p);
	p = xasprintf("%s/root/d/big", dir);
	CHECK_INT(safefs_read_file(&b, p, 100), TIDE_EINVAL);
	CHECK(str_ends_with(tide_error_last(), "': 5000 bytes, over the limit of 100"));
	CHECK_INT(safefs_read_file(&b, p, 5000), 0);
	CHECK_INT((int)b.len, 5000);
	free(p);
	buf_clear(&b);
	/* The directory holding the file is not followed either. */
	p = xasprintf("%s/root/out/keep", dir);
	CHECK_INT(safefs_read_file(&b, p, 100), TIDE_EINVAL);
	CHECK_INT(safefs_read_regular(&b, p, 100), 0);
	CHECK_STR(buf_cstr(&b), "keep\n");
	free(p);
	buf_clear(&b);
	p = path_join(dir, "root");
	CHECK_INT(safefs_read_under(&b, p, "d/f", 100), 0);
	CHECK_STR(buf_cstr(&b), "data\n");
	CHECK_INT(safefs_read_under(&b, p, "out/keep", 100), TIDE_ENOTFOUND);
	CHECK_INT(safefs_read_under(&b, p, "../outside/keep", 100), TIDE_EINVAL);
	CHECK_INT(safefs_read_under(&b, p, "d/missing", 100), TIDE_ENOTFOUND);
	free(p);
	CHECK(outside_untouched(dir));
	buf_release(&b);
	teardown(dir, rootfd);
}

TESTS(safefs__a_link_where_a_directory_is_wanted_is_replaced,
      safefs__removal_never_follows_a_link, safefs__bad_names_are_refused,
      safefs__readers_take_only_bounded_regular_files)
