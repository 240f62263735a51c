// SPDX-License-Identifier: MIT
/*
 * frame_fast.c - inc_frame_compress_fast / inc_frame_decompress_fast: the
 * model's frame functions (inc_frame_compress_k / _decompress_k) with the
 * AVX2 kernels of codec_avx2.c when the AVX2 codec is selected.
 */
#include "inc_internal.h"
#include "frame_kernels.h"
#include "inceptionn/inc_frame_fast.h"

const struct inc_frame_kernels *inc_frame_kernels_fast(void)
{
	return inc_codec_is_avx2() ? &inc_frame_kernels_avx2 : &inc_frame_kernels_model;
}

long inc_frame_compress_fast(const uint8_t *in, size_t in_len, uint8_t *out,
			     size_t out_cap, const struct inc_frame_config *cfg,
			     struct inc_frame_info *info)
{
	return inc_frame_compress_k(in, in_len, out, out_cap, cfg, info,
				    inc_frame_kernels_fast());
}

long inc_frame_decompress_fast(const uint8_t *in, size_t in_len, uint8_t *out,
			       size_t out_cap, const struct inc_frame_config *cfg,
			       struct inc_frame_info *info)
{
	return inc_frame_decompress_k(in, in_len, out, out_cap, cfg, info,
				      inc_frame_kernels_fast());
}
