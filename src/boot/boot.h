#ifndef TIDE_BOOT_H
#define TIDE_BOOT_H

#include <jansson.h>

#include "buf.h"
#include "ktap.h"

/*
 * Booting a kernel in QEMU with the smoke-test initramfs and judging the
 * console: which outcome, which tests failed and why.
 */

enum boot_status {
	BOOT_PASSED,		/* every test passed, the guest powered off */
	BOOT_TESTS_FAILED,	/* a test failed, or results are missing */
	BOOT_PANIC,		/* "Kernel panic - not syncing" */
	BOOT_OOPS,		/* an oops or BUG, without a panic */
	BOOT_HANG,		/* the wall-clock timeout stopped QEMU */
	BOOT_NO_OUTPUT,		/* the kernel never printed anything */
};

const char *boot_status_name(enum boot_status s);

struct boot_verdict {
	enum boot_status status;
	char *reason;		/* one line saying why, or NULL when passed */
	struct ktap_result ktap;
	int pass, fail, skip;	/* leaf tests */
	char **warnings;	/* "WARNING: CPU: ..." lines (not an outcome) */
	size_t nwarnings, warnings_alloc;
};

/*
 * Judge a console log.  timed_out: QEMU was killed at the timeout.  The
 * verdict is a pure function of its inputs, so recorded logs test it.
 */
void boot_classify(struct boot_verdict *out, const char *console, size_t len,
		   int timed_out);
void boot_verdict_release(struct boot_verdict *v);

struct build_arch;
struct build_config;
struct day_boot;

struct boot_opts {
	const char *kernel;		/* bzImage */
	const char *config;		/* its .config (the guest's /config), or NULL */
	const char *init;		/* the guest program; NULL: boot_find_init() */
	const char *initramfs_dir;	/* image cache (DIR/build/initramfs) */
	const char *console_path;	/* the console log, or NULL */
	const char *kvm_cache;		/* KVM probe verdict file, or NULL */
	const char *qemu;		/* NULL: the arch's QEMU from PATH */
	const struct build_arch *arch;	/* the guest's; NULL: the host's (x86_64) */
	const char *machine;		/* QEMU -M; NULL: QEMU's default */
	const char *cpu;		/* QEMU -cpu under TCG; NULL: QEMU's default */
	const char *accel;		/* "auto" (NULL), "tcg" or "kvm" */
	const char *append;		/* more kernel command line, or NULL */
	int smp;			/* 0: 4 */
	int boot_number;		/* this boot's number among the day's retries (tide.boot=N); 0: 1 */
	int memory_mb;			/* 0: 256 */
	double timeout;			/* seconds; 0: BOOT_DEFAULT_TIMEOUT */
	double kvm_probe_timeout;	/* seconds; 0: BOOT_KVM_PROBE_TIMEOUT */
};

#define BOOT_KVM_PROBE_TIMEOUT 8

#define BOOT_DEFAULT_TIMEOUT 120
#define BOOT_DEFAULT_SMP 4

struct boot_result {
	struct boot_verdict verdict;
	struct buf console;		/* everything the guest printed */
	char *accel;			/* "tcg" or "kvm" */
	char *accel_note;		/* why, when auto chose TCG; or NULL */
	char *smp_note;			/* why fewer CPUs than asked (the config's NR_CPUS); or NULL */
	char *cmdline;			/* the kernel command line */
	char *initramfs;		/* the image booted */
	int initramfs_reused;
	int timed_out;
	int exit_status;		/* QEMU's, -1 when killed */
	int smp;
	double timeout;
	double seconds;			/* QEMU start to exit */
	double initramfs_seconds;
	struct buf qemu_stderr;
	json_t *qemu_command;		/* QEMU's argv as run, or NULL */
	char *qemu_version;		/* first line of `qemu --version`, or NULL */
	char *initramfs_sha256;		/* of the image booted, or NULL */
};

/*
 * Boot and classify.  Returns 0 when the guest ran, whatever it did
 * (res->verdict); a negative TIDE_E* code when tide could not do its part:
 * QEMU or the kernel missing, no guest program, I/O.
 */
int boot_run(struct boot_result *res, const struct boot_opts *opts);
void boot_result_release(struct boot_result *res);

/*
 * The day.json "boot" record of res (console_name: the log's name in the
 * day); the caller frees it.  boot_result_json() is its JSON.
 */
struct day_boot *boot_result_record(const struct boot_result *res, const char *console_name);
json_t *boot_result_json(const struct boot_result *res, const char *console_name);

/*
 * Can QEMU use KVM here?  Boots the kernel with -accel kvm for a few
 * seconds: usable only if the kernel starts printing (QEMU aborting with
 * "failed to set MSR" and hanging at "Booting from ROM" both mean no).
 * The verdict is cached in opts->kvm_cache.  *note says why not.
 */
int boot_kvm_usable(int *usable, char **note, const struct boot_opts *opts);

/*
 * The guest program for arch (NULL: the host's): $TIDE_GUEST_INIT (the
 * host's only), else $TIDE_KERNEL_TESTS/NAME, else kernel-tests/NAME in a
 * directory above the running tide binary (the source tree it was built
 * in), NAME being the arch's (build_arch.init: "init", "init.arm64").
 * NULL if none exists.
 */
