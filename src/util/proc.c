/* Child processes (see proc.h): one fork, one set of rules. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "proc.h"
#include "util.h"

extern char **environ;

/* How often a tick comes, and how often a waiting parent looks. */
#define PROC_TICK_MS 250
/* Seconds a tool may take to say its version. */
#define PROC_FIRST_LINE_TIMEOUT 30

/* What a child that could not start writes on its status pipe. */
struct start_report {
	int step;		/* 1: exec, 2: chdir */
	int err;		/* errno */
};

void proc_result_release(struct proc_result *res)
{
	buf_release(&res->out);
	buf_release(&res->err);
	free(res->failed_start);
	memset(res, 0, sizeof(*res));
}

int proc_code(const struct proc_result *res)
{
	return res->signal ? 128 + res->signal : res->status;
}

char **proc_env(char *const *set, const char *const *drop)
{
	size_t n = 0, m = 0, i, j, k = 0;
	char **env;

	while (environ[n])
		n++;
	while (set && set[m])
		m++;
	env = xcalloc(n + m + 1, sizeof(*env));
	for (i = 0; i < n; i++) {
		int keep = 1;

		for (j = 0; keep && drop && drop[j]; j++)
			keep = !str_starts_with(environ[i], drop[j]);
		for (j = 0; keep && j < m; j++) {
			const char *eq = strchr(set[j], '=');
			size_t len = eq ? (size_t)(eq - set[j]) + 1 : strlen(set[j]);

			keep = strncmp(environ[i], set[j], len) != 0;
		}
		if (keep)
			env[k++] = environ[i];
	}
	for (j = 0; j < m; j++)
		env[k++] = set[j];
	return env;
}

/* ---- in the child (between fork and exec: system calls only) ---- */

static void child_stream(int target, enum proc_stream how, int fd, int pipe_end, int null)
{
	if (how == PROC_FD && fd >= 0)
		dup2(fd, target);
	else if (how == PROC_CAPTURE)
		dup2(pipe_end, target);
	else if (null >= 0)
		dup2(null, target);
}

static void __attribute__((noreturn))
child_exec(const struct proc_opts *o, int out_end, int err_end, int report)
{
	struct start_report r = { 1, 0 };
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null >= 0)
		dup2(null, STDIN_FILENO);
	child_stream(STDOUT_FILENO, o->out, o->out_fd, out_end, null);
	child_stream(STDERR_FILENO, o->err, o->err_fd, err_end, null);
	if (o->nice && nice(o->nice) < 0)
		(void)0;	/* running at normal priority is fine */
	if (o->cwd && chdir(o->cwd) < 0) {
		r.step = 2;
	} else {
		execvpe(o->program ? o->program : o->argv[0], o->argv, o->env ? o->env : environ);
	}
	r.err = errno;
	if (write(report, &r, sizeof(r)) < 0)
		(void)0;	/* the exit status still says it */
	_exit(127);
}

static void __attribute__((noreturn))
child_start(const struct proc_opts *o, pid_t parent, int fn_end, int out_end, int err_end,
	    int report)
{
	if (o->death_signal) {
		prctl(PR_SET_PDEATHSIG, o->death_signal);
		if (getppid() != parent)
			_exit(1);	/* tide died before the line above */
	}
	if (o->own_group)
		setpgid(0, 0);
	if (!o->argv) {
		o->fn(o->data, fn_end);
		_exit(0);
	}
	child_exec(o, out_end, err_end, report);
}

/* ---- in tide ---- */

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

/* The child's report, if it wrote one before it could not exec. */
static void read_report(struct proc *p, const struct proc_opts *o, int fd)
{
	struct start_report r;
	ssize_t got;

	while ((got = read(fd, &r, sizeof(r))) < 0 && errno == EINTR)
		;
	if (got != (ssize_t)sizeof(r))
		return;		/* EOF: exec closed it */
	if (r.step == 2)
		p->failed_start = xasprintf("cannot enter '%s': %s", o->cwd, strerror(r.err));
	else
		p->failed_start = xasprintf("cannot run '%s': %s", o->program ? o->program : o->argv[0],
					    strerror(r.err));
}

