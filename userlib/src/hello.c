// SPDX-License-Identifier: MIT
/*
 * hello.c - the rendezvous handshake on every link of a job (the master
 * port and the data listeners), the job's identity and secret
 * (docs/userlib.md, "Bootstrap").
 *
 * Three fixed-size messages, big-endian fields:
 *
 *   hello   (connector -> acceptor, 104 bytes)
 *   +------+---------+------+------+------+------+-------+----------+--------+
 *   | 0    | 4       | 6    | 8    | 12   | 16   | 20    | 24       | 40..103|
 *   | INCh | version | kind | rank | size | port | flags | nonce_c  | job id |
 *   +------+---------+------+------+------+------+-------+----------+--------+
 *   reply   (acceptor -> connector, 128 bytes)
 *   +------+--------+------+-----+----------+-------------+----------+
 *   | 0    | 4      | 8    | 12  | 16       | 32          | 64..127  |
 *   | INCr | status | rank | 0   | nonce_a  | mac_a       | job id   |
 *   +------+--------+------+-----+----------+-------------+----------+
 *   proof   (connector -> acceptor, 32 bytes, only with a secret): mac_c
 *
 * status 0 accepts (with a secret: "prove it"), else it is the enum
 * inc_refusal + 1 and the acceptor closes. With a secret, mac_a =
 * HMAC-SHA256(secret, "A" | hello | nonce_a) proves the acceptor to the
 * connector and mac_c = HMAC-SHA256(secret, "C" | hello | nonce_a) the
 * connector to the acceptor; each side's fresh nonce is in what the other
 * signs, so a recorded exchange cannot be replayed.
 *
 * On the control link the bytes go as they are. A data link carries
 * float32 values only (the NIC codec sees it from the first SYN), so there
 * every 16-bit word w goes as the float 65536 + w: integers in
 * [65536, 131071], which the codec passes unchanged (tag 3) and which keep
 * the byte stream on float boundaries. The listener sends its replies
 * untagged; its owner tags an accepted link afterwards.
 *
 * The acceptor side never blocks on one connection: one poll() loop
 * accepts, reads every open handshake as far as its bytes go, and closes
 * a connection that has not completed within its own deadline.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inc_internal.h"

#define HELLO_MAGIC 0x494e4368u   /* "INCh" */
#define REPLY_MAGIC 0x494e4372u   /* "INCr" */
#define FLAG_SECRET 1u
#define MAC_BYTES   32
#define PENDING_MAX 64            /* handshakes open at once */
#define MSG_MAX     INC_REPLY_BYTES

/* The log hook (inc_set_log, inc_log) lives in log.c. */

static const char *const refusal_names[INC_REFUSED_COUNT] = {
	"not_hello", "version", "truncated", "timeout", "job", "size", "rank", "duplicate",
	"secret", "overflow",
};

static const char *const refusal_text[INC_REFUSED_COUNT] = {
	"not a hello", "another protocol version", "closed inside its hello",
	"no complete hello within the deadline", "another job", "another world size",
	"a rank out of range or a link nobody expects", "a rank that is already there",
	"a wrong or missing secret", "too many handshakes open",
};

const char *inc_refusal_name(int reason)
{
	return reason >= 0 && reason < INC_REFUSED_COUNT ? refusal_names[reason] : NULL;
}

