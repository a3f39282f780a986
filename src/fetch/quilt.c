#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>

#include <curl/curl.h>
#include <git2.h>
#include <openssl/evp.h>

#include "apply.h"
#include "error.h"
#include "patch.h"
#include "quilt.h"
#include "safefs.h"
#include "text.h"
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
	struct buf body;	/* local files only: HTTP bodies go to `out` */
	char *etag;
	char *last_modified;
	FILE *out;		/* the temporary file beside the destination */
	long long size, max;	/* bytes written so far, and the limit */
	int too_large, write_errno;
	EVP_MD_CTX *sha;	/* of the body, for the cache's record (meta_write()) */
};

/* SHA-256 of a body, as 64 hex digits and a NUL. */
static void sha_hex(char out[65], EVP_MD_CTX *ctx)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	if (!EVP_DigestFinal_ex(ctx, md, &n))
		abort();
	for (i = 0; i < n && i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static EVP_MD_CTX *sha_new(void)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	/* Like allocation failure (buf.h). */
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		abort();
	return ctx;
}

static void sha_of(char out[65], const void *data, size_t len)
{
	EVP_MD_CTX *ctx = sha_new();

	if (!EVP_DigestUpdate(ctx, data, len))
		abort();
	sha_hex(out, ctx);
	EVP_MD_CTX_free(ctx);
}

/*
 * A file of the cache: the directory holding it, opened below the cache
 * one component at a time (src/safefs.h: a link planted in the way is
 * replaced, never followed out of the workspace), and its name there.
 */
struct slot {
	int dirfd;
	const char *base;	/* in rel */
	char *rel, *shown;	/* the name below the cache; cachedir/rel, for messages */
};

