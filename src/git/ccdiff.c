/*
 * git's dense combined diff (combine-diff.c, `diff --cc`), for the
 * conflict mails: each parent is diffed against the result with no
 * context; the lines a parent lost hang before the result line they
 * preceded, the lost lines of all parents merged by a longest common
 * subsequence so a line lost by both shows once; a hunk is shown only
 * when the result differs from every parent there (dense); three lines
 * of context join hunks as git joins them.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "ccdiff.h"
#include "error.h"
#include "util.h"

#define CC_CONTEXT 3
/* Parent bits, the "interesting" bit and the "no deletion before" bit fit a long. */
#define CC_MAX_PARENTS 8
/* LCS cells one coalescing may use; beyond, a parent's lost lines are listed apart. */
#define CC_MAX_LCS ((size_t)4 << 20)

/* A line lost from some parents (parent_map), hanging before a result line. */
struct lline {
	struct lline *next, *prev;
	unsigned long parent_map;
	size_t len;
	char line[];
};

/* A line of the result (and one past the end, for deletions at the end). */
struct sline {
	struct lline *lost;		/* coalesced lost lines */
	size_t lenlost;
	struct lline *plost_head, *plost_tail;	/* the current parent's, before coalescing */
	size_t plost_len;
	const char *bol;
	size_t len;
	unsigned long flag;	/* bit n: added against parent n; then mark, no_pre_delete */
	unsigned long *p_lno;	/* each parent's line number where a hunk starting here starts */
};

struct cc_state {
	struct sline *sline;
	struct sline *bucket;	/* where the hunk's lost lines hang */
	unsigned long lno;	/* the next added line of the result (1-based) */
	unsigned long nmask;
	size_t n;
};

static void lines_free(struct lline *l)
{
	struct lline *next;

	for (; l; l = next) {
		next = l->next;
		free(l);
	}
}

static void append_lost(struct sline *s, size_t n, const char *line, size_t len)
{
	struct lline *l;

	if (len && line[len - 1] == '\n')
		len--;
	l = xmalloc(sizeof(*l) + len + 1);
	memcpy(l->line, line, len);
	l->line[len] = '\0';
	l->len = len;
	l->next = NULL;
	l->prev = s->plost_tail;
	if (l->prev)
		l->prev->next = l;
	else
		s->plost_head = l;
	s->plost_tail = l;
	s->plost_len++;
	l->parent_map = 1UL << n;
}

enum { CC_MATCH, CC_BASE, CC_NEW };

static void append_list(struct lline **base, struct lline *add)
{
	struct lline *end = *base;

	while (end->next)
		end = end->next;
	end->next = add;
	add->prev = end;
}

/*
 * Merge parent's lost lines (add, nadd) into base by their longest common
 * subsequence, walking back as git does so ties fall the same way.
 */
static struct lline *coalesce(struct lline *base, size_t *nbase, struct lline *add,
			      size_t nadd, size_t parent)
{
	size_t i, j, nb = *nbase, w = nadd + 1;
	struct lline *be = base, *ne = add, *l;
	unsigned *lcs;
	unsigned char *dir;

	if (!add)
		return base;
	if (!base) {
		*nbase = nadd;
		return add;
	}
	if ((nb + 1) > CC_MAX_LCS / w) {	/* too large to align: listed after */
		append_list(&base, add);
		*nbase += nadd;
		return base;
	}
	lcs = xcalloc((nb + 1) * w, sizeof(*lcs));
	dir = xcalloc((nb + 1) * w, 1);
	for (i = 0; i <= nb; i++)
		dir[i * w] = CC_BASE;
	for (j = 1; j <= nadd; j++)
		dir[j] = CC_NEW;
	for (i = 1; i <= nb; i++) {
		for (j = 1, ne = add; j <= nadd; j++) {
			size_t at = i * w + j;

			if (be->len == ne->len && !memcmp(be->line, ne->line, be->len)) {
				lcs[at] = lcs[at - w - 1] + 1;
				dir[at] = CC_MATCH;
			} else if (lcs[at - 1] >= lcs[at - w]) {
				lcs[at] = lcs[at - 1];
				dir[at] = CC_NEW;
			} else {
				lcs[at] = lcs[at - w];
				dir[at] = CC_BASE;
			}
			if (ne->next)
				ne = ne->next;
		}
		if (be->next)
			be = be->next;
	}
	free(lcs);
	i = nb;
	j = nadd;
	while (i || j) {
		if (dir[i * w + j] == CC_MATCH) {
			be->parent_map |= 1UL << parent;
			be = be->prev;
			ne = ne->prev;
			i--, j--;
		} else if (dir[i * w + j] == CC_NEW) {
			l = ne;
			if (l->prev)
				l->prev->next = l->next;
			else
				add = l->next;
			if (l->next)
				l->next->prev = l->prev;
			ne = l->prev;
			j--;
			if (be) {
				l->next = be->next;
				l->prev = be;
				be->next = l;
			} else {
				l->next = base;
				l->prev = NULL;
				base = l;
			}
			(*nbase)++;
			if (l->next)
				l->next->prev = l;
		} else {
			be = be->prev;
			i--;
		}
	}
	free(dir);
	lines_free(add);
	return base;
}

