#ifndef TIDE_PATCH_H
#define TIDE_PATCH_H

#include <stddef.h>
#include <time.h>

/*
 * A patch in mail format (git format-patch, quilt/mmotm patches): the
 * mail headers give the commit's author, date and subject, the body up to
 * the "---" line its message, and the rest is the diff.
 */
struct patch {
	char *author_name;	/* NULL if the patch has no From: header */
	char *author_email;
	time_t date;		/* 0 if no parsable Date: header */
	int tz_minutes;		/* offset east of UTC */
	char *subject;		/* "[PATCH n/m]" prefixes removed; NULL if none */
	char *message;		/* subject, blank line, body (ends with '\n') */
	const char *diff;	/* points into the text passed to patch_parse() */
	size_t diff_len;
};

/* Parse text (kept alive by the caller while patch.diff is used). */
int patch_parse(struct patch *out, const char *text, size_t len);
void patch_release(struct patch *p);

/* Strip "Re:" and "[...]" prefixes like git mailinfo; returns a new string. */
char *patch_clean_subject(const char *subject);

#endif
