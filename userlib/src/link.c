// SPDX-License-Identifier: MIT
/*
 * link.c - the data links of a communicator: a ring (send to rank+1,
 * receive from rank-1), the worker-aggregator links (every rank > 0 to
 * rank 0) and, on demand, the peer links of the point-to-point exchange;
 * the address table the bootstraps exchange to find the data listeners,
 * and the end of a bootstrap.
 *
 * Every connection, to the master port or to a data listener, starts with
 * the handshake of hello.c (magic, version, job id, world size, rank,
 * link kind; an HMAC challenge-response with INC_JOB_SECRET); strangers are
 * refused and counted, the job goes on (docs/userlib.md, "Bootstrap").
 * Data sockets never carry anything but float32 values, the handshake
 * included.
 *
 * An address table entry (INC_ADDR_ENTRY_BYTES = 24 bytes): family 4/6,
 * pad, port (big-endian), 16 address bytes, pad.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inc_internal.h"

void inc_addr_entry_put(uint8_t *e, const struct sockaddr_storage *ss, uint16_t port)
{
	memset(e, 0, INC_ADDR_ENTRY_BYTES);
	if (ss->ss_family == AF_INET6) {
		e[0] = 6;
		memcpy(e + 4, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	} else if (ss->ss_family == AF_INET) {
		e[0] = 4;
		memcpy(e + 4, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	}
	e[2] = (uint8_t)(port >> 8);
	e[3] = (uint8_t)port;
}

int inc_addr_entry_get(const uint8_t *e, struct sockaddr_storage *ss, socklen_t *len)
{
	uint16_t port = (uint16_t)(e[2] << 8 | e[3]);

	memset(ss, 0, sizeof(*ss));
	if (e[0] == 6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, e + 4, 16);
		s6->sin6_port = htons(port);
		*len = sizeof(*s6);
	} else if (e[0] == 4) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, e + 4, 4);
		s4->sin_port = htons(port);
		*len = sizeof(*s4);
	} else {
		return INC_E_PROTOCOL;
	}
	return 0;
}

/* Which descriptor a data-link hello fills: ring and WA links during the
 * bootstrap, peer links in inc_comm_connect_peers. */
struct data_rdv {
	struct inc_comm *c;
	int peers;
};

static int *data_slot(void *arg, const struct inc_hello *h)
{
	struct data_rdv *d = arg;
	struct inc_comm *c = d->c;
	int n = c->size, r = c->rank, from = (int)h->rank;

	if (d->peers)
		return h->kind == INC_LINK_PEER && from != r ? &c->peer_recv[from].fd : NULL;
	if (h->kind == INC_LINK_RING)
		return from == (r + n - 1) % n ? &c->ring_recv.fd : NULL;
	if (h->kind == INC_LINK_WA)
		return r == 0 && from > 0 ? &c->wa[from].fd : NULL;
	return NULL;
}

void inc_comm_rdv_init(struct inc_rdv *rv, struct inc_comm *c, const char *what, int lfd,
		       int data, int64_t deadline)
{
	memset(rv, 0, sizeof(*rv));
	rv->job = &c->job;
	rv->what = what;
	rv->lfd = lfd;
	rv->data = data;
	rv->deadline = deadline;
	rv->st = &c->bst;
}

/* Connect data link l to addr and send the hello of kind (o: its
 * handshake, finished by inc_rdv_run). */
static int link_connect(struct inc_rdv *rv, struct inc_link *l, struct inc_rdv_out *o,
			const struct sockaddr_storage *addr, socklen_t alen, uint8_t tos,
			int kind, int64_t deadline)
{
	int rc = inc_sock_connect((const struct sockaddr *)addr, alen, NULL, tos, 1, deadline,
				  &l->fd);

	if (rc)
		return rc;
	l->family = addr->ss_family;
	l->tos_now = tos;
	o->fd = l->fd;
	return inc_hello_out(rv, o, kind, 0);
}

/* An accepted data link: its family; with tos >= 0 the ToS inherited from
 * the listener, set again to verify it. */
static int link_accepted(struct inc_link *l, int tos)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(l->fd, (struct sockaddr *)&ss, &sl) < 0)
		return INC_E_SOCKET;
	l->family = ss.ss_family;
	l->tos_now = tos;
	return tos >= 0 ? inc_sock_set_tos(l->fd, l->family, (uint8_t)tos) : 0;
}

