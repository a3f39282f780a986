/*
 * One tree's work in a child process (isolate.h), started by proc.c (the
 * one place tide forks: the death signal, the pipe).  The parent polls the
 * child's pipe every few milliseconds and reads its anonymous memory from
 * /proc between reads: fast enough that a child filling memory as fast as
 * it can passes the limit by tens of megabytes, not gigabytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "isolate.h"
#include "proc.h"
#include "util.h"

#define POLL_MS 10

/* RssAnon of process pid in bytes (pages it touched that no file backs), 0 if unknown. */
static size_t rss_anon(pid_t pid)
{
	char path[64], line[256];
	size_t kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %zu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

int isolate_write(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t n;

	while (len) {
		if ((n = write(fd, p, len)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Read what is there, a megabyte at most (the limits are looked at in
 * between): DRAIN_EOF at end of file, DRAIN_MORE when the megabyte was
 * read, 0 when nothing more is there now.
 */
#define DRAIN_EOF 1
#define DRAIN_MORE 2

static int drain(int fd, struct buf *out)
{
	char chunk[65536];
	ssize_t n;
	int i;

	for (i = 0; i < 16;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n > 0) {
			buf_put(out, chunk, (size_t)n);
			i++;
		} else if (n == 0) {
			return DRAIN_EOF;
		} else if (errno != EINTR) {
			return 0;	/* EAGAIN */
		}
	}
	return DRAIN_MORE;
}

/* Is the child past a limit?  Sets res->end, res->peak. */
static int over_limit(struct isolate_result *res, const struct isolate_limits *limits,
		      pid_t pid, size_t base, double start)
{
	size_t anon = rss_anon(pid);

	res->seconds = time_now() - start;
	if (anon > base && anon - base > res->peak)
		res->peak = anon - base;
	if (limits->seconds > 0 && res->seconds > limits->seconds)
		res->end = ISOLATE_TIME;
	else if (limits->memory && res->peak > limits->memory)
		res->end = ISOLATE_MEMORY;
	else if (limits->output && res->out.len > limits->output)
		res->end = ISOLATE_OUTPUT;
	else
		return 0;
	return 1;
}

/*
 * A descriptor that becomes readable when the child exits (pidfd_open(2),
 * Linux 5.3), so its end is seen at once, not at the next tick; -1 where
 * there is none, then the ticks alone.
 */
static int child_fd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	return -1;
#endif
}

static void watch(struct isolate_result *res, const struct isolate_limits *limits,
		  struct proc *child, size_t base, double start)
{
	struct pollfd p[2] = { { child->fd, POLLIN, 0 }, { child_fd(child->pid), POLLIN, 0 } };
	struct proc_result end;
	int eof = 0;

	memset(&end, 0, sizeof(end));
	for (;;) {
		p[0].fd = eof ? -1 : child->fd;
		if (poll(p, p[1].fd >= 0 ? 2 : 1, POLL_MS) > 0 && !eof && (p[0].revents & (POLLIN | POLLHUP)))
			eof = drain(child->fd, &res->out) == DRAIN_EOF;
		if (proc_poll(child, &end))
			break;
		if (over_limit(res, limits, child->pid, base, start)) {
			proc_kill(child, SIGKILL);
			goto done;
		}
	}
	/* the child is gone: what is left in the pipe ends in end of file */
	while (!eof && !(limits->output && res->out.len > limits->output))
		eof = drain(child->fd, &res->out) != DRAIN_MORE;
	res->seconds = time_now() - start;
	if (limits->output && res->out.len > limits->output) {
		res->end = ISOLATE_OUTPUT;
	} else if (end.signal) {
		res->end = ISOLATE_SIGNALED;
		res->status = end.signal;
	} else {
		res->end = ISOLATE_EXITED;
		res->status = end.status;
	}
done:
	if (p[1].fd >= 0)
		close(p[1].fd);
	proc_wait(child, &end);
	proc_result_release(&end);
}

/*
 * The child ends with its parent (PR_SET_PDEATHSIG): nobody would stop it
 * past its limits once the run is gone, and it holds the workspace's lock.
 */
int isolate_run(struct isolate_result *res, const struct isolate_limits *limits,
		void (*fn)(void *data, int fd), void *data)
{
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc child;
	size_t base;
	double start = time_now();

	memset(res, 0, sizeof(*res));
	o.fn = fn;
	o.data = data;
	o.death_signal = SIGKILL;
	/*
	 * Memory freed here but kept by malloc would be shared with the child
	 * and copied page by page as the child's malloc reuses it: give it
	 * back first.  What the child shares with this process at first
	 * counts as its own in RssAnon.
	 */
	malloc_trim(0);
	base = rss_anon(getpid());
	if (proc_start(&child, &o) < 0)
		return TIDE_ERROR;
	fcntl(child.fd, F_SETFL, O_NONBLOCK);
	watch(res, limits, &child, base, start);
	return 0;
}

void isolate_result_release(struct isolate_result *res)
{
	buf_release(&res->out);
}

void isolate_describe(struct buf *out, const struct isolate_result *res,
		      const struct isolate_limits *limits)
{
	switch (res->end) {
	case ISOLATE_TIME:
		buf_printf(out, "took more than %g s (merge-timeout)", limits->seconds);
		break;
	case ISOLATE_MEMORY:
		buf_printf(out, "used more than %zu MB of memory (merge-memory)",
			   limits->memory >> 20);
		break;
	case ISOLATE_OUTPUT:
		buf_printf(out, "sent more than %zu MB of results", limits->output >> 20);
		break;
	case ISOLATE_SIGNALED:
		buf_printf(out, "crashed (signal %d, %s)", res->status, strsignal(res->status));
		break;
	default:
		buf_printf(out, "exited with status %d", res->status);
		break;
	}
}
