#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t.h"
#include "buf.h"
#include "error.h"
#include "proc.h"
#include "util.h"

static int run_sh(struct proc_result *res, struct proc_opts *o, const char *script)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };

	o->argv = argv;
	return proc_run(res, o);
}

/* Is pid gone (or a zombie nobody waits for)?  Waits up to two seconds. */
static int gone(pid_t pid)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	int i;

	for (i = 0; i < 100; i++) {
		char *path = xasprintf("/proc/%d/stat", (int)pid), *p;
		struct buf b = BUF_INIT;
		int dead = file_read(&b, path) < 0 || ((p = strrchr(buf_cstr(&b), ')')) && p[1] &&
							p[2] == 'Z');

		tide_error_clear();
		buf_release(&b);
		free(path);
		if (dead)
			return 1;
		nanosleep(&pause, NULL);
	}
	return 0;
}

TEST(proc__captures_both_streams_and_the_status)
{
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res;

	o.out = o.err = PROC_CAPTURE;
	REQUIRE(run_sh(&res, &o, "echo out; echo err >&2; exit 3") == 0);
	CHECK_STR(buf_cstr(&res.out), "out\n");
	CHECK_STR(buf_cstr(&res.err), "err\n");
	CHECK(res.exited);
	CHECK_INT(res.status, 3);
	CHECK_INT(proc_code(&res), 3);
	CHECK(res.failed_start == NULL);
	proc_result_release(&res);

	/* Not captured: nothing kept. */
	o.out = o.err = PROC_NULL;
	REQUIRE(run_sh(&res, &o, "echo out; read x; echo \"[$x]\"; exit 0") == 0);
	CHECK_INT(res.out.len, 0);
	CHECK_INT(proc_code(&res), 0);
	proc_result_release(&res);
}

TEST(proc__a_signal_is_128_plus_n)
{
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res;

	REQUIRE(run_sh(&res, &o, "kill -TERM $$") == 0);
	CHECK(!res.exited);
	CHECK_INT(res.signal, SIGTERM);
	CHECK_INT(res.status, -1);
	CHECK_INT(proc_code(&res), 128 + SIGTERM);
	proc_result_release(&res);
}

TEST(proc__a_program_that_cannot_start_says_why)
{
	char *missing[] = { "/nonexistent/tool", "--version", NULL };
	char *ok[] = { "true", NULL };
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res;

	o.argv = missing;
	o.err = PROC_CAPTURE;
	REQUIRE(proc_run(&res, &o) == 0);
	CHECK_INT(proc_code(&res), 127);
	CHECK_STR(res.failed_start, "cannot run '/nonexistent/tool': No such file or directory");
	CHECK_INT(res.err.len, 0);	/* tide's words are for tide to place */
	proc_result_release(&res);

	o.argv = ok;
	o.cwd = "/nonexistent/dir";
	REQUIRE(proc_run(&res, &o) == 0);
	CHECK_INT(proc_code(&res), 127);
	CHECK_STR(res.failed_start, "cannot enter '/nonexistent/dir': No such file or directory");
	proc_result_release(&res);

	o.cwd = "/";
	o.program = "/nonexistent/sh";
	REQUIRE(proc_run(&res, &o) == 0);
	CHECK_STR(res.failed_start, "cannot run '/nonexistent/sh': No such file or directory");
	proc_result_release(&res);
}

TEST(proc__cwd_nice_and_the_output_to_a_file)
{
	char dir[] = "/tmp/tide-test-XXXXXX";
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res;
	struct buf b = BUF_INIT;
	char *log;
	int fd;

	REQUIRE(mkdtemp(dir) != NULL);
	log = path_join(dir, "log");
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0666);
	REQUIRE(fd >= 0);
	o.cwd = dir;
	o.nice = 5;
	o.out = o.err = PROC_FD;
	o.out_fd = o.err_fd = fd;
	REQUIRE(run_sh(&res, &o, "pwd; echo oops >&2; cut -d' ' -f19 /proc/self/stat") == 0);
	close(fd);
	CHECK_INT(proc_code(&res), 0);
	CHECK_INT(file_read(&b, log), 0);
	{
		int want_nice = nice(0) + 5 > 19 ? 19 : nice(0) + 5;
		char *want = xasprintf("%s\noops\n%d\n", dir, want_nice);

		CHECK_STR(buf_cstr(&b), want);
		free(want);
	}
	buf_release(&b);
	proc_result_release(&res);
	rm_rf(dir);
	free(log);
}

