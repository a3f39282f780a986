/*
 * tide merge-tree: the merge engine as plumbing, printing what
 * `git merge-tree --write-tree` prints, so the two can be compared.
 */
#include <stdio.h>
#include <string.h>

#include <git2.h>

#include "cmd.h"
#include "opt.h"
#include "attr.h"
#include "conf.h"
#include "error.h"
#include "graph.h"
#include "merge.h"

struct args {
	int name_only;
	int allow_unrelated;
	int stdin_mode;
	const char *big_file, *memory;
};

static int peel_commit(git_commit **out, git_repository *repo, const char *rev)
{
	git_object *obj = NULL, *peeled = NULL;
	int error;

	if (git_revparse_single(&obj, repo, rev) < 0) {
		git_error_clear();
		return tide_error_set(TIDE_ENOTFOUND, "'%s' is not a revision", rev);
	}
	error = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (error < 0) {
		git_error_clear();
		return tide_error_set(TIDE_EINVAL, "'%s' does not name a commit", rev);
	}
	*out = (git_commit *)peeled;
	return 0;
}

static void print_stage(unsigned mode, const git_oid *oid, int stage,
			const char *path)
{
	char hex[GIT_OID_HEXSZ + 1];

	if (!mode)
		return;
	git_oid_tostr(hex, sizeof(hex), oid);
	printf("%06o %s %d\t%s\n", mode, hex, stage, path);
}

static void print_message(const struct merge_conflict *c,
			  const struct merge_opts *o)
{
	switch (c->kind) {
	case MERGE_CONFLICT_MODIFY_DELETE:
		printf("CONFLICT (modify/delete): %s deleted in %s and modified in %s.\n",
		       c->path, c->ours_mode ? o->theirs_label : o->ours_label,
		       c->ours_mode ? o->ours_label : o->theirs_label);
		break;
	case MERGE_CONFLICT_FILE_DIRECTORY:
		printf("CONFLICT (file/directory): file moved to %s\n", c->path);
		break;
	case MERGE_CONFLICT_LOCATION:
		printf("CONFLICT (file location): %s added in %s inside a directory "
		       "that was renamed in %s, suggesting it should perhaps be "
		       "moved to %s.\n",
		       c->ours_mode ? c->ours_path : c->theirs_path,
		       c->ours_mode ? o->ours_label : o->theirs_label,
		       c->ours_mode ? o->theirs_label : o->ours_label, c->path);
		break;
	case MERGE_CONFLICT_DIR_RENAME:
		printf("CONFLICT (directory rename): cannot apply a directory rename "
		       "at %s\n", c->path);
		break;
	default:
		printf("CONFLICT (%s): Merge conflict in %s\n",
		       merge_conflict_kind_name(c->kind), c->path);
	}
}

static void print_result(const struct merge_result *res,
			 const struct merge_opts *o, int name_only)
{
	char hex[GIT_OID_HEXSZ + 1];
	const char *printed = NULL;
	size_t i;

	printf("%s\n", git_oid_tostr(hex, sizeof(hex), &res->tree));
	if (!res->nconflicts)
		return;
	for (i = 0; i < res->nconflicts; i++) {
		const struct merge_conflict *c = &res->conflicts[i];

		/* like git, list only paths with index stages */
		if (!c->base_mode && !c->ours_mode && !c->theirs_mode)
			continue;
		if (name_only) {
			if (!printed || strcmp(c->path, printed))
				printf("%s\n", c->path);
			printed = c->path;
			continue;
		}
		print_stage(c->base_mode, &c->base, 1, c->path);
		print_stage(c->ours_mode, &c->ours, 2, c->path);
		print_stage(c->theirs_mode, &c->theirs, 3, c->path);
	}
	putchar('\n');
	for (i = 0; i < res->nconflicts; i++)
		print_message(&res->conflicts[i], o);
}

