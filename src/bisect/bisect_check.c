/*
 * The checks `tide bisect` runs on each state: a kernel build, a boot in
 * QEMU, a smoke test of that boot (or the shell command of src/bisect.c),
 * and the verdict each result means.  Nothing here prints: the steps'
 * starts go to the checker's progress callback.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bisect_check.h"
#include "buf.h"
#include "buildconf.h"
#include "error.h"
#include "ktap.h"
#include "util.h"
#include "workspace.h"

static void progress(const struct bisect_checker *ck, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void progress(const struct bisect_checker *ck, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	if (!ck->progress)
		return;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	ck->progress(ck->progress_data, buf_cstr(&b));
	buf_release(&b);
}

/* The step's build, as it starts: a kernel build is minutes of silence otherwise. */
static void say_building(const struct bisect_checker *ck, const git_oid *commit)
{
	char hex[GIT_OID_HEXSZ + 1];

	progress(ck, "building %.12s (%s%s)", git_oid_tostr(hex, sizeof(hex), commit),
		 ck->bopts.target ? "make " : "the kernel", ck->bopts.target ? ck->bopts.target : "");
}

char *bisect_build_note(const struct build_result *res)
{
	const struct build_diag *e = res->log.errors.n ? &res->log.errors.v[0] : NULL;

	if (e && e->file)
		return xasprintf("%s:%d: %s", e->file, e->line, e->message ? e->message : "");
	return xstrdup(res->failure ? res->failure : "build failed");
}

/* build: a failed build is bad.  (Under boot/test it is a skip.) */
static int build_check(void *data, git_repository *repo, const git_oid *commit,
		       enum bisect_verdict *verdict, char **note)
{
	struct bisect_checker *ck = data;
	struct build_result res = { 0 };
	int err;

	say_building(ck, commit);
	if ((err = build_run(&res, repo, commit, &ck->bopts)) < 0)
		return err;
	*verdict = res.ok ? BISECT_GOOD : BISECT_BAD;
	if (!res.ok)
		*note = bisect_build_note(&res);
	build_result_release(&res);
	return 0;
}

static int boot_ran(const struct boot_result *br)
{
	return br->verdict.status == BOOT_PASSED || br->verdict.status == BOOT_TESTS_FAILED;
}

static char *boot_note(const struct boot_result *br)
{
	return xasprintf("boot %s: %s", boot_status_name(br->verdict.status),
			 br->verdict.reason ? br->verdict.reason : "");
}

enum bisect_verdict bisect_boot_verdict(const struct boot_result *br, char **note)
{
	if (boot_ran(br))
		return BISECT_GOOD;
	*note = boot_note(br);
	return BISECT_BAD;
}

struct find_test {
	const char *name;
	const struct ktap_node *node;
};

static int find_test_cb(const struct ktap_node *n, const char *path, int depth, void *data)
{
	struct find_test *f = data;

	(void)depth;
	if (!strcmp(path, f->name))
		f->node = n;
	return 0;
}

enum bisect_verdict bisect_test_verdict(const struct boot_result *br, const char *name,
					char **note)
{
	struct find_test f = { name, NULL };

	ktap_walk(&br->verdict.ktap, find_test_cb, &f);
	if (!f.node) {
		if (!boot_ran(br)) {
			*note = boot_note(br);
			return BISECT_SKIP;
		}
		*note = xasprintf("test %s did not report", name);
		return BISECT_BAD;
	}
	if (ktap_node_failed(f.node)) {
		*note = xasprintf("test %s failed", name);
		return BISECT_BAD;
	}
	return BISECT_GOOD;
}

/* The built kernel in QEMU, for boot and test. */
static int boot_built(struct boot_result *br, const struct bisect_checker *ck,
		      const struct build_result *res)
{
	struct boot_opts bo = { 0 };

	boot_opts_use_paths(&bo, &ck->paths, ck->console_path);
	if (res->kernel)
		bo.kernel = res->kernel;	/* where this build put it */
	bo.accel = "tcg";
	bo.smp = ck->smp;
	if (ck->config)
		boot_opts_use_config(&bo, ck->config);
	progress(ck, "booting it in QEMU");
	return boot_run(br, &bo);
}

