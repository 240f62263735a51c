// SPDX-License-Identifier: MIT
/*
 * allreduce.c - the public all-reduce entry points: options from the
 * environment, argument checks, the compression mode's segment codec, and
 * the algorithm (ring.c: the paper's Algorithm 1; wa.c: the
 * worker-aggregator baseline). The transport (framing, poll pump,
 * timeouts, failure spreading) is transport.c; how a segment travels in
 * each mode is a segment codec entry (segc_raw.c, segc_inc.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "inc_internal.h"

/* ------------------------------------------------------------------------ */
/* Options                                                                   */
/* ------------------------------------------------------------------------ */
static int env_long(const char *name, long lo, long hi, long *out)
{
	const char *v = getenv(name);
	char *end;
	long x;

	if (!v || !*v)
		return 1;   /* absent */
	errno = 0;
	x = strtol(v, &end, 0);
	if (errno || end == v || *end || x < lo || x > hi)
		return INC_E_ENV;
	*out = x;
	return 0;
}

int inc_allreduce_opts_init(struct inc_allreduce_opts *o)
{
	const char *v;
	long x;
	int rc;

	if (!o)
		return INC_E_ARG;
	memset(o, 0, sizeof(*o));
	o->compression = INC_COMP_NONE;
	o->algo = INC_ALGO_RING;
	o->error_bound = INC_EB_DEFAULT;
	o->timeout_ms = 30000;
	o->segment_bytes = 0;
	o->tos = INC_TOS_DEFAULT;

	v = getenv("INC_COMPRESSION");
	if (v && *v) {
		if (!strcmp(v, "none"))
			o->compression = INC_COMP_NONE;
		else if (!strcmp(v, "nic"))
			o->compression = INC_COMP_NIC;
		else if (!strcmp(v, "software"))
			o->compression = INC_COMP_SOFTWARE;
		else if (!strcmp(v, "cnat"))
			o->compression = INC_COMP_CNAT;
		else if (!strcmp(v, "cnat-det"))
			o->compression = INC_COMP_CNAT_DET;
		else if (!strcmp(v, "sketch"))
			o->compression = INC_COMP_SKETCH;
		else if (!strcmp(v, "inc+sketch"))
			o->compression = INC_COMP_INC_SKETCH;
		else
			return INC_E_ENV;
	}
	v = getenv("INC_SKETCH_INDEX");
	if (v && *v) {
		if (!strcmp(v, "bitmap"))
			o->sketch_index = INC_SKETCH_BITMAP;
		else if (!strcmp(v, "bloom"))
			o->sketch_index = INC_SKETCH_BLOOM;
		else
			return INC_E_ENV;
	}
	v = getenv("INC_SKETCH_GAMMA");
	if (v && *v) {
		char *end;
		double d;

		errno = 0;
		d = strtod(v, &end);
		if (errno || end == v || *end || !(d >= INC_SKETCH_GAMMA_MIN && d <= INC_SKETCH_GAMMA_MAX))
			return INC_E_ENV;
		o->sketch_gamma = d;
	}
	v = getenv("INC_ALGO");
	if (v && *v) {
		if (!strcmp(v, "ring"))
			o->algo = INC_ALGO_RING;
		else if (!strcmp(v, "wa"))
			o->algo = INC_ALGO_WA;
		else
			return INC_E_ENV;
	}
	v = getenv("INC_ERROR_BOUND");
	if (v && *v) {
		char *end;

		if (!strncmp(v, "2^-", 3))
			v += 3;
		errno = 0;
		x = strtol(v, &end, 10);
		if (errno || end == v || *end || x < INC_EB_MIN || x > INC_EB_MAX)
			return INC_E_ENV;
		o->error_bound = (unsigned)x;
	}
	rc = env_long("INC_TIMEOUT_MS", 1, 24L * 3600 * 1000, &x);
	if (rc < 0)
		return rc;
	if (rc == 0)
		o->timeout_ms = (int)x;
	rc = env_long("INC_SEGMENT_BYTES", 32, INC_SEG_MAX, &x);
	if (rc < 0 || (rc == 0 && x % 32))
		return INC_E_ENV;
	if (rc == 0)
		o->segment_bytes = (size_t)x;
	rc = env_long("INC_TOS", 1, 255, &x);
	if (rc < 0)
		return rc;
	if (rc == 0)
		o->tos = (uint8_t)x;
	rc = env_long("INC_SEED", 0, LONG_MAX, &x);
	if (rc < 0)
		return rc;
	if (rc == 0)
		o->seed = (uint64_t)x;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Segment codecs, by compression mode                                       */
/* ------------------------------------------------------------------------ */
static const struct inc_seg_codec *const seg_codecs[] = {
	[INC_COMP_NONE] = &inc_segc_none,
	[INC_COMP_NIC] = &inc_segc_nic,
	[INC_COMP_SOFTWARE] = &inc_segc_software,
	[INC_COMP_CNAT] = &inc_segc_cnat,
	[INC_COMP_CNAT_DET] = &inc_segc_cnat_det,
	/* The sketch modes' phases travel raw (sketch_ar.c). */
	[INC_COMP_SKETCH] = &inc_segc_none,
	[INC_COMP_INC_SKETCH] = &inc_segc_none,
};

const struct inc_seg_codec *inc_seg_codec(enum inc_compression mode)
{
	if ((unsigned)mode >= sizeof(seg_codecs) / sizeof(seg_codecs[0]))
		return NULL;
	return seg_codecs[mode];
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                               */
/* ------------------------------------------------------------------------ */
/* Checks shared by the entry points: arguments and options (opts NULL:
 * from the environment) into *o. Nothing is counted yet: a queued call
 * takes its sequence number when it runs (inc_call_run). */
int inc_call_check(struct inc_comm *c, const float *buf, size_t count,
		   const struct inc_allreduce_opts *opts,
		   struct inc_allreduce_opts *o)
{
	int rc;

	if (!c || (!buf && count) || count > SIZE_MAX / 8)
		return INC_E_ARG;
	if (opts) {
		*o = *opts;
	} else {
		rc = inc_allreduce_opts_init(o);
		if (rc)
			return rc;
	}
	if (!inc_seg_codec(o->compression) ||
	    (unsigned)o->algo > INC_ALGO_WA ||
	    o->error_bound < INC_EB_MIN || o->error_bound > INC_EB_MAX ||
	    o->timeout_ms <= 0 || o->segment_bytes % 32 ||
	    o->segment_bytes > INC_SEG_MAX ||
	    (o->compression == INC_COMP_NIC && !o->tos) ||
	    o->sketch_index > INC_SKETCH_BLOOM ||
	    (o->sketch_gamma != 0 && !(o->sketch_gamma >= INC_SKETCH_GAMMA_MIN &&
				      o->sketch_gamma <= INC_SKETCH_GAMMA_MAX)))
		return INC_E_ARG;
	if (inc_is_sketch(o->compression) && count > INC_SKETCH_N_MAX)
		return INC_E_ARG;
	return 0;
}

/* One checked call on this thread. */
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
		rc = inc_is_sketch(o->compression) ? inc_sketch_allreduce(c, k->buf, k->count, o) :
		     k->kind == INC_CALL_WA_UPDATE || o->algo == INC_ALGO_WA ?
		     inc_wa_allreduce(c, k->buf, k->count, o, k->update, k->arg) :
		     inc_ring_allreduce(c, k->buf, k->count, o);
	}
	if (rc == 0)
		c->st.calls++;
	return rc;
}

/* A blocking call: behind the queued requests if there are any. */
static int call(struct inc_comm *c, struct inc_call *k, const struct inc_allreduce_opts *opts)
{
	int rc = inc_call_check(c, k->kind == INC_CALL_SENDRECV ? k->sbuf : k->buf, k->count,
				opts, &k->o), queued;

	if (rc)
		return rc;
	/* Sketches are summed; an exchange or an aggregator's update is not a
	 * sum (docs/userlib.md, "Sketch"). */
	if (inc_is_sketch(k->o.compression) && k->kind != INC_CALL_ALLREDUCE)
		return INC_E_NOSUPPORT;
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
