/*
 * Unit tests of src/patch.c and src/mbox.c: mails as they come off a
 * list, built here or by git format-patch, checked against git mailinfo
 * (git 2.39) for author, subject and message.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "error.h"
#include "patch.h"
#include "util.h"
#include "t.h"
#include "t_files.h"

#define DIFF_F "diff --git a/f b/f\nindex 1111111..2222222 100644\n--- a/f\n+++ b/f\n" \
	"@@ -1 +1,2 @@\n a\n+b\n"

/* What git mailinfo --scissors makes of mail, as "Author/Email/Subject" and git am's message. */
static char *mailinfo(const char *dir, const char *mail, size_t len)
{
	char *path = path_join(dir, "mail"), *out;

	if (file_write_atomic(path, mail, len) < 0)
		abort();
	free(path);
	if (t_sh_in(dir, T_GITENV "git mailinfo --scissors -u msg patch <mail >info && "
		    "{ grep -E '^(Author|Email|Subject):' info; echo; "
		    "{ sed -n 's/^Subject: //p' info; echo; cat msg; } | git stripspace; } >want"))
		return NULL;
	out = t_slurp(dir, "want");
	return out;
}

/* tide's parse in the same form. */
static char *tide_info(const struct patch *p)
{
	struct buf b = BUF_INIT;

	if (p->author_name)
		buf_printf(&b, "Author: %s\nEmail: %s\n", p->author_name, p->author_email);
	buf_printf(&b, "Subject: %s\n\n%s", p->subject ? p->subject : "", p->message);
	return buf_detach(&b);
}

/* Parse mail with tide and with git mailinfo; the whole outputs must be equal. */
static void check_like_mailinfo(const char *mail, struct patch *p)
{
	char *dir = t_tmpdir("patch"), *want, *got;

	want = mailinfo(dir, mail, strlen(mail));
	CHECK(want != NULL);
	if (patch_parse_mail(p, mail, strlen(mail), 0) < 0) {
		fprintf(stderr, "  patch_parse_mail: %s\n", tide_error_last());
		CHECK(0);
		memset(p, 0, sizeof(*p));
	} else {
		got = tide_info(p);
		CHECK_STR(got, want ? want : "");
		free(got);
	}
	free(want);
	rm_rf(dir);
	free(dir);
}

static char *b64(const char *s)
{
	gchar *e = g_base64_encode((const guchar *)s, strlen(s));
	struct buf b = BUF_INIT;
	size_t i, n = strlen(e);

	/* Lines of 76, as mailers write them. */
	for (i = 0; i < n; i += 76) {
		buf_put(&b, e + i, n - i < 76 ? n - i : 76);
		buf_putc(&b, '\n');
	}
	g_free(e);
	return buf_detach(&b);
}

TEST(patch__format_patch_mail_like_mailinfo)
{
	const char *mail =
		"From 1234 Mon Sep 17 00:00:00 2001\n"
		"From: =?UTF-8?q?J=C3=B6rg_M=C3=BCller?= <jm@ex.org>\n"
		"Date: Tue, 1 Dec 2026 09:30:00 -0500\n"
		"Subject: [PATCH v2 3/7] gpio: sim: fix a very long\n"
		" subject line\n"
		"MIME-Version: 1.0\n"
		"Content-Type: text/plain; charset=UTF-8\n"
		"Content-Transfer-Encoding: 8bit\n"
		"\n"
		"The why.\n\n"
		"Fixes: 0123456789ab (\"gpio: sim: add it\")\n"
		"Reviewed-by: R <r@ex.org>\n"
		"Link: https://lore.kernel.org/r/1@ex.org\n"
		"Signed-off-by: J <jm@ex.org>\n"
		"---\n f | 1 +\n\n" DIFF_F "-- \n2.39.5\n\n";
	struct patch p;

	check_like_mailinfo(mail, &p);
	CHECK_INT(p.number, 3);
	CHECK_INT(p.total, 7);
	CHECK_INT(p.version, 2);
	CHECK_INT(p.date, 1796135400);
	CHECK_INT(p.tz_minutes, -300);
	CHECK(strstr(p.message, "Link: https://lore.kernel.org/r/1@ex.org\n") != NULL);
	CHECK_INT(p.diff_len, strlen(DIFF_F));
	CHECK(p.diff && !memcmp(p.diff, DIFF_F, strlen(DIFF_F)));
	patch_release(&p);
}