char *boot_find_init(const struct build_arch *arch);

/* Where a workspace keeps the day's kernel and the boot caches. */
struct boot_ws_paths {
	char *kernel, *config, *initramfs_dir, *kvm_cache;
};
void boot_ws_paths_init(struct boot_ws_paths *p, const char *wsdir);
/*
 * The same for configuration c (NULL: the host's) built in O= directory
 * outdir: its arch's image and its .config.
 */
void boot_ws_paths_init_out(struct boot_ws_paths *p, const char *wsdir, const char *outdir,
			    const struct build_config *c);
void boot_ws_paths_release(struct boot_ws_paths *p);
/*
 * Boot the workspace's kernel: opts takes p's kernel, config and caches
 * (borrowed) and console_path; what else opts says stays.
 */
void boot_opts_use_paths(struct boot_opts *opts, const struct boot_ws_paths *p,
			 const char *console_path);

struct day;

/*
 * The kernel to boot for day into *out: the image its build record names,
 * checked against the record's kernel_sha256 when it has one; p's (the
 * workspace's) when the record names none (days built before tide
 * recorded the image, or by hand).  TIDE_ENOTFOUND when the day's build
 * made no kernel or the image is gone, TIDE_EINVAL when a later build
 * replaced it; each message starts "no kernel built for DATE".
 */
int boot_day_kernel(const char **out, const struct day *day, const struct boot_ws_paths *p);

/*
 * res into day's "boot" record as day.json keeps it (console named
 * "console.log"), as boot_workspace_config() records each configuration's
 * boot for tide run and tide boot; day_boot_failed() is the record of a
 * boot that could not run.
 */
void boot_record_day(struct day *day, const struct boot_result *res);

struct day_boot;
struct day_build;

/*
 * Which records a boot of configuration c of day goes with, the one rule
 * for tide run and tide boot: the day's own "build" and "boot" (console
 * "console.log") for the configuration the day built first (its build's
 * "config"; a build that names none is trees.conf's first, first), else
 * c's entry under "configs" (created when missing; "console.NAME.log").
 * c NULL is the day's own build as before configurations were declared.
 */
struct boot_day_records {
	int own;			/* the day's own build and boot */
	const struct day_build *build;	/* NULL: nothing built for c */
	struct day_boot **slot;		/* where its boot record goes */
	char *console_name;		/* the console log's name in the day directory */
};

void boot_day_records(struct boot_day_records *out, struct day *day, const struct build_config *c,
		      int first);
void boot_day_records_release(struct boot_day_records *r);

/* A configuration of the day (trees.conf's), for boot_workspace_config(). */
struct boot_config_run {
	const struct build_config *config;	/* its arch, QEMU machine and CPU; NULL: the host's */
	const char *wsdir;
	const char *outdir;		/* its O=: the arch's image and .config */
	const struct day_build *build;	/* its build record: the image and its hash */
	const char *date;		/* for messages */
	int smp;			/* 0: boot_opts' default (opts' smp is not used) */
	const char *console_path;	/* where the console goes */
	const char *console_name;	/* the record's "console": its name in the day */
	/* tide boot's options (accel, timeout, init ...) to start from; NULL: the defaults */
	const struct boot_opts *opts;
	/* Receives the result (zeroed by the caller, which releases it); NULL: dropped. */
	struct boot_result *res;
	/*
	 * Boots of the kernel at most when guest tests fail (the others are
	 * retries); 0: DIR/config's boot-attempts (boot_attempts_load()).
	 */
	int attempts;
};

#define BOOT_DEFAULT_ATTEMPTS 3
#define BOOT_MAX_ATTEMPTS 10

/*
 * DIR/config's boot-attempts (1 to BOOT_MAX_ATTEMPTS; unset:
 * BOOT_DEFAULT_ATTEMPTS) into *out; TIDE_EINVAL naming the file and line
 * for another value.
 */
int boot_attempts_load(int *out, const char *wsdir);

/*
 * The boot stage of `tide run` for configuration c: boot its O='s kernel
 * with its arch's QEMU and guest program, the console to c->console_path,
 * the result into *slot (the day's boot, or its configs[i].boot); *passed
 * whether the outcome is BOOT_PASSED.  A boot whose guest tests fail
 * (BOOT_TESTS_FAILED) is tried again, up to c->attempts boots: the record
 * is the last boot's, with the earlier ones in "attempts" (their consoles
 * kept as CONSOLE.N) and the tests that both failed and passed in "flaky".  Returns like boot_run(), with
 * boot_day_kernel()'s errors (nothing recorded on an error).
 */
int boot_workspace_config(struct day_boot **slot, int *passed, const struct boot_config_run *c);

/*
 * opts boots configuration c's arch with its QEMU machine and CPU.  The
 * host's own machine ("pc") is QEMU's default, so it is left off the
 * command line as it always was.
 */
void boot_opts_use_config(struct boot_opts *opts, const struct build_config *c);

#endif
