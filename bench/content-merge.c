/*
 * bench/content-merge: tide's content merge (xmerge.h) against libgit2's
 * git_merge_file() on the same blob triples, each run ROUNDS times.
 * Built by bench/bench-content-merge against libtide.a.
 *
 *   content-merge REPO ROUNDS < "BASE OURS THEIRS" lines (blob ids)
 *
 * Prints: merges, tide seconds, libgit2 seconds, conflicted (tide),
 * conflicted (libgit2), results that differ.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <git2.h>

#include "buf.h"
#include "xmerge.h"

struct triple {
	git_blob *b[3];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void text_of(struct xmerge_text *t, const git_blob *b, const char *label)
{
	t->ptr = git_blob_rawcontent(b);
	t->size = (size_t)git_blob_rawsize(b);
	t->label = label;
}

static void input_of(git_merge_file_input *in, const git_blob *b, const char *label)
{
	git_merge_file_input_init(in, GIT_MERGE_FILE_INPUT_VERSION);
	in->ptr = git_blob_rawcontent(b);
	in->size = (size_t)git_blob_rawsize(b);
	in->path = label;
}

static int read_triples(git_repository *repo, struct triple **out, size_t *n)
{
	char hex[3][64];
	size_t alloc = 0;

	*n = 0;
	while (scanf("%63s %63s %63s", hex[0], hex[1], hex[2]) == 3) {
		git_oid id;
		int i;

		if (*n == alloc && !(*out = realloc(*out, (alloc = alloc * 2 + 64) * sizeof(**out))))
			return -1;
		for (i = 0; i < 3; i++)
			if (git_oid_fromstr(&id, hex[i]) < 0 ||
			    git_blob_lookup(&(*out)[*n].b[i], repo, &id) < 0)
				return -1;
		(*n)++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	git_repository *repo = NULL;
	struct triple *t = NULL;
	size_t n = 0, i, differ = 0;
	int rounds, r, c_tide = 0, c_lg2 = 0;
	double t0, tide_s = 0, lg2_s = 0;
	struct buf out = BUF_INIT;

	if (argc != 3) {
		fprintf(stderr, "usage: content-merge REPO ROUNDS < triples\n");
		return 2;
	}
	rounds = atoi(argv[2]);
	git_libgit2_init();
	if (git_repository_open(&repo, argv[1]) < 0 || read_triples(repo, &t, &n) < 0) {
		fprintf(stderr, "content-merge: cannot read the blobs\n");
		return 4;
	}
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < n; i++) {
			struct xmerge_text in[3];
			git_merge_file_input gi[3];
			git_merge_file_options fo;
			git_merge_file_result fr = { 0 };
			int k;

			text_of(&in[0], t[i].b[0], NULL);
			text_of(&in[1], t[i].b[1], "ours");
			text_of(&in[2], t[i].b[2], "theirs");
			t0 = now();
			k = xmerge(&out, &in[0], &in[1], &in[2], NULL);
			tide_s += now() - t0;
			input_of(&gi[0], t[i].b[0], NULL);
			input_of(&gi[1], t[i].b[1], NULL);
			input_of(&gi[2], t[i].b[2], NULL);
			git_merge_file_options_init(&fo, GIT_MERGE_FILE_OPTIONS_VERSION);
			fo.our_label = "ours";
			fo.their_label = "theirs";
			t0 = now();
			if (git_merge_file(&fr, &gi[0], &gi[1], &gi[2], &fo) < 0)
				return 4;
			lg2_s += now() - t0;
			if (r == 0) {
				c_tide += k > 0;
				c_lg2 += !fr.automergeable;
				differ += fr.len != out.len || memcmp(fr.ptr, out.ptr, out.len);
			}
			git_merge_file_result_free(&fr);
		}
	}
	printf("%zu %.3f %.3f %d %d %zu\n", n * rounds, tide_s, lg2_s, c_tide, c_lg2, differ);
	buf_release(&out);
	return 0;
}
