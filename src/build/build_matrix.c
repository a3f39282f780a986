#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "build_matrix.h"
#include "buf.h"
#include "buildconf.h"
#include "dayrec.h"
#include "error.h"
#include "proc.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

/*
 * What a child sends, one line each: "E KIND SEVERITY REDRAW TREE MESSAGE"
 * for an event (TREE "-" for none), then "R JSON", {"record": ...} or
 * {"error": "..."}.  A record with thousands of warnings is a long line;
 * one longer than this is a child gone wrong, killed.
 */
#define MATRIX_LINE_MAX ((size_t)64 << 20)

struct child {
	struct proc proc;	/* a copy of tide running build_day() */
	int fd;			/* its pipe's read end (proc.fd), -1 once it ended */
	const struct build_day_opts *o;
	struct buf in;		/* bytes not yet a whole line */
	char *status;		/* its last status-line redraw, or NULL */
	json_t *result;		/* its "R" line */
	int killed;		/* sent a line over MATRIX_LINE_MAX */
};

int build_matrix_jobs(int jobs, int parallel)
{
	long cpus;

	if (parallel <= 1)
		return jobs;
	if (jobs <= 0) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = cpus > 0 ? (int)cpus : 1;
	}
	return jobs / parallel > 0 ? jobs / parallel : 1;
}

/* ---- in a child ---- */

static void child_event(void *data, const struct event *ev)
{
	int fd = *(int *)data;
	struct buf b = BUF_INIT;
	const char *m;

	buf_printf(&b, "E %d %d %d %s ", (int)ev->kind, (int)ev->severity, ev->redraw ? 1 : 0,
		   ev->tree ? ev->tree : "-");
	for (m = ev->message ? ev->message : ""; *m; m++)
		buf_putc(&b, *m == '\n' || *m == '\r' ? ' ' : *m);
	buf_putc(&b, '\n');
	(void)fd_write_all(fd, b.ptr, b.len);	/* a parent gone away: the record is lost anyway */
	buf_release(&b);
}

/* What a child needs: its configuration, the day, and the pipes of the others to close. */
struct child_args {
	struct day *day;
	git_repository *repo;
	const char *wsdir, *daydir;
	const struct day *prev;
	const struct build_day_opts *o;
	const struct child *self, *kids;
	size_t n;
};

/* In the child (proc_start()'s fn): build, then send the record. */
static void __attribute__((noreturn)) child_run(void *data, int fd)
{
	const struct child_args *a = data;
	struct event_sink sink = { child_event, &fd };
	struct build_day_opts mine = *a->o;
	json_t *out = json_object();
	char *text;
	size_t i;
	int rc = 0;

	for (i = 0; i < a->n; i++)
		if (a->kids[i].fd >= 0 && &a->kids[i] != a->self)
			close(a->kids[i].fd);
	mine.events = &sink;
	mine.no_checkout = 1;
	if (build_day(a->day, a->repo, a->wsdir, a->daydir, a->prev, &mine, NULL) < 0)
		json_object_set_new(out, "error", json_text(tide_error_last()));
	else
		json_object_set_new(out, "record", day_build_to_json(*build_day_slot(a->day, &mine)));
	text = json_dumps(out, JSON_COMPACT);
	if (!text || fd_write_all(fd, "R ", 2) < 0 || fd_write_all(fd, text, strlen(text)) < 0 ||
	    fd_write_all(fd, "\n", 1) < 0)
		rc = 1;
	/* _exit: the parent's atexit handlers and stdio buffers are not ours to run. */
	_exit(rc);
}

/* ---- in tide ---- */

static const char *config_name(const struct build_day_opts *o)
{
	return o->config ? o->config->name : BUILD_CONFIG_DEFAULT;
}

/*
 * One status line for every running build.  Several share a terminal's
 * width, so each is shortened: "smoke: compiling, 10 of ~900 in 5 s |
 * arm64: ..." (without "build " and " objects (estimate)").
 */
static void redraw_all(const struct event_sink *events, const struct child *kids, size_t n)
{
	static const char noise[] = " objects (estimate)";
	struct buf b = BUF_INIT;
	size_t i, shown = 0;

	for (i = 0; i < n; i++)
		shown += kids[i].fd >= 0 && kids[i].status;
	for (i = 0; i < n; i++) {
		const char *s = kids[i].status, *cut;

		if (kids[i].fd < 0 || !s)
			continue;
		if (b.len)
			buf_puts(&b, " | ");
		if (shown > 1 && str_starts_with(s, "build "))
			s += strlen("build ");
		if (shown > 1 && (cut = strstr(s, noise))) {
			buf_put(&b, s, (size_t)(cut - s));
			s = cut + strlen(noise);
		}
		buf_puts(&b, s);
	}
	if (b.len)
		event_redrawf(events, EVENT_BUILD, "%s", buf_cstr(&b));
	buf_release(&b);
}

