// SPDX-License-Identifier: MIT
/*
 * test_scale.c - the adaptive scaling's choice of exponents from a
 * delivered sum (userlib/src/scale.c), without a communicator: what the
 * next call's exponents are for sums whose zeros are the codec's zero
 * class (values below the bound), not zeros; and the call's fused,
 * vectorised passes against the scalar functions, bit for bit.
 *
 *   test-scale
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc_internal.h"
#include "inc_test.h"

#define N 4096
#define EB 10

/* Bits of v[0, n) scaled by 2^e under the codec at bound EB. */
static double bits_at(const float *v, size_t n, int e)
{
	uint64_t cls[4] = { 0 };
	float *t = malloc(n * sizeof(*t));
	size_t i;

	for (i = 0; i < n; i++)
		t[i] = ldexpf(v[i], e);
	inc_scale_classes(cls, t, NULL, n, EB);
	free(t);
	return 2.0 * cls[0] + 10.0 * cls[1] + 18.0 * cls[2] + 34.0 * cls[3];
}

/* A part whose sum came back all zeros had its values below the bound:
 * the next call must scale it up, not keep its exponent (it waited for
 * its residuals to grow past the bound). */
static void all_zero_part(void)
{
	size_t ends[2] = { N / 2, N };
	struct inc_scale *s;
	float *sum = calloc(N, sizeof(*sum));
	int e[2], e0[2], i;

	CHECK(inc_scale_create(&s, 2, ends, 8) == 0, "create");
	for (i = 0; i < N / 2; i++)     /* part 0: values that travel */
		sum[i] = ldexpf(1.0f + (float)(i % 7) / 8, -3 - i % 12);
	inc_scale_update(s, sum, N, EB, 4);
	inc_scale_get(s, e0, 2);
	inc_scale_update(s, sum, N, EB, 4);     /* part 1 zero again */
	inc_scale_get(s, e, 2);
	CHECK(e[1] > e0[1], "an all-zero part is scaled up call after call: %d then %d", e0[1],
	      e[1]);
	CHECK(e[0] == e0[0], "the part that travelled keeps its exponent: %d then %d", e0[0], e[0]);
	inc_scale_destroy(s);

	/* a lossless call (no bound): zeros are zeros, nothing moves */
	CHECK(inc_scale_create(&s, 2, ends, 8) == 0, "create");
	inc_scale_update(s, sum, N, 0, 4);
	inc_scale_get(s, e, 2);
	CHECK(e[1] == 0, "without a bound an all-zero part keeps 0, got %d", e[1]);
	inc_scale_destroy(s);
	free(sum);
}

/* A sum that is 90 % zero class and 10 % values: counted as free, the
 * zeros let the estimate lift the part until the sum's own values would
 * travel far below the target. The chosen exponent must make the sum's
 * travelled values plus its zeros (placed just under the bound, where
 * error feedback leaves them) cost no more than the target allows. */
static void zeros_are_not_free(void)
{
	struct inc_scale *s;
	float *sum = calloc(N, sizeof(*sum)), *model = malloc(N * sizeof(*model));
	double bits;
	int e, i;

	CHECK(inc_scale_create(&s, 1, NULL, 8) == 0, "create");
	for (i = 0; i < N; i++)
		sum[i] = i % 10 ? 0 : ldexpf(1.0f, -2 - i % 7);
	inc_scale_update(s, sum, N, EB, 4);
	inc_scale_get(s, &e, 1);
	/* the zeros' stand-ins: one binade under the smallest that travelled at 0 */
	for (i = 0; i < N; i++)
		model[i] = sum[i] ? sum[i] : ldexpf(1.5f, -EB - 1);
	bits = bits_at(model, N, e);
	CHECK(32.0 * N >= 8 * bits * 0.999,
	      "exponent %d: the modelled sum travels at %.2fx, the target is 8x", e, 32.0 * N / bits);
	inc_scale_destroy(s);
	free(sum);
	free(model);
}

