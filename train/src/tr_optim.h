/* SPDX-License-Identifier: MIT */
/*
 * tr_optim.h - SGD with momentum and weight decay (Caffe's form) and the
 * step learning-rate schedule of the paper's Table I. Elementwise, so it
 * runs on any slice of the parameters: the aggregator of the
 * worker-aggregator scheme updates each segment as soon as it is summed.
 */
#ifndef TR_OPTIM_H
#define TR_OPTIM_H

#include <stddef.h>

struct tr_sgd {
	double lr;          /* base learning rate */
	double momentum;    /* mu */
	double decay;       /* weight decay (L2), lambda */
	long step;          /* the rate is multiplied by gamma every step iterations */
	double gamma;
};

/* Learning rate at iteration iter (0-based): lr * gamma^floor(iter/step). */
float tr_sgd_rate(const struct tr_sgd *o, long iter);

/* For i in [0, n): g = grad[i] * scale + decay * w[i];
 *                  v[i] = momentum * v[i] + rate * g;  w[i] -= v[i]. */
void tr_sgd_update(const struct tr_sgd *o, float rate, float *restrict w, float *restrict v,
		   const float *restrict grad, float scale, size_t n);

#endif
