// SPDX-License-Identifier: MIT
/*
 * bench_model.c - throughput of the reference model's stream codec on
 * 64 MiB of gradient-like float32 data (inc_fg_payload INC_FG_GRADIENT),
 * next to memcpy of the same buffer size measured in the same run; plus the
 * compression ratio and the 2/10/18/34-bit class shares at eb 6, 8 and 10.
 *
 * GB/s counts uncompressed bytes (compress input, decompress output) and
 * 1 GB = 1e9 bytes. Each figure is the best of REPS runs (memcpy:
 * REPS_COPY). A benchmark, not a test: it prints figures and never judges
 * them. On a shared machine the figures move with the load; compare the
 * same-run ratios.
 *
 * Usage: bench_model [MiB]   (default 64)
 */
#include "inc_model.h"
#include "inc_bench_util.h"
#include "inc_framegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 3
#define REPS_COPY 10        /* memcpy is short: more runs for a stable best */

int main(int argc, char **argv)
{
	static const unsigned ebs[] = { 6, 8, 10 };
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	size_t bytes = mib << 20, n = bytes / 4, cap = inc_stream_max_size(n);
	uint8_t *in = malloc(bytes), *dst = malloc(bytes), *stream = malloc(cap);
	uint64_t rng = 0xb16b00b5cafef00dull;
	struct inc_class_counts cnt;
	double t, best_c, best_d, gbs_cpy, gbs_c, gbs_d, tot;
	long slen = 0, r;
	unsigned i, k;

	if (!mib || !in || !dst || !stream) {
		fprintf(stderr, "bench_model: cannot allocate %zu MiB buffers\n", mib);
		return 1;
	}
	inc_fg_payload(in, bytes, INC_FG_GRADIENT, &rng);
	memset(dst, 0, bytes);            /* fault the pages in */
	memset(stream, 0, cap);

	gbs_cpy = inc_bench_memcpy_gbs(dst, in, bytes, REPS_COPY);
	printf("bench_model: %zu MiB of gradient-like float32 (%zu values), best of %d runs (memcpy %d)\n",
	       mib, n, REPS, REPS_COPY);
	printf("memcpy %zu MiB: %.2f GB/s\n", mib, gbs_cpy);
	printf("%-3s %7s %7s %7s %7s %7s %15s %9s %17s %9s\n", "eb", "ratio",
	       "2-bit", "10-bit", "18-bit", "34-bit", "compress GB/s", "/memcpy",
	       "decompress GB/s", "/memcpy");
	for (i = 0; i < sizeof(ebs) / sizeof(ebs[0]); i++) {
		best_c = best_d = 1e9;
		for (k = 0; k < REPS; k++) {
			memset(&cnt, 0, sizeof(cnt));
			t = inc_bench_now();
			slen = inc_stream_compress(in, n, ebs[i], stream, cap, &cnt);
			t = inc_bench_now() - t;
			if (slen < 0) {
				fprintf(stderr, "bench_model: compress failed: %s\n",
					inc_model_strerror((int)slen));
				return 1;
			}
			if (t < best_c)
				best_c = t;
			t = inc_bench_now();
			r = inc_stream_decompress(stream, (size_t)slen, n, dst, bytes);
			t = inc_bench_now() - t;
			if (r != slen) {
				fprintf(stderr, "bench_model: decompress gave %ld, want %ld\n",
					r, slen);
				return 1;
			}
			inc_bench_sink = dst[bytes / 3];
			if (t < best_d)
				best_d = t;
		}
		gbs_c = (double)bytes / best_c / 1e9;
		gbs_d = (double)bytes / best_d / 1e9;
		tot = (double)(cnt.n[0] + cnt.n[1] + cnt.n[2] + cnt.n[3]);
		printf("%-3u %6.2fx %6.1f%% %6.1f%% %6.1f%% %6.1f%% %15.3f %8.3fx %17.3f %8.3fx\n",
		       ebs[i], (double)bytes / (double)slen,
		       100.0 * (double)cnt.n[0] / tot, 100.0 * (double)cnt.n[1] / tot,
		       100.0 * (double)cnt.n[2] / tot, 100.0 * (double)cnt.n[3] / tot,
		       gbs_c, gbs_c / gbs_cpy, gbs_d, gbs_d / gbs_cpy);
	}
	free(in);
	free(dst);
	free(stream);
	return 0;
}
