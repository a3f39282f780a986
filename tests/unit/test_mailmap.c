/* Unit tests of src/mailmap.c: addresses through a .mailmap. */
#include <string.h>

#include <git2.h>

#include "mail.h"
#include "mailmap.h"
#include "util.h"
#include "t.h"

static git_mailmap *map(const char *text)
{
	git_mailmap *mm = NULL;

	git_libgit2_init();
	if (git_mailmap_from_buffer(&mm, text, strlen(text)) < 0)
		abort();
	return mm;
}

TEST(mailmap__resolves_names_and_addresses)
{
	git_mailmap *mm = map("Real Name <new@ex.org> <old@ex.org>\n"
			      "<only@new.org> Some One <only@old.org>\n");
	char *r;

	CHECK_STR((r = mailmap_resolve_addr(mm, "old@ex.org")), "Real Name <new@ex.org>");
	free(r);
	CHECK_STR((r = mailmap_resolve_addr(mm, "Whoever <old@ex.org>")), "Real Name <new@ex.org>");
	free(r);
	CHECK_STR((r = mailmap_resolve_addr(mm, "Some One <only@old.org>")), "Some One <only@new.org>");
	free(r);
	/* The entry names someone else: no match. */
	CHECK_STR((r = mailmap_resolve_addr(mm, "Other <only@old.org>")), "Other <only@old.org>");
	free(r);
	CHECK_STR((r = mailmap_resolve_addr(NULL, "a@b.org")), "a@b.org");
	free(r);
	git_mailmap_free(mm);
}

/* A .mailmap is a tree's text; what it maps to goes into mail headers. */
TEST(mailmap__ignores_mappings_unfit_for_headers)
{
	git_mailmap *mm = map("Evil, \"x\" <e@ex.org> <a@ex.org>\nNo At <noat> <b@ex.org>\n");
	char *r;

	CHECK_STR((r = mailmap_resolve_addr(mm, "a@ex.org")), "a@ex.org");
	free(r);
	CHECK_STR((r = mailmap_resolve_addr(mm, "b@ex.org")), "b@ex.org");
	free(r);
	git_mailmap_free(mm);
}

TEST(mailmap__rcpts_lose_duplicates)
{
	git_mailmap *mm = map("<new@ex.org> <old@ex.org>\n");
	struct mail_msg m;

	memset(&m, 0, sizeof(m));
	mail_add_rcpt(&m.to, &m.nto, "new@ex.org");
	mail_add_rcpt(&m.cc, &m.ncc, "old@ex.org");
	mail_add_rcpt(&m.cc, &m.ncc, "c@ex.org");
	mailmap_resolve_rcpts(mm, &m);
	CHECK_INT(m.nto, 1);
	REQUIRE(m.ncc == 1);
	CHECK_STR(m.cc[0], "c@ex.org");
	mail_msg_release(&m);
	git_mailmap_free(mm);
}

TESTS(mailmap__resolves_names_and_addresses, mailmap__ignores_mappings_unfit_for_headers,
      mailmap__rcpts_lose_duplicates)
