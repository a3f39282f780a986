#ifndef KTEST_H
#define KTEST_H

/*
 * The guest side of tide: a PID 1 that runs smoke-test suites and prints
 * one KTAP version 1 document on the console.  Each test runs in a forked
 * child, so a test that crashes or hangs is reported and the rest go on.
 */
#include <stddef.h>

enum { KT_PASS = 0, KT_FAIL = 1, KT_SKIP = 2 };

struct ktest {
	const char *name;
	int (*fn)(void);
};

struct ksuite {
	const char *name;
	int (*setup)(void);	/* run in a child too; may be NULL */
	const struct ktest *tests;
	size_t ntests;
};

extern const struct ksuite gpio_suite;
extern const struct ksuite cpumask_suite;

/* A "# ..." diagnostic line for the running test, at its indentation. */
void kt_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print a diagnostic and return KT_FAIL when cond is false. */
#define KT_EXPECT(cond, ...)                                               \
	do {                                                               \
		if (!(cond)) {                                             \
			kt_diag(__VA_ARGS__);                              \
			return KT_FAIL;                                    \
		}                                                          \
	} while (0)

/* Small file helpers for sysfs/configfs/procfs. */
int kt_write_file(const char *path, const char *text);
/* Read up to size-1 bytes, strip the trailing newline; -1 on error. */
int kt_read_file(const char *path, char *out, size_t size);
/* A kernel command line parameter "key=value" into out; 0 if present. */
int kt_cmdline(const char *key, char *out, size_t size);
/*
 * An option of the running kernel's own configuration, /proc/config.gz
 * (CONFIG_IKCONFIG_PROC, set in kernel-tests/smoke.config): its value
 * ("y", "m", ...), "n" (is not set) or "" (no line: the option does not
 * exist, is hidden and off, or depends on one that is off); -1 if it
 * cannot be read.
 */
int kt_config_value(const char *opt, char *out, size_t size);
/* Join into a fixed buffer; returns out (truncation is a test bug). */
char *kt_path(char *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
