#include <string.h>
#include <time.h>

#include "conf.h"
#include "day.h"
#include "nextfiles.h"
#include "text.h"

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
	buf_printf(out, "HEAD is now at %s %s\n", base_abbrev, base_subject);
}

void nextfiles_log_merging(struct buf *out, const char *ref, const char *abbrev,
			   const char *subject)
{
	buf_printf(out, "Merging %s (%s %s)\n", ref, abbrev, subject);
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
	buf_printf(out, "-next-%.4s%.2s%.2s\n", date, date + 5, date + 8);
}