/* ------------------------------------------------------------------------ */
/* Job identity                                                              */
/* ------------------------------------------------------------------------ */
int inc_job_init(struct inc_job *j, int rank, int size, const char *default_id)
{
	const char *id = inc_env2("INC_JOB_ID", NULL), *secret = inc_env2("INC_JOB_SECRET", NULL);
	const char *v = inc_env2("INC_HELLO_TIMEOUT_MS", NULL);
	size_t i, n;
	long ms = 5000;

	memset(j, 0, sizeof(*j));
	j->rank = rank;
	j->size = size;
	if (v && inc_parse_long(v, 1, 3600000, &ms))
		return inc_env_refuse("INC_HELLO_TIMEOUT_MS", v,
				      "want a number 1..3600000 (decimal, or 0x hex)");
	j->hello_ms = (int)ms;
	if (id) {
		n = strlen(id);
		if (n > INC_JOB_ID_MAX)
			return inc_env_refuse("INC_JOB_ID", id, "longer than %d characters",
					      INC_JOB_ID_MAX);
		for (i = 0; i < n; i++)
			if (id[i] <= ' ' || id[i] > '~')
				return inc_env_refuse("INC_JOB_ID", id,
						      "want printable characters, no spaces");
		memcpy(j->id, id, n);
	} else {
		/* Printable by construction; truncated if very long. */
		snprintf(j->id, sizeof(j->id), "%s", default_id ? default_id : "");
		for (i = 0; j->id[i]; i++)
			if (j->id[i] <= ' ' || j->id[i] > '~')
				j->id[i] = '_';
	}
	/* Set but empty would silently mean "no authentication". */
	if (!secret && getenv("INC_JOB_SECRET"))
		return inc_env_refuse("INC_JOB_SECRET", "", "empty (unset it for a job "
				      "without a secret)");
	if (secret) {
		n = strlen(secret);
		if (n > sizeof(j->secret))
			return inc_env_refuse("INC_JOB_SECRET", "(not shown)",
					      "longer than %zu bytes", sizeof(j->secret));
		memcpy(j->secret, secret, n);
		j->secret_len = n;
		j->has_secret = 1;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Messages                                                                  */
/* ------------------------------------------------------------------------ */
static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void inc_hello_pack(uint8_t out[INC_HELLO_BYTES], const struct inc_hello *h)
{
	memset(out, 0, INC_HELLO_BYTES);
	put32(out, HELLO_MAGIC);
	out[4] = (uint8_t)(h->version >> 8);
	out[5] = (uint8_t)h->version;
	out[6] = (uint8_t)(h->kind >> 8);
	out[7] = (uint8_t)h->kind;
	put32(out + 8, h->rank);
	put32(out + 12, h->size);
	put32(out + 16, h->port);
	put32(out + 20, h->flags);
	memcpy(out + 24, h->nonce, sizeof(h->nonce));
	memcpy(out + 40, h->job, strnlen(h->job, INC_JOB_ID_MAX));
}

int inc_hello_unpack(struct inc_hello *h, const uint8_t in[INC_HELLO_BYTES])
{
	size_t n;

	memset(h, 0, sizeof(*h));
	if (get32(in) != HELLO_MAGIC)
		return INC_REFUSED_NOT_HELLO;
	h->version = (uint16_t)(in[4] << 8 | in[5]);
	h->kind = (uint16_t)(in[6] << 8 | in[7]);
	h->rank = get32(in + 8);
	h->size = get32(in + 12);
	h->port = get32(in + 16);
	h->flags = get32(in + 20);
	memcpy(h->nonce, in + 24, sizeof(h->nonce));
	/* The id: printable, NUL-padded to the end of the field. */
	n = strnlen((const char *)in + 40, INC_JOB_ID_MAX + 1);
	if (n > INC_JOB_ID_MAX)
		return INC_REFUSED_NOT_HELLO;
	for (size_t i = 0; i < n; i++)
		if (in[40 + i] <= ' ' || in[40 + i] > '~')
			return INC_REFUSED_NOT_HELLO;
	for (size_t i = 40 + n; i < INC_HELLO_BYTES; i++)
		if (in[i])
			return INC_REFUSED_NOT_HELLO;
	memcpy(h->job, in + 40, n);
	if (h->version != INC_HELLO_VERSION)
		return INC_REFUSED_VERSION;
	return -1;
}

void inc_words_to_floats(float *out, const uint8_t *in, size_t nbytes)
{
	size_t i;

	for (i = 0; i < nbytes / 2; i++)
		out[i] = (float)(65536u + ((unsigned)in[2 * i] << 8 | in[2 * i + 1]));
}

int inc_words_from_floats(uint8_t *out, const float *in, size_t nbytes)
{
	size_t i;

	for (i = 0; i < nbytes / 2; i++) {
		float f = in[i];
		unsigned w;

		/* NaN fails the range test; non-integers the round trip. */
		if (!(f >= 65536.0f && f <= 131071.0f))
			return -1;
		w = (unsigned)f;
		if ((float)w != f)
			return -1;
		out[2 * i] = (uint8_t)((w - 65536u) >> 8);
		out[2 * i + 1] = (uint8_t)(w - 65536u);
	}
	return 0;
}

static void mac(const struct inc_job *j, char who, const uint8_t *hello, const uint8_t *nonce_a,
		uint8_t out[MAC_BYTES])
{
	uint8_t msg[1 + INC_HELLO_BYTES + INC_NONCE_BYTES];
	unsigned len = MAC_BYTES;

	msg[0] = (uint8_t)who;
	memcpy(msg + 1, hello, INC_HELLO_BYTES);
	memcpy(msg + 1 + INC_HELLO_BYTES, nonce_a, INC_NONCE_BYTES);
	if (!HMAC(EVP_sha256(), j->secret, (int)j->secret_len, msg, sizeof(msg), out, &len))
		memset(out, 0, MAC_BYTES);   /* verifies against nothing */
}

static int nonce(uint8_t *n)
{
	return RAND_bytes(n, INC_NONCE_BYTES) == 1 ? 0 : INC_E_SOCKET;
}

/* ------------------------------------------------------------------------ */
/* Handshakes                                                                */
/* ------------------------------------------------------------------------ */
enum hs_state { HS_HELLO, HS_REPLY, HS_PROOF };

struct hs {
	int fd;
	enum hs_state state;
	int64_t deadline;
	size_t have, need;                 /* wire bytes */
	uint8_t wire[2 * MSG_MAX];
	uint8_t hello[INC_HELLO_BYTES];    /* as sent or received */
	uint8_t nonce_a[INC_NONCE_BYTES];
	struct inc_hello h;
	char from[64];                     /* the peer's address, for the log */
};

static size_t wire_bytes(const struct inc_rdv *r, size_t n)
{
	return r->data ? 2 * n : n;
}

/* Send message m of n bytes in the link's form. */
static int send_msg(const struct inc_rdv *r, int fd, const uint8_t *m, size_t n)
{
	float f[MSG_MAX / 2];

	if (!r->data)
		return inc_sock_write_all(fd, m, n, inc_now_ms() + 1000);
	inc_words_to_floats(f, m, n);
	return inc_sock_write_all(fd, f, 2 * n, inc_now_ms() + 1000);
}

/* The message in s->wire, back in bytes (m, s->need / (data ? 2 : 1)). */
static int wire_msg(const struct inc_rdv *r, const struct hs *s, uint8_t *m)
{
	float f[MSG_MAX / 2];

	if (!r->data) {
		memcpy(m, s->wire, s->need);
		return 0;
	}
	memcpy(f, s->wire, s->need);
	return inc_words_from_floats(m, f, s->need / 2);
}

static void expect(const struct inc_rdv *r, struct hs *s, enum hs_state st, size_t n)
{
	s->state = st;
	s->have = 0;
	s->need = wire_bytes(r, n);
}

static void peer_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char a[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET6) {
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, a, sizeof(a));
			port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
		} else if (ss.ss_family == AF_INET) {
			inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, a, sizeof(a));
			port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
		}
	}
	snprintf(buf, len, "%s:%u", a, port);
}

