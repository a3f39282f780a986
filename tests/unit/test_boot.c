#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t.h"
#include "fixture.h"
#include "boot.h"
#include "dayrec.h"
#include "day.h"
#include "error.h"
#include "util.h"

static enum boot_status classify(struct boot_verdict *v, const char *name, int timed_out)
{
	struct buf b = BUF_INIT;

	if (fixture_read(&b, name) < 0) {
		memset(v, 0, sizeof(*v));
		return (enum boot_status)-1;
	}
	boot_classify(v, b.ptr ? b.ptr : "", b.len, timed_out);
	buf_release(&b);
	return v->status;
}

TEST(boot__real_passing_boot)
{
	struct boot_verdict v;

	CHECK_STR(boot_status_name(classify(&v, "pass.log", 0)), "passed");
	CHECK(v.reason == NULL);
	CHECK_INT(v.pass, 17);
	CHECK_INT(v.fail, 0);
	boot_verdict_release(&v);
}

TEST(boot__real_panic)
{
	struct boot_verdict v;

	CHECK_STR(boot_status_name(classify(&v, "panic-no-init.log", 0)), "panic");
	REQUIRE(v.reason != NULL);
	CHECK(!strncmp(v.reason, "Kernel panic - not syncing: No working init found", 49));
	/* KUnit ran before the panic: its results still count */
	CHECK_INT(v.pass, 6);
	boot_verdict_release(&v);
}

TEST(boot__real_hang_is_the_timeout)
{
	struct boot_verdict v;

	CHECK_STR(boot_status_name(classify(&v, "hang.log", 1)), "hang");
	boot_verdict_release(&v);
	/* the same console without the timeout: all tests passed */
	CHECK_STR(boot_status_name(classify(&v, "hang.log", 0)), "passed");
	boot_verdict_release(&v);
}

TEST(boot__real_segfaulting_test)
{
	struct boot_verdict v;

	CHECK_STR(boot_status_name(classify(&v, "test-segfault.log", 0)), "tests-failed");
	CHECK_STR(v.reason, "1 failed, first: gpio.edge_events");
	CHECK_INT(v.fail, 1);
	CHECK_INT(v.pass, 16);
	boot_verdict_release(&v);
}

TEST(boot__real_test_timeout)
{
	struct boot_verdict v;

	CHECK_STR(boot_status_name(classify(&v, "test-timeout.log", 0)), "tests-failed");
	CHECK_STR(v.reason, "1 failed, first: cpumask_smoke.affinity");
	boot_verdict_release(&v);
}

/* A real kernel that saw 1 CPU of QEMU's 4 (no ACPI, SeaBIOS MP table). */
TEST(boot__real_cpu_count_mismatch)
{
	struct boot_verdict v;

	CHECK_STR(boot_status_name(classify(&v, "one-cpu-of-four.log", 0)), "tests-failed");
	CHECK_STR(v.reason, "2 failed, first: cpumask_smoke.cpu_masks");
	CHECK_INT(v.pass, 15);
	boot_verdict_release(&v);
}

/* The kernel built with integration/testpatches/gpio-sim-report-inverted-values.patch. */
TEST(boot__real_broken_gpio_sim_kernel)
{
	struct boot_verdict v;

	CHECK_STR(boot_status_name(classify(&v, "broken-gpio-sim.log", 0)), "tests-failed");
	CHECK_STR(v.reason, "2 failed, first: gpio.line_info");
	CHECK_INT(v.fail, 2);
	CHECK_INT(v.pass, 15);
	boot_verdict_release(&v);
}

TEST(boot__no_output)
{
	struct boot_verdict v;

	CHECK_STR(boot_status_name(classify(&v, "no-output.log", 0)), "no-output");
	boot_verdict_release(&v);
	boot_classify(&v, "SeaBIOS (version 1.16)\r\nBooting from ROM..\r\n", 40, 1);
	CHECK_STR(boot_status_name(v.status), "no-output");
	boot_verdict_release(&v);
}

TEST(boot__garbage_console_still_passes)
{
	struct boot_verdict v;

	CHECK_STR(boot_status_name(classify(&v, "garbage.log", 0)), "passed");
	CHECK_INT(v.pass, 17);
	boot_verdict_release(&v);
}

