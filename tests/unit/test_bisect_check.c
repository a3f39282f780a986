#include <stdlib.h>

#include "t.h"
#include "fixture.h"
#include "t_files.h"
#include "bisect_check.h"
#include "error.h"

/* A boot result judged from a recorded console (tests/fixtures/console). */
static int judged(struct boot_result *br, const char *name)
{
	struct buf b = BUF_INIT;

	memset(br, 0, sizeof(*br));
	if (fixture_read(&b, name) < 0)
		return -1;
	boot_classify(&br->verdict, b.ptr ? b.ptr : "", b.len, 0);
	buf_release(&b);
	return 0;
}

TEST(bisect_check__boot_verdict)
{
	struct boot_result br;
	char *note = NULL;

	REQUIRE(judged(&br, "pass.log") == 0);
	CHECK_INT(bisect_boot_verdict(&br, &note), BISECT_GOOD);
	CHECK(note == NULL);
	boot_result_release(&br);

	/* a test failed, but the kernel booted: good for --boot */
	REQUIRE(judged(&br, "test-segfault.log") == 0);
	CHECK_INT(bisect_boot_verdict(&br, &note), BISECT_GOOD);
	CHECK(note == NULL);
	boot_result_release(&br);

	REQUIRE(judged(&br, "panic-no-init.log") == 0);
	CHECK_INT(bisect_boot_verdict(&br, &note), BISECT_BAD);
	REQUIRE(note != NULL);
	CHECK(!strncmp(note, "boot panic: Kernel panic - not syncing", 38));
	free(note);
	boot_result_release(&br);

	REQUIRE(judged(&br, "no-output.log") == 0);
	note = NULL;
	CHECK_INT(bisect_boot_verdict(&br, &note), BISECT_BAD);
	CHECK(note && !strncmp(note, "boot ", 5));
	free(note);
	boot_result_release(&br);
}

TEST(bisect_check__test_verdict)
{
	struct boot_result br;
	char *note = NULL;

	REQUIRE(judged(&br, "pass.log") == 0);
	CHECK_INT(bisect_test_verdict(&br, "gpio.edge_events", &note), BISECT_GOOD);
	CHECK(note == NULL);
	CHECK_INT(bisect_test_verdict(&br, "gpio", &note), BISECT_GOOD);
	/* the boot ran and the test is not in it: bad */
	CHECK_INT(bisect_test_verdict(&br, "gpio.no_such_test", &note), BISECT_BAD);
	CHECK_STR(note, "test gpio.no_such_test did not report");
	free(note);
	note = NULL;
	boot_result_release(&br);

	REQUIRE(judged(&br, "test-segfault.log") == 0);
	CHECK_INT(bisect_test_verdict(&br, "gpio.edge_events", &note), BISECT_BAD);
	CHECK_STR(note, "test gpio.edge_events failed");
	free(note);
	note = NULL;
	/* a parent with a failed subtest fails too */
	CHECK_INT(bisect_test_verdict(&br, "gpio", &note), BISECT_BAD);
	CHECK_STR(note, "test gpio failed");
	free(note);
	note = NULL;
	CHECK_INT(bisect_test_verdict(&br, "gpio.chip_info", &note), BISECT_GOOD);
	boot_result_release(&br);

	/* the boot did not get to the test: a skip, with the boot's reason */
	REQUIRE(judged(&br, "panic-no-init.log") == 0);
	CHECK_INT(bisect_test_verdict(&br, "gpio.edge_events", &note), BISECT_SKIP);
	CHECK(note && !strncmp(note, "boot panic: Kernel panic", 24));
	free(note);
	boot_result_release(&br);
}

TEST(bisect_check__build_note)
{
	struct build_result res = { 0 };
	char *note;

	note = bisect_build_note(&res);
	CHECK_STR(note, "build failed");
	free(note);
	res.failure = xstrdup("make exited 2");
	note = bisect_build_note(&res);
	CHECK_STR(note, "make exited 2");
	free(note);
	/* the first error with a file wins over the one-line reason */
	build_diag_push(&res.log.errors, BUILD_DIAG_COMPILER, "kernel/smp.c", 12, 3,
			"'x' undeclared");
	build_diag_push(&res.log.errors, BUILD_DIAG_COMPILER, "kernel/cpu.c", 1, 1, "second");
	note = bisect_build_note(&res);
	CHECK_STR(note, "kernel/smp.c:12: 'x' undeclared");
	free(note);
	build_result_release(&res);
}

TEST(bisect_check__checker_init)
{
	char *ws = t_tmpdir("bisect-check"), *frag = path_join(ws, "smoke.config");
	struct bisect_checker ck;

	setenv("TIDE_KERNEL_TESTS", ws, 1);
	CHECK_INT(bisect_checker_init(&ck, "nonsense", NULL, ws, NULL, NULL, NULL), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "unknown check 'nonsense'");
	bisect_checker_release(&ck);

	CHECK_INT(bisect_checker_init(&ck, "cmd", "true", ws, NULL, NULL, NULL), 0);
	CHECK(ck.kind == BISECT_CHECK_CMD);
	CHECK(ck.check.run == bisect_cmd_run);
	CHECK(ck.check.data == &ck.cmd);
	CHECK_STR(ck.cmd.cmd, "true");
	CHECK(!ck.have_bopts);
	bisect_checker_release(&ck);

	CHECK_INT(bisect_checker_init(&ck, "build", "kernel/smp.o", ws, NULL, NULL, NULL), 0);
	CHECK(ck.kind == BISECT_CHECK_BUILD);
	CHECK_STR(ck.bopts.target, "kernel/smp.o");
	CHECK_STR(ck.bopts.fragment, frag);
	CHECK_INT(ck.bopts.nice, 10);
	CHECK_INT(ck.bopts.jobs, 0);
	CHECK_STR(ck.bopts.log_path, ck.log_path);
	CHECK(ck.test == NULL);
	bisect_checker_release(&ck);

	CHECK_INT(bisect_checker_init(&ck, "test", "gpio", ws, NULL, NULL, NULL), 0);
	CHECK(ck.kind == BISECT_CHECK_TEST);
	CHECK_STR(ck.test, "gpio");
	CHECK(ck.bopts.target == NULL);
	CHECK(ck.console_path != NULL);
	bisect_checker_release(&ck);

	unsetenv("TIDE_KERNEL_TESTS");
	rm_rf(ws);
	free(frag);
	free(ws);
}

TESTS(bisect_check__boot_verdict, bisect_check__test_verdict, bisect_check__build_note,
      bisect_check__checker_init)
