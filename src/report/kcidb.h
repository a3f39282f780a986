#ifndef TIDE_KCIDB_H
#define TIDE_KCIDB_H

#include <jansson.h>

/*
 * A day as a KCIDB v5.3 document (man/tide-kcidb.1): the checkouts (the
 * day and one per tree), the build, the boot and its KTAP results as
 * tests, and an issue with an incident for each build error and failing
 * test.  Only what the day record holds is exported: a day without a
 * build has no builds, a build without a boot no tests.
 *
 * Ids are "<origin>:<tag>" for the day's checkout and built from it for
 * the rest; issue ids do not name the day, so the same breakage on two
 * days is one issue with two incidents.  A regression (kcidb_opts) is
 * the issue "<origin>:regression:<id>", its version counting what was
 * learnt since it appeared (a culprit, a fix).
 */
struct day;

struct regress_list;

struct kcidb_opts {
	const char *origin;	/* the CI system's name, ^[a-z0-9_]+$ */
	const char *url_base;	/* URL where DIR/days/ is published, or NULL */
	const char *project;	/* the checkout's tree_name; NULL: the day's "project" */
	/*
	 * DIR/regressions.json (src/regress.h), or NULL: a failure that is
	 * part of a regression is that regression's issue (one across its
	 * days), with an incident on each day's failing build or test, and
	 * one saying it is not present on the day it was fixed.
	 */
	const struct regress_list *regressions;
	const char *lore;	/* archive URL for an issue's report_url (its first mail); NULL: lore.kernel.org/r */
};

/* KCIDB's origin pattern: one or more of a-z, 0-9 and '_'. */
int kcidb_origin_valid(const char *origin);

/*
 * A test path component from a KTAP name: characters KCIDB refuses
 * (anything but a-z, A-Z, 0-9, '_' and '-') become '_'; an empty name
 * is "_".  The caller frees it.
 */
char *kcidb_path_component(const char *name, size_t len);

/* The document for day; TIDE_EINVAL for a bad origin or URL base. */
int kcidb_day(json_t **out, const struct day *day, const struct kcidb_opts *opts);

/*
 * Submitting to a KCIDB-REST server (src/kcidb_submit.c): documents go
 * through a spool directory so a server that fails loses nothing, and a
 * document the server refuses goes to a dead-letter directory so it
 * cannot hold up the ones after it.
 */
struct kcidb_server {
	const char *url;	/* http(s)://host[:port][/path]; "/submit" is added */
	const char *token;	/* bearer token, never in a message */
	long timeout;		/* seconds for the whole submission, connects included */
};

/* Read a bearer token: one line of printable ASCII, at most 4096 bytes. */
int kcidb_token_read(char **out, const char *path);

/* Put a document in the spool as NAME.json (atomically, replacing one of that name). */
int kcidb_spool_add(const char *spool_dir, const char *name, const char *text, size_t len);

/* A spooled document moved to the dead-letter directory, and why. */
struct kcidb_rejected {
	char *name;		/* "next-20261203.json" */
	char *why;		/* "HTTP 400: ..." or why the file is not a document */
};

struct kcidb_sent {
	int sent;		/* accepted (2xx) and removed from the spool */
	int left;		/* still in the spool */
	struct kcidb_rejected *rejected;
	size_t nrejected;
};

/*
 * POST every spooled document, oldest name first, removing each the
 * server accepted (2xx).  A document the server rejects with a 4xx that
 * is about the document (not 401, 403, 404, 405, 407, 408 or 429, which
 * are about the token, the URL or the pace) is moved to rejected_dir, as
 * is a spooled file that is not a regular file of a sane size, and the
 * next one is sent.  Any other failure stops the submission and is
 * returned (TIDE_ETIMEOUT for a server that does not answer in time, or
 * when srv->timeout seconds, which bound the whole submission, are
 * spent), the rest staying in the spool.  out is filled in either case.
 */
int kcidb_spool_send(struct kcidb_sent *out, const char *spool_dir, const char *rejected_dir,
		     const struct kcidb_server *srv);
void kcidb_sent_release(struct kcidb_sent *s);

/* The origin when neither an option nor DIR/config's kcidb-origin= names one. */
#define KCIDB_DEFAULT_ORIGIN "tide"
/* Seconds for a submission when DIR/config's kcidb-timeout= is not set. */
#define KCIDB_DEFAULT_TIMEOUT 60

/* Where a day's submission stopped, if it did. */
enum kcidb_submit_step {
	KCIDB_SUBMIT_OK,
	KCIDB_SUBMIT_DOCUMENT,	/* the day could not be loaded or made a document */
	KCIDB_SUBMIT_SPOOL,	/* the token could not be read or the document spooled */
	KCIDB_SUBMIT_SEND,	/* the server failed: sent says how far it got */
};

/* How one submission of a day (tide run, tide kcidb --submit) went. */
struct kcidb_submission {
	enum kcidb_submit_step failed;
	int code;		/* the failure's TIDE_E* code, or 0 */
	char *why;		/* the failure's message, or NULL */
	struct kcidb_sent sent;	/* filled once the spool was sent (failed OK or SEND) */
	char *spool, *rejected_dir;	/* DIR/kcidb-spool, DIR/kcidb-rejected */
};

struct workspace;
struct settings;

/*
 * DIR/config's KCIDB settings (man/tide-config.5), checked before a run:
 * with kcidb-submit set, it must be an http:// or https:// URL,
 * kcidb-origin a valid origin and kcidb-timeout seconds from 1 to 3600.
 * 0 when they are good or kcidb-submit is unset (s may be NULL);
 * TIDE_EINVAL naming DIR/config:LINE otherwise.
 */
int kcidb_check_settings(const struct settings *s, const char *wsdir);

/*
 * Spool doc (a day's document) as NAME.json, then send the whole spool
 * (src/kcidb_submit.c): older documents a failed submission left go
 * first.  token_file (or NULL) holds the bearer token.  What happened is
 * in out, and in DIR/tide.log: each rejected document and the counts.
 * Returns out->code.
 */
int kcidb_submit_day(struct kcidb_submission *out, struct workspace *ws, const char *name,
		     const json_t *doc, const char *url, const char *token_file, long timeout);
void kcidb_submission_release(struct kcidb_submission *s);

#endif
