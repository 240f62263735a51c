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
 * when decompressing); otherwise, and for a partial last group, the rest
 * of the stream goes through the model's own inc_stream_compress /
 * inc_stream_decompress, so bounds and error codes are the model's.
 */
#include <immintrin.h>
#include <pthread.h>
#include <string.h>

#include "inc_internal.h"
#include "frame_kernels.h"

struct shuf {
	uint8_t mask[16];
};

static struct shuf enc_tbl[256], dec_tbl[256];
static uint8_t half_len[256];
static uint8_t group_len[65536];   /* whole group size (2..34) per tag word */
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
	for (t = 0; t < 65536; t++)
		group_len[t] = (uint8_t)(2u + half_len[t & 0xffu] + half_len[t >> 8]);
}

static inline unsigned clamp_eb(unsigned eb)
{
	if (eb < INC_EB_MIN)
		return INC_EB_MIN;
	return eb > INC_EB_MAX ? INC_EB_MAX : eb;
}

/*
 * What the frame kernels (struct inc_frame_kernels of inc_model.h) gather
 * besides the stream: big-endian 16-bit word sums (the Internet checksum's
 * words) kept as two sums, of the bytes at even offsets (the high bytes:
 * the low byte of each little-endian 16-bit lane) and of those at odd
 * offsets, each added eight at a time with psadbw, so that the word sum is
 * 256 * even + odd, an exact integer like the model's; the tag-word sum;
 * and the class counts from the tag word's bit planes: with lo = its even
 * bits and hi = its odd bits moved down, lanes of tag 3 are lo & hi, tag 2
 * hi & ~lo, tag 1 lo & ~hi. Padding lanes are tag 0, so tag 0 is whatever
 * of the n values is left.
 */
struct wsum {
	__m256i even, odd;
};

struct vsums {
	struct wsum in, q;
	uint64_t ts, c1, c2, c3;
	__m256i ga, gb, gr;     /* per lane: values of tag >= 1, >= 2, 3 (encoder) */
};

__attribute__((target("avx2"), always_inline))
static inline void wsum_add(struct wsum *w, __m256i v)
{
	__m256i z = _mm256_setzero_si256();

	w->even = _mm256_add_epi64(w->even, _mm256_sad_epu8(
		_mm256_and_si256(v, _mm256_set1_epi16(0x00ff)), z));
	w->odd = _mm256_add_epi64(w->odd, _mm256_sad_epu8(_mm256_srli_epi16(v, 8), z));
}

__attribute__((target("avx2")))
static uint64_t wsum_total(const struct wsum *w)
{
	uint64_t e[4], o[4];

	_mm256_storeu_si256((__m256i *)(void *)e, w->even);
	_mm256_storeu_si256((__m256i *)(void *)o, w->odd);
	return ((e[0] + e[1] + e[2] + e[3]) << 8) + o[0] + o[1] + o[2] + o[3];
}

__attribute__((target("avx2")))
static void vsums_init(struct vsums *v)
{
	v->in.even = v->in.odd = v->q.even = v->q.odd = _mm256_setzero_si256();
	v->ga = v->gb = v->gr = _mm256_setzero_si256();
	v->ts = v->c1 = v->c2 = v->c3 = 0;
}

/* The encoder's per-lane class counters into c1..c3. */
__attribute__((target("avx2")))
static void vsums_fold_lanes(struct vsums *v)
{
	uint32_t a[8], b[8], r[8];
	uint64_t sa = 0, sb = 0, sr = 0;
	unsigned i;

	_mm256_storeu_si256((__m256i *)(void *)a, v->ga);
	_mm256_storeu_si256((__m256i *)(void *)b, v->gb);
	_mm256_storeu_si256((__m256i *)(void *)r, v->gr);
	for (i = 0; i < 8; i++) {
		sa += a[i];
		sb += b[i];
		sr += r[i];
	}
	v->c1 += sa - sb;
	v->c2 += sb - sr;
	v->c3 += sr;
	v->ga = v->gb = v->gr = _mm256_setzero_si256();
}

__attribute__((target("popcnt"), always_inline))
static inline void tags_add(struct vsums *v, unsigned tw)
{
	unsigned lo = tw & 0x5555u, hi = (tw >> 1) & 0x5555u;

	v->ts += tw;
	v->c3 += (unsigned)__builtin_popcount(lo & hi);
	v->c2 += (unsigned)__builtin_popcount(hi & ~lo);
	v->c1 += (unsigned)__builtin_popcount(lo & ~hi);
}

/* The frame's sums of n values from the accumulators. */
static void vsums_out(const struct vsums *v, size_t n, struct inc_stream_sums *s)
{
	memset(s, 0, sizeof(*s));
	s->in_words = wsum_total(&v->in);
	s->restored_words = wsum_total(&v->q);
	s->tag_sum = (unsigned)(v->ts & 0xffffu);
	s->counts.n[INC_TAG_ZERO] = n - v->c1 - v->c2 - v->c3;
	s->counts.n[INC_TAG_8] = v->c1;
	s->counts.n[INC_TAG_16] = v->c2;
	s->counts.n[INC_TAG_RAW] = v->c3;
}

