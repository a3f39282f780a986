#include <unistd.h>

#include "t.h"
#include "conf.h"
#include "error.h"
#include "util.h"

/* A copy of linux-next's Next/Trees; tests run from the top directory. */
#define SAMPLE "tests/data/Trees.sample"

/* Parse text; return the error code (0 on success) and keep the message. */
static int parse(struct trees_conf **out, const char *text)
{
	*out = NULL;
	return trees_conf_parse(out, "/etc/tide/trees.conf", text);
}

static int count_rows(const char *text)
{
	int rows = 0;
	const char *p = text;

	/* Rows of the sample: lines whose second field is a known type. */
	while (p && *p) {
		if (strstr(p, "\tgit\t") && strstr(p, "\tgit\t") < strchr(p, '\n'))
			rows++;
		else if (strstr(p, "\tquilt\t") && strstr(p, "\tquilt\t") < strchr(p, '\n'))
			rows++;
		else if (strstr(p, "\tmmotm\t") && strstr(p, "\tmmotm\t") < strchr(p, '\n'))
			rows++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return rows;
}

TEST(conf__parses_linux_next_sample)
{
	struct trees_conf *conf = NULL;
	struct buf text = BUF_INIT;
	const struct tree *t;

	if (access(SAMPLE, R_OK) != 0) {
		fprintf(stderr, "  %s missing\n", SAMPLE);
		CHECK(0);
		return;
	}
	REQUIRE(file_read(&text, SAMPLE) == 0);
	REQUIRE(trees_conf_parse(&conf, SAMPLE, text.ptr) == 0);
	CHECK_INT(conf->ntrees, count_rows(text.ptr));
	CHECK_INT(conf->ntrees, 42);
	CHECK_STR(conf->trees[0].name, "origin");
	CHECK_STR(conf->trees[0].branch, "master");
	CHECK_STR(conf->trees[0].url, "git://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git");
	REQUIRE((t = trees_conf_find(conf, "arm64")) != NULL);
	CHECK_STR(t->branch, "for-next/core");
	REQUIRE((t = trees_conf_find(conf, "dmi")) != NULL);
	CHECK(t->type == TREE_QUILT);
	CHECK(t->branch == NULL);
	CHECK_STR(t->url, "http://jdelvare.nerim.net/devel/linux/jdelvare-dmi/");
	REQUIRE((t = trees_conf_find(conf, "akpm")) != NULL);
	CHECK(t->type == TREE_MMOTM);
	CHECK(t == &conf->trees[conf->ntrees - 1]);
	CHECK(conf->base_url == NULL);
	trees_conf_free(conf);
	buf_release(&text);
}

TEST(conf__tide_lines_give_base_and_extras)
{
	struct trees_conf *conf = NULL;
	const struct tree *t;

	REQUIRE(parse(&conf,
		      "#tide\tgpio\tcontact=Linus W <lw@example.org>\tbuild-each-merge\tfixup=a.patch\n"
		      "# an ordinary comment\n"
		      "#tide\tbase\t../mainline.git#v6.1.192\n"
		      "gpio\t\tgit\tgpio.git#for-next\n"
		      "mm\t\tquilt\t/srv/quilt/mm\n") == 0);
	CHECK_STR(conf->base_url, "../mainline.git");
	CHECK_STR(conf->base_location, "/etc/mainline.git");
	CHECK_STR(conf->base_tag, "v6.1.192");
	REQUIRE(conf->ntrees == 2);
	t = &conf->trees[0];
	CHECK_STR(t->location, "/etc/tide/gpio.git");
	CHECK_STR(t->contact, "Linus W <lw@example.org>");
	CHECK_INT(t->nopts, 2);
	CHECK_STR(tree_opt(t, "build-each-merge"), "");
	CHECK_STR(tree_opt(t, "fixup"), "a.patch");
	CHECK(tree_opt(t, "contact") == NULL);
	CHECK_STR(conf->trees[1].location, "/srv/quilt/mm");
	CHECK_INT(t->line, 4);
	trees_conf_free(conf);
}

TEST(conf__urls_are_kept_as_written)
{
	struct trees_conf *conf = NULL;

	REQUIRE(parse(&conf, "a\tgit\tgit://h/x.git#b\nb\tgit\tfile:///srv/x#m\n"
			     "c\tgit\thost:repo.git\nd\tgit\thttps://h/r\n") == 0);
	CHECK_STR(conf->trees[0].location, "git://h/x.git");
	CHECK_STR(conf->trees[1].location, "file:///srv/x");
	CHECK_STR(conf->trees[2].location, "host:repo.git");
	CHECK_STR(conf->trees[3].branch, "master");
	trees_conf_free(conf);
}

struct bad_case {
	const char *text;
	const char *message;	/* expected in the error, after "FILE:LINE: " */
	int line;
};

static const struct bad_case bad_cases[] = {
	{ "a\tgit\tx#m\nb\tsvn\thttp://x\n", "unknown tree type 'svn'", 2 },
	{ "a\tgit\n", "has no URL", 1 },
	{ "a\tgit\t#master\n", "has no URL", 1 },
	{ "a\n", "has no type", 1 },
	{ "a\tgit\tx\n\nb\tgit\ty\na\tgit\tz\n", "duplicate tree name 'a'", 4 },
	{ "a\tgit\tx#bad..branch\n", "bad branch name 'bad..branch'", 1 },
	{ "a\tgit\tx#-rf\n", "bad branch name", 1 },
	{ "a\tgit\tx#\n", "bad branch name ''", 1 },
	{ "a:b\tgit\tx\n", "'a:b' is not a valid tree name", 1 },
	{ "a/b\tgit\tx\n", "not a valid tree name", 1 },
	{ "a..b\tgit\tx\n", "not a valid tree name", 1 },
	{ "x.lock\tgit\tx\n", "not a valid tree name", 1 },
	{ "a b\tgit\tx\n", "not a valid tree name", 1 },
	{ "a b git x\n", "unknown tree type 'b'", 1 },
	{ "-a\tgit\tx\n", "not a valid tree name", 1 },
	{ "a\tgit\tx\n#tide\tb\tcontact=x\n", "unknown tree 'b'", 2 },
	{ "#tide\tbase\tmainline.git\n", "malformed base", 1 },
	{ "#tide\tbase\tmainline.git#bad tag\n", "malformed base", 1 },
	{ "#tide\tbase\tm#v1\n#tide\tbase\tm#v2\n", "base given twice", 2 },
	{ "#tide\n", "needs a tree name", 1 },
	{ "a\tgit\tx\n#tide base m#v1\n", "separated by tabs", 2 },
	{ "a\tgit\tx\ty\n", "unexpected field 'y'", 1 },
};

TEST(conf__bad_input_names_file_and_line)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		struct trees_conf *conf = NULL;
		char *prefix = xasprintf("/etc/tide/trees.conf:%d: ", bad_cases[i].line);
		int error = parse(&conf, bad_cases[i].text);

		if (error != TIDE_EINVAL)
			fprintf(stderr, "  case %zu parsed\n", i);
		CHECK_INT(error, TIDE_EINVAL);
		CHECK(conf == NULL);
		trees_conf_free(conf);
		if (!str_starts_with(tide_error_last(), prefix) ||
		    !strstr(tide_error_last(), bad_cases[i].message)) {
			fprintf(stderr, "  case %zu: got '%s', want '%s...%s'\n", i,
				tide_error_last(), prefix, bad_cases[i].message);
			CHECK(0);
		}
		free(prefix);
	}
}

