// SPDX-License-Identifier: MIT
/*
 * scale.c - adaptive scaling (docs/userlib.md, "Adaptive scaling"): the
 * call site's state (one exponent per part), the exact power-of-two
 * scaling of a call's values and residual on the way out and back, and
 * the choice of the next exponents from the delivered sum, which every
 * rank holds bit for bit, so every rank chooses the same.
 *
 * A call's passes over its values are fused (inc_scale_out: scaling out
 * and the class statistics; inc_scale_back: scaling back and the sum's
 * histograms) and, where the codec is AVX2, vectorised; the scalar
 * functions they replace (inc_scale_apply, inc_scale_classes,
 * inc_scale_update) stay as their portable path and as the reference
 * that test-scale compares them with, bit for bit.
 */
#include <immintrin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inc_internal.h"

#define HIST_BINS 256           /* biased exponents 0..255 */
#define GROWTH_LOG2 8           /* headroom against overflow: 2^8 x the last sum */

/* LEAST_ERROR: the headrooms K a part may take, 0..40 */
#define LE_KS 41

enum policy {
	BALANCED,               /* one headroom for the call, each part relative to its own size */
	LEAST_ERROR,            /* each part's headroom, the call's squared error least */
	EACH,                   /* each part on its own at the ratio, never scaled down */
	HEADROOM,               /* a fixed headroom K */
};