/* Targets the codec cannot meet but by sending nothing are refused. */
static void targets(void)
{
	struct inc_scale *s;

	CHECK(inc_scale_create(&s, 1, NULL, INC_SCALE_RATIO_MAX) == 0, "the largest target");
	inc_scale_destroy(s);
	CHECK(inc_scale_create(&s, 1, NULL, 16) == INC_E_ARG && !s, "16x refused (balanced)");
	CHECK(inc_scale_create_each(&s, 1, NULL, 13) == INC_E_ARG && !s, "13x refused (each)");
	CHECK(inc_scale_create(&s, 1, NULL, 0.5) == INC_E_ARG, "0.5x refused");
}

/* inc_scale_set_ratio: a state whose target is changed chooses, from the
 * same sum, what a state made with that target chooses. */
static void set_ratio(void)
{
	struct inc_scale *lo, *hi, *h;
	float *sum = malloc(N * sizeof(*sum));
	int e_lo, e_hi, e;
	size_t i;

	for (i = 0; i < N; i++)         /* a spread of binades: the target moves K */
		sum[i] = ldexpf(1.0f + (float)(i % 5) / 8, -(int)(i % 14));
	CHECK(inc_scale_create(&lo, 1, NULL, 4) == 0 && inc_scale_create(&hi, 1, NULL, 12) == 0,
	      "create");
	inc_scale_update(lo, sum, N, EB, 4);
	inc_scale_update(hi, sum, N, EB, 4);
	inc_scale_get(lo, &e_lo, 1);
	inc_scale_get(hi, &e_hi, 1);
	CHECK(e_hi < e_lo, "target 12 scales further down than 4: %d, %d", e_hi, e_lo);
	CHECK(inc_scale_set_ratio(lo, 12) == 0, "set_ratio 12");
	inc_scale_update(lo, sum, N, EB, 4);
	inc_scale_get(lo, &e, 1);
	CHECK(e == e_hi, "after set_ratio(12) the exponent of a target-12 state: %d, want %d", e,
	      e_hi);
	CHECK(inc_scale_set_ratio(lo, 13) == INC_E_ARG && inc_scale_set_ratio(lo, 0.5) == INC_E_ARG
	      && inc_scale_set_ratio(NULL, 8) == INC_E_ARG, "13x, 0.5x and no state refused");
	CHECK(inc_scale_set_ratio(lo, 0) == 0, "0: the default target");
	CHECK(inc_scale_create_headroom(&h, 1, NULL, 3) == 0 && inc_scale_set_ratio(h, 8) == INC_E_ARG,
	      "a headroom state has no target");
	inc_scale_destroy(h);
	inc_scale_destroy(lo);
	inc_scale_destroy(hi);
	free(sum);
}

/* ------------------------------------------------------------------------ */
/* The fused, vectorised passes against the scalar functions                 */
/* ------------------------------------------------------------------------ */
static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A value of biased exponent E (0..255: zeros and subnormals, every
 * class boundary of every bound, Inf and NaN) with a mantissa that is
 * zero, all ones or random, either sign. */
static float value_at(unsigned E)
{
	uint32_t m = next() % 3 == 0 ? 0 : next() % 2 ? 0x7fffffu : (uint32_t)next() & 0x7fffffu;
	uint32_t u = (uint32_t)(next() & 1) << 31 | E << 23 | m;
	float x;

	memcpy(&x, &u, 4);
	return x;
}

/* Values for a call: every exponent up to emax (and, when inf, 255). */
static void fill(float *v, size_t n, unsigned emax, int inf)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = value_at(inf && next() % 50 == 0 ? 255 : (unsigned)(next() % (emax + 1)));
}

/* The squared error of v[0, n) scaled by 2^e through the codec at bound
 * EB and back, in v's units. */
static double err_at(const float *v, size_t n, int e)
{
	double er = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t u;
		float q;

		q = ldexpf(v[i], e);
		memcpy(&u, &q, 4);
		u = inc_quantize_value(u, EB);
		memcpy(&q, &u, 4);
		er += ((double)ldexpf(q, -e) - v[i]) * ((double)ldexpf(q, -e) - v[i]);
	}
	return er;
}

/* Least error: a call of one part of large values and one of values 2^-12
 * of them, alike in shape. Balanced gives both the same headroom; least
 * error gives the bits to the large part, meets the target as well, and
 * its call's squared error is smaller. */
