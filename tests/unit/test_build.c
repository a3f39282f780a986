#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "t.h"
#include "dayrec.h"
#include "t_files.h"
#include "build.h"
#include "buf.h"
#include "error.h"
#include "util.h"

/* Run a shell command line (git CLI as the reference tool); 0 on success. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	rc = system(b.ptr);
	buf_release(&b);
	return rc;
}

static const char *const git_env =
	"export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=T "
	"GIT_COMMITTER_EMAIL=t@t GIT_CONFIG_NOSYSTEM=1 HOME=/tmp;";

static const char gcc_log[] =
	"  CC      drivers/gpio/gpiolib.o\n"
	"/ws/build/src/drivers/gpio/gpiolib.c: In function 'gpiod_get':\n"
	"/ws/build/src/drivers/gpio/gpiolib.c:120:7: warning: unused variable 'x' [-Wunused-variable]\n"
	"  120 |   int x;\n"
	"      |       ^\n"
	"/ws/build/src/drivers/gpio/gpiolib.c:130:2: error: implicit declaration of function 'foo' [-Werror=implicit-function-declaration]\n"
	"In file included from /ws/build/src/include/linux/gpio.h:3,\n"
	"/ws/build/src/include/linux/cpumask.h:12: warning: \"NR_CPUS\" redefined\n"
	"/ws/build/src/include/linux/cpumask.h:12: warning: \"NR_CPUS\" redefined\n"
	"/ws/build/src/drivers/gpio/gpiolib.c:5:10: fatal error: missing.h: No such file or directory\n"
	"cc1: some warnings being treated as errors\n"
	"make[3]: *** [/ws/build/src/scripts/Makefile.build:250: drivers/gpio/gpiolib.o] Error 1\n"
	"make: *** [Makefile:2012: .] Error 2\n";

TEST(build__parses_gcc_errors_and_warnings)
{
	const char *strip[] = { "/ws/build/src", "/ws/build/out", NULL };
	struct build_log log = { 0 };

	build_log_parse(&log, gcc_log, sizeof(gcc_log) - 1, strip);
	REQUIRE(log.errors.n == 4);
	CHECK_STR(log.errors.v[0].file, "drivers/gpio/gpiolib.c");
	CHECK_INT(log.errors.v[0].line, 130);
	CHECK_INT(log.errors.v[0].column, 2);
	CHECK_STR(log.errors.v[0].message,
		  "implicit declaration of function 'foo' [-Werror=implicit-function-declaration]");
	CHECK_INT(log.errors.v[0].kind, BUILD_DIAG_COMPILER);
	CHECK_STR(log.errors.v[1].message, "missing.h: No such file or directory");
	CHECK_INT(log.errors.v[2].kind, BUILD_DIAG_MAKE);
	CHECK(log.errors.v[2].file == NULL);
	CHECK(strstr(log.errors.v[2].message, "gpiolib.o] Error 1") != NULL);
	CHECK_STR(log.errors.v[3].message, "[Makefile:2012: .] Error 2");
	REQUIRE(log.warnings.n == 2);	/* the repeated header warning once */
	CHECK_STR(log.warnings.v[0].file, "drivers/gpio/gpiolib.c");
	CHECK_INT(log.warnings.v[0].line, 120);
	CHECK_STR(log.warnings.v[1].file, "include/linux/cpumask.h");
	CHECK_INT(log.warnings.v[1].column, 0);
	CHECK_STR(log.warnings.v[1].message, "\"NR_CPUS\" redefined");
	build_log_release(&log);
}

TEST(build__parses_linker_errors)
{
	static const char text[] =
		"  LD      vmlinux.o\n"
		"ld: drivers/gpio/gpiolib.o: in function `gpiod_get':\n"
		"gpiolib.c:(.text+0x1a): undefined reference to `gpio_missing'\n"
		"ld: kernel/cpu.o:(.data+0x0): multiple definition of `cpu_x'; kernel/smp.o:(.data+0x0): first defined here\n"
		"\033[01m\033[Kld: warning: \033[01;35mcreating DT_TEXTREL in a PIE\033[m\n"
		"x86_64-linux-gnu-ld: cannot find -lfoo: No such file or directory\n"
		"make[1]: *** [Makefile:1250: vmlinux] Error 1\n";
	struct build_log log = { 0 };

	build_log_parse(&log, text, sizeof(text) - 1, NULL);
	REQUIRE(log.errors.n == 4);
	CHECK_INT(log.errors.v[0].kind, BUILD_DIAG_LINKER);
	CHECK_STR(log.errors.v[0].file, "gpiolib.c");
	CHECK_STR(log.errors.v[0].message, "undefined reference to `gpio_missing'");
	CHECK_INT(log.errors.v[1].kind, BUILD_DIAG_LINKER);
	CHECK(strstr(log.errors.v[1].message, "multiple definition of `cpu_x'") != NULL);
	CHECK_STR(log.errors.v[2].message, "cannot find -lfoo: No such file or directory");
	CHECK_INT(log.errors.v[3].kind, BUILD_DIAG_MAKE);
	REQUIRE(log.warnings.n == 1);
	CHECK_INT(log.warnings.v[0].kind, BUILD_DIAG_LINKER);
	CHECK_STR(log.warnings.v[0].message, "creating DT_TEXTREL in a PIE");
	build_log_release(&log);
}

