#include <string.h>

#include "t.h"
#include "t_files.h"
#include "build.h"
#include "dayrec.h"
#include "error.h"
#include "settings.h"

TEST(build_farm__cache_urls)
{
	static const char *const good[] = {
		"redis://127.0.0.1:6379", "redis://cache", "redis://:pw@cache.example.org/2",
		"redis://user:pw@h:1/0|connect-timeout=200", "http://h:8080/ccache",
		"http://h/|read-only=true|operation-timeout=5000", "redis://h_1.local",
	};
	static const struct { const char *url, *why; } bad[] = {
		{ "https://h/c", "ccache 4.7 cannot use TLS: use http:// or redis://" },
		{ "file:///srv/ccache", "the scheme must be redis:// or http://" },
		{ "redis://", "no host name" },
		{ "redis://-h", "no host name" },
		{ "redis://[::1]:6379", "IPv6 addresses are not supported; use a host name" },
		{ "redis://h:0", "the port is not in 1-65535" },
		{ "redis://h:65536", "the port is not in 1-65535" },
		{ "redis://h:x", "the port is not a number" },
		{ "redis://h/db", "a redis database is a number (redis://HOST:PORT/DB)" },
		{ "redis://h?x", "unexpected text after the host" },
		{ "redis://h|=1", "an attribute is not '|name=value'" },
		{ "redis://h|read-only", "an attribute is not '|name=value'" },
		{ "redis://h http://g", "one URL, without blanks" },
	};
	const char *why;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		why = NULL;
		CHECK_INT(build_cache_url_check(good[i], &why), 0);
		if (why)
			fprintf(stderr, "  %s: %s\n", good[i], why);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why = NULL;
		CHECK_INT(build_cache_url_check(bad[i].url, &why), -1);
		CHECK_STR(why, bad[i].why);
	}
}

TEST(build_farm__distcc_hosts_and_their_slots)
{
	static const struct { const char *hosts; int slots; } good[] = {
		{ "h1", 4 },
		{ "127.0.0.1:3632/2,lzo", 2 },
		{ "--randomize localhost/1 h1:3632/8,lzo h2 10.0.0.3/4", 17 },
		{ "localhost h1", 6 },
		{ "--localslots=4 --localslots_cpp=8 h1/3", 3 },
	};
	static const struct { const char *hosts, *why; } bad[] = {
		{ "", "no build host (HOST[:PORT][/LIMIT][,lzo])" },
		{ "localhost/2", "no build host (HOST[:PORT][/LIMIT][,lzo])" },
		{ "me@h1", "ssh hosts (USER@HOST) are not supported: run distccd on the host" },
		{ "localhost:3632", "'localhost' means this machine without a daemon: "
				    "use 127.0.0.1:PORT for a distccd here" },
		{ "h1,cpp", "pump mode (,cpp) does not work for kernel builds" },
		{ "h1,auth", "the only host option is ,lzo" },
		{ "h1,lzox", "the only host option is ,lzo" },
		{ "h1/0", "a host's /LIMIT is not in 1-1000" },
		{ "h1/1001", "a host's /LIMIT is not in 1-1000" },
		{ "h1:99999", "the port is not in 1-65535" },
		{ "h1/2:3632", "not HOST[:PORT][/LIMIT][,lzo]" },
		{ "+zeroconf", "+zeroconf is not supported: list the hosts" },
		{ "--localslots=0 h1", "a slot count is not in 1-1000" },
	};
	const char *why;
	size_t i;
	int slots;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		slots = -1;
		CHECK_INT(build_distcc_hosts_check(good[i].hosts, &slots, &why), 0);
		CHECK_INT(slots, good[i].slots);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why = NULL;
		CHECK_INT(build_distcc_hosts_check(bad[i].hosts, &slots, &why), -1);
		CHECK_STR(why, bad[i].why);
	}
}

static char *write_config(const char *dir, const char *text)
{
	char *path = path_join(dir, "config");

	if (file_write_atomic(path, text, strlen(text)) < 0)
		abort();
	return path;
}

