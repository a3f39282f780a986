/*
 * PID 1 of tide's smoke-test initramfs.  Mounts what the tests need, runs
 * every suite, prints one KTAP version 1 document on the console and powers
 * the machine off (or restarts it, see power_off()) whatever happens.
 *
 * Kernel command line knobs (all optional, dotted so the kernel ignores
 * them and does not pass them to init as arguments):
 *   tide.smp=N            CPUs QEMU was given (cpumask_smoke checks it)
 *   tide.timeout=S        per-test timeout in seconds (default 10)
 *   tide.crash=SUITE.TEST make that test crash (SIGSEGV), to test containment
 *   tide.hang=SUITE.TEST  make that test hang (per-test timeout)
 *   tide.hang=init        never power off (tide's boot timeout must catch it)
 *   tide.boot=N           which boot of the day this is (tide counts its retries)
 *   tide.flaky=SUITE.TEST make that test fail on one boot in three: boots
 *                         1, 4, 7, ... (tide.boot; 1 when absent), to test
 *                         retries and flakiness without a random outcome
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktest.h"

static const struct ksuite *const suites[] = { &gpio_suite, &cpumask_suite };

static const char *diag_indent = "";
static int test_timeout = 10;
static char crash_test[128], hang_test[128], flaky_test[128];
static int boot_number = 1;

/* One write() per line, so lines from children and kernel do not mix. */
static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDOUT_FILENO, line, n) < 0)
		return;
}

void kt_diag(const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	out("%s# %s", diag_indent, msg);
}

static void mount_one(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) < 0 && errno != EBUSY)
		out("# cannot mount %s on %s: %s", type, dir, strerror(errno));
}

