// SPDX-License-Identifier: MIT
/*
 * ef_check.c - one rank of the error-feedback test (docs/userlib.md,
 * "Error feedback"); run it with inc-run -n N or on the emulated cluster.
 * For every lossy mode and algorithm it makes CALLS calls with error
 * feedback on fresh gradient-like data, each rank keeping one residual per
 * value, and checks on every rank:
 *   - the invariant: delivered result = sum over ranks of (input + residual
 *     before - residual after), i.e. what every rank meant to send arrives
 *     (nothing lost, nothing invented), within float rounding of the sums;
 *   - the delivered buffers bit-identical across ranks;
 *   - the residuals bounded over the repeated calls (INCEPTIONN modes: by
 *     the codec's absolute error bound B(eb); C_nat: by the largest value
 *     meant);
 *   - and that the check can fail: the same call without error feedback
 *     breaks the invariant (the quantisation's error is then lost).
 * The calls run blocking, non-blocking (several buckets in flight, each
 * with its slice of the residual), ring and worker-aggregator.
 *
 *   ef-check [-m MODES] [-a ring,wa] [-s SIZE] [-c CALLS] [-e EB] [-x EXP] [-A] [-q] [-p]
 * -x: the calls scale the values by 2^EXP on the way (opts.scale_exp); the
 * invariant, in the caller's units, is the same (the residual bound scales).
 * -A: adaptive scaling (opts.scale): one inc_scale state per call site
 * (blocking: the buffer in three parts; buckets: one state each, two
 * parts), the library's balanced policy; the invariant and the identity
 * must hold as they are, the residual bound follows the smallest exponent
 * used, and the states must have scaled something and agree on every rank.
 * -p: a NIC (or its emulation) compresses tagged frames on the path (nic
 * mode's frames then may or may not be quantised by the NICs; the host
 * quantises before, so the invariant must hold exactly the same).
 * Last line: "rank R: N passed, N failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inc_ar_util.h"
#include "inc_list.h"
#include "inc_test.h"
#include "inceptionn/inceptionn.h"

#define BUCKETS 4

static int nr, rk, quiet;
static int nic_on_path;   /* -p */
static int scale_exp;     /* -x: values travel scaled by 2^x */
static int adaptive;      /* -A: adaptive scaling states */

/* Gradient-like: most values below the error bound (what the codec would
 * drop without feedback), some in the 8- and 16-bit classes, a few above 1. */
static float value(uint64_t *s)
{
	uint64_t r = inc_ar_rnd(s);
	unsigned pick = (unsigned)(r % 1000);
	float mag = (float)((r >> 20) & 0xffffff) / 16777216.0f;

	if (pick < 30)
		return 0.0f;
	if (pick < 700)
		mag *= 1e-4f;
	else if (pick < 900)
		mag *= 1e-2f;
	else if (pick < 990)
		mag *= 0.5f;
	else
		mag *= 3.0f;
	return (r >> 50) & 1 ? -mag : mag;
}

static void gen(float *x, size_t n, int rank, unsigned call, unsigned cas)
{
	uint64_t s = (0x9e3779b97f4a7c15ull ^ ((uint64_t)rank << 40) ^ (uint64_t)call << 20 ^
		      (uint64_t)cas << 8) | 1;
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = value(&s);
}

/* Lossless sum over ranks of v (none mode). */
static int sum_none(struct inc_comm *c, float *v, size_t n)
{
	struct inc_allreduce_opts o;
	int rc = inc_allreduce_opts_init(&o);

	o.compression = INC_COMP_NONE;
	o.algo = INC_ALGO_RING;
	o.error_feedback = INC_EF_OFF;
	return rc ? rc : inc_allreduce_f32(c, v, n, &o);
}

/*
 * |delivered - sum of contributions| for every value, against the float
 * rounding the sums can carry: contributions and |contributions| are
 * all-reduced exactly as floats (none), so the tolerance is a few ulps of
 * the magnitudes summed, times the ranks. A sketch (wide) adds values that
 * share its cells and subtracts them again when it peels: there the ulps
 * are those of the largest magnitude of the call. Returns the number of
 * values outside it; *worst the largest excess ratio.
 */
