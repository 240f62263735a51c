// SPDX-License-Identifier: MIT
/*
 * test_codec.c - the library's stream codec (AVX2 and portable paths)
 * against the reference model, byte for byte and return code for return
 * code: random and gradient-like data from inc_framegen, an exhaustive
 * sweep of exponents (every tag class, zeros, subnormals, Inf, NaN), every
 * count 0..70 and longer tails, every error bound, capacities around the
 * exact size, truncated and corrupted streams. Also checks the properties
 * the all-reduce relies on: the round trip is idempotent and its error
 * stays below inc_codec_abs_bound(eb). The value-by-value round trip
 * (inc_codec_quantize, the nic mode's host side) gives the decoded values,
 * and with error feedback the same values and residuals as adding the
 * residual, round-tripping through the model's stream and subtracting.
 *
 * The multi-stream container (inc_codec_compress_parts/decompress_parts)
 * is checked the same way, for every K: each part byte for byte against
 * inc_stream_compress of that part, the decoded values against the model's
 * single-stream round trip, and every result code against a reading of the
 * layout in inceptionn.h built on the model's inc_stream_decompress
 * (truncations, header and length-field corruption, random bytes). Its
 * buffers are allocated at their exact sizes, so ASan sees any access
 * outside them. The one-pass round trip of the all-reduce
 * (inc_codec_compress_parts_q, with and without a residual) is checked
 * against the compress / decompress / add / subtract it replaces.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inc_framegen.h"
#include "inc_model.h"
#include "inc_test.h"
#include "inceptionn/inceptionn.h"
#include "../src/inc_internal.h"

#define MAXN   (70000u)
#define GUARD  64u

static uint8_t in_b[MAXN * 4 + GUARD];
static uint8_t m_out[MAXN * 5 + GUARD], l_out[MAXN * 5 + GUARD];
static uint8_t m_dec[MAXN * 4 + GUARD], l_dec[MAXN * 4 + GUARD];
static float q_v[MAXN + GUARD], q_res[MAXN + GUARD], q_x[MAXN + GUARD];

static uint64_t fused_rng = 0x9e3779b97f4a7c15ull;

static const unsigned ebs[] = { 0, 1, 2, 3, 5, 7, 10, 15, 16, 23, 24, 30, 64, 125, 126, 127, 200 };

static uint32_t adversarial(uint64_t *rng)
{
	uint64_t r = inc_fg_rand(rng);
	uint32_t s = (uint32_t)(r & 1) << 31;
	uint32_t e = (uint32_t)(r >> 1) & 0xff;
	uint32_t m;

	switch ((r >> 9) % 6) {
	case 0:
		m = 0;
		break;
	case 1:
		m = 0x7fffff;
		break;
	case 2:
		m = 1;
		break;
	case 3:
		m = 0x400000 | (uint32_t)(r >> 20 & 0xffff);
		break;
	default:
		m = (uint32_t)(r >> 32) & 0x7fffff;
		break;
	}
	switch ((r >> 12) % 8) {
	case 0:
		e = 0;                          /* zero / subnormal */
		break;
	case 1:
		e = 0xff;                       /* Inf / NaN */
		break;
	case 2:
		e = 117 + (uint32_t)(r >> 16) % 12; /* around eb 10 classes */
		break;
	default:
		break;
	}
	return s | e << 23 | m;
}

static void fill(size_t n, unsigned kind, uint64_t *rng)
{
	size_t i;
	uint32_t v;

	if (kind < INC_FG_MIX_COUNT) {
		inc_fg_payload(in_b, n * 4, (enum inc_fg_mix)kind, rng);
		return;
	}
	for (i = 0; i < n; i++) {
		v = adversarial(rng);
		memcpy(in_b + 4 * i, &v, 4);
	}
}

/* inc_codec_quantize on in_b: the model's decoded values (m_dec, of a
 * successful compress), nothing written past n; with a residual, the
 * model's stream round trip of in + res, and res' = (in + res) - that. */
