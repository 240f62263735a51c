// SPDX-License-Identifier: MIT
/*
 * fuzz_peer_bytes.c - libFuzzer target for everything a peer's bytes reach
 * in libinceptionn before and at the start of a call: the rendezvous
 * handshake (userlib/src/hello.c) as acceptor on the master port and on a
 * data listener, its reply as connector, and the call header and segment
 * framing of a data link (transport.c). The bytes arrive through a socket
 * pair, as from a peer, and end with the peer's close.
 *
 * Input: byte 0 selects (bits 0-1: 0 control acceptor, 1 data acceptor,
 * 2 connector, 3 call; bit 2: a secret / data form; bits 3-7: world size or
 * compression mode), bytes 1-2 a value count for calls; the rest is what
 * the peer sends. Invariants:
 * - no crash, no sanitizer report, no hang (every path ends at the close);
 * - acceptor: a connection is accepted (its descriptor in the slot, the
 *   hello's rank in range and its job id ours) or refused and counted once;
 * - connector: 0, INC_E_REFUSED, INC_E_PROTOCOL or INC_E_CLOSED;
 * - call: the header is taken only when equal to ours; segments end in 0,
 *   INC_E_PROTOCOL or INC_E_CLOSED, decoding in 0 or INC_E_PROTOCOL.
 *
 * Built with -DFUZZ_PEER_SEEDS it is instead a program that writes seed
 * inputs (valid hellos, replies, headers and segments) into a directory.
 */
#include "inc_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef FUZZ_PEER_SEEDS
#include "fuzz_common.h"
#endif

#define JOB_ID "fuzz-job"

#ifndef FUZZ_PEER_SEEDS
/* ------------------------------------------------------------------------ */
/* Rendezvous                                                                */
/* ------------------------------------------------------------------------ */
struct slots {
	int fd[64];
	int kind, me;
};

static int *slot(void *arg, const struct inc_hello *h)
{
	struct slots *s = arg;

	if (h->kind != s->kind || h->rank >= 64 || (int)h->rank == s->me)
		return NULL;
	return &s->fd[h->rank];
}

static void job_make(struct inc_job *j, int rank, int size, int secret)
{
	memset(j, 0, sizeof(*j));
	j->rank = rank;
	j->size = size;
	j->hello_ms = 1000;
	snprintf(j->id, sizeof(j->id), "%s", JOB_ID);
	if (secret) {
		memcpy(j->secret, "fuzz-secret", 11);
		j->secret_len = 11;
		j->has_secret = 1;
	}
}

static void peer_send(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		FUZZ_ASSERT(k > 0);
		p += k;
		n -= (size_t)k;
	}
	shutdown(fd, SHUT_WR);
}

static void acceptor(int data, int secret, int size, const uint8_t *p, size_t n)
{
	struct inc_bootstrap_stats st;
	struct inc_job job;
	struct slots sl;
	struct inc_rdv r;
	uint64_t refused = 0;
	int sv[2], k, i, got = -1;

	FUZZ_ASSERT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
	memset(&st, 0, sizeof(st));
	for (i = 0; i < 64; i++)
		sl.fd[i] = -1;
	sl.kind = data ? INC_LINK_PEER : INC_LINK_CTRL;
	sl.me = 0;
	job_make(&job, 0, size, secret);
	memset(&r, 0, sizeof(r));
	r.job = &job;
	r.what = data ? "data listener" : "master port";
	r.lfd = -1;
	r.data = data;
	r.deadline = inc_now_ms() + 5000;
	r.slot = slot;
	r.arg = &sl;
	r.st = &st;
	peer_send(sv[1], p, n);
	k = inc_rdv_accept_fd(&r, sv[0]);
	for (i = 0; i < INC_REFUSED_COUNT; i++)
		refused += st.refused[i];
	for (i = 0; i < 64; i++)
		if (sl.fd[i] >= 0) {
			FUZZ_ASSERT(got < 0);
			got = i;
		}
	if (k == 1) {
		FUZZ_ASSERT(got > 0 && got < size && sl.fd[got] == sv[0]);
		FUZZ_ASSERT(st.accepted == 1 && refused == 0);
		close(sv[0]);
	} else {
		FUZZ_ASSERT(k == 0 && got < 0 && st.accepted == 0);
		FUZZ_ASSERT(refused + st.closed_early == 1);
		FUZZ_ASSERT(refused == 0 || n > 0);
	}
	close(sv[1]);
}

