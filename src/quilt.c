#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>
#include <git2.h>

#include "apply.h"
#include "error.h"
#include "patch.h"
#include "quilt.h"
#include "util.h"

/* Names come from the network: keep them inside the cache. */
static int bad_patch_name(const char *name)
{
	return name[0] == '/' || !strcmp(name, "..") || strstr(name, "../") == name ||
	       strstr(name, "/../") || str_ends_with(name, "/..");
}

/* "-p1", "-p0", "-R" after a name on a series line. */
static int series_option(struct quilt_patch_opts *po, const char *s, size_t len,
			 const char *name)
{
	if (len == 2 && !memcmp(s, "-R", 2)) {
		po->reverse = 1;
		return 0;
	}
	if (len >= 3 && len <= 4 && !memcmp(s, "-p", 2) && isdigit((unsigned char)s[2]) &&
	    (len == 3 || isdigit((unsigned char)s[3]))) {
		po->strip = atoi(s + 2);
		return 0;
	}
	return tide_error_set(TIDE_EINVAL, "unsupported option '%.*s' for '%s' in series",
			      (int)len, s, name);
}

struct series_alloc {
	size_t patches, opts;
};

static void series_add(struct quilt_series *out, struct series_alloc *a, char *name,
		       const struct quilt_patch_opts *po)
{
	array_grow(&out->patches, &a->patches, out->npatches + 1, sizeof(char *));
	array_grow(&out->opts, &a->opts, out->npatches + 1, sizeof(*out->opts));
	out->opts[out->npatches] = *po;
	out->patches[out->npatches++] = name;
}

/* One line's fields up to a '#': the name, then its options. */
static int series_line(struct quilt_series *out, struct series_alloc *a, const char *p,
		       const char *nl)
{
	struct quilt_patch_opts po = { 1, 0 };
	const char *end;
	char *name = NULL;
	int error = 0;

	for (; !error; p = end) {
		while (p < nl && isspace((unsigned char)*p))
			p++;
		for (end = p; end < nl && !isspace((unsigned char)*end) && *end != '#'; end++)
			;
		if (end == p)
			break;
		if (!name)
			name = xstrndup(p, (size_t)(end - p));
		else
			error = series_option(&po, p, (size_t)(end - p), name);
	}
	if (!error && name && bad_patch_name(name))
		error = tide_error_set(TIDE_EINVAL, "bad patch name '%s' in series", name);
	if (error)
		free(name);
	else if (name)
		series_add(out, a, name, &po);
	return error;
}

int quilt_series_parse(struct quilt_series *out, const char *text)
{
	struct series_alloc a = { 0, 0 };
	const char *p = text, *nl;

	memset(out, 0, sizeof(*out));
	for (; *p; p = *nl ? nl + 1 : nl) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (series_line(out, &a, p, nl) < 0) {
			quilt_series_release(out);
			return TIDE_EINVAL;
		}
	}
	return 0;
}

void quilt_series_release(struct quilt_series *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->npatches; i++)
		free(s->patches[i]);
	free(s->patches);
	free(s->opts);
	memset(s, 0, sizeof(*s));
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int quilt_series_from_dir(struct quilt_series *out, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t alloc = 0;

	memset(out, 0, sizeof(*out));
	if (!d)
		return errno == ENOENT ? 0 : tide_error_errno(TIDE_EIO, "cannot read '%s'", dir);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !str_ends_with(e->d_name, ".patch"))
			continue;
		array_grow(&out->patches, &alloc, out->npatches + 1, sizeof(char *));
		out->patches[out->npatches++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (out->npatches)
		qsort(out->patches, out->npatches, sizeof(char *), cmp_names);
	return 0;
}

static int is_http(const char *url)
{
	return str_starts_with(url, "http://") || str_starts_with(url, "https://");
}

struct response {
	struct buf body;
	char *etag;
	char *last_modified;
};

static size_t on_body(char *data, size_t size, size_t n, void *payload)
{
	struct response *r = payload;

	buf_put(&r->body, data, size * n);
	return size * n;
}

static char *header_value(const char *data, size_t len, const char *name)
{
	size_t nlen = strlen(name);
	char *v;

	if (len <= nlen || strncasecmp(data, name, nlen) || data[nlen] != ':')
		return NULL;
	data += nlen + 1, len -= nlen + 1;
	while (len && isspace((unsigned char)*data))
		data++, len--;
	v = xstrndup(data, len);
	return str_rtrim(v);
}

