/* SPDX-License-Identifier: MIT */
/*
 * tr_data.h - IDX data sets (MNIST format: Fashion-MNIST from Debian's
 * dataset-fashion-mnist, or the original MNIST files), gzipped or not.
 */
#ifndef TR_DATA_H
#define TR_DATA_H

#include <stddef.h>
#include <stdint.h>

#define TR_DATA_DEFAULT_DIR "/usr/share/datasets/fashion-mnist"
#define TR_DATA_PACKAGE     "dataset-fashion-mnist"

struct tr_dataset {
	int n;            /* samples */
	int rows, cols;   /* image size (28 x 28) */
	uint8_t *x;       /* n * rows * cols pixels */
	uint8_t *y;       /* n labels, 0..classes-1 */
};

/*
 * Load split `split` ("train" or "t10k") from dir: the files
 * SPLIT-images-idx3-ubyte and SPLIT-labels-idx1-ubyte, each with or
 * without .gz (or the SPLIT-images.idx3-ubyte spelling). Checks the magic
 * numbers, the dimensions (rows x cols must be 28 x 28, labels below
 * classes), that both files hold the same number of samples and that
 * neither is truncated. Returns 0, or -1 with one line in err naming the
 * file and what is wrong.
 */
int tr_dataset_load(struct tr_dataset *d, const char *dir, const char *split,
		    int classes, char *err, size_t errlen);
void tr_dataset_free(struct tr_dataset *d);

/* Samples idx[0..n) as floats in [0, 1] (x: n * rows * cols) and labels. */
void tr_dataset_gather(const struct tr_dataset *d, const uint32_t *idx, int n,
		       float *x, uint8_t *y);

/*
 * Data order of a run: one seeded permutation of the n training samples
 * per epoch, cut into batches. Global sample position p = (iteration *
 * workers + slot) * batch + i maps to permutation[p % n] of epoch p / n,
 * so the workers of an iteration hold disjoint batches, an epoch covers
 * the set exactly, and a single process with batch workers*batch sees
 * exactly the union of the workers' batches. rotate (gossip): worker w
 * takes slot (w + iteration) % workers, its data moving along the ring.
 */
struct tr_shard {
	uint32_t n;               /* samples in the set */
	uint64_t seed;
	int workers, batch;
	int rotate;
	uint32_t *perm;           /* permutation of epoch `epoch` */
	long epoch;
};

/* 0, or -1 when memory runs out. */
int tr_shard_init(struct tr_shard *s, uint32_t n, uint64_t seed, int workers, int batch,
		  int rotate);
void tr_shard_free(struct tr_shard *s);
/* The sample at global position p. */
uint32_t tr_sample_at(struct tr_shard *s, uint64_t p);
/* Sample i (0 <= i < batch) of worker w's batch in iteration it. */
uint32_t tr_shard_sample(struct tr_shard *s, long it, int w, int i);
/* Worker w's batch of iteration it from d into x (batch * rows * cols) and y. */
void tr_load_batch(struct tr_shard *s, const struct tr_dataset *d, long it, int w,
		   float *x, uint8_t *y);

#endif