/* inc_scale_set_spread on least_error's sums (e_b: balanced's exponents,
 * e_l: least error's unbounded): no part's headroom more than d binades
 * above balanced's, the target met, 40 binades the unbounded choice. */
static void spread(const float *sum, const size_t *ends, const int *e_b, const int *e_l)
{
	struct inc_scale *s;
	int d, e[2], p;

	CHECK(inc_scale_create(&s, 2, ends, 8) == 0 && inc_scale_set_spread(s, 1) == INC_E_ARG,
	      "spread refused on a balanced state");
	inc_scale_destroy(s);
	CHECK(e_b[1] - e_l[1] >= 2, "unbounded, the small part %d binades coarser than balanced",
	      e_b[1] - e_l[1]);
	for (d = 0; d < e_b[1] - e_l[1]; d++) {
		double bits = 0;

		CHECK(inc_scale_create_least_error(&s, 2, ends, 8) == 0 &&
		      inc_scale_set_spread(s, d) == 0, "create, spread %d", d);
		inc_scale_update(s, sum, N, EB, 1);
		inc_scale_get(s, e, 2);
		for (p = 0; p < 2; p++)
			bits += bits_at(sum + p * N / 2, N / 2, e[p]);
		CHECK(e_b[0] - e[0] <= d && e_b[1] - e[1] <= d && e_b[1] - e[1] >= d - 1 &&
		      32.0 * N >= 8 * bits,
		      "spread %d: headrooms %d, %d binades above balanced's, %.2fx", d,
		      e_b[0] - e[0], e_b[1] - e[1], 32.0 * N / bits);
		inc_scale_destroy(s);
	}
	CHECK(inc_scale_create_least_error(&s, 2, ends, 8) == 0 &&
	      inc_scale_set_spread(s, INC_SCALE_EMAX + 1) == INC_E_ARG &&
	      inc_scale_set_spread(s, -2) == INC_E_ARG && inc_scale_set_spread(s, 40) == 0,
	      "spread outside -1..40 refused");
	inc_scale_update(s, sum, N, EB, 1);
	inc_scale_get(s, e, 2);
	CHECK(e[0] == e_l[0] && e[1] == e_l[1], "spread 40: the unbounded choice (%d, %d)", e[0],
	      e[1]);
	inc_scale_destroy(s);
}

static void least_error(void)
{
	size_t ends[2] = { N / 2, N };
	struct inc_scale *bal, *le, *no;
	float *sum = malloc(N * sizeof(*sum));
	double bb = 0, bl = 0, eb_ = 0, el = 0;
	int e_b[2], e_l[2], i, p;

	for (i = 0; i < N / 2; i++) {
		float v = ldexpf(1.0f + (float)(next() % 1024) / 1024, -(int)(next() % 14)) *
			  (next() & 1 ? 1 : -1);

		sum[i] = v;
		sum[N / 2 + i] = ldexpf(v, -12);
	}
	CHECK(inc_scale_create(&bal, 2, ends, 8) == 0 &&
	      inc_scale_create_least_error(&le, 2, ends, 8) == 0, "create");
	CHECK(inc_scale_create_least_error(&no, 2, ends, 13) == INC_E_ARG && !no,
	      "13x refused (least error)");
	inc_scale_update(bal, sum, N, EB, 1);
	inc_scale_update(le, sum, N, EB, 1);
	inc_scale_get(bal, e_b, 2);
	inc_scale_get(le, e_l, 2);
	CHECK(e_b[1] - e_b[0] == 12, "balanced: the same headroom for both parts: %d, %d", e_b[0],
	      e_b[1]);
	CHECK(e_l[0] - e_l[1] > e_b[0] - e_b[1],
	      "least error: the large part finer relative to the small one than balanced: %d, %d "
	      "(balanced %d, %d)", e_l[0], e_l[1], e_b[0], e_b[1]);
	for (p = 0; p < 2; p++) {
		bb += bits_at(sum + p * N / 2, N / 2, e_b[p]);
		bl += bits_at(sum + p * N / 2, N / 2, e_l[p]);
		eb_ += err_at(sum + p * N / 2, N / 2, e_b[p]);
		el += err_at(sum + p * N / 2, N / 2, e_l[p]);
	}
	CHECK(32.0 * N >= 8 * bl, "least error meets the target: %.2fx", 32.0 * N / bl);
	CHECK(el < 0.75 * eb_, "least error: squared error %.3g against balanced's %.3g "
	      "(%.2fx against %.2fx)", el, eb_, 32.0 * N / bl, 32.0 * N / bb);
	spread(sum, ends, e_b, e_l);
	inc_scale_destroy(bal);
	inc_scale_destroy(le);
	free(sum);
}