TEST(proc__a_timeout_kills_the_whole_group)
{
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res;
	pid_t grandchild;

	o.out = PROC_CAPTURE;
	o.timeout = 0.5;
	o.own_group = 1;
	/* The shell's child keeps stdout open: only a kill of the group ends the wait. */
	REQUIRE(run_sh(&res, &o, "sleep 30 & echo $!; wait") == 0);
	CHECK(res.timed_out);
	CHECK(!res.stopped);
	CHECK_INT(res.signal, SIGKILL);
	CHECK(res.seconds >= 0.5 && res.seconds < 5);
	grandchild = (pid_t)atoi(buf_cstr(&res.out));
	REQUIRE(grandchild > 0);
	CHECK(gone(grandchild));
	proc_result_release(&res);

	/* Without a group of its own, only the child is killed. */
	o.own_group = 0;
	o.out = PROC_NULL;
	REQUIRE(run_sh(&res, &o, "sleep 30 >/dev/null & echo $! >/tmp/tide-proc-gc.$PPID; wait") == 0);
	CHECK(res.timed_out);
	{
		struct buf b = BUF_INIT;
		char *path = xasprintf("/tmp/tide-proc-gc.%d", (int)getpid());

		REQUIRE(file_read(&b, path) == 0);
		grandchild = (pid_t)atoi(buf_cstr(&b));
		CHECK(grandchild > 0 && !gone(grandchild));
		if (grandchild > 0)
			kill(grandchild, SIGKILL);
		unlink(path);
		free(path);
		buf_release(&b);
	}
	proc_result_release(&res);
}

TEST(proc__stop_on_ends_it_once_the_text_shows)
{
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res;

	o.out = PROC_CAPTURE;
	o.stop_on = "Linux version";
	o.own_group = 1;
	REQUIRE(run_sh(&res, &o, "echo booting; echo 'Linux version 6.1'; exec sleep 30") == 0);
	CHECK(res.stopped);
	CHECK(!res.timed_out);
	CHECK(res.seconds < 5);
	CHECK(strstr(buf_cstr(&res.out), "Linux version") != NULL);
	proc_result_release(&res);
}

TEST(proc__capture_is_bounded_the_copy_is_whole)
{
	char dir[] = "/tmp/tide-test-XXXXXX";
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res;
	struct buf b = BUF_INIT;
	char *copy;

	REQUIRE(mkdtemp(dir) != NULL);
	copy = path_join(dir, "copy");
	o.tee_fd = open(copy, O_WRONLY | O_CREAT, 0666);
	REQUIRE(o.tee_fd >= 0);
	o.out = PROC_CAPTURE;
	o.capture_max = 1000;
	REQUIRE(run_sh(&res, &o, "head -c 300000 /dev/zero | tr '\\0' x") == 0);
	close(o.tee_fd);
	CHECK_INT(proc_code(&res), 0);
	CHECK(res.out.len >= 1000 && res.out.len < 300000);
	CHECK_INT(file_read(&b, copy), 0);
	CHECK_INT(b.len, 300000);
	buf_release(&b);
	proc_result_release(&res);
	rm_rf(dir);
	free(copy);
}

TEST(proc__env_sets_and_drops)
{
	char *set[] = { "TIDE_PROC_A=1", "TIDE_PROC_B=new", NULL };
	const char *drop[] = { "TIDE_PROC_DROP=", NULL };
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res;
	char **env;

	setenv("TIDE_PROC_B", "old", 1);
	setenv("TIDE_PROC_DROP", "x", 1);
	env = proc_env(set, drop);
	o.env = env;
	o.out = PROC_CAPTURE;
	REQUIRE(run_sh(&res, &o, "echo \"$TIDE_PROC_A $TIDE_PROC_B ${TIDE_PROC_DROP-unset} ${HOME:+home}\"") == 0);
	CHECK_STR(buf_cstr(&res.out), getenv("HOME") ? "1 new unset home\n" : "1 new unset \n");
	proc_result_release(&res);
	free(env);
	unsetenv("TIDE_PROC_B");
	unsetenv("TIDE_PROC_DROP");
}

static void count_tick(void *data)
{
	(*(int *)data)++;
}

TEST(proc__ticks_while_it_runs_and_once_after)
{
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res;
	int ticks = 0;

	o.tick = count_tick;
	o.tick_data = &ticks;
	REQUIRE(run_sh(&res, &o, "sleep 1") == 0);
	CHECK(ticks >= 4 && ticks <= 12);
	CHECK_INT(proc_code(&res), 0);
	proc_result_release(&res);

	/* Reading a stream ticks too. */
	ticks = 0;
	o.out = PROC_CAPTURE;
	REQUIRE(run_sh(&res, &o, "echo a; sleep 1; echo b") == 0);
	CHECK(ticks >= 4 && ticks <= 12);
	CHECK_STR(buf_cstr(&res.out), "a\nb\n");
	proc_result_release(&res);
}

