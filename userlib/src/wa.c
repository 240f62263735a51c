// SPDX-License-Identifier: MIT
/*
 * wa.c - the worker-aggregator baseline. Workers (ranks > 0) stream their
 * buffers to rank 0 in segments through the segment codec (compressed in
 * software mode, tagged in nic mode); rank 0 adds segment s of every worker
 * in rank order as soon as all have arrived and streams the result back raw
 * on untagged sockets (the paper compresses only the upward gradients).
 * With an update callback (inc_wa_update_f32) rank 0 first turns each summed
 * segment into what goes back (the updated weights). Rank 0 reads from a
 * worker only when that worker's staging segment is free, so memory stays
 * at one segment per worker.
 */
#include <poll.h>
#include <string.h>

#include "inc_internal.h"

/* Length in values of segment s of a count-value buffer cut into seg-value
 * segments (the last one may be short). */
static size_t wa_seg_len(size_t count, size_t seg, size_t s)
{
	return count - s * seg < seg ? count - s * seg : seg;
}

/* ------------------------------------------------------------------------ */
/* A worker                                                                  */
/* ------------------------------------------------------------------------ */
/* Up: every segment through the mode's codec; down: the result of segment
 * s comes back raw only after rank 0 has all of our segment s, so it may
 * land in buf directly. */
static int wa_worker(struct inc_comm *c, float *buf, size_t count,
		     const struct inc_allreduce_opts *o, enum inc_hdr_algo algo,
		     enum inc_red op)
{
	struct inc_pair p;
	int rc = inc_pair_open(&p, c, &c->wa_up, &c->wa_up, o, inc_seg_codec(o->compression),
			       inc_seg_codec(INC_COMP_NONE), algo, count, 0);

	return rc ? rc : inc_pair_run_linear(&p, buf, buf,
					     op == INC_RED_SUM_F32 ? o->residual : NULL, count);
}

/* ------------------------------------------------------------------------ */
/* The aggregator                                                            */
/* ------------------------------------------------------------------------ */
struct wa_peer {
	struct inc_msg_in mi;
	struct inc_msg_out mo;
	size_t r_seg;          /* segments fully received (and staged) */
	size_t s_seg;          /* result segments fully sent */
	int staged;            /* segment r_seg is complete, waiting for the sum */
	int r_hdr, s_hdr;      /* call headers still to receive / send */
	float hdr_in[INC_HDR_FLOATS];
	size_t slen;
	uint8_t *stage;        /* framed encoding */
	float *vals;           /* one segment of values */
};

static int wa_root(struct inc_comm *c, float *buf, size_t count,
		   const struct inc_allreduce_opts *o, size_t seg, enum inc_hdr_algo algo,
		   enum inc_red op, inc_wa_update_fn update, void *arg)
{
	const struct inc_seg_codec *sc = inc_seg_codec(o->compression);
	const struct inc_seg_codec *raw = inc_seg_codec(INC_COMP_NONE);
	int n = c->size, rc, progress, i, np;
	size_t nsegs = (count + seg - 1) / seg, reduced = 0;
	size_t smax = inc_seg_stage_max(seg), need;
	struct wa_peer *w;
	struct pollfd *p;
	int64_t last = inc_now_ms();
	uint8_t *mem;
	float hdr[INC_HDR_FLOATS];

	inc_hdr_make(hdr, c, count, o, algo);

