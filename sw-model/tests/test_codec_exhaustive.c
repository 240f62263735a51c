// SPDX-License-Identifier: MIT
/*
 * test_codec_exhaustive.c - the per-value codec properties of docs/codec.md
 * over all 2^32 float32 bit patterns at eb = 10, and over a stride that
 * covers every exponent, both signs and the boundary mantissas at eb = 6 and
 * 8 (more coarsely at eb = 1, 12 and 126).
 *
 * Properties, for f -> (tag, payload) -> f':
 *   raw        tag 3 exactly when e >= 127; payload == f == f' bit for bit
 *              (NaN payloads and infinities included)
 *   class      tag 0 when e < Eb; tag 1 or 0 in the 8-bit class, tag 2 or 0
 *              in the 16-bit class; the payload fits its 8/16 bits
 *   tag2-error |f - f'| < 2^-15
 *   tag1-error |f - f'| < 2^-7
 *   tag0       |f| < 2^-min(eb,7), payload 0, f' = +0.0
 *   sign-mag   non-zero outputs keep the sign, |f'| <= |f|
 *   truncation tags 1/2: f' = sign(f) * floor(|f| * 2^k) / 2^k exactly
 *   idempotent compress(f') gives the same tag and payload
 *   quantize   inc_quantize_value(f) == f' bit for bit
 *
 * The error checks use double arithmetic, which is exact here: both values
 * are floats below 1 in magnitude and f' is a truncation of f.
 *
 * A check counts once per property per work unit (a chunk of 2^25 patterns,
 * or a block of exponents of a stride), and only if the unit exercised the
 * property; the per-property value counts are printed at the end.
 */
#include "inc_model.h"
#include "inc_test.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum prop {
	P_RAW, P_CLASS, P_ERR16, P_ERR8, P_ZERO, P_SIGNMAG, P_TRUNC, P_IDEM,
	P_QUANT, P_COUNT
};
static const char *const prop_names[P_COUNT] = {
	"raw", "class", "tag2-error", "tag1-error", "tag0", "sign-mag",
	"truncation", "idempotent", "quantize",
};

struct tally {
	uint64_t checked[P_COUNT];
	uint64_t failed[P_COUNT];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct tally total;
static unsigned examples_printed[P_COUNT];
static struct timespec t_start;

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t_start.tv_sec) +
	       (double)(t.tv_nsec - t_start.tv_nsec) * 1e-9;
}

static double as_double(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof(f));
	return (double)f;
}

static void report(enum prop p, unsigned eb, uint32_t f, unsigned tag,
		   uint32_t payload, uint32_t out)
{
	pthread_mutex_lock(&lock);
	if (examples_printed[p]++ < 5)
		fprintf(stderr,
			"FAIL %s: eb %u f 0x%08x -> tag %u payload 0x%x -> 0x%08x\n",
			prop_names[p], eb, f, tag, payload, out);
	pthread_mutex_unlock(&lock);
}

#define FAIL_IF(cond, p)                                                   \
	do {                                                               \
		if (cond) {                                                \
			t->failed[p]++;                                    \
			report(p, eb, f, tag, payload, out);               \
		}                                                          \
	} while (0)

/* Check every property on one bit pattern. */
static inline void check_value(uint32_t f, unsigned eb, struct tally *t)
{
	const unsigned ebase = 127u - eb, half = (eb + 1u) / 2u;
	const unsigned e = (f >> 23) & 0xffu;
	uint32_t payload, out, payload2;
	unsigned tag, tag2, k;
	double a, b, scale;

	tag = inc_compress_value(f, eb, &payload);
	out = inc_decompress_value(tag, payload);

	t->checked[P_CLASS]++;
	FAIL_IF(tag > 3u ||
		(e >= 127u && tag != INC_TAG_RAW) ||
		(e < 127u && tag == INC_TAG_RAW) ||
		(e < ebase && tag != INC_TAG_ZERO) ||
		(e >= ebase && e < ebase + half && tag == INC_TAG_16) ||
		(e >= ebase + half && e < 127u && tag == INC_TAG_8) ||
		(tag == INC_TAG_8 && payload > 0xffu) ||
		(tag == INC_TAG_16 && payload > 0xffffu), P_CLASS);

	t->checked[P_QUANT]++;
	FAIL_IF(inc_quantize_value(f, eb) != out, P_QUANT);

	t->checked[P_IDEM]++;
	tag2 = inc_compress_value(out, eb, &payload2);
	FAIL_IF(tag2 != tag || payload2 != payload, P_IDEM);

	if (tag == INC_TAG_RAW) {
		t->checked[P_RAW]++;
		FAIL_IF(payload != f || out != f, P_RAW);
		return;
	}
	a = fabs(as_double(f));
	if (tag == INC_TAG_ZERO) {
		t->checked[P_ZERO]++;
		FAIL_IF(payload != 0 || out != 0 ||
			!(a < ldexp(1.0, -(int)(eb < 7u ? eb : 7u))), P_ZERO);
		return;
	}
	b = fabs(as_double(out));
	t->checked[P_SIGNMAG]++;
	FAIL_IF((out >> 31) != (f >> 31) || !(b <= a) || b == 0.0, P_SIGNMAG);
	if (tag == INC_TAG_16) {
		t->checked[P_ERR16]++;
		FAIL_IF(!(fabs(as_double(f) - as_double(out)) < 0x1p-15), P_ERR16);
		k = 15;
	} else {
		t->checked[P_ERR8]++;
		FAIL_IF(!(fabs(as_double(f) - as_double(out)) < 0x1p-7), P_ERR8);
		k = 7;
	}
	t->checked[P_TRUNC]++;
	scale = ldexp(1.0, (int)k);
	FAIL_IF(b != floor(a * scale) / scale, P_TRUNC);
}