TEST(boot__oops_and_missing_results)
{
	static const char oops[] =
		"Linux version 6.1.192\nKTAP version 1\n1..2\n"
		"    KTAP version 1\n    # Subtest: gpio\n    1..1\n"
		"[    2.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
		"[    2.000001] Oops: 0002 [#1] SMP\n";
	static const char cut[] = "Linux version 6.1.192\nKTAP version 1\n1..2\nok 1 gpio\n";
	struct boot_verdict v;

	boot_classify(&v, oops, strlen(oops), 0);
	CHECK_STR(boot_status_name(v.status), "oops");
	CHECK_STR(v.reason, "BUG: kernel NULL pointer dereference, address: 0000000000000008");
	boot_verdict_release(&v);
	boot_classify(&v, cut, strlen(cut), 0);
	CHECK_STR(boot_status_name(v.status), "tests-failed");
	CHECK_STR(v.reason, "document 1 planned 2 tests, has 1 results");
	boot_verdict_release(&v);
}

TEST(boot__json_record)
{
	struct boot_result res;
	struct buf b = BUF_INIT;
	json_t *j, *t;

	memset(&res, 0, sizeof(res));
	REQUIRE(fixture_read(&b, "test-segfault.log") == 0);
	boot_classify(&res.verdict, b.ptr, b.len, 0);
	res.accel = xstrdup("tcg");
	res.smp = 4;
	j = boot_result_json(&res, "console.log");
	REQUIRE(j != NULL);
	CHECK_STR(json_string_value(json_object_get(j, "status")), "tests-failed");
	CHECK_STR(json_string_value(json_object_get(j, "console")), "console.log");
	t = json_object_get(j, "tests");
	REQUIRE(json_is_array(t));
	for (size_t i = 0; i < json_array_size(t); i++) {
		json_t *e = json_array_get(t, i);

		if (strcmp(json_string_value(json_object_get(e, "name")), "gpio.edge_events"))
			continue;
		CHECK(json_is_false(json_object_get(e, "ok")));
		CHECK(json_is_null(json_object_get(e, "directive")));
		CHECK(json_array_size(json_object_get(e, "diagnostics")) == 2);
	}
	CHECK_INT(json_integer_value(json_object_get(json_object_get(j, "counts"), "fail")), 1);
	json_decref(j);
	boot_result_release(&res);
	buf_release(&b);
}

/* The real boot's two KTAP documents, each named and counted, and shown. */
TEST(boot__documents_named_and_counted)
{
	struct boot_result res;
	struct buf b = BUF_INIT;
	struct day_boot *rec = NULL;
	json_t *j, *docs;
	char *text, *dump;

	memset(&res, 0, sizeof(res));
	REQUIRE(fixture_read(&b, "pass.log") == 0);
	boot_classify(&res.verdict, b.ptr, b.len, 0);
	res.accel = xstrdup("tcg");
	res.smp = 4;
	j = boot_result_json(&res, "console.log");
	docs = json_object_get(j, "documents");
	REQUIRE(json_array_size(docs) == 2);
	dump = json_dumps(docs, JSON_COMPACT | JSON_PRESERVE_ORDER);
	CHECK_STR(dump, "[{\"name\":\"kernel\",\"header\":null,\"suites\":[\"cpumask\"],"
			"\"counts\":{\"pass\":6,\"fail\":0,\"skip\":0}},"
			"{\"name\":\"guest\",\"header\":\"tide smoke tests on 6.1.192 x86_64\","
			"\"suites\":[\"gpio\",\"cpumask_smoke\"],"
			"\"counts\":{\"pass\":11,\"fail\":0,\"skip\":0}}]");
	free(dump);
	REQUIRE(day_boot_from_json(&rec, j, "boot") == 0);
	text = day_boot_text(rec, NULL);
	CHECK(strstr(text, "\n        kernel KTAP: 6 passed, 0 failed, 0 skipped\n"
			   "        guest KTAP: 11 passed, 0 failed, 0 skipped\n") != NULL);
	free(text);
	day_boot_free(rec);
	json_decref(j);
	boot_result_release(&res);
	buf_release(&b);
}

