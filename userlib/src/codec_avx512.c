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
 * 256-entry tables (or, in the window walk, from the window by nibbles);
 * the tag-3 lanes are the ones whose lowest byte is in it, one pext.
 *
 * The window walk below needs 130 readable bytes and room for 16 groups,
 * the pair loop after it 68 bytes (34 a group); the rest of a stream goes
 * through the AVX2 decoder, which leaves a partial last group and short
 * input to the model, so bounds and error codes are the model's.
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

/*
 * vpexpandb with a zeroed destination. On Zen 5 (and likely Zen 4) the
 * instruction waits for the old value of its destination register even
 * when zero-masking, so the compiler's reuse of one register made every
 * expansion wait for the previous group's whole computation (14 cycles
 * a pair instead of 4.7 in a loop of pairs). A vpxor of the destination
 * first, which the renamer recognises, breaks that dependency; the
 * compiler would fold an intrinsic's zero back into {z}, hence the asm.
 */
__attribute__((target(AVX512_TARGET), always_inline))
static inline __m256i expand_bytes(uint32_t m, __m256i src)
{
	__m256i d;

	__asm__("vpxor %x0, %x0, %x0\n\tvpexpandb %2, %0%{%1%}%{z%}"
		: "=&x"(d) : "Yk"((__mmask32)m), "v"(src));
	return d;
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
	__m256i qa = expand_bytes((uint32_t)m,
		_mm256_loadu_si256((const __m256i *)(const void *)(a + 2)));
	__m256i qb = expand_bytes((uint32_t)(m >> 32),
		_mm256_loadu_si256((const __m256i *)(const void *)(b + 2)));

	return lanes_values(_mm512_inserti64x4(_mm512_castsi256_si512(qa), qb, 1), m);
}

/* The 8 values of the full group at g (tag word tw, 34 readable bytes). */
__attribute__((target(AVX512_TARGET), always_inline))
static inline __m256i group_values(const uint8_t *g, unsigned tw)
{
	uint32_t m = group_mask(tw);

	return lanes_values256(expand_bytes((uint32_t)m,
		_mm256_loadu_si256((const __m256i *)(const void *)(g + 2))), m);
}

static inline unsigned tag_word(const uint8_t *g)
{
	uint16_t tw;

	memcpy(&tw, g, 2);      /* little-endian host */
	return tw;
}

/*
 * The walk. A group's size depends on its tag word, so the positions of
 * a stream's groups form a chain (load the tag word, look up the size,
 * add) that, one group at a time, costs a load and a table look-up per
 * group (about 10 cycles on Zen 5: 9-10 GB/s whatever the decoding).
 * Here the chain goes a 64-byte window at a time: for every byte offset j
 * of the window, next[j] = j + the size of a group whose tag word were at
 * j (two nibble look-ups per byte, vpshufb); then pairs of groups,
 * pnext[j] = next[next[j]], or j itself when the second group's tag word
 * is not in the window (next[j] > 62) or j > 62 (a fixed point: the
 * window ends there). Squaring pnext three times (vpermt2b: offsets up to
 * 96 index a 128-entry table whose upper half is the identity) gives
 * pnext^8, and pnext^8[0] is where the 9th pair starts, or the fixed
 * point if the window holds fewer: the next window starts there, about
 * ten vector steps after this one's load. The pairs' offsets P[k] =
 * pnext^k[0] (k < 8, from the squares by the bits of k), the second
 * groups' Q[k] = next[P[k]], and the pairs' vpexpandb masks (each pair's
 * two tag words gathered from the window with vpermb, cut into nibbles
 * with vpmultishiftqb, a 16-entry nibble table) go to the stack, and the
 * window's pairs are decoded from there, off the chain. Gradient data
 * (ratio about 9) fills the 8 pairs of most windows; data that compresses
 * little (a pair or two a window) would pay the window's ten steps for
 * each pair, so decode() and the multi-stream decoder send it through
 * pairs one at a time instead.
 */
struct walked {
	size_t groups, bytes;
};

/* Offsets in a window: 0..63 and, in the upper half of a two-register
 * table, 64..127. */
#define WIN_LAST 62u              /* last offset whose tag word is inside */
/* Readable bytes from a window's start: a pair at most at 62 + 34. */
#define WIN_ROOM (WIN_LAST + 2u * INC_GROUP_MAX_BYTES)

