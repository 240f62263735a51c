// SPDX-License-Identifier: MIT
/*
 * codec_cnat.c - natural compression C_nat (the IntML paper): every value
 * becomes one byte, a sign and a power of two, docs/userlib.md "C_nat".
 *
 *   bit 7: sign   bit 6: zero flag   bits 5..0: exponent e + 50, e in [-50, 10]
 *
 * Stochastic (unbiased) rounding: x = s * 2^e * (1 + m / 2^23) goes to
 * 2^(e+1) with probability m / 2^23, else to 2^e, so E[C(x)] = x; the
 * draw for value i is the top 23 bits of a counter-based hash of (key, i),
 * so a result depends only on the key and the data (the 64-bit key is
 * folded into a 32-bit one per call; the draw is the murmur3 finalizer of
 * index * golden ratio ^ key). Below the range
 * (|x| < 2^-50, denormals included) x goes to 2^-50 with probability
 * |x| / 2^-50, else to zero: still unbiased. Deterministic variant: the
 * nearest power of two (ties, 1.5 * 2^e, up); below the range 2^-50 from
 * 2^-51 up, else zero. Both: |x| >= 2^10 saturates to 2^10 (biased), +-Inf
 * to +-2^10, NaN to +0; zero keeps its sign. A scalar reference and an
 * AVX2 version, byte-identical (tested), chosen like the INCEPTIONN codec
 * (inc_codec_select).
 */
#include <immintrin.h>
#include <string.h>

#include "inc_internal.h"

#define EMIN   INC_CNAT_EMIN
#define EMAX   INC_CNAT_EMAX
#define ZFLAG  0x40u

/* Counter-based generator: the murmur3 finalizer. */
static inline uint32_t fmix(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	return h ^ (h >> 16);
}

/* The 64-bit key folded once per call into the 32-bit key of the draws. */
static inline uint32_t fold(uint64_t key)
{
	return fmix((uint32_t)key ^ fmix((uint32_t)(key >> 32) + 0x85ebca6bu));
}

static inline uint32_t draw(uint32_t k, uint32_t i)
{
	return fmix(i * 0x9e3779b1u ^ k) >> 9;   /* 23 bits */
}

static inline uint8_t encode1(uint32_t bits, uint32_t r, int stoch)
{
	uint32_t sign = bits >> 31 << 7, a = bits & 0x7fffffffu;
	uint32_t E = a >> 23, m = a & 0x7fffffu, t;
	int e = (int)E - 127, up;

	if (a > 0x7f800000u)                 /* NaN */
		return (uint8_t)ZFLAG;
	if (a == 0)
		return (uint8_t)(sign | ZFLAG);
	if (e >= EMAX)                       /* incl. Inf: saturate */
		return (uint8_t)(sign | (EMAX - EMIN));
	if (e >= EMIN) {
		up = stoch ? r < m : m >= 0x400000u;
		return (uint8_t)(sign | (uint32_t)(e + up - EMIN));
	}
	/* below the range: 2^-50 or zero */
	if (stoch) {
		t = E == 0 || EMIN - e > 31 ? 0 : (0x800000u | m) >> (EMIN - e);
		up = r < t;
	} else {
		up = e == EMIN - 1;
	}
	return (uint8_t)(up ? sign : sign | ZFLAG);
}

void inc_cnat_encode_portable(const float *in, size_t n, uint8_t *out, int stoch,
			      uint64_t key)
{
	uint32_t k = fold(key), bits;
	size_t i;

	for (i = 0; i < n; i++) {
		memcpy(&bits, &in[i], 4);
		out[i] = encode1(bits, stoch ? draw(k, (uint32_t)i) : 0, stoch);
	}
}

static inline int decode1(uint8_t b, float *out)
{
	uint32_t bits = (uint32_t)(b >> 7) << 31;
	int e = (int)(b & 0x3fu) + EMIN;

	if (!(b & ZFLAG)) {
		if (e > EMAX)
			return -1;
		bits |= (uint32_t)(e + 127) << 23;
	}
	memcpy(out, &bits, 4);
	return 0;
}

int inc_cnat_decode_portable(const uint8_t *in, size_t n, float *out)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < n; i++)
		bad |= decode1(in[i], &out[i]);
	return bad ? INC_E_PROTOCOL : 0;
}

/* ---- AVX2 ---------------------------------------------------------------- */
__attribute__((target("avx2")))
static inline __m256i fmix8(__m256i h)
{
	h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
	h = _mm256_mullo_epi32(h, _mm256_set1_epi32((int)0x85ebca6bu));
	h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 13));
	h = _mm256_mullo_epi32(h, _mm256_set1_epi32((int)0xc2b2ae35u));
	return _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
}

/* Unsigned a < b for lanes below 2^31 (all compared values are). */
#define LT(a, b) _mm256_cmpgt_epi32((b), (a))