TEST(patch__base64_body_like_mailinfo)
{
	char *body = b64("Caf\xc3\xa9 fix.\n\nSigned-off-by: A <a@ex.org>\n---\n" DIFF_F);
	char *mail = xasprintf("From: A <a@ex.org>\nSubject: [PATCH] caf\xc3\xa9\n"
			       "Content-Type: text/plain; charset=utf-8\n"
			       "Content-Transfer-Encoding: base64\n\n%s", body);
	struct patch p;

	check_like_mailinfo(mail, &p);
	CHECK(p.diff && p.diff_len == strlen(DIFF_F) && !memcmp(p.diff, DIFF_F, p.diff_len));
	patch_release(&p);
	free(body);
	free(mail);
}

/* Latin-1 QP: the message comes out UTF-8, the diff's bytes stay as sent. */
TEST(patch__quoted_printable_latin1_like_mailinfo)
{
	const char *mail =
		"From: =?ISO-8859-1?B?SvZyZw==?= <j@ex.org>\n"
		"Subject: =?iso-8859-1?q?[PATCH]_f=FCr_x?=\n"
		"Content-Type: text/plain; charset=ISO-8859-1\n"
		"Content-Transfer-Encoding: quoted-printable\n\n"
		"Gr=FC=DFe, a very long line that a mailer folds with a soft line brea=\n"
		"k.\n---\n"
		"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+x =3D 1; /* =FC */\n";
	struct patch p;

	check_like_mailinfo(mail, &p);
	CHECK_STR(p.author_name, "J\xc3\xb6rg");
	CHECK_STR(p.subject, "f\xc3\xbcr x");
	CHECK(p.diff && strstr(p.diff, "+x = 1; /* \xfc */\n") != NULL);
	patch_release(&p);
}

TEST(patch__b_encoded_cjk_and_utf8_words_like_mailinfo)
{
	const char *mail =
		"From: =?GB2312?B?xOO6ww==?= <nihao@ex.cn>\n"
		"Subject: [PATCH 1/1] =?UTF-8?B?ZHJtOiDkv67mraM=?= =?ISO-2022-JP?B?GyRCPSRANRsoQg==?=\n"
		"\n"
		"Body.\n---\n" DIFF_F;
	struct patch p;

	check_like_mailinfo(mail, &p);
	CHECK_STR(p.author_name, "\xe4\xbd\xa0\xe5\xa5\xbd");
	patch_release(&p);
}

/* git format-patch --attach: the message inline, the patch a text/x-patch part (here base64). */
TEST(patch__multipart_attachment_like_mailinfo)
{
	char *att = b64(DIFF_F);
	char *mail = xasprintf(
		"From: A <a@ex.org>\nSubject: [PATCH] attach\nMIME-Version: 1.0\n"
		"Content-Type: multipart/mixed; boundary=\"------------2.39.5\"\n\n"
		"This is a multi-part message in MIME format.\n"
		"--------------2.39.5\n"
		"Content-Type: text/plain; charset=UTF-8; format=fixed\n"
		"Content-Transfer-Encoding: 8bit\n\n"
		"Why.\n\nSigned-off-by: A <a@ex.org>\n---\n f | 1 +\n\n\n"
		"--------------2.39.5\n"
		"Content-Type: text/x-patch; name=\"0001-attach.patch\"\n"
		"Content-Transfer-Encoding: base64\n"
		"Content-Disposition: attachment; filename=\"0001-attach.patch\"\n\n%s\n"
		"--------------2.39.5\n"
		"Content-Type: text/plain; charset=us-ascii\n\n"
		"_______________________________________________\nlist footer\n"
		"--------------2.39.5--\n", att);
	struct patch p;

	check_like_mailinfo(mail, &p);
	CHECK(p.diff && p.diff_len == strlen(DIFF_F) && !memcmp(p.diff, DIFF_F, p.diff_len));
	patch_release(&p);
	free(att);
	free(mail);
}

