/* The diff part of a patch, as the applier parses it (src/apply_parse.c). */
#include "fuzz.h"
#include "apply.h"
#include "apply_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_copy(data, size);
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_parsed parsed;
	size_t i;

	/* The first byte picks the options, so -pN and -R are fuzzed too. */
	if (size) {
		o.strip = (data[0] & 3) - 1;
		o.reverse = data[0] >> 7;
	}
	memset(&parsed, 0, sizeof(parsed));
	if (apply_parse(&parsed, text, size, &o) == 0) {
		for (i = 0; i < parsed.nfiles; i++) {
			const struct apply_file *f = &parsed.files[i];

			if (f->new_path && apply_check_path(f->new_path, 1) < 0)
				FUZZ_FAIL("a path the applier refuses was accepted by its parser");
		}
	}
	apply_parsed_release(&parsed);
	tide_error_clear();
	free(text);
	return 0;
}
