// SPDX-License-Identifier: MIT
/*
 * scale.c - adaptive scaling (docs/userlib.md, "Adaptive scaling"): the
 * call site's state (one exponent per part), the exact power-of-two
 * scaling of a call's values and residual on the way out and back, and
 * the choice of the next exponents from the delivered sum, which every
 * rank holds bit for bit, so every rank chooses the same.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inc_internal.h"

#define HIST_BINS 256           /* biased exponents 0..255 */
#define GROWTH_LOG2 8           /* headroom against overflow: 2^8 x the last sum */

enum policy {
	BALANCED,               /* one headroom for the call, each part relative to its own size */
	EACH,                   /* each part on its own at the ratio, never scaled down */
	HEADROOM,               /* a fixed headroom K */
};

struct inc_scale {
	size_t nparts;
	size_t *ends;           /* nparts ascending ends; NULL: one part, any count */
	enum policy policy;
	double ratio;           /* BALANCED, EACH: the target ratio */
	int headroom;           /* HEADROOM: K */
	int *e;                 /* the exponents of the next call */
	uint64_t *hist;         /* nparts x HIST_BINS: the last sum's exponents */
	int *top;               /* nparts: its largest finite exponent, -1: none */
};

static int create(struct inc_scale **out, size_t nparts, const size_t *ends, enum policy policy,
		  double ratio, int headroom)
{
	struct inc_scale *s;
	size_t i;

	if (!out)
		return INC_E_ARG;
	*out = NULL;
	if (policy == HEADROOM ? headroom < 0 || headroom > 30
			       : !(ratio >= 1 && ratio <= INC_SCALE_RATIO_MAX))
		return INC_E_ARG;
	if (nparts == 0 || nparts > INC_SCALE_PARTS_MAX || (nparts > 1 && !ends))
		return INC_E_ARG;
	for (i = 0; ends && i < nparts; i++)
		if (ends[i] == 0 || (i && ends[i] <= ends[i - 1]))
			return INC_E_ARG;
	s = calloc(1, sizeof(*s));
	if (!s)
		return INC_E_NOMEM;
	s->nparts = nparts;
	s->policy = policy;
	s->ratio = ratio;
	s->headroom = headroom;
	s->e = calloc(nparts, sizeof(*s->e));
	s->hist = calloc(nparts * HIST_BINS, sizeof(*s->hist));
	s->top = calloc(nparts, sizeof(*s->top));
	if (ends) {
		s->ends = malloc(nparts * sizeof(*s->ends));
		if (s->ends)
			memcpy(s->ends, ends, nparts * sizeof(*s->ends));
	}
	if (!s->e || !s->hist || !s->top || (ends && !s->ends)) {
		inc_scale_destroy(s);
		return INC_E_NOMEM;
	}
	*out = s;
	return 0;
}

int inc_scale_create(struct inc_scale **s, size_t nparts, const size_t *ends, double ratio)
{
	return create(s, nparts, ends, BALANCED, ratio ? ratio : INC_SCALE_RATIO_DEFAULT, 0);
}

int inc_scale_create_each(struct inc_scale **s, size_t nparts, const size_t *ends, double ratio)
{
	return create(s, nparts, ends, EACH, ratio ? ratio : INC_SCALE_RATIO_DEFAULT, 0);
}

int inc_scale_create_headroom(struct inc_scale **s, size_t nparts, const size_t *ends, int k)
{
	return create(s, nparts, ends, HEADROOM, 0, k);
}

void inc_scale_destroy(struct inc_scale *s)
{
	if (!s)
		return;
	free(s->ends);
	free(s->e);
	free(s->hist);
	free(s->top);
	free(s);
}

size_t inc_scale_parts(const struct inc_scale *s)
{
	return s ? s->nparts : 0;
}