struct win_consts {
	__m512i iota, iota_hi, plus1, plus2, lo4, nbytes, sel, sel_off, shifts, nibmask,
		odd8;
};

__attribute__((target(AVX512_TARGET)))
static void win_consts_init(struct win_consts *c)
{
	uint8_t b[7][64];
	unsigned j, t;

	for (j = 0; j < 64; j++) {
		b[0][j] = (uint8_t)j;
		b[1][j] = (uint8_t)(64u + j);
		b[2][j] = (uint8_t)((j + 1u) & 63u);
		t = j & 15u;
		/* bytes of payload of the nibble's two tags */
		b[3][j] = (uint8_t)(inc_tag_bytes(t) + inc_tag_bytes(t >> 2));
		/* the vpexpandb mask byte of the nibble's two lanes (a 16-entry
		 * table repeated: vpermb reads 6 index bits) */
		b[4][j] = (uint8_t)(lane_bytes[t] & 0xffu);
		/* pair k's qword: P[k], P[k] + 1, Q[k], Q[k] + 1 (Q in the
		 * second table) */
		b[5][j] = (uint8_t)(((j & 7u) < 2u ? 0u : (j & 7u) < 4u ? 64u : 0u) + j / 8u);
		b[6][j] = (uint8_t)((j & 7u) == 1u || (j & 7u) == 3u);
	}
	c->iota = _mm512_loadu_si512(b[0]);
	c->iota_hi = _mm512_loadu_si512(b[1]);
	c->plus1 = _mm512_loadu_si512(b[2]);
	c->plus2 = _mm512_add_epi8(c->iota, _mm512_set1_epi8(2));
	c->lo4 = _mm512_set1_epi8(0x0f);
	c->nbytes = _mm512_loadu_si512(b[3]);
	c->nibmask = _mm512_loadu_si512(b[4]);
	c->sel = _mm512_loadu_si512(b[5]);
	c->odd8 = _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, (long long)0xff00ff00ff00ff00ull);
	c->sel_off = _mm512_loadu_si512(b[6]);
	/* vpmultishiftqb: byte i of a qword takes bits 4i.. (nibble i) */
	c->shifts = _mm512_set1_epi64(0x1c1814100c080400ll);
}

/* How the walk stores: normal stores; non-temporal ones to a 64-byte
 * aligned output; or non-temporal ones to an output 4s bytes past a line
 * boundary (0 < s < 16, as malloc's large blocks, 16 bytes past a page),
 * each aligned line made of the previous pair's last s values and this
 * pair's first 16 - s, with a masked normal store for the first and the
 * last line. */
enum { ST_NORMAL, ST_NT, ST_NT_SHIFT };

/* Store v to dst, normal or non-temporal (dst 64-byte aligned). */
__attribute__((target(AVX512_TARGET), always_inline))
static inline void store64(uint8_t *dst, __m512i v, int nt)
{
	if (nt)
		_mm512_stream_si512((void *)dst, v);
	else
		_mm512_storeu_si512((void *)dst, v);
}

/* ST_NT_SHIFT's state: the next line, the previous pair's values, and the
 * vpermt2d index that makes a line of them and the next pair's. */
struct sink {
	uint8_t *line;
	__m512i prev, idx;
};

/* The pair v of 16 values for out + 32 g (dst), stored as st says. */
__attribute__((target(AVX512_TARGET), always_inline))
static inline void pair_out(uint8_t *dst, __m512i v, int st, struct sink *sk)
{
	if (st == ST_NT_SHIFT) {
		_mm512_stream_si512((void *)sk->line,
				    _mm512_permutex2var_epi32(sk->prev, sk->idx, v));
		sk->line += 64;
		sk->prev = v;
	} else {
		store64(dst, v, st == ST_NT);
	}
}

/* One window's pairs: their offsets from cur (P[k] at pq[k], Q[k] at
 * pq[8 + k]) and vpexpandb masks, how many of the 8 are real, and how far
 * the next window starts. */
struct window {
	const uint8_t *cur;
	unsigned cnt, end;
	uint8_t pq[16];
	uint64_t msk[8];
};