__attribute__((target("avx2")))
static void encode8(const float *in, uint32_t i0, uint8_t *out, int stoch, __m256i k)
{
	__m256i bits = _mm256_loadu_si256((const __m256i *)(const void *)in);
	__m256i sign = _mm256_slli_epi32(_mm256_srli_epi32(bits, 31), 7);
	__m256i a = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
	__m256i E = _mm256_srli_epi32(a, 23);
	__m256i m = _mm256_and_si256(a, _mm256_set1_epi32(0x7fffff));
	__m256i e = _mm256_sub_epi32(E, _mm256_set1_epi32(127));
	__m256i r = _mm256_setzero_si256(), up, code, t, sh, below;
	__m256i zero_code = _mm256_or_si256(sign, _mm256_set1_epi32(ZFLAG));
	__m256i idx = _mm256_add_epi32(_mm256_set1_epi32((int)i0),
				       _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
	uint32_t lo, hi;

	if (stoch) {
		r = _mm256_xor_si256(_mm256_mullo_epi32(idx, _mm256_set1_epi32((int)0x9e3779b1u)), k);
		r = _mm256_srli_epi32(fmix8(r), 9);
		up = LT(r, m);
	} else {
		up = _mm256_cmpgt_epi32(m, _mm256_set1_epi32(0x3fffff));
	}
	/* in range: sign | (e + up - EMIN); up is -1/0 */
	code = _mm256_or_si256(sign, _mm256_sub_epi32(_mm256_sub_epi32(e, up),
						      _mm256_set1_epi32(EMIN)));
	/* below the range */
	if (stoch) {
		sh = _mm256_sub_epi32(_mm256_set1_epi32(EMIN), e);    /* >= 1 there */
		t = _mm256_srlv_epi32(_mm256_or_si256(m, _mm256_set1_epi32(0x800000)), sh);
		t = _mm256_andnot_si256(_mm256_cmpeq_epi32(E, _mm256_setzero_si256()), t);
		below = _mm256_blendv_epi8(zero_code, sign, LT(r, t));
	} else {
		below = _mm256_blendv_epi8(zero_code, sign,
					   _mm256_cmpeq_epi32(e, _mm256_set1_epi32(EMIN - 1)));
	}
	code = _mm256_blendv_epi8(below, code,
				  _mm256_cmpgt_epi32(e, _mm256_set1_epi32(EMIN - 1)));
	code = _mm256_blendv_epi8(code, _mm256_or_si256(sign, _mm256_set1_epi32(EMAX - EMIN)),
				  _mm256_cmpgt_epi32(e, _mm256_set1_epi32(EMAX - 1)));
	code = _mm256_blendv_epi8(code, zero_code, _mm256_cmpeq_epi32(a, _mm256_setzero_si256()));
	code = _mm256_blendv_epi8(code, _mm256_set1_epi32(ZFLAG),
				  _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7f800000)));
	/* eight codes (0..255 in 32-bit lanes) to eight bytes */
	code = _mm256_packus_epi32(code, code);
	code = _mm256_packus_epi16(code, code);
	lo = (uint32_t)_mm256_extract_epi32(code, 0);
	hi = (uint32_t)_mm256_extract_epi32(code, 4);
	memcpy(out, &lo, 4);
	memcpy(out + 4, &hi, 4);
}

__attribute__((target("avx2")))
void inc_cnat_encode_avx2(const float *in, size_t n, uint8_t *out, int stoch, uint64_t key)
{
	uint32_t k32 = fold(key);
	__m256i k = _mm256_set1_epi32((int)k32);
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		encode8(in + i, (uint32_t)i, out + i, stoch, k);
	for (; i < n; i++) {
		uint32_t bits;

		memcpy(&bits, &in[i], 4);
		out[i] = encode1(bits, stoch ? draw(k32, (uint32_t)i) : 0, stoch);
	}
}

__attribute__((target("avx2")))
int inc_cnat_decode_avx2(const uint8_t *in, size_t n, float *out)
{
	__m256i bad = _mm256_setzero_si256();
	size_t i = 0;
	int rc = 0;

	for (; i + 8 <= n; i += 8) {
		__m128i b8 = _mm_loadl_epi64((const __m128i *)(const void *)(in + i));
		__m256i b = _mm256_cvtepu8_epi32(b8);
		__m256i sign = _mm256_slli_epi32(_mm256_srli_epi32(b, 7), 31);
		__m256i ex = _mm256_and_si256(b, _mm256_set1_epi32(0x3f));
		__m256i z = _mm256_cmpeq_epi32(_mm256_and_si256(b, _mm256_set1_epi32(ZFLAG)),
					       _mm256_setzero_si256());
		__m256i v = _mm256_slli_epi32(_mm256_add_epi32(ex, _mm256_set1_epi32(127 + EMIN)), 23);

		bad = _mm256_or_si256(bad, _mm256_and_si256(z, _mm256_cmpgt_epi32(
			ex, _mm256_set1_epi32(EMAX - EMIN))));
		v = _mm256_or_si256(sign, _mm256_and_si256(z, v));
		_mm256_storeu_si256((__m256i *)(void *)(out + i), v);
	}
	for (; i < n; i++)
		rc |= decode1(in[i], &out[i]);
	return rc || !_mm256_testz_si256(bad, bad) ? INC_E_PROTOCOL : 0;
}

void inc_cnat_encode(const float *in, size_t n, uint8_t *out, int stochastic, uint64_t key)
{
	if (inc_codec_is_avx2())
		inc_cnat_encode_avx2(in, n, out, stochastic, key);
	else
		inc_cnat_encode_portable(in, n, out, stochastic, key);
}

int inc_cnat_decode(const uint8_t *in, size_t n, float *out)
{
	return inc_codec_is_avx2() ? inc_cnat_decode_avx2(in, n, out)
				   : inc_cnat_decode_portable(in, n, out);
}
