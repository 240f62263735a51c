// SPDX-License-Identifier: MIT
/*
 * inc-bench - libinceptionn benchmarks. They print figures measured in the
 * same run and never judge them.
 *
 * inc-bench codec [-M MiB] [-r REPS]
 *   Stream codec GB/s (portable = the model, AVX2, and AVX2 with the
 *   AVX-512 decoder where the CPU has it) next to memcpy GB/s
 *   of the same buffer, on gradient-like data (inc_fg_payload
 *   INC_FG_GRADIENT), with the compression ratio, at eb 6, 8 and 10.
 *   GB/s counts uncompressed bytes; 1 GB = 1e9 bytes; best of REPS.
 *   Then the same for the multi-stream container (inc_codec_compress_parts /
 *   inc_codec_decompress_parts) with K = 2..4 parts (portable: K = 4 only),
 *   each row with its own memcpy figure (one copy timed before each
 *   repetition), which the row's ratios divide by. The CPU's model name
 *   (/proc/cpuinfo) is printed beside both tables. Then the round trip q(x)
 *   in place, as nic mode's host side needs it: through the stream
 *   (compress + decompress, K = 4) and value by value (inc_codec_quantize),
 *   without and with a residual (error feedback), GB/s of values next to
 *   memcpy.
 *
 * inc-bench frame [-m MTU] [-n FRAMES] [-r REPS] [-e EB]
 *   The frame path of the emulated NICs: inc_frame_compress /
 *   inc_frame_decompress (the model, scalar) and inc_frame_compress_fast /
 *   _decompress_fast (the model's frame logic with the SIMD kernels) on
 *   FRAMES tagged TCP frames of MTU bytes (default 256 x 9000, TCP
 *   timestamps on, gradient-like payloads), GB/s of uncompressed frame
 *   bytes next to memcpy of the same frames, and fast/model. A sampled
 *   share (every 16th frame of every repetition) of the fast outputs is
 *   compared with the model's; a difference stops the benchmark.
 *
 * inc-bench sketch [-n VALUES] [-r REPS] [-w WORKERS]
 *   The lossless homomorphic codec against sparsity: for scattered and
 *   clustered (layer-like runs) non-zeros at densities 0.1%..100% per
 *   worker, WORKERS gradients summed through their sketches: candidates,
 *   bytes of index + cells vs raw, recovery rate (share peeled) at gamma
 *   1.23 and at the default, encode (index + sketch of one worker) and
 *   decode (peeling of the sum) GB/s next to memcpy GB/s.
 *
 * inc-bench codecs [-r REPS] GRADIENTS.f32
 *   Every codec on one real gradient (raw float32, e.g. inc-train
 *   --save-grads): none, INCEPTIONN at 2^-6/2^-8/2^-10, truncation
 *   16/22/24 bits (nominal ratio), C_nat stochastic and deterministic, the
 *   sketch and INCEPTIONN+sketch as self-contained messages: ratio, encode
 *   and decode GB/s next to memcpy GB/s.
 *
 * inc-bench allreduce [-b MIN] [-e MAX] [-f FACTOR] [-w WARMUP] [-n ITERS]
 *                     [-m none,software,nic,sketch,inc+sketch] [-a ring,wa]
 *                     [-g SEGBYTES] [-d DENSITY]
 *   One rank; run it with inc-run -n N, in the namespace cluster, or under
 *   mpirun (inc-bench-mpi, which adds MPI_Allreduce on the same sizes).
 *   nccl-tests style table: size, time, algbw = size/time,
 *   busbw = algbw * 2(N-1)/N, the largest number of bytes one rank put on
 *   its data sockets per call ("wire", after software compression), and
 *   effbw = wire/time, the bandwidth the busiest link actually carried.
 *   Sizes MIN..MAX bytes (default 4K..256M). time is per call: each rank
 *   averages ITERS calls, each started after a small barrier all-reduce,
 *   and the slowest rank's average is reported. -d DENSITY keeps each value
 *   with that probability (each rank its own places): sparse gradients,
 *   where the sketch modes (ring/sk, ring/inc+sk, wa/...) pay; their rows
 *   end with "rec", the share of candidates peeled so far.
 *
 * inc-bench allreduce ... [-F] [-S RATIO [-P PARTS]]
 *   The cost of the library's defaults: every lossy mode's row (plain: no
 *   feedback, no scaling) is followed by a row with error feedback (-F,
 *   "+ef": a residual per rank, zeroed once per size and kept across the
 *   calls) and one with error feedback and balanced adaptive scaling at
 *   target RATIO (-S, "+ef+sc": a state of PARTS parts, default 16, like a
 *   network's layers; then part i of the data is scaled by 2^-(2 (i mod
 *   8)) for every row, so the parts differ in magnitude). The table then
 *   adds codec(us), the library's codec time per call (inc_comm_stats
 *   codec_ns, slowest rank), time and codec time over the plain row's of
 *   the same size, and memcpy GB/s of the same buffer beside the codec's
 *   GB/s (size / codec time).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef INC_WITH_MPI
#include <mpi.h>
#endif

#include "inc_bench_util.h"
#include "inc_list.h"
#include "inc_framegen.h"
#include "inc_model.h"
#include "inceptionn/inceptionn.h"
#include "inceptionn/inc_frame_fast.h"

static size_t parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	switch (*end) {
	case 'k': case 'K': v *= 1024; break;
	case 'm': case 'M': v *= 1024 * 1024; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024; break;
	default: break;
	}
	return (size_t)v;
}

/* The CPU's model name (/proc/cpuinfo), for the tables: the codec's
 * figures depend on it. */
static const char *cpu_model(void)
{
	static char name[128] = "unknown CPU";
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && c) {
			snprintf(name, sizeof(name), "%s", c + 2);
			name[strcspn(name, "\n")] = 0;
			break;
		}
	}
	if (f)
		fclose(f);
	return name;
}