/* In-body From/Subject/Date override the mail's; above a scissors line is discussion. */
TEST(patch__inbody_headers_and_scissors_like_mailinfo)
{
	const char *inbody =
		"From: Sender <s@ex.org>\nSubject: [PATCH] sent for someone\n"
		"Date: Tue, 1 Dec 2026 09:30:00 +0000\n\n"
		"From: =?UTF-8?q?Au_Th=C3=B6r?= <author@ex.org>\n"
		"Subject: real subject\n"
		"Date: Mon, 30 Nov 2026 10:00:00 +0100\n\n"
		"Real body.\n---\n" DIFF_F;
	const char *scissors =
		"From: Reviewer <r@ex.org>\nSubject: Re: [PATCH] old\n\n"
		"Like this?\n\n-- >8 --\nFrom: Fixer <fx@ex.org>\nSubject: x: do it right\n\n"
		"Because.\n---\n" DIFF_F;
	struct patch p;

	check_like_mailinfo(inbody, &p);
	CHECK_STR(p.author_email, "author@ex.org");
	CHECK_INT(p.date, 1796029200);
	CHECK_INT(p.tz_minutes, 60);
	patch_release(&p);
	check_like_mailinfo(scissors, &p);
	CHECK_STR(p.message, "x: do it right\n\nBecause.\n");
	CHECK(p.is_reply);	/* in a series, still a reply to skip */
	patch_release(&p);
}

TEST(patch__from_forms_like_mailinfo)
{
	static const char *const froms[] = {
		"\"M\xc3\xbcller, J\xc3\xb6rg \\\"JM\\\"\" <jm@ex.org>", "jm@ex.org (J\xc3\xb6rg M)",
		"jm@ex.org", "<jm@ex.org>", "Joerg <jm@ex.org> (comment)",
		"=?utf-8?b?SsO2cmc=?= =?utf-8?q?_M=C3=BCller?= <jm@ex.org>" };
	struct patch p;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(froms); i++) {
		char *mail = xasprintf("From: %s\nSubject: s\n\nb\n---\n" DIFF_F, froms[i]);

		check_like_mailinfo(mail, &p);
		patch_release(&p);
		free(mail);
	}
}

TEST(patch__crlf_mail_and_base_info)
{
	const char *mail =
		"From: A <a@ex.org>\r\nSubject: [PATCH] crlf\r\n\r\nBody.\r\n---\r\n"
		"diff --git a/f b/f\r\n--- a/f\r\n+++ b/f\r\n@@ -1 +1,2 @@\r\n a\r\n+b\r\n\r\n"
		"base-commit: 0123456789abcdef0123456789abcdef01234567\r\n"
		"prerequisite-patch-id: 89abcdef0123456789abcdef0123456789abcdef\r\n"
		"-- \r\n2.39.5\r\n";
	struct patch p;

	check_like_mailinfo(mail, &p);
	CHECK_STR(p.base_commit, "0123456789abcdef0123456789abcdef01234567");
	REQUIRE(p.nprereq == 1);
	CHECK_STR(p.prereq_patch_ids[0], "89abcdef0123456789abcdef0123456789abcdef");
	CHECK(p.diff && !strcmp(p.diff, "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+b\n"));
	patch_release(&p);
}

