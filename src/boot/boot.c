#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "build.h"
#include "buildconf.h"
#include "cpio.h"
#include "day.h"
#include "error.h"
#include "proc.h"
#include "settings.h"
#include "text.h"
#include "safefs.h"
#include "util.h"
#include "workspace.h"

#define CONSOLE_MAX (32u << 20)	/* keep at most this much console in memory */

const char *boot_status_name(enum boot_status s)
{
	static const char *const names[] = {
		"passed", "tests-failed", "panic", "oops", "hang", "no-output",
	};

	return (unsigned)s < ARRAY_SIZE(names) ? names[s] : "unknown";
}

/* ---- classification ---- */

/* The console line holding text[at], without its timestamp, printable. */
static char *line_at(const char *text, size_t len, size_t at)
{
	size_t start = at, end = at, i;
	struct buf b = BUF_INIT;

	while (start > 0 && text[start - 1] != '\n')
		start--;
	while (end < len && text[end] != '\n')
		end++;
	for (i = start; i < end; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c >= 0x20 && c < 0x7f)
			buf_putc(&b, (char)c);
	}
	if (b.ptr && b.ptr[0] == '[' && strchr(b.ptr, ']')) {
		char *rest = strchr(b.ptr, ']') + 1;

		while (*rest == ' ')
			rest++;
		memmove(b.ptr, rest, strlen(rest) + 1);
		b.len = strlen(b.ptr);
	}
	return buf_detach(&b);
}

/* memmem for a marker; returns its offset or -1. */
static long find(const char *text, size_t len, const char *marker)
{
	const char *p = memmem(text, len, marker, strlen(marker));

	return p ? (long)(p - text) : -1;
}

static char *first_marker(const char *text, size_t len,
			  const char *const *markers, size_t n)
{
	long best = -1, at;
	size_t i;

	for (i = 0; i < n; i++)
		if ((at = find(text, len, markers[i])) >= 0 && (best < 0 || at < best))
			best = at;
	return best < 0 ? NULL : line_at(text, len, (size_t)best);
}

static void collect_warnings(struct boot_verdict *v, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end && (p = memmem(p, end - p, "WARNING: CPU:", 13))) {
		array_grow(&v->warnings, &v->warnings_alloc, v->nwarnings + 1,
			   sizeof(*v->warnings));
		v->warnings[v->nwarnings++] = line_at(text, len, p - text);
		p += 13;
	}
}

struct count_ctx {
	struct boot_verdict *v;
	char *first_failed;		/* the first failed test case */
	char *first_failed_suite;	/* a suite failed with no failed case */
};

/* A leaf test into one of the counts: failed, skipped or passed. */
static void tally(const struct ktap_node *n, int *pass, int *fail, int *skip)
{
	if (ktap_node_failed(n))
		(*fail)++;
	else if (n->directive == KTAP_SKIP)
		(*skip)++;
	else
		(*pass)++;
}

static int count_leaf(const struct ktap_node *n, const char *path, int depth,
		      void *data)
{
	struct count_ctx *c = data;
	int failed = ktap_node_failed(n);

	if (n->nchildren) {
		if (failed && !c->first_failed_suite)
			c->first_failed_suite = xstrdup(path);
		return 0;
	}
	if (failed && !c->first_failed)
		c->first_failed = xstrdup(path);
	tally(n, &c->v->pass, &c->v->fail, &c->v->skip);
	return 0;
}

/* The tests' side: any failure, missing result or bad plan. */
static void judge_tests(struct boot_verdict *v)
{
	struct count_ctx c = { v, NULL, NULL };

	ktap_walk(&v->ktap, count_leaf, &c);
	if (c.first_failed || c.first_failed_suite) {
		v->status = BOOT_TESTS_FAILED;
		v->reason = xasprintf("%d failed, first: %s", v->fail,
				      c.first_failed ? c.first_failed : c.first_failed_suite);
	} else if (v->ktap.nproblems) {
		v->status = BOOT_TESTS_FAILED;
		v->reason = xstrdup(v->ktap.problems[0]);
	} else if (!v->ktap.root.nchildren) {
		v->status = BOOT_TESTS_FAILED;
		v->reason = xstrdup("no test results on the console");
	}
	free(c.first_failed);
	free(c.first_failed_suite);
}