/* modpost's warnings and errors, with the object they name as its source file. */
TEST(build__parses_modpost_messages)
{
	static const char text[] =
		"  MODPOST modules-only.symvers\n"
		"WARNING: modpost: vmlinux.o: section mismatch in reference: gpio_sim_probe (section: .text) -> gpio_sim_setup (section: .init.text)\n"
		"WARNING: modpost: drivers/gpio/gpio-sim.o: section mismatch in reference: a (section: .text) -> b (section: .init.text)\n"
		"WARNING: modpost: missing MODULE_LICENSE() in drivers/gpio/gpio-mockup.o\n"
		"ERROR: modpost: \"cpumask_weight_andnot\" [lib/test_cpumask.ko] undefined!\n"
		"WARNING: modpost: vmlinux.o: section mismatch in reference: gpio_sim_probe (section: .text) -> gpio_sim_setup (section: .init.text)\n";
	struct build_log log = { 0 };

	build_log_parse(&log, text, sizeof(text) - 1, NULL);
	REQUIRE(log.errors.n == 1);
	CHECK_INT(log.errors.v[0].kind, BUILD_DIAG_MODPOST);
	CHECK_STR(log.errors.v[0].file, "lib/test_cpumask.c");
	CHECK_STR(log.errors.v[0].message, "\"cpumask_weight_andnot\" [lib/test_cpumask.ko] undefined!");
	REQUIRE(log.warnings.n == 3);
	CHECK(log.warnings.v[0].file == NULL);
	CHECK(strstr(log.warnings.v[0].message, "section mismatch in reference: gpio_sim_probe") != NULL);
	CHECK_STR(log.warnings.v[1].file, "drivers/gpio/gpio-sim.c");
	CHECK_STR(log.warnings.v[2].file, "drivers/gpio/gpio-mockup.c");
	CHECK_STR(log.warnings.v[2].message, "missing MODULE_LICENSE() in drivers/gpio/gpio-mockup.o");
	CHECK_INT(log.warnings.v[2].kind, BUILD_DIAG_MODPOST);
	CHECK_STR(build_diag_kind_name(BUILD_DIAG_MODPOST), "modpost");
	build_log_release(&log);
}

TEST(build__parses_kconfig_and_tool_errors)
{
	static const char text[] =
		"drivers/gpio/Kconfig:1739:warning: ignoring unsupported character '@'\n"
		"drivers/gpio/Kconfig:1740: syntax error\n"
		"drivers/gpio/Kconfig:1740: invalid statement\n"
		"make[2]: *** [scripts/kconfig/Makefile:77: olddefconfig] Error 1\n"
		"/bin/sh: 1: gcc: not found\n"
		"ccache: error: Could not find compiler \"gcc\" in PATH\n"
		"# tide: make failed (exit status 2)\n";
	struct build_log log = { 0 };

	build_log_parse(&log, text, sizeof(text) - 1, NULL);
	REQUIRE(log.errors.n == 5);
	CHECK_INT(log.errors.v[0].kind, BUILD_DIAG_KCONFIG);
	CHECK_STR(log.errors.v[0].file, "drivers/gpio/Kconfig");
	CHECK_INT(log.errors.v[0].line, 1740);
	CHECK_STR(log.errors.v[0].message, "syntax error");
	CHECK_INT(log.errors.v[2].kind, BUILD_DIAG_MAKE);
	CHECK_INT(log.errors.v[3].kind, BUILD_DIAG_TOOL);
	CHECK_STR(log.errors.v[4].message, "Could not find compiler \"gcc\" in PATH");
	REQUIRE(log.warnings.n == 1);
	CHECK_INT(log.warnings.v[0].kind, BUILD_DIAG_KCONFIG);
	build_log_release(&log);
}

