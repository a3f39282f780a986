#ifndef TIDE_FUZZ_H
#define TIDE_FUZZ_H

/*
 * Helpers shared by the libFuzzer targets (tests/fuzz/fuzz_*.c).  Each
 * target defines LLVMFuzzerTestOneInput(); libFuzzer's leak check is on,
 * so everything a run allocates is freed before it returns.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property the parser promises does not hold: say which, then crash. */
#include <stdio.h>
#define FUZZ_FAIL(what)                                                     \
	do {                                                                \
		fprintf(stderr, "fuzz oracle: %s:%d: %s\n", __FILE__, __LINE__, \
			what);                                              \
		abort();                                                    \
	} while (0)

/* The input as a C string (an embedded NUL ends it early, as for the parser). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);

	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* An exact-size copy, so ASan sees a read one byte past len. */
static inline char *fuzz_copy(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size ? size : 1);

	if (size)
		memcpy(s, data, size);
	return s;
}

#endif
