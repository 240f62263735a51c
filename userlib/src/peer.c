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

int inc_peer_exchange(struct inc_comm *c, const float *sbuf, int to, float *rbuf,
		      int from, size_t count, const struct inc_allreduce_opts *o)
{
	const struct inc_seg_codec *sc = inc_seg_codec(o->compression);
	struct inc_pair p;
	int rc = inc_pair_open(&p, c, &c->peer_send[to], &c->peer_recv[from], o, sc, sc,
			       INC_HDR_EXCHANGE, count, 0);

	/* Not the owner, no residual: the segment codec only reads the values
	 * (raw modes send straight from the caller's buffer). */
	return rc ? rc : inc_pair_run_linear(&p, (float *)(uintptr_t)sbuf, rbuf, NULL, count);
}