static int slot_open(struct slot *s, const char *cachedir, const char *prefix, const char *name)
{
	int rootfd, error;

	s->dirfd = -1;
	s->rel = xasprintf("%s%s", prefix, name);
	s->shown = path_join(cachedir, s->rel);
	if ((error = mkdir_p(cachedir, 0777)) < 0)
		return error;
	if ((rootfd = open(cachedir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return tide_error_errno(TIDE_EIO, "cannot open '%s'", cachedir);
	error = safefs_open_parent(&s->dirfd, &s->base, rootfd, s->rel, 1, NULL);
	close(rootfd);
	return error;
}

static void slot_close(struct slot *s)
{
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->rel);
	free(s->shown);
	s->dirfd = -1;
	s->rel = s->shown = NULL;
}

static int slot_read(struct buf *out, const struct slot *s, size_t max)
{
	return safefs_read_at(out, s->dirfd, s->base, max, s->shown);
}

/* The temporary name a slot's new content is written under (one per process). */
static char *slot_tmp(void)
{
	return xasprintf(".tide-tmp.%ld", (long)getpid());
}

static int slot_open_tmp(const struct slot *s, const char *tmp)
{
	unlinkat(s->dirfd, tmp, 0);
	return openat(s->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

static int slot_commit_tmp(const struct slot *s, const char *tmp)
{
	if (renameat(s->dirfd, tmp, s->dirfd, s->base) < 0)
		return tide_error_errno(TIDE_EIO, "cannot replace '%s'", s->shown);
	return 0;
}

/*
 * The cache is tide's to rebuild: its files are renamed into place without
 * an fsync each, and quilt_fetch() syncs the file system once at the end.
 */
static int slot_write(const struct slot *s, const void *data, size_t len)
{
	char *tmp = slot_tmp();
	int fd = slot_open_tmp(s, tmp), error = 0;

	if (fd < 0 || fd_write_all(fd, data, len) < 0)
		error = tide_error_errno(TIDE_EIO, "cannot write '%s'", s->shown);
	if (fd >= 0 && close(fd) < 0 && !error)
		error = tide_error_errno(TIDE_EIO, "cannot write '%s'", s->shown);
	if (!error)
		error = slot_commit_tmp(s, tmp);
	if (error)
		unlinkat(s->dirfd, tmp, 0);
	free(tmp);
	return error;
}

static size_t on_body(char *data, size_t size, size_t n, void *payload)
{
	struct response *r = payload;
	size_t len = size * n;

	/*
	 * curl 7.88 stops at CURLOPT_MAXFILESIZE only when the length is
	 * announced; a chunked or close-delimited body is counted here.
	 */
	if ((long long)len > r->max - r->size) {
		r->too_large = 1;
		return 0;
	}
	if (fwrite(data, 1, len, r->out) != len) {
		r->write_errno = errno;
		return 0;
	}
	if (r->sha && !EVP_DigestUpdate(r->sha, data, len))
		abort();
	r->size += (long long)len;
	return len;
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

/* Validators are a few short lines; a bigger .meta file is not tide's. */
#define META_MAX 65536

/* Does the cached file still have the hash its .meta records? */
static int cached_copy_is(const struct slot *file, const char *hex, long long max)
{
	struct buf b = BUF_INIT;
	char have[65];
	int same = 0;

	if (slot_read(&b, file, (size_t)max) == 0) {
		sha_of(have, buf_cstr(&b), b.len);
		same = !strcmp(have, hex);
	}
	tide_error_clear();
	buf_release(&b);
	return same;
}

/*
 * The cached validators of file: "ETAG\nLAST-MODIFIED\nsha256 HEX\n".
 * None when the copy no longer has the hash recorded with them: written
 * without an fsync, a copy a crash cut short must be fetched again, not
 * answered 304 and applied.  Records without a hash (older tide, which
 * synced each file) are taken as they are.
 */
static void meta_read(const struct slot *meta, const struct slot *file, long long max,
		      char **etag, char **lm)
{
	struct buf b = BUF_INIT;
	char *nl, *hash;

	*etag = *lm = NULL;
	if (slot_read(&b, meta, META_MAX) < 0) {
		tide_error_clear();
		buf_release(&b);
		return;
	}
	if ((hash = strstr(b.ptr, "\nsha256 ")) != NULL) {
		*hash = '\0';
		hash += strlen("\nsha256 ");
		str_rtrim(hash);
		if (!cached_copy_is(file, hash, max)) {
			buf_release(&b);
			return;
		}
	}
	nl = strchr(b.ptr, '\n');
	if (nl) {
		*nl = '\0';
		*lm = xstrdup(str_rtrim(nl + 1));
	}
	*etag = xstrdup(b.ptr);
	buf_release(&b);
}

static int meta_write(const struct slot *meta, const struct response *r, const char *sha)
{
	char *text = xasprintf("%s\n%s\nsha256 %s\n", r->etag ? r->etag : "",
			       r->last_modified ? r->last_modified : "", sha);
	int error = slot_write(meta, text, strlen(text));

	free(text);
	return error;
}

static struct curl_slist *conditional_headers(const struct slot *file, const struct slot *meta,
					      long long max)
{
	struct curl_slist *h = NULL;
	char *etag, *lm, *line;
	struct stat st;

	if (fstatat(file->dirfd, file->base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return NULL;
	meta_read(meta, file, max, &etag, &lm);
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

static int store_file(const struct slot *file, const struct slot *meta, const struct response *r)
{
	char sha[65];
	int error;

	sha_of(sha, buf_cstr(&r->body), r->body.len);
	if ((error = slot_write(file, buf_cstr(&r->body), r->body.len)) == 0)
		error = meta_write(meta, r, sha);
	return error;
}

/* "256M" for 268435456: sizes as trees.conf(5) writes them. */
static char *size_str(long long n)
{
	if (n % (1LL << 30) == 0)
		return xasprintf("%lldG", n >> 30);
	if (n % (1LL << 20) == 0)
		return xasprintf("%lldM", n >> 20);
	if (n % (1LL << 10) == 0)
		return xasprintf("%lldK", n >> 10);
	return xasprintf("%lld", n);
}

/*
 * The time one transfer may take: its timeout=, cut short by the run's
 * fetch-deadline.  0 when the deadline has passed already.
 */
static long transfer_ms(const struct quilt_opts *o, int *by_deadline)
{
	double left;

	*by_deadline = 0;
	if (o->deadline <= 0)
		return o->timeout * 1000L;
	left = o->deadline - time_now();
	if (left <= 0)
		return 0;
	if (left * 1000 < (double)o->timeout * 1000) {
		*by_deadline = 1;
		return left * 1000 < 1 ? 1 : (long)(left * 1000);
	}
	return o->timeout * 1000L;
}

/* A failed transfer, said in trees.conf(5)'s terms where a limit stopped it. */
static int transfer_error(CURL *curl, CURLcode rc, const struct response *r, const char *errbuf,
			  const char *name, const char *url, const struct quilt_opts *o,
			  int by_deadline)
{
	char *size;
	double connect = 0;
	int error;

	if (r->too_large || rc == CURLE_FILESIZE_EXCEEDED) {
		size = size_str(o->max_size);
		error = tide_error_set(TIDE_ERROR, "'%s': larger than max-size %s", url, size);
		free(size);
		return error;
	}
	if (r->write_errno) {
		errno = r->write_errno;
		return tide_error_errno(TIDE_EIO, "cannot store '%s' from '%s'", name, url);
	}
	if (rc != CURLE_OPERATION_TIMEDOUT)
		return tide_error_set(TIDE_ERROR, "cannot fetch '%s' from '%s': %s", name, url,
				      *errbuf ? errbuf : curl_easy_strerror(rc));
	curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME, &connect);
	if (by_deadline)
		return tide_error_set(TIDE_ETIMEOUT, "'%s': fetch-deadline reached", url);
	if (str_starts_with(errbuf, "Operation too slow"))
		return tide_error_set(TIDE_ETIMEOUT, "'%s': no data for %ld s", url, o->low_speed_time);
	if (connect <= 0 && o->connect_timeout < o->timeout)
		return tide_error_set(TIDE_ETIMEOUT, "'%s': cannot connect within %ld s", url,
				      o->connect_timeout);
	return tide_error_set(TIDE_ETIMEOUT, "'%s': timed out after %ld s", url, o->timeout);
}

/*
 * The limits every transfer has: size, time, redirects, and only http(s)
 * even after a redirect (a server must not send curl to file:// or smb://).
 */
static int set_limits(CURL *curl, const struct quilt_opts *o, long ms)
{
	if (curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
	    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK)
		return tide_error_set(TIDE_ERROR, "%s", "libcurl cannot restrict protocols");
	curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(curl, CURLOPT_MAXREDIRS, QUILT_MAX_REDIRS);
	curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)o->max_size);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, o->connect_timeout);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, ms);
	curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, o->low_speed_time);
	return 0;
}

/* A temporary file beside the slot's, for the body; *tmp gets its name. */
static int open_temp(FILE **out, char **tmp, const struct slot *file)
{
	int fd;

	*out = NULL;
	*tmp = slot_tmp();
	if ((fd = slot_open_tmp(file, *tmp)) < 0 || !(*out = fdopen(fd, "wb"))) {
		if (fd >= 0)
			close(fd);
		free(*tmp);
		*tmp = NULL;
		return tide_error_errno(TIDE_EIO, "cannot create a file beside '%s'", file->shown);
	}
	return 0;
}

/* The body is complete: put it in place, then its validators (synced later, quilt_fetch()). */
static int commit_temp(struct response *r, const char *tmp, const struct slot *file,
		       const struct slot *meta)
{
	FILE *f = r->out;
	char sha[65];
	int error;

	r->out = NULL;
	if (fflush(f) != 0) {
		fclose(f);
		return tide_error_errno(TIDE_EIO, "cannot write '%s'", file->shown);
	}
	if (fclose(f) != 0)
		return tide_error_errno(TIDE_EIO, "cannot write '%s'", file->shown);
	if ((error = slot_commit_tmp(file, tmp)) < 0)
		return error;
	sha_hex(sha, r->sha);
	return meta_write(meta, r, sha);
}

static void setup_transfer(CURL *curl, const char *url, char *errbuf, struct response *r,
			   struct curl_slist *hdrs, const struct quilt_opts *o)
{
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(curl, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "tide");
	if (o->cainfo)
		curl_easy_setopt(curl, CURLOPT_CAINFO, o->cainfo);
}

/*
 * GET dir/name into cachedir/name, conditionally when a copy is cached.
 * The body streams into a temporary file that replaces the copy only
 * when the whole transfer succeeded: a failed, oversized or slow
 * transfer leaves the previous copy and its ETag as they were.
 */
static int http_get(struct quilt_stats *st, const char *dir, const char *name,
		    const char *cachedir, const struct quilt_opts *o)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct response r = { BUF_INIT, NULL, NULL, NULL, 0, o->max_size, 0, 0, sha_new() };
	char *url = xasprintf("%s%s%s", dir, str_ends_with(dir, "/") ? "" : "/", name);
	char *shown = url_redact(url);	/* what messages name: no password */
	char *tmp = NULL;
	struct slot file, meta;
	struct curl_slist *hdrs = NULL;
	CURL *curl = curl_easy_init();
	CURLcode rc;
	long code = 0, ms;
	int error, by_deadline;

	meta.dirfd = -1, meta.rel = meta.shown = NULL;
	if ((error = slot_open(&file, cachedir, "", name)) < 0 ||
	    (error = slot_open(&meta, cachedir, ".meta/", name)) < 0)
		goto done;
	hdrs = conditional_headers(&file, &meta, o->max_size);
	if (!(ms = transfer_ms(o, &by_deadline))) {
		error = tide_error_set(TIDE_ETIMEOUT, "'%s': fetch-deadline reached", shown);
		goto done;
	}
	if ((error = set_limits(curl, o, ms)) < 0 || (error = open_temp(&r.out, &tmp, &file)) < 0)
		goto done;
	setup_transfer(curl, url, errbuf, &r, hdrs, o);
	st->requests++;
	rc = curl_easy_perform(curl);
	if (rc != CURLE_OK) {
		error = transfer_error(curl, rc, &r, errbuf, name, shown, o, by_deadline);
		goto done;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
	if (code == 304) {
		st->not_modified++;
		error = 0;
	} else if (code == 200) {
		st->downloaded++;
		error = commit_temp(&r, tmp, &file, &meta);
	} else {
		error = http_status(code, name, shown);
	}
done:
	if (r.out)
		fclose(r.out);
	if (tmp)
		unlinkat(file.dirfd, tmp, 0);	/* after a rename, nothing is there any more */
	curl_easy_cleanup(curl);
	curl_slist_free_all(hdrs);
	EVP_MD_CTX_free(r.sha);
	free(r.etag);
	free(r.last_modified);
	slot_close(&file);
	slot_close(&meta);
	free(url), free(shown), free(tmp);
	return error;
}

/*
 * A local directory: copy files whose content changed into the cache.
 * The directory is the integrator's (links in it are followed), but what
 * a series names there must be a regular file within max-size.
 */
static int local_get(struct quilt_stats *st, const char *dir, const char *name,
		     const char *cachedir, const struct quilt_opts *o)
{
	struct response r = { BUF_INIT, NULL, NULL, NULL, 0, 0, 0, 0, NULL };
	struct buf old = BUF_INIT;
	char *src = path_join(dir, name);
	struct slot file, meta;
	int error;

	meta.dirfd = -1, meta.rel = meta.shown = NULL;
	if ((error = slot_open(&file, cachedir, "", name)) < 0 ||
	    (error = slot_open(&meta, cachedir, ".meta/", name)) < 0)
		goto done;
	if ((error = safefs_read_regular(&r.body, src, (size_t)o->max_size)) < 0) {
		if (error == TIDE_EINVAL)	/* the file's own refusal says which and why */
			tide_error_wrap(error, "cannot read '%s' from '%s'", name, dir);
		else
			tide_error_set(error, "cannot read '%s' from '%s': %s", name, dir,
				       error == TIDE_ENOTFOUND ? "no such file" : "I/O error");
		goto done;
	}
	if (slot_read(&old, &file, (size_t)o->max_size) == 0 && old.len == r.body.len &&
	    !memcmp(buf_cstr(&old), buf_cstr(&r.body), old.len)) {
		st->not_modified++;
		goto done;
	}
	tide_error_clear();
	st->downloaded++;
	error = store_file(&file, &meta, &r);
done:
	buf_release(&r.body);
	buf_release(&old);
	slot_close(&file);
	slot_close(&meta);
	free(src);
	return error;
}

static int get_file(struct quilt_stats *st, const char *url, const char *name,
		    const char *cachedir, const struct quilt_opts *o)
{
	if (is_http(url))
		return http_get(st, url, name, cachedir, o);
	if (str_starts_with(url, "file://"))
		return local_get(st, url + 7, name, cachedir, o);
	return local_get(st, url, name, cachedir, o);
}

/* The time budget of the whole series (series-timeout=), checked between files. */
static int series_time_left(const struct quilt_opts *o, const char *doing, size_t done,
			    size_t total)
{
	if (o->series_deadline <= 0 || time_now() < o->series_deadline)
		return 0;
	return tide_error_set(TIDE_ETIMEOUT, "series-timeout of %ld s reached %s patch %zu of %zu",
			      o->series_timeout, doing, done + 1, total);
}

/* One sync of the cache's file system for all the files written without one. */
static int cache_sync(const char *cachedir)
{
	int fd = open(cachedir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), error = 0;

	if (fd < 0 || syncfs(fd) < 0)
		error = tide_error_errno(TIDE_EIO, "cannot sync '%s'", cachedir);
	if (fd >= 0)
		close(fd);
	return error;
}

int quilt_fetch(struct quilt_series *out, struct quilt_stats *stats,
		const char *url, const char *cachedir, const struct quilt_opts *opts)
{
	struct quilt_opts defaults = QUILT_OPTS_INIT;
	struct quilt_stats ignored = { 0 };
	struct buf text = BUF_INIT;
	struct slot series = { -1, NULL, NULL, NULL };
	size_t i;
	int error;

	memset(out, 0, sizeof(*out));
	if (!opts)
		opts = &defaults;
	if (!stats)
		stats = &ignored;
	if ((error = mkdir_p(cachedir, 0777)) < 0 ||
	    (error = get_file(stats, url, "series", cachedir, opts)) < 0 ||
	    (error = slot_open(&series, cachedir, "", "series")) < 0 ||
	    (error = slot_read(&text, &series, (size_t)opts->max_size)) < 0 ||
	    (error = quilt_series_parse(out, buf_cstr(&text))) < 0)
		goto done;
	if (opts->max_patches > 0 && out->npatches > (size_t)opts->max_patches) {
		error = tide_error_set(TIDE_EINVAL, "series of %zu patches, more than max-patches %ld",
				       out->npatches, opts->max_patches);
		goto done;
	}
	for (i = 0; i < out->npatches; i++)
		if ((error = series_time_left(opts, "fetching", i, out->npatches)) < 0 ||
		    (error = get_file(stats, url, out->patches[i], cachedir, opts)) < 0)
			goto done;
	if ((error = cache_sync(cachedir)) < 0)
		goto done;
	stats->fetched = 1;
done:
	if (error < 0)
		quilt_series_release(out);
	buf_release(&text);
	slot_close(&series);
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

	/* The cache (or DIR/fixups) is the workspace's: no link, FIFO or device there is read. */
	if ((error = safefs_read_file(&text, file, (size_t)o->max_size)) < 0)
		goto done;
	if ((error = patch_parse(&p, text.ptr, text.len)) < 0) {
		error = tide_error_wrap(TIDE_EINVAL, "patch '%s'", name);
		goto done;
	}
	parsed = 1;
	aopts.strip = po->strip;
	aopts.reverse = po->reverse;
	aopts.fuzz = o->fuzz;
	aopts.lineno = patch_diff_lineno(&p, text.ptr, text.len);
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
		if ((error = series_time_left(opts, "applying", i, series->npatches)) < 0 ||
		    (error = apply_one(&tip, repo, cachedir, series->patches[i],
				       series->opts ? &series->opts[i] : &p1, opts)) < 0)
			return error;
	git_oid_cpy(out, &tip);
	return 0;
}

int quilt_prepare(git_oid *out, struct quilt_stats *stats, git_repository *repo,
		  const char *name, const char *url, const char *cachedir,
		  const git_oid *base, const struct quilt_opts *opts)
{
	struct quilt_opts o = QUILT_OPTS_INIT;
	struct quilt_series series;
	git_reference *ref = NULL;
	char *refname = xasprintf("refs/quilt/%s", name);
	int error;

	if (opts)
		o = *opts;
	opts = &o;
	if (o.series_timeout > 0)
		o.series_deadline = time_now() + (double)o.series_timeout;
	if ((error = quilt_fetch(&series, stats, url, cachedir, opts)) < 0) {
		tide_error_wrap(error, "quilt tree '%s'", name);
		goto done;
	}
	error = quilt_apply(out, repo, base, &series, cachedir, opts);
	quilt_series_release(&series);
	if (error < 0) {
		char *shown = url_redact(url);

		tide_error_wrap(error, "quilt tree '%s': series '%s%sseries'", name, shown,
				str_ends_with(url, "/") ? "" : "/");
		free(shown);
		goto done;
	}
	if (git_reference_create(&ref, repo, refname, out, 1, "tide: quilt series applied") < 0)
		error = tide_error_git(TIDE_ERROR, "cannot update '%s'", refname);
done:
	git_reference_free(ref);
	free(refname);
	return error;
}