static struct inc_scale *make_state(int policy, int target, size_t np, const size_t *ends,
				    const int *e)
{
	struct inc_scale *s = NULL;

	if (policy == 0)
		inc_scale_create(&s, np, np > 1 ? ends : NULL, target);
	else if (policy == 1)
		inc_scale_create_each(&s, np, np > 1 ? ends : NULL, target);
	else if (policy == 3)
		inc_scale_create_least_error(&s, np, np > 1 ? ends : NULL, target);
	else
		inc_scale_create_headroom(&s, np, np > 1 ? ends : NULL, target % 8);
	if (s)
		inc_scale_set(s, e, np);
	return s;
}

/*
 * inc_scale_out / inc_scale_back, whichever codec is selected, give the
 * bytes of inc_scale_apply + inc_scale_classes / inc_scale_apply +
 * inc_scale_update: values, residuals, the count of inexact products, the
 * class counts and the next exponents, on counts around the vector width
 * and parts that end anywhere, with and without a residual, a state or a
 * fixed exponent, lossy and lossless, at bounds 1..126.
 */
static void fused_equals_scalar(void)
{
	static const size_t counts[] = { 0, 1, 7, 8, 9, 15, 16, 17, 63, 100, 1000, 4099, 20000 };
	static const unsigned ebs[] = { 1, 2, 3, 6, 7, 8, 9, 10, 12, 15, 16, 23, 24, 30, 60, 125, 126 };
	const size_t nmax = 20000;
	float *v0 = malloc(nmax * 4), *r0 = malloc(nmax * 4), *va = malloc(nmax * 4),
	      *ra = malloc(nmax * 4), *vb = malloc(nmax * 4), *rb = malloc(nmax * 4);
	unsigned long trials = 0, fails = 0, updated = 0, bad_seen = 0;
	int impl;

	for (impl = INC_CODEC_PORTABLE; impl <= INC_CODEC_AVX512; impl++) {
		unsigned t;

		if (inc_codec_select((enum inc_codec_impl)impl))
			continue;
		for (t = 0; t < 3000; t++) {
			size_t n = counts[next() % (sizeof(counts) / sizeof(counts[0]))];
			unsigned eb = ebs[next() % (sizeof(ebs) / sizeof(ebs[0]))];
			int lossy = next() % 4 != 0, with_res = next() % 4 != 0;
			int use_state = next() % 4 != 0, policy = (int)(next() % 4);
			/* mostly calls whose products are exact, so that the
			 * update runs; some that overflow or underflow */
			int wild = next() % 5 == 0;
			size_t np = 1 + next() % 6, ends[6], i;
			int e[6], fixed = 0, ea[6], eb2[6], k, ok = 1;
			struct inc_scale *sa = NULL, *sb = NULL;
			uint64_t ca[4], cb[4];
			size_t bad_a, bad_b, back_a, back_b;

			if (np > n)
				np = n ? n : 1;
			for (k = 0; k < (int)np; k++) {
				e[k] = next() % 5 == 0 ? 0 : (int)(next() % 129) - 64;
				if (!wild && e[k] > 40)
					e[k] = 40;
			}
			for (i = 0; i + 1 < np; i++)   /* ascending ends, the last n */
				ends[i] = (i + 1) * n / np + (next() % 3 == 0 && (i + 1) * n / np + 1 < (i + 2) * n / np);
			ends[np - 1] = n;
			if (n == 0)
				use_state = 0;
			if (!use_state)
				fixed = e[0];
			fill(v0, n, wild ? 255 : 190, 1);
			fill(r0, n, wild ? 255 : 120, 0);
			memcpy(va, v0, n * 4);
			memcpy(vb, v0, n * 4);
			memcpy(ra, r0, n * 4);
			memcpy(rb, r0, n * 4);
			if (use_state) {
				int target = 1 + (int)(next() % 12);

				sa = make_state(policy, target, np, ends, e);
				sb = make_state(policy, target, np, ends, e);
				if (!sa || !sb) {
					CHECK(0, "state of %zu parts", np);
					continue;
				}
			}
			for (k = 0; k < 4; k++)
				ca[k] = cb[k] = next() % 1000;
			/* out */
			bad_a = inc_scale_apply(sa, fixed, va, with_res ? ra : NULL, n, 1, lossy);
			if (!bad_a)
				inc_scale_classes(ca, va, with_res ? ra : NULL, n, eb);
			bad_b = inc_scale_out(sb, fixed, vb, with_res ? rb : NULL, n, lossy, eb, cb);
			ok &= bad_a == bad_b && !memcmp(va, vb, n * 4) && !memcmp(ra, rb, n * 4) &&
			      !memcmp(ca, cb, sizeof(ca));
			/* back: the delivered sum is the values as sent */
			back_a = inc_scale_apply(sa, fixed, va, with_res ? ra : NULL, n, -1, lossy);
			if (!back_a && sa)
				inc_scale_update(sa, va, n, eb, 4);
			back_b = inc_scale_back(sb, fixed, vb, with_res ? rb : NULL, n, lossy, 1, eb, 4);
			ok &= back_a == back_b && !memcmp(va, vb, n * 4) && !memcmp(ra, rb, n * 4);
			if (sa) {
				inc_scale_get(sa, ea, 6);
				inc_scale_get(sb, eb2, 6);
				ok &= !memcmp(ea, eb2, np * sizeof(int));
			}
			updated += sa && !back_a;
			bad_seen += bad_a || back_a;
			trials++;
			if (!ok && fails++ < 5)
				fprintf(stderr, "fused pass differs: codec %s, n %zu, eb %u, lossy %d, "
					"residual %d, state %d (policy %d, %zu parts), fixed %d, bad %zu/%zu "
					"back %zu/%zu\n", inc_codec_name(), n, eb, lossy, with_res,
					use_state, policy, np, fixed, bad_a, bad_b, back_a, back_b);
			inc_scale_destroy(sa);
			inc_scale_destroy(sb);
		}
	}
	inc_codec_select(INC_CODEC_AUTO);
	CHECK(fails == 0, "%lu of %lu calls: the fused passes differ from the scalar ones", fails,
	      trials);
	CHECK(updated > trials / 4 && bad_seen > trials / 20,
	      "the trials reach the update (%lu) and inexact products (%lu) of %lu", updated,
	      bad_seen, trials);
	free(v0);
	free(r0);
	free(va);
	free(ra);
	free(vb);
	free(rb);
}

