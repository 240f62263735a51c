// SPDX-License-Identifier: MIT
/*
 * test_sketch.c - lossless homomorphic compression (codec_sketch.c):
 *   - geometry: at least gamma cells per candidate, batch widths powers of
 *     two up to 1024, the Bloom filter only when smaller than the bitmap;
 *   - recovery of random sparse vectors of integers (sums exact in float,
 *     so a recovered value must equal the input bit for bit) over sizes,
 *     densities and gamma = 1.23, 1.3, 1.5, 2: the recovery rate printed per
 *     gamma; from the default 1.3 up at most a stuck pair in 2 of 152
 *     trials, never a core; at 1.23 at least 80% of all candidates peeled. Below the threshold (gamma 0.8, 1.0) the estimate
 *     is used and counted: peeled + estimated = candidates, every peeled
 *     value and every non-candidate exact, wrong values <= estimated;
 *   - homomorphism: for 2..8 workers with different supports, decoding the
 *     sum of their sketches with the OR of their indices gives the sum of
 *     the inputs (integers: bit for bit; floats: within float
 *     re-association: |error| <= 2^-18 of the largest sum of magnitudes);
 *   - the Bloom index at high sparsity: smaller than the bitmap, false
 *     positives recovered as zeros, exact recovery;
 *   - self-contained messages: round trip, every truncation INC_ETRUNC, a
 *     trailing byte, bad magic, bad widths, bits past n INC_EMALFORMED,
 *     another n INC_E_ARG, a short output capacity INC_ENOSPC, and 20000
 *     random corruptions of valid messages that never crash (ASan) and
 *     either fail cleanly or decode n values;
 *   - zeros: an all-zero input has no cells and decodes to +0.0 (also -0.0).
 * Last line "N passed, N failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc_test.h"
#include "inceptionn/inceptionn.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	uint64_t x = (rng += 0x9e3779b97f4a7c15ull);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static double unif(void)
{
	return (double)(next() >> 11) / 9007199254740992.0;
}

/* A sparse vector: each value non-zero with probability dens; integers in
 * +-[1, 1000] or floats of mixed magnitude. */
static size_t fill(float *x, size_t n, double dens, int integers)
{
	size_t i, nnz = 0;

	for (i = 0; i < n; i++) {
		if (unif() >= dens) {
			x[i] = 0.0f;
			continue;
		}
		if (integers)
			x[i] = (float)(int)(next() % 1000 + 1) * (next() & 1 ? -1.0f : 1.0f);
		else
			x[i] = (float)((unif() - 0.5) * pow(10.0, -(double)(next() % 5)));
		nnz += x[i] != 0.0f;
	}
	return nnz;
}

/* Index, sketch and decode of the sum of w vectors x[0..w) of n values. */
static int roundtrip(float *const *x, unsigned w, size_t n, enum inc_sketch_index ik,
		     double gamma, uint64_t key, float *out, struct inc_sketch_stats *st,
		     struct inc_sketch_geom *gout)
{
	struct inc_sketch_geom g;
	uint64_t nnz = 0;
	uint32_t *idx;
	float *cells, *part;
	size_t i, nc;
	unsigned k;
	int rc;

	for (k = 0; k < w; k++)
		for (i = 0; i < n; i++)
			nnz += x[k][i] != 0.0f;
	rc = inc_sketch_geom_index(&g, n, ik, nnz, key);
	if (rc)
		return rc;
	idx = calloc(inc_sketch_index_words(&g) + 1, 4);
	for (k = 0; k < w; k++) {
		/* each worker's own index, ORed */
		uint32_t *mine = calloc(inc_sketch_index_words(&g) + 1, 4);

		inc_sketch_index_add(&g, x[k], mine);
		for (i = 0; i < inc_sketch_index_words(&g); i++)
			idx[i] |= mine[i];
		free(mine);
	}
	rc = inc_sketch_geom_cells(&g, inc_sketch_candidates(&g, idx), gamma);
	if (rc) {
		free(idx);
		return rc;
	}
	nc = inc_sketch_cells(&g);
	cells = calloc(nc + 1, 4);
	part = calloc(nc + 1, 4);
	for (k = 0; k < w; k++) {
		/* each worker's own sketch, added cell by cell */
		memset(part, 0, (nc + 1) * 4);
		inc_sketch_encode(&g, x[k], part);
		for (i = 0; i < nc; i++)
			cells[i] += part[i];
	}
	rc = inc_sketch_decode(&g, idx, cells, out, st);
	if (gout)
		*gout = g;
	free(idx);
	free(cells);
	free(part);
	return rc;
}