void boot_classify(struct boot_verdict *out, const char *console, size_t len,
		   int timed_out)
{
	static const char *const panic[] = { "Kernel panic - not syncing" };
	static const char *const oops[] = {
		"BUG: ", "Oops: ", "kernel BUG at", "general protection fault",
		"Unable to handle kernel",
	};

	memset(out, 0, sizeof(*out));
	ktap_parse(&out->ktap, console, len);
	collect_warnings(out, console, len);
	if (find(console, len, "Linux version") < 0 && !out->ktap.ndocs) {
		out->status = BOOT_NO_OUTPUT;
		out->reason = xstrdup(timed_out ? "the kernel printed nothing before the timeout"
					     : "the kernel printed nothing");
	} else if ((out->reason = first_marker(console, len, panic, ARRAY_SIZE(panic)))) {
		out->status = BOOT_PANIC;
	} else if ((out->reason = first_marker(console, len, oops, ARRAY_SIZE(oops)))) {
		out->status = BOOT_OOPS;
	} else if (timed_out) {
		out->status = BOOT_HANG;
		out->reason = xstrdup("no power-off before the timeout");
	} else {
		out->status = BOOT_PASSED;
		judge_tests(out);
	}
	/* Test counts are useful whatever stopped the guest. */
	if (out->status != BOOT_PASSED && out->status != BOOT_TESTS_FAILED) {
		struct count_ctx c = { out, NULL, NULL };

		ktap_walk(&out->ktap, count_leaf, &c);
		free(c.first_failed);
		free(c.first_failed_suite);
	}
}

void boot_verdict_release(struct boot_verdict *v)
{
	size_t i;

	ktap_result_release(&v->ktap);
	for (i = 0; i < v->nwarnings; i++)
		free(v->warnings[i]);
	free(v->warnings);
	free(v->reason);
	memset(v, 0, sizeof(*v));
}

/* ---- running QEMU ---- */

struct qemu_run {
	struct buf *console, *err;
	int log_fd;			/* console copy as it comes, or -1 */
	double timeout;
	const char *stop_on;		/* kill QEMU once the console shows this */
	int timed_out, stopped, exit_status;
	double seconds;
};

/* from's text appended to into (moved when into is empty: a console can be 32 MB). */
static void buf_take(struct buf *into, struct buf *from)
{
	if (!into->len) {
		buf_release(into);
		*into = *from;
		*from = (struct buf)BUF_INIT;
	} else {
		buf_put(into, from->ptr ? from->ptr : "", from->len);
	}
}

static int qemu_run(struct qemu_run *q, char *const argv[])
{
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res;

	o.argv = argv;
	o.out = o.err = PROC_CAPTURE;
	o.tee_fd = q->log_fd;
	o.capture_max = CONSOLE_MAX;
	o.timeout = q->timeout;
	o.stop_on = q->stop_on;
	/* Its own group, so a timeout kills QEMU and anything it forked; no QEMU outliving a killed tide. */
	o.own_group = 1;
	o.death_signal = SIGKILL;
	if (proc_run(&res, &o) < 0)
		return TIDE_ERROR;
	buf_take(q->console, &res.out);
	buf_take(q->err, &res.err);
	if (res.failed_start)
		buf_printf(q->err, "%s\n", res.failed_start);
	q->timed_out = res.timed_out;
	q->stopped = res.stopped;
	q->exit_status = res.status;
	q->seconds = res.seconds;
	proc_result_release(&res);
	return 0;
}

static void argv_push(char ***argv, size_t *n, size_t *alloc, const char *s)
{
	array_grow(argv, alloc, *n + 2, sizeof(**argv));
	(*argv)[(*n)++] = s ? xstrdup(s) : NULL;
	(*argv)[*n] = NULL;
}

static void argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* The guest's arch: the host's unless opts name another. */
static const struct build_arch *guest_arch(const struct boot_opts *opts)
{
	return opts->arch ? opts->arch : build_arch_find(BUILD_ARCH_HOST);
}

static int foreign_guest(const struct boot_opts *opts)
{
	return strcmp(guest_arch(opts)->name, BUILD_ARCH_HOST) != 0;
}

/*
 * The QEMU command line; initrd may be NULL (the KVM probe).  -M and
 * -cpu only when opts name them (KVM takes the host's CPU).
 */
static char **qemu_argv(const char *qemu, const struct boot_opts *opts, const char *initrd,
			const char *cmdline, int smp, int mem, int kvm)
{
	char **argv = NULL, *num;
	size_t n = 0, alloc = 0;
	const char *cpu = kvm ? "host" : opts->cpu;

	argv_push(&argv, &n, &alloc, qemu);
	argv_push(&argv, &n, &alloc, "-nographic");
	argv_push(&argv, &n, &alloc, "-no-reboot");
	if (opts->machine) {
		argv_push(&argv, &n, &alloc, "-M");
		argv_push(&argv, &n, &alloc, opts->machine);
	}
	argv_push(&argv, &n, &alloc, "-accel");
	argv_push(&argv, &n, &alloc, kvm ? "kvm" : "tcg");
	if (cpu) {
		argv_push(&argv, &n, &alloc, "-cpu");
		argv_push(&argv, &n, &alloc, cpu);
	}
	argv_push(&argv, &n, &alloc, "-m");
	argv_push(&argv, &n, &alloc, (num = xasprintf("%d", mem)));
	free(num);
	argv_push(&argv, &n, &alloc, "-smp");
	argv_push(&argv, &n, &alloc, (num = xasprintf("%d", smp)));
	free(num);
	argv_push(&argv, &n, &alloc, "-kernel");
	argv_push(&argv, &n, &alloc, opts->kernel);
	if (initrd) {
		argv_push(&argv, &n, &alloc, "-initrd");
		argv_push(&argv, &n, &alloc, initrd);
	}
	argv_push(&argv, &n, &alloc, "-append");
	argv_push(&argv, &n, &alloc, cmdline);
	return argv;
}

