// SPDX-License-Identifier: MIT
/*
 * allreduce.c - the blocking entry points (all-reduce, worker-aggregator
 * update, point-to-point exchange) and the communicator's end. A call is
 * checked (call.c), then run here or, while the communicator has a
 * progress thread, queued behind its pending requests (progress.c) so the
 * issue order stays the execution order. The library's layers:
 * docs/userlib.md.
 */
#include "inc_internal.h"

static int call(struct inc_comm *c, struct inc_call *k, const struct inc_allreduce_opts *opts)
{
	int rc = inc_call_check(c, k, opts, &k->o), queued;

	if (rc)
		return rc;
	rc = inc_progress_blocking(c, k, &queued);
	return queued ? rc : inc_call_run(c, k);
}

int inc_allreduce_f32(struct inc_comm *c, float *buf, size_t count,
		      const struct inc_allreduce_opts *opts)
{
	struct inc_call k = { .kind = INC_CALL_ALLREDUCE, .buf = buf, .count = count };

	return call(c, &k, opts);
}

int inc_wa_update_f32(struct inc_comm *c, float *buf, size_t count,
		      const struct inc_allreduce_opts *opts,
		      inc_wa_update_fn update, void *arg)
{
	struct inc_call k = { .kind = INC_CALL_WA_UPDATE, .buf = buf, .count = count,
			      .update = update, .arg = arg };

	if (!update)
		return INC_E_ARG;
	return call(c, &k, opts);
}

int inc_sendrecv_f32(struct inc_comm *c, const float *sendbuf, int to, float *recvbuf,
		     int from, size_t count, const struct inc_allreduce_opts *opts)
{
	struct inc_call k = { .kind = INC_CALL_SENDRECV, .buf = recvbuf, .count = count,
			      .sbuf = sendbuf, .to = to, .from = from };

	if (!c || (!recvbuf && count) || to < 0 || to >= c->size || from < 0 ||
	    from >= c->size || (to == c->rank) != (from == c->rank))
		return INC_E_ARG;
	return call(c, &k, opts);
}

void inc_comm_destroy(struct inc_comm *c)
{
	if (!c)
		return;
	inc_progress_stop(c);   /* runs what is queued, joins the thread */
	inc_comm_free(c);
}
