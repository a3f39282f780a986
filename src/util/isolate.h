#ifndef TIDE_ISOLATE_H
#define TIDE_ISOLATE_H

#include <stddef.h>

#include "buf.h"

/*
 * Work on one tree's objects in a child process the run can stop: a
 * crash, a time limit or a memory limit ends that child, never the
 * night.  The child gets a pipe to write its result to; the parent reads
 * it while it watches the clock and the child's memory.
 */
struct isolate_limits {
	double seconds;		/* wall-clock time; 0: none */
	size_t memory;		/* anonymous memory the child may add to what it started with; 0: none */
	size_t output;		/* bytes the child may write; 0: none */
};

enum isolate_end {
	ISOLATE_EXITED,		/* status: the exit status */
	ISOLATE_SIGNALED,	/* status: the signal */
	ISOLATE_TIME,		/* stopped at limits.seconds */
	ISOLATE_MEMORY,		/* stopped past limits.memory */
	ISOLATE_OUTPUT,		/* stopped past limits.output */
};

struct isolate_result {
	enum isolate_end end;
	int status;
	double seconds;
	size_t peak;		/* the most anonymous memory the child added, as last seen */
	struct buf out;		/* what the child wrote to its fd */
};

/*
 * Run fn(data, fd) in a child process that exits after it returns
 * (_exit(0): no atexit handlers, no stdio flushed twice); what fn writes
 * to fd ends up in res->out.  Returns 0 however the child ended (see
 * res->end), or TIDE_ERROR when no child could be started.
 */
int isolate_run(struct isolate_result *res, const struct isolate_limits *limits,
		void (*fn)(void *data, int fd), void *data);
void isolate_result_release(struct isolate_result *res);

/*
 * How a child that did not exit 0 ended, for a message: "crashed (signal
 * 11, Segmentation fault)", "took more than 300 s (merge-timeout)",
 * "used more than 512 MB of memory (merge-memory)", "exited with status 1".
 */
void isolate_describe(struct buf *out, const struct isolate_result *res,
		      const struct isolate_limits *limits);

/* Write all of len bytes to fd (the child's side); 0 or -1. */
int isolate_write(int fd, const void *data, size_t len);

#endif