/* The window at cur (WIN_ROOM readable bytes): up to 8 pairs. */
__attribute__((target(AVX512_TARGET), always_inline))
static inline void window_scan(const uint8_t *cur, const struct win_consts *c,
			       struct window *wd)
{
	__m512i w = _mm512_loadu_si512((const void *)cur);
	__m512i nb = _mm512_add_epi8(
		_mm512_shuffle_epi8(c->nbytes, _mm512_and_si512(w, c->lo4)),
		_mm512_shuffle_epi8(c->nbytes, _mm512_and_si512(_mm512_srli_epi16(w, 4), c->lo4)));
	__m512i next = _mm512_add_epi8(_mm512_add_epi8(nb, c->plus2),
				       _mm512_permutexvar_epi8(c->plus1, nb));
	__mmask64 inside = _mm512_cmple_epu8_mask(next, _mm512_set1_epi8(WIN_LAST)) &
			   (((__mmask64)1 << (WIN_LAST + 1)) - 1);
	__m512i p1 = _mm512_mask_permutexvar_epi8(c->iota, inside, next, next);
	__m512i p2 = _mm512_permutex2var_epi8(p1, p1, c->iota_hi);
	__m512i p4 = _mm512_permutex2var_epi8(p2, p2, c->iota_hi);
	__m512i p8 = _mm512_permutex2var_epi8(p4, p4, c->iota_hi);
	/* P[k] = pnext^k[0], k < 8: p1[0] in the odd lanes, then p2, p4 by
	 * the bits of k (the squares commute). */
	__m512i pk = _mm512_and_si512(_mm512_broadcastb_epi8(_mm512_castsi512_si128(p1)),
				      c->odd8);
	__m512i qk, idx;

	/* Where the 9th pair starts, or the window's end: the next window. */
	wd->end = (unsigned)_mm_cvtsi128_si32(_mm512_castsi512_si128(p8)) & 0xffu;
	wd->cur = cur;
	pk = _mm512_mask2_permutex2var_epi8(p2, pk, 0xcc, c->iota_hi);
	pk = _mm512_mask2_permutex2var_epi8(p4, pk, 0xf0, c->iota_hi);
	qk = _mm512_permutexvar_epi8(pk, next);
	wd->cnt = (unsigned)__builtin_popcount((unsigned)(_mm512_cmplt_epu8_mask(
		pk, _mm512_set1_epi8((char)wd->end)) & 0xffu));
	_mm_storeu_si128((__m128i *)(void *)wd->pq, _mm_unpacklo_epi64(
		_mm512_castsi512_si128(pk), _mm512_castsi512_si128(qk)));
	idx = _mm512_add_epi8(_mm512_permutex2var_epi8(pk, c->sel, qk), c->sel_off);
	_mm512_storeu_si512((void *)wd->msk, _mm512_permutexvar_epi8(
		_mm512_multishift_epi64_epi8(c->shifts, _mm512_permutexvar_epi8(idx, w)),
		c->nibmask));
}

/* The window's cnt pairs, from group g on (out). */
__attribute__((target(AVX512_TARGET), always_inline))
static inline void window_decode(const struct window *wd, uint8_t *out, int st,
				 struct sink *sk)
{
	unsigned k;

	for (k = 0; k < wd->cnt; k++) {
		uint64_t m = wd->msk[k];
		__m256i qa = expand_bytes((uint32_t)m, _mm256_loadu_si256(
			(const __m256i *)(const void *)(wd->cur + wd->pq[k] + 2)));
		__m256i qb = expand_bytes((uint32_t)(m >> 32), _mm256_loadu_si256(
			(const __m256i *)(const void *)(wd->cur + wd->pq[8 + k] + 2)));

		pair_out(out + 64 * k, lanes_values(_mm512_inserti64x4(
			_mm512_castsi256_si512(qa), qb, 1), m), st, sk);
	}
}

/*
 * Decode full groups of in[0..in_len) into out, at most `groups`, while
 * the vector paths have room, storing as st says (ST_NT_SHIFT: the window
 * walk's; the pairs after it store normally).
 * windows: the window walk first, else pairs one at a time only.
 * Software-pipelined: the next window is scanned before this one's pairs
 * are decoded, so that the scan (the chain) is not queued behind the
 * decoding in the out-of-order core (in the other order the two took the
 * sum of their times, 15.5 GB/s against 31-32 for each alone).
 */