static char *find_qemu(const struct boot_opts *opts)
{
	const struct build_arch *arch = guest_arch(opts);
	const char *name = opts->qemu ? opts->qemu : arch->qemu;
	char *path = build_which(name);

	/* A missing tool is tide's failure (exit 4), not bad input. */
	if (!path)
		tide_error_set(TIDE_ERROR,
			       "'%s' not found: install the Debian package %s",
			       name, arch->qemu_package);
	return path;
}

/* ---- KVM probe ---- */

static int read_cached_verdict(const char *path, int *usable, char **note)
{
	struct buf b = BUF_INIT;
	int found = 0;

	/* A cache of one line: never a link's target, a FIFO's wait or a device's stream. */
	if (path && safefs_read_file(&b, path, 4096) == 0 && b.len >= 3) {
		found = 1;
		*usable = !strncmp(b.ptr, "yes", 3);
		for (char *c = b.ptr; *c; c++)
			if (*c == '\n' || (unsigned char)*c < 0x20)
				*c = ' ';
		str_rtrim(b.ptr);
		*note = *usable ? NULL : xstrdup(b.len > 3 ? b.ptr + 3 : "cached");
		if (*note)
			memmove(*note, *note + strspn(*note, " "),
				strlen(*note + strspn(*note, " ")) + 1);
	}
	buf_release(&b);
	tide_error_clear();
	return found;
}

