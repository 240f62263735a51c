// SPDX-License-Identifier: MIT
/* tr_optim.c - SGD with momentum and weight decay (see tr_optim.h). */
#include <math.h>

#include "tr_optim.h"

float tr_sgd_rate(const struct tr_sgd *o, long iter)
{
	return (float)(o->lr * pow(o->gamma, (double)(iter / o->step)));
}

/* One value's update. */
static inline void sgd_one(float *restrict w, float *restrict v, const float *restrict grad,
			   size_t j, float scale, float wd, float mu, float rate)
{
	float g = grad[j] * scale + wd * w[j];

	v[j] = mu * v[j] + rate * g;
	w[j] -= v[j];
}

void tr_sgd_update(const struct tr_sgd *o, float rate, float *restrict w, float *restrict v,
		   const float *restrict grad, float scale, size_t n)
{
	float mu = (float)o->momentum, wd = (float)o->decay;
	size_t i = 0, j;

	/* Blocks of 8 with a fixed inner count, which the compiler vectorises
	 * at -O2 (each value's operations stay the same: the same results) */
	for (; i + 8 <= n; i += 8)
		for (j = i; j < i + 8; j++)
			sgd_one(w, v, grad, j, scale, wd, mu, rate);
	for (; i < n; i++)
		sgd_one(w, v, grad, i, scale, wd, mu, rate);
}
