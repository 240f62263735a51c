// SPDX-License-Identifier: MIT
/*
 * tr_sched_gossip.c - GossipGraD: a local SGD step on this worker's
 * gradient, then the model goes to this step's partner while the model of
 * another arrives (tr_gossip_partners), and the two are averaged
 * (w = (W_own + W_from) / 2). The exchange is the communication row; its
 * compression is the run's, and the codec statistics are of the model
 * sent. The replicas differ by design: evaluation averages them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tr_optim.h"
#include "tr_run.h"
#include "tr_util.h"

int tr_gossip_setup(struct run *r)
{
	r->gossip.peer = tr_alloc(r->m.nparams * sizeof(float));
	if (!r->gossip.peer)
		return tr_bad("out of memory");
	return 0;
}

int tr_gossip_iteration(struct run *r, long it)
{
	struct tr_model *m = &r->m;
	struct tr_timer t;
	int to, from, rc;
	size_t i;

	tr_timer_start(&t, r->n.acc, 1);
	r->s.rate = tr_sgd_rate(&r->o.sgd, it);
	tr_compute(r, it, NULL, &t);
	tr_sgd_update(&r->o.sgd, r->s.rate, m->params, r->s.mom, m->grads, 1.0f, m->nparams);
	tr_timer_lap(&t, TR_ACC_UPDATE);
	if (r->o.stats_every && it % r->o.stats_every == 0) {
		tr_codec_stats(r, m->params, 0, m->nparams, -1);   /* measurement */
		tr_timer_skip(&t);
	}
	if (r->c.comm) {
		tr_gossip_partners(r->c.size, it, r->o.seed, r->c.rank, &to, &from);
		rc = inc_sendrecv_f32(r->c.comm, m->params, to, r->gossip.peer, from, m->nparams,
				      &r->c.ar);
		if (rc)
			return tr_fail_comm(r, "gossip exchange", rc);
		for (i = 0; i < m->nparams; i++)
			m->params[i] = 0.5f * (m->params[i] + r->gossip.peer[i]);
	}
	tr_timer_lap(&t, TR_ACC_EXCHANGE);
	r->n.train_ns += tr_timer_end(&t);
	return 0;
}

/* Evaluates the average of all ranks' models (what `test-accuracy`
 * reports) and rank 0's model, and measures the spread max over ranks and
 * parameters of |w_i - mean w|; every rank's own weights are restored
 * afterwards. Collective. */
int tr_gossip_evaluate(struct run *r, double *acc, double *loss)
{
	struct inc_allreduce_opts o = r->c.ar;
	float *w = r->m.params, *own = r->gossip.peer, d, *slots;
	size_t n = r->m.nparams, i;
	double l0;
	int rc;

	if (!r->c.comm)
		return tr_evaluate(r, acc, loss);
	o.compression = INC_COMP_NONE;
	o.algo = INC_ALGO_RING;
	slots = calloc((size_t)r->c.size, sizeof(float));
	if (!slots)
		return tr_fail_comm(r, "gossip evaluation", INC_E_NOMEM);
	memcpy(own, w, n * sizeof(float));
	rc = inc_allreduce_f32(r->c.comm, w, n, &o);
	for (i = 0, d = 0; rc == 0 && i < n; i++) {
		w[i] /= (float)r->c.size;
		if (fabsf(own[i] - w[i]) > d)
			d = fabsf(own[i] - w[i]);
	}
	slots[r->c.rank] = d;
	if (rc == 0)
		rc = inc_allreduce_f32(r->c.comm, slots, (size_t)r->c.size, &o);
	for (i = 0, r->gossip.spread = 0; rc == 0 && i < (size_t)r->c.size; i++)
		if (slots[i] > r->gossip.spread)
			r->gossip.spread = slots[i];
	free(slots);
	if (rc)
		return tr_fail_comm(r, "gossip evaluation", rc);
	rc = tr_evaluate(r, acc, loss);
	if (rc)
		return rc;
	for (i = 0; i < n; i++)
		w[i] = r->c.rank == 0 ? own[i] : 0.0f;
	rc = inc_allreduce_f32(r->c.comm, w, n, &o);
	if (rc)
		return tr_fail_comm(r, "gossip evaluation", rc);
	rc = tr_evaluate(r, &r->gossip.acc_rank0, &l0);
	memcpy(w, own, n * sizeof(float));
	return rc;
}
