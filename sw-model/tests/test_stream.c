// SPDX-License-Identifier: MIT
/*
 * test_stream.c - the group and stream API of the model (docs/codec.md,
 * "Group format" and "Stream format"), built with ASan/UBSan.
 *
 * Buffers are heap blocks of exactly the size under test, so any read past
 * in_len or write past out_cap is an ASan error, not a silent pass.
 */
#include "inc_model.h"
#include "inc_framegen.h"
#include "inc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* A heap copy of exactly len bytes (malloc(0) may be NULL: use 1 byte and
 * still pass len 0). */
static uint8_t *dup_exact(const uint8_t *p, size_t len)
{
	uint8_t *q = malloc(len ? len : 1);

	if (!q)
		abort();
	if (len)
		memcpy(q, p, len);
	return q;
}

static uint8_t *xmalloc(size_t len)
{
	uint8_t *q = malloc(len ? len : 1);

	if (!q)
		abort();
	return q;
}

/* Offsets of the groups of a stream of n values, from the tag words. */
static size_t group_offsets(const uint8_t *s, size_t n, size_t *off)
{
	size_t g, pos = 0;

	for (g = 0; g < (n + 7) / 8; g++) {
		off[g] = pos;
		pos += inc_group_size((uint16_t)(s[pos] | s[pos + 1] << 8));
	}
	return pos;
}