TEST(conf__missing_file_is_bad_input)
{
	struct trees_conf *conf = NULL;

	CHECK_INT(trees_conf_load(&conf, "/nonexistent/trees.conf"), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "/nonexistent/trees.conf") != NULL);
	trees_conf_free(NULL);
}

TEST(conf__crlf_and_spaces_are_tolerated)
{
	struct trees_conf *conf = NULL;

	REQUIRE(parse(&conf, "Name  Type URL\r\n---- ---- ---\r\na  git   x#b  \r\n"
			     "b\t\tgit\t/srv/my trees/b#c\n") == 0);
	CHECK_INT(conf->ntrees, 2);
	CHECK_STR(conf->trees[0].branch, "b");
	CHECK_STR(conf->trees[1].url, "/srv/my trees/b");
	trees_conf_free(conf);
}

TEST(conf__limits_are_numbers_in_range)
{
	struct trees_conf *conf = NULL;

	CHECK_INT(conf_parse_seconds("86400"), 86400);
	CHECK_INT(conf_parse_seconds("1"), 1);
	CHECK_INT(conf_parse_seconds("86401"), -1);
	CHECK_INT(conf_parse_seconds("0"), -1);
	CHECK_INT(conf_parse_seconds("-1"), -1);
	CHECK_INT(conf_parse_seconds(" 5"), -1);
	CHECK_INT(conf_parse_seconds("5s"), -1);
	CHECK_INT(conf_parse_seconds(""), -1);
	CHECK_INT(conf_parse_seconds("18446744073709551617"), -1);
	CHECK(conf_parse_size("256M") == 256LL << 20);
	CHECK(conf_parse_size("3k") == 3072);
	CHECK(conf_parse_size("64G") == 64LL << 30);
	CHECK(conf_parse_size("65G") == -1);
	CHECK(conf_parse_size("17179869184G") == -1);	/* wraps to 0 when shifted */
	CHECK(conf_parse_size("1T") == -1);
	CHECK(conf_parse_size("M") == -1);
	REQUIRE(parse(&conf, "#tide\tfetch-deadline=60\nmm\tquilt\tx\n"
			     "#tide\tmm\ttimeout=7\tmax-size=2K\n") == 0);
	CHECK_INT(conf->fetch_deadline, 60);
	CHECK_INT(tree_opt_seconds(&conf->trees[0], "timeout", 300), 7);
	CHECK_INT(tree_opt_seconds(&conf->trees[0], "stall", 300), 300);
	CHECK(tree_opt_size(&conf->trees[0], "max-size", 1) == 2048);
	trees_conf_free(conf);
	CHECK_INT(parse(&conf, "mm\tquilt\tx\n#tide\tmm\ttimeout=abc\n"), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), ":2: tree 'mm': bad timeout 'abc'") != NULL);
	CHECK_INT(parse(&conf, "mm\tquilt\tx\n#tide\tmm\tfuzz=11\n"), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), ":2: tree 'mm': bad fuzz '11' (0 to 10 lines)") != NULL);
	CHECK_INT(parse(&conf, "mm\tquilt\tx\n#tide\tmm\tfuzz=-1\n"), TIDE_EINVAL);
	REQUIRE(parse(&conf, "mm\tquilt\tx\n#tide\tmm\tfuzz=2\n") == 0);
	trees_conf_free(conf);
}