/*
 * Vector form of inc_compress_value. With a = |f| and e its exponent, the
 * tag depends on e alone: below ebase the value is 0; the 8-bit class
 * [ebase, thr16) keeps bits 22..16 of x = (1.m) >> (127-e), which are all
 * zero unless e >= 120; the 16-bit class [thr16, 127) keeps bits 22..8,
 * zero unless e >= 112. So the tag is monotone in e with two thresholds A
 * (first 8-bit value) and B (first 16-bit value) plus 127 for raw, and the
 * payload field is (1.m) >> (143 - e) or >> (135 - e), with the sign moved
 * to bit 7 or 15. Bytes above a lane's payload size are never packed, so
 * they need no masking.
 */
struct enc_consts {
	__m256i absmask, a_m1, b_m1, r_m1, c143, c24, eight, mant, implicit, signbit;
	__m256 s7, s15;
};

__attribute__((target("avx2")))
static void enc_consts_init(struct enc_consts *c, unsigned eb)
{
	unsigned ebase = 127u - eb, thr16 = ebase + (eb + 1u) / 2u;
	unsigned lo8 = ebase > 120u ? ebase : 120u;
	unsigned b = thr16 > 112u ? thr16 : 112u;
	unsigned a = lo8 < thr16 ? lo8 : b;

	c->absmask = _mm256_set1_epi32(0x7fffffff);
	c->a_m1 = _mm256_set1_epi32((int)(a << 23) - 1);
	c->b_m1 = _mm256_set1_epi32((int)(b << 23) - 1);
	c->r_m1 = _mm256_set1_epi32((int)(127u << 23) - 1);
	c->c143 = _mm256_set1_epi32(143);
	c->c24 = _mm256_set1_epi32(24);
	c->eight = _mm256_set1_epi32(8);
	c->mant = _mm256_set1_epi32(0x7fffff);
	c->implicit = _mm256_set1_epi32(0x800000);
	c->signbit = _mm256_set1_epi32((int)0x80000000u);
	c->s7 = _mm256_set1_ps(0x1p-7f);
	c->s15 = _mm256_set1_ps(0x1p-15f);
}

/*
 * One group; with v (a constant after inlining) also its sums. The value
 * the decoder restores, q = decode(encode(f)), comes from the same lanes:
 * the payload field is mag, so q = sign | mag * 2^-7 (tag 1) or 2^-15 (tag
 * 2), exact as in the decoder below; f itself for tag 3; 0 for tag 0
 * (lanes below the first threshold, ma clear).
 */
__attribute__((target("avx2,popcnt"), always_inline))
static inline unsigned group_encode_vec(__m256i f, uint8_t *out, const struct enc_consts *c,
					struct vsums *v, __m256i *qout)
{
	__m256i a = _mm256_and_si256(f, c->absmask);
	__m256i ma = _mm256_cmpgt_epi32(a, c->a_m1);
	__m256i mb = _mm256_cmpgt_epi32(a, c->b_m1);
	__m256i mr = _mm256_cmpgt_epi32(a, c->r_m1);
	__m256i e = _mm256_srli_epi32(a, 23);
	__m256i t8 = _mm256_and_si256(mb, c->eight);
	__m256i cnt = _mm256_sub_epi32(_mm256_sub_epi32(c->c143, t8), e);
	__m256i m24 = _mm256_or_si256(_mm256_and_si256(f, c->mant), c->implicit);
	__m256i mag = _mm256_srlv_epi32(m24, cnt);      /* count >= 32 -> 0 */
	__m256i sgn = _mm256_srlv_epi32(_mm256_and_si256(f, c->signbit),
					_mm256_sub_epi32(c->c24, t8));
	__m256i pay = _mm256_blendv_epi8(_mm256_or_si256(mag, sgn), f, mr);
	__m256i bit0 = _mm256_xor_si256(_mm256_xor_si256(ma, mb), mr);
	unsigned b0 = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(bit0));
	unsigned b1 = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(mb));
	unsigned tw = (unsigned)spread[b0] | (unsigned)spread[b1] << 1;
	unsigned lo = tw & 0xffu, hi = tw >> 8, ll = half_len[lo];
	__m256i mask = _mm256_inserti128_si256(
		_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)enc_tbl[lo].mask)),
		_mm_loadu_si128((const __m128i *)enc_tbl[hi].mask), 1);
	__m256i comp = _mm256_shuffle_epi8(pay, mask);
	uint16_t tw16 = (uint16_t)tw;

	memcpy(out, &tw16, 2);   /* little-endian host */
	_mm_storeu_si128((__m128i *)(out + 2), _mm256_castsi256_si128(comp));
	_mm_storeu_si128((__m128i *)(out + 2 + ll), _mm256_extracti128_si256(comp, 1));
	if (v || qout) {
		__m256 sc = _mm256_blendv_ps(c->s7, c->s15, _mm256_castsi256_ps(mb));
		__m256i q = _mm256_or_si256(_mm256_and_si256(f, c->signbit), _mm256_castps_si256(
			_mm256_mul_ps(_mm256_cvtepi32_ps(mag), sc)));

		q = _mm256_and_si256(_mm256_blendv_epi8(q, f, mr), ma);
		if (qout)
			*qout = q;
		if (v) {
			wsum_add(&v->in, f);
			wsum_add(&v->q, q);
			/* The class counts from the masks (-1 per set lane). */
			v->ga = _mm256_sub_epi32(v->ga, ma);
			v->gb = _mm256_sub_epi32(v->gb, mb);
			v->gr = _mm256_sub_epi32(v->gr, mr);
			v->ts += tw;
		}
	}
	return 2u + ll + half_len[hi];
}

