// SPDX-License-Identifier: MIT
/*
 * test_cnat.c - natural compression (inc_cnat_encode/decode):
 *   - every float32 exponent and sign, boundary and sampled mantissas:
 *     the deterministic map against a double-precision reference of the
 *     documented rule (nearest power of two, ties up; 2^-50 from 2^-51 up;
 *     saturation at 2^10; Inf, NaN, zeros, denormals), and the stochastic
 *     map always one of the two neighbours, powers of two fixed points;
 *   - decode of all 256 bytes (61..63 without the zero flag refused);
 *   - AVX2 == portable byte for byte (encode both modes, odd sizes, special
 *     values, several keys; decode of random bytes);
 *   - unbiasedness: the mean of 400000 stochastic encodings of x (one
 *     draw per index) within 5 standard errors of x, for values in the
 *     range, near its ends and below it. With 5 SE a correct codec fails a
 *     check with probability 5.7e-7 (two-sided normal tail); 14 checks.
 * Last line "N passed, N failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc_test.h"
#include "inceptionn/inceptionn.h"

static float from_bits(uint32_t b)
{
	float f;

	memcpy(&f, &b, 4);
	return f;
}

static uint32_t to_bits(float f)
{
	uint32_t b;

	memcpy(&b, &f, 4);
	return b;
}

/* The documented deterministic rule in double precision. */
static float det_ref(float x)
{
	double a = fabs((double)x), lo, r;
	int e;

	if (isnan(x))
		return 0.0f;
	if (a == 0)
		return x;
	if (a >= ldexp(1, INC_CNAT_EMAX))
		r = ldexp(1, INC_CNAT_EMAX);
	else if (a < ldexp(1, INC_CNAT_EMIN))
		r = a >= ldexp(1, INC_CNAT_EMIN - 1) ? ldexp(1, INC_CNAT_EMIN) : 0;
	else {
		(void)frexp(a, &e);            /* a = f * 2^e, f in [0.5, 1) */
		lo = ldexp(1, e - 1);
		r = a >= 1.5 * lo ? 2 * lo : lo;
	}
	return (float)(signbit(x) ? -r : r);
}

/* The two powers of two a stochastic encoding of a (> 0, in or below
 * the range) may give. */
static void neighbours(double a, double *lo, double *hi)
{
	int e;

	if (a < ldexp(1, INC_CNAT_EMIN)) {
		*lo = 0;
		*hi = ldexp(1, INC_CNAT_EMIN);
		return;
	}
	(void)frexp(a, &e);
	*lo = ldexp(1, e - 1);
	*hi = 2 * *lo;
}

static float round_trip(float x, int stoch, uint64_t key)
{
	uint8_t b;
	float y;

	inc_cnat_encode(&x, 1, &b, stoch, key);
	if (inc_cnat_decode(&b, 1, &y))
		return NAN;
	return y;
}

static void test_map(void)
{
	static const uint32_t ms[] = { 0, 1, 2, 0x3fffff, 0x400000, 0x400001, 0x7ffffe, 0x7fffff,
				       0x123456, 0x654321 };
	unsigned E, s, k, bad_det = 0, bad_sto = 0, bad_fix = 0;
	uint64_t key = 1;

	for (E = 0; E < 256; E++)
		for (s = 0; s < 2; s++)
			for (k = 0; k < sizeof(ms) / sizeof(ms[0]); k++) {
				float x = from_bits(s << 31 | E << 23 | ms[k]), y, want = det_ref(x);
				double a = fabs((double)x), lo, hi;

				y = round_trip(x, 0, 0);
				if (to_bits(y) != to_bits(want)) {
					if (bad_det++ < 5)
						fprintf(stderr, "det: x %a -> %a, want %a\n", (double)x,
							(double)y, (double)want);
				}
				y = round_trip(x, 1, key++);
				if (isnan(x) || isinf(x) || a >= ldexp(1, INC_CNAT_EMAX) || a == 0) {
					bad_sto += to_bits(y) != to_bits(want);
					continue;
				}
				neighbours(a, &lo, &hi);
				if (!(fabs((double)y) == lo || fabs((double)y) == hi) ||
				    (y != 0 && signbit(y) != signbit(x)))
					if (bad_sto++ < 5)
						fprintf(stderr, "sto: x %a -> %a, not %a or %a\n", (double)x,
							(double)y, lo, hi);
				if (ms[k] == 0 && E > 0 && a >= ldexp(1, INC_CNAT_EMIN))
					bad_fix += to_bits(y) != to_bits(x);
			}
	CHECK(bad_det == 0, "deterministic map: %u of 5120 differ from the reference", bad_det);
	CHECK(bad_sto == 0, "stochastic map: %u of 5120 not a neighbouring power of two", bad_sto);
	CHECK(bad_fix == 0, "powers of two in range: %u not fixed points", bad_fix);
	printf("map: every exponent and sign x 10 mantissas, both modes\n");
}

