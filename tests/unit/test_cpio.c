#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t.h"
#include "t_files.h"
#include "cpio.h"
#include "error.h"
#include "util.h"

TEST(cpio__entries_read_back)
{
	struct cpio c = CPIO_INIT;
	struct cpio_entry e;
	size_t pos = 0;

	cpio_add_dir(&c, "dev", 0755);
	cpio_add_chardev(&c, "dev/console", 0600, 5, 1);
	cpio_add_file(&c, "init", 0755, "hello", 5);
	cpio_add_file(&c, "empty", 0644, "", 0);
	cpio_finish(&c);
	CHECK(c.data.len % 4 == 0);
	REQUIRE(cpio_next(&e, c.data.ptr, c.data.len, &pos) == 1);
	CHECK(e.namelen == 3 && !memcmp(e.name, "dev", 3));
	CHECK(S_ISDIR(e.mode) && (e.mode & 07777) == 0755);
	REQUIRE(cpio_next(&e, c.data.ptr, c.data.len, &pos) == 1);
	CHECK(S_ISCHR(e.mode) && e.rdevmajor == 5 && e.rdevminor == 1);
	REQUIRE(cpio_next(&e, c.data.ptr, c.data.len, &pos) == 1);
	CHECK(e.namelen == 4 && !memcmp(e.name, "init", 4));
	CHECK(S_ISREG(e.mode) && e.size == 5 && !memcmp(e.data, "hello", 5));
	REQUIRE(cpio_next(&e, c.data.ptr, c.data.len, &pos) == 1);
	CHECK(e.size == 0);
	CHECK_INT(cpio_next(&e, c.data.ptr, c.data.len, &pos), 0);
	CHECK_INT(pos, c.data.len);
	cpio_release(&c);
}

TEST(cpio__truncated_archive_is_einval)
{
	struct cpio c = CPIO_INIT;
	struct cpio_entry e;
	size_t pos = 0;

	cpio_add_file(&c, "init", 0755, "0123456789", 10);
	cpio_finish(&c);
	CHECK_INT(cpio_next(&e, c.data.ptr, 120, &pos), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "truncated") != NULL);
	pos = 0;
	CHECK_INT(cpio_next(&e, "garbage", 7, &pos), TIDE_EINVAL);
	cpio_release(&c);
}

/* Compare with GNU cpio when it is installed (it is the reference reader). */
TEST(cpio__gnu_cpio_lists_the_initramfs)
{
	char *dir = t_tmpdir("cpio"), *init = path_join(dir, "init-bin"), *cfg = path_join(dir, "config");
	char *cache = path_join(dir, "cache"), *img = NULL, *cmd = NULL;
	struct buf listing = BUF_INIT;
	int reused = -1;
	FILE *p;
	char line[256];

	REQUIRE(file_write_atomic(init, "\177ELF fake", 9) == 0);
	REQUIRE(file_write_atomic(cfg, "CONFIG_GPIO_SIM=y\n", 18) == 0);
	REQUIRE(cpio_initramfs(&img, &reused, cache, init, cfg) == 0);
	CHECK_INT(reused, 0);
	if (access("/usr/bin/cpio", X_OK) == 0) {
		cmd = xasprintf("cpio -it --quiet < '%s'", img);
		REQUIRE((p = popen(cmd, "r")) != NULL);
		while (fgets(line, sizeof(line), p))
			buf_puts(&listing, line);
		CHECK_INT(pclose(p), 0);
		CHECK_STR(buf_cstr(&listing), "dev\ndev/console\nproc\nsys\ninit\nconfig\n");
	} else {
		printf("# cpio not installed: reference comparison skipped\n");
	}
	free(img);
	REQUIRE(cpio_initramfs(&img, &reused, cache, init, cfg) == 0);
	CHECK_INT(reused, 1);
	free(img);
	/* Different content, different image. */
	REQUIRE(file_write_atomic(cfg, "# CONFIG_GPIO_SIM is not set\n", 29) == 0);
	REQUIRE(cpio_initramfs(&img, &reused, cache, init, cfg) == 0);
	CHECK_INT(reused, 0);
	free(img);
	CHECK_INT(cpio_initramfs(&img, &reused, cache, "/nonexistent/init", cfg), TIDE_ENOTFOUND);
	CHECK(img == NULL);
	CHECK(strstr(tide_error_last(), "guest init program") != NULL);
	rm_rf(dir);
	buf_release(&listing);
	free(cmd);
	free(dir);
	free(init);
	free(cfg);
	free(cache);
}

TESTS(cpio__entries_read_back, cpio__truncated_archive_is_einval,
      cpio__gnu_cpio_lists_the_initramfs)