TEST(conf__nul_byte_names_its_line)
{
	static const char text[] = "a\tgit\tx#b\n\nb\tgit\ty\0z#c\nc\tgit\tz#d\n";
	struct trees_conf *conf = NULL;

	CHECK_INT(trees_conf_parse_buf(&conf, "/etc/tide/trees.conf", text, sizeof(text) - 1),
		  TIDE_EINVAL);
	CHECK(conf == NULL);
	CHECK_STR(tide_error_last(), "/etc/tide/trees.conf:3: NUL byte");
	/* the text before the NUL alone is fine */
	REQUIRE(trees_conf_parse_buf(&conf, "/etc/tide/trees.conf", text, 18) == 0);
	CHECK_INT(conf->ntrees, 2);
	trees_conf_free(conf);
}

TEST(conf__names_must_be_ascii_ref_components)
{
	static const char *const bad[] = { "caf\xc3\xa9", "bad\xffname", "a..b", ".x", "x.lock",
					   "@", "a@{b", "HEAD", "-x", "x." };
	struct trees_conf *conf = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char *text = xasprintf("%s\tgit\tx#b\n", bad[i]);

		if (parse(&conf, text) != TIDE_EINVAL) {
			fprintf(stderr, "  accepted '%s'\n", bad[i]);
			CHECK(0);
		}
		trees_conf_free(conf);
		conf = NULL;
		free(text);
	}
	CHECK_INT(parse(&conf, "bad\xffname\tgit\tx#b\n"), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "'bad\\xffname' is not a valid tree name") != NULL);
	CHECK_INT(parse(&conf, "t\tgit\tx#b\xff\n"), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), "bad branch name 'b\\xff'") != NULL);
	REQUIRE(parse(&conf, "v6.1-fixes_2\tgit\tx#feature/\xc3\xa9\n") == 0);
	trees_conf_free(conf);
}

