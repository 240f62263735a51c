// SPDX-License-Identifier: MIT
/*
 * iar_check.c - one rank of the non-blocking all-reduce test; run it with
 * inc-run -n N. For every mode and algorithm it issues a batch of
 * inc_iallreduce_f32 calls of odd sizes on separate buffers (a blocking
 * call and a call on the same buffer twice among them, so blocking calls
 * queue behind requests and order matters), polls them with inc_test,
 * waits for them in a scrambled order, and checks:
 *   - every result bit for bit against the same sequence of blocking calls
 *     on copies of the inputs;
 *   - every rank holds the same bytes (a hash summed over ranks);
 *   - the sum itself within the codec's tolerance of a serial double sum
 *     (a wrong buffer or a lost request cannot pass);
 * and the point-to-point exchange inc_sendrecv_f32 for every mode: shifts
 * by +1 and +2 around the ranks and a swap of pairs, odd sizes, once with
 * a non-blocking all-reduce still queued in front of it: what arrives is
 * the sender's data exactly (none; nic without a NIC on the path) or its
 * codec round trip (software).
 *
 *   iar-check [-m none,nic,software] [-a ring,wa] [-r ROUNDS] [-q]
 * Last line: "rank R: N passed, N failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inc_test.h"
#include "inc_list.h"
#include "inceptionn/inceptionn.h"

static const size_t sizes[] = { 1, 7, 0, 1000, 33, 65541, 4099, 300007, 8, 129 };
#define NREQ (sizeof(sizes) / sizeof(sizes[0]))
#define BLOCKING_AT 4   /* call index made with the blocking entry point */
#define REPEAT_OF 9     /* the last call reuses buffer 1: sees its result */

static int nr, rk, quiet;

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dull;
	return x ^ (x >> 33);
}

static float value(int rank, unsigned call, size_t i)
{
	uint64_t r = mix(((uint64_t)rank << 48) ^ ((uint64_t)call << 32) ^ i);
	float m = (float)(r >> 40) / 16777216.0f;

	m *= (r & 3) == 0 ? 1e-4f : (r & 3) == 1 ? 1e-2f : 0.5f;
	return r & 4 ? -m : m;
}

static uint64_t hash(const float *v, size_t n)
{
	uint64_t h = 0x243f6a8885a308d3ull;
	uint32_t u;
	size_t i;

	for (i = 0; i < n; i++) {
		memcpy(&u, &v[i], 4);
		h = mix(h ^ u) + i;
	}
	return h;
}

/* Do all ranks hold hash h? 16-bit pieces summed exactly in float. */
static int same_everywhere(struct inc_comm *c, uint64_t h)
{
	struct inc_allreduce_opts o;
	float f[4];
	int k;

	inc_allreduce_opts_init(&o);
	o.compression = INC_COMP_NONE;
	o.algo = INC_ALGO_RING;
	for (k = 0; k < 4; k++)
		f[k] = (float)(h >> (16 * k) & 0xffff);
	if (inc_allreduce_f32(c, f, 4, &o))
		return 0;
	for (k = 0; k < 4; k++)
		if (f[k] != (float)nr * (float)(h >> (16 * k) & 0xffff))
			return 0;
	return 1;
}

#define mn(m) inc_compression_name(m)

