/* Unit tests of src/mail.c against tests/servers/smtp-sink.py. */
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "mail.h"
#include "util.h"
#include "t.h"
#include "t_files.h"

static void make_msg(struct mail_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->from = xstrdup("Tide Next <next@tide.invalid>");
	mail_add_rcpt(&m->to, &m->nto, "Gpio Maint <gpio@ex.org>");
	mail_add_rcpt(&m->cc, &m->ncc, "fixes@ex.org");
	mail_add_rcpt(&m->cc, &m->ncc, "fixes@ex.org");
	m->subject = xstrdup("linux-next: manual merge of the gpio tree with the fixes tree");
	m->body = xstrdup("Hi all,\n\n.a line starting with a dot\n");
	m->message_id = xstrdup("<next-20261203.gpio@tide.invalid>");
	m->date = 1796270400;
}

TEST(mail__format_has_the_headers)
{
	struct mail_msg m;
	struct buf out = BUF_INIT;

	make_msg(&m);
	CHECK_INT((int)m.ncc, 1);
	mail_format(&out, &m, 0);
	CHECK(strstr(out.ptr, "Date: Thu, 03 Dec 2026 04:00:00 +0000\n") != NULL);
	CHECK(strstr(out.ptr, "From: Tide Next <next@tide.invalid>\n") != NULL);
	CHECK(strstr(out.ptr, "To: Gpio Maint <gpio@ex.org>\n") != NULL);
	CHECK(strstr(out.ptr, "Cc: fixes@ex.org\n") != NULL);
	CHECK(strstr(out.ptr, "Subject: linux-next: manual merge of the gpio tree with the fixes tree\n"));
	CHECK(strstr(out.ptr, "Message-ID: <next-20261203.gpio@tide.invalid>\n") != NULL);
	CHECK(strstr(out.ptr, "\n\nHi all,\n") != NULL);
	buf_clear(&out);
	mail_format(&out, &m, 1);
	CHECK(strstr(out.ptr, "Hi all,\r\n\r\n.a line") != NULL);
	CHECK(strstr(out.ptr, "\n\n") == NULL);
	buf_release(&out);
	mail_msg_release(&m);
}

/*
 * Every line of a CRLF message: no bare CR or LF anywhere, none longer
 * than max octets (CRLF not counted).  Returns the number of lines.
 */
static size_t check_lines(const struct buf *msg, size_t max)
{
	size_t i, col = 0, n = 0;

	for (i = 0; i < msg->len; i++) {
		if (msg->ptr[i] == '\r') {
			CHECK(i + 1 < msg->len && msg->ptr[i + 1] == '\n');
			if (col > max)
				fprintf(stderr, "  line %zu: %zu octets\n", n + 1, col);
			CHECK(col <= max);
			col = 0, n++, i++;
			continue;
		}
		CHECK(msg->ptr[i] != '\n');
		col++;
	}
	CHECK_INT(col, 0);	/* ends with CRLF */
	return n;
}

/* RFC 2045's quoted-printable decoding of the CRLF body that starts at p. */
static void qp_decode(struct buf *out, const char *p)
{
	while (*p) {
		if (p[0] == '=' && p[1] == '\r' && p[2] == '\n') {
			p += 3;
		} else if (p[0] == '=' && p[1] && p[2]) {
			char hex[3] = { p[1], p[2], 0 };

			buf_putc(out, (char)strtol(hex, NULL, 16));
			p += 3;
		} else if (p[0] == '\r' && p[1] == '\n') {
			buf_putc(out, '\n');
			p += 2;
		} else {
			buf_putc(out, *p++);
		}
	}
}

/*
 * A 200 KB line (a tree's commit subject, say) with '=', UTF-8, a
 * trailing space and bare CRs: the body goes quoted-printable, no line is
 * longer than 76, and decoding gives back the text with each CR made a
 * line break.
 */
TEST(mail__long_lines_go_quoted_printable)
{
	struct buf body = BUF_INIT, out = BUF_INIT, part = BUF_INIT, want = BUF_INIT, got = BUF_INIT;
	struct mail_msg m;
	const char *sep;
	size_t i;

	make_msg(&m);
	buf_puts(&body, "Hi all,\n\n  0123456789ab (\"");
	for (i = 0; i < 20000; i++)
		buf_puts(&body, i % 9000 == 5 ? "\r" : "x=y \xc3\xa9 ");
	buf_puts(&body, "\")\n.dot\ntrailing space \n");
	free(m.body);
	m.body = xstrdup(body.ptr);
	mail_format(&out, &m, 1);
	check_lines(&out, 998);
	REQUIRE((sep = strstr(out.ptr, "\r\n\r\n")) != NULL);
	CHECK(strstr(out.ptr, "\r\nContent-Transfer-Encoding: quoted-printable\r\n") < sep);
	CHECK(strstr(sep, "\r\ntrailing space=20\r\n") != NULL);
	buf_puts(&part, sep + 4);
	check_lines(&part, 76);
	qp_decode(&got, part.ptr);
	for (i = 0; i < body.len; i++)
		buf_putc(&want, body.ptr[i] == '\r' ? '\n' : body.ptr[i]);
	CHECK_INT(got.len, want.len);
	for (i = 0; i < got.len && i < want.len && got.ptr[i] == want.ptr[i]; i++)
		;
	if (i < got.len || i < want.len)
		fprintf(stderr, "  first difference at %zu: ...%.40s\n", i, got.ptr + (i > 20 ? i - 20 : 0));
	CHECK(got.len == want.len && !memcmp(got.ptr, want.ptr, got.len));
	buf_release(&body), buf_release(&out), buf_release(&part);
	buf_release(&want), buf_release(&got);
	mail_msg_release(&m);
}

