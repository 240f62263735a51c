// SPDX-License-Identifier: MIT
/*
 * codec_avx2.c - AVX2 stream codec, byte-identical to the model's
 * inc_stream_compress/inc_stream_decompress (sw-model/src/codec.c).
 *
 * One 8-value group is one 256-bit vector. Compression computes the eight
 * tags and payloads with the same integer steps as inc_compress_value, then
 * packs the 0/1/2/4 payload bytes of lanes 0-3 and 4-7 with one pshufb per
 * 128-bit half, using a 256-entry table indexed by that half's 8 tag bits.
 * Decompression does the reverse expansion; the exponent of an 8/16-bit
 * value is found by converting the payload field to float (exact below
 * 2^24), which is the vector form of the model's count-leading-zeros.
 *
 * The fast paths need 34 bytes of room (output when compressing, input
 * when decompressing); otherwise, and for a partial last group, the model's
 * own group functions run, so bounds and error codes are the model's.
 */
#include <immintrin.h>
#include <pthread.h>
#include <string.h>

#include "inc_internal.h"

struct shuf {
	uint8_t mask[16];
};

static struct shuf enc_tbl[256], dec_tbl[256];
static uint8_t half_len[256];
static uint16_t spread[256];
static pthread_once_t tbl_once = PTHREAD_ONCE_INIT;

static void tbl_init(void)
{
	unsigned t, i, b, nb, pos;

	for (t = 0; t < 256; t++) {
		memset(enc_tbl[t].mask, 0x80, 16);
		memset(dec_tbl[t].mask, 0x80, 16);
		pos = 0;
		for (i = 0; i < 4; i++) {
			nb = inc_tag_bytes(t >> (2 * i));
			for (b = 0; b < nb; b++) {
				enc_tbl[t].mask[pos + b] = (uint8_t)(4 * i + b);
				dec_tbl[t].mask[4 * i + b] = (uint8_t)(pos + b);
			}
			pos += nb;
		}
		half_len[t] = (uint8_t)pos;
		spread[t] = 0;
		for (i = 0; i < 8; i++)
			spread[t] |= (uint16_t)(((t >> i) & 1u) << (2 * i));
	}
}

static inline unsigned clamp_eb(unsigned eb)
{
	if (eb < INC_EB_MIN)
		return INC_EB_MIN;
	return eb > INC_EB_MAX ? INC_EB_MAX : eb;
}

struct enc_consts {
	__m256i ff, c126, ebase_m1, thr16_m1, c127, mant, implicit;
	__m256i m7fff, m7f, one, two, three;
};

__attribute__((target("avx2")))
static inline unsigned group_encode(const uint8_t *in, uint8_t *out,
				    const struct enc_consts *c)
{
	__m256i f = _mm256_loadu_si256((const __m256i *)in);
	__m256i e = _mm256_and_si256(_mm256_srli_epi32(f, 23), c->ff);
	__m256i raw = _mm256_cmpgt_epi32(e, c->c126);          /* e >= 127 */
	__m256i below = _mm256_cmpgt_epi32(c->ebase_m1, e);    /* e < ebase */
	__m256i n = _mm256_sub_epi32(c->c127, e);
	__m256i m = _mm256_or_si256(_mm256_and_si256(f, c->mant), c->implicit);
	__m256i x = _mm256_srlv_epi32(m, n);                   /* count >= 32 -> 0 */
	__m256i is16 = _mm256_cmpgt_epi32(e, c->thr16_m1);
	__m256i f16 = _mm256_and_si256(_mm256_srli_epi32(x, 8), c->m7fff);
	__m256i f8 = _mm256_and_si256(_mm256_srli_epi32(x, 16), c->m7f);
	__m256i field = _mm256_blendv_epi8(f8, f16, is16);
	__m256i s = _mm256_srli_epi32(f, 31);
	__m256i sgn = _mm256_blendv_epi8(_mm256_slli_epi32(s, 7),
					 _mm256_slli_epi32(s, 15), is16);
	__m256i zero = _mm256_or_si256(below,
			_mm256_cmpeq_epi32(field, _mm256_setzero_si256()));
	__m256i tag = _mm256_andnot_si256(zero,
			_mm256_blendv_epi8(c->one, c->two, is16));
	__m256i pay = _mm256_andnot_si256(zero, _mm256_or_si256(field, sgn));
	__m256i mask, comp;
	unsigned b0, b1, tw, lo, hi, ll;

	tag = _mm256_blendv_epi8(tag, c->three, raw);
	pay = _mm256_blendv_epi8(pay, f, raw);
	b0 = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32(tag, 31)));
	b1 = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32(tag, 30)));
	tw = (unsigned)spread[b0] | (unsigned)spread[b1] << 1;
	lo = tw & 0xffu;
	hi = tw >> 8;
	mask = _mm256_inserti128_si256(
		_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)enc_tbl[lo].mask)),
		_mm_loadu_si128((const __m128i *)enc_tbl[hi].mask), 1);
	comp = _mm256_shuffle_epi8(pay, mask);
	ll = half_len[lo];
	out[0] = (uint8_t)tw;
	out[1] = (uint8_t)(tw >> 8);
	_mm_storeu_si128((__m128i *)(out + 2), _mm256_castsi256_si128(comp));
	_mm_storeu_si128((__m128i *)(out + 2 + ll), _mm256_extracti128_si256(comp, 1));
	return 2u + ll + half_len[hi];
}

