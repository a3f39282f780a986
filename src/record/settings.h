#ifndef TIDE_SETTINGS_H
#define TIDE_SETTINGS_H

#include <stddef.h>

/*
 * The workspace's own settings, DIR/config (man/tide-config.5): one
 * "key = value" per line, '#' comments, blank lines.  Keys are lower-case
 * letters, digits, '-' and '.'; values are one line of printable text.
 * tide writes the file itself (the trees.conf a workspace was created
 * with) and users edit it (shared cache, build hosts); lines are kept in
 * their order, comments included, when a value is changed.
 *
 * A missing file is an empty set of settings.  Which keys exist and what
 * their values mean is up to the callers; the file only knows the syntax,
 * so a workspace written by a newer tide still loads.
 */
struct settings;

/* Load path; a syntax error is TIDE_EINVAL naming "path:line". */
int settings_load(struct settings **out, const char *path);

/* An empty set, saved to path by settings_save(). */
struct settings *settings_new(const char *path);

/* The value of key, or NULL when unset. */
const char *settings_get(const struct settings *s, const char *key);

/*
 * Set key to value (value NULL removes it).  A bad key or a value with a
 * control character or more than 4096 bytes is TIDE_EINVAL.
 */
int settings_set(struct settings *s, const char *key, const char *value);

/* Write the settings back atomically (temporary file, fsync, rename). */
int settings_save(const struct settings *s);

/* Iterate: the n-th set key and its value; returns 0 past the end. */
int settings_entry(const struct settings *s, size_t n, const char **key, const char **value);

/* The line of path that sets key (1-based), 0 when unset or set by tide. */
size_t settings_line_of(const struct settings *s, const char *key);

int settings_key_valid(const char *key);

void settings_free(struct settings *s);

#endif
