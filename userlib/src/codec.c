// SPDX-License-Identifier: MIT
/*
 * codec.c - run-time choice between the AVX2 stream codec (codec_avx2.c)
 * and the portable one, which is the reference model itself
 * (inc_stream_compress/decompress). Both produce the same bytes.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "inc_internal.h"

static long portable_compress(const float *in, size_t n, unsigned eb,
			      void *out, size_t cap)
{
	return inc_stream_compress((const uint8_t *)in, n, eb, out, cap, NULL);
}

static long portable_decompress(const void *in, size_t in_len, size_t n,
				float *out, size_t cap)
{
	return inc_stream_decompress(in, in_len, n, (uint8_t *)out, cap);
}

struct codec_ops {
	const char *name;
	long (*compress)(const float *, size_t, unsigned, void *, size_t);
	long (*decompress)(const void *, size_t, size_t, float *, size_t);
};

static const struct codec_ops ops_portable = {
	"portable", portable_compress, portable_decompress,
};
static const struct codec_ops ops_avx2 = {
	"avx2", inc_avx2_compress, inc_avx2_decompress,
};

static _Atomic(const struct codec_ops *) ops_cur;

static int have_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

int inc_codec_select(enum inc_codec_impl impl)
{
	switch (impl) {
	case INC_CODEC_AUTO:
		atomic_store(&ops_cur, have_avx2() ? &ops_avx2 : &ops_portable);
		return 0;
	case INC_CODEC_PORTABLE:
		atomic_store(&ops_cur, &ops_portable);
		return 0;
	case INC_CODEC_AVX2:
		if (!have_avx2())
			return INC_E_NOSUPPORT;
		atomic_store(&ops_cur, &ops_avx2);
		return 0;
	}
	return INC_E_ARG;
}

static const struct codec_ops *ops(void)
{
	const struct codec_ops *o = atomic_load(&ops_cur);
	const char *env;

	if (o)
		return o;
	env = getenv("INC_CODEC");
	if (env && !strcmp(env, "portable"))
		inc_codec_select(INC_CODEC_PORTABLE);
	else if (!env || !*env || !strcmp(env, "auto") ||
		 inc_codec_select(INC_CODEC_AVX2) != 0)
		inc_codec_select(INC_CODEC_AUTO);
	return atomic_load(&ops_cur);
}

const char *inc_codec_name(void)
{
	return ops()->name;
}

long inc_codec_compress(const float *in, size_t n_values, unsigned eb,
			void *out, size_t out_cap)
{
	return ops()->compress(in, n_values, eb, out, out_cap);
}

long inc_codec_decompress(const void *in, size_t in_len, size_t n_values,
			  float *out, size_t out_cap)
{
	return ops()->decompress(in, in_len, n_values, out, out_cap);
}

double inc_codec_abs_bound(unsigned eb)
{
	/* Per docs/userlib.md "Tolerance": with ebase = 127 - eb, values with
	 * exponent e < ebase become 0 (|x| < 2^-eb); the 8-bit class
	 * (ebase <= e < ebase + ceil(eb/2)) keeps bits 22..16 of the shifted
	 * mantissa (error < 2^-7, and < |x| < 2^(e-126)); the 16-bit class keeps
	 * bits 22..8 (error < 2^-15); |x| >= 1 is exact. */
	double b = 1.0, b8 = 1.0, bound;
	unsigned ebase, e8max, i;

	if (eb < INC_EB_MIN)
		eb = INC_EB_MIN;
	if (eb > INC_EB_MAX)
		eb = INC_EB_MAX;
	ebase = 127u - eb;
	for (i = 0; i < eb; i++)
		b /= 2.0;                 /* 2^-eb */
	bound = b;
	e8max = ebase + (eb + 1u) / 2u - 1u;
	for (i = e8max; i < 126u; i++)
		b8 /= 2.0;                /* 2^(e8max-126) */
	if (b8 > 1.0 / 128.0)
		b8 = 1.0 / 128.0;
	if (b8 > bound)
		bound = b8;
	if (ebase + (eb + 1u) / 2u <= 126u && 1.0 / 32768.0 > bound)
		bound = 1.0 / 32768.0;
	return bound;
}
