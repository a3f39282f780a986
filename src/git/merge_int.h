#ifndef TIDE_MERGE_INT_H
#define TIDE_MERGE_INT_H

/*
 * Internals shared by the merge engine (merge.c) and its rename detection
 * (merge_rename.c): an arena, a string map that iterates in the order
 * git's hashmap does, and the file pairs rename detection works on.
 */
#include <stddef.h>
#include <stdint.h>
#include <git2.h>

/* --- an arena: everything a merge allocates goes at once --- */

struct pool_block;
struct pool {
	struct pool_block *head;
};

void *pool_alloc(struct pool *p, size_t n);	/* zeroed */
char *pool_strdup(struct pool *p, const char *s);
char *pool_strndup(struct pool *p, const char *s, size_t n);
void pool_release(struct pool *p);

/*
 * --- a string map ---
 *
 * Chained, grown fourfold past 80% load, new entries at the head of their
 * chain, iterated bucket by bucket: git's hashmap with its string hash.
 * Where git breaks ties by the order it meets entries of such a map (the
 * directory a group of files most likely moved to, the order deferred
 * directories are read in), walking this map meets them in the same order.
 * Keys are not copied: they must outlive the map (pool strings).
 */
struct gmap_ent {
	struct gmap_ent *next;
	unsigned hash;
	const char *key;
	union {
		void *p;
		intptr_t i;
	} v;
};

struct gmap {
	struct gmap_ent **table;
	unsigned size, count, grow_at, shrink_at;
	struct pool *pool;		/* entries come from here */
	struct gmap_ent *spare;		/* removed entries, reused */
};

struct gmap_iter {
	const struct gmap *m;
	unsigned pos;
	struct gmap_ent *next;
};

void gmap_init(struct gmap *m, struct pool *pool);
struct gmap_ent *gmap_find(const struct gmap *m, const char *key);
/* The entry for key, added (value zero) when missing; *added says which. */
struct gmap_ent *gmap_put(struct gmap *m, const char *key, int *added);
void gmap_remove(struct gmap *m, const char *key);
void gmap_release(struct gmap *m);
void gmap_iter_init(struct gmap_iter *it, const struct gmap *m);
struct gmap_ent *gmap_iter_next(struct gmap_iter *it);

static inline intptr_t gmap_get_int(const struct gmap *m, const char *key, intptr_t dflt)
{
	struct gmap_ent *e = gmap_find(m, key);

	return e ? e->v.i : dflt;
}

static inline void gmap_set_int(struct gmap *m, const char *key, intptr_t v)
{
	gmap_put(m, key, NULL)->v.i = v;
}

/* --- the file pairs of one side, and rename detection over them --- */

/* One version of a file; mode 0: absent. */
struct rn_file {
	const char *path;
	git_oid oid;
	unsigned mode;
	int rename_used;		/* taken as a rename source */
	int too_big;			/* over RENAME_BLOB_MAX: never read */
	struct rn_counts *counts;	/* chunk counts, once computed */
	int64_t size;			/* -1 until read */
};

/* A path one side added (one absent) or deleted (two absent); after
 * detection a rename: one is the source, two the destination. */
struct rn_pair {
	struct rn_file *one, *two;
	unsigned renamed:1;
	char status;			/* 'A', 'D', 'R' */
	int score;
	int side;			/* set when queued for processing */
};

struct rn_queue {
	struct rn_pair **v;
	size_t n, alloc;
};

void rn_queue_push(struct rn_queue *q, struct rn_pair *p);

/* Why a deleted path is a rename source (merge-ort's names). */
enum {
	RELEVANT_NO_MORE = 0,
	RELEVANT_CONTENT = 1,
	RELEVANT_LOCATION = 2,
};

/* Why a removed directory matters for directory renames. */
enum {
	NOT_RELEVANT = 0,
	RELEVANT_FOR_ANCESTOR = 1,
	RELEVANT_FOR_SELF = 2,
};

struct rename_opts {
	git_repository *repo;
	git_odb *odb;
	struct pool *pool;
	int limit;			/* merge.renameLimit: 7000 by default; < 0 none */
	/* Out: the limit inexact detection would have needed (0: ran). */
	int needed_limit;
	/* Out: files left out of comparisons: over RENAME_BLOB_MAX. */
	size_t big_skipped;
	size_t blobs_hashed;
};

/*
 * diffcore-rename as merge-ort calls it: pair q's deletions with its
 * additions (exact copies, then unique basenames, then by similarity
 * among the sources that matter), and count where each removed directory
 * went.  relevant maps source paths to RELEVANT_*, dirs_removed maps
 * directories to the relevance above (both updated as git does);
 * dir_counts gets old directory -> (gmap: new directory -> count).
 * q is rewritten: renamed destinations carry their source, paired
 * deletions are dropped, statuses set.  Returns 0 or TIDE_E*.
 */
int rename_detect(struct rename_opts *o, struct rn_queue *q, struct gmap *relevant,
		  struct gmap *dirs_removed, struct gmap *dir_counts);

/* The similarity of two blobs as git estimates it (0..60000), for tests. */
int rename_similarity(git_repository *repo, const git_oid *a, const git_oid *b, int *score);

/*
 * A blob above this size is not read to compare it for similarity (it
 * still pairs with an identical copy): reading it would hold it whole in
 * memory.  git compares any size; real source trees have no such
 * rename candidate.
 */
#define RENAME_BLOB_MAX (64u << 20)

#define RENAME_MAX_SCORE 60000
#define RENAME_MIN_SCORE 30000	/* git's default, 50% */

#endif
