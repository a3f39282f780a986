/*
 * The applier: each file patch of a diff is applied to a blob of the tree
 * (in an in-memory index), hunk by hunk, as patch(1) places hunks: at the
 * line the header says, else the nearest line where the context matches
 * (an offset), else - only when asked - ignoring outer context (fuzz).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "apply.h"
#include "apply_int.h"
#include "error.h"
#include "gitbin.h"
#include "util.h"

void apply_result_release(struct apply_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nnotes; i++) {
		free(r->notes[i].path);
		free(r->notes[i].note);
	}
	free(r->notes);
	memset(r, 0, sizeof(*r));
}

static void add_note(struct apply_result *res, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_note(struct apply_result *res, const char *path, const char *fmt, ...)
{
	size_t alloc = res->nnotes;
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	array_grow(&res->notes, &alloc, res->nnotes + 1, sizeof(*res->notes));
	res->notes[res->nnotes].path = xstrdup(path);
	res->notes[res->nnotes].note = buf_detach(&b);
	res->nnotes++;
}

/* A file's lines, each with its '\n' (the last may lack it) and a hash. */
struct fline {
	const char *p;
	size_t len;
	unsigned long h;
};

struct image {
	struct fline *l;
	size_t n;
};

static unsigned long hash_line(const char *p, size_t len)
{
	unsigned long h = 2166136261UL;

	while (len--)
		h = (h ^ (unsigned char)*p++) * 16777619UL;
	return h;
}

static void image_split(struct image *im, const char *s, size_t len)
{
	const char *end = s + len, *nl;
	size_t alloc = 0;

	im->l = NULL, im->n = 0;
	for (; s < end; s = nl) {
		nl = memchr(s, '\n', (size_t)(end - s));
		nl = nl ? nl + 1 : end;
		array_grow(&im->l, &alloc, im->n + 1, sizeof(*im->l));
		im->l[im->n].p = s;
		im->l[im->n].len = (size_t)(nl - s);
		im->l[im->n].h = hash_line(s, (size_t)(nl - s));
		im->n++;
	}
}

/* The lines a hunk expects (context and '-'), hashed once. */
struct pre {
	const struct apply_line **l;
	unsigned long *h;
	size_t n, prefix, suffix;	/* leading and trailing context lines */
	/*
	 * Line comparisons left: a huge hunk over a file of equal lines would
	 * otherwise cost lines * hunk size.  Far above any real patch's need.
	 */
	size_t budget;
};

#define SEARCH_BUDGET ((size_t)1 << 26)

static void pre_build(struct pre *pr, const struct apply_file *f, const struct apply_hunk *h)
{
	const struct apply_line *l = f->lines + h->first;
	size_t i;

	pr->l = xcalloc(h->n + 1, sizeof(*pr->l));
	pr->h = xcalloc(h->n + 1, sizeof(*pr->h));
	pr->n = pr->prefix = pr->suffix = 0;
	pr->budget = SEARCH_BUDGET;
	for (i = 0; i < h->n; i++) {
		if (l[i].op == '+')
			continue;
		pr->l[pr->n] = &l[i];
		pr->h[pr->n++] = hash_line(l[i].text, l[i].len);
	}
	while (pr->prefix < h->n && l[pr->prefix].op == ' ')
		pr->prefix++;
	while (pr->suffix < h->n - pr->prefix && l[h->n - 1 - pr->suffix].op == ' ')
		pr->suffix++;
}

static void pre_release(struct pre *pr)
{
	free(pr->l);
	free(pr->h);
}

static int line_same(const struct fline *a, const struct apply_line *b, unsigned long bh)
{
	return a->h == bh && a->len == b->len && !memcmp(a->p, b->text, b->len);
}

/* Do lines [pf, n-sf) of the hunk match the file at pos? */
static int match_at(const struct image *im, struct pre *pr, long pos, size_t pf, size_t sf)
{
	size_t i;

	for (i = pf; i + sf < pr->n; i++) {
		if (!pr->budget)
			return 0;
		pr->budget--;
		if (!line_same(&im->l[pos + (long)i], pr->l[i], pr->h[i]))
			return 0;
	}
	return 1;
}

