/*
 * Suite "cpumask_smoke": the CPU masks the kernel exports agree with the
 * CPUs QEMU was given (tide.smp=N on the command line), the scheduler
 * honours affinity to each CPU, and CPU hotplug moves the online mask.
 * test_bitmap reports lib/test_bitmap.c, the kernel's boot-time test of
 * the bitmap and find functions the cpumask helpers are built on: a mask
 * of a few CPUs only ever fills word 0, its cases span many words.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#include "ktest.h"

#define CPU_SYS "/sys/devices/system/cpu"
#define MAXCPU 64

/* Parse a cpulist ("0-3,5") into a bitmask; -1 if malformed. */
static int parse_cpulist(const char *s, unsigned long long *mask)
{
	char *end;

	*mask = 0;
	while (*s) {
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0 || a >= MAXCPU)
			return -1;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b >= MAXCPU)
				return -1;
			s = end;
		}
		for (; a <= b; a++)
			*mask |= 1ULL << a;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}

static int read_mask(const char *name, unsigned long long *mask, char *text,
		     size_t size)
{
	char path[128];

	kt_path(path, sizeof(path), CPU_SYS "/%s", name);
	if (kt_read_file(path, text, size) < 0) {
		kt_diag("read %s: %s", path, strerror(errno));
		return -1;
	}
	if (parse_cpulist(text, mask) < 0) {
		kt_diag("%s: malformed cpulist '%s'", path, text);
		return -1;
	}
	return 0;
}

static int smp_count(void)
{
	char val[16];

	if (kt_cmdline("tide.smp", val, sizeof(val)) < 0)
		return -1;
	return atoi(val);
}

static int test_cpu_masks(void)
{
	static const char *const names[] = { "possible", "present", "online" };
	unsigned long long mask, want;
	char text[128];
	int n = smp_count();
	size_t i;

	if (n < 1) {
		kt_diag("no tide.smp=N on the kernel command line");
		return KT_SKIP;
	}
	KT_EXPECT(n <= MAXCPU, "tide.smp=%d is more than %d", n, MAXCPU);
	want = n == 64 ? ~0ULL : (1ULL << n) - 1;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (read_mask(names[i], &mask, text, sizeof(text)) < 0)
			return KT_FAIL;
		KT_EXPECT(mask == want, "%s is '%s', expected %d CPUs (0-%d)",
			  names[i], text, n, n - 1);
	}
	return KT_PASS;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int test_affinity(void)
{
	unsigned long long online;
	char text[128];
	int cpu;

	if (read_mask("online", &online, text, sizeof(text)) < 0)
		return KT_FAIL;
	for (cpu = 0; cpu < MAXCPU; cpu++) {
		if (!(online & (1ULL << cpu)))
			continue;
		KT_EXPECT(pin_to(cpu) == 0, "sched_setaffinity(cpu %d): %s", cpu,
			  strerror(errno));
		KT_EXPECT(sched_getcpu() == cpu, "pinned to cpu %d, running on %d",
			  cpu, sched_getcpu());
	}
	return KT_PASS;
}

static int set_online(int cpu, int on)
{
	char path[128];

	kt_path(path, sizeof(path), CPU_SYS "/cpu%d/online", cpu);
	if (kt_write_file(path, on ? "1" : "0") < 0) {
		kt_diag("write %d to %s: %s", on, path, strerror(errno));
		return -1;
	}
	return 0;
}

static int test_hotplug(void)
{
	unsigned long long online;
	char text[128];

	if (smp_count() < 2) {
		kt_diag("one CPU: nothing to take offline");
		return KT_SKIP;
	}
	if (set_online(1, 0) < 0)
		return KT_FAIL;
	if (read_mask("online", &online, text, sizeof(text)) < 0)
		return KT_FAIL;
	KT_EXPECT(!(online & 2), "cpu1 offline but online is '%s'", text);
	KT_EXPECT(pin_to(1) < 0 && errno == EINVAL,
		  "pinning to an offline cpu: %s, expected EINVAL", strerror(errno));
	if (set_online(1, 1) < 0)
		return KT_FAIL;
	if (read_mask("online", &online, text, sizeof(text)) < 0)
		return KT_FAIL;
	KT_EXPECT(online & 2, "cpu1 back online but online is '%s'", text);
	KT_EXPECT(pin_to(1) == 0 && sched_getcpu() == 1,
		  "cannot run on cpu1 after it came back");
	return KT_PASS;
}