static void quantize_check(size_t n, unsigned eb, const char *what)
{
	size_t i;
	long c;

	memcpy(q_v, in_b, n * 4);
	memset(q_v + n, 0x5a, GUARD * 4);
	inc_codec_quantize(q_v, NULL, n, eb);
	CHECK(!memcmp(q_v, m_dec, n * 4), "%s %s n=%zu eb=%u: quantize differs from the stream",
	      inc_codec_name(), what, n, eb);
	CHECK(((uint8_t *)q_v)[4 * n] == 0x5a && ((uint8_t *)q_v)[4 * (n + GUARD) - 1] == 0x5a,
	      "%s %s n=%zu: quantize wrote past n", inc_codec_name(), what, n);
	for (i = 0; i < n; i++) {
		float v;

		memcpy(&v, in_b + 4 * i, 4);
		q_res[i] = (float)((int)(i * 2654435761u % 2001u) - 1000) * 0x1p-14f;
		q_x[i] = v + q_res[i];
	}
	c = inc_stream_compress((const uint8_t *)q_x, n, eb, m_out, inc_stream_max_size(n), NULL);
	CHECK(c >= 0 && inc_stream_decompress(m_out, (size_t)c, n, m_dec, n * 4) == c,
	      "%s n=%zu: model round trip of in + res", what, n);
	memcpy(q_v, in_b, n * 4);
	inc_codec_quantize(q_v, q_res, n, eb);
	CHECK(!memcmp(q_v, m_dec, n * 4), "%s %s n=%zu eb=%u: quantize with feedback: values differ",
	      inc_codec_name(), what, n, eb);
	for (i = 0; i < n; i++) {
		float q;

		memcpy(&q, m_dec + 4 * i, 4);
		q = q_x[i] - q;
		if (memcmp(&q, &q_res[i], 4))
			break;
	}
	CHECK(i == n, "%s %s n=%zu eb=%u: quantize with feedback: residual %zu differs",
	      inc_codec_name(), what, n, eb, i);
}

/*
 * inc_codec_compress_parts_q (the all-reduce's round trip, with error
 * feedback when there is a residual) against what it replaces, composed
 * of the functions checked above: v += res, res = v, compress_parts,
 * decompress_parts into v, res -= v. The container, the values and the
 * residuals byte for byte; residuals of every exponent (zeros,
 * subnormals, Inf, NaN, every class boundary: adversarial()) and small
 * ones such as the feedback carries, and none.
 */
static void fused_check(size_t n, unsigned eb, unsigned k, uint64_t *rng, const char *what)
{
	size_t cap = inc_codec_parts_max_size(n, k), i;
	float *va = malloc(n * 4 + 4), *vb = malloc(n * 4 + 4), *ra = malloc(n * 4 + 4),
	      *rb = malloc(n * 4 + 4);
	uint8_t *ca = malloc(cap), *cb = malloc(cap);
	int with_res;

	for (with_res = 0; with_res < 2; with_res++) {
		long la, lb, da = 0;

		memcpy(va, in_b, n * 4);
		memcpy(vb, in_b, n * 4);
		for (i = 0; i < n; i++) {
			uint32_t u = adversarial(rng);

			if (inc_fg_rand(rng) % 2)
				memcpy(&ra[i], &u, 4);
			else
				ra[i] = (float)((int)(inc_fg_rand(rng) % 2001u) - 1000) * 0x1p-14f;
		}
		memcpy(rb, ra, n * 4);
		for (i = 0; with_res && i < n; i++) {
			va[i] += ra[i];
			ra[i] = va[i];
		}
		la = inc_codec_compress_parts(va, n, eb, k, ca, cap);
		if (la >= 0)
			da = inc_codec_decompress_parts(ca, (size_t)la, n, va, n * 4);
		for (i = 0; with_res && i < n; i++)
			ra[i] -= va[i];
		lb = inc_codec_compress_parts_q(vb, with_res ? rb : NULL, n, eb, k, cb, cap);
		CHECK(la >= 0 && da == la && lb == la && !memcmp(ca, cb, (size_t)la),
		      "%s %s n=%zu K=%u eb=%u res=%d: fused round trip: container %ld vs %ld",
		      inc_codec_name(), what, n, k, eb, with_res, lb, la);
		CHECK(!memcmp(va, vb, n * 4) && !memcmp(ra, rb, n * 4),
		      "%s %s n=%zu K=%u eb=%u res=%d: fused round trip: values or residuals differ",
		      inc_codec_name(), what, n, k, eb, with_res);
	}
	free(va);
	free(vb);
	free(ra);
	free(rb);
	free(ca);
	free(cb);
}