/* Fold a unit's tally into the totals: one check per exercised property. */
static void finish_unit(const struct tally *t)
{
	unsigned long pass = 0, fail = 0;
	unsigned p;

	pthread_mutex_lock(&lock);
	for (p = 0; p < P_COUNT; p++) {
		total.checked[p] += t->checked[p];
		total.failed[p] += t->failed[p];
		if (t->failed[p])
			fail++;
		else if (t->checked[p])
			pass++;
	}
	pthread_mutex_unlock(&lock);
	inc_test_add(pass, fail);
}

/* ---- work units ---------------------------------------------------------- */
#define CHUNK_BITS   25u
#define N_CHUNKS     (1u << (32u - CHUNK_BITS))
#define EXP_BLOCK    32u                    /* exponents per strided unit */
#define BLOCKS_PER_EB (256u / EXP_BLOCK)

static const struct {
	unsigned eb, stride;                    /* mantissa stride */
} strided[] = {
	{ 6, 127 }, { 8, 127 }, { 1, 4093 }, { 12, 4093 }, { 126, 4093 },
};
#define N_STRIDED (sizeof(strided) / sizeof(strided[0]))
#define N_UNITS (N_CHUNKS + N_STRIDED * BLOCKS_PER_EB)

static uint32_t boundary_m[160];
static unsigned n_boundary_m;

static void init_boundaries(void)
{
	unsigned i, n = 0;
	const uint32_t top = 0x7fffffu;

	boundary_m[n++] = 0;
	boundary_m[n++] = top;
	boundary_m[n++] = top - 1;
	boundary_m[n++] = 0x400000u;            /* half */
	for (i = 0; i < 23; i++) {
		boundary_m[n++] = 1u << i;              /* one bit */
		boundary_m[n++] = (1u << i) - 1u;       /* low bits set */
		boundary_m[n++] = (1u << i) + 1u;
		boundary_m[n++] = top ^ (1u << i);      /* one bit clear */
		boundary_m[n++] = top & ~((1u << i) - 1u); /* top bits set */
	}
	n_boundary_m = n;
}

static atomic_uint next_unit;
static atomic_uint units_done;

static void run_unit(unsigned u)
{
	struct tally t;
	uint64_t v, lo, hi;
	unsigned eb, s, e, e0, i, j;
	uint32_t m;

	memset(&t, 0, sizeof(t));
	if (u < N_CHUNKS) {
		lo = (uint64_t)u << CHUNK_BITS;
		hi = lo + (1ull << CHUNK_BITS);
		for (v = lo; v < hi; v++)
			check_value((uint32_t)v, 10, &t);
		finish_unit(&t);
		fprintf(stderr, "eb 10: patterns 0x%08llx..0x%08llx done (%u/%u units, %.1f s)\n",
			(unsigned long long)lo, (unsigned long long)(hi - 1),
			atomic_fetch_add(&units_done, 1) + 1, (unsigned)N_UNITS, seconds());
		return;
	}
	u -= N_CHUNKS;
	i = u / BLOCKS_PER_EB;
	eb = strided[i].eb;
	e0 = u % BLOCKS_PER_EB * EXP_BLOCK;
	for (e = e0; e < e0 + EXP_BLOCK; e++)
		for (s = 0; s < 2; s++) {
			for (j = 0; j < n_boundary_m; j++)
				check_value(s << 31 | e << 23 | boundary_m[j], eb, &t);
			for (m = 0; m <= 0x7fffffu; m += strided[i].stride)
				check_value(s << 31 | e << 23 | m, eb, &t);
		}
	finish_unit(&t);
	fprintf(stderr, "eb %u: exponents %u..%u, stride %u done (%u/%u units, %.1f s)\n",
		eb, e0, e0 + EXP_BLOCK - 1, strided[i].stride,
		atomic_fetch_add(&units_done, 1) + 1, (unsigned)N_UNITS, seconds());
}

static void *worker(void *arg)
{
	unsigned u;

	(void)arg;
	while ((u = atomic_fetch_add(&next_unit, 1)) < N_UNITS)
		run_unit(u);
	return NULL;
}

int main(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned nthreads = ncpu > 0 ? (unsigned)ncpu : 1, i;
	pthread_t *tids;
	unsigned p;

	if (nthreads > 256)
		nthreads = 256;
	clock_gettime(CLOCK_MONOTONIC, &t_start);
	init_boundaries();
	fprintf(stderr, "%u threads, %u units: 2^32 patterns at eb 10, strides at eb 6, 8, 1, 12, 126\n",
		nthreads, (unsigned)N_UNITS);
	tids = calloc(nthreads, sizeof(*tids));
	if (!tids)
		return 2;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, worker, NULL) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 2;
		}
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	free(tids);

	for (p = 0; p < P_COUNT; p++)
		fprintf(stderr, "%-11s %12llu values checked, %llu failed\n",
			prop_names[p], (unsigned long long)total.checked[p],
			(unsigned long long)total.failed[p]);
	fprintf(stderr, "%.1f s\n", seconds());
	/* Every property must have been exercised at all. */
	for (p = 0; p < P_COUNT; p++)
		CHECK(total.checked[p] > 0, "property %s never exercised", prop_names[p]);
	return inc_test_done();
}
