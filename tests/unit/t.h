#ifndef TIDE_T_H
#define TIDE_T_H

/*
 * A small unit-test harness.  A test file defines tests with TEST(name),
 * lists them in TESTS(...) and gets a main() that runs them, printing
 * "ok"/"not ok" per test and "N passed, N failed" at the end.
 *
 *     TEST(conf__parses_sample) { CHECK(x == 1); CHECK_STR(a, "b"); }
 *     TESTS(conf__parses_sample)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_failed_now;

#define TEST(name) static void name(void)

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n",     \
				__FILE__, __LINE__, #cond);                \
			t_failed_now = 1;                                  \
		}                                                          \
	} while (0)

#define CHECK_INT(a, b)                                                    \
	do {                                                               \
		long long t_a = (long long)(a), t_b = (long long)(b);      \
		if (t_a != t_b) {                                          \
			fprintf(stderr, "  %s:%d: %s == %lld, expected %lld\n", \
				__FILE__, __LINE__, #a, t_a, t_b);         \
			t_failed_now = 1;                                  \
		}                                                          \
	} while (0)

#define CHECK_STR(a, b)                                                    \
	do {                                                               \
		const char *t_a = (a), *t_b = (b);                         \
		if (!t_a || !t_b || strcmp(t_a, t_b)) {                    \
			fprintf(stderr, "  %s:%d: %s == \"%s\", expected \"%s\"\n", \
				__FILE__, __LINE__, #a, t_a ? t_a : "(null)", \
				t_b ? t_b : "(null)");                     \
			t_failed_now = 1;                                  \
		}                                                          \
	} while (0)

/* Stop the current test (after a failed CHECK that later steps rely on). */
#define REQUIRE(cond)                                                      \
	do {                                                               \
		CHECK(cond);                                               \
		if (t_failed_now)                                          \
			return;                                            \
	} while (0)

struct t_case {
	const char *name;
	void (*fn)(void);
};

static int t_run(const struct t_case *cases, size_t n, int argc, char **argv)
{
	int passed = 0, failed = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (argc > 1 && !strstr(cases[i].name, argv[1]))
			continue;
		t_failed_now = 0;
		cases[i].fn();
		printf("%s %s\n", t_failed_now ? "not ok" : "ok", cases[i].name);
		fflush(stdout);
		if (t_failed_now)
			failed++;
		else
			passed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#define T_CASE(fn) { #fn, fn },
#define T_APPLY(m, ...) T_FOREACH(m, __VA_ARGS__)

/* TESTS(a, b, c): up to 64 test names; generates main(). */
#define TESTS(...)                                                         \
	int main(int argc, char **argv)                                    \
	{                                                                  \
		void (*fns[])(void) = { __VA_ARGS__ };                     \
		static const char names[] = #__VA_ARGS__;                  \
		struct t_case cases[sizeof(fns) / sizeof(fns[0])];         \
		char *copy = strdup(names), *tok, *save = NULL;            \
		size_t i = 0;                                              \
		for (tok = strtok_r(copy, ", \n\t", &save); tok && i < sizeof(fns) / sizeof(fns[0]); \
		     tok = strtok_r(NULL, ", \n\t", &save), i++) {         \
			cases[i].name = tok;                               \
			cases[i].fn = fns[i];                              \
		}                                                          \
		int t_rc = t_run(cases, i, argc, argv);                    \
		free(copy);                                                \
		return t_rc;                                               \
	}

#endif
