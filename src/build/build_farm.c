/*
 * Builds on several machines: the workspace's settings for a shared
 * ccache (remote_storage) and for distcc, and what ccache's stats log and
 * distcc's client log say about one build (src/build.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "error.h"
#include "settings.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

#define DISTCC_DEFAULT_PORT 3632
#define DISTCC_MAX_LIMIT 1000
#define DISTCC_MAX_JOBS 1024

/* ---- checking the settings ---- */

static int is_host_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '.' || c == '_';
}

/*
 * A host name or IPv4 address at *p, then an optional ":PORT"; *p moves
 * past them.  0, or -1 with *why.
 */
static int parse_host_port(const char **p, const char **why)
{
	const char *s = *p;
	long port;
	char *end;

	while (is_host_char(*s))
		s++;
	if (s == *p || **p == '-' || **p == '.') {
		*why = **p == '[' ? "IPv6 addresses are not supported; use a host name"
				  : "no host name";
		return -1;
	}
	if (*s == ':') {
		if (!isdigit((unsigned char)s[1])) {
			*why = "the port is not a number";
			return -1;
		}
		port = strtol(s + 1, &end, 10);
		if (port < 1 || port > 65535) {
			*why = "the port is not in 1-65535";
			return -1;
		}
		s = end;
	}
	*p = s;
	return 0;
}

/* "|key=value..." after a remote storage URL: ccache's attributes. */
static int check_attributes(const char *p, const char **why)
{
	while (*p == '|') {
		const char *k = ++p;

		while ((*p >= 'a' && *p <= 'z') || *p == '-')
			p++;
		if (p == k || *p != '=' || !p[1] || p[1] == '|') {
			*why = "an attribute is not '|name=value'";
			return -1;
		}
		while (*p && *p != '|')
			p++;
	}
	if (*p) {
		*why = "unexpected text after the host";
		return -1;
	}
	return 0;
}

int build_cache_url_check(const char *url, const char **why)
{
	const char *p, *at, *end;
	int redis;

	if (strpbrk(url, " \t")) {
		*why = "one URL, without blanks";
		return -1;
	}
	if (str_starts_with(url, "https://")) {
		*why = "ccache 4.7 cannot use TLS: use http:// or redis://";
		return -1;
	}
	redis = str_starts_with(url, "redis://");
	if (!redis && !str_starts_with(url, "http://")) {
		*why = "the scheme must be redis:// or http://";
		return -1;
	}
	p = url + (redis ? 8 : 7);
	/* [user:]password@ goes to ccache as it is; tide only shows it redacted. */
	end = p + strcspn(p, "/|");
	if ((at = memchr(p, '@', (size_t)(end - p))))
		p = at + 1;
	if (parse_host_port(&p, why) < 0)
		return -1;
	if (*p == '/' && redis) {
		if (!isdigit((unsigned char)p[1])) {
			*why = "a redis database is a number (redis://HOST:PORT/DB)";
			return -1;
		}
		for (p++; isdigit((unsigned char)*p); p++)
			;
	} else if (*p == '/') {
		p += strcspn(p, "|");
	}
	return check_attributes(p, why);
}

/* HOST[:PORT][/LIMIT][,lzo]: one TCP host of DISTCC_HOSTS. */
static int check_tcp_host(const char *tok, int *slots, const char **why)
{
	const char *p = tok;
	long limit = 4;
	char *end;

	if (strchr(tok, '@')) {
		*why = "ssh hosts (USER@HOST) are not supported: run distccd on the host";
		return -1;
	}
	if (str_starts_with(tok, "localhost:")) {
		*why = "'localhost' means this machine without a daemon: "
		       "use 127.0.0.1:PORT for a distccd here";
		return -1;
	}
	if (parse_host_port(&p, why) < 0)
		return -1;
	if (*p == '/') {
		limit = strtol(p + 1, &end, 10);
		if (!isdigit((unsigned char)p[1]) || limit < 1 || limit > DISTCC_MAX_LIMIT) {
			*why = "a host's /LIMIT is not in 1-1000";
			return -1;
		}
		p = end;
	}
	while (*p == ',') {
		if (str_starts_with(p, ",lzo") && (p[4] == ',' || !p[4])) {
			p += 4;
		} else if (str_starts_with(p, ",cpp")) {
			*why = "pump mode (,cpp) does not work for kernel builds";
			return -1;
		} else {
			*why = "the only host option is ,lzo";
			return -1;
		}
	}
	if (*p) {
		*why = "not HOST[:PORT][/LIMIT][,lzo]";
		return -1;
	}
	*slots += (int)limit;
	return 1;
}

