// SPDX-License-Identifier: MIT
/*
 * fuzz_sketch_decompress.c - libFuzzer target for the sketch message
 * decoder (inc_sketch_msg_geom, inc_sketch_decompress; codec_sketch.c).
 *
 * Input: 2 bytes little-endian value count n (taken modulo 8192), then the
 * message. Invariants:
 * - no crash, no sanitizer report, no read past the message, no write past
 *   the n output values;
 * - the result is 0, INC_ETRUNC, INC_EMALFORMED or INC_E_ARG, and the
 *   header check alone (inc_sketch_msg_geom) gives the same error for a
 *   bad header or length;
 * - on success: the message's n is n, peeled + estimated = candidates <= n,
 *   the values outside the candidates are +0.0, and one byte less is
 *   INC_ETRUNC.
 */
#include "inceptionn/inceptionn.h"
#include "fuzz_common.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inc_sketch_geom g;
	struct inc_sketch_stats st;
	const uint8_t *m;
	size_t n, len, i, nonzero = 0;
	float *out;
	int r, rg;

	if (size < 2)
		return 0;
	n = (size_t)(data[0] | data[1] << 8) % 8192;
	m = data + 2;
	len = size - 2;
	out = malloc(4 * n + 4);
	FUZZ_ASSERT(out);
	r = inc_sketch_decompress(m, len, out, n, &st);
	rg = inc_sketch_msg_geom(m, len, &g);
	FUZZ_ASSERT(r == 0 || r == INC_ETRUNC || r == INC_EMALFORMED || r == INC_E_ARG);
	if (rg)
		FUZZ_ASSERT(r == rg);
	if (r == 0) {
		FUZZ_ASSERT(rg == 0 && g.n == n);
		FUZZ_ASSERT(st.peeled + st.estimated == st.candidates && st.candidates <= n);
		for (i = 0; i < n; i++)
			nonzero += out[i] != 0.0f || out[i] != out[i];
		FUZZ_ASSERT(nonzero <= st.candidates);
		if (len > 0)
			FUZZ_ASSERT(inc_sketch_decompress(m, len - 1, out, n, NULL) == INC_ETRUNC);
	}
	free(out);
	return 0;
}
