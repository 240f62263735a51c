// SPDX-License-Identifier: MIT
/*
 * codec_dispatch.c - run-time choice between the AVX2 stream codec (codec_avx2.c),
 * the same with the AVX-512 decoder (codec_avx512.c) and the portable one,
 * which is the reference model itself (inc_stream_compress/decompress). All
 * produce the same bytes.
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

/* The stream of v + res, then its decoding, with the model. */
static long portable_compress_q(float *v, float *res, size_t n, unsigned eb,
				void *out, size_t cap)
{
	size_t i;
	long r;

	for (i = 0; res && i < n; i++) {
		v[i] += res[i];
		res[i] = v[i];
	}
	r = inc_stream_compress((const uint8_t *)v, n, eb, out, cap, NULL);
	if (r < 0)
		return r;
	if (inc_stream_decompress(out, (size_t)r, n, (uint8_t *)v, 4 * n) != r)
		return INC_EMALFORMED;
	for (i = 0; res && i < n; i++)
		res[i] -= v[i];
	return r;
}

/* The parts one after the other, each through the model. */
static long portable_decompress_parts(const struct inc_part *p, unsigned k)
{
	unsigned j;
	long r;

	for (j = 0; j < k; j++) {
		r = inc_stream_decompress(p[j].in, p[j].len, p[j].n, p[j].out,
					  4 * p[j].n);
		if (r < 0)
			return r;
		if ((size_t)r != p[j].len)
			return INC_EMALFORMED;
	}
	return 0;
}

struct codec_ops {
	const char *name;
	long (*compress)(const float *, size_t, unsigned, void *, size_t);
	long (*decompress)(const void *, size_t, size_t, float *, size_t);
	long (*decompress_parts)(const struct inc_part *, unsigned);
	void (*quantize)(float *, float *, size_t, unsigned);
	long (*compress_q)(float *, float *, size_t, unsigned, void *, size_t);
};

static const struct codec_ops ops_portable = {
	"portable", portable_compress, portable_decompress,
	portable_decompress_parts, inc_quantize_scalar, portable_compress_q,
};
static const struct codec_ops ops_avx2 = {
	"avx2", inc_avx2_compress, inc_avx2_decompress,
	inc_avx2_decompress_parts, inc_avx2_quantize, inc_avx2_compress_q,
};
static const struct codec_ops ops_avx512 = {
	"avx512", inc_avx2_compress, inc_avx512_decompress,
	inc_avx512_decompress_parts, inc_avx2_quantize, inc_avx2_compress_q,
};

static _Atomic(const struct codec_ops *) ops_cur;

static int have_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

static int have_avx512(void)
{
	__builtin_cpu_init();
	return have_avx2() && __builtin_cpu_supports("avx512f") &&
	       __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
	       __builtin_cpu_supports("avx512vbmi") &&
	       __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi2");
}

int inc_codec_select(enum inc_codec_impl impl)
{
	switch (impl) {
	case INC_CODEC_AUTO:
		/* The AVX-512 decoder was measured on AMD (Zen 5) only; Intel
		 * CPUs keep the AVX2 path whose figures the README records
		 * (INC_CODEC=avx512 selects it there too). */
		if (have_avx512() && __builtin_cpu_is("amd"))
			atomic_store(&ops_cur, &ops_avx512);
		else
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
	case INC_CODEC_AVX512:
		if (!have_avx512())
			return INC_E_NOSUPPORT;
		atomic_store(&ops_cur, &ops_avx512);
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
		 inc_codec_select(!strcmp(env, "avx512") ? INC_CODEC_AVX512 :
				  INC_CODEC_AVX2) != 0)
		inc_codec_select(INC_CODEC_AUTO);
	return atomic_load(&ops_cur);
}