TEST(build__keeps_the_first_errors_and_counts_all)
{
	struct buf text = BUF_INIT;
	struct build_log log = { 0 };
	int i;

	for (i = 1; i <= 50; i++)
		buf_printf(&text, "a.c:%d:1: error: bad %d\n", i, i);
	buf_put(&text, "garbage \xff\xfe\0 bytes\n", 17);
	build_log_parse(&log, text.ptr, text.len, NULL);
	CHECK_INT(log.errors.n, BUILD_MAX_ERRORS);
	CHECK_INT(log.nerrors_total, 50);
	CHECK_STR(log.errors.v[0].message, "bad 1");
	build_log_release(&log);
	buf_release(&text);
}

TEST(build__new_warnings_ignore_line_moves)
{
	struct build_diags now = { 0 }, fresh = { 0 };
	json_error_t jerr;
	json_t *prev = json_loads(
		"{\"warnings\": [{\"file\": \"a.c\", \"line\": 3, \"message\": \"unused variable 'x'\"},"
		"               {\"file\": \"b.c\", \"line\": 9, \"message\": \"gone\"}]}", 0, &jerr);

	REQUIRE(prev != NULL);
	build_diag_push(&now, BUILD_DIAG_COMPILER, "a.c", 40, 2, "unused variable 'x'");
	build_diag_push(&now, BUILD_DIAG_COMPILER, "a.c", 41, 2, "unused variable 'y'");
	build_diag_push(&now, BUILD_DIAG_COMPILER, "c.c", 3, 2, "unused variable 'x'");
	build_new_warnings(&fresh, &now, json_object_get(prev, "warnings"));
	REQUIRE(fresh.n == 2);
	CHECK_STR(fresh.v[0].message, "unused variable 'y'");
	CHECK_STR(fresh.v[1].file, "c.c");
	build_diags_release(&fresh);
	build_new_warnings(&fresh, &now, NULL);	/* no previous day: all new */
	CHECK_INT(fresh.n, 3);
	build_diags_release(&fresh);
	build_diags_release(&now);
	json_decref(prev);
}

/* base, then merges of gpio (touches g.c) and cpumask (touches c.c, g.c). */
static int make_history(const char *dir)
{
	return sh("%s cd %s && git init -q -b master r && cd r &&"
		  "echo 1 > g.c && echo 1 > c.c && echo 1 > m.c && git add . &&"
		  "git commit -qm base && git tag base &&"
		  "git checkout -qb gpio && echo 2 > g.c && git commit -qam g &&"
		  "git checkout -qb cpumask base && echo 2 > c.c && echo 3 >> g.c &&"
		  "git commit -qam c && git checkout -q master && echo 2 > m.c &&"
		  "git commit -qam mainline-fix &&"
		  "git merge -q --no-ff gpio -m \"Merge gpio\" -m \"Tide-Tree: gpio\" &&"
		  "git merge -q --no-ff cpumask -m \"Merge cpumask\" -m \"Tide-Tree: cpumask\" -X theirs",
		  git_env, dir);
}

TEST(build__attributes_warnings_to_the_merging_tree)
{
	char *dir = t_tmpdir("build"), *path = path_join(dir, "r");
	git_repository *repo = NULL;
	struct build_diags w = { 0 };
	git_oid tip, base;

	git_libgit2_init();
	REQUIRE(make_history(dir) == 0);
	REQUIRE(git_repository_open(&repo, path) == 0);
	REQUIRE(git_reference_name_to_id(&tip, repo, "HEAD") == 0);
	REQUIRE(git_reference_name_to_id(&base, repo, "refs/tags/base") == 0);
	build_diag_push(&w, BUILD_DIAG_COMPILER, "g.c", 1, 1, "x");
	build_diag_push(&w, BUILD_DIAG_COMPILER, "c.c", 1, 1, "y");
	build_diag_push(&w, BUILD_DIAG_COMPILER, "m.c", 1, 1, "z");
	build_diag_push(&w, BUILD_DIAG_LINKER, NULL, 0, 0, "no file");
	CHECK_INT(build_attribute(repo, &tip, &base, &w), 0);
	CHECK_STR(w.v[0].tree, "gpio");		/* the first merge to touch it */
	CHECK_STR(w.v[1].tree, "cpumask");
	CHECK_STR(w.v[2].tree, "mainline");
	CHECK_STR(w.v[3].tree, "mainline");
	build_diags_release(&w);
	git_repository_free(repo);
	git_libgit2_shutdown();
	rm_rf(dir);
	free(path);
	free(dir);
}

static long mtime_of(const char *dir, const char *name)
{
	char *p = path_join(dir, name);
	struct stat st;
	long t = lstat(p, &st) == 0 ? (long)st.st_mtime : -1;

	free(p);
	return t;
}