int inc_scale_get(const struct inc_scale *s, int *e, size_t n)
{
	if (!s || !e || n < s->nparts)
		return INC_E_ARG;
	memcpy(e, s->e, s->nparts * sizeof(*e));
	return (int)s->nparts;
}

int inc_scale_set(struct inc_scale *s, const int *e, size_t n)
{
	size_t i;

	if (!s || !e || n != s->nparts)
		return INC_E_ARG;
	for (i = 0; i < n; i++)
		if (e[i] < -64 || e[i] > 64)
			return INC_E_ARG;
	memcpy(s->e, e, n * sizeof(*e));
	return 0;
}

void inc_scale_reset(struct inc_scale *s)
{
	if (s)
		memset(s->e, 0, s->nparts * sizeof(*s->e));
}

/* ------------------------------------------------------------------------ */
/* Inside a call                                                             */
/* ------------------------------------------------------------------------ */
int inc_scale_fits(const struct inc_scale *s, size_t count)
{
	return !s->ends || s->ends[s->nparts - 1] == count;
}

uint32_t inc_scale_digest(const struct inc_scale *s)
{
	uint32_t h = 2166136261u;       /* FNV-1a over the parts and exponents */
	size_t i;

	h = (h ^ (uint32_t)s->nparts) * 16777619u;
	for (i = 0; i < s->nparts; i++)
		h = (h ^ (uint32_t)(s->e[i] + 64)) * 16777619u;
	return h;
}

static void part_range(const struct inc_scale *s, size_t i, size_t count, size_t *a, size_t *b)
{
	*a = i ? s->ends[i - 1] : 0;
	*b = s->ends ? s->ends[i] : count;
}

/* v[0, n) *= 2^e. Returns how many products are not exact: a finite
 * value that overflows, or (e < 0, unless lossy) a non-zero one that
 * becomes subnormal or zero (a lossy mode drops such values anyway).
 * Eight at a time, so the compiler vectorises the product. */
static size_t scale_values(float *v, size_t n, int e, int lossy)
{
	const float f = ldexpf(1.0f, e), hi = ldexpf(1.0f, e > 0 ? 128 - e : 128),
		    lo = e < 0 && !lossy ? ldexpf(1.0f, -126 - e) : 0;
	size_t j = 0, bad = 0;
	int k;

	for (; j + 8 <= n; j += 8) {
		int nb = 0;

		for (k = 0; k < 8; k++) {
			float a = fabsf(v[j + k]);

			nb += (a >= hi && a <= 0x1.fffffep127f) | (a != 0 && a < lo);
			v[j + k] *= f;
		}
		bad += (size_t)nb;
	}
	for (; j < n; j++) {
		float a = fabsf(v[j]);

		bad += (a >= hi && a <= 0x1.fffffep127f) || (a != 0 && a < lo);
		v[j] *= f;
	}
	return bad;
}

size_t inc_scale_apply(const struct inc_scale *s, int fixed, float *buf, float *res,
		       size_t count, int dir, int lossy)
{
	size_t i, a, b, bad = 0;

	for (i = 0; i < (s ? s->nparts : 1); i++) {
		int e = s ? s->e[i] : fixed;

		if (s)
			part_range(s, i, count, &a, &b);
		else
			a = 0, b = count;
		if (!e)
			continue;
		bad += scale_values(buf + a, b - a, dir * e, lossy);
		if (res)    /* the residual's lowest bits are not a result */
			scale_values(res + a, b - a, dir * e, 1);
	}
	return bad;
}

/* The histogram of the biased exponents of v[0, n) (sign outside the
 * mask); four partial counts so runs of equal exponents do not wait on
 * one counter. */