static void run(struct inc_comm *c, enum inc_compression mode, enum inc_algo algo,
		unsigned round)
{
	struct inc_allreduce_opts o;
	struct inc_request *req[NREQ] = { 0 };
	float *a[NREQ], *b[NREQ];
	size_t k, i;
	int rc, done, pending;
	unsigned order[NREQ];
	double bound = inc_codec_abs_bound(10);

	inc_allreduce_opts_init(&o);
	o.compression = mode;
	o.algo = algo;
	o.segment_bytes = round & 1 ? 4096 : 0;
	for (k = 0; k < NREQ; k++) {
		a[k] = malloc((sizes[k] + 1) * sizeof(float));
		b[k] = malloc((sizes[k] + 1) * sizeof(float));
		for (i = 0; i < sizes[k]; i++)
			a[k][i] = b[k][i] = value(rk, (unsigned)k + 16 * round, i);
	}
	/* The batch: non-blocking, one blocking call in the middle, and the
	 * last call on buffer 1 again (same size) after its first request. */
	for (k = 0; k < NREQ; k++) {
		float *buf = k == REPEAT_OF ? a[1] : a[k];
		size_t n = k == REPEAT_OF ? sizes[1] : sizes[k];

		if (k == BLOCKING_AT) {
			rc = inc_allreduce_f32(c, buf, n, &o);
			CHECK(rc == 0, "%s/%s: blocking call among requests: %s", mn(mode),
			      algo == INC_ALGO_WA ? "wa" : "ring", inc_strerror(rc));
			continue;
		}
		rc = inc_iallreduce_f32(c, buf, n, &o, &req[k]);
		CHECK(rc == 0 && req[k], "%s: issue %zu: %s", mn(mode), k, inc_strerror(rc));
	}
	/* inc_test until everything is done, then wait in a scrambled order. */
	do {
		pending = 0;
		for (k = 0; k < NREQ; k++)
			if (req[k] && inc_test(req[k], &done) == 0 && !done)
				pending++;
		if (pending)
			usleep(200);
	} while (pending);
	for (k = 0; k < NREQ; k++)
		order[k] = (unsigned)((k * 7 + round) % NREQ);
	for (k = 0; k < NREQ; k++)
		if (req[order[k]]) {
			rc = inc_wait(req[order[k]]);
			CHECK(rc == 0, "%s: wait %u: %s", mn(mode), order[k], inc_strerror(rc));
		}
	/* The same sequence with blocking calls. */
	for (k = 0; k < NREQ; k++) {
		rc = inc_allreduce_f32(c, k == REPEAT_OF ? b[1] : b[k],
				       k == REPEAT_OF ? sizes[1] : sizes[k], &o);
		CHECK(rc == 0, "%s: blocking reference %zu: %s", mn(mode), k, inc_strerror(rc));
	}
	for (k = 0; k < NREQ; k++) {
		double tol, worst = 0;

		if (k == REPEAT_OF)
			continue;
		/* cnat draws a fresh random stream per encoding, numbered per
		 * rank: the blocking reference runs later, with other draws. */
		CHECK(mode == INC_COMP_CNAT || !memcmp(a[k], b[k], sizes[k] * sizeof(float)),
		      "%s/%s N=%d call %zu (%zu values): non-blocking result differs from blocking",
		      mn(mode), algo == INC_ALGO_WA ? "wa" : "ring", nr, k, sizes[k]);
		CHECK(same_everywhere(c, hash(a[k], sizes[k])), "%s call %zu: ranks differ",
		      mn(mode), k);
		/* one rank: nothing travels, the values come back as they are */
		if ((mode == INC_COMP_CNAT || mode == INC_COMP_CNAT_DET) && nr > 1) {
			/* ring: the owner's round trip leaves powers of two */
			size_t nonfix = 0;

			for (i = 0; algo == INC_ALGO_RING && i < sizes[k]; i++) {
				uint32_t u;

				memcpy(&u, &a[k][i], 4);
				nonfix += (u & 0x7fffff) != 0;
			}
			CHECK(nonfix == 0, "%s call %zu: %zu values not powers of two", mn(mode), k,
			      nonfix);
			continue;
		}
		if (k == 1)    /* summed twice: checked bit for bit above */
			continue;
		/* The sum against a serial double sum (one quantisation per hop
		 * at most with compression: generous but catches a lost call). */
		for (i = 0; i < sizes[k]; i++) {
			double s = 0, d;
			int r;

			for (r = 0; r < nr; r++)
				s += value(r, (unsigned)k + 16 * round, i);
			d = fabs(s - a[k][i]);
			if (d > worst)
				worst = d;
		}
		/* sketch: the sum up to float re-association (the peeling's
		 * subtractions); inc+sketch: one quantization per rank. */
		tol = (mode == INC_COMP_NONE || mode == INC_COMP_SKETCH ? 0 : 2.0 * nr * bound) +
		      1e-5 * nr;
		CHECK(worst <= tol, "%s call %zu: off by %g (tolerance %g)", mn(mode), k, worst, tol);
	}
	for (k = 0; k < NREQ; k++) {
		free(a[k]);
		free(b[k]);
	}
	if (!quiet && rk == 0)
		printf("N=%d %s/%s round %u: %zu calls checked\n", nr, mn(mode),
		       algo == INC_ALGO_WA ? "wa" : "ring", round, NREQ);
}

/* Exchanges: rank r sends to (r + shift) mod N and receives from
 * (r - shift) mod N; shift 0 means pairs (0,1), (2,3), ... swap (an odd
 * last rank keeps its own). */