static void connector(int data, int secret, const uint8_t *p, size_t n)
{
	struct inc_bootstrap_stats st;
	struct inc_rdv_out o;
	struct inc_job job;
	struct inc_rdv r;
	int sv[2], rc;

	FUZZ_ASSERT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
	memset(&st, 0, sizeof(st));
	job_make(&job, 1, 4, secret);
	memset(&r, 0, sizeof(r));
	r.job = &job;
	r.what = "master port";
	r.lfd = -1;
	r.data = data;
	r.deadline = inc_now_ms() + 5000;
	r.st = &st;
	o.fd = sv[0];
	FUZZ_ASSERT(inc_hello_out(&r, &o, data ? INC_LINK_RING : INC_LINK_CTRL, 1234) == 0);
	peer_send(sv[1], p, n);
	rc = inc_rdv_run(&r, &o, 1, 0);
	FUZZ_ASSERT(rc == 0 || rc == INC_E_REFUSED || rc == INC_E_PROTOCOL || rc == INC_E_CLOSED);
	FUZZ_ASSERT(rc != 0 || o.done);
	close(sv[0]);
	close(sv[1]);
}
#endif

/* ------------------------------------------------------------------------ */
/* Call header and segments                                                  */
/* ------------------------------------------------------------------------ */
static void call_opts(struct inc_allreduce_opts *o, int mode)
{
	memset(o, 0, sizeof(*o));
	o->compression = (enum inc_compression)mode;
	o->algo = INC_ALGO_RING;
	o->error_bound = 10;
	o->timeout_ms = 1000;
	o->segment_bytes = 4096;   /* 1024 values a segment */
	o->tos = 0x28;
}

#ifndef FUZZ_PEER_SEEDS
static void call(int mode, size_t count, const uint8_t *p, size_t n)
{
	const struct inc_seg_codec *sc = inc_seg_codec((enum inc_compression)mode);
	float h[INC_HDR_FLOATS], h_in[INC_HDR_FLOATS], *out;
	struct inc_allreduce_opts o;
	struct inc_msg_in m;
	struct inc_comm *c;
	size_t seg, slen = 0, left;
	uint8_t *stage;
	int sv[2], rc, progress = 0;

	FUZZ_ASSERT(sc);
	FUZZ_ASSERT(inc_comm_alloc(&c, 1, 2) == 0);
	FUZZ_ASSERT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
	call_opts(&o, mode);
	seg = inc_seg_values(&o);
	stage = malloc(inc_seg_stage_max(seg));
	out = malloc(seg * sizeof(*out));
	FUZZ_ASSERT(stage && out);
	inc_hdr_make(h, c, count, &o, INC_HDR_RING);
	peer_send(sv[1], p, n);
	memset(&m, 0, sizeof(m));
	rc = inc_hdr_recv(sv[0], &m, c, h_in, h, &progress);
	FUZZ_ASSERT(rc == 1 || rc == 0 || rc == INC_E_PROTOCOL || rc == INC_E_CLOSED);
	if (rc == 1)
		FUZZ_ASSERT(!memcmp(h, h_in, sizeof(h)));
	/* The call's segments, as a ring step receives them. */
	for (left = count; rc == 1 && left > 0;) {
		size_t k = left < seg ? left : seg;

		memset(&m, 0, sizeof(m));
		inc_in_start(&m, sc, (uint8_t *)out, k);
		rc = inc_in_pump(sv[0], &m, c, sc, k, stage, &slen, &progress);
		FUZZ_ASSERT(rc == 1 || rc == 0 || rc == INC_E_PROTOCOL || rc == INC_E_CLOSED);
		if (rc != 1)
			break;
		if (sc->framed) {
			FUZZ_ASSERT(slen >= sc->min_bytes(k) && slen <= sc->max_bytes(k));
			rc = inc_in_decode(c, sc, stage, slen, k, out);
			FUZZ_ASSERT(rc == 0 || rc == INC_E_PROTOCOL);
			rc = rc == 0;
		}
		left -= k;
	}
	free(stage);
	free(out);
	close(sv[0]);
	close(sv[1]);
	inc_comm_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned sel, hi;
	size_t count;

	if (size < 3)
		return 0;
	sel = data[0] & 3;
	hi = data[0] >> 3;
	count = ((size_t)data[1] | (size_t)data[2] << 8) % 5000 + 1;
	switch (sel) {
	case 0:
	case 1:
		acceptor(sel, (data[0] >> 2) & 1, (int)(hi % 7) + 2, data + 3, size - 3);
		break;
	case 2:
		connector((data[0] >> 2) & 1, 0, data + 3, size - 3);
		break;
	default:
		call((int)(hi % INC_COMP_COUNT), count, data + 3, size - 3);
		break;
	}
	return 0;
}

