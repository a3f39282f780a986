#ifndef TIDE_PATCH_H
#define TIDE_PATCH_H

#include <stddef.h>
#include <time.h>

/*
 * A patch in mail format (git format-patch, quilt/mmotm patches, mails as
 * they come off a list), parsed with GMime the way git mailinfo reads it:
 * the mail headers give the commit's author, date and subject, in-body
 * "From:", "Subject:" and "Date:" lines at the top of the body override
 * them, a scissors line ("-- >8 --") drops what is above it, the body up
 * to the "---" line is the message (trailers kept) and the rest is the
 * diff.  Bodies may be base64 or quoted-printable, the patch may be an
 * attachment of a multipart mail; the message is converted to UTF-8.
 *
 * Everything in a mail is untrusted: a message is at most
 * PATCH_MAX_MESSAGE bytes (a file of them PATCH_MAX_FILE), and an unknown charset is an error, not a
 * guess.
 */
#define PATCH_MAX_MESSAGE (64u << 20)
/* An mbox or patch file given as a series: refused unread when bigger. */
#define PATCH_MAX_FILE (256u << 20)

struct patch {
	char *author_name;	/* NULL if the patch has no From: header */
	char *author_email;
	time_t date;		/* 0 if no parsable Date: header */
	int tz_minutes;		/* offset east of UTC */
	char *subject;		/* "[PATCH n/m]" prefixes removed; NULL if none */
	char *message;		/* subject, blank line, body (ends with '\n') */
	const char *diff;	/* the diff, in memory owned by the patch */
	size_t diff_len;

	/* From the "[PATCH v3 2/7]" prefix; 0 when the subject has none. */
	int number, total, version;
	int is_reply;		/* the subject starts with "Re:" */
	char *base_commit;	/* "base-commit: <sha>" line, NULL if none */
	char **prereq_patch_ids;	/* "prerequisite-patch-id: <id>" lines */
	size_t nprereq;
	char *raw_subject;	/* the decoded Subject: before cleaning */

	char *owned;		/* private: the decoded body diff points into */
};

/*
 * Parse one mail; the patch owns all its memory (text may be freed).
 * A file without a blank line after its headers (Debian's DEP-3
 * "Description:" running into "--- a/...") has its body start at the
 * first line that is not a header, as git mailinfo reads it, and its diff
 * at the first "--- "/"+++ " pair (or "diff"/"Index:" line), as patch(1)
 * does; DEP-3's Author and Description stand in for missing From and
 * Subject headers.
 */
int patch_parse(struct patch *out, const char *text, size_t len);
/*
 * The line of text (the file p was parsed from) where p's diff starts, so
 * messages name file lines; 1 when the diff was encoded there (base64).
 */
size_t patch_diff_lineno(const struct patch *p, const char *text, size_t len);
/* The same; without need_diff a mail without a diff (cover letter, reply) parses too. */
int patch_parse_mail(struct patch *out, const char *text, size_t len, int need_diff);
void patch_release(struct patch *p);

/* Strip "Re:" and "[...]" prefixes like git mailinfo; returns a new string. */
char *patch_clean_subject(const char *subject);

/*
 * A series: the patches of one posting, in order.  From an mbox, replies
 * and mails without a diff are skipped, the newest revision ("v3") wins
 * when several are present, the patches are ordered by their "n/m"
 * number and the cover letter (0/m) only gives cover_subject and, like
 * any patch of the series, base_commit and prerequisite patch ids.  A
 * missing or duplicate number is an error naming it.
 */
struct patch_series {
	struct patch *patches;
	size_t n;
	char *base_commit;	/* NULL if no "base-commit:" line */
	char **prereq_patch_ids;
	size_t nprereq;
	char *cover_subject;	/* cleaned subject of 0/m, NULL without a cover letter */
	int version;		/* 1 unless "vN" says otherwise */
};

/* An mbox with one or many messages ("From " lines; ">From " unquoted). */
int patch_series_from_mbox(struct patch_series *out, const char *text, size_t len);

/*
 * A directory of patches: with a quilt "series" file, its patches in its
 * order; without one, every *.patch, *.diff, *.eml, *.mbox file (each may
 * hold several mails), ordered as an mbox is.
 */
int patch_series_from_dir(struct patch_series *out, const char *dir);

/* A file (mbox or single mail) or a directory; files are mapped, not read. */
int patch_series_from_path(struct patch_series *out, const char *path);

void patch_series_release(struct patch_series *s);

#endif