static int commit_id(git_oid *out, git_repository *repo, const char *rev)
{
	git_object *o = NULL;
	int rc = git_revparse_single(&o, repo, rev);

	if (rc == 0)
		git_oid_cpy(out, git_object_id(o));
	git_object_free(o);
	return rc;
}

/* v1: a, d/b, x (file), gone, tool (+x); v2: a changed, x a directory. */
static int make_versions(const char *dir)
{
	return sh("%s cd %s && git init -q r && cd r && mkdir d &&"
		  "echo a > a && echo b > d/b && echo x > x && echo g > gone &&"
		  "mkdir -p deep/er && echo e > deep/er/e &&"
		  "printf '#!/bin/sh\\n' > tool && chmod +x tool && ln -s a link &&"
		  "git add . && git commit -qm v1 && git tag v1 &&"
		  "echo a2 > a && git rm -q gone x deep/er/e && mkdir x && echo y > x/y &&"
		  "rm link && ln -s d/b link && git add . && git commit -qm v2 && git tag v2",
		  git_env, dir);
}

TEST(build__checkout_rewrites_only_changed_files)
{
	char *dir = t_tmpdir("build"), *rpath = path_join(dir, "r"), *src = path_join(dir, "src");
	char *state = path_join(dir, "src.tree"), *p;
	struct checkout_stats st = { 0 };
	git_repository *repo = NULL;
	struct buf b = BUF_INIT;
	git_oid v1, v2;
	struct stat sb;

	git_libgit2_init();
	REQUIRE(make_versions(dir) == 0);
	REQUIRE(git_repository_open(&repo, rpath) == 0);
	REQUIRE(commit_id(&v1, repo, "v1") == 0 && commit_id(&v2, repo, "v2") == 0);
	REQUIRE(checkout_tree(&st, repo, &v1, src, state) == 0);
	CHECK(st.full);
	CHECK_INT(st.written, 7);
	CHECK(path_exists(state));
	/* Age everything, so a rewrite shows as a new mtime. */
	REQUIRE(sh("find %s -exec touch -h -d '2001-01-01' {} +", src) == 0);
	checkout_stats_release(&st);
	REQUIRE(checkout_tree(&st, repo, &v2, src, state) == 0);
	CHECK(!st.full);
	CHECK_INT(st.written, 3);	/* a, x/y, link */
	CHECK(mtime_of(src, "a") > 978400000L);
	CHECK(mtime_of(src, "d/b") < 978400000L);
	CHECK(mtime_of(src, "tool") < 978400000L);
	CHECK(!path_exists(p = path_join(src, "gone")));
	free(p);
	CHECK(checkout_changed(&st, "gone"));
	CHECK(checkout_changed(&st, "x/y"));
	CHECK(!checkout_changed(&st, "d/b"));
	CHECK(!path_exists(p = path_join(src, "deep")));	/* emptied dirs go */
	free(p);
	p = path_join(src, "x/y");
	CHECK(file_read(&b, p) == 0 && !strcmp(b.ptr, "y\n"));
	free(p);
	p = path_join(src, "tool");
	CHECK(stat(p, &sb) == 0 && (sb.st_mode & S_IXUSR));
	free(p);
	p = path_join(src, "link");
	buf_clear(&b);
	CHECK(file_read(&b, p) == 0 && !strcmp(b.ptr, "b\n"));
	free(p);
	/* And back: a directory turned into a file. */
	checkout_stats_release(&st);
	REQUIRE(checkout_tree(&st, repo, &v1, src, state) == 0);
	buf_clear(&b);
	p = path_join(src, "x");
	CHECK(file_read(&b, p) == 0 && !strcmp(b.ptr, "x\n"));
	free(p);
	buf_release(&b);
	checkout_stats_release(&st);
	git_repository_free(repo);
	git_libgit2_shutdown();
	rm_rf(dir);
	free(rpath);
	free(src);
	free(state);
	free(dir);
}

/*
 * v1: a symlink "a" to dir/outside; v2: "a" a directory holding "f";
 * v3: "b/keep"; v4: without it.
 */
static int make_link_versions(const char *dir)
{
	return sh("%s cd %s && mkdir outside && echo keep > outside/keep && git init -q r && cd r &&"
		  "ln -s %s/outside a && git add . && git commit -qm v1 && git tag v1 &&"
		  "rm a && mkdir a && echo f > a/f && git add -A . && git commit -qm v2 && git tag v2 &&"
		  "mkdir b && echo keep > b/keep && git add . && git commit -qm v3 && git tag v3 &&"
		  "git rm -q b/keep && git commit -qm v4 && git tag v4",
		  git_env, dir, dir);
}

