/* A patch in mail form (quilt/mmotm patches, fixups). */
#include "fuzz.h"
#include "patch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_copy(data, size), *subject, *clean;
	struct patch p;

	if (patch_parse(&p, text, size) == 0) {
		/* patch_parse() keeps a decoded copy of the diff, NUL-terminated. */
		if (!p.diff || p.diff[p.diff_len] != '\0' || !p.message)
			FUZZ_FAIL("the diff is not diff_len bytes and a NUL, or no message");
		if (!*p.message || p.message[strlen(p.message) - 1] != '\n')
			FUZZ_FAIL("the commit message does not end with a newline");
		if (p.author_name)
			(void)strlen(p.author_name);
		if (p.author_email)
			(void)strlen(p.author_email);
		patch_release(&p);
	}
	tide_error_clear();
	subject = fuzz_cstr(data, size);
	clean = patch_clean_subject(subject);
	free(clean);
	free(subject);
	free(text);
	return 0;
}