static void histogram(uint64_t *h, const float *v, size_t n)
{
	uint32_t part[4][HIST_BINS];
	size_t j;
	int i, k;

	memset(part, 0, sizeof(part));
	for (j = 0; j + 4 <= n; j += 4)
		for (k = 0; k < 4; k++) {
			uint32_t u;

			memcpy(&u, &v[j + k], 4);
			part[k][u >> 23 & 0xff]++;
		}
	for (; j < n; j++) {
		uint32_t u;

		memcpy(&u, &v[j], 4);
		part[0][u >> 23 & 0xff]++;
	}
	for (i = 0; i < HIST_BINS; i++)
		h[i] = (uint64_t)part[0][i] + part[1][i] + part[2][i] + part[3][i];
}

/* The codec's tag for a value of biased exponent E (the class does not
 * depend on the mantissa: docs/codec.md), and the bits it spends. */
static unsigned value_tag(unsigned E, unsigned eb)
{
	uint32_t payload;

	return inc_compress_value((uint32_t)E << 23, eb, &payload);
}

static unsigned value_bits(unsigned E, unsigned eb)
{
	return 2 + 8 * inc_tag_bytes(value_tag(E, eb));
}

void inc_scale_classes(uint64_t cls[4], const float *buf, const float *res, size_t count,
		       unsigned eb)
{
	uint64_t h[HIST_BINS];
	float tmp[4096];
	size_t j, n;
	int E;

	memset(h, 0, sizeof(h));
	for (j = 0; j < count; j += n) {
		uint64_t hp[HIST_BINS];
		size_t i;

		n = count - j < 4096 ? count - j : 4096;
		if (res) {
			for (i = 0; i < n; i++)
				tmp[i] = buf[j + i] + res[j + i];
			histogram(hp, tmp, n);
		} else {
			histogram(hp, buf + j, n);
		}
		for (E = 0; E < HIST_BINS; E++)
			h[E] += hp[E];
	}
	for (E = 0; E < HIST_BINS; E++)
		cls[value_tag((unsigned)E, eb) & 3] += h[E];
}

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Bits of the values of histogram h scaled by 2^e (cost[E]: a value of
 * biased exponent E; zeros cost the tag alone whatever e is). */
static double scaled_bits(const uint64_t *h, int top, int e, const unsigned *cost)
{
	double bits = (double)h[0] * cost[0];
	int E;

	for (E = 1; E <= top; E++)
		if (h[E])
			bits += (double)h[E] * cost[clamp(E + e, 0, 254)];
	for (E = 255; E < HIST_BINS; E++)       /* Inf, NaN: raw */
		bits += (double)h[E] * cost[255];
	return bits;
}

/* EACH: the largest e in [0, emax] at which values with histogram h travel
 * at ratio >= R; 0 if none does. Never below 0: a part scaled down would
 * send fewer of its values than unscaled. */
static int for_ratio(const uint64_t *h, int top, const unsigned *cost, double R, int emax)
{
	double n = 0;
	int e, i, best = 0;

	for (i = 0; i < HIST_BINS; i++)
		n += (double)h[i];
	for (e = 1; e <= emax; e++) {
		if (32.0 * n < R * scaled_bits(h, top, e, cost))
			break;
		best = e;
	}
	return best;
}

/* The largest exponent at which no value up to 2^GROWTH_LOG2 times the
 * part's largest sum overflows. */
static int overflow_cap(int top)
{
	return clamp(254 - GROWTH_LOG2 - top, -64, 64);
}

/* BALANCED: part i's largest sum lands in [2^-(K+1), 2^-K), one K for the
 * whole call, the smallest in [0, 40] at which the call travels at ratio
 * >= R (the largest when none does). Parts of small values are scaled up,
 * parts of large values down: the call's bits go where its values are. */
