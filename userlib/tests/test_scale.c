// SPDX-License-Identifier: MIT
/*
 * test_scale.c - the adaptive scaling's choice of exponents from a
 * delivered sum (userlib/src/scale.c), without a communicator: what the
 * next call's exponents are for sums whose zeros are the codec's zero
 * class (values below the bound), not zeros.
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

int main(void)
{
	targets();
	all_zero_part();
	zeros_are_not_free();
	return inc_test_done();
}