static int on_hunk(const git_diff_delta *d, const git_diff_hunk *h, void *payload)
{
	struct cc_state *st = payload;
	unsigned long nb = (unsigned long)h->new_start;

	(void)d;
	st->lno = nb;
	if (h->new_lines == 0) {
		/* lines removed after result line nb hang on the line after them */
		st->bucket = &st->sline[nb];
		if (!nb)
			st->lno = 1;
	} else {
		st->bucket = &st->sline[nb - 1];
	}
	return 0;
}

static int on_line(const git_diff_delta *d, const git_diff_hunk *h, const git_diff_line *l,
		   void *payload)
{
	struct cc_state *st = payload;

	(void)d, (void)h;
	if (!st->bucket)
		return 0;
	if (l->origin == GIT_DIFF_LINE_DELETION)
		append_lost(st->bucket, st->n, l->content, l->content_len);
	else if (l->origin == GIT_DIFF_LINE_ADDITION)
		st->sline[st->lno++ - 1].flag |= st->nmask;
	return 0;
}

/* Parent n against the result: its lost lines, its added lines, its line numbers. */
static int diff_parent(struct sline *sline, size_t cnt, size_t n, const char *parent,
		       size_t plen, const char *result, size_t rlen)
{
	git_diff_options opts;
	struct cc_state st = { sline, NULL, 1, 1UL << n, n };
	unsigned long p_lno = 1;
	struct lline *ll;
	size_t lno;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.context_lines = 0;
	opts.interhunk_lines = 0;
	opts.flags = GIT_DIFF_FORCE_TEXT | GIT_DIFF_INDENT_HEURISTIC;
	if (git_diff_buffers(parent, plen, NULL, result, rlen, NULL, &opts, NULL, NULL, on_hunk,
			     on_line, &st) < 0)
		return tide_error_git(TIDE_ERROR, "cannot diff a merge's parent");
	for (lno = 0; lno <= cnt; lno++) {
		struct sline *s = &sline[lno];

		s->p_lno[n] = p_lno;
		if (s->plost_head) {
			s->lost = coalesce(s->lost, &s->lenlost, s->plost_head, s->plost_len, n);
			s->plost_head = s->plost_tail = NULL;
			s->plost_len = 0;
		}
		for (ll = s->lost; ll; ll = ll->next)
			p_lno += (ll->parent_map & st.nmask) != 0;
		if (lno < cnt && !(s->flag & st.nmask))
			p_lno++;
	}
	sline[cnt + 1].p_lno[n] = p_lno;
	return 0;
}

/* Parent i's blob is parent j's: the same lines, the same numbers. */
static void reuse_parent(struct sline *sline, size_t cnt, size_t i, size_t j)
{
	unsigned long imask = 1UL << i, jmask = 1UL << j;
	struct lline *ll;
	size_t lno;

	for (lno = 0; lno <= cnt; lno++) {
		sline[lno].p_lno[i] = sline[lno].p_lno[j];
		for (ll = sline[lno].lost; ll; ll = ll->next)
			if (ll->parent_map & jmask)
				ll->parent_map |= imask;
		if (sline[lno].flag & jmask)
			sline[lno].flag |= imask;
	}
	sline[cnt + 1].p_lno[i] = sline[cnt + 1].p_lno[j];
}

