// SPDX-License-Identifier: MIT
/*
 * codec_avx512.c - AVX-512 (VBMI2) stream decoder, byte-identical to the
 * model's inc_stream_decompress (sw-model/src/codec.c). Compression stays
 * with the AVX2 codec (codec_avx2.c); codec_dispatch.c picks this decoder
 * at run time on CPUs with AVX-512 F/BW/VL/VBMI2 and BMI2.
 *
 * Two 8-value groups are one 512-bit vector. vpexpandb with a byte mask
 * puts each lane's 0/1/2/4 payload bytes at the top of its 32-bit lane
 * (the payload's sign bit in bit 31, zeros below), so that, with q that
 * lane:
 *   tag 1/2: value = (q & 0x80000000) | float(q & 0x7fffffff) * 2^-31
 *            = sign | field * 2^-k (k = 7/15), exact as in codec_avx2.c;
 *   tag 0:   q = 0, and the same expression gives +0;
 *   tag 3:   q itself, kept by the mask of the last step (a vpternlogd
 *            that merges into q).
 * The byte mask of a group (32 bits, a nibble per lane) comes from two
 * 256-entry tables; the tag-3 lanes are the ones whose lowest byte is in
 * it, one pext.
 *
 * The vector paths need 68 readable bytes from the first of two groups
 * (34 each); the rest of a stream goes through the AVX2 decoder, which
 * leaves a partial last group and short input to the model, so bounds and
 * error codes are the model's.
 */
#include <immintrin.h>
#include <pthread.h>
#include <string.h>

#include "inc_internal.h"

#define AVX512_TARGET "avx2,avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2"

static uint8_t group_len[65536];   /* whole group size (2..34) per tag word */
static uint16_t lane_bytes[256];   /* vpexpandb mask of 4 lanes per tag byte */
static pthread_once_t tbl_once = PTHREAD_ONCE_INIT;

static void tbl_init(void)
{
	static const uint8_t nib[4] = { 0x0, 0x8, 0xc, 0xf };  /* top 0/1/2/4 bytes */
	unsigned t, i, len[256];

	for (t = 0; t < 256; t++) {
		lane_bytes[t] = 0;
		len[t] = 0;
		for (i = 0; i < 4; i++) {
			lane_bytes[t] |= (uint16_t)(nib[(t >> (2 * i)) & 3u] << (4 * i));
			len[t] += inc_tag_bytes(t >> (2 * i));
		}
	}
	for (t = 0; t < 65536; t++)
		group_len[t] = (uint8_t)(2u + len[t & 0xffu] + len[t >> 8]);
}

/* The vpexpandb mask of the group with tag word tw. */
static inline uint32_t group_mask(unsigned tw)
{
	return (uint32_t)lane_bytes[tw & 0xffu] | (uint32_t)lane_bytes[tw >> 8] << 16;
}

/* The values from the expanded lanes q; m: the byte mask (a bit per byte
 * of q), whose bit 4i is set for the tag-3 lanes i only. */
__attribute__((target(AVX512_TARGET), always_inline))
static inline __m512i lanes_values(__m512i q, uint64_t m)
{
	__mmask16 not_raw = (__mmask16)~_pext_u64(m, 0x1111111111111111ull);
	__m512 mag = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_and_si512(
		q, _mm512_set1_epi32(0x7fffffff))), _mm512_set1_ps(0x1p-31f));

	/* 0xea: (q & signbit) | mag */
	return _mm512_mask_ternarylogic_epi32(q, not_raw, _mm512_set1_epi32((int)0x80000000u),
					      _mm512_castps_si512(mag), 0xea);
}

__attribute__((target(AVX512_TARGET), always_inline))
static inline __m256i lanes_values256(__m256i q, uint32_t m)
{
	__mmask8 not_raw = (__mmask8)~_pext_u32(m, 0x11111111u);
	__m256 mag = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(
		q, _mm256_set1_epi32(0x7fffffff))), _mm256_set1_ps(0x1p-31f));

	return _mm256_mask_ternarylogic_epi32(q, not_raw, _mm256_set1_epi32((int)0x80000000u),
					      _mm256_castps_si256(mag), 0xea);
}