static size_t invariant(struct inc_comm *c, const float *out, float *contrib, float *mag,
			size_t n, int wide, double *worst)
{
	size_t i, bad = 0;
	double big = 0;
	int rc;

	rc = sum_none(c, contrib, n);
	if (!rc)
		rc = sum_none(c, mag, n);
	CHECK(rc == 0, "contribution sums: %s", inc_strerror(rc));
	*worst = 0;
	for (i = 0; wide && i < n; i++)
		if (mag[i] > big)
			big = mag[i];
	for (i = 0; i < n; i++) {
		double tol = 8.0 * (nr + 2) * ldexp((double)mag[i] + big, -24) + 1e-30;
		double d = fabs((double)out[i] - (double)contrib[i]) / tol;

		if (d > *worst)
			*worst = d;
		bad += d > 1.0;
	}
	return bad;
}

struct bufs {
	float *x, *in, *res, *prev, *contrib, *mag;
	struct inc_scale *sc[BUCKETS];   /* -A: blocking: sc[0]; buckets: one each */
};

/* One call (blocking or as BUCKETS non-blocking buckets) with options o. */
static int one_call(struct inc_comm *c, struct bufs *b, size_t n,
		    const struct inc_allreduce_opts *o, int nonblocking)
{
	struct inc_request *req[BUCKETS] = { 0 };
	struct inc_allreduce_opts ob[BUCKETS];
	size_t lo, hi;
	int k, rc = 0, w;

	if (!nonblocking) {
		struct inc_allreduce_opts o1 = *o;

		o1.scale = o->scale ? b->sc[0] : NULL;
		return inc_allreduce_f32(c, b->x, n, &o1);
	}
	for (k = 0; k < BUCKETS; k++) {
		lo = n * (size_t)k / BUCKETS;
		hi = n * (size_t)(k + 1) / BUCKETS;
		ob[k] = *o;
		ob[k].residual = o->residual ? o->residual + lo : NULL;
		ob[k].scale = o->scale ? b->sc[k] : NULL;
		if (!rc)
			rc = inc_iallreduce_f32(c, b->x + lo, hi - lo, &ob[k], &req[k]);
	}
	for (k = 0; k < BUCKETS; k++)
		if (req[k] && (w = inc_wait(req[k])) && !rc)
			rc = w;
	return rc;
}

static void run(struct inc_comm *c, struct bufs *b, size_t n, enum inc_compression mode,
		enum inc_algo algo, int nonblocking, unsigned calls, unsigned eb, unsigned cas)
{
	const struct inc_compression_info *ci = inc_compression_info(mode);
	struct inc_allreduce_opts o, exact;
	double worst, maxres = 0, bound, maxin = 0;
	size_t i, bad, total_bad = 0;
	unsigned call;
	int rc;
	char what[96];

	int emin = 0, scaled = 0, k;