/* Everything about one stream of n values at eb. */
static void check_stream(const uint8_t *vals, size_t n, unsigned eb,
			 const char *what)
{
	size_t maxsz = inc_stream_max_size(n), ngroups = (n + 7) / 8, i, len, g;
	uint8_t *big = xmalloc(maxsz), *exact, *in, *dec, *grp;
	struct inc_class_counts cnt = { { 0 } }, cnt2 = { { 0 } };
	size_t *off = calloc(ngroups + 1, sizeof(*off));
	long s, r;
	int ok;
	unsigned tag, nv, lane;
	uint32_t p, tw;

	if (!off)
		abort();
	s = inc_stream_compress(vals, n, eb, big, maxsz, &cnt);
	CHECK(s >= (long)(2 * ngroups) && s <= (long)maxsz,
	      "%s n=%zu eb=%u: stream size %ld outside [%zu, %zu]", what, n, eb,
	      s, 2 * ngroups, maxsz);
	if (s < 0)
		goto out_free;
	CHECK(cnt.n[0] + cnt.n[1] + cnt.n[2] + cnt.n[3] == n,
	      "%s n=%zu: class counts do not add up", what, n);

	/* Group structure: sizes from the tag words add up, padding is tag 0,
	 * the tags and counts agree with the per-value codec. */
	CHECK(group_offsets(big, n, off) == (size_t)s,
	      "%s n=%zu: group sizes do not add up to %ld", what, n, s);
	off[ngroups] = (size_t)s;
	ok = 1;
	for (g = 0; g < ngroups; g++) {
		tw = big[off[g]] | (uint32_t)big[off[g] + 1] << 8;
		nv = n - 8 * g < 8 ? (unsigned)(n - 8 * g) : 8u;
		for (lane = 0; lane < 8; lane++) {
			tag = (tw >> (2 * lane)) & 3u;
			if (lane >= nv) {
				ok &= tag == 0;
				continue;
			}
			ok &= tag == inc_compress_value(ld32(vals + 4 * (8 * g + lane)), eb, &p);
			cnt2.n[tag]++;
		}
		/* The group API gives the same bytes. */
		grp = xmalloc(INC_GROUP_MAX_BYTES);
		ok &= inc_group_encode(vals + 32 * g, nv, eb, grp, NULL) ==
			      off[g + 1] - off[g] &&
		      !memcmp(grp, big + off[g], off[g + 1] - off[g]);
		free(grp);
	}
	CHECK(ok, "%s n=%zu eb=%u: group tags/padding/group API disagree", what, n, eb);
	CHECK(!memcmp(&cnt, &cnt2, sizeof(cnt)), "%s n=%zu: class counts differ from tags", what, n);

	/* Output capacity exactly the size, and every capacity below it. */
	exact = xmalloc((size_t)s);
	r = inc_stream_compress(vals, n, eb, exact, (size_t)s, NULL);
	CHECK(r == s && !memcmp(exact, big, (size_t)s),
	      "%s n=%zu: exact-capacity compress gives %ld, want %ld", what, n, r, s);
	free(exact);
	ok = 1;
	for (len = 0; len < (size_t)s; len++) {
		exact = xmalloc(len);
		r = inc_stream_compress(vals, n, eb, len ? exact : NULL, len, NULL);
		ok &= r == INC_ENOSPC;
		free(exact);
		if ((size_t)s > 4096 && len > 64 && len + 64 < (size_t)s) /* big n */
			len += (size_t)s / 16;
	}
	CHECK(ok, "%s n=%zu: a capacity below %ld does not give INC_ENOSPC", what, n, s);

	/* Size walk and decompress with exact buffers agree. */
	in = dup_exact(big, (size_t)s);
	r = inc_stream_size(in, (size_t)s, n);
	CHECK(r == s, "%s n=%zu: inc_stream_size %ld, want %ld", what, n, r, s);
	dec = xmalloc(4 * n);
	r = inc_stream_decompress(in, (size_t)s, n, dec, 4 * n);
	CHECK(r == s, "%s n=%zu: decompress consumed %ld, want %ld", what, n, r, s);
	ok = r == s;
	for (i = 0; ok && i < n; i++) {
		tag = inc_compress_value(ld32(vals + 4 * i), eb, &p);
		ok = ld32(dec + 4 * i) == inc_decompress_value(tag, p);
	}
	CHECK(ok, "%s n=%zu eb=%u: value %zu differs from the per-value round trip",
	      what, n, eb, i - 1);
	if (n) {
		r = inc_stream_decompress(in, (size_t)s, n, dec, 4 * n - 1);
		CHECK(r == INC_ENOSPC, "%s n=%zu: out_cap 4n-1 gives %ld", what, n, r);
	}
	free(dec);
	free(in);

	/* Truncated at every byte: both walks say INC_ETRUNC. */
	dec = xmalloc(4 * n);
	ok = 1;
	for (len = 0; len < (size_t)s; len++) {
		in = dup_exact(big, len);
		ok &= inc_stream_size(in, len, n) == INC_ETRUNC;
		ok &= inc_stream_decompress(in, len, n, dec, 4 * n) == INC_ETRUNC;
		free(in);
		if ((size_t)s > 4096 && len > 64 && len + 64 < (size_t)s)
			len += (size_t)s / 16;
	}
	CHECK(ok, "%s n=%zu: a truncated stream does not give INC_ETRUNC", what, n);

	/* Bytes after the stream are not consumed. */
	in = xmalloc((size_t)s + 7);
	memcpy(in, big, (size_t)s);
	memset(in + s, 0xff, 7);
	r = inc_stream_decompress(in, (size_t)s + 7, n, dec, 4 * n);
	CHECK(r == s, "%s n=%zu: trailing bytes change the consumed size to %ld", what, n, r);
	free(in);

	/* A non-zero padding tag is malformed, whatever the tag. */
	if (n % 8) {
		for (tag = 1; tag <= 3; tag++)
			for (lane = (unsigned)(n % 8); lane < 8; lane++) {
				in = dup_exact(big, (size_t)s);
				in[off[ngroups - 1] + lane / 4] |= (uint8_t)(tag << (2 * (lane % 4)));
				r = inc_stream_size(in, (size_t)s, n);
				CHECK(r == INC_EMALFORMED, "%s n=%zu: padding lane %u tag %u: size gives %ld",
				      what, n, lane, tag, r);
				r = inc_stream_decompress(in, (size_t)s, n, dec, 4 * n);
				CHECK(r == INC_EMALFORMED, "%s n=%zu: padding lane %u tag %u: decompress gives %ld",
				      what, n, lane, tag, r);
				free(in);
			}
	}
	/* Asking for more values than the stream holds runs off its end. */
	in = dup_exact(big, (size_t)s);
	r = inc_stream_size(in, (size_t)s, n + 8);
	CHECK(r == INC_ETRUNC, "%s n=%zu: n+8 values give %ld", what, n, r);
	free(in);
	free(dec);
out_free:
	free(off);
	free(big);
}

