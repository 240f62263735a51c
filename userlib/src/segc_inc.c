// SPDX-License-Identifier: MIT
/*
 * segc_inc.c - the `software` segment codec: each segment travels as a
 * 4-byte little-endian length and a multi-stream container of the
 * INCEPTIONN stream format (inc_codec_compress_parts): segments of at
 * least PARTS_MIN_VALUES values as INC_CODEC_PARTS_MAX parts (decoded
 * interleaved), shorter ones as one. Values are quantized one by one, so
 * they are the same as through one stream, and the same as the NIC's.
 */
#include "inc_internal.h"

#define PARTS_MIN_VALUES 1024u

static unsigned parts(size_t n)
{
	return n >= PARTS_MIN_VALUES ? INC_CODEC_PARTS_MAX : 1u;
}

static size_t max_bytes(size_t n)
{
	return inc_codec_parts_max_size(n, INC_CODEC_PARTS_MAX);
}

/* A container of one part of 2-byte groups: nothing valid is shorter. */
static size_t min_bytes(size_t n)
{
	return inc_codec_parts_hdr_size(1) + 2 * ((n + 7) / 8);
}

static long encode(const float *v, size_t n, unsigned eb, uint8_t *out, uint64_t key)
{
	(void)key;
	return inc_codec_compress_parts(v, n, eb, parts(n), out, max_bytes(n));
}

static int decode(const uint8_t *in, size_t len, size_t n, float *out)
{
	long d = inc_codec_decompress_parts(in, len, n, out, n * 4);

	return d == (long)len ? 0 : INC_E_PROTOCOL;
}

/* The encoding and its decoding in one pass (inc_codec_compress_parts_q:
 * the bytes and values of encode, then inc_codec_decompress_parts). */
long inc_seg_round_trip_inc(float *v, size_t n, unsigned eb, uint8_t *tmp, uint64_t key)
{
	(void)key;
	return inc_codec_compress_parts_q(v, NULL, n, eb, parts(n), tmp, max_bytes(n));
}

static long round_trip_ef(float *v, float *res, size_t n, unsigned eb, uint8_t *tmp)
{
	return inc_codec_compress_parts_q(v, res, n, eb, parts(n), tmp, max_bytes(n));
}

const struct inc_seg_codec inc_segc_software = {
	.name = "software",
	.framed = 1,
	.max_bytes = max_bytes,
	.min_bytes = min_bytes,
	.encode = encode,
	.decode = decode,
	.round_trip = inc_seg_round_trip_inc,
	.round_trip_ef = round_trip_ef,
};
