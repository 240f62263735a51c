// SPDX-License-Identifier: MIT
/*
 * fuzz_stream_decompress.c - libFuzzer target for inc_stream_decompress and
 * inc_stream_size.
 *
 * Input: 2 bytes little-endian value count n (taken modulo 4096), then the
 * stream bytes. Invariants:
 * - no crash, no sanitizer report, no read past the stream, no write past
 *   the output (the output buffer is exactly 4n bytes);
 * - inc_stream_size and inc_stream_decompress agree, both in size and error;
 * - a success consumes at most the input, and the same bytes cut to that
 *   size decode the same; one byte less is INC_ETRUNC;
 * - each group's tag word gives its size, the padding lanes are tag 0;
 * - an output capacity of 4n - 1 is INC_ENOSPC.
 */
#include "inc_model.h"
#include "fuzz_common.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n, len, pos, g, lanes;
	const uint8_t *s;
	uint8_t *out, *out2;
	long r, r2;
	uint16_t tw;

	if (size < 2)
		return 0;
	n = (size_t)(data[0] | data[1] << 8) % 4096;
	s = data + 2;
	len = size - 2;
	out = malloc(4 * n + 1);
	out2 = malloc(4 * n + 1);
	FUZZ_ASSERT(out && out2);

	r = inc_stream_decompress(s, len, n, out, 4 * n);
	r2 = inc_stream_size(s, len, n);
	FUZZ_ASSERT(r == r2);
	FUZZ_ASSERT(r >= 0 || r == INC_ETRUNC || r == INC_EMALFORMED);
	if (r >= 0) {
		FUZZ_ASSERT((size_t)r <= len);
		FUZZ_ASSERT((size_t)r >= 2 * ((n + 7) / 8) &&
			    (size_t)r <= inc_stream_max_size(n));
		/* Walk the groups: sizes add up, padding lanes are tag 0. */
		for (g = 0, pos = 0; g < (n + 7) / 8; g++) {
			tw = (uint16_t)(s[pos] | s[pos + 1] << 8);
			lanes = n - 8 * g < 8 ? n - 8 * g : 8;
			FUZZ_ASSERT(lanes == 8 || (tw >> (2 * lanes)) == 0);
			pos += inc_group_size(tw);
		}
		FUZZ_ASSERT(pos == (size_t)r);
		/* Cut to exactly the stream: same result. */
		r2 = inc_stream_decompress(s, (size_t)r, n, out2, 4 * n);
		FUZZ_ASSERT(r2 == r && !memcmp(out, out2, 4 * n));
		if (r > 0) {
			r2 = inc_stream_decompress(s, (size_t)r - 1, n, out2, 4 * n);
			FUZZ_ASSERT(r2 == INC_ETRUNC);
		}
		if (n > 0) {
			r2 = inc_stream_decompress(s, len, n, out2, 4 * n - 1);
			FUZZ_ASSERT(r2 == INC_ENOSPC);
		}
	}
	free(out);
	free(out2);
	return 0;
}