static int bench_codec(int argc, char **argv)
{
	static const unsigned ebs[] = { 6, 8, 10 };
	size_t mib = 64, bytes, n, cap;
	int reps = 5, opt, k, impl;
	unsigned i;
	uint8_t *in, *dst, *stream;
	uint64_t rng = 0xb16b00b5cafef00dull;
	double t, gbs_cpy;

	while ((opt = getopt(argc, argv, "M:r:")) != -1) {
		if (opt == 'M')
			mib = strtoul(optarg, NULL, 0);
		else if (opt == 'r')
			reps = atoi(optarg);
		else {
			fprintf(stderr, "usage: inc-bench codec [-M MiB] [-r REPS]\n");
			return 2;
		}
	}
	bytes = mib << 20;
	n = bytes / 4;
	cap = inc_codec_max_size(n);
	in = malloc(bytes);
	dst = malloc(bytes);
	stream = malloc(cap);
	if (!mib || reps < 1 || !in || !dst || !stream) {
		fprintf(stderr, "inc-bench: cannot allocate %zu MiB buffers\n", mib);
		return 1;
	}
	inc_fg_payload(in, bytes, INC_FG_GRADIENT, &rng);
	memset(dst, 0, bytes);
	memset(stream, 0, cap);
	gbs_cpy = inc_bench_memcpy_gbs(dst, in, bytes, reps);
	printf("inc-bench codec: %zu MiB gradient-like float32, best of %d; memcpy %.2f GB/s; CPU %s (%ld online)\n",
	       mib, reps, gbs_cpy, cpu_model(), sysconf(_SC_NPROCESSORS_ONLN));
	printf("%-8s %-3s %7s %13s %8s %15s %8s\n", "impl", "eb", "ratio",
	       "compress GB/s", "/memcpy", "decompress GB/s", "/memcpy");
	for (impl = INC_CODEC_PORTABLE; impl <= INC_CODEC_AVX512; impl++) {
		if (inc_codec_select((enum inc_codec_impl)impl)) {
			printf("%-8s (not supported by this CPU)\n",
			       impl == INC_CODEC_AVX2 ? "avx2" : "avx512");
			continue;
		}
		for (i = 0; i < sizeof(ebs) / sizeof(ebs[0]); i++) {
			double bc = 1e9, bd = 1e9, gc, gd;
			long slen = 0, r;

			for (k = 0; k < reps; k++) {
				t = inc_bench_now();
				slen = inc_codec_compress((const float *)(void *)in, n, ebs[i],
							  stream, cap);
				t = inc_bench_now() - t;
				if (slen < 0) {
					fprintf(stderr, "inc-bench: compress: %s\n", inc_strerror((int)slen));
					return 1;
				}
				if (t < bc)
					bc = t;
				t = inc_bench_now();
				r = inc_codec_decompress(stream, (size_t)slen, n, (float *)(void *)dst, bytes);
				t = inc_bench_now() - t;
				if (r != slen) {
					fprintf(stderr, "inc-bench: decompress gave %ld, want %ld\n", r, slen);
					return 1;
				}
				inc_bench_sink = dst[bytes / 3];
				if (t < bd)
					bd = t;
			}
			gc = (double)bytes / bc / 1e9;
			gd = (double)bytes / bd / 1e9;
			printf("%-8s %-3u %6.2fx %13.2f %7.2fx %15.2f %7.2fx\n", inc_codec_name(),
			       ebs[i], (double)bytes / (double)slen, gc, gc / gbs_cpy, gd,
			       gd / gbs_cpy);
		}
	}
	/* Multi-stream container: the same data cut into K parts. */
	free(stream);
	cap = inc_codec_parts_max_size(n, INC_CODEC_PARTS_MAX);
	stream = malloc(cap);
	if (!stream) {
		fprintf(stderr, "inc-bench: cannot allocate %zu bytes\n", cap);
		return 1;
	}
	memset(stream, 0, cap);
	/* The load of a shared machine moves memcpy from row to row, so each
	 * row also times memcpy, one copy before each repetition, and divides
	 * by that. */
	printf("multi-stream (inc_codec_compress_parts/decompress_parts, K parts; memcpy timed in each row; CPU %s):\n",
	       cpu_model());
	printf("%-8s %-3s %-2s %7s %11s %13s %8s %15s %8s\n", "impl", "eb", "K", "ratio",
	       "memcpy GB/s", "compress GB/s", "/memcpy", "decompress GB/s", "/memcpy");
	for (impl = INC_CODEC_PORTABLE; impl <= INC_CODEC_AVX512; impl++) {
		unsigned kp;

		if (inc_codec_select((enum inc_codec_impl)impl))
			continue;
		for (i = 0; i < sizeof(ebs) / sizeof(ebs[0]); i++)
			for (kp = 2; kp <= INC_CODEC_PARTS_MAX; kp++) {
				double bc = 1e9, bd = 1e9, bm = 1e9, gc, gd, gm;
				long slen = 0, r;

				/* The portable path only at K = 4: it loops over
				 * the parts, so K changes nothing. */
				if (impl == INC_CODEC_PORTABLE && kp != INC_CODEC_PARTS_MAX)
					continue;
				for (k = 0; k < reps; k++) {
					t = inc_bench_now();
					memcpy(dst, in, bytes);
					t = inc_bench_now() - t;
					inc_bench_sink = dst[bytes / 2];
					if (t < bm)
						bm = t;
					t = inc_bench_now();
					slen = inc_codec_compress_parts((const float *)(void *)in, n,
									ebs[i], kp, stream, cap);
					t = inc_bench_now() - t;
					if (slen < 0) {
						fprintf(stderr, "inc-bench: compress_parts: %s\n",
							inc_strerror((int)slen));
						return 1;
					}
					if (t < bc)
						bc = t;
					t = inc_bench_now();
					r = inc_codec_decompress_parts(stream, (size_t)slen, n,
								       (float *)(void *)dst, bytes);
					t = inc_bench_now() - t;
					if (r != slen) {
						fprintf(stderr, "inc-bench: decompress_parts gave %ld, want %ld\n",
							r, slen);
						return 1;
					}
					inc_bench_sink = dst[bytes / 3];
					if (t < bd)
						bd = t;
				}
				gm = (double)bytes / bm / 1e9;
				gc = (double)bytes / bc / 1e9;
				gd = (double)bytes / bd / 1e9;
				printf("%-8s %-3u %-2u %6.2fx %11.2f %13.2f %7.2fx %15.2f %7.2fx\n",
				       inc_codec_name(), ebs[i], kp, (double)bytes / (double)slen,
				       gm, gc, gc / gm, gd, gd / gm);
			}
	}
	/* C_nat: one byte per value (ratio 4), stochastic and deterministic. */
	printf("C_nat (inc_cnat_encode/decode, 1 byte per value; memcpy timed in each row):\n");
	printf("%-8s %-13s %11s %13s %8s %15s %8s\n", "impl", "rounding", "memcpy GB/s",
	       "encode GB/s", "/memcpy", "decode GB/s", "/memcpy");
	for (impl = INC_CODEC_PORTABLE; impl <= INC_CODEC_AVX2; impl++) {
		int sto;

		if (inc_codec_select((enum inc_codec_impl)impl))
			continue;
		for (sto = 1; sto >= 0; sto--) {
			double bc = 1e9, bd = 1e9, gc, gd;
			double gm = inc_bench_memcpy_gbs(dst, in, bytes, reps);

			for (k = 0; k < reps; k++) {
				t = inc_bench_now();
				inc_cnat_encode((const float *)(void *)in, n, stream, sto, (uint64_t)k);
				t = inc_bench_now() - t;
				if (t < bc)
					bc = t;
				t = inc_bench_now();
				if (inc_cnat_decode(stream, n, (float *)(void *)dst)) {
					fprintf(stderr, "inc-bench: C_nat decode failed\n");
					return 1;
				}
				t = inc_bench_now() - t;
				inc_bench_sink = dst[bytes / 3];
				if (t < bd)
					bd = t;
			}
			gc = (double)bytes / bc / 1e9;
			gd = (double)bytes / bd / 1e9;
			printf("%-8s %-13s %11.2f %13.2f %7.2fx %15.2f %7.2fx\n", inc_codec_name(),
			       sto ? "stochastic" : "deterministic", gm, gc, gc / gm, gd, gd / gm);
		}
	}
	/* q(x) in place: through the stream, and value by value. */
	printf("round trip q(x) in place (nic mode's host side; memcpy timed in each row):\n");
	printf("%-8s %-3s %11s %13s %8s %13s %8s %13s %8s\n", "impl", "eb", "memcpy GB/s",
	       "stream GB/s", "/memcpy", "q GB/s", "/memcpy", "q+res GB/s", "/memcpy");
	for (impl = INC_CODEC_PORTABLE; impl <= INC_CODEC_AVX512; impl++) {
		float *res = (float *)(void *)stream;   /* cap >= bytes */

		if (inc_codec_select((enum inc_codec_impl)impl))
			continue;
		for (i = 0; i < sizeof(ebs) / sizeof(ebs[0]); i++) {
			double bs = 1e9, bq = 1e9, be = 1e9, gs, gq, ge;
			double gm = inc_bench_memcpy_gbs(dst, in, bytes, reps);
			uint8_t *enc = malloc(cap);

			if (!enc) {
				fprintf(stderr, "inc-bench: cannot allocate %zu bytes\n", cap);
				return 1;
			}
			for (k = 0; k < reps; k++) {
				long len;

				memcpy(dst, in, bytes);
				t = inc_bench_now();
				len = inc_codec_compress_parts((const float *)(void *)dst, n, ebs[i],
							       INC_CODEC_PARTS_MAX, enc, cap);
				if (len < 0 || inc_codec_decompress_parts(enc, (size_t)len, n,
									  (float *)(void *)dst, bytes) != len) {
					fprintf(stderr, "inc-bench: stream round trip failed\n");
					return 1;
				}
				t = inc_bench_now() - t;
				if (t < bs)
					bs = t;
				memcpy(dst, in, bytes);
				t = inc_bench_now();
				inc_codec_quantize((float *)(void *)dst, NULL, n, ebs[i]);
				t = inc_bench_now() - t;
				if (t < bq)
					bq = t;
				memcpy(dst, in, bytes);
				memset(res, 0, bytes);
				t = inc_bench_now();
				inc_codec_quantize((float *)(void *)dst, res, n, ebs[i]);
				t = inc_bench_now() - t;
				inc_bench_sink = dst[bytes / 3];
				if (t < be)
					be = t;
			}
			free(enc);
			gs = (double)bytes / bs / 1e9;
			gq = (double)bytes / bq / 1e9;
			ge = (double)bytes / be / 1e9;
			printf("%-8s %-3u %11.2f %13.2f %7.2fx %13.2f %7.2fx %13.2f %7.2fx\n",
			       inc_codec_name(), ebs[i], gm, gs, gs / gm, gq, gq / gm, ge, ge / gm);
		}
	}
	inc_codec_select(INC_CODEC_AUTO);
	free(in);
	free(dst);
	free(stream);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The frame path of the emulated NICs                                       */
/* ------------------------------------------------------------------------ */
typedef long (*frame_fn)(const uint8_t *, size_t, uint8_t *, size_t,
			 const struct inc_frame_config *, struct inc_frame_info *);

/* One pass of fn over the frames: seconds; sizes of the outputs in olen. */
static double frame_pass(frame_fn fn, uint8_t *const *in, const size_t *len, size_t nf,
			 uint8_t **out, size_t *olen, const struct inc_frame_config *cfg)
{
	double t = inc_bench_now();
	size_t i;
	long r;

	for (i = 0; i < nf; i++) {
		r = fn(in[i], len[i], out[i], INC_FRAME_OUT_MAX, cfg, NULL);
		olen[i] = r > 0 ? (size_t)r : 0;
	}
	return inc_bench_now() - t;
}

static int bench_frame(int argc, char **argv)
{
	struct inc_frame_config cfg;
	struct inc_fg_frame d;
	size_t nf = 256, mtu = 9000, plen, i, flen, total = 0, wire = 0;
	int reps = 5, opt, k, eb = 10;
	uint8_t **fr, **comp, **dec, **tmp, *pay, *cp;
	size_t *len, *clen, *dlen, *tlen;
	uint64_t rng = 0xf4a3e5b2c1d0e9f8ull;
	double bm = 1e9, best[2][2] = { { 1e9, 1e9 }, { 1e9, 1e9 } }, t, gm;
	unsigned long sampled = 0;
	int impl;

	while ((opt = getopt(argc, argv, "m:n:r:e:")) != -1) {
		switch (opt) {
		case 'm': mtu = strtoul(optarg, NULL, 0); break;
		case 'n': nf = strtoul(optarg, NULL, 0); break;
		case 'r': reps = atoi(optarg); break;
		case 'e': eb = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: inc-bench frame [-m MTU] [-n FRAMES] [-r REPS] [-e EB]\n");
			return 2;
		}
	}
	if (mtu < 100 || mtu > 9000 || nf < 1 || reps < 1 || eb < 1 || eb > 126) {
		fprintf(stderr, "inc-bench: frame: MTU 100..9000, FRAMES >= 1, REPS >= 1, EB 1..126\n");
		return 2;
	}
	inc_frame_config_default(&cfg);
	cfg.eb = (uint8_t)eb;
	plen = (mtu - 20 - 32) & ~(size_t)3;    /* IP, TCP with timestamps */
	fr = calloc(nf, sizeof(*fr));
	comp = calloc(nf, sizeof(*comp));
	dec = calloc(nf, sizeof(*dec));
	tmp = calloc(nf, sizeof(*tmp));
	len = calloc(nf, sizeof(*len));
	clen = calloc(nf, sizeof(*clen));
	dlen = calloc(nf, sizeof(*dlen));
	tlen = calloc(nf, sizeof(*tlen));
	pay = malloc(plen);
	cp = malloc(nf * (mtu + 14));
	if (!fr || !comp || !dec || !tmp || !len || !clen || !dlen || !tlen || !pay || !cp)
		return 1;
	for (i = 0; i < nf; i++) {
		fr[i] = malloc(INC_FRAME_OUT_MAX);
		comp[i] = malloc(INC_FRAME_OUT_MAX);
		dec[i] = malloc(INC_FRAME_OUT_MAX);
		tmp[i] = malloc(INC_FRAME_OUT_MAX);
		if (!fr[i] || !comp[i] || !dec[i] || !tmp[i])
			return 1;
		inc_fg_defaults(&d);
		d.tcp_opt_len = 12;
		d.seq = (uint32_t)(1 + i * plen);
		inc_fg_payload(pay, plen, INC_FG_GRADIENT, &rng);
		d.payload = pay;
		d.payload_len = plen;
		flen = inc_fg_build(fr[i], INC_FRAME_OUT_MAX, &d);
		len[i] = flen;
		total += flen;
		memset(comp[i], 0, INC_FRAME_OUT_MAX);
		memset(dec[i], 0, INC_FRAME_OUT_MAX);
		memset(tmp[i], 0, INC_FRAME_OUT_MAX);
	}
	memset(cp, 0, nf * (mtu + 14));
	for (k = 0; k < reps; k++) {
		t = inc_bench_now();
		for (i = 0; i < nf; i++)
			memcpy(cp + i * (mtu + 14), fr[i], len[i]);
		t = inc_bench_now() - t;
		inc_bench_sink = cp[len[0] / 2];
		bm = t < bm ? t : bm;
	}
	gm = (double)total / bm / 1e9;
	/* The model's outputs are the reference: comp and dec. */
	frame_pass(inc_frame_compress, fr, len, nf, comp, clen, &cfg);
	frame_pass(inc_frame_decompress, comp, clen, nf, dec, dlen, &cfg);
	for (i = 0; i < nf; i++) {
		wire += clen[i];
		if (!clen[i] || dlen[i] != len[i]) {
			fprintf(stderr, "inc-bench: frame %zu did not round-trip through the model\n", i);
			return 1;
		}
	}
	inc_codec_select(INC_CODEC_AUTO);
	printf("inc-bench frame: %zu tagged TCP frames of %zu bytes (MTU %zu, %zu-byte gradient-like payloads),\n"
	       "eb %d, ratio %.2fx (frame bytes / wire bytes), best of %d; GB/s of uncompressed frame\n"
	       "bytes; memcpy of the same frames %.2f GB/s; CPU %s\n", nf, len[0], mtu, plen, eb,
	       (double)total / (double)wire, reps, gm, cpu_model());
	for (k = 0; k < reps; k++)
		for (impl = 0; impl < 2; impl++) {
			frame_fn c = impl ? inc_frame_compress_fast : inc_frame_compress;
			frame_fn dd = impl ? inc_frame_decompress_fast : inc_frame_decompress;

			t = frame_pass(c, fr, len, nf, tmp, tlen, &cfg);
			best[impl][0] = t < best[impl][0] ? t : best[impl][0];
			for (i = (size_t)k % 16; impl && i < nf; i += 16, sampled++)
				if (tlen[i] != clen[i] || memcmp(tmp[i], comp[i], clen[i])) {
					fprintf(stderr, "inc-bench: frame %zu: the fast compress differs from the model\n", i);
					return 1;
				}
			t = frame_pass(dd, comp, clen, nf, tmp, tlen, &cfg);
			best[impl][1] = t < best[impl][1] ? t : best[impl][1];
			for (i = (size_t)k % 16; impl && i < nf; i += 16, sampled++)
				if (tlen[i] != dlen[i] || memcmp(tmp[i], dec[i], dlen[i])) {
					fprintf(stderr, "inc-bench: frame %zu: the fast decompress differs from the model\n", i);
					return 1;
				}
		}
	printf("%-14s %13s %8s %15s %8s %13s\n", "frame path", "compress GB/s", "/memcpy",
	       "decompress GB/s", "/memcpy", "us/frame c+d");
	for (impl = 0; impl < 2; impl++) {
		double gc = (double)total / best[impl][0] / 1e9, gd = (double)total / best[impl][1] / 1e9;

		printf("%-14s %13.2f %7.2fx %15.2f %7.2fx %13.2f\n",
		       impl ? (inc_frame_kernels_fast() != &inc_frame_kernels_model ? "fast (avx2)" : "fast (model)") :
			      "model (scalar)",
		       gc, gc / gm, gd, gd / gm, (best[impl][0] + best[impl][1]) / (double)nf * 1e6);
	}
	printf("fast/model: compress %.2fx, decompress %.2fx; %lu sampled fast outputs equal to the model's\n",
	       best[0][0] / best[1][0], best[0][1] / best[1][1], sampled);
	for (i = 0; i < nf; i++) {
		free(fr[i]);
		free(comp[i]);
		free(dec[i]);
		free(tmp[i]);
	}
	free(fr); free(comp); free(dec); free(tmp); free(len); free(clen); free(dlen); free(tlen);
	free(pay);
	free(cp);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Sketch: recovery, bytes and time against sparsity                         */
/* ------------------------------------------------------------------------ */
static uint64_t sk_rng = 0x5eed5eedabcdull;

static double sk_unif(void)
{
	uint64_t x = (sk_rng += 0x9e3779b97f4a7c15ull);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return (double)((x ^ (x >> 31)) >> 11) / 9007199254740992.0;
}

/* Worker k's gradient: non-zero with probability dens, either scattered
 * at random or (clustered) in runs of ~4096 values, as whole layers. */
static void sk_fill(float *x, size_t n, double dens, int clustered)
{
	size_t i = 0;

	while (i < n) {
		size_t run = clustered ? 1 + (size_t)(sk_unif() * 8192) : 1, k;
		int on = sk_unif() < dens;

		for (k = 0; k < run && i < n; k++, i++)
			x[i] = on ? (float)(sk_unif() - 0.5) : 0.0f;
	}
}

static int bench_sketch(int argc, char **argv)
{
	static const double dens[] = { 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0 };
	size_t n = 4u << 20, i, di;
	int reps = 3, workers = 4, opt, k, r, cl, ix;

	while ((opt = getopt(argc, argv, "n:r:w:")) != -1) {
		switch (opt) {
		case 'n': n = parse_size(optarg); break;
		case 'r': reps = atoi(optarg); break;
		case 'w': workers = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: inc-bench sketch [-n VALUES] [-r REPS] [-w WORKERS]\n");
			return 2;
		}
	}
	if (n < 1 || n > INC_SKETCH_N_MAX || reps < 1 || workers < 1 || workers > 64) {
		fprintf(stderr, "inc-bench: bad -n, -r or -w\n");
		return 2;
	}
	printf("Sketch (inc_sketch_*): %zu values per worker, %d workers summed, best of %d;\n"
	       "density = non-zeros per worker; cand = candidates of the summed index;\n"
	       "bytes = index + cells of one all-reduced message vs 4n raw; rate = share of\n"
	       "candidates peeled at gamma 1.23 (paper) and %.2f (default); encode = index +\n"
	       "sketch of one worker, decode = peel of the sum, GB/s of raw bytes; memcpy of\n"
	       "the same bytes timed in each row.\n", n, workers, reps, INC_SKETCH_GAMMA);
	printf("%-9s %-7s %-6s %8s %9s %8s %7s %7s %11s %11s %8s %11s %8s\n", "layout", "density",
	       "index", "cand", "bytes", "ratio", "r1.23", "r_def", "memcpy GB/s", "encode GB/s",
	       "/memcpy", "decode GB/s", "/memcpy");
	for (cl = 0; cl < 2; cl++)
		for (di = 0; di < sizeof(dens) / sizeof(dens[0]); di++)
			for (ix = 0; ix < 2; ix++) {
				float **x = calloc((size_t)workers, sizeof(*x)), *out = malloc(n * 4);
				float *dst = malloc(n * 4), *cells = NULL, *part = NULL;
				struct inc_sketch_geom g;
				struct inc_sketch_stats st;
				uint32_t *idx, *mine;
				uint64_t nnz = 0;
				double rate[2] = { 0, 0 }, gm, be = 1e9, bd = 1e9, t;
				size_t iw, nc = 0;
				int gi;

				if (!x || !out || !dst)
					return 1;
				for (k = 0; k < workers; k++) {
					x[k] = malloc(n * 4);
					if (!x[k])
						return 1;
					sk_fill(x[k], n, dens[di], cl);
					for (i = 0; i < n; i++)
						nnz += x[k][i] != 0.0f;
				}
				if (inc_sketch_geom_index(&g, n, ix ? INC_SKETCH_BLOOM : INC_SKETCH_BITMAP,
							  nnz, 42))
					return 1;
				iw = inc_sketch_index_words(&g);
				idx = calloc(iw + 1, 4);
				mine = calloc(iw + 1, 4);
				for (k = 0; k < workers; k++) {
					memset(mine, 0, (iw + 1) * 4);
					inc_sketch_index_add(&g, x[k], mine);
					for (i = 0; i < iw; i++)
						idx[i] |= mine[i];
				}
				for (gi = 0; gi < 2; gi++) {
					if (inc_sketch_geom_cells(&g, inc_sketch_candidates(&g, idx),
								  gi ? INC_SKETCH_GAMMA : 1.23))
						return 1;
					nc = inc_sketch_cells(&g);
					free(cells);
					free(part);
					cells = calloc(nc + 1, 4);
					part = calloc(nc + 1, 4);
					for (k = 0; k < workers; k++) {
						memset(part, 0, (nc + 1) * 4);
						inc_sketch_encode(&g, x[k], part);
						for (i = 0; i < nc; i++)
							cells[i] += part[i];
					}
					for (r = 0; r < reps; r++) {
						memcpy(part, cells, nc * 4);
						t = inc_bench_now();
						if (inc_sketch_decode(&g, idx, part, out, &st))
							return 1;
						t = inc_bench_now() - t;
						if (gi && t < bd)
							bd = t;
					}
					rate[gi] = st.candidates ? (double)st.peeled /
								   (double)st.candidates : 1.0;
				}
				memset(dst, 0, n * 4);   /* faulted in before memcpy is timed */
				gm = inc_bench_memcpy_gbs(dst, x[0], n * 4, reps);
				for (r = 0; r < reps; r++) {
					t = inc_bench_now();
					memset(mine, 0, iw * 4);
					memset(part, 0, nc * 4);
					inc_sketch_index_add(&g, x[0], mine);
					inc_sketch_encode(&g, x[0], part);
					t = inc_bench_now() - t;
					inc_bench_sink = ((uint8_t *)part)[nc];
					if (t < be)
						be = t;
				}
				printf("%-9s %-7g %-6s %8llu %9zu %7.2fx %7.4f %7.4f %11.2f %11.2f "
				       "%7.2fx %11.2f %7.2fx\n", cl ? "clustered" : "scattered",
				       dens[di], g.index == INC_SKETCH_BLOOM ? "bloom" : "bitmap",
				       (unsigned long long)st.candidates, (iw + nc) * 4,
				       (double)n * 4 / (double)((iw + nc) * 4), rate[0], rate[1],
				       gm, n * 4 / be / 1e9, n * 4 / be / 1e9 / gm, n * 4 / bd / 1e9,
				       n * 4 / bd / 1e9 / gm);
				for (k = 0; k < workers; k++)
					free(x[k]);
				free(x);
				free(out);
				free(dst);
				free(cells);
				free(part);
				free(idx);
				free(mine);
			}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Every codec on one real gradient                                          */
/* ------------------------------------------------------------------------ */
enum cx { CX_NONE, CX_INC, CX_TRUNC, CX_CNAT, CX_CNAT_DET, CX_SKETCH, CX_INC_SKETCH };

struct cx_row {
	const char *name;
	enum cx kind;
	unsigned arg;       /* eb or truncated bits */
};

/* One encode (into enc, returns its size or < 0) or decode (0 or < 0). */
static long cx_run(const struct cx_row *c, int decode, const float *g, size_t n, uint8_t *enc,
		   size_t cap, size_t elen, float *out, float *tmp)
{
	size_t i;
	long r;

	switch (c->kind) {
	case CX_NONE:
		memcpy(decode ? (void *)out : (void *)enc, decode ? (const void *)enc : (const void *)g,
		       n * 4);
		return decode ? 0 : (long)(n * 4);
	case CX_INC:
		if (decode)
			return inc_codec_decompress(enc, elen, n, out, n * 4) < 0 ? -1 : 0;
		return inc_codec_compress(g, n, c->arg, enc, cap);
	case CX_TRUNC:      /* the values with T low bits cleared; nominal size */
		if (decode)
			return 0;
		for (i = 0; i < n; i++) {
			uint32_t u;

			memcpy(&u, &g[i], 4);
			u &= ~((1u << c->arg) - 1u);
			memcpy(&tmp[i], &u, 4);
		}
		return (long)(n * (32 - c->arg) / 8);
	case CX_CNAT:
	case CX_CNAT_DET:
		if (decode)
			return inc_cnat_decode(enc, n, out) ? -1 : 0;
		inc_cnat_encode(g, n, enc, c->kind == CX_CNAT, 1);
		return (long)n;
	case CX_SKETCH:
	case CX_INC_SKETCH:
		if (decode)
			return inc_sketch_decompress(enc, elen, out, n, NULL) ? -1 : 0;
		if (c->kind == CX_INC_SKETCH) {
			/* quantize: the INCEPTIONN round trip at eb */
			r = inc_codec_compress(g, n, c->arg, enc, cap);
			if (r < 0 || inc_codec_decompress(enc, (size_t)r, n, tmp, n * 4) < 0)
				return -1;
			g = tmp;
		}
		return inc_sketch_compress(g, n, INC_SKETCH_BITMAP, INC_SKETCH_GAMMA, 1, enc, cap,
					   NULL);
	}
	return -1;
}

static int bench_codecs(int argc, char **argv)
{
	static const struct cx_row rows[] = {
		{ "none", CX_NONE, 0 },
		{ "INCEPTIONN 2^-6", CX_INC, 6 }, { "INCEPTIONN 2^-8", CX_INC, 8 },
		{ "INCEPTIONN 2^-10", CX_INC, 10 },
		{ "truncation 16b", CX_TRUNC, 16 }, { "truncation 22b", CX_TRUNC, 22 },
		{ "truncation 24b", CX_TRUNC, 24 },
		{ "C_nat", CX_CNAT, 0 }, { "C_nat det", CX_CNAT_DET, 0 },
		{ "sketch", CX_SKETCH, 0 }, { "INCEPTIONN+sketch", CX_INC_SKETCH, 10 },
	};
	int reps = 5, opt, k;
	size_t n, cap, i, zeros = 0;
	float *g, *out, *tmp;
	uint8_t *enc;
	FILE *f;
	long sz;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		if (opt == 'r')
			reps = atoi(optarg);
		else {
			fprintf(stderr, "usage: inc-bench codecs [-r REPS] GRADIENTS.f32\n");
			return 2;
		}
	}
	if (optind != argc - 1 || reps < 1) {
		fprintf(stderr, "usage: inc-bench codecs [-r REPS] GRADIENTS.f32\n");
		return 2;
	}
	f = fopen(argv[optind], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (sz = ftell(f)) <= 0 || sz % 4 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "inc-bench: %s: not a non-empty float32 file\n", argv[optind]);
		if (f)
			fclose(f);
		return 1;
	}
	n = (size_t)sz / 4;
	cap = inc_codec_max_size(n) + inc_sketch_msg_max(n, INC_SKETCH_BITMAP, INC_SKETCH_GAMMA) + 64;
	g = malloc(n * 4);
	out = malloc(n * 4);
	tmp = malloc(n * 4);
	enc = malloc(cap);
	if (!g || !out || !tmp || !enc || fread(g, 4, n, f) != n) {
		fprintf(stderr, "inc-bench: %s: read failed\n", argv[optind]);
		fclose(f);
		return 1;
	}
	fclose(f);
	memset(out, 0, n * 4);   /* faulted in before memcpy is timed */
	for (i = 0; i < n; i++)
		zeros += g[i] == 0.0f;
	printf("Codecs on %s: %zu values (%.1f%% zero), best of %d; ratio = raw / encoded\n"
	       "bytes (truncation: nominal 32/(32-T)); GB/s of raw bytes; memcpy of the same\n"
	       "bytes timed in each row.\n", argv[optind], n, 100.0 * (double)zeros / (double)n,
	       reps);
	printf("%-18s %8s %11s %11s %8s %11s %8s\n", "codec", "ratio", "memcpy GB/s",
	       "encode GB/s", "/memcpy", "decode GB/s", "/memcpy");
	for (k = 0; k < (int)(sizeof(rows) / sizeof(rows[0])); k++) {
		double gm = inc_bench_memcpy_gbs(out, g, n * 4, reps), be = 1e9, bd = 1e9, t;
		long len = 0;
		int r;

		for (r = 0; r < reps; r++) {
			t = inc_bench_now();
			len = cx_run(&rows[k], 0, g, n, enc, cap, 0, out, tmp);
			t = inc_bench_now() - t;
			be = t < be ? t : be;
			if (len <= 0) {
				fprintf(stderr, "inc-bench: %s: encode failed (%ld)\n", rows[k].name, len);
				return 1;
			}
			t = inc_bench_now();
			if (cx_run(&rows[k], 1, g, n, enc, cap, (size_t)len, out, tmp)) {
				fprintf(stderr, "inc-bench: %s: decode failed\n", rows[k].name);
				return 1;
			}
			t = inc_bench_now() - t;
			bd = t < bd ? t : bd;
		}
		if (rows[k].kind == CX_TRUNC)
			printf("%-18s %7.2fx %11.2f %11.2f %7.2fx %11s %8s\n", rows[k].name,
			       (double)n * 4 / (double)len, gm, n * 4 / be / 1e9, n * 4 / be / 1e9 / gm,
			       "-", "-");
		else
			printf("%-18s %7.2fx %11.2f %11.2f %7.2fx %11.2f %7.2fx\n", rows[k].name,
			       (double)n * 4 / (double)len, gm, n * 4 / be / 1e9, n * 4 / be / 1e9 / gm,
			       n * 4 / bd / 1e9, n * 4 / bd / 1e9 / gm);
	}
	free(g);
	free(out);
	free(tmp);
	free(enc);
	return 0;
}

/* Gather one 48-bit counter per rank, exactly, through the library: three
 * 16-bit pieces as floats in the rank's slots, summed with mode none. */
static int gather_u48(struct inc_comm *c, uint64_t v, uint64_t *out)
{
	int n = inc_comm_size(c), r = inc_comm_rank(c), i, rc;
	float *x = calloc((size_t)n * 3, sizeof(float));
	struct inc_allreduce_opts o;

	inc_allreduce_opts_init(&o);
	o.compression = INC_COMP_NONE;
	o.algo = INC_ALGO_RING;
	for (i = 0; i < 3; i++)
		x[3 * r + i] = (float)((v >> (16 * i)) & 0xffff);
	rc = inc_allreduce_f32(c, x, (size_t)n * 3, &o);
	for (i = 0; rc == 0 && i < n; i++)
		out[i] = (uint64_t)x[3 * i] | (uint64_t)x[3 * i + 1] << 16 |
			 (uint64_t)x[3 * i + 2] << 32;
	free(x);
	return rc;
}

static int barrier(struct inc_comm *c)
{
	struct inc_allreduce_opts o;
	float x = 0;

	inc_allreduce_opts_init(&o);
	o.compression = INC_COMP_NONE;
	o.algo = INC_ALGO_RING;
	return inc_allreduce_f32(c, &x, 1, &o);
}

/* A whole-string decimal integer in lo..hi: 0, else -1. */
static int bench_int(const char *s, long lo, long hi, int *v)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(s, &end, 10);
	if (!*s || *end || errno || x < lo || x > hi)
		return -1;
	*v = (int)x;
	return 0;
}

