#ifndef TIDE_MAIL_H
#define TIDE_MAIL_H

#include <stddef.h>
#include <time.h>

#include "buf.h"

/*
 * Conflict mails to tree maintainers, sent over SMTP with libcurl
 * (smtp://, smtps://, and STARTTLS on smtp:// when asked for).  The user
 * and password come from a file only its owner can read; they are handed
 * to libcurl and never copied into a message, log or report.
 */

struct mail_msg {
	char *from;		/* "Name <addr>" or "addr" */
	char **to;
	size_t nto;
	char **cc;
	size_t ncc;
	char *subject;
	char *body;		/* LF line endings */
	char *message_id;	/* "<...>" */
	char *in_reply_to;	/* "<...>" of the mail this one answers (and References), or NULL */
	time_t date;
};

struct mail_server {
	char *url;		/* smtp://host:port or smtps://host:port */
	int starttls;		/* require STARTTLS on smtp:// */
	char *user;		/* NULL: no authentication */
	char *password;
	char *cainfo;		/* CA bundle for TLS; NULL: system default */
	long timeout;		/* seconds for connect and stalled transfers; default 30 */
};

/* Add an address to a list (to or cc), skipping duplicates and empties. */
void mail_add_rcpt(char ***list, size_t *n, const char *addr);
/*
 * Add a commit's author ("Name <address>", from a tree's commit) to a
 * list: only one plain address (printable ASCII, one '@', no white space
 * or specials), with the name quoted when it is plain ASCII; anything
 * else is left out.
 */
void mail_add_author(char ***list, size_t *n, const char *author);
void mail_msg_release(struct mail_msg *m);

/*
 * The message in RFC 5322 form: Date, From, To, Cc, Subject, Message-ID,
 * MIME headers, blank line, body.  crlf selects CRLF line endings (what
 * goes over the wire) instead of LF (what --dry-run prints).
 */
void mail_format(struct buf *out, const struct mail_msg *m, int crlf);

/*
 * Read "user=NAME" and "password=SECRET" lines from path.  The file must
 * belong to the caller and not be readable by group or others
 * (TIDE_EINVAL otherwise, naming the file and its mode).
 */
int mail_credentials_load(struct mail_server *s, const char *path);

/* Check url's scheme and that it carries no credentials (they belong in the file). */
int mail_server_check(const struct mail_server *s);

/* Send one message; errors carry the server's answer but never the password. */
int mail_send(const struct mail_server *s, const struct mail_msg *m);

void mail_server_release(struct mail_server *s);

/* Just the address part of "Name <addr>". */
char *mail_address(const char *from);

#endif
