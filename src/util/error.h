#ifndef TIDE_ERROR_H
#define TIDE_ERROR_H

/*
 * Library functions return 0 (or a positive count) on success and one of
 * these negative codes on failure, after recording a message with
 * tide_error_set().  Only cmd/ reads the message and talks to the user.
 * The message is thread-local, so fetch workers can fail independently.
 */
enum {
	TIDE_OK = 0,
	TIDE_ERROR = -1,	/* generic failure of the tool or the system */
	TIDE_EINVAL = -2,	/* bad input: config, argument, date, patch */
	TIDE_ENOTFOUND = -3,	/* a named thing (day, tree, ref) does not exist */
	TIDE_ELOCKED = -4,	/* the workspace is locked by another run */
	TIDE_ECONFLICT = -5,	/* a merge or patch did not apply cleanly */
	TIDE_ETIMEOUT = -6,	/* a network or child process timed out */
	TIDE_EIO = -7,		/* reading or writing a file failed */
};

/* Record a message and return code, so callers can `return tide_error_set(...)`. */
int tide_error_set(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Like tide_error_set(), appending ": <libgit2's last message>". */
int tide_error_git(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Like tide_error_set(), appending ": <strerror(errno)>". */
int tide_error_errno(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefix the recorded message with more context: "<prefix>: <old>". */
int tide_error_wrap(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

const char *tide_error_last(void);
int tide_error_code(void);
void tide_error_clear(void);

#endif
