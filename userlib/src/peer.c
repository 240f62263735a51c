// SPDX-License-Identifier: MIT
/*
 * peer.c - point-to-point exchange (inc_sendrecv_f32): this rank sends
 * count values to rank `to` while it receives count values from rank
 * `from`, over the peer links (one connection per ordered pair, set up by
 * the first call). The same transport as the all-reduce: the call header
 * (algorithm field "exchange"), segments framed by the mode's segment
 * codec, tagged and corked links in nic mode, the no-progress timeout and
 * the reset cascade on failure. Values arrive as the mode delivers them:
 * exact (none), quantised by the NICs on the path (nic), or quantised by
 * the software codec (software). GossipGraD's partner exchange is this.
 */
#include <string.h>

#include "inc_internal.h"

#define ALGO_EXCHANGE 2u   /* call-header algorithm value (ring 0, wa 1) */

struct xchg {
	struct inc_comm *c;
	const struct inc_seg_codec *sc;
	unsigned eb;
	const float *sbuf;
	float *rbuf;
	size_t count, seg, nseg;
	int sfd, rfd, tagged, dirty;
	float hdr[INC_HDR_FLOATS], hdr_in[INC_HDR_FLOATS];
	int s_hdr, r_hdr;
	size_t s_seg, r_seg, slen;
	struct inc_msg_out mo;
	struct inc_msg_in mi;
	uint8_t *s_stage, *r_stage;
};

static size_t seg_len(const struct xchg *x, size_t s)
{
	size_t left = x->count - s * x->seg;

	return left < x->seg ? left : x->seg;
}

static int send_some(struct xchg *x, int *progress)
{
	int rc;

	while (x->s_hdr || x->s_seg < x->nseg) {
		if (!x->mo.active && x->s_hdr) {
			inc_out_hdr(&x->mo, x->hdr);
		} else if (!x->mo.active) {
			/* Not the owner: the segment codec only reads the values
			 * (raw modes send straight from the caller's buffer). */
			rc = inc_out_start(x->c, &x->mo, x->sc,
					   (float *)(uintptr_t)(x->sbuf + x->s_seg * x->seg),
					   seg_len(x, x->s_seg), x->eb, 0, x->s_stage);
			if (rc)
				return rc;
		}
		rc = inc_out_pump(x->sfd, &x->mo, x->c, progress);
		if (rc <= 0)
			return rc;
		x->dirty = 1;
		if (x->s_hdr)
			x->s_hdr = 0;
		else
			x->s_seg++;
	}
	return 0;
}

static int recv_some(struct xchg *x, int *progress)
{
	int rc;

	if (x->r_hdr) {
		rc = inc_hdr_recv(x->rfd, &x->mi, x->c, x->hdr_in, x->hdr, progress);
		if (rc < 0)
			return rc;
		x->r_hdr = rc == 0;
	}
	while (!x->r_hdr && x->r_seg < x->nseg) {
		size_t n = seg_len(x, x->r_seg);
		float *dst = x->rbuf + x->r_seg * x->seg;

		if (!x->mi.active)
			inc_in_start(&x->mi, x->sc, (uint8_t *)dst, n);
		rc = inc_in_pump(x->rfd, &x->mi, x->c, x->sc, n, x->r_stage, &x->slen, progress);
		if (rc <= 0)
			return rc;
		rc = inc_in_decode(x->c, x->sc, x->r_stage, x->slen, n, dst);
		if (rc)
			return rc;
		x->r_seg++;
	}
	return 0;
}

static int done(const struct xchg *x)
{
	return !x->s_hdr && !x->r_hdr && x->s_seg >= x->nseg && x->r_seg >= x->nseg;
}

static int xchg_wait(struct xchg *x, int64_t *last, int timeout_ms)
{
	return inc_pair_wait(x->sfd, x->rfd, x->tagged, &x->dirty, x->mo.active,
			     x->s_hdr || x->s_seg < x->nseg, x->r_hdr || x->r_seg < x->nseg,
			     last, timeout_ms);
}

int inc_peer_exchange(struct inc_comm *c, const float *sbuf, int to, float *rbuf,
		      int from, size_t count, const struct inc_allreduce_opts *o)
{
	struct xchg x = {
		.c = c, .sc = inc_seg_codec(o->compression), .eb = o->error_bound,
		.sbuf = sbuf, .rbuf = rbuf, .count = count, .s_hdr = 1, .r_hdr = 1,
	};
	int64_t last = inc_now_ms();
	size_t smax;
	uint8_t tos;
	int rc, progress;

	x.seg = (o->segment_bytes ? o->segment_bytes : INC_SEG_DEFAULT) / 4;
	x.nseg = (count + x.seg - 1) / x.seg;
	smax = INC_SEG_STAGE_MAX(x.seg);
	rc = inc_scratch_reserve(c, 2 * smax);
	if (rc)
		return rc;
	x.s_stage = c->scratch;
	x.r_stage = c->scratch + smax;
	x.sfd = c->peer_send[to].fd;
	x.rfd = c->peer_recv[from].fd;
	inc_hdr_make(x.hdr, c, count, o, x.seg, ALGO_EXCHANGE);
	tos = x.sc->tagged ? o->tos : 0;
	if ((rc = inc_link_retag(&c->peer_send[to], tos, o->timeout_ms)) ||
	    (rc = inc_link_retag(&c->peer_recv[from], tos, o->timeout_ms)))
		return inc_fail(c, rc);
	x.tagged = tos != 0;
	if (x.tagged && inc_sock_set_cork(x.sfd, 1))
		return inc_fail(c, INC_E_SOCKET);
	while (!done(&x)) {
		progress = 0;
		if ((rc = send_some(&x, &progress)) || (rc = recv_some(&x, &progress)))
			return inc_fail(c, rc);
		if (progress) {
			last = inc_now_ms();
			continue;
		}
		if (done(&x))
			break;
		rc = xchg_wait(&x, &last, o->timeout_ms);
		if (rc)
			return inc_fail(c, rc);
	}
	if (x.tagged)
		(void)inc_sock_set_cork(x.sfd, 0);
	return 0;
}