TEST(patch__bad_mails_fail_cleanly)
{
	struct patch p;
	size_t big = PATCH_MAX_MESSAGE + 1;
	char *huge;

	CHECK_INT(patch_parse(&p, "Subject: x\n\nno diff\n", 20), TIDE_EINVAL);
	CHECK_INT(patch_parse(&p, "Subject: x\n\n---\ndiff --git a/f b/f\nindex 1..2\n", 46),
		  TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "no hunks") != NULL);
	CHECK_INT(patch_parse(&p, "Subject: =?x-no-such-cs?q?a?=\n\n" DIFF_F,
			      strlen("Subject: =?x-no-such-cs?q?a?=\n\n" DIFF_F)), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "unknown charset 'x-no-such-cs'") != NULL);
	CHECK(strstr(tide_error_last(), "Subject") != NULL);
	CHECK_INT(patch_parse(&p, "Subject: a\nContent-Type: text/plain; charset=x-bad\n\nb\n---\n"
			      DIFF_F, strlen("Subject: a\nContent-Type: text/plain; charset=x-bad"
					     "\n\nb\n---\n" DIFF_F)), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "x-bad") != NULL);
	huge = xmalloc(big);
	memset(huge, 'a', big);
	CHECK_INT(patch_parse(&p, huge, big), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "64 MB") != NULL);
	free(huge);
	/* Garbage is not a crash. */
	CHECK_INT(patch_parse(&p, "\x01\x02\xff\n\n\n", 6), TIDE_EINVAL);
	CHECK_INT(patch_parse(&p, "Content-Type: multipart/mixed; boundary=x\n\n--x\n", 47),
		  TIDE_EINVAL);
}

/* Every truncation and a byte flipped at every offset: errors or patches, never a crash. */
TEST(patch__truncated_and_corrupted_mails_do_not_crash)
{
	char *att = b64(DIFF_F);
	char *mail = xasprintf(
		"From 1 Mon Sep 17 00:00:00 2001\nFrom: =?UTF-8?B?SsO2cmc=?= <a@ex.org>\n"
		"Subject: =?ISO-8859-1?Q?[PATCH_v2_1/2]_f=FC?=\nMIME-Version: 1.0\n"
		"Content-Type: multipart/mixed; boundary=\"b\"\n\n--b\n"
		"Content-Type: text/plain; charset=ISO-8859-1\n"
		"Content-Transfer-Encoding: quoted-printable\n\nFrom: X <x@ex.org>\n\nGr=FC=\nss.\n"
		"-- >8 --\nWhy.\n---\n--b\nContent-Type: text/x-patch\n"
		"Content-Transfer-Encoding: base64\n\n%s--b--\n", att);
	size_t len = strlen(mail), i;
	struct patch p;
	struct patch_series s;
	int ok = 0;

	for (i = 0; i <= len; i++) {
		char *copy = xstrndup(mail, len);

		if (patch_parse(&p, mail, i) == 0)
			ok++, patch_release(&p);
		if (patch_series_from_mbox(&s, mail, i) == 0)
			patch_series_release(&s);
		if (i < len) {
			copy[i] ^= (char)0xa5;
			if (patch_parse(&p, copy, len) == 0)
				patch_release(&p);
			copy[i] = '\n';
			if (patch_series_from_mbox(&s, copy, len) == 0)
				patch_series_release(&s);
		}
		free(copy);
	}
	REQUIRE(patch_parse(&p, mail, len) == 0);
	CHECK_STR(p.message, "f\xc3\xbc\n\nWhy.\n");
	CHECK_STR(p.author_email, "a@ex.org");
	CHECK(ok > 0);
	patch_release(&p);
	free(att);
	free(mail);
}

/* ---- series ---- */

static char *mail_n(const char *subject, const char *body)
{
	return xasprintf("From 0123 Mon Sep 17 00:00:00 2001\nFrom: A <a@ex.org>\n"
			 "Date: Tue, 1 Dec 2026 09:30:00 +0000\nSubject: %s\n\n%s\n", subject, body);
}

static char *mbox_of(const char *const *subjects, const char *const *bodies, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		char *m = mail_n(subjects[i], bodies[i]);

		buf_puts(&b, m);
		free(m);
	}
	return buf_detach(&b);
}

#define PBODY(x) "Patch " x ".\n\n>From the list, quoted.\n---\n" DIFF_F "-- \n2.39.5\n"