/* Short lines stay 8bit; bare CRs and LFs become CRLF, in headers a space. */
TEST(mail__bare_cr_and_lf_normalised)
{
	struct buf out = BUF_INIT;
	struct mail_msg m;

	make_msg(&m);
	free(m.body);
	m.body = xstrdup("a\rb\r\nc\nd\r\r\ne");
	free(m.subject);
	m.subject = xstrdup("merge\r\nBcc: evil@ex.org\rX: y\nZ: z");
	mail_format(&out, &m, 1);
	check_lines(&out, 998);
	CHECK(strstr(out.ptr, "\r\nSubject: merge  Bcc: evil@ex.org X: y Z: z\r\n") != NULL);
	CHECK(strstr(out.ptr, "\r\nBcc:") == NULL);
	CHECK(strstr(out.ptr, "Content-Transfer-Encoding: 8bit\r\n\r\na\r\nb\r\nc\r\nd\r\n\r\ne\r\n") != NULL);
	buf_release(&out);
	mail_msg_release(&m);
}

/* 300 recipients and a 5000-byte subject: folded, nothing lost when unfolded. */
TEST(mail__long_headers_folded)
{
	struct buf subject = BUF_INIT, out = BUF_INIT, unfolded = BUF_INIT;
	struct mail_msg m;
	const char *p, *end;
	size_t i;

	make_msg(&m);
	for (i = 0; i < 300; i++) {
		char *addr = xasprintf("Maintainer Number %zu <m%zu@ex.org>", i, i);

		mail_add_rcpt(&m.cc, &m.ncc, addr);
		free(addr);
	}
	for (i = 0; i < 400; i++)
		buf_puts(&subject, "word ");
	for (i = 0; i < 3000; i++)
		buf_putc(&subject, 'z');
	free(m.subject);
	m.subject = xstrdup(subject.ptr);
	mail_format(&out, &m, 1);
	check_lines(&out, 998);
	end = strstr(out.ptr, "\r\n\r\n");
	REQUIRE(end != NULL);
	for (p = out.ptr; p < end; p++) {
		if (p[0] == '\r' && p[1] == '\n' && (p[2] == ' ' || p[2] == '\t'))
			p++;	/* a fold: the CRLF goes, the white space stays */
		else
			buf_putc(&unfolded, *p);
	}
	CHECK(strstr(unfolded.ptr, "Cc: fixes@ex.org,\tMaintainer Number 0 <m0@ex.org>,\t") != NULL);
	CHECK(strstr(unfolded.ptr, "Maintainer Number 299 <m299@ex.org>\r\n") != NULL);
	/* Folds at white space lose nothing; one inside the run of z adds a space. */
	REQUIRE((p = strstr(unfolded.ptr, "\r\nSubject: ")) != NULL);
	p += 11;
	CHECK(!strncmp(p, subject.ptr, 2000));
	for (i = 0, p += 2000; *p != '\r'; p++)
		if (*p == 'z')
			i++;
		else
			CHECK(*p == ' ');
	CHECK_INT(i, 3000);
	buf_release(&subject), buf_release(&out), buf_release(&unfolded);
	mail_msg_release(&m);
}

TEST(mail__credentials_file_must_be_private)
{
	char *dir = t_tmpdir("mail"), *path = path_join(dir, "creds");
	struct mail_server s = { 0 };
	const char *text = "user=next\npassword=s3cret-pw\n";

	REQUIRE(file_write_atomic(path, text, strlen(text)) == 0);
	chmod(path, 0644);
	CHECK_INT(mail_credentials_load(&s, path), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), path) != NULL);
	CHECK(strstr(tide_error_last(), "644") != NULL);
	CHECK(strstr(tide_error_last(), "s3cret") == NULL);
	chmod(path, 0600);
	CHECK_INT(mail_credentials_load(&s, path), 0);
	CHECK_STR(s.user, "next");
	CHECK_STR(s.password, "s3cret-pw");
	REQUIRE(file_write_atomic(path, "user=x\n", 7) == 0);
	chmod(path, 0600);
	CHECK_INT(mail_credentials_load(&s, path), TIDE_EINVAL);
	mail_server_release(&s);
	rm_rf(dir);
	free(path), free(dir);
}