/* Refuse an incoming handshake: tell it why when it spoke our protocol,
 * close, count, log one line. */
static void refuse(struct inc_rdv *r, struct hs *s, int reason, int tell)
{
	if (tell) {
		uint8_t m[INC_REPLY_BYTES];

		memset(m, 0, sizeof(m));
		put32(m, REPLY_MAGIC);
		put32(m + 4, (uint32_t)reason + 1);
		put32(m + 8, (uint32_t)r->job->rank);
		memcpy(m + 64, r->job->id, strnlen(r->job->id, INC_JOB_ID_MAX));
		(void)send_msg(r, s->fd, m, sizeof(m));
	}
	close(s->fd);
	s->fd = -1;
	r->st->refused[reason]++;
	if (reason == INC_REFUSED_JOB)
		inc_log("rank %d: refused a connection from %s on the %s: %s ('%s', this job '%s')",
			r->job->rank, s->from, r->what, refusal_text[reason], s->h.job, r->job->id);
	else if (reason == INC_REFUSED_RANK || reason == INC_REFUSED_DUPLICATE ||
		 reason == INC_REFUSED_SIZE)
		inc_log("rank %d: refused a connection from %s on the %s: %s (rank %u of %u)",
			r->job->rank, s->from, r->what, refusal_text[reason], s->h.rank, s->h.size);
	else
		inc_log("rank %d: refused a connection from %s on the %s: %s", r->job->rank,
			s->from, r->what, refusal_text[reason]);
}