struct inc_scale {
	size_t nparts;
	size_t *ends;           /* nparts ascending ends; NULL: one part, any count */
	enum policy policy;
	double ratio;           /* BALANCED, EACH: the target ratio */
	int headroom;           /* HEADROOM: K */
	int step;               /* the most an exponent moves per call; 0: any */
	int patience;           /* calls in a row that must ask for a move; 0, 1: one */
	int spread;             /* LEAST_ERROR: the most binades a part's K exceeds balanced's; -1: any */
	int *e;                 /* the exponents of the next call */
	int *was;               /* nparts: the exponents of the call being chosen after */
	int *run;               /* nparts: calls in a row that asked to move, + finer, - coarser */
	uint64_t *hist;         /* nparts x HIST_BINS: the last sum's exponents */
	int *top;               /* nparts: its largest finite exponent, -1: none */
	double *le;             /* LEAST_ERROR: nparts x LE_KS errors, then as many bits */
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
	s->spread = -1;
	s->e = calloc(nparts, sizeof(*s->e));
	s->was = calloc(nparts, sizeof(*s->was));
	s->run = calloc(nparts, sizeof(*s->run));
	s->hist = calloc(nparts * HIST_BINS, sizeof(*s->hist));
	s->top = calloc(nparts, sizeof(*s->top));
	if (policy == LEAST_ERROR)
		s->le = malloc(2 * nparts * LE_KS * sizeof(*s->le));
	if (ends) {
		s->ends = malloc(nparts * sizeof(*s->ends));
		if (s->ends)
			memcpy(s->ends, ends, nparts * sizeof(*s->ends));
	}
	if (!s->e || !s->was || !s->run || !s->hist || !s->top || (ends && !s->ends) ||
	    (policy == LEAST_ERROR && !s->le)) {
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

int inc_scale_create_least_error(struct inc_scale **s, size_t nparts, const size_t *ends,
				 double ratio)
{
	return create(s, nparts, ends, LEAST_ERROR, ratio ? ratio : INC_SCALE_RATIO_DEFAULT, 0);
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
	free(s->was);
	free(s->run);
	free(s->hist);
	free(s->top);
	free(s->le);
	free(s);
}

size_t inc_scale_parts(const struct inc_scale *s)
{
	return s ? s->nparts : 0;
}

/* A per-part array of the state (from) out to to[0..n): the parts, or
 * INC_E_ARG. */
static int parts_out(const struct inc_scale *s, const int *from, int *to, size_t n)
{
	if (!s || !to || n < s->nparts)
		return INC_E_ARG;
	memcpy(to, from, s->nparts * sizeof(*to));
	return (int)s->nparts;
}

/* from[0..n), each within +-bound, into a per-part array of the state: 0
 * or INC_E_ARG. */
static int parts_in(struct inc_scale *s, int *to, const int *from, size_t n, int bound)
{
	size_t i;

	if (!s || !from || n != s->nparts)
		return INC_E_ARG;
	for (i = 0; i < n; i++)
		if (from[i] < -bound || from[i] > bound)
			return INC_E_ARG;
	memcpy(to, from, n * sizeof(*to));
	return 0;
}

int inc_scale_get(const struct inc_scale *s, int *e, size_t n)
{
	return parts_out(s, s ? s->e : NULL, e, n);
}

int inc_scale_set(struct inc_scale *s, const int *e, size_t n)
{
	return parts_in(s, s ? s->e : NULL, e, n, 64);
}

int inc_scale_set_ratio(struct inc_scale *s, double ratio)
{
	if (!ratio)
		ratio = INC_SCALE_RATIO_DEFAULT;
	if (!s || s->policy == HEADROOM || !(ratio >= 1 && ratio <= INC_SCALE_RATIO_MAX))
		return INC_E_ARG;
	s->ratio = ratio;
	return 0;
}

int inc_scale_set_step(struct inc_scale *s, int step)
{
	if (!s || step < 0 || step > 128)
		return INC_E_ARG;
	s->step = step;
	return 0;
}

int inc_scale_set_patience(struct inc_scale *s, int calls)
{
	if (!s || calls < 0 || calls > INC_SCALE_PATIENCE_MAX)
		return INC_E_ARG;
	s->patience = calls;
	return 0;
}

int inc_scale_set_spread(struct inc_scale *s, int binades)
{
	if (!s || s->policy != LEAST_ERROR || binades < -1 || binades > INC_SCALE_EMAX)
		return INC_E_ARG;
	s->spread = binades;
	return 0;
}

int inc_scale_get_runs(const struct inc_scale *s, int *run, size_t n)
{
	return parts_out(s, s ? s->run : NULL, run, n);
}

int inc_scale_set_runs(struct inc_scale *s, const int *run, size_t n)
{
	return parts_in(s, s ? s->run : NULL, run, n, INC_SCALE_PATIENCE_MAX);
}

void inc_scale_reset(struct inc_scale *s)
{
	if (!s)
		return;
	memset(s->e, 0, s->nparts * sizeof(*s->e));
	memset(s->run, 0, s->nparts * sizeof(*s->run));
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

/* Exponent e of part i, lowered to the part's overflow cap (none for a
 * part whose sum had no finite non-zero value). */
static int under_cap(const struct inc_scale *s, size_t i, int e)
{
	return s->top[i] >= 0 && e > overflow_cap(s->top[i]) ? overflow_cap(s->top[i]) : e;
}

/* BALANCED: part i's largest sum lands in [2^-(K+1), 2^-K), one K for the
 * whole call, the smallest in [0, 40] at which the call travels at ratio
 * >= R (the largest when none does). Parts of small values are scaled up,
 * parts of large values down: the call's bits go where its values are. */
/* The values of the parts that count (those with a finite non-zero sum). */
static double counted_values(const struct inc_scale *s)
{
	double n = 0;
	size_t i;
	int E;

	for (i = 0; i < s->nparts; i++)
		for (E = 0; s->top[i] >= 0 && E < HIST_BINS; E++)
			n += (double)s->hist[i * HIST_BINS + E];
	return n;
}

/* Part i's exponent at headroom K (its largest sum in [2^-(K+1), 2^-K)),
 * under its overflow cap. */
static int at_headroom(const struct inc_scale *s, size_t i, int K)
{
	return clamp(126 - K - s->top[i], -64, overflow_cap(s->top[i]));
}

/* BALANCED's headroom: the smallest K in 0..40 at which the call's sums
 * travel at ratio R, else 40. */
static int balanced_k(const struct inc_scale *s, const unsigned *cost)
{
	double n = counted_values(s);
	size_t i;
	int K;

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
	return K > 40 ? 40 : K;
}

static void balanced(struct inc_scale *s, const unsigned *cost)
{
	int K = balanced_k(s, cost);
	size_t i;

	for (i = 0; i < s->nparts; i++)
		if (s->top[i] >= 0)
			s->e[i] = at_headroom(s, i, K);
}

/* LEAST_ERROR: part i's largest sum lands in [2^-(K_i+1), 2^-K_i), each
 * part its own K_i in [0, 40], chosen together so that the call travels at
 * ratio >= R with the least squared error of its values in the caller's
 * units (the largest Ks when no choice reaches R). A value of biased
 * exponent E scaled to E' costs cost[E'] bits and an error that the
 * codec's class at E' decides (docs/codec.md): the value itself in the
 * zero class (its square taken at the binade's mean, 7/3 4^(E-127)), a
 * truncation to a multiple of 2^-k in the classes of k fraction bits
 * (4^-k / 3, in scaled units), none raw. Balanced gives every part the
 * same relative precision; this gives the bits to the parts whose values
 * are largest, as a global largest-first selection would. The choice is
 * the minimum of error + lambda bits per part (a Lagrangian: the total
 * bits fall as lambda grows), lambda bisected over its binary exponent.
 * A spread d (inc_scale_set_spread) bounds every K_i by balanced's K + d:
 * no part is held back more than d binades beyond what balanced would
 * hold back, and the choice at the largest Ks still meets R wherever
 * balanced's does (d = 0: none coarser than balanced's, some finer where
 * the bits allow). */

/* Each counted part's K in 0..kmax minimising err + lam bits (err, bits:
 * nparts x LE_KS); the call's bits at that choice; set: the exponents
 * taken. */
static double le_pick(struct inc_scale *s, const double *err, const double *bits, double lam,
		      int kmax, int set)
{
	double total = 0;
	size_t i;
	int K;

	for (i = 0; i < s->nparts; i++) {
		const double *er = err + i * LE_KS, *bi = bits + i * LE_KS;
		double best;
		int bk = 0;

		if (s->top[i] < 0)
			continue;
		best = er[0] + lam * bi[0];
		for (K = 1; K <= kmax; K++)
			if (er[K] + lam * bi[K] < best)
				best = er[K] + lam * bi[K], bk = K;
		total += bi[bk];
		if (set)
			s->e[i] = at_headroom(s, i, bk);
	}
	return total;
}

static void least_error(struct inc_scale *s, const unsigned *cost, unsigned eb)
{
	double n = counted_values(s), *err = s->le, *bits = s->le + s->nparts * LE_KS, var[256];
	double lo = -600, hi = 600;     /* log2 lambda: errors span 2^-300..2^300 a bit */
	size_t i;
	int K, it, E, kmax = s->spread < 0 ? LE_KS - 1 : balanced_k(s, cost) + s->spread;

	kmax = kmax > LE_KS - 1 ? LE_KS - 1 : kmax;
	/* per scaled exponent: the square of the class's step 2^-k in scaled
	 * units (its truncation error is a third of it), 0 raw, -1 for the
	 * zero class (the value's own square) */
	for (E = 0; E < 256; E++) {
		unsigned tag = value_tag((unsigned)E, eb) & 3;

		var[E] = tag == 0 ? -1 : tag == 3 ? 0 :
			 ldexp(1.0, -2 * (8 * (int)inc_tag_bytes(tag) - 1));
	}
	for (i = 0; i < s->nparts; i++) {
		const uint64_t *h = s->hist + i * HIST_BINS;

		if (s->top[i] < 0)
			continue;
		for (K = 0; K < LE_KS; K++) {
			int e = at_headroom(s, i, K);
			double er = 0;

			for (E = 1; E <= s->top[i]; E++) {
				double v;

				if (!h[E])
					continue;
				v = var[clamp(E + e, 0, 254)];
				if (v < 0)
					er += (double)h[E] * (7.0 / 3) * ldexp(1.0, 2 * (E - 127));
				else if (v > 0)
					er += (double)h[E] / 3 * ldexp(v, -2 * e);
			}
			err[i * LE_KS + K] = er;
			bits[i * LE_KS + K] = scaled_bits(h, s->top[i], e, cost);
		}
	}
	/* the smallest lambda whose choice travels at R: the bits fall as
	 * lambda grows */
	for (it = 0; it < 64; it++) {
		double mid = (lo + hi) / 2;

		if (32.0 * n >= s->ratio * le_pick(s, err, bits, exp2(mid), kmax, 0))
			hi = mid;
		else
			lo = mid;
	}
	le_pick(s, err, bits, exp2(hi), kmax, 1);
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

/* The next exponents from s->hist, the histograms of the delivered sum's
 * parts (sum itself for the headroom policy); lossless: the sum of a
 * lossless all-reduce (inc_scale_prime), whose zeros are zeros and whose
 * choice is not damped. */
static void choose(struct inc_scale *s, const float *sum, size_t count, unsigned eb, int ranks,
		   int lossless)
{
	unsigned cost[256];
	size_t i, a, b;
	int E;

	for (E = 0; E < 256; E++)
		cost[E] = value_bits((unsigned)E, eb);
	memcpy(s->was, s->e, s->nparts * sizeof(*s->e));
	for (i = 0; i < s->nparts; i++) {
		uint64_t *h = s->hist + i * HIST_BINS;

		s->top[i] = -1;     /* the largest finite, non-zero exponent */
		for (E = 254; E > 0; E--)
			if (h[E]) {
				s->top[i] = E;
				break;
			}
		if (eb && !lossless)
			s->top[i] = spread_zeros(h, s->top[i], s->e[i], eb);
	}
	if (s->policy == BALANCED)
		balanced(s, cost);
	else if (s->policy == LEAST_ERROR)
		least_error(s, cost, eb);
	for (i = 0; s->policy != BALANCED && s->policy != LEAST_ERROR && i < s->nparts; i++) {
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
	/* patience: a part moves only when as many calls in a row as the
	 * patience asked it to move the same way. The sum of a call at a finer
	 * exponent than the last one carries what that one held back, so it
	 * asks for a coarser exponent; the coarser call's sum, most of its
	 * values held back, asks for a finer one: alone, each choice answers
	 * the previous and the exponents swing a binade every call. The
	 * overflow cap is obeyed at once. */
	for (i = 0; i < s->nparts; i++) {
		int d = (s->e[i] > s->was[i]) - (s->e[i] < s->was[i]);

		if (lossless || !d)
			s->run[i] = 0;
		else if (s->run[i] * d > 0)     /* the run goes on */
			s->run[i] = clamp(s->run[i] + d, -INC_SCALE_PATIENCE_MAX,
					  INC_SCALE_PATIENCE_MAX);
		else
			s->run[i] = d;
		if (!lossless && s->patience > 1 && d && abs(s->run[i]) < s->patience)
			s->e[i] = under_cap(s, i, s->was[i]);
	}
	/* at most step binades from the exponents of the call just made, but
	 * never above the overflow cap: a choice made from one sum, whose
	 * values include the residuals the previous call held back, swings
	 * (all held back, then all sent) unless it is damped */
	for (i = 0; s->step && !lossless && i < s->nparts; i++) {
		int e = clamp(s->e[i], s->was[i] - s->step, s->was[i] + s->step);

		s->e[i] = under_cap(s, i, e);
	}
}

/* The parts' histograms of sum, then the choice from them (lossless: as
 * choose). */
static void observe(struct inc_scale *s, const float *sum, size_t count, unsigned eb, int ranks,
		    int lossless)
{
	size_t i, a, b;

	for (i = 0; i < s->nparts; i++) {
		part_range(s, i, count, &a, &b);
		histogram(s->hist + i * HIST_BINS, sum + a, b - a);
	}
	choose(s, sum, count, eb, ranks, lossless);
}

void inc_scale_update(struct inc_scale *s, const float *sum, size_t count, unsigned eb, int ranks)
{
	observe(s, sum, count, eb, ranks, 0);
}

int inc_scale_prime(struct inc_scale *s, const float *sum, size_t count, unsigned eb, int ranks)
{
	if (!s || (!sum && count) || !inc_scale_fits(s, count) || eb > 126 || ranks < 1)
		return INC_E_ARG;
	observe(s, sum, count, eb, ranks, 1);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The call's passes, fused and vectorised                                   */
/* ------------------------------------------------------------------------ */
/* The codec's class of a value depends on its biased exponent E alone and
 * does not fall as E grows (docs/codec.md): E < th[0] zero, then 8-bit from
 * th[0], 16-bit from th[1], raw from th[2] (256: never). The thresholds
 * from value_tag itself; 0 if its classes are not so ordered at bound eb
 * (the passes then take the scalar path, which asks value_tag). */
static int class_thresholds(unsigned eb, unsigned th[3])
{
	unsigned E, k;

	for (k = 0; k < 3; k++) {
		th[k] = 256;
		for (E = 0; E < 256; E++)
			if ((value_tag(E, eb) & 3) > k) {
				th[k] = E;
				break;
			}
	}
	for (E = 0; E < 256; E++)
		if ((value_tag(E, eb) & 3) != (unsigned)((E >= th[0]) + (E >= th[1]) + (E >= th[2])))
			return 0;
	return 1;
}

/* What the vector passes need of one part: the exponent and its limits
 * (as scale_values computes them), the class thresholds as |bits| - 1 (a
 * value of exponent >= T has |bits| > (T << 23) - 1), and what they gather. */
struct pass {
	int e, lossy;
	float f, hi, lo;
	int32_t thr_m1[3];
	size_t bad;
	uint64_t ge[3];         /* values of exponent >= th[0], th[1], th[2] */
};

static void pass_init(struct pass *p, int e, int lossy, const unsigned th[3])
{
	int k;

	memset(p, 0, sizeof(*p));
	p->e = e;
	p->lossy = lossy;
	p->f = ldexpf(1.0f, e);
	p->hi = ldexpf(1.0f, e > 0 ? 128 - e : 128);
	p->lo = e < 0 && !lossy ? ldexpf(1.0f, -126 - e) : 0;
	for (k = 0; th && k < 3; k++)
		p->thr_m1[k] = (int32_t)(((uint32_t)th[k] << 23) - 1u);
}

/* One value the scalar way (the vector loops' tails): scaled in place as
 * scale_values does, its product's exactness counted. */
static inline float scale_one(struct pass *p, float *v)
{
	float a = fabsf(*v);

	p->bad += (a >= p->hi && a <= 0x1.fffffep127f) || (a != 0 && a < p->lo);
	*v *= p->f;
	return *v;
}

static inline void class_one(struct pass *p, float x)
{
	uint32_t u;
	int k;

	memcpy(&u, &x, 4);
	u &= 0x7fffffffu;
	for (k = 0; k < 3; k++)
		p->ge[k] += (int32_t)u > p->thr_m1[k];
}

/* The products of 8 lanes that are not exact (scale_values' test). */
__attribute__((target("avx2,popcnt"), always_inline))
static inline unsigned bad_lanes(__m256 x, __m256 absmask, __m256 hi, __m256 lo)
{
	__m256 a = _mm256_and_ps(x, absmask);
	__m256 over = _mm256_and_ps(_mm256_cmp_ps(a, hi, _CMP_GE_OQ),
				    _mm256_cmp_ps(a, _mm256_set1_ps(0x1.fffffep127f), _CMP_LE_OQ));
	__m256 under = _mm256_and_ps(_mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_NEQ_UQ),
				     _mm256_cmp_ps(a, lo, _CMP_LT_OQ));

	return (unsigned)__builtin_popcount((unsigned)_mm256_movemask_ps(_mm256_or_ps(over, under)));
}

/* Out: v[0, n) (and r) times 2^e when e != 0, and with cls the classes of
 * v + r as scaled (r NULL: of v). Per-lane counters of 32 bits, folded
 * every 2^28 groups. */
__attribute__((target("avx2,popcnt")))
static void out_avx2(struct pass *p, float *v, float *r, size_t n, int cls)
{
	const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
	const __m256 f = _mm256_set1_ps(p->f), hi = _mm256_set1_ps(p->hi),
		     lo = _mm256_set1_ps(p->lo);
	const __m256i t0 = _mm256_set1_epi32(p->thr_m1[0]), t1 = _mm256_set1_epi32(p->thr_m1[1]),
		      t2 = _mm256_set1_epi32(p->thr_m1[2]), ai = _mm256_set1_epi32(0x7fffffff);
	size_t j = 0, bad = 0;
	int k;

	while (j + 8 <= n) {
		__m256i g0 = _mm256_setzero_si256(), g1 = g0, g2 = g0;
		size_t end = n - j > ((size_t)8 << 28) ? j + ((size_t)8 << 28) : n;
		uint32_t l0[8], l1[8], l2[8];

		for (; j + 8 <= end; j += 8) {
			__m256 x = _mm256_loadu_ps(v + j), y;
			__m256i u;

			if (p->e) {
				bad += bad_lanes(x, absmask, hi, lo);
				x = _mm256_mul_ps(x, f);
				_mm256_storeu_ps(v + j, x);
			}
			if (r) {
				y = _mm256_loadu_ps(r + j);
				if (p->e) {
					y = _mm256_mul_ps(y, f);
					_mm256_storeu_ps(r + j, y);
				}
				x = _mm256_add_ps(x, y);
			}
			if (cls) {
				u = _mm256_and_si256(_mm256_castps_si256(x), ai);
				g0 = _mm256_sub_epi32(g0, _mm256_cmpgt_epi32(u, t0));
				g1 = _mm256_sub_epi32(g1, _mm256_cmpgt_epi32(u, t1));
				g2 = _mm256_sub_epi32(g2, _mm256_cmpgt_epi32(u, t2));
			}
		}
		p->bad += bad;
		bad = 0;
		_mm256_storeu_si256((__m256i *)(void *)l0, g0);
		_mm256_storeu_si256((__m256i *)(void *)l1, g1);
		_mm256_storeu_si256((__m256i *)(void *)l2, g2);
		for (k = 0; k < 8; k++) {
			p->ge[0] += l0[k];
			p->ge[1] += l1[k];
			p->ge[2] += l2[k];
		}
	}
	for (; j < n; j++) {
		float x = p->e ? scale_one(p, &v[j]) : v[j];

		if (r)
			x += p->e ? (r[j] *= p->f) : r[j];
		if (cls)
			class_one(p, x);
	}
}

/* Back: v[0, n) (and r) times 2^e when e != 0, and with h the histogram
 * of the biased exponents of v as scaled (a partial count per lane, so
 * that runs of equal exponents do not wait on one counter; chunks of at
 * most 2^30 values). */
__attribute__((target("avx2,popcnt")))
static void back_avx2(struct pass *p, float *v, float *r, size_t n, uint64_t *h)
{
	const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
	const __m256 f = _mm256_set1_ps(p->f), hi = _mm256_set1_ps(p->hi),
		     lo = _mm256_set1_ps(p->lo);
	const __m256i ff = _mm256_set1_epi32(0xff);
	uint32_t part[8][HIST_BINS];
	size_t j = 0, bad = 0;
	int i, k;

	if (h)
		memset(h, 0, HIST_BINS * sizeof(*h));
	do {
		size_t end = n - j > ((size_t)1 << 30) ? j + ((size_t)1 << 30) : n;

		if (h)
			memset(part, 0, sizeof(part));
		for (; j + 8 <= end; j += 8) {
			__m256 x = _mm256_loadu_ps(v + j);

			if (p->e) {
				bad += bad_lanes(x, absmask, hi, lo);
				x = _mm256_mul_ps(x, f);
				_mm256_storeu_ps(v + j, x);
				if (r)
					_mm256_storeu_ps(r + j, _mm256_mul_ps(_mm256_loadu_ps(r + j), f));
			}
			if (h) {
				uint32_t E[8];

				_mm256_storeu_si256((__m256i *)(void *)E, _mm256_and_si256(
					_mm256_srli_epi32(_mm256_castps_si256(x), 23), ff));
#pragma GCC unroll 8
				for (k = 0; k < 8; k++)
					part[k][E[k]]++;
			}
		}
		for (; j < end; j++) {
			float x = p->e ? scale_one(p, &v[j]) : v[j];
			uint32_t u;

			if (p->e && r)
				r[j] *= p->f;
			memcpy(&u, &x, 4);
			if (h)
				part[0][u >> 23 & 0xff]++;
		}
		for (i = 0; h && i < HIST_BINS; i++)
			for (k = 0; k < 8; k++)
				h[i] += part[k][i];
	} while (j < n);
	p->bad += bad;
}

/* The vector passes apply at bound eb (0: no classes wanted) when the
 * codec is AVX2 and, for the classes, value_tag's classes are ordered. */
static int vector_ok(unsigned eb, unsigned th[3])
{
	return inc_codec_is_avx2() && (!eb || class_thresholds(eb, th));
}

size_t inc_scale_out(const struct inc_scale *s, int fixed, float *buf, float *res, size_t count,
		     int lossy, unsigned eb, uint64_t cls[4])
{
	unsigned th[3] = { 256, 256, 256 };
	uint64_t ge[3] = { 0, 0, 0 };
	size_t i, a, b, bad = 0;

	if (!vector_ok(cls ? eb : 0, th)) {
		bad = inc_scale_apply(s, fixed, buf, res, count, 1, lossy);
		if (!bad && cls)
			inc_scale_classes(cls, buf, res, count, eb);
		return bad;
	}
	for (i = 0; i < (s ? s->nparts : 1); i++) {
		struct pass p;
		int k;

		if (s)
			part_range(s, i, count, &a, &b);
		else
			a = 0, b = count;
		pass_init(&p, s ? s->e[i] : fixed, lossy, th);
		if (!p.e && !cls)
			continue;
		out_avx2(&p, buf + a, res ? res + a : NULL, b - a, cls != NULL);
		bad += p.bad;
		for (k = 0; k < 3; k++)
			ge[k] += p.ge[k];
	}
	if (!bad && cls) {
		cls[0] += count - ge[0];
		cls[1] += ge[0] - ge[1];
		cls[2] += ge[1] - ge[2];
		cls[3] += ge[2];
	}
	return bad;
}

size_t inc_scale_back(struct inc_scale *s, int fixed, float *buf, float *res, size_t count,
		      int lossy, int update, unsigned eb, int ranks)
{
	unsigned th[3];
	size_t i, a, b, bad = 0;

	update = update && s;
	if (!vector_ok(0, th)) {
		bad = inc_scale_apply(s, fixed, buf, res, count, -1, lossy);
		if (!bad && update)
			inc_scale_update(s, buf, count, eb, ranks);
		return bad;
	}
	for (i = 0; i < (s ? s->nparts : 1); i++) {
		struct pass p;

		if (s)
			part_range(s, i, count, &a, &b);
		else
			a = 0, b = count;
		pass_init(&p, -(s ? s->e[i] : fixed), lossy, NULL);
		if (!p.e && !update)
			continue;
		back_avx2(&p, buf + a, res ? res + a : NULL, b - a,
			  update ? s->hist + i * HIST_BINS : NULL);
		bad += p.bad;
	}
	if (!bad && update)
		choose(s, buf, count, eb, ranks, 0);
	return bad;
}
