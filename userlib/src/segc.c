// SPDX-License-Identifier: MIT
/*
 * segc.c - the compression table: for every mode its public properties
 * (name, lossy, summable, tagged, ...) and the segment codec that carries
 * one segment of values in that mode (segc_raw.c, segc_inc.c,
 * segc_cnat.c). The one list of modes in the project: the environment
 * parser, the algorithms, inc-train, inc-bench, the tests and the Python
 * binding all read it. Adding a mode: an enum value (inceptionn.h), an
 * entry here, a segment-codec file.
 */
#include <stdio.h>
#include <string.h>

#include "inc_internal.h"

struct mode {
	struct inc_compression_info info;
	const struct inc_seg_codec *sc;
};

static const struct mode modes[INC_COMP_COUNT] = {
	[INC_COMP_NONE] = {
		{ INC_COMP_NONE, "none", "", "raw float32, untagged sockets",
		  .lossy = 0, .error_bound = 0 },
		&inc_segc_none },
	[INC_COMP_NIC] = {
		{ INC_COMP_NIC, "nic", "", "raw float32 on tagged sockets: the NIC compresses",
		  .lossy = 1, .tagged = 1, .error_bound = 1, .error_feedback = 1 },
		&inc_segc_nic },
	[INC_COMP_SOFTWARE] = {
		{ INC_COMP_SOFTWARE, "software", "(sw)",
		  "the library compresses each segment (INCEPTIONN codec, SIMD)",
		  .lossy = 1, .error_bound = 1, .error_feedback = 1 },
		&inc_segc_software },
	[INC_COMP_CNAT] = {
		{ INC_COMP_CNAT, "cnat", "(Cnat)",
		  "natural compression, unbiased stochastic rounding (1 byte per value)",
		  .lossy = 1 },
		&inc_segc_cnat },
	[INC_COMP_CNAT_DET] = {
		{ INC_COMP_CNAT_DET, "cnat-det", "(Cnat det)",
		  "natural compression, nearest power of two (1 byte per value)",
		  .lossy = 1 },
		&inc_segc_cnat_det },
	/* The sketch modes' phases travel raw (sketch_ar.c). */
	[INC_COMP_SKETCH] = {
		{ INC_COMP_SKETCH, "sketch", "(sketch)",
		  "lossless homomorphic: non-zero index + count sketch, summed in the ring",
		  .summable = 1, .whole_call = 1 },
		&inc_segc_none },
	[INC_COMP_INC_SKETCH] = {
		{ INC_COMP_INC_SKETCH, "inc+sketch", "(inc+sketch)",
		  "INCEPTIONN quantization at the error bound, then the sketch",
		  .lossy = 1, .summable = 1, .whole_call = 1, .error_bound = 1,
		  .error_feedback = 1 },
		&inc_segc_none },
};

const struct inc_compression_info *inc_compression_info(enum inc_compression mode)
{
	return (unsigned)mode < INC_COMP_COUNT ? &modes[mode].info : NULL;
}

const char *inc_compression_name(enum inc_compression mode)
{
	return (unsigned)mode < INC_COMP_COUNT ? modes[mode].info.name : NULL;
}

int inc_compression_parse(const char *s, enum inc_compression *mode)
{
	unsigned i;

	if (!s || !mode)
		return INC_E_ARG;
	for (i = 0; i < INC_COMP_COUNT; i++)
		if (!strcmp(s, modes[i].info.name)) {
			*mode = (enum inc_compression)i;
			return 0;
		}
	return INC_E_ARG;
}

size_t inc_compression_list(char *buf, size_t len, const char *sep)
{
	size_t n = 0;
	unsigned i;
	int w;

	if (buf && len)
		buf[0] = 0;
	for (i = 0; i < INC_COMP_COUNT; i++) {
		w = snprintf(buf && n < len ? buf + n : NULL, buf && n < len ? len - n : 0,
			     "%s%s", i ? sep : "", modes[i].info.name);
		if (w > 0)
			n += (size_t)w;
	}
	return n;
}

const struct inc_seg_codec *inc_seg_codec(enum inc_compression mode)
{
	return (unsigned)mode < INC_COMP_COUNT ? modes[mode].sc : NULL;
}

size_t inc_seg_stage_max(size_t n)
{
	size_t max = 0, b;
	unsigned i;

	for (i = 0; i < INC_COMP_COUNT; i++)
		if (modes[i].sc->framed && (b = modes[i].sc->max_bytes(n)) > max)
			max = b;
	return (4u + 3u + max + 63u) & ~(size_t)63u;
}

int inc_error_feedback_active(const struct inc_allreduce_opts *o)
{
	const struct inc_compression_info *ci = o ? inc_compression_info(o->compression) : NULL;

	if (!ci || !ci->lossy || !o->residual)
		return 0;
	return o->error_feedback == INC_EF_ON ||
	       (o->error_feedback == INC_EF_AUTO && ci->error_feedback);
}
