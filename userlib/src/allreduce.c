// SPDX-License-Identifier: MIT
/*
 * allreduce.c - the paper's Algorithm 1 as a pipelined ring all-reduce,
 * and the worker-aggregator baseline.
 *
 * Ring, rank r of N, 2(N-1) steps. The buffer is cut into N blocks (sizes
 * differ by at most one value). Step k < N-1 (reduce-scatter) sends block
 * r-k to rank r+1 and adds block r-k-1 received from rank r-1; after it rank
 * r owns the fully reduced block r+1. Step k = N-1+j (all-gather) sends block
 * r+1-j and stores block r-j. Each block travels as segments; segment s of
 * step k may leave as soon as segment s of step k-1 has arrived, so sending,
 * receiving and reducing overlap, and both directions of every node's link
 * are busy at once (one poll() loop, non-blocking sockets).
 *
 * Modes: none (raw floats), nic (raw floats on tagged sockets), software
 * (each segment = 4-byte little-endian length + multi-stream codec
 * container, inc_codec_compress_parts). In nic
 * and software modes the owner replaces each segment of its reduced block
 * by its codec round trip before the all-gather forwards it, so all ranks
 * end bit-identical (docs/userlib.md, "Identical replicas").
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "inc_internal.h"

#define SEG_DEFAULT (64u * 1024u)
#define SEG_MAX     (64u * 1024u * 1024u)
/* Software mode: segments of at least this many values travel as
 * INC_CODEC_PARTS_MAX parts (decoded interleaved), shorter ones as one. */
#define SEG_PARTS_MIN_VALUES 1024u
/* Staging bytes of one software-mode segment of n values. */
#define SEG_STAGE_MAX(n) (4u + inc_codec_parts_max_size((n), INC_CODEC_PARTS_MAX))

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
		else
			return INC_E_ENV;
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
	rc = env_long("INC_SEGMENT_BYTES", 32, SEG_MAX, &x);
	if (rc < 0 || (rc == 0 && x % 32))
		return INC_E_ENV;
	if (rc == 0)
		o->segment_bytes = (size_t)x;
	rc = env_long("INC_TOS", 1, 255, &x);
	if (rc < 0)
		return rc;
	if (rc == 0)
		o->tos = (uint8_t)x;
	return 0;
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

static int fail(struct inc_comm *c, int rc)
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

static int retag(struct inc_link *l, uint8_t tos)
{
	int rc;

	if (l->fd < 0 || l->tos_now == tos)
		return 0;
	rc = inc_sock_set_tos(l->fd, l->family, tos);
	if (rc)
		return rc;
	l->tos_now = tos;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Grow the communicator's scratch area to at least need bytes. */
static int scratch_reserve(struct inc_comm *c, size_t need)
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

/* Push out a corked tail: it ends on a float boundary (docs/userlib.md). */
static void flush_cork(int fd)
{
	(void)inc_sock_set_cork(fd, 0);
	(void)inc_sock_set_cork(fd, 1);
}

/*
 * Call header: the first 32 bytes each side sends on every data link in a
 * call, so ranks that disagree about the call (count, mode, algorithm, error
 * bound, segment size, or a skipped call) fail with INC_E_PROTOCOL instead
 * of mis-framing the byte stream. Eight float32 values, every one an
 * integer in [1, 2^24], so the NIC codec passes them unchanged (tag 3) and
 * they keep the socket float-aligned.
 */
#define HDR_FLOATS 8

/* Call-header algorithm field of the worker-aggregator step with an update
 * at the aggregator (inc_wa_update_f32): ranks mixing it with a plain
 * worker-aggregator all-reduce fail with INC_E_PROTOCOL. */
#define HDR_ALGO_WA_UPDATE 2u

static void hdr_make(float h[HDR_FLOATS], const struct inc_comm *c, size_t count,
		     const struct inc_allreduce_opts *o, size_t seg, unsigned algo)
{
	h[0] = 4321.0f;
	h[1] = (float)((count & 0xffffffu) + 1u);
	h[2] = (float)(((uint64_t)count >> 24 & 0xffffffu) + 1u);
	h[3] = (float)((unsigned)o->compression * 4u + algo + 1u);
	h[4] = (float)(o->error_bound + 1u);
	h[5] = (float)((seg / 8u & 0xffffffu) + 1u);
	h[6] = (float)((c->seq & 0xffffffu) + 1u);
	h[7] = 8765.0f;
}

/* ------------------------------------------------------------------------ */
/* Segment messages                                                          */
/* ------------------------------------------------------------------------ */
struct msg_out {
	const uint8_t *p;
	size_t left;
	int active;
};

struct msg_in {
	uint8_t *p;
	size_t left;
	int active;
	int phase;             /* software: 0 = length word, 1 = stream */
	uint8_t hdr[4];
};

/* dst += src, timed into the communicator's sum_ns. */
static void add_f32(struct inc_comm *c, float *restrict dst,
		    const float *restrict src, size_t n)
{
	uint64_t t0 = now_ns();
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] += src[i];
	c->st.sum_ns += now_ns() - t0;
}