__attribute__((target("avx2,popcnt"), always_inline))
static inline unsigned group_encode(const uint8_t *in, uint8_t *out,
				    const struct enc_consts *c, struct vsums *v)
{
	return group_encode_vec(_mm256_loadu_si256((const __m256i *)in), out, c, v, NULL);
}

struct enc_done {
	size_t values, bytes;
};

/* Encode the full groups of in while out has room for the largest one:
 * the values consumed and the bytes written. Out of line and returning
 * both in registers, so that the loop has the registers to itself. */
__attribute__((target("avx2,popcnt"), noinline))
static struct enc_done encode_full_groups(const uint8_t *in, size_t n_values,
					  unsigned eb, uint8_t *out,
					  size_t out_cap)
{
	struct enc_consts c;
	size_t pos = 0, i;

	enc_consts_init(&c, eb);
	for (i = 0; i + INC_GROUP_VALUES <= n_values &&
		    out_cap - pos >= INC_GROUP_MAX_BYTES; i += INC_GROUP_VALUES)
		pos += group_encode(in + 4 * i, out + pos, &c, NULL);
	return (struct enc_done){ i, pos };
}

/* The same, gathering the frame's sums into *v. */
__attribute__((target("avx2,popcnt"), noinline))
static struct enc_done encode_full_groups_sums(const uint8_t *in, size_t n_values,
					       unsigned eb, uint8_t *out,
					       size_t out_cap, struct vsums *v)
{
	struct enc_consts c;
	struct vsums acc = *v;
	size_t pos = 0, i;

	enc_consts_init(&c, eb);
	for (i = 0; i + INC_GROUP_VALUES <= n_values &&
		    out_cap - pos >= INC_GROUP_MAX_BYTES; i += INC_GROUP_VALUES)
		pos += group_encode(in + 4 * i, out + pos, &c, &acc);
	*v = acc;
	return (struct enc_done){ i, pos };
}

/* The same, on x = v + res (res NULL: v), replacing v by the decoder's
 * values q (as group_encode's sums compute them) and res by x - q. */
__attribute__((target("avx2,popcnt"), noinline))
static struct enc_done encode_full_groups_q(float *v, float *res, size_t n_values,
					    unsigned eb, uint8_t *out, size_t out_cap)
{
	struct enc_consts c;
	size_t pos = 0, i;

	enc_consts_init(&c, eb);
	for (i = 0; i + INC_GROUP_VALUES <= n_values &&
		    out_cap - pos >= INC_GROUP_MAX_BYTES; i += INC_GROUP_VALUES) {
		__m256 x = _mm256_loadu_ps(v + i);
		__m256i q;

		if (res)
			x = _mm256_add_ps(x, _mm256_loadu_ps(res + i));
		pos += group_encode_vec(_mm256_castps_si256(x), out + pos, &c, NULL, &q);
		_mm256_storeu_si256((__m256i *)(void *)(v + i), q);
		if (res)
			_mm256_storeu_ps(res + i, _mm256_sub_ps(x, _mm256_castsi256_ps(q)));
	}
	return (struct enc_done){ i, pos };
}

/* inc_avx2_compress on bytes at any alignment (frames put the payload
 * anywhere). */
static long compress_bytes(const uint8_t *in, size_t n_values, unsigned eb,
			   uint8_t *out, size_t out_cap)
{
	struct enc_done d;
	size_t pos, i;
	long r;

	if ((!in && n_values) || (!out && out_cap))
		return INC_EINVAL;
	pthread_once(&tbl_once, tbl_init);
	eb = clamp_eb(eb);
	/* Full groups with room for the largest one: vector path. */
	d = encode_full_groups(in, n_values, eb, out, out_cap);
	i = d.values;
	pos = d.bytes;
	if (i == n_values)
		return (long)pos;
	/* The rest (little room left, or a partial last group): the model. */
	r = inc_stream_compress(in + 4 * i, n_values - i, eb, out + pos,
				out_cap - pos, NULL);
	return r < 0 ? r : (long)pos + r;
}