/* Compress n values with both, compare; then decompress with both. */
static void compare(size_t n, unsigned eb, const char *what)
{
	size_t cap = inc_stream_max_size(n);
	long a, b, da, db;

	memset(m_out, 0xa5, cap + GUARD);
	memset(l_out, 0xa5, cap + GUARD);
	a = inc_stream_compress(in_b, n, eb, m_out, cap, NULL);
	b = inc_codec_compress((const float *)(void *)in_b, n, eb, l_out, cap);
	CHECK(a == b, "%s %s n=%zu eb=%u: compress %ld vs model %ld",
	      inc_codec_name(), what, n, eb, b, a);
	if (a != b || a < 0)
		return;
	CHECK(!memcmp(m_out, l_out, (size_t)a), "%s %s n=%zu eb=%u: stream bytes differ",
	      inc_codec_name(), what, n, eb);
	/* Bytes between the stream end and the capacity are scratch space
	 * (the AVX2 path stores 16 bytes at a time); beyond it, untouched. */
	CHECK(!memcmp(l_out + cap, m_out + cap, GUARD),
	      "%s %s n=%zu: wrote past the capacity", inc_codec_name(), what, n);

	memset(m_dec, 0x5a, n * 4 + GUARD);
	memset(l_dec, 0x5a, n * 4 + GUARD);
	da = inc_stream_decompress(m_out, (size_t)a, n, m_dec, n * 4);
	db = inc_codec_decompress(m_out, (size_t)a, n, (float *)(void *)l_dec, n * 4);
	CHECK(da == a && db == a, "%s %s n=%zu eb=%u: decompress %ld/%ld vs %ld",
	      inc_codec_name(), what, n, eb, db, da, a);
	CHECK(!memcmp(m_dec, l_dec, n * 4 + GUARD), "%s %s n=%zu eb=%u: decoded values differ",
	      inc_codec_name(), what, n, eb);
	quantize_check(n, eb, what);
	fused_check(n, eb, 1, &fused_rng, what);
}

/* Capacities around the exact size, and truncated/corrupted input. */
static void edges(size_t n, unsigned eb, uint64_t *rng)
{
	long full = inc_stream_compress(in_b, n, eb, m_out, inc_stream_max_size(n), NULL);
	size_t caps[] = { 0, 1, 33, 34, 35 };
	size_t i, len;
	long a, b;

	if (full < 0)
		return;
	for (i = 0; i < 5 + 3; i++) {
		size_t cap = i < 5 ? caps[i] : (size_t)full - 1 + (i - 5);

		if (i >= 5 && full == 0)
			continue;
		memset(l_out, 0xa5, cap + GUARD);
		memset(l_dec, 0xa5, cap + GUARD);
		a = inc_stream_compress(in_b, n, eb, l_dec, cap, NULL);
		b = inc_codec_compress((const float *)(void *)in_b, n, eb, l_out, cap);
		CHECK(a == b, "%s n=%zu cap=%zu: compress %ld vs model %ld",
		      inc_codec_name(), n, cap, b, a);
		CHECK(!memcmp(l_out + cap, l_dec + cap, GUARD),
		      "%s n=%zu cap=%zu: wrote beyond the capacity", inc_codec_name(), n, cap);
	}
	/* Truncations: every length for short streams, a few for long ones. */
	for (len = 0; len <= (size_t)full; len += (full < 300 ? 1 : (size_t)full / 37 + 1)) {
		a = inc_stream_decompress(m_out, len, n, m_dec, n * 4);
		b = inc_codec_decompress(m_out, len, n, (float *)(void *)l_dec, n * 4);
		CHECK(a == b, "%s n=%zu trunc %zu: %ld vs model %ld", inc_codec_name(), n, len, b, a);
	}
	/* Output too small by one value. */
	if (n) {
		a = inc_stream_decompress(m_out, (size_t)full, n, m_dec, n * 4 - 1);
		b = inc_codec_decompress(m_out, (size_t)full, n, (float *)(void *)l_dec, n * 4 - 1);
		CHECK(a == b && a == INC_ENOSPC, "%s n=%zu small out: %ld vs %ld",
		      inc_codec_name(), n, b, a);
	}
	/* Random corruption: same result code and, on success, same values. */
	for (i = 0; i < 8 && full > 0; i++) {
		memcpy(l_out, m_out, (size_t)full + GUARD);
		l_out[inc_fg_rand(rng) % (size_t)full] ^= (uint8_t)(1 + inc_fg_rand(rng) % 255);
		memset(m_dec, 0, n * 4 + GUARD);
		memset(l_dec, 0, n * 4 + GUARD);
		a = inc_stream_decompress(l_out, (size_t)full, n, m_dec, n * 4);
		b = inc_codec_decompress(l_out, (size_t)full, n, (float *)(void *)l_dec, n * 4);
		CHECK(a == b, "%s n=%zu corrupt: %ld vs model %ld", inc_codec_name(), n, b, a);
		if (a >= 0 && a == b)
			CHECK(!memcmp(m_dec, l_dec, n * 4), "%s n=%zu corrupt: values differ",
			      inc_codec_name(), n);
	}
	/* Pure garbage of random length. */
	for (i = 0; i < 4; i++) {
		size_t gl = (size_t)(inc_fg_rand(rng) % (inc_stream_max_size(n) + 8));

		inc_fg_payload(l_out, gl, INC_FG_RANDOM_BITS, rng);
		a = inc_stream_decompress(l_out, gl, n, m_dec, n * 4);
		b = inc_codec_decompress(l_out, gl, n, (float *)(void *)l_dec, n * 4);
		CHECK(a == b, "%s n=%zu garbage: %ld vs model %ld", inc_codec_name(), n, b, a);
		if (a >= 0 && a == b)
			CHECK(!memcmp(m_dec, l_dec, n * 4), "%s garbage: values differ",
			      inc_codec_name());
	}
}