int inc_comm_connect_data(struct inc_comm *c, int lfd,
			  const struct sockaddr_storage *addrs,
			  const socklen_t *alens, uint8_t tos,
			  int64_t deadline)
{
	int n = c->size, r = c->rank, next = (r + 1) % n, no = 0, i, rc;
	struct data_rdv d = { c, 0 };
	struct inc_rdv_out o[2];
	struct inc_rdv rv;

	if (n == 1)
		return 0;
	inc_comm_rdv_init(&rv, c, "data listener", lfd, 1, deadline);
	rv.slot = data_slot;
	rv.arg = &d;
	rc = link_connect(&rv, &c->ring_send, &o[no++], &addrs[next], alens[next], tos,
			  INC_LINK_RING, deadline);
	if (rc)
		return rc;
	if (r > 0) {
		rc = link_connect(&rv, &c->wa_up, &o[no++], &addrs[0], alens[0], tos,
				  INC_LINK_WA, deadline);
		if (rc)
			return rc;
	}
	/* ring link from prev (+ N-1 WA links at rank 0) */
	rc = inc_rdv_run(&rv, o, no, r == 0 ? n : 1);
	if (rc)
		return rc;
	rc = link_accepted(&c->ring_recv, tos);
	for (i = 1; r == 0 && i < n && !rc; i++)
		rc = link_accepted(&c->wa[i], tos);
	if (rc)
		return rc;
	{
		int mss = 0;
		socklen_t ml = sizeof(mss);

		if (getsockopt(c->ring_send.fd, IPPROTO_TCP, TCP_MAXSEG, &mss,
			       &ml) == 0)
			c->st.send_mss = (unsigned)mss;
	}
	return 0;
}

/*
 * Peer links for point-to-point exchanges: every rank connects to every
 * other rank's data listener (the connects complete in the listeners'
 * backlogs, so the order does not matter) and then accepts one link from
 * each, both sides' handshakes in one loop. Collective: the first
 * inc_sendrecv_f32 of a communicator does it on every rank. Links start
 * untagged; calls retag them.
 */
int inc_comm_connect_peers(struct inc_comm *c, int64_t deadline)
{
	int n = c->size, r = c->rank, j, no = 0, rc;
	struct data_rdv d = { c, 1 };
	struct inc_rdv_out *o;
	struct inc_rdv rv;

	if (c->peer_send)
		return 0;
	if (c->data_lfd < 0 || !c->addrs)
		return INC_E_BROKEN;
	{
		struct inc_link *ps = malloc(sizeof(*ps) * (size_t)n);
		struct inc_link *pr = malloc(sizeof(*pr) * (size_t)n);

		/* Both or neither: inc_fail and inc_comm_free close what they
		 * find in the arrays, so nothing uninitialised may be seen. */
		if (!ps || !pr) {
			free(ps);
			free(pr);
			return INC_E_NOMEM;
		}
		for (j = 0; j < n; j++) {
			inc_link_init(&ps[j]);
			inc_link_init(&pr[j]);
		}
		c->peer_send = ps;
		c->peer_recv = pr;
	}
	o = calloc((size_t)n, sizeof(*o));
	if (!o)
		return INC_E_NOMEM;
	inc_comm_rdv_init(&rv, c, "data listener", c->data_lfd, 1, deadline);
	rv.slot = data_slot;
	rv.arg = &d;
	rc = 0;
	for (j = 0; j < n && !rc; j++)
		if (j != r)
			rc = link_connect(&rv, &c->peer_send[j], &o[no++], &c->addrs[j],
					  c->alens[j], 0, INC_LINK_PEER, deadline);
	if (!rc)
		rc = inc_rdv_run(&rv, o, no, n - 1);
	free(o);
	for (j = 0; j < n && !rc; j++)
		if (j != r)
			rc = link_accepted(&c->peer_recv[j], -1);
	return rc;
}

/*
 * The rendezvous tables, one row per rank: data-socket addresses, their
 * lengths, and the INC_ADDR_ENTRY_BYTES entries exchanged. Whatever was
 * allocated is freed by inc_comm_boot_done, also on failure.
 */
int inc_addr_tables_alloc(int size, struct sockaddr_storage **addrs,
			  socklen_t **alens, uint8_t **table)
{
	*addrs = calloc((size_t)size, sizeof(**addrs));
	*alens = calloc((size_t)size, sizeof(**alens));
	*table = calloc((size_t)size, INC_ADDR_ENTRY_BYTES);
	return *addrs && *alens && *table ? 0 : INC_E_NOMEM;
}

/* End of a bootstrap: hand out c on success — it keeps the data listener
 * and the address table for the peer links (inc_comm_connect_peers) — or
 * close and free them and destroy c on failure (rc). */
int inc_comm_boot_done(struct inc_comm *c, int rc, int lfd,
		       struct sockaddr_storage *addrs, socklen_t *alens,
		       uint8_t *table, struct inc_comm **out)
{
	free(table);
	if (rc || !c) {
		if (lfd >= 0)
			close(lfd);
		free(addrs);
		free(alens);
		if (c)
			inc_comm_free(c);
		return rc;
	}
	c->data_lfd = lfd;
	c->addrs = addrs;
	c->alens = alens;
	*out = c;
	return 0;
}
