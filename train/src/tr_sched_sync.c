// SPDX-License-Identifier: MIT
/*
 * tr_sched_sync.c - the sync schedule (SyncEASGD in the MG-WFBP paper):
 * backward, then one exchange of all gradients, then the update. Scheme
 * inc: the ring all-reduce and SGD on every rank; scheme wa: the
 * worker-aggregator exchange, the aggregator updating each summed segment
 * as it arrives (wa_update) and sending the weights back.
 */
#include <string.h>

#include "tr_optim.h"
#include "tr_run.h"
#include "tr_util.h"

/* The aggregator's update of one summed segment: SGD on the master
 * weights, then the weights replace the sum and go back to the workers. */
static void wa_update(void *arg, float *seg, size_t off, size_t n)
{
	struct run *r = arg;
	uint64_t t0 = tr_now_ns();

	tr_sgd_update(&r->o.sgd, r->s.rate, r->m.params + off, r->s.mom + off, seg,
		      1.0f / (float)r->c.workers, n);
	memcpy(seg, r->m.params + off, n * sizeof(float));
	r->n.acc[TR_ACC_AGG_UPDATE] += tr_now_ns() - t0;
}

int tr_sync_iteration(struct run *r, long it)
{
	struct tr_model *m = &r->m;
	struct tr_timer t;
	int rc;

	/* the aggregator's own times: wa_update, the library's */
	tr_timer_start(&t, r->n.acc, r->c.worker >= 0);
	r->s.rate = tr_sgd_rate(&r->o.sgd, it);
	if (r->c.worker >= 0) {
		tr_compute(r, it, NULL, &t);
		/* the first worker's last gradient, as the codecs see it
		 * (inc-bench codecs measures them on it) */
		if (r->o.save_grads && r->c.worker == 0 && it == r->o.iterations - 1 &&
		    tr_save_floats(r->o.save_grads, m->grads, m->nparams))
			return 1;
		if (r->o.stats_every && it % r->o.stats_every == 0) {
			tr_codec_stats(r, m->grads, 0, m->nparams, 0);   /* measurement */
			tr_timer_skip(&t);
		}
	} else {
		memset(m->grads, 0, m->nparams * sizeof(float));
		tr_timer_lap(&t, TR_ACC_DATA);    /* not counted on the aggregator */
	}
	if (r->o.scheme == TR_SCHEME_INC) {
		struct inc_allreduce_opts o = r->c.ar;

		rc = tr_scale_for(r, 0, 0, m->nparams, &o.scale);
		if (!rc && r->c.comm)
			rc = inc_allreduce_f32(r->c.comm, m->grads, m->nparams, &o);
		if (rc)
			return tr_fail_comm(r, "all-reduce", rc);
		tr_sgd_step(r, &t);
	} else {
		rc = inc_wa_update_f32(r->c.comm, m->grads, m->nparams, &r->c.ar, wa_update, r);
		if (rc)
			return tr_fail_comm(r, "worker-aggregator exchange", rc);
		tr_timer_lap(&t, TR_ACC_EXCHANGE);
		if (r->c.worker >= 0)
			memcpy(m->params, m->grads, m->nparams * sizeof(float));
		tr_timer_lap(&t, TR_ACC_UPDATE);
	}
	r->n.train_ns += tr_timer_end(&t);
	return 0;
}