/* Nearest match to guess in [lo, hi], trying after before before (patch(1)'s order). */
static long search(const struct image *im, struct pre *pr, long guess, long lo, long hi,
		   size_t pf, size_t sf)
{
	long k;

	if (hi < lo)
		return -1;
	guess = guess < lo ? lo : guess > hi ? hi : guess;
	for (k = 0; (guess + k <= hi || guess - k >= lo) && pr->budget; k++) {
		if (guess + k <= hi && match_at(im, pr, guess + k, pf, sf))
			return guess + k;
		if (k && guess - k >= lo && match_at(im, pr, guess - k, pf, sf))
			return guess - k;
	}
	return -1;
}

/*
 * Where the hunk applies, at fuzz level f: like patch(1), a hunk with less
 * leading than trailing context must match at the start of the file, one
 * with less trailing context at the end, unless fuzz covers the difference.
 */
static long locate_fuzz(const struct image *im, struct pre *pr, long guess, long cursor,
			size_t f)
{
	size_t ctx = pr->prefix > pr->suffix ? pr->prefix : pr->suffix;
	long pf = (long)(f + pr->prefix) - (long)ctx, sf = (long)(f + pr->suffix) - (long)ctx;
	long last = (long)im->n - (long)pr->n;

	if (pf < 0 && sf < 0)
		return cursor == 0 && last == 0 && match_at(im, pr, 0, 0, 0) ? 0 : -1;
	if (pf < 0)
		return cursor == 0 && last >= 0 && match_at(im, pr, 0, 0, (size_t)sf) ? 0 : -1;
	if (sf < 0)
		return last >= cursor && match_at(im, pr, last, (size_t)pf, 0) ? last : -1;
	return search(im, pr, guess, cursor, last, (size_t)pf, (size_t)sf);
}

static long locate(const struct image *im, struct pre *pr, long guess, long cursor,
		   int fuzz, size_t *used)
{
	size_t ctx = pr->prefix > pr->suffix ? pr->prefix : pr->suffix, f;
	long pos;

	for (f = 0; f <= (size_t)(fuzz > 0 ? fuzz : 0) && f <= ctx; f++)
		if ((pos = locate_fuzz(im, pr, guess, cursor, f)) >= 0) {
			*used = f;
			return pos;
		}
	return -1;
}

/* A line for a message: no newline, control characters escaped, bounded. */
static void quote_line(struct buf *b, const char *p, size_t len)
{
	size_t i;

	if (len && p[len - 1] == '\n')
		len--;
	buf_putc(b, '\'');
	for (i = 0; i < len && i < 72; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == '\r')
			buf_puts(b, "\\r");
		else if (c == '\t')
			buf_puts(b, "\\t");
		else if (c < 32 || c == 127)
			buf_printf(b, "\\x%02x", c);
		else
			buf_putc(b, (char)c);
	}
	buf_puts(b, i < len ? "...'" : "'");
}

/* Why the hunk does not apply: the lines that differ where it should go. */
static int hunk_failed(const char *path, size_t nr, const struct apply_hunk *h,
		       const struct image *im, const struct pre *pr, long guess)
{
	struct buf b = BUF_INIT;
	size_t i, shown = 0;
	long at;
	int error;

	buf_printf(&b, "does not apply to '%s': hunk #%zu (%.*s)", path, nr, (int)h->header_len,
		   h->header);
	guess = guess < 0 ? 0 : guess;
	for (i = 0; pr->budget && i < pr->n && shown < 3; i++) {
		at = guess + (long)i;
		if (at >= (long)im->n) {
			buf_printf(&b, "%s line %ld: expected ", shown ? ";" : ":", at + 1);
			quote_line(&b, pr->l[i]->text, pr->l[i]->len);
			buf_puts(&b, ", found end of file");
			break;
		}
		if (line_same(&im->l[at], pr->l[i], pr->h[i]))
			continue;
		buf_printf(&b, "%s line %ld: expected ", shown ? ";" : ":", at + 1);
		quote_line(&b, pr->l[i]->text, pr->l[i]->len);
		buf_puts(&b, ", found ");
		quote_line(&b, im->l[at].p, im->l[at].len);
		shown++;
	}
	if (!pr->budget)
		buf_puts(&b, ": too many places to try, search given up");
	else if (!shown && i == pr->n)
		buf_printf(&b, ": its lines match at line %ld, but out of order or not at the %s "
			   "of the file", guess + 1, pr->prefix < pr->suffix ? "start" : "end");
	error = tide_error_set(TIDE_ECONFLICT, "%s", buf_cstr(&b));
	buf_release(&b);
	return error;
}