/* Decode a software-mode segment container of n values into out, timed
 * into codec_ns. Returns 0 when it is exactly slen bytes, else
 * INC_E_PROTOCOL. */
static int seg_decompress(struct inc_comm *c, const uint8_t *in, size_t slen,
			  size_t n, float *out)
{
	uint64_t t0 = now_ns();
	long d = inc_codec_decompress_parts(in, slen, n, out, n * 4);

	c->st.codec_ns += now_ns() - t0;
	return d == (long)slen ? 0 : INC_E_PROTOCOL;
}

/* Parts of a software-mode segment of n values. */
static unsigned seg_parts(size_t n)
{
	return n >= SEG_PARTS_MIN_VALUES ? INC_CODEC_PARTS_MAX : 1u;
}

/* Compress n values into the container a segment carries; out holds
 * inc_codec_parts_max_size(n, INC_CODEC_PARTS_MAX) bytes. */
static long seg_compress(const float *v, size_t n, unsigned eb, uint8_t *out)
{
	return inc_codec_compress_parts(v, n, eb, seg_parts(n), out,
					inc_codec_parts_max_size(n, INC_CODEC_PARTS_MAX));
}

/* Codec round trip of n values in place (the owner step); container into
 * tmp, which holds inc_codec_parts_max_size(n, INC_CODEC_PARTS_MAX) bytes.
 * The values are quantized one by one, so they are the same as through one
 * stream. Returns the container size. */
static long round_trip(float *v, size_t n, unsigned eb, uint8_t *tmp)
{
	long len = seg_compress(v, n, eb, tmp);
	long r;

	if (len < 0)
		return len;
	r = inc_codec_decompress_parts(tmp, (size_t)len, n, v, n * 4);
	return r < 0 ? r : len;
}

/* Start sending n values at v. Software: length word + container in stage.
 * Codec time goes to c's codec_ns. */
static int out_start(struct inc_comm *c, struct msg_out *m, float *v, size_t n,
		     int mode, unsigned eb, int owner, uint8_t *stage)
{
	uint64_t t0 = now_ns();
	long len;

	if (mode == INC_COMP_SOFTWARE) {
		if (owner) {
			len = round_trip(v, n, eb, stage + 4);
		} else {
			len = seg_compress(v, n, eb, stage + 4);
		}
		if (len < 0)
			return INC_E_PROTOCOL;
		stage[0] = (uint8_t)len;
		stage[1] = (uint8_t)(len >> 8);
		stage[2] = (uint8_t)(len >> 16);
		stage[3] = (uint8_t)(len >> 24);
		m->p = stage;
		m->left = 4 + (size_t)len;
	} else {
		if (owner && mode == INC_COMP_NIC) {
			len = round_trip(v, n, eb, stage);
			if (len < 0)
				return INC_E_PROTOCOL;
		}
		m->p = (const uint8_t *)v;
		m->left = n * 4;
	}
	if (mode != INC_COMP_NONE)
		c->st.codec_ns += now_ns() - t0;
	m->active = 1;
	return 0;
}

