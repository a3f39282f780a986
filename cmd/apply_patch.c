/*
 * tide apply-patch: the patch applier (src/apply.h) as plumbing.  Applies
 * a patch file to a tree of the repository of the current directory and
 * prints the result tree's id, so tests can compare it with what patch(1)
 * and git apply make of the same patch.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "cmd.h"
#include "../src/apply.h"
#include "../src/error.h"
#include "../src/util.h"

static const char usage[] =
	"usage: tide apply-patch [-p NUM] [-R] [--fuzz=NUM] TREE-ISH PATCH\n";

static int parse_num(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < 0 || v > 100)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct apply_opts *o)
{
	static const struct option longopts[] = {
		{ "fuzz", required_argument, NULL, 'F' },
		{ "reverse", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+hp:R", longopts, NULL)) != -1) {
		if (c == 'p' && parse_num(optarg, &o->strip) == 0)
			continue;
		if (c == 'F' && parse_num(optarg, &o->fuzz) == 0)
			continue;
		if (c == 'R') {
			o->reverse = 1;
			continue;
		}
		if (c == 'h') {
			fputs(usage, stdout);
			return -1;
		}
		return cmd_usage(usage);
	}
	return argc - optind == 2 ? 0 : cmd_usage(usage);
}

static int peel_tree(git_oid *out, git_repository *repo, const char *rev)
{
	git_object *obj = NULL, *tree = NULL;
	int error = 0;

	if (git_revparse_single(&obj, repo, rev) < 0 ||
	    git_object_peel(&tree, obj, GIT_OBJECT_TREE) < 0) {
		git_error_clear();
		error = tide_error_set(TIDE_ENOTFOUND, "'%s' does not name a tree", rev);
	} else {
		git_oid_cpy(out, git_object_id(tree));
	}
	git_object_free(obj);
	git_object_free(tree);
	return error;
}

int cmd_apply_patch(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_result res = APPLY_RESULT_INIT;
	struct buf text = BUF_INIT;
	git_repository *repo = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	git_oid base, out;
	size_t i;
	int status;

	(void)ctx;
	if ((status = parse_args(argc, argv, &o)) != 0)
		return status < 0 ? EXIT_OK : status;
	if (git_repository_open_ext(&repo, ".", 0, NULL) < 0) {
		cmd_error("not a git repository: %s", git_error_last()->message);
		return EXIT_BADINPUT;
	}
	if (peel_tree(&base, repo, argv[optind]) < 0 || file_read(&text, argv[optind + 1]) < 0 ||
	    apply_to_tree(&out, repo, &base, buf_cstr(&text), text.len, &o, &res) < 0) {
		/* A patch that does not apply is a result, not a broken tool. */
		status = tide_error_code() == TIDE_ECONFLICT ? EXIT_PROBLEMS : EXIT_FAILED;
		if (cmd_fail(argv[optind + 1]) == EXIT_BADINPUT)
			status = EXIT_BADINPUT;
		goto done;
	}
	for (i = 0; i < res.nnotes; i++)
		fprintf(stderr, "%s: %s\n", res.notes[i].path, res.notes[i].note);
	printf("%s\n", git_oid_tostr(hex, sizeof(hex), &out));
	status = cmd_finish_stdout(EXIT_OK);
done:
	apply_result_release(&res);
	buf_release(&text);
	git_repository_free(repo);
	return status;
}
