/* Unit tests of src/quilt.c and src/patch.c, checked against `git am`. */
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <git2.h>

#include "error.h"
#include "patch.h"
#include "quilt.h"
#include "util.h"
#include "t.h"
#include "t_files.h"

/* A scratch directory; libgit2 is initialised on first use. */
static char *tmpdir(void)
{
	static int inited;

	if (!inited++)
		git_libgit2_init();
	return t_tmpdir("quilt");
}

/*
 * dir/src: a git repository with a base commit (tag "base") and two
 * commits after it by different authors; dir/series: format-patch of them
 * plus a series file; dir/am: the reference, `git am` of the series.
 */
static int make_series(const char *dir)
{
	return t_sh_in(dir, T_GITENV
		  "git init -q -b main src && cd src && "
		  "printf 'a\\nb\\nc\\n' >f && mkdir d && echo x >d/g && git add . && "
		  "git commit -qm base && git tag base && "
		  "echo B >>f && GIT_AUTHOR_NAME='Ann Author' GIT_AUTHOR_EMAIL=ann@ex.org "
		  "GIT_AUTHOR_DATE='2026-11-30T10:00:00+0100' git commit -qam 'f: add B' "
		  "-m 'Because B matters.' && "
		  "echo y >d/new && git add d/new && GIT_AUTHOR_NAME='Bob B' "
		  "GIT_AUTHOR_EMAIL=bob@ex.org GIT_AUTHOR_DATE='2026-12-01T09:30:00-0500' "
		  "git commit -qm 'd: add new' && "
		  "mkdir ../series && git format-patch -q -o ../series base && "
		  "cd ../series && { echo '# the series'; echo; ls *.patch | sed 's/$/ -p1/'; } >series && "
		  "cd .. && git clone -q src am && cd am && git checkout -q base && "
		  "git am -q ../series/*.patch");
}

TEST(quilt__series_parse_skips_comments_and_options)
{
	struct quilt_series s;

	CHECK_INT(quilt_series_parse(&s, "# c\n\n a.patch -p1\nb.patch # why\nsub/c.patch"), 0);
	REQUIRE(s.npatches == 3);
	CHECK_STR(s.patches[0], "a.patch");
	CHECK_STR(s.patches[1], "b.patch");
	CHECK_STR(s.patches[2], "sub/c.patch");
	quilt_series_release(&s);
	CHECK_INT(quilt_series_parse(&s, "ok.patch\n../../etc/passwd\n"), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "../../etc/passwd") != NULL);
	CHECK_INT(quilt_series_parse(&s, "/abs.patch\n"), TIDE_EINVAL);
}

TEST(patch__parse_mail_headers_and_body)
{
	const char *text =
		"From 1234 Mon Sep 17 00:00:00 2001\n"
		"From: =?UTF-8?q?J=C3=B6rg_M=C3=BCller?= <jm@ex.org>\n"
		"Date: Tue, 1 Dec 2026 09:30:00 -0500\n"
		"Subject: [PATCH v2 3/7] gpio: sim: fix a very long\n"
		" subject line\n"
		"\n"
		"The why.\n"
		"\n"
		"Signed-off-by: J <jm@ex.org>\n"
		"---\n"
		" f | 1 +\n"
		"\n"
		"diff --git a/f b/f\n"
		"--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+b\n"
		"-- \n2.39.5\n\n";
	struct patch p;

	REQUIRE(patch_parse(&p, text, strlen(text)) == 0);
	CHECK_STR(p.author_name, "J\xc3\xb6rg M\xc3\xbcller");
	CHECK_STR(p.author_email, "jm@ex.org");
	CHECK_INT(p.date, 1796135400);
	CHECK_INT(p.tz_minutes, -300);
	CHECK_STR(p.subject, "gpio: sim: fix a very long subject line");
	CHECK_STR(p.message, "gpio: sim: fix a very long subject line\n\nThe why.\n\n"
		  "Signed-off-by: J <jm@ex.org>\n");
	CHECK(p.diff && !strncmp(p.diff, "diff --git a/f b/f\n", 19));
	CHECK(p.diff && p.diff[p.diff_len - 1] == '\n' && p.diff[p.diff_len - 2] == 'b');
	patch_release(&p);
	CHECK_INT(patch_parse(&p, "Subject: x\n\nno diff\n", 20), TIDE_EINVAL);
}