/* ---------------------------------------------------------------- parts */

/* Part split of the layout in inceptionn.h, written out here: per =
 * ceil(ceil(n/K)/8)*8 values per part in turn. */
static void ref_split(size_t n, unsigned k, unsigned i, size_t *start, size_t *nv)
{
	size_t per = ((n + k - 1) / k + 7) / 8 * 8;

	*start = (size_t)i * per < n ? (size_t)i * per : n;
	*nv = n - *start < per ? n - *start : per;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The container read by the layout, with the model's stream decoder. */
static long ref_decompress_parts(const uint8_t *in, size_t in_len, size_t n,
				 uint8_t *out, size_t out_cap)
{
	size_t pos, hdr, start, nv, len;
	unsigned k, i;
	long r;

	if (n > out_cap / 4)
		return INC_ENOSPC;
	if (in_len < 4)
		return INC_ETRUNC;
	k = in[0];
	if (k < 1 || k > 4 || in[1] || in[2] || in[3])
		return INC_EMALFORMED;
	hdr = 4 + 4 * (size_t)k;
	if (in_len < hdr)
		return INC_ETRUNC;
	for (i = 0, pos = hdr; i < k; i++) {
		len = le32(in + 4 + 4 * i);
		if (len > in_len - pos)
			return INC_ETRUNC;
		pos += len;
	}
	for (i = 0, pos = hdr; i < k; i++) {
		len = le32(in + 4 + 4 * i);
		ref_split(n, k, i, &start, &nv);
		r = inc_stream_decompress(in + pos, len, nv, out + 4 * start, 4 * nv);
		if (r < 0)
			return r;
		if ((size_t)r != len)
			return INC_EMALFORMED;
		pos += len;
	}
	return (long)pos;
}

static uint8_t *dup_exact(const uint8_t *p, size_t len)
{
	uint8_t *d = malloc(len ? len : 1);

	if (!d) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	memcpy(d, p, len);
	return d;
}

/* Decode c (len bytes, copied to an exact-size buffer) with the library and
 * the reference; same result code and, on success, same values. */
static long parts_same(const uint8_t *c, size_t len, size_t n, const char *what,
		       size_t k)
{
	uint8_t *in = dup_exact(c, len);
	uint8_t *out = malloc(n * 4 + 1);
	long a, b;

	memset(m_dec, 0, n * 4);
	memset(out, 0, n * 4);
	a = ref_decompress_parts(in, len, n, m_dec, n * 4);
	b = inc_codec_decompress_parts(in, len, n, (float *)(void *)out, n * 4);
	CHECK(a == b, "%s parts %s n=%zu K=%zu len=%zu: %ld vs reference %ld",
	      inc_codec_name(), what, n, k, len, b, a);
	if (a >= 0 && a == b)
		CHECK(!memcmp(m_dec, out, n * 4), "%s parts %s n=%zu K=%zu: values differ",
		      inc_codec_name(), what, n, k);
	free(in);
	free(out);
	return b;
}

/* Compress n values of in_b into K parts: every part equals the model's
 * stream of that part, the values decode to the single-stream round trip;
 * then (edges) capacities, truncations and corruptions. */
static void parts_check(size_t n, unsigned eb, unsigned k, int edges_too, uint64_t *rng)
{
	size_t cap = inc_codec_parts_max_size(n, k), hdr = 4 + 4 * (size_t)k;
	size_t pos, start, nv, i, step;
	uint8_t *c = malloc(cap + GUARD), *cc, *out;
	long r, m, d;
	unsigned j;

	memset(c, 0xa5, cap + GUARD);
	r = inc_codec_compress_parts((const float *)(void *)in_b, n, eb, k, c, cap);
	CHECK(r >= (long)hdr, "%s parts n=%zu K=%u eb=%u: compress %ld", inc_codec_name(),
	      n, k, eb, r);
	if (r < (long)hdr) {
		free(c);
		return;
	}
	CHECK(c[0] == k && !c[1] && !c[2] && !c[3], "%s parts n=%zu K=%u: header %02x %02x%02x%02x",
	      inc_codec_name(), n, k, c[0], c[1], c[2], c[3]);
	CHECK(c[cap] == 0xa5 && c[cap + GUARD - 1] == 0xa5,
	      "%s parts n=%zu K=%u: wrote past the capacity", inc_codec_name(), n, k);
	for (j = 0, pos = hdr; j < k; j++) {
		ref_split(n, k, j, &start, &nv);
		CHECK(inc_codec_part_start(n, k, j) == start && inc_codec_part_values(n, k, j) == nv,
		      "parts n=%zu K=%u part %u: split %zu+%zu vs %zu+%zu", n, k, j,
		      inc_codec_part_start(n, k, j), inc_codec_part_values(n, k, j), start, nv);
		CHECK(j + 1 == k || nv == 0 || nv % 8 == 0 || start + nv == n,
		      "parts n=%zu K=%u part %u: %zu values", n, k, j, nv);
		m = inc_stream_compress(in_b + 4 * start, nv, eb, m_out, inc_stream_max_size(nv), NULL);
		CHECK(m >= 0 && (uint32_t)m == le32(c + 4 + 4 * j) && pos + (size_t)m <= (size_t)r &&
		      !memcmp(c + pos, m_out, (size_t)m),
		      "%s parts n=%zu K=%u eb=%u part %u: not the model's stream (%ld vs %u)",
		      inc_codec_name(), n, k, eb, j, m, le32(c + 4 + 4 * j));
		pos += m > 0 ? (size_t)m : 0;
	}
	CHECK(pos == (size_t)r, "%s parts n=%zu K=%u: size %ld, parts end at %zu",
	      inc_codec_name(), n, k, r, pos);
	fused_check(n, eb, k, rng, "parts");

	/* Values: the single-stream round trip of all n, from exact buffers. */
	m = inc_stream_compress(in_b, n, eb, m_out, inc_stream_max_size(n), NULL);
	memset(l_dec, 0x5a, n * 4 + GUARD);
	CHECK(inc_stream_decompress(m_out, (size_t)m, n, l_dec, n * 4) == m, "model round trip");
	cc = dup_exact(c, (size_t)r);
	out = malloc(n * 4 + 1);
	d = inc_codec_decompress_parts(cc, (size_t)r, n, (float *)(void *)out, n * 4);
	CHECK(d == r, "%s parts n=%zu K=%u eb=%u: decompress %ld vs %ld", inc_codec_name(), n,
	      k, eb, d, r);
	CHECK(!memcmp(out, l_dec, n * 4), "%s parts n=%zu K=%u eb=%u: values differ from one stream",
	      inc_codec_name(), n, k, eb);
	free(cc);
	/* Bytes after the container are not read. */
	d = inc_codec_decompress_parts(c, cap + GUARD, n, (float *)(void *)out, n * 4);
	CHECK(d == r, "%s parts n=%zu K=%u: with trailing bytes %ld vs %ld", inc_codec_name(),
	      n, k, d, r);
	free(out);
	if (!edges_too) {
		free(c);
		return;
	}

	/* Capacities below the size: INC_ENOSPC, nothing outside the buffer
	 * (exact-size allocations). */
	step = (size_t)r < 200 ? 1 : (size_t)r / 41 + 1;
	for (i = 0; i < (size_t)r; i += step) {
		uint8_t *o = malloc(i ? i : 1);

		d = inc_codec_compress_parts((const float *)(void *)in_b, n, eb, k, o, i);
		CHECK(d == INC_ENOSPC, "%s parts n=%zu K=%u cap=%zu: %ld", inc_codec_name(), n,
		      k, i, d);
		free(o);
	}
	/* Truncations: INC_ETRUNC, as the layout says. */
	for (i = 0; i < (size_t)r; i += step)
		CHECK(parts_same(c, i, n, "trunc", k) == INC_ETRUNC, "%s parts n=%zu K=%u trunc %zu",
		      inc_codec_name(), n, k, i);
	/* Output one value too small. */
	if (n) {
		out = malloc(n * 4);
		d = inc_codec_decompress_parts(c, (size_t)r, n, (float *)(void *)out, n * 4 - 1);
		CHECK(d == INC_ENOSPC, "%s parts n=%zu K=%u small out: %ld", inc_codec_name(), n, k, d);
		free(out);
	}
	/* Header: part count 0, 5, 255 and reserved bytes. */
	{
		static const uint8_t bad_k[] = { 0, 5, 255 };

		cc = dup_exact(c, (size_t)r);
		for (i = 0; i < 3; i++) {
			cc[0] = bad_k[i];
			CHECK(parts_same(cc, (size_t)r, n, "count", k) == INC_EMALFORMED,
			      "%s parts K byte %u accepted", inc_codec_name(), bad_k[i]);
		}
		cc[0] = (uint8_t)k;
		for (i = 1; i < 4; i++) {
			cc[i] = 1;
			CHECK(parts_same(cc, (size_t)r, n, "reserved", k) == INC_EMALFORMED,
			      "%s parts reserved byte %zu accepted", inc_codec_name(), i);
			cc[i] = 0;
		}
		free(cc);
	}
	/* The last part one byte longer than its stream: INC_EMALFORMED. */
	cc = malloc((size_t)r + 1);
	memcpy(cc, c, (size_t)r);
	cc[r] = 0;
	j = c[4 + 4 * (k - 1)] + 1u;
	cc[4 + 4 * (k - 1)] = (uint8_t)j;
	if (j < 256)
		CHECK(parts_same(cc, (size_t)r + 1, n, "long part", k) == INC_EMALFORMED,
		      "%s parts n=%zu K=%u: a longer last part accepted", inc_codec_name(), n, k);
	free(cc);
	/* Length fields moved: same as the reference. */
	for (j = 0; j < k; j++) {
		static const int64_t dl[] = { -34, -2, -1, 1, 2, 34, 1 << 20 };

		for (i = 0; i < sizeof(dl) / sizeof(dl[0]); i++) {
			uint32_t len = le32(c + 4 + 4 * j) + (uint32_t)dl[i];

			cc = dup_exact(c, (size_t)r);
			cc[4 + 4 * j] = (uint8_t)len;
			cc[5 + 4 * j] = (uint8_t)(len >> 8);
			cc[6 + 4 * j] = (uint8_t)(len >> 16);
			cc[7 + 4 * j] = (uint8_t)(len >> 24);
			parts_same(cc, (size_t)r, n, "length", k);
			free(cc);
		}
	}
	/* Random corruption of one byte, anywhere; then random garbage. */
	for (i = 0; i < 12; i++) {
		cc = dup_exact(c, (size_t)r);
		cc[inc_fg_rand(rng) % (size_t)r] ^= (uint8_t)(1 + inc_fg_rand(rng) % 255);
		parts_same(cc, (size_t)r, n, "corrupt", k);
		free(cc);
	}
	for (i = 0; i < 4; i++) {
		size_t gl = (size_t)(inc_fg_rand(rng) % ((size_t)r + 8));

		cc = malloc(gl + 4);
		inc_fg_payload(cc, gl, INC_FG_RANDOM_BITS, rng);
		if (gl >= 4) {          /* a plausible header now and then */
			cc[0] = (uint8_t)(1 + i % 4);
			cc[1] = cc[2] = cc[3] = 0;
		}
		parts_same(cc, gl, n, "garbage", k);
		free(cc);
	}
	free(c);
}

static void run_parts(uint64_t *rng)
{
	static const size_t big[] = { 127, 128, 129, 1000, 4099, 16384, 65536 + 3, MAXN };
	size_t n, i;
	unsigned k, kind;

	for (k = 1; k <= INC_CODEC_PARTS_MAX; k++) {
		for (n = 0; n <= 100; n++) {
			fill(n, (unsigned)(n % (INC_FG_MIX_COUNT + 1)), rng);
			parts_check(n, ebs[n % (sizeof(ebs) / sizeof(ebs[0]))], k, n % 3 == 0, rng);
		}
		for (i = 0; i < sizeof(big) / sizeof(big[0]); i++)
			for (kind = 0; kind <= INC_FG_MIX_COUNT; kind++) {
				fill(big[i], kind, rng);
				parts_check(big[i], 10, k, kind == INC_FG_GRADIENT && i < 5, rng);
			}
	}
	/* Bad arguments. */
	CHECK(inc_codec_compress_parts((const float *)(void *)in_b, 8, 10, 0, l_out, 1000) ==
	      INC_EINVAL, "0 parts");
	CHECK(inc_codec_compress_parts((const float *)(void *)in_b, 8, 10, 5, l_out, 1000) ==
	      INC_EINVAL, "5 parts");
	CHECK(inc_codec_compress_parts(NULL, 8, 10, 2, l_out, 1000) == INC_EINVAL, "NULL in");
	CHECK(inc_codec_compress_parts((const float *)(void *)in_b, 8, 10, 2, NULL, 10) ==
	      INC_EINVAL, "NULL out");
	CHECK(inc_codec_compress_parts(NULL, 0, 10, 2, l_out, 12) == 12, "empty");
	CHECK(inc_codec_decompress_parts(l_out, 12, 0, NULL, 0) == 12, "empty decode");
	CHECK(inc_codec_decompress_parts(NULL, 12, 0, (float *)(void *)l_dec, 0) == INC_EINVAL,
	      "NULL in");
	CHECK(inc_codec_decompress_parts(l_out, 12, 1, NULL, 4) == INC_EINVAL, "NULL out");
}

/* Outputs of 8 MiB and more take the SIMD paths' non-temporal stores (32-
 * or 16-byte aligned output) or normal ones (otherwise): same values as
 * the model's single stream, for each alignment and K; gradient-like data
 * (the AVX-512 decoder's window walk) and random bits (its interleaved
 * walk of sparse parts); and the single stream of the same values. */
static void parts_large(uint64_t *rng)
{
	size_t n = (9u << 20) / 4 + 13, sz = n * 4, cap = inc_codec_parts_max_size(n, 4);
	uint8_t *src = malloc(sz), *ref = malloc(sz), *st = malloc(cap);
	uint8_t *dst = aligned_alloc(64, (sz + 64 + 63) / 64 * 64);
	static const size_t offs[] = { 0, 16, 4, 32 };
	static const enum inc_fg_mix kinds[] = { INC_FG_GRADIENT, INC_FG_RANDOM_BITS };
	unsigned k, o, kd;
	long m, r, d;

	for (kd = 0; kd < 2; kd++) {
		inc_fg_payload(src, sz, kinds[kd], rng);
		m = inc_stream_compress(src, n, 10, st, cap, NULL);
		CHECK(m > 0 && inc_stream_decompress(st, (size_t)m, n, ref, sz) == m, "large model");
		for (o = 0; o < 4; o++) {
			memset(dst, 0x5a, sz + 64);
			d = inc_codec_decompress(st, (size_t)m, n, (float *)(void *)(dst + offs[o]), sz);
			CHECK(d == m && !memcmp(dst + offs[o], ref, sz) && dst[offs[o] + sz] == 0x5a,
			      "%s large single kind %u off %zu: %ld vs %ld", inc_codec_name(), kd,
			      offs[o], d, m);
		}
		for (k = 2; k <= INC_CODEC_PARTS_MAX; k++) {
			r = inc_codec_compress_parts((const float *)(void *)src, n, 10, k, st, cap);
			for (o = 0; o < 4; o++) {
				memset(dst, 0x5a, sz + 64);
				d = inc_codec_decompress_parts(st, (size_t)r, n,
							       (float *)(void *)(dst + offs[o]), sz);
				CHECK(r > 0 && d == r, "%s large kind %u K=%u off %zu: %ld vs %ld",
				      inc_codec_name(), kd, k, offs[o], d, r);
				CHECK(!memcmp(dst + offs[o], ref, sz),
				      "%s large kind %u K=%u off %zu: values differ",
				      inc_codec_name(), kd, k, offs[o]);
				CHECK(dst[offs[o] + sz] == 0x5a && (offs[o] == 0 || dst[offs[o] - 1] == 0x5a),
				      "%s large kind %u K=%u off %zu: wrote outside", inc_codec_name(),
				      kd, k, offs[o]);
			}
		}
	}
	free(src);
	free(ref);
	free(st);
	free(dst);
}

static void run_impl(uint64_t *rng)
{
	size_t n, k, e;
	unsigned kind;
	static const size_t big[] = { 127, 128, 129, 1000, 4099, 16384, 65536 + 3, MAXN };

	for (e = 0; e < sizeof(ebs) / sizeof(ebs[0]); e++)
		for (kind = 0; kind <= INC_FG_MIX_COUNT; kind++)
			for (n = 0; n <= 70; n++) {
				fill(n, kind, rng);
				compare(n, ebs[e], "small");
			}
	for (k = 0; k < sizeof(big) / sizeof(big[0]); k++)
		for (kind = 0; kind <= INC_FG_MIX_COUNT; kind++) {
			fill(big[k], kind, rng);
			compare(big[k], 10, "big");
			compare(big[k], 3 + (unsigned)(inc_fg_rand(rng) % 120), "big-eb");
		}
	for (n = 0; n <= 70; n++) {
		fill(n, (unsigned)(n % (INC_FG_MIX_COUNT + 1)), rng);
		edges(n, 10, rng);
	}
	for (k = 0; k < 4; k++) {
		fill(big[k + 2], INC_FG_GRADIENT, rng);
		edges(big[k + 2], 10, rng);
	}
	/* NULL and bad arguments. */
	CHECK(inc_codec_compress(NULL, 1, 10, l_out, 100) ==
	      inc_stream_compress(NULL, 1, 10, l_out, 100, NULL), "NULL in");
	CHECK(inc_codec_compress((const float *)(void *)in_b, 1, 10, NULL, 10) == INC_EINVAL,
	      "NULL out");
	CHECK(inc_codec_compress(NULL, 0, 10, NULL, 0) == 0, "empty");
	CHECK(inc_codec_decompress(NULL, 5, 0, (float *)(void *)l_dec, 0) == INC_EINVAL, "NULL in");
	CHECK(inc_codec_decompress(m_out, 0, 0, NULL, 0) == 0, "empty decode");
	run_parts(rng);
	parts_large(rng);
}

/* Every exponent, sign and a few mantissas, per error bound: idempotence
 * of the round trip and the absolute error bound. */
static void properties(void)
{
	unsigned eb, e, s, k;
	static const uint32_t mant[] = { 0, 1, 0x100, 0xffff, 0x10000, 0x3fffff,
					 0x400000, 0x7fff00, 0x7fffff };

	for (eb = 1; eb <= 126; eb++) {
		double bound = inc_codec_abs_bound(eb), worst = 0;
		unsigned fails = 0, idem = 0;

		for (e = 0; e < 255; e++)
			for (s = 0; s < 2; s++)
				for (k = 0; k < sizeof(mant) / sizeof(mant[0]); k++) {
					uint32_t f = s << 31 | e << 23 | mant[k], p, q, p2, q2;
					unsigned t = inc_compress_value(f, eb, &p), t2;
					float x, y;
					double err;

					q = inc_decompress_value(t, p);
					t2 = inc_compress_value(q, eb, &p2);
					q2 = inc_decompress_value(t2, p2);
					if (q2 != q)
						idem++;
					memcpy(&x, &f, 4);
					memcpy(&y, &q, 4);
					err = fabs((double)x - (double)y);
					if (err > worst)
						worst = err;
					if (!(err < bound))
						fails++;
				}
		CHECK(idem == 0, "eb=%u: round trip not idempotent (%u values)", eb, idem);
		CHECK(fails == 0, "eb=%u: %u values exceed the bound %g", eb, fails, bound);
		/* The bound is tight to within 2x: the sweep gets close to it. */
		CHECK(worst > bound / 2, "eb=%u: worst %g far below bound %g", eb, worst, bound);
	}
}

int main(void)
{
	uint64_t rng = 0x1234567887654321ull;

	CHECK(inc_codec_select(INC_CODEC_PORTABLE) == 0, "select portable");
	run_impl(&rng);
	if (__builtin_cpu_supports("avx2")) {
		CHECK(inc_codec_select(INC_CODEC_AVX2) == 0, "select avx2");
		CHECK(!strcmp(inc_codec_name(), "avx2"), "name %s", inc_codec_name());
		run_impl(&rng);
	} else {
		CHECK(inc_codec_select(INC_CODEC_AVX2) == INC_E_NOSUPPORT, "no avx2");
		printf("note: CPU without AVX2, only the portable path was tested\n");
	}
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	    __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
	    __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi2")) {
		CHECK(inc_codec_select(INC_CODEC_AVX512) == 0, "select avx512");
		CHECK(!strcmp(inc_codec_name(), "avx512"), "name %s", inc_codec_name());
		run_impl(&rng);
	} else {
		CHECK(inc_codec_select(INC_CODEC_AVX512) == INC_E_NOSUPPORT, "no avx512");
		printf("note: CPU without AVX-512 VBMI2, the AVX-512 decoder was not tested\n");
	}
	CHECK(inc_codec_select(INC_CODEC_AUTO) == 0, "auto");
	properties();
	CHECK(!strcmp(inc_strerror(INC_E_TIMEOUT), "a peer stalled: no progress within the timeout"),
	      "strerror library");
	CHECK(!strcmp(inc_strerror(INC_ETRUNC), inc_model_strerror(INC_ETRUNC)), "strerror model");
	CHECK(!strcmp(inc_strerror(-5), "unknown error"), "strerror unknown");
	return inc_test_done();
}
