// SPDX-License-Identifier: MIT
/*
 * pair.c - the pair stream: one call's traffic on a send link and a
 * receive link (the same link for a worker of the worker-aggregator):
 * each side's call header first, then segments through the segment codec,
 * in the order the algorithm hands them out, over non-blocking sockets in
 * one poll() loop with the no-progress timeout. Tagged links are corked
 * and flushed on float boundaries when the sender goes idle. Every error
 * breaks the communicator and resets its links (inc_fail), so the other
 * ranks fail in milliseconds. The ring (ring.c), the point-to-point
 * exchange (peer.c) and the worker-aggregator's workers (wa.c) are this
 * loop over their own segment order.
 */
#include "inc_internal.h"

int inc_pair_open(struct inc_pair *p, struct inc_comm *c, struct inc_link *s,
		  struct inc_link *r, const struct inc_allreduce_opts *o,
		  const struct inc_seg_codec *up, const struct inc_seg_codec *down,
		  enum inc_hdr_algo algo, size_t count, size_t extra)
{
	size_t smax;
	uint8_t tos;
	int rc;

	memset(p, 0, sizeof(*p));
	p->c = c;
	p->o = o;
	p->up = up;
	p->down = down;
	p->seg = inc_seg_values(o);
	p->s_hdr = p->r_hdr = 1;
	p->sfd = s->fd;
	p->rfd = r->fd;
	smax = inc_seg_stage_max(p->seg);
	rc = inc_scratch_reserve(c, 2 * smax + extra);
	if (rc)
		return inc_fail(c, rc);
	p->s_stage = c->scratch;
	p->r_stage = c->scratch + smax;
	p->extra = c->scratch + 2 * smax;
	inc_hdr_make(p->hdr, c, count, o, algo);
	tos = up->tagged ? o->tos : 0;
	if ((rc = inc_link_retag(s, tos, o->timeout_ms)) ||
	    (r != s && (rc = inc_link_retag(r, tos, o->timeout_ms))))
		return inc_fail(c, rc);
	p->tagged = tos != 0;
	if (p->tagged && inc_sock_set_cork(p->sfd, 1))
		return inc_fail(c, INC_E_SOCKET);
	return 0;
}

/* Send what may go: the header, then the segments next_send hands out. */
static int send_some(struct inc_pair *p, const struct inc_pair_ops *ops, void *st,
		     int *progress)
{
	struct inc_seg_out so;
	int rc;

	while (p->s_hdr || !p->s_end) {
		if (!p->mo.active && p->s_hdr) {
			inc_out_hdr(&p->mo, p->hdr);
		} else if (!p->mo.active) {
			rc = ops->next_send(st, &so);
			if (rc < 0)
				p->s_end = 1;
			if (rc <= 0)
				break;
			rc = inc_out_start(p->c, &p->mo, p->up, &so, p->o->error_bound, p->s_stage);
			if (rc)
				return rc;
		}
		rc = inc_out_pump(p->sfd, &p->mo, p->c, progress);
		if (rc <= 0)
			return rc;
		p->dirty = 1;
		if (p->s_hdr)
			p->s_hdr = 0;
		else if (ops->sent)
			ops->sent(st);
	}
	return 0;
}

/* Receive what has come: the peer's header (compared with ours), then the
 * segments next_recv asks for, each handed to received once decoded. */
static int recv_some(struct inc_pair *p, const struct inc_pair_ops *ops, void *st,
		     int *progress)
{
	int rc;

	if (p->r_hdr) {
		rc = inc_hdr_recv(p->rfd, &p->mi, p->c, p->hdr_in, p->hdr, progress);
		if (rc < 0)
			return rc;
		p->r_hdr = rc == 0;
	}
	while (!p->r_hdr && !p->r_end) {
		if (!p->mi.active) {
			if (ops->next_recv(st, &p->r_into, &p->r_n) < 0) {
				p->r_end = 1;
				break;
			}
			inc_in_start(&p->mi, p->down, (uint8_t *)p->r_into, p->r_n);
		}
		rc = inc_in_pump(p->rfd, &p->mi, p->c, p->down, p->r_n, p->r_stage, &p->slen,
				 progress);
		if (rc <= 0)
			return rc;
		rc = inc_in_decode(p->c, p->down, p->r_stage, p->slen, p->r_n, p->r_into);
		if (rc)
			return rc;
		if (ops->received && (rc = ops->received(st)))
			return rc;
	}
	return 0;
}

static int pair_done(const struct inc_pair *p)
{
	return !p->s_hdr && !p->r_hdr && p->s_end && p->r_end;
}

int inc_pair_run(struct inc_pair *p, const struct inc_pair_ops *ops, void *st)
{
	int64_t last = inc_now_ms();
	int rc, progress;

	while (!pair_done(p)) {
		progress = 0;
		if ((rc = send_some(p, ops, st, &progress)) ||
		    (rc = recv_some(p, ops, st, &progress)))
			return inc_fail(p->c, rc);
		if (progress) {
			last = inc_now_ms();
			continue;
		}
		if (pair_done(p))
			break;
		rc = inc_pair_wait(p->sfd, p->rfd, p->tagged, &p->dirty, p->mo.active,
				   p->s_hdr || !p->s_end, p->r_hdr || !p->r_end, &last,
				   p->o->timeout_ms);
		if (rc)
			return inc_fail(p->c, rc);
	}
	if (p->tagged)
		(void)inc_sock_set_cork(p->sfd, 0);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Buffer order on both sides                                                */
/* ------------------------------------------------------------------------ */
struct linear {
	float *send, *recv, *res;
	size_t count, seg, s_seg, r_seg;
};

static size_t lin_len(const struct linear *l, size_t s)
{
	return l->count - s * l->seg < l->seg ? l->count - s * l->seg : l->seg;
}

static int lin_next_send(void *st, struct inc_seg_out *so)
{
	struct linear *l = st;

	if (l->s_seg * l->seg >= l->count)
		return -1;
	so->v = l->send + l->s_seg * l->seg;
	so->n = lin_len(l, l->s_seg);
	so->owner = 0;
	so->res = l->res ? l->res + l->s_seg * l->seg : NULL;
	return 1;
}

static void lin_sent(void *st)
{
	((struct linear *)st)->s_seg++;
}

static int lin_next_recv(void *st, float **into, size_t *n)
{
	struct linear *l = st;

	if (l->r_seg * l->seg >= l->count)
		return -1;
	*into = l->recv + l->r_seg * l->seg;
	*n = lin_len(l, l->r_seg);
	return 1;
}

static int lin_received(void *st)
{
	((struct linear *)st)->r_seg++;
	return 0;
}

static const struct inc_pair_ops linear_ops = {
	lin_next_send, lin_sent, lin_next_recv, lin_received
};

int inc_pair_run_linear(struct inc_pair *p, float *send, float *recv, float *res,
			size_t count)
{
	struct linear l = { .send = send, .recv = recv, .res = res, .count = count,
			    .seg = p->seg };

	return inc_pair_run(p, &linear_ops, &l);
}
