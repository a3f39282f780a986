#include <sys/stat.h>
#include <unistd.h>

#include "t.h"
#include "buf.h"
#include "error.h"
#include "util.h"

TEST(buf__printf_grows)
{
	struct buf b = BUF_INIT;
	int i;

	CHECK_STR(buf_cstr(&b), "");
	for (i = 0; i < 1000; i++)
		buf_printf(&b, "%d,", i);
	CHECK(b.len > 3000);
	CHECK(!strncmp(b.ptr, "0,1,2,", 6));
	buf_truncate(&b, 2);
	CHECK_STR(b.ptr, "0,");
	buf_release(&b);
	CHECK(b.ptr == NULL);
}

TEST(path__absolute_normalizes)
{
	char *p = path_absolute("/a/./b//c/../d/");

	CHECK_STR(p, "/a/b/d");
	free(p);
	p = path_join("/x/", "/y");
	CHECK_STR(p, "/x/y");
	free(p);
}

TEST(file__atomic_write_and_read)
{
	char dir[] = "/tmp/tide-test-XXXXXX";
	struct buf b = BUF_INIT;
	char *path, *deep;

	REQUIRE(mkdtemp(dir) != NULL);
	path = path_join(dir, "f");
	CHECK_INT(file_write_atomic(path, "hello", 5), 0);
	CHECK_INT(file_read(&b, path), 0);
	CHECK_STR(buf_cstr(&b), "hello");
	deep = path_join(dir, "a/b/c");
	CHECK_INT(mkdir_p(deep, 0755), 0);
	CHECK(path_is_dir(deep));
	CHECK_INT(file_read(&b, "/nonexistent/file"), TIDE_ENOTFOUND);
	CHECK(strstr(tide_error_last(), "/nonexistent/file") != NULL);
	CHECK_INT(rm_rf(dir), 0);
	CHECK(!path_exists(dir));
	free(path);
	free(deep);
	buf_release(&b);
}

TEST(file__read_text_refuses_nul_bytes)
{
	char dir[] = "/tmp/tide-test-XXXXXX";
	struct buf b = BUF_INIT;
	char *path, *want;

	REQUIRE(mkdtemp(dir) != NULL);
	path = path_join(dir, "rerere.conf");
	CHECK_INT(file_write_atomic(path, "a=1\nb=2\n\0c=3\n", 13), 0);
	CHECK_INT(file_read_text(&b, path), TIDE_EINVAL);
	want = xasprintf("%s:3: NUL byte", path);
	CHECK_STR(tide_error_last(), want);
	buf_clear(&b);
	CHECK_INT(file_write_atomic(path, "a=1\n", 4), 0);
	CHECK_INT(file_read_text(&b, path), 0);
	CHECK_STR(buf_cstr(&b), "a=1\n");
	CHECK_INT(dir_fsync(dir), 0);
	CHECK_INT(dir_fsync_parent(path), 0);
	CHECK_INT(rm_rf(dir), 0);
	free(want);
	free(path);
	buf_release(&b);
}

TEST(file__atomic_write_mode_and_sha256)
{
	char dir[] = "/tmp/tide-test-XXXXXX", hex[65];
	struct stat st;
	char *path;
	mode_t old = umask(077);

	CHECK(mkdtemp(dir) != NULL);
	path = path_join(dir, "s.sh");
	CHECK(file_write_atomic_mode(path, "abc", 3, 0755) == 0);
	CHECK(stat(path, &st) == 0);
	CHECK((st.st_mode & 0777) == 0755);	/* whatever the umask */
	CHECK(file_sha256_hex(hex, path) == 0);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	unlink(path);
	CHECK(file_sha256_hex(hex, path) < 0);
	rmdir(dir);
	free(path);
	umask(old);
}

TESTS(buf__printf_grows, path__absolute_normalizes, file__atomic_write_and_read,
      file__read_text_refuses_nul_bytes, file__atomic_write_mode_and_sha256)