static int check_local_token(const char *tok, int *slots, const char **why)
{
	const char *n = NULL;
	long v;
	char *end;

	if (!strcmp(tok, "--randomize"))
		return 0;
	if (str_starts_with(tok, "--localslots="))
		n = tok + 13;
	else if (str_starts_with(tok, "--localslots_cpp="))
		n = tok + 17;
	else if (str_starts_with(tok, "localhost/"))
		n = tok + 10;
	if (!n) {
		if (strcmp(tok, "localhost"))
			return 1;	/* not local: a TCP host */
		*slots += 2;
		return 0;
	}
	v = strtol(n, &end, 10);
	if (!isdigit((unsigned char)*n) || *end || v < 1 || v > DISTCC_MAX_LIMIT) {
		*why = "a slot count is not in 1-1000";
		return -1;
	}
	if (str_starts_with(tok, "localhost/"))
		*slots += (int)v;
	return 0;
}

int build_distcc_hosts_check(const char *hosts, int *slots_out, const char **why)
{
	char *copy = xstrdup(hosts), *save = NULL, *tok;
	int slots = 0, tcp = 0, rc = 0;

	for (tok = strtok_r(copy, " \t", &save); tok && rc >= 0;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (!strcmp(tok, "+zeroconf")) {
			*why = "+zeroconf is not supported: list the hosts";
			rc = -1;
		} else if ((rc = check_local_token(tok, &slots, why)) == 1) {
			rc = check_tcp_host(tok, &slots, why);
			tcp += rc > 0;
		}
	}
	free(copy);
	if (rc >= 0 && !tcp) {
		*why = "no build host (HOST[:PORT][/LIMIT][,lzo])";
		rc = -1;
	}
	if (rc < 0)
		return -1;
	if (slots_out)
		*slots_out = slots;
	return 0;
}

static int farm_bad(const struct settings *s, const char *path, const char *key,
		    const char *value, const char *why)
{
	char *shown = url_redact(value);
	size_t line = settings_line_of(s, key);
	int error;

	if (line)
		error = tide_error_set(TIDE_EINVAL, "%s:%zu: %s '%s': %s", path, line, key,
				       shown, why);
	else
		error = tide_error_set(TIDE_EINVAL, "%s: %s '%s': %s", path, key, shown, why);
	free(shown);
	return error;
}

static int farm_check(struct build_farm *f, const struct settings *s, const char *path)
{
	const char *cache = settings_get(s, "cache");
	const char *hosts = settings_get(s, "distcc-hosts");
	const char *jobs = settings_get(s, "distcc-jobs");
	const char *why = NULL;
	char *end;
	long n;

	if (cache && *cache) {
		if (build_cache_url_check(cache, &why) < 0)
			return farm_bad(s, path, "cache", cache, why);
		f->cache = xstrdup(cache);
	}
	if (hosts && *hosts) {
		if (build_distcc_hosts_check(hosts, &f->distcc_slots, &why) < 0)
			return farm_bad(s, path, "distcc-hosts", hosts, why);
		f->distcc_hosts = xstrdup(hosts);
	}
	if (jobs) {
		n = strtol(jobs, &end, 10);
		if (!isdigit((unsigned char)*jobs) || *end || n < 1 || n > DISTCC_MAX_JOBS)
			return farm_bad(s, path, "distcc-jobs", jobs, "not a number in 1-1024");
		if (!f->distcc_hosts)
			return farm_bad(s, path, "distcc-jobs", jobs, "set without distcc-hosts");
		f->distcc_jobs = (int)n;
	}
	return 0;
}