	snprintf(what, sizeof(what), "%s/%s%s n %zu%s", ci->name, algo == INC_ALGO_WA ? "wa" : "ring",
		 nonblocking ? " buckets" : "", n, scale_exp ? " scaled" : adaptive ? " adaptive" : "");
	for (k = 0; adaptive && ci->error_bound && k < BUCKETS; k++) {
		size_t lo = n * (size_t)k / BUCKETS, hi = n * (size_t)(k + 1) / BUCKETS;
		size_t ends[3] = { n / 3, 2 * n / 3, n };
		size_t bends[2] = { (hi - lo) / 2, hi - lo };

		inc_scale_destroy(b->sc[k]);
		b->sc[k] = NULL;
		if (!nonblocking && k)
			continue;
		rc = nonblocking ? inc_scale_create(&b->sc[k], hi - lo > 1 ? 2 : 1,
						    hi - lo > 1 ? bends : NULL, 0)
				 : inc_scale_create(&b->sc[k], n > 2 ? 3 : 1, n > 2 ? ends : NULL, 0);
		CHECK(rc == 0, "%s: inc_scale_create: %s", what, inc_strerror(rc));
	}
	rc = inc_allreduce_opts_init(&o);
	CHECK(rc == 0, "options: %s", inc_strerror(rc));
	exact = o;
	exact.compression = INC_COMP_NONE;
	exact.algo = INC_ALGO_RING;
	exact.error_feedback = INC_EF_OFF;
	o.compression = mode;
	o.algo = algo;
	o.error_bound = eb;
	o.error_feedback = INC_EF_ON;
	o.residual = b->res;
	o.seed = 77;
	o.scale_exp = scale_exp;
	o.scale = adaptive && b->sc[0] ? b->sc[0] : NULL;   /* a marker: one_call picks the site's */
	memset(b->res, 0, n * sizeof(float));
	for (call = 0; call < calls; call++) {
		for (k = 0; o.scale && k < BUCKETS; k++) {
			int e[3], np, j;

			if (!b->sc[k])
				continue;
			np = inc_scale_get(b->sc[k], e, 3);
			for (j = 0; j < np; j++) {
				emin = e[j] < emin ? e[j] : emin;
				scaled |= e[j] != 0;
			}
		}
		gen(b->in, n, rk, call, cas);
		memcpy(b->x, b->in, n * sizeof(float));
		memcpy(b->prev, b->res, n * sizeof(float));
		rc = one_call(c, b, n, &o, nonblocking);
		CHECK(rc == 0, "%s call %u: %s", what, call, inc_strerror(rc));
		if (rc)
			return;
		for (i = 0; i < n; i++) {
			double meant = (double)b->in[i] + (double)b->prev[i];

			b->contrib[i] = (float)(meant - (double)b->res[i]);
			b->mag[i] = fabsf(b->in[i]) + fabsf(b->prev[i]) + fabsf(b->res[i]);
			if (fabs(b->res[i]) > maxres)
				maxres = fabs(b->res[i]);
			if (fabs(b->in[i]) > maxin)
				maxin = fabs(b->in[i]);
		}
		bad = invariant(c, b->x, b->contrib, b->mag, n, ci->summable, &worst);
		CHECK(bad == 0, "%s call %u: %zu values break the invariant (worst %.3g x tolerance)",
		      what, call, bad, worst);
		total_bad += bad;
		inc_ar_check_identical(c, nr, b->x, n, &exact, what);
	}
	/* INCEPTIONN: a residual is one quantisation's error of a value below
	 * 1 (larger values travel exactly): |res| <= B(eb), call after call.
	 * C_nat: the error of rounding v to a power of two is below |v|, and
	 * a partial sum v is below the ranks' inputs plus residuals: a
	 * residual that grew from call to call would pass 2 N max|input|. */
	bound = ci->error_bound ? ldexp(inc_codec_abs_bound(eb), -scale_exp - emin) : 2.0 * nr * maxin;
	CHECK(maxres <= bound, "%s: residual %.3g above its bound %.3g after %u calls", what,
	      maxres, bound, calls);
	if (o.scale) {
		/* the states scaled something, and every rank holds the same
		 * exponents (they are in the call header too) */
		float e[BUCKETS * 3];
		int got[3], j;

		CHECK(calls < 3 || scaled, "%s: %u calls and the adaptive scaling never scaled", what,
		      calls);
		memset(e, 0, sizeof(e));
		for (k = 0; k < BUCKETS; k++)
			for (j = 0; b->sc[k] && j < inc_scale_get(b->sc[k], got, 3); j++)
				e[3 * k + j] = (float)got[j];
		inc_ar_check_identical(c, nr, e, BUCKETS * 3, &exact, what);
	}
	/* The check can fail: without feedback the quantisation's error is
	 * lost and the same invariant breaks (on data that has values below
	 * the error bound) — where something quantises: in nic mode the
	 * worker-aggregator's upward floats are exact unless a NIC is on the
	 * path (the ring's owner step always quantises). */
	if (ci->error_bound && (nic_on_path || !ci->tagged || algo == INC_ALGO_RING)) {
		o.error_feedback = INC_EF_OFF;
		gen(b->in, n, rk, calls, cas);
		memcpy(b->x, b->in, n * sizeof(float));
		memset(b->res, 0, n * sizeof(float));
		rc = one_call(c, b, n, &o, nonblocking);
		CHECK(rc == 0, "%s without feedback: %s", what, inc_strerror(rc));
		for (i = 0; i < n; i++) {
			b->contrib[i] = b->in[i];
			b->mag[i] = fabsf(b->in[i]);
		}
		bad = invariant(c, b->x, b->contrib, b->mag, n, ci->summable, &worst);
		CHECK(n < 64 || bad > 0, "%s: without feedback the invariant still holds: the "
		      "check cannot tell", what);
		for (i = 0; i < n; i++)
			CHECK(b->res[i] == 0.0f, "%s: residual written without feedback", what);
	}
	if (!quiet && rk == 0)
		printf("N=%d %s: %u calls, invariant and identity hold, max |residual| %.3g "
		       "(bound %.3g)%s\n", nr, what, calls, maxres, bound,
		       total_bad ? " FAILED" : "");
}