static void setup_console(void)
{
	int fd;

	mount_one("devtmpfs", "/dev", "devtmpfs");
	if (fcntl(STDOUT_FILENO, F_GETFD) >= 0)
		return;
	/* No /dev/console in the archive: the kernel gave us no fds. */
	if ((fd = open("/dev/console", O_RDWR | O_NOCTTY)) < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static void setup_mounts(void)
{
	mount_one("proc", "/proc", "proc");
	mount_one("sysfs", "/sys", "sysfs");
	mount_one("configfs", "/sys/kernel/config", "configfs");
	mount_one("debugfs", "/sys/kernel/debug", "debugfs");
}

static void read_knobs(void)
{
	char val[32];

	if (kt_cmdline("tide.timeout", val, sizeof(val)) == 0 && atoi(val) > 0)
		test_timeout = atoi(val);
	kt_cmdline("tide.crash", crash_test, sizeof(crash_test));
	kt_cmdline("tide.hang", hang_test, sizeof(hang_test));
	kt_cmdline("tide.flaky", flaky_test, sizeof(flaky_test));
	if (kt_cmdline("tide.boot", val, sizeof(val)) == 0 && atoi(val) > 0)
		boot_number = atoi(val);
}

static int is_named(const char *want, const struct ksuite *s, const char *test)
{
	char full[160];

	snprintf(full, sizeof(full), "%s.%s", s->name, test);
	return want[0] && !strcmp(want, full);
}

/* The child side of one test: deliberate faults first, then the test. */
static void child_run(const struct ksuite *s, const char *name, int (*fn)(void))
{
	sigset_t set;

	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	if (is_named(crash_test, s, name)) {
		volatile int *volatile null = NULL;

		kt_diag("tide.crash: crashing on purpose");
		*null = 1;
	}
	if (is_named(hang_test, s, name)) {
		kt_diag("tide.hang: hanging on purpose");
		for (;;)
			pause();
	}
	if (is_named(flaky_test, s, name) && boot_number % 3 == 1) {
		kt_diag("tide.flaky: failing on purpose on boot %d (one boot in three)",
			boot_number);
		_exit(KT_FAIL);
	}
	_exit(fn());
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Wait for pid at most timeout seconds (SIGCHLD is blocked, so
 * sigtimedwait() sleeps until some child exits).  Reaps orphans that
 * were re-parented to us on the way.  Returns 1 and *status, or 0 on
 * timeout (the child is killed).
 */
static int wait_child(pid_t pid, int timeout, int *status)
{
	double deadline = now() + timeout;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (;;) {
		double left = deadline - now();
		struct timespec ts;
		pid_t got;

		while ((got = waitpid(-1, status, WNOHANG)) > 0)
			if (got == pid)
				return 1;
		if (left <= 0)
			break;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		sigtimedwait(&set, NULL, &ts);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return 0;
}

/*
 * Run fn in a child.  Returns KT_PASS/KT_FAIL/KT_SKIP; *directive is set
 * to "TIMEOUT" when the test was killed for taking too long.
 */
static int run_isolated(const struct ksuite *s, const char *name,
			int (*fn)(void), const char **directive)
{
	int status = 0;
	pid_t pid;

	*directive = NULL;
	if ((pid = fork()) < 0) {
		kt_diag("%s: fork: %s", name, strerror(errno));
		return KT_FAIL;
	}
	if (pid == 0)
		child_run(s, name, fn);
	if (!wait_child(pid, test_timeout, &status)) {
		kt_diag("%s: no result after %d s, killed", name, test_timeout);
		*directive = "TIMEOUT";
		return KT_FAIL;
	}
	if (WIFSIGNALED(status)) {
		kt_diag("%s: crashed: signal %d (%s)", name, WTERMSIG(status),
			strsignal(WTERMSIG(status)));
		return KT_FAIL;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) > KT_SKIP) {
		kt_diag("%s: exited with status %d", name, WEXITSTATUS(status));
		return KT_FAIL;
	}
	return WEXITSTATUS(status);
}

static int setup_suite(const struct ksuite *s)
{
	const char *directive;
	int rc;

	if (!s->setup)
		return KT_PASS;
	rc = run_isolated(s, "setup", s->setup, &directive);
	if (rc != KT_PASS)
		kt_diag("%s: setup failed", s->name);
	return rc;
}

static void print_result(const char *indent, int rc, int num, const char *name,
			 const char *directive)
{
	if (rc == KT_SKIP)
		out("%s%s %d %s # SKIP", indent, "ok", num, name);
	else if (directive)
		out("%s%s %d %s # %s", indent, rc == KT_PASS ? "ok" : "not ok",
		    num, name, directive);
	else
		out("%s%s %d %s", indent, rc == KT_PASS ? "ok" : "not ok", num,
		    name);
}

/* One suite as an indented subtest document; returns the suite's result. */
static int run_suite(const struct ksuite *s, int num)
{
	int pass = 0, fail = 0, skip = 0, setup_rc, rc;
	const char *directive;
	size_t i;

	diag_indent = "    ";
	out("    KTAP version 1");
	out("    # Subtest: %s", s->name);
	out("    1..%zu", s->ntests);
	setup_rc = setup_suite(s);
	for (i = 0; i < s->ntests; i++) {
		if (setup_rc != KT_PASS) {
			rc = setup_rc;
			directive = NULL;
			if (rc == KT_FAIL)
				kt_diag("%s: not run: setup failed", s->tests[i].name);
		} else {
			rc = run_isolated(s, s->tests[i].name, s->tests[i].fn,
					  &directive);
		}
		print_result("    ", rc, (int)i + 1, s->tests[i].name, directive);
		pass += rc == KT_PASS;
		fail += rc == KT_FAIL;
		skip += rc == KT_SKIP;
	}
	out("    # %s: pass:%d fail:%d skip:%d total:%zu", s->name, pass, fail,
	    skip, s->ntests);
	diag_indent = "";
	rc = fail ? KT_FAIL : (skip == (int)s->ntests ? KT_SKIP : KT_PASS);
	print_result("", rc, num, s->name, NULL);
	return rc;
}

static void power_off(void)
{
	char val[16];

	sync();
	if (kt_cmdline("tide.hang", val, sizeof(val)) == 0 && !strcmp(val, "init"))
		for (;;)
			pause();
	/*
	 * Without ACPI a power-off request only halts the CPUs and QEMU runs
	 * on; a restart ends QEMU just as well under -no-reboot.
	 */
	if (access("/sys/firmware/acpi/tables", F_OK) == 0)
		reboot(RB_POWER_OFF);
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

int main(void)
{
	struct utsname uts;
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	setup_console();
	setup_mounts();
	read_knobs();
	uname(&uts);
	out("KTAP version 1");
	out("# tide smoke tests on %s %s", uts.release, uts.machine);
	out("1..%zu", sizeof(suites) / sizeof(suites[0]));
	for (i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		run_suite(suites[i], (int)i + 1);
	out("# tide: powering off");
	power_off();
	return 0;
}