static void child_line(struct child *c, char *line, const struct event_sink *events,
		       const struct child *kids, size_t n)
{
	struct event ev = { 0 };
	int kind, severity, redraw, used = 0;
	char *tree;

	if (line[0] == 'R' && line[1] == ' ') {
		json_decref(c->result);
		c->result = json_loads(line + 2, 0, NULL);
		return;
	}
	if (line[0] != 'E' || sscanf(line, "E %d %d %d %n", &kind, &severity, &redraw, &used) != 3 ||
	    !used || kind < EVENT_FETCH || kind > EVENT_RECORD || severity < EVENT_PROGRESS ||
	    severity > EVENT_PROBLEM)
		return;
	tree = line + used;
	line = tree + strcspn(tree, " ");
	if (*line)
		*line++ = '\0';
	if (redraw) {
		free(c->status);
		c->status = xstrdup(line);
		redraw_all(events, kids, n);
		return;
	}
	ev.kind = (enum event_kind)kind;
	ev.severity = (enum event_severity)severity;
	ev.tree = strcmp(tree, "-") ? tree : NULL;
	ev.message = line;
	event_emit(events, &ev);
}

/* Read what c sent; 0 at its end (EOF), 1 while it goes on. */
static int child_read(struct child *c, const struct event_sink *events,
		      const struct child *kids, size_t n)
{
	char chunk[65536], *nl;
	ssize_t got = read(c->fd, chunk, sizeof(chunk));
	size_t start = 0;

	if (got < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (got == 0)
		return 0;
	if (c->killed)
		return 1;
	buf_put(&c->in, chunk, (size_t)got);
	while ((nl = memchr(c->in.ptr + start, '\n', c->in.len - start))) {
		*nl = '\0';
		child_line(c, c->in.ptr + start, events, kids, n);
		start = (size_t)(nl - c->in.ptr) + 1;
	}
	if (start) {
		memmove(c->in.ptr, c->in.ptr + start, c->in.len - start);
		buf_truncate(&c->in, c->in.len - start);
	}
	if (c->in.len > MATRIX_LINE_MAX) {
		proc_kill(&c->proc, SIGKILL);
		c->killed = 1;
		buf_clear(&c->in);
	}
	return 1;
}

/* Why a child that sent no record ended: "exit status 1", "killed by signal 9". */
static char *child_end_text(const struct proc_result *end)
{
	if (end->signal)
		return xasprintf("killed by signal %d", end->signal);
	return xasprintf("exit status %d", end->status);
}

/*
 * o's build has ended: rec into the day (NULL: tide could not build it, a
 * "failed" record saying why), unless build_day() put it there already,
 * and the hook told.
 */
static void settle(struct day *day, const struct build_day_opts *o, struct day_build *rec,
		   const char *why, const struct build_matrix_hooks *hooks)
{
	struct day_build **slot = build_day_slot(day, o);

	if (!rec || *slot != rec) {
		day_build_free(*slot);
		*slot = rec ? rec : day_build_failed("failed", why);
	}
	if (hooks && hooks->finished)
		hooks->finished(hooks->data, o, rec, why);
}

/* The child has ended: its record into the day, and the hook told. */
static void child_finish(struct child *c, struct day *day, const struct build_matrix_hooks *hooks)
{
	struct day_build *rec = NULL;
	const json_t *j = c->result ? json_object_get(c->result, "record") : NULL;
	const json_t *e = c->result ? json_object_get(c->result, "error") : NULL;
	struct proc_result ended = { 0 };
	char *why = NULL, *end;

	c->fd = -1;
	proc_wait(&c->proc, &ended);	/* closes the pipe */
	if (c->killed) {
		why = xasprintf("the build of %s sent a line over %zu MiB: stopped",
				config_name(c->o), MATRIX_LINE_MAX >> 20);
	} else if (j) {
		if (day_build_from_json(&rec, j, "build") < 0) {
			why = xasprintf("the build of %s sent a bad record: %s", config_name(c->o),
					tide_error_last());
			tide_error_clear();
		}
	} else if (e && json_is_string(e)) {
		why = xstrdup(json_string_value(e));
	} else {
		end = child_end_text(&ended);
		why = xasprintf("the build of %s ended without a record (%s)", config_name(c->o), end);
		free(end);
	}
	settle(day, c->o, rec, why, hooks);
	proc_result_release(&ended);
	free(why);
	free(c->status);
	c->status = NULL;
	buf_release(&c->in);
	json_decref(c->result);
	c->result = NULL;
}

static int child_start(struct child *c, const struct build_day_opts *o, struct child *kids,
		       size_t n, struct day *day, git_repository *repo, const char *wsdir,
		       const char *daydir, const struct day *prev)
{
	struct child_args a = { day, repo, wsdir, daydir, prev, o, c, kids, n };
	struct proc_opts po = PROC_OPTS_INIT;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->o = o;
	po.fn = child_run;
	po.data = &a;
	/* tide killed, its builds stop too rather than race the next run. */
	po.death_signal = SIGTERM;
	if (proc_start(&c->proc, &po) < 0)
		return tide_error_wrap(TIDE_EIO, "cannot start the build of %s", config_name(o));
	c->fd = c->proc.fd;
	return 0;
}

/* The source tree at the day's commit, once, before the builds share it. */
static int matrix_checkout(const struct day *day, git_repository *repo, const char *wsdir,
			   const struct event_sink *events)
{
	char *abs = path_absolute(wsdir);
	char *src = workspace_build_src(abs), *state = workspace_build_state(abs);
	struct checkout_stats st = { 0 };
	git_oid commit;
	int error;

	if ((error = build_record_oid(&commit, day->commit, "commit")) < 0)
		goto done;
	event_emitf(events, EVENT_BUILD, EVENT_PROGRESS, NULL, "matrix: checkout of %.12s",
		    day->commit);
	if ((error = checkout_tree(&st, repo, &commit, src, state)) == 0)
		event_emitf(events, EVENT_BUILD, EVENT_PROGRESS, NULL,
			    "matrix: checkout in %.1f s (%zu files written, %zu removed)",
			    st.seconds, st.written, st.removed);
done:
	checkout_stats_release(&st);
	free(state);
	free(src);
	free(abs);
	return error;
}

/* Every configuration from i on gets a "failed" record saying why (tide could not go on). */
static void fail_rest(struct day *day, const struct build_day_opts *opts, size_t i, size_t n,
		      const char *why, const struct build_matrix_hooks *hooks)
{
	for (; i < n; i++)
		settle(day, &opts[i], NULL, why, hooks);
}

static int matrix_serial(struct day *day, git_repository *repo, const char *wsdir,
			 const char *daydir, const struct day *prev,
			 const struct build_day_opts *opts, size_t n,
			 const struct build_matrix_hooks *hooks)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char *why;

		if (hooks && hooks->started)
			hooks->started(hooks->data, &opts[i]);
		if (build_day(day, repo, wsdir, daydir, prev, &opts[i], NULL) == 0) {
			settle(day, &opts[i], *build_day_slot(day, &opts[i]), NULL, hooks);
			continue;
		}
		/* tide failing (no fragment, I/O) is this configuration's record only. */
		why = xstrdup(tide_error_last());
		tide_error_clear();
		settle(day, &opts[i], NULL, why, hooks);
		free(why);
	}
	return 0;
}

