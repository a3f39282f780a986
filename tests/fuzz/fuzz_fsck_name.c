/*
 * Tree-entry names checked by fsck_entry_name() (src/fsck.h): the first
 * 4 bytes are the mode (little-endian), the rest is the name.  Built
 * only when src/fsck.h exists.
 */
#include <strings.h>

#include "fsck.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = NULL;
	unsigned int mode;
	char *name;
	int ret;

	if (size < 4)
		return 0;
	mode = (unsigned)data[0] | (unsigned)data[1] << 8 | (unsigned)data[2] << 16 |
	       (unsigned)data[3] << 24;
	name = fuzz_copy(data + 4, size - 4);
	ret = fsck_entry_name(name, size - 4, mode, &why);
	if (ret > 0)
		FUZZ_FAIL("fsck_entry_name() returned a positive value");
	if (ret < 0 && (!why || !*why))
		FUZZ_FAIL("fsck_entry_name() refused a name without saying why");
	/* Never fine: the names git itself refuses in a tree. */
	if (ret == 0 && (size == 4 || (size == 5 && name[0] == '.') ||
			 (size == 6 && !memcmp(name, "..", 2)) ||
			 (size == 8 && !strncasecmp(name, ".git", 4)) ||
			 memchr(name, '/', size - 4) || memchr(name, '\0', size - 4)))
		FUZZ_FAIL("fsck_entry_name() accepted an empty, '.', '..', '.git', '/' or NUL name");
	free(name);
	return 0;
}
