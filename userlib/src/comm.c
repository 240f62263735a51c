// SPDX-License-Identifier: MIT
/*
 * comm.c - communicator bootstrap (environment, torchrun style, or MPI)
 * and the data links: a ring (send to rank+1, receive from rank-1) and the
 * worker-aggregator links (every rank > 0 to rank 0).
 *
 * Every connection, to the master port or to a data listener, starts with
 * the handshake of hello.c (magic, version, job id, world size, rank,
 * link kind; an HMAC challenge-response with INC_JOB_SECRET); strangers are
 * refused and counted, the job goes on (docs/userlib.md, "Bootstrap").
 *
 * Control protocol (untagged TCP to INC_MASTER_ADDR:INC_MASTER_PORT): each
 * rank > 0 sends its control hello with its data port; once all are in,
 * rank 0 sends each the table of N data addresses (24 bytes each: family
 * 4/6, pad, port, 16 address bytes, pad). Rank 0's own entry is left zero:
 * the others use the address they reached it at.
 *
 * Listeners bind to INC_BIND_ADDR, else to the address this rank uses to
 * reach the master (rank 0: the master address itself), never to every
 * interface. Data sockets never carry anything but float32 values, the
 * handshake included.
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

int inc_comm_bootstrap_stats(const struct inc_comm *c, struct inc_bootstrap_stats *st)
{
	if (!c || !st)
		return INC_E_ARG;
	*st = c->bst;
	return 0;
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

static void rdv_init(struct inc_rdv *rv, struct inc_comm *c, const char *what, int lfd,
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
	rdv_init(&rv, c, "data listener", lfd, 1, deadline);
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
			link_init(&ps[j]);
			link_init(&pr[j]);
		}
		c->peer_send = ps;
		c->peer_recv = pr;
	}
	o = calloc((size_t)n, sizeof(*o));
	if (!o)
		return INC_E_NOMEM;
	rdv_init(&rv, c, "data listener", c->data_lfd, 1, deadline);
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

/* A numeric or named address (port 0) into *ss: 0 or INC_E_ENV. */
static int resolve(const char *addr, const char *port_s, struct sockaddr_storage *ss,
		   socklen_t *len)
{
	struct addrinfo hints, *ai = NULL;

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
			return INC_E_ENV;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* The master's control rendezvous: rank r's hello fills ctrl[r] and its
 * table row (the address it connected from, its data port). */
struct ctrl_rdv {
	struct inc_comm *c;
	uint8_t *table;
};

static int *ctrl_slot(void *arg, const struct inc_hello *h)
{
	struct ctrl_rdv *d = arg;

	if (h->kind != INC_LINK_CTRL || h->rank == 0 || h->port == 0 || h->port > 65535)
		return NULL;
	return &d->c->ctrl[h->rank];
}

static void ctrl_accepted(void *arg, const struct inc_hello *h, int fd)
{
	struct ctrl_rdv *d = arg;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	memset(&ss, 0, sizeof(ss));
	(void)getpeername(fd, (struct sockaddr *)&ss, &sl);
	entry_put(d->table + ENTRY_BYTES * h->rank, &ss, (uint16_t)h->port);
}

/* The master's address and port and the bind address, each refusal
 * naming its variable. */
static int env_bootstrap(const char *addr, const char *port_s, const char *bind_s, long *port,
			 struct sockaddr_storage *master, socklen_t *mlen,
			 struct sockaddr_storage *bind_ss, socklen_t *blen)
{
	const char *pn = getenv("INC_MASTER_PORT") && *getenv("INC_MASTER_PORT") ?
			 "INC_MASTER_PORT" : "MASTER_PORT";
	const char *an = getenv("INC_MASTER_ADDR") && *getenv("INC_MASTER_ADDR") ?
			 "INC_MASTER_ADDR" : "MASTER_ADDR";
	char dec[16];

	if (!addr)
		return inc_env_refuse("INC_MASTER_ADDR", NULL, "not set (nor MASTER_ADDR)");
	if (!port_s)
		return inc_env_refuse("INC_MASTER_PORT", NULL, "not set (nor MASTER_PORT)");
	if (inc_parse_long(port_s, 1, 65535, port))
		return inc_env_refuse(pn, port_s, "want a port 1..65535 (decimal, or 0x hex)");
	snprintf(dec, sizeof(dec), "%ld", *port);   /* getaddrinfo wants decimal */
	if (resolve(addr, dec, master, mlen))
		return inc_env_refuse(an, addr, "not an address or a name that resolves");
	if (bind_s && resolve(bind_s, "0", bind_ss, blen))
		return inc_env_refuse("INC_BIND_ADDR", bind_s,
				      "not an address or a name that resolves");
	return 0;
}

/* Environment bootstrap. */
static int init_env(struct inc_comm **out, int rank, int size)
{
	const char *addr = inc_env2("INC_MASTER_ADDR", "MASTER_ADDR");
	const char *port_s = inc_env2("INC_MASTER_PORT", "MASTER_PORT");
	const char *bind_s = inc_env2("INC_BIND_ADDR", NULL);
	struct sockaddr_storage *addrs = NULL, master, bind_ss, local;
	socklen_t *alens = NULL, mlen, blen, llen;
	struct inc_comm *c = NULL;
	uint8_t *table = NULL;
	int timeout, rc, lfd = -1, cfd = -1, i;
	char job_id[INC_JOB_ID_MAX + 1];
	struct inc_rdv rv;
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
	/* The default job id: the master's address and port. */
	snprintf(job_id, sizeof(job_id), "%s:%s", addr ? addr : "", port_s ? port_s : "");
	rc = inc_job_init(&c->job, rank, size, job_id);
	if (rc)
		goto out;
	if (size == 1) {
		*out = c;
		return 0;
	}
	deadline = inc_now_ms() + timeout;
	rc = env_bootstrap(addr, port_s, bind_s, &port, &master, &mlen, &bind_ss, &blen);
	if (rc)
		goto out;
	rc = tables_alloc(size, &addrs, &alens, &table);
	if (rc)
		goto out;

	if (rank == 0) {
		struct ctrl_rdv d = { c, table };

		/* Listen where the others reach us. */
		local = bind_s ? bind_ss : master;
		rc = inc_sock_listen(&local, 0, 0, tos, 1, &dport);
		if (rc < 0)
			goto out;
		lfd = rc;
		rc = inc_sock_listen(&local, 0, (uint16_t)port, 0, 0, &cport);
		if (rc < 0)
			goto out;
		cfd = rc;
		rdv_init(&rv, c, "master port", cfd, 0, deadline);
		rv.slot = ctrl_slot;
		rv.accepted = ctrl_accepted;
		rv.arg = &d;
		rc = inc_rdv_run(&rv, NULL, 0, size - 1);
		if (rc)
			goto out;
		close(cfd);
		cfd = -1;
		entry_put(table, &master, dport);
		table[0] = 0;   /* rank 0: "the address you reached me at" */
		for (i = 1; i < size; i++) {
			rc = inc_sock_write_all(c->ctrl[i], table,
						(size_t)size * ENTRY_BYTES, deadline);
			if (rc)
				goto out;
		}
	} else {
		struct inc_rdv_out o;

		for (;;) {
			rc = inc_sock_connect((struct sockaddr *)&master, mlen,
					      bind_s ? &bind_ss : NULL, 0, 0, deadline, &c->ctrl_fd);
			if (rc)
				goto out;
			/* Listen on the address the master sees us at. */
			llen = sizeof(local);
			if (lfd < 0 && getsockname(c->ctrl_fd, (struct sockaddr *)&local, &llen) < 0) {
				rc = INC_E_SOCKET;
				goto out;
			}
			if (lfd < 0) {
				rc = inc_sock_listen(bind_s ? &bind_ss : &local, 0, 0, tos, 1, &dport);
				if (rc < 0)
					goto out;
				lfd = rc;
			}
			rdv_init(&rv, c, "master port", -1, 0, deadline);
			o.fd = c->ctrl_fd;
			rc = inc_hello_out(&rv, &o, INC_LINK_CTRL, dport);
			if (!rc)
				rc = inc_rdv_run(&rv, &o, 1, 0);
			/* Closed with no answer: the master made room for a
			 * newer connection in a flood (or was not up). Again. */
			if (rc != INC_E_CLOSED || inc_now_ms() + 50 >= deadline)
				break;
			close(c->ctrl_fd);
			c->ctrl_fd = -1;
			usleep(50000);
		}
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
		return inet_pton(AF_INET, env, &sin->sin_addr) == 1 ? 0 :
		       inc_env_refuse("INC_ADDR", env, "not an IPv4 address");
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
	/* MPI vouches for the membership; the handshakes still keep
	 * strangers off the data listeners. */
	rc = inc_job_init(&c->job, rank, size, "mpi");
	if (rc)
		goto out;
	rc = tables_alloc(size, &addrs, &alens, &table);
	if (rc)
		goto out;
	rc = local_addr(&me);
	if (rc)
		goto out;
	{
		struct sockaddr_storage ss;

		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, &me, sizeof(me));
		rc = inc_sock_listen(&ss, 0, 0, tos, 1, &dport);
		if (rc < 0)
			goto out;
		lfd = rc;
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
	long rank, size;
	int rc;

	if (!out)
		return INC_E_ARG;
	*out = NULL;
#ifdef INC_WITH_MPI
	if (!inc_env2("INC_RANK", "RANK") && !inc_env2("INC_WORLD_SIZE", "WORLD_SIZE") &&
	    under_mpirun())
		return inc_comm_init_mpi(out);
#endif
	rc = inc_env_long("INC_WORLD_SIZE", "WORLD_SIZE", 1, 65536, &size);
	if (rc == 1)
		return inc_env_refuse("INC_WORLD_SIZE", NULL, "not set (nor WORLD_SIZE)");
	if (rc)
		return rc;
	rc = inc_env_long("INC_RANK", "RANK", 0, size - 1, &rank);
	if (rc == 1)
		return inc_env_refuse("INC_RANK", NULL, "not set (nor RANK)");
	if (rc)
		return rc;
	return init_env(out, (int)rank, (int)size);
}
