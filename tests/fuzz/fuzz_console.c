/* A whole guest console judged by boot_classify() (KTAP, panics, oopses). */
#include "boot.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The first byte picks timed_out, so both verdict paths are reached. */
	int timed_out = size > 0 && (data[0] & 1);
	char *text = fuzz_copy(data, size);
	struct boot_verdict v;
	size_t i;

	boot_classify(&v, text, size, timed_out);
	(void)strlen(boot_status_name(v.status));
	if (v.reason)
		(void)strlen(v.reason);
	for (i = 0; i < v.nwarnings; i++)
		(void)strlen(v.warnings[i]);
	boot_verdict_release(&v);
	free(text);
	return 0;
}
