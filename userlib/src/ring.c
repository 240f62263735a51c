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
 * node's link are busy at once (the pair stream, pair.c).
 *
 * How a segment travels is the segment codec's business (segc_*.c); the
 * owner of a reduced block applies the codec's round trip before the
 * all-gather forwards it, so all ranks end bit-identical (docs/userlib.md,
 * "Identical replicas").
 *
 * Error feedback: every rank contributes to every block exactly once — as
 * the sender of a partial sum in the reduce-scatter (blocks r, r-1, ...,
 * r+2) or as the owner of block r+1 — so one residual per value of the
 * call holds the error of everything this rank sent (docs/userlib.md,
 * "Error feedback").
 */

#include "inc_internal.h"

struct ring {
	struct inc_pair p;
	float *buf;
	float *res;            /* error feedback: residual, aligned with buf */
	size_t count;          /* values */
	size_t seg;            /* values per segment */
	int n, r, steps;
	int s_step, r_step;    /* send / receive position: step, segment */
	size_t s_seg, r_seg;
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

/* The next step (from k on) whose block is not empty (count < N). */
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

/* ------------------------------------------------------------------------ */
/* Steps                                                                     */
/* ------------------------------------------------------------------------ */
/* Segment s of step k once segment s of step k-1 has arrived. */
static int next_send(void *st, struct inc_seg_out *so)
{
	struct ring *g = st;
	int b;
	size_t off;

	if (g->s_step >= g->steps)
		return -1;
	if (g->s_step > 0 && (g->r_step < g->s_step - 1 ||
	    (g->r_step == g->s_step - 1 && g->r_seg <= g->s_seg)))
		return 0;
	b = send_blk(g, g->s_step);
	off = blk_off(g, b) + g->s_seg * g->seg;
	so->v = g->buf + off;
	so->n = seg_len(g, b, g->s_seg);
	so->owner = g->s_step == g->n - 1;
	/* the all-gather forwards what the owner sent: no new error */
	so->res = g->res && g->s_step <= g->n - 1 ? g->res + off : NULL;
	return 1;
}

static void sent(void *st)
{
	struct ring *g = st;

	if (++g->s_seg == nseg(g, send_blk(g, g->s_step))) {
		g->s_seg = 0;
		g->s_step = next_send_step(g, g->s_step + 1);
	}
}

/* Reduce-scatter segments land in tmp and are added, all-gather segments
 * are stored in place. */
static int next_recv(void *st, float **into, size_t *n)
{
	struct ring *g = st;
	int b;

	if (g->r_step >= g->steps)
		return -1;
	b = recv_blk(g, g->r_step);
	*n = seg_len(g, b, g->r_seg);
	*into = g->r_step < g->n - 1 ? g->tmp : g->buf + blk_off(g, b) + g->r_seg * g->seg;
	return 1;
}

static int received(void *st)
{
	struct ring *g = st;
	int b = recv_blk(g, g->r_step);

	if (g->r_step < g->n - 1)
		inc_reduce(g->p.c, g->op, g->buf + blk_off(g, b) + g->r_seg * g->seg, g->tmp,
			   seg_len(g, b, g->r_seg));
	if (++g->r_seg == nseg(g, b)) {
		g->r_seg = 0;
		g->r_step = next_recv_step(g, g->r_step + 1);
	}
	return 0;
}

static const struct inc_pair_ops ring_ops = { next_send, sent, next_recv, received };

int inc_ring_reduce(struct inc_comm *c, float *buf, size_t count,
		    const struct inc_allreduce_opts *o, enum inc_red op, enum inc_hdr_algo hdr_algo)
{
	const struct inc_seg_codec *sc = inc_seg_codec(o->compression);
	struct ring g = {
		.buf = buf, .count = count, .op = op, .n = c->size, .r = c->rank,
		.steps = 2 * (c->size - 1), .seg = inc_seg_values(o),
		/* only sums of floats carry an error to feed back */
		.res = op == INC_RED_SUM_F32 ? o->residual : NULL,
	};
	int rc = inc_pair_open(&g.p, c, &c->ring_send, &c->ring_recv, o, sc, sc, hdr_algo,
			       count, g.seg * sizeof(float));

	if (rc)
		return rc;
	g.tmp = (float *)(void *)g.p.extra;
	g.s_step = next_send_step(&g, 0);
	g.r_step = next_recv_step(&g, 0);
	return inc_pair_run(&g.p, &ring_ops, &g);
}

int inc_ring_allreduce(struct inc_comm *c, float *buf, size_t count,
		       const struct inc_allreduce_opts *o)
{
	return inc_ring_reduce(c, buf, count, o, INC_RED_SUM_F32, (enum inc_hdr_algo)o->algo);
}
