#include <string.h>

#include <zlib.h>

#include "error.h"
#include "gitbin.h"

static const char b85_alphabet[] =
	"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	"!#$%&()*+-;<=>?@^_`{|}~";

static int b85_value(unsigned char c)
{
	const char *p = c ? strchr(b85_alphabet, c) : NULL;

	return p ? (int)(p - b85_alphabet) : -1;
}

/* One line: length character, then groups of 5 characters for 4 bytes. */
static int b85_line(struct buf *out, const char *s, size_t len, size_t lineno)
{
	size_t n, i, j, k;
	unsigned char c = (unsigned char)s[0];

	if (c >= 'A' && c <= 'Z')
		n = (size_t)(c - 'A' + 1);
	else if (c >= 'a' && c <= 'z')
		n = (size_t)(c - 'a' + 27);
	else
		return tide_error_set(TIDE_EINVAL, "line %zu: bad binary line length", lineno);
	if (len - 1 != (n + 3) / 4 * 5)
		return tide_error_set(TIDE_EINVAL, "line %zu: binary line has the wrong length",
				      lineno);
	for (i = 1, k = 0; i < len; i += 5) {
		unsigned long long v = 0;
		unsigned char bytes[4];

		for (j = 0; j < 5; j++) {
			int d = b85_value((unsigned char)s[i + j]);

			if (d < 0)
				return tide_error_set(TIDE_EINVAL, "line %zu: bad base85 data",
						      lineno);
			v = v * 85 + (unsigned)d;
		}
		if (v > 0xffffffffULL)
			return tide_error_set(TIDE_EINVAL, "line %zu: bad base85 data", lineno);
		for (j = 0; j < 4; j++)
			bytes[j] = (unsigned char)(v >> (24 - 8 * j));
		buf_put(out, bytes, n - k < 4 ? n - k : 4);
		k += 4;
	}
	return 0;
}

static int inflate_exact(struct buf *out, const struct buf *z, size_t size)
{
	z_stream zs;
	int rc;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return tide_error_set(TIDE_ERROR, "cannot start zlib");
	buf_grow(out, size + 1);
	zs.next_in = (unsigned char *)z->ptr;
	zs.avail_in = (uInt)z->len;
	zs.next_out = (unsigned char *)out->ptr;
	/* One spare byte: data longer than announced is caught, not truncated. */
	zs.avail_out = (uInt)size + 1;
	rc = inflate(&zs, Z_FINISH);
	inflateEnd(&zs);
	if (rc != Z_STREAM_END || zs.total_out != size)
		return tide_error_set(TIDE_EINVAL, "binary patch data does not inflate to %zu bytes",
				      size);
	out->len = size;
	out->ptr[size] = '\0';
	return 0;
}

int gitbin_decode(struct buf *out, const char *text, size_t len, size_t size,
		  size_t lineno)
{
	struct buf z = BUF_INIT;
	const char *p = text, *end = text + len, *nl;
	int error = 0;

	if (size > GITBIN_MAX_SIZE)
		return tide_error_set(TIDE_EINVAL, "line %zu: binary patch of %zu bytes is too large",
				      lineno, size);
	for (; p < end && !error; p = nl + 1, lineno++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (nl > p)
			error = b85_line(&z, p, (size_t)(nl - p), lineno);
	}
	if (!error)
		error = inflate_exact(out, &z, size);
	buf_release(&z);
	return error;
}

/* A little-endian base-128 size, as the delta's header carries two. */
static int delta_size(size_t *out, const unsigned char **p, const unsigned char *end)
{
	size_t v = 0;
	int shift = 0;
	unsigned char c;

	do {
		if (*p >= end || shift > 56)
			return tide_error_set(TIDE_EINVAL, "truncated binary delta");
		c = *(*p)++;
		v |= (size_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	*out = v;
	return 0;
}

/* A copy instruction: bits 0-3 say which offset bytes follow, 4-6 size bytes. */
static int delta_copy(size_t *off, size_t *size, unsigned char cmd,
		      const unsigned char **p, const unsigned char *end)
{
	int i;

	*off = *size = 0;
	for (i = 0; i < 7; i++) {
		if (!(cmd & (1u << i)))
			continue;
		if (*p >= end)
			return tide_error_set(TIDE_EINVAL, "truncated binary delta");
		if (i < 4)
			*off |= (size_t)*(*p)++ << (8 * i);
		else
			*size |= (size_t)*(*p)++ << (8 * (i - 4));
	}
	if (!*size)
		*size = 0x10000;
	return 0;
}

int gitbin_delta_apply(struct buf *out, const char *src, size_t srclen,
		       const char *delta, size_t dlen)
{
	const unsigned char *p = (const unsigned char *)delta, *end = p + dlen;
	size_t want_src = 0, want_dst = 0, off, size;
	int error;

	if ((error = delta_size(&want_src, &p, end)) < 0 ||
	    (error = delta_size(&want_dst, &p, end)) < 0)
		return error;
	if (want_src != srclen)
		return tide_error_set(TIDE_ECONFLICT, "binary delta expects %zu bytes, file has %zu",
				      want_src, srclen);
	if (want_dst > GITBIN_MAX_SIZE)
		return tide_error_set(TIDE_EINVAL, "binary delta result is too large");
	buf_grow(out, want_dst);
	while (p < end) {
		unsigned char cmd = *p++;

		if (cmd & 0x80) {
			if ((error = delta_copy(&off, &size, cmd, &p, end)) < 0)
				return error;
			if (off > srclen || size > srclen - off || size > want_dst - out->len)
				return tide_error_set(TIDE_EINVAL, "bad copy in binary delta");
			buf_put(out, src + off, size);
		} else if (cmd) {
			if (cmd > end - p || cmd > want_dst - out->len)
				return tide_error_set(TIDE_EINVAL, "bad insert in binary delta");
			buf_put(out, p, cmd);
			p += cmd;
		} else {
			return tide_error_set(TIDE_EINVAL, "bad instruction in binary delta");
		}
	}
	if (out->len != want_dst)
		return tide_error_set(TIDE_EINVAL, "binary delta gives %zu bytes, not %zu",
				      out->len, want_dst);
	return 0;
}