TEST(build_farm__load_checks_values_and_names_the_line)
{
	char *dir = t_tmpdir("farm"), *path, *want;
	struct build_farm f;

	path = write_config(dir, "# site\ncache = redis://:s3cret@h:6379\n"
			    "distcc-hosts = h1/8 h2/8\ndistcc-jobs = 20\n");
	REQUIRE(build_farm_load(&f, dir) == 0);
	CHECK_STR(f.cache, "redis://:s3cret@h:6379");
	CHECK_STR(f.distcc_hosts, "h1/8 h2/8");
	CHECK_INT(f.distcc_jobs, 20);
	CHECK_INT(f.distcc_slots, 16);
	build_farm_release(&f);
	free(path);

	path = write_config(dir, "trees = x\n\ncache = redis://:s3cret@h:0\n");
	CHECK_INT(build_farm_load(&f, dir), TIDE_EINVAL);
	want = xasprintf("%s:3: cache 'redis://:***@h:0': the port is not in 1-65535", path);
	CHECK_STR(tide_error_last(), want);
	CHECK(f.cache == NULL);
	free(want);
	free(path);

	path = write_config(dir, "distcc-jobs = 4\n");
	CHECK_INT(build_farm_check(dir), TIDE_EINVAL);
	want = xasprintf("%s:1: distcc-jobs '4': set without distcc-hosts", path);
	CHECK_STR(tide_error_last(), want);
	free(want);
	free(path);

	rm_rf(dir);
	path = path_join(dir, "config");
	REQUIRE(build_farm_load(&f, dir) == 0);	/* no file: nothing set */
	CHECK(!f.cache && !f.distcc_hosts && !f.distcc_jobs);
	free(path);
	free(dir);
}

/* ccache 4.7.5's stats log of four runs: a miss, a remote hit, a link, a local hit. */
static const char stats_log[] =
	"# a.c\ncache_miss\ndirect_cache_miss\nlocal_storage_miss\nlocal_storage_read_miss\n"
	"preprocessed_cache_miss\nremote_storage_miss\nremote_storage_read_miss\n"
	"remote_storage_write\n"
	"# b.c\ndirect_cache_hit\nlocal_storage_miss\nlocal_storage_read_miss\n"
	"local_storage_write\nremote_storage_hit\nremote_storage_read_hit\n"
	"# \ncalled_for_link\n"
	"# c.c\ndirect_cache_hit\nlocal_storage_hit\nlocal_storage_read_hit\n"
	"# d.c\ncache_miss\nremote_storage_error\n";

TEST(build_farm__cache_stats_log)
{
	struct build_cache_stats st;

	build_cache_stats_parse(&st, stats_log, strlen(stats_log));
	CHECK_INT(st.calls, 5);
	CHECK_INT(st.local_hits, 1);
	CHECK_INT(st.remote_hits, 1);
	CHECK_INT(st.misses, 2);
	CHECK_INT(st.uncacheable, 1);
	CHECK_INT(st.remote_errors, 1);
	/* Counters without a header still count as one run; a cut log is fine. */
	build_cache_stats_parse(&st, "cache_miss\n# x", 14);
	CHECK_INT(st.calls, 2);
	CHECK_INT(st.misses, 1);
	CHECK_INT(st.uncacheable, 1);
	build_cache_stats_parse(&st, "", 0);
	CHECK_INT(st.calls, 0);
}

/* distcc 3.4's client log (DISTCC_LOG, not verbose), lines as it writes them. */
static const char distcc_log[] =
	"distcc[10] compile from a.c to a.o\n"
	"distcc[10] exec on 127.0.0.1:3700/2,lzo: /usr/bin/gcc -c ../src/a.c -o a.o\n"
	"distcc[10] (dcc_collect_child) cpp times: user 0.250000s, system 0.050000s, 0 minflt\n"
	"distcc[10] compile ../src/a.c on 127.0.0.1:3700/2,lzo completed ok\n"
	"distcc[10] elapsed compilation time 0.300000s\n"
	"distcc[11] compile ../src/on x.c on h2 completed ok\n"
	"distcc[12] ERROR: nonblocking connect to 127.0.0.1:3701 failed: Connection refused\n"
	"distcc[12] Warning: failed to distribute ../src/b.c to 127.0.0.1:3701, running locally instead\n"
	"distcc[12] compile ../src/b.c on localhost completed ok\n"
	"distcc[13] (dcc_build_somewhere) Warning: failed to distribute, running locally instead\n"
	"distcc[13] compile ../src/c.c on localhost completed ok\n"
	"distcc[14] Warning: remote compilation of '../src/d.c' failed, retrying locally\n"
	"distcc[14] compile ../src/d.c on localhost completed ok\n"
	"gcc: some other line on localhost completed ok\n"
	"distcc[15] compile x on  completed ok\n"
	"distcc[16] compile (null) on localhost completed ok\n";

