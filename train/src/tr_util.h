/* SPDX-License-Identifier: MIT */
/*
 * tr_util.h - small helpers of the trainer: aligned allocation, the one
 * random generator (every random draw of a run comes from it, named by a
 * seed and a stream), the weight digest, the clock, the one-line error.
 */
#ifndef TR_UTIL_H
#define TR_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* 64-byte aligned, NULL on failure; free() releases it. */
void *tr_alloc(size_t bytes);

/* SplitMix64 keyed by (seed, stream): two generators with different
 * streams never share a sequence. */
struct tr_rng {
	uint64_t s;
};
void tr_rng_seed(struct tr_rng *r, uint64_t seed, uint64_t stream);
uint64_t tr_rng_next(struct tr_rng *r);
/* Uniform in [0, n), n >= 1 (no modulo bias). */
uint64_t tr_rng_below(struct tr_rng *r, uint64_t n);
/* Standard normal (Box-Muller, double precision). */
double tr_rng_normal(struct tr_rng *r);

/* FNV-1a 64 of n floats' bytes: the digest printed and compared. */
uint64_t tr_digest(const float *v, size_t n);
/* The same of len bytes (tr_digest(v, n) = tr_digest_bytes(v, 4 n)). */
uint64_t tr_digest_bytes(const void *v, size_t len);

/* Monotonic clock in nanoseconds. */
uint64_t tr_now_ns(void);

/* "inc-train: " + the message on stderr; returns 2 (the exit status of a
 * bad command line or bad data). */
int tr_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
