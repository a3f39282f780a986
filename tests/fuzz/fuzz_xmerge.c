/*
 * Content merges (src/xmerge.c, src/linediff.c) of texts a tree sends.
 * The input is base, ours and theirs separated by 0xff bytes; the first
 * byte picks the marker size and favour.  Oracles: each line diff, read
 * back, matches the lines it calls unchanged; a side equal to the base
 * gives the other side; favouring a side leaves no conflict.
 */
#include "fuzz.h"
#include "buf.h"
#include "linediff.h"
#include "xmerge.h"

/* Split at 0xff: up to three parts, the missing ones empty. */
static void split3(const uint8_t *data, size_t size, struct xmerge_text in[3])
{
	size_t i, part = 0, start = 0;

	memset(in, 0, 3 * sizeof(*in));
	for (i = 0; i <= size && part < 3; i++) {
		if (i < size && data[i] != 0xff)
			continue;
		in[part].ptr = (const char *)data + start;
		in[part].size = i - start;
		part++;
		start = i + 1;
	}
	for (; part < 3; part++)
		in[part].ptr = "";
	in[1].label = "ours";
	in[2].label = "theirs";
}

/* Ids by first-byte-of-line equality classes of a and b, then a script check. */
static void check_diff(const struct xmerge_text *a, const struct xmerge_text *b)
{
	uint32_t ia[256], ib[256], na = 0, nb = 0, i, j;
	struct ld_script s = { NULL, 0, 0 };
	struct ld_ids ids;
	size_t k;

	for (i = 0; i < a->size && na < 256; i++)
		if (i == 0 || a->ptr[i - 1] == '\n')
			ia[na++] = (unsigned char)a->ptr[i];
	for (i = 0; i < b->size && nb < 256; i++)
		if (i == 0 || b->ptr[i - 1] == '\n')
			ib[nb++] = (unsigned char)b->ptr[i];
	ld_ids_init(&ids, 256);
	if (ld_diff(&s, ia, na, ib, nb, &ids) == 0) {
		for (i = j = 0, k = 0; k <= s.n; k++) {
			uint32_t stop = k < s.n ? s.v[k].a : na;

			if (k < s.n && (s.v[k].a < i || s.v[k].b - j != s.v[k].a - i))
				FUZZ_FAIL("a change out of order or unchanged runs of unequal length");
			for (; i < stop; i++, j++)
				if (j >= nb || ia[i] != ib[j])
					FUZZ_FAIL("lines the diff calls unchanged differ");
			if (k < s.n) {
				i += s.v[k].na;
				j += s.v[k].nb;
			}
		}
		if (i != na || j != nb)
			FUZZ_FAIL("the script does not cover both texts");
	}
	ld_script_release(&s);
	ld_ids_release(&ids);
}

static int same(const struct xmerge_text *a, const struct xmerge_text *b)
{
	return a->size == b->size && !memcmp(a->ptr, b->ptr, a->size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xmerge_opts o = XMERGE_OPTS_INIT;
	struct xmerge_text in[3];
	struct buf out = BUF_INIT;
	int n;

	if (!size)
		return 0;
	o.marker_size = data[0] & 15;
	o.favor = (data[0] >> 4) & 3;
	split3(data + 1, size - 1, in);
	check_diff(&in[0], &in[1]);
	n = xmerge(&out, &in[0], &in[1], &in[2], &o);
	if (n < 0)
		FUZZ_FAIL("a small merge failed");
	if (o.favor && n)
		FUZZ_FAIL("a favoured merge has conflicts");
	if (same(&in[0], &in[1]) && (n || out.len != in[2].size ||
				      memcmp(out.ptr ? out.ptr : "", in[2].ptr, out.len)))
		FUZZ_FAIL("ours unchanged, and the result is not theirs");
	if (same(&in[0], &in[2]) && (n || out.len != in[1].size ||
				      memcmp(out.ptr ? out.ptr : "", in[1].ptr, out.len)))
		FUZZ_FAIL("theirs unchanged, and the result is not ours");
	buf_release(&out);
	tide_error_clear();
	return 0;
}