TEST(conf__project_name)
{
	struct trees_conf *conf = NULL;

	REQUIRE(parse(&conf, "a\tgit\tx#b\n") == 0);
	CHECK(conf->project == NULL);
	trees_conf_free(conf);
	REQUIRE(parse(&conf, "#tide\tproject=widget-next\na\tgit\tx#b\n") == 0);
	CHECK_STR(conf->project, "widget-next");
	trees_conf_free(conf);
	CHECK_INT(parse(&conf, "#tide\tproject=a\n#tide\tproject=b\n"), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), ":2: project given twice") != NULL);
	CHECK_INT(parse(&conf, "#tide\tproject=\n"), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), ":1: bad project name ''") != NULL);
	CHECK_INT(parse(&conf, "#tide\tproject=a/b\n"), TIDE_EINVAL);
	CHECK_INT(parse(&conf, "#tide\tproject=caf\xc3\xa9\n"), TIDE_EINVAL);
	CHECK_INT(parse(&conf, "#tide\tproject=x\textra\n"), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), ":1: unexpected field 'extra'") != NULL);
}

/* build-order names build first, in its order; the rest follow in the file's order. */
TEST(conf__build_order_parallel_jobs)
{
	static const char decl[] = "#tide\tconfig\ta\tbase=tinyconfig\n"
				   "#tide\tconfig\tb\tbase=tinyconfig\n"
				   "#tide\tconfig\tc\tbase=tinyconfig\n";
	struct trees_conf *conf = NULL;
	char *text;
	size_t *order;

	REQUIRE(parse(&conf, decl) == 0);
	order = trees_conf_build_order(conf);
	CHECK(order[0] == 0 && order[1] == 1 && order[2] == 2);
	CHECK(!conf->build_order && !conf->build_parallel && !conf->build_jobs);
	free(order);
	trees_conf_free(conf);
	/* The order line may come before the configurations it names. */
	text = xasprintf("#tide\tbuild-order=c,a\n#tide\tbuild-parallel=2\n"
			 "#tide\tbuild-jobs=8\n%s", decl);
	REQUIRE(parse(&conf, text) == 0);
	free(text);
	CHECK_INT(conf->build_parallel, 2);
	CHECK_INT(conf->build_jobs, 8);
	order = trees_conf_build_order(conf);
	CHECK(order[0] == 2 && order[1] == 0 && order[2] == 1);
	free(order);
	/* tide run --configs b,c: the order keeps what is left. */
	REQUIRE(trees_conf_select_configs(conf, "b,c") == 0);
	order = trees_conf_build_order(conf);
	CHECK(order[0] == 1 && order[1] == 0);
	CHECK_STR(conf->configs[order[0]].name, "c");
	free(order);
	trees_conf_free(conf);
	text = xasprintf("%s#tide\tbuild-order=a,d\n", decl);
	CHECK_INT(parse(&conf, text), TIDE_EINVAL);
	free(text);
	CHECK(strstr(tide_error_last(), ":4: build-order: 'd' is not a declared configuration"));
	CHECK_INT(parse(&conf, "#tide\tbuild-parallel=1\textra\n"), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), ":1: unexpected field 'extra'"));
	CHECK_INT(parse(&conf, "#tide\tbuild-jobs=1025\n"), TIDE_EINVAL);
	CHECK(strstr(tide_error_last(), ":1: bad build-jobs '1025' (a whole number, 1 to 1024)"));
	CHECK_INT(parse(&conf, "#tide\tbuild-jobs=+3\n"), TIDE_EINVAL);
	CHECK_INT(parse(&conf, "#tide\tbuild-parallel=99999999999999999999\n"), TIDE_EINVAL);
}

TESTS(conf__parses_linux_next_sample, conf__tide_lines_give_base_and_extras,
      conf__urls_are_kept_as_written, conf__bad_input_names_file_and_line,
      conf__missing_file_is_bad_input, conf__crlf_and_spaces_are_tolerated,
      conf__limits_are_numbers_in_range, conf__nul_byte_names_its_line,
      conf__names_must_be_ascii_ref_components, conf__project_name,
      conf__build_order_parallel_jobs)
