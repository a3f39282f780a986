/*
 * bench/merge-loop: tide's merge engine in a loop, as `tide run` merges:
 * from BASE, merge refs/heads/tNNN (N of them) in order, each clean one
 * committed as a two-parent merge.  Built by bench/bench-merge against
 * libtide.a; isolates the engine from the rest of a run.
 *
 *   merge-loop [--loose] REPO BASE N
 *
 * Without --loose the objects are kept in memory and written as one pack
 * at the end (merge_objects_*); with it every object is a loose file, as
 * `git merge-tree` writes them.  Prints: seconds merged conflicts
 * trees_read trees_written result_tree peak_rss_mb flush_seconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <git2.h>

#include "merge.h"
#include "util.h"

static int merge_one(git_repository *repo, git_oid *state, const char *name,
		     git_signature *sig, struct merge_result *res)
{
	struct merge_opts opts = MERGE_OPTS_INIT;
	git_commit *ours = NULL, *theirs = NULL;
	git_tree *tree = NULL;
	git_object *tip = NULL;
	char *msg = NULL;
	int error = -1;

	opts.ours_label = "HEAD";
	opts.theirs_label = name;
	if (git_revparse_single(&tip, repo, name) < 0 ||
	    git_commit_lookup(&ours, repo, state) < 0 ||
	    git_commit_lookup(&theirs, repo, git_object_id(tip)) < 0 ||
	    merge_commits(res, repo, ours, theirs, &opts) < 0)
		goto done;
	if (res->nconflicts) {
		error = 1;
		goto done;
	}
	msg = xasprintf("Merge remote-tracking branch '%s/for-next'\n\nTide-Tree: %s\n",
			name, name);
	if (git_tree_lookup(&tree, repo, &res->tree) < 0 ||
	    git_commit_create_v(state, repo, NULL, sig, sig, NULL, msg, tree, 2,
				ours, theirs) < 0)
		goto done;
	error = 0;
done:
	free(msg);
	git_tree_free(tree);
	git_commit_free(ours);
	git_commit_free(theirs);
	git_object_free(tip);
	return error;
}

int main(int argc, char **argv)
{
	git_repository *repo = NULL;
	git_signature *sig = NULL;
	struct merge_objects *mo = NULL;
	struct rusage ru;
	size_t read = 0, written = 0;
	int loose = argc > 1 && !strcmp(argv[1], "--loose");
	int n, i, merged = 0, conflicts = 0;
	git_object *base = NULL;
	git_oid state;
	double start, flush;
	char hex[GIT_OID_HEXSZ + 1];

	if (argc != 4 + loose) {
		fprintf(stderr, "usage: merge-loop [--loose] REPO BASE N\n");
		return 2;
	}
	n = atoi(argv[3 + loose]);
	git_libgit2_init();
	if (git_repository_open(&repo, argv[1 + loose]) < 0 ||
	    git_revparse_single(&base, repo, argv[2 + loose]) < 0 ||
	    git_signature_new(&sig, "Bench", "bench@tide.invalid", 1700000000, 0) < 0) {
		fprintf(stderr, "merge-loop: %s\n", git_error_last()->message);
		return 1;
	}
	start = time_now();
	if (!loose && merge_objects_begin(&mo, repo) < 0)
		return 1;
	git_oid_cpy(&state, git_object_id(base));
	for (i = 0; i < n; i++) {
		struct merge_result res;
		char name[32];
		int rc;

		snprintf(name, sizeof(name), "t%03d", i);
		memset(&res, 0, sizeof(res));
		rc = merge_one(repo, &state, name, sig, &res);
		read += res.trees_read;
		written += res.trees_written;
		merge_result_clear(&res);
		if (rc < 0) {
			fprintf(stderr, "merge-loop: %s: failed\n", name);
			return 1;
		}
		rc ? conflicts++ : merged++;
	}
	flush = time_now();
	if (merge_objects_flush(mo) < 0) {
		fprintf(stderr, "merge-loop: cannot write the pack\n");
		return 1;
	}
	flush = time_now() - flush;
	getrusage(RUSAGE_SELF, &ru);
	{
		git_commit *c = NULL;

		git_commit_lookup(&c, repo, &state);
		git_oid_tostr(hex, sizeof(hex), git_commit_tree_id(c));
		git_commit_free(c);
	}
	printf("%.3f %d %d %zu %zu %s %ld %.3f\n", time_now() - start, merged,
	       conflicts, read, written, hex, ru.ru_maxrss / 1024, flush);
	merge_objects_free(mo);
	git_object_free(base);
	git_signature_free(sig);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return 0;
}