TEST(boot__missing_kernel_and_qemu_are_errors)
{
	struct boot_opts o = { 0 };
	struct boot_result res;

	o.kernel = "/nonexistent/bzImage";
	o.initramfs_dir = "/tmp";
	CHECK_INT(boot_run(&res, &o), TIDE_ENOTFOUND);
	CHECK(strstr(tide_error_last(), "/nonexistent/bzImage") != NULL);
	boot_result_release(&res);
	o.kernel = "/bin/true";
	o.qemu = "tide-no-such-qemu";
	CHECK_INT(boot_run(&res, &o), TIDE_ERROR);
	CHECK(strstr(tide_error_last(), "qemu-system-x86") != NULL);
	boot_result_release(&res);
}

static char *fake_qemu(const char *dir, const char *name, const char *body)
{
	char *path = path_join(dir, name), *text = xasprintf("#!/bin/sh\n%s\n", body);

	file_write_atomic(path, text, strlen(text));
	chmod(path, 0755);
	free(text);
	return path;
}

/* The probe with stand-ins for QEMU: one that hangs, one that aborts, one
 * whose kernel prints. */
TEST(boot__kvm_probe_catches_hang_and_abort)
{
	char tmpl[] = "/tmp/tide-test-kvm.XXXXXX", *dir = mkdtemp(tmpl), *note = NULL;
	char *hang = fake_qemu(dir, "hang", "exec sleep 30");
	char *abrt = fake_qemu(dir, "abort", "echo 'error: failed to set MSR 0x10a' >&2; kill -ABRT $$");
	char *ok = fake_qemu(dir, "ok", "echo 'Booting from ROM..'; echo '[0.0] Linux version 6.1'; exec sleep 30");
	char *cache = path_join(dir, "kvm-probe");
	struct boot_opts o = { 0 };
	double start;
	int usable = -1;

	if (access("/dev/kvm", R_OK | W_OK) < 0) {
		printf("# no /dev/kvm: the probe is not run\n");
		CHECK_INT(boot_kvm_usable(&usable, &note, &o), 0);
		CHECK_INT(usable, 0);
		goto done;
	}
	o.kernel = "/bin/true";
	o.kvm_probe_timeout = 1;
	o.qemu = hang;
	start = time_now();
	CHECK_INT(boot_kvm_usable(&usable, &note, &o), 0);
	CHECK_INT(usable, 0);
	CHECK(time_now() - start < 5);
	CHECK(note && strstr(note, "no kernel output within 1 s"));
	free(note);
	o.qemu = abrt;
	CHECK_INT(boot_kvm_usable(&usable, &note, &o), 0);
	CHECK_INT(usable, 0);
	CHECK(note && strstr(note, "failed to set MSR"));
	free(note);
	o.qemu = ok;
	o.kvm_cache = cache;
	start = time_now();
	CHECK_INT(boot_kvm_usable(&usable, &note, &o), 0);
	CHECK_INT(usable, 1);
	CHECK(time_now() - start < 5);
	CHECK(note == NULL);
	/* cached: even a hanging QEMU is not asked again */
	o.qemu = hang;
	CHECK_INT(boot_kvm_usable(&usable, &note, &o), 0);
	CHECK_INT(usable, 1);
done:
	free(note);
	rm_rf(dir);
	free(hang);
	free(abrt);
	free(ok);
	free(cache);
}

TEST(boot__day_record_has_one_writer)
{
	struct day *d = day_new();
	struct boot_result res = { 0 };

	d->boot = day_boot_failed("skipped", "no kernel: the build failed");
	REQUIRE(d->boot != NULL);
	CHECK_STR(d->boot->status, "skipped");
	CHECK_STR(d->boot->failure, "no kernel: the build failed");
	CHECK(!day_boot_has(d->boot, "seconds"));

	res.verdict.status = BOOT_TESTS_FAILED;
	res.seconds = 2.5;
	boot_record_day(d, &res);	/* replaces the failure */
	REQUIRE(d->boot != NULL);
	CHECK_STR(d->boot->status, "tests-failed");
	CHECK(d->boot->failure == NULL);
	CHECK_STR(d->boot->console, "console.log");
	CHECK(d->boot->seconds == 2.5);
	CHECK(d->extra == NULL);	/* not among the unknown keys */
	day_free(d);
}

