/* The symbols bisect reads from a tree's diff (semantic-conflict naming). */
#include <jansson.h>

#include "bisect.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	json_t *set = json_object(), *v;
	const char *k;

	if (bisect_diff_symbols(set, text) < 0)
		FUZZ_FAIL("bisect_diff_symbols() failed");
	json_object_foreach(set, k, v)
		if (strlen(k) < 4 || strspn(k, "abcdefghijklmnopqrstuvwxyz"
					"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(k))
			FUZZ_FAIL("a symbol that is not a C identifier of 4+ characters");
	json_decref(set);
	free(text);
	return 0;
}
