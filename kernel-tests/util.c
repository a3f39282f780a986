#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "ktest.h"

int kt_write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, saved;

	if ((fd = open(path, O_WRONLY)) < 0)
		return -1;
	n = write(fd, text, len);
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)len ? 0 : -1;
}

int kt_read_file(const char *path, char *out, size_t size)
{
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	n = read(fd, out, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	out[n] = '\0';
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	return 0;
}

int kt_cmdline(const char *key, char *out, size_t size)
{
	char line[4096], *p, *tok, *save = NULL;
	size_t klen = strlen(key);

	if (kt_read_file("/proc/cmdline", line, sizeof(line)) < 0)
		return -1;
	for (p = line; (tok = strtok_r(p, " ", &save)); p = NULL) {
		if (!strncmp(tok, key, klen) && tok[klen] == '=') {
			snprintf(out, size, "%s", tok + klen + 1);
			return 0;
		}
	}
	return -1;
}

int kt_config_value(const char *opt, char *out, size_t size)
{
	char line[512], set[128], unset[128];
	gzFile gz;
	int err;

	if (!(gz = gzopen("/proc/config.gz", "rb")))
		return -1;
	snprintf(set, sizeof(set), "%s=", opt);
	snprintf(unset, sizeof(unset), "# %s is not set", opt);
	out[0] = '\0';
	while (gzgets(gz, line, sizeof(line))) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, set, strlen(set)))
			snprintf(out, size, "%s", line + strlen(set));
		else if (!strcmp(line, unset))
			snprintf(out, size, "n");
	}
	gzerror(gz, &err);
	gzclose(gz);
	return err == Z_OK || err == Z_STREAM_END ? 0 : -1;
}

char *kt_path(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, size, fmt, ap);
	va_end(ap);
	return out;
}
