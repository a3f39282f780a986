#ifndef TIDE_CONF_H
#define TIDE_CONF_H

#include <stddef.h>

#include "buildconf.h"

/*
 * trees.conf: linux-next's Next/Trees format (name, type, URL[#branch],
 * separated by runs of tabs; header lines), plus "#tide" comment lines a
 * plain Next/Trees reader skips.  See man/trees.conf.5.
 */
enum tree_type {
	TREE_GIT,
	TREE_QUILT,
	TREE_MMOTM,
};

struct tree_opt {
	char *key;
	char *value;	/* "" for a bare flag */
};

struct tree {
	char *name;
	enum tree_type type;
	char *url;		/* as written, without "#branch" */
	char *location;		/* url resolved: relative paths against the conf's dir */
	char *branch;		/* git: after '#', default "master"; quilt: NULL */
	char *contact;		/* "#tide NAME contact=..." or NULL */
	struct tree_opt *opts;	/* other key=value extras, in file order */
	size_t nopts;
	int line;		/* line number in trees.conf, for messages */
};

struct trees_conf {
	char *path;		/* the file it was read from */
	char *base_url;		/* mainline repository ("#tide base URL#TAG") */
	char *base_location;	/* base_url resolved like tree.location */
	char *base_tag;
	struct tree *trees;	/* in merge order (file order) */
	size_t ntrees;
	long fetch_deadline;	/* "#tide fetch-deadline=SECONDS"; 0: none */
	char *project;		/* "#tide project=NAME": the name reports use; NULL: default */
	long merge_timeout;	/* "#tide merge-timeout=SECONDS", each tree's; 0: the default */
	int max_tree_depth;	/* "#tide max-tree-depth=N" (fsck.h); 0: the default */
	/* "#tide config NAME ..." lines in file order; none: the default "smoke" */
	struct build_config *configs;
	size_t nconfigs;
	/*
	 * How tide run builds them: "#tide build-order=NAME[,NAME...]" (NULL:
	 * trees.conf's order), "#tide build-parallel=N" configurations at
	 * once (0: one after another), "#tide build-jobs=N" make jobs in all
	 * (0: one per CPU, or the build farm's).
	 */
	char *build_order;
	int build_parallel, build_jobs;
};

/* Parse path.  On bad input returns TIDE_EINVAL with "FILE:LINE: what". */
int trees_conf_load(struct trees_conf **out, const char *path);
/* Parse text as if read from path (for tests and stdin). */
int trees_conf_parse(struct trees_conf **out, const char *path, const char *text);
/* The same for text[0..len); a NUL byte in it is an error ("FILE:LINE: NUL byte"). */
int trees_conf_parse_buf(struct trees_conf **out, const char *path, const char *text,
			 size_t len);
void trees_conf_free(struct trees_conf *conf);

const struct tree *trees_conf_find(const struct trees_conf *conf, const char *name);
/* The value of option key for t, or NULL if not given. */
const char *tree_opt(const struct tree *t, const char *key);
const char *tree_type_name(enum tree_type type);
const struct build_config *trees_conf_find_config(const struct trees_conf *conf,
						  const char *name);
/*
 * Keep only the configurations list names ("NAME[,NAME...]"), in
 * trees.conf's order: `tide run --configs`.  TIDE_EINVAL, conf unchanged,
 * when a name is not declared (the message lists those that are).
 */
int trees_conf_select_configs(struct trees_conf *conf, const char *list);
/*
 * The order tide run builds conf's configurations in, as indexes into
 * conf->configs (n of them; caller frees): those build-order names that
 * are still declared (after trees_conf_select_configs()), then the rest
 * in trees.conf's order.
 */
size_t *trees_conf_build_order(const struct trees_conf *conf);
/* "smoke, arm64, ...": the declared configurations' names, for messages (caller frees). */
char *trees_conf_config_names(const struct trees_conf *conf);

/*
 * The values of the checked options (timeout=, stall=, merge-timeout=, max-size=), or
 * dflt when not given.  trees_conf_parse() has rejected bad values, so
 * these cannot fail on a loaded conf.
 */
long tree_opt_seconds(const struct tree *t, const char *key, long dflt);
long long tree_opt_size(const struct tree *t, const char *key, long long dflt);
long tree_opt_count(const struct tree *t, const char *key, long dflt);

/* "SECONDS" (1 to CONF_MAX_SECONDS) and "BYTES[K|M|G]"; -1 when bad. */
#define CONF_MAX_SECONDS 86400L
#define CONF_MAX_SIZE (64LL << 30)
long conf_parse_seconds(const char *s);
long long conf_parse_size(const char *s);
/* "N" from 1 to CONF_MAX_COUNT (max-patches=); -1 when bad. */
#define CONF_MAX_COUNT 1000000L
long conf_parse_count(const char *s);

#endif