/* Write as much as the socket takes. Returns 1 when the message is done,
 * 0 on EAGAIN, or an error. */
static int out_pump(int fd, struct msg_out *m, struct inc_comm *c, int *progress)
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

/* Start receiving n values: raw into dst, or software header first. */
static void in_start(struct msg_in *m, uint8_t *dst, size_t n, int mode)
{
	m->active = 1;
	if (mode == INC_COMP_SOFTWARE) {
		m->phase = 0;
		m->p = m->hdr;
		m->left = 4;
	} else {
		m->phase = 1;
		m->p = dst;
		m->left = n * 4;
	}
}

/* Read what is there. Returns 1 when the message is complete (software:
 * container in stage, its length in *slen), 0 on EAGAIN, or an error. */
static int in_pump(int fd, struct msg_in *m, struct inc_comm *c, int mode,
		   size_t n, uint8_t *stage, size_t *slen, int *progress)
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
		if (mode != INC_COMP_SOFTWARE || m->phase == 1)
			break;
		len = (size_t)m->hdr[0] | (size_t)m->hdr[1] << 8 |
		      (size_t)m->hdr[2] << 16 | (size_t)m->hdr[3] << 24;
		if (len < inc_codec_parts_hdr_size(1) + 2 * ((n + 7) / 8) ||
		    len > inc_codec_parts_max_size(n, INC_CODEC_PARTS_MAX))
			return INC_E_PROTOCOL;
		*slen = len;
		m->phase = 1;
		m->p = stage;
		m->left = len;
	}
	m->active = 0;
	return 1;
}

/* Start sending the call header h. */
static void out_hdr(struct msg_out *m, const float h[HDR_FLOATS])
{
	m->p = (const uint8_t *)h;
	m->left = HDR_FLOATS * sizeof(float);
	m->active = 1;
}

/* Receive the peer's call header into h_in and check it against ours, h.
 * Returns 1 when it has arrived and matches, 0 on EAGAIN, or an error
 * (INC_E_PROTOCOL on a mismatch). */
static int hdr_recv(int fd, struct msg_in *m, struct inc_comm *c,
		    float h_in[HDR_FLOATS], const float h[HDR_FLOATS],
		    size_t *slen, int *progress)
{
	int rc;

	if (!m->active)
		in_start(m, (uint8_t *)h_in, HDR_FLOATS, INC_COMP_NONE);
	rc = in_pump(fd, m, c, INC_COMP_NONE, HDR_FLOATS, NULL, slen, progress);
	if (rc <= 0)
		return rc;
	if (memcmp(h_in, h, HDR_FLOATS * sizeof(float)))
		return INC_E_PROTOCOL;
	return 1;
}

/* ------------------------------------------------------------------------ */
/* Ring                                                                      */
/* ------------------------------------------------------------------------ */
struct ring {
	size_t count, seg;
	int n, r;
};

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

static int wait_io(struct pollfd *p, int np, int64_t *last, int timeout_ms)
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