static void check_misc(void)
{
	uint8_t buf[64], out[64];
	long r;

	/* n = 0: the empty stream, whatever the pointers. */
	CHECK(inc_stream_compress(NULL, 0, 10, NULL, 0, NULL) == 0, "n=0 compress");
	CHECK(inc_stream_decompress(NULL, 0, 0, NULL, 0) == 0, "n=0 decompress");
	CHECK(inc_stream_size(NULL, 0, 0) == 0, "n=0 size");
	memset(buf, 0xff, sizeof(buf));
	CHECK(inc_stream_decompress(buf, sizeof(buf), 0, out, 0) == 0,
	      "n=0 consumes nothing");
	/* Bad arguments. */
	CHECK(inc_stream_compress(NULL, 1, 10, out, sizeof(out), NULL) == INC_EINVAL,
	      "NULL input");
	CHECK(inc_stream_compress(buf, 1, 10, NULL, 8, NULL) == INC_EINVAL, "NULL output");
	CHECK(inc_stream_decompress(NULL, 4, 1, out, 4) == INC_EINVAL, "NULL stream");
	CHECK(inc_stream_decompress(buf, 4, 1, NULL, 0) == INC_EINVAL, "NULL out");
	CHECK(inc_stream_size(NULL, 4, 1) == INC_EINVAL, "NULL stream size");
	CHECK(inc_group_decode(buf, sizeof(buf), 9, out) == INC_EINVAL, "nvalid 9");
	/* One byte, or a tag word promising more than is there. */
	buf[0] = 0;
	CHECK(inc_stream_decompress(buf, 1, 1, out, 4) == INC_ETRUNC, "1-byte stream");
	buf[0] = 0xff;
	buf[1] = 0xff;
	r = inc_stream_size(buf, 33, 8);
	CHECK(r == INC_ETRUNC, "tag word 0xffff with 33 bytes: %ld", r);
	r = inc_stream_size(buf, 34, 8);
	CHECK(r == 34, "tag word 0xffff with 34 bytes: %ld", r);
	/* Group sizes: 2 + payload bytes. */
	CHECK(inc_group_size(0x0000) == 2 && inc_group_size(0xffff) == 34 &&
	      inc_group_size(0x5555) == 10 && inc_group_size(0xaaaa) == 18 &&
	      inc_group_size(0x0316) == 10, "inc_group_size");
	CHECK(inc_tag_bytes(0) == 0 && inc_tag_bytes(1) == 1 && inc_tag_bytes(2) == 2 &&
	      inc_tag_bytes(3) == 4, "inc_tag_bytes");
}

int main(void)
{
	static const unsigned ebs[] = { 6, 8, 10, 1, 126 };
	uint64_t rng = 0x1234567887654321ull;
	size_t n, big_n = (size_t)1 << 20;
	unsigned mix, i;
	uint8_t *vals, *unal;
	char what[64];

	check_misc();
	/* Every n from 0 to 41 (every padding count, several groups), every
	 * payload mix, several error bounds. */
	for (mix = 0; mix < INC_FG_MIX_COUNT; mix++)
		for (i = 0; i < sizeof(ebs) / sizeof(ebs[0]); i++)
			for (n = 0; n <= 41; n++) {
				vals = xmalloc(4 * n);
				inc_fg_payload(vals, 4 * n, (enum inc_fg_mix)mix, &rng);
				snprintf(what, sizeof(what), "mix %u", mix);
				check_stream(vals, n, ebs[i], what);
				free(vals);
			}
	/* Unaligned input gives the same stream. */
	vals = xmalloc(4 * 100 + 1);
	inc_fg_payload(vals + 1, 4 * 100, INC_FG_GRADIENT, &rng);
	check_stream(vals + 1, 100, 10, "unaligned");
	{
		uint8_t a[INC_GROUP_MAX_BYTES * 13], b[INC_GROUP_MAX_BYTES * 13];
		long ra, rb;

		unal = xmalloc(4 * 100);
		memcpy(unal, vals + 1, 4 * 100);
		ra = inc_stream_compress(vals + 1, 100, 10, a, sizeof(a), NULL);
		rb = inc_stream_compress(unal, 100, 10, b, sizeof(b), NULL);
		CHECK(ra == rb && ra > 0 && !memcmp(a, b, (size_t)ra),
		      "unaligned input changes the stream");
		free(unal);
	}
	free(vals);
	/* A large stream (1 Mi values, 4 MiB) of gradient-like data. */
	vals = xmalloc(4 * big_n);
	inc_fg_payload(vals, 4 * big_n, INC_FG_GRADIENT, &rng);
	check_stream(vals, big_n, 10, "large");
	free(vals);
	return inc_test_done();
}