long inc_avx2_compress(const float *in, size_t n_values, unsigned eb,
		       void *out, size_t out_cap)
{
	return compress_bytes((const uint8_t *)in, n_values, eb, out, out_cap);
}

long inc_avx2_compress_q(float *v, float *res, size_t n_values, unsigned eb,
			 void *outv, size_t out_cap)
{
	uint8_t *out = outv;
	struct enc_done d;
	size_t i;
	long r;

	if ((!v && n_values) || (!out && out_cap))
		return INC_EINVAL;
	pthread_once(&tbl_once, tbl_init);
	eb = clamp_eb(eb);
	d = encode_full_groups_q(v, res, n_values, eb, out, out_cap);
	if (d.values == n_values)
		return (long)d.bytes;
	/* The rest (little room left, or a partial last group): the model's
	 * stream of x and its decoding, as inc_codec_compress_q's portable
	 * path does. */
	for (i = d.values; res && i < n_values; i++) {
		v[i] += res[i];
		res[i] = v[i];
	}
	r = inc_stream_compress((const uint8_t *)(v + d.values), n_values - d.values, eb,
				out + d.bytes, out_cap - d.bytes, NULL);
	if (r < 0)
		return r;
	if (inc_stream_decompress(out + d.bytes, (size_t)r, n_values - d.values,
				  (uint8_t *)(v + d.values), 4 * (n_values - d.values)) != r)
		return INC_EMALFORMED;
	for (i = d.values; res && i < n_values; i++)
		res[i] -= v[i];
	return (long)d.bytes + r;
}

/*
 * Decode: after the byte expansion each lane holds its payload p, zero
 * extended (tag 0 lanes hold 0). Shift it left by 24 (tag 1) or 16 (tag 2)
 * so that the payload's sign bit lands in bit 31: q = p << s. Then the
 * field sits in bits 30..s, q & 0x7fffffff = field * 2^s, and
 *   tag 1/2: value = (q & 0x80000000) | float(q & 0x7fffffff) * 2^-31
 *            = sign | field * 2^-k (k = 7/15, s + k = 31). The conversion
 *            and the product are exact (at most 15 significant bits, a
 *            power of two, no underflow) and equal the model's bit
 *            construction; field 0 gives +-0 as in the model.
 *   tag 0:   p = 0, so the same expression gives +0.
 *   tag 3:   the payload itself, picked with a blend.
 * The per-lane shift and the tag-3 mask come from 8-entry vectors indexed
 * by vpermd, which reads only the low 3 bits of each index: lane i's index
 * is the tag word shifted right by 2i, whose bit 2 belongs to the next
 * lane, so the vectors repeat after four entries and no mask is needed.
 * The tag word is broadcast straight from memory (its upper two bytes,
 * payload, only reach bit 2 of lane 7's index).
 */
struct dec_consts {
	__m256i shifts, sh, raw, signbit, absmask;
	__m256 scale;
};

__attribute__((target("avx2")))
static void dec_consts_init(struct dec_consts *c)
{
	c->shifts = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
	c->sh = _mm256_setr_epi32(0, 24, 16, 0, 0, 24, 16, 0);
	c->raw = _mm256_setr_epi32(0, 0, 0, -1, 0, 0, 0, -1);
	c->signbit = _mm256_set1_epi32((int)0x80000000u);
	c->absmask = _mm256_set1_epi32(0x7fffffff);
	c->scale = _mm256_set1_ps(0x1p-31f);
}

/* The 8 values of the full group at g (tag word tw, 34 readable bytes). */
__attribute__((target("avx2")))
static inline __m256i group_values(const uint8_t *g, unsigned tw,
				   const struct dec_consts *c)
{
	unsigned lo = tw & 0xffu, hi = tw >> 8, ll = half_len[lo];
	uint32_t tw32;
	__m256i v = _mm256_inserti128_si256(
		_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(g + 2))),
		_mm_loadu_si128((const __m128i *)(g + 2 + ll)), 1);
	__m256i mask = _mm256_inserti128_si256(
		_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)dec_tbl[lo].mask)),
		_mm_loadu_si128((const __m128i *)dec_tbl[hi].mask), 1);
	__m256i p = _mm256_shuffle_epi8(v, mask), idx, q;
	__m256 mag;

	memcpy(&tw32, g, 4);
	idx = _mm256_srlv_epi32(_mm256_set1_epi32((int)tw32), c->shifts);
	q = _mm256_sllv_epi32(p, _mm256_permutevar8x32_epi32(c->sh, idx));
	mag = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(q, c->absmask)), c->scale);
	return _mm256_blendv_epi8(
		_mm256_or_si256(_mm256_and_si256(q, c->signbit), _mm256_castps_si256(mag)),
		p, _mm256_permutevar8x32_epi32(c->raw, idx));
}