int build_farm_load(struct build_farm *out, const char *wsdir)
{
	char *path = workspace_config(wsdir);
	struct settings *s = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = settings_load(&s, path)) == 0 && (error = farm_check(out, s, path)) < 0)
		build_farm_release(out);
	settings_free(s);
	free(path);
	return error;
}

int build_farm_check(const char *wsdir)
{
	struct build_farm farm;
	int error = build_farm_load(&farm, wsdir);

	build_farm_release(&farm);
	return error;
}

void build_farm_release(struct build_farm *farm)
{
	free(farm->cache);
	free(farm->distcc_hosts);
	memset(farm, 0, sizeof(*farm));
}

/* ---- reading the logs back ---- */

/* Call fn for each line of text (without its newline, NUL-terminated copy). */
static void each_line(const char *text, size_t len, void (*fn)(const char *, void *), void *data)
{
	const char *p = text, *end = text + len;
	struct buf line = BUF_INIT;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		buf_clear(&line);
		buf_put(&line, p, n);
		fn(buf_cstr(&line), data);
		p += n + 1;
	}
	buf_release(&line);
}

struct stats_parse {
	struct build_cache_stats *st;
	int open;		/* inside a record */
	int cacheable;		/* the record was a hit or a miss */
};

static void stats_end_record(struct stats_parse *sp)
{
	if (sp->open && !sp->cacheable)
		sp->st->uncacheable++;
	sp->open = sp->cacheable = 0;
}

static void stats_line(const char *line, void *data)
{
	struct stats_parse *sp = data;
	struct build_cache_stats *st = sp->st;

	/* Each ccache run writes "# <input file>" and then its counters. */
	if (line[0] == '#') {
		stats_end_record(sp);
		sp->open = 1;
		st->calls++;
		return;
	}
	if (!line[0])
		return;
	if (!sp->open) {
		sp->open = 1;
		st->calls++;
	}
	if (!strcmp(line, "local_storage_hit"))
		st->local_hits++;
	else if (!strcmp(line, "remote_storage_hit"))
		st->remote_hits++;
	else if (!strcmp(line, "remote_storage_error") || !strcmp(line, "remote_storage_timeout"))
		st->remote_errors++;
	if (!strcmp(line, "cache_miss"))
		st->misses++;
	if (!strcmp(line, "cache_miss") || !strcmp(line, "direct_cache_hit") ||
	    !strcmp(line, "preprocessed_cache_hit"))
		sp->cacheable = 1;
}

void build_cache_stats_parse(struct build_cache_stats *out, const char *text, size_t len)
{
	struct stats_parse sp = { .st = out };

	memset(out, 0, sizeof(*out));
	each_line(text, len, stats_line, &sp);
	stats_end_record(&sp);
}

/* "127.0.0.1:3632/4,lzo" -> "127.0.0.1:3632" */
static char *distcc_host_name(const char *s, size_t n)
{
	size_t cut = 0;

	while (cut < n && s[cut] != '/' && s[cut] != ',')
		cut++;
	if (memchr(s, ':', cut))
		return xstrndup(s, cut);
	return xasprintf("%.*s:%d", (int)cut, s, DISTCC_DEFAULT_PORT);
}

static struct build_distcc_host *distcc_host(struct build_distcc_stats *st, const char *s,
					     size_t n)
{
	char *name = distcc_host_name(s, n);
	struct build_distcc_host *h;
	size_t i;

	for (i = 0; i < st->nhosts; i++)
		if (!strcmp(st->hosts[i].host, name)) {
			free(name);
			return &st->hosts[i];
		}
	array_grow(&st->hosts, &st->ahosts, st->nhosts + 1, sizeof(*st->hosts));
	h = &st->hosts[st->nhosts++];
	h->host = name;
	h->compiles = h->failures = 0;
	return h;
}