int inc_codec_is_avx2(void)
{
	const struct codec_ops *o = ops();

	return o == &ops_avx2 || o == &ops_avx512;
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

void inc_codec_quantize(float *v, float *res, size_t n, unsigned eb)
{
	ops()->quantize(v, res, n, eb);
}

long inc_codec_compress_q(float *v, float *res, size_t n_values, unsigned eb,
			  void *out, size_t out_cap)
{
	return ops()->compress_q(v, res, n_values, eb, out, out_cap);
}

/* ------------------------------------------------------------------------ */
/* Multi-stream container (layout in inceptionn.h and docs/userlib.md)        */
/* ------------------------------------------------------------------------ */

/* Values per part but the last non-empty one: ceil(ceil(n/K)/8) * 8. */
static size_t part_per(size_t n, unsigned parts)
{
	return (n / parts + (n % parts != 0) + 7u) / 8u * 8u;
}

size_t inc_codec_part_start(size_t n_values, unsigned parts, unsigned i)
{
	size_t per;

	if (parts == 0 || i >= parts)
		return n_values;
	per = part_per(n_values, parts);
	/* i * per <= n + 8 * parts: no overflow short of SIZE_MAX - 32. */
	return i * per < n_values ? i * per : n_values;
}

size_t inc_codec_part_values(size_t n_values, unsigned parts, unsigned i)
{
	size_t start = inc_codec_part_start(n_values, parts, i), per;

	if (parts == 0 || i >= parts)
		return 0;
	per = part_per(n_values, parts);
	return n_values - start < per ? n_values - start : per;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The parts container: each part compressed on its own, its length in the
 * header. q: part by part through inc_codec_compress_q (v and res updated
 * in place); else through inc_codec_compress from in. */
static long compress_parts(int q, const float *in, float *v, float *res, size_t n_values,
			   unsigned eb, unsigned parts, uint8_t *out, size_t out_cap)
{
	const float *src = q ? v : in;
	size_t hdr, pos;
	unsigned i;
	long r;

	if ((!src && n_values) || (!out && out_cap) || parts == 0 ||
	    parts > INC_CODEC_PARTS_MAX)
		return INC_EINVAL;
	hdr = inc_codec_parts_hdr_size(parts);
	if (out_cap < hdr)
		return INC_ENOSPC;
	pos = hdr;
	for (i = 0; i < parts; i++) {
		size_t n = inc_codec_part_values(n_values, parts, i),
		       a = inc_codec_part_start(n_values, parts, i);

		r = q ? inc_codec_compress_q(v ? v + a : NULL, res && v ? res + a : NULL, n, eb,
					     out + pos, out_cap - pos) :
			inc_codec_compress(in ? in + a : NULL, n, eb, out + pos, out_cap - pos);
		if (r < 0)
			return r;
		if ((unsigned long)r > 0xffffffffu)
			return INC_EINVAL;
		put_le32(out + 4 + 4 * i, (uint32_t)r);
		pos += (size_t)r;
	}
	out[0] = (uint8_t)parts;
	out[1] = out[2] = out[3] = 0;
	return (long)pos;
}

long inc_codec_compress_parts(const float *in, size_t n_values, unsigned eb,
			      unsigned parts, void *outv, size_t out_cap)
{
	return compress_parts(0, in, NULL, NULL, n_values, eb, parts, outv, out_cap);
}

/* inc_codec_compress_parts through inc_codec_compress_q, part by part. */
long inc_codec_compress_parts_q(float *v, float *res, size_t n_values, unsigned eb,
				unsigned parts, void *outv, size_t out_cap)
{
	return compress_parts(1, NULL, v, res, n_values, eb, parts, outv, out_cap);
}

long inc_codec_decompress_parts(const void *inv, size_t in_len, size_t n_values,
				float *out, size_t out_cap)
{
	const uint8_t *in = inv;
	struct inc_part p[INC_CODEC_PARTS_MAX];
	float none;             /* out for n = 0 and out = NULL */
	size_t hdr, pos;
	unsigned k, i;
	long r;

	if ((!in && in_len) || (!out && n_values))
		return INC_EINVAL;
	if (n_values > out_cap / 4)
		return INC_ENOSPC;
	if (!out)
		out = &none;
	if (in_len < 4)
		return INC_ETRUNC;
	k = in[0];
	if (k == 0 || k > INC_CODEC_PARTS_MAX || in[1] || in[2] || in[3])
		return INC_EMALFORMED;
	hdr = inc_codec_parts_hdr_size(k);
	if (in_len < hdr)
		return INC_ETRUNC;
	pos = hdr;
	for (i = 0; i < k; i++) {
		size_t len = get_le32(in + 4 + 4 * i);

		if (len > in_len - pos)
			return INC_ETRUNC;
		p[i].in = in + pos;
		p[i].len = len;
		p[i].n = inc_codec_part_values(n_values, k, i);
		p[i].out = (uint8_t *)(out + inc_codec_part_start(n_values, k, i));
		pos += len;
	}
	r = ops()->decompress_parts(p, k);
	return r < 0 ? r : (long)pos;
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