static void run_sendrecv(struct inc_comm *c, enum inc_compression mode)
{
	if (mode == INC_COMP_CNAT)   /* random draws: no fixed expectation */
		return;
	if (mode == INC_COMP_SKETCH || mode == INC_COMP_INC_SKETCH) {
		/* a sketch is summed, not exchanged: refused before anything moves */
		struct inc_allreduce_opts so;
		float s1 = 1.0f, r1 = 0.0f;

		inc_allreduce_opts_init(&so);
		so.compression = mode;
		CHECK(inc_sendrecv_f32(c, &s1, (rk + 1) % nr, &r1, (rk + nr - 1) % nr, 1, &so) ==
		      INC_E_NOSUPPORT, "sendrecv in a sketch mode: INC_E_NOSUPPORT");
		return;
	}
	static const size_t n_list[] = { 1, 1000, 65541, 300007 };
	struct inc_allreduce_opts o;
	unsigned shift, k;

	inc_allreduce_opts_init(&o);
	o.compression = mode;
	for (shift = 0; shift < 3; shift++)
		for (k = 0; k < sizeof(n_list) / sizeof(n_list[0]); k++) {
			size_t n = n_list[k], i, bad = 0;
			float *s = malloc(n * sizeof(float)), *r = malloc(n * sizeof(float));
			float *want = malloc(n * sizeof(float)), *ar = malloc(64 * sizeof(float));
			uint8_t *tmp = malloc(inc_codec_max_size(n));
			struct inc_request *q = NULL;
			int to, from, rc, src;

			if (shift) {
				to = (rk + (int)shift) % nr;
				from = ((rk - (int)shift) % nr + nr) % nr;
			} else {
				to = from = (rk ^ 1) < nr ? rk ^ 1 : rk;
			}
			src = from;
			for (i = 0; i < n; i++) {
				s[i] = value(rk, 900 + k, i);
				want[i] = value(src, 900 + k, i);
				r[i] = -1.0f;
			}
			for (i = 0; i < 64; i++)
				ar[i] = 1.0f;
			if (mode == INC_COMP_CNAT_DET && src != rk) {
				inc_cnat_encode(want, n, tmp, 0, 0);
				CHECK(inc_cnat_decode(tmp, n, want) == 0, "C_nat round trip");
			}
			if (mode == INC_COMP_SOFTWARE && src != rk) {
				long len = inc_codec_compress(want, n, o.error_bound, tmp,
							      inc_codec_max_size(n));

				CHECK(len > 0 && inc_codec_decompress(tmp, (size_t)len, n, want, n * sizeof(float)) == len,
				      "codec round trip of the expected values");
			}
			if (k == 1)   /* a queued all-reduce in front of the exchange */
				CHECK(inc_iallreduce_f32(c, ar, 64, &o, &q) == 0, "issue");
			rc = inc_sendrecv_f32(c, s, to, r, from, n, &o);
			CHECK(rc == 0, "%s sendrecv shift %u n %zu: %s", mn(mode), shift, n,
			      inc_strerror(rc));
			if (q) {
				rc = inc_wait(q);
				/* C_nat quantises the partial sums: a power of two near N */
				CHECK(rc == 0 && (ar[0] == (float)nr || (mode >= INC_COMP_CNAT &&
				      ar[0] >= 0.5f * (float)nr && ar[0] <= 2.0f * (float)nr)),
				      "%s: all-reduce before the exchange: %s",
				      mn(mode), inc_strerror(rc));
			}
			for (i = 0; i < n; i++)
				bad += memcmp(&r[i], &want[i], 4) != 0;
			CHECK(bad == 0, "%s sendrecv shift %u n %zu from rank %d: %zu values differ",
			      mn(mode), shift, n, from, bad);
			free(s);
			free(r);
			free(want);
			free(ar);
			free(tmp);
		}
}

int main(int argc, char **argv)
{
	const char *modes = "none,nic,software,cnat,cnat-det,sketch,inc+sketch", *algos = "ring,wa";
	unsigned rounds = 2, r;
	struct inc_comm *c;
	int opt, rc, m, al;

	while ((opt = getopt(argc, argv, "m:a:r:q")) != -1) {
		if (opt == 'm')
			modes = optarg;
		else if (opt == 'a')
			algos = optarg;
		else if (opt == 'r')
			rounds = (unsigned)atoi(optarg);
		else if (opt == 'q')
			quiet = 1;
		else {
			fprintf(stderr, "usage: iar-check [-m MODES] [-a ring,wa] [-r ROUNDS] [-q]\n");
			return 2;
		}
	}
	rc = inc_comm_init_env(&c);
	if (rc) {
		fprintf(stderr, "iar-check: %s\n", inc_strerror(rc));
		return 1;
	}
	nr = inc_comm_size(c);
	rk = inc_comm_rank(c);
	for (r = 0; r < rounds; r++)
		for (m = 0; m < INC_COMP_COUNT; m++)
			for (al = 0; al < 2; al++) {
				if (!inc_listed(modes, mn(m)) || !strstr(algos, al ? "wa" : "ring"))
					continue;
				run(c, (enum inc_compression)m, al ? INC_ALGO_WA : INC_ALGO_RING, r);
			}
	for (m = 0; m < INC_COMP_COUNT; m++)
		if (inc_listed(modes, mn(m)))
			run_sendrecv(c, (enum inc_compression)m);
	inc_comm_destroy(c);
	printf("rank %d: ", rk);
	return inc_test_done();
}