/* The probe proper: does the kernel start printing under KVM? */
static int kvm_probe(int *usable, char **note, const struct boot_opts *opts,
		     const char *qemu)
{
	struct buf console = BUF_INIT, err = BUF_INIT;
	double limit = opts->kvm_probe_timeout > 0 ? opts->kvm_probe_timeout
						   : BOOT_KVM_PROBE_TIMEOUT;
	struct qemu_run q = { &console, &err, -1, limit, "Linux version", 0, 0, 0, 0 };
	char **argv = qemu_argv(qemu, opts, NULL,
				"console=ttyS0 panic=-1 init=/tide-kvm-probe", 1, 128, 1);
	int error = qemu_run(&q, argv);

	if (error == 0) {
		*usable = q.stopped;
		if (!*usable && err.len) {
			/* One line, so the cache file and the record stay simple. */
			for (char *c = err.ptr; *c; c++)
				if (*c == '\n' || (unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
					*c = ' ';
			str_rtrim(err.ptr);
			*note = xasprintf("KVM: QEMU failed: %.200s", err.ptr);
		} else if (!*usable) {
			*note = xasprintf("KVM: no kernel output within %g s", limit);
		}
	}
	argv_free(argv);
	buf_release(&console);
	buf_release(&err);
	return error;
}

int boot_kvm_usable(int *usable, char **note, const struct boot_opts *opts)
{
	char *qemu = NULL, *line = NULL;
	int error = 0;

	*usable = 0;
	*note = NULL;
	if (access("/dev/kvm", R_OK | W_OK) < 0) {
		*note = xstrdup("no usable /dev/kvm");
		return 0;
	}
	if (read_cached_verdict(opts->kvm_cache, usable, note))
		return 0;
	if (!(qemu = find_qemu(opts)))
		return TIDE_ERROR;
	if ((error = kvm_probe(usable, note, opts, qemu)) < 0)
		goto done;
	if (opts->kvm_cache) {
		line = xasprintf("%s %s\n", *usable ? "yes" : "no", *note ? *note : "");
		/* A cache that cannot be written only costs a probe next time. */
		if (file_write_atomic(opts->kvm_cache, line, strlen(line)) < 0)
			tide_error_clear();
	}
done:
	free(line);
	free(qemu);
	return error;
}

/* ---- the boot ---- */

static int choose_accel(struct boot_result *res, const struct boot_opts *opts)
{
	const char *accel = opts->accel ? opts->accel : "auto";
	int usable = 0, error;

	if (strcmp(accel, "auto") && strcmp(accel, "tcg") && strcmp(accel, "kvm"))
		return tide_error_set(TIDE_EINVAL, "unknown accelerator '%s' (auto, tcg, kvm)", accel);
	if (foreign_guest(opts)) {
		/* KVM runs guests of the host's own arch only. */
		if (!strcmp(accel, "kvm"))
			return tide_error_set(TIDE_EINVAL, "an %s guest cannot use KVM on this %s host",
					      guest_arch(opts)->name, BUILD_ARCH_HOST);
		res->accel = xstrdup("tcg");
		if (!strcmp(accel, "auto"))
			res->accel_note = xasprintf("an %s guest on an %s host", guest_arch(opts)->name,
						    BUILD_ARCH_HOST);
		return 0;
	}
	if (!strcmp(accel, "tcg") || !strcmp(accel, "kvm")) {
		res->accel = xstrdup(accel);
		return 0;
	}
	if ((error = boot_kvm_usable(&usable, &res->accel_note, opts)) < 0)
		return error;
	res->accel = xstrdup(usable ? "kvm" : "tcg");
	return 0;
}

static int make_initramfs(struct boot_result *res, const struct boot_opts *opts)
{
	char *init = opts->init ? xstrdup(opts->init) : boot_find_init(opts->arch);
	double start = time_now();
	int error;

	if (!init && foreign_guest(opts))
		return tide_error_set(TIDE_ERROR, "no %s guest program (kernel-tests/%s): build "
				      "kernel-tests (make deps, make)", guest_arch(opts)->name,
				      guest_arch(opts)->init);
	if (!init)
		return tide_error_set(TIDE_ERROR,
				      "no guest program: build kernel-tests (make) or set TIDE_GUEST_INIT");
	error = cpio_initramfs(&res->initramfs, &res->initramfs_reused,
			       opts->initramfs_dir, init, opts->config);
	res->initramfs_seconds = time_now() - start;
	free(init);
	return error;
}

static int open_console_log(const char *path, char **tmp)
{
	int fd;

	*tmp = NULL;
	if (!path)
		return -1;
	*tmp = xasprintf("%s.tmp", path);
	if ((fd = open(*tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		tide_error_errno(TIDE_EIO, "cannot write '%s'", *tmp);
	return fd;
}

/* The log goes into place whole, so a killed run leaves the old one. */
static int close_console_log(int fd, const char *tmp, const char *path)
{
	int error = 0;

	if (fd < 0)
		return 0;
	if (fsync(fd) < 0 || close(fd) < 0 || rename(tmp, path) < 0)
		error = tide_error_errno(TIDE_EIO, "cannot write '%s'", path);
	return error;
}

/* QEMU refusing the kernel prints nothing on the console: say why. */
static void add_qemu_error(struct boot_result *res)
{
	struct boot_verdict *v = &res->verdict;
	char *line, *nl, *old = v->reason;

	if (v->status != BOOT_NO_OUTPUT || !res->qemu_stderr.len || !res->exit_status)
		return;
	line = xstrdup(res->qemu_stderr.ptr);
	if ((nl = strchr(line, '\n')))
		*nl = '\0';
	for (nl = line; *nl; nl++)
		if ((unsigned char)*nl < 0x20 || (unsigned char)*nl >= 0x7f)
			*nl = '?';
	v->reason = xasprintf("%s (QEMU exited %d: %s)", old, res->exit_status, line);
	free(old);
	free(line);
}

static int check_inputs(const struct boot_opts *opts)
{
	if (!opts->kernel || !path_exists(opts->kernel))
		return tide_error_set(TIDE_ENOTFOUND, "no kernel image '%s'",
				      opts->kernel ? opts->kernel : "");
	if (opts->config && !path_exists(opts->config))
		return tide_error_set(TIDE_ENOTFOUND, "no kernel config '%s'", opts->config);
	if (!opts->initramfs_dir)
		return tide_error_set(TIDE_EINVAL, "no initramfs directory given");
	return 0;
}

/*
 * The most CPUs the kernel of config can bring up: CONFIG_NR_CPUS, 1 for
 * a uniprocessor kernel, 0 when the config does not say.
 */
static int config_nr_cpus(const char *config)
{
	struct buf text = BUF_INIT;
	const char *line;
	int nr = 0;

	if (!config || file_read(&text, config) < 0) {
		tide_error_clear();
		buf_release(&text);
		return 0;
	}
	for (line = text.ptr; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (str_starts_with(line, "# CONFIG_SMP is not set")) {
			nr = 1;
			break;
		}
		if (str_starts_with(line, "CONFIG_NR_CPUS="))
			nr = atoi(line + strlen("CONFIG_NR_CPUS="));
	}
	buf_release(&text);
	return nr > 0 ? nr : 0;
}

/* More CPUs than the kernel can use would fail the guest's CPU count: cap, say so. */
static void cap_smp(struct boot_result *res, const struct boot_opts *opts)
{
	int nr = config_nr_cpus(opts->config);

	if (nr && res->smp > nr) {
		if (nr == 1)
			res->smp_note = xasprintf("%d CPUs asked, 1 used: the kernel has CONFIG_SMP "
						  "unset", res->smp);
		else
			res->smp_note = xasprintf("%d CPUs asked, %d used: the kernel has "
						  "CONFIG_NR_CPUS=%d", res->smp, nr, nr);
		res->smp = nr;
	}
}

/* What a reproducer needs to run the same guest (the record's qemu_* and initramfs_sha256). */
static void record_qemu(struct boot_result *res, const char *qemu, char **argv)
{
	char *version_argv[] = { (char *)qemu, "--version", NULL };
	char hex[65];
	size_t i;

	res->qemu_command = json_array();
	for (i = 0; argv[i]; i++)
		json_array_append_new(res->qemu_command, json_text(argv[i]));
	res->qemu_version = proc_first_line(version_argv);
	if (res->initramfs && file_sha256_hex(hex, res->initramfs) == 0)
		res->initramfs_sha256 = xstrdup(hex);
	tide_error_clear();
}

int boot_run(struct boot_result *res, const struct boot_opts *opts)
{
	struct qemu_run q = { &res->console, &res->qemu_stderr, -1, 0, NULL, 0, 0, 0, 0 };
	char *qemu = NULL, *tmp_log = NULL, **argv = NULL;
	int error, log_fd = -1;

	memset(res, 0, sizeof(*res));
	res->smp = opts->smp > 0 ? opts->smp : BOOT_DEFAULT_SMP;
	res->timeout = opts->timeout > 0 ? opts->timeout : BOOT_DEFAULT_TIMEOUT;
	if ((error = check_inputs(opts)) < 0)
		goto done;
	cap_smp(res, opts);
	if (!(qemu = find_qemu(opts))) {
		error = TIDE_ERROR;
		goto done;
	}
	if ((error = make_initramfs(res, opts)) < 0 || (error = choose_accel(res, opts)) < 0)
		goto done;
	/* tide.boot=N: which retry this is, so a guest test can be made flaky by design. */
	res->cmdline = xasprintf("console=%s panic=-1 tide.smp=%d tide.boot=%d%s%s",
				 guest_arch(opts)->console, res->smp,
				 opts->boot_number > 0 ? opts->boot_number : 1,
				 opts->append ? " " : "", opts->append ? opts->append : "");
	argv = qemu_argv(qemu, opts, res->initramfs, res->cmdline, res->smp,
			 opts->memory_mb > 0 ? opts->memory_mb : 256,
			 !strcmp(res->accel, "kvm"));
	if (opts->console_path && (log_fd = open_console_log(opts->console_path, &tmp_log)) < 0) {
		error = TIDE_EIO;
		goto done;
	}
	record_qemu(res, qemu, argv);
	q.log_fd = log_fd;
	q.timeout = res->timeout;
	if ((error = qemu_run(&q, argv)) < 0)
		goto done;
	res->timed_out = q.timed_out;
	res->exit_status = q.exit_status;
	res->seconds = q.seconds;
	error = close_console_log(log_fd, tmp_log, opts->console_path);
	log_fd = -1;
	boot_classify(&res->verdict, res->console.ptr ? res->console.ptr : "",
		      res->console.len, res->timed_out);
	add_qemu_error(res);
done:
	if (log_fd >= 0) {
		close(log_fd);
		unlink(tmp_log);
	}
	argv_free(argv);
	free(tmp_log);
	free(qemu);
	return error;
}

void boot_result_release(struct boot_result *res)
{
	boot_verdict_release(&res->verdict);
	buf_release(&res->console);
	buf_release(&res->qemu_stderr);
	free(res->accel);
	free(res->accel_note);
	free(res->smp_note);
	free(res->cmdline);
	free(res->initramfs);
	json_decref(res->qemu_command);
	free(res->qemu_version);
	free(res->initramfs_sha256);
	memset(res, 0, sizeof(*res));
}

/* ---- the record ---- */

static int test_json(const struct ktap_node *n, const char *path, int depth,
		     void *data)
{
	json_t *tests = data, *t, *diags = json_array();
	const char *dir = ktap_directive_name(n->directive);
	size_t i;

	for (i = 0; i < n->ndiag; i++)
		json_array_append_new(diags, json_text(n->diag[i]));
	t = json_pack("{s:o, s:b, s:o, s:o}", "name", json_text(path), "ok", !ktap_node_failed(n),
		      "directive", dir ? json_text(dir) : json_null(),
		      "diagnostics", diags);
	if (n->reason)
		json_object_set_new(t, "reason", json_text(n->reason));
	if (!n->has_result)
		json_object_set_new(t, "missing_result", json_true());
	json_array_append_new(tests, t);
	return 0;
}

static json_t *strings_json(char **v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_text(v[i]));
	return a;
}

/* A subtree's leaves, counted as judge_tests() counts them. */
static void count_tree(const struct ktap_node *n, int *pass, int *fail, int *skip)
{
	size_t i;

	if (!n->nchildren) {
		tally(n, pass, fail, skip);
		return;
	}
	for (i = 0; i < n->nchildren; i++)
		count_tree(&n->children[i], pass, fail, skip);
}

/*
 * The console's KTAP documents, each named: "guest" for the guest
 * program's (its header line starts "tide "), "kernel" for any other
 * (KUnit's at boot), with its header, suites and counts.
 */
static json_t *documents_json(const struct ktap_result *k)
{
	json_t *docs = json_array();
	size_t i, j;

	for (i = 0; i < k->ndocs; i++) {
		const struct ktap_doc *d = &k->docs[i];
		json_t *suites = json_array();
		int pass = 0, fail = 0, skip = 0;
		int guest = d->header && !strncmp(d->header, "tide ", 5);

		for (j = d->first; j < d->first + d->count && j < k->root.nchildren; j++) {
			json_array_append_new(suites, json_text(k->root.children[j].name
								? k->root.children[j].name : "?"));
			count_tree(&k->root.children[j], &pass, &fail, &skip);
		}
		json_array_append_new(docs, json_pack("{s:s, s:o, s:o, s:{s:i, s:i, s:i}}",
						      "name", guest ? "guest" : "kernel",
						      "header", json_text(d->header),
						      "suites", suites, "counts", "pass", pass,
						      "fail", fail, "skip", skip));
	}
	return docs;
}

/*
 * The boot's record, filled from the result: the one place a boot's
 * outcome becomes a day's "boot" (its JSON is day_boot_to_json()'s).
 */
struct day_boot *boot_result_record(const struct boot_result *res, const char *console_name)
{
	const struct boot_verdict *v = &res->verdict;
	struct day_boot *b = day_boot_full();

	b->status = xstrdup(boot_status_name(v->status));
	b->reason = dayrec_text(v->reason);
	b->seconds = res->seconds;
	b->accel = dayrec_text(res->accel ? res->accel : "");
	b->smp = res->smp;
	b->timed_out = res->timed_out;
	b->exit_status = res->exit_status;
	b->timeout = res->timeout;
	b->counts = json_pack("{s:i, s:i, s:i}", "pass", v->pass, "fail", v->fail,
			      "skip", v->skip);
	b->tests = json_array();
	ktap_walk(&v->ktap, test_json, b->tests);
	b->documents = documents_json(&v->ktap);
	b->problems = strings_json(v->ktap.problems, v->ktap.nproblems);
	b->warnings = strings_json(v->warnings, v->nwarnings);
	b->cmdline = dayrec_text(res->cmdline ? res->cmdline : "");
	b->initramfs_seconds = res->initramfs_seconds;
	b->accel_note = dayrec_text(res->accel_note);
	b->smp_note = dayrec_text(res->smp_note);
	b->console = dayrec_text(console_name);
	b->qemu_command = res->qemu_command ? json_deep_copy(res->qemu_command) : NULL;
	b->qemu_version = dayrec_text(res->qemu_version);
	b->initramfs_sha256 = dayrec_text(res->initramfs_sha256);
	return b;
}

json_t *boot_result_json(const struct boot_result *res, const char *console_name)
{
	struct day_boot *b = boot_result_record(res, console_name);
	json_t *j = day_boot_to_json(b);

	day_boot_free(b);
	return j;
}

/* ---- paths ---- */

char *boot_find_init(const struct build_arch *arch)
{
	const char *env = getenv("TIDE_GUEST_INIT");
	const char *name = arch ? arch->init : "init";
	char *exe, *dir, *cand, *slash, *rel;
	int up;

	if (env && *env && (!arch || !strcmp(arch->name, BUILD_ARCH_HOST)))
		return path_exists(env) ? xstrdup(env) : NULL;
	if ((env = getenv("TIDE_KERNEL_TESTS")) && *env) {
		cand = path_join(env, name);
		if (access(cand, X_OK) == 0)
			return cand;
		free(cand);
		return NULL;
	}
	/* The source tree the binary was built in, like the config fragment. */
	if (!(exe = realpath("/proc/self/exe", NULL)))
		return NULL;
	dir = exe;
	rel = path_join("kernel-tests", name);
	for (up = 0; up < 4 && (slash = strrchr(dir, '/')) && slash != dir; up++) {
		*slash = '\0';
		cand = path_join(dir, rel);
		if (access(cand, X_OK) == 0) {
			free(rel);
			free(exe);
			return cand;
		}
		free(cand);
	}
	free(rel);
	free(exe);
	return NULL;
}

/* The workspace's caches, and the kernel (arch's image) and .config of the O= directory out. */
static void paths_init(struct boot_ws_paths *p, const char *wsdir, const char *out,
		       const struct build_arch *arch)
{
	/* Kbuild's names inside the O= directory. */
	p->kernel = path_join(out, arch ? arch->image : "arch/x86/boot/bzImage");
	p->config = path_join(out, ".config");
	p->initramfs_dir = workspace_build_initramfs(wsdir);
	p->kvm_cache = workspace_build_kvm_probe(wsdir);
}

void boot_ws_paths_init(struct boot_ws_paths *p, const char *wsdir)
{
	char *out = workspace_build_out(wsdir);

	paths_init(p, wsdir, out, NULL);
	free(out);
}

void boot_ws_paths_init_out(struct boot_ws_paths *p, const char *wsdir, const char *outdir,
			    const struct build_config *c)
{
	paths_init(p, wsdir, outdir, c ? c->arch : NULL);
}

void boot_ws_paths_release(struct boot_ws_paths *p)
{
	free(p->kernel);
	free(p->config);
	free(p->initramfs_dir);
	free(p->kvm_cache);
	memset(p, 0, sizeof(*p));
}

void boot_opts_use_paths(struct boot_opts *opts, const struct boot_ws_paths *p,
			 const char *console_path)
{
	opts->kernel = p->kernel;
	opts->config = p->config;
	opts->initramfs_dir = p->initramfs_dir;
	opts->kvm_cache = p->kvm_cache;
	opts->console_path = console_path;
}

/* The image a build record b names, checked; p's when b names none. */
static int record_kernel(const char **out, const struct day_build *b, const char *date,
			 const struct boot_ws_paths *p)
{
	char hex[65];

	*out = NULL;
	if (!b || !day_build_has(b, "kernel")) {
		if (!path_exists(p->kernel))
			return tide_error_set(TIDE_ENOTFOUND, "no kernel built for %s", date);
		*out = p->kernel;
		return 0;
	}
	if (!b->kernel)
		return tide_error_set(TIDE_ENOTFOUND, "no kernel built for %s: its build %s", date,
				      b->status ? b->status : "failed");
	if (!path_exists(b->kernel))
		return tide_error_set(TIDE_ENOTFOUND, "no kernel built for %s: %s is gone", date,
				      b->kernel);
	if (b->kernel_sha256 &&
	    (file_sha256_hex(hex, b->kernel) < 0 || strcmp(hex, b->kernel_sha256)))
		return tide_error_set(TIDE_EINVAL, "no kernel built for %s: %s is another build's now",
				      date, b->kernel);
	*out = b->kernel;
	return 0;
}

int boot_day_kernel(const char **out, const struct day *day, const struct boot_ws_paths *p)
{
	return record_kernel(out, day->build, day->date ? day->date : "the day", p);
}

static void record_boot(struct day_boot **slot, const struct boot_result *res,
			const char *console_name)
{
	day_boot_free(*slot);
	*slot = boot_result_record(res, console_name);
}

void boot_record_day(struct day *day, const struct boot_result *res)
{
	record_boot(&day->boot, res, "console.log");
}

void boot_opts_use_config(struct boot_opts *opts, const struct build_config *c)
{
	int host = !strcmp(c->arch->name, BUILD_ARCH_HOST);

	opts->arch = c->arch;
	opts->machine = host && !strcmp(c->machine, c->arch->machine) ? NULL : c->machine;
	opts->cpu = c->cpu;
}

int boot_attempts_load(int *out, const char *wsdir)
{
	char *path = workspace_config(wsdir), *end;
	struct settings *s = NULL;
	const char *v;
	long n;
	int error;

	*out = BOOT_DEFAULT_ATTEMPTS;
	if ((error = settings_load(&s, path)) == 0 && (v = settings_get(s, "boot-attempts"))) {
		n = strtol(v, &end, 10);
		if (*v < '0' || *v > '9' || *end || n < 1 || n > BOOT_MAX_ATTEMPTS)
			error = tide_error_set(TIDE_EINVAL, "%s:%zu: boot-attempts '%s': a number "
					       "of boots from 1 to %d", path,
					       settings_line_of(s, "boot-attempts"), v,
					       BOOT_MAX_ATTEMPTS);
		else
			*out = (int)n;
	}
	settings_free(s);
	free(path);
	return error;
}

/*
 * The leaf tests of a record's "tests" (suites have cases below them: a
 * name N is a suite when another is "N.something"), failed or passed,
 * into set as name -> true.
 */
static void leaf_tests(json_t *set, const json_t *tests, int failed)
{
	json_t *suites = json_object();
	const json_t *t;
	size_t i;

	json_array_foreach(tests, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		char *copy, *dot;

		if (!name)
			continue;
		copy = xstrdup(name);
		while ((dot = strrchr(copy, '.'))) {
			*dot = '\0';
			json_object_set_new(suites, copy, json_true());
		}
		free(copy);
	}
	json_array_foreach(tests, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		const char *dir = json_string_value(json_object_get(t, "directive"));

		if (!name || json_object_get(suites, name) || (dir && !strncasecmp(dir, "SKIP", 4)))
			continue;
		if (json_is_false(json_object_get(t, "ok")) == !!failed)
			json_object_set_new(set, name, json_true());
	}
	json_decref(suites);
}

/* The retries of one configuration's boot: what each boot before the last said. */
struct boot_tries {
	json_t *attempts;	/* the records' "attempts" */
	json_t *failed, *passed;	/* leaf test -> true, over every boot */
};

/*
 * A boot whose tests failed, kept before the next: its console moved to
 * CONSOLE.N, one line of it in the attempts.
 */
static void tries_keep(struct boot_tries *t, const struct boot_result *res,
		       const struct boot_config_run *c, int n)
{
	char *name = xasprintf("%s.%d", c->console_name, n);
	struct day_boot *rec = boot_result_record(res, name);
	json_t *failed = json_object(), *list = json_array(), *one;
	const char *k;
	json_t *v;

	leaf_tests(failed, rec->tests, 1);
	leaf_tests(t->passed, rec->tests, 0);
	json_object_foreach(failed, k, v) {
		json_array_append_new(list, json_text(k));
		json_object_set_new(t->failed, k, json_true());
	}
	one = json_pack("{s:s, s:o, s:f, s:o, s:o}", "status", rec->status,
			"reason", json_text(rec->reason),
			"seconds", rec->seconds, "failed", list, "console", json_text(name));
	json_array_append_new(t->attempts, one ? one : json_object());
	if (c->console_path) {
		char *kept = xasprintf("%s.%d", c->console_path, n);

		if (rename(c->console_path, kept) < 0)	/* the record names it: say it is gone */
			json_object_set_new(json_array_get(t->attempts, json_array_size(t->attempts) - 1),
					    "console", json_null());
		free(kept);
	}
	json_decref(failed);
	day_boot_free(rec);
	free(name);
}

/* The last boot's record with the earlier boots and the tests that flaked. */
static void tries_record(struct boot_tries *t, struct day_boot *rec)
{
	json_t *flaky = json_array(), *v;
	const char *k;

	if (!json_array_size(t->attempts)) {
		json_decref(flaky);
		return;
	}
	leaf_tests(t->failed, rec->tests, 1);
	leaf_tests(t->passed, rec->tests, 0);
	json_object_foreach(t->failed, k, v)
		if (json_object_get(t->passed, k))
			json_array_append_new(flaky, json_text(k));
	rec->attempts = json_incref(t->attempts);
	rec->flaky = flaky;
}

/*
 * Boot until the guest's tests pass or attempts boots were made; res
 * holds the last boot.  A boot that ends otherwise (a panic, a hang)
 * is not tried again: the kernel, not a test, is broken.
 */
static int boot_tries_run(struct boot_result *res, struct boot_tries *t,
			  const struct boot_opts *opts, const struct boot_config_run *c)
{
	struct boot_opts one = *opts;
	int attempts = c->attempts, n, error = 0;

	if (!attempts && (error = boot_attempts_load(&attempts, c->wsdir)) < 0)
		return error;
	for (n = 1;; n++) {
		one.boot_number = n;
		if ((error = boot_run(res, &one)) < 0 || n >= attempts ||
		    res->verdict.status != BOOT_TESTS_FAILED)
			return error;
		tries_keep(t, res, c, n);
		boot_result_release(res);
	}
}

int boot_workspace_config(struct day_boot **slot, int *passed, const struct boot_config_run *c)
{
	struct boot_opts opts = { 0 };
	struct boot_result local, *res = c->res ? c->res : &local;
	struct boot_tries tries = { json_array(), json_object(), json_object() };
	struct boot_ws_paths paths;
	int error;

	*passed = 0;
	if (c->opts)
		opts = *c->opts;
	/* The configuration's own O=: its kernel and the .config the guest tests read. */
	paths_init(&paths, c->wsdir, c->outdir, c->config ? c->config->arch : NULL);
	boot_opts_use_paths(&opts, &paths, c->console_path);
	opts.smp = c->smp;
	if (c->config)
		boot_opts_use_config(&opts, c->config);
	if ((error = record_kernel(&opts.kernel, c->build, c->date ? c->date : "the day",
				   &paths)) == 0) {
		memset(res, 0, sizeof(*res));
		if ((error = boot_tries_run(res, &tries, &opts, c)) == 0) {
			record_boot(slot, res, c->console_name);
			tries_record(&tries, *slot);
			*passed = res->verdict.status == BOOT_PASSED;
		}
		if (res == &local)
			boot_result_release(res);
	}
	json_decref(tries.attempts);
	json_decref(tries.failed);
	json_decref(tries.passed);
	boot_ws_paths_release(&paths);
	return error;
}

void boot_day_records(struct boot_day_records *out, struct day *day, const struct build_config *c,
		      int first)
{
	struct day_config *dc;

	memset(out, 0, sizeof(*out));
	out->own = !c || (day->build && day->build->config ? !strcmp(day->build->config, c->name)
							   : first);
	if (out->own) {
		out->build = day->build;
		out->slot = &day->boot;
		out->console_name = xstrdup("console.log");
		return;
	}
	dc = day_config_get(day, c->name);
	out->build = dc->build;
	out->slot = &dc->boot;
	out->console_name = xasprintf("console.%s.log", c->name);
}

void boot_day_records_release(struct boot_day_records *r)
{
	free(r->console_name);
	memset(r, 0, sizeof(*r));
}
