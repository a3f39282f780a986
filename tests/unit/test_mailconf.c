#include <stdlib.h>

#include "t.h"
#include "t_files.h"
#include "error.h"
#include "mailconf.h"

static int parse(struct mailconf *c, const char *text)
{
	mailconf_init(c);
	return mailconf_parse(c, text, strlen(text), "ws/mail.conf", "/ws");
}

TEST(mailconf__good_file)
{
	struct mailconf c;
	const char *text =
		"# the list's server\n"
		"smtp=smtps://mail.example:465\n"
		"\n"
		"from=Tide <next@tide.example>\n"
		"credentials=smtp-creds\n"
		"starttls=yes\n"
		"max-per-day=5\n"
		"timeout=12   \n"
		"announce=linux-next@lists.example\n"
		"cainfo=/etc/ssl/ca.pem\n";

	CHECK_INT(parse(&c, text), 0);
	CHECK_STR(c.server.url, "smtps://mail.example:465");
	CHECK_STR(c.from, "Tide <next@tide.example>");
	CHECK_STR(c.credentials, "/ws/smtp-creds");
	CHECK_INT(c.server.starttls, 1);
	CHECK_INT(c.max_per_day, 5);
	CHECK_INT(c.server.timeout, 12);
	CHECK_STR(c.announce, "linux-next@lists.example");
	CHECK_STR(c.server.cainfo, "/etc/ssl/ca.pem");
	mailconf_release(&c);

	/* defaults; a later line wins; an absolute credentials= stays */
	CHECK_INT(parse(&c, "from=a@b\nfrom=c@d\ncredentials=/etc/creds"), 0);
	CHECK_STR(c.from, "c@d");
	CHECK_STR(c.credentials, "/etc/creds");
	CHECK_INT(c.max_per_day, MAILCONF_MAX_PER_DAY);
	CHECK_INT(c.server.timeout, 0);
	CHECK(c.server.url == NULL && c.announce == NULL);
	mailconf_release(&c);
	CHECK_INT(parse(&c, "max-per-day=0\ntimeout=86400\n"), 0);
	CHECK_INT(c.max_per_day, 0);
	CHECK_INT(c.server.timeout, 86400);
	mailconf_release(&c);
}

/* Each bad line: TIDE_EINVAL and "FILE:LINE: what is wrong". */
static void check_bad(const char *text, const char *msg)
{
	struct mailconf c;

	CHECK_INT(parse(&c, text), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), msg);
	mailconf_release(&c);
}

TEST(mailconf__bad_lines)
{
	check_bad("smtp=smtp://h:25\nnonsense\n",
		  "ws/mail.conf:2: bad line 'nonsense' (want key=value)");
	check_bad("\n\n# c\nsmpt=smtp://h:25\n", "ws/mail.conf:4: unknown key 'smpt'");
	check_bad("max-per-day=abc\n",
		  "ws/mail.conf:1: bad max-per-day 'abc' (a whole number of mails, 0 to 100000)");
	check_bad("max-per-day=5x\n",
		  "ws/mail.conf:1: bad max-per-day '5x' (a whole number of mails, 0 to 100000)");
	check_bad("max-per-day=-1\n",
		  "ws/mail.conf:1: bad max-per-day '-1' (a whole number of mails, 0 to 100000)");
	check_bad("max-per-day=\n",
		  "ws/mail.conf:1: bad max-per-day '' (a whole number of mails, 0 to 100000)");
	check_bad("from=x\ntimeout=soon\n",
		  "ws/mail.conf:2: bad timeout 'soon' (whole seconds, 1 to 86400)");
	check_bad("timeout=0\n", "ws/mail.conf:1: bad timeout '0' (whole seconds, 1 to 86400)");
	check_bad("timeout= 5\n", "ws/mail.conf:1: bad timeout ' 5' (whole seconds, 1 to 86400)");
	check_bad("timeout=99999999999999999999999\n",
		  "ws/mail.conf:1: bad timeout '99999999999999999999999' (whole seconds, 1 to 86400)");
	check_bad("k\xff=1\n", "ws/mail.conf:1: unknown key 'k\\xff'");
	{
		struct mailconf c;

		mailconf_init(&c);
		CHECK_INT(mailconf_parse(&c, "from=x\nsmtp\0=y\n", 16, "ws/mail.conf", "/ws"),
			  TIDE_EINVAL);
		CHECK_STR(tide_error_last(), "ws/mail.conf:2: NUL byte");
		/* what the lines before the bad one set is kept (a dry run uses it) */
		CHECK_STR(c.from, "x");
		mailconf_release(&c);
	}
}