/* The text between the last " on " and " completed ok" of a compile line. */
static void distcc_completed(struct build_distcc_stats *st, const char *msg)
{
	const char *end = msg + strlen(msg) - strlen(" completed ok"), *on = NULL, *p;

	for (p = msg; (p = strstr(p, " on ")) && p < end; p++)
		on = p;
	if (!on || on + 4 >= end)
		return;
	/* A compiler run with no source (Kbuild's option tests) is no compile. */
	if (on - msg == 14 && !strncmp(msg, "compile (null)", 14))
		return;
	on += 4;
	if ((size_t)(end - on) == 9 && !strncmp(on, "localhost", 9)) {
		st->local++;
		return;
	}
	st->remote++;
	distcc_host(st, on, (size_t)(end - on))->compiles++;
}

/* "Warning: failed to distribute FILE to HOST, running locally instead" */
static void distcc_fallback(struct build_distcc_stats *st, const char *msg)
{
	const char *tail = strstr(msg, ", running locally instead"), *to = NULL, *p;
	const char *file = strstr(msg, "failed to distribute ");

	st->fallbacks++;
	/* Without a file and host: distcc had already given up on the hosts. */
	if (!tail || !file || file + 21 >= tail)
		return;
	for (p = file + 21; (p = strstr(p, " to ")) && p < tail; p++)
		to = p;
	if (to && to + 4 < tail)
		distcc_host(st, to + 4, (size_t)(tail - to - 4))->failures++;
}

static void distcc_line(const char *line, void *data)
{
	struct build_distcc_stats *st = data;
	const char *msg, *t;
	double secs;

	/* distcc[PID] message */
	if (!str_starts_with(line, "distcc[") || !(msg = strstr(line, "] ")))
		return;
	msg += 2;
	if (str_starts_with(msg, "compile ") && str_ends_with(msg, " completed ok"))
		distcc_completed(st, msg);
	else if (strstr(msg, "failed to distribute") || strstr(msg, "retrying locally"))
		distcc_fallback(st, msg);
	else if ((t = strstr(msg, "elapsed compilation time ")) &&
		 sscanf(t, "elapsed compilation time %lfs", &secs) == 1 && secs >= 0 && secs < 1e6)
		st->seconds += secs;
}

void build_distcc_stats_parse(struct build_distcc_stats *out, const char *text, size_t len)
{
	memset(out, 0, sizeof(*out));
	each_line(text, len, distcc_line, out);
}

void build_distcc_stats_release(struct build_distcc_stats *st)
{
	size_t i;

	for (i = 0; i < st->nhosts; i++)
		free(st->hosts[i].host);
	free(st->hosts);
	memset(st, 0, sizeof(*st));
}

/* ---- the record ---- */

json_t *build_distcc_json(const struct build_result *res)
{
	const struct build_distcc_stats *st = &res->distcc;
	json_t *o = json_object(), *hosts = json_array();
	size_t i;

	for (i = 0; i < st->nhosts; i++)
		json_array_append_new(hosts, json_pack("{s:o, s:I, s:I}",
			"host", json_text(st->hosts[i].host),
			"compiles", (json_int_t)st->hosts[i].compiles,
			"failures", (json_int_t)st->hosts[i].failures));
	json_object_set_new(o, "setting", json_text(res->distcc_hosts));
	json_object_set_new(o, "remote", json_integer(st->remote));
	json_object_set_new(o, "local", json_integer(st->local));
	json_object_set_new(o, "fallbacks", json_integer(st->fallbacks));
	json_object_set_new(o, "fell_back", json_boolean(!st->remote && st->fallbacks));
	json_object_set_new(o, "seconds", json_real(st->seconds));
	json_object_set_new(o, "hosts", hosts);
	return o;
}

json_t *build_cache_stats_json(const struct build_cache_stats *st)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}",
			 "calls", (json_int_t)st->calls,
			 "local_hits", (json_int_t)st->local_hits,
			 "remote_hits", (json_int_t)st->remote_hits,
			 "misses", (json_int_t)st->misses,
			 "uncacheable", (json_int_t)st->uncacheable,
			 "remote_errors", (json_int_t)st->remote_errors);
}