/* A whole-string decimal number in lo..hi: 0, else -1. */
static int bench_double(const char *s, double lo, double hi, double *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (!*s || *end || errno || !(x >= lo && x <= hi))
		return -1;
	*v = x;
	return 0;
}

static int bench_bad(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "inc-bench: bad %s '%s' (want %s)\n", opt, val, want);
	return 2;
}

/* Every comma-separated name of list is one of the names in allowed. */
static int bench_check_list(const char *list, const char *allowed, const char *opt)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!inc_listed(allowed, tok)) {
			fprintf(stderr, "inc-bench: %s: unknown name '%s' (want %s)\n", opt, tok,
				allowed);
			return -1;
		}
	return 0;
}

/* -m names modes of the compression table. */
static int bench_check_modes(const char *list)
{
	char names[256];

	inc_compression_list(names, sizeof(names), ",");
	return bench_check_list(list, names, "-m");
}

struct cfg {
	const char *name;
	enum inc_algo algo;
	enum inc_compression mode;
};

static int bench_allreduce(int argc, char **argv)
{
	static const struct cfg all[] = {
		{ "ring/none", INC_ALGO_RING, INC_COMP_NONE },
		{ "ring/sw", INC_ALGO_RING, INC_COMP_SOFTWARE },
		{ "ring/nic", INC_ALGO_RING, INC_COMP_NIC },
		{ "ring/sk", INC_ALGO_RING, INC_COMP_SKETCH },
		{ "ring/inc+sk", INC_ALGO_RING, INC_COMP_INC_SKETCH },
		{ "ring/cnat", INC_ALGO_RING, INC_COMP_CNAT },
		{ "ring/cnat-det", INC_ALGO_RING, INC_COMP_CNAT_DET },
		{ "wa/none", INC_ALGO_WA, INC_COMP_NONE },
		{ "wa/sw", INC_ALGO_WA, INC_COMP_SOFTWARE },
		{ "wa/nic", INC_ALGO_WA, INC_COMP_NIC },
		{ "wa/sk", INC_ALGO_WA, INC_COMP_SKETCH },
		{ "wa/inc+sk", INC_ALGO_WA, INC_COMP_INC_SKETCH },
		{ "wa/cnat", INC_ALGO_WA, INC_COMP_CNAT },
		{ "wa/cnat-det", INC_ALGO_WA, INC_COMP_CNAT_DET },
	};
#define NCFG ((int)(sizeof(all) / sizeof(all[0])))
	size_t lo = 4096, hi = 256u << 20, size, segb = 0;
	double factor = 4, dens = 1.0;
	int warm = 1, iters = 0, opt, rc, r, n, k, i, it, use[NCFG];
	char modes[64] = "none,software", algos[64] = "ring,wa";
	struct inc_comm *c;
	float *buf, *src;
	uint64_t rng = 0x5eed5eed12345ull, *wires;
	int mpi = 0, ef = 0, sc = 0, parts = 16, nv, v;
	double ratio = 0;
	float *res = NULL;

	while ((opt = getopt(argc, argv, "b:e:f:w:n:m:a:g:d:FS:P:h")) != -1) {
		switch (opt) {
		case 'b': lo = parse_size(optarg); break;
		case 'e': hi = parse_size(optarg); break;
		case 'f': factor = strtod(optarg, NULL); break;
		case 'w':
			if (bench_int(optarg, 0, 1000000, &warm))
				return bench_bad("-w", optarg, "warm-up calls, 0..1000000");
			break;
		case 'n':
			if (bench_int(optarg, 1, 100000000, &iters))
				return bench_bad("-n", optarg, "timed calls per size, 1..100000000");
			break;
		case 'm':
			if (strlen(optarg) >= sizeof(modes) || bench_check_modes(optarg))
				return 2;
			snprintf(modes, sizeof(modes), "%s", optarg);
			break;
		case 'a':
			if (strlen(optarg) >= sizeof(algos) || bench_check_list(optarg, "ring,wa", "-a"))
				return 2;
			snprintf(algos, sizeof(algos), "%s", optarg);
			break;
		case 'h':
			printf("usage: inc-bench allreduce [-b MIN] [-e MAX] [-f FACTOR] [-w WARMUP] "
			       "[-n ITERS] [-m MODES] [-a ALGOS] [-g SEGBYTES] [-d DENSITY]\n"
			       "                    [-F] [-S RATIO [-P PARTS]]\n"
			       "  -m MODES  comma-separated compression modes (none, nic, software, cnat,\n"
			       "            cnat-det, sketch, inc+sketch); default none,software\n"
			       "  -a ALGOS  ring, wa or both (ring,wa, the default)\n"
			       "  -n ITERS  timed calls per size (default 20, 5 or 2 by size); -w warm-up calls\n"
			       "  -F        also each lossy mode with error feedback (+ef)\n"
			       "  -S RATIO  also with error feedback and balanced adaptive scaling at target\n"
			       "            RATIO, 1..12 (+ef+sc); -P PARTS parts of the state (default 16)\n"
			       "  with -F or -S: codec time per call (library stats) beside memcpy GB/s\n"
			       "Run under inc-run: inc-run -n 4 inc-bench allreduce ...\n");
			return 0;
		case 'g': segb = parse_size(optarg); break;
		case 'd': dens = strtod(optarg, NULL); break;
		case 'F': ef = 1; break;
		case 'S':
			if (bench_double(optarg, 1, INC_SCALE_RATIO_MAX, &ratio))
				return bench_bad("-S", optarg, "a target ratio, 1..12");
			sc = 1;
			break;
		case 'P':
			if (bench_int(optarg, 1, 1 << 20, &parts))
				return bench_bad("-P", optarg, "scaling parts, 1..1048576");
			break;
		default:
			fprintf(stderr, "usage: inc-bench allreduce [-b MIN] [-e MAX] [-f FACTOR] "
				"[-w WARMUP] [-n ITERS] [-m MODES] [-a ALGOS] [-g SEGBYTES] "
				"[-d DENSITY] [-F] [-S RATIO [-P PARTS]]\n");
			return 2;
		}
	}
	if (lo < 4 || hi < lo || factor <= 1) {
		fprintf(stderr, "inc-bench: bad size range\n");
		return 2;
	}
	if (!(dens > 0 && dens <= 1)) {
		fprintf(stderr, "inc-bench: -d: density in (0, 1]\n");
		return 2;
	}
	for (i = 0, k = 0; i < NCFG; i++) {
		use[i] = inc_listed(modes, inc_compression_name(all[i].mode)) &&
			 inc_listed(algos, all[i].algo == INC_ALGO_WA ? "wa" : "ring");
		k += use[i];
	}
	if (k == 0) {
		fprintf(stderr, "inc-bench: -m/-a select nothing (modes none, software, nic, cnat, "
			"cnat-det, sketch, inc+sketch; algorithms ring, wa)\n");
		return 2;
	}
#ifdef INC_WITH_MPI
	if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE")) {
		MPI_Init(NULL, NULL);
		mpi = 1;
	}