/* The slot a valid hello fills: 1 free, 0 refused with *reason. */
static int check_hello(struct inc_rdv *r, struct hs *s, int *reason)
{
	int *slot;

	*reason = inc_hello_unpack(&s->h, s->hello);
	if (*reason >= 0)
		return 0;
	if (strcmp(s->h.job, r->job->id)) {
		*reason = INC_REFUSED_JOB;
		return 0;
	}
	if (s->h.size != (uint32_t)r->job->size) {
		*reason = INC_REFUSED_SIZE;
		return 0;
	}
	if (!!(s->h.flags & FLAG_SECRET) != r->job->has_secret ||
	    (s->h.flags & ~FLAG_SECRET)) {
		*reason = INC_REFUSED_SECRET;
		return 0;
	}
	slot = s->h.rank < s->h.size ? r->slot(r->arg, &s->h) : NULL;
	if (!slot) {
		*reason = INC_REFUSED_RANK;
		return 0;
	}
	if (*slot >= 0) {
		*reason = INC_REFUSED_DUPLICATE;
		return 0;
	}
	return 1;
}

/* A complete message arrived on incoming handshake s: 1 accepted, 0 more
 * to come or refused (s->fd -1). */
static int in_step(struct inc_rdv *r, struct hs *s)
{
	uint8_t m[MSG_MAX], mc[MAC_BYTES];
	int reason, *slot;

	if (wire_msg(r, s, m)) {
		/* a word that is not a handshake float */
		refuse(r, s, s->state == HS_HELLO ? INC_REFUSED_NOT_HELLO : INC_REFUSED_SECRET, 0);
		return 0;
	}
	if (s->state == HS_HELLO) {
		memcpy(s->hello, m, INC_HELLO_BYTES);
		if (!check_hello(r, s, &reason)) {
			refuse(r, s, reason, reason != INC_REFUSED_NOT_HELLO);
			return 0;
		}
		memset(m, 0, INC_REPLY_BYTES);
		put32(m, REPLY_MAGIC);
		put32(m + 8, (uint32_t)r->job->rank);
		memcpy(m + 64, r->job->id, strnlen(r->job->id, INC_JOB_ID_MAX));
		if (r->job->has_secret) {
			if (nonce(s->nonce_a)) {
				refuse(r, s, INC_REFUSED_SECRET, 0);
				return 0;
			}
			memcpy(m + 16, s->nonce_a, INC_NONCE_BYTES);
			mac(r->job, 'A', s->hello, s->nonce_a, m + 32);
		}
		if (send_msg(r, s->fd, m, INC_REPLY_BYTES)) {
			refuse(r, s, INC_REFUSED_TRUNCATED, 0);
			return 0;
		}
		if (r->job->has_secret) {
			expect(r, s, HS_PROOF, MAC_BYTES);
			return 0;
		}
	} else {
		mac(r->job, 'C', s->hello, s->nonce_a, mc);
		if (CRYPTO_memcmp(mc, m, MAC_BYTES)) {
			refuse(r, s, INC_REFUSED_SECRET, 0);
			return 0;
		}
	}
	/* Another connection may have taken the slot meanwhile. */
	slot = r->slot(r->arg, &s->h);
	if (!slot || *slot >= 0) {
		refuse(r, s, slot ? INC_REFUSED_DUPLICATE : INC_REFUSED_RANK, 0);
		return 0;
	}
	*slot = s->fd;
	s->fd = -1;
	r->st->accepted++;
	inc_log("rank %d: rank %u joined from %s on the %s", r->job->rank, s->h.rank, s->from,
		r->what);
	if (r->accepted)
		r->accepted(r->arg, &s->h, *slot);
	return 1;
}

