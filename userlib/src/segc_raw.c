// SPDX-License-Identifier: MIT
/*
 * segc_raw.c - segment codecs that send raw float32: `none` (untagged
 * sockets) and `nic` (sockets tagged with the ToS: the NIC compresses each
 * frame on the wire and the receiver's NIC restores it). The owner of a
 * reduced block replaces it by its codec round trip before the all-gather,
 * so in nic mode every rank ends with what the NICs would deliver
 * (docs/userlib.md, "Identical replicas").
 */
#include "inc_internal.h"

/* What the NICs deliver, value by value (no stream: the NIC encodes). */
static long nic_round_trip(float *v, size_t n, unsigned eb, uint8_t *tmp, uint64_t key)
{
	(void)tmp;
	(void)key;
	inc_codec_quantize(v, NULL, n, eb);
	return 0;
}

const struct inc_seg_codec inc_segc_none = {
	.name = "none",
};

const struct inc_seg_codec inc_segc_nic = {
	.name = "nic",
	.tagged = 1,
	.round_trip = nic_round_trip,
	.direct = 1,
};
