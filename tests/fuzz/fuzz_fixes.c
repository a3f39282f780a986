/*
 * The commit checks' message parsers (src/checks.h): Fixes: tags and
 * Signed-off-by lines of a commit message, any bytes.  The first line
 * of the input is also the "target subject" a tag's subject is matched
 * against, so matching sees the same hostile text.
 */
#include <strings.h>

#include "buf.h"
#include "checks.h"
#include "fuzz.h"
#include "text.h"

static int all_hex(const char *s)
{
	for (; *s; s++)
		if (!strchr("0123456789abcdefABCDEF", *s))
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *msg = fuzz_copy(data, size), *target;
	const char *nl = memchr(msg, '\n', size);
	struct person a = { "A U Thor", "a@ex.org" }, c = { "", "" };
	struct fixes_list l;
	unsigned missing;
	size_t i;

	fixes_parse(&l, msg, size);
	if (l.n > CHECKS_MAX_FIXES || l.n > l.total)
		FUZZ_FAIL("more tags kept than the bound or than counted");
	target = xstrndup(msg, nl ? (size_t)(nl - msg) : size);
	for (i = 0; i < l.n; i++) {
		const struct fixes_tag *t = &l.v[i];

		if (!t->line || strlen(t->line) > CHECKS_MAX_LINE ||
		    !utf8_valid(t->line, strlen(t->line)))
			FUZZ_FAIL("a kept line is missing, too long or not UTF-8");
		if (strncasecmp(t->line, "fixes:", 6))
			FUZZ_FAIL("a kept line does not start with Fixes:");
		if (!t->sha != !!(t->problems & FIXES_NO_SHA))
			FUZZ_FAIL("an id without a problem, or no id and no problem");
		if (t->sha && (strlen(t->sha) < 5 || strlen(t->sha) > 64 || !all_hex(t->sha)))
			FUZZ_FAIL("an id that is not 5 to 64 hex digits");
		if (t->sha && strlen(t->sha) < 12 && !(t->problems & FIXES_SHORT_SHA))
			FUZZ_FAIL("a short id not said to be short");
		if (t->subject && !utf8_valid(t->subject, strlen(t->subject)))
			FUZZ_FAIL("a subject that is not UTF-8");
		if (t->subject)
			(void)fixes_subject_matches(t->subject, target);
	}
	missing = signoff_missing(msg, size, &a, NULL, &c, NULL);
	if (missing & ~(unsigned)(SIGNOFF_AUTHOR | SIGNOFF_COMMITTER))
		FUZZ_FAIL("signoff_missing() said something else");
	if (!(missing & SIGNOFF_COMMITTER))
		FUZZ_FAIL("an empty committer was found signed off");
	fixes_list_release(&l);
	free(target);
	free(msg);
	return 0;
}