/* inc_scale_set_step: the exponents move at most step binades a call,
 * towards what the undamped state chooses, and never past the overflow
 * cap; the undamped state jumps. */
static void step(void)
{
	size_t ends[2] = { N / 2, N };
	struct inc_scale *free_s, *damped, *s;
	float *sum = malloc(N * sizeof(*sum));
	int ef[2], ed[2], prev[2], k, i, reached = 0;

	for (i = 0; i < N; i++)         /* part 0 small values (up), part 1 large (down) */
		sum[i] = i < N / 2 ? ldexpf(1.0f + (float)(i % 5) / 8, -20 - i % 9)
				   : ldexpf(1.0f + (float)(i % 3) / 4, 30 - i % 6);
	CHECK(inc_scale_create(&free_s, 2, ends, 8) == 0 && inc_scale_create(&damped, 2, ends, 8) == 0,
	      "create");
	CHECK(inc_scale_set_step(damped, 1) == 0, "set_step 1");
	inc_scale_update(free_s, sum, N, EB, 4);
	inc_scale_get(free_s, ef, 2);
	CHECK(ef[0] > 3 && ef[1] < -3, "undamped: part 0 up, part 1 down by several binades: %d, %d",
	      ef[0], ef[1]);
	for (k = 0; k < 64 && !reached; k++) {
		inc_scale_get(damped, prev, 2);
		inc_scale_update(damped, sum, N, EB, 4);
		inc_scale_get(damped, ed, 2);
		for (i = 0; i < 2; i++)
			if (abs(ed[i] - prev[i]) > 1 || (ed[i] - prev[i]) * (ef[i] - prev[i]) < 0)
				break;
		if (i < 2) {
			CHECK(0, "call %d: part %d moved from %d to %d (towards %d, step 1)", k, i,
			      prev[i], ed[i], ef[i]);
			break;
		}
		reached = ed[0] == ef[0] && ed[1] == ef[1];
	}
	CHECK(reached, "step 1 reaches the undamped exponents (%d, %d) a binade a call: %d, %d after "
	      "%d calls", ef[0], ef[1], ed[0], ed[1], k);
	CHECK(k == (ef[0] > -ef[1] ? ef[0] : -ef[1]), "in as many calls as the largest move: %d", k);
	inc_scale_destroy(damped);

	/* the overflow cap binds whatever the step */
	for (i = 0; i < N; i++)
		sum[i] = ldexpf(1.0f, 120);
	CHECK(inc_scale_create(&s, 1, NULL, 8) == 0 && inc_scale_set_step(s, 1) == 0, "create");
	prev[0] = 64;
	CHECK(inc_scale_set(s, prev, 1) == 0, "set 64");
	inc_scale_update(s, sum, N, EB, 4);
	inc_scale_get(s, ed, 1);
	CHECK(ed[0] <= 254 - 8 - (127 + 120), "a sum near 2^120 at exponent 64: capped to %d, got %d",
	      254 - 8 - (127 + 120), ed[0]);
	CHECK(inc_scale_set_step(s, -1) == INC_E_ARG && inc_scale_set_step(s, 129) == INC_E_ARG &&
	      inc_scale_set_step(NULL, 1) == INC_E_ARG && inc_scale_set_step(s, 0) == 0,
	      "step -1, 129 and no state refused, 0 taken");
	inc_scale_destroy(s);
	inc_scale_destroy(free_s);
	free(sum);
}