__attribute__((target(AVX512_TARGET), always_inline))
static inline struct walked walk(const uint8_t *in, size_t in_len, size_t groups,
				 uint8_t *out, int st, int windows)
{
	struct win_consts c;
	struct window wd[2];
	struct sink sk;
	size_t pos = 0, g = 0;
	unsigned cw = 0, shift = ((unsigned)(uintptr_t)out & 63u) / 4u;

	if (!windows || in_len < WIN_ROOM + 2 * INC_GROUP_MAX_BYTES || groups < 18) {
		st = st == ST_NT ? ST_NT : ST_NORMAL;
		goto pairs;
	}
	if (st == ST_NT_SHIFT) {
		/* The first pair, through the chain; its line's first s
		 * values are not ours. */
		const uint8_t *b = in + group_len[tag_word(in)];
		__m512i v = pair_values(in, tag_word(in), b, tag_word(b));
		uint32_t ix[16];
		unsigned i;

		for (i = 0; i < 16; i++)
			ix[i] = i < shift ? 16u - shift + i : 16u + i - shift;
		sk.idx = _mm512_loadu_si512(ix);
		sk.line = out - 4 * shift;
		_mm512_mask_storeu_epi32(sk.line, (__mmask16)(0xffffu << shift),
					 _mm512_permutex2var_epi32(_mm512_setzero_si512(), sk.idx, v));
		sk.line += 64;
		sk.prev = v;
		pos = (size_t)(b - in) + group_len[tag_word(b)];
		g = 2;
	}
	win_consts_init(&c);
	window_scan(in + pos, &c, &wd[0]);
	for (;;) {
		struct window *now = &wd[cw];
		size_t npos = pos + now->end, ng = g + 2 * now->cnt;

		if (in_len - npos < WIN_ROOM || groups - ng < 16) {
			window_decode(now, out + 32 * g, st, &sk);
			pos = npos;
			g = ng;
			break;
		}
		window_scan(in + npos, &c, &wd[cw ^ 1]);
		window_decode(now, out + 32 * g, st, &sk);
		pos = npos;
		g = ng;
		cw ^= 1;
	}
	if (st == ST_NT_SHIFT) {
		/* The last pair's last s values, in a line of their own. */
		_mm512_mask_storeu_epi32(sk.line, (__mmask16)((1u << shift) - 1u),
					 _mm512_permutex2var_epi32(sk.prev, sk.idx,
								   _mm512_setzero_si512()));
		st = ST_NORMAL;
	}
pairs:
	/* Pairs one at a time while 68 bytes are left. */
	while (in_len - pos >= 2 * INC_GROUP_MAX_BYTES && groups - g >= 2) {
		const uint8_t *a = in + pos, *b;
		unsigned twa = tag_word(a), twb;

		b = a + group_len[twa];
		twb = tag_word(b);
		pos = (size_t)(b - in) + group_len[twb];
		store64(out + 32 * g, pair_values(a, twa, b, twb), st == ST_NT);
		g += 2;
	}
	return (struct walked){ g, pos };
}

__attribute__((target(AVX512_TARGET), noinline))
static struct walked walk_normal(const uint8_t *in, size_t in_len, size_t groups,
				 uint8_t *out, int windows)
{
	return walk(in, in_len, groups, out, ST_NORMAL, windows);
}

__attribute__((target(AVX512_TARGET), noinline))
static struct walked walk_nt(const uint8_t *in, size_t in_len, size_t groups,
			     uint8_t *out, int windows)
{
	struct walked d = walk(in, in_len, groups, out, ST_NT, windows);

	_mm_sfence();
	return d;
}

__attribute__((target(AVX512_TARGET), noinline))
static struct walked walk_nt_shift(const uint8_t *in, size_t in_len, size_t groups,
				   uint8_t *out, int windows)
{
	struct walked d = walk(in, in_len, groups, out, ST_NT_SHIFT, windows);

	_mm_sfence();
	return d;
}

/* Outputs from this size on: non-temporal stores. */
#ifndef NT_MIN_BYTES
#define NT_MIN_BYTES (8u << 20)
#endif

/* n values of in[0..in_len) into out (capacity checked); nt: with
 * non-temporal stores where the output's alignment allows (a multiple of
 * 4 bytes). */