/* Output the hunk placed at pos: context from the file, '+' from the patch. */
static void hunk_emit(struct buf *out, const struct image *im, long pos,
		      const struct apply_file *f, const struct apply_hunk *h)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		const struct apply_line *l = &f->lines[h->first + i];

		if (l->op == '+')
			buf_put(out, l->text, l->len);
		else if (l->op == ' ')
			buf_put(out, im->l[pos].p, im->l[pos].len);
		if (l->op != '+')
			pos++;
	}
}

/* Line (0-based) where the header says the hunk's old lines start. */
static long hunk_home(const struct apply_hunk *h)
{
	if (h->old_count == 0)
		return h->old_start;	/* an insertion after that line */
	return h->old_start > 0 ? h->old_start - 1 : 0;
}

static int apply_hunk(struct buf *out, const struct image *im, long *cursor, long *offset,
		      const struct apply_file *f, size_t nr, const char *path,
		      const struct apply_opts *o, struct apply_result *res)
{
	const struct apply_hunk *h = &f->hunks[nr];
	long home = hunk_home(h), pos, i;
	size_t fuzz = 0;
	struct pre pr;
	int error = 0;

	pre_build(&pr, f, h);
	pos = locate(im, &pr, home + *offset, *cursor, o->fuzz, &fuzz);
	if (pos < 0) {
		error = hunk_failed(path, nr + 1, h, im, &pr, home + *offset);
		goto done;
	}
	for (i = *cursor; i < pos; i++)
		buf_put(out, im->l[i].p, im->l[i].len);
	hunk_emit(out, im, pos, f, h);
	*cursor = pos + (long)pr.n;
	*offset = pos - home;
	if (*offset && fuzz)
		add_note(res, path, "hunk #%zu applied at line %ld (offset %ld lines, fuzz %zu)",
			 nr + 1, pos + 1, *offset, fuzz);
	else if (*offset)
		add_note(res, path, "hunk #%zu applied at line %ld (offset %ld lines)", nr + 1,
			 pos + 1, *offset);
	else if (fuzz)
		add_note(res, path, "hunk #%zu applied with fuzz %zu", nr + 1, fuzz);
done:
	pre_release(&pr);
	return error;
}

static int apply_text(struct buf *out, const char *old, size_t len, const struct apply_file *f,
		      const char *path, const struct apply_opts *o, struct apply_result *res)
{
	struct image im;
	long cursor = 0, offset = 0, i;
	size_t nr;
	int error = 0;

	image_split(&im, old, len);
	for (nr = 0; nr < f->nhunks && !error; nr++)
		error = apply_hunk(out, &im, &cursor, &offset, f, nr, path, o, res);
	for (i = cursor; !error && i < (long)im.n; i++)
		buf_put(out, im.l[i].p, im.l[i].len);
	free(im.l);
	return error;
}

/* Does the blob id of data start with the (maybe abbreviated) hex id? */
static int id_matches(const char *hex, const char *data, size_t len)
{
	char have[GIT_OID_HEXSZ + 1];
	git_oid id;

	if (!*hex || strspn(hex, "0") == strlen(hex))
		return 1;
	if (git_odb_hash(&id, data, len, GIT_OBJECT_BLOB) < 0)
		return 0;
	git_oid_tostr(have, sizeof(have), &id);
	return !strncmp(have, hex, strlen(hex));
}

