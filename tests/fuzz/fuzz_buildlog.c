/* A kernel build log (compiler output of the merged trees). */
#include "build.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const strip[] = { "/ws/build/src/", "../", NULL };
	char *text = fuzz_copy(data, size), *key;
	struct build_log log = { 0 };	/* the parser appends to it */
	size_t i;

	build_log_parse(&log, text, size, strip);
	if (log.errors.n > BUILD_MAX_ERRORS || log.nerrors_total < log.errors.n)
		FUZZ_FAIL("more errors kept than BUILD_MAX_ERRORS or counted");
	for (i = 0; i < log.warnings.n; i++) {
		key = build_diag_key(&log.warnings.v[i]);
		free(key);
		(void)strlen(build_diag_kind_name(log.warnings.v[i].kind));
	}
	build_log_release(&log);
	free(text);
	return 0;
}