static size_t hunk_tail(const struct sline *sline, unsigned long all, size_t begin, size_t i)
{
	/* a last line interesting only for its deletions gives its own context */
	if (begin + 1 <= i && !(sline[i - 1].flag & all))
		i--;
	return i;
}

static size_t find_next(const struct sline *sline, unsigned long mark, size_t i, size_t cnt,
			int uninteresting)
{
	while (i <= cnt && (uninteresting ? (sline[i].flag & mark) != 0 : !(sline[i].flag & mark)))
		i++;
	return i;
}

/* Paint context lines around the marked ones, joining groups closer than it. */
static int give_context(struct sline *sline, size_t cnt, size_t np)
{
	unsigned long all = (1UL << np) - 1, mark = 1UL << np, no_pre_delete = 2UL << np;
	size_t i = find_next(sline, mark, 0, cnt, 0), j, k;

	if (cnt < i)
		return 0;
	while (i <= cnt) {
		for (j = CC_CONTEXT < i ? i - CC_CONTEXT : 0; j < i; j++) {
			if (!(sline[j].flag & mark))
				sline[j].flag |= no_pre_delete;
			sline[j].flag |= mark;
		}
		for (;;) {
			j = find_next(sline, mark, i, cnt, 1);
			if (cnt < j)
				return 1;
			k = find_next(sline, mark, j, cnt, 0);
			j = hunk_tail(sline, all, i, j);
			if (k >= j + CC_CONTEXT)
				break;
			while (j < k)
				sline[j++].flag |= mark;
			i = k;
		}
		i = k;
		k = j + CC_CONTEXT < cnt + 1 ? j + CC_CONTEXT : cnt + 1;
		while (j < k)
			sline[j++].flag |= mark;
	}
	return 1;
}

/* A hunk whose changes are one parent's, or all but one parent's, is not shown. */
static int make_hunks(struct sline *sline, size_t cnt, size_t np)
{
	unsigned long all = (1UL << np) - 1, mark = 1UL << np;
	size_t i, j, begin, end;

	for (i = 0; i <= cnt; i++) {
		if ((sline[i].flag & all) || sline[i].lost)
			sline[i].flag |= mark;
		else
			sline[i].flag &= ~mark;
	}
	for (i = 0; i <= cnt; i = end) {
		unsigned long same = 0;
		int differs = 0;

		while (i <= cnt && !(sline[i].flag & mark))
			i++;
		if (cnt < i)
			break;
		begin = i;
		for (j = i + 1; j <= cnt; j++) {
			size_t la;
			int contin = 0;

			if (sline[j].flag & mark)
				continue;
			la = hunk_tail(sline, all, begin, j);
			la = la + CC_CONTEXT < cnt + 1 ? la + CC_CONTEXT : cnt + 1;
			while (la && j <= --la)
				if (sline[la].flag & mark) {
					contin = 1;
					break;
				}
			if (!contin)
				break;
			j = la;
		}
		end = j;
		for (j = i; j < end && !differs; j++) {
			unsigned long d = sline[j].flag & all;
			struct lline *ll;

			if (d && !same)
				same = d;
			else if (d && same != d)
				differs = 1;
			for (ll = sline[j].lost; ll && !differs; ll = ll->next) {
				if (!same)
					same = ll->parent_map;
				else if (same != ll->parent_map)
					differs = 1;
			}
		}
		if (!differs && same != all)
			for (j = begin; j < end; j++)
				sline[j].flag &= ~mark;
	}
	return give_context(sline, cnt, np);
}