/* Decode the full group at g (tag word tw, 34 readable bytes) into 8
 * values at out. */
__attribute__((target("avx2")))
static inline void group_decode(const uint8_t *g, unsigned tw, uint8_t *out,
				const struct dec_consts *c)
{
	_mm256_storeu_si256((__m256i *)out, group_values(g, tw, c));
}

/* inc_avx2_decompress on bytes at any alignment; with v (a constant after
 * inlining) the vector part's sums go there, and the index of the first
 * value left to the model and its stream offset to done[0] and done[1]. */
__attribute__((target("avx2,popcnt"), always_inline))
static inline long decode_bytes(const uint8_t *in, size_t in_len, size_t n_values,
				uint8_t *out, size_t out_cap, struct vsums *v,
				size_t *done)
{
	struct dec_consts c;
	size_t pos = 0, i;
	long r;

	if ((!in && in_len) || (!out && n_values))
		return INC_EINVAL;
	if (n_values > out_cap / 4)
		return INC_ENOSPC;
	pthread_once(&tbl_once, tbl_init);
	dec_consts_init(&c);
	/* Full groups with 34 readable bytes: vector path. */
	for (i = 0; i + INC_GROUP_VALUES <= n_values &&
		    in_len - pos >= INC_GROUP_MAX_BYTES; i += INC_GROUP_VALUES) {
		const uint8_t *g = in + pos;
		uint16_t tw16;
		unsigned tw;

		memcpy(&tw16, g, 2);     /* little-endian host */
		tw = tw16;
		/* The loop-carried path: load the tag word, look up the
		 * group size. One 64 KiB table beat popcounts (13.4 vs
		 * 11-12 GB/s for the walk alone on gradient-like data,
		 * whose few frequent tag words stay in L1). */
		pos += group_len[tw];
		if (v) {
			__m256i q = group_values(g, tw, &c);

			_mm256_storeu_si256((__m256i *)(void *)(out + 4 * i), q);
			wsum_add(&v->q, q);
			tags_add(v, tw);
		} else {
			group_decode(g, tw, out + 4 * i, &c);
		}
	}
	if (v) {
		/* The frame kernel: the rest in the vector path too, from a
		 * zero-padded copy when fewer than 34 bytes are left, with the
		 * model's checks in the model's order (inc_group_decode). */
		uint8_t pad[INC_GROUP_MAX_BYTES + 30];
		uint32_t vals[INC_GROUP_VALUES];

		while (i < n_values) {
			size_t left = in_len - pos;
			unsigned nv = n_values - i < INC_GROUP_VALUES ?
				      (unsigned)(n_values - i) : INC_GROUP_VALUES;
			const uint8_t *g = in + pos;
			unsigned tw, size;
			__m256i q;

			if (left < 2)
				return INC_ETRUNC;
			tw = (unsigned)g[0] | (unsigned)g[1] << 8;
			if (nv < INC_GROUP_VALUES && (tw >> (2 * nv)) != 0)
				return INC_EMALFORMED;
			size = group_len[tw];
			if (size > left)
				return INC_ETRUNC;
			if (left < INC_GROUP_MAX_BYTES) {
				memset(pad, 0, sizeof(pad));
				memcpy(pad, g, left);
				g = pad;
			}
			q = group_values(g, tw, &c);
			_mm256_storeu_si256((__m256i *)(void *)vals, q);
			memcpy(out + 4 * i, vals, 4 * nv);
			wsum_add(&v->q, q);
			tags_add(v, tw);
			pos += size;
			i += nv;
		}
	}
	if (done) {
		done[0] = i;
		done[1] = pos;
	}
	if (i == n_values)
		return (long)pos;
	/* The rest (fewer than 34 bytes left, or a partial last group): the
	 * model. n_values <= out_cap / 4, so the model's capacity check of
	 * the rest passes too. */
	r = inc_stream_decompress(in + pos, in_len - pos, n_values - i,
				  out + 4 * i, out_cap - 4 * i);
	return r < 0 ? r : (long)pos + r;
}

__attribute__((target("avx2,popcnt")))
static long decompress_bytes(const uint8_t *in, size_t in_len, size_t n_values,
			     uint8_t *out, size_t out_cap)
{
	return decode_bytes(in, in_len, n_values, out, out_cap, NULL, NULL);
}

long inc_avx2_decompress(const void *in, size_t in_len, size_t n_values,
			 float *out, size_t out_cap)
{
	return decompress_bytes(in, in_len, n_values, (uint8_t *)out, out_cap);
}

