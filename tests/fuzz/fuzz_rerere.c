/* Conflicted files as rerere normalizes them (the text comes from the trees). */
#include "buf.h"
#include "fuzz.h"
#include "rerere.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_copy(data, size);
	char id[RERERE_ID_LEN + 1];
	struct buf pre = BUF_INIT;
	int hunks, marker, round;

	/* git's 7, then the size of the first hunk's markers, as reports infer it. */
	for (round = 0; round < 2; round++) {
		marker = round ? rerere_marker_size_of(text, size) : 7;
		buf_clear(&pre);
		hunks = rerere_normalize(&pre, id, text, size, marker);
		/* The id names a directory of the store: 40 hex digits, nothing else. */
		if (hunks > 0 && (strlen(id) != RERERE_ID_LEN ||
				  strspn(id, "0123456789abcdef") != RERERE_ID_LEN))
			FUZZ_FAIL("the conflict id is not 40 hex digits");
		(void)rerere_has_markers(text, size, marker);
	}
	buf_release(&pre);
	tide_error_clear();
	free(text);
	return 0;
}
