#ifndef TIDE_CHECKS_INT_H
#define TIDE_CHECKS_INT_H

/* What checks.c and checks_dup.c share: the day's commits and who owns them. */

#include <git2.h>

#include "checks.h"
#include "day.h"
#include "graph.h"

/* Commit id -> index, open addressing. */
struct oidmap {
	git_oid *keys;
	size_t *vals;
	unsigned char *used;
	size_t n, size;
};

void oidmap_put(struct oidmap *m, const git_oid *id, size_t val);
/* 1 and *val when id is in the map. */
int oidmap_get(const struct oidmap *m, const git_oid *id, size_t *val);
void oidmap_release(struct oidmap *m);

struct checks_ctx {
	git_repository *repo;
	struct day *d;
	const struct day *prev;
	const struct checks_opts *o;
	git_oid base, day;
	/* the day's commits not in mainline (day ^base), children first */
	struct graph_commits all;
	struct oidmap index;		/* id -> index in all */
	int *owner;			/* per commit: the tree (index in d->trees) whose merge brought it, or -1 */
	unsigned char *is_new;		/* per commit: not in the previous day */
	git_mailmap *mm;		/* the base's .mailmap */
	struct day_checks *out;
};

/*
 * c->all, c->index, c->owner and c->is_new from c->d (its base and
 * commit) and c->prev; then each commit's tree (first in merge order).
 */
int checks_day_commits(struct checks_ctx *c);
void checks_own_commits(struct checks_ctx *c);
void checks_ctx_release(struct checks_ctx *c);

/* The patch-id cache (checks_dup.c), read only by tide stats. */
struct pid_cache;
struct pid_cache *pid_cache_open(const char *path);
/*
 * The patch-id of commit gc (with its parents in parents) against its
 * first parent, from the cache or made; zero when it changes nothing.
 */
int pid_cache_get(struct checks_ctx *c, struct pid_cache *pc, const struct graph_commit *gc,
		  const git_oid *parents, git_oid *pid);
void pid_cache_close(struct pid_cache *pc);

/* A new finding of kind about tree (may be NULL) and commit (may be NULL), added to out. */
struct day_finding *checks_add(struct checks_ctx *c, const char *kind, const char *tree,
			       const git_oid *commit);
/* The commit's subject and author into f. */
void checks_commit_info(struct checks_ctx *c, struct day_finding *f, git_commit *commit);

/* Duplicate patches (checks_dup.c). */
int checks_duplicates(struct checks_ctx *c);

#endif
