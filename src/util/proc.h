#ifndef TIDE_PROC_H
#define TIDE_PROC_H

#include <stddef.h>
#include <sys/types.h>

#include "buf.h"

/*
 * Child processes: every fork of tide goes through here, a program run
 * (make, QEMU, a bisect --cmd, a tool asked for its version) or a
 * function of tide run in a copy of itself (a configuration's build).
 * The rules are the same for all: stdin is /dev/null, a time limit or a
 * stop kills the child's whole process group when it has one, a child
 * can be told to die with tide, and a program that cannot be started
 * says why in the result, not on tide's stderr.
 */

/* Where a program's stdout or stderr goes. */
enum proc_stream {
	PROC_NULL,		/* /dev/null */
	PROC_CAPTURE,		/* into the result's out or err */
	PROC_FD,		/* opts' out_fd or err_fd (a log) */
};

struct proc_opts {
	/* The program (looked up in PATH) and its arguments ... */
	char *const *argv;
	const char *program;	/* argv's program file, not looked up; NULL: argv[0] */
	/*
	 * ... or, argv NULL, fn(data, fd) run in a forked copy of tide, fd the
	 * write end of a pipe whose read end is proc.fd; the child ends with
	 * _exit(0) after fn returns (no atexit handlers, no stdio flushed
	 * twice).  stdio is left as it is.
	 */
	void (*fn)(void *data, int fd);
	void *data;
	char *const *env;	/* argv's whole environment (proc_env()); NULL: tide's */
	const char *cwd;	/* argv runs there; NULL: here */
	int nice;		/* niceness added; 0: none */
	enum proc_stream out, err;
	int out_fd, err_fd;	/* with PROC_FD */
	int tee_fd;		/* captured stdout also copied here as it comes; -1: none */
	size_t capture_max;	/* a stream stops growing once it holds this much; 0: no limit */
	double timeout;		/* seconds, then SIGKILL (the result says timed_out); 0: none */
	const char *stop_on;	/* captured stdout showing this: SIGKILL (stopped) */
	int own_group;		/* a process group of its own: a kill reaches what it started */
	int death_signal;	/* sent to it if tide dies first; 0: it outlives tide */
	/* Called about four times a second while argv runs, and once after. */
	void (*tick)(void *data);
	void *tick_data;
};

#define PROC_OPTS_INIT { .out_fd = -1, .err_fd = -1, .tee_fd = -1 }

struct proc_result {
	int exited;		/* it exited: status is its exit status */
	int status;		/* the exit status, or -1 */
	int signal;		/* the signal that ended it, or 0 */
	int timed_out;		/* killed at opts' timeout */
	int stopped;		/* killed once stop_on showed */
	double seconds;
	struct buf out, err;	/* PROC_CAPTURE */
	/*
	 * argv could not be started: "cannot run 'qemu': No such file or
	 * directory", "cannot enter 'DIR': ..." (it exited 127); else NULL.
	 */
	char *failed_start;
};

void proc_result_release(struct proc_result *res);

/* The exit status, or 128+N for signal N, as a shell reports them. */
int proc_code(const struct proc_result *res);

/*
 * Run opts' program or function to its end.  Returns 0 however it ended
 * (the result says how), or TIDE_ERROR when no child could be made.
 */
int proc_run(struct proc_result *res, const struct proc_opts *opts);

/* ---- a child that runs while its parent does other things ---- */

struct proc {
	pid_t pid;
	int fd;			/* fn's pipe, read end (close-on-exec); -1 for argv */
	int group;		/* it leads its own process group */
	double start;
	int out, err;		/* argv's PROC_CAPTURE pipes, read ends; -1 when not captured */
	char *failed_start;	/* see proc_result */
};

/*
 * Start opts' function (proc.fd to read what it writes) or program; the
 * caller reads, then proc_wait()s.  TIDE_ERROR when no child could be
 * made.  proc_run() is proc_start(), reading, proc_wait().
 */
int proc_start(struct proc *p, const struct proc_opts *opts);

/* Send sig to the child (its whole group when it has one). */
void proc_kill(const struct proc *p, int sig);

/*
 * Has the child ended?  1: it has (res says how, as proc_wait() would;
 * what proc_start() left open stays open, to be read to its end), 0: it
 * still runs.  proc_wait() then only closes.
 */
int proc_poll(struct proc *p, struct proc_result *res);

/* Wait for the child's end, closing what proc_start() left open; res's streams are kept. */
void proc_wait(struct proc *p, struct proc_result *res);

/*
 * Run argv (searched in PATH, stdin and stderr /dev/null) and return the
 * first line of its standard output, or NULL when it cannot run, fails,
 * prints nothing or takes more than 30 s: `gcc --version` for a record.
 * The caller frees.
 */
char *proc_first_line(char *const argv[]);

/*
 * tide's environment with set ("NAME=VALUE", NULL-terminated) replacing
 * or adding, and every entry starting with one of drop (NULL-terminated,
 * or NULL) left out.  The array is the caller's to free(), its strings
 * are borrowed.
 */
char **proc_env(char *const *set, const char *const *drop);

#endif
