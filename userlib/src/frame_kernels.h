/* SPDX-License-Identifier: MIT */
/* frame_kernels.h - the AVX2 frame kernels (codec_avx2.c) behind
 * inc_frame_compress_fast / inc_frame_decompress_fast (frame_fast.c). */
#ifndef INC_FRAME_KERNELS_H
#define INC_FRAME_KERNELS_H

#include "inc_model.h"

/* Every entry byte-identical to inc_frame_kernels_model; needs AVX2. */
extern const struct inc_frame_kernels inc_frame_kernels_avx2;

#endif