int main(int argc, char **argv)
{
	const char *modes = "nic,software,cnat,cnat-det,inc+sketch", *algos = "ring,wa";
	size_t n = 20011;
	unsigned calls = 6, eb = 10, cas = 0;
	struct inc_comm *c;
	struct bufs b = { 0 };
	int opt, rc, m, nb;

	while ((opt = getopt(argc, argv, "m:a:s:c:e:x:qpA")) != -1) {
		switch (opt) {
		case 'm': modes = optarg; break;
		case 'a': algos = optarg; break;
		case 's': n = (size_t)strtoul(optarg, NULL, 10); break;
		case 'c': calls = (unsigned)atoi(optarg); break;
		case 'e': eb = (unsigned)atoi(optarg); break;
		case 'q': quiet = 1; break;
		case 'p': nic_on_path = 1; break;
		case 'x': scale_exp = atoi(optarg); break;
		case 'A': adaptive = 1; break;
		default:
			fprintf(stderr, "usage: ef-check [-m MODES] [-a ring,wa] [-s SIZE] [-c CALLS] "
				"[-e EB] [-x EXP] [-A] [-q] [-p]\n");
			return 2;
		}
	}
	rc = inc_comm_init_env(&c);
	if (rc) {
		fprintf(stderr, "ef-check: %s\n", inc_strerror(rc));
		return 1;
	}
	nr = inc_comm_size(c);
	rk = inc_comm_rank(c);
	b.x = malloc(n * sizeof(float) + 4);
	b.in = malloc(n * sizeof(float) + 4);
	b.res = malloc(n * sizeof(float) + 4);
	b.prev = malloc(n * sizeof(float) + 4);
	b.contrib = malloc(n * sizeof(float) + 4);
	b.mag = malloc(n * sizeof(float) + 4);
	if (!b.x || !b.in || !b.res || !b.prev || !b.contrib || !b.mag) {
		fprintf(stderr, "ef-check: out of memory\n");
		return 1;
	}
	for (m = 0; inc_compression_info((enum inc_compression)m); m++) {
		const struct inc_compression_info *ci = inc_compression_info((enum inc_compression)m);

		if (!ci->lossy || !inc_listed(modes, ci->name))
			continue;
		for (nb = 0; nb < 2; nb++) {
			if (inc_listed(algos, "ring"))
				run(c, &b, n, ci->mode, INC_ALGO_RING, nb, calls, eb, cas++);
			/* sketches are summed by every rank: no aggregator */
			if (inc_listed(algos, "wa") && !ci->whole_call)
				run(c, &b, n, ci->mode, INC_ALGO_WA, nb, calls, eb, cas++);
		}
	}
	inc_comm_destroy(c);
	for (m = 0; m < BUCKETS; m++)
		inc_scale_destroy(b.sc[m]);
	free(b.x);
	free(b.in);
	free(b.res);
	free(b.prev);
	free(b.contrib);
	free(b.mag);
	printf("rank %d: ", rk);
	return inc_test_done();
}