	need = (size_t)n * (sizeof(*w) + sizeof(*p) + smax + seg * 4 + 64);
	rc = inc_scratch_reserve(c, need);
	if (rc)
		return inc_fail(c, rc);
	mem = c->scratch;
	w = (struct wa_peer *)(void *)mem;
	p = (struct pollfd *)(void *)(w + n);
	mem = (uint8_t *)(p + n);
	mem += (64 - ((uintptr_t)mem & 63)) & 63;
	for (i = 1; i < n; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].r_hdr = w[i].s_hdr = 1;
		w[i].vals = (float *)(void *)mem;
		mem += seg * 4;
		w[i].stage = mem;
		mem += smax;
		mem += (64 - ((uintptr_t)mem & 63)) & 63;
		rc = inc_link_retag(&c->wa[i], 0, o->timeout_ms);
		if (rc)
			return inc_fail(c, rc);
	}
	for (;;) {
		int done = 1;

		progress = 0;
		for (i = 1; i < n; i++) {
			struct wa_peer *x = &w[i];
			int fd = c->wa[i].fd;

			if (x->r_hdr) {
				rc = inc_hdr_recv(fd, &x->mi, c, x->hdr_in, hdr, &progress);
				if (rc < 0)
					return inc_fail(c, rc);
				x->r_hdr = rc == 0;
			}
			/* Receive the next upward segment unless one waits. */
			while (!x->r_hdr && !x->staged && x->r_seg < nsegs) {
				size_t len = wa_seg_len(count, seg, x->r_seg);

				if (!x->mi.active)
					inc_in_start(&x->mi, sc, (uint8_t *)x->vals, len);
				rc = inc_in_pump(fd, &x->mi, c, sc, len, x->stage,
						 &x->slen, &progress);
				if (rc < 0)
					return inc_fail(c, rc);
				if (rc == 0)
					break;
				rc = inc_in_decode(c, sc, x->stage, x->slen, len, x->vals);
				if (rc)
					return inc_fail(c, rc);
				x->staged = 1;
			}
			/* Send the header, then the results that are ready. */
			while (x->s_hdr || x->s_seg < reduced) {
				if (!x->mo.active && x->s_hdr)
					inc_out_hdr(&x->mo, hdr);
				else if (!x->mo.active) {
					struct inc_seg_out so = {
						.v = buf + x->s_seg * seg,
						.n = wa_seg_len(count, seg, x->s_seg) };

					(void)inc_out_start(c, &x->mo, raw, &so, 0, NULL);
				}
				rc = inc_out_pump(fd, &x->mo, c, &progress);
				if (rc < 0)
					return inc_fail(c, rc);
				if (rc == 0)
					break;
				if (x->s_hdr)
					x->s_hdr = 0;
				else
					x->s_seg++;
			}
		}
		/* Reduce segment `reduced` once every worker has staged it. */
		while (reduced < nsegs) {
			size_t len = wa_seg_len(count, seg, reduced);

			for (i = 1; i < n; i++)
				if (!w[i].staged || w[i].r_seg != reduced)
					break;
			if (i < n)
				break;
			for (i = 1; i < n; i++) {
				inc_reduce(c, op, buf + reduced * seg, w[i].vals, len);
				w[i].staged = 0;
				w[i].r_seg++;
			}
			if (update)
				update(arg, buf + reduced * seg, reduced * seg, len);
			reduced++;
			progress = 1;
		}
		for (i = 1; i < n; i++)
			if (w[i].s_seg < nsegs || w[i].s_hdr || w[i].r_hdr)
				done = 0;
		if (done)
			break;
		if (progress) {
			last = inc_now_ms();
			continue;
		}
		for (i = 1, np = 0; i < n; i++, np++) {
			p[np].fd = c->wa[i].fd;
			p[np].events = (short)((w[i].mo.active ? POLLOUT : 0) |
				       (w[i].r_hdr || (!w[i].staged && w[i].r_seg < nsegs) ?
					POLLIN : 0));
			p[np].revents = 0;
		}
		rc = inc_wait_io(p, np, &last, o->timeout_ms);
		if (rc)
			return inc_fail(c, rc);
		for (i = 0; i < np; i++)
			if ((p[i].revents & (POLLERR | POLLHUP)) && !(p[i].revents & POLLIN))
				return inc_fail(c, INC_E_CLOSED);
	}
	return 0;
}

int inc_wa_reduce(struct inc_comm *c, float *buf, size_t count,
		  const struct inc_allreduce_opts *o, enum inc_red op, enum inc_hdr_algo hdr_algo,
		  inc_wa_update_fn update, void *arg)
{
	size_t seg = inc_seg_values(o);

	return c->rank == 0 ? wa_root(c, buf, count, o, seg, hdr_algo, op, update, arg)
			    : wa_worker(c, buf, count, o, hdr_algo, op);
}

/* The call headers once around the ring first (no data): a rank that runs
 * the ring while another runs the worker-aggregator meets the other's
 * header on its ring link, and both fail with INC_E_PROTOCOL within one
 * round trip instead of waiting on links the other never writes. */
static int ring_agree(struct inc_comm *c, size_t count, const struct inc_allreduce_opts *o,
		      enum inc_hdr_algo algo)
{
	const struct inc_seg_codec *sc = inc_seg_codec(o->compression);
	struct inc_pair p;
	int rc = inc_pair_open(&p, c, &c->ring_send, &c->ring_recv, o, sc, sc, algo, count, 0);

	return rc ? rc : inc_pair_run_linear(&p, NULL, NULL, NULL, 0);
}

int inc_wa_allreduce(struct inc_comm *c, float *buf, size_t count,
		     const struct inc_allreduce_opts *o,
		     inc_wa_update_fn update, void *arg)
{
	enum inc_hdr_algo algo = update ? INC_HDR_WA_UPDATE : INC_HDR_WA;
	int rc = c->size > 1 ? ring_agree(c, count, o, algo) : 0;

	return rc ? rc : inc_wa_reduce(c, buf, count, o, INC_RED_SUM_F32, algo, update, arg);
}
