/*
 * What tide reads back from ccache and distcc after a build (their stats
 * log and client log, which name files of the trees and hosts of the
 * site) and the DIR/config values it checks (src/build_farm.c).
 */
#include "build.h"
#include "fuzz.h"

static void check_distcc(const char *text, size_t size)
{
	struct build_result res = { 0 };
	long compiles = 0;
	json_t *rec;
	char *dump;
	size_t i;

	build_distcc_stats_parse(&res.distcc, text, size);
	for (i = 0; i < res.distcc.nhosts; i++) {
		if (!*res.distcc.hosts[i].host)
			FUZZ_FAIL("a distcc host without a name");
		compiles += res.distcc.hosts[i].compiles;
	}
	if (compiles != res.distcc.remote || res.distcc.fallbacks < 0 || res.distcc.seconds < 0)
		FUZZ_FAIL("distcc counts do not add up");
	/* Host names from the log must still make a record and a summary. */
	res.distcc_hosts = xstrdup("h1");
	rec = build_result_json(&res, NULL);
	if (!(dump = json_dumps(rec, 0)))
		FUZZ_FAIL("the build record with distcc hosts does not serialize");
	free(dump);
	json_decref(rec);
	build_result_release(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_copy(data, size), *value = fuzz_cstr(data, size);
	struct build_cache_stats st;
	const char *why = NULL;
	int slots = 0;

	build_cache_stats_parse(&st, text, size);
	if (st.uncacheable > st.calls || st.calls < 0)
		FUZZ_FAIL("more uncacheable ccache runs than runs");
	check_distcc(text, size);
	if (build_cache_url_check(value, &why) < 0 && !why)
		FUZZ_FAIL("a refused cache URL without a reason");
	why = NULL;
	if (build_distcc_hosts_check(value, &slots, &why) < 0 ? !why : slots < 1)
		FUZZ_FAIL("distcc-hosts: no reason, or accepted without a slot");
	free(text);
	free(value);
	return 0;
}
