// SPDX-License-Identifier: MIT
/* tr_util.c - allocation, random numbers, digest, clock, the one-line error
 * (see tr_util.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tr_util.h"

void *tr_alloc(size_t bytes)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, bytes ? bytes : 64))
		return NULL;
	return p;
}

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void tr_rng_seed(struct tr_rng *r, uint64_t seed, uint64_t stream)
{
	r->s = mix64(seed ^ mix64(stream + 0x9e3779b97f4a7c15ull));
}

uint64_t tr_rng_next(struct tr_rng *r)
{
	r->s += 0x9e3779b97f4a7c15ull;
	return mix64(r->s);
}

uint64_t tr_rng_below(struct tr_rng *r, uint64_t n)
{
	uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = tr_rng_next(r);
	while (x >= lim);
	return x % n;
}

double tr_rng_normal(struct tr_rng *r)
{
	/* u1 in (0, 1], u2 in [0, 1): 53-bit uniforms */
	double u1 = (double)((tr_rng_next(r) >> 11) + 1) * 0x1p-53;
	double u2 = (double)(tr_rng_next(r) >> 11) * 0x1p-53;

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

uint64_t tr_digest_bytes(const void *v, size_t len)
{
	const unsigned char *p = v;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t tr_digest(const float *v, size_t n)
{
	return tr_digest_bytes(v, n * sizeof(float));
}

uint64_t tr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int tr_bad(const char *fmt, ...)
{
	va_list ap;

	fputs("inc-train: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}