TEST(series__newest_revision_in_order_without_replies)
{
	static const char *const subj[] = {
		"[PATCH v2 0/2] the series", "[PATCH v2 2/2] two", "[PATCH v2 1/2] one",
		"[PATCH v3 2/2] two again", "Re: [PATCH v3 1/2] one again",
		"[PATCH v3 0/2] the series, v3", "[PATCH v3 1/2] one again",
		"[PATCH v3 1/2] one again (a comment without diff)",
		"Re: [PATCH v3 2/2] =?x-tide-bogus?q?two?=" };
	static const char *const body[] = {
		"cover v2\n",  PBODY("2"), PBODY("1"), PBODY("2 v3"), "> quoted\nLooks good.\n",
		"cover v3\n\nbase-commit: 0123456789abcdef0123456789abcdef01234567\n"
		"prerequisite-patch-id: 89abcdef0123456789abcdef0123456789abcdef\n",
		PBODY("1 v3"), "just talk\n", "A reply in a charset nobody knows.\n" };
	char *mbox = mbox_of(subj, body, ARRAY_SIZE(subj));
	struct patch_series s;

	REQUIRE(patch_series_from_mbox(&s, mbox, strlen(mbox)) == 0);
	CHECK_INT(s.version, 3);
	CHECK_INT(s.n, 2);
	CHECK_STR(s.cover_subject, "the series, v3");
	CHECK_STR(s.base_commit, "0123456789abcdef0123456789abcdef01234567");
	CHECK_INT(s.nprereq, 1);
	if (s.n == 2) {
		CHECK_STR(s.patches[0].message,
			  "one again\n\nPatch 1 v3.\n\nFrom the list, quoted.\n");
		CHECK_STR(s.patches[1].subject, "two again");
	}
	patch_series_release(&s);
	free(mbox);
}

TEST(series__missing_duplicate_and_malformed_are_named)
{
	static const char *const miss[] = { "[PATCH 1/3] a", "[PATCH 2/3] b", "[PATCH 3/3] c" };
	static const char *const missb[] = { PBODY("1"), "no diff here\n", PBODY("3") };
	static const char *const dup[] = { "[PATCH 1/2] a", "[PATCH 2/2] b", "[PATCH 2/2] b2" };
	static const char *const dupb[] = { PBODY("1"), PBODY("2"), PBODY("2b") };
	static const char *const bad[] = { "[PATCH 1/2] a", "[PATCH 2/2] =?x-tide-bogus?q?b?=" };
	static const char *const badb[] = { PBODY("1"), PBODY("2") };
	char *mbox = mbox_of(miss, missb, 3);
	struct patch_series s;

	CHECK_INT(patch_series_from_mbox(&s, mbox, strlen(mbox)), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "mbox: patch 2/3 of the series (v1) is missing "
		  "(mbox: message 2 (line 20), '[PATCH 2/3] b' has no diff)");
	free(mbox);
	mbox = mbox_of(dup, dupb, 3);
	CHECK_INT(patch_series_from_mbox(&s, mbox, strlen(mbox)), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "duplicate patch 2/2") != NULL);
	CHECK(strstr(tide_error_last(), "message 3 (line") != NULL);
	free(mbox);
	mbox = mbox_of(bad, badb, 2);
	CHECK_INT(patch_series_from_mbox(&s, mbox, strlen(mbox)), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "message 2 (line 20)") != NULL);
	CHECK(strstr(tide_error_last(), "unknown charset 'x-tide-bogus'") != NULL);
	free(mbox);
	mbox = mbox_of((const char *const[]){ "[PATCH 1/2] a", "[PATCH] stray" }, badb, 2);
	CHECK_INT(patch_series_from_mbox(&s, mbox, strlen(mbox)), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "'[PATCH] stray': no n/m number") != NULL);
	free(mbox);
	mbox = mbox_of((const char *const[]){ "[PATCH] z first", "[PATCH] a second" }, badb, 2);
	REQUIRE(patch_series_from_mbox(&s, mbox, strlen(mbox)) == 0);
	CHECK_STR(s.patches[0].subject, "z first");
	patch_series_release(&s);
	free(mbox);
	CHECK_INT(patch_series_from_mbox(&s, "hello world\nthis is no mail\n", 28), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "line 1") != NULL);
	CHECK_INT(patch_series_from_mbox(&s, "", 0), TIDE_EINVAL);
	mbox = mail_n("Re: [PATCH] x", "only talk\n");
	CHECK_INT(patch_series_from_mbox(&s, mbox, strlen(mbox)), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "no patch") != NULL);
	free(mbox);
}

