// SPDX-License-Identifier: MIT
/*
 * inc_ar_util.h - helpers of the all-reduce test programs (ar-check,
 * ef-check): a seeded xorshift stream for gradient-like data, an FNV-1a
 * digest of a buffer, and the check that every rank holds the same bytes.
 * Header-only; the includer provides CHECK (inc_test.h).
 */
#ifndef INC_AR_UTIL_H
#define INC_AR_UTIL_H

#include <stdint.h>
#include <stddef.h>

#include "inc_test.h"
#include "inceptionn/inceptionn.h"

static inline uint64_t inc_ar_rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static inline uint64_t inc_ar_hash(const float *x, size_t n)
{
	const uint8_t *p = (const uint8_t *)x;
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n * 4; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

/*
 * Do all ranks (nr of them) hold the bytes of x? The digest travels as four
 * 16-bit pieces, integers that every mode carries exactly (0 or >= 1 for
 * the NIC codec), summed with options o; each sum must be nr times the
 * piece.
 */
static inline void inc_ar_check_identical(struct inc_comm *c, int nr, const float *x, size_t n,
					  const struct inc_allreduce_opts *o, const char *what)
{
	uint64_t h = inc_ar_hash(x, n);
	float piece[4], sum[4];
	int i, rc;

	for (i = 0; i < 4; i++)
		piece[i] = sum[i] = (float)((h >> (16 * i)) & 0xffff);
	rc = inc_allreduce_f32(c, sum, 4, o);
	CHECK(rc == 0, "hash all-reduce: %s", inc_strerror(rc));
	for (i = 0; i < 4; i++)
		CHECK(sum[i] == piece[i] * (float)nr, "%s: results differ across ranks", what);
}

#endif