/* The 16 values of the full groups at a (tag word twa) and b (twb), each
 * with 34 readable bytes. */
__attribute__((target(AVX512_TARGET), always_inline))
static inline __m512i pair_values(const uint8_t *a, unsigned twa, const uint8_t *b,
				  unsigned twb)
{
	uint64_t m = (uint64_t)group_mask(twa) | (uint64_t)group_mask(twb) << 32;
	__m256i qa = _mm256_maskz_expand_epi8((__mmask32)m,
		_mm256_loadu_si256((const __m256i *)(const void *)(a + 2)));
	__m256i qb = _mm256_maskz_expand_epi8((__mmask32)(m >> 32),
		_mm256_loadu_si256((const __m256i *)(const void *)(b + 2)));

	return lanes_values(_mm512_inserti64x4(_mm512_castsi256_si512(qa), qb, 1), m);
}

/* The 8 values of the full group at g (tag word tw, 34 readable bytes). */
__attribute__((target(AVX512_TARGET), always_inline))
static inline __m256i group_values(const uint8_t *g, unsigned tw)
{
	uint32_t m = group_mask(tw);

	return lanes_values256(_mm256_maskz_expand_epi8((__mmask32)m,
		_mm256_loadu_si256((const __m256i *)(const void *)(g + 2))), m);
}

static inline unsigned tag_word(const uint8_t *g)
{
	uint16_t tw;

	memcpy(&tw, g, 2);      /* little-endian host */
	return tw;
}

/* Pairs of full groups while 68 bytes are readable; the rest through the
 * AVX2 decoder. */
__attribute__((target(AVX512_TARGET)))
long inc_avx512_decompress(const void *inv, size_t in_len, size_t n_values,
			   float *outf, size_t out_cap)
{
	const uint8_t *in = inv;
	uint8_t *out = (uint8_t *)outf;
	size_t pos = 0, i;
	long r;

	if ((!in && in_len) || (!out && n_values))
		return INC_EINVAL;
	if (n_values > out_cap / 4)
		return INC_ENOSPC;
	pthread_once(&tbl_once, tbl_init);
	for (i = 0; i + 2 * INC_GROUP_VALUES <= n_values &&
		    in_len - pos >= 2 * INC_GROUP_MAX_BYTES; i += 2 * INC_GROUP_VALUES) {
		const uint8_t *a = in + pos, *b;
		unsigned twa = tag_word(a), twb;

		b = a + group_len[twa];
		twb = tag_word(b);
		pos = (size_t)(b - in) + group_len[twb];
		_mm512_storeu_si512((void *)(out + 4 * i), pair_values(a, twa, b, twb));
	}
	if (i == n_values)
		return (long)pos;
	/* n_values <= out_cap / 4, so the rest's capacity check passes too. */
	r = inc_avx2_decompress(in + pos, in_len - pos, n_values - i,
				(float *)(void *)(out + 4 * i), out_cap - 4 * i);
	return r < 0 ? r : (long)pos + r;
}

/*
 * Multi-stream decode, as in codec_avx2.c: the chains of the k parts
 * (load the tag word, look up the group size, add) overlap, two groups of
 * each part per iteration, with one bounds check per block of iterations.
 * Large outputs go out with 64-byte non-temporal stores: each part first
 * decodes single groups until its output is 64-byte aligned and it is
 * STAGGER groups per part index ahead (so that the parts' store streams
 * do not sit at the same offset in their pages, see codec_avx2.c).
 */
#ifndef NT_MIN_BYTES
#define NT_MIN_BYTES (8u << 20)
#endif
#define STAGGER 37u

