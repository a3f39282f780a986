/* A posted series as an mbox (src/mbox.c): what tide try reads. */
#include "fuzz.h"
#include "patch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_copy(data, size);
	struct patch_series s;
	size_t i;

	if (patch_series_from_mbox(&s, text, size) == 0) {
		for (i = 0; i < s.n; i++)
			if (!s.patches[i].diff || !s.patches[i].message)
				FUZZ_FAIL("a patch of the series has no diff or no message");
		patch_series_release(&s);
	}
	tide_error_clear();
	free(text);
	return 0;
}
