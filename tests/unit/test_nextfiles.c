#include <stdlib.h>

#include "t.h"
#include "conf.h"
#include "day.h"
#include "nextfiles.h"
#include "util.h"

TEST(nextfiles__trees_parse_back_as_trees_conf)
{
	struct trees_conf *conf = NULL, *again = NULL;
	struct buf out = BUF_INIT;
	size_t i;

	REQUIRE(trees_conf_parse(&conf, "/x/trees.conf",
				 "#tide\tbase\tm#v1\nfixes\tgit\tgit://h/f.git#for-next\n"
				 "sched-topology\tgit\thttps://h/s#x/y\nmm\tquilt\thttp://h/mm/\n") == 0);
	nextfiles_trees(&out, conf);
	CHECK(str_starts_with(out.ptr, "Trees included into this release:\n\nName\t\tType\tURL\n----\t\t----\t---\n"));
	CHECK(strstr(out.ptr, "\nfixes\t\tgit\tgit://h/f.git#for-next\n") != NULL);
	CHECK(strstr(out.ptr, "\nsched-topology\tgit\thttps://h/s#x/y\n") != NULL);
	REQUIRE(trees_conf_parse(&again, "/x/Trees", out.ptr) == 0);
	REQUIRE(again->ntrees == conf->ntrees);
	for (i = 0; i < conf->ntrees; i++) {
		CHECK_STR(again->trees[i].name, conf->trees[i].name);
		CHECK_STR(again->trees[i].url, conf->trees[i].url);
		CHECK(again->trees[i].type == conf->trees[i].type);
	}
	trees_conf_free(conf);
	trees_conf_free(again);
	buf_release(&out);
}

TEST(nextfiles__sha1s_lists_trees_with_a_commit)
{
	struct day *d = day_new();
	struct buf out = BUF_INIT;
	struct day_tree *t;

	t = day_add_tree(d);
	t->name = xstrdup("gpio");
	t->sha = xstrdup("8d2c6297aec930cc825ebaad712e691f0a5f54eb");
	t = day_add_tree(d);
	t->name = xstrdup("gone");	/* never fetched: no line */
	t = day_add_tree(d);
	t->name = xstrdup("akpm-current");
	t->sha = xstrdup("7f004d4884d4b78c6ac68cc6cd6a105f21ed047b");
	nextfiles_sha1s(&out, d);
	CHECK_STR(out.ptr, "Name\t\tSHA1\n----\t\t----\n"
		  "gpio\t\t8d2c6297aec930cc825ebaad712e691f0a5f54eb\n"
		  "akpm-current\t7f004d4884d4b78c6ac68cc6cd6a105f21ed047b\n");
	buf_clear(&out);
	nextfiles_localversion(&out, "2026-12-03");
	CHECK_STR(out.ptr, "-next-20261203\n");
	buf_release(&out);
	day_free(d);
}

TEST(nextfiles__merge_log_shape)
{
	struct buf out = BUF_INIT;

	nextfiles_log_start(&out, "v6.1.192", "abb73947f2d3", "Linux 6.1.192");
	nextfiles_log_merging(&out, "gpio/for-next", "8d2c6297aec9", "gpio: x");
	nextfiles_log_outcome(&out, "Already up to date.");
	CHECK(str_starts_with(out.ptr, "$ date -R\n"));
	CHECK(strstr(out.ptr, "\n$ git reset --hard v6.1.192\nHEAD is now at abb73947f2d3 Linux 6.1.192\n"));
	CHECK(str_ends_with(out.ptr, "Merging gpio/for-next (8d2c6297aec9 gpio: x)\n"
			    "$ git merge gpio/for-next\nAlready up to date.\n"));
	buf_release(&out);
}

TESTS(nextfiles__trees_parse_back_as_trees_conf, nextfiles__sha1s_lists_trees_with_a_commit,
      nextfiles__merge_log_shape)