TEST(mailconf__load)
{
	char *ws = t_tmpdir("mailconf");
	struct mailconf c;

	/* no file: not found, and the default sender */
	CHECK_INT(mailconf_load(&c, ws), TIDE_ENOTFOUND);
	CHECK_STR(c.from, MAILCONF_FROM);
	mailconf_release(&c);
	REQUIRE(t_sh_in(ws, "printf 'smtp=smtp://u:pw@h:25\\n' >mail.conf") == 0);
	CHECK_INT(mailconf_load(&c, ws), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "mail.conf") != NULL);
	CHECK(strstr(tide_error_last(), "must not carry credentials") != NULL);
	mailconf_release(&c);
	REQUIRE(t_sh_in(ws, "printf 'smtp=smtp://h:25\\nmax-per-day=2\\n' >mail.conf") == 0);
	CHECK_INT(mailconf_load(&c, ws), 0);
	CHECK_INT(c.max_per_day, 2);
	mailconf_release(&c);
	rm_rf(ws);
	free(ws);
}

TEST(mailconf__state_and_limit)
{
	char *ws = t_tmpdir("mailstate");
	struct mailconf c;
	struct mail_state st;

	REQUIRE(parse(&c, "max-per-day=2\n") == 0);
	mail_state_load(&st, ws, "2024-01-02");
	CHECK_INT(mail_state_nsent(&st), 0);
	CHECK(!mailconf_limit_reached(&c, &st));
	mail_state_set_failed(&st, "gpio", "refused");
	CHECK(mail_state_sent(&st, "gpio") == NULL);
	mail_state_set_sent(&st, "gpio", "<1@t>");
	CHECK_STR(mail_state_sent(&st, "gpio"), "<1@t>");
	/* a failure recorded before is forgotten once the mail went out */
	CHECK(json_object_get(json_object_get(st.json, "failed"), "gpio") == NULL);
	CHECK(!mailconf_limit_reached(&c, &st));
	mail_state_set_failed(&st, "usb", "refused");
	CHECK(!mailconf_limit_reached(&c, &st));
	mail_state_set_sent(&st, "usb", "<2@t>");
	CHECK(mailconf_limit_reached(&c, &st));
	/* the announcement does not count */
	CHECK(mail_state_announced(&st) == NULL);
	mail_state_set_announced(&st, "<3@t>");
	CHECK_INT(mail_state_nsent(&st), 2);
	CHECK_INT(mail_state_save(&st), 0);
	mail_state_release(&st);

	mail_state_load(&st, ws, "2024-01-02");
	CHECK_STR(mail_state_sent(&st, "usb"), "<2@t>");
	CHECK_STR(mail_state_announced(&st), "<3@t>");
	CHECK(mailconf_limit_reached(&c, &st));
	mail_state_release(&st);
	/* another day starts from nothing */
	mail_state_load(&st, ws, "2024-01-03");
	CHECK(!mailconf_limit_reached(&c, &st));
	mail_state_release(&st);
	c.max_per_day = 0;
	mail_state_load(&st, ws, "2024-01-03");
	CHECK(mailconf_limit_reached(&c, &st));
	mail_state_release(&st);
	mailconf_release(&c);
	rm_rf(ws);
	free(ws);
}

TESTS(mailconf__good_file, mailconf__bad_lines, mailconf__load, mailconf__state_and_limit)
