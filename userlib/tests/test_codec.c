// SPDX-License-Identifier: MIT
/*
 * test_codec.c - the library's stream codec (AVX2 and portable paths)
 * against the reference model, byte for byte and return code for return
 * code: random and gradient-like data from inc_framegen, an exhaustive
 * sweep of exponents (every tag class, zeros, subnormals, Inf, NaN), every
 * count 0..70 and longer tails, every error bound, capacities around the
 * exact size, truncated and corrupted streams. Also checks the properties
 * the all-reduce relies on: the round trip is idempotent and its error
 * stays below inc_codec_abs_bound(eb).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inc_framegen.h"
#include "inc_model.h"
#include "inc_test.h"
#include "inceptionn/inceptionn.h"

#define MAXN   (70000u)
#define GUARD  64u

static uint8_t in_b[MAXN * 4 + GUARD];
static uint8_t m_out[MAXN * 5 + GUARD], l_out[MAXN * 5 + GUARD];
static uint8_t m_dec[MAXN * 4 + GUARD], l_dec[MAXN * 4 + GUARD];

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
	CHECK(inc_codec_select(INC_CODEC_AUTO) == 0, "auto");
	properties();
	CHECK(!strcmp(inc_strerror(INC_E_TIMEOUT), "a peer stalled: no progress within the timeout"),
	      "strerror library");
	CHECK(!strcmp(inc_strerror(INC_ETRUNC), inc_model_strerror(INC_ETRUNC)), "strerror model");
	CHECK(!strcmp(inc_strerror(-5), "unknown error"), "strerror unknown");
	return inc_test_done();
}