TEST(build_farm__distcc_log)
{
	struct build_distcc_stats st;

	build_distcc_stats_parse(&st, distcc_log, strlen(distcc_log));
	CHECK_INT(st.remote, 2);
	CHECK_INT(st.local, 3);
	CHECK_INT(st.fallbacks, 3);
	CHECK(st.seconds > 0.29 && st.seconds < 0.31);
	REQUIRE(st.nhosts == 3);
	CHECK_STR(st.hosts[0].host, "127.0.0.1:3700");
	CHECK_INT(st.hosts[0].compiles, 1);
	CHECK_STR(st.hosts[1].host, "h2:3632");
	CHECK_INT(st.hosts[1].compiles, 1);
	CHECK_STR(st.hosts[2].host, "127.0.0.1:3701");
	CHECK_INT(st.hosts[2].failures, 1);
	CHECK_INT(st.hosts[2].compiles, 0);
	build_distcc_stats_release(&st);
}

TEST(build_farm__record_and_summary)
{
	struct build_result res;
	struct buf b = BUF_INIT;
	json_t *rec;

	memset(&res, 0, sizeof(res));
	res.ok = 1;
	res.ccache = 1;
	res.remote_cache = xstrdup("redis://:***@h:6379");
	res.have_cache_stats = 1;
	build_cache_stats_parse(&res.cache_stats, stats_log, strlen(stats_log));
	res.distcc_hosts = xstrdup("127.0.0.1:3700/2,lzo 127.0.0.1:3701 h2");
	build_distcc_stats_parse(&res.distcc, distcc_log, strlen(distcc_log));
	rec = build_result_json(&res, "build.log");
	build_farm_summary(&b, json_object_get(rec, "ccache_stats"), json_object_get(rec, "distcc"),
			   json_string_value(json_object_get(rec, "remote_cache")), "  ");
	CHECK_STR(buf_cstr(&b),
		  "  ccache: 2 hits (1 local, 1 remote), 2 misses, 1 uncacheable, 1 remote errors;"
		  " shared cache redis://:***@h:6379\n"
		  "  distcc: 2 compiles on hosts, 3 here (3 fallbacks) (127.0.0.1:3700 1, h2:3632 1)"
		  " (127.0.0.1:3701 1 failed)\n");
	CHECK(json_is_false(json_object_get(json_object_get(rec, "distcc"), "fell_back")));
	json_decref(rec);
	buf_release(&b);
	build_result_release(&res);

	/* No host answered at all. */
	memset(&res, 0, sizeof(res));
	res.distcc_hosts = xstrdup("h9");
	res.distcc.local = res.distcc.fallbacks = 7;
	rec = build_result_json(&res, NULL);
	build_farm_summary(&b, json_object_get(rec, "ccache_stats"), json_object_get(rec, "distcc"),
			   json_string_value(json_object_get(rec, "remote_cache")), "");
	CHECK_STR(buf_cstr(&b), "distcc: no host answered, 7 compiles ran here\n");
	CHECK(json_is_true(json_object_get(json_object_get(rec, "distcc"), "fell_back")));
	CHECK(json_object_get(rec, "ccache_stats") == NULL);
	json_decref(rec);
	buf_release(&b);
	build_result_release(&res);
}

TEST(build_farm__settings_line_of)
{
	char *dir = t_tmpdir("farm"), *path = write_config(dir, "# x\na = 1\n\nb = 2\n");
	struct settings *s = NULL;

	REQUIRE(settings_load(&s, path) == 0);
	CHECK_INT(settings_line_of(s, "a"), 2);
	CHECK_INT(settings_line_of(s, "b"), 4);
	CHECK_INT(settings_line_of(s, "c"), 0);
	REQUIRE(settings_set(s, "a", NULL) == 0);
	CHECK_INT(settings_line_of(s, "b"), 0);	/* lines moved: no longer known */
	REQUIRE(settings_set(s, "c", "3") == 0);
	CHECK_INT(settings_line_of(s, "c"), 0);
	settings_free(s);
	rm_rf(dir);
	free(path);
	free(dir);
}

TESTS(build_farm__cache_urls, build_farm__distcc_hosts_and_their_slots,
      build_farm__load_checks_values_and_names_the_line, build_farm__cache_stats_log,
      build_farm__distcc_log, build_farm__record_and_summary, build_farm__settings_line_of)
