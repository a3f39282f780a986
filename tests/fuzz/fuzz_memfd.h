#ifndef TIDE_FUZZ_MEMFD_H
#define TIDE_FUZZ_MEMFD_H

/*
 * For parsers whose entry point takes a path (trees_conf_load(),
 * mail_credentials_load()): the input goes into an anonymous memory file
 * and the parser opens it as /proc/self/fd/N, so nothing is written to
 * disk and the path is the same on every run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int fuzz_memfd = -1;
static char fuzz_memfd_path[64];

/* Replace the memory file's contents by data; returns its path. */
static inline const char *fuzz_memfd_put(const void *data, size_t size, mode_t mode)
{
	const char *p = data;
	size_t done = 0;

	if (fuzz_memfd < 0) {
		fuzz_memfd = memfd_create("tide-fuzz", MFD_CLOEXEC);
		if (fuzz_memfd < 0)
			abort();
		snprintf(fuzz_memfd_path, sizeof(fuzz_memfd_path), "/proc/self/fd/%d",
			 fuzz_memfd);
	}
	if (ftruncate(fuzz_memfd, 0) < 0 || fchmod(fuzz_memfd, mode) < 0)
		abort();
	while (done < size) {
		ssize_t n = pwrite(fuzz_memfd, p + done, size - done, (off_t)done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	return fuzz_memfd_path;
}

#endif
