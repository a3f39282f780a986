/* The workspace's settings file (settings.h). */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "settings.h"
#include "util.h"

#define SETTINGS_MAX_FILE (1 << 20)
#define SETTINGS_MAX_VALUE 4096

struct settings_line {
	char *text;	/* a comment or blank line, kept as it was */
	char *key;	/* or a setting */
	char *value;
};

struct settings {
	char *path;
	struct settings_line *lines;
	size_t nr, alloc;
	size_t nloaded;		/* lines read from the file (settings_line_of) */
};

int settings_key_valid(const char *key)
{
	const char *p;

	if (!key || !*key || strlen(key) > 64 || *key == '-' || *key == '.')
		return 0;
	for (p = key; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '-' || *p == '.'))
			return 0;
	return 1;
}

static int value_valid(const char *value)
{
	const unsigned char *p;

	if (strlen(value) > SETTINGS_MAX_VALUE)
		return 0;
	for (p = (const unsigned char *)value; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

struct settings *settings_new(const char *path)
{
	struct settings *s = xcalloc(1, sizeof(*s));

	s->path = xstrdup(path);
	return s;
}

static struct settings_line *add_line(struct settings *s)
{
	array_grow(&s->lines, &s->alloc, s->nr + 1, sizeof(*s->lines));
	memset(&s->lines[s->nr], 0, sizeof(*s->lines));
	return &s->lines[s->nr++];
}

static char *trim(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return str_rtrim(p);
}

static int parse_line(struct settings *s, char *line, size_t lineno)
{
	char *eq, *key, *value;
	struct settings_line *l;

	key = trim(line);
	if (!*key || *key == '#') {
		add_line(s)->text = xstrdup(line);
		return 0;
	}
	if (!(eq = strchr(key, '=')))
		return tide_error_set(TIDE_EINVAL, "%s:%zu: expected 'key = value'",
				      s->path, lineno);
	*eq = '\0';
	key = trim(key);
	value = trim(eq + 1);
	if (!settings_key_valid(key))
		return tide_error_set(TIDE_EINVAL, "%s:%zu: bad key '%s' (lower-case letters, "
				      "digits, '-' and '.')", s->path, lineno, key);
	if (!value_valid(value))
		return tide_error_set(TIDE_EINVAL, "%s:%zu: value of '%s' has a control "
				      "character or is over %d bytes", s->path, lineno, key,
				      SETTINGS_MAX_VALUE);
	if (settings_get(s, key))
		return tide_error_set(TIDE_EINVAL, "%s:%zu: '%s' is set twice",
				      s->path, lineno, key);
	l = add_line(s);
	l->key = xstrdup(key);
	l->value = xstrdup(value);
	return 0;
}

int settings_load(struct settings **out, const char *path)
{
	struct buf b = BUF_INIT;
	struct settings *s;
	char *line, *next;
	size_t lineno = 0;
	int error;

	*out = NULL;
	s = settings_new(path);
	if (!path_exists(path)) {
		*out = s;
		return 0;
	}
	if ((error = file_read(&b, path)) < 0)
		goto fail;
	if (b.len > SETTINGS_MAX_FILE) {
		error = tide_error_set(TIDE_EINVAL, "%s: over %d bytes", path, SETTINGS_MAX_FILE);
		goto fail;
	}
	if (memchr(b.ptr, '\0', b.len)) {
		error = tide_error_set(TIDE_EINVAL, "%s: contains a NUL byte", path);
		goto fail;
	}
	for (line = b.ptr; line && *line; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		if ((error = parse_line(s, line, lineno)) < 0)
			goto fail;
	}
	buf_release(&b);
	s->nloaded = s->nr;
	*out = s;
	return 0;
fail:
	buf_release(&b);
	settings_free(s);
	return error;
}

const char *settings_get(const struct settings *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->lines[i].key && !strcmp(s->lines[i].key, key))
			return s->lines[i].value;
	return NULL;
}

int settings_set(struct settings *s, const char *key, const char *value)
{
	struct settings_line *l = NULL;
	size_t i;

	if (!settings_key_valid(key))
		return tide_error_set(TIDE_EINVAL, "bad setting name '%s'", key);
	if (value && !value_valid(value))
		return tide_error_set(TIDE_EINVAL, "value of '%s' has a control character "
				      "or is over %d bytes", key, SETTINGS_MAX_VALUE);
	for (i = 0; i < s->nr; i++)
		if (s->lines[i].key && !strcmp(s->lines[i].key, key)) {
			l = &s->lines[i];
			break;
		}
	if (!value) {
		if (l) {
			free(l->key);
			free(l->value);
			memmove(l, l + 1, (s->nr - i - 1) * sizeof(*l));
			s->nr--;
			if (s->nloaded > i)
				s->nloaded = i;	/* later lines moved up */
		}
		return 0;
	}
	if (!l) {
		l = add_line(s);
		l->key = xstrdup(key);
	} else {
		free(l->value);
	}
	l->value = xstrdup(value);
	return 0;
}

size_t settings_line_of(const struct settings *s, const char *key)
{
	size_t i;

	/* A loaded file has one entry per line, in order. */
	for (i = 0; i < s->nr && i < s->nloaded; i++)
		if (s->lines[i].key && !strcmp(s->lines[i].key, key))
			return i + 1;
	return 0;
}

int settings_entry(const struct settings *s, size_t n, const char **key, const char **value)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		if (!s->lines[i].key || n--)
			continue;
		*key = s->lines[i].key;
		*value = s->lines[i].value;
		return 1;
	}
	return 0;
}

int settings_save(const struct settings *s)
{
	struct buf b = BUF_INIT;
	size_t i;
	int error;

	for (i = 0; i < s->nr; i++) {
		if (s->lines[i].key)
			buf_printf(&b, "%s = %s\n", s->lines[i].key, s->lines[i].value);
		else
			buf_printf(&b, "%s\n", s->lines[i].text);
	}
	error = file_write_atomic(s->path, b.ptr ? b.ptr : "", b.len);
	buf_release(&b);
	return error;
}

void settings_free(struct settings *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++) {
		free(s->lines[i].text);
		free(s->lines[i].key);
		free(s->lines[i].value);
	}
	free(s->lines);
	free(s->path);
	free(s);
}