/* sum[0, N): the same shape of values, the largest near 2^top2 */
static void shaped(float *sum, int top2)
{
	int i;

	for (i = 0; i < N; i++)
		sum[i] = ldexpf(1.0f + (float)(i % 5) / 8, top2 - i % 9);
}

/* inc_scale_set_patience: sums that alternate between asking for a finer
 * and a coarser exponent swing a damped state a binade every call and
 * leave a patient one where it is; a request repeated moves a patient
 * state after `patience` calls, then every call; the runs of requests
 * are the state a checkpoint needs besides the exponents; the overflow
 * cap binds at once. */
static void patience(void)
{
	float *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	struct inc_scale *imp, *pat, *copy, *fresh;
	int e0, e, ea, eb_, run, k, swings = 0, moved = 0, first = -1, same = 1, differ = 0;

	shaped(a, -20);         /* asks for a fine exponent */
	shaped(b, -18);         /* the same values 4x larger: two binades coarser */
	CHECK(inc_scale_create(&imp, 1, NULL, 8) == 0 && inc_scale_create(&pat, 1, NULL, 8) == 0,
	      "create");
	inc_scale_update(imp, a, N, EB, 4);
	inc_scale_get(imp, &ea, 1);
	inc_scale_update(imp, b, N, EB, 4);
	inc_scale_get(imp, &eb_, 1);
	CHECK(ea == eb_ + 2, "the sums ask for exponents two binades apart: %d, %d", ea, eb_);
	CHECK(inc_scale_set_step(imp, 1) == 0 && inc_scale_set_step(pat, 1) == 0 &&
	      inc_scale_set_patience(pat, 2) == 0, "step 1, patience 2");
	CHECK(inc_scale_set(imp, &ea, 1) == 0 && inc_scale_set(pat, &ea, 1) == 0, "set");
	for (k = 0; k < 20; k++) {
		int before;

		inc_scale_get(imp, &before, 1);
		inc_scale_update(imp, k % 2 ? a : b, N, EB, 4);
		inc_scale_get(imp, &e, 1);
		swings += e != before;
		inc_scale_update(pat, k % 2 ? a : b, N, EB, 4);
		inc_scale_get(pat, &e, 1);
		moved += e != ea;
	}
	CHECK(swings == 20, "alternating sums, step 1: the exponent moves every call (%d of 20)",
	      swings);
	CHECK(moved == 0, "patience 2: it stays at %d (%d calls elsewhere)", ea, moved);

	/* b again and again: a patient state waits one call, then moves a
	 * binade a call (the run goes on) until it is there */
	CHECK(inc_scale_set(pat, &ea, 1) == 0 && inc_scale_set_runs(pat, (int[]){ 0 }, 1) == 0, "set");
	for (k = 0; k < 6; k++) {
		inc_scale_update(pat, b, N, EB, 4);
		inc_scale_get(pat, &e, 1);
		if (first < 0 && e != ea)
			first = k;
	}
	CHECK(first == 1 && e == eb_, "repeated, the request moves it from the second call (%d) and "
	      "it reaches %d (%d)", first, eb_, e);
	inc_scale_get_runs(pat, &run, 1);
	CHECK(run == 0, "there, no call asks to move: run %d", run);

	/* a checkpoint: exponents and runs continue as the state does; the
	 * exponents alone do not */
	CHECK(inc_scale_create(&copy, 1, NULL, 8) == 0 && inc_scale_create(&fresh, 1, NULL, 8) == 0 &&
	      inc_scale_set_step(copy, 1) == 0 && inc_scale_set_patience(copy, 2) == 0 &&
	      inc_scale_set_step(fresh, 1) == 0 && inc_scale_set_patience(fresh, 2) == 0, "create");
	CHECK(inc_scale_set(pat, &ea, 1) == 0, "set");
	inc_scale_update(pat, b, N, EB, 4);     /* one call asked coarser: held */
	inc_scale_get(pat, &e0, 1);
	inc_scale_get_runs(pat, &run, 1);
	CHECK(e0 == ea && run == -1, "one request held: exponent %d, run %d", e0, run);
	inc_scale_set(copy, &e0, 1);
	inc_scale_set_runs(copy, &run, 1);
	inc_scale_set(fresh, &e0, 1);
	for (k = 0; k < 4; k++) {
		int ec, ef;

		inc_scale_update(pat, b, N, EB, 4);
		inc_scale_update(copy, b, N, EB, 4);
		inc_scale_update(fresh, b, N, EB, 4);
		inc_scale_get(pat, &e, 1);
		inc_scale_get(copy, &ec, 1);
		inc_scale_get(fresh, &ef, 1);
		same &= ec == e;
		differ |= ef != e;
	}
	CHECK(same && differ, "restored with its runs the state continues bit for bit (%d), with "
	      "its exponents alone it does not (%d)", same, differ);

	/* the overflow cap binds whatever the patience */
	{
		float *big = malloc(N * sizeof(*big));
		int i, hi = 64;

		for (i = 0; i < N; i++)
			big[i] = ldexpf(1.0f, 120);
		inc_scale_set_patience(pat, 8);
		inc_scale_set(pat, &hi, 1);
		inc_scale_update(pat, big, N, EB, 4);
		inc_scale_get(pat, &e, 1);
		CHECK(e <= 254 - 8 - (127 + 120), "a sum near 2^120 at exponent 64, patience 8: capped "
		      "to %d at once, got %d", 254 - 8 - (127 + 120), e);
		free(big);
	}
	/* a lossless sum primes at once and clears the runs */
	inc_scale_set_runs(pat, (int[]){ -3 }, 1);
	CHECK(inc_scale_prime(pat, a, N, EB, 4) == 0, "prime");
	inc_scale_get(pat, &e, 1);
	inc_scale_get_runs(pat, &run, 1);
	CHECK(e == ea && run == 0, "primed at patience 8: exponent %d (the choice %d), run %d", e, ea,
	      run);
	inc_scale_set_runs(pat, (int[]){ 5 }, 1);
	inc_scale_reset(pat);
	inc_scale_get_runs(pat, &run, 1);
	CHECK(run == 0, "reset clears the runs: %d", run);
	CHECK(inc_scale_set_patience(pat, -1) == INC_E_ARG &&
	      inc_scale_set_patience(pat, INC_SCALE_PATIENCE_MAX + 1) == INC_E_ARG &&
	      inc_scale_set_patience(NULL, 2) == INC_E_ARG && inc_scale_set_patience(pat, 0) == 0 &&
	      inc_scale_set_runs(pat, (int[]){ INC_SCALE_PATIENCE_MAX + 1 }, 1) == INC_E_ARG &&
	      inc_scale_set_runs(pat, (int[]){ 0, 0 }, 2) == INC_E_ARG &&
	      inc_scale_get_runs(pat, &run, 0) == INC_E_ARG && inc_scale_get_runs(NULL, &run, 1) ==
	      INC_E_ARG, "patience -1, above the most and no state, runs out of range or of the "
	      "wrong count refused, patience 0 taken");
	inc_scale_destroy(imp);
	inc_scale_destroy(pat);
	inc_scale_destroy(copy);
	inc_scale_destroy(fresh);
	free(a);
	free(b);
}

