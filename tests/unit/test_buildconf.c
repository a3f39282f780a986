#include <sys/stat.h>
#include <unistd.h>

#include "t.h"
#include "t_files.h"
#include "buildconf.h"
#include "conf.h"
#include "error.h"
#include "util.h"

#define CONF "/etc/tide/trees.conf"

static int parse(struct trees_conf **out, const char *text)
{
	*out = NULL;
	return trees_conf_parse(out, CONF, text);
}

TEST(buildconf__none_declared_is_todays_smoke)
{
	struct trees_conf *conf = NULL;
	const struct build_config *c;

	setenv("TIDE_KERNEL_TESTS", "/srv/kt", 1);
	REQUIRE(parse(&conf, "a\tgit\tx\n") == 0);
	REQUIRE(conf->nconfigs == 1);
	c = &conf->configs[0];
	CHECK_STR(c->name, "smoke");
	CHECK_STR(c->arch->name, "x86_64");
	CHECK_STR(c->base_target, "tinyconfig");
	CHECK_STR(build_config_base(c), "tinyconfig");
	REQUIRE(c->nfragments == 1);
	/* build_default_fragment(), as tide build finds it today */
	CHECK_STR(c->fragments[0].path, "/srv/kt/smoke.config");
	CHECK_STR(c->fragments[0].written, "/srv/kt/smoke.config");
	CHECK_INT(c->boot, 1);
	CHECK_STR(c->machine, "pc");
	CHECK(c->cpu == NULL);
	CHECK_INT(c->smp, 0);
	CHECK_INT(c->w1, 0);
	CHECK_INT(c->sparse, 0);
	CHECK_INT(c->line, 0);
	CHECK(trees_conf_find_config(conf, "smoke") == c);
	trees_conf_free(conf);
	unsetenv("TIDE_KERNEL_TESTS");
}

TEST(buildconf__every_key)
{
	struct trees_conf *conf = NULL;
	const struct build_config *c;

	REQUIRE(parse(&conf, "a\tgit\tx\n"
			     "#tide\tconfig\tup\tbase=tinyconfig\tfragment=smoke.config\t"
			     "fragment=up.config\tboot=yes\tsmp=1\n"
			     "#tide\tconfig\tarm64\tarch=arm64\tbase=defconfig\tfragment=/abs/a.config\t"
			     "boot=yes\tsmp=512\tw1=yes\tsparse=yes\n"
			     "#tide\tconfig\tmods\tarch=x86_64\tbase=configs/x.config\tboot=no\t"
			     "machine=q35\tcpu=max\tw1=no\tsparse=no\n"
			     "#tide\tconfig\tnone\tbase=allnoconfig\n") == 0);
	REQUIRE(conf->nconfigs == 4);
	CHECK(trees_conf_find_config(conf, "smoke") == NULL);

	c = trees_conf_find_config(conf, "up");
	REQUIRE(c != NULL);
	CHECK_INT(c->line, 2);
	CHECK_STR(c->arch->name, "x86_64");
	CHECK_STR(c->base_target, "tinyconfig");
	REQUIRE(c->nfragments == 2);
	CHECK_STR(c->fragments[0].written, "smoke.config");
	CHECK_STR(c->fragments[0].path, "/etc/tide/smoke.config");
	CHECK_STR(c->fragments[1].path, "/etc/tide/up.config");
	CHECK_INT(c->boot, 1);
	CHECK_INT(c->smp, 1);
	CHECK_STR(c->machine, "pc");
	CHECK(c->cpu == NULL);

	c = &conf->configs[1];
	CHECK_STR(c->name, "arm64");
	CHECK_STR(c->arch->name, "arm64");
	CHECK_STR(c->arch->cross_compile, "aarch64-linux-gnu-");
	CHECK_STR(c->arch->qemu, "qemu-system-aarch64");
	CHECK_STR(c->base_target, "defconfig");
	CHECK_STR(c->fragments[0].path, "/abs/a.config");
	CHECK_STR(c->machine, "virt");
	CHECK_STR(c->cpu, "cortex-a57");
	CHECK_INT(c->smp, 512);
	CHECK_INT(c->w1, 1);
	CHECK_INT(c->sparse, 1);

	c = &conf->configs[2];
	CHECK(c->base_target == NULL);
	CHECK_STR(c->base.written, "configs/x.config");
	CHECK_STR(c->base.path, "/etc/tide/configs/x.config");
	CHECK_STR(build_config_base(c), "configs/x.config");
	CHECK_INT(c->nfragments, 0);
	CHECK_INT(c->boot, 0);
	CHECK_STR(c->machine, "q35");
	CHECK_STR(c->cpu, "max");
	CHECK_INT(c->w1, 0);
	CHECK_INT(c->sparse, 0);

	c = &conf->configs[3];
	CHECK_STR(c->base_target, "allnoconfig");
	CHECK_INT(c->boot, 0);
	CHECK_INT(c->smp, 0);
	trees_conf_free(conf);
}