__attribute__((target(AVX512_TARGET), always_inline))
static inline void walk_parts(const struct inc_part *p, size_t *pos, size_t *gd,
			      unsigned K, int nt, size_t groups)
{
	const uint8_t *cur[INC_CODEC_PARTS_MAX], *end[INC_CODEC_PARTS_MAX];
	uint8_t *out[INC_CODEC_PARTS_MAX];
	size_t g[INC_CODEC_PARTS_MAX], m, room;
	unsigned j;

	for (j = 0; j < K; j++) {
		cur[j] = p[j].in;
		end[j] = p[j].in + p[j].len;
		out[j] = p[j].out;
		g[j] = 0;
		while ((g[j] < STAGGER * j || (nt && ((uintptr_t)out[j] & 63u))) &&
		       g[j] < groups && (size_t)(end[j] - cur[j]) >= INC_GROUP_MAX_BYTES) {
			unsigned tw = tag_word(cur[j]);

			_mm256_storeu_si256((__m256i *)(void *)out[j], group_values(cur[j], tw));
			cur[j] += group_len[tw];
			out[j] += 32;
			g[j]++;
		}
	}
	for (;;) {
		m = SIZE_MAX;
		for (j = 0; j < K; j++) {
			room = (size_t)(end[j] - cur[j]) / (2 * INC_GROUP_MAX_BYTES);
			if (room > (groups - g[j]) / 2)
				room = (groups - g[j]) / 2;
			if (room < m)
				m = room;
		}
		if (m == 0)
			break;
		for (j = 0; j < K; j++)
			g[j] += 2 * m;
		for (; m; m--) {
#pragma GCC unroll 4
			for (j = 0; j < K; j++) {
				const uint8_t *a = cur[j], *b;
				unsigned twa = tag_word(a), twb;
				__m512i v;

				b = a + group_len[twa];
				twb = tag_word(b);
				cur[j] = b + group_len[twb];
				v = pair_values(a, twa, b, twb);
				if (nt)
					_mm512_stream_si512((void *)out[j], v);
				else
					_mm512_storeu_si512((void *)out[j], v);
				out[j] += 64;
			}
		}
	}
	if (nt)
		_mm_sfence();
	for (j = 0; j < K; j++) {
		pos[j] = (size_t)(cur[j] - p[j].in);
		gd[j] = g[j];
	}
}

/* k in 2..4. */
__attribute__((target(AVX512_TARGET), noinline))
static void walk_parts_k(const struct inc_part *p, size_t *pos, size_t *gd, unsigned k,
			 int nt, size_t groups)
{
	if (nt) {
		if (k == 2)
			walk_parts(p, pos, gd, 2, 1, groups);
		else if (k == 3)
			walk_parts(p, pos, gd, 3, 1, groups);
		else
			walk_parts(p, pos, gd, 4, 1, groups);
	} else {
		if (k == 2)
			walk_parts(p, pos, gd, 2, 0, groups);
		else if (k == 3)
			walk_parts(p, pos, gd, 3, 0, groups);
		else
			walk_parts(p, pos, gd, 4, 0, groups);
	}
}

long inc_avx512_decompress_parts(const struct inc_part *p, unsigned k)
{
	size_t pos[INC_CODEC_PARTS_MAX] = { 0 }, gd[INC_CODEC_PARTS_MAX] = { 0 };
	size_t groups = SIZE_MAX, bytes = 0;
	unsigned j;
	long r;

	if (k > INC_CODEC_PARTS_MAX)
		return INC_EINVAL;
	pthread_once(&tbl_once, tbl_init);
	/* Parts start at multiples of 8 values (32 bytes) from the first. */
	for (j = 0; j < k; j++) {
		if (p[j].n / INC_GROUP_VALUES < groups)
			groups = p[j].n / INC_GROUP_VALUES;
		bytes += 4 * p[j].n;
	}
	if (k >= 2 && groups > 0)
		walk_parts_k(p, pos, gd, k,
			     bytes >= NT_MIN_BYTES && ((uintptr_t)p[0].out & 31u) == 0, groups);
	/* The rest of each part: the single-stream path, whose result for
	 * the rest plus the bytes walked is the model's for the whole part. */
	for (j = 0; j < k; j++) {
		r = inc_avx512_decompress(p[j].in + pos[j], p[j].len - pos[j],
					  p[j].n - INC_GROUP_VALUES * gd[j],
					  (float *)(void *)(p[j].out + 32 * gd[j]),
					  4 * (p[j].n - INC_GROUP_VALUES * gd[j]));
		if (r < 0)
			return r;
		if ((size_t)r != p[j].len - pos[j])
			return INC_EMALFORMED;
	}
	return 0;
}
