#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <git2.h>

#include "conf.h"
#include "day.h"
#include "error.h"
#include "history.h"
#include "merge.h"
#include "nextfiles.h"
#include "text.h"
#include "util.h"

/* Next/Trees pads the first column with tabs to 16 columns. */
static void put_name(struct buf *out, const char *name)
{
	buf_puts(out, name);
	buf_puts(out, strlen(name) < 8 ? "\t\t" : "\t");
}

void nextfiles_trees(struct buf *out, const struct trees_conf *conf)
{
	size_t i;

	buf_puts(out, "Trees included into this release:\n\n");
	buf_puts(out, "Name\t\tType\tURL\n----\t\t----\t---\n");
	for (i = 0; i < conf->ntrees; i++) {
		const struct tree *t = &conf->trees[i];

		/* Published with the day: no userinfo at all, not even a user name. */
		char *url = url_strip_userinfo(t->url);

		put_name(out, t->name);
		buf_printf(out, "%s\t%s", tree_type_name(t->type), url);
		free(url);
		if (t->type == TREE_GIT)
			buf_printf(out, "#%s", t->branch);
		buf_putc(out, '\n');
	}
}

void nextfiles_sha1s(struct buf *out, const struct day *day)
{
	size_t i;

	buf_puts(out, "Name\t\tSHA1\n----\t\t----\n");
	for (i = 0; i < day->ntrees; i++) {
		const struct day_tree *t = &day->trees[i];

		if (!t->sha)
			continue;
		put_name(out, t->name);
		buf_printf(out, "%s\n", t->sha);
	}
}

void nextfiles_cut(struct buf *out, const char *text, size_t max)
{
	size_t len = strlen(text), n = len;

	if (len <= max) {
		buf_put(out, text, len);
		return;
	}
	/* Back to the start of a character: never half of one. */
	for (n = max; n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80; n--)
		;
	buf_put(out, text, n);
	buf_puts(out, "[...]");
}

char *nextfiles_cut_owned(char *s, size_t max)
{
	struct buf b = BUF_INIT;

	if (!s || strlen(s) <= max)
		return s;
	nextfiles_cut(&b, s, max);
	free(s);
	return buf_detach(&b);
}

void nextfiles_log_start(struct buf *out, const char *base_tag, const char *base_abbrev,
			 const char *base_subject)
{
	char stamp[64];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	buf_printf(out, "$ date -R\n%s\n", stamp);
	buf_puts(out, "$ git checkout master\n");
	buf_printf(out, "$ git reset --hard %s\n", base_tag);
	buf_printf(out, "HEAD is now at %s ", base_abbrev);
	nextfiles_cut(out, base_subject, NEXTFILES_SUBJECT_MAX);
	buf_putc(out, '\n');
}

void nextfiles_log_merging(struct buf *out, const char *ref, const char *abbrev,
			   const char *subject)
{
	buf_printf(out, "Merging %s (%s ", ref, abbrev);
	nextfiles_cut(out, subject, NEXTFILES_SUBJECT_MAX);
	buf_puts(out, ")\n");
	buf_printf(out, "$ git merge %s\n", ref);
}

void nextfiles_log_outcome(struct buf *out, const char *outcome)
{
	buf_puts(out, outcome);
	if (outcome[0] && outcome[strlen(outcome) - 1] != '\n')
		buf_putc(out, '\n');
}

void nextfiles_localversion(struct buf *out, const char *date)
{
	char *tag = day_tag_for(date);

	buf_printf(out, "-%s\n", tag);
	free(tag);
}

/* ---- the day's last commit ---- */

static int insert_blob(git_treebuilder *tb, git_repository *repo, const char *name,
		       const struct buf *content)
{
	git_oid blob;
	int error;

	errno = 0;
	if (git_blob_create_from_buffer(&blob, repo, buf_cstr(content), content->len) < 0)
		return tide_error_git(TIDE_ERROR, "cannot write '%s'", name);
	if ((error = merge_object_written(repo, &blob, errno, "a Next/ file")) < 0)
		return error;
	if (git_treebuilder_insert(NULL, tb, name, &blob, GIT_FILEMODE_BLOB) < 0)
		return tide_error_git(TIDE_ERROR, "cannot write '%s'", name);
	return 0;
}

/* Next/Trees, Next/SHA1s, Next/merge.log; existing Next/ files are kept. */
static int write_next_dir(git_oid *out, git_repository *repo, const git_tree *root,
			  const struct trees_conf *conf, const struct day *day,
			  const struct buf *mergelog)
{
	const git_tree_entry *e = git_tree_entry_byname(root, "Next");
	git_tree *old = NULL;
	git_treebuilder *tb = NULL;
	struct buf trees = BUF_INIT, sha1s = BUF_INIT;
	int error = 0;

	if (e && git_tree_entry_type(e) == GIT_OBJECT_TREE)
		git_tree_lookup(&old, repo, git_tree_entry_id(e));
	if (git_treebuilder_new(&tb, repo, old) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot build Next/");
		goto done;
	}
	nextfiles_trees(&trees, conf);
	nextfiles_sha1s(&sha1s, day);
	if ((error = insert_blob(tb, repo, "Trees", &trees)) < 0 ||
	    (error = insert_blob(tb, repo, "SHA1s", &sha1s)) < 0 ||
	    (error = insert_blob(tb, repo, "merge.log", mergelog)) < 0)
		goto done;
	errno = 0;
	if (git_treebuilder_write(out, tb) < 0)
		error = tide_error_git(TIDE_ERROR, "cannot write Next/");
	else
		error = merge_object_written(repo, out, errno, "the Next/ tree");
done:
	buf_release(&trees);
	buf_release(&sha1s);
	git_treebuilder_free(tb);
	git_tree_free(old);
	return error;
}

int nextfiles_commit(git_oid *out, git_repository *repo, const git_signature *sig,
		     const git_oid *state, const struct trees_conf *conf, const struct day *day,
		     const struct buf *mergelog)
{
	git_commit *parent = NULL;
	git_tree *root = NULL;
	git_treebuilder *tb = NULL;
	struct buf lv = BUF_INIT;
	const git_oid *parents[1] = { state };
	git_oid next, tree;
	char *digits = day_date_compact(day->date);
	char *msg = xasprintf("Add linux-next specific files for %s\n", digits);
	int error;

	if (git_commit_lookup(&parent, repo, state) < 0 ||
	    git_commit_tree(&root, parent) < 0 || git_treebuilder_new(&tb, repo, root) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot read the merged tree");
		goto done;
	}
	nextfiles_localversion(&lv, day->date);
	if ((error = write_next_dir(&next, repo, root, conf, day, mergelog)) < 0 ||
	    (error = insert_blob(tb, repo, "localversion-next", &lv)) < 0)
		goto done;
	errno = 0;
	if (git_treebuilder_insert(NULL, tb, "Next", &next, GIT_FILEMODE_TREE) < 0 ||
	    git_treebuilder_write(&tree, tb) < 0) {
		error = tide_error_git(TIDE_ERROR, "cannot write the final tree");
		goto done;
	}
	if ((error = merge_object_written(repo, &tree, errno, "the final tree")) < 0)
		goto done;
	error = history_commit(out, repo, sig, &tree, parents, 1, msg);
done:
	free(msg);
	free(digits);
	buf_release(&lv);
	git_treebuilder_free(tb);
	git_tree_free(root);
	git_commit_free(parent);
	return error;
}
