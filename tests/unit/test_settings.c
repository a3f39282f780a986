#include <string.h>

#include "t.h"
#include "t_files.h"
#include "error.h"
#include "settings.h"

static char *write_file(const char *dir, const char *text)
{
	char *path = path_join(dir, "config");

	if (file_write_atomic(path, text, strlen(text)) < 0)
		abort();
	return path;
}

TEST(settings__missing_file_is_empty)
{
	char *dir = t_tmpdir("settings"), *path = path_join(dir, "config");
	struct settings *s = NULL;
	const char *k, *v;

	REQUIRE(settings_load(&s, path) == 0);
	CHECK(settings_get(s, "trees") == NULL);
	CHECK_INT(settings_entry(s, 0, &k, &v), 0);
	settings_free(s);
	rm_rf(dir);
	free(path);
	free(dir);
}

TEST(settings__set_keeps_comments_and_order)
{
	char *dir = t_tmpdir("settings");
	char *path = write_file(dir, "# the workspace\n\ntrees = /a/trees.conf\n"
				"  cache=redis://127.0.0.1:6379  \n");
	struct settings *s = NULL;
	struct buf b = BUF_INIT;
	const char *k, *v;

	REQUIRE(settings_load(&s, path) == 0);
	CHECK_STR(settings_get(s, "trees"), "/a/trees.conf");
	CHECK_STR(settings_get(s, "cache"), "redis://127.0.0.1:6379");
	REQUIRE(settings_entry(s, 1, &k, &v) == 1);
	CHECK_STR(k, "cache");
	CHECK_INT(settings_set(s, "trees", "/b/trees.conf"), 0);
	CHECK_INT(settings_set(s, "distcc-hosts", "127.0.0.1/2"), 0);
	CHECK_INT(settings_set(s, "cache", NULL), 0);
	REQUIRE(settings_save(s) == 0);
	REQUIRE(file_read(&b, path) == 0);
	CHECK_STR(b.ptr, "# the workspace\n\ntrees = /b/trees.conf\n"
		  "distcc-hosts = 127.0.0.1/2\n");
	settings_free(s);
	buf_release(&b);
	rm_rf(dir);
	free(path);
	free(dir);
}

TEST(settings__bad_lines_name_file_and_line)
{
	static const char *bad[] = {
		"trees = a\nno equals sign\n",
		"Trees = a\n",
		"trees = a\ntrees = b\n",
		"= a\n",
		"a\tb = c\n",
		"trees = a\x01b\n",
	};
	static const char *lines[] = { ":2:", ":1:", ":2:", ":1:", ":1:", ":1:" };
	char *dir = t_tmpdir("settings");
	struct settings *s = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char *path = write_file(dir, bad[i]);

		CHECK_INT(settings_load(&s, path), TIDE_EINVAL);
		CHECK(s == NULL);
		CHECK(strstr(tide_error_last(), path) != NULL);
		CHECK(strstr(tide_error_last(), lines[i]) != NULL);
		free(path);
	}
	rm_rf(dir);
	free(dir);
}

TEST(settings__set_refuses_bad_names_and_values)
{
	struct settings *s = settings_new("/nonexistent/config");
	char big[5000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK_INT(settings_set(s, "", "a"), TIDE_EINVAL);
	CHECK_INT(settings_set(s, "a b", "a"), TIDE_EINVAL);
	CHECK_INT(settings_set(s, "-a", "a"), TIDE_EINVAL);
	CHECK_INT(settings_set(s, "a", "line\nbreak"), TIDE_EINVAL);
	CHECK_INT(settings_set(s, "a", big), TIDE_EINVAL);
	CHECK_INT(settings_set(s, "build.jobs", "4"), 0);
	CHECK_STR(settings_get(s, "build.jobs"), "4");
	settings_free(s);
}

TESTS(settings__missing_file_is_empty, settings__set_keeps_comments_and_order,
      settings__bad_lines_name_file_and_line, settings__set_refuses_bad_names_and_values)
