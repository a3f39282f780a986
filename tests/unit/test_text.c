#include "error.h"
#include "t.h"
#include "text.h"
#include "util.h"

static char *lossy(const char *s, size_t len)
{
	struct buf b = BUF_INIT;

	utf8_lossy(&b, s, len);
	return buf_detach(&b);
}

TEST(text__utf8_valid_refuses_what_jansson_refuses)
{
	CHECK(utf8_valid("", 0));
	CHECK(utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7", 14));
	CHECK(!utf8_valid("caf\xe9", 4));		/* Latin-1 */
	CHECK(!utf8_valid("\xc0\xaf", 2));		/* overlong '/' */
	CHECK(!utf8_valid("\xed\xa0\x80", 3));		/* surrogate */
	CHECK(!utf8_valid("\xf4\x90\x80\x80", 4));	/* above U+10FFFF */
	CHECK(!utf8_valid("\xe2\x82", 2));		/* cut short */
	CHECK(!utf8_valid("a\0b", 3));
}

TEST(text__lossy_replaces_each_bad_byte)
{
	char *s = lossy("caf\xe9!", 5);

	CHECK_STR(s, "caf\xef\xbf\xbd!");
	free(s);
	s = lossy("\xe2\x82" "a\0", 4);
	CHECK_STR(s, "\xef\xbf\xbd\xef\xbf\xbd" "a\xef\xbf\xbd");
	free(s);
	s = lossy("ok \xc3\xa9", 5);
	CHECK_STR(s, "ok \xc3\xa9");
	free(s);
	s = lossy("", 0);	/* an empty text is an empty string, not unterminated bytes */
	CHECK_STR(s, "");
	free(s);
}

TEST(text__json_text_never_null)
{
	json_t *j = json_text("bad \xff name");

	REQUIRE(j != NULL);
	CHECK_STR(json_string_value(j), "bad \xef\xbf\xbd name");
	json_decref(j);
	j = json_text(NULL);
	CHECK(json_is_null(j));
	json_decref(j);
	j = json_textn("a\0b", 3);
	CHECK_STR(json_string_value(j), "a\xef\xbf\xbd" "b");
	json_decref(j);
}

TEST(text__decode_latin1_and_unknown_charsets)
{
	struct buf b = BUF_INIT;

	text_decode(&b, "Caf\xe9 na\xefve", 10, "ISO-8859-1");
	CHECK_STR(buf_cstr(&b), "Caf\xc3\xa9 na\xc3\xafve");
	buf_clear(&b);
	text_decode(&b, "Caf\xe9", 4, "no-such-charset");
	CHECK_STR(buf_cstr(&b), "Caf\xef\xbf\xbd");
	buf_clear(&b);
	/* invalid in the named charset: kept, with the bad bytes replaced */
	text_decode(&b, "a\xff", 2, "UTF-8");
	CHECK_STR(buf_cstr(&b), "a\xef\xbf\xbd");
	buf_clear(&b);
	text_decode(&b, "plain", 5, NULL);
	CHECK_STR(buf_cstr(&b), "plain");
	buf_release(&b);
}

TEST(text__url_redact_and_strip)
{
	char *s;

	s = url_redact("https://user:SECRET@host.example/x.git");
	CHECK_STR(s, "https://user:***@host.example/x.git");
	free(s);
	s = url_strip_userinfo("https://user:SECRET@host.example/x.git");
	CHECK_STR(s, "https://host.example/x.git");
	free(s);
	s = url_redact("ssh://git@host/x.git");
	CHECK_STR(s, "ssh://git@host/x.git");
	free(s);
	s = url_strip_userinfo("ssh://git@host/x.git");
	CHECK_STR(s, "ssh://host/x.git");
	free(s);
	s = url_redact("/srv/git/a@b.git");
	CHECK_STR(s, "/srv/git/a@b.git");
	free(s);
	s = url_redact("https://host/path@x:y");
	CHECK_STR(s, "https://host/path@x:y");
	free(s);
}

/*
 * RFC 3986 allows quotes and other sub-delims in a password; a URL on its
 * own ends its authority only at '/', '?' or '#'.
 */
TEST(text__url_redact_password_with_quotes)
{
	char *s;

	s = url_redact("https://u:pa'ss\"w d@host/x.git");
	CHECK_STR(s, "https://u:***@host/x.git");
	free(s);
	s = url_strip_userinfo("http://u:a'b@c@host:8080?q");
	CHECK_STR(s, "http://host:8080?q");
	free(s);
}

/* A message cut to error.c's size inside the password still hides it. */
TEST(text__error_cut_inside_a_password)
{
	struct buf pad = BUF_INIT;
	size_t i;

	for (i = 0; i < 4075; i++)
		buf_putc(&pad, 'x');
	tide_error_set(TIDE_ERROR, "%s http://u:SECRETPASSWORD@h/x", buf_cstr(&pad));
	CHECK(!strstr(tide_error_last(), "SECRET"));
	CHECK(strstr(tide_error_last(), "http://u:") != NULL);
	buf_release(&pad);
}

TEST(text__redact_inside_messages)
{
	struct buf b = BUF_INIT;

	text_redact(&b, "cannot fetch 'https://u:TOKEN@127.0.0.1:9/x.git': failed; "
		    "also http://a:b:c@h and https://plain@h/ and ://x");
	CHECK_STR(buf_cstr(&b), "cannot fetch 'https://u:***@127.0.0.1:9/x.git': failed; "
		  "also http://a:***@h and https://plain@h/ and ://x");
	CHECK(!strstr(b.ptr, "TOKEN"));
	buf_release(&b);
}

TEST(text__ref_component_rules)
{
	static const char *const good[] = { "gpio", "net-next", "a.b", "x_y+z", "v6.1", "A@b" };
	static const char *const bad[] = {
		"", ".hidden", "-opt", "a..b", "a.lock", "end.", "@", "a@{b", "sp ace",
		"ta\tb", "a~b", "a^b", "a:b", "a?b", "a*b", "a[b", "a\\b", "a/b",
		"caf\xc3\xa9", "bad\xff", "del\x7f",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		CHECK(ref_component_valid(good[i]));
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (ref_component_valid(bad[i])) {
			fprintf(stderr, "  accepted '%s'\n", bad[i]);
			t_failed_now = 1;
		}
}

TEST(text__strip_userinfo_in_a_file)
{
	struct buf b = BUF_INIT;

	text_strip_userinfo(&b, "#tide\tbase\thttps://u:pw@h/x#v1\n"
			    "a\tgit\tssh://git@h:22/a.git#m\nb\tgit\t/local/b#m\n");
	CHECK_STR(buf_cstr(&b), "#tide\tbase\thttps://h/x#v1\n"
		  "a\tgit\tssh://h:22/a.git#m\nb\tgit\t/local/b#m\n");
	buf_release(&b);
}

TESTS(text__strip_userinfo_in_a_file, text__utf8_valid_refuses_what_jansson_refuses, text__lossy_replaces_each_bad_byte,
      text__json_text_never_null, text__decode_latin1_and_unknown_charsets,
      text__url_redact_and_strip, text__url_redact_password_with_quotes,
      text__error_cut_inside_a_password, text__redact_inside_messages, text__ref_component_rules)
