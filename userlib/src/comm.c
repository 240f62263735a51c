// SPDX-License-Identifier: MIT
/*
 * comm.c - communicator bootstrap (environment, torchrun style, or MPI)
 * and the data links: a ring (send to rank+1, receive from rank-1) and the
 * worker-aggregator links (every rank > 0 to rank 0).
 *
 * Control protocol (untagged TCP to INC_MASTER_ADDR:INC_MASTER_PORT):
 * each rank > 0 sends a 16-byte hello {"INC1", rank, size, data port}
 * (big-endian words); rank 0 answers with the table of N data addresses
 * (24 bytes each: family 4/6, pad, port, 16 address bytes, pad). Rank 0's
 * own entry is left zero: the others use the address they reached it at.
 *
 * Data hello: the connecting side sends three float32 values, all >= 1 so
 * the NIC codec passes them unchanged (tag 3): a magic number, rank + 1 and
 * link kind + 1. Data sockets never carry anything but float32 values.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef INC_WITH_MPI
#include <mpi.h>
#endif

#include "inc_internal.h"

#define CTRL_MAGIC  0x494e4331u   /* "INC1" */
#define DATA_MAGIC  1234567.0f
#define LINK_RING   0
#define LINK_WA     1
#define LINK_PEER   2
#define ENTRY_BYTES 24

static void link_init(struct inc_link *l)
{
	l->fd = -1;
	l->family = AF_INET;
	l->tos_now = 0;
}