/* git's default funcname: a line starting with a letter, '_' or '$'. */
static int comment_line(const char *bol)
{
	unsigned char c = bol ? (unsigned char)*bol : 0;

	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

static void hunk_header(struct buf *out, const struct sline *sline, size_t lno, size_t end,
			size_t cnt, size_t np, const char *comment)
{
	size_t i, rlines = end - lno - (cnt < end), last = 0;

	for (i = 0; i <= np; i++)
		buf_putc(out, '@');
	for (i = 0; i < np; i++)
		buf_printf(out, " -%lu,%lu", sline[lno].p_lno[i],
			   sline[end].p_lno[i] - sline[lno].p_lno[i]);
	buf_printf(out, " +%zu,%zu ", lno + 1, rlines);
	for (i = 0; i <= np; i++)
		buf_putc(out, '@');
	/* up to 40 bytes of the line, as git cuts it (its last non-blank byte too) */
	for (i = 0; comment && i < 40 && comment[i] && comment[i] != '\n'; i++)
		if (!strchr(" \t\r\v\f", comment[i]))
			last = i;
	if (last) {
		buf_putc(out, ' ');
		buf_put(out, comment, last);
	}
	buf_putc(out, '\n');
}

static void dump(struct buf *out, struct sline *sline, size_t cnt, size_t np)
{
	unsigned long mark = 1UL << np, no_pre_delete = 2UL << np;
	size_t lno = 0, end, j;

	for (;;) {
		const char *comment = NULL;

		while (lno <= cnt && !(sline[lno].flag & mark)) {
			if (comment_line(sline[lno].bol))
				comment = sline[lno].bol;
			lno++;
		}
		if (cnt < lno)
			return;
		for (end = lno + 1; end <= cnt && (sline[end].flag & mark); end++)
			;
		hunk_header(out, sline, lno, end, cnt, np, comment);
		while (lno < end) {
			struct sline *s = &sline[lno++];
			struct lline *ll = (s->flag & no_pre_delete) ? NULL : s->lost;

			for (; ll; ll = ll->next) {
				for (j = 0; j < np; j++)
					buf_putc(out, (ll->parent_map & (1UL << j)) ? '-' : ' ');
				buf_put(out, ll->line, ll->len);
				buf_putc(out, '\n');
			}
			if (cnt < lno)
				break;
			for (j = 0; j < np; j++)
				buf_putc(out, (s->flag & (1UL << j)) ? '+' : ' ');
			buf_put(out, s->bol, s->len);
			buf_putc(out, '\n');
		}
	}
}

/* core.quotePath: a name with a byte git escapes is written "quoted". */
static int needs_quote(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\' || c >= 0x7f;
}

static void quoted_path(struct buf *out, const char *head, const char *prefix, const char *path)
{
	const unsigned char *p;
	int q = 0;

	for (p = (const unsigned char *)path; *p; p++)
		q |= needs_quote(*p);
	buf_puts(out, head);
	if (!q) {
		buf_printf(out, "%s%s\n", prefix, path);
		return;
	}
	buf_printf(out, "\"%s", prefix);
	for (p = (const unsigned char *)path; *p; p++) {
		const char *esc = strchr("\a\b\t\n\v\f\r\"\\", *p);

		if (esc && *p)
			buf_printf(out, "\\%c", "abtnvfr\"\\"[esc - "\a\b\t\n\v\f\r\"\\"]);
		else if (needs_quote(*p))
			buf_printf(out, "\\%03o", *p);
		else
			buf_putc(out, (char)*p);
	}
	buf_puts(out, "\"\n");
}

static void abbrev(struct buf *out, git_repository *repo, const git_oid *id)
{
	git_object *obj = NULL;
	git_buf s = { 0 };

	if (!git_oid_is_zero(id) && git_object_lookup(&obj, repo, id, GIT_OBJECT_ANY) == 0 &&
	    git_object_short_id(&s, obj) == 0)
		buf_puts(out, s.ptr);
	else
		buf_printf(out, "%.7s", git_oid_tostr_s(id));
	git_buf_dispose(&s);
	git_object_free(obj);
}

static void file_header(struct buf *out, git_repository *repo, const char *path,
			const struct ccdiff_side *parents, size_t np,
			const struct ccdiff_side *result, int with_names)
{
	size_t i;
	int mode_differs = 0, added = result->mode != 0;

	quoted_path(out, "diff --cc ", "", path);
	buf_puts(out, "index ");
	for (i = 0; i < np; i++) {
		if (i)
			buf_putc(out, ',');
		abbrev(out, repo, &parents[i].id);
		mode_differs |= parents[i].mode != result->mode;
		added &= parents[i].mode == 0;
	}
	buf_puts(out, "..");
	abbrev(out, repo, &result->id);
	buf_putc(out, '\n');
	if (mode_differs && added) {
		buf_printf(out, "new file mode %06o\n", result->mode);
	} else if (mode_differs) {
		buf_puts(out, result->mode ? "mode " : "deleted file mode ");
		for (i = 0; i < np; i++)
			buf_printf(out, "%s%06o", i ? "," : "", parents[i].mode);
		if (result->mode)
			buf_printf(out, "..%06o", result->mode);
		buf_putc(out, '\n');
	}
	if (!with_names)
		return;
	if (added)
		buf_puts(out, "--- /dev/null\n");
	else
		quoted_path(out, "--- ", "a/", path);
	if (!result->mode)
		buf_puts(out, "+++ /dev/null\n");
	else
		quoted_path(out, "+++ ", "b/", path);
}

/* A side's bytes: a blob's content, a submodule's line, nothing when absent. */
static int side_text(struct buf *out, git_repository *repo, const struct ccdiff_side *s)
{
	git_blob *blob = NULL;

	if (!s->mode)
		return 0;
	if (s->mode == GIT_FILEMODE_COMMIT) {
		buf_printf(out, "Subproject commit %s\n", git_oid_tostr_s(&s->id));
		return 0;
	}
	if (git_blob_lookup(&blob, repo, &s->id) < 0)
		return tide_error_git(TIDE_ENOTFOUND, "blob %s", git_oid_tostr_s(&s->id));
	buf_put(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return 0;
}

/* git's buffer_is_binary(): a NUL in the first 8000 bytes. */
static int is_binary(const struct buf *b)
{
	return memchr(b->ptr ? b->ptr : "", 0, b->len < 8000 ? b->len : 8000) != NULL;
}

static int too_large(git_repository *repo, const struct ccdiff_side *s)
{
	git_odb *odb = NULL;
	size_t len = 0;
	git_object_t type;
	int large = 0;

	if (s->mode && s->mode != GIT_FILEMODE_COMMIT && git_repository_odb(&odb, repo) == 0 &&
	    git_odb_read_header(&len, &type, odb, &s->id) == 0)
		large = len > CCDIFF_MAX_BYTES;
	git_odb_free(odb);
	return large;
}

static void slines_free(struct sline *sline, size_t cnt)
{
	size_t i;

	for (i = 0; i <= cnt + 1; i++) {
		lines_free(sline[i].lost);
		lines_free(sline[i].plost_head);
	}
	free(sline[0].p_lno);
	free(sline);
}

/* The result's lines; sline[cnt] and sline[cnt + 1] stand past the end. */
static struct sline *slines_of(const struct buf *r, size_t *cnt_out, size_t np)
{
	size_t cnt = 0, i, lno = 0;
	const char *p = r->ptr, *end = r->ptr + r->len;
	struct sline *sline;
	unsigned long *lnos;

	for (i = 0; i < r->len; i++)
		cnt += r->ptr[i] == '\n';
	if (r->len && r->ptr[r->len - 1] != '\n')
		cnt++;
	sline = xcalloc(cnt + 2, sizeof(*sline));
	lnos = xcalloc((cnt + 2) * np, sizeof(*lnos));
	for (i = 0; i < cnt + 2; i++)
		sline[i].p_lno = lnos + i * np;
	for (; p < end; lno++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		sline[lno].bol = p;
		sline[lno].len = (size_t)((nl ? nl : end) - p);
		p = nl ? nl + 1 : end;
	}
	*cnt_out = cnt;
	return sline;
}

int ccdiff_file(struct buf *out, git_repository *repo, const char *path,
		const struct ccdiff_side *parents, size_t np, const struct ccdiff_side *result)
{
	struct buf r = BUF_INIT, p = BUF_INIT;
	struct sline *sline = NULL;
	size_t i, j, cnt = 0;
	int error = 0, binary = 0, large, mode_differs = 0;

	if (np < 1 || np > CC_MAX_PARENTS)
		return tide_error_set(TIDE_EINVAL, "a combined diff of %zu parents", np);
	for (i = 0; i < np; i++) {
		/* a parent with the result's blob: git lists the path with no diff at all */
		if (parents[i].mode == result->mode && git_oid_equal(&parents[i].id, &result->id))
			return 0;
		mode_differs |= parents[i].mode != result->mode;
	}
	large = too_large(repo, result);
	for (i = 0; i < np && !large; i++)
		large = too_large(repo, &parents[i]);
	if (large) {
		file_header(out, repo, path, parents, np, result, 0);
		buf_printf(out, "(larger than %d bytes: not shown)\n", CCDIFF_MAX_BYTES);
		return 0;
	}
	if ((error = side_text(&r, repo, result)) < 0)
		goto done;
	binary = is_binary(&r);
	for (i = 0; i < np && !binary && error == 0; i++) {
		buf_clear(&p);
		if ((error = side_text(&p, repo, &parents[i])) == 0)
			binary = is_binary(&p);
	}
	if (error < 0)
		goto done;
	if (binary) {
		file_header(out, repo, path, parents, np, result, 0);
		buf_puts(out, "Binary files differ\n");
		goto done;
	}
	sline = slines_of(&r, &cnt, np);
	for (i = 0; i < np && error == 0; i++) {
		for (j = 0; j < i && !git_oid_equal(&parents[i].id, &parents[j].id); j++)
			;
		if (j < i) {
			reuse_parent(sline, cnt, i, j);
			continue;
		}
		buf_clear(&p);
		if (result->mode && (error = side_text(&p, repo, &parents[i])) == 0)
			error = diff_parent(sline, cnt, i, p.ptr ? p.ptr : "", p.len,
					    r.ptr ? r.ptr : "", r.len);
	}
	if (error == 0 && (make_hunks(sline, cnt, np) || mode_differs)) {
		file_header(out, repo, path, parents, np, result, 1);
		if (result->mode)
			dump(out, sline, cnt, np);
	}
done:
	if (sline)
		slines_free(sline, cnt);
	buf_release(&r);
	buf_release(&p);
	return error;
}

static int side_in_tree(struct ccdiff_side *s, git_tree *tree, const char *path)
{
	git_tree_entry *e = NULL;
	int error = git_tree_entry_bypath(&e, tree, path);

	memset(s, 0, sizeof(*s));
	if (error == GIT_ENOTFOUND)
		return 0;
	if (error < 0)
		return tide_error_git(TIDE_ERROR, "cannot read '%s' of a merge", path);
	if (git_tree_entry_type(e) == GIT_OBJECT_BLOB || git_tree_entry_type(e) == GIT_OBJECT_COMMIT) {
		git_oid_cpy(&s->id, git_tree_entry_id(e));
		s->mode = (uint32_t)git_tree_entry_filemode(e);
	}
	git_tree_entry_free(e);
	return 0;
}

int ccdiff_path(struct buf *out, git_repository *repo, const char *path,
		const git_oid *parents, size_t np, const git_oid *result_tree)
{
	struct ccdiff_side sides[CC_MAX_PARENTS], result;
	git_commit *c = NULL;
	git_tree *tree = NULL;
	size_t i;
	int error = 0;

	if (np < 1 || np > CC_MAX_PARENTS)
		return tide_error_set(TIDE_EINVAL, "a combined diff of %zu parents", np);
	for (i = 0; i < np && error == 0; i++) {
		if (git_commit_lookup(&c, repo, &parents[i]) < 0 || git_commit_tree(&tree, c) < 0)
			error = tide_error_git(TIDE_ENOTFOUND, "commit %s", git_oid_tostr_s(&parents[i]));
		else
			error = side_in_tree(&sides[i], tree, path);
		git_tree_free(tree), tree = NULL;
		git_commit_free(c), c = NULL;
	}
	if (error == 0 && git_tree_lookup(&tree, repo, result_tree) < 0)
		error = tide_error_git(TIDE_ENOTFOUND, "tree %s", git_oid_tostr_s(result_tree));
	if (error == 0 && (error = side_in_tree(&result, tree, path)) == 0)
		error = ccdiff_file(out, repo, path, sides, np, &result);
	git_tree_free(tree);
	return error;
}