static int apply_bin(struct buf *out, const char *old, size_t len, const struct apply_file *f,
		     const char *path)
{
	const struct apply_binary *b = &f->bin[0];
	struct buf delta = BUF_INIT;
	int error;

	if (!f->nbin)
		return tide_error_set(TIDE_ECONFLICT, "does not apply to '%s': binary files differ, "
				      "and the patch does not carry the data", path);
	if (!id_matches(f->old_id, old, len))
		return tide_error_set(TIDE_ECONFLICT, "does not apply to '%s': the binary patch is "
				      "for blob %s", path, f->old_id);
	if (!b->delta)
		error = gitbin_decode(out, b->data, b->len, b->size, b->lineno);
	else if ((error = gitbin_decode(&delta, b->data, b->len, b->size, b->lineno)) == 0)
		error = gitbin_delta_apply(out, old, len, delta.ptr, delta.len);
	buf_release(&delta);
	if (!error && !id_matches(f->new_id, buf_cstr(out), out->len))
		error = tide_error_set(TIDE_ECONFLICT, "does not apply to '%s': the binary patch result is not blob %s",
				       path, f->new_id);
	if (error == TIDE_EINVAL)
		tide_error_wrap(error, "'%s'", path);
	return error;
}

/*
 * The tree being patched: the base tree and, by path, what the patch
 * changed so far.  Reading the whole tree into an index for each patch
 * made a series cost patches x files (2,000 one-line patches read two
 * million objects); this costs what the patch touches.
 */
struct ventry {
	char *path;
	git_oid id;
	unsigned mode;		/* 0: removed by the patch */
};

struct view {
	git_repository *repo;
	git_tree *base;
	struct ventry *v;	/* sorted by path */
	size_t n, alloc;
	struct ventry found;	/* what view_get() returned from the base */
};

static void view_release(struct view *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->v[i].path);
	free(w->v);
	free(w->found.path);
	git_tree_free(w->base);
	memset(w, 0, sizeof(*w));
}

