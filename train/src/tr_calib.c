// SPDX-License-Identifier: MIT
/*
 * tr_calib.c - MG-WFBP's inputs, measured on this communicator as it will
 * train: forward and per-layer backward times over warm-up passes on the
 * first batch (backward stamps each layer's completion through this file's
 * own hook, not the schedule's), the SGD update on copies, and the
 * all-reduce of real gradients at TR_CAL_SIZES sizes (median of CAL_REPS
 * calls each) with the run's compression, fitted to T_ar(M) = a + b*M.
 * Every rank measures; the sums over ranks make every rank plan from the
 * same numbers, so all choose the same groups. Times in ms. Nothing of the
 * training state changes. The measured points live in the run's plan
 * (struct tr_calib).
 */
#include <stdlib.h>
#include <string.h>

#include "tr_optim.h"
#include "tr_run.h"
#include "tr_util.h"

#define CAL_PASSES 6
#define CAL_REPS   3

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Calibration's backward hook: the completion time of each learnable
 * layer, in backward order. */
struct layer_clock {
	uint64_t *t;
	int k;
};

static void layer_done(void *arg, int layer)
{
	struct layer_clock *c = arg;

	(void)layer;
	c->t[c->k++] = tr_now_ns();
}

int tr_calibrate(struct run *r, struct tr_plan_in *in, double *t_other)
{
	struct tr_model *m = &r->m;
	struct tr_plan *p = &r->plan;
	struct tr_calib *cal = &p->cal;
	uint64_t v[2 + TR_PLAN_MAX + 1 + TR_CAL_SIZES], lay[TR_PLAN_MAX], reps[CAL_REPS];
	struct layer_clock clock = { .t = lay };
	double wt[TR_CAL_SIZES], scale;
	size_t sz[TR_CAL_SIZES];
	float *tmp = NULL, *p2 = NULL, *m2 = NULL;
	struct inc_allreduce_opts co = r->c.ar;
	int pass, k, j, q, rc = 0, nl = p->nl, nv = 2 + nl + 1 + TR_CAL_SIZES;

	memset(v, 0, sizeof(v));
	for (pass = 0; pass < CAL_PASSES; pass++) {
		uint64_t t0 = tr_now_ns(), t1, t2;

		tr_load_batch(&r->d.shard, &r->d.train, 0, r->c.worker, r->d.x, r->d.y);
		t1 = tr_now_ns();
		(void)tr_model_forward(m, r->d.x, r->d.y, r->o.batch, NULL);
		t2 = tr_now_ns();
		clock.k = 0;
		tr_model_backward_hook(m, r->d.y, r->o.batch, layer_done, &clock);
		if (pass == 0)
			continue;       /* caches and allocator warm-up */
		v[0] += t1 - t0;
		v[1] += t2 - t1;
		for (k = 0; k < nl; k++)
			v[2 + k] += lay[k] - (k ? lay[k - 1] : t2);
	}
	p2 = tr_alloc(m->nparams * sizeof(float));
	m2 = tr_alloc(m->nparams * sizeof(float));
	tmp = tr_alloc(m->nparams * sizeof(float));
	if (!p2 || !m2 || !tmp) {
		rc = INC_E_NOMEM;
		goto out;
	}
	for (pass = 1; pass < CAL_PASSES; pass++) {
		uint64_t t0;

		memcpy(p2, m->params, m->nparams * sizeof(float));
		memcpy(m2, r->s.mom, m->nparams * sizeof(float));
		t0 = tr_now_ns();
		tr_sgd_update(&r->o.sgd, r->s.rate, p2, m2, m->grads, 1.0f / (float)r->c.workers,
			      m->nparams);
		v[2 + nl] += tr_now_ns() - t0;
	}
	/* the training's residual stays untouched: a scratch one (m2) */
	co.residual = r->c.ar.residual ? m2 : NULL;
	for (j = 0; j < TR_CAL_SIZES; j++) {
		sz[j] = m->nparams >> j > 64 ? m->nparams >> j : 64;
		if (sz[j] > m->nparams)
			sz[j] = m->nparams;
		for (q = 0; q < CAL_REPS; q++) {
			uint64_t t0;

			memcpy(tmp, m->grads, sz[j] * sizeof(float));
			if (co.residual)
				memset(co.residual, 0, sz[j] * sizeof(float));
			t0 = tr_now_ns();
			rc = r->c.comm ? inc_allreduce_f32(r->c.comm, tmp, sz[j], &co) : 0;
			reps[q] = tr_now_ns() - t0;
			if (rc)
				goto out;
		}
		qsort(reps, CAL_REPS, sizeof(reps[0]), cmp_u64);
		v[3 + nl + j] = reps[CAL_REPS / 2];
	}
	rc = tr_sum_u64(r, v, nv);
	if (rc)
		goto out;
	scale = 1e-6 / ((double)r->c.size * (CAL_PASSES - 1));
	*t_other = ((double)v[0] + (double)v[1] + (double)v[2 + nl]) * scale;
	in->L = nl;
	for (k = 0; k < nl; k++) {
		const struct tr_layer *l = &m->l[p->lidx[k]];

		in->tb[k] = (double)v[2 + k] * scale;
		in->p[k] = (double)(tr_layer_hi(l) - tr_layer_lo(l));
	}
	for (j = 0; j < TR_CAL_SIZES; j++) {
		cal->x[j] = (double)sz[j];
		cal->y[j] = (double)v[3 + nl + j] * 1e-6 / r->c.size;
		wt[j] = cal->y[j] > 0 ? 1 / (cal->y[j] * cal->y[j]) : 1;
	}
	tr_fit_line(cal->x, cal->y, wt, TR_CAL_SIZES, &in->a, &in->b);
	if (in->a < 0)
		in->a = 0;
	if (in->b < 0)
		in->b = 0;
out:
	free(p2);
	free(m2);
	free(tmp);
	return rc;
}