/* Only "keep", with its content: nothing was written or removed there. */
static int outside_untouched(const char *dir)
{
	return sh("cd %s/outside && test \"$(ls -A)\" = keep && test \"$(cat keep)\" = keep", dir) == 0;
}

TEST(build__checkout_never_follows_a_symlink_of_the_tree)
{
	char *dir = t_tmpdir("build-link"), *rpath = path_join(dir, "r"), *src = path_join(dir, "src");
	char *state = path_join(dir, "src.tree");
	struct checkout_stats st = { 0 };
	git_repository *repo = NULL;
	git_oid v1, v2, v3, v4;

	git_libgit2_init();
	REQUIRE(make_link_versions(dir) == 0);
	REQUIRE(git_repository_open(&repo, rpath) == 0);
	REQUIRE(commit_id(&v1, repo, "v1") == 0 && commit_id(&v2, repo, "v2") == 0 &&
		commit_id(&v3, repo, "v3") == 0 && commit_id(&v4, repo, "v4") == 0);
	/* incremental: the link is replaced by a directory, not followed */
	REQUIRE(checkout_tree(&st, repo, &v1, src, state) == 0);
	checkout_stats_release(&st);
	CHECK(checkout_tree(&st, repo, &v2, src, state) == 0);
	CHECK(!st.full);
	checkout_stats_release(&st);
	CHECK(outside_untouched(dir));
	CHECK(sh("test -d %s/src/a && ! test -L %s/src/a && test -f %s/src/a/f", dir, dir, dir) == 0);
	/* full (no state): the same */
	REQUIRE(checkout_tree(&st, repo, &v1, src, state) == 0);
	checkout_stats_release(&st);
	REQUIRE(unlink(state) == 0);
	CHECK(checkout_tree(&st, repo, &v2, src, state) == 0);
	CHECK(st.full);
	checkout_stats_release(&st);
	CHECK(outside_untouched(dir));
	CHECK(sh("test -d %s/src/a && ! test -L %s/src/a && test -f %s/src/a/f", dir, dir, dir) == 0);
	/* a removal under a directory that became a link does not follow it */
	REQUIRE(checkout_tree(&st, repo, &v3, src, state) == 0);
	checkout_stats_release(&st);
	REQUIRE(sh("rm -r %s/src/b && ln -s %s/outside %s/src/b", dir, dir, dir) == 0);
	CHECK(checkout_tree(&st, repo, &v4, src, state) == 0);
	checkout_stats_release(&st);
	CHECK(outside_untouched(dir));
	git_repository_free(repo);
	git_libgit2_shutdown();
	rm_rf(dir);
	free(rpath);
	free(src);
	free(state);
	free(dir);
}

/* Objects written as raw bytes, unchecked, the way a hostile tree arrives. */
static int write_raw(git_oid *out, git_repository *repo, const struct buf *b, git_object_t type)
{
	git_odb *odb = NULL;
	int rc;

	if ((rc = git_repository_odb(&odb, repo)) == 0)
		rc = git_odb_write(out, odb, b->ptr, b->len, type);
	git_odb_free(odb);
	return rc;
}

/* A commit of the tree "..": { "pwned" }, which would land beside src. */
static int make_dotdot_commit(git_oid *out, git_repository *repo)
{
	struct buf b = BUF_INIT;
	git_oid blob, inner, top;
	int rc;

	if ((rc = git_blob_create_from_buffer(&blob, repo, "x\n", 2)) < 0)
		return rc;
	buf_puts(&b, "100644 pwned");
	buf_put(&b, "", 1);
	buf_put(&b, blob.id, GIT_OID_RAWSZ);
	if ((rc = write_raw(&inner, repo, &b, GIT_OBJECT_TREE)) < 0)
		goto done;
	buf_clear(&b);
	buf_puts(&b, "40000 ..");
	buf_put(&b, "", 1);
	buf_put(&b, inner.id, GIT_OID_RAWSZ);
	if ((rc = write_raw(&top, repo, &b, GIT_OBJECT_TREE)) < 0)
		goto done;
	buf_clear(&b);
	buf_printf(&b, "tree %s\nauthor T <t@t> 1 +0000\ncommitter T <t@t> 1 +0000\n\nevil\n",
		   git_oid_tostr_s(&top));
	rc = write_raw(out, repo, &b, GIT_OBJECT_COMMIT);
done:
	buf_release(&b);
	return rc;
}