static size_t on_header(char *data, size_t size, size_t n, void *payload)
{
	struct response *r = payload;
	char *v;

	if ((v = header_value(data, size * n, "ETag"))) {
		free(r->etag);
		r->etag = v;
	} else if ((v = header_value(data, size * n, "Last-Modified"))) {
		free(r->last_modified);
		r->last_modified = v;
	}
	return size * n;
}

/* The cached validators of a file: "ETAG\nLAST-MODIFIED\n". */
static void meta_read(const char *meta, char **etag, char **lm)
{
	struct buf b = BUF_INIT;
	char *nl;

	*etag = *lm = NULL;
	if (file_read(&b, meta) < 0) {
		tide_error_clear();
		buf_release(&b);
		return;
	}
	nl = strchr(b.ptr, '\n');
	if (nl) {
		*nl = '\0';
		*lm = xstrdup(str_rtrim(nl + 1));
	}
	*etag = xstrdup(b.ptr);
	buf_release(&b);
}

static int meta_write(const char *meta, const struct response *r)
{
	char *dir = xstrdup(meta), *slash = strrchr(dir, '/');
	char *text = xasprintf("%s\n%s\n", r->etag ? r->etag : "",
			       r->last_modified ? r->last_modified : "");
	int error;

	*slash = '\0';
	if ((error = mkdir_p(dir, 0777)) == 0)
		error = file_write_atomic(meta, text, strlen(text));
	free(dir);
	free(text);
	return error;
}

static struct curl_slist *conditional_headers(const char *file, const char *meta)
{
	struct curl_slist *h = NULL;
	char *etag, *lm, *line;

	if (!path_exists(file))
		return NULL;
	meta_read(meta, &etag, &lm);
	if (etag && *etag) {
		line = xasprintf("If-None-Match: %s", etag);
		h = curl_slist_append(h, line);
		free(line);
	}
	if (lm && *lm) {
		line = xasprintf("If-Modified-Since: %s", lm);
		h = curl_slist_append(h, line);
		free(line);
	}
	free(etag);
	free(lm);
	return h;
}

static int http_status(long code, const char *name, const char *url)
{
	if (code == 404 || code == 410)
		return tide_error_set(TIDE_ENOTFOUND, "cannot fetch '%s' from '%s': HTTP %ld",
				      name, url, code);
	return tide_error_set(TIDE_ERROR, "cannot fetch '%s' from '%s': HTTP %ld",
			      name, url, code);
}

static int store_file(const char *file, const char *meta, const struct response *r)
{
	char *dir = xstrdup(file), *slash = strrchr(dir, '/');
	int error;

	*slash = '\0';
	if ((error = mkdir_p(dir, 0777)) == 0 &&
	    (error = file_write_atomic(file, buf_cstr(&r->body), r->body.len)) == 0)
		error = meta_write(meta, r);
	free(dir);
	return error;
}

/* GET dir/name into cachedir/name, conditionally when a copy is cached. */
static int http_get(struct quilt_stats *st, const char *dir, const char *name,
		    const char *cachedir, const struct quilt_opts *o)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct response r = { BUF_INIT, NULL, NULL };
	char *url = xasprintf("%s%s%s", dir, str_ends_with(dir, "/") ? "" : "/", name);
	char *file = path_join(cachedir, name);
	char *metaname = xasprintf(".meta/%s", name);
	char *meta = path_join(cachedir, metaname);
	struct curl_slist *hdrs = conditional_headers(file, meta);
	CURL *curl = curl_easy_init();
	CURLcode rc;
	long code = 0;
	int error;

	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, o->connect_timeout);
	curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, o->low_speed_time);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r);
	curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(curl, CURLOPT_HEADERDATA, &r);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "tide");
	if (o->cainfo)
		curl_easy_setopt(curl, CURLOPT_CAINFO, o->cainfo);
	st->requests++;
	rc = curl_easy_perform(curl);
	if (rc != CURLE_OK) {
		error = tide_error_set(rc == CURLE_OPERATION_TIMEDOUT ? TIDE_ETIMEOUT : TIDE_ERROR,
				       "cannot fetch '%s' from '%s': %s", name, url,
				       *errbuf ? errbuf : curl_easy_strerror(rc));
		goto done;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
	if (code == 304) {
		st->not_modified++;
		error = 0;
	} else if (code == 200) {
		st->downloaded++;
		error = store_file(file, meta, &r);
	} else {
		error = http_status(code, name, url);
	}
done:
	curl_easy_cleanup(curl);
	curl_slist_free_all(hdrs);
	buf_release(&r.body);
	free(r.etag);
	free(r.last_modified);
	free(url);
	free(file);
	free(metaname);
	free(meta);
	return error;
}

