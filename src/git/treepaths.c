/*
 * Many paths of one tree in one pass (treepaths.h).
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "treepaths.h"
#include "util.h"

struct tp_path {
	char *path;		/* a copy */
	char *names;		/* a copy with each '/' made a NUL: the components */
	size_t *ends;		/* offset of each '/' in path, then strlen(path) */
	size_t ncomp;
	size_t index;		/* in the caller's order */
};

struct tree_paths {
	struct tp_path *v;	/* sorted by path */
	size_t n, maxdepth;
};

static int tp_cmp(const void *pa, const void *pb)
{
	return strcmp(((const struct tp_path *)pa)->path, ((const struct tp_path *)pb)->path);
}

struct tree_paths *tree_paths_new(const char *const *paths, size_t n)
{
	struct tree_paths *tp = xcalloc(1, sizeof(*tp));
	size_t i, j, len;

	tp->v = xcalloc(n ? n : 1, sizeof(*tp->v));
	tp->n = n;
	for (i = 0; i < n; i++) {
		struct tp_path *p = &tp->v[i];

		p->index = i;
		p->names = xstrdup(paths[i]);
		p->path = xstrdup(paths[i]);
		len = strlen(p->path);
		p->ends = xcalloc(len + 1, sizeof(*p->ends));
		for (j = 0; j < len; j++)
			if (p->path[j] == '/') {
				p->ends[p->ncomp++] = j;
				p->names[j] = '\0';
			}
		p->ends[p->ncomp++] = len;
		if (p->ncomp > tp->maxdepth)
			tp->maxdepth = p->ncomp;
	}
	qsort(tp->v, n, sizeof(*tp->v), tp_cmp);
	return tp;
}

void tree_paths_free(struct tree_paths *tp)
{
	size_t i;

	if (!tp)
		return;
	for (i = 0; i < tp->n; i++) {
		free(tp->v[i].path);
		free(tp->v[i].names);
		free(tp->v[i].ends);
	}
	free(tp->v);
	free(tp);
}

/* The start of component c of p in its names copy. */
static const char *comp_name(const struct tp_path *p, size_t c)
{
	return p->names + (c ? p->ends[c - 1] + 1 : 0);
}

/*
 * How many directories of p the open stack (opened for prev) already
 * holds: those whose whole prefix, '/' included, p shares with prev.
 */
static size_t shared_dirs(const struct tp_path *prev, const struct tp_path *p, size_t depth)
{
	size_t d = 0;

	while (d < depth && d + 1 < p->ncomp && d + 1 < prev->ncomp &&
	       prev->ends[d] == p->ends[d] && !memcmp(prev->names, p->names, p->ends[d]))
		d++;
	return d;
}

int tree_paths_read(struct tree_path_entry *out, const struct tree_paths *tp,
		    git_repository *repo, const git_oid *tree_id)
{
	git_tree **stack = xcalloc(tp->maxdepth + 1, sizeof(*stack));
	const struct tp_path *prev = NULL;
	size_t depth = 0, i;	/* stack[0] the root, stack[d] the d-th directory */
	int error = 0;

	if (git_tree_lookup(&stack[0], repo, tree_id) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read tree %s", git_oid_tostr_s(tree_id));
		goto done;
	}
	for (i = 0; i < tp->n; i++) {
		const struct tp_path *p = &tp->v[i];
		struct tree_path_entry *e = &out[p->index];
		const git_tree_entry *te = NULL;
		size_t keep = prev ? shared_dirs(prev, p, depth) : 0;

		memset(e, 0, sizeof(*e));
		while (depth > keep)
			git_tree_free(stack[depth--]);
		prev = p;
		while (depth + 1 < p->ncomp) {
			te = git_tree_entry_byname(stack[depth], comp_name(p, depth));
			if (!te || git_tree_entry_type(te) != GIT_OBJECT_TREE)
				break;
			if (git_tree_lookup(&stack[depth + 1], repo, git_tree_entry_id(te)) < 0) {
				error = tide_error_git(TIDE_ERROR, "cannot read the tree of '%.*s'",
						       (int)p->ends[depth], p->path);
				goto done;
			}
			depth++;
		}
		if (depth + 1 < p->ncomp)
			continue;	/* a directory on the way is missing */
		if ((te = git_tree_entry_byname(stack[depth], comp_name(p, depth)))) {
			git_oid_cpy(&e->id, git_tree_entry_id(te));
			e->mode = git_tree_entry_filemode(te);
		}
	}
done:
	while (stack && depth > 0)
		git_tree_free(stack[depth--]);
	git_tree_free(stack[0]);
	free(stack);
	return error;
}
