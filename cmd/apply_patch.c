/*
 * tide apply-patch: the patch applier (src/apply.h) as plumbing.  Applies
 * a patch file to a tree of the repository of the current directory and
 * prints the result tree's id, so tests can compare it with what patch(1)
 * and git apply make of the same patch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "cmd.h"
#include "opt.h"
#include "apply.h"
#include "error.h"
#include "util.h"

static int parse_num(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < 0 || v > 100)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct apply_opts *o, const char **tree,
		      const char **patch)
{
	const char *strip = NULL, *fuzz = NULL;
	const struct opt_spec specs[] = {
		{ OPT_VALUE, NULL, 'p', &strip, 0, 0, "NUM", "strip NUM leading path components (default 1)" },
		{ OPT_SWITCH, "reverse", 'R', &o->reverse, 1, OPT_SHORT, NULL, "apply the patch in reverse" },
		{ OPT_VALUE, "fuzz", 0, &fuzz, 0, OPT_EQUALS, "NUM", "ignore up to NUM context lines" },
		{ OPT_ARG, "tree-ish", 0, tree, 0, OPT_BARE | OPT_MANDATORY, "TREE-ISH", "the tree to patch" },
		{ OPT_ARG, "patch", 0, patch, 0, OPT_BARE | OPT_MANDATORY, "PATCH", "the patch file" },
		{ 0 },
	};
	int status;

	if ((status = opt_parse("apply-patch", specs, argc, argv, OPT_IN_ORDER)) != 0)
		return status;
	if (strip && parse_num(strip, &o->strip) < 0)
		return opt_usage_error("apply-patch", specs, "bad -p '%s' (0 to 100)", strip);
	if (fuzz && parse_num(fuzz, &o->fuzz) < 0)
		return opt_usage_error("apply-patch", specs, "bad --fuzz '%s' (0 to 100)", fuzz);
	return 0;
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

/*
 * The file read as a quilt tree's patch is (patch_parse(): mail or DEP-3
 * headers and a message before the diff), so this plumbing and the
 * tests comparing it with patch(1) exercise the path tide run takes.
 */
static int apply_text(git_oid *out, git_repository *repo, const git_oid *base,
		      const struct buf *text, struct apply_opts *o, struct apply_result *res)
{
	struct patch p;
	int error;

	if ((error = patch_parse(&p, buf_cstr(text), text->len)) < 0)
		return error;
	o->lineno = patch_diff_lineno(&p, buf_cstr(text), text->len);
	error = apply_to_tree(out, repo, base, p.diff, p.diff_len, o, res);
	patch_release(&p);
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
	const char *tree = NULL, *patch = NULL;
	size_t i;
	int status;

	(void)ctx;
	if ((status = parse_args(argc, argv, &o, &tree, &patch)) != 0)
		return status < 0 ? EXIT_OK : status;
	if (git_repository_open_ext(&repo, ".", 0, NULL) < 0) {
		cmd_error("not a git repository: %s", git_error_last()->message);
		return EXIT_BADINPUT;
	}
	if (peel_tree(&base, repo, tree) < 0 || file_read(&text, patch) < 0 ||
	    apply_text(&out, repo, &base, &text, &o, &res) < 0) {
		/* A patch that does not apply is a result, not a broken tool. */
		status = tide_error_code() == TIDE_ECONFLICT ? EXIT_PROBLEMS : EXIT_FAILED;
		if (cmd_fail(patch) == EXIT_BADINPUT)
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