/* A local directory: copy files whose content changed into the cache. */
static int local_get(struct quilt_stats *st, const char *dir, const char *name,
		     const char *cachedir)
{
	struct response r = { BUF_INIT, NULL, NULL };
	struct buf old = BUF_INIT;
	char *src = path_join(dir, name), *file = path_join(cachedir, name);
	char *metaname = xasprintf(".meta/%s", name), *meta = path_join(cachedir, metaname);
	int error;

	if ((error = file_read(&r.body, src)) < 0) {
		error = tide_error_set(error, "cannot read '%s' from '%s': %s", name, dir,
				       error == TIDE_ENOTFOUND ? "no such file" : "I/O error");
		goto done;
	}
	if (file_read(&old, file) == 0 && old.len == r.body.len &&
	    !memcmp(buf_cstr(&old), buf_cstr(&r.body), old.len)) {
		st->not_modified++;
		goto done;
	}
	tide_error_clear();
	st->downloaded++;
	error = store_file(file, meta, &r);
done:
	buf_release(&r.body);
	buf_release(&old);
	free(src), free(file), free(metaname), free(meta);
	return error;
}

static int get_file(struct quilt_stats *st, const char *url, const char *name,
		    const char *cachedir, const struct quilt_opts *o)
{
	if (is_http(url))
		return http_get(st, url, name, cachedir, o);
	if (str_starts_with(url, "file://"))
		return local_get(st, url + 7, name, cachedir);
	return local_get(st, url, name, cachedir);
}

int quilt_fetch(struct quilt_series *out, struct quilt_stats *stats,
		const char *url, const char *cachedir, const struct quilt_opts *opts)
{
	struct quilt_opts defaults = QUILT_OPTS_INIT;
	struct quilt_stats ignored = { 0, 0, 0 };
	struct buf text = BUF_INIT;
	char *series = path_join(cachedir, "series");
	size_t i;
	int error;

	memset(out, 0, sizeof(*out));
	if (!opts)
		opts = &defaults;
	if (!stats)
		stats = &ignored;
	if ((error = mkdir_p(cachedir, 0777)) < 0 ||
	    (error = get_file(stats, url, "series", cachedir, opts)) < 0 ||
	    (error = file_read(&text, series)) < 0 ||
	    (error = quilt_series_parse(out, buf_cstr(&text))) < 0)
		goto done;
	for (i = 0; i < out->npatches; i++)
		if ((error = get_file(stats, url, out->patches[i], cachedir, opts)) < 0)
			goto done;
done:
	if (error < 0)
		quilt_series_release(out);
	buf_release(&text);
	free(series);
	return error;
}

/* quilt_opts' committer, at the author's time as git am would not, but stable. */
static int make_committer(git_signature **out, git_repository *repo, const git_oid *tip,
			  const struct patch *p, const struct quilt_opts *o)
{
	git_commit *parent = NULL;
	git_time_t when = (git_time_t)p->date;
	int tz = p->tz_minutes;

	*out = NULL;
	if (!o->committer_name && !o->committer_email)
		return 0;	/* apply_patch_commit: the author */
	/* Without a Date: header, the parent's time, as for the author. */
	if (!p->date) {
		if (git_commit_lookup(&parent, repo, tip) < 0)
			return tide_error_git(TIDE_ERROR, "cannot read the parent commit");
		when = git_commit_time(parent), tz = 0;
		git_commit_free(parent);
	}
	if (git_signature_new(out, o->committer_name ? o->committer_name : p->author_name ?
			      p->author_name : "Unknown", o->committer_email ? o->committer_email :
			      p->author_email ? p->author_email : "unknown@unknown", when, tz) < 0)
		return tide_error_git(TIDE_EINVAL, "bad committer");
	return 0;
}

