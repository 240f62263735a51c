// SPDX-License-Identifier: MIT
/*
 * ar_check.c - one rank of the all-reduce correctness test; run it with
 * inc-run -n N (or in the namespace cluster). For every size, mode and
 * algorithm it checks, on every rank:
 *   - the result against a serial double-precision sum of all ranks' inputs,
 *     within a tolerance derived from the codec bound (docs/userlib.md):
 *     none: N * 2^-23 * sum|x|; ring nic/software: N * B(eb) + that;
 *     WA software: (N-1) * B(eb) + that;
 *   - the result bit for bit against a serial simulation of the algorithm's
 *     own summation order and quantisation points (per-value codec), which
 *     also makes every rank bit-identical;
 *   - bit-identity across ranks directly: a hash of the buffer is summed
 *     over ranks in 16-bit pieces (exact in float) and compared with N * hash.
 * Every rank regenerates every rank's input from the same seeds.
 *
 *   ar-check [-s SIZES] [-m none,nic,software] [-a ring,wa] [-g SEGBYTES]
 *            [-e EB] [-i ITERS] [-q] [-p]
 * -p: an INCEPTIONN NIC (or its emulation) compresses tagged frames between
 * the ranks: nic mode then gets the software-mode tolerance, and since a NIC
 * leaves frames it cannot shrink unchanged (so a hop may or may not
 * quantise), the bitwise simulation is replaced by the fixed-point check
 * below. Without -p the path is plain (loopback, the emulated cluster) and
 * only the owner step quantises. Ring results in nic and software modes
 * must always be fixed points of the codec (q(x) == x): the owner step.
 * Last line: "rank R: N passed, N failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inc_model.h"
#include "inc_ar_util.h"
#include "inc_test.h"
#include "inceptionn/inceptionn.h"

static int nr, rk;
static int nic_on_path;   /* -p: a NIC compresses tagged frames on the way */

/* Gradient-like value: mostly small, some in the 8/16-bit classes, a few
 * above 1, exact zeros, occasional sign flips; never NaN/Inf. */
static float value(uint64_t *s)
{
	uint64_t r = inc_ar_rnd(s);
	unsigned pick = (unsigned)(r % 1000);
	float mag = (float)((r >> 20) & 0xffffff) / 16777216.0f;

	if (pick < 50)
		return 0.0f;
	if (pick < 600)
		mag *= 1e-4f;
	else if (pick < 850)
		mag *= 1e-2f;
	else if (pick < 980)
		mag *= 0.5f;
	else
		mag *= 4.0f;
	return (r >> 50) & 1 ? -mag : mag;
}

static void gen(float *x, size_t n, int rank, size_t size, unsigned cas)
{
	uint64_t s = 0x9e3779b97f4a7c15ull ^ ((uint64_t)rank << 40) ^ (uint64_t)size * 1315423911u ^
		     (uint64_t)cas << 20;
	size_t i;

	s |= 1;
	for (i = 0; i < n; i++)
		x[i] = value(&s);
}

static float q(float x, unsigned eb)
{
	uint32_t f, p;
	unsigned t;

	memcpy(&f, &x, 4);
	t = inc_compress_value(f, eb, &p);
	f = inc_decompress_value(t, p);
	memcpy(&x, &f, 4);
	return x;
}

static size_t blk_of(size_t i, size_t count, int n)
{
	size_t qq = count / (size_t)n, rem = count % (size_t)n;

	if (i < rem * (qq + 1))
		return i / (qq + 1);
	return rem + (i - rem * (qq + 1)) / qq;
}

/* The algorithm's own arithmetic for element i, serially. */
static float expect(float *const *in, size_t i, size_t count, int mode, int algo,
		    unsigned eb)
{
	float acc;
	int k, b;

	if (nr == 1)
		return in[0][i];
	/* With a NIC on the path, nic mode quantises where software mode
	 * does (every tagged hop); without one, only the owner step does. */
	if (mode == INC_COMP_NIC && nic_on_path)
		mode = INC_COMP_SOFTWARE;
	if (algo == INC_ALGO_WA) {
		acc = in[0][i];
		for (k = 1; k < nr; k++)
			acc += mode == INC_COMP_SOFTWARE ? q(in[k][i], eb) : in[k][i];
		return acc;
	}
	b = (int)blk_of(i, count, nr);       /* starts at rank b, ends at b-1 */
	acc = in[b][i];
	for (k = 1; k < nr; k++) {
		if (mode == INC_COMP_SOFTWARE)
			acc = q(acc, eb);
		acc = in[(b + k) % nr][i] + acc;
	}
	return mode == INC_COMP_NONE ? acc : q(acc, eb);
}

