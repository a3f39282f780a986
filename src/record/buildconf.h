#ifndef TIDE_BUILDCONF_H
#define TIDE_BUILDCONF_H

#include <stddef.h>

/*
 * Build configurations: "#tide<TAB>config<TAB>NAME<TAB>key=value..." lines
 * of trees.conf (man/trees.conf.5, CONFIGURATIONS).  trees_conf_parse()
 * checks what the text alone can tell; build_config_check() what depends
 * on the machine (files, compilers, QEMU), one configuration at a time so
 * one that cannot run does not stop the others.
 */

/* What an arch= value means to Kbuild and QEMU. */
struct build_arch {
	const char *name;		/* arch= and the kernel's ARCH= */
	const char *cross_compile;	/* CROSS_COMPILE=, "" for the host's compiler */
	const char *cc_package;		/* Debian package of the cross compiler, or NULL */
	const char *qemu;		/* the QEMU system emulator */
	const char *qemu_package;	/* its Debian package */
	const char *machine;		/* default machine= */
	const char *cpu;		/* default cpu=, NULL: QEMU's */
	const char *image;		/* the boot image under O= */
	const char *console;		/* the machine's serial console, for console= */
	const char *init;		/* the guest program's name in kernel-tests/ */
};

/* The arch tide runs on: its guests may use KVM and take TIDE_GUEST_INIT. */
#define BUILD_ARCH_HOST "x86_64"

/* A base config given as a make target rather than a file. */
#define BUILD_CONFIG_TARGETS "tinyconfig, defconfig or allnoconfig"

struct build_config_file {
	char *written;		/* as in trees.conf */
	char *path;		/* resolved against trees.conf's directory; NULL: not found */
};

struct build_config {
	char *name;
	const struct build_arch *arch;
	char *base_target;		/* "tinyconfig", "defconfig", "allnoconfig", or NULL */
	struct build_config_file base;	/* when base_target is NULL */
	struct build_config_file *fragments;	/* merged in order onto the base */
	size_t nfragments;
	int boot;
	char *machine;		/* QEMU -M */
	char *cpu;		/* QEMU -cpu; NULL: QEMU's default (-cpu host under KVM) */
	int smp;		/* 0: tide boot's default */
	int w1;			/* make W=1 */
	int sparse;		/* make C=1 */
	int line;		/* in trees.conf; 0 for the default configuration */
};

#define BUILD_CONFIG_DEFAULT "smoke"
#define BUILD_CONFIG_MAX_SMP 512	/* also in buildconf.c's message */

const struct build_arch *build_arch_find(const char *name);

/*
 * The keys of one configuration line (fields after the name) into c,
 * whose name is already set; paths are resolved against dir.  On bad
 * input returns -1 with what is wrong in why (no FILE:LINE: the caller
 * knows it).
 */
int build_config_parse(struct build_config *c, const char *dir, char *const *fields,
		       size_t nfields, char **why);

/*
 * The configuration tide builds when trees.conf declares none: x86_64
 * tinyconfig plus the smoke fragment build_default_fragment() finds,
 * booted as tide boot does.
 */
void build_config_default(struct build_config *c);

/*
 * What this machine needs for c: its base file and fragments readable,
 * the arch's cross compiler in PATH, and its QEMU when c->boot.  Returns
 * 0, or TIDE_EINVAL (a file) or TIDE_ERROR (a tool) with a message
 * naming the configuration.
 */
int build_config_check(const struct build_config *c);
/* Only the files of build_config_check(): what a build reads. */
int build_config_check_files(const struct build_config *c);

/* "tinyconfig", or the base file as written. */
const char *build_config_base(const struct build_config *c);

void build_config_release(struct build_config *c);

/* Search PATH for an executable; returns its path or NULL (caller frees). */
char *build_which(const char *name);

/*
 * The default config fragment: $TIDE_KERNEL_TESTS/smoke.config, else
 * kernel-tests/smoke.config in the tide source tree the running binary
 * was built in (searched upwards from its directory).  NULL if none.
 */
char *build_default_fragment(void);

#endif