/*
 * The line of text where the diff part starts, so messages name file
 * lines.  patch_parse() keeps the diff in memory of its own (it may have
 * decoded the body), so the diff's first line is looked up in the text;
 * 1 when it is not there verbatim.
 */
static size_t diff_lineno(const char *text, size_t len, const struct patch *p)
{
	const char *nl = memchr(p->diff, '\n', p->diff_len), *at, *s;
	size_t first = nl ? (size_t)(nl - p->diff) : p->diff_len, n = 1;

	if (!first || !(at = memmem(text, len, p->diff, first)))
		return 1;
	for (s = text; s < at; s++)
		n += *s == '\n';
	return n;
}

/* "patch 'x' does not apply to 'f': hunk ...", "patch 'x': line 3: ..." */
static int patch_failed(int error, const char *name)
{
	char *msg = xstrdup(tide_error_last());

	if (error == TIDE_ECONFLICT)
		tide_error_set(error, "patch '%s' %s", name, msg);
	else
		tide_error_set(error, "patch '%s': %s", name, msg);
	free(msg);
	return error;
}

/* Apply one cached patch on top of *tip, moving *tip to the new commit. */
static int apply_one(git_oid *tip, git_repository *repo, const char *cachedir,
		     const char *name, const struct quilt_patch_opts *po,
		     const struct quilt_opts *o)
{
	struct apply_opts aopts = APPLY_OPTS_INIT;
	struct buf text = BUF_INIT;
	struct patch p;
	git_signature *committer = NULL;
	char *file = path_join(cachedir, name);
	int error, parsed = 0;

	if ((error = file_read(&text, file)) < 0)
		goto done;
	if ((error = patch_parse(&p, text.ptr, text.len)) < 0) {
		error = tide_error_wrap(TIDE_EINVAL, "patch '%s'", name);
		goto done;
	}
	parsed = 1;
	aopts.strip = po->strip;
	aopts.reverse = po->reverse;
	aopts.fuzz = o->fuzz;
	aopts.lineno = diff_lineno(text.ptr, text.len, &p);
	if ((error = make_committer(&committer, repo, tip, &p, o)) < 0 ||
	    (error = apply_patch_commit(tip, repo, tip, &p, &aopts, committer, o->trailer,
					NULL)) < 0)
		error = patch_failed(error, name);
done:
	if (parsed)
		patch_release(&p);
	git_signature_free(committer);
	buf_release(&text);
	free(file);
	return error;
}

int quilt_apply(git_oid *out, git_repository *repo, const git_oid *base,
		const struct quilt_series *series, const char *cachedir,
		const struct quilt_opts *opts)
{
	static const struct quilt_patch_opts p1 = { 1, 0 };
	struct quilt_opts defaults = QUILT_OPTS_INIT;
	git_oid tip;
	size_t i;
	int error;

	if (!opts)
		opts = &defaults;
	git_oid_cpy(&tip, base);
	for (i = 0; i < series->npatches; i++)
		if ((error = apply_one(&tip, repo, cachedir, series->patches[i],
				       series->opts ? &series->opts[i] : &p1, opts)) < 0)
			return error;
	git_oid_cpy(out, &tip);
	return 0;
}

int quilt_prepare(git_oid *out, struct quilt_stats *stats, git_repository *repo,
		  const char *name, const char *url, const char *cachedir,
		  const git_oid *base, const struct quilt_opts *opts)
{
	struct quilt_series series;
	git_reference *ref = NULL;
	char *refname = xasprintf("refs/quilt/%s", name);
	int error;

	if ((error = quilt_fetch(&series, stats, url, cachedir, opts)) < 0) {
		tide_error_wrap(error, "quilt tree '%s'", name);
		goto done;
	}
	error = quilt_apply(out, repo, base, &series, cachedir, opts);
	quilt_series_release(&series);
	if (error < 0) {
		tide_error_wrap(error, "quilt tree '%s': series '%s%sseries'", name, url,
				str_ends_with(url, "/") ? "" : "/");
		goto done;
	}
	if (git_reference_create(&ref, repo, refname, out, 1, "tide: quilt series applied") < 0)
		error = tide_error_git(TIDE_ERROR, "cannot update '%s'", refname);
done:
	git_reference_free(ref);
	free(refname);
	return error;
}
