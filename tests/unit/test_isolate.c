#include <signal.h>
#include <stdlib.h>
#include <string.h>
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

TESTS(isolate__result_of_the_child, isolate__limits_stop_the_child)