TEST(buildconf__arches)
{
	const struct build_arch *a = build_arch_find("x86_64");

	REQUIRE(a != NULL);
	CHECK_STR(a->cross_compile, "");
	CHECK_STR(a->qemu, "qemu-system-x86_64");
	REQUIRE((a = build_arch_find("arm64")) != NULL);
	CHECK_STR(a->cross_compile, "aarch64-linux-gnu-");
	CHECK_STR(a->qemu, "qemu-system-aarch64");
	CHECK(build_arch_find("aarch64") == NULL);
	CHECK(build_arch_find("x86") == NULL);
}

struct bad_case {
	const char *text;
	const char *message;	/* the whole error */
};

#define C "#tide\tconfig\t"
static const struct bad_case bad_cases[] = {
	{ C "x\tbase=tinyconfig\tcolour=red\n",
	  CONF ":1: config 'x': unknown key 'colour' (arch, base, fragment, boot, machine, "
	  "cpu, smp, w1 or sparse)" },
	{ C "x\tbase=tinyconfig\tboot\n", CONF ":1: config 'x': 'boot' is not KEY=VALUE" },
	{ C "x\tbase=tinyconfig\t=yes\n", CONF ":1: config 'x': '=yes' is not KEY=VALUE" },
	{ C "a/b\tbase=tinyconfig\n",
	  CONF ":1: 'a/b' is not a valid configuration name (printable ASCII, one git "
	  "reference component)" },
	{ C "a..b\tbase=tinyconfig\n", CONF ":1: 'a..b' is not a valid configuration name "
	  "(printable ASCII, one git reference component)" },
	{ C "caf\xc3\xa9\tbase=tinyconfig\n", CONF ":1: 'caf\\xc3\\xa9' is not a valid "
	  "configuration name (printable ASCII, one git reference component)" },
	{ C "HEAD\tbase=tinyconfig\n", CONF ":1: 'HEAD' is not a valid configuration name "
	  "(printable ASCII, one git reference component)" },
	{ C "x\tbase=tinyconfig\n\n" C "x\tbase=defconfig\n",
	  CONF ":3: duplicate configuration name 'x'" },
	{ "#tide\tconfig\n", CONF ":1: '#tide<TAB>config' line needs a configuration name" },
	{ C "x\tarch=riscv\tbase=tinyconfig\n",
	  CONF ":1: config 'x': unknown arch 'riscv' (x86_64 or arm64)" },
	{ C "x\tarch=\tbase=tinyconfig\n", CONF ":1: config 'x': empty arch" },
	{ C "x\tarch=arm64\tarch=x86_64\tbase=tinyconfig\n",
	  CONF ":1: config 'x': arch given twice" },
	{ C "x\tarch=arm64\n", CONF ":1: config 'x': no base= (tinyconfig, defconfig or "
	  "allnoconfig, or a file)" },
	{ C "x\tbase=\n", CONF ":1: config 'x': empty base" },
	{ C "x\tbase=tinyconfig\tbase=defconfig\n", CONF ":1: config 'x': base given twice" },
	{ C "x\tbase=tinyconfig\tfragment=\n", CONF ":1: config 'x': empty fragment" },
	{ C "x\tbase=tinyconfig\tboot=true\n", CONF ":1: config 'x': bad boot 'true' (yes or no)" },
	{ C "x\tbase=tinyconfig\tboot=\n", CONF ":1: config 'x': bad boot '' (yes or no)" },
	{ C "x\tbase=tinyconfig\tw1=1\n", CONF ":1: config 'x': bad w1 '1' (yes or no)" },
	{ C "x\tbase=tinyconfig\tsparse=Yes\n",
	  CONF ":1: config 'x': bad sparse 'Yes' (yes or no)" },
	{ C "x\tbase=tinyconfig\tboot=no\tboot=yes\n", CONF ":1: config 'x': boot given twice" },
	{ C "x\tbase=tinyconfig\tmachine=\n", CONF ":1: config 'x': empty machine" },
	{ C "x\tbase=tinyconfig\tcpu=a\tcpu=b\n", CONF ":1: config 'x': cpu given twice" },
	{ C "x\tbase=tinyconfig\tsmp=0\n",
	  CONF ":1: config 'x': bad smp '0' (a whole number of CPUs, 1 to 512)" },
	{ C "x\tbase=tinyconfig\tsmp=513\n",
	  CONF ":1: config 'x': bad smp '513' (a whole number of CPUs, 1 to 512)" },
	{ C "x\tbase=tinyconfig\tsmp=-1\n",
	  CONF ":1: config 'x': bad smp '-1' (a whole number of CPUs, 1 to 512)" },
	{ C "x\tbase=tinyconfig\tsmp=2x\n",
	  CONF ":1: config 'x': bad smp '2x' (a whole number of CPUs, 1 to 512)" },
	{ C "x\tbase=tinyconfig\tsmp=99999999999999999999\n",
	  CONF ":1: config 'x': bad smp '99999999999999999999' (a whole number of CPUs, 1 to 512)" },
	{ C "x\tbase=tinyconfig\tsmp=\x01\n",
	  CONF ":1: config 'x': bad smp '\\x01' (a whole number of CPUs, 1 to 512)" },
	{ "a\tgit\tx\nconfig\tgit\ty\n", CONF ":2: 'config' is reserved, not a tree name" },
};
#undef C