int proc_start(struct proc *p, const struct proc_opts *o)
{
	int fn[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
	int report[2] = { -1, -1 };
	pid_t parent = getpid();

	memset(p, 0, sizeof(*p));
	p->fd = p->out = p->err = -1;
	if ((!o->argv && pipe2(fn, O_CLOEXEC) < 0) ||
	    (o->argv && pipe2(report, O_CLOEXEC) < 0) ||
	    (o->argv && o->out == PROC_CAPTURE && pipe2(out, O_CLOEXEC) < 0) ||
	    (o->argv && o->err == PROC_CAPTURE && pipe2(err, O_CLOEXEC) < 0)) {
		tide_error_errno(TIDE_ERROR, "cannot make a pipe");
		goto fail;
	}
	if (!o->argv)
		fflush(NULL);	/* the copy must not write out tide's buffers again */
	p->start = time_now();
	if ((p->pid = fork()) < 0) {
		if (o->argv)
			tide_error_errno(TIDE_ERROR, "cannot start '%s'", o->argv[0]);
		else
			tide_error_errno(TIDE_ERROR, "cannot fork");
		goto fail;
	}
	if (p->pid == 0) {
		close(fn[0]);
		close(out[0]);
		close(err[0]);
		close(report[0]);
		child_start(o, parent, fn[1], out[1], err[1], report[1]);
	}
	if (o->own_group) {
		setpgid(p->pid, p->pid);	/* both sides: no kill before the child's own call misses */
		p->group = 1;
	}
	close(fn[1]);
	close(out[1]);
	close(err[1]);
	close(report[1]);
	p->fd = fn[0];
	p->out = out[0];
	p->err = err[0];
	if (report[0] >= 0) {
		read_report(p, o, report[0]);
		close(report[0]);
	}
	return 0;
fail:
	close_pair(fn);
	close_pair(out);
	close_pair(err);
	close_pair(report);
	return TIDE_ERROR;
}

void proc_kill(const struct proc *p, int sig)
{
	if (p->pid > 0)
		kill(p->group ? -p->pid : p->pid, sig);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void set_end(struct proc_result *res, int status)
{
	res->exited = WIFEXITED(status);
	res->status = res->exited ? WEXITSTATUS(status) : -1;
	res->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/* The child reaped with status: its end in res. */
static void ended(struct proc *p, struct proc_result *res, int status)
{
	set_end(res, status);
	res->seconds = time_now() - p->start;
	p->pid = 0;
}

int proc_poll(struct proc *p, struct proc_result *res)
{
	int status = 0;

	if (p->pid <= 0)
		return 1;
	if (waitpid(p->pid, &status, WNOHANG) != p->pid)
		return 0;
	ended(p, res, status);
	return 1;
}

void proc_wait(struct proc *p, struct proc_result *res)
{
	int status = 0;

	close_fd(&p->fd);
	close_fd(&p->out);
	close_fd(&p->err);
	if (p->pid > 0) {
		while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
			;
		ended(p, res, status);
	}
	free(res->failed_start);
	res->failed_start = p->failed_start;
	p->failed_start = NULL;
	p->pid = 0;
}

/* ---- proc_run(): reading, the clock, the ticks ---- */

struct pump {
	const struct proc_opts *o;
	struct proc *p;
	struct proc_result *res;
	double deadline;	/* 0: none */
	double next_tick;
};

/* Milliseconds poll() may sleep: to the next tick or the deadline; -1: no limit. */
static int wait_ms(const struct pump *u)
{
	double now = time_now(), until = 0;

	if (u->o->tick)
		until = u->next_tick;
	if (u->deadline && (!until || u->deadline < until))
		until = u->deadline;
	if (!until)
		return -1;
	return until <= now ? 0 : (int)((until - now) * 1000) + 1;
}

static void maybe_tick(struct pump *u)
{
	if (u->o->tick && time_now() >= u->next_tick) {
		u->o->tick(u->o->tick_data);
		u->next_tick = time_now() + PROC_TICK_MS / 1000.0;
	}
}

/* Read what fd has; 0 at its end. */
static int drain(struct pump *u, int fd, struct buf *into, int tee)
{
	char chunk[8192];
	ssize_t n = read(fd, chunk, sizeof(chunk));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return 0;
	if (!u->o->capture_max || into->len < u->o->capture_max)
		buf_put(into, chunk, (size_t)n);
	if (tee && u->o->tee_fd >= 0 && write(u->o->tee_fd, chunk, (size_t)n) < 0)
		return 1;	/* a full disk must not stop the child */
	return 1;
}

/* Whether the clock or stop_on ends the child: 1 when it must be killed. */
static int must_stop(struct pump *u)
{
	const struct buf *out = &u->res->out;

	if (u->o->stop_on && out->len && memmem(out->ptr, out->len, u->o->stop_on,
						   strlen(u->o->stop_on))) {
		u->res->stopped = 1;
		return 1;
	}
	if (u->deadline && time_now() >= u->deadline) {
		u->res->timed_out = 1;
		return 1;
	}
	return 0;
}

/* Read the captured streams until both end; 1 when the child must be killed. */
static int pump_streams(struct pump *u)
{
	struct pollfd fds[2];
	int *ends[2] = { u->p->out >= 0 ? &u->p->out : &u->p->fd, &u->p->err };
	struct buf *into[2] = { &u->res->out, &u->res->err };
	int i;

	for (;;) {
		int n = 0;

		for (i = 0; i < 2; i++)
			fds[i] = (struct pollfd){ .fd = *ends[i], .events = POLLIN };
		n = (*ends[0] >= 0) + (*ends[1] >= 0);
		if (!n)
			return 0;
		if (poll(fds, 2, wait_ms(u)) < 0 && errno != EINTR)
			return 0;	/* waiting for the end is all that is left */
		for (i = 0; i < 2; i++)
			if (fds[i].fd >= 0 && fds[i].revents &&
			    !drain(u, fds[i].fd, into[i], i == 0))
				close_fd(ends[i]);
		if (must_stop(u))
			return 1;
		maybe_tick(u);
	}
}

/* The streams have ended: wait for the child itself, on the clock. */
static int pump_wait(struct pump *u)
{
	int status;

	if (!u->o->tick && !u->deadline)
		return 0;	/* proc_wait() blocks */
	for (;;) {
		pid_t got = waitpid(u->p->pid, &status, WNOHANG);
		int ms;

		if (got == u->p->pid) {
			/* Reaped here: proc_wait() must not wait for it again. */
			set_end(u->res, status);
			return -1;
		}
		if (got < 0 && errno != EINTR)
			return 0;
		if (must_stop(u))
			return 1;
		maybe_tick(u);
		/* a short pause: the child's end is seen when it comes, not at the deadline */
		ms = wait_ms(u);
		if (ms > 10)
			ms = 10;
		if (ms > 0) {
			struct timespec pause = { ms / 1000, (long)(ms % 1000) * 1000000L };

			nanosleep(&pause, NULL);
		}
	}
}

int proc_run(struct proc_result *res, const struct proc_opts *o)
{
	struct proc p;
	struct pump u = { o, &p, res, 0, 0 };
	int kill_it, reaped;

	memset(res, 0, sizeof(*res));
	if (proc_start(&p, o) < 0)
		return TIDE_ERROR;
	if (o->timeout > 0)
		u.deadline = p.start + o->timeout;
	u.next_tick = p.start;
	maybe_tick(&u);
	kill_it = pump_streams(&u);
	reaped = kill_it ? 0 : pump_wait(&u);
	if (reaped == 1)
		kill_it = 1;
	if (kill_it)
		proc_kill(&p, SIGKILL);
	if (reaped == -1) {
		close_fd(&p.fd);
		close_fd(&p.out);
		close_fd(&p.err);
		res->seconds = time_now() - p.start;
		res->failed_start = p.failed_start;
	} else {
		proc_wait(&p, res);
	}
	if (o->tick)
		o->tick(o->tick_data);
	return 0;
}

char *proc_first_line(char *const argv[])
{
	struct proc_opts o = PROC_OPTS_INIT;
	struct proc_result res;
	char *line = NULL;

	o.argv = argv;
	o.out = PROC_CAPTURE;
	o.capture_max = 65536;
	/* A version query that hangs must not hold up the build or boot it describes. */
	o.timeout = PROC_FIRST_LINE_TIMEOUT;
	o.own_group = 1;
	if (proc_run(&res, &o) < 0) {
		tide_error_clear();
		return NULL;
	}
	if (res.exited && res.status == 0 && res.out.len) {
		size_t len = strcspn(buf_cstr(&res.out), "\n");

		if (len)
			line = xstrndup(res.out.ptr, len);
	}
	proc_result_release(&res);
	return line;
}