/* A complete reply on outgoing handshake s: 1 done, 0 proof to send (done
 * too), or INC_E_REFUSED. */
static int out_step(struct inc_rdv *r, struct hs *s)
{
	uint8_t m[MSG_MAX], mc[MAC_BYTES];
	uint32_t status, rank;
	char job[INC_JOB_ID_MAX + 1];

	if (wire_msg(r, s, m) || get32(m) != REPLY_MAGIC) {
		inc_log("rank %d: the %s answered something that is not a reply", r->job->rank,
			r->what);
		return INC_E_PROTOCOL;
	}
	status = get32(m + 4);
	rank = get32(m + 8);
	memcpy(job, m + 64, INC_JOB_ID_MAX);
	job[INC_JOB_ID_MAX] = '\0';
	for (size_t i = 0; job[i]; i++)
		if (job[i] <= ' ' || job[i] > '~')
			job[i] = '?';
	if (status) {
		if (status - 1 == INC_REFUSED_JOB)
			inc_log("rank %d: refused by rank %u on the %s: it runs job '%s', this rank job '%s'",
				r->job->rank, rank, r->what, job, r->job->id);
		else
			inc_log("rank %d: refused by rank %u (job '%s') on the %s: %s", r->job->rank,
				rank, job, r->what,
				status - 1 < INC_REFUSED_COUNT ? refusal_text[status - 1] : "?");
		return INC_E_REFUSED;
	}
	if (!r->job->has_secret)
		return 1;
	mac(r->job, 'A', s->hello, m + 16, mc);
	if (CRYPTO_memcmp(mc, m + 32, MAC_BYTES)) {
		/* Our proof still goes, so the listener counts a wrong secret. */
		mac(r->job, 'C', s->hello, m + 16, mc);
		(void)send_msg(r, s->fd, mc, MAC_BYTES);
		inc_log("rank %d: rank %u (job '%s') on the %s does not share this rank's secret",
			r->job->rank, rank, job, r->what);
		return INC_E_REFUSED;
	}
	mac(r->job, 'C', s->hello, m + 16, mc);
	return send_msg(r, s->fd, mc, MAC_BYTES) ? INC_E_CLOSED : 1;
}

/* Read what is there: 1 a message is complete, 0 not yet, -1 closed with
 * s->have bytes, -2 error. */
static int pump(struct hs *s)
{
	while (s->have < s->need) {
		ssize_t n = recv(s->fd, s->wire + s->have, s->need - s->have, MSG_DONTWAIT);

		if (n > 0) {
			s->have += (size_t)n;
			continue;
		}
		if (n == 0)
			return -1;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return errno == ECONNRESET ? -1 : -2;
	}
	return 1;
}

static void untag(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
		(void)inc_sock_set_tos(fd, ss.ss_family, 0);
}

