// SPDX-License-Identifier: MIT
/*
 * ring.c - the paper's Algorithm 1 as a pipelined ring all-reduce.
 *
 * Rank r of N, 2(N-1) steps. The buffer is cut into N blocks (sizes differ
 * by at most one value). Step k < N-1 (reduce-scatter) sends block r-k to
 * rank r+1 and adds block r-k-1 received from rank r-1; after it rank r
 * owns the fully reduced block r+1. Step k = N-1+j (all-gather) sends block
 * r+1-j and stores block r-j. Each block travels as segments; segment s of
 * step k may leave as soon as segment s of step k-1 has arrived, so
 * sending, receiving and reducing overlap, and both directions of every
 * node's link are busy at once (one poll() loop, non-blocking sockets).
 *
 * How a segment travels is the segment codec's business (segc_*.c); the
 * owner of a reduced block applies the codec's round trip before the
 * all-gather forwards it, so all ranks end bit-identical (docs/userlib.md,
 * "Identical replicas").
 */

#include "inc_internal.h"

struct ring {
	struct inc_comm *c;
	const struct inc_seg_codec *sc;
	unsigned eb;
	float *buf;
	size_t count;          /* values */
	size_t seg;            /* values per segment */
	int n, r, steps;
	int sfd, rfd;          /* to rank r+1, from rank r-1 */
	int tagged, dirty;     /* corked tagged link with unflushed bytes */
	float hdr[INC_HDR_FLOATS], hdr_in[INC_HDR_FLOATS];
	/* send side: call header pending, step, segment, message */
	int s_hdr, s_step;
	size_t s_seg;
	struct inc_msg_out mo;
	uint8_t *s_stage;
	/* receive side */
	int r_hdr, r_step;
	size_t r_seg, slen;
	struct inc_msg_in mi;
	uint8_t *r_stage;
	float *tmp;            /* a received segment before it is added */
	enum inc_red op;       /* how it is added */
};

/* ------------------------------------------------------------------------ */
/* The segment table                                                         */
/* ------------------------------------------------------------------------ */
static size_t blk_len(const struct ring *g, int b)
{
	return g->count / (size_t)g->n + ((size_t)b < g->count % (size_t)g->n);
}

static size_t blk_off(const struct ring *g, int b)
{
	size_t q = g->count / (size_t)g->n, rem = g->count % (size_t)g->n;

	return q * (size_t)b + ((size_t)b < rem ? (size_t)b : rem);
}

static int mod(int a, int n)
{
	return ((a % n) + n) % n;
}

static int send_blk(const struct ring *g, int k)
{
	return k < g->n - 1 ? mod(g->r - k, g->n) : mod(g->r + 1 - (k - (g->n - 1)), g->n);
}

static int recv_blk(const struct ring *g, int k)
{
	return k < g->n - 1 ? mod(g->r - k - 1, g->n) : mod(g->r - (k - (g->n - 1)), g->n);
}

static size_t nseg(const struct ring *g, int b)
{
	return (blk_len(g, b) + g->seg - 1) / g->seg;
}

static size_t seg_len(const struct ring *g, int b, size_t s)
{
	size_t len = blk_len(g, b) - s * g->seg;

	return len < g->seg ? len : g->seg;
}

/* The next step (after k) whose block is not empty (count < N). */
static int next_send_step(const struct ring *g, int k)
{
	while (k < g->steps && nseg(g, send_blk(g, k)) == 0)
		k++;
	return k;
}

static int next_recv_step(const struct ring *g, int k)
{
	while (k < g->steps && nseg(g, recv_blk(g, k)) == 0)
		k++;
	return k;
}

static int ring_done(const struct ring *g)
{
	return !g->s_hdr && !g->r_hdr && g->s_step >= g->steps && g->r_step >= g->steps;
}

/* ------------------------------------------------------------------------ */
/* Steps                                                                     */
/* ------------------------------------------------------------------------ */
/* Send what may go: the call header, then segment s of step k once
 * segment s of step k-1 has arrived. */
static int send_some(struct ring *g, int *progress)
{
	int rc;

	while (g->s_hdr || g->s_step < g->steps) {
		if (!g->mo.active && g->s_hdr) {
			inc_out_hdr(&g->mo, g->hdr);
		} else if (!g->mo.active) {
			int b = send_blk(g, g->s_step);

			if (g->s_step > 0 && (g->r_step < g->s_step - 1 ||
			    (g->r_step == g->s_step - 1 && g->r_seg <= g->s_seg)))
				break;
			rc = inc_out_start(g->c, &g->mo, g->sc,
					   g->buf + blk_off(g, b) + g->s_seg * g->seg,
					   seg_len(g, b, g->s_seg), g->eb,
					   g->s_step == g->n - 1, g->s_stage);
			if (rc)
				return rc;
		}
		rc = inc_out_pump(g->sfd, &g->mo, g->c, progress);
		if (rc <= 0)
			return rc;
		g->dirty = 1;
		if (g->s_hdr) {
			g->s_hdr = 0;
			continue;
		}
		if (++g->s_seg == nseg(g, send_blk(g, g->s_step))) {
			g->s_seg = 0;
			g->s_step = next_send_step(g, g->s_step + 1);
		}
	}
	return 0;
}