/* klogctl() actions, as in the kernel's include/linux/syslog.h */
#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_SIZE_BUFFER 10

/*
 * The kernel log as dmesg reads it, NUL-terminated; NULL and errno on
 * error.  Twice the ring's size: each record gains a "<6>[    1.234567] "
 * prefix, and a short buffer would keep only the newest records.
 */
static char *kernel_log(void)
{
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0), n;
	char *log;

	if (size <= 0 || !(log = malloc(2 * (size_t)size + 1)))
		return NULL;
	if ((n = klogctl(SYSLOG_ACTION_READ_ALL, log, 2 * size)) < 0) {
		free(log);
		return NULL;
	}
	log[n] = '\0';
	return log;
}

/*
 * lib/test_bitmap.c's verdict, printed by kstm_report()
 * (tools/testing/selftests/kselftest_module.h) when it runs at boot:
 *   test_bitmap: all N tests passed
 *   test_bitmap: skipped S tests + test_bitmap: remaining N tests passed
 *   test_bitmap: failed F out of N tests
 * Each failed check prints a "test_bitmap: [lib/test_bitmap.c:LINE] ..."
 * line before it; the first few become diagnostics.  %n is set only when
 * the whole pattern matched.
 */
struct bitmap_verdict {
	int found;
	unsigned int total, failed, skipped;
};

static int is_verdict(const char *p, struct bitmap_verdict *v)
{
	int end = 0;

	if (sscanf(p, "test_bitmap: all %u tests passed%n", &v->total,
		   &end) == 1 && end)
		return 1;
	if (sscanf(p, "test_bitmap: remaining %u tests passed%n", &v->total,
		   &end) == 1 && end)
		return 1;
	return sscanf(p, "test_bitmap: failed %u out of %u tests%n", &v->failed,
		      &v->total, &end) == 2 && end;
}

static void scan_bitmap_line(const char *line, struct bitmap_verdict *v,
			     int *shown)
{
	const char *p = strstr(line, "test_bitmap: ");

	if (!p)
		return;
	if (is_verdict(p, v))
		v->found = 1;
	else if (!strncmp(p, "test_bitmap: [", 14) && (*shown)++ < 3)
		kt_diag("%s", p);
	else
		sscanf(p, "test_bitmap: skipped %u tests", &v->skipped);
}

static int read_bitmap_verdict(struct bitmap_verdict *v)
{
	char *log = kernel_log(), *line, *save = NULL;
	int shown = 0;

	if (!log)
		return -1;
	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		scan_bitmap_line(line, v, &shown);
	free(log);
	return 0;
}

static int test_bitmap(void)
{
	struct bitmap_verdict v = { 0 };
	char val[16];

	if (kt_config_value("CONFIG_TEST_BITMAP", val, sizeof(val)) < 0) {
		kt_diag("cannot read /proc/config.gz: %s (CONFIG_IKCONFIG_PROC unset?)",
			strerror(errno));
		return KT_FAIL;
	}
	if (strcmp(val, "y")) {
		kt_diag("CONFIG_TEST_BITMAP %s: lib/test_bitmap.c is not built in",
			val[0] == 'm' ? "=m" : "unset");
		return KT_SKIP;
	}
	KT_EXPECT(read_bitmap_verdict(&v) == 0, "klogctl: %s", strerror(errno));
	KT_EXPECT(v.found,
		  "CONFIG_TEST_BITMAP=y, but the kernel log has no verdict of test_bitmap");
	kt_diag("test_bitmap: %u tests, %u failed, %u skipped", v.total, v.failed,
		v.skipped);
	KT_EXPECT(!v.failed, "lib/test_bitmap.c failed %u of its %u checks", v.failed,
		  v.total);
	return KT_PASS;
}

static const struct ktest cpumask_tests[] = {
	{ "cpu_masks", test_cpu_masks },
	{ "affinity", test_affinity },
	{ "hotplug", test_hotplug },
	{ "test_bitmap", test_bitmap },
};

const struct ksuite cpumask_suite = {
	"cpumask_smoke", NULL, cpumask_tests,
	sizeof(cpumask_tests) / sizeof(cpumask_tests[0]),
};