/*
 * Multi-stream decode: the chains of k independent streams (load the tag
 * word, look up the group size, add) overlap, one group of each stream per
 * iteration. A block of m iterations needs no bounds check when every
 * stream has at least 34 * m bytes left (each group takes at most 34), so
 * the checks run once per block. K and the store kind are constants in
 * each instance, so the per-stream state stays in registers.
 *
 * Large outputs are written with non-temporal stores: they would not stay
 * in the cache anyway, and a normal store first reads the line it writes
 * (a decoder that writes 8-10x the bytes it reads spends most of its
 * memory traffic on those reads). Small ones (the all-reduce's segments,
 * added to right after) keep normal stores.
 */
enum store_kind { ST_NORMAL, ST_NT256, ST_NT128 };

/* Outputs from this size on: non-temporal stores. On the 32 MiB-L3 build
 * machine they win from 16 MiB on (21.7 vs 19.5 GB/s) and lose at 4 MiB
 * (13.7 vs 15.6). Build with -DNT_MIN_BYTES=... to move it. */
#ifndef NT_MIN_BYTES
#define NT_MIN_BYTES (8u << 20)
#endif

__attribute__((target("avx2"), always_inline))
static inline void store_group(uint8_t *dst, __m256i v, enum store_kind st)
{
	if (st == ST_NT256) {
		_mm256_stream_si256((__m256i *)(void *)dst, v);
	} else if (st == ST_NT128) {
		_mm_stream_si128((__m128i *)(void *)dst, _mm256_castsi256_si128(v));
		_mm_stream_si128((__m128i *)(void *)(dst + 16),
				 _mm256_extracti128_si256(v, 1));
	} else {
		_mm256_storeu_si256((__m256i *)(void *)dst, v);
	}
}

/*
 * The parts' outputs start a multiple of 32 bytes apart, and for the sizes
 * that matter a power of two apart (n = 2^24 values in K = 2 or 4 parts:
 * 32 or 16 MiB), so walking them in lockstep keeps the K store streams at
 * the same offset in their pages and cache sets all the way: on the AMD
 * EPYC hosts that cost decode with K = 2 and 4 a factor of four against K
 * = 3, whose parts are not a power of two apart. Part j therefore starts
 * INC_PARTS_STAGGER * j groups ahead of part 0 (37 groups = 1184 bytes:
 * the streams at 0, 1184, 2368 and 3552 bytes into their 4 KiB pages) and
 * the lockstep walk keeps that distance.
 */
__attribute__((target("avx2"), always_inline))
static inline void walk_parts(const struct inc_part *p, size_t *pos, size_t *gd,
			      unsigned K, enum store_kind st, size_t groups,
			      const struct dec_consts *c)
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
		/* The head start of part j, alone. */
		while (g[j] < INC_PARTS_STAGGER * j && g[j] < groups &&
		       (size_t)(end[j] - cur[j]) >= INC_GROUP_MAX_BYTES) {
			uint16_t tw16;

			memcpy(&tw16, cur[j], 2);
			store_group(out[j], group_values(cur[j], tw16, c), st);
			cur[j] += group_len[tw16];
			out[j] += 32;
			g[j]++;
		}
	}
	for (;;) {
		m = SIZE_MAX;
		for (j = 0; j < K; j++) {
			room = (size_t)(end[j] - cur[j]) / INC_GROUP_MAX_BYTES;
			if (room > groups - g[j])
				room = groups - g[j];
			if (room < m)
				m = room;
		}
		if (m == 0)
			break;
		for (j = 0; j < K; j++)
			g[j] += m;
		/* Unrolled over the parts, so that the cursors live in
		 * registers (a loop over j kept the positions on the stack,
		 * adding a store-to-load forward to every chain). */
		for (; m; m--) {
#pragma GCC unroll 4
			for (j = 0; j < K; j++) {
				const uint8_t *gp = cur[j];
				uint16_t tw16;

				memcpy(&tw16, gp, 2);   /* little-endian host */
				cur[j] = gp + group_len[tw16];
				store_group(out[j], group_values(gp, tw16, c), st);
				out[j] += 32;
			}
		}
	}
	if (st != ST_NORMAL)
		_mm_sfence();
	for (j = 0; j < K; j++) {
		pos[j] = (size_t)(cur[j] - p[j].in);
		gd[j] = g[j];
	}
}

#define WALK_K(st)                                                          \
	switch (k) {                                                        \
	case 2:                                                             \
		walk_parts(p, pos, gd, 2, st, groups, &c);                  \
		return;                                                     \
	case 3:                                                             \
		walk_parts(p, pos, gd, 3, st, groups, &c);                  \
		return;                                                     \
	default:                                                            \
		walk_parts(p, pos, gd, 4, st, groups, &c);                  \
		return;                                                     \
	}

/* k in 2..4. */
__attribute__((target("avx2"), noinline))
static void walk_parts_k(const struct inc_part *p, size_t *pos, size_t *gd, unsigned k,
			 enum store_kind st, size_t groups)
{
	struct dec_consts c;