/* Receive what has come: the predecessor's call header, then segments;
 * reduce-scatter segments are added, all-gather segments stored. */
static int recv_some(struct ring *g, int *progress)
{
	int rc;

	if (g->r_hdr) {
		rc = inc_hdr_recv(g->rfd, &g->mi, g->c, g->hdr_in, g->hdr, progress);
		if (rc < 0)
			return rc;
		g->r_hdr = rc == 0;
	}
	while (!g->r_hdr && g->r_step < g->steps) {
		int b = recv_blk(g, g->r_step), reduce = g->r_step < g->n - 1;
		size_t n = seg_len(g, b, g->r_seg);
		float *dst = g->buf + blk_off(g, b) + g->r_seg * g->seg;
		float *into = reduce ? g->tmp : dst;

		if (!g->mi.active)
			inc_in_start(&g->mi, g->sc, (uint8_t *)into, n);
		rc = inc_in_pump(g->rfd, &g->mi, g->c, g->sc, n, g->r_stage, &g->slen,
				 progress);
		if (rc <= 0)
			return rc;
		rc = inc_in_decode(g->c, g->sc, g->r_stage, g->slen, n, into);
		if (rc)
			return rc;
		if (reduce)
			inc_reduce(g->c, g->op, dst, g->tmp, n);
		if (++g->r_seg == nseg(g, b)) {
			g->r_seg = 0;
			g->r_step = next_recv_step(g, g->r_step + 1);
		}
	}
	return 0;
}

/* Nothing moved: flush a corked tail, then wait for the sockets. */
static int ring_wait(struct ring *g, int64_t *last, int timeout_ms)
{
	return inc_pair_wait(g->sfd, g->rfd, g->tagged, &g->dirty, g->mo.active,
			     g->s_hdr || g->s_step < g->steps, g->r_hdr || g->r_step < g->steps,
			     last, timeout_ms);
}

int inc_ring_reduce(struct inc_comm *c, float *buf, size_t count,
		    const struct inc_allreduce_opts *o, enum inc_red op, unsigned hdr_algo)
{
	struct ring g = {
		.c = c, .sc = inc_seg_codec(o->compression), .eb = o->error_bound, .op = op,
		.buf = buf, .count = count, .n = c->size, .r = c->rank,
		.steps = 2 * (c->size - 1), .sfd = c->ring_send.fd, .rfd = c->ring_recv.fd,
		.s_hdr = 1, .r_hdr = 1,
	};
	int64_t last = inc_now_ms();
	uint8_t tos;
	size_t smax;
	int rc, progress;

	g.seg = (o->segment_bytes ? o->segment_bytes : INC_SEG_DEFAULT) / 4;
	smax = INC_SEG_STAGE_MAX(g.seg);
	rc = inc_scratch_reserve(c, 2 * smax + g.seg * 4);
	if (rc)
		return rc;
	g.s_stage = c->scratch;
	g.r_stage = c->scratch + smax;
	g.tmp = (float *)(void *)(c->scratch + 2 * smax);
	inc_hdr_make(g.hdr, c, count, o, g.seg, hdr_algo);

	tos = g.sc->tagged ? o->tos : 0;
	if ((rc = inc_link_retag(&c->ring_send, tos, o->timeout_ms)) ||
	    (rc = inc_link_retag(&c->ring_recv, tos, o->timeout_ms)))
		return inc_fail(c, rc);
	g.tagged = tos != 0;
	if (g.tagged && inc_sock_set_cork(g.sfd, 1))
		return inc_fail(c, INC_E_SOCKET);
	g.s_step = next_send_step(&g, 0);
	g.r_step = next_recv_step(&g, 0);

	while (!ring_done(&g)) {
		progress = 0;
		if ((rc = send_some(&g, &progress)) || (rc = recv_some(&g, &progress)))
			return inc_fail(c, rc);
		if (progress) {
			last = inc_now_ms();
			continue;
		}
		if (ring_done(&g))
			break;
		rc = ring_wait(&g, &last, o->timeout_ms);
		if (rc)
			return inc_fail(c, rc);
	}
	if (g.tagged)
		(void)inc_sock_set_cork(g.sfd, 0);
	return 0;
}

int inc_ring_allreduce(struct inc_comm *c, float *buf, size_t count,
		       const struct inc_allreduce_opts *o)
{
	return inc_ring_reduce(c, buf, count, o, INC_RED_SUM_F32, (unsigned)o->algo);
}