static void check_geometry(void)
{
	static const uint64_t cands[] = { 0, 1, 2, 3, 31, 100, 1000, 4095, 100000, 1234567 };
	static const double gammas[] = { 0.25, 1.0, 1.23, 1.5, 3.0 };
	struct inc_sketch_geom g;
	size_t i, j, bad = 0;

	for (i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
		for (j = 0; j < sizeof(gammas) / sizeof(gammas[0]); j++) {
			CHECK(inc_sketch_geom_index(&g, 2000000, INC_SKETCH_BITMAP, 0, 1) == 0, "geom");
			CHECK(inc_sketch_geom_cells(&g, cands[i], gammas[j]) == 0, "cells");
			/* the rule: gamma cells per candidate, at least
			 * 3 * 8 n^(2/3), whole rows of w cells */
			double floor_ = 24.0 * cbrt((double)cands[i] * (double)cands[i]);
			double want = gammas[j] * (double)cands[i];

			want = want > floor_ ? want : floor_;
			if ((double)inc_sketch_cells(&g) < want ||
			    g.w == 0 || g.w > INC_SKETCH_BATCH || (g.w & (g.w - 1)) ||
			    (cands[i] && (double)inc_sketch_cells(&g) > want + 3.0 * g.w + 3))
				bad++;
		}
	CHECK(bad == 0, "geometry: %zu (candidates, gamma) pairs with too few or too many cells", bad);
	CHECK(inc_sketch_geom_cells(&g, 10, 0.1) == INC_E_ARG, "gamma below the minimum refused");
	CHECK(inc_sketch_geom_cells(&g, 3000000, 1.23) == INC_E_ARG, "more candidates than values");
	CHECK(inc_sketch_geom_index(&g, 100, 7, 0, 0) == INC_E_ARG, "unknown index kind refused");
	/* Bloom only where it pays: dense -> bitmap, very sparse -> Bloom */
	CHECK(inc_sketch_geom_index(&g, 1000000, INC_SKETCH_BLOOM, 300000, 1) == 0 &&
	      g.index == INC_SKETCH_BITMAP, "Bloom at 30%% density falls back to the bitmap");
	CHECK(inc_sketch_geom_index(&g, 1000000, INC_SKETCH_BLOOM, 1000, 1) == 0 &&
	      g.index == INC_SKETCH_BLOOM && inc_sketch_index_words(&g) < 1000000 / 32 &&
	      g.bloom_k >= 1, "Bloom at 0.1%% density: %u rows x %u bits, k %u", g.bloom_rows,
	      g.bloom_w, g.bloom_k);
}

static void check_recovery(void)
{
	static const size_t sizes[] = { 100, 1000, 65543, 1000003 };
	static const double dens[] = { 0.01, 0.1, 0.5, 1.0 };
	static const double gammas[] = { 1.23, 1.3, 1.5, 2.0 };
	size_t gi, si, di, i;
	unsigned t;

	for (gi = 0; gi < sizeof(gammas) / sizeof(gammas[0]); gi++) {
		uint64_t cand = 0, peeled = 0, trials = 0, incomplete = 0, wrong = 0, est_max = 0;

		for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
			for (di = 0; di < sizeof(dens) / sizeof(dens[0]); di++)
				for (t = 0; t < (sizes[si] > 100000 ? 2u : 12u); t++) {
					size_t n = sizes[si];
					float *x = malloc(n * 4), *y = malloc(n * 4);
					struct inc_sketch_stats st;

					fill(x, n, dens[di], 1);
					CHECK(roundtrip(&x, 1, n, INC_SKETCH_BITMAP, gammas[gi], next(), y,
							&st, NULL) == 0, "decode");
					trials++;
					cand += st.candidates;
					peeled += st.peeled;
					incomplete += st.estimated > 0;
					est_max = st.estimated > est_max ? st.estimated : est_max;
					if (st.estimated && getenv("SKETCH_DEBUG"))
						printf("  gamma %.2f n %zu dens %.2f: %llu of %llu estimated\n",
						       gammas[gi], n, dens[di], (unsigned long long)st.estimated,
						       (unsigned long long)st.candidates);
					for (i = 0; i < n; i++)
						wrong += memcmp(&x[i], &y[i], 4) != 0;
					if (st.estimated == 0)
						CHECK(!memcmp(x, y, n * 4), "gamma %.2f n %zu: complete peel "
						      "but values differ", gammas[gi], n);
					free(x);
					free(y);
				}
		printf("gamma %.2f: recovery rate %.5f (%llu of %llu candidates), %llu of %llu "
		       "trials incomplete\n", gammas[gi], (double)peeled / (double)cand,
		       (unsigned long long)peeled, (unsigned long long)cand,
		       (unsigned long long)incomplete, (unsigned long long)trials);
		/* 1.23 sits 0.6% above the asymptotic threshold (1.222): finite
		 * graphs often keep a core there (measured rate ~0.88), so only
		 * the rate is bounded. From the default 1.3 up what may remain is
		 * a pair of candidates sharing all three cells (probability
		 * ~1e-3 per sketch by the sizing rule): at most 2 such trials of
		 * 152, at most 4 values each, never a core. */
		if (gammas[gi] >= INC_SKETCH_GAMMA)
			CHECK(incomplete <= 2 && est_max <= 4 && wrong <= 2 * est_max,
			      "gamma %.2f: %llu incomplete trials, up to %llu values estimated",
			      gammas[gi], (unsigned long long)incomplete,
			      (unsigned long long)est_max);
		else
			CHECK((double)peeled >= 0.8 * (double)cand, "gamma %.2f: rate %.4f < 0.8",
			      gammas[gi], (double)peeled / (double)cand);
	}
}

/* Below the threshold: the estimate fills in, counted, never garbage. */
static void check_below_threshold(void)
{
	static const double gammas[] = { 0.8, 1.0 };
	size_t gi, i, n = 300000;

	for (gi = 0; gi < 2; gi++) {
		float *x = malloc(n * 4), *y = malloc(n * 4);
		struct inc_sketch_stats st;
		size_t wrong = 0, wrong_zero = 0;

		fill(x, n, 0.2, 1);
		CHECK(roundtrip(&x, 1, n, INC_SKETCH_BITMAP, gammas[gi], 77, y, &st, NULL) == 0,
		      "decode");
		for (i = 0; i < n; i++) {
			wrong += x[i] != y[i];
			wrong_zero += x[i] == 0.0f && y[i] != 0.0f;
		}
		printf("gamma %.2f: %llu candidates, %llu peeled, %llu estimated, %zu values "
		       "differ\n", gammas[gi], (unsigned long long)st.candidates,
		       (unsigned long long)st.peeled, (unsigned long long)st.estimated, wrong);
		CHECK(st.estimated > 0 && st.peeled + st.estimated == st.candidates,
		      "gamma %.2f: estimate used and counted", gammas[gi]);
		CHECK(wrong <= st.estimated && wrong_zero == 0,
		      "gamma %.2f: %zu wrong > %llu estimated, or a zero changed", gammas[gi], wrong,
		      (unsigned long long)st.estimated);
		free(x);
		free(y);
	}
}

static void check_homomorphism(void)
{
	unsigned w, k, integers;
	size_t n = 50021, i;

	for (integers = 0; integers < 2; integers++)
		for (w = 2; w <= 8; w++) {
			float *x[8], *y = malloc(n * 4);
			struct inc_sketch_stats st;
			size_t bad = 0;
			double worst = 0, top = 0;

			for (k = 0; k < w; k++) {
				x[k] = malloc(n * 4);
				fill(x[k], n, 0.05, (int)integers);
			}
			CHECK(roundtrip(x, w, n, k & 1 ? INC_SKETCH_BLOOM : INC_SKETCH_BITMAP, 1.5,
					next(), y, &st, NULL) == 0, "decode");
			for (i = 0; i < n; i++) {
				double mag = 0;

				for (k = 0; k < w; k++)
					mag += fabs(x[k][i]);
				top = mag > top ? mag : top;
			}
			for (i = 0; i < n; i++) {
				double s = 0;
				float fs = 0.0f;

				for (k = 0; k < w; k++) {
					s += x[k][i];
					fs += x[k][i];
				}
				/* floats: re-association error, relative to the largest
				 * magnitude that can share a cell */
				if (integers)
					bad += fs != y[i];
				else if (fabs(s - y[i]) > 0x1p-18 * top)
					bad++;
				if (fabs(s - y[i]) > worst)
					worst = fabs(s - y[i]);
			}
			CHECK(st.estimated == 0 && bad == 0,
			      "%u workers (%s): %zu values differ from the sum, %llu estimated",
			      w, integers ? "integers" : "floats", bad,
			      (unsigned long long)st.estimated);
			if (w == 8)
				printf("homomorphism, 8 workers, %s: %llu candidates, %u rounds, "
				       "largest error %g\n", integers ? "integers" : "floats",
				       (unsigned long long)st.candidates, st.rounds, worst);
			for (k = 0; k < w; k++)
				free(x[k]);
			free(y);
		}
}

static void check_bloom(void)
{
	size_t n = 1000000, i, nnz;
	float *x = malloc(n * 4), *y = malloc(n * 4);
	struct inc_sketch_stats st;
	struct inc_sketch_geom g;

	nnz = fill(x, n, 0.001, 1);
	CHECK(roundtrip(&x, 1, n, INC_SKETCH_BLOOM, 1.5, 5, y, &st, &g) == 0, "decode");
	CHECK(g.index == INC_SKETCH_BLOOM, "Bloom index chosen at 0.1%% density");
	CHECK(!memcmp(x, y, n * 4) && st.estimated == 0, "Bloom: exact recovery");
	CHECK(st.candidates >= nnz, "Bloom: every non-zero a candidate (%llu >= %zu)",
	      (unsigned long long)st.candidates, nnz);
	printf("Bloom at 0.1%%: %zu non-zeros, %llu candidates (%.4f%% false positives of the "
	       "zeros), index %zu bytes vs bitmap %zu\n", nnz,
	       (unsigned long long)st.candidates,
	       100.0 * (double)(st.candidates - nnz) / (double)(n - nnz),
	       inc_sketch_index_words(&g) * 4, (n + 31) / 32 * 4);
	for (i = 0; i < n; i++)
		x[i] = 0.0f;
	free(x);
	free(y);
}

static void check_messages(void)
{
	size_t n = 3001, i, cap = inc_sketch_msg_max(n, INC_SKETCH_BITMAP, 1.23);
	float *x = malloc(n * 4), *y = malloc(n * 4);
	uint8_t *m = malloc(cap + 8), *bad = malloc(cap + 8);
	struct inc_sketch_stats st;
	long len;
	size_t cut, fails = 0;
	unsigned t;

	fill(x, n, 0.1, 1);
	len = inc_sketch_compress(x, n, INC_SKETCH_BITMAP, 1.5, 9, m, cap, &st);
	CHECK(len > 40 && (size_t)len <= cap, "compress: %ld bytes (max %zu)", len, cap);
	CHECK(inc_sketch_compress(x, n, INC_SKETCH_BITMAP, 1.5, 9, m, (size_t)len - 1, NULL) ==
	      INC_ENOSPC, "short capacity: INC_ENOSPC");
	CHECK(inc_sketch_decompress(m, (size_t)len, y, n, &st) == 0 && !memcmp(x, y, n * 4),
	      "message round trip");
	CHECK(inc_sketch_decompress(m, (size_t)len, y, n - 1, NULL) == INC_E_ARG, "other n");
	for (cut = 0; cut < (size_t)len; cut++)
		fails += inc_sketch_decompress(m, cut, y, n, NULL) != INC_ETRUNC;
	CHECK(fails == 0, "%zu truncations not INC_ETRUNC", fails);
	memcpy(bad, m, (size_t)len);
	bad[len] = 0;
	CHECK(inc_sketch_decompress(bad, (size_t)len + 1, y, n, NULL) == INC_EMALFORMED,
	      "trailing byte");
	bad[0] ^= 1;
	CHECK(inc_sketch_decompress(bad, (size_t)len, y, n, NULL) == INC_EMALFORMED, "magic");
	bad[0] ^= 1;
	bad[24] = 3;     /* w = 3: not a power of two */
	CHECK(inc_sketch_decompress(bad, (size_t)len, y, n, NULL) == INC_EMALFORMED, "width");
	memcpy(bad, m, (size_t)len);
	bad[40 + (n / 32) * 4 + 3] |= 0x80;    /* bit past value n-1 */
	CHECK(inc_sketch_decompress(bad, (size_t)len, y, n, NULL) == INC_EMALFORMED,
	      "index bit past n");
	/* Random corruption: a clean error or n values, never a crash. */
	for (t = 0; t < 20000; t++) {
		int rc;

		memcpy(bad, m, (size_t)len);
		for (i = 0; i < 1 + next() % 4; i++) {
			size_t at = next() % 64 < 48 ? next() % 40 : next() % (size_t)len;

			bad[at] = (uint8_t)next();
		}
		rc = inc_sketch_decompress(bad, (size_t)len - (next() % 8 == 0 ? next() % 5 : 0),
					   y, n, &st);
		if (rc != 0 && rc != INC_ETRUNC && rc != INC_EMALFORMED && rc != INC_E_ARG)
			fails++;
		if (rc == 0 && st.peeled + st.estimated != st.candidates)
			fails++;
	}
	CHECK(fails == 0, "corrupted messages: %zu unexpected results", fails);
	free(x);
	free(y);
	free(m);
	free(bad);
}

static void check_zeros(void)
{
	size_t n = 777, i, nz = 0;
	float *x = malloc(n * 4), *y = malloc(n * 4);
	struct inc_sketch_stats st;
	struct inc_sketch_geom g;

	for (i = 0; i < n; i++)
		x[i] = i % 2 ? -0.0f : 0.0f;
	for (i = 0; i < n; i++)
		y[i] = 1.0f;
	CHECK(roundtrip(&x, 1, n, INC_SKETCH_BITMAP, 1.23, 3, y, &st, &g) == 0, "decode");
	for (i = 0; i < n; i++) {
		uint32_t u;

		memcpy(&u, &y[i], 4);
		nz += u != 0;
	}
	CHECK(inc_sketch_cells(&g) == 0 && st.candidates == 0 && nz == 0,
	      "all zeros: no cells, +0.0 everywhere");
	free(x);
	free(y);
}

int main(void)
{
	check_geometry();
	check_zeros();
	check_messages();
	check_recovery();
	check_below_threshold();
	check_homomorphism();
	check_bloom();
	return inc_test_done();
}