/* A message over the limit is refused by its size alone, named by its subject. */
TEST(series__huge_attachment_is_refused)
{
	char *head = mail_n("[PATCH 1/1] big", "Body.\n---\n" DIFF_F);
	size_t hl = strlen(head), big = PATCH_MAX_MESSAGE + 100;
	char *mbox = xmalloc(hl + big + 1);

	memcpy(mbox, head, hl);
	memset(mbox + hl, 'A', big);
	mbox[hl + big] = '\n';
	struct patch_series s;

	CHECK_INT(patch_series_from_mbox(&s, mbox, hl + big + 1), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "message 1 (line 1), '[PATCH 1/1] big'") != NULL);
	CHECK(strstr(tide_error_last(), "over the 64 MB limit") != NULL);
	free(mbox);
	free(head);
}

/* Real git format-patch output: --cover-letter -v3 --base, --attach, --encode-email-headers. */
TEST(series__git_format_patch_outputs)
{
	char *dir = t_tmpdir("series"), *out = NULL;
	struct patch_series s;
	struct patch p;

	REQUIRE(t_sh_in(dir, T_GITENV
		"git init -q -b master r && cd r && "
		"for i in 1 2 3; do printf 'a\\nb\\nc%%s\\n' $i >f$i; git add f$i; "
		"GIT_AUTHOR_NAME='J\xc3\xb6rg M\xc3\xbcller' git commit -qm \"sub: change $i\" "
		"-m 'Why.' -m 'Signed-off-by: J <j@ex.org>'; done && "
		"git format-patch -q -o ../v3 --cover-letter -v3 --base=HEAD~2 HEAD~2 && "
		"git format-patch -q --stdout --attach --encode-email-headers --root >../att.mbox && "
		"git format-patch -q --stdout --encoding=ISO-8859-1 -1 >../latin.mbox") == 0);
	out = path_join(dir, "v3");
	REQUIRE(patch_series_from_dir(&s, out) == 0);
	CHECK_INT(s.version, 3);
	CHECK_INT(s.n, 2);
	CHECK_STR(s.cover_subject, "*** SUBJECT HERE ***");
	CHECK(s.base_commit != NULL);
	CHECK_INT(s.nprereq, 0);
	if (s.n == 2) {
		CHECK_STR(s.patches[0].author_name, "J\xc3\xb6rg M\xc3\xbcller");
		CHECK_STR(s.patches[1].message, "sub: change 3\n\nWhy.\n\nSigned-off-by: J <j@ex.org>\n");
		CHECK(strstr(s.patches[1].diff, "+c3\n") != NULL);
	}
	patch_series_release(&s);
	free(out);
	out = path_join(dir, "att.mbox");
	REQUIRE(patch_series_from_path(&s, out) == 0);
	CHECK_INT(s.n, 3);
	if (s.n == 3) {
		CHECK_STR(s.patches[2].subject, "sub: change 3");
		CHECK(s.patches[0].diff && str_starts_with(s.patches[0].diff, "diff --git a/f1 b/f1\n"));
	}
	patch_series_release(&s);
	free(out);
	/* Re-encoded to Latin-1 by format-patch: the same as git mailinfo reads it. */
	out = t_slurp(dir, "latin.mbox");
	REQUIRE(out != NULL);
	CHECK(strstr(out, "=?ISO-8859-1?q?J=F6rg") != NULL);
	check_like_mailinfo(out, &p);
	CHECK_STR(p.author_name, "J\xc3\xb6rg M\xc3\xbcller");
	patch_release(&p);
	free(out);
	rm_rf(dir);
	free(dir);
}