__attribute__((target("avx2")))
long inc_avx2_compress(const float *inf, size_t n_values, unsigned eb,
		       void *outv, size_t out_cap)
{
	const uint8_t *in = (const uint8_t *)inf;
	uint8_t *out = outv;
	uint8_t grp[INC_GROUP_MAX_BYTES];
	struct enc_consts c;
	size_t pos = 0, i;
	unsigned nv, size, ebase;

	if ((!in && n_values) || (!out && out_cap))
		return INC_EINVAL;
	pthread_once(&tbl_once, tbl_init);
	eb = clamp_eb(eb);
	ebase = 127u - eb;
	c.ff = _mm256_set1_epi32(0xff);
	c.c126 = _mm256_set1_epi32(126);
	c.ebase_m1 = _mm256_set1_epi32((int)ebase);   /* below: ebase > e */
	c.thr16_m1 = _mm256_set1_epi32((int)(ebase + (eb + 1u) / 2u) - 1);
	c.c127 = _mm256_set1_epi32(127);
	c.mant = _mm256_set1_epi32(0x7fffff);
	c.implicit = _mm256_set1_epi32(0x800000);
	c.m7fff = _mm256_set1_epi32(0x7fff);
	c.m7f = _mm256_set1_epi32(0x7f);
	c.one = _mm256_set1_epi32(1);
	c.two = _mm256_set1_epi32(2);
	c.three = _mm256_set1_epi32(3);

	for (i = 0; i < n_values; i += INC_GROUP_VALUES) {
		nv = n_values - i < INC_GROUP_VALUES ? (unsigned)(n_values - i)
						     : INC_GROUP_VALUES;
		if (out_cap - pos >= INC_GROUP_MAX_BYTES) {
			if (nv == INC_GROUP_VALUES)
				pos += group_encode(in + 4 * i, out + pos, &c);
			else
				pos += inc_group_encode(in + 4 * i, nv, eb,
							out + pos, NULL);
			continue;
		}
		size = inc_group_encode(in + 4 * i, nv, eb, grp, NULL);
		if (size > out_cap - pos)
			return INC_ENOSPC;
		memcpy(out + pos, grp, size);
		pos += size;
	}
	return (long)pos;
}

__attribute__((target("avx2")))
long inc_avx2_decompress(const void *inv, size_t in_len, size_t n_values,
			 float *outf, size_t out_cap)
{
	const uint8_t *in = inv;
	uint8_t *out = (uint8_t *)outf;
	const __m256i shifts = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
	const __m256i three = _mm256_set1_epi32(3);
	const __m256i two = _mm256_set1_epi32(2);
	const __m256i one = _mm256_set1_epi32(1);
	const __m256i k7 = _mm256_set1_epi32(7), k15 = _mm256_set1_epi32(15);
	const __m256i zero = _mm256_setzero_si256();
	size_t pos = 0, i;
	unsigned nv;
	long r;

	if ((!in && in_len) || (!out && n_values))
		return INC_EINVAL;
	if (n_values > out_cap / 4)
		return INC_ENOSPC;
	pthread_once(&tbl_once, tbl_init);
	for (i = 0; i < n_values; i += INC_GROUP_VALUES) {
		nv = n_values - i < INC_GROUP_VALUES ? (unsigned)(n_values - i)
						     : INC_GROUP_VALUES;
		if (nv == INC_GROUP_VALUES && in_len - pos >= INC_GROUP_MAX_BYTES) {
			const uint8_t *g = in + pos;
			unsigned tw = (unsigned)g[0] | (unsigned)g[1] << 8;
			unsigned lo = tw & 0xffu, hi = tw >> 8, ll = half_len[lo];
			__m256i v = _mm256_inserti128_si256(
				_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(g + 2))),
				_mm_loadu_si128((const __m128i *)(g + 2 + ll)), 1);
			__m256i mask = _mm256_inserti128_si256(
				_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)dec_tbl[lo].mask)),
				_mm_loadu_si128((const __m128i *)dec_tbl[hi].mask), 1);
			__m256i p = _mm256_shuffle_epi8(v, mask);
			__m256i t = _mm256_and_si256(
				_mm256_srlv_epi32(_mm256_set1_epi32((int)tw), shifts), three);
			__m256i is16 = _mm256_cmpeq_epi32(t, two);
			__m256i k = _mm256_blendv_epi8(k7, k15, is16);
			__m256i s = _mm256_slli_epi32(
				_mm256_and_si256(_mm256_srlv_epi32(p, k), one), 31);
			__m256i field = _mm256_and_si256(p,
				_mm256_sub_epi32(_mm256_sllv_epi32(one, k), one));
			__m256i fl = _mm256_castps_si256(_mm256_cvtepi32_ps(field));
			__m256i val = _mm256_or_si256(s,
				_mm256_sub_epi32(fl, _mm256_slli_epi32(k, 23)));

			val = _mm256_blendv_epi8(val, s, _mm256_cmpeq_epi32(field, zero));
			val = _mm256_blendv_epi8(val, p, _mm256_cmpeq_epi32(t, three));
			val = _mm256_andnot_si256(_mm256_cmpeq_epi32(t, zero), val);
			_mm256_storeu_si256((__m256i *)(out + 4 * i), val);
			pos += 2u + ll + half_len[hi];
			continue;
		}
		r = inc_group_decode(in + pos, in_len - pos, nv, out + 4 * i);
		if (r < 0)
			return r;
		pos += (size_t)r;
	}
	return (long)pos;
}
