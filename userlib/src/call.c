// SPDX-License-Identifier: MIT
/*
 * call.c - one collective call: its arguments and options checked
 * (inc_call_check, when it is issued), and its run on the calling thread
 * (inc_call_run: blocking callers, or the progress thread for queued
 * requests), dispatched to the algorithm that serves it: the sketch modes'
 * homomorphic all-reduce (sketch_ar.c), the worker-aggregator (wa.c), the
 * ring (ring.c) or the point-to-point exchange (peer.c).
 */
#include <stdint.h>
#include <string.h>

#include "inc_internal.h"

int inc_call_check(struct inc_comm *c, const struct inc_call *k,
		   const struct inc_allreduce_opts *opts, struct inc_allreduce_opts *o)
{
	const struct inc_compression_info *ci;
	const float *data = k->kind == INC_CALL_SENDRECV ? k->sbuf : k->buf;
	int rc;

	if (!c || (!data && k->count) || k->count > SIZE_MAX / 8)
		return INC_E_ARG;
	if (opts) {
		*o = *opts;
	} else {
		rc = inc_allreduce_opts_init(o);
		if (rc)
			return rc;
	}
	ci = inc_compression_info(o->compression);
	if (!ci || (unsigned)o->algo > INC_ALGO_WA ||
	    o->error_bound < INC_EB_MIN || o->error_bound > INC_EB_MAX ||
	    o->timeout_ms <= 0 || o->segment_bytes % 32 ||
	    o->segment_bytes > INC_SEG_MAX ||
	    (ci->tagged && !o->tos) ||
	    o->sketch_index > INC_SKETCH_BLOOM ||
	    (o->sketch_gamma != 0 && !(o->sketch_gamma >= INC_SKETCH_GAMMA_MIN &&
				      o->sketch_gamma <= INC_SKETCH_GAMMA_MAX)) ||
	    (unsigned)o->error_feedback > INC_EF_ON ||
	    o->scale_exp < -64 || o->scale_exp > 64 ||
	    (o->scale_exp && k->kind != INC_CALL_ALLREDUCE))
		return INC_E_ARG;
	/* Adaptive scaling: the modes with an error bound, all-reduce only,
	 * parts that cover the call; one way of scaling at a time. */
	if (o->scale && !ci->error_bound)
		o->scale = NULL;
	if (o->scale && (k->kind != INC_CALL_ALLREDUCE || o->scale_exp ||
			 !inc_scale_fits(o->scale, k->count)))
		return INC_E_ARG;
	if (ci->whole_call && k->count > INC_SKETCH_N_MAX)
		return INC_E_ARG;
	/* Error feedback needs somewhere to keep the error. */
	if (o->error_feedback == INC_EF_ON && ci->lossy && !o->residual && k->count)
		return INC_E_ARG;
	/* Sketches are summed; an exchange or an aggregator's update is not a
	 * sum (docs/userlib.md, "Sketch"). An exchange sends models, which
	 * keep no residual. */
	if ((ci->whole_call && k->kind != INC_CALL_ALLREDUCE) ||
	    (k->kind == INC_CALL_SENDRECV && inc_error_feedback_active(o)))
		return INC_E_NOSUPPORT;
	if (!inc_error_feedback_active(o))
		o->residual = NULL;     /* the algorithms test this alone */
	return 0;
}

static int all_reduce(struct inc_comm *c, const struct inc_call *k)
{
	const struct inc_allreduce_opts *o = &k->o;

	return inc_compression_info(o->compression)->whole_call ?
	       inc_sketch_allreduce(c, k->buf, k->count, o) :
	       k->kind == INC_CALL_WA_UPDATE || o->algo == INC_ALGO_WA ?
	       inc_wa_allreduce(c, k->buf, k->count, o, k->update, k->arg) :
	       inc_ring_allreduce(c, k->buf, k->count, o);
}

/* The all-reduce with its values scaled on the way out and back (a fixed
 * scale_exp or the adaptive state's exponents), its contributions counted
 * by class, and the state's next exponents chosen from the delivered sum. A product that is not exact
 * fails the call: on the way out on this rank alone (the communicator
 * breaks, so the others fail at once), on the way back on every rank
 * (the sums are the same everywhere). */
static int scaled_all_reduce(struct inc_comm *c, const struct inc_call *k)
{
	const struct inc_allreduce_opts *o = &k->o;
	const struct inc_compression_info *ci = inc_compression_info(o->compression);
	uint64_t t0;
	size_t bad;
	int rc;

	t0 = inc_now_ns();
	bad = inc_scale_out(o->scale, o->scale_exp, k->buf, o->residual, k->count, ci->lossy,
			    o->error_bound, ci->error_bound ? c->st.class_values : NULL);
	if (bad) {
		inc_scale_apply(o->scale, o->scale_exp, k->buf, o->residual, k->count, -1, ci->lossy);
		return inc_fail(c, INC_E_ARG);
	}
	c->st.codec_ns += inc_now_ns() - t0;
	if (!o->scale && !o->scale_exp)
		return all_reduce(c, k);
	rc = all_reduce(c, k);
	t0 = inc_now_ns();
	bad = inc_scale_back(o->scale, o->scale_exp, k->buf, o->residual, k->count, ci->lossy,
			     rc == 0, o->error_bound, c->size);
	if (rc == 0 && bad)
		rc = INC_E_ARG;
	c->st.codec_ns += inc_now_ns() - t0;
	return rc;
}

int inc_call_run(struct inc_comm *c, const struct inc_call *k)
{
	const struct inc_allreduce_opts *o = &k->o;
	int rc = 0;

	if (c->broken)
		return INC_E_BROKEN;
	c->seq++;     /* every call, so a rank that skips one is caught */
	c->call_seed = o->seed;
	if (k->kind == INC_CALL_SENDRECV) {
		/* Connecting the peer links is collective: also a rank that
		 * keeps its own values this step takes part. */
		if (c->size > 1 && (rc = inc_comm_connect_peers(c, inc_now_ms() + o->timeout_ms)))
			return inc_fail(c, rc);
		if (k->to == c->rank || c->size == 1)
			memmove(k->buf, k->sbuf, k->count * sizeof(float));
		else if (k->count > 0)
			rc = inc_peer_exchange(c, k->sbuf, k->to, k->buf, k->from, k->count, o);
	} else if (k->kind == INC_CALL_WA_UPDATE && c->size == 1) {
		if (k->count)
			k->update(k->arg, k->buf, 0, k->count);
	} else if (c->size > 1 && k->count > 0) {
		rc = scaled_all_reduce(c, k);
	}
	if (rc == 0)
		c->st.calls++;
	return rc;
}