/* A quilt directory: the series file's order wins over numbers; files are mapped, bounded. */
TEST(series__dir_with_series_file_and_huge_file)
{
	char *dir = t_tmpdir("series"), *path;
	char *a = mail_n("[PATCH 2/2] second in the series file", PBODY("a"));
	char *b = mail_n("[PATCH 1/2] first", PBODY("b"));
	struct patch_series s;
	FILE *f;

	path = path_join(dir, "a.patch");
	REQUIRE(file_write_atomic(path, a, strlen(a)) == 0);
	free(path);
	path = path_join(dir, "b.patch");
	REQUIRE(file_write_atomic(path, b, strlen(b)) == 0);
	free(path);
	path = path_join(dir, "series");
	REQUIRE(file_write_atomic(path, "# order\na.patch\nb.patch -p1\n", 28) == 0);
	free(path);
	REQUIRE(patch_series_from_path(&s, dir) == 0);
	REQUIRE(s.n == 2);
	CHECK_STR(s.patches[0].subject, "second in the series file");
	patch_series_release(&s);
	/* 200 MB, sparse: refused by its size, never read into memory whole. */
	path = path_join(dir, "big.mbox");
	REQUIRE((f = fopen(path, "w")) != NULL);
	fputs(a, f);
	CHECK(ftruncate(fileno(f), 200 << 20) == 0);
	fclose(f);
	CHECK_INT(patch_series_from_path(&s, path), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "message 1 (line 1), '[PATCH 2/2] second") != NULL);
	CHECK(strstr(tide_error_last(), "64 MB") != NULL);
	free(path);
	path = path_join(dir, "missing");
	CHECK_INT(patch_series_from_path(&s, path), TIDE_EIO);
	free(path);
	rm_rf(dir);
	free(dir);
	free(a);
	free(b);
}

/* Quilt and akpm patches often have no "---" break: the diff starts at its own first line. */
TEST(patch__quilt_index_and_diff_command_start_the_diff)
{
	const char *quilt =
		"From: Q <q@ex.org>\nSubject: mm: no break\n\nA patch with no dashes.\n\n"
		"Index: linux/mm/f.c\n===================================================================\n"
		"--- linux.orig/mm/f.c\n+++ linux/mm/f.c\n@@ -1 +1 @@\n-a\n+b\n";
	const char *akpm =
		"From: A <a@ex.org>\nSubject: lib: no break\n\nSigned-off-by: A <a@ex.org>\n\n"
		"diff -puN lib/f.c~x lib/f.c\n--- a/lib/f.c~x\n+++ a/lib/f.c\n@@ -1 +1 @@\n-a\n+b\n";
	struct patch p;

	check_like_mailinfo(quilt, &p);
	CHECK(p.diff && !strncmp(p.diff, "Index: linux/mm/f.c\n", 20));
	CHECK(!strstr(p.message, "Index:"));
	patch_release(&p);
	check_like_mailinfo(akpm, &p);
	CHECK(p.diff && !strncmp(p.diff, "diff -puN ", 10));
	CHECK(!strstr(p.message, "diff -puN"));
	patch_release(&p);
}

/* A hunk removing a line "- " shows "-- ": only a real signature after it is cut. */
TEST(patch__removed_dash_line_is_not_a_signature)
{
	const char *mail =
		"From: A <a@ex.org>\nSubject: [PATCH] list\n\nDrop an item.\n---\n"
		"diff --git a/l.md b/l.md\n--- a/l.md\n+++ b/l.md\n@@ -1,3 +1,2 @@\n a\n-- \n c\n";
	const char *signed_mail =
		"From: A <a@ex.org>\nSubject: [PATCH] list\n\nDrop an item.\n---\n"
		"diff --git a/l.md b/l.md\n--- a/l.md\n+++ b/l.md\n@@ -1,3 +1,2 @@\n a\n-- \n c\n"
		"-- \n2.39.5\n\n";
	const char *diff =
		"diff --git a/l.md b/l.md\n--- a/l.md\n+++ b/l.md\n@@ -1,3 +1,2 @@\n a\n-- \n c\n";
	struct patch p;

	/* A quilt patch: no signature at all. */
	REQUIRE(patch_parse(&p, mail, strlen(mail)) == 0);
	CHECK_STR(p.diff, diff);
	patch_release(&p);
	REQUIRE(patch_parse(&p, signed_mail, strlen(signed_mail)) == 0);
	CHECK_STR(p.diff, diff);
	patch_release(&p);
}

