// SPDX-License-Identifier: MIT
/* tr_optim.c - SGD with momentum and weight decay (see tr_optim.h). */
#include <math.h>

#include "tr_optim.h"

float tr_sgd_rate(const struct tr_sgd *o, long iter)
{
	return (float)(o->lr * pow(o->gamma, (double)(iter / o->step)));
}

void tr_sgd_update(const struct tr_sgd *o, float rate, float *w, float *v,
		   const float *grad, float scale, size_t n)
{
	float mu = (float)o->momentum, wd = (float)o->decay;
	size_t i;

	for (i = 0; i < n; i++) {
		float g = grad[i] * scale + wd * w[i];

		v[i] = mu * v[i] + rate * g;
		w[i] -= v[i];
	}
}