static void say_hello(void *data, int fd)
{
	(void)fd_write_all(fd, data, strlen(data));
}

TEST(proc__a_function_in_a_copy_of_tide)
{
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res = { 0 };
	struct proc p;
	struct buf b = BUF_INIT;
	char chunk[64];
	ssize_t n;

	o.fn = say_hello;
	o.data = "hello from the child";
	REQUIRE(proc_start(&p, &o) == 0);
	CHECK(p.fd >= 0);
	CHECK(fcntl(p.fd, F_GETFD) & FD_CLOEXEC);
	while ((n = read(p.fd, chunk, sizeof(chunk))) > 0)
		buf_put(&b, chunk, (size_t)n);
	proc_wait(&p, &res);
	CHECK_STR(buf_cstr(&b), "hello from the child");
	CHECK(res.exited);
	CHECK_INT(res.status, 0);
	CHECK_INT(p.fd, -1);
	buf_release(&b);
	proc_result_release(&res);

	/* proc_run() of a function captures what it writes. */
	REQUIRE(proc_run(&res, &o) == 0);
	CHECK_STR(buf_cstr(&res.out), "hello from the child");
	CHECK_INT(proc_code(&res), 0);
	proc_result_release(&res);
}

/*
 * A middle process starts `sleep 30` (with or without a death signal),
 * says its pid and dies: is the sleep still there?
 */
static int outlives_its_parent(int death_signal)
{
	int fds[2];
	pid_t middle, sleeper = 0;
	int status, alive;

	if (pipe(fds) < 0)
		return -1;
	if ((middle = fork()) == 0) {
		char *argv[] = { "sleep", "30", NULL };
		struct proc_opts o = PROC_OPTS_INIT;
		struct proc p;

		o.argv = argv;
		o.death_signal = death_signal;
		if (proc_start(&p, &o) < 0)
			_exit(1);
		(void)fd_write_all(fds[1], &p.pid, sizeof(p.pid));
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &sleeper, sizeof(sleeper)) != (ssize_t)sizeof(sleeper))
		sleeper = 0;
	close(fds[0]);
	waitpid(middle, &status, 0);
	if (sleeper <= 0)
		return -1;
	alive = !gone(sleeper);
	kill(sleeper, SIGKILL);
	return alive;
}

TEST(proc__a_death_signal_ends_it_with_its_parent)
{
	CHECK_INT(outlives_its_parent(SIGKILL), 0);
	CHECK_INT(outlives_its_parent(0), 1);
}

/*
 * A child that closes its streams and exits a little later is reaped when
 * it ends: the wait for it once its streams ended slept until the
 * deadline (every tool version a reproducer probes took its whole 10 s).
 */
TEST(proc__the_end_is_seen_when_it_comes_not_at_the_deadline)
{
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res;

	o.out = o.err = PROC_CAPTURE;
	o.timeout = 120;
	REQUIRE(run_sh(&res, &o, "echo out; exec >/dev/null 2>&1; sleep 0.3; exit 4") == 0);
	CHECK_STR(buf_cstr(&res.out), "out\n");
	CHECK_INT(proc_code(&res), 4);
	CHECK(!res.timed_out);
	CHECK(res.seconds < 60);
	proc_result_release(&res);
}

TEST(proc__first_line)
{
	char *ok[] = { "printf", "one\ntwo\n", NULL };
	char *fails[] = { "false", NULL };
	char *missing[] = { "/nonexistent/tool", "--version", NULL };
	char *line = proc_first_line(ok);

	CHECK_STR(line, "one");
	free(line);
	CHECK(proc_first_line(fails) == NULL);
	CHECK(proc_first_line(missing) == NULL);
	CHECK_INT(tide_error_code(), 0);
}

TESTS(proc__captures_both_streams_and_the_status, proc__a_signal_is_128_plus_n,
      proc__the_end_is_seen_when_it_comes_not_at_the_deadline,
      proc__a_program_that_cannot_start_says_why, proc__cwd_nice_and_the_output_to_a_file,
      proc__a_timeout_kills_the_whole_group, proc__stop_on_ends_it_once_the_text_shows,
      proc__capture_is_bounded_the_copy_is_whole, proc__env_sets_and_drops,
      proc__ticks_while_it_runs_and_once_after, proc__a_function_in_a_copy_of_tide,
      proc__a_death_signal_ends_it_with_its_parent, proc__first_line)