TEST(build__checkout_refuses_a_bad_name_whatever_reaches_it)
{
	char *dir = t_tmpdir("build-dotdot"), *rpath = path_join(dir, "r"), *src = path_join(dir, "src");
	char *state = path_join(dir, "src.tree"), *pwned = path_join(dir, "pwned");
	struct checkout_stats st = { 0 };
	git_repository *repo = NULL;
	git_oid v1, evil;

	git_libgit2_init();
	REQUIRE(make_link_versions(dir) == 0);
	REQUIRE(git_repository_open(&repo, rpath) == 0);
	REQUIRE(commit_id(&v1, repo, "v2") == 0 && make_dotdot_commit(&evil, repo) == 0);
	/* full */
	CHECK_INT(checkout_tree(&st, repo, &evil, src, state), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "refusing path '..': name is '..'");
	checkout_stats_release(&st);
	CHECK(!path_exists(pwned));
	CHECK(!path_exists(state));
	/* incremental */
	REQUIRE(checkout_tree(&st, repo, &v1, src, state) == 0);
	checkout_stats_release(&st);
	CHECK_INT(checkout_tree(&st, repo, &evil, src, state), TIDE_EINVAL);
	CHECK_STR(tide_error_last(), "refusing path '../pwned': name is '..'");
	checkout_stats_release(&st);
	CHECK(!path_exists(pwned));
	CHECK(outside_untouched(dir));
	git_repository_free(repo);
	git_libgit2_shutdown();
	rm_rf(dir);
	free(pwned);
	free(rpath);
	free(src);
	free(state);
	free(dir);
}

TEST(build__interrupted_checkout_is_redone_in_full)
{
	char *dir = t_tmpdir("build"), *rpath = path_join(dir, "r"), *src = path_join(dir, "src");
	char *state = path_join(dir, "src.tree"), *p;
	struct checkout_stats st = { 0 };
	git_repository *repo = NULL;
	struct buf b = BUF_INIT;
	git_oid v1, v2;

	git_libgit2_init();
	REQUIRE(make_versions(dir) == 0);
	REQUIRE(git_repository_open(&repo, rpath) == 0);
	REQUIRE(commit_id(&v1, repo, "v1") == 0 && commit_id(&v2, repo, "v2") == 0);
	REQUIRE(checkout_tree(&st, repo, &v1, src, state) == 0);
	REQUIRE(sh("find %s -exec touch -h -d '2001-01-01' {} +", src) == 0);
	/* Half a checkout: one file written, a stray one, and no state. */
	unlink(state);
	REQUIRE(sh("echo a2 > %s/a && echo junk > %s/stray && echo bad > %s/d/b",
		   src, src, src) == 0);
	checkout_stats_release(&st);
	REQUIRE(checkout_tree(&st, repo, &v2, src, state) == 0);
	CHECK(st.full);
	CHECK(mtime_of(src, "tool") < 978400000L);	/* same content: kept */
	CHECK(!path_exists(p = path_join(src, "stray")));
	free(p);
	p = path_join(src, "d/b");
	CHECK(file_read(&b, p) == 0 && !strcmp(b.ptr, "b\n"));
	free(p);
	/* A state naming an unknown tree counts as none. */
	REQUIRE(file_write_atomic(state, "0123456789012345678901234567890123456789\n", 41) == 0);
	checkout_stats_release(&st);
	REQUIRE(checkout_tree(&st, repo, &v2, src, state) == 0);
	CHECK(st.full);
	CHECK_INT(st.written, 0);
	buf_release(&b);
	checkout_stats_release(&st);
	git_repository_free(repo);
	git_libgit2_shutdown();
	rm_rf(dir);
	free(rpath);
	free(src);
	free(state);
	free(dir);
}

/*
 * A tiny fake "kernel": a Makefile that honours O=, tinyconfig and
 * olddefconfig, a merge_config.sh, and one C file with a warning.  v2
 * breaks the compile.
 */
static int make_fake_kernel(const char *dir)
{
	return sh("%s cd %s && git init -q k && cd k && mkdir -p scripts/kconfig &&"
		  "printf '%%s\\n' 'O ?= .' 'all: $(O)/arch/x86/boot/bzImage'"
		  " '$(O)/hello.o: hello.c' '\t$(CC) -Wall -c $(CURDIR)/hello.c -o $@'"
		  " '$(O)/arch/x86/boot/bzImage: $(O)/hello.o' '\tmkdir -p $(dir $@) && cp $< $@'"
		  " 'tinyconfig:' '\tmkdir -p $(O) && echo CONFIG_TINY=y > $(O)/.config'"
		  " 'olddefconfig:' '\tgrep -v ^CONFIG_DROPPED $(O)/.config > $(O)/.c.new; mv $(O)/.c.new $(O)/.config'"
		  " > Makefile &&"
		  "printf '#!/bin/sh\\ncat \"$5\" >> \"$4\"\\n' > scripts/kconfig/merge_config.sh &&"
		  "chmod +x scripts/kconfig/merge_config.sh &&"
		  "printf 'int f(void) { int unused; return 0; }\\n' > hello.c &&"
		  "printf 'CONFIG_GPIO=y\\n# CONFIG_X is not set\\nCONFIG_DROPPED=y\\n' > ../smoke.config &&"
		  "git add . && git commit -qm v1 && git tag v1 &&"
		  "printf 'int f(void) { return nope; }\\n' > hello.c && git commit -qam v2 && git tag v2",
		  git_env, dir);
}

