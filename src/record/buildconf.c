#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildconf.h"
#include "error.h"
#include "text.h"
#include "util.h"

/*
 * x86_64 is the host tide runs on: no cross compiler, and no -M, which
 * is QEMU's "pc", as tide boot runs it today.  QEMU's default CPU for
 * arm64's "virt" is a 32-bit cortex-a15, so arm64 names one; its console
 * is the PL011 UART, and its guest program is kernel-tests' cross-built
 * init.arm64.
 */
static const struct build_arch arches[] = {
	{ "x86_64", "", NULL, "qemu-system-x86_64", "qemu-system-x86", "pc", NULL,
	  "arch/x86/boot/bzImage", "ttyS0", "init" },
	{ "arm64", "aarch64-linux-gnu-", "gcc-aarch64-linux-gnu", "qemu-system-aarch64",
	  "qemu-system-arm", "virt", "cortex-a57", "arch/arm64/boot/Image", "ttyAMA0",
	  "init.arm64" },
};

static const char *const targets[] = { "tinyconfig", "defconfig", "allnoconfig" };

const struct build_arch *build_arch_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(arches); i++)
		if (!strcmp(arches[i].name, name))
			return &arches[i];
	return NULL;
}

/* A value for a message: its bytes shown safely (\\xNN), as conf.c shows names. */
static char *esc(const char *s, size_t len)
{
	struct buf b = BUF_INIT;
	char *copy = xstrndup(s, len), *out;

	text_escape(&b, copy);
	out = xstrdup(buf_cstr(&b));
	buf_release(&b);
	free(copy);
	return out;
}

/* *why = "<before>'value'<after>", the value escaped. */
static int fail_value(char **why, const char *before, const char *v, size_t len,
		      const char *after)
{
	char *e = esc(v, len);

	*why = xasprintf("%s'%s'%s", before, e, after);
	free(e);
	return -1;
}

static void file_set(struct build_config_file *f, const char *dir, const char *written)
{
	char *joined = written[0] == '/' ? xstrdup(written) : path_join(dir, written);

	f->written = xstrdup(written);
	f->path = path_absolute(joined);
	free(joined);
}

static int parse_bool(int *out, const char *v)
{
	if (!strcmp(v, "yes"))
		*out = 1;
	else if (!strcmp(v, "no"))
		*out = 0;
	else
		return -1;
	return 0;
}

static int parse_smp(int *out, const char *v)
{
	char *end;
	unsigned long n;

	if (!isdigit((unsigned char)v[0]))
		return -1;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n < 1 || n > BUILD_CONFIG_MAX_SMP)
		return -1;
	*out = (int)n;
	return 0;
}

static void set_base(struct build_config *c, const char *dir, const char *v)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(targets); i++)
		if (!strcmp(v, targets[i]))
			c->base_target = xstrdup(v);
	if (!c->base_target)
		file_set(&c->base, dir, v);
}

static void add_fragment(struct build_config *c, const char *dir, const char *v)
{
	c->fragments = xrealloc(c->fragments, (c->nfragments + 1) * sizeof(*c->fragments));
	file_set(&c->fragments[c->nfragments++], dir, v);
}

/* The keys that may be given once; fragment= may repeat. */
static const char *const once_keys[] = {
	"arch", "base", "boot", "machine", "cpu", "smp", "w1", "sparse",
};

static int check_once(char *const *fields, size_t i, size_t keylen, char **why)
{
	size_t j, k;

	for (k = 0; k < ARRAY_SIZE(once_keys); k++)
		if (strlen(once_keys[k]) == keylen && !strncmp(fields[i], once_keys[k], keylen))
			break;
	if (k == ARRAY_SIZE(once_keys)) {
		if (keylen == strlen("fragment") && !strncmp(fields[i], "fragment", keylen))
			return 0;
		return fail_value(why, "unknown key ", fields[i], keylen, " (arch, base, fragment, "
				  "boot, machine, cpu, smp, w1 or sparse)");
	}
	for (j = 0; j < i; j++)
		if (!strncmp(fields[j], fields[i], keylen + 1)) {
			*why = xasprintf("%s given twice", once_keys[k]);
			return -1;
		}
	return 0;
}

static int set_key(struct build_config *c, const char *dir, const char *key, const char *v,
		   char **why)
{
	int *flag = !strcmp(key, "boot") ? &c->boot : !strcmp(key, "w1") ? &c->w1 :
		    !strcmp(key, "sparse") ? &c->sparse : NULL;
	char *before;
	const char *after;
	int error;

	if (flag) {
		if (parse_bool(flag, v) == 0)
			return 0;
		before = xasprintf("bad %s ", key);
		after = " (yes or no)";
	} else if (!*v) {
		*why = xasprintf("empty %s", key);
		return -1;
	} else if (!strcmp(key, "arch")) {
		if ((c->arch = build_arch_find(v)))
			return 0;
		before = xstrdup("unknown arch ");
		after = " (x86_64 or arm64)";
	} else if (!strcmp(key, "smp")) {
		if (parse_smp(&c->smp, v) == 0)
			return 0;
		before = xstrdup("bad smp ");
		after = " (a whole number of CPUs, 1 to 512)";
	} else {
		if (!strcmp(key, "base"))
			set_base(c, dir, v);
		else if (!strcmp(key, "fragment"))
			add_fragment(c, dir, v);
		else
			*(!strcmp(key, "machine") ? &c->machine : &c->cpu) = xstrdup(v);
		return 0;
	}
	error = fail_value(why, before, v, strlen(v), after);
	free(before);
	return error;
}

