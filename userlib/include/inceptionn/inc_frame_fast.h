/* SPDX-License-Identifier: MIT */
/*
 * inc_frame_fast.h - the frame format (docs/wire-format.md) at memory
 * speed: the model's inc_frame_compress / inc_frame_decompress
 * (sw-model/src/frame.c: decision order, shim, headers, checksums) with
 * their hot loops (stream codec, stream size, word sums, tag-word walk)
 * replaced by the user library's SIMD kernels. Same arguments, same
 * results, byte for byte, as the model's functions (tests: test-frame-fast,
 * and nic-switch -c cross-checks frames against the model).
 */
#ifndef INC_FRAME_FAST_H
#define INC_FRAME_FAST_H

#include "inc_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernels in use: the AVX2 ones when the stream codec in use is AVX2
 * (inc_codec_select, INC_CODEC), else the model's own. */
const struct inc_frame_kernels *inc_frame_kernels_fast(void);

long inc_frame_compress_fast(const uint8_t *in, size_t in_len, uint8_t *out,
			     size_t out_cap, const struct inc_frame_config *cfg,
			     struct inc_frame_info *info);
long inc_frame_decompress_fast(const uint8_t *in, size_t in_len, uint8_t *out,
			       size_t out_cap, const struct inc_frame_config *cfg,
			       struct inc_frame_info *info);

#ifdef __cplusplus
}
#endif

#endif