static const char *mname[] = { "none", "nic", "software" };
static const char *aname[] = { "ring", "wa" };

int main(int argc, char **argv)
{
	static const size_t dflt[] = { 0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65,
				       100, 1000, 4097, 65541, 300007 };
	size_t sizes[64], nsizes = 0, maxs = 0, s, i;
	int modes[3] = { 1, 1, 1 }, algos[2] = { 1, 1 }, quiet = 0, opt, iters = 1;
	unsigned eb = 10, cas = 0;
	size_t segb = 0;
	struct inc_comm *c;
	float **in, *buf;
	int rc, m, a, it, k;
	char what[128];

	while ((opt = getopt(argc, argv, "s:m:a:g:e:i:qp")) != -1) {
		char *tok, *save = NULL;

		switch (opt) {
		case 's':
			for (tok = strtok_r(optarg, ",", &save); tok && nsizes < 64;
			     tok = strtok_r(NULL, ",", &save))
				sizes[nsizes++] = strtoul(tok, NULL, 0);
			break;
		case 'm':
			modes[0] = !!strstr(optarg, "none");
			modes[1] = !!strstr(optarg, "nic");
			modes[2] = !!strstr(optarg, "software");
			break;
		case 'a':
			algos[0] = !!strstr(optarg, "ring");
			algos[1] = !!strstr(optarg, "wa");
			break;
		case 'g':
			segb = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			eb = (unsigned)atoi(optarg);
			break;
		case 'i':
			iters = atoi(optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'p':
			nic_on_path = 1;
			break;
		default:
			fprintf(stderr, "usage: ar-check [-s SIZES] [-m MODES] [-a ALGOS] [-g SEG] [-e EB] [-i N] [-q] [-p]\n");
			return 2;
		}
	}
	if (!nsizes) {
		memcpy(sizes, dflt, sizeof(dflt));
		nsizes = sizeof(dflt) / sizeof(dflt[0]);
	}
	rc = inc_comm_init_env(&c);
	if (rc) {
		fprintf(stderr, "ar-check: init: %s\n", inc_strerror(rc));
		return 1;
	}
	nr = inc_comm_size(c);
	rk = inc_comm_rank(c);
	if (nr > 1) {
		/* Float-aligned segments need an MSS that is a multiple of 4
		 * (loopback's default, 65483, is not). */
		struct inc_comm_stats st;

		CHECK(inc_comm_stats(c, &st) == 0 && st.send_mss >= 64 && st.send_mss % 4 == 0,
		      "data socket MSS %u is not a multiple of 4", st.send_mss);
	}
	maxs = 1001;   /* the opts == NULL case below */
	for (s = 0; s < nsizes; s++)
		if (sizes[s] > maxs)
			maxs = sizes[s];
	in = calloc((size_t)nr, sizeof(*in));
	buf = malloc((maxs + 1) * 4);
	for (k = 0; k < nr; k++)
		in[k] = malloc((maxs + 1) * 4);

	for (it = 0; it < iters; it++)
	for (m = 0; m < 3; m++) {
		if (!modes[m])
			continue;
		for (a = 0; a < 2; a++) {
			struct inc_allreduce_opts o;

			if (!algos[a])
				continue;
			CHECK(inc_allreduce_opts_init(&o) == 0, "opts");
			o.compression = (enum inc_compression)m;
			o.algo = (enum inc_algo)a;
			o.error_bound = eb;
			o.segment_bytes = segb;
			if (!o.timeout_ms || o.timeout_ms > 60000)
				o.timeout_ms = 60000;
			for (s = 0; s < nsizes; s++) {
				size_t n = sizes[s], bad = 0, mism = 0, first = 0, unfixed = 0;
				/* Quantisation points on a value's path (docs/userlib.md,
				 * "Tolerance"); nic counts as software with a NIC on the
				 * path and as the owner step alone without one. */
				int qm = m == INC_COMP_NIC && nic_on_path ? INC_COMP_SOFTWARE : m;
				double tolq = qm == INC_COMP_NONE ? 0 :
					      (a == INC_ALGO_WA ? (qm == INC_COMP_SOFTWARE ? nr - 1 : 0) : nr) *
					      inc_codec_abs_bound(eb);
				/* A NIC passes a frame unchanged when compressing would
				 * not make it smaller (docs/wire-format.md), so on a NIC
				 * path a hop may or may not quantise: no bitwise
				 * simulation then, but the owner step still makes every
				 * ring result a fixed point of the codec. */
				int simulate = !(m == INC_COMP_NIC && nic_on_path);
				int fixed = a == INC_ALGO_RING && m != INC_COMP_NONE && nr > 1;

				cas++;
				for (k = 0; k < nr; k++)
					gen(in[k], n, k, n, cas);
				memcpy(buf, in[rk], n * 4);
				buf[n] = 12345.0f;   /* guard */
				rc = inc_allreduce_f32(c, buf, n, &o);
				snprintf(what, sizeof(what), "N=%d %s/%s n=%zu seg=%zu", nr,
					 mname[m], aname[a], n, segb);
				CHECK(rc == 0, "%s: %s", what, inc_strerror(rc));
				if (rc)
					goto out;
				CHECK(buf[n] == 12345.0f, "%s: wrote past the buffer", what);
				for (i = 0; i < n; i++) {
					double ref = 0, mag = 0, tol;
					float e;

					for (k = 0; k < nr; k++) {
						ref += in[k][i];
						mag += fabs(in[k][i]);
					}
					tol = tolq + nr * mag * 0x1p-23;
					if (!(fabs((double)buf[i] - ref) <= tol)) {
						if (!bad)
							first = i;
						bad++;
					}
					if (simulate) {
						e = expect(in, i, n, m, a, eb);
						if (memcmp(&e, &buf[i], 4))
							mism++;
					}
					if (fixed) {
						e = q(buf[i], eb);
						if (memcmp(&e, &buf[i], 4))
							unfixed++;
					}
				}
				CHECK(bad == 0, "%s: %zu values outside tolerance (first %zu: %g)",
				      what, bad, first, bad ? (double)buf[first] : 0.0);
				CHECK(mism == 0, "%s: %zu values differ from the serial simulation",
				      what, mism);
				CHECK(unfixed == 0, "%s: %zu values are not codec fixed points (owner step)",
				      what, unfixed);
				inc_ar_check_identical(c, nr, buf, n, &o, what);
				if (!quiet && rk == 0 && it == 0)
					fprintf(stderr, "ok %s\n", what);
			}
		}
	}
	/* opts == NULL: the environment decides (INC_* set by the caller or
	 * defaults); the result must still be within the widest tolerance. */
	{
		size_t n = 1001;
		for (k = 0; k < nr; k++)
			gen(in[k], n, k, n, 999);
		memcpy(buf, in[rk], n * 4);
		rc = inc_allreduce_f32(c, buf, n, NULL);
		CHECK(rc == 0, "opts NULL: %s", inc_strerror(rc));
		for (i = 0; rc == 0 && i < n; i++) {
			double ref = 0;

			for (k = 0; k < nr; k++)
				ref += in[k][i];
			if (!(fabs(buf[i] - ref) <= nr * inc_codec_abs_bound(10) + 1e-4)) {
				CHECK(0, "opts NULL: value %zu off", i);
				break;
			}
		}
	}
	/* Bad arguments. */
	CHECK(inc_allreduce_f32(NULL, buf, 1, NULL) == INC_E_ARG, "NULL comm");
	CHECK(inc_allreduce_f32(c, NULL, 1, NULL) == INC_E_ARG, "NULL buf");
	{
		struct inc_allreduce_opts o;

		inc_allreduce_opts_init(&o);
		o.error_bound = 0;
		CHECK(inc_allreduce_f32(c, buf, 1, &o) == INC_E_ARG, "eb 0");
		o.error_bound = 10;
		o.compression = (enum inc_compression)7;
		CHECK(inc_allreduce_f32(c, buf, 1, &o) == INC_E_ARG, "mode 7");
		o.compression = INC_COMP_NONE;
		o.segment_bytes = 33;
		CHECK(inc_allreduce_f32(c, buf, 1, &o) == INC_E_ARG, "segment 33");
	}
out:
	inc_comm_destroy(c);
	for (k = 0; k < nr; k++)
		free(in[k]);
	free(in);
	free(buf);
	fflush(stderr);
	printf("rank %d: %lu passed, %lu failed\n", rk,
	       atomic_load(&inc_test_passed), atomic_load(&inc_test_failed));
	return atomic_load(&inc_test_failed) ? 1 : 0;
}
