// SPDX-License-Identifier: MIT
/* tr_data.c - IDX reader (zlib reads gzipped and plain files alike). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "tr_data.h"
#include "tr_util.h"

#define IDX_UBYTE_1D 0x00000801u
#define IDX_UBYTE_3D 0x00000803u

static int errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* First existing file among DIR/SPLIT-KIND{-,.}DIMS-ubyte{.gz,}. */
static int find_file(char *out, size_t len, const char *dir, const char *split,
		     const char *kind, const char *dims)
{
	static const char *const fmts[] = {
		"%s/%s-%s-%s-ubyte.gz", "%s/%s-%s-%s-ubyte",
		"%s/%s-%s.%s-ubyte.gz", "%s/%s-%s.%s-ubyte",
	};
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		snprintf(out, len, fmts[i], dir, split, kind, dims);
		if (stat(out, &st) == 0)
			return 0;
	}
	snprintf(out, len, fmts[0], dir, split, kind, dims);
	return -1;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Read exactly len bytes; -1 with a message on error or short read. */
static int read_exact(gzFile f, const char *path, void *buf, size_t len,
		      const char *what, char *err, size_t errlen)
{
	size_t got = 0;
	int r, zerr;

	while (got < len) {
		unsigned chunk = len - got > (1u << 30) ? 1u << 30 : (unsigned)(len - got);

		r = gzread(f, (char *)buf + got, chunk);
		if (r < 0) {
			const char *m = gzerror(f, &zerr);

			return errf(err, errlen, "%s: corrupt file (%s)", path,
				    zerr == Z_ERRNO ? strerror(errno) : m);
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	if (got < len)
		return errf(err, errlen, "%s: truncated: %s needs %zu bytes, the file has %zu",
			    path, what, len, got);
	return 0;
}

/* Open path and read its IDX header: magic, then ndims sizes. */
static gzFile open_idx(const char *path, uint32_t magic, int ndims, uint32_t *dims,
		       char *err, size_t errlen)
{
	unsigned char h[16];
	gzFile f = gzopen(path, "rb");
	int i;

	if (!f) {
		errf(err, errlen, "%s: %s (install the Debian package %s, or give --data DIR "
		     "with IDX files)", path, strerror(errno ? errno : ENOENT), TR_DATA_PACKAGE);
		return NULL;
	}
	if (read_exact(f, path, h, 4 + 4 * (size_t)ndims, "the IDX header", err, errlen)) {
		gzclose(f);
		return NULL;
	}
	if (be32(h) != magic) {
		errf(err, errlen, "%s: not an IDX %s file (magic 0x%08x, expected 0x%08x)",
		     path, ndims == 3 ? "image" : "label", be32(h), magic);
		gzclose(f);
		return NULL;
	}
	for (i = 0; i < ndims; i++)
		dims[i] = be32(h + 4 + 4 * i);
	return f;
}

int tr_dataset_load(struct tr_dataset *d, const char *dir, const char *split,
		    int classes, char *err, size_t errlen)
{
	char ipath[4096], lpath[4096];
	uint32_t idim[3], ldim[1];
	gzFile f;
	size_t px;
	int i;

	memset(d, 0, sizeof(*d));
	if (find_file(ipath, sizeof(ipath), dir, split, "images", "idx3") ||
	    find_file(lpath, sizeof(lpath), dir, split, "labels", "idx1")) {
		return errf(err, errlen, "%s: no such file (install the Debian package %s, "
			    "or give --data DIR with IDX files)",
			    find_file(ipath, sizeof(ipath), dir, split, "images", "idx3") ?
			    ipath : lpath, TR_DATA_PACKAGE);
	}
	f = open_idx(ipath, IDX_UBYTE_3D, 3, idim, err, errlen);
	if (!f)
		return -1;
	if (idim[1] != 28 || idim[2] != 28 || idim[0] == 0 || idim[0] > 10000000u) {
		gzclose(f);
		return errf(err, errlen, "%s: %u images of %ux%u, expected 28x28 images",
			    ipath, idim[0], idim[1], idim[2]);
	}
	d->n = (int)idim[0];
	d->rows = 28;
	d->cols = 28;
	px = (size_t)d->n * 28 * 28;
	d->x = malloc(px);
	if (!d->x) {
		gzclose(f);
		return errf(err, errlen, "%s: out of memory", ipath);
	}
	if (read_exact(f, ipath, d->x, px, "the pixels", err, errlen)) {
		gzclose(f);
		tr_dataset_free(d);
		return -1;
	}
	gzclose(f);

	f = open_idx(lpath, IDX_UBYTE_1D, 1, ldim, err, errlen);
	if (!f) {
		tr_dataset_free(d);
		return -1;
	}
	if (ldim[0] != (uint32_t)d->n) {
		gzclose(f);
		tr_dataset_free(d);
		return errf(err, errlen, "%s: %u labels for the %u images of %s", lpath,
			    ldim[0], idim[0], ipath);
	}
	d->y = malloc((size_t)d->n);
	if (!d->y || read_exact(f, lpath, d->y, (size_t)d->n, "the labels", err, errlen)) {
		if (!d->y)
			errf(err, errlen, "%s: out of memory", lpath);
		gzclose(f);
		tr_dataset_free(d);
		return -1;
	}
	gzclose(f);
	for (i = 0; i < d->n; i++)
		if (d->y[i] >= classes) {
			int bad = d->y[i];

			tr_dataset_free(d);
			return errf(err, errlen, "%s: label %d of sample %d is outside 0..%d",
				    lpath, bad, i, classes - 1);
		}
	return 0;
}

void tr_dataset_free(struct tr_dataset *d)
{
	free(d->x);
	free(d->y);
	memset(d, 0, sizeof(*d));
}

void tr_dataset_gather(const struct tr_dataset *d, const uint32_t *idx, int n,
		       float *x, uint8_t *y)
{
	size_t sz = (size_t)d->rows * d->cols, j;
	int i;

	for (i = 0; i < n; i++) {
		const uint8_t *src = d->x + (size_t)idx[i] * sz;

		for (j = 0; j < sz; j++)
			x[(size_t)i * sz + j] = (float)src[j] * (1.0f / 255.0f);
		y[i] = d->y[idx[i]];
	}
}

/* ------------------------------------------------------------------------ */
/* Data order                                                                */
/* ------------------------------------------------------------------------ */
int tr_shard_init(struct tr_shard *s, uint32_t n, uint64_t seed, int workers, int batch,
		  int rotate)
{
	*s = (struct tr_shard){ .n = n, .seed = seed, .workers = workers, .batch = batch,
				.rotate = rotate, .epoch = -1 };
	s->perm = malloc((size_t)n * sizeof(uint32_t));
	return s->perm ? 0 : -1;
}

void tr_shard_free(struct tr_shard *s)
{
	free(s->perm);
	s->perm = NULL;
}

uint32_t tr_sample_at(struct tr_shard *s, uint64_t p)
{
	uint32_t n = s->n, i, j, t;
	long epoch = (long)(p / n);

	if (epoch != s->epoch) {
		struct tr_rng rng;

		tr_rng_seed(&rng, s->seed, 0xda7a0000u + (uint64_t)epoch);
		for (i = 0; i < n; i++)
			s->perm[i] = i;
		for (i = n - 1; i > 0; i--) {
			j = (uint32_t)tr_rng_below(&rng, (uint64_t)i + 1);
			t = s->perm[i];
			s->perm[i] = s->perm[j];
			s->perm[j] = t;
		}
		s->epoch = epoch;
	}
	return s->perm[p % n];
}

uint32_t tr_shard_sample(struct tr_shard *s, long it, int w, int i)
{
	uint64_t slot = s->rotate ? (uint64_t)((w + it) % s->workers) : (uint64_t)w;

	return tr_sample_at(s, ((uint64_t)it * s->workers + slot) * s->batch + (uint64_t)i);
}

void tr_load_batch(struct tr_shard *s, const struct tr_dataset *d, long it, int w,
		   float *x, uint8_t *y)
{
	size_t sz = (size_t)d->rows * d->cols;
	uint32_t idx[256];
	int done = 0, i, n;

	while (done < s->batch) {
		n = s->batch - done < 256 ? s->batch - done : 256;
		for (i = 0; i < n; i++)
			idx[i] = tr_shard_sample(s, it, w, done + i);
		tr_dataset_gather(d, idx, n, x + (size_t)done * sz, y + done);
		done += n;
	}
}
