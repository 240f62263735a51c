// SPDX-License-Identifier: MIT
/*
 * segc_cnat.c - the `cnat` and `cnat-det` segment codecs: a segment of n
 * values travels as its 4-byte length n and n C_nat bytes (codec_cnat.c),
 * on untagged sockets. In the ring every hop decodes, adds and re-encodes
 * (with a fresh random stream per encoding in `cnat`); the owner replaces
 * its reduced block by its round trip, whose powers of two every later
 * encoding leaves unchanged, so the replicas end bit-identical.
 */
#include "inc_internal.h"

static size_t bytes(size_t n)
{
	return n;
}

static long encode_sto(const float *v, size_t n, unsigned eb, uint8_t *out, uint64_t key)
{
	(void)eb;
	inc_cnat_encode(v, n, out, 1, key);
	return (long)n;
}

static long encode_det(const float *v, size_t n, unsigned eb, uint8_t *out, uint64_t key)
{
	(void)eb;
	inc_cnat_encode(v, n, out, 0, key);
	return (long)n;
}

static int decode(const uint8_t *in, size_t len, size_t n, float *out)
{
	return len == n ? inc_cnat_decode(in, n, out) : INC_E_PROTOCOL;
}

/* The owner step: v replaced by its round trip, the encoding left in tmp. */
static long round_trip(float *v, size_t n, uint8_t *tmp, uint64_t key, int stoch)
{
	inc_cnat_encode(v, n, tmp, stoch, key);
	return inc_cnat_decode(tmp, n, v) ? INC_E_PROTOCOL : (long)n;
}

static long round_trip_sto(float *v, size_t n, unsigned eb, uint8_t *tmp, uint64_t key)
{
	(void)eb;
	return round_trip(v, n, tmp, key, 1);
}

static long round_trip_det(float *v, size_t n, unsigned eb, uint8_t *tmp, uint64_t key)
{
	(void)eb;
	return round_trip(v, n, tmp, key, 0);
}

const struct inc_seg_codec inc_segc_cnat = {
	.name = "cnat",
	.framed = 1,
	.max_bytes = bytes,
	.min_bytes = bytes,
	.encode = encode_sto,
	.decode = decode,
	.round_trip = round_trip_sto,
};

const struct inc_seg_codec inc_segc_cnat_det = {
	.name = "cnat-det",
	.framed = 1,
	.max_bytes = bytes,
	.min_bytes = bytes,
	.encode = encode_det,
	.decode = decode,
	.round_trip = round_trip_det,
};