static int parse_args(int argc, char **argv, struct args *a, struct merge_opts *o)
{
	const struct opt_spec specs[] = {
		{ OPT_SWITCH, "name-only", 0, &a->name_only, 1, 0, NULL, "list the conflicted paths only" },
		{ OPT_SWITCH, "no-renames", 0, &o->find_renames, 0, 0, NULL, "do not detect renames" },
		{ OPT_SWITCH, "allow-unrelated-histories", 0, &a->allow_unrelated, 1, 0, NULL,
		  "merge revisions without a common commit" },
		{ OPT_VALUE, "big-file-threshold", 0, &a->big_file, 0, OPT_EQUALS, "SIZE",
		  "merge larger files as binary (default 512M)" },
		{ OPT_VALUE, "merge-memory", 0, &a->memory, 0, OPT_EQUALS, "SIZE",
		  "the most memory one content merge may use (default 512M)" },
		{ OPT_ARG, "ours", 0, &o->ours_label, 0, OPT_BARE, "OURS", "a revision" },
		{ OPT_ARG, "theirs", 0, &o->theirs_label, 0, OPT_BARE, "THEIRS", "a revision" },
		{ OPT_FORM, NULL, 0, NULL, 0, 0, NULL, NULL },
		{ OPT_REF, "name-only", 0, NULL, 0, 0, NULL, NULL },
		{ OPT_REF, "no-renames", 0, NULL, 0, 0, NULL, NULL },
		{ OPT_REF, "allow-unrelated-histories", 0, NULL, 0, 0, NULL, NULL },
		{ OPT_REF, "big-file-threshold", 0, NULL, 0, OPT_EQUALS, NULL, NULL },
		{ OPT_REF, "merge-memory", 0, NULL, 0, OPT_EQUALS, NULL, NULL },
		{ OPT_SWITCH, "stdin", 0, &a->stdin_mode, 1, OPT_BARE, NULL,
		  "merge the OURS THEIRS of each line of standard input" },
		{ 0 },
	};
	int status = opt_parse("merge-tree", specs, argc, argv, OPT_IN_ORDER);

	if (status)
		return status;
	if (a->stdin_mode && o->ours_label)
		return opt_usage_error("merge-tree", specs, "--stdin takes no revisions");
	if (!a->stdin_mode && (!o->ours_label || !o->theirs_label))
		return opt_usage_error("merge-tree", specs, "missing %s",
				       o->ours_label ? "THEIRS" : "OURS");
	return 0;
}

/* --big-file-threshold and --merge-memory: a size as in trees.conf(5). */
static int parse_limit(const char *value, const char *name, size_t *out)
{
	long long v;

	if (!value)
		return 0;
	if ((v = conf_parse_size(value)) < 0) {
		cmd_error("bad --%s '%s': a size (bytes, or with K, M or G)", name, value);
		return EXIT_USAGE;
	}
	*out = (size_t)v;
	return 0;
}

/*
 * The merge bases, found once for the merge to use; like git, merging
 * histories without a common commit needs consent.  libgit2's
 * git_merge_base() parsed every commit of its walk, and the merge then
 * walked again: in a repository without tide's commit-graph that was
 * three quarters of a merge of git.git.
 */
static int find_bases(git_oidarray *out, git_repository *repo, const git_commit *a,
		      const git_commit *b, int allow_unrelated)
{
	int error = graph_merge_bases(out, repo, git_commit_id(a), git_commit_id(b));

	if (error < 0)
		return tide_error_wrap(error, "cannot compute the merge bases");
	if (!out->count && !allow_unrelated)
		return tide_error_set(TIDE_EINVAL, "refusing to merge unrelated histories");
	return 0;
}

/* What the merge could not do as asked, as git warns about it. */
static void print_warnings(const struct merge_result *res)
{
	size_t i;

	for (i = 0; i < res->nwarnings; i++)
		fprintf(stderr, "tide: warning: %s\n", res->warnings[i]);
}

/*
 * Merge ours with theirs (revisions) and print the result, after a
 * status line (--stdin) when asked.  Returns 0 clean, 1 conflicted, or
 * the exit status of a failure (said on stderr).
 */
static int merge_pair(git_repository *repo, const struct args *a, struct merge_opts *o,
		      int status_line)
{
	struct merge_result res;
	git_commit *ours = NULL, *theirs = NULL;
	git_oidarray bases = { NULL, 0 };
	int status;

	memset(&res, 0, sizeof(res));
	if (peel_commit(&ours, repo, o->ours_label) < 0 ||
	    peel_commit(&theirs, repo, o->theirs_label) < 0 ||
	    find_bases(&bases, repo, ours, theirs, a->allow_unrelated) < 0) {
		status = cmd_fail(NULL);
		goto done;
	}
	o->bases = &bases;
	if (merge_commits(&res, repo, ours, theirs, o) < 0) {
		status = cmd_fail("merge-tree");
		goto done;
	}
	print_warnings(&res);
	if (status_line)
		printf("%d\n", res.nconflicts ? 0 : 1);
	print_result(&res, o, a->name_only);
	status = res.nconflicts ? EXIT_PROBLEMS : EXIT_OK;
done:
	o->bases = NULL;
	git_oidarray_dispose(&bases);
	merge_result_clear(&res);
	git_commit_free(ours);
	git_commit_free(theirs);
	return status;
}

