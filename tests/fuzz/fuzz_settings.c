/* A workspace's DIR/config, read through settings_load() as tide reads it. */
#include "fuzz.h"
#include "fuzz_memfd.h"
#include "settings.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct settings *s = NULL;
	const char *path = fuzz_memfd_put(data, size, 0600);
	const char *key, *value;
	size_t n;

	if (settings_load(&s, path) == 0) {
		if (memchr(data, '\0', size))
			FUZZ_FAIL("a config with a NUL byte was accepted");
		for (n = 0; settings_entry(s, n, &key, &value); n++) {
			char *k = xstrdup(key), *v = xstrdup(value);

			if (!settings_key_valid(key))
				FUZZ_FAIL("a bad key was loaded");
			if (settings_get(s, key) != value)
				FUZZ_FAIL("settings_get() does not find a loaded key");
			/* What the loader took, the setter takes back. */
			if (settings_set(s, k, v) < 0)
				FUZZ_FAIL("settings_set() refuses a loaded value");
			free(k);
			free(v);
		}
		settings_free(s);
	}
	tide_error_clear();
	return 0;
}