/* Local series applied by tide: same trees, authors, dates, messages as git am. */
TEST(quilt__local_series_matches_git_am)
{
	char *dir = tmpdir(), *cache = path_join(dir, "cache"), *url = path_join(dir, "series");
	char *gitdir = path_join(dir, "am");
	struct quilt_stats st = { 0 };
	git_repository *repo = NULL;
	git_object *base = NULL, *want = NULL;
	git_commit *got = NULL, *ref = NULL;
	git_oid tip;

	REQUIRE(make_series(dir) == 0);
	REQUIRE(git_repository_open(&repo, gitdir) == 0);
	REQUIRE(git_revparse_single(&base, repo, "base") == 0);
	REQUIRE(git_revparse_single(&want, repo, "HEAD") == 0);
	CHECK_INT(quilt_prepare(&tip, &st, repo, "mm", url, cache, git_object_id(base), NULL), 0);
	CHECK_INT((int)st.downloaded, 3);
	REQUIRE(git_commit_lookup(&got, repo, &tip) == 0);
	REQUIRE(git_commit_lookup(&ref, repo, git_object_id(want)) == 0);
	CHECK(git_oid_equal(git_commit_tree_id(got), git_commit_tree_id(ref)));
	CHECK_STR(git_commit_message(got), git_commit_message(ref));
	CHECK_STR(git_commit_author(got)->name, "Bob B");
	CHECK_INT(git_commit_author(got)->when.time, git_commit_author(ref)->when.time);
	CHECK_INT(git_commit_author(got)->when.offset, -300);
	CHECK_INT(git_commit_parentcount(got), 1);
	git_commit_free(got);
	got = NULL;
	REQUIRE(git_commit_parent(&got, ref, 0) == 0);
	git_commit_free(ref);
	ref = NULL;
	REQUIRE(git_commit_parent(&ref, got, 0) == 0);
	CHECK(git_oid_equal(git_commit_id(ref), git_object_id(base)));
	git_commit_free(ref);
	ref = NULL;
	/* The ref points at the tip; an unchanged series copies nothing. */
	CHECK_INT(git_reference_name_to_id(&tip, repo, "refs/quilt/mm"), 0);
	st.downloaded = 0;
	CHECK_INT(quilt_prepare(&tip, &st, repo, "mm", url, cache, git_object_id(base), NULL), 0);
	CHECK_INT((int)st.downloaded, 0);
	CHECK_INT((int)st.not_modified, 3);
	git_commit_free(got);
	git_object_free(base);
	git_object_free(want);
	git_repository_free(repo);
	t_sh_in(dir, "rm -rf '%s'", dir);
	free(gitdir), free(url), free(cache), free(dir);
}

TEST(quilt__patch_that_does_not_apply_names_patch_and_file)
{
	char *dir = tmpdir(), *cache = path_join(dir, "cache"), *url = path_join(dir, "series");
	char *gitdir = path_join(dir, "am");
	git_repository *repo = NULL;
	git_object *base = NULL;
	git_oid tip;

	REQUIRE(make_series(dir) == 0);
	REQUIRE(t_sh_in(dir, "sed -i 's/^ b$/ changed/' series/0001-*.patch") == 0);
	REQUIRE(git_repository_open(&repo, gitdir) == 0);
	REQUIRE(git_revparse_single(&base, repo, "base") == 0);
	CHECK_INT(quilt_prepare(&tip, NULL, repo, "mm", url, cache, git_object_id(base), NULL),
		  TIDE_ECONFLICT);
	CHECK(strstr(tide_error_last(), "quilt tree 'mm'") != NULL);
	CHECK(strstr(tide_error_last(), "0001-f-add-B.patch") != NULL);
	CHECK(strstr(tide_error_last(), "to 'f'") != NULL);
	CHECK(strstr(tide_error_last(), "series/series") != NULL);
	CHECK(git_reference_name_to_id(&tip, repo, "refs/quilt/mm") < 0);
	git_object_free(base);
	git_repository_free(repo);
	t_sh_in(dir, "rm -rf '%s'", dir);
	free(gitdir), free(url), free(cache), free(dir);
}

struct server {
	pid_t pid;
	char *url, *log, *control;
};