TEST(mail__url_must_not_carry_credentials)
{
	struct mail_server s = { 0 };

	s.url = xstrdup("smtp://next:pw@127.0.0.1:25");
	CHECK_INT(mail_server_check(&s), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "pw") == NULL);
	free(s.url);
	s.url = xstrdup("http://127.0.0.1/");
	CHECK_INT(mail_server_check(&s), TIDE_EINVAL);
	free(s.url);
	s.url = xstrdup("smtps://mail.ex.org:465");
	CHECK_INT(mail_server_check(&s), 0);
	mail_server_release(&s);
}

struct sink {
	pid_t pid;
	char *dir, *url;
};

static int sink_start(struct sink *k, const char *dir, const char *extra1, const char *extra2)
{
	char *portfile = path_join(dir, "port"), *port = NULL;
	int i;

	k->dir = path_join(dir, "mail");
	k->pid = fork();
	if (k->pid == 0) {
		execlp("python3", "python3", "tests/servers/smtp-sink.py", "--dir", k->dir,
		       "--port-file", portfile, extra1 ? extra1 : "--dir",
		       extra1 ? extra2 : k->dir, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 100 && !(port = t_slurp(dir, "port")); i++)
		usleep(50000);
	unlink(portfile);
	free(portfile);
	if (!port)
		return -1;
	k->url = xasprintf("smtp://127.0.0.1:%d", atoi(port));
	free(port);
	return 0;
}

static void sink_stop(struct sink *k)
{
	if (k->pid > 0) {
		kill(k->pid, SIGTERM);
		waitpid(k->pid, NULL, 0);
	}
	free(k->dir), free(k->url);
}

TEST(mail__sends_to_the_sink_with_to_and_cc)
{
	char *dir = t_tmpdir("mail"), *eml = NULL, *env = NULL;
	struct sink k = { 0, NULL, NULL };
	struct mail_server s = { 0 };
	struct mail_msg m;

	make_msg(&m);
	REQUIRE(sink_start(&k, dir, NULL, NULL) == 0);
	s.url = xstrdup(k.url);
	s.timeout = 5;
	CHECK_INT(mail_send(&s, &m), 0);
	eml = t_slurp(k.dir, "1.eml");
	env = t_slurp(k.dir, "1.env");
	REQUIRE(eml && env);
	CHECK_STR(env, "from next@tide.invalid\nto gpio@ex.org\nto fixes@ex.org\n");
	CHECK(strstr(eml, "Subject: linux-next: manual merge of the gpio tree") != NULL);
	CHECK(strstr(eml, "\n.a line starting with a dot\n") != NULL);
	sink_stop(&k);
	mail_server_release(&s);
	mail_msg_release(&m);
	rm_rf(dir);
	free(eml), free(env), free(dir);
}

TEST(mail__authenticates_and_never_shows_the_password)
{
	char *dir = t_tmpdir("mail"), *env = NULL;
	struct sink k = { 0, NULL, NULL };
	struct mail_server s = { 0 };
	struct mail_msg m;

	make_msg(&m);
	REQUIRE(sink_start(&k, dir, "--user=next", "--password=right-pw") == 0);
	s.url = xstrdup(k.url);
	s.timeout = 5;
	s.user = xstrdup("next");
	s.password = xstrdup("wrong-pw");
	CHECK(mail_send(&s, &m) < 0);
	CHECK(strstr(tide_error_last(), "wrong-pw") == NULL);
	CHECK(strstr(tide_error_last(), "gpio@ex.org") != NULL);
	free(s.password);
	s.password = xstrdup("right-pw");
	CHECK_INT(mail_send(&s, &m), 0);
	env = t_slurp(k.dir, "1.env");
	CHECK(env && strstr(env, "auth next\n"));
	sink_stop(&k);
	mail_server_release(&s);
	mail_msg_release(&m);
	rm_rf(dir);
	free(env), free(dir);
}

TEST(mail__refused_mail_and_missing_starttls_are_errors)
{
	char *dir = t_tmpdir("mail");
	struct sink k = { 0, NULL, NULL };
	struct mail_server s = { 0 };
	struct mail_msg m;

	make_msg(&m);
	REQUIRE(sink_start(&k, dir, "--refuse", "550") == 0);
	s.url = xstrdup(k.url);
	s.timeout = 5;
	CHECK(mail_send(&s, &m) < 0);
	CHECK(strstr(tide_error_last(), "550") != NULL);
	s.starttls = 1;
	CHECK(mail_send(&s, &m) < 0);
	CHECK(!path_exists(k.dir) || !t_slurp(k.dir, "1.eml"));
	sink_stop(&k);
	mail_server_release(&s);
	mail_msg_release(&m);
	rm_rf(dir);
	free(dir);
}

TESTS(mail__format_has_the_headers,
      mail__long_lines_go_quoted_printable,
      mail__bare_cr_and_lf_normalised,
      mail__long_headers_folded,
      mail__credentials_file_must_be_private,
      mail__url_must_not_carry_credentials,
      mail__sends_to_the_sink_with_to_and_cc,
      mail__authenticates_and_never_shows_the_password,
      mail__refused_mail_and_missing_starttls_are_errors)