int build_matrix_run(struct day *day, git_repository *repo, const char *wsdir,
		     const char *daydir, const struct day *prev,
		     const struct build_day_opts *opts, size_t n, int parallel,
		     const struct event_sink *events, const struct build_matrix_hooks *hooks)
{
	struct child *kids;
	struct pollfd *pfd;
	size_t next = 0, running = 0, i, k;
	int error = 0;

	if (parallel <= 1 || n <= 1)
		return matrix_serial(day, repo, wsdir, daydir, prev, opts, n, hooks);
	if (matrix_checkout(day, repo, wsdir, events) < 0) {
		char *why = xasprintf("checkout for the matrix: %s", tide_error_last());

		fail_rest(day, opts, 0, n, why, hooks);
		free(why);
		return 0;	/* every configuration has its record */
	}
	kids = xcalloc(n, sizeof(*kids));
	pfd = xcalloc(n, sizeof(*pfd));
	for (i = 0; i < n; i++)
		kids[i].fd = -1;
	while (next < n || running) {
		while (running < (size_t)parallel && next < n) {
			if (hooks && hooks->started)
				hooks->started(hooks->data, &opts[next]);
			if ((error = child_start(&kids[next], &opts[next], kids, n, day, repo, wsdir,
						 daydir, prev)) < 0) {
				char *why = xstrdup(tide_error_last());

				fail_rest(day, opts, next, n, why, hooks);
				free(why);
				next = n;
				break;
			}
			next++;
			running++;
		}
		if (!running)
			break;
		for (i = k = 0; i < next; i++)
			if (kids[i].fd >= 0)
				pfd[k++] = (struct pollfd){ .fd = kids[i].fd, .events = POLLIN };
		if (poll(pfd, k, -1) < 0) {
			if (errno == EINTR)
				continue;
			error = tide_error_errno(TIDE_EIO, "cannot wait for the builds");
			break;
		}
		for (i = k = 0; i < next; i++) {
			if (kids[i].fd < 0)
				continue;
			if ((pfd[k++].revents & (POLLIN | POLLHUP | POLLERR)) &&
			    !child_read(&kids[i], events, kids, next)) {
				child_finish(&kids[i], day, hooks);
				running--;
			}
		}
	}
	/* poll() failing leaves children behind: stop them, and say so in their records. */
	for (i = 0; i < next; i++)
		if (kids[i].fd >= 0) {
			proc_kill(&kids[i].proc, SIGTERM);
			child_finish(&kids[i], day, hooks);
		}
	if (error < 0 && next < n) {
		char *why = xasprintf("not built: %s", tide_error_last());

		fail_rest(day, opts, next, n, why, hooks);
		free(why);
	}
	free(pfd);
	free(kids);
	return error;
}