/* Do the bytes of a hello so far start as a hello does? */
static int magic_ok(const struct inc_rdv *r, const struct hs *s)
{
	uint8_t m[4];
	float f[2];

	if (s->state != HS_HELLO || s->have < wire_bytes(r, 4))
		return 1;
	if (r->data) {
		memcpy(f, s->wire, sizeof(f));
		if (inc_words_from_floats(m, f, 4))
			return 0;
	} else {
		memcpy(m, s->wire, 4);
	}
	return get32(m) == HELLO_MAGIC;
}

/* Take incoming handshake s as far as its bytes go: 1 accepted, -1 gone
 * (refused, closed), 0 waiting for more. */
static int in_advance(struct inc_rdv *r, struct hs *s)
{
	int pu;

	while (s->fd >= 0) {
		pu = pump(s);
		if (pu <= 0 && !magic_ok(r, s)) {
			/* another protocol: no need to wait for more */
			refuse(r, s, INC_REFUSED_NOT_HELLO, 0);
			return -1;
		}
		if (pu == 0)
			return 0;
		if (pu < 0) {
			if (s->have == 0 && s->state == HS_HELLO) {
				r->st->closed_early++;
				close(s->fd);
				s->fd = -1;
			} else {
				refuse(r, s, INC_REFUSED_TRUNCATED, 0);
			}
			return -1;
		}
		if (in_step(r, s))
			return 1;
	}
	return -1;
}

int inc_rdv_accept_fd(struct inc_rdv *r, int fd)
{
	struct hs *s = calloc(1, sizeof(*s));
	int k = -1;

	if (!s) {
		close(fd);
		return INC_E_NOMEM;
	}
	s->fd = fd;
	s->deadline = r->deadline;
	snprintf(s->from, sizeof(s->from), "fd %d", fd);
	expect(r, s, HS_HELLO, INC_HELLO_BYTES);
	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int64_t left;

		k = in_advance(r, s);
		if (k)
			break;
		left = s->deadline - inc_now_ms();
		if (left <= 0) {
			refuse(r, s, INC_REFUSED_TIMEOUT, 0);
			break;
		}
		(void)poll(&pf, 1, (int)left);
	}
	free(s);
	return k > 0;
}

int inc_hello_out(struct inc_rdv *r, struct inc_rdv_out *o, int kind, uint32_t port)
{
	struct inc_hello h;
	uint8_t m[INC_HELLO_BYTES];

	memset(&h, 0, sizeof(h));
	h.version = INC_HELLO_VERSION;
	h.kind = (uint16_t)kind;
	h.rank = (uint32_t)r->job->rank;
	h.size = (uint32_t)r->job->size;
	h.port = port;
	h.flags = r->job->has_secret ? FLAG_SECRET : 0;
	if (r->job->has_secret && nonce(h.nonce))
		return INC_E_SOCKET;
	memcpy(h.job, r->job->id, sizeof(h.job));
	inc_hello_pack(m, &h);
	memcpy(o->hello, m, sizeof(m));
	o->done = 0;
	return send_msg(r, o->fd, m, sizeof(m));
}