/* boot / test: build (a failed build is a skip, not a verdict), boot in QEMU. */
static int boot_check(void *data, git_repository *repo, const git_oid *commit,
		      enum bisect_verdict *verdict, char **note)
{
	struct bisect_checker *ck = data;
	struct build_result res = { 0 };
	struct boot_result br;
	char *why;
	int err;

	say_building(ck, commit);
	err = build_run(&res, repo, commit, &ck->bopts);
	memset(&br, 0, sizeof(br));
	if (err < 0)
		goto done;
	if (!res.ok) {
		*verdict = BISECT_SKIP;
		why = bisect_build_note(&res);
		*note = xasprintf("build failed: %s", why);
		free(why);
		goto done;
	}
	if ((err = boot_built(&br, ck, &res)) < 0)
		goto done;
	if (ck->test)
		*verdict = bisect_test_verdict(&br, ck->test, note);
	else
		*verdict = bisect_boot_verdict(&br, note);
	boot_result_release(&br);
done:
	build_result_release(&res);
	return err;
}

static int parse_kind(enum bisect_check_kind *out, const char *kind)
{
	static const char *const names[] = { "cmd", "build", "boot", "test" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (kind && !strcmp(kind, names[i])) {
			*out = (enum bisect_check_kind)i;
			return 0;
		}
	return tide_error_set(TIDE_EINVAL, "unknown check '%s'", kind ? kind : "");
}

static void cmd_init(struct bisect_checker *ck, const char *arg)
{
	ck->cmd.cmd = arg;
	ck->cmd.srcdir = ck->srcdir;
	ck->cmd.state_path = ck->state_path;
	ck->cmd.log_path = ck->log_path;
	ck->cmd.progress = ck->progress;
	ck->cmd.progress_data = ck->progress_data;
	ck->check.run = bisect_cmd_run;
	ck->check.data = &ck->cmd;
}

int bisect_checker_init(struct bisect_checker *ck, const char *kind, const char *arg,
			const char *wsdir, const struct build_config *config,
			void (*progress_fn)(void *data, const char *line), void *progress_data)
{
	int error;

	memset(ck, 0, sizeof(*ck));
	ck->srcdir = workspace_bisect_src(wsdir);
	ck->state_path = workspace_bisect_src_state(wsdir);
	ck->log_path = workspace_bisect_check_log(wsdir);
	ck->progress = progress_fn;
	ck->progress_data = progress_data;
	ck->check.data = ck;
	if ((error = parse_kind(&ck->kind, kind)) < 0)
		return error;
	if (ck->kind == BISECT_CHECK_CMD) {
		cmd_init(ck, arg);
		return 0;
	}
	/* The CPUs here (or distcc-jobs with build hosts), at a lower priority. */
	build_opts_init(&ck->bopts, wsdir, ck->log_path,
			&(struct build_day_opts){ .config = config, .nice = 10 });
	ck->have_bopts = 1;
	if (!ck->bopts.fragment && !ck->bopts.config)
		return tide_error_set(TIDE_EINVAL, "no config fragment: kernel-tests/smoke.config "
				      "not found (set TIDE_KERNEL_TESTS)");
	ck->check.run = build_check;
	if (ck->kind == BISECT_CHECK_BUILD) {
		ck->bopts.target = arg;
		return 0;
	}
	ck->test = arg;
	/* The configuration's O=: the .config the guest's tests read. */
	boot_ws_paths_init_out(&ck->paths, wsdir, ck->bopts.outdir, config);
	ck->config = config;
	ck->smp = config ? config->smp : 0;
	ck->console_path = workspace_bisect_console_log(wsdir);
	ck->check.run = boot_check;
	return 0;
}

void bisect_checker_release(struct bisect_checker *ck)
{
	if (ck->have_bopts)
		build_opts_release(&ck->bopts);
	boot_ws_paths_release(&ck->paths);
	free(ck->console_path);
	free(ck->srcdir);
	free(ck->state_path);
	free(ck->log_path);
	memset(ck, 0, sizeof(*ck));
}