TEST(buildconf__bad_lines_name_file_and_line)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		struct trees_conf *conf = NULL;
		int error = parse(&conf, bad_cases[i].text);

		if (error != TIDE_EINVAL)
			fprintf(stderr, "  case %zu parsed\n", i);
		CHECK_INT(error, TIDE_EINVAL);
		CHECK(conf == NULL);
		if (strcmp(tide_error_last(), bad_cases[i].message)) {
			fprintf(stderr, "  case %zu: got '%s'\n  want '%s'\n", i,
				tide_error_last(), bad_cases[i].message);
			CHECK(0);
		}
	}
}

/* A scratch directory with bin/ (the only PATH) and files to name. */
struct machine {
	char *dir, *bin, *old_path;
};

static void machine_init(struct machine *m)
{
	const char *path = getenv("PATH");

	m->dir = t_tmpdir("buildconf");
	m->bin = path_join(m->dir, "bin");
	m->old_path = xstrdup(path ? path : "/usr/bin:/bin");
	if (t_sh_in(m->dir, "mkdir bin sub && echo CONFIG_X=y >frag.config && "
			    "echo CONFIG_Y=y >base.config") != 0)
		abort();
	setenv("PATH", m->bin, 1);
}

static void machine_release(struct machine *m)
{
	setenv("PATH", m->old_path, 1);
	t_sh_in("/", "rm -rf '%s'", m->dir);
	free(m->dir);
	free(m->bin);
	free(m->old_path);
}

/* An executable (or, with mode 0644, not) named name in bin/. */
static void tool(struct machine *m, const char *name, int mode)
{
	if (t_sh_in(m->bin, "PATH='%s' && printf '#!/bin/sh\\n' >%s && chmod %o %s", m->old_path,
		    name, mode, name) != 0)
		abort();
}

/* Parse one configuration line in m->dir/trees.conf and check it. */
static int check_line(struct machine *m, const char *keys)
{
	struct trees_conf *conf = NULL;
	char *path = path_join(m->dir, "trees.conf");
	char *text = xasprintf("#tide\tconfig\tc\t%s\n", keys);
	int error;

	if (trees_conf_parse(&conf, path, text) < 0) {
		fprintf(stderr, "  %s\n", tide_error_last());
		abort();
	}
	error = build_config_check(&conf->configs[0]);
	trees_conf_free(conf);
	free(text);
	free(path);
	return error;
}