/* The kernel booted is the one the day's build record names, if still that build's. */
TEST(boot__day_kernel_comes_from_the_build_record)
{
	char tmpl[] = "/tmp/tide-test-kernel.XXXXXX", *dir = mkdtemp(tmpl), hex[65];
	char *ws_kernel, *image;
	struct boot_ws_paths p;
	struct day *d = day_new();
	const char *k;
	json_t *j;

	REQUIRE(dir != NULL);
	ws_kernel = path_join(dir, "bzImage");
	image = path_join(dir, "Image");
	p = (struct boot_ws_paths){ .kernel = ws_kernel };
	d->date = xstrdup("2026-12-01");
	/* No build record: the workspace's, when there is one. */
	CHECK_INT(boot_day_kernel(&k, d, &p), TIDE_ENOTFOUND);
	CHECK_STR(tide_error_last(), "no kernel built for 2026-12-01");
	REQUIRE(file_write_atomic(ws_kernel, "k0", 2) == 0);
	CHECK_INT(boot_day_kernel(&k, d, &p), 0);
	CHECK_STR(k, ws_kernel);

	/* The record's image, checked against its hash. */
	REQUIRE(file_write_atomic(image, "k1", 2) == 0 && file_sha256_hex(hex, image) == 0);
	j = json_pack("{s:s, s:s, s:s}", "status", "ok", "kernel", image, "kernel_sha256", hex);
	REQUIRE(day_build_from_json(&d->build, j, "test") == 0);
	json_decref(j);
	CHECK_INT(boot_day_kernel(&k, d, &p), 0);
	CHECK_STR(k, image);
	REQUIRE(file_write_atomic(image, "k2", 2) == 0);	/* a later build */
	CHECK_INT(boot_day_kernel(&k, d, &p), TIDE_EINVAL);
	CHECK(k == NULL);
	CHECK(strstr(tide_error_last(), "is another build's now") != NULL);
	unlink(image);
	CHECK_INT(boot_day_kernel(&k, d, &p), TIDE_ENOTFOUND);

	/* The build failed: nothing to boot, even with a workspace kernel. */
	day_build_free(d->build);
	j = json_pack("{s:s, s:n}", "status", "failed", "kernel");
	REQUIRE(day_build_from_json(&d->build, j, "test") == 0);
	json_decref(j);
	CHECK_INT(boot_day_kernel(&k, d, &p), TIDE_ENOTFOUND);
	CHECK_STR(tide_error_last(), "no kernel built for 2026-12-01: its build failed");
	tide_error_clear();
	day_free(d);
	unlink(ws_kernel);
	rmdir(dir);
	free(ws_kernel);
	free(image);
}

/* The boot writes its record directly, the keys day.json has had, in the table's order. */
TEST(boot__record_written_directly)
{
	struct boot_result res;
	struct day_boot *rec, *back = NULL;
	struct buf keys = BUF_INIT;
	const char *k;
	json_t *j, *v, *again;

	memset(&res, 0, sizeof(res));
	res.smp = 2;
	res.timeout = 60;
	rec = boot_result_record(&res, NULL);
	CHECK_STR(rec->accel, "");
	CHECK_STR(rec->cmdline, "");
	CHECK(rec->console == NULL);
	j = day_boot_to_json(rec);
	json_object_foreach(j, k, v)
		buf_printf(&keys, "%s%s", keys.len ? " " : "", k);
	CHECK_STR(keys.ptr, "status reason seconds accel smp timed_out exit_status timeout "
		  "counts tests problems warnings documents cmdline initramfs_seconds");
	CHECK(json_is_null(json_object_get(j, "reason")));
	CHECK_INT(json_integer_value(json_object_get(j, "smp")), 2);
	REQUIRE(day_boot_from_json(&back, j, "boot") == 0);
	again = day_boot_to_json(back);
	CHECK(json_equal(j, again));
	json_decref(again);
	json_decref(j);
	day_boot_free(back);
	day_boot_free(rec);
	buf_release(&keys);
	boot_result_release(&res);
}

TESTS(boot__documents_named_and_counted, boot__day_kernel_comes_from_the_build_record, boot__real_passing_boot, boot__real_panic, boot__real_hang_is_the_timeout,
      boot__real_segfaulting_test, boot__real_test_timeout, boot__real_cpu_count_mismatch,
      boot__real_broken_gpio_sim_kernel, boot__no_output,
      boot__garbage_console_still_passes, boot__oops_and_missing_results,
      boot__json_record, boot__missing_kernel_and_qemu_are_errors,
      boot__kvm_probe_catches_hang_and_abort, boot__day_record_has_one_writer,
      boot__record_written_directly)