int inc_ring_allreduce(struct inc_comm *c, float *buf, size_t count,
		       const struct inc_allreduce_opts *o)
{
	struct ring g = { .count = count, .n = c->size, .r = c->rank };
	int steps = 2 * (c->size - 1), mode = (int)o->compression, tagged;
	int s_step = 0, r_step = 0, rc = 0, dirty = 0, progress;
	int s_hdr = 1, r_hdr = 1;     /* call headers still to send / receive */
	float hdr[HDR_FLOATS], hdr_in[HDR_FLOATS];
	size_t s_seg = 0, r_seg = 0, slen = 0, smax;
	int sfd = c->ring_send.fd, rfd = c->ring_recv.fd;
	struct msg_out mo = { 0 };
	struct msg_in mi = { 0 };
	uint8_t *s_stage, *r_stage;
	float *tmp;
	int64_t last = inc_now_ms();
	uint8_t tos = mode == INC_COMP_NIC ? o->tos : 0;

	g.seg = (o->segment_bytes ? o->segment_bytes : SEG_DEFAULT) / 4;
	smax = SEG_STAGE_MAX(g.seg);
	rc = scratch_reserve(c, 2 * smax + g.seg * 4);
	if (rc)
		return rc;
	s_stage = c->scratch;
	r_stage = c->scratch + smax;
	tmp = (float *)(void *)(c->scratch + 2 * smax);
	hdr_make(hdr, c, count, o, g.seg, (unsigned)o->algo);

	if ((rc = retag(&c->ring_send, tos)) || (rc = retag(&c->ring_recv, tos)))
		return fail(c, rc);
	tagged = tos != 0;
	if (tagged && inc_sock_set_cork(sfd, 1))
		return fail(c, INC_E_SOCKET);

	/* Skip steps whose block is empty (count < N). */
	while (s_step < steps && nseg(&g, send_blk(&g, s_step)) == 0)
		s_step++;
	while (r_step < steps && nseg(&g, recv_blk(&g, r_step)) == 0)
		r_step++;

	while (s_hdr || r_hdr || s_step < steps || r_step < steps) {
		struct pollfd p[2];

		progress = 0;
		/* Send side. */
		while (s_hdr || s_step < steps) {
			if (!mo.active && s_hdr) {
				out_hdr(&mo, hdr);
			} else if (!mo.active) {
				int b = send_blk(&g, s_step);
				size_t n;

				/* Segment s of step k is block recv_blk(k-1)'s
				 * segment s: wait until it has arrived. */
				if (s_step > 0 && (r_step < s_step - 1 ||
				    (r_step == s_step - 1 && r_seg <= s_seg)))
					break;
				n = seg_len(&g, b, s_seg);
				rc = out_start(c, &mo, buf + blk_off(&g, b) + s_seg * g.seg,
					       n, mode, o->error_bound,
					       s_step == g.n - 1, s_stage);
				if (rc)
					return fail(c, rc);
			}
			rc = out_pump(sfd, &mo, c, &progress);
			if (rc < 0)
				return fail(c, rc);
			if (rc == 0)
				break;
			dirty = 1;
			if (s_hdr) {
				s_hdr = 0;
				continue;
			}
			if (++s_seg == nseg(&g, send_blk(&g, s_step))) {
				s_seg = 0;
				do
					s_step++;
				while (s_step < steps &&
				       nseg(&g, send_blk(&g, s_step)) == 0);
			}
		}
		/* Receive side: the predecessor's call header first. */
		if (r_hdr) {
			rc = hdr_recv(rfd, &mi, c, hdr_in, hdr, &slen, &progress);
			if (rc < 0)
				return fail(c, rc);
			r_hdr = rc == 0;
		}
		while (!r_hdr && r_step < steps) {
			int b = recv_blk(&g, r_step), rs = r_step < g.n - 1;
			size_t n = seg_len(&g, b, r_seg);
			float *dst = buf + blk_off(&g, b) + r_seg * g.seg;

			if (!mi.active)
				in_start(&mi, (uint8_t *)(rs ? tmp : dst), n, mode);
			rc = in_pump(rfd, &mi, c, mode, n, r_stage, &slen, &progress);
			if (rc < 0)
				return fail(c, rc);
			if (rc == 0)
				break;
			if (mode == INC_COMP_SOFTWARE &&
			    seg_decompress(c, r_stage, slen, n, rs ? tmp : dst))
				return fail(c, INC_E_PROTOCOL);
			if (rs)
				add_f32(c, dst, tmp, n);
			if (++r_seg == nseg(&g, b)) {
				r_seg = 0;
				do
					r_step++;
				while (r_step < steps &&
				       nseg(&g, recv_blk(&g, r_step)) == 0);
			}
		}
		if (progress) {
			last = inc_now_ms();
			continue;
		}
		if (!s_hdr && !r_hdr && s_step >= steps && r_step >= steps)
			break;
		/* Idle: nothing to send right now ends on a float boundary. */
		if (tagged && dirty && !mo.active) {
			flush_cork(sfd);
			dirty = 0;
		}
		/* POLLERR/POLLHUP are reported even with no events asked: a
		 * reset on the idle direction fails the call at once. */
		p[0].fd = sfd;
		p[0].events = (short)(mo.active ? POLLOUT : 0);
		p[0].events |= (short)(s_hdr || s_step < steps ? POLLRDHUP : 0);
		p[1].fd = rfd;
		p[1].events = (short)(r_hdr || r_step < steps ? POLLIN : 0);
		p[0].revents = p[1].revents = 0;
		rc = wait_io(p, 2, &last, o->timeout_ms);
		if (rc)
			return fail(c, rc);
		if ((p[0].revents & (POLLERR | POLLHUP | POLLRDHUP)) ||
		    (p[1].revents & (POLLERR | POLLHUP) && !(p[1].revents & POLLIN)))
			return fail(c, INC_E_CLOSED);
	}
	if (tagged)
		(void)inc_sock_set_cork(sfd, 0);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Worker-aggregator                                                         */
/* ------------------------------------------------------------------------ */
/* Workers stream their gradients to rank 0 in segments (compressed in
 * software mode, tagged in nic mode); rank 0 adds segment s of every worker
 * in rank order as soon as all have arrived, and streams the sum back raw
 * and untagged (the paper compresses only the upward gradients). */
/* Length in values of segment s of a count-value buffer cut into seg-value
 * segments (the last one may be short). */
static size_t wa_seg_len(size_t count, size_t seg, size_t s)
{
	return count - s * seg < seg ? count - s * seg : seg;
}

static int wa_worker(struct inc_comm *c, float *buf, size_t count,
		     const struct inc_allreduce_opts *o, size_t seg, unsigned algo)
{
	int mode = (int)o->compression, fd = c->wa_up.fd, rc, progress;
	int tagged = mode == INC_COMP_NIC, dirty = 0;
	size_t nsegs = (count + seg - 1) / seg, s_seg = 0, r_seg = 0, slen;
	size_t smax = SEG_STAGE_MAX(seg);
	struct msg_out mo = { 0 };
	struct msg_in mi = { 0 };
	int64_t last = inc_now_ms();
	uint8_t *stage;
	float hdr[HDR_FLOATS], hdr_in[HDR_FLOATS];
	int s_hdr = 1, r_hdr = 1;

	hdr_make(hdr, c, count, o, seg, algo);
	rc = scratch_reserve(c, smax);
	if (rc)
		return rc;
	stage = c->scratch;
	rc = retag(&c->wa_up, tagged ? o->tos : 0);
	if (rc)
		return fail(c, rc);
	if (tagged && inc_sock_set_cork(fd, 1))
		return fail(c, INC_E_SOCKET);
	while (s_hdr || r_hdr || s_seg < nsegs || r_seg < nsegs) {
		struct pollfd p;

		progress = 0;
		while (s_hdr || s_seg < nsegs) {
			size_t n = wa_seg_len(count, seg, s_seg);

			if (!mo.active && s_hdr) {
				out_hdr(&mo, hdr);
			} else if (!mo.active) {
				rc = out_start(c, &mo, buf + s_seg * seg, n, mode,
					       o->error_bound, 0, stage);
				if (rc)
					return fail(c, rc);
			}
			rc = out_pump(fd, &mo, c, &progress);
			if (rc < 0)
				return fail(c, rc);
			if (rc == 0)
				break;
			dirty = 1;
			if (s_hdr)
				s_hdr = 0;
			else
				s_seg++;
		}
		if (r_hdr) {
			rc = hdr_recv(fd, &mi, c, hdr_in, hdr, &slen, &progress);
			if (rc < 0)
				return fail(c, rc);
			r_hdr = rc == 0;
		}
		/* The sum of segment s comes back only after rank 0 has all of
		 * our segment s, so it may land in buf directly. */
		while (!r_hdr && r_seg < nsegs) {
			size_t n = wa_seg_len(count, seg, r_seg);

			if (!mi.active)
				in_start(&mi, (uint8_t *)(buf + r_seg * seg), n,
					 INC_COMP_NONE);
			rc = in_pump(fd, &mi, c, INC_COMP_NONE, n, NULL, &slen,
				     &progress);
			if (rc < 0)
				return fail(c, rc);
			if (rc == 0)
				break;
			r_seg++;
		}
		if (progress) {
			last = inc_now_ms();
			continue;
		}
		if (!s_hdr && !r_hdr && s_seg >= nsegs && r_seg >= nsegs)
			break;
		if (tagged && dirty && !mo.active) {
			flush_cork(fd);
			dirty = 0;
		}
		p.fd = fd;
		p.events = (short)((mo.active ? POLLOUT : 0) | POLLIN);
		p.revents = 0;
		rc = wait_io(&p, 1, &last, o->timeout_ms);
		if (rc)
			return fail(c, rc);
		if ((p.revents & (POLLERR | POLLHUP)) && !(p.revents & POLLIN))
			return fail(c, INC_E_CLOSED);
	}
	if (tagged)
		(void)inc_sock_set_cork(fd, 0);
	return 0;
}

struct wa_peer {
	struct msg_in mi;
	struct msg_out mo;
	size_t r_seg;          /* segments fully received (and staged) */
	size_t s_seg;          /* result segments fully sent */
	int staged;            /* segment r_seg is complete, waiting for the sum */
	int r_hdr, s_hdr;      /* call headers still to receive / send */
	float hdr_in[HDR_FLOATS];
	size_t slen;
	uint8_t *stage;        /* software stream */
	float *vals;           /* one segment of values */
};

static int wa_root(struct inc_comm *c, float *buf, size_t count,
		   const struct inc_allreduce_opts *o, size_t seg, unsigned algo,
		   inc_wa_update_fn update, void *arg)
{
	int n = c->size, mode = (int)o->compression, rc, progress, i, np;
	size_t nsegs = (count + seg - 1) / seg, reduced = 0;
	size_t smax = SEG_STAGE_MAX(seg), need;
	struct wa_peer *w;
	struct pollfd *p;
	int64_t last = inc_now_ms();
	uint8_t *mem;
	float hdr[HDR_FLOATS];

	hdr_make(hdr, c, count, o, seg, algo);

	need = (size_t)n * (sizeof(*w) + sizeof(*p) + smax + seg * 4 + 64);
	rc = scratch_reserve(c, need);
	if (rc)
		return rc;
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
		rc = retag(&c->wa[i], 0);
		if (rc)
			return fail(c, rc);
	}
	for (;;) {
		int done = 1;

		progress = 0;
		for (i = 1; i < n; i++) {
			struct wa_peer *x = &w[i];
			int fd = c->wa[i].fd;

			if (x->r_hdr) {
				rc = hdr_recv(fd, &x->mi, c, x->hdr_in, hdr, &x->slen,
					      &progress);
				if (rc < 0)
					return fail(c, rc);
				x->r_hdr = rc == 0;
			}
			/* Receive the next upward segment unless one waits. */
			while (!x->r_hdr && !x->staged && x->r_seg < nsegs) {
				size_t len = wa_seg_len(count, seg, x->r_seg);

				if (!x->mi.active)
					in_start(&x->mi, (uint8_t *)x->vals, len, mode);
				rc = in_pump(fd, &x->mi, c, mode, len, x->stage,
					     &x->slen, &progress);
				if (rc < 0)
					return fail(c, rc);
				if (rc == 0)
					break;
				if (mode == INC_COMP_SOFTWARE &&
				    seg_decompress(c, x->stage, x->slen, len, x->vals))
					return fail(c, INC_E_PROTOCOL);
				x->staged = 1;
			}
			/* Send the header, then the sums that are ready. */
			while (x->s_hdr || x->s_seg < reduced) {
				size_t len = wa_seg_len(count, seg, x->s_seg);

				if (!x->mo.active && x->s_hdr) {
					out_hdr(&x->mo, hdr);
				} else if (!x->mo.active) {
					(void)out_start(c, &x->mo, buf + x->s_seg * seg,
							len, INC_COMP_NONE, 0, 0, NULL);
				}
				rc = out_pump(fd, &x->mo, c, &progress);
				if (rc < 0)
					return fail(c, rc);
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
				add_f32(c, buf + reduced * seg, w[i].vals, len);
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
		rc = wait_io(p, np, &last, o->timeout_ms);
		if (rc)
			return fail(c, rc);
		for (i = 0; i < np; i++)
			if ((p[i].revents & (POLLERR | POLLHUP)) && !(p[i].revents & POLLIN))
				return fail(c, INC_E_CLOSED);
	}
	return 0;
}

int inc_wa_allreduce(struct inc_comm *c, float *buf, size_t count,
		     const struct inc_allreduce_opts *o,
		     inc_wa_update_fn update, void *arg)
{
	size_t seg = (o->segment_bytes ? o->segment_bytes : SEG_DEFAULT) / 4;
	unsigned algo = update ? HDR_ALGO_WA_UPDATE : (unsigned)o->algo;

	return c->rank == 0 ? wa_root(c, buf, count, o, seg, algo, update, arg)
			    : wa_worker(c, buf, count, o, seg, algo);
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                               */
/* ------------------------------------------------------------------------ */
/* Checks shared by the entry points: arguments, options (opts NULL: from
 * the environment) into *o, the communicator's state. Counts the call. */
static int call_begin(struct inc_comm *c, const float *buf, size_t count,
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
	if ((unsigned)o->compression > INC_COMP_SOFTWARE ||
	    (unsigned)o->algo > INC_ALGO_WA ||
	    o->error_bound < INC_EB_MIN || o->error_bound > INC_EB_MAX ||
	    o->timeout_ms <= 0 || o->segment_bytes % 32 ||
	    o->segment_bytes > SEG_MAX ||
	    (o->compression == INC_COMP_NIC && !o->tos))
		return INC_E_ARG;
	if (c->broken)
		return INC_E_BROKEN;
	c->seq++;     /* every call, so a rank that skips one is caught */
	return 0;
}

int inc_allreduce_f32(struct inc_comm *c, float *buf, size_t count,
		      const struct inc_allreduce_opts *opts)
{
	struct inc_allreduce_opts o;
	int rc = call_begin(c, buf, count, opts, &o);

	if (rc)
		return rc;
	if (c->size > 1 && count > 0)
		rc = o.algo == INC_ALGO_WA ? inc_wa_allreduce(c, buf, count, &o, NULL, NULL)
					   : inc_ring_allreduce(c, buf, count, &o);
	if (rc == 0)
		c->st.calls++;
	return rc;
}

int inc_wa_update_f32(struct inc_comm *c, float *buf, size_t count,
		      const struct inc_allreduce_opts *opts,
		      inc_wa_update_fn update, void *arg)
{
	struct inc_allreduce_opts o;
	int rc;

	if (!update)
		return INC_E_ARG;
	rc = call_begin(c, buf, count, opts, &o);
	if (rc)
		return rc;
	if (c->size == 1) {
		if (count)
			update(arg, buf, 0, count);
	} else if (count > 0) {
		rc = inc_wa_allreduce(c, buf, count, &o, update, arg);
	}
	if (rc == 0)
		c->st.calls++;
	return rc;
}
