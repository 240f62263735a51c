// SPDX-License-Identifier: MIT
/*
 * inc_bench_util.h - timing helpers shared by the benchmarks
 * (sw-model/tests/bench/bench_model.c, userlib/bench/inc_bench.c): a monotonic clock
 * in seconds and the same-run memcpy baseline that codec GB/s figures are
 * divided by. Header-only.
 */
#ifndef INC_BENCH_UTIL_H
#define INC_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* Keep the compiler from dropping work whose result is never read. */
static volatile uint8_t inc_bench_sink;

/* CLOCK_MONOTONIC in seconds. */
static inline double inc_bench_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/*
 * memcpy of bytes (> 0) from src to dst, best of reps runs, in GB/s
 * (1 GB = 1e9 bytes). dst should already be faulted in.
 */
static inline double inc_bench_memcpy_gbs(void *dst, const void *src,
					  size_t bytes, int reps)
{
	double t, best = 1e9;
	int k;

	for (k = 0; k < reps; k++) {
		t = inc_bench_now();
		memcpy(dst, src, bytes);
		t = inc_bench_now() - t;
		inc_bench_sink = ((const uint8_t *)dst)[bytes / 2];
		if (t < best)
			best = t;
	}
	return (double)bytes / best / 1e9;
}

#endif