struct fake {
	char *dir;
	struct build_opts opts;
	git_repository *repo;
};

static int fake_open(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	git_libgit2_init();
	f->dir = t_tmpdir("build");
	f->opts.srcdir = path_join(f->dir, "build/src");
	f->opts.outdir = path_join(f->dir, "build/out");
	f->opts.state_path = path_join(f->dir, "build/src.tree");
	f->opts.fragment = path_join(f->dir, "smoke.config");
	f->opts.log_path = path_join(f->dir, "build.log");
	f->opts.no_ccache = 1;
	if (make_fake_kernel(f->dir) != 0)
		return -1;
	char *k = path_join(f->dir, "k");
	int rc = git_repository_open(&f->repo, k);
	free(k);
	return rc;
}

static void fake_close(struct fake *f)
{
	git_repository_free(f->repo);
	git_libgit2_shutdown();
	rm_rf(f->dir);
	free((char *)f->opts.srcdir);
	free((char *)f->opts.outdir);
	free((char *)f->opts.state_path);
	free((char *)f->opts.fragment);
	free((char *)f->opts.log_path);
	free(f->dir);
}

static int log_has(const struct fake *f, const char *what)
{
	struct buf b = BUF_INIT;
	int has = file_read(&b, f->opts.log_path) == 0 && strstr(b.ptr, what);

	buf_release(&b);
	return has;
}

TEST(build__run_builds_incrementally)
{
	struct build_result res;
	struct fake f;
	git_oid v1;

	REQUIRE(fake_open(&f) == 0);
	REQUIRE(commit_id(&v1, f.repo, "v1") == 0);
	CHECK_INT(build_run(&res, f.repo, &v1, &f.opts), 0);
	CHECK(res.ok);
	CHECK(res.failure == NULL);
	CHECK(res.config_regenerated);
	CHECK(res.kernel && str_ends_with(res.kernel, "build/out/arch/x86/boot/bzImage"));
	REQUIRE(res.log.warnings.n == 2);
	CHECK_STR(res.log.warnings.v[0].message,
		  "CONFIG_DROPPED=y requested by the fragment is not in the final .config");
	CHECK_STR(res.log.warnings.v[1].file, "hello.c");
	CHECK(log_has(&f, "-c ") && log_has(&f, "tinyconfig"));
	json_t *j = build_result_json(&res, "build.log");
	CHECK_STR(json_string_value(json_object_get(j, "status")), "ok");
	CHECK_INT(json_array_size(json_object_get(j, "warnings")), 2);
	json_decref(j);
	build_result_release(&res);
	/* Again: no checkout writes, no config, nothing recompiled. */
	CHECK_INT(build_run(&res, f.repo, &v1, &f.opts), 0);
	CHECK(res.ok);
	CHECK(!res.config_regenerated);
	CHECK_INT(res.checkout.written, 0);
	CHECK(!log_has(&f, "-c "));
	/* The .config check runs again; hello.o was not rebuilt, its warning kept. */
	REQUIRE(res.log.warnings.n == 2);
	CHECK_STR(res.log.warnings.v[1].file, "hello.c");
	build_result_release(&res);
	fake_close(&f);
}

TEST(build__run_records_compile_errors)
{
	struct build_result res;
	struct fake f;
	git_oid v2;

	REQUIRE(fake_open(&f) == 0);
	REQUIRE(commit_id(&v2, f.repo, "v2") == 0);
	CHECK_INT(build_run(&res, f.repo, &v2, &f.opts), 0);
	CHECK(!res.ok);
	CHECK(res.kernel == NULL);
	CHECK(res.failure && strstr(res.failure, "make failed"));
	REQUIRE(res.log.errors.n >= 2);
	CHECK_STR(res.log.errors.v[0].file, "hello.c");
	CHECK_INT(res.log.errors.v[0].line, 1);
	CHECK(strstr(res.log.errors.v[0].message, "nope") != NULL);
	build_result_release(&res);
	fake_close(&f);
}