/* inc_scale_prime: a damped state primed with a lossless sum starts at the
 * undamped choice (no step-by-step climb), and the sum's zeros are zeros,
 * not values held back below the bound: a part of nothing but zeros keeps
 * its exponent (update scales it up until its values would travel). */
static void prime(void)
{
	size_t ends[2] = { N / 2, N };
	struct inc_scale *free_s, *damped, *zp, *zu;
	float *sum = malloc(N * sizeof(*sum));
	int ef[2], ep[2], e_p[2], e_u[2], i;

	for (i = 0; i < N; i++)
		sum[i] = i < N / 2 ? ldexpf(1.0f + (float)(i % 5) / 8, -20 - i % 9)
				   : ldexpf(1.0f + (float)(i % 3) / 4, 30 - i % 6);
	CHECK(inc_scale_create(&free_s, 2, ends, 8) == 0 && inc_scale_create(&damped, 2, ends, 8) == 0 &&
	      inc_scale_set_step(damped, 1) == 0, "create");
	inc_scale_update(free_s, sum, N, EB, 4);
	inc_scale_get(free_s, ef, 2);
	CHECK(inc_scale_prime(damped, sum, N, EB, 4) == 0, "prime");
	inc_scale_get(damped, ep, 2);
	CHECK(ep[0] == ef[0] && ep[1] == ef[1] && ef[0] > 3 && ef[1] < -3,
	      "a primed damped state starts at the undamped choice (%d, %d): %d, %d", ef[0], ef[1],
	      ep[0], ep[1]);
	/* part 1 all zeros */
	for (i = N / 2; i < N; i++)
		sum[i] = 0.0f;
	CHECK(inc_scale_create(&zp, 2, ends, 8) == 0 && inc_scale_create(&zu, 2, ends, 8) == 0,
	      "create");
	CHECK(inc_scale_prime(zp, sum, N, EB, 4) == 0, "prime");
	inc_scale_update(zu, sum, N, EB, 4);
	inc_scale_get(zp, e_p, 2);
	inc_scale_get(zu, e_u, 2);
	CHECK(e_p[1] == 0 && e_u[1] > 0 && e_p[0] == e_u[0] && e_p[0] > 3,
	      "an all-zero part: primed %d (kept), updated %d (scaled up); the other part %d, %d",
	      e_p[1], e_u[1], e_p[0], e_u[0]);
	CHECK(inc_scale_prime(NULL, sum, N, EB, 4) == INC_E_ARG &&
	      inc_scale_prime(damped, sum, N - 1, EB, 4) == INC_E_ARG &&
	      inc_scale_prime(damped, NULL, N, EB, 4) == INC_E_ARG &&
	      inc_scale_prime(damped, sum, N, 127, 4) == INC_E_ARG &&
	      inc_scale_prime(damped, sum, N, EB, 0) == INC_E_ARG,
	      "no state, a count not the state's, no sum, eb 127 and 0 ranks refused");
	inc_scale_destroy(free_s);
	inc_scale_destroy(damped);
	inc_scale_destroy(zp);
	inc_scale_destroy(zu);
	free(sum);
}

int main(void)
{
	targets();
	set_ratio();
	step();
	patience();
	prime();
	all_zero_part();
	zeros_are_not_free();
	least_error();
	fused_equals_scalar();
	return inc_test_done();
}
