/*
 * Suite "cpumask_smoke": the CPU masks the kernel exports agree with the
 * CPUs QEMU was given (tide.smp=N on the command line), the scheduler
 * honours affinity to each CPU, and CPU hotplug moves the online mask.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static const struct ktest cpumask_tests[] = {
	{ "cpu_masks", test_cpu_masks },
	{ "affinity", test_affinity },
	{ "hotplug", test_hotplug },
};

const struct ksuite cpumask_suite = {
	"cpumask_smoke", NULL, cpumask_tests,
	sizeof(cpumask_tests) / sizeof(cpumask_tests[0]),
};
