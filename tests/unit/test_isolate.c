#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t.h"
#include "isolate.h"
#include "util.h"

static void say_hello(void *data, int fd)
{
	isolate_write(fd, data, strlen(data));
}

static void crash(void *data, int fd)
{
	isolate_write(fd, "half", 4);
	raise(SIGKILL);
}

static void sleep_long(void *data, int fd)
{
	sleep(30);
}

/* Touch 256 MB, a page at a time, slowly enough to be seen. */
static void eat_memory(void *data, int fd)
{
	size_t size = (size_t)256 << 20, i;
	char *p = malloc(size);

	for (i = 0; p && i < size; i += 4096) {
		p[i] = 1;
		if (i % (1 << 20) == 0)
			usleep(1000);
	}
	isolate_write(fd, "done", 4);
	free(p);
}

static void talk_a_lot(void *data, int fd)
{
	char block[65536];
	int i;

	memset(block, 'x', sizeof(block));
	for (i = 0; i < 1024; i++)	/* 64 MB */
		if (isolate_write(fd, block, sizeof(block)) < 0)
			return;
}

TEST(isolate__result_of_the_child)
{
	struct isolate_limits lim = { 10, 0, 0 };
	struct isolate_result res;
	struct buf how = BUF_INIT;

	CHECK_INT(isolate_run(&res, &lim, say_hello, "hello"), 0);
	CHECK_INT(res.end, ISOLATE_EXITED);
	CHECK_INT(res.status, 0);
	CHECK_INT(res.out.len, 5);
	CHECK(!memcmp(res.out.ptr, "hello", 5));
	isolate_result_release(&res);
	CHECK_INT(isolate_run(&res, &lim, crash, NULL), 0);
	CHECK_INT(res.end, ISOLATE_SIGNALED);
	CHECK_INT(res.status, SIGKILL);
	CHECK_INT(res.out.len, 4);
	isolate_describe(&how, &res, &lim);
	CHECK_STR(buf_cstr(&how), "crashed (signal 9, Killed)");
	isolate_result_release(&res);
	buf_release(&how);
}

TEST(isolate__limits_stop_the_child)
{
	struct isolate_limits lim = { 0.5, 0, 0 };
	struct isolate_result res;
	struct buf how = BUF_INIT;
	double start = time_now();

	CHECK_INT(isolate_run(&res, &lim, sleep_long, NULL), 0);
	CHECK_INT(res.end, ISOLATE_TIME);
	CHECK(time_now() - start < 5);
	isolate_describe(&how, &res, &lim);
	CHECK_STR(buf_cstr(&how), "took more than 0.5 s (merge-timeout)");
	isolate_result_release(&res);
	lim.seconds = 60;
	lim.memory = (size_t)64 << 20;
	CHECK_INT(isolate_run(&res, &lim, eat_memory, NULL), 0);
	CHECK_INT(res.end, ISOLATE_MEMORY);
	CHECK(res.peak > lim.memory);
	CHECK(res.peak < (size_t)200 << 20);
	CHECK_INT(res.out.len, 0);
	isolate_result_release(&res);
	lim.memory = 0;
	lim.output = (size_t)4 << 20;
	CHECK_INT(isolate_run(&res, &lim, talk_a_lot, NULL), 0);
	CHECK_INT(res.end, ISOLATE_OUTPUT);
	CHECK(res.out.len < (size_t)8 << 20);
	buf_clear(&how);
	isolate_describe(&how, &res, &lim);
	CHECK_STR(buf_cstr(&how), "sent more than 4 MB of results");
	isolate_result_release(&res);
	buf_release(&how);
}

/* The child's side: say its pid on the test's pipe, then sleep. */
static void tell_and_sleep(void *data, int fd)
{
	int *fds = data;
	pid_t me = getpid();

	if (write(fds[1], &me, sizeof(me)) != (ssize_t)sizeof(me))
		_exit(1);
	sleep(30);
}

/* Is pid gone: no such process, or a zombie nobody has reaped yet? */
static int gone(pid_t pid)
{
	char path[64], line[512], *p;
	FILE *f;
	int zombie = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (!(f = fopen(path, "re")))
		return 1;
	if (fgets(line, sizeof(line), f) && (p = strrchr(line, ')')))
		zombie = p[1] == ' ' && p[2] == 'Z';
	fclose(f);
	return zombie;
}

TEST(isolate__the_child_ends_with_the_run)
{
	int fds[2];
	pid_t run, child = 0;
	double start;

	CHECK_INT(pipe(fds), 0);
	if ((run = fork()) == 0) {
		struct isolate_limits lim = { 60, 0, 0 };
		struct isolate_result res;

		isolate_run(&res, &lim, tell_and_sleep, fds);
		_exit(0);
	}
	CHECK_INT((int)read(fds[0], &child, sizeof(child)), (int)sizeof(child));
	/* the run killed as kill -9 would: its child must not go on merging */
	kill(run, SIGKILL);
	waitpid(run, NULL, 0);
	start = time_now();
	while (!gone(child) && time_now() - start < 5)
		usleep(10000);
	CHECK(gone(child));
	if (!gone(child))
		kill(child, SIGKILL);
	close(fds[0]);
	close(fds[1]);
}

TESTS(isolate__result_of_the_child, isolate__limits_stop_the_child,
      isolate__the_child_ends_with_the_run)