int build_config_parse(struct build_config *c, const char *dir, char *const *fields,
		       size_t nfields, char **why)
{
	size_t i;

	*why = NULL;
	c->arch = &arches[0];
	for (i = 0; i < nfields; i++) {
		const char *eq = strchr(fields[i], '=');
		char *key;
		int error;

		if (!eq || eq == fields[i])
			return fail_value(why, "", fields[i], strlen(fields[i]), " is not KEY=VALUE");
		if (check_once(fields, i, (size_t)(eq - fields[i]), why) < 0)
			return -1;
		key = xstrndup(fields[i], (size_t)(eq - fields[i]));
		error = set_key(c, dir, key, eq + 1, why);
		free(key);
		if (error)
			return -1;
	}
	if (!c->base_target && !c->base.written) {
		*why = xasprintf("no base= (%s, or a file)", BUILD_CONFIG_TARGETS);
		return -1;
	}
	if (!c->machine)
		c->machine = xstrdup(c->arch->machine);
	if (!c->cpu && c->arch->cpu)
		c->cpu = xstrdup(c->arch->cpu);
	return 0;
}

void build_config_default(struct build_config *c)
{
	char *fragment = build_default_fragment();

	memset(c, 0, sizeof(*c));
	c->name = xstrdup(BUILD_CONFIG_DEFAULT);
	c->arch = &arches[0];
	c->base_target = xstrdup("tinyconfig");
	c->fragments = xcalloc(1, sizeof(*c->fragments));
	c->nfragments = 1;
	/* Not found: build_config_check() says so, as tide build would. */
	c->fragments[0].written = xstrdup(fragment ? fragment : "kernel-tests/smoke.config");
	c->fragments[0].path = fragment;
	c->boot = 1;
	c->machine = xstrdup(c->arch->machine);
}

static int check_file(const struct build_config *c, const char *what,
		      const struct build_config_file *f)
{
	if (!f->path)
		return tide_error_set(TIDE_EINVAL, "config '%s': %s '%s' not found "
				      "(set TIDE_KERNEL_TESTS)", c->name, what, f->written);
	if (access(f->path, F_OK) < 0)
		return tide_error_set(TIDE_EINVAL, "config '%s': %s '%s': no such file",
				      c->name, what, f->written);
	if (path_is_dir(f->path))
		return tide_error_set(TIDE_EINVAL, "config '%s': %s '%s' is a directory",
				      c->name, what, f->written);
	if (access(f->path, R_OK) < 0)
		return tide_error_set(TIDE_EINVAL, "config '%s': %s '%s' is not readable",
				      c->name, what, f->written);
	return 0;
}

static int check_tool(const struct build_config *c, const char *name, const char *package)
{
	char *path = build_which(name);

	if (path) {
		free(path);
		return 0;
	}
	return tide_error_set(TIDE_ERROR, "config '%s': '%s' not found in PATH "
			      "(Debian package %s)", c->name, name, package);
}

int build_config_check_files(const struct build_config *c)
{
	size_t i;
	int error;

	if (!c->base_target && (error = check_file(c, "base", &c->base)) < 0)
		return error;
	for (i = 0; i < c->nfragments; i++)
		if ((error = check_file(c, "fragment", &c->fragments[i])) < 0)
			return error;
	return 0;
}

int build_config_check(const struct build_config *c)
{
	int error;

	if ((error = build_config_check_files(c)) < 0)
		return error;
	if (c->arch->cross_compile[0]) {
		char *cc = xasprintf("%sgcc", c->arch->cross_compile);

		error = check_tool(c, cc, c->arch->cc_package);
		free(cc);
		if (error < 0)
			return error;
	}
	if (c->boot)
		return check_tool(c, c->arch->qemu, c->arch->qemu_package);
	return 0;
}

const char *build_config_base(const struct build_config *c)
{
	return c->base_target ? c->base_target : c->base.written;
}

static void file_release(struct build_config_file *f)
{
	free(f->written);
	free(f->path);
}

void build_config_release(struct build_config *c)
{
	size_t i;

	if (!c)
		return;
	free(c->name);
	free(c->base_target);
	file_release(&c->base);
	for (i = 0; i < c->nfragments; i++)
		file_release(&c->fragments[i]);
	free(c->fragments);
	free(c->machine);
	free(c->cpu);
	memset(c, 0, sizeof(*c));
}

char *build_which(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	for (p = path ? path : "/usr/bin:/bin"; ; p = end + 1) {
		end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *cand = xasprintf("%.*s/%s", (int)n, n ? p : ".", name);

		if (access(cand, X_OK) == 0 && !path_is_dir(cand))
			return cand;
		free(cand);
		if (!end)
			return NULL;
	}
}

char *build_default_fragment(void)
{
	const char *env = getenv("TIDE_KERNEL_TESTS");
	char *exe, *dir, *cand, *slash;
	int up;

	if (env && *env)
		return path_join(env, "smoke.config");
	if (!(exe = realpath("/proc/self/exe", NULL)))
		return NULL;
	dir = exe;
	for (up = 0; up < 4 && (slash = strrchr(dir, '/')) && slash != dir; up++) {
		*slash = '\0';
		cand = path_join(dir, "kernel-tests/smoke.config");
		if (path_exists(cand)) {
			free(exe);
			return cand;
		}
		free(cand);
	}
	free(exe);
	return NULL;
}