static void test_decode_bytes(void)
{
	unsigned b, bad = 0;

	for (b = 0; b < 256; b++) {
		uint8_t c = (uint8_t)b;
		float y;
		int rc = inc_cnat_decode(&c, 1, &y);

		if (b & 0x40)
			bad += rc != 0 || y != 0 || (signbit(y) != 0) != ((b & 0x80) != 0);
		else if ((b & 0x3f) > INC_CNAT_EMAX - INC_CNAT_EMIN)
			bad += rc != INC_E_PROTOCOL;
		else
			bad += rc != 0 || fabs((double)y) != ldexp(1, (int)(b & 0x3f) + INC_CNAT_EMIN) ||
			       (signbit(y) != 0) != ((b & 0x80) != 0);
	}
	CHECK(bad == 0, "decode of the 256 byte values: %u wrong", bad);
}

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint32_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 2685821657736338717ull) >> 32);
}

static void test_avx2(void)
{
	static const size_t sizes[] = { 1, 7, 8, 9, 31, 1000, 4099 };
	size_t k, i, n;
	unsigned diff = 0, ddiff = 0, mode;

	if (inc_codec_select(INC_CODEC_AVX2) != 0) {
		printf("avx2: not on this CPU, skipped\n");
		return;
	}
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		for (mode = 0; mode < 2; mode++) {
			float *x, *ya, *yp;
			uint8_t *a, *p;
			uint64_t key = (uint64_t)rnd() << 32 | rnd();

			n = sizes[k];
			x = malloc(n * 4);
			ya = malloc(n * 4);
			yp = malloc(n * 4);
			a = malloc(n);
			p = malloc(n);
			for (i = 0; i < n; i++) {
				uint32_t r = rnd();

				switch (r % 8) {
				case 0: x[i] = from_bits(rnd()); break;           /* anything, NaN too */
				case 1: x[i] = from_bits(rnd() & 0x807fffffu); break; /* denormal/zero */
				case 2: x[i] = (r & 8 ? -1.0f : 1.0f) * ldexpf(1.0f, (int)(rnd() % 140) - 70); break;
				default: x[i] = ((float)rnd() / 4294967296.0f - 0.5f) *
						ldexpf(1.0f, (int)(rnd() % 80) - 60);
				}
			}
			inc_codec_select(INC_CODEC_AVX2);
			inc_cnat_encode(x, n, a, (int)mode, key);
			inc_codec_select(INC_CODEC_PORTABLE);
			inc_cnat_encode(x, n, p, (int)mode, key);
			diff += memcmp(a, p, n) != 0;
			for (i = 0; i < n; i++)
				a[i] = (uint8_t)rnd();
			inc_codec_select(INC_CODEC_AVX2);
			{
				int ra = inc_cnat_decode(a, n, ya);

				inc_codec_select(INC_CODEC_PORTABLE);
				ddiff += ra != inc_cnat_decode(a, n, yp);
			}
			/* valid bytes only for the value comparison */
			for (i = 0; i < n; i++)
				if (!(a[i] & 0x40) && (a[i] & 0x3f) > 60)
					a[i] &= 0xc0;
			inc_codec_select(INC_CODEC_AVX2);
			(void)inc_cnat_decode(a, n, ya);
			inc_codec_select(INC_CODEC_PORTABLE);
			(void)inc_cnat_decode(a, n, yp);
			ddiff += memcmp(ya, yp, n * 4) != 0;
			free(x);
			free(ya);
			free(yp);
			free(a);
			free(p);
		}
	inc_codec_select(INC_CODEC_AUTO);
	CHECK(diff == 0, "AVX2 encode differs from portable in %u of 14 cases", diff);
	CHECK(ddiff == 0, "AVX2 decode differs from portable in %u cases", ddiff);
	printf("avx2: encode (both modes) and decode byte-identical to portable, 7 sizes\n");
}

