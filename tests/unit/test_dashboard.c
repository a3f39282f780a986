#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "dashboard.h"
#include "util.h"

static char *escaped(void (*fn)(struct buf *, const char *), const char *s)
{
	struct buf b = BUF_INIT;

	fn(&b, s);
	return buf_detach(&b);
}

TEST(dashboard__html_escape_leaves_no_markup)
{
	char *s = escaped(html_escape, "<script>a & \"b\" 'c'</script>");

	CHECK_STR(s, "&lt;script&gt;a &amp; &quot;b&quot; &#39;c&#39;&lt;/script&gt;");
	free(s);
	s = escaped(html_escape, "caf\xc3\xa9\tok\n");
	CHECK_STR(s, "caf\xc3\xa9\tok\n");
	free(s);
	s = escaped(html_escape, "a\x01" "b\x7f");
	CHECK_STR(s, "a&#xFFFD;b&#xFFFD;");
	free(s);
	s = escaped(html_escape, NULL);
	CHECK_STR(s, "");
	free(s);
}

TEST(dashboard__url_path_escape_keeps_slashes_only)
{
	char *s = escaped(url_path_escape, "../days/2026-12-01/reports/n<i>&\"#%?.txt");

	CHECK_STR(s, "../days/2026-12-01/reports/n%3Ci%3E%26%22%23%25%3F.txt");
	free(s);
	s = escaped(url_path_escape, "a b/\xc3\xa9");
	CHECK_STR(s, "a%20b/%C3%A9");
	free(s);
}

TEST(dashboard__page_names_stay_in_the_directory)
{
	char *s = dashboard_page_name("tree-", "gpio");

	CHECK_STR(s, "tree-gpio.html");
	free(s);
	s = dashboard_page_name("tree-", "../x/y");
	CHECK_STR(s, "tree-.._2Fx_2Fy.html");
	CHECK(!strchr(s, '/'));
	free(s);
	/* '_' is escaped too, so two names never share a page. */
	s = dashboard_page_name("tree-", "a_2F");
	CHECK_STR(s, "tree-a_5F2F.html");
	free(s);
	s = dashboard_page_name("day-", "2026-12-01");
	CHECK_STR(s, "day-2026-12-01.html");
	free(s);
}

TEST(dashboard__relative_paths)
{
	char *s = path_relative("/ws/dashboard", "/ws/days");

	CHECK_STR(s, "../days");
	free(s);
	s = path_relative("/pub/a/b", "/ws/days");
	CHECK_STR(s, "../../../ws/days");
	free(s);
	s = path_relative("/ws", "/ws/days");
	CHECK_STR(s, "days");
	free(s);
	s = path_relative("/ws/days", "/ws/days");
	CHECK_STR(s, ".");
	free(s);
	s = path_relative("/ws/day", "/ws/days");
	CHECK_STR(s, "../days");
	free(s);
	s = path_relative("/", "/ws/days");
	CHECK_STR(s, "ws/days");
	free(s);
	s = path_relative("/ws/days/x", "/ws/days");
	CHECK_STR(s, "..");
	free(s);
}

TESTS(dashboard__html_escape_leaves_no_markup, dashboard__url_path_escape_keeps_slashes_only,
      dashboard__page_names_stay_in_the_directory, dashboard__relative_paths)