#endif
	rc = inc_comm_init_env(&c);
	if (rc) {
		fprintf(stderr, "inc-bench: init: %s\n", inc_strerror(rc));
		return 1;
	}
	r = inc_comm_rank(c);
	n = inc_comm_size(c);
	wires = calloc((size_t)n, sizeof(*wires));
	buf = malloc(hi);
	src = malloc(hi);
	if (!buf || !src) {
		fprintf(stderr, "inc-bench: cannot allocate 2 x %zu bytes\n", hi);
		return 1;
	}
	inc_fg_payload((uint8_t *)src, hi, INC_FG_GRADIENT, &rng);
	if (dens < 1) {
		/* Sparse: each value kept with probability dens, on every rank
		 * at its own places (the sketch modes' use case). */
		uint64_t h = 0x9e3779b97f4a7c15ull * (uint64_t)(r + 1);

		for (i = 0; i < (int)(hi / 4); i++) {
			h ^= h << 13;
			h ^= h >> 7;
			h ^= h << 17;
			if ((double)(h >> 11) / 9007199254740992.0 >= dens)
				src[i] = 0.0f;
		}
	}
	memset(buf, 0, hi);
	if (sc) {
		/* Layers of different magnitudes: part i (of the largest size's
		 * split, which every size keeps within its first values) times
		 * 2^-(2 (i mod 8)). */
		size_t np = (size_t)parts < hi / 4 ? (size_t)parts : hi / 4, j;

		for (j = 0; j < hi / 4; j++)
			src[j] = ldexpf(src[j], -2 * (int)(j * np / (hi / 4) % 8));
	}
	nv = 1 + ef + sc;
	if (ef || sc) {
		res = malloc(hi);
		if (!res) {
			fprintf(stderr, "inc-bench: cannot allocate %zu bytes\n", hi);
			return 1;
		}
	}
	if (r == 0) {
		char dtxt[32] = "";

		if (dens < 1)
			snprintf(dtxt, sizeof(dtxt), ", density %g", dens);
		printf("# inc-bench allreduce: %d ranks, codec %s, gradient-like data (eb 10%s), "
		       "busbw = algbw*2(N-1)/N, wire = max bytes one rank sent per call, "
		       "effbw = wire/time%s; sketch rows: rec = share of candidates peeled\n", n,
		       inc_codec_name(), dtxt, mpi ? ", mpi = MPI_Allreduce, vs_mpi = t_mpi/t" : "");
		if (ef || sc)
			printf("# +ef: error feedback; +ef+sc: and balanced scaling at ratio %g, %d parts; "
			       "codec = library codec time per call (slowest rank), x_plain = over the "
			       "plain row's; memcpy of the same buffer on rank 0\n", ratio, parts);
		printf("%12s %10s %-14s %11s %9s %9s %13s %9s%s", "size(B)", "count", "algo",
		       "time(us)", "algbw", "busbw", "wire(B)", "effbw", mpi ? "   vs_mpi" : "");
		if (ef || sc)
			printf(" %11s %8s %9s %9s %9s %8s", "codec(us)", "t/plain", "c/plain",
			       "memcpy", "codec", "/memcpy");
		printf("\n%12s %10s %-14s %11s %9s %9s %13s %9s%s", "", "", "", "", "GB/s", "GB/s",
		       "", "GB/s", mpi ? "         " : "");
		if (ef || sc)
			printf(" %11s %8s %9s %9s %9s %8s", "", "", "", "GB/s", "GB/s", "");
		printf("\n");
	}
	for (size = lo; size <= hi; size = (size_t)((double)size * factor)) {
		size_t count = size / 4;
		int nit = iters ? iters : size <= (1u << 20) ? 20 : size <= (16u << 20) ? 5 : 2;
		double t_mpi = 0;

#ifdef INC_WITH_MPI
		if (mpi) {
			double tot = 0;

			for (it = -warm; it < nit; it++) {
				memcpy(buf, src, count * 4);
				MPI_Barrier(MPI_COMM_WORLD);
				double t = inc_bench_now();
				MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_FLOAT, MPI_SUM,
					      MPI_COMM_WORLD);
				t = inc_bench_now() - t;
				if (it >= 0)
					tot += t;
			}
			t_mpi = tot / nit;   /* the slowest rank, as for ours */
			MPI_Allreduce(MPI_IN_PLACE, &t_mpi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
			if (r == 0)
				printf("%12zu %10zu %-11s %11.1f %9.3f %9.3f %13s %9s\n", count * 4, count,
				       "mpi", t_mpi * 1e6, (double)(count * 4) / t_mpi / 1e9,
				       (double)(count * 4) / t_mpi / 1e9 * 2 * (n - 1) / n, "-", "-");
		}
#endif
		double gm = ef || sc ? inc_bench_memcpy_gbs(buf, src, count * 4, 3) : 0;

		for (k = 0; k < NCFG * nv; k++) {
			const struct inc_compression_info *ci = inc_compression_info(all[k / nv].mode);
			struct inc_allreduce_opts o;
			struct inc_comm_stats s0, s1;
			struct inc_scale *st = NULL;
			double tot = 0, t, algbw, tc;
			uint64_t wmax = 0, sent = 0, cns = 0;
			static double t_plain, c_plain;
			char name[32];

			/* v: 0 plain, then +ef (with -F), then +ef+sc (with -S) */
			v = k % nv == 0 ? 0 : k % nv == 1 && ef ? 1 : 2;
			if (!use[k / nv] || (v && !ci->lossy) || (v == 2 && !ci->error_bound))
				continue;
			snprintf(name, sizeof(name), "%s%s", all[k / nv].name,
				 v == 1 ? "+ef" : v == 2 ? "+ef+sc" : "");
			inc_allreduce_opts_init(&o);
			o.algo = all[k / nv].algo;
			o.compression = all[k / nv].mode;
			o.segment_bytes = segb;
			o.error_feedback = v ? INC_EF_ON : INC_EF_OFF;
			o.residual = v ? res : NULL;
			if (v)
				memset(res, 0, count * 4);
			if (v == 2) {
				size_t np = (size_t)parts < count ? (size_t)parts : count, j;
				size_t *ends = malloc(np * sizeof(*ends));

				for (j = 0; ends && j < np; j++)
					ends[j] = count * (j + 1) / np;
				rc = ends ? inc_scale_create(&st, np, ends, ratio) : INC_E_NOMEM;
				free(ends);
				if (rc) {
					fprintf(stderr, "inc-bench: inc_scale_create: %s\n", inc_strerror(rc));
					return 1;
				}
				o.scale = st;
			}
			if (o.timeout_ms < 120000)
				o.timeout_ms = 120000;
			for (it = -warm; it < nit; it++) {
				memcpy(buf, src, count * 4);
				rc = barrier(c);
				inc_comm_stats(c, &s0);
				t = inc_bench_now();
				if (!rc)
					rc = inc_allreduce_f32(c, buf, count, &o);
				t = inc_bench_now() - t;
				inc_comm_stats(c, &s1);
				if (it >= 0) {
					sent += s1.bytes_sent - s0.bytes_sent;
					cns += s1.codec_ns - s0.codec_ns;
				}
				if (rc) {
					fprintf(stderr, "inc-bench: rank %d: %s n=%zu: %s\n", r,
						name, count, inc_strerror(rc));
					return 1;
				}
				if (it >= 0)
					tot += t;
			}
			inc_scale_destroy(st);
			/* The call can return on one rank while its last bytes
			 * still sit in socket buffers: report the slowest rank. */
			rc = gather_u48(c, (uint64_t)(tot / nit * 1e9), wires);
			for (i = 0, t = 0; rc == 0 && i < n; i++)
				if ((double)wires[i] * 1e-9 > t)
					t = (double)wires[i] * 1e-9;
			if (rc == 0)
				rc = gather_u48(c, cns / (uint64_t)nit, wires);
			for (i = 0, tc = 0; rc == 0 && i < n; i++)
				if ((double)wires[i] * 1e-9 > tc)
					tc = (double)wires[i] * 1e-9;
			/* Subtract the barriers' own bytes (4 per barrier call). */
			rc = gather_u48(c, sent / (uint64_t)nit, wires);
			if (rc) {
				fprintf(stderr, "inc-bench: gather: %s\n", inc_strerror(rc));
				return 1;
			}
			for (i = 0; i < n; i++)
				if (wires[i] > wmax)
					wmax = wires[i];
			algbw = (double)(count * 4) / t / 1e9;
			if (r == 0) {
				printf("%12zu %10zu %-14s %11.1f %9.3f %9.3f %13llu %9.3f", count * 4, count,
				       name, t * 1e6, algbw, algbw * 2 * (n - 1) / n,
				       (unsigned long long)wmax, (double)wmax / t / 1e9);
				if (mpi)
					printf(" %8.2fx", t_mpi / t);
				if (v == 0)
					t_plain = t, c_plain = tc;
				if (ef || sc)
					printf(" %11.1f %7.2fx %8.2fx %9.2f %9.2f %7.2fx", tc * 1e6,
					       t / t_plain, c_plain > 0 ? tc / c_plain : 0.0, gm,
					       tc > 0 ? (double)(count * 4) / tc / 1e9 : 0.0,
					       tc > 0 ? (double)(count * 4) / tc / 1e9 / gm : 0.0);
				if (all[k / nv].mode == INC_COMP_SKETCH || all[k / nv].mode == INC_COMP_INC_SKETCH)
					printf("  rec %.4f", s1.sketch_candidates ? (double)s1.sketch_peeled /
					       (double)s1.sketch_candidates : 1.0);
				printf("\n");
				fflush(stdout);
			}
		}
		if (size == hi)
			break;
		if ((size_t)((double)size * factor) > hi)
			size = (size_t)((double)hi / factor);
	}
	inc_comm_destroy(c);
#ifdef INC_WITH_MPI
	if (mpi)
		MPI_Finalize();
#endif
	free(buf);
	free(src);
	free(res);
	free(wires);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: inc-bench codec|codecs|frame|allreduce|sketch [OPTIONS]\n"
		       "  codec      the stream codec's GB/s beside memcpy\n"
		       "  codecs     every codec of the compression table on a gradient file\n"
		       "  frame      the frame format's GB/s (model and SIMD paths)\n"
		       "  allreduce  inc_allreduce_f32 over sizes, modes and algorithms (under inc-run)\n"
		       "  sketch     the sketch codec\n"
		       "inc-bench COMMAND -h lists a command's options.\n");
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "codec"))
		return bench_codec(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "allreduce"))
		return bench_allreduce(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "sketch"))
		return bench_sketch(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "codecs"))
		return bench_codecs(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "frame"))
		return bench_frame(argc - 1, argv + 1);
	fprintf(stderr, "usage: inc-bench codec|codecs|frame|allreduce|sketch [OPTIONS]  (see the "
		"source header)\n");
	return 2;
}
