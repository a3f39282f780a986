/* trees.conf, read through trees_conf_load() as tide reads it. */
#include <git2.h>

#include "conf.h"
#include "fuzz.h"
#include "fuzz_memfd.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	git_libgit2_init();
	return 0;
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF. */
static int utf8_valid(const unsigned char *s)
{
	while (*s) {
		unsigned c = *s, n, cp, i;

		if (c < 0x80) {
			s++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07;
		else
			return 0;
		for (i = 1; i <= n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		s += n + 1;
	}
	return 1;
}

/* The build configurations: never none, each findable, in range. */
static void use_configs(const struct trees_conf *conf)
{
	size_t i, j;

	if (conf->nconfigs == 0)
		FUZZ_FAIL("a trees.conf was accepted with no build configuration");
	for (i = 0; i < conf->nconfigs; i++) {
		const struct build_config *c = &conf->configs[i];

		if (trees_conf_find_config(conf, c->name) != c)
			FUZZ_FAIL("trees_conf_find_config() does not find a configuration");
		if (!utf8_valid((const unsigned char *)c->name))
			FUZZ_FAIL("a configuration name that is not UTF-8 was accepted");
		if (!c->arch || build_arch_find(c->arch->name) != c->arch)
			FUZZ_FAIL("a configuration without a known arch was accepted");
		if (!*build_config_base(c) || !*c->machine)
			FUZZ_FAIL("a configuration with an empty base or machine was accepted");
		if (c->smp < 0 || c->smp > BUILD_CONFIG_MAX_SMP)
			FUZZ_FAIL("an smp= out of range was accepted");
		if (!c->base_target && c->base.path[0] != '/')
			FUZZ_FAIL("a base file was not made absolute");
		for (j = 0; j < c->nfragments; j++)
			if (c->fragments[j].path && c->fragments[j].path[0] != '/')
				FUZZ_FAIL("a fragment was not made absolute");
		if (c->cpu)
			(void)strlen(c->cpu);
	}
}

/* Use every field the way the commands do, so a bad pointer shows. */
static void use(const struct trees_conf *conf)
{
	size_t i, j;

	for (i = 0; i < conf->ntrees; i++) {
		const struct tree *t = &conf->trees[i];

		if (trees_conf_find(conf, t->name) != t)
			FUZZ_FAIL("trees_conf_find() does not find a tree by its name");
		/* A name becomes a ref, a path and a mail subject: UTF-8 only. */
		if (!utf8_valid((const unsigned char *)t->name))
			FUZZ_FAIL("a tree name that is not UTF-8 was accepted");
		(void)strlen(t->url);
		(void)strlen(t->location);
		(void)strlen(tree_type_name(t->type));
		if (t->branch)
			(void)strlen(t->branch);
		if (t->contact)
			(void)strlen(t->contact);
		for (j = 0; j < t->nopts; j++)
			if (tree_opt(t, t->opts[j].key) == NULL)
				FUZZ_FAIL("tree_opt() does not find an option");
	}
	if (conf->base_url)
		(void)(strlen(conf->base_url) + strlen(conf->base_location) +
		       strlen(conf->base_tag));
	use_configs(conf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trees_conf *conf = NULL;
	const char *path = fuzz_memfd_put(data, size, 0600);

	if (trees_conf_load(&conf, path) == 0) {
		/* What follows a NUL would be invisible to tide but not to other
		 * readers of the file: such a file must be refused. */
		if (memchr(data, '\0', size))
			FUZZ_FAIL("a trees.conf with a NUL byte was accepted");
		use(conf);
		trees_conf_free(conf);
	}
	tide_error_clear();
	return 0;
}