#else
/* ------------------------------------------------------------------------ */
/* Seeds                                                                     */
/* ------------------------------------------------------------------------ */
static const char *dir;
static int nseed;

static void seed(uint8_t sel, size_t count, const void *a, size_t an, const void *b, size_t bn)
{
	char path[4096];
	uint8_t head[3] = { sel, (uint8_t)(count - 1), (uint8_t)((count - 1) >> 8) };
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%03d", dir, nseed++);
	f = fopen(path, "wb");
	if (!f || fwrite(head, 1, 3, f) != 3 || (an && fwrite(a, 1, an, f) != an) ||
	    (bn && fwrite(b, 1, bn, f) != bn) || fclose(f)) {
		fprintf(stderr, "fuzz_peer_seeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void hello_seed(uint8_t sel, int data, int kind, int rank, int size)
{
	struct inc_hello h;
	uint8_t m[INC_HELLO_BYTES];
	float f[INC_HELLO_BYTES / 2];

	memset(&h, 0, sizeof(h));
	h.version = INC_HELLO_VERSION;
	h.kind = (uint16_t)kind;
	h.rank = (uint32_t)rank;
	h.size = (uint32_t)size;
	h.port = 1234;
	snprintf(h.job, sizeof(h.job), "%s", JOB_ID);
	inc_hello_pack(m, &h);
	if (!data) {
		seed(sel, 1, m, sizeof(m), NULL, 0);
		return;
	}
	inc_words_to_floats(f, m, sizeof(m));
	seed(sel, 1, f, sizeof(f), NULL, 0);
}

static void reply_seed(uint8_t sel, int data, uint32_t status)
{
	uint8_t m[INC_REPLY_BYTES];
	float f[INC_REPLY_BYTES / 2];

	memset(m, 0, sizeof(m));
	m[0] = 'I', m[1] = 'N', m[2] = 'C', m[3] = 'r';
	m[7] = (uint8_t)status;
	memcpy(m + 64, JOB_ID, strlen(JOB_ID));
	if (!data) {
		seed(sel, 1, m, sizeof(m), NULL, 0);
		return;
	}
	inc_words_to_floats(f, m, sizeof(m));
	seed(sel, 1, f, sizeof(f), NULL, 0);
}

int main(int argc, char **argv)
{
	struct inc_allreduce_opts o;
	struct inc_comm *c;
	int mode;

	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_peer_seeds DIR\n");
		return 2;
	}
	dir = argv[1];
	/* world size 4 is hi % 7 == 2: hi = 2 */
	hello_seed(0 | 2 << 3, 0, INC_LINK_CTRL, 1, 4);
	hello_seed(0 | 4 | 2 << 3, 0, INC_LINK_CTRL, 2, 4);
	hello_seed(1 | 2 << 3, 1, INC_LINK_PEER, 3, 4);
	hello_seed(1 | 4 | 2 << 3, 1, INC_LINK_PEER, 1, 4);
	reply_seed(2, 0, 0);
	reply_seed(2, 0, 5);
	reply_seed(2 | 4, 1, 0);
	if (inc_comm_alloc(&c, 1, 2))
		return 1;
	for (mode = 0; mode < INC_COMP_COUNT; mode++) {
		const struct inc_seg_codec *sc = inc_seg_codec((enum inc_compression)mode);
		size_t count = 1500, k, len = 0;
		float h[INC_HDR_FLOATS], v[1024];
		uint8_t *msg = malloc(inc_seg_stage_max(1024) * 2 + sizeof(h)), *p;

		if (!msg)
			return 1;
		call_opts(&o, mode);
		inc_hdr_make(h, c, count, &o, INC_HDR_RING);
		memcpy(msg, h, sizeof(h));
		p = msg + sizeof(h);
		for (size_t left = count; left; left -= k) {
			k = left < 1024 ? left : 1024;
			for (size_t i = 0; i < k; i++)
				v[i] = (float)((int)(i * 37 % 201) - 100) * 0.01f;
			if (sc->framed) {
				long e = sc->encode(v, k, 10, p + 4, 7);

				if (e < 0)
					return 1;
				p[0] = (uint8_t)e, p[1] = (uint8_t)(e >> 8);
				p[2] = (uint8_t)(e >> 16), p[3] = (uint8_t)(e >> 24);
				memset(p + 4 + e, 0, INC_SEG_PAD(e));
				p += 4 + (size_t)e + INC_SEG_PAD(e);
			} else {
				memcpy(p, v, k * 4);
				p += k * 4;
			}
		}
		len = (size_t)(p - msg);
		seed((uint8_t)(3 | mode << 3), count, msg, len, NULL, 0);
		free(msg);
	}
	inc_comm_free(c);
	return 0;
}
#endif
