#ifndef TIDE_BISECT_CHECK_H
#define TIDE_BISECT_CHECK_H

#include <git2.h>

#include "bisect.h"
#include "boot.h"
#include "build.h"

/*
 * The checks `tide bisect` runs on each state (man/tide-bisect.1):
 *   cmd    `sh -c CMD` in the checkout (bisect_cmd_run())
 *   build  the kernel (or one make target) builds: a failed build is bad
 *   boot   the built kernel boots in QEMU: a failed build is a skip
 *   test   the booted kernel's smoke test NAME passes
 * Each builds as tide build does, in DIR/build/src and the configuration's
 * O= (ccache and the last build's objects reused); cmd checks out into
 * DIR/bisect/src.
 */

enum bisect_check_kind {
	BISECT_CHECK_CMD,
	BISECT_CHECK_BUILD,
	BISECT_CHECK_BOOT,
	BISECT_CHECK_TEST,
};

struct bisect_checker {
	struct bisect_check check;	/* what bisect_opts.check points to */
	enum bisect_check_kind kind;
	struct bisect_cmd cmd;
	struct build_opts bopts;
	int have_bopts;
	const char *test;		/* test: NAME; NULL for boot */
	struct boot_ws_paths paths;
	const struct build_config *config;	/* boot, test: its arch, QEMU machine and CPU */
	int smp;			/* boot, test: the configuration's smp= (0: the default) */
	char *srcdir, *state_path, *log_path, *console_path;
	/* One line as each build and boot starts (may be NULL). */
	void (*progress)(void *data, const char *line);
	void *progress_data;
};

/*
 * Set ck up for the check kind ("cmd", "build", "boot", "test") with its
 * arg (the command, the make target or NULL, the test name) in workspace
 * wsdir.  config (borrowed; NULL: the fragment's build, as tide build
 * without --config) is the configuration built and booted: its O=
 * directory, base, fragments and arch, its kernel and .config and smp=
 * for the boot.  An unknown kind or a missing config fragment is
 * TIDE_EINVAL.  ck is released with bisect_checker_release() whatever
 * this returns.
 */
int bisect_checker_init(struct bisect_checker *ck, const char *kind, const char *arg,
			const char *wsdir, const struct build_config *config,
			void (*progress)(void *data, const char *line), void *progress_data);
void bisect_checker_release(struct bisect_checker *ck);

/* ---- verdicts, from the results (exposed for the unit tests) ---- */

/* Why a build failed, for the step's note: the first error if the log has one. */
char *bisect_build_note(const struct build_result *res);

/* boot: bad when the kernel panics, oopses, hangs or stays silent (*note why). */
enum bisect_verdict bisect_boot_verdict(const struct boot_result *br, char **note);

/*
 * test NAME: bad when NAME fails or is missing from a boot that ran; a boot
 * that did not run is a skip.  *note says why when not good.
 */
enum bisect_verdict bisect_test_verdict(const struct boot_result *br, const char *name,
					char **note);

#endif