static void balanced(struct inc_scale *s, const unsigned *cost)
{
	double n = 0;
	size_t i;
	int K;

	for (i = 0; i < s->nparts; i++) {       /* the values of the parts that count */
		int E;

		if (s->top[i] < 0)
			continue;
		for (E = 0; E < HIST_BINS; E++)
			n += (double)s->hist[i * HIST_BINS + E];
	}
	for (K = 0; K <= 40; K++) {
		double bits = 0;

		for (i = 0; i < s->nparts; i++) {
			if (s->top[i] < 0)
				continue;
			bits += scaled_bits(s->hist + i * HIST_BINS, s->top[i],
					    126 - K - s->top[i], cost);
		}
		if (32.0 * n >= s->ratio * bits)
			break;
	}
	K = K > 40 ? 40 : K;
	for (i = 0; i < s->nparts; i++)
		if (s->top[i] >= 0)
			s->e[i] = clamp(126 - K - s->top[i], -64, overflow_cap(s->top[i]));
}

/* The delivered sum is zero wherever every rank sent the zero class: such a
 * value was below the call's error bound, not zero. Counted as free, the
 * zeros let the estimate spend precision it did not have, and a part whose
 * sum was all zeros (its values all below the bound) was invisible: it
 * kept its exponent and waited for its residuals to grow. The zeros are
 * spread over the binades below the smallest exponent that traveled at
 * exponent e (in the sum's units), where error feedback leaves them: as
 * many per binade as the lowest travelled binade holds, or, for a part of
 * nothing but zeros, an eighth of them per binade, its largest just below
 * the bound (so it is scaled up until its values travel). Returns the
 * part's largest exponent afterwards, -1 for none. */
static int spread_zeros(uint64_t *h, int top, int e, unsigned eb)
{
	uint64_t rem = h[0], c;
	int E, lo = 1;

	if (!rem)
		return top;
	for (E = 1; E < 255; E++)
		if (value_tag((unsigned)clamp(E + e, 0, 254), eb) & 3) {
			lo = E;
			break;
		}
	if (lo < 2)
		return top;
	if (top >= 0)
		c = h[lo] > h[lo + 1] ? h[lo] : h[lo + 1];
	else
		c = (rem + 7) / 8;
	if (!c)
		c = 1;
	for (E = lo - 1; E >= 1 && rem; E--) {
		uint64_t m = rem < c ? rem : c;

		h[E] += m;
		rem -= m;
	}
	h[0] = rem;
	return top >= 0 ? top : lo - 1;
}

void inc_scale_update(struct inc_scale *s, const float *sum, size_t count, unsigned eb, int ranks)
{
	unsigned cost[256];
	size_t i, a, b;
	int E;

	for (E = 0; E < 256; E++)
		cost[E] = value_bits((unsigned)E, eb);
	for (i = 0; i < s->nparts; i++) {
		uint64_t *h = s->hist + i * HIST_BINS;

		part_range(s, i, count, &a, &b);
		histogram(h, sum + a, b - a);
		s->top[i] = -1;     /* the largest finite, non-zero exponent */
		for (E = 254; E > 0; E--)
			if (h[E]) {
				s->top[i] = E;
				break;
			}
		if (eb)
			s->top[i] = spread_zeros(h, s->top[i], s->e[i], eb);
	}
	if (s->policy == BALANCED) {
		balanced(s, cost);
		return;
	}
	for (i = 0; i < s->nparts; i++) {
		int top = s->top[i], cap;

		if (top < 0)        /* nothing but zeros (and Inf/NaN): keep e */
			continue;
		cap = overflow_cap(top);
		if (s->policy == EACH) {
			s->e[i] = for_ratio(s->hist + i * HIST_BINS, top, cost, s->ratio,
					    clamp(cap, 0, INC_SCALE_EMAX));
		} else {
			/* the largest |sum| / ranks in [2^-(K+1), 2^-K) */
			float mx = 0;
			size_t j;

			part_range(s, i, count, &a, &b);
			for (j = a; j < b; j++)
				if (fabsf(sum[j]) > mx && isfinite(sum[j]))
					mx = fabsf(sum[j]);
			mx /= (float)ranks;
			if (!(mx > 0))
				continue;
			s->e[i] = clamp(-ilogbf(mx) - 1 - s->headroom, -64, cap);
		}
	}
}
