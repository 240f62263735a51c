// SPDX-License-Identifier: MIT
/*
 * transport.c - what every collective algorithm needs from the data links:
 * segment messages pumped through non-blocking sockets (framing by the
 * segment codec), the call header that makes disagreeing ranks fail
 * cleanly, the poll wait with its no-progress timeout, the ToS and cork of
 * tagged links, and the failure path that resets every link so a failure
 * spreads around the ranks in milliseconds. The algorithms (ring.c, wa.c)
 * read as steps over these.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "inc_internal.h"

uint64_t inc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------------ */
/* Failure handling                                                          */
/* ------------------------------------------------------------------------ */
/* Reset (RST) a connection so the peer fails at once instead of waiting
 * for its timeout; the failure spreads around the ring in milliseconds. */
static void abort_fd(int *fd)
{
	struct linger lg = { 1, 0 };

	if (*fd < 0)
		return;
	(void)setsockopt(*fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(*fd);
	*fd = -1;
}

int inc_fail(struct inc_comm *c, int rc)
{
	int i;

	c->broken = rc;
	abort_fd(&c->ring_send.fd);
	abort_fd(&c->ring_recv.fd);
	abort_fd(&c->wa_up.fd);
	abort_fd(&c->ctrl_fd);
	if (c->wa)
		for (i = 0; i < c->size; i++)
			abort_fd(&c->wa[i].fd);
	if (c->peer_send)
		for (i = 0; i < c->size; i++) {
			abort_fd(&c->peer_send[i].fd);
			abort_fd(&c->peer_recv[i].fd);
		}
	if (c->ctrl)
		for (i = 0; i < c->size; i++)
			abort_fd(&c->ctrl[i]);
	return rc;
}

static int io_errno(void)
{
	return errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN ||
	       errno == ETIMEDOUT ? INC_E_CLOSED : INC_E_SOCKET;
}

/*
 * A ToS change applies to every segment the kernel sends from then on,
 * including bytes of the previous call still queued (not yet sent, or sent
 * and possibly retransmitted). Tagged, a software-mode encoding would be
 * quantised by the NIC as if it were floats; untagged, a nic-mode call's
 * floats would miss their compression. So the link first waits until the
 * peer has acknowledged everything written under the old ToS. The peer is
 * in, or past, the call those bytes belong to and reads them, so this ends;
 * only a mode change between calls pays the wait.
 */
int inc_link_retag(struct inc_link *l, uint8_t tos, int timeout_ms)
{
	int rc;

	if (l->fd < 0 || l->tos_now == tos)
		return 0;
	rc = inc_sock_wait_drained(l->fd, timeout_ms);
	if (rc)
		return rc;
	rc = inc_sock_set_tos(l->fd, l->family, tos);
	if (rc)
		return rc;
	l->tos_now = tos;
	return 0;
}

int inc_scratch_reserve(struct inc_comm *c, size_t need)
{
	if (c->scratch_cap >= need)
		return 0;
	free(c->scratch);
	c->scratch_cap = 0;
	c->scratch = malloc(need);
	if (!c->scratch)
		return INC_E_NOMEM;
	c->scratch_cap = need;
	return 0;
}

void inc_flush_cork(int fd)
{
	(void)inc_sock_set_cork(fd, 0);
	(void)inc_sock_set_cork(fd, 1);
}

int inc_wait_io(struct pollfd *p, int np, int64_t *last, int timeout_ms)
{
	int64_t left = *last + timeout_ms - inc_now_ms();
	int rc;

	if (left <= 0)
		return INC_E_TIMEOUT;
	rc = poll(p, (nfds_t)np, left > 1000000 ? 1000000 : (int)left);
	if (rc < 0 && errno != EINTR)
		return INC_E_SOCKET;
	return 0;
}

int inc_pair_wait(int sfd, int rfd, int tagged, int *dirty, int out_active, int send_left,
		  int recv_left, int64_t *last, int timeout_ms)
{
	struct pollfd p[2];
	int rc;

	/* Idle: nothing to send right now ends on a float boundary. */
	if (tagged && *dirty && !out_active) {
		inc_flush_cork(sfd);
		*dirty = 0;
	}
	/* POLLERR/POLLHUP are reported even with no events asked: a reset on
	 * the idle direction fails the call at once. */
	p[0].fd = sfd;
	p[0].events = (short)((out_active ? POLLOUT : 0) | (send_left ? POLLRDHUP : 0));
	p[1].fd = rfd;
	p[1].events = (short)(recv_left ? POLLIN : 0);
	p[0].revents = p[1].revents = 0;
	rc = inc_wait_io(p, 2, last, timeout_ms);
	if (rc)
		return rc;
	if ((p[0].revents & (POLLERR | POLLHUP | POLLRDHUP)) ||
	    (p[1].revents & (POLLERR | POLLHUP) && !(p[1].revents & POLLIN)))
		return INC_E_CLOSED;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Call header                                                               */
/* ------------------------------------------------------------------------ */
/* The settings that change the bytes on the wire and are not fields of
 * their own, where they apply (docs/userlib.md, "What ranks must agree
 * on"), hashed: the seed (cnat's draws, the sketch's hashes), the sketch's
 * index and cells per candidate, the fixed scale and the adaptive
 * scaling's exponents. */
static uint32_t inc_hdr_settings(const struct inc_allreduce_opts *o)
{
	const enum inc_compression m = o->compression;
	const int sketch = m == INC_COMP_SKETCH || m == INC_COMP_INC_SKETCH;
	uint64_t v[6] = { 0, 0, 0, 0, 0, 0 };
	uint32_t h = 2166136261u;
	size_t i, j;

	if (m == INC_COMP_CNAT || sketch)
		v[0] = o->seed;
	if (sketch) {
		double g = o->sketch_gamma ? o->sketch_gamma : INC_SKETCH_GAMMA;

		v[1] = o->sketch_index;
		memcpy(&v[2], &g, sizeof(g));
	}
	v[3] = (uint64_t)(int64_t)o->scale_exp;
	if (o->scale) {
		v[4] = 1;
		v[5] = inc_scale_digest(o->scale);
	}
	for (i = 0; i < 6; i++)
		for (j = 0; j < 8; j++)
			h = (h ^ (uint32_t)(v[i] >> (8 * j) & 0xff)) * 16777619u;
	return h ^ h >> 24;
}

void inc_hdr_make(float h[INC_HDR_FLOATS], const struct inc_comm *c, size_t count,
		  const struct inc_allreduce_opts *o, enum inc_hdr_algo algo)
{
	const struct inc_compression_info *ci = inc_compression_info(o->compression);
	size_t seg = inc_seg_values(o);

	h[0] = (float)((inc_hdr_settings(o) & 0xffffffu) + 1u);
	h[1] = (float)((count & 0xffffffu) + 1u);
	h[2] = (float)(((uint64_t)count >> 24 & 0xffffffu) + 1u);
	h[3] = (float)((unsigned)o->compression * INC_HDR_ALGO_N + (unsigned)algo + 1u);
	h[4] = (float)((ci && ci->error_bound ? o->error_bound : 0u) + 1u);
	h[5] = (float)((seg / 8u & 0xffffffu) + 1u);
	h[6] = (float)((c->seq & 0xffffffu) + 1u);
	h[7] = 8765.0f;
}

void inc_out_hdr(struct inc_msg_out *m, const float h[INC_HDR_FLOATS])
{
	m->p = (const uint8_t *)h;
	m->left = INC_HDR_FLOATS * sizeof(float);
	m->active = 1;
}

int inc_hdr_recv(int fd, struct inc_msg_in *m, struct inc_comm *c,
		 float h_in[INC_HDR_FLOATS], const float h[INC_HDR_FLOATS],
		 int *progress)
{
	const struct inc_seg_codec *raw = inc_seg_codec(INC_COMP_NONE);
	size_t slen;
	int rc;

	if (!m->active)
		inc_in_start(m, raw, (uint8_t *)h_in, INC_HDR_FLOATS);
	rc = inc_in_pump(fd, m, c, raw, INC_HDR_FLOATS, NULL, &slen, progress);
	if (rc <= 0)
		return rc;
	if (memcmp(h_in, h, INC_HDR_FLOATS * sizeof(float)))
		return INC_E_PROTOCOL;
	return 1;
}

/* ------------------------------------------------------------------------ */
/* Segment messages                                                          */
/* ------------------------------------------------------------------------ */
void inc_reduce(struct inc_comm *c, enum inc_red op, float *restrict dst,
		const float *restrict src, size_t n)
{
	uint64_t t0 = inc_now_ns();
	uint32_t *restrict du = (uint32_t *)(void *)dst;
	const uint32_t *restrict su = (const uint32_t *)(const void *)src;
	size_t i;

	switch (op) {
	case INC_RED_SUM_F32:
		/* blocks of 8 with a fixed inner count: vectorised at -O2 */
		for (i = 0; i + 8 <= n; i += 8)
			for (size_t j = i; j < i + 8; j++)
				dst[j] += src[j];
		for (; i < n; i++)
			dst[i] += src[i];
		break;
	case INC_RED_OR_U32:
		for (i = 0; i < n; i++)
			du[i] |= su[i];
		break;
	case INC_RED_SUM_U32:     /* saturating */
		for (i = 0; i < n; i++)
			du[i] = du[i] + su[i] < du[i] ? UINT32_MAX : du[i] + su[i];
		break;
	}
	c->st.sum_ns += inc_now_ns() - t0;
}

/* Error feedback: v += res, then v is replaced by its round trip (what
 * every receiver will hold; a framed encoding is left in tmp) and res
 * by what was meant minus that. */
long inc_round_trip_ef(const struct inc_seg_codec *sc, float *restrict v, size_t n,
		       float *restrict res, unsigned eb, uint8_t *tmp, uint64_t key)
{
	size_t i;
	long len;

	if (!res)
		return sc->round_trip(v, n, eb, tmp, key);
	if (sc->direct) {
		inc_codec_quantize(v, res, n, eb);
		return 0;
	}
	if (sc->round_trip_ef)
		return sc->round_trip_ef(v, res, n, eb, tmp);
	for (i = 0; i < n; i++) {
		v[i] += res[i];
		res[i] = v[i];
	}
	len = sc->round_trip(v, n, eb, tmp, key);
	for (i = 0; i < n; i++)
		res[i] -= v[i];
	return len;
}

int inc_out_start(struct inc_comm *c, struct inc_msg_out *m,
		  const struct inc_seg_codec *sc, const struct inc_seg_out *so,
		  unsigned eb, uint8_t *stage)
{
	uint64_t t0 = inc_now_ns();
	/* A random stream per encoding: (seed, rank, encoding number); the
	 * ranks' encodings happen in the same order on every run. */
	uint64_t key = inc_mix64(c->call_seed ^ inc_mix64((uint64_t)c->rank << 40 ^ c->encodes++));
	float *v = so->v;
	size_t n = so->n;
	int owner = so->owner, ef = so->res && sc->round_trip;
	long len;

	c->st.values_sent += n;
	if (sc->framed) {
		len = ef ? inc_round_trip_ef(sc, v, n, so->res, eb, stage + 4, key) :
		      owner ? sc->round_trip(v, n, eb, stage + 4, key)
			    : sc->encode(v, n, eb, stage + 4, key);
		if (len < 0)
			return INC_E_PROTOCOL;
		stage[0] = (uint8_t)len;
		stage[1] = (uint8_t)(len >> 8);
		stage[2] = (uint8_t)(len >> 16);
		stage[3] = (uint8_t)(len >> 24);
		memset(stage + 4 + len, 0, INC_SEG_PAD(len));
		m->p = stage;
		m->left = 4 + (size_t)len + INC_SEG_PAD(len);
	} else {
		/* nic: with error feedback the host quantises what it sends, so
		 * the NIC delivers exactly that whether it compresses the frame
		 * or lets it pass (q is idempotent) */
		if (ef || (owner && sc->round_trip)) {
			len = inc_round_trip_ef(sc, v, n, ef ? so->res : NULL, eb, stage, key);
			if (len < 0)
				return INC_E_PROTOCOL;
		}
		m->p = (const uint8_t *)v;
		m->left = n * 4;
	}
	if (sc->framed || ef || (owner && sc->round_trip))
		c->st.codec_ns += inc_now_ns() - t0;
	m->active = 1;
	return 0;
}

int inc_out_pump(int fd, struct inc_msg_out *m, struct inc_comm *c, int *progress)
{
	ssize_t w;

	while (m->left) {
		w = send(fd, m->p, m->left, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			m->p += w;
			m->left -= (size_t)w;
			c->st.bytes_sent += (uint64_t)w;
			*progress = 1;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		return io_errno();
	}
	m->active = 0;
	return 1;
}

void inc_in_start(struct inc_msg_in *m, const struct inc_seg_codec *sc,
		  uint8_t *dst, size_t n)
{
	m->active = 1;
	if (sc->framed) {
		m->phase = 0;
		m->p = m->hdr;
		m->left = 4;
	} else {
		m->phase = 1;
		m->p = dst;
		m->left = n * 4;
	}
}

int inc_in_pump(int fd, struct inc_msg_in *m, struct inc_comm *c,
		const struct inc_seg_codec *sc, size_t n, uint8_t *stage,
		size_t *slen, int *progress)
{
	ssize_t r;
	size_t len;

	for (;;) {
		while (m->left) {
			r = recv(fd, m->p, m->left, MSG_DONTWAIT);
			if (r > 0) {
				m->p += r;
				m->left -= (size_t)r;
				c->st.bytes_received += (uint64_t)r;
				*progress = 1;
				continue;
			}
			if (r == 0)
				return INC_E_CLOSED;
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return io_errno();
		}
		if (!sc->framed || m->phase == 1)
			break;
		len = (size_t)m->hdr[0] | (size_t)m->hdr[1] << 8 |
		      (size_t)m->hdr[2] << 16 | (size_t)m->hdr[3] << 24;
		if (len < sc->min_bytes(n) || len > sc->max_bytes(n))
			return INC_E_PROTOCOL;
		*slen = len;
		m->phase = 1;
		m->p = stage;
		m->left = len + INC_SEG_PAD(len);
	}
	m->active = 0;
	return 1;
}

int inc_in_decode(struct inc_comm *c, const struct inc_seg_codec *sc,
		  const uint8_t *stage, size_t slen, size_t n, float *out)
{
	uint64_t t0;
	int rc;

	if (!sc->framed)
		return 0;
	t0 = inc_now_ns();
	rc = sc->decode(stage, slen, n, out);
	c->st.codec_ns += inc_now_ns() - t0;
	return rc;
}