/*
 * Debian's DEP-3 headers may run into the diff with no blank line
 * (features/all/db-mok-keyring/trust-machine-keyring-by-default.patch):
 * the headers end at the first line that is not one, as git mailinfo
 * ends them, and the diff starts at its "--- " line, as patch(1) finds it.
 */
TEST(patch__dep3_headers_running_into_the_diff)
{
	const char *dep3 =
		"Author: Luca Boccassi <bluca@debian.org>\n"
		"Description: integrity: trust the machine keyring by default\n"
		" First line of the long description.\n .\n Second paragraph.\n"
		"--- a/security/m.c\n+++ b/security/m.c\n@@ -1 +1 @@\n-a\n+b\n";
	const char *index_first =
		"Index: linux/f.c\n===================================================================\n"
		"--- linux.orig/f.c\n+++ linux/f.c\n@@ -1 +1 @@\n-a\n+b\n";
	const char *crlf_content =
		"Subject: a CR LF file\n--- a/w.bat\n+++ b/w.bat\n@@ -1 +1 @@\n-a\r\n+b\r\n";
	struct patch p;

	REQUIRE(patch_parse(&p, dep3, strlen(dep3)) == 0);
	CHECK_STR(p.author_name, "Luca Boccassi");
	CHECK_STR(p.author_email, "bluca@debian.org");
	CHECK_STR(p.subject, "integrity: trust the machine keyring by default");
	CHECK_STR(p.message, "integrity: trust the machine keyring by default\n\n"
		  "First line of the long description.\n\nSecond paragraph.\n");
	CHECK_STR(p.diff, "--- a/security/m.c\n+++ b/security/m.c\n@@ -1 +1 @@\n-a\n+b\n");
	CHECK_INT((int)patch_diff_lineno(&p, dep3, strlen(dep3)), 6);
	patch_release(&p);
	/* "Index: f" looks like a header, but with "====" after it, it is the diff's. */
	REQUIRE(patch_parse(&p, index_first, strlen(index_first)) == 0);
	CHECK(!strncmp(p.diff, "Index: linux/f.c\n", 17));
	patch_release(&p);
	/* In an LF patch, a CR ending a line is the file's: kept, as patch(1) keeps it. */
	REQUIRE(patch_parse(&p, crlf_content, strlen(crlf_content)) == 0);
	CHECK_STR(p.subject, "a CR LF file");
	CHECK(strstr(p.diff, "-a\r\n+b\r\n") != NULL);
	patch_release(&p);
}

TESTS(patch__format_patch_mail_like_mailinfo, patch__base64_body_like_mailinfo,
      patch__quoted_printable_latin1_like_mailinfo, patch__b_encoded_cjk_and_utf8_words_like_mailinfo,
      patch__multipart_attachment_like_mailinfo, patch__inbody_headers_and_scissors_like_mailinfo,
      patch__from_forms_like_mailinfo, patch__truncated_and_corrupted_mails_do_not_crash, patch__crlf_mail_and_base_info, patch__bad_mails_fail_cleanly,
      patch__quilt_index_and_diff_command_start_the_diff, patch__removed_dash_line_is_not_a_signature,
      patch__dep3_headers_running_into_the_diff,
      series__newest_revision_in_order_without_replies,
      series__missing_duplicate_and_malformed_are_named, series__huge_attachment_is_refused,
      series__git_format_patch_outputs, series__dir_with_series_file_and_huge_file)