/*
 * --stdin: one merge per line "OURS THEIRS", each printed as a status
 * line (1 clean, 0 conflicted, as git's) and the usual output, then a
 * NUL.  Like git, the exit status is 0 when every merge could be made.
 */
static int merge_lines(git_repository *repo, const struct args *a, struct merge_opts *o)
{
	char *line = NULL, *save = NULL;
	size_t cap = 0;
	ssize_t len;
	int status = EXIT_OK;

	while (status == EXIT_OK && (len = getline(&line, &cap, stdin)) >= 0) {
		char *ours, *theirs, *extra;
		int rc;

		ours = strtok_r(line, " \t\n", &save);
		theirs = ours ? strtok_r(NULL, " \t\n", &save) : NULL;
		extra = theirs ? strtok_r(NULL, " \t\n", &save) : NULL;
		if (!ours)
			continue;
		if (!theirs || extra) {
			cmd_error("--stdin: want OURS THEIRS, got '%s'", ours);
			status = EXIT_BADINPUT;
			break;
		}
		o->ours_label = ours;
		o->theirs_label = theirs;
		rc = merge_pair(repo, a, o, 1);
		if (rc > EXIT_PROBLEMS)
			status = rc;
		else if (putchar('\0') == EOF || fflush(stdout) == EOF)
			status = EXIT_FAILED;
	}
	free(line);
	return status;
}

/*
 * The repository's merge.renameLimit, else its diff.renameLimit, as git
 * reads them (0 or less: no limit); unset: git's default.  0, or
 * EXIT_BADINPUT when a value is not a number.
 */
static int rename_limit_of(git_repository *repo, struct merge_opts *o)
{
	static const char *const names[] = { "merge.renameLimit", "diff.renameLimit" };
	git_config *cfg = NULL;
	int32_t v = 0;
	size_t i;
	int rc, status = 0;

	if (git_repository_config_snapshot(&cfg, repo) < 0) {
		git_error_clear();
		return 0;
	}
	for (i = 0; i < sizeof(names) / sizeof(*names); i++) {
		if ((rc = git_config_get_int32(&v, cfg, names[i])) == GIT_ENOTFOUND)
			continue;
		if (rc < 0) {
			cmd_error("bad %s: %s", names[i], git_error_last()->message);
			status = EXIT_BADINPUT;
		} else {
			o->rename_limit = v > 0 ? v : -1;
		}
		break;
	}
	git_error_clear();
	git_config_free(cfg);
	return status;
}

int cmd_merge_tree(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct merge_opts o = MERGE_OPTS_INIT;
	git_repository *repo = NULL;
	struct args a = { 0, 0, 0, NULL, NULL };
	int status;

	(void)ctx;
	if ((status = parse_args(argc, argv, &a, &o)) != 0)
		return status < 0 ? EXIT_OK : status;
	if ((status = parse_limit(a.big_file, "big-file-threshold", &o.big_file_threshold)) ||
	    (status = parse_limit(a.memory, "merge-memory", &o.content_budget)))
		return status;
	if (git_repository_open_ext(&repo, ".", 0, NULL) < 0) {
		cmd_error("not a git repository: %s", git_error_last()->message);
		return EXIT_BADINPUT;
	}
	/*
	 * git reads conflict-marker-size from the working tree only: in a bare
	 * repository its markers are 7 characters long whatever the trees say.
	 */
	if (git_repository_is_bare(repo))
		o.marker_size = ATTR_MARKER_SIZE;
	if ((status = rename_limit_of(repo, &o)) != 0) {
		git_repository_free(repo);
		return status;
	}
	status = a.stdin_mode ? merge_lines(repo, &a, &o) : merge_pair(repo, &a, &o, 0);
	git_repository_free(repo);
	return status;
}