int inc_rdv_run(struct inc_rdv *r, struct inc_rdv_out *out, int n_out, int want_in)
{
	struct hs *hs = calloc(PENDING_MAX + (size_t)n_out, sizeof(*hs));
	struct pollfd *p = calloc(PENDING_MAX + (size_t)n_out + 1, sizeof(*p));
	int got = 0, left = 0, rc = 0, i, k;

	if (!hs || !p) {
		free(hs);
		free(p);
		return INC_E_NOMEM;
	}
	/* Outgoing handshakes first: their hellos are sent, replies due. */
	for (i = 0; i < n_out; i++) {
		struct hs *s = &hs[PENDING_MAX + i];

		s->fd = out[i].done ? -1 : out[i].fd;
		memcpy(s->hello, out[i].hello, INC_HELLO_BYTES);
		s->deadline = r->deadline;
		expect(r, s, HS_REPLY, INC_REPLY_BYTES);
		left += !out[i].done;
	}
	for (i = 0; i < PENDING_MAX; i++)
		hs[i].fd = -1;
	while (left > 0 || got < want_in) {
		int64_t now = inc_now_ms(), next = r->deadline;
		int np = 0, listening = r->lfd >= 0 && got < want_in, pr;

		if (now >= r->deadline) {
			rc = INC_E_CONNECT;
			break;
		}
		/* Strangers past their deadline go; the others are polled. */
		for (i = 0; i < PENDING_MAX + n_out; i++) {
			struct hs *s = &hs[i];

			if (s->fd < 0)
				continue;
			if (i < PENDING_MAX && now >= s->deadline) {
				refuse(r, s, INC_REFUSED_TIMEOUT, 0);
				continue;
			}
			if (s->deadline < next)
				next = s->deadline;
			p[np].fd = s->fd;
			p[np].events = POLLIN;
			p[np].revents = 0;
			np++;
		}
		if (listening) {
			p[np].fd = r->lfd;
			p[np].events = POLLIN;
			p[np].revents = 0;
			np++;
		}
		pr = poll(p, (nfds_t)np, (int)(next - now > 0 ? next - now : 0));
		if (pr < 0 && errno != EINTR) {
			rc = INC_E_SOCKET;
			break;
		}
		/* New connections. */
		while (listening) {
			int fd = accept4(r->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

			if (fd < 0) {
				if (errno == EAGAIN || errno == EWOULDBLOCK)
					break;
				if (errno == EINTR || errno == ECONNABORTED)
					continue;
				/* out of descriptors and the like: try again later */
				break;
			}
			/* as every data socket: no Nagle delay */
			(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
			/* The listener's replies go untagged (the connecting side
			 * stays tagged); an accepted link gets its ToS back from
			 * its owner (comm.c). Either way they are floats the
			 * codec passes. */
			if (r->data)
				untag(fd);
			/* A free place, else the oldest open handshake goes: a
			 * flood of silent connections cannot keep a rank out. */
			for (k = 0; k < PENDING_MAX && hs[k].fd >= 0; k++)
				;
			if (k == PENDING_MAX) {
				int old = 0;

				for (k = 1; k < PENDING_MAX; k++)
					if (hs[k].deadline < hs[old].deadline)
						old = k;
				k = old;
				refuse(r, &hs[k], INC_REFUSED_OVERFLOW, 0);
			}
			memset(&hs[k], 0, sizeof(hs[k]));
			hs[k].fd = fd;
			hs[k].deadline = inc_now_ms() + r->job->hello_ms;
			if (hs[k].deadline > r->deadline)
				hs[k].deadline = r->deadline;
			peer_name(fd, hs[k].from, sizeof(hs[k].from));
			expect(r, &hs[k], HS_HELLO, INC_HELLO_BYTES);
			/* Its hello is usually there already: a rank is in
			 * before the connections behind it are accepted. */
			got += in_advance(r, &hs[k]) > 0;
			if (got >= want_in)
				break;
		}
		/* Every open handshake as far as its bytes go. */
		for (i = 0; i < PENDING_MAX + n_out && rc == 0; i++) {
			struct hs *s = &hs[i];
			int pu;

			if (s->fd < 0)
				continue;
			if (i < PENDING_MAX) {
				got += in_advance(r, s) > 0;
				continue;
			}
			/* one of ours */
			pu = pump(s);
			if (pu == 0)
				continue;
			rc = pu < 0 ? INC_E_CLOSED : out_step(r, s);
			if (rc < 0)
				break;
			rc = 0;
			out[i - PENDING_MAX].done = 1;
			s->fd = -1;
			left--;
		}
		if (rc)
			break;
	}
	/* Whoever is still in a handshake is not needed (or rc failed). */
	for (i = 0; i < PENDING_MAX; i++)
		if (hs[i].fd >= 0)
			refuse(r, &hs[i], INC_REFUSED_TIMEOUT, 0);
	free(hs);
	free(p);
	return rc;
}