/* Index of path in the changes, or where it would go (*at). */
static int view_find(const struct view *w, const char *path, size_t *at)
{
	size_t lo = 0, hi = w->n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(w->v[mid].path, path);
		if (!c) {
			*at = mid;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return 0;
}

/* The file (blob, link or submodule; not a directory) at path, or NULL. */
static const struct ventry *view_get(struct view *w, const char *path)
{
	git_tree_entry *e = NULL;
	size_t at;

	if (!path)
		return NULL;
	if (view_find(w, path, &at))
		return w->v[at].mode ? &w->v[at] : NULL;
	if (git_tree_entry_bypath(&e, w->base, path) < 0) {
		git_error_clear();
		return NULL;
	}
	free(w->found.path);
	w->found.path = xstrdup(path);
	git_oid_cpy(&w->found.id, git_tree_entry_id(e));
	w->found.mode = (unsigned)git_tree_entry_filemode(e);
	git_tree_entry_free(e);
	return w->found.mode == GIT_FILEMODE_TREE ? NULL : &w->found;
}

static void view_set(struct view *w, const char *path, const git_oid *id, unsigned mode)
{
	size_t at;

	if (!view_find(w, path, &at)) {
		array_grow(&w->v, &w->alloc, w->n + 1, sizeof(*w->v));
		memmove(&w->v[at + 1], &w->v[at], (w->n - at) * sizeof(*w->v));
		w->n++;
		w->v[at].path = xstrdup(path);
	}
	if (id)
		git_oid_cpy(&w->v[at].id, id);
	w->v[at].mode = mode;
}

/*
 * One kind of the changes onto tree (removals, or the rest): libgit2
 * cannot remove a file and add a directory of its name in one update,
 * so a patch replacing a link by a directory is written in two.
 */
static int view_update(git_oid *out, struct view *w, git_tree *tree, int removals)
{
	git_tree_update *up = xcalloc(w->n, sizeof(*up));
	git_tree_entry *e = NULL;
	size_t i, n = 0;
	int error = 0;

	for (i = 0; i < w->n; i++) {
		if (!w->v[i].mode != !!removals)
			continue;
		if (removals) {
			/* Created and deleted again by the patch: nothing to remove. */
			if (git_tree_entry_bypath(&e, tree, w->v[i].path) < 0) {
				git_error_clear();
				continue;
			}
			git_tree_entry_free(e);
			up[n].action = GIT_TREE_UPDATE_REMOVE;
		} else {
			up[n].action = GIT_TREE_UPDATE_UPSERT;
			git_oid_cpy(&up[n].id, &w->v[i].id);
			up[n].filemode = (git_filemode_t)w->v[i].mode;
		}
		up[n++].path = w->v[i].path;
	}
	if (git_tree_create_updated(out, w->repo, tree, n, up) < 0)
		error = tide_error_git(TIDE_ECONFLICT, "cannot write the patched tree");
	free(up);
	return error;
}

/* The base tree with the changes, written. */
static int view_write(git_oid *out, struct view *w)
{
	git_tree *removed = NULL;
	git_oid mid;
	int error;

	if ((error = view_update(&mid, w, w->base, 1)) < 0)
		return error;
	if (git_tree_lookup(&removed, w->repo, &mid) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read the patched tree");
	error = view_update(out, w, removed, 0);
	git_tree_free(removed);
	return error;
}

static int exists(struct view *idx, const char *path)
{
	return view_get(idx, path) != NULL;
}

/* patch(1)'s preference among existing names: fewest components, shortest basename. */
static int better_name(const char *a, const char *b)
{
	size_t ca = 0, cb = 0;
	const char *p, *ba = strrchr(a, '/'), *bb = strrchr(b, '/');

	for (p = a; *p; p++)
		ca += *p == '/';
	for (p = b; *p; p++)
		cb += *p == '/';
	if (ca != cb)
		return ca < cb;
	ba = ba ? ba + 1 : a, bb = bb ? bb + 1 : b;
	if (strlen(ba) != strlen(bb))
		return strlen(ba) < strlen(bb);
	return strlen(a) < strlen(b);
}

/*
 * The file a plain diff changes: akpm's "f.c~name" and quilt's
 * "linux.orig/f.c" name files that do not exist, so choose among the
 * names that do, as patch(1) does.
 */
static void plain_paths(struct view *idx, const struct apply_file *f, const char **pre,
			const char **post)
{
	const char *cand[3] = { f->old_path, f->new_path, f->hint }, *best = NULL;
	size_t i;

	for (i = 0; i < 3; i++)
		if (exists(idx, cand[i]) && (!best || better_name(cand[i], best)))
			best = cand[i];
	if (f->create) {
		*pre = NULL;
		*post = f->new_path ? f->new_path : f->hint;
	} else if (f->delete) {
		*pre = best ? best : f->old_path;
		*post = NULL;
	} else {
		*pre = *post = best ? best : f->new_path ? f->new_path : f->old_path;
	}
}

static int read_blob(struct buf *out, git_repository *repo, const struct ventry *e)
{
	git_blob *blob = NULL;

	if (git_blob_lookup(&blob, repo, &e->id) < 0)
		return tide_error_git(TIDE_ERROR, "cannot read '%s'", e->path);
	buf_put(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return 0;
}

static unsigned new_mode(const struct apply_file *f, const struct ventry *e)
{
	if (f->new_mode)
		return f->new_mode;
	return e ? e->mode : 0100644;
}

static int check_paths(struct view *idx, const struct apply_file *f, const char *pre,
		       const char *post, const struct ventry *e)
{
	if (!pre && !post)
		return tide_error_set(TIDE_EINVAL, "line %zu: file patch without a file name",
				      f->lineno);
	if (pre && !e)
		return tide_error_set(TIDE_ECONFLICT, "does not apply to '%s': no such file", pre);
	if (post && (!pre || strcmp(pre, post)) && exists(idx, post))
		return tide_error_set(TIDE_ECONFLICT, "does not apply to '%s': it already exists", post);
	return 0;
}

static int put_file(struct view *idx, git_repository *repo, const char *path, unsigned mode,
		    const struct buf *data)
{
	git_oid id;

	if (mode != 0100644 && mode != 0100755 && mode != 0120000)
		return tide_error_set(TIDE_EINVAL, "'%s': unsupported mode %o", path, mode);
	if (git_blob_create_from_buffer(&id, repo, buf_cstr(data), data->len) < 0)
		return tide_error_git(TIDE_ECONFLICT, "does not apply to '%s'", path);
	view_set(idx, path, &id, mode);
	return 0;
}

/*
 * git apply's rule for symbolic links (its symlink_changes): a file may
 * not be written below a symbolic link, whether the tree has it or this
 * patch creates it, unless this patch removes that link.  Otherwise a
 * patch creating "link" and a later one writing "link/f" would turn the
 * link into a directory without a word; git apply refuses both.
 */
#define LINK_GOES_AWAY 1
#define LINK_IN_RESULT 2

struct link_change {
	const char *path;
	int what;
};

struct link_changes {
	struct link_change *v;
	size_t n, alloc;
};

static void link_change_add(struct link_changes *lc, const char *path, int what)
{
	array_grow(&lc->v, &lc->alloc, lc->n + 1, sizeof(*lc->v));
	lc->v[lc->n].path = path;
	lc->v[lc->n++].what = what;
}

static unsigned index_mode(struct view *idx, const char *path)
{
	const struct ventry *e = view_get(idx, path);

	return e ? e->mode : 0;
}

/* The links the patch's git file patches remove and leave (plain diffs have no modes). */
static void link_changes_of(struct link_changes *lc, struct view *idx,
			    const struct apply_parsed *ps)
{
	const struct apply_file *f;
	size_t i;

	for (i = 0; i < ps->nfiles; i++) {
		f = &ps->files[i];
		if (!f->git)
			continue;
		if (f->old_path && (f->delete || f->rename) &&
		    (f->old_mode ? f->old_mode : index_mode(idx, f->old_path)) == 0120000)
			link_change_add(lc, f->old_path, LINK_GOES_AWAY);
		/* Without a mode line a rename or a change keeps the old file's mode. */
		if (f->new_path && !f->delete &&
		    (f->new_mode ? f->new_mode : f->old_mode ? f->old_mode :
		     index_mode(idx, f->old_path ? f->old_path : f->new_path)) == 0120000)
			link_change_add(lc, f->new_path, LINK_IN_RESULT);
	}
}

static int link_change_at(const struct link_changes *lc, const char *dir, size_t len)
{
	int what = 0;
	size_t i;

	for (i = 0; i < lc->n; i++)
		if (strlen(lc->v[i].path) == len && !memcmp(lc->v[i].path, dir, len))
			what |= lc->v[i].what;
	return what;
}

static int check_beyond_link(struct view *idx, const struct link_changes *lc, const char *path)
{
	const char *slash;
	char *dir;
	int what, link;

	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		what = link_change_at(lc, path, (size_t)(slash - path));
		dir = xstrndup(path, (size_t)(slash - path));
		link = (what & LINK_IN_RESULT) ||
		       (!(what & LINK_GOES_AWAY) && index_mode(idx, dir) == 0120000);
		free(dir);
		if (link)
			return tide_error_set(TIDE_EINVAL, "affected file '%s' is beyond a symbolic "
					      "link", path);
	}
	return 0;
}

static int file_apply(struct view *idx, git_repository *repo, const struct apply_file *f,
		      const struct link_changes *lc, const struct apply_opts *o,
		      struct apply_result *res)
{
	struct buf old = BUF_INIT, new = BUF_INIT;
	const char *pre = f->old_path, *post = f->new_path;
	struct ventry pre_entry = { NULL, { { 0 } }, 0 };
	const struct ventry *e;
	unsigned mode;
	int error;

	if (!f->git)
		plain_paths(idx, f, &pre, &post);
	/* A copy: the view's next lookup reuses what it returned. */
	if ((e = view_get(idx, pre)) != NULL) {
		pre_entry = *e;
		e = &pre_entry;
	}
	if ((post && (error = check_beyond_link(idx, lc, post)) < 0) ||
	    (error = check_paths(idx, f, pre, post, e)) < 0 ||
	    (e && (error = read_blob(&old, repo, e)) < 0))
		goto done;
	mode = new_mode(f, e);
	if (f->binary)
		error = apply_bin(&new, buf_cstr(&old), old.len, f, pre ? pre : post);
	else
		error = apply_text(&new, buf_cstr(&old), old.len, f, pre ? pre : post, o, res);
	if (error < 0)
		goto done;
	if (!post && new.len) {
		error = tide_error_set(TIDE_ECONFLICT, "does not apply to '%s': not empty after the "
				       "patch that deletes it", pre);
		goto done;
	}
	if (pre && (!post || (strcmp(pre, post) && !f->copy)))
		view_set(idx, pre, NULL, 0);
	if (post)
		error = put_file(idx, repo, post, mode, &new);
	res->files++;
	res->hunks += f->nhunks;
done:
	buf_release(&old);
	buf_release(&new);
	return error;
}

/* patch(1) takes a patch whose lines end in CRLF as a mangled LF patch. */
static const char *strip_crlf(struct buf *b, const char *diff, size_t *len)
{
	const char *nl = memchr(diff, '\n', *len), *p, *end = diff + *len;

	if (!nl || nl == diff || nl[-1] != '\r')
		return diff;
	for (p = diff; p < end; p++)
		if (!(*p == '\r' && p + 1 < end && p[1] == '\n'))
			buf_putc(b, *p);
	*len = b->len;
	return buf_cstr(b);
}

static int apply_files(struct view *idx, git_repository *repo, const struct apply_parsed *ps,
		       const struct apply_opts *o, struct apply_result *res)
{
	struct link_changes lc = { NULL, 0, 0 };
	size_t i;
	int error = 0;

	if (!ps->nfiles)
		return tide_error_set(TIDE_EINVAL, "no file patches found in the diff");
	link_changes_of(&lc, idx, ps);
	for (i = 0; i < ps->nfiles && !error; i++)
		error = file_apply(idx, repo, &ps->files[i], &lc, o, res);
	free(lc.v);
	return error;
}

int apply_to_tree(git_oid *out, git_repository *repo, const git_oid *tree_id,
		  const char *diff, size_t len, const struct apply_opts *o,
		  struct apply_result *res)
{
	struct apply_opts defaults = APPLY_OPTS_INIT;
	struct apply_result ignored = APPLY_RESULT_INIT;
	struct apply_parsed ps = { NULL, 0, 0 };
	struct buf lf = BUF_INIT;
	struct view w;
	int error;

	memset(&w, 0, sizeof(w));
	w.repo = repo;
	o = o ? o : &defaults;
	res = res ? res : &ignored;
	diff = strip_crlf(&lf, diff, &len);
	if ((error = apply_parse(&ps, diff, len, o)) < 0)
		goto done;
	if (git_tree_lookup(&w.base, repo, tree_id) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the tree to patch");
		goto done;
	}
	if ((error = apply_files(&w, repo, &ps, o, res)) < 0)
		goto done;
	error = view_write(out, &w);
done:
	view_release(&w);
	apply_parsed_release(&ps);
	apply_result_release(&ignored);
	buf_release(&lf);
	return error;
}

static int make_author(git_signature **out, const struct patch *p, const git_commit *parent)
{
	const char *name = p->author_name ? p->author_name : "Unknown";
	const char *email = p->author_email ? p->author_email : "unknown@unknown";
	/* Without a Date: header, reuse the parent's time: same input, same ids. */
	git_time_t when = p->date ? (git_time_t)p->date : git_commit_time(parent);
	int tz = p->date ? p->tz_minutes : 0;

	if (git_signature_new(out, name, email, when, tz) < 0)
		return tide_error_git(TIDE_EINVAL, "bad author '%s <%s>'", name, email);
	return 0;
}

int apply_patch_commit(git_oid *out, git_repository *repo, const git_oid *parent_id,
		       const struct patch *p, const struct apply_opts *o,
		       const git_signature *committer, const char *trailer,
		       struct apply_result *res)
{
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	git_signature *author = NULL;
	char *msg = NULL;
	git_oid tree_id;
	int error;

	if (git_commit_lookup(&parent, repo, parent_id) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the parent commit");
		goto done;
	}
	if ((error = apply_to_tree(&tree_id, repo, git_commit_tree_id(parent), p->diff,
				   p->diff_len, o, res)) < 0 ||
	    (error = make_author(&author, p, parent)) < 0)
		goto done;
	if (git_tree_lookup(&tree, repo, &tree_id) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the new tree");
		goto done;
	}
	msg = trailer ? xasprintf("%s\n%s\n", p->message, trailer) : xstrdup(p->message);
	if (git_commit_create(out, repo, NULL, author, committer ? committer : author, NULL,
			      msg, tree, 1, (const git_commit **)&parent) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot commit the patch");
done:
	free(msg);
	git_signature_free(author);
	git_tree_free(tree);
	git_commit_free(parent);
	return error;
}
