// SPDX-License-Identifier: MIT
/*
 * sketch_check.c - one rank of the sketch all-reduce test; run it with
 * inc-run -n N. For both algorithms (ring, wa) and both indices (bitmap,
 * Bloom), odd sizes and densities from all-zero to dense:
 *   - sketch mode on sparse integer gradients (each rank its own support):
 *     the result equals the exact sum bit for bit on every rank;
 *   - inc+sketch on float gradients: within float re-association of the
 *     sum of every rank's values quantized at 2^-eb (the INCEPTIONN value
 *     map), zeros where every rank's value quantizes to zero;
 *   - the stats: every candidate peeled (no estimate), bytes sent for a
 *     0.1%-dense gradient below a fifth of the uncompressed ring's;
 *   - a sketch forced to 1.0 cell per candidate: peeling stalls, the call
 *     retries with more cells (counted) and the sum is still exact.
 *
 *   sketch-check [-q]          Last line: "rank R: N passed, N failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inc_model.h"
#include "inc_test.h"
#include "inceptionn/inceptionn.h"

static int nr, rk, quiet;

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dull;
	return x ^ (x >> 33);
}

/* Rank r's value i of case k: non-zero with probability dens. */
static float value(int r, unsigned k, size_t i, double dens, int integers)
{
	uint64_t h = mix(((uint64_t)r << 48) ^ ((uint64_t)k << 36) ^ i);
	double u = (double)(h >> 11) / 9007199254740992.0;
	uint64_t h2 = mix(h);

	if (u >= dens)
		return 0.0f;
	if (integers)
		return (float)(int)(h2 % 2000) - 1000.0f;
	/* half of them above 2^-7, which survive quantization at 2^-10 */
	return (float)(((double)(h2 >> 11) / 9007199254740992.0 - 0.5) * (h2 & 1 ? 1.0 : 1e-2));
}

static float quant(float f, unsigned eb)
{
	uint32_t u, pl;
	unsigned tag;

	memcpy(&u, &f, 4);
	tag = inc_compress_value(u, eb, &pl);
	u = inc_decompress_value(tag, pl);
	memcpy(&f, &u, 4);
	return f;
}

static void run(struct inc_comm *c, enum inc_compression mode, enum inc_algo algo,
		unsigned index, unsigned k, size_t n, double dens)
{
	struct inc_allreduce_opts o;
	struct inc_comm_stats s0, s1;
	int integers = mode == INC_COMP_SKETCH, rc, r;
	float *buf = malloc((n + 1) * sizeof(float));
	size_t i, bad = 0;
	double top = 0;

	inc_allreduce_opts_init(&o);
	o.compression = mode;
	o.algo = algo;
	o.sketch_index = index;
	for (i = 0; i < n; i++)
		buf[i] = value(rk, k, i, dens, integers);
	for (i = 0; i < n; i++) {
		double mag = 0;

		for (r = 0; r < nr; r++)
			mag += fabs(value(r, k, i, dens, integers));
		top = mag > top ? mag : top;
	}
	inc_comm_stats(c, &s0);
	rc = inc_allreduce_f32(c, buf, n, &o);
	inc_comm_stats(c, &s1);
	CHECK(rc == 0, "%s/%s n %zu: %s", inc_compression_name(mode), algo ? "wa" : "ring", n, inc_strerror(rc));
	for (i = 0; i < n; i++) {
		float fs = 0.0f;
		double ds = 0;

		for (r = 0; r < nr; r++) {
			float v = value(r, k, i, dens, integers);

			/* one rank: no communication, values as given */
			v = mode == INC_COMP_INC_SKETCH && nr > 1 ? quant(v, o.error_bound) : v;
			fs += v;
			ds += v;
		}
		if (integers)
			bad += memcmp(&fs, &buf[i], 4) != 0 && !(fs == 0.0f && buf[i] == 0.0f);
		else
			bad += fabs(ds - buf[i]) > 0x1p-18 * top || (ds == 0.0 && buf[i] != 0.0f);
	}
	CHECK(bad == 0, "%s/%s %s n %zu density %g: %zu values differ from the sum", inc_compression_name(mode),
	      algo ? "wa" : "ring", index ? "bloom" : "bitmap", n, dens, bad);
	if (nr > 1)
		CHECK(s1.sketch_estimated == s0.sketch_estimated &&
		      s1.sketch_peeled - s0.sketch_peeled ==
		      s1.sketch_candidates - s0.sketch_candidates &&
		      s1.sketch_values - s0.sketch_values == n,
		      "%s n %zu: every candidate peeled (stats)", inc_compression_name(mode), n);
	if (nr > 1 && dens == 0.001 && n >= 100000 && algo == INC_ALGO_RING) {
		double dense = 2.0 * (nr - 1) / nr * 4.0 * (double)n;
		double sent = (double)(s1.bytes_sent - s0.bytes_sent);

		CHECK(sent < 0.2 * dense, "%s %s n %zu at 0.1%%: %.0f bytes sent vs %.0f dense",
		      inc_compression_name(mode), index ? "bloom" : "bitmap", n, sent, dense);
		if (!quiet && rk == 0)
			printf("N=%d %s/%s n %zu density 0.001: %.0f bytes sent (%.1fx less than "
			       "raw)\n", nr, inc_compression_name(mode), index ? "bloom" : "bitmap", n, sent,
			       dense / sent);
	}
	free(buf);
}