TEST(build__run_names_bad_input)
{
	struct build_result res;
	struct fake f;
	git_oid v1;

	REQUIRE(fake_open(&f) == 0);
	REQUIRE(commit_id(&v1, f.repo, "v1") == 0);
	/* A fragment line that is no config line: recorded, with its line. */
	REQUIRE(file_write_atomic(f.opts.fragment, "CONFIG_A=y\nthis is garbage\n", 27) == 0);
	CHECK_INT(build_run(&res, f.repo, &v1, &f.opts), 0);
	CHECK(!res.ok);
	CHECK(res.failure && strstr(res.failure, "line 2"));
	REQUIRE(res.log.errors.n == 1);
	CHECK_INT(res.log.errors.v[0].kind, BUILD_DIAG_KCONFIG);
	CHECK_INT(res.log.errors.v[0].line, 2);
	build_result_release(&res);
	/* A compiler that is not there. */
	REQUIRE(file_write_atomic(f.opts.fragment, "CONFIG_A=y\n", 11) == 0);
	f.opts.cc = "tide-no-such-cc";
	CHECK_INT(build_run(&res, f.repo, &v1, &f.opts), 0);
	CHECK(!res.ok);
	CHECK_STR(res.failure, "compiler 'tide-no-such-cc' not found in PATH");
	REQUIRE(res.log.errors.n == 1);
	CHECK_INT(res.log.errors.v[0].kind, BUILD_DIAG_TOOL);
	build_result_release(&res);
	/* No fragment at all: tide cannot do its part. */
	unlink(f.opts.fragment);
	CHECK_INT(build_run(&res, f.repo, &v1, &f.opts), TIDE_ENOTFOUND);
	CHECK(strstr(tide_error_last(), "smoke.config") != NULL);
	build_result_release(&res);
	fake_close(&f);
}

/* The record's keys in order, as one line. */
static char *keys_of(const json_t *o)
{
	struct buf b = BUF_INIT;
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)o, k, v)
		buf_printf(&b, "%s%s", b.len ? " " : "", k);
	return buf_detach(&b);
}

/*
 * The build writes its record directly: the keys a full record always
 * has, the counters only when counted, the optional strings only when
 * known, as day.json has had them.
 */
TEST(build__record_written_directly)
{
	static const char always[] = "status seconds checkout_seconds config_seconds "
		"make_seconds checkout config_regenerated jobs ccache remote_cache errors "
		"errors_total warnings new_warnings log kernel";
	struct build_result res;
	struct day_build *rec, *back = NULL;
	json_t *j, *again;
	char *keys;

	memset(&res, 0, sizeof(res));
	res.ok = 1;
	j = build_result_json(&res, NULL);
	keys = keys_of(j);
	CHECK_STR(keys, always);
	free(keys);
	CHECK(json_is_null(json_object_get(j, "log")));
	CHECK(json_is_null(json_object_get(j, "remote_cache")));
	json_decref(j);

	res.objects = 12;
	res.checked = 3;
	res.check_seconds = 1.5;
	res.failure = xstrdup("make failed \xff");
	res.commit = xstrdup("abc");
	res.compiler = xstrdup("gcc 12");
	res.make_command = json_pack("[s, s]", "make", "-j2");
	rec = build_result_record(&res, "build.log");
	CHECK_STR(rec->failure, "make failed \xef\xbf\xbd");	/* as day.json will read */
	CHECK_INT(rec->objects, 12);
	j = day_build_to_json(rec);
	keys = keys_of(j);
	CHECK_STR(keys, "status failure commit seconds checkout_seconds config_seconds "
		  "make_seconds objects checked check_seconds checkout config_regenerated jobs "
		  "ccache remote_cache errors errors_total warnings new_warnings log kernel "
		  "make_command compiler");
	free(keys);
	/* What a reader of day.json gets is what was written. */
	REQUIRE(day_build_from_json(&back, j, "build") == 0);
	again = day_build_to_json(back);
	CHECK(json_equal(j, again));
	json_decref(again);
	json_decref(j);
	day_build_free(back);
	day_build_free(rec);
	build_result_release(&res);
}

TESTS(build__parses_gcc_errors_and_warnings, build__parses_linker_errors,
      build__parses_modpost_messages,
      build__parses_kconfig_and_tool_errors, build__keeps_the_first_errors_and_counts_all,
      build__new_warnings_ignore_line_moves, build__attributes_warnings_to_the_merging_tree,
      build__checkout_rewrites_only_changed_files, build__interrupted_checkout_is_redone_in_full,
      build__checkout_never_follows_a_symlink_of_the_tree,
      build__checkout_refuses_a_bad_name_whatever_reaches_it,
      build__run_builds_incrementally, build__run_records_compile_errors,
      build__run_names_bad_input, build__record_written_directly)