static void test_unbiased(void)
{
	static const float xs[] = { 0.3f, -1.7e-3f, 5.5f, -1000.0f, 1.2e-15f, -3.3e-16f, 7.0e-16f };
	enum { N = 400000 };
	float *x = malloc(N * 4), *y = malloc(N * 4);
	uint8_t *b = malloc(N);
	size_t k, i;

	for (k = 0; k < sizeof(xs) / sizeof(xs[0]); k++) {
		double v = xs[k], a = fabs(v), lo, hi, mean = 0, se;
		int impl;

		neighbours(a, &lo, &hi);
		se = sqrt((hi - a) * (a - lo) / N);
		for (impl = 0; impl < 2; impl++) {
			inc_codec_select(impl ? INC_CODEC_PORTABLE : INC_CODEC_AUTO);
			for (i = 0; i < N; i++)
				x[i] = xs[k];
			inc_cnat_encode(x, N, b, 1, 0x5eed0000u + k);
			CHECK(inc_cnat_decode(b, N, y) == 0, "decode");
			for (i = 0, mean = 0; i < N; i++)
				mean += y[i];
			mean /= N;
			CHECK(fabs(mean - v) <= 5 * se, "E[C(%g)] = %.9g, %.1f standard errors off (se %g)",
			      v, mean, fabs(mean - v) / se, se);
		}
		printf("unbiased: x %-10g mean of %d draws %.9g (%.2f se)\n", v, N, mean,
		       fabs(mean - v) / se);
	}
	inc_codec_select(INC_CODEC_AUTO);
	/* The check has power: the deterministic map (0.3 -> 0.25) is 5 se off
	 * by a wide margin. */
	{
		double mean = 0, se = sqrt((0.5 - 0.3) * (0.3 - 0.25) / N);

		for (i = 0; i < N; i++)
			x[i] = 0.3f;
		inc_cnat_encode(x, N, b, 0, 0);
		CHECK(inc_cnat_decode(b, N, y) == 0, "decode");
		for (i = 0; i < N; i++)
			mean += y[i];
		mean /= N;
		CHECK(fabs(mean - 0.3) > 5 * se, "negative control: the deterministic map passes as unbiased");
	}
	/* Different keys, different draws; the same key, the same bytes. */
	{
		uint8_t b2[1000];

		for (i = 0; i < 1000; i++)
			x[i] = 0.3f;
		inc_cnat_encode(x, 1000, b, 1, 1);
		inc_cnat_encode(x, 1000, b2, 1, 2);
		CHECK(memcmp(b, b2, 1000) != 0, "keys 1 and 2 give the same draws");
		inc_cnat_encode(x, 1000, b2, 1, 1);
		CHECK(memcmp(b, b2, 1000) == 0, "the same key gives other bytes");
	}
	free(x);
	free(y);
	free(b);
}

int main(void)
{
	test_map();
	test_decode_bytes();
	test_avx2();
	test_unbiased();
	return inc_test_done();
}
