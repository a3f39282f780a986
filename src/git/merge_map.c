/*
 * The arena and the string map of the merge engine (see merge_int.h).
 */
#include <stdlib.h>
#include <string.h>

#include "merge_int.h"
#include "util.h"

#define POOL_BLOCK (64 * 1024)

struct pool_block {
	struct pool_block *next;
	size_t used, cap;
	/* the payload follows, aligned for any object */
	max_align_t data[];
};

void *pool_alloc(struct pool *p, size_t n)
{
	struct pool_block *b = p->head;
	size_t a = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	void *r;

	if (!b || b->cap - b->used < a) {
		size_t cap = a > POOL_BLOCK / 4 ? a : POOL_BLOCK;

		if (b && a > POOL_BLOCK / 4) {
			/* a big one gets a block of its own behind the current one */
			struct pool_block *big = xmalloc(sizeof(*big) + cap);

			big->used = big->cap = cap;
			big->next = b->next;
			b->next = big;
			memset(big->data, 0, a);
			return big->data;
		}
		b = xmalloc(sizeof(*b) + cap);
		b->used = 0;
		b->cap = cap;
		b->next = p->head;
		p->head = b;
	}
	r = (char *)b->data + b->used;
	b->used += a;
	memset(r, 0, a);
	return r;
}

char *pool_strndup(struct pool *p, const char *s, size_t n)
{
	char *r = pool_alloc(p, n + 1);

	memcpy(r, s, n);
	r[n] = '\0';
	return r;
}

char *pool_strdup(struct pool *p, const char *s)
{
	return pool_strndup(p, s, strlen(s));
}

void pool_release(struct pool *p)
{
	while (p->head) {
		struct pool_block *b = p->head;

		p->head = b->next;
		free(b);
	}
}

/* --- the map: git's hashmap.c sizes and order, FNV-1 string hash --- */

#define GMAP_INITIAL 64
#define GMAP_LOAD 80

static unsigned str_hash(const char *s)
{
	unsigned h = 0x811c9dc5u;

	while (*s)
		h = (h * 0x01000193u) ^ (unsigned char)*s++;
	return h;
}

static void gmap_alloc(struct gmap *m, unsigned size)
{
	m->size = size;
	m->table = xcalloc(size, sizeof(*m->table));
	m->grow_at = (unsigned)((uint64_t)size * GMAP_LOAD / 100);
	m->shrink_at = size <= GMAP_INITIAL ? 0 : m->grow_at / 5;
}

void gmap_init(struct gmap *m, struct pool *pool)
{
	memset(m, 0, sizeof(*m));
	m->pool = pool;
	gmap_alloc(m, GMAP_INITIAL);
}

/* Re-chain every entry into a table of newsize; like git, walking each
 * old chain from its head and pushing onto the new heads. */
static void gmap_rehash(struct gmap *m, unsigned newsize)
{
	struct gmap_ent **old = m->table;
	unsigned oldsize = m->size, i;

	gmap_alloc(m, newsize);
	for (i = 0; i < oldsize; i++) {
		struct gmap_ent *e = old[i];

		while (e) {
			struct gmap_ent *next = e->next;
			unsigned b = e->hash & (m->size - 1);

			e->next = m->table[b];
			m->table[b] = e;
			e = next;
		}
	}
	free(old);
}

struct gmap_ent *gmap_find(const struct gmap *m, const char *key)
{
	unsigned h = str_hash(key);
	struct gmap_ent *e;

	for (e = m->table[h & (m->size - 1)]; e; e = e->next)
		if (e->hash == h && !strcmp(e->key, key))
			return e;
	return NULL;
}

struct gmap_ent *gmap_put(struct gmap *m, const char *key, int *added)
{
	struct gmap_ent *e = gmap_find(m, key);
	unsigned b;

	if (added)
		*added = !e;
	if (e)
		return e;
	if (m->spare) {
		e = m->spare;
		m->spare = e->next;
		memset(e, 0, sizeof(*e));
	} else {
		e = pool_alloc(m->pool, sizeof(*e));
	}
	e->hash = str_hash(key);
	e->key = key;
	b = e->hash & (m->size - 1);
	e->next = m->table[b];
	m->table[b] = e;
	if (++m->count > m->grow_at)
		gmap_rehash(m, m->size << 2);
	return e;
}

void gmap_remove(struct gmap *m, const char *key)
{
	unsigned h = str_hash(key);
	struct gmap_ent **pp = &m->table[h & (m->size - 1)], *e;

	for (; (e = *pp); pp = &e->next) {
		if (e->hash != h || strcmp(e->key, key))
			continue;
		*pp = e->next;
		e->next = m->spare;
		m->spare = e;
		if (--m->count < m->shrink_at)
			gmap_rehash(m, m->size >> 2);
		return;
	}
}

void gmap_release(struct gmap *m)
{
	free(m->table);
	memset(m, 0, sizeof(*m));
}

void gmap_iter_init(struct gmap_iter *it, const struct gmap *m)
{
	it->m = m;
	it->pos = 0;
	it->next = NULL;
}

struct gmap_ent *gmap_iter_next(struct gmap_iter *it)
{
	struct gmap_ent *cur = it->next;

	for (;;) {
		if (cur) {
			it->next = cur->next;
			return cur;
		}
		if (!it->m->table || it->pos >= it->m->size)
			return NULL;
		cur = it->m->table[it->pos++];
	}
}

void rn_queue_push(struct rn_queue *q, struct rn_pair *p)
{
	array_grow(&q->v, &q->alloc, q->n + 1, sizeof(*q->v));
	q->v[q->n++] = p;
}
