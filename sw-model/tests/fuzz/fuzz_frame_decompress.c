// SPDX-License-Identifier: MIT
/*
 * fuzz_frame_decompress.c - libFuzzer target for inc_frame_decompress (and,
 * on the same bytes, inc_frame_compress followed by decompress).
 *
 * The input is an Ethernet frame. It goes through two configurations: the
 * defaults, and ToS mask 0 with no frame-size limit (so every frame reaches
 * the shim and stream checks). Invariants:
 * - no crash, no sanitizer report, no read past the input;
 * - the result is a length or a clean error; with enough room, never an error;
 * - bypass and malformed outputs are the input, byte for byte;
 * - a decompressed frame has valid IP and TCP checksums, protocol 6 and an
 *   IP total length that matches its length;
 * - the same call with an output buffer of exactly the needed size gives the
 *   same bytes, and one byte less gives INC_ENOSPC (ASan catches any write
 *   past the capacity);
 * - a dropped frame is oversize, or marked and fails the payload checksum;
 * - a frame the model compresses decompresses again exactly when its TCP
 *   checksum was valid, and is dropped (bad_payload_csum) otherwise.
 */
#include "inc_model.h"
#include "fuzz_common.h"

#include <string.h>

static uint8_t big[INC_FRAME_OUT_MAX];

static void check_decompressed(const uint8_t *f, size_t len)
{
	unsigned l3, ihl, total;
	uint64_t acc;

	FUZZ_ASSERT(len >= 14 + 20);
	l3 = fz_be16(f + 12) == 0x8100 ? 18 : 14;
	ihl = (f[l3] & 15u) * 4u;
	total = fz_be16(f + l3 + 2);
	FUZZ_ASSERT(f[l3 + 9] == 6 && l3 + total == len && ihl >= 20);
	FUZZ_ASSERT(fz_csum_ok(fz_sum(0, f + l3, ihl)));
	acc = fz_sum(0, f + l3 + 12, 8) + 6u + (total - ihl);
	FUZZ_ASSERT(fz_csum_ok(fz_sum(acc, f + l3 + ihl, total - ihl)));
}

static void one(const uint8_t *data, size_t size, const struct inc_frame_config *cfg)
{
	struct inc_frame_info info, info2;
	uint8_t *exact;
	size_t cap;
	long r, r2;

	r = inc_frame_decompress(data, size, big, sizeof(big), cfg, &info);
	FUZZ_ASSERT(r >= 0);
	FUZZ_ASSERT((size_t)r <= sizeof(big));
	switch (info.outcome) {
	case INC_OUT_BYPASS:
	case INC_OUT_MALFORMED:
		FUZZ_ASSERT((size_t)r == size && !memcmp(big, data, size));
		FUZZ_ASSERT(info.reason != INC_R_NONE);
		break;
	case INC_OUT_DECOMPRESSED:
		FUZZ_ASSERT(info.reason == INC_R_NONE);
		FUZZ_ASSERT(!cfg->max_frame || (size_t)r <= cfg->max_frame);
		check_decompressed(big, (size_t)r);
		break;
	case INC_OUT_DROPPED:
		FUZZ_ASSERT(r == 0 && ((info.reason == INC_R_OVERSIZE && cfg->max_frame &&
					size > cfg->max_frame) ||
				       info.reason == INC_R_BAD_PAYLOAD_CSUM));
		return;
	default:
		FUZZ_ASSERT(0);
	}
	/* Exactly the needed capacity, then one byte less. */
	cap = (size_t)r > size ? (size_t)r : size;
	if (cap == 0)
		return;
	exact = malloc(cap);
	FUZZ_ASSERT(exact);
	r2 = inc_frame_decompress(data, size, exact, cap, cfg, &info2);
	FUZZ_ASSERT(r2 == r && info2.outcome == info.outcome &&
		    info2.reason == info.reason && !memcmp(exact, big, (size_t)r));
	free(exact);
	exact = malloc(cap - 1 ? cap - 1 : 1);
	FUZZ_ASSERT(exact);
	r2 = inc_frame_decompress(data, size, exact, cap - 1, cfg, NULL);
	FUZZ_ASSERT(r2 == INC_ENOSPC);
	free(exact);
}

/* The TCP checksum of a frame the model compressed (so its headers parse). */
static int tcp_csum_valid(const uint8_t *f)
{
	unsigned l3 = fz_be16(f + 12) == 0x8100 ? 18 : 14;
	unsigned ihl = (f[l3] & 15u) * 4u, total = fz_be16(f + l3 + 2);
	uint64_t acc = fz_sum(0, f + l3 + 12, 8) + 6u + (total - ihl);

	return fz_csum_ok(fz_sum(acc, f + l3 + ihl, total - ihl));
}

static void round_trip(const uint8_t *data, size_t size, const struct inc_frame_config *cfg)
{
	struct inc_frame_info info;
	uint8_t *comp;
	long r, r2;

	if (size == 0)
		return;
	comp = malloc(size);           /* compress never grows a frame */
	FUZZ_ASSERT(comp);
	r = inc_frame_compress(data, size, comp, size, cfg, &info);
	FUZZ_ASSERT(r >= 0 && (size_t)r <= size);
	if (info.outcome == INC_OUT_BYPASS)
		FUZZ_ASSERT((size_t)r == size && !memcmp(comp, data, size));
	if (info.outcome == INC_OUT_COMPRESSED) {
		FUZZ_ASSERT((size_t)r < size);
		r2 = inc_frame_decompress(comp, (size_t)r, big, sizeof(big), cfg, &info);
		if (tcp_csum_valid(data)) {
			FUZZ_ASSERT(r2 > 0 && info.outcome == INC_OUT_DECOMPRESSED);
			check_decompressed(big, (size_t)r2);
		} else {
			FUZZ_ASSERT(r2 == 0 && info.outcome == INC_OUT_DROPPED &&
				    info.reason == INC_R_BAD_PAYLOAD_CSUM);
		}
	}
	free(comp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inc_frame_config def, open;

	inc_frame_config_default(&def);
	inc_frame_config_default(&open);
	open.tos_mask = 0;
	open.max_frame = 0;
	one(data, size, &def);
	one(data, size, &open);
	round_trip(data, size, &def);
	round_trip(data, size, &open);
	return 0;
}
