/* SPDX-License-Identifier: MIT */
/*
 * fuzz_common.h - small helpers shared by the libFuzzer targets: an
 * independent RFC 1071 checksum check and a hard failure that libFuzzer
 * reports as a crash with the input saved.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_ASSERT(cond)                                                    \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: assertion failed: %s\n",     \
				__FILE__, __LINE__, #cond);                  \
			abort();                                             \
		}                                                            \
	} while (0)

static inline unsigned fz_be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static inline uint64_t fz_sum(uint64_t acc, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		acc += fz_be16(p + i);
	if (len & 1)
		acc += (unsigned)p[len - 1] << 8;
	return acc;
}

/* 1 when the one's-complement sum of everything (checksum field included)
 * is 0xffff, i.e. the checksum verifies. */
static inline int fz_csum_ok(uint64_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return acc == 0xffff;
}

#endif