__attribute__((target(AVX512_TARGET)))
static long decode(const uint8_t *in, size_t in_len, size_t n_values, uint8_t *out,
		   size_t out_cap, int nt)
{
	/* The window walk when the stream averages 10 bytes a group or less
	 * (3 pairs a window or more; a window's chain takes about the time of
	 * 4-5 groups one at a time), else pairs one at a time. */
	int dense = in_len / 10u <= n_values / INC_GROUP_VALUES;
	size_t pos, i;
	struct walked d;
	long r;

	pthread_once(&tbl_once, tbl_init);
	if (nt && !((uintptr_t)out & 63u))
		d = walk_nt(in, in_len, n_values / INC_GROUP_VALUES, out, dense);
	else if (nt && !((uintptr_t)out & 3u))
		d = walk_nt_shift(in, in_len, n_values / INC_GROUP_VALUES, out, dense);
	else
		d = walk_normal(in, in_len, n_values / INC_GROUP_VALUES, out, dense);
	pos = d.bytes;
	i = INC_GROUP_VALUES * d.groups;
	if (i == n_values)
		return (long)pos;
	/* The rest (short input, a partial last group): the AVX2 decoder,
	 * then the model. n_values <= out_cap / 4, so the rest's capacity
	 * check passes too. */
	r = inc_avx2_decompress(in + pos, in_len - pos, n_values - i,
				(float *)(void *)(out + 4 * i), out_cap - 4 * i);
	return r < 0 ? r : (long)pos + r;
}

long inc_avx512_decompress(const void *in, size_t in_len, size_t n_values,
			   float *out, size_t out_cap)
{
	if ((!in && in_len) || (!out && n_values))
		return INC_EINVAL;
	if (n_values > out_cap / 4)
		return INC_ENOSPC;
	return decode(in, in_len, n_values, (uint8_t *)out, out_cap, 0);
}

/*
 * Multi-stream decode of sparse streams (more than 6 bytes a group on
 * average: fewer than 5 pairs a window), where the window walk pays its
 * chain for few pairs: as in codec_avx2.c, the chains of the k
 * parts (load the tag word, look up the group size, add) overlap, two
 * groups of each part per iteration, with one bounds check per block of
 * iterations. With non-temporal stores each part first decodes single
 * groups until its output is 64-byte aligned and it is INC_PARTS_STAGGER
 * groups per part index ahead (so that the parts' store streams do not sit
 * at the same offset in their pages, see codec_avx2.c).
 */
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
		while ((g[j] < INC_PARTS_STAGGER * j || (nt && ((uintptr_t)out[j] & 63u))) &&
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

/*
 * Multi-stream decode: dense parts one after the other, each through the
 * window walk, whose chain does not need the parts' chains to overlap (nor,
 * one part at a time, a stagger between their store streams); sparse ones
 * interleaved (walk_parts). Large outputs go out with non-temporal stores.
 */
long inc_avx512_decompress_parts(const struct inc_part *p, unsigned k)
{
	size_t pos[INC_CODEC_PARTS_MAX] = { 0 }, gd[INC_CODEC_PARTS_MAX] = { 0 };
	size_t bytes = 0, len = 0, groups = SIZE_MAX;
	unsigned j;
	int nt;
	long r;

	if (k > INC_CODEC_PARTS_MAX)
		return INC_EINVAL;
	pthread_once(&tbl_once, tbl_init);
	for (j = 0; j < k; j++) {
		bytes += 4 * p[j].n;
		len += p[j].len;
		if (p[j].n / INC_GROUP_VALUES < groups)
			groups = p[j].n / INC_GROUP_VALUES;
	}
	/* Parts start at multiples of 8 values (32 bytes) from the first. */
	nt = bytes >= NT_MIN_BYTES && k > 0 && ((uintptr_t)p[0].out & 31u) == 0;
	if (k >= 2 && groups > 0 && len / 6u > bytes / 32u)
		walk_parts_k(p, pos, gd, k, nt, groups);
	/* The rest of each part (all of it when dense): the single-stream
	 * path, whose result for the rest plus the bytes walked is the
	 * model's for the whole part. */
	for (j = 0; j < k; j++) {
		r = decode(p[j].in + pos[j], p[j].len - pos[j],
			   p[j].n - INC_GROUP_VALUES * gd[j], p[j].out + 32 * gd[j],
			   4 * (p[j].n - INC_GROUP_VALUES * gd[j]), nt);
		if (r < 0)
			return r;
		if ((size_t)r != p[j].len - pos[j])
			return INC_EMALFORMED;
	}
	return 0;
}