/* Too few cells: the call notices the stalled peeling and retries. */
static void run_retry(struct inc_comm *c)
{
	struct inc_allreduce_opts o;
	struct inc_comm_stats s0, s1;
	size_t n = 200003, i, bad = 0;
	float *buf = malloc(n * sizeof(float));
	int rc, r;

	if (nr == 1) {
		free(buf);
		return;
	}
	inc_allreduce_opts_init(&o);
	o.compression = INC_COMP_SKETCH;
	o.sketch_gamma = 1.0;
	for (i = 0; i < n; i++)
		buf[i] = value(rk, 99, i, 0.05, 1);
	inc_comm_stats(c, &s0);
	rc = inc_allreduce_f32(c, buf, n, &o);
	inc_comm_stats(c, &s1);
	for (i = 0; i < n; i++) {
		float fs = 0.0f;

		for (r = 0; r < nr; r++)
			fs += value(r, 99, i, 0.05, 1);
		bad += fs != buf[i];
	}
	CHECK(rc == 0 && bad == 0 && s1.sketch_retries > s0.sketch_retries &&
	      s1.sketch_estimated == s0.sketch_estimated,
	      "gamma 1.0: %llu retries, %zu values differ, %llu estimated",
	      (unsigned long long)(s1.sketch_retries - s0.sketch_retries), bad,
	      (unsigned long long)(s1.sketch_estimated - s0.sketch_estimated));
	free(buf);
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 1, 7, 1000, 65541, 300007 };
	static const double dens[] = { 0.0, 0.001, 0.05, 1.0 };
	struct inc_comm *c;
	unsigned k = 0, al, ix, m, si, di;
	int opt, rc;

	while ((opt = getopt(argc, argv, "q")) != -1) {
		if (opt == 'q')
			quiet = 1;
		else {
			fprintf(stderr, "usage: sketch-check [-q]\n");
			return 2;
		}
	}
	rc = inc_comm_init_env(&c);
	if (rc) {
		fprintf(stderr, "sketch-check: %s\n", inc_strerror(rc));
		return 1;
	}
	nr = inc_comm_size(c);
	rk = inc_comm_rank(c);
	for (m = INC_COMP_SKETCH; m <= INC_COMP_INC_SKETCH; m++)
		for (al = 0; al < 2; al++)
			for (ix = 0; ix < 2; ix++)
				for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
					for (di = 0; di < sizeof(dens) / sizeof(dens[0]); di++)
						run(c, (enum inc_compression)m, al ? INC_ALGO_WA :
						    INC_ALGO_RING, ix, k++, sizes[si], dens[di]);
	run_retry(c);
	inc_comm_destroy(c);
	printf("rank %d: ", rk);
	return inc_test_done();
}