static int server_start(struct server *s, const char *dir, const char *root)
{
	char *portfile = path_join(dir, "port"), *port = NULL;
	int i;

	s->log = path_join(dir, "http.log");
	s->control = path_join(dir, "control");
	s->pid = fork();
	if (s->pid == 0) {
		/* Test runners start in the top directory (tests/run-unit). */
		execlp("python3", "python3", "tests/servers/http-server.py",
		       "--root", root, "--port-file", portfile, "--log", s->log,
		       "--control", s->control, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 100 && !(port = t_slurp(NULL, portfile)); i++)
		usleep(50000);
	free(portfile);
	if (!port)
		return -1;
	s->url = xasprintf("http://127.0.0.1:%d/", atoi(port));
	free(port);
	return 0;
}

static void server_stop(struct server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
	}
	free(s->url), free(s->log), free(s->control);
}

static int count_in(const char *path, const char *needle)
{
	char *text = t_slurp(NULL, path), *p = text;
	int n = 0;

	while (p && (p = strstr(p, needle)))
		n++, p++;
	free(text);
	return n;
}

TEST(quilt__http_fetch_is_conditional_and_reports_bad_servers)
{
	char *dir = tmpdir(), *cache = path_join(dir, "cache"), *root = path_join(dir, "series");
	struct quilt_opts opts = QUILT_OPTS_INIT;
	struct quilt_stats st = { 0 };
	struct quilt_series s;
	struct server srv = { 0, NULL, NULL, NULL };
	double t0;

	REQUIRE(make_series(dir) == 0);
	REQUIRE(server_start(&srv, dir, root) == 0);
	CHECK_INT(quilt_fetch(&s, &st, srv.url, cache, NULL), 0);
	CHECK_INT((int)s.npatches, 2);
	quilt_series_release(&s);
	CHECK_INT((int)st.downloaded, 3);
	CHECK_INT(count_in(srv.log, " 200\n"), 3);
	/* Second fetch: conditional requests, every answer a 304. */
	memset(&st, 0, sizeof(st));
	CHECK_INT(quilt_fetch(&s, &st, srv.url, cache, NULL), 0);
	quilt_series_release(&s);
	CHECK_INT((int)st.downloaded, 0);
	CHECK_INT((int)st.not_modified, 3);
	CHECK_INT(count_in(srv.log, " 304\n"), 3);
	/* A changed patch is downloaded again, the rest are not. */
	memset(&st, 0, sizeof(st));
	REQUIRE(t_sh_in(dir, "echo '# tweak' >>series/0002-d-add-new.patch") == 0);
	CHECK_INT(quilt_fetch(&s, &st, srv.url, cache, NULL), 0);
	quilt_series_release(&s);
	CHECK_INT((int)st.downloaded, 1);
	/* A missing patch, a server error, a hanging server. */
	REQUIRE(t_sh_in(dir, "echo '404 0002-*' >control") == 0);
	CHECK_INT(quilt_fetch(&s, &st, srv.url, cache, NULL), TIDE_ENOTFOUND);
	CHECK(strstr(tide_error_last(), "'0002-d-add-new.patch'") != NULL);
	CHECK(strstr(tide_error_last(), "HTTP 404") != NULL);
	REQUIRE(t_sh_in(dir, "echo '500 series' >control") == 0);
	CHECK_INT(quilt_fetch(&s, &st, srv.url, cache, NULL), TIDE_ERROR);
	CHECK(strstr(tide_error_last(), "HTTP 500") != NULL);
	REQUIRE(t_sh_in(dir, "echo 'hang *' >control") == 0);
	opts.low_speed_time = 1;
	t0 = time_now();
	CHECK_INT(quilt_fetch(&s, &st, srv.url, cache, &opts), TIDE_ETIMEOUT);
	CHECK(time_now() - t0 < 10);
	server_stop(&srv);
	t_sh_in(dir, "rm -rf '%s'", dir);
	free(root), free(cache), free(dir);
}

TESTS(quilt__series_parse_skips_comments_and_options,
      patch__parse_mail_headers_and_body,
      quilt__local_series_matches_git_am,
      quilt__patch_that_does_not_apply_names_patch_and_file,
      quilt__http_fetch_is_conditional_and_reports_bad_servers)