int inc_comm_alloc(struct inc_comm **out, int rank, int size)
{
	struct inc_comm *c = calloc(1, sizeof(*c));
	int i;

	if (!c)
		return INC_E_NOMEM;
	c->rank = rank;
	c->size = size;
	c->ctrl_fd = -1;
	c->data_lfd = -1;
	link_init(&c->ring_send);
	link_init(&c->ring_recv);
	link_init(&c->wa_up);
	if (rank == 0 && size > 1) {
		c->ctrl = malloc(sizeof(int) * (size_t)size);
		c->wa = malloc(sizeof(*c->wa) * (size_t)size);
		if (!c->ctrl || !c->wa) {
			free(c->ctrl);
			free(c->wa);
			free(c);
			return INC_E_NOMEM;
		}
		for (i = 0; i < size; i++) {
			c->ctrl[i] = -1;
			link_init(&c->wa[i]);
		}
	}
	*out = c;
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void inc_comm_free(struct inc_comm *c)
{
	int i;

	if (!c)
		return;
	close_fd(&c->ctrl_fd);
	close_fd(&c->data_lfd);
	if (c->peer_send)
		for (i = 0; i < c->size; i++) {
			close_fd(&c->peer_send[i].fd);
			close_fd(&c->peer_recv[i].fd);
		}
	free(c->peer_send);
	free(c->peer_recv);
	free(c->addrs);
	free(c->alens);
	close_fd(&c->ring_send.fd);
	close_fd(&c->ring_recv.fd);
	close_fd(&c->wa_up.fd);
	if (c->ctrl)
		for (i = 0; i < c->size; i++)
			close_fd(&c->ctrl[i]);
	if (c->wa)
		for (i = 0; i < c->size; i++)
			close_fd(&c->wa[i].fd);
#ifdef INC_WITH_MPI
	if (c->mpi_finalize) {
		int fin = 0;

		MPI_Finalized(&fin);
		if (!fin)
			MPI_Finalize();
	}
#endif
	free(c->ctrl);
	free(c->wa);
	free(c->scratch);
	free(c->sk_arena);
	free(c);
}

int inc_comm_rank(const struct inc_comm *c)
{
	return c ? c->rank : INC_E_ARG;
}

int inc_comm_size(const struct inc_comm *c)
{
	return c ? c->size : INC_E_ARG;
}

int inc_comm_stats(const struct inc_comm *c, struct inc_comm_stats *st)
{
	if (!c || !st)
		return INC_E_ARG;
	*st = c->st;
	return 0;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void entry_put(uint8_t *e, const struct sockaddr_storage *ss, uint16_t port)
{
	memset(e, 0, ENTRY_BYTES);
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

static int entry_get(const uint8_t *e, struct sockaddr_storage *ss, socklen_t *len)
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

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

static int send_hello(int fd, int rank, int kind, int64_t deadline)
{
	float h[3] = { DATA_MAGIC, (float)rank + 1.0f, (float)kind + 1.0f };

	return inc_sock_write_all(fd, h, sizeof(h), deadline);
}

/* Connect data link l to addr and say who we are (hello of kind). */
static int link_connect(struct inc_link *l, const struct sockaddr_storage *addr,
			socklen_t alen, uint8_t tos, int rank, int kind, int64_t deadline)
{
	int rc = inc_sock_connect((const struct sockaddr *)addr, alen, tos, 1, deadline, &l->fd);

	if (rc)
		return rc;
	l->family = addr->ss_family;
	l->tos_now = tos;
	return send_hello(l->fd, rank, kind, deadline);
}

/*
 * Accept the next data link on lfd and read its hello: *from (a rank below
 * n) and *kind, the socket's address family in *family. Connections closed
 * before their hello (a connect retried for the MSS) are skipped. On error
 * nothing stays open.
 */
static int accept_hello(int lfd, int n, int64_t deadline, int *fd_out, int *from, int *kind,
			int *family)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	float h[3];
	int fd, rc;

	for (;;) {
		rc = inc_sock_accept(lfd, deadline, &fd);
		if (rc)
			return rc;
		rc = inc_sock_read_all(fd, h, sizeof(h), deadline);
		if (rc != INC_E_CLOSED)
			break;
		close(fd);
	}
	if (rc) {
		close(fd);
		return rc;
	}
	*from = (int)h[1] - 1;
	*kind = (int)h[2] - 1;
	if (h[0] != DATA_MAGIC || *from < 0 || *from >= n) {
		close(fd);
		return INC_E_PROTOCOL;
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		close(fd);
		return INC_E_SOCKET;
	}
	*family = ss.ss_family;
	*fd_out = fd;
	return 0;
}

int inc_comm_connect_data(struct inc_comm *c, int lfd,
			  const struct sockaddr_storage *addrs,
			  const socklen_t *alens, uint8_t tos,
			  int64_t deadline)
{
	int n = c->size, r = c->rank, next = (r + 1) % n, prev = (r + n - 1) % n;
	int want, got = 0, fd, rc;

	if (n == 1)
		return 0;
	rc = link_connect(&c->ring_send, &addrs[next], alens[next], tos, r, LINK_RING, deadline);
	if (rc)
		return rc;
	if (r > 0) {
		rc = link_connect(&c->wa_up, &addrs[0], alens[0], tos, r, LINK_WA, deadline);
		if (rc)
			return rc;
	}
	want = r == 0 ? n : 1;   /* ring link from prev (+ N-1 WA links) */
	while (got < want) {
		int from, kind, family;
		struct inc_link *l = NULL;

		rc = accept_hello(lfd, n, deadline, &fd, &from, &kind, &family);
		if (rc)
			return rc;
		if (kind == LINK_RING)
			l = from == prev ? &c->ring_recv : NULL;
		else if (kind == LINK_WA)
			l = r == 0 && from > 0 ? &c->wa[from] : NULL;
		if (!l || l->fd >= 0) {
			close(fd);
			return INC_E_PROTOCOL;
		}
		l->fd = fd;
		l->family = family;
		/* Inherited from the listener; set again to verify it. */
		rc = inc_sock_set_tos(fd, l->family, tos);
		if (rc)
			return rc;
		l->tos_now = tos;
		got++;
	}
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
 * each. Collective: the first inc_sendrecv_f32 of a communicator does it
 * on every rank. Links start untagged; calls retag them.
 */
int inc_comm_connect_peers(struct inc_comm *c, int64_t deadline)
{
	int n = c->size, r = c->rank, j, got = 0, fd, rc;

	if (c->peer_send)
		return 0;
	if (c->data_lfd < 0 || !c->addrs)
		return INC_E_BROKEN;
	c->peer_send = malloc(sizeof(*c->peer_send) * (size_t)n);
	c->peer_recv = malloc(sizeof(*c->peer_recv) * (size_t)n);
	if (!c->peer_send || !c->peer_recv)
		return INC_E_NOMEM;
	for (j = 0; j < n; j++) {
		link_init(&c->peer_send[j]);
		link_init(&c->peer_recv[j]);
	}
	for (j = 0; j < n; j++) {
		if (j == r)
			continue;
		rc = link_connect(&c->peer_send[j], &c->addrs[j], c->alens[j], 0, r, LINK_PEER,
				  deadline);
		if (rc)
			return rc;
	}
	while (got < n - 1) {
		int from, kind, family;

		rc = accept_hello(c->data_lfd, n, deadline, &fd, &from, &kind, &family);
		if (rc)
			return rc;
		if (kind != LINK_PEER || from == r || c->peer_recv[from].fd >= 0) {
			close(fd);
			return INC_E_PROTOCOL;
		}
		c->peer_recv[from].fd = fd;
		c->peer_recv[from].family = family;
		c->peer_recv[from].tos_now = -1;
		got++;
	}
	return 0;
}

/*
 * The rendezvous tables, one row per rank: data-socket addresses, their
 * lengths, and the ENTRY_BYTES entries exchanged. Whatever was allocated
 * is freed by init_done, also on failure.
 */
static int tables_alloc(int size, struct sockaddr_storage **addrs,
			socklen_t **alens, uint8_t **table)
{
	*addrs = calloc((size_t)size, sizeof(**addrs));
	*alens = calloc((size_t)size, sizeof(**alens));
	*table = calloc((size_t)size, ENTRY_BYTES);
	return *addrs && *alens && *table ? 0 : INC_E_NOMEM;
}

/* End of a bootstrap: hand out c on success — it keeps the data listener
 * and the address table for the peer links (inc_comm_connect_peers) — or
 * close and free them and destroy c on failure (rc). */
static int init_done(struct inc_comm *c, int rc, int lfd,
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

/* Environment bootstrap. */
static int init_env(struct inc_comm **out, int rank, int size)
{
	const char *addr = inc_env2("INC_MASTER_ADDR", "MASTER_ADDR");
	const char *port_s = inc_env2("INC_MASTER_PORT", "MASTER_PORT");
	struct addrinfo hints, *ai = NULL;
	struct sockaddr_storage *addrs = NULL, master;
	socklen_t *alens = NULL, mlen;
	struct inc_comm *c = NULL;
	uint8_t *table = NULL, hello[16];
	int timeout, rc, lfd = -1, cfd = -1, i, family;
	long port;
	uint16_t dport, cport;
	uint8_t tos;
	int64_t deadline;

	rc = inc_env_timeout_ms(&timeout);
	if (rc)
		return rc;
	rc = inc_env_initial_tos(&tos);
	if (rc)
		return rc;
	rc = inc_comm_alloc(&c, rank, size);
	if (rc)
		return rc;
	if (size == 1) {
		*out = c;
		return 0;
	}
	deadline = inc_now_ms() + timeout;
	rc = INC_E_ENV;
	if (!addr || inc_parse_long(port_s, 1, 65535, &port))
		goto out;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	/* Numeric addresses first: no NSS, so static binaries (e.g. in a
	 * minimal VM image) work too. */
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if (getaddrinfo(addr, port_s, &hints, &ai) != 0 || !ai) {
		hints.ai_flags = AI_NUMERICSERV;
		ai = NULL;
		if (getaddrinfo(addr, port_s, &hints, &ai) != 0 || !ai)
			goto out;
	}
	memcpy(&master, ai->ai_addr, ai->ai_addrlen);
	mlen = ai->ai_addrlen;
	family = ai->ai_family;
	freeaddrinfo(ai);

	rc = tables_alloc(size, &addrs, &alens, &table);
	if (rc)
		goto out;
	rc = inc_sock_listen(family, 0, tos, 1, &dport);
	if (rc < 0)
		goto out;
	lfd = rc;

	if (rank == 0) {
		rc = inc_sock_listen(family, (uint16_t)port, 0, 0, &cport);
		if (rc < 0)
			goto out;
		cfd = rc;
		for (i = 1; i < size; i++) {
			struct sockaddr_storage ss;
			socklen_t sl = sizeof(ss);
			int fd, from;

			rc = inc_sock_accept(cfd, deadline, &fd);
			if (rc)
				goto out;
			rc = inc_sock_read_all(fd, hello, sizeof(hello), deadline);
			if (rc) {
				close(fd);
				goto out;
			}
			from = (int)get32(hello + 4);
			if (get32(hello) != CTRL_MAGIC || get32(hello + 8) != (uint32_t)size ||
			    from <= 0 || from >= size || c->ctrl[from] >= 0 ||
			    get32(hello + 12) == 0 || get32(hello + 12) > 65535 ||
			    getpeername(fd, (struct sockaddr *)&ss, &sl) < 0) {
				close(fd);
				rc = INC_E_PROTOCOL;
				goto out;
			}
			c->ctrl[from] = fd;
			entry_put(table + ENTRY_BYTES * from, &ss,
				  (uint16_t)get32(hello + 12));
		}
		entry_put(table, &master, dport);
		table[0] = 0;   /* rank 0: "the address you reached me at" */
		for (i = 1; i < size; i++) {
			rc = inc_sock_write_all(c->ctrl[i], table,
						(size_t)size * ENTRY_BYTES, deadline);
			if (rc)
				goto out;
		}
		close(cfd);
		cfd = -1;
	} else {
		rc = inc_sock_connect((struct sockaddr *)&master, mlen, 0, 0,
				      deadline, &c->ctrl_fd);
		if (rc)
			goto out;
		put32(hello, CTRL_MAGIC);
		put32(hello + 4, (uint32_t)rank);
		put32(hello + 8, (uint32_t)size);
		put32(hello + 12, dport);
		rc = inc_sock_write_all(c->ctrl_fd, hello, sizeof(hello), deadline);
		if (rc)
			goto out;
		rc = inc_sock_read_all(c->ctrl_fd, table, (size_t)size * ENTRY_BYTES,
				       deadline);
		if (rc)
			goto out;
	}
	for (i = 0; i < size; i++) {
		if (i == 0) {
			addrs[0] = master;
			alens[0] = mlen;
			set_port(&addrs[0], (uint16_t)(table[2] << 8 | table[3]));
			continue;
		}
		rc = entry_get(table + ENTRY_BYTES * i, &addrs[i], &alens[i]);
		if (rc)
			goto out;
	}
	rc = inc_comm_connect_data(c, lfd, addrs, alens, tos, deadline);
out:
	if (cfd >= 0)
		close(cfd);
	return init_done(c, rc, lfd, addrs, alens, table, out);
}

#ifdef INC_WITH_MPI
/* This host's address for the others: INC_ADDR, else the first IPv4 of
 * an interface that is up and not loopback, else 127.0.0.1. */
static int local_addr(struct sockaddr_in *sin)
{
	const char *env = getenv("INC_ADDR");
	struct ifaddrs *ifa, *i;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (env && *env)
		return inet_pton(AF_INET, env, &sin->sin_addr) == 1 ? 0 : INC_E_ENV;
	if (getifaddrs(&ifa) < 0)
		return 0;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
		    !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
			continue;
		sin->sin_addr = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
		break;
	}
	freeifaddrs(ifa);
	return 0;
}

int inc_comm_init_mpi(struct inc_comm **out)
{
	struct sockaddr_storage *addrs = NULL;
	struct sockaddr_in me;
	socklen_t *alens = NULL;
	struct inc_comm *c = NULL;
	uint8_t entry[ENTRY_BYTES], *table = NULL;
	int init = 0, rank, size, rc, timeout, lfd = -1, i, fin = 0;
	uint16_t dport;
	uint8_t tos;

	if (!out)
		return INC_E_ARG;
	*out = NULL;
	rc = inc_env_timeout_ms(&timeout);
	if (!rc)
		rc = inc_env_initial_tos(&tos);
	if (rc)
		return rc;
	MPI_Initialized(&init);
	if (!init) {
		if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
			return INC_E_MPI;
		fin = 1;
	}
	if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS ||
	    MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS)
		return INC_E_MPI;
	rc = inc_comm_alloc(&c, rank, size);
	if (rc)
		return rc;
	c->mpi_finalize = fin;
	rc = tables_alloc(size, &addrs, &alens, &table);
	if (rc)
		goto out;
	rc = local_addr(&me);
	if (rc)
		goto out;
	rc = inc_sock_listen(AF_INET, 0, tos, 1, &dport);
	if (rc < 0)
		goto out;
	lfd = rc;
	{
		struct sockaddr_storage ss;

		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, &me, sizeof(me));
		entry_put(entry, &ss, dport);
	}
	rc = INC_E_MPI;
	if (MPI_Allgather(entry, ENTRY_BYTES, MPI_BYTE, table, ENTRY_BYTES,
			  MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS)
		goto out;
	for (i = 0; i < size; i++) {
		rc = entry_get(table + ENTRY_BYTES * i, &addrs[i], &alens[i]);
		if (rc)
			goto out;
	}
	rc = inc_comm_connect_data(c, lfd, addrs, alens, tos,
				   inc_now_ms() + timeout);
out:
	return init_done(c, rc, lfd, addrs, alens, table, out);
}

static int under_mpirun(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
	       getenv("PMIX_RANK");
}
#else
int inc_comm_init_mpi(struct inc_comm **out)
{
	if (out)
		*out = NULL;
	return INC_E_MPI;
}
#endif

int inc_comm_init_env(struct inc_comm **out)
{
	const char *rank_s, *size_s;
	long rank, size;

	if (!out)
		return INC_E_ARG;
	*out = NULL;
	rank_s = inc_env2("INC_RANK", "RANK");
	size_s = inc_env2("INC_WORLD_SIZE", "WORLD_SIZE");
#ifdef INC_WITH_MPI
	if (!rank_s && !size_s && under_mpirun())
		return inc_comm_init_mpi(out);
#endif
	if (inc_parse_long(size_s, 1, 65536, &size) ||
	    inc_parse_long(rank_s, 0, size - 1, &rank))
		return INC_E_ENV;
	return init_env(out, (int)rank, (int)size);
}