	dec_consts_init(&c);
	if (st == ST_NT256)
		WALK_K(ST_NT256)
	if (st == ST_NT128)
		WALK_K(ST_NT128)
	WALK_K(ST_NORMAL)
}

long inc_avx2_decompress_parts(const struct inc_part *p, unsigned k)
{
	size_t pos[INC_CODEC_PARTS_MAX] = { 0 }, gd[INC_CODEC_PARTS_MAX] = { 0 };
	size_t groups = SIZE_MAX, bytes = 0;
	enum store_kind st = ST_NORMAL;
	unsigned j;
	long r;

	if (k > INC_CODEC_PARTS_MAX)
		return INC_EINVAL;
	pthread_once(&tbl_once, tbl_init);
	/* Full groups every part has: interleaved. Parts start at multiples
	 * of 8 values from the first, so all share its alignment. */
	for (j = 0; j < k; j++) {
		if (p[j].n / INC_GROUP_VALUES < groups)
			groups = p[j].n / INC_GROUP_VALUES;
		bytes += 4 * p[j].n;
	}
	if (k >= 2 && bytes >= NT_MIN_BYTES)
		st = ((uintptr_t)p[0].out & 31u) == 0 ? ST_NT256 :
		     ((uintptr_t)p[0].out & 15u) == 0 ? ST_NT128 : ST_NORMAL;
	if (k >= 2 && groups > 0)
		walk_parts_k(p, pos, gd, k, st, groups);
	/* The rest of each part, in order: the single-stream path, whose
	 * result for the rest plus the bytes walked is the model's result for
	 * the whole part. */
	for (j = 0; j < k; j++) {
		r = inc_avx2_decompress(p[j].in + pos[j], p[j].len - pos[j],
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

/* ------------------------------------------------------------------------ */
/* Frame kernels (struct inc_frame_kernels, frame_fast.c)                    */
/* ------------------------------------------------------------------------ */

/* The word sum of p[0..len), len even, into w (the odd tail by hand). */
__attribute__((target("avx2")))
static void wsum_bytes(struct wsum *w, const uint8_t *p, size_t len)
{
	uint64_t s = 0;
	size_t k = 0;

	for (; k + 32 <= len; k += 32)
		wsum_add(w, _mm256_loadu_si256((const __m256i *)(const void *)(p + k)));
	for (; k + 1 < len; k += 2)
		s += (uint64_t)p[k] << 8 | p[k + 1];
	/* s as one more psadbw lane: its high part is bytes at even offsets
	 * weighted 256, its low part the odd ones. */
	w->odd = _mm256_add_epi64(w->odd, _mm256_set_epi64x(0, 0, 0, (long long)s));
}

/*
 * Tags and, with restored, the decoded values' words of the groups of a
 * stream of n values that is known to be valid (inc_stream_size accepted
 * in[0..in_len)); a group with fewer than 34 bytes left is decoded from a
 * zero-padded copy. For the few groups the vector loops leave to the model.
 */
__attribute__((target("avx2,popcnt")))
static void walk_sums(const uint8_t *in, size_t in_len, size_t n_values, int restored,
		      struct vsums *v)
{
	struct dec_consts c;
	uint8_t pad[INC_GROUP_MAX_BYTES + 2];
	size_t pos = 0, i;

	dec_consts_init(&c);
	for (i = 0; i < n_values; i += INC_GROUP_VALUES) {
		const uint8_t *g = in + pos;
		unsigned tw = (unsigned)g[0] | (unsigned)g[1] << 8;

		tags_add(v, tw);
		if (restored) {
			if (in_len - pos < INC_GROUP_MAX_BYTES) {
				memset(pad, 0, sizeof(pad));
				memcpy(pad, g, in_len - pos);
				g = pad;
			}
			wsum_add(&v->q, group_values(g, tw, &c));
		}
		pos += group_len[tw];
	}
}

__attribute__((target("avx2,popcnt")))
static long k_stream_compress(const uint8_t *in, size_t n_values, unsigned eb,
			      uint8_t *out, size_t out_cap, struct inc_stream_sums *sums)
{
	struct enc_done d;
	struct vsums v;
	long r;

	if ((!in && n_values) || (!out && out_cap))
		return INC_EINVAL;
	pthread_once(&tbl_once, tbl_init);
	eb = clamp_eb(eb);
	vsums_init(&v);
	d = encode_full_groups_sums(in, n_values, eb, out, out_cap, &v);
	vsums_fold_lanes(&v);
	if (d.values < n_values) {
		/* The rest through the model, then its sums. */
		r = inc_stream_compress(in + 4 * d.values, n_values - d.values, eb,
					out + d.bytes, out_cap - d.bytes, NULL);
		if (r < 0)
			return r;
		wsum_bytes(&v.in, in + 4 * d.values, 4 * (n_values - d.values));
		walk_sums(out + d.bytes, (size_t)r, n_values - d.values, 1, &v);
		d.bytes += (size_t)r;
	}
	vsums_out(&v, n_values, sums);
	return (long)d.bytes;
}

__attribute__((target("avx2,popcnt")))
static long k_stream_decompress(const uint8_t *in, size_t in_len, size_t n_values,
				uint8_t *out, size_t out_cap, struct inc_stream_sums *sums)
{
	struct vsums v;
	size_t done[2] = { 0, 0 };
	long r;

	vsums_init(&v);
	r = decode_bytes(in, in_len, n_values, out, out_cap, &v, done);
	if (r < 0)
		return r;
	if (done[0] < n_values) {
		/* The model decoded the rest: its words from the output, its
		 * tags from the stream (valid: the model accepted it). */
		wsum_bytes(&v.q, out + 4 * done[0], 4 * (n_values - done[0]));
		walk_sums(in + done[1], (size_t)r - done[1], n_values - done[0], 0, &v);
	}
	vsums_out(&v, n_values, sums);
	return r;
}

/* inc_stream_size with the group-size table; the partial last group (the
 * padding check) goes to the model. */
static long k_stream_size(const uint8_t *in, size_t in_len, size_t n_values)
{
	size_t pos = 0, i;
	unsigned size;
	long r;

	if (!in && in_len)
		return INC_EINVAL;
	pthread_once(&tbl_once, tbl_init);
	for (i = 0; i + INC_GROUP_VALUES <= n_values; i += INC_GROUP_VALUES) {
		if (in_len - pos < 2)
			return INC_ETRUNC;
		size = group_len[in[pos] | in[pos + 1] << 8];
		if (size > in_len - pos)
			return INC_ETRUNC;
		pos += size;
	}
	if (i == n_values)
		return (long)pos;
	r = inc_stream_size(in + pos, in_len - pos, n_values - i);
	return r < 0 ? r : (long)pos + r;
}

/* inc_quantize_value on 8 values at a time (the same steps as vectors);
 * the tail through the portable loop. */
__attribute__((target("avx2")))
void inc_avx2_quantize(float *v, float *res, size_t n, unsigned eb)
{
	unsigned ebase, thr;
	__m256i c_ebase, c_thr1, c_127, c_126, c_8, c_16, c_24, c_ones, c_ff;
	size_t i = 0;

	eb = eb < INC_EB_MIN ? INC_EB_MIN : eb > INC_EB_MAX ? INC_EB_MAX : eb;
	ebase = 127u - eb;
	thr = ebase + (eb + 1u) / 2u;
	c_ebase = _mm256_set1_epi32((int)ebase);
	c_thr1 = _mm256_set1_epi32((int)thr - 1);
	c_127 = _mm256_set1_epi32(127);
	c_126 = _mm256_set1_epi32(126);
	c_8 = _mm256_set1_epi32(8);
	c_16 = _mm256_set1_epi32(16);
	c_24 = _mm256_set1_epi32(24);
	c_ones = _mm256_set1_epi32(-1);
	c_ff = _mm256_set1_epi32(0xff);
	for (; i + 8 <= n; i += 8) {
		__m256 x = _mm256_loadu_ps(v + i);
		__m256i f, e, j0, keep, q;

		if (res)
			x = _mm256_add_ps(x, _mm256_loadu_ps(res + i));
		f = _mm256_castps_si256(x);
		e = _mm256_and_si256(_mm256_srli_epi32(f, 23), c_ff);
		/* j0 = (e >= thr ? 8 : 16) + 127 - e; counts outside 0..31
		 * shift everything out, as do 24..31 by the mask after */
		j0 = _mm256_add_epi32(_mm256_blendv_epi8(c_16, c_8, _mm256_cmpgt_epi32(e, c_thr1)),
				      _mm256_sub_epi32(c_127, e));
		keep = _mm256_and_si256(_mm256_sllv_epi32(c_ones, j0), _mm256_cmpgt_epi32(c_24, j0));
		q = _mm256_andnot_si256(_mm256_cmpgt_epi32(c_ebase, e), _mm256_and_si256(f, keep));
		q = _mm256_blendv_epi8(q, f, _mm256_cmpgt_epi32(e, c_126));
		if (res)
			_mm256_storeu_ps(res + i, _mm256_sub_ps(x, _mm256_castsi256_ps(q)));
		_mm256_storeu_si256((__m256i *)(void *)(v + i), q);
	}
	inc_quantize_scalar(v + i, res ? res + i : NULL, n - i, eb);
}

const struct inc_frame_kernels inc_frame_kernels_avx2 = {
	.stream_compress = k_stream_compress,
	.stream_size = k_stream_size,
	.stream_decompress = k_stream_decompress,
};
