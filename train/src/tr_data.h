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

#endif