TEST(buildconf__check_files)
{
	struct machine m;

	machine_init(&m);
	CHECK_INT(check_line(&m, "base=tinyconfig\tfragment=frag.config"), 0);
	CHECK_INT(check_line(&m, "base=base.config\tfragment=frag.config\tfragment=frag.config"),
		  0);
	CHECK_INT(check_line(&m, "base=tinyconfig\tfragment=frag.config\tfragment=gone.config"),
		  TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "config 'c': fragment 'gone.config': no such file");
	CHECK_INT(check_line(&m, "base=defconfg"), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "config 'c': base 'defconfg': no such file");
	CHECK_INT(check_line(&m, "base=tinyconfig\tfragment=sub"), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "config 'c': fragment 'sub' is a directory");
	if (geteuid() != 0) {
		char *f = path_join(m.dir, "frag.config");

		chmod(f, 0);
		CHECK_INT(check_line(&m, "base=tinyconfig\tfragment=frag.config"), TIDE_EINVAL);
		CHECK_STR(tide_error_last(), "config 'c': fragment 'frag.config' is not readable");
		chmod(f, 0644);
		free(f);
	}
	machine_release(&m);
}

TEST(buildconf__check_tools_in_path)
{
	struct machine m;

	machine_init(&m);
	/* x86_64 needs no cross compiler, and QEMU only to boot */
	CHECK_INT(check_line(&m, "base=tinyconfig"), 0);
	CHECK_INT(check_line(&m, "base=tinyconfig\tboot=yes"), TIDE_ERROR);
	CHECK_STR(tide_error_last(), "config 'c': 'qemu-system-x86_64' not found in PATH "
		  "(Debian package qemu-system-x86)");
	tool(&m, "qemu-system-x86_64", 0755);
	CHECK_INT(check_line(&m, "base=tinyconfig\tboot=yes"), 0);

	CHECK_INT(check_line(&m, "arch=arm64\tbase=defconfig"), TIDE_ERROR);
	CHECK_STR(tide_error_last(), "config 'c': 'aarch64-linux-gnu-gcc' not found in PATH "
		  "(Debian package gcc-aarch64-linux-gnu)");
	tool(&m, "aarch64-linux-gnu-gcc", 0644);
	CHECK_INT(check_line(&m, "arch=arm64\tbase=defconfig"), TIDE_ERROR);
	tool(&m, "aarch64-linux-gnu-gcc", 0755);
	CHECK_INT(check_line(&m, "arch=arm64\tbase=defconfig"), 0);
	CHECK_INT(check_line(&m, "arch=arm64\tbase=defconfig\tboot=yes"), TIDE_ERROR);
	CHECK_STR(tide_error_last(), "config 'c': 'qemu-system-aarch64' not found in PATH "
		  "(Debian package qemu-system-arm)");
	tool(&m, "qemu-system-aarch64", 0755);
	CHECK_INT(check_line(&m, "arch=arm64\tbase=defconfig\tboot=yes"), 0);
	/* files first: the message names what to fix in trees.conf's directory */
	CHECK_INT(check_line(&m, "arch=arm64\tbase=defconfig\tfragment=no.config"), TIDE_EINVAL);
	machine_release(&m);
}

TEST(buildconf__default_without_fragment_is_a_check_failure)
{
	struct trees_conf *conf = NULL;

	/* A directory with no smoke.config: build_default_fragment() still names it. */
	setenv("TIDE_KERNEL_TESTS", "/nonexistent", 1);
	REQUIRE(parse(&conf, "") == 0);
	CHECK_INT(build_config_check(&conf->configs[0]), TIDE_EINVAL);
	CHECK_STR(tide_error_last(),
		  "config 'smoke': fragment '/nonexistent/smoke.config': no such file");
	trees_conf_free(conf);
	unsetenv("TIDE_KERNEL_TESTS");
}

TESTS(buildconf__none_declared_is_todays_smoke, buildconf__every_key, buildconf__arches,
      buildconf__bad_lines_name_file_and_line, buildconf__check_files,
      buildconf__check_tools_in_path, buildconf__default_without_fragment_is_a_check_failure)
