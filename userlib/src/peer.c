// SPDX-License-Identifier: MIT
/*
 * peer.c - point-to-point exchange (inc_sendrecv_f32): this rank sends
 * count values to rank `to` while it receives count values from rank
 * `from`, over the peer links (one connection per ordered pair, set up by
 * the first call). The same pair stream as the ring (pair.c): the call
 * header (algorithm INC_HDR_EXCHANGE), segments framed by the mode's
 * segment codec, tagged and corked links in nic mode, the no-progress
 * timeout and the reset cascade on failure. Values arrive as the mode
 * delivers them: exact (none), quantised by the NICs on the path (nic), or
 * quantised by the software codec (software). GossipGraD's partner
 * exchange is this.
 */
#include "inc_internal.h"

struct xchg {
	const float *sbuf;
	float *rbuf;
	size_t count, seg, nseg;
	size_t s_seg, r_seg;
};

static size_t seg_len(const struct xchg *x, size_t s)
{
	size_t left = x->count - s * x->seg;

	return left < x->seg ? left : x->seg;
}

static int next_send(void *st, struct inc_seg_out *so)
{
	struct xchg *x = st;

	if (x->s_seg >= x->nseg)
		return -1;
	/* Not the owner: the segment codec only reads the values (raw modes
	 * send straight from the caller's buffer). */
	so->v = (float *)(uintptr_t)(x->sbuf + x->s_seg * x->seg);
	so->n = seg_len(x, x->s_seg);
	so->owner = 0;
	so->res = NULL;
	return 1;
}

static void sent(void *st)
{
	((struct xchg *)st)->s_seg++;
}

static int next_recv(void *st, float **into, size_t *n)
{
	struct xchg *x = st;

	if (x->r_seg >= x->nseg)
		return -1;
	*into = x->rbuf + x->r_seg * x->seg;
	*n = seg_len(x, x->r_seg);
	return 1;
}

static int received(void *st)
{
	((struct xchg *)st)->r_seg++;
	return 0;
}

static const struct inc_pair_ops xchg_ops = { next_send, sent, next_recv, received };

int inc_peer_exchange(struct inc_comm *c, const float *sbuf, int to, float *rbuf,
		      int from, size_t count, const struct inc_allreduce_opts *o)
{
	const struct inc_seg_codec *sc = inc_seg_codec(o->compression);
	struct xchg x = { .sbuf = sbuf, .rbuf = rbuf, .count = count, .seg = inc_seg_values(o) };
	struct inc_pair p;
	int rc;

	x.nseg = (count + x.seg - 1) / x.seg;
	rc = inc_pair_open(&p, c, &c->peer_send[to], &c->peer_recv[from], o, sc, sc,
			   INC_HDR_EXCHANGE, count, 0);
	return rc ? rc : inc_pair_run(&p, &xchg_ops, &x);
}
