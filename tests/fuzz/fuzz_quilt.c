/* A quilt series file (it comes from the network). */
#include "fuzz.h"
#include "quilt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct quilt_series s;
	char *text = fuzz_cstr(data, size);
	size_t i;

	if (quilt_series_parse(&s, text) == 0) {
		for (i = 0; i < s.npatches; i++) {
			const char *name = s.patches[i];

			/* The promise the cache relies on: no name leaves it. */
			if (!name[0] || name[0] == '/' || !strcmp(name, "..") ||
			    !strncmp(name, "../", 3) || strstr(name, "/../") ||
			    str_ends_with(name, "/.."))
				FUZZ_FAIL("a patch name leaves the cache directory");
		}
		quilt_series_release(&s);
	}
	tide_error_clear();
	free(text);
	return 0;
}
